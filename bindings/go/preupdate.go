package sqlbatch

import (
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// PreUpdateRows says which rows a preupdate hook gets decoded: reading a row costs SQLite
// a call per column and Go a copy of every value, which a hook that only looks at the
// rowids or the table need not pay.
type PreUpdateRows uint32

// The rows of a preupdate hook.
const (
	// PreUpdateOld asks for the row before the change (DELETE, UPDATE).
	PreUpdateOld PreUpdateRows = capi.PreUpdateOld
	// PreUpdateNew asks for the row after the change (INSERT, UPDATE).
	PreUpdateNew PreUpdateRows = capi.PreUpdateNew
	// PreUpdateBoth asks for both: what PreUpdateHook does.
	PreUpdateBoth = PreUpdateOld | PreUpdateNew
)

// PreUpdate is one row about to be inserted, updated or deleted, as a preupdate hook sees
// it. Everything in it is a copy: it may be kept after the hook returns.
type PreUpdate struct {
	// Op is OpInsert, OpDelete or OpUpdate.
	Op int
	// Depth is 0 for a change the statement makes itself, 1 for one a trigger it fired
	// makes, 2 for a trigger of that trigger, and so on (sqlite3_preupdate_depth).
	Depth int
	// Schema is the database: "main", "temp" or an attached name. Schema and Table are
	// interned: the same table gives the same strings.
	Schema string
	// Table is the table's name.
	Table string
	// OldRowID is the row's rowid before the change (DELETE, UPDATE; 0 for an INSERT), and
	// NewRowID after it (INSERT, UPDATE; 0 for a DELETE). Not meaningful for WITHOUT ROWID
	// tables.
	OldRowID, NewRowID int64
	// Columns is the table's number of columns (sqlite3_preupdate_count).
	Columns int
	// Old is the row before the change (DELETE, UPDATE), New the row after it (INSERT,
	// UPDATE), Columns values each, decoded as Args.Value decodes a function's arguments:
	// int64, float64, string, []byte or nil. Each is nil where the change has no such row,
	// or when it was not asked for (PreUpdateHookRows). A write through a blob handle has no
	// New: SQLite does not know it yet.
	Old, New []any
	// BlobColumn is, for a write through an incremental blob handle (BlobHandle.Write; Op is
	// then OpDelete), the index of the column being written; -1 otherwise
	// (sqlite3_preupdate_blobwrite).
	BlobColumn int
}

type preUpdateHook struct {
	c              *Conn
	fn             func(PreUpdate)
	schemas, names names
}

func (h *preUpdateHook) PreUpdate(p capi.PreUpdate) {
	h.c.inHook++
	defer func() { h.c.hookDone(recover(), "preupdate hook", true) }()
	ev := PreUpdate{
		Op:         int(p.Op),
		Depth:      int(p.Depth),
		Schema:     h.schemas.get(p.Schema),
		Table:      h.names.get(p.Table),
		OldRowID:   p.OldRowID,
		NewRowID:   p.NewRowID,
		Columns:    p.NCols,
		BlobColumn: int(p.BlobColumn),
	}
	if p.Old != nil || p.New != nil {
		rows := decodeRows(p.Data, &p.Old, &p.New)
		ev.Old, ev.New = rows[0], rows[1]
	}
	h.fn(ev)
}

// PreUpdateHook sets fn to be called before every row is inserted, updated or deleted on c
// (sqlite3_preupdate_hook), with the row before the change and the row after it
// (PreUpdateHookRows with PreUpdateBoth). Unlike UpdateHook it sees WITHOUT ROWID tables, the
// changes of triggers with their depth, and the values; like it, it must not use c. nil
// removes the hook.
//
// SQLite has one preupdate slot, which sessions (CreateSession) use too: while a Session of
// c is alive this fails with ErrMisuse, and while a preupdate hook is set CreateSession does.
//
// A panic in fn is handled as one in an update hook: the statement is interrupted, its
// commit vetoed, and the call returns a *HookPanicError.
func (c *Conn) PreUpdateHook(fn func(PreUpdate)) error { return c.PreUpdateHookRows(PreUpdateBoth, fn) }

// PreUpdateHookRows is PreUpdateHook with the rows to decode chosen: PreUpdateOld,
// PreUpdateNew, both, or 0 for none (PreUpdate.Old and New are then nil and the hook costs
// one call from C and no allocation per event but the PreUpdate's names, which are interned).
func (c *Conn) PreUpdateHookRows(rows PreUpdateRows, fn func(PreUpdate)) error {
	var rc int32
	if fn == nil {
		rc = c.h.SetPreUpdateHook(0, nil)
	} else {
		rc = c.h.SetPreUpdateHook(uint32(rows), &preUpdateHook{c: c, fn: fn})
	}
	if rc != capi.OK {
		return c.err(rc, "")
	}
	if c.preUpdateSet != (fn != nil) {
		c.preUpdateSet = fn != nil
		return c.setHook(c.installCommit())
	}
	return nil
}
