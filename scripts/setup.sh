#!/usr/bin/env bash
# Installs what ringscope needs to build and test (Debian 12 packages), then configures and builds
# into build/. Installs only what is missing. Usage: scripts/setup.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config xz-utils
  libboost-dev libboost-program-options-dev libyaml-cpp-dev libfmt-dev nlohmann-json3-dev
  zlib1g-dev libzstd-dev liblzma-dev libelf-dev libsqlite3-dev libcurl4-openssl-dev curl libre2-dev
  # x86 instruction decoding for `ipt flow` (plugin ipt).
  libzydis-dev
  libgtest-dev libgmock-dev libbenchmark-dev clang
  # The reference tools: oracles for the differential tests, never linked into the product.
  trace-cmd libtraceevent-dev libtracefs-dev libtracecmd-dev libipt-dev
  # protoc decodes convert's Perfetto traces in tests/perfetto (a decoder that is not ours).
  protobuf-compiler
  # The browser tests of `ringscope view`'s page (tests/browser): Debian's chromium driven headless
  # by playwright-core, an npm package pinned in tests/browser/package-lock.json (npm: below).
  chromium nodejs
)
# Debian's npm only where node came without one (a NodeSource nodejs bundles npm and conflicts).
command -v npm >/dev/null || packages+=(npm)
# The ClickHouse server for the export tests and benchmark (started by them, never as a service):
# optional, the export cluster test skips with a message where it cannot be installed.
optional=(clickhouse-server clickhouse-client)
is_missing() { ! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}"; do is_missing "$p" && missing+=("$p"); done
optional_missing=()
for p in "${optional[@]}"; do is_missing "$p" && optional_missing+=("$p"); done
if ((${#missing[@]} + ${#optional_missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ((${#optional_missing[@]})); then
  echo "setup: installing ${optional_missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${optional_missing[@]}" \
    >/dev/null || echo "setup: ${optional_missing[*]} could not be installed; the ClickHouse export tests will skip" >&2
fi

# playwright-core for tests/browser, exactly as locked; without node the browser tests skip.
if command -v npm >/dev/null && [ ! -d tests/browser/node_modules/playwright-core ]; then
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "setup: npm ci failed in tests/browser; the browser tests will skip" >&2
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C build
