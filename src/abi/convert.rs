//! Entry points: conversions of single values.

use crate::codes::*;
use crate::ffi::*;

use crate::engine::value::sqlbatch_value;

use crate::engine::convert::convert;

/// sqlbatch_value_convert converts one value to storage class `to` (`SQLBATCH_INTEGER`,
/// `SQLBATCH_FLOAT`, `SQLBATCH_TEXT` or `SQLBATCH_BLOB`) exactly as `sqlite3_column_int64`,
/// `sqlite3_column_double`, `sqlite3_column_text` or `sqlite3_column_blob` of the bundled
/// SQLite would for that value: TEXT '1e3' gives the INTEGER 1 and the FLOAT 1000.0, ' +5.5e1'
/// gives 5 and 55.0, '0x10' gives 0, the REAL 1e21 gives the TEXT "1.0e+21", -0.0 gives "0.0",
/// +Inf gives "Inf". Use it wherever a value is read as another class than its own.
///
/// TEXT and BLOB bytes of `value` are at `data + value->bits` (`value->len` bytes; `data`
/// holds `data_len` bytes): for a cell of a batch, pass the batch's `data` and `data_len`.
/// A value with `len == 0` reads no bytes.
///
/// The result, in `*out_value`, has kind `to`, except that a NULL value, and a FLOAT NaN,
/// convert to TEXT or BLOB as a NULL-kind value (`sqlite3_column_text` returns NULL):
/// - to INTEGER or FLOAT: the number in `out_value->bits` (a NULL value gives 0 or 0.0);
/// - to TEXT or BLOB from INTEGER or FLOAT: SQLite's rendering is written to `buf` (at most
///   24 bytes, followed by a NUL not counted in `len`), `out_value->bits` is 0 (the offset of
///   the bytes in `buf`) and `out_value->len` their length. `buf` must hold 32 bytes;
/// - to TEXT or BLOB from TEXT or BLOB: the bytes do not change: `out_value->bits` and
///   `out_value->len` are those of `value` (relative to `data`), only the kind changes.
///
/// `to` may carry `SQLBATCH_CONVERT_UTF16LE` or `SQLBATCH_CONVERT_UTF16BE` for a value that
/// comes from a database of that encoding (`sqlbatch_conn_encoding`): SQLite reads a BLOB's
/// bytes as text of the database's encoding when it makes a number of them (in a UTF-16BE
/// database, `CAST('12' AS BLOB)` holds `00 31 00 32`, which converts to 12; without the flag,
/// as UTF-8 bytes, to 0). The flags change nothing else: TEXT cells are UTF-8 in every
/// database (fetches read them so), and a conversion between TEXT and BLOB keeps the bytes
/// (the one case that is not `sqlite3_column_text`'s in a UTF-16 database, which translates a
/// BLOB's bytes from UTF-16: translate them yourself there).
///
/// Zero bytes are a TEXT or BLOB result of `len` 0 (where `sqlite3_column_blob` returns NULL).
/// TEXT results are not checked to be UTF-8, as SQLite does not check them.
///
/// A FLOAT value holding a NaN converts as SQLite treats one: `sqlite3_bind_double` binds a
/// NaN as SQL NULL, so it gives 0, 0.0, or a NULL-kind TEXT/BLOB result.
///
/// Ownership: nothing is kept: `value`, `data` and `buf` may be freed as soon as this returns.
/// Threads: any thread, at any time, concurrently with anything (no connection is involved;
/// TEXT/BLOB to number uses a private per-thread SQLite connection, opened on first use and
/// closed when the thread exits).
/// NULL: `value` or `out_value` NULL, or `buf` NULL when a number is rendered:
/// `SQLBATCH_E_NULL_PARAMETER`. `data` may be NULL when no bytes are read; `buf` may be
/// NULL otherwise. On error `*out_value` is a NULL-kind value.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_INVALID_ARGUMENT` for an
/// unknown `value->kind` or `to` (or both UTF-16 flags), or TEXT/BLOB bytes with a NULL `data`; `SQLBATCH_E_RANGE`
/// for bytes outside `data_len`; `SQLBATCH_E_BUFFER_TOO_SMALL` when an INTEGER or FLOAT is
/// converted to TEXT or BLOB and `buf_len < 32`; or SQLite's error for TEXT/BLOB to a number
/// (`SQLITE_TOOBIG` for bytes over SQLite's length limit, `SQLITE_NOMEM`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_value_convert(
    value: *const sqlbatch_value,
    data: *const u8,
    data_len: usize,
    to: u8,
    out_value: *mut sqlbatch_value,
    buf: *mut u8,
    buf_len: usize,
) -> i32 {
    ffi_boundary!({
        // Copied before `*out_value` is written: the two may be the same value.
        // SAFETY: non-NULL pointers are the caller's live values; the reference to `*value`
        // ends before the one to `*out_value` is made.
        let v = unsafe { try_ref(value, "value") }.copied();
        // SAFETY: as above.
        let out = unsafe { try_mut(out_value, "out_value")? };
        *out = sqlbatch_value::NULL;
        // SAFETY: the caller vouches for `data`/`data_len` and `buf`/`buf_len`.
        *out = unsafe { convert(&v?, data, data_len, to, buf, buf_len)? };
        Ok(SQLBATCH_OK)
    })
}
