package sqlbatch

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime/debug"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Sessions and changesets (https://sqlite.org/sessionintro.html), in the shape of
// zombiezen.com/go/sqlite's: a Session records the changes made to some tables of a
// connection; its Changeset (or the smaller Patchset) is a byte string that ApplyChangeset
// replays on another database, settling conflicts with the callbacks of ApplyOptions;
// InvertChangeset makes the changeset that undoes one, ConcatChangesets one that does two;
// ReadChangeset (or ranging over ChangesetChanges) reads its changes one by one, as
// zombiezen's ChangesetIterator does, with the core handing them over in batches.

// SessionOptions are the options of Conn.CreateSession.
type SessionOptions struct {
	// Schema is the database whose changes are recorded: "main" (also for ""), "temp" or
	// an attached name.
	Schema string
}

// Session records the changes made to the tables attached to it (Attach) of one database of a
// connection, from its creation on, for Changeset and Patchset. Made by Conn.CreateSession;
// used on the goroutine using its connection, like the Conn. Delete it when done, before or
// after the connection is closed (closing the connection ends the recording, and its calls
// but Delete then fail with ErrClosed); there is no finalizer.
//
// SQLite has one preupdate slot, which sessions use: a connection with a live Session
// refuses a preupdate hook (Conn.PreUpdateHook) with ErrMisuse, and the other way round.
type Session struct {
	c *Conn
	h capi.Session
}

var errSessionDeleted = errorf(ErrClosed, "sqlbatch: session is deleted")

// CreateSession starts a session on c (sqlite3session_create): it records the changes made
// to the tables attached to it from now on. Many sessions may record the same connection.
// opts may be nil (the "main" database). It fails with ErrMisuse while a preupdate hook is set
// on c, or when called from inside a hook.
func (c *Conn) CreateSession(opts *SessionOptions) (*Session, error) {
	var schema string
	if opts != nil {
		schema = opts.Schema
	}
	h, rc := c.h.SessionCreate(schema)
	if rc != capi.OK {
		return nil, c.err(rc, "")
	}
	return &Session{c: c, h: h}, nil
}

func (s *Session) err(rc int32) error { return s.c.err(rc, "") }

// Attach makes s record the changes to table, or, with table "", to every table of its
// database, including those created later (sqlite3session_attach). Only tables with a
// PRIMARY KEY are recorded; the table need not exist yet.
func (s *Session) Attach(table string) error {
	if s.h.IsNil() {
		return errSessionDeleted
	}
	if rc := s.h.Attach(table); rc != capi.OK {
		return s.err(rc)
	}
	return nil
}

// Enable turns recording on (a new session records); see Disable.
func (s *Session) Enable() error { return s.SetEnabled(true) }

// Disable turns recording off: changes made meanwhile are not recorded
// (sqlite3session_enable).
func (s *Session) Disable() error { return s.SetEnabled(false) }

// SetEnabled turns recording on or off (Enable, Disable).
func (s *Session) SetEnabled(on bool) error {
	if s.h.IsNil() {
		return errSessionDeleted
	}
	if rc := s.h.SetEnabled(on); rc != capi.OK {
		return s.err(rc)
	}
	return nil
}

// SetIndirect marks the changes recorded from now on as indirect, or not (the default)
// (sqlite3session_indirect); a conflict function sees the mark (Conflict.Indirect). Changes
// made by triggers and foreign key actions are always indirect.
func (s *Session) SetIndirect(indirect bool) error {
	if s.h.IsNil() {
		return errSessionDeleted
	}
	if rc := s.h.SetIndirect(indirect); rc != capi.OK {
		return s.err(rc)
	}
	return nil
}

// IsEmpty reports whether s has recorded no change (sqlite3session_isempty): its changeset
// would be empty. A deleted session, or one whose connection is closed, is empty.
func (s *Session) IsEmpty() bool {
	if s.h.IsNil() {
		return true
	}
	empty, rc := s.h.IsEmpty()
	return rc != capi.OK || empty
}

func (s *Session) buffer(patch bool) (capi.Buffer, error) {
	if s.h.IsNil() {
		return capi.Buffer{}, errSessionDeleted
	}
	b, rc := s.h.Changeset(patch)
	if rc != capi.OK {
		return capi.Buffer{}, s.err(rc)
	}
	if s.c.hookPanic != nil { // a hook (an authorizer, a tracer) panicked while it read
		b.Free()
		return capi.Buffer{}, s.c.takePanic(nil)
	}
	return b, nil
}

// Changeset returns what s recorded as a changeset (sqlite3session_changeset): for each
// changed row (by primary key), one change from its state when recording started to its
// state now, with the old values of every column, so that applying it elsewhere detects
// conflicts. No change gives an empty (nil) changeset. Recording goes on.
func (s *Session) Changeset() ([]byte, error) {
	b, err := s.buffer(false)
	return b.Copy(), err
}

// WriteChangeset writes the changeset of s (see Changeset) to w in one Write, straight from
// the library's buffer (w must not keep the slice it is given, as io.Writer says).
func (s *Session) WriteChangeset(w io.Writer) error { return s.write(w, false) }

// Patchset returns what s recorded as a patchset (sqlite3session_patchset): a changeset
// without the old values but those of the primary key, so smaller, and with fewer
// conflicts detected when it is applied (only missing rows and taken keys). It cannot be
// inverted.
func (s *Session) Patchset() ([]byte, error) {
	b, err := s.buffer(true)
	return b.Copy(), err
}

// WritePatchset writes the patchset of s (see Patchset) to w, as WriteChangeset does.
func (s *Session) WritePatchset(w io.Writer) error { return s.write(w, true) }

func (s *Session) write(w io.Writer, patch bool) error {
	b, err := s.buffer(patch)
	if err != nil {
		return err
	}
	defer b.Free()
	if p := b.Bytes(); len(p) > 0 {
		_, err = w.Write(p)
	}
	return err
}

// Diff records in s the changes that would turn the table of the same name in database
// srcSchema of the same connection (an attached database) into table of the session's
// database (sqlite3session_diff): applied to a copy of srcSchema's table, the changeset gives
// the session's. The table is attached to s if it is not; both tables must have the same
// columns and primary key (ErrSchema otherwise).
func (s *Session) Diff(srcSchema, table string) error {
	if s.h.IsNil() {
		return errSessionDeleted
	}
	if rc := s.h.Diff(srcSchema, table); rc != capi.OK {
		return s.err(rc)
	}
	return s.c.takePanic(nil)
}

// Delete ends and frees the session (sqlite3session_delete), before or after its connection
// is closed. Deleting twice is a no-op. From inside a hook of its connection it fails with
// ErrMisuse and the session lives on (delete it after the hook returns).
func (s *Session) Delete() error {
	if s.h.IsNil() {
		return nil
	}
	if rc := s.h.Delete(); rc != capi.OK {
		return s.err(rc)
	}
	s.h = capi.Session{}
	return nil
}

// Close is Delete, for io.Closer.
func (s *Session) Close() error { return s.Delete() }

// ConflictKind says what kind of conflict a change met when it was applied, with SQLite's
// values (SQLITE_CHANGESET_*).
type ConflictKind int

// Conflict kinds.
const (
	// ConflictData: the row to delete or update exists, but its values are not those the
	// change expected (Conflict.Conflicting holds the row as it is). Omit, Replace or Abort.
	ConflictData ConflictKind = capi.ConflictData
	// ConflictNotFound: the row to delete or update does not exist. Omit or Abort.
	ConflictNotFound ConflictKind = capi.ConflictNotFound
	// ConflictConflict: an inserted row's primary key is taken (Conflict.Conflicting holds
	// the row that has it). Omit, Replace or Abort.
	ConflictConflict ConflictKind = capi.ConflictConflict
	// ConflictConstraint: the change breaks another constraint (UNIQUE, CHECK, NOT NULL).
	// Omit or Abort.
	ConflictConstraint ConflictKind = capi.ConflictConstraint
	// ConflictForeignKey: once every change is applied, foreign keys are violated
	// (Conflict.FKViolations says how many). Not about one change: Op, Table and the rows
	// are empty. Omit commits the changes despite the violations; Abort undoes them.
	ConflictForeignKey ConflictKind = capi.ConflictForeignKey
)

// String returns SQLite's name of the kind, e.g. "SQLITE_CHANGESET_DATA".
func (k ConflictKind) String() string {
	switch k {
	case ConflictData:
		return "SQLITE_CHANGESET_DATA"
	case ConflictNotFound:
		return "SQLITE_CHANGESET_NOTFOUND"
	case ConflictConflict:
		return "SQLITE_CHANGESET_CONFLICT"
	case ConflictConstraint:
		return "SQLITE_CHANGESET_CONSTRAINT"
	case ConflictForeignKey:
		return "SQLITE_CHANGESET_FOREIGN_KEY"
	}
	return fmt.Sprintf("ConflictKind(%d)", int(k))
}

// ConflictAction is what to do about a conflict: the answer of ApplyOptions.Conflict, and
// ApplyOptions.Policy. Its zero value is ChangesetAbort, so that a conflict nobody settles
// stops the apply rather than dropping a change silently. (The values are not SQLite's.)
type ConflictAction int

// Conflict actions.
const (
	// ChangesetAbort stops the apply and undoes every change it made (unless
	// ApplyNoSavepoint): ApplyChangeset returns ErrAbort (ErrConstraint for a
	// ConflictForeignKey, as SQLite reports it).
	ChangesetAbort ConflictAction = iota
	// ChangesetOmit skips the change (for ConflictForeignKey: commits despite the
	// violations).
	ChangesetOmit
	// ChangesetReplace applies the change over the conflicting row: valid for ConflictData
	// and ConflictConflict only. Answered to another kind it makes ApplyChangeset fail with
	// ErrMisuse (SQLite's rule); as a Policy, the other kinds are omitted.
	ChangesetReplace
)

// String returns SQLite's name of the action, e.g. "SQLITE_CHANGESET_OMIT".
func (a ConflictAction) String() string {
	switch a {
	case ChangesetAbort:
		return "SQLITE_CHANGESET_ABORT"
	case ChangesetOmit:
		return "SQLITE_CHANGESET_OMIT"
	case ChangesetReplace:
		return "SQLITE_CHANGESET_REPLACE"
	}
	return fmt.Sprintf("ConflictAction(%d)", int(a))
}

// capiAction is a's SQLite value; an unknown action aborts.
func (a ConflictAction) capiAction() int32 {
	switch a {
	case ChangesetOmit:
		return capi.ChangesetOmit
	case ChangesetReplace:
		return capi.ChangesetReplace
	}
	return capi.ChangesetAbort
}

// Conflict is a conflict met while a changeset is applied: the change, and the row it
// conflicts with. Everything in it is a copy. The rows hold Table's columns, decoded as
// PreUpdate's (int64, float64, string, []byte, nil), with Undefined for the columns the
// change does not carry.
type Conflict struct {
	Kind ConflictKind
	// Op is the change: OpInsert, OpDelete or OpUpdate (0 for ConflictForeignKey).
	Op int
	// Table is the change's table ("" for ConflictForeignKey).
	Table string
	// Indirect says whether the change was recorded as indirect (Session.SetIndirect, or
	// made by a trigger or a foreign key action).
	Indirect bool
	// Old is the row the change expected (DELETE, UPDATE; nil for an INSERT): for an
	// UPDATE, the columns it does not change and that are not in the primary key are
	// Undefined.
	Old []any
	// New is the row as the change makes it (INSERT, UPDATE; nil for a DELETE): for an
	// UPDATE, the columns it does not change are Undefined.
	New []any
	// Conflicting is the row in the database, for ConflictData and ConflictConflict; nil
	// otherwise.
	Conflicting []any
	// FKViolations is, for ConflictForeignKey, how many foreign key constraints are
	// violated.
	FKViolations int
}

// ApplyFlags are the flags of ApplyOptions, with SQLite's values
// (SQLITE_CHANGESETAPPLY_*).
type ApplyFlags uint32

// Apply flags.
const (
	// ApplyNoSavepoint applies without a savepoint of its own, so that an abort does not undo
	// what was applied.
	ApplyNoSavepoint ApplyFlags = capi.ApplyNoSavepoint
	// ApplyInvert applies the changeset inverted (an undo; see InvertChangeset).
	ApplyInvert ApplyFlags = capi.ApplyInvert
	// ApplyIgnoreNoop makes an UPDATE that finds the row already as it would make it no
	// conflict.
	ApplyIgnoreNoop ApplyFlags = capi.ApplyIgnoreNoop
	// ApplyFKNoAction keeps foreign keys' ON UPDATE and ON DELETE actions from running while
	// the changes are applied.
	ApplyFKNoAction ApplyFlags = capi.ApplyFKNoAction
)

// ApplyOptions are the options of Conn.ApplyChangeset. The zero value (or nil) applies every
// table and aborts at the first conflict.
type ApplyOptions struct {
	// Filter, if not nil, is asked once per table of the changeset whether its changes are
	// applied. (Tables missing from the database, or with other primary key columns, are
	// skipped without asking.)
	Filter func(table string) bool
	// Conflict, if not nil, settles each conflict; an action it does not know aborts.
	Conflict func(Conflict) ConflictAction
	// Policy settles every conflict when Conflict is nil: ChangesetAbort (the zero value),
	// ChangesetOmit, or ChangesetReplace (which omits the kinds that cannot be replaced).
	Policy ConflictAction
	// Flags are ApplyFlags bits.
	Flags ApplyFlags
}

// applier is the Go side of one apply's callbacks.
type applier struct {
	c    *Conn
	opts *ApplyOptions
	// failed is set once a callback panicked: every later call stops the apply.
	failed bool
}

// filterStop is the filter's answer that stops the apply and undoes it (the library runs an
// apply with a filter inside a savepoint of its own).
const filterStop = -1

func (a *applier) Filter(table []byte) (apply int32) {
	if a.failed {
		return filterStop
	}
	a.c.inHook++
	defer func() {
		if a.c.hookDone(recover(), "changeset filter", false) {
			a.failed, apply = true, filterStop
		}
	}()
	if a.opts.Filter(string(table)) {
		return 1
	}
	return 0
}

func (a *applier) Conflict(x capi.Conflict) (action int32) {
	if a.failed {
		return capi.ChangesetAbort
	}
	a.c.inHook++
	defer func() {
		if a.c.hookDone(recover(), "conflict func", false) {
			a.failed, action = true, capi.ChangesetAbort
		}
	}()
	cf := Conflict{
		Kind:         ConflictKind(x.Kind),
		Op:           int(x.Op),
		Table:        string(x.Table),
		Indirect:     x.Indirect,
		FKViolations: int(x.FKViolations),
	}
	rows := decodeRows(x.Data, &x.Old, &x.New, &x.Conflicting)
	cf.Old, cf.New, cf.Conflicting = rows[0], rows[1], rows[2]
	return a.opts.Conflict(cf).capiAction()
}

// ApplyChangeset applies a changeset or patchset to c (sqlite3changeset_apply_v2), inside a
// savepoint: all of it, or, after an abort, none of it (ErrAbort; ErrConstraint for foreign
// keys). Tables are matched by
// name in "main"; a table that does not exist there, or has other primary key columns, is
// skipped. A change that conflicts with the database is settled by opts.Conflict, or else by
// opts.Policy; opts may be nil (abort at the first conflict). The bytes are not trusted: a
// corrupt changeset is an error (ErrCorrupt), never a crash.
//
// The Filter and Conflict functions are called during the call, on its goroutine, and must
// not use c (SQLite's rule: the apply is running). A panic in one of them stops the apply,
// which is undone (unless ApplyNoSavepoint), and the call returns a *HookPanicError wrapping
// ErrAbort.
func (c *Conn) ApplyChangeset(changeset []byte, opts *ApplyOptions) error {
	if opts == nil {
		opts = &ApplyOptions{}
	}
	filter, conflict := opts.Filter != nil, opts.Conflict != nil
	var a *applier
	if filter || conflict {
		a = &applier{c: c, opts: opts}
	}
	var rc int32
	if a == nil {
		rc = c.h.ApplyChangeset(changeset, uint32(opts.Flags), opts.Policy.capiAction(), nil, false, false)
	} else {
		rc = c.h.ApplyChangeset(changeset, uint32(opts.Flags), opts.Policy.capiAction(), a, filter, conflict)
	}
	if rc != capi.OK {
		return c.err(rc, "")
	}
	return c.takePanic(nil)
}

// ApplyChangesetFrom is ApplyChangeset with the changeset read from r (all of it, before
// anything is applied: the library takes a changeset in one piece).
func (c *Conn) ApplyChangesetFrom(r io.Reader, opts *ApplyOptions) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return c.ApplyChangeset(b, opts)
}

// InvertChangeset returns the changeset that undoes changeset (sqlite3changeset_invert):
// inserts become deletes and the other way round, updates swap their old and new values. A
// patchset cannot be inverted (ErrCorrupt). An empty changeset gives an empty (nil) one. It
// involves no connection: any goroutine may call it.
func InvertChangeset(changeset []byte) ([]byte, error) {
	b, rc := capi.ChangesetInvert(changeset)
	if rc != capi.OK {
		return nil, codeError(rc, "")
	}
	return b.Copy(), nil
}

// ConcatChangesets returns the changeset that does what a then b do
// (sqlite3changeset_concat): changes to the same row are merged into one. Both must be
// changesets, or both patchsets (ErrError otherwise). Any goroutine may call it.
func ConcatChangesets(a, b []byte) ([]byte, error) {
	out, rc := capi.ChangesetConcat(a, b)
	if rc != capi.OK {
		return nil, codeError(rc, "")
	}
	return out.Copy(), nil
}

// ChangesetChange is one change of a changeset or patchset, as ReadChangeset hands it over
// (zombiezen's ChangesetIterator's operation, key and rows in one value). Everything in it is
// a copy, which may be kept. The rows hold Table's columns, decoded as Conflict's (int64,
// float64, string, []byte, nil), with Undefined for the columns the change does not carry.
type ChangesetChange struct {
	// Table is the change's table.
	Table string
	// Op is the change: OpInsert, OpDelete or OpUpdate.
	Op int
	// Indirect says whether the change was recorded as indirect (Session.SetIndirect, or
	// made by a trigger or a foreign key action).
	Indirect bool
	// PrimaryKey has one element per column of Table: true for the columns of its primary
	// key.
	PrimaryKey []bool
	// Old is the row before the change (DELETE, UPDATE; nil for an INSERT): for an UPDATE,
	// the columns it does not change and that are not in the primary key are Undefined; for
	// a patchset's DELETE, every column but the key's.
	Old []any
	// New is the row after the change (INSERT, UPDATE; nil for a DELETE): for an UPDATE,
	// the columns it does not change are Undefined.
	New []any
}

// changesetReader is the Go side of one changeset read.
type changesetReader struct {
	fn    func(ChangesetChange) error
	names names
	// err is fn's error, which stopped the read; panic is fn's panic, which stopped it too.
	err   error
	panic *HookPanicError
}

const readStop = 1 // the reader's answer that stops the read

func (r *changesetReader) Changes(changes []capi.ChangesetChange, data *byte) (stop int32) {
	defer func() {
		if v := recover(); v != nil {
			r.panic = &HookPanicError{Hook: "changeset reader", Value: v, Stack: debug.Stack()}
			stop = readStop
		}
	}()
	n := 0
	for i := range changes {
		n += len(changes[i].PrimaryKey)
	}
	pks := make([]bool, n) // the primary key flags of the whole batch, in one allocation
	for i := range changes {
		x := &changes[i]
		pk := pks[:len(x.PrimaryKey):len(x.PrimaryKey)]
		pks = pks[len(x.PrimaryKey):]
		for j, b := range x.PrimaryKey {
			pk[j] = b != 0
		}
		rows := decodeRows(data, &x.Old, &x.New)
		err := r.fn(ChangesetChange{
			Table:      r.names.get(x.Table),
			Op:         int(x.Op),
			Indirect:   x.Indirect,
			PrimaryKey: pk,
			Old:        rows[0],
			New:        rows[1],
		})
		if err != nil {
			r.err = err
			return readStop
		}
	}
	return 0
}

// read reads changeset with flags (capi.ChangesetReadInvert) into r.fn. A panic of fn is left
// in r.panic, for the caller to report or resume.
func (r *changesetReader) read(changeset []byte, flags uint32) error {
	rc := capi.ChangesetRead(changeset, flags, 0, r)
	switch {
	case r.panic != nil:
		return r.panic
	case r.err != nil:
		return r.err
	case rc != capi.OK:
		return codeError(rc, "")
	}
	return nil
}

// ReadChangeset calls fn with each change of a changeset or patchset, in its order (the
// changes of sqlite3changeset_start_v2's iterator). The core hands the changes over in
// batches (up to 256 a cgo call, fewer when their values are large), which Go decodes and
// passes to fn one by one. It involves no connection: any goroutine may call it, and fn may
// use any connection.
//
// If fn returns an error, the read stops and ReadChangeset returns that error. A panic in fn
// stops it too, and ReadChangeset returns a *HookPanicError (Hook "changeset reader"). The
// bytes are not trusted: a corrupt or truncated changeset gives fn the changes before the
// damage, then ReadChangeset returns an *Error (ErrCorrupt), never a crash.
func ReadChangeset(changeset []byte, fn func(ChangesetChange) error) error {
	r := changesetReader{fn: fn}
	return r.read(changeset, 0)
}

// ReadInvertedChangeset is ReadChangeset over the changeset that undoes changeset (what
// InvertChangeset returns), read without making it: inserts come as deletes and the other
// way round, updates with their old and new values swapped. A patchset cannot be inverted
// (ErrCorrupt).
func ReadInvertedChangeset(changeset []byte, fn func(ChangesetChange) error) error {
	r := changesetReader{fn: fn}
	return r.read(changeset, capi.ChangesetReadInvert)
}

// ChangesetChanges returns the changes of a changeset or patchset for a range loop, as
// ReadChangeset reads them:
//
//	for ch, err := range sqlbatch.ChangesetChanges(cs) {
//		if err != nil {
//			return err // the changeset is corrupt: the changes before the damage came first
//		}
//		// ch.Table, ch.Op, ...
//	}
//
// Each change comes with a nil error; a corrupt changeset ends with one zero ChangesetChange
// and the error. Breaking out of the loop stops the read. A panic in the loop's body goes on
// from the range statement, with its value (it is recovered inside the read, which must not
// unwind through C, and raised again once the read has stopped).
func ChangesetChanges(changeset []byte) iter.Seq2[ChangesetChange, error] {
	return changesetSeq(changeset, 0)
}

// InvertedChangesetChanges is ChangesetChanges over the inverse of changeset (see
// ReadInvertedChangeset).
func InvertedChangesetChanges(changeset []byte) iter.Seq2[ChangesetChange, error] {
	return changesetSeq(changeset, capi.ChangesetReadInvert)
}

var errBreak = errors.New("sqlbatch: range loop ended")

func changesetSeq(changeset []byte, flags uint32) iter.Seq2[ChangesetChange, error] {
	return func(yield func(ChangesetChange, error) bool) {
		r := changesetReader{fn: func(c ChangesetChange) error {
			if !yield(c, nil) {
				return errBreak
			}
			return nil
		}}
		err := r.read(changeset, flags)
		if r.panic != nil {
			panic(r.panic.Value)
		}
		if err != nil && err != errBreak {
			yield(ChangesetChange{}, err)
		}
	}
}
