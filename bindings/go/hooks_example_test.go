package sqlbatch_test

import (
	"errors"
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// The change feed hands the update hook's events over in batches: one call from C for up to
// max changed rows, at the latest when the transaction ends.
func ExampleConn_ChangeFeed() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(x)"); err != nil {
		log.Fatal(err)
	}
	err = c.ChangeFeed(2, func(changes []sqlbatch.Change, reason sqlbatch.FeedReason) {
		fmt.Print(reason, ":")
		for _, ch := range changes {
			fmt.Printf(" %s.%s#%d", ch.Schema, ch.Table, ch.RowID)
		}
		fmt.Println()
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("BEGIN; INSERT INTO t VALUES (1), (2), (3); COMMIT"); err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("BEGIN; DELETE FROM t WHERE x = 1; ROLLBACK"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// full: main.t#1 main.t#2
	// commit: main.t#3
	// rollback: main.t#1
}

// A commit hook can veto a commit; the rollback hook then sees the rollback.
func ExampleConn_CommitHook() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(x)"); err != nil {
		log.Fatal(err)
	}
	if err := c.CommitHook(func() int { return 1 }); err != nil {
		log.Fatal(err)
	}
	err = c.RollbackHook(func() {
		if _, err := fmt.Println("rolled back"); err != nil {
			log.Fatal(err)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.ExecScript("INSERT INTO t VALUES (1)")
	var e *sqlbatch.Error
	if errors.As(err, &e) {
		fmt.Println(e.ExtendedCode.String())
	}
	// Output:
	// rolled back
	// SQLITE_CONSTRAINT_COMMITHOOK
}
