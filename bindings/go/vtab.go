package sqlbatch

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Virtual tables whose cursors fill batches.
//
// SQLite asks a virtual table's cursor for every row (xNext, xEof) and every value
// (xColumn); from Go, each of those would be a call from C into Go, which costs far more
// than the work it does. Here a cursor's Fill writes up to RowWriter.Max rows into Go
// buffers at once, they cross into C in one call, and the library answers SQLite's per-row
// and per-value calls from them. Planning (BestIndex) is one call with every constraint
// and ORDER BY term; an IN list can reach Filter whole.

// Module makes the tables of a virtual table module (Conn.CreateModule).
//
// A Module may also implement DestroyModule(), called once when the registration ends (the
// module is replaced or removed, or its connection closes).
type Module interface {
	// Connect makes a table. It returns the table's schema, a CREATE TABLE statement whose
	// table name is ignored ("CREATE TABLE x(a INTEGER, b TEXT, arg HIDDEN)": hidden columns
	// are the arguments of a table-valued function, in order), and the table. args are
	// SQLite's: args[0] the module's name, args[1] the database's ("main", "temp", an
	// attached one), args[2] the table's (the module's own for an eponymous table), then the
	// module arguments of CREATE VIRTUAL TABLE t USING module(args...), as written; create is
	// true when CREATE VIRTUAL TABLE makes the table, false
	// when an existing one is connected again (a database reopened) and for an eponymous
	// table. c is the connection the module is registered on: Connect may use it, as every
	// method of the module may (not to close it, which is refused, nor to run the statement
	// that is reading the table).
	Connect(c *Conn, args []string, create bool) (schema string, table VirtualTable, err error)
}

// VirtualTable is a table of a Module.
//
// A VirtualTable may also implement BestIndexer (planning: which constraints its scans
// take), Updater (a writable table) and Disconnecter (to release what it holds).
type VirtualTable interface {
	// Open makes a cursor for a scan of the table.
	Open() (Cursor, error)
}

// BestIndexer is a VirtualTable that plans its scans. Without it, every scan reads the whole
// table and Filter gets no arguments.
type BestIndexer interface {
	// BestIndex chooses a plan for the constraints and ORDER BY terms in ix, writing its
	// outputs: which constraints become arguments of Filter (IndexConstraint.ArgIndex, or
	// ix.Use), the plan's number (IdxNum, handed to Filter), its cost. It is called once for
	// each plan SQLite considers. Return ErrConstraint when the plan cannot be used (it needs
	// a constraint that is not Usable here); another error fails the statement.
	BestIndex(ix *IndexInfo) error
}

// Updater is a writable VirtualTable: Update makes one change, one call per row (SQLite
// needs each row's outcome before it goes on). A table that does not implement it refuses
// every change with an error.
type Updater interface {
	// Update makes the change ch. For an insert it returns the new row's rowid (that of
	// ch.NewRowID when it is set); otherwise the rowid is ignored.
	Update(ch *RowChange) (rowid int64, err error)
}

// Disconnecter is a VirtualTable that releases what it holds: Disconnect is called once per
// table Connect made, destroy true when the table is dropped (DROP TABLE: its data may go
// too), false when its connection closes or the table was made for nothing (a Connect whose
// schema SQLite refused).
type Disconnecter interface {
	Disconnect(destroy bool)
}

// Cursor is a scan of a VirtualTable, made by Open. Filter starts (or restarts) a scan,
// then Fill is called for each batch of rows until it reports the end; Close is called once,
// when the scan's statement is done with it (it finished, was reset or closed, or its
// connection closed), also in the middle of a scan.
type Cursor interface {
	// Filter starts a scan with the plan BestIndex chose (idxNum; 0 without a BestIndexer)
	// and the values of the constraints it asked for, argument k-1 for ArgIndex k. args are
	// views of C memory, valid during the call only (its Text and Blob copy).
	Filter(idxNum int, args FilterArgs) error
	// Fill writes the scan's next rows, up to w.Max() of them (w.Full() says when there is no
	// room left), and reports whether they are the last. A Fill that writes no row must
	// report done. An error ends the statement with its message (the rows of that call are
	// dropped); so does a panic.
	Fill(w *RowWriter) (done bool, err error)
	// Close ends the cursor.
	Close()
}

// ModuleOptions are the options of Conn.CreateModule.
type ModuleOptions struct {
	// Eponymous makes the module's name itself a table (or, with hidden columns, a
	// table-valued function: SELECT * FROM name(1, 2)) without CREATE VIRTUAL TABLE, which
	// makes tables of it too.
	Eponymous bool
	// EponymousOnly makes the module only that eponymous table: CREATE VIRTUAL TABLE
	// refuses it.
	EponymousOnly bool
	// BatchRows is how many rows a Fill is asked for at most (0: 256).
	BatchRows int
}

// CreateModule registers (or replaces) the virtual table module name on c: tables made by
// CREATE VIRTUAL TABLE t USING name(args...), or the eponymous table name (see
// ModuleOptions). A nil m removes the module (tables that use it stop working).
//
// The module's methods run on the goroutine running the statement (or on the connection's
// worker thread, for a statement that fetches ahead; see Stmt.SetFetchAhead): they must not
// share unsynchronized state with the code that reads the rows then. An error a method
// returns ends the statement with the error's message (an *Error keeps its code); a panic
// does too, and never unwinds into C.
func (c *Conn) CreateModule(name string, m Module, opts ModuleOptions) error {
	if m == nil {
		if rc := c.h.CreateModule(name, 0, 0, nil); rc != capi.OK {
			return c.err(rc, "")
		}
		return nil
	}
	if opts.BatchRows < 0 {
		return errorf(ErrInvalidArgument, "sqlbatch: ModuleOptions.BatchRows is negative")
	}
	var flags uint32
	switch {
	case opts.EponymousOnly:
		flags = capi.VtabEponymousOnly
	case opts.Eponymous:
		flags = capi.VtabEponymous
	}
	vm := &vtabModule{m: m, c: c, name: name}
	if rc := c.h.CreateModule(name, flags, opts.BatchRows, vm); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// IndexOp is the operator of an IndexConstraint, with SQLite's values
// (SQLITE_INDEX_CONSTRAINT_*).
type IndexOp uint8

// Constraint operators.
const (
	IndexEQ        IndexOp = capi.IndexEQ // column = value; an IN (...) too (IndexConstraint.InList)
	IndexGT        IndexOp = capi.IndexGT
	IndexLE        IndexOp = capi.IndexLE
	IndexLT        IndexOp = capi.IndexLT
	IndexGE        IndexOp = capi.IndexGE
	IndexMatch     IndexOp = capi.IndexMatch
	IndexLike      IndexOp = capi.IndexLike
	IndexGlob      IndexOp = capi.IndexGlob
	IndexRegexp    IndexOp = capi.IndexRegexp
	IndexNE        IndexOp = capi.IndexNE
	IndexIsNot     IndexOp = capi.IndexIsNot
	IndexIsNotNull IndexOp = capi.IndexIsNotNull
	IndexIsNull    IndexOp = capi.IndexIsNull
	IndexIs        IndexOp = capi.IndexIs
	// IndexLimit is the query's LIMIT (Column -1): a plan that takes it as an argument of
	// Filter knows how many rows the query can use at most (SQLite still applies it).
	IndexLimit IndexOp = capi.IndexLimit
	// IndexOffset is the query's OFFSET (Column -1).
	IndexOffset IndexOp = capi.IndexOffset
)

// IndexConstraint is one constraint of a query on a virtual table, and the plan's use of it.
type IndexConstraint struct {
	// Column is the column (from 0, hidden ones counted); -1 for the rowid, and for LIMIT
	// and OFFSET.
	Column int
	Op     IndexOp
	// Usable says whether this plan can use it (false: its value comes from a table later in
	// the join order SQLite is costing).
	Usable bool
	// InList says that it is an IN (...) whose whole list Filter can take (WholeList).
	InList bool
	// Value is its value when SQLite knows it at planning time (a literal; HasValue), as
	// Args.Value gives values: int64, float64, string, []byte or nil.
	Value    any
	HasValue bool

	// ArgIndex is what the plan does with it: 0, nothing; k, its value is argument k-1 of
	// Filter (the ones used count 1, 2, ... with no gap). ix.Use sets it.
	ArgIndex int
	// Omit lets SQLite skip checking the constraint on the rows (the table applies it).
	Omit bool
	// WholeList, for an InList constraint, hands Filter the whole list as one argument
	// (FilterArgs.List), for one scan instead of one scan per value.
	WholeList bool
}

// IndexOrderBy is one ORDER BY term.
type IndexOrderBy struct {
	Column int // from 0; -1 for the rowid
	Desc   bool
}

// IndexInfo is a planning call of BestIndex: the constraints and ORDER BY terms of a query
// on the table (in), and the plan (out).
type IndexInfo struct {
	Constraints []IndexConstraint
	OrderBy     []IndexOrderBy
	// ColumnsUsed has bit i set when the query reads column i (bit 63 for column 63 and up).
	ColumnsUsed uint64

	// IdxNum is the plan's number, handed to Filter (an int32).
	IdxNum int
	// OrderByConsumed says that the rows come in the ORDER BY's order (SQLite does not sort
	// them).
	OrderByConsumed bool
	// Unique says that the plan returns at most one row.
	Unique bool
	// EstimatedCost is the plan's cost (a disk page read is 1), EstimatedRows its rows;
	// they start at a full scan's (1e6 and 1,000,000).
	EstimatedCost float64
	EstimatedRows int64
}

// Use makes constraint i the next argument of Filter (its ArgIndex one more than the
// largest so far), omitted from SQLite's own checks if omit, and returns its ArgIndex.
func (ix *IndexInfo) Use(i int, omit bool) int {
	n := 0
	for _, c := range ix.Constraints {
		n = max(n, c.ArgIndex)
	}
	ix.Constraints[i].ArgIndex = n + 1
	ix.Constraints[i].Omit = omit
	return n + 1
}

// FilterArgs are the arguments of Filter: argument k-1 holds the value of the constraint
// whose ArgIndex is k, read with Args' methods; an IN list taken whole (IsList) is one
// argument whose values List gives. Views of C memory, valid during Filter only.
type FilterArgs struct {
	Args
	lists [][]capi.Value // nil, or one entry per argument (nil for a single value)
}

// IsList reports whether argument i is a whole IN list (its Value is nil; see List).
func (f FilterArgs) IsList(i int) bool { return f.cells[i].Kind == capi.KindUndefined }

// List returns the values of argument i when it is a whole IN list (IsList), in no
// particular order and with any duplicates; no values otherwise.
func (f FilterArgs) List(i int) Args {
	if i < 0 || i >= len(f.lists) {
		return Args{}
	}
	return Args{cells: f.lists[i], data: f.data}
}

// RowChange is one change to a writable table, for Updater.Update.
type RowChange struct {
	// Op is OpInsert, OpUpdate or OpDelete.
	Op int
	// OldRowID is the rowid of the row updated or deleted (0 for an insert).
	OldRowID int64
	// NewRowID is the new row's rowid, an int64; nil when the table chooses it (an insert
	// that gives none) and for a delete. An update that changes the rowid has it differ from
	// OldRowID.
	NewRowID any
	// Values are the new row's columns, hidden ones included (an insert or an update), as
	// Args.Value gives values (copies: they may be kept); nil for a delete.
	Values []any
}

// RowWriter collects the rows of one Fill in Go memory, laid out as the C ABI takes them (an
// array of 16-byte cells and one block of bytes), and hands them over when Fill returns, in
// one call into C. Write a row's values one by one (w.Int64(id).Text(name).Null()) and end
// it with EndRow (or EndRowID, to give its rowid: rows without one are numbered 1, 2, ... in
// each scan); every row of a Fill has the same number of values, which may be fewer than
// the table's columns (the rest, hidden argument columns say, read as NULL). AppendColumns
// writes many rows from slices, AppendRows hands over rows laid out in advance.
//
// Values are copied in. A RowWriter is valid during Fill only.
type RowWriter struct {
	p        Params
	max      int
	rows     int
	nCols    int // values per row in this fill; 0 before its first row
	rowStart int // index in p.vals where the current row starts
	rowids   []int64
	explicit bool  // rowids holds one rowid a row (EndRowID was used)
	scanRows int64 // rows handed over in this scan before this fill
	// pre is the rows AppendRows handed over as they are, alone in the fill so far (nil:
	// none), preCols values a row.
	pre *Params
	err error
}

// Max is how many rows the Fill may write.
func (w *RowWriter) Max() int { return w.max }

// Len is how many rows the Fill has written.
func (w *RowWriter) Len() int { return w.rows }

// Full reports whether the Fill has written Max rows.
func (w *RowWriter) Full() bool { return w.rows >= w.max }

// The writers append cells to w.p directly (a RowWriter's Params never has names), small
// enough to be inlined into a Fill's loop.

// Null writes NULL.
func (w *RowWriter) Null() *RowWriter {
	w.p.vals = append(w.p.vals, capi.Value{Kind: capi.KindNull})
	return w
}

// Int64 writes an INTEGER.
func (w *RowWriter) Int64(v int64) *RowWriter {
	w.p.vals = append(w.p.vals, capi.Value{Bits: uint64(v), Kind: capi.KindInteger})
	return w
}

// Int writes an INTEGER.
func (w *RowWriter) Int(v int) *RowWriter { return w.Int64(int64(v)) }

// Bool writes an INTEGER, 1 for true and 0 for false.
func (w *RowWriter) Bool(v bool) *RowWriter {
	var b int64
	if v {
		b = 1
	}
	return w.Int64(b)
}

// Float64 writes a REAL.
func (w *RowWriter) Float64(v float64) *RowWriter {
	w.p.vals = append(w.p.vals, capi.Value{Bits: math.Float64bits(v), Kind: capi.KindFloat})
	return w
}

// Text writes TEXT.
func (w *RowWriter) Text(s string) *RowWriter {
	if uint64(len(s)) > math.MaxUint32 {
		return w.tooBig(len(s))
	}
	w.p.vals = append(w.p.vals, capi.Value{Bits: uint64(len(w.p.data)), Len: uint32(len(s)), Kind: capi.KindText})
	w.p.data = append(w.p.data, s...)
	return w
}

// TextBytes writes TEXT holding the bytes b.
func (w *RowWriter) TextBytes(b []byte) *RowWriter { return w.Text(unsafeString(b)) }

// Blob writes a BLOB; a nil slice writes NULL.
func (w *RowWriter) Blob(b []byte) *RowWriter {
	if b == nil {
		return w.Null()
	}
	if uint64(len(b)) > math.MaxUint32 {
		return w.tooBig(len(b))
	}
	w.p.vals = append(w.p.vals, capi.Value{Bits: uint64(len(w.p.data)), Len: uint32(len(b)), Kind: capi.KindBlob})
	w.p.data = append(w.p.data, b...)
	return w
}

func (w *RowWriter) tooBig(n int) *RowWriter {
	w.fail(errorf(ErrTooBig, fmt.Sprintf("a value of %d bytes is too large", n)))
	return w.Null()
}

// Time writes t as TEXT in TimeFormat.
func (w *RowWriter) Time(t time.Time) *RowWriter { w.p.Time(t); return w }

// Value writes v as Params.Any takes it (nil is NULL); a type it refuses, a NamedArg or a
// table value fails the Fill.
func (w *RowWriter) Value(v any) *RowWriter {
	switch v.(type) {
	case NamedArg, TableValue:
		w.fail(fmt.Errorf("sqlbatch: RowWriter.Value: a %T is not a value", v))
		return w
	}
	if err := w.p.Any(v); err != nil {
		w.fail(err)
	}
	return w
}

func (w *RowWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// DropRow discards the values written since the last row ended (a row that cannot be
// finished, say).
func (w *RowWriter) DropRow() { w.p.vals = w.p.vals[:w.rowStart] }

// EndRow ends the row whose values were written since the last one ended.
func (w *RowWriter) EndRow() { w.endRow(0, false) }

// EndRowID ends the row, whose rowid is rowid.
func (w *RowWriter) EndRowID(rowid int64) { w.endRow(rowid, true) }

func (w *RowWriter) endRow(rowid int64, explicit bool) {
	if w.pre != nil {
		w.unpre()
	}
	n := len(w.p.vals) - w.rowStart
	switch {
	case w.err != nil:
	case n == 0:
		w.fail(errors.New("sqlbatch: RowWriter.EndRow: a row of no values"))
	case w.nCols != 0 && n != w.nCols:
		w.fail(fmt.Errorf("sqlbatch: RowWriter: row %d has %d values, the rows before it %d", w.rows, n, w.nCols))
	case w.rows >= w.max:
		w.fail(fmt.Errorf("sqlbatch: Fill wrote more than the %d rows it was asked for (see RowWriter.Full)", w.max))
	}
	if w.err != nil {
		w.p.vals = w.p.vals[:w.rowStart]
		return
	}
	w.nCols = n
	w.addRowIDs(1, rowid, explicit)
	w.rows++
	w.rowStart = len(w.p.vals)
}

// addRowIDs records the rowids of n new rows: rowid (explicit) or their numbers in the scan.
func (w *RowWriter) addRowIDs(n int, rowid int64, explicit bool) {
	if explicit && !w.explicit {
		w.explicit = true
		w.rowids = w.rowids[:0]
		for i := range w.rows {
			w.rowids = append(w.rowids, w.scanRows+int64(i)+1)
		}
	}
	if !w.explicit {
		return
	}
	for i := range n {
		if explicit {
			w.rowids = append(w.rowids, rowid)
		} else {
			w.rowids = append(w.rowids, w.scanRows+int64(w.rows+i)+1)
		}
	}
}

// AppendColumns writes whole rows from columns, one slice per column (the types
// Params.AppendColumns takes), all of the same length: row i is (cols[0][i], cols[1][i],
// ...). It fails (and the Fill with it) if they are more rows than the room left, or not
// the row width of the rows before.
func (w *RowWriter) AppendColumns(cols ...any) error {
	if err := w.room(cols); err != nil {
		w.fail(err)
		return err
	}
	if w.pre != nil {
		w.unpre()
	}
	before := len(w.p.vals)
	if err := w.p.AppendColumns(cols...); err != nil {
		w.fail(err)
		return err
	}
	n := (len(w.p.vals) - before) / len(cols)
	if n > 0 {
		w.nCols = len(cols)
		w.addRowIDs(n, 0, false)
		w.rows += n
		w.rowStart = len(w.p.vals)
	}
	return nil
}

func (w *RowWriter) room(cols []any) error {
	if len(cols) == 0 {
		return nil
	}
	if len(w.p.vals) != w.rowStart {
		return errors.New("sqlbatch: RowWriter.AppendColumns inside a row (end it first)")
	}
	n := columnLen(cols[0])
	if w.rows+n > w.max {
		return fmt.Errorf("sqlbatch: Fill wrote more than the %d rows it was asked for (see RowWriter.Full)", w.max)
	}
	if w.rows > 0 && len(cols) != w.nCols {
		return fmt.Errorf("sqlbatch: RowWriter: rows of %d values after rows of %d", len(cols), w.nCols)
	}
	return nil
}

// AppendRows hands over the rows laid out in p, nCols values each (p holds whole rows,
// positional values only). Rows prepared in advance cost nothing more this way: when they
// are all the Fill writes, p's own arrays are what crosses into C (p must not change until
// Fill returns). It fails (and the Fill with it) if they are more rows than the room left,
// or not the row width of the rows before.
func (w *RowWriter) AppendRows(p *Params, nCols int) error {
	err := func() error {
		switch {
		case p.err != nil:
			return p.err
		case p.names != nil || len(p.tables) > 0:
			return errors.New("sqlbatch: RowWriter.AppendRows: the Params holds names or table values")
		case nCols <= 0 || p.Len()%nCols != 0:
			return fmt.Errorf("sqlbatch: RowWriter.AppendRows: %d values are not whole rows of %d", p.Len(), nCols)
		case len(w.p.vals) != w.rowStart:
			return errors.New("sqlbatch: RowWriter.AppendRows inside a row (end it first)")
		case w.rows+p.Len()/nCols > w.max:
			return fmt.Errorf("sqlbatch: Fill wrote more than the %d rows it was asked for (see RowWriter.Full)", w.max)
		case w.rows > 0 && nCols != w.nCols:
			return fmt.Errorf("sqlbatch: RowWriter: rows of %d values after rows of %d", nCols, w.nCols)
		}
		return nil
	}()
	if err != nil {
		w.fail(err)
		return err
	}
	n := p.Len() / nCols
	if n == 0 {
		return nil
	}
	if w.rows == 0 && w.pre == nil {
		w.pre, w.nCols, w.rows = p, nCols, n
		return nil
	}
	if w.pre != nil {
		w.unpre()
	}
	appendShifted(&w.p, p.vals, p.data)
	w.nCols = nCols
	w.addRowIDs(n, 0, false)
	w.rows += n
	w.rowStart = len(w.p.vals)
	return nil
}

// unpre copies the rows AppendRows handed over as they were into w's own buffers, before
// the values written since (a row being written).
func (w *RowWriter) unpre() {
	pre := w.pre
	w.pre = nil
	part := append([]capi.Value(nil), w.p.vals...)
	partData := append([]byte(nil), w.p.data...)
	w.p.vals = append(w.p.vals[:0], pre.vals...)
	w.p.data = append(w.p.data[:0], pre.data...)
	w.rowStart = len(w.p.vals)
	appendShifted(&w.p, part, partData)
}

// appendShifted appends vals, whose bytes are in data, to dst.
func appendShifted(dst *Params, vals []capi.Value, data []byte) {
	shift := uint64(len(dst.data))
	for _, v := range vals {
		if v.Kind == capi.KindText || v.Kind == capi.KindBlob {
			v.Bits += shift
		}
		dst.vals = append(dst.vals, v)
	}
	dst.data = append(dst.data, data...)
}

func (w *RowWriter) reset(max int) {
	w.p.Reset()
	w.max, w.rows, w.nCols, w.rowStart = max, 0, 0, 0
	w.rowids = w.rowids[:0]
	w.explicit = false
	w.pre = nil
	w.err = nil
}

// The module as the library calls it: vtabModule implements capi.VtabModule, with tables
// and cursors as cgo handles of vtabTable and vtabCursor.

type vtabModule struct {
	m    Module
	c    *Conn
	name string
}

type vtabTable struct {
	t   VirtualTable
	mod *vtabModule
}

type vtabCursor struct {
	cur   Cursor
	w     RowWriter
	cells []capi.Value   // Filter's argument values, reused
	lists [][]capi.Value // Filter's whole lists, reused
}

// enter counts a callback of the module as running (Close refuses meanwhile); the returned
// function ends it.
func (vm *vtabModule) enter() func() {
	vm.c.inFunc++
	return vm.leave
}

func (vm *vtabModule) leave() { vm.c.inFunc-- }

// vtabCode is the status a callback returns for err: the SQLite code of an *Error or an
// ErrorCode, else SQLITE_ERROR (a library code, or one that means success, would not do).
func vtabCode(err error) int32 {
	var c ErrorCode
	var e *Error
	switch {
	case errors.As(err, &e):
		c = e.ExtendedCode
	case errors.As(err, &c):
	}
	if c <= 0 || c >= 1000 || c.Primary() == 100 || c.Primary() == 101 {
		return capi.SQLiteError
	}
	return int32(c)
}

func vtabFail(call capi.VtabCall, err error) int32 {
	call.Error(err.Error())
	return vtabCode(err)
}

func (vm *vtabModule) Connect(call capi.VtabCall, create bool, args []string) (uintptr, int32) {
	defer vm.enter()()
	schema, t, err := vm.m.Connect(vm.c, args, create)
	if err != nil {
		return 0, vtabFail(call, err)
	}
	if t == nil {
		return 0, vtabFail(call, fmt.Errorf("sqlbatch: module %s: Connect returned no table", vm.name))
	}
	if rc := call.Declare(schema); rc != capi.OK {
		if d, ok := t.(Disconnecter); ok {
			d.Disconnect(false)
		}
		return 0, rc // the library gave the call SQLite's message
	}
	return capi.NewHandle(&vtabTable{t: t, mod: vm}), capi.OK
}

func tableOf(h uintptr) *vtabTable   { return capi.HandleValue(h).(*vtabTable) }
func cursorOf(h uintptr) *vtabCursor { return capi.HandleValue(h).(*vtabCursor) }

func (vm *vtabModule) BestIndex(call capi.VtabCall, table uintptr, cix *capi.VtabIndex) int32 {
	defer vm.enter()()
	p, ok := tableOf(table).t.(BestIndexer)
	if !ok {
		return capi.OK // the defaults: a full scan, no argument
	}
	cons := cix.Constraints()
	ix := &IndexInfo{
		Constraints:   make([]IndexConstraint, len(cons)),
		OrderBy:       make([]IndexOrderBy, len(cix.OrderBy())),
		ColumnsUsed:   cix.ColumnsUsed,
		EstimatedCost: cix.EstimatedCost,
		EstimatedRows: cix.EstimatedRows,
	}
	for i := range cons {
		c := &cons[i]
		ix.Constraints[i] = IndexConstraint{Column: int(c.Column), Op: IndexOp(c.Op), Usable: c.Usable, InList: c.InList}
		if c.Value.Kind != capi.KindUndefined {
			ix.Constraints[i].Value = cellValue(&c.Value, cix.Data)
			ix.Constraints[i].HasValue = true
		}
	}
	for i, o := range cix.OrderBy() {
		ix.OrderBy[i] = IndexOrderBy{Column: int(o.Column), Desc: o.Desc}
	}
	if err := p.BestIndex(ix); err != nil {
		if errors.Is(err, ErrConstraint) {
			return capi.SQLiteConstraint
		}
		return vtabFail(call, err)
	}
	if ix.IdxNum < math.MinInt32 || ix.IdxNum > math.MaxInt32 {
		return vtabFail(call, fmt.Errorf("sqlbatch: BestIndex: IdxNum %d is not an int32", ix.IdxNum))
	}
	uses := cix.Uses()
	for i := range uses {
		c := &ix.Constraints[i]
		if c.ArgIndex < 0 || c.ArgIndex > math.MaxInt32 {
			return vtabFail(call, fmt.Errorf("sqlbatch: BestIndex: ArgIndex %d", c.ArgIndex))
		}
		uses[i] = capi.VtabUse{ArgIndex: int32(c.ArgIndex), Omit: c.Omit, WholeList: c.WholeList}
	}
	cix.IdxNum = int32(ix.IdxNum)
	cix.OrderByConsumed = ix.OrderByConsumed
	cix.Unique = ix.Unique
	cix.EstimatedCost = ix.EstimatedCost
	cix.EstimatedRows = ix.EstimatedRows
	return capi.OK
}

func (vm *vtabModule) Open(call capi.VtabCall, table uintptr) (uintptr, int32) {
	defer vm.enter()()
	cur, err := tableOf(table).t.Open()
	if err != nil {
		return 0, vtabFail(call, err)
	}
	if cur == nil {
		return 0, vtabFail(call, fmt.Errorf("sqlbatch: module %s: Open returned no cursor", vm.name))
	}
	return capi.NewHandle(&vtabCursor{cur: cur}), capi.OK
}

func (vm *vtabModule) Filter(call capi.VtabCall, cursor uintptr, idxNum int32, args []capi.VtabArg, data *byte) int32 {
	defer vm.enter()()
	vc := cursorOf(cursor)
	vc.w.scanRows = 0
	vc.cells = vc.cells[:0]
	vc.lists = vc.lists[:0]
	for i := range args {
		vc.cells = append(vc.cells, args[i].Value)
		if args[i].IsList() {
			for len(vc.lists) < i {
				vc.lists = append(vc.lists, nil)
			}
			vc.lists = append(vc.lists, args[i].List())
		}
	}
	fa := FilterArgs{Args: Args{cells: vc.cells, data: data}, lists: vc.lists}
	err := vc.cur.Filter(int(idxNum), fa)
	clear(vc.lists) // views of C memory, gone after the call
	if err != nil {
		return vtabFail(call, err)
	}
	return capi.OK
}

var errRowNotEnded = errors.New("sqlbatch: Fill returned in the middle of a row (RowWriter.EndRow)")

func (vm *vtabModule) Fill(call capi.VtabCall, cursor uintptr, maxRows int) int32 {
	defer vm.enter()()
	vc := cursorOf(cursor)
	w := &vc.w
	w.reset(maxRows)
	done, err := vc.cur.Fill(w)
	switch {
	case err != nil:
	case w.err != nil:
		err = w.err
	case len(w.p.vals) != w.rowStart:
		err = errRowNotEnded
	case w.rows == 0 && !done:
		err = errors.New("sqlbatch: Fill wrote no row and did not report the end (done)")
	}
	if err != nil {
		w.reset(0)
		return vtabFail(call, err)
	}
	if w.rows > 0 {
		var rc int32
		if w.pre != nil {
			rc = call.Push(w.pre.vals, w.pre.data, w.nCols, nil)
		} else {
			var rowids []int64
			if w.explicit {
				rowids = w.rowids
			}
			rc = call.Push(w.p.vals, w.p.data, w.nCols, rowids)
		}
		if rc != capi.OK {
			w.reset(0)
			return rc // the library gave the call its message
		}
	}
	w.scanRows += int64(w.rows)
	w.pre = nil // not kept past the Fill
	if done {
		return capi.Done
	}
	return capi.Row
}

func (vm *vtabModule) Close(cursor uintptr) {
	defer capi.DeleteHandle(cursor)
	defer vm.enter()()
	cursorOf(cursor).cur.Close()
}

func (vm *vtabModule) Disconnect(table uintptr, destroy bool) {
	defer capi.DeleteHandle(table)
	defer vm.enter()()
	if d, ok := tableOf(table).t.(Disconnecter); ok {
		d.Disconnect(destroy)
	}
}

func (vm *vtabModule) Update(call capi.VtabCall, table uintptr, ch *capi.VtabChange, rowid *int64) int32 {
	defer vm.enter()()
	u, ok := tableOf(table).t.(Updater)
	if !ok {
		return vtabFail(call, fmt.Errorf("virtual table of module %s is read-only", vm.name))
	}
	rc := &RowChange{OldRowID: ch.OldRowID}
	switch ch.Op {
	case capi.VtabInsert:
		rc.Op = OpInsert
	case capi.VtabUpdate:
		rc.Op = OpUpdate
	default:
		rc.Op = OpDelete
	}
	if ch.NewRowID.Kind == capi.KindInteger {
		rc.NewRowID = int64(ch.NewRowID.Bits)
	}
	if vals := ch.Values(); len(vals) > 0 {
		rc.Values = make([]any, len(vals))
		for i := range vals {
			rc.Values[i] = cellValue(&vals[i], ch.Data)
		}
	}
	id, err := u.Update(rc)
	if err != nil {
		return vtabFail(call, err)
	}
	if rc.Op == OpInsert && (id != 0 || rc.NewRowID == nil) {
		*rowid = id
	}
	return capi.OK
}

func (vm *vtabModule) Destroy() {
	if d, ok := vm.m.(interface{ DestroyModule() }); ok {
		d.DestroyModule()
	}
}
