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
	src, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	dst, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	if _, err := src.Exec(schema); err != nil {
		log.Fatal(err)
	}
	if _, err := dst.Exec(schema); err != nil {
		log.Fatal(err)
	}

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
	if _, err := conn.ExecContext(ctx, "INSERT INTO item VALUES (1, 5), (2, 8)"); err != nil {
		log.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE item SET qty = qty - 1 WHERE id = 2"); err != nil {
		log.Fatal(err)
	}
	var changeset []byte
	err = conn.Raw(func(any) error {
		var err error
		if changeset, err = s.Changeset(); err != nil {
			return err
		}
		return s.Delete()
	})
	if err != nil {
		log.Fatal(err)
	}

	dconn, err := dst.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer dconn.Close()
	err = dconn.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Raw().ApplyChangeset(changeset, nil)
	})
	if err != nil {
		log.Fatal(err)
	}
	rows, err := dconn.QueryContext(ctx, "SELECT id, qty FROM item ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, qty int
		if err := rows.Scan(&id, &qty); err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, qty)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1 5
	// 2 7
}
