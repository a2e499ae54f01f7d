package driver

import (
	"errors"
	"fmt"
	"reflect"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// How RegisterFunc and RegisterAggregator (mattn.go) call Go functions: the reflective
// conversions of arguments and results for any signature they accept; function_fast.go has
// the fast paths for the common signatures.

func dropReceiver(t reflect.Type) reflect.Type {
	in := make([]reflect.Type, t.NumIn()-1)
	for i := range in {
		in[i] = t.In(i + 1)
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return reflect.FuncOf(in, out, t.IsVariadic())
}

// reflectOnly turns the fast paths (function_fast.go) off: the tests set it to compare them
// with the reflective paths.
var reflectOnly bool

type reflectGroup struct {
	ctor     reflect.Value
	agg      reflect.Value
	step     reflect.Value
	fast     func(*sqlbatch.Context, sqlbatch.ArgRows) // Step without reflection, if its signature has a fast path
	tryFast  bool
	args     []argConv
	variadic bool
	ret      func(*sqlbatch.Context, []reflect.Value)
	in       []reflect.Value
}

func (g *reflectGroup) init() {
	if !g.agg.IsValid() {
		g.agg = g.ctor.Call(nil)[0]
		g.step = g.agg.MethodByName("Step")
		if g.tryFast && g.agg.CanInterface() {
			g.fast = fastStep(g.agg.Interface())
		}
	}
}

func (g *reflectGroup) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	g.init()
	if g.fast != nil {
		g.fast(ctx, rows)
		return
	}
	for i := 0; i < rows.Len(); i++ {
		var err error
		g.in, err = convertArgs(g.in[:0], rows.Row(i), g.args, g.variadic)
		if err != nil {
			ctx.SetError(err)
			return
		}
		out := g.step.Call(g.in)
		if len(out) == 1 && !out[0].IsNil() {
			ctx.SetError(out[0].Interface().(error))
			return
		}
	}
}

func (g *reflectGroup) Final(ctx *sqlbatch.Context) {
	g.init()
	g.ret(ctx, g.agg.MethodByName("Done").Call(nil))
}

var errorType = reflect.TypeFor[error]()

// argConv converts one SQL argument to a Go value of the parameter's type.
type argConv func(a sqlbatch.Args, i int) (reflect.Value, error)

func argConverters(t reflect.Type) (convs []argConv, variadic bool, err error) {
	n := t.NumIn()
	variadic = t.IsVariadic()
	for i := 0; i < n; i++ {
		pt := t.In(i)
		if variadic && i == n-1 {
			pt = pt.Elem()
		}
		conv, err := argConverter(pt)
		if err != nil {
			return nil, false, fmt.Errorf("sqlbatch: argument %d: %w", i, err)
		}
		convs = append(convs, conv)
	}
	return convs, variadic, nil
}

func argConverter(t reflect.Type) (argConv, error) {
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, fmt.Errorf("cannot take an SQL value as %s", t)
		}
		return func(a sqlbatch.Args, i int) (reflect.Value, error) {
			v := a.Value(i)
			if v == nil {
				v = []byte(nil) // NULL, as mattn passes it
			}
			return reflect.ValueOf(&v).Elem(), nil
		}, nil
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return nil, fmt.Errorf("cannot take an SQL value as %s", t)
		}
		return func(a sqlbatch.Args, i int) (reflect.Value, error) {
			if k := a.Type(i); k != sqlbatch.Text && k != sqlbatch.Blob {
				return reflect.Value{}, fmt.Errorf("sqlbatch: argument %d must be BLOB or TEXT, not %s", i, k)
			}
			return reflect.ValueOf(a.Blob(i)).Convert(t), nil
		}, nil
	case reflect.String:
		return func(a sqlbatch.Args, i int) (reflect.Value, error) {
			if k := a.Type(i); k != sqlbatch.Text && k != sqlbatch.Blob {
				return reflect.Value{}, fmt.Errorf("sqlbatch: argument %d must be BLOB or TEXT, not %s", i, k)
			}
			return reflect.ValueOf(a.Text(i)).Convert(t), nil
		}, nil
	case reflect.Bool:
		return func(a sqlbatch.Args, i int) (reflect.Value, error) {
			if k := a.Type(i); k != sqlbatch.Integer {
				return reflect.Value{}, fmt.Errorf("sqlbatch: argument %d must be an INTEGER, not %s", i, k)
			}
			return reflect.ValueOf(a.Int64(i) != 0).Convert(t), nil
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(a sqlbatch.Args, i int) (reflect.Value, error) {
			if k := a.Type(i); k != sqlbatch.Integer {
				return reflect.Value{}, fmt.Errorf("sqlbatch: argument %d must be an INTEGER, not %s", i, k)
			}
			return reflect.ValueOf(a.Int64(i)).Convert(t), nil
		}, nil
	case reflect.Float32, reflect.Float64:
		return func(a sqlbatch.Args, i int) (reflect.Value, error) {
			if k := a.Type(i); k != sqlbatch.Integer && k != sqlbatch.Float {
				return reflect.Value{}, fmt.Errorf("sqlbatch: argument %d must be an INTEGER or a FLOAT, not %s", i, k)
			}
			return reflect.ValueOf(a.Float64(i)).Convert(t), nil
		}, nil
	}
	return nil, fmt.Errorf("cannot take an SQL value as %s", t)
}

func convertArgs(in []reflect.Value, a sqlbatch.Args, convs []argConv, variadic bool) ([]reflect.Value, error) {
	fixed := len(convs)
	if variadic {
		fixed--
		if a.Len() < fixed {
			return nil, fmt.Errorf("sqlbatch: function needs at least %d arguments, got %d", fixed, a.Len())
		}
	}
	for i := 0; i < a.Len(); i++ {
		conv := convs[min(i, len(convs)-1)]
		v, err := conv(a, i)
		if err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	return in, nil
}

// resultConverter checks t's results ((T) or (T, error)) and returns what sets them.
func resultConverter(t reflect.Type) (func(*sqlbatch.Context, []reflect.Value), error) {
	switch {
	case t.NumOut() == 0 || t.NumOut() > 2:
		return nil, errors.New("sqlbatch: the function must return a value, or a value and an error")
	case t.NumOut() == 2 && t.Out(1) != errorType:
		return nil, errors.New("sqlbatch: the second result must be an error")
	}
	rt := t.Out(0)
	switch rt.Kind() {
	case reflect.Interface, reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	case reflect.Slice:
		if rt.Elem().Kind() != reflect.Uint8 {
			return nil, fmt.Errorf("sqlbatch: cannot return %s to SQL", rt)
		}
	default:
		return nil, fmt.Errorf("sqlbatch: cannot return %s to SQL", rt)
	}
	return func(ctx *sqlbatch.Context, out []reflect.Value) {
		if len(out) == 2 && !out[1].IsNil() {
			ctx.SetError(out[1].Interface().(error))
			return
		}
		setResult(ctx, out[0])
	}, nil
}

func setResult(ctx *sqlbatch.Context, v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			ctx.SetNull()
			return
		}
		setResult(ctx, v.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ctx.SetInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ctx.SetInt64(int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		ctx.SetFloat64(v.Float())
	case reflect.Bool:
		if v.Bool() {
			ctx.SetInt64(1)
		} else {
			ctx.SetInt64(0)
		}
	case reflect.String:
		ctx.SetText(v.String())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Len() == 0 {
				ctx.SetNull() // a nil or empty []byte is NULL, as with mattn
				return
			}
			ctx.SetBlob(v.Bytes())
			return
		}
		ctx.SetError(fmt.Errorf("sqlbatch: cannot return %s to SQL", v.Type()))
	case reflect.Invalid:
		ctx.SetNull()
	default:
		ctx.SetError(fmt.Errorf("sqlbatch: cannot return %s to SQL", v.Type()))
	}
}
