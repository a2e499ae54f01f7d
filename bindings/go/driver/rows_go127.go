//go:build go1.27

package driver

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"io"
	"strconv"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// From Go 1.27 on, rows implements driver.RowsColumnScanner, and database/sql reads them
// with NextRow and ScanColumn instead of Next: NextRow moves to the next row of the current
// batch (a call into C only when the batch is used up, as Next), and ScanColumn writes the
// cell straight into the caller's destination, where Next boxed every value of the row into
// a driver.Value for database/sql to convert (convertAssign) afterwards.
//
// The result is the one database/sql gives from Next's values, value for value and error
// for error: ScanColumn writes itself only what convertAssign would write without an error,
// for the destinations that matter (*int64, *int, *int32, *float64, *string, *[]byte,
// *sql.RawBytes of a BLOB, *bool, *time.Time, *any, the sql.NullXxx types and sql.Null[T]
// of int64, int, int32, float64, string, []byte, bool and time.Time), and hands everything
// else (other destinations, sql.Scanner implementations, nil pointers, conversions that
// fail, a TEXT into *sql.RawBytes, which needs database/sql's buffer) to sql.ConvertAssign
// with the value Next would have given. The columns declared BOOLEAN, DATE, DATETIME or
// TIMESTAMP are converted first, by the same code as in Next (converted).

var _ driver.RowsColumnScanner = (*rows)(nil)

// NextRow advances to the next row, from the current batch; it returns io.EOF at the end.
func (r *rows) NextRow() error {
	if r.primed {
		r.primed = false
	} else if !r.r.Next() {
		if err := r.r.Err(); err != nil {
			return ctxErr(r.ctx, err)
		}
		return io.EOF
	}
	return nil
}

// ScanColumn writes column i of the current row into dest, as database/sql would convert
// the value Next gives for it (see above).
func (r *rows) ScanColumn(sc driver.ScanContext, i int, dest any) error {
	if r.convs == nil || r.convs[i] == convNone {
		// The two destinations of generic and of typed code first, with as little as can be
		// between database/sql's call and the store.
		switch d := dest.(type) {
		case *any:
			if d != nil {
				// The value as Next boxes it, a []byte copied as convertAssign copies it.
				r.r.BoxValue(i, d)
				return nil
			}
		case *int64:
			if d != nil && r.r.Type(i) == sqlbatch.Integer {
				*d = r.r.Int64(i)
				return nil
			}
		}
		if r.scanCell(i, dest) {
			return nil
		}
		return sql.ConvertAssign(sc, dest, r.r.Value(i))
	}
	v := r.converted(r.convs[i], r.r.Value(i))
	if scanValue(dest, v) {
		return nil
	}
	return sql.ConvertAssign(sc, dest, v)
}

// scanCell writes cell i of the current row (of a column without conversion) into dest, not
// a *any, and returns true, or returns false (and leaves dest alone) if convertAssign has to.
func (r *rows) scanCell(i int, dest any) bool {
	lr := r.r
	switch lr.Type(i) {
	case sqlbatch.Integer:
		return scanInt64(dest, lr.Int64(i))
	case sqlbatch.Float:
		return scanFloat64(dest, lr.Float64(i))
	case sqlbatch.Text:
		return scanString(dest, lr.Text(i))
	case sqlbatch.Blob:
		// The bytes in the batch: *sql.RawBytes points at them (valid until the next row, as
		// database/sql promises), the other destinations copy them.
		return scanBytes(dest, lr.RawBytes(i))
	}
	return scanNull(dest)
}

// set stores v in *d and returns true, or returns false if d is nil (convertAssign then
// returns its error, or panics, as it does from Next's values).
func set[T any](d *T, v T) bool {
	if d == nil {
		return false
	}
	*d = v
	return true
}

// The scanXxx functions write a value of one type into dest as convertAssign writes it and
// return true, or return false if convertAssign would do anything else (fail, or write into a
// destination they do not know).

// scanValue is scanCell for a converted value (see rows.converted), *any included.
func scanValue(dest any, v driver.Value) bool {
	if d, ok := dest.(*any); ok {
		if b, ok := v.([]byte); ok {
			return set(d, any(bytes.Clone(b)))
		}
		return set(d, any(v))
	}
	switch x := v.(type) {
	case int64:
		return scanInt64(dest, x)
	case float64:
		return scanFloat64(dest, x)
	case string:
		return scanString(dest, x)
	case []byte:
		return scanBytes(dest, x)
	case bool:
		return scanBool(dest, x)
	case time.Time:
		return scanTime(dest, x)
	case nil:
		return scanNull(dest)
	}
	return false
}

func fitsInt(v int64) bool   { return int64(int(v)) == v }
func fitsInt32(v int64) bool { return int64(int32(v)) == v }

// scanInt64: convertAssign goes through the decimal digits of v to the integer and float
// destinations (a range check, and float64(v) rounded as ParseFloat rounds them), and takes
// only 0 and 1 into a bool.
func scanInt64(dest any, v int64) bool {
	switch d := dest.(type) {
	case *int64:
		return set(d, v)
	case *int:
		return fitsInt(v) && set(d, int(v))
	case *int32:
		return fitsInt32(v) && set(d, int32(v))
	case *float64:
		return set(d, float64(v))
	case *string:
		return set(d, strconv.FormatInt(v, 10))
	case *[]byte:
		return set(d, strconv.AppendInt(nil, v, 10))
	case *bool:
		return (v == 0 || v == 1) && set(d, v == 1)
	case *sql.NullInt64:
		return set(d, sql.NullInt64{Int64: v, Valid: true})
	case *sql.NullInt32:
		return fitsInt32(v) && set(d, sql.NullInt32{Int32: int32(v), Valid: true})
	case *sql.NullFloat64:
		return set(d, sql.NullFloat64{Float64: float64(v), Valid: true})
	case *sql.NullString:
		return set(d, sql.NullString{String: strconv.FormatInt(v, 10), Valid: true})
	case *sql.NullBool:
		return (v == 0 || v == 1) && set(d, sql.NullBool{Bool: v == 1, Valid: true})
	case *sql.Null[int64]:
		return set(d, sql.Null[int64]{V: v, Valid: true})
	case *sql.Null[int]:
		return fitsInt(v) && set(d, sql.Null[int]{V: int(v), Valid: true})
	case *sql.Null[int32]:
		return fitsInt32(v) && set(d, sql.Null[int32]{V: int32(v), Valid: true})
	case *sql.Null[float64]:
		return set(d, sql.Null[float64]{V: float64(v), Valid: true})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{V: strconv.FormatInt(v, 10), Valid: true})
	case *sql.Null[[]byte]:
		return set(d, sql.Null[[]byte]{V: strconv.AppendInt(nil, v, 10), Valid: true})
	case *sql.Null[bool]:
		return (v == 0 || v == 1) && set(d, sql.Null[bool]{V: v == 1, Valid: true})
	}
	return false
}

// scanFloat64: a float goes to the float and string destinations as it is or as
// strconv.FormatFloat(f, 'g', -1, 64) renders it; into an integer, convertAssign parses
// that rendering, which is left to it.
func scanFloat64(dest any, f float64) bool {
	switch d := dest.(type) {
	case *float64:
		return set(d, f)
	case *string:
		return set(d, strconv.FormatFloat(f, 'g', -1, 64))
	case *[]byte:
		return set(d, strconv.AppendFloat(nil, f, 'g', -1, 64))
	case *sql.NullFloat64:
		return set(d, sql.NullFloat64{Float64: f, Valid: true})
	case *sql.NullString:
		return set(d, sql.NullString{String: strconv.FormatFloat(f, 'g', -1, 64), Valid: true})
	case *sql.Null[float64]:
		return set(d, sql.Null[float64]{V: f, Valid: true})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{V: strconv.FormatFloat(f, 'g', -1, 64), Valid: true})
	case *sql.Null[[]byte]:
		return set(d, sql.Null[[]byte]{V: strconv.AppendFloat(nil, f, 'g', -1, 64), Valid: true})
	}
	return false
}

// scanString: a TEXT goes to the string destinations as it is (a string in the batch's Go
// memory, as Next gives it), to *[]byte as a copy, and to the numbers and bool as
// strconv.ParseInt (base 10, the destination's size), ParseFloat and ParseBool parse it.
func scanString(dest any, s string) bool {
	switch d := dest.(type) {
	case *string:
		return set(d, s)
	case *[]byte:
		return set(d, []byte(s))
	case *int64:
		x, err := strconv.ParseInt(s, 10, 64)
		return err == nil && set(d, x)
	case *int:
		x, err := strconv.ParseInt(s, 10, strconv.IntSize)
		return err == nil && set(d, int(x))
	case *int32:
		x, err := strconv.ParseInt(s, 10, 32)
		return err == nil && set(d, int32(x))
	case *float64:
		x, err := strconv.ParseFloat(s, 64)
		return err == nil && set(d, x)
	case *bool:
		x, err := strconv.ParseBool(s)
		return err == nil && set(d, x)
	case *sql.NullString:
		return set(d, sql.NullString{String: s, Valid: true})
	case *sql.NullInt64:
		x, err := strconv.ParseInt(s, 10, 64)
		return err == nil && set(d, sql.NullInt64{Int64: x, Valid: true})
	case *sql.NullInt32:
		x, err := strconv.ParseInt(s, 10, 32)
		return err == nil && set(d, sql.NullInt32{Int32: int32(x), Valid: true})
	case *sql.NullFloat64:
		x, err := strconv.ParseFloat(s, 64)
		return err == nil && set(d, sql.NullFloat64{Float64: x, Valid: true})
	case *sql.NullBool:
		x, err := strconv.ParseBool(s)
		return err == nil && set(d, sql.NullBool{Bool: x, Valid: true})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{V: s, Valid: true})
	case *sql.Null[[]byte]:
		return set(d, sql.Null[[]byte]{V: []byte(s), Valid: true})
	case *sql.Null[int64]:
		x, err := strconv.ParseInt(s, 10, 64)
		return err == nil && set(d, sql.Null[int64]{V: x, Valid: true})
	case *sql.Null[int]:
		x, err := strconv.ParseInt(s, 10, strconv.IntSize)
		return err == nil && set(d, sql.Null[int]{V: int(x), Valid: true})
	case *sql.Null[int32]:
		x, err := strconv.ParseInt(s, 10, 32)
		return err == nil && set(d, sql.Null[int32]{V: int32(x), Valid: true})
	case *sql.Null[float64]:
		x, err := strconv.ParseFloat(s, 64)
		return err == nil && set(d, sql.Null[float64]{V: x, Valid: true})
	case *sql.Null[bool]:
		x, err := strconv.ParseBool(s)
		return err == nil && set(d, sql.Null[bool]{V: x, Valid: true})
	}
	return false
}

// scanBytes: a BLOB goes to *sql.RawBytes as it is and to the other byte and string
// destinations as a copy; numbers parsed from a BLOB are left to convertAssign.
func scanBytes(dest any, b []byte) bool {
	switch d := dest.(type) {
	case *[]byte:
		return set(d, bytes.Clone(b))
	case *sql.RawBytes:
		return set(d, sql.RawBytes(b))
	case *string:
		return set(d, string(b))
	case *sql.NullString:
		return set(d, sql.NullString{String: string(b), Valid: true})
	case *sql.Null[[]byte]:
		return set(d, sql.Null[[]byte]{V: bytes.Clone(b), Valid: true})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{V: string(b), Valid: true})
	}
	return false
}

// scanNull: NULL is nil in *[]byte and *sql.RawBytes (and *any: see ScanColumn and
// scanValue), and the invalid zero value in the Null types; the other destinations refuse it
// (convertAssign's error).
func scanNull(dest any) bool {
	switch d := dest.(type) {
	case *[]byte:
		return set(d, nil)
	case *sql.RawBytes:
		return set(d, nil)
	case *sql.NullInt64:
		return set(d, sql.NullInt64{})
	case *sql.NullInt32:
		return set(d, sql.NullInt32{})
	case *sql.NullInt16:
		return set(d, sql.NullInt16{})
	case *sql.NullByte:
		return set(d, sql.NullByte{})
	case *sql.NullFloat64:
		return set(d, sql.NullFloat64{})
	case *sql.NullString:
		return set(d, sql.NullString{})
	case *sql.NullBool:
		return set(d, sql.NullBool{})
	case *sql.NullTime:
		return set(d, sql.NullTime{})
	case *sql.Null[int64]:
		return set(d, sql.Null[int64]{})
	case *sql.Null[int]:
		return set(d, sql.Null[int]{})
	case *sql.Null[int32]:
		return set(d, sql.Null[int32]{})
	case *sql.Null[float64]:
		return set(d, sql.Null[float64]{})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{})
	case *sql.Null[[]byte]:
		return set(d, sql.Null[[]byte]{})
	case *sql.Null[bool]:
		return set(d, sql.Null[bool]{})
	case *sql.Null[time.Time]:
		return set(d, sql.Null[time.Time]{})
	}
	return false
}

// scanBool: the bool of a BOOLEAN column's INTEGER goes to the bool destinations, and to the
// string ones as strconv.FormatBool renders it.
func scanBool(dest any, b bool) bool {
	switch d := dest.(type) {
	case *bool:
		return set(d, b)
	case *string:
		return set(d, strconv.FormatBool(b))
	case *[]byte:
		return set(d, strconv.AppendBool(nil, b))
	case *sql.NullBool:
		return set(d, sql.NullBool{Bool: b, Valid: true})
	case *sql.NullString:
		return set(d, sql.NullString{String: strconv.FormatBool(b), Valid: true})
	case *sql.Null[bool]:
		return set(d, sql.Null[bool]{V: b, Valid: true})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{V: strconv.FormatBool(b), Valid: true})
	}
	return false
}

// scanTime: the time of a DATE, DATETIME or TIMESTAMP column goes to the time destinations,
// and to the string ones in time.RFC3339Nano.
func scanTime(dest any, t time.Time) bool {
	switch d := dest.(type) {
	case *time.Time:
		return set(d, t)
	case *string:
		return set(d, t.Format(time.RFC3339Nano))
	case *[]byte:
		return set(d, t.AppendFormat(make([]byte, 0, len(time.RFC3339Nano)), time.RFC3339Nano))
	case *sql.NullTime:
		return set(d, sql.NullTime{Time: t, Valid: true})
	case *sql.NullString:
		return set(d, sql.NullString{String: t.Format(time.RFC3339Nano), Valid: true})
	case *sql.Null[time.Time]:
		return set(d, sql.Null[time.Time]{V: t, Valid: true})
	case *sql.Null[string]:
		return set(d, sql.Null[string]{V: t.Format(time.RFC3339Nano), Valid: true})
	}
	return false
}
