#!/usr/bin/env bash
# Builds sqlite-vec (the third-party vector-search extension the extension tests use, from the
# source of the sqlite-vec crate that Cargo.toml names as a dev-dependency) in the loadable
# style, against the bundled SQLite's sqlite3ext.h, into $1 (default build/ext):
#
#   libsqlite_vec.a   for static linking: a program hands sqlite3_vec_init to
#                     sqlbatch_conn_init_extension (or sqlbatch_auto_extension), which gives it
#                     SQLite's API routines; it calls SQLite only through them, so it links
#                     beside libsqlbatch.a, whose SQLite symbols are hidden
#   vec0.so           the same object as a shared library, for sqlbatch_conn_load_extension
#
# (The crate itself compiles it with SQLITE_CORE, calling sqlite3_* by name: that suits a Rust
# program linking libsqlite3-sys, not a Go or Haskell one linking libsqlbatch.) Both outputs are
# rebuilt only when missing. Used by the Go and Haskell bindings' tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/ext}
[ -f "$out/libsqlite_vec.a" ] && [ -f "$out/vec0.so" ] && exit 0
mkdir -p "$out"
read -r vec_dir sqlite_dir < <(cd "$root" && cargo metadata --format-version 1 2>/dev/null | python3 -c '
import json, os, sys
m = json.load(sys.stdin)
d = {p["name"]: os.path.dirname(p["manifest_path"]) for p in m["packages"]}
print(d["sqlite-vec"], os.path.join(d["libsqlite3-sys"], "sqlite3"))')
[ -f "$vec_dir/sqlite-vec.c" ] && [ -f "$sqlite_dir/sqlite3ext.h" ] || {
  echo "$0: no sqlite-vec source or bundled sqlite3ext.h (cargo fetch first?)" >&2; exit 1; }
# A copy, so that "sqlite3ext.h" is the bundled SQLite's and not the older one beside the source.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$vec_dir/sqlite-vec.c" "$vec_dir/sqlite-vec.h" "$tmp/"
${CC:-cc} -O2 -fPIC -w -I"$sqlite_dir" -c "$tmp/sqlite-vec.c" -o "$tmp/sqlite-vec.o"
ar rcs "$tmp/libsqlite_vec.a" "$tmp/sqlite-vec.o"
${CC:-cc} -shared -o "$tmp/vec0.so" "$tmp/sqlite-vec.o" -lm
mv -f "$tmp/libsqlite_vec.a" "$tmp/vec0.so" "$out/"
