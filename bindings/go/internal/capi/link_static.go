//go:build !sqlbatch_dynamic && !sqlbatch_pkgconfig && !sqlbatch_external

package capi

// Default: link the static library built by `cargo build --release --lib` at the top of the
// repository. The Go binary is self-contained (libsqlbatch.a also carries SQLite itself).

// #cgo LDFLAGS: ${SRCDIR}/../../../../target/release/libsqlbatch.a -lm -ldl -lpthread
import "C"
