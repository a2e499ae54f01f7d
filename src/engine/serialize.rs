//! A database as one buffer of bytes: `sqlite3_serialize` out, `sqlite3_deserialize` in.

/// `sqlbatch_conn_deserialize` flag: the database is read-only.
pub const SQLBATCH_DESERIALIZE_READONLY: u32 = 4;
/// `sqlbatch_conn_deserialize` flag: the database may grow (by writes) past the buffer's size.
pub const SQLBATCH_DESERIALIZE_RESIZEABLE: u32 = 2;
