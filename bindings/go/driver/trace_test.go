package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"unsafe"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// mattn's SetTrace through sql.Conn.Raw: the events asked for, the SQL as written and
// expanded, the run time, the close event; nil removes it.
func TestDriverSetTrace(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x)")
	ctx := context.Background()
	c := conn(t, db)
	var got []driver.TraceInfo
	var handle uintptr
	set := func(cfg *driver.TraceConfig) error {
		return c.Raw(func(dc any) error {
			sc := dc.(*driver.SQLiteConn)
			handle = uintptr(0)
			if cfg != nil {
				handle = uintptr(unsafe.Pointer(sc)) // TraceInfo.ConnHandle
			}
			return sc.SetTrace(cfg)
		})
	}
	record := func(info driver.TraceInfo) int { got = append(got, info); return 0 }
	if err := set(&driver.TraceConfig{Callback: record, EventMask: driver.TraceStmt | driver.TraceProfile, WantExpandedSQL: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?)", 7); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("events %+v", got)
	}
	stmt, prof := got[0], got[1]
	if stmt.EventCode != driver.TraceStmt || stmt.StmtOrTrigger != "INSERT INTO t VALUES (?)" || stmt.ExpandedSQL != "INSERT INTO t VALUES (7)" ||
		stmt.ConnHandle != handle || handle == 0 || !stmt.AutoCommit || stmt.StmtHandle == 0 {
		t.Errorf("stmt event %+v", stmt)
	}
	if prof.StmtHandle != stmt.StmtHandle || !prof.AutoCommit {
		t.Errorf("profile event %+v of stmt %+v", prof, stmt)
	}
	if prof.EventCode != driver.TraceProfile || prof.StmtOrTrigger != "INSERT INTO t VALUES (?)" || prof.ExpandedSQL != "" || prof.RunTimeNanosec < 0 {
		t.Errorf("profile event %+v", prof)
	}
	// Rows, unexpanded.
	got = nil
	if err := set(&driver.TraceConfig{Callback: record, EventMask: driver.TraceStmt | driver.TraceRow}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT count(*) FROM t WHERE x = ?", 7).Scan(&n); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	codes := []uint32{}
	for _, i := range got {
		codes = append(codes, i.EventCode)
		if i.StmtOrTrigger != "SELECT count(*) FROM t WHERE x = ?" || i.ExpandedSQL != "" {
			t.Errorf("event %+v", i)
		}
	}
	if !reflect.DeepEqual(codes, []uint32{driver.TraceStmt, driver.TraceRow}) {
		t.Errorf("events %v", codes)
	}
	// nil removes it.
	got = nil
	set(nil)
	c.ExecContext(ctx, "INSERT INTO t VALUES (8)")
	if len(got) != 0 {
		t.Errorf("events after SetTrace(nil): %+v", got)
	}
	// Close: the event, when the pool closes the connection.
	set(&driver.TraceConfig{Callback: record, EventMask: driver.TraceClose})
	c.Close()
	db.Close()
	if len(got) != 1 || got[0].EventCode != driver.TraceClose {
		t.Errorf("close events %+v", got)
	}
}

// A trace callback that panics fails the statement; a ConnectHook can trace every
// connection of a pool.
func TestDriverTracePanicAndConnectHook(t *testing.T) {
	stmts := 0
	sql.Register("sqlbatch_trace_test", &driver.SQLiteDriver{ConnectHook: func(c *driver.SQLiteConn) error {
		return c.SetTrace(&driver.TraceConfig{EventMask: driver.TraceStmt, Callback: func(i driver.TraceInfo) int {
			if i.StmtOrTrigger == "SELECT 'boom'" {
				panic("boom")
			}
			stmts++
			return 0
		}})
	}})
	db, err := sql.Open("sqlbatch_trace_test", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, "CREATE TABLE t(x)")
	if stmts == 0 {
		t.Error("no statement traced")
	}
	_, err = db.Exec("SELECT 'boom'")
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) || p.Hook != "trace callback" {
		t.Errorf("panic: %v", err)
	}
	exec(t, db, "INSERT INTO t VALUES (1)")
}
