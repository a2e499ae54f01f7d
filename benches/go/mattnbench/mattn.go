// Package mattnbench runs the benchmark workloads through database/sql with
// mattn/go-sqlite3. It is a package (and a binary) of its own because mattn/go-sqlite3
// compiles its own copy of SQLite, whose symbols clash with those in libsqlbatch.a.
package mattnbench

import (
	"database/sql"
	"fmt"

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
// loop. It has no incremental blob I/O (blob_read and blob_many are n/a); backup is its
// SQLiteConn.Backup through sql.Conn.Raw; vtab_scan and tvf_join are its virtual tables
// (the sqlite_vtable tag, vtab.go), in_list one placeholder per id.
var Driver = sqlwork.Driver{
	Name:   "sqlite3",
	DSN:    func(path string) string { return path },
	UDF:    udfDriver,
	Backup: backup,
	VTab:   vtabHook,
}

// backup copies src's main database over dest's with mattn's online backup: the
// destination's Backup, Step(-1), Finish.
func backup(dest, src any) error {
	d, ok1 := dest.(*sqlite3.SQLiteConn)
	s, ok2 := src.(*sqlite3.SQLiteConn)
	if !ok1 || !ok2 {
		return fmt.Errorf("sql.Conn.Raw gave %T and %T", dest, src)
	}
	b, err := d.Backup("main", s, "main")
	if err != nil {
		return err
	}
	done, err := b.Step(-1)
	if ferr := b.Finish(); err == nil {
		err = ferr
	}
	if err == nil && !done {
		err = fmt.Errorf("backup: pages left after a step of every page")
	}
	return err
}

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{"go-mattn": Driver.Impl()}
