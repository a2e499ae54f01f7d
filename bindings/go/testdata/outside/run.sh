#!/bin/sh
# Builds and runs testdata/outside/main.go as the program of a module outside the repository
# (a temporary directory), the way a user of the module does. Run by `make -C bindings/go
# test-outside` and `test-platform-module`.
#
#   run.sh pkgconfig PREFIX     -tags sqlbatch_pkgconfig, PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
#                               (the installed shared library, found through an rpath)
#   run.sh static PREFIX        -tags sqlbatch_external, CGO_LDFLAGS naming the installed
#                               PREFIX/lib/libsqlbatch.a (a self-contained binary)
#   run.sh platform MODDIR      -tags sqlbatch_external, and the per-platform module MODDIR
#                               (from `make platform-module`) imported for its library
set -eu
mode=$1 where=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
gomod=$(cd "$here/../.." && pwd) # bindings/go
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sqlbatch-outside.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp" in "$(cd "$gomod/../.." && pwd)"/*) echo "run.sh: $tmp is inside the repository" >&2; exit 1;; esac

cp "$here/main.go" "$tmp/main.go"
cat > "$tmp/go.mod" <<MOD
module example.com/outside

go 1.24

require github.com/sqlbatch/sqlbatch/bindings/go v0.0.0

replace github.com/sqlbatch/sqlbatch/bindings/go => $gomod
MOD
unset CGO_LDFLAGS
case $mode in
pkgconfig)
	export PKG_CONFIG_PATH="$where/lib/pkgconfig"
	export CGO_LDFLAGS="-Wl,-rpath,$where/lib"
	tags=sqlbatch_pkgconfig;;
static)
	export CGO_LDFLAGS="$where/lib/libsqlbatch.a -lm -ldl -lpthread"
	tags=sqlbatch_external;;
platform)
	libmod=$(sed -n 's/^module //p' "$where/go.mod")
	printf 'require %s v0.0.0\n\nreplace %s => %s\n' "$libmod" "$libmod" "$where" >> "$tmp/go.mod"
	sed -i "s|^import (|import (\n\t_ \"$libmod\"|" "$tmp/main.go"
	tags=sqlbatch_external;;
*) echo "run.sh: unknown mode $mode" >&2; exit 2;;
esac
(cd "$tmp" && GOFLAGS=-mod=mod go build -tags "$tags" -o outside .)
needed=$(readelf -d "$tmp/outside" | grep NEEDED || true)
case $mode in
pkgconfig) echo "$needed" | grep -q 'libsqlbatch\.so' || { echo "run.sh: $mode: libsqlbatch.so not linked" >&2; exit 1; };;
*) ! echo "$needed" | grep -q libsqlbatch || { echo "run.sh: $mode: libsqlbatch.so linked, want the archive" >&2; exit 1; };;
esac
out=$(cd / && "$tmp/outside")
echo "$mode: $out"
want="3 rows, 14 bytes, [edsger grace ada], UNIQUE constraint failed: t.id"
case $out in *"$want") ;; *) echo "run.sh: $mode: want ...$want" >&2; exit 1;; esac
