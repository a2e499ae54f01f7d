package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// Every connection of a pool loads sqlite-vec from vec0.so (built by
// scripts/build-sqlite-vec.sh), as with mattn/go-sqlite3's SQLiteDriver.Extensions. No
// output to check: it needs the file.
func ExampleDriver_extensions() {
	sql.Register("sqlbatch_vec", &driver.SQLiteDriver{Extensions: []string{"./vec0.so"}})
	db, err := sql.Open("sqlbatch_vec", "app.db")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	var d float64
	if err := db.QueryRow("SELECT vec_distance_l2('[1, 2]', '[4, 6]')").Scan(&d); err != nil {
		log.Fatal(err)
	}
	fmt.Println(d) // 5
}

// One connection loads an extension, as with mattn/go-sqlite3's SQLiteConn.LoadExtension:
// loading is enabled for the call only. No output to check: it needs the file.
func ExampleConn_LoadExtension() {
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

	err = conn.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).LoadExtension("./vec0.so", "sqlite3_vec_init")
	})
	if err != nil {
		log.Fatal(err)
	}
	var v string
	if err := conn.QueryRowContext(ctx, "SELECT vec_version()").Scan(&v); err != nil {
		log.Fatal(err)
	}
	fmt.Println(v)
}
