package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/vectest"
)

// raw runs f on the low-level connection of conn.
func raw(t *testing.T, conn *sql.Conn, f func(*driver.SQLiteConn) error) error {
	t.Helper()
	return conn.Raw(func(dc any) error { return f(dc.(*driver.SQLiteConn)) })
}

func wantNotAuthorized(t *testing.T, err error) {
	t.Helper()
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.Code != sqlbatch.ErrError || !strings.Contains(e.Msg, "not authorized") {
		t.Fatalf("error %v, want SQLite's \"not authorized\"", err)
	}
}

func TestDriverLoadExtension(t *testing.T) {
	so := vectest.SharedLibrary(t)
	db := open(t, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// Missing file: SQLite's message, and loading is off again afterwards.
	missing := filepath.Join(t.TempDir(), "missing.so")
	err = raw(t, conn, func(c *driver.SQLiteConn) error { return c.LoadExtension(missing, "") })
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("loading a missing file: %v", err)
	}
	wantNotAuthorized(t, raw(t, conn, func(c *driver.SQLiteConn) error { return c.Raw().LoadExtension(so, "") }))

	// mattn's call: enabled for the call only.
	if err := raw(t, conn, func(c *driver.SQLiteConn) error { return c.LoadExtension(so, "sqlite3_vec_init") }); err != nil {
		t.Fatal(err)
	}
	wantNotAuthorized(t, raw(t, conn, func(c *driver.SQLiteConn) error { return c.Raw().LoadExtension(so, "") }))
	var d float64
	if err := conn.QueryRowContext(ctx, "SELECT vec_distance_l2('[1, 2]', '[4, 6]')").Scan(&d); err != nil || d != 5 {
		t.Fatalf("vec_distance_l2 = %v, %v", d, err)
	}
	if err := raw(t, conn, func(c *driver.SQLiteConn) error { return vectest.Check(c.Raw()) }); err != nil {
		t.Fatal(err)
	}
}

func TestDriverExtensions(t *testing.T) {
	so := vectest.SharedLibrary(t)
	var hooked atomic.Int32
	sql.Register("sqlbatch_ext_test", &driver.SQLiteDriver{
		Extensions: []string{so},
		ConnectHook: func(c *driver.SQLiteConn) error {
			hooked.Add(1)
			// Loaded before the hook runs, and loading is off again.
			if _, err := vectest.One(c.Raw(), "SELECT vec_version()"); err != nil {
				return err
			}
			if err := c.Raw().LoadExtension(so, ""); err == nil || !strings.Contains(err.Error(), "not authorized") {
				return fmt.Errorf("loading after Extensions: %v, want \"not authorized\"", err)
			}
			return nil
		},
	})
	db, err := sql.Open("sqlbatch_ext_test", filepath.Join(t.TempDir(), "ext.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for i := 0; i < 2; i++ { // two connections of the pool, each loads it
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := raw(t, conn, func(c *driver.SQLiteConn) error { return vectest.Check(c.Raw()) }); err != nil {
			t.Fatal(err)
		}
	}
	if n := hooked.Load(); n != 2 {
		t.Errorf("ConnectHook ran %d times, want 2", n)
	}

	// A library that does not load fails the connection.
	missing := filepath.Join(t.TempDir(), "missing.so")
	sql.Register("sqlbatch_ext_test_missing", &driver.SQLiteDriver{Extensions: []string{so, missing}})
	bad, err := sql.Open("sqlbatch_ext_test_missing", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Ping(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Ping with a missing extension: %v", err)
	}
}
