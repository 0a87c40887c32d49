#!/usr/bin/env bash
# Usage: out_of_tree_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null

# Every installed ELF: RUNPATH entries absolute or $ORIGIN-based, none empty (the current directory).
checked=0
while IFS= read -r -d '' f; do
  [ "$(head -c4 "$f" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
  rp=$(readelf -d "$f" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]$/\2/p')
  [ -n "$rp" ] || continue
  checked=$((checked + 1))
  IFS=: read -r -a entries <<<"$rp:"
  [ "${rp: -1}" != ":" ] || { echo "$f: RUNPATH [$rp] ends with an empty entry" >&2; exit 1; }
  for e in "${entries[@]}"; do
    case "$e" in
      /* | '$ORIGIN'* | '${ORIGIN}'*) ;;
      *) echo "$f: RUNPATH [$rp] has the entry '$e'" >&2; exit 1 ;;
    esac
  done
done < <(find "$tmp/prefix" -type f -print0)
[ "$checked" -gt 0 ] || { echo "no installed ELF has a RUNPATH" >&2; exit 1; }
cmake -S "$src/sdk/examples/vendor-decoder" -B "$tmp/vendor" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/vendor" >/dev/null
test -f "$tmp/vendor/vendor_decoder.so"

rs="$tmp/prefix/bin/ringscope"
# The installed binary finds its own plugins and the vendor one from --plugin-dir.
"$rs" --plugin-dir "$tmp/vendor" plugins >"$tmp/plugins.txt"
grep -q '^vendor-decoder 1.0.0 ' "$tmp/plugins.txt"
grep -q '  decoder   vendor-vtr' "$tmp/plugins.txt"
grep -q '  handler   vendor-counter: vendor/\*' "$tmp/plugins.txt"

"$rs" --plugin-dir "$tmp/vendor" report "$src/sdk/examples/vendor-decoder/sample.vtr" >"$tmp/report.txt"
diff -u "$src/tests/sdk/vendor-sample.report" "$tmp/report.txt"
echo "out-of-tree plugin: ok"
