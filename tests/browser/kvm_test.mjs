// `ringscope view` on a host + guest pair (tests/data/kvm-agent): the guest's vCPU lanes are laid
// out under the host task that runs each vCPU and draw, kvm exits are marked on the host's CPU
// lanes and on the host task's lane above each vCPU lane, and the export of the pair opens offline
// with the same lanes and marks; the guest's own tasks have their lanes, under the guest.
// Usage: node kvm_test.mjs PATH/TO/ringscope [ARTIFACTS_DIR]

import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import * as t from './lib.mjs';

// What the server does not give yet (checked, reported as GAP while it fails).
const KNOWN_GAPS = {};
const check = (key, cond, what, detail) =>
    KNOWN_GAPS[key] ? checks.gap(cond, what, KNOWN_GAPS[key]) : checks.ok(cond, what, detail);

const {ringscope, artifacts} = t.args();
const browser = await t.launchBrowser();
const checks = new t.Checks('browser_kvm');
const files = ['host.dat', 'host-vm2.dat'].map((f) => path.join(t.DATA, 'kvm-agent', f));

/** Guest rows and whether each sits under its host task; scrolls the first into view. */
async function guestLayout(page) {
    return page.evaluate(() => {
        const view = window.ringscopeView;
        const rows = view.rows;
        const guests = rows.filter((r) => r.kind === 'guest');
        const placed = guests.filter((g) => {
            const i = rows.indexOf(g);
            let j = i - 1;
            while (j >= 0 && rows[j].kind === 'guest') j--;
            return j >= 0 && rows[j].kind === 'task' && rows[j].pid === g.hostPid;
        });
        if (guests.length) view.scroller.scrollTop = Math.max(0, guests[0].y - 40);
        return {guests: guests.length, placed: placed.length, hostPids: guests.map((g) => g.hostPid)};
    });
}

/** Exit marks drawn (colored pixels just below the top edge) on LANE rows ('cpu' or 'task'). */
async function exitMarks(page, kind) {
    return page.evaluate((kind) => {
        const view = window.ringscopeView;
        const canvas = view.canvas;
        const layout = JSON.parse(canvas.dataset.layout);
        const ctx = canvas.getContext('2d');
        const scale = canvas.width / canvas.getBoundingClientRect().width;
        let marks = 0;
        let total = 0;
        for (const row of layout.filter((r) => r.kind === kind)) {
            const list = kind === 'cpu' ? view.cpu.get(row.lane)?.exits : view.taskMarks.get(row.pid);
            for (const [ts] of list || []) {
                total++;
                const x = Math.min(view.xAt(ts), view.cssWidth - 1);
                const [r, g, b] =
                    ctx.getImageData(Math.round(x * scale), Math.round((row.y + 1) * scale), 1, 1).data;
                if (Math.max(r, g, b) - Math.min(r, g, b) > 40) marks++;
            }
        }
        return {marks, total};
    }, kind);
}

async function checkTaskExits(page, label) {
    const exits = await exitMarks(page, 'task');
    checks.ok(
        exits.total > 0 && exits.marks >= 0.9 * exits.total,
        `${label}: kvm exits marked on the vCPU threads' task lanes (${exits.marks} of ${exits.total})`);
}

async function checkGuestLanes(page, label) {
    const layout = await guestLayout(page);
    checks.ok(layout.guests > 0, `${label}: ${layout.guests} guest vCPU lanes`);
    check(
        'placement',
        layout.guests > 0 && layout.placed === layout.guests,
        `${label}: each vCPU lane is under the host task running it (${layout.placed} of ${layout.guests})`,
        JSON.stringify(layout.hostPids),
    );
    await page.waitForTimeout(100);
    await t.waitDrawn(page);
    const lanes = await t.coloredPixels(page, ['guest']);
    checks.ok(
        lanes.length > 0 && lanes.some((l) => l.colored > 0),
        `${label}: guest vCPU lanes draw their slices`,
        JSON.stringify(lanes),
    );
}

/**
 * The guest's own tasks: a section "Tasks of guest" with a row per guest thread (ids from
 * FILE * 2^22 + pid), each drawing the thread states the guest's sched events give.
 */
async function checkGuestTasks(page, label) {
    const want = await page.evaluate(() => {
        const view = window.ringscopeView;
        const guestThreads = (view.meta.processes || []).filter((p) => p.file === 1).flatMap((p) => p.threads);
        const section = view.rows.find((r) => r.kind === 'section' && r.label === 'Tasks of guest');
        if (section) view.scroller.scrollTop = section.y;
        return {threads: guestThreads.map((th) => th.id), section: !!section};
    });
    checks.ok(want.section && want.threads.length > 0 && want.threads.every((id) => id >= 1 << 22),
              `${label}: a "Tasks of guest" section, ${want.threads.length} guest threads`);
    await page.waitForTimeout(100);
    await t.waitDrawn(page);
    const rows = await page.evaluate(() => window.ringscopeView.rows.filter((r) => r.kind === 'task' && r.pid >= 1 << 22)
        .map((r) => r.pid));
    checks.ok(rows.length === want.threads.length && want.threads.every((id) => rows.includes(id)),
              `${label}: a task lane per guest thread (${rows.length} of ${want.threads.length})`);
    const withStates = await page.evaluate((ids) => ids.filter((id) => window.ringscopeView.tasks.get(id)?.length > 0),
                                           want.threads);
    checks.ok(withStates.length === want.threads.length,
              `${label}: every guest thread has states (${withStates.length} of ${want.threads.length})`);
    // A thread that sleeps all but a few us is a gray (sleeping) lane at this zoom.
    const lanes = (await t.coloredPixels(page, ['task'])).filter((l) => l.lane >= 1 << 22);
    const drawn = lanes.filter((l) => l.colored > 0).length;
    checks.ok(lanes.length > 0 && drawn >= 0.8 * lanes.length,
              `${label}: guest task lanes in view draw their states (${drawn} of ${lanes.length})`, JSON.stringify(lanes));
    await page.screenshot({path: path.join(artifacts, `${label}-kvm-guest-tasks.png`)});
}

{
    const server = await t.startServer(ringscope, files);
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const seen = t.watch(page);
    await page.goto(server.url);
    await t.waitDrawn(page);
    const meta = await page.evaluate(() => window.ringscopeView.meta);
    checks.ok((meta.guests || []).length > 0, `/api/meta lists ${(meta.guests || []).length} guest(s)`);

    // An exit's mark: the pixel just below the lane's top edge, where slices do not reach.
    const exits = await exitMarks(page, 'cpu');
    check(
        'exits', exits.total > 0 && exits.marks >= 0.9 * exits.total,
        `kvm exits marked on the host's CPU lanes (${exits.marks} of ${exits.total})`);
    await page.screenshot({path: path.join(artifacts, 'view-kvm.png')});
    await checkGuestLanes(page, 'served');
    await checkTaskExits(page, 'served');
    await checkGuestTasks(page, 'served');
    await page.screenshot({path: path.join(artifacts, 'view-kvm-guests.png')});
    checks.ok(seen.errors.length === 0, 'no console error', seen.errors.join(' | '));
    checks.ok(seen.failed.length === 0, 'no failed request', seen.failed.join(' | '));
    await page.close();
    await server.stop();
}

{
    const out = path.join(artifacts, 'export-kvm.html');
    fs.rmSync(out, {force: true});
    t.run(ringscope, ['view', '--export', out, ...files]);
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    const seen = t.watch(page);
    const url = pathToFileURL(out).href;
    await page.goto(url);
    await t.waitDrawn(page);
    await checkGuestLanes(page, 'export');
    await checkTaskExits(page, 'export');
    await checkGuestTasks(page, 'export');
    await page.screenshot({path: path.join(artifacts, 'export-kvm.png')});
    const others = seen.requests.filter((u) => u !== url && !u.startsWith('data:'));
    checks.ok(others.length === 0, 'export: no request but the file itself', others.join(' | '));
    checks.ok(seen.errors.length === 0, 'export: no console error', seen.errors.join(' | '));
    await page.close();
}

await browser.close();
checks.done();
