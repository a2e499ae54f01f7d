package sqlbatch_test

import (
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

type traced struct {
	Event sqlbatch.TraceMask
	SQL   string
}

func recordTrace(t *testing.T, c *sqlbatch.Conn, mask sqlbatch.TraceMask) *[]traced {
	t.Helper()
	var got []traced
	if err := c.Trace(mask, func(e sqlbatch.TraceEvent) {
		if e.Event != sqlbatch.TraceProfile && e.Duration != 0 {
			t.Errorf("%v event with a duration", e.Event)
		}
		s := e.SQL
		if e.ExpandedSQL != "" {
			s = e.SQL + " => " + e.ExpandedSQL
		}
		got = append(got, traced{e.Event, s})
	}); err != nil {
		t.Fatal(err)
	}
	return &got
}

// Statement, row and profile events in order, each with its SQL; close at Close.
func TestTraceEvents(t *testing.T) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE t(x)")
	all := sqlbatch.TraceStmt | sqlbatch.TraceProfile | sqlbatch.TraceRow | sqlbatch.TraceClose
	got := recordTrace(t, c, all)
	mustExec(t, c, "INSERT INTO t VALUES (?), (?)", 1, "two")
	q := "SELECT x FROM t WHERE x <> ?"
	rows, err := c.Query(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	ins := "INSERT INTO t VALUES (?), (?)"
	want := []traced{
		{sqlbatch.TraceStmt, ins}, {sqlbatch.TraceProfile, ins},
		{sqlbatch.TraceStmt, q}, {sqlbatch.TraceRow, q}, {sqlbatch.TraceRow, q}, {sqlbatch.TraceProfile, q},
		{sqlbatch.TraceClose, ""},
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("events\n%v\nwant\n%v", *got, want)
	}
}

// TraceExpanded gives the statement's text with its bound values too; a trigger's program comes as
// "-- TRIGGER name", then "-- " and each of its statements; only the events asked for come.
func TestTraceExpandedAndTriggers(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x, y); CREATE TABLE log(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END")
	got := recordTrace(t, c, sqlbatch.TraceStmt|sqlbatch.TraceExpanded)
	mustExec(t, c, "INSERT INTO t VALUES (?, ?)", 42, "it's")
	want := []traced{{sqlbatch.TraceStmt, "INSERT INTO t VALUES (?, ?) => INSERT INTO t VALUES (42, 'it''s')"}, {sqlbatch.TraceStmt, "-- TRIGGER tr"},
		{sqlbatch.TraceStmt, "-- INSERT INTO log VALUES (new.x)"}}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("expanded: %v, want %v", *got, want)
	}
	got = recordTrace(t, c, sqlbatch.TraceStmt)
	mustExec(t, c, "INSERT INTO t VALUES (?, ?)", 42, "it's")
	if len(*got) != 3 || (*got)[0].SQL != "INSERT INTO t VALUES (?, ?)" {
		t.Errorf("not expanded: %v", *got)
	}
	got = recordTrace(t, c, sqlbatch.TraceProfile)
	mustExec(t, c, "SELECT 1; SELECT 2")
	if want := []traced{{sqlbatch.TraceProfile, "SELECT 1;"}, {sqlbatch.TraceProfile, " SELECT 2"}}; !reflect.DeepEqual(*got, want) {
		t.Errorf("profile only: %v, want %v", *got, want)
	}
}

// Each event says whether a transaction is open, and which statement it is about: one
// statement's events share its Stmt.
func TestTraceAutoCommitAndStmt(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x)")
	var got []sqlbatch.TraceEvent
	if err := c.Trace(sqlbatch.TraceStmt|sqlbatch.TraceProfile|sqlbatch.TraceRow, func(e sqlbatch.TraceEvent) {
		got = append(got, e)
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO t VALUES (1), (2)")
	if n := ints(t, c, "SELECT count(*) FROM t"); n[0] != 2 {
		t.Fatal(n)
	}
	mustExec(t, c, "COMMIT")
	type seen struct {
		Event      sqlbatch.TraceMask
		SQL        string
		AutoCommit bool
	}
	var states []seen
	stmts := map[string]uintptr{}
	for _, e := range got {
		states = append(states, seen{e.Event, e.SQL, e.AutoCommit})
		if e.Stmt == 0 {
			t.Errorf("%v of %q has no Stmt", e.Event, e.SQL)
		} else if id, ok := stmts[e.SQL]; ok && id != e.Stmt {
			t.Errorf("%q: Stmt %#x, then %#x", e.SQL, id, e.Stmt)
		}
		stmts[e.SQL] = e.Stmt
	}
	want := []seen{
		{sqlbatch.TraceStmt, "BEGIN", true}, {sqlbatch.TraceProfile, "BEGIN", false},
		{sqlbatch.TraceStmt, "INSERT INTO t VALUES (1), (2)", false}, {sqlbatch.TraceProfile, "INSERT INTO t VALUES (1), (2)", false},
		{sqlbatch.TraceStmt, "SELECT count(*) FROM t", false}, {sqlbatch.TraceRow, "SELECT count(*) FROM t", false},
		{sqlbatch.TraceProfile, "SELECT count(*) FROM t", false},
		{sqlbatch.TraceStmt, "COMMIT", false}, {sqlbatch.TraceProfile, "COMMIT", true},
	}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("events\n%v\nwant\n%v", states, want)
	}
}

// A long statement's profile event has its run time.
func TestTraceProfileDuration(t *testing.T) {
	c := memory(t)
	var d int64
	if err := c.Trace(sqlbatch.TraceProfile, func(e sqlbatch.TraceEvent) { d += int64(e.Duration) }); err != nil {
		t.Fatal(err)
	}
	n := 3000000
	if raceEnabled {
		n = 1000000
	}
	if got := ints(t, c, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT count(*) FROM n", n); got[0] != int64(n) {
		t.Fatal(got)
	}
	if d <= 0 {
		t.Errorf("profile duration %d", d)
	}
}

// Removing and replacing release the callback's handle; row events allocate nothing.
func TestTraceHandlesAndAllocations(t *testing.T) {
	before := capi.LiveHandles()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, `CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO t SELECT i FROM n`)
	rowsSeen := 0
	if err := c.Trace(sqlbatch.TraceRow, func(sqlbatch.TraceEvent) { rowsSeen++ }); err != nil {
		t.Fatal(err)
	}
	if err := c.Trace(sqlbatch.TraceRow|sqlbatch.TraceProfile, func(sqlbatch.TraceEvent) { rowsSeen++ }); err != nil {
		t.Fatal(err)
	}
	if n := capi.LiveHandles() - before; n != 1 {
		t.Errorf("%d handles live, want 1", n)
	}
	count := func(q string) {
		rows, err := c.Query(q)
		if err != nil {
			t.Error(err)
		}
		for rows.Next() {
		}
		if err := rows.Close(); err != nil {
			t.Error(err)
		}
	}
	small := testing.AllocsPerRun(10, func() { count("SELECT x FROM t WHERE x <= 10") })
	large := testing.AllocsPerRun(10, func() { count("SELECT x FROM t") })
	if large > small+2 {
		t.Errorf("allocations: %v for 10 rows, %v for 1000", small, large)
	}
	if rowsSeen < 1000 {
		t.Errorf("%d events", rowsSeen)
	}
	if err := c.Trace(1<<5, func(sqlbatch.TraceEvent) {}); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("unknown trace bit: %v", err)
	}
	if err := c.Trace(sqlbatch.TraceExpanded, func(sqlbatch.TraceEvent) {}); err != nil { // no event: removes it
		t.Fatal(err)
	}
	if n := capi.LiveHandles() - before; n != 0 {
		t.Errorf("after removing: %d handles live", n)
	}
	if err := c.Trace(sqlbatch.TraceStmt, func(sqlbatch.TraceEvent) {}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := capi.LiveHandles() - before; n != 0 {
		t.Errorf("after Close: %d handles live", n)
	}
}

// A panicking trace callback is reported by the call it happened in; at TraceStmt and
// TraceRow it stops the statement; at TraceClose, Close reports it and closes anyway.
func TestTracePanics(t *testing.T) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
	boomOn := func(ev sqlbatch.TraceMask) {
		if err := c.Trace(ev, func(sqlbatch.TraceEvent) { panic("boom") }); err != nil {
			t.Error(err)
		}
	}
	boomOn(sqlbatch.TraceStmt)
	_, err = c.ExecScript("INSERT INTO t VALUES (4)")
	if p := hookPanic(t, err, "trace callback"); !errors.Is(p.Err, sqlbatch.ErrInterrupt) {
		t.Errorf("panic at TraceStmt: %v, want the statement interrupted", err)
	}
	boomOn(sqlbatch.TraceRow)
	err = queryErr(c, "SELECT x FROM t")
	hookPanic(t, err, "trace callback")
	boomOn(sqlbatch.TraceProfile)
	_, err = c.ExecScript("UPDATE t SET x = x + 10")
	if p := hookPanic(t, err, "trace callback"); p.Err != nil {
		t.Errorf("panic at TraceProfile carries %v", p.Err)
	}
	if err := c.Trace(0, nil); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT count(*) FROM t WHERE x > 10"); got[0] != 3 {
		t.Errorf("the profiled statement did not stand: %v", got)
	}
	boomOn(sqlbatch.TraceClose)
	err = c.Close()
	hookPanic(t, err, "trace callback")
	if _, err := c.ExecScript("SELECT 1"); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TraceMask prints its bits.
func TestTraceMaskString(t *testing.T) {
	for m, want := range map[sqlbatch.TraceMask]string{
		sqlbatch.TraceStmt | sqlbatch.TraceExpanded: "stmt|expanded",
		sqlbatch.TraceRow:        "row",
		sqlbatch.TraceClose | 64: "close|0x40",
		0:                        "0x0",
	} {
		if got := m.String(); got != want {
			t.Errorf("%d: %q, want %q", uint32(m), got, want)
		}
	}
	if !strings.Contains(sqlbatch.ConflictKind(9).String(), "9") || sqlbatch.ChangesetOmit.String() != "SQLITE_CHANGESET_OMIT" {
		t.Error("conflict names")
	}
}

// With fetch-ahead and write-behind the trace callback and the preupdate hook run on the
// library's worker for the rows it steps: every event still comes, once.
func TestTraceAndPreUpdateOnTheWorker(t *testing.T) {
	c, err := sqlbatch.OpenWithFlags(":memory:", sqlbatch.OpenFetchAhead)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	numbers(t, c, 3000)
	var rowEvents, inserts atomic.Int64
	if err := c.Trace(sqlbatch.TraceRow, func(sqlbatch.TraceEvent) { rowEvents.Add(1) }); err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare("SELECT i FROM n")
	if err != nil {
		t.Fatal(err)
	}
	s.SetBatchRows(64)
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Close(); err != nil || n != 3000 {
		t.Fatal(n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := rowEvents.Load(); got != 3000 {
		t.Errorf("%d row events, want 3000", got)
	}
	if err := c.Trace(0, nil); err != nil {
		t.Fatal(err)
	}

	mustExec(t, c, "CREATE TABLE w(a, b)")
	if err := c.PreUpdateHook(func(p sqlbatch.PreUpdate) {
		if p.New[0].(int64)*2 == p.New[1].(int64) {
			inserts.Add(1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	ins, err := c.Prepare("INSERT INTO w VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	next := 0
	mustExec(t, c, "BEGIN")
	if _, err := ins.ExecManyFunc(func(p *sqlbatch.Params) error {
		for k := 0; k < 100 && next < 1000; k++ {
			p.Int64(int64(next)).Int64(int64(2 * next))
			next++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "COMMIT")
	if got := inserts.Load(); got != 1000 {
		t.Errorf("%d preupdate events, want 1000", got)
	}
}
