package driver

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// SQLitePreUpdateData is one row about to change, as mattn/go-sqlite3's preupdate hook
// (built with its sqlite_preupdate_hook tag) hands it over: the same fields, and Depth, Count,
// Old and New. Unlike mattn's, whose methods ask SQLite and work only during the callback, it
// holds copies of both rows: it may be kept, and its methods used, after the hook returns.
type SQLitePreUpdateData struct {
	// Conn is the connection the change is made on. It must not be used during the
	// callback (SQLite's rule).
	Conn *SQLiteConn
	// Op is SQLITE_INSERT, SQLITE_DELETE or SQLITE_UPDATE.
	Op int
	// DatabaseName is "main", "temp" or an attached name.
	DatabaseName string
	// TableName is the table's name.
	TableName string
	// OldRowID is the rowid before the change (DELETE, UPDATE), NewRowID after it (INSERT,
	// UPDATE).
	OldRowID int64
	NewRowID int64

	depth, count int
	old, new     []any
}

// Depth returns 0 for a change the statement makes itself, 1 for one a trigger it fired
// makes, and so on (sqlite3_preupdate_depth).
func (d *SQLitePreUpdateData) Depth() int { return d.depth }

// Count returns the number of columns of the row (sqlite3_preupdate_count).
func (d *SQLitePreUpdateData) Count() int { return d.count }

// Old fills dest with the row before the change (there is none for an INSERT: an error), up
// to len(dest) or Count() columns. As with mattn's, an element of dest that is not a pointer
// (nil, or a value) is replaced by the column's value: int64, float64, []byte for TEXT and
// BLOB, nil for NULL (so ported code reading a []any back sees what it saw with mattn). An
// element that is a pointer is scanned into, as database/sql's Rows.Scan would (mattn replaces
// the pointer in dest instead, which leaves the variable unchanged): *string, *[]byte, *int,
// *int64 and the other integer kinds, *float64, *float32, *bool, *time.Time (text in
// sqlbatch.TimeFormats, or Unix seconds or milliseconds), *any, sql.Scanner, and pointers
// to pointers of those (nil for NULL).
func (d *SQLitePreUpdateData) Old(dest ...any) error {
	if d.Op == SQLITE_INSERT {
		return errors.New("There is no old row for INSERT operations") // mattn's text
	}
	return fillRow(dest, d.old)
}

// New fills dest with the row after the change (there is none for a DELETE: an error), as
// Old does. A write through a blob handle (sqlbatch.BlobHandle, driver.Blob) is reported as
// a DELETE, as SQLite reports it.
func (d *SQLitePreUpdateData) New(dest ...any) error {
	if d.Op == SQLITE_DELETE {
		return errors.New("There is no new row for DELETE operations") // mattn's text
	}
	return fillRow(dest, d.new)
}

func fillRow(dest, row []any) error {
	for i := 0; i < len(row) && i < len(dest); i++ {
		if err := fillOne(&dest[i], row[i]); err != nil {
			return fmt.Errorf("sqlbatch: preupdate column %d: %w", i, err)
		}
	}
	return nil
}

// mattnValue is v as mattn's preupdate hook gives it: TEXT as []byte (a copy each time).
func mattnValue(v any) any {
	switch v := v.(type) {
	case string:
		return []byte(v)
	case []byte:
		return bytes.Clone(v)
	}
	return v
}

func fillOne(slot *any, v any) error {
	rv := reflect.ValueOf(*slot)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer {
		*slot = mattnValue(v) // mattn's convertAssign(&dest[i], src)
		return nil
	}
	if rv.IsNil() {
		return errors.New("destination pointer is nil")
	}
	return assign(*slot, rv, v)
}

// assign stores v (int64, float64, string, []byte or nil) into the pointer dest (rv), with
// database/sql's conversions.
func assign(dest any, rv reflect.Value, v any) error {
	switch d := dest.(type) {
	case *any:
		*d = mattnValue(v)
		return nil
	case sql.Scanner:
		if b, ok := v.([]byte); ok {
			v = bytes.Clone(b)
		}
		return d.Scan(v)
	case *time.Time:
		t, err := toTime(v)
		if err == nil {
			*d = t
		}
		return err
	}
	e := rv.Elem()
	if v == nil {
		switch e.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
			e.SetZero()
			return nil
		}
		return fmt.Errorf("converting NULL to %s is unsupported", e.Type())
	}
	if e.Kind() == reflect.Pointer {
		p := reflect.New(e.Type().Elem())
		if err := assign(p.Interface(), p, v); err != nil {
			return err
		}
		e.Set(p)
		return nil
	}
	text, isText := asText(v)
	switch e.Kind() {
	case reflect.String:
		e.SetString(text)
		return nil
	case reflect.Slice:
		if e.Type().Elem().Kind() == reflect.Uint8 {
			e.SetBytes([]byte(text))
			return nil
		}
	case reflect.Bool:
		switch v := v.(type) {
		case int64:
			e.SetBool(v != 0)
			return nil
		case float64:
			e.SetBool(v != 0)
			return nil
		}
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("converting %q to bool: %w", text, err)
		}
		e.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if i, ok := v.(int64); ok {
			if e.OverflowInt(i) {
				return fmt.Errorf("converting %d to %s: value out of range", i, e.Type())
			}
			e.SetInt(i)
			return nil
		}
		i, err := strconv.ParseInt(text, 10, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting %s %q to %s: %w", kindOf(v, isText), text, e.Type(), err)
		}
		e.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(text, 10, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting %s %q to %s: %w", kindOf(v, isText), text, e.Type(), err)
		}
		e.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		switch v := v.(type) {
		case float64:
			e.SetFloat(v)
			return nil
		case int64:
			e.SetFloat(float64(v))
			return nil
		}
		f, err := strconv.ParseFloat(text, e.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting %q to %s: %w", text, e.Type(), err)
		}
		e.SetFloat(f)
		return nil
	}
	return fmt.Errorf("unsupported destination %T", dest)
}

// asText is v as text, as database/sql formats numbers; isText says v was TEXT or BLOB.
func asText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	case int64:
		return strconv.FormatInt(v, 10), false
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), false
	}
	return fmt.Sprint(v), false
}

func kindOf(v any, isText bool) string {
	if isText {
		return "text"
	}
	return fmt.Sprintf("%T", v)
}

func toTime(v any) (time.Time, error) {
	switch v := v.(type) {
	case nil:
		return time.Time{}, errors.New("converting NULL to time.Time is unsupported")
	case int64:
		return sqlbatch.UnixTime(v), nil
	case string:
		return sqlbatch.ParseTime(v)
	case []byte:
		return sqlbatch.ParseTime(string(v))
	}
	return time.Time{}, fmt.Errorf("converting %T to time.Time is unsupported", v)
}

// RegisterPreUpdateHook sets the preupdate hook of the connection, as mattn/go-sqlite3's
// (sqlite3_preupdate_hook): callback is called before every row is inserted, updated or
// deleted, WITHOUT ROWID tables and the changes of triggers included, with both rows
// decoded (see SQLitePreUpdateData). nil removes it. Like the other Register* methods it
// reports nothing: it does nothing once the connection is closed, from inside a hook, or
// while a session lives on the connection (SQLite's one preupdate slot; Raw().PreUpdateHook
// returns the error, ErrMisuse). A panic in callback fails the statement with a
// *sqlbatch.HookPanicError. Raw().PreUpdateHookRows chooses which rows to decode.
func (c *Conn) RegisterPreUpdateHook(callback func(SQLitePreUpdateData)) {
	if callback == nil {
		_ = c.c.PreUpdateHook(nil)
		return
	}
	_ = c.c.PreUpdateHook(func(p sqlbatch.PreUpdate) {
		callback(SQLitePreUpdateData{
			Conn:         c,
			Op:           p.Op,
			DatabaseName: p.Schema,
			TableName:    p.Table,
			OldRowID:     p.OldRowID,
			NewRowID:     p.NewRowID,
			depth:        p.Depth,
			count:        p.Columns,
			old:          p.Old,
			new:          p.New,
		})
	})
}
