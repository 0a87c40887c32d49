#!/usr/bin/python3
"""Fix the task states in trace-cmd 3.1.6's `report --profile` output.

Usage: correct_profile_states.py PROFILE_OUTPUT EVENT_FORMATS > EXPECTED

trace-cmd's profiler names sched_switch states with a fixed letter string ("RSDTtXZxKWP": bit N is
letter N+1, no bit is R) that is stale on 6.x kernels (it prints K for I and W for the preempted
R+). EVENT_FORMATS is `trace-cmd dump --events FILE`; the kernel's own sched_switch print fmt there
(__print_flags of prev_state, and the bit that adds "+") names each state as the kernel does. Every
`Event: sched_switch:LETTERS` label is turned back into its bits and named that way; nothing else
changes. Prints to stderr how many labels changed, by kind.
"""
import collections
import re
import sys

STALE = "RSDTtXZxKWP"
LABEL = re.compile(r"^(  Event: sched_switch:)(\S+)( \()")
ENTRY = re.compile(r"\{ *(0x[0-9a-fA-F]+|\d+), *\"([^\"]*)\" *\}")
STATE = "REC->prev_state & "


def balanced(text: str, start: int) -> int:
    """Index just past the parenthesised expression that opens at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    sys.exit("unbalanced parentheses in the sched_switch print fmt")


def constant(expr: str) -> int:
    if not re.fullmatch(r"[0-9a-fA-Fx|+\-<>() ]+", expr):
        sys.exit(f"not a constant expression: {expr}")
    return int(eval(expr))  # digits and operators only (checked above)


def kernel_states(formats: str):
    """(mask, plus_bit, [(value, name)]) of the sched_switch prev_state print fmt."""
    m = re.search(r"name: sched_switch\n.*?print fmt: ([^\n]*)", formats, re.S)
    if not m:
        sys.exit("no sched_switch format")
    fmt = m.group(1)
    mask = plus = None
    pos = fmt.find(STATE)
    while pos >= 0:
        start = pos + len(STATE)
        end = balanced(fmt, start)
        rest = fmt[end:].lstrip()
        if rest.startswith('? "+"'):
            plus = constant(fmt[start:end])
        elif rest.startswith(', "|"'):
            mask = constant(fmt[start:end])
            table = ENTRY.findall(rest[: rest.find(")")])
        pos = fmt.find(STATE, end)
    if mask is None or plus is None:
        sys.exit("the sched_switch print fmt has no __print_flags of prev_state")
    return mask, plus, [(int(v, 0), n) for v, n in table]


def kernel_name(val: int, mask: int, plus: int, table) -> str:
    bits = val & mask
    names = []
    for v, n in table:
        if v and bits & v == v:
            names.append(n)
            bits &= ~v
    if bits:
        names.append(f"0x{bits:x}")
    return ("|".join(names) or "R") + ("+" if val & plus else "")


def main() -> int:
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    with open(sys.argv[2], encoding="utf-8", errors="surrogateescape") as f:
        mask, plus, table = kernel_states(f.read())
    changed = collections.Counter()
    for i, line in enumerate(lines):
        m = LABEL.match(line)
        if not m:
            continue
        letters = m.group(2)
        val = 0 if letters == "R" else sum(1 << (STALE.index(c) - 1) for c in letters)
        name = kernel_name(val, mask, plus, table)
        if name != letters:
            changed[f"{letters}->{name}"] += 1
            lines[i] = line[: m.start(2)] + name + line[m.end(2) :]
    sys.stdout.buffer.write("\n".join(lines).encode("utf-8", "surrogateescape"))
    summary = ", ".join(f"{k} x{v}" for k, v in sorted(changed.items())) or "none"
    print(f"{sys.argv[1]}: corrected states: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
