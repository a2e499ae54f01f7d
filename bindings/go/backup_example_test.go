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
	src, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	_, err = src.ExecScript(`CREATE TABLE t(x);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 10000)
		INSERT INTO t SELECT i FROM k`)
	if err != nil {
		log.Fatal(err)
	}

	dest, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
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
	rows, err := dest.Query("SELECT count(*), sum(x) FROM t")
	if err != nil {
		log.Fatal(err)
	}
	if !rows.Next() {
		log.Fatal(rows.Err())
	}
	fmt.Println(rows.Int64(0), rows.Int64(1))
	if err := rows.Close(); err != nil {
		log.Fatal(err)
	}

	// The whole database to a file in one call, and back.
	dir, err := os.MkdirTemp("", "backup")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "copy.db")
	if err := src.BackupToFile("", path); err != nil {
		log.Fatal(err)
	}
	restored, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer restored.Close()
	if err := restored.RestoreFromFile("", path); err != nil {
		log.Fatal(err)
	}
	rows, err = restored.Query("SELECT count(*) FROM t")
	if err != nil {
		log.Fatal(err)
	}
	if !rows.Next() {
		log.Fatal(rows.Err())
	}
	fmt.Println(rows.Int64(0))
	if err := rows.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 10000 50005000
	// 10000
}

// A database to bytes and back, e.g. to ship it over the network.
func ExampleConn_Serialize() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT); INSERT INTO kv VALUES ('a', 'apple')"); err != nil {
		log.Fatal(err)
	}
	data, err := c.Serialize("")
	if err != nil {
		log.Fatal(err)
	}

	ro, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Deserialize(data, "main", sqlbatch.DeserializeReadOnly); err != nil {
		log.Fatal(err)
	}
	rows, err := ro.Query("SELECT v FROM kv WHERE k = 'a'")
	if err != nil {
		log.Fatal(err)
	}
	if !rows.Next() {
		log.Fatal(rows.Err())
	}
	fmt.Println(rows.Text(0))
	if err := rows.Close(); err != nil {
		log.Fatal(err)
	}
	_, err = ro.ExecScript("INSERT INTO kv VALUES ('b', 'banana')")
	fmt.Println(errors.Is(err, sqlbatch.ErrReadOnly))
	// Output:
	// apple
	// true
}
