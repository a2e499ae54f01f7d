package sqlbatch

import (
	"io"
	"unsafe"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// BlobHandle is a handle on one TEXT or BLOB value of a table, for incremental I/O
// (https://sqlite.org/c3ref/blob_open.html), made by Conn.OpenBlob. It implements
// io.Reader, io.Writer, io.Seeker, io.ReaderAt, io.WriterAt and io.Closer, as ncruces' and
// zombiezen's blobs do: Read and Write move a cursor (Seek sets it), ReadAt and WriteAt do
// not. Every read or write is one call into C whatever its length.
//
// The value's size is fixed: writes cannot grow it (create it of the right size first, with
// zeroblob(?) in SQL: "INSERT INTO t(data) VALUES (zeroblob(?))" with the size as argument). If the row is changed or deleted by anything
// but this handle, reads and writes fail with ErrAbort; Reopen moves the handle to a row
// again (the same one, to see its new value). Like its Conn, a BlobHandle is used by one goroutine
// at a time. Close it when done, before or after its connection is closed (once the
// connection is closed its calls fail with ErrClosed); there is no finalizer.
type BlobHandle struct {
	conn *Conn
	h    capi.Blob
	size int64
	off  int64
}

var (
	_ io.ReadWriteSeeker = (*BlobHandle)(nil)
	_ io.ReaderAt        = (*BlobHandle)(nil)
	_ io.WriterAt        = (*BlobHandle)(nil)
	_ io.Closer          = (*BlobHandle)(nil)
)

var errBlobClosed = errorf(ErrClosed, "sqlbatch: blob handle is closed")

// OpenBlob opens the value in column column of row rowid of table table of database schema
// ("" is "main") for reading and, if write is set, for writing (sqlite3_blob_open). A
// missing table, column or row, a value that is neither TEXT nor BLOB, or an indexed
// column opened for writing gives ErrError; a read-only database opened for writing,
// ErrReadOnly.
func (c *Conn) OpenBlob(schema, table, column string, rowid int64, write bool) (*BlobHandle, error) {
	h, rc := c.h.BlobOpen(schema, table, column, rowid, write)
	if rc != capi.OK {
		return nil, c.err(rc, "")
	}
	b := &BlobHandle{conn: c, h: h}
	n, rc := h.Size()
	if rc != capi.OK {
		h.Close()
		return nil, c.err(rc, "")
	}
	b.size = int64(n)
	return b, nil
}

func (b *BlobHandle) err(rc int32) error { return b.conn.err(rc, "") }

// Size returns the size of the value in bytes.
func (b *BlobHandle) Size() int64 { return b.size }

// Read reads up to len(p) bytes at the cursor and moves it past them; at the end of the
// value it returns 0, io.EOF.
func (b *BlobHandle) Read(p []byte) (int, error) {
	if b.h.IsNil() {
		return 0, errBlobClosed
	}
	if b.off >= b.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	if n := b.size - b.off; int64(len(p)) > n {
		p = p[:n]
	}
	if rc := b.h.Read(uint64(b.off), p); rc != capi.OK {
		return 0, b.err(rc)
	}
	b.off += int64(len(p))
	return len(p), nil
}

// ReadAt reads len(p) bytes at offset off, as io.ReaderAt says: fewer only at the end of the
// value, with io.EOF (also when off is at or past the end). A negative off gives
// ErrOutOfRange.
func (b *BlobHandle) ReadAt(p []byte, off int64) (int, error) {
	if b.h.IsNil() {
		return 0, errBlobClosed
	}
	if off < 0 {
		return 0, errorf(ErrOutOfRange, "sqlbatch: BlobHandle.ReadAt: negative offset")
	}
	if off >= b.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	var eof error
	if n := b.size - off; int64(len(p)) > n {
		p, eof = p[:n], io.EOF
	}
	if rc := b.h.Read(uint64(off), p); rc != capi.OK {
		return 0, b.err(rc)
	}
	return len(p), eof
}

// Write writes p at the cursor and moves it past them. The write must fit in the value
// (ErrOutOfRange, nothing written, otherwise); the handle must have been opened for writing
// (ErrReadOnly).
func (b *BlobHandle) Write(p []byte) (int, error) {
	n, err := b.WriteAt(p, b.off)
	b.off += int64(n)
	return n, err
}

// WriteAt writes p at offset off: all of it, or nothing and an error (ErrOutOfRange for a
// range that is not inside the value).
func (b *BlobHandle) WriteAt(p []byte, off int64) (int, error) {
	if b.h.IsNil() {
		return 0, errBlobClosed
	}
	if off < 0 {
		return 0, errorf(ErrOutOfRange, "sqlbatch: BlobHandle.WriteAt: negative offset")
	}
	if rc := b.h.Write(uint64(off), p); rc != capi.OK {
		return 0, b.err(rc)
	}
	return len(p), nil
}

// Seek sets the cursor of Read and Write, as io.Seeker says. An offset past the end is
// allowed: Read then returns io.EOF and Write fails. A negative result is an error.
func (b *BlobHandle) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += b.size
	default:
		return 0, errorf(ErrInvalidArgument, "sqlbatch: BlobHandle.Seek: invalid whence")
	}
	if offset < 0 {
		return 0, errorf(ErrOutOfRange, "sqlbatch: BlobHandle.Seek: negative position")
	}
	b.off = offset
	return offset, nil
}

// Reopen moves the handle to the same column of row rowid (faster than closing and opening
// again) and the cursor to 0. It also revives a handle whose row changed (ErrAbort). On
// failure (ErrError for no such row, or a value that is neither TEXT nor BLOB there) reads
// and writes fail with ErrAbort until a Reopen succeeds.
func (b *BlobHandle) Reopen(rowid int64) error {
	if b.h.IsNil() {
		return errBlobClosed
	}
	b.off = 0
	if rc := b.h.Reopen(rowid); rc != capi.OK {
		b.size = 0
		return b.err(rc)
	}
	n, rc := b.h.Size()
	if rc != capi.OK {
		b.size = 0
		return b.err(rc)
	}
	b.size = int64(n)
	return nil
}

// Close releases the handle. Closing twice is a no-op.
func (b *BlobHandle) Close() error {
	if !b.h.IsNil() {
		b.h.Close()
		b.h = capi.Blob{}
	}
	return nil
}

// BlobToEnd as a BlobRange's Len reads to the end of the row's value.
const BlobToEnd = -1

// BlobRange is one range of BlobHandle.ReadMany: Len bytes at Offset of the value in row RowID
// (of the handle's table and column). It has the layout of the C ABI's sqlbatch_blob_range,
// so that ReadMany passes a slice of them to C as it is.
type BlobRange struct {
	// RowID is the row to read (in).
	RowID int64
	// Offset is the first byte to read (in).
	Offset int64
	// Len is, in, how many bytes to read, or BlobToEnd; out, how many were read, and for
	// the range that did not fit the buffer (ErrBufferTooSmall), how many it needs.
	Len int64
	// At is where in the buffer the range's bytes are (out): buf[At : At+Len].
	At int64
}

// Compile-time checks that BlobRange and capi.BlobRange have the same layout.
var (
	_ [unsafe.Sizeof(BlobRange{}) - unsafe.Sizeof(capi.BlobRange{})]struct{}
	_ [unsafe.Sizeof(capi.BlobRange{}) - unsafe.Sizeof(BlobRange{})]struct{}
	_ [unsafe.Offsetof(BlobRange{}.Len) - unsafe.Offsetof(capi.BlobRange{}.Len)]struct{}
	_ [unsafe.Offsetof(BlobRange{}.At) - unsafe.Offsetof(capi.BlobRange{}.At)]struct{}
)

// ReadMany reads every range of ranges into buf, back to back, in one call into C: range
// i's bytes are buf[ranges[i].At : ranges[i].At+ranges[i].Len]. The handle moves from row
// to row as needed and stays on the last row read (its cursor goes to 0); one call serves
// any number of small values, such as 100,000 thumbnails by rowid.
//
// done is the number of ranges read, in every case: on an error, ranges[:done] are complete
// and ranges[done] is the one that failed. ErrBufferTooSmall means ranges[done] does not fit
// in what is left of buf, its Len then being what it needs: use the bytes read so far and
// call again with ranges[done:] (whose Len you set back, if it was BlobToEnd) and a buffer
// with room. A missing row, or one that holds neither TEXT nor BLOB in the column, gives
// ErrError; a range outside the value, ErrOutOfRange.
func (b *BlobHandle) ReadMany(ranges []BlobRange, buf []byte) (done int, err error) {
	if b.h.IsNil() {
		return 0, errBlobClosed
	}
	cr := unsafe.Slice((*capi.BlobRange)(unsafe.Pointer(unsafe.SliceData(ranges))), len(ranges))
	done, rc := b.h.ReadMany(cr, buf)
	b.off = 0
	if n, src := b.h.Size(); src == capi.OK {
		b.size = int64(n)
	}
	if rc != capi.OK {
		return done, b.err(rc)
	}
	return done, nil
}
