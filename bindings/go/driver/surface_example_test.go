package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// An online backup between two pools, as with mattn/go-sqlite3: the two driver connections
// come from sql.Conn.Raw, and the backup is finished inside the callbacks.
func ExampleConn_Backup() {
	ctx := context.Background()
	src, _ := sql.Open("sqlbatch", "file:src?mode=memory&cache=shared")
	defer src.Close()
	src.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
	dest, _ := sql.Open("sqlbatch", ":memory:")
	defer dest.Close()
	dest.SetMaxOpenConns(1)

	sc, _ := src.Conn(ctx)
	defer sc.Close()
	dc, _ := dest.Conn(ctx)
	defer dc.Close()
	err := dc.Raw(func(d any) error {
		return sc.Raw(func(s any) error {
			b, err := d.(*driver.SQLiteConn).Backup("main", s.(*driver.SQLiteConn), "main")
			if err != nil {
				return err
			}
			for done := false; !done; {
				if done, err = b.Step(-1); err != nil { // busy: false, nil, as mattn's
					b.Finish()
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
	dc.QueryRowContext(ctx, "SELECT sum(x) FROM t").Scan(&n)
	fmt.Println(n)
	// Output: 6
}

// Limits and switches for every connection of a pool, from the ConnectHook.
func ExampleDriver_connectHook() {
	sql.Register("sqlbatch-limited", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.SetLimit(driver.SQLITE_LIMIT_LENGTH, 1<<20) // no value over 1 MiB
		return nil
	}})
	db, _ := sql.Open("sqlbatch-limited", ":memory:")
	defer db.Close()
	_, err := db.Exec("SELECT zeroblob(2 << 20)")
	fmt.Println(err)
	// Output: string or blob too big
}
