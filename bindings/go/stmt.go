package sqlbatch

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// DefaultBatchRows is the number of rows a fetch asks for at most, unless changed with
// Stmt.SetBatchRows: enough to make the cost of the cgo call vanish per row, small enough
// that the batch's cells (16 bytes each) stay in the CPU's caches.
const DefaultBatchRows = 256

// DefaultBatchBytes bounds the cells plus TEXT and BLOB bytes of one batch, softly: a batch
// ends before the row that would take it over, but its first row always comes whole.
const DefaultBatchBytes = 1 << 20

// Column describes a result column of a statement.
type Column struct {
	// Name is the column's name (its AS name if given).
	Name string
	// DeclType is the declared type of the table column it reads, as written in CREATE
	// TABLE (e.g. "INTEGER", "DATETIME"); "" for an expression.
	DeclType string
	// Database, Table and Origin name the table column it reads; "" for an expression.
	Database, Table, Origin string
}

// Stmt is a prepared statement. Like its Conn, it is used by one goroutine at a time.
// Close it when done.
type Stmt struct {
	conn *Conn
	h    capi.Stmt
	sql  string
	// cols is the result columns as last read; colsFresh says no run can have recompiled the
	// statement since (SQLite recompiles a statement whose schema changed when it next steps
	// it, and the columns may change with it). colsReprep is the statement's count of
	// recompilations (SQLITE_STMTSTATUS_REPREPARE) when cols were read: the first fetch of a
	// run reads the count in the same call into C, and the columns are read again only if it
	// moved; after an Exec (colsCheck) Columns asks for the count itself.
	cols       []Column
	colsFresh  bool
	colsCheck  bool
	colsReprep int64
	colBytes   []capi.ColumnBytes
	// nparams is the parameter count, from the prepare call (-1 if it could not be read
	// then); params the names, nil until they are first needed (hasParams).
	nparams   int
	params    []string
	hasParams bool
	// stepped is set once the statement has been fetched since it was last reset or bound,
	// so that Query knows to rewind it.
	stepped   bool
	batchRows int
	// rows is the Rows handed out by Query, reused; made by the first Query (a statement only
	// run by Exec, as an ORM without a statement cache prepares it, never needs one).
	rows *Rows
	// chunk is the Go memory batches are fetched into (see Rows.fetchInto); bytes before
	// keep were handed out and stay as they are.
	chunk []byte
	keep  int
	// aheadOn is the statement's fetch-ahead setting (OpenFetchAhead, SetFetchAhead); ahead
	// says it is on and the statement is read-only, so that each fetch that returns rows
	// leaves the worker stepping the next batch (see Rows.fetch).
	aheadOn bool
	ahead   bool
	// pins keep the parameter memory of the write-behinds queued (start) in place until
	// their waits (ExecManyFunc): queued of them, the oldest's at pins[oldest].
	pins          [2]runtime.Pinner
	queued        int
	oldest        int
	noWriteBehind bool // SetWriteBehind(false)
	closed        bool
}

func newStmt(c *Conn, h capi.Stmt, sql string, nparams int) *Stmt {
	s := &Stmt{conn: c, h: h, sql: sql, batchRows: DefaultBatchRows, nparams: nparams}
	if c.aheadFlag {
		s.aheadOn = true
		s.ahead = s.Readonly()
	}
	return s
}

// SetFetchAhead turns fetch-ahead on or off for the statement (it starts with its
// connection's OpenFetchAhead), at any time, also in the middle of its rows.
//
// With it on, each fetch of a batch of rows (Rows.Next when the batch in hand is used up)
// hands the statement to the connection's worker, a native thread the library starts on first
// use (one per connection, ended by Close), which steps the next batch while this goroutine
// reads the current one: a row then costs the larger of SQLite's time and the caller's
// instead of their sum, at the price of a second core busy while both run. Nothing else
// changes: the rows, their order, the errors and where they come (the rows before a failing
// step first, then the error), Text, Blob and RawBytes and how long their memory lives, Close
// and Reset in the middle of the rows, and Conn.Interrupt (which stops the worker too) are
// as without it. Any other call on the connection or its statements waits for the worker
// first, so the connection is still used by one goroutine at a time.
//
// Only read-only statements fetch ahead (others ignore the setting). SQL functions,
// collations and the progress and busy handlers that the stepping runs may then run on the
// worker thread, while this goroutine runs Go code: they must not share unsynchronized state
// with the code that reads the rows. (A progress or busy handler that panics there is
// reported with the error it causes, after every row stepped before it; synchronously, the
// rows of the batch it stopped are dropped.) Worth it when the caller does real work per row and the
// batches hold hundreds of rows (SetBatchRows, DefaultBatchRows); for a query of one batch,
// or a caller that only counts rows, it only costs (a hand-over of a few microseconds per
// job of the worker; batches cut by their row count and small, under 64 KiB together, are
// stepped up to 16 at a time, so that a job outweighs its hand-over).
//
// For a query of Conn.Query, set it on the Rows' statement before the first Next:
// rows.Stmt().SetFetchAhead(true).
func (s *Stmt) SetFetchAhead(on bool) error {
	if s.closed {
		return errClosedStmt
	}
	if rc := s.h.SetFetchAhead(on); rc != capi.OK {
		return s.err(rc)
	}
	s.aheadOn = on
	s.ahead = on && s.Readonly()
	if s.ahead {
		s.conn.worker = true
	}
	return nil
}

// FetchAhead reports whether the statement fetches ahead: the setting is on and the
// statement is read-only.
func (s *Stmt) FetchAhead() bool { return s.ahead && !s.closed }

func (s *Stmt) err(rc int32) error { return s.conn.err(rc, s.sql) }

// errOne is the error of a single run (Exec, ExecParams), which goes through the bulk write
// of one row: the ABI's row index 0 of that row means nothing to the caller, so it is -1.
func (s *Stmt) errOne(rc int32) error {
	err := s.conn.err(rc, s.sql)
	var e *Error
	if errors.As(err, &e) {
		e.RowIndex = -1
	}
	return err
}

// Close finalizes the statement. Closing twice is a no-op. It works after the connection
// was closed.
func (s *Stmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.h.Finalize() // waits for the queued write-behinds and drops them
	s.h = capi.Stmt{}
	for ; s.queued > 0; s.queued-- {
		s.pins[s.oldest].Unpin()
		s.oldest = (s.oldest + 1) % len(s.pins)
	}
	s.chunk = nil
	return nil
}

// SQL returns the text of the statement as it was prepared.
func (s *Stmt) SQL() string { return s.sql }

// ExpandedSQL returns the text of the statement with its bound parameters written in as
// literals, for logging.
func (s *Stmt) ExpandedSQL() (string, error) {
	if s.closed {
		return "", errClosedStmt
	}
	sql, rc := s.h.ExpandedSQL()
	if rc != capi.OK {
		return "", s.err(rc)
	}
	return sql, nil
}

// SetBatchRows sets how many rows each fetch of the statement asks for (at least 1).
func (s *Stmt) SetBatchRows(n int) {
	if n < 1 {
		n = 1
	}
	s.batchRows = n
}

// Columns returns the result columns of the statement. The slice is cached and must not
// be modified.
//
// After a schema change SQLite recompiles a statement when it next runs it, which can change
// its columns (SELECT * of a table that gained a column, a column whose declared type
// changed): Columns says what the statement returns from the first Next (or Exec) of that
// run on. The same slice comes back as long as nothing changed.
func (s *Stmt) Columns() []Column {
	if s.closed {
		return s.cols
	}
	if s.colsFresh && s.colsCheck {
		s.colsCheck = false
		if n := s.h.Reprepares(); n < 0 || n != s.colsReprep {
			s.colsFresh = false
		}
	}
	if !s.colsFresh {
		s.refreshColumns()
	}
	return s.cols
}

// ranFirst records the recompilation count read by the first fetch of a run (or -1).
func (s *Stmt) ranFirst(reprepares int64) {
	s.colsCheck = false
	if reprepares < 0 || reprepares != s.colsReprep {
		s.colsFresh = false
	}
}

// refreshColumns reads the columns again, keeping s.cols (and its strings) where nothing
// changed, so that a statement run again and again does not allocate for them.
func (s *Stmt) refreshColumns() {
	s.colsReprep = s.h.Reprepares()
	cb, rc := s.h.ColumnsBytes(s.colBytes)
	s.colBytes = cb
	if rc != capi.OK {
		return
	}
	s.colsFresh = true
	same := len(cb) == len(s.cols) && s.cols != nil
	for i := 0; same && i < len(cb); i++ {
		c, o := &cb[i], &s.cols[i]
		same = string(c.Name) == o.Name && string(c.DeclType) == o.DeclType && string(c.Database) == o.Database &&
			string(c.Table) == o.Table && string(c.Origin) == o.Origin
	}
	if same {
		return
	}
	cols := make([]Column, len(cb))
	for i := range cb {
		cols[i] = Column{
			Name: string(cb[i].Name), DeclType: string(cb[i].DeclType), Database: string(cb[i].Database),
			Table: string(cb[i].Table), Origin: string(cb[i].Origin),
		}
	}
	s.cols = cols
}

// ColumnCount returns the number of result columns.
func (s *Stmt) ColumnCount() int { return len(s.Columns()) }

// ColumnNames returns the names of the result columns, in a new slice.
func (s *Stmt) ColumnNames() []string {
	cols := s.Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// ColumnNotNull reports whether result column i can never be NULL: notNull is true for a
// table column declared NOT NULL (or an INTEGER PRIMARY KEY); known is false for an
// expression, about which nothing is known. It looks up the schema on every call.
func (s *Stmt) ColumnNotNull(i int) (notNull, known bool) {
	if s.closed {
		return false, false
	}
	v, rc := s.h.ColumnNotNull(i)
	if rc != capi.OK || v < 0 {
		return false, false
	}
	return v == 1, true
}

func (s *Stmt) paramNames() []string {
	if !s.hasParams && !s.closed {
		names, rc := s.h.Params()
		if rc == capi.OK {
			s.params = names
			s.hasParams = true
		}
	}
	return s.params
}

// ParamCount returns the number of parameters: the largest parameter index ("?3" alone
// makes three). It is known from the prepare call: no call into C.
func (s *Stmt) ParamCount() int {
	if s.nparams < 0 {
		return len(s.paramNames())
	}
	return s.nparams
}

// ParamName returns the name of parameter i (from 1) with its prefix (":a", "@a", "$a",
// "?3"), or "" for a nameless "?" or an index out of range.
func (s *Stmt) ParamName(i int) string {
	names := s.paramNames()
	if i < 1 || i > len(names) {
		return ""
	}
	return names[i-1]
}

// ParamIndex returns the index (from 1) of the parameter called name, 0 if there is none:
// a name given with its prefix (":id", "@id", "$id", "?3") matches that spelling only, and
// one without ("id") matches ":id", else "@id", else "$id" (sqlbatch_stmt_param_index, the
// rule by which ExecScript and BindParams match names too). It calls into C each time.
func (s *Stmt) ParamIndex(name string) int {
	if s.closed {
		return 0
	}
	i, rc := s.h.ParamIndex(name)
	if rc != capi.OK {
		return 0
	}
	return i
}

// Readonly reports whether the statement makes no direct change to the database file.
func (s *Stmt) Readonly() bool {
	if s.closed {
		return false
	}
	b, _ := s.h.Readonly()
	return b
}

// encode lays out args in p for the statement's parameters: positional arguments in order,
// each NamedArg at the index of its name. It returns the values to bind, in index order.
func (s *Stmt) encode(p *Params, args []any) error {
	p.Reset()
	named := false
	for _, a := range args {
		if _, ok := a.(NamedArg); ok {
			named = true
			break
		}
	}
	if !named {
		return p.Append(args...)
	}
	// Place each value at its parameter's index: positional ones fill the nameless slots in
	// order, named ones go to their name.
	n := s.ParamCount()
	byIndex := make([]any, n)
	set := make([]bool, n)
	for _, a := range args {
		na, ok := a.(NamedArg)
		if !ok {
			continue
		}
		i := s.ParamIndex(na.Name)
		if i == 0 {
			return fmt.Errorf("sqlbatch: no parameter named %q in %q", na.Name, s.sql)
		}
		byIndex[i-1], set[i-1] = na.Value, true
	}
	next := 0
	for _, a := range args {
		if _, ok := a.(NamedArg); ok {
			continue
		}
		for next < n && set[next] {
			next++
		}
		if next == n {
			return errorf(ErrParamCount, fmt.Sprintf("too many parameter values for %q", s.sql))
		}
		byIndex[next], set[next] = a, true
	}
	return p.Append(byIndex...)
}

// Bind binds args to the parameters: positional values to parameters 1, 2, ... in order,
// and each NamedArg to the parameter of its name. All parameters are bound in one call
// into C; parameters not given are bound to NULL. The statement is rewound if it ran.
func (s *Stmt) Bind(args ...any) error {
	if s.closed {
		return errClosedStmt
	}
	p := &s.conn.scratch
	if err := s.encode(p, args); err != nil {
		return err
	}
	n := s.ParamCount()
	for p.Len() < n {
		p.Null()
	}
	return s.BindParams(p)
}

// BindParams binds the values of p in one call. Without names (Params.Named), p must hold
// exactly ParamCount values, bound to parameters 1, 2, ... With names, each named value goes
// to the parameter of its name (matched as ParamIndex does; ErrParamCount if there is none)
// and the other values, in order, to the remaining parameters, each of which must get one.
func (s *Stmt) BindParams(p *Params) error {
	if s.closed {
		return errClosedStmt
	}
	if p.err != nil {
		return p.err
	}
	if len(p.tables) > 0 {
		if p.names != nil {
			return errTablesNamed
		}
		refs, cells, data := p.tableParts()
		bindRC, rc, failed := s.h.BindTables(p.vals, p.data, refs, cells, data)
		if bindRC != capi.OK {
			return s.err(bindRC)
		}
		s.stepped = false
		if rc != capi.OK {
			return s.tableError(rc, p, failed)
		}
		return nil
	}
	if rc := s.h.Bind(p.vals, p.names, p.data); rc != capi.OK {
		return s.err(rc)
	}
	s.stepped = false
	return nil
}

// Reset rewinds the statement so that it runs again from the start, keeping its bindings.
func (s *Stmt) Reset() error {
	if s.closed {
		return errClosedStmt
	}
	if rc := s.h.Reset(); rc != capi.OK {
		return s.err(rc)
	}
	s.stepped = false
	return nil
}

// ClearBindings sets every parameter to NULL.
func (s *Stmt) ClearBindings() error {
	if s.closed {
		return errClosedStmt
	}
	if rc := s.h.ClearBindings(); rc != capi.OK {
		return s.err(rc)
	}
	return nil
}

// Query binds args (if any are given; otherwise the current bindings stay) and returns the
// statement's rows from the start. The Rows belongs to the statement: a new Query, Exec,
// Bind or Reset ends it, and it is reused, so Query allocates nothing.
func (s *Stmt) Query(args ...any) (*Rows, error) {
	if s.closed {
		return nil, errClosedStmt
	}
	if len(args) > 0 {
		if err := s.Bind(args...); err != nil {
			return nil, err
		}
	} else if s.stepped {
		if err := s.Reset(); err != nil {
			return nil, err
		}
	}
	r := s.newRows()
	*r = Rows{stmt: s}
	return r, nil
}

// QueryParams binds the values of p (as BindParams) and fetches the first batch of rows, in
// one call into C, and returns the rows positioned before it, as Query would. Query with
// arguments makes two calls, the bind and, in the first Next, the fetch; this is the shape
// for a statement run again and again with new values (a lookup by key), where one call fewer
// is a few percent of each run. The difference to Query: the statement runs its first step
// here, not in the first Next. Errors of the bind are returned here; an error of that first
// step comes from Next and Err, as with Query.
func (s *Stmt) QueryParams(p *Params) (*Rows, error) {
	if s.closed {
		return nil, errClosedStmt
	}
	if p.err != nil {
		return nil, p.err
	}
	var b capi.Batch
	var reprepares int64
	var rc int32
	if len(p.tables) > 0 {
		if p.names != nil {
			return nil, errTablesNamed
		}
		refs, cells, data := p.tableParts()
		var bindRC, tablesRC int32
		var failed int
		b, reprepares, bindRC, tablesRC, failed, rc = s.h.BindTablesFetchFirst(p.vals, p.data, refs, cells, data,
			s.batchRows, DefaultBatchBytes)
		if bindRC != capi.OK {
			return nil, s.err(bindRC)
		}
		if tablesRC != capi.OK {
			s.stepped = false
			return nil, s.tableError(tablesRC, p, failed)
		}
	} else {
		var bindRC int32
		b, reprepares, bindRC, rc = s.h.BindFetchFirst(p.vals, p.names, p.data, s.batchRows, DefaultBatchBytes)
		if bindRC != capi.OK {
			return nil, s.err(bindRC)
		}
	}
	s.ranFirst(reprepares)
	r := s.newRows()
	*r = Rows{stmt: s, first: b, firstRC: rc, hasFirst: true}
	s.stepped = true
	return r, nil
}

// newRows returns the statement's Rows, made on first use.
func (s *Stmt) newRows() *Rows {
	if s.rows == nil {
		s.rows = new(Rows)
	}
	return s.rows
}

// Result says what Stmt.Exec did.
type Result struct {
	// Changes is the number of rows the statement inserted, updated or deleted.
	Changes int64
	// LastInsertRowID is the rowid of the most recent successful INSERT on the connection.
	LastInsertRowID int64
}

// Exec binds args and runs the statement to completion, discarding any rows, in one call
// into C.
func (s *Stmt) Exec(args ...any) (Result, error) {
	if s.closed {
		return Result{}, errClosedStmt
	}
	p := &s.conn.scratch
	if err := s.encode(p, args); err != nil {
		return Result{}, err
	}
	if n := s.ParamCount(); p.Len() < n && hasNamed(args) {
		for p.Len() < n {
			p.Null()
		}
	}
	if len(p.tables) > 0 {
		return s.execTables(p)
	}
	r, rc := s.h.ExecuteMany(p.vals, nil, 1, p.data)
	s.stepped, s.colsCheck = false, true
	if rc != capi.OK {
		return Result{}, s.errOne(rc)
	}
	return Result{Changes: r.Changes, LastInsertRowID: r.LastInsertRowID}, s.conn.takePanic(nil)
}

// ExecParams runs the statement once with the values of p bound to parameters 1, 2, ...
// (p must hold exactly ParamCount values, without names: ErrInvalidArgument), in one call
// into C.
func (s *Stmt) ExecParams(p *Params) (Result, error) {
	if s.closed {
		return Result{}, errClosedStmt
	}
	if p.err != nil {
		return Result{}, p.err
	}
	if len(p.tables) > 0 {
		if p.names != nil {
			return Result{}, errTablesNamed
		}
		return s.execTables(p)
	}
	r, rc := s.h.ExecuteMany(p.vals, p.names, 1, p.data)
	s.stepped, s.colsCheck = false, true
	if rc != capi.OK {
		return Result{}, s.errOne(rc)
	}
	return Result{Changes: r.Changes, LastInsertRowID: r.LastInsertRowID}, s.conn.takePanic(nil)
}

// execTables runs the statement once with the values of p, which holds table values: the
// bind, the tables and the run in one call into C (sqlbatch_stmt_execute_many binds every
// parameter of each row itself, which would replace the tables).
func (s *Stmt) execTables(p *Params) (Result, error) {
	refs, cells, data := p.tableParts()
	changes, last, bindRC, tablesRC, failed, rc := s.h.BindTablesExec(s.conn.h, p.vals, p.data, refs, cells, data)
	s.stepped, s.colsCheck = false, true
	switch {
	case bindRC != capi.OK:
		return Result{}, s.errOne(bindRC)
	case tablesRC != capi.OK:
		return Result{}, s.tableError(tablesRC, p, failed)
	case rc != capi.OK:
		return Result{}, s.errOne(rc)
	}
	return Result{Changes: changes, LastInsertRowID: last}, s.conn.takePanic(nil)
}

func hasNamed(args []any) bool {
	for _, a := range args {
		if _, ok := a.(NamedArg); ok {
			return true
		}
	}
	return false
}

// WriteResult says what Stmt.ExecMany did.
type WriteResult struct {
	// Rows is the number of parameter rows that ran to completion; after a failure, the
	// index of the row that failed.
	Rows int
	// Changes is the number of rows inserted, updated or deleted, summed over the runs.
	Changes int64
	// LastInsertRowID is the rowid of the most recent successful INSERT after the call.
	LastInsertRowID int64
}

// ExecMany runs the statement once per row of parameter values in p, all in one call into
// C: the bulk insert. p holds the rows one after another, ParamCount values each, bound by
// position (values with names are ErrInvalidArgument).
//
// ExecMany opens no transaction: wrap it in BEGIN and COMMIT, for speed and so that a
// failure leaves nothing half-written. On failure the rows before the failing one have run,
// and the *Error's RowIndex (and the result's Rows) give the failing row.
func (s *Stmt) ExecMany(p *Params) (WriteResult, error) {
	if s.closed {
		return WriteResult{}, errClosedStmt
	}
	if p.err != nil {
		return WriteResult{}, p.err
	}
	if len(p.tables) > 0 {
		return WriteResult{}, errTablesMany
	}
	n := s.ParamCount()
	if n == 0 {
		return WriteResult{}, errorf(ErrParamCount, "ExecMany needs a statement with parameters")
	}
	if p.Len()%n != 0 {
		return WriteResult{}, errorf(ErrParamCount,
			fmt.Sprintf("%d values do not make whole rows of %d parameters", p.Len(), n))
	}
	r, rc := s.h.ExecuteMany(p.vals, p.names, p.Len()/n, p.data)
	s.stepped, s.colsCheck = false, true
	res := WriteResult{Rows: int(r.Rows), Changes: r.Changes, LastInsertRowID: r.LastInsertRowID}
	if rc != capi.OK {
		return res, s.err(rc)
	}
	return res, s.conn.takePanic(nil)
}

// SetWriteBehind turns write-behind on or off for ExecManyFunc on this statement (on by
// default; it has no effect on ExecMany, which writes one batch it is given whole).
func (s *Stmt) SetWriteBehind(on bool) { s.noWriteBehind = !on }

// ExecManyFunc is the bulk write of a stream of rows, batch by batch: it calls fill with an
// empty Params to append the next batch of rows (ParamCount values each, as for ExecMany),
// and runs the statement for each row of it, until fill appends no rows or returns an error.
// Batches of a few thousand rows suit it.
//
// With write-behind (on unless SetWriteBehind(false)), the rows of batches k and k+1 are
// written by the connection's worker thread, one after the other, while fill builds batch
// k+2 in a third Params: a bulk load then costs the larger of SQLite's time and the caller's
// instead of their sum, at the price of a second core busy while both run. The three Params
// are kept in place (pinned) while the worker reads them; fill gets each of them in turn,
// emptied, and must not keep them.
//
// The result is that of the synchronous loop (ExecMany on each batch in turn, then fill
// again), with or without write-behind: Rows counts every row run (on failure, the index
// from the first row of the first batch of the row that failed, as the *Error's RowIndex
// says), Changes is summed, LastInsertRowID is the connection's after the last row run; the
// first error stops it, a write error before fill's error (a write that fails ends the load
// with its error even if fill failed meanwhile). With write-behind, fill may have been
// called up to twice more, for the batches after the one that failed, whose rows are not
// written. Functions and hooks that the rows run (an update hook, a change feed, a commit
// hook) may run on the worker thread meanwhile, concurrently with fill.
//
// Like ExecMany it opens no transaction: wrap it in BEGIN and COMMIT.
func (s *Stmt) ExecManyFunc(fill func(p *Params) error) (WriteResult, error) {
	if s.closed {
		return WriteResult{}, errClosedStmt
	}
	n := s.ParamCount()
	if n == 0 {
		return WriteResult{}, errorf(ErrParamCount, "ExecManyFunc needs a statement with parameters")
	}
	var bufs [3]Params
	var total WriteResult
	next := func(p *Params) (rows int, err error) {
		p.Reset()
		if err := fill(p); err != nil {
			return 0, err
		}
		if p.err != nil {
			return 0, p.err
		}
		if len(p.tables) > 0 {
			return 0, errTablesMany
		}
		if p.Len()%n != 0 {
			return 0, errorf(ErrParamCount,
				fmt.Sprintf("%d values do not make whole rows of %d parameters", p.Len(), n))
		}
		return p.Len() / n, nil
	}
	// add counts a batch's result in total; on failure it moves the *Error's row index
	// from the batch's rows to the whole load's.
	add := func(r WriteResult, err error) error {
		base := total.Rows
		total.Rows += r.Rows
		total.Changes += r.Changes
		total.LastInsertRowID = r.LastInsertRowID
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.RowIndex >= 0 {
				e.RowIndex += base
			}
		}
		return err
	}
	if s.noWriteBehind {
		for {
			rows, err := next(&bufs[0])
			if err != nil || rows == 0 {
				return total, err
			}
			if err := add(s.ExecMany(&bufs[0])); err != nil {
				return total, err
			}
		}
	}
	// drain waits for the writes still queued; a write's error comes first (the writes
	// queued behind a failed one did not run: their SkippedWrite errors are dropped).
	drain := func(err error) error {
		for s.queued > 0 {
			r, werr := s.wait()
			if err == nil {
				err = add(r, werr)
			}
		}
		return err
	}
	defer drain(nil) // fill panicked while batches were written: wait for them, unpin
	for k := 0; ; k = (k + 1) % len(bufs) {
		rows, err := next(&bufs[k]) // while the worker writes the two before
		if err != nil || rows == 0 {
			if werr := drain(nil); werr != nil {
				return total, werr
			}
			return total, err
		}
		if s.queued == len(s.pins) {
			if err := add(s.wait()); err != nil {
				return total, drain(err)
			}
		}
		if err := s.start(&bufs[k], rows); err != nil {
			if werr := drain(nil); werr != nil { // a write's error comes first
				return total, werr
			}
			return total, err
		}
	}
}

// start queues the write of the rows of p (write-behind) behind at most one other, pinning
// p's arrays until its wait.
func (s *Stmt) start(p *Params, rows int) error {
	if s.closed {
		return errClosedStmt
	}
	pin := &s.pins[(s.oldest+s.queued)%len(s.pins)]
	if len(p.vals) > 0 {
		pin.Pin(&p.vals[0])
	}
	if len(p.data) > 0 {
		pin.Pin(&p.data[0])
	}
	s.conn.worker = true
	s.stepped, s.colsCheck = false, true
	if rc := s.h.ExecuteManyStart(p.vals, p.names, rows, p.data); rc != capi.OK {
		pin.Unpin()
		return s.err(rc)
	}
	s.queued++
	return nil
}

// wait waits for the oldest write start queued and reports it as ExecMany would.
func (s *Stmt) wait() (WriteResult, error) {
	if s.queued == 0 {
		return WriteResult{}, errClosedStmt // Close (from fill) waited for it and dropped it
	}
	s.queued--
	r, rc := s.h.ExecuteManyWait()
	s.pins[s.oldest].Unpin()
	s.oldest = (s.oldest + 1) % len(s.pins)
	res := WriteResult{Rows: int(r.Rows), Changes: r.Changes, LastInsertRowID: r.LastInsertRowID}
	if rc != capi.OK {
		return res, s.err(rc)
	}
	if s.queued > 0 {
		// The write behind this one may be running hooks on the worker, which record their
		// panics in the connection: they are taken at the last wait, with the worker idle.
		return res, nil
	}
	return res, s.conn.takePanic(nil)
}
