package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"io"
	"reflect"
	"strings"
	"time"
	"unsafe"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// conversion is what Next does with a column's INTEGER and TEXT values, decided once per
// query from the column's declared type, as mattn/go-sqlite3 does.
type conversion uint8

const (
	convNone conversion = iota
	convTime            // DATE, DATETIME, TIMESTAMP: TEXT and INTEGER become time.Time
	convBool            // BOOLEAN: INTEGER becomes bool
)

func conversionOf(declType string) conversion {
	switch strings.ToLower(strings.TrimSpace(declType)) {
	case "date", "datetime", "timestamp":
		return convTime
	case "boolean":
		return convBool
	}
	return convNone
}

// rows serves database/sql's Rows.Next from the batches of a sqlbatch.Rows.
type rows struct {
	conn   *Conn
	s      *sqlbatch.Stmt
	r      *sqlbatch.Rows
	ctx    context.Context
	stop   func()
	owns   bool  // finalize s on Close
	parent *stmt // the prepared statement s belongs to, if any
	convs  []conversion
	loc    *time.Location
	names  []string
	closed bool
}

var (
	_ driver.Rows                           = (*rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*rows)(nil)
)

func (c *Conn) newRows(ctx context.Context, s *sqlbatch.Stmt, owns bool, parent *stmt) (*rows, error) {
	s.SetBatchRows(c.cfg.BatchRows)
	lr, err := s.Query()
	if err != nil {
		if owns {
			s.Close()
		}
		return nil, err
	}
	r := &rows{conn: c, s: s, r: lr, ctx: ctx, owns: owns, parent: parent, loc: c.cfg.Loc}
	for i, col := range s.Columns() {
		if conv := conversionOf(col.DeclType); conv != convNone {
			if r.convs == nil {
				r.convs = make([]conversion, len(s.Columns()))
			}
			r.convs[i] = conv
		}
	}
	if parent != nil {
		parent.busy = true
	}
	r.stop = c.watch(ctx)
	return r, nil
}

// Columns returns the column names.
func (r *rows) Columns() []string {
	if r.names == nil {
		r.names = r.s.ColumnNames()
	}
	return r.names
}

// Close ends the rows; the statement is rewound (or finalized if the query made it).
func (r *rows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.r.Close()
	r.stop()
	if r.owns {
		r.s.Close()
	}
	if p := r.parent; p != nil {
		p.busy = false
		if p.closed {
			r.s.Close()
		}
	}
	return err
}

// Next fills dest with the next row, from the current batch: a call into C happens only
// when the batch is used up. TEXT becomes a string and BLOB a []byte pointing into one Go
// copy of the batch's bytes (no allocation per value); columns declared DATE, DATETIME or
// TIMESTAMP give time.Time and BOOLEAN gives bool, as with mattn/go-sqlite3.
func (r *rows) Next(dest []driver.Value) error {
	lr := r.r
	if !lr.Next() {
		if err := lr.Err(); err != nil {
			return ctxErr(r.ctx, err)
		}
		return io.EOF
	}
	// driver.Value is defined as `any`: the two slice types have the same layout.
	lr.Values(unsafe.Slice((*any)(unsafe.Pointer(unsafe.SliceData(dest))), len(dest)))
	if r.convs != nil {
		for i, conv := range r.convs[:len(dest)] {
			switch v := dest[i].(type) {
			case int64:
				if conv == convBool {
					dest[i] = v > 0
				} else if conv == convTime {
					dest[i] = r.inLoc(sqlbatch.UnixTime(v))
				}
			case string:
				if conv == convTime {
					if t, err := sqlbatch.ParseTime(v); err == nil {
						dest[i] = r.inLoc(t)
					}
				}
			}
		}
	}
	return nil
}

func (r *rows) inLoc(t time.Time) time.Time {
	if r.loc != nil {
		return t.In(r.loc)
	}
	return t
}

// ColumnTypeDatabaseTypeName returns the declared type of column i, upper-cased
// ("INTEGER", "VARCHAR(20)"); "" for an expression.
func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	return strings.ToUpper(r.s.Columns()[i].DeclType)
}

// ColumnTypeNullable reports whether column i may be NULL; ok is false for an expression.
func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	notNull, known := r.s.ColumnNotNull(i)
	return !notNull, known
}

var (
	typeInt64       = reflect.TypeOf(int64(0))
	typeFloat64     = reflect.TypeOf(float64(0))
	typeString      = reflect.TypeOf("")
	typeBytes       = reflect.TypeOf([]byte(nil))
	typeBool        = reflect.TypeOf(false)
	typeTime        = reflect.TypeOf(time.Time{})
	typeAny         = reflect.TypeOf((*any)(nil)).Elem()
	typeNullInt64   = reflect.TypeOf(sql.NullInt64{})
	typeNullFloat64 = reflect.TypeOf(sql.NullFloat64{})
	typeNullString  = reflect.TypeOf(sql.NullString{})
	typeNullBool    = reflect.TypeOf(sql.NullBool{})
	typeNullTime    = reflect.TypeOf(sql.NullTime{})
)

// ColumnTypeScanType returns a Go type to scan column i into, from its declared type by
// SQLite's affinity rules (https://sqlite.org/datatype3.html): int64, float64, string,
// []byte, bool (BOOLEAN) or time.Time (DATE, DATETIME, TIMESTAMP), or their sql.Null*
// forms when the column may be NULL; `any` for an expression.
func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	decl := r.s.Columns()[i].DeclType
	if decl == "" {
		return typeAny
	}
	nullable, _ := r.ColumnTypeNullable(i)
	pick := func(plain, null reflect.Type) reflect.Type {
		if nullable {
			return null
		}
		return plain
	}
	switch conversionOf(decl) {
	case convTime:
		return pick(typeTime, typeNullTime)
	case convBool:
		return pick(typeBool, typeNullBool)
	}
	u := strings.ToUpper(decl)
	switch {
	case strings.Contains(u, "INT"):
		return pick(typeInt64, typeNullInt64)
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return pick(typeString, typeNullString)
	case strings.Contains(u, "BLOB"):
		return typeBytes
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return pick(typeFloat64, typeNullFloat64)
	}
	// NUMERIC affinity: integers or reals.
	return typeAny
}
