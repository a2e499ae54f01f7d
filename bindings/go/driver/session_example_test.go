package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// Sessions are on the low-level connection, reached through sql.Conn.Raw: hold one sql.Conn
// while the session records, run the statements through it, read the changeset in another
// Raw callback, and delete the session before the sql.Conn goes back to the pool. The
// changeset is applied to another pool's connection the same way.
func ExampleConn_Raw_session() {
	ctx := context.Background()
	const schema = "CREATE TABLE item(id INTEGER PRIMARY KEY, qty)"
	src, _ := sql.Open("sqlbatch", ":memory:")
	defer src.Close()
	src.SetMaxOpenConns(1)
	dst, _ := sql.Open("sqlbatch", ":memory:")
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	src.Exec(schema)
	dst.Exec(schema)

	conn, err := src.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	var s *sqlbatch.Session
	err = conn.Raw(func(dc any) (err error) {
		s, err = dc.(*driver.SQLiteConn).Raw().CreateSession(nil)
		if err == nil {
			err = s.Attach("item")
		}
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	conn.ExecContext(ctx, "INSERT INTO item VALUES (1, 5), (2, 8)")
	conn.ExecContext(ctx, "UPDATE item SET qty = qty - 1 WHERE id = 2")
	var changeset []byte
	conn.Raw(func(any) (err error) {
		changeset, err = s.Changeset()
		s.Delete()
		return err
	})

	dconn, _ := dst.Conn(ctx)
	defer dconn.Close()
	err = dconn.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Raw().ApplyChangeset(changeset, nil)
	})
	if err != nil {
		log.Fatal(err)
	}
	rows, _ := dconn.QueryContext(ctx, "SELECT id, qty FROM item ORDER BY id")
	defer rows.Close()
	for rows.Next() {
		var id, qty int
		rows.Scan(&id, &qty)
		fmt.Println(id, qty)
	}
	// Output:
	// 1 5
	// 2 7
}
