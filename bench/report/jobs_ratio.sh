#!/usr/bin/env bash
# jobs_ratio.sh [RINGSCOPE] [PAIRS] [FILE [OPTION...]]: `report OPTIONS -j 1` and `-j 2` of FILE
# (default: the bench trace, with -N), alternating, PAIRS times each (default 15), under
# `chrt -f 10` so that the machine's other work does not take the second core; prints the median
# wall times and their ratio. An Intel PT stream: `jobs_ratio.sh build/ringscope 5 FILE.pt --format json`.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
RS=${1:-$SRC/build/ringscope}
N=${2:-15}
F=${3:-$SRC/build/bench-data/big.dat}
shift $(($# < 3 ? $# : 3))
OPTS=("$@")
[ $# -gt 0 ] || OPTS=(-N)
one=() two=()
wall_us() {
	local s e
	s=$(date +%s%N)
	chrt -f 10 "$RS" report "${OPTS[@]}" -j "$1" "$F" >/dev/null
	e=$(date +%s%N)
	echo $(((e - s) / 1000))
}
for _ in $(seq "$N"); do
	one+=("$(wall_us 1)")
	two+=("$(wall_us 2)")
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
a=$(median "${one[@]}") b=$(median "${two[@]}")
awk -v a="$a" -v b="$b" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
	'BEGIN {printf "-j 1 %.1f ms, -j 2 %.1f ms: %.3fx (load %s)\n", a / 1000, b / 1000, a / b, l}'
