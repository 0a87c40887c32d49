#!/usr/bin/env bash
# `ringscope export` against a two-node ClickHouse cluster on this machine: two servers on 127.0.0.1
# and 127.0.0.2 (own ports and data folders), a Distributed table over their `events` tables, traces
# exported sharded by file. SQL over the cluster must give ringscope's own numbers on the same files:
# event counts per name, KVM exit counts per reason, wakeup latency count/min/max/mean (exact) and
# percentiles (within the sketch's bound). Also: a re-export adds nothing, an interrupted export
# re-run ends with every event once, a server that is down or answers 503 is retried then reported.
# Usage: cluster_test.sh RINGSCOPE_BINARY TEST_DATA_DIR. Exit 77 (skip) without clickhouse-server.
set -euo pipefail
ringscope=$1
data=$2
here=$(cd "$(dirname "$0")" && pwd)

for tool in clickhouse-server curl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (apt-get install clickhouse-server clickhouse-client curl)"
    exit 77
  fi
done

source "$here/clickhouse_nodes.sh"
trap ch_stop_all EXIT
trap 'exit 1' INT TERM
ch_init
ch_start 1 127.0.0.1
ch_start 2 127.0.0.2
work=$CH_ROOT/work
mkdir -p "$work"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
check_eq() {  # WHAT EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    fail "$1: expected '$2', got '$3'"
    return 0
  fi
  echo "ok: $1 ($3)"
}

node1_files=("$data/traces/basic.dat" "$data/kvm/kvm-extra.dat" "$data/traces/formats-zstd.dat")
node2_files=("$data/traces/full.dat" "$data/traces/dropped.dat")

# -- export, sharded by file; node 2's first file is interrupted after 3 batches, then redone ----
"$ringscope" export -q --to "$(ch_url 1 rs)" -j 2 --batch-rows 500 "${node1_files[@]}"
set +e
RINGSCOPE_EXPORT_FAIL_AFTER_BATCHES=3 "$ringscope" export -q --to "$(ch_url 2 rs)" --batch-rows 1000 \
  "${node2_files[0]}" 2>"$work/interrupted.err"
rc=$?
set -e
check_eq "interrupted export exits non-zero" 1 "$rc"
check_eq "interrupted export left 3 batches" 3000 \
  "$(ch_query 2 "SELECT count() FROM rs.events")"
check_eq "interrupted export wrote no files row" 0 "$(ch_query 2 "SELECT count() FROM rs.files")"
"$ringscope" export -q --to "$(ch_url 2 rs)" --batch-rows 1000 "${node2_files[@]}"

ch_query 1 "CREATE TABLE rs.events_all AS rs.events ENGINE = Distributed(ringscope, rs, events, file_id)"
ch_query 1 "CREATE TABLE rs.files_all AS rs.files ENGINE = Distributed(ringscope, rs, files, file_id)"

# -- re-export adds nothing ------------------------------------------------------------------------
before=$(ch_query 1 "SELECT count() FROM rs.events_all")
"$ringscope" export --to "$(ch_url 1 rs)" "${node1_files[0]}" >"$work/again.out"
"$ringscope" export --to "$(ch_url 2 rs)" "${node2_files[@]}" >>"$work/again.out"
check_eq "re-export reports already exported" 3 "$(grep -c ': already exported' "$work/again.out")"
check_eq "re-export adds no event" "$before" "$(ch_query 1 "SELECT count() FROM rs.events_all")"
check_eq "one files row per file" "5 5" "$(ch_query 1 "SELECT count(), uniqExact(file_id) FROM rs.files_all" | tr '\t' ' ')"
check_eq "files rows count the events" "$before" "$(ch_query 1 "SELECT sum(events) FROM rs.files_all")"

# -- the numbers: SQL over the cluster vs ringscope's own analyses ------------------------------
all_files=("${node1_files[@]}" "${node2_files[@]}")
for f in "${all_files[@]}"; do
  "$ringscope" report --format json "$f" >"$work/$(basename "$f").report.json"
done
ch_query 1 "SELECT file, name, count() FROM rs.events_all GROUP BY file, name ORDER BY file, name" \
  >"$work/sql_counts.tsv"
python3 - "$work" "$work/sql_counts.tsv" "${all_files[@]}" <<'PY' || fail "event counts per name differ"
import collections, json, os, sys
work, sql = sys.argv[1], sys.argv[2]
want = collections.Counter()
for f in sys.argv[3:]:
    with open(os.path.join(work, os.path.basename(f) + ".report.json")) as fh:
        for line in fh:
            want[(f, json.loads(line)["event"])] += 1
got = collections.Counter()
for line in open(sql):
    f, name, n = line.rstrip("\n").split("\t")
    got[(f, name)] = int(n)
if want != got:
    for k in sorted(set(want) | set(got)):
        if want[k] != got[k]: print("  ", k, "report", want[k], "sql", got[k])
    sys.exit(1)
print(f"ok: event counts per file and name ({len(want)} pairs, {sum(want.values())} events)")
PY

# Every event's columns and fields, one by one, against report's JSON of the same file.
for f in "${node2_files[1]}" "${node1_files[1]}"; do
  ch_query 1 "SELECT seq, ts_ns, cpu, pid, comm, system, name, field_names, field_ints, str_names, str_values,
                     arr_names, arr_values
              FROM rs.events_all WHERE file = '$f' ORDER BY seq FORMAT JSONEachRow" >"$work/rows.json"
  python3 - "$work/$(basename "$f").report.json" "$work/rows.json" <<'PY' || fail "rows of $f differ from report"
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
# ClickHouse sends string bytes as they are; report writes a byte that is not UTF-8 as the text \xHH.
got = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8", errors="surrogateescape")]
def text(v):
    return "".join("\\x%02x" % (ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff else c for c in v)
if len(want) != len(got):
    print("   rows:", len(want), "in report,", len(got), "in ClickHouse"); sys.exit(1)
for i, (w, g) in enumerate(zip(want, got)):
    problems = []
    if int(g["seq"]) != i: problems.append("seq")
    for a, b in (("ts", "ts_ns"), ("cpu", "cpu"), ("pid", "pid"), ("comm", "comm"), ("system", "system"), ("event", "name")):
        wv, gv = w[a], g[b]
        gv = int(gv) if isinstance(wv, int) else text(gv)
        if wv != gv: problems.append(f"{a}: {wv!r} vs {gv!r}")
    f = w["fields"]
    for n, v in zip(g["field_names"], g["field_ints"]):
        if f.get(n) is None or (int(v) - f[n]) % (1 << 64) != 0: problems.append(f"{n}: {f.get(n)} vs {v}")
    for n, v in zip(g["str_names"], g["str_values"]):
        if f.get(n) != text(v): problems.append(f"{n}: {f.get(n)!r} vs {v!r}")
    for n, v in zip(g["arr_names"], g["arr_values"]):
        if [x % (1 << 64) for x in f.get(n, [None])] != [int(x) % (1 << 64) for x in v]: problems.append(f"{n}: {f.get(n)} vs {v}")
    exported = set(g["field_names"]) | set(g["str_names"]) | set(g["arr_names"])
    missing = [n for n in f if not n.startswith("common_") and n not in exported]
    if missing: problems.append(f"fields not exported: {missing}")
    if problems:
        print(f"   event {i}: " + "; ".join(problems[:5])); sys.exit(1)
print(f"ok: {len(want)} events of {sys.argv[1].split('/')[-1][:-12]} match report field by field")
PY
done

kvm_file=${node1_files[1]}
"$ringscope" kvm exits --format json "$kvm_file" >"$work/kvm.json"
ch_query 1 "SELECT if(indexOf(field_names, 'isa') > 0, field_ints[indexOf(field_names, 'isa')], 1) AS isa,
                   bitAnd(field_ints[indexOf(field_names, 'exit_reason')], 4294967295) AS code, count()
            FROM rs.events_all
            WHERE file = '$kvm_file' AND system = 'kvm' AND name = 'kvm_exit' AND has(field_names, 'exit_reason')
            GROUP BY isa, code ORDER BY isa, code" >"$work/sql_kvm.tsv"
python3 - "$work/kvm.json" "$work/sql_kvm.tsv" <<'PY' || fail "KVM exit counts per reason differ"
import json, sys
doc = json.load(open(sys.argv[1]))
isa_code = {"VMX": 1, "SVM": 2}
want = {(isa_code.get(r["isa"], r["isa"]), r["exit_code"]): r["count"] for r in doc["kvm.exits.reasons"]}
got = {}
for line in open(sys.argv[2]):
    isa, code, n = map(int, line.split("\t"))
    got[(isa, code)] = n
if not want or want != got:
    print("   kvm exits:", want, "sql:", got)
    sys.exit(1)
print(f"ok: KVM exit counts per reason ({len(want)} reasons, {sum(want.values())} exits)")
PY

# Wakeup latency (the SQL says how it matches LatencyAnalysis).
ch_query 1 "$(cat "$here/wakeup_latency.sql")" >"$work/sql_latency.tsv"
lat_files=("$data/traces/basic.dat" "$data/traces/full.dat" "$data/traces/dropped.dat")
for f in "${lat_files[@]}"; do
  "$ringscope" sched latency --format json "$f" >"$work/$(basename "$f").latency.json"
done
python3 - "$work" "$work/sql_latency.tsv" "${lat_files[@]}" <<'PY' || fail "wakeup latencies differ"
import json, os, sys
work, sql = sys.argv[1], sys.argv[2]
rows = {}
for line in open(sql):
    c = line.rstrip("\n").split("\t")
    rows[c[0]] = c
bad = 0
for f in sys.argv[3:]:
    doc = json.load(open(os.path.join(work, os.path.basename(f) + ".latency.json")))
    o, err = doc["overall"], doc["percentile_relative_error"]
    if o["count"] == 0:
        print("   no latencies in", f); bad += 1; continue
    r = rows.get(f)
    if r is None:
        print("   no SQL latency row for", f); bad += 1; continue
    n, mn, mx, total = int(r[1]), int(r[2]), int(r[3]), int(r[4])
    exact = {"count": (o["count"], n), "min_ns": (o["min_ns"], mn), "max_ns": (o["max_ns"], mx)}
    for k, (want, got) in exact.items():
        if want != got: print(f"   {f} {k}: ringscope {want}, sql {got}"); bad += 1
    if abs(o["mean_ns"] - total / n) > 1e-6 * max(1.0, total / n):
        print(f"   {f} mean: ringscope {o['mean_ns']}, sql {total / n}"); bad += 1
    for k, col in (("p50_ns", 5), ("p90_ns", 6), ("p99_ns", 7)):
        q = int(r[col])
        if abs(o[k] - q) > err * q + 1:
            print(f"   {f} {k}: sketch {o[k]}, exact {q}, bound {err}"); bad += 1
    if not bad:
        print(f"ok: latency {os.path.basename(f)} count {n} min {mn} max {mx} p50 {o['p50_ns']}~{r[5]} p99 {o['p99_ns']}~{r[7]}")
sys.exit(1 if bad else 0)
PY

# -- servers that are down or failing: retried with back-off, then a clear error ---------------
down_port=$(ch_free_port)
set +e
"$ringscope" export -q --retries 2 --to "clickhouse://127.0.0.1:$down_port/rs" "${node1_files[0]}" \
  2>"$work/down.err"
rc=$?
set -e
check_eq "server down: exit code" 1 "$rc"
grep -q "retry 2/2" "$work/down.err" || fail "server down: no retries reported: $(cat "$work/down.err")"
grep -q "gave up after 3 attempts" "$work/down.err" || fail "server down: no final error: $(cat "$work/down.err")"

# A helper server in the background: prints its port first. Sets helper_pid and helper_port.
start_helper() {
  local out=$work/helper.$RANDOM
  "$@" >"$out" &
  helper_pid=$!
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
  helper_port=$(head -1 "$out")
}
stop_helper() {
  kill "$helper_pid" 2>/dev/null || true
  wait "$helper_pid" 2>/dev/null || true
}
trap 'stop_helper; ch_stop_all' EXIT
helper_pid=

start_helper python3 -c '
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(503); self.end_headers(); self.wfile.write(b"overloaded\n")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()'
set +e
"$ringscope" export -q --retries 1 --to "clickhouse://127.0.0.1:$helper_port/rs" "${node1_files[0]}" 2>"$work/503.err"
rc=$?
set -e
stop_helper
check_eq "server answering 503: exit code" 1 "$rc"
grep -q "HTTP 503: overloaded; retry 1/1" "$work/503.err" || fail "503: no retry reported: $(cat "$work/503.err")"
grep -q "gave up after 2 attempts" "$work/503.err" || fail "503: no final error: $(cat "$work/503.err")"

# Credentials: HTTP basic auth from --user and --password-file; a wrong password fails at once.
printf '%s\n' "$CH_WRITER_PASSWORD" >"$work/password"
printf 'not-the-password\n' >"$work/wrong-password"
set +e
"$ringscope" export -q --user writer --password-file "$work/password" --to "$(ch_url 1 authdb)" \
  "${node1_files[0]}" 2>"$work/auth.err"
rc_auth=$?
"$ringscope" export -q --user writer --password-file "$work/wrong-password" --to "$(ch_url 1 authdb2)" \
  "${node1_files[0]}" 2>"$work/wrong-auth.err"
rc_wrong=$?
set -e
check_eq "right password: export succeeds" 0 "$rc_auth"
check_eq "right password: events stored" "$(ch_query 1 "SELECT count() FROM rs.events_all WHERE file = '${node1_files[0]}'")" \
  "$(ch_query 1 "SELECT count() FROM authdb.events")"
check_eq "wrong password: exit code" 1 "$rc_wrong"
check_eq "wrong password: HTTP 401 without retries" "1 0" \
  "$(grep -c "HTTP 401" "$work/wrong-auth.err") $(grep -c "retry" "$work/wrong-auth.err")"

# Bad input: one line naming the file, exit 1; a bad command line: exit 2.
head -c 4096 /dev/urandom >"$work/garbage.dat"
set +e
"$ringscope" export -q --to "$(ch_url 1 rs)" "$work/garbage.dat" 2>"$work/garbage.err"
rc_garbage=$?
"$ringscope" export -q --to "$(ch_url 1 rs)" "$work/missing.dat" 2>"$work/missing.err"
rc_missing=$?
"$ringscope" export -q --to "http://127.0.0.1:1/rs" "${node1_files[0]}" 2>"$work/usage.err"
rc_usage=$?
set -e
check_eq "garbage file: exit code" 1 "$rc_garbage"
check_eq "garbage file: one line naming the file" 1 "$(grep -c "garbage.dat" "$work/garbage.err")"
check_eq "missing file: exit code" 1 "$rc_missing"
check_eq "missing file: one line naming the file" 1 "$(grep -c "missing.dat" "$work/missing.err")"
check_eq "not a clickhouse:// URL: exit code" 2 "$rc_usage"

# A batch whose answer is lost after it landed is not sent twice; a refused batch is sent again.
start_helper python3 "$here/flaky_proxy.py" "http://${CH_ADDR[2]}:${CH_HTTP[2]}" LOST=2 REFUSED=4
set +e
"$ringscope" export -q --batch-rows 200 --to "clickhouse://127.0.0.1:$helper_port/flaky" "${node1_files[0]}" \
  2>"$work/flaky.err"
rc=$?
set -e
stop_helper
check_eq "flaky server: export succeeds" 0 "$rc"
[ "$rc" = 0 ] || cat "$work/flaky.err" >&2
check_eq "flaky server: two retries reported" 2 "$(grep -c "; retry 1/" "$work/flaky.err")"
check_eq "flaky server: every event once" "$(ch_query 1 "SELECT count() FROM rs.events_all WHERE file = '${node1_files[0]}'")" \
  "$(ch_query 2 "SELECT count() FROM flaky.events")"
check_eq "flaky server: no seq twice" "$(ch_query 2 "SELECT count() FROM flaky.events")" \
  "$(ch_query 2 "SELECT uniqExact(seq) FROM flaky.events")"

# A server that takes a batch and then says nothing: the read timeout ends the request, and the
# failed file leaves no rows (the batch before it had landed). A 400 is not retried.
start_helper python3 "$here/flaky_proxy.py" "http://${CH_ADDR[2]}:${CH_HTTP[2]}" STALL=2
set +e
start=$(date +%s)
timeout 120 "$ringscope" export -q --batch-rows 200 --connections 1 --retries 0 --read-timeout 1 \
  --to "clickhouse://127.0.0.1:$helper_port/stall" "${node1_files[0]}" 2>"$work/stall.err"
rc=$?
set -e
elapsed=$(($(date +%s) - start))
stop_helper
check_eq "stalling server: exit code (not the timeout's 124)" 1 "$rc"
[ "$elapsed" -le 30 ] || fail "stalling server: took ${elapsed} s"
grep -q "no byte from the server for 1 s (--read-timeout)" "$work/stall.err" || fail "stalling server: no timeout named: $(cat "$work/stall.err")"
grep -q "its rows were removed (partition dropped)" "$work/stall.err" ||
  fail "stalling server: removal not said: $(cat "$work/stall.err")"
check_eq "stalling server: no rows of the failed file" 0 "$(ch_query 2 "SELECT count() FROM stall.events")"
check_eq "stalling server: no files row" 0 "$(ch_query 2 "SELECT count() FROM stall.files")"

# export_through_proxy DB PROXY_ARG: one file exported through flaky_proxy.py into DB on node 2;
# sets rc, stderr in $work/DB.err.
export_through_proxy() {
  start_helper python3 "$here/flaky_proxy.py" "http://${CH_ADDR[2]}:${CH_HTTP[2]}" "$2"
  set +e
  "$ringscope" export -q --batch-rows 200 --connections 1 --to "clickhouse://127.0.0.1:$helper_port/$1" \
    "${node1_files[0]}" 2>"$work/$1.err"
  rc=$?
  set -e
  stop_helper
}
export_through_proxy bad BAD=3
check_eq "HTTP 400: exit code" 1 "$rc"
check_eq "HTTP 400: not retried" "1 0" "$(grep -c "HTTP 400" "$work/bad.err") $(grep -c "; retry" "$work/bad.err")"
check_eq "HTTP 400: no rows of the failed file" 0 "$(ch_query 2 "SELECT count() FROM bad.events")"

# ClickHouse answers 500 for most exceptions: a deterministic one (a type mismatch) is not retried,
# a passing one (the memory limit of the moment) is.
export_through_proxy fail500 FAIL500=2
check_eq "HTTP 500 TYPE_MISMATCH: exit code" 1 "$rc"
check_eq "HTTP 500 TYPE_MISMATCH: not retried" "1 0" \
  "$(grep -c "HTTP 500: Code: 53" "$work/fail500.err") $(grep -c "; retry" "$work/fail500.err")"
export_through_proxy busy500 BUSY500=2
check_eq "HTTP 500 MEMORY_LIMIT_EXCEEDED: retried and succeeds" 0 "$rc"
check_eq "HTTP 500 MEMORY_LIMIT_EXCEEDED: one retry" 1 "$(grep -c "HTTP 500: Code: 241.*; retry 1/" "$work/busy500.err")"
check_eq "HTTP 500 MEMORY_LIMIT_EXCEEDED: every event once" \
  "$(ch_query 1 "SELECT count() FROM rs.events_all WHERE file = '${node1_files[0]}'")" \
  "$(ch_query 2 "SELECT count() FROM busy500.events")"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all export cluster checks passed"
