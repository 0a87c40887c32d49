#!/bin/sh
# Functions longer than N lines (default 80) in framework/, sdk/ and plugins/ (plugins/ipt left
# out unless IPT=1), longest first: "LINES NAME FILE:LINE". Start and end lines are
# universal-ctags' (apt: universal-ctags); a lambda counts in the function that holds it.
# Usage: scripts/long_functions.sh [N]
set -eu
limit=${1:-80}
cd "$(dirname "$0")/.."
prune="plugins/ipt"
[ "${IPT:-0}" = 1 ] && prune="/nonexistent"
find framework sdk plugins -path "$prune" -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print |
    ctags -L - --languages=C++ --kinds-C++=f --fields=+ne -x --_xformat='%{end} %{line} %N %F' 2>/dev/null |
    awk -v limit="$limit" '{ n = $1 - $2 + 1; if (n > limit) print n, $3, $4 ":" $2 }' | sort -rn
