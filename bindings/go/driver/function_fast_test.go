package driver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The values every function of the test is called with: every storage class, the edges.
var fastTestValues = []any{
	int64(0), int64(1), int64(-7), int64(math.MaxInt64), int64(math.MinInt64),
	0.5, -2.25, 1e300, math.Inf(-1), float64(3),
	"abc", "", "héllo", "12", "3.5",
	[]byte{0, 1, 2}, []byte("xyz"), nil,
}

type sumI struct{ n int64 }

func (s *sumI) Step(x int64) { s.n += x * x }
func (s *sumI) Done() int64  { return s.n }

type sumIE struct{ n int64 }

func (s *sumIE) Step(x int64) error {
	if x == 1 {
		return errors.New("one is not allowed")
	}
	s.n += x
	return nil
}
func (s *sumIE) Done() (int64, error) { return s.n, nil }

type sumF struct{ n float64 }

func (s *sumF) Step(x float64) { s.n += x / 2 }
func (s *sumF) Done() float64  { return s.n }

type sumFE struct{ n float64 }

func (s *sumFE) Step(x float64) error {
	if x < -1e9 {
		return fmt.Errorf("too small: %g", x)
	}
	s.n += x
	return nil
}
func (s *sumFE) Done() any { return s.n }

type namedInt int16

func fastTestConn(t *testing.T) *Conn {
	t.Helper()
	dc, err := NewConnector(&Config{Path: ":memory:", BatchRows: 256, TxLock: "BEGIN"}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dc.Close(); err != nil {
			t.Error(err)
		}
	})
	return dc.(*Conn)
}

// run returns what the query gives, as "type:value", or its error's message.
func run(c *Conn, query string, args ...any) string {
	rows, err := c.Raw().Query(query, args...)
	if err != nil {
		return "error: " + err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		for i := 0; i < rows.ColumnCount(); i++ {
			out = append(out, fmt.Sprintf("%s:%#v", rows.Type(i), rows.Value(i)))
		}
	}
	if err := rows.Err(); err != nil {
		return "error: " + err.Error()
	}
	return strings.Join(out, ",")
}

func TestFastPathsAgreeWithReflection(t *testing.T) {
	scalars := map[string]any{
		"i_i":  func(x int64) int64 { return x*3 - 1 },
		"ii_i": func(x, y int64) int64 { return x - y },
		"f_f":  func(x float64) float64 { return x/2 + 1 },
		"ff_f": func(x, y float64) float64 { return x * y },
		"s_s":  func(s string) string { return strings.ToUpper(s) + "!" },
		"s_i":  func(s string) int64 { return int64(len(s)) },
		"a_a": func(v any) any {
			switch v := v.(type) {
			case int64:
				switch {
				case v == 0:
					return nil
				case v == 1:
					return namedInt(7) // a named integer type: setResult's reflection
				case v < 0:
					return time.Duration(v)
				}
				return uint8(v)
			case float64:
				if v == 3 {
					return float32(v)
				}
				if v < 0 {
					return true
				}
				return struct{}{} // not an SQL value: an error
			case string:
				if v == "" {
					return false
				}
				return v + v
			case []byte:
				if v == nil {
					return []byte{} // empty: NULL
				}
				return v
			}
			return v
		},
		"va_a": func(args ...any) any { return fmt.Sprint(len(args), args) },
		"i_ie": func(x int64) (int64, error) {
			if x < 0 {
				return 0, errors.New("negative")
			}
			return x / 2, nil
		},
		"f_fe": func(x float64) (float64, error) {
			if x > 1e100 {
				return 0, fmt.Errorf("too big: %g", x)
			}
			return x * 4, nil
		},
		"s_se": func(s string) (string, error) {
			if s == "12" {
				return "", errors.New("no twelve")
			}
			return s + "?", nil
		},
	}
	aggregates := map[string]any{
		"agg_i":  func() *sumI { return &sumI{} },
		"agg_ie": func() *sumIE { return &sumIE{} },
		"agg_f":  func() *sumF { return &sumF{} },
		"agg_fe": func() *sumFE { return &sumFE{} },
	}
	c := fastTestConn(t)
	register := func(suffix string, reflective bool) {
		reflectOnly = reflective
		defer func() { reflectOnly = false }()
		for name, f := range scalars {
			if _, ok := fastScalar(f); !ok {
				t.Fatalf("%s has no fast path", name)
			}
			if err := c.RegisterFunc(name+suffix, f, true); err != nil {
				t.Fatal(err)
			}
		}
		for name, ctor := range aggregates {
			if fastStep(reflect.ValueOf(ctor).Call(nil)[0].Interface()) == nil {
				t.Fatalf("%s has no fast path", name)
			}
			if err := c.RegisterAggregator(name+suffix, ctor, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	register("_fast", false)
	register("_refl", true)

	compare := func(what, fast, refl string) {
		t.Helper()
		if fast != refl {
			t.Errorf("%s: fast path %s, reflection %s", what, fast, refl)
		}
	}
	checked := 0
	for name, f := range scalars {
		arity := reflect.TypeOf(f).NumIn()
		if reflect.TypeOf(f).IsVariadic() {
			for n := 0; n <= 3; n++ {
				ph := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
				args := fastTestValues[len(fastTestValues)-n:]
				compare(fmt.Sprintf("%s(%d args)", name, n), run(c, "SELECT "+name+"_fast("+ph+")", args...), run(c, "SELECT "+name+"_refl("+ph+")", args...))
				checked++
			}
			continue
		}
		for _, v := range fastTestValues {
			if arity == 1 {
				compare(fmt.Sprintf("%s(%#v)", name, v), run(c, "SELECT "+name+"_fast(?)", v), run(c, "SELECT "+name+"_refl(?)", v))
				checked++
				continue
			}
			for _, w := range fastTestValues {
				compare(fmt.Sprintf("%s(%#v, %#v)", name, v, w), run(c, "SELECT "+name+"_fast(?, ?)", v, w), run(c, "SELECT "+name+"_refl(?, ?)", v, w))
				checked++
			}
		}
	}

	// Aggregates over several tables: integers only (over two batches of rows), reals,
	// and every value, grouped so that some groups fail and others do not.
	if _, err := c.Raw().ExecScript(`CREATE TABLE ints(g, x); CREATE TABLE reals(g, x); CREATE TABLE mixed(g, x);
		WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 700)
		INSERT INTO ints SELECT i % 3, i - 350 FROM k;
		INSERT INTO reals SELECT g, x * 0.25 FROM ints`); err != nil {
		t.Fatal(err)
	}
	for i, v := range fastTestValues {
		if _, err := c.Raw().ExecScript("INSERT INTO mixed VALUES (?, ?)", i%4, v); err != nil {
			t.Fatal(err)
		}
	}
	for name := range aggregates {
		for _, q := range []string{
			"SELECT %s(x) FROM ints", "SELECT g, %s(x) FROM ints GROUP BY g", "SELECT %s(x) FROM ints WHERE x > 1",
			"SELECT %s(x) FROM reals", "SELECT g, %s(x) FROM reals GROUP BY g", "SELECT %s(x) FROM mixed",
			"SELECT g, %s(x) FROM mixed GROUP BY g", "SELECT %s(x) FROM ints WHERE 0",
		} {
			compare(fmt.Sprintf(q, name), run(c, fmt.Sprintf(q, name+"_fast")), run(c, fmt.Sprintf(q, name+"_refl")))
			checked++
		}
	}
	t.Logf("%d calls compared", checked)

	// The comparison is not empty: some calls fail, others give values of every type.
	if got := run(c, "SELECT i_i_fast('x')"); got != "error: sqlbatch: argument 0 must be an INTEGER, not TEXT" {
		t.Errorf("i_i_fast('x'): %s", got)
	}
	if got := run(c, "SELECT i_i_fast(5), f_f_fast(3), s_s_fast('ab'), a_a_fast(1), a_a_fast(x'')"); got != `INTEGER:14,FLOAT:2.5,TEXT:"AB!",INTEGER:7,NULL:<nil>` {
		t.Errorf("fast results: %s", got)
	}
}

// A named function type, or another signature, takes the reflective path.
func TestFastPathsOnlyForTheirSignatures(t *testing.T) {
	type myFunc func(int64) int64
	for _, f := range []any{myFunc(func(x int64) int64 { return x }), func(x int32) int32 { return x }, func(x int64) string { return "" }} {
		if _, ok := fastScalar(f); ok {
			t.Errorf("%T has a fast path", f)
		}
	}
	c := fastTestConn(t)
	if err := c.RegisterFunc("named", myFunc(func(x int64) int64 { return x + 1 }), true); err != nil {
		t.Fatal(err)
	}
	if got := run(c, "SELECT named(41)"); got != "INTEGER:42" {
		t.Errorf("named(41): %s", got)
	}
	if err := c.RegisterFunc("nothing", nil, true); err == nil {
		t.Error("RegisterFunc(nil) accepted")
	}
}
