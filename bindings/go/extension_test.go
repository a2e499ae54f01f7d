package sqlbatch_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/vectest"
)

func extDB(t *testing.T) *sqlbatch.Conn {
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

// extError checks that err is an *Error with code and a message containing each of want.
func extError(t *testing.T, err error, code sqlbatch.ErrorCode, want ...string) {
	t.Helper()
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.ExtendedCode != code {
		t.Fatalf("error %v, want an *Error with %v", err, code)
	}
	for _, w := range want {
		if !strings.Contains(e.Msg, w) {
			t.Errorf("message %q does not contain %q", e.Msg, w)
		}
	}
}

func TestLoadExtensionNeedsEnabling(t *testing.T) {
	so := vectest.SharedLibrary(t)
	c := extDB(t)
	extError(t, c.LoadExtension(so, ""), sqlbatch.ErrError, "not authorized")
	if vectest.HasVec(t, c) {
		t.Fatal("refused load left vec_version behind")
	}
	// SQL's load_extension() stays off, enabled or not.
	if err := c.EnableLoadExtension(true); err != nil {
		t.Fatal(err)
	}
	_, err := vectest.One(c, "SELECT load_extension('"+so+"')")
	extError(t, err, sqlbatch.ErrError, "not authorized")

	if err := c.LoadExtension(so, ""); err != nil { // default entry point: sqlite3_vec_init
		t.Fatal(err)
	}
	if err := vectest.Check(c); err != nil {
		t.Fatal(err)
	}
	if err := c.EnableLoadExtension(false); err != nil {
		t.Fatal(err)
	}
	extError(t, c.LoadExtension(so, ""), sqlbatch.ErrError, "not authorized")
	if err := vectest.Check(c); err != nil { // what was loaded stays
		t.Fatal(err)
	}
}

func TestLoadExtensionEntryPoint(t *testing.T) {
	so := vectest.SharedLibrary(t)
	c := extDB(t)
	if err := c.EnableLoadExtension(true); err != nil {
		t.Fatal(err)
	}
	extError(t, c.LoadExtension(so, "sqlite3_no_such_init"), sqlbatch.ErrError, "sqlite3_no_such_init")
	if vectest.HasVec(t, c) {
		t.Fatal("failed load left vec_version behind")
	}
	if err := c.LoadExtension(so, "sqlite3_vec_init"); err != nil {
		t.Fatal(err)
	}
	if err := vectest.Check(c); err != nil {
		t.Fatal(err)
	}
}

func TestLoadExtensionErrors(t *testing.T) {
	c := extDB(t)
	if err := c.EnableLoadExtension(true); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no_such_ext.so")
	// dlopen's message names the file.
	extError(t, c.LoadExtension(missing, ""), sqlbatch.ErrError, missing)
	extError(t, c.LoadExtension("", ""), sqlbatch.ErrInvalidArgument, "empty path")
	extError(t, c.LoadExtension("a\x00b.so", ""), sqlbatch.ErrInvalidArgument, "NUL")
	extError(t, c.LoadExtension(missing, "x\x00y"), sqlbatch.ErrInvalidArgument, "NUL")
	extError(t, c.LoadExtension("\xff.so", ""), sqlbatch.ErrInvalidUTF8)
	// Not a shared library at all.
	extError(t, c.LoadExtension("extension_test.go", ""), sqlbatch.ErrError, "extension_test.go")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	extError(t, c.EnableLoadExtension(true), sqlbatch.ErrClosed)
	extError(t, c.LoadExtension(missing, ""), sqlbatch.ErrClosed)
}

// An extension that registers a function under the name of a Go registration replaces it,
// and SQLite runs the Go registration's destroy callback from inside the load: the cgo call
// must allow callbacks (it is not "#cgo nocallback"; if it were, the runtime would abort here).
func TestLoadExtensionReplacesGoFunction(t *testing.T) {
	so := vectest.SharedLibrary(t)
	c := extDB(t)
	handles := capi.LiveHandles()
	err := c.CreateFunction("vec_version", 0, 0, func(ctx *sqlbatch.Context, _ sqlbatch.Args) { ctx.SetText("go") })
	if err != nil {
		t.Fatal(err)
	}
	if v, err := vectest.One(c, "SELECT vec_version()"); err != nil || v != "go" {
		t.Fatalf("Go vec_version() = %q, %v", v, err)
	}
	if err := c.EnableLoadExtension(true); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadExtension(so, ""); err != nil {
		t.Fatal(err)
	}
	if n := capi.LiveHandles(); n != handles {
		t.Errorf("live handles %d after the replacement, want %d", n, handles)
	}
	if err := vectest.Check(c); err != nil {
		t.Fatal(err)
	}
}
