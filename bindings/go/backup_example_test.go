package sqlbatch_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Copy a live database into another connection, a few pages at a time, then to a file.
func ExampleConn_Backup() {
	src, _ := sqlbatch.Open(":memory:")
	defer src.Close()
	_, err := src.ExecScript(`CREATE TABLE t(x);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 10000)
		INSERT INTO t SELECT i FROM k`)
	if err != nil {
		log.Fatal(err)
	}

	dest, _ := sqlbatch.Open(":memory:")
	defer dest.Close()
	b, err := dest.Backup("main", src, "main") // mattn's order: dest is the receiver
	if err != nil {
		log.Fatal(err)
	}
	for {
		done, err := b.Step(16)
		var e *sqlbatch.Error
		if errors.As(err, &e) && e.Temporary() {
			continue // busy or locked elsewhere: nothing lost, step again (later)
		}
		if err != nil {
			log.Fatal(err)
		}
		if done {
			break
		}
	}
	if err := b.Finish(); err != nil { // until Finish, dest refuses every call with ErrBusy
		log.Fatal(err)
	}
	rows, _ := dest.Query("SELECT count(*), sum(x) FROM t")
	rows.Next()
	fmt.Println(rows.Int64(0), rows.Int64(1))
	rows.Close()

	// The whole database to a file in one call, and back.
	dir, _ := os.MkdirTemp("", "backup")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "copy.db")
	if err := src.BackupToFile("", path); err != nil {
		log.Fatal(err)
	}
	restored, _ := sqlbatch.Open(":memory:")
	defer restored.Close()
	if err := restored.RestoreFromFile("", path); err != nil {
		log.Fatal(err)
	}
	rows, _ = restored.Query("SELECT count(*) FROM t")
	rows.Next()
	fmt.Println(rows.Int64(0))
	rows.Close()
	// Output:
	// 10000 50005000
	// 10000
}

// A database to bytes and back, e.g. to ship it over the network.
func ExampleConn_Serialize() {
	c, _ := sqlbatch.Open(":memory:")
	defer c.Close()
	c.ExecScript("CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT); INSERT INTO kv VALUES ('a', 'apple')")
	data, err := c.Serialize("")
	if err != nil {
		log.Fatal(err)
	}

	ro, _ := sqlbatch.Open(":memory:")
	defer ro.Close()
	if err := ro.Deserialize(data, "main", sqlbatch.DeserializeReadOnly); err != nil {
		log.Fatal(err)
	}
	rows, _ := ro.Query("SELECT v FROM kv WHERE k = 'a'")
	rows.Next()
	fmt.Println(rows.Text(0))
	rows.Close()
	_, err = ro.ExecScript("INSERT INTO kv VALUES ('b', 'banana')")
	fmt.Println(errors.Is(err, sqlbatch.ErrReadOnly))
	// Output:
	// apple
	// true
}
