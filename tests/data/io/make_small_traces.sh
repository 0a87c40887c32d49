#!/bin/sh
# Makes the small trace-cmd-written files of tests/data/io (run as root on a machine with tracefs
# and trace-cmd 3.1.6; needs the io_tool helper built from tests/io/tools/io_tool.cpp):
#   IO_TOOL=path/to/io_tool sh make_small_traces.sh
# 1. records a top buffer (sched_switch, sched_wakeup) and an instance "rsio" (irq, timer) with
#    `trace-cmd extract -B rsio -t`, restoring the tracing state afterwards;
# 2. strips the ~5 MB kallsyms and the formats of unused event systems (2 MB here) with
#    ringscope's writer (io_tool strip) so the files stay small;
# 3. lets trace-cmd itself rewrite the result in its own layout (v7 zstd, v7 none, v6), so the
#    committed files are trace-cmd's, not ringscope's; and saves `trace-cmd report` / `dump` outputs.
set -eu
: "${IO_TOOL:?set IO_TOOL to the io_tool binary}"
OUT=$(cd "$(dirname "$0")" && pwd)
T=/sys/kernel/tracing
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
flock /tmp/tracefs.lock sh -c "
  set -e
  old_kb=\$(cat $T/buffer_size_kb); old_on=\$(cat $T/tracing_on)
  restore() {
    echo 0 > $T/events/sched/sched_switch/enable; echo 0 > $T/events/sched/sched_wakeup/enable
    [ -d $T/instances/rsio ] && rmdir $T/instances/rsio
    echo \$old_kb > $T/buffer_size_kb; echo \$old_on > $T/tracing_on
  }
  trap restore EXIT
  mkdir $T/instances/rsio
  echo 0 > $T/tracing_on; echo > $T/trace; echo 16 > $T/buffer_size_kb
  echo 16 > $T/instances/rsio/buffer_size_kb
  echo 1 > $T/events/sched/sched_switch/enable; echo 1 > $T/events/sched/sched_wakeup/enable
  echo 1 > $T/instances/rsio/events/irq/enable; echo 1 > $T/instances/rsio/events/timer/enable
  echo 1 > $T/tracing_on
  for i in 1 2 3 4 5; do ls /proc > /dev/null; sleep 0.01; done
  echo 0 > $T/tracing_on; echo 0 > $T/instances/rsio/tracing_on
  trace-cmd extract -B rsio -t -o $W/raw.dat > /dev/null
"
"$IO_TOOL" strip "$W/raw.dat" "$W/stripped.dat" sched,irq,timer
trace-cmd convert -i "$W/stripped.dat" -o "$OUT/multi-v7-zstd.dat" --compression zstd
trace-cmd convert -i "$W/stripped.dat" -o "$OUT/multi-v7-none.dat" --compression none
trace-cmd convert -i "$W/stripped.dat" -o "$OUT/multi-v6.dat" --file-version 6
# The three files hold the same events: one report (they are identical, checked here).
trace-cmd report "$OUT/multi-v7-zstd.dat" > "$OUT/multi.report"
for f in multi-v7-zstd multi-v7-none multi-v6; do
  trace-cmd report "$OUT/$f.dat" | cmp - "$OUT/multi.report"
  for d in summary options flyrecord; do trace-cmd dump --$d -i "$OUT/$f.dat" > "$OUT/$f.dump-$d" 2>&1; done
done
