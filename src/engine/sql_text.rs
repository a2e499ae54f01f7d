//! Reading SQL text the way SQLite's tokenizer does where the library needs it: where the next
//! statement of a script starts, and whether anything follows the first statement; and
//! short SQL NUL-terminated on the stack, as SQLite compiles it without a copy of its own.

use std::mem::MaybeUninit;

use crate::codes::SQLBATCH_E_MULTIPLE_STATEMENTS;
use crate::error::Error;

/// Room on the stack for a short statement and its NUL (what applications prepare): SQLite
/// copies SQL that does not end in a NUL before compiling it, which costs more than this copy.
/// Not zeroed first: only the bytes written are read.
pub(crate) struct StackSql([MaybeUninit<u8>; 256]);

impl StackSql {
    pub fn new() -> Self {
        StackSql([MaybeUninit::uninit(); 256])
    }

    /// `sql` followed by a NUL byte, if it is shorter than the room (255 bytes or fewer).
    pub fn terminate<'a>(&'a mut self, sql: &[u8]) -> Option<&'a [u8]> {
        let n = sql.len();
        if n >= self.0.len() {
            return None;
        }
        // SAFETY: the room holds `n + 1` bytes; the first `n + 1` are written before they are
        // read, and `sql` does not overlap a buffer of this frame's.
        unsafe {
            std::ptr::copy_nonoverlapping(sql.as_ptr(), self.0.as_mut_ptr().cast::<u8>(), n);
            self.0[n].write(0);
            Some(std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), n + 1))
        }
    }
}

/// Where a second statement starts in `sql` after the first one ends at `tail`, if there is
/// one: anything but whitespace, comments and semicolons.
fn second_statement(sql: &[u8], mut tail: usize) -> Option<usize> {
    loop {
        tail = skip_space_and_comments(sql, tail);
        match sql.get(tail) {
            None => return None,
            Some(b';') => tail += 1,
            Some(_) => return Some(tail),
        }
    }
}

/// `SQLBATCH_E_MULTIPLE_STATEMENTS` if a second statement follows the first one, which ends at
/// `tail` (its `token_offset` where the second starts).
pub(crate) fn second_statement_error(sql: &[u8], tail: usize) -> Option<Error> {
    let at = second_statement(sql, tail)?;
    Some(Error {
        token_offset: at as i64,
        ..Error::new(
            SQLBATCH_E_MULTIPLE_STATEMENTS,
            format!("the SQL holds more than one statement (the second starts at byte {at})"),
        )
    })
}

/// The offset of the first byte of `sql[from..]` that is not whitespace or a comment. As in
/// SQLite's tokenizer, a `/*` with nothing after it is not a comment (it is a `/` and a syntax
/// error), while one with anything after it is a comment to its `*/` or to the end.
pub(crate) fn skip_space_and_comments(sql: &[u8], mut i: usize) -> usize {
    while i < sql.len() {
        match sql[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => i += 1,
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if sql.get(i + 1) == Some(&b'*') && i + 2 < sql.len() => {
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

#[cfg(test)]
mod tests {
    use super::{skip_space_and_comments, StackSql};

    #[test]
    fn short_sql_is_terminated_on_the_stack_and_long_sql_is_not() {
        let mut room = StackSql::new();
        assert_eq!(room.terminate(b"SELECT 1"), Some(&b"SELECT 1\0"[..]));
        assert_eq!(room.terminate(b""), Some(&b"\0"[..]));
        assert_eq!(room.terminate(&[b'x'; 255]).map(|t| t.len()), Some(256));
        assert_eq!(room.terminate(&[b'x'; 256]), None);
    }

    #[test]
    fn skips_whitespace_and_both_comment_forms() {
        let s = b"  -- a\n /* b */\tSELECT 1";
        assert_eq!(skip_space_and_comments(s, 0), s.len() - 8);
        assert_eq!(skip_space_and_comments(b"/* open", 0), 7);
        assert_eq!(skip_space_and_comments(b"/*x", 0), 3);
        assert_eq!(skip_space_and_comments(b" /*", 0), 1, "a bare /* at the end is a slash");
        assert_eq!(skip_space_and_comments(b"-- to the end", 0), 13);
        assert_eq!(skip_space_and_comments(b"x", 0), 0);
    }
}
