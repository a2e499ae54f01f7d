package driver

// mattn/go-sqlite3's virtual table API (its sqlite_vtable build tag), kept so that a program
// that implements virtual tables for mattn ports by changing the import path and the driver
// name: Module, EponymousOnlyModule, VTab, VTabUpdater, VTabCursor, SQLiteContext,
// InfoConstraint, InfoOrderBy, IndexResult, Op and its constants, and SQLiteConn's
// CreateModule and DeclareVTab, with mattn's shapes.
//
// Underneath, the module is a batched one (sqlbatch.Conn.CreateModule): instead of one call
// from C into Go for each row (xNext, xEof, xRowid) and each value (xColumn), as mattn
// makes, a loop in Go calls EOF, Rowid, Column and Next for up to vtabBatchRows rows and
// hands them over in one crossing. What that changes is listed in CreateModule's comment.

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// vtabBatchRows is how many rows one crossing hands over, at most.
const vtabBatchRows = 256

// Op is the operator of an InfoConstraint (mattn's type, with SQLite's values).
type Op uint8

// The operators, with mattn/go-sqlite3's names and (untyped, as there) declarations.
const (
	OpEQ         Op = 2
	OpGT            = 4
	OpLE            = 8
	OpLT            = 16
	OpGE            = 32
	OpMATCH         = 64
	OpLIKE          = 65  /* 3.10.0 and later only */
	OpGLOB          = 66  /* 3.10.0 and later only */
	OpREGEXP        = 67  /* 3.10.0 and later only */
	OpNE            = 68  /* 3.21.0 and later only */
	OpISNOT         = 69  /* 3.21.0 and later */
	OpISNOTNULL     = 70  /* 3.21.0 and later */
	OpISNULL        = 71  /* 3.21.0 and later */
	OpIS            = 72  /* 3.21.0 and later */
	OpLIMIT         = 73  /* 3.38.0 and later */
	OpOFFSET        = 74  /* 3.38.0 and later */
	OpFUNCTION      = 150 /* 3.25.0 and later */
	OpScanUnique    = 1   /* Scan visits at most 1 row */
)

// InfoConstraint is one constraint of a query on a virtual table, for VTab.BestIndex.
type InfoConstraint struct {
	Column int
	Op     Op
	Usable bool
}

// InfoOrderBy is one ORDER BY term, for VTab.BestIndex.
type InfoOrderBy struct {
	Column int
	Desc   bool
}

// IndexResult is the plan VTab.BestIndex chooses, as mattn/go-sqlite3 has it: each Used
// constraint that is usable becomes the next value of Filter's vals and is omitted from
// SQLite's own checks; IdxNum and IdxStr are handed to Filter as they are; AlreadyOrdered
// says that the rows come in the ORDER BY's order; EstimatedCost and EstimatedRows, when
// above 0, replace SQLite's defaults (EstimatedRows rounded down to an integer, at least 1).
// The driver keeps IdxStr itself, with the table (SQLite has no room for it in a batched
// module's plan), one copy per distinct plan.
type IndexResult struct {
	Used           []bool // aConstraintUsage
	IdxNum         int
	IdxStr         string
	AlreadyOrdered bool // orderByConsumed
	EstimatedCost  float64
	EstimatedRows  float64
}

// Module is a virtual table module (mattn/go-sqlite3's interface): Create makes a table for
// CREATE VIRTUAL TABLE, Connect connects to one that exists (a database reopened), and
// either must call SQLiteConn.DeclareVTab once. args are the module's name, the database's
// name, the table's name, and the arguments of USING module(...) as written.
type Module interface {
	Create(c *SQLiteConn, args []string) (VTab, error)
	Connect(c *SQLiteConn, args []string) (VTab, error)
	DestroyModule()
}

// EponymousOnlyModule is a Module whose name is itself the table (or table-valued
// function), without CREATE VIRTUAL TABLE; Connect makes it.
type EponymousOnlyModule interface {
	Module
	EponymousOnlyModule()
}

// VTab is a table of a Module.
type VTab interface {
	BestIndex([]InfoConstraint, []InfoOrderBy) (*IndexResult, error)
	Disconnect() error
	Destroy() error
	Open() (VTabCursor, error)
}

// VTabUpdater is a VTab that takes inserts, updates and deletes.
type VTabUpdater interface {
	Delete(any) error
	Insert(any, []any) (int64, error)
	Update(any, []any) error
}

// VTabCursor is a scan of a VTab.
type VTabCursor interface {
	Close() error
	Filter(idxNum int, idxStr string, vals []any) error
	Next() error
	EOF() bool
	Column(c *SQLiteContext, col int) error
	Rowid() (int64, error)
}

// SQLiteContext is where VTabCursor.Column sets the value of a column (mattn's type, with
// its Result methods). It holds the value until Column returns; the last one set wins, and
// a Column that sets none gives NULL.
type SQLiteContext struct {
	kind uint8
	i    int64
	f    float64
	s    string
	b    []byte
}

const (
	ctxNull uint8 = iota
	ctxInt
	ctxFloat
	ctxText
	ctxBlob
)

// ResultBool sets an INTEGER, 1 for true and 0 for false.
func (c *SQLiteContext) ResultBool(b bool) {
	if b {
		c.ResultInt(1)
	} else {
		c.ResultInt(0)
	}
}

// ResultBlob sets a BLOB (copied); a nil slice sets NULL.
func (c *SQLiteContext) ResultBlob(b []byte) {
	if b == nil {
		c.kind = ctxNull
		return
	}
	c.kind, c.b = ctxBlob, append(c.b[:0], b...)
}

// ResultDouble sets a REAL.
func (c *SQLiteContext) ResultDouble(d float64) { c.kind, c.f = ctxFloat, d }

// ResultInt sets an INTEGER.
func (c *SQLiteContext) ResultInt(i int) { c.kind, c.i = ctxInt, int64(i) }

// ResultInt64 sets an INTEGER.
func (c *SQLiteContext) ResultInt64(i int64) { c.kind, c.i = ctxInt, i }

// ResultNull sets NULL.
func (c *SQLiteContext) ResultNull() { c.kind = ctxNull }

// ResultText sets TEXT.
func (c *SQLiteContext) ResultText(s string) { c.kind, c.s = ctxText, s }

// ResultZeroblob sets a BLOB of n zero bytes.
func (c *SQLiteContext) ResultZeroblob(n int) {
	c.kind = ctxBlob
	c.b = append(c.b[:0], make([]byte, max(n, 0))...)
}

// write writes the value set into w.
func (c *SQLiteContext) write(w *sqlbatch.RowWriter) {
	switch c.kind {
	case ctxInt:
		w.Int64(c.i)
	case ctxFloat:
		w.Float64(c.f)
	case ctxText:
		w.Text(c.s)
		c.s = ""
	case ctxBlob:
		w.Blob(c.b[:len(c.b):len(c.b)])
	default:
		w.Null()
	}
}

// declaration is what DeclareVTab records during a Module's Create or Connect.
type declaration struct {
	sql  string
	done bool
}

// DeclareVTab declares the schema of the table a Module's Create or Connect makes, as
// mattn/go-sqlite3's does (a CREATE TABLE statement; see sqlite3_declare_vtab). Called
// elsewhere, or twice, it fails. SQLite reads the schema when Create or Connect returns, so
// a schema it refuses is the error of the CREATE VIRTUAL TABLE (or of the statement that
// connects the table) rather than of this call.
func (c *Conn) DeclareVTab(sql string) error {
	d := c.declaring
	switch {
	case d == nil:
		return &sqlbatch.Error{Code: sqlbatch.ErrMisuse, ExtendedCode: sqlbatch.ErrMisuse,
			Msg: "DeclareVTab outside a virtual table module's Create or Connect", Offset: -1,
			StatementIndex: -1, StatementOffset: -1, RowIndex: -1}
	case d.done:
		return &sqlbatch.Error{Code: sqlbatch.ErrMisuse, ExtendedCode: sqlbatch.ErrMisuse,
			Msg: "DeclareVTab called twice for one table", Offset: -1, StatementIndex: -1,
			StatementOffset: -1, RowIndex: -1}
	}
	d.sql, d.done = sql, true
	return nil
}

// CreateModule registers a virtual table module on the connection, as mattn/go-sqlite3's
// CreateModule does (an EponymousOnlyModule's name is a table without CREATE VIRTUAL TABLE).
// Call it from a ConnectHook, for every connection of a pool, or through sql.Conn.Raw.
//
// The module is served in batches: SQLite's calls for each row and each value are answered
// from a batch of up to 256 rows that a loop in Go filled, calling the cursor's EOF, Rowid,
// Column (for each column the query reads) and Next for each row, and handed over in one
// call. What differs from mattn/go-sqlite3, where SQLite calls each method when it needs it:
//
//   - The cursor is advanced ahead of SQLite by up to a batch: a query that stops early
//     (LIMIT, EXISTS, a join that finds what it needed, an error) has made the cursor read
//     rows it never uses. With a LIMIT (and OFFSET) that SQLite hands the table, the batch
//     stops there: the driver takes the LIMIT as a Filter argument of its own (not in vals,
//     unless BestIndex used it) for that.
//   - Rowid is called for every row, and Column for every column the query reads (SQLite's
//     colUsed) on every row, whether SQLite would ask or not (it calls xRowid only when the
//     query needs rowids); an error from them, or from Next, ends the statement after the
//     rows before it. The column of a constraint BestIndex used is read too, in case the
//     query also selects it, but a Column that fails or panics for it gives NULL (SQLite
//     reads such a column, a hidden argument column say, only when it is selected).
//   - DeclareVTab records the schema, which SQLite reads when Create or Connect returns (so
//     its error, for a schema SQLite refuses, is the statement's).
//   - Disconnect's and Destroy's errors are not reported: a DROP TABLE of the table succeeds
//     even when Destroy fails (mattn's keeps the table then).
//   - IndexResult: the plan's IdxStr is kept by the driver (per table, one copy per distinct
//     plan); EstimatedRows is rounded down to an integer of at least 1.
//   - A panic in a method ends the statement with its message (with mattn it crashes the
//     program).
func (c *Conn) CreateModule(moduleName string, module Module) error {
	if module == nil {
		return errors.New("sqlite3: CreateModule requires a non-nil module")
	}
	opts := sqlbatch.ModuleOptions{BatchRows: vtabBatchRows}
	_, opts.EponymousOnly = module.(EponymousOnlyModule)
	return c.c.CreateModule(moduleName, &mattnModule{c: c, name: moduleName, m: module}, opts)
}

// mattnModule serves a mattn-shaped Module as a batched sqlbatch.Module.
type mattnModule struct {
	c    *Conn
	name string
	m    Module
}

func (mm *mattnModule) Connect(_ *sqlbatch.Conn, args []string, create bool) (string, sqlbatch.VirtualTable, error) {
	d := &declaration{}
	prev := mm.c.declaring
	mm.c.declaring = d
	defer func() { mm.c.declaring = prev }()
	var vt VTab
	var err error
	if create {
		vt, err = mm.m.Create(mm.c, args)
	} else {
		vt, err = mm.m.Connect(mm.c, args)
	}
	if err != nil {
		return "", nil, err
	}
	if vt == nil {
		return "", nil, fmt.Errorf("virtual table module %s returned no table", mm.name)
	}
	if !d.done {
		_ = vt.Disconnect()
		return "", nil, fmt.Errorf("virtual table module %s did not declare its table (DeclareVTab)", mm.name)
	}
	return d.sql, &mattnTable{mod: mm, vt: vt, nCols: declaredColumns(d.sql)}, nil
}

func (mm *mattnModule) DestroyModule() { mm.m.DestroyModule() }

// mattnTable is a VTab served as a batched table. The plans BestIndex chose are kept here,
// each under the number handed to SQLite (and back to Filter) in place of the VTab's own.
type mattnTable struct {
	mod     *mattnModule
	vt      VTab
	nCols   int // the declared columns (0 if the schema could not be read)
	plans   []mattnPlan
	planIDs map[mattnPlan]int
}

// mattnPlan is a plan of the VTab and what the batches need to know of it.
type mattnPlan struct {
	idxNum int
	idxStr string
	used   uint64 // the columns the query reads (SQLite's colUsed)
	// maybe are the columns of the constraints the plan omits, which SQLite reads only if the
	// query reads them elsewhere too (a hidden argument column is usually not read at all).
	maybe uint64
	nArgs int // the arguments the VTab's Filter gets: the first ones
	// The driver's own arguments (after the VTab's) or the VTab's: where the LIMIT is and,
	// when SQLite skips the OFFSET's rows itself, where the OFFSET is (-1: none).
	limitArg, offsetArg int
}

func (t *mattnTable) BestIndex(ix *sqlbatch.IndexInfo) error {
	csts := make([]InfoConstraint, len(ix.Constraints))
	for i, c := range ix.Constraints {
		csts[i] = InfoConstraint{Column: c.Column, Op: Op(c.Op), Usable: c.Usable}
	}
	obs := make([]InfoOrderBy, len(ix.OrderBy))
	for i, o := range ix.OrderBy {
		obs[i] = InfoOrderBy{Column: o.Column, Desc: o.Desc}
	}
	res, err := t.vt.BestIndex(csts, obs)
	if err != nil {
		return err
	}
	if res == nil {
		return errors.New("BestIndex returned a nil IndexResult")
	}
	if len(res.Used) != len(csts) {
		return errors.New("Result.Used != expected value")
	}
	plan := mattnPlan{idxNum: res.IdxNum, idxStr: res.IdxStr, used: ix.ColumnsUsed, limitArg: -1, offsetArg: -1}
	next := 1
	offsetOmitted := false
	for i := range csts {
		// As mattn: a Used constraint that is not usable is ignored (SQLite would call the
		// plan a malfunction), and a used one is omitted from SQLite's checks.
		if !res.Used[i] || !csts[i].Usable {
			continue
		}
		ix.Constraints[i].ArgIndex, ix.Constraints[i].Omit = next, true
		if col := ix.Constraints[i].Column; col >= 0 {
			plan.maybe |= colBit(col)
		}
		switch ix.Constraints[i].Op {
		case sqlbatch.IndexLimit:
			plan.limitArg = next - 1
		case sqlbatch.IndexOffset:
			offsetOmitted = true // the VTab skips the OFFSET's rows: SQLite reads LIMIT rows
		}
		next++
	}
	plan.nArgs = next - 1
	// The LIMIT (and an OFFSET SQLite applies itself), as arguments of the driver's own, to
	// stop a batch where SQLite will stop reading.
	for i := range ix.Constraints {
		c := &ix.Constraints[i]
		if !c.Usable || c.ArgIndex != 0 {
			continue
		}
		switch {
		case c.Op == sqlbatch.IndexLimit && plan.limitArg < 0:
			c.ArgIndex, plan.limitArg = next, next-1
			next++
		case c.Op == sqlbatch.IndexOffset && !offsetOmitted && plan.offsetArg < 0:
			c.ArgIndex, plan.offsetArg = next, next-1
			next++
		}
	}
	ix.IdxNum = t.planID(plan)
	ix.OrderByConsumed = res.AlreadyOrdered
	if res.EstimatedCost > 0 {
		ix.EstimatedCost = res.EstimatedCost
	}
	if res.EstimatedRows > 0 {
		switch {
		case res.EstimatedRows >= math.MaxInt64:
			ix.EstimatedRows = math.MaxInt64
		case res.EstimatedRows < 1:
			ix.EstimatedRows = 1
		default:
			ix.EstimatedRows = int64(res.EstimatedRows)
		}
	}
	return nil
}

// colBit is column col's bit in SQLite's colUsed (bit 63 for column 63 and up).
func colBit(col int) uint64 { return 1 << min(col, 63) }

// planID is the number under which plan is kept (the same for the same plan).
func (t *mattnTable) planID(plan mattnPlan) int {
	if id, ok := t.planIDs[plan]; ok {
		return id
	}
	if t.planIDs == nil {
		t.planIDs = map[mattnPlan]int{}
	}
	t.plans = append(t.plans, plan)
	t.planIDs[plan] = len(t.plans) - 1
	return len(t.plans) - 1
}

func (t *mattnTable) Open() (sqlbatch.Cursor, error) {
	vc, err := t.vt.Open()
	if err != nil {
		return nil, err
	}
	if vc == nil {
		return nil, fmt.Errorf("virtual table of module %s returned no cursor", t.mod.name)
	}
	return &mattnCursor{t: t, vc: vc}, nil
}

func (t *mattnTable) Disconnect(destroy bool) {
	if destroy {
		_ = t.vt.Destroy()
	} else {
		_ = t.vt.Disconnect()
	}
}

// Update makes one change, as mattn/go-sqlite3's xUpdate does (including its errors).
func (t *mattnTable) Update(ch *sqlbatch.RowChange) (int64, error) {
	var tname string
	if n, ok := t.vt.(interface{ TableName() string }); ok {
		tname = n.TableName() + " "
	}
	u, ok := t.vt.(VTabUpdater)
	if !ok {
		return 0, fmt.Errorf("virtual %s table %sis read-only", t.mod.name, tname)
	}
	switch ch.Op {
	case sqlbatch.OpDelete:
		return 0, u.Delete(ch.OldRowID)
	case sqlbatch.OpInsert:
		return u.Insert(ch.NewRowID, ch.Values)
	}
	if ch.NewRowID != any(ch.OldRowID) {
		return 0, fmt.Errorf("virtual %s table %sdoes not support changing the rowid", t.mod.name, tname)
	}
	return 0, u.Update(ch.OldRowID, ch.Values)
}

// mattnCursor serves a VTabCursor in batches.
type mattnCursor struct {
	t    *mattnTable
	vc   VTabCursor
	plan mattnPlan
	// nCols is how many values each row carries (up to the last column the query reads).
	nCols int
	// left is how many more rows SQLite can read (the LIMIT), -1 without a bound.
	left int64
	// err is the error of the cursor met after a batch's rows: the next Fill reports it.
	err error
	ctx SQLiteContext
}

func (c *mattnCursor) Filter(idxNum int, args sqlbatch.FilterArgs) error {
	if idxNum < 0 || idxNum >= len(c.t.plans) {
		return fmt.Errorf("virtual table of module %s: no plan %d", c.t.mod.name, idxNum)
	}
	p := c.t.plans[idxNum]
	c.plan, c.err, c.left = p, nil, -1
	c.nCols = 1 // a query that reads no column still needs its rows
	if p.used != 0 {
		c.nCols = bits.Len64(p.used)
		if p.used&(1<<63) != 0 {
			c.nCols = max(c.nCols, c.t.nCols)
		}
		if c.t.nCols > 0 {
			c.nCols = max(min(c.nCols, c.t.nCols), 1)
		}
	}
	if p.limitArg >= 0 && p.limitArg < args.Len() && args.Type(p.limitArg) == sqlbatch.Integer {
		if lim := args.Int64(p.limitArg); lim >= 0 {
			var off int64
			if p.offsetArg >= 0 && p.offsetArg < args.Len() && args.Type(p.offsetArg) == sqlbatch.Integer {
				off = max(args.Int64(p.offsetArg), 0)
			}
			if lim <= math.MaxInt64-off {
				c.left = lim + off
			}
		}
	}
	vals := make([]any, min(p.nArgs, args.Len()))
	for i := range vals {
		vals[i] = args.Value(i)
	}
	return c.vc.Filter(p.idxNum, p.idxStr, vals)
}

func (c *mattnCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	if err := c.err; err != nil {
		c.err = nil
		return false, err
	}
	for !w.Full() {
		if c.left == 0 || c.vc.EOF() {
			return true, nil
		}
		if err := c.row(w); err != nil {
			w.DropRow()
			return c.fail(w, err)
		}
		if c.left > 0 {
			c.left--
		}
		if err := c.vc.Next(); err != nil {
			return c.fail(w, err)
		}
	}
	return c.left == 0 || c.vc.EOF(), nil
}

// row writes the cursor's current row.
func (c *mattnCursor) row(w *sqlbatch.RowWriter) error {
	rowid, err := c.vc.Rowid()
	if err != nil {
		return err
	}
	for col := range c.nCols {
		bit := colBit(col)
		c.ctx.kind = ctxNull
		switch {
		case c.plan.used&bit == 0:
		case c.plan.maybe&bit != 0:
			// A column of an omitted constraint, which SQLite may never read: a Column
			// that fails (or panics) for it gives NULL rather than ending the scan.
			if c.maybeColumn(col) != nil {
				c.ctx.kind = ctxNull
			}
		default:
			if err := c.vc.Column(&c.ctx, col); err != nil {
				return err
			}
		}
		c.ctx.write(w)
	}
	w.EndRowID(rowid)
	return nil
}

// maybeColumn calls Column for a column SQLite may not read, a panic being an error.
func (c *mattnCursor) maybeColumn(col int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return c.vc.Column(&c.ctx, col)
}

// fail reports err after the rows of the batch so far: at once if there are none.
func (c *mattnCursor) fail(w *sqlbatch.RowWriter, err error) (bool, error) {
	if w.Len() == 0 {
		return false, err
	}
	c.err = err
	return false, nil
}

func (c *mattnCursor) Close() { _ = c.vc.Close() }

// declaredColumns counts the columns of a CREATE TABLE statement (0 if it cannot tell): the
// items between its outermost parentheses that are not table constraints. Only a query that
// reads a column past the 63rd needs it.
func declaredColumns(sql string) int {
	depth, n, item := 0, 0, strings.Builder{}
	count := func() {
		f := strings.Fields(item.String())
		item.Reset()
		if len(f) == 0 {
			return
		}
		switch strings.ToUpper(f[0]) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			return
		}
		n++
	}
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch ch {
		case '\'', '"', '`', '[':
			end := ch
			if ch == '[' {
				end = ']'
			}
			j := strings.IndexByte(sql[i+1:], end)
			if j < 0 {
				return 0
			}
			if depth == 1 {
				item.WriteString(sql[i : i+j+2])
			}
			i += j + 1
			continue
		case '(':
			depth++
			if depth == 1 {
				continue
			}
		case ')':
			depth--
			if depth == 0 {
				count()
				return n
			}
		case ',':
			if depth == 1 {
				count()
				continue
			}
		}
		if depth >= 1 {
			item.WriteByte(ch)
		}
	}
	return 0
}
