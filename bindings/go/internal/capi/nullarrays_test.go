package capi

import (
	"math"
	"runtime"
	"testing"
	"unsafe"
)

// growStack recurses n frames of about 1 KiB each, which makes the runtime grow the
// goroutine's stack, copying it (and adjusting every pointer in its frames) each time it
// doubles, and collects garbage at the bottom, which scans every frame. A pointer-typed
// slot holding a dangling non-NULL address below 4096, such as the 0x8 the ABI used to
// hand out for an empty array, dies there with "fatal error: invalid pointer found on stack".
//
//go:noinline
func growStack(n int) int {
	var pad [1024]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		runtime.GC()
		return int(pad[0])
	}
	return growStack(n-1) + int(pad[(n*7)%len(pad)])
}

func prepare(t *testing.T, c Conn, sql string) Stmt {
	t.Helper()
	s, _, _, rc := c.Prepare(sql, 0)
	if rc != OK {
		info, _ := c.LastError()
		t.Fatalf("prepare %q: %d %s", sql, rc, info.Msg)
	}
	t.Cleanup(s.Finalize)
	return s
}

// TestEmptyArraysAreNilAcrossStackGrowthAndGC keeps the arrays the ABI hands out, empty and
// not, in Go pointer fields and slices across forced stack growth and garbage collection:
// the batch of an empty result (no cells), the batch of a row without bytes (no data), a
// batch fetched into a Go buffer (data always NULL), and the parameter and column arrays of
// statements without parameters or columns. Every empty one must be nil.
func TestEmptyArraysAreNilAcrossStackGrowthAndGC(t *testing.T) {
	c, rc := Open(":memory:", 0)
	if rc != OK {
		t.Fatalf("open: %d", rc)
	}
	t.Cleanup(c.Close)

	empty, rc := prepare(t, c, "SELECT 1 WHERE 0").Fetch(16, NoByteBound)
	if rc != Done {
		t.Fatalf("empty fetch: %d", rc)
	}
	noBytes, rc := prepare(t, c, "SELECT 7, 2.5, NULL, '', x''").Fetch(16, NoByteBound)
	if rc != Done {
		t.Fatalf("fetch of a row without bytes: %d", rc)
	}
	buf := make([]byte, 64)
	into, rc := prepare(t, c, "SELECT 'abc'").FetchInto(16, buf)
	if rc != Done {
		t.Fatalf("fetch_into: %d", rc)
	}
	noParams, rc := prepare(t, c, "SELECT 1").paramsArray()
	if rc != OK {
		t.Fatalf("params: %d", rc)
	}
	someParams, rc := prepare(t, c, "SELECT ?, :a").paramsArray()
	if rc != OK {
		t.Fatalf("params: %d", rc)
	}
	noCols, rc := prepare(t, c, "CREATE TABLE t(a)").columnsArray()
	if rc != OK {
		t.Fatalf("columns: %d", rc)
	}
	emptyStmtCols, rc := prepare(t, c, " -- nothing").columnsArray()
	if rc != OK {
		t.Fatalf("columns of an empty statement: %d", rc)
	}

	for range 3 {
		growStack(3000) // about 3 MiB of stack
	}
	runtime.GC()

	if empty.Cells != nil || empty.Data != nil || empty.NRows != 0 || empty.DataLen != 0 {
		t.Errorf("empty result: %+v, want nil cells and data", empty)
	}
	if noBytes.Data != nil || noBytes.DataLen != 0 || noBytes.Cells == nil || noBytes.NRows != 1 || noBytes.NCols != 5 {
		t.Fatalf("row without bytes: %+v, want nil data and 5 cells", noBytes)
	}
	cells := unsafe.Slice(noBytes.Cells, noBytes.NRows*noBytes.NCols)
	if cells[0].Kind != KindInteger || int64(cells[0].Bits) != 7 ||
		cells[1].Kind != KindFloat || math.Float64frombits(cells[1].Bits) != 2.5 ||
		cells[2].Kind != KindNull || cells[3].Kind != KindText || cells[3].Len != 0 ||
		cells[4].Kind != KindBlob || cells[4].Len != 0 {
		t.Errorf("row without bytes: cells %+v", cells)
	}
	if into.Data != nil || into.DataLen != 3 || into.NRows != 1 {
		t.Fatalf("fetch_into: %+v", into)
	}
	if c := unsafe.Slice(into.Cells, 1)[0]; c.Kind != KindText || string(buf[c.Bits:c.Bits+uint64(c.Len)]) != "abc" {
		t.Errorf("fetch_into cell %+v", c)
	}
	if noParams != nil || noCols != nil || emptyStmtCols != nil {
		t.Errorf("empty arrays are not nil: params %p, columns %p and %p", unsafe.SliceData(noParams),
			unsafe.SliceData(noCols), unsafe.SliceData(emptyStmtCols))
	}
	if len(someParams) != 2 || someParams[0].ptr != nil || gostr(someParams[1]) != ":a" {
		t.Errorf("params of SELECT ?, :a: %d entries", len(someParams))
	}
}
