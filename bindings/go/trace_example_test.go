package sqlbatch_test

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Trace reports each statement as it starts (and, with TraceExpanded, its text with its
// values), each row it returns, and its end.
func ExampleConn_Trace() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)"); err != nil {
		log.Fatal(err)
	}
	err = c.Trace(sqlbatch.TraceStmt|sqlbatch.TraceExpanded|sqlbatch.TraceRow|sqlbatch.TraceProfile, func(e sqlbatch.TraceEvent) {
		fmt.Printf("%s: %s", e.Event, e.SQL)
		if e.ExpandedSQL != "" {
			fmt.Printf(" (%s)", e.ExpandedSQL)
		}
		fmt.Println()
	})
	if err != nil {
		log.Fatal(err)
	}
	rows, err := c.Query("SELECT x FROM t WHERE x > ?", 0)
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	if err := rows.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// stmt: SELECT x FROM t WHERE x > ? (SELECT x FROM t WHERE x > 0)
	// row: SELECT x FROM t WHERE x > ?
	// row: SELECT x FROM t WHERE x > ?
	// profile: SELECT x FROM t WHERE x > ?
}
