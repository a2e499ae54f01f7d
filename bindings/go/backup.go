package sqlbatch

import (
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Backup is an online backup of one connection's database into another's
// (https://sqlite.org/backup.html), made by Conn.Backup: Step copies pages, Finish ends it.
//
// Until it is finished, the destination connection belongs to the backup: every other call
// on it, its statements and its blob handles fails with ErrBusy (SQLite leaves using a
// backup's destination undefined; sqlbatch refuses it), except Interrupt and Close. The
// source stays usable between steps; writes to it made through the source connection are
// copied by the same backup, writes made by other connections restart it. A step uses both
// connections, so neither may be in use by another goroutine during Step or Finish.
//
// A Backup must be finished (Finish or Close) whether or not it completed; it may be
// finished before or after either connection is closed. There is no finalizer.
type Backup struct {
	dest, src *Conn
	h         capi.Backup
}

// Backup starts copying the database src of srcConn (e.g. "main"; "" is "main") over the
// database dest of c ("" is "main"), with mattn/go-sqlite3's argument order: c is the
// destination. Nothing is copied until Step. The two connections must be different
// (ErrInvalidArgument); an unknown schema, or a destination with a read transaction open,
// gives ErrError.
func (c *Conn) Backup(dest string, srcConn *Conn, src string) (*Backup, error) {
	var sh capi.Conn
	if srcConn != nil {
		sh = srcConn.h
	}
	h, rc := c.h.BackupInit(dest, sh, src)
	if rc != capi.OK {
		if srcConn == nil {
			return nil, errorf(ErrInvalidArgument, "Backup: nil source connection")
		}
		return nil, c.err(rc, "")
	}
	c.backups.Add(1)
	srcConn.backups.Add(1)
	return &Backup{dest: c, src: srcConn, h: h}, nil
}

var errBackupFinished = errorf(ErrClosed, "sqlbatch: backup is finished")

// Step copies up to pages pages (all that remain when pages < 0) and reports whether the
// copy is complete. An error that has Temporary() true (ErrBusy or ErrLocked: a lock held by
// another connection) loses nothing: call Step again later. ErrClosed means a connection was
// closed; any other error is final: only Finish remains.
//
// mattn/go-sqlite3's Step returns (false, nil) on ErrBusy and ErrLocked; the database/sql
// driver's Backup (driver.Conn.Backup) does the same, for code written against it.
func (b *Backup) Step(pages int) (done bool, err error) {
	if b.h.IsNil() {
		return false, errBackupFinished
	}
	if pages < 0 || pages > 1<<31-1 {
		pages = -1
	}
	switch rc := b.h.Step(int32(pages)); rc {
	case capi.Done:
		return true, nil
	case capi.OK:
		return false, nil
	default:
		return false, b.dest.err(rc, "")
	}
}

// Remaining returns the number of pages still to copy, as of the last Step (0 once
// finished).
func (b *Backup) Remaining() int {
	n, _ := b.h.Remaining()
	return int(n)
}

// PageCount returns the number of pages of the source database, as of the last Step (0
// before the first, and once finished).
func (b *Backup) PageCount() int {
	n, _ := b.h.PageCount()
	return int(n)
}

// Finish ends the backup, complete or not, and releases it: the destination holds the
// copy if Step reported it complete, and is left as it was otherwise. It returns the error
// that ended the backup, if one did (an I/O error, say; not ErrBusy). Finishing twice is a
// no-op.
func (b *Backup) Finish() error {
	if b.h.IsNil() {
		return nil
	}
	rc := b.h.Finish()
	b.h = capi.Backup{}
	b.dest.backups.Add(-1)
	b.src.backups.Add(-1)
	if rc != capi.OK {
		return b.dest.err(rc, "")
	}
	return nil
}

// Close is Finish, as in mattn/go-sqlite3.
func (b *Backup) Close() error { return b.Finish() }

// ActiveBackups returns the number of unfinished backups that use c, as source or
// destination (the database/sql driver uses it to keep such a connection out of its pool).
func (c *Conn) ActiveBackups() int { return int(c.backups.Load()) }

// BackupToFile copies the database schema of c ("" is "main") into the file at path,
// created or replaced, in one call: the online backup, all pages in one step. VACUUM INTO
// is the alternative that also defragments. The file must not be open in another
// connection; c is busy for the length of the call.
func (c *Conn) BackupToFile(schema, path string) error {
	if rc := c.h.BackupToFile(schema, path); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// RestoreFromFile replaces the database schema of c ("" is "main") with the database in the
// file at path (opened read-only), in one call. A file that is not a database gives
// ErrNotADB; no transaction may be open on c.
func (c *Conn) RestoreFromFile(schema, path string) error {
	if rc := c.h.RestoreFromFile(schema, path); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}
