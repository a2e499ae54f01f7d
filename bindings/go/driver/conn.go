package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Conn is a connection of the database/sql driver. database/sql uses it through the
// driver interfaces; reach it from your code through sql.Conn.Raw to use what database/sql
// has no words for, such as the bulk write:
//
//	conn, err := db.Conn(ctx)
//	if err != nil {
//		return err
//	}
//	defer conn.Close()
//	err = conn.Raw(func(dc any) error {
//		_, err := dc.(*driver.Conn).ExecMany(ctx, "INSERT INTO t VALUES (?, ?)", &params)
//		return err
//	})
type Conn struct {
	c      *sqlbatch.Conn
	cfg    *Config
	params sqlbatch.Params // argument encoding, reused (a connection is used by one goroutine at a time)
	slots  []int           // encodeFor's argument of each parameter, reused
	cache  *stmtCache      // recent statements of Query and Exec; nil if turned off
	// inTx is set between BeginTx and the end of its transaction.
	inTx bool
	// queryOnlySet is set while a read-only transaction has PRAGMA query_only on.
	queryOnlySet bool
	bad          bool
	closed       bool
	// declaring is the table a virtual table module's Create or Connect is making
	// (DeclareVTab records its schema there); nil outside them.
	declaring *declaration
}

var (
	_ driver.Conn               = (*Conn)(nil)
	_ driver.ConnBeginTx        = (*Conn)(nil)
	_ driver.ConnPrepareContext = (*Conn)(nil)
	_ driver.ExecerContext      = (*Conn)(nil)
	_ driver.QueryerContext     = (*Conn)(nil)
	_ driver.NamedValueChecker  = (*Conn)(nil)
	_ driver.SessionResetter    = (*Conn)(nil)
	_ driver.Validator          = (*Conn)(nil)
	_ driver.Pinger             = (*Conn)(nil)
)

// Raw returns the low-level connection, to use inside sql.Conn.Raw's callback only: it
// belongs to database/sql's pool, so it must not be kept, closed, or used after the
// callback returns.
func (c *Conn) Raw() *sqlbatch.Conn { return c.c }

// Close closes the connection (database/sql calls it; do not call it from Raw). Called
// from inside one of the connection's hooks, it returns sqlbatch.ErrMisuse and changes
// nothing. A *sqlbatch.HookPanicError (a trace callback that panicked at TraceClose) comes
// back with the connection closed.
func (c *Conn) Close() error {
	// The low-level Close first: it is the one that refuses inside a hook. It finalizes the
	// cached statements too; closing them afterwards releases their handles.
	err := c.c.Close()
	var hp *sqlbatch.HookPanicError
	if err != nil && !errors.As(err, &hp) {
		return err
	}
	c.closed = true
	c.cache.closeAll()
	return err
}

// watch arranges for ctx's cancellation to interrupt the SQL running on c, until the
// returned function is called; that function waits for the interrupting to stop, so that
// no interrupt reaches the connection after it returns.
//
// Once ctx is done, the connection is interrupted again every millisecond until the call
// returns. sqlbatch keeps an interrupt across the statements of a script and the rows of a
// bulk write, but, like SQLite, ignores one that arrives before a call starts; cancellation
// can land in that window (after the call was decided on, before it entered C), and the
// repetition makes sure the call still stops.
func (c *Conn) watch(ctx context.Context) func() {
	if ctx.Done() == nil {
		return nop
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			c.c.Interrupt()
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	})
	return func() {
		if !stop() {
			close(quit)
			<-done
		}
	}
}

func nop() {}

// ctxErr makes the error of a call that ctx may have interrupted match both ctx's error
// (context.Canceled or context.DeadlineExceeded) and the *sqlbatch.Error.
func ctxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, sqlbatch.ErrInterrupt) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// CheckNamedValue accepts the types the driver binds natively and converts the other
// integer and float types, sparing database/sql's reflection-based converter; everything
// else (driver.Valuer, pointers, named types) goes to database/sql's default converter. A
// table value (sqlbatch.Array, sqlbatch.Table) is accepted as it is, once its columns are
// checked: a whole table bound to one parameter.
func (c *Conn) CheckNamedValue(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case nil, int64, float64, string, []byte, bool, time.Time:
		return nil
	case sqlbatch.TableValue:
		return v.Err()
	case int:
		nv.Value = int64(v)
	case int32:
		nv.Value = int64(v)
	case int16:
		nv.Value = int64(v)
	case int8:
		nv.Value = int64(v)
	case uint32:
		nv.Value = int64(v)
	case uint16:
		nv.Value = int64(v)
	case uint8:
		nv.Value = int64(v)
	case uint:
		if uint64(v) > math.MaxInt64 {
			return fmt.Errorf("uint value %d does not fit in an INTEGER", v)
		}
		nv.Value = int64(v)
	case uint64:
		if v > math.MaxInt64 {
			return fmt.Errorf("uint64 value %d does not fit in an INTEGER", v)
		}
		nv.Value = int64(v)
	case float32:
		nv.Value = float64(v)
	default:
		return driver.ErrSkip
	}
	return nil
}

// encodeAll lays out every argument in order, named ones under their names: the form
// sqlbatch.Conn.ExecScriptParams takes for a script.
func (c *Conn) encodeAll(args []driver.NamedValue) (*sqlbatch.Params, error) {
	p := &c.params
	p.Reset()
	for i := range args {
		if args[i].Name != "" {
			p.Named(args[i].Name)
		}
		if err := p.Any(args[i].Value); err != nil {
			return nil, err
		}
	}
	return p, p.Err()
}

// encodeFor lays out the values for the parameters of s, in index order: each named
// argument (sql.Named("id", v)) goes to the parameter sqlbatch finds for its name
// (Stmt.ParamIndex: ":id", else "@id", else "$id"; a name s does not have is left for the
// other statements of a script, or unused, as with mattn/go-sqlite3), and the other
// parameters take positional arguments in order from args[start]. It returns the number of
// positional arguments used.
func (c *Conn) encodeFor(s *sqlbatch.Stmt, args []driver.NamedValue, start int) (*sqlbatch.Params, int, error) {
	p := &c.params
	p.Reset()
	n := s.ParamCount()
	slots := c.slots[:0]
	for range n {
		slots = append(slots, -1)
	}
	c.slots = slots
	for i := range args {
		if args[i].Name == "" {
			continue
		}
		if k := s.ParamIndex(args[i].Name); k > 0 && slots[k-1] < 0 {
			slots[k-1] = i
		}
	}
	next := start
	for k := range slots {
		if slots[k] >= 0 {
			continue
		}
		for next < len(args) && args[next].Name != "" {
			next++
		}
		if next >= len(args) {
			return nil, 0, fmt.Errorf("sqlbatch: not enough arguments for %q: want %d", s.SQL(), n)
		}
		slots[k] = next
		next++
	}
	for _, i := range slots {
		if err := p.Any(args[i].Value); err != nil {
			return nil, 0, err
		}
	}
	return p, next - start, p.Err()
}

// prepareOne prepares query if it holds a single statement (sqlbatch checks it:
// sqlbatch.PrepareSingle); for SQL holding several, it returns single false and no error.
func (c *Conn) prepareOne(query string, flags sqlbatch.PrepareFlags) (s *sqlbatch.Stmt, single bool, err error) {
	s, _, err = c.c.PrepareTail(query, flags|sqlbatch.PrepareSingle)
	if err != nil {
		if errors.Is(err, sqlbatch.ErrMultipleStatements) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return s, true, nil
}

func hasTable(args []driver.NamedValue) bool {
	for i := range args {
		if _, ok := args[i].Value.(sqlbatch.TableValue); ok {
			return true
		}
	}
	return false
}

func positionalLeft(args []driver.NamedValue, from int) bool {
	for i := from; i < len(args); i++ {
		if args[i].Name == "" {
			return true
		}
	}
	return false
}

type result struct {
	lastID, changes int64
}

func (r result) LastInsertId() (int64, error) { return r.lastID, nil }
func (r result) RowsAffected() (int64, error) { return r.changes, nil }

// ExecContext runs query, which may hold many statements, with its arguments, in one call
// into C (sqlbatch.Conn.ExecScriptParams). Positional arguments are consumed in order
// across the statements; named ones go to every parameter of their name. RowsAffected is
// summed over the statements. A single statement is kept in the connection's statement
// cache and run from there the next time (also in one call into C).
func (c *Conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.cache.cacheable(query) {
		e := c.cache.get(query)
		if e == nil {
			// Learn whether query is one statement. A text that does not compile goes to
			// the script path below, which reports the error as it always does.
			if s, _, err := c.prepareOne(query, sqlbatch.PreparePersistent); err == nil {
				e = c.cache.put(query, s) // s is nil for a script
			}
		}
		if e != nil && e.s != nil && !e.busy {
			return c.execStmt(ctx, e.s, query, args)
		}
	}
	if hasTable(args) {
		// A table value binds one statement, prepared here (the script path binds by name).
		s, single, err := c.prepareOne(query, 0)
		if err != nil {
			return nil, err
		}
		if !single {
			return nil, errors.New("sqlbatch: a table value (sqlbatch.Array, sqlbatch.Table) binds a single statement, not a script")
		}
		defer s.Close()
		return c.execStmt(ctx, s, query, args)
	}
	p, err := c.encodeAll(args)
	if err != nil {
		return nil, err
	}
	stop := c.watch(ctx)
	r, err := c.c.ExecScriptParams(query, p)
	stop()
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	return result{lastID: r.LastInsertRowID, changes: r.Changes}, nil
}

// execStmt binds args to the single statement s and runs it, in one call into C.
func (c *Conn) execStmt(ctx context.Context, s *sqlbatch.Stmt, query string, args []driver.NamedValue) (driver.Result, error) {
	p, used, err := c.encodeFor(s, args, 0)
	if err != nil {
		return nil, err
	}
	if positionalLeft(args, used) {
		return nil, &sqlbatch.Error{Code: sqlbatch.ErrParamCount, ExtendedCode: sqlbatch.ErrParamCount,
			Msg: "too many arguments", Offset: -1, StatementIndex: -1, StatementOffset: -1, RowIndex: -1, Query: query}
	}
	stop := c.watch(ctx)
	r, err := s.ExecParams(p)
	stop()
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	return result{lastID: r.LastInsertRowID, changes: r.Changes}, nil
}

// QueryContext prepares and runs query and returns its rows. If query holds several
// statements, the ones before the last are run to completion first (as mattn/go-sqlite3
// does), each taking its share of the positional arguments, and the rows are the last one's.
// A single statement is kept in the connection's statement cache and reused from there.
func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e := c.cache.get(query); e != nil && e.s != nil && !e.busy {
		return c.queryStmt(ctx, e.s, query, args, 0, &e.held)
	}
	start := 0
	for first := true; ; first = false {
		flags := sqlbatch.PrepareFlags(0)
		if first && c.cache.cacheable(query) {
			flags = sqlbatch.PreparePersistent
		}
		s, single, err := c.prepareOne(query, flags)
		if err != nil {
			return nil, err
		}
		if single {
			var h *held
			if first && c.cache.cacheable(query) {
				if e := c.cache.get(query); e == nil || !e.busy {
					h = &c.cache.put(query, s).held
				}
			}
			return c.queryStmt(ctx, s, query, args, start, h)
		}
		// Not the last statement: prepare it again, without PrepareSingle, to run it with
		// its share of the arguments (the rare path of a multi-statement Query).
		s, tail, err := c.c.PrepareTail(query, 0)
		if err != nil {
			return nil, err
		}
		p, used, err := c.encodeFor(s, args, start)
		if err != nil {
			s.Close()
			return nil, err
		}
		start += used
		stop := c.watch(ctx)
		_, err = s.ExecParams(p)
		stop()
		s.Close()
		if err != nil {
			return nil, ctxErr(ctx, err)
		}
		query = tail
	}
}

// queryStmt binds the arguments from args[start] on to s and returns its rows. h is the
// held statement s belongs to, or nil if the rows are to finalize s.
func (c *Conn) queryStmt(ctx context.Context, s *sqlbatch.Stmt, query string, args []driver.NamedValue, start int, h *held) (driver.Rows, error) {
	fail := func(err error) (driver.Rows, error) {
		if h == nil {
			s.Close()
		}
		return nil, err
	}
	p, used, err := c.encodeFor(s, args, start)
	if err != nil {
		return fail(err)
	}
	if positionalLeft(args, start+used) {
		return fail(fmt.Errorf("sqlbatch: too many arguments for %q", query))
	}
	if s.ParamCount() == 0 {
		p = nil
	}
	return c.newRows(ctx, s, h, p)
}

// PrepareContext prepares query. A query holding several statements makes a statement
// whose Exec runs them all as a script and whose Query runs them as QueryContext does.
//
// The statement is prepared without sqlbatch.PreparePersistent (SQLITE_PREPARE_PERSISTENT),
// which the statement cache's statements get: a *sql.Stmt is as often prepared, run once and
// closed (an ORM without a statement cache) as kept, and the flag keeps SQLite from taking
// the statement's memory from its lookaside allocator, which costs a prepare, exec and
// finalize 16% more instructions (docs/go.md, "How rows reach Go"). A statement kept
// for long without it holds lookaside slots that other statements then allocate without.
func (c *Conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, single, err := c.prepareOne(query, 0)
	if err != nil {
		return nil, err
	}
	// A script holds no statement: its Exec and Query run the text (s is nil).
	return &stmt{held: held{s: s}, conn: c, query: query, script: !single}, nil
}

// Prepare is PrepareContext without a context.
func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// BeginTx begins a transaction with the DSN's _txlock statement (BEGIN by default).
// SQLite's transactions are serializable, so every isolation level up to
// sql.LevelSerializable is accepted (and given serializable isolation);
// sql.LevelLinearizable is refused. A read-only transaction also turns PRAGMA query_only on
// until it ends, so that writing in it fails with ErrReadOnly.
func (c *Conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault, sql.LevelReadUncommitted, sql.LevelReadCommitted, sql.LevelWriteCommitted,
		sql.LevelRepeatableRead, sql.LevelSnapshot, sql.LevelSerializable:
	default:
		return nil, fmt.Errorf("sqlbatch: isolation level %v is not supported", sql.IsolationLevel(opts.Isolation))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	script := c.cfg.TxLock
	if opts.ReadOnly && !c.cfg.QueryOnly {
		script += "; PRAGMA query_only = 1"
	}
	// Set before the script runs: a flag pragma acts when it is prepared, so an interrupt
	// that stops the script after it may leave query_only on, and endTx must turn it off.
	c.queryOnlySet = opts.ReadOnly && !c.cfg.QueryOnly
	stop := c.watch(ctx)
	_, err := c.c.ExecScript(script)
	stop()
	if err != nil {
		if c.endTx() != nil {
			// The connection may be left in a transaction or read-only: never reuse it.
			c.bad = true
		}
		return nil, ctxErr(ctx, err)
	}
	c.inTx = true
	return &tx{c: c}, nil
}

// Begin is BeginTx with default options.
func (c *Conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// endTx leaves the connection outside any transaction: it rolls back one left open (a
// failed COMMIT, a BEGIN run with Exec) and turns query_only back off after a read-only
// transaction.
func (c *Conn) endTx() error {
	var err error
	if !c.c.Autocommit() {
		_, err = c.c.ExecScript("ROLLBACK")
	}
	if c.queryOnlySet {
		if _, qerr := c.c.ExecScript("PRAGMA query_only = 0"); qerr != nil && err == nil {
			err = qerr
		}
		c.queryOnlySet = false
	}
	c.inTx = false
	return err
}

// Ping reports whether the connection is open.
func (c *Conn) Ping(ctx context.Context) error {
	if c.closed || c.bad {
		return driver.ErrBadConn
	}
	return ctx.Err()
}

// ResetSession runs before database/sql hands the connection to a new user: a transaction
// left open outside database/sql's Tx (a BEGIN run with Exec) is rolled back, so that it
// never leaks to the next user.
func (c *Conn) ResetSession(ctx context.Context) error {
	if c.closed || c.bad || c.c.ActiveBackups() != 0 {
		return driver.ErrBadConn
	}
	if c.inTx {
		return nil
	}
	if !c.c.Autocommit() || c.queryOnlySet {
		if err := c.endTx(); err != nil {
			c.bad = true
			return driver.ErrBadConn
		}
	}
	return nil
}

// IsValid reports whether the connection can go back to the pool: not while a backup that
// uses it is unfinished (its destination refuses every call until then, and a step would use
// it from another goroutine), so the pool closes such a connection, which ends the backup.
func (c *Conn) IsValid() bool { return !c.closed && !c.bad && c.c.ActiveBackups() == 0 }

// ExecMany runs query (one statement) once per row of parameter values in p, in one call
// into C: the bulk insert. Cancelling ctx interrupts it. See sqlbatch.Stmt.ExecMany; fill p
// with sqlbatch.Params.AppendColumns when the rows are in slices, a column each.
//
// The statement is kept in the connection's statement cache, so that a bulk insert made of
// many ExecMany calls (a few thousand rows each) prepares it once.
func (c *Conn) ExecMany(ctx context.Context, query string, p *sqlbatch.Params) (sqlbatch.WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return sqlbatch.WriteResult{}, err
	}
	s, owned, err := c.bulkStmt(query)
	if err != nil {
		return sqlbatch.WriteResult{}, err
	}
	if owned {
		defer s.Close()
	}
	stop := c.watch(ctx)
	r, err := s.ExecMany(p)
	stop()
	return r, ctxErr(ctx, err)
}

// ExecManyFunc runs query (one statement) for a stream of rows, batch by batch: fill
// appends the next batch (a few thousand rows, ParamCount values each) to the empty Params
// it is given, until it appends none or returns an error; see sqlbatch.Stmt.ExecManyFunc.
// With write-behind (on by default), the connection's worker thread inserts batch k while
// fill builds batch k+1; the result and the errors are those of calling ExecMany once per
// batch (the failing row's RowIndex counted from the first row of the first batch).
// Cancelling ctx interrupts the write in progress, and ends the load before the next fill.
// Like ExecMany it keeps the statement in the statement cache and opens no transaction.
//
//	err := conn.Raw(func(dc any) error {
//		next := 0
//		_, err := dc.(*driver.Conn).ExecManyFunc(ctx, "INSERT INTO t VALUES (?, ?)", func(p *sqlbatch.Params) error {
//			j := min(next+4096, len(ids))
//			err := p.AppendColumns(ids[next:j], names[next:j])
//			next = j
//			return err
//		})
//		return err
//	})
func (c *Conn) ExecManyFunc(ctx context.Context, query string, fill func(p *sqlbatch.Params) error) (sqlbatch.WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return sqlbatch.WriteResult{}, err
	}
	s, owned, err := c.bulkStmt(query)
	if err != nil {
		return sqlbatch.WriteResult{}, err
	}
	if owned {
		defer s.Close()
	}
	stop := c.watch(ctx)
	r, err := s.ExecManyFunc(func(p *sqlbatch.Params) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fill(p)
	})
	stop()
	return r, ctxErr(ctx, err)
}

// bulkStmt returns the statement of query for ExecMany: the one in the statement cache
// (prepared and put there if missing), or, when the cache cannot serve it (the cache is off,
// query is too long, holds several statements, or its cached statement has open rows), one
// prepared for this call, which the caller closes (owned).
func (c *Conn) bulkStmt(query string) (s *sqlbatch.Stmt, owned bool, err error) {
	if c.cache.cacheable(query) {
		e := c.cache.get(query)
		if e == nil {
			s, _, err := c.prepareOne(query, sqlbatch.PreparePersistent)
			if err != nil {
				return nil, false, err
			}
			e = c.cache.put(query, s) // s is nil for a script
		}
		if e.s != nil && !e.busy {
			return e.s, false, nil
		}
	}
	s, err = c.c.Prepare(query)
	return s, true, err
}

type tx struct{ c *Conn }

// Commit commits the transaction. If COMMIT fails the transaction is rolled back, so that
// the connection is clean for its next user.
func (t *tx) Commit() error {
	c := t.c
	_, err := c.c.ExecScript("COMMIT")
	if eerr := c.endTx(); eerr != nil && err == nil {
		err = eerr
	}
	return err
}

// Rollback rolls the transaction back.
func (t *tx) Rollback() error {
	c := t.c
	var err error
	if !c.c.Autocommit() {
		_, err = c.c.ExecScript("ROLLBACK")
	}
	if eerr := c.endTx(); eerr != nil && err == nil {
		err = eerr
	}
	return err
}
