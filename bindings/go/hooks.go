package sqlbatch

import (
	"fmt"
	"runtime/debug"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Hooks: Go functions SQLite calls while statements run on a connection. Each runs on the
// goroutine running the statement. Only the WAL hook may use the connection (run SQL, such as
// a checkpoint); the others must not use it at all (SQLite's rule: the connection is in the
// middle of the statement): from inside them every call on the connection and its statements
// fails with ErrMisuse, and a Stmt.Close is carried out once the hook is over. Close from
// inside any hook of the connection, the WAL hook included (its statement is still running),
// returns ErrMisuse and leaves the connection open: close it once the call that ran the hook
// has returned. A hook cannot be set, replaced or removed from inside a hook
// (ErrInvalidArgument). Setting a hook replaces the one before; nil removes it; closing the
// connection releases them.
//
// A panic in a hook does not unwind through SQLite: it is recovered and the call that was
// running fails with a *HookPanicError (see there for what each hook does about it).

// Update operations: the op of an update hook and of a Change, with SQLite's values (they are
// also authorizer actions).
const (
	OpDelete = 9  // SQLITE_DELETE
	OpInsert = 18 // SQLITE_INSERT
	OpUpdate = 23 // SQLITE_UPDATE
)

// Authorizer results, with SQLite's values.
const (
	AuthOK     = 0 // SQLITE_OK: allow the action
	AuthDeny   = 1 // SQLITE_DENY: the prepare fails with ErrAuth
	AuthIgnore = 2 // SQLITE_IGNORE: the column reads as NULL, or the action is skipped
)

// Authorizer actions, the action argument of an authorizer, with SQLite's values
// (https://sqlite.org/c3ref/c_alter_table.html; the strings each one comes with are listed
// there). ActionDelete, ActionInsert and ActionUpdate are OpDelete, OpInsert and OpUpdate.
const (
	ActionCopy              = 0
	ActionCreateIndex       = 1
	ActionCreateTable       = 2
	ActionCreateTempIndex   = 3
	ActionCreateTempTable   = 4
	ActionCreateTempTrigger = 5
	ActionCreateTempView    = 6
	ActionCreateTrigger     = 7
	ActionCreateView        = 8
	ActionDelete            = 9
	ActionDropIndex         = 10
	ActionDropTable         = 11
	ActionDropTempIndex     = 12
	ActionDropTempTable     = 13
	ActionDropTempTrigger   = 14
	ActionDropTempView      = 15
	ActionDropTrigger       = 16
	ActionDropView          = 17
	ActionInsert            = 18
	ActionPragma            = 19
	ActionRead              = 20
	ActionSelect            = 21
	ActionTransaction       = 22
	ActionUpdate            = 23
	ActionAttach            = 24
	ActionDetach            = 25
	ActionAlterTable        = 26
	ActionReindex           = 27
	ActionAnalyze           = 28
	ActionCreateVTable      = 29
	ActionDropVTable        = 30
	ActionFunction          = 31
	ActionSavepoint         = 32
	ActionRecursive         = 33
)

// HookPanicError is the error of a call during which a hook panicked. What the hook's
// panic does to the statement depends on the hook:
//
//   - commit hook: the commit is vetoed (rolled back); the statement's error is
//     ErrConstraintCommitHook, in Err;
//   - progress handler: the statement is interrupted (ErrInterrupt);
//   - busy handler: it gives up (ErrBusy);
//   - authorizer: the action is denied, so the prepare fails (ErrAuth);
//   - WAL hook: the committing statement reports ErrError (the commit stands);
//   - update hook, preupdate hook, a change feed's FULL batch, and a trace callback at a
//     TraceStmt or TraceRow event: the statement is interrupted
//     (ErrInterrupt) and, if it commits anyway (SQLite checks for an interrupt only between
//     some steps: a one-row INSERT completes), its commit is vetoed
//     (ErrConstraintCommitHook): a statement outside BEGIN ... COMMIT is rolled back either
//     way. Inside a transaction the statement's changes may stand: roll back;
//   - rollback hook, a change feed's COMMIT or ROLLBACK batch, and a trace callback at a
//     TraceProfile or TraceClose event: nothing can be stopped any more (the transaction or
//     the statement has ended; Close returns a TraceClose panic); the call returns the panic
//     with no Err;
//   - a changeset apply's conflict function ("conflict func") or filter ("changeset
//     filter"): the apply stops and is undone (ApplyChangeset); Err is ErrAbort.
//
// The call that ran the statement returns it (ExecScript, Prepare, Exec, ExecMany,
// Rows.Next then Rows.Err); a hook that panics during another call (a backup step, a
// checkpoint, a blob handle, Close), or on a connection other than the call's (a backup's
// source), is reported by the next of those calls on its connection.
type HookPanicError struct {
	// Hook names the hook: "update hook", "commit hook", "change feed", "preupdate hook",
	// "trace callback", "conflict func", ...
	Hook string
	// Value is what the hook panicked with.
	Value any
	// Stack is the goroutine's stack where the panic was recovered.
	Stack []byte
	// Err is the statement's error, if it failed because of the panic (an *Error).
	Err error
}

func (e *HookPanicError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("sqlbatch: panic in %s: %v (%v)", e.Hook, e.Value, e.Err)
	}
	return fmt.Sprintf("sqlbatch: panic in %s: %v", e.Hook, e.Value)
}

// Unwrap returns Err, so that errors.Is(err, ErrInterrupt) and errors.As(err, &e *Error)
// see the statement's error.
func (e *HookPanicError) Unwrap() error { return e.Err }

// recordPanic records the panic r of a hook of c, recovered by the hook's deferred function,
// which then gives the answer that fails the statement (veto, interrupt, deny, give up);
// with stop, the running statement is interrupted too, and its commit vetoed, for the hooks
// that have no such answer (update hook, change feed).
func (c *Conn) recordPanic(hook string, r any, stop bool) {
	if c.hookPanic == nil { // the first panic is the one that matters
		c.hookPanic = &HookPanicError{Hook: hook, Value: r, Stack: debug.Stack()}
		c.panicVeto = stop
	}
	if stop {
		c.h.Interrupt()
	}
}

// takePanic returns err wrapped in the recorded hook panic, if there is one (and forgets it).
func (c *Conn) takePanic(err error) error {
	p := c.hookPanic
	if p == nil {
		return err
	}
	c.hookPanic, c.panicVeto = nil, false
	p.Err = err
	return p
}

// hookDone ends a hook of c. Every trampoline counts c.inHook up before calling the user's
// function (while it is above 0, Close refuses: the core's close would finalize the
// statement that is running the hook), and defers a function literal that passes recover()
// to hookDone (recover works only when called by the deferred function
// itself, and a literal costs no wrapper call). It counts the hook out and records a panic r
// of the user's function (recordPanic, with stop), reporting whether there was one, so that
// the trampoline can give the answer that fails the statement.
func (c *Conn) hookDone(r any, hook string, stop bool) (panicked bool) {
	c.inHook--
	if r == nil {
		return false
	}
	c.recordPanic(hook, r, stop)
	return true
}

func (c *Conn) setHook(rc int32) error {
	if rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// names interns the schema and table names hooks see, so that an event costs no allocation:
// a name is compared with the ones seen before, and a new one is copied once.
type names struct {
	seen []string
}

func (n *names) get(b []byte) string {
	for i, s := range n.seen {
		if s == string(b) { // compiled without a conversion
			if i != 0 {
				n.seen[0], n.seen[i] = n.seen[i], n.seen[0]
			}
			return s
		}
	}
	if len(n.seen) >= 64 {
		n.seen = n.seen[:0]
	}
	s := string(b)
	n.seen = append(n.seen, s)
	if k := len(n.seen) - 1; k != 0 {
		n.seen[0], n.seen[k] = n.seen[k], n.seen[0]
	}
	return s
}

type updateHook struct {
	c              *Conn
	fn             func(op int, schema, table string, rowid int64)
	schemas, names names
	tabs           [][2]string
}

// The commit slot holds a guard while an update hook, a change feed or a preupdate hook is
// set: it vetoes the commit of a statement during which one of them panicked, before calling
// the commit hook set with CommitHook (if any).

func (c *Conn) installCommit() int32 {
	if c.userCommit == nil && !c.updateSet && !c.feedSet && !c.preUpdateSet {
		return c.h.SetCommitHook(nil)
	}
	return c.h.SetCommitHook(&commitHook{c: c, fn: c.userCommit})
}

// Updates calls fn for each change of a batch, in order. A panic ends the batch (the changes
// after it are not delivered) and stops the statement, as it did when fn was called per event.
func (h *updateHook) Updates(ch []capi.Change, tb []capi.ChangeTable) (stop int32) {
	h.c.inHook++
	defer func() {
		if h.c.hookDone(recover(), "update hook", true) {
			stop = 1
		}
	}()
	tabs := h.tabs[:0]
	for i := range tb {
		tabs = append(tabs, [2]string{h.schemas.get(tb[i].Schema()), h.names.get(tb[i].Name())})
	}
	h.tabs = tabs
	for _, x := range ch {
		t := &tabs[x.Table]
		h.fn(int(x.Op), t[0], t[1], x.RowID)
	}
	return 0
}

// UpdateHook sets fn to be called for every row inserted, updated or deleted on c
// (sqlite3_update_hook), with OpInsert, OpDelete or OpUpdate, the database ("main", "temp" or
// an attached name), the table and the rowid (the new one for an insert). It is not called
// for WITHOUT ROWID tables, nor for rows a DELETE without WHERE removes at once. The names
// are interned: the same table gives the same string, and an event allocates nothing. nil
// removes the hook. See ChangeFeed for the same events in batches per transaction.
//
// fn is called once per event, in order, but not from C once per event: the library collects
// the events (sqlbatch_conn_update_hook_batched) and hands them to Go many at a time, never
// later than the difference could be seen. Every event reaches fn before any other callback
// of c runs (an SQL function, another hook; before a commit, ahead of CommitHook's function)
// and before the call that made it returns. So no callback and no caller can tell it from a
// call per event, but for timing: a hook that measures time, or another goroutine reading
// what fn writes while the statement runs, sees the events a little later.
//
// A panic in fn stops the statement and is returned as a *HookPanicError by the call: the
// statement is interrupted, or its commit vetoed, or, when the events reached fn as the call
// ended, the open transaction is rolled back, which is what interrupting it would have done.
func (c *Conn) UpdateHook(fn func(op int, schema, table string, rowid int64)) error {
	var rc int32
	if fn == nil {
		rc = c.h.SetUpdateHookBatched(0, nil)
	} else {
		rc = c.h.SetUpdateHookBatched(0, &updateHook{c: c, fn: fn})
	}
	if rc != capi.OK {
		return c.err(rc, "")
	}
	if c.updateSet != (fn != nil) {
		c.updateSet = fn != nil
		return c.setHook(c.installCommit())
	}
	return nil
}

type commitHook struct {
	c  *Conn
	fn func() int
}

func (h *commitHook) Commit() (veto int32) {
	if h.c.hookPanic != nil && h.c.panicVeto {
		return 1 // an update hook, the change feed or a preupdate hook panicked during this statement
	}
	if h.fn == nil {
		return 0
	}
	h.c.inHook++
	defer func() {
		if h.c.hookDone(recover(), "commit hook", false) {
			veto = 1
		}
	}()
	if h.fn() != 0 {
		return 1
	}
	return 0
}

// CommitHook sets fn to be called whenever a transaction is about to commit
// (sqlite3_commit_hook); a non-zero result turns the commit into a rollback, and the
// statement fails with ErrConstraintCommitHook. nil removes the hook.
func (c *Conn) CommitHook(fn func() int) error {
	old := c.userCommit
	c.userCommit = fn
	if rc := c.installCommit(); rc != capi.OK {
		c.userCommit = old
		return c.err(rc, "")
	}
	return nil
}

type rollbackHook struct {
	c  *Conn
	fn func()
}

func (h *rollbackHook) Rollback() {
	h.c.inHook++
	defer func() { h.c.hookDone(recover(), "rollback hook", false) }()
	h.fn()
}

// RollbackHook sets fn to be called whenever a transaction is rolled back
// (sqlite3_rollback_hook): by ROLLBACK, a failed statement in autocommit mode, or a commit
// the commit hook vetoed; not by ROLLBACK TO a savepoint, nor when the connection closes with
// a transaction open. nil removes the hook.
func (c *Conn) RollbackHook(fn func()) error {
	if fn == nil {
		return c.setHook(c.h.SetRollbackHook(nil))
	}
	return c.setHook(c.h.SetRollbackHook(&rollbackHook{c: c, fn: fn}))
}

type walHook struct {
	c  *Conn
	fn func(schema string, pages int) error
}

func (h *walHook) WAL(schema []byte, pages int32) (rc int32) {
	h.c.inHook++
	defer func() {
		if h.c.hookDone(recover(), "WAL hook", false) {
			rc = capi.SQLiteError
		}
	}()
	err := h.fn(string(schema), int(pages))
	if err == nil {
		return capi.OK
	}
	if e, ok := err.(*Error); ok && e.ExtendedCode > 0 && e.ExtendedCode < 1000 {
		return int32(e.ExtendedCode)
	}
	return capi.SQLiteError
}

// WALHook sets fn to be called after each commit in WAL mode (sqlite3_wal_hook), with the
// database and the number of frames now in its log. fn may use c, e.g. to checkpoint; an
// error it returns is the committing statement's error (an *Error keeps its code, anything
// else is ErrError), though the commit stands. The hook takes the place of SQLite's automatic
// checkpoints (PRAGMA wal_autocheckpoint, which uses the same slot): set that pragma again
// after removing the hook (nil) to get them back.
func (c *Conn) WALHook(fn func(schema string, pages int) error) error {
	if fn == nil {
		return c.setHook(c.h.SetWALHook(nil))
	}
	return c.setHook(c.h.SetWALHook(&walHook{c: c, fn: fn}))
}

type progressHandler struct {
	c  *Conn
	fn func() bool
}

func (h *progressHandler) Progress() (stop int32) {
	h.c.inHook++
	defer func() {
		if h.c.hookDone(recover(), "progress handler", false) {
			stop = 1
		}
	}()
	if h.fn() {
		return 1
	}
	return 0
}

// ProgressHandler sets fn to be called about every n virtual machine steps of the
// statements running on c (sqlite3_progress_handler); when it returns true the statement
// stops with ErrInterrupt. nil or n < 1 removes it.
func (c *Conn) ProgressHandler(n int, fn func() (interrupt bool)) error {
	if fn == nil || n < 1 {
		return c.setHook(c.h.SetProgressHandler(0, nil))
	}
	if n > 1<<31-1 {
		n = 1<<31 - 1
	}
	return c.setHook(c.h.SetProgressHandler(int32(n), &progressHandler{c: c, fn: fn}))
}

type busyHandler struct {
	c  *Conn
	fn func(count int) bool
}

func (h *busyHandler) Busy(count int32) (retry int32) {
	h.c.inHook++
	defer func() {
		if h.c.hookDone(recover(), "busy handler", false) {
			retry = 0
		}
	}()
	if h.fn(int(count)) {
		return 1
	}
	return 0
}

// BusyHandler sets fn to be called when a table is locked by another connection
// (sqlite3_busy_handler), count being the number of times it was called for this lock: true
// retries, false gives up with ErrBusy. It replaces SetBusyTimeout's handler, and a later
// SetBusyTimeout replaces it (SQLite keeps one). nil removes it.
func (c *Conn) BusyHandler(fn func(count int) (retry bool)) error {
	if fn == nil {
		return c.setHook(c.h.SetBusyHandler(nil))
	}
	return c.setHook(c.h.SetBusyHandler(&busyHandler{c: c, fn: fn}))
}

type authorizer struct {
	c  *Conn
	fn func(action int, arg1, arg2, schema, trigger string) int
}

func (h *authorizer) Authorize(action int32, a, b, schema, trigger []byte) (verdict int32) {
	h.c.inHook++
	defer func() {
		if h.c.hookDone(recover(), "authorizer", false) {
			verdict = AuthDeny
		}
	}()
	return int32(h.fn(int(action), string(a), string(b), string(schema), string(trigger)))
}

// Authorizer sets fn to be consulted while statements are prepared on c
// (sqlite3_set_authorizer), once per action (an Action* constant) with the strings that
// action comes with ("" where it has none), the database, and the innermost trigger or view
// ("" if none). It returns AuthOK, AuthDeny (the prepare fails with ErrAuth) or AuthIgnore.
// Statements prepared before keep their verdicts, including those the database/sql driver's
// statement cache holds. nil removes it.
func (c *Conn) Authorizer(fn func(action int, arg1, arg2, schema, trigger string) int) error {
	if fn == nil {
		return c.setHook(c.h.SetAuthorizer(nil))
	}
	return c.setHook(c.h.SetAuthorizer(&authorizer{c: c, fn: fn}))
}

// FeedReason says why a change feed's batch is handed over.
type FeedReason int

// Change feed reasons.
const (
	// FeedFull: the feed's buffer is full in the middle of a transaction. These changes may
	// still be rolled back; a later batch says how the transaction ended.
	FeedFull FeedReason = capi.FeedFull
	// FeedCommit: the transaction committed; these are its last changes.
	FeedCommit FeedReason = capi.FeedCommit
	// FeedRollback: the transaction rolled back; these changes were undone, and so were those
	// of the FeedFull batches since the last FeedCommit.
	FeedRollback FeedReason = capi.FeedRollback
)

func (r FeedReason) String() string {
	switch r {
	case FeedFull:
		return "full"
	case FeedCommit:
		return "commit"
	case FeedRollback:
		return "rollback"
	}
	return fmt.Sprintf("FeedReason(%d)", int(r))
}

// Change is one row inserted, updated or deleted, as an update hook sees it.
type Change struct {
	Op     int    // OpInsert, OpDelete or OpUpdate
	Schema string // the database: "main", "temp" or an attached name
	Table  string
	RowID  int64 // the row's rowid (the new one for an insert)
}

type changeFeed struct {
	c     *Conn
	fn    func([]Change, FeedReason)
	buf   []Change
	tabs  [][2]string
	names names
}

func (f *changeFeed) Changes(ch []capi.Change, tb []capi.ChangeTable, reason int32) {
	f.c.inHook++
	defer func() { f.c.hookDone(recover(), "change feed", reason == capi.FeedFull) }()
	tabs := f.tabs[:0]
	for i := range tb {
		tabs = append(tabs, [2]string{f.names.get(tb[i].Schema()), f.names.get(tb[i].Name())})
	}
	f.tabs = tabs
	buf := f.buf[:0]
	for _, x := range ch {
		t := &tabs[x.Table]
		buf = append(buf, Change{Op: int(x.Op), Schema: t[0], Table: t[1], RowID: x.RowID})
	}
	f.buf = buf
	f.fn(buf, FeedReason(reason))
}

// ChangeFeed sets fn to receive the update hook's events of c in batches of up to max
// changes (max <= 0: 1024), so that one call from C serves many changed rows: a batch is
// handed over when it is full (FeedFull), when its transaction commits (FeedCommit, with
// whatever is pending; outside BEGIN ... COMMIT every statement is a transaction) or when it
// rolls back (FeedRollback). ROLLBACK TO a savepoint is not reported (SQLite reports none).
// The changes are in the order they happened; the slice is reused for the next batch (copy
// it to keep it; the strings may be kept). The feed and UpdateHook may both be set; nil
// removes the feed, dropping changes not yet handed over.
func (c *Conn) ChangeFeed(max int, fn func(changes []Change, reason FeedReason)) error {
	var rc int32
	if fn == nil {
		rc = c.h.SetChangeFeed(0, nil)
	} else {
		if max <= 0 {
			max = 1024
		}
		rc = c.h.SetChangeFeed(max, &changeFeed{c: c, fn: fn, buf: make([]Change, 0, min(max, 1<<16))})
	}
	if rc != capi.OK {
		return c.err(rc, "")
	}
	if c.feedSet != (fn != nil) {
		c.feedSet = fn != nil
		return c.setHook(c.installCommit())
	}
	return nil
}
