// Colors: one stable color per pid (the same pid has the same color in every lane and every
// session) and the thread-state palette.

const cache = new Map();

/** A saturated color for a pid: hues spread by the golden angle so neighbours differ. */
export function pidColor(pid) {
    let c = cache.get(pid);
    if (c) return c;
    const h = (pid * 137.508) % 360;
    const s = 55 + (pid % 3) * 10;
    const l = 48 + (pid % 4) * 5;
    c = `hsl(${h.toFixed(1)}, ${s}%, ${l}%)`;
    cache.set(pid, c);
    return c;
}

export const STATE_COLORS = {
    R: '#1f8a3b',    // running
    W: '#8fd18a',    // runnable: woken or preempted, waiting for a CPU
    S: '#d5d8de',    // sleeping
    D: '#e8590c',    // blocked (uninterruptible)
    '?': '#b9a6d9',  // unknown
};

export const STATE_NAMES = {
    R: 'running',
    W: 'runnable',
    S: 'sleeping',
    D: 'blocked',
    '?': 'unknown',
};

/** A color per kvm exit reason, stable across sessions. */
export function reasonColor(reason) {
    let h = 0;
    for (let i = 0; i < reason.length; i++) h = (h * 31 + reason.charCodeAt(i)) >>> 0;
    return `hsl(${h % 360}, 80%, 35%)`;
}

// Lane backgrounds are grays (r = g = b) so that any colored pixel in a lane is data.
export const LANE_BG = ['#ffffff', '#f3f3f3'];
export const HEADER_BG = '#e4e4e4';
export const DROPPED_COLOR = '#d00000';
export const SELECTION_FILL = 'rgba(40, 110, 220, 0.15)';
export const CURSOR_COLOR = '#1a56c4';
