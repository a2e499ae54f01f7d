package driver_test

import (
	"database/sql"
	"syscall"
	"testing"
)

// database/sql over the driver with and without _fetch_ahead: 20,000 rows of six columns,
// scanned into sql.RawBytes and hashed (FNV-1a), so that database/sql's per-row work and the
// caller's can overlap SQLite's stepping of the next batch.
func benchDriverFetch(b *testing.B, opts string) {
	path := b.TempDir() + "/f.db"
	setup, err := sql.Open("sqlbatch", path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := setup.Exec(`CREATE TABLE w(i INTEGER PRIMARY KEY, a INTEGER, f REAL, t TEXT, u TEXT, b BLOB);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
		INSERT INTO w SELECT i, random(), i / 3.0, printf('text %d %s', i, hex(randomblob(8))), 'café ' || i, randomblob(i % 50) FROM n`); err != nil {
		b.Fatal(err)
	}
	if err := setup.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlbatch", path+opts)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cols := make([]sql.RawBytes, 6)
	dest := make([]any, 6)
	for i := range dest {
		dest[i] = &cols[i]
	}
	h := uint64(14695981039346656037)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		rows, err := db.Query("SELECT i, a, f, t, u, b FROM w")
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				b.Fatal(err)
			}
			for _, c := range cols {
				for _, x := range c {
					h = (h ^ uint64(x)) * 1099511628211
				}
			}
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*20000), "cpu-ns/row")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*20000), "ns/row")
	_ = h
}

func BenchmarkDriverFetchSync(b *testing.B)  { benchDriverFetch(b, "") }
func BenchmarkDriverFetchAhead(b *testing.B) { benchDriverFetch(b, "?_fetch_ahead=1") }

// cpuTime is the process's CPU time (user and system, all threads: the worker's too), in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
