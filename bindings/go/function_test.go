package sqlbatch_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

func fnDB(t *testing.T) *sqlbatch.Conn {
	t.Helper()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	_, err = c.ExecScript(`CREATE TABLE t(x INTEGER, s TEXT);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO t SELECT i, 'v' || i FROM n;`)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func queryInt(t *testing.T, c *sqlbatch.Conn, sql string, args ...any) int64 {
	t.Helper()
	r, err := c.Query(sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatalf("%s: no row: %v", sql, r.Err())
	}
	return r.Int64(0)
}

func queryErr(c *sqlbatch.Conn, sql string) error {
	r, err := c.Query(sql)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
	}
	return r.Err()
}

func TestFunctionScalarSum(t *testing.T) {
	c := fnDB(t)
	err := c.CreateFunction("f", 1, sqlbatch.Deterministic, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		ctx.SetInt64(a.Int64(0)*2 + 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := queryInt(t, c, "SELECT sum(f(x)) FROM t")
	want := queryInt(t, c, "SELECT sum(x*2+1) FROM t")
	if got != want || got != 1002000 {
		t.Fatalf("sum(f(x)) = %d, want %d", got, want)
	}
	// Text arguments, results of every type.
	if err := c.CreateFunction("up", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) { ctx.SetText(strings.ToUpper(a.Text(0))) }); err != nil {
		t.Fatal(err)
	}
	r, err := c.Query("SELECT up(s), up(x), up(NULL) FROM t WHERE x = 7")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() || r.Text(0) != "V7" || r.Text(1) != "7" || r.Text(2) != "" {
		t.Fatalf("up: %q %q %v", r.Text(0), r.Text(1), r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFunctionVariadicAndTypes(t *testing.T) {
	c := fnDB(t)
	if err := c.CreateFunction("describe", -1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		var parts []string
		for i := 0; i < a.Len(); i++ {
			parts = append(parts, fmt.Sprintf("%s:%v", a.Type(i), a.Value(i)))
		}
		ctx.SetText(strings.Join(parts, ","))
	}); err != nil {
		t.Fatal(err)
	}
	r, err := c.Query("SELECT describe(), describe(1, 2.5, 'a', x'00ff', NULL)")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if r.Text(0) != "" {
		t.Errorf("describe() = %q", r.Text(0))
	}
	want := "INTEGER:1,FLOAT:2.5,TEXT:a,BLOB:[0 255],NULL:<nil>"
	if got := r.Text(1); got != want {
		t.Errorf("describe(...) = %q, want %q", got, want)
	}
	// Result setters.
	if err := c.CreateFunction("kinds", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		switch a.Int64(0) {
		case 1:
			ctx.SetFloat64(1.5)
		case 2:
			ctx.SetBlob([]byte{1, 2})
		case 3:
			ctx.SetValue(true)
		}
	}); err != nil {
		t.Fatal(err)
	}
	r2, err := c.Query("SELECT typeof(kinds(1)), typeof(kinds(2)), kinds(3), typeof(kinds(4))")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if !r2.Next() || r2.Text(0) != "real" || r2.Text(1) != "blob" || r2.Int64(2) != 1 || r2.Text(3) != "null" {
		t.Fatalf("kinds: %v %v %v %v %v", r2.Text(0), r2.Text(1), r2.Int64(2), r2.Text(3), r2.Err())
	}
}

func TestFunctionErrorsAndPanics(t *testing.T) {
	c := fnDB(t)
	if err := c.CreateFunction("fail", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		if a.Int64(0) == 500 {
			ctx.SetError(errors.New("no 500 here"))
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateFunction("boom", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		if a.Int64(0) == 3 {
			panic("kaboom")
		}
		ctx.SetInt64(a.Int64(0))
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sql, msg string }{
		{"SELECT sum(fail(x)) FROM t", "no 500 here"},
		{"SELECT boom(x) FROM t", "panic: kaboom"},
		{"SELECT sum(boom(x)) FROM t", "panic: kaboom"},
	} {
		err := queryErr(c, tc.sql)
		var e *sqlbatch.Error
		if !errors.As(err, &e) || e.Code != sqlbatch.ErrError || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%s: err %v, want ErrError with %q", tc.sql, err, tc.msg)
		}
		// The connection stays usable.
		if n := queryInt(t, c, "SELECT count(*) FROM t"); n != 1000 {
			t.Fatalf("count after error = %d", n)
		}
	}
	// Exec and ExecMany call back too.
	if _, err := c.ExecScript("UPDATE t SET x = boom(x)"); err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Errorf("ExecScript: %v", err)
	}
	var p sqlbatch.Params
	p.Int64(1).Int64(3)
	if _, err := c.ExecMany("INSERT INTO t(x) VALUES (boom(?))", &p); err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Errorf("ExecMany: %v", err)
	}
	if err := c.CreateFunction("", 1, 0, func(*sqlbatch.Context, sqlbatch.Args) {}); err == nil {
		t.Error("empty name accepted")
	}
}

// sumSquares is a batched aggregate: it counts its calls and rows.
type sumSquares struct {
	sum, rows, calls *int64
	acc              int64
}

func (g *sumSquares) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	*g.calls++
	for i := 0; i < rows.Len(); i++ {
		v := rows.Row(i).Int64(0)
		g.acc += v * v
		*g.rows++
	}
}

func (g *sumSquares) Final(ctx *sqlbatch.Context) { ctx.SetInt64(g.acc) }

func TestAggregateBatchedAndPerRow(t *testing.T) {
	c := fnDB(t)
	want := queryInt(t, c, "SELECT sum(x*x) FROM t")
	for _, batch := range []int{0, 1, 7, 256, 5000} {
		var rows, calls int64
		err := c.CreateAggregate("sq", 1, sqlbatch.AggregateOptions{BatchRows: batch}, func() sqlbatch.AggregateGroup {
			return &sumSquares{rows: &rows, calls: &calls}
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := queryInt(t, c, "SELECT sq(x) FROM t"); got != want {
			t.Errorf("batch %d: sq = %d, want %d", batch, got, want)
		}
		wantCalls := int64(1000)
		if batch > 1 {
			wantCalls = int64((1000 + batch - 1) / batch)
		}
		if rows != 1000 || calls != wantCalls {
			t.Errorf("batch %d: %d rows in %d calls, want 1000 in %d", batch, rows, calls, wantCalls)
		}
		// Groups agree with SQL.
		r, err := c.Query("SELECT x % 3, sq(x), sum(x*x) FROM t GROUP BY 1 ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			if r.Int64(1) != r.Int64(2) {
				t.Errorf("batch %d group %d: %d != %d", batch, r.Int64(0), r.Int64(1), r.Int64(2))
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		// An empty group still gets Final.
		if got := queryInt(t, c, "SELECT sq(x) FROM t WHERE x < 0"); got != 0 {
			t.Errorf("empty: %d", got)
		}
	}
}

type panicky struct{ n int }

func (g *panicky) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	g.n += rows.Len()
	if g.n > 600 {
		panic(fmt.Sprintf("too many rows: %d", g.n))
	}
}
func (g *panicky) Final(ctx *sqlbatch.Context) {
	if g.n > 10 {
		ctx.SetError(errors.New("final failed"))
		return
	}
	ctx.SetInt64(int64(g.n))
}

func TestAggregateErrors(t *testing.T) {
	c := fnDB(t)
	before := capi.LiveHandles()
	if err := c.CreateAggregate("p", 1, sqlbatch.AggregateOptions{BatchRows: 100}, func() sqlbatch.AggregateGroup { return &panicky{} }); err != nil {
		t.Fatal(err)
	}
	if err := queryErr(c, "SELECT p(x) FROM t"); err == nil || !strings.Contains(err.Error(), "too many rows: 700") {
		t.Errorf("panic in step: %v", err)
	}
	if err := queryErr(c, "SELECT p(x) FROM t WHERE x < 100"); err == nil || !strings.Contains(err.Error(), "final failed") {
		t.Errorf("error in final: %v", err)
	}
	if n := queryInt(t, c, "SELECT p(x) FROM t WHERE x < 5"); n != 4 {
		t.Errorf("p = %d", n)
	}
	// A statement closed mid-aggregate releases its groups.
	r, err := c.Query("SELECT x % 10, p(x) FROM t GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := capi.LiveHandles() - before; got != 1 {
		t.Errorf("%d handles live, want 1 (the registration)", got)
	}
}

func TestCollation(t *testing.T) {
	c := fnDB(t)
	// Reverse order of length, then bytes.
	err := c.CreateCollation("bylen", func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Query("SELECT s FROM t WHERE x IN (1, 10, 100, 1000, 2, 20) ORDER BY s COLLATE bylen")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r.Next() {
		got = append(got, r.Text(0))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "v1000 v100 v10 v20 v1 v2"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
	if err := c.CreateCollation("bylen", nil); err != nil {
		t.Fatal(err)
	}
	if err := queryErr(c, "SELECT s FROM t ORDER BY s COLLATE bylen"); err == nil {
		t.Error("deleted collation still works")
	}
}

func TestFunctionHandlesReleased(t *testing.T) {
	before := capi.LiveHandles()
	for i := 0; i < 3; i++ {
		c := fnDB(t)
		noop := func(*sqlbatch.Context, sqlbatch.Args) {}
		if err := c.CreateFunction("a", 1, 0, noop); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateFunction("a", 1, 0, noop); err != nil { // replaces: the first is destroyed
			t.Fatal(err)
		}
		if err := c.CreateFunction("b", -1, 0, noop); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateFunction("b", -1, 0, nil); err != nil { // deletes
			t.Fatal(err)
		}
		if err := c.CreateCollation("c", strings.Compare); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateAggregate("d", 1, sqlbatch.AggregateOptions{BatchRows: 10}, func() sqlbatch.AggregateGroup { return &panicky{} }); err != nil {
			t.Fatal(err)
		}
		if got := capi.LiveHandles() - before; got != 3 {
			t.Errorf("%d live handles, want 3", got)
		}
		queryInt(t, c, "SELECT d(x) FROM t WHERE x < 3")
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if got := capi.LiveHandles() - before; got != 0 {
			t.Errorf("%d live handles after Close", got)
		}
	}
}

// A callback that grows the goroutine's stack while C holds pointers into Go memory: the
// fetch out-parameters must not live on the Go stack.
func TestFunctionStackGrowth(t *testing.T) {
	c := fnDB(t)
	var deep func(n int) int
	deep = func(n int) int {
		var pad [256]byte
		if n == 0 {
			return int(pad[0])
		}
		return deep(n-1) + int(pad[n%256])
	}
	if err := c.CreateFunction("deep", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		ctx.SetInt64(a.Int64(0) + int64(deep(2000)))
		runtime.GC()
	}); err != nil {
		t.Fatal(err)
	}
	if got := queryInt(t, c, "SELECT sum(deep(x)) FROM t WHERE x <= 50"); got != 1275 {
		t.Errorf("sum = %d", got)
	}
}

func TestFunctionInterrupt(t *testing.T) {
	c := fnDB(t)
	calls := make(chan struct{}, 1)
	if err := c.CreateFunction("slow", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		select {
		case calls <- struct{}{}:
		default:
		}
		ctx.SetInt64(a.Int64(0))
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		<-calls
		for i := 0; i < 1000; i++ {
			c.Interrupt()
			time.Sleep(time.Millisecond)
		}
	}()
	err := queryErr(c, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
		SELECT sum(slow(i)) FROM n`)
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.Code != sqlbatch.ErrInterrupt {
		t.Fatalf("err %v, want ErrInterrupt", err)
	}
}

type countRows struct{ n int64 }

func (g *countRows) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	for i := 0; i < rows.Len(); i++ {
		if rows.Row(i).Len() != 0 {
			panic("arguments in a zero-argument aggregate")
		}
	}
	g.n += int64(rows.Len())
}
func (g *countRows) Final(ctx *sqlbatch.Context) { ctx.SetInt64(g.n) }

func TestAggregateNoArguments(t *testing.T) {
	c := fnDB(t)
	for _, batch := range []int{1, 64} {
		if err := c.CreateAggregate("cnt", 0, sqlbatch.AggregateOptions{BatchRows: batch}, func() sqlbatch.AggregateGroup { return &countRows{} }); err != nil {
			t.Fatal(err)
		}
		if n := queryInt(t, c, "SELECT cnt() FROM t"); n != 1000 {
			t.Errorf("batch %d: cnt() = %d", batch, n)
		}
	}
}

type concat struct{ b strings.Builder }

func (g *concat) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	for i := 0; i < rows.Len(); i++ {
		if g.b.Len() > 0 {
			g.b.WriteByte(',')
		}
		g.b.Write(rows.Row(i).RawBytes(0))
	}
}
func (g *concat) Final(ctx *sqlbatch.Context) { ctx.SetText(g.b.String()) }

func TestAggregateTextBatches(t *testing.T) {
	c := fnDB(t)
	for _, o := range []sqlbatch.AggregateOptions{{BatchRows: 1}, {BatchRows: 100, BatchBytes: 50}, {BatchRows: 1000}} {
		if err := c.CreateAggregate("cat", 1, o, func() sqlbatch.AggregateGroup { return &concat{} }); err != nil {
			t.Fatal(err)
		}
		r, err := c.Query("SELECT cat(s), group_concat(s, ',') FROM (SELECT s FROM t ORDER BY x)")
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() || r.Text(0) != r.Text(1) || len(r.Text(0)) < 4000 {
			t.Errorf("%+v: cat %d bytes, group_concat %d: %v", o, len(r.Text(0)), len(r.Text(1)), r.Err())
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// movingSum is a window function: the sum of the frame.
type movingSum struct{ sum int64 }

func (g *movingSum) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	for i := 0; i < rows.Len(); i++ {
		g.sum += rows.Row(i).Int64(0)
	}
}
func (g *movingSum) Inverse(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	for i := 0; i < rows.Len(); i++ {
		g.sum -= rows.Row(i).Int64(0)
	}
}
func (g *movingSum) Value(ctx *sqlbatch.Context) { ctx.SetInt64(g.sum) }
func (g *movingSum) Final(ctx *sqlbatch.Context) { ctx.SetInt64(g.sum) }

func TestWindowFunction(t *testing.T) {
	c := fnDB(t)
	before := capi.LiveHandles()
	for _, batch := range []int{1, 64} {
		err := c.CreateAggregate("msum", 1, sqlbatch.AggregateOptions{Window: true, BatchRows: batch},
			func() sqlbatch.AggregateGroup { return &movingSum{} })
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Query(`SELECT x, msum(x) OVER w, sum(x) OVER w, msum(x) OVER (ORDER BY x), sum(x) OVER (ORDER BY x)
			FROM t WINDOW w AS (ORDER BY x ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING)`)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
			if r.Int64(1) != r.Int64(2) || r.Int64(3) != r.Int64(4) {
				t.Fatalf("batch %d, x %d: msum %d %d, sum %d %d", batch, r.Int64(0), r.Int64(1), r.Int64(3), r.Int64(2), r.Int64(4))
			}
		}
		if err := r.Err(); err != nil || n != 1000 {
			t.Fatalf("%d rows, %v", n, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		// Also as a plain aggregate.
		if got := queryInt(t, c, "SELECT msum(x) FROM t"); got != 500500 {
			t.Errorf("msum = %d", got)
		}
	}
	if got := capi.LiveHandles() - before; got != 1 {
		t.Errorf("%d handles live, want 1", got)
	}
	if err := c.CreateAggregate("nowin", 1, sqlbatch.AggregateOptions{Window: true}, func() sqlbatch.AggregateGroup { return &panicky{} }); err == nil {
		t.Error("a group without Inverse and Value accepted as a window function")
	}
}

// Numbers are stored in the call without a cgo call, text goes through the library: whatever
// the mix, the last result set is the one SQL sees, and an error stays.
func TestFunctionLastResultWins(t *testing.T) {
	c := fnDB(t)
	err := c.CreateFunction("mix", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		switch a.Int64(0) {
		case 0:
			ctx.SetText("first")
			ctx.SetInt64(42)
		case 1:
			ctx.SetInt64(42)
			ctx.SetText("last")
		case 2:
			ctx.SetFloat64(1.5)
			ctx.SetNull()
		case 3:
			ctx.SetBlob([]byte{1})
			ctx.SetFloat64(2.5)
		default:
			ctx.SetError(errors.New("mix failed"))
			ctx.SetInt64(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Query("SELECT mix(0), typeof(mix(0)), mix(1), typeof(mix(2)), mix(3)")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() || r.Int64(0) != 42 || r.Text(1) != "integer" || r.Text(2) != "last" || r.Text(3) != "null" || r.Float64(4) != 2.5 {
		t.Fatalf("mix: %v %q %q %q %v %v", r.Int64(0), r.Text(1), r.Text(2), r.Text(3), r.Float64(4), r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := queryErr(c, "SELECT mix(4)"); err == nil || !strings.Contains(err.Error(), "mix failed") {
		t.Fatalf("mix(4): %v", err)
	}
}

// Close from inside a function, an aggregate or a collation of the connection is refused
// (it would finalize the statement calling them), and the connection goes on working.
func TestCloseInsideAFunction(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('b'), ('a')")
	var errs []error
	closeHere := func() { errs = append(errs, c.Close()) }
	if err := c.CreateFunction("f", 1, 0, func(ctx *sqlbatch.Context, a sqlbatch.Args) { closeHere(); ctx.SetInt64(1) }); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateAggregate("agg", 1, sqlbatch.AggregateOptions{}, func() sqlbatch.AggregateGroup { return &closingGroup{closeHere} }); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateCollation("closing", func(a, b string) int { closeHere(); return strings.Compare(a, b) }); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT f(x) FROM t", "SELECT agg(x) FROM t", "SELECT x FROM t ORDER BY x COLLATE closing"} {
		errs = errs[:0]
		if err := queryErr(c, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
		if len(errs) == 0 {
			t.Errorf("%s: nothing called Close", q)
		}
		for _, err := range errs {
			if !errors.Is(err, sqlbatch.ErrMisuse) {
				t.Errorf("%s: Close gave %v, want ErrMisuse", q, err)
			}
		}
	}
	if got := ints(t, c, "SELECT count(*) FROM t"); got[0] != 2 {
		t.Errorf("after the refused closes: %v", got)
	}
}

type closingGroup struct{ closeHere func() }

func (g *closingGroup) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) { g.closeHere() }
func (g *closingGroup) Final(ctx *sqlbatch.Context)                       { g.closeHere(); ctx.SetInt64(0) }
