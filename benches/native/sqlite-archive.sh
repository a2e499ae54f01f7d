#!/usr/bin/env bash
# Puts the SQLite that libsqlbatch is built with at build/native/libsqlite3.a (or at $1), for
# the native C baseline (native_loop.c) of every benchmark: libsqlbatch.a makes its SQLite
# local after `make lib` (scripts/hide-symbols.sh), so the native loop cannot link it from
# there, and it must not link any other SQLite build.
#
# The archive is libsqlite3-sys's own libsqlite3.a: the one sqlite3.o it compiled from its
# bundled amalgamation with its -D flags and cargo's -O level, which rustc put into
# libsqlbatch.a unchanged. When target/release/build holds one libsqlite3-sys build, that is
# it; when it holds several, cargo is asked which one the current `cargo build --release
# --lib` uses (its build-script-executed message).
# When libsqlbatch.a still has its members (before hide-symbols), the script checks that its
# SQLite member is byte for byte the archive's object.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$root/build/native/libsqlite3.a}
cd "$root"
candidates=(target/release/build/libsqlite3-sys-*/out/libsqlite3.a)
if [ ${#candidates[@]} -eq 1 ] && [ -f "${candidates[0]}" ]; then
  out_dir=$(dirname "${candidates[0]}")
else
  asked_cargo=1
  out_dir=$(cargo build --release --lib --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "build-script-executed" and "libsqlite3-sys" in m["package_id"]:
        print(m["out_dir"])')
fi
src=$out_dir/libsqlite3.a
[ -n "$out_dir" ] && [ -f "$src" ] || { echo "$0: cargo names no libsqlite3-sys build with a libsqlite3.a (got '$out_dir')" >&2; exit 1; }

lib=target/release/libsqlbatch.a
member=$(ar t "$src" | grep 'sqlite3\.o$' | head -n1)
if [ -f "$lib" ] && ar t "$lib" | grep -qx "$member"; then
  if ! cmp -s <(ar p "$src" "$member") <(ar p "$lib" "$member"); then
    echo "$0: $member in $lib differs from $src" >&2; exit 1
  fi
fi
# Asking cargo above put the unprocessed archive back: hide its symbols again (cheap: the
# script keeps its last result), so that what `make lib` made stays true.
if [ -n "${asked_cargo:-}" ]; then
  "$root/scripts/hide-symbols.sh" "$lib"
fi
mkdir -p "$(dirname "$dest")"
if ! cmp -s "$src" "$dest"; then
  cp "$src" "$dest.tmp" && mv -f "$dest.tmp" "$dest"
  echo "sqlite-archive: $dest <- $src"
fi
