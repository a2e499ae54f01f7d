package driver_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

func TestKeyOptionsOfTheSQLCipherForks(t *testing.T) {
	for _, tc := range []struct {
		dsn    string
		key    string
		cipher *sqlbatch.Cipher
	}{
		{"f.db?_pragma_key=secret", "secret", nil},
		{"f.db?_key='it''s'", "it's", nil},
		{"f.db?_pragma_key=x'" + hex64 + "'", "x'" + hex64 + "'", nil},
		{"f.db?_pragma=key('secret')", "secret", nil},
		{"f.db?_pragma=key=secret", "secret", nil},
		{"f.db?_pragma=hexkey('" + hex64 + "')", "x'" + hex64 + "'", nil},
		{"f.db?_pragma_key=s&_pragma_cipher_compatibility=3&_pragma_cipher_page_size=1024", "s", &sqlbatch.Cipher{Compatibility: 3, PageSize: 1024}},
		{"f.db?_pragma=key('s')&_pragma=cipher_compatibility(3)&_pragma_kdf_iter=64000", "s", &sqlbatch.Cipher{Compatibility: 3, KDFIter: 64000}},
	} {
		cfg, err := driver.ParseDSN(tc.dsn)
		if err != nil {
			t.Fatalf("%s: %v", tc.dsn, err)
		}
		if string(cfg.Key) != tc.key || !reflect.DeepEqual(cfg.Cipher, tc.cipher) {
			t.Errorf("%s: key %q cipher %+v, want %q %+v", tc.dsn, cfg.Key, cfg.Cipher, tc.key, tc.cipher)
		}
		for _, p := range cfg.Pragmas {
			if bytes.Contains([]byte(p), []byte("key")) || bytes.Contains([]byte(p), []byte("cipher")) {
				t.Errorf("%s: the key went to the pragmas run after opening: %q", tc.dsn, p)
			}
		}
	}
	for _, bad := range []string{"f.db?_pragma_cipher_page_size=1024", "f.db?_key=s&_pragma_kdf_iter=many"} {
		if _, err := driver.ParseDSN(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

const hex64 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

func TestEncryptedDatabaseThroughTheDriver(t *testing.T) {
	if sqlbatch.CipherVersion() == "" {
		if os.Getenv("SQLBATCH_TEST_ENCRYPTION") != "" {
			t.Fatal("SQLBATCH_TEST_ENCRYPTION is set but the library linked has no encryption")
		}
		db, err := sql.Open("sqlbatch", filepath.Join(t.TempDir(), "x.db")+"?_pragma_key=secret")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var e *sqlbatch.Error
		if err := db.Ping(); !errors.As(err, &e) || e.ExtendedCode != sqlbatch.ErrUnsupported {
			t.Fatalf("Ping: %v, want ErrUnsupported", err)
		}
		return
	}
	path := filepath.Join(t.TempDir(), "enc.db")
	db, err := sql.Open("sqlbatch", path+"?_pragma_key=secret&_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('" + marker + "')"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(marker)) {
		t.Fatal("the file holds plaintext")
	}
	db, err = sql.Open("sqlbatch", path+"?_pragma=key('secret')")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s string
	if err := db.QueryRow("SELECT s FROM t").Scan(&s); err != nil || s != marker {
		t.Fatalf("read %q, %v", s, err)
	}
	wrong, err := sql.Open("sqlbatch", path+"?_pragma_key=wrong")
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	var e *sqlbatch.Error
	if err := wrong.Ping(); !errors.As(err, &e) || e.Code != sqlbatch.ErrNotADB {
		t.Fatalf("wrong key: %v, want ErrNotADB", err)
	}
}

const marker = "PLAINTEXT-MARKER-77a0"
