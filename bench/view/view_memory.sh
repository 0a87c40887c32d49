#!/bin/bash
# ringscope view's memory against the trace's size (not a timed test): FILE repeated N times
# (bench/report's trace_repeat), the server's VmHWM once its index is built, after the lanes'
# queries, after a 1/4096 /api/events and after a -F one, and what the summaries hold
# (/api/meta's "index").
#   bench/view/view_memory.sh [BUILD_DIR] [FILE] [N...]
# Defaults: build, tests/data/traces/full.dat, 1 25 100 250.
set -euo pipefail
BUILD=${1:-build}
F=${2:-tests/data/traces/full.dat}
shift $(($# < 2 ? $# : 2))
COUNTS=${*:-1 25 100 250}
TMP=$(mktemp -d)
PID=
trap '[ -z "$PID" ] || kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
hwm() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/$PID/status; }
printf "%-6s %10s %8s %8s %8s %8s  %s\n" N events index +lanes +events +-F "summaries (MB: CPU + tasks)"
for n in $COUNTS; do
	T=$TMP/x$n.dat
	"$BUILD/bench/trace_repeat" "$F" "$T" "$n" >/dev/null
	"$BUILD/ringscope" view --port 0 "$T" >"$TMP/out" &
	PID=$!
	until grep -q serving "$TMP/out"; do sleep 0.01; kill -0 $PID; done
	U=http://127.0.0.1:$(grep -o '[0-9]*/$' "$TMP/out" | tr -d /)
	a=$(hwm)
	META=$(curl -s "$U/api/meta")
	num() { echo "$META" | grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2; }
	START=$(num start) END=$(num end)
	curl -s -o /dev/null "$U/api/cpus?width=1500"
	curl -s -o /dev/null "$U/api/tasks?width=1500"
	b=$(hwm)
	MID=$((START + (END - START) / 2)) HALF=$(((END - START) / 8192))
	curl -s -o /dev/null "$U/api/events?from=$((MID - HALF))&to=$((MID + HALF))&limit=1000"
	c=$(hwm)
	curl -s -o /dev/null "$U/api/events?from=$((MID - HALF))&to=$((MID + HALF))&limit=1000&filter=sched_switch"
	d=$(hwm)
	printf "%-6s %10s %8s %8s %8s %8s  %.2f + %.2f (%s tasks, %s entries)\n" "x$n" "$(num total)" "$a" "$b" "$c" \
		"$d" "$(echo "$(num cpu_bytes) / 1048576" | bc -l)" "$(echo "$(num task_bytes) / 1048576" | bc -l)" \
		"$(num tasks)" "$(num task_entries)"
	kill $PID
	wait $PID || true
	PID=
	rm -f "$T"
done
