package driver

import (
	"unsafe"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Trace events, with mattn/go-sqlite3's names (its sqlite_trace tag) and SQLite's values
// (SQLITE_TRACE_*), for TraceConfig.EventMask and TraceInfo.EventCode.
const (
	TraceStmt    = uint32(sqlbatch.TraceStmt)
	TraceProfile = uint32(sqlbatch.TraceProfile)
	TraceRow     = uint32(sqlbatch.TraceRow)
	TraceClose   = uint32(sqlbatch.TraceClose)
)

// TraceInfo is one trace event, with mattn/go-sqlite3's fields and their meaning, but for
// DBError, which is always the zero Error: mattn samples the connection's last error code at
// each profile event, which is not the statement's (SQLite's connection records 100, "another
// row available", after a query's rows, and 0 after an insert that failed its CHECK); the
// statement's own call returns its error, here as with mattn.
type TraceInfo struct {
	// EventCode is TraceStmt, TraceProfile, TraceRow or TraceClose.
	EventCode uint32
	// AutoCommit is whether the connection was in autocommit mode (no transaction open) at
	// the event: for TraceProfile, after the statement.
	AutoCommit bool
	// ConnHandle identifies the connection: the address of its *SQLiteConn (mattn: of its
	// sqlite3 handle).
	ConnHandle uintptr

	// StmtHandle identifies the statement (SQLite's address for it, as with mattn); 0 for
	// TraceClose.
	StmtHandle uintptr

	// StmtOrTrigger is, for TraceStmt, the statement's SQL as written, or "-- TRIGGER name"
	// (then "-- " and each of its statements) for a trigger program; for TraceProfile and
	// TraceRow (mattn: ""), the statement's SQL as it was prepared.
	StmtOrTrigger string
	// ExpandedSQL is, for TraceStmt with TraceConfig.WantExpandedSQL, the SQL with the
	// bound values in place of the parameters.
	ExpandedSQL string

	// RunTimeNanosec is, for TraceProfile, how long the statement ran (SQLite's clock has
	// millisecond resolution: fast statements show 0).
	RunTimeNanosec int64

	// DBError is always the zero Error (see TraceInfo).
	DBError sqlbatch.Error
}

// TraceUserCallback is a trace callback, as mattn/go-sqlite3's: its result is ignored (return
// 0, SQLite's advice).
type TraceUserCallback func(TraceInfo) int

// TraceConfig configures SetTrace, as mattn/go-sqlite3's: the callback, the events it wants
// (TraceStmt | TraceProfile | TraceRow | TraceClose) and whether TraceStmt events carry the
// SQL with its parameters' values (WantExpandedSQL).
type TraceConfig struct {
	Callback        TraceUserCallback
	EventMask       uint32
	WantExpandedSQL bool
}

// SetTrace installs the trace callback of the connection, or removes it (nil, or no event in
// EventMask, or no Callback), as mattn/go-sqlite3's (sqlite3_trace_v2): a second call
// replaces the first. The callback runs on the goroutine running the statement (the
// library's worker for the rows a fetch-ahead steps) and must not use the connection; a
// panic in it is reported as a *sqlbatch.HookPanicError by the call it happened in (see
// sqlbatch.Conn.Trace). Unlike the Register* methods it returns an error (ErrInvalidArgument
// from inside a hook, ErrClosed after Close), as mattn's does.
func (c *Conn) SetTrace(requested *TraceConfig) error {
	if requested == nil || requested.Callback == nil || requested.EventMask == 0 {
		return c.c.Trace(0, nil)
	}
	cfg := *requested
	mask := sqlbatch.TraceMask(cfg.EventMask)
	if cfg.WantExpandedSQL && mask&sqlbatch.TraceStmt != 0 {
		mask |= sqlbatch.TraceExpanded
	}
	handle := uintptr(unsafe.Pointer(c))
	return c.c.Trace(mask, func(e sqlbatch.TraceEvent) {
		cfg.Callback(TraceInfo{
			EventCode:      uint32(e.Event),
			AutoCommit:     e.AutoCommit,
			ConnHandle:     handle,
			StmtHandle:     e.Stmt,
			StmtOrTrigger:  e.SQL,
			ExpandedSQL:    e.ExpandedSQL,
			RunTimeNanosec: int64(e.Duration),
		})
	})
}
