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

// How SQLitePreUpdateData's Old and New (mattn.go) scan a column's value into a pointer: with
// database/sql's conversions, as Rows.Scan would.

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
