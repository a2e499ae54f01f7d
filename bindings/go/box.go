package sqlbatch

import "unsafe"

// Boxing values into interfaces without an allocation each (Rows.Values).
//
// database/sql takes every value of every row as a driver.Value (an interface), and putting
// an int64, a float64, a string header or a slice header into an interface allocates (except
// for small integers): ten allocations for a ten-column row, which cost more than reading
// the row from the batch. A boxer stores the values in slabs instead, arrays of 128 values
// allocated at once, and makes each interface point at its value in a slab: one allocation
// per 128 values. Each Conn has one (a connection is used by one goroutine at a time).
//
// This relies on the layout of an empty interface (a type word and a data word), which the
// Go runtime and reflect have kept since Go 1 and which unsafe-based libraries depend on.
// It is safe for the garbage collector: the data word is an ordinary pointer into a Go
// allocation, which stays alive as long as any interface points into it. A slab element is
// written once, before its interface is made, and never again (full slabs are dropped, not
// reused), so the values behind the interfaces never change, as Go requires.

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

func makeAny(typ, data unsafe.Pointer) (v any) {
	e := (*eface)(unsafe.Pointer(&v))
	e.typ = typ
	e.data = data
	return v
}

type boxer struct {
	ints   []int64
	floats []float64
	strs   []string
	blobs  [][]byte
}

func (b *boxer) int64(v int64) any {
	if uint64(v) < 256 {
		return v // the runtime boxes these without allocating
	}
	if len(b.ints) == cap(b.ints) {
		b.ints = make([]int64, 0, slabSize)
	}
	b.ints = append(b.ints, v)
	return makeAny(int64Type, unsafe.Pointer(&b.ints[len(b.ints)-1]))
}

func (b *boxer) float64(v float64) any {
	if len(b.floats) == cap(b.floats) {
		b.floats = make([]float64, 0, slabSize)
	}
	b.floats = append(b.floats, v)
	return makeAny(float64Type, unsafe.Pointer(&b.floats[len(b.floats)-1]))
}

func (b *boxer) string(v string) any {
	if len(v) == 0 {
		return ""
	}
	if len(b.strs) == cap(b.strs) {
		b.strs = make([]string, 0, slabSize)
	}
	b.strs = append(b.strs, v)
	return makeAny(stringType, unsafe.Pointer(&b.strs[len(b.strs)-1]))
}

func (b *boxer) bytes(v []byte) any {
	if len(b.blobs) == cap(b.blobs) {
		b.blobs = make([][]byte, 0, slabSize)
	}
	b.blobs = append(b.blobs, v)
	return makeAny(bytesType, unsafe.Pointer(&b.blobs[len(b.blobs)-1]))
}
