package driver

import (
	"fmt"
	"reflect"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Fast paths of RegisterFunc and RegisterAggregator: for the common signatures the call
// goes to impl directly instead of through reflect.Value.Call (about 1 µs a call). Each does
// exactly what the reflective path does for that signature (the same conversions, checks
// and error messages; TestFastPathsAgreeWithReflection runs both on the same values).

// The argument conversions of argConverter, without reflection.

func argInt64(a sqlbatch.Args, i int) (int64, error) {
	if k := a.Type(i); k != sqlbatch.Integer {
		return 0, fmt.Errorf("sqlbatch: argument %d must be an INTEGER, not %s", i, k)
	}
	return a.Int64(i), nil
}

func argFloat64(a sqlbatch.Args, i int) (float64, error) {
	if k := a.Type(i); k != sqlbatch.Integer && k != sqlbatch.Float {
		return 0, fmt.Errorf("sqlbatch: argument %d must be an INTEGER or a FLOAT, not %s", i, k)
	}
	return a.Float64(i), nil
}

func argString(a sqlbatch.Args, i int) (string, error) {
	if k := a.Type(i); k != sqlbatch.Text && k != sqlbatch.Blob {
		return "", fmt.Errorf("sqlbatch: argument %d must be BLOB or TEXT, not %s", i, k)
	}
	return a.Text(i), nil
}

func argAny(a sqlbatch.Args, i int) any {
	v := a.Value(i)
	if v == nil {
		v = []byte(nil) // NULL, as mattn passes it
	}
	return v
}

// setAny is setResult for an any result.
func setAny(ctx *sqlbatch.Context, v any) {
	switch v := v.(type) {
	case nil:
		ctx.SetNull()
	case int64:
		ctx.SetInt64(v)
	case int:
		ctx.SetInt64(int64(v))
	case float64:
		ctx.SetFloat64(v)
	case string:
		ctx.SetText(v)
	case bool:
		if v {
			ctx.SetInt64(1)
		} else {
			ctx.SetInt64(0)
		}
	case []byte:
		if len(v) == 0 {
			ctx.SetNull() // a nil or empty []byte is NULL, as with mattn
			return
		}
		ctx.SetBlob(v)
	default:
		setResult(ctx, reflect.ValueOf(v)) // the other kinds, named types among them
	}
}

// fastScalar returns the callback of impl if its type is one of the fast signatures.
// Named function types (type F func(int64) int64) take the reflective path.
func fastScalar(impl any) (fn func(*sqlbatch.Context, sqlbatch.Args), ok bool) {
	switch f := impl.(type) {
	case func(int64) int64:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			x, err := argInt64(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetInt64(f(x))
		}, true
	case func(int64, int64) int64:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			x, err := argInt64(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			y, err := argInt64(a, 1)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetInt64(f(x, y))
		}, true
	case func(float64) float64:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			x, err := argFloat64(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetFloat64(f(x))
		}, true
	case func(float64, float64) float64:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			x, err := argFloat64(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			y, err := argFloat64(a, 1)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetFloat64(f(x, y))
		}, true
	case func(string) string:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			s, err := argString(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetText(f(s))
		}, true
	case func(string) int64:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			s, err := argString(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetInt64(f(s))
		}, true
	case func(any) any:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) { setAny(ctx, f(argAny(a, 0))) }, true
	case func(...any) any:
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			// A new slice per call, as reflect.Value.Call makes one: impl may keep it.
			args := make([]any, a.Len())
			for i := range args {
				args[i] = argAny(a, i)
			}
			setAny(ctx, f(args...))
		}, true
	case func(int64) (int64, error):
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			x, err := argInt64(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			r, err := f(x)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetInt64(r)
		}, true
	case func(float64) (float64, error):
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			x, err := argFloat64(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			r, err := f(x)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetFloat64(r)
		}, true
	case func(string) (string, error):
		return func(ctx *sqlbatch.Context, a sqlbatch.Args) {
			s, err := argString(a, 0)
			if err != nil {
				ctx.SetError(err)
				return
			}
			r, err := f(s)
			if err != nil {
				ctx.SetError(err)
				return
			}
			ctx.SetText(r)
		}, true
	}
	return nil, false
}

// fastStep returns a step over a batch of rows that calls the aggregator's Step directly,
// if Step takes one int64 or float64 (and returns nothing or an error); nil otherwise.
func fastStep(agg any) func(*sqlbatch.Context, sqlbatch.ArgRows) {
	stepRows := func(ctx *sqlbatch.Context, rows sqlbatch.ArgRows, one func(sqlbatch.Args) error) {
		for i := 0; i < rows.Len(); i++ {
			if err := one(rows.Row(i)); err != nil {
				ctx.SetError(err)
				return
			}
		}
	}
	switch s := agg.(type) {
	case interface{ Step(int64) }:
		return func(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
			for i := 0; i < rows.Len(); i++ {
				x, err := argInt64(rows.Row(i), 0)
				if err != nil {
					ctx.SetError(err)
					return
				}
				s.Step(x)
			}
		}
	case interface{ Step(int64) error }:
		return func(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
			stepRows(ctx, rows, func(a sqlbatch.Args) error {
				x, err := argInt64(a, 0)
				if err != nil {
					return err
				}
				return s.Step(x)
			})
		}
	case interface{ Step(float64) }:
		return func(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
			for i := 0; i < rows.Len(); i++ {
				x, err := argFloat64(rows.Row(i), 0)
				if err != nil {
					ctx.SetError(err)
					return
				}
				s.Step(x)
			}
		}
	case interface{ Step(float64) error }:
		return func(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
			stepRows(ctx, rows, func(a sqlbatch.Args) error {
				x, err := argFloat64(a, 0)
				if err != nil {
					return err
				}
				return s.Step(x)
			})
		}
	}
	return nil
}
