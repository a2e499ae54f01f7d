package driver

import (
	"context"
	"database/sql/driver"
)

// stmt is a prepared statement of the driver.
type stmt struct {
	held
	conn  *Conn
	query string
	// script is set when query holds several statements: Exec runs them all as a script.
	script bool
	closed bool
}

var (
	_ driver.Stmt             = (*stmt)(nil)
	_ driver.StmtExecContext  = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
)

func (s *stmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.release()
	return nil
}

// NumInput returns the number of parameters (so database/sql checks the argument count),
// or -1 for a script.
func (s *stmt) NumInput() int {
	if s.script {
		return -1
	}
	return s.s.ParamCount()
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}

// ExecContext binds args and runs the statement in one call into C.
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	c := s.conn
	if s.script {
		return c.ExecContext(ctx, s.query, args)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	target := s.s
	if s.busy {
		// Rows of s are still open: run a statement of our own.
		t, err := c.c.Prepare(s.query)
		if err != nil {
			return nil, err
		}
		defer t.Close()
		target = t
	}
	p, _, err := c.encodeFor(target, args, 0)
	if err != nil {
		return nil, err
	}
	stop := c.watch(ctx)
	r, err := target.ExecParams(p)
	stop()
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	return result{lastID: r.LastInsertRowID, changes: r.Changes}, nil
}

// QueryContext binds args and returns the statement's rows.
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	c := s.conn
	if s.script {
		return c.QueryContext(ctx, s.query, args)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.busy {
		return c.QueryContext(ctx, s.query, args)
	}
	p, _, err := c.encodeFor(s.s, args, 0)
	if err != nil {
		return nil, err
	}
	if p.Len() == 0 {
		p = nil
	}
	return c.newRows(ctx, s.s, &s.held, p)
}
