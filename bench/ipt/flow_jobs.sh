#!/bin/sh
# ipt flow -j: -j 1, 2 and 3 alternately on bench streams, user/sys/wall s and max RSS of each run,
# and what -j did (--stat:jobs: parts, joins, steps on the calling thread, thread CPU).
#
#   bench/ipt/flow_jobs.sh [-b BUILD] [-r ROUNDS] [-s SIZE_KB] [-j "1 2 3"] [-m "quiet no-inst full"]
#                          [-d DIR] [-p PREFIX]
#
# Makes DIR/sSIZE.{pt,bin} with ipt_flow_bench --write (once), checks that every -j prints what
# -j 1 prints (md5 of each mode's output), then times ROUNDS rounds. Output to /dev/null.
# Modes: quiet (--quiet --stat), no-inst (--no-inst), full (the disassembly: slow, 5 s a MiB).
# Run on an idle machine (`uptime`): wall time is what -j is for. On a shared one, -p "chrt -f 10"
# (as root) runs each timed command ahead of the others' processes.
set -eu

build=build
rounds=5
size_kb=16384
jobs="1 2 3"
modes="quiet no-inst"
dir=/tmp/ringscope-flow-jobs
prefix=
while getopts b:r:s:j:m:d:p: opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) rounds=$OPTARG ;;
    s) size_kb=$OPTARG ;;
    j) jobs=$OPTARG ;;
    m) modes=$OPTARG ;;
    d) dir=$OPTARG ;;
    p) prefix=$OPTARG ;;
    *) sed -n 5,6p "$0" >&2; exit 2 ;;
    esac
done

ringscope=$build/ringscope
stream=$dir/s$size_kb
mkdir -p "$dir"
if [ ! -e "$stream.pt" ]; then
    "$build/bench/ipt_flow_bench" --size-kb "$size_kb" --write "$stream" --only flow-j1 >/dev/null
fi

mode_args() {
    case $1 in
    quiet) echo "--quiet --stat" ;;
    no-inst) echo "--no-inst" ;;
    full) echo "" ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
    esac
}

flow() { # JOBS MODE [extra args]
    j=$1 m=$2
    shift 2
    # shellcheck disable=SC2046,SC2086
    $prefix "$ringscope" ipt flow -j "$j" $(mode_args "$m") "$@" --raw "$stream.bin:0x400000" --pt "$stream.pt"
}

echo "# $(date -u '+%F %T') $(nproc) cpus, $(uptime | sed 's/.*load/load/'); stream $stream.pt ($size_kb KiB)"
for m in $modes; do
    want=
    for j in $jobs; do
        sum=$(flow "$j" "$m" | md5sum | cut -d' ' -f1)
        [ -n "$want" ] || want=$sum
        [ "$sum" = "$want" ] || echo "OUTPUT DIFFERS: $m -j $j ($sum, -j 1 $want)"
        if [ "$j" -gt 1 ]; then
            printf '%-8s -j %s  ' "$m" "$j"
            flow "$j" "$m" --stat:jobs 2>&1 >/dev/null | grep '^parts'
        fi
    done
done
echo "# mode  jobs  round  user_s  sys_s  wall_s  max_rss_kb  load"
for m in $modes; do
    r=1
    while [ "$r" -le "$rounds" ]; do
        for j in $jobs; do
            # shellcheck disable=SC2046,SC2086
            t=$( { $prefix /usr/bin/time -f '%U %S %e %M' sh -c '"$@" >/dev/null 2>&1' sh \
                "$ringscope" ipt flow -j "$j" $(mode_args "$m") \
                --raw "$stream.bin:0x400000" --pt "$stream.pt"; } 2>&1)
            printf '%-8s %s %s %s %s\n' "$m" "$j" "$r" "$t" "$(cut -d' ' -f1 /proc/loadavg)"
        done
        r=$((r + 1))
    done
done
