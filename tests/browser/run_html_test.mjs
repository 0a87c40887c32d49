// `ringscope run`'s html output: the viewer's offline page with the run's result tables in a tab.
// On committed traces (full.dat with the sched analyses; kvm-agent's host + guest with kvm.exits):
// the run writes that one file; it opens from file:// with no request but the file and no console
// error; the CPU lanes draw; the Results tab shows every table, without scientific notation,
// sorted worst first; a click on a header sorts by it (DOM order checked); a click on a time opens
// the timeline there, selected, its events exactly those `report` prints.
// Usage: node run_html_test.mjs PATH/TO/ringscope [ARTIFACTS_DIR]

import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import * as t from './lib.mjs';

const {ringscope, artifacts} = t.args();
const browser = await t.launchBrowser();
const checks = new t.Checks('browser_run_html');

const RUNS = [
    {
        name: 'sched',
        inputs: [path.join(t.DATA, 'traces', 'full.dat')],
        analyses: '{sched.latency: {top: 20}, sched.runtime: {}, sched.timeline: {window: 5ms}}',
        table: 'sched.latency.tasks',  // sorted by max_ns
        worstKey: 'max_ns',
        timeTable: 'sched.latency.worst',
    },
    {
        name: 'kvm',
        inputs: [path.join(t.DATA, 'kvm-agent', 'host.dat'), path.join(t.DATA, 'kvm-agent', 'host-vm2.dat')],
        analyses: '{kvm.exits: {top: 5}, sched.runtime: {}}',
        table: 'kvm.exits.reasons',  // sorted by max_ns
        worstKey: 'max_ns',
    },
];

/** The numbers (data-v) of column KEY of the table after heading-id ID, in DOM order. */
async function columnValues(page, id, key, text = false) {
    return page.$eval(`table[data-name="${id}"]`, (table, [key, text]) => {
        const col = [...table.tHead.rows[0].cells].findIndex((th) => th.dataset.key === key);
        return [...table.tBodies[0].rows].map(
            (tr) => (text ? tr.cells[col].textContent : Number(tr.cells[col].dataset.v)));
    }, [key, text]);
}

const descending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] >= x);
const ascending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] <= x);

for (const run of RUNS) {
    const dir = path.join(artifacts, `run-html-${run.name}`);
    fs.rmSync(dir, {recursive: true, force: true});
    fs.mkdirSync(dir, {recursive: true});
    const yaml = path.join(dir, 'run.yaml');
    fs.writeFileSync(yaml, `title: ${run.name} run\ninputs: [${run.inputs.map((p) => JSON.stringify(p)).join(', ')}]\n` +
                               `analyses: ${run.analyses}\noutputs: {dir: ${JSON.stringify(path.join(dir, 'out'))}, ` +
                               `html: report.html}\n`);
    t.run(ringscope, ['run', '--quiet', yaml]);
    const written = fs.readdirSync(path.join(dir, 'out'));
    checks.ok(written.length === 1 && written[0] === 'report.html', `${run.name}: the run writes one file`,
              written.join(' '));
    const file = path.join(dir, 'out', 'report.html');
    const html = fs.readFileSync(file, 'utf8');
    checks.ok(html.includes('id="ringscope-data"') && html.includes('id="results"'),
              `${run.name}: the page (${html.length} bytes) holds the viewer's data and the results`);
    checks.ok(!/\b(src|href)=["']?(https?:|\/\/|assets\/)/.test(html), `${run.name}: it links no asset or URL`);

    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const seen = t.watch(page);
    const url = pathToFileURL(file).href;
    await page.goto(url);
    await t.waitDrawn(page);
    // The header and the title name the run (its file and title), not an offline export of files.
    const title = await page.title();
    const mode = await page.$eval('#mode', (el) => el.textContent);
    checks.ok(title === `ringscope run report: ${run.name} run` && mode === `run report: run.yaml (${run.name} run)`,
              `${run.name}: the title and header name the run report`, `${title} | ${mode}`);
    const lanes = await t.coloredPixels(page, ['cpu']);
    checks.ok(lanes.length > 0 && lanes.every((l) => l.colored > 0), `${run.name}: its ${lanes.length} CPU lanes draw`,
              JSON.stringify(lanes));
    await page.screenshot({path: path.join(artifacts, `run-html-${run.name}-timeline.png`)});

    await page.click('#page-tabs button[data-view="results"]');
    checks.ok(await page.isVisible('#results') && !(await page.isVisible('#lanes')),
              `${run.name}: the Results tab shows the tables instead of the lanes`);
    const text = await page.$eval('#results', (el) => el.innerText);
    checks.ok(!/\d[eE][+-]?\d/.test(text), `${run.name}: no scientific notation`,
              (/.{0,40}\d[eE][+-]?\d.{0,40}/.exec(text) || [''])[0]);
    checks.ok(/\d+\.\d{3} (us|ms|s)\b/.test(text), `${run.name}: durations in a unit`);

    const worst = await columnValues(page, run.table, run.worstKey);
    checks.ok(worst.length >= 3 && descending(worst), `${run.name}: ${run.table} sorted worst first`,
              worst.join(' '));
    await page.screenshot({path: path.join(artifacts, `run-html-${run.name}-results.png`)});
    await page.$eval(`table[data-name="${run.table}"]`, (el) => el.closest('section').scrollIntoView());
    await page.screenshot({path: path.join(artifacts, `run-html-${run.name}-tables.png`)});

    // A text column: a first click sorts it one way, the second the other.
    const textKey = run.name === 'sched' ? 'comm' : 'reason';
    await page.click(`table[data-name="${run.table}"] th[data-key="${textKey}"]`);
    const down = await columnValues(page, run.table, textKey, true);
    await page.click(`table[data-name="${run.table}"] th[data-key="${textKey}"]`);
    const up = await columnValues(page, run.table, textKey, true);
    const sortedUp = [...up].sort((a, b) => a.localeCompare(b));
    checks.ok(up.join('\n') === sortedUp.join('\n') && down.join('\n') === [...sortedUp].reverse().join('\n'),
              `${run.name}: a click on "${textKey}" sorts the rows by it, a second click reverses`,
              `${down.slice(0, 4)} / ${up.slice(0, 4)}`);
    await page.click(`table[data-name="${run.table}"] th[data-key="count"]`);
    const counts = await columnValues(page, run.table, 'count');
    checks.ok(counts.length === worst.length && descending(counts), `${run.name}: a click on "count" sorts largest first`,
              counts.join(' '));
    await page.click(`table[data-name="${run.table}"] th[data-key="count"]`);
    checks.ok(ascending(await columnValues(page, run.table, 'count')), `${run.name}: a second click reverses`);

    if (run.timeTable) {
        // The worst wakeup's time: the timeline selects the wakeup to its switch-in.
        const [wake, sw] = await page.$eval(`table[data-name="${run.timeTable}"] tbody tr`, (tr) =>
            [...tr.querySelectorAll('td[data-ts]')].map((td) => Number(td.dataset.ts)));
        await page.click(`table[data-name="${run.timeTable}"] tbody tr td[data-ts]`);
        checks.ok(await page.isVisible('#lanes'), `${run.name}: a click on a time shows the timeline`);
        await t.waitDrawn(page);
        const sel = await page.$eval('#selection', (el) => ({from: Number(el.dataset.from), to: Number(el.dataset.to)}));
        checks.ok(sel.from === Math.floor(wake / 1000) * 1000 && sel.to === Math.floor(sw / 1000) * 1000 + 999,
                  `${run.name}: the worst wakeup is selected, wakeup to switch-in`,
                  `${JSON.stringify(sel)} vs ${wake} ${sw}`);
        const lines = await t.panelLines(page);
        const expected = t.reportLinesIn(t.run(ringscope, ['report', ...run.inputs]), sel.from, sel.to);
        checks.ok(expected.length > 0 && t.sameLines(lines, expected),
                  `${run.name}: its events are report's ${expected.length} lines`, t.firstDifference(lines, expected));
        await page.screenshot({path: path.join(artifacts, `run-html-${run.name}-worst-wakeup.png`)});
    }
    const others = seen.requests.filter((u) => u !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
    checks.ok(others.length === 0, `${run.name}: no request but the file itself`, others.join(' | '));
    checks.ok(seen.errors.length === 0, `${run.name}: no console error`, seen.errors.join(' | '));
    await page.close();
}

await browser.close();
checks.done();
