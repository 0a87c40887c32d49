#!/usr/bin/env bash
# Installs what ringscope needs to build and test (Debian 12 packages), then configures and builds
# into build/. Installs only what is missing. Usage: scripts/setup.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config xz-utils
  libboost-dev libboost-program-options-dev libyaml-cpp-dev libfmt-dev nlohmann-json3-dev
  zlib1g-dev libzstd-dev liblzma-dev libelf-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev clang
  # The reference tools: oracles for the differential tests, never linked into the product.
  trace-cmd libtraceevent-dev libtracefs-dev libtracecmd-dev libipt-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C build
