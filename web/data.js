// The page's data layer: the one place that knows where data comes from. Served by
// `ringscope view`, it asks the server's API for the visible range at the canvas' pixel width.
// In an exported file (`ringscope view --export`), a <script id="ringscope-data"> holds a blob
// made of the same answers for the whole trace; this module answers the same queries from it,
// merging to the requested level of detail here. Both sources have the same methods:
//   meta(), cpus(from, to, width), tasks(from, to, width, pids), events(from, to, opts),
//   stats(from, to), search(q), marks(from, to, width) (the plugins' marks, e.g. kvm exits), and
//   `offline` (true for the embedded blob).

export function openDataSource(doc = document) {
    const script = doc.getElementById('ringscope-data');
    if (script) return new EmbeddedSource(JSON.parse(script.textContent));
    return new ServerSource();
}

/** An error the server answered (HTTP 400 and its message) or a failed request. */
export class DataError extends Error {}

class ServerSource {
    constructor() { this.offline = false; }

    async get(path, params = {}) {
        const query = new URLSearchParams();
        for (const [k, v] of Object.entries(params)) {
            if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
        }
        const qs = query.toString();
        const response = await fetch(qs ? `${path}?${qs}` : path);
        let body;
        try {
            body = await response.json();
        } catch {
            throw new DataError(`${path}: HTTP ${response.status}, not JSON`);
        }
        if (!response.ok) throw new DataError(body.error || `${path}: HTTP ${response.status}`);
        return body;
    }

    meta() { return this.get('api/meta'); }
    cpus(from, to, width) {
        return this.get('api/cpus', {from: ns(from), to: ns(to), width: Math.max(1, Math.round(width))});
    }
    tasks(from, to, width, pids) { return this.lanes('api/tasks', from, to, width, {pids}); }
    processes(from, to, width, ids) { return this.lanes('api/processes', from, to, width, {ids}); }
    /** A level-of-detail query of some lanes: LISTS ({name: [numbers]}) as comma lists, or left out. */
    lanes(path, from, to, width, lists) {
        const params = {from: ns(from), to: ns(to), width: Math.max(1, Math.round(width))};
        for (const [name, list] of Object.entries(lists)) params[name] = list && list.length ? list.join(',') : undefined;
        return this.get(path, params);
    }
    events(from, to, {limit, filter, cpu, pid} = {}) {
        return this.get('api/events', {from: ns(from), to: ns(to), limit, filter, cpu, pid});
    }
    stats(from, to) { return this.get('api/stats', {from: ns(from), to: ns(to)}); }
    search(q) { return this.get('api/search', {q}); }
    marks(from, to, width) {
        return this.get('api/marks', {from: ns(from), to: ns(to), width: Math.max(1, Math.round(width))});
    }
}

const ns = (t) => Math.round(t);

// ---- the embedded blob ------------------------------------------------------------------------

class EmbeddedSource {
    constructor(blob) {
        this.offline = true;
        this.blob = blob;
        const {lines, ts} = normaliseLines(blob.events, blob.lines_ts);
        this.lines = lines;
        this.linesTs = ts;
    }

    async meta() { return this.blob.meta; }

    async cpus(from, to, width) {
        const lanes = (this.blob.cpus?.lanes || []).map((lane) => {
            const out = {...lane, slices: mergeSpans(lane.slices || [], from, to, width)};
            out.ticks = rebucket(lane.ticks || [], from, to, width);
            if (lane.exits) out.exits = thinPoints(lane.exits, from, to, width);
            return out;
        });
        return {from, to, lanes};
    }

    async tasks(from, to, width, pids) {
        const wanted = pids && pids.length ? new Set(pids.map(Number)) : null;
        const lanes = (this.blob.tasks?.lanes || [])
                          .filter((lane) => !wanted || wanted.has(lane.id ?? lane.pid))
                          .map((lane) => ({...lane, states: mergeSpans(lane.states || [], from, to, width)}));
        return {from, to, lanes};
    }

    /** The process headers' lanes from the embedded thread states (running where one runs). */
    async processes(from, to, width, ids) {
        const wanted = new Set((ids || []).map(Number));
        const lanes = [];
        for (const proc of this.blob.meta?.processes || []) {
            const id = proc.id ?? proc.tgid;
            if (!wanted.has(id)) continue;
            const threads = new Set((proc.threads || []).map((th) => th.id ?? th.pid));
            const running = [];
            for (const lane of this.blob.tasks?.lanes || []) {
                if (!threads.has(lane.id ?? lane.pid)) continue;
                for (const s of mergeSpans(lane.states || [], from, to, width)) {
                    if (s[2] === 'R') running.push(s);
                }
            }
            lanes.push({id, threads: threads.size, running: runningUnion(running)});
        }
        return {from, to, lanes};
    }

    async marks(from, to, width) {
        const m = this.blob.marks || {};
        const thin = (list) =>
            list.map((item) => ({...item, marks: thinMarks(item.marks || [], from, to, width)}))
                .filter((item) => item.marks.length);
        return {from, to, lanes: thin(m.lanes || []), tasks: thin(m.tasks || [])};
    }

    async events(from, to, {limit = 10000, filter, cpu, pid} = {}) {
        if (filter || cpu !== undefined || pid !== undefined) {
            throw new DataError('filters need the server: open the trace with `ringscope view`');
        }
        const lo = lowerBound(this.linesTs, from);
        const hi = upperBound(this.linesTs, to);
        const total = Math.max(0, hi - lo);
        const n = Math.min(total, limit);
        const partial = this.lines.length < (this.blob.meta?.events || []).reduce((a, e) => a + e.count, 0);
        return {
            lines: this.lines.slice(lo, lo + n),
            total,
            truncated: n < total || (partial && hi >= this.lines.length),
        };
    }

    /** Run and wait time per task from the embedded thread states (their level of detail). */
    async stats(from, to) {
        const tasks = [];
        for (const lane of this.blob.tasks?.lanes || []) {
            const t =
                {pid: lane.pid, comm: lane.comm, run: 0, wait: 0, wakeup_max: 0, wakeup_avg: 0, wakeups: 0};
            const states = lane.states || [];
            let latencySum = 0;
            for (let i = 0; i < states.length; i++) {
                const [s, e, state] = states[i];
                if (e < from || s > to) continue;
                const overlap = Math.min(e, to) - Math.max(s, from);
                if (state === 'R') t.run += overlap;
                if (state === 'W') {
                    t.wait += overlap;
                    const next = states[i + 1];
                    if (s >= from && next && next[2] === 'R') {
                        t.wakeups++;
                        latencySum += e - s;
                        t.wakeup_max = Math.max(t.wakeup_max, e - s);
                    }
                }
            }
            t.wakeup_avg = t.wakeups ? Math.round(latencySum / t.wakeups) : 0;
            if (t.run || t.wait) tasks.push(t);
        }
        tasks.sort((a, b) => b.run - a.run);
        return {tasks, approximate: true};
    }

    async search(q) {
        const text = q.trim();
        if (/[=<>~!&|]/.test(text)) {
            throw new DataError('filters need the server: open the trace with `ringscope view`');
        }
        const meta = this.blob.meta;
        const matches = [];
        const lower = text.toLowerCase();
        for (const proc of meta.processes || []) {
            for (const th of proc.threads || []) {
                if (String(th.pid) === text || th.comm.toLowerCase().includes(lower)) {
                    matches.push({
                        kind: 'task',
                        label: `${th.comm}-${th.pid}`,
                        pid: th.pid,
                        id: th.id ?? th.pid,
                        first: this.firstOf(th.id ?? th.pid)
                    });
                }
            }
        }
        for (const ev of meta.events || []) {
            if (ev.name.toLowerCase().includes(lower)) {
                const i = this.lines.findIndex((line) => line.includes(` ${ev.name.split(':').pop()}:`));
                matches.push({
                    kind: 'event',
                    label: ev.name,
                    first: i >= 0 ? this.linesTs[i] : meta.start,
                    count: ev.count
                });
            }
        }
        return {matches};
    }

    firstOf(pid) {
        for (const lane of this.blob.tasks?.lanes || []) {
            if ((lane.id ?? lane.pid) === pid && lane.states?.length) return lane.states[0][0];
        }
        return this.blob.meta.start;
    }
}

/** The export's lines in any of its shapes: strings + lines_ts, [ts, line] or {ts, line}. */
function normaliseLines(events, linesTs) {
    const list = Array.isArray(events) ? events : events?.lines || [];
    if (list.length && typeof list[0] !== 'string') {
        const lines = [];
        const ts = [];
        for (const item of list) {
            if (Array.isArray(item)) {
                ts.push(item[0]);
                lines.push(item[1]);
            } else {
                ts.push(item.ts);
                lines.push(item.line);
            }
        }
        return {lines, ts};
    }
    return {lines: list, ts: linesTs || events?.lines_ts || []};
}

// ---- level of detail --------------------------------------------------------------------------

/**
 * Spans [start, end, key, n] (sorted by start) clipped to those overlapping [from, to] and merged
 * as the server does: spans shorter than a pixel join their neighbours into one span of the
 * dominant key (by time), with n the number of spans merged.
 */
/** The union of running spans [start, end, 'R', n]: [start, end, most at once, spans in it]. */
export function runningUnion(spans) {
    const edges = [];
    for (const [s, e] of spans) {
        if (e > s) edges.push([s, 1], [e, -1]);
    }
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const out = [];
    let running = 0;
    for (const [t, step] of edges) {
        if (step > 0) {
            const last = out[out.length - 1];
            if (running === 0 && !(last && last[1] >= t)) out.push([t, t, 0, 0]);
            const cur = out[out.length - 1];
            cur[3]++;
            running++;
            cur[2] = Math.max(cur[2], running);
        } else if (--running === 0) {
            out[out.length - 1][1] = t;
        }
    }
    return out;
}

export function mergeSpans(spans, from, to, width) {
    const px = (to - from) / Math.max(1, width);
    const out = [];
    let group = null;
    const flush = () => {
        if (!group) return;
        let best = null;
        let bestTime = -1;
        for (const [key, time] of group.weight) {
            if (time > bestTime) {
                best = key;
                bestTime = time;
            }
        }
        out.push([group.start, group.end, best, group.n]);
        group = null;
    };
    for (let i = firstOverlap(spans, from); i < spans.length; i++) {
        const [s, e, key, n = 1] = spans[i];
        if (s > to) break;
        if (e < from) continue;
        if (e - s >= px) {
            flush();
            out.push(spans[i]);
            continue;
        }
        if (group && s - group.end > px) flush();
        if (!group) group = {start: s, end: e, n: 0, weight: new Map()};
        group.end = Math.max(group.end, e);
        group.n += n;
        group.weight.set(key, (group.weight.get(key) || 0) + (e - s) + 1);
        if (group.end - group.start >= px) flush();
    }
    flush();
    return out;
}

/** Index of the first span that may overlap `from` (spans sorted by start, non-overlapping). */
function firstOverlap(spans, from) { return partitionPoint(spans.length, (i) => spans[i][1] < from); }

/** [[bucket_start, count]...] summed into `width` buckets over [from, to]. */
export function rebucket(ticks, from, to, width) {
    const size = Math.max(1, (to - from) / Math.max(1, width));
    const buckets = new Map();
    for (const [t, count] of ticks) {
        if (t < from || t > to) continue;
        const b = Math.floor((t - from) / size);
        buckets.set(b, (buckets.get(b) || 0) + count);
    }
    return [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([b, c]) => [from + b * size, c]);
}

/** Points [ts, ...] within [from, to], at most one per pixel. */
function thinPoints(points, from, to, width) {
    const size = (to - from) / Math.max(1, width);
    const out = [];
    let lastBucket = -1;
    for (const p of points) {
        if (p[0] < from || p[0] > to) continue;
        const b = Math.floor((p[0] - from) / size);
        if (b === lastBucket) continue;
        lastBucket = b;
        out.push(p);
    }
    return out;
}

/** Marks [ts, label, detail, n] within [from, to], the first of each pixel counting the others. */
export function thinMarks(marks, from, to, width) {
    const size = Math.max(1e-9, (to - from + 1) / Math.max(1, width));
    const out = [];
    let lastBucket = -1;
    for (const [t, label, detail, n = 1] of marks) {
        if (t < from || t > to) continue;
        const b = Math.floor((t - from) / size);
        if (b === lastBucket) {
            out[out.length - 1][3] += n;
            continue;
        }
        lastBucket = b;
        out.push([t, label, detail, n]);
    }
    return out;
}

/** The first index in [0, n) for which before(i) is false (before is true, then false). */
function partitionPoint(n, before) {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (before(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const lowerBound = (a, x) => partitionPoint(a.length, (i) => a[i] < x);
const upperBound = (a, x) => partitionPoint(a.length, (i) => a[i] <= x);
