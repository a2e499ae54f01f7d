package sqlbatch

import (
	"database/sql/driver"
	"fmt"
	"math"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// TimeFormat is how a time.Time parameter is written: text that SQLite's date and time
// functions read, with the time's own zone offset ("2006-01-02 15:04:05.999999999-07:00",
// the first of mattn/go-sqlite3's SQLiteTimestampFormats).
const TimeFormat = "2006-01-02 15:04:05.999999999-07:00"

// Params is a list of parameter values laid out the way the C ABI takes them: an array of
// 16-byte values plus one byte buffer holding all TEXT and BLOB bytes. Filling it costs no
// cgo call; Conn.ExecScriptParams, Stmt.BindParams and Stmt.ExecMany pass it to C in one.
//
// For a bulk write, append the values of every row one after another (row-major):
//
//	var p sqlbatch.Params
//	for _, r := range rows {
//		p.Int64(r.ID).Float64(r.Score).Text(r.Name)
//	}
//	res, err := stmt.ExecMany(&p)
//
// When the rows are already in slices, one per column, AppendColumns lays out many rows in
// one call, with a typed loop per column: for a row of an INTEGER, a REAL and a short TEXT,
// 88 instructions instead of the 213 of a method call per value.
//
// A Params can be reused after Reset; its memory is kept. The zero value is ready to use.
// Values are copied in: a Params holds no reference to the strings or slices appended.
type Params struct {
	vals  []capi.Value
	names []capi.Value // nil, or one entry per value: TEXT name or NULL (positional)
	data  []byte
	name  string // name for the next value, set by Named
	named bool
	err   error
	// The table values (TableValue), each a NULL in vals at its parameter and its cells and
	// bytes in tab (see appendTable).
	tables []capi.TableRef
	tab    *Params
}

// Reset empties p, keeping its memory.
func (p *Params) Reset() {
	p.vals = p.vals[:0]
	p.names = nil
	p.data = p.data[:0]
	p.named = false
	p.err = nil
	if p.tab != nil {
		p.tables = p.tables[:0]
		p.tab.Reset()
	}
}

// Len returns the number of values in p.
func (p *Params) Len() int { return len(p.vals) }

// Err returns the first error met while appending (a value too large or of an unsupported
// type); calls that take p report it too.
func (p *Params) Err() error { return p.err }

func (p *Params) push(v capi.Value) *Params {
	p.vals = append(p.vals, v)
	if p.names != nil || p.named {
		p.pushName()
	}
	return p
}

func (p *Params) pushName() {
	if p.names == nil {
		p.names = make([]capi.Value, len(p.vals)-1, cap(p.vals))
		for i := range p.names {
			p.names[i].Kind = capi.KindNull
		}
	}
	if !p.named {
		p.names = append(p.names, capi.Value{Kind: capi.KindNull})
		return
	}
	p.named = false
	off := len(p.data)
	p.data = append(p.data, p.name...)
	p.names = append(p.names, capi.Value{Bits: uint64(off), Len: uint32(len(p.name)), Kind: capi.KindText})
}

// Named gives a name to the next value appended, e.g. p.Named("id").Int64(7): the value
// goes to the parameters of that name instead of being consumed positionally. sqlbatch
// matches the name: without a prefix ("id") it matches ":id", "@id" and "$id" (as with
// mattn/go-sqlite3); with one (":id") only that spelling. Names are used by
// Conn.ExecScriptParams and Stmt.BindParams; Stmt.ExecParams and ExecMany bind by position
// and refuse them (ErrInvalidArgument).
func (p *Params) Named(name string) *Params {
	p.name = name
	p.named = true
	return p
}

// Null appends SQL NULL.
func (p *Params) Null() *Params { return p.push(capi.Value{Kind: capi.KindNull}) }

// Int64 appends an INTEGER.
func (p *Params) Int64(v int64) *Params {
	return p.push(capi.Value{Bits: uint64(v), Kind: capi.KindInteger})
}

// Int appends an INTEGER.
func (p *Params) Int(v int) *Params { return p.Int64(int64(v)) }

// Bool appends an INTEGER, 1 for true and 0 for false.
func (p *Params) Bool(v bool) *Params {
	var b uint64
	if v {
		b = 1
	}
	return p.push(capi.Value{Bits: b, Kind: capi.KindInteger})
}

// Float64 appends a REAL. (SQLite stores NaN as NULL.)
func (p *Params) Float64(v float64) *Params {
	return p.push(capi.Value{Bits: math.Float64bits(v), Kind: capi.KindFloat})
}

func (p *Params) bytesValue(kind uint8, n int) (capi.Value, bool) {
	if n > math.MaxUint32 {
		if p.err == nil {
			p.err = errorf(ErrTooBig, fmt.Sprintf("a parameter of %d bytes is too large", n))
		}
		return capi.Value{Kind: capi.KindNull}, false
	}
	return capi.Value{Bits: uint64(len(p.data)), Len: uint32(n), Kind: kind}, true
}

// Text appends TEXT (the bytes of s, which should be UTF-8).
func (p *Params) Text(s string) *Params {
	v, ok := p.bytesValue(capi.KindText, len(s))
	if ok {
		p.data = append(p.data, s...)
	}
	return p.push(v)
}

// TextBytes appends TEXT holding the bytes b.
func (p *Params) TextBytes(b []byte) *Params {
	v, ok := p.bytesValue(capi.KindText, len(b))
	if ok {
		p.data = append(p.data, b...)
	}
	return p.push(v)
}

// Blob appends a BLOB; a nil slice appends NULL (as mattn/go-sqlite3 does), an empty
// non-nil one an empty BLOB.
func (p *Params) Blob(b []byte) *Params {
	if b == nil {
		return p.Null()
	}
	v, ok := p.bytesValue(capi.KindBlob, len(b))
	if ok {
		p.data = append(p.data, b...)
	}
	return p.push(v)
}

// Time appends t as TEXT in TimeFormat.
func (p *Params) Time(t time.Time) *Params {
	off := len(p.data)
	p.data = t.AppendFormat(p.data, TimeFormat)
	return p.push(capi.Value{Bits: uint64(off), Len: uint32(len(p.data) - off), Kind: capi.KindText})
}

// NamedArg is a parameter value with a name, for the ...any arguments of Conn.ExecScript,
// Conn.Query, Stmt.Bind, Stmt.Query and Stmt.Exec.
type NamedArg struct {
	Name  string
	Value any
}

// Named returns a NamedArg. name may be given without its prefix ("id", which matches
// ":id", "@id" or "$id") or with it (":id", which matches that spelling only).
func Named(name string, value any) NamedArg { return NamedArg{Name: name, Value: value} }

// Any appends v according to its Go type: nil (NULL), bool, every integer type (a uint64
// above MaxInt64 is an error), float32, float64, string, []byte, time.Time, a NamedArg, a
// TableValue (Array, Table: a whole table bound to its parameter), or a driver.Valuer whose
// value is one of those. Other types are an error.
func (p *Params) Any(v any) error {
	switch x := v.(type) {
	case nil:
		p.Null()
	case int64:
		p.Int64(x)
	case int:
		p.Int64(int64(x))
	case string:
		p.Text(x)
	case float64:
		p.Float64(x)
	case []byte:
		p.Blob(x)
	case bool:
		p.Bool(x)
	case time.Time:
		p.Time(x)
	case int8:
		p.Int64(int64(x))
	case int16:
		p.Int64(int64(x))
	case int32:
		p.Int64(int64(x))
	case uint8:
		p.Int64(int64(x))
	case uint16:
		p.Int64(int64(x))
	case uint32:
		p.Int64(int64(x))
	case uint:
		if uint64(x) > math.MaxInt64 {
			return fmt.Errorf("sqlbatch: uint value %d does not fit in an INTEGER", x)
		}
		p.Int64(int64(x))
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Errorf("sqlbatch: uint64 value %d does not fit in an INTEGER", x)
		}
		p.Int64(int64(x))
	case float32:
		p.Float64(float64(x))
	case TableValue:
		return p.appendTable(x)
	case NamedArg:
		if _, nested := x.Value.(NamedArg); nested {
			return fmt.Errorf("sqlbatch: NamedArg %q holds another NamedArg", x.Name)
		}
		p.Named(x.Name)
		return p.Any(x.Value)
	case driver.Valuer:
		dv, err := x.Value()
		if err != nil {
			return err
		}
		if _, again := dv.(driver.Valuer); again {
			return fmt.Errorf("sqlbatch: Value() of %T returned another driver.Valuer", v)
		}
		return p.Any(dv)
	default:
		return fmt.Errorf("sqlbatch: unsupported parameter type %T", v)
	}
	return nil
}

// Append appends each of vs with Any.
func (p *Params) Append(vs ...any) error {
	for _, v := range vs {
		if err := p.Any(v); err != nil {
			return err
		}
	}
	return nil
}
