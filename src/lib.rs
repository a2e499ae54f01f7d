//! sqlbatch: a batched C ABI over SQLite.
//!
//! Language bindings to SQLite spend most of their time crossing the FFI boundary once per
//! row and per column. Every sqlbatch call does a whole batch of work per crossing:
//! `sqlbatch_stmt_fetch` steps up to N rows into memory the caller reads with plain loads,
//! `sqlbatch_conn_exec` runs a whole multi-statement script, and `sqlbatch_stmt_execute_many`
//! binds and runs a statement for N parameter rows.
//!
//! The C header `include/sqlbatch.h` is generated from these sources by cbindgen
//! (`scripts/gen-header.sh`); the doc comments of the entry points are written for its C
//! readers. The crate is built in three layers, each naming only the ones below it
//! (docs/architecture.md):
//!
//! - [`abi`]: the entry points, every `extern "C"` function and nothing else, one file per
//!   handle family, in the order a program meets them;
//! - [`engine`]: what they do: connections, statements, fetching, writing, callbacks;
//! - the ground floor: [`codes`] (status codes and their names), [`error`] (errors, and the
//!   last error of a connection), [`panic`] (no panic unwinds into C), [`ffi`] (pointer checks).

#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]
#![allow(clippy::missing_safety_doc)] // Safety is documented for C callers in the header.

pub mod abi;
pub mod engine;

pub mod codes;
pub mod error;
mod ffi;
mod panic;

pub use abi::*;
pub use codes::*;
#[doc(hidden)]
pub use engine::mem;
pub use engine::{
    backup::*, blob::*, call::*, callback::*, cipher::sqlbatch_cipher, config::*, conn::*, convert::*,
    extension::*, fetch::*, function::*, hooks::*, script::*, serialize::*, session::*, stmt::*, value::*,
    vtab::*, write::*,
};
pub use error::sqlbatch_error;
