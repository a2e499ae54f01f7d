package sqlbatch_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Fetch-ahead and write-behind (issue 14): the same rows, errors and results as the
// synchronous calls, with the library's worker thread stepping the next batch or writing
// the previous one.

// mixedTable fills t with n rows of every type, some TEXT and BLOB values of a few bytes and
// every 97th row with large ones (over the 32 KiB chunk), NULLs here and there.
func mixedTable(t testing.TB, c *sqlbatch.Conn, n int) {
	t.Helper()
	mustExec(t, c, "CREATE TABLE m(i INTEGER PRIMARY KEY, f REAL, t TEXT, b BLOB, n)")
	mustExec(t, c, "BEGIN")
	ins, err := c.Prepare("INSERT INTO m VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		size := 8 + i%40
		if i%97 == 5 {
			size = 40_000 + i*13
		}
		var tv, bv, nv any = growingText(i, size), []byte(strings.Repeat(string(rune('a'+i%26)), size)), int64(i)
		switch i % 11 {
		case 3:
			tv = nil
		case 4:
			bv = nil
		case 5:
			nv = nil
		case 6:
			nv = float64(i) / 3
		case 7:
			nv = "text"
		}
		if _, err := ins.Exec(i, float64(i)*1.5, tv, bv, nv); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.Close(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "COMMIT")
}

// readAll reads every row of rows in one of three ways and returns them as Go values.
func readAll(t testing.TB, rows *sqlbatch.Rows, mode string) [][]any {
	t.Helper()
	var out [][]any
	for rows.Next() {
		n := rows.ColumnCount()
		row := make([]any, n)
		switch mode {
		case "values":
			rows.Values(row)
		case "raw":
			for i := range row {
				switch rows.Type(i) {
				case sqlbatch.Text, sqlbatch.Blob:
					row[i] = string(rows.RawBytes(i))
				default:
					row[i] = rows.Value(i)
				}
			}
		default: // Text and Blob kept as they are (no copy: they must outlive the batch)
			for i := range row {
				switch rows.Type(i) {
				case sqlbatch.Text:
					row[i] = rows.Text(i)
				case sqlbatch.Blob:
					row[i] = rows.Blob(i)
				default:
					row[i] = rows.Value(i)
				}
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// Normalize: a BLOB read through Values or Blob is []byte, through RawBytes a string.
	for _, row := range out {
		for i, v := range row {
			if b, ok := v.([]byte); ok {
				row[i] = string(b)
			}
		}
	}
	return out
}

func query(t testing.TB, s *sqlbatch.Stmt, mode string) [][]any {
	t.Helper()
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return readAll(t, rows, mode)
}

func TestFetchAheadGivesTheSynchronousRows(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/m.db"
	c, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mixedTable(t, c, 2000)
	const q = "SELECT i, f, t, b, n FROM m ORDER BY i"
	ref, err := c.Prepare(q)
	if err != nil {
		t.Fatal(err)
	}
	want := query(t, ref, "text")
	if err := ref.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 2000 {
		t.Fatalf("%d rows", len(want))
	}
	// Per statement (SetFetchAhead) and per connection (OpenFetchAhead).
	ca, err := sqlbatch.OpenWithFlags(path, sqlbatch.OpenFetchAhead)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	for _, conn := range []string{"stmt", "conn"} {
		for _, batch := range []int{1, 7, 256, 1000} {
			for _, mode := range []string{"text", "values", "raw"} {
				var s *sqlbatch.Stmt
				if conn == "stmt" {
					s, err = c.Prepare(q)
					if err != nil {
						t.Fatal(err)
					}
					if s.FetchAhead() {
						t.Fatal("fetch-ahead on before SetFetchAhead")
					}
					if err := s.SetFetchAhead(true); err != nil {
						t.Fatal(err)
					}
				} else {
					s, err = ca.Prepare(q)
					if err != nil {
						t.Fatal(err)
					}
				}
				if !s.FetchAhead() {
					t.Fatalf("%s: FetchAhead false", conn)
				}
				s.SetBatchRows(batch)
				for run := 0; run < 2; run++ { // a second run of the statement too
					if got := query(t, s, mode); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s batch %d %s run %d: %d rows, differ from the synchronous %d", conn, batch, mode, run, len(got), len(want))
					}
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// A writing statement ignores the setting.
	w, err := ca.Prepare("INSERT INTO m(i) VALUES (100000) RETURNING i")
	if err != nil {
		t.Fatal(err)
	}
	if w.FetchAhead() {
		t.Fatal("a writing statement reports fetch-ahead")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Rows of growing sizes up to 1.6 MB each, over the chunk and the batch bound: the first of
// each larger size is refused by the core's fetch into the chunk (SQLBATCH_E_BUFFER_TOO_SMALL)
// and fetched again into a larger one, with a batch stepped ahead in between.
func TestFetchAheadLargeRows(t *testing.T) {
	c := memory(t)
	size := func(i int) int { return 16 + i*i*40 } // row 140: 784 kB of TEXT and as much BLOB
	const n = 140
	mustExec(t, c, "CREATE TABLE g(i INTEGER PRIMARY KEY, t TEXT, b BLOB)")
	ins, err := c.Prepare("INSERT INTO g VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := ins.Exec(i, growingText(i, size(i)), []byte(growingText(i+1, size(i)))); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.Close(); err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{1, 3, 256} {
		for _, mode := range []string{"text", "values", "raw"} {
			s, err := c.Prepare("SELECT i, t, b FROM g ORDER BY i")
			if err != nil {
				t.Fatal(err)
			}
			s.SetBatchRows(batch)
			sync := query(t, s, mode)
			if err := s.SetFetchAhead(true); err != nil {
				t.Fatal(err)
			}
			got := query(t, s, mode)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if len(got) != n || !reflect.DeepEqual(got, sync) {
				t.Fatalf("batch %d %s: %d rows, not the synchronous %d", batch, mode, len(got), len(sync))
			}
			for k, row := range got {
				if row[1] != growingText(k+1, size(k+1)) {
					t.Fatalf("batch %d %s row %d: wrong text", batch, mode, k+1)
				}
			}
		}
	}
}

// An error in the middle of the rows comes after the rows before it, as synchronously.
func TestFetchAheadErrorAfterItsRows(t *testing.T) {
	c := memory(t)
	numbers(t, c, 3000)
	const q = "SELECT i, CASE WHEN i = 1234 THEN abs(-9223372036854775807 - 1) ELSE i * 2 END FROM n ORDER BY i"
	for _, batch := range []int{1, 100, 256, 5000} {
		var counts [2]int
		var errs [2]error
		for k, on := range []bool{false, true} {
			s, err := c.Prepare(q)
			if err != nil {
				t.Fatal(err)
			}
			s.SetBatchRows(batch)
			if err := s.SetFetchAhead(on); err != nil {
				t.Fatal(err)
			}
			rows, err := s.Query()
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				if rows.Int64(1) != rows.Int64(0)*2 {
					t.Fatal("wrong value")
				}
				counts[k]++
			}
			errs[k] = rows.Err()
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if counts[0] != counts[1] || counts[1] != 1233 {
			t.Fatalf("batch %d: %d rows synchronously, %d ahead", batch, counts[0], counts[1])
		}
		if !errors.Is(errs[1], sqlbatch.ErrTooBig) && !errors.Is(errs[1], sqlbatch.ErrError) || errs[0].Error() != errs[1].Error() {
			t.Fatalf("batch %d: errors %v / %v", batch, errs[0], errs[1])
		}
	}
}

// numbers is from rows_test.go: table n(x) of 1..count.

// Interrupt stops a query that fetches ahead: an endless one, from another goroutine.
func TestFetchAheadInterrupt(t *testing.T) {
	for _, on := range []bool{false, true} {
		for k := 0; k < 5; k++ {
			fetchAheadInterrupt(t, on)
		}
	}
}

func fetchAheadInterrupt(t *testing.T, on bool) {
	c := memory(t)
	s, err := c.Prepare("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x, x * 2 FROM r")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetFetchAhead(on); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for n.Load() < 10000 {
			runtime.Gosched()
		}
		for {
			select {
			case <-done:
				return
			default:
				c.Interrupt()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	for rows.Next() {
		n.Add(1)
	}
	close(done)
	<-stopped
	if err := rows.Err(); !errors.Is(err, sqlbatch.ErrInterrupt) {
		t.Fatalf("ahead %v: err %v after %d rows", on, err, n.Load())
	}
	// The statement and the connection work on.
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Query("SELECT 41 + 1"); err != nil || !got.Next() || got.Int64(0) != 42 {
		t.Fatalf("ahead %v: %v %v", on, err, got.Err())
	}
}

// Rows.Close, Stmt.Reset, Stmt.Close and Conn.Close while a batch is stepped ahead.
func TestFetchAheadCloseAndResetMidRows(t *testing.T) {
	c := memory(t)
	numbers(t, c, 5000)
	s, err := c.Prepare("SELECT i FROM n ORDER BY i")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetFetchAhead(true); err != nil {
		t.Fatal(err)
	}
	s.SetBatchRows(100)
	for k := 0; k < 3; k++ {
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 150 && rows.Next(); i++ {
		}
		if rows.Int64(0) != 150 {
			t.Fatal(rows.Int64(0))
		}
		switch k {
		case 0:
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := s.Reset(); err != nil {
				t.Fatal(err)
			}
		case 2:
			// A Query rewinds it.
		}
		got := ints(t, c, "SELECT count(*) FROM n") // another statement between
		if got[0] != 5000 {
			t.Fatal(got)
		}
		rows, err = s.Query()
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() || rows.Int64(0) != 1 {
			t.Fatalf("run %d: the query does not start over", k)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Stmt.Close and then Conn.Close, each in the middle of the rows.
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	rows.Next()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(); err == nil {
		t.Fatal("Query after Stmt.Close")
	}
	c2, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	numbers(t, c2, 5000)
	s2, err := c2.Prepare("SELECT i FROM n")
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.SetFetchAhead(true); err != nil {
		t.Fatal(err)
	}
	rows, err = s2.Query()
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if rows.Err() == nil {
		t.Fatal("rows go on after Conn.Close")
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
}

// gettid is the OS thread the calling goroutine runs on.
func gettid() int { return syscall.Gettid() }

// A Go SQL function used by a query that fetches ahead runs on the library's worker thread
// for every batch but the first: it works there, and its error and its panic end the rows
// after the ones before, as synchronously.
func TestFetchAheadGoFunctionOnTheWorker(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := gettid()
	c := memory(t)
	numbers(t, c, 4000)
	var elsewhere atomic.Int64
	err := c.CreateFunction("twice", 1, sqlbatch.Deterministic, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		if gettid() != me {
			elsewhere.Add(1)
		}
		x := a.Int64(0)
		switch x {
		case -1:
			ctx.SetError(errors.New("minus one"))
		case -2:
			panic("minus two")
		}
		ctx.SetText(fmt.Sprint(2 * x))
	})
	if err != nil {
		t.Fatal(err)
	}
	run := func(q string, on bool) (int, error) {
		s, err := c.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.SetFetchAhead(on); err != nil {
			t.Error(err)
		}
		s.SetBatchRows(128)
		rows, err := s.Query()
		if err != nil {
			t.Error(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if rows.Text(1) != fmt.Sprint(2*rows.Int64(0)) {
				t.Fatalf("row %d: %q", rows.Int64(0), rows.Text(1))
			}
			n++
		}
		return n, rows.Err()
	}
	n, err := run("SELECT i, twice(i) FROM n ORDER BY i", true)
	if n != 4000 || err != nil {
		t.Fatal(n, err)
	}
	if elsewhere.Load() == 0 {
		t.Fatal("no call of the function ran on another thread: no batch was stepped ahead")
	}
	for _, q := range []string{
		"SELECT i, twice(CASE WHEN i = 3000 THEN -1 ELSE i END) FROM n ORDER BY i",
		"SELECT i, twice(CASE WHEN i = 3000 THEN -2 ELSE i END) FROM n ORDER BY i",
	} {
		ns, errs := run(q, false)
		na, erra := run(q, true)
		if ns != 2999 || na != ns || errs == nil || erra == nil || errs.Error() != erra.Error() {
			t.Fatalf("%s: %d rows, %v synchronously; %d rows, %v ahead", q, ns, errs, na, erra)
		}
		if !strings.Contains(erra.Error(), "minus") {
			t.Fatal(erra)
		}
	}
}

// A progress handler runs on the worker too; Close right after a fetch waits for it and does
// not mistake it for a hook of this goroutine (ErrMisuse).
func TestFetchAheadProgressHandlerAndClose(t *testing.T) {
	for k := 0; k < 20; k++ {
		c, err := sqlbatch.OpenWithFlags(":memory:", sqlbatch.OpenFetchAhead)
		if err != nil {
			t.Fatal(err)
		}
		numbers(t, c, 3000)
		var calls atomic.Int64
		if err := c.ProgressHandler(10, func() bool { calls.Add(1); time.Sleep(10 * time.Microsecond); return false }); err != nil {
			t.Fatal(err)
		}
		s, err := c.Prepare("SELECT i FROM n")
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatchRows(64)
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 65+k; i++ {
			rows.Next()
		}
		if err := c.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if calls.Load() == 0 {
			t.Fatal("no progress call")
		}
	}
	// A panicking progress handler: the rows before it, then the panic with its interrupt.
	for _, on := range []bool{false, true} {
		c := memory(t)
		numbers(t, c, 3000)
		calls := 0
		if err := c.ProgressHandler(50, func() bool {
			calls++
			if calls == 100 {
				panic("progress")
			}
			return false
		}); err != nil {
			t.Fatal(err)
		}
		s, err := c.Prepare("SELECT i FROM n")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetFetchAhead(on); err != nil {
			t.Fatal(err)
		}
		s.SetBatchRows(64)
		rows, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		var hp *sqlbatch.HookPanicError
		if !errors.As(rows.Err(), &hp) || hp.Value != "progress" || n == 0 || n == 3000 {
			t.Fatalf("ahead %v: %d rows, %v", on, n, rows.Err())
		}
		// Synchronously the panic comes alone; ahead, with the interrupt it caused (docs/go.md).
		if on != errors.Is(hp.Err, sqlbatch.ErrInterrupt) || !on && hp.Err != nil {
			t.Fatalf("ahead %v: Err %v", on, hp.Err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// bulkFill returns a fill function for ExecManyFunc: rows from..to-1 of (i, text, float) in
// batches of batch rows, with a duplicate key at row dup (-1: none).
func bulkFill(from, to, batch, dup int, calls *int) func(p *sqlbatch.Params) error {
	next := from
	return func(p *sqlbatch.Params) error {
		*calls++
		for k := 0; k < batch && next < to; k++ {
			id := next
			if next == dup {
				id = from
			}
			p.Int64(int64(id)).Text(fmt.Sprintf("row %d", next)).Float64(math.Sqrt(float64(next)))
			next++
		}
		return nil
	}
}

func tableDump(t testing.TB, c *sqlbatch.Conn) string {
	t.Helper()
	rows, err := c.Query("SELECT count(*), total(i), group_concat(t), total(f) FROM (SELECT * FROM w ORDER BY i)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	return fmt.Sprint(rows.Int64(0), rows.Float64(1), len(rows.Text(2)), rows.Float64(3), fmt.Sprintf("%x", sumText(rows.Text(2))))
}

func sumText(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// ExecManyFunc with and without write-behind: the same rows, result and errors.
func TestWriteBehindEquivalence(t *testing.T) {
	for _, tc := range []struct{ n, batch, dup, fillErr int }{
		{10000, 1000, -1, -1},
		{10001, 1000, -1, -1},
		{5, 1, -1, -1},
		{1, 4096, -1, -1},
		{0, 100, -1, -1},
		{10000, 1000, 5432, -1}, // a UNIQUE failure in the 6th batch
		{10000, 1000, 999, -1},  // at the end of the first batch
		{10000, 1000, 1000, -1}, // at the start of the second
		{10000, 1000, -1, 3},    // fill fails at its 4th call
		{10000, 1000, 2500, 3},  // a write failure (batch 3) before fill's (4th call)
	} {
		a := runWB(t, false, tc.n, tc.batch, tc.dup, tc.fillErr)
		b := runWB(t, true, tc.n, tc.batch, tc.dup, tc.fillErr)
		a.calls, b.calls = 0, 0 // write-behind may call fill once more (see ExecManyFunc)
		if a != b {
			t.Fatalf("%+v:\nsync  %+v\nahead %+v", tc, a, b)
		}
		if tc.dup >= 0 && (a.row != tc.dup || a.res.Rows != tc.dup || a.code != sqlbatch.ErrConstraintPrimaryKey) {
			t.Fatalf("%+v: %+v", tc, a)
		}
		if tc.dup < 0 && tc.fillErr < 0 && (a.err != "" || a.res.Rows != tc.n || a.res.Changes != int64(tc.n)) {
			t.Fatalf("%+v: %+v", tc, a)
		}
	}
}

type wbOutcome struct {
	res   sqlbatch.WriteResult
	err   string
	row   int
	code  sqlbatch.ErrorCode
	dump  string
	calls int
}

func runWB(t *testing.T, on bool, n, batch, dup, fillErrAt int) wbOutcome {
	t.Helper()
	c := memory(t)
	mustExec(t, c, "CREATE TABLE w(i INTEGER PRIMARY KEY, t TEXT, f REAL)")
	var updates atomic.Int64
	if err := c.UpdateHook(func(op int, schema, table string, rowid int64) { updates.Add(1) }); err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare("INSERT INTO w VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetWriteBehind(on)
	var o wbOutcome
	fill := bulkFill(0, n, batch, dup, &o.calls)
	if fillErrAt >= 0 {
		inner := fill
		fill = func(p *sqlbatch.Params) error {
			if o.calls == fillErrAt {
				o.calls++
				return errors.New("fill failed")
			}
			return inner(p)
		}
	}
	mustExec(t, c, "BEGIN")
	o.res, err = s.ExecManyFunc(fill)
	o.row = -2
	if err != nil {
		o.err = err.Error()
		var e *sqlbatch.Error
		if errors.As(err, &e) {
			o.row, o.code = e.RowIndex, e.ExtendedCode
		}
	}
	if r, err := s.ExecManyFunc(func(p *sqlbatch.Params) error { return nil }); err != nil || r.Rows != 0 {
		t.Fatal(r, err)
	}
	mustExec(t, c, "COMMIT")
	o.dump = tableDump(t, c)
	if want := int64(o.res.Rows); updates.Load() != want {
		t.Fatalf("%d rows, %d update hook calls", o.res.Rows, updates.Load())
	}
	return o
}

// Interrupt stops a write-behind as it stops ExecMany.
func TestWriteBehindInterrupt(t *testing.T) {
	for _, on := range []bool{false, true} {
		for k := 0; k < 5; k++ {
			writeBehindInterrupt(t, on)
		}
	}
}

func writeBehindInterrupt(t *testing.T, on bool) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE w(i INTEGER PRIMARY KEY, t TEXT, f REAL)")
	s, err := c.Prepare("INSERT INTO w VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetWriteBehind(on)
	var calls int
	fill := bulkFill(0, math.MaxInt, 2000, -1, &calls)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		for {
			select {
			case <-stop:
				return
			default:
				c.Interrupt()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	mustExec(t, c, "BEGIN")
	r, err := s.ExecManyFunc(fill)
	close(stop)
	wg.Wait()
	if !errors.Is(err, sqlbatch.ErrInterrupt) { // r.Rows may be 0 on a loaded machine
		t.Fatalf("write-behind %v: %+v %v", on, r, err)
	}
	if !c.Autocommit() { // SQLite may have rolled back already (an interrupted INSERT)
		mustExec(t, c, "ROLLBACK")
	}
	// The statement works on.
	calls = 0
	if r, err := s.ExecManyFunc(bulkFill(0, 10, 3, -1, &calls)); err != nil || r.Rows != 10 {
		t.Fatalf("write-behind %v: after the interrupt: %+v %v", on, r, err)
	}
}

// Closing the statement from fill while a batch is written: the write is waited for and
// dropped, and ExecManyFunc reports the closed statement.
func TestWriteBehindCloseFromFill(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE w(i INTEGER PRIMARY KEY, t TEXT, f REAL)")
	s, err := c.Prepare("INSERT INTO w VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	inner := bulkFill(0, 100000, 1000, -1, &calls)
	_, err = s.ExecManyFunc(func(p *sqlbatch.Params) error {
		if calls == 3 {
			if err := s.Close(); err != nil {
				return err
			}
		}
		return inner(p)
	})
	if err == nil {
		t.Fatal("no error after Close")
	}
	if got := ints(t, c, "SELECT count(*) FROM w"); got[0] != 2000 && got[0] != 3000 {
		t.Fatal(got)
	}
}

// A panic in fill while a batch is written: the write is waited for (its memory unpinned)
// before the panic goes on, and the statement works on.
func TestWriteBehindFillPanics(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE w(i INTEGER PRIMARY KEY, t TEXT, f REAL)")
	s, err := c.Prepare("INSERT INTO w VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	calls := 0
	inner := bulkFill(0, 100000, 1000, -1, &calls)
	func() {
		defer func() {
			if r := recover(); r != "fill" {
				t.Fatal(r)
			}
		}()
		if _, err := s.ExecManyFunc(func(p *sqlbatch.Params) error {
			if calls == 2 {
				panic("fill")
			}
			return inner(p)
		}); err != nil {
			t.Error(err)
		}
	}()
	if got := ints(t, c, "SELECT count(*) FROM w"); got[0] != 2000 {
		t.Fatal(got)
	}
	calls = 0
	if r, err := s.ExecManyFunc(bulkFill(200000, 200010, 3, -1, &calls)); err != nil || r.Rows != 10 {
		t.Fatal(r, err)
	}
}
