package sqlbatch_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

type event struct {
	Op            int
	Schema, Table string
	RowID         int64
}

func recordUpdates(t *testing.T, c *sqlbatch.Conn) *[]event {
	t.Helper()
	var got []event
	if err := c.UpdateHook(func(op int, schema, table string, rowid int64) {
		got = append(got, event{op, schema, table, rowid})
	}); err != nil {
		t.Fatal(err)
	}
	return &got
}

func TestUpdateHookEventsInOrder(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x); CREATE TABLE u(y); ATTACH ':memory:' AS aux; CREATE TABLE aux.v(z)")
	got := recordUpdates(t, c)
	mustExec(t, c, `INSERT INTO t VALUES (10), (20); UPDATE t SET x = x + 1 WHERE rowid = 2;
		INSERT INTO u VALUES (1); DELETE FROM t WHERE rowid = 1; INSERT INTO aux.v VALUES (5)`)
	want := []event{
		{sqlbatch.OpInsert, "main", "t", 1}, {sqlbatch.OpInsert, "main", "t", 2},
		{sqlbatch.OpUpdate, "main", "t", 2}, {sqlbatch.OpInsert, "main", "u", 1},
		{sqlbatch.OpDelete, "main", "t", 1}, {sqlbatch.OpInsert, "aux", "v", 1},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("events\n%v\nwant\n%v", *got, want)
	}
	// The names are interned: the same table is the same string.
	if a, b := (*got)[0].Table, (*got)[2].Table; unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("table names are not interned")
	}
	// Removed: no more events.
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (30)")
	if len(*got) != len(want) {
		t.Errorf("%d events after removal", len(*got)-len(want))
	}
}

// An update hook costs no allocation per event.
func TestUpdateHookAllocations(t *testing.T) {
	c := memory(t)
	mustExec(t, c, `CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO t SELECT i FROM n`)
	var sum int64
	if err := c.UpdateHook(func(op int, schema, table string, rowid int64) { sum += rowid }); err != nil {
		t.Fatal(err)
	}
	small := testing.AllocsPerRun(20, func() { mustExec(t, c, "UPDATE t SET x = x + 1 WHERE rowid <= 10") })
	large := testing.AllocsPerRun(20, func() { mustExec(t, c, "UPDATE t SET x = x + 1") })
	if large > small+1 {
		t.Errorf("allocations: %v for 10 rows, %v for 1000", small, large)
	}
}

// The events reach fn in batches, but every other callback and every return sees them as if
// fn were called per event: before each call of an SQL function the statement makes, the
// events of the rows before it; before the commit hook, the transaction's; before Exec
// returns, the statement's.
func TestUpdateHookKeepsPerEventOrder(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3); CREATE TABLE u(y)")
	var log []string
	if err := c.CreateFunction("f", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		log = append(log, fmt.Sprintf("f(%d)", a.Int64(0)))
		ctx.SetInt64(a.Int64(0) * 10)
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.CommitHook(func() int { log = append(log, "commit"); return 0 }); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateHook(func(op int, schema, table string, rowid int64) {
		log = append(log, fmt.Sprintf("%s %d", table, rowid))
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "UPDATE t SET x = f(x)")
	log = append(log, "returned")
	mustExec(t, c, "BEGIN; INSERT INTO u VALUES (1), (2)")
	log = append(log, "returned")
	mustExec(t, c, "COMMIT")
	want := []string{"f(1)", "t 1", "f(2)", "t 2", "f(3)", "t 3", "commit", "returned", "u 1", "u 2", "returned", "commit"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("callbacks\n%v\nwant\n%v", log, want)
	}
}

// A panic in the update hook inside a transaction: when the events reach it as the call ends,
// the transaction is rolled back, as interrupting the statement (what a per-event hook's
// panic did) rolls it back.
func TestUpdateHookPanicInsideATransaction(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	if err := c.UpdateHook(func(op int, schema, table string, rowid int64) {
		if rowid == 2 {
			panic("boom")
		}
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "BEGIN; INSERT INTO t VALUES (1)")
	_, err := c.ExecScript("INSERT INTO t VALUES (2), (3)")
	if p := hookPanic(t, err, "update hook"); !errors.Is(p.Err, sqlbatch.ErrInterrupt) {
		t.Errorf("panic: %v, want an interrupt", err)
	}
	if !c.Autocommit() {
		t.Error("the transaction is still open")
	}
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT count(*) FROM t"); got[0] != 0 {
		t.Errorf("%v rows left, want the transaction rolled back", got)
	}
}

// Every call that runs a statement may call back into Go: each path with a hook set. A call
// left "#cgo nocallback" makes the Go runtime abort the test binary here.
func TestHooksFireThroughEveryPath(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x INTEGER PRIMARY KEY, b BLOB)")
	n := 0
	if err := c.UpdateHook(func(int, string, string, int64) { n++ }); err != nil {
		t.Fatal(err)
	}
	check := func(what string, want int) {
		t.Helper()
		if n != want {
			t.Errorf("%s: %d events, want %d", what, n, want)
		}
		n = 0
	}
	mustExec(t, c, "INSERT INTO t VALUES (1, zeroblob(10)); INSERT INTO t VALUES (2, zeroblob(10))")
	check("ExecScript", 2)

	var p sqlbatch.Params
	for i := 3; i < 13; i++ {
		p.Int64(int64(i))
	}
	if _, err := c.ExecMany("INSERT INTO t(x) VALUES (?)", &p); err != nil {
		t.Fatal(err)
	}
	check("ExecMany", 10)

	s, err := c.Prepare("DELETE FROM t WHERE x = ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(12); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("Stmt.Exec", 1)

	// A fetch that runs a write (RETURNING).
	if got := ints(t, c, "UPDATE t SET x = x + 100 WHERE x > 2 RETURNING x"); len(got) != 9 {
		t.Fatalf("RETURNING: %v", got)
	}
	check("fetch", 9)

	// A fetch that runs the progress handler, and a prepare that runs the authorizer.
	steps, auths := 0, 0
	if err := c.ProgressHandler(10, func() bool { steps++; return false }); err != nil {
		t.Fatal(err)
	}
	if err := c.Authorizer(func(int, string, string, string, string) int { auths++; return sqlbatch.AuthOK }); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT count(*) FROM n"); got[0] != 1000 {
		t.Fatal(got)
	}
	if steps == 0 || auths == 0 {
		t.Errorf("progress handler ran %d times, authorizer %d", steps, auths)
	}

	// Blob I/O: open, reopen, read_many, write and close in autocommit mode (the commit hook).
	commits := 0
	if err := c.CommitHook(func() int { commits++; return 0 }); err != nil {
		t.Fatal(err)
	}
	b, err := c.OpenBlob("", "t", "b", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteAt([]byte("hi"), 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Reopen(2); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 20)
	if _, err := b.ReadMany([]sqlbatch.BlobRange{{RowID: 1, Offset: 0, Len: 10}, {RowID: 2, Offset: 0, Len: 10}}, buf); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if string(buf[:2]) != "hi" {
		t.Errorf("blob read %q", buf[:2])
	}

	// Serialize (a PRAGMA) and Deserialize (an ATTACH) run SQL too.
	data, err := c.Serialize("")
	if err != nil {
		t.Fatal(err)
	}
	d := memory(t)
	if err := d.Authorizer(func(int, string, string, string, string) int { return sqlbatch.AuthOK }); err != nil {
		t.Fatal(err)
	}
	if err := d.ProgressHandler(1, func() bool { return false }); err != nil {
		t.Fatal(err)
	}
	if err := d.Deserialize(data, "", sqlbatch.DeserializeResizeable); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, d, "SELECT count(*) FROM t"); got[0] != 11 {
		t.Errorf("deserialized %v rows", got)
	}
	// Backup to and from a file, and Close, with every hook set.
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := c.BackupToFile("", path); err != nil {
		t.Fatal(err)
	}
	if err := d.RestoreFromFile("", path); err != nil {
		t.Fatal(err)
	}
	if err := d.RollbackHook(func() {}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, d, "BEGIN; INSERT INTO t(x) VALUES (1000)")
	if err := d.Close(); err != nil { // rolls back, with hooks set
		t.Fatal(err)
	}
}

func TestCommitHookVeto(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	veto, commits, rollbacks := false, 0, 0
	if err := c.CommitHook(func() int {
		commits++
		if veto {
			return 1
		}
		return 0
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.RollbackHook(func() { rollbacks++ }); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	veto = true
	_, err := c.ExecScript("INSERT INTO t VALUES (2)")
	if !errors.Is(err, sqlbatch.ErrConstraintCommitHook) {
		t.Fatalf("vetoed commit: %v, want SQLITE_CONSTRAINT_COMMITHOOK", err)
	}
	mustExec(t, c, "BEGIN; INSERT INTO t VALUES (3)")
	if _, err := c.ExecScript("COMMIT"); !errors.Is(err, sqlbatch.ErrConstraintCommitHook) {
		t.Fatalf("vetoed COMMIT: %v", err)
	}
	if !c.Autocommit() {
		t.Error("a vetoed COMMIT left the transaction open")
	}
	veto = false
	mustExec(t, c, "BEGIN; INSERT INTO t VALUES (4); ROLLBACK")
	if got := ints(t, c, "SELECT x FROM t"); !reflect.DeepEqual(got, []int64{1}) {
		t.Errorf("rows %v, want [1]", got)
	}
	if commits != 3 || rollbacks != 3 {
		t.Errorf("%d commits, %d rollbacks seen, want 3 and 3", commits, rollbacks)
	}
}

func TestAuthorizer(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x, secret); INSERT INTO t VALUES (1, 'pw')")
	type call struct {
		action        int
		a, b, db, trg string
	}
	var calls []call
	mode := sqlbatch.AuthDeny
	if err := c.Authorizer(func(action int, a, b, db, trg string) int {
		calls = append(calls, call{action, a, b, db, trg})
		if action == sqlbatch.ActionRead && b == "secret" {
			return mode
		}
		return sqlbatch.AuthOK
	}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Prepare("SELECT x, secret FROM t")
	if !errors.Is(err, sqlbatch.ErrAuth) {
		t.Fatalf("denied read: %v, want SQLITE_AUTH", err)
	}
	if len(calls) == 0 || calls[0].action != sqlbatch.ActionSelect {
		t.Errorf("calls %v", calls)
	}
	found := false
	for _, cl := range calls {
		if cl == (call{sqlbatch.ActionRead, "t", "secret", "main", ""}) {
			found = true
		}
	}
	if !found {
		t.Errorf("no READ t.secret in main among %v", calls)
	}
	mode = sqlbatch.AuthIgnore
	r, err := c.Query("SELECT x, secret FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() || r.Int64(0) != 1 || !r.IsNull(1) {
		t.Errorf("ignored column: x %d, secret null %v", r.Int64(0), r.IsNull(1))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Authorizer(nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT length(secret) FROM t"); got[0] != 2 {
		t.Error("authorizer not removed")
	}
}

func TestProgressHandlerInterrupts(t *testing.T) {
	c := memory(t)
	calls := 0
	if err := c.ProgressHandler(100, func() bool { calls++; return calls >= 5 }); err != nil {
		t.Fatal(err)
	}
	err := queryErr(c, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
	if !errors.Is(err, sqlbatch.ErrInterrupt) || calls != 5 {
		t.Fatalf("err %v after %d calls, want SQLITE_INTERRUPT after 5", err, calls)
	}
	if err := c.ProgressHandler(0, nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT 1"); got[0] != 1 {
		t.Fatal(got)
	}
}

func TestBusyHandlerRetries(t *testing.T) {
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
	var counts []int
	if err := b.BusyHandler(func(n int) bool { counts = append(counts, n); return n < 3 }); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecScript("INSERT INTO t VALUES (2)"); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("gave up: %v, want SQLITE_BUSY", err)
	}
	if !reflect.DeepEqual(counts, []int{0, 1, 2, 3}) {
		t.Errorf("counts %v", counts)
	}
	// This time the holder commits while b waits (another connection may be used).
	counts = nil
	if err := b.BusyHandler(func(n int) bool {
		counts = append(counts, n)
		if n == 2 {
			mustExec(t, a, "COMMIT")
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, b, "INSERT INTO t VALUES (2)")
	if !reflect.DeepEqual(counts, []int{0, 1, 2}) {
		t.Errorf("counts %v", counts)
	}

	// A backup step waits on the source's lock through its busy handler.
	mustExec(t, a, "BEGIN EXCLUSIVE; INSERT INTO t VALUES (3)")
	calls := 0
	if err := b.BusyHandler(func(n int) bool { calls++; return n < 2 }); err != nil {
		t.Fatal(err)
	}
	dst := memory(t)
	bk, err := dst.Backup("", b, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bk.Step(-1); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Errorf("backup of a locked source: %v", err)
	}
	if calls != 3 {
		t.Errorf("busy handler called %d times during the backup step, want 3", calls)
	}
	mustExec(t, a, "COMMIT")
	if done, err := bk.Step(-1); !done || err != nil {
		t.Errorf("resumed backup: %v %v", done, err)
	}
	if err := bk.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, dst, "SELECT count(*) FROM t"); got[0] != 3 {
		t.Errorf("backup has %v rows", got)
	}
	// A checkpoint with the busy handler set.
	if _, _, err := b.Checkpoint("", sqlbatch.CheckpointPassive); err != nil {
		t.Error(err)
	}
}

func TestWALHook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	c, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExec(t, c, "PRAGMA journal_mode=WAL; CREATE TABLE t(x)")
	type call struct {
		schema string
		pages  int
	}
	var calls []call
	var fail error
	if err := c.WALHook(func(schema string, pages int) error {
		calls = append(calls, call{schema, pages})
		if pages >= 3 {
			// The WAL hook may use the connection.
			if _, _, err := c.Checkpoint(schema, sqlbatch.CheckpointTruncate); err != nil {
				return err
			}
		}
		return fail
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	mustExec(t, c, "INSERT INTO t VALUES (2)")
	mustExec(t, c, "INSERT INTO t VALUES (3)")
	mustExec(t, c, "INSERT INTO t VALUES (4)")
	// CREATE TABLE left 2 frames in the log: 3 after the first insert, which checkpoints.
	want := []call{{"main", 3}, {"main", 1}, {"main", 2}, {"main", 3}}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	fail = errors.New("no")
	_, err = c.ExecScript("INSERT INTO t VALUES (5)")
	if !errors.Is(err, sqlbatch.ErrError) {
		t.Errorf("failing WAL hook: %v", err)
	}
	if got := ints(t, c, "SELECT count(*) FROM t"); got[0] != 5 {
		t.Errorf("%v rows: the commit should stand", got)
	}
}

type batch struct {
	reason  sqlbatch.FeedReason
	changes []sqlbatch.Change
}

func TestChangeFeedBatches(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE a(x); CREATE TABLE b(y)")
	var got []batch
	var events int
	if err := c.UpdateHook(func(int, string, string, int64) { events++ }); err != nil {
		t.Fatal(err)
	}
	if err := c.ChangeFeed(10, func(ch []sqlbatch.Change, r sqlbatch.FeedReason) {
		got = append(got, batch{r, append([]sqlbatch.Change(nil), ch...)})
	}); err != nil {
		t.Fatal(err)
	}
	shape := func() string {
		var parts []string
		for _, b := range got {
			parts = append(parts, fmt.Sprintf("%v:%d", b.reason, len(b.changes)))
		}
		got = nil
		return strings.Join(parts, " ")
	}
	var p sqlbatch.Params
	for i := 0; i < 25; i++ {
		p.Int64(int64(i))
	}
	mustExec(t, c, "BEGIN")
	if _, err := c.ExecMany("INSERT INTO a VALUES (?)", &p); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "COMMIT")
	if s := shape(); s != "full:10 full:10 commit:5" {
		t.Errorf("25 inserts in a transaction: %s", s)
	}
	mustExec(t, c, "BEGIN; UPDATE a SET x = x + 1 WHERE rowid <= 12; ROLLBACK")
	if s := shape(); s != "full:10 rollback:2" {
		t.Errorf("12 updates rolled back: %s", s)
	}
	mustExec(t, c, "INSERT INTO a VALUES (1); INSERT INTO b VALUES (2), (3)")
	if s := shape(); s != "commit:1 commit:2" {
		t.Errorf("two autocommit statements: %s", s)
	}
	// Two tables in one batch, each change naming its own; in order.
	mustExec(t, c, "BEGIN; INSERT INTO b VALUES (4); DELETE FROM a WHERE rowid = 1; UPDATE b SET y = 0 WHERE rowid = 1; COMMIT")
	want := []sqlbatch.Change{
		{Op: sqlbatch.OpInsert, Schema: "main", Table: "b", RowID: 3},
		{Op: sqlbatch.OpDelete, Schema: "main", Table: "a", RowID: 1},
		{Op: sqlbatch.OpUpdate, Schema: "main", Table: "b", RowID: 1},
	}
	if len(got) != 1 || got[0].reason != sqlbatch.FeedCommit || !reflect.DeepEqual(got[0].changes, want) {
		t.Errorf("batch %v, want commit %v", got, want)
	}
	if events != 25+12+3+3 {
		t.Errorf("the update hook saw %d events beside the feed", events)
	}
	// A vetoed commit delivers its changes as rolled back.
	got = nil
	if err := c.CommitHook(func() int { return 1 }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript("INSERT INTO a VALUES (9)"); !errors.Is(err, sqlbatch.ErrConstraintCommitHook) {
		t.Fatalf("vetoed commit: %v", err)
	}
	if s := shape(); s != "rollback:1" {
		t.Errorf("vetoed commit: %s", s)
	}
	if err := c.ChangeFeed(0, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CommitHook(nil); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO a VALUES (9)")
	if len(got) != 0 {
		t.Error("removed feed still delivers")
	}
}

func TestHookHandlesReleased(t *testing.T) {
	before := capi.LiveHandles()
	for i := 0; i < 3; i++ {
		c, err := sqlbatch.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		set := func() {
			if err := c.UpdateHook(func(int, string, string, int64) {}); err != nil {
				t.Error(err)
			}
			if err := c.CommitHook(func() int { return 0 }); err != nil {
				t.Error(err)
			}
			if err := c.RollbackHook(func() {}); err != nil {
				t.Error(err)
			}
			if err := c.WALHook(func(string, int) error { return nil }); err != nil {
				t.Error(err)
			}
			if err := c.ProgressHandler(10, func() bool { return false }); err != nil {
				t.Error(err)
			}
			if err := c.BusyHandler(func(int) bool { return false }); err != nil {
				t.Error(err)
			}
			if err := c.Authorizer(func(int, string, string, string, string) int { return 0 }); err != nil {
				t.Error(err)
			}
			if err := c.ChangeFeed(5, func([]sqlbatch.Change, sqlbatch.FeedReason) {}); err != nil {
				t.Error(err)
			}
		}
		set()
		if n := capi.LiveHandles() - before; n != 8 {
			t.Fatalf("%d handles live, want 8", n)
		}
		set() // replaced: the old ones released
		if n := capi.LiveHandles() - before; n != 8 {
			t.Fatalf("after replacing: %d handles live, want 8", n)
		}
		if i == 0 {
			if err := c.UpdateHook(nil); err != nil {
				t.Fatal(err)
			}
			if err := c.ChangeFeed(0, nil); err != nil {
				t.Fatal(err)
			}
			if err := c.ProgressHandler(0, func() bool { return false }); err != nil { // n < 1 removes
				t.Fatal(err)
			}
			if n := capi.LiveHandles() - before; n != 5 {
				t.Fatalf("after removing three: %d handles live, want 5", n)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if n := capi.LiveHandles() - before; n != 0 {
			t.Fatalf("after Close: %d handles live", n)
		}
	}
	// Setting a hook on a closed connection fails and keeps nothing.
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateHook(func(int, string, string, int64) {}); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Errorf("hook on a closed connection: %v", err)
	}
	if n := capi.LiveHandles() - before; n != 0 {
		t.Errorf("%d handles live after a refused hook", n)
	}
}

func TestHooksCannotChangeInsideAHook(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	before := capi.LiveHandles()
	var errs []error
	if err := c.UpdateHook(func(int, string, string, int64) {
		errs = append(errs, c.UpdateHook(nil), c.CommitHook(func() int { return 0 }))
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (1)")
	if len(errs) != 2 || !errors.Is(errs[0], sqlbatch.ErrInvalidArgument) || !errors.Is(errs[1], sqlbatch.ErrInvalidArgument) {
		t.Errorf("changing hooks inside a hook: %v", errs)
	}
	if n := capi.LiveHandles() - before; n != 2 {
		t.Errorf("%d handles live, want 2 (the hook and the commit guard)", n)
	}
	mustExec(t, c, "INSERT INTO t VALUES (2)")
	if len(errs) != 4 {
		t.Error("the hook was removed from inside itself")
	}
}

func hookPanic(t *testing.T, err error, hook string) *sqlbatch.HookPanicError {
	t.Helper()
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) {
		t.Fatalf("error %v (%T), want a *HookPanicError", err, err)
	}
	if p.Hook != hook || p.Value != "boom" || len(p.Stack) == 0 {
		t.Errorf("panic of %q with %v", p.Hook, p.Value)
	}
	return p
}

func TestPanicsInHooks(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	boom := func() { panic("boom") }

	if err := c.UpdateHook(func(int, string, string, int64) { boom() }); err != nil {
		t.Fatal(err)
	}
	_, err := c.ExecScript("INSERT INTO t VALUES (1)")
	hookPanic(t, err, "update hook")
	if !errors.Is(err, sqlbatch.ErrConstraintCommitHook) {
		t.Errorf("update hook panic: %v, want the commit vetoed", err)
	}
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT count(*) FROM t"); got[0] != 0 {
		t.Errorf("the interrupted insert left %v rows", got)
	}
	// Through Stmt.Exec and a fetch too.
	if err := c.UpdateHook(func(int, string, string, int64) { boom() }); err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare("INSERT INTO t VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Exec(1)
	hookPanic(t, err, "update hook")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err = queryErr(c, "INSERT INTO t VALUES (1) RETURNING x")
	hookPanic(t, err, "update hook")
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}

	if err := c.CommitHook(func() int { boom(); return 0 }); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecScript("INSERT INTO t VALUES (1)")
	if p := hookPanic(t, err, "commit hook"); !errors.Is(p.Err, sqlbatch.ErrConstraintCommitHook) {
		t.Errorf("commit hook panic: %v, want a vetoed commit", err)
	}
	if err := c.CommitHook(nil); err != nil {
		t.Fatal(err)
	}

	if err := c.RollbackHook(func() { boom() }); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "BEGIN; INSERT INTO t VALUES (1)")
	_, err = c.ExecScript("ROLLBACK")
	if p := hookPanic(t, err, "rollback hook"); p.Err != nil {
		t.Errorf("rollback hook panic carries %v", p.Err)
	}
	if err := c.RollbackHook(nil); err != nil {
		t.Fatal(err)
	}

	if err := c.Authorizer(func(int, string, string, string, string) int { boom(); return 0 }); err != nil {
		t.Fatal(err)
	}
	_, err = c.Prepare("SELECT 1")
	if p := hookPanic(t, err, "authorizer"); !errors.Is(p.Err, sqlbatch.ErrAuth) {
		t.Errorf("authorizer panic: %v", err)
	}
	if err := c.Authorizer(nil); err != nil {
		t.Fatal(err)
	}

	if err := c.ProgressHandler(1, func() bool { boom(); return false }); err != nil {
		t.Fatal(err)
	}
	err = queryErr(c, "SELECT count(*) FROM t")
	if p := hookPanic(t, err, "progress handler"); !errors.Is(p.Err, sqlbatch.ErrInterrupt) {
		t.Errorf("progress handler panic: %v", err)
	}
	if err := c.ProgressHandler(0, nil); err != nil {
		t.Fatal(err)
	}

	// The change feed: a full batch stops the statement; a commit batch cannot.
	if err := c.ChangeFeed(2, func(ch []sqlbatch.Change, r sqlbatch.FeedReason) { boom() }); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecScript("INSERT INTO t VALUES (1), (2), (3)")
	if p := hookPanic(t, err, "change feed"); !errors.Is(p.Err, sqlbatch.ErrInterrupt) {
		t.Errorf("full batch panic: %v", err)
	}
	_, err = c.ExecScript("INSERT INTO t VALUES (4)")
	if p := hookPanic(t, err, "change feed"); p.Err != nil {
		t.Errorf("commit batch panic: %v", err)
	}
	if err := c.ChangeFeed(0, nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT x FROM t"); !reflect.DeepEqual(got, []int64{4}) { // the only insert that was not stopped
		t.Errorf("rows %v, want [4]", got)
	}
	// The connection works on, and the panic is reported once.
	mustExec(t, c, "INSERT INTO t VALUES (5)")
}

func TestBusyAndWALHookPanics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
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
	mustExec(t, a, "PRAGMA journal_mode=WAL; CREATE TABLE t(a); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
	if err := b.BusyHandler(func(int) bool { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	_, err = b.ExecScript("INSERT INTO t VALUES (2)")
	if p := hookPanic(t, err, "busy handler"); !errors.Is(p.Err, sqlbatch.ErrBusy) {
		t.Errorf("busy handler panic: %v", err)
	}
	mustExec(t, a, "COMMIT")
	if err := b.WALHook(func(string, int) error { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	_, err = b.ExecScript("INSERT INTO t VALUES (2)")
	if p := hookPanic(t, err, "WAL hook"); !errors.Is(p.Err, sqlbatch.ErrError) {
		t.Errorf("WAL hook panic: %v", err)
	}
}

// A hook that uses its own connection (SQLite forbids it, but for the WAL hook) gets
// ErrMisuse from every call, and a statement it closes, even the one whose step ran it, is
// finalized once the hook is over: no corruption, no crash.
func TestHookUsingItsConnection(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	other, err := c.Prepare("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ins, err := c.Prepare("INSERT INTO t VALUES (1), (2)")
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	if err := c.UpdateHook(func(int, string, string, int64) {
		_, err := c.ExecScript("SELECT 1")
		errs = append(errs, err)
		_, err = c.Prepare("SELECT 2")
		errs = append(errs, err)
		if ins != nil {
			errs = append(errs, ins.Close())
			ins = nil
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript("INSERT INTO t VALUES (0)"); err != nil {
		t.Fatal(err)
	}
	if len(errs) != 3 || !errors.Is(errs[0], sqlbatch.ErrMisuse) || !errors.Is(errs[1], sqlbatch.ErrMisuse) || errs[2] != nil {
		t.Errorf("calls from inside the hook: %v", errs)
	}
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	var n int64
	rows, err := c.Query("SELECT count(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		n = rows.Int64(0)
	}
	if err := rows.Close(); err != nil || n != 1 {
		t.Errorf("count %d, %v", n, err)
	}
}

// Close from inside a hook of the connection (the WAL hook included) would finalize the
// statement that is running the hook: it returns ErrMisuse and the connection stays open;
// the statement that ran the hook completes, and Close works once the hook is over.
func TestCloseInsideItsHooks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "close.db")
	c, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "PRAGMA journal_mode=WAL; CREATE TABLE t(x)")
	var errs []error
	closeHere := func(hook string) {
		err := c.Close()
		var e *sqlbatch.Error
		if !errors.Is(err, sqlbatch.ErrMisuse) || !errors.As(err, &e) || !strings.Contains(e.Msg, "inside a hook") {
			t.Errorf("Close from the %s: %v, want ErrMisuse", hook, err)
		}
		errs = append(errs, err)
	}
	setters := []struct {
		hook       string
		set, unset func() error
	}{
		{"update hook",
			func() error { return c.UpdateHook(func(int, string, string, int64) { closeHere("update hook") }) },
			func() error { return c.UpdateHook(nil) }},
		{"commit hook",
			func() error { return c.CommitHook(func() int { closeHere("commit hook"); return 0 }) },
			func() error { return c.CommitHook(nil) }},
		{"change feed",
			func() error {
				return c.ChangeFeed(0, func([]sqlbatch.Change, sqlbatch.FeedReason) { closeHere("change feed") })
			},
			func() error { return c.ChangeFeed(0, nil) }},
		{"WAL hook",
			func() error { return c.WALHook(func(string, int) error { closeHere("WAL hook"); return nil }) },
			func() error { return c.WALHook(nil) }},
		{"rollback hook",
			func() error { return c.RollbackHook(func() { closeHere("rollback hook") }) },
			func() error { return c.RollbackHook(nil) }},
	}
	want := int64(0)
	for _, s := range setters {
		if err := s.set(); err != nil {
			t.Fatal(err)
		}
		errs = errs[:0]
		sql := "INSERT INTO t VALUES (1)"
		if s.hook == "rollback hook" {
			sql = "BEGIN; INSERT INTO t VALUES (1); ROLLBACK"
		} else {
			want++
		}
		if _, err := c.ExecScript(sql); err != nil {
			t.Errorf("%s: the statement that ran the hook: %v", s.hook, err)
		}
		if len(errs) == 0 {
			t.Errorf("%s: not called", s.hook)
		}
		if err := s.unset(); err != nil {
			t.Fatal(err)
		}
		// The connection still works.
		if got := ints(t, c, "SELECT count(*) FROM t"); len(got) != 1 || got[0] != want {
			t.Errorf("after Close from the %s: count %v, want %d", s.hook, got, want)
		}
	}
	// Refused from a statement prepared on c and from a query's hook too, not only from a
	// script; and a hook that is over leaves nothing behind.
	if err := c.UpdateHook(func(int, string, string, int64) { closeHere("update hook") }); err != nil {
		t.Fatal(err)
	}
	ins, err := c.Prepare("INSERT INTO t VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	errs = errs[:0]
	if _, err := ins.Exec(2); err != nil || len(errs) != 1 {
		t.Errorf("Exec: %v, %d calls", err, len(errs))
	}
	if err := ins.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateHook(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after the hooks: %v", err)
	}
	if _, err := c.ExecScript("SELECT 1"); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}
