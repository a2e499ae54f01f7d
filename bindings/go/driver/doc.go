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
//	_batch_rows                rows fetched per call into C (default 256; 1024 with
//	                           _fetch_ahead)
//	_fetch_ahead               boolean (default off): queries step their next batch on a
//	                           worker thread while database/sql reads this one (see
//	                           "Fetch-ahead and write-behind" below)
//	_untrusted                 boolean (default off): a file that may come from anyone:
//	                           SQLite's defenses on, and PRAGMA quick_check at open
//	                           (sqlbatch.OpenUntrusted)
//	_stmt_cache, _stmt_cache_size
//	                           statements kept prepared per connection (default 32; 0: none)
//	_pragma                    name, name(value) or name=value: PRAGMA name(value), repeatable,
//	                           run in the DSN's order after the options above (so it wins over
//	                           them and their defaults), as modernc.org/sqlite and ncruces do;
//	                           one pragma each (a ';' outside quotes is refused)
//	vfs                        the name of a SQLite VFS
//	immutable                  boolean: https://sqlite.org/uri.html#uriimmutable
//	mode                       ro rw rwc memory
//	cache                      shared private
//
// For a "file:" URI, SQLite reads mode, cache, vfs and immutable (and its other URI
// parameters) from the URI itself; for a plain file name, mode and cache become open flags
// and vfs and immutable make the driver open the name as a URI that carries them. mattn's
// user authentication options (_auth, _auth_user, _auth_pass, _auth_crypt, _auth_salt) are
// refused with an error: SQLite no longer has the extension they need. Other unknown options
// are ignored, as by mattn/go-sqlite3. The options run as PRAGMAs, in one call, on each new
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
// A table value binds a whole table to one parameter, which the SQL reads through the
// sqlbatch_rows virtual table: sqlbatch.Array(ids) is a table of one column (an IN list of
// any length, one placeholder, bound in the call that runs the statement), sqlbatch.Table(ids,
// names) one of several columns, read as a table-valued function of a table declared once
// per connection (in a ConnectHook):
//
//	rows, err := db.Query("SELECT name FROM item WHERE id IN sqlbatch_rows(?)", sqlbatch.Array(ids))
//	// with CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, name TEXT):
//	res, err := db.Exec("INSERT INTO item SELECT * FROM incoming(?)", sqlbatch.Table(ids, names))
//
// The driver's CheckNamedValue accepts them (and reports columns of other types or lengths
// at once); a table value binds a single statement, not a script.
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
//	conn, err := db.Conn(ctx)
//	if err != nil {
//		return err
//	}
//	defer conn.Close()
//	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
//		return err
//	}
//	err = conn.Raw(func(dc any) error {
//		_, err := dc.(*driver.Conn).ExecMany(ctx, "INSERT INTO t VALUES (?, ?)", &params)
//		return err
//	})
//	if err != nil {
//		return err // the pool rolls the transaction back before the connection's next use
//	}
//	_, err = conn.ExecContext(ctx, "COMMIT")
//
// params is a sqlbatch.Params: filled row by row (params.Int64(id).Text(name)), or, for
// data held in slices, a few thousand rows at a time with params.AppendColumns(ids, names),
// calling ExecMany once per batch; ExecMany keeps its statement in the statement cache, so
// the batches share one prepared statement. Conn.ExecManyFunc takes the batches from a
// function instead, and writes each one behind (below).
//
// # Fetch-ahead and write-behind
//
// With _fetch_ahead=1, each query's next batch is stepped by the connection's worker thread
// (one native thread per connection, started on first use) while database/sql reads the
// current one, so that a row costs the larger of SQLite's time and database/sql's (its
// conversions, the caller's work) rather than their sum; Conn.ExecManyFunc inserts one batch
// of parameter rows on that thread while its fill function builds the next. Results,
// errors, cancellation and memory lifetimes are those of the synchronous calls. The cost is
// a second core busy while both run (more CPU time per row, and nothing gained on a machine
// with no core to spare); it pays when the work per row is real and the batches hold
// hundreds of rows: with _fetch_ahead, _batch_rows defaults to AheadBatchRows (1024), as
// fewer, larger batches make fewer hand-overs between the two threads. SQL functions (RegisterFunc, RegisterAggregator),
// collations, and the progress and busy handlers run on the worker thread while those
// queries step, and the hooks of a write-behind's rows too, concurrently with the goroutine
// that reads the rows: they must not share unsynchronized state with it. See
// sqlbatch.Stmt.SetFetchAhead and sqlbatch.Stmt.ExecManyFunc.
//
// # Errors
//
// Every error from SQLite is a *sqlbatch.Error, whose Error() is SQLite's message alone, as
// mattn's sqlite3.Error's ("UNIQUE constraint failed: t.a"), and whose Code and ExtendedCode
// are SQLite's numbers under mattn's field names (so translators that compare them, or read
// them from the error's JSON as GORM's SQLite dialector does, keep working). Where in a
// script or a bulk write it failed is in its fields (StatementIndex, RowIndex, Offset); its
// Long method and %+v print them. Get at it with errors.As, and match codes with
// errors.Is(err, sqlbatch.ErrConstraint) (primary) or sqlbatch.ErrConstraintUnique
// (extended).
//
// # Differences from mattn/go-sqlite3
//
// Each is deliberate; the reason follows the difference.
//
//   - Extra arguments: an Exec or Query given more positional arguments than its SQL has
//     parameters fails ("too many arguments"); mattn ignores the extra ones. An argument that
//     goes nowhere is a bug (a placeholder missing from the SQL), which silence hides.
//   - Read-only transactions: BeginTx with ReadOnly turns PRAGMA query_only on until the
//     transaction ends, so a write in it fails with ErrReadOnly; mattn ignores ReadOnly.
//     database/sql's TxOptions.ReadOnly asks for exactly that.
//   - Isolation levels: every level up to sql.LevelSerializable is accepted and gets
//     SQLite's serializable isolation, which satisfies every weaker level;
//     sql.LevelLinearizable is refused with an error; mattn accepts any level and ignores
//     it. A guarantee the driver does not make is refused rather than accepted in silence.
//   - Column type metadata: ColumnTypeDatabaseTypeName is the declared type upper-cased
//     ("VARCHAR(20)"; mattn returns it as declared), as database/sql's documentation asks;
//     ColumnTypeNullable reports NOT NULL columns as not nullable and says "unknown" (ok
//     false) for expressions (mattn: always nullable, ok true); ColumnTypeScanType gives
//     the plain type (int64, string...) for NOT NULL columns and the sql.Null* type
//     otherwise, []byte for BLOB, and any for NUMERIC/DECIMAL and expressions (mattn: always
//     sql.Null*, sql.RawBytes for BLOB, sql.NullFloat64 for NUMERIC, *any for the rest).
//     ORMs and code generators that pick field types from these get the schema's answer.
//   - RowsAffected of a multi-statement Exec is the sum over its statements (mattn reports
//     the last statement's): the whole script ran, and its changes are the sum.
//   - Wrapped context errors: when a cancelled or expired context interrupts a call, the
//     error matches both ctx.Err() (errors.Is(err, context.Canceled)) and the
//     *sqlbatch.Error with code ErrInterrupt; mattn returns ctx.Err() itself, so a
//     comparison err == context.Canceled works there and must be errors.Is here. The wrapper
//     keeps what SQLite said (which statement of a script was interrupted).
//   - Unparseable times: TEXT in a DATE, DATETIME or TIMESTAMP column that parses in none
//     of the time formats is returned as the string (mattn returns the zero time.Time and
//     loses the value).
//   - The DSN: mode and cache also apply to plain file names, and so does immutable (mattn
//     drops them there); _pragma is applied (mattn ignores it); _auth... is refused (mattn
//     1.14.53 ignores it without the sqlite_userauth tag and fails with it). Each was either
//     a silent no-op or is now done.
//   - _mutex=no is the default (mattn: full): database/sql uses a connection from one
//     goroutine at a time, so SQLite's per-connection mutex is pure cost.
//   - The statement cache is on by default (32 statements, _stmt_cache or mattn's
//     _stmt_cache_size; mattn's is off by default): running the same SQL again skips
//     SQLite's parser and planner.
//   - Errors are *sqlbatch.Error (a pointer; mattn's sqlite3.Error is a value), with the
//     same message and codes but no SystemErrno (the C ABI does not report
//     sqlite3_system_errno); errors the driver finds itself (a bad DSN, an argument of an
//     unsupported type) are plain errors, as mattn's.
//   - RegisterFunc converts an INTEGER argument for a float64 parameter (mattn refuses it):
//     SQLite stores integral REAL values as INTEGER, so refusing depends on the data.
//   - Aggregators registered with RegisterAggregator get their rows from C in batches (Step
//     is still called once per row, in order), so an error of Step is reported with its
//     batch.
//   - LoadExtension with an empty entry uses SQLite's default entry point, as Extensions does
//     (mattn hands SQLite the empty name, which no library defines).
//   - Deserialize makes a database that can grow (SQLITE_DESERIALIZE_RESIZEABLE); mattn's
//     fails with "database or disk is full" once a write needs a page past the buffer. A
//     database of no pages serializes to an empty slice (mattn: an error).
//   - A Backup has no finalizer (mattn's finishes a forgotten one from the garbage
//     collector's goroutine, which races with the connections' users); a connection given
//     back to the pool with an unfinished backup is closed instead of reused. Until the
//     backup is finished, its destination refuses every other call with ErrBusy (SQLite
//     leaves that use undefined).
//   - RegisterPreUpdateHook's SQLitePreUpdateData holds copies of both rows, so it may be
//     kept and read after the callback (mattn's asks SQLite, during the callback only), and
//     Old and New scan into the pointers they are given (mattn replaces a pointer in dest
//     with the value, leaving the variable unchanged; values in dest are replaced by both).
//   - Virtual tables (CreateModule, DeclareVTab, Module, VTab, VTabCursor, ...; mattn needs
//     its sqlite_vtable tag) are served in batches: the driver calls the cursor's EOF,
//     Rowid, Column and Next for up to 256 rows and hands them to SQLite in one call, so the
//     cursor runs ahead of SQLite by up to a batch (stopping at a LIMIT SQLite gives the
//     table), Rowid is called for every row, errors come after the rows before them, and a
//     panic ends the statement instead of the program. Disconnect's and Destroy's errors
//     are not reported. See Conn.CreateModule.
//   - SetTrace's TraceInfo has no DBError: mattn samples the connection's last error code at
//     each profile event, which is not the statement's (100 after a query's rows, 0 after a
//     failed insert); the statement's own call returns its error.
//
// Like mattn/go-sqlite3 1.14.53, Query takes the statement's first step before it returns,
// so an error of that step (SQLITE_BUSY, a constraint of INSERT ... RETURNING) comes from
// Query rather than from Rows.Next.
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
//	db, err := sql.Open("sqlbatch_custom", "app.db")
//
// or on one connection through sql.Conn.Raw. A Go panic in a function becomes an SQL error
// of the statement. The package sqlbatch has the same without reflection, and aggregates
// whose Step takes a batch of rows per call (Conn.CreateAggregate).
//
// # Virtual tables
//
// Conn (SQLiteConn) has mattn's CreateModule and DeclareVTab, with its Module,
// EponymousOnlyModule, VTab, VTabUpdater, VTabCursor, SQLiteContext, InfoConstraint,
// InfoOrderBy, IndexResult and Op: a virtual table written for mattn/go-sqlite3 works as it
// is. Register a module in a ConnectHook, or on one connection through sql.Conn.Raw. The
// package sqlbatch has the batched interface underneath (Conn.CreateModule there: a cursor
// whose Fill writes whole batches of rows), reached through c.Raw().
//
// # Backup, serialize, blob I/O, limits
//
// Conn (SQLiteConn) has mattn's Backup (with SQLiteBackup's Step, Remaining, PageCount,
// Finish and Close), Serialize, Deserialize, GetLimit, SetLimit (with the SQLITE_LIMIT_*
// constants) and GetFilename, and, beyond mattn, BackupToFile, RestoreFromFile and
// OpenBlob, an incremental blob handle (io.Reader, io.Writer, io.Seeker, io.ReaderAt,
// io.WriterAt, io.Closer; ReadMany reads many small values in one call). Reach them
// through sql.Conn.Raw; a backup needs two connections, so nest two Raw callbacks and
// finish the backup inside them:
//
//	err := destConn.Raw(func(d any) error {
//		return srcConn.Raw(func(s any) error {
//			b, err := d.(*driver.SQLiteConn).Backup("main", s.(*driver.SQLiteConn), "main")
//			if err != nil {
//				return err
//			}
//			if _, err := b.Step(-1); err != nil {
//				b.Finish() // the step's error is the one to report
//				return err
//			}
//			return b.Finish()
//		})
//	})
//
// Set limits and switches for every connection of a pool in a ConnectHook. The rest of the
// surface (DBConfig switches such as defensive mode, WAL checkpoints, status counters,
// transaction state, read-only state) is on the low-level connection, c.Raw().
//
// # Hooks, tracing and sessions
//
// Conn (SQLiteConn) has mattn's RegisterUpdateHook, RegisterCommitHook,
// RegisterRollbackHook, RegisterAuthorizer, RegisterPreUpdateHook (SQLitePreUpdateData with
// Depth, Count, Old and New) and SetTrace (TraceConfig, TraceInfo, TraceStmt ... TraceClose),
// set from a ConnectHook for every connection of a pool or through sql.Conn.Raw for one.
// Sessions and changesets (sqlbatch.Session, Conn.ApplyChangeset) are on the low-level
// connection: hold one sql.Conn for as long as the session records, and reach it through
// Raw each time:
//
//	conn, err := db.Conn(ctx)
//	if err != nil {
//		return err
//	}
//	defer conn.Close()
//	var s *sqlbatch.Session
//	err = conn.Raw(func(dc any) (err error) {
//		if s, err = dc.(*driver.SQLiteConn).Raw().CreateSession(nil); err != nil {
//			return err
//		}
//		return s.Attach("")
//	})
//	if err != nil {
//		return err
//	}
//	if _, err := conn.ExecContext(ctx, "UPDATE t SET x = x + 1"); err != nil {
//		return err
//	}
//	var changes []byte
//	err = conn.Raw(func(any) (err error) {
//		if changes, err = s.Changeset(); err != nil {
//			return err
//		}
//		return s.Delete()
//	})
//
// Delete the session before the sql.Conn goes back to the pool: it would go on recording
// the next user's changes, and keep that connection from having a preupdate hook.
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
