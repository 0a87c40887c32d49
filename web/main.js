// The page: loads the trace's description, builds the timeline and the panel, and wires the
// header (range shown, cursor, selection, search) and the tooltip.

import {STATE_COLORS, STATE_NAMES} from './colors.js';
import {openDataSource} from './data.js';
import {formatCount, formatDuration, formatTs} from './format.js';
import {Panel} from './panel.js';
import {bindResults} from './results.js';
import {Timeline} from './timeline.js';

const $ = (id) => document.getElementById(id);

function showError(message) {
    const box = $('error');
    box.textContent = message;
    box.hidden = !message;
}

function showRange(from, to) {
    const el = $('range');
    el.dataset.from = String(Math.round(from));
    el.dataset.to = String(Math.round(to));
    el.textContent = `${formatTs(from)} – ${formatTs(to)} (${formatDuration(to - from)})`;
}

function showLegend() {
    const legend = $('legend');
    for (const [state, color] of Object.entries(STATE_COLORS)) {
        const item = document.createElement('span');
        item.innerHTML = `<i style="background:${color}"></i>`;
        item.append(STATE_NAMES[state]);
        legend.appendChild(item);
    }
}

function describeHover(info) {
    if (!info) return '';
    const lines = [`${info.row.label.replace(/^↳ /, '')} at ${formatTs(info.t)}`];
    if (info.slice) {
        const [s, e, pid, n] = info.slice;
        lines.push(`${info.comm || '?'}-${pid}: ${formatTs(s)} – ${formatTs(e)} (${formatDuration(e - s)})`);
        if (n > 1) lines.push(`${formatCount(n)} slices merged at this zoom; the longest task shown`);
    }
    if (info.state) {
        const [s, e, state, n] = info.state;
        lines.push(
            `${STATE_NAMES[state] || state}: ${formatTs(s)} – ${formatTs(e)} (${formatDuration(e - s)})`);
        if (n > 1) lines.push(`${formatCount(n)} states merged at this zoom`);
    }
    if (info.exit)
        lines.push(`kvm exit ${info.exit[1]}${info.exit[2] ? ` in ${info.exit[2]}` : ''} at ${
            formatTs(info.exit[0])}`);
    if (info.dropped) {
        const n = info.dropped.count;
        lines.push(
            n > 0 ? `${formatCount(n)} events dropped here` : 'events dropped here (how many is unknown)');
    }
    return lines.join('\n');
}

function bindSearch(source, timeline, panel) {
    const input = $('search');
    const list = $('search-results');
    const pick = (m) => {
        list.hidden = true;
        if (m.kind === 'task') timeline.highlight(m.id ?? m.pid);
        if (m.kind === 'filter') {
            panel.setFilter(m.label);
            if (!timeline.selection) timeline.setSelection(timeline.from, timeline.to);
        }
        if (m.first !== undefined) {
            timeline.jumpTo(m.first);
            timeline.setCursor(m.first);
        }
    };
    document.addEventListener('mousedown', (e) => {
        if (!list.contains(e.target) && e.target !== input) list.hidden = true;
    });
    input.addEventListener('keydown', async (e) => {
        if (e.key === 'Escape') {
            list.hidden = true;
            return;
        }
        if (e.key !== 'Enter') return;
        const q = input.value.trim();
        if (!q) return;
        try {
            const {matches} = await source.search(q);
            list.replaceChildren();
            for (const m of matches.slice(0, 50)) {
                const li = document.createElement('li');
                const count = m.count !== undefined ? `, ${formatCount(m.count)}` : '';
                li.textContent = `${m.kind}: ${m.label}${count} (first ${formatTs(m.first)})`;
                li.addEventListener('click', () => pick(m));
                list.appendChild(li);
            }
            if (!matches.length)
                list.append(Object.assign(document.createElement('li'), {textContent: 'no match'}));
            list.hidden = false;
            showError('');
            if (matches.length === 1) pick(matches[0]);
        } catch (err) {
            showError(err.message);
        }
    });
}

async function start() {
    const source = openDataSource();
    let meta;
    try {
        meta = await source.meta();
    } catch (err) {
        showError(`cannot load the trace: ${err.message}`);
        return;
    }
    // `ringscope run`'s html output names its run (blob.run: the run file and its title).
    const run = source.offline ? source.blob.run : undefined;
    document.title = run ? `ringscope run report: ${run.title || run.config}` :
        `ringscope view: ${(meta.files || []).map((f) => f.path).join(', ')}`;
    const files = meta.files || [];
    $('files').textContent =
        files.map((f) => f.path.split('/').pop() + (f.machine ? ` (${f.machine})` : '')).join(', ');
    $('files').title = files.map((f) => f.path).join('\n');
    if (run) {
        $('mode').textContent = `run report: ${run.config}` + (run.title ? ` (${run.title})` : '');
        $('mode').dataset.run = run.config;
    } else if (source.offline) {
        $('mode').textContent = 'offline export';
    }
    const total = (meta.events || []).reduce((n, e) => n + e.count, 0);
    const drops = meta.dropped || [];
    const dropped = drops.reduce((n, d) => n + Math.max(0, d.count), 0);
    const unknown = drops.some((d) => d.count < 0) ? ' or more' : '';
    $('counts').textContent = `${formatCount(total)} events` +
        (drops.length ? `, ${formatCount(dropped)}${unknown} dropped (red marks)` : '');
    showLegend();

    const panel = new Panel({root: $('panel'), source, onError: showError});
    const tooltip = $('tooltip');
    const timeline = new Timeline({
        scroller: $('lanes'),
        canvas: $('timeline'),
        spacer: $('spacer'),
        source,
        meta,
        on: {
            view: showRange,
            cursor: (ns) => {
                $('cursor').textContent = ns === null ? '' : `cursor ${formatTs(ns)}`;
                $('cursor').dataset.ns = ns === null ? '' : String(ns);
            },
            select: (sel) => {
                const el = $('selection');
                el.dataset.from = sel ? String(sel.from) : '';
                el.dataset.to = sel ? String(sel.to) : '';
                el.textContent = sel ? `selected ${formatTs(sel.from)} – ${formatTs(sel.to)}` : '';
                clearTimeout(panel.timer);
                panel.timer = setTimeout(() => panel.show(sel), sel ? 150 : 0);
            },
            hover: (info, x, y) => {
                const text = describeHover(info);
                tooltip.hidden = !text;
                if (!text) return;
                tooltip.textContent = text;
                tooltip.style.left = `${Math.min(x + 14, window.innerWidth - 320)}px`;
                tooltip.style.top = `${y + 14}px`;
            },
            error: showError,
        },
    });
    showRange(timeline.from, timeline.to);
    bindSearch(source, timeline, panel);
    bindResults(timeline);  // `run`'s html output: its result tables in a tab
    window.ringscopeView = timeline;  // for the console and the browser tests
}

start();
