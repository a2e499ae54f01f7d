//go:build sqlbatch_dynamic && !sqlbatch_pkgconfig && !sqlbatch_external

package capi

// -tags sqlbatch_dynamic: link libsqlbatch.so from the repository's target/release, and
// record that directory as the binary's rpath so it runs without LD_LIBRARY_PATH.

// #cgo LDFLAGS: -L${SRCDIR}/../../../../target/release -Wl,-rpath,${SRCDIR}/../../../../target/release -lsqlbatch
import "C"
