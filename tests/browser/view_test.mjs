// `ringscope view` in Debian's chromium: on every committed trace the page loads with no console
// error and no failed request and its CPU lanes draw; on basic.dat, wheel / W / A / drag change
// the range shown and the page asks only for that range at its pixel width, and a selected range
// lists exactly the lines `ringscope report` prints for it; threads are grouped under their process.
// Usage: node view_test.mjs PATH/TO/ringscope [ARTIFACTS_DIR]

import fs from 'node:fs';
import path from 'node:path';

import * as t from './lib.mjs';

// Traces where the server does not yet give what the page needs (checked, reported as GAP).
const KNOWN_GAPS = {};

const {ringscope, artifacts} = t.args();
const browser = await t.launchBrowser();
const checks = new t.Checks('browser_view');

async function openView(files, viewport = {
    width: 1400,
    height: 900
}) {
    const server = await t.startServer(ringscope, files);
    const page = await browser.newPage({viewport});
    const seen = t.watch(page);
    await page.goto(server.url);
    await t.waitDrawn(page);
    return {server, page, seen};
}

// Every committed trace: loads clean, every CPU lane with a running task draws colored slices.
const traces = fs.readdirSync(path.join(t.DATA, 'traces')).filter((f) => f.endsWith('.dat')).sort();
for (const name of traces) {
    const file = path.join(t.DATA, 'traces', name);
    const {server, page, seen} = await openView([file]);
    const lanes = await t.coloredPixels(page, ['cpu']);
    const cpusAnswer = await page.evaluate(() => [...window.ringscopeView.cpu.values()]);
    const busy = new Set(cpusAnswer.filter((l) => l.slices?.length).map((l) => l.lane));
    const drawn = lanes.filter((l) => busy.has(l.lane) && l.colored > 0).map((l) => l.lane);
    checks.ok(lanes.length > 0, `${name}: CPU lanes laid out (${lanes.length})`);
    // Dropped events: a red mark in its lane at each place in the range shown.
    const drops = await page.evaluate(() => {
        const view = window.ringscopeView;
        const canvas = view.canvas;
        const ctx = canvas.getContext('2d');
        const scale = canvas.width / canvas.getBoundingClientRect().width;
        const rows = JSON.parse(canvas.dataset.layout);
        let marked = 0;
        let shown = 0;
        for (const d of view.meta.dropped || []) {
            const row = rows.find((r) => r.lane === d.lane);
            if (!row || d.ts < view.from || d.ts > view.to) continue;
            shown++;
            const x = Math.round(Math.min(view.xAt(d.ts), view.cssWidth - 1) * scale);
            const [r, g, b] = ctx.getImageData(x, Math.round((row.y + row.h / 2) * scale), 1, 1).data;
            if (r > 150 && g < 60 && b < 60) marked++;
        }
        return {marked, shown, total: (view.meta.dropped || []).length};
    });
    if (drops.total) {
        checks.ok(
            drops.shown > 0 && drops.marked === drops.shown,
            `${name}: ${drops.marked} of ${drops.shown} places of dropped events marked in red`);
    }
    if (name === 'dropped.dat') checks.ok(drops.total > 0, `${name}: /api/meta lists ${drops.total} drops`);
    const switches = await page.evaluate(async () => {
        const meta = await (await fetch('api/meta')).json();
        return meta.events.filter((e) => /sched_switch$/.test(e.name)).reduce((n, e) => n + e.count, 0);
    });
    checks.ok(
        drawn.length === busy.size,
        `${name}: every CPU lane with slices draws them (${drawn.length} of ${busy.size})`,
        JSON.stringify(lanes),
    );
    const slicesShown = `${name}: its ${switches} sched_switch events give CPU slices (${busy.size} lanes)`;
    if (KNOWN_GAPS[name])
        checks.gap(switches === 0 || busy.size > 0, slicesShown, KNOWN_GAPS[name]);
    else
        checks.ok(switches === 0 || busy.size > 0, slicesShown);
    if (name === 'instances.dat') {
        // Its sched_switch events are in instance ringscope_a: lanes of their own, and those draw.
        const labels = await page.evaluate(
            () => window.ringscopeView.rows.filter((r) => r.kind === 'cpu').map((r) => r.label));
        checks.ok(
            labels.includes('CPU 1') && labels.includes('ringscope_a/CPU 1') && labels.includes('ringscope_b/CPU 1'),
            `${name}: each instance's CPUs have lanes (${labels.join(', ')})`);
        checks.ok(
            drawn.length > 0 && drawn.every((l) => l.startsWith('0/ringscope_a:')),
            `${name}: ringscope_a's lanes draw its slices (${drawn.join(', ')})`);
    }
    await page.screenshot({path: path.join(artifacts, `view-${name.replace(/\.dat$/, '')}.png`)});
    checks.ok(seen.errors.length === 0, `${name}: no console error`, seen.errors.join(' | '));
    checks.ok(seen.failed.length === 0, `${name}: no failed request`, seen.failed.join(' | '));
    // The page's assets are in the binary: every request goes to the server itself.
    const elsewhere = seen.requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:'));
    checks.ok(elsewhere.length === 0, `${name}: nothing fetched but from the server`, elsewhere.join(' | '));
    await page.close();
    await server.stop();
}

// Threads grouped by process, on tests/data/view/threads.dat (each task of its workload wrote its
// tid and tgid to trace_marker): a header per process of several threads with exactly that
// process's thread lanes under it, drawn; a click on the header collapses them (the header then
// draws their running union) and expands them again.
{
    const threads = path.join(t.DATA, 'view', 'threads.dat');
    const groups = new Map();  // tgid -> tids, as the tasks wrote them
    for (const m of t.run(ringscope, ['report', threads]).matchAll(/tgid-check tid=(\d+) tgid=(\d+)/g))
        groups.set(Number(m[2]), [...(groups.get(Number(m[2])) || []), Number(m[1])]);
    const {server, page, seen} = await openView([threads], {width: 1400, height: 1400});
    const rowsNow = () => page.evaluate(
        () => window.ringscopeView.rows.map((r) => ({kind: r.kind, tgid: r.tgid, pid: r.pid, single: r.single,
                                                     label: r.label})));
    // The task rows under each process header (a single-thread process's row has none).
    const underHeaders = (rows) => {
        const under = new Map();
        let current = null;
        for (const r of rows) {
            if (r.kind === 'process') under.set((current = r.tgid), []);
            else if (r.kind !== 'task' || r.single) current = null;
            else if (current !== null) under.get(current).push(r.pid);
        }
        return under;
    };
    const sorted = (a) => [...a].sort((x, y) => x - y).join(',');
    const under = underHeaders(await rowsNow());
    const multi = [...groups].filter(([, tids]) => tids.length > 1);
    checks.ok(multi.length >= 3, `threads.dat: ${multi.length} processes of several threads in its trace_marker lines`);
    for (const [tgid, tids] of multi) {
        checks.ok(
            sorted(under.get(tgid) || []) === sorted(tids),
            `threads.dat: process ${tgid}'s header has its ${tids.length} threads under it`,
            `${sorted(under.get(tgid) || [])} vs ${sorted(tids)}`);
    }
    const layout = JSON.parse(await page.$eval('#timeline', (c) => c.dataset.layout));
    const mine = new Set([...groups.values()].flat());
    const drawn = (await t.coloredPixels(page, ['task'])).filter((l) => mine.has(l.lane));
    checks.ok(
        drawn.length === mine.size && drawn.every((l) => l.colored > 0),
        `threads.dat: the workload's ${mine.size} task lanes draw (${drawn.filter((l) => l.colored).length})`,
        JSON.stringify(drawn));
    await page.screenshot({path: path.join(artifacts, 'view-threads.png')});

    const [tgid, tids] = multi.sort((a, b) => b[1].length - a[1].length)[0];
    const header = layout.find((r) => r.kind === 'process' && r.tgid === tgid);
    const canvas = await page.locator('#timeline').boundingBox();
    const click = () => page.mouse.click(canvas.x + 20, canvas.y + header.y + header.h / 2);
    await click();
    let rows = await rowsNow();
    const collapsed = rows.find((r) => r.kind === 'process' && r.tgid === tgid);
    checks.ok(
        collapsed?.label.startsWith('▸') && !rows.some((r) => r.kind === 'task' && tids.includes(r.pid)),
        `threads.dat: a click on process ${tgid}'s header hides its ${tids.length} thread lanes`,
        collapsed?.label);
    // The collapsed header summarises its threads: their count in its label, and the union of
    // their running (/api/processes) drawn on its lane, where each of their switch-ins is.
    await page.waitForTimeout(150);
    await t.waitDrawn(page);
    const summary = await page.evaluate((tgid) => {
        const view = window.ringscopeView;
        const row = JSON.parse(view.canvas.dataset.layout).find((r) => r.kind === 'process' && r.tgid === tgid);
        const ctx = view.canvas.getContext('2d');
        const scale = view.canvas.width / view.canvas.getBoundingClientRect().width;
        const y = Math.round((row.y + row.h / 2) * scale);
        const coloredAt = (x) => {
            const [r, g, b] = ctx.getImageData(Math.round(x * scale), y, 1, 1).data;
            return Math.max(r, g, b) - Math.min(r, g, b) > 40;
        };
        const spans = view.procs.get(tgid) || [];
        return {spans: spans.length, from: view.from, to: view.to,
                inside: spans.filter(([s, e]) => coloredAt((view.xAt(s) + view.xAt(e)) / 2)).length};
    }, tgid);
    checks.ok(collapsed?.label.endsWith(`(${tids.length})`) && summary.spans > 0 && summary.inside === summary.spans,
              `threads.dat: the collapsed header of ${tgid} draws its threads' ${summary.spans} running spans`,
              JSON.stringify(summary));
    const switchIns = [...t.run(ringscope, ['report', '-t', threads]).matchAll(/ (\d+)\.(\d{9}): sched_switch:.* ==> .*:(\d+) \[/g)]
        .filter((m) => tids.includes(Number(m[3]))).map((m) => Number(m[1]) * 1e9 + Number(m[2]));
    const hit = await page.evaluate(([tgid, times]) => {
        const view = window.ringscopeView;
        const row = JSON.parse(view.canvas.dataset.layout).find((r) => r.kind === 'process' && r.tgid === tgid);
        const ctx = view.canvas.getContext('2d');
        const scale = view.canvas.width / view.canvas.getBoundingClientRect().width;
        const y = Math.round((row.y + row.h / 2) * scale);
        // A switch-in's pixel or the one after it (a span starts at its pixel's first running time).
        return times.filter((ts) => [0, 1].some((dx) => {
            const [r, g, b] = ctx.getImageData(Math.round((view.xAt(ts) + dx) * scale), y, 1, 1).data;
            return Math.max(r, g, b) - Math.min(r, g, b) > 40;
        })).length;
    }, [tgid, switchIns]);
    checks.ok(switchIns.length > 0 && hit === switchIns.length,
              `threads.dat: every switch-in of its threads (report) is on the header's colored lane (${hit} of ${switchIns.length})`);
    await page.screenshot({path: path.join(artifacts, 'view-threads-collapsed.png')});
    await click();
    rows = await rowsNow();
    checks.ok(
        sorted(underHeaders(rows).get(tgid) || []) === sorted(tids),
        `threads.dat: a second click shows them again`);
    checks.ok(
        seen.errors.length === 0 && seen.failed.length === 0, 'threads.dat: no console error, no failed request',
        [...seen.errors, ...seen.failed].join(' | '));
    await page.close();
    await server.stop();
}

// Zoom, pan and the requests they make, on basic.dat.
const basic = path.join(t.DATA, 'traces', 'basic.dat');
{
    const {server, page, seen} = await openView([basic]);
    const canvas = await page.locator('#timeline').boundingBox();
    const labelWidth = Number(await page.$eval('#timeline', (c) => c.dataset.labelWidth));
    const plotWidth = Math.round(canvas.width - labelWidth);
    const full = await t.shownRange(page);

    const cpuRequests = [];
    page.on('request', (r) => {
        if (r.url().includes('/api/cpus')) cpuRequests.push(new URL(r.url()).searchParams);
    });

    await page.mouse.move(canvas.x + labelWidth + plotWidth / 2, canvas.y + 60);
    await page.mouse.wheel(0, -400);
    await t.waitDrawn(page);
    const wheeled = await t.shownRange(page);
    checks.ok(
        wheeled.to - wheeled.from < full.to - full.from && wheeled.from >= full.from && wheeled.to <= full.to,
        `wheel zooms in: ${full.to - full.from} ns -> ${wheeled.to - wheeled.from} ns shown`,
    );
    await page.keyboard.press('w');
    await t.waitDrawn(page);
    const keyed = await t.shownRange(page);
    checks.ok(
        keyed.to - keyed.from < wheeled.to - wheeled.from,
        `W zooms in: ${wheeled.to - wheeled.from} ns -> ${keyed.to - keyed.from} ns`,
    );
    await page.keyboard.press('a');
    await t.waitDrawn(page);
    const panned = await t.shownRange(page);
    checks.ok(
        panned.from < keyed.from && Math.abs(panned.to - panned.from - (keyed.to - keyed.from)) <= 1,
        `A pans left keeping the span: from ${keyed.from} -> ${panned.from}`,
    );
    await page.mouse.move(canvas.x + labelWidth + 300, canvas.y + 60);
    await page.mouse.down();
    await page.mouse.move(canvas.x + labelWidth + 100, canvas.y + 60, {steps: 5});
    await page.mouse.up();
    await t.waitDrawn(page);
    const dragged = await t.shownRange(page);
    checks.ok(dragged.from > panned.from, `dragging left pans right: from ${panned.from} -> ${dragged.from}`);

    const last = cpuRequests[cpuRequests.length - 1];
    checks.ok(
        last && Number(last.get('from')) === dragged.from && Number(last.get('to')) === dragged.to,
        'the last /api/cpus request asks for exactly the range shown',
        last ? last.toString() : 'no request',
    );
    checks.ok(
        cpuRequests.every((q) => Number(q.get('width')) === plotWidth),
        `every /api/cpus request is at the plot's pixel width (${plotWidth})`,
        cpuRequests.map((q) => q.get('width')).join(','),
    );
    checks.ok(
        cpuRequests.length <= 12,
        `debounced: ${cpuRequests.length} /api/cpus requests for 4 zoom / pan gestures`,
    );
    await page.screenshot({path: path.join(artifacts, 'view-basic-zoomed.png')});
    checks.ok(
        seen.errors.length === 0 && seen.failed.length === 0,
        'zoom / pan: no console error, no failed request', [...seen.errors, ...seen.failed].join(' | '));
    await page.close();
    await server.stop();
}

// The lines of a range with dropped events: report's "CPU:N [K EVENTS DROPPED]" among them.
{
    const dropped = path.join(t.DATA, 'traces', 'dropped.dat');
    const report = t.run(ringscope, ['report', dropped]);
    const {server, page} = await openView([dropped]);
    const {lines, expected} = await t.selectAndRead(page, report, 0.2, 0.6);
    const drops = expected.filter((l) => /EVENTS DROPPED/.test(l)).length;
    checks.ok(
        drops > 0 && t.sameLines(lines, expected),
        `dropped.dat: a selection lists exactly report's ${expected.length} lines, ${drops} of them drops`,
        t.firstDifference(lines, expected));
    await page.close();
    await server.stop();
}

// A selected range lists exactly report's lines for it; the task table is readable.
{
    const report = t.run(ringscope, ['report', basic]);
    const {server, page, seen} = await openView([basic]);
    const canvas = await page.locator('#timeline').boundingBox();
    const labelWidth = Number(await page.$eval('#timeline', (c) => c.dataset.labelWidth));
    const plot = canvas.width - labelWidth;

    const selections = [
        [
            'shift-drag on the lanes',
            () => t.shiftDrag(page, labelWidth + plot * 0.3, labelWidth + plot * 0.45, 70)
        ],
        [
            'drag on the axis',
            async () => {
                await page.mouse.move(canvas.x + labelWidth + plot * 0.02, canvas.y + 10);
                await page.mouse.down();
                await page.mouse.move(canvas.x + labelWidth + plot * 0.2, canvas.y + 10, {steps: 6});
                await page.mouse.up();
            },
        ],
    ];
    for (const [how, select] of selections) {
        await select();
        const sel = await page.$eval(
            '#selection', (el) => ({from: Number(el.dataset.from), to: Number(el.dataset.to)}));
        const lines = await t.panelLines(page);
        const expected = t.reportLinesIn(report, sel.from, sel.to);
        checks.ok(expected.length >= 10, `${how}: report prints ${expected.length} lines in the selection`);
        checks.ok(
            t.sameLines(lines, expected),
            `${how}: the panel lists exactly report's ${expected.length} lines for ${sel.from}..${sel.to}`,
            t.firstDifference(lines, expected),
        );
        await page.screenshot({
            path:
                path.join(artifacts, `view-basic-selection-${selections.findIndex((s) => s[0] === how)}.png`)
        });
    }

    await page.click('[data-tab="tasks"]');
    const table = await page.$$eval(
        '#task-table tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    const runs = table.slice(1).map((r) => r[2]);
    checks.ok(table.length > 2, `the task table lists ${table.length - 1} tasks`);
    checks.ok(
        runs.every((v) => /^\d+(\.\d{3})? (ns|us|ms|s)$/.test(v)),
        'run times have a unit per value, no scientific notation',
        runs.join(', '),
    );
    const toNs = (v) => {
        const [n, unit] = v.split(' ');
        return Number(n) * {ns: 1, us: 1e3, ms: 1e6, s: 1e9}[unit];
    };
    checks.ok(
        runs.every((v, i) => i === 0 || toNs(runs[i - 1]) >= toNs(v)),
        'the task table is sorted by run time, worst first',
    );
    await page.click('#task-table th[data-key="wait"]');
    const waits =
        await page.$$eval('#task-table tr td:nth-child(4)', (tds) => tds.map((td) => td.textContent));
    checks.ok(
        waits.every((v, i) => i === 0 || toNs(waits[i - 1]) >= toNs(v)),
        'a click on a column sorts by it, worst first',
        waits.join(', '),
    );
    await page.screenshot({path: path.join(artifacts, 'view-basic-tasks.png')});

    // Search: a pid highlights its task lane.
    const pid = Number(/-(\d+)\s+\[/.exec(report.split('\n').find((l) => /sched_switch/.test(l)))[1]);
    await page.fill('#search', String(pid));
    await page.press('#search', 'Enter');
    await page.waitForFunction((pid) => window.ringscopeView.highlightPid === pid, pid, {timeout: 10000});
    checks.ok(true, `search for pid ${pid} highlights its lane`);

    // Search: an event name puts the cursor on its first event.
    const firstSwitch = report.split('\n').find((l) => / sched_switch: /.test(l));
    const [, sec, usec] = /\s(\d+)\.(\d{6}):\s/.exec(firstSwitch);
    const before = await page.$eval('#cursor', (el) => el.dataset.ns);
    await page.fill('#search', 'sched_switch');
    await page.press('#search', 'Enter');
    await page.waitForFunction(
        (before) => document.getElementById('cursor').dataset.ns !== before, before, {timeout: 10000});
    const cursor = Number(await page.$eval('#cursor', (el) => el.dataset.ns));
    checks.ok(
        Math.floor(cursor / 1000) === Number(sec) * 1e6 + Number(usec),
        `search for sched_switch puts the cursor on its first event (${sec}.${usec})`, String(cursor));

    // Search: a -F filter selects the range shown and lists report -F's lines in it.
    const filter = `sched_switch:next_pid==${pid}`;
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('Escape');
    await page.keyboard.press('0');
    await page.fill('#search', filter);
    await page.press('#search', 'Enter');
    const filtered = await t.panelLines(page);
    const sel =
        await page.$eval('#selection', (el) => ({from: Number(el.dataset.from), to: Number(el.dataset.to)}));
    const wanted = t.reportLinesIn(t.run(ringscope, ['report', '-F', filter, basic]), sel.from, sel.to);
    checks.ok(
        wanted.length >= 2 && t.sameLines(filtered, wanted),
        `search for ${filter} lists report -F's ${wanted.length} lines of the range`,
        t.firstDifference(filtered, wanted));
    await page.screenshot({path: path.join(artifacts, 'view-basic-filter.png')});
    checks.ok(
        seen.errors.length === 0 && seen.failed.length === 0,
        'selection / search: no console error, no failed request',
        [...seen.errors, ...seen.failed].join(' | '));
    await page.close();
    await server.stop();
}

await browser.close();
checks.done();
