#!/bin/sh
# Records threads.dat: ringscope's own `record` of the sched and task events while threads.c runs
# (three processes of three pthreads, a thread's thread, a process forked by a thread; each task
# writes its tid and tgid to trace_marker), then strips the kallsyms and the formats of other
# systems (io_tool strip, ringscope's writer) so the file stays small, and saves trace-cmd 3.1.6's
# report of it. Root, tracefs, trace-cmd and a C compiler; holds /tmp/tracefs.lock while tracing
# (ringscope record puts every tracefs setting back itself).
#   sh tests/data/view/make-threads.sh BUILD_DIR
set -eu
BUILD=$(readlink -f "${1:?usage: make-threads.sh BUILD_DIR}")
OUT=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cc -O1 -Wall -pthread -o "$W/threads" "$OUT/threads.c"
# -F -c: only the workload and its children (set_event_pid with event-fork); trace_marker lines
# are written whatever the pid filter.
flock /tmp/tracefs.lock "$BUILD/ringscope" record -q -e sched -e task -F -c -o "$W/raw.dat" -- "$W/threads"
"$BUILD/tests/io_tool" strip "$W/raw.dat" "$OUT/threads.dat" sched,task,ftrace
cd "$OUT"
HOME=/nonexistent LC_ALL=C trace-cmd report threads.dat > threads.report
echo "threads.dat: $(stat -c %s threads.dat) bytes, $(grep -c ': ' threads.report) events," \
	"$(grep -c 'tgid-check' threads.report) tgid-check lines"
