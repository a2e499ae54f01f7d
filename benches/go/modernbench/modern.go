// Package modernbench runs the benchmark workloads through database/sql with
// modernc.org/sqlite (SQLite translated to Go: no cgo).
package modernbench

import (
	_ "modernc.org/sqlite"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Driver is modernc.org/sqlite with its default options; bulk_insert is a prepared
// statement loop.
var Driver = sqlwork.Driver{
	Name:           "sqlite",
	DSN:            func(path string) string { return path },
	EmptyBlobIsNil: true, // modernc.org/sqlite returns nil for an empty BLOB
}

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{"go-modernc": Driver.Impl()}
