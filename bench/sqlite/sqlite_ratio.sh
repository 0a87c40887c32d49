#!/bin/bash
# The SQLite output of `ringscope run` against `ringscope report -N` on the same trace (issue #27):
# events/s of each (wall and CPU = user+sys, medians of RUNS runs, the two interleaved), the
# database's size against the trace's uncompressed CPU data, and its peak RSS.
#   bench/sqlite/sqlite_ratio.sh BUILD_DIR [FILE] [RUNS]
# Without FILE: BUILD_DIR/bench-data/big.dat (bench/report/record_big.sh makes it).
set -euo pipefail
B=$(readlink -f "${1:?usage: bench/sqlite/sqlite_ratio.sh BUILD_DIR [FILE] [RUNS]}")
F=$(readlink -f "${2:-$B/bench-data/big.dat}")
RUNS=${3:-5}
RS=$B/ringscope
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/run.yaml" <<YAML
inputs:
  - path: $F
analyses: {}
outputs:
  dir: $TMP/out
  sqlite: trace.sqlite
YAML
# The CPU data as the kernel wrote it: the sum of the per-CPU sizes of an uncompressed copy.
"$B/bench/trace_repeat" "$F" "$TMP/none.dat" 1 none >/dev/null
cpu_data=$(trace-cmd dump --flyrecord "$TMP/none.dat" 2>/dev/null | awk '/^ +[0-9]+ +[0-9]+\t[0-9]+/ {s += $3} END {print s}')
rm -f "$TMP/none.dat"

one() { # one NAME CMD...: appends "cpu wall rss" of one run to $TMP/NAME
	local name=$1
	shift
	/usr/bin/time -f "%U %S %e %M" -o "$TMP/t" "$@" >/dev/null 2>/dev/null
	awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$TMP/t" >>"$TMP/$name"
}
for _ in $(seq "$RUNS"); do
	one report "$RS" report -N -j 1 "$F"
	rm -rf "$TMP/out"
	one sqlite "$RS" run -q "$TMP/run.yaml"
done
size=$(stat -c %s "$TMP/out/trace.sqlite")
events=$("$RS" sql "$TMP/out/trace.sqlite" 'SELECT count(*) FROM event_rows')
median() { sort -n -k"$2" "$TMP/$1" | awk -v k="$2" '{v[NR] = $k} END {print v[int((NR + 1) / 2)]}'; }
printf 'file %s: %d events, %d runs (medians), load average %s\n' "$F" "$events" "$RUNS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %9s %9s %12s %12s %10s\n' what cpu-s wall-s Mev/s-cpu Mev/s-wall rss-KB
for n in report sqlite; do
	c=$(median $n 1) w=$(median $n 2) r=$(median $n 3)
	label="report -N -j 1"
	[ $n = sqlite ] && label="run (sqlite output only)"
	awk -v l="$label" -v c="$c" -v w="$w" -v r="$r" -v e="$events" \
		'BEGIN {printf "%-28s %9.3f %9.3f %12.2f %12.2f %10d\n", l, c, w, e / c / 1e6, e / w / 1e6, r}'
done
awk -v a="$(median sqlite 1)" -v b="$(median report 1)" -v x="$(median sqlite 2)" -v y="$(median report 2)" \
	'BEGIN {printf "sqlite / report: %.2fx CPU, %.2fx wall\n", a / b, x / y}'
awk -v s="$size" -v d="$cpu_data" \
	'BEGIN {printf "database %.1f MB, uncompressed CPU data %.1f MB: %.2fx\n", s / 1e6, d / 1e6, s / d}'
