// Command go-sqlbatch-bench-enc is go-sqlbatch-bench's go-sqlbatch and go-sqlbatch-sql linked
// against the encrypted build of the library (SQLCipher, build/lib-encrypted), for the
// runner's go-sqlbatch-sqlcipher and go-sqlbatch-sql-sqlcipher rows and their +enc forms
// (issue 34); see benches/README.md for the protocol. It links no native C baseline (that
// package names the default build's archive), so it is built with -tags sqlbatch_external
// and the encrypted archive in CGO_LDFLAGS (benches/go/Makefile, build-enc).
package main

import (
	"github.com/sqlbatch/sqlbatch/benches/go/internal/sbwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

func main() {
	workload.Main("go-sqlbatch-bench-enc", map[string]workload.Impl{
		"go-sqlbatch":     sbwork.LowLevel,
		"go-sqlbatch-sql": sbwork.SQL.Impl(),
	})
}
