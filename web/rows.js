// The timeline's rows, from /api/meta: the CPU lanes (each instance's after the top buffer's, as
// the server lists them), then the tasks grouped by process (collapsible), each guest vCPU lane
// under the host task that runs it.

export const ROW_HEIGHT = {
    section: 20,
    cpu: 22,
    process: 18,
    task: 14,
    guest: 20
};

/** Lane keys ("file:cpu") of the guests' CPUs, mapped to the host pid running each vCPU. */
export function guestLanes(meta) {
    const out = new Map();
    for (const guest of meta.guests || []) {
        for (const [vcpu, pid] of Object.entries(guest.host_pid_of_vcpu || {})) {
            out.set(`${guest.file}:${vcpu}`, Number(pid));
        }
    }
    return out;
}

/**
 * A task's key in the answers: its `id` (a guest's pids are another machine's: the server numbers
 * each file's tasks apart), its pid where the server sends no id.
 */
export const taskKey = (task) => task.id ?? task.pid;
/** A process's key: its `id`, else its tgid. */
export const processKey = (proc) => proc.id ?? proc.tgid;

/** A name per host pid ("comm") from the processes of meta (the CPU lanes' slices are pids). */
export function commsByPid(meta) {
    const out = new Map();
    for (const proc of meta.processes || []) {
        if (proc.file) continue;
        for (const th of proc.threads || []) out.set(th.pid, th.comm);
    }
    return out;
}

/**
 * The rows to draw, top to bottom, each with y (from the top of the lane area) and h.
 * `collapsed` holds the tgids whose threads are hidden.
 */
export function buildRows(meta, collapsed) {
    const rows = [];
    const guests = guestLanes(meta);
    const guestFiles = new Set((meta.guests || []).map((g) => g.file));
    const guestsOfPid = new Map();
    const orphanGuests = [];
    for (const cpu of meta.cpus || []) {
        if (!guestFiles.has(cpu.file)) continue;
        const host = guests.get(cpu.lane);
        const machine = meta.files?.[cpu.file]?.machine || `guest ${cpu.file}`;
        // An instance's lanes ("NAME/vCPU 1") run no vCPU of the host's: they go with the unplaced.
        const name = `${cpu.instance ? `${cpu.instance}/` : ''}vCPU ${cpu.cpu} of ${machine}`;
        const row = {kind: 'guest', lane: cpu.lane, label: name, hostPid: host};
        if (host === undefined)
            orphanGuests.push(row);
        else
            guestsOfPid.set(host, [...(guestsOfPid.get(host) || []), row]);
    }

    rows.push({kind: 'section', label: 'CPUs'});
    for (const cpu of meta.cpus || []) {
        if (guestFiles.has(cpu.file)) continue;
        const machine = (meta.files || []).length > 1 ? ` (${cpu.file})` : '';
        rows.push({kind: 'cpu', lane: cpu.lane, label: `${cpu.label}${machine}`});
    }

    const placed = new Set();
    // Several machines (host + guests) whose processes the server tells apart: a section each.
    const machines =
        (meta.files || []).length > 1 && (meta.processes || []).some((p) => p.file !== undefined);
    let section = null;
    for (const proc of byMachine(meta.processes || [], machines)) {
        const heading = machines ? `Tasks of ${meta.files[proc.file]?.machine || `file ${proc.file}`}` :
                                   'Tasks by process';
        if (heading !== section) rows.push({kind: 'section', label: (section = heading)});
        const threads = proc.threads || [];
        // A process of one thread is one row; only groups get a header (and can collapse).
        const single = threads.length === 1;
        const isCollapsed = !single && collapsed.has(processKey(proc));
        if (!single)
            rows.push({
                kind: 'process',
                tgid: processKey(proc),
                label: `${isCollapsed ? '▸' : '▾'} ${proc.comm} ${proc.tgid} (${threads.length})`,
                pids: threads.map(taskKey),
                collapsed: isCollapsed,
            });
        for (const th of threads) {
            const vcpus = guestsOfPid.get(th.pid) || [];
            if (!isCollapsed)
                rows.push({kind: 'task', pid: taskKey(th), tgid: processKey(proc), label: `${th.comm} ${th.pid}`, single});
            for (const g of vcpus) {
                placed.add(g.lane);
                if (!isCollapsed) rows.push({...g, label: `↳ ${g.label}`});
            }
        }
    }
    const unplaced = orphanGuests.concat(
        [...guestsOfPid.values()].flat().filter((g) => !placed.has(g.lane)),
    );
    if (unplaced.length) {
        rows.push({kind: 'section', label: 'Guest vCPUs'});
        rows.push(...unplaced);
    }

    let y = 0;
    for (const row of rows) {
        row.h = ROW_HEIGHT[row.kind];
        row.y = y;
        y += row.h;
    }
    return {rows, height: y};
}

/** The rows overlapping [top, top + height) (binary search on y). */
export function visibleRows(rows, top, height) {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (rows[mid].y + rows[mid].h <= top)
            lo = mid + 1;
        else
            hi = mid;
    }
    const out = [];
    for (let i = lo; i < rows.length && rows[i].y < top + height; i++) out.push(rows[i]);
    return out;
}

/** The processes, grouped by their file when the machines are told apart (stable otherwise). */
function byMachine(processes, machines) {
    if (!machines) return processes;
    return [...processes].sort((a, b) => (a.file ?? 0) - (b.file ?? 0));
}
