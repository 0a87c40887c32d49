// Draws the timeline on its canvas: the time axis, the lanes (CPU slices, event ticks, kvm exits,
// dropped events, thread states, guest vCPUs), the cursor and the selection. Pure drawing: all
// the state comes in `view`.

import {CURSOR_COLOR, DROPPED_COLOR, HEADER_BG, LANE_BG, pidColor, reasonColor, SELECTION_FILL, STATE_COLORS} from './colors.js';
import {formatAxisTs, niceStep} from './format.js';

export const LABEL_WIDTH = 190;
export const AXIS_HEIGHT = 30;
const FONT = '11px system-ui, sans-serif';

/**
 * view: { width, height, from, to, rows (each with a screen y), cpu (Map lane -> /api/cpus lane),
 *   tasks (Map pid -> states), procs (Map process id -> running union), taskMarks (Map pid -> [[ts, label, detail, n]...]),
 *   comms (Map pid -> comm), dropped ([{lane, ts, count}]),
 *   highlightPid, cursor, selection ({from, to}) }
 */
export function drawTimeline(ctx, view) {
    const {width, height} = view;
    const xOf = xScale(view);
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    for (const [i, row] of view.rows.entries()) drawRow(ctx, view, row, i, xOf);
    drawAxis(ctx, view, xOf);
    drawOverlays(ctx, view, xOf);
}

/** ns -> canvas x. */
export function xScale(view) {
    const plot = view.width - LABEL_WIDTH;
    const k = plot / Math.max(1, view.to - view.from);
    return (t) => LABEL_WIDTH + (t - view.from) * k;
}

function drawRow(ctx, view, row, index, xOf) {
    const {y, h} = row;
    const plotRight = view.width;
    if (row.kind === 'section' || row.kind === 'process') {
        ctx.fillStyle = HEADER_BG;
        ctx.fillRect(0, y, plotRight, h);
        if (row.kind === 'process') drawProcessSummary(ctx, view, row, xOf);
        ctx.fillStyle = '#222';
        ctx.font = row.kind === 'section' ? 'bold 11px system-ui, sans-serif' : FONT;
        ctx.fillText(clip(ctx, row.label, LABEL_WIDTH - 8), 4, y + h / 2);
        ctx.font = FONT;
        return;
    }
    ctx.fillStyle = LANE_BG[index % 2];
    ctx.fillRect(0, y, plotRight, h);
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_WIDTH, y, plotRight - LABEL_WIDTH, h);
    ctx.clip();
    if (row.kind === 'cpu' || row.kind === 'guest')
        drawCpuLane(ctx, view, row, xOf);
    else if (row.kind === 'task')
        drawTaskLane(ctx, view, row, xOf);
    ctx.restore();
    const highlighted = row.pid !== undefined && row.pid === view.highlightPid;
    ctx.fillStyle = highlighted ? '#c62828' : '#333';
    ctx.font = highlighted ? 'bold 11px system-ui, sans-serif' : FONT;
    ctx.fillText(clip(ctx, row.label, LABEL_WIDTH - 8), row.kind === 'cpu' || row.single ? 4 : 14, y + h / 2);
    ctx.font = FONT;
}

function drawCpuLane(ctx, view, row, xOf) {
    const lane = view.cpu.get(row.lane);
    const top = row.y + 2;
    const sliceH = row.h - 7;
    if (lane) {
        for (const [s, e, pid, n] of lane.slices || []) {
            const x0 = xOf(s);
            const w = Math.max(1, xOf(e) - x0);
            ctx.globalAlpha = view.highlightPid !== null && pid !== view.highlightPid ? 0.25 : 1;
            ctx.fillStyle = pidColor(pid);
            ctx.fillRect(x0, top, w, sliceH);
            if (w > 50) {
                ctx.fillStyle = '#fff';
                const comm = view.comms.get(pid) || '';
                const text = n > 1 ? `${comm} ${pid} +${n - 1}` : `${comm} ${pid}`;
                ctx.fillText(clip(ctx, text, w - 6), Math.max(x0, LABEL_WIDTH) + 3, top + sliceH / 2);
            }
        }
        ctx.globalAlpha = 1;
        ctx.fillStyle = '#555';
        const base = row.y + row.h - 1;
        for (const [t, count] of lane.ticks || []) {
            const hTick = Math.min(4, 1 + Math.log2(count));
            ctx.fillRect(xOf(t), base - hTick, 1, hTick);
        }
        for (const [t, reason] of lane.exits || []) {
            ctx.fillStyle = reasonColor(String(reason));
            triangle(ctx, xOf(t), row.y, 3);
        }
    }
    for (const d of view.dropped) {
        if (d.lane !== row.lane || d.ts < view.from || d.ts > view.to) continue;
        const x = Math.round(xOf(d.ts));  // whole pixels: a solid red, not a blend
        ctx.fillStyle = DROPPED_COLOR;
        ctx.fillRect(x - 1, row.y, 3, row.h);
        triangle(ctx, x, row.y, 5);
    }
}

/** A process header's lane: where any of its threads runs, darker where more run at once. */
function drawProcessSummary(ctx, view, row, xOf) {
    const threads = Math.max(1, row.pids?.length || 1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_WIDTH, row.y, view.width - LABEL_WIDTH, row.h);
    ctx.clip();
    ctx.fillStyle = STATE_COLORS.R;
    for (const [s, e, most] of view.procs?.get(row.tgid) || []) {
        const x0 = xOf(s);
        ctx.globalAlpha = 0.45 + 0.55 * Math.min(1, most / threads);
        ctx.fillRect(x0, row.y + 3, Math.max(1, xOf(e) - x0), row.h - 6);
    }
    ctx.restore();
}

function drawTaskLane(ctx, view, row, xOf) {
    const states = view.tasks.get(row.pid);
    const highlighted = view.highlightPid === row.pid;
    for (const [s, e, state] of states || []) {
        const x0 = xOf(s);
        const w = Math.max(1, xOf(e) - x0);
        ctx.fillStyle = STATE_COLORS[state] || STATE_COLORS['?'];
        const inset = state === 'S' ? 4 : 2;
        ctx.fillRect(x0, row.y + inset, w, row.h - 2 * inset);
    }
    // The plugins' marks on the task (kvm exits of a vCPU thread, colored by reason).
    for (const [t, reason] of view.taskMarks?.get(row.pid) || []) {
        ctx.fillStyle = reasonColor(String(reason));
        triangle(ctx, xOf(t), row.y, 3);
    }
    if (highlighted) {
        ctx.strokeStyle = '#c62828';
        ctx.strokeRect(LABEL_WIDTH + 0.5, row.y + 0.5, view.width - LABEL_WIDTH - 1, row.h - 1);
    }
}

function drawAxis(ctx, view, xOf) {
    const plot = view.width - LABEL_WIDTH;
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(0, 0, view.width, AXIS_HEIGHT);
    ctx.fillStyle = '#ddd';
    ctx.fillRect(0, AXIS_HEIGHT - 1, view.width, 1);
    const step = niceStep(view.to - view.from, plot);
    ctx.fillStyle = '#333';
    ctx.textBaseline = 'top';
    for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
        const x = Math.round(xOf(t)) + 0.5;
        ctx.fillRect(x, AXIS_HEIGHT - 8, 1, 8);
        ctx.fillText(formatAxisTs(t, step), x + 2, 4);
    }
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(0, 0, LABEL_WIDTH, AXIS_HEIGHT - 1);
    ctx.fillStyle = '#666';
    ctx.fillText('time (s)', 4, AXIS_HEIGHT / 2);
}

function drawOverlays(ctx, view, xOf) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_WIDTH, 0, view.width - LABEL_WIDTH, view.height);
    ctx.clip();
    if (view.selection) {
        const x0 = xOf(view.selection.from);
        const x1 = xOf(view.selection.to);
        ctx.fillStyle = SELECTION_FILL;
        ctx.fillRect(x0, 0, Math.max(1, x1 - x0), view.height);
        ctx.fillStyle = 'rgba(40, 110, 220, 0.8)';
        ctx.fillRect(x0, 0, 1, view.height);
        ctx.fillRect(x1, 0, 1, view.height);
    }
    if (view.cursor !== null) {
        ctx.fillStyle = CURSOR_COLOR;
        ctx.fillRect(Math.round(xOf(view.cursor)), 0, 1, view.height);
    }
    ctx.restore();
}

function triangle(ctx, x, y, size) {
    ctx.beginPath();
    ctx.moveTo(x - size, y);
    ctx.lineTo(x + size, y);
    ctx.lineTo(x, y + size * 1.4);
    ctx.closePath();
    ctx.fill();
}

function clip(ctx, text, maxWidth) {
    if (maxWidth <= 8) return '';
    if (ctx.measureText(text).width <= maxWidth) return text;
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ctx.measureText(text.slice(0, mid) + '…').width <= maxWidth)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo ? text.slice(0, lo) + '…' : '';
}
