// Package mattnbench runs the benchmark workloads through database/sql with
// mattn/go-sqlite3. It is a package (and a binary) of its own because mattn/go-sqlite3
// compiles its own copy of SQLite, whose symbols clash with those in libsqlbatch.a.
package mattnbench

import (
	"database/sql"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// udfDriver is mattn/go-sqlite3 registered under a name of its own with a ConnectHook that
// registers the udf workloads' f and sumsq (RegisterFunc, RegisterAggregator) on every
// connection, as mattn's users do.
const udfDriver = "sqlite3_udf"

func init() {
	sql.Register(udfDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return sqlwork.RegisterUDF(c)
	}})
}

// Driver is mattn/go-sqlite3 with its default options; bulk_insert is a prepared statement
// loop.
var Driver = sqlwork.Driver{Name: "sqlite3", DSN: func(path string) string { return path }, UDF: udfDriver}

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{"go-mattn": Driver.Impl()}
