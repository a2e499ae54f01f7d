package sqlbatch_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// The key calls run against whichever library the test binary links: the default build
// (make test) says it has no encryption; the encrypted one (make test-encryption, which
// links build/lib-encrypted) is tested through them.

const marker = "PLAINTEXT-MARKER-5d2e"

func encrypted(t *testing.T) {
	t.Helper()
	if sqlbatch.CipherVersion() == "" {
		if os.Getenv("SQLBATCH_TEST_ENCRYPTION") != "" {
			t.Fatal("SQLBATCH_TEST_ENCRYPTION is set but the library linked has no encryption")
		}
		t.Skip("the library linked has no encryption (make test-encryption links the encrypted one)")
	}
}

func TestKeyCallsWithoutEncryptionReturnErrUnsupported(t *testing.T) {
	if sqlbatch.CipherVersion() != "" {
		t.Skip("the library linked is the encrypted build")
	}
	path := filepath.Join(t.TempDir(), "x.db")
	_, err := sqlbatch.OpenEncrypted(path, 0, []byte("secret"), nil)
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.ExtendedCode != sqlbatch.ErrUnsupported {
		t.Fatalf("OpenEncrypted: %v, want ErrUnsupported", err)
	}
	if !strings.Contains(err.Error(), "ENCRYPTION=1") {
		t.Fatalf("OpenEncrypted: %v, want the library's message on how to build with encryption", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a file was created: %v", err)
	}
	c := memory(t)
	if err := c.Rekey("", []byte("k")); !errors.As(err, &e) || e.ExtendedCode != sqlbatch.ErrUnsupported {
		t.Fatalf("Rekey: %v, want ErrUnsupported", err)
	}
}

// strs returns the single TEXT column of every row of sql.
func strs(t *testing.T, c *sqlbatch.Conn, sql string) []string {
	t.Helper()
	rows, err := c.Query(sql)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func createEncrypted(t *testing.T, path string, key []byte, cipher *sqlbatch.Cipher) {
	t.Helper()
	c, err := sqlbatch.OpenEncrypted(path, 0, key, cipher)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE t(s TEXT); INSERT INTO t VALUES (?)", marker)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenEncryptedRoundTrip(t *testing.T) {
	encrypted(t)
	path := filepath.Join(t.TempDir(), "enc.db")
	key := []byte("correct horse")
	createEncrypted(t, path, key, nil)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(marker)) || bytes.HasPrefix(raw, []byte("SQLite format 3")) {
		t.Fatal("the file holds plaintext")
	}
	c, err := sqlbatch.OpenEncrypted(path, 0, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := strs(t, c, "SELECT s FROM t"); len(got) != 1 || got[0] != marker {
		t.Fatalf("read %q", got)
	}
	_, err = sqlbatch.OpenEncrypted(path, 0, []byte("wrong"), nil)
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.Code != sqlbatch.ErrNotADB {
		t.Fatalf("wrong key: %v, want ErrNotADB", err)
	}
	for bad, says := range map[string]string{"": "the key is empty", "x'12'": "a raw key is x'…'"} {
		_, err := sqlbatch.OpenEncrypted(path, 0, []byte(bad), nil)
		if !errors.As(err, &e) || e.Code != sqlbatch.ErrInvalidArgument {
			t.Fatalf("key %q: %v, want ErrInvalidArgument", bad, err)
		}
		if !strings.Contains(err.Error(), says) {
			t.Fatalf("key %q: %v, want the library's message %q", bad, err, says)
		}
	}
	if _, err := sqlbatch.OpenEncrypted(":memory:", 0, key, nil); !errors.As(err, &e) || e.Code != sqlbatch.ErrInvalidArgument {
		t.Fatalf(":memory: %v, want ErrInvalidArgument", err)
	}
}

func TestRekeyAndExport(t *testing.T) {
	encrypted(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "enc.db")
	createEncrypted(t, path, []byte("old"), &sqlbatch.Cipher{Compatibility: 3})
	c, err := sqlbatch.OpenEncrypted(path, 0, []byte("old"), &sqlbatch.Cipher{Compatibility: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Rekey("", []byte("new")); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.db")
	if err := c.Export("", plain, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlbatch.OpenEncrypted(path, 0, []byte("old"), &sqlbatch.Cipher{Compatibility: 3}); err == nil {
		t.Fatal("the old key still opens the file")
	}
	p, err := sqlbatch.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := strs(t, p, "SELECT s FROM t"); len(got) != 1 || got[0] != marker {
		t.Fatalf("plain copy read %q", got)
	}
	var e *sqlbatch.Error
	if err := p.Rekey("", []byte("k")); !errors.As(err, &e) || e.Code != sqlbatch.ErrInvalidArgument {
		t.Fatalf("rekey of a plain database: %v, want ErrInvalidArgument", err)
	}
}
