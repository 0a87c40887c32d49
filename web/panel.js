// The bottom panel for a selected range: the events as `report` prints them, and per task the
// run time, wait time and wakeup latency (sortable, worst first).

import {formatCount, formatDuration, formatTs} from './format.js';

const EVENT_LIMIT = 20000;

const COLUMNS = [
    {key: 'pid', label: 'pid', numeric: true, format: String},
    {key: 'comm', label: 'comm', numeric: false, format: String},
    {key: 'run', label: 'run', numeric: true, format: formatDuration},
    {key: 'wait', label: 'wait (runnable)', numeric: true, format: formatDuration},
    {key: 'wakeups', label: 'wakeups', numeric: true, format: formatCount},
    {key: 'wakeup_max', label: 'wakeup latency max', numeric: true, format: formatDuration},
    {key: 'wakeup_avg', label: 'wakeup latency avg', numeric: true, format: formatDuration},
];

export class Panel {
    constructor({root, source, onError}) {
        this.root = root;
        this.source = source;
        this.onError = onError;
        this.range = null;
        this.filter = '';
        this.seq = 0;
        this.sort = {key: 'run', descending: true};
        this.tasks = [];
        this.summary = root.querySelector('#panel-summary');
        this.lines = root.querySelector('#event-lines');
        this.table = root.querySelector('#task-table');
        this.filterInput = root.querySelector('#event-filter');
        for (const tab of root.querySelectorAll('[data-tab]')) {
            tab.addEventListener('click', () => this.showTab(tab.dataset.tab));
        }
        this.filterInput.addEventListener('keydown', (e) => {
            if (e.key === 'Enter') this.setFilter(this.filterInput.value.trim());
        });
    }

    showTab(name) {
        for (const tab of this.root.querySelectorAll('[data-tab]')) {
            tab.classList.toggle('active', tab.dataset.tab === name);
        }
        for (const page of this.root.querySelectorAll('[data-page]')) {
            page.hidden = page.dataset.page !== name;
        }
    }

    setFilter(filter) {
        this.filter = filter;
        this.filterInput.value = filter;
        if (this.range) this.load();
    }

    /** range: {from, to} in ns, or null to empty the panel. */
    show(range) {
        this.range = range;
        this.root.hidden = !range;
        if (range) this.load();
    }

    async load() {
        const seq = ++this.seq;
        const {from, to} = this.range;
        this.root.dataset.state = 'loading';
        delete this.root.dataset.loaded;
        this.summary.textContent =
            `${formatTs(from)} – ${formatTs(to)} (${formatDuration(to - from + 1)}): loading…`;
        const filter = this.filter || undefined;
        const [events, stats] = await Promise.allSettled([
            this.source.events(from, to, {limit: EVENT_LIMIT, filter}),
            this.source.stats(from, to),
        ]);
        if (seq !== this.seq) return;
        const parts = [`${formatTs(from)} – ${formatTs(to)} (${formatDuration(to - from + 1)})`];
        if (events.status === 'fulfilled') {
            const {lines, total, truncated} = events.value;
            this.lines.textContent = lines.length ? lines.join('\n') + '\n' : '';
            let text = `${formatCount(total)} events${filter ? ` matching ${filter}` : ''}`;
            if (lines.length < total || truncated) text += `, the first ${formatCount(lines.length)} shown`;
            parts.push(text);
        } else {
            this.lines.textContent = '';
            parts.push(`events: ${events.reason.message}`);
            this.onError?.(events.reason.message);
        }
        if (stats.status === 'fulfilled') {
            this.tasks = stats.value.tasks || [];
            this.approximate = Boolean(stats.value.approximate);
            this.renderTable();
        } else {
            this.tasks = [];
            this.renderTable();
        }
        this.summary.textContent = parts.join(' · ');
        this.root.dataset.state = 'ready';
        this.root.dataset.loaded = `${from}-${to}`;
    }

    renderTable() {
        const {key, descending} = this.sort;
        const column = COLUMNS.find((c) => c.key === key);
        const rows = [...this.tasks].sort((a, b) => {
            const d = column.numeric ? a[key] - b[key] : String(a[key]).localeCompare(String(b[key]));
            return descending ? -d : d;
        });
        const head = document.createElement('tr');
        for (const c of COLUMNS) {
            const th = document.createElement('th');
            th.textContent = c.label + (c.key === key ? (descending ? ' ▼' : ' ▲') : '');
            th.dataset.key = c.key;
            if (c.numeric) th.className = 'num';
            th.addEventListener('click', () => {
                // A new column sorts worst (largest) first; a second click reverses.
                this.sort = {
                    key: c.key,
                    descending: this.sort.key === c.key ? !this.sort.descending : c.numeric
                };
                this.renderTable();
            });
            head.appendChild(th);
        }
        const body = document.createDocumentFragment();
        for (const task of rows) {
            const tr = document.createElement('tr');
            for (const c of COLUMNS) {
                const td = document.createElement('td');
                td.textContent = c.format(task[c.key] ?? 0);
                if (c.numeric) td.className = 'num';
                tr.appendChild(td);
            }
            body.appendChild(tr);
        }
        this.table.replaceChildren(head, body);
        this.table.dataset.approximate = this.approximate ? 'yes' : 'no';
    }
}
