#!/bin/sh
# Lays out the per-platform module of a release for one GOOS/GOARCH: a Go module that holds
# libsqlbatch.a (stripped of debug info) and one cgo file whose LDFLAGS link it, so that a
# program gets the library from the module proxy with `go get` alone (see "How a release
# would ship the library" in docs/go.md).
#
#   platform-module.sh LIBSQLBATCH_A OUTDIR GOOS GOARCH
set -eu
lib=$1 out=$2 goos=$3 goarch=$4
pkg="lib_${goos}_${goarch}"
mod="github.com/sqlbatch/sqlbatch/bindings/go/lib/${goos}-${goarch}"
rm -rf "$out"
mkdir -p "$out"
cp "$lib" "$out/libsqlbatch.a.tmp"
strip --strip-debug "$out/libsqlbatch.a.tmp"
mv "$out/libsqlbatch.a.tmp" "$out/libsqlbatch.a"
cat > "$out/go.mod" <<MOD
module $mod

go 1.24
MOD
cat > "$out/lib.go" <<GO
//go:build $goos && $goarch

// Package $pkg carries libsqlbatch.a for $goos/$goarch. In a release, the package
// github.com/sqlbatch/sqlbatch/bindings/go/internal/capi imports it for its platform, so
// that programs never name it; until then a program imports it
// (import _ "$mod") and builds with -tags sqlbatch_external, as "make -C bindings/go test-platform-module" does.
package $pkg

// #cgo LDFLAGS: \${SRCDIR}/libsqlbatch.a -lm -ldl -lpthread
import "C"
GO
echo "platform module $mod in $out ($(du -h "$out/libsqlbatch.a" | cut -f1) archive)"
