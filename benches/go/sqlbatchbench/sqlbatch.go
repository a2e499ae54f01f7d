// Package sqlbatchbench holds the sqlbatch implementations of the benchmark workloads (the
// low-level package, and the database/sql driver, from internal/sbwork) and the native C
// baseline they are measured against. It is a package of its own because libsqlbatch.a
// carries SQLite's sqlite3_* symbols, which clash with mattn/go-sqlite3's copy of SQLite in
// one binary.
package sqlbatchbench

import (
	"github.com/sqlbatch/sqlbatch/benches/go/internal/sbwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{
	"go-sqlbatch": LowLevel,
	// vtab_scan with the rows written value by value in each Fill (go-sqlbatch hands over
	// rows prepared in advance: the floor); not a runner row.
	"go-sqlbatch-writer": LowLevelWriter,
	"go-sqlbatch-event":  sbwork.LowLevelEvent,
	"go-sqlbatch-sql":    SQL.Impl(),
	"go-native-c":        Native,
	"go-c-sqlbatch":      CSqlbatch,
}

// The sqlbatch implementations (see internal/sbwork).
var (
	LowLevel       = sbwork.LowLevel
	LowLevelWriter = sbwork.LowLevelWriter
	SQL            = sbwork.SQL
	SQLStmtLoop    = sbwork.SQLStmtLoop
)
