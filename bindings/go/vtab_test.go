package sqlbatch_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// genModule makes tables of n generated rows (i, i * 0.5, 'row i', x'ii' of i%4 bytes), with
// rowid i + 1000; what it does wrong on purpose and what it saw are its fields.
type genModule struct {
	n int64
	// Planning: take IN lists on id whole, and the LIMIT.
	takeInLists, takeLimit bool
	// Misbehaviour.
	fillErr, fillPanic, filterErr, tooMany, unended, noRowNotDone, badWidth, connectErr bool
	schema                                                                              string // "" the default
	panicIn                                                                             string // a method to panic in
	// What it saw.
	connects, disconnects, destroyed, opens, closes, filters, fills int
	lastArgs                                                        [][]any
	lastLimit                                                       int64
	conn                                                            *sqlbatch.Conn
	fillHook                                                        func()
}

type genTable struct{ m *genModule }

type genCursor struct {
	m   *genModule
	ids []int64
	at  int
}

func (m *genModule) Connect(c *sqlbatch.Conn, args []string, create bool) (string, sqlbatch.VirtualTable, error) {
	m.connects++
	m.conn = c
	if m.panicIn == "Connect" {
		panic("in Connect")
	}
	if m.connectErr {
		return "", nil, errors.New("the module refuses to connect")
	}
	schema := "CREATE TABLE x(id INTEGER, half REAL, name TEXT, raw BLOB)"
	if m.schema != "" {
		schema = m.schema
	}
	return schema, &genTable{m}, nil
}

func (m *genModule) DestroyModule() { m.destroyed++ }

func (t *genTable) Disconnect(destroy bool) {
	t.m.disconnects++
	if t.m.panicIn == "Disconnect" {
		panic("in Disconnect")
	}
}

func (t *genTable) BestIndex(ix *sqlbatch.IndexInfo) error {
	if t.m.panicIn == "BestIndex" {
		panic("in BestIndex")
	}
	plan := 0
	for i, c := range ix.Constraints {
		if t.m.takeInLists && c.Column == 0 && c.Op == sqlbatch.IndexEQ && c.Usable && c.InList {
			ix.Use(i, true)
			ix.Constraints[i].WholeList = true
			plan |= 16
		}
	}
	for i, c := range ix.Constraints {
		if t.m.takeLimit && c.Op == sqlbatch.IndexLimit && c.Usable {
			ix.Use(i, true)
			plan |= 32
		}
	}
	ix.IdxNum = plan
	ix.EstimatedCost = 10
	return nil
}

func (t *genTable) Open() (sqlbatch.Cursor, error) {
	if t.m.panicIn == "Open" {
		panic("in Open")
	}
	t.m.opens++
	return &genCursor{m: t.m}, nil
}

func (c *genCursor) Filter(idxNum int, args sqlbatch.FilterArgs) error {
	m := c.m
	m.filters++
	if m.panicIn == "Filter" {
		panic("in Filter")
	}
	m.lastArgs = nil
	for i := range args.Len() {
		if args.IsList(i) {
			l := args.List(i)
			vals := make([]any, l.Len())
			for j := range vals {
				vals[j] = l.Value(j)
			}
			m.lastArgs = append(m.lastArgs, vals)
		} else {
			m.lastArgs = append(m.lastArgs, []any{args.Value(i)})
		}
	}
	if m.filterErr {
		return &sqlbatch.Error{Code: sqlbatch.ErrConstraint, ExtendedCode: sqlbatch.ErrConstraint, Msg: "the module refuses this scan"}
	}
	c.at, c.ids = 0, c.ids[:0]
	k := 0
	if idxNum&16 != 0 {
		l := args.List(k)
		for j := range l.Len() {
			if id := l.Int64(j); id >= 0 && id < m.n {
				c.ids = append(c.ids, id)
			}
		}
		slices.Sort(c.ids)
		k++
	} else {
		for i := range m.n {
			c.ids = append(c.ids, i)
		}
	}
	if idxNum&32 != 0 {
		m.lastLimit = args.Int64(k)
	}
	return nil
}

func (c *genCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	m := c.m
	m.fills++
	if m.fillHook != nil {
		m.fillHook()
	}
	switch {
	case m.fillErr && c.at > 0:
		return false, errors.New("the module failed mid-scan")
	case m.fillPanic && c.at > 0:
		panic("the module panicked mid-scan")
	case m.noRowNotDone:
		return false, nil
	case m.unended:
		w.Int64(1)
		return false, nil
	}
	room := w.Max()
	if m.tooMany {
		room++
	}
	for k := 0; k < room && c.at < len(c.ids); k, c.at = k+1, c.at+1 {
		i := c.ids[c.at]
		w.Int64(i).Float64(float64(i) * 0.5)
		if !(m.badWidth && k == 1) {
			w.Text(fmt.Sprintf("row %d", i)).Blob(make([]byte, i%4))
		}
		w.EndRowID(i + 1000)
	}
	return c.at == len(c.ids), nil
}

func (c *genCursor) Close() {
	c.m.closes++
	if c.m.panicIn == "Close" {
		panic("in Close")
	}
}

func genRow(i int64) []any {
	return []any{i, float64(i) * 0.5, fmt.Sprintf("row %d", i), make([]byte, i%4)}
}

func vtabDB(t *testing.T) *sqlbatch.Conn {
	t.Helper()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestVTabScanIsServedFromBatches(t *testing.T) {
	before := capi.LiveHandles()
	m := &genModule{n: 10000}
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateModule("gen", m, sqlbatch.ModuleOptions{BatchRows: 300}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript("CREATE VIRTUAL TABLE temp.g USING gen()"); err != nil {
		t.Fatal(err)
	}
	rows := allRows(t, c, "SELECT * FROM g")
	if len(rows) != 10000 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if !reflect.DeepEqual(r, genRow(int64(i))) {
			t.Fatalf("row %d: %v, want %v", i, r, genRow(int64(i)))
		}
	}
	// 10,000 rows in batches of at most 300: 34 fills, one filter, one cursor.
	if m.fills != 34 || m.filters != 1 || m.opens != 1 {
		t.Errorf("%d fills, %d filters, %d opens", m.fills, m.filters, m.opens)
	}
	if got := allRows(t, c, "SELECT min(rowid), max(rowid), sum(id), sum(length(name)) FROM g"); !reflect.DeepEqual(got,
		[][]any{{int64(1000), int64(10999), int64(49995000), int64(78890)}}) {
		t.Errorf("got %v", got)
	}
	if m.conn != c {
		t.Error("Connect got another connection")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if m.opens != m.closes || m.connects != m.disconnects || m.destroyed != 1 {
		t.Errorf("opens %d closes %d connects %d disconnects %d destroyed %d", m.opens, m.closes, m.connects, m.disconnects, m.destroyed)
	}
	if got := capi.LiveHandles() - before; got != 0 {
		t.Errorf("%d live handles after Close", got)
	}
}

// series is a table-valued function: series(start, stop) has the rows start..stop.
type series struct{ filters int }

type seriesCursor struct {
	s         *series
	at, stop  int64
	hasBounds bool
}

func (s *series) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return "CREATE TABLE x(value INTEGER, start HIDDEN, stop HIDDEN)", s, nil
}

func (s *series) BestIndex(ix *sqlbatch.IndexInfo) error {
	for _, col := range []int{1, 2} {
		for i, c := range ix.Constraints {
			if c.Column == col && c.Op == sqlbatch.IndexEQ {
				if !c.Usable {
					return sqlbatch.ErrConstraint
				}
				ix.Use(i, true)
			}
		}
	}
	ix.IdxNum = 0
	for _, c := range ix.Constraints {
		if c.ArgIndex > 0 {
			ix.IdxNum++
		}
	}
	return nil
}

func (s *series) Open() (sqlbatch.Cursor, error) { return &seriesCursor{s: s}, nil }

func (c *seriesCursor) Filter(idxNum int, args sqlbatch.FilterArgs) error {
	c.s.filters++
	if idxNum != 2 {
		return errors.New("series needs start and stop")
	}
	c.at, c.stop = args.Int64(0), args.Int64(1)
	return nil
}

func (c *seriesCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	for ; c.at <= c.stop && !w.Full(); c.at++ {
		w.Int64(c.at).EndRow()
	}
	return c.at > c.stop, nil
}

func (c *seriesCursor) Close() {}

func TestVTabTableValuedFunction(t *testing.T) {
	c := vtabDB(t)
	s := &series{}
	if err := c.CreateModule("series", s, sqlbatch.ModuleOptions{EponymousOnly: true}); err != nil {
		t.Fatal(err)
	}
	if got := allRows(t, c, "SELECT sum(value), count(*), max(rowid) FROM series(1, 1000)"); !reflect.DeepEqual(got,
		[][]any{{int64(500500), int64(1000), int64(1000)}}) {
		t.Fatalf("got %v", got)
	}
	// Joined: one scan per outer row, its arguments from the outer table.
	if _, err := c.ExecScript("CREATE TABLE lim(n INTEGER); INSERT INTO lim VALUES (3), (4)"); err != nil {
		t.Fatal(err)
	}
	before := s.filters
	if got := queryInt(t, c, "SELECT sum(value) FROM lim, series(1, lim.n)"); got != 6+10 {
		t.Fatalf("got %d", got)
	}
	if s.filters-before != 2 {
		t.Errorf("%d scans for 2 outer rows", s.filters-before)
	}
	// Empty ranges, and a filter that fails.
	if got := queryInt(t, c, "SELECT count(*) FROM series(5, 1)"); got != 0 {
		t.Errorf("got %d", got)
	}
	if err := queryErr(c, "SELECT * FROM series"); err == nil || !strings.Contains(err.Error(), "series needs start and stop") {
		t.Errorf("got %v", err)
	}
	// Eponymous only: CREATE VIRTUAL TABLE refuses it.
	if _, err := c.ExecScript("CREATE VIRTUAL TABLE temp.s USING series"); err == nil {
		t.Error("CREATE VIRTUAL TABLE of an eponymous-only module worked")
	}
}

func TestVTabInListWholeAndLimit(t *testing.T) {
	c := vtabDB(t)
	m := &genModule{n: 1000, takeInLists: true, takeLimit: true}
	if err := c.CreateModule("gen", m, sqlbatch.ModuleOptions{Eponymous: true}); err != nil {
		t.Fatal(err)
	}
	before := m.filters
	got := allRows(t, c, "SELECT id FROM gen WHERE id IN (5, 3, 999, 5000)")
	if !reflect.DeepEqual(got, [][]any{{int64(3)}, {int64(5)}, {int64(999)}}) {
		t.Fatalf("got %v", got)
	}
	if m.filters-before != 1 {
		t.Errorf("%d scans for one IN list", m.filters-before)
	}
	list := m.lastArgs[0]
	slices.SortFunc(list, func(a, b any) int { return int(a.(int64) - b.(int64)) })
	if !reflect.DeepEqual(list, []any{int64(3), int64(5), int64(999), int64(5000)}) {
		t.Errorf("list %v", list)
	}
	// A table value is an IN list like any other.
	if n := queryInt(t, c, "SELECT count(*) FROM gen WHERE id IN sqlbatch_rows(?)", sqlbatch.Array([]int{1, 2, 2000})); n != 2 {
		t.Errorf("got %d", n)
	}
	if n := len(allRows(t, c, "SELECT id FROM gen LIMIT 7")); n != 7 || m.lastLimit != 7 {
		t.Errorf("%d rows, limit %d", n, m.lastLimit)
	}
	// Eponymous (not only): CREATE VIRTUAL TABLE makes tables of it too.
	if _, err := c.ExecScript("CREATE VIRTUAL TABLE temp.g2 USING gen"); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM g2"); n != 1000 {
		t.Errorf("got %d", n)
	}
}

// kvTable is a writable table of (rowid, v).
type kvTable struct {
	rows    map[int64]any
	next    int64
	changes []sqlbatch.RowChange
}

type kvCursor struct {
	t   *kvTable
	ids []int64
	at  int
}

type kvModule struct{ t *kvTable }

func (m kvModule) Connect(_ *sqlbatch.Conn, args []string, _ bool) (string, sqlbatch.VirtualTable, error) {
	return "CREATE TABLE x(" + strings.Join(args[3:], ", ") + ")", m.t, nil
}

func (t *kvTable) Open() (sqlbatch.Cursor, error) { return &kvCursor{t: t}, nil }

func (t *kvTable) Update(ch *sqlbatch.RowChange) (int64, error) {
	t.changes = append(t.changes, *ch)
	switch ch.Op {
	case sqlbatch.OpInsert:
		if ch.Values[0] == "bad" {
			return 0, &sqlbatch.Error{Code: sqlbatch.ErrConstraint, ExtendedCode: sqlbatch.ErrConstraintCheck, Msg: "the table refuses 'bad'"}
		}
		id := t.next
		if ch.NewRowID != nil {
			id = ch.NewRowID.(int64)
		}
		t.next = max(t.next, id) + 1
		t.rows[id] = ch.Values[0]
		return id, nil
	case sqlbatch.OpUpdate:
		delete(t.rows, ch.OldRowID)
		t.rows[ch.NewRowID.(int64)] = ch.Values[0]
	case sqlbatch.OpDelete:
		delete(t.rows, ch.OldRowID)
	}
	return 0, nil
}

func (c *kvCursor) Filter(int, sqlbatch.FilterArgs) error {
	c.ids, c.at = c.ids[:0], 0
	for id := range c.t.rows {
		c.ids = append(c.ids, id)
	}
	slices.Sort(c.ids)
	return nil
}

func (c *kvCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	for ; c.at < len(c.ids) && !w.Full(); c.at++ {
		w.Value(c.t.rows[c.ids[c.at]]).EndRowID(c.ids[c.at])
	}
	return c.at == len(c.ids), nil
}

func (c *kvCursor) Close() {}

func TestVTabWritable(t *testing.T) {
	c := vtabDB(t)
	kv := &kvTable{rows: map[int64]any{}, next: 1}
	if err := c.CreateModule("kv", kvModule{kv}, sqlbatch.ModuleOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript(`CREATE VIRTUAL TABLE temp.kv USING kv(v TEXT);
		INSERT INTO kv(v) VALUES ('a'), ('b');
		INSERT INTO kv(rowid, v) VALUES (10, 'c')`); err != nil {
		t.Fatal(err)
	}
	if id := c.LastInsertRowID(); id != 10 {
		t.Errorf("last insert rowid %d", id)
	}
	if _, err := c.ExecScript("UPDATE kv SET v = 'B' WHERE rowid = 2; DELETE FROM kv WHERE rowid = 1; UPDATE kv SET rowid = 20 WHERE v = 'c'"); err != nil {
		t.Fatal(err)
	}
	if got := allRows(t, c, "SELECT rowid, v FROM kv"); !reflect.DeepEqual(got, [][]any{{int64(2), "B"}, {int64(20), "c"}}) {
		t.Errorf("got %v", got)
	}
	var ops []int
	for _, ch := range kv.changes {
		ops = append(ops, ch.Op)
	}
	if want := []int{sqlbatch.OpInsert, sqlbatch.OpInsert, sqlbatch.OpInsert, sqlbatch.OpUpdate, sqlbatch.OpDelete, sqlbatch.OpUpdate}; !reflect.DeepEqual(ops, want) {
		t.Errorf("ops %v, want %v", ops, want)
	}
	if ch := kv.changes[5]; ch.OldRowID != 10 || ch.NewRowID != int64(20) {
		t.Errorf("rowid change: %+v", ch)
	}
	// The table's error, with its code and message.
	_, err := c.ExecScript("INSERT INTO kv(v) VALUES ('bad')")
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.ExtendedCode != sqlbatch.ErrConstraintCheck || !strings.Contains(e.Msg, "the table refuses 'bad'") {
		t.Errorf("got %#v", err)
	}
	// A table without Update is read-only.
	if err := c.CreateModule("gen", &genModule{n: 3}, sqlbatch.ModuleOptions{Eponymous: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript("INSERT INTO gen(id) VALUES (1)"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("got %v", err)
	}
}

// scanErr scans the eponymous table of m and returns the scan's error; the connection is
// closed before it returns, and every handle it made given back.
func scanErr(t *testing.T, m *genModule) error {
	t.Helper()
	before := capi.LiveHandles()
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateModule("gen", m, sqlbatch.ModuleOptions{Eponymous: true, BatchRows: 10}); err != nil {
		t.Fatal(err)
	}
	err = queryErr(c, "SELECT * FROM gen")
	if cerr := c.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if got := capi.LiveHandles() - before; got != 0 {
		t.Errorf("%v: %d live handles after Close", err, got)
	}
	if m.destroyed != 1 {
		t.Errorf("%v: module destroyed %d times", err, m.destroyed)
	}
	return err
}

func TestVTabErrorsEndTheStatementWithTheirMessage(t *testing.T) {
	cases := []struct {
		m    *genModule
		want string
	}{
		{&genModule{n: 100, fillErr: true}, "the module failed mid-scan"},
		{&genModule{n: 100, fillPanic: true}, "panic: the module panicked mid-scan"},
		{&genModule{n: 100, filterErr: true}, "the module refuses this scan"},
		{&genModule{n: 100, tooMany: true}, "more than the 10 rows it was asked for"},
		{&genModule{n: 100, unended: true}, "in the middle of a row"},
		{&genModule{n: 100, noRowNotDone: true}, "wrote no row and did not report the end"},
		{&genModule{n: 100, badWidth: true}, "row 1 has 2 values, the rows before it 4"},
		{&genModule{n: 100, connectErr: true}, "the module refuses to connect"},
		{&genModule{n: 100, schema: "CREATE TABLE x(a INTEGER,"}, "incomplete input"},
	}
	for _, tc := range cases {
		err := scanErr(t, tc.m)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
		if tc.m.opens != tc.m.closes {
			t.Errorf("%q: %d opens, %d closes", tc.want, tc.m.opens, tc.m.closes)
		}
		if tc.m.schema != "" && tc.m.connects != tc.m.disconnects {
			t.Errorf("refused schema: %d connects, %d disconnects", tc.m.connects, tc.m.disconnects)
		}
	}
	// A panic in any method: the statement's error where there is a statement, swallowed in
	// Close and Disconnect (nothing to report it to), and never a crash or a leak (scanErr
	// checks the handles).
	for _, in := range []string{"Connect", "BestIndex", "Open", "Filter"} {
		if err := scanErr(t, &genModule{n: 10, panicIn: in}); err == nil || !strings.Contains(err.Error(), "panic: in "+in) {
			t.Errorf("panic in %s: %v", in, err)
		}
	}
	for _, in := range []string{"Close", "Disconnect"} {
		m := &genModule{n: 10, panicIn: in}
		if err := scanErr(t, m); err != nil || m.closes != m.opens || m.disconnects != m.connects {
			t.Errorf("panic in %s: %v, %d opens %d closes %d connects %d disconnects", in, err, m.opens, m.closes, m.connects, m.disconnects)
		}
	}
	// A filter's *Error keeps its code.
	var e *sqlbatch.Error
	if err := scanErr(t, &genModule{n: 1, filterErr: true}); !errors.As(err, &e) || e.Code != sqlbatch.ErrConstraint {
		t.Errorf("got %#v", err)
	}
}

func TestVTabCursorsAndTablesEndOnceWhateverEndsTheScan(t *testing.T) {
	before := capi.LiveHandles()
	m := &genModule{n: 100000}
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateModule("gen", m, sqlbatch.ModuleOptions{Eponymous: true, BatchRows: 100}); err != nil {
		t.Fatal(err)
	}
	// Closed mid-scan.
	s, err := c.Prepare("SELECT * FROM gen")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		r.Next()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if m.opens != 1 || m.closes != 1 {
		t.Fatalf("%d opens, %d closes", m.opens, m.closes)
	}
	// Bound again mid-scan (the bind resets the statement, which closes its cursor).
	s2, err := c.Prepare("SELECT * FROM gen WHERE id >= ?")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	r, _ = s2.Query(0)
	r.Next()
	r, _ = s2.Query(1)
	r.Next()
	if m.opens != 3 || m.closes != 2 {
		t.Fatalf("%d opens, %d closes", m.opens, m.closes)
	}
	// Left mid-scan when the connection closes.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if m.closes != 3 || m.connects != m.disconnects || m.destroyed != 1 {
		t.Fatalf("closes %d connects %d disconnects %d destroyed %d", m.closes, m.connects, m.disconnects, m.destroyed)
	}
	if got := capi.LiveHandles() - before; got != 0 {
		t.Errorf("%d live handles", got)
	}
}

func TestVTabRegistrationsReleasedOnce(t *testing.T) {
	before := capi.LiveHandles()
	c := vtabDB(t)
	a, b := &genModule{n: 3}, &genModule{n: 3}
	if err := c.CreateModule("m", a, sqlbatch.ModuleOptions{Eponymous: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateModule("m", b, sqlbatch.ModuleOptions{Eponymous: true}); err != nil { // replaces a
		t.Fatal(err)
	}
	if a.destroyed != 1 || b.destroyed != 0 {
		t.Fatalf("destroyed %d %d", a.destroyed, b.destroyed)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM m"); n != 3 {
		t.Fatalf("got %d", n)
	}
	if err := c.CreateModule("m", nil, sqlbatch.ModuleOptions{}); err != nil { // removes b
		t.Fatal(err)
	}
	if err := queryErr(c, "SELECT * FROM m"); err == nil {
		t.Error("a removed module still works")
	}
	// SQLite disconnects the eponymous table it had connected (and so releases the module)
	// when the connection next runs a statement.
	if b.destroyed != 1 || b.disconnects != b.connects {
		t.Fatalf("destroyed %d, disconnects %d of %d", b.destroyed, b.disconnects, b.connects)
	}
	// Bad options and names fail, and keep nothing.
	if err := c.CreateModule("x", &genModule{}, sqlbatch.ModuleOptions{BatchRows: -1}); err == nil {
		t.Error("negative BatchRows")
	}
	if err := c.CreateModule("", &genModule{}, sqlbatch.ModuleOptions{}); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Errorf("empty name: %v", err)
	}
	if got := capi.LiveHandles() - before; got != 0 {
		t.Errorf("%d live handles", got)
	}
}

func TestVTabCloseFromACallbackIsRefused(t *testing.T) {
	c := vtabDB(t)
	m := &genModule{n: 3}
	var closeErr error
	m.fillHook = func() { closeErr = c.Close() }
	if err := c.CreateModule("gen", m, sqlbatch.ModuleOptions{Eponymous: true}); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM gen"); n != 3 {
		t.Fatalf("got %d", n)
	}
	if !errors.Is(closeErr, sqlbatch.ErrMisuse) {
		t.Errorf("Close from Fill: %v", closeErr)
	}
}

// prebuilt hands over rows laid out in advance, one Params per batch (AppendRows), and
// mixes them with rows written one by one when asked.
type prebuilt struct {
	batches []sqlbatch.Params
	mix     bool
	twice   bool // two batches per Fill
}

type prebuiltCursor struct {
	p  *prebuilt
	at int
}

func (p *prebuilt) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return "CREATE TABLE x(a INTEGER, b TEXT)", p, nil
}
func (p *prebuilt) Open() (sqlbatch.Cursor, error)              { return &prebuiltCursor{p: p}, nil }
func (c *prebuiltCursor) Filter(int, sqlbatch.FilterArgs) error { c.at = 0; return nil }
func (c *prebuiltCursor) Close()                                {}
func (c *prebuiltCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	if c.p.mix {
		w.Int64(-1).Text("before").EndRow()
	}
	if err := w.AppendRows(&c.p.batches[c.at], 2); err != nil {
		return false, err
	}
	if c.p.twice && c.at+1 < len(c.p.batches) {
		c.at++
		if err := w.AppendRows(&c.p.batches[c.at], 2); err != nil {
			return false, err
		}
	}
	if c.p.mix {
		w.Int64(-2) // a row begun after the prebuilt rows...
		w.Text("after").EndRowID(-2)
		if err := w.AppendColumns([]int{-3}, []string{"cols"}); err != nil {
			return false, err
		}
	}
	c.at++
	return c.at == len(c.p.batches), nil
}

func TestVTabRowsPreparedInAdvance(t *testing.T) {
	p := &prebuilt{batches: make([]sqlbatch.Params, 3)}
	var want [][]any
	for b := range p.batches {
		for i := range 4 {
			v := b*4 + i
			p.batches[b].Int(v).Text(fmt.Sprint("v", v))
			want = append(want, []any{int64(v), fmt.Sprint("v", v), int64(v + 1)})
		}
	}
	c := vtabDB(t)
	if err := c.CreateModule("pre", p, sqlbatch.ModuleOptions{EponymousOnly: true, BatchRows: 10}); err != nil {
		t.Fatal(err)
	}
	if got := allRows(t, c, "SELECT a, b, rowid FROM pre"); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Two prepared batches in one Fill: the first one is copied once the second comes.
	p.twice = true
	if got := allRows(t, c, "SELECT a, b, rowid FROM pre"); !reflect.DeepEqual(got, want) {
		t.Fatalf("twice: got %v, want %v", got, want)
	}
	p.twice = false
	// Mixed with rows written one by one, and with explicit rowids among numbered rows.
	p.mix = true
	got := allRows(t, c, "SELECT a, b, rowid FROM pre LIMIT 7")
	want = [][]any{{int64(-1), "before", int64(1)}, {int64(0), "v0", int64(2)}, {int64(1), "v1", int64(3)},
		{int64(2), "v2", int64(4)}, {int64(3), "v3", int64(5)}, {int64(-2), "after", int64(-2)}, {int64(-3), "cols", int64(7)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// More rows than the room left.
	p.mix = false
	if err := c.CreateModule("pre", p, sqlbatch.ModuleOptions{EponymousOnly: true, BatchRows: 3}); err != nil {
		t.Fatal(err)
	}
	if err := queryErr(c, "SELECT * FROM pre"); err == nil || !strings.Contains(err.Error(), "more than the 3 rows") {
		t.Errorf("got %v", err)
	}
}

func TestVTabWithFetchAhead(t *testing.T) {
	c, err := sqlbatch.OpenWithFlags(":memory:", sqlbatch.OpenFetchAhead)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := &genModule{n: 5000}
	if err := c.CreateModule("gen", m, sqlbatch.ModuleOptions{Eponymous: true}); err != nil {
		t.Fatal(err)
	}
	rows := allRows(t, c, "SELECT * FROM gen")
	if len(rows) != 5000 || !reflect.DeepEqual(rows[4999], genRow(4999)) {
		t.Fatalf("%d rows", len(rows))
	}
}

// probe records the planning calls of its table and consumes ORDER BY id.
type probe struct {
	infos []sqlbatch.IndexInfo
}

func (p *probe) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return "CREATE TABLE x(id INTEGER, name TEXT, other BLOB)", p, nil
}

func (p *probe) BestIndex(ix *sqlbatch.IndexInfo) error {
	p.infos = append(p.infos, *ix)
	if len(ix.OrderBy) == 1 && ix.OrderBy[0].Column == 0 && !ix.OrderBy[0].Desc {
		ix.OrderByConsumed = true
	}
	return nil
}

func (p *probe) Open() (sqlbatch.Cursor, error) {
	return &seriesCursor{s: &series{}, at: 1, stop: 0}, nil
}

func TestVTabBestIndexSeesEveryConstraint(t *testing.T) {
	c := vtabDB(t)
	p := &probe{}
	if err := c.CreateModule("probe", p, sqlbatch.ModuleOptions{EponymousOnly: true}); err != nil {
		t.Fatal(err)
	}
	// The scan itself fails (series' Filter wants two arguments): only the plan matters.
	queryErr(c, "SELECT name FROM probe WHERE id > 5 AND name = 'x' AND id IN (1, 2) ORDER BY id")
	if len(p.infos) == 0 {
		t.Fatal("no planning call")
	}
	ix := p.infos[0]
	type con struct {
		col int
		op  sqlbatch.IndexOp
		val any
		in  bool
	}
	var got []con
	for _, c := range ix.Constraints {
		got = append(got, con{c.Column, c.Op, c.Value, c.InList})
		if c.HasValue != (c.Value != nil) {
			t.Errorf("constraint %+v: HasValue %v", c, c.HasValue)
		}
	}
	want := []con{{0, sqlbatch.IndexGT, int64(5), false}, {1, sqlbatch.IndexEQ, "x", false}, {0, sqlbatch.IndexEQ, nil, true}}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("constraints %+v lack %+v", got, w)
		}
	}
	if !reflect.DeepEqual(ix.OrderBy, []sqlbatch.IndexOrderBy{{Column: 0}}) {
		t.Errorf("order by %+v", ix.OrderBy)
	}
	if ix.ColumnsUsed != 0b11 {
		t.Errorf("columns used %b", ix.ColumnsUsed)
	}
	if ix.EstimatedCost != 1e6 || ix.EstimatedRows != 1000000 {
		t.Errorf("defaults %v %v", ix.EstimatedCost, ix.EstimatedRows)
	}
	// An ArgIndex with a gap is the plan's error.
	bad := &badPlan{}
	if err := c.CreateModule("bad", bad, sqlbatch.ModuleOptions{EponymousOnly: true}); err != nil {
		t.Fatal(err)
	}
	if err := queryErr(c, "SELECT * FROM bad WHERE a = 1"); err == nil || !strings.Contains(err.Error(), "arg_index") {
		t.Errorf("got %v", err)
	}
}

type badPlan struct{}

func (b *badPlan) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return "CREATE TABLE x(a INTEGER)", b, nil
}

func (b *badPlan) BestIndex(ix *sqlbatch.IndexInfo) error {
	for i := range ix.Constraints {
		ix.Constraints[i].ArgIndex = 2
	}
	return nil
}

func (b *badPlan) Open() (sqlbatch.Cursor, error) { return nil, errors.New("not reached") }
