package sqlbatch_test

import (
	"strconv"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// BenchmarkPrepareExecFinalize is prepare_churn's statement (benches/README.md) in memory:
// prepare, bind and run one INSERT, finalize, per op, with and without
// sqlbatch.PreparePersistent (SQLITE_PREPARE_PERSISTENT, which keeps SQLite from using its
// lookaside allocator for the statement): the figure behind the driver preparing a *sql.Stmt
// without it.
func BenchmarkPrepareExecFinalize(b *testing.B) {
	for _, bc := range []struct {
		name  string
		flags sqlbatch.PrepareFlags
	}{{"flags=0", 0}, {"flags=persistent", sqlbatch.PreparePersistent}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := sqlbatch.Open(":memory:")
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := c.ExecScript("CREATE TABLE churn(a INTEGER, b REAL, c TEXT); BEGIN"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				s, _, err := c.PrepareTail("INSERT INTO churn(a, b, c) VALUES (?, ?, ?)", bc.flags|sqlbatch.PrepareSingle)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Exec(i, float64(i)*0.25, "row-"+strconv.Itoa(i)); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
