package sqlbatch_test

import (
	"fmt"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// A preupdate hook sees each row before it changes, with its old and new values, also in
// WITHOUT ROWID tables and in the changes triggers make (Depth).
func ExampleConn_PreUpdateHook() {
	c, _ := sqlbatch.Open(":memory:")
	defer c.Close()
	c.ExecScript(`CREATE TABLE account(name TEXT PRIMARY KEY, balance) WITHOUT ROWID;
		CREATE TABLE audit(name, delta);
		CREATE TRIGGER a AFTER UPDATE ON account BEGIN
			INSERT INTO audit VALUES (new.name, new.balance - old.balance);
		END;
		INSERT INTO account VALUES ('ada', 100)`)
	c.PreUpdateHook(func(p sqlbatch.PreUpdate) {
		fmt.Printf("depth %d %s: %v -> %v\n", p.Depth, p.Table, p.Old, p.New)
	})
	c.ExecScript("UPDATE account SET balance = balance - 30 WHERE name = 'ada'")
	// Output:
	// depth 0 account: [ada 100] -> [ada 70]
	// depth 1 audit: [] -> [ada -30]
}

// PreUpdateHookRows(0, ...) skips decoding the rows: the hook sees what changes where.
func ExampleConn_PreUpdateHookRows() {
	c, _ := sqlbatch.Open(":memory:")
	defer c.Close()
	c.ExecScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
	deleted := 0
	c.PreUpdateHookRows(0, func(p sqlbatch.PreUpdate) {
		if p.Op == sqlbatch.OpDelete {
			deleted++
		}
	})
	c.ExecScript("DELETE FROM t WHERE x > 0")
	fmt.Println(deleted, "rows deleted")
	// Output:
	// 2 rows deleted
}
