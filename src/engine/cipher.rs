//! Encryption at rest: keys and cipher settings of the encrypted build (the `encryption`
//! feature, SQLCipher's amalgamation in place of SQLite's; docs/encryption.md). In the
//! default build every call here is `SQLBATCH_E_UNSUPPORTED`.
//!
//! SQLCipher takes a key as a passphrase (run through PBKDF2), or as a raw key written
//! `x'…'` with 64 hex digits (a 256-bit key) or 96 (the key and the file's 128-bit salt). It
//! reads nothing when keyed: a wrong key shows only at the first read, so [`apply`] reads the
//! schema at once and reports a wrong key (or wrong settings) where it was given.

#[cfg(feature = "encryption")]
use std::ffi::{c_char, c_void};
use std::ffi::{c_int, CStr};
#[cfg(feature = "encryption")]
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
#[cfg(feature = "encryption")]
use crate::engine::run;
use crate::error::Error;

/// The cipher settings of a key (`sqlbatch_conn_open_encrypted`, `sqlbatch_conn_export`):
/// SQLCipher's pragmas, each applied when non-zero. All zero is SQLCipher 4's defaults
/// (AES-256-CBC, HMAC-SHA512, PBKDF2-HMAC-SHA512 with 256,000 iterations, 4096-byte pages).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct sqlbatch_cipher {
    /// `PRAGMA cipher_compatibility`: 1 to 4, the defaults of that SQLCipher major version
    /// (3 for the files of SQLCipher 3.x, Debian 12's `sqlcipher` among them); 0: 4.
    pub compatibility: i32,
    /// `PRAGMA cipher_page_size`: a power of two from 512 to 65536; 0: the default.
    pub page_size: i32,
    /// `PRAGMA kdf_iter`: the PBKDF2 iterations of a passphrase; 0: the default.
    pub kdf_iter: i32,
    /// `PRAGMA cipher_plaintext_header_size`: bytes of the file's start left unencrypted (a
    /// multiple of 16, at least 32, for the WAL journal on iOS); 0: none, the salt in front.
    pub plaintext_header_size: i32,
}

#[cfg(feature = "encryption")]
extern "C" {
    // SQLCipher's (SQLITE_HAS_CODEC), not in libsqlite3-sys's generated bindings.
    fn sqlite3_key_v2(db: *mut ffi::sqlite3, name: *const c_char, key: *const c_void, n: c_int) -> c_int;
    fn sqlite3_rekey_v2(db: *mut ffi::sqlite3, name: *const c_char, key: *const c_void, n: c_int) -> c_int;
}

#[cfg(not(feature = "encryption"))]
fn unsupported() -> Error {
    Error::new(
        SQLBATCH_E_UNSUPPORTED,
        "this build of sqlbatch has no encryption (build it with make lib ENCRYPTION=1)",
    )
}

/// SQLCipher's version ("4.20.0 community"), or None in the default build.
pub fn version() -> Option<&'static CStr> {
    if cfg!(feature = "encryption") {
        Some(c"4.20.0 community")
    } else {
        None
    }
}

/// Checks a key: not empty, no longer than SQLite takes, and a raw key (`x'…'`) of 64 or 96
/// hex digits.
pub(crate) fn check_key(key: &[u8]) -> Result<(), Error> {
    if key.is_empty() {
        return Err(Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            "the key is empty (an empty key would leave the database unencrypted)",
        ));
    }
    if key.len() > c_int::MAX as usize {
        return Err(Error::new(SQLBATCH_E_RANGE, "the key is longer than 2 GiB"));
    }
    let raw = key.len() >= 3 && (key[0] == b'x' || key[0] == b'X') && key[1] == b'\'';
    if raw {
        let hex = &key[2..key.len() - 1];
        if key[key.len() - 1] != b'\''
            || !(hex.len() == 64 || hex.len() == 96)
            || !hex.iter().all(u8::is_ascii_hexdigit)
        {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                format!(
                    "a raw key is x'…' with 64 hex digits (or 96: the key and the salt); this one has {} characters between the quotes",
                    key.len().saturating_sub(3)
                ),
            ));
        }
    }
    Ok(())
}

/// Turns SQLCipher's log off, once per process, on the first connection: SQLCipher writes
/// its warnings and errors (a wrong key's "hmac check failed") to the process's stderr by
/// default, which is no library's to write to. A program that wants them runs
/// `PRAGMA cipher_log = stderr` (and `cipher_log_level`) after opening a connection.
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn quiet_log(db: *mut ffi::sqlite3) {
    #[cfg(feature = "encryption")]
    {
        static QUIET: std::sync::Once = std::sync::Once::new();
        // SAFETY: the caller's contract.
        QUIET.call_once(|| unsafe {
            let _ = exec(db, "PRAGMA cipher_log = off");
        });
    }
    #[cfg(not(feature = "encryption"))]
    let _ = db;
}

/// Checks a key and settings before anything is opened: `SQLBATCH_E_UNSUPPORTED` in the
/// default build, then [`check_key`] and the settings' ranges.
pub(crate) fn check(key: &[u8], cipher: Option<&sqlbatch_cipher>) -> Result<(), Error> {
    #[cfg(not(feature = "encryption"))]
    {
        let _ = (key, cipher);
        Err(unsupported())
    }
    #[cfg(feature = "encryption")]
    {
        check_key(key)?;
        cipher.map_or(Ok(()), check_cipher)
    }
}

fn check_cipher(c: &sqlbatch_cipher) -> Result<(), Error> {
    let bad = |what: &str| Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("cipher setting: {what}")));
    if !(0..=4).contains(&c.compatibility) {
        return bad("compatibility is 1 to 4 (0: the default)");
    }
    if c.page_size != 0 && !(512..=65536).contains(&c.page_size) || c.page_size.count_ones() > 1 {
        return bad("page_size is a power of two from 512 to 65536 (0: the default)");
    }
    if c.kdf_iter < 0 {
        return bad("kdf_iter is positive (0: the default)");
    }
    if c.plaintext_header_size < 0 || c.plaintext_header_size % 16 != 0 {
        return bad("plaintext_header_size is a multiple of 16 (0: none)");
    }
    Ok(())
}

/// Whether `schema` of `db` is a database of its own file (not in memory, not a temporary
/// one): only those can be encrypted.
///
/// # Safety
/// `db` is open and used by this thread only.
#[cfg(feature = "encryption")]
unsafe fn has_file(db: *mut ffi::sqlite3, schema: &CStr) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    let name = unsafe { ffi::sqlite3_db_filename(db, schema.as_ptr()) };
    if name.is_null() {
        return Err(Error::new(ffi::SQLITE_ERROR, format!("unknown database {}", schema.to_string_lossy())));
    }
    // SAFETY: SQLite's NUL-terminated file name.
    if unsafe { *name } == 0 {
        return Err(Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            format!(
                "database {} is in memory or temporary: only a database in a file can be encrypted",
                schema.to_string_lossy()
            ),
        ));
    }
    Ok(())
}

/// `sql` as a C string for SQLite (the SQL this module writes; a schema name may hold a NUL).
#[cfg(feature = "encryption")]
fn c_sql(sql: &str) -> Result<std::ffi::CString, Error> {
    std::ffi::CString::new(sql).map_err(|_| Error::new(SQLBATCH_E_INVALID_ARGUMENT, "NUL in SQL"))
}

/// Runs the SQL (a pragma) on `db`, discarding any rows.
///
/// # Safety
/// `db` is open and used by this thread only.
#[cfg(feature = "encryption")]
unsafe fn exec(db: *mut ffi::sqlite3, sql: &str) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    unsafe { run::exec(db, &c_sql(sql)?) }
}

/// `"schema"` quoted as an SQL identifier.
#[cfg(feature = "encryption")]
fn ident(schema: &CStr) -> String {
    format!("\"{}\"", schema.to_string_lossy().replace('"', "\"\""))
}

/// Keys `schema` of a connection that has not read it yet and applies `cipher`; reads
/// nothing ([`verify`] does, after the connection's other set-up). The library keeps no copy
/// of `key` (SQLCipher keeps the derived key, and wipes it when the connection closes).
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn apply(
    db: *mut ffi::sqlite3,
    schema: &CStr,
    key: &[u8],
    cipher: Option<&sqlbatch_cipher>,
) -> Result<(), Error> {
    check(key, cipher)?;
    #[cfg(not(feature = "encryption"))]
    {
        let _ = (db, schema);
        Err(unsupported())
    }
    #[cfg(feature = "encryption")]
    // SAFETY: the caller's contract; `key` is valid for its length.
    unsafe {
        has_file(db, schema)?;
        let rc = sqlite3_key_v2(db, schema.as_ptr(), key.as_ptr().cast(), key.len() as c_int);
        if rc != ffi::SQLITE_OK {
            return Err(Error::from_db(db, rc));
        }
        settings(db, &ident(schema), cipher)
    }
}

/// Applies the non-zero settings of `cipher` to the keyed database `schema` (an identifier):
/// cipher_compatibility first, as it sets the defaults the others then change.
///
/// # Safety
/// `db` is open and used by this thread only.
#[cfg(feature = "encryption")]
unsafe fn settings(
    db: *mut ffi::sqlite3,
    schema: &str,
    cipher: Option<&sqlbatch_cipher>,
) -> Result<(), Error> {
    let c = cipher.copied().unwrap_or_default();
    for (pragma, value) in [
        ("cipher_compatibility", c.compatibility),
        ("cipher_page_size", c.page_size),
        ("kdf_iter", c.kdf_iter),
        ("cipher_plaintext_header_size", c.plaintext_header_size),
    ] {
        if value != 0 {
            // SAFETY: the caller's contract.
            unsafe { exec(db, &format!("PRAGMA {schema}.{pragma} = {value}"))? };
        }
    }
    Ok(())
}

/// Reads the schema of the keyed `schema`: the first read, where SQLCipher finds a wrong key
/// (`SQLITE_NOTADB`, with a message that says so: [`explain`]).
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn verify(db: *mut ffi::sqlite3, schema: &CStr) -> Result<(), Error> {
    #[cfg(not(feature = "encryption"))]
    {
        let _ = (db, schema);
        Err(unsupported())
    }
    #[cfg(feature = "encryption")]
    // SAFETY: the caller's contract.
    unsafe {
        exec(db, &format!("SELECT count(*) FROM {}.sqlite_schema", ident(schema)))
            .map_err(|e| explain(e, schema))
    }
}

/// The error of a first read of a keyed database: `SQLITE_NOTADB` says that the key or the
/// settings may be wrong.
pub(crate) fn explain(e: Error, schema: &CStr) -> Error {
    if e.code & 0xff == ffi::SQLITE_NOTADB {
        Error::new(
            e.code,
            format!(
                "file is not a database, or not one this key and these cipher settings open (database {})",
                schema.to_string_lossy()
            ),
        )
    } else {
        e
    }
}

/// Changes the key of the encrypted `schema` in place (`sqlite3_rekey_v2`: every page is
/// rewritten, in one transaction, under an exclusive lock taken first). SQLCipher cannot encrypt a plain database in place, nor
/// decrypt one: that is [`export`].
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn rekey(db: *mut ffi::sqlite3, schema: &CStr, key: &[u8]) -> Result<(), Error> {
    check_key(key)?;
    #[cfg(not(feature = "encryption"))]
    {
        let _ = (db, schema);
        Err(unsupported())
    }
    #[cfg(feature = "encryption")]
    // SAFETY: the caller's contract; `key` is valid for its length.
    unsafe {
        has_file(db, schema)?;
        // Whether the database is encrypted: SQLCipher's rekey of a plain one does nothing.
        if !keyed(db, schema)? {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                format!(
                    "database {} is not encrypted: SQLCipher cannot encrypt a database in place (sqlbatch_conn_export writes an encrypted copy)",
                    schema.to_string_lossy()
                ),
            ));
        }
        // SQLCipher's rekey takes the new key for the connection even when its commit fails
        // (it ignores the commit's status): with another connection reading, the file would
        // keep the old key and this connection write pages with the new one. So the file is
        // locked first: BUSY here changes nothing, and the rekey's commit then cannot be
        // refused a lock.
        exec(db, "BEGIN EXCLUSIVE")?;
        let rc = sqlite3_rekey_v2(db, schema.as_ptr(), key.as_ptr().cast(), key.len() as c_int);
        if rc != ffi::SQLITE_OK {
            let e = Error::from_db(db, rc);
            let _ = exec(db, "ROLLBACK");
            return Err(e);
        }
        exec(db, "COMMIT")
    }
}

/// The integer a pragma such as `PRAGMA main.user_version` answers.
///
/// # Safety
/// `db` is open and used by this thread only.
#[cfg(feature = "encryption")]
unsafe fn int_pragma(db: *mut ffi::sqlite3, sql: &str) -> Result<i64, Error> {
    // SAFETY: the caller's contract.
    let value = unsafe { run::first_row(db, &c_sql(sql)?, |stmt| ffi::sqlite3_column_int64(stmt, 0)) }?;
    value.ok_or_else(|| Error::new(ffi::SQLITE_ERROR, format!("{sql} gave no value")))
}

/// Whether `schema` has a key (SQLCipher's `PRAGMA cipher_provider` answers only then).
///
/// # Safety
/// `db` is open and used by this thread only.
#[cfg(feature = "encryption")]
unsafe fn keyed(db: *mut ffi::sqlite3, schema: &CStr) -> Result<bool, Error> {
    let sql = c_sql(&format!("PRAGMA {}.cipher_provider", ident(schema)))?;
    // SAFETY: the caller's contract; the text is looked at while the statement is on its row.
    let provider = unsafe { run::first_row(db, &sql, |stmt| run::text0(stmt).is_some()) }?;
    Ok(provider == Some(true))
}

/// Writes the content of `schema` into a new database file at `path`, encrypted with `key`
/// and `cipher`, or plain when `key` is empty (SQLCipher's `sqlcipher_export`): how a plain
/// database is encrypted and an encrypted one decrypted. `path` must not exist or be empty.
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn export(
    db: *mut ffi::sqlite3,
    schema: &CStr,
    path: &CStr,
    key: &[u8],
    cipher: Option<&sqlbatch_cipher>,
) -> Result<(), Error> {
    if !key.is_empty() {
        check_key(key)?;
    }
    if let Some(c) = cipher {
        check_cipher(c)?;
    }
    #[cfg(not(feature = "encryption"))]
    {
        let _ = (db, schema, path);
        Err(unsupported())
    }
    #[cfg(feature = "encryption")]
    // SAFETY: the caller's contract.
    unsafe {
        if ffi::sqlite3_db_filename(db, schema.as_ptr()).is_null() {
            return Err(Error::new(
                ffi::SQLITE_ERROR,
                format!("unknown database {}", schema.to_string_lossy()),
            ));
        }
        if std::fs::metadata(std::ffi::OsStr::from_encoded_bytes_unchecked(path.to_bytes()))
            .is_ok_and(|m| m.len() > 0)
        {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                format!(
                    "{} exists and is not empty: the export writes a new database",
                    path.to_string_lossy()
                ),
            ));
        }
        // ATTACH with a bound file name and key (the key is no SQL literal, and no copy of it
        // is made), then the settings, the export and the DETACH, which runs on every path.
        let mut stmt = ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"ATTACH DATABASE ?1 AS sqlbatch_export KEY ?2".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            return Err(Error::from_db(db, rc));
        }
        ffi::sqlite3_bind_text(stmt, 1, path.as_ptr(), -1, ffi::SQLITE_STATIC());
        ffi::sqlite3_bind_blob(stmt, 2, key.as_ptr().cast(), key.len() as c_int, ffi::SQLITE_STATIC());
        let rc = ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        if rc != ffi::SQLITE_DONE {
            return Err(Error::from_db(db, rc));
        }
        let run = || -> Result<(), Error> {
            if !key.is_empty() {
                settings(db, "sqlbatch_export", cipher)?;
            }
            let from = schema.to_string_lossy().replace('\'', "''");
            exec(db, &format!("SELECT sqlcipher_export('sqlbatch_export', '{from}')"))?;
            // sqlcipher_export copies the schema and the rows, not the header's numbers.
            for pragma in ["user_version", "application_id"] {
                let value = int_pragma(db, &format!("PRAGMA {}.{pragma}", ident(schema)))?;
                exec(db, &format!("PRAGMA sqlbatch_export.{pragma} = {value}"))?;
            }
            Ok(())
        };
        let result = run();
        let detached = exec(db, "DETACH DATABASE sqlbatch_export");
        result.and(detached)
    }
}
