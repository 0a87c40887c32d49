#!/bin/bash
# `ringscope report FILE > /dev/null` vs `trace-cmd report FILE > /dev/null`: medians of N runs of
# CPU time (user+sys) and wall time, the ratios, peak RSS, and a check that both print the same bytes.
#   compare.sh RINGSCOPE FILE [RUNS] [REPORT ARGS...]
# Default args: -N (no plugins on either side: the outputs must then be identical).
set -euo pipefail
R=$(readlink -f "${1:?usage: compare.sh path/to/ringscope FILE [RUNS] [ARGS...]}")
F=${2:?trace file}
RUNS=${3:-5}
shift $(($# < 3 ? $# : 3))
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(-N)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

measure() { # measure NAME CMD...: prints "cpu wall rss" (medians; RSS the maximum)
	local name=$1
	shift
	: >"$TMP/$name.times"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "%U %S %e %M" -o "$TMP/t" "$@" >/dev/null 2>/dev/null
		awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$TMP/t" >>"$TMP/$name.times"
	done
	local mid=$(((RUNS + 1) / 2))
	local cpu wall rss
	cpu=$(sort -n -k1 "$TMP/$name.times" | awk -v k=$mid 'NR == k {print $1}')
	wall=$(sort -n -k2 "$TMP/$name.times" | awk -v k=$mid 'NR == k {print $2}')
	rss=$(sort -n -k3 "$TMP/$name.times" | tail -1 | awk '{print $3}')
	echo "$cpu $wall $rss"
}

trace-cmd report "${ARGS[@]}" "$F" >"$TMP/tc.out" 2>/dev/null
"$R" report "${ARGS[@]}" "$F" >"$TMP/rs.out" 2>/dev/null
events=$(grep -vc '^cpus=' "$TMP/tc.out" || true)
if cmp -s "$TMP/tc.out" "$TMP/rs.out"; then
	same=identical
else
	same="DIFFERENT ($(diff "$TMP/rs.out" "$TMP/tc.out" | grep -c '^>') lines)"
fi

read -r tc_cpu tc_wall tc_rss < <(measure tc trace-cmd report "${ARGS[@]}" "$F")
read -r rs_cpu rs_wall rs_rss < <(measure rs "$R" report "${ARGS[@]}" "$F")
printf 'file %s, %s events, args: %s, %s runs (medians)\n' "$F" "$events" "${ARGS[*]}" "$RUNS"
printf '  trace-cmd report: cpu %6.3f s  wall %6.3f s  peak RSS %7d KB\n' "$tc_cpu" "$tc_wall" "$tc_rss"
printf '  ringscope report: cpu %6.3f s  wall %6.3f s  peak RSS %7d KB\n' "$rs_cpu" "$rs_wall" "$rs_rss"
awk -v a="$tc_cpu" -v b="$rs_cpu" -v c="$tc_wall" -v d="$rs_wall" -v e="$events" \
	'BEGIN {printf "  ratio (cpu) %.1fx, ratio (wall) %.1fx; ringscope %.2fM events/s (cpu)\n", a / b, c / d, e / b / 1e6}'
echo "  output: $same"
