#!/usr/bin/env bash
# `ringscope export` vs `ringscope report --format json | clickhouse-client ... FORMAT JSONEachRow`
# into the same local ClickHouse server, in one run, and the time of fleet-wide queries over a
# Distributed table of two servers (this machine, 127.0.0.1 and 127.0.0.2; started and removed here).
#   compare.sh path/to/ringscope FILE [RUNS]
# Prints events/s of both paths (median of RUNS, default 3) and their ratio, then query times.
set -euo pipefail
R=$(readlink -f "${1:?usage: compare.sh path/to/ringscope FILE [RUNS]}")
F=$(readlink -f "${2:?trace file}")
RUNS=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../tests/data
for tool in clickhouse-server clickhouse-client curl python3; do
  command -v "$tool" >/dev/null || { echo "compare.sh: $tool is not installed" >&2; exit 1; }
done
source "$here/../../tests/export/clickhouse_nodes.sh"
trap ch_stop_all EXIT
ch_init
ch_start 1 127.0.0.1
ch_start 2 127.0.0.2

now() { date +%s.%N; }
calc() { awk "BEGIN {print $*}"; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

events=$("$R" report --format json "$F" | wc -l)
: >"$CH_ROOT/export.times"
: >"$CH_ROOT/json.times"
for run in $(seq "$RUNS"); do
  db=bench$run
  t0=$(now)
  "$R" export -q --to "$(ch_url 1 "$db")" "$F"
  t1=$(now)
  calc "$t1 - $t0" >>"$CH_ROOT/export.times"
  [ "$(ch_query 1 "SELECT count() FROM $db.events")" = "$events" ] || { echo "export: wrong count" >&2; exit 1; }

  ch_query 1 "CREATE TABLE $db.json_events (source String, ts UInt64, cpu UInt32, pid Int32, comm String,
              system String, event String) ENGINE = MergeTree ORDER BY ts"
  t0=$(now)
  "$R" report --format json "$F" |
    clickhouse-client --host "${CH_ADDR[1]}" --port "${CH_TCP[1]}" --input_format_skip_unknown_fields=1 \
      --query "INSERT INTO $db.json_events FORMAT JSONEachRow"
  t1=$(now)
  calc "$t1 - $t0" >>"$CH_ROOT/json.times"
  [ "$(ch_query 1 "SELECT count() FROM $db.json_events")" = "$events" ] || { echo "json: wrong count" >&2; exit 1; }
done
export_s=$(median <"$CH_ROOT/export.times")
json_s=$(median <"$CH_ROOT/json.times")
size_mb=$(calc "$(stat -c %s "$F") / 1000000")
printf 'file %s: %.1f MB, %d events, %d runs (medians of wall time)\n' "$F" "$size_mb" "$events" "$RUNS"
printf '  ringscope export (Native, deflate)     %7.2f s  %10.0f events/s\n' "$export_s" "$(calc "$events / $export_s")"
printf '  report --format json | clickhouse-client JSONEachRow  %7.2f s  %10.0f events/s\n' "$json_s" \
  "$(calc "$events / $json_s")"
printf '  ratio %.2fx (export events/s over JSON events/s)\n' "$(calc "$json_s / $export_s")"
# What each path stores: export keeps every field (typed map), the JSON table only the 7 columns
# JSONEachRow on 18.16 can take from report's lines (the nested "fields" object is skipped).
stored() { ch_query 1 "SELECT sum(data_uncompressed_bytes) FROM system.parts WHERE active AND database = 'bench1' AND table = '$1'"; }
printf '  stored (uncompressed): export %.0f MB in 16 columns, JSON %.0f MB in 7 columns\n' \
  "$(calc "$(stored events) / 1000000")" "$(calc "$(stored json_events) / 1000000")"

# The fleet: FILE on node 1 (db bench1), the committed traces on node 2, a Distributed table over both.
"$R" export -q --to "$(ch_url 2 bench1)" "$data/traces/full.dat" "$data/traces/dropped.dat" \
  "$data/traces/basic.dat" "$data/kvm/kvm-extra.dat"
ch_query 1 "CREATE DATABASE IF NOT EXISTS rs"
ch_query 1 "CREATE TABLE rs.events_all AS bench1.events ENGINE = Distributed(ringscope, bench1, events, file_id)"
fleet_events=$(ch_query 1 "SELECT count() FROM rs.events_all")
time_query() { # NAME SQL: median wall time of RUNS runs
  local name=$1 sql=$2
  for _ in $(seq "$RUNS"); do
    curl -sS --fail -o /dev/null -w '%{time_total}\n' "http://${CH_ADDR[1]}:${CH_HTTP[1]}/" --data-binary "$sql"
  done | median | xargs printf "  %-44s %7.3f s\n" "$name"
}
echo "fleet: 2 servers, $fleet_events events in rs.events_all"
time_query "count per event name" "SELECT name, count() FROM rs.events_all GROUP BY name ORDER BY count() DESC"
time_query "KVM exits per reason" "SELECT field_ints[indexOf(field_names, 'exit_reason')] AS r, count()
  FROM rs.events_all WHERE name = 'kvm_exit' GROUP BY r"
time_query "wakeup latency per file (tests/export/*.sql)" "$(cat "$here/../../tests/export/wakeup_latency.sql")"
