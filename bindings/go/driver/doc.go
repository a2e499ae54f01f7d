// Package driver is the database/sql driver of sqlbatch, registered as "sqlbatch":
//
//	import (
//		"database/sql"
//
//		_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
//	)
//
//	db, err := sql.Open("sqlbatch", "app.db?_journal_mode=WAL&_busy_timeout=5000")
//
// Programs written for mattn/go-sqlite3 move over by changing the driver name: DSNs, time
// and bool handling, placeholders and errors work the same way (see below for the few
// differences).
//
// # Why it is faster
//
// Rows.Next is served from a batch of rows that one call into C fetched (a few hundred rows
// per call, see _batch_rows); TEXT values become strings and BLOBs slices pointing into the
// batch's bytes, which C wrote straight into Go memory, and values are boxed into
// driver.Value from per-batch arrays and slabs, so a row costs no allocation of its own.
// Exec runs a whole multi-statement query, arguments and all, in one call into C. A bulk
// insert (Conn.ExecMany, through sql.Conn.Raw) runs a prepared statement for every row of a
// parameter array in one call. Single statements run by Query and Exec are kept prepared
// per connection (the statement cache, below), so running one again skips SQLite's parser
// and planner.
//
// # DSN
//
// A DSN is a file name, ":memory:", or a "file:" URI, optionally followed by "?" and
// options, as with mattn/go-sqlite3:
//
//	_busy_timeout, _timeout    milliseconds to wait for a lock (default 5000)
//	_journal_mode, _journal    DELETE TRUNCATE PERSIST MEMORY WAL OFF
//	_synchronous, _sync        OFF NORMAL FULL EXTRA, or 0-3 (default NORMAL, as mattn)
//	_foreign_keys, _fk         boolean
//	_txlock                    deferred (default), immediate, exclusive: how BeginTx begins
//	_loc                       auto (time.Local) or an IANA name: the location of times read
//	_locking_mode, _locking    NORMAL EXCLUSIVE
//	_auto_vacuum, _vacuum      none full incremental
//	_cache_size                PRAGMA cache_size
//	_case_sensitive_like, _cslike, _defer_foreign_keys, _defer_fk,
//	_ignore_check_constraints, _query_only, _recursive_triggers, _rt,
//	_writable_schema           booleans (0 1 false true no yes off on)
//	_secure_delete             boolean or fast
//	_mutex                     no (default) or full: keep SQLite's per-connection mutex
//	_batch_rows                rows fetched per call into C (default 256)
//	_stmt_cache                statements kept prepared per connection (default 32; 0: none)
//	mode                       ro rw rwc memory (SQLite reads it from a file: URI; for a
//	                           plain file name it becomes open flags)
//	cache                      shared private (likewise)
//
// Unknown options are ignored. The options run as PRAGMAs, in one call, on each new
// connection. A Connector (NewConnector with a Config from ParseDSN) configures a pool
// from Go instead.
//
// # Values
//
// Parameters: nil, integers, floats, bool (1 or 0), string (TEXT), []byte (BLOB; a nil
// []byte is NULL), time.Time (TEXT in sqlbatch.TimeFormat, which SQLite's date functions
// read), and anything database/sql converts to those (driver.Valuer, named types). Named
// parameters (:name, @name, $name) take sql.Named arguments, matched by sqlbatch
// (sqlbatch_stmt_param_index): sql.Named("id", v) binds :id, else @id, else $id (in a
// multi-statement Exec, each of them); positional ones (?, ?NNN), and named ones no argument
// names, take the others in order.
//
// Results: INTEGER as int64, REAL as float64, TEXT as string, BLOB as []byte, NULL as nil.
// Columns declared DATE, DATETIME or TIMESTAMP give time.Time for TEXT in one of
// sqlbatch.TimeFormats and for INTEGER Unix times (seconds, or milliseconds above 1e12);
// columns declared BOOLEAN give bool for INTEGER. sql.RawBytes works as usual.
//
// # Statement cache
//
// Each connection keeps the statements of its most recent Query, Exec and ExecMany calls
// prepared, up to _stmt_cache of them (least recently used first out), keyed by their SQL
// text: single statements up to 4 KiB long. Running the same SQL again binds the new arguments to the
// kept statement and runs it, without parsing and planning it again; a text holding several
// statements (which Exec runs as a script) is remembered as such and not kept. A statement
// whose rows are still open is not shared: a second query of the same text meanwhile gets a
// statement of its own.
//
// Kept statements stay correct when the schema changes: SQLite recompiles a statement whose
// tables, indexes or settings changed when it next runs it (sqlite3_prepare_v3 statements do
// that by themselves). Because the result columns can change with it (SELECT * of a table
// that gained a column, a column re-created with another declared type), Query steps to the
// first row before it returns, and reads the columns after that step; this also holds for
// statements prepared with DB.Prepare. An error of that first step is returned by Query.
//
// # Transactions, contexts and the pool
//
// BeginTx accepts every isolation level up to sql.LevelSerializable (SQLite's transactions
// are serializable) and read-only transactions (PRAGMA query_only is on for their duration).
// Cancelling the context of a query, an Exec or a bulk insert interrupts SQLite
// (sqlite3_interrupt) mid-statement; the error then matches both context.Canceled (or
// DeadlineExceeded) and *sqlbatch.Error with code ErrInterrupt. Before a connection goes to
// its next user, a transaction left open by a plain Exec("BEGIN") is rolled back.
//
// # Bulk insert through sql.Conn.Raw
//
//	conn, _ := db.Conn(ctx)
//	defer conn.Close()
//	conn.ExecContext(ctx, "BEGIN")
//	err := conn.Raw(func(dc any) error {
//		_, err := dc.(*driver.Conn).ExecMany(ctx, "INSERT INTO t VALUES (?, ?)", &params)
//		return err
//	})
//	conn.ExecContext(ctx, "COMMIT")
//
// params is a sqlbatch.Params: filled row by row (params.Int64(id).Text(name)), or, for
// data held in slices, a few thousand rows at a time with params.AppendColumns(ids, names),
// calling ExecMany once per batch; ExecMany keeps its statement in the statement cache, so
// the batches share one prepared statement.
//
// # Differences from mattn/go-sqlite3
//
//   - RowsAffected of a multi-statement Exec is the sum over its statements (mattn reports
//     the last statement's).
//   - TEXT in a DATE/DATETIME/TIMESTAMP column that does not parse as a time is returned as
//     the string (mattn returns the zero time.Time).
//   - mode and cache options also apply to plain file names (mattn ignores them there).
//   - Connections are opened without SQLite's per-connection mutex (_mutex=no is the default;
//     mattn defaults to full), which database/sql's one-goroutine-per-connection use allows.
//   - Query steps to the first row before it returns (mattn steps in the first Next), so an
//     error of the first step (SQLITE_BUSY, a constraint of INSERT ... RETURNING) comes from
//     Query rather than from Rows.Next or Rows.Err.
//   - Statements are kept prepared per connection (the statement cache; mattn prepares every
//     Query and Exec anew).
//   - Aggregators registered with RegisterAggregator get their rows from C in batches (Step
//     is still called once per row), so an error of Step is reported with its batch.
//   - LoadExtension with an empty entry uses SQLite's default entry point, as Extensions does
//     (mattn hands SQLite the empty name, which no library defines); its errors, like all
//     of the driver's, are *sqlbatch.Error with SQLite's message (mattn's are plain errors
//     with the same message).
//   - No hooks (update, commit, rollback, authorizer) yet.
//
// # SQL functions
//
// Conn (also named SQLiteConn) has mattn's RegisterFunc, RegisterAggregator and
// RegisterCollation, with mattn's argument and result conversions. Register them for every
// connection of a pool with a ConnectHook, on a Driver registered under a name of its own:
//
//	sql.Register("sqlbatch_custom", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
//		return c.RegisterFunc("f", func(x int64) int64 { return x*2 + 1 }, true)
//	}})
//	db, _ := sql.Open("sqlbatch_custom", "app.db")
//
// or on one connection through sql.Conn.Raw. A Go panic in a function becomes an SQL error
// of the statement. The package sqlbatch has the same without reflection, and aggregates
// whose Step takes a batch of rows per call (Conn.CreateAggregate).
//
// # Extensions
//
// As with mattn/go-sqlite3, Driver.Extensions (also named SQLiteDriver) lists shared
// libraries loaded on every new connection, and Conn.LoadExtension(lib, entry) loads one
// into one connection (from a ConnectHook, or through sql.Conn.Raw); both enable loading for
// the call only, so SQL can never load code (load_extension() stays off):
//
//	sql.Register("sqlbatch_vec", &driver.SQLiteDriver{Extensions: []string{"./vec0.so"}})
//
// A statically linked extension (its sqlite3_*_init entry point compiled into the program)
// is initialized from a ConnectHook with c.Raw().InitExtension, or on every connection of
// the program with sqlbatch.AutoExtension; see the package sqlbatch.
package driver
