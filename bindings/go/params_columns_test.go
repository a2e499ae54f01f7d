package sqlbatch

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// decoded is a cell of a Params as C will read it: its kind and its number or bytes.
type decoded struct {
	kind  uint8
	bits  uint64
	bytes string
}

func decodeParams(p *Params) []decoded {
	out := make([]decoded, len(p.vals))
	for i, v := range p.vals {
		d := decoded{kind: v.Kind}
		switch v.Kind {
		case capi.KindText, capi.KindBlob:
			d.bytes = string(p.data[v.Bits : v.Bits+uint64(v.Len)])
		case capi.KindInteger, capi.KindFloat:
			d.bits = v.Bits
		}
		if v.Len != 0 && v.Kind != capi.KindText && v.Kind != capi.KindBlob {
			d.bytes = "bad Len " + strconv.Itoa(int(v.Len))
		}
		out[i] = d
	}
	return out
}

// TestAppendColumnsMatchesRowByRow lays out the same rows with AppendColumns and with the
// row-wise methods (after some earlier values, so that offsets do not start at 0) and
// compares every cell as C reads it.
func TestAppendColumnsMatchesRowByRow(t *testing.T) {
	when := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.FixedZone("", 3600))
	const n = 37
	var (
		i64  = make([]int64, n)
		ints = make([]int, n)
		i32  = make([]int32, n)
		i16  = make([]int16, n)
		i8   = make([]int8, n)
		u32  = make([]uint32, n)
		u16  = make([]uint16, n)
		bs   = make([]bool, n)
		f64  = make([]float64, n)
		f32  = make([]float32, n)
		strs = make([]string, n)
		blbs = make([][]byte, n)
		tms  = make([]time.Time, n)
		anys = make([]any, n)
	)
	for i := range n {
		i64[i] = math.MinInt64 + int64(i)*int64(i)*1e15
		ints[i] = i - 18
		i32[i] = math.MaxInt32 - int32(i)
		i16[i] = math.MinInt16 + int16(i)
		i8[i] = int8(i * 7)
		u32[i] = math.MaxUint32 - uint32(i)
		u16[i] = uint16(i * 2000)
		bs[i] = i%3 == 0
		f64[i] = float64(i) * -0.25
		f32[i] = float32(i) / 3
		strs[i] = string(bytes.Repeat([]byte{'a' + byte(i%26), 0}, i%5)) // "" and NULs too
		switch i % 3 {
		case 0:
			blbs[i] = nil
		case 1:
			blbs[i] = []byte{}
		default:
			blbs[i] = []byte(strconv.Itoa(i))
		}
		tms[i] = when.Add(time.Duration(i) * time.Hour)
		switch i % 4 {
		case 0:
			anys[i] = nil
		case 1:
			anys[i] = "x" + strconv.Itoa(i)
		case 2:
			anys[i] = uint8(i)
		default:
			anys[i] = 1.5
		}
	}
	var want, got Params
	for _, p := range []*Params{&want, &got} {
		p.Text("before").Int(1)
	}
	for i := range n {
		want.Int64(i64[i]).Int(ints[i]).Int64(int64(i32[i])).Int64(int64(i16[i])).Int64(int64(i8[i])).
			Int64(int64(u32[i])).Int64(int64(u16[i])).Bool(bs[i]).Float64(f64[i]).Float64(float64(f32[i])).
			Text(strs[i]).Blob(blbs[i]).Time(tms[i])
		if err := want.Any(anys[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := got.AppendColumns(i64, ints, i32, i16, i8, u32, u16, bs, f64, f32, strs, blbs, tms, anys); err != nil {
		t.Fatal(err)
	}
	if got.Len() != want.Len() || got.Len() != 2+14*n {
		t.Fatalf("Len %d, want %d", got.Len(), want.Len())
	}
	dw, dg := decodeParams(&want), decodeParams(&got)
	for i := range dw {
		if dw[i] != dg[i] {
			t.Fatalf("cell %d (row %d, column %d): %+v, want %+v", i, (i-2)/14, (i-2)%14, dg[i], dw[i])
		}
	}
	// Zero rows, and no columns, append nothing.
	if err := got.AppendColumns([]int64{}, []string(nil)); err != nil || got.Len() != 2+14*n {
		t.Fatalf("empty columns: %v, Len %d", err, got.Len())
	}
	if err := got.AppendColumns(); err != nil || got.Len() != 2+14*n {
		t.Fatalf("no columns: %v, Len %d", err, got.Len())
	}
}

func TestAppendColumnsErrorsLeaveParamsAsItWas(t *testing.T) {
	var p Params
	p.Int(1).Text("kept")
	before := decodeParams(&p)
	dataLen := len(p.data)
	cases := map[string][]any{
		"lengths differ":         {[]int64{1, 2}, []string{"a"}},
		"bytes are not a column": {[]int64{1}, []byte{1}},
		"not a slice":            {[]int64{1}, 7},
		"uint64 too large":       {[]int64{1, 2}, []any{uint64(1), uint64(math.MaxUint64)}},
		"struct in []any":        {[]string{"a", "b"}, []any{1, struct{}{}}},
		"NamedArg in []any":      {[]any{Named("a", 1)}},
		"Valuer of NamedArg":     {[]any{namedValuer{}}},
	}
	for name, cols := range cases {
		if err := p.AppendColumns(cols...); err == nil {
			t.Errorf("%s: no error", name)
		}
		if got := decodeParams(&p); len(got) != len(before) || got[0] != before[0] || got[1] != before[1] || len(p.data) != dataLen {
			t.Errorf("%s: Params changed: %+v", name, got)
		}
		if p.Err() != nil || p.names != nil {
			t.Errorf("%s: Err %v, names %v", name, p.Err(), p.names)
		}
	}
	p.Named("x")
	if err := p.AppendColumns([]int64{1}); err == nil {
		t.Error("AppendColumns right after Named: no error")
	}
}

type namedValuer struct{}

func (namedValuer) Value() (any, error) { return NamedArg{Name: "n", Value: 1}, nil }

// TestAppendColumnsAfterNamed: positional rows after a named value get NULL names, and a
// script consumes them in order.
func TestAppendColumnsAfterNamed(t *testing.T) {
	c, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var p Params
	p.Named("tag").Text("t")
	if err := p.AppendColumns([]int64{1, 2}, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if len(p.names) != p.Len() {
		t.Fatalf("%d names for %d values", len(p.names), p.Len())
	}
	_, err = c.ExecScriptParams(`CREATE TABLE t(a, b, tag);
		INSERT INTO t VALUES (?, ?, :tag); INSERT INTO t VALUES (?, ?, :tag);`, &p)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query("SELECT group_concat(a || b || tag, ',') FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() || rows.Text(0) != "1at,2bt" {
		t.Fatalf("rows %q", rows.Text(0))
	}
}

func TestAppendColumnsExecMany(t *testing.T) {
	c, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE bulk(a INTEGER, b REAL, c TEXT, d BLOB)"); err != nil {
		t.Fatal(err)
	}
	s, err := c.Prepare("INSERT INTO bulk VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n, chunk = 10000, 999
	a, b, cs, d := make([]int64, n), make([]float64, n), make([]string, n), make([][]byte, n)
	wantLen := int64(0)
	for i := range n {
		a[i], b[i], cs[i] = int64(i), float64(i)*0.25, "row-"+strconv.Itoa(i)
		if i%2 == 1 {
			d[i] = []byte{byte(i)}
		}
		wantLen += int64(len(cs[i]))
	}
	var p Params
	for i := 0; i < n; i += chunk {
		j := min(i+chunk, n)
		p.Reset()
		if err := p.AppendColumns(a[i:j], b[i:j], cs[i:j], d[i:j]); err != nil {
			t.Fatal(err)
		}
		r, err := s.ExecMany(&p)
		if err != nil || r.Rows != j-i {
			t.Fatalf("ExecMany: %+v %v", r, err)
		}
	}
	rows, err := c.Query("SELECT count(*), sum(a), sum(b * 4), sum(length(c)), count(d) FROM bulk")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	if rows.Int64(0) != n || rows.Int64(1) != n*(n-1)/2 || rows.Int64(2) != n*(n-1)/2 ||
		rows.Int64(3) != wantLen || rows.Int64(4) != n/2 {
		t.Fatalf("got %d %d %d %d %d", rows.Int64(0), rows.Int64(1), rows.Int64(2), rows.Int64(3), rows.Int64(4))
	}
	if errors.Is(rows.Err(), ErrMisuse) {
		t.Fatal(rows.Err())
	}
}

// AppendColumns does not allocate once p has grown (the columns passed as arguments aside).
func TestAppendColumnsAllocs(t *testing.T) {
	a, b, cs := make([]int64, 512), make([]float64, 512), make([]string, 512)
	for i := range cs {
		cs[i] = "row-" + strconv.Itoa(i)
	}
	var p Params
	cols := []any{a, b, cs}
	if err := p.AppendColumns(cols...); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		p.Reset()
		if err := p.AppendColumns(cols...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per AppendColumns", allocs)
	}
}
