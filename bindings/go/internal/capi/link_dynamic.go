//go:build sqlbatch_dynamic && !sqlbatch_pkgconfig && !sqlbatch_external

package capi

// -tags sqlbatch_dynamic: link libsqlbatch.so from the repository's build/lib (make lib), and
// record that directory as the binary's rpath so it runs without LD_LIBRARY_PATH.

// #cgo LDFLAGS: -L${SRCDIR}/../../../../build/lib -Wl,-rpath,${SRCDIR}/../../../../build/lib -lsqlbatch
import "C"
