package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

func Example() {
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // each connection to ":memory:" is its own database

	// Several statements and their arguments in one Exec: one call into C.
	_, err = db.Exec(`
		CREATE TABLE event(id INTEGER PRIMARY KEY, name TEXT, at DATETIME, done BOOLEAN);
		INSERT INTO event(name, at, done) VALUES (?, ?, ?), (?, ?, ?);`,
		"launch", time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC), true,
		"review", time.Date(2024, 5, 2, 14, 0, 0, 0, time.UTC), false)
	if err != nil {
		log.Fatal(err)
	}

	rows, err := db.Query("SELECT name, at, done FROM event WHERE at > :since ORDER BY at",
		sql.Named("since", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var at time.Time
		var done bool
		if err := rows.Scan(&name, &at, &done); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, at.Format(time.DateTime), done)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// launch 2024-05-01 09:30:00 true
	// review 2024-05-02 14:00:00 false
}

// The bulk insert is reachable from database/sql code through sql.Conn.Raw.
func ExampleConn_ExecMany() {
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE reading(sensor INTEGER, value REAL)"); err != nil {
		log.Fatal(err)
	}

	var p sqlbatch.Params
	for i := range 10000 {
		p.Int(i % 8).Float64(float64(i) * 0.5)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		log.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		res, err := dc.(*driver.Conn).ExecMany(ctx, "INSERT INTO reading VALUES (?, ?)", &p)
		if err != nil {
			return err
		}
		fmt.Println(res.Rows)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		log.Fatal(err)
	}
	// Output: 10000
}

func Example_cancel() {
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	// An endless query: the deadline interrupts SQLite mid-statement.
	err = db.QueryRowContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c").Scan(new(int))
	fmt.Println(errors.Is(err, context.DeadlineExceeded), errors.Is(err, sqlbatch.ErrInterrupt))
	// Output: true true
}

func ExampleParseDSN() {
	cfg, err := driver.ParseDSN("app.db?_journal_mode=WAL&_fk=1&_txlock=immediate&_busy_timeout=2000")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Path, cfg.TxLock, cfg.BusyTimeout)
	for _, p := range cfg.Pragmas {
		fmt.Println(p)
	}
	// Output:
	// app.db BEGIN IMMEDIATE 2s
	// PRAGMA foreign_keys = 1
	// PRAGMA journal_mode = WAL
	// PRAGMA locking_mode = NORMAL
	// PRAGMA synchronous = NORMAL
}
