// `ringscope view` on every trace of ../shared/conformance/external-traces (other machines,
// kernels, architectures, clocks): the page loads with no console error and no failed request, and
// every CPU lane with slices draws them. Skips (77) where that folder is absent.
// Usage: node external_test.mjs PATH/TO/ringscope [ARTIFACTS_DIR]

import fs from 'node:fs';
import path from 'node:path';

import * as t from './lib.mjs';

const dir = path.resolve(t.HERE, '../../../shared/conformance/external-traces');
const {ringscope, artifacts} = t.args();
if (!fs.existsSync(dir)) {
    console.log(`SKIP: ${dir} is absent (the shared material beside the checkout)`);
    process.exit(t.SKIP);
}
const browser = await t.launchBrowser();
const checks = new t.Checks('browser_external');

for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.dat')).sort()) {
    const server = await t.startServer(ringscope, [path.join(dir, name)]);
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const seen = t.watch(page);
    await page.goto(server.url);
    await t.waitDrawn(page);
    const lanes = await t.coloredPixels(page, ['cpu']);
    const busy = await page.evaluate(
        () => [...window.ringscopeView.cpu.values()].filter((l) => l.slices?.length).map((l) => l.lane));
    const drawn = lanes.filter((l) => busy.includes(l.lane) && l.colored > 0);
    checks.ok(
        drawn.length === busy.length,
        `${name}: ${drawn.length} of ${busy.length} CPU lanes with slices draw them`, JSON.stringify(lanes));
    checks.ok(
        seen.errors.length === 0 && seen.failed.length === 0, `${name}: no console error, no failed request`,
        [...seen.errors, ...seen.failed].join(' | '));
    await page.screenshot({path: path.join(artifacts, `external-${name.replace(/\.dat$/, '')}.png`)});
    await page.close();
    await server.stop();
}

await browser.close();
checks.done();
