package sqlbatch_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func TestEveryTypeRoundTrips(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE v(x)")
	big := bytes.Repeat([]byte{0xA5}, 1<<20)
	values := []any{
		nil, int64(0), int64(math.MinInt64), int64(math.MaxInt64), int64(255), int64(256),
		0.0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1.5e-300,
		"", "héllo wörld ✓ 𝄞", "nul\x00inside\x00",
		[]byte{}, []byte{0, 1, 2, 255}, big,
	}
	ins, err := c.Prepare("INSERT INTO v VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if _, err := ins.Exec(v); err != nil {
			t.Fatalf("insert %#v: %v", v, err)
		}
	}
	if err := ins.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query("SELECT x FROM v ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		want := values[i]
		got := rows.Value(0)
		// BoxValue gives what Value gives, a BLOB as a copy of its own.
		var boxed any
		rows.BoxValue(0, &boxed)
		if f, ok := got.(float64); ok {
			if g, ok := boxed.(float64); !ok || math.Float64bits(g) != math.Float64bits(f) {
				t.Errorf("%d: BoxValue %#v, Value %#v", i, boxed, got)
			}
		} else if b, ok := got.([]byte); ok {
			g, ok := boxed.([]byte)
			if !ok || g == nil || !bytes.Equal(g, b) {
				t.Errorf("%d: BoxValue %T len %d, Value len %d", i, boxed, len(g), len(b))
			} else if len(g) > 0 {
				g[0] ^= 0xFF
				if rows.Blob(0)[0] == g[0] {
					t.Errorf("%d: BoxValue's BLOB shares its bytes with the row", i)
				}
			}
		} else if boxed != got {
			t.Errorf("%d: BoxValue %#v, Value %#v", i, boxed, got)
		}
		switch w := want.(type) {
		case nil:
			if got != nil || rows.Type(0) != sqlbatch.Null || !rows.IsNull(0) {
				t.Errorf("%d: got %#v, want NULL", i, got)
			}
		case float64:
			g, ok := got.(float64)
			if !ok || math.Float64bits(g) != math.Float64bits(w) || rows.Type(0) != sqlbatch.Float {
				t.Errorf("%d: got %#v, want %v", i, got, w)
			}
		case []byte:
			g, ok := got.([]byte)
			if !ok || !bytes.Equal(g, w) || g == nil || rows.Type(0) != sqlbatch.Blob {
				t.Errorf("%d: got %T len %d, want BLOB len %d", i, got, len(g), len(w))
			}
		case string:
			if got != w || rows.Type(0) != sqlbatch.Text {
				t.Errorf("%d: got %#v, want %q", i, got, w)
			}
		default:
			if got != want || rows.Type(0) != sqlbatch.Integer {
				t.Errorf("%d: got %#v, want %#v", i, got, want)
			}
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(values) {
		t.Fatalf("read %d rows, err %v", i, err)
	}
}

func TestNaNIsStoredAsNull(t *testing.T) {
	c := memory(t)
	rows, err := c.Query("SELECT ?", math.NaN())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() || !rows.IsNull(0) {
		t.Fatal("NaN did not come back as NULL")
	}
}

// numbers makes table n with rows (i, 'row i') for i in 1..count.
func numbers(t testing.TB, c *sqlbatch.Conn, count int) {
	mustExec(t, c, `CREATE TABLE n(i INTEGER PRIMARY KEY, s TEXT);
		WITH RECURSIVE k(i) AS (SELECT 1 WHERE ?1 > 0 UNION ALL SELECT i + 1 FROM k WHERE i < ?1)
		INSERT INTO n SELECT i, printf('row %d', i) FROM k`, count)
}

func TestBatchBoundaries(t *testing.T) {
	for _, tc := range []struct{ rows, batch int }{{0, 5}, {5, 5}, {6, 5}, {10, 5}, {1, 1}, {3, 1}, {1000, 256}, {1025, 256}} {
		c := memory(t)
		numbers(t, c, tc.rows)
		s, err := c.Prepare("SELECT i, s FROM n ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatchRows(tc.batch)
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		next := int64(1)
		for rows.Next() {
			if total, _ := rows.BatchRows(); total > tc.batch {
				t.Fatalf("batch of %d rows, asked for %d", total, tc.batch)
			}
			if rows.Int64(0) != next || rows.Text(1) != fmt.Sprintf("row %d", next) {
				t.Fatalf("rows=%d batch=%d: row %d is (%d, %q)", tc.rows, tc.batch, next, rows.Int64(0), rows.Text(1))
			}
			next++
		}
		if rows.Err() != nil || next-1 != int64(tc.rows) {
			t.Fatalf("rows=%d batch=%d: read %d, err %v", tc.rows, tc.batch, next-1, rows.Err())
		}
		// After the end, Next keeps returning false.
		if rows.Next() {
			t.Fatal("Next after the end returned true")
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStringsOutliveTheirBatch(t *testing.T) {
	c := memory(t)
	numbers(t, c, 2000)
	s, err := c.Prepare("SELECT s, CAST(s AS BLOB) FROM n ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBatchRows(7)
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	var blobs [][]byte
	for rows.Next() {
		texts = append(texts, rows.Text(0))
		blobs = append(blobs, rows.Blob(1))
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	// Overwrite the statement's memory with other rows.
	rows, err = s.Query()
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		_ = rows.RawBytes(0)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for i, txt := range texts {
		want := fmt.Sprintf("row %d", i+1)
		if txt != want || string(blobs[i]) != want || cap(blobs[i]) != len(blobs[i]) {
			t.Fatalf("row %d: text %q blob %q (cap %d), want %q", i+1, txt, blobs[i], cap(blobs[i]), want)
		}
	}
}

func TestConversions(t *testing.T) {
	c := memory(t)
	rows, err := c.Query(`SELECT 42, 2.75, '17 apples', '-3.5e2x', x'3132', NULL, 'abc', 1e300, -1e300, 0.5`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"Text(INTEGER)", rows.Text(0), "42"},
		{"Float64(INTEGER)", rows.Float64(0), 42.0},
		{"Int64(FLOAT)", rows.Int64(1), int64(2)},
		{"Text(FLOAT)", rows.Text(1), "2.75"},
		{"Int64(TEXT)", rows.Int64(2), int64(17)},
		{"Float64(TEXT)", rows.Float64(3), -350.0},
		{"Int64(TEXT float)", rows.Int64(3), int64(-3)}, // sqlite3_column_int64 reads the integer prefix
		{"Text(BLOB)", rows.Text(4), "12"},
		{"Int64(BLOB)", rows.Int64(4), int64(12)},
		{"Int64(NULL)", rows.Int64(5), int64(0)},
		{"Text(NULL)", rows.Text(5), ""},
		{"Blob(NULL) is nil", rows.Blob(5) == nil, true},
		{"Int64(non-number)", rows.Int64(6), int64(0)},
		{"Int64(huge)", rows.Int64(7), int64(math.MaxInt64)},
		{"Int64(-huge)", rows.Int64(8), int64(math.MinInt64)},
		{"Bool", rows.Bool(0), true},
		{"Blob(TEXT)", string(rows.Blob(6)), "abc"},
		{"RawBytes(INTEGER)", rows.RawBytes(0) == nil, true},
		{"Text(0.5)", rows.Text(9), "0.5"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
}

func TestScan(t *testing.T) {
	c := memory(t)
	rows, err := c.Query(`SELECT 7, 1.5, 'txt', x'0102', NULL, 1, '2024-05-06 07:08:09.5+02:00', 1700000000`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	var (
		i     int
		f     float64
		s     string
		b     []byte
		a     any
		ok    bool
		tm    time.Time
		unix  time.Time
		wantT = time.Date(2024, 5, 6, 7, 8, 9, 5e8, time.FixedZone("", 2*3600))
	)
	if err := rows.Scan(&i, &f, &s, &b, &a, &ok, &tm, &unix); err != nil {
		t.Fatal(err)
	}
	if i != 7 || f != 1.5 || s != "txt" || !bytes.Equal(b, []byte{1, 2}) || a != nil || !ok || !tm.Equal(wantT) ||
		!unix.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("Scan got %v %v %q %v %v %v %v %v", i, f, s, b, a, ok, tm, unix)
	}
	if err := rows.Scan(&i); err == nil {
		t.Error("Scan with too few destinations succeeded")
	}
	var ch chan int
	if err := rows.Scan(&i, &f, &s, &b, &a, &ok, &tm, &ch); err == nil {
		t.Error("Scan into a chan succeeded")
	}
}

func TestColumnAccessPanicsOutOfRange(t *testing.T) {
	c := memory(t)
	rows, err := c.Query("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("before Next", func() { rows.Int64(0) })
	rows.Next()
	mustPanic("column 1 of 1", func() { rows.Int64(1) })
	mustPanic("column -1", func() { rows.Text(-1) })
	if rows.Int64(0) != 1 {
		t.Error("column 0 unreadable")
	}
	rows.Next()
	mustPanic("after the end", func() { rows.Int64(0) })
}

func TestErrorAfterSomeRowsComesAfterThem(t *testing.T) {
	c := memory(t)
	numbers(t, c, 10)
	// abs(i64 min) overflows at row 4.
	rows, err := c.Query("SELECT CASE WHEN i = 4 THEN abs(-9223372036854775807 - 1) ELSE i END FROM n ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int64
	for rows.Next() {
		got = append(got, rows.Int64(0))
	}
	if len(got) != 3 || got[2] != 3 {
		t.Errorf("rows before the error: %v", got)
	}
	e := asError(t, rows.Err())
	if e.Code != sqlbatch.ErrError || !strings.Contains(e.Msg, "overflow") {
		t.Errorf("error %v", rows.Err())
	}
}

func TestClosingRowsEarlyRewindsTheStatement(t *testing.T) {
	c := memory(t)
	numbers(t, c, 1000)
	s, err := c.Prepare("SELECT i FROM n ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 3 {
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() || rows.Int64(0) != 1 {
			t.Fatal("the statement did not start over")
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Closed early, the statement no longer holds a read transaction: writing works.
	mustExec(t, c, "DELETE FROM n")
}

func TestRowsColumns(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, note TEXT)")
	s, err := c.Prepare("SELECT id, name AS who, note, 1 + 1 FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cols := s.Columns()
	if len(cols) != 4 || s.ColumnCount() != 4 {
		t.Fatalf("columns %v", cols)
	}
	if cols[1].Name != "who" || cols[1].DeclType != "VARCHAR(20)" || cols[1].Table != "t" || cols[1].Origin != "name" || cols[1].Database != "main" {
		t.Errorf("column 1: %+v", cols[1])
	}
	if cols[3].DeclType != "" || cols[3].Table != "" {
		t.Errorf("expression column: %+v", cols[3])
	}
	if names := s.ColumnNames(); strings.Join(names, ",") != "id,who,note,1 + 1" {
		t.Errorf("names %v", names)
	}
	for i, want := range []struct{ notNull, known bool }{{true, true}, {true, true}, {false, true}, {false, false}} {
		if nn, known := s.ColumnNotNull(i); nn != want.notNull || known != want.known {
			t.Errorf("ColumnNotNull(%d) = %v, %v; want %v, %v", i, nn, known, want.notNull, want.known)
		}
	}
	if !s.Readonly() {
		t.Error("a SELECT is not read-only")
	}
}

func TestErrorsIsOnCodes(t *testing.T) {
	var err error = &sqlbatch.Error{Code: sqlbatch.ErrBusy, ExtendedCode: sqlbatch.ErrBusyTimeout}
	if !errors.Is(err, sqlbatch.ErrBusy) || !errors.Is(err, sqlbatch.ErrBusyTimeout) || errors.Is(err, sqlbatch.ErrLocked) {
		t.Error("errors.Is on codes")
	}
	// Names come from sqlbatch_code_name: every code of SQLite and sqlbatch, with or without
	// a Go constant.
	for code, want := range map[sqlbatch.ErrorCode]string{
		3338:                           "SQLITE_IOERR_ACCESS", // no Go constant
		sqlbatch.ErrConstraintUnique:   "SQLITE_CONSTRAINT_UNIQUE",
		sqlbatch.ErrBusy:               "SQLITE_BUSY",
		sqlbatch.ErrParamCount:         "SQLBATCH_E_PARAM_COUNT",
		sqlbatch.ErrMultipleStatements: "SQLBATCH_E_MULTIPLE_STATEMENTS",
		10 | 200<<8:                    "SQLITE_IOERR(51210)", // unknown extended code
		1023:                           "ErrorCode(1023)",
		-5:                             "ErrorCode(-5)",
	} {
		if got := code.String(); got != want {
			t.Errorf("ErrorCode(%d).String() = %q, want %q", int32(code), got, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = sqlbatch.ErrConstraintUnique.String() }); allocs != 0 {
		t.Errorf("ErrorCode.String allocates %v times", allocs)
	}
	if sqlbatch.ErrConstraintUnique.Primary() != sqlbatch.ErrConstraint || sqlbatch.ErrClosed.Primary() != sqlbatch.ErrClosed {
		t.Error("Primary")
	}
	if sqlbatch.ErrBusy.Error() == "" {
		t.Error("ErrorCode.Error is empty")
	}
}

func TestValuesBoxesEveryType(t *testing.T) {
	c := memory(t)
	numbers(t, c, 700)
	s, err := c.Prepare("SELECT i, i * 1000, i / 2.0, s, CAST(s AS BLOB), NULL, '', x'' FROM n ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBatchRows(64)
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]any
	for rows.Next() {
		vals := make([]any, 8)
		rows.Values(vals)
		kept = append(kept, vals)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for i, v := range kept {
		n := int64(i + 1)
		want := fmt.Sprintf("row %d", n)
		if v[0] != n || v[1] != n*1000 || v[2] != float64(n)/2 || v[3] != want || string(v[4].([]byte)) != want ||
			v[5] != nil || v[6] != "" || v[7] == nil || len(v[7].([]byte)) != 0 {
			t.Fatalf("row %d: %#v", n, v)
		}
	}
	// Fewer destinations than columns read the first ones.
	rows, err = s.Query()
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	two := make([]any, 2)
	rows.Values(two)
	if two[0] != int64(1) || two[1] != int64(1000) {
		t.Fatalf("%#v", two)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
}

// Batches after the first are fetched straight into Go memory (a chunk the statement keeps
// writing into); bytes handed out by Text, Blob or Values must never be overwritten, and
// bytes read only through RawBytes may be.
func TestHandedOutBytesSurviveLaterBatches(t *testing.T) {
	c := memory(t)
	mustExec(t, c, `CREATE TABLE v(i INTEGER PRIMARY KEY, t TEXT, b BLOB);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000)
		INSERT INTO v SELECT i, printf('%d:', i) || substr(hex(zeroblob(i % 700)), 1, (i * 37) % 1500),
			CAST(printf('blob %d', i) || hex(zeroblob(i % 300)) AS BLOB) FROM k`)
	want := func(i int64) (string, string) {
		rows, err := c.Query("SELECT t, b FROM v WHERE i = ?", i)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		rows.Next()
		return strings.Clone(string(rows.RawBytes(0))), strings.Clone(string(rows.RawBytes(1)))
	}
	for _, batch := range []int{1, 7, 64, 256} {
		s, err := c.Prepare("SELECT i, t, b FROM v ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatchRows(batch)
		type kept struct {
			i    int64
			t, b any
		}
		var keep []kept
		for run := 0; run < 2; run++ {
			rows, err := s.Query()
			if err != nil {
				t.Fatal(err)
			}
			for n := 0; rows.Next(); n++ {
				i := rows.Int64(0)
				switch (n/batch + run) % 3 {
				case 0: // hand out the batch's bytes
					keep = append(keep, kept{i, rows.Text(1), rows.Blob(2)})
				case 1: // read in place only
					if tx := rows.RawBytes(1); !strings.HasPrefix(string(tx), fmt.Sprintf("%d:", i)) {
						t.Fatalf("batch %d row %d: RawBytes %q", batch, i, tx)
					}
				case 2: // through Values
					vals := make([]any, 3)
					rows.Values(vals)
					keep = append(keep, kept{i, vals[1], vals[2]})
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		for _, k := range keep {
			wt, wb := want(k.i)
			if k.t != wt || string(k.b.([]byte)) != wb {
				t.Fatalf("batch %d row %d: kept (%.20q, %.20q), want (%.20q, %.20q)", batch, k.i, k.t, k.b, wt, wb)
			}
		}
	}
}

// A row larger than any chunk comes whole, between small ones.
func TestRowLargerThanAChunk(t *testing.T) {
	c := memory(t)
	numbers(t, c, 2000)
	mustExec(t, c, "UPDATE n SET s = s || hex(randomblob(300000)) WHERE i IN (700, 701, 1500)")
	s, err := c.Prepare("SELECT i, s FROM n ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBatchRows(100)
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for rows.Next() {
		texts = append(texts, rows.Text(1))
	}
	if err := rows.Err(); err != nil || len(texts) != 2000 {
		t.Fatalf("%d rows, %v", len(texts), err)
	}
	for i, tx := range texts {
		prefix := fmt.Sprintf("row %d", i+1)
		big := i+1 == 700 || i+1 == 701 || i+1 == 1500
		if !strings.HasPrefix(tx, prefix) || big != (len(tx) == len(prefix)+600000) || (!big && tx != prefix) {
			t.Fatalf("row %d: %d bytes %.20q", i+1, len(tx), tx)
		}
	}
}

// Reading rows in place (RawBytes) makes no Go copy of their bytes: the memory they are
// fetched into is reused from batch to batch.
func TestRawBytesReadingReusesMemory(t *testing.T) {
	c := memory(t)
	numbers(t, c, 5000)
	s, err := c.Prepare("SELECT s || hex(zeroblob(50)) FROM n")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBatchRows(64)
	var total int
	allocs := testing.AllocsPerRun(5, func() {
		rows, err := s.Query()
		if err != nil {
			t.Error(err)
		}
		for rows.Next() {
			total += len(rows.RawBytes(0))
		}
		if err := rows.Close(); err != nil {
			t.Error(err)
		}
	})
	if allocs > 2 {
		t.Fatalf("%.0f allocations to read 5000 rows in place", allocs)
	}
}

func TestNextValuesAndValuesAgree(t *testing.T) {
	c := memory(t)
	numbers(t, c, 20)
	for _, batch := range []int{1, 3, 20, 256} {
		s, err := c.Prepare("SELECT i, s, i / 2.0 FROM n ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatchRows(batch)
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		a, b := make([]any, 3), make([]any, 2)
		n := int64(0)
		for {
			var ok bool
			if n%2 == 0 {
				ok = rows.NextValues(a)
			} else {
				ok = rows.Next()
				rows.Values(a)
			}
			if !ok {
				break
			}
			n++
			rows.Values(b) // again, fewer columns
			if a[0] != n || a[1] != fmt.Sprintf("row %d", n) || a[2] != float64(n)/2 || b[0] != n || b[1] != a[1] {
				t.Fatalf("batch %d row %d: %v %v", batch, n, a, b)
			}
			if rows.Int64(0) != n { // still the same current row
				t.Fatalf("batch %d: current row moved to %d", batch, rows.Int64(0))
			}
		}
		if n != 20 || rows.Err() != nil {
			t.Fatalf("batch %d: %d rows, %v", batch, n, rows.Err())
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Values after the end did not panic")
				}
			}()
			rows.Values(a)
		}()
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// BoxValue copies a BLOB of a small row (in the batch's Go memory) as well as of a large one:
// changing the copy changes neither the row nor a second copy.
func TestBoxValueCopiesBlobs(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE b(v BLOB); INSERT INTO b VALUES (x'0102'), (x'0304')")
	rows, err := c.Query("SELECT v FROM b")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var first, second any
		rows.BoxValue(0, &first)
		rows.BoxValue(0, &second)
		a, b := first.([]byte), second.([]byte)
		want := append([]byte(nil), rows.Blob(0)...)
		a[0] ^= 0xFF
		if !bytes.Equal(b, want) || !bytes.Equal(rows.Blob(0), want) {
			t.Fatalf("row %d: a change to one BoxValue BLOB shows in another copy or in the row", n)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 2 {
		t.Fatalf("%d rows, %v", n, err)
	}
}
