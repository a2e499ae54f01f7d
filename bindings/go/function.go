package sqlbatch

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// FunctionFlags are the flags of Conn.CreateFunction and Conn.CreateAggregate, with
// SQLite's values.
type FunctionFlags uint32

// Function flags.
const (
	// Deterministic: same result for the same arguments within a statement (SQLITE_DETERMINISTIC).
	Deterministic FunctionFlags = capi.FunctionDeterministic
	// DirectOnly: callable from top-level SQL only, not from the schema (SQLITE_DIRECTONLY).
	DirectOnly FunctionFlags = capi.FunctionDirectOnly
	// Innocuous: no side effects, usable in the schema with trusted_schema off (SQLITE_INNOCUOUS).
	Innocuous FunctionFlags = capi.FunctionInnocuous
)

// Args are the argument cells of one call of a function (or one row of an aggregate's
// batch). They are views of C memory, valid only during the callback: Text and Blob copy
// (their results may be kept), RawBytes does not.
type Args struct {
	cells []capi.Value
	data  *byte
}

// Len is the number of arguments.
func (a Args) Len() int { return len(a.cells) }

// Type is the storage class of argument i.
func (a Args) Type(i int) Type { return Type(a.cells[i].Kind) }

// IsNull reports whether argument i is NULL.
func (a Args) IsNull(i int) bool { return a.cells[i].Kind == capi.KindNull }

func (a Args) convert(i int, to uint8, buf *[capi.ConvertBufLen]byte) capi.Value {
	v := a.cells[i]
	if v.Kind == capi.KindNull {
		return capi.Value{Kind: capi.KindNull}
	}
	var data []byte
	if v.Kind == capi.KindText || v.Kind == capi.KindBlob {
		data = capi.Bytes(a.data, &v)
		v.Bits = 0
	}
	out, rc := capi.Convert(&v, data, to, buf)
	if rc != capi.OK {
		return capi.Value{Kind: capi.KindNull}
	}
	return out
}

// Int64 is argument i as an int64, converted as sqlite3_value_int64 would (NULL is 0). The
// one difference: in a UTF-16 database SQLite reads a BLOB argument's bytes as UTF-16 text,
// Int64 and Float64 as UTF-8 (a function cannot ask its connection's encoding while it runs).
func (a Args) Int64(i int) int64 {
	if c := &a.cells[i]; c.Kind == capi.KindInteger {
		return int64(c.Bits)
	}
	return int64(a.convert(i, capi.KindInteger, nil).Bits)
}

// Float64 is argument i as a float64, converted as sqlite3_value_double would (NULL is 0).
func (a Args) Float64(i int) float64 {
	if c := &a.cells[i]; c.Kind == capi.KindFloat {
		return math.Float64frombits(c.Bits)
	}
	v := a.convert(i, capi.KindFloat, nil)
	if v.Kind != capi.KindFloat {
		return 0
	}
	return math.Float64frombits(v.Bits)
}

// RawBytes is the bytes of a TEXT or BLOB argument i without a copy (nil for other types):
// valid only during the callback.
func (a Args) RawBytes(i int) []byte {
	c := &a.cells[i]
	if c.Kind != capi.KindText && c.Kind != capi.KindBlob {
		return nil
	}
	return capi.Bytes(a.data, c)
}

// Text is argument i as a string (a copy), converted as sqlite3_value_text would (NULL is "").
func (a Args) Text(i int) string {
	if c := &a.cells[i]; c.Kind == capi.KindText || c.Kind == capi.KindBlob {
		return string(capi.Bytes(a.data, c))
	}
	var buf [capi.ConvertBufLen]byte
	v := a.convert(i, capi.KindText, &buf)
	if v.Kind != capi.KindText {
		return ""
	}
	return string(buf[:v.Len])
}

// Blob is argument i as a []byte (a copy; nil for NULL), converted as sqlite3_value_blob would.
func (a Args) Blob(i int) []byte {
	if c := &a.cells[i]; c.Kind == capi.KindText || c.Kind == capi.KindBlob {
		return append([]byte{}, capi.Bytes(a.data, c)...)
	}
	var buf [capi.ConvertBufLen]byte
	v := a.convert(i, capi.KindBlob, &buf)
	if v.Kind != capi.KindBlob && v.Kind != capi.KindText {
		return nil
	}
	return append([]byte{}, buf[:v.Len]...)
}

// Value is argument i as int64, float64, string, []byte (copies) or nil.
func (a Args) Value(i int) any {
	switch c := &a.cells[i]; c.Kind {
	case capi.KindInteger:
		return int64(c.Bits)
	case capi.KindFloat:
		return math.Float64frombits(c.Bits)
	case capi.KindText:
		return string(capi.Bytes(a.data, c))
	case capi.KindBlob:
		return append([]byte{}, capi.Bytes(a.data, c)...)
	}
	return nil
}

// ArgRows is a batch of argument rows of an aggregate's group, in SQLite's order; a view
// of C memory valid only during the Step call.
type ArgRows struct {
	cells []capi.Value
	nRows int
	nArgs int
	data  *byte
}

// Len is the number of rows.
func (r ArgRows) Len() int { return r.nRows }

// Row is the arguments of row i.
func (r ArgRows) Row(i int) Args {
	return Args{cells: r.cells[i*r.nArgs : (i+1)*r.nArgs : (i+1)*r.nArgs], data: r.data}
}

// Context is where a callback sets its result. Valid only during the callback. A later
// result replaces an earlier one; after SetError (or a result the library refused) the call
// has failed and later results are ignored.
type Context struct {
	call capi.Call
	err  bool
	// A result went through the library (text, blob): a later number must too, to replace it.
	called bool
}

func (c *Context) result(v capi.Value, data []byte) {
	if c.err {
		return // the call has failed: a failure is final
	}
	c.called = true
	if rc := c.call.Result(&v, data); rc != capi.OK {
		c.err = true
	}
}

// number sets a number or NULL: stored in the call's result field, without a cgo call, unless
// an earlier result went through the library.
func (c *Context) number(v capi.Value) {
	if c.err {
		return
	}
	if c.called {
		c.result(v, nil)
		return
	}
	c.call.Store(v)
}

// SetNull sets the result to NULL (the result when none is set).
func (c *Context) SetNull() { c.number(capi.Value{Kind: capi.KindNull}) }

// SetInt64 sets an INTEGER result.
func (c *Context) SetInt64(v int64) {
	c.number(capi.Value{Kind: capi.KindInteger, Bits: uint64(v)})
}

// SetFloat64 sets a REAL result.
func (c *Context) SetFloat64(v float64) {
	c.number(capi.Value{Kind: capi.KindFloat, Bits: math.Float64bits(v)})
}

// SetText sets a TEXT result (copied).
func (c *Context) SetText(s string) {
	if c.err {
		return
	}
	c.called = true
	v := capi.Value{Kind: capi.KindText, Len: uint32(len(s))}
	if rc := c.call.ResultText(&v, s); rc != capi.OK {
		c.err = true
	}
}

// SetBlob sets a BLOB result (copied); a nil b is an empty blob.
func (c *Context) SetBlob(b []byte) {
	c.result(capi.Value{Kind: capi.KindBlob, Len: uint32(len(b))}, b)
}

// SetValue sets the result from a Go value: nil, an integer type, float64, float32, bool,
// string or []byte; another type is an error.
func (c *Context) SetValue(v any) {
	switch v := v.(type) {
	case nil:
		c.SetNull()
	case int64:
		c.SetInt64(v)
	case int:
		c.SetInt64(int64(v))
	case int32:
		c.SetInt64(int64(v))
	case int16:
		c.SetInt64(int64(v))
	case int8:
		c.SetInt64(int64(v))
	case uint32:
		c.SetInt64(int64(v))
	case uint16:
		c.SetInt64(int64(v))
	case uint8:
		c.SetInt64(int64(v))
	case bool:
		if v {
			c.SetInt64(1)
		} else {
			c.SetInt64(0)
		}
	case float64:
		c.SetFloat64(v)
	case float32:
		c.SetFloat64(float64(v))
	case string:
		c.SetText(v)
	case []byte:
		c.SetBlob(v)
	default:
		c.SetError(fmt.Errorf("sqlbatch: cannot return a %T from an SQL function", v))
	}
}

// SetError makes the call fail: the statement stops with ErrError and err's message (an
// *Error keeps its code).
func (c *Context) SetError(err error) {
	code := int32(ErrError)
	if e, ok := err.(*Error); ok && e.ExtendedCode > 0 && e.ExtendedCode < 1000 {
		code = int32(e.ExtendedCode)
	}
	c.call.Error(code, err.Error())
	c.err = true
}

// scalarFunc is a registered function. Its Context is reused from call to call (saving an
// allocation a call): calls on one connection never overlap.
type scalarFunc struct {
	fn  func(ctx *Context, args Args)
	ctx Context
	c   *Conn
}

func (f *scalarFunc) Call(call capi.Call, args []capi.Value, data *byte) {
	f.c.inFunc++
	defer func() { f.c.inFunc-- }()
	f.ctx = Context{call: call}
	f.fn(&f.ctx, Args{cells: args, data: data})
	f.ctx = Context{}
}

// CreateFunction registers (or replaces) the scalar SQL function name taking nArgs
// arguments (-1: any number) on c. Each call runs fn on the goroutine that runs the
// statement; fn sets the result through ctx (NULL if it sets none) or fails with
// ctx.SetError. A panic in fn fails the statement with the panic's message. fn must not use
// c itself (c.Close from fn is refused with ErrMisuse: it would finalize the statement that
// calls fn). Registering again under the same name and count replaces the function.
func (c *Conn) CreateFunction(name string, nArgs int, flags FunctionFlags, fn func(ctx *Context, args Args)) error {
	if fn == nil {
		return c.DeleteFunction(name, nArgs)
	}
	if rc := c.h.CreateFunction(name, int32(nArgs), uint32(flags), &scalarFunc{fn: fn, c: c}); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// DeleteFunction deletes the function (scalar or aggregate) name of nArgs arguments.
func (c *Conn) DeleteFunction(name string, nArgs int) error {
	if rc := c.h.CreateFunction(name, int32(nArgs), 0, nil); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// AggregateGroup is the state of one group of an aggregate.
type AggregateGroup interface {
	// Step takes a batch of the group's argument rows (one row unless the aggregate was
	// registered with AggregateOptions.BatchRows > 1). An error set through ctx (or a panic)
	// fails the statement.
	Step(ctx *Context, rows ArgRows)
	// Final sets the group's result. It is called once per group, also when the statement
	// ends early (then its result is ignored).
	Final(ctx *Context)
}

// WindowGroup is the state of one partition of a window function: an AggregateGroup that
// also takes rows out of the frame and gives the current result.
type WindowGroup interface {
	AggregateGroup
	// Inverse removes the oldest rows of the frame (in SQLite's order) from the state.
	Inverse(ctx *Context, rows ArgRows)
	// Value sets the current result, keeping the state.
	Value(ctx *Context)
}

// AggregateOptions are the options of Conn.CreateAggregate.
type AggregateOptions struct {
	Flags FunctionFlags
	// Window registers a window function (usable with OVER); the groups must then be
	// WindowGroups. Batching still applies: the rows collected are handed over before each
	// Inverse and Value, so with a frame that moves every row the batches are one row long.
	Window bool
	// BatchRows: 0 or 1, Step gets one row per call; more, up to that many rows per call.
	BatchRows int
	// BatchBytes bounds the TEXT and BLOB bytes of a batch (0: no bound).
	BatchBytes int
}

type aggregate struct {
	newGroup func() AggregateGroup
	ctx      Context // reused, as scalarFunc's
	c        *Conn
}

func (a *aggregate) Step(call capi.Call, state *uintptr, args []capi.Value, nRows, nArgs int, data *byte) {
	a.c.inFunc++
	defer func() { a.c.inFunc-- }()
	if *state == 0 {
		*state = capi.NewHandle(a.newGroup())
	}
	g := capi.HandleValue(*state).(AggregateGroup)
	a.ctx = Context{call: call}
	g.Step(&a.ctx, ArgRows{cells: args, nRows: nRows, nArgs: nArgs, data: data})
	a.ctx = Context{}
}

func (a *aggregate) Finish(call capi.Call, state uintptr) {
	a.c.inFunc++
	a.ctx = Context{call: call}
	defer func() { a.ctx = Context{}; a.c.inFunc-- }()
	if state == 0 {
		a.newGroup().Final(&a.ctx)
		return
	}
	defer capi.DeleteHandle(state)
	capi.HandleValue(state).(AggregateGroup).Final(&a.ctx)
}

type window struct{ aggregate }

func (w *window) Inverse(call capi.Call, state *uintptr, args []capi.Value, nRows, nArgs int, data *byte) {
	w.c.inFunc++
	defer func() { w.c.inFunc-- }()
	if *state == 0 {
		*state = capi.NewHandle(w.newGroup())
	}
	g := capi.HandleValue(*state).(WindowGroup)
	w.ctx = Context{call: call}
	g.Inverse(&w.ctx, ArgRows{cells: args, nRows: nRows, nArgs: nArgs, data: data})
	w.ctx = Context{}
}

func (w *window) Value(call capi.Call, state uintptr) {
	w.c.inFunc++
	w.ctx = Context{call: call}
	defer func() { w.ctx = Context{}; w.c.inFunc-- }()
	if state == 0 {
		w.newGroup().(WindowGroup).Value(&w.ctx)
		return
	}
	capi.HandleValue(state).(WindowGroup).Value(&w.ctx)
}

// CreateAggregate registers (or replaces) the aggregate SQL function name of nArgs
// arguments (-1: any number) on c: newGroup makes the state of each group (also of a group
// without rows, for its Final). With opts.BatchRows > 1, Step receives up to that many of
// the group's rows per call, one crossing from C to Go for all of them. With opts.Window it
// is also a window function (see WindowGroup).
func (c *Conn) CreateAggregate(name string, nArgs int, opts AggregateOptions, newGroup func() AggregateGroup) error {
	if newGroup == nil {
		return c.DeleteFunction(name, nArgs)
	}
	if opts.BatchRows < 0 || opts.BatchBytes < 0 {
		return errorf(ErrorCode(capi.EInvalidArg), "sqlbatch: negative batch bound")
	}
	var impl capi.Aggregate = &aggregate{newGroup: newGroup, c: c}
	if opts.Window {
		if _, ok := newGroup().(WindowGroup); !ok {
			return errorf(ErrorCode(capi.EInvalidArg), "sqlbatch: a window function's groups must be WindowGroups (Inverse, Value)")
		}
		impl = &window{aggregate{newGroup: newGroup, c: c}}
	}
	rc := c.h.CreateAggregate(name, int32(nArgs), uint32(opts.Flags), opts.BatchRows, opts.BatchBytes, impl)
	if rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

type collation struct {
	cmp func(a, b string) int
	c   *Conn
}

func (f collation) Compare(a, b []byte) int {
	f.c.inFunc++
	defer func() { f.c.inFunc-- }()
	return f.cmp(unsafeString(a), unsafeString(b))
}

// CreateCollation registers (or replaces; nil cmp deletes) the collation name on c, used by
// COLLATE name. cmp must be a total order; its arguments are valid only during the call
// (copy them to keep them). A panic in cmp compares as equal.
func (c *Conn) CreateCollation(name string, cmp func(a, b string) int) error {
	var col capi.Collation
	if cmp != nil {
		col = collation{cmp, c}
	}
	if rc := c.h.CreateCollation(name, col); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// unsafeString is b as a string without a copy, for a callback that does not keep it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
