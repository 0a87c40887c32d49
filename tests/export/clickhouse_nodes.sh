# Starts and stops throwaway ClickHouse servers for the export tests and benchmark (sourced, bash).
# Each node runs as the current user from generated configs under $CH_ROOT: its own loopback address,
# ports and data folder, no system service. Every node knows the two-shard cluster `ringscope`.
#   ch_init              creates $CH_ROOT (mktemp) and picks free ports; call once
#   ch_start N ADDR      starts node N (1 or 2) on ADDR (127.0.0.1, 127.0.0.2) and waits for it
#   ch_query N SQL       runs SQL on node N over HTTP, prints the answer (TabSeparated)
#   ch_stop_all          stops every node started here and removes $CH_ROOT
# Users: `default` without a password, `writer` with the password $CH_WRITER_PASSWORD.

CH_SERVER=${CH_SERVER:-$(command -v clickhouse-server || true)}
CH_WRITER_PASSWORD=${CH_WRITER_PASSWORD:-export-test-pw}
CH_PIDS=()
CH_ADDR=()
CH_HTTP=()
CH_TCP=()

ch_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

ch_init() {
  CH_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/ringscope-ch.XXXXXX")
  local n
  for n in 1 2; do
    CH_HTTP[$n]=$(ch_free_port)
    CH_TCP[$n]=$(ch_free_port)
  done
  CH_ADDR[1]=127.0.0.1
  CH_ADDR[2]=127.0.0.2
}

ch_write_config() {
  local n=$1 dir=$CH_ROOT/node$1
  mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/log"
  cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/log/server.log</log><errorlog>$dir/log/error.log</errorlog></logger>
  <listen_host>${CH_ADDR[$n]}</listen_host>
  <http_port>${CH_HTTP[$n]}</http_port>
  <tcp_port>${CH_TCP[$n]}</tcp_port>
  <interserver_http_port>$(ch_free_port)</interserver_http_port>
  <interserver_http_host>${CH_ADDR[$n]}</interserver_http_host>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <remote_servers>
    <ringscope>
      <shard><replica><host>${CH_ADDR[1]}</host><port>${CH_TCP[1]}</port></replica></shard>
      <shard><replica><host>${CH_ADDR[2]}</host><port>${CH_TCP[2]}</port></replica></shard>
    </ringscope>
  </remote_servers>
</yandex>
XML
  cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.0/8</ip></networks>
      <profile>default</profile><quota>default</quota></default>
    <writer><password>$CH_WRITER_PASSWORD</password><networks><ip>127.0.0.0/8</ip></networks>
      <profile>default</profile><quota>default</quota></writer>
  </users>
  <quotas><default></default></quotas>
</yandex>
XML
}

ch_start() {
  local n=$1
  [ -n "${2:-}" ] && CH_ADDR[$n]=$2
  ch_write_config "$n"
  "$CH_SERVER" --config-file="$CH_ROOT/node$n/config.xml" >"$CH_ROOT/node$n/log/stdout.log" 2>&1 &
  CH_PIDS[$n]=$!
  local i
  for i in $(seq 1 150); do
    if curl -sf "http://${CH_ADDR[$n]}:${CH_HTTP[$n]}/ping" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "${CH_PIDS[$n]}" 2>/dev/null; then break; fi
    sleep 0.2
  done
  echo "clickhouse node $n did not start; its log:" >&2
  tail -20 "$CH_ROOT/node$n/log/stdout.log" "$CH_ROOT/node$n/log/error.log" >&2 2>/dev/null
  return 1
}

ch_url() { echo "clickhouse://${CH_ADDR[$1]}:${CH_HTTP[$1]}/${2:-default}"; }

ch_query() {
  local n=$1
  shift
  curl -sS --fail-with-body "http://${CH_ADDR[$n]}:${CH_HTTP[$n]}/" --data-binary "$*"
}

ch_stop_node() {
  local n=$1 pid=${CH_PIDS[$1]:-}
  [ -z "$pid" ] && return 0
  kill "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  CH_PIDS[$n]=
}

ch_stop_all() {
  local n
  for n in "${!CH_PIDS[@]}"; do ch_stop_node "$n"; done
  [ -n "${CH_ROOT:-}" ] && [ -d "$CH_ROOT" ] && rm -rf "$CH_ROOT"
  CH_ROOT=
}
