#!/usr/bin/env python3
"""Extracts, from `trace-cmd report` of the committed traces, the lines of the events the printer
plugins handle, as `CPU<TAB>EVENT<TAB>INFO` in report order: what tests/printers compares with.
Run from anywhere: python3 tests/data/printers/make-trace-lines.py (needs trace-cmd 3.1.6)."""
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, '..', 'traces')
EVENTS = {'hrtimer_start', 'hrtimer_expire_entry', 'kfree', 'kmalloc', 'kmalloc_node', 'kmem_cache_alloc',
          'kmem_cache_alloc_node', 'kmem_cache_free', 'function', 'kernel_stack', 'raw_data', 'func_repeats',
          'tlb_flush', 'sys_enter_futex', 'jbd2_run_stats', 'jbd2_checkpoint_stats'}
# "... [001]   446.140728: hrtimer_start:        hrtimer=..." (the name padded to 20 after ": ")
LINE = re.compile(r'\[(\d{3})\]\s+\d+\.\d+: ([A-Za-z0-9_]+):')

for name in ('basic', 'full', 'dropped', 'formats-v6'):
    text = subprocess.run(['trace-cmd', 'report', os.path.join(TRACES, name + '.dat')], check=True,
                          capture_output=True, text=True).stdout
    out = []
    for line in text.split('\n'):
        m = LINE.search(line)
        if not m or m.group(2) not in EVENTS:
            continue
        start = m.start(2)
        info = line[start + max(len(m.group(2)) + 2, 22):]
        out.append('%d\t%s\t%s\n' % (int(m.group(1)), m.group(2), info))
    with open(os.path.join(HERE, 'traces', name + '.lines'), 'w') as f:
        f.writelines(out)
    print(name, len(out))
