/* Generated from include/sqlbatch.h.in and the doc comments of src/ (cbindgen); do not edit.
 * Regenerate with scripts/gen-header.sh. */
/*
 * sqlbatch: a batched C ABI over SQLite.
 *
 * Every call does a whole batch of work per crossing of the FFI boundary: sqlbatch_stmt_fetch
 * steps up to N rows into memory read with plain loads, sqlbatch_conn_exec runs a whole
 * multi-statement script, and sqlbatch_stmt_execute_many runs a statement for N parameter rows.
 *
 * This header is the manual. Its sections come in the order a program meets them:
 *
 *    1. versions, status codes and errors      8. hooks and tracing
 *    2. connections                            9. limits, switches, checkpoints, counters
 *    3. statements, values and parameters     10. extensions
 *    4. batched fetch                         11. backup and serialization
 *    5. scripts and bulk writes               12. incremental blob I/O
 *    6. SQL functions and collations          13. sessions and changesets
 *    7. virtual tables                        14. conversions of single values
 *
 * Status codes
 * - Every fallible function returns an int32_t status: SQLBATCH_OK (0), SQLBATCH_ROW and
 *   SQLBATCH_DONE (fetch only), SQLite's extended result codes (the primary code is
 *   `code & 0xff`; see sqlite3.h), or a library code SQLBATCH_E_* (1000..1023, a range no
 *   SQLite code falls in). Details of the last failure on a connection come back from
 *   sqlbatch_conn_last_error; sqlbatch_code_str describes any code, sqlbatch_code_name names
 *   it. A NULL pointer argument is an error (SQLBATCH_E_NULL_PARAMETER), never a crash, and
 *   no Rust panic ever unwinds into the caller (SQLBATCH_E_PANIC).
 *
 * Ownership and lifetimes
 * - Handles: sqlbatch_conn, sqlbatch_stmt, sqlbatch_blob, sqlbatch_backup and
 *   sqlbatch_session are opaque. The library creates each (sqlbatch_conn_open,
 *   sqlbatch_stmt_prepare, sqlbatch_blob_open, sqlbatch_backup_init, sqlbatch_session_create)
 *   and the caller hands it back exactly once to its destructor (sqlbatch_conn_close,
 *   sqlbatch_stmt_finalize, sqlbatch_blob_close, sqlbatch_backup_finish,
 *   sqlbatch_session_delete), which accepts NULL. A statement, blob, backup or session may
 *   outlive its connection: its calls then return SQLBATCH_E_CLOSED.
 * - Memory the library hands out is borrowed, for the lifetime its function states, with
 *   one exception: the buffers of sqlbatch_conn_serialize, sqlbatch_session_changeset,
 *   sqlbatch_session_patchset, sqlbatch_changeset_invert and sqlbatch_changeset_concat are
 *   the caller's, released with sqlbatch_free.
 * - Every input (SQL, names, paths, parameter bytes) is `(pointer, length)`, need not be
 *   NUL-terminated, and is copied or finished with before the call returns, unless a function
 *   says otherwise (the rows of sqlbatch_stmt_execute_many_start, kept until its wait).
 * - Out-parameters are written only on success, except where a function says otherwise
 *   (sqlbatch_conn_open, sqlbatch_conn_exec, sqlbatch_stmt_execute_many, and fetch's
 *   SQLBATCH_E_BUFFER_TOO_SMALL), because there the caller needs to know what happened.
 * - Pointers: every array the library hands out is NULL when it is empty (a batch's cells and
 *   bytes, column and parameter arrays), never a dangling non-NULL pointer. The bytes of a
 *   TEXT or BLOB value are never addressed by a pointer inside the value: `bits` is an offset
 *   from a base that travels beside the values (a batch's `data`, a sqlbatch_params' `data`),
 *   so that garbage-collected callers can pass and keep arrays of values; a value with bytes
 *   but no base is an error, and C callers who prefer addresses say so with
 *   SQLBATCH_PARAMS_ADDRESSES.
 * - Callbacks: every registration takes `user_data` and a `destroy` function, called exactly
 *   once with it when the registration ends (replaced, removed, its connection closed, or the
 *   registering call failed).
 *
 * Names
 * - Functions are sqlbatch_<object>_<action>: the object is the handle or data the function
 *   works on (conn, stmt, batch, value, call, blob, backup, session, changeset, code);
 *   functions of the library as a whole have none (sqlbatch_version, sqlbatch_free,
 *   sqlbatch_auto_extension).
 * - A function that does what one SQLite function does keeps SQLite's word for it (close,
 *   finalize, finish, delete, reset, clear_bindings, interrupt, busy_timeout, changes,
 *   last_insert_rowid, autocommit, limit, db_config, status, txn_state, readonly, filename,
 *   expanded_sql, the blob, backup and session verbs, the hooks, serialize, load_extension).
 *   What SQLite does not name: a setter is <object>_set_<property>, a boolean getter
 *   <object>_is_<property>.
 * - Parameters: an out-parameter is out_<what>, and out-parameters are the only parameters
 *   the library writes through; bytes come as `<name>, <name>_len`; a count is n_<things>.
 *   A getter of a property (a count, a flag, a name, a state) takes its handle const.
 * - Types are sqlbatch_<what>; callback types sqlbatch_<what>_fn. Constants are
 *   SQLBATCH_<GROUP>_<NAME>, with SQLite's values where they mirror SQLite's flags.
 * - Indexes of rows, columns and parameters are size_t; columns count from 0, parameters
 *   from 1 (as in SQLite).
 *
 * Thread model
 * - A connection, and the statements prepared on it, are used by one thread at a time: the
 *   caller serializes calls (database/sql's pool, a Haskell MVar, a mutex). Different
 *   connections may be used on different threads at once, and a connection may move between
 *   threads between calls.
 * - Because of that rule, connections are opened with SQLITE_OPEN_NOMUTEX: SQLite skips the
 *   per-connection mutex it would otherwise take on every call, sqlite3_column_* included
 *   (25-30% of a narrow fetch). The library itself is built thread-safe
 *   (SQLITE_THREADSAFE=1). Pass SQLBATCH_OPEN_FULLMUTEX to keep the mutex anyway.
 * - The one exception: sqlbatch_conn_interrupt may be called from any thread at any time while
 *   the connection is open, e.g. from a cancellation callback or a timer.
 * - Callbacks run on the thread that made the call running them. A function, aggregate or
 *   collation may use its connection (SQLite allows it), but not the statement whose step runs
 *   it: a call that steps, binds, resets or writes that statement from the callback fails with
 *   SQLITE_MISUSE (calls that only read it work), and sqlbatch_stmt_finalize of it is carried
 *   out later, as from a hook. A hook must not, but the WAL hook
 *   (SQLite's rule, which SQLite does not check): while any other hook of a connection runs,
 *   every call on that connection, its statements, blobs and backups fails with SQLITE_MISUSE
 *   (sqlbatch_conn_interrupt still works), and sqlbatch_stmt_finalize of one of its statements
 *   is carried out by the next call on the connection made outside hooks once the statement
 *   is not in the middle of a run (a statement left in the middle of its rows, and any lock it
 *   holds, stays until the connection closes). sqlbatch_conn_close called from a callback of
 *   that connection (a function or a hook) does nothing but record SQLITE_MISUSE.
 * - Fetch-ahead and write-behind (sqlbatch_stmt_set_fetch_ahead, SQLBATCH_OPEN_FETCH_AHEAD,
 *   sqlbatch_stmt_execute_many_start) let the connection's worker, one native thread the
 *   library starts on first use and ends in sqlbatch_conn_close, step a statement while the
 *   caller's thread works. The rule above still holds: while the worker runs, every call on
 *   the connection, its statements, blobs and backups waits for it first (but
 *   sqlbatch_conn_interrupt, which stops it; and the second of two bulk writes queued on a
 *   statement, sqlbatch_stmt_execute_many_start, which queues behind the first, and the wait
 *   of the first, which waits for that write alone). Callbacks the worker's stepping runs (functions,
 *   collations, progress, trace and busy handlers) run on the worker thread. A fetch or bulk
 *   write started from a callback (of a function, aggregate, collation or the WAL hook) runs on
 *   the callback's thread, as the step that called the callback is still using the connection.
 *   A callback running on the worker gets SQLITE_MISUSE from any call on a statement that has
 *   a job on the worker (a batch stepped ahead and not yet fetched, a bulk write not yet
 *   waited for) or that a call is running, and its sqlbatch_stmt_finalize of such a statement
 *   is carried out later. A call on the caller's thread on any other statement waits for the
 *   worker first, so the two threads never use one statement at once. A fetch or bulk write
 *   started from a hook is SQLITE_MISUSE, as every call from one (but the WAL hook's).
 */
#ifndef SQLBATCH_H
#define SQLBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================
 * 1. Versions, status codes and errors
 *
 * SQLBATCH_VERSION is this header's version; sqlbatch_version() is the library's. Library
 * codes and SQLite's extended codes share one int32_t space (see "Status codes" above).
 * ====================================================================================== */

/** The version of this header; sqlbatch_version() gives the library's. */
#define SQLBATCH_VERSION "1.0.0"
#define SQLBATCH_VERSION_MAJOR 1
#define SQLBATCH_VERSION_MINOR 0
#define SQLBATCH_VERSION_PATCH 0

/**
 * Success.
 */
#define SQLBATCH_OK 0

/**
 * `sqlbatch_stmt_fetch`: the batch holds rows, and more rows may follow.
 */
#define SQLBATCH_ROW 100

/**
 * `sqlbatch_stmt_fetch`: the statement has finished; the batch holds its last rows (possibly none).
 */
#define SQLBATCH_DONE 101

/**
 * A required pointer argument was NULL.
 */
#define SQLBATCH_E_NULL_PARAMETER 1000

/**
 * A Rust panic was caught at the FFI boundary (a bug in sqlbatch); the message says where.
 */
#define SQLBATCH_E_PANIC 1001

/**
 * SQL text (or a parameter name) is not valid UTF-8; `token_offset` is the first bad byte.
 */
#define SQLBATCH_E_INVALID_UTF8 1002

/**
 * A size or index is out of range: a value offset past the end of `data`, a row or column
 * past the end of a batch, `max_rows == 0`, or a length SQLite cannot take (over 2 GiB).
 */
#define SQLBATCH_E_RANGE 1003

/**
 * The number of parameter values does not match what the statement (or script) takes.
 */
#define SQLBATCH_E_PARAM_COUNT 1004

/**
 * A batch was read through `sqlbatch_batch_get` after its statement moved on
 * (a later fetch, a reset, a bind or a bulk write).
 */
#define SQLBATCH_E_STALE_BATCH 1005

/**
 * The connection was closed: the statement was finalized by `sqlbatch_conn_close`.
 */
#define SQLBATCH_E_CLOSED 1006

/**
 * An argument has a value the function does not accept: an unknown value type tag,
 * open flags that contradict each other, a NUL byte inside a path.
 */
#define SQLBATCH_E_INVALID_ARGUMENT 1007

/**
 * `sqlbatch_stmt_fetch_into`: the caller's buffer cannot hold the next row on its own.
 * The batch out-parameter says how many bytes that row needs; the row is kept for the next call.
 */
#define SQLBATCH_E_BUFFER_TOO_SMALL 1008

/**
 * `sqlbatch_stmt_prepare` with `SQLBATCH_PREPARE_SINGLE`: the SQL holds more than one
 * statement; `token_offset` is where the second one starts.
 */
#define SQLBATCH_E_MULTIPLE_STATEMENTS 1009

/**
 * `sqlbatch_stmt_execute_many_wait`: the bulk write did not run, because the one queued
 * before it on the same statement failed (no row runs after a failing one).
 */
#define SQLBATCH_E_SKIPPED 1010

/**
 * This build of the library lacks what the call needs: the key calls in a build without
 * encryption (`sqlbatch_cipher_version` returns NULL there).
 */
#define SQLBATCH_E_UNSUPPORTED 1011

/**
 * The error details of a connection, read back with `sqlbatch_conn_last_error`.
 */
typedef struct sqlbatch_error {
  /**
   * The status the failing call returned (an extended SQLite code or a library code);
   * `SQLBATCH_OK` if no call on the connection has failed yet.
   */
  int32_t code;
  /**
   * `code & 0xff` for SQLite codes (e.g. `SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`);
   * equal to `code` for library codes.
   */
  int32_t primary_code;
  /**
   * The message, NUL-terminated UTF-8. Borrowed from the connection: valid until the next
   * failing call on the connection (or on one of its statements), or until it is closed.
   */
  const char *message;
  /**
   * Length of `message` in bytes, without the NUL.
   */
  size_t message_len;
  /**
   * Byte offset of the token the error is about in the SQL text the failing call was given
   * (for a script, counted from the start of the whole script); -1 if none.
   */
  int64_t token_offset;
  /**
   * `sqlbatch_conn_exec`: index (from 0) of the statement that failed; -1 otherwise.
   */
  int64_t statement_index;
  /**
   * `sqlbatch_conn_exec`: byte offset where the failing statement starts; -1 otherwise.
   */
  int64_t statement_offset;
  /**
   * `sqlbatch_stmt_execute_many`: index (from 0) of the parameter row that failed; -1 otherwise.
   */
  int64_t row_index;
} sqlbatch_error;

/**
 * sqlbatch_code_str describes a status code in English.
 *
 * Works for the library's own codes and for every SQLite result code, primary or extended
 * (through `sqlite3_errstr`). Unknown codes give "unknown error".
 *
 * Lifetime: the string is static, NUL-terminated, and must not be freed.
 * @return never NULL.
 */
const char *sqlbatch_code_str(int32_t code);

/**
 * sqlbatch_code_name gives the symbolic name of a status code, as the C headers spell it:
 * "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_BUSY", "SQLBATCH_E_RANGE", "SQLBATCH_OK".
 *
 * Knows every primary and extended result code of the bundled SQLite and every library
 * code, so that bindings need no table of their own (they print it beside the message, and
 * name their error constants after it).
 *
 * Lifetime: the string is static, NUL-terminated, and must not be freed. Any thread.
 * @return the name, or NULL for a code that is neither SQLite's nor the library's.
 */
const char *sqlbatch_code_name(int32_t code);

/**
 * sqlbatch_version returns the version of this library, e.g. "0.1.0".
 *
 * Lifetime: static, NUL-terminated, must not be freed. It equals the `SQLBATCH_VERSION` macro
 * of the header the caller was compiled against when the two match.
 */
const char *sqlbatch_version(void);

/**
 * sqlbatch_sqlite_version returns the version of the SQLite library built into sqlbatch, e.g. "3.54.1".
 *
 * Lifetime: static, NUL-terminated, must not be freed.
 */
const char *sqlbatch_sqlite_version(void);

/* ======================================================================================
 * 2. Connections
 *
 * sqlbatch_conn_open opens a database (a file, ":memory:" or a URI) and always hands out a
 * handle to close, even when opening fails, so that sqlbatch_conn_last_error can say why.
 * ====================================================================================== */

/**
 * Open flag: open read-only (SQLite's `SQLITE_OPEN_READONLY`).
 */
#define SQLBATCH_OPEN_READONLY 1

/**
 * Open flag: open for reading and writing (`SQLITE_OPEN_READWRITE`).
 */
#define SQLBATCH_OPEN_READWRITE 2

/**
 * Open flag: create the database if it does not exist (`SQLITE_OPEN_CREATE`); needs READWRITE.
 */
#define SQLBATCH_OPEN_CREATE 4

/**
 * Open flag: interpret the path as a `file:` URI (`SQLITE_OPEN_URI`).
 */
#define SQLBATCH_OPEN_URI 64

/**
 * Open flag: a private in-memory database (`SQLITE_OPEN_MEMORY`).
 */
#define SQLBATCH_OPEN_MEMORY 128

/**
 * Open flag: keep SQLite's per-connection mutex (`SQLITE_OPEN_FULLMUTEX`). Without it the
 * connection is opened with `SQLITE_OPEN_NOMUTEX` (see "Thread model").
 */
#define SQLBATCH_OPEN_FULLMUTEX 65536

/**
 * Open flag: enable shared-cache mode for this connection (`SQLITE_OPEN_SHAREDCACHE`).
 */
#define SQLBATCH_OPEN_SHAREDCACHE 131072

/**
 * Open flag: disable shared-cache mode for this connection (`SQLITE_OPEN_PRIVATECACHE`).
 */
#define SQLBATCH_OPEN_PRIVATECACHE 262144

/**
 * Open flag: refuse to open a path that is a symbolic link (`SQLITE_OPEN_NOFOLLOW`).
 */
#define SQLBATCH_OPEN_NOFOLLOW 16777216

/**
 * Open flag, sqlbatch's own: every statement prepared on the connection fetches ahead (see
 * `sqlbatch_stmt_set_fetch_ahead`, which turns it off or on per statement).
 */
#define SQLBATCH_OPEN_FETCH_AHEAD 1073741824

/**
 * Open flag, sqlbatch's own: the file may come from anyone (a download, a user's document):
 * the open applies SQLite's defenses for untrusted databases
 * (<https://sqlite.org/security.html>) and checks the file first. It turns on
 * `SQLITE_DBCONFIG_DEFENSIVE` (no writes to the schema table, no `PRAGMA writable_schema`,
 * no journal or WAL tricks), turns off `SQLITE_DBCONFIG_TRUSTED_SCHEMA` (the schema's views
 * and triggers cannot call functions with side effects or virtual tables not marked
 * innocuous), sets `PRAGMA cell_size_check=ON` (pages are checked as they are read: a little
 * slower) and `PRAGMA mmap_size=0` (no memory-mapped reads, whose faults SQLite cannot
 * catch), and runs `PRAGMA quick_check`, which reads the whole file once: the open fails
 * with `SQLITE_CORRUPT` (and the check's first finding as its message) or `SQLITE_NOTADB`
 * when the file is not sound. A connection opened so stays as wary for its life.
 */
#define SQLBATCH_OPEN_UNTRUSTED 536870912

/**
 * A database connection. Opaque; created by `sqlbatch_conn_open`, destroyed by `sqlbatch_conn_close`.
 */
typedef struct sqlbatch_conn sqlbatch_conn;

/**
 * sqlbatch_conn_open opens a database connection.
 *
 * `path` is a file name (UTF-8, `path_len` bytes, no NUL inside; it need not be
 * NUL-terminated), ":memory:" for a private in-memory database, "" for a private temporary
 * file, or a `file:` URI when `SQLBATCH_OPEN_URI` is set. `flags` is a bitwise OR of
 * `SQLBATCH_OPEN_*` (they have SQLite's values, but `SQLBATCH_OPEN_FETCH_AHEAD`, which is
 * sqlbatch's own); with neither READONLY nor READWRITE set, READWRITE|CREATE is used. See
 * <https://sqlite.org/c3ref/open.html>.
 *
 * The connection reports extended result codes, and is opened without SQLite's per-call
 * mutex unless `SQLBATCH_OPEN_FULLMUTEX` is given (see "Thread model" above).
 * Loading extensions from shared libraries is off until `sqlbatch_conn_enable_load_extension`.
 *
 * Ownership: like `sqlite3_open_v2`, `*out_conn` is set whenever a handle could be allocated,
 * **even when opening fails**, so that `sqlbatch_conn_last_error` can say why; the caller
 * owns it and must release it with `sqlbatch_conn_close` in every case. It is set to NULL only
 * when no handle exists (NULL parameters, bad flags, out of memory).
 * NULL: `out_conn` NULL, or `path` NULL with `path_len > 0`, gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad
 * path or flags; otherwise SQLite's error, e.g. `SQLITE_CANTOPEN`.
 */
int32_t sqlbatch_conn_open(const char *path,
                           size_t path_len,
                           uint32_t flags,
                           struct sqlbatch_conn **out_conn);

/**
 * sqlbatch_conn_close finalizes every statement still open on `conn`, closes the connection
 * and frees the handle.
 *
 * Statement handles of the connection stay allocated: every later call on them returns
 * `SQLBATCH_E_CLOSED`, and each must still be released with `sqlbatch_stmt_finalize`, before
 * or after this call (the order does not matter, which suits garbage-collected callers).
 * Closing cannot fail: SQLite's `sqlite3_close_v2` defers what it cannot free yet (an
 * unfinished backup, say) until it can. Calling with NULL is a harmless no-op. Must not be
 * called twice with the same handle, and must not run while another thread uses `conn`,
 * except `sqlbatch_conn_interrupt`. Called from a callback of `conn` (an SQL function,
 * aggregate or collation, or a hook, whose step would go on without its statement), it does
 * nothing and records `SQLITE_MISUSE` as the connection's last error: the handle stays open.
 */
void sqlbatch_conn_close(struct sqlbatch_conn *conn);

/**
 * sqlbatch_conn_interrupt makes the SQL running on `conn` stop as soon as possible with
 * `SQLITE_INTERRUPT` (a fetch, a script or a bulk write), as `sqlite3_interrupt` does. A script
 * or bulk write also notices an interrupt that arrives between two of its statements or rows,
 * which SQLite alone would forget (no statement runs at that moment).
 *
 * This is the one function that may be called from any thread while another thread is
 * using `conn` (Go's context cancellation, Haskell's asynchronous exceptions). It takes no
 * lock and allocates nothing (atomic operations and `sqlite3_interrupt` only), so it is also
 * safe to call from a signal handler. Calls that start after the interrupted ones have
 * finished are not affected. A no-op on a closed connection; `conn` itself must not be freed
 * (by `sqlbatch_conn_close`) concurrently, which is the caller's to order.
 * NULL: a no-op.
 */
void sqlbatch_conn_interrupt(const struct sqlbatch_conn *conn);

/**
 * sqlbatch_conn_busy_timeout makes SQLite retry for up to `ms` milliseconds when a table is
 * locked by another connection, instead of failing at once with `SQLITE_BUSY`; `ms <= 0`
 * turns retrying off. See <https://sqlite.org/c3ref/busy_timeout.html>.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_conn_busy_timeout(struct sqlbatch_conn *conn, int32_t ms);

/**
 * sqlbatch_conn_changes writes to `*out_changes` the number of rows inserted, updated or deleted by
 * the most recent INSERT, UPDATE or DELETE on `conn` (`sqlite3_changes64`).
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_conn_changes(const struct sqlbatch_conn *conn, int64_t *out_changes);

/**
 * sqlbatch_conn_total_changes writes to `*out_total_changes` the number of rows inserted, updated or
 * deleted since `conn` was opened (`sqlite3_total_changes64`).
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_conn_total_changes(const struct sqlbatch_conn *conn,
                                    int64_t *out_total_changes);

/**
 * sqlbatch_conn_last_insert_rowid writes to `*out_rowid` the rowid of the most recent successful
 * INSERT into a rowid table on `conn` (`sqlite3_last_insert_rowid`), 0 if there was none.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_conn_last_insert_rowid(const struct sqlbatch_conn *conn, int64_t *out_rowid);

/**
 * sqlbatch_conn_autocommit writes to `*out_autocommit` whether `conn` is in autocommit mode, i.e. not
 * inside a transaction opened by BEGIN (`sqlite3_get_autocommit`).
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_conn_autocommit(const struct sqlbatch_conn *conn,
                                 bool *out_autocommit);

/**
 * sqlbatch_conn_last_error writes the details of the most recent failing call on `conn`,
 * or on one of its statements, to `*out_error`.
 *
 * Successful calls do not clear it, and reading it changes nothing, so it can be read at any
 * time after a call returned an error. If nothing has failed yet, `code` is `SQLBATCH_OK`.
 * Errors of calls that had no connection to report to (NULL handles) are not recorded.
 * Lifetime: `out_error->message` is borrowed from `conn`; it stays valid until the next
 * failing call on `conn` or its statements, or until `conn` is closed.
 * @return `SQLBATCH_OK` or `SQLBATCH_E_NULL_PARAMETER`. Works on a handle whose open failed.
 */
int32_t sqlbatch_conn_last_error(const struct sqlbatch_conn *conn,
                                 struct sqlbatch_error *out_error);

/* Encryption at rest (the encrypted build, `make lib ENCRYPTION=1`: SQLCipher in place of
 * SQLite). sqlbatch_cipher_version says whether this build has it; without it the key calls
 * return SQLBATCH_E_UNSUPPORTED. */

/**
 * The cipher settings of a key (`sqlbatch_conn_open_encrypted`, `sqlbatch_conn_export`):
 * SQLCipher's pragmas, each applied when non-zero. All zero is SQLCipher 4's defaults
 * (AES-256-CBC, HMAC-SHA512, PBKDF2-HMAC-SHA512 with 256,000 iterations, 4096-byte pages).
 */
typedef struct sqlbatch_cipher {
  /**
   * `PRAGMA cipher_compatibility`: 1 to 4, the defaults of that SQLCipher major version
   * (3 for the files of SQLCipher 3.x, Debian 12's `sqlcipher` among them); 0: 4.
   */
  int32_t compatibility;
  /**
   * `PRAGMA cipher_page_size`: a power of two from 512 to 65536; 0: the default.
   */
  int32_t page_size;
  /**
   * `PRAGMA kdf_iter`: the PBKDF2 iterations of a passphrase; 0: the default.
   */
  int32_t kdf_iter;
  /**
   * `PRAGMA cipher_plaintext_header_size`: bytes of the file's start left unencrypted (a
   * multiple of 16, at least 32, for the WAL journal on iOS); 0: none, the salt in front.
   */
  int32_t plaintext_header_size;
} sqlbatch_cipher;

/**
 * sqlbatch_cipher_version returns the version of SQLCipher in an encrypted build of the
 * library (`make lib ENCRYPTION=1`), e.g. "4.20.0 community", or NULL in a build without
 * encryption, where every key call returns `SQLBATCH_E_UNSUPPORTED`.
 *
 * Ownership: a static string. Thread: any.
 */
const char *sqlbatch_cipher_version(void);

/**
 * sqlbatch_conn_open_encrypted opens a database encrypted with `key` (`key_len` bytes), as
 * `sqlbatch_conn_open` opens one (same `path` and `flags`, same handle rules), keying it
 * before anything reads the file. A new or empty file becomes an encrypted database; an
 * existing one must have been encrypted with this key and these settings.
 *
 * `key` is a passphrase (any bytes; SQLCipher derives the key with PBKDF2), or a raw key
 * written `x'…'` with 64 hex digits (a 256-bit key) or 96 (the key, then the file's 128-bit
 * salt). `cipher` gives SQLCipher's settings (NULL or all zero: SQLCipher 4's defaults; its
 * `compatibility` 3 reads and writes SQLCipher 3's files); an existing file opens only with
 * the settings it was written with. The file is read once here, so that a wrong key or wrong
 * settings fail here, not at the first query.
 *
 * Ownership: `key` and `cipher` are read during the call only; the library keeps no copy of
 * the key (SQLCipher keeps the key it derives, in memory it wipes when the connection
 * closes), so the caller may wipe its own at once. `*out_conn` as for `sqlbatch_conn_open`:
 * set whenever a handle exists, even when opening fails; always closed with
 * `sqlbatch_conn_close`. A key or settings refused before the file is opened (or created)
 * also give a handle, one that was never open, so that `sqlbatch_conn_last_error` says what
 * is wrong with them; every other call on it returns `SQLBATCH_E_CLOSED`. Thread: any; the
 * new connection's rules are `sqlbatch_conn_open`'s.
 * NULL: `out_conn` NULL, `path` NULL with `path_len > 0` or `key` NULL with `key_len > 0`:
 * `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_UNSUPPORTED` in a build without encryption;
 * `SQLBATCH_E_INVALID_ARGUMENT` for an empty key, a malformed raw key, a setting out of range,
 * or an in-memory or temporary database (which have no file to encrypt);
 * `SQLITE_NOTADB` when the key or the settings do not open the file (or it is no database);
 * otherwise what `sqlbatch_conn_open` returns.
 */
int32_t sqlbatch_conn_open_encrypted(const char *path,
                                     size_t path_len,
                                     uint32_t flags,
                                     const void *key,
                                     size_t key_len,
                                     const struct sqlbatch_cipher *cipher,
                                     struct sqlbatch_conn **out_conn);

/**
 * sqlbatch_conn_rekey changes the key of the encrypted database `schema` (NULL: "main") to
 * `key` (`key_len` bytes, a passphrase or a raw key as for `sqlbatch_conn_open_encrypted`),
 * rewriting every page in one transaction (`sqlite3_rekey_v2`); its cipher settings stay. A
 * database in WAL mode must be switched to a rollback journal first (SQLCipher's rule).
 *
 * SQLCipher encrypts or decrypts no database in place: for a plain database this returns
 * `SQLBATCH_E_INVALID_ARGUMENT`, and `sqlbatch_conn_export` writes an encrypted copy (or,
 * with an empty key, a plain copy of an encrypted one).
 *
 * Ownership: `key` is read during the call only. Thread: the connection's.
 * NULL: `conn` NULL, or `key` NULL with `key_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_UNSUPPORTED` in a build without encryption;
 * `SQLBATCH_E_INVALID_ARGUMENT` (empty or malformed key, a plain, in-memory or temporary
 * database); `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_BUSY` while another connection
 * reads, `SQLITE_ERROR` for an unknown schema), recorded on `conn`.
 */
int32_t sqlbatch_conn_rekey(struct sqlbatch_conn *conn,
                            const char *schema,
                            size_t schema_len,
                            const void *key,
                            size_t key_len);

/**
 * sqlbatch_conn_export writes the whole content of database `schema` of `conn` (NULL:
 * "main"; schema, tables, indexes, triggers, views, the user version) into a new database file
 * at `path` (`path_len` bytes, UTF-8), encrypted with `key` and `cipher` (as for
 * `sqlbatch_conn_open_encrypted`), or plain when `key_len` is 0 (SQLCipher's
 * `sqlcipher_export`). This is how a plain database is encrypted, an encrypted one decrypted,
 * or its cipher settings changed: export, close, then replace the file with the copy.
 *
 * `path` must not exist, or be an empty file. The copy is attached to `conn` for the call
 * (as `sqlbatch_export`) and detached on every path; a failure can leave a partial file at
 * `path`, which is the caller's to delete.
 *
 * Ownership: `key`, `cipher` and `path` are read during the call only. Thread: the
 * connection's.
 * NULL: `conn` NULL, `path` NULL with `path_len > 0`, or `key` NULL with `key_len > 0`:
 * `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_UNSUPPORTED` in a build without encryption;
 * `SQLBATCH_E_INVALID_ARGUMENT` (malformed key or setting, `path` not new);
 * `SQLBATCH_E_INVALID_UTF8`; `SQLBATCH_E_CLOSED`; SQLite's error, recorded on `conn`.
 */
int32_t sqlbatch_conn_export(struct sqlbatch_conn *conn,
                             const char *schema,
                             size_t schema_len,
                             const char *path,
                             size_t path_len,
                             const void *key,
                             size_t key_len,
                             const struct sqlbatch_cipher *cipher);

/* ======================================================================================
 * 3. Statements, values and parameters
 *
 * A value (sqlbatch_value, 16 bytes) is one cell: its SQLite type, and its number or the
 * offset and length of its bytes. A sqlbatch_params is a set of values with the base their
 * offsets count from, optionally with names: what sqlbatch_stmt_bind, sqlbatch_conn_exec and
 * sqlbatch_stmt_execute_many take. sqlbatch_stmt_prepare compiles one statement;
 * sqlbatch_stmt_columns and sqlbatch_stmt_params describe it in one call each.
 * sqlbatch_stmt_bind_rows binds a whole table to one parameter, which the SQL reads through
 * the sqlbatch_rows virtual table: `WHERE id IN sqlbatch_rows(?)`.
 * ====================================================================================== */

/**
 * Cell type: a 64-bit signed integer, stored in `bits`.
 */
#define SQLBATCH_INTEGER 1

/**
 * Cell type: an IEEE-754 double, whose bit pattern is stored in `bits`.
 */
#define SQLBATCH_FLOAT 2

/**
 * Cell type: UTF-8 text of `len` bytes at `data + bits` (not NUL-terminated).
 */
#define SQLBATCH_TEXT 3

/**
 * Cell type: a blob of `len` bytes at `data + bits`.
 */
#define SQLBATCH_BLOB 4

/**
 * Cell type: SQL NULL.
 */
#define SQLBATCH_NULL 5

/**
 * Cell type: no value at all: a column that a change does not carry (the unchanged columns
 * of an UPDATE in a changeset conflict). Never in a fetched batch; not a valid parameter.
 */
#define SQLBATCH_UNDEFINED 0

/**
 * Params flag: the `bits` of TEXT and BLOB values are the addresses of their bytes, not
 * offsets from `data` (which must then be NULL, with `data_len` 0). Convenient from C.
 */
#define SQLBATCH_PARAMS_ADDRESSES 1

/**
 * Params flag for `sqlbatch_conn_exec`: the SQL is one statement and the values are exactly
 * its parameters, as a one-off `execute(sql, values)` of a language binding means it. A second
 * statement (anything after the first but whitespace, comments and semicolons) is refused
 * with `SQLBATCH_E_MULTIPLE_STATEMENTS`, and positional values that are not exactly the
 * statement's parameter count with `SQLBATCH_E_PARAM_COUNT`, both before the statement runs:
 * a refused call runs nothing. The other calls that take parameters bind one statement and
 * refuse values left over already; they accept the flag and do the same with it.
 */
#define SQLBATCH_PARAMS_SINGLE 2

/**
 * Prepare flag: the statement will be kept and reused many times (`SQLITE_PREPARE_PERSISTENT`).
 */
#define SQLBATCH_PREPARE_PERSISTENT 1

/**
 * Prepare flag: refuse SQL that holds more than one statement, with
 * `SQLBATCH_E_MULTIPLE_STATEMENTS` (whitespace, comments and lone semicolons may follow the
 * statement). A library flag, not passed to SQLite.
 */
#define SQLBATCH_PREPARE_SINGLE 65536

/**
 * A prepared statement. Opaque; created by `sqlbatch_stmt_prepare`, destroyed by
 * `sqlbatch_stmt_finalize`.
 */
typedef struct sqlbatch_stmt sqlbatch_stmt;

/**
 * One SQL value: a cell of a fetched batch, or a parameter to bind.
 *
 * | `kind`             | meaning of `bits`                     | `len`        |
 * |--------------------|---------------------------------------|--------------|
 * | `SQLBATCH_INTEGER` | the `int64_t` value                   | 0            |
 * | `SQLBATCH_FLOAT`   | the IEEE-754 bits of the `double`     | 0            |
 * | `SQLBATCH_TEXT`    | offset of the UTF-8 bytes from `data` | byte length  |
 * | `SQLBATCH_BLOB`    | offset of the bytes from `data`       | byte length  |
 * | `SQLBATCH_NULL`    | 0                                     | 0            |
 * | `SQLBATCH_UNDEFINED` (changesets only) | 0                    | 0            |
 *
 * Text is not NUL-terminated and may contain NUL bytes. NULL, empty text and an empty blob
 * are three different values. `data` is the base pointer passed beside the values (or the
 * batch's `data`); when that base is NULL, `bits` is the address of the bytes itself.
 */
typedef struct sqlbatch_value {
  /**
   * The value, or the offset of its bytes (see the table above).
   */
  uint64_t bits;
  /**
   * Byte length of TEXT and BLOB values; 0 otherwise.
   */
  uint32_t len;
  /**
   * One of `SQLBATCH_INTEGER`, `SQLBATCH_FLOAT`, `SQLBATCH_TEXT`, `SQLBATCH_BLOB`, `SQLBATCH_NULL`
   * (and `SQLBATCH_UNDEFINED` in a changeset conflict's rows).
   */
  uint8_t kind;
  /**
   * Zero.
   */
  uint8_t _pad[3];
} sqlbatch_value;

/**
 * A set of parameter values, taken by `sqlbatch_conn_exec`, `sqlbatch_stmt_bind` and
 * `sqlbatch_stmt_execute_many`.
 *
 * The bytes of a TEXT or BLOB value `v` (in `values` and in `names`) are the `v.len` bytes at
 * `data + v.bits`, which must lie within the `data_len` bytes at `data`. With the flag
 * `SQLBATCH_PARAMS_ADDRESSES`, `v.bits` is the address of the bytes instead. A TEXT or BLOB
 * value with bytes but no base (`data` NULL without that flag) is an error
 * (`SQLBATCH_E_INVALID_ARGUMENT`), never a crash; a value of length 0 reads no bytes.
 *
 * Ownership: everything stays the caller's; the library only reads it during the call it is
 * passed to (bound bytes are copied where they must outlive the call).
 */
typedef struct sqlbatch_params {
  /**
   * `n_values` values; may be NULL when `n_values` is 0.
   */
  const struct sqlbatch_value *values;
  /**
   * NULL (every value positional), or `n_values` names: where `names[i]` is a TEXT value,
   * `values[i]` is bound by that name (see `sqlbatch_conn_exec` for how names match); a
   * NULL-kind name leaves `values[i]` positional.
   */
  const struct sqlbatch_value *names;
  /**
   * The number of values (and of names, when `names` is not NULL).
   */
  size_t n_values;
  /**
   * The base of the TEXT and BLOB bytes; NULL when no value has bytes, or with
   * `SQLBATCH_PARAMS_ADDRESSES`.
   */
  const uint8_t *data;
  /**
   * The number of bytes at `data`.
   */
  size_t data_len;
  /**
   * 0, or a bitwise OR of `SQLBATCH_PARAMS_ADDRESSES` and `SQLBATCH_PARAMS_SINGLE`.
   */
  uint32_t flags;
} sqlbatch_params;

/**
 * A borrowed string: `len` bytes at `ptr`, NUL-terminated unless said otherwise.
 * `ptr` is NULL when there is no string (e.g. a column without a declared type).
 */
typedef struct sqlbatch_str {
  /**
   * The bytes, or NULL.
   */
  const char *ptr;
  /**
   * Their length, without the terminating NUL.
   */
  size_t len;
} sqlbatch_str;

/**
 * Metadata of one result column, from `sqlbatch_stmt_columns`.
 *
 * Each string is NUL-terminated; `ptr` is NULL where SQLite has no answer (no declared type,
 * or a column computed from an expression rather than read from a table).
 */
typedef struct sqlbatch_column {
  /**
   * The column's name (`AS` name if given), `sqlite3_column_name`.
   */
  struct sqlbatch_str name;
  /**
   * The declared type of the table column it reads, e.g. "INTEGER", "DATETIME"
   * (`sqlite3_column_decltype`).
   */
  struct sqlbatch_str decl_type;
  /**
   * The database ("main", "temp", an attached name) of the table column it reads.
   */
  struct sqlbatch_str database;
  /**
   * The table it reads from (`sqlite3_column_table_name`).
   */
  struct sqlbatch_str table;
  /**
   * The name of the table column it reads (`sqlite3_column_origin_name`).
   */
  struct sqlbatch_str origin;
} sqlbatch_column;

/**
 * sqlbatch_stmt_prepare compiles the first SQL statement in `sql` (`sql_len` bytes of UTF-8;
 * it need not be NUL-terminated) into a statement handle (`sqlite3_prepare_v3`).
 *
 * `*out_tail` (if `out_tail` is not NULL) receives the byte offset just past the compiled
 * statement, where the next one would start. SQL holding only whitespace and comments gives an
 * empty statement: it takes no parameters, has no columns, and a fetch reports
 * `SQLBATCH_DONE` at once. `flags` is 0 or a bitwise OR of `SQLBATCH_PREPARE_PERSISTENT` and
 * `SQLBATCH_PREPARE_SINGLE`; with the latter, SQL that holds a second statement after the
 * first is refused with `SQLBATCH_E_MULTIPLE_STATEMENTS` (`token_offset` at the second
 * statement), where whitespace, comments and lone semicolons after the first are fine.
 *
 * Ownership: on success the caller owns `*out_stmt` and must release it with
 * `sqlbatch_stmt_finalize`; on failure `*out_stmt` is set to NULL. The statement may be used
 * and finalized after `conn` is closed (calls then return `SQLBATCH_E_CLOSED`).
 * NULL: `conn` or `out_stmt` NULL, or `sql` NULL with `sql_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` (with `token_offset` at the first bad
 * byte); `SQLBATCH_E_RANGE` for SQL over 2 GiB; `SQLBATCH_E_INVALID_ARGUMENT` for unknown
 * flags or a NUL byte inside the SQL; `SQLBATCH_E_MULTIPLE_STATEMENTS`; `SQLBATCH_E_CLOSED`;
 * or SQLite's error (e.g. `SQLITE_ERROR` for a syntax error, with `token_offset` at the
 * offending token).
 */
int32_t sqlbatch_stmt_prepare(struct sqlbatch_conn *conn,
                              const char *sql,
                              size_t sql_len,
                              uint32_t flags,
                              struct sqlbatch_stmt **out_stmt,
                              size_t *out_tail);

/**
 * sqlbatch_stmt_finalize destroys a statement and frees its handle (`sqlite3_finalize`).
 *
 * Any batch read from it becomes invalid. Calling with NULL is a harmless no-op. Must not be
 * called twice with the same handle. Works after the connection was closed. Cannot fail: an
 * error of the statement's last run was already reported by the call that ran it.
 */
void sqlbatch_stmt_finalize(struct sqlbatch_stmt *stmt);

/**
 * sqlbatch_stmt_reset rewinds a statement so that the next fetch runs it again from the
 * start, keeping its bound parameters (`sqlite3_reset`). The current batch becomes invalid.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`. (An error of the
 * previous run is not reported again.)
 */
int32_t sqlbatch_stmt_reset(struct sqlbatch_stmt *stmt);

/**
 * sqlbatch_stmt_clear_bindings sets every parameter of `stmt` to NULL (`sqlite3_clear_bindings`).
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_clear_bindings(struct sqlbatch_stmt *stmt);

/**
 * sqlbatch_stmt_bind binds all parameters of `stmt` in one call.
 *
 * Without names (`params->names` NULL), `values[i]` goes to parameter `i + 1`, so
 * `n_values` must equal the statement's parameter count (the largest parameter index; see
 * `sqlbatch_stmt_params`). With names, the rules of `sqlbatch_conn_exec` apply to this one
 * statement: a named parameter takes the value given for its name (with or without its
 * prefix), every other parameter the next positional value, and every positional value must
 * be used. `params` NULL binds nothing (for a statement without parameters).
 *
 * The bytes of TEXT and BLOB values are copied: `params` and what it points to may be freed
 * as soon as this returns. If the statement has run since its last reset, it is reset first
 * (its current batch becomes invalid). On error some parameters may be bound already.
 * NULL: `stmt` NULL, or a NULL array in `params` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_PARAM_COUNT`; `SQLBATCH_E_RANGE` for bytes outside
 * `data_len`; `SQLBATCH_E_INVALID_ARGUMENT` for an unknown `kind`, bytes without a base or bad
 * params flags; `SQLBATCH_E_CLOSED`; or SQLite's error (e.g. `SQLITE_TOOBIG`).
 */
int32_t sqlbatch_stmt_bind(struct sqlbatch_stmt *stmt,
                           const struct sqlbatch_params *params);

/**
 * sqlbatch_stmt_bind_rows binds a whole table to parameter `index` (counted from 1) of
 * `stmt`, for the SQL to read as a table: `rows` holds `n_rows * n_cols` values, row-major,
 * `n_cols` a row (so `rows->n_values` must be a multiple of `n_cols`), of any kinds but
 * `SQLBATCH_UNDEFINED`, with NULLs; `rows->names` must be NULL.
 *
 * The SQL reads it through the `sqlbatch_rows` virtual table module, which every connection
 * has: the eponymous table `sqlbatch_rows` has one column, `value` (`WHERE id IN
 * sqlbatch_rows(?)`, `SELECT value FROM sqlbatch_rows(?)`); a table of several columns is
 * declared once per shape, with the columns as its arguments (`CREATE VIRTUAL TABLE
 * temp.points USING sqlbatch_rows(id INTEGER, name TEXT)`), and read as a table-valued
 * function (`INSERT INTO t SELECT * FROM points(?)`). A scan fails with `SQLITE_ERROR` when
 * the parameter holds no bound table, or one of another column count than the table's that
 * has rows: a table of no rows reads as empty from any `sqlbatch_rows` table (so an empty
 * list needs no width).
 *
 * Ownership: the values and their bytes are copied (once, into one allocation): `rows` and
 * what it points to may be freed as soon as this returns. The copy lives until the
 * parameter is bound again, the bindings are cleared (`sqlbatch_stmt_clear_bindings`) or
 * the statement is finalized; it survives resets, as every binding does. If the statement
 * has run since its last reset, it is reset first (its current batch becomes invalid). Bind
 * the statement's other parameters first: `sqlbatch_stmt_bind` binds every parameter, the
 * table's included (give it any value, e.g. NULL), and a later `sqlbatch_stmt_bind`
 * replaces the table.
 * NULL: `stmt` or `rows` NULL, or a NULL array with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (`index` is not a parameter of `stmt`, or bytes
 * outside `data_len`); `SQLBATCH_E_PARAM_COUNT` (`n_values` is not whole rows of `n_cols`,
 * or `n_cols` is 0); `SQLBATCH_E_INVALID_ARGUMENT` (names, an unknown kind, bytes without a
 * base, bad flags); `SQLBATCH_E_CLOSED`; `SQLITE_NOMEM`.
 */
int32_t sqlbatch_stmt_bind_rows(struct sqlbatch_stmt *stmt,
                                size_t index,
                                const struct sqlbatch_params *rows,
                                size_t n_cols);

/**
 * sqlbatch_stmt_columns gives the metadata of every result column in one call: `*out_n`
 * receives the column count and `*out_columns` an array of that many `sqlbatch_column`s.
 *
 * The array is NULL when there are no columns.
 * Lifetime: the array and its strings are owned by `stmt`; they stay valid until the next
 * `sqlbatch_stmt_columns` call on `stmt` or until it is finalized.
 * NULL: any argument NULL gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_CLOSED`, or `SQLITE_NOMEM`.
 */
int32_t sqlbatch_stmt_columns(struct sqlbatch_stmt *stmt,
                              const struct sqlbatch_column **out_columns,
                              size_t *out_n);

/**
 * sqlbatch_stmt_column_not_null tells whether result column `col` (from 0) can never be
 * NULL: `*out_not_null` is 1 when it reads a table column declared NOT NULL (or an INTEGER PRIMARY
 * KEY), 0 when it reads a table column that may be NULL, and -1 when it is an expression and
 * nothing is known. This looks up the schema (`sqlite3_table_column_metadata`), so it is kept
 * out of `sqlbatch_stmt_columns`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_column_not_null(const struct sqlbatch_stmt *stmt,
                                      size_t col,
                                      int32_t *out_not_null);

/**
 * sqlbatch_stmt_param_count gives the number of parameters of `stmt` (the largest index, as
 * `sqlbatch_stmt_params` counts them) without building their names: what a binding needs
 * for every new statement (database/sql's `NumInput`, a check of the argument count), where
 * the names are needed only once named arguments are bound.
 * NULL: any argument NULL gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_param_count(const struct sqlbatch_stmt *stmt, size_t *out_n);

/**
 * sqlbatch_stmt_params gives the names of all parameters in one call: `*out_n` receives the
 * parameter count (the largest index) and `*out_names` an array of that many names, where
 * entry `i` names parameter `i + 1` with its prefix (":a", "@a", "$a", "?3"), and has a NULL
 * `ptr` for a nameless `?`. The array is NULL when there are no parameters.
 *
 * Lifetime: owned by `stmt`, valid until it is finalized.
 * NULL: any argument NULL gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_params(struct sqlbatch_stmt *stmt,
                             const struct sqlbatch_str **out_names,
                             size_t *out_n);

/**
 * sqlbatch_stmt_param_index looks up a named parameter: `*out_index` receives the index,
 * counted from 1, of the parameter called `name` (`name_len` bytes), or 0 if there is none.
 *
 * A name given with its prefix (":id", "@id", "$id", "?3") matches that spelling only, as
 * `sqlite3_bind_parameter_index` does; a name given without one ("id") matches `:id`, else
 * `@id`, else `$id`: the rule by which `sqlbatch_conn_exec` and `sqlbatch_stmt_bind` match
 * names, so a binding needs no lookup of its own.
 * NULL: `stmt` or `out_index` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_INVALID_UTF8`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_param_index(const struct sqlbatch_stmt *stmt,
                                  const char *name,
                                  size_t name_len,
                                  size_t *out_index);

/**
 * sqlbatch_stmt_readonly writes to `*out_readonly` whether `stmt` makes no direct change to the
 * database file (`sqlite3_stmt_readonly`). An empty statement is read-only.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_readonly(const struct sqlbatch_stmt *stmt, bool *out_readonly);

/**
 * sqlbatch_stmt_sql gives the SQL text of `stmt` as it was prepared (`sqlite3_sql`).
 * Lifetime: owned by `stmt`, valid until it is finalized. An empty statement gives "".
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_stmt_sql(const struct sqlbatch_stmt *stmt, struct sqlbatch_str *out_sql);

/**
 * sqlbatch_stmt_expanded_sql gives the SQL text of `stmt` with its bound parameters written
 * in as literals (`sqlite3_expanded_sql`), for logging and debugging.
 * Lifetime: owned by `stmt`, valid until the next `sqlbatch_stmt_expanded_sql` on it or
 * until it is finalized.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`, `SQLITE_NOMEM`
 * (also when the text would exceed SQLite's length limit).
 */
int32_t sqlbatch_stmt_expanded_sql(struct sqlbatch_stmt *stmt, struct sqlbatch_str *out_sql);

/* ======================================================================================
 * 4. Batched fetch
 *
 * sqlbatch_stmt_fetch steps up to N rows into a batch: an array of cells, row-major, and
 * one block of bytes; reading it needs no further call (see the inline helpers at the end of
 * this section). sqlbatch_stmt_fetch_into puts the bytes into the caller's buffer instead.
 * With fetch-ahead, the connection's worker steps the next batch while the caller reads.
 * ====================================================================================== */

/**
 * A batch of rows, written by `sqlbatch_stmt_fetch` and `sqlbatch_stmt_fetch_into`.
 *
 * Cell (r, c) is `cells[r * n_cols + c]`; the bytes of a TEXT or BLOB cell `v` are the `v.len`
 * bytes at `data + v.bits` (at `buf + v.bits` after `sqlbatch_stmt_fetch_into`, which leaves
 * `data` NULL). Reading a batch needs no further call. Empty arrays are NULL: `cells` when
 * the batch has no cells (`n_rows * n_cols == 0`), `data` when it has no bytes.
 *
 * Lifetime: `cells` (and `data`, for `sqlbatch_stmt_fetch`) belong to the statement and stay
 * valid until the next fetch, bind, reset, bulk write or finalize on it. With
 * `sqlbatch_stmt_fetch_into`, `data` is the caller's buffer and stays the caller's.
 */
typedef struct sqlbatch_batch {
  /**
   * `n_rows * n_cols` cells, row-major; NULL when there are none.
   */
  const struct sqlbatch_value *cells;
  /**
   * Base of the TEXT and BLOB bytes; NULL when there are none, and always after
   * `sqlbatch_stmt_fetch_into` (use its `buf`).
   */
  const uint8_t *data;
  /**
   * Bytes used at `data`. After `SQLBATCH_E_BUFFER_TOO_SMALL`: the bytes the next row needs.
   */
  size_t data_len;
  /**
   * Rows in this batch (0 is possible with `SQLBATCH_DONE`).
   */
  size_t n_rows;
  /**
   * Columns per row.
   */
  size_t n_cols;
  /**
   * Identifies the batch; `sqlbatch_batch_get` uses it to detect a batch read too late.
   */
  uint64_t generation;
} sqlbatch_batch;

/**
 * sqlbatch_stmt_fetch runs `stmt` forward by up to `max_rows` rows and writes them to
 * `*out_batch`, with their TEXT and BLOB bytes in an arena owned by the statement.
 *
 * The batch also ends once it holds `max_bytes` or more (counting 16 bytes per cell plus the
 * TEXT and BLOB bytes). Rows are never split, and every batch has at least one row, however
 * large, so a result of any size streams in memory bounded by `max_bytes` plus one row.
 * Pass `SIZE_MAX` for no byte bound.
 *
 * Each cell carries its own type (SQLite's types are per value). The call reports the end of
 * the result as soon as it reaches it, also when the last row fills the batch: after
 * `SQLBATCH_DONE`, further fetches return `SQLBATCH_DONE` with no rows until the statement is
 * reset. If a step fails after some rows were collected (an interrupt, a constraint), those
 * rows are returned with `SQLBATCH_ROW` and the next fetch returns the error; a failed
 * statement keeps returning its error until it is reset.
 *
 * Lifetime: the batch borrows memory owned by `stmt`; it stays valid until the next fetch,
 * bind, reset, bulk write or finalize on `stmt`, or until the connection is closed.
 * NULL: `stmt` or `out_batch` NULL gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_ROW` (more rows may follow), `SQLBATCH_DONE` (the batch holds the last
 * rows, possibly none), `SQLBATCH_E_RANGE` if `max_rows` is 0, `SQLBATCH_E_CLOSED`, or the
 * error SQLite reported while stepping (e.g. `SQLITE_INTERRUPT`, `SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_*`). `*out_batch` is written only with `SQLBATCH_ROW` and `SQLBATCH_DONE`.
 */
int32_t sqlbatch_stmt_fetch(struct sqlbatch_stmt *stmt,
                            size_t max_rows,
                            size_t max_bytes,
                            struct sqlbatch_batch *out_batch);

/**
 * sqlbatch_stmt_fetch_into works like `sqlbatch_stmt_fetch`, but writes the TEXT and BLOB
 * bytes into the caller's buffer `buf` of `buf_len` bytes, so that a garbage-collected caller
 * can keep zero-copy slices of a batch for as long as it keeps the buffer.
 *
 * The batch ends before the first row whose bytes do not fit in what is left of `buf`. If not
 * even the batch's first row fits, the call returns `SQLBATCH_E_BUFFER_TOO_SMALL`, sets
 * `out_batch->data_len` to the number of bytes that row needs (and `n_rows` to 0), and keeps
 * the row for the next call, which should pass a buffer at least that large.
 *
 * Ownership: `buf` stays the caller's; `out_batch->data` is set to NULL (the bytes of a TEXT or
 * BLOB cell `v` are at `buf + v.bits`), so that no pointer to the caller's memory is written
 * into the caller's memory (which a garbage collector would not see). `cells` belong to `stmt`,
 * with the same lifetime as for `sqlbatch_stmt_fetch`; the bytes in `buf` are never touched
 * again by sqlbatch after this call returns.
 * NULL: `stmt` or `out_batch` NULL, or `buf` NULL with `buf_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return as `sqlbatch_stmt_fetch`, plus `SQLBATCH_E_BUFFER_TOO_SMALL`.
 */
int32_t sqlbatch_stmt_fetch_into(struct sqlbatch_stmt *stmt,
                                 size_t max_rows,
                                 uint8_t *buf,
                                 size_t buf_len,
                                 struct sqlbatch_batch *out_batch);

/**
 * sqlbatch_stmt_reset_fetch_into is `sqlbatch_stmt_reset` followed by
 * `sqlbatch_stmt_fetch_into` in one call, with the same results: for a statement run again
 * (a `BEGIN` or `COMMIT` kept prepared, a query asked again with the same parameters), whose
 * reset costs about as much again in checks as the reset itself.
 *
 * The fetch is made only if the reset succeeds; the statement's bound parameters are kept.
 * NULL: as `sqlbatch_stmt_fetch_into`.
 * @return as `sqlbatch_stmt_fetch_into` (`SQLBATCH_E_CLOSED`, `SQLBATCH_E_NULL_PARAMETER` and
 * the other errors of the reset included).
 */
int32_t sqlbatch_stmt_reset_fetch_into(struct sqlbatch_stmt *stmt,
                                       size_t max_rows,
                                       uint8_t *buf,
                                       size_t buf_len,
                                       struct sqlbatch_batch *out_batch);

/**
 * sqlbatch_batch_get copies cell (`row`, `col`) of `batch` to `*out_value`, after checking
 * that the batch is still the current one of `stmt` and that the cell exists. For TEXT and
 * BLOB, `out_value->bits` becomes `batch->data + bits`: the address of the bytes for a batch
 * from `sqlbatch_stmt_fetch`, and still the offset into `buf` for one from
 * `sqlbatch_stmt_fetch_into`. This is the checked, slower way to read a batch; reading
 * `batch->cells` directly is the fast one.
 * NULL: any pointer NULL gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_STALE_BATCH` if `stmt` moved on since the batch was
 * fetched, `SQLBATCH_E_RANGE` for a cell outside the batch.
 */
int32_t sqlbatch_batch_get(const struct sqlbatch_stmt *stmt,
                           const struct sqlbatch_batch *batch,
                           size_t row,
                           size_t col,
                           struct sqlbatch_value *out_value);

/**
 * sqlbatch_stmt_set_fetch_ahead turns fetch-ahead on or off for `stmt` (statements start
 * with their connection's `SQLBATCH_OPEN_FETCH_AHEAD`; this overrides it, at any time).
 *
 * With it on, each `sqlbatch_stmt_fetch` or `sqlbatch_stmt_fetch_into` that returns
 * `SQLBATCH_ROW` hands the statement to the connection's worker, a native thread the library
 * starts the first time (one per connection, ended by `sqlbatch_conn_close`), which steps the
 * next batch, with the same `max_rows` and byte bound (`max_bytes`, or `buf_len`), into a
 * second set of buffers while the caller reads this one. The next fetch waits for it if it
 * has not finished and hands it over; the work per row then costs the larger of SQLite's
 * time and the caller's rather than their sum, at the price of a second core busy while
 * both run.
 *
 * Small batches (cut by `max_rows`, under 64 KiB together, counting 16 bytes a cell and the
 * TEXT and BLOB bytes) cost less to step than a hand-over to the worker: for them a job steps
 * up to 16 batches at once, each cut as a synchronous fetch would cut it, and the fetches
 * hand them out one by one, from memory, without waiting for the worker, which already steps
 * the next job.
 *
 * Nothing else changes for the caller. The rows, their order, the errors and where they
 * come (rows collected before a failing step first, then the error) are those of the
 * synchronous calls; a batch stays valid until the next fetch, bind, reset, bulk write or
 * finalize of its statement; at most two batches per statement exist (a job of several
 * small ones counting as one). Where a fetch asks for smaller bounds than the one before,
 * the batch stepped ahead is handed out in parts within them; with larger ones, a batch may
 * hold fewer rows than the call allows. One difference can be seen: the statement may reach
 * the end of its result, and so end its read of the database (its locks, its snapshot), up
 * to one job earlier than the caller's fetches would have. An interrupt
 * (`sqlbatch_conn_interrupt`) that arrives while a batch is stepped ahead ends the statement
 * as it would have synchronously: the next fetch returns the one row the statement stood on
 * (`SQLBATCH_ROW`), and the fetch after it `SQLITE_INTERRUPT`.
 * Any other call on the connection, its statements, blobs or backups waits for the worker
 * first (a reset or finalize drops the batch stepped ahead), so the connection is still used
 * by one thread at a time. With `sqlbatch_stmt_fetch_into`, the worker fills the statement's
 * own arena and the next fetch copies the bytes into `buf`.
 *
 * Only read-only statements (`sqlite3_stmt_readonly`) fetch ahead; others stay synchronous,
 * and so do fetches made by a callback (an SQL function, aggregate or collation, or the WAL
 * hook, on any thread: the step that runs it is still using the connection). With it on,
 * callbacks the stepping runs (SQL functions, collations, the progress handler, the trace
 * and busy handlers) may run on the worker thread: a binding whose runtime cannot take calls from a thread it did not
 * start should not turn this on. Worth it when the caller does real work per row and the
 * batches are large enough (hundreds of rows) to cover the hand-over, a few microseconds.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`, `SQLITE_MISUSE` while a
 * bulk write queued on `stmt` was not waited for, `SQLITE_BUSY` on a backup's destination.
 */
int32_t sqlbatch_stmt_set_fetch_ahead(struct sqlbatch_stmt *stmt,
                                      bool on);

/**
 * sqlbatch_batch_cell returns a pointer to cell (row, col) of a batch. No bounds check (see
 * sqlbatch_batch_get for a checked read).
 */
static inline const sqlbatch_value *sqlbatch_batch_cell(const sqlbatch_batch *batch, size_t row, size_t col) {
  return &batch->cells[row * batch->n_cols + col];
}

/**
 * sqlbatch_batch_bytes returns the address of the bytes of a TEXT or BLOB cell of `batch`
 * (`value->len` of them; text is not NUL-terminated). Valid as long as the batch is. A cell
 * of length 0 gives NULL (so does every cell of a batch without bytes, whose `data` is NULL).
 * For a batch from sqlbatch_stmt_fetch_into, whose `data` is NULL, use `buf + value->bits`.
 */
static inline const uint8_t *sqlbatch_batch_bytes(const sqlbatch_batch *batch, const sqlbatch_value *value) {
  return batch->data == NULL || value->len == 0 ? NULL : batch->data + value->bits;
}

/** sqlbatch_value_int64 returns the number of an SQLBATCH_INTEGER value. */
static inline int64_t sqlbatch_value_int64(const sqlbatch_value *value) {
  return (int64_t)value->bits;
}

/** sqlbatch_value_double returns the number of an SQLBATCH_FLOAT value. */
static inline double sqlbatch_value_double(const sqlbatch_value *value) {
  double d;
  memcpy(&d, &value->bits, sizeof d);
  return d;
}

/* ======================================================================================
 * 5. Scripts and bulk writes
 *
 * sqlbatch_conn_exec runs every statement of a script in one call, taking positional and
 * named parameters across its statements. sqlbatch_stmt_execute_many runs one statement for
 * N rows of parameters; its _start / _wait pair runs them on the connection's worker while
 * the caller prepares the next rows.
 * ====================================================================================== */

/**
 * What `sqlbatch_conn_exec` did; written also when it fails, to say what ran before.
 */
typedef struct sqlbatch_exec_result {
  /**
   * Statements that ran to completion.
   */
  uint64_t statements;
  /**
   * Parameters bound by those statements (a named value counts each time it is bound).
   */
  uint64_t params_used;
  /**
   * Rows inserted, updated or deleted directly by those statements, summed.
   */
  int64_t changes;
  /**
   * `sqlite3_last_insert_rowid` after the call.
   */
  int64_t last_insert_rowid;
  /**
   * Byte offset where execution stopped: `sql_len` after success, the first byte of the
   * failing statement after a failure.
   */
  size_t end_offset;
} sqlbatch_exec_result;

/**
 * What `sqlbatch_stmt_execute_many` did; written also when it fails.
 */
typedef struct sqlbatch_write_result {
  /**
   * Parameter rows that ran to completion. After a failure, this is also the index of the
   * row that failed.
   */
  uint64_t rows;
  /**
   * Rows inserted, updated or deleted directly by those runs, summed.
   */
  int64_t changes;
  /**
   * `sqlite3_last_insert_rowid` after the call.
   */
  int64_t last_insert_rowid;
} sqlbatch_write_result;

/**
 * sqlbatch_conn_exec runs every statement of a SQL script (`sql_len` bytes of UTF-8, e.g. a
 * dump of thousands of statements) in one call, stepping each to completion and discarding any
 * rows, like `sqlite3_exec` without a callback.
 *
 * Parameters (`params`, NULL for none): the positional values are consumed in order across
 * the statements: each statement takes as many as its parameter count (its largest index;
 * `?3` alone takes three), parameter `i` of a statement getting the `i`-th of its share.
 * Where `params->names[i]` is a TEXT value, `values[i]` goes to every parameter of that name
 * (`:x`, `@x`, `$x`) in any statement, and is not consumed positionally. A name given with its
 * prefix matches only that spelling (":id" matches `:id`); a name given without one matches
 * every prefix ("id" matches `:id`, `@id` and `$id`), as `sqlbatch_stmt_param_index` does.
 * The bytes of values and names are only read during the call. Whitespace and comments after
 * the last statement are fine (but for a comment opener with nothing after it at the very
 * end, which SQLite reads as a slash: a syntax error). A script without statements does
 * nothing and succeeds.
 *
 * One statement: with `SQLBATCH_PARAMS_SINGLE` in `params->flags`, the SQL must hold one
 * statement taking exactly the values given, or nothing runs (see that flag): a second
 * statement is `SQLBATCH_E_MULTIPLE_STATEMENTS` with `token_offset` where it starts, another
 * number of values `SQLBATCH_E_PARAM_COUNT`, both with `statement_index` 0. Once the
 * statement ran to its end, the call succeeds. This is the call for a statement run once
 * (prepare, bind, run, finalize): the bytes are bound without a copy, and there is no
 * statement handle to allocate and finalize.
 *
 * On failure, the statements before the failing one have run and stay run (wrap the script in
 * a transaction to make it all-or-nothing); the error records the failing statement's index
 * (`statement_index`), where it starts (`statement_offset`), and the offending token relative to
 * the whole script (`token_offset`). If positional values are left over after the last
 * statement, the whole script has run and `SQLBATCH_E_PARAM_COUNT` is returned (not with
 * `SQLBATCH_PARAMS_SINGLE`, which refuses them before the statement runs).
 *
 * `*out_result` (if `out_result` is not NULL) is written in every case, saying what ran.
 * Thread: the caller of `conn` (see "Thread model").
 * NULL: `conn` NULL, `sql` NULL with `sql_len > 0`, or a NULL array in `params` with a
 * non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` (a NUL byte
 * in the SQL) before anything runs, with `token_offset` at the offending byte;
 * `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_INVALID_ARGUMENT` (a bad value
 * kind, bytes without a base, bad params flags), `SQLBATCH_E_MULTIPLE_STATEMENTS` (with
 * `SQLBATCH_PARAMS_SINGLE`), `SQLBATCH_E_CLOSED`, or the error of the
 * failing statement (e.g. `SQLITE_ERROR`, `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_INTERRUPT`).
 */
int32_t sqlbatch_conn_exec(struct sqlbatch_conn *conn,
                           const char *sql,
                           size_t sql_len,
                           const struct sqlbatch_params *params,
                           struct sqlbatch_exec_result *out_result);

/**
 * sqlbatch_stmt_execute_many runs `stmt` once per parameter row, in one call: the typical
 * bulk insert. `rows->values` holds `n_rows * n_cols` values, row-major (row r is
 * `values[r * n_cols .. (r + 1) * n_cols]`), where `n_cols` is the statement's parameter
 * count: `rows->n_values` must be exactly `n_rows` times it. `rows->names` must be NULL
 * (parameters are bound by position). `rows` may be NULL for a statement without
 * parameters, which then runs `n_rows` times. Each run is stepped to completion (rows a
 * statement returns are discarded).
 *
 * TEXT and BLOB bytes are not copied: they are only read during the call. The statement is
 * reset before the first row (its current batch becomes invalid) and after each row; its
 * bindings are cleared at the end. It does not open a transaction: wrap the call in
 * BEGIN/COMMIT for speed and atomicity.
 *
 * On failure the rows before the failing one have run; `row_index` of the connection's last
 * error, and `out_result->rows`, give the failing row.
 * `*out_result` (if `out_result` is not NULL) is written in every case.
 * NULL: `stmt` NULL, or a NULL array in `rows` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`,
 * `SQLBATCH_E_INVALID_ARGUMENT` (names given, a bad kind, bytes without a base),
 * `SQLBATCH_E_CLOSED`, or SQLite's error for the failing row (e.g.
 * `SQLITE_CONSTRAINT_PRIMARYKEY`, `SQLITE_INTERRUPT`).
 */
int32_t sqlbatch_stmt_execute_many(struct sqlbatch_stmt *stmt,
                                   const struct sqlbatch_params *rows,
                                   size_t n_rows,
                                   struct sqlbatch_write_result *out_result);

/**
 * sqlbatch_stmt_execute_many_start queues a bulk write, the same as
 * `sqlbatch_stmt_execute_many` (same arguments, same checks, same rows run), and returns
 * without waiting for it: the connection's worker thread (see
 * `sqlbatch_stmt_set_fetch_ahead`) runs the rows while the caller prepares the next batch.
 * `sqlbatch_stmt_execute_many_wait` waits for the oldest write queued and reports what it
 * did.
 *
 * Up to two writes can be queued on a statement; the worker runs them in order, going from
 * one straight to the next, so a bulk load keeps the worker busy with three parameter
 * buffers: start(b0); fill b1; start(b1); fill b2; wait() (b0 is done); start(b2); fill b0;
 * wait() (b1); start(b0); ...; wait(); wait(). With two buffers and one write queued at a
 * time (start(b0); fill b1; wait(); start(b1); fill b0; wait(); ...) it works as well, but
 * the worker idles from the end of each write until the caller's next start, which costs a
 * wake-up of each thread per batch (about 10% of a 4,096-row insert on a 2-core machine).
 *
 * If a write fails, a write queued behind it on the statement does not run: its wait
 * returns `SQLBATCH_E_SKIPPED` (with `rows` 0), so that no row runs after a failing one, as
 * with the synchronous calls. Writes queued after every queued write was waited for run
 * again.
 *
 * Ownership: the parameter memory (`rows->values` and the bytes at `rows->data`; not the
 * `sqlbatch_params` struct itself, which is read before the call returns) is read while the
 * rows run, so it must stay valid and unchanged until the wait that reports this write
 * returns. A garbage-collected caller pins it or allocates it outside its heap.
 *
 * While a write is queued on a statement (until the wait of the last one), every other call
 * on `stmt` fails with `SQLITE_MISUSE` (but `sqlbatch_stmt_finalize`, which waits for the
 * writes and drops their results). Calls on the connection and its other statements wait
 * for the writes to finish; `sqlbatch_conn_interrupt` stops the one running as it would the
 * synchronous call (then the one behind it is skipped; an interrupt that comes after the
 * first write's last row stops the second). Errors found before any row runs (NULL arrays,
 * counts, kinds) are returned by this call, and nothing is queued; errors of the rows come
 * from the wait. The first start waits for the worker to be idle, as other calls do; a
 * second start does not wait for the write before it. Called from a callback (an SQL
 * function, aggregate or collation, or the WAL hook, on any thread: the step that runs it is
 * still using the connection), or if no thread can be started, the rows run before this call
 * returns (the wait still reports them); from a callback, a second start is `SQLITE_MISUSE`.
 * NULL: `stmt` NULL, or a NULL array in `rows` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK` (queued), `SQLITE_MISUSE` (two writes are already queued and not
 * waited for), `SQLBATCH_E_CLOSED`, or the errors of `sqlbatch_stmt_execute_many` that come
 * before any row runs.
 */
int32_t sqlbatch_stmt_execute_many_start(struct sqlbatch_stmt *stmt,
                                         const struct sqlbatch_params *rows,
                                         size_t n_rows);

/**
 * sqlbatch_stmt_execute_many_wait waits for the oldest bulk write
 * `sqlbatch_stmt_execute_many_start` queued on `stmt` (not for one queued after it; the
 * wait of the last write queued waits for the worker to be idle), and reports it exactly as
 * `sqlbatch_stmt_execute_many` would have: its status, `*out_result`
 * (if `out_result` is not NULL, written in every case) and, on failure, the connection's last
 * error (with the failing row in `row_index`). After it, that write's parameter memory is the
 * caller's again.
 * NULL: `stmt` NULL gives `SQLBATCH_E_NULL_PARAMETER`.
 * @return what `sqlbatch_stmt_execute_many` returns, `SQLBATCH_E_SKIPPED` for a write queued
 * behind one that failed (see `sqlbatch_stmt_execute_many_start`), or `SQLITE_MISUSE` if no
 * write is queued on `stmt`.
 */
int32_t sqlbatch_stmt_execute_many_wait(struct sqlbatch_stmt *stmt,
                                        struct sqlbatch_write_result *out_result);

/* ======================================================================================
 * 6. SQL functions, aggregates and collations
 *
 * A callback gets a sqlbatch_call for its result and its arguments as cells; an aggregate's
 * steps may take their rows in batches. Numbers and NULL results are plain stores into
 * `call->result`; text, blobs and errors go through sqlbatch_call_result, _result_bytes and
 * sqlbatch_call_error.
 * ====================================================================================== */

/**
 * Function flag: the function gives the same result for the same arguments within one
 * statement, so SQLite may factor calls out (`SQLITE_DETERMINISTIC`).
 */
#define SQLBATCH_FUNCTION_DETERMINISTIC 2048

/**
 * Function flag: the function may not be called from triggers, views, CHECK constraints and
 * other schema structures, only from top-level SQL (`SQLITE_DIRECTONLY`).
 */
#define SQLBATCH_FUNCTION_DIRECTONLY 524288

/**
 * Function flag: the function has no side effects and leaks no information, so it may be
 * used in the schema even with trusted_schema off (`SQLITE_INNOCUOUS`).
 */
#define SQLBATCH_FUNCTION_INNOCUOUS 2097152

/**
 * One call of a registered function, aggregate or window function: where its result goes.
 * The library creates it for the length of one callback; it must not be used after the
 * callback returns.
 *
 * The simplest results, a number or NULL, a callback stores in `result` with plain stores
 * (no call into the library: for a binding, no second crossing of its FFI boundary per call);
 * `result` starts as NULL. TEXT and BLOB results, and errors, go through
 * `sqlbatch_call_result`, `sqlbatch_call_result_bytes` and `sqlbatch_call_error`; once one
 * of them was called, `result` is ignored. Any other kind left in `result` makes the call fail
 * with an error that says so. Only a scalar
 * function's callback and an aggregate's finish and value callbacks have a result; steps
 * and inverses leave `result` alone. The other fields are the library's.
 */
typedef struct sqlbatch_call {
  /**
   * The call's result, unless set through a function: `kind` `SQLBATCH_INTEGER` (`bits`
   * the two's-complement value), `SQLBATCH_FLOAT` (`bits` the IEEE-754 bits) or
   * `SQLBATCH_NULL`.
   */
  struct sqlbatch_value result;
  /**
   * The library's: the call's SQLite context.
   */
  void *_ctx;
  /**
   * The library's: whether the result was set through a function, or the call failed.
   */
  uint8_t _set;
} sqlbatch_call;

/**
 * A scalar function: computes the result of one call from `n_args` argument cells (`args`,
 * NULL when there are none), whose TEXT and BLOB bytes are at `data + bits` (`data` NULL when
 * no argument has bytes), and sets it through `call`: a number or NULL stored in
 * `call->result`, anything through `sqlbatch_call_result` and its siblings. The cells and
 * bytes are valid only during the callback. Not setting a result gives SQL NULL.
 */
typedef void (*sqlbatch_function_fn)(struct sqlbatch_call *call,
                                     void *user_data,
                                     const struct sqlbatch_value *args,
                                     size_t n_args,
                                     const uint8_t *data);

/**
 * Releases the `user_data` of a registration; called exactly once.
 */
typedef void (*sqlbatch_destroy_fn)(void *user_data);

/**
 * An aggregate's step (or a window function's inverse): takes `n_rows` argument rows of
 * `n_args` cells each (`args`, row-major; bytes at `data + bits`, as for a scalar function)
 * into the group's state. `*state` is NULL at a group's first call; the callback sets it to
 * whatever it keeps per group, and the finish callback frees it. An error set through `call`
 * ends the statement with that error.
 */
typedef void (*sqlbatch_step_fn)(struct sqlbatch_call *call,
                                 void *user_data,
                                 void **state,
                                 const struct sqlbatch_value *args,
                                 size_t n_rows,
                                 size_t n_args,
                                 const uint8_t *data);

/**
 * An aggregate's finish (or a window function's value): sets the group's result through
 * `call` (as a scalar function does) from `state` (NULL when the group had no row, e.g. `SELECT agg(x) FROM empty`).
 * The finish callback also frees `state`: it is called exactly once per group, also when
 * the statement ends early (an error, a reset); the value callback leaves it alone.
 */
typedef void (*sqlbatch_finish_fn)(struct sqlbatch_call *call, void *user_data, void *state);

/**
 * The callbacks of an aggregate or window function, for `sqlbatch_conn_create_aggregate`.
 */
typedef struct sqlbatch_aggregate {
  /**
   * Required: takes argument rows into the group's state.
   */
  sqlbatch_step_fn step;
  /**
   * Required: sets the group's result and frees its state.
   */
  sqlbatch_finish_fn finish;
  /**
   * Window functions only (NULL otherwise, together with `value`): removes the oldest
   * `n_rows` rows (always 1) from the state, as the window's frame moves on.
   */
  sqlbatch_step_fn inverse;
  /**
   * Window functions only: sets the current result, keeping the state.
   */
  sqlbatch_finish_fn value;
  /**
   * 0 or 1: `step` gets one row per call. More: the library collects up to this many rows
   * of a group (and at most `batch_bytes` bytes of their TEXT and BLOB values, if that is
   * not 0) and calls `step` once per batch; the rows of a group keep SQLite's order, and
   * what is left is handed over before `finish`, `value` and `inverse`, so a batched
   * aggregate also works as a window function (with a frame that moves every row, its
   * batches are one row long). An error set by `step` is then reported with the batch,
   * not with the row that caused it.
   */
  size_t batch_rows;
  /**
   * The byte bound of a batch (0: none); a batch always holds at least one row.
   */
  size_t batch_bytes;
} sqlbatch_aggregate;

/**
 * A collation: compares the `a_len` bytes at `a` with the `b_len` bytes at `b` (UTF-8 text,
 * not NUL-terminated, valid during the call) and returns a negative number, 0 or a positive
 * number. It must be a total order, and must not fail.
 */
typedef int32_t (*sqlbatch_collation_fn)(void *user_data,
                                         const uint8_t *a,
                                         size_t a_len,
                                         const uint8_t *b,
                                         size_t b_len);

/**
 * sqlbatch_conn_create_function registers (or replaces, or with `fn` NULL deletes) the
 * scalar SQL function `name` (`name_len` bytes of UTF-8) taking `n_args` arguments (-1 for
 * any number) on `conn` (`sqlite3_create_function_v2`).
 *
 * `flags` is 0 or a bitwise OR of `SQLBATCH_FUNCTION_DETERMINISTIC`, `_INNOCUOUS` and
 * `_DIRECTONLY`. Each call of the function in SQL calls `fn(call, user_data, args, n_args,
 * data)` on the thread that runs the statement, with the arguments as cells (see
 * `sqlbatch_function_fn`); the callback sets the result with `sqlbatch_call_result` or
 * `sqlbatch_call_error`. It may run SQL on any connection, `conn` included (from the same
 * thread: the statement that calls it is mid-step, as with SQLite's own callbacks), and may
 * call `sqlbatch_conn_interrupt`, which stops the calling statement with `SQLITE_INTERRUPT`. A function may be registered under one name once
 * per argument count.
 *
 * Ownership: `user_data` passes to the library with this call: `destroy(user_data)` (if
 * `destroy` is not NULL) runs exactly once, when the function is replaced or deleted, when
 * `conn` closes, or before this call returns if it fails.
 * NULL: `conn` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags, an empty name or one
 * with a NUL byte), `SQLBATCH_E_INVALID_UTF8`, `SQLBATCH_E_CLOSED`, or SQLite's error
 * (`SQLITE_MISUSE` for a bad argument count or a name over 255 bytes, `SQLITE_BUSY` while a
 * statement that uses the function runs).
 */
int32_t sqlbatch_conn_create_function(struct sqlbatch_conn *conn,
                                      const char *name,
                                      size_t name_len,
                                      int32_t n_args,
                                      uint32_t flags,
                                      sqlbatch_function_fn fn,
                                      void *user_data,
                                      sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_create_aggregate registers (or replaces) the aggregate SQL function `name`
 * taking `n_args` arguments (-1 for any number) on `conn`: a window function too when
 * `fns->inverse` and `fns->value` are set (`sqlite3_create_window_function`).
 *
 * For each group, the library calls `fns->step` with the group's argument rows, one row per
 * call or in batches of up to `fns->batch_rows` rows (see `sqlbatch_aggregate`), then
 * `fns->finish` once; a window function also gets `inverse` and `value` calls. `*fns` is
 * copied. `flags`, the thread that calls back, and the ownership of `user_data` are as for
 * `sqlbatch_conn_create_function`. To delete an aggregate, register a scalar function of
 * that name with a NULL `fn`.
 * NULL: `conn` or `fns` NULL, `fns->step` or `fns->finish` NULL, or `name` NULL with
 * `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER` (and `destroy(user_data)` has run).
 * @return as `sqlbatch_conn_create_function`, plus `SQLBATCH_E_INVALID_ARGUMENT` when only
 * one of `inverse` and `value` is set.
 */
int32_t sqlbatch_conn_create_aggregate(struct sqlbatch_conn *conn,
                                       const char *name,
                                       size_t name_len,
                                       int32_t n_args,
                                       uint32_t flags,
                                       const struct sqlbatch_aggregate *fns,
                                       void *user_data,
                                       sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_create_collation registers (or replaces, or with `compare` NULL deletes)
 * the collation `name` on `conn` (`sqlite3_create_collation_v2`), used by `COLLATE name`,
 * column declarations and indexes. `compare` is called on the thread that runs the
 * statement. Ownership of `user_data` is as for `sqlbatch_conn_create_function`.
 * NULL: `conn` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_INVALID_ARGUMENT`, `SQLBATCH_E_INVALID_UTF8`,
 * `SQLBATCH_E_CLOSED`, or SQLite's error (`SQLITE_BUSY` while a statement uses it).
 */
int32_t sqlbatch_conn_create_collation(struct sqlbatch_conn *conn,
                                       const char *name,
                                       size_t name_len,
                                       sqlbatch_collation_fn compare,
                                       void *user_data,
                                       sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_call_result sets the result of the current call of a function (or of an
 * aggregate's finish or value callback) to `*value`, whose TEXT or BLOB bytes are at
 * `data + value->bits` (`data_len` bytes at `data`); the bytes are copied (to hand them over
 * without a copy, use `sqlbatch_call_result_bytes`; a number or NULL can also be stored in
 * `call->result` without a call). A later result replaces it, and so does
 * an error; but once the call has failed (`sqlbatch_call_error`, or a bad result here),
 * SQLite cannot take the error back, so a later result is refused with
 * `SQLBATCH_E_INVALID_ARGUMENT` and changes nothing.
 *
 * Thread: only inside the callback that received `call`.
 * NULL: `call` or `value` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (an unknown kind, bytes without
 * `data`), `SQLBATCH_E_RANGE` (bytes outside `data_len`) or `SQLITE_TOOBIG` (text or a blob
 * over the connection's `SQLITE_LIMIT_LENGTH`), each of which also makes the call fail with
 * that error.
 */
int32_t sqlbatch_call_result(struct sqlbatch_call *call,
                             const struct sqlbatch_value *value,
                             const uint8_t *data,
                             size_t data_len);

/**
 * sqlbatch_call_result_bytes sets the result of the current call to TEXT (`kind`
 * `SQLBATCH_TEXT`, UTF-8) or BLOB (`SQLBATCH_BLOB`) bytes that the caller hands over without
 * a copy: SQLite keeps the `bytes_len` bytes at `bytes` for as long as it needs them and then calls
 * `destroy(bytes)`. When `bytes` is not NULL, `destroy` runs exactly once whatever happens,
 * also when this call fails, and possibly before it returns (for an empty value, or when
 * SQLite copies or refuses the bytes); it runs on the thread running the statement and must
 * not call into the library. A NULL `destroy` means copy the bytes now, as
 * `sqlbatch_call_result` does. The other rules are `sqlbatch_call_result`'s.
 *
 * Thread: only inside the callback that received `call`.
 * NULL: `call` NULL: `SQLBATCH_E_NULL_PARAMETER` (`destroy` still runs); `bytes` NULL with
 * `bytes_len` > 0: `SQLBATCH_E_INVALID_ARGUMENT`; `bytes` NULL with `bytes_len` 0: an empty value.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (a kind other than TEXT or BLOB, a
 * call that has failed already) or `SQLITE_TOOBIG` (over the connection's
 * `SQLITE_LIMIT_LENGTH`), which (but for the failed call) also make the call fail.
 */
int32_t sqlbatch_call_result_bytes(struct sqlbatch_call *call,
                                   uint8_t kind,
                                   const uint8_t *bytes,
                                   size_t bytes_len,
                                   sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_call_error makes the current call fail: the statement stops with `code` (an
 * SQLite result code, e.g. `SQLITE_CONSTRAINT`; 0 or a library code give `SQLITE_ERROR`) and
 * the `message_len` bytes of UTF-8 at `message` (copied) as its message.
 * Thread: only inside the callback that received `call`. NULL `call`: a no-op; NULL
 * `message`: SQLite's description of `code`.
 */
void sqlbatch_call_error(struct sqlbatch_call *call,
                         int32_t code,
                         const char *message,
                         size_t message_len);

/* ======================================================================================
 * 7. Virtual tables
 *
 * A module the caller implements (sqlbatch_conn_create_module) serves its rows in batches:
 * its cursor's fill pushes up to N rows at once (sqlbatch_vtab_push), and the library answers
 * SQLite's per-row and per-value calls from them. Planning is one call with every constraint
 * and ORDER BY term; an IN list can reach filter whole.
 * ====================================================================================== */

/**
 * Module flag: the module is also an eponymous table: its name reads as a table (or a
 * table-valued function) without `CREATE VIRTUAL TABLE`, and `CREATE VIRTUAL TABLE` makes
 * tables of it too. `connect`'s `create` is then always false.
 */
#define SQLBATCH_VTAB_EPONYMOUS 1

/**
 * Module flag: the module is only an eponymous table; `CREATE VIRTUAL TABLE` refuses it.
 */
#define SQLBATCH_VTAB_EPONYMOUS_ONLY 2

/**
 * Constraint operator (`sqlbatch_vtab_constraint.op`): `column = value` (SQLite's
 * `SQLITE_INDEX_CONSTRAINT_EQ`; an `IN (...)` is an EQ whose whole list `filter` can take).
 */
#define SQLBATCH_INDEX_EQ 2

/**
 * Constraint operator: `>` (`SQLITE_INDEX_CONSTRAINT_GT`).
 */
#define SQLBATCH_INDEX_GT 4

/**
 * Constraint operator: `<=` (`SQLITE_INDEX_CONSTRAINT_LE`).
 */
#define SQLBATCH_INDEX_LE 8

/**
 * Constraint operator: `<` (`SQLITE_INDEX_CONSTRAINT_LT`).
 */
#define SQLBATCH_INDEX_LT 16

/**
 * Constraint operator: `>=` (`SQLITE_INDEX_CONSTRAINT_GE`).
 */
#define SQLBATCH_INDEX_GE 32

/**
 * Constraint operator: `MATCH` (`SQLITE_INDEX_CONSTRAINT_MATCH`).
 */
#define SQLBATCH_INDEX_MATCH 64

/**
 * Constraint operator: `LIKE` (`SQLITE_INDEX_CONSTRAINT_LIKE`).
 */
#define SQLBATCH_INDEX_LIKE 65

/**
 * Constraint operator: `GLOB` (`SQLITE_INDEX_CONSTRAINT_GLOB`).
 */
#define SQLBATCH_INDEX_GLOB 66

/**
 * Constraint operator: `REGEXP` (`SQLITE_INDEX_CONSTRAINT_REGEXP`).
 */
#define SQLBATCH_INDEX_REGEXP 67

/**
 * Constraint operator: `!=` or `<>` (`SQLITE_INDEX_CONSTRAINT_NE`).
 */
#define SQLBATCH_INDEX_NE 68

/**
 * Constraint operator: `IS NOT` (`SQLITE_INDEX_CONSTRAINT_ISNOT`).
 */
#define SQLBATCH_INDEX_ISNOT 69

/**
 * Constraint operator: `IS NOT NULL` (`SQLITE_INDEX_CONSTRAINT_ISNOTNULL`).
 */
#define SQLBATCH_INDEX_ISNOTNULL 70

/**
 * Constraint operator: `IS NULL` (`SQLITE_INDEX_CONSTRAINT_ISNULL`).
 */
#define SQLBATCH_INDEX_ISNULL 71

/**
 * Constraint operator: `IS` (`SQLITE_INDEX_CONSTRAINT_IS`).
 */
#define SQLBATCH_INDEX_IS 72

/**
 * Constraint "operator": the query's `LIMIT` (`column` is -1): a module that takes it as an
 * argument of `filter` knows how many rows the query can use at most.
 */
#define SQLBATCH_INDEX_LIMIT 73

/**
 * Constraint "operator": the query's `OFFSET` (`column` is -1).
 */
#define SQLBATCH_INDEX_OFFSET 74

/**
 * A change to a writable table (`sqlbatch_vtab_change.op`): a row inserted.
 */
#define SQLBATCH_VTAB_INSERT 1

/**
 * A change: a row updated (its rowid may change).
 */
#define SQLBATCH_VTAB_UPDATE 2

/**
 * A change: a row deleted.
 */
#define SQLBATCH_VTAB_DELETE 3

/**
 * One call of a module's callback: what it may do besides returning (declare the table,
 * push rows, say why it failed). Opaque; the library's, valid only during the callback it
 * was passed to.
 */
typedef struct sqlbatch_vtab_call sqlbatch_vtab_call;

/**
 * One constraint of a query on a virtual table, for `best_index` (SQLite's
 * `sqlite3_index_constraint`, with what SQLite can tell about it at planning time).
 */
typedef struct sqlbatch_vtab_constraint {
  /**
   * The column (from 0, hidden ones counted); -1 for the rowid, and for LIMIT and OFFSET.
   */
  int32_t column;
  /**
   * `SQLBATCH_INDEX_*`.
   */
  uint8_t op;
  /**
   * Whether this plan can use it (false: its value comes from a table later in the join
   * order SQLite is costing; a plan that needs it should return `SQLITE_CONSTRAINT`).
   */
  bool usable;
  /**
   * An EQ constraint that is an `IN (...)`, which `filter` can take as the whole list (set
   * `whole_list` in its use).
   */
  bool in_list;
  /**
   * Its value, if SQLite knows it already (a literal; `SQLBATCH_UNDEFINED` otherwise), the
   * bytes at `sqlbatch_vtab_index.data + bits`.
   */
  struct sqlbatch_value value;
} sqlbatch_vtab_constraint;

/**
 * One ORDER BY term.
 */
typedef struct sqlbatch_vtab_order {
  /**
   * The column (from 0; -1 for the rowid).
   */
  int32_t column;
  bool desc;
} sqlbatch_vtab_order;

/**
 * What `best_index` decides for one constraint (SQLite's `sqlite3_index_constraint_usage`).
 */
typedef struct sqlbatch_vtab_use {
  /**
   * 0: not used; otherwise the constraint's value becomes argument `arg_index` of `filter`
   * (the ones used count 1, 2, ... with no gap).
   */
  int32_t arg_index;
  /**
   * Whether SQLite may skip checking the constraint on the rows (the table applies it).
   */
  bool omit;
  /**
   * For an `in_list` constraint: `filter` gets the whole list (`sqlbatch_vtab_arg.list`),
   * and one scan, instead of one scan per value.
   */
  bool whole_list;
} sqlbatch_vtab_use;

/**
 * A planning call of `best_index`: the query's constraints and order on the table, and the
 * plan the module chooses. The input fields and arrays are valid during the call; the
 * module writes the output fields (their defaults: no constraint used, plan 0, a full scan's
 * cost).
 */
typedef struct sqlbatch_vtab_index {
  /**
   * In: the constraints.
   */
  const struct sqlbatch_vtab_constraint *constraints;
  size_t n_constraints;
  /**
   * In: the ORDER BY terms.
   */
  const struct sqlbatch_vtab_order *order_by;
  size_t n_order_by;
  /**
   * In: the columns the query reads: bit `i` for column `i` (bit 63 for column 63 and up).
   */
  uint64_t columns_used;
  /**
   * In: the base of the bytes of the constraints' TEXT and BLOB values.
   */
  const uint8_t *data;
  /**
   * Out: one use per constraint (`n_constraints` of them), all zero on entry.
   */
  struct sqlbatch_vtab_use *uses;
  /**
   * Out: the plan's number, handed to `filter`.
   */
  int32_t idx_num;
  /**
   * Out: whether the rows come in the ORDER BY's order (SQLite then does not sort them).
   */
  bool order_by_consumed;
  /**
   * Out: whether the plan returns at most one row.
   */
  bool unique;
  /**
   * Out: the plan's estimated cost (compared between plans; a disk page read is 1).
   */
  double estimated_cost;
  /**
   * Out: the estimated number of rows.
   */
  int64_t estimated_rows;
} sqlbatch_vtab_index;

/**
 * An argument of `filter`: a constraint's value, or, for an IN constraint taken whole, its
 * whole list.
 */
typedef struct sqlbatch_vtab_arg {
  /**
   * The value (`SQLBATCH_UNDEFINED` for a list).
   */
  struct sqlbatch_value value;
  /**
   * The list's values (NULL when this is not a list, or an empty one).
   */
  const struct sqlbatch_value *list;
  size_t n_list;
} sqlbatch_vtab_arg;

/**
 * A change to a writable table, for `update`.
 */
typedef struct sqlbatch_vtab_change {
  /**
   * `SQLBATCH_VTAB_INSERT`, `_UPDATE` or `_DELETE`.
   */
  int32_t op;
  /**
   * The rowid of the row updated or deleted (0 for an insert).
   */
  int64_t old_rowid;
  /**
   * The new row's rowid: INTEGER, or NULL when the table should choose one (an insert
   * without one); for a delete, NULL.
   */
  struct sqlbatch_value new_rowid;
  /**
   * The new row's columns (hidden ones included), for an insert or an update; none for a
   * delete. The bytes of TEXT and BLOB values are at `data + bits`.
   */
  const struct sqlbatch_value *values;
  size_t n_values;
  const uint8_t *data;
} sqlbatch_vtab_change;

/**
 * A table's module, as the caller implements it. Every callback gets the module's
 * `user_data` and a call context; every callback that can fail returns `SQLBATCH_OK` (or, for
 * `fill`, `SQLBATCH_ROW` / `SQLBATCH_DONE`) or an error code, whose message it may give with
 * `sqlbatch_vtab_error`. Callbacks run on the thread stepping the statement (see "Thread
 * model"); they may use the connection, as SQLite allows.
 */
typedef struct sqlbatch_vtab_module {
  /**
   * Required. Makes a table: declares its columns with `sqlbatch_vtab_declare` (once) and
   * sets `*out_table` to the caller's state for it (any pointer, NULL too). `args` are
   * SQLite's (`xCreate`'s and `xConnect`'s argv): `args[0]` the module's name, `args[1]`
   * the database's ("main", "temp", an attached one), `args[2]` the table's (the module's
   * own for an eponymous table), then the module arguments of `CREATE VIRTUAL TABLE t
   * USING m(args...)` as written; `n_args` is at least 3. `create` is true when `CREATE
   * VIRTUAL TABLE` makes the table (false when it is connected again, after the database
   * was reopened, and for an eponymous table). The strings are valid during the call.
   */
  int32_t (*connect)(void *user_data,
                     struct sqlbatch_vtab_call *call,
                     bool create,
                     const struct sqlbatch_str *args,
                     size_t n_args,
                     void **out_table);
  /**
   * Optional. Plans a scan: reads the constraints and ORDER BY terms of `index` and writes
   * its outputs (which constraints become arguments of `filter`, a plan number, a cost).
   * NULL: every scan reads the whole table, with no arguments.
   */
  int32_t (*best_index)(void *user_data,
                        struct sqlbatch_vtab_call *call,
                        void *table,
                        struct sqlbatch_vtab_index *index);
  /**
   * Required. Opens a cursor on `table`: sets `*out_cursor` to the caller's state for it.
   */
  int32_t (*open)(void *user_data, struct sqlbatch_vtab_call *call, void *table, void **out_cursor);
  /**
   * Required. Starts (or restarts) a scan of `cursor` with the plan `best_index` chose
   * (`idx_num`) and the constraints' values it asked for, in the order of their `arg_index`
   * (`args[0]` is argument 1); the bytes of TEXT and BLOB values are at `data + bits`.
   * Everything is valid during the call.
   */
  int32_t (*filter)(void *user_data,
                    struct sqlbatch_vtab_call *call,
                    void *cursor,
                    int32_t idx_num,
                    const struct sqlbatch_vtab_arg *args,
                    size_t n_args,
                    const uint8_t *data);
  /**
   * Required. Hands over the scan's next rows: calls `sqlbatch_vtab_push` with up to
   * `max_rows` rows in all (once or several times), then returns `SQLBATCH_ROW` if more rows
   * may follow (it pushed at least one) or `SQLBATCH_DONE` if these are the last (possibly
   * none). Called after `filter`, and again when SQLite has read every row pushed.
   */
  int32_t (*fill)(void *user_data, struct sqlbatch_vtab_call *call, void *cursor, size_t max_rows);
  /**
   * Required. Frees a cursor's state: its scan ended (the statement finished, was reset or
   * finalized, or its connection closed). Called once per cursor `open` made.
   */
  void (*close)(void *user_data, void *cursor);
  /**
   * Required. Frees a table's state; `destroy` is true when the table is dropped (`DROP
   * TABLE`: its data may go too), false when the connection closes. Called once per table
   * `connect` made.
   */
  void (*disconnect)(void *user_data, void *table, bool destroy);
  /**
   * Optional: a writable table. Makes one change (`INSERT`, `UPDATE`, `DELETE` of one row),
   * one call per row; for an insert that leaves the rowid to the table, sets `*out_rowid`.
   * NULL: the table is read-only (SQLite refuses changes).
   */
  int32_t (*update)(void *user_data,
                    struct sqlbatch_vtab_call *call,
                    void *table,
                    const struct sqlbatch_vtab_change *change,
                    int64_t *out_rowid);
  /**
   * How many rows a `fill` is asked for at most (0: 256).
   */
  size_t batch_rows;
} sqlbatch_vtab_module;

/**
 * sqlbatch_conn_create_module registers a virtual table module named `name` (`name_len`
 * bytes of UTF-8) on `conn`, implemented by the callbacks of `module` (copied: `module` may
 * be freed when this returns), which the library calls in batches: `fill` hands over up to
 * `batch_rows` rows at once, and SQLite's calls for each row and each value are served by
 * the library from them.
 *
 * `flags` is 0 (tables made by `CREATE VIRTUAL TABLE t USING name(args...)`),
 * `SQLBATCH_VTAB_EPONYMOUS` (also the table `name` itself, without CREATE; with hidden
 * columns, a table-valued function: `SELECT * FROM name(1, 2)`), or
 * `SQLBATCH_VTAB_EPONYMOUS_ONLY` (only that). `module` NULL removes the module of that
 * name (tables that use it stop working).
 *
 * Planning (`best_index`) is one call per plan SQLite considers, with every constraint and
 * ORDER BY term; a constraint the plan uses becomes an argument of `filter`, an IN list
 * taken whole becomes one argument holding the whole list, and LIMIT and OFFSET are
 * constraints a plan may take (`SQLBATCH_INDEX_LIMIT`). Changes to a writable table
 * (`update`) come one row per call, as SQLite makes them: each needs its own outcome (an
 * insert's rowid, a constraint error) before SQLite goes on, and a table read within the
 * same transaction must see them; no transaction callbacks are called.
 *
 * Threads: the callbacks run on the thread stepping the statement (the connection's worker
 * for a statement that fetches ahead); they may use the connection, as SQLite allows, but
 * not the statement that is reading the table. An error a callback returns ends the
 * statement with it (a library code as `SQLITE_ERROR`), with the message it gave
 * (`sqlbatch_vtab_error`); a panic must not cross back.
 * Ownership: `destroy` (if not NULL) is called with `user_data` exactly once: when the
 * module is replaced or removed, when `conn` closes, or at once if this call fails.
 * `close` is called once for every cursor `open` made, and `disconnect` once for every table
 * `connect` made, also when a statement is finalized in the middle of a scan or the
 * connection closes.
 * NULL: `conn` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (bad flags, a required callback
 * NULL, an empty name or one with a NUL byte); `SQLBATCH_E_INVALID_UTF8`;
 * `SQLBATCH_E_CLOSED`; `SQLITE_NOMEM`.
 */
int32_t sqlbatch_conn_create_module(struct sqlbatch_conn *conn,
                                    const char *name,
                                    size_t name_len,
                                    const struct sqlbatch_vtab_module *module,
                                    uint32_t flags,
                                    void *user_data,
                                    sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_vtab_declare declares the columns of the table a module's `connect` makes, as a
 * `CREATE TABLE` statement (`sql_len` bytes of UTF-8): `"CREATE TABLE x(a INTEGER, b TEXT,
 * arg HIDDEN)"` (the table's name is ignored; hidden columns are the arguments of a
 * table-valued function, in order). Only from `connect`, once, through its `call`.
 * @return `SQLBATCH_OK`; `SQLITE_MISUSE` (not from `connect`, or twice);
 * `SQLBATCH_E_INVALID_UTF8`; SQLite's error for a statement it refuses (`connect` should
 * return it); `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_vtab_declare(struct sqlbatch_vtab_call *call, const char *sql, size_t sql_len);

/**
 * sqlbatch_vtab_push hands rows over to the cursor a module's `fill` fills: `rows` holds
 * whole rows of `n_cols` values each, row-major (`rows->names` NULL), and `rowids` NULL
 * (rows numbered 1, 2, ... in each scan) or one rowid per row. Called from `fill`, through
 * its `call`, any number of times, with no more rows in all than `fill` was asked for, and
 * the same `n_cols` throughout a scan (columns past `n_cols`, a table's hidden argument
 * columns say, read as NULL).
 *
 * Ownership: the values, their bytes and the rowids are copied; everything may be freed (or
 * reused for the next rows) as soon as this returns.
 * @return `SQLBATCH_OK`; `SQLITE_MISUSE` (not from `fill`); `SQLBATCH_E_RANGE` (more rows
 * than asked, or bytes outside `data_len`); `SQLBATCH_E_PARAM_COUNT` (not whole rows, or
 * another `n_cols`); `SQLBATCH_E_INVALID_ARGUMENT` (names, an unknown kind, bytes without a
 * base); `SQLITE_NOMEM`; `SQLBATCH_E_NULL_PARAMETER`. A failure also becomes the message of
 * `fill`'s error, which `fill` should return.
 */
int32_t sqlbatch_vtab_push(struct sqlbatch_vtab_call *call,
                           const struct sqlbatch_params *rows,
                           size_t n_cols,
                           const int64_t *rowids);

/**
 * sqlbatch_vtab_error gives the message (`message_len` bytes of UTF-8; invalid bytes are
 * replaced) of the error the current callback returns; SQLite reports it as the
 * statement's error message. NULL `call` or `message`: a no-op.
 */
void sqlbatch_vtab_error(struct sqlbatch_vtab_call *call, const char *message, size_t message_len);

/* ======================================================================================
 * 8. Hooks and tracing
 *
 * SQLite's hooks, one registration each, with the changed rows of the preupdate hook as
 * cells; the update events also in batches (sqlbatch_conn_change_feed,
 * sqlbatch_conn_update_hook_batched); tracing of statements, their rows and their time.
 * ====================================================================================== */

/**
 * `sqlbatch_conn_preupdate_hook` flag: hand each event the row before the change.
 */
#define SQLBATCH_PREUPDATE_OLD 1

/**
 * `sqlbatch_conn_preupdate_hook` flag: hand each event the row after the change.
 */
#define SQLBATCH_PREUPDATE_NEW 2

/**
 * Change feed `reason`: the feed's buffer is full in the middle of a transaction (these
 * changes may still be rolled back; a later batch says how the transaction ended).
 */
#define SQLBATCH_FEED_FULL 0

/**
 * The transaction committed: these are its last changes.
 */
#define SQLBATCH_FEED_COMMIT 1

/**
 * The transaction rolled back: these changes were undone (and so were those of the batches
 * since its last COMMIT batch).
 */
#define SQLBATCH_FEED_ROLLBACK 2

/**
 * Trace event: a statement starts running (`SQLITE_TRACE_STMT`).
 */
#define SQLBATCH_TRACE_STMT 1

/**
 * A statement finished, with its run time (`SQLITE_TRACE_PROFILE`).
 */
#define SQLBATCH_TRACE_PROFILE 2

/**
 * A statement produced a row (`SQLITE_TRACE_ROW`).
 */
#define SQLBATCH_TRACE_ROW 4

/**
 * The connection closes (`SQLITE_TRACE_CLOSE`).
 */
#define SQLBATCH_TRACE_CLOSE 8

/**
 * Trace flag: `STMT` events carry, besides the SQL as prepared, the SQL with the bound values
 * in place of the parameters (`sqlite3_expanded_sql`), in `expanded_sql`.
 */
#define SQLBATCH_TRACE_EXPANDED 256

/**
 * An update hook: a row of table `table` (NUL-terminated UTF-8) of database `schema` was
 * inserted (`op` 18, `SQLITE_INSERT`), deleted (9, `SQLITE_DELETE`) or updated (23,
 * `SQLITE_UPDATE`); `rowid` is its rowid (the new one for an insert). Not called for
 * WITHOUT ROWID tables, or for rows a truncating DELETE removes. The strings are valid during
 * the call. It must not use the connection (SQLite's rule for this hook).
 */
typedef void (*sqlbatch_update_hook_fn)(void *user_data,
                                        int32_t op,
                                        const char *schema,
                                        const char *table,
                                        int64_t rowid);

/**
 * A row about to change, for a preupdate hook (`sqlbatch_conn_preupdate_hook`). Everything
 * it points to is valid during the callback only.
 */
typedef struct sqlbatch_preupdate {
  /**
   * `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
   */
  int32_t op;
  /**
   * 0 for a change the statement itself makes, 1 for one a trigger it fired makes, 2 for a
   * trigger of that trigger, and so on (`sqlite3_preupdate_depth`).
   */
  int32_t depth;
  /**
   * The database: "main", "temp" or an attached name (NUL-terminated).
   */
  struct sqlbatch_str schema;
  /**
   * The table (NUL-terminated).
   */
  struct sqlbatch_str table;
  /**
   * DELETE and UPDATE: the row's rowid before the change; 0 for an INSERT. Not defined for
   * WITHOUT ROWID tables.
   */
  int64_t old_rowid;
  /**
   * INSERT and UPDATE: the row's rowid after the change; 0 for a DELETE. Not defined for
   * WITHOUT ROWID tables.
   */
  int64_t new_rowid;
  /**
   * The table's number of columns (`sqlite3_preupdate_count`).
   */
  size_t n_cols;
  /**
   * With `SQLBATCH_PREUPDATE_OLD`, for a DELETE or UPDATE: the row before the change,
   * `n_cols` cells (bytes at `data + bits`); NULL otherwise.
   */
  const struct sqlbatch_value *old_values;
  /**
   * With `SQLBATCH_PREUPDATE_NEW`, for an INSERT or UPDATE: the row after the change,
   * `n_cols` cells; NULL otherwise.
   */
  const struct sqlbatch_value *new_values;
  /**
   * The base of the TEXT and BLOB bytes of both rows (NULL when none has bytes).
   */
  const uint8_t *data;
  /**
   * -1, or, when the change is a write through an incremental blob handle
   * (`sqlbatch_blob_write`; `op` is then `SQLITE_DELETE` and the new row is not known), the
   * column being written (`sqlite3_preupdate_blobwrite`).
   */
  int32_t blob_column;
} sqlbatch_preupdate;

/**
 * A preupdate hook: a row is about to be inserted, deleted or updated (`change`, valid during
 * the call). Called for WITHOUT ROWID tables too, and for the changes triggers make. It must
 * not use the connection.
 */
typedef void (*sqlbatch_preupdate_fn)(void *user_data, const struct sqlbatch_preupdate *change);

/**
 * A commit hook: a transaction is about to commit; returning non-zero turns the commit into
 * a rollback (the statement then fails with `SQLITE_CONSTRAINT_COMMITHOOK`). It must not use
 * the connection.
 */
typedef int32_t (*sqlbatch_commit_hook_fn)(void *user_data);

/**
 * A rollback hook: a transaction was rolled back (not called for `ROLLBACK TO`, nor when the
 * connection closes with a transaction open). It must not use the connection.
 */
typedef void (*sqlbatch_rollback_hook_fn)(void *user_data);

/**
 * A WAL hook: a transaction committed in WAL mode; `pages` frames are now in the log of
 * database `schema` (NUL-terminated). Returns an SQLite code: `SQLITE_OK` (0), or an error,
 * which the committing statement then reports (the commit itself stands). It may run SQL, e.g.
 * a checkpoint.
 */
typedef int32_t (*sqlbatch_wal_hook_fn)(void *user_data, const char *schema, int32_t pages);

/**
 * A progress handler: called about every N virtual machine steps of a running statement;
 * returning non-zero interrupts it (`SQLITE_INTERRUPT`). It must not use the connection.
 */
typedef int32_t (*sqlbatch_progress_fn)(void *user_data);

/**
 * A busy handler: a table is locked by another connection; `count` is how many times it was
 * called for this lock. Returning non-zero retries, zero gives up (`SQLITE_BUSY`). It must
 * not use the connection.
 */
typedef int32_t (*sqlbatch_busy_fn)(void *user_data, int32_t count);

/**
 * An authorizer: called while statements are prepared, once per action (`action` an
 * `SQLITE_*` authorizer code, e.g. `SQLITE_READ` 20, `SQLITE_INSERT` 18, `SQLITE_PRAGMA` 19),
 * with up to four NUL-terminated strings that depend on the action (each may be NULL; `schema`
 * is the database, `trigger` the innermost trigger or view). Returns `SQLITE_OK` (0),
 * `SQLITE_DENY` (1: the prepare fails with `SQLITE_AUTH`) or `SQLITE_IGNORE` (2: the column
 * reads as NULL, or the action is skipped). It must not use the connection.
 */
typedef int32_t (*sqlbatch_authorizer_fn)(void *user_data,
                                          int32_t action,
                                          const char *a,
                                          const char *b,
                                          const char *schema,
                                          const char *trigger);

/**
 * One change of a batch of the change feed.
 */
typedef struct sqlbatch_change {
  /**
   * The row's rowid (the new one for an insert).
   */
  int64_t rowid;
  /**
   * `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
   */
  int32_t op;
  /**
   * Index of its table in the batch's `tables`.
   */
  uint32_t table;
} sqlbatch_change;

/**
 * A table of a batch of the change feed.
 */
typedef struct sqlbatch_change_table {
  /**
   * The database: "main", "temp" or an attached name (NUL-terminated).
   */
  struct sqlbatch_str schema;
  /**
   * The table (NUL-terminated).
   */
  struct sqlbatch_str name;
} sqlbatch_change_table;

/**
 * The change feed's callback: `n_changes` changes in the order they happened (`changes`),
 * naming their tables by index into `tables` (`n_tables` of them). Both arrays and their
 * strings are valid during the call only. It must not use the connection.
 */
typedef void (*sqlbatch_change_feed_fn)(void *user_data,
                                        const struct sqlbatch_change *changes,
                                        size_t n_changes,
                                        const struct sqlbatch_change_table *tables,
                                        size_t n_tables,
                                        int32_t reason);

/**
 * The batched update hook's callback (`sqlbatch_conn_update_hook_batched`): `n_changes`
 * update events in the order they happened (`changes`), naming their tables by index into
 * `tables` (`n_tables` of them). Both arrays and their strings are valid during the call only.
 * It must not use the connection. It returns 0 to go on, or non-zero to stop: see
 * `sqlbatch_conn_update_hook_batched`.
 */
typedef int32_t (*sqlbatch_update_batch_fn)(void *user_data,
                                            const struct sqlbatch_change *changes,
                                            size_t n_changes,
                                            const struct sqlbatch_change_table *tables,
                                            size_t n_tables);

/**
 * One trace event (`sqlbatch_conn_trace`), valid during the callback only.
 */
typedef struct sqlbatch_trace_event {
  /**
   * One `SQLBATCH_TRACE_*` event bit.
   */
  uint32_t event;
  /**
   * 1 when the connection is in autocommit mode at the event (no transaction open:
   * `sqlite3_get_autocommit`), else 0.
   */
  int32_t autocommit;
  /**
   * The statement's identity: SQLite's address for it, the same for every event of one
   * statement while it lives (0 for `CLOSE`). Not a handle: nothing may be called with it.
   */
  uint64_t stmt;
  /**
   * The statement's text (NUL-terminated). For `STMT` as it starts, as SQLite gives it: the
   * SQL as prepared, or "-- " and a trigger's name or statement for a trigger program; for
   * `PROFILE` and `ROW` the SQL as prepared; empty (`ptr` NULL) for `CLOSE`.
   */
  struct sqlbatch_str sql;
  /**
   * For `STMT` when tracing with `SQLBATCH_TRACE_EXPANDED`, but not for a trigger's "-- "
   * text: the SQL with the bound values in place of its parameters
   * (`sqlite3_expanded_sql`; NUL-terminated). Empty (`ptr` NULL) otherwise, or when SQLite
   * could not expand it (out of memory, or longer than `SQLITE_LIMIT_LENGTH`).
   */
  struct sqlbatch_str expanded_sql;
  /**
   * For `PROFILE`: how long the statement ran, in nanoseconds (SQLite's clock: millisecond
   * resolution on most systems). 0 otherwise.
   */
  int64_t nanoseconds;
} sqlbatch_trace_event;

/**
 * A trace callback (`sqlbatch_conn_trace`): `event` describes one event and is valid during
 * the call only. It must not use the connection.
 */
typedef void (*sqlbatch_trace_fn)(void *user_data, const struct sqlbatch_trace_event *event);

/**
 * sqlbatch_conn_update_hook sets the update hook of `conn` (`fn` NULL removes it): `fn` is
 * called with `user_data` for every row inserted, updated or deleted, as it happens
 * (`sqlite3_update_hook`), on the thread running the statement. The change feed
 * (`sqlbatch_conn_change_feed`) gets the same events in batches; both may be set.
 *
 * Ownership: `destroy` (if not NULL) is called with `user_data` exactly once: when the hook
 * is replaced or removed, when `conn` closes, or at once if this call fails or `fn` is NULL.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (called from
 * inside a hook); `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_update_hook(struct sqlbatch_conn *conn,
                                  sqlbatch_update_hook_fn fn_,
                                  void *user_data,
                                  sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_preupdate_hook sets the preupdate hook of `conn` (`fn` NULL removes it): `fn`
 * is called with `user_data` before every row is inserted, updated or deleted
 * (`sqlite3_preupdate_hook`), on the thread running the statement, with the whole change in
 * one `sqlbatch_preupdate`: with `SQLBATCH_PREUPDATE_OLD` in `flags` the row before it, with
 * `SQLBATCH_PREUPDATE_NEW` the row after it, as cells (reading them costs the decoding of the
 * row; without the flags the event carries only what changes where). Unlike the update hook,
 * it also sees WITHOUT ROWID tables.
 *
 * SQLite has one preupdate slot, which sessions (`sqlbatch_session_create`) also need: while
 * a session of `conn` lives, this call fails with `SQLITE_MISUSE`, and while a preupdate hook
 * is set, so does creating a session.
 * Ownership: as for `sqlbatch_conn_update_hook`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (called from
 * inside a hook, unknown flags); `SQLITE_MISUSE` (a session lives); `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_preupdate_hook(struct sqlbatch_conn *conn,
                                     uint32_t flags,
                                     sqlbatch_preupdate_fn fn_,
                                     void *user_data,
                                     sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_commit_hook sets the commit hook of `conn` (`fn` NULL removes it): called
 * before each commit; non-zero makes it a rollback (`sqlite3_commit_hook`). Ownership and
 * errors as for `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_commit_hook(struct sqlbatch_conn *conn,
                                  sqlbatch_commit_hook_fn fn_,
                                  void *user_data,
                                  sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_rollback_hook sets the rollback hook of `conn` (`fn` NULL removes it)
 * (`sqlite3_rollback_hook`). Ownership and errors as for `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_rollback_hook(struct sqlbatch_conn *conn,
                                    sqlbatch_rollback_hook_fn fn_,
                                    void *user_data,
                                    sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_wal_hook sets the WAL hook of `conn` (`fn` NULL removes it), called after
 * each commit in WAL mode (`sqlite3_wal_hook`). It replaces SQLite's automatic checkpoints
 * (`PRAGMA wal_autocheckpoint`), which use the same slot: set it back with that pragma after
 * removing the hook. No other hook of this section touches that slot. Ownership and errors
 * as for `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_wal_hook(struct sqlbatch_conn *conn,
                               sqlbatch_wal_hook_fn fn_,
                               void *user_data,
                               sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_progress_handler sets the progress handler of `conn`, called about every
 * `every` virtual machine steps (`sqlite3_progress_handler`); `fn` NULL or `every` < 1
 * removes it. Ownership and errors as for `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_progress_handler(struct sqlbatch_conn *conn,
                                       int32_t every,
                                       sqlbatch_progress_fn fn_,
                                       void *user_data,
                                       sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_busy_handler sets the busy handler of `conn` (`fn` NULL removes it)
 * (`sqlite3_busy_handler`). It replaces `sqlbatch_conn_busy_timeout`'s handler, and a later
 * busy timeout replaces it (SQLite keeps one). Ownership and errors as for
 * `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_busy_handler(struct sqlbatch_conn *conn,
                                   sqlbatch_busy_fn fn_,
                                   void *user_data,
                                   sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_authorizer sets the authorizer of `conn` (`fn` NULL removes it), consulted
 * while statements are prepared (`sqlite3_set_authorizer`). Statements prepared before keep
 * their verdicts. Ownership and errors as for `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_authorizer(struct sqlbatch_conn *conn,
                                 sqlbatch_authorizer_fn fn_,
                                 void *user_data,
                                 sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_change_feed sets the change feed of `conn` (`fn` NULL removes it): the
 * update events of `sqlbatch_conn_update_hook`, collected and handed to `fn` up to
 * `max_changes` at a time (0: 1024), so that one call serves many changed rows. A batch is
 * handed over when it is full (`SQLBATCH_FEED_FULL`), when its transaction commits (with
 * whatever is pending, `SQLBATCH_FEED_COMMIT`: outside an explicit transaction, every
 * statement is one) or rolls back (`SQLBATCH_FEED_ROLLBACK`). It holds at most
 * `max_changes` changes (16 bytes each) and the names of their tables. `ROLLBACK TO` a
 * savepoint is not reported (SQLite reports none). Ownership and errors as for
 * `sqlbatch_conn_update_hook`; changes still pending when the feed is removed or replaced
 * are dropped.
 */
int32_t sqlbatch_conn_change_feed(struct sqlbatch_conn *conn,
                                  size_t max_changes,
                                  sqlbatch_change_feed_fn fn_,
                                  void *user_data,
                                  sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_update_hook_batched sets the batched update hook of `conn` (`fn` NULL
 * removes it): the events of `sqlbatch_conn_update_hook`, in the order they happen, handed to
 * `fn` up to `max_changes` at a time (0: 1024), but never later than they could be seen to
 * differ from the per-event hook's. They are handed over before any other callback of the
 * connection runs (a hook, an SQL function or collation, a changeset filter or conflict
 * handler; before a commit, ahead of the commit hook; before a rollback), when `max_changes`
 * are collected, and before the call that ran their statements returns
 * (`sqlbatch_stmt_fetch`, `_fetch_into`, `_execute_many`, `sqlbatch_conn_exec`,
 * `sqlbatch_conn_apply_changeset`, `sqlbatch_conn_load_extension`; for a write-behind,
 * before its job ends). So a binding can call a per-event handler for each change, with
 * every callback and return seeing the same order of events as with the per-event hook, at
 * one crossing per batch. It holds at most `max_changes` changes (16 bytes each) and the
 * names of their tables.
 *
 * `fn` returns 0 to go on, or non-zero to stop the statement, with the effect that
 * interrupting it from a per-event hook has: handed over while the statement runs, it is
 * interrupted (`SQLITE_INTERRUPT`; inside a transaction SQLite then rolls the transaction
 * back); handed over before a commit, the commit is vetoed (the statement fails with
 * `SQLITE_CONSTRAINT_COMMITHOOK`); handed over at the end of a call, the open transaction is
 * rolled back and the call fails with `SQLITE_INTERRUPT`, unless it failed already.
 *
 * Called on the thread running the statement (the connection's worker for a write-behind).
 * It must not use the connection. It may be set beside the update hook and the change feed.
 * Ownership and errors as for `sqlbatch_conn_update_hook`.
 */
int32_t sqlbatch_conn_update_hook_batched(struct sqlbatch_conn *conn,
                                          size_t max_changes,
                                          sqlbatch_update_batch_fn fn_,
                                          void *user_data,
                                          sqlbatch_destroy_fn destroy);

/**
 * sqlbatch_conn_trace sets the trace callback of `conn` for the events in `mask` (a bitwise
 * OR of `SQLBATCH_TRACE_STMT`, `_PROFILE`, `_ROW`, `_CLOSE`, and `SQLBATCH_TRACE_EXPANDED`
 * for statements' text with their parameters' values as well; `sqlite3_trace_v2`); `fn` NULL
 * or no event bit removes it. Each call gets a `sqlbatch_trace_event`: the statement's text
 * and identity, the autocommit state, and the run time for `PROFILE`. (No error code: at a
 * `PROFILE` event SQLite's connection error is not the statement's, 100 after a query's rows
 * and 0 after a failed insert; the statement's own call returns its error.)
 * Called on the thread running the statement. Ownership and errors as for
 * `sqlbatch_conn_update_hook`, and `SQLBATCH_E_INVALID_ARGUMENT` for unknown bits.
 */
int32_t sqlbatch_conn_trace(struct sqlbatch_conn *conn,
                            uint32_t mask,
                            sqlbatch_trace_fn fn_,
                            void *user_data,
                            sqlbatch_destroy_fn destroy);

/* ======================================================================================
 * 9. Limits, switches, checkpoints and counters
 * ====================================================================================== */

/**
 * `sqlbatch_conn_checkpoint` mode: as much as can be done without waiting (`SQLITE_CHECKPOINT_PASSIVE`).
 */
#define SQLBATCH_CHECKPOINT_PASSIVE 0

/**
 * Waits for writers, then checkpoints the whole log (`SQLITE_CHECKPOINT_FULL`).
 */
#define SQLBATCH_CHECKPOINT_FULL 1

/**
 * FULL, then waits for readers so that the next writer restarts the log (`SQLITE_CHECKPOINT_RESTART`).
 */
#define SQLBATCH_CHECKPOINT_RESTART 2

/**
 * RESTART, and truncates the log file to zero bytes (`SQLITE_CHECKPOINT_TRUNCATE`).
 */
#define SQLBATCH_CHECKPOINT_TRUNCATE 3

/**
 * `sqlbatch_conn_encoding`: the database's text is UTF-8 (`SQLITE_UTF8`).
 */
#define SQLBATCH_ENCODING_UTF8 1

/**
 * UTF-16, little-endian (`SQLITE_UTF16LE`).
 */
#define SQLBATCH_ENCODING_UTF16LE 2

/**
 * UTF-16, big-endian (`SQLITE_UTF16BE`).
 */
#define SQLBATCH_ENCODING_UTF16BE 3

/**
 * `sqlbatch_conn_txn_state` states (`SQLITE_TXN_*`): no transaction.
 */
#define SQLBATCH_TXN_NONE 0

/**
 * A read transaction.
 */
#define SQLBATCH_TXN_READ 1

/**
 * A write transaction.
 */
#define SQLBATCH_TXN_WRITE 2

/**
 * sqlbatch_conn_limit reads, and when `value` >= 0 sets, the run-time limit `id` of `conn`
 * (an `SQLITE_LIMIT_*` value, e.g. `SQLITE_LIMIT_LENGTH` 0, `SQLITE_LIMIT_SQL_LENGTH` 1,
 * `SQLITE_LIMIT_VARIABLE_NUMBER` 9; <https://sqlite.org/c3ref/c_limit_attached.html>).
 * `*out_old` (if not NULL) gets the value before the call. SQLite lowers a value above the
 * compile-time maximum to that maximum.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (an unknown `id`); `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_limit(struct sqlbatch_conn *conn,
                            int32_t id,
                            int32_t value,
                            int32_t *out_old);

/**
 * sqlbatch_conn_db_config reads, and when `value` is 0 or 1 sets, one on/off switch of
 * `conn` (`sqlite3_db_config` with an `SQLITE_DBCONFIG_*` switch: `ENABLE_FKEY` 1002,
 * `ENABLE_TRIGGER` 1003, `DEFENSIVE` 1010, `DQS_DML` 1013, `DQS_DDL` 1014, `ENABLE_VIEW` 1015,
 * `TRUSTED_SCHEMA` 1017, `RESET_DATABASE` 1009, and the rest of SQLite's switches;
 * <https://sqlite.org/c3ref/c_dbconfig_defensive.html>); `value` -1 only reads. `*out_value`
 * (if not NULL) gets the switch's state after the call, 0 or 1. Loading extensions
 * (`ENABLE_LOAD_EXTENSION`) is the same switch as `sqlbatch_conn_enable_load_extension`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (not a switch, or a `value` other
 * than -1, 0, 1); `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`; SQLite's error.
 */
int32_t sqlbatch_conn_db_config(struct sqlbatch_conn *conn,
                                int32_t op,
                                int32_t value,
                                int32_t *out_value);

/**
 * sqlbatch_conn_checkpoint runs a WAL checkpoint of database `schema` (NULL: every attached
 * database) in `mode` (`SQLBATCH_CHECKPOINT_*`; `sqlite3_wal_checkpoint_v2`). `*out_log`
 * and `*out_checkpointed` (each if not NULL) get the frames in the log and the frames
 * checkpointed, -1 when the database is not in WAL mode; they are written also when the call
 * returns `SQLITE_BUSY` (another connection held a lock: the checkpoint did what it could).
 * @return `SQLBATCH_OK`; `SQLITE_BUSY`; `SQLBATCH_E_INVALID_ARGUMENT` (a bad mode);
 * `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_checkpoint(struct sqlbatch_conn *conn,
                                 const char *schema,
                                 size_t schema_len,
                                 int32_t mode,
                                 int32_t *out_log,
                                 int32_t *out_checkpointed);

/**
 * sqlbatch_conn_status reads connection status counter `op` (an `SQLITE_DBSTATUS_*` value,
 * e.g. `CACHE_USED` 1, `CACHE_HIT` 7, `CACHE_MISS` 8, `CACHE_WRITE` 9;
 * <https://sqlite.org/c3ref/c_dbstatus_options.html>) into `*out_current` and
 * `*out_highwater` (each if not NULL), and resets its high-water mark (or, for the hit and
 * miss counters, the counter) when `reset` is set (`sqlite3_db_status64`).
 * @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (an unknown `op`); `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_NULL_PARAMETER`; `SQLITE_BUSY` on a backup's destination and `SQLITE_MISUSE`
 * with a queued bulk write, as every call on a statement.
 */
int32_t sqlbatch_conn_status(struct sqlbatch_conn *conn,
                             int32_t op,
                             bool reset,
                             int64_t *out_current,
                             int64_t *out_highwater);

/**
 * sqlbatch_stmt_status reads statement counter `op` (an `SQLITE_STMTSTATUS_*` value, e.g.
 * `FULLSCAN_STEP` 1, `SORT` 2, `VM_STEP` 4, `RUN` 6, `MEMUSED` 99;
 * <https://sqlite.org/c3ref/c_stmtstatus_counter.html>) into `*out_value`, resetting it when
 * `reset` is set (`sqlite3_stmt_status`). A statement of no SQL reads 0.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (an unknown `op`); `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_NULL_PARAMETER`; `SQLITE_BUSY` on a backup's destination and `SQLITE_MISUSE`
 * with a queued bulk write, as every call on a statement.
 */
int32_t sqlbatch_stmt_status(struct sqlbatch_stmt *stmt,
                             int32_t op,
                             bool reset,
                             int64_t *out_value);

/**
 * sqlbatch_conn_encoding writes to `*out_encoding` the text encoding of `conn`'s main
 * database (`PRAGMA encoding`): `SQLBATCH_ENCODING_UTF8`, `_UTF16LE` or `_UTF16BE`. A new
 * database takes its encoding when its first table is made, so ask after that. What it is
 * for: `sqlbatch_value_convert` of a BLOB to a number in a UTF-16 database
 * (`SQLBATCH_CONVERT_UTF16LE`, `_BE`).
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`; SQLite's error.
 */
int32_t sqlbatch_conn_encoding(const struct sqlbatch_conn *conn, int32_t *out_encoding);

/**
 * sqlbatch_conn_txn_state writes to `*out_state` the transaction state of database `schema` of
 * `conn` (NULL: the most advanced state over every attached database): `SQLBATCH_TXN_NONE`,
 * `_READ` or `_WRITE` (`sqlite3_txn_state`).
 * @return `SQLBATCH_OK`; `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_txn_state(const struct sqlbatch_conn *conn,
                                const char *schema,
                                size_t schema_len,
                                int32_t *out_state);

/**
 * sqlbatch_conn_readonly writes to `*out_readonly` whether database `schema` (NULL: "main") of `conn`
 * is read-only: true for a connection opened read-only or a file it could only open for
 * reading (`sqlite3_db_readonly`; a buffer deserialized read-only refuses writes but reads
 * false here, as SQLite reports it).
 * @return `SQLBATCH_OK`; `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_readonly(const struct sqlbatch_conn *conn,
                               const char *schema,
                               size_t schema_len,
                               bool *out_readonly);

/**
 * sqlbatch_conn_filename writes to `*out_filename` the absolute path of the file behind database
 * `schema` (NULL: "main") of `conn`, NUL-terminated UTF-8, or "" for an in-memory or
 * temporary database (`sqlite3_db_filename`).
 *
 * Ownership: the string is the library's, valid until the database is detached or the
 * connection closed.
 * @return `SQLBATCH_OK`; `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_conn_filename(const struct sqlbatch_conn *conn,
                               const char *schema,
                               size_t schema_len,
                               const char **out_filename);

/* ======================================================================================
 * 10. Extensions
 *
 * Loading from shared libraries is off until sqlbatch_conn_enable_load_extension; statically
 * linked extensions need no switch (sqlbatch_conn_init_extension, sqlbatch_auto_extension).
 * ====================================================================================== */

/**
 * An extension's entry point, as SQLite's loadable extensions define it:
 * `int sqlite3_NAME_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi)`.
 * `db` is the `sqlite3 *` of the connection; the extension must call SQLite through `pApi`
 * (`SQLITE_EXTENSION_INIT2(pApi)`, i.e. compiled without `SQLITE_CORE`) when the library is
 * linked statically, since libsqlbatch.a keeps its SQLite's symbols to itself; an extension
 * compiled with `SQLITE_CORE` works only where those symbols are this SQLite's (as in a Rust
 * program that links the crate). On failure it sets `*pzErrMsg` to a message from
 * `sqlite3_malloc` and returns an SQLite error code.
 */
typedef int (*sqlbatch_extension_init_fn)(void *db, char **err_msg, const void *api);

/**
 * sqlbatch_conn_enable_load_extension turns loading shared-library extensions through
 * `sqlbatch_conn_load_extension` on (`on` true) or off for `conn`
 * (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`). It is off when a connection opens. The SQL
 * function `load_extension()` stays off either way: SQL cannot load code.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`, or SQLite's error.
 */
int32_t sqlbatch_conn_enable_load_extension(struct sqlbatch_conn *conn, bool on);

/**
 * sqlbatch_conn_load_extension loads the shared-library extension at `path` (`path_len`
 * bytes of UTF-8) into `conn` and runs its entry point `entry` (`entry_len` bytes; `entry`
 * NULL for SQLite's default: `sqlite3_extension_init`, or the name derived from the file name,
 * e.g. `sqlite3_vec_init` for vec0.so) (`sqlite3_load_extension`).
 *
 * Loading must have been enabled on `conn` with `sqlbatch_conn_enable_load_extension`.
 * The library stays loaded until `conn` closes. The extension runs with the privileges of the
 * process: load only code you trust.
 * NULL: `conn` NULL, or `path` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (a NUL byte in `path` or `entry`),
 * `SQLBATCH_E_INVALID_UTF8`, `SQLBATCH_E_CLOSED`, or `SQLITE_ERROR` with SQLite's message
 * (loading not enabled, no such file, no such entry point, or the entry point failed).
 */
int32_t sqlbatch_conn_load_extension(struct sqlbatch_conn *conn,
                                     const char *path,
                                     size_t path_len,
                                     const char *entry,
                                     size_t entry_len);

/**
 * sqlbatch_conn_init_extension initializes a statically linked extension on `conn`: it calls
 * `init(db, &message, api)` with the connection's `sqlite3 *` and the bundled SQLite's API
 * routines, as SQLite does for a loaded one (see `sqlbatch_extension_init_fn` for how the
 * extension must be compiled). Needs no enabling: the code is already in the program.
 * Thread: the caller of `conn`, on which `init` runs.
 * NULL: `conn` or `init` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK` (also for SQLite's `SQLITE_OK_LOAD_PERMANENTLY`), `SQLBATCH_E_CLOSED`,
 * or the code `init` returned, with its message.
 */
int32_t sqlbatch_conn_init_extension(struct sqlbatch_conn *conn, sqlbatch_extension_init_fn init);

/**
 * sqlbatch_auto_extension makes every connection opened after this call (by this library, in
 * this process) initialize the statically linked extension `init`, as
 * `sqlbatch_conn_init_extension` would (`sqlite3_auto_extension`); registering the same entry
 * point twice is a no-op. `sqlbatch_cancel_auto_extension` undoes it. An entry point that
 * fails makes `sqlbatch_conn_open` fail with its error. Any thread.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, or `SQLITE_NOMEM`.
 */
int32_t sqlbatch_auto_extension(sqlbatch_extension_init_fn init);

/**
 * sqlbatch_cancel_auto_extension stops initializing `init` on new connections; connections
 * already open keep it. Any thread.
 * @return `SQLBATCH_OK` if it was registered, `SQLBATCH_DONE` if it was not,
 * `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_cancel_auto_extension(sqlbatch_extension_init_fn init);

/* ======================================================================================
 * 11. Backup and serialization
 * ====================================================================================== */

/**
 * `sqlbatch_conn_deserialize` flag: the database is read-only.
 */
#define SQLBATCH_DESERIALIZE_READONLY 4

/**
 * `sqlbatch_conn_deserialize` flag: the database may grow (by writes) past the buffer's size.
 */
#define SQLBATCH_DESERIALIZE_RESIZEABLE 2

/**
 * An online backup from one connection's database to another's. Opaque; created by
 * `sqlbatch_backup_init`, freed by `sqlbatch_backup_finish`.
 */
typedef struct sqlbatch_backup sqlbatch_backup;

/**
 * sqlbatch_backup_init starts copying the database `src_schema` of `src` (NULL: "main") over
 * the database `dest_schema` of `dest` (NULL: "main"); nothing is copied until
 * `sqlbatch_backup_step`. See <https://sqlite.org/c3ref/backup_finish.html>.
 *
 * Ownership: `*out_backup` (set on success only) is the caller's, released with
 * `sqlbatch_backup_finish`, before or after either connection is closed. The two connections
 * must be different. Until the backup is finished, `dest` is the backup's alone, as SQLite
 * requires: every other call on it and its statements and blob handles (but
 * `sqlbatch_conn_interrupt` and `sqlbatch_conn_close`, which finishes the backup) fails
 * with `SQLITE_BUSY`; `src` stays usable between steps. Thread: a step uses both
 * connections, so no other call on either may run at the same time (their usual rule).
 * NULL: `dest`, `src` or `out_backup` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`, `SQLBATCH_E_INVALID_ARGUMENT` (the same
 * connection twice, a NUL in a name), `SQLBATCH_E_INVALID_UTF8`, or SQLite's error, recorded
 * on `dest` (e.g. `SQLITE_ERROR` for an unknown schema, or a destination with a read
 * transaction open).
 */
int32_t sqlbatch_backup_init(struct sqlbatch_conn *dest,
                             const char *dest_schema,
                             size_t dest_schema_len,
                             struct sqlbatch_conn *src,
                             const char *src_schema,
                             size_t src_schema_len,
                             struct sqlbatch_backup **out_backup);

/**
 * sqlbatch_backup_step copies up to `pages` pages (all that remain when `pages` < 0).
 * @return `SQLBATCH_OK` when pages remain, `SQLBATCH_DONE` once the copy is complete;
 * `SQLITE_BUSY` or `SQLITE_LOCKED` (a lock held elsewhere: nothing is lost, step again
 * later); `SQLBATCH_E_CLOSED` once either connection is closed; another SQLite error
 * (`SQLITE_READONLY`, `SQLITE_NOMEM`, `SQLITE_IOERR_*`) is final: only finish remains.
 * Errors are recorded on the destination connection. NULL: `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_backup_step(struct sqlbatch_backup *backup, int32_t pages);

/**
 * sqlbatch_backup_remaining writes to `*out_remaining` the pages still to copy, as of the last step.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_backup_remaining(const struct sqlbatch_backup *backup,
                                  int64_t *out_remaining);

/**
 * sqlbatch_backup_pagecount writes to `*out_pagecount` the pages of the source database, as of the
 * last step (0 before the first).
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`.
 */
int32_t sqlbatch_backup_pagecount(const struct sqlbatch_backup *backup, int64_t *out_pagecount);

/**
 * sqlbatch_backup_finish ends a backup, complete or not, and frees it: the destination keeps
 * what was copied if the copy completed, and is left as it was otherwise.
 * @return `SQLBATCH_OK`, or the error that ended the backup (also recorded on the
 * destination, if it is open). NULL: a no-op (`SQLBATCH_OK`). Must not be called twice.
 */
int32_t sqlbatch_backup_finish(struct sqlbatch_backup *backup);

/**
 * sqlbatch_conn_backup_to_file copies the database `schema` of `conn` (NULL: "main") into
 * the file at `path` (`path_len` bytes of UTF-8), created, or replaced if it holds a
 * database (a file that is not one is left alone: `SQLITE_NOTADB`), in one call (the
 * online backup, all pages in one step; `VACUUM INTO` is the alternative that also
 * defragments). Uses `conn` for the length of the call.
 * NULL: `conn` or `path` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_CANTOPEN`,
 * `SQLITE_BUSY`, an I/O error), recorded on `conn`.
 */
int32_t sqlbatch_conn_backup_to_file(struct sqlbatch_conn *conn,
                                     const char *schema,
                                     size_t schema_len,
                                     const char *path,
                                     size_t path_len);

/**
 * sqlbatch_conn_restore_from_file replaces the database `schema` of `conn` (NULL: "main")
 * with the database in the file at `path`, opened read-only, in one call.
 * NULL: `conn` or `path` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_CANTOPEN`,
 * `SQLITE_NOTADB` for a file that is not a database, `SQLITE_BUSY`), recorded on `conn`.
 */
int32_t sqlbatch_conn_restore_from_file(struct sqlbatch_conn *conn,
                                        const char *schema,
                                        size_t schema_len,
                                        const char *path,
                                        size_t path_len);

/**
 * sqlbatch_conn_serialize writes the database `schema` of `conn` (NULL: "main"), as the bytes
 * its file would hold, to a new buffer: `*out_data` and `*out_len` (`sqlite3_serialize`). A
 * database of no pages (a file never written) gives `*out_data` NULL and `*out_len` 0.
 *
 * Ownership: the buffer is the caller's, released with `sqlbatch_free`; it does not change
 * with the database. Thread: the connection's.
 * NULL: `conn`, `out_data` or `out_len` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLITE_ERROR` (no such schema) or
 * `SQLITE_NOMEM`, recorded on `conn`.
 */
int32_t sqlbatch_conn_serialize(struct sqlbatch_conn *conn,
                                const char *schema,
                                size_t schema_len,
                                uint8_t **out_data,
                                size_t *out_len);

/**
 * sqlbatch_conn_deserialize replaces the database `schema` of `conn` (NULL: "main") with the
 * `data_len` bytes at `data`, which the library copies (`sqlite3_deserialize`; the caller
 * keeps `data`). `flags`: `SQLBATCH_DESERIALIZE_READONLY`, `SQLBATCH_DESERIALIZE_RESIZEABLE`
 * (writes may grow it), or 0. The bytes are not checked here: a buffer that is not a
 * database, or a corrupt one, makes later statements fail with `SQLITE_NOTADB` or
 * `SQLITE_CORRUPT`, never crash. Thread: the connection's; no statement of `conn` may be
 * running (SQLite refuses with `SQLITE_BUSY`).
 * NULL: `conn` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags);
 * SQLite's error (`SQLITE_ERROR` for an unknown schema or "temp", `SQLITE_BUSY`,
 * `SQLITE_NOMEM`), recorded on `conn`.
 */
int32_t sqlbatch_conn_deserialize(struct sqlbatch_conn *conn,
                                  const char *schema,
                                  size_t schema_len,
                                  const uint8_t *data,
                                  size_t data_len,
                                  uint32_t flags);

/**
 * sqlbatch_free releases memory the library handed to the caller to own: the buffers of
 * `sqlbatch_conn_serialize`, `sqlbatch_session_changeset`, `sqlbatch_session_patchset`,
 * `sqlbatch_changeset_invert` and `sqlbatch_changeset_concat`. NULL: a no-op. Any thread.
 */
void sqlbatch_free(void *p);

/* ======================================================================================
 * 12. Incremental blob I/O
 * ====================================================================================== */

/**
 * `sqlbatch_blob_range.len` to read from `offset` to the end of the value.
 */
#define SQLBATCH_BLOB_TO_END UINT64_MAX

/**
 * A handle on one value of a table for incremental I/O. Opaque; created by
 * `sqlbatch_blob_open`, freed by `sqlbatch_blob_close`.
 */
typedef struct sqlbatch_blob sqlbatch_blob;

/**
 * One range of a batched read (`sqlbatch_blob_read_many`).
 */
typedef struct sqlbatch_blob_range {
  /**
   * In: the row to read.
   */
  int64_t rowid;
  /**
   * In: the first byte to read.
   */
  uint64_t offset;
  /**
   * In: how many bytes, or `SQLBATCH_BLOB_TO_END`. Out: how many were read; for the range
   * that did not fit (`SQLBATCH_E_BUFFER_TOO_SMALL`), how many it needs.
   */
  uint64_t len;
  /**
   * Out: where in the buffer its bytes are.
   */
  uint64_t at;
} sqlbatch_blob_range;

/**
 * sqlbatch_blob_open opens the value in column `column` of row `rowid` of table `table` of
 * database `schema` (NULL: "main") for incremental I/O, for reading and, if `writable`, for
 * writing (`sqlite3_blob_open`). The value's size is fixed: writes cannot grow it (set it
 * with `zeroblob(N)` in SQL first). If the row is changed or deleted by anything else than
 * this handle, later reads and writes fail with `SQLITE_ABORT`; `sqlbatch_blob_reopen` moves
 * the handle to a row again. See <https://sqlite.org/c3ref/blob_open.html>.
 *
 * Ownership: `*out_blob` (set on success only) is the caller's, released with
 * `sqlbatch_blob_close`, before or after the connection is closed. Thread: the connection's.
 * NULL: `conn`, `table`, `column` or `out_blob` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_UTF8` or
 * `SQLBATCH_E_INVALID_ARGUMENT` for a bad name; SQLite's error, recorded on `conn`
 * (`SQLITE_ERROR` for no such table, column or row, a column that is not TEXT or BLOB in that
 * row, an indexed column opened for writing; `SQLITE_READONLY`).
 */
int32_t sqlbatch_blob_open(struct sqlbatch_conn *conn,
                           const char *schema,
                           size_t schema_len,
                           const char *table,
                           size_t table_len,
                           const char *column,
                           size_t column_len,
                           int64_t rowid,
                           bool writable,
                           struct sqlbatch_blob **out_blob);

/**
 * sqlbatch_blob_size writes to `*out_size` the size of the value in bytes.
 * @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_blob_size(const struct sqlbatch_blob *blob, uint64_t *out_size);

/**
 * sqlbatch_blob_read copies the `buf_len` bytes at `offset` of the value into `buf`, all of them
 * in one call whatever `buf_len` is (SQLite's own call takes at most 2 GiB).
 * NULL: `blob` NULL, or `buf` NULL with `buf_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (a range outside the value: nothing read);
 * `SQLITE_ABORT` (the row changed since the handle was opened or moved); `SQLBATCH_E_CLOSED`;
 * another SQLite error. Recorded on the connection.
 */
int32_t sqlbatch_blob_read(struct sqlbatch_blob *blob,
                           uint64_t offset,
                           uint8_t *buf,
                           size_t buf_len);

/**
 * sqlbatch_blob_write copies `buf_len` bytes from `buf` over the value at `offset`, in one call;
 * the handle must have been opened `writable`, and the range must lie inside the value (a
 * write cannot change its size). Callbacks: the connection's preupdate hook
 * (`sqlbatch_conn_preupdate_hook`) is called from this call, on this thread.
 * NULL: `blob` NULL, or `buf` NULL with `buf_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE`; `SQLITE_READONLY` (not opened for writing);
 * `SQLITE_ABORT`; `SQLBATCH_E_CLOSED`; another SQLite error. Recorded on the connection.
 */
int32_t sqlbatch_blob_write(struct sqlbatch_blob *blob,
                            uint64_t offset,
                            const uint8_t *buf,
                            size_t buf_len);

/**
 * sqlbatch_blob_reopen moves the handle to the same column of row `rowid`, faster than
 * closing and opening again; it also revives a handle whose row changed (`SQLITE_ABORT`) or
 * whose last reopen failed (the library then opens SQLite's handle anew).
 * @return `SQLBATCH_OK`; SQLite's error (`SQLITE_ERROR` for no such row, or a value that is
 * not TEXT or BLOB there: reads and writes then say `SQLITE_ABORT` until a reopen succeeds);
 * `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`. Recorded on the connection.
 */
int32_t sqlbatch_blob_reopen(struct sqlbatch_blob *blob, int64_t rowid);

/**
 * sqlbatch_blob_read_many reads `n_ranges` ranges, each of row `ranges[i].rowid` (the handle
 * moves from row to row as needed, and stays on the last row read), into `buf`, back to
 * back: range i's `len` bytes end up at `buf + ranges[i].at`. A `len` of
 * `SQLBATCH_BLOB_TO_END` reads to the end of that row's value, and `len` is set to what was
 * read. One call serves any number of small values (e.g. 100,000 thumbnails by rowid).
 *
 * `*out_done` (if not NULL) is set to the number of ranges read, in every case: on an error,
 * ranges `[0, *out_done)` are complete and range `*out_done` is the one that failed.
 * NULL: `blob` NULL, `ranges` NULL with `n_ranges` > 0, or `buf` NULL with `buf_len` > 0:
 * `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_BUFFER_TOO_SMALL` (the next range does not fit in what
 * is left of `buf`; its `len` is then what it needs: call again from that range with room);
 * `SQLBATCH_E_RANGE`; SQLite's error for a row that does not exist or holds no TEXT or BLOB
 * there; `SQLBATCH_E_CLOSED`. Recorded on the connection.
 */
int32_t sqlbatch_blob_read_many(struct sqlbatch_blob *blob,
                                struct sqlbatch_blob_range *ranges,
                                size_t n_ranges,
                                uint8_t *buf,
                                size_t buf_len,
                                size_t *out_done);

/**
 * sqlbatch_blob_close frees a blob handle (`sqlite3_blob_close`), before or after its
 * connection is closed. NULL: a no-op. Must not be called twice.
 */
void sqlbatch_blob_close(struct sqlbatch_blob *blob);

/* ======================================================================================
 * 13. Sessions and changesets
 * ====================================================================================== */

/**
 * Conflict policy and callback answer: skip the change (`SQLITE_CHANGESET_OMIT`). For a
 * `SQLBATCH_CONFLICT_FOREIGN_KEY` conflict it means: commit the changes despite the
 * violation (SQLite's meaning).
 */
#define SQLBATCH_CHANGESET_OMIT 0

/**
 * Conflict policy and callback answer: apply the change over the conflicting row
 * (`SQLITE_CHANGESET_REPLACE`). Valid only for `SQLBATCH_CONFLICT_DATA` and
 * `SQLBATCH_CONFLICT_CONFLICT`; as a policy, the other conflicts are omitted.
 */
#define SQLBATCH_CHANGESET_REPLACE 1

/**
 * Conflict policy and callback answer: stop, and undo every change this apply made
 * (`SQLITE_CHANGESET_ABORT`); the apply returns `SQLITE_ABORT`.
 */
#define SQLBATCH_CHANGESET_ABORT 2

/**
 * Conflict type: the row to delete or update exists, but its values are not those the
 * change expected (`SQLITE_CHANGESET_DATA`); `conflict_values` holds the row as it is.
 */
#define SQLBATCH_CONFLICT_DATA 1

/**
 * Conflict type: the row to delete or update does not exist (`SQLITE_CHANGESET_NOTFOUND`).
 */
#define SQLBATCH_CONFLICT_NOTFOUND 2

/**
 * Conflict type: an inserted row's primary key is taken (`SQLITE_CHANGESET_CONFLICT`);
 * `conflict_values` holds the row that has it.
 */
#define SQLBATCH_CONFLICT_CONFLICT 3

/**
 * Conflict type: the change breaks another constraint (UNIQUE, CHECK, NOT NULL)
 * (`SQLITE_CHANGESET_CONSTRAINT`).
 */
#define SQLBATCH_CONFLICT_CONSTRAINT 4

/**
 * Conflict type: once every change was applied, foreign keys are violated
 * (`SQLITE_CHANGESET_FOREIGN_KEY`); `fk_violations` says how many. Not about one change:
 * `op`, `n_cols` and the rows are 0 and NULL.
 */
#define SQLBATCH_CONFLICT_FOREIGN_KEY 5

/**
 * `sqlbatch_conn_apply_changeset` flag: apply without a savepoint of its own, so that an
 * abort does not undo what was applied (`SQLITE_CHANGESETAPPLY_NOSAVEPOINT`).
 */
#define SQLBATCH_APPLY_NOSAVEPOINT 1

/**
 * `sqlbatch_conn_apply_changeset` flag: apply the changeset inverted (an undo), as
 * `SQLITE_CHANGESETAPPLY_INVERT` does, but the changeset is inverted whole first
 * (`sqlbatch_changeset_invert`): a corrupt one fails (`SQLITE_CORRUPT`) before any change is
 * applied, `SQLBATCH_APPLY_NOSAVEPOINT` or not, and a patchset is refused the same way.
 */
#define SQLBATCH_APPLY_INVERT 2

/**
 * `sqlbatch_conn_apply_changeset` flag: an UPDATE that finds the row already as it would
 * make it is no conflict (`SQLITE_CHANGESETAPPLY_IGNORENOOP`).
 */
#define SQLBATCH_APPLY_IGNORENOOP 4

/**
 * `sqlbatch_conn_apply_changeset` flag: foreign keys' ON UPDATE / ON DELETE actions do not
 * run while the changes are applied (`SQLITE_CHANGESETAPPLY_FKNOACTION`).
 */
#define SQLBATCH_APPLY_FKNOACTION 8

/**
 * `sqlbatch_changeset_read` flag: read the changeset inverted (`SQLITE_CHANGESETSTART_INVERT`).
 */
#define SQLBATCH_CHANGESET_READ_INVERT 2

/**
 * A session: records the changes made to the attached tables of one database of a
 * connection. Opaque; created by `sqlbatch_session_create`, freed by `sqlbatch_session_delete`.
 */
typedef struct sqlbatch_session sqlbatch_session;

/**
 * A conflict met while a changeset is applied: the change, and the row it conflicts with.
 * Everything it points to is valid during the callback only.
 */
typedef struct sqlbatch_conflict {
  /**
   * One of `SQLBATCH_CONFLICT_*`.
   */
  int32_t kind;
  /**
   * The change: `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
   */
  int32_t op;
  /**
   * The change's table (NUL-terminated; NULL for a `FOREIGN_KEY` conflict).
   */
  struct sqlbatch_str table;
  /**
   * Whether the change was recorded as indirect (`sqlbatch_session_set_indirect`).
   */
  bool indirect;
  /**
   * The table's number of columns in the changeset.
   */
  size_t n_cols;
  /**
   * DELETE and UPDATE: the row the change expected, `n_cols` cells (bytes at `data +
   * bits`); for an UPDATE, the columns it does not change and that are not in the primary
   * key are `SQLBATCH_UNDEFINED`. NULL for an INSERT.
   */
  const struct sqlbatch_value *old_values;
  /**
   * INSERT and UPDATE: the row as the change makes it; for an UPDATE, the columns it does
   * not change are `SQLBATCH_UNDEFINED`. NULL for a DELETE.
   */
  const struct sqlbatch_value *new_values;
  /**
   * `DATA` and `CONFLICT`: the row in the database, `n_cols` cells; NULL otherwise.
   */
  const struct sqlbatch_value *conflict_values;
  /**
   * The base of the TEXT and BLOB bytes of all three rows (NULL when none has bytes).
   */
  const uint8_t *data;
  /**
   * `FOREIGN_KEY`: how many foreign key constraints are violated; 0 otherwise.
   */
  int32_t fk_violations;
} sqlbatch_conflict;

/**
 * A conflict callback: decides what `sqlbatch_conn_apply_changeset` does about `conflict`;
 * returns `SQLBATCH_CHANGESET_OMIT`, `_REPLACE` or `_ABORT` (anything else aborts). It must
 * not use the connection.
 */
typedef int32_t (*sqlbatch_conflict_fn)(void *user_data, const struct sqlbatch_conflict *conflict);

/**
 * A table filter: whether the changes to table `table` (NUL-terminated) are applied
 * (positive), skipped (0), or the whole apply is stopped and undone (negative: the apply
 * returns `SQLITE_ABORT`; for a binding whose filter failed). It must not use the connection.
 */
typedef int32_t (*sqlbatch_table_filter_fn)(void *user_data, const char *table);

/**
 * One change of a changeset, as `sqlbatch_changeset_read` hands it over. Everything it points
 * to is valid during the callback only.
 */
typedef struct sqlbatch_changeset_change {
  /**
   * The table (NUL-terminated).
   */
  struct sqlbatch_str table;
  /**
   * `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
   */
  int32_t op;
  /**
   * Whether the change was recorded as indirect.
   */
  bool indirect;
  /**
   * The table's number of columns.
   */
  size_t n_cols;
  /**
   * `n_cols` bytes: 1 for a column of the primary key, 0 for the others.
   */
  const uint8_t *primary_key;
  /**
   * DELETE and UPDATE: the row before, `n_cols` cells (bytes at the callback's `data +
   * bits`); `SQLBATCH_UNDEFINED` for the columns the change does not carry (an UPDATE's
   * unchanged columns outside the key; a patchset's DELETE keeps only the key). NULL for an
   * INSERT.
   */
  const struct sqlbatch_value *old_values;
  /**
   * INSERT and UPDATE: the row after (`SQLBATCH_UNDEFINED` for an UPDATE's unchanged
   * columns). NULL for a DELETE.
   */
  const struct sqlbatch_value *new_values;
} sqlbatch_changeset_change;

/**
 * `sqlbatch_changeset_read`'s callback: `n_changes` changes in the changeset's order
 * (`changes`), whose TEXT and BLOB bytes are at `data + bits`. Returns 0 to go on, anything
 * else to stop reading.
 */
typedef int32_t (*sqlbatch_changeset_fn)(void *user_data,
                                         const struct sqlbatch_changeset_change *changes,
                                         size_t n_changes,
                                         const uint8_t *data);

/**
 * sqlbatch_session_create starts a session on the database `schema` (NULL: "main") of
 * `conn` (`sqlite3session_create`): it records the changes made to the tables attached to it
 * (`sqlbatch_session_attach`; none at first) from now on, until it is deleted. Many sessions
 * may record the same connection. A `schema` that is not attached (yet) is accepted, as
 * SQLite does: the session records nothing until a database of that name is attached.
 *
 * SQLite has one preupdate slot, which sessions use: while a preupdate hook is set on `conn`
 * (`sqlbatch_conn_preupdate_hook`), this fails with `SQLITE_MISUSE`.
 * Ownership: `*out_session` (set on success only) is the caller's, released with
 * `sqlbatch_session_delete`, before or after the connection is closed. Thread: the
 * connection's; every call on the session too.
 * NULL: `conn` or `out_session` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLITE_MISUSE` (a preupdate hook is set, or
 * called from a hook); `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad
 * name; `SQLITE_NOMEM`. Recorded on `conn`.
 */
int32_t sqlbatch_session_create(struct sqlbatch_conn *conn,
                                const char *schema,
                                size_t schema_len,
                                struct sqlbatch_session **out_session);

/**
 * sqlbatch_session_attach makes `session` record the changes to table `table` (`table_len`
 * bytes of UTF-8), or, with `table` NULL, to every table of its database, including those
 * created later (`sqlite3session_attach`). Only tables with a PRIMARY KEY are recorded (the
 * others are attached but their changes are not); the table need not exist yet.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`;
 * `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad name; SQLite's error.
 * Recorded on the connection.
 */
int32_t sqlbatch_session_attach(struct sqlbatch_session *session,
                                const char *table,
                                size_t table_len);

/**
 * sqlbatch_session_set_enabled turns recording on (the default) or off
 * (`sqlite3session_enable`): changes made while it is off are not recorded.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_session_set_enabled(struct sqlbatch_session *session, bool enabled);

/**
 * sqlbatch_session_set_indirect marks the changes recorded from now on as indirect (or not,
 * the default) (`sqlite3session_indirect`): a conflict callback sees the mark
 * (`sqlbatch_conflict.indirect`). Changes made by triggers and foreign key actions are always
 * indirect.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_session_set_indirect(struct sqlbatch_session *session, bool indirect);

/**
 * sqlbatch_session_is_empty writes to `*out_empty` whether `session` has recorded no change
 * (`sqlite3session_isempty`): its changeset would be empty.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
 */
int32_t sqlbatch_session_is_empty(const struct sqlbatch_session *session, bool *out_empty);

/**
 * sqlbatch_session_changeset writes what `session` recorded as a changeset to a new buffer,
 * `*out_data` and `*out_len` (`sqlite3session_changeset`): for each changed row (by primary
 * key), one change from its state when recording started to its state now, with the old
 * values of every column, so that applying it elsewhere can detect conflicts. No change gives
 * `*out_data` NULL and `*out_len` 0. Recording goes on.
 *
 * Ownership: the buffer is the caller's, released with `sqlbatch_free`.
 * NULL: `session`, `out_data` or `out_len` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_NOMEM`, or an error
 * reading the tables). Recorded on the connection.
 */
int32_t sqlbatch_session_changeset(struct sqlbatch_session *session,
                                   uint8_t **out_data,
                                   size_t *out_len);

/**
 * sqlbatch_session_patchset is `sqlbatch_session_changeset` for a patchset
 * (`sqlite3session_patchset`): smaller, as it leaves out the old values but those of the
 * primary key (so a conflict is found only when a row to change is missing, or a key taken).
 * Ownership, NULL and errors as for `sqlbatch_session_changeset`.
 */
int32_t sqlbatch_session_patchset(struct sqlbatch_session *session,
                                  uint8_t **out_data,
                                  size_t *out_len);

/**
 * sqlbatch_session_diff records in `session` the changes that would make the table `table`
 * of database `from_schema` (attached to the same connection, `from_schema_len` bytes) equal to the
 * table of the same name in the session's database (`sqlite3session_diff`): applied to a copy
 * of the `from_schema` table, the session's changeset turns it into the session's table. The
 * table is attached to the session if it is not, and both tables must have the same columns
 * and primary key.
 * NULL: `session`, `from_schema` or `table` NULL: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLITE_SCHEMA` (the tables do not match);
 * SQLite's error with its message. Recorded on the connection.
 */
int32_t sqlbatch_session_diff(struct sqlbatch_session *session,
                              const char *from_schema,
                              size_t from_schema_len,
                              const char *table,
                              size_t table_len);

/**
 * sqlbatch_session_delete ends and frees a session (`sqlite3session_delete`), before or
 * after its connection is closed. NULL: `SQLBATCH_OK`, a no-op. Must not be called twice
 * (but after `SQLITE_MISUSE`).
 * @return `SQLBATCH_OK` (freed); `SQLITE_MISUSE` from inside a hook of its connection: the
 * session is not deleted then (delete it after the hook returns).
 */
int32_t sqlbatch_session_delete(struct sqlbatch_session *session);

/**
 * sqlbatch_conn_apply_changeset applies the changeset or patchset of `data_len` bytes at `data` to
 * `conn` (`sqlite3changeset_apply_v2`), inside a savepoint: all of it, or, after an abort,
 * none of it. Tables are matched by name in "main"; a table that does not exist there, or has
 * other primary key columns, is skipped (`filter`, if not NULL, may skip others, or stop the
 * apply: it is asked once per table; with a filter, the call wraps the apply in a savepoint
 * of its own, so that a stop undoes the tables applied before it, unless
 * `SQLBATCH_APPLY_NOSAVEPOINT` is given). A change that conflicts with the database is settled by `conflict` (if not
 * NULL), or else by `policy` (`SQLBATCH_CHANGESET_OMIT`, `_REPLACE` or `_ABORT`) for every
 * conflict. `flags`: 0 or `SQLBATCH_APPLY_*` bits.
 *
 * Callbacks: called on this thread during the call, with `user_data`; they must not use
 * the connection. The bytes are not trusted: a corrupt changeset is an error
 * (`SQLITE_CORRUPT`), never a crash. Thread: the connection's.
 * NULL: `conn` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLITE_ABORT` (a conflict was answered with ABORT, or the filter
 * stopped the apply: nothing was applied); `SQLITE_CONSTRAINT` (a `FOREIGN_KEY` conflict
 * answered with ABORT: nothing was applied); `SQLITE_MISUSE` (REPLACE answered to a conflict that does not allow it; called from
 * a hook); `SQLITE_CORRUPT`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags
 * or policy); SQLite's error. Recorded on `conn`.
 */
int32_t sqlbatch_conn_apply_changeset(struct sqlbatch_conn *conn,
                                      const uint8_t *data,
                                      size_t data_len,
                                      uint32_t flags,
                                      int32_t policy,
                                      sqlbatch_conflict_fn conflict,
                                      sqlbatch_table_filter_fn filter,
                                      void *user_data);

/**
 * sqlbatch_changeset_invert writes the inverse of the changeset of `data_len` bytes at `data` to a
 * new buffer (`sqlite3changeset_invert`): inserts become deletes and the other way round,
 * updates swap their old and new values, so applying it undoes the changeset. A patchset
 * cannot be inverted (`SQLITE_CORRUPT`). An empty changeset gives `*out_data` NULL and
 * `*out_len` 0. Any thread: no connection is involved.
 * Ownership: the caller keeps `data`; the new buffer is the caller's (`sqlbatch_free`).
 * NULL: `out_data` or `out_len` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLITE_CORRUPT`; `SQLITE_NOMEM`; `SQLBATCH_E_RANGE` (over 2 GiB).
 */
int32_t sqlbatch_changeset_invert(const uint8_t *data,
                                  size_t data_len,
                                  uint8_t **out_data,
                                  size_t *out_len);

/**
 * sqlbatch_changeset_concat writes to a new buffer the changeset that does what changeset
 * `a` (`a_len` bytes) then changeset `b` do (`sqlite3changeset_concat`): changes to the same
 * row are merged into one. Both must be changesets, or both patchsets. Any thread.
 * Ownership: as for `sqlbatch_changeset_invert`.
 * NULL: `out_data` or `out_len` NULL, or `a` or `b` NULL with a length > 0:
 * `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK`; `SQLITE_CORRUPT`; `SQLITE_ERROR` (a changeset with a patchset, or
 * the same table with other columns); `SQLITE_NOMEM`; `SQLBATCH_E_RANGE` (over 2 GiB).
 */
int32_t sqlbatch_changeset_concat(const uint8_t *a,
                                  size_t a_len,
                                  const uint8_t *b,
                                  size_t b_len,
                                  uint8_t **out_data,
                                  size_t *out_len);

/**
 * sqlbatch_changeset_read hands the changes of the changeset or patchset of `data_len` bytes at
 * `data` to `fn`, in their order, many per call (`sqlite3changeset_start_v2` and its
 * iterator): up to `max_changes` changes (0: 256) a call, fewer once their values hold
 * 1 MiB, so that memory stays bounded whatever the changeset's size. With
 * `SQLBATCH_CHANGESET_READ_INVERT`, the changes of the inverse changeset. The bytes are not
 * trusted: a corrupt changeset is an error, after the changes before the damage were handed
 * over (never a crash). Any thread: no connection is involved; `fn` is called on this thread.
 * Ownership: the caller keeps `data`.
 * NULL: `fn` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
 * @return `SQLBATCH_OK` (every change read, or `fn` stopped it); `SQLITE_CORRUPT`;
 * `SQLITE_NOMEM`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags); `SQLBATCH_E_RANGE` (over
 * 2 GiB).
 */
int32_t sqlbatch_changeset_read(const uint8_t *data,
                                size_t data_len,
                                uint32_t flags,
                                size_t max_changes,
                                sqlbatch_changeset_fn fn_,
                                void *user_data);

/* ======================================================================================
 * 14. Conversions of single values
 *
 * sqlbatch_value_convert converts one value to another storage class exactly as
 * sqlite3_column_* would, for bindings that read cells as another type than they hold.
 * ====================================================================================== */

/**
 * `to` flag of `sqlbatch_value_convert`: the value comes from a UTF-16LE database, so a BLOB's
 * bytes become a number as UTF-16LE text (as `sqlite3_column_int64`/`_double` read them there).
 */
#define SQLBATCH_CONVERT_UTF16LE 64

/**
 * `to` flag: the same for a UTF-16BE database.
 */
#define SQLBATCH_CONVERT_UTF16BE 128

/**
 * sqlbatch_value_convert converts one value to storage class `to` (`SQLBATCH_INTEGER`,
 * `SQLBATCH_FLOAT`, `SQLBATCH_TEXT` or `SQLBATCH_BLOB`) exactly as `sqlite3_column_int64`,
 * `sqlite3_column_double`, `sqlite3_column_text` or `sqlite3_column_blob` of the bundled
 * SQLite would for that value: TEXT '1e3' gives the INTEGER 1 and the FLOAT 1000.0, ' +5.5e1'
 * gives 5 and 55.0, '0x10' gives 0, the REAL 1e21 gives the TEXT "1.0e+21", -0.0 gives "0.0",
 * +Inf gives "Inf". Use it wherever a value is read as another class than its own.
 *
 * TEXT and BLOB bytes of `value` are at `data + value->bits` (`value->len` bytes; `data`
 * holds `data_len` bytes): for a cell of a batch, pass the batch's `data` and `data_len`.
 * A value with `len == 0` reads no bytes.
 *
 * The result, in `*out_value`, has kind `to`, except that a NULL value, and a FLOAT NaN,
 * convert to TEXT or BLOB as a NULL-kind value (`sqlite3_column_text` returns NULL):
 * - to INTEGER or FLOAT: the number in `out_value->bits` (a NULL value gives 0 or 0.0);
 * - to TEXT or BLOB from INTEGER or FLOAT: SQLite's rendering is written to `buf` (at most
 *   24 bytes, followed by a NUL not counted in `len`), `out_value->bits` is 0 (the offset of
 *   the bytes in `buf`) and `out_value->len` their length. `buf` must hold 32 bytes;
 * - to TEXT or BLOB from TEXT or BLOB: the bytes do not change: `out_value->bits` and
 *   `out_value->len` are those of `value` (relative to `data`), only the kind changes.
 *
 * `to` may carry `SQLBATCH_CONVERT_UTF16LE` or `SQLBATCH_CONVERT_UTF16BE` for a value that
 * comes from a database of that encoding (`sqlbatch_conn_encoding`): SQLite reads a BLOB's
 * bytes as text of the database's encoding when it makes a number of them (in a UTF-16BE
 * database, `CAST('12' AS BLOB)` holds `00 31 00 32`, which converts to 12; without the flag,
 * as UTF-8 bytes, to 0). The flags change nothing else: TEXT cells are UTF-8 in every
 * database (fetches read them so), and a conversion between TEXT and BLOB keeps the bytes
 * (the one case that is not `sqlite3_column_text`'s in a UTF-16 database, which translates a
 * BLOB's bytes from UTF-16: translate them yourself there).
 *
 * Zero bytes are a TEXT or BLOB result of `len` 0 (where `sqlite3_column_blob` returns NULL).
 * TEXT results are not checked to be UTF-8, as SQLite does not check them.
 *
 * A FLOAT value holding a NaN converts as SQLite treats one: `sqlite3_bind_double` binds a
 * NaN as SQL NULL, so it gives 0, 0.0, or a NULL-kind TEXT/BLOB result.
 *
 * Ownership: nothing is kept: `value`, `data` and `buf` may be freed as soon as this returns.
 * Threads: any thread, at any time, concurrently with anything (no connection is involved;
 * TEXT/BLOB to number uses a private per-thread SQLite connection, opened on first use and
 * closed when the thread exits).
 * NULL: `value` or `out_value` NULL, or `buf` NULL when a number is rendered:
 * `SQLBATCH_E_NULL_PARAMETER`. `data` may be NULL when no bytes are read; `buf` may be
 * NULL otherwise. On error `*out_value` is a NULL-kind value.
 * @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_INVALID_ARGUMENT` for an
 * unknown `value->kind` or `to` (or both UTF-16 flags), or TEXT/BLOB bytes with a NULL `data`; `SQLBATCH_E_RANGE`
 * for bytes outside `data_len`; `SQLBATCH_E_BUFFER_TOO_SMALL` when an INTEGER or FLOAT is
 * converted to TEXT or BLOB and `buf_len < 32`; or SQLite's error for TEXT/BLOB to a number
 * (`SQLITE_TOOBIG` for bytes over SQLite's length limit, `SQLITE_NOMEM`).
 */
int32_t sqlbatch_value_convert(const struct sqlbatch_value *value,
                               const uint8_t *data,
                               size_t data_len,
                               uint8_t to,
                               struct sqlbatch_value *out_value,
                               uint8_t *buf,
                               size_t buf_len);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SQLBATCH_H */
