package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// mattn-style aggregator: the standard deviation.
type stddev struct {
	xs []float64
}

func newStddev() *stddev { return &stddev{} }

func (s *stddev) Step(x float64) { s.xs = append(s.xs, x) }

func (s *stddev) Done() float64 {
	if len(s.xs) == 0 {
		return 0
	}
	var mean, v float64
	for _, x := range s.xs {
		mean += x
	}
	mean /= float64(len(s.xs))
	for _, x := range s.xs {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v / float64(len(s.xs)))
}

type sumSq struct{ n int64 }

func (s *sumSq) Step(x int64) error {
	if x < 0 {
		return fmt.Errorf("negative: %d", x)
	}
	s.n += x * x
	return nil
}
func (s *sumSq) Done() (int64, error) { return s.n, nil }

func registerAll(c *driver.SQLiteConn) error {
	for name, impl := range map[string]any{
		"f":         func(x int64) int64 { return x*2 + 1 },
		"joinstr":   func(sep string, parts ...string) string { return strings.Join(parts, sep) },
		"anyof":     func(v any) string { return fmt.Sprintf("%T", v) },
		"half":      func(x float64) float64 { return x / 2 },
		"isodd":     func(x int) bool { return x%2 == 1 },
		"rev":       func(b []byte) []byte { r := append([]byte{}, b...); reverse(r); return r },
		"checked":   func(x int64) (int64, error) { return x, errIf(x == 13) },
		"boom":      func(x int64) int64 { panic("boom " + fmt.Sprint(x)) },
		"nothingfn": func() any { return nil },
	} {
		if err := c.RegisterFunc(name, impl, true); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := c.RegisterAggregator("stddev", newStddev, true); err != nil {
		return err
	}
	if err := c.RegisterAggregator("sumsq", func() *sumSq { return &sumSq{} }, true); err != nil {
		return err
	}
	return c.RegisterCollation("nocase2", func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

func errIf(b bool) error {
	if b {
		return errors.New("unlucky 13")
	}
	return nil
}

func init() {
	sql.Register("sqlbatch-functions-test", &driver.Driver{ConnectHook: registerAll})
}

func fnPool(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlbatch-functions-test", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	exec(t, db, `CREATE TABLE t(x INTEGER, s TEXT);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO t SELECT i, 'v' || i FROM n`)
	return db
}

func scalar[T any](t *testing.T, db *sql.DB, query string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(query, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}

func TestRegisterFunc(t *testing.T) {
	db := fnPool(t)
	if got, want := scalar[int64](t, db, "SELECT sum(f(x)) FROM t"), scalar[int64](t, db, "SELECT sum(x*2+1) FROM t"); got != want {
		t.Errorf("sum(f(x)) = %d, want %d", got, want)
	}
	for _, tc := range []struct{ query, want string }{
		{"SELECT joinstr('-')", ""},
		{"SELECT joinstr('-', 'a', 'b', 'c')", "a-b-c"},
		{"SELECT anyof(1) || anyof(1.5) || anyof('s') || anyof(x'00') || anyof(NULL)", "int64float64string[]uint8[]uint8"},
		{"SELECT half(3)", "1.5"},
		{"SELECT isodd(3) || isodd(4)", "10"},
		{"SELECT hex(rev(x'010203'))", "030201"},
		{"SELECT checked(12)", "12"},
		{"SELECT typeof(nothingfn())", "null"},
	} {
		if got := scalar[string](t, db, tc.query); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct{ query, msg string }{
		{"SELECT sum(checked(x)) FROM t", "unlucky 13"},
		{"SELECT boom(x) FROM t", "panic: boom 1"},
		{"SELECT f('text')", "must be an INTEGER"},
		{"SELECT joinstr()", "at least 1 arguments"},
		{"SELECT f(1, 2)", "wrong number of arguments"},
	} {
		var s string
		err := db.QueryRow(tc.query).Scan(&s)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want %q", tc.query, err, tc.msg)
		}
		if n := scalar[int](t, db, "SELECT count(*) FROM t"); n != 1000 {
			t.Fatalf("count after an error: %d", n)
		}
	}
}

func TestRegisterAggregator(t *testing.T) {
	db := fnPool(t)
	if got, want := scalar[int64](t, db, "SELECT sumsq(x) FROM t"), scalar[int64](t, db, "SELECT sum(x*x) FROM t"); got != want {
		t.Errorf("sumsq = %d, want %d", got, want)
	}
	got := scalar[float64](t, db, "SELECT stddev(x) FROM t")
	want := math.Sqrt(scalar[float64](t, db, "SELECT avg(x*x) - avg(x)*avg(x) FROM t"))
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("stddev = %v, want %v", got, want)
	}
	rows, err := db.Query("SELECT x % 7, sumsq(x), sum(x*x) FROM t GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, a, b int64
		rows.Scan(&k, &a, &b)
		if a != b {
			t.Errorf("group %d: %d != %d", k, a, b)
		}
	}
	rows.Close()
	var n int64
	if err := db.QueryRow("SELECT sumsq(x - 500) FROM t").Scan(&n); err == nil || !strings.Contains(err.Error(), "negative: -499") {
		t.Errorf("Step error: %v", err)
	}
	for _, bad := range []any{42, func() int { return 1 }, func(int) *sumSq { return nil }} {
		if err := rawConn(t, db).RegisterAggregator("bad", bad, false); err == nil {
			t.Errorf("RegisterAggregator(%T) accepted", bad)
		}
	}
}

func rawConn(t *testing.T, db *sql.DB) *driver.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var dc *driver.Conn
	conn.Raw(func(c any) error { dc = c.(*driver.Conn); return nil })
	return dc // only for registration errors, which touch no SQLite state
}

func TestRegisterCollationAndRaw(t *testing.T) {
	db := fnPool(t)
	rows, err := db.Query("SELECT v FROM (SELECT 'b' AS v UNION ALL SELECT 'A' UNION ALL SELECT 'c' UNION ALL SELECT 'B') ORDER BY v COLLATE nocase2, v")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		got = append(got, s)
	}
	rows.Close()
	if strings.Join(got, "") != "ABbc" {
		t.Errorf("order %v", got)
	}
	// Registration through sql.Conn.Raw.
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		return dc.(*driver.Conn).RegisterFunc("triple", func(x int64) int64 { return 3 * x }, false)
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRowContext(context.Background(), "SELECT triple(14)").Scan(&n); err != nil || n != 42 {
		t.Errorf("triple = %d, %v", n, err)
	}
	for _, bad := range []any{1, func(x chan int) int { return 0 }, func(x int) {}, func(x int) (int, int) { return 0, 0 }, func() chan int { return nil }} {
		if err := conn.Raw(func(dc any) error { return dc.(*driver.Conn).RegisterFunc("bad", bad, false) }); err == nil {
			t.Errorf("RegisterFunc(%T) accepted", bad)
		}
	}
}

func TestRegisterHandlesReleased(t *testing.T) {
	before := capi.LiveHandles()
	db, err := sql.Open("sqlbatch-functions-test", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(3)
	var n int64
	if err := db.QueryRow("WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 10) SELECT sumsq(value) FROM n").Scan(&n); err != nil || n != 385 {
		t.Errorf("sumsq = %d, %v", n, err)
	}
	if capi.LiveHandles() <= before {
		t.Error("no handles registered")
	}
	db.Close()
	if got := capi.LiveHandles() - before; got != 0 {
		t.Errorf("%d handles left after Close", got)
	}
}

func TestRegisterFuncMattnQuirks(t *testing.T) {
	db, err := sql.Open("sqlbatch-functions-test", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*driver.Conn)
		if err := c.RegisterFunc("isnil", func(v any) bool { b, ok := v.([]byte); return ok && b == nil }, true); err != nil {
			return err
		}
		return c.RegisterFunc("emptyblob", func() []byte { return []byte{} }, true)
	})
	if err != nil {
		t.Fatal(err)
	}
	var a, b string
	if err := conn.QueryRowContext(context.Background(), "SELECT isnil(NULL) || isnil(x''), typeof(emptyblob())").Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	if a != "10" || b != "null" {
		t.Errorf("isnil %q, typeof(emptyblob()) %q; want 10, null", a, b)
	}
}
