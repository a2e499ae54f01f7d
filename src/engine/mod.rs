//! The engine: what the entry points do. It never names the entry layer ([`crate::abi`]).
//!
//! Modules from the bottom up; each uses only those above it in this list and the ground floor:
//!
//! - values and SQL text: [`value`] (cells, parameter sets, binding), [`mem`] (direct reads
//!   of SQLite's result registers), [`sql_text`] (where statements start in SQL text),
//!   [`convert`] (one value as `sqlite3_column_*` would convert it), [`run`] (stepping a
//!   statement to its end, SQL whose rows nobody wants, a pragma's first row), [`cells`]
//!   (rows of values copied out as cells), [`rows`] (tables bound to a parameter, and the
//!   `sqlbatch_rows` virtual table that reads them);
//! - callbacks: [`callback`] (the destructor type, the guard a callback runs under),
//!   [`call`] (what a function's callback sets), [`hooks`] (the hook dispatcher, the update
//!   events in batches, tracing);
//! - the connection: [`cipher`] (keys and cipher settings of the encrypted build),
//!   [`worker`] (the thread that fetches ahead and writes behind), [`state`] (a statement's
//!   fetch state), [`conn`] (what a connection shares with its statements);
//! - statements: [`fetch`] (batched fetch), [`ahead`] (fetch-ahead), [`write`] (a bulk
//!   write and its row loop), [`stmt`] (the statement handle), [`bulk`] (bulk writes on a
//!   statement, now or behind the caller), [`script`] (multi-statement exec);
//! - the rest of SQLite's surface over a connection: [`function`] (SQL functions,
//!   aggregates, collations), [`vtab`] (virtual table modules whose cursors fill batches),
//!   [`config`], [`extension`], [`backup`], [`serialize`], [`blob`], [`session`].

pub mod value;
pub mod mem;
pub(crate) mod sql_text;
pub mod convert;
pub(crate) mod run;
pub(crate) mod cells;
pub(crate) mod rows;

pub mod callback;
pub mod call;
pub mod hooks;

pub mod cipher;
pub(crate) mod worker;
pub(crate) mod state;
pub mod conn;

pub mod fetch;
pub(crate) mod ahead;
pub mod write;
pub mod stmt;
pub(crate) mod bulk;
pub mod script;

pub mod function;
pub mod vtab;
pub mod config;
pub mod extension;
pub mod backup;
pub mod serialize;
pub mod blob;
pub mod session;
