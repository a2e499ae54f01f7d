package sqlbatch_test

import (
	"fmt"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Trace reports each statement as it starts (and, with TraceExpanded, its text with its
// values), each row it returns, and its end.
func ExampleConn_Trace() {
	c, _ := sqlbatch.Open(":memory:")
	defer c.Close()
	c.ExecScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
	c.Trace(sqlbatch.TraceStmt|sqlbatch.TraceExpanded|sqlbatch.TraceRow|sqlbatch.TraceProfile, func(e sqlbatch.TraceEvent) {
		fmt.Printf("%s: %s", e.Event, e.SQL)
		if e.ExpandedSQL != "" {
			fmt.Printf(" (%s)", e.ExpandedSQL)
		}
		fmt.Println()
	})
	rows, _ := c.Query("SELECT x FROM t WHERE x > ?", 0)
	for rows.Next() {
	}
	rows.Close()
	// Output:
	// stmt: SELECT x FROM t WHERE x > ? (SELECT x FROM t WHERE x > 0)
	// row: SELECT x FROM t WHERE x > ?
	// row: SELECT x FROM t WHERE x > ?
	// profile: SELECT x FROM t WHERE x > ?
}
