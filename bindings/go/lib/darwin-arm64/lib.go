//go:build darwin && arm64

// Package lib_darwin_arm64 carries libsqlbatch.a, the sqlbatch library (SQLite included,
// every symbol but sqlbatch_* local) built for darwin/arm64, without debug information.
// github.com/sqlbatch/sqlbatch/bindings/go imports it on darwin/arm64 to link the library:
// programs never import it themselves, and build with no tag, no environment and no Rust.
//
// Its version is the library's: this module's vX.Y.Z carries libsqlbatch X.Y.Z. In the
// repository, libsqlbatch.a here is a link to build/lib/libsqlbatch.a (make lib); a release
// holds the file itself (tools/platform-module.sh).
package lib_darwin_arm64

// #cgo LDFLAGS: ${SRCDIR}/libsqlbatch.a -lm
import "C"
