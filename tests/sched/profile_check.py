#!/usr/bin/python3
"""`ringscope report --profile` against trace-cmd's (tests/data/traces/profile-cases.tsv).

Usage: profile_check.py RINGSCOPE DATA_DIR CASE

Runs `RINGSCOPE report ARGS` in DATA_DIR for the manifest line CASE and compares it with the oracle
(trace-cmd's output with the task states corrected, see make-profile-oracles.sh): the lines before the
first task, the tasks in order, and each task's event lines (label, count, total, average, maximum and
minimum with timestamps) as a set, since trace-cmd orders events that tie in its sort by hash order.
Exits 1 with the differences listed.
"""
import collections
import lzma
import os
import subprocess
import sys


def load_case(data_dir: str, name: str):
    with open(os.path.join(data_dir, "traces", "profile-cases.tsv"), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                sys.exit(f"profile-cases.tsv:{n}: expected 3 tab-separated fields")
            if fields[0] == name:
                return fields[1].split(" "), fields[2]
    sys.exit(f"profile-cases.tsv: no case {name}")


def read_text(path: str) -> str:
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def sections(text: str):
    """(preamble lines, [(task header, Counter of event lines)])."""
    preamble, tasks = [], []
    for line in text.split("\n"):
        if line.startswith("task: ") or line.startswith("Global "):
            tasks.append((line, collections.Counter()))
        elif line.startswith("  Event: ") and tasks:
            tasks[-1][1][line] += 1
        elif line.strip() and not tasks:
            preamble.append(line)
        elif line.strip():
            tasks[-1][1][line] += 1  # anything else inside a task is compared as well
    return preamble, tasks


def compare(want_pre, want_tasks, got_pre, got_tasks):
    """The differences of two sections() results: the lines before the first task, the tasks in
    order, and each task's lines (Counters) as multisets."""
    problems = []
    if want_pre != got_pre:
        problems.append(f"lines before the first task: expected {want_pre[:10]}, got {got_pre[:10]}")
    want_names = [t for t, _ in want_tasks]
    got_names = [t for t, _ in got_tasks]
    if want_names != got_names:
        missing = [t for t in want_names if t not in got_names]
        extra = [t for t in got_names if t not in want_names]
        problems.append(f"tasks differ: missing {missing[:10]}, extra {extra[:10]}"
                        + ("" if missing or extra else " (order)"))
    got_by_name = dict(got_tasks)
    for task, events in want_tasks:
        other = got_by_name.get(task)
        if other is None or other == events:
            continue
        for line in sorted((events - other).elements()):
            problems.append(f"{task}: missing  {line.rstrip()}")
        for line in sorted((other - events).elements()):
            problems.append(f"{task}: extra    {line.rstrip()}")
    return problems


def main() -> int:
    ringscope, data_dir, name = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    args, expected_file = load_case(data_dir, name)
    want = read_text(os.path.join(data_dir, expected_file))
    env = dict(os.environ, HOME="/nonexistent", LC_ALL="C")
    run = subprocess.run([ringscope, "report", *args], cwd=data_dir, capture_output=True, env=env, timeout=120)
    if run.returncode != 0:
        print(f"{name}: exit {run.returncode}\n{run.stderr.decode(errors='replace')}")
        return 1
    got = run.stdout.decode("utf-8", "surrogateescape")
    want_pre, want_tasks = sections(want)
    got_pre, got_tasks = sections(got)
    problems = compare(want_pre, want_tasks, got_pre, got_tasks)
    lines = sum(sum(events.values()) for _, events in want_tasks)
    if problems:
        print(f"{name}: `ringscope report {' '.join(args)}` differs from {expected_file} ({len(problems)} problems):")
        for p in problems[:40]:
            print("  " + p)
        return 1
    print(f"{name}: {len(want_tasks)} tasks, {lines} event lines, all figures equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
