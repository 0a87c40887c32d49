#!/bin/bash
# Writes the oracle outputs next to the captures: expected/NAME.dump (dump-pages lines from
# libtraceevent's kbuffer) and expected/NAME.kbuffer_read (the man-page example built against
# libtraceevent). The oracles are built by tests/ringbuffer (tests/oracles/kbuffer/*.c) when
# pkg-config finds libtraceevent.
# Usage: make_expected.sh BUILD_DIR
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ORACLES=$1/tests/oracles
mkdir -p "$DIR/expected"
for raw in "$DIR"/*.raw; do
    name=$(basename "$raw" .raw)
    size=4096
    [[ $name == subbuf8k ]] && size=8192
    "$ORACLES/kbuffer_dump_oracle" "$raw" "$size" > "$DIR/expected/$name.dump"
    "$ORACLES/kbuffer_read_oracle" "$raw" > "$DIR/expected/$name.kbuffer_read"
done
ls -l "$DIR/expected"
