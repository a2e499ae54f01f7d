package driver_test

// Examples of the API kept from mattn/go-sqlite3 (mattn.go).

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// mattn/go-sqlite3's update hook, set on every connection of the pool by the ConnectHook.
func ExampleSQLiteConn_RegisterUpdateHook() {
	sql.Register("sqlbatch-example-update-hook", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.RegisterUpdateHook(func(op int, db, table string, rowid int64) {
			if op == driver.SQLITE_INSERT {
				fmt.Printf("insert into %s.%s: rowid %d\n", db, table, rowid)
			}
		})
		return nil
	}})
	db, err := sql.Open("sqlbatch-example-update-hook", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (?)", 42); err != nil {
		log.Fatal(err)
	}
	// Output:
	// insert into main.t: rowid 1
}

// A preupdate hook with mattn's shape, on every connection of a pool.
func ExampleConn_RegisterPreUpdateHook() {
	sql.Register("sqlbatch_example_preupdate", &driver.SQLiteDriver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.RegisterPreUpdateHook(func(d driver.SQLitePreUpdateData) {
			var name string
			if d.Op == driver.SQLITE_DELETE {
				if err := d.Old(nil, &name); err != nil {
					log.Fatal(err)
				}
				fmt.Println("deleting", name, "from", d.TableName)
			}
		})
		return nil
	}})
	db, err := sql.Open("sqlbatch_example_preupdate", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE user(id INTEGER PRIMARY KEY, name); INSERT INTO user VALUES (1, 'ada'), (2, 'bob')"); err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec("DELETE FROM user WHERE id = 2"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// deleting bob from user
}

// mattn's SetTrace: each statement as it starts, with its arguments in place.
func ExampleConn_SetTrace() {
	sql.Register("sqlbatch_example_trace", &driver.SQLiteDriver{ConnectHook: func(c *driver.SQLiteConn) error {
		return c.SetTrace(&driver.TraceConfig{
			EventMask:       driver.TraceStmt,
			WantExpandedSQL: true,
			Callback: func(i driver.TraceInfo) int {
				fmt.Println(i.ExpandedSQL)
				return 0
			},
		})
	}})
	db, err := sql.Open("sqlbatch_example_trace", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (?)", "hello"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// CREATE TABLE t(x)
	// INSERT INTO t VALUES ('hello')
}

// An online backup between two pools, as with mattn/go-sqlite3: the two driver connections
// come from sql.Conn.Raw, and the backup is finished inside the callbacks.
func ExampleConn_Backup() {
	ctx := context.Background()
	src, err := sql.Open("sqlbatch", "file:src?mode=memory&cache=shared")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"); err != nil {
		log.Fatal(err)
	}
	dest, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer dest.Close()
	dest.SetMaxOpenConns(1)

	sc, err := src.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer sc.Close()
	dc, err := dest.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer dc.Close()
	err = dc.Raw(func(d any) error {
		return sc.Raw(func(s any) error {
			b, err := d.(*driver.SQLiteConn).Backup("main", s.(*driver.SQLiteConn), "main")
			if err != nil {
				return err
			}
			for done := false; !done; {
				if done, err = b.Step(-1); err != nil { // busy: false, nil, as mattn's
					if err := b.Finish(); err != nil {
						return err
					}
					return err
				}
			}
			return b.Finish()
		})
	})
	if err != nil {
		log.Fatal(err)
	}
	var n int
	if err := dc.QueryRowContext(ctx, "SELECT sum(x) FROM t").Scan(&n); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n)
	// Output: 6
}

// Limits and switches for every connection of a pool, from the ConnectHook.
func ExampleDriver_connectHook() {
	sql.Register("sqlbatch-limited", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.SetLimit(driver.SQLITE_LIMIT_LENGTH, 1<<20) // no value over 1 MiB
		return nil
	}})
	db, err := sql.Open("sqlbatch-limited", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec("SELECT zeroblob(2 << 20)")
	fmt.Println(err)
	// Output: string or blob too big
}
