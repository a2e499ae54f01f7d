package sqlbatch_test

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// recordPreUpdates sets a preupdate hook on c that keeps every event.
func recordPreUpdates(t *testing.T, c *sqlbatch.Conn, rows sqlbatch.PreUpdateRows) *[]sqlbatch.PreUpdate {
	t.Helper()
	var got []sqlbatch.PreUpdate
	if err := c.PreUpdateHookRows(rows, func(p sqlbatch.PreUpdate) { got = append(got, p) }); err != nil {
		t.Fatal(err)
	}
	return &got
}

// Every storage class in the old and new rows of INSERT, UPDATE and DELETE, kept after the
// statement (copies), with the rowids and the column count.
func TestPreUpdateRowsOfEveryType(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, i, f, s, b, n)")
	got := recordPreUpdates(t, c, sqlbatch.PreUpdateBoth)
	text := "h\x00é ✓"
	blob := []byte{0, 1, 2, 255}
	mustExec(t, c, "INSERT INTO t VALUES (7, ?, ?, ?, ?, NULL)", int64(math.MinInt64), 2.5, text, blob)
	mustExec(t, c, "INSERT INTO t VALUES (8, 0, -0.0, '', x'', NULL)")
	mustExec(t, c, "UPDATE t SET i = 1, s = 'new', id = 9 WHERE id = 7")
	mustExec(t, c, "DELETE FROM t WHERE id = 8")

	row7 := []any{int64(7), int64(math.MinInt64), 2.5, text, blob, nil}
	row8 := []any{int64(8), int64(0), 0.0, "", []byte{}, nil}
	row9 := []any{int64(9), int64(1), 2.5, "new", blob, nil}
	want := []sqlbatch.PreUpdate{
		{Op: sqlbatch.OpInsert, Schema: "main", Table: "t", NewRowID: 7, Columns: 6, New: row7, BlobColumn: -1},
		{Op: sqlbatch.OpInsert, Schema: "main", Table: "t", NewRowID: 8, Columns: 6, New: row8, BlobColumn: -1},
		{Op: sqlbatch.OpUpdate, Schema: "main", Table: "t", OldRowID: 7, NewRowID: 9, Columns: 6, Old: row7, New: row9, BlobColumn: -1},
		{Op: sqlbatch.OpDelete, Schema: "main", Table: "t", OldRowID: 8, Columns: 6, Old: row8, BlobColumn: -1},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("events\n%#v\nwant\n%#v", *got, want)
	}
	// The empty blob is an empty slice, not NULL; the INSERT has no old row.
	if b := (*got)[1].New[4].([]byte); b == nil {
		t.Error("empty blob decoded as nil")
	}
	if (*got)[0].Old != nil || (*got)[3].New != nil {
		t.Error("a row the change does not have is not nil")
	}
}

// Only the rows asked for are decoded; with none the event carries the rest alone.
func TestPreUpdateHookRowsChosen(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x')")
	for _, tc := range []struct {
		rows     sqlbatch.PreUpdateRows
		old, new []any
	}{
		{0, nil, nil},
		{sqlbatch.PreUpdateOld, []any{int64(1), "x"}, nil},
		{sqlbatch.PreUpdateNew, nil, []any{int64(2), "x"}},
		{sqlbatch.PreUpdateBoth, []any{int64(1), "x"}, []any{int64(2), "x"}},
	} {
		got := recordPreUpdates(t, c, tc.rows)
		mustExec(t, c, "UPDATE t SET a = 2; UPDATE t SET a = 1")
		p := (*got)[0]
		if p.Op != sqlbatch.OpUpdate || p.Columns != 2 || p.OldRowID != 1 || !reflect.DeepEqual(p.Old, tc.old) || !reflect.DeepEqual(p.New, tc.new) {
			t.Errorf("rows %d: %+v", tc.rows, p)
		}
	}
	// Without rows an event allocates nothing (the names are interned).
	mustExec(t, c, `WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO t SELECT i, 'y' FROM n`)
	var sum int64
	if err := c.PreUpdateHookRows(0, func(p sqlbatch.PreUpdate) { sum += p.NewRowID }); err != nil {
		t.Fatal(err)
	}
	small := testing.AllocsPerRun(20, func() { mustExec(t, c, "UPDATE t SET a = a + 1 WHERE rowid <= 10") })
	large := testing.AllocsPerRun(20, func() { mustExec(t, c, "UPDATE t SET a = a + 1") })
	if large > small+1 {
		t.Errorf("allocations: %v for 10 rows, %v for 1000", small, large)
	}
	if err := c.PreUpdateHookRows(4, func(sqlbatch.PreUpdate) {}); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("unknown rows flag: %v", err)
	}
}

// Changes made by triggers come with their depth; an attached database's with its name.
func TestPreUpdateDepthInTriggers(t *testing.T) {
	c := memory(t)
	mustExec(t, c, `CREATE TABLE t(x); CREATE TABLE log(x); CREATE TABLE log2(x);
		CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x * 10); END;
		CREATE TRIGGER log_ins BEFORE INSERT ON log BEGIN INSERT INTO log2 VALUES (new.x + 1); END;
		ATTACH ':memory:' AS aux; CREATE TABLE aux.a(y)`)
	got := recordPreUpdates(t, c, sqlbatch.PreUpdateNew)
	mustExec(t, c, "INSERT INTO t VALUES (1); INSERT INTO aux.a VALUES (2)")
	type ev struct {
		depth         int
		schema, table string
		x             any
	}
	var evs []ev
	for _, p := range *got {
		evs = append(evs, ev{p.Depth, p.Schema, p.Table, p.New[0]})
	}
	want := []ev{{0, "main", "t", int64(1)}, {2, "main", "log2", int64(11)}, {1, "main", "log", int64(10)}, {0, "aux", "a", int64(2)}}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("events %v, want %v", evs, want)
	}
}

// WITHOUT ROWID tables, which the update hook does not see.
func TestPreUpdateWithoutRowID(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID")
	updates := recordUpdates(t, c)
	got := recordPreUpdates(t, c, sqlbatch.PreUpdateBoth)
	mustExec(t, c, "INSERT INTO kv VALUES ('a', 1); UPDATE kv SET v = 2 WHERE k = 'a'; DELETE FROM kv")
	if len(*updates) != 0 {
		t.Errorf("update hook saw %v", *updates)
	}
	var ops []int
	for _, p := range *got {
		ops = append(ops, p.Op)
	}
	if !reflect.DeepEqual(ops, []int{sqlbatch.OpInsert, sqlbatch.OpUpdate, sqlbatch.OpDelete}) {
		t.Fatalf("ops %v", ops)
	}
	if u := (*got)[1]; !reflect.DeepEqual(u.Old, []any{"a", int64(1)}) || !reflect.DeepEqual(u.New, []any{"a", int64(2)}) {
		t.Errorf("update rows %v -> %v", u.Old, u.New)
	}
}

// A write through a blob handle is a DELETE with the column being written, and no new row.
func TestPreUpdateBlobWrite(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE f(name, data); INSERT INTO f VALUES ('a', zeroblob(4))")
	h, err := c.OpenBlob("", "f", "data", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got := recordPreUpdates(t, c, sqlbatch.PreUpdateBoth)
	if _, err := h.WriteAt([]byte("xy"), 1); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 {
		t.Fatalf("%d events", len(*got))
	}
	p := (*got)[0]
	if p.Op != sqlbatch.OpDelete || p.BlobColumn != 1 || p.OldRowID != 1 || p.New != nil ||
		!reflect.DeepEqual(p.Old, []any{"a", []byte{0, 0, 0, 0}}) {
		t.Errorf("blob write event %+v", p)
	}
}

// A panicking preupdate hook stops its statement, which is rolled back, and is reported.
func TestPreUpdateHookPanic(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	_, err := c.ExecScript("INSERT INTO t VALUES (1), (2)")
	hookPanic(t, err, "preupdate hook")
	if !errors.Is(err, sqlbatch.ErrConstraintCommitHook) && !errors.Is(err, sqlbatch.ErrInterrupt) {
		t.Errorf("preupdate hook panic: %v, want the statement stopped", err)
	}
	s, err := c.Prepare("INSERT INTO t VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Exec(3)
	hookPanic(t, err, "preupdate hook")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.PreUpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT count(*) FROM t"); got[0] != 0 {
		t.Errorf("the stopped inserts left %v rows", got)
	}
	mustExec(t, c, "INSERT INTO t VALUES (5)") // the connection works on, the panic reported once
}

// SQLite's one preupdate slot: a preupdate hook and sessions exclude each other, and the
// refused registrations keep no handle.
func TestPreUpdateHookAndSessionsExclude(t *testing.T) {
	c := memory(t)
	before := capi.LiveHandles()
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSession(nil); !errors.Is(err, sqlbatch.ErrMisuse) {
		t.Fatalf("session with a preupdate hook set: %v, want ErrMisuse", err)
	}
	if err := c.PreUpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	s, err := c.CreateSession(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) {}); !errors.Is(err, sqlbatch.ErrMisuse) {
		t.Fatalf("preupdate hook with a session alive: %v, want ErrMisuse", err)
	}
	if n := capi.LiveHandles() - before; n != 0 {
		t.Errorf("%d handles live after the refused hook", n)
	}
	if err := s.Delete(); err != nil {
		t.Fatal(err)
	}
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) {}); err != nil {
		t.Fatalf("preupdate hook after the session: %v", err)
	}
	if n := capi.LiveHandles() - before; n != 2 { // the hook and the commit guard
		t.Errorf("%d handles live, want 2", n)
	}
}

// The hook's handle is released when it is removed, replaced or the connection closes; the
// hook cannot be changed from inside a hook.
func TestPreUpdateHookHandles(t *testing.T) {
	before := capi.LiveHandles()
	c, err := sqlbatch.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE t(x)")
	var inner error
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) { inner = c.PreUpdateHook(nil) }); err != nil {
		t.Fatal(err)
	}
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) { inner = c.PreUpdateHook(nil) }); err != nil { // replaced
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	if !errors.Is(inner, sqlbatch.ErrInvalidArgument) {
		t.Errorf("removing the hook from inside it: %v", inner)
	}
	if n := capi.LiveHandles() - before; n != 2 {
		t.Errorf("%d handles live, want 2", n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := capi.LiveHandles() - before; n != 0 {
		t.Errorf("after Close: %d handles live", n)
	}
	if err := c.PreUpdateHook(func(sqlbatch.PreUpdate) {}); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Errorf("hook on a closed connection: %v", err)
	}
}
