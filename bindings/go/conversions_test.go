package sqlbatch_test

import (
	"bytes"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// vector is one line of tests/vectors/conversions.tsv (format in tests/vectors/README.md):
// what SQLite's sqlite3_column_* return for one value.
type vector struct {
	line       int
	kind       sqlbatch.Type
	input      any // int64, float64 bits (uint64), []byte (TEXT or BLOB) or nil
	columnType sqlbatch.Type
	int64      int64
	double     uint64
	text, blob []byte // nil where SQLite returns a NULL pointer
	note       string
}

var typeNames = map[string]sqlbatch.Type{
	"INTEGER": sqlbatch.Integer, "FLOAT": sqlbatch.Float, "TEXT": sqlbatch.Text,
	"BLOB": sqlbatch.Blob, "NULL": sqlbatch.Null,
}

func vectorBytes(t *testing.T, line int, s string) []byte {
	t.Helper()
	if s == "null" {
		return nil
	}
	if !strings.HasPrefix(s, "x") {
		t.Fatalf("line %d: bytes %q do not start with x", line, s)
	}
	b, err := hex.DecodeString(s[1:])
	if err != nil {
		t.Fatalf("line %d: bytes %q: %v", line, s, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

func readVectors(t *testing.T) []vector {
	t.Helper()
	raw, err := os.ReadFile("../../tests/vectors/conversions.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if lines[0] != "kind\tinput\tcolumn_type\tint64\tdouble\ttext\tblob\tnote" {
		t.Fatalf("unexpected header %q", lines[0])
	}
	var vs []vector
	for i, l := range lines[1:] {
		n := i + 2
		f := strings.Split(l, "\t")
		if len(f) != 8 {
			t.Fatalf("line %d: %d fields", n, len(f))
		}
		v := vector{line: n, note: f[7]}
		var ok bool
		if v.kind, ok = typeNames[f[0]]; !ok {
			t.Fatalf("line %d: kind %q", n, f[0])
		}
		if v.columnType, ok = typeNames[f[2]]; !ok {
			t.Fatalf("line %d: column_type %q", n, f[2])
		}
		switch v.kind {
		case sqlbatch.Integer:
			x, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			v.input = x
		case sqlbatch.Float:
			x, err := strconv.ParseUint(f[1], 16, 64)
			if err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			v.input = x
		case sqlbatch.Text, sqlbatch.Blob:
			v.input = vectorBytes(t, n, f[1])
		}
		if v.int64, err = strconv.ParseInt(f[3], 10, 64); err != nil {
			t.Fatalf("line %d: int64: %v", n, err)
		}
		if v.double, err = strconv.ParseUint(f[4], 16, 64); err != nil {
			t.Fatalf("line %d: double: %v", n, err)
		}
		v.text, v.blob = vectorBytes(t, n, f[5]), vectorBytes(t, n, f[6])
		vs = append(vs, v)
	}
	if len(vs) < 50 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

// TestConversionVectors checks every accessor of Rows against what SQLite itself returns
// (tests/vectors/conversions.tsv): each vector's value is stored in a table column without
// affinity and read back, in batches of 7 rows, so that the first batch is read from the
// statement's C memory and the later ones from the Go chunks fetched into.
func TestConversionVectors(t *testing.T) {
	vs := readVectors(t)
	c := memory(t)
	mustExec(t, c, "CREATE TABLE v(x)")
	var p sqlbatch.Params
	for _, v := range vs {
		switch x := v.input.(type) {
		case int64:
			p.Int64(x)
		case uint64:
			p.Float64(math.Float64frombits(x))
		case []byte:
			if v.kind == sqlbatch.Text {
				p.TextBytes(x)
			} else {
				p.Blob(x)
			}
		default:
			p.Null()
		}
	}
	if _, err := c.ExecMany("INSERT INTO v VALUES (?)", &p); err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare("SELECT x FROM v ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBatchRows(7)
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for _, v := range vs {
		if !rows.Next() {
			t.Fatalf("no row for line %d: %v", v.line, rows.Err())
		}
		where := "line " + strconv.Itoa(v.line) + " (" + v.note + ")"
		if got := rows.Type(0); got != v.columnType {
			t.Errorf("%s: Type %v, want %v", where, got, v.columnType)
		}
		// Each accessor twice, in both orders, so that a conversion cannot depend on a
		// previous read of the cell.
		for range 2 {
			if got := rows.Int64(0); got != v.int64 {
				t.Errorf("%s: Int64 %d, want %d", where, got, v.int64)
			}
			if got := rows.Float64(0); math.Float64bits(got) != v.double {
				t.Errorf("%s: Float64 %v (%016x), want %v (%016x)", where, got, math.Float64bits(got),
					math.Float64frombits(v.double), v.double)
			}
			if got := rows.Text(0); got != string(v.text) { // null: ""
				t.Errorf("%s: Text %q, want %q", where, got, v.text)
			}
			got := rows.Blob(0)
			if !bytes.Equal(got, v.blob) {
				t.Errorf("%s: Blob %x, want %x", where, got, v.blob)
			}
			if (got == nil) != (v.columnType == sqlbatch.Null) {
				t.Errorf("%s: Blob nil is %v for a %v", where, got == nil, v.columnType)
			}
		}
		if got, want := rows.Bool(0), v.int64 != 0; got != want {
			t.Errorf("%s: Bool %v, want %v", where, got, want)
		}
		var (
			i   int64
			f   float64
			str string
			b   []byte
		)
		if err := rows.Scan(&i); err != nil || i != v.int64 {
			t.Errorf("%s: Scan *int64 %d %v", where, i, err)
		}
		if err := rows.Scan(&f); err != nil || math.Float64bits(f) != v.double {
			t.Errorf("%s: Scan *float64 %v %v", where, f, err)
		}
		if err := rows.Scan(&str); err != nil || str != string(v.text) {
			t.Errorf("%s: Scan *string %q %v", where, str, err)
		}
		if err := rows.Scan(&b); err != nil || !bytes.Equal(b, v.blob) {
			t.Errorf("%s: Scan *[]byte %x %v", where, b, err)
		}
		// Value is the storage class's own value, no conversion.
		switch x := rows.Value(0).(type) {
		case int64:
			if v.columnType != sqlbatch.Integer || x != v.int64 {
				t.Errorf("%s: Value int64 %d", where, x)
			}
		case float64:
			if v.columnType != sqlbatch.Float || math.Float64bits(x) != v.double {
				t.Errorf("%s: Value float64 %v", where, x)
			}
		case string:
			if v.columnType != sqlbatch.Text || x != string(v.text) || !bytes.Equal(rows.RawBytes(0), v.text) {
				t.Errorf("%s: Value string %q", where, x)
			}
		case []byte:
			if v.columnType != sqlbatch.Blob || !bytes.Equal(x, v.blob) || !bytes.Equal(rows.RawBytes(0), v.blob) {
				t.Errorf("%s: Value []byte %x", where, x)
			}
		case nil:
			if v.columnType != sqlbatch.Null {
				t.Errorf("%s: Value nil", where)
			}
		}
	}
	if rows.Next() {
		t.Error("more rows than vectors")
	}
}

// TestConversionsAreSQLites spells out the cases the binding used to get wrong with a Go
// conversion of its own.
func TestConversionsAreSQLites(t *testing.T) {
	c := memory(t)
	rows, err := c.Query(`SELECT '1e3', ' +5.5e1', 1e21, ?, ?, '-3.5e2x', '0x10', '  12abc'`,
		math.Copysign(0, -1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	for _, ch := range []struct {
		name      string
		got, want any
	}{
		{"Int64('1e3')", rows.Int64(0), int64(1)},
		{"Float64('1e3')", rows.Float64(0), 1000.0},
		{"Int64(' +5.5e1')", rows.Int64(1), int64(5)},
		{"Float64(' +5.5e1')", rows.Float64(1), 55.0},
		{"Text(1e21)", rows.Text(2), "1.0e+21"},
		{"Blob(1e21)", string(rows.Blob(2)), "1.0e+21"},
		{"Text(-0.0)", rows.Text(3), "0.0"},
		{"Text(+Inf)", rows.Text(4), "Inf"},
		{"Int64('-3.5e2x')", rows.Int64(5), int64(-3)},
		{"Float64('-3.5e2x')", rows.Float64(5), -350.0},
		{"Int64('0x10')", rows.Int64(6), int64(0)},
		{"Int64('  12abc')", rows.Int64(7), int64(12)},
	} {
		if ch.got != ch.want {
			t.Errorf("%s = %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
	// A conversion to a number allocates nothing; one to text only the string.
	if n := testing.AllocsPerRun(100, func() { _ = rows.Int64(0) + int64(rows.Float64(1)) }); n != 0 {
		t.Errorf("Int64 and Float64 of TEXT allocate %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = rows.Text(2) }); n > 1 {
		t.Errorf("Text of a REAL allocates %v times", n)
	}
}

// In a UTF-16 database SQLite reads a BLOB's bytes as text of the database's encoding when
// it makes a number of them: CAST('12' AS BLOB) is 00 31 00 32 in UTF-16BE, which is 12.
func TestBlobToNumberInUTF16Databases(t *testing.T) {
	for _, enc := range []string{"UTF-16le", "UTF-16be", "UTF-8"} {
		c := memory(t)
		if _, err := c.ExecScript(`PRAGMA encoding = '` + enc + `'; CREATE TABLE t(v)`); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecScript(`INSERT INTO t VALUES (CAST('12' AS BLOB)), (CAST(' -2.5e1x' AS BLOB))`); err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(`SELECT v FROM t ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			got = append(got, strconv.FormatInt(rows.Int64(0), 10), strconv.FormatFloat(rows.Float64(0), 'g', -1, 64))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if want := "12 12 -2 -25"; strings.Join(got, " ") != want {
			t.Errorf("%s: Int64 and Float64 of the BLOBs = %v, want %s", enc, got, want)
		}
	}
}
