package sqlbatch

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// AppendColumns appends whole rows to p, taken column by column: each argument is one
// column (a slice, one element per row), all of the same length n, and row i is
// (cols[0][i], cols[1][i], ...). It is the fast way to lay out a bulk write whose data is
// already in slices: one call per batch of rows, a tight typed loop per column that writes
// the cells in place, and no interface value or method call per value.
//
//	var p sqlbatch.Params
//	if err := p.AppendColumns(ids, scores, names); err != nil { // []int64, []float64, []string
//		return err
//	}
//	res, err := stmt.ExecMany(&p)
//
// The rows go after the values already in p, so a Params can be filled in batches: Reset,
// AppendColumns with the next n rows, ExecMany, and again.
//
// A column may be a slice of:
//
//   - int64, int, int32, int16, int8, uint32 or uint16: INTEGER;
//   - bool: INTEGER 1 or 0;
//   - float64 or float32: REAL;
//   - string: TEXT;
//   - []byte: BLOB, a nil slice NULL (as with Params.Blob);
//   - time.Time: TEXT in TimeFormat (as with Params.Time);
//   - any: each element as Params.Any takes it (nil is NULL; a NamedArg is an error), for
//     columns with NULLs or mixed types.
//
// A []byte argument is not a column of bytes: pass a BLOB column as [][]byte. Other types
// (and a column of another length) are an error, as is an element Params.Any rejects or a
// value too large for SQLite's 32-bit lengths; on error p is left as it was. Like the other
// methods, AppendColumns copies the values in: p keeps no reference to the slices.
func (p *Params) AppendColumns(cols ...any) error {
	if len(cols) == 0 {
		return nil
	}
	if p.named {
		return fmt.Errorf("sqlbatch: AppendColumns after Named: columns are positional")
	}
	n := -1
	for i, col := range cols {
		l := columnLen(col)
		if l < 0 {
			return fmt.Errorf("sqlbatch: AppendColumns: column %d is a %s, not a column type", i, reflect.TypeOf(col))
		}
		if n >= 0 && l != n {
			return fmt.Errorf("sqlbatch: AppendColumns: column %d has %d values, column 0 has %d", i, l, n)
		}
		n = l
	}
	if n == 0 {
		return nil
	}
	k := len(cols)
	if n > (math.MaxInt-len(p.vals))/k {
		return errorf(ErrTooBig, fmt.Sprintf("%d rows of %d values are too many", n, k))
	}
	start, dataStart := len(p.vals), len(p.data)
	// Every cell of the new rows is written below, column by column, before p is used.
	p.vals = slices.Grow(p.vals, n*k)[:start+n*k]
	for c, col := range cols {
		cells := p.vals[start+c:]
		var err error
		switch x := col.(type) {
		case []int64:
			intCells(cells, k, x)
		case []int:
			intCells(cells, k, x)
		case []int32:
			intCells(cells, k, x)
		case []int16:
			intCells(cells, k, x)
		case []int8:
			intCells(cells, k, x)
		case []uint32:
			intCells(cells, k, x)
		case []uint16:
			intCells(cells, k, x)
		case []bool:
			for i, v := range x {
				var b uint64
				if v {
					b = 1
				}
				cells[i*k] = capi.Value{Bits: b, Kind: capi.KindInteger}
			}
		case []float64:
			floatCells(cells, k, x)
		case []float32:
			floatCells(cells, k, x)
		case []string:
			err = p.textCells(cells, k, x)
		case [][]byte:
			err = p.blobCells(cells, k, x)
		case []time.Time:
			for i, t := range x {
				off := len(p.data)
				p.data = t.AppendFormat(p.data, TimeFormat)
				cells[i*k] = capi.Value{Bits: uint64(off), Len: uint32(len(p.data) - off), Kind: capi.KindText}
			}
		case []any:
			err = p.anyCells(start+c, k, x)
		}
		if err != nil {
			p.vals, p.data = p.vals[:start], p.data[:dataStart]
			return err
		}
	}
	if p.names != nil {
		for range n * k {
			p.names = append(p.names, capi.Value{Kind: capi.KindNull})
		}
	}
	return nil
}

// columnLen returns the length of a column AppendColumns takes, or -1 for another type.
func columnLen(col any) int {
	switch x := col.(type) {
	case []int64:
		return len(x)
	case []int:
		return len(x)
	case []int32:
		return len(x)
	case []int16:
		return len(x)
	case []int8:
		return len(x)
	case []uint32:
		return len(x)
	case []uint16:
		return len(x)
	case []bool:
		return len(x)
	case []float64:
		return len(x)
	case []float32:
		return len(x)
	case []string:
		return len(x)
	case [][]byte:
		return len(x)
	case []time.Time:
		return len(x)
	case []any:
		return len(x)
	}
	return -1
}

type columnInt interface {
	~int64 | ~int | ~int32 | ~int16 | ~int8 | ~uint32 | ~uint16
}

// intCells writes x as INTEGER cells into cells[0], cells[k], cells[2k], ...
func intCells[T columnInt](cells []capi.Value, k int, x []T) {
	for i, v := range x {
		cells[i*k] = capi.Value{Bits: uint64(int64(v)), Kind: capi.KindInteger}
	}
}

// floatCells writes x as REAL cells into cells[0], cells[k], cells[2k], ...
func floatCells[T ~float64 | ~float32](cells []capi.Value, k int, x []T) {
	for i, v := range x {
		cells[i*k] = capi.Value{Bits: math.Float64bits(float64(v)), Kind: capi.KindFloat}
	}
}

// textCells appends the bytes of x to p.data and writes TEXT cells into cells[0], cells[k], ...
func (p *Params) textCells(cells []capi.Value, k int, x []string) error {
	data := p.data
	for i, s := range x {
		if uint64(len(s)) > math.MaxUint32 {
			return errorf(ErrTooBig, fmt.Sprintf("a parameter of %d bytes is too large", len(s)))
		}
		cells[i*k] = capi.Value{Bits: uint64(len(data)), Len: uint32(len(s)), Kind: capi.KindText}
		data = append(data, s...)
	}
	p.data = data
	return nil
}

// blobCells appends the bytes of x to p.data and writes BLOB cells (NULL for a nil slice)
// into cells[0], cells[k], ...
func (p *Params) blobCells(cells []capi.Value, k int, x [][]byte) error {
	data := p.data
	for i, b := range x {
		if uint64(len(b)) > math.MaxUint32 {
			return errorf(ErrTooBig, fmt.Sprintf("a parameter of %d bytes is too large", len(b)))
		}
		if b == nil {
			cells[i*k] = capi.Value{Kind: capi.KindNull}
			continue
		}
		cells[i*k] = capi.Value{Bits: uint64(len(data)), Len: uint32(len(b)), Kind: capi.KindBlob}
		data = append(data, b...)
	}
	p.data = data
	return nil
}

// anyCells encodes x with Params.Any into p.vals[at], p.vals[at+k], ...: each value is
// appended at the end of p.vals and moved into its cell.
func (p *Params) anyCells(at, k int, x []any) error {
	names, prevErr := p.names, p.err
	p.names, p.err = nil, nil
	defer func() { p.names, p.err = names, prevErr }()
	end := len(p.vals)
	for i, v := range x {
		if a, ok := v.(NamedArg); ok {
			return fmt.Errorf("sqlbatch: AppendColumns: NamedArg %q in a column: columns are positional", a.Name)
		}
		if _, ok := v.(TableValue); ok {
			return fmt.Errorf("sqlbatch: AppendColumns: the value of row %d is a table value: a cell holds one value", i)
		}
		tables := len(p.tables)
		if err := p.Any(v); err != nil {
			return err
		}
		if p.err != nil {
			return p.err
		}
		if len(p.tables) != tables {
			return fmt.Errorf("sqlbatch: AppendColumns: the value of row %d is a table value: a cell holds one value", i)
		}
		if p.names != nil {
			return fmt.Errorf("sqlbatch: AppendColumns: the value of row %d is a NamedArg: columns are positional", i)
		}
		p.vals[at+i*k] = p.vals[end]
		p.vals = p.vals[:end]
	}
	return nil
}
