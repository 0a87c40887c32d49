// The timeline: holds the visible range, the cursor and the selection, turns mouse and keys into
// zoom / pan / select, asks the data layer for what is visible (debounced, at the canvas' pixel
// width) and redraws.

import {AXIS_HEIGHT, drawTimeline, LABEL_WIDTH} from './draw.js';
import {buildRows, commsByPid, guestLanes, processKey, taskKey, visibleRows} from './rows.js';

const FETCH_DELAY_MS = 40;
const MIN_SPAN_NS = 200;
const ZOOM_STEP = 0.8;  // W / S
const PAN_STEP = 0.15;  // A / D: a fraction of the span

export class Timeline {
    /**
     * scroller: the element that scrolls vertically; canvas: sticky inside it; spacer: sized to
     * the rows' height. on: { view(from, to), cursor(ns), select(from, to), hover(info, x, y), error(msg) }
     */
    constructor({scroller, canvas, spacer, source, meta, on}) {
        Object.assign(this, {scroller, canvas, spacer, source, meta, on});
        this.start = meta.start;
        this.end = Math.max(meta.end, meta.start + MIN_SPAN_NS);
        this.from = this.start;
        this.to = this.end;
        this.cursor = null;
        this.selection = null;
        this.highlightPid = null;
        this.comms = commsByPid(meta);
        this.cpu = new Map();
        this.tasks = new Map();
        this.procs = new Map();  // process id -> its threads' running union
        this.taskMarks = new Map();
        this.fetchSeq = 0;
        this.fetchTimer = 0;
        this.mouseX = null;
        this.collapsed = initiallyCollapsed(meta);
        this.layout();
        this.bindEvents();
        this.resize();
    }

    // ---- state changes ----

    setRange(from, to) {
        let span = Math.max(MIN_SPAN_NS, to - from);
        span = Math.min(span, this.end - this.start);
        from = Math.min(Math.max(from, this.start), this.end - span);
        this.from = from;
        this.to = from + span;
        this.on.view?.(this.from, this.to);
        this.redraw();
        this.scheduleFetch();
    }

    zoom(factor, atNs = (this.from + this.to) / 2) {
        const from = atNs - (atNs - this.from) * factor;
        const to = atNs + (this.to - atNs) * factor;
        this.setRange(from, to);
    }

    pan(fraction) {
        const d = (this.to - this.from) * fraction;
        this.setRange(this.from + d, this.to + d);
    }

    /** Centers the view on ns, keeping the span. */
    jumpTo(ns) {
        const half = (this.to - this.from) / 2;
        this.setRange(ns - half, ns + half);
    }

    setCursor(ns) {
        this.cursor = ns;
        this.on.cursor?.(ns);
        this.redraw();
    }

    /** Snaps to whole microseconds (what report prints): [from us .000, to us .999]. */
    setSelection(from, to) {
        if (from === null) {
            this.selection = null;
        } else {
            const a = Math.floor(Math.min(from, to) / 1000) * 1000;
            const b = Math.floor(Math.max(from, to) / 1000) * 1000 + 999;
            this.selection = {from: a, to: b};
        }
        this.on.select?.(this.selection);
        this.redraw();
    }

    highlight(pid) {
        this.highlightPid = pid;
        if (pid !== null) this.revealPid(pid);
        this.redraw();
    }

    /** Expands the process of pid and scrolls its lane into view. */
    revealPid(pid) {
        const proc = (this.meta.processes || []).find((p) => (p.threads || []).some((t) => taskKey(t) === pid));
        if (proc && this.collapsed.delete(processKey(proc))) this.layout();
        const row = this.rows.find((r) => r.kind === 'task' && r.pid === pid);
        if (row) this.scroller.scrollTop = Math.max(0, row.y - this.lanesHeight() / 3);
        this.scheduleFetch();
    }

    toggleProcess(tgid) {
        if (!this.collapsed.delete(tgid)) this.collapsed.add(tgid);
        this.layout();
        this.redraw();
        this.scheduleFetch();
    }

    // ---- layout and drawing ----

    layout() {
        const {rows, height} = buildRows(this.meta, this.collapsed);
        this.rows = rows;
        this.contentHeight = height;
        this.sizeSpacer();
    }

    /** The canvas stays in view (sticky); the spacer below it makes the rest scrollable. */
    sizeSpacer() {
        const extra = Math.max(0, this.contentHeight - this.lanesHeight());
        this.spacer.style.height = `${extra}px`;
    }

    lanesHeight() { return this.scroller.clientHeight - AXIS_HEIGHT; }

    plotWidth() { return Math.max(1, this.cssWidth - LABEL_WIDTH); }

    resize() {
        const dpr = window.devicePixelRatio || 1;
        this.cssWidth = this.scroller.clientWidth;
        this.cssHeight = this.scroller.clientHeight;
        this.canvas.style.width = `${this.cssWidth}px`;
        this.canvas.style.height = `${this.cssHeight}px`;
        this.canvas.width = Math.round(this.cssWidth * dpr);
        this.canvas.height = Math.round(this.cssHeight * dpr);
        this.sizeSpacer();
        this.redraw();
        this.scheduleFetch();
    }

    /** The rows on screen, with y in canvas pixels. */
    screenRows() {
        const top = this.scroller.scrollTop;
        return visibleRows(this.rows, top, this.lanesHeight()).map((r) => ({
                                                                       ...r,
                                                                       y: AXIS_HEIGHT + r.y - top,
                                                                   }));
    }

    redraw() {
        if (this.frame) return;
        this.frame = requestAnimationFrame(() => {
            this.frame = 0;
            this.drawNow();
        });
    }

    drawNow() {
        const ctx = this.canvas.getContext('2d');
        const dpr = window.devicePixelRatio || 1;
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        const rows = this.screenRows();
        drawTimeline(ctx, {
            width: this.cssWidth,
            height: this.cssHeight,
            from: this.from,
            to: this.to,
            rows,
            cpu: this.cpu,
            tasks: this.tasks,
            procs: this.procs,
            taskMarks: this.taskMarks,
            comms: this.comms,
            dropped: this.meta.dropped || [],
            highlightPid: this.highlightPid,
            cursor: this.cursor,
            selection: this.selection,
        });
        // Where each lane is drawn, for the browser tests and for tooling.
        this.canvas.dataset.layout = JSON.stringify(
            rows.map((r) => ({kind: r.kind, lane: r.lane, pid: r.pid, tgid: r.tgid, y: r.y, h: r.h})),
        );
        this.canvas.dataset.labelWidth = String(LABEL_WIDTH);
        // The range whose data is drawn: the tests wait for it to match the range shown.
        this.canvas.dataset.drawn = this.loadedKey || '';
    }

    // ---- data ----

    scheduleFetch() {
        clearTimeout(this.fetchTimer);
        this.fetchTimer = setTimeout(() => this.fetchNow(), FETCH_DELAY_MS);
    }

    async fetchNow() {
        const seq = ++this.fetchSeq;
        const {from, to} = this;
        const width = this.plotWidth();
        const pids = this.screenRows().filter((r) => r.kind === 'task').map((r) => r.pid);
        const wantCpus = this.source.cpus(from, to, width);
        const wantTasks = pids.length ? this.source.tasks(from, to, width, pids) : null;
        // Process headers on screen show their threads' running union.
        const procIds = this.screenRows().filter((r) => r.kind === 'process').map((r) => r.tgid);
        const wantProcs = procIds.length ? this.source.processes(from, to, width, procIds) : null;
        const wantMarks = this.source.marks(from, to, width);
        try {
            const cpus = await wantCpus;
            const tasks = wantTasks ? await wantTasks : {lanes: []};
            const marks = await wantMarks;
            const procs = wantProcs ? await wantProcs : {lanes: []};
            if (seq !== this.fetchSeq) return;  // a newer view was asked for meanwhile
            this.cpu = new Map(cpus.lanes.map((l) => [l.lane, l]));
            // The plugins' marks (kvm exits) on the CPU lane and the host task they happened on.
            for (const m of marks.lanes || []) {
                const lane = this.cpu.get(m.lane);
                if (lane) lane.exits = m.marks;
            }
            this.taskMarks = new Map((marks.tasks || []).map((t) => [t.pid, t.marks]));
            const next = new Map();
            for (const lane of tasks.lanes) next.set(taskKey(lane), lane.states);
            this.tasks = next;
            this.procs = new Map(procs.lanes.map((l) => [l.id, l.running]));
            this.loadedKey = `${Math.round(from)}-${Math.round(to)}`;
            this.redraw();
        } catch (err) {
            if (seq === this.fetchSeq) this.on.error?.(err.message);
        }
    }

    // ---- input ----

    /** ns -> canvas x (CSS pixels). */
    xAt(ns) { return LABEL_WIDTH + ((ns - this.from) / (this.to - this.from)) * this.plotWidth(); }

    timeAt(x) { return this.from + ((x - LABEL_WIDTH) / this.plotWidth()) * (this.to - this.from); }

    rowAt(y) { return this.screenRows().find((r) => y >= r.y && y < r.y + r.h && r.y >= AXIS_HEIGHT - r.h); }

    bindEvents() {
        const c = this.canvas;
        c.addEventListener('mousedown', (e) => this.onMouseDown(e));
        window.addEventListener('mousemove', (e) => this.onMouseMove(e));
        window.addEventListener('mouseup', (e) => this.onMouseUp(e));
        c.addEventListener('mouseleave', () => {
            this.mouseX = null;
            this.on.hover?.(null);
        });
        c.addEventListener('wheel', (e) => this.onWheel(e), {passive: false});
        this.scroller.addEventListener('scroll', () => {
            this.redraw();
            this.scheduleFetch();
        });
        new ResizeObserver(() => this.resize()).observe(this.scroller);
        window.addEventListener('keydown', (e) => this.onKey(e));
    }

    local(e) {
        const r = this.canvas.getBoundingClientRect();
        return {x: e.clientX - r.left, y: e.clientY - r.top};
    }

    onMouseDown(e) {
        if (e.button !== 0) return;
        const {x, y} = this.local(e);
        if (x < LABEL_WIDTH) {
            const row = this.rowAt(y);
            if (row?.kind === 'process')
                this.toggleProcess(row.tgid);
            else if (row?.pid !== undefined)
                this.highlight(this.highlightPid === row.pid ? null : row.pid);
            return;
        }
        e.preventDefault();
        const selecting = y < AXIS_HEIGHT || e.shiftKey;
        this.drag = {x0: x, t0: this.timeAt(x), from: this.from, to: this.to, selecting, moved: false};
    }

    onMouseMove(e) {
        const {x, y} = this.local(e);
        const inside = x >= LABEL_WIDTH && x <= this.cssWidth && y >= 0 && y <= this.cssHeight;
        this.mouseX = inside ? x : null;
        const d = this.drag;
        if (d) {
            if (Math.abs(x - d.x0) > 3) d.moved = true;
            if (!d.moved) return;
            if (d.selecting) {
                this.setSelection(d.t0, this.timeAt(Math.min(Math.max(x, LABEL_WIDTH), this.cssWidth)));
            } else {
                const dt = ((x - d.x0) / this.plotWidth()) * (d.to - d.from);
                this.setRange(d.from - dt, d.to - dt);
            }
            return;
        }
        if (inside) this.on.hover?.(this.hoverInfo(x, y), e.clientX, e.clientY);
    }

    onMouseUp(e) {
        const d = this.drag;
        this.drag = null;
        if (!d || d.moved) return;
        const {x} = this.local(e);
        this.setCursor(Math.round(this.timeAt(x)));
    }

    onWheel(e) {
        const {x} = this.local(e);
        if (x < LABEL_WIDTH) return;  // over the labels the wheel scrolls the lanes
        e.preventDefault();
        const horizontal = Math.abs(e.deltaX) > Math.abs(e.deltaY) || e.shiftKey;
        if (horizontal) {
            const delta = e.shiftKey && !e.deltaX ? e.deltaY : e.deltaX;
            this.pan(delta / this.plotWidth());
        } else {
            this.zoom(Math.exp(Math.max(-1, Math.min(1, e.deltaY * 0.002))), this.timeAt(x));
        }
    }

    onKey(e) {
        const target = e.target;
        if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) return;
        if (e.ctrlKey || e.metaKey || e.altKey) return;
        const at = this.mouseX !== null ? this.timeAt(this.mouseX) : undefined;
        switch (e.key.toLowerCase()) {
            case 'w':
                this.zoom(ZOOM_STEP, at);
                break;
            case 's':
                this.zoom(1 / ZOOM_STEP, at);
                break;
            case 'a':
                this.pan(-PAN_STEP);
                break;
            case 'd':
                this.pan(PAN_STEP);
                break;
            case 'escape':
                this.setSelection(null);
                this.highlight(null);
                break;
            case '0':
                this.setRange(this.start, this.end);
                break;
            default:
                return;
        }
        e.preventDefault();
    }

    /** What is under the mouse, for the tooltip. */
    hoverInfo(x, y) {
        const row = this.rowAt(y);
        if (!row || y < AXIS_HEIGHT || row.kind === 'section' || row.kind === 'process') return null;
        const t = this.timeAt(x);
        const slack = (3 * (this.to - this.from)) / this.plotWidth();
        const near = (list) => list?.find((s) => t >= s[0] - slack && t <= s[1] + slack);
        if (row.kind === 'cpu' || row.kind === 'guest') {
            const lane = this.cpu.get(row.lane);
            const dropped =
                (this.meta.dropped || []).find((d) => d.lane === row.lane && Math.abs(d.ts - t) <= slack);
            const exit = lane?.exits?.find((ex) => Math.abs(ex[0] - t) <= slack);
            const slice = near(lane?.slices);
            return {row, t, slice, exit, dropped, comm: slice ? this.comms.get(slice[2]) : undefined};
        }
        if (row.kind === 'task') {
            const exit = this.taskMarks.get(row.pid)?.find((ex) => Math.abs(ex[0] - t) <= slack);
            return {row, t, state: near(this.tasks.get(row.pid)), exit};
        }
        return {row, t};
    }
}

/** Many threads: processes start collapsed, except those running a guest's vCPUs. */
function initiallyCollapsed(meta) {
    const processes = meta.processes || [];
    const threads = processes.reduce((n, p) => n + (p.threads || []).length, 0);
    if (threads <= 150) return new Set();
    const hosts = new Set(guestLanes(meta).values());
    return new Set(
        processes.filter((p) => p.file || !(p.threads || []).some((t) => hosts.has(t.pid))).map(processKey));
}
