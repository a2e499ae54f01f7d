//go:build cgo && !sqlbatch_dynamic && !sqlbatch_pkgconfig && !sqlbatch_external

package capi

// Default on linux/arm64: the per-platform module github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64
// carries libsqlbatch.a (SQLite included) and its link flags, so the binary is self-contained.
// A program that requires this module downloads it from the module proxy; in the repository,
// go.mod replaces it with ../../lib/linux-arm64, which links build/lib/libsqlbatch.a (make lib).

import _ "github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64"
