package driver_test

// Tests of mattn/go-sqlite3's virtual table API (mattn_vtab.go): mattn's own tests with the
// types changed, then what the batches change.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

type testModule struct {
	t        *testing.T
	intarray []int
}

type testVTab struct {
	intarray []int
}

type testVTabCursor struct {
	vTab  *testVTab
	index int
}

func (m testModule) Create(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	want := []string{"test", "main", "vtab", "'1'", "2", "three"}
	if !reflect.DeepEqual(args, want) {
		m.t.Errorf("args %q, want %q", args, want)
	}
	err := c.DeclareVTab("CREATE TABLE x(test TEXT)")
	if err != nil {
		return nil, err
	}
	return &testVTab{m.intarray}, nil
}

func (m testModule) Connect(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return m.Create(c, args)
}

func (m testModule) DestroyModule() {}

func (v *testVTab) BestIndex(cst []driver.InfoConstraint, ob []driver.InfoOrderBy) (*driver.IndexResult, error) {
	used := make([]bool, 0, len(cst))
	for range cst {
		used = append(used, false)
	}
	return &driver.IndexResult{
		Used:           used,
		IdxNum:         0,
		IdxStr:         "test-index",
		AlreadyOrdered: true,
		EstimatedCost:  100,
		EstimatedRows:  200,
	}, nil
}

func (v *testVTab) Disconnect() error { return nil }

func (v *testVTab) Destroy() error { return nil }

func (v *testVTab) Open() (driver.VTabCursor, error) { return &testVTabCursor{v, 0}, nil }

func (vc *testVTabCursor) Close() error { return nil }

func (vc *testVTabCursor) Filter(idxNum int, idxStr string, vals []any) error {
	if idxStr != "test-index" {
		return fmt.Errorf("idxStr %q", idxStr)
	}
	vc.index = 0
	return nil
}

func (vc *testVTabCursor) Next() error {
	vc.index++
	return nil
}

func (vc *testVTabCursor) EOF() bool { return vc.index >= len(vc.vTab.intarray) }

func (vc *testVTabCursor) Column(c *driver.SQLiteContext, col int) error {
	if col != 0 {
		return fmt.Errorf("column index out of bounds: %d", col)
	}
	c.ResultInt(vc.vTab.intarray[vc.index])
	return nil
}

func (vc *testVTabCursor) Rowid() (int64, error) { return int64(vc.index), nil }

func TestCreateModule(t *testing.T) {
	intarray := []int{1, 2, 3}
	sql.Register("sqlbatch_TestCreateModule", &driver.SQLiteDriver{
		ConnectHook: func(conn *driver.SQLiteConn) error {
			return conn.CreateModule("test", testModule{t, intarray})
		},
	})
	db, err := sql.Open("sqlbatch_TestCreateModule", t.TempDir()+"/vt.db")
	if err != nil {
		t.Fatalf("could not open db: %v", err)
	}
	defer db.Close()
	_, err = db.Exec("CREATE VIRTUAL TABLE vtab USING test('1', 2, three)")
	if err != nil {
		t.Fatalf("could not create vtable: %v", err)
	}

	var i, value int
	rows, err := db.Query("SELECT rowid, * FROM vtab WHERE test = '3'")
	if err != nil {
		t.Fatalf("couldn't select from virtual table: %v", err)
	}
	n := 0
	for rows.Next() {
		rows.Scan(&i, &value)
		if intarray[i] != value {
			t.Fatalf("want %v but %v", intarray[i], value)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 1 {
		t.Fatalf("%d rows, %v", n, err)
	}

	_, err = db.Exec("DROP TABLE vtab")
	if err != nil {
		t.Fatalf("couldn't drop virtual table: %v", err)
	}
}

func TestVUpdate(t *testing.T) {
	// create module
	updateMod := &vtabUpdateModule{t, make(map[string]*vtabUpdateTable)}

	// register module
	sql.Register("sqlbatch_TestVUpdate", &driver.SQLiteDriver{
		ConnectHook: func(conn *driver.SQLiteConn) error {
			return conn.CreateModule("updatetest", updateMod)
		},
	})

	// connect
	db, err := sql.Open("sqlbatch_TestVUpdate", t.TempDir()+"/vt.db")
	if err != nil {
		t.Fatalf("could not open db: %v", err)
	}
	defer db.Close()

	// create test table
	_, err = db.Exec(`CREATE VIRTUAL TABLE vt USING updatetest(f1 integer, f2 text, f3 text)`)
	if err != nil {
		t.Fatalf("could not create updatetest vtable vt, got: %v", err)
	}

	// check that table is defined properly
	if len(updateMod.tables) != 1 {
		t.Fatalf("expected exactly 1 table to exist, got: %d", len(updateMod.tables))
	}
	vt, ok := updateMod.tables["vt"]
	if !ok {
		t.Fatalf("expected table `vt` to exist in tables")
	}

	// check nothing in updatetest
	if i := rowCount(t, db, `select * from vt`); i != 0 {
		t.Fatalf("expected no rows in vt, got: %d", i)
	}

	_, err = db.Exec(`delete from vt where f1 = 'yes'`)
	if err != nil {
		t.Fatalf("expected no error on delete, got %v", err)
	}

	// test bad column name
	_, err = db.Exec(`insert into vt (f4) values('a')`)
	if err == nil {
		t.Fatalf("expected error on insert, got nil")
	}

	// insert to vt
	res, err := db.Exec(`insert into vt (f1, f2, f3) values (115, 'b', 'c'), (116, 'd', 'e')`)
	if err != nil {
		t.Fatalf("expected no error on insert, got: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("expected 2 rows affected, got: %d", n)
	}

	// check vt table
	if len(vt.data) != 2 {
		t.Fatalf("expected table vt to have exactly 2 rows, got: %d", len(vt.data))
	}
	if !reflect.DeepEqual(vt.data[0], []any{int64(115), "b", "c"}) {
		t.Fatalf("expected table vt entry 0 to be [115 b c], instead: %v", vt.data[0])
	}
	if !reflect.DeepEqual(vt.data[1], []any{int64(116), "d", "e"}) {
		t.Fatalf("expected table vt entry 1 to be [116 d e], instead: %v", vt.data[1])
	}

	// query vt
	var f1 int
	var f2, f3 string
	err = db.QueryRow(`select * from vt where f1 = 115`).Scan(&f1, &f2, &f3)
	if err != nil {
		t.Fatalf("expected no error on vt query, got: %v", err)
	}
	if f1 != 115 || f2 != "b" || f3 != "c" {
		t.Errorf("expected f1==115, f2==b, f3==c, got: %d, %q, %q", f1, f2, f3)
	}

	// update vt
	res, err = db.Exec(`update vt set f1=117, f2='f' where f3='e'`)
	if err != nil {
		t.Fatalf("expected no error, got: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("expected exactly one row updated, got: %d", n)
	}
	if !reflect.DeepEqual(vt.data[1], []any{int64(117), "f", "e"}) {
		t.Fatalf("expected table vt entry 1 to be [117 f e], instead: %v", vt.data[1])
	}

	// a rowid-changing update cannot be expressed via VTabUpdater and
	// must be rejected instead of updating the wrong row
	_, err = db.Exec(`update vt set rowid = rowid + 10 where f1 = 117`)
	if err == nil || !strings.Contains(err.Error(), "does not support changing the rowid") {
		t.Fatalf("unexpected error on rowid-changing update: %v", err)
	}
	if !reflect.DeepEqual(vt.data[1], []any{int64(117), "f", "e"}) {
		t.Fatalf("expected table vt entry 1 to be unchanged, instead: %v", vt.data[1])
	}

	// delete from vt
	res, err = db.Exec(`delete from vt where f1 = 117`)
	if err != nil {
		t.Fatalf("expected no error, got: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("expected exactly one row deleted, got: %d", n)
	}
	if len(vt.data) != 1 || !reflect.DeepEqual(vt.data[0], []any{int64(115), "b", "c"}) {
		t.Fatalf("expected table vt to be [[115 b c]], instead: %v", vt.data)
	}
	if i := rowCount(t, db, `select * from vt`); i != 1 {
		t.Fatalf("expected 1 row in vt, got: %d", i)
	}
}

func rowCount(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var i int
	for rows.Next() {
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return i
}

type vtabUpdateModule struct {
	t      *testing.T
	tables map[string]*vtabUpdateTable
}

func (m *vtabUpdateModule) Create(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	if len(args) < 2 {
		return nil, errors.New("must declare at least one column")
	}
	dbname, tname, decls := args[1], args[2], args[3:]
	cols, typs := make([]string, len(decls)), make([]string, len(decls))
	for i := 0; i < len(decls); i++ {
		n, typ := decls[i], ""
		if j := strings.IndexAny(n, " \t\n"); j != -1 {
			typ, n = strings.TrimSpace(n[j+1:]), n[:j]
		}
		cols[i], typs[i] = n, typ
	}
	err := c.DeclareVTab(fmt.Sprintf(`CREATE TABLE "%s"."%s" (%s)`, dbname, tname, strings.Join(decls, ",")))
	if err != nil {
		return nil, err
	}
	vtab := &vtabUpdateTable{m.t, dbname, tname, cols, typs, make([][]any, 0)}
	m.tables[tname] = vtab
	return vtab, nil
}

func (m *vtabUpdateModule) Connect(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return m.Create(c, args)
}

func (m *vtabUpdateModule) DestroyModule() {}

type vtabUpdateTable struct {
	t    *testing.T
	db   string
	name string
	cols []string
	typs []string
	data [][]any
}

func (t *vtabUpdateTable) Open() (driver.VTabCursor, error) { return &vtabUpdateCursor{t, 0}, nil }

func (t *vtabUpdateTable) BestIndex(cst []driver.InfoConstraint, ob []driver.InfoOrderBy) (*driver.IndexResult, error) {
	return &driver.IndexResult{Used: make([]bool, len(cst))}, nil
}

func (t *vtabUpdateTable) Disconnect() error { return nil }

func (t *vtabUpdateTable) Destroy() error { return nil }

func (t *vtabUpdateTable) Insert(id any, vals []any) (int64, error) {
	var i int64
	if id == nil {
		i, t.data = int64(len(t.data)), append(t.data, vals)
		return i, nil
	}
	i, ok := id.(int64)
	if !ok {
		return 0, fmt.Errorf("id is invalid type: %T", id)
	}
	t.data[i] = vals
	return i, nil
}

func (t *vtabUpdateTable) Update(id any, vals []any) error {
	i, ok := id.(int64)
	if !ok {
		return fmt.Errorf("id is invalid type: %T", id)
	}
	if int(i) >= len(t.data) || i < 0 {
		return fmt.Errorf("invalid row id %d", i)
	}
	t.data[int(i)] = vals
	return nil
}

func (t *vtabUpdateTable) Delete(id any) error {
	i, ok := id.(int64)
	if !ok {
		return fmt.Errorf("id is invalid type: %T", id)
	}
	if int(i) >= len(t.data) || i < 0 {
		return fmt.Errorf("invalid row id %d", i)
	}
	t.data = append(t.data[:i], t.data[i+1:]...)
	return nil
}

type vtabUpdateCursor struct {
	t *vtabUpdateTable
	i int
}

func (c *vtabUpdateCursor) Column(ctxt *driver.SQLiteContext, col int) error {
	switch x := c.t.data[c.i][col].(type) {
	case []byte:
		ctxt.ResultBlob(x)
	case bool:
		ctxt.ResultBool(x)
	case float64:
		ctxt.ResultDouble(x)
	case int:
		ctxt.ResultInt(x)
	case int64:
		ctxt.ResultInt64(x)
	case nil:
		ctxt.ResultNull()
	case string:
		ctxt.ResultText(x)
	default:
		ctxt.ResultText(fmt.Sprintf("%v", x))
	}
	return nil
}

func (c *vtabUpdateCursor) Filter(ixNum int, ixName string, vals []any) error {
	c.i = 0
	return nil
}

func (c *vtabUpdateCursor) Next() error {
	c.i++
	return nil
}

func (c *vtabUpdateCursor) EOF() bool { return c.i >= len(c.t.data) }

func (c *vtabUpdateCursor) Rowid() (int64, error) { return int64(c.i), nil }

func (c *vtabUpdateCursor) Close() error { return nil }

type testModuleEponymousOnly struct {
	t        *testing.T
	intarray []int
}

func (m testModuleEponymousOnly) EponymousOnlyModule() {}

func (m testModuleEponymousOnly) Create(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	if want := []string{"test", "main", "test"}; !reflect.DeepEqual(args, want) {
		m.t.Errorf("args %q, want %q", args, want)
	}
	err := c.DeclareVTab("CREATE TABLE x(test INT)")
	if err != nil {
		return nil, err
	}
	return &testVTab{m.intarray}, nil
}

func (m testModuleEponymousOnly) Connect(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return m.Create(c, args)
}

func (m testModuleEponymousOnly) DestroyModule() {}

func TestCreateModuleEponymousOnly(t *testing.T) {
	intarray := []int{1, 2, 3}
	sql.Register("sqlbatch_TestCreateModuleEponymousOnly", &driver.SQLiteDriver{
		ConnectHook: func(conn *driver.SQLiteConn) error {
			return conn.CreateModule("test", testModuleEponymousOnly{t, intarray})
		},
	})
	db, err := sql.Open("sqlbatch_TestCreateModuleEponymousOnly", t.TempDir()+"/vt.db")
	if err != nil {
		t.Fatalf("could not open db: %v", err)
	}
	defer db.Close()

	var i, value int
	rows, err := db.Query("SELECT rowid, * FROM test")
	if err != nil {
		t.Fatalf("couldn't select from virtual table: %v", err)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(&i, &value); err != nil {
			t.Fatal(err)
		}
		if intarray[i] != value {
			t.Fatalf("want %v but %v", intarray[i], value)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d rows", n)
	}
	if _, err := db.Exec("DROP TABLE test"); err == nil {
		t.Log("dropped an eponymous-only table")
	}
}

// What the batches change, and their bad input.

// counter is a VTab of n rows (i, i*2, 'r'||i, hidden x) that counts the calls of its
// cursors' methods, and can fail or panic in them.
type counter struct {
	n                                     int
	eofs, nexts, cols, rowids, filters    int
	opens, closes, connects, disconnects  int
	destroyed                             int
	failNextAt, failColAt, panicColAt     int // row at which to fail (0: never)
	failRowid                             bool
	lastIdxNum                            int
	lastIdxStr                            string
	lastVals                              []any
	useX                                  bool // BestIndex uses the hidden column's EQ
	declareTwice, noDeclare, declareError bool
	declareErr                            error
	outsideErr                            error
	conn                                  *driver.SQLiteConn
}

type counterCursor struct {
	c *counter
	i int
}

func (m *counter) Create(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return m.Connect(c, args)
}

func (m *counter) Connect(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	m.connects++
	m.conn = c
	switch {
	case m.noDeclare:
		return m, nil
	case m.declareError:
		return m, c.DeclareVTab("CREATE TABLE x(a INTEGER,")
	}
	if err := c.DeclareVTab("CREATE TABLE x(a INTEGER, b INTEGER, c TEXT, x HIDDEN)"); err != nil {
		return nil, err
	}
	if m.declareTwice {
		m.declareErr = c.DeclareVTab("CREATE TABLE x(a INTEGER)")
	}
	return m, nil
}

func (m *counter) EponymousOnlyModule() {}

func (m *counter) DestroyModule() { m.destroyed++ }

func (m *counter) BestIndex(cst []driver.InfoConstraint, ob []driver.InfoOrderBy) (*driver.IndexResult, error) {
	used := make([]bool, len(cst))
	for i, c := range cst {
		if m.useX && c.Column == 3 && c.Op == driver.OpEQ {
			used[i] = true
		}
	}
	return &driver.IndexResult{Used: used, IdxNum: 7, IdxStr: fmt.Sprint("plan-", len(cst))}, nil
}

func (m *counter) Disconnect() error { m.disconnects++; return errors.New("ignored") }

func (m *counter) Destroy() error { m.disconnects++; return nil }

func (m *counter) Open() (driver.VTabCursor, error) {
	m.opens++
	return &counterCursor{c: m}, nil
}

func (c *counterCursor) Close() error { c.c.closes++; return nil }

func (c *counterCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.c.filters++
	c.c.lastIdxNum, c.c.lastIdxStr, c.c.lastVals = idxNum, idxStr, vals
	c.i = 0
	return nil
}

func (c *counterCursor) Next() error {
	c.c.nexts++
	c.i++
	if c.c.failNextAt != 0 && c.i == c.c.failNextAt {
		return errors.New("Next failed")
	}
	return nil
}

func (c *counterCursor) EOF() bool {
	c.c.eofs++
	return c.i >= c.c.n
}

func (c *counterCursor) Column(ctx *driver.SQLiteContext, col int) error {
	c.c.cols++
	if c.c.failColAt != 0 && c.i == c.c.failColAt {
		return errors.New("Column failed")
	}
	if c.c.panicColAt != 0 && c.i == c.c.panicColAt {
		panic("Column panicked")
	}
	switch col {
	case 0:
		ctx.ResultInt(c.i)
	case 1:
		ctx.ResultInt64(int64(c.i) * 2)
		ctx.ResultDouble(0.5) // the last one wins
		ctx.ResultInt64(int64(c.i) * 2)
	case 2:
		ctx.ResultText(fmt.Sprint("r", c.i))
	default:
		return fmt.Errorf("column %d is hidden", col)
	}
	return nil
}

func (c *counterCursor) Rowid() (int64, error) {
	c.c.rowids++
	if c.c.failRowid {
		return 0, errors.New("Rowid failed")
	}
	return int64(c.i) + 100, nil
}

func counterConn(t *testing.T, m *counter) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Raw(func(dc any) error { return dc.(*driver.SQLiteConn).CreateModule("cnt", m) }); err != nil {
		t.Fatal(err)
	}
	return conn
}

func connRows(t *testing.T, conn *sql.Conn, query string, args ...any) ([][]any, error) {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return out, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

func TestVTabBatchesCallTheCursorPerRow(t *testing.T) {
	m := &counter{n: 1000}
	conn := counterConn(t, m)
	rows, err := connRows(t, conn, "SELECT a, b, c, rowid FROM cnt")
	if err != nil || len(rows) != 1000 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if !reflect.DeepEqual(rows[999], []any{int64(999), int64(1998), "r999", int64(1099)}) {
		t.Errorf("row 999: %v", rows[999])
	}
	// One EOF per row and one at the end of each batch (1000 = 3 * 256 + 232), one Rowid
	// and one Next per row, one Column per column read per row.
	if m.nexts != 1000 || m.rowids != 1000 || m.cols != 3000 || m.eofs != 1000+4 || m.filters != 1 {
		t.Errorf("nexts %d rowids %d cols %d eofs %d filters %d", m.nexts, m.rowids, m.cols, m.eofs, m.filters)
	}
	if m.lastIdxNum != 7 || m.lastIdxStr != "plan-0" {
		t.Errorf("plan %d %q", m.lastIdxNum, m.lastIdxStr)
	}
	// Only the columns the query reads are asked for; the others read as NULL.
	m.cols = 0
	if got, err := connRows(t, conn, "SELECT count(*), sum(b) FROM cnt"); err != nil || !reflect.DeepEqual(got, [][]any{{int64(1000), int64(999000)}}) {
		t.Errorf("got %v %v", got, err)
	}
	if m.cols != 1000 {
		t.Errorf("%d Column calls for one column of 1000 rows", m.cols)
	}
	m.cols = 0
	if got, err := connRows(t, conn, "SELECT count(*) FROM cnt"); err != nil || !reflect.DeepEqual(got, [][]any{{int64(1000)}}) || m.cols != 0 {
		t.Errorf("got %v %v, %d Column calls", got, err, m.cols)
	}
}

func TestVTabLimitBoundsTheBatch(t *testing.T) {
	m := &counter{n: 100000}
	conn := counterConn(t, m)
	rows, err := connRows(t, conn, "SELECT a FROM cnt LIMIT 5")
	if err != nil || len(rows) != 5 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if m.nexts != 5 || m.rowids != 5 {
		t.Errorf("LIMIT 5: %d Next, %d Rowid", m.nexts, m.rowids)
	}
	m.nexts = 0
	rows, err = connRows(t, conn, "SELECT a FROM cnt LIMIT ? OFFSET 3", 4)
	if err != nil || len(rows) != 4 || rows[0][0] != int64(3) {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if m.nexts != 7 {
		t.Errorf("LIMIT 4 OFFSET 3: %d Next", m.nexts)
	}
	// The LIMIT is the driver's own argument: vals do not have it.
	if len(m.lastVals) != 0 {
		t.Errorf("vals %v", m.lastVals)
	}
	// Without a LIMIT the cursor runs ahead by up to a batch.
	m.nexts = 0
	var a int
	if err := conn.QueryRowContext(context.Background(), "SELECT a FROM cnt").Scan(&a); err != nil {
		t.Fatal(err)
	}
	if m.nexts < 256 {
		t.Errorf("one row read: %d Next", m.nexts)
	}
	// Each scan's cursor was closed, the last one's with its rows left unread.
	if m.opens != 3 || m.closes != 3 {
		t.Errorf("%d opens, %d closes", m.opens, m.closes)
	}
}

func TestVTabUsedConstraintsAreFilterValues(t *testing.T) {
	m := &counter{n: 10, useX: true}
	conn := counterConn(t, m)
	if _, err := connRows(t, conn, "SELECT a FROM cnt(?) LIMIT 2", "arg"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.lastVals, []any{"arg"}) {
		t.Errorf("vals %v", m.lastVals)
	}
}

func TestVTabErrorsComeAfterTheRowsBefore(t *testing.T) {
	cases := []struct {
		m    *counter
		rows int
		want string
	}{
		{&counter{n: 1000, failNextAt: 300}, 300, "Next failed"},
		{&counter{n: 1000, failColAt: 300}, 300, "Column failed"},
		{&counter{n: 1000, failRowid: true}, 0, "Rowid failed"},
		{&counter{n: 1000, panicColAt: 300}, 256, "panic: Column panicked"},
	}
	for _, tc := range cases {
		conn := counterConn(t, tc.m)
		rows, err := connRows(t, conn, "SELECT a FROM cnt")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
		if len(rows) != tc.rows {
			t.Errorf("%q: %d rows before the error, want %d", tc.want, len(rows), tc.rows)
		}
		if tc.m.opens != tc.m.closes {
			t.Errorf("%q: %d opens, %d closes", tc.want, tc.m.opens, tc.m.closes)
		}
	}
}

func TestVTabDeclareVTabMisuse(t *testing.T) {
	m := &counter{n: 1, declareTwice: true}
	conn := counterConn(t, m)
	if _, err := connRows(t, conn, "SELECT * FROM cnt"); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(m.declareErr, sqlbatch.ErrMisuse) {
		t.Errorf("declared twice: %v", m.declareErr)
	}
	if err := m.conn.DeclareVTab("CREATE TABLE x(a)"); !errors.Is(err, sqlbatch.ErrMisuse) {
		t.Errorf("outside Connect: %v", err)
	}
	for _, m := range []*counter{{noDeclare: true}, {declareError: true}} {
		conn := counterConn(t, m)
		_, err := connRows(t, conn, "SELECT * FROM cnt")
		if err == nil {
			t.Error("no error")
		}
		if m.noDeclare && !strings.Contains(err.Error(), "did not declare") {
			t.Errorf("got %v", err)
		}
		if m.declareError && !strings.Contains(err.Error(), "incomplete input") {
			t.Errorf("got %v", err)
		}
		if m.connects != m.disconnects {
			t.Errorf("%d connects, %d disconnects", m.connects, m.disconnects)
		}
	}
}

// readOnlyModule makes tables by CREATE VIRTUAL TABLE (not eponymous, unlike counter).
type readOnlyModule struct{ c *counter }

func (m *readOnlyModule) Create(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return m.Connect(c, args)
}

func (m *readOnlyModule) Connect(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	m.c.connects++
	return &namedVTab{m.c}, c.DeclareVTab("CREATE TABLE x(a INTEGER)")
}

func (m *readOnlyModule) DestroyModule() { m.c.destroyed++ }

type namedVTab struct{ *counter }

func (namedVTab) TableName() string { return "ro_table" }

func TestVTabReadOnlyAndHandles(t *testing.T) {
	before := capi.LiveHandles()
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := &counter{n: 3}
	err = conn.Raw(func(dc any) error {
		c := dc.(*driver.SQLiteConn)
		if err := c.CreateModule("bad", nil); err == nil {
			t.Error("a nil module")
		}
		return c.CreateModule("ro", &readOnlyModule{m})
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.t USING ro"); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if err == nil || err.Error() != "virtual ro table ro_table is read-only" {
		t.Errorf("got %v", err)
	}
	if _, err := conn.ExecContext(ctx, "DROP TABLE t"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if m.connects != m.disconnects || m.destroyed != 1 {
		t.Errorf("connects %d disconnects %d destroyed %d", m.connects, m.disconnects, m.destroyed)
	}
	if got := capi.LiveHandles() - before; got != 0 {
		t.Errorf("%d live handles", got)
	}
}
