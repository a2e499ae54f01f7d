package sqlbatch_test

import (
	"syscall"
	"testing"
	"unicode/utf8"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Benchmarks of the per-row cost of reading rows in Go, on in-memory tables shaped like the
// fetch_narrow and fetch_wide workloads of benches/README.md (the cross-language figures
// come from benches/go). The cost of stepping SQLite is included.

const (
	benchNarrowRows = 10000
	benchWideRows   = 20000
)

func benchDB(b *testing.B) *sqlbatch.Conn {
	b.Helper()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Error(err)
		}
	})
	_, err = c.ExecScript(`
		CREATE TABLE narrow(id INTEGER PRIMARY KEY);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO narrow SELECT i FROM n;
		CREATE TABLE wide(id INTEGER PRIMARY KEY, i1 INTEGER, i2 INTEGER, i3 INTEGER,
			r1 REAL, r2 REAL, t1 TEXT, t2 TEXT, t3 TEXT, b BLOB);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO wide SELECT i,
			iif(i % 10 = 1, NULL, abs(random()) % 1000),
			iif(i % 10 = 2, NULL, random() >> 24),
			iif(i % 10 = 3, NULL, random()),
			iif(i % 10 = 4, NULL, random() / 1024.0),
			iif(i % 10 = 5, NULL, (abs(random()) % 1000000) / 7.0),
			iif(i % 10 = 6, NULL, substr('alpha café naïve grüße żółw 日本語 ελληνικά 🙂ok beta gamma', 1 + i % 13, 5 + i % 30)),
			iif(i % 10 = 7, NULL, substr('delta naïve ελληνικά café grüße alpha żółw x 日本語 🙂ok', 1 + i % 7, 5 + i % 25)),
			iif(i % 10 = 8, NULL, substr('gamma grüße 日本語 alpha żółw café beta ελληνικά naïve', 1 + i % 11, 5 + i % 35)),
			iif(i % 10 = 9, NULL, randomblob(i % 65))
		FROM n;`, benchNarrowRows, benchWideRows)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func benchRows(b *testing.B, query string, nrows int, read func(r *sqlbatch.Rows) uint64) {
	c := benchDB(b)
	s, err := c.Prepare(query)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var sum uint64
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		r, err := s.Query()
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			sum += read(r)
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*nrows), "cpu-ns/row")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nrows), "ns/row")
	_ = sum
}

func BenchmarkNarrowInt64(b *testing.B) {
	benchRows(b, "SELECT id FROM narrow", benchNarrowRows, func(r *sqlbatch.Rows) uint64 { return uint64(r.Int64(0)) })
}

func BenchmarkNarrowValues(b *testing.B) {
	dst := make([]any, 1)
	benchRows(b, "SELECT id FROM narrow", benchNarrowRows, func(r *sqlbatch.Rows) uint64 {
		r.Values(dst)
		return uint64(dst[0].(int64))
	})
}

func wideSum(r *sqlbatch.Rows) (u uint64) {
	for i := range 10 {
		switch r.Type(i) {
		case sqlbatch.Integer:
			u += uint64(r.Int64(i))
		case sqlbatch.Float:
			u += uint64(int64(r.Float64(i) * 1000))
		case sqlbatch.Text:
			u += uint64(utf8.RuneCountInString(r.Text(i)))
		case sqlbatch.Blob:
			u += uint64(len(r.Blob(i)))
		default:
			u++
		}
	}
	return u
}

const wideQuery = "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"

func BenchmarkWideAccessors(b *testing.B) { benchRows(b, wideQuery, benchWideRows, wideSum) }

func BenchmarkWideValues(b *testing.B) {
	dst := make([]any, 10)
	benchRows(b, wideQuery, benchWideRows, func(r *sqlbatch.Rows) (u uint64) {
		r.Values(dst)
		for _, v := range dst {
			switch v := v.(type) {
			case int64:
				u += uint64(v)
			case float64:
				u += uint64(int64(v * 1000))
			case string:
				u += uint64(utf8.RuneCountInString(v))
			case []byte:
				u += uint64(len(v))
			default:
				u++
			}
		}
		return u
	})
}

// cpuTime returns the CPU time the process has used, in nanoseconds (user and system, all
// threads, so the garbage collector's work counts): on a shared machine it varies less than
// the elapsed time, which includes the time other processes had the CPU.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
