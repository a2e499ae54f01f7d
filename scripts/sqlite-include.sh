#!/usr/bin/env bash
# Prints the directory of the sqlite3.h bundled with the libsqlite3-sys that libsqlbatch is
# built with (the benchmarks' native C loops compile against it, and the Haskell benchmark's).
# It asks `cargo metadata` (not --offline: metadata resolves every target's dependencies,
# which on a fresh machine a build for this one never downloaded), and, if that fails, looks
# in cargo's registry for the version Cargo.lock names.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=$(cargo metadata --format-version 1 2>/dev/null | python3 -c '
import json, os, sys
m = json.load(sys.stdin)
print(next(os.path.dirname(p["manifest_path"]) for p in m["packages"] if p["name"] == "libsqlite3-sys"))' 2>/dev/null)/sqlite3 || true
if [ ! -f "$dir/sqlite3.h" ]; then
  version=$(sed -n '/name = "libsqlite3-sys"/{n;s/version = "\(.*\)"/\1/p}' Cargo.lock)
  dir=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"libsqlite3-sys-$version"/sqlite3 2>/dev/null | sort | tail -n1)
fi
[ -f "$dir/sqlite3.h" ] || { echo "$0: cannot find libsqlite3-sys's sqlite3.h (cargo metadata, cargo's registry)" >&2; exit 1; }
echo "$dir"
