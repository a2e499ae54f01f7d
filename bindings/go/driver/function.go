package driver

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// SQLiteConn is Conn under mattn/go-sqlite3's name, so that a ConnectHook written for mattn
// (func(*sqlite3.SQLiteConn) error) ports by changing the package.
type SQLiteConn = Conn

// SQLiteDriver is Driver under mattn/go-sqlite3's name.
type SQLiteDriver = Driver

// aggregateBatchRows is how many rows of a group RegisterAggregator's Step calls take in one
// crossing from C to Go: Step is still called once per row, in SQLite's order.
const aggregateBatchRows = 256

// RegisterFunc makes the Go function impl available as the SQL function name on this
// connection, as mattn/go-sqlite3's SQLiteConn.RegisterFunc does. Usually called from the
// driver's ConnectHook, so that every connection of the pool has it; or through
// sql.Conn.Raw for one connection.
//
// impl's arguments may be int, int8..int64, uint, uint8..uint64 (from INTEGER), float32 or
// float64 (INTEGER or REAL), bool (INTEGER, non-zero), string or []byte (TEXT or BLOB), or
// any (int64, float64, string or []byte as the value is, and NULL as a nil []byte, as
// mattn passes it); an argument of another SQL type fails the call (mattn also refuses an
// INTEGER for a float parameter; sqlbatch converts it). A variadic impl takes any number of arguments from its fixed ones
// on. impl returns one of those types (a nil or empty []byte is NULL, as with mattn; an
// any result may hold any of them or nil), or it and an error; a non-nil error fails the
// statement with its message, and so does a panic. pure marks the function deterministic,
// so that SQLite may factor calls out and use it in indexes.
func (c *Conn) RegisterFunc(name string, impl any, pure bool) error {
	if impl == nil {
		return errors.New("sqlbatch: RegisterFunc: impl is not a function")
	}
	fn := reflect.ValueOf(impl)
	t := fn.Type()
	if t.Kind() != reflect.Func {
		return errors.New("sqlbatch: RegisterFunc: impl is not a function")
	}
	args, variadic, err := argConverters(t)
	if err != nil {
		return err
	}
	ret, err := resultConverter(t)
	if err != nil {
		return err
	}
	nArgs := len(args)
	if variadic {
		nArgs = -1
	}
	var flags sqlbatch.FunctionFlags
	if pure {
		flags = sqlbatch.Deterministic
	}
	if fast, ok := fastScalar(impl); ok && !reflectOnly {
		return c.c.CreateFunction(name, nArgs, flags, fast)
	}
	var in []reflect.Value
	return c.c.CreateFunction(name, nArgs, flags, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		var err error
		in, err = convertArgs(in[:0], a, args, variadic)
		if err != nil {
			ctx.SetError(err)
			return
		}
		ret(ctx, fn.Call(in))
	})
}

// RegisterAggregator makes the Go aggregator impl available as the SQL aggregate name on
// this connection, as mattn/go-sqlite3's SQLiteConn.RegisterAggregator does: impl is a
// function of no arguments returning a new aggregator (a pointer to a struct, usually),
// which has a Step method (its arguments as for RegisterFunc, returning nothing or an
// error) and a Done method (no arguments, returning a value and optionally an error).
// Each group of rows gets its own aggregator.
//
// Unlike mattn, rows reach Go in batches of up to 256 rows per crossing from C (Step is
// still called once per row, in order), so an error returned by Step is reported once the
// batch is handed over.
func (c *Conn) RegisterAggregator(name string, impl any, pure bool) error {
	ctor := reflect.ValueOf(impl)
	t := ctor.Type()
	if t.Kind() != reflect.Func || t.NumIn() != 0 || t.NumOut() != 1 {
		return errors.New("sqlbatch: RegisterAggregator: impl must be a function of no arguments returning one value")
	}
	agg := t.Out(0)
	step, ok := agg.MethodByName("Step")
	if !ok {
		return fmt.Errorf("sqlbatch: RegisterAggregator: %s has no Step method", agg)
	}
	done, ok := agg.MethodByName("Done")
	if !ok {
		return fmt.Errorf("sqlbatch: RegisterAggregator: %s has no Done method", agg)
	}
	// Method types from the type include the receiver as the first argument.
	stepT, doneT := step.Type, done.Type
	if agg.Kind() != reflect.Interface {
		stepT, doneT = dropReceiver(stepT), dropReceiver(doneT)
	}
	args, variadic, err := argConverters(stepT)
	if err != nil {
		return err
	}
	switch {
	case stepT.NumOut() > 1, stepT.NumOut() == 1 && stepT.Out(0) != errorType:
		return errors.New("sqlbatch: RegisterAggregator: Step must return nothing or an error")
	}
	if doneT.NumIn() != 0 {
		return errors.New("sqlbatch: RegisterAggregator: Done must take no arguments")
	}
	ret, err := resultConverter(doneT)
	if err != nil {
		return err
	}
	nArgs := len(args)
	if variadic {
		nArgs = -1
	}
	var flags sqlbatch.FunctionFlags
	if pure {
		flags = sqlbatch.Deterministic
	}
	tryFast := !reflectOnly
	return c.c.CreateAggregate(name, nArgs, sqlbatch.AggregateOptions{Flags: flags, BatchRows: aggregateBatchRows},
		func() sqlbatch.AggregateGroup {
			return &reflectGroup{ctor: ctor, args: args, variadic: variadic, ret: ret, tryFast: tryFast}
		})
}

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

// RegisterCollation makes cmp available as the collation name on this connection (COLLATE
// name), as mattn/go-sqlite3's SQLiteConn.RegisterCollation does. cmp returns a negative
// number, 0 or a positive number, and must be a total order.
func (c *Conn) RegisterCollation(name string, cmp func(string, string) int) error {
	if cmp == nil {
		return errors.New("sqlbatch: RegisterCollation: nil comparison")
	}
	// The low-level strings are views of C memory, valid during the call; cmp may keep its
	// arguments (nothing in mattn's API forbids it), so it gets copies.
	return c.c.CreateCollation(name, func(a, b string) int {
		return cmp(strings.Clone(a), strings.Clone(b))
	})
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
