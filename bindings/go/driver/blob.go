package driver

import (
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

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
