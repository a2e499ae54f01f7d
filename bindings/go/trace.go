package sqlbatch

import (
	"fmt"
	"strings"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// TraceMask selects the events of Conn.Trace, with SQLite's values (SQLITE_TRACE_*), and
// says which one a TraceEvent is.
type TraceMask uint32

// Trace events, and the flag TraceExpanded.
const (
	// TraceStmt: a statement starts running (each statement of a script, each trigger
	// program: its SQL is "-- " and the trigger's name).
	TraceStmt TraceMask = capi.TraceStmt
	// TraceProfile: a statement finished, with how long it ran.
	TraceProfile TraceMask = capi.TraceProfile
	// TraceRow: a statement produced a row.
	TraceRow TraceMask = capi.TraceRow
	// TraceClose: the connection closes.
	TraceClose TraceMask = capi.TraceClose
	// TraceExpanded is a flag, not an event: TraceStmt events carry, in ExpandedSQL, the SQL
	// with the bound parameters' values in place (sqlite3_expanded_sql) as well.
	TraceExpanded TraceMask = capi.TraceExpanded
)

// String lists the bits of m: "stmt|profile", "row|expanded".
func (m TraceMask) String() string {
	var parts []string
	for _, b := range []struct {
		bit  TraceMask
		name string
	}{{TraceStmt, "stmt"}, {TraceProfile, "profile"}, {TraceRow, "row"}, {TraceClose, "close"}, {TraceExpanded, "expanded"}} {
		if m&b.bit != 0 {
			parts = append(parts, b.name)
			m &^= b.bit
		}
	}
	if m != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(m)))
	}
	return strings.Join(parts, "|")
}

// TraceEvent is one event of Conn.Trace.
type TraceEvent struct {
	// Event is TraceStmt, TraceProfile, TraceRow or TraceClose.
	Event TraceMask
	// SQL is the statement's text as it was prepared (for TraceStmt of a trigger program,
	// "-- TRIGGER name", then "-- " and each of its statements); "" for TraceClose. It is
	// interned: the same statement gives the same string, and an event allocates nothing.
	SQL string
	// ExpandedSQL is, for TraceStmt with TraceExpanded, the SQL with the bound values in
	// place of its parameters; "" otherwise, for a trigger's "-- " texts, and where SQLite
	// could not expand it (out of memory, or longer than the length limit).
	ExpandedSQL string
	// Duration is, for TraceProfile, how long the statement ran (SQLite's clock has
	// millisecond resolution: fast statements show 0); 0 otherwise.
	Duration time.Duration
	// AutoCommit is whether the connection was in autocommit mode (no transaction open) at
	// the event: for TraceProfile, after the statement (false after BEGIN, true after
	// COMMIT).
	AutoCommit bool
	// Stmt identifies the statement: SQLite's address for it, the same for every event of
	// one statement while it lives (another statement may reuse it after it is finalized); 0
	// for TraceClose.
	Stmt uintptr
}

type tracer struct {
	c    *Conn
	fn   func(TraceEvent)
	sqls names
}

func (t *tracer) Trace(e capi.TraceEvent) {
	t.c.inHook++
	// A panic while a statement runs stops it, as an update hook's does; a profile event
	// comes once the statement is over, a close event at Close: nothing left to stop.
	stop := e.Event == capi.TraceStmt || e.Event == capi.TraceRow
	defer func() { t.c.hookDone(recover(), "trace callback", stop) }()
	ev := TraceEvent{
		Event:      TraceMask(e.Event),
		Duration:   time.Duration(e.NS),
		AutoCommit: e.AutoCommit,
		Stmt:       uintptr(e.Stmt),
	}
	if e.SQL != nil {
		ev.SQL = t.sqls.get(e.SQL)
	}
	if e.ExpandedSQL != nil {
		ev.ExpandedSQL = string(e.ExpandedSQL)
	}
	t.fn(ev)
}

// Trace sets fn to be called for the events of c in mask (TraceStmt, TraceProfile, TraceRow,
// TraceClose, and the flag TraceExpanded), over sqlite3_trace_v2. fn runs on the goroutine
// running the statement (on the library's worker for the rows a fetch-ahead steps), and must
// not use c. nil, or a mask without an event, removes it; setting it replaces the one before.
//
// A panic in fn is recovered and the call returns a *HookPanicError: a panic at TraceStmt or
// TraceRow interrupts the statement (and vetoes its commit where an update or preupdate
// hook's guard is set), one at TraceProfile is reported by the call that ran the statement,
// and one at TraceClose by Close.
func (c *Conn) Trace(mask TraceMask, fn func(TraceEvent)) error {
	events := mask &^ TraceExpanded
	if fn == nil || events == 0 {
		return c.setHook(c.h.SetTrace(0, nil))
	}
	return c.setHook(c.h.SetTrace(uint32(mask), &tracer{c: c, fn: fn}))
}
