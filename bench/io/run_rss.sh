#!/bin/sh
# Peak RSS of walking large trace.dat files with CpuPageReader (one decompressed chunk per CPU):
#   sh bench/io/run_rss.sh BUILD_DIR [GIB] [DIR]
# Writes DIR/ringscope-large-{zstd,none}.dat (GIB GiB of ring-buffer data each, default 4), walks
# them forwards and backwards in fresh processes, and removes them.
set -eu
B=${1:?build dir}; G=${2:-4}; D=${3:-/tmp}
T=$B/bench/io_rss_large
for c in zstd none; do
  f=$D/ringscope-large-$c.dat
  "$T" make "$f" "$G" "$c"
  ls -l "$f"
  "$T" walk "$f"
  "$T" walk "$f" reverse
  rm -f "$f"
done
