#!/usr/bin/env python3
"""Cuts ../kvm/guest-kallsyms.xz down to what kvm-extra.dat's guest addresses need.

For every `rip 0x...` in ../kvm/kvm-extra.report it keeps all symbols at the greatest start <= the
address (aliases included, in file order) and the symbol after it, so every look-up resolves exactly
as with the full table. Output: guest-kallsyms.subset (kallsyms text, file order kept).
"""
import bisect, lzma, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
kvm = os.path.join(here, "..", "kvm")
addrs = set()
with open(os.path.join(kvm, "kvm-extra.report"), errors="replace") as f:
    for line in f:
        for m in re.finditer(r"rip 0x([0-9a-f]+)", line):
            addrs.add(int(m.group(1), 16))
lines = lzma.open(os.path.join(kvm, "guest-kallsyms.xz"), "rt").read().splitlines()
syms = []  # (addr, index) of text symbols the resolver may use
for i, l in enumerate(lines):
    p = l.split()
    if len(p) >= 3 and p[1] not in ("a", "A"):
        syms.append((int(p[0], 16), i))
syms.sort()
starts = [a for a, _ in syms]
keep = set()
for a in addrs:
    k = bisect.bisect_right(starts, a) - 1
    if k < 0:
        continue
    s = starts[k]
    j = k
    while j >= 0 and starts[j] == s:
        keep.add(syms[j][1]); j -= 1
    j = k + 1
    while j < len(syms) and starts[j] == starts[k + 1 if k + 1 < len(syms) else k]:
        keep.add(syms[j][1]); j += 1
with open(os.path.join(here, "guest-kallsyms.subset"), "w") as out:
    for i in sorted(keep):
        out.write(lines[i] + "\n")
print(f"{len(addrs)} addresses, {len(keep)} symbols kept", file=sys.stderr)
