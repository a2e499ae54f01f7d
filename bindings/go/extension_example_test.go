package sqlbatch_test

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Loading from a shared library is refused until the connection enables it (the file need
// not even exist for that).
func ExampleConn_EnableLoadExtension() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	fmt.Println(c.LoadExtension("./vec0.so", ""))
	// Output: not authorized
}

// Loading sqlite-vec from vec0.so (built by scripts/build-sqlite-vec.sh). This example has
// no output to check: it needs the file, and runs only as documentation.
func ExampleConn_LoadExtension() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := c.EnableLoadExtension(true); err != nil {
		log.Fatal(err)
	}
	// "" for the default entry point: sqlite3_vec_init, derived from the file name.
	if err := c.LoadExtension("./vec0.so", ""); err != nil {
		log.Fatal(err)
	}
	// Off again: what is loaded stays loaded.
	if err := c.EnableLoadExtension(false); err != nil {
		log.Fatal(err)
	}

	rows, err := c.Query("SELECT vec_distance_l2('[1, 2]', '[4, 6]')")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Float64(0)) // 5
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
}
