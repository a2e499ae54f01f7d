package capi

/*
#include <stdint.h>
#include "sqlbatch.h"

// The callbacks the library calls (hooks_tramp.c), passing the user data on to the exported
// Go functions of this file as an integer (a cgo.Handle value).
int32_t gosb_commit_hook_tramp(void *ud);
void gosb_rollback_hook_tramp(void *ud);
int32_t gosb_wal_hook_tramp(void *ud, const char *schema, int32_t pages);
int32_t gosb_progress_tramp(void *ud);
int32_t gosb_busy_tramp(void *ud, int32_t count);
int32_t gosb_authorizer_tramp(void *ud, int32_t action, const char *a, const char *b, const char *schema, const char *trigger);
void gosb_change_feed_tramp(void *ud, const sqlbatch_change *changes, size_t n_changes, const sqlbatch_change_table *tables, size_t n_tables, int32_t reason);
int32_t gosb_update_batch_tramp(void *ud, const sqlbatch_change *changes, size_t n_changes, const sqlbatch_change_table *tables, size_t n_tables);
void gosb_destroy_tramp(void *ud);

// One setter for every hook: h 0 removes it (no user data, no destroy callback).
enum { GOSB_COMMIT, GOSB_ROLLBACK, GOSB_WAL, GOSB_PROGRESS, GOSB_BUSY, GOSB_AUTHORIZER };

static inline int32_t gosb_set_hook(sqlbatch_conn *conn, int which, uintptr_t h, int32_t every) {
	void *ud = (void *)h;
	sqlbatch_destroy_fn d = h ? gosb_destroy_tramp : NULL;
	switch (which) {
	case GOSB_COMMIT: return sqlbatch_conn_commit_hook(conn, h ? gosb_commit_hook_tramp : NULL, ud, d);
	case GOSB_ROLLBACK: return sqlbatch_conn_rollback_hook(conn, h ? gosb_rollback_hook_tramp : NULL, ud, d);
	case GOSB_WAL: return sqlbatch_conn_wal_hook(conn, h ? gosb_wal_hook_tramp : NULL, ud, d);
	case GOSB_PROGRESS: return sqlbatch_conn_progress_handler(conn, every, h ? gosb_progress_tramp : NULL, ud, d);
	case GOSB_BUSY: return sqlbatch_conn_busy_handler(conn, h ? gosb_busy_tramp : NULL, ud, d);
	case GOSB_AUTHORIZER: return sqlbatch_conn_authorizer(conn, h ? gosb_authorizer_tramp : NULL, ud, d);
	}
	return SQLBATCH_E_INVALID_ARGUMENT;
}

static inline int32_t gosb_set_change_feed(sqlbatch_conn *conn, size_t max, uintptr_t h) {
	return sqlbatch_conn_change_feed(conn, max, h ? gosb_change_feed_tramp : NULL, (void *)h,
		h ? gosb_destroy_tramp : NULL);
}

static inline int32_t gosb_set_update_batch(sqlbatch_conn *conn, size_t max, uintptr_t h) {
	return sqlbatch_conn_update_hook_batched(conn, max, h ? gosb_update_batch_tramp : NULL, (void *)h,
		h ? gosb_destroy_tramp : NULL);
}

// The setters call back into Go (the destroy callback of the registration they replace) and
// take no Go memory: neither nocallback nor noescape.
*/
import "C"

import (
	"unsafe"
)

// Change feed reasons, with the header's values.
const (
	FeedFull     = C.SQLBATCH_FEED_FULL
	FeedCommit   = C.SQLBATCH_FEED_COMMIT
	FeedRollback = C.SQLBATCH_FEED_ROLLBACK
)

// CommitHook is the Go side of a commit hook: non-zero turns the commit into a rollback.
type CommitHook interface{ Commit() int32 }

// RollbackHook is the Go side of a rollback hook.
type RollbackHook interface{ Rollback() }

// WALHook is the Go side of a WAL hook: it returns an SQLite code. schema is C memory.
type WALHook interface {
	WAL(schema []byte, pages int32) int32
}

// ProgressHandler is the Go side of a progress handler: non-zero interrupts.
type ProgressHandler interface{ Progress() int32 }

// BusyHandler is the Go side of a busy handler: non-zero retries.
type BusyHandler interface{ Busy(count int32) int32 }

// Authorizer is the Go side of an authorizer: SQLITE_OK, SQLITE_DENY or SQLITE_IGNORE. Each
// string is a view of C memory, nil for a NULL argument.
type Authorizer interface {
	Authorize(action int32, a, b, schema, trigger []byte) int32
}

// Change mirrors sqlbatch_change.
type Change struct {
	RowID int64
	Op    int32
	Table uint32
}

// ChangeTable mirrors sqlbatch_change_table: two sqlbatch_str.
type ChangeTable struct {
	schema, name C.sqlbatch_str
}

// Schema is the table's database, a view of C memory valid during the feed's call.
func (t *ChangeTable) Schema() []byte { return cbytes(t.schema) }

// Name is the table's name, a view of C memory valid during the feed's call.
func (t *ChangeTable) Name() []byte { return cbytes(t.name) }

// Compile-time checks that Change and sqlbatch_change, ChangeTable and sqlbatch_change_table
// have the same layout.
var (
	_ [unsafe.Sizeof(Change{}) - unsafe.Sizeof(C.sqlbatch_change{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_change{}) - unsafe.Sizeof(Change{})]struct{}
	_ [unsafe.Offsetof(Change{}.Op) - unsafe.Offsetof(C.sqlbatch_change{}.op)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_change{}.op) - unsafe.Offsetof(Change{}.Op)]struct{}
	_ [unsafe.Offsetof(Change{}.Table) - unsafe.Offsetof(C.sqlbatch_change{}.table)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_change{}.table) - unsafe.Offsetof(Change{}.Table)]struct{}
	_ [unsafe.Sizeof(ChangeTable{}) - unsafe.Sizeof(C.sqlbatch_change_table{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_change_table{}) - unsafe.Sizeof(ChangeTable{})]struct{}
)

// ChangeFeed is the Go side of a change feed: changes and tables are views of C memory,
// valid during the call only.
type ChangeFeed interface {
	Changes(changes []Change, tables []ChangeTable, reason int32)
}

// UpdateBatch is the Go side of a batched update hook: changes and tables are views of C
// memory, valid during the call only; a non-zero result stops the statement (see
// sqlbatch_conn_update_hook_batched).
type UpdateBatch interface {
	Updates(changes []Change, tables []ChangeTable) int32
}

func (c Conn) setHook(which C.int, v any, every int32) int32 {
	if v == nil {
		return int32(C.gosb_set_hook(c.p, which, 0, C.int32_t(every)))
	}
	h := NewHandle(v)
	return int32(C.gosb_set_hook(c.p, which, C.uintptr_t(h), C.int32_t(every)))
}

// SetCommitHook is sqlbatch_conn_commit_hook (nil removes it).
func (c Conn) SetCommitHook(h CommitHook) int32 {
	if h == nil {
		return c.setHook(C.GOSB_COMMIT, nil, 0)
	}
	return c.setHook(C.GOSB_COMMIT, h, 0)
}

// SetRollbackHook is sqlbatch_conn_rollback_hook (nil removes it).
func (c Conn) SetRollbackHook(h RollbackHook) int32 {
	if h == nil {
		return c.setHook(C.GOSB_ROLLBACK, nil, 0)
	}
	return c.setHook(C.GOSB_ROLLBACK, h, 0)
}

// SetWALHook is sqlbatch_conn_wal_hook (nil removes it).
func (c Conn) SetWALHook(h WALHook) int32 {
	if h == nil {
		return c.setHook(C.GOSB_WAL, nil, 0)
	}
	return c.setHook(C.GOSB_WAL, h, 0)
}

// SetProgressHandler is sqlbatch_conn_progress_handler (nil or every < 1 removes it).
func (c Conn) SetProgressHandler(every int32, h ProgressHandler) int32 {
	if h == nil || every < 1 {
		return c.setHook(C.GOSB_PROGRESS, nil, 0)
	}
	return c.setHook(C.GOSB_PROGRESS, h, every)
}

// SetBusyHandler is sqlbatch_conn_busy_handler (nil removes it).
func (c Conn) SetBusyHandler(h BusyHandler) int32 {
	if h == nil {
		return c.setHook(C.GOSB_BUSY, nil, 0)
	}
	return c.setHook(C.GOSB_BUSY, h, 0)
}

// SetAuthorizer is sqlbatch_conn_authorizer (nil removes it).
func (c Conn) SetAuthorizer(h Authorizer) int32 {
	if h == nil {
		return c.setHook(C.GOSB_AUTHORIZER, nil, 0)
	}
	return c.setHook(C.GOSB_AUTHORIZER, h, 0)
}

// SetChangeFeed is sqlbatch_conn_change_feed (nil removes it; max 0 is the library's 1024).
func (c Conn) SetChangeFeed(max int, f ChangeFeed) int32 {
	if f == nil {
		return int32(C.gosb_set_change_feed(c.p, C.size_t(max), 0))
	}
	h := NewHandle(f)
	return int32(C.gosb_set_change_feed(c.p, C.size_t(max), C.uintptr_t(h)))
}

// SetUpdateHookBatched is sqlbatch_conn_update_hook_batched (nil removes it; max 0 is the
// library's 1024).
func (c Conn) SetUpdateHookBatched(max int, u UpdateBatch) int32 {
	if u == nil {
		return int32(C.gosb_set_update_batch(c.p, C.size_t(max), 0))
	}
	return int32(C.gosb_set_update_batch(c.p, C.size_t(max), C.uintptr_t(NewHandle(u))))
}

// The exported callbacks. A panic must never unwind into C: the root package's hooks
// recover their callers' panics (and say what they do about them). These deferred recovers
// are the last guard, giving the answer that stops the statement where there is one; the
// batched update hook and the change feed, whose implementations in the root package recover
// every panic, have none (a second recover per event is a tenth of the hook's Go time).

//export gosbCommitHook
func gosbCommitHook(ud C.uintptr_t) (r C.int32_t) {
	defer func() {
		if recover() != nil {
			r = 1
		}
	}()
	return C.int32_t(HandleValue(uintptr(ud)).(CommitHook).Commit())
}

//export gosbRollbackHook
func gosbRollbackHook(ud C.uintptr_t) {
	defer func() { _ = recover() }()
	HandleValue(uintptr(ud)).(RollbackHook).Rollback()
}

//export gosbWALHook
func gosbWALHook(ud C.uintptr_t, schema *C.char, schemaLen C.size_t, pages C.int32_t) (r C.int32_t) {
	defer func() {
		if recover() != nil {
			r = SQLiteError
		}
	}()
	return C.int32_t(HandleValue(uintptr(ud)).(WALHook).WAL(cview(schema, schemaLen), int32(pages)))
}

//export gosbProgress
func gosbProgress(ud C.uintptr_t) (r C.int32_t) {
	defer func() {
		if recover() != nil {
			r = 1
		}
	}()
	return C.int32_t(HandleValue(uintptr(ud)).(ProgressHandler).Progress())
}

//export gosbBusy
func gosbBusy(ud C.uintptr_t, count C.int32_t) (r C.int32_t) {
	defer func() {
		if recover() != nil {
			r = 0
		}
	}()
	return C.int32_t(HandleValue(uintptr(ud)).(BusyHandler).Busy(int32(count)))
}

// authDeny is SQLITE_DENY.
const authDeny = 1

//export gosbAuthorizer
func gosbAuthorizer(ud C.uintptr_t, action C.int32_t, a *C.char, aLen C.size_t, b *C.char, bLen C.size_t,
	schema *C.char, schemaLen C.size_t, trigger *C.char, triggerLen C.size_t) (r C.int32_t) {
	defer func() {
		if recover() != nil {
			r = authDeny
		}
	}()
	return C.int32_t(HandleValue(uintptr(ud)).(Authorizer).Authorize(int32(action),
		cview(a, aLen), cview(b, bLen), cview(schema, schemaLen), cview(trigger, triggerLen)))
}

//export gosbChangeFeed
func gosbChangeFeed(ud C.uintptr_t, changes *C.sqlbatch_change, nChanges C.size_t,
	tables *C.sqlbatch_change_table, nTables C.size_t, reason C.int32_t) {
	ch := unsafe.Slice((*Change)(unsafe.Pointer(changes)), int(nChanges))
	tb := unsafe.Slice((*ChangeTable)(unsafe.Pointer(tables)), int(nTables))
	HandleValue(uintptr(ud)).(ChangeFeed).Changes(ch, tb, int32(reason))
}

//export gosbUpdateBatch
func gosbUpdateBatch(ud C.uintptr_t, changes *C.sqlbatch_change, nChanges C.size_t,
	tables *C.sqlbatch_change_table, nTables C.size_t) C.int32_t {
	ch := unsafe.Slice((*Change)(unsafe.Pointer(changes)), int(nChanges))
	tb := unsafe.Slice((*ChangeTable)(unsafe.Pointer(tables)), int(nTables))
	return C.int32_t(HandleValue(uintptr(ud)).(UpdateBatch).Updates(ch, tb))
}
