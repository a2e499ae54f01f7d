#!/usr/bin/env bash
# Makes a static library "link beside anything": after it, the archive defines no global
# symbol but sqlbatch_*. SQLite's sqlite3_*, Rust's std, core, alloc, compiler_builtins
# (which defines weak copies of libm's sqrt, fmod, floor...), rust_eh_personality and the
# allocator shims become local, so that one program can also link the system's libsqlite3,
# mattn/go-sqlite3 or another Rust static library, each with its own copies.
#
#   scripts/hide-symbols.sh ARCHIVE OUT   write the processed archive to OUT (what `make lib`
#                                         does: cargo's target/release/libsqlbatch.a to
#                                         build/lib/libsqlbatch.a, a path cargo never writes)
#   scripts/hide-symbols.sh [ARCHIVE]     process ARCHIVE in place (default
#                                         target/release/libsqlbatch.a)
#   scripts/hide-symbols.sh --check ARCHIVE   exit 1 (and list them) if it has other globals
#
# How: the members become one relocatable object (ld -r --whole-archive), so that the calls
# between them are resolved inside it; then objcopy --keep-global-symbols makes every other
# defined symbol local (undefined ones, libc's, stay global), and the archive is that one
# object. On the way:
#   - .llvmbc/.llvmcmd (the LLVM bitcode that rustc embeds for LTO, about 10 MB; GNU nm's
#     LTO plugin chokes on it and lists no symbols at all) are removed first;
#   - --force-group-allocation dissolves the COMDAT groups (DW.ref.rust_eh_personality):
#     a group whose signature is now a local symbol would still be deduplicated by name
#     against another Rust library's group, leaving our unwind tables pointing at a
#     discarded section;
#   - -d allocates common symbols (OpenSSL's OPENSSL_ia32cap_P in the encrypted build), which
#     objcopy cannot make local while they are common;
#   - .init_array (std's argv hook) and the TLS of std (thread ids, CURRENT) are kept as
#     they are: ld -r keeps the sections, and local TLS symbols are fine in a static link;
#   - debug info is kept (target/release is what the benches profile and valgrind reports);
#     `make install` installs a copy without it (strip --strip-debug).
# With OUT: OUT is rewritten only when ARCHIVE's content changed (its sha256 is kept beside
# OUT, in .libsqlbatch.a.input), atomically (a temporary file in OUT's directory, then mv).
# In place: idempotent and cheap: an archive with no global but sqlbatch_* is left alone,
# whatever its age (cargo puts the unprocessed archive back at target/release/libsqlbatch.a,
# a hard link of deps/libsqlbatch-*.a, on every `cargo build`, even when nothing was rebuilt,
# and in `cargo test --release`, so a stamp file would lie). The result of the last run is kept
# beside it (.libsqlbatch.a.hidden, with the sha256 of its input), so that putting it back
# costs a checksum rather than a link; the new archive keeps the input's modification time
# (make does not see a change when cargo rebuilt nothing), and replaces the old one
# atomically (a temporary file in the same directory, then mv).
set -euo pipefail

# Global (or weak, or unique) defined symbols of an object or archive, one per line.
# readelf, not nm: GNU nm hands objects with an .llvmbc section to the LLVM plugin, which
# fails on a newer LLVM's bitcode and then reports "no symbols".
globals() {
  readelf -sW "$1" | awk '($5 == "GLOBAL" || $5 == "WEAK" || $5 == "UNIQUE") && $7 != "UND" && NF >= 8 { sub(/@.*/, "", $8); print $8 }' | sort -u
}
foreign_globals() { globals "$1" | grep -v '^sqlbatch_' || true; }

if [ "${1:-}" = "--check" ]; then
  a=${2:?usage: $0 --check ARCHIVE}
  n_own=$(globals "$a" | grep -c '^sqlbatch_' || true)
  bad=$(foreign_globals "$a")
  if [ -n "$bad" ]; then
    echo "$a: $(printf '%s\n' "$bad" | wc -l) global symbols that are not sqlbatch_*, e.g.:" >&2
    printf '%s\n' "$bad" | head -n 10 >&2
    exit 1
  fi
  if [ "$n_own" -eq 0 ]; then echo "$a: no sqlbatch_* symbol at all" >&2; exit 1; fi
  echo "$a: $n_own global symbols, all sqlbatch_*"
  exit 0
fi

a=${1:-target/release/libsqlbatch.a}
out=${2:-}
[ -f "$a" ] || { echo "$0: $a does not exist (cargo build --release --lib first)" >&2; exit 1; }

LD=${LD:-ld}
OBJCOPY=${OBJCOPY:-objcopy}
AR=${AR:-ar}

# The processed archive as its own file: ARCHIVE is only read.
if [ -n "$out" ]; then
  outdir=$(dirname "$out")
  mkdir -p "$outdir"
  stamp="$outdir/.$(basename "$out").input"
  sum=$(sha256sum "$a" | cut -d' ' -f1)
  if [ -f "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ] && [ -z "$(foreign_globals "$out")" ]; then exit 0; fi
  tmp=$(mktemp -d "$outdir/.hide-symbols.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cp "$a" "$tmp/libsqlbatch.a"
  before=$(foreign_globals "$a" | wc -l)
  # An input without foreign globals (already processed) is copied as it is.
  if [ "$before" -ne 0 ]; then "$0" "$tmp/libsqlbatch.a" > /dev/null; fi
  [ -z "$(foreign_globals "$tmp/libsqlbatch.a")" ] || { echo "$0: $out would keep other globals" >&2; exit 1; }
  chmod 644 "$tmp/libsqlbatch.a"
  mv -f "$tmp/libsqlbatch.a" "$out"
  echo "$sum" > "$stamp"
  echo "hide-symbols: $out from $a: $before other global symbols made local, $(globals "$out" | wc -l) sqlbatch_* kept"
  exit 0
fi

if [ -z "$(foreign_globals "$a")" ]; then exit 0; fi
dir=$(dirname "$a")
tmp=$(mktemp -d "$dir/.hide-symbols.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cache="$dir/.$(basename "$a").hidden"
sum=$(sha256sum "$a" | cut -d' ' -f1)
if [ -f "$cache" ] && [ "$(cat "$cache.sha256" 2>/dev/null)" = "$sum" ] && [ -z "$(foreign_globals "$cache")" ]; then
  cp "$cache" "$tmp/libsqlbatch.a"
  touch -r "$a" "$tmp/libsqlbatch.a"
  mv -f "$tmp/libsqlbatch.a" "$a"
  exit 0
fi

before=$(foreign_globals "$a" | wc -l)
globals "$a" | grep '^sqlbatch_' > "$tmp/keep.txt" || { echo "$0: $a has no sqlbatch_* symbol" >&2; exit 1; }
"$OBJCOPY" --remove-section=.llvmbc --remove-section=.llvmcmd "$a" "$tmp/in.a"
"$LD" -r -d --force-group-allocation -o "$tmp/sqlbatch.o" --whole-archive "$tmp/in.a" --no-whole-archive
"$OBJCOPY" --keep-global-symbols="$tmp/keep.txt" "$tmp/sqlbatch.o"
"$AR" rcsD "$tmp/libsqlbatch.a" "$tmp/sqlbatch.o"

# Refuse to install a result that is wrong: other globals left, or exports lost.
if [ -n "$(foreign_globals "$tmp/libsqlbatch.a")" ]; then
  echo "$0: symbols still global after objcopy:" >&2; foreign_globals "$tmp/libsqlbatch.a" | head >&2; exit 1
fi
if ! cmp -s "$tmp/keep.txt" <(globals "$tmp/libsqlbatch.a"); then
  echo "$0: the sqlbatch_* symbols changed on the way" >&2; exit 1
fi
chmod 644 "$tmp/libsqlbatch.a"
touch -r "$a" "$tmp/libsqlbatch.a"
cp "$tmp/libsqlbatch.a" "$tmp/cache" && mv -f "$tmp/cache" "$cache" && echo "$sum" > "$cache.sha256"
mv -f "$tmp/libsqlbatch.a" "$a"
echo "hide-symbols: $a: $before other global symbols made local, $(wc -l < "$tmp/keep.txt") sqlbatch_* kept"
