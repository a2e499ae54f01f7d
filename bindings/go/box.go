package sqlbatch

import "unsafe"

// Boxing values into interfaces without an allocation each (Rows.Values).
//
// database/sql takes every value of every row as a driver.Value (an interface), and putting
// an int64, a float64, a string header or a slice header into an interface allocates (except
// for small integers): ten allocations for a ten-column row, which cost more than reading
// the row from the batch. Values avoids them: numbers are copied into one uint64 per cell of
// the batch (Rows.numBoxes, allocated once per batch), and string and slice headers into
// slabs of 128 (one allocation per 128 values, per connection); each interface points at its
// value there.
//
// This relies on the layout of an empty interface (a type word and a data word), which the
// Go runtime and reflect have kept since Go 1 and which unsafe-based libraries depend on.
// Both words are written as unsafe.Pointer fields, so the garbage collector's write barriers
// see them as they see any interface store. It is safe for the garbage collector: the data
// word is an ordinary pointer into a Go allocation, which stays alive as long as any
// interface points into it. A box is written before its interface is made, and never with
// another value (full slabs are dropped, not reused; a new batch gets new number boxes), so
// the values behind the interfaces never change, as Go requires. A cell's number box is
// written again, with the same bits, when the same cell is boxed again (Values twice on a
// row, or Values and BoxValue): harmless, unless another goroutine reads an interface of
// that cell at that moment, which the race detector would report.

const slabSize = 128

type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	int64Type   = typeWord(int64(0))
	float64Type = typeWord(float64(0))
	stringType  = typeWord("")
	bytesType   = typeWord([]byte(nil))
)

// boxer holds the slabs of string and slice headers of a connection (a connection is used by
// one goroutine at a time). They are taken from the end: strs[ns:] and blobs[nb:] are used.
type boxer struct {
	strs  *[slabSize]string
	blobs *[slabSize][]byte
	ns    int
	nb    int
}

//go:noinline
func (b *boxer) newStrings() { b.strs, b.ns = new([slabSize]string), slabSize }

//go:noinline
func (b *boxer) newBlobs() { b.blobs, b.nb = new([slabSize][]byte), slabSize }

func dataWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).data }

// emptyString is the data word of "" in an interface.
var emptyString = dataWord("")
