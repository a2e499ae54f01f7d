package sqlbatch

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// TableValue is a whole table bound to one parameter: a table-valued parameter. Make one
// with Array (one column) or Table (several), and pass it as an argument like any other
// value (to Stmt.Query, Stmt.Exec, Conn.Query, Params.Any, or through database/sql to the
// driver). The SQL reads it through the sqlbatch_rows virtual table that every connection
// has:
//
//	rows, err := c.Query("SELECT id, name FROM item WHERE id IN sqlbatch_rows(?)", sqlbatch.Array(ids))
//
// The eponymous table sqlbatch_rows has one column, value (SELECT value FROM
// sqlbatch_rows(?)); a table of several columns is declared once per shape, on each
// connection, and read as a table-valued function:
//
//	c.ExecScript("CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, name TEXT)")
//	res, err := stmt.Exec(sqlbatch.Table(ids, names)) // INSERT INTO item SELECT * FROM incoming(?)
//
// The whole table crosses into C in the call that binds the statement's other parameters,
// as one array of cells and one block of bytes, which the library copies (Go keeps no
// memory of it in C after the call): one call instead of one placeholder and one bind per
// element. The columns are read when the statement is bound, not when TableValue is made.
//
// A TableValue binds one run of one statement, by position (Stmt.ExecMany refuses it, and
// so does a script of several statements); a statement that binds one must not be run by
// the write-behind of Stmt.ExecManyFunc either.
type TableValue struct {
	col   any   // Array's column
	cols  []any // Table's columns
	array bool
}

// Array is a table of one column, xs: a slice of int64, int, int32, int16, int8, uint32,
// uint16, bool (1 or 0), float64, float32, string (TEXT), []byte (BLOB; a nil one is NULL),
// time.Time (TEXT in TimeFormat), or any (each element as Params.Any takes it, nil for
// NULL). An empty (or nil) slice is an empty table; a []byte is not an array (it is one
// BLOB: pass [][]byte). Another type is an error when the statement is bound.
func Array(xs any) TableValue { return TableValue{col: xs, array: true} }

// Table is a table of several columns, one slice per column (the types Array takes), all of
// the same length: row i is (cols[0][i], cols[1][i], ...). Columns of different lengths, no
// column at all, or a column of another type are an error when the statement is bound.
func Table(cols ...any) TableValue { return TableValue{cols: cols} }

// columns returns t's columns (a one-element slice for Array, which does not allocate for
// the common case: the slice is built on the caller's stack).
func (t *TableValue) columns(one *[1]any) []any {
	if t.array {
		one[0] = t.col
		return one[:]
	}
	return t.cols
}

// Err reports what makes t impossible to bind (no column, a type that is not a column,
// columns of different lengths), without encoding it; nil if it can be bound (an element of
// a []any column can still be refused then). The database/sql driver checks it when it
// receives the argument.
func (t TableValue) Err() error {
	var one [1]any
	cols := t.columns(&one)
	if len(cols) == 0 {
		return errors.New("sqlbatch.Table: a table needs at least one column")
	}
	n := -1
	for i, col := range cols {
		l := columnLen(col)
		if l < 0 {
			what := "nil"
			if col != nil {
				what = reflect.TypeOf(col).String()
			}
			if t.array {
				if _, ok := col.([]byte); ok {
					return errors.New("sqlbatch.Array: a []byte is one BLOB, not an array: pass a [][]byte")
				}
				return fmt.Errorf("sqlbatch.Array: a %s is not an array of a type a column can hold", what)
			}
			return fmt.Errorf("sqlbatch.Table: column %d is a %s, not a slice of a type a column can hold", i, what)
		}
		if n >= 0 && l != n {
			return fmt.Errorf("sqlbatch.Table: column %d has %d values, column 0 has %d", i, l, n)
		}
		n = l
	}
	return nil
}

// appendTable lays out t in p: a NULL for its parameter (the ABI binds every parameter with
// the statement's other values) and its cells and bytes in p's tables, which the call that
// binds p hands over to sqlbatch_stmt_bind_rows in the same crossing.
func (p *Params) appendTable(t TableValue) error {
	if p.named {
		p.named = false
		return fmt.Errorf("sqlbatch: a table value (sqlbatch.Array, sqlbatch.Table) is bound by position: name its parameter with Stmt.Bind's NamedArg, not Params.Named")
	}
	if err := t.Err(); err != nil {
		return err
	}
	var one [1]any
	cols := t.columns(&one)
	if p.tab == nil {
		p.tab = new(Params)
	}
	first := len(p.tab.vals)
	if err := p.tab.AppendColumns(cols...); err != nil {
		return err
	}
	p.push(capi.Value{Kind: capi.KindNull})
	p.tables = append(p.tables, capi.TableRef{
		Index: uint64(len(p.vals)), First: uint64(first), N: uint64(len(p.tab.vals) - first), NCols: uint64(len(cols)),
	})
	return nil
}

// HasTables reports whether p holds a table value (Array, Table).
func (p *Params) HasTables() bool { return len(p.tables) > 0 }

// tableParts returns what the calls that bind p's tables take.
func (p *Params) tableParts() (refs []capi.TableRef, cells []capi.Value, data []byte) {
	return p.tables, p.tab.vals, p.tab.data
}

var errTablesNamed = errorf(ErrInvalidArgument,
	"sqlbatch: a Params with named values cannot hold a table value: table values are bound by position")

var errTablesMany = errorf(ErrInvalidArgument,
	"sqlbatch: a table value (sqlbatch.Array, sqlbatch.Table) binds one run of a statement: ExecMany and ExecManyFunc bind by row")

// tableError is the error of a table the library refused: its message, with which parameter.
func (s *Stmt) tableError(rc int32, p *Params, failed int) error {
	err := s.err(rc)
	var e *Error
	if errors.As(err, &e) && failed >= 0 && failed < len(p.tables) {
		e.Msg = fmt.Sprintf("table value for parameter %d: %s", p.tables[failed].Index, e.Error())
	}
	return err
}
