//go:build sqlbatch_external

package capi

// -tags sqlbatch_external: the package names no library; the link flags come from
// elsewhere, either from the environment (CGO_LDFLAGS="$PREFIX/lib/libsqlbatch.a -lm -ldl
// -lpthread" for an installed static library) or from another cgo package of the program
// that carries the library, such as the per-platform module that
// `make -C bindings/go platform-module` lays out (see "Install" in the README, and docs/go.md).

import "C"
