package driver

import (
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
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
