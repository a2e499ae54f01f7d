package driver

// The API of mattn/go-sqlite3 that the driver keeps, so that code written for it ports by
// changing the import path and the driver name: its type names (SQLiteConn, SQLiteDriver,
// SQLiteBackup, SQLitePreUpdateData), its constants (SQLITE_*, Trace*), and SQLiteConn's
// methods (RegisterFunc, RegisterAggregator, RegisterCollation, the Register*Hook methods
// and RegisterAuthorizer, SetTrace, GetLimit, SetLimit, GetFilename, Serialize, Deserialize,
// Backup), each with mattn's signature and behaviour. Where the behaviour differs, the
// method's comment says how and why, and the package documentation lists every difference.
// The conversions behind RegisterFunc and RegisterAggregator are in function.go and
// function_fast.go; those behind SQLitePreUpdateData's Old and New are in assign.go.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// mattn's names for the driver's types.

// SQLiteConn is Conn under mattn/go-sqlite3's name, so that a ConnectHook written for mattn
// (func(*sqlite3.SQLiteConn) error) ports by changing the package.
type SQLiteConn = Conn

// SQLiteDriver is Driver under mattn/go-sqlite3's name.
type SQLiteDriver = Driver

// SQLiteBackup is Backup under mattn/go-sqlite3's name, so that code written for mattn's
// backup ports by changing the package.
type SQLiteBackup = Backup

// mattn's constants, with SQLite's values.

// Run-time limit categories, with mattn/go-sqlite3's names and SQLite's values, for
// Conn.GetLimit and Conn.SetLimit (https://sqlite.org/c3ref/c_limit_attached.html).
const (
	SQLITE_LIMIT_LENGTH              = int(sqlbatch.LimitLength)
	SQLITE_LIMIT_SQL_LENGTH          = int(sqlbatch.LimitSQLLength)
	SQLITE_LIMIT_COLUMN              = int(sqlbatch.LimitColumn)
	SQLITE_LIMIT_EXPR_DEPTH          = int(sqlbatch.LimitExprDepth)
	SQLITE_LIMIT_COMPOUND_SELECT     = int(sqlbatch.LimitCompoundSelect)
	SQLITE_LIMIT_VDBE_OP             = int(sqlbatch.LimitVDBEOp)
	SQLITE_LIMIT_FUNCTION_ARG        = int(sqlbatch.LimitFunctionArg)
	SQLITE_LIMIT_ATTACHED            = int(sqlbatch.LimitAttached)
	SQLITE_LIMIT_LIKE_PATTERN_LENGTH = int(sqlbatch.LimitLikePatternLength)
	SQLITE_LIMIT_VARIABLE_NUMBER     = int(sqlbatch.LimitVariableNumber)
	SQLITE_LIMIT_TRIGGER_DEPTH       = int(sqlbatch.LimitTriggerDepth)
	SQLITE_LIMIT_WORKER_THREADS      = int(sqlbatch.LimitWorkerThreads)
)

// Update operations and authorizer results and actions, with mattn/go-sqlite3's names and
// SQLite's values, for RegisterUpdateHook and RegisterAuthorizer.
const (
	SQLITE_DELETE = sqlbatch.OpDelete
	SQLITE_INSERT = sqlbatch.OpInsert
	SQLITE_UPDATE = sqlbatch.OpUpdate

	SQLITE_OK     = sqlbatch.AuthOK
	SQLITE_IGNORE = sqlbatch.AuthIgnore
	SQLITE_DENY   = sqlbatch.AuthDeny

	SQLITE_CREATE_INDEX        = sqlbatch.ActionCreateIndex
	SQLITE_CREATE_TABLE        = sqlbatch.ActionCreateTable
	SQLITE_CREATE_TEMP_INDEX   = sqlbatch.ActionCreateTempIndex
	SQLITE_CREATE_TEMP_TABLE   = sqlbatch.ActionCreateTempTable
	SQLITE_CREATE_TEMP_TRIGGER = sqlbatch.ActionCreateTempTrigger
	SQLITE_CREATE_TEMP_VIEW    = sqlbatch.ActionCreateTempView
	SQLITE_CREATE_TRIGGER      = sqlbatch.ActionCreateTrigger
	SQLITE_CREATE_VIEW         = sqlbatch.ActionCreateView
	SQLITE_CREATE_VTABLE       = sqlbatch.ActionCreateVTable
	SQLITE_DROP_INDEX          = sqlbatch.ActionDropIndex
	SQLITE_DROP_TABLE          = sqlbatch.ActionDropTable
	SQLITE_DROP_TEMP_INDEX     = sqlbatch.ActionDropTempIndex
	SQLITE_DROP_TEMP_TABLE     = sqlbatch.ActionDropTempTable
	SQLITE_DROP_TEMP_TRIGGER   = sqlbatch.ActionDropTempTrigger
	SQLITE_DROP_TEMP_VIEW      = sqlbatch.ActionDropTempView
	SQLITE_DROP_TRIGGER        = sqlbatch.ActionDropTrigger
	SQLITE_DROP_VIEW           = sqlbatch.ActionDropView
	SQLITE_DROP_VTABLE         = sqlbatch.ActionDropVTable
	SQLITE_PRAGMA              = sqlbatch.ActionPragma
	SQLITE_READ                = sqlbatch.ActionRead
	SQLITE_SELECT              = sqlbatch.ActionSelect
	SQLITE_TRANSACTION         = sqlbatch.ActionTransaction
	SQLITE_ATTACH              = sqlbatch.ActionAttach
	SQLITE_DETACH              = sqlbatch.ActionDetach
	SQLITE_ALTER_TABLE         = sqlbatch.ActionAlterTable
	SQLITE_REINDEX             = sqlbatch.ActionReindex
	SQLITE_ANALYZE             = sqlbatch.ActionAnalyze
	SQLITE_FUNCTION            = sqlbatch.ActionFunction
	SQLITE_SAVEPOINT           = sqlbatch.ActionSavepoint
	SQLITE_COPY                = sqlbatch.ActionCopy
	SQLITE_RECURSIVE           = sqlbatch.ActionRecursive
)

// Trace events, with mattn/go-sqlite3's names (its sqlite_trace tag) and SQLite's values
// (SQLITE_TRACE_*), for TraceConfig.EventMask and TraceInfo.EventCode.
const (
	TraceStmt    = uint32(sqlbatch.TraceStmt)
	TraceProfile = uint32(sqlbatch.TraceProfile)
	TraceRow     = uint32(sqlbatch.TraceRow)
	TraceClose   = uint32(sqlbatch.TraceClose)
)

// SQL functions in Go: RegisterFunc, RegisterAggregator, RegisterCollation.

// aggregateBatchRows is how many rows of a group RegisterAggregator's Step calls take in one
// crossing from C to Go: Step is still called once per row, in SQLite's order.
const aggregateBatchRows = 256

// RegisterFunc makes the Go function impl available as the SQL function name on this
// connection, as mattn/go-sqlite3's SQLiteConn.RegisterFunc does. Usually called from the
// driver's ConnectHook, so that every connection of the pool has it; or through
// sql.Conn.Raw for one connection.
//
// impl's arguments may be int, int8..int64, uint, uint8..uint64 (from INTEGER), float32 or
// float64 (INTEGER or REAL), bool (INTEGER, non-zero), string or []byte (TEXT or BLOB), or
// any (int64, float64, string or []byte as the value is, and NULL as a nil []byte, as
// mattn passes it); an argument of another SQL type fails the call (mattn also refuses an
// INTEGER for a float parameter; sqlbatch converts it). A variadic impl takes any number of
// arguments from its fixed ones on. impl returns one of those types (a nil or empty []byte
// is NULL, as with mattn; an any result may hold any of them or nil), or it and an error; a
// non-nil error fails the statement with its message, and so does a panic. pure marks the
// function deterministic, so that SQLite may factor calls out and use it in indexes.
func (c *Conn) RegisterFunc(name string, impl any, pure bool) error {
	if impl == nil {
		return errors.New("sqlbatch: RegisterFunc: impl is not a function")
	}
	fn := reflect.ValueOf(impl)
	t := fn.Type()
	if t.Kind() != reflect.Func {
		return errors.New("sqlbatch: RegisterFunc: impl is not a function")
	}
	args, variadic, err := argConverters(t)
	if err != nil {
		return err
	}
	ret, err := resultConverter(t)
	if err != nil {
		return err
	}
	nArgs := len(args)
	if variadic {
		nArgs = -1
	}
	var flags sqlbatch.FunctionFlags
	if pure {
		flags = sqlbatch.Deterministic
	}
	if fast, ok := fastScalar(impl); ok && !reflectOnly {
		return c.c.CreateFunction(name, nArgs, flags, fast)
	}
	var in []reflect.Value
	return c.c.CreateFunction(name, nArgs, flags, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		var err error
		in, err = convertArgs(in[:0], a, args, variadic)
		if err != nil {
			ctx.SetError(err)
			return
		}
		ret(ctx, fn.Call(in))
	})
}

// RegisterAggregator makes the Go aggregator impl available as the SQL aggregate name on
// this connection, as mattn/go-sqlite3's SQLiteConn.RegisterAggregator does: impl is a
// function of no arguments returning a new aggregator (a pointer to a struct, usually),
// which has a Step method (its arguments as for RegisterFunc, returning nothing or an
// error) and a Done method (no arguments, returning a value and optionally an error).
// Each group of rows gets its own aggregator.
//
// Unlike mattn, rows reach Go in batches of up to 256 rows per crossing from C (Step is
// still called once per row, in order), so an error returned by Step is reported once the
// batch is handed over.
func (c *Conn) RegisterAggregator(name string, impl any, pure bool) error {
	ctor := reflect.ValueOf(impl)
	t := ctor.Type()
	if t.Kind() != reflect.Func || t.NumIn() != 0 || t.NumOut() != 1 {
		return errors.New("sqlbatch: RegisterAggregator: impl must be a function of no arguments returning one value")
	}
	agg := t.Out(0)
	step, ok := agg.MethodByName("Step")
	if !ok {
		return fmt.Errorf("sqlbatch: RegisterAggregator: %s has no Step method", agg)
	}
	done, ok := agg.MethodByName("Done")
	if !ok {
		return fmt.Errorf("sqlbatch: RegisterAggregator: %s has no Done method", agg)
	}
	// Method types from the type include the receiver as the first argument.
	stepT, doneT := step.Type, done.Type
	if agg.Kind() != reflect.Interface {
		stepT, doneT = dropReceiver(stepT), dropReceiver(doneT)
	}
	args, variadic, err := argConverters(stepT)
	if err != nil {
		return err
	}
	switch {
	case stepT.NumOut() > 1, stepT.NumOut() == 1 && stepT.Out(0) != errorType:
		return errors.New("sqlbatch: RegisterAggregator: Step must return nothing or an error")
	}
	if doneT.NumIn() != 0 {
		return errors.New("sqlbatch: RegisterAggregator: Done must take no arguments")
	}
	ret, err := resultConverter(doneT)
	if err != nil {
		return err
	}
	nArgs := len(args)
	if variadic {
		nArgs = -1
	}
	var flags sqlbatch.FunctionFlags
	if pure {
		flags = sqlbatch.Deterministic
	}
	tryFast := !reflectOnly
	return c.c.CreateAggregate(name, nArgs, sqlbatch.AggregateOptions{Flags: flags, BatchRows: aggregateBatchRows},
		func() sqlbatch.AggregateGroup {
			return &reflectGroup{ctor: ctor, args: args, variadic: variadic, ret: ret, tryFast: tryFast}
		})
}

// RegisterCollation makes cmp available as the collation name on this connection (COLLATE
// name), as mattn/go-sqlite3's SQLiteConn.RegisterCollation does. cmp returns a negative
// number, 0 or a positive number, and must be a total order.
func (c *Conn) RegisterCollation(name string, cmp func(string, string) int) error {
	if cmp == nil {
		return errors.New("sqlbatch: RegisterCollation: nil comparison")
	}
	// The low-level strings are views of C memory, valid during the call; cmp may keep its
	// arguments (nothing in mattn's API forbids it), so it gets copies.
	return c.c.CreateCollation(name, func(a, b string) int {
		return cmp(strings.Clone(a), strings.Clone(b))
	})
}

// Hooks: RegisterUpdateHook, RegisterCommitHook, RegisterRollbackHook, RegisterAuthorizer,
// RegisterPreUpdateHook (and SQLitePreUpdateData).

// The Register* methods have mattn/go-sqlite3's signatures and, like mattn's, report
// nothing: they do nothing once the connection is closed, and nothing when called from
// inside a hook (where the low-level methods of Raw() return ErrInvalidArgument). Each
// replaces the hook set before; nil removes it. A hook stays with the connection when
// database/sql takes it back into the pool (as with mattn's): set hooks on every connection
// with Config.ConnectHook, or remove them before the sql.Conn is closed. A panic in a hook
// fails the statement with a *sqlbatch.HookPanicError instead of crashing the program.

// RegisterUpdateHook sets the update hook of the connection, as mattn/go-sqlite3's: callback
// gets the operation (SQLITE_INSERT, SQLITE_DELETE or SQLITE_UPDATE), the database, the
// table and the rowid of each row changed, in order; the names are interned, so an event
// allocates nothing. It is sqlbatch.Conn.UpdateHook: the events cross from C in batches, but
// reach callback before any other callback of the connection runs and before the statement's
// call returns, so nothing but timing can tell it from mattn's call per event. For the events
// in batches per transaction, use Raw().ChangeFeed.
func (c *Conn) RegisterUpdateHook(callback func(int, string, string, int64)) {
	_ = c.c.UpdateHook(callback)
}

// RegisterCommitHook sets the commit hook of the connection, as mattn/go-sqlite3's: a
// non-zero result of callback turns the commit into a rollback (the statement fails with
// sqlbatch.ErrConstraintCommitHook).
func (c *Conn) RegisterCommitHook(callback func() int) { _ = c.c.CommitHook(callback) }

// RegisterRollbackHook sets the rollback hook of the connection, as mattn/go-sqlite3's.
func (c *Conn) RegisterRollbackHook(callback func()) { _ = c.c.RollbackHook(callback) }

// RegisterAuthorizer sets the authorizer of the connection, as mattn/go-sqlite3's: callback
// gets the action (SQLITE_READ, SQLITE_INSERT, ...) and up to three strings (the last is the
// database; "" where SQLite passes none) and returns SQLITE_OK, SQLITE_DENY or SQLITE_IGNORE.
// Statements prepared before keep their verdicts, and the driver keeps recently used
// statements prepared (Config's statement cache): set the authorizer in ConnectHook, before
// any statement runs, or turn the cache off, for it to see every statement.
func (c *Conn) RegisterAuthorizer(callback func(int, string, string, string) int) {
	if callback == nil {
		_ = c.c.Authorizer(nil)
		return
	}
	_ = c.c.Authorizer(func(action int, arg1, arg2, schema, _ string) int {
		return callback(action, arg1, arg2, schema)
	})
}

// RegisterPreUpdateHook sets the preupdate hook of the connection, as mattn/go-sqlite3's
// (sqlite3_preupdate_hook): callback is called before every row is inserted, updated or
// deleted, WITHOUT ROWID tables and the changes of triggers included, with both rows
// decoded (see SQLitePreUpdateData). nil removes it. Like the other Register* methods it
// reports nothing: it does nothing once the connection is closed, from inside a hook, or
// while a session lives on the connection (SQLite's one preupdate slot; Raw().PreUpdateHook
// returns the error, ErrMisuse). A panic in callback fails the statement with a
// *sqlbatch.HookPanicError. Raw().PreUpdateHookRows chooses which rows to decode.
func (c *Conn) RegisterPreUpdateHook(callback func(SQLitePreUpdateData)) {
	if callback == nil {
		_ = c.c.PreUpdateHook(nil)
		return
	}
	_ = c.c.PreUpdateHook(func(p sqlbatch.PreUpdate) {
		callback(SQLitePreUpdateData{
			Conn:         c,
			Op:           p.Op,
			DatabaseName: p.Schema,
			TableName:    p.Table,
			OldRowID:     p.OldRowID,
			NewRowID:     p.NewRowID,
			depth:        p.Depth,
			count:        p.Columns,
			old:          p.Old,
			new:          p.New,
		})
	})
}

// SQLitePreUpdateData is one row about to change, as mattn/go-sqlite3's preupdate hook
// (built with its sqlite_preupdate_hook tag) hands it over: the same fields, and Depth, Count,
// Old and New. Unlike mattn's, whose methods ask SQLite and work only during the callback, it
// holds copies of both rows: it may be kept, and its methods used, after the hook returns.
type SQLitePreUpdateData struct {
	// Conn is the connection the change is made on. It must not be used during the
	// callback (SQLite's rule).
	Conn *SQLiteConn
	// Op is SQLITE_INSERT, SQLITE_DELETE or SQLITE_UPDATE.
	Op int
	// DatabaseName is "main", "temp" or an attached name.
	DatabaseName string
	// TableName is the table's name.
	TableName string
	// OldRowID is the rowid before the change (DELETE, UPDATE), NewRowID after it (INSERT,
	// UPDATE).
	OldRowID int64
	NewRowID int64

	depth, count int
	old, new     []any
}

// Depth returns 0 for a change the statement makes itself, 1 for one a trigger it fired
// makes, and so on (sqlite3_preupdate_depth).
func (d *SQLitePreUpdateData) Depth() int { return d.depth }

// Count returns the number of columns of the row (sqlite3_preupdate_count).
func (d *SQLitePreUpdateData) Count() int { return d.count }

// Old fills dest with the row before the change (there is none for an INSERT: an error), up
// to len(dest) or Count() columns. As with mattn's, an element of dest that is not a pointer
// (nil, or a value) is replaced by the column's value: int64, float64, []byte for TEXT and
// BLOB, nil for NULL (so ported code reading a []any back sees what it saw with mattn). An
// element that is a pointer is scanned into, as database/sql's Rows.Scan would (mattn replaces
// the pointer in dest instead, which leaves the variable unchanged): *string, *[]byte, *int,
// *int64 and the other integer kinds, *float64, *float32, *bool, *time.Time (text in
// sqlbatch.TimeFormats, or Unix seconds or milliseconds), *any, sql.Scanner, and pointers
// to pointers of those (nil for NULL).
func (d *SQLitePreUpdateData) Old(dest ...any) error {
	if d.Op == SQLITE_INSERT {
		return errors.New("There is no old row for INSERT operations") // mattn's text
	}
	return fillRow(dest, d.old)
}

// New fills dest with the row after the change (there is none for a DELETE: an error), as
// Old does. A write through a blob handle (sqlbatch.BlobHandle, driver.Blob) is reported as
// a DELETE, as SQLite reports it.
func (d *SQLitePreUpdateData) New(dest ...any) error {
	if d.Op == SQLITE_DELETE {
		return errors.New("There is no new row for DELETE operations") // mattn's text
	}
	return fillRow(dest, d.new)
}

func fillRow(dest, row []any) error {
	for i := 0; i < len(row) && i < len(dest); i++ {
		if err := fillOne(&dest[i], row[i]); err != nil {
			return fmt.Errorf("sqlbatch: preupdate column %d: %w", i, err)
		}
	}
	return nil
}

// mattnValue is v as mattn's preupdate hook gives it: TEXT as []byte (a copy each time).
func mattnValue(v any) any {
	switch v := v.(type) {
	case string:
		return []byte(v)
	case []byte:
		return bytes.Clone(v)
	}
	return v
}

func fillOne(slot *any, v any) error {
	rv := reflect.ValueOf(*slot)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer {
		*slot = mattnValue(v) // mattn's convertAssign(&dest[i], src)
		return nil
	}
	if rv.IsNil() {
		return errors.New("destination pointer is nil")
	}
	return assign(*slot, rv, v)
}

// Tracing: SetTrace.

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

// Limits, the file name, serialization: GetLimit, SetLimit, GetFilename, Serialize,
// Deserialize.

// GetLimit returns the current value of the run-time limit id (sqlite3_limit), or -1 once
// the connection is closed or for an unknown id, as mattn/go-sqlite3's GetLimit.
func (c *Conn) GetLimit(id int) int {
	v, err := c.c.Limit(sqlbatch.LimitID(id), -1)
	if err != nil {
		return -1
	}
	return v
}

// SetLimit sets the run-time limit id to newVal (a negative newVal changes nothing) and
// returns its value before the call, or -1 once the connection is closed or for an unknown
// id, as mattn/go-sqlite3's SetLimit. SQLite lowers a value above the compile-time maximum
// to that maximum.
func (c *Conn) SetLimit(id int, newVal int) int {
	v, err := c.c.Limit(sqlbatch.LimitID(id), newVal)
	if err != nil {
		return -1
	}
	return v
}

// GetFilename returns the absolute path of the file behind database schemaName ("" is
// "main"), or "" for an in-memory or temporary database, an unknown schema, or once the
// connection is closed, as mattn/go-sqlite3's GetFilename.
func (c *Conn) GetFilename(schemaName string) string {
	f, _ := c.c.Filename(schemaName)
	return f
}

// Serialize returns the database schema ("" is "main") as the bytes its file would hold,
// as mattn/go-sqlite3's Serialize (https://sqlite.org/c3ref/serialize.html). A database of
// no pages gives an empty slice, where mattn's reports an error.
func (c *Conn) Serialize(schema string) ([]byte, error) { return c.c.Serialize(schema) }

// Deserialize replaces the database schema ("" is "main") with the database in b, as an
// in-memory database, as mattn/go-sqlite3's Deserialize: the library copies b. One
// difference: the database may grow (SQLITE_DESERIALIZE_RESIZEABLE), where mattn's gives
// "database or disk is full" once a write needs a page past b's size. For a read-only
// database, or mattn's fixed size, use Raw().Deserialize with its flags. Bytes that are not
// a database make later statements fail with ErrNotADB or ErrCorrupt, never crash.
func (c *Conn) Deserialize(b []byte, schema string) error {
	return c.c.Deserialize(b, schema, sqlbatch.DeserializeResizeable)
}

// Online backup: Backup, and SQLiteBackup's methods.

// Backup is an online backup made by Conn.Backup, with mattn/go-sqlite3's SQLiteBackup
// methods and semantics; see sqlbatch.Backup for the rules it follows (the destination
// refuses every other call with ErrBusy until the backup is finished).
type Backup struct{ b *sqlbatch.Backup }

// Backup starts copying database src of srcConn over database dest of c, as
// mattn/go-sqlite3's SQLiteConn.Backup: c is the destination, "" is "main". Both
// connections come from sql.Conn.Raw (nest the two callbacks) and the backup must be
// finished before either callback returns; a connection given back to the pool with an
// unfinished backup is closed by the pool instead of reused (which also ends the backup).
func (c *Conn) Backup(dest string, srcConn *Conn, src string) (*Backup, error) {
	var sc *sqlbatch.Conn
	if srcConn != nil {
		sc = srcConn.c
	}
	b, err := c.c.Backup(dest, sc, src)
	if err != nil {
		return nil, err
	}
	return &Backup{b}, nil
}

// Step copies up to p pages (all that remain when p < 0) and reports whether the copy is
// complete. As in mattn/go-sqlite3, a busy or locked database (another connection holds a
// lock) is not an error: Step returns false, nil, and copies on the next call. To see
// those, use Raw's step.
func (b *Backup) Step(p int) (bool, error) {
	done, err := b.b.Step(p)
	if err != nil {
		if e, ok := err.(*sqlbatch.Error); ok && e.Temporary() {
			return false, nil
		}
	}
	return done, err
}

// Remaining returns the number of pages still to copy, as of the last Step.
func (b *Backup) Remaining() int { return b.b.Remaining() }

// PageCount returns the number of pages of the source database, as of the last Step.
func (b *Backup) PageCount() int { return b.b.PageCount() }

// Finish ends the backup, complete or not, and releases it; see Close.
func (b *Backup) Finish() error { return b.b.Finish() }

// Close ends the backup and returns the error that ended it, if one did; closing twice is
// a no-op. There is no finalizer (mattn's has one): finish every backup.
func (b *Backup) Close() error { return b.b.Close() }

// Raw returns the low-level backup, whose Step reports ErrBusy and ErrLocked.
func (b *Backup) Raw() *sqlbatch.Backup { return b.b }
