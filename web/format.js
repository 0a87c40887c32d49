// Text for times and durations. Times are integers in ns of the trace clock; they are shown as
// `trace-cmd report` prints them (seconds, 6 decimals, truncated). Durations get the unit that
// suits each value, never scientific notation.

const NS_PER_S = 1e9;

/** "440.458121" for 440458121345 ns, as report's "%5llu.%06llu" without the padding. */
export function formatTs(ns) {
    const t = Math.max(0, Math.floor(ns));
    const secs = Math.floor(t / NS_PER_S);
    const usecs = Math.floor((t - secs * NS_PER_S) / 1000);
    return `${secs}.${String(usecs).padStart(6, '0')}`;
}

/** "812 ns", "1.250 us", "3.002 ms", "2.500 s". */
export function formatDuration(ns) {
    const v = Math.abs(ns);
    const sign = ns < 0 ? '-' : '';
    if (v < 1e3) return `${sign}${Math.round(v)} ns`;
    if (v < 1e6) return `${sign}${(v / 1e3).toFixed(3)} us`;
    if (v < 1e9) return `${sign}${(v / 1e6).toFixed(3)} ms`;
    return `${sign}${(v / 1e9).toFixed(3)} s`;
}

/** A count with thousands separators ("3,012,455"). */
export function formatCount(n) { return Math.round(n).toLocaleString('en-US'); }

/** The axis tick step (ns) for a span shown over `px` pixels: 1, 2 or 5 times a power of ten. */
export function niceStep(spanNs, px, minPxPerTick = 110) {
    const raw = (spanNs * minPxPerTick) / Math.max(1, px);
    let step = 1;
    while (step * 10 <= raw) step *= 10;
    for (const m of [1, 2, 5, 10]) {
        if (step * m >= raw) return step * m;
    }
    return step * 10;
}

/** An axis label: report's seconds with the decimals the step needs (6 below 10 us). */
export function formatAxisTs(ns, stepNs) {
    const full = formatTs(ns);
    let drop = 0;
    for (let step = 10000; step <= stepNs && drop < 6; step *= 10) drop++;
    return drop === 6 ? full.slice(0, -7) : full.slice(0, full.length - drop);
}

/** Parses "440.458121" (seconds) into ns; NaN when it is not a number. */
export function parseTs(text) {
    const m = /^\s*(\d+)(?:\.(\d{0,9}))?\s*$/.exec(text);
    if (!m) return NaN;
    const frac = (m[2] || '').padEnd(9, '0');
    return Number(m[1]) * NS_PER_S + Number(frac);
}
