// The results of `ringscope run` under the viewer, in its html output: the run writes them as a
// <section id="results" hidden> (tables of readable values, each number's exact value in data-v,
// each time's ns in data-ts). Here: the Timeline / Results tabs in the header, sorting by a clicked
// column, and a clicked time shown on the timeline. Pages without results (the server's,
// `view --export`) are left as they are.

/** Wires the results section when the page has one; timeline: the page's Timeline. */
export function bindResults(timeline, doc = document) {
    const results = doc.getElementById('results');
    if (!results) return;
    const tabs = doc.createElement('nav');
    tabs.id = 'page-tabs';
    const count = results.querySelectorAll('table').length;
    for (const [name, label] of [['timeline', 'Timeline'], ['results', `Results (${count} tables)`]]) {
        const button = doc.createElement('button');
        button.dataset.view = name;
        button.textContent = label;
        button.addEventListener('click', () => showView(doc, name));
        tabs.appendChild(button);
    }
    doc.querySelector('header strong').after(tabs);
    for (const table of results.querySelectorAll('table.sortable')) makeSortable(table);
    results.addEventListener('click', (e) => {
        const cell = e.target.closest('td[data-ts]');
        if (cell) showTime(doc, timeline, cell);
    });
    showView(doc, doc.location.hash === '#results' ? 'results' : 'timeline');
}

function showView(doc, name) {
    doc.body.classList.toggle('show-results', name === 'results');
    doc.getElementById('results').hidden = name !== 'results';
    for (const b of doc.querySelectorAll('#page-tabs button')) b.classList.toggle('active', b.dataset.view === name);
}

/**
 * A table sorts by the clicked column: numbers by their exact value (data-v), text by its text;
 * a new column sorts largest first, a second click reverses.
 */
function makeSortable(table) {
    const heads = [...table.tHead.rows[0].cells];
    for (const th of heads) {
        th.addEventListener('click', () => {
            const col = heads.indexOf(th);
            const descending = th.dataset.dir !== 'desc';
            for (const h of heads) delete h.dataset.dir;
            th.dataset.dir = descending ? 'desc' : 'asc';
            const key = (tr) => {
                const td = tr.cells[col];
                if (!td) return '';
                return td.dataset.v !== undefined ? Number(td.dataset.v) : td.textContent;
            };
            const body = table.tBodies[0];
            const rows = [...body.rows].sort((a, b) => {
                const x = key(a);
                const y = key(b);
                const d = typeof x === 'number' && typeof y === 'number' ? x - y :
                                                                           String(x).localeCompare(String(y));
                return descending ? -d : d;
            });
            body.append(...rows);
        });
    }
}

/**
 * The row's times on the timeline: from its first to its last time (a wakeup to its switch-in, a
 * window's start to its end) selected, with as much again around it; a lone time gets the cursor
 * in the middle of 2 ms.
 */
function showTime(doc, timeline, cell) {
    const times = [];
    for (const td of cell.parentNode.querySelectorAll('td[data-ts]')) {
        times.push(Number(td.dataset.ts));
        if (td.dataset.tsEnd !== undefined) times.push(Number(td.dataset.tsEnd));
    }
    const from = Math.min(...times);
    const to = Math.max(...times);
    showView(doc, 'timeline');
    if (to > from) {
        const pad = (to - from) / 2;
        timeline.setRange(from - pad, to + pad);
        timeline.setSelection(from, to);
    } else {
        timeline.setRange(from - 1e6, from + 1e6);
    }
    timeline.setCursor(Number(cell.dataset.ts));
}
