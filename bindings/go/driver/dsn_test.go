package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// _pragma options run on every new connection, in the DSN's order, after the other options
// (so _pragma=synchronous(FULL) wins over the default NORMAL).
func TestDSNPragmaOnEveryConnection(t *testing.T) {
	db := open(t, "_pragma=cache_size(-100)&_pragma=synchronous(FULL)&_pragma=cache_size%3D-200&_pragma=main.temp_store(MEMORY)&_sync=OFF")
	ctx := context.Background()
	conns := make([]*sql.Conn, 3) // three at once: three connections of the pool
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		var cache, sync, temp int
		if err := c.QueryRowContext(ctx, "SELECT (SELECT cache_size FROM pragma_cache_size), (SELECT synchronous FROM pragma_synchronous), (SELECT temp_store FROM pragma_temp_store)").Scan(&cache, &sync, &temp); err != nil {
			t.Fatal(err)
		}
		if cache != -200 || sync != 2 || temp != 2 {
			t.Errorf("connection %d: cache_size %d, synchronous %d, temp_store %d; want -200 (the later _pragma), 2 (FULL over _sync=OFF), 2", i, cache, sync, temp)
		}
	}
	cfg, err := driver.ParseDSN("x.db?_pragma=foreign_keys(1)&_fk=0&_pragma=journal_mode%3DWAL")
	if err != nil {
		t.Fatal(err)
	}
	n := len(cfg.Pragmas)
	if n < 2 || cfg.Pragmas[n-2] != "PRAGMA foreign_keys(1)" || cfg.Pragmas[n-1] != "PRAGMA journal_mode=WAL" || cfg.Pragmas[0] != "PRAGMA foreign_keys = 0" {
		t.Errorf("Pragmas %q: want _fk first, the _pragma options last in order", cfg.Pragmas)
	}
}

func TestDSNPragmaRefusesWhatIsNotOnePragma(t *testing.T) {
	for _, v := range []string{"", "(1)", "1x", "foo bar", "foo;DROP TABLE t", "foo(1); DELETE FROM t", "foo=", "main.", "foo('a)", "foo(1)x"} {
		dsn := "x.db?_pragma=" + strings.NewReplacer(";", "%3B", "=", "%3D", " ", "%20", "(", "%28").Replace(v)
		if _, err := driver.ParseDSN(dsn); err == nil || !strings.Contains(err.Error(), "invalid _pragma") {
			t.Errorf("ParseDSN(%q): %v; want an invalid _pragma error", dsn, err)
		}
	}
	for _, v := range []string{"busy_timeout(5000)", "busy_timeout=5000", "optimize", "main.cache_size(-2000)", "encoding('UTF-8')", "x('a;b')"} {
		cfg, err := driver.ParseDSN("x.db?_pragma=" + strings.NewReplacer(";", "%3B", "=", "%3D").Replace(v))
		if err != nil || cfg.Pragmas[len(cfg.Pragmas)-1] != "PRAGMA "+v {
			t.Errorf("_pragma=%s: %v, %q", v, err, cfg.Pragmas)
		}
	}
}

// vfs opens a plain file name through the named VFS (memdb keeps the database in memory:
// no file appears), and an unknown VFS fails with SQLite's message.
func TestDSNVFS(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "odd #%25name.db") // "?" cannot be in a DSN's file name
	db, err := sql.Open("sqlbatch", path+"?vfs=memdb")
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
	if got := one[int](t, db, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("count %d", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("memdb made a file (%v)", err)
	}

	// The default unix VFS by name: the file appears under its exact (odd) name.
	db, err = sql.Open("sqlbatch", path+"?vfs=unix&_journal_mode=DELETE")
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, "CREATE TABLE t(x)")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("vfs=unix: %v", err)
	}

	for _, dsn := range []string{path + "?vfs=nosuch", "file:" + filepath.Join(dir, "plain.db") + "?vfs=nosuch"} {
		db, err := sql.Open("sqlbatch", dsn)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Ping()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if err == nil || err.Error() != "no such vfs: nosuch" {
			t.Errorf("%s: %v; want no such vfs", dsn, err)
		}
	}
	if _, err := driver.ParseDSN("x.db?vfs="); err == nil {
		t.Error("empty vfs accepted")
	}
	// A Config's VFS on a URI of its own is added to its parameters.
	cfg, err := driver.ParseDSN("file:" + filepath.Join(dir, "u.db") + "?cache=private")
	if err != nil {
		t.Fatal(err)
	}
	cfg.VFS = "memdb"
	db = sql.OpenDB(driver.NewConnector(cfg))
	exec(t, db, "CREATE TABLE t(x)")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "u.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Config.VFS on a URI: a file was made (%v)", err)
	}
}

func TestDSNImmutable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "imm.db")
	db, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES (41)")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = sql.Open("sqlbatch", path+"?immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := one[int](t, db, "SELECT x + 1 FROM t"); got != 42 {
		t.Errorf("read %d", got)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (1)"); !errors.Is(err, sqlbatch.ErrReadOnly) {
		t.Errorf("write to an immutable database: %v", err)
	}
	if _, err := driver.ParseDSN("x.db?immutable=perhaps"); err == nil {
		t.Error("immutable=perhaps accepted")
	}
}

func TestDSNStmtCacheSizeAndRefusedOptions(t *testing.T) {
	for dsn, want := range map[string]int{"x.db?_stmt_cache_size=5": 5, "x.db?_stmt_cache=7": 7, "x.db?_stmt_cache_size=0": 0} {
		cfg, err := driver.ParseDSN(dsn)
		if err != nil || cfg.StmtCacheSize != want {
			t.Errorf("%s: %v, StmtCacheSize %d; want %d", dsn, err, cfg.StmtCacheSize, want)
		}
	}
	for _, dsn := range []string{"x.db?_stmt_cache_size=-1", "x.db?_stmt_cache_size=many"} {
		if _, err := driver.ParseDSN(dsn); err == nil || !strings.Contains(err.Error(), "_stmt_cache_size") {
			t.Errorf("%s: %v", dsn, err)
		}
	}
	for _, dsn := range []string{"x.db?_auth", "x.db?_auth_user=admin&_auth_pass=x", "file:x.db?_auth_crypt=sha1", "x.db?_auth_salt=s"} {
		if _, err := driver.ParseDSN(dsn); err == nil || !strings.Contains(err.Error(), "user authentication is not supported") {
			t.Errorf("%s: %v; want user authentication refused", dsn, err)
		}
	}
}

// _batch_rows defaults to sqlbatch.DefaultBatchRows, and to AheadBatchRows with _fetch_ahead
// unless it is given.
func TestDSNBatchRowsDefaults(t *testing.T) {
	for dsn, want := range map[string]int{
		"x.db":                                  sqlbatch.DefaultBatchRows,
		"x.db?_batch_rows=7":                    7,
		"x.db?_fetch_ahead=1":                   driver.AheadBatchRows,
		"x.db?_fetch_ahead=on&_batch_rows=7":    7,
		"x.db?_batch_rows=300&_fetch_ahead=yes": 300,
		"x.db?_fetch_ahead=0":                   sqlbatch.DefaultBatchRows,
	} {
		cfg, err := driver.ParseDSN(dsn)
		if err != nil {
			t.Fatalf("ParseDSN(%q): %v", dsn, err)
		}
		if cfg.BatchRows != want {
			t.Errorf("ParseDSN(%q).BatchRows = %d; want %d", dsn, cfg.BatchRows, want)
		}
	}
}

func TestUntrustedOption(t *testing.T) {
	for _, dsn := range []string{"x.db?_untrusted=1", "x.db?_untrusted=true"} {
		cfg, err := driver.ParseDSN(dsn)
		if err != nil || cfg.Flags&sqlbatch.OpenUntrusted == 0 {
			t.Fatalf("%s: flags %v, err %v", dsn, cfg, err)
		}
	}
	if cfg, err := driver.ParseDSN("x.db?_untrusted=0"); err != nil || cfg.Flags&sqlbatch.OpenUntrusted != 0 {
		t.Fatal("_untrusted=0 sets the flag", err)
	}
	if _, err := driver.ParseDSN("x.db?_untrusted=perhaps"); err == nil {
		t.Fatal("_untrusted=perhaps accepted")
	}
	// A file that is not a database: the open's check says so.
	path := t.TempDir() + "/not.db"
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlbatch", path+"?_untrusted=1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	}()
	var e *sqlbatch.Error
	if err := db.Ping(); !errors.As(err, &e) || e.Code != sqlbatch.ErrNotADB {
		t.Fatalf("Ping of a file that is not a database: %v", err)
	}
}
