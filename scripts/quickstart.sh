#!/usr/bin/env bash
# Quick start: set up, build, and run the main job (`ringscope report`) on the bundled sample trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/ringscope plugins
build/ringscope report tests/data/traces/basic.dat >build/basic.report
head -n 40 build/basic.report
echo "... $(wc -l <build/basic.report) lines in build/basic.report"
