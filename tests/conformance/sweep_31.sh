#!/bin/bash
# The wide sweep of `report --compat 3.1` against Debian's trace-cmd 3.1.6 run now: every trace of
# ../shared (the external corpus, extract-3.4.dat, the kvm fixtures) times every option set below
# (48 of them: what trace-cmd 3.1.6's report takes), stdout and exit status. Not a ctest (about
# 1250 cases, minutes on two cores): run it by hand and read its list.
#   tests/conformance/sweep_31.sh [-j JOBS] [-r DIFFERING.txt] [RINGSCOPE] [OUTDIR]
# Prints one line per case that differs ("DIFF FILE [OPTIONS]: stdout|exit A/B"), one per case that
# differs only by README's stale sched_switch table ("EXCUSED ..."), then a count.
# OUTDIR (default /tmp/sweep_31) keeps each differing case's two outputs.
set -u
jobs=2
rerun=""
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=$2; shift 2 ;;
        -r) rerun=$(realpath "$2"); shift 2 ;;  # only the DIFF cases of an earlier differing.txt
        *) break ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
ringscope=$(realpath "${1:-$here/../../build/ringscope}")
out=${2:-/tmp/sweep_31}
shared=$(realpath "$here/../../../shared")
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed" >&2; exit 77; }
[ -x "$ringscope" ] || { echo "$ringscope: not built" >&2; exit 1; }
mkdir -p "$out"

traces=("$shared"/conformance/external-traces/*.dat "$shared/conformance/trace-cmd-3.4/extract-3.4.dat"
        "$shared/fixtures/kvm-agent/host.dat" "$shared/fixtures/kvm-agent/host-vm2.dat"
        "$shared/fixtures/kvm/kvm-extra.dat")
options=(
    "" "-N" "-R" "-l" "-t" "--stat" "-E" "-e" "-f" "-P" "-I" "-S" "-w" "-L"
    "-N -R" "-R -t" "-l -t" "-N -l"
    "--cpu 0" "--cpu 1" "--cpu 0-1" "--cpus" "--first-event" "--last-event"
    "--check-events" "--uname" "--version" "--ts-diff" "--ts-check" "--nodate" "--raw-ts"
    "--ts-offset 1000" "--ts2secs 1000000000"
    "-F sched_switch" "-F nosuch" "-F .*:common_pid>100" "-v -F .*:common_pid==0"
    "-F sched_switch:prev_pid==0" "-T -F sched_switch" "-T -F nosuch"
    "--pid 1" "-T --pid 1" "-r sched_switch" "-n sched_switch"
    "--profile" "--profile -G" "--profile --by-comm" "-O fgraph:tailprint"
)

# --profile: trace-cmd 3.1.6 orders the events that tie in its sort by hash order; the same as
# tests/sched/profile_live.py (tasks in order, each task's lines as a multiset), with its letters.
profile_same() {  # DIR NAME OPTIONS REF
    # shellcheck disable=SC2086
    (cd "$1" && timeout 120 "$ringscope" report --compat 3.1 -O sched:legacy_states $3 "$2" 2>/dev/null) |
        python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import profile_live
want, got = open(sys.argv[2], errors="surrogateescape").read(), sys.stdin.read()
if sys.argv[4] == "by-comm":
    # --by-comm: 3.1.6 prints its groups in an order that changes from run to run; as a set
    blocks = profile_live.blocks
    profile_live.blocks = lambda text: (lambda p, t: (p, sorted(t, key=lambda x: x[0])))(*blocks(text))
problems, _ = profile_live.differences(want, got, sys.argv[3] == "noisy")
sys.exit(1 if problems else 0)' "$sched" "$4" "$(noisy_switches "$1/$2")" \
            "$([[ " $3 " == *" --by-comm "* ]] && echo by-comm)"
}

noisy_switches() {  # TRACE: sched_switch without sched_wakeup (profile_live.py's known noise)
    local f
    f=$(trace-cmd dump --events "$1" 2>/dev/null)
    if grep -qx "name: sched_switch" <<<"$f" && ! grep -qx "name: sched_wakeup" <<<"$f"; then echo noisy; fi
}

run_case() {  # TRACE OPTIONS
    local trace=$1 opts=$2 dir name key ra rb
    dir=$(dirname "$trace"); name=$(basename "$trace")
    key=$(printf '%s %s' "$name" "$opts" | tr -c 'A-Za-z0-9._-' '_')
    # shellcheck disable=SC2086
    ra=$(cd "$dir" && timeout 120 trace-cmd report $opts "$name" >"$out/$key.ref" 2>/dev/null; echo $?)
    # shellcheck disable=SC2086
    rb=$(cd "$dir" && RINGSCOPE_COMPAT=3.1 timeout 120 "$ringscope" report --compat 3.1 $opts "$name" \
         >"$out/$key.ours" 2>/dev/null; echo $?)
    local what=""
    if ! cmp -s "$out/$key.ref" "$out/$key.ours"; then
        what="stdout"
        # README's stale sched_switch table: excused when its letters make the output the same
        # shellcheck disable=SC2086
        if (cd "$dir" && timeout 120 "$ringscope" report --compat 3.1 -O sched:legacy_states $opts "$name" \
            2>/dev/null | cmp -s - "$out/$key.ref"); then
            what="" ; echo "EXCUSED $name [$opts]: the stale sched_switch table (-O sched:legacy_states)"
        elif [[ " $opts " == *" --profile "* ]] && profile_same "$dir" "$name" "$opts" "$out/$key.ref"; then
            what="" ; echo "EXCUSED $name [$opts]: --profile's ties in trace-cmd's hash order (profile_live.py's rules)"
        elif [[ " $opts " == *" --by-comm "* && -n $(noisy_switches "$trace") ]]; then
            # valgrind: 41 uses of uninitialised stack memory in 3.1.6's profile on such a trace
            what="" ; echo "EXCUSED $name [$opts]: sched_switch without sched_wakeup, 3.1.6 groups from uninitialised memory"
        fi
    fi
    [ "$ra" = "$rb" ] || what="${what:+$what, }exit $ra/$rb"
    if [ -n "$what" ]; then
        echo "DIFF $name [$opts]: $what"
    else
        rm -f "$out/$key.ref" "$out/$key.ours"
    fi
}
sched=$(realpath "$here/../sched")
export -f run_case profile_same noisy_switches
export ringscope out sched

cases() {  # TRACE<tab>OPTIONS, NUL-terminated
    if [ -n "$rerun" ]; then
        local line name opts t
        while IFS= read -r line; do
            [[ $line == DIFF* ]] || continue
            name=${line#DIFF }; name=${name%% *}
            opts=${line#*[}; opts=${opts%]:*}
            for t in "${traces[@]}"; do [ "$(basename "$t")" = "$name" ] && printf '%s\t%s\0' "$t" "$opts"; done
        done <"$rerun"
        return
    fi
    for t in "${traces[@]}"; do
        [ -f "$t" ] || continue
        for o in "${options[@]}"; do printf '%s\t%s\0' "$t" "$o"; done
    done
}

# shellcheck disable=SC2016
cases | xargs -0 -P "$jobs" -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r t o <<<"$1"; run_case "$t" "$o"' _ {} |
    sort | tee "$out/differing.txt"
total=$(( ${#traces[@]} * ${#options[@]} ))
[ -z "$rerun" ] || total="the $(grep -c ^DIFF "$rerun") rerun"
echo "$(grep -c ^DIFF "$out/differing.txt") of $total cases differ"
