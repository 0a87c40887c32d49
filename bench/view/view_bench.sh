#!/bin/bash
# ringscope view on a large trace (not a timed test): the time from the command's start until
# /api/meta and /api/cpus have answered (first paint's data), zoom and pan answer times, and the
# server's memory (VmHWM, VmRSS; what the summaries hold, from /api/meta's "index") next to the
# trace's size.
#   bench/view/view_bench.sh [BUILD_DIR] [FILE]
# Without FILE: BUILD_DIR/bench-data/big.dat (bench/report/record_big.sh records one).
set -euo pipefail
BUILD=${1:-build}
F=${2:-$BUILD/bench-data/big.dat}
[ -f "$F" ] || { echo "no $F (bench/report/record_big.sh $F)"; exit 1; }
OUT=$(mktemp)
t0=$(date +%s.%N)
"$BUILD/ringscope" view --port 0 "$F" >"$OUT" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -f "$OUT"' EXIT
until grep -q serving "$OUT"; do sleep 0.01; kill -0 $PID; done
PORT=$(grep -o '[0-9]*/$' "$OUT" | tr -d /)
U=http://127.0.0.1:$PORT
t1=$(date +%s.%N)
META=$(curl -s "$U/api/meta")
START=$(echo "$META" | grep -o '"start":[0-9]*' | cut -d: -f2)
END=$(echo "$META" | grep -o '"end":[0-9]*' | cut -d: -f2)
curl -s -o /dev/null "$U/api/cpus?from=$START&to=$END&width=1500"
t2=$(date +%s.%N)
echo "trace: $F ($(stat -c %s "$F") bytes, $(echo "$META" | grep -o '"total":[0-9]*' | cut -d: -f2) events)"
printf "server up (index built): %.3f s after start\n" "$(echo "$t1 - $t0" | bc)"
printf "first /api/meta + /api/cpus answered: %.3f s after start, %.3f s after the server was up\n" \
	"$(echo "$t2 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
cpu_ms() {  # the server's user + system CPU time so far (clock ticks of 10 ms)
	awk '{ print ($14 + $15) * 10 }' /proc/$PID/stat
}
q() {  # NAME TARGET: wall time (shared machine: see the load average), the server's CPU time, bytes
	local c0
	c0=$(cpu_ms)
	curl -s -o /dev/null -w "%{time_total} %{size_download}\n" "$U$2" | {
		read -r t s
		printf "%-34s %7.1f ms (server CPU %4d ms) %9d bytes\n" "$1" "$(echo "$t * 1000" | bc)" \
			"$(($(cpu_ms) - c0))" "$s"
	}
}
SPAN=$((END - START))
# The zooms and the event queries are centred on the first event at or after the trace's middle:
# the middle itself may be idle (trace_repeat's copies of a trace leave a gap between each two, so
# the middle of full250.dat falls between events and every range query around it was empty).
secs() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
FIRST=$({ "$BUILD/ringscope" report --from "$(secs $((START + SPAN / 2)))" "$F" 2>/dev/null || true; } |
	grep -m1 -o ' [0-9]*\.[0-9]\{6\}: ' || true)
[ -n "$FIRST" ] || { echo "no event after the middle of $F"; exit 1; }
FIRST=${FIRST//[ :]/}
MID=$((10#${FIRST%.*} * 1000000000 + 10#${FIRST#*.} * 1000))
echo "zooms centred on $FIRST s (the first event at or after the middle)"
q "cpus whole, 1500 px" "/api/cpus?from=$START&to=$END&width=1500"
q "tasks whole, 1500 px" "/api/tasks?from=$START&to=$END&width=1500"
for div in 4 16 256 4096 65536; do
	a=$((MID - SPAN / div / 2)) b=$((MID + SPAN / div / 2))
	q "cpus zoom 1/$div" "/api/cpus?from=$a&to=$b&width=1500"
	q "tasks zoom 1/$div" "/api/tasks?from=$a&to=$b&width=1500"
	q "cpus pan 1/$div" "/api/cpus?from=$((a + SPAN / div / 4))&to=$((b + SPAN / div / 4))&width=1500"
done
# The first /api/events opens the files for report's run; the next ones find them open.
q "events zoom 1/4096, 1000 lines" "/api/events?from=$((MID - SPAN / 8192))&to=$((MID + SPAN / 8192))&limit=1000"
q "events again (same range)" "/api/events?from=$((MID - SPAN / 8192))&to=$((MID + SPAN / 8192))&limit=1000"
q "events pan 1/4096" "/api/events?from=$((MID))&to=$((MID + SPAN / 4096))&limit=1000"
q "events zoom 1/65536" "/api/events?from=$((MID - SPAN / 131072))&to=$((MID + SPAN / 131072))&limit=1000"
q "events 1/4096, -F sched_switch" "/api/events?from=$((MID - SPAN / 8192))&to=$((MID + SPAN / 8192))&limit=1000&filter=sched_switch"
q "events 1/4096, -F sched_wakeup" "/api/events?from=$((MID - SPAN / 8192))&to=$((MID + SPAN / 8192))&limit=1000&filter=sched_wakeup"
q "stats zoom 1/256" "/api/stats?from=$((MID - SPAN / 512))&to=$((MID + SPAN / 512))"
echo "summaries: $(echo "$META" | grep -o '"index":{[^}]*}')"
echo "load average: $(cut -d" " -f1-3 /proc/loadavg)"
grep -E 'VmHWM|VmRSS' /proc/$PID/status | tr -s ' \t' ' '
kill $PID
wait $PID || true
