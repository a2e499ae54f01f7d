//go:build sqlbatch_dynamic

package abtest

import (
	"database/sql"
	"testing"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// The implementations as benchmarks (in this binary, for profiling them side by side).
func BenchmarkFetchNarrow(b *testing.B) {
	for _, name := range []string{"sqlbatch", "sqlbatch-sql", "mattn", "floor"} {
		workload.Bench(b, workload.FetchNarrow, name, impls[name])
	}
}

func BenchmarkFetchWide(b *testing.B) {
	for _, name := range []string{"sqlbatch", "sqlbatch-sql", "mattn", "floor"} {
		workload.Bench(b, workload.FetchWide, name, impls[name])
	}
}

// BenchmarkQueryOverhead is the fixed cost of a query: db.Query of one row, Scan, Close.
func BenchmarkQueryOverhead(b *testing.B) {
	for _, d := range []struct {
		name, driver string
	}{{"sqlbatch-sql", "sqlbatch"}, {"mattn", "sqlite3"}} {
		b.Run("impl="+d.name, func(b *testing.B) {
			db, err := sql.Open(d.driver, workload.Input(workload.FetchNarrow))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			var id int64
			for b.Loop() {
				if err := db.QueryRow("SELECT id FROM testdata WHERE id = 5000").Scan(&id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
