package capi

/*
#include <stdint.h>
#include "sqlbatch.h"

// Encryption at rest (the encrypted build). open_encrypted reads the file and rekey and
// export rewrite it: with a Go hook set (the busy handler, the progress handler) they may
// call back into Go, so they are neither nocallback nor noescape.
*/
import "C"

import "unsafe"

// Cipher is sqlbatch_cipher: SQLCipher's settings, each applied when non-zero.
type Cipher struct {
	Compatibility, PageSize, KDFIter, PlaintextHeaderSize int32
}

func (c *Cipher) c() *C.sqlbatch_cipher {
	if c == nil {
		return nil
	}
	return &C.sqlbatch_cipher{
		compatibility:         C.int32_t(c.Compatibility),
		page_size:             C.int32_t(c.PageSize),
		kdf_iter:              C.int32_t(c.KDFIter),
		plaintext_header_size: C.int32_t(c.PlaintextHeaderSize),
	}
}

// keyPtr is the start of key, or nil for an empty key.
func keyPtr(key []byte) unsafe.Pointer {
	if len(key) == 0 {
		return nil
	}
	return unsafe.Pointer(&key[0])
}

// CipherVersion is sqlbatch_cipher_version: "" in a build without encryption.
func CipherVersion() string {
	p := C.sqlbatch_cipher_version()
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// OpenEncrypted is sqlbatch_conn_open_encrypted; the handle rules are Open's.
func OpenEncrypted(path string, flags uint32, key []byte, cipher *Cipher) (Conn, int32) {
	var p *C.sqlbatch_conn
	rc := C.sqlbatch_conn_open_encrypted(cstr(path), C.size_t(len(path)), C.uint32_t(flags),
		keyPtr(key), C.size_t(len(key)), cipher.c(), &p)
	return Conn{p}, int32(rc)
}

// Rekey is sqlbatch_conn_rekey.
func (c Conn) Rekey(schema string, key []byte) int32 {
	s, sl := optstr(schema)
	return int32(C.sqlbatch_conn_rekey(c.p, s, sl, keyPtr(key), C.size_t(len(key))))
}

// Export is sqlbatch_conn_export.
func (c Conn) Export(schema, path string, key []byte, cipher *Cipher) int32 {
	s, sl := optstr(schema)
	return int32(C.sqlbatch_conn_export(c.p, s, sl, cstr(path), C.size_t(len(path)),
		keyPtr(key), C.size_t(len(key)), cipher.c()))
}
