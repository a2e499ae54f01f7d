package sqlbatch_test

import (
	"fmt"
	"log"
	"strings"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func ExampleConn_CreateFunction() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	// f(x) = x*2+1, deterministic so that SQLite may factor calls out.
	err = c.CreateFunction("f", 1, sqlbatch.Deterministic, func(ctx *sqlbatch.Context, args sqlbatch.Args) {
		if args.IsNull(0) {
			return // NULL
		}
		ctx.SetInt64(args.Int64(0)*2 + 1)
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.Query("SELECT f(20), f(NULL) IS NULL")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		log.Fatal(r.Err())
	}
	fmt.Println(r.Int64(0), r.Bool(1))
	// Output: 41 true
}

// sumSq is a batched aggregate: Step receives many rows of a group at once.
type exampleSumSq struct{ sum float64 }

func (g *exampleSumSq) Step(ctx *sqlbatch.Context, rows sqlbatch.ArgRows) {
	for i := 0; i < rows.Len(); i++ {
		x := rows.Row(i).Float64(0)
		g.sum += x * x
	}
}

func (g *exampleSumSq) Final(ctx *sqlbatch.Context) { ctx.SetFloat64(g.sum) }

func ExampleConn_CreateAggregate() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(g TEXT, x REAL); INSERT INTO t VALUES ('a', 1), ('a', 2), ('b', 3)"); err != nil {
		log.Fatal(err)
	}
	// Up to 512 rows of a group per call from C into Go.
	err = c.CreateAggregate("sumsq", 1, sqlbatch.AggregateOptions{BatchRows: 512}, func() sqlbatch.AggregateGroup {
		return &exampleSumSq{}
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.Query("SELECT g, sumsq(x) FROM t GROUP BY g ORDER BY g")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		fmt.Println(r.Text(0), r.Float64(1))
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// a 5
	// b 9
}

func ExampleConn_CreateCollation() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	err = c.CreateCollation("nocase_ascii", func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.Query("SELECT v FROM (SELECT 'b' AS v UNION ALL SELECT 'A' UNION ALL SELECT 'c') ORDER BY v COLLATE nocase_ascii")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		fmt.Print(r.Text(0), " ")
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	// Output: A b c
}

func ExampleContext_SetError() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	err = c.CreateFunction("safe_div", 2, 0, func(ctx *sqlbatch.Context, args sqlbatch.Args) {
		if args.Int64(1) == 0 {
			ctx.SetError(fmt.Errorf("division of %d by zero", args.Int64(0)))
			return
		}
		ctx.SetInt64(args.Int64(0) / args.Int64(1))
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.Query("SELECT safe_div(7, 0)")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	r.Next()
	fmt.Println(r.Err())
	fmt.Printf("%+v\n", r.Err())
	// Output:
	// division of 7 by zero
	// sqlbatch: division of 7 by zero (SQLITE_ERROR)
}
