//! Entry points: encryption at rest (the encrypted build's keys and cipher settings).

use std::ffi::{c_char, c_void};
use std::ptr;

use crate::codes::*;
use crate::engine::cipher::{self, sqlbatch_cipher};
use crate::engine::conn::{sqlbatch_conn, ConnShared};
use crate::ffi::*;
use crate::panic::boundary;

/// sqlbatch_cipher_version returns the version of SQLCipher in an encrypted build of the
/// library (`make lib ENCRYPTION=1`), e.g. "4.20.0 community", or NULL in a build without
/// encryption, where every key call returns `SQLBATCH_E_UNSUPPORTED`.
///
/// Ownership: a static string. Thread: any.
#[no_mangle]
pub extern "C" fn sqlbatch_cipher_version() -> *const c_char {
    cipher::version().map_or(ptr::null(), |v| v.as_ptr())
}

/// sqlbatch_conn_open_encrypted opens a database encrypted with `key` (`key_len` bytes), as
/// `sqlbatch_conn_open` opens one (same `path` and `flags`, same handle rules), keying it
/// before anything reads the file. A new or empty file becomes an encrypted database; an
/// existing one must have been encrypted with this key and these settings.
///
/// `key` is a passphrase (any bytes; SQLCipher derives the key with PBKDF2), or a raw key
/// written `x'…'` with 64 hex digits (a 256-bit key) or 96 (the key, then the file's 128-bit
/// salt). `cipher` gives SQLCipher's settings (NULL or all zero: SQLCipher 4's defaults; its
/// `compatibility` 3 reads and writes SQLCipher 3's files); an existing file opens only with
/// the settings it was written with. The file is read once here, so that a wrong key or wrong
/// settings fail here, not at the first query.
///
/// Ownership: `key` and `cipher` are read during the call only; the library keeps no copy of
/// the key (SQLCipher keeps the key it derives, in memory it wipes when the connection
/// closes), so the caller may wipe its own at once. `*out_conn` as for `sqlbatch_conn_open`:
/// set whenever a handle exists, even when opening fails; always closed with
/// `sqlbatch_conn_close`. A key or settings refused before the file is opened (or created)
/// also give a handle, one that was never open, so that `sqlbatch_conn_last_error` says what
/// is wrong with them; every other call on it returns `SQLBATCH_E_CLOSED`. Thread: any; the
/// new connection's rules are `sqlbatch_conn_open`'s.
/// NULL: `out_conn` NULL, `path` NULL with `path_len > 0` or `key` NULL with `key_len > 0`:
/// `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_UNSUPPORTED` in a build without encryption;
/// `SQLBATCH_E_INVALID_ARGUMENT` for an empty key, a malformed raw key, a setting out of range,
/// or an in-memory or temporary database (which have no file to encrypt);
/// `SQLITE_NOTADB` when the key or the settings do not open the file (or it is no database);
/// otherwise what `sqlbatch_conn_open` returns.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_open_encrypted(
    path: *const c_char,
    path_len: usize,
    flags: u32,
    key: *const c_void,
    key_len: usize,
    cipher: *const sqlbatch_cipher,
    out_conn: *mut *mut sqlbatch_conn,
) -> i32 {
    if out_conn.is_null() {
        return SQLBATCH_E_NULL_PARAMETER;
    }
    // SAFETY: `out_conn` is valid for writes (the caller's contract).
    unsafe { out_conn.write(ptr::null_mut()) };
    boundary(None, || {
        // SAFETY: the caller vouches for the pointers.
        let (bytes, key, cipher) = unsafe {
            (try_bytes(path, path_len, "path")?, try_bytes(key.cast(), key_len, "key")?, cipher.as_ref())
        };
        let (shared, opened) = ConnShared::open(bytes, flags, Some((key, cipher)))?;
        // SAFETY: as above.
        unsafe { out_conn.write(Box::into_raw(Box::new(sqlbatch_conn { shared }))) };
        opened.map(|()| SQLBATCH_OK)
    })
}

/// sqlbatch_conn_rekey changes the key of the encrypted database `schema` (NULL: "main") to
/// `key` (`key_len` bytes, a passphrase or a raw key as for `sqlbatch_conn_open_encrypted`),
/// rewriting every page in one transaction (`sqlite3_rekey_v2`); its cipher settings stay. A
/// database in WAL mode must be switched to a rollback journal first (SQLCipher's rule).
///
/// SQLCipher encrypts or decrypts no database in place: for a plain database this returns
/// `SQLBATCH_E_INVALID_ARGUMENT`, and `sqlbatch_conn_export` writes an encrypted copy (or,
/// with an empty key, a plain copy of an encrypted one).
///
/// Ownership: `key` is read during the call only. Thread: the connection's.
/// NULL: `conn` NULL, or `key` NULL with `key_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_UNSUPPORTED` in a build without encryption;
/// `SQLBATCH_E_INVALID_ARGUMENT` (empty or malformed key, a plain, in-memory or temporary
/// database); `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_BUSY` while another connection
/// reads, `SQLITE_ERROR` for an unknown schema), recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_rekey(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    key: *const c_void,
    key_len: usize,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers; `db` is open and used by this thread only.
        unsafe {
            let name = schema_name(schema, schema_len)?;
            let key = try_bytes(key.cast(), key_len, "key")?;
            cipher::rekey(db, &name, key)?;
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_export writes the whole content of database `schema` of `conn` (NULL:
/// "main"; schema, tables, indexes, triggers, views, the user version) into a new database file
/// at `path` (`path_len` bytes, UTF-8), encrypted with `key` and `cipher` (as for
/// `sqlbatch_conn_open_encrypted`), or plain when `key_len` is 0 (SQLCipher's
/// `sqlcipher_export`). This is how a plain database is encrypted, an encrypted one decrypted,
/// or its cipher settings changed: export, close, then replace the file with the copy.
///
/// `path` must not exist, or be an empty file. The copy is attached to `conn` for the call
/// (as `sqlbatch_export`) and detached on every path; a failure can leave a partial file at
/// `path`, which is the caller's to delete.
///
/// Ownership: `key`, `cipher` and `path` are read during the call only. Thread: the
/// connection's.
/// NULL: `conn` NULL, `path` NULL with `path_len > 0`, or `key` NULL with `key_len > 0`:
/// `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_UNSUPPORTED` in a build without encryption;
/// `SQLBATCH_E_INVALID_ARGUMENT` (malformed key or setting, `path` not new);
/// `SQLBATCH_E_INVALID_UTF8`; `SQLBATCH_E_CLOSED`; SQLite's error, recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_export(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    path: *const c_char,
    path_len: usize,
    key: *const c_void,
    key_len: usize,
    cipher: *const sqlbatch_cipher,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers; `db` is open and used by this thread only.
        unsafe {
            let name = schema_name(schema, schema_len)?;
            let path_bytes = try_bytes(path, path_len, "path")?;
            crate::error::check_utf8(path_bytes, "path")?;
            let path = try_cstring(path, path_len, "path")?;
            let key = try_bytes(key.cast(), key_len, "key")?;
            cipher::export(db, &name, &path, key, cipher.as_ref())?;
        }
        Ok(SQLBATCH_OK)
    })
}
