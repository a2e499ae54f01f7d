// Package sqlbatch is the low-level Go binding of sqlbatch, a batched C ABI over SQLite:
// every call into C does a whole batch of work, so that Go pays for one cgo crossing per
// few hundred rows, per script, or per bulk insert, instead of one (or several) per row
// and column.
//
// It is deliberately close to the C ABI (include/sqlbatch.h) and is not a database/sql
// driver; for that, import the driver subpackage:
//
//	import _ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
//	db, err := sql.Open("sqlbatch", "app.db?_journal_mode=WAL")
//
// # Connections and statements
//
// Open a Conn with Open or OpenWithFlags, compile statements with Conn.Prepare (one
// statement: sqlbatch refuses a second with ErrMultipleStatements) or Conn.PrepareTail (the
// first statement of a script, and the rest), and
// Close both when done. There are no finalizers: a Conn or Stmt that is not closed leaks
// until the process ends.
//
// # Fetching rows in batches
//
// Stmt.Query returns Rows. Rows.Next fetches up to Stmt.SetBatchRows rows (DefaultBatchRows)
// in one call into C, which writes them as an array of 16-byte cells (type, value or offset,
// length) plus one byte arena holding all TEXT and BLOB bytes. Rows then serves rows from
// that batch with no further call: the column accessors (Rows.Int64, Rows.Float64,
// Rows.Text, Rows.Blob, Rows.Type, ...) read the cells of the current row directly from
// the statement's memory, without allocating. A statement run again and again with new
// values (a lookup by key) can bind and fetch its first batch in one call with
// Stmt.QueryParams, which runs the first step at once instead of in the first Next.
//
// Text and Blob return values that live in Go memory and stay valid after the batch: the
// batches after a query's first are fetched straight into a Go buffer
// (sqlbatch_stmt_fetch_into), the first is copied into one Go allocation when a Text or Blob
// needs it, and every string or slice of a batch points into its bytes: no allocation per
// value. Rows.RawBytes returns the bytes in place (no copy), valid only until the next call
// to Next; memory read only that way is reused by the next batch.
//
// # Scripts
//
// Conn.ExecScript runs a whole script, any number of statements, in one call into C, with
// positional arguments consumed in order across the statements and NamedArg values going to
// every parameter of their name. A 10,000-statement dump costs one cgo call; its cost grows
// linearly with its length. On failure, the *Error says which statement failed
// (StatementIndex, StatementOffset) and where (Offset).
//
// # Bulk writes
//
// Params lays out parameter values the way the C ABI takes them, with no cgo call per
// value: an array of cells and one byte buffer. Stmt.ExecMany runs a statement once per row
// of a Params in one call into C, the bulk insert:
//
//	var p sqlbatch.Params
//	for _, r := range rows {
//		p.Int64(r.ID).Text(r.Name)
//	}
//	_, err := stmt.ExecMany(&p) // inside BEGIN ... COMMIT
//
// Data already held in slices, one per column, goes in faster with Params.AppendColumns,
// a few thousand rows per call: one typed loop per column writes the cells in place.
//
//	p.Reset()
//	if err := p.AppendColumns(ids[i:j], names[i:j]); err != nil { // []int64, []string
//		return err
//	}
//	_, err := stmt.ExecMany(&p)
//
// # Table-valued parameters
//
// Array and Table bind a whole table (one column, or several of equal length, from Go
// slices) to one parameter, which the SQL reads through the sqlbatch_rows virtual table:
// an IN list of any length is one statement and one argument, bound in the call that runs
// it.
//
//	rows, err := c.Query("SELECT name FROM item WHERE id IN sqlbatch_rows(?)", sqlbatch.Array(ids))
//
// A table of several columns is declared once per connection (CREATE VIRTUAL TABLE
// temp.incoming USING sqlbatch_rows(id INTEGER, name TEXT)) and read as a table-valued
// function: INSERT INTO item SELECT * FROM incoming(?) with sqlbatch.Table(ids, names)
// inserts the rows in one statement. See TableValue.
//
// # Virtual tables
//
// Conn.CreateModule registers a virtual table module written in Go whose cursors fill
// batches: Cursor.Fill writes up to RowWriter.Max rows into Go buffers, they cross into C in
// one call, and the library answers SQLite's calls for each row and each value from them.
// BestIndexer plans scans with every constraint and ORDER BY term in one call (an IN list
// can reach Filter whole, and the LIMIT too); Updater makes a table writable;
// ModuleOptions.Eponymous and EponymousOnly make table-valued functions. A panic in a
// module's method ends the statement with its message. The driver subpackage serves
// mattn/go-sqlite3's virtual table interfaces on top of this.
//
// # Errors
//
// Every error from the database is an *Error with SQLite's primary and extended codes, the
// message, and offsets into the SQL; compare codes with errors.Is (errors.Is(err, ErrBusy))
// and read the details with errors.As.
//
// # Extensions
//
// Conn.LoadExtension loads an SQLite extension from a shared library, once
// Conn.EnableLoadExtension has turned loading on for the connection (it is off when a
// connection opens, and SQL's load_extension() stays off). A statically linked extension is
// initialized from its C entry point with Conn.InitExtension, or on every new connection
// with AutoExtension; see InitExtension for how to link one.
//
// # Backup, serialize, blob I/O and the connection's knobs
//
// Conn.Backup starts an online backup (Backup.Step copies pages, Backup.Finish ends it;
// mattn/go-sqlite3's names and argument order), Conn.BackupToFile and Conn.RestoreFromFile
// copy a whole database to or from a file in one call, and Conn.Serialize and
// Conn.Deserialize turn a database into bytes and back. Conn.OpenBlob opens a BlobHandle
// for incremental I/O on one value (io.Reader, io.Writer, io.Seeker, io.ReaderAt,
// io.WriterAt; each read or write one call into C whatever its length), and
// BlobHandle.ReadMany reads any number of (rowid, range) pairs in one call. Conn.Limit,
// Conn.DBConfig and Conn.SetDBConfig, Conn.Checkpoint, Conn.Status and Stmt.Status,
// Conn.TxnState, Conn.ReadOnly and Conn.Filename are SQLite's limits, switches, WAL
// checkpoints, counters and states. Blob handles and backups may be closed before or after
// their connections.
//
// # Hooks, tracing, sessions
//
// Conn.UpdateHook, Conn.ChangeFeed (the update hook's events in batches), Conn.CommitHook,
// Conn.RollbackHook, Conn.WALHook, Conn.ProgressHandler, Conn.BusyHandler and
// Conn.Authorizer set SQLite's hooks; Conn.PreUpdateHook sees each row before it changes,
// with its old and new values (Conn.PreUpdateHookRows skips decoding them), and Conn.Trace
// reports statements, rows, run times and the close (sqlite3_trace_v2). A panic in any of
// them is recovered and returned by the call it happened in as a *HookPanicError.
//
// Conn.CreateSession records the changes made to some tables as a changeset
// (Session.Changeset, Session.Patchset), which Conn.ApplyChangeset replays on another
// database, settling conflicts with ApplyOptions; InvertChangeset and ConcatChangesets
// combine changesets. Sessions and a preupdate hook exclude each other on one connection
// (SQLite has one preupdate slot).
//
// # Threads and goroutines
//
// A Conn, with its statements and rows, is used by one goroutine at a time: the caller
// serializes its use (database/sql's pool does, through the driver). That rule lets sqlbatch
// open connections without SQLite's per-connection mutex (SQLITE_OPEN_NOMUTEX), which would
// otherwise be taken on every call; pass OpenFullMutex to keep it. The one exception is
// Conn.Interrupt, which any goroutine may call at any time.
//
// Fetch-ahead (OpenFetchAhead, Stmt.SetFetchAhead) and write-behind (Stmt.ExecManyFunc)
// keep that rule while using a second core: the library's worker, one native thread per
// connection started on first use and ended by Close, steps a query's next batch while the
// goroutine reads the current one, or writes a batch of parameter rows while it builds the
// next. Every other call on the connection waits for the worker first. SQL functions,
// collations and hooks that the worker's stepping runs are called on that thread (Go runs
// them on a goroutine of their own, as for any callback from a thread Go did not start),
// concurrently with the goroutine's Go code: they must not share unsynchronized state with
// it.
//
// # Cgo pointer rules
//
// Nothing this package passes to C contains a Go pointer: parameter cells carry offsets into
// a byte buffer rather than addresses, the sqlbatch_params struct that points at them is
// built on the C stack (never in Go memory), and SQL text is passed as string bytes that C
// reads during the call only; the one exception is a write-behind's parameter memory, which
// C reads until the write is waited for, and which is pinned (runtime.Pinner) until then.
// A table value's cells and bytes, and a virtual table's rows (RowWriter), are flat Go
// slices the library copies during the call that hands them over. The states of virtual
// tables and cursors cross to C as cgo.Handle integers.
// What C hands back is NULL where it is empty (the cells and
// bytes of a batch, column and parameter arrays), so Go may keep it in pointer fields across
// stack growth and garbage collection. The package is tested with GODEBUG=cgocheck=1 and
// GOEXPERIMENT=cgocheck2, and with the race detector.
//
// # Semantics owned by sqlbatch
//
// Where SQLite's rules apply, this package asks sqlbatch instead of re-implementing them:
// code names (ErrorCode.String: sqlbatch_code_name), the one-statement check of Prepare
// (PrepareSingle), parameter names (Stmt.ParamIndex and named values: a name without a
// prefix matches :name, @name and $name), and values read as another storage class than
// their own (Rows.Int64 of a TEXT, Rows.Text of a REAL: sqlbatch_value_convert, exactly what
// sqlite3_column_* return).
//
// # Linking
//
// By default the package links the static library libsqlbatch.a that the per-platform
// module of its GOOS/GOARCH carries (github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64,
// and linux-arm64, darwin-amd64, darwin-arm64), at this module's version, so `go get` is all
// a program needs and programs are self-contained; in the repository, that module is
// lib/GOOS-GOARCH, which links the repository's build/lib/libsqlbatch.a (`make lib`). The
// build tag sqlbatch_dynamic links the repository's libsqlbatch.so instead,
// sqlbatch_pkgconfig finds an installed library through pkg-config, and sqlbatch_external
// takes the link flags from CGO_LDFLAGS. libsqlbatch.a contains SQLite itself, with every
// symbol in it but sqlbatch_* local, so a program can link it together with another copy of
// SQLite (such as mattn/go-sqlite3's).
package sqlbatch
