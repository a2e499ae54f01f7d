//! Reading SQL text the way SQLite's tokenizer does where the library needs it: where the next
//! statement of a script starts, and whether anything follows the first statement.

/// The offset of the first byte of `sql[from..]` that is not whitespace or a comment.
pub(crate) fn skip_space_and_comments(sql: &[u8], mut i: usize) -> usize {
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
