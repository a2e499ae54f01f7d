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
	// TraceExpanded is a flag, not an event: TraceStmt events carry the SQL with the bound
	// parameters' values in place (sqlite3_expanded_sql) instead of the SQL as written.
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
	// SQL is the statement's text: for TraceStmt as it starts (expanded with TraceExpanded;
	// for a trigger "-- TRIGGER name", then "-- " and each of its statements), for
	// TraceProfile and TraceRow as it was prepared; "" for TraceClose. The texts of
	// TraceProfile and TraceRow events (and of TraceStmt without TraceExpanded) are
	// interned: the same statement gives the same string, and an event allocates nothing.
	SQL string
	// Duration is, for TraceProfile, how long the statement ran (SQLite's clock has
	// millisecond resolution: fast statements show 0); 0 otherwise.
	Duration time.Duration
}

type tracer struct {
	c        *Conn
	fn       func(TraceEvent)
	expanded bool
	sqls     names
}

func (t *tracer) Trace(event uint32, sql []byte, ns int64) {
	t.c.inHook++
	// A panic while a statement runs stops it, as an update hook's does; a profile event
	// comes once the statement is over, a close event at Close: nothing left to stop.
	stop := event == capi.TraceStmt || event == capi.TraceRow
	defer func() { t.c.hookDone(recover(), "trace callback", stop) }()
	var s string
	if event == capi.TraceStmt && t.expanded {
		s = string(sql)
	} else {
		s = t.sqls.get(sql)
	}
	t.fn(TraceEvent{Event: TraceMask(event), SQL: s, Duration: time.Duration(ns)})
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
	return c.setHook(c.h.SetTrace(uint32(mask), &tracer{c: c, fn: fn, expanded: mask&TraceExpanded != 0}))
}
