//go:build !sqlbatch_dynamic && !sqlbatch_pkgconfig && !sqlbatch_external

package capi

// Default: link the static library that `make lib` at the top of the repository puts in
// build/lib. The Go binary is self-contained (libsqlbatch.a also carries SQLite itself).

// #cgo LDFLAGS: ${SRCDIR}/../../../../build/lib/libsqlbatch.a -lm -ldl -lpthread
import "C"
