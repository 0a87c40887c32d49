// `ringscope view --export OUT.html`: the file opens from file:// with no request at all but
// the file itself, no console error, draws its CPU lanes, answers zoom from the embedded data, and
// a selected range lists exactly the lines `ringscope report` prints for it.
// Usage: node export_test.mjs PATH/TO/ringscope [ARTIFACTS_DIR]

import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import * as t from './lib.mjs';

const {ringscope, artifacts} = t.args();
const browser = await t.launchBrowser();
const checks = new t.Checks('browser_export');

for (const name of ['basic.dat', 'dropped.dat']) {
    const input = path.join(t.DATA, 'traces', name);
    const stem = name.replace(/\.dat$/, '');
    const out = path.join(artifacts, `export-${stem}.html`);
    fs.rmSync(out, {force: true});
    t.run(ringscope, ['view', '--export', out, input]);
    const html = fs.readFileSync(out, 'utf8');
    checks.ok(
        html.includes('id="ringscope-data"'),
        `${name}: the export (${html.length} bytes) holds the data blob`);
    checks.ok(
        !/\b(src|href)=["']?(https?:|\/\/|assets\/)/.test(html), `${name}: the export links no asset or URL`);

    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const seen = t.watch(page);
    const url = pathToFileURL(out).href;
    await page.goto(url);
    await t.waitDrawn(page);
    const others = seen.requests.filter((u) => u !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
    checks.ok(others.length === 0, `${name}: no request but the file itself`, others.join(' | '));
    checks.ok(
        await page.evaluate(() => window.ringscopeView.source.offline === true),
        `${name}: the page answers from the embedded data`,
    );
    const lanes = await t.coloredPixels(page, ['cpu']);
    checks.ok(
        lanes.length > 0 && lanes.every((l) => l.colored > 0),
        `${name}: its ${lanes.length} CPU lanes draw`,
        JSON.stringify(lanes),
    );
    await page.screenshot({path: path.join(artifacts, `export-${stem}.png`)});

    const before = await t.shownRange(page);
    await page.keyboard.press('w');
    await page.keyboard.press('w');
    await t.waitDrawn(page);
    const after = await t.shownRange(page);
    checks.ok(after.to - after.from < before.to - before.from, `${name}: W zooms from the embedded data`);

    const report = t.run(ringscope, ['report', input]);
    const {lines, expected} = await t.selectAndRead(page, report, 0.2, 0.6);
    checks.ok(
        expected.length > 0 && t.sameLines(lines, expected),
        `${name}: a selection lists exactly report's ${expected.length} lines`,
        t.firstDifference(lines, expected),
    );
    await page.screenshot({path: path.join(artifacts, `export-${stem}-selection.png`)});
    const late = seen.requests.filter((u) => u !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
    checks.ok(late.length === 0, `${name}: still no request after zoom and selection`, late.join(' | '));
    checks.ok(seen.errors.length === 0, `${name}: no console error`, seen.errors.join(' | '));
    await page.close();
}

await browser.close();
checks.done();
