package sqlbatch_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// FuzzExecScript runs arbitrary scripts (with nargs positional integer arguments) through
// Conn.ExecScript, one call into C, and checks the outcome against a reference that runs the
// same script statement by statement with PrepareTail and Stmt.Exec on a second, identical
// database: both must succeed or fail alike, after the same number of statements, with the
// same extended code, and the error's offsets must lie inside the script.
//
// The seed corpus is in testdata/fuzz/FuzzExecScript; run the fuzzer with
//
//	go test -run '^$' -fuzz FuzzExecScript -fuzztime 30s
func FuzzExecScript(f *testing.F) {
	for _, seed := range []struct {
		script string
		nargs  int
	}{
		{"INSERT INTO t VALUES (1, 'a'); INSERT INTO t VALUES (2, 'b');", 0},
		{"INSERT INTO t VALUES (?, ?); UPDATE t SET b = ? WHERE a = ?", 4},
		{"SELEC 1; INSERT INTO t VALUES (1, 2)", 0},
		{"", 0},
		{"-- only a comment", 0},
		{"CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1); INSERT INTO u VALUES (1);", 0},
	} {
		f.Add(seed.script, seed.nargs)
	}
	limitHeap.Do(func() {
		// Scripts can ask SQLite for huge values (zeroblob(1e9)); cap its memory.
		c, err := sqlbatch.Open(":memory:")
		if err == nil {
			if _, err := c.ExecScript("PRAGMA hard_heap_limit = 268435456"); err != nil {
				f.Error(err)
			}
			if err := c.Close(); err != nil {
				f.Error(err)
			}
		}
	})
	f.Fuzz(func(t *testing.T, script string, nargs int) {
		if len(script) > 4096 || nargs < 0 || nargs > 16 || strings.IndexByte(script, 0) >= 0 {
			t.Skip() // NUL bytes: see TestScriptWithNULByte
		}
		if strings.HasSuffix(script, "/*") && onlyBlank(script) || strings.IndexByte(script, '\v') >= 0 {
			// Known differences between sqlbatch_conn_exec and SQLite's own tokenizer,
			// reported to the core: SQLite reads a "/*" that ends the input as a "/" token (a
			// syntax error) where sqlbatch_conn_exec skips it as a comment; and SQLite takes a
			// vertical tab for a space only after another space, while the script skipper
			// stops at it and hands SQLite a statement starting with an illegal token.
			t.Skip()
		}
		low := strings.ToLower(script)
		for _, risky := range []string{"attach", "vacuum", "directory", "load_extension", "hard_heap_limit", "soft_heap_limit"} {
			if strings.Contains(low, risky) {
				t.Skip() // touches files or process-wide settings
			}
		}
		args := make([]any, nargs)
		for i := range args {
			args[i] = int64(i + 1)
		}

		got, gotErr, interrupted := runBounded(t, func(c *sqlbatch.Conn) (int, error) {
			r, err := c.ExecScript(script, args...)
			return r.Statements, err
		})
		if interrupted {
			t.Skip("ran too long")
		}
		want, wantErr, interrupted := runBounded(t, func(c *sqlbatch.Conn) (int, error) {
			return referenceExec(c, script, args)
		})
		if interrupted {
			t.Skip("ran too long")
		}

		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("script %q: ExecScript error %v, reference error %v", script, gotErr, wantErr)
		}
		if got != want {
			t.Fatalf("script %q: ExecScript ran %d statements, the reference %d (errors %v / %v)", script, got, want, gotErr, wantErr)
		}
		if gotErr == nil {
			return
		}
		var e, r *sqlbatch.Error
		if !errors.As(gotErr, &e) || !errors.As(wantErr, &r) {
			t.Fatalf("script %q: errors %v / %v are not *sqlbatch.Error", script, gotErr, wantErr)
		}
		if e.ExtendedCode != r.ExtendedCode {
			t.Fatalf("script %q: ExecScript failed with %v (%v), the reference with %v (%v)", script, e.ExtendedCode, e, r.ExtendedCode, r)
		}
		if e.Query != script {
			t.Fatalf("Error.Query is not the script")
		}
		if e.StatementIndex >= 0 && e.StatementIndex != got {
			t.Fatalf("script %q: StatementIndex %d after %d statements ran", script, e.StatementIndex, got)
		}
		if e.StatementOffset < -1 || e.StatementOffset > len(script) || e.Offset < -1 || e.Offset > len(script) {
			t.Fatalf("script %q: offsets out of range: statement %d, token %d", script, e.StatementOffset, e.Offset)
		}
		if e.Offset >= 0 && e.StatementOffset >= 0 && e.Offset < e.StatementOffset {
			t.Fatalf("script %q: token offset %d before its statement at %d", script, e.Offset, e.StatementOffset)
		}
	})
}

var limitHeap sync.Once

// runBounded runs f on a fresh database holding table t(a, b), interrupting it (repeatedly,
// see Conn.Interrupt) if it runs for more than two seconds.
func runBounded(t *testing.T, f func(*sqlbatch.Conn) (int, error)) (n int, err error, interrupted bool) {
	c, oerr := sqlbatch.Open(":memory:")
	if oerr != nil {
		t.Fatal(oerr)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(a, b)"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	fired := make(chan bool, 1)
	go func() {
		select {
		case <-done:
			fired <- false
			return
		case <-time.After(2 * time.Second):
		}
		for {
			c.Interrupt()
			select {
			case <-done:
				fired <- true
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	n, err = f(c)
	close(done)
	return n, err, <-fired
}

// referenceExec runs script one statement at a time, each taking its share of args.
func referenceExec(c *sqlbatch.Conn, script string, args []any) (int, error) {
	ran := 0
	rest := script
	for {
		s, tail, err := c.PrepareTail(rest, 0)
		if err != nil {
			return ran, err
		}
		if len(tail) == len(rest) && !onlyBlank(rest) {
			// SQLite stopped at a NUL byte: ExecScript rejects those.
			_ = s.Close() // the error to report is the refusal
			return ran, &sqlbatch.Error{Code: sqlbatch.ErrInvalidArgument, ExtendedCode: sqlbatch.ErrInvalidArgument}
		}
		blank := onlyBlank(s.SQL())
		n := s.ParamCount()
		if n > len(args) {
			_ = s.Close() // the error to report is the count's
			return ran, &sqlbatch.Error{Code: sqlbatch.ErrParamCount, ExtendedCode: sqlbatch.ErrParamCount}
		}
		_, err = s.Exec(args[:n]...)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return ran, err
		}
		args = args[n:]
		if !blank {
			ran++
		}
		if onlyBlank(tail) {
			break
		}
		rest = tail
	}
	if len(args) > 0 {
		return ran, &sqlbatch.Error{Code: sqlbatch.ErrParamCount, ExtendedCode: sqlbatch.ErrParamCount}
	}
	return ran, nil
}

// onlyBlank reports whether sql holds only whitespace, semicolons and comments.
func onlyBlank(sql string) bool {
	for i := 0; i < len(sql); {
		switch {
		case strings.ContainsRune(" \t\n\r\f;", rune(sql[i])):
			i++
		case strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				return true
			}
		case strings.HasPrefix(sql[i:], "/*"):
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += 2 + j + 2
			} else {
				return true
			}
		default:
			return false
		}
	}
	return true
}
