package sqlbatch

import (
	"unsafe"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Large rows: a batch whose rows hold more than largeRow bytes of TEXT and BLOB on average is
// not copied into Go memory as a whole. The chunks (see Chunks in rows.go) pay off for small
// values, many strings sharing one allocation and no copy; for rows of hundreds of KB a chunk
// is an allocation of two to four rows that stays alive as long as any string of it, and a
// caller who wants a []byte of its own (database/sql's *[]byte, which copies) pays a second
// copy of every BLOB besides: about 1.5 times the row's bytes allocated, and the GC cycles
// that go with it.
//
// So, once a batch has shown large rows, the next batch is fetched with sqlbatch_stmt_fetch
// into the statement's own arena (C memory, valid until the next fetch, reset or finalize),
// and each value is copied out only when it is asked for, straight into what the caller gets:
// Text makes a new string of the value's bytes, Blob and Values a new []byte (its capacity
// its length, as in the chunks), so that a value is copied once and a row allocates only
// what is read of it. RawBytes stays a view (now of the C arena), valid until the next Next or
// Close as before. The first batch of a result is in C memory anyway: it takes the same path
// when its rows are large. A batch in C memory whose rows are small (after large ones) is
// copied whole on its first Text, Blob or Values, as the first batch of a result is.
//
// The decision is per batch (fetch, sortBatch), from the batch before it; within a batch the
// accessors' fast paths are as they were: in a large batch goData stays nil, so Text and Blob
// go to their slow paths (which test large), and Values finds no number boxes (nums nil) and
// comes here. A row that does not fit in the chunk and needs more than largeRow bytes
// (sqlbatch_stmt_fetch_into's SQLBATCH_E_BUFFER_TOO_SMALL) is fetched into C memory at once,
// with the rows after it in the same batch. The row-size estimate that sizes the chunks
// (rowEst) counts only rows up to largeRow, so that a large row does not leave large chunks
// behind it for the small rows that follow.
//
// largeRow is maxChunk, the largest chunk of the small-row regime: a row above it could not
// share a chunk with another anyway.
const largeRow = maxChunk

// sortBatch records the current batch's bytes per row (on average, perRow): whether its rows
// are large (and so whether the next batch is fetched into C memory), whether it is a large
// batch in C memory, and, for small rows, the chunks' row-size estimate.
func (r *Rows) sortBatch(perRow int) {
	r.bigRows = perRow > largeRow
	if r.bigRows {
		r.large = !r.inGo
		return
	}
	r.noteRow(perRow)
}

// NextValuesTransient is NextValues, except in a batch of large rows (see Memory), where a
// BLOB value is not a copy but a slice of the statement's memory, as RawBytes returns it,
// valid only until the next call to Next, NextValues, NextValuesTransient or Close. It is for
// a caller that copies the bytes it keeps, as database/sql does with a driver's []byte: the
// database/sql driver reads rows with it before Go 1.27, so that a large BLOB scanned into a
// *[]byte is copied once, by database/sql. TEXT values, and all values of small rows, are as
// NextValues gives them.
func (r *Rows) NextValuesTransient(dst []any) bool {
	if r.left != 0 {
		r.left--
		r.off += r.stride
	} else if !r.fetch() {
		return false
	}
	if r.large {
		if len(dst) > r.width {
			panic("sqlbatch: Values: more destinations than columns")
		}
		r.valuesLarge(dst, true)
		return true
	}
	// Step back one row for NextValues to step forward again, as Values does.
	r.left++
	r.off -= r.stride
	return r.NextValues(dst)
}

// valuesLarge is NextValues for a row of a large batch: numbers boxed one by one, and every
// TEXT and BLOB copied out of C memory into a new string or []byte (a BLOB left in place if
// transient: see NextValuesTransient).
func (r *Rows) valuesLarge(dst []any, transient bool) {
	for i := range dst {
		dst[i] = r.valueLarge(r.cell(i), transient)
	}
}

// valueLarge is the value of cell c of a row of a large batch, as valuesLarge stores it:
// cellValue's copy out of C memory, or a BLOB left in place if transient.
func (r *Rows) valueLarge(c *capi.Value, transient bool) any {
	if transient && c.Kind == capi.KindBlob && c.Len != 0 {
		return r.raw(c)
	}
	return cellValue(c, unsafe.SliceData(r.arena))
}
