// The page's modules without a browser: times as report prints them, durations never in
// scientific notation, and the export's data layer (level of detail merged as the server does,
// report's lines of a range from the embedded blob).
// Usage: node page_units_test.mjs [RINGSCOPE (unused)]

import {mergeSpans, openDataSource, rebucket, runningUnion, thinMarks} from '../../web/data.js';
import {formatAxisTs, formatDuration, formatTs, parseTs} from '../../web/format.js';
import {buildRows} from '../../web/rows.js';

import * as t from './lib.mjs';

const checks = new t.Checks('page_units');

// report's "%5llu.%06llu": seconds and truncated microseconds.
checks.ok(
    formatTs(440458121999) === '440.458121', 'formatTs truncates to microseconds', formatTs(440458121999));
checks.ok(formatTs(5e9) === '5.000000' && formatTs(999) === '0.000000', 'formatTs pads the microseconds');
const axis = [[1000, '259446.123456'], [1e6, '259446.123'], [1e9, '259446']].map(
    ([step, want]) => formatAxisTs(259446123456789, step) === want);
checks.ok(axis.every(Boolean), 'axis labels keep the decimals their step needs');
checks.ok(parseTs('440.458121') === 440458121000, 'parseTs reads report\'s seconds');

const durations = [
    [0, '0 ns'],
    [812, '812 ns'],
    [1250, '1.250 us'],
    [3002000, '3.002 ms'],
    [2.5e9, '2.500 s'],
    [1e21, '1000000000000.000 s'],
    [-1500, '-1.500 us'],
];
for (const [ns, want] of durations)
    checks.ok(formatDuration(ns) === want, `formatDuration(${ns}) = ${want}`, formatDuration(ns));

// Level of detail: 100k spans merged to 500 px keep every span counted once, stay sorted and
// within the range, and never exceed two entries per pixel.
let seed = 1;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const spans = [];
for (let i = 0, t0 = 0; i < 100000; i++) {
    const d = rand() < 0.01 ? 50000 : 1 + Math.floor(rand() * 200);
    spans.push([t0, t0 + d, 1 + Math.floor(rand() * 7), 1]);
    t0 += d + Math.floor(rand() * 30);
}
const end = spans[spans.length - 1][1];
const merged = mergeSpans(spans, 0, end, 500);
checks.ok(merged.length <= 1000, `100000 spans at 500 px: ${merged.length} entries (<= 2 per pixel)`);
checks.ok(merged.reduce((n, s) => n + s[3], 0) === spans.length, 'every span is counted once (sum of n)');
checks.ok(
    merged.every((s, i) => s[0] <= s[1] && (i === 0 || merged[i - 1][1] <= s[0])),
    'merged spans are sorted, disjoint');
const exact = mergeSpans(spans.slice(0, 50), 0, spans[49][1], 1e9);
checks.ok(
    JSON.stringify(exact) === JSON.stringify(spans.slice(0, 50)),
    'at sub-ns pixels every span is kept as it is');
const dominant = mergeSpans([[0, 10, 1, 1], [10, 12, 2, 1], [12, 40, 3, 1], [40, 41, 2, 1]], 0, 1000, 10);
checks.ok(
    JSON.stringify(dominant) === JSON.stringify([[0, 41, 3, 4]]),
    'a merged span takes the pid with the most time', JSON.stringify(dominant));
const clipped = mergeSpans(spans, 1000000, 2000000, 100);
checks.ok(
    clipped.length > 0 && clipped[0][1] >= 1000000 && clipped[clipped.length - 1][0] <= 2000000,
    'a range keeps only spans overlapping it');
const ticks = rebucket([[0, 1], [5, 2], [10, 3], [99, 4], [150, 9]], 0, 100, 10);
checks.ok(
    JSON.stringify(ticks) === JSON.stringify([[0, 3], [10, 3], [90, 4]]), 'ticks re-bucketed to the width',
    JSON.stringify(ticks));
// Marks (kvm exits): one per pixel, the first, counting the ones it stands for.
const marks = thinMarks([[0, 'A', 'f', 1], [3, 'B', '', 2], [12, 'A', '', 1], [200, 'C', '', 1]], 0, 99, 10);
checks.ok(
    JSON.stringify(marks) === JSON.stringify([[0, 'A', 'f', 3], [12, 'A', '', 1]]),
    'marks thinned to one per pixel, counts kept', JSON.stringify(marks));

// The export's blob: lines of [from, to] by their ns, as the server's /api/events answers.
const blob = {
    meta: {start: 100, end: 900, events: [{name: 'sched:sched_switch', count: 4}], processes: []},
    cpus: {lanes: [{lane: '0:0', slices: [[100, 200, 5, 1], [300, 900, 6, 1]], ticks: [[100, 2]]}]},
    tasks:
        {lanes: [{pid: 5, comm: 'a', states: [[100, 200, 'R', 1], [200, 250, 'W', 1], [250, 400, 'R', 1]]}]},
    events: ['l100', 'l200', 'l200b', 'l700'],
    lines_ts: [100, 200, 200, 700],
};
const doc = {
    getElementById: (id) => (id === 'ringscope-data' ? {textContent: JSON.stringify(blob)} : null)
};
const source = openDataSource(doc);
const ev = await source.events(200, 699);
checks.ok(
    source.offline && JSON.stringify(ev.lines) === '["l200","l200b"]' && ev.total === 2,
    'events(from, to) from the blob, both ends inclusive', JSON.stringify(ev));
const stats = await source.stats(0, 1000);
checks.ok(
    stats.tasks[0].run === 250 && stats.tasks[0].wait === 50 && stats.tasks[0].wakeup_max === 50,
    'stats from the blob\'s thread states', JSON.stringify(stats));
let refused = false;
try {
    await source.events(0, 1000, {filter: 'pid==1'});
} catch {
    refused = true;
}
checks.ok(refused, 'a -F filter offline says it needs the server');

// A process header's lane offline: the union of its threads' running, the most at once, spans in it.
{
    const u = runningUnion([[100, 200, 'R', 1], [150, 300, 'R', 1], [300, 350, 'R', 1], [400, 500, 'R', 1]]);
    checks.ok(JSON.stringify(u) === '[[100,350,2,3],[400,500,1,1]]',
              'runningUnion: overlapping and touching spans join, the most running at once kept', JSON.stringify(u));
}

// Rows: machines apart, one row for a one-thread process, a vCPU lane under its host thread.
const meta = {
    files: [{path: 'h.dat', machine: 'host'}, {path: 'g.dat', machine: 'vm2'}],
    cpus: [
        {lane: '0:0', file: 0, cpu: 0, label: 'CPU 0'}, {lane: '1:0', file: 1, cpu: 0, label: 'vCPU 0'},
        {lane: '1:1', file: 1, cpu: 1, label: 'vCPU 1'}
    ],
    processes: [
        {
            tgid: 150,
            comm: 'qemu',
            file: 0,
            threads: [{pid: 150, comm: 'qemu'}, {pid: 159, comm: 'CPU 0/KVM'}]
        },
        {tgid: 7, comm: 'sh', file: 1, threads: [{pid: 7, comm: 'sh'}]},
        {tgid: 15, comm: 'rcu', file: 0, threads: [{pid: 15, comm: 'rcu'}]},
    ],
    guests: [{file: 1, host_pid_of_vcpu: {'0': 159}}],
};
const shape = (rows) => rows.map((r) => `${r.kind}:${r.pid ?? r.lane ?? r.tgid ?? r.label}`).join(' ');
const open = buildRows(meta, new Set());
const want = 'section:CPUs cpu:0:0 section:Tasks of host process:150 task:150 task:159 guest:1:0 task:15 ' +
    'section:Tasks of vm2 task:7 section:Guest vCPUs guest:1:1';
checks.ok(
    shape(open.rows) === want, 'rows: machines apart, vCPU 0 under its host thread, vCPU 1 unplaced',
    shape(open.rows));
checks.ok(
    open.rows.every((r, i) => i === 0 || r.y === open.rows[i - 1].y + open.rows[i - 1].h), 'rows: stacked');
const shut = buildRows(meta, new Set([150, 15]));
checks.ok(
    !shape(shut.rows).includes('task:159') && shape(shut.rows).includes('task:15 '),
    'rows: a collapsed process hides its threads; a one-thread process does not collapse', shape(shut.rows));

checks.done();
