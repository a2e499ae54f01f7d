// Package mattnbench runs the benchmark workloads through database/sql with
// mattn/go-sqlite3. It is a package (and a binary) of its own because mattn/go-sqlite3
// compiles its own copy of SQLite, whose symbols clash with those in libsqlbatch.a.
package mattnbench

import (
	_ "github.com/mattn/go-sqlite3"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Driver is mattn/go-sqlite3 with its default options; bulk_insert is a prepared statement
// loop.
var Driver = sqlwork.Driver{Name: "sqlite3", DSN: func(path string) string { return path }}

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{"go-mattn": Driver.Impl()}
