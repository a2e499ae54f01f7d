//go:build sqlbatch_pkgconfig && !sqlbatch_external

package capi

// -tags sqlbatch_pkgconfig: find an installed sqlbatch (`make install` at the top of the
// repository writes sqlbatch.pc) through pkg-config. Whether the static or the shared library
// is linked is the linker's choice (the shared one, where both are installed).

// #cgo pkg-config: sqlbatch
import "C"
