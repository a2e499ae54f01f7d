package driver_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// largeSizes are the TEXT and BLOB sizes of the rows of TestLargeAndSmallRowsScan: rows over
// the 32 KiB of the small-row regime (read out of C memory, value by value) and small ones
// in turn, then a row larger than any before (3 MB, beyond the 1 MiB batch bound).
var largeSizes = []int{300000, 10, 20, 0, 300000, 5, 3000000, 7, 40000, 3, 250000, 9, 9, 9}

func largeText(i, n int) string { return strings.Repeat(string(rune('a'+i%26)), n) }

func largeBlob(i, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(i*13 + k)
	}
	return b
}

// Rows that switch between large and small, scanned through database/sql (Next before Go
// 1.27, ScanColumn from it on) into *int64, *string, *[]byte, *sql.RawBytes and *any at
// several batch sizes: every value is right while it is read, and the strings and slices
// kept stay intact after the later rows and after Close.
func TestLargeAndSmallRowsScan(t *testing.T) {
	for _, batch := range []string{"1", "2", "256"} {
		db := open(t, "_batch_rows="+batch)
		exec(t, db, "CREATE TABLE m(i INTEGER PRIMARY KEY, t TEXT, b BLOB)")
		for i, n := range largeSizes {
			exec(t, db, "INSERT INTO m VALUES (?, ?, ?)", i, largeText(i, n), largeBlob(i, n))
		}
		type kept struct {
			i   int64
			tx  string
			b   []byte
			any any
		}
		// RawBytes first (database/sql allows no second Scan of a row after one into RawBytes).
		rows, err := db.Query("SELECT i, b FROM m ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var i int64
			var raw sql.RawBytes
			if err := rows.Scan(&i, &raw); err != nil {
				t.Fatal(err)
			}
			if n := largeSizes[i]; !bytes.Equal(raw, largeBlob(int(i), n)) {
				t.Fatalf("batch %s row %d: RawBytes of %d bytes, want %d", batch, i, len(raw), n)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		rows, err = db.Query("SELECT i, t, b, b FROM m ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		var keep []kept
		for rows.Next() {
			var k kept
			if err := rows.Scan(&k.i, &k.tx, &k.b, &k.any); err != nil {
				t.Fatal(err)
			}
			keep = append(keep, k)
		}
		if err := rows.Err(); err != nil || len(keep) != len(largeSizes) {
			t.Fatalf("batch %s: %d rows, %v", batch, len(keep), err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		for _, k := range keep {
			n := largeSizes[k.i]
			a, _ := k.any.([]byte)
			if k.tx != largeText(int(k.i), n) || !bytes.Equal(k.b, largeBlob(int(k.i), n)) || !bytes.Equal(a, k.b) {
				t.Fatalf("batch %s row %d (%d bytes) after Close: %d text bytes, %d and %d blob bytes", batch, k.i, n, len(k.tx), len(k.b), len(a))
			}
		}
	}
}

// BenchmarkLargeValuesSQL is the runner's large_values through database/sql: rows of a 200 KB
// TEXT and a 200 KB BLOB scanned into *int64, *string and *[]byte; it reports the bytes
// allocated per row (B/op over the rows) and the time per row.
func BenchmarkLargeValuesSQL(b *testing.B) {
	db := open(b, "")
	const n, size = 100, 200000
	exec(b, db, fmt.Sprintf(`CREATE TABLE big(id INTEGER PRIMARY KEY, t TEXT NOT NULL, b BLOB NOT NULL);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)
		INSERT INTO big SELECT i, printf('%%.*c', %d, 'x'), randomblob(%d) FROM k`, n, size, size))
	var (
		id  int64
		s   string
		buf []byte
		sum int
	)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		rows, err := db.Query("SELECT id, t, b FROM big ORDER BY id")
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			if err := rows.Scan(&id, &s, &buf); err != nil {
				b.Fatal(err)
			}
			sum += int(id) + len(s) + len(buf)
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if sum == 0 {
		b.Fatal("no rows")
	}
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/row")
	b.ReportMetric(float64(after.NumGC-before.NumGC)/float64(b.N*n)*1000, "GCs/1000rows")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "us/row")
}
