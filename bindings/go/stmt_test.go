package sqlbatch_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func TestStmtExecAndQueryReuse(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
	ins, err := c.Prepare("INSERT INTO t(b) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	for i := range 5 {
		r, err := ins.Exec("v" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if r.Changes != 1 || r.LastInsertRowID != int64(i+1) {
			t.Fatalf("Exec result %+v", r)
		}
	}
	if _, err := ins.Exec(); !errors.Is(err, sqlbatch.ErrParamCount) {
		t.Errorf("Exec without its parameter: %v", err)
	}
	q, err := c.Prepare("SELECT b FROM t WHERE a >= ? ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, from := range []int{4, 2, 5} {
		rows, err := q.Query(from)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			if rows.Text(0) != "v"+strconv.Itoa(from-1+n) {
				t.Fatalf("from %d: row %d is %q", from, n, rows.Text(0))
			}
			n++
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if n != 6-from {
			t.Fatalf("from %d: %d rows", from, n)
		}
	}
	// Without arguments, Query keeps the last bindings and starts over.
	for range 2 {
		rows, err := q.Query()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if n != 1 {
			t.Fatalf("re-Query with the bindings kept: %d rows", n)
		}
	}
}

func TestStmtBindNamedAndNumbered(t *testing.T) {
	c := memory(t)
	s, err := c.Prepare("SELECT :a, @b, $c, ?5, :a")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ParamCount() != 5 || s.ParamName(1) != ":a" || s.ParamName(4) != "" || s.ParamName(5) != "?5" || s.ParamName(9) != "" {
		t.Fatalf("params: %d %q %q %q", s.ParamCount(), s.ParamName(1), s.ParamName(4), s.ParamName(5))
	}
	if s.ParamIndex("b") != 2 || s.ParamIndex("$c") != 3 || s.ParamIndex("zz") != 0 {
		t.Fatal("ParamIndex")
	}
	rows, err := s.Query(sqlbatch.Named("c", 3), sqlbatch.Named("a", 1), sqlbatch.Named("@b", 2), 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	got := []int64{rows.Int64(0), rows.Int64(1), rows.Int64(2), rows.Int64(3), rows.Int64(4)}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if got[0] != 1 || got[1] != 2 || got[2] != 3 || got[3] != 5 || got[4] != 1 {
		t.Fatalf("got %v (the positional 4 goes to the nameless ?4, 5 to ?5)", got)
	}
	if _, err := s.Query(sqlbatch.Named("nope", 1)); err == nil {
		t.Error("an unknown name was accepted")
	}
	exp, err := s.ExpandedSQL()
	if err != nil || exp == "" {
		t.Errorf("ExpandedSQL %q %v", exp, err)
	}
}

func TestExecManyBulkInsert(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE bulk(a INTEGER PRIMARY KEY, b REAL, c TEXT, d BLOB)")
	var p sqlbatch.Params
	const n = 10000
	for i := range n {
		p.Int64(int64(i)).Float64(float64(i) * 0.25).Text("row-" + strconv.Itoa(i))
		if i%3 == 0 {
			p.Null()
		} else {
			p.Blob([]byte{byte(i)})
		}
	}
	mustExec(t, c, "BEGIN")
	r, err := c.ExecMany("INSERT INTO bulk VALUES (?, ?, ?, ?)", &p)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "COMMIT")
	if r.Rows != n || r.Changes != n || r.LastInsertRowID != n-1 {
		t.Fatalf("result %+v", r)
	}
	got := ints(t, c, "SELECT count(*) FROM bulk UNION ALL SELECT sum(a) FROM bulk UNION ALL SELECT sum(length(c)) FROM bulk UNION ALL SELECT count(d) FROM bulk")
	wantLen := int64(0)
	for i := range n {
		wantLen += int64(len("row-" + strconv.Itoa(i)))
	}
	if got[0] != n || got[1] != n*(n-1)/2 || got[2] != wantLen || got[3] != n-(n+2)/3 {
		t.Fatalf("got %v", got)
	}
}

func TestExecManyReportsTheFailingRow(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE u(a INTEGER PRIMARY KEY)")
	s, err := c.Prepare("INSERT INTO u VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var p sqlbatch.Params
	p.Int(1).Int(2).Int(3).Int(2).Int(5)
	r, err := s.ExecMany(&p)
	e := asError(t, err)
	if e.ExtendedCode != sqlbatch.ErrConstraintPrimaryKey || e.RowIndex != 3 || r.Rows != 3 {
		t.Fatalf("err %v (row %d), result %+v", err, e.RowIndex, r)
	}
	if got := ints(t, c, "SELECT count(*) FROM u"); got[0] != 3 {
		t.Fatalf("%d rows kept, want the 3 before the failing one", got[0])
	}
	mustExec(t, c, "CREATE TABLE w(a, b)")
	s2, err := c.Prepare("INSERT INTO w VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	p.Reset()
	p.Int(1).Int(2).Int(3)
	if _, err := s2.ExecMany(&p); !errors.Is(err, sqlbatch.ErrParamCount) {
		t.Errorf("3 values for rows of 2: %v", err)
	}
}

func TestParamsAny(t *testing.T) {
	c := memory(t)
	when := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.FixedZone("", -5*3600))
	var p sqlbatch.Params
	err := p.Append(nil, 1, int8(-2), int16(3), int32(4), int64(5), uint(6), uint8(7), uint16(8), uint32(9), uint64(10),
		float32(1.5), 2.5, true, false, "s", []byte("b"), []byte(nil), []byte{}, when)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 20 {
		t.Fatalf("Len %d", p.Len())
	}
	if err := p.Any(uint64(math.MaxUint64)); err == nil {
		t.Error("uint64 overflow accepted")
	}
	if err := p.Any(struct{}{}); err == nil {
		t.Error("struct accepted")
	}
	// A time is written as text SQLite's date functions read.
	rows, err := c.Query("SELECT datetime(?), typeof(?), typeof(?), ? = 1", when, []byte(nil), []byte{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	if got := rows.Text(0); got != "2024-03-01 04:59:58" {
		t.Errorf("datetime(time) = %q, want the UTC time 2024-03-01 04:59:58", got)
	}
	if rows.Text(1) != "null" || rows.Text(2) != "blob" || !rows.Bool(3) {
		t.Errorf("nil []byte is %s, []byte{} is %s", rows.Text(1), rows.Text(2))
	}
	var back time.Time
	rows2, err := c.Query("SELECT ?", when)
	if err != nil {
		t.Fatal(err)
	}
	rows2.Next()
	if err := rows2.Scan(&back); err != nil || !back.Equal(when) {
		t.Errorf("time round trip: %v %v", back, err)
	}
	if err := rows2.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestClosedStatement(t *testing.T) {
	c := memory(t)
	s, err := c.Prepare("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(); err == nil {
		t.Error("Query on a closed statement")
	}
	if _, err := s.Exec(); err == nil {
		t.Error("Exec on a closed statement")
	}
	if _, err := s.QueryParams(&sqlbatch.Params{}); err == nil {
		t.Error("QueryParams on a closed statement")
	}
}

// After a schema change SQLite recompiles the statement on its next run; Columns follows from
// that run's first Next, and returns the very same slice while nothing changes.
func TestColumnsFollowSchemaChanges(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x')")
	s, err := c.Prepare("SELECT * FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cols := s.Columns()
	run := func() *sqlbatch.Rows {
		rows, err := s.Query()
		if err != nil || !rows.Next() {
			t.Fatalf("%v %v", err, rows.Err())
		}
		return rows
	}
	rows := run()
	if got := s.Columns(); len(got) != 2 || &got[0] != &cols[0] {
		t.Fatalf("columns changed without a schema change: %v", got)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "ALTER TABLE t ADD COLUMN c DATETIME DEFAULT 5")
	rows = run()
	if got := rows.Columns(); len(got) != 3 || got[2].Name != "c" || got[2].DeclType != "DATETIME" || rows.Int64(2) != 5 {
		t.Fatalf("after ADD COLUMN: %+v", got)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "DROP TABLE t; CREATE TABLE t(a REAL, b BLOB); INSERT INTO t VALUES (1.5, x'00')")
	rows = run()
	if got := rows.Columns(); len(got) != 2 || got[0].DeclType != "REAL" || got[1].DeclType != "BLOB" {
		t.Fatalf("after re-creating the table: %+v", got)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestPrepareRefusesASecondStatement(t *testing.T) {
	c := memory(t)
	// Whitespace, comments and lone semicolons may follow the one statement.
	for _, sql := range []string{"SELECT 1", "SELECT 1;", "SELECT 1; ;; -- done\n /* really */ ", "", " -- nothing"} {
		s, err := c.Prepare(sql)
		if err != nil {
			t.Errorf("Prepare(%q): %v", sql, err)
			continue
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	const script = "SELECT 1; /* c */ SELECT 2"
	for name, prepare := range map[string]func() error{
		"Prepare": func() error { _, err := c.Prepare(script); return err },
		"Query":   func() error { _, err := c.Query(script); return err },
		"ExecMany": func() error {
			var p sqlbatch.Params
			_, err := c.ExecMany(script, p.Int64(1))
			return err
		},
		"PrepareTail(PrepareSingle)": func() error { _, _, err := c.PrepareTail(script, sqlbatch.PrepareSingle); return err },
	} {
		err := prepare()
		e := asError(t, err)
		if !errors.Is(err, sqlbatch.ErrMultipleStatements) || e.Code != sqlbatch.ErrMultipleStatements ||
			e.Offset != len("SELECT 1; /* c */ ") || e.SQL() != "SELECT 2" || e.Query != script {
			t.Errorf("%s of a script: %v (offset %d)", name, err, e.Offset)
		}
	}
	// Without the flag, PrepareTail walks the script.
	s, tail, err := c.PrepareTail(script, 0)
	if err != nil || tail != " /* c */ SELECT 2" {
		t.Fatalf("PrepareTail: %q %v", tail, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBindParamsByName(t *testing.T) {
	c := memory(t)
	s, err := c.Prepare("SELECT :a, @b, $c, ?")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Names without a prefix match any; the unnamed value takes the remaining parameter.
	var p sqlbatch.Params
	p.Named("c").Int64(3).Int64(4).Named("a").Int64(1).Named("@b").Int64(2)
	if err := s.BindParams(&p); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() || rows.Int64(0) != 1 || rows.Int64(1) != 2 || rows.Int64(2) != 3 || rows.Int64(3) != 4 {
		t.Fatalf("bound by name: %v %v %v %v", rows.Value(0), rows.Value(1), rows.Value(2), rows.Value(3))
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	// A prefixed name matches that spelling only.
	p.Reset()
	p.Named(":b").Int64(2).Int64(1).Int64(3).Int64(4)
	if err := s.BindParams(&p); !errors.Is(err, sqlbatch.ErrParamCount) {
		t.Errorf("BindParams with :b for @b: %v, want ErrParamCount", err)
	}
	// ExecParams and ExecMany bind by position: names are refused by sqlbatch.
	p.Reset()
	p.Named("a").Int64(1).Int64(2).Int64(3).Int64(4)
	if _, err := s.ExecParams(&p); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("ExecParams with names: %v, want ErrInvalidArgument", err)
	}
	if _, err := s.ExecMany(&p); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("ExecMany with names: %v, want ErrInvalidArgument", err)
	}
	// ParamIndex is sqlbatch_stmt_param_index: ":a" before "@a" before "$a".
	s2, err := c.Prepare("SELECT $x, @x, :x, $y, @y")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.ParamIndex("x") != 3 || s2.ParamIndex("y") != 5 || s2.ParamIndex("$x") != 1 || s2.ParamIndex(":y") != 0 {
		t.Errorf("ParamIndex: x %d, y %d, $x %d, :y %d", s2.ParamIndex("x"), s2.ParamIndex("y"), s2.ParamIndex("$x"), s2.ParamIndex(":y"))
	}
}

// ParamCount is known from the prepare call, for every kind of parameter.
func TestParamCountFromPrepare(t *testing.T) {
	c := memory(t)
	for q, n := range map[string]int{"SELECT 1": 0, "SELECT ?, ?": 2, "SELECT ?3": 3, "SELECT :a, :b, :a": 2, " ": 0} {
		s, err := c.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ParamCount(); got != n {
			t.Errorf("ParamCount of %q: %d, want %d", q, got, n)
		}
		if n > 0 && s.ParamName(1) != map[bool]string{true: ":a", false: ""}[strings.Contains(q, ":a")] {
			t.Errorf("ParamName(1) of %q: %q", q, s.ParamName(1))
		}
		if _, err := s.Exec(make([]any, n+1)...); !errors.Is(err, sqlbatch.ErrParamCount) {
			t.Errorf("Exec of %q with %d values: %v", q, n+1, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// QueryParams binds and fetches the first batch in one call: the same rows as Query with the
// same arguments, bind errors from QueryParams, errors of the first step from Next and Err,
// nothing after Close, and the bindings kept for a Query without arguments.
func TestQueryParams(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); "+
		"WITH RECURSIVE k(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM k WHERE v < 1000) INSERT INTO t SELECT v, 'v' || v FROM k")
	q, err := c.Prepare("SELECT a, b FROM t WHERE a >= ? ORDER BY a LIMIT ?")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	q.SetBatchRows(7) // results of several batches too
	read := func(rows *sqlbatch.Rows) (out []string) {
		for rows.Next() {
			out = append(out, strconv.FormatInt(rows.Int64(0), 10)+rows.Text(1))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			t.Error(err)
		}
		return out
	}
	var p sqlbatch.Params
	for _, k := range [][2]int64{{5, 1}, {990, 20}, {2000, 3}, {1, 30}, {500, 0}} {
		rows, err := q.Query(k[0], k[1])
		if err != nil {
			t.Fatal(err)
		}
		want := read(rows)
		p.Reset()
		p.Int64(k[0]).Int64(k[1])
		if rows, err = q.QueryParams(&p); err != nil {
			t.Fatal(err)
		}
		if got := read(rows); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%v: QueryParams %v, Query %v", k, got, want)
		}
	}
	// Without arguments, Query keeps the bindings QueryParams made.
	p.Reset()
	p.Int64(10).Int64(2)
	rows, err := q.QueryParams(&p)
	if err != nil {
		t.Fatal(err)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Fatal("a row after Close")
	}
	rows, err = q.Query()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(read(rows), ","); got != "10v10,11v11" {
		t.Fatalf("Query after QueryParams: %s", got)
	}
	// No values for a statement without parameters: an empty Params.
	one, err := c.Prepare("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	p.Reset()
	if rows, err = one.QueryParams(&p); err != nil {
		t.Fatal(err)
	}
	if !rows.Next() || rows.Int64(0) != 1 || rows.Next() || rows.Err() != nil {
		t.Fatalf("SELECT 1 with empty params: %v", rows.Err())
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	// A wrong count is the bind's error, returned here.
	p.Reset()
	p.Int64(1)
	if _, err := q.QueryParams(&p); !errors.Is(err, sqlbatch.ErrParamCount) {
		t.Fatalf("one value for two parameters: %v", err)
	}
	// An error of the first step comes from Next and Err.
	bad, err := c.Prepare("SELECT a FROM t WHERE a = ? AND abs(-9223372036854775807 - a) > 0")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	p.Reset()
	p.Int64(1)
	rows, err = bad.QueryParams(&p)
	if err != nil {
		t.Fatalf("QueryParams: %v", err)
	}
	if rows.Next() || rows.Err() == nil || !strings.Contains(rows.Err().Error(), "integer overflow") {
		t.Fatalf("the first step's error: %v", rows.Err())
	}
}
