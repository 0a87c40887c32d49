#!/usr/bin/env python3
"""Checks `ringscope sched latency|runtime` against an independent computation over the
`trace-cmd report -t` output of the same trace (committed under tests/data/traces).

usage: sched_check.py RINGSCOPE TRACE REPORT_T_XZ
"""
import json
import lzma
import math
import re
import subprocess
import sys

LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d{9}): (?P<name>\w+):\s+(?P<info>.*)$")
SWITCH = re.compile(r"^(?P<pcomm>.*):(?P<ppid>-?\d+) \[(?P<pprio>-?\d+)\] (?P<state>\S+) ==> (?P<ncomm>.*):(?P<npid>-?\d+) \[(?P<nprio>-?\d+)\]$")
WAKEUP = re.compile(r"^(?P<comm>.*):(?P<pid>-?\d+) \[(?P<prio>-?\d+)\]")


def events(path):
    with lzma.open(path, "rt") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m:
                sec, frac = m["ts"].split(".")
                yield int(sec) * 10**9 + int(frac), int(m["cpu"]), m["name"], m["info"]


def exact_quantile(sorted_values, q):
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def check_latency(ringscope, trace, report):
    pending, lat_all, per_task = {}, [], {}
    for ts, cpu, name, info in events(report):
        if name in ("sched_wakeup", "sched_wakeup_new"):
            pid = int(WAKEUP.match(info)["pid"])
            pending.setdefault(pid, ts)
        elif name == "sched_switch":
            npid = int(SWITCH.match(info)["npid"])
            if npid in pending:
                lat = ts - pending.pop(npid)
                lat_all.append(lat)
                per_task.setdefault(npid, []).append(lat)
    out = json.loads(subprocess.run([ringscope, "sched", "latency", "--format", "json", trace],
                                    check=True, capture_output=True, text=True).stdout)
    errors = []

    def compare(label, got, values):
        values = sorted(values)
        if got["count"] != len(values):
            errors.append(f"{label}: count {got['count']} != {len(values)}")
            return
        for key, want in (("min_ns", values[0]), ("max_ns", values[-1])):
            if got[key] != want:
                errors.append(f"{label}: {key} {got[key]} != {want}")
        mean = sum(values) / len(values)
        if abs(got["mean_ns"] - mean) > 1e-6 * max(1.0, mean):
            errors.append(f"{label}: mean {got['mean_ns']} != {mean}")
        for key, q in (("p50_ns", 0.5), ("p90_ns", 0.9), ("p99_ns", 0.99), ("p999_ns", 0.999)):
            want = exact_quantile(values, q)
            if abs(got[key] - want) > want / 128 + 1:
                errors.append(f"{label}: {key} {got[key]} not within 1/128 of {want}")

    compare("overall", out["overall"], lat_all)
    tasks = {t["pid"]: t for t in out["tasks"]}
    if set(tasks) != set(per_task):
        errors.append(f"task sets differ: {sorted(set(tasks) ^ set(per_task))}")
    for pid, values in per_task.items():
        if pid in tasks:
            compare(f"pid {pid}", tasks[pid], values)
    return errors, len(lat_all)


def check_runtime(ringscope, trace, report):
    first = last = None
    running, runtime = {}, {}
    for ts, cpu, name, info in events(report):
        first = ts if first is None else first
        last = ts
        if name != "sched_switch":
            continue
        m = SWITCH.match(info)
        ppid, npid = int(m["ppid"]), int(m["npid"])
        since = running.get(cpu, (None, first))[1]
        runtime[ppid] = runtime.get(ppid, 0) + ts - since
        running[cpu] = (npid, ts)
    for cpu, (pid, since) in running.items():
        runtime[pid] = runtime.get(pid, 0) + last - since
    out = json.loads(subprocess.run([ringscope, "sched", "runtime", "--format", "json", trace],
                                    check=True, capture_output=True, text=True).stdout)
    got = {row["pid"]: row["runtime_ns"] for row in out["sched.runtime.tasks"]}
    errors = [f"pid {pid}: runtime {got.get(pid)} != {want}" for pid, want in runtime.items() if got.get(pid) != want]
    # Tasks ringscope lists only for their migrations must show no runtime.
    errors += [f"pid {pid}: runtime {ns} but never ran" for pid, ns in got.items() if pid not in runtime and ns != 0]
    return errors, len(runtime)


def main():
    ringscope, trace, report = sys.argv[1:4]
    lat_errors, n_lat = check_latency(ringscope, trace, report)
    run_errors, n_tasks = check_runtime(ringscope, trace, report)
    for e in lat_errors + run_errors:
        print("MISMATCH", e)
    print(f"{trace}: {n_lat} wakeup latencies, {n_tasks} tasks' runtimes checked")
    if n_lat == 0:
        print("no latency was measured: the check proves nothing")
        return 1
    return 1 if lat_errors or run_errors else 0


sys.exit(main())
