//go:build !sqlbatch_dynamic && !sqlbatch_pkgconfig && !sqlbatch_external && !(linux && (amd64 || arm64)) && !(darwin && (amd64 || arm64))

package capi

// Default on a platform with no per-platform module: the build stops here, saying what to do.

/*
#error "sqlbatch: no prebuilt libsqlbatch for this GOOS/GOARCH (there are linux/amd64, linux/arm64, darwin/amd64, darwin/arm64). Build libsqlbatch from the repository (make install) and build with -tags sqlbatch_pkgconfig, or with -tags sqlbatch_external and CGO_LDFLAGS naming libsqlbatch.a."
*/
import "C"
