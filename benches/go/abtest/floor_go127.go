//go:build sqlbatch_dynamic && go1.27

package abtest

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"io"
)

// From Go 1.27 on, the floor's rows also implement driver.RowsColumnScanner, as the sqlbatch
// driver's do, so that the floor is database/sql's cheaper path: NextRow only advances, and
// ScanColumn stores the value already decoded into the destinations of the fetch workloads
// (*int64, *string, *float64, *sql.NullString, and *any with a []byte copied as convertAssign
// copies it) with a type switch, and hands
// any other destination to sql.ConvertAssign. What remains is what database/sql's
// RowsColumnScanner path and the workload's loop cost with a driver that costs nothing.

var _ driver.RowsColumnScanner = (*floorRows)(nil)

func (r *floorRows) NextRow() error {
	if r.i == len(r.res.rows) {
		return io.EOF
	}
	r.i++
	return nil
}

func (r *floorRows) ScanColumn(sc driver.ScanContext, index int, dest any) error {
	v := r.res.rows[r.i-1][index]
	switch d := dest.(type) {
	case *int64:
		if n, ok := v.(int64); ok {
			*d = n
			return nil
		}
	case *string:
		if t, ok := v.(string); ok {
			*d = t
			return nil
		}
	case *float64:
		if f, ok := v.(float64); ok {
			*d = f
			return nil
		}
	case *sql.NullString:
		switch t := v.(type) {
		case string:
			*d = sql.NullString{String: t, Valid: true}
			return nil
		case nil:
			*d = sql.NullString{}
			return nil
		}
	case *any:
		if b, ok := v.([]byte); ok {
			v = bytes.Clone(b)
		}
		*d = v
		return nil
	}
	return sql.ConvertAssign(sc, dest, v)
}
