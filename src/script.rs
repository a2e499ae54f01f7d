//! Script exec: every statement of a multi-statement SQL string in one call.
//!
//! The loop is `sqlite3_exec`'s (prepare the next statement at the tail, step it to the end,
//! finalize), plus parameters consumed in order across the statements and an exact report of
//! where a failure happened. It allocates nothing per statement beyond what SQLite does.

use std::ffi::{c_char, c_int, CStr};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::{sqlbatch_conn, ConnShared};
use crate::error::{check_no_nul, check_utf8, Error};
use crate::ffi::{try_bytes, write_opt};
use crate::panic::boundary;
use crate::run::{run_to_done, Changes};
use crate::stmt::prepare_raw;
use crate::value::{bind_value, sqlbatch_value, Lifetime, Params};

/// What `sqlbatch_conn_exec` did; written also when it fails, to say what ran before.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct sqlbatch_exec_result {
    /// Statements that ran to completion.
    pub statements: u64,
    /// Parameters bound by those statements (a named value counts each time it is bound).
    pub params_used: u64,
    /// Rows inserted, updated or deleted directly by those statements, summed.
    pub changes: i64,
    /// `sqlite3_last_insert_rowid` after the call.
    pub last_insert_rowid: i64,
    /// Byte offset where execution stopped: `sql_len` after success, the first byte of the
    /// failing statement after a failure.
    pub end_offset: usize,
}

/// Owns a prepared statement for the length of one script step.
struct Finalize(*mut ffi::sqlite3_stmt);

impl Drop for Finalize {
    fn drop(&mut self) {
        // SAFETY: the handle came from sqlite3_prepare_v3 and is finalized once.
        unsafe { ffi::sqlite3_finalize(self.0) };
    }
}

/// The offset of the first byte of `sql[from..]` that is not whitespace or a comment.
fn skip_space_and_comments(sql: &[u8], mut i: usize) -> usize {
    while i < sql.len() {
        match sql[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => i += 1,
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                i = match sql[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => i + 2 + p + 2,
                    None => sql.len(),
                };
            }
            _ => break,
        }
    }
    i
}

/// Parameters of a script: positional values consumed in order, and values given by name.
struct ScriptParams<'a> {
    params: Params<'a>,
    /// `names[i]` names `params.values[i]`; a NULL-kind name makes the value positional.
    names: &'a [sqlbatch_value],
    /// Index of the next positional value not yet consumed.
    next: usize,
}

impl ScriptParams<'_> {
    fn is_named(&self, i: usize) -> bool {
        self.names.get(i).is_some_and(|n| n.kind != SQLBATCH_NULL)
    }

    /// The value for parameter `name` (with its prefix character), looked up among the named
    /// values, which may be given with or without the prefix.
    unsafe fn by_name(&self, name: &[u8]) -> Result<Option<&sqlbatch_value>, Error> {
        for (i, n) in self.names.iter().enumerate() {
            if n.kind == SQLBATCH_NULL {
                continue;
            }
            let given = self.params.text_of(n)?;
            if given == name || given == &name[1..] {
                return Ok(Some(&self.params.values[i]));
            }
        }
        Ok(None)
    }

    /// The next positional value.
    fn next_positional(&mut self) -> Option<&sqlbatch_value> {
        while self.next < self.params.values.len() && self.is_named(self.next) {
            self.next += 1;
        }
        let v = self.params.values.get(self.next);
        if v.is_some() {
            self.next += 1;
        }
        v
    }

    fn positional_left(&self) -> usize {
        (self.next..self.params.values.len()).filter(|&i| !self.is_named(i)).count()
    }

    /// Binds the parameters of one statement of the script.
    unsafe fn bind(&mut self, db: *mut ffi::sqlite3, raw: *mut ffi::sqlite3_stmt) -> Result<u64, Error> {
        let n = ffi::sqlite3_bind_parameter_count(raw);
        let mut used = 0;
        for idx in 1..=n {
            let name = ffi::sqlite3_bind_parameter_name(raw, idx);
            let name = if name.is_null() { &b""[..] } else { CStr::from_ptr(name).to_bytes() };
            let named = !self.names.is_empty() && matches!(name.first(), Some(b':' | b'@' | b'$'));
            let value = if named {
                match self.by_name(name)? {
                    Some(v) => *v,
                    None => {
                        return Err(Error::new(
                            SQLBATCH_E_PARAM_COUNT,
                            format!("no value given for parameter {}", String::from_utf8_lossy(name)),
                        ))
                    }
                }
            } else {
                match self.next_positional() {
                    Some(v) => *v,
                    None => {
                        return Err(Error::new(
                            SQLBATCH_E_PARAM_COUNT,
                            format!(
                                "too few parameter values: none left for parameter {idx} of this statement"
                            ),
                        ))
                    }
                }
            };
            bind_value(db, raw, idx as c_int, &value, &self.params, Lifetime::Call)?;
            used += 1;
        }
        Ok(used)
    }
}

/// sqlbatch_conn_exec runs every statement of a SQL script (`sql_len` bytes of UTF-8, e.g. a
/// dump of thousands of statements) in one call, stepping each to completion and discarding any
/// rows, like `sqlite3_exec` without a callback.
///
/// Parameters: `values[0..n_values]` are consumed in order across the statements: each statement
/// takes as many as its parameter count (its largest index; `?3` alone takes three), parameter
/// `i` of a statement getting the `i`-th of its share. `names` is NULL (all positional) or an
/// array of `n_values` names: where `names[i]` is a TEXT value, `values[i]` goes to every
/// parameter of that name in any statement, and is not consumed positionally; a NULL-kind name
/// leaves `values[i]` positional. A name given with its prefix matches only that spelling
/// (":id" matches `:id`); a name given without one matches every prefix ("id" matches `:id`,
/// `@id` and `$id`). TEXT/BLOB bytes (values and names) are at
/// `data + bits`, or at address `bits` when `data` is NULL; they are only read during the call.
/// Whitespace and comments after the last statement are fine. A script without statements does
/// nothing and succeeds.
///
/// On failure, the statements before the failing one have run and stay run (wrap the script in
/// a transaction to make it all-or-nothing); the error records the failing statement's index
/// (`statement_index`), where it starts (`statement_offset`), and the offending token relative to
/// the whole script (`token_offset`). If positional values are left over after the last
/// statement, the whole script has run and `SQLBATCH_E_PARAM_COUNT` is returned.
///
/// `*out_result` (if `out_result` is not NULL) is written in every case, saying what ran.
/// NULL: `conn` NULL, `sql` NULL with `sql_len > 0`, or `values` NULL with `n_values > 0`:
/// `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` (a NUL byte
/// in the SQL) before anything runs, with `token_offset` at the offending byte;
/// `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_INVALID_ARGUMENT` (a bad value
/// kind), `SQLBATCH_E_CLOSED`, or the error of the failing statement
/// (e.g. `SQLITE_ERROR`, `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_INTERRUPT`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_exec(
    conn: *mut sqlbatch_conn,
    sql: *const c_char,
    sql_len: usize,
    values: *const sqlbatch_value,
    names: *const sqlbatch_value,
    n_values: usize,
    data: *const u8,
    data_len: usize,
    out_result: *mut sqlbatch_exec_result,
) -> i32 {
    let Some(conn) = conn.as_ref() else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    let mut result = sqlbatch_exec_result::default();
    let rc = boundary(Some(&conn.shared), || {
        let db = conn.shared.db()?;
        let bytes = try_bytes(sql, sql_len, "sql")?;
        check_utf8(bytes, "SQL")?;
        check_no_nul(bytes)?;
        let mut params = ScriptParams {
            params: Params::new(values, n_values, data, data_len)?,
            names: if names.is_null() { &[] } else { std::slice::from_raw_parts(names, n_values) },
            next: 0,
        };
        conn.shared.start_call();
        let outcome = exec_script(db, &conn.shared, bytes, &mut params, &mut result);
        result.last_insert_rowid = ffi::sqlite3_last_insert_rowid(db);
        outcome?;
        let left = params.positional_left();
        if left > 0 {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("too many parameter values: {left} left over after the last statement"),
            ));
        }
        Ok(SQLBATCH_OK)
    });
    write_opt(out_result, result);
    rc
}

/// The statement loop of `sqlbatch_conn_exec`.
unsafe fn exec_script(
    db: *mut ffi::sqlite3,
    conn: &ConnShared,
    script: &[u8],
    params: &mut ScriptParams<'_>,
    result: &mut sqlbatch_exec_result,
) -> Result<(), Error> {
    // SQLite copies SQL that does not end in a NUL byte before compiling it: given each
    // statement's tail in turn, that would copy the rest of the script once per statement
    // (quadratic). One NUL-terminated copy of the whole script avoids it.
    let mut terminated = Vec::with_capacity(script.len() + 1);
    terminated.extend_from_slice(script);
    terminated.push(0);
    let len = script.len();
    let mut counter = Changes::new(db);
    let mut pos = 0;
    while pos < len {
        // SQLite skips whitespace and comments itself (its tokenizer decides what they are);
        // `start`, where the statement's first token is, only serves to report errors.
        let start = skip_space_and_comments(script, pos).min(len);
        result.end_offset = start;
        let locate = |mut e: Error, statements: u64| {
            if e.token_offset >= 0 {
                e.token_offset += pos as i64;
            }
            e.statement_index = statements as i64;
            e.statement_offset = match e.token_offset {
                t if t >= 0 => (start as i64).min(t),
                _ => start as i64,
            };
            e
        };
        if conn.interrupt_requested() {
            return Err(locate(Error::interrupted(), result.statements));
        }
        // The slice ends with the NUL, so that SQLite compiles in place.
        let (raw, consumed) =
            prepare_raw(db, &terminated[pos..], 0).map_err(|e| locate(e, result.statements))?;
        let next = pos + consumed;
        if raw.is_null() {
            if next <= pos {
                let e = Error::new(ffi::SQLITE_ERROR, "SQLite made no progress through the script");
                return Err(locate(e, result.statements));
            }
            // A lone ";", or only whitespace and comments left.
            pos = next;
            continue;
        }
        let stmt = Finalize(raw);
        let used = params.bind(db, stmt.0).map_err(|e| locate(e, result.statements))?;
        let changes = run_to_done(db, stmt.0, &mut counter).map_err(|e| locate(e, result.statements))?;
        drop(stmt);
        result.statements += 1;
        result.params_used += used;
        result.changes += changes;
        pos = next;
    }
    result.end_offset = len;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::skip_space_and_comments;

    #[test]
    fn skips_whitespace_and_both_comment_forms() {
        let s = b"  -- a\n /* b */\tSELECT 1";
        assert_eq!(skip_space_and_comments(s, 0), s.len() - 8);
        assert_eq!(skip_space_and_comments(b"/* open", 0), 7);
        assert_eq!(skip_space_and_comments(b"-- to the end", 0), 13);
        assert_eq!(skip_space_and_comments(b"x", 0), 0);
    }
}
