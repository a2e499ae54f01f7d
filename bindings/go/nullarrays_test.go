package sqlbatch_test

import (
	"runtime"
	"testing"
)

// growStack recurses n frames of about 1 KiB each: the runtime grows the goroutine's stack,
// copying it and adjusting every pointer in its frames, each time it doubles, and collects
// garbage at the bottom, scanning every frame. A dangling non-NULL pointer held in a pointer
// field (the 0x8 the ABI used to return for an empty array) dies there with "fatal error:
// invalid pointer found on stack".
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

func growAndCollect() {
	for range 3 {
		growStack(3000)
	}
	runtime.GC()
}

// TestRowsAndParamsSurviveStackGrowthAndGC keeps Rows of an empty result and of rows without
// bytes (whose batches have no cells, or no data), and the parameter names and columns of
// statements that have none, alive across forced stack growth and garbage collection, and
// reads them afterwards.
func TestRowsAndParamsSurviveStackGrowthAndGC(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a INTEGER, b REAL)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 1.5), (2, NULL), (3, 3.5)")

	emptyStmt, err := c.Prepare("SELECT a FROM t WHERE a > 100")
	if err != nil {
		t.Fatal(err)
	}
	defer emptyStmt.Close()
	empty, err := emptyStmt.Query()
	if err != nil {
		t.Fatal(err)
	}
	noBytesStmt, err := c.Prepare("SELECT a, b, '', x'' FROM t ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer noBytesStmt.Close()
	noBytesStmt.SetBatchRows(2) // two batches, neither with bytes
	noBytes, err := noBytesStmt.Query()
	if err != nil {
		t.Fatal(err)
	}
	if !noBytes.Next() {
		t.Fatal("no first row")
	}
	ddl, err := c.Prepare("CREATE TABLE u(x)")
	if err != nil {
		t.Fatal(err)
	}
	defer ddl.Close()
	blank, err := c.Prepare("  /* nothing */ ;")
	if err != nil {
		t.Fatal(err)
	}
	defer blank.Close()
	if ddl.ParamCount() != 0 || ddl.ColumnCount() != 0 || blank.ParamCount() != 0 || blank.ColumnCount() != 0 {
		t.Fatal("parameters or columns where there are none")
	}

	growAndCollect()

	if empty.Next() || empty.Err() != nil {
		t.Errorf("empty result: a row, or error %v", empty.Err())
	}
	growAndCollect()
	if empty.Next() {
		t.Error("empty result: a row after the end")
	}
	var got []int64
	for ok := true; ok; ok = noBytes.Next() {
		got = append(got, noBytes.Int64(0))
		if noBytes.Text(2) != "" || noBytes.Blob(3) == nil || len(noBytes.Blob(3)) != 0 || noBytes.Text(1) == "x" {
			t.Errorf("row %d: %q %v", noBytes.Int64(0), noBytes.Text(2), noBytes.Blob(3))
		}
		growAndCollect()
	}
	if err := noBytes.Err(); err != nil || len(got) != 3 || got[2] != 3 {
		t.Errorf("rows without bytes: %v, error %v", got, err)
	}
	if ddl.ParamName(1) != "" || len(ddl.Columns()) != 0 || len(blank.ColumnNames()) != 0 {
		t.Error("names or columns after GC")
	}
	if _, err := ddl.Exec(); err != nil {
		t.Fatal(err)
	}
	if _, err := blank.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := empty.Close(); err != nil {
		t.Fatal(err)
	}
	if err := noBytes.Close(); err != nil {
		t.Fatal(err)
	}
}
