//! sqlbatch: a batched C ABI over SQLite.
//!
//! Language bindings to SQLite spend most of their time crossing the FFI boundary once per
//! row and per column. Every sqlbatch call does a whole batch of work per crossing:
//!
//! - [`fetch::sqlbatch_stmt_fetch`] steps up to N rows into memory the caller reads with plain loads;
//! - [`script::sqlbatch_conn_exec`] runs a whole multi-statement script;
//! - [`write::sqlbatch_stmt_execute_many`] binds and runs a statement for N parameter rows.
//!
//! The C header `include/sqlbatch.h` is generated from these sources by cbindgen
//! (`scripts/gen-header.sh`); the doc comments here are written for its C readers.
//! One module per concern: `codes` (numbers), `error` and `panic` (how failures cross the
//! boundary), `ffi` (pointer checks), `value` (cells and parameters), `conn`, `stmt`,
//! `fetch` (with `mem`, direct reads of result values), `script`, `write`, `run`
//! (stepping a statement to its end), `convert` (one value as `sqlite3_column_*` would
//! convert it), `function` (SQL functions, aggregates, collations) with `call` (what their
//! callbacks set), `extension`, `hooks` (with `hooks::batch`, the update events in batches, and `hooks::trace`; `cells`, rows of values copied out), `backup`, `blob` (incremental I/O), `serialize`, `session` (sessions and changesets), and `config`
//! (limits, switches, checkpoints, counters).

#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)] // Safety is documented for C callers in the header.

// In the order a reader of the header meets them (cbindgen keeps it within each kind of
// item): codes, errors, values, connections, statements, fetch, exec, batched write, and
// conversions.
pub mod ahead;
pub mod backup;
pub mod blob;
pub mod call;
mod cells;
pub mod codes;
pub mod config;
pub mod conn;
pub mod convert;
pub mod error;
pub mod extension;
pub mod fetch;
mod ffi;
pub mod function;
pub mod hooks;
#[doc(hidden)]
pub mod mem;
mod panic;
mod run;
pub mod script;
pub mod serialize;
pub mod session;
mod sql_text;
mod state;
pub mod stmt;
pub mod value;
mod worker;
pub mod write;

pub use ahead::sqlbatch_stmt_set_fetch_ahead;
pub use backup::*;
pub use blob::*;
pub use call::*;
pub use codes::*;
pub use config::*;
pub use conn::*;
pub use convert::*;
pub use error::sqlbatch_error;
pub use extension::*;
pub use fetch::*;
pub use function::*;
pub use hooks::*;
pub use script::*;
pub use serialize::*;
pub use session::*;
pub use stmt::*;
pub use value::{
    sqlbatch_params, sqlbatch_str, sqlbatch_value, SQLBATCH_PARAMS_ADDRESSES, SQLBATCH_PARAMS_SINGLE,
};
pub use write::*;
