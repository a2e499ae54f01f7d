package sqlbatch_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func tvpDB(t *testing.T) *sqlbatch.Conn {
	t.Helper()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_, err = c.ExecScript(`CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO item SELECT i, 'n' || i FROM n;`)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// allRows reads every row of a query as []any.
func allRows(t *testing.T, c *sqlbatch.Conn, sql string, args ...any) [][]any {
	t.Helper()
	r, err := c.Query(sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer r.Close()
	var out [][]any
	for r.Next() {
		out = append(out, rowValues(r))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// rowValues is the current row's values, in a new slice.
func rowValues(r *sqlbatch.Rows) []any {
	v := make([]any, r.Stmt().ColumnCount())
	for i := range v {
		v[i] = r.Value(i)
	}
	return v
}

func TestArrayIsAnInList(t *testing.T) {
	c := tvpDB(t)
	got := allRows(t, c, "SELECT id, name FROM item WHERE id IN sqlbatch_rows(?) ORDER BY id",
		sqlbatch.Array([]int64{7, 3, 999, 5000, 3, -1}))
	want := [][]any{{int64(3), "n3"}, {int64(7), "n7"}, {int64(999), "n999"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// A statement kept and bound again with other lists, through Query and QueryParams.
	s, err := c.Prepare("SELECT count(*), coalesce(sum(id), 0) FROM item WHERE id IN sqlbatch_rows(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var p sqlbatch.Params
	for n := range 50 {
		ids := make([]int, n)
		var sum int64
		for i := range ids {
			ids[i] = i*20 + 1
			sum += int64(ids[i])
		}
		var r *sqlbatch.Rows
		if n%2 == 0 {
			r, err = s.Query(sqlbatch.Array(ids))
		} else {
			p.Reset()
			if err := p.Any(sqlbatch.Array(ids)); err != nil {
				t.Fatal(err)
			}
			r, err = s.QueryParams(&p)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() || r.Int64(0) != int64(n) || r.Int64(1) != sum {
			t.Fatalf("list of %d: got %v (%v), want %d, %d", n, rowValues(r), r.Err(), n, sum)
		}
		r.Close()
	}
}

func TestArrayElementTypes(t *testing.T) {
	c := tvpDB(t)
	when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	cases := []struct {
		name string
		xs   any
		want [][]any
	}{
		{"int", []int{1, -2}, [][]any{{int64(1), "integer"}, {int64(-2), "integer"}}},
		{"int32", []int32{5}, [][]any{{int64(5), "integer"}}},
		{"uint16", []uint16{65535}, [][]any{{int64(65535), "integer"}}},
		{"float64", []float64{0.5}, [][]any{{0.5, "real"}}},
		{"float32", []float32{0.25}, [][]any{{0.25, "real"}}},
		{"bool", []bool{true, false}, [][]any{{int64(1), "integer"}, {int64(0), "integer"}}},
		{"string", []string{"a", "", "é\x00z"}, [][]any{{"a", "text"}, {"", "text"}, {"é\x00z", "text"}}},
		{"bytes", [][]byte{{1, 2}, {}, nil}, [][]any{{[]byte{1, 2}, "blob"}, {[]byte{}, "blob"}, {nil, "null"}}},
		{"time", []time.Time{when}, [][]any{{when.Format(sqlbatch.TimeFormat), "text"}}},
		{"any", []any{nil, int64(3), "x", 1.5, []byte("b"), true}, [][]any{
			{nil, "null"}, {int64(3), "integer"}, {"x", "text"}, {1.5, "real"}, {[]byte("b"), "blob"}, {int64(1), "integer"}}},
		{"empty", []int64{}, nil},
		{"nil", []string(nil), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := allRows(t, c, "SELECT value, typeof(value) FROM sqlbatch_rows(?)", sqlbatch.Array(tc.xs))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestTableOfSeveralColumnsInsertedInOneStatement(t *testing.T) {
	c := tvpDB(t)
	if _, err := c.ExecScript(`CREATE TABLE t(id INTEGER, score REAL, name TEXT, raw BLOB);
		CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, score REAL, name TEXT, raw BLOB)`); err != nil {
		t.Fatal(err)
	}
	const n = 500
	ids := make([]int64, n)
	scores := make([]any, n)
	names := make([]string, n)
	raws := make([][]byte, n)
	for i := range n {
		ids[i] = int64(i)
		if i%7 != 0 {
			scores[i] = float64(i) / 4
		}
		names[i] = strings.Repeat("x", i%5)
		if i%3 != 0 {
			raws[i] = []byte{byte(i)}
		}
	}
	s, err := c.Prepare("INSERT INTO t SELECT * FROM incoming(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Exec(sqlbatch.Table(ids, scores, names, raws))
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes != n {
		t.Fatalf("%d changes, want %d", res.Changes, n)
	}
	got := allRows(t, c, "SELECT count(*), sum(id), count(score), sum(length(name)), count(raw) FROM t")
	want := [][]any{{int64(n), int64(n * (n - 1) / 2), int64(n - (n+6)/7), int64(2 * n), int64(n - (n+2)/3)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// The statement runs again with another table (its bindings were cleared); an empty
	// table inserts nothing.
	if res, err := s.Exec(sqlbatch.Table(ids[:2], scores[:2], names[:2], raws[:2])); err != nil || res.Changes != 2 {
		t.Fatalf("again: %v %v", res, err)
	}
	if res, err := s.Exec(sqlbatch.Table([]int{}, []float64{}, []string{}, [][]byte{})); err != nil || res.Changes != 0 {
		t.Fatalf("empty: %v %v", res, err)
	}
	// ExecScript takes a table for a single statement too, and so does ExecParams.
	if r, err := c.ExecScript("INSERT INTO t(id) SELECT value FROM sqlbatch_rows(?)", sqlbatch.Array([]int{-1, -2})); err != nil || r.Changes != 2 {
		t.Fatalf("ExecScript: %v %v", r, err)
	}
	var p sqlbatch.Params
	if err := p.Append(sqlbatch.Array([]int{-3})); err != nil {
		t.Fatal(err)
	}
	ins, err := c.Prepare("INSERT INTO t(id) SELECT value FROM sqlbatch_rows(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	if r, err := ins.ExecParams(&p); err != nil || r.Changes != 1 {
		t.Fatalf("ExecParams: %v %v", r, err)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM t WHERE id < 0"); got != 3 {
		t.Fatalf("%d negative ids", got)
	}
}

func TestTableBesideOtherParameters(t *testing.T) {
	c := tvpDB(t)
	// Positional and named values around two tables, bound in one call into C.
	q := "SELECT count(*) FROM item WHERE id > :lo AND id IN sqlbatch_rows(:a) AND name IN sqlbatch_rows(:b) AND id < ?"
	got := queryInt(t, c, q, sqlbatch.Named("b", sqlbatch.Array([]string{"n5", "n6", "n900"})), 800,
		sqlbatch.Named("lo", 1), sqlbatch.Named("a", sqlbatch.Array([]int{5, 6, 7, 900})))
	if got != 2 {
		t.Fatalf("got %d, want 2", got)
	}
	// A table bound to a parameter that is not read as a table is NULL there.
	if v := allRows(t, c, "SELECT ? IS NULL", sqlbatch.Array([]int{1})); !reflect.DeepEqual(v, [][]any{{int64(1)}}) {
		t.Fatalf("got %v", v)
	}
}

func TestTableValueErrors(t *testing.T) {
	c := tvpDB(t)
	q := "SELECT count(*) FROM sqlbatch_rows(?)"
	bad := []struct {
		v    sqlbatch.TableValue
		want string
	}{
		{sqlbatch.Array([]byte("abc")), "a []byte is one BLOB"},
		{sqlbatch.Array(42), "a int is not an array"},
		{sqlbatch.Array(nil), "a nil is not an array"},
		{sqlbatch.Array([]complex128{1}), "[]complex128 is not an array"},
		{sqlbatch.Table(), "at least one column"},
		{sqlbatch.Table([]int{1, 2}, []string{"a"}), "column 1 has 1 values, column 0 has 2"},
		{sqlbatch.Table([]int{1}, map[int]int{}), "column 1 is a map[int]int"},
		{sqlbatch.Array([]any{struct{}{}}), "unsupported parameter type struct {}"},
		{sqlbatch.Array([]any{sqlbatch.Array([]int{1})}), "a cell holds one value"},
		{sqlbatch.Array([]uint64{1 << 63}), "a []uint64 is not an array"},
	}
	for _, b := range bad {
		r, err := c.Query(q, b.v)
		if err == nil {
			r.Close()
			t.Errorf("%v: no error", b.want)
			continue
		}
		if !strings.Contains(err.Error(), b.want) {
			t.Errorf("got %q, want it to say %q", err, b.want)
		}
	}
	// Err says so before any binding (what the driver checks); a good table has none.
	if sqlbatch.Array([]byte("x")).Err() == nil || sqlbatch.Table([]int{1}, []int{}).Err() == nil {
		t.Error("Err missed a bad table")
	}
	if err := sqlbatch.Table([]int{1}, []string{"a"}).Err(); err != nil {
		t.Error(err)
	}
	// A table binds one run of one statement: bulk writes, scripts and names refuse it.
	s, err := c.Prepare("INSERT INTO item(name) SELECT value FROM sqlbatch_rows(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var p sqlbatch.Params
	p.Any(sqlbatch.Array([]string{"a"}))
	if _, err := s.ExecMany(&p); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("ExecMany: %v", err)
	}
	calls := 0
	if _, err := s.ExecManyFunc(func(p *sqlbatch.Params) error {
		calls++
		return p.Any(sqlbatch.Array([]string{"a"}))
	}); !errors.Is(err, sqlbatch.ErrInvalidArgument) || calls != 1 {
		t.Errorf("ExecManyFunc: %v after %d fills", err, calls)
	}
	if _, err := c.ExecScript("SELECT 1; SELECT count(*) FROM sqlbatch_rows(?)", sqlbatch.Array([]int{1})); !errors.Is(err, sqlbatch.ErrMultipleStatements) {
		t.Errorf("script: %v", err)
	}
	p.Reset()
	p.Named("x")
	if err := p.Any(sqlbatch.Array([]int{1})); err == nil || !strings.Contains(err.Error(), "by position") {
		t.Errorf("Params.Named: %v", err)
	}
	p.Reset()
	p.Named("x").Int64(1)
	p.Any(sqlbatch.Array([]int{1}))
	if _, err := s.ExecParams(&p); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("names and a table: %v", err)
	}
	// More values than parameters, a table among them.
	if _, err := c.Query("SELECT ?", sqlbatch.Array([]int{1}), 2); err == nil {
		t.Error("too many arguments: no error")
	}
	// The statement still works after all that.
	if got := queryInt(t, c, q, sqlbatch.Array([]int{1, 2, 3})); got != 3 {
		t.Fatalf("got %d", got)
	}
	// A scan of sqlbatch_rows whose parameter holds no table fails.
	r, err := c.Query(q, 5)
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Close()
	}
	if err == nil {
		t.Error("no table bound: no error")
	}
}

func TestTableSurvivesResetAndIsReplacedByBind(t *testing.T) {
	c := tvpDB(t)
	s, err := c.Prepare("SELECT count(*) FROM item WHERE id IN sqlbatch_rows(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Bind(sqlbatch.Array([]int{1, 2, 3})); err != nil {
		t.Fatal(err)
	}
	for range 2 { // Query without arguments keeps the bindings
		r, err := s.Query()
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() || r.Int64(0) != 3 {
			t.Fatalf("got %v %v", rowValues(r), r.Err())
		}
	}
	if err := s.ClearBindings(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if r.Err() == nil {
		t.Error("cleared: no error")
	}
}
