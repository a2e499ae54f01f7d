package sqlbatch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Type is the type of one value. SQLite's types belong to values, not columns: two rows
// of the same column may hold different types.
type Type uint8

// The five SQLite types, with SQLite's numbers (SQLITE_INTEGER ... SQLITE_NULL).
const (
	Integer Type = capi.KindInteger
	Float   Type = capi.KindFloat
	Text    Type = capi.KindText
	Blob    Type = capi.KindBlob
	Null    Type = capi.KindNull
)

// String returns "INTEGER", "FLOAT", "TEXT", "BLOB" or "NULL".
func (t Type) String() string {
	switch t {
	case Integer:
		return "INTEGER"
	case Float:
		return "FLOAT"
	case Text:
		return "TEXT"
	case Blob:
		return "BLOB"
	case Null:
		return "NULL"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Rows iterates over the rows of a query, one batch at a time: Next fetches a whole batch
// of rows (Stmt.SetBatchRows, DefaultBatchRows) in one call into C and then serves rows from
// it with no further call. The column accessors (Int64, Text, ...) read the current row's
// cells from the batch.
//
// Typical use:
//
//	rows, err := stmt.Query(args...)
//	...
//	defer rows.Close()
//	for rows.Next() {
//		id, name := rows.Int64(0), rows.Text(1)
//		...
//	}
//	if err := rows.Err(); err != nil { ... }
//
// Column accessors panic if the column index is out of range or there is no current row.
// Reading a value as its own storage class (Int64 of an INTEGER, Text of a TEXT) is a plain
// load from the batch. A value read as another class is converted exactly as SQLite's
// sqlite3_column_int64, _double, _text and _blob would convert it, by sqlbatch itself
// (sqlbatch_value_convert, one call into C per such read): Int64 of a FLOAT truncates it,
// Int64 of the TEXT '1e3' is 1 and Float64 of it 1000, Text of the REAL 1e21 is "1.0e+21"
// and of -0.0 "0.0", Text of an INTEGER is its decimal digits. TEXT and BLOB read as each
// other give their bytes unchanged. NULL reads as 0, 0.0, "" (Text) and nil (Blob).
//
// # Memory
//
// A batch's TEXT and BLOB bytes are held by the statement until the next batch: the first
// batch of a query in C memory, and the following ones (once a result has shown it carries
// bytes and spans batches) in a Go buffer that the statement fetches them into directly
// (sqlbatch_stmt_fetch_into), batch after batch. RawBytes returns a slice of that memory: no
// copy, valid only until the next call to Next or Close. Text and Blob return values that
// stay valid forever: the first of them in a batch makes the batch's bytes Go memory that is
// never written again (no copy if they are already in the Go buffer, one copy otherwise),
// and every string or slice of that batch points into it, so reading many strings costs at
// most one allocation per batch, not one per value. A batch whose bytes were only read in
// place is overwritten by the next one. (A string kept for long keeps the memory of its
// batch, up to a few batches, alive; strings.Clone it if that matters.)
//
// Large rows (more than 32 KiB of TEXT and BLOB a row, on average over a batch) are the
// exception: their batches stay in C memory, and Text, Blob and Values copy each value they
// hand out, and only it, into a new string or slice of its own (see rows_large.go). RawBytes
// is the same view as for small rows, valid until the next Next or Close.
type Rows struct {
	stmt     *Stmt
	ownsStmt bool
	// base points at the batch's cells (C memory) and off is the byte offset of the current
	// row's first cell (an integer, so that moving to the next row costs no GC write
	// barrier); width is the number of cells of the row (0 when there is no current row, so
	// that accessors panic), and cols a slice of that length, of a zero-size type (no
	// memory), whose indexing is the accessors' bounds check.
	base   unsafe.Pointer
	cols   []struct{}
	off    uintptr
	width  int
	stride uintptr // bytes per row
	left   int     // rows of the batch after the current one
	ncols  int
	nrows  int
	// arena holds the current batch's TEXT and BLOB bytes: C memory owned by the statement,
	// or (inGo) a window of the statement's Go chunk, which ends at chunkEnd. goData is the
	// same bytes in Go memory once a Text, Blob or Values has handed some of them out: arena
	// itself if inGo (the chunk is then kept up to chunkEnd), otherwise a copy.
	arena    []byte
	goData   []byte
	inGo     bool
	chunkEnd int
	nums     []uint64 // boxes of the batch's numbers for Values, made by its first Values
	box      *boxer   // the connection's slabs, for Values
	lastData int      // bytes of the previous batch
	rowEst   int      // bytes of the largest row so far (see chunkSize)
	intoGo   bool     // batches are fetched into the statement's chunk (see fetchInto)
	// bigRows says that the last batch's rows were large (over largeRow bytes on average), so
	// that the next batch is fetched into C memory, not into the chunk; large says that the
	// current batch is such a batch, in C memory, whose values are copied out one at a time
	// (rows_large.go).
	bigRows bool
	large   bool
	done    bool
	closed  bool
	err     error
	// first is the first batch of the run and firstRC its status, fetched by
	// Stmt.QueryParams (hasFirst) until the first Next takes it.
	first    capi.Batch
	firstRC  int32
	hasFirst bool
	// blobEnc is the Convert flag for a BLOB read as a number in this database's encoding
	// (ConvertUTF16LE/BE, or 0 for UTF-8), asked of the connection once per run when such a
	// read first happens (blobEncKnown).
	blobEnc      uint8
	blobEncKnown bool
}

const cellSize = unsafe.Sizeof(capi.Value{})

// cell returns the cell of column i of the current row; it panics (index out of range)
// if there is no such column or no current row.
func (r *Rows) cell(i int) *capi.Value {
	_ = r.cols[i] // the bounds check (it panics if there is no column i)
	return (*capi.Value)(unsafe.Add(r.base, r.off+uintptr(i)*cellSize))
}

// Next advances to the next row, fetching a new batch when the current one is used up. It
// returns false at the end of the rows or on an error (see Err).
func (r *Rows) Next() bool {
	if r.left != 0 {
		r.left--
		r.off += r.stride
		return true
	}
	return r.fetch()
}

func (r *Rows) fetch() bool {
	r.width, r.cols, r.base, r.off = 0, nil, nil, 0
	if r.hasFirst {
		// The first batch, fetched by Stmt.QueryParams.
		r.hasFirst = false
		if r.take(r.first, r.firstRC) {
			return true
		}
	}
	for !r.done && !r.closed {
		s := r.stmt
		if s.closed {
			r.err = errClosedStmt
			r.done = true
			return false
		}
		var b capi.Batch
		var rc int32
		if !s.stepped {
			// The first step of a run may recompile the statement (see Stmt.Columns).
			var reprepares int64
			b, reprepares, rc = s.h.FetchFirst(s.batchRows, DefaultBatchBytes)
			s.ranFirst(reprepares)
		} else if !r.intoGo || r.bigRows {
			b, rc = s.h.Fetch(s.batchRows, DefaultBatchBytes)
		} else {
			b, rc = r.fetchInto(s)
		}
		if r.take(b, rc) {
			return true
		}
	}
	return false
}

// take makes b, a batch just fetched with status rc, the current one: true if it holds a
// row (the current row is then its first), false at the end of the rows or on an error
// (see Err), or for a batch with no row.
func (r *Rows) take(b capi.Batch, rc int32) bool {
	s := r.stmt
	s.stepped = true
	switch rc {
	case capi.Row:
	case capi.Done:
		r.done = true
	default:
		r.err = s.err(rc)
		r.done = true
		r.nrows, r.left = 0, 0
		return false
	}
	// After a fetch that returned rows, a statement that fetches ahead is on the worker,
	// whose hooks may be recording a panic now: the panic will come with the error it
	// causes (a progress handler's interrupt, a busy handler's ErrBusy) at a later fetch,
	// after the rows before it, the only hooks a read-only statement runs.
	if !(s.ahead && rc == capi.Row) && s.conn.hookPanic != nil {
		r.err = s.conn.takePanic(nil)
		r.done = true
		r.nrows, r.left = 0, 0
		return false
	}
	r.ncols, r.nrows = b.NCols, b.NRows
	r.arena, r.goData, r.nums, r.inGo, r.large = nil, nil, nil, false, false
	if b.DataLen > 0 {
		if b.Data == nil {
			// Fetched into the chunk, from s.keep on.
			r.arena = s.chunk[s.keep : s.keep+b.DataLen : s.keep+b.DataLen]
			r.inGo, r.chunkEnd = true, s.keep+b.DataLen
		} else {
			r.arena = unsafe.Slice(b.Data, b.DataLen)
		}
		if b.NRows > 0 {
			r.sortBatch(b.DataLen / b.NRows)
		}
	}
	// More rows follow, with bytes: fetch them straight into Go memory from now on.
	r.intoGo = r.intoGo || (rc == capi.Row && b.DataLen > 0)
	r.lastData = b.DataLen
	if r.done {
		// Let go of the chunk (this batch keeps what it uses of it alive): a statement
		// kept for later, by the driver's cache for one, should not hold memory.
		s.chunk, s.keep = nil, 0
	}
	if r.nrows > 0 {
		r.base, r.off = unsafe.Pointer(b.Cells), 0
		r.width, r.cols = r.ncols, make([]struct{}, r.ncols)
		r.stride = uintptr(r.ncols) * cellSize
		r.left = r.nrows - 1
		return true
	}
	return false
}

// Chunks: once a result has shown that it carries TEXT or BLOB bytes and has more than one
// batch, its batches are fetched with sqlbatch_stmt_fetch_into straight into a Go byte slice
// of the statement's (the chunk), one batch after the other, so that the strings and slices
// Text, Blob and Values hand out point into the chunk with no copy. The part of the chunk
// before s.keep holds bytes that were handed out and is never written again; a batch whose
// bytes were not handed out is overwritten by the next one (the chunk is reused). A chunk
// whose free part would not hold the next batch is dropped (the values that point into it
// keep it alive) for a new one.
//
// Chunks are at most 32 KiB for rows of up to 8 KiB, about one batch of a typical row size:
// a string kept from a batch keeps its chunk alive, so chunks are kept close to the size of
// the batch copy they replace. Larger rows get chunks sized from the largest row the result
// has shown so far (rowEst, the bytes of a row of a batch on average, or what the core said
// the next row needs): room for as many such rows as DefaultBatchBytes holds, from two to
// four, and 1/64 of a row to spare, so that a stream of large rows costs one fetch per chunk, and a second fetch
// (sqlbatch_stmt_fetch_into's SQLBATCH_E_BUFFER_TOO_SMALL, which says how much the row needs)
// only when a row is larger than any before it.
//
// New chunks are not zeroed (makeNoZero): the core writes every byte that is read from
// them.
//
// Rows of more than largeRow bytes are not fetched into chunks at all (rows_large.go), and
// rowEst counts only the rows that are.
const (
	minChunk = 8 << 10
	maxChunk = 32 << 10
)

// noteRow records a row of n bytes in the result's estimate of the bytes of its rows.
func (r *Rows) noteRow(n int) {
	if n > r.rowEst {
		r.rowEst = n
	}
}

// chunkSize is the size of a new chunk after a batch of batchBytes, when the largest row so
// far took rowEst bytes.
func chunkSize(batchBytes, rowEst int) int {
	if rowEst <= maxChunk/4 {
		return min(max(4*batchBytes, minChunk), maxChunk)
	}
	k := min(max(DefaultBatchBytes/rowEst, 2), 4)
	return k*rowEst + rowEst/64 // a little to spare, for rows of varying sizes
}

// fetchInto fetches the next batch into the statement's chunk, starting a new chunk when
// what is left of it would hold less than a quarter of a batch like the previous one, or
// not even a row as large as the largest so far.
func (r *Rows) fetchInto(s *Stmt) (capi.Batch, int32) {
	if len(s.chunk)-s.keep < max(r.lastData/4, 256, r.rowEst) {
		s.chunk, s.keep = makeNoZero(chunkSize(r.lastData, r.rowEst)), 0
	}
	b, rc := s.h.FetchInto(s.batchRows, s.chunk[s.keep:])
	if rc == capi.EBufferTooSmall {
		// A row larger than any before it: b.DataLen is what it needs. A large one is
		// fetched into C memory (the core keeps the row for the next fetch of either kind).
		if b.DataLen > largeRow {
			r.bigRows = true
			return s.h.Fetch(s.batchRows, DefaultBatchBytes)
		}
		r.noteRow(b.DataLen)
		s.chunk, s.keep = makeNoZero(chunkSize(r.lastData, r.rowEst)), 0
		b, rc = s.h.FetchInto(s.batchRows, s.chunk)
	}
	return b, rc
}

// makeNoZero returns n bytes of new Go memory that are not zeroed first, through
// strings.Builder.Grow (whose buffer the runtime allocates without clearing it: Go offers no
// other such allocation outside the runtime). The Builder is dropped at once, so the slice is
// the only reference to its buffer; the buffer holds no pointers, so the GC never reads its
// bytes. Whatever it held before is never read: a chunk's bytes are read only where
// sqlbatch_stmt_fetch_into wrote them.
func makeNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0) // a non-empty string, whose StringData is the buffer
	return unsafe.Slice(unsafe.StringData(b.String()), n)
}

// Err returns the error that ended the iteration, if any.
func (r *Rows) Err() error { return r.err }

// Close ends the iteration. If the rows were not read to the end, the statement is rewound
// (releasing its read lock); if the Rows came from Conn.Query, the statement is finalized.
// Closing twice is a no-op.
func (r *Rows) Close() error {
	if r.closed {
		return nil
	}
	r.closed, r.hasFirst = true, false
	r.base, r.off, r.width, r.cols, r.arena, r.goData, r.nums = nil, 0, 0, nil, nil, nil, nil
	r.nrows, r.left = 0, 0
	s := r.stmt
	if r.ownsStmt {
		return s.Close()
	}
	if !r.done && !s.closed {
		if rc := s.h.Reset(); rc == capi.OK {
			s.stepped = false
		}
	}
	s.chunk, s.keep = nil, 0
	return nil
}

// Stmt returns the statement the rows come from.
func (r *Rows) Stmt() *Stmt { return r.stmt }

// Columns returns the result columns (see Stmt.Columns).
func (r *Rows) Columns() []Column { return r.stmt.Columns() }

// ColumnCount returns the number of columns of the current batch (of the statement, before
// the first Next).
func (r *Rows) ColumnCount() int {
	if r.nrows > 0 {
		return r.ncols
	}
	return r.stmt.ColumnCount()
}

// BatchRows returns the number of rows in the current batch, and how many of them are
// still to come after the current row.
func (r *Rows) BatchRows() (total, left int) { return r.nrows, r.left }

// Type returns the type of column i of the current row.
func (r *Rows) Type(i int) Type { return Type(r.cell(i).Kind) }

// IsNull reports whether column i of the current row is NULL.
func (r *Rows) IsNull(i int) bool { return r.cell(i).Kind == capi.KindNull }

// The column accessors are small enough for the compiler to inline into the caller's loop:
// their fast path (the value has the asked type) is a few loads, and their slow path
// (conversions) is reached through a function parameter, which the inliner counts as a
// cheap call, where a direct call would cost the accessor its inlining.

// Int64 returns column i of the current row as an int64.
func (r *Rows) Int64(i int) int64 { return int64Of(r, i, (*Rows).int64Slow) }

func int64Of(r *Rows, i int, slow func(*Rows, int) int64) int64 {
	if c := r.cell(i); c.Kind == capi.KindInteger {
		return int64(c.Bits)
	}
	return slow(r, i)
}

func (r *Rows) int64Slow(i int) int64 {
	c := r.cell(i)
	if c.Kind == capi.KindNull {
		return 0
	}
	return int64(r.convert(c, capi.KindInteger, nil).Bits)
}

// convert reads cell c of the current batch as storage class to, through
// sqlbatch_value_convert (what sqlite3_column_* would return); a number rendered as TEXT or
// BLOB is written to buf (nil for a numeric to). A conversion that fails (TEXT beyond
// SQLite's length limit, out of memory) gives a NULL-kind result, read as zero or empty.
func (r *Rows) convert(c *capi.Value, to uint8, buf *[capi.ConvertBufLen]byte) capi.Value {
	v := *c
	var data []byte
	if v.Kind == capi.KindText || v.Kind == capi.KindBlob {
		data = r.raw(c) // the value's own bytes: offset 0 of data
		v.Bits = 0
	}
	if v.Kind == capi.KindBlob && (to == capi.KindInteger || to == capi.KindFloat) {
		to |= r.blobEncoding()
	}
	out, rc := capi.Convert(&v, data, to, buf)
	if rc != capi.OK {
		return capi.Value{Kind: capi.KindNull}
	}
	return out
}

// blobEncoding returns the Convert flag that makes a BLOB's bytes a number as SQLite reads
// them in this connection's main database: as UTF-16 text in a UTF-16 database.
func (r *Rows) blobEncoding() uint8 {
	if !r.blobEncKnown {
		r.blobEncKnown = true
		switch enc, _ := r.stmt.conn.h.Encoding(); enc {
		case capi.EncodingUTF16LE:
			r.blobEnc = capi.ConvertUTF16LE
		case capi.EncodingUTF16BE:
			r.blobEnc = capi.ConvertUTF16BE
		}
	}
	return r.blobEnc
}

// Int returns column i of the current row as an int.
func (r *Rows) Int(i int) int { return int(r.Int64(i)) }

// Bool returns whether column i of the current row is non-zero.
func (r *Rows) Bool(i int) bool { return r.Int64(i) != 0 }

// Float64 returns column i of the current row as a float64.
func (r *Rows) Float64(i int) float64 { return float64Of(r, i, (*Rows).float64Slow) }

func float64Of(r *Rows, i int, slow func(*Rows, int) float64) float64 {
	if c := r.cell(i); c.Kind == capi.KindFloat {
		return math.Float64frombits(c.Bits)
	}
	return slow(r, i)
}

func (r *Rows) float64Slow(i int) float64 {
	c := r.cell(i)
	if c.Kind == capi.KindNull {
		return 0
	}
	return math.Float64frombits(r.convert(c, capi.KindFloat, nil).Bits)
}

// raw returns the bytes of a TEXT or BLOB cell in C memory.
func (r *Rows) raw(c *capi.Value) []byte {
	if c.Len == 0 {
		return emptyBytes
	}
	end := c.Bits + uint64(c.Len)
	return r.arena[c.Bits:end:end]
}

var emptyBytes = []byte{}

// goBytes returns the current batch's bytes in Go memory, to hand out: the chunk they were
// fetched into (which is then kept), or a copy of the C memory holding them.
func (r *Rows) goBytes() []byte {
	if r.goData == nil {
		if r.inGo {
			r.goData = r.arena
			r.stmt.keep = r.chunkEnd
		} else {
			r.goData = append([]byte(nil), r.arena...)
		}
	}
	return r.goData
}

// Text returns column i of the current row as a string: TEXT (and BLOB) bytes as they are,
// numbers as sqlite3_column_text renders them, NULL as "". The string is in Go memory shared with the rest of the
// batch (see Memory above) and needs no copy to keep.
func (r *Rows) Text(i int) string { return textOf(r, i, (*Rows).textSlow) }

func textOf(r *Rows, i int, slow func(*Rows, *capi.Value) string) string {
	c := r.cell(i)
	if c.Kind == capi.KindText && c.Len != 0 && r.goData != nil {
		// The core keeps every cell's bytes within the batch's: no bounds check.
		return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.goData)), c.Bits)), int(c.Len))
	}
	return slow(r, c)
}

func (r *Rows) textSlow(c *capi.Value) string {
	switch c.Kind {
	case capi.KindText, capi.KindBlob:
		if c.Len == 0 {
			return ""
		}
		if r.large {
			return string(r.raw(c))
		}
		return unsafe.String(&r.goBytes()[c.Bits], int(c.Len))
	case capi.KindInteger, capi.KindFloat:
		var buf [capi.ConvertBufLen]byte
		out := r.convert(c, capi.KindText, &buf)
		return string(buf[:out.Len]) // out.Bits is 0: the rendering starts buf
	}
	return ""
}

// Blob returns column i of the current row as bytes: BLOB (and TEXT) bytes, numbers as
// sqlite3_column_blob renders them (as text), NULL as nil. The slice is in Go memory shared with the rest of the
// batch (see Memory above); its capacity is its length, so appending to it copies.
func (r *Rows) Blob(i int) []byte { return blobOf(r, i, (*Rows).blobSlow) }

func blobOf(r *Rows, i int, slow func(*Rows, *capi.Value) []byte) []byte {
	c := r.cell(i)
	if c.Kind == capi.KindBlob && c.Len != 0 && r.goData != nil {
		return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.goData)), c.Bits)), int(c.Len))
	}
	return slow(r, c)
}

func (r *Rows) blobSlow(c *capi.Value) []byte {
	switch c.Kind {
	case capi.KindText, capi.KindBlob:
		if c.Len == 0 {
			return emptyBytes
		}
		if r.large {
			return cloneBytes(r.raw(c))
		}
		end := c.Bits + uint64(c.Len)
		return r.goBytes()[c.Bits:end:end]
	case capi.KindInteger, capi.KindFloat:
		var buf [capi.ConvertBufLen]byte
		out := r.convert(c, capi.KindBlob, &buf)
		return append([]byte(nil), buf[:out.Len]...)
	}
	return nil
}

// RawBytes returns the bytes of a TEXT or BLOB column i of the current row without copying
// them: the slice points into memory owned by the statement (see Memory above) and is valid
// only until the next call to Next or Close. It returns nil for other types.
func (r *Rows) RawBytes(i int) []byte {
	c := r.cell(i)
	if c.Kind == capi.KindText || c.Kind == capi.KindBlob {
		return r.raw(c)
	}
	return nil
}

// Value returns column i of the current row as int64, float64, string (TEXT), []byte (BLOB)
// or nil (NULL); strings and slices as Text and Blob return them.
func (r *Rows) Value(i int) any {
	switch c := r.cell(i); c.Kind {
	case capi.KindInteger:
		return int64(c.Bits)
	case capi.KindFloat:
		return math.Float64frombits(c.Bits)
	case capi.KindText:
		return r.Text(i)
	case capi.KindBlob:
		return r.Blob(i)
	}
	return nil
}

// Values stores the values of the current row's first len(dst) columns in dst, as Value
// returns them: int64, float64, string, []byte or nil. It is the fast way to read whole rows
// into interfaces: the values are boxed without an allocation of their own (see box.go).
// It panics if dst is longer than the row.
func (r *Rows) Values(dst []any) {
	if r.width == 0 {
		panic("sqlbatch: Values called without a current row")
	}
	// Step back one row for NextValues to step forward again: the one copy of the loop.
	r.left++
	r.off -= r.stride
	r.NextValues(dst)
}

// NextValues is Next followed by Values(dst), in one call: it advances to the next row and
// stores the values of its first len(dst) columns in dst. It returns false at the end of
// the rows or on an error (see Err). The database/sql driver reads rows with it.
func (r *Rows) NextValues(dst []any) bool {
	if r.left != 0 {
		r.left--
		r.off += r.stride
	} else if !r.fetch() {
		return false
	}
	if len(dst) > r.width {
		panic("sqlbatch: Values: more destinations than columns")
	}
	if r.nums == nil {
		if r.large {
			// A batch of large rows (rows_large.go) never has boxes: every row comes here.
			r.valuesLarge(dst, false)
			return true
		}
		r.prepareValues()
	}
	row := unsafe.Add(r.base, r.off)
	// The row's number boxes: cell k of the batch (at byte k*cellSize) has box k.
	boxes := unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.nums)), r.off/(cellSize/8))
	base := unsafe.Pointer(unsafe.SliceData(r.goData))
	b := r.box
	for i := range dst {
		c := (*capi.Value)(unsafe.Add(row, uintptr(i)*cellSize))
		d := (*eface)(unsafe.Pointer(&dst[i]))
		switch c.Kind {
		case capi.KindInteger:
			p := unsafe.Add(boxes, uintptr(i)*8)
			*(*uint64)(p) = c.Bits
			d.typ, d.data = int64Type, p
		case capi.KindFloat:
			p := unsafe.Add(boxes, uintptr(i)*8)
			*(*uint64)(p) = c.Bits
			d.typ, d.data = float64Type, p
		case capi.KindText:
			if c.Len == 0 {
				d.typ, d.data = stringType, emptyString
				continue
			}
			if b.ns == 0 {
				b.newStrings()
			}
			b.ns--
			p := &b.strs[b.ns]
			*p = unsafe.String((*byte)(unsafe.Add(base, c.Bits)), int(c.Len))
			d.typ, d.data = stringType, unsafe.Pointer(p)
		case capi.KindBlob:
			if c.Len == 0 {
				dst[i] = emptyBlob
				continue
			}
			if b.nb == 0 {
				b.newBlobs()
			}
			b.nb--
			p := &b.blobs[b.nb]
			*p = unsafe.Slice((*byte)(unsafe.Add(base, c.Bits)), int(c.Len))
			d.typ, d.data = bytesType, unsafe.Pointer(p)
		default:
			d.typ, d.data = nil, nil
		}
	}
	return true
}

// BoxValue stores the value of column i of the current row in *dst, as Values stores it
// (int64, float64, string or nil, boxed without an allocation of its own), except that a
// BLOB is copied into new memory that the caller owns (database/sql's rule for a *any
// destination), whose slice header is boxed without an allocation of its own too. It is
// Values for one column, for a caller that reads a row column by column: the database/sql
// driver's ScanColumn into a *any. It panics if there is no column i or no current row.
//
// Its switch is NextValues' loop body for one cell, written out again on purpose: shared
// through a function, the one call per column cost fetch_wide through database/sql 5,166 ->
// 5,541 instructions a row (callgrind, Go 1.27.3).
func (r *Rows) BoxValue(i int, dst *any) {
	c := r.cell(i)
	if r.large {
		// A large row's TEXT and BLOB are copied out of C memory (rows_large.go): one copy.
		*dst = r.valueLarge(c, false)
		return
	}
	if r.nums == nil {
		r.prepareValues()
	}
	d := (*eface)(unsafe.Pointer(dst))
	b := r.box
	switch c.Kind {
	case capi.KindInteger, capi.KindFloat:
		// The cell's number box (the one Values uses: the same value, if both box it).
		p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.nums)), r.off/(cellSize/8)+uintptr(i)*8)
		*(*uint64)(p) = c.Bits
		if c.Kind == capi.KindInteger {
			d.typ, d.data = int64Type, p
		} else {
			d.typ, d.data = float64Type, p
		}
	case capi.KindText:
		if c.Len == 0 {
			d.typ, d.data = stringType, emptyString
			return
		}
		if b.ns == 0 {
			b.newStrings()
		}
		b.ns--
		p := &b.strs[b.ns]
		*p = unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.goData)), c.Bits)), int(c.Len))
		d.typ, d.data = stringType, unsafe.Pointer(p)
	case capi.KindBlob:
		if c.Len == 0 {
			*dst = emptyBlob
			return
		}
		if b.nb == 0 {
			b.newBlobs()
		}
		b.nb--
		p := &b.blobs[b.nb]
		*p = cloneBytes(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.goData)), c.Bits)), int(c.Len)))
		d.typ, d.data = bytesType, unsafe.Pointer(p)
	default:
		*dst = nil
	}
}

// prepareValues readies the current batch for Values: it makes the batch's number boxes,
// one uint64 per cell, which Values copies INTEGER and FLOAT values into for their interfaces
// to point at (a number kept in an interface keeps its batch's boxes alive), and makes its
// bytes Go memory (goBytes).
func (r *Rows) prepareValues() {
	r.nums = make([]uint64, r.nrows*r.ncols)
	if len(r.arena) > 0 {
		r.goBytes()
	}
	if r.box == nil {
		r.box = &r.stmt.conn.box
	}
}

// emptyBlob is an empty BLOB, boxed once; its capacity is 0, so appending to it copies.
var emptyBlob any = []byte{}

// Scan copies the columns of the current row into dest, one pointer per column: *int64,
// *int, *int32, *uint64, *float64, *float32, *bool, *string, *[]byte (a copy), *any
// (as Value), *time.Time (see Time), or nil to skip a column.
func (r *Rows) Scan(dest ...any) error {
	if r.width == 0 {
		return fmt.Errorf("sqlbatch: Scan called without a current row")
	}
	if len(dest) != r.width {
		return fmt.Errorf("sqlbatch: Scan got %d destinations for %d columns", len(dest), r.width)
	}
	for i, d := range dest {
		switch d := d.(type) {
		case nil:
		case *int64:
			*d = r.Int64(i)
		case *int:
			*d = int(r.Int64(i))
		case *int32:
			*d = int32(r.Int64(i))
		case *uint64:
			*d = uint64(r.Int64(i))
		case *float64:
			*d = r.Float64(i)
		case *float32:
			*d = float32(r.Float64(i))
		case *bool:
			*d = r.Bool(i)
		case *string:
			*d = r.Text(i)
		case *[]byte:
			if r.large {
				*d = r.Blob(i) // a copy of its own already (rows_large.go)
			} else if b := r.Blob(i); b != nil {
				*d = append([]byte{}, b...)
			} else {
				*d = nil
			}
		case *any:
			*d = r.Value(i)
		case *time.Time:
			t, err := r.Time(i)
			if err != nil {
				return fmt.Errorf("sqlbatch: Scan column %d: %w", i, err)
			}
			*d = t
		default:
			return fmt.Errorf("sqlbatch: Scan column %d: unsupported destination %T", i, d)
		}
	}
	return nil
}

// Time returns column i of the current row as a time: TEXT in one of TimeFormats (read as
// UTC when it has no zone), or an INTEGER of Unix seconds (milliseconds when its magnitude
// is above 1e12, as mattn/go-sqlite3 reads them), or a FLOAT Julian day number. NULL gives
// the zero time.
func (r *Rows) Time(i int) (time.Time, error) {
	c := r.cell(i)
	switch c.Kind {
	case capi.KindInteger:
		return UnixTime(int64(c.Bits)), nil
	case capi.KindFloat:
		return julianDayTime(math.Float64frombits(c.Bits)), nil
	case capi.KindText, capi.KindBlob:
		return ParseTime(string(r.raw(c)))
	}
	return time.Time{}, nil
}
