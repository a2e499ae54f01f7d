package driver

import (
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

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

// Blob is the incremental I/O handle of Conn.OpenBlob (the low-level package names it
// BlobHandle, since sqlbatch.Blob is the BLOB type's constant there).
type Blob = sqlbatch.BlobHandle

// OpenBlob opens the value in column column of row rowid of table table of database schema
// ("" is "main") for incremental I/O, for writing too if write is set; see
// sqlbatch.BlobHandle. The handle belongs to this connection: use it inside sql.Conn.Raw's
// callback (or while holding the sql.Conn) and close it before giving the connection back.
func (c *Conn) OpenBlob(schema, table, column string, rowid int64, write bool) (*Blob, error) {
	return c.c.OpenBlob(schema, table, column, rowid, write)
}

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

// BackupToFile copies database schema ("" is "main") into the file at path, created or
// replaced, in one call; see sqlbatch.Conn.BackupToFile.
func (c *Conn) BackupToFile(schema, path string) error { return c.c.BackupToFile(schema, path) }

// RestoreFromFile replaces database schema ("" is "main") with the database in the file at
// path, in one call; see sqlbatch.Conn.RestoreFromFile.
func (c *Conn) RestoreFromFile(schema, path string) error {
	return c.c.RestoreFromFile(schema, path)
}

// SQLiteBackup is Backup under mattn/go-sqlite3's name, so that code written for mattn's
// backup ports by changing the package.
type SQLiteBackup = Backup
