#!/usr/bin/python3
"""Fix the stale sched_switch states in the output of the tracecmd_iterate_events(3) example.

Usage: correct_example_states.py EXAMPLE_OUTPUT FILE=NOPLUGIN_REPORT... > EXPECTED

The example prints `FILE: TIME [CPU] COMM-PID sched_switch: prev:pid [prio] STATE ==> next:pid [prio]`
through libtraceevent 1.7.1's sched_switch plugin, whose state table is stale on 6.x kernels (see
correct_sched_states.py). For each FILE given, NOPLUGIN_REPORT is `trace-cmd report -N -t FILE`: its
sched_switch lines, per CPU and in order, carry the kernel's prev_state. Each example line is matched to
the next -N line of the same file and CPU with the same pids and a time within 1 us (lines the example
left out, through -c/-f/-e, are skipped), and only the STATE is replaced.
"""
import collections
import re
import sys

EXAMPLE = re.compile(
    r"^(?P<file>.*?): +(?P<ts>\d+\.\d+) \[(?P<cpu>\d+)\] .*? sched_switch: "
    r"(?P<before>.*:(?P<prev>-?\d+) \[-?\d+\] )(?P<state>\S+)(?P<after> ==> .*:(?P<next>-?\d+) \[-?\d+\])$"
)
NOPLUGIN = re.compile(
    r"\[(?P<cpu>\d+)\] +(?P<ts>\d+\.\d+): sched_switch: +.* prev_pid=(?P<prev>-?\d+) .*"
    r"prev_state=(?P<state>\S+) ==> .* next_pid=(?P<next>-?\d+) "
)


def to_ns(ts: str) -> int:
    secs, frac = ts.split(".")
    return int(secs) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])


def main() -> int:
    example = sys.argv[1]
    queues = {}
    for spec in sys.argv[2:]:
        name, path = spec.split("=", 1)
        per_cpu = collections.defaultdict(list)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                m = NOPLUGIN.search(line)
                if m:
                    per_cpu[int(m["cpu"])].append((to_ns(m["ts"]), m["prev"], m["next"], m["state"]))
        queues[name] = {cpu: [0, items] for cpu, items in per_cpu.items()}

    changed = collections.Counter()
    out = []
    with open(example, "rb") as f:
        lines = f.read().decode("utf-8", "surrogateescape").split("\n")
    for n, line in enumerate(lines, 1):
        m = EXAMPLE.match(line)
        if m:
            q = queues.get(m["file"], {}).get(int(m["cpu"]))
            if q is None:
                sys.exit(f"{example}:{n}: no -N report for file {m['file']} cpu {m['cpu']}")
            ts = to_ns(m["ts"])
            while q[0] < len(q[1]):
                nts, prev, nxt, state = q[1][q[0]]
                q[0] += 1
                if prev == m["prev"] and nxt == m["next"] and abs(nts - ts) < 1000:
                    break
            else:
                sys.exit(f"{example}:{n}: no matching sched_switch in the -N report:\n  {line}")
            if state != m["state"]:
                changed[f"{m['state']}->{state}"] += 1
                line = line[: m.start("state")] + state + line[m.end("state") :]
        out.append(line)
    sys.stdout.buffer.write("\n".join(out).encode("utf-8", "surrogateescape"))
    summary = ", ".join(f"{k} x{v}" for k, v in sorted(changed.items())) or "none"
    print(f"{example}: corrected states: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
