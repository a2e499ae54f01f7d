#!/bin/sh
# Lays out the per-platform module of a release for one GOOS/GOARCH, as the module proxy
# serves it: go.mod and lib.go of lib/GOOS-GOARCH (the files the repository keeps for each
# platform), libsqlbatch.a stripped of debug information in place of the repository's link
# to build/lib, and the repository's LICENSE. github.com/sqlbatch/sqlbatch/bindings/go
# imports the package on that platform (internal/capi/link_GOOS_GOARCH.go), so a program
# gets the library with `go get` alone. `make dist` at the top of the repository zips it
# into build/dist/goproxy.
#
#   platform-module.sh LIBSQLBATCH_A OUTDIR GOOS GOARCH
#
# LIBSQLBATCH_A must be the library built for GOOS/GOARCH and processed by
# scripts/hide-symbols.sh (make lib's build/lib/libsqlbatch.a on that platform).
set -eu
lib=$1 out=$2 goos=$3 goarch=$4
here=$(cd "$(dirname "$0")/.." && pwd) # bindings/go
src="$here/lib/$goos-$goarch"
[ -f "$src/go.mod" ] && [ -f "$src/lib.go" ] || {
	echo "$0: no per-platform module for $goos/$goarch in $src" >&2
	exit 1
}
[ -f "$lib" ] || { echo "$0: $lib does not exist (make lib)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cp "$src/go.mod" "$src/lib.go" "$out/"
cp "$here/../../LICENSE" "$out/LICENSE"
cp "$lib" "$out/libsqlbatch.a.tmp"
strip -S "$out/libsqlbatch.a.tmp" # the debug information (GNU and Apple strip alike)
mv "$out/libsqlbatch.a.tmp" "$out/libsqlbatch.a"
echo "platform module $(sed -n 's/^module //p' "$src/go.mod") in $out ($(du -h "$out/libsqlbatch.a" | cut -f1) archive)"
