package sqlbatch_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// An encrypted database: created with a key, reopened with it, and refused with another.
// With a library built without encryption every key call returns ErrUnsupported.
func ExampleOpenEncrypted() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "secrets.db")
	key := []byte("correct horse battery staple")

	c, err := sqlbatch.OpenEncrypted(path, 0, key, nil)
	var e *sqlbatch.Error
	if errors.As(err, &e) && e.ExtendedCode == sqlbatch.ErrUnsupported {
		fmt.Println("this build of sqlbatch has no encryption")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('hidden')"); err != nil {
		log.Fatal(err)
	}
	if err := c.Close(); err != nil {
		log.Fatal(err)
	}
	if _, err := sqlbatch.OpenEncrypted(path, 0, []byte("a guess"), nil); errors.As(err, &e) && e.Code == sqlbatch.ErrNotADB {
		fmt.Println("a wrong key does not open it")
	}
}
