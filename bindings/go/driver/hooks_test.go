package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

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
	tx.Exec("INSERT INTO t VALUES (4)")
	tx.Rollback()
	if commits != 4 || rollbacks != 2 {
		t.Errorf("%d commits, %d rollbacks", commits, rollbacks)
	}
	// nil removes them.
	c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterUpdateHook(nil)
		sc.RegisterCommitHook(nil)
		sc.RegisterRollbackHook(nil)
		return nil
	})
	events = nil
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (5)"); err != nil || len(events) != 0 {
		t.Errorf("after removal: %v, %d events", err, len(events))
	}
	// The low-level hooks are there too: a change feed.
	var n int
	c.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Raw().ChangeFeed(0, func(ch []sqlbatch.Change, r sqlbatch.FeedReason) { n += len(ch) })
	})
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
	c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterUpdateHook(func(int, string, string, int64) { panic("boom") })
		return nil
	})
	_, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (1)")
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) || p.Value != "boom" {
		t.Fatalf("panic in the update hook: %v", err)
	}
	c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterUpdateHook(nil)
		return nil
	})
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
	c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterUpdateHook(nil)
		sc.RegisterCommitHook(nil)
		if !sc.IsValid() {
			t.Error("the connection is no longer valid after Close from its hooks")
		}
		return nil
	})
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
