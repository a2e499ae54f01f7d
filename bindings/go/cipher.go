package sqlbatch

import "github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"

// Cipher holds SQLCipher's settings of an encrypted database (OpenEncrypted, Conn.Export);
// a zero field keeps SQLCipher 4's default (AES-256-CBC, HMAC-SHA512, PBKDF2-HMAC-SHA512
// with 256,000 iterations, 4096-byte pages). A file opens only with the settings it was
// written with.
type Cipher struct {
	// Compatibility is PRAGMA cipher_compatibility: 1 to 4, the defaults of that SQLCipher
	// major version (3 for SQLCipher 3.x's files, such as Debian 12's sqlcipher writes).
	Compatibility int
	// PageSize is PRAGMA cipher_page_size: a power of two from 512 to 65536.
	PageSize int
	// KDFIter is PRAGMA kdf_iter: the PBKDF2 iterations of a passphrase.
	KDFIter int
	// PlaintextHeaderSize is PRAGMA cipher_plaintext_header_size: bytes at the start of the
	// file left unencrypted (a multiple of 16, at least 32), for iOS's shared WAL containers.
	PlaintextHeaderSize int
}

func (c *Cipher) capi() *capi.Cipher {
	if c == nil {
		return nil
	}
	return &capi.Cipher{
		Compatibility:       int32(c.Compatibility),
		PageSize:            int32(c.PageSize),
		KDFIter:             int32(c.KDFIter),
		PlaintextHeaderSize: int32(c.PlaintextHeaderSize),
	}
}

// CipherVersion returns the version of SQLCipher in an encrypted build of the library
// ("4.20.0 community"), or "" in a build without encryption, where OpenEncrypted, Rekey and
// Export return ErrUnsupported. The encrypted library is built with `make lib ENCRYPTION=1`
// and linked with -tags sqlbatch_external or sqlbatch_pkgconfig (see the README).
func CipherVersion() string { return capi.CipherVersion() }

// OpenEncrypted opens a database encrypted with key, as OpenWithFlags opens one, keying it
// before anything reads the file: a new or empty file becomes an encrypted database, an
// existing one must have been written with this key and these settings (nil: the
// defaults). key is a passphrase, or a raw key written x'…' with 64 hex digits (a 256-bit
// key) or 96 (the key and the file's salt). The file is read once here, so a wrong key fails
// here with ErrNotADB rather than at the first query; an empty or malformed key, or an
// in-memory or temporary database (which has no file to encrypt), is ErrInvalidArgument.
//
// The library keeps no copy of key (SQLCipher keeps the key it derives, in memory it wipes
// at Close): the caller may clear its slice as soon as this returns.
func OpenEncrypted(path string, flags OpenFlags, key []byte, cipher *Cipher) (*Conn, error) {
	h, rc := capi.OpenEncrypted(path, uint32(flags), key, cipher.capi())
	if rc != capi.OK {
		err := lastError(h, rc, "")
		h.Close()
		return nil, err
	}
	ahead := flags&OpenFetchAhead != 0
	return &Conn{h: h, aheadFlag: ahead, worker: ahead}, nil
}

// Rekey changes the key of the encrypted database schema ("" is "main"), rewriting every
// page in one transaction under an exclusive lock: ErrBusy while another connection reads
// it, and then nothing has changed. Its cipher settings stay. SQLCipher encrypts or decrypts
// no database in place: a plain database gives ErrInvalidArgument, and Export writes an
// encrypted copy of it (or, with an empty key, a plain copy of an encrypted one).
func (c *Conn) Rekey(schema string, key []byte) error {
	if rc := c.h.Rekey(schema, key); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// Export writes the whole content of database schema ("" is "main") into a new database
// file at path, encrypted with key and cipher (as for OpenEncrypted), or plain when key is
// empty: how a plain database is encrypted, an encrypted one decrypted, or its settings
// changed (export, close, replace the file with the copy). path must not exist or be empty
// (ErrInvalidArgument); a failure may leave a partial file there, which is the caller's to
// remove.
func (c *Conn) Export(schema, path string, key []byte, cipher *Cipher) error {
	if rc := c.h.Export(schema, path, key, cipher.capi()); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}
