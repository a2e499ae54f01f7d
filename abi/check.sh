#!/usr/bin/env bash
# The ABI check (`make test-abi`, part of `make test`): the library built now against the
# baseline committed for its SONAME in abi/SONAME/ (abi/libsqlbatch.so.1/ for every 1.x).
# Additions pass; any other change fails. Three parts:
#
#   library.abi   abidw's description of libsqlbatch.so as shipped (stripped): its exported
#                 symbols, SONAME and needed libraries; `abidiff --no-added-syms` fails on a
#                 removed or changed symbol
#   header.abi    abidw's description of the header's types: the library's debug information
#                 has none (Rust's "limited" level), so a probe compiled from include/sqlbatch.h
#                 with -g (abi/probe.py types) describes every function's type and each struct
#                 it reaches; `abidiff --no-added-syms` fails on a changed parameter, result,
#                 struct size, member type or offset, or a removed function (a const added to
#                 a pointed-to parameter type is a change abidiff knows to be harmless)
#   sqlbatch.h    the baseline header: each of its integer constants must keep its value in
#                 the current header (abi/probe.py constants, static assertions)
#
# Before comparing, the check checks itself on changes made on purpose to copies of the
# current header and library: a removed function, a struct member made wider, a constant's
# new value and a library without one of its exports must each fail, an added function pass.
#
#   abi/check.sh              compare
#   abi/check.sh --baseline   write abi/SONAME/ from the current build: once per major version,
#                             from its X.0.0 release (the files are then never changed)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
CC=${CC:-cc}
[ -f build/lib/libsqlbatch.so ] || { echo "$0: run make lib first" >&2; exit 1; }
soname=$(readelf -d build/lib/libsqlbatch.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
base=abi/$soname
out=build/abi
rm -rf "$out"
mkdir -p "$out"

describe_library() { # LIBRARY.so OUT.abi: a stripped copy's symbols, SONAME, needed libraries
	strip --strip-debug -o "$2.so" "$1"
	abidw --no-corpus-path --no-show-locs "$2.so" --out-file "$2"
}
describe_header() { # DIR (holding sqlbatch.h) OUT.abi: the types of its functions
	python3 abi/probe.py types "$1/sqlbatch.h" > "$2.c"
	$CC -std=gnu11 -g -O0 -fPIC -shared -I"$1" "$2.c" -o "$2.so"
	abidw --no-corpus-path --no-show-locs "$2.so" --out-file "$2"
}
constants_of() { # BASELINE-HEADER DIR: compiles BASELINE-HEADER's constants against DIR/sqlbatch.h
	python3 abi/probe.py constants "$1" > "$out/constants.c"
	$CC -std=c11 -fsyntax-only -I"$2" "$out/constants.c" 2> "$out/constants.log"
}
describe_library build/lib/libsqlbatch.so "$out/library.abi"
describe_header include "$out/header.abi"

if [ "${1:-}" = "--baseline" ]; then
	mkdir -p "$base"
	cp "$out/library.abi" "$out/header.abi" "$base/"
	cp include/sqlbatch.h "$base/sqlbatch.h"
	echo "abi: baseline of $soname written to $base"
	exit 0
fi
[ -d "$base" ] || {
	echo "$0: no baseline for $soname in $base: a new major version writes it with $0 --baseline" >&2
	exit 1
}

# The self-test.
st=$out/selftest
for kind in remove member add constant; do
	mkdir -p "$st/$kind"
	python3 abi/probe.py mutate "$kind" include/sqlbatch.h > "$st/$kind/sqlbatch.h"
	case $kind in
	constant) ! constants_of include/sqlbatch.h "$st/$kind" || { echo "$0: self-test: a changed constant passed" >&2; exit 1; };;
	add) describe_header "$st/$kind" "$st/$kind.abi"
		abidiff --no-added-syms "$out/header.abi" "$st/$kind.abi" > /dev/null || { echo "$0: self-test: an added function failed" >&2; exit 1; };;
	*) describe_header "$st/$kind" "$st/$kind.abi"
		! abidiff --no-added-syms "$out/header.abi" "$st/$kind.abi" > /dev/null || { echo "$0: self-test: $kind passed" >&2; exit 1; };;
	esac
done
gone=$(nm -D --defined-only build/lib/libsqlbatch.so | awk '$3 ~ /^sqlbatch_/ {print $3}' | sort | tail -n1)
nm -D --defined-only build/lib/libsqlbatch.so | awk -v gone="$gone" 'BEGIN {print "{ global:"} $3 ~ /^sqlbatch_/ && $3 != gone {print "  " $3 ";"} END {print "local: *; };"}' > "$st/exports.map"
$CC -shared -o "$st/libsqlbatch.so" -Wl,--whole-archive build/lib/libsqlbatch.a -Wl,--no-whole-archive \
	-Wl,-soname,"$soname" -Wl,--version-script="$st/exports.map" -lm -ldl -lpthread
describe_library "$st/libsqlbatch.so" "$st/library.abi"
! abidiff --no-added-syms "$out/library.abi" "$st/library.abi" > /dev/null || { echo "$0: self-test: a library without $gone passed" >&2; exit 1; }
echo "abi: self-test: a removed function, a wider struct member, a changed constant and a library without $gone fail; an added function passes"

failed=
for part in library header; do
	if abidiff --no-added-syms "$base/$part.abi" "$out/$part.abi" > "$out/$part.diff"; then
		echo "abi: $part: compatible with $base/$part.abi"
	else
		echo "abi: $part: incompatible with $base/$part.abi (abidiff exit status $?):" >&2
		cat "$out/$part.diff" >&2
		failed=1
	fi
done
if constants_of "$base/sqlbatch.h" include; then
	echo "abi: constants: the $(grep -c _Static_assert "$out/constants.c") integer constants of $base/sqlbatch.h keep their values"
else
	echo "abi: constants of $base/sqlbatch.h changed or gone:" >&2
	grep -E 'error' "$out/constants.log" >&2
	failed=1
fi
[ -z "$failed" ] || exit 1
