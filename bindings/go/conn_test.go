package sqlbatch_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func memory(t testing.TB) *sqlbatch.Conn {
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

func mustExec(t testing.TB, c *sqlbatch.Conn, sql string, args ...any) sqlbatch.ExecResult {
	t.Helper()
	r, err := c.ExecScript(sql, args...)
	if err != nil {
		t.Fatalf("ExecScript(%q): %v", sql, err)
	}
	return r
}

// ints returns the single INTEGER column of every row of sql.
func ints(t testing.TB, c *sqlbatch.Conn, sql string, args ...any) []int64 {
	t.Helper()
	rows, err := c.Query(sql, args...)
	if err != nil {
		t.Fatalf("Query(%q): %v", sql, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		out = append(out, rows.Int64(0))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func asError(t testing.TB, err error) *sqlbatch.Error {
	t.Helper()
	var e *sqlbatch.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *sqlbatch.Error", err, err)
	}
	return e
}

func TestVersions(t *testing.T) {
	if v := sqlbatch.Version(); v == "" || !strings.Contains(v, ".") {
		t.Errorf("Version() = %q", v)
	}
	if v := sqlbatch.SQLiteVersion(); !strings.HasPrefix(v, "3.") {
		t.Errorf("SQLiteVersion() = %q", v)
	}
}

func TestOpenFailureIsTypedError(t *testing.T) {
	_, err := sqlbatch.OpenWithFlags(filepath.Join(t.TempDir(), "missing", "x.db"), sqlbatch.OpenReadWrite)
	e := asError(t, err)
	if e.Code != sqlbatch.ErrCantOpen || !errors.Is(err, sqlbatch.ErrCantOpen) {
		t.Fatalf("got %v (code %v), want SQLITE_CANTOPEN", err, e.Code)
	}
}

func TestExecScriptRunsEveryStatementWithParams(t *testing.T) {
	c := memory(t)
	r := mustExec(t, c, `
		CREATE TABLE t(a INTEGER, b TEXT);  -- a comment
		INSERT INTO t VALUES (?, ?);
		/* another */ INSERT INTO t VALUES (?, ?), (?3, 'x');
		UPDATE t SET b = :tag WHERE a > ?;
	`, 1, "one", 2, "two", 3, sqlbatch.Named("tag", "big"), 1)
	if r.Statements != 4 {
		t.Errorf("Statements = %d, want 4", r.Statements)
	}
	// 1 + 2 inserted, then 2 updated (a = 2 and the two rows of the second insert... a > 1: a=2 and a=3).
	if r.Changes != 1+2+2 {
		t.Errorf("Changes = %d, want 5", r.Changes)
	}
	if r.ParamsUsed != 2+3+2 {
		t.Errorf("ParamsUsed = %d, want 7", r.ParamsUsed)
	}
	rows, err := c.Query("SELECT a, b FROM t ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		got = append(got, rows.Text(0)+"="+rows.Text(1))
	}
	want := []string{"1=one", "2=big", "3=big"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rows = %v, want %v", got, want)
	}
}

func TestExecScriptNamedValueGoesToEveryStatement(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a); INSERT INTO t VALUES (:v); INSERT INTO t VALUES ($v + 1); INSERT INTO t VALUES (@v * ?)",
		sqlbatch.Named("v", 10), 3)
	if got := ints(t, c, "SELECT a FROM t ORDER BY rowid"); len(got) != 3 || got[0] != 10 || got[1] != 11 || got[2] != 30 {
		t.Fatalf("got %v", got)
	}
}

func TestExecScriptPrefixedNameMatchesThatSpellingOnly(t *testing.T) {
	// sqlbatch matches names (sqlbatch_conn_exec): ":v" is :v alone, so $v gets no value.
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a)")
	_, err := c.ExecScript("INSERT INTO t VALUES (:v); INSERT INTO t VALUES ($v + 1)", sqlbatch.Named(":v", 10))
	if e := asError(t, err); e.Code != sqlbatch.ErrParamCount || e.StatementIndex != 1 {
		t.Fatalf("got %v, want ErrParamCount in statement 1", err)
	}
	if got := ints(t, c, "SELECT a FROM t"); len(got) != 1 || got[0] != 10 {
		t.Fatalf("rows %v, want [10]", got)
	}
}

func TestExecScriptParamCountErrors(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a)")
	_, err := c.ExecScript("INSERT INTO t VALUES (?); INSERT INTO t VALUES (?)", 1)
	e := asError(t, err)
	if e.Code != sqlbatch.ErrParamCount || e.StatementIndex != 1 {
		t.Errorf("too few: %v (index %d)", err, e.StatementIndex)
	}
	// The first statement ran and stays run.
	if got := ints(t, c, "SELECT count(*) FROM t"); got[0] != 1 {
		t.Errorf("count = %v, want 1", got)
	}
	_, err = c.ExecScript("INSERT INTO t VALUES (?)", 1, 2)
	if !errors.Is(err, sqlbatch.ErrParamCount) {
		t.Errorf("too many: %v", err)
	}
}

func TestScriptErrorLocatesStatementAndToken(t *testing.T) {
	c := memory(t)
	script := "CREATE TABLE t(a);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUS (2);\nINSERT INTO t VALUES (3);"
	r, err := c.ExecScript(script)
	e := asError(t, err)
	if e.Code != sqlbatch.ErrError {
		t.Errorf("Code = %v", e.Code)
	}
	if r.Statements != 2 || e.StatementIndex != 2 {
		t.Errorf("Statements = %d, StatementIndex = %d, want 2 and 2", r.Statements, e.StatementIndex)
	}
	wantStmt := strings.Index(script, "INSERT INTO t VALUS")
	if e.StatementOffset != wantStmt {
		t.Errorf("StatementOffset = %d, want %d", e.StatementOffset, wantStmt)
	}
	if !strings.HasPrefix(e.SQL(), "VALUS") {
		t.Errorf("SQL() = %q, want it to start at the offending token", e.SQL())
	}
	if !strings.HasPrefix(e.Statement(), "INSERT INTO t VALUS") {
		t.Errorf("Statement() = %q", e.Statement())
	}
	if e.Query != script || e.Error() != `near "VALUS": syntax error` {
		t.Errorf("Query = %q, Error() = %q, want SQLite's message alone", e.Query, e.Error())
	}
	if long := e.Long(); !strings.Contains(long, "statement 2 at byte") || !strings.Contains(long, "SQLITE_ERROR") || fmt.Sprintf("%+v", err) != long {
		t.Errorf("Long() = %q, %%+v = %q", long, fmt.Sprintf("%+v", err))
	}
}

func TestConstraintErrorHasExtendedCode(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES (1)")
	_, err := c.ExecScript("INSERT INTO t VALUES (1)")
	e := asError(t, err)
	if e.Code != sqlbatch.ErrConstraint || e.ExtendedCode != sqlbatch.ErrConstraintUnique {
		t.Fatalf("codes = %d/%d", e.Code, e.ExtendedCode)
	}
	if !errors.Is(err, sqlbatch.ErrConstraint) || !errors.Is(err, sqlbatch.ErrConstraintUnique) || errors.Is(err, sqlbatch.ErrBusy) {
		t.Error("errors.Is does not match primary and extended codes")
	}
	if !strings.Contains(e.Msg, "UNIQUE") || sqlbatch.ErrConstraintUnique.String() != "SQLITE_CONSTRAINT_UNIQUE" {
		t.Errorf("Msg = %q", e.Msg)
	}
}

func TestEmptyAndCommentOnlyScripts(t *testing.T) {
	c := memory(t)
	for _, s := range []string{"", "   ", "-- just a comment", "/* block */", ";;", "SELECT 1; -- trailing"} {
		if _, err := c.ExecScript(s); err != nil {
			t.Errorf("ExecScript(%q): %v", s, err)
		}
	}
}

func TestPrepareTakesOneStatement(t *testing.T) {
	c := memory(t)
	if _, err := c.Prepare("SELECT 1; SELECT 2"); err == nil {
		t.Fatal("Prepare of two statements succeeded")
	}
	s, err := c.Prepare("SELECT 1; -- fine\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// PrepareTail walks a script.
	script := "SELECT 1; SELECT 2;  SELECT 3"
	var got []int64
	for rest := script; !isBlank(rest); {
		st, tail, err := c.PrepareTail(rest, 0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ints(t, c, st.SQL())...)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		rest = tail
	}
	if len(got) != 3 || got[2] != 3 {
		t.Errorf("got %v", got)
	}
}

func isBlank(s string) bool { return strings.Trim(s, " ;\n\t") == "" }

func TestCounters(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
	if c.Changes() != 3 || c.TotalChanges() != 3 || c.LastInsertRowID() != 3 {
		t.Errorf("Changes %d TotalChanges %d LastInsertRowID %d", c.Changes(), c.TotalChanges(), c.LastInsertRowID())
	}
	if !c.Autocommit() {
		t.Error("Autocommit false outside a transaction")
	}
	mustExec(t, c, "BEGIN")
	if c.Autocommit() {
		t.Error("Autocommit true inside BEGIN")
	}
	mustExec(t, c, "ROLLBACK")
}

// longQuery runs until interrupted.
const longQuery = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

func TestInterruptStopsAQueryFromAnotherGoroutine(t *testing.T) {
	c := memory(t)
	rows, err := c.Query(longQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				c.Interrupt()
			}
		}
	}()
	ok := rows.Next()
	close(stop)
	if ok {
		t.Fatal("the endless query returned a row")
	}
	if !errors.Is(rows.Err(), sqlbatch.ErrInterrupt) {
		t.Fatalf("Err() = %v, want SQLITE_INTERRUPT", rows.Err())
	}
	// The connection works afterwards.
	if got := ints(t, c, "SELECT 42"); got[0] != 42 {
		t.Fatal(got)
	}
}

func TestInterruptStopsAScriptMidway(t *testing.T) {
	// A second connection to the same file sees the script's first statement commit, and
	// only then starts interrupting: the interrupt lands in the endless second statement.
	// It keeps interrupting until the script returns, because SQLite drops an interrupt
	// that arrives while no statement runs (here: between the first and second statement).
	path := filepath.Join(t.TempDir(), "script.db")
	c, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetBusyTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE t(a)")
	watcher, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if err := watcher.SetBusyTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for {
			if rows, err := watcher.Query("SELECT count(*) FROM t"); err == nil {
				n := int64(0)
				if rows.Next() {
					n = rows.Int64(0)
				}
				if err := rows.Close(); err != nil {
					t.Error(err)
				}
				if n == 1 {
					break
				}
			}
			time.Sleep(time.Millisecond)
		}
		for {
			c.Interrupt()
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	r, err := c.ExecScript("INSERT INTO t VALUES (1); " + longQuery + "; INSERT INTO t VALUES (2)")
	close(done)
	e := asError(t, err)
	if e.Code != sqlbatch.ErrInterrupt || e.StatementIndex != 1 || r.Statements != 1 {
		t.Fatalf("err %v, StatementIndex %d, Statements %d", err, e.StatementIndex, r.Statements)
	}
	if got := ints(t, c, "SELECT a FROM t"); len(got) != 1 || got[0] != 1 {
		t.Fatalf("rows after the interrupted script: %v, want [1]", got)
	}
}

func TestInterruptAndCloseRace(t *testing.T) {
	// Interrupt may be called from any goroutine, also while and after the connection closes.
	for range 20 {
		c, err := sqlbatch.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); c.Interrupt() }()
		go func() {
			defer wg.Done()
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		c.Interrupt()
	}
}

func TestBusyAcrossConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	a, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mustExec(t, a, "CREATE TABLE t(a); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
	if err := b.SetBusyTimeout(0); err != nil {
		t.Fatal(err)
	}
	_, err = b.ExecScript("INSERT INTO t VALUES (2)")
	e := asError(t, err)
	if !errors.Is(err, sqlbatch.ErrBusy) || !e.Temporary() {
		t.Fatalf("got %v, want SQLITE_BUSY", err)
	}
	mustExec(t, a, "COMMIT")
	mustExec(t, b, "INSERT INTO t VALUES (2)")
}

func TestClosedConnection(t *testing.T) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil { // twice is fine
		t.Fatal(err)
	}
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() || !errors.Is(rows.Err(), sqlbatch.ErrClosed) {
		t.Fatalf("Next on a closed connection: err %v, want SQLBATCH_E_CLOSED", rows.Err())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestScriptWithNULByte(t *testing.T) {
	c := memory(t)
	// A NUL byte anywhere in a script (SQLite would stop reading there) is refused before
	// anything runs, also inside a comment.
	for _, script := range []string{
		"CREATE TABLE t(a); INSERT INTO t VALUES (1);\x00 INSERT INTO t VALUES (2)",
		"SELECT 1; -- a \x00 in a comment\nSELECT 2",
	} {
		r, err := c.ExecScript(script)
		e := asError(t, err)
		at := strings.IndexByte(script, 0)
		if e.Code != sqlbatch.ErrInvalidArgument || e.Offset != at || r.Statements != 0 {
			t.Fatalf("%q: err %v at offset %d; %d statements ran", script, err, e.Offset, r.Statements)
		}
	}
}
