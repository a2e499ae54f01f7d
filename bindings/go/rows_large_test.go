package sqlbatch_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// switchSizes are the TEXT (and BLOB) sizes of the rows of switchTable: large rows (over the
// 32 KiB of the small-row regime) and small ones in turn, a row larger than any before it
// (3 MB, beyond the 1 MiB batch bound too), empty values and NULLs (-1).
var switchSizes = []int{300000, 10, 20, 0, 50, 300000, 5, -1, 3000000, 7, 7, 40000, 33000, 100, 120000, 3, 2, 1, 250000}

func switchText(i, n int) string {
	b := make([]byte, n)
	for k := range b {
		b[k] = 'a' + byte((i+k)%26)
	}
	return string(b)
}

func switchBlob(i, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(i*31 + k*7)
	}
	return b
}

// switchTable makes m(i, t, b, f) with one row per switchSizes, and a run of small rows after it
// (whose small batches follow a large one).
func switchTable(t *testing.T, c *sqlbatch.Conn) int {
	mustExec(t, c, "CREATE TABLE m(i INTEGER PRIMARY KEY, t TEXT, b BLOB, f REAL)")
	ins, err := c.Prepare("INSERT INTO m VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	n := 0
	for i, size := range append(switchSizes, 9, 9, 9, 9, 9, 9, 9, 9) {
		n++
		var err error
		if size < 0 {
			_, err = ins.Exec(i, nil, nil, nil)
		} else {
			_, err = ins.Exec(i, switchText(i, size), switchBlob(i, size), float64(i)/4)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func switchSize(i int) int {
	if i < len(switchSizes) {
		return switchSizes[i]
	}
	return 9
}

// Rows that switch between large and small within one result, read through Text and Blob,
// Values, Scan and RawBytes at several batch sizes: every value is right, and the strings and
// slices kept stay intact after later rows and after Close (and a GC); Blob's and Values'
// slices have their length as capacity.
func TestRowsSwitchBetweenLargeAndSmall(t *testing.T) {
	c := memory(t)
	n := switchTable(t, c)
	type kept struct {
		i     int
		null  bool
		tx    string
		b     []byte
		f     float64
		bFrom string // the accessor the slice came from
	}
	check := func(where string, k kept) {
		t.Helper()
		size := switchSize(k.i)
		if size < 0 {
			if !k.null || k.tx != "" || k.b != nil {
				t.Fatalf("%s row %d: NULLs read as %q, %v", where, k.i, k.tx, k.b)
			}
			return
		}
		if k.tx != switchText(k.i, size) || !bytes.Equal(k.b, switchBlob(k.i, size)) || k.f != float64(k.i)/4 {
			t.Fatalf("%s row %d (%d bytes): %d text bytes %.12q, %d blob bytes, %v", where, k.i, size, len(k.tx), k.tx, len(k.b), k.f)
		}
		if (k.bFrom == "text" || k.bFrom == "values") && cap(k.b) != len(k.b) {
			t.Fatalf("%s row %d: %s gave cap %d for len %d", where, k.i, k.bFrom, cap(k.b), len(k.b))
		}
	}
	for _, batch := range []int{1, 2, 3, 256} {
		for _, mode := range []string{"text", "values", "scan", "raw"} {
			where := fmt.Sprintf("%s, batch %d", mode, batch)
			s, err := c.Prepare("SELECT i, t, b, f FROM m ORDER BY i")
			if err != nil {
				t.Fatal(err)
			}
			s.SetBatchRows(batch)
			rows, err := s.Query()
			if err != nil {
				t.Fatal(err)
			}
			var keep []kept
			vals := make([]any, 4)
			for rows.Next() {
				k := kept{i: int(rows.Int64(0)), null: rows.IsNull(1), bFrom: mode}
				switch mode {
				case "text":
					k.tx, k.b, k.f = rows.Text(1), rows.Blob(2), rows.Float64(3)
				case "values":
					rows.Values(vals)
					if !k.null {
						k.tx, k.b, k.f = vals[1].(string), vals[2].([]byte), vals[3].(float64)
					} else if vals[1] != nil || vals[2] != nil || vals[3] != nil {
						t.Fatalf("%s row %d: NULLs as %v", where, k.i, vals)
					}
				case "scan":
					var i int64
					if err := rows.Scan(&i, &k.tx, &k.b, &k.f); err != nil {
						t.Fatal(err)
					}
				case "raw":
					k.tx, k.b, k.f = string(rows.RawBytes(1)), bytes.Clone(rows.RawBytes(2)), rows.Float64(3)
				}
				check(where, k)
				keep = append(keep, k)
			}
			if err := rows.Err(); err != nil || len(keep) != n {
				t.Fatalf("%s: %d rows, %v", where, len(keep), err)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			for _, k := range keep {
				check(where+", after Close", k)
			}
		}
	}
}

// TestLargeBlobWritesStayTheirs: in a batch of large rows, Blob copies the value: writing into
// one slice changes neither a later Blob of the same cell nor RawBytes.
func TestLargeBlobWritesStayTheirs(t *testing.T) {
	c := memory(t)
	switchTable(t, c)
	rows, err := c.Query("SELECT b FROM m WHERE i = 0")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	b := rows.Blob(0)
	want := switchBlob(0, switchSizes[0])
	for k := range b {
		b[k] = 0
	}
	if !bytes.Equal(rows.Blob(0), want) || !bytes.Equal(rows.RawBytes(0), want) {
		t.Fatal("a write into a large row's Blob reached the batch")
	}
}

// In a batch of large rows, RawBytes is a view (no allocation, as in small batches), and it
// stays valid until the next Next; Text and Blob are copies of only the value asked for.
func TestLargeRowsRawBytesIsAView(t *testing.T) {
	c := memory(t)
	switchTable(t, c)
	s, err := c.Prepare("SELECT t, b FROM m WHERE i IN (0, 5, 8) ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBatchRows(1) // every row a batch of its own: the second is fetched as a large one
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for _, i := range []int{0, 5, 8} {
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		size := switchSizes[i]
		var raw []byte
		if a := testing.AllocsPerRun(20, func() { raw = rows.RawBytes(1) }); a != 0 {
			t.Fatalf("row %d: RawBytes allocated %v times", i, a)
		}
		tx := rows.RawBytes(0)
		if string(tx) != switchText(i, size) || !bytes.Equal(raw, switchBlob(i, size)) {
			t.Fatalf("row %d: RawBytes gave %d and %d bytes", i, len(tx), len(raw))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := rows.Text(0)
		runtime.ReadMemStats(&after)
		if got != switchText(i, size) {
			t.Fatalf("row %d: Text gave %d bytes", i, len(got))
		}
		// The text's own bytes, not the row's (the blob besides): at most a page or so over.
		if d := after.TotalAlloc - before.TotalAlloc; d < uint64(size) || d > uint64(size)+16<<10 {
			t.Fatalf("row %d: Text of %d bytes allocated %d bytes", i, size, d)
		}
	}
	if rows.Next() {
		t.Fatal("a fourth row")
	}
}

// largeValuesTable makes big(id, t, b) with n rows of a size-byte TEXT and a size-byte BLOB,
// the shape of the runner's large_values.
func largeValuesTable(t testing.TB, c *sqlbatch.Conn, n, size int) {
	mustExec(t, c, fmt.Sprintf(`CREATE TABLE big(id INTEGER PRIMARY KEY, t TEXT NOT NULL, b BLOB NOT NULL);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)
		INSERT INTO big SELECT i, printf('%%.*c', %d, 'x'), randomblob(%d) FROM k`, n, size, size))
}

// allocPerRow returns the bytes allocated per row by read (run once first, to warm up).
func allocPerRow(read func(), n int) float64 {
	read()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// A stream of large rows allocates what is read of them, copied once: Text alone costs the
// TEXT's bytes (not a chunk of whole rows), Values and Scan's *[]byte the TEXT's and the
// BLOB's (not a copy of the copy).
func TestLargeRowsAllocateOnlyWhatIsRead(t *testing.T) {
	c := memory(t)
	const n, size = 200, 200000
	largeValuesTable(t, c, n, size)
	s, err := c.Prepare("SELECT id, t, b FROM big ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var total int
	for _, tc := range []struct {
		name  string
		limit float64
		row   func(*sqlbatch.Rows)
	}{
		{"Text", 1.05 * size, func(r *sqlbatch.Rows) { total += len(r.Text(1)) }},
		{"Blob", 1.05 * size, func(r *sqlbatch.Rows) { total += len(r.Blob(2)) }},
		{"RawBytes", 0.05 * size, func(r *sqlbatch.Rows) { total += len(r.RawBytes(1)) + len(r.RawBytes(2)) }},
		{"Values", 2.1 * size, func(r *sqlbatch.Rows) {
			vals := make([]any, 3)
			r.Values(vals)
			total += len(vals[1].(string)) + len(vals[2].([]byte))
		}},
		{"Scan", 2.1 * size, func(r *sqlbatch.Rows) {
			var id int64
			var tx string
			var b []byte
			if err := r.Scan(&id, &tx, &b); err != nil {
				t.Fatal(err)
			}
			total += len(tx) + len(b)
		}},
	} {
		total = 0
		perRow := allocPerRow(func() {
			rows, err := s.Query()
			if err != nil {
				t.Error(err)
			}
			for rows.Next() {
				tc.row(rows)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if err := rows.Close(); err != nil {
				t.Error(err)
			}
		}, n)
		t.Logf("%s: %.0f bytes allocated per row of 2 x %d bytes", tc.name, perRow, size)
		if perRow > tc.limit {
			t.Errorf("%s: %.0f bytes allocated per row of 2 x %d bytes, want at most %.0f", tc.name, perRow, size, tc.limit)
		}
		if total == 0 || total%size != 0 {
			t.Errorf("%s: read %d bytes", tc.name, total)
		}
	}
}

// BenchmarkLargeValuesRows reads rows of the runner's large_values shape (a 200 KB TEXT and a
// 200 KB BLOB) with Text and Blob, reporting the bytes allocated per row.
func BenchmarkLargeValuesRows(b *testing.B) {
	c := memory(b)
	const n, size = 100, 200000
	largeValuesTable(b, c, n, size)
	s, err := c.Prepare("SELECT id, t, b FROM big ORDER BY id")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	var sum int
	for b.Loop() {
		rows, err := s.Query()
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			sum += int(rows.Int64(0)) + len(rows.Text(1)) + len(rows.Blob(2))
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
	}
	if sum == 0 {
		b.Fatal("no rows")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "us/row")
}

// NextValuesTransient gives the values NextValues gives, with the BLOBs of large rows in
// place (no copy, the bytes RawBytes would give) and everything else as NextValues has it.
func TestNextValuesTransient(t *testing.T) {
	c := memory(t)
	n := switchTable(t, c)
	for _, batch := range []int{1, 3, 256} {
		s, err := c.Prepare("SELECT i, t, b, f FROM m ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatchRows(batch)
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, 4)
		var texts []string
		got := 0
		for rows.NextValuesTransient(vals) {
			i := int(vals[0].(int64))
			size := switchSize(i)
			if size < 0 {
				if vals[1] != nil || vals[2] != nil {
					t.Fatalf("batch %d row %d: NULLs as %v", batch, i, vals[1:])
				}
			} else {
				b := vals[2].([]byte)
				if vals[1].(string) != switchText(i, size) || !bytes.Equal(b, switchBlob(i, size)) {
					t.Fatalf("batch %d row %d: wrong values", batch, i)
				}
				// With a batch a row, every row over 32 KiB is a large batch.
				if batch == 1 && size > 32<<10 && &b[0] != &rows.RawBytes(2)[0] {
					t.Fatalf("batch %d row %d: a large row's BLOB was copied", batch, i)
				}
				texts = append(texts, vals[1].(string))
			}
			got++
		}
		if err := rows.Err(); err != nil || got != n {
			t.Fatalf("batch %d: %d rows, %v", batch, got, err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		k := 0
		for i := 0; i < n; i++ {
			if size := switchSize(i); size >= 0 {
				if texts[k] != switchText(i, size) {
					t.Fatalf("batch %d row %d: text changed after Close", batch, i)
				}
				k++
			}
		}
	}
}
