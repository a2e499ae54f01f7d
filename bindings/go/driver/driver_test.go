package driver_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// open returns a pool on a fresh database file in a temporary directory.
func open(t testing.TB, options string) *sql.DB {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "test.db")
	if options != "" {
		dsn += "?" + options
	}
	db, err := sql.Open("sqlbatch", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

func exec(t testing.TB, db interface {
	Exec(string, ...any) (sql.Result, error)
}, query string, args ...any) sql.Result {
	t.Helper()
	r, err := db.Exec(query, args...)
	if err != nil {
		t.Fatalf("Exec(%q): %v", query, err)
	}
	return r
}

func one[T any](t testing.TB, db *sql.DB, query string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(query, args...).Scan(&v); err != nil {
		t.Fatalf("QueryRow(%q): %v", query, err)
	}
	return v
}

func TestRegisteredAndPing(t *testing.T) {
	found := false
	for _, d := range sql.Drivers() {
		found = found || d == "sqlbatch"
	}
	if !found {
		t.Fatal(`driver "sqlbatch" is not registered`)
	}
	db := open(t, "")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}

func TestExecResultAndMultiStatementArgs(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, n INTEGER)")
	r := exec(t, db, "INSERT INTO t(name, n) VALUES (?, ?)", "a", 1)
	if id, err := r.LastInsertId(); err != nil || id != 1 {
		t.Errorf("LastInsertId %d (error %v)", id, err)
	}
	// One Exec, three statements, positional and named arguments, one call into C.
	r = exec(t, db, `INSERT INTO t(name, n) VALUES (?, :n);
		INSERT INTO t(name, n) VALUES (?, :n + 1);
		UPDATE t SET n = n * 10 WHERE name = ?`, "b", "c", "a", sql.Named("n", 5))
	if n, err := r.RowsAffected(); err != nil || n != 3 {
		t.Errorf("RowsAffected %d, want 3 (summed over the statements) (error %v)", n, err)
	}
	if id, err := r.LastInsertId(); err != nil || id != 3 {
		t.Errorf("LastInsertId %d, want 3 (error %v)", id, err)
	}
	if got := one[string](t, db, "SELECT group_concat(name || n, ',') FROM (SELECT * FROM t ORDER BY id)"); got != "a10,b5,c6" {
		t.Errorf("table holds %s", got)
	}
}

func TestPlaceholders(t *testing.T) {
	db := open(t, "")
	for _, tc := range []struct {
		query string
		args  []any
		want  string
	}{
		{"SELECT ? || ?", []any{"a", "b"}, "ab"},
		{"SELECT ?2 || ?1", []any{"a", "b"}, "ba"},
		{"SELECT :x || @y || $z", []any{sql.Named("z", "3"), sql.Named("x", "1"), sql.Named("y", "2")}, "123"},
		{"SELECT :x || :x", []any{sql.Named("x", "r")}, "rr"},
		{"SELECT :x || ?", []any{sql.Named("x", "n"), "p"}, "np"},
		{"SELECT :a || :b", []any{"1", "2"}, "12"}, // named parameters bound by position, as mattn does
		// Names are matched by sqlbatch_stmt_param_index: "id" is :id, else @id, else $id;
		// a parameter its name did not reach takes a positional argument.
		{"SELECT $id || @k || ?", []any{sql.Named("id", "a"), sql.Named("k", "b"), "c"}, "abc"},
		{"SELECT @id || :id", []any{sql.Named("id", "x"), "y"}, "yx"},
	} {
		if got := one[string](t, db, tc.query, tc.args...); got != tc.want {
			t.Errorf("%s %v = %q, want %q", tc.query, tc.args, got, tc.want)
		}
		// The same through a prepared statement.
		st, err := db.Prepare(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := st.QueryRow(tc.args...).Scan(&got); err != nil || got != tc.want {
			t.Errorf("prepared %s %v = %q, %v", tc.query, tc.args, got, err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Query("SELECT ?, ?", 1); err == nil {
		t.Error("too few arguments accepted")
	}
	if _, err := db.Query("SELECT ?", 1, 2); err == nil {
		t.Error("too many arguments accepted")
	}
}

func TestTypesRoundTrip(t *testing.T) {
	db := open(t, "")
	exec(t, db, `CREATE TABLE v(i INTEGER, f REAL, s TEXT, b BLOB, d DATETIME, ts TIMESTAMP, dt DATE, ok BOOLEAN, x)`)
	when := time.Date(2024, 3, 9, 10, 11, 12, 123456789, time.UTC)
	exec(t, db, "INSERT INTO v VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		int64(math.MinInt64), 2.5, "héllo\x00!", []byte{0, 1, 2}, when, when.Unix(), "2024-03-09", true, uint32(7))
	exec(t, db, "INSERT INTO v VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
	exec(t, db, "INSERT INTO v VALUES (0, 0, '', ?, 1700000000123, 0, '2024-03-09T01:02:03Z', 0, 'x')", []byte{})
	rows, err := db.Query("SELECT * FROM v ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()

	var (
		i      sql.NullInt64
		f      sql.NullFloat64
		s      sql.NullString
		b      []byte
		d, ts  sql.NullTime
		dt     sql.NullTime
		ok     sql.NullBool
		x      any
		scanTo = []any{&i, &f, &s, &b, &d, &ts, &dt, &ok, &x}
	)
	rows.Next()
	if err := rows.Scan(scanTo...); err != nil {
		t.Fatal(err)
	}
	if i.Int64 != math.MinInt64 || f.Float64 != 2.5 || s.String != "héllo\x00!" || !bytes.Equal(b, []byte{0, 1, 2}) ||
		!d.Time.Equal(when) || !ts.Time.Equal(when.Truncate(time.Second)) || !dt.Time.Equal(time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC)) ||
		!ok.Bool || x != int64(7) {
		t.Errorf("row 1: %v %v %q %v %v %v %v %v %v", i, f, s.String, b, d, ts, dt, ok, x)
	}
	rows.Next()
	if err := rows.Scan(scanTo...); err != nil {
		t.Fatal(err)
	}
	if i.Valid || f.Valid || s.Valid || b != nil || d.Valid || ts.Valid || dt.Valid || ok.Valid || x != nil {
		t.Errorf("row 2 (NULLs): %v %v %v %v %v %v %v %v %v", i, f, s, b, d, ts, dt, ok, x)
	}
	rows.Next()
	if err := rows.Scan(scanTo...); err != nil {
		t.Fatal(err)
	}
	if !s.Valid || s.String != "" || b == nil || len(b) != 0 || !d.Time.Equal(time.UnixMilli(1700000000123)) ||
		!dt.Time.Equal(time.Date(2024, 3, 9, 1, 2, 3, 0, time.UTC)) || !ok.Valid || ok.Bool || x != "x" {
		t.Errorf("row 3: %q %v %v %v %v %v", s.String, b, d, dt, ok, x)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestTimeLocation(t *testing.T) {
	db := open(t, "_loc=America/New_York")
	exec(t, db, "CREATE TABLE v(d DATETIME)")
	when := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	exec(t, db, "INSERT INTO v VALUES (?)", when)
	got := one[time.Time](t, db, "SELECT d FROM v")
	if !got.Equal(when) || got.Location().String() != "America/New_York" {
		t.Fatalf("got %v in %v", got, got.Location())
	}
	// A time is written as text SQLite's date functions read.
	if s := one[string](t, db, "SELECT datetime(d) FROM v"); s != "2024-07-01 12:00:00" {
		t.Fatalf("datetime() = %q", s)
	}
}

func TestRawBytesAndBytesAreDistinct(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE v(s TEXT, b BLOB)")
	for i := range 600 {
		exec(t, db, "INSERT INTO v VALUES (?, ?)", fmt.Sprintf("text %d", i), []byte(fmt.Sprintf("blob %d", i)))
	}
	rows, err := db.Query("SELECT s, b FROM v ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var raw sql.RawBytes
		var s string
		if err := rows.Scan(&s, &raw); err != nil {
			t.Fatal(err)
		}
		if string(raw) != fmt.Sprintf("blob %d", n) || s != fmt.Sprintf("text %d", n) {
			t.Fatalf("row %d: %q %q", n, s, raw)
		}
		n++
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err = db.Query("SELECT s, b FROM v ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	var keptS []string
	for rows.Next() {
		var s string
		var b []byte
		if err := rows.Scan(&s, &b); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, b)
		keptS = append(keptS, s)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range kept {
		if string(kept[i]) != fmt.Sprintf("blob %d", i) || keptS[i] != fmt.Sprintf("text %d", i) {
			t.Fatalf("row %d changed after later batches: %q %q", i, kept[i], keptS[i])
		}
	}
}

func TestColumnTypes(t *testing.T) {
	db := open(t, "")
	exec(t, db, `CREATE TABLE c(id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, score REAL, data BLOB, at DATETIME, flag BOOLEAN, num NUMERIC)`)
	rows, err := db.Query("SELECT id, name, score, data, at, flag, num, 1 + 1 AS two FROM c")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, db string
		nullable bool
		known    bool
		scan     any
	}{
		{"id", "INTEGER", false, true, int64(0)},
		{"name", "VARCHAR(20)", false, true, ""},
		{"score", "REAL", true, true, sql.NullFloat64{}},
		{"data", "BLOB", true, true, []byte(nil)},
		{"at", "DATETIME", true, true, sql.NullTime{}},
		{"flag", "BOOLEAN", true, true, sql.NullBool{}},
		{"num", "NUMERIC", true, true, nil},
		{"two", "", true, false, nil}, // nothing known: may be NULL
	}
	anyType := reflect.TypeOf((*any)(nil)).Elem()
	for i, ct := range cts {
		w := want[i]
		nullable, ok := ct.Nullable()
		wantScan := anyType
		if w.scan != nil {
			wantScan = reflect.TypeOf(w.scan)
		}
		if ct.Name() != w.name || ct.DatabaseTypeName() != w.db || nullable != w.nullable || ok != w.known || ct.ScanType() != wantScan {
			t.Errorf("column %d: %s %q nullable %v/%v scan %v; want %+v (%v)", i, ct.Name(), ct.DatabaseTypeName(), nullable, ok, ct.ScanType(), w, wantScan)
		}
	}
}

func TestTypedErrors(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE u(a UNIQUE)")
	exec(t, db, "INSERT INTO u VALUES (1)")
	_, err := db.Exec("INSERT INTO u VALUES (1)")
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.ExtendedCode != sqlbatch.ErrConstraintUnique || !errors.Is(err, sqlbatch.ErrConstraint) {
		t.Fatalf("got %v", err)
	}
	_, err = db.Query("SELECT * FORM u")
	if !errors.As(err, &e) || e.Code != sqlbatch.ErrError || e.Offset < 0 {
		t.Fatalf("syntax error: %v", err)
	}
	if err := db.QueryRow("SELECT a FROM u WHERE a = 2").Scan(new(int)); err != sql.ErrNoRows {
		t.Fatalf("no rows: %v", err)
	}
}

func TestTransactions(t *testing.T) {
	db := open(t, "_txlock=immediate")
	exec(t, db, "CREATE TABLE t(a)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, "INSERT INTO t VALUES (1)")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, "INSERT INTO t VALUES (2)")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := one[int](t, db, "SELECT sum(a) FROM t"); got != 2 {
		t.Fatalf("sum %d, want 2 (the rolled back row gone)", got)
	}
	// Read-only transactions refuse writes, and the connection writes again afterwards.
	db.SetMaxOpenConns(1)
	rtx, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelSerializable})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rtx.Exec("INSERT INTO t VALUES (3)"); !errors.Is(err, sqlbatch.ErrReadOnly) {
		t.Fatalf("write in a read-only transaction: %v", err)
	}
	if got := 0; rtx.QueryRow("SELECT count(*) FROM t").Scan(&got) != nil || got != 1 {
		t.Fatal("read in a read-only transaction")
	}
	if err := rtx.Commit(); err != nil {
		t.Fatal(err)
	}
	exec(t, db, "INSERT INTO t VALUES (4)")
	if _, err := db.BeginTx(context.Background(), &sql.TxOptions{Isolation: sql.LevelLinearizable}); err == nil {
		t.Fatal("LevelLinearizable accepted")
	}
	// Two Rows of one prepared statement open at once inside a transaction.
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("SELECT a FROM t ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	r1, err := st.Query()
	if err != nil {
		t.Fatal(err)
	}
	r1.Next()
	r2, err := st.Query()
	if err != nil {
		t.Fatal(err)
	}
	var a1, a2 int
	r2.Next()
	if err := r2.Scan(&a2); err != nil {
		t.Fatal(err)
	}
	if err := r1.Scan(&a1); err != nil {
		t.Fatal(err)
	}
	if a1 != 2 || a2 != 2 || !r1.Next() {
		t.Fatal("the second Query disturbed the first")
	}
	if err := r1.Scan(&a1); err != nil {
		t.Fatal(err)
	}
	if a1 != 4 {
		t.Fatalf("second row %d", a1)
	}
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
}

func TestDSNOptions(t *testing.T) {
	db := open(t, "_foreign_keys=1&_journal_mode=WAL&_synchronous=OFF&_busy_timeout=1234&_cache_size=-4000&_recursive_triggers=on")
	db.SetMaxOpenConns(1)
	for pragma, want := range map[string]string{
		"foreign_keys": "1", "journal_mode": "wal", "synchronous": "0", "busy_timeout": "1234",
		"cache_size": "-4000", "recursive_triggers": "1",
	} {
		if got := one[string](t, db, "PRAGMA "+pragma); got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	for _, bad := range []string{"x.db?_txlock=sometimes", "x.db?_loc=Nowhere/City", "x.db?_busy_timeout=soon", "x.db?_fk=maybe", "x.db?mode=rx", "x.db?%zz"} {
		if _, err := driver.ParseDSN(bad); err == nil {
			t.Errorf("ParseDSN(%q) accepted", bad)
		}
	}
	cfg, err := driver.ParseDSN("file:data.db?mode=ro&cache=shared&_loc=auto")
	if err != nil || !cfg.URI || cfg.Path != "file:data.db?mode=ro&cache=shared&_loc=auto" || cfg.Loc != time.Local || cfg.Flags&sqlbatch.OpenURI == 0 {
		t.Errorf("file: URI: %+v %v", cfg, err)
	}
	cfg, err = driver.ParseDSN("data.db?mode=ro&cache=shared")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != "data.db" || cfg.Flags&sqlbatch.OpenReadOnly == 0 || cfg.Flags&sqlbatch.OpenSharedCache == 0 {
		t.Errorf("file name with options: %+v", cfg)
	}
}

func TestReadOnlyModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ro.db")
	rw, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, rw, "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, dsn := range []string{path + "?mode=ro", "file:" + path + "?mode=ro", path + "?_query_only=1"} {
		db, err := sql.Open("sqlbatch", dsn)
		if err != nil {
			t.Fatal(err)
		}
		if got := one[int](t, db, "SELECT a FROM t"); got != 1 {
			t.Errorf("%s: read %d", dsn, got)
		}
		if _, err := db.Exec("INSERT INTO t VALUES (2)"); !errors.Is(err, sqlbatch.ErrReadOnly) {
			t.Errorf("%s: write gave %v, want SQLITE_READONLY", dsn, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestQueryWithSeveralStatements(t *testing.T) {
	db := open(t, "")
	db.SetMaxOpenConns(1)
	rows, err := db.Query("CREATE TABLE m(a); INSERT INTO m VALUES (?), (?); SELECT sum(a) FROM m WHERE a > ?", 1, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sum int
	if !rows.Next() || rows.Scan(&sum) != nil || sum != 3 {
		t.Fatalf("sum %d", sum)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := db.Prepare("INSERT INTO m VALUES (?); INSERT INTO m VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(10, 20); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := one[int](t, db, "SELECT sum(a) FROM m"); got != 33 {
		t.Fatalf("sum %d", got)
	}
}

const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

func TestContextCancelsAQueryMidway(t *testing.T) {
	db := open(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var n int
	err := db.QueryRowContext(ctx, endless).Scan(&n)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	var e *sqlbatch.Error
	if errors.As(err, &e) && e.Code != sqlbatch.ErrInterrupt {
		t.Fatalf("got %v", err)
	}
	// The pool's connection is fine afterwards.
	if got := one[int](t, db, "SELECT 7"); got != 7 {
		t.Fatal(got)
	}
}

func TestContextCancelsRowsBetweenBatches(t *testing.T) {
	db := open(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := db.QueryContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
		if n == 1000 {
			cancel()
		}
	}
	if !errors.Is(rows.Err(), context.Canceled) || n < 1000 {
		t.Fatalf("after %d rows: %v", n, rows.Err())
	}
}

func TestContextCancelsAScriptMidway(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlbatch", filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, "CREATE TABLE t(a)")
	// A second pool watches the first statement commit, then cancels: the cancellation
	// lands in the endless second statement.
	watcher, err := sql.Open("sqlbatch", filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			var n int
			if watcher.QueryRow("SELECT count(*) FROM t").Scan(&n) == nil && n == 1 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (?); "+endless+"; INSERT INTO t VALUES (?)", 1, 2)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.Code != sqlbatch.ErrInterrupt || e.StatementIndex != 1 {
		t.Fatalf("got %v", err)
	}
	if got := one[int](t, db, "SELECT count(*) FROM t"); got != 1 {
		t.Fatalf("%d rows, want 1", got)
	}
}

func TestCancelledContextBeforeTheCall(t *testing.T) {
	db := open(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.ExecContext(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if _, err := db.QueryContext(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

func TestStrayTransactionIsRolledBackBeforeReuse(t *testing.T) {
	db := open(t, "")
	db.SetMaxOpenConns(1)
	exec(t, db, "CREATE TABLE t(a)")
	exec(t, db, "BEGIN; INSERT INTO t VALUES (1)") // left open on the pool's connection
	// The next user of the connection must not inherit the transaction.
	if got := one[int](t, db, "SELECT count(*) FROM t"); got != 0 {
		t.Fatalf("the stray transaction leaked: %d rows", got)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
}

func TestPoolUnderConcurrency(t *testing.T) {
	db := open(t, "_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate")
	db.SetMaxOpenConns(4)
	exec(t, db, "CREATE TABLE acct(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
	exec(t, db, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 100) INSERT INTO acct SELECT i, 1000 FROM k")
	sel, err := db.Prepare("SELECT balance FROM acct WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				from, to := (g*7+i)%100+1, (g*13+i*3)%100+1
				tx, err := db.Begin()
				if err != nil {
					errs <- err
					return
				}
				if _, err := tx.Exec("UPDATE acct SET balance = balance - 1 WHERE id = ?; UPDATE acct SET balance = balance + 1 WHERE id = ?", from, to); err != nil {
					if err := tx.Rollback(); err != nil {
						t.Error(err)
					}
					errs <- err
					return
				}
				if err := tx.Commit(); err != nil {
					errs <- err
					return
				}
				var bal int
				if err := sel.QueryRow(from).Scan(&bal); err != nil {
					errs <- err
					return
				}
				rows, err := db.Query("SELECT id, balance FROM acct WHERE id <= ?", 10)
				if err != nil {
					errs <- err
					return
				}
				for rows.Next() {
				}
				if err := rows.Close(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if total := one[int](t, db, "SELECT sum(balance) FROM acct"); total != 100*1000 {
		t.Fatalf("money was created or destroyed: %d", total)
	}
}

func TestBulkInsertThroughRaw(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var p sqlbatch.Params
	for i := range 5000 {
		p.Int(i).Float64(float64(i) / 4).Text(fmt.Sprint("row-", i))
	}
	var res sqlbatch.WriteResult
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*driver.Conn)
		if !ok {
			return fmt.Errorf("driver connection is %T", dc)
		}
		res, err = c.ExecMany(ctx, "INSERT INTO bulk VALUES (?, ?, ?)", &p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if res.Rows != 5000 || res.Changes != 5000 {
		t.Fatalf("result %+v", res)
	}
	if got := one[int](t, db, "SELECT sum(a) FROM bulk"); got != 5000*4999/2 {
		t.Fatalf("sum %d", got)
	}
}

func TestConnectHookAndConnector(t *testing.T) {
	cfg, err := driver.ParseDSN(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Pragmas = append(cfg.Pragmas, "PRAGMA user_version = 42")
	db := sql.OpenDB(driver.NewConnector(cfg))
	defer db.Close()
	if got := one[int](t, db, "PRAGMA user_version"); got != 42 {
		t.Fatalf("user_version %d", got)
	}
	hooked := false
	d := &driver.Driver{ConnectHook: func(c *driver.Conn) error {
		hooked = c.Raw() != nil
		return nil
	}}
	c, err := d.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !hooked {
		t.Fatal("ConnectHook not called")
	}
	if _, err := (&driver.Driver{ConnectHook: func(*driver.Conn) error { return errors.New("no") }}).Open(":memory:"); err == nil {
		t.Fatal("a failing ConnectHook did not fail the connection")
	}
}

func TestUnsupportedArgument(t *testing.T) {
	db := open(t, "")
	if _, err := db.Exec("SELECT ?", struct{}{}); err == nil || !strings.Contains(err.Error(), "struct") {
		t.Fatalf("got %v", err)
	}
	if _, err := db.Exec("SELECT ?", uint64(math.MaxUint64)); err == nil {
		t.Fatal("uint64 overflow accepted")
	}
	type myInt int
	if got := one[int](t, db, "SELECT ?", myInt(5)); got != 5 {
		t.Fatal("named integer type")
	}
	var np *int
	if got := one[sql.NullInt64](t, db, "SELECT ?", np); got.Valid {
		t.Fatal("nil pointer is not NULL")
	}
}

// A BLOB scanned into a *any is a copy the caller owns (database/sql's rule), in small and
// in large rows: changing it changes no other value, neither one scanned from the same cell
// again nor one of another row, and the rows read after it are intact.
func TestBlobIntoAnyIsTheCallersCopy(t *testing.T) {
	for _, n := range []int{3, 40 << 10} {
		db := open(t, "")
		exec(t, db, "CREATE TABLE b(i INTEGER, v BLOB)")
		for i := range 3 {
			exec(t, db, "INSERT INTO b VALUES (?, ?)", i, bytes.Repeat([]byte{byte('a' + i)}, n))
		}
		rows, err := db.Query("SELECT i, v, v FROM b ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		var kept []any
		for rows.Next() {
			var i, v, again, other any
			if err := rows.Scan(&i, &v, &other); err != nil {
				t.Fatal(err)
			}
			if err := rows.Scan(&i, &again, &other); err != nil {
				t.Fatal(err)
			}
			vb, ok := v.([]byte)
			if !ok {
				t.Fatalf("%d-byte BLOB scanned into *any as %T", n, v)
			}
			want := bytes.Repeat([]byte{byte('a' + i.(int64))}, n)
			vb[0] = 'X'
			if !bytes.Equal(again.([]byte), want) {
				t.Fatalf("%d-byte BLOB: a second scan of the cell sees the first one's change", n)
			}
			kept = append(kept, again)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		for i, k := range kept {
			if want := bytes.Repeat([]byte{byte('a' + i)}, n); !bytes.Equal(k.([]byte), want) {
				t.Fatalf("%d-byte BLOB of row %d changed after the rows went on", n, i)
			}
		}
	}
}
