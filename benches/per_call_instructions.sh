#!/bin/bash
# Instructions per call of one implementation on one workload, the way docs/floors.md and docs/go.md
# count them: callgrind, the difference between 3 and 2
# repetitions divided by the calls in one repetition, over all threads but Go's sysmon
# (whose wake-ups follow the wall clock, which valgrind stretches).
#
#   benches/per_call_instructions.sh BIN IMPL WORKLOAD INPUT CALLS
#   e.g. benches/per_call_instructions.sh build/bench/go-sqlbatch-bench go-sqlbatch point_query build/workloads/app.db 100000
#
# Go runs with GODEBUG=asyncpreemptoff=1 GOGC=off GOMAXPROCS=1 (no GC: its share is only in
# the runner's ns). Nothing else should hold the input open: SQLite's WAL read lock costs
# differ when other connections are.
set -euo pipefail
[ $# -eq 5 ] || { sed -n 2,12p "$0"; exit 2; }
bin=$1 impl=$2 workload=$3 input=$4 calls=$5
export GODEBUG=asyncpreemptoff=1 GOGC=off GOMAXPROCS=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for n in 2 3; do
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.$n.%p" \
    "$bin" --impl "$impl" --workload "$workload" --input "$input" --reps $n --warmup 0 >/dev/null 2>&1
done
total() {
  local sum=0 f v
  for f in "$dir"/cg."$1".*; do
    [ -s "$f" ] || continue
    # Go's sysmon thread: runs runtime.sysmon and never SQLite or the library.
    if grep -q "runtime.sysmon" "$f" && ! grep -q "sqlite3_step\|sqlbatch" "$f"; then continue; fi
    v=$(grep -m1 '^summary' "$f" | awk '{print $2}')
    sum=$((sum + ${v:-0}))
  done
  echo "$sum"
}
a=$(total 2) b=$(total 3)
echo "$impl $workload: $(( (b - a) / calls )) instructions a call"
