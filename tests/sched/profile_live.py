#!/usr/bin/python3
"""`ringscope report --profile` against the installed trace-cmd 3.1.6 itself, on one trace.

Usage: profile_live.py RINGSCOPE TRACE_CMD TRACE

Runs `TRACE_CMD report --profile TRACE` and `RINGSCOPE report --profile -O sched:legacy_states TRACE`
(trace-cmd's own state letters) once each and compares
them with profile_check.py's rules: the exit codes, the lines before the first task, the tasks in
order, and each task's lines (event lines and their kernel stack trees) as a multiset, since
trace-cmd orders the events that tie in its sort by hash order. Where trace-cmd fails (exit non-zero)
ringscope must fail with the same code. Two known differences are checked as such: a trace with
sched_switch but no sched_wakeup (3.1.6's switch figures are noise there: only the other events'
lines are compared, over all tasks, without stacks), and one with buffer instances (3.1.6 dies "Handle not found?").
Exits 77 (skipped) when TRACE_CMD is not 3.1.6 or TRACE is
missing, 1 with the differences listed.
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_check import compare  # noqa: E402



def run(argv):
    env = dict(os.environ, HOME="/nonexistent", LC_ALL="C", RINGSCOPE_COMPAT="3.1")
    done = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    return done.returncode, done.stdout.decode("utf-8", "surrogateescape"), done.stderr.decode(errors="replace")


def blocks(text: str):
    """(preamble lines, [(task header, Counter of blocks)]): a block is an event line with the lines
    of its stack tree."""
    preamble, tasks = [], []
    for line in text.split("\n"):
        if line.startswith("task: ") or line.startswith("group: ") or line.startswith("Global "):
            tasks.append((line, []))
        elif line.startswith("  Event: ") and tasks:
            tasks[-1][1].append([line])
        elif not tasks:
            if line.strip():
                preamble.append(line)
        elif line and tasks[-1][1]:
            tasks[-1][1][-1].append(line)
    return preamble, [(h, collections.Counter("\n".join(b) for b in bs)) for h, bs in tasks]


def differences(want: str, got: str, noisy_switches: bool):
    want_pre, want_tasks = blocks(want)
    got_pre, got_tasks = blocks(got)
    if noisy_switches:
        # No sched_wakeup: 3.1.6 reads the switches' pids from uninitialised memory (tasks and lines
        # that are noise, comms printed before the tasks, a switch's stack counted under the
        # current task's previous event); compare the other events' lines, without their stacks,
        # over all tasks.
        def others(tasks):
            c = collections.Counter()
            for _, lines in tasks:
                c.update(b.split("\n")[0] for b in lines.elements() if not b.startswith("  Event: sched_switch:"))
            return c
        want_tasks, got_tasks = [("all tasks", others(want_tasks))], [("all tasks", others(got_tasks))]
        want_pre, got_pre = want_pre[:1], got_pre[:1]
    problems = compare(want_pre, want_tasks, got_pre, got_tasks)
    return problems, len(want_tasks)


def main() -> int:
    ringscope, trace_cmd, trace = sys.argv[1:4]
    if not os.path.exists(trace):
        print(f"{trace}: missing, skipped")
        return 77
    try:
        version = subprocess.run([trace_cmd, "-V"], capture_output=True, text=True).stdout
    except OSError:
        version = ""
    if "version 3.1.6" not in version:
        print(f"{trace_cmd} is not trace-cmd 3.1.6, skipped")
        return 77
    want_rc, want, want_err = run([trace_cmd, "report", "--profile", trace])
    formats = run([trace_cmd, "dump", "--events", trace])[1].split("\n")
    noisy_switches = "name: sched_switch" in formats and "name: sched_wakeup" not in formats
    instances = run([trace_cmd, "dump", "--options", trace])[1].count("[Option BUFFER")
    got_rc, got, got_err = run([ringscope, "report", "--profile", "-O", "sched:legacy_states", trace])
    name = os.path.basename(trace)
    if instances and want_rc != 0 and "Handle not found?" in want_err:
        # 3.1.6 dies at the first event of a buffer instance (its profile knows the top buffer's
        # handle only; exit 255, or a stale errno such as 22); ringscope profiles every buffer.
        print(f"{name}: trace-cmd exits {want_rc} at the first instance event (known), ringscope {got_rc}")
        return 0 if got_rc == 0 else 1
    if want_rc != 0 or got_rc != 0:
        if want_rc == got_rc:
            print(f"{name}: both exit {got_rc}")
            return 0
        print(f"{name}: trace-cmd exits {want_rc} ({want_err.strip()[:200]}), ringscope {got_rc} ({got_err.strip()[:200]})")
        return 1
    problems, tasks = differences(want, got, noisy_switches)
    if problems:
        print(f"{name}: `ringscope report --profile` differs from trace-cmd's ({len(problems)} problems):")
        for p in problems[:40]:
            print("  " + p)
        return 1
    exact = "byte-identical" if want == got else "equal up to the order of ties"
    print(f"{name}: {tasks} tasks, {exact}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
