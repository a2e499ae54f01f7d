#!/bin/sh
# Builds and runs testdata/outside/main.go as the program of a module outside the repository
# (a temporary directory) that uses a checkout of this module and a libsqlbatch installed
# from it (`make install`), instead of a release. Run by `make -C bindings/go test-outside`.
# (A release installed with `go get` alone is tried by packaging/install-test-go.sh.)
#
#   run.sh pkgconfig PREFIX     -tags sqlbatch_pkgconfig, PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
#                               (the installed shared library, found through an rpath)
#   run.sh static PREFIX        -tags sqlbatch_external, CGO_LDFLAGS naming the installed
#                               PREFIX/lib/libsqlbatch.a (a self-contained binary)
#
# The outside go.mod replaces the module with the checkout, and its per-platform modules
# with the checkout's lib/ (required by the module's go.mod, though these tags import none).
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
for d in "$gomod"/lib/*/; do
	printf 'replace %s => %s\n' "$(sed -n 's/^module //p' "$d/go.mod")" "$d" >> "$tmp/go.mod"
done
unset CGO_LDFLAGS
case $mode in
pkgconfig)
	export PKG_CONFIG_PATH="$where/lib/pkgconfig"
	export CGO_LDFLAGS="-Wl,-rpath,$where/lib"
	tags=sqlbatch_pkgconfig;;
static)
	export CGO_LDFLAGS="$where/lib/libsqlbatch.a -lm -ldl -lpthread"
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
