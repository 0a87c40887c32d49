#!/bin/bash
# The highest marker rate `ringscope record` keeps up with (zero loss), and the CPU its process
# uses per million events while recording. Root, a writable tracefs and a build tree are needed:
#   bench/tracefs/record_rate.sh BUILD_DIR [EVENTS_PER_WRITER] [BUFFER_KB] [RATES...]
# One marker writer per CPU (pinned), each at RATE lines/s (0 = as fast as it can), into a private
# instance; ringscope runs without a command and is stopped with SIGINT once the writers are done.
# CPU = utime+stime of the ringscope process from /proc just before SIGINT (the recording phase),
# and the whole run including writing the trace.dat (compression none) from /usr/bin/time.
# WRITERS=N (environment) runs N writers (N CPUs busy) instead of one per CPU.
set -u
BUILD=${1:?build dir}
N=${2:-500000}
KB=${3:-4096}
shift 3 2>/dev/null || shift $#
RATES=${*:-"100000 200000 300000 0"}
RS=$BUILD/ringscope
MW=$BUILD/tests/tracefs_marker_writer
T=/sys/kernel/tracing
OUT=$(mktemp -d /tmp/rs-bench-XXXXXX)
NCPU=${WRITERS:-$(ls -d $T/per_cpu/cpu* | wc -l)}
HZ=$(getconf CLK_TCK)
printf "%-8s %-8s %-10s %-12s %-10s %-14s %-14s\n" rate/cpu writers events lost "ev/s" "cpu-ms/Mev rec" "cpu-ms/Mev all"
for RATE in $RATES; do
  INST=rsbench_$$_$RATE
  exec 9>/tmp/tracefs.lock; flock 9
  /usr/bin/time -f "%U %S" -o $OUT/time $RS record -B $INST -b $KB -e sched:sched_process_exit \
      --compression none -o $OUT/b.dat > $OUT/log 2>&1 &
  TPID=$!
  # The scratch files exist once the instance is set up; then tracing goes on.
  for i in $(seq 200); do [ -f $OUT/b.dat.cpu0 ] && [ "$(cat $T/instances/$INST/tracing_on)" = 1 ] && break; sleep 0.05; done
  RPID=$(pgrep -P $TPID ringscope)
  START=$(date +%s.%N)
  PIDS=""
  for c in $(seq 0 $((NCPU-1))); do taskset -c $c $MW $T/instances/$INST/trace_marker $N $RATE 2>>$OUT/mw & PIDS="$PIDS $!"; done
  wait $PIDS
  END=$(date +%s.%N)
  read -r UT ST < <(awk '{print $14, $15}' /proc/$RPID/stat)
  kill -INT $RPID; wait $TPID
  flock -u 9
  EV=$(grep -o '[0-9]* events read' $OUT/log | awk '{s+=$1} END {print s}')
  LOST=$(grep -o '[0-9]* LOST' $OUT/log | awk '{s+=$1} END {print s+0}')
  read -r TU TS < $OUT/time
  awk -v r=$RATE -v w=$NCPU -v ev=$EV -v lost=$LOST -v s=$START -v e=$END -v ut=$UT -v st=$ST -v hz=$HZ -v tu=$TU -v ts=$TS \
    'BEGIN { rec=(ut+st)/hz*1000; all=(tu+ts)*1000;
             printf "%-8s %-8d %-10d %-12d %-10.0f %-14.1f %-14.1f\n", (r==0?"max":r), w, ev, lost, ev/(e-s), rec/(ev/1e6), all/(ev/1e6) }'
done
rm -rf $OUT
