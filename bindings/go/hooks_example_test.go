package sqlbatch_test

import (
	"errors"
	"fmt"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// The change feed hands the update hook's events over in batches: one call from C for up to
// max changed rows, at the latest when the transaction ends.
func ExampleConn_ChangeFeed() {
	c, _ := sqlbatch.Open(":memory:")
	defer c.Close()
	c.ExecScript("CREATE TABLE t(x)")
	c.ChangeFeed(2, func(changes []sqlbatch.Change, reason sqlbatch.FeedReason) {
		fmt.Print(reason, ":")
		for _, ch := range changes {
			fmt.Printf(" %s.%s#%d", ch.Schema, ch.Table, ch.RowID)
		}
		fmt.Println()
	})
	c.ExecScript("BEGIN; INSERT INTO t VALUES (1), (2), (3); COMMIT")
	c.ExecScript("BEGIN; DELETE FROM t WHERE x = 1; ROLLBACK")
	// Output:
	// full: main.t#1 main.t#2
	// commit: main.t#3
	// rollback: main.t#1
}

// A commit hook can veto a commit; the rollback hook then sees the rollback.
func ExampleConn_CommitHook() {
	c, _ := sqlbatch.Open(":memory:")
	defer c.Close()
	c.ExecScript("CREATE TABLE t(x)")
	c.CommitHook(func() int { return 1 })
	c.RollbackHook(func() { fmt.Println("rolled back") })
	_, err := c.ExecScript("INSERT INTO t VALUES (1)")
	var e *sqlbatch.Error
	if errors.As(err, &e) {
		fmt.Println(e.ExtendedCode.String())
	}
	// Output:
	// rolled back
	// SQLITE_CONSTRAINT_COMMITHOOK
}
