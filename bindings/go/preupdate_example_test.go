package sqlbatch_test

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// A preupdate hook sees each row before it changes, with its old and new values, also in
// WITHOUT ROWID tables and in the changes triggers make (Depth).
func ExampleConn_PreUpdateHook() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript(`CREATE TABLE account(name TEXT PRIMARY KEY, balance) WITHOUT ROWID;
		CREATE TABLE audit(name, delta);
		CREATE TRIGGER a AFTER UPDATE ON account BEGIN
			INSERT INTO audit VALUES (new.name, new.balance - old.balance);
		END;
		INSERT INTO account VALUES ('ada', 100)`); err != nil {
		log.Fatal(err)
	}
	err = c.PreUpdateHook(func(p sqlbatch.PreUpdate) {
		fmt.Printf("depth %d %s: %v -> %v\n", p.Depth, p.Table, p.Old, p.New)
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("UPDATE account SET balance = balance - 30 WHERE name = 'ada'"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// depth 0 account: [ada 100] -> [ada 70]
	// depth 1 audit: [] -> [ada -30]
}

// PreUpdateHookRows(0, ...) skips decoding the rows: the hook sees what changes where.
func ExampleConn_PreUpdateHookRows() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)"); err != nil {
		log.Fatal(err)
	}
	deleted := 0
	err = c.PreUpdateHookRows(0, func(p sqlbatch.PreUpdate) {
		if p.Op == sqlbatch.OpDelete {
			deleted++
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("DELETE FROM t WHERE x > 0"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(deleted, "rows deleted")
	// Output:
	// 2 rows deleted
}
