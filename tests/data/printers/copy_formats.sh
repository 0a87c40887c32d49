#!/bin/sh
# Copies the format files of the events the printer plugins handle (and that tests/data/formats does
# not already hold) from this machine's tracefs into formats/SYSTEM/NAME/format. Run as root.
set -eu
T=${TRACEFS:-/sys/kernel/tracing}/events
D=$(dirname "$0")/formats
for e in \
  kmem/kmem_cache_alloc kmem/kmem_cache_free timer/hrtimer_expire_entry tlb/tlb_flush \
  syscalls/sys_enter_futex jbd2/jbd2_run_stats jbd2/jbd2_checkpoint_stats
do
  if [ -r "$T/$e/format" ]; then
    mkdir -p "$D/$e"
    cat "$T/$e/format" > "$D/$e/format"
  fi
done
