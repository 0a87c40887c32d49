#!/usr/bin/python3
"""Shrink a kallsyms file to the symbols a trace needs, keeping every lookup result unchanged.

Usage: kallsyms_subset.py KALLSYMS RAW_REPORT > SUBSET

RAW_REPORT is `trace-cmd report -R` (and plain) output of the trace restored WITHOUT symbols, so
that every address prints as a number: every number in it that could be a kernel address
is looked up. For each such address the subset keeps the symbol(s) at the greatest start <= address
and the symbol(s) at the next greater start, so libtraceevent's look-up (start <= addr < next start)
gives the same name and offset as with the full table. `A`/`a` symbols are dropped (libtraceevent
skips them anyway). Lines keep their original order.
"""
import bisect
import re
import sys

KERNEL_MIN = 0xFFFF800000000000


def main() -> int:
    kallsyms, raw_report = sys.argv[1:3]
    lines = []
    starts = set()
    with open(kallsyms, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] in ("A", "a"):
                continue
            addr = int(parts[0], 16)
            lines.append((addr, line))
            starts.add(addr)
    ordered = sorted(starts)

    wanted = set()
    number = re.compile(r"0x[0-9a-fA-F]+|\b[0-9a-fA-F]{16}\b|\b[0-9]{19,20}\b")
    with open(raw_report, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            for tok in number.findall(line):
                if tok.startswith("0x") or len(tok) == 16 and not tok.isdigit():
                    value = int(tok, 16)
                else:
                    value = int(tok)
                if value < KERNEL_MIN or value > 0xFFFFFFFFFFFFFFFF:
                    continue
                i = bisect.bisect_right(ordered, value) - 1
                if i >= 0:
                    wanted.add(ordered[i])
                if i + 1 < len(ordered):
                    wanted.add(ordered[i + 1])

    out = sys.stdout
    for addr, line in lines:
        if addr in wanted:
            out.write(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
