#!/bin/bash
# How fast the buffers are read out: `ringscope extract` against `trace-cmd extract` (the reference
# reader that runs on these machines; `trace-cmd record` does not) on the same content.
#   bench/tracefs/extract_rate.sh BUILD_DIR [EVENTS_PER_CPU] [BUFFER_KB] [ROUNDS]
# Each round: a private instance of BUFFER_KB per CPU is filled with EVENTS_PER_CPU markers per
# CPU (tracing then off), and one tool extracts it (compression none); the tools alternate. The
# kernel's overrun counters are read first: a round whose buffer overran is reported as such
# (then the buffer, not the reader, bounds what is read).
set -u
BUILD=${1:?build dir}
N=${2:-300000}
KB=${3:-16384}
ROUNDS=${4:-3}
RS=$BUILD/ringscope
MW=$BUILD/tests/tracefs_marker_writer
T=/sys/kernel/tracing
OUT=$(mktemp -d /tmp/rs-extract-XXXXXX)
NCPU=$(ls -d $T/per_cpu/cpu* | wc -l)
printf "%-10s %-6s %-10s %-10s %-10s %-12s\n" tool round events overrun "wall-s" "ev/s"
for R in $(seq $ROUNDS); do
  for TOOL in ringscope trace-cmd; do
    INST=rsext_$$_$R
    exec 9>/tmp/tracefs.lock; flock 9
    mkdir $T/instances/$INST
    echo $KB > $T/instances/$INST/buffer_size_kb
    echo 1 > $T/instances/$INST/events/sched/sched_process_exit/enable
    for c in $(seq 0 $((NCPU-1))); do taskset -c $c $MW $T/instances/$INST/trace_marker $N 0 2>/dev/null & done
    wait
    echo 0 > $T/instances/$INST/tracing_on
    OVR=$(cat $T/instances/$INST/per_cpu/cpu*/stats | awk '/^overrun/ {s+=$2} END {print s}')
    S=$(date +%s.%N)
    if [ $TOOL = ringscope ]; then
      $RS extract -q -B $INST --compression none -o $OUT/x.dat > /dev/null 2>&1
    else
      trace-cmd extract -B $INST --compression none -o $OUT/x.dat > /dev/null 2>&1
    fi
    E=$(date +%s.%N)
    # trace-cmd extract removes the instance itself.
    if [ -d $T/instances/$INST ]; then
      echo 0 > $T/instances/$INST/events/sched/sched_process_exit/enable
      rmdir $T/instances/$INST
    fi
    flock -u 9
    EV=$($RS report -N $OUT/x.dat 2>/dev/null | grep -c 'tracing_mark_write')
    awk -v t=$TOOL -v r=$R -v ev=$EV -v o=$OVR -v s=$S -v e=$E \
      'BEGIN { printf "%-10s %-6d %-10d %-10d %-10.3f %-12.0f\n", t, r, ev, o, e-s, ev/(e-s) }'
    rm -f $OUT/x.dat*
  done
done
rm -rf $OUT
