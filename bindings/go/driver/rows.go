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

// rowsMeta is what rows need to know about the columns of a statement: their names, and
// what Next converts in each. It is kept with a statement the connection holds and made
// again only when the statement's columns change (a schema change recompiled it).
type rowsMeta struct {
	cols  []sqlbatch.Column // the columns it was made from (the same slice while they do not change)
	names []string
	convs []conversion // nil when no column converts
}

func (m *rowsMeta) update(cols []sqlbatch.Column) {
	if m.names != nil && len(cols) == len(m.cols) && (len(cols) == 0 || &cols[0] == &m.cols[0]) {
		return
	}
	m.cols = cols
	m.names = make([]string, len(cols))
	m.convs = nil
	for i, col := range cols {
		m.names[i] = col.Name
		if conv := conversionOf(col.DeclType); conv != convNone {
			if m.convs == nil {
				m.convs = make([]conversion, len(cols))
			}
			m.convs[i] = conv
		}
	}
}

// rows serves database/sql's Rows.Next from the batches of a sqlbatch.Rows.
type rows struct {
	conn *Conn
	s    *sqlbatch.Stmt
	r    *sqlbatch.Rows
	ctx  context.Context
	stop func()
	// h is the held statement s belongs to (a prepared or cached one); nil if the rows own s
	// and finalize it on Close.
	h *held
	// primed says that the current row of r was fetched (by newRows) but not yet returned.
	primed bool
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

// newRows binds p to s (unless p is nil: s keeps its bindings), runs it and returns its
// rows. The first batch is fetched here, not in the first Next: SQLite recompiles a
// statement whose schema changed when it first steps it, and only then are its columns
// (their number, their declared types) known for sure. The bind and that fetch are one call
// into C (Stmt.QueryParams). An error of the bind or of the first step is returned here. h
// is the held statement s belongs to, or nil if the rows are to finalize s.
func (c *Conn) newRows(ctx context.Context, s *sqlbatch.Stmt, h *held, p *sqlbatch.Params) (*rows, error) {
	s.SetBatchRows(c.cfg.BatchRows)
	stop := c.watch(ctx)
	var lr *sqlbatch.Rows
	var err error
	if p != nil {
		lr, err = s.QueryParams(p)
	} else {
		lr, err = s.Query()
	}
	if err != nil {
		stop()
		if h == nil {
			s.Close()
		}
		return nil, err
	}
	r := &rows{conn: c, s: s, r: lr, ctx: ctx, h: h, loc: c.cfg.Loc, stop: stop}
	if h != nil {
		h.busy = true
	}
	r.primed = lr.Next()
	if !r.primed {
		if err := lr.Err(); err != nil {
			r.Close()
			return nil, ctxErr(ctx, err)
		}
	}
	var m *rowsMeta
	if h != nil {
		m = &h.meta
	} else {
		m = new(rowsMeta)
	}
	m.update(s.Columns())
	r.convs = m.convs
	// database/sql hands the names to its caller, who may change them: a copy of our own.
	r.names = append([]string(nil), m.names...)
	return r, nil
}

// Columns returns the column names.
func (r *rows) Columns() []string { return r.names }

// Close ends the rows; the statement is rewound (or finalized if the query made it).
func (r *rows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.r.Close()
	r.stop()
	if h := r.h; h == nil {
		r.s.Close()
	} else {
		h.busy = false
		if h.drop {
			r.s.Close()
		}
	}
	return err
}

// Next fills dest with the next row, from the current batch: a call into C happens only
// when the batch is used up. TEXT becomes a string and BLOB a []byte pointing into the
// batch's bytes in Go memory (no allocation per value); in a batch of large rows (over
// 32 KiB), TEXT is a copy and BLOB a view of the statement's C memory, valid until the next
// Next, which database/sql copies (sqlbatch.Rows.NextValuesTransient); columns declared DATE, DATETIME or
// TIMESTAMP give time.Time and BOOLEAN gives bool, as with mattn/go-sqlite3.
func (r *rows) Next(dest []driver.Value) error {
	// driver.Value is defined as `any`: the two slice types have the same layout.
	vals := *(*[]any)(unsafe.Pointer(&dest))
	if r.primed {
		r.primed = false
		r.r.Values(vals)
	} else if !r.r.NextValuesTransient(vals) {
		if err := r.r.Err(); err != nil {
			return ctxErr(r.ctx, err)
		}
		return io.EOF
	}
	if r.convs != nil {
		for i, conv := range r.convs[:len(dest)] {
			if conv != convNone {
				dest[i] = r.converted(conv, dest[i])
			}
		}
	}
	return nil
}

// converted is v, a value of a column with conversion conv, as Next returns it: an INTEGER
// of a BOOLEAN column becomes bool (> 0), and an INTEGER or a TEXT in one of
// sqlbatch.TimeFormats of a DATE, DATETIME or TIMESTAMP column becomes time.Time; other
// values are returned as they are.
func (r *rows) converted(conv conversion, v driver.Value) driver.Value {
	switch x := v.(type) {
	case int64:
		if conv == convBool {
			return x > 0
		} else if conv == convTime {
			return r.inLoc(sqlbatch.UnixTime(x))
		}
	case string:
		if conv == convTime {
			if t, err := sqlbatch.ParseTime(x); err == nil {
				return r.inLoc(t)
			}
		}
	}
	return v
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
