package sqlbatch_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func growingText(i, n int) string {
	p := fmt.Sprintf("%d:", i)
	return p + strings.Repeat(fmt.Sprintf("%02d", i%100), (n-len(p))/2)
}

// Rows of growing sizes, from a few bytes to well over the 32 KiB chunk and the 1 MiB batch
// bound, read whole through Text and Blob (kept until the end, so that every chunk stays
// handed out), through Values, and in place, at several batch sizes.
func TestGrowingRowsReadWhole(t *testing.T) {
	c := memory(t)
	size := func(i int) int { return 16 + i*i*40 } // row 200: 1.6 MB of TEXT and as much BLOB
	const n = 200
	mustExec(t, c, "CREATE TABLE g(i INTEGER PRIMARY KEY, t TEXT, b BLOB)")
	ins, err := c.Prepare("INSERT INTO g VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	blob := func(i int) []byte { return []byte(strings.Repeat(string([]byte{byte(i % 251)}), size(i))) }
	for i := 1; i <= n; i++ {
		if _, err := ins.Exec(i, growingText(i, size(i)), blob(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(mode string, batch, i int, tx string, b []byte) {
		t.Helper()
		if tx != growingText(i, size(i)) || string(b) != string(blob(i)) {
			t.Fatalf("%s batch %d row %d: %d text bytes %.12q, %d blob bytes", mode, batch, i, len(tx), tx, len(b))
		}
	}
	for _, batch := range []int{1, 3, 256} {
		for _, mode := range []string{"text", "values", "raw"} {
			s, err := c.Prepare("SELECT i, t, b FROM g ORDER BY i")
			if err != nil {
				t.Fatal(err)
			}
			s.SetBatchRows(batch)
			rows, err := s.Query()
			if err != nil {
				t.Fatal(err)
			}
			type kept struct {
				i  int
				tx string
				b  []byte
			}
			var keep []kept
			vals := make([]any, 3)
			for rows.Next() {
				i := int(rows.Int64(0))
				switch mode {
				case "text":
					keep = append(keep, kept{i, rows.Text(1), rows.Blob(2)})
				case "values":
					rows.Values(vals)
					keep = append(keep, kept{i, vals[1].(string), vals[2].([]byte)})
				case "raw":
					check(mode, batch, i, string(rows.RawBytes(1)), rows.RawBytes(2))
					keep = append(keep, kept{i: i})
				}
			}
			if err := rows.Err(); err != nil || len(keep) != n {
				t.Fatalf("%s batch %d: %d rows, %v", mode, batch, len(keep), err)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			if mode != "raw" {
				for _, k := range keep {
					check(mode, batch, k.i, k.tx, k.b)
				}
			}
		}
	}
}

// A stream of rows larger than the 32 KiB chunk allocates about what it hands out: the
// chunks are sized from the rows (several to a chunk, not a 32 KiB chunk thrown away and a
// second fetch per row), and not a copy of each row besides.
func TestLargeRowsAllocateTheirBytesOnce(t *testing.T) {
	c := memory(t)
	const n, size = 300, 200000
	mustExec(t, c, fmt.Sprintf(`CREATE TABLE big(i INTEGER PRIMARY KEY, b BLOB);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)
		INSERT INTO big SELECT i, randomblob(%d) FROM k`, n, size))
	s, err := c.Prepare("SELECT b FROM big ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var total int
	read := func() {
		rows, err := s.Query()
		if err != nil {
			t.Error(err)
		}
		for rows.Next() {
			total += len(rows.Blob(0))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			t.Error(err)
		}
	}
	read()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	perRow := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.0f bytes allocated per row of %d bytes", perRow, size)
	if perRow > 1.1*size {
		t.Fatalf("%.0f bytes allocated per row of %d bytes", perRow, size)
	}
	if total != 2*n*size {
		t.Fatalf("read %d bytes", total)
	}
}
