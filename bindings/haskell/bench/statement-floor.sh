#!/bin/sh
# The floor the library sets under direct-sqlite's face on prepare_churn (bench/floor/
# statement_floor.c): instructions a statement prepared, bound, stepped and finalized
# through the ABI's calls, and through SQLite's own, with nothing around them (cachegrind,
# the difference between 20,000 and 40,000 rows divided by 20,000). The first figure less
# the second is what the library's entry points cost a statement; what the binding adds
# over it is the rest of hs-sqlbatch-direct's count (bench/icount.sh prepare_churn).
#
#   bench/statement-floor.sh          (from bindings/haskell, after `make lib` at the top)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-cc}
sqlite_h=$("$root/scripts/sqlite-include.sh")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$cc" -std=c99 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I"$root/include" -I"$sqlite_h" \
  "$here/bench/floor/statement_floor.c" "$root/build/lib/libsqlbatch.a" "$root/build/native/libsqlite3.a" \
  -lpthread -ldl -lm -o "$dir/statement_floor"
count() { # MODE ROWS: instructions of the whole program
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$dir/cg" "$dir/statement_floor" "$1" "$2" 2>/dev/null
  awk '/^summary:/ {print $2}' "$dir/cg"
}
for mode in abi native; do
  a=$(count $mode 20000)
  b=$(count $mode 40000)
  printf '%-7s %9.1f instructions a statement\n' "$mode" "$(echo "($b - $a) / 20000" | bc -l)"
done
