// Package sqlcipherbench runs the fetch workloads and bulk_insert through database/sql with
// github.com/mutecomm/go-sqlcipher/v4, the SQLCipher fork of mattn/go-sqlite3 (SQLCipher
// 4.4.2 on SQLite 3.33.0, with libtomcrypt's AES: no OpenSSL), for the runner's
// go-mattn-sqlcipher row and its +enc form (issue 34). It is a package (and a binary) of its
// own: the fork registers the driver name "sqlite3", as mattn/go-sqlite3 does, and compiles
// its own SQLite.
package sqlcipherbench

import (
	"net/url"

	_ "github.com/mutecomm/go-sqlcipher/v4" // the "sqlite3" driver

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

func init() { workload.EncImpls["go-mattn-sqlcipher"] = true }

// Driver is the fork through database/sql, as go-mattn is mattn/go-sqlite3: with
// workload.Key the DSN carries the fork's _pragma_key (a passphrase, SQLCipher 4's default
// settings). bulk_insert is a prepared statement loop, as for mattn; the workloads beyond the
// fetch ones and bulk_insert are not run (the runner's rows of this driver are about
// encryption).
var Driver = sqlwork.Driver{
	Name: "sqlite3",
	DSN: func(path string) string {
		if workload.Key != "" {
			return path + "?_pragma_key=" + url.QueryEscape(workload.Key)
		}
		return path
	},
}

// Impl is Driver's implementation, restricted to the fetch workloads and bulk_insert.
func Impl(w, input string) (workload.Rep, func(), error) {
	if !workload.IsFetch(w) && w != workload.BulkInsert {
		return nil, nil, workload.ErrUnsupported
	}
	return Driver.Impl()(w, input)
}

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{"go-mattn-sqlcipher": Impl}
