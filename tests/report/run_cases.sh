#!/bin/bash
# Runs `ringscope report` on every case of tests/data/traces/cases.tsv and compares stdout and the exit
# code with the expected output; prints per case: OK, or the share of identical lines (diff-based).
#   run_cases.sh RINGSCOPE [CASE_REGEX] [--live]   (--live: compare with `trace-cmd report -N`-less live
#   run of trace-cmd instead of the committed oracle; needs trace-cmd installed)
set -uo pipefail
R=${1:?usage: run_cases.sh path/to/ringscope [case-regex] [--live]}
R=$(readlink -f "$R")
PAT=${2:-.}
LIVE=${3:-}
DATA=$(cd "$(dirname "$0")/../data" && pwd)
TMP=$(mktemp -d /tmp/ringscope-cases.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$DATA"
pass=0 fail=0
while IFS=$'\t' read -r name args expected rc; do
	[[ $name == \#* || -z $name ]] && continue
	[[ $name =~ $PAT ]] || continue
	eval "set -- $args"
	if [ "$LIVE" = --live ]; then
		env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd report "$@" >"$TMP/exp" 2>/dev/null
		rc=$?
	else
		case $expected in
		*.xz) xzcat "$expected" >"$TMP/exp" ;;
		*) cp "$expected" "$TMP/exp" ;;
		esac
	fi
	timeout 120 "$R" report "$@" >"$TMP/got" 2>"$TMP/err"
	got_rc=$?
	if cmp -s "$TMP/got" "$TMP/exp" && [ "$got_rc" = "$rc" ]; then
		pass=$((pass + 1))
		printf 'OK    %s\n' "$name"
	else
		fail=$((fail + 1))
		total=$(wc -l <"$TMP/exp")
		diffl=$(diff "$TMP/got" "$TMP/exp" | grep -c '^>')
		same=$((total - diffl))
		pct=100
		[ "$total" -gt 0 ] && pct=$(awk -v s=$same -v t=$total 'BEGIN{printf "%.2f", 100*s/t}')
		printf 'DIFF  %s: rc %s (want %s), %s/%s lines identical (%s%%)\n' "$name" "$got_rc" "$rc" "$same" "$total" "$pct"
		diff "$TMP/got" "$TMP/exp" | head -6 | sed 's/^/      /'
		head -c 300 "$TMP/err" | sed 's/^/      stderr: /'
	fi
done <traces/cases.tsv
echo "passed $pass, differ $fail"
[ $fail -eq 0 ]
