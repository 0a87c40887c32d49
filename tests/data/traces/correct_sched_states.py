#!/usr/bin/python3
"""Fix the task states libtraceevent 1.7.1's sched_switch plugin gets wrong on 6.x kernels.

Usage: correct_sched_states.py PLUGIN_OUTPUT NOPLUGIN_OUTPUT > EXPECTED

PLUGIN_OUTPUT is `trace-cmd report ARGS`, NOPLUGIN_OUTPUT is `trace-cmd report -N ARGS` (the same
events in the same order; only the event text differs). The plugin's hard-coded state table is stale
(X for Z, W for I, R for R+); the kernel's print fmt (what -N prints as prev_state=...) is right. For
every plugin-style sched_switch line (`comm:pid [prio] STATE ==> ...`) the STATE is replaced by the -N
line's prev_state; nothing else changes. Prints to stderr how many states changed, by kind.
"""
import collections
import re
import sys

# What follows "-PID" up to "sched_switch:" (CPU, flags, time, --ts-diff delta) identifies the event in
# both outputs; the comm before it may differ (the plugin registers comms while printing, -N does not).
KEY = re.compile(r"-\d+\s+(.*?)sched_switch: ")
PLUGIN_STATE = re.compile(r"(sched_switch: +\S.*:-?\d+ \[-?\d+\] )(\S+)( ==> )")
KERNEL_STATE = re.compile(r" prev_state=(\S+) ==> ")


def main() -> int:
    with open(sys.argv[1], "rb") as f:
        plugin = f.read().decode("utf-8", "surrogateescape").split("\n")
    with open(sys.argv[2], "rb") as f:
        kernel = f.read().decode("utf-8", "surrogateescape").split("\n")
    if len(plugin) != len(kernel):
        sys.exit(f"{sys.argv[1]}: {len(plugin)} lines but {sys.argv[2]} has {len(kernel)}")
    changed = collections.Counter()
    out = []
    for n, (p, k) in enumerate(zip(plugin, kernel), 1):
        m = PLUGIN_STATE.search(p)
        if m:
            kp, kk = KEY.search(p), KEY.search(k)
            ks = KERNEL_STATE.search(k)
            if not kp or not kk or kp.groups() != kk.groups() or not ks:
                sys.exit(f"line {n}: the -N output does not line up:\n  {p}\n  {k}")
            if m.group(2) != ks.group(1):
                changed[f"{m.group(2)}->{ks.group(1)}"] += 1
                p = p[: m.start(2)] + ks.group(1) + p[m.end(2) :]
        out.append(p)
    sys.stdout.buffer.write("\n".join(out).encode("utf-8", "surrogateescape"))
    summary = ", ".join(f"{k} x{v}" for k, v in sorted(changed.items())) or "none"
    print(f"{sys.argv[1]}: corrected states: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
