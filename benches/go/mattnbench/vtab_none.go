//go:build !sqlite_vtable

package mattnbench

import (
	"context"
	"database/sql"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Without mattn/go-sqlite3's sqlite_vtable build tag there are no virtual tables: vtab_scan
// and tvf_join are n/a (benches/go/Makefile builds go-mattn-bench with the tag).
var vtabHook func(context.Context, *sql.Conn, string, *workload.VRows) (string, error)
