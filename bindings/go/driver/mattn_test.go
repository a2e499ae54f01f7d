package driver_test

// Tests of the API kept from mattn/go-sqlite3 (mattn.go), many of them mattn's own tests with
// the types changed.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// RegisterFunc, RegisterAggregator and RegisterCollation.

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
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
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
		if err := rows.Scan(&k, &a, &b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("group %d: %d != %d", k, a, b)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
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
	if err := conn.Raw(func(c any) error { dc = c.(*driver.Conn); return nil }); err != nil {
		t.Fatal(err)
	}
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
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
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
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
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

// The Register*Hook methods and RegisterAuthorizer, through sql.Conn.Raw and ConnectHook.

// mattn's hooks through sql.Conn.Raw: the code of mattn's tests with the types changed.
func TestDriverHooksThroughRaw(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x)")
	ctx := context.Background()
	c := conn(t, db)
	defer c.Close()
	type ev struct {
		op        int
		db, table string
		rowid     int64
	}
	var events []ev
	commits, rollbacks := 0, 0
	veto := false
	err := c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterUpdateHook(func(op int, db, table string, rowid int64) {
			events = append(events, ev{op, db, table, rowid})
		})
		sc.RegisterCommitHook(func() int {
			commits++
			if veto {
				return 1
			}
			return 0
		})
		sc.RegisterRollbackHook(func() { rollbacks++ })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO t VALUES (1)", "UPDATE t SET x = 2", "DELETE FROM t WHERE x = 2"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	want := []ev{{driver.SQLITE_INSERT, "main", "t", 1}, {driver.SQLITE_UPDATE, "main", "t", 1}, {driver.SQLITE_DELETE, "main", "t", 1}}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	veto = true
	_, err = c.ExecContext(ctx, "INSERT INTO t VALUES (3)")
	if !errors.Is(err, sqlbatch.ErrConstraintCommitHook) {
		t.Errorf("vetoed commit: %v", err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO t VALUES (4)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if commits != 4 || rollbacks != 2 {
		t.Errorf("%d commits, %d rollbacks", commits, rollbacks)
	}
	// nil removes them.
	if err := c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterUpdateHook(nil)
		sc.RegisterCommitHook(nil)
		sc.RegisterRollbackHook(nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	events = nil
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (5)"); err != nil || len(events) != 0 {
		t.Errorf("after removal: %v, %d events", err, len(events))
	}
	// The low-level hooks are there too: a change feed.
	var n int
	if err := c.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Raw().ChangeFeed(0, func(ch []sqlbatch.Change, r sqlbatch.FeedReason) { n += len(ch) })
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "UPDATE t SET x = x + 1"); err != nil || n != 1 {
		t.Errorf("change feed: %v, %d changes", err, n)
	}
}

// An authorizer set in the ConnectHook applies to every connection of the pool; mattn's
// three-string form gets the database as its third string.
func TestDriverAuthorizerPoolWide(t *testing.T) {
	sql.Register("sqlbatch-authorizer-hook", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.RegisterAuthorizer(func(op int, arg1, arg2, arg3 string) int {
			switch {
			case op == driver.SQLITE_READ && arg2 == "secret" && arg3 == "main":
				return driver.SQLITE_DENY
			case op == driver.SQLITE_READ && arg2 == "hidden":
				return driver.SQLITE_IGNORE
			case op == driver.SQLITE_DROP_TABLE:
				return driver.SQLITE_DENY
			}
			return driver.SQLITE_OK
		})
		return nil
	}})
	db, err := sql.Open("sqlbatch-authorizer-hook", filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, "CREATE TABLE t(x, secret, hidden); INSERT INTO t VALUES (1, 'pw', 'h')")
	c1, c2 := conn(t, db), conn(t, db)
	defer c1.Close()
	defer c2.Close()
	for _, c := range []*sql.Conn{c1, c2} {
		var s sql.NullString
		var x int
		if err := c.QueryRowContext(context.Background(), "SELECT secret FROM t").Scan(&s); !errors.Is(err, sqlbatch.ErrAuth) {
			t.Errorf("denied column: %v", err)
		}
		if err := c.QueryRowContext(context.Background(), "SELECT x, hidden FROM t").Scan(&x, &s); err != nil || s.Valid || x != 1 {
			t.Errorf("ignored column: %v %v %d", err, s, x)
		}
		if _, err := c.ExecContext(context.Background(), "DROP TABLE t"); err == nil || !strings.Contains(err.Error(), "not authorized") {
			t.Errorf("denied DROP: %v", err)
		}
	}
}

// A panic in a hook set through the driver fails the statement; the pool goes on.
func TestDriverHookPanic(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x)")
	c := conn(t, db)
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterUpdateHook(func(int, string, string, int64) { panic("boom") })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (1)")
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) || p.Value != "boom" {
		t.Fatalf("panic in the update hook: %v", err)
	}
	if err := c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterUpdateHook(nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if n := one[int](t, db, "SELECT count(*) FROM t"); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
}

// The driver's connection, reached through sql.Conn.Raw, refuses Close from inside one of
// its hooks (sqlbatch.ErrMisuse) and changes nothing: its cached statements and the
// connection go on working, and database/sql closes it normally later.
func TestDriverCloseInsideHook(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x)")
	ctx := context.Background()
	c := conn(t, db)
	var closeErrs []error
	err := c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterUpdateHook(func(int, string, string, int64) {
			closeErrs = append(closeErrs, sc.Close())
		})
		sc.RegisterCommitHook(func() int {
			closeErrs = append(closeErrs, sc.Close())
			return 0
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?)", i); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	if len(closeErrs) != 6 {
		t.Errorf("%d calls of the hooks, want 6", len(closeErrs))
	}
	for _, err := range closeErrs {
		if !errors.Is(err, sqlbatch.ErrMisuse) {
			t.Errorf("Close from a hook: %v, want ErrMisuse", err)
		}
	}
	if err := c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterUpdateHook(nil)
		sc.RegisterCommitHook(nil)
		if !sc.IsValid() {
			t.Error("the connection is no longer valid after Close from its hooks")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 3 {
		t.Errorf("count %d, %v", n, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("db.Close: %v", err)
	}
}

// RegisterPreUpdateHook and SQLitePreUpdateData.

type preUpdateEvent struct {
	databaseName, tableName string
	count, depth            int
	op                      int
	oldRowID, newRowID      int64
	oldRow, newRow          []any
}

var preUpdateDriverN atomic.Int32

// mattn's TestPreUpdateHook, with the types changed: a ConnectHook registers the hook, Old
// and New replace the elements of the slices they are given, a dest shorter than the row is
// filled as far as it goes, and INSERT has no old row, DELETE no new one.
func TestDriverPreUpdateHookMattnShape(t *testing.T) {
	var events []preUpdateEvent
	name := "sqlbatch_preupdate_" + string(rune('a'+preUpdateDriverN.Add(1)))
	sql.Register(name, &driver.SQLiteDriver{
		ConnectHook: func(conn *driver.SQLiteConn) error {
			conn.RegisterPreUpdateHook(func(data driver.SQLitePreUpdateData) {
				eval := -1
				oldRow := []any{eval}
				if data.Op != driver.SQLITE_INSERT {
					if err := data.Old(oldRow...); err != nil {
						t.Errorf("Old: %v", err)
					}
				} else if err := data.Old(oldRow...); err == nil {
					t.Error("Old of an INSERT: no error")
				}
				eval2 := -1
				newRow := []any{eval2}
				if data.Op != driver.SQLITE_DELETE {
					if err := data.New(newRow...); err != nil {
						t.Errorf("New: %v", err)
					}
				} else if err := data.New(newRow...); err == nil {
					t.Error("New of a DELETE: no error")
				}
				var tooSmallRow []any
				if data.Op != driver.SQLITE_INSERT {
					if err := data.Old(tooSmallRow...); err != nil || len(tooSmallRow) != 0 {
						t.Errorf("Old into nothing: %v, %v", tooSmallRow, err)
					}
				}
				if data.Conn == nil {
					t.Error("no Conn")
				}
				events = append(events, preUpdateEvent{
					databaseName: data.DatabaseName, tableName: data.TableName,
					count: data.Count(), depth: data.Depth(), op: data.Op,
					oldRowID: data.OldRowID, newRowID: data.NewRowID,
					oldRow: oldRow, newRow: newRow,
				})
			})
			return nil
		},
	})
	db, err := sql.Open(name, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE foo (id INTEGER PRIMARY KEY, s TEXT)",
		"INSERT INTO foo VALUES (9, 'nine')",
		"UPDATE foo SET id = 10, s = 'ten' WHERE id = 9",
		"DELETE FROM foo WHERE id = 10",
	} {
		exec(t, db, q)
	}
	want := []preUpdateEvent{
		{"main", "foo", 2, 0, driver.SQLITE_INSERT, 0, 9, []any{-1}, []any{int64(9)}},
		{"main", "foo", 2, 0, driver.SQLITE_UPDATE, 9, 10, []any{int64(9)}, []any{int64(10)}},
		{"main", "foo", 2, 0, driver.SQLITE_DELETE, 10, 0, []any{int64(10)}, []any{-1}},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events\n%v\nwant\n%v", events, want)
	}
}

// Old and New after the callback (the data holds copies), every type as mattn gives it (TEXT
// as []byte), pointers scanned into, triggers' depth, through sql.Conn.Raw.
func TestDriverPreUpdateValues(t *testing.T) {
	db := open(t, "")
	exec(t, db, `CREATE TABLE t(id INTEGER PRIMARY KEY, i, f, s, b, n, d);
		CREATE TABLE log(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.i); END`)
	c := conn(t, db)
	defer c.Close()
	var got []driver.SQLitePreUpdateData
	if err := c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterPreUpdateHook(func(d driver.SQLitePreUpdateData) { got = append(got, d) })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (1, 42, 2.5, 'txt', x'0102', NULL, '2024-05-06 07:08:09')"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].TableName != "log" || got[1].Depth() != 1 || got[0].Depth() != 0 || got[0].Count() != 7 {
		t.Fatalf("events %+v", got)
	}
	row := make([]any, 7)
	if err := got[0].New(row...); err != nil {
		t.Fatal(err)
	}
	if want := []any{int64(1), int64(42), 2.5, []byte("txt"), []byte{1, 2}, nil, []byte("2024-05-06 07:08:09")}; !reflect.DeepEqual(row, want) {
		t.Errorf("values %#v, want %#v", row, want)
	}
	var (
		id       int
		i8       int8
		f        float32
		s        string
		b        []byte
		n        *string
		ns       sql.NullString
		d        time.Time
		asString string
		anyV     any
		u        uint16
		ok       bool
	)
	if err := got[0].New(&id, &i8, &f, &s, &b, &n, &d); err != nil {
		t.Fatal(err)
	}
	if id != 1 || i8 != 42 || f != 2.5 || s != "txt" || string(b) != "\x01\x02" || n != nil || !d.Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) {
		t.Errorf("scanned %v %v %v %q %v %v %v", id, i8, f, s, b, n, d)
	}
	if err := got[0].New(&u, &asString, nil, &anyV, nil, &ns); err != nil {
		t.Fatal(err)
	}
	if err := got[0].New(&ok); err != nil {
		t.Fatal(err)
	}
	if u != 1 || asString != "42" || ns.Valid || string(anyV.([]byte)) != "txt" || !ok {
		t.Errorf("scanned %v %q %v %#v %v", u, asString, ns, anyV, ok)
	}
	var tooSmall int8
	if err := got[0].New(nil, nil, &tooSmall); err == nil {
		t.Error("2.5 into an int8: no error")
	}
	// NULL into a non-pointer kind, and text into a number, fail.
	if err := got[0].New(nil, nil, nil, nil, nil, &s); err == nil || !strings.Contains(err.Error(), "NULL") {
		t.Errorf("NULL into a string: %v", err)
	}
	if err := got[0].New(nil, nil, nil, &id); err == nil {
		t.Error("'txt' into an int: no error")
	}
	if err := got[0].Old(&id); err == nil {
		t.Error("Old of an INSERT: no error")
	}
	if err := c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterPreUpdateHook(nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "DELETE FROM t"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("the hook ran after its removal")
	}
}

// A panicking preupdate hook fails the statement with a *sqlbatch.HookPanicError; a session
// on the connection keeps RegisterPreUpdateHook from doing anything.
func TestDriverPreUpdateHookPanicAndSessions(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x PRIMARY KEY)")
	c := conn(t, db)
	defer c.Close()
	ctx := context.Background()
	if err := c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterPreUpdateHook(func(driver.SQLitePreUpdateData) { panic("boom") })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err := c.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) || p.Hook != "preupdate hook" {
		t.Fatalf("panic: %v", err)
	}
	var s *sqlbatch.Session
	calls := 0
	err = c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterPreUpdateHook(nil)
		var err error
		if s, err = sc.Raw().CreateSession(nil); err != nil {
			return err
		}
		sc.RegisterPreUpdateHook(func(driver.SQLitePreUpdateData) { calls++ }) // refused: a session lives
		if err := sc.Raw().PreUpdateHook(func(sqlbatch.PreUpdate) {}); !errors.Is(err, sqlbatch.ErrMisuse) {
			t.Errorf("low-level PreUpdateHook with a session: %v", err)
		}
		return s.Attach("")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("a preupdate hook ran %d times beside a session", calls)
	}
	if err := c.Raw(func(any) error {
		if s.IsEmpty() {
			t.Error("the session recorded nothing")
		}
		return s.Delete()
	}); err != nil {
		t.Fatal(err)
	}
}

// SetTrace.

// mattn's SetTrace through sql.Conn.Raw: the events asked for, the SQL as written and
// expanded, the run time, the close event; nil removes it.
func TestDriverSetTrace(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x)")
	ctx := context.Background()
	c := conn(t, db)
	var got []driver.TraceInfo
	var handle uintptr
	set := func(cfg *driver.TraceConfig) error {
		return c.Raw(func(dc any) error {
			sc := dc.(*driver.SQLiteConn)
			handle = uintptr(0)
			if cfg != nil {
				handle = uintptr(unsafe.Pointer(sc)) // TraceInfo.ConnHandle
			}
			return sc.SetTrace(cfg)
		})
	}
	record := func(info driver.TraceInfo) int { got = append(got, info); return 0 }
	if err := set(&driver.TraceConfig{Callback: record, EventMask: driver.TraceStmt | driver.TraceProfile, WantExpandedSQL: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?)", 7); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("events %+v", got)
	}
	stmt, prof := got[0], got[1]
	if stmt.EventCode != driver.TraceStmt || stmt.StmtOrTrigger != "INSERT INTO t VALUES (?)" || stmt.ExpandedSQL != "INSERT INTO t VALUES (7)" ||
		stmt.ConnHandle != handle || handle == 0 || !stmt.AutoCommit || stmt.StmtHandle == 0 {
		t.Errorf("stmt event %+v", stmt)
	}
	if prof.StmtHandle != stmt.StmtHandle || !prof.AutoCommit {
		t.Errorf("profile event %+v of stmt %+v", prof, stmt)
	}
	if prof.EventCode != driver.TraceProfile || prof.StmtOrTrigger != "INSERT INTO t VALUES (?)" || prof.ExpandedSQL != "" || prof.RunTimeNanosec < 0 {
		t.Errorf("profile event %+v", prof)
	}
	// Rows, unexpanded.
	got = nil
	if err := set(&driver.TraceConfig{Callback: record, EventMask: driver.TraceStmt | driver.TraceRow}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT count(*) FROM t WHERE x = ?", 7).Scan(&n); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	codes := []uint32{}
	for _, i := range got {
		codes = append(codes, i.EventCode)
		if i.StmtOrTrigger != "SELECT count(*) FROM t WHERE x = ?" || i.ExpandedSQL != "" {
			t.Errorf("event %+v", i)
		}
	}
	if !reflect.DeepEqual(codes, []uint32{driver.TraceStmt, driver.TraceRow}) {
		t.Errorf("events %v", codes)
	}
	// nil removes it.
	got = nil
	if err := set(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (8)"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("events after SetTrace(nil): %+v", got)
	}
	// Close: the event, when the pool closes the connection.
	if err := set(&driver.TraceConfig{Callback: record, EventMask: driver.TraceClose}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].EventCode != driver.TraceClose {
		t.Errorf("close events %+v", got)
	}
}

// A trace callback that panics fails the statement; a ConnectHook can trace every
// connection of a pool.
func TestDriverTracePanicAndConnectHook(t *testing.T) {
	stmts := 0
	sql.Register("sqlbatch_trace_test", &driver.SQLiteDriver{ConnectHook: func(c *driver.SQLiteConn) error {
		return c.SetTrace(&driver.TraceConfig{EventMask: driver.TraceStmt, Callback: func(i driver.TraceInfo) int {
			if i.StmtOrTrigger == "SELECT 'boom'" {
				panic("boom")
			}
			stmts++
			return 0
		}})
	}})
	db, err := sql.Open("sqlbatch_trace_test", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, "CREATE TABLE t(x)")
	if stmts == 0 {
		t.Error("no statement traced")
	}
	_, err = db.Exec("SELECT 'boom'")
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) || p.Hook != "trace callback" {
		t.Errorf("panic: %v", err)
	}
	exec(t, db, "INSERT INTO t VALUES (1)")
}

// Backup, Serialize and Deserialize, limits, GetFilename (and OpenBlob).

// raw2 runs f with the driver connections of a and b, as mattn's backup test does.
func raw2(t *testing.T, a, b *sql.Conn, f func(ca, cb *driver.SQLiteConn) error) {
	t.Helper()
	err := a.Raw(func(x any) error {
		return b.Raw(func(y any) error {
			return f(x.(*driver.SQLiteConn), y.(*driver.SQLiteConn))
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func conn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fill(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	exec(t, db, `CREATE TABLE big(id INTEGER PRIMARY KEY, s TEXT);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
		INSERT INTO big(s) SELECT printf('%d-', i) || hex(randomblob(200)) FROM k`, n)
}

func sum(t *testing.T, db *sql.DB) string {
	return one[string](t, db, "SELECT count(*) || ':' || total(length(s) * id) || ':' || group_concat(substr(s, 1, 10)) FROM big")
}

func TestDriverBackup(t *testing.T) {
	src, dest := open(t, ""), open(t, "")
	fill(t, src, 2000)
	sc, dc := conn(t, src), conn(t, dest)
	raw2(t, dc, sc, func(d, s *driver.SQLiteConn) error {
		var b *driver.SQLiteBackup
		b, err := d.Backup("main", s, "main")
		if err != nil {
			return err
		}
		for {
			done, err := b.Step(20)
			if err != nil {
				return err
			}
			if done {
				break
			}
			if b.Remaining() == 0 || b.PageCount() == 0 {
				t.Errorf("remaining %d of %d before done", b.Remaining(), b.PageCount())
			}
		}
		if b.Remaining() != 0 {
			t.Errorf("remaining %d when done", b.Remaining())
		}
		if err := b.Finish(); err != nil {
			return err
		}
		return b.Close()
	})
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dc.Close(); err != nil {
		t.Fatal(err)
	}
	if sum(t, dest) != sum(t, src) {
		t.Fatal("contents differ")
	}
}

// Step reports a busy destination as mattn's does: not done, no error; the copy goes on
// once the lock is gone.
func TestDriverBackupBusyIsNotAnError(t *testing.T) {
	src := open(t, "")
	fill(t, src, 300)
	path := filepath.Join(t.TempDir(), "dest.db")
	dest, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	defer dest.Close()
	exec(t, dest, "CREATE TABLE d(x)")
	locker, err := sql.Open("sqlbatch", path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.Begin()
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, "INSERT INTO d VALUES (1)")

	sc, dc := conn(t, src), conn(t, dest)
	defer sc.Close()
	defer dc.Close()
	raw2(t, dc, sc, func(d, s *driver.SQLiteConn) error {
		if err := d.Raw().SetBusyTimeout(0); err != nil {
			return err
		}
		b, err := d.Backup("", s, "")
		if err != nil {
			return err
		}
		defer b.Finish()
		if done, err := b.Step(-1); done || err != nil {
			t.Errorf("Step with the destination locked: %v, %v", done, err)
		}
		if _, err := b.Raw().Step(-1); !errors.Is(err, sqlbatch.ErrBusy) {
			t.Errorf("low-level Step with the destination locked: %v", err)
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if done, err := b.Step(-1); !done || err != nil {
			t.Errorf("Step after the lock went: %v, %v", done, err)
		}
		return b.Finish()
	})
	if one[int](t, dest, "SELECT count(*) FROM big") != 300 {
		t.Fatal("copy missing")
	}
}

// A connection given back to the pool with an unfinished backup is closed, not reused.
func TestDriverUnfinishedBackupLeavesThePool(t *testing.T) {
	src, dest := open(t, ""), open(t, "")
	dest.SetMaxIdleConns(4)
	fill(t, src, 500)
	exec(t, dest, "CREATE TABLE keep(x)")
	sc, dc := conn(t, src), conn(t, dest)
	var b *driver.Backup
	raw2(t, dc, sc, func(d, s *driver.SQLiteConn) error {
		var err error
		b, err = d.Backup("main", s, "main")
		if err != nil {
			return err
		}
		_, err = b.Step(2)
		return err
	})
	if err := dc.Close(); err != nil { // the pool closes it: its backup ends
		t.Fatal(err)
	}
	if _, err := b.Raw().Step(2); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Step after the pool closed the destination: %v", err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	// Both pools work, and the destination is as it was.
	if one[int](t, dest, "SELECT count(*) FROM sqlite_schema WHERE name = 'keep'") != 1 {
		t.Fatal("destination changed")
	}
	if one[int](t, src, "SELECT count(*) FROM big") != 500 {
		t.Fatal("source changed")
	}
	if st := dest.Stats(); st.OpenConnections != 1 {
		t.Fatalf("destination pool has %d connections, want 1 (the one of the queries above)", st.OpenConnections)
	}
}

func TestDriverSerializeDeserialize(t *testing.T) {
	src := open(t, "")
	fill(t, src, 200)
	sc := conn(t, src)
	defer sc.Close()
	var data []byte
	err := sc.Raw(func(dc any) error {
		var err error
		data, err = dc.(*driver.SQLiteConn).Serialize("")
		return err
	})
	if err != nil || len(data) == 0 {
		t.Fatal(len(data), err)
	}
	mem, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	mem.SetMaxOpenConns(1)
	mc := conn(t, mem)
	err = mc.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Deserialize(data, "main")
	})
	if err != nil {
		t.Fatal(err)
	}
	// Unlike mattn's, the deserialized database grows.
	if _, err := mc.ExecContext(context.Background(), "INSERT INTO big(s) SELECT s FROM big"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := mc.QueryRowContext(context.Background(), "SELECT count(*) FROM big").Scan(&n); err != nil || n != 400 {
		t.Fatal(n, err)
	}
	err = mc.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Deserialize([]byte("garbage garbage garbage"), "main")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mc.ExecContext(context.Background(), "SELECT * FROM big"); !errors.Is(err, sqlbatch.ErrNotADB) {
		t.Fatalf("query of garbage: %v", err)
	}
	if err := mc.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDriverLimitsFilenameBlob(t *testing.T) {
	if driver.SQLITE_LIMIT_LENGTH != 0 || driver.SQLITE_LIMIT_VARIABLE_NUMBER != 9 || driver.SQLITE_LIMIT_WORKER_THREADS != 11 {
		t.Fatal("limit constants")
	}
	path := filepath.Join(t.TempDir(), "f.db")
	db, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB); INSERT INTO b VALUES (1, zeroblob(?))", 100_000)
	c := conn(t, db)
	defer c.Close()
	err = c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		old := sc.GetLimit(driver.SQLITE_LIMIT_SQL_LENGTH)
		if prev := sc.SetLimit(driver.SQLITE_LIMIT_SQL_LENGTH, 50); prev != old {
			t.Errorf("SetLimit returned %d, GetLimit %d", prev, old)
		}
		if got := sc.GetLimit(driver.SQLITE_LIMIT_SQL_LENGTH); got != 50 {
			t.Errorf("GetLimit after SetLimit: %d", got)
		}
		if sc.SetLimit(driver.SQLITE_LIMIT_SQL_LENGTH, -1) != 50 {
			t.Error("SetLimit(-1) changed or misread the limit")
		}
		if sc.GetLimit(42) != -1 || sc.SetLimit(42, 1) != -1 {
			t.Error("unknown limit id")
		}
		sc.SetLimit(driver.SQLITE_LIMIT_SQL_LENGTH, old)
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if f := sc.GetFilename(""); f != abs {
			t.Errorf("GetFilename: %q, want %q", f, abs)
		}
		if f := sc.GetFilename("nosuch"); f != "" {
			t.Errorf("GetFilename(nosuch): %q", f)
		}

		var b *driver.Blob
		b, err = sc.OpenBlob("main", "b", "data", 1, true)
		if err != nil {
			return err
		}
		defer b.Close()
		v := bytes.Repeat([]byte("0123456789"), 10_000)
		if _, err := b.Write(v); err != nil {
			return err
		}
		got := make([]byte, len(v))
		if _, err := b.ReadAt(got, 0); err != nil && err != io.EOF {
			return err
		}
		if !bytes.Equal(got, v) {
			t.Error("blob read back differs")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if one[string](t, db, "SELECT substr(data, 99991, 10) FROM b") != "0123456789" {
		t.Fatal("the blob write is not visible through SQL")
	}
}

// The ConnectHook reaches every connection of a pool: limits and switches set there apply
// pool-wide.
func TestDriverConnectHookSetsLimitsAndSwitches(t *testing.T) {
	sql.Register("sqlbatch-surface-hook", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.SetLimit(driver.SQLITE_LIMIT_LENGTH, 1000)
		_, err := c.Raw().SetDBConfig(sqlbatch.DBConfigDQSDML, false)
		return err
	}})
	db, err := sql.Open("sqlbatch-surface-hook", filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c1, c2 := conn(t, db), conn(t, db)
	defer c1.Close()
	defer c2.Close()
	for _, c := range []*sql.Conn{c1, c2} {
		if _, err := c.ExecContext(context.Background(), "SELECT zeroblob(2000)"); !errors.Is(err, sqlbatch.ErrTooBig) {
			t.Fatalf("a value over the hook's limit: %v", err)
		}
		if _, err := c.ExecContext(context.Background(), `SELECT "not a column"`); err == nil {
			t.Fatal("DQS_DML is on")
		}
	}
}
