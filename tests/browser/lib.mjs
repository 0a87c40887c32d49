// What the browser tests share: starting `ringscope view`, Debian's chromium through
// playwright-core (skipping, exit 77, only where it cannot start or the node modules are missing),
// watching a page for console errors and failed requests, reading the canvas, and checks that
// count as they go.

import {execFileSync, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

export const SKIP = 77;
export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DATA = path.resolve(HERE, '../data');

/** argv: RINGSCOPE [ARTIFACTS_DIR]. */
export function args() {
    const ringscope = process.argv[2];
    if (!ringscope || !fs.existsSync(ringscope)) {
        console.error(`usage: node ${path.basename(process.argv[1])} PATH/TO/ringscope [ARTIFACTS_DIR]`);
        process.exit(2);
    }
    const artifacts = process.argv[3] || path.join(path.dirname(ringscope), 'tests', 'browser-artifacts');
    fs.mkdirSync(artifacts, {recursive: true});
    return {ringscope: path.resolve(ringscope), artifacts};
}

function skip(message) {
    console.log(`SKIP: ${message}`);
    process.exit(SKIP);
}

/** Debian's chromium, headless; skips where playwright-core or chromium is missing or cannot start. */
export async function launchBrowser() {
    let chromium;
    try {
        ({chromium} = await import('playwright-core'));
    } catch (err) {
        skip(`playwright-core is not installed (run \`npm ci\` in tests/browser; scripts/setup.sh does): ${
            err.message}`);
    }
    const candidates = [process.env.RINGSCOPE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
    const executablePath = candidates.find((p) => p && fs.existsSync(p));
    if (!executablePath) skip('no chromium (apt-get install chromium, or set RINGSCOPE_CHROMIUM)');
    try {
        return await chromium.launch({executablePath, args: ['--no-sandbox', '--disable-gpu']});
    } catch (err) {
        skip(`chromium (${executablePath}) does not start: ${err.message.split('\n')[0]}`);
    }
}

/** Starts `ringscope view --port 0 FILES...`; resolves with { url, stop() } once it serves. */
export function startServer(ringscope, files, extra = []) {
    const child =
        spawn(ringscope, ['view', '--port', '0', ...extra, ...files], {stdio: ['ignore', 'pipe', 'pipe']});
    let out = '';
    let err = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            child.kill('SIGTERM');
            reject(new Error(`ringscope view did not print its URL in 30 s; stderr: ${err}`));
        }, 30000);
        child.stderr.on('data', (d) => (err += d));
        child.stdout.on('data', (d) => {
            out += d;
            const m = /serving (http:\/\/[^\s]+)/.exec(out);
            if (!m) return;
            clearTimeout(timer);
            resolve({
                url: m[1].endsWith('/') ? m[1] : `${m[1]}/`,
                stop: () => new Promise((done) => {
                    child.once('exit', done);
                    child.kill('SIGTERM');
                }),
            });
        });
        child.on('exit', (code) => {
            clearTimeout(timer);
            reject(new Error(`ringscope view exited (${code}) before serving: ${err.trim()}`));
        });
    });
}

/** `ringscope ARGS...`'s stdout. */
export function run(ringscope, args) {
    return execFileSync(ringscope, args, {maxBuffer: 1 << 30}).toString();
}

/** Records the page's console errors, uncaught exceptions, failed requests and every request. */
export function watch(page) {
    const seen = {errors: [], failed: [], requests: []};
    page.on('console', (m) => {
        if (m.type() === 'error') seen.errors.push(m.text());
    });
    page.on('pageerror', (e) => seen.errors.push(`uncaught: ${e.message}`));
    page.on('request', (r) => seen.requests.push(r.url()));
    page.on('requestfailed', (r) => seen.failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => {
        if (r.status() >= 400) seen.failed.push(`${r.url()}: HTTP ${r.status()}`);
    });
    return seen;
}

/** The range shown (ns), from the page's header. */
export async function shownRange(page) {
    return page.$eval('#range', (el) => ({from: Number(el.dataset.from), to: Number(el.dataset.to)}));
}

/** Waits until the canvas has drawn the data of the range shown. */
export async function waitDrawn(page) {
    await page.waitForFunction(
        () => {
            const r = document.getElementById('range');
            const c = document.getElementById('timeline');
            return r.dataset.from && c.dataset.drawn === `${r.dataset.from}-${r.dataset.to}`;
        },
        null,
        {timeout: 15000},
    );
}

/**
 * Per lane of the given kinds: how many pixels of the lane's rows are colored (r, g, b not all
 * close: lane backgrounds, labels and ticks are gray), sampled across the plot.
 */
export async function coloredPixels(page, kinds) {
    return page.evaluate((kinds) => {
        const canvas = document.getElementById('timeline');
        const layout = JSON.parse(canvas.dataset.layout);
        const labelWidth = Number(canvas.dataset.labelWidth);
        const scale = canvas.width / canvas.getBoundingClientRect().width;
        const ctx = canvas.getContext('2d');
        const out = [];
        for (const row of layout) {
            if (!kinds.includes(row.kind)) continue;
            const x0 = Math.ceil(labelWidth * scale);
            const y0 = Math.round(row.y * scale);
            const h = Math.max(1, Math.round(row.h * scale));
            const {data} = ctx.getImageData(x0, y0, canvas.width - x0, h);
            let colored = 0;
            for (let i = 0; i < data.length; i += 4) {
                const r = data[i];
                const g = data[i + 1];
                const b = data[i + 2];
                if (Math.max(r, g, b) - Math.min(r, g, b) > 40) colored++;
            }
            out.push({lane: row.lane ?? row.pid, kind: row.kind, colored});
        }
        return out;
    }, kinds);
}

/**
 * report's lines of the events whose printed timestamp (whole microseconds) is within [fromNs, toNs].
 * A line without a timestamp goes with an event: "CPU:N [K EVENTS DROPPED]" with the event after it
 * (report prints it before the first event past the loss), any other (a stack's "=> func") with the
 * event before it; the lines before the first event (report's header, "cpus=2") with none.
 */
export function reportLinesIn(reportText, fromNs, toNs) {
    const lo = Math.floor(fromNs / 1000);
    const hi = Math.floor(toNs / 1000);
    const out = [];
    let pending = [];
    let inside = null;  // whether the last event was in the range; null before the first event
    for (const line of reportText.split('\n')) {
        const m = /\s(\d+)\.(\d{6}):\s/.exec(line);
        if (m) {
            const us = Number(m[1]) * 1e6 + Number(m[2]);
            inside = us >= lo && us <= hi;
            if (inside) out.push(...pending, line);
            pending = [];
        } else if (/^CPU:\d+ \[\d+ EVENTS DROPPED\]$/.test(line)) {
            pending.push(line);
        } else if (inside && line) {
            out.push(line);
        }
    }
    return out;
}

/** Drags with shift held from x0 to x1 at y (canvas coordinates). */
export async function shiftDrag(page, x0, x1, y) {
    const box = await page.locator('#timeline').boundingBox();
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + x0, box.y + y);
    await page.mouse.down();
    await page.mouse.move(box.x + x1, box.y + y, {steps: 6});
    await page.mouse.up();
    await page.keyboard.up('Shift');
}

/**
 * Shift-drags across the fractions [a, b] of the plot; resolves with the selection (ns), the
 * panel's lines for it and the lines `report` (its text: reportText) prints for it.
 */
export async function selectAndRead(page, reportText, a, b) {
    const canvas = await page.locator('#timeline').boundingBox();
    const labelWidth = Number(await page.$eval('#timeline', (c) => c.dataset.labelWidth));
    const plot = canvas.width - labelWidth;
    await shiftDrag(page, labelWidth + plot * a, labelWidth + plot * b, 70);
    const sel =
        await page.$eval('#selection', (el) => ({from: Number(el.dataset.from), to: Number(el.dataset.to)}));
    const lines = await panelLines(page);
    return {sel, lines, expected: reportLinesIn(reportText, sel.from, sel.to)};
}

/** Whether two lists of lines are the same. */
export const sameLines = (a, b) => a.length === b.length && a.every((l, i) => l === b[i]);

/** The panel's lines once it has loaded the selection shown in the header. */
export async function panelLines(page) {
    await page.waitForFunction(
        () => {
            const sel = document.getElementById('selection').dataset;
            return sel.from && document.getElementById('panel').dataset.loaded === `${sel.from}-${sel.to}`;
        },
        null,
        {timeout: 15000},
    );
    const text = await page.$eval('#event-lines', (el) => el.textContent);
    return text ? text.replace(/\n$/, '').split('\n') : [];
}

/** Checks that count: each prints ok/FAIL; done() prints the tally and exits. */
export class Checks {
    constructor(name) {
        this.name = name;
        this.passed = 0;
        this.failed = 0;
    }
    ok(cond, what, detail = '') {
        if (cond) {
            this.passed++;
            console.log(`ok   ${what}`);
        } else {
            this.failed++;
            console.log(`FAIL ${what}${detail ? `: ${detail}` : ''}`);
        }
        return cond;
    }
    /**
     * A check the server does not pass yet, named with the reason: it prints GAP while it fails,
     * and fails once it passes so that its entry is removed and it becomes a plain check.
     */
    gap(cond, what, reason) {
        if (cond) return this.ok(false, `${what} (listed as a known gap: remove the entry, it passes now)`);
        this.gaps = (this.gaps || 0) + 1;
        console.log(`GAP  ${what}: ${reason}`);
        return false;
    }
    done() {
        if (this.gaps) console.log(`${this.name}: ${this.gaps} known gap(s) of the server, listed above`);
        console.log(`${this.name}: ${this.passed} passed, ${this.failed} failed`);
        process.exit(this.failed ? 1 : 0);
    }
}

/** The first difference between two lists of lines, for a failure's message. */
export function firstDifference(a, b) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
        if (a[i] !== b[i])
            return `line ${i + 1}: page ${JSON.stringify(a[i])} vs report ${JSON.stringify(b[i])}`;
    }
    return '';
}
