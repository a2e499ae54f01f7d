package sqlbatch_test

import (
	"bytes"
	"database/sql"
	"os"
	"runtime"
	"strconv"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// streamRows is how many rows the streaming tests read (about 5 s each; they skip themselves
// under the race detector, so they run in the Makefile's test-dynamic pass).
const streamRows = 10_000_000

// rssBytes is the resident set size of the process, from /proc/self/statm.
func rssBytes(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := bytes.Fields(b)
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

const streamQuery = "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) SELECT i, printf('row number %d', i), zeroblob(i % 32) FROM k"

// rssWatch samples RSS every 2^16 rows after a warm-up of 2^18 rows.
type rssWatch struct {
	t          testing.TB
	base, peak int64
}

func (w *rssWatch) sample(n int) {
	if n&0xffff != 0 {
		return
	}
	if n == 1<<18 {
		runtime.GC()
		w.base = rssBytes(w.t)
		w.peak = w.base
	} else if n > 1<<18 {
		w.peak = max(w.peak, rssBytes(w.t))
	}
}

func (w *rssWatch) check(name string, rows int) {
	growth := w.peak - w.base
	w.t.Logf("%s: %d rows; RSS after warm-up %.1f MiB, peak %.1f MiB (growth %.2f MiB)", name, rows,
		float64(w.base)/(1<<20), float64(w.peak)/(1<<20), float64(growth)/(1<<20))
	if growth > 8<<20 {
		w.t.Errorf("%s: RSS grew by %d bytes while streaming (batches are at most %d rows / %d bytes)",
			name, growth, sqlbatch.DefaultBatchRows, sqlbatch.DefaultBatchBytes)
	}
}

// Streaming a large result through Conn.Query keeps RSS within a few MiB of the batch
// bound: nothing accumulates per row (strings handed out point into chunks the GC frees).
func TestStreamingKeepsRSSNearTheBatchBound(t *testing.T) {
	if raceEnabled {
		t.Skip("memory figures are meaningless under the race detector")
	}
	n := streamRows
	c := memory(t)
	rows, err := c.Query(streamQuery, n)
	if err != nil {
		t.Fatal(err)
	}
	w := rssWatch{t: t}
	var count, sum, textBytes int
	for rows.Next() {
		count++
		sum += int(rows.Int64(0))
		textBytes += len(rows.Text(1)) + len(rows.Blob(2))
		w.sample(count)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if count != n || sum != n*(n+1)/2 || textBytes == 0 {
		t.Fatalf("read %d rows, sum %d", count, sum)
	}
	w.check("Conn.Query", count)
}

// The same through database/sql (Rows.Next and Scan into a string and a []byte).
func TestStreamingThroughDatabaseSQLKeepsRSSNearTheBatchBound(t *testing.T) {
	if raceEnabled {
		t.Skip("memory figures are meaningless under the race detector")
	}
	n := streamRows
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(streamQuery, n)
	if err != nil {
		t.Fatal(err)
	}
	w := rssWatch{t: t}
	var (
		count, sum int
		i          int64
		s          string
		b          []byte
	)
	for rows.Next() {
		if err := rows.Scan(&i, &s, &b); err != nil {
			t.Fatal(err)
		}
		count++
		sum += int(i)
		w.sample(count)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if count != n || sum != n*(n+1)/2 || s != "row number "+strconv.Itoa(n) {
		t.Fatalf("read %d rows, sum %d, last %q", count, sum, s)
	}
	w.check("database/sql", count)
}
