package sqlbatch_test

import (
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// The cost of Go functions called from SQL, on the narrow table of bench_test.go: a scalar
// function (one cgo callback a row) and an aggregate fed one row or 256 rows per callback.

func benchUDF(b *testing.B, query string, setup func(c *sqlbatch.Conn)) {
	c := benchDB(b)
	setup(c)
	s, err := c.Prepare(query)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		r, err := s.Query()
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*benchNarrowRows), "cpu-ns/row")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchNarrowRows), "ns/row")
}

func BenchmarkUDFScalar(b *testing.B) {
	benchUDF(b, "SELECT sum(f(id)) FROM narrow", func(c *sqlbatch.Conn) {
		if err := c.CreateFunction("f", 1, sqlbatch.Deterministic, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			ctx.SetInt64(a.Int64(0)*2 + 1)
		}); err != nil {
			b.Error(err)
		}
	})
}

type benchSumSq struct{ acc int64 }

func (g *benchSumSq) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	for i := 0; i < rows.Len(); i++ {
		v := rows.Row(i).Int64(0)
		g.acc += v * v
	}
}
func (g *benchSumSq) Final(ctx *sqlbatch.Context) { ctx.SetInt64(g.acc) }

func benchAgg(b *testing.B, batch int) {
	benchUDF(b, "SELECT agg(id) FROM narrow", func(c *sqlbatch.Conn) {
		if err := c.CreateAggregate("agg", 1, sqlbatch.AggregateOptions{BatchRows: batch}, func() sqlbatch.AggregateGroup { return &benchSumSq{} }); err != nil {
			b.Error(err)
		}
	})
}

func BenchmarkUDFAggregateRow(b *testing.B)     { benchAgg(b, 1) }
func BenchmarkUDFAggregateBatched(b *testing.B) { benchAgg(b, 256) }

// The same sum of squares in SQL, for comparison.
func BenchmarkUDFAggregateSQL(b *testing.B) {
	benchUDF(b, "SELECT sum(id*id) FROM narrow", func(*sqlbatch.Conn) {})
}

var texts = [4]string{"alpha", "beta", "gamma", "delta"}

// A TEXT result: SetText copies the string straight from Go memory (no allocation).
func BenchmarkUDFText(b *testing.B) {
	benchUDF(b, "SELECT max(up(id)) FROM narrow", func(c *sqlbatch.Conn) {
		if err := c.CreateFunction("up", 1, sqlbatch.Deterministic, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			ctx.SetText(texts[a.Int64(0)%4])
		}); err != nil {
			b.Error(err)
		}
	})
}
