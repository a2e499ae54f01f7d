//go:build sqlbatch_vec

package vectest_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/vectest"
)

func open(t *testing.T) *sqlbatch.Conn {
	t.Helper()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func wantCode(t *testing.T, err error, code sqlbatch.ErrorCode) *sqlbatch.Error {
	t.Helper()
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.ExtendedCode != code {
		t.Fatalf("error %v, want an *Error with %v", err, code)
	}
	return e
}

func TestInitExtension(t *testing.T) {
	c := open(t)
	if vectest.HasVec(t, c) {
		t.Fatal("vec_version exists before the extension is initialized")
	}
	// No EnableLoadExtension: a statically linked extension needs none.
	if err := c.InitExtension(vectest.Init()); err != nil {
		t.Fatal(err)
	}
	if err := vectest.Check(c); err != nil {
		t.Fatal(err)
	}
	// Initializing it again re-registers its functions: harmless.
	if err := c.InitExtension(vectest.Init()); err != nil {
		t.Fatal(err)
	}
	if err := vectest.Check(c); err != nil {
		t.Fatal(err)
	}
}

func TestInitExtensionErrors(t *testing.T) {
	c := open(t)
	wantCode(t, c.InitExtension(nil), sqlbatch.ErrNullParameter)
	e := wantCode(t, c.InitExtension(vectest.FailingInit()), sqlbatch.ErrError)
	if e.Msg != "the extension's entry point failed" {
		t.Errorf("message %q", e.Msg)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.InitExtension(vectest.Init()), sqlbatch.ErrClosed)
}

func TestAutoExtension(t *testing.T) {
	before := open(t)
	if err := sqlbatch.AutoExtension(vectest.Init()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := sqlbatch.CancelAutoExtension(vectest.Init()); err != nil {
			t.Error(err)
		}
	})
	// Registering it twice is a no-op: one cancel undoes it below.
	if err := sqlbatch.AutoExtension(vectest.Init()); err != nil {
		t.Fatal(err)
	}
	if vectest.HasVec(t, before) {
		t.Error("a connection opened before AutoExtension got the extension")
	}
	after := open(t)
	if err := vectest.Check(after); err != nil {
		t.Fatal(err)
	}

	// The database/sql driver's connections get it too.
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v float64
	if err := db.QueryRow("SELECT vec_distance_l2('[1, 2]', '[4, 6]')").Scan(&v); err != nil || v != 5 {
		t.Fatalf("driver connection: %v, %v", v, err)
	}

	if ok, err := sqlbatch.CancelAutoExtension(vectest.Init()); !ok || err != nil {
		t.Fatalf("CancelAutoExtension = %v, %v; want true, nil", ok, err)
	}
	if ok, err := sqlbatch.CancelAutoExtension(vectest.Init()); ok || err != nil {
		t.Fatalf("second CancelAutoExtension = %v, %v; want false, nil", ok, err)
	}
	if vectest.HasVec(t, open(t)) {
		t.Error("a connection opened after CancelAutoExtension got the extension")
	}
	if err := vectest.Check(after); err != nil {
		t.Errorf("a connection opened before the cancel lost the extension: %v", err)
	}
}

func TestAutoExtensionErrors(t *testing.T) {
	wantCode(t, sqlbatch.AutoExtension(nil), sqlbatch.ErrNullParameter)
	if _, err := sqlbatch.CancelAutoExtension(nil); err == nil {
		t.Error("CancelAutoExtension(nil) succeeded")
	}
	// A failing automatic extension fails every open, until cancelled.
	if err := sqlbatch.AutoExtension(vectest.FailingInit()); err != nil {
		t.Fatal(err)
	}
	c, err := sqlbatch.Open(":memory:")
	if ok, cerr := sqlbatch.CancelAutoExtension(vectest.FailingInit()); !ok || cerr != nil {
		t.Fatalf("CancelAutoExtension = %v, %v", ok, cerr)
	}
	if err == nil {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		t.Fatal("Open succeeded with a failing automatic extension")
	}
	wantCode(t, err, sqlbatch.ErrError)
	c = open(t) // works again
	if vectest.HasVec(t, c) {
		t.Error("unexpected vec_version")
	}
}

// A statically linked extension on every connection of a pool, through the driver's
// ConnectHook.
func TestDriverConnectHookInitExtension(t *testing.T) {
	sql.Register("sqlbatch_vectest_hook", &driver.SQLiteDriver{ConnectHook: func(c *driver.SQLiteConn) error {
		return c.Raw().InitExtension(vectest.Init())
	}})
	db, err := sql.Open("sqlbatch_vectest_hook", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for i := 0; i < 2; i++ { // two connections of the pool
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		err = conn.Raw(func(dc any) error { return vectest.Check(dc.(*driver.Conn).Raw()) })
		if err != nil {
			t.Fatal(err)
		}
	}
}

// As with LoadExtension (see the root package's TestLoadExtensionReplacesGoFunction): the
// entry point replaces a Go registration, whose destroy callback runs inside the cgo call.
func TestInitExtensionReplacesGoFunction(t *testing.T) {
	c := open(t)
	err := c.CreateFunction("vec_version", 0, 0, func(ctx *sqlbatch.Context, _ sqlbatch.Args) { ctx.SetText("go") })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InitExtension(vectest.Init()); err != nil {
		t.Fatal(err)
	}
	if err := vectest.Check(c); err != nil {
		t.Fatal(err)
	}
}
