//go:build go1.27

package driver_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"uuid"

	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// Go 1.27's database/sql reads the driver's rows through driver.RowsColumnScanner (NextRow
// and ScanColumn); nextOnly hides that interface, so that database/sql reads the same rows
// through Next and converts them itself (convertAssign), as every Go before 1.27 does. The
// differential test below scans the same rows both ways.
type nextOnly struct{ sqldriver.Driver }

func (d nextOnly) Open(name string) (sqldriver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return nextOnlyConn{c}, nil
}

type nextOnlyConn struct{ sqldriver.Conn }

func (c nextOnlyConn) QueryContext(ctx context.Context, query string, args []sqldriver.NamedValue) (sqldriver.Rows, error) {
	r, err := c.Conn.(sqldriver.QueryerContext).QueryContext(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return nextOnlyRows{r}, nil
}

// nextOnlyRows has Columns, Close and Next only.
type nextOnlyRows struct{ sqldriver.Rows }

func init() { sql.Register("sqlbatch-next-only", nextOnly{&driver.Driver{}}) }

func TestRowsAreColumnScanners(t *testing.T) {
	db := open(t, "")
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		r, err := dc.(sqldriver.QueryerContext).QueryContext(context.Background(), "SELECT 1", nil)
		if err != nil {
			return err
		}
		defer r.Close()
		if _, ok := r.(sqldriver.RowsColumnScanner); !ok {
			return fmt.Errorf("%T is not a driver.RowsColumnScanner", r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scanRecorder is a sql.Scanner that keeps what it was given (a copy of a []byte), and fails
// on the TEXT "fail".
type scanRecorder struct{ src any }

func (s *scanRecorder) Scan(src any) error {
	if b, ok := src.([]byte); ok {
		src = append([]byte(nil), b...)
	}
	s.src = src
	if src == "fail" {
		return errors.New("scanRecorder refuses fail")
	}
	return nil
}

type (
	myInt    int64
	myString string
	myFloat  float32
)

// scanDests makes one new destination of each kind the differential test scans into: every
// destination ScanColumn writes itself, and others that it leaves to sql.ConvertAssign.
var scanDests = []func() any{
	func() any { return new(int64) },
	func() any { return new(int) },
	func() any { return new(int32) },
	func() any { return new(int16) },
	func() any { return new(int8) },
	func() any { return new(uint64) },
	func() any { return new(uint32) },
	func() any { return new(uint8) },
	func() any { return new(float64) },
	func() any { return new(float32) },
	func() any { return new(string) },
	func() any { return new([]byte) },
	func() any { return new(bool) },
	func() any { return new(time.Time) },
	func() any { return new(any) },
	func() any { return new(sql.NullInt64) },
	func() any { return new(sql.NullInt32) },
	func() any { return new(sql.NullInt16) },
	func() any { return new(sql.NullByte) },
	func() any { return new(sql.NullFloat64) },
	func() any { return new(sql.NullString) },
	func() any { return new(sql.NullBool) },
	func() any { return new(sql.NullTime) },
	func() any { return new(sql.Null[int64]) },
	func() any { return new(sql.Null[int]) },
	func() any { return new(sql.Null[int32]) },
	func() any { return new(sql.Null[uint8]) },
	func() any { return new(sql.Null[float64]) },
	func() any { return new(sql.Null[string]) },
	func() any { return new(sql.Null[[]byte]) },
	func() any { return new(sql.Null[bool]) },
	func() any { return new(sql.Null[time.Time]) },
	func() any { return new(sql.Null[any]) },
	func() any { return new(uuid.UUID) },
	func() any { return new(myInt) },
	func() any { return new(myString) },
	func() any { return new(myFloat) },
	func() any { return new(*int64) },
	func() any { return new(*string) },
	func() any { return new(scanRecorder) },
	func() any { return int64(0) }, // not a pointer: an error
	func() any { return nil },      // an error too
}

// scanValues are the values the random rows are made of: every SQLite storage class, edge
// values, and texts and blobs that parse as numbers, bools, times and UUIDs and that don't.
var scanValues = []any{
	nil,
	int64(0), int64(1), int64(-1), int64(2), int64(255), int64(256), int64(-256),
	int64(math.MaxInt32), int64(math.MaxInt32) + 1, int64(math.MinInt32), int64(math.MinInt32) - 1,
	int64(math.MaxInt64), int64(math.MinInt64), int64(1<<53 + 1), int64(1e12 + 1), int64(1700000000),
	0.0, math.Copysign(0, -1), 1.0, -1.0, 0.5, 3.0, 1e21, 1e20, 123456789.0, 100000.0, 1e300, -1e300,
	math.Inf(1), math.Inf(-1), 1e-7, 0x1p63, 2459000.5, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1,
	"", "0", "1", "-1", "123", "+5", " 7", "7 ", "9223372036854775807", "9223372036854775808",
	"-9223372036854775809", "2147483648", "1.5", "1e3", "3.0", "inf", "-Inf", "NaN", "0x10", "1_000",
	"true", "false", "t", "F", "TRUE", "yes", "fail", "abc", "héllo ☃", "2020-01-02 03:04:05",
	"2020-01-02T03:04:05Z", "2020-01-02 03:04:05.123456789+02:00", "2020-01-02", "2020-13-45 99:99:99",
	"123e4567-e89b-12d3-a456-426614174000", "1e400",
	[]byte{}, []byte("123"), []byte("true"), []byte("1.5"), []byte("fail"), []byte("2020-01-02 03:04:05"),
	[]byte("123e4567-e89b-12d3-a456-426614174000"),
	[]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00},
}

func randomScanValue(rng *rand.Rand) any {
	if rng.IntN(3) > 0 {
		return scanValues[rng.IntN(len(scanValues))]
	}
	switch rng.IntN(5) {
	case 0:
		return int64(rng.Uint64())
	case 1:
		return int64(rng.IntN(2000) - 1000)
	case 2:
		return math.Float64frombits(rng.Uint64())
	case 3:
		return strconv.FormatInt(rng.Int64N(1<<40)-1<<39, 10)
	}
	b := make([]byte, rng.IntN(20))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// scanColumns are the declared types of the table's columns: no type (values kept as they
// are given), the affinities, and the types the driver converts (BOOLEAN, DATE, ...).
var scanColumns = []string{"", "INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "BOOLEAN", "DATETIME", "DATE", "TIMESTAMP"}

// TestScanColumnMatchesNext scans random rows into every destination type through
// ScanColumn and through Next (nextOnly) and compares the values and errors, column by
// column, over batches of 7 rows (so that rows come from several batches, in C and in Go
// memory), with times in UTC and in time.Local. SQLBATCH_SCAN_SEED picks another seed.
func TestScanColumnMatchesNext(t *testing.T) {
	seed := uint64(1)
	if s := os.Getenv("SQLBATCH_SCAN_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 12))
	path := filepath.Join(t.TempDir(), "scan.db")
	setup, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	var cols, marks []string
	for i, decl := range scanColumns {
		cols = append(cols, fmt.Sprintf("c%d %s", i, decl))
		marks = append(marks, "?")
	}
	exec(t, setup, "CREATE TABLE t("+strings.Join(cols, ", ")+")")
	insert := "INSERT INTO t VALUES (" + strings.Join(marks, ", ") + ")"
	nrows := 150
	if testing.Short() {
		nrows = 40
	}
	tx, err := setup.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for range nrows {
		args := make([]any, len(scanColumns))
		for i := range args {
			args[i] = randomScanValue(rng)
		}
		exec(t, tx, insert, args...)
	}
	// Every value once in each column, too.
	for _, v := range scanValues {
		args := make([]any, len(scanColumns))
		for i := range args {
			args[i] = v
		}
		exec(t, tx, insert, args...)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []string{"_batch_rows=7", "_batch_rows=7&_loc=auto"} {
		t.Run(opts, func(t *testing.T) { compareScans(t, path+"?"+opts) })
	}
}

func compareScans(t *testing.T, dsn string) {
	query := "SELECT * FROM t ORDER BY rowid"
	ways := [2]*sql.Rows{}
	for k, name := range []string{"sqlbatch", "sqlbatch-next-only"} {
		db, err := sql.Open(name, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if ways[k], err = db.Query(query); err != nil {
			t.Fatal(err)
		}
		defer ways[k].Close()
	}
	ncols := len(scanColumns)
	checked := 0
	for row := 0; ; row++ {
		n0, n1 := ways[0].Next(), ways[1].Next()
		if n0 != n1 {
			t.Fatalf("row %d: Next %v through ScanColumn, %v through Next", row, n0, n1)
		}
		if !n0 {
			break
		}
		for _, mk := range scanDests {
			// Columns from start on are scanned into a new destination of the kind; those
			// before, into *any (never an error). An error stops a Scan at its column: the
			// next Scan of the row starts after it.
			for start := 0; start < ncols; {
				var dests [2][]any
				for k := range dests {
					for c := range ncols {
						if c < start {
							dests[k] = append(dests[k], new(any))
						} else {
							dests[k] = append(dests[k], mk())
						}
					}
				}
				err0, err1 := ways[0].Scan(dests[0]...), ways[1].Scan(dests[1]...)
				what := fmt.Sprintf("row %d, %T from column %d", row, dests[1][ncols-1], start)
				if fmt.Sprint(err0) != fmt.Sprint(err1) {
					t.Fatalf("%s: error %v through ScanColumn, %v through Next", what, err0, err1)
				}
				end := ncols
				if err0 != nil {
					if _, err := fmt.Sscanf(err0.Error(), "sql: Scan error on column index %d", &end); err != nil {
						t.Fatalf("%s: %v: no column index: %v", what, err0, err)
					}
					end++
				}
				for c := start; c < end; c++ {
					v0, v1 := deref(dests[0][c]), deref(dests[1][c])
					if !same(v0, v1) {
						t.Fatalf("%s: column %d (%s): %#v through ScanColumn, %#v through Next", what, c, scanColumns[c], v0, v1)
					}
					checked++
				}
				start = end
			}
		}
		// *sql.RawBytes last: it holds the row until Next (a second Scan is refused).
		var raw [2][]sql.RawBytes
		for k := range raw {
			raw[k] = make([]sql.RawBytes, ncols)
			dest := make([]any, ncols)
			for c := range dest {
				dest[c] = &raw[k][c]
			}
			if err := ways[k].Scan(dest...); err != nil {
				t.Fatalf("row %d: RawBytes: %v", row, err)
			}
		}
		for c := range ncols {
			if !reflect.DeepEqual(raw[0][c], raw[1][c]) {
				t.Fatalf("row %d, column %d (%s): RawBytes %#v through ScanColumn, %#v through Next", row, c, scanColumns[c], raw[0][c], raw[1][c])
			}
			checked++
		}
	}
	for k, r := range ways {
		if err := r.Err(); err != nil {
			t.Fatalf("way %d: %v", k, err)
		}
	}
	t.Logf("%d values compared", checked)
}

// same is reflect.DeepEqual, but for NaN, which equals NaN here (the TEXT 'NaN' parses).
func same(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	sa, sb := fmt.Sprintf("%T %#v", a, a), fmt.Sprintf("%T %#v", b, b)
	return strings.Contains(sa, "NaN") && sa == sb
}

// deref is what a destination holds (the destination itself if it is not a pointer).
func deref(d any) any {
	v := reflect.ValueOf(d)
	if v.Kind() != reflect.Pointer {
		return d
	}
	return v.Elem().Interface()
}

// TestScanColumnAllocations: ScanColumn writes numbers, strings (shared with the batch) and
// Null types without an allocation, and *any destinations with none either (the row is boxed
// as Next boxes it), so that a row costs no more than its share of the batch.
func TestScanColumnAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(i INTEGER, r REAL, s TEXT, n INTEGER)")
	exec(t, db, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000)
		INSERT INTO t SELECT x * 1000, x * 0.5, 'text ' || x, NULL FROM c`)
	var (
		i  int64
		r  float64
		s  string
		n  sql.NullInt64
		a  [4]any
		ni sql.Null[int64]
	)
	for _, tc := range []struct {
		name string
		dest []any
		max  float64 // allocations per row
	}{
		{"typed", []any{&i, &r, &s, &n}, 0.05},
		{"any", []any{&a[0], &a[1], &a[2], &a[3]}, 0.10},
		{"null", []any{&n, &sql.NullFloat64{}, &sql.NullString{}, &ni}, 0.05},
	} {
		rows := 0
		allocs := testing.AllocsPerRun(3, func() {
			rs, err := db.Query("SELECT i, r, s, n FROM t")
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			rows = 0
			for rs.Next() {
				if err := rs.Scan(tc.dest...); err != nil {
					t.Fatal(err)
				}
				rows++
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
		})
		if per := allocs / float64(rows); per > tc.max {
			t.Errorf("%s: %.3f allocations a row (%.0f a query of %d rows), want at most %.2f", tc.name, per, allocs, rows, tc.max)
		}
	}
}
