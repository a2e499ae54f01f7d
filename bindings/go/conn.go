package sqlbatch

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// OpenFlags are the flags of OpenFlags, with SQLite's values (SQLITE_OPEN_*).
type OpenFlags uint32

// Open flags. With neither OpenReadOnly nor OpenReadWrite, OpenReadWrite|OpenCreate is used.
const (
	OpenReadOnly     OpenFlags = capi.OpenReadOnly     // open read-only
	OpenReadWrite    OpenFlags = capi.OpenReadWrite    // open for reading and writing
	OpenCreate       OpenFlags = capi.OpenCreate       // create the file if missing (with OpenReadWrite)
	OpenURI          OpenFlags = capi.OpenURI          // the path is a "file:" URI
	OpenMemory       OpenFlags = capi.OpenMemory       // a private in-memory database
	OpenFullMutex    OpenFlags = capi.OpenFullMutex    // keep SQLite's per-connection mutex
	OpenSharedCache  OpenFlags = capi.OpenSharedCache  // enable shared-cache mode
	OpenPrivateCache OpenFlags = capi.OpenPrivateCache // disable shared-cache mode
	OpenNoFollow     OpenFlags = capi.OpenNoFollow     // refuse a path that is a symbolic link
	// OpenFetchAhead makes every read-only statement of the connection fetch ahead (see
	// Stmt.SetFetchAhead, which turns it off or on per statement): sqlbatch's own flag
	// (SQLBATCH_OPEN_FETCH_AHEAD), not SQLite's.
	OpenFetchAhead OpenFlags = capi.OpenFetchAhead
	// OpenUntrusted opens a file that may come from anyone (a download, a user's document)
	// with SQLite's defenses for untrusted databases: defensive mode, the schema not
	// trusted, cell_size_check on, no memory-mapped reads; and it checks the file first
	// (PRAGMA quick_check: it reads the whole file once), failing with ErrCorrupt or
	// ErrNotADB when the file is not sound. sqlbatch's own flag (SQLBATCH_OPEN_UNTRUSTED).
	OpenUntrusted OpenFlags = capi.OpenUntrusted
)

// PrepareFlags are the flags of Conn.PrepareTail.
type PrepareFlags uint32

// Prepare flags.
const (
	// PreparePersistent tells SQLite that the statement will be kept and reused many times.
	PreparePersistent PrepareFlags = capi.PreparePersistent
	// PrepareSingle refuses SQL holding more than one statement with ErrMultipleStatements
	// (whitespace, comments and lone semicolons may follow the statement): the check of
	// Conn.Prepare, done by sqlbatch (SQLBATCH_PREPARE_SINGLE).
	PrepareSingle PrepareFlags = capi.PrepareSingle
)

// Conn is a database connection.
//
// A Conn, and the statements and rows made from it, must be used by one goroutine at a time
// (database/sql's pool, or a mutex of yours, serializes them); only Interrupt may be called
// from another goroutine at any time. Close it when done: there is no finalizer.
type Conn struct {
	h capi.Conn
	// imu orders Interrupt against Close, so that an interrupt never reaches a freed handle.
	imu     sync.Mutex
	closed  bool
	scratch Params // argument encoding for the ...any methods
	box     boxer  // boxes row values for Rows.Values (see box.go)
	// backups counts the unfinished backups that use c, as source or destination.
	backups atomic.Int32
	// hookPanic is the panic of a hook not yet reported (hooks.go); hooks run on the
	// goroutine that is using c.
	hookPanic *HookPanicError
	panicVeto bool // set when that panic should veto the statement's commit
	// inHook counts the hooks of c running now (hooks.go: hookDone); Close refuses while
	// it is above 0.
	inHook int32
	// inFunc counts the SQL functions and collations of c running now (function.go); Close
	// refuses while it is above 0 too: closing would finalize the statement that calls them.
	inFunc int32
	// The hooks that decide what the commit slot holds (hooks.go: installCommit).
	userCommit                       func() int
	updateSet, feedSet, preUpdateSet bool
	// aheadFlag is OpenFetchAhead; worker is set once c may have handed work to the
	// library's worker thread (a statement that fetches ahead, a write-behind), whose
	// callbacks (functions, progress and busy handlers, hooks) can then run on that thread
	// while this goroutine runs Go code: see Close.
	aheadFlag bool
	worker    bool
}

// Open opens the database file path for reading and writing, creating it if needed.
// ":memory:" opens a private in-memory database and "" a private temporary file.
func Open(path string) (*Conn, error) { return OpenWithFlags(path, 0) }

// OpenWithFlags opens a database with explicit flags (see OpenFlags); with OpenURI, path is
// a "file:" URI such as "file:data.db?mode=ro".
//
// The connection is opened without SQLite's per-call mutex (see "Thread model" in the
// package documentation) unless OpenFullMutex is given, and reports extended result codes.
func OpenWithFlags(path string, flags OpenFlags) (*Conn, error) {
	h, rc := capi.Open(path, uint32(flags))
	if rc != capi.OK {
		err := lastError(h, rc, "")
		h.Close()
		return nil, err
	}
	ahead := flags&OpenFetchAhead != 0
	return &Conn{h: h, aheadFlag: ahead, worker: ahead}, nil
}

// Close closes the connection. Statements prepared on it stop working (their methods return
// ErrClosed) but must still be closed, and so must its sessions (Session.Delete; the
// connection ends their recording). Closing twice is a no-op. Called from inside one of c's
// hooks (the WAL hook included), it returns ErrMisuse and the connection stays open. A hook
// panic not yet reported, or one during the close (a trace callback's TraceClose event), is
// returned as a *HookPanicError; the connection is closed all the same.
func (c *Conn) Close() error {
	if c.worker && !c.closed {
		// The worker may be running a hook of c (inHook counts it) for a batch stepped
		// ahead: any call on the connection waits for it to finish, and the worker takes
		// no new work until this goroutine asks. Outside imu, so that a hook calling
		// Interrupt meanwhile does not wait for this call. (Called from a hook on the
		// worker, the call does not wait for itself.)
		c.h.Autocommit()
	}
	c.imu.Lock()
	defer c.imu.Unlock()
	if c.closed {
		return nil
	}
	if c.inHook > 0 || c.inFunc > 0 {
		return errCloseInHook
	}
	c.closed = true
	c.h.Close()
	c.h = capi.Conn{}
	return c.takePanic(nil)
}

// Interrupt makes the SQL running on c stop as soon as possible with ErrInterrupt (a query,
// a script or a bulk write). It may be called from any goroutine at any time, also after
// Close. Calls that start after the interrupted ones have finished are not affected.
//
// SQLite forgets an interrupt that arrives while no statement is running, and a script
// (ExecScript) or a bulk write (ExecMany) has such moments between its statements or rows:
// to stop one of those for sure, call Interrupt repeatedly until the call returns, as the
// database/sql driver does for a cancelled context.
func (c *Conn) Interrupt() {
	c.imu.Lock()
	if !c.closed {
		c.h.Interrupt()
	}
	c.imu.Unlock()
}

var errCloseInHook = errorf(ErrMisuse, "sqlbatch: Conn.Close called from inside a hook or SQL function of the connection (its statement is still running): close it after the call that ran it returns")

func (c *Conn) err(rc int32, query string) error {
	if c.closed {
		return c.takePanic(codeError(capi.EClosed, query))
	}
	if c.hookPanic != nil {
		return c.takePanic(lastError(c.h, rc, query))
	}
	return lastError(c.h, rc, query)
}

// SetBusyTimeout makes SQLite retry for up to d when the database is locked by another
// connection, instead of failing at once with ErrBusy; d <= 0 turns retrying off.
func (c *Conn) SetBusyTimeout(d time.Duration) error {
	ms := d.Milliseconds()
	if ms > math.MaxInt32 {
		ms = math.MaxInt32
	}
	if rc := c.h.BusyTimeout(int32(ms)); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// Changes returns the number of rows changed by the most recent INSERT, UPDATE or DELETE.
func (c *Conn) Changes() int64 { n, _ := c.h.Changes(); return n }

// TotalChanges returns the number of rows changed since the connection was opened.
func (c *Conn) TotalChanges() int64 { n, _ := c.h.TotalChanges(); return n }

// LastInsertRowID returns the rowid of the most recent successful INSERT into a rowid table.
func (c *Conn) LastInsertRowID() int64 { n, _ := c.h.LastInsertRowID(); return n }

// Autocommit reports whether c is outside any transaction opened with BEGIN.
func (c *Conn) Autocommit() bool { b, _ := c.h.Autocommit(); return b }

// ExecResult says what Conn.ExecScript did.
type ExecResult struct {
	// Statements is the number of statements that ran to completion.
	Statements int
	// ParamsUsed is the number of parameters bound (a named value counts each time it is used).
	ParamsUsed int
	// Changes is the number of rows inserted, updated or deleted by those statements, summed.
	Changes int64
	// LastInsertRowID is the rowid of the most recent successful INSERT after the script.
	LastInsertRowID int64
}

func execResult(r capi.ExecResult) ExecResult {
	return ExecResult{
		Statements:      int(r.Statements),
		ParamsUsed:      int(r.ParamsUsed),
		Changes:         r.Changes,
		LastInsertRowID: r.LastInsertRowID,
	}
}

// ExecScript runs every statement of sql (any number of them, separated by semicolons) in
// one call into C, discarding rows that statements return.
//
// args are consumed in order across the statements: each statement takes as many as it has
// parameters. A NamedArg (see Named) goes instead to every parameter of that name in any
// statement. Too few or too many values is an error (ErrParamCount).
//
// On failure the statements before the failing one stay run (wrap the script in BEGIN and
// COMMIT to make it all-or-nothing), the result says how many ran, and the *Error gives the
// failing statement's index and offset.
func (c *Conn) ExecScript(sql string, args ...any) (ExecResult, error) {
	if len(args) == 0 {
		r, rc := c.h.Exec(sql, nil, nil, nil)
		if rc != capi.OK {
			return execResult(r), c.err(rc, sql)
		}
		return execResult(r), c.takePanic(nil)
	}
	p := &c.scratch
	p.Reset()
	if err := p.Append(args...); err != nil {
		return ExecResult{}, err
	}
	return c.ExecScriptParams(sql, p)
}

// ExecScriptParams is ExecScript with parameters already laid out in p.
//
// A table value (Array, Table) binds one statement: with one in p, sql must hold a single
// statement (ErrMultipleStatements otherwise), which is prepared, run and finalized.
func (c *Conn) ExecScriptParams(sql string, p *Params) (ExecResult, error) {
	if p.err != nil {
		return ExecResult{}, p.err
	}
	if len(p.tables) > 0 {
		s, err := c.Prepare(sql)
		if err != nil {
			return ExecResult{}, err
		}
		defer s.Close()
		r, err := s.ExecParams(p)
		if err != nil {
			return ExecResult{}, err
		}
		return ExecResult{Statements: 1, ParamsUsed: p.Len(), Changes: r.Changes, LastInsertRowID: r.LastInsertRowID}, nil
	}
	r, rc := c.h.Exec(sql, p.vals, p.names, p.data)
	if rc != capi.OK {
		return execResult(r), c.err(rc, sql)
	}
	return execResult(r), c.takePanic(nil)
}

// Prepare compiles sql, which must hold one statement (or none: an empty statement that
// does nothing), into a Stmt; whitespace, comments and semicolons may follow it. SQL holding
// a second statement is refused with ErrMultipleStatements, the *Error's Offset being where
// the second one starts (PrepareSingle). Use PrepareTail to compile a script statement by
// statement, or ExecScript to run one.
func (c *Conn) Prepare(sql string) (*Stmt, error) {
	s, _, err := c.PrepareTail(sql, PrepareSingle)
	return s, err
}

// PrepareTail compiles the first statement of sql and returns it with the rest of sql
// (tail), where the next statement would start. If sql holds only whitespace and comments
// the statement is empty: it has no columns and no parameters and does nothing.
func (c *Conn) PrepareTail(sql string, flags PrepareFlags) (stmt *Stmt, tail string, err error) {
	h, t, np, rc := c.h.Prepare(sql, uint32(flags))
	if rc != capi.OK {
		return nil, "", c.err(rc, sql)
	}
	if t > len(sql) {
		t = len(sql)
	}
	if c.hookPanic != nil {
		h.Finalize()
		return nil, "", c.takePanic(nil)
	}
	return newStmt(c, h, sql[:t], np), sql[t:], nil
}

// Query prepares sql (one statement), binds args as Stmt.Bind does, and returns its rows.
// Closing the Rows finalizes the statement.
func (c *Conn) Query(sql string, args ...any) (*Rows, error) {
	s, err := c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	r, err := s.Query(args...)
	if err != nil {
		s.Close()
		return nil, err
	}
	r.ownsStmt = true
	return r, nil
}

// ExecMany prepares sql (one statement), runs it once per row of p in one call into C (see
// Stmt.ExecMany), and finalizes it: the bulk insert.
func (c *Conn) ExecMany(sql string, p *Params) (WriteResult, error) {
	s, err := c.Prepare(sql)
	if err != nil {
		return WriteResult{}, err
	}
	defer s.Close()
	return s.ExecMany(p)
}

// Version returns the version of the sqlbatch library linked in, e.g. "0.1.0".
func Version() string { return capi.Version() }

// SQLiteVersion returns the version of SQLite built into sqlbatch, e.g. "3.54.1".
func SQLiteVersion() string { return capi.SQLiteVersion() }

var errClosedStmt = errors.New("sqlbatch: statement is closed")
