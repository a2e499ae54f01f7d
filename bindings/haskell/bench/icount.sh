#!/bin/sh
# Instructions per row of hs-bench implementations, deterministic (unlike wall-clock time on
# a shared machine): runs `hs-bench --impl IMPL` under cachegrind (no cache simulation) for two
# repetition counts and divides the difference by the extra rows. The fixed costs (start-up,
# opening, warm-up) cancel out; what remains is the cost of one run of the workload, including
# the untimed major GC before each run (the same for every implementation). The last
# figure leaves out the instructions of GHC's garbage collector: the untimed major GC that
# copies bulk_insert's input list (150 MiB) varies from one valgrind run to another by
# hundreds of instructions a row, which would swamp the differences that matter.
#
#   bench/icount.sh [WORKLOAD [IMPL...]]      (from bindings/haskell, after `make build`)
#
# Issue 15's point_query, few_rows (app.db), prepare_churn, small_tx and large_values (big.db)
# run 1 and 2 times, "a row" being a query, statement, transaction or row of the workload.
# WORKLOAD is fetch_narrow, fetch_wide, bulk_insert (1,000,000 rows, 1 and 3 runs), udf_scalar
# or udf_aggregate (build/workloads/udf.db, 1,000,000 rows, 1 and 2 runs; default impls
# hs-sqlbatch-fold hs-sqlbatch-query, "a row" being one call of f / one row of sumsq). With
# HS_BENCH=../../build/bench/c-bench the same counts come from the C runner's c-native and
# c-sqlbatch, which follow the same protocol. With ICACHE=1 each line also gives the misses of
# the first-level instruction cache a row (cachegrind's simulation of this machine's): a
# longer code path costs time that the instruction count does not show.
#
# Default: fetch_narrow with hs-native-c hs-direct hs-sqlbatch-fold hs-sqlbatch-query.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
bench=${HS_BENCH:-$root/build/bench/hs-bench}
workload=${1:-fetch_narrow}
[ $# -gt 0 ] && shift
case $workload in
  udf_*) impls=${*:-hs-sqlbatch-fold hs-sqlbatch-query} ;;
  *) impls=${*:-hs-native-c hs-direct hs-sqlbatch-fold hs-sqlbatch-query} ;;
esac
case $workload in
  fetch_narrow) rows=10000; lo=10; hi=60 ;;
  fetch_wide) rows=200000; lo=1; hi=3 ;;
  bulk_insert) rows=1000000; lo=1; hi=3 ;;
  udf_scalar|udf_aggregate) rows=1000000; lo=1; hi=2 ;;
  point_query) rows=100000; lo=1; hi=2 ;;
  few_rows) rows=20000; lo=1; hi=2 ;;
  prepare_churn) rows=50000; lo=1; hi=2 ;;
  small_tx) rows=10000; lo=1; hi=2 ;;
  large_values) rows=2000; lo=1; hi=2 ;;
  *) echo "icount.sh: workload fetch_narrow, fetch_wide, bulk_insert, udf_scalar, udf_aggregate or an issue-15 one" >&2; exit 2 ;;
esac
case $workload in
  bulk_insert|prepare_churn|small_tx) db=$rows ;;
  point_query|few_rows) db=$root/build/workloads/app.db ;;
  large_values) db=$root/build/workloads/big.db ;;
  udf_*) db=$root/build/workloads/udf.db ;;
  *) db=$root/build/workloads/$workload.db ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# ICACHE=1: cachegrind simulates the caches (its first-level instruction cache is the
# machine's, 32 KiB here) and each line also gives the instruction fetches that missed it.
sim=no
[ "${ICACHE:-0}" = 1 ] && sim=yes
# GHCRTS=-I0: no idle GC (under valgrind the RTS sees idle time that a real run has not,
# and a stray major GC of a big heap would swamp the difference).
count() {
  GHCRTS=-I0 valgrind --tool=cachegrind --cache-sim="$sim" --cachegrind-out-file="$tmp/out" \
    "$bench" --impl "$1" --workload "$workload" --input "$db" --reps "$2" --warmup 1 \
    >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  # The total, the instructions in the functions of GHC's garbage collector, and (ICACHE=1)
  # the first-level instruction cache's misses.
  awk '/^events:/ { for (i = 2; i <= NF; i++) if ($i == "I1mr") m = i; next }
       /^fn=/ { gc = ($0 ~ /^fn=(evacuate|scavenge|GarbageCollect|todo_block_full|alloc_todo_block|freeGroup|freeChain|allocGroup|allocBlock|copy_tag|alloc_for_copy|gcWorkerThread|markWeak|traverseWeak|tidyWeak|resize_gen|prepare_collected|collect_gct|collect_pinned|scavenge_)/); next }
       /^[0-9]/ { t += $2; if (gc) g += $2; if (m) i1 += $m }
       END { printf "%.0f %.0f %.0f\n", t, g, i1 }' "$tmp/out"
}
for impl in $impls; do
  a=$(count "$impl" $lo)
  b=$(count "$impl" $hi)
  echo "$a $b" | awk -v i="$impl" -v n=$((hi - lo)) -v r=$rows -v sim="$sim" \
    '{ d = ($4 - $1) / n; g = ($5 - $2) / n; m = ($6 - $3) / n
       printf "%-20s %12.0f instructions a run  %8.1f a row  (%8.1f outside the GC)", i, d, d / r, (d - g) / r
       if (sim == "yes") printf "  %7.1f I1 misses a row", m / r
       printf "\n" }'
done
