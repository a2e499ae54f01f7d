package sqlbatch_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

const sessionSchema = `CREATE TABLE t(id INTEGER PRIMARY KEY, i, f, s, b);
	CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
	INSERT INTO t VALUES (1, 10, 1.5, 'one', x'01'), (2, 20, 2.5, 'two', x'02'), (3, 30, 3.5, 'three', NULL);
	INSERT INTO kv VALUES ('a', 1), ('b', 2)`

// The changes every round-trip test records: every storage class, both tables.
const sessionChanges = `INSERT INTO t VALUES (4, -9223372036854775808, -0.25, 'fo' || char(0) || 'ur', x'00ff');
	UPDATE t SET s = 'TWO', b = zeroblob(3) WHERE id = 2;
	UPDATE t SET id = 30 WHERE id = 3;
	DELETE FROM t WHERE id = 1;
	INSERT INTO kv VALUES ('c', NULL);
	UPDATE kv SET v = 'x' WHERE k = 'a';
	DELETE FROM kv WHERE k = 'b'`

// dump is every row of t and kv, in order, as text.
func dump(t testing.TB, c *sqlbatch.Conn) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"SELECT id, i, f, s, b FROM t ORDER BY id", "SELECT k, v FROM kv ORDER BY k"} {
		rows, err := c.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, rows.ColumnCount())
		for rows.Next() {
			rows.Values(vals)
			fmt.Fprintf(&b, "%#v\n", vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// sessionPair returns two connections holding sessionSchema, and a session on the first
// recording every table.
func sessionPair(t *testing.T) (a, b *sqlbatch.Conn, s *sqlbatch.Session) {
	t.Helper()
	a, b = memory(t), memory(t)
	mustExec(t, a, sessionSchema)
	mustExec(t, b, sessionSchema)
	s, err := a.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Delete(); err != nil {
			t.Error(err)
		}
	})
	if err := s.Attach(""); err != nil {
		t.Fatal(err)
	}
	return a, b, s
}

// Record, changeset, apply on another connection: the same rows; then the inverse undoes it.
func TestSessionChangesetRoundTrip(t *testing.T) {
	a, b, s := sessionPair(t)
	before := dump(t, a)
	if !s.IsEmpty() {
		t.Error("a new session is not empty")
	}
	if cs, err := s.Changeset(); err != nil || cs != nil {
		t.Errorf("empty changeset: %v, %v", cs, err)
	}
	mustExec(t, a, sessionChanges)
	if s.IsEmpty() {
		t.Fatal("the session recorded nothing")
	}
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyChangeset(cs, nil); err != nil {
		t.Fatal(err)
	}
	after := dump(t, a)
	if got := dump(t, b); got != after {
		t.Fatalf("applied:\n%s\nwant:\n%s", got, after)
	}
	// WriteChangeset gives the same bytes; ApplyChangesetFrom reads them.
	var buf bytes.Buffer
	if err := s.WriteChangeset(&buf); err != nil || !bytes.Equal(buf.Bytes(), cs) {
		t.Errorf("WriteChangeset: %d bytes, %v; Changeset %d bytes", buf.Len(), err, len(cs))
	}
	// The inverse undoes it, as does applying with ApplyInvert.
	inv, err := sqlbatch.InvertChangeset(cs)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyChangesetFrom(bytes.NewReader(inv), nil); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, b); got != before {
		t.Fatalf("inverted:\n%s\nwant:\n%s", got, before)
	}
	if err := b.ApplyChangeset(cs, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Flags: sqlbatch.ApplyInvert}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, b); got != before {
		t.Fatalf("applied with ApplyInvert:\n%s\nwant:\n%s", got, before)
	}
	// Recording goes on after a changeset.
	mustExec(t, a, "INSERT INTO kv VALUES ('z', 26)")
	if cs2, err := s.Changeset(); err != nil || len(cs2) <= len(cs) {
		t.Errorf("changeset after one more change: %d bytes, before %d (error %v)", len(cs2), len(cs), err)
	}
}

// A patchset has the same effect, is smaller, and cannot be inverted.
func TestSessionPatchset(t *testing.T) {
	a, b, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	ps, err := s.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) >= len(cs) {
		t.Errorf("patchset %d bytes, changeset %d", len(ps), len(cs))
	}
	var buf bytes.Buffer
	if err := s.WritePatchset(&buf); err != nil || !bytes.Equal(buf.Bytes(), ps) {
		t.Errorf("WritePatchset: %v", err)
	}
	if err := b.ApplyChangeset(ps, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, b), dump(t, a); got != want {
		t.Fatalf("patchset applied:\n%s\nwant:\n%s", got, want)
	}
	if _, err := sqlbatch.InvertChangeset(ps); !errors.Is(err, sqlbatch.ErrCorrupt) {
		t.Errorf("inverting a patchset: %v, want ErrCorrupt", err)
	}
	if _, err := sqlbatch.ConcatChangesets(cs, ps); !errors.Is(err, sqlbatch.ErrError) {
		t.Errorf("concat of a changeset and a patchset: %v, want ErrError", err)
	}
}

// Two changesets concatenated do what both do, with the changes to one row merged.
func TestConcatChangesets(t *testing.T) {
	a, b, s1 := sessionPair(t)
	mustExec(t, a, "INSERT INTO t VALUES (5, 1, 1, 'x', NULL); UPDATE kv SET v = 100 WHERE k = 'a'")
	cs1, err := s1.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Delete(); err != nil {
		t.Fatal(err)
	}
	s2, err := a.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Delete()
	if err := s2.Attach("t"); err != nil {
		t.Fatal(err)
	}
	if err := s2.Attach("kv"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "UPDATE t SET s = 'y' WHERE id = 5; DELETE FROM kv WHERE k = 'a'; DELETE FROM t WHERE id = 2")
	cs2, err := s2.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	both, err := sqlbatch.ConcatChangesets(cs1, cs2)
	if err != nil {
		t.Fatal(err)
	}
	var changes int
	if err := b.Trace(0, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyChangeset(both, &sqlbatch.ApplyOptions{Conflict: func(sqlbatch.Conflict) sqlbatch.ConflictAction {
		changes++
		return sqlbatch.ChangesetAbort
	}}); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, b), dump(t, a); got != want {
		t.Fatalf("concat applied:\n%s\nwant:\n%s", got, want)
	}
	if changes != 0 {
		t.Errorf("%d conflicts", changes)
	}
	if e, err := sqlbatch.ConcatChangesets(nil, nil); err != nil || e != nil {
		t.Errorf("concat of nothing: %v, %v", e, err)
	}
	if e, err := sqlbatch.InvertChangeset(nil); err != nil || e != nil {
		t.Errorf("inverse of nothing: %v, %v", e, err)
	}
}

// conflicts applies cs to c with a conflict function that records each conflict and answers
// with answer(conflict).
func conflicts(c *sqlbatch.Conn, cs []byte, answer func(sqlbatch.Conflict) sqlbatch.ConflictAction) ([]sqlbatch.Conflict, error) {
	var got []sqlbatch.Conflict
	err := c.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Conflict: func(x sqlbatch.Conflict) sqlbatch.ConflictAction {
		got = append(got, x)
		return answer(x)
	}})
	return got, err
}

func omit(sqlbatch.Conflict) sqlbatch.ConflictAction { return sqlbatch.ChangesetOmit }

// Each kind of conflict reaches the conflict function with the change's rows and the
// conflicting row.
func TestConflictKinds(t *testing.T) {
	U := sqlbatch.Undefined
	t.Run("data", func(t *testing.T) {
		a, b, s := sessionPair(t)
		mustExec(t, a, "UPDATE t SET s = 'uno' WHERE id = 1")
		mustExec(t, b, "UPDATE t SET s = 'ein' WHERE id = 1")
		cs, err := s.Changeset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := conflicts(b, cs, func(sqlbatch.Conflict) sqlbatch.ConflictAction { return sqlbatch.ChangesetReplace })
		want := []sqlbatch.Conflict{{
			Kind: sqlbatch.ConflictData, Op: sqlbatch.OpUpdate, Table: "t",
			Old:         []any{int64(1), U, U, "one", U},
			New:         []any{U, U, U, "uno", U},
			Conflicting: []any{int64(1), int64(10), 1.5, "ein", []byte{1}},
		}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("conflicts %#v, %v\nwant %#v", got, err, want)
		}
		if v := ints(t, b, "SELECT s = 'uno' FROM t WHERE id = 1"); v[0] != 1 {
			t.Error("REPLACE did not apply the change")
		}
	})
	t.Run("notfound", func(t *testing.T) {
		a, b, s := sessionPair(t)
		mustExec(t, a, "DELETE FROM kv WHERE k = 'a'; UPDATE t SET i = 11 WHERE id = 1")
		mustExec(t, b, "DELETE FROM kv; DELETE FROM t WHERE id = 1")
		cs, err := s.Changeset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := conflicts(b, cs, omit)
		if err != nil || len(got) != 2 {
			t.Fatalf("conflicts %#v, %v", got, err)
		}
		byTable := map[string]sqlbatch.Conflict{got[0].Table: got[0], got[1].Table: got[1]}
		if x := byTable["kv"]; x.Kind != sqlbatch.ConflictNotFound || x.Op != sqlbatch.OpDelete ||
			!reflect.DeepEqual(x.Old, []any{"a", int64(1)}) || x.New != nil || x.Conflicting != nil {
			t.Errorf("delete of a missing row: %#v", x)
		}
		if x := byTable["t"]; x.Kind != sqlbatch.ConflictNotFound || x.Op != sqlbatch.OpUpdate ||
			!reflect.DeepEqual(x.New, []any{U, int64(11), U, U, U}) {
			t.Errorf("update of a missing row: %#v", x)
		}
		// REPLACE is not allowed for NOTFOUND: SQLite's misuse.
		_, err = conflicts(b, cs, func(sqlbatch.Conflict) sqlbatch.ConflictAction { return sqlbatch.ChangesetReplace })
		if !errors.Is(err, sqlbatch.ErrMisuse) {
			t.Errorf("REPLACE for NOTFOUND: %v, want ErrMisuse", err)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		a, b, s := sessionPair(t)
		mustExec(t, a, "INSERT INTO t VALUES (9, 1, 2.0, 'a', x'aa')")
		mustExec(t, b, "INSERT INTO t VALUES (9, 2, 3.0, 'b', NULL)")
		if err := s.SetIndirect(true); err != nil {
			t.Fatal(err)
		}
		cs, err := s.Changeset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := conflicts(b, cs, func(sqlbatch.Conflict) sqlbatch.ConflictAction { return sqlbatch.ChangesetReplace })
		want := []sqlbatch.Conflict{{
			Kind: sqlbatch.ConflictConflict, Op: sqlbatch.OpInsert, Table: "t",
			New:         []any{int64(9), int64(1), 2.0, "a", []byte{0xaa}},
			Conflicting: []any{int64(9), int64(2), 3.0, "b", nil},
		}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("conflicts %#v, %v\nwant %#v", got, err, want)
		}
		if v := ints(t, b, "SELECT i FROM t WHERE id = 9"); v[0] != 1 {
			t.Error("REPLACE did not replace the row")
		}
	})
	t.Run("indirect", func(t *testing.T) {
		a, b, s := sessionPair(t)
		if err := s.SetIndirect(true); err != nil {
			t.Fatal(err)
		}
		mustExec(t, a, "INSERT INTO kv VALUES ('q', 1)")
		mustExec(t, b, "INSERT INTO kv VALUES ('q', 2)")
		cs, err := s.Changeset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := conflicts(b, cs, omit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !got[0].Indirect || got[0].Kind != sqlbatch.ConflictConflict {
			t.Errorf("conflicts %#v", got)
		}
	})
	t.Run("constraint", func(t *testing.T) {
		a, b, s := sessionPair(t)
		mustExec(t, b, "CREATE UNIQUE INDEX ts ON t(s)")
		mustExec(t, a, "INSERT INTO t VALUES (7, 0, 0, 'one', NULL)")
		cs, err := s.Changeset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := conflicts(b, cs, omit)
		if err != nil || len(got) != 1 || got[0].Kind != sqlbatch.ConflictConstraint || got[0].Op != sqlbatch.OpInsert ||
			got[0].Conflicting != nil || !reflect.DeepEqual(got[0].New, []any{int64(7), int64(0), int64(0), "one", nil}) {
			t.Fatalf("conflicts %#v, %v", got, err)
		}
	})
	t.Run("foreign key", func(t *testing.T) {
		a, b := memory(t), memory(t)
		schema := "PRAGMA foreign_keys = ON; CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY, p REFERENCES p(id)); INSERT INTO p VALUES (1)"
		mustExec(t, a, schema)
		mustExec(t, b, schema+"; DELETE FROM p")
		s, err := a.CreateSession(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Delete()
		if err := s.Attach("c"); err != nil {
			t.Fatal(err)
		}
		mustExec(t, a, "INSERT INTO c VALUES (1, 1), (2, 1)")
		cs, err := s.Changeset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := conflicts(b, cs, func(sqlbatch.Conflict) sqlbatch.ConflictAction { return sqlbatch.ChangesetAbort })
		// ABORT of a foreign key conflict is SQLite's SQLITE_CONSTRAINT, not SQLITE_ABORT.
		if !errors.Is(err, sqlbatch.ErrConstraint) || len(got) != 1 || got[0].FKViolations < 1 ||
			!reflect.DeepEqual(got[0], sqlbatch.Conflict{Kind: sqlbatch.ConflictForeignKey, FKViolations: got[0].FKViolations}) {
			t.Fatalf("conflicts %#v, %v, want one FOREIGN_KEY and ErrConstraint", got, err)
		}
		if n := ints(t, b, "SELECT count(*) FROM c"); n[0] != 0 {
			t.Errorf("ABORT left %d rows", n[0])
		}
		// OMIT commits despite the violations.
		if _, err := conflicts(b, cs, omit); err != nil {
			t.Fatal(err)
		}
		if n := ints(t, b, "SELECT count(*) FROM c"); n[0] != 2 {
			t.Errorf("OMIT of the foreign key conflict: %d rows", n[0])
		}
	})
}

// The filter is asked once per table; the policy settles conflicts without a function.
func TestApplyFilterAndPolicy(t *testing.T) {
	a, b, s := sessionPair(t)
	mustExec(t, a, "UPDATE t SET i = 100; INSERT INTO kv VALUES ('n', 1); UPDATE kv SET v = 9 WHERE k = 'b'")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	err = b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Filter: func(table string) bool {
		asked = append(asked, table)
		return table == "kv"
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 {
		t.Errorf("filter asked %v", asked)
	}
	if got := ints(t, b, "SELECT sum(i) FROM t"); got[0] != 60 {
		t.Errorf("the skipped table changed: sum %d", got[0])
	}
	if got := ints(t, b, "SELECT count(*) FROM kv WHERE k = 'n' OR v = 9"); got[0] != 2 {
		t.Errorf("kv: %d rows changed", got[0])
	}

	// Policies, each on a fresh copy where kv's changes conflict: the insert's key is taken
	// (CONFLICT), the updated row has another value than expected (DATA); t's apply cleanly.
	for _, tc := range []struct {
		opts *sqlbatch.ApplyOptions
		err  error
		sumI int64
		kv   []int64 // v of 'b' and 'n'
	}{
		{nil, sqlbatch.ErrAbort, 60, []int64{8, 7}}, // the default: abort, nothing applied
		{&sqlbatch.ApplyOptions{Policy: sqlbatch.ChangesetAbort}, sqlbatch.ErrAbort, 60, []int64{8, 7}},
		{&sqlbatch.ApplyOptions{Policy: sqlbatch.ChangesetOmit}, nil, 300, []int64{8, 7}},
		{&sqlbatch.ApplyOptions{Policy: sqlbatch.ChangesetReplace}, nil, 300, []int64{9, 1}},
	} {
		c := memory(t)
		mustExec(t, c, sessionSchema+"; INSERT INTO kv VALUES ('n', 7); UPDATE kv SET v = 8 WHERE k = 'b'")
		err := c.ApplyChangeset(cs, tc.opts)
		if !errors.Is(err, tc.err) && !(err == nil && tc.err == nil) {
			t.Errorf("%+v: %v, want %v", tc.opts, err, tc.err)
		}
		if got := ints(t, c, "SELECT sum(i) FROM t"); got[0] != tc.sumI {
			t.Errorf("%+v: sum(i) %d, want %d", tc.opts, got[0], tc.sumI)
		}
		if got := ints(t, c, "SELECT v FROM kv WHERE k IN ('b', 'n') ORDER BY k"); !reflect.DeepEqual(got, tc.kv) {
			t.Errorf("%+v: kv %v, want %v", tc.opts, got, tc.kv)
		}
	}
	if err := b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Flags: 1 << 20}); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("unknown flag: %v", err)
	}
}

const sessionSchemaRows = `INSERT INTO t VALUES (1, 10, 1.5, 'one', x'01'), (2, 20, 2.5, 'two', x'02'), (3, 30, 3.5, 'three', NULL);
	INSERT INTO kv VALUES ('a', 1), ('b', 2)`

// ABORT from the conflict function undoes what the apply did before it; with
// ApplyNoSavepoint, it stays.
func TestApplyAbortRollsBack(t *testing.T) {
	a, b, s := sessionPair(t)
	mustExec(t, a, "INSERT INTO t VALUES (10, 0, 0, '', NULL), (11, 0, 0, '', NULL), (12, 0, 0, '', NULL)")
	mustExec(t, b, "INSERT INTO t VALUES (12, 1, 1, 'taken', NULL)")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	for _, noSavepoint := range []bool{false, true} {
		opts := &sqlbatch.ApplyOptions{Conflict: func(sqlbatch.Conflict) sqlbatch.ConflictAction { return sqlbatch.ChangesetAbort }}
		if noSavepoint {
			opts.Flags = sqlbatch.ApplyNoSavepoint
		}
		mustExec(t, b, "BEGIN")
		err := b.ApplyChangeset(cs, opts)
		if !errors.Is(err, sqlbatch.ErrAbort) {
			t.Fatalf("abort: %v", err)
		}
		n := ints(t, b, "SELECT count(*) FROM t WHERE id IN (10, 11)")[0]
		mustExec(t, b, "ROLLBACK")
		if !noSavepoint && n != 0 {
			t.Errorf("abort left %d rows", n)
		}
		if noSavepoint && n == 0 {
			t.Error("abort with ApplyNoSavepoint undid the changes before it")
		}
	}
	// An action the function does not know aborts.
	_, err = conflicts(b, cs, func(sqlbatch.Conflict) sqlbatch.ConflictAction { return 42 })
	if !errors.Is(err, sqlbatch.ErrAbort) {
		t.Errorf("unknown action: %v", err)
	}
}

// A panicking conflict function or filter stops the apply, which is undone, and is reported.
func TestApplyPanics(t *testing.T) {
	a, b, s := sessionPair(t)
	mustExec(t, a, "INSERT INTO kv VALUES ('n', 1); INSERT INTO t VALUES (3, 0, 0, 'x', NULL) ON CONFLICT DO NOTHING; UPDATE t SET i = 0 WHERE id = 1")
	mustExec(t, b, "UPDATE t SET i = 5 WHERE id = 1")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	base := dump(t, b)
	handles := capi.LiveHandles()
	err = b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Conflict: func(sqlbatch.Conflict) sqlbatch.ConflictAction { panic("boom") }})
	if p := hookPanic(t, err, "conflict func"); !errors.Is(p.Err, sqlbatch.ErrAbort) {
		t.Errorf("conflict func panic: %v, want ErrAbort", err)
	}
	if got := dump(t, b); got != base {
		t.Errorf("the apply was not undone:\n%s", got)
	}
	// A filter that panics on the second table: the first table's changes are undone too.
	calls := 0
	err = b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Filter: func(string) bool {
		if calls++; calls == 2 {
			panic("boom")
		}
		return true
	}, Policy: sqlbatch.ChangesetOmit})
	if p := hookPanic(t, err, "changeset filter"); !errors.Is(p.Err, sqlbatch.ErrAbort) {
		t.Errorf("filter panic: %v, want ErrAbort", err)
	}
	if calls != 2 {
		t.Errorf("the filter was called %d times, want 2 (the apply stops at the panic)", calls)
	}
	if got := dump(t, b); got != base {
		t.Errorf("the filtered apply was not undone:\n%s", got)
	}
	if n := capi.LiveHandles() - handles; n != 0 {
		t.Errorf("%d handles live after the applies", n)
	}
	if err := b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Policy: sqlbatch.ChangesetReplace}); err != nil {
		t.Fatalf("the connection after the panics: %v", err)
	}
	if !b.Autocommit() {
		t.Error("a transaction is left open")
	}
}

// The conflict function must not use the connection: calls fail with ErrMisuse, and Close
// refuses.
func TestApplyCallbacksCannotUseTheConnection(t *testing.T) {
	a, b, s := sessionPair(t)
	mustExec(t, a, "UPDATE t SET i = 0 WHERE id = 1")
	mustExec(t, b, "DELETE FROM t WHERE id = 1")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	err = b.ApplyChangeset(cs, &sqlbatch.ApplyOptions{Conflict: func(sqlbatch.Conflict) sqlbatch.ConflictAction {
		_, err := b.ExecScript("SELECT 1")
		errs = append(errs, err, b.Close(), b.ApplyChangeset(cs, nil))
		return sqlbatch.ChangesetOmit
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if !errors.Is(e, sqlbatch.ErrMisuse) {
			t.Errorf("call %d from the conflict func: %v, want ErrMisuse", i, e)
		}
	}
	mustExec(t, b, "SELECT 1")
}

// A corrupt changeset is an error, never a crash.
func TestApplyCorruptChangeset(t *testing.T) {
	a, b, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	base := dump(t, b)
	for n := 1; n < len(cs); n += 3 {
		bad := append([]byte{}, cs[:n]...)
		err := b.ApplyChangeset(bad, &sqlbatch.ApplyOptions{Policy: sqlbatch.ChangesetOmit})
		if err == nil && n < 4 {
			t.Errorf("%d bytes of a changeset applied", n)
		}
		if err != nil && !errors.Is(err, sqlbatch.ErrCorrupt) && !errors.Is(err, sqlbatch.ErrError) {
			t.Errorf("%d bytes: %v", n, err)
		}
		mustExec(t, b, "DELETE FROM t; DELETE FROM kv; "+sessionSchemaRows)
	}
	junk := bytes.Repeat([]byte{0x54, 0xff, 0x00, 0x17}, 64)
	if err := b.ApplyChangeset(junk, nil); err == nil {
		t.Error("junk applied")
	}
	if _, err := sqlbatch.InvertChangeset(junk); !errors.Is(err, sqlbatch.ErrCorrupt) {
		t.Errorf("inverting junk: %v", err)
	}
	if got := dump(t, b); got != base {
		t.Errorf("rows after the corrupt changesets:\n%s", got)
	}
}

// Enable, Disable, and a table attached by name.
func TestSessionEnableAndAttach(t *testing.T) {
	a, b := memory(t), memory(t)
	mustExec(t, a, sessionSchema)
	mustExec(t, b, sessionSchema)
	s, err := a.CreateSession(&sqlbatch.SessionOptions{Schema: "main"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Attach("kv"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "UPDATE t SET i = 0") // not attached
	if !s.IsEmpty() {
		t.Error("a change to a table not attached was recorded")
	}
	if err := s.Disable(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "INSERT INTO kv VALUES ('off', 0)")
	if err := s.Enable(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "INSERT INTO kv VALUES ('on', 1)")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyChangeset(cs, nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, b, "SELECT count(*) FROM kv WHERE k IN ('on', 'off')"); got[0] != 1 {
		t.Errorf("%d rows, want only the one recorded while enabled", got[0])
	}
}

// Diff records the changes that turn one database's table into another's.
func TestSessionDiff(t *testing.T) {
	c := memory(t)
	mustExec(t, c, sessionSchema+`; ATTACH ':memory:' AS aux;
		CREATE TABLE aux.t(id INTEGER PRIMARY KEY, i, f, s, b);
		INSERT INTO aux.t VALUES (1, 10, 1.5, 'one', x'01'), (2, 21, 2.5, 'two', x'02'), (4, 40, 4.5, 'four', NULL)`)
	s, err := c.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Delete()
	if err := s.Diff("aux", "t"); err != nil {
		t.Fatal(err)
	}
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	// Applied to a copy of aux.t, it gives main.t.
	other := memory(t)
	mustExec(t, other, `CREATE TABLE t(id INTEGER PRIMARY KEY, i, f, s, b); CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
		INSERT INTO t VALUES (1, 10, 1.5, 'one', x'01'), (2, 21, 2.5, 'two', x'02'), (4, 40, 4.5, 'four', NULL);
		INSERT INTO kv VALUES ('a', 1), ('b', 2)`)
	if err := other.ApplyChangeset(cs, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, other), dump(t, c); got != want {
		t.Errorf("diff applied:\n%s\nwant:\n%s", got, want)
	}
	mustExec(t, c, "CREATE TABLE aux.kv(k, v)")
	if err := s.Diff("aux", "kv"); !errors.Is(err, sqlbatch.ErrSchema) {
		t.Errorf("diff of tables that differ: %v, want ErrSchema", err)
	}
}

// Close with sessions alive works; the sessions then fail with ErrClosed and Delete works.
func TestSessionOutlivesConnection(t *testing.T) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, sessionSchema)
	s1, err := c.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Attach(""); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "DELETE FROM t")
	if err := c.Close(); err != nil {
		t.Fatalf("Close with live sessions: %v", err)
	}
	if _, err := s1.Changeset(); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Errorf("changeset after Close: %v", err)
	}
	for i, err := range []error{s1.Attach("t"), s1.Enable(), s1.SetIndirect(true), s1.Diff("main", "t"), s1.WritePatchset(new(bytes.Buffer))} {
		if !errors.Is(err, sqlbatch.ErrClosed) {
			t.Errorf("call %d after Close: %v", i, err)
		}
	}
	if !s1.IsEmpty() {
		t.Error("a session of a closed connection is not empty")
	}
	if err := s1.Delete(); err != nil {
		t.Errorf("Delete after Close: %v", err)
	}
	if err := s1.Delete(); err != nil {
		t.Errorf("second Delete: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Errorf("Close of the other session: %v", err)
	}
	if _, err := s1.Changeset(); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Errorf("changeset of a deleted session: %v", err)
	}
}

// A session cannot be deleted from inside a hook of its connection; it can afterwards.
func TestSessionDeleteInsideHook(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x PRIMARY KEY)")
	s, err := c.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Attach(""); err != nil {
		t.Fatal(err)
	}
	var inner error
	if err := c.UpdateHook(func(int, string, string, int64) { inner = s.Delete() }); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, sqlbatch.ErrMisuse) {
		t.Errorf("Delete inside a hook: %v, want ErrMisuse", inner)
	}
	if s.IsEmpty() {
		t.Error("the session stopped recording")
	}
	if err := s.Delete(); err != nil {
		t.Errorf("Delete after the hook: %v", err)
	}
}

// readChanges is every change of cs, read by ReadChangeset (or ReadInvertedChangeset).
func readChanges(t *testing.T, cs []byte, inverted bool) []sqlbatch.ChangesetChange {
	t.Helper()
	var got []sqlbatch.ChangesetChange
	read := sqlbatch.ReadChangeset
	if inverted {
		read = sqlbatch.ReadInvertedChangeset
	}
	if err := read(cs, func(c sqlbatch.ChangesetChange) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// sortChanges orders changes by table and first key column, so that a test does not depend
// on the order of a session's hash table.
func sortChanges(cs []sqlbatch.ChangesetChange) []sqlbatch.ChangesetChange {
	key := func(c sqlbatch.ChangesetChange) string {
		row := c.Old
		if row == nil {
			row = c.New
		}
		return fmt.Sprintf("%s %v %d", c.Table, row[0], c.Op)
	}
	sort.SliceStable(cs, func(i, j int) bool { return key(cs[i]) < key(cs[j]) })
	return cs
}

// sessionChangesRead is what reading the changeset of sessionChanges gives, sorted.
func sessionChangesRead() []sqlbatch.ChangesetChange {
	U := sqlbatch.Undefined
	tpk := []bool{true, false, false, false, false}
	kvpk := []bool{true, false}
	return []sqlbatch.ChangesetChange{
		{Table: "kv", Op: sqlbatch.OpUpdate, PrimaryKey: kvpk, Old: []any{"a", int64(1)}, New: []any{U, "x"}},
		{Table: "kv", Op: sqlbatch.OpDelete, PrimaryKey: kvpk, Old: []any{"b", int64(2)}},
		{Table: "kv", Op: sqlbatch.OpInsert, PrimaryKey: kvpk, New: []any{"c", nil}},
		{Table: "t", Op: sqlbatch.OpDelete, PrimaryKey: tpk, Old: []any{int64(1), int64(10), 1.5, "one", []byte{1}}},
		{Table: "t", Op: sqlbatch.OpUpdate, PrimaryKey: tpk,
			Old: []any{int64(2), U, U, "two", []byte{2}}, New: []any{U, U, U, "TWO", []byte{0, 0, 0}}},
		{Table: "t", Op: sqlbatch.OpDelete, PrimaryKey: tpk, Old: []any{int64(3), int64(30), 3.5, "three", nil}},
		{Table: "t", Op: sqlbatch.OpInsert, PrimaryKey: tpk, New: []any{int64(30), int64(30), 3.5, "three", nil}},
		{Table: "t", Op: sqlbatch.OpInsert, PrimaryKey: tpk,
			New: []any{int64(4), int64(-9223372036854775808), -0.25, "fo\x00ur", []byte{0, 0xff}}},
	}
}

func diffChanges(t *testing.T, what string, got, want []sqlbatch.ChangesetChange) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d changes, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: change %d:\n got %#v\nwant %#v", what, i, got[i], want[i])
		}
	}
}

// Every change of a changeset, with its key, rows (every storage class, Undefined columns of
// an UPDATE, a rowid change as a DELETE and an INSERT) and indirect flag; the same through a
// range loop.
func TestReadChangeset(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	if err := s.SetIndirect(true); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "INSERT INTO kv VALUES ('d', 4)")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	got := readChanges(t, cs, false)
	want := append(sessionChangesRead(), sqlbatch.ChangesetChange{
		Table: "kv", Op: sqlbatch.OpInsert, Indirect: true, PrimaryKey: []bool{true, false}, New: []any{"d", int64(4)}})
	diffChanges(t, "ReadChangeset", sortChanges(got), sortChanges(want))

	var ranged []sqlbatch.ChangesetChange
	for c, err := range sqlbatch.ChangesetChanges(cs) {
		if err != nil {
			t.Fatal(err)
		}
		ranged = append(ranged, c)
	}
	diffChanges(t, "ChangesetChanges", ranged, readChanges(t, cs, false))

	// An empty changeset has no change.
	if err := sqlbatch.ReadChangeset(nil, func(sqlbatch.ChangesetChange) error {
		t.Error("a change in an empty changeset")
		return nil
	}); err != nil {
		t.Error(err)
	}
}

// Many changes, over several batches of the core, all in order; the values may be kept.
func TestReadChangesetManyBatches(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, "WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i+1 FROM n WHERE i < 1099) "+
		"INSERT INTO t SELECT i, i, NULL, 'row ' || i, zeroblob(i % 7) FROM n")
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	got := readChanges(t, cs, false)
	if len(got) != 1000 {
		t.Fatalf("%d changes, want 1000", len(got))
	}
	seen := map[int64]bool{}
	for _, c := range got {
		id := c.New[0].(int64)
		if c.Op != sqlbatch.OpInsert || c.Table != "t" || c.New[3] != fmt.Sprint("row ", id) || len(c.New[4].([]byte)) != int(id%7) {
			t.Fatalf("change %#v", c)
		}
		seen[id] = true
	}
	if len(seen) != 1000 {
		t.Errorf("%d rows seen", len(seen))
	}
	// Damage near the end: the batches before it arrive whole, in order.
	var before []sqlbatch.ChangesetChange
	err = sqlbatch.ReadChangeset(cs[:len(cs)-5], func(c sqlbatch.ChangesetChange) error {
		before = append(before, c)
		return nil
	})
	if !errors.Is(err, sqlbatch.ErrCorrupt) || len(before) < 990 {
		t.Errorf("%d changes before the damage, then %v", len(before), err)
	}
	diffChanges(t, "before the damage", before, got[:len(before)])
}

// A patchset's DELETE carries only the key (and its UPDATE only the key of the old row); it
// cannot be read inverted.
func TestReadPatchset(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	ps, err := s.Patchset()
	if err != nil {
		t.Fatal(err)
	}
	U := sqlbatch.Undefined
	want := sessionChangesRead()
	for i := range want {
		if c := &want[i]; c.Old != nil {
			for j := range c.Old {
				if !c.PrimaryKey[j] {
					c.Old[j] = U
				}
			}
		}
	}
	diffChanges(t, "patchset", sortChanges(readChanges(t, ps, false)), want)
	err = sqlbatch.ReadInvertedChangeset(ps, func(sqlbatch.ChangesetChange) error { return nil })
	if !errors.Is(err, sqlbatch.ErrCorrupt) {
		t.Errorf("inverted patchset: %v", err)
	}
}

// Reading inverted gives the changes of InvertChangeset's changeset, in the same order.
func TestReadInvertedChangeset(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	inv, err := sqlbatch.InvertChangeset(cs)
	if err != nil {
		t.Fatal(err)
	}
	got := readChanges(t, cs, true)
	diffChanges(t, "inverted", got, readChanges(t, inv, false))
	var ranged []sqlbatch.ChangesetChange
	for c, err := range sqlbatch.InvertedChangesetChanges(cs) {
		if err != nil {
			t.Fatal(err)
		}
		ranged = append(ranged, c)
	}
	diffChanges(t, "InvertedChangesetChanges", ranged, got)
	ops := map[int]int{}
	for _, c := range got {
		ops[c.Op]++
		if c.Table == "kv" && c.Op == sqlbatch.OpDelete && !reflect.DeepEqual(c.Old, []any{"c", nil}) {
			t.Errorf("the inverse of an INSERT: %#v", c)
		}
		if c.Table == "kv" && c.Op == sqlbatch.OpUpdate &&
			(!reflect.DeepEqual(c.Old, []any{"a", "x"}) || !reflect.DeepEqual(c.New, []any{sqlbatch.Undefined, int64(1)})) {
			t.Errorf("the inverse of an UPDATE: %#v", c)
		}
	}
	// sessionChanges: 3 inserts, 2 updates, 3 deletes (the rowid change counts as both).
	if want := map[int]int{sqlbatch.OpDelete: 3, sqlbatch.OpUpdate: 2, sqlbatch.OpInsert: 3}; !reflect.DeepEqual(ops, want) {
		t.Errorf("inverted ops %v, want %v", ops, want)
	}
}

// fn's error stops the read and comes back as it is; so does breaking out of a range loop.
func TestReadChangesetStops(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	n := 0
	err = sqlbatch.ReadChangeset(cs, func(sqlbatch.ChangesetChange) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("after %d changes: %v", n, err)
	}
	n = 0
	for _, err := range sqlbatch.ChangesetChanges(cs) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("loop ran %d times", n)
	}
}

// A panic in fn stops the read and comes back as a *HookPanicError; in a range loop's body it
// goes on from the loop. No handle is left behind.
func TestReadChangesetPanics(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	handles := capi.LiveHandles()
	n := 0
	err = sqlbatch.ReadChangeset(cs, func(sqlbatch.ChangesetChange) error {
		if n++; n == 2 {
			panic("boom")
		}
		return nil
	})
	var hp *sqlbatch.HookPanicError
	if !errors.As(err, &hp) || hp.Hook != "changeset reader" || hp.Value != "boom" || n != 2 ||
		!bytes.Contains(hp.Stack, []byte("TestReadChangesetPanics")) {
		t.Errorf("after %d changes: %#v", n, err)
	}
	func() {
		defer func() {
			if r := recover(); r != "loop boom" {
				t.Errorf("recovered %v", r)
			}
		}()
		for range sqlbatch.ChangesetChanges(cs) { // the body panics at the first change: no error to see
			panic("loop boom")
		}
		t.Error("no panic from the loop")
	}()
	if n := capi.LiveHandles() - handles; n != 0 {
		t.Errorf("%d handles left", n)
	}
}

// Truncated and junk bytes: the changes before the damage, then ErrCorrupt; never a crash.
func TestReadCorruptChangeset(t *testing.T) {
	a, _, s := sessionPair(t)
	mustExec(t, a, sessionChanges)
	cs, err := s.Changeset()
	if err != nil {
		t.Fatal(err)
	}
	full := readChanges(t, cs, false)
	corrupt := 0
	for n := 1; n < len(cs); n++ {
		var got []sqlbatch.ChangesetChange
		err := sqlbatch.ReadChangeset(cs[:n], func(c sqlbatch.ChangesetChange) error { got = append(got, c); return nil })
		if err != nil {
			var e *sqlbatch.Error
			if !errors.As(err, &e) || e.Code != sqlbatch.ErrCorrupt {
				t.Fatalf("%d bytes: %#v", n, err)
			}
			corrupt++
		}
		diffChanges(t, fmt.Sprint(n, " bytes"), got, full[:len(got)])
		if len(got) == len(full) && err == nil {
			t.Errorf("%d of %d bytes read whole", n, len(cs))
		}
	}
	if corrupt == 0 {
		t.Error("no truncation was corrupt")
	}
	junk := bytes.Repeat([]byte{0x54, 0xff, 0x00, 0x17}, 64)
	err = sqlbatch.ReadChangeset(junk, func(sqlbatch.ChangesetChange) error { return nil })
	if !errors.Is(err, sqlbatch.ErrCorrupt) {
		t.Errorf("junk: %v", err)
	}
	var last error
	for _, err := range sqlbatch.ChangesetChanges(cs[:len(cs)-3]) {
		last = err
	}
	if !errors.Is(last, sqlbatch.ErrCorrupt) {
		t.Errorf("range over a truncated changeset: %v", last)
	}
}
