package sqlbatch_test

import (
	"math"
	"strconv"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Fetch-ahead and write-behind against the synchronous calls, where the caller does work per
// row (benches/README.md's fetch_work: an FNV-1a hash over every cell's bytes), so that there
// is something to overlap with SQLite's stepping. cpu-ns/row counts both threads: with the
// option on it shows what the second core costs.

func fnvCell(h uint64, r *sqlbatch.Rows, i int) uint64 {
	const prime = 1099511628211
	t := r.Type(i)
	h = (h ^ uint64(t)) * prime
	var u uint64
	switch t {
	case sqlbatch.Integer:
		u = uint64(r.Int64(i))
	case sqlbatch.Float:
		u = math.Float64bits(r.Float64(i))
	case sqlbatch.Text, sqlbatch.Blob:
		for _, c := range r.RawBytes(i) {
			h = (h ^ uint64(c)) * prime
		}
		return h
	default:
		return h
	}
	for k := 0; k < 8; k++ {
		h = (h ^ (u & 0xff)) * prime
		u >>= 8
	}
	return h
}

func benchFetchWork(b *testing.B, ahead bool) {
	c := benchDB(b)
	s, err := c.Prepare(wideQuery)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.SetFetchAhead(ahead); err != nil {
		b.Fatal(err)
	}
	h := uint64(14695981039346656037)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		r, err := s.Query()
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			for i := range 10 {
				h = fnvCell(h, r, i)
			}
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*benchWideRows), "cpu-ns/row")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchWideRows), "ns/row")
	_ = h
}

func BenchmarkFetchWorkSync(b *testing.B)  { benchFetchWork(b, false) }
func BenchmarkFetchWorkAhead(b *testing.B) { benchFetchWork(b, true) }

// The wide rows without work per row: what fetch-ahead costs where there is nothing to overlap.
func benchFetchWide(b *testing.B, ahead bool) {
	c := benchDB(b)
	s, err := c.Prepare(wideQuery)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.SetFetchAhead(ahead); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		r, err := s.Query()
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchWideRows), "ns/row")
}

func BenchmarkFetchWideSync(b *testing.B)  { benchFetchWide(b, false) }
func BenchmarkFetchWideAhead(b *testing.B) { benchFetchWide(b, true) }

// ExecManyFunc of 100,000 rows (an INTEGER, a REAL and a short TEXT, the bulk_insert
// workload's shape) in batches of 4096, where fill formats each row's text and computes its
// number: with write-behind, batch k+1 is built while the worker inserts batch k.
const benchBulkRows = 100_000

func benchExecManyFunc(b *testing.B, writeBehind bool, work bool) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(a INTEGER, b REAL, c TEXT)"); err != nil {
		b.Fatal(err)
	}
	s, err := c.Prepare("INSERT INTO t VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.SetWriteBehind(writeBehind)
	var buf []byte
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.ExecScript("BEGIN"); err != nil {
			b.Fatal(err)
		}
		next := 0
		r, err := s.ExecManyFunc(func(p *sqlbatch.Params) error {
			for k := 0; k < 4096 && next < benchBulkRows; k++ {
				x := float64(next)
				if work {
					for j := 0; j < 20; j++ {
						x = math.Sqrt(x*x + float64(j))
					}
				}
				buf = strconv.AppendInt(append(buf[:0], "row "...), int64(next), 10)
				p.Int64(int64(next)).Float64(x).TextBytes(buf)
				next++
			}
			return nil
		})
		if err != nil || r.Rows != benchBulkRows {
			b.Fatal(r, err)
		}
		if _, err := c.ExecScript("ROLLBACK"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*benchBulkRows), "cpu-ns/row")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBulkRows), "ns/row")
}

func BenchmarkExecManyFuncSync(b *testing.B)              { benchExecManyFunc(b, false, true) }
func BenchmarkExecManyFuncWriteBehind(b *testing.B)       { benchExecManyFunc(b, true, true) }
func BenchmarkExecManyFuncSyncNoWork(b *testing.B)        { benchExecManyFunc(b, false, false) }
func BenchmarkExecManyFuncWriteBehindNoWork(b *testing.B) { benchExecManyFunc(b, true, false) }
