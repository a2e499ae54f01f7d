package sqlbatch

import (
	"math"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Serialize returns the database schema of c ("" is "main") as the bytes its file would
// hold (sqlite3_serialize), in Go memory of its own: it does not change with the database.
// A database of no pages gives an empty slice.
func (c *Conn) Serialize(schema string) ([]byte, error) {
	b, rc := c.h.Serialize(schema)
	if rc != capi.OK {
		return nil, c.err(rc, "")
	}
	return b, nil
}

// DeserializeFlags are the flags of Conn.Deserialize.
type DeserializeFlags uint32

// Deserialize flags.
const (
	// DeserializeReadOnly makes the database read-only: writes fail with ErrReadOnly.
	DeserializeReadOnly DeserializeFlags = capi.DeserializeReadOnly
	// DeserializeResizeable lets writes grow the database past the buffer's size; without
	// it, a write that needs a new page fails with ErrFull.
	DeserializeResizeable DeserializeFlags = capi.DeserializeResizeable
)

// Deserialize replaces the database schema of c ("" is "main") with the database in b, as
// an in-memory database (sqlite3_deserialize). The library copies b: the caller keeps it
// and may change it afterwards. b is not checked here: bytes that are not a database, or a
// corrupt one, make later statements fail with ErrNotADB or ErrCorrupt, never crash. No
// statement of c may be running (ErrBusy); "temp" and unknown schemas give ErrError. Once
// a corrupt database is a schema of c, SQLite cannot deserialize into c again (it prepares
// an ATTACH, which reads the corrupt schema, and fails with ErrCorrupt): close c instead.
func (c *Conn) Deserialize(b []byte, schema string, flags DeserializeFlags) error {
	if rc := c.h.Deserialize(schema, b, uint32(flags)); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// LimitID names a run-time limit of Conn.Limit (https://sqlite.org/c3ref/c_limit_attached.html).
type LimitID int32

// Run-time limits, with SQLite's values (SQLITE_LIMIT_*).
const (
	LimitLength            LimitID = 0  // bytes of a string or BLOB, or of a row
	LimitSQLLength         LimitID = 1  // bytes of an SQL statement
	LimitColumn            LimitID = 2  // columns of a table, index, view, result, ...
	LimitExprDepth         LimitID = 3  // depth of an expression's parse tree
	LimitCompoundSelect    LimitID = 4  // terms of a compound SELECT
	LimitVDBEOp            LimitID = 5  // instructions of a statement's program
	LimitFunctionArg       LimitID = 6  // arguments of a function
	LimitAttached          LimitID = 7  // attached databases
	LimitLikePatternLength LimitID = 8  // bytes of a LIKE or GLOB pattern
	LimitVariableNumber    LimitID = 9  // largest parameter index
	LimitTriggerDepth      LimitID = 10 // depth of recursion of triggers
	LimitWorkerThreads     LimitID = 11 // auxiliary threads of one statement
)

// Limit returns the run-time limit id of c as it was before the call and, when value >= 0,
// sets it to value (sqlite3_limit; SQLite lowers a value above the compile-time maximum to
// that maximum). An unknown id gives ErrOutOfRange.
func (c *Conn) Limit(id LimitID, value int) (old int, err error) {
	v := int32(-1)
	if value >= 0 {
		v = int32(min(value, math.MaxInt32))
	}
	o, rc := c.h.Limit(int32(id), v)
	if rc != capi.OK {
		return -1, c.err(rc, "")
	}
	return int(o), nil
}

// DBConfigOp names an on/off switch of Conn.DBConfig
// (https://sqlite.org/c3ref/c_dbconfig_defensive.html).
type DBConfigOp int32

// Connection switches, with SQLite's values (SQLITE_DBCONFIG_*).
const (
	DBConfigEnableFKey          DBConfigOp = 1002 // enforce foreign keys (PRAGMA foreign_keys)
	DBConfigEnableTrigger       DBConfigOp = 1003 // run triggers
	DBConfigEnableFTS3Tokenizer DBConfigOp = 1004 // fts3_tokenizer() with two arguments
	DBConfigEnableLoadExtension DBConfigOp = 1005 // Conn.EnableLoadExtension's switch
	DBConfigNoCkptOnClose       DBConfigOp = 1006 // no checkpoint when the last connection closes
	DBConfigEnableQPSG          DBConfigOp = 1007 // the query planner stability guarantee
	DBConfigTriggerEQP          DBConfigOp = 1008 // EXPLAIN QUERY PLAN shows triggers
	DBConfigResetDatabase       DBConfigOp = 1009 // with VACUUM, empties the database (see DBConfig)
	DBConfigDefensive           DBConfigOp = 1010 // refuse SQL that could corrupt the file
	DBConfigWritableSchema      DBConfigOp = 1011 // PRAGMA writable_schema
	DBConfigLegacyAlterTable    DBConfigOp = 1012 // ALTER TABLE RENAME as before 3.26
	DBConfigDQSDML              DBConfigOp = 1013 // double-quoted strings in DML
	DBConfigDQSDDL              DBConfigOp = 1014 // double-quoted strings in DDL
	DBConfigEnableView          DBConfigOp = 1015 // use views
	DBConfigLegacyFileFormat    DBConfigOp = 1016 // the legacy file format for new databases
	DBConfigTrustedSchema       DBConfigOp = 1017 // PRAGMA trusted_schema
	DBConfigStmtScanStatus      DBConfigOp = 1018 // collect sqlite3_stmt_scanstatus counters
	DBConfigReverseScanOrder    DBConfigOp = 1019 // PRAGMA reverse_unordered_selects
	DBConfigEnableAttachCreate  DBConfigOp = 1020 // ATTACH may create a database file
	DBConfigEnableAttachWrite   DBConfigOp = 1021 // attached databases are writable
	DBConfigEnableComments      DBConfigOp = 1022 // comments in SQL
)

// DBConfig returns the state of the switch op of c (sqlite3_db_config). A value that is
// not a switch gives ErrInvalidArgument.
func (c *Conn) DBConfig(op DBConfigOp) (bool, error) {
	v, rc := c.h.DBConfig(int32(op), -1)
	if rc != capi.OK {
		return false, c.err(rc, "")
	}
	return v != 0, nil
}

// SetDBConfig turns the switch op of c on or off and returns its state after the call
// (SQLite may keep a switch as it is). To empty a database, as SQLite documents it:
// SetDBConfig(DBConfigResetDatabase, true), then VACUUM, then
// SetDBConfig(DBConfigResetDatabase, false).
func (c *Conn) SetDBConfig(op DBConfigOp, on bool) (bool, error) {
	val := int32(0)
	if on {
		val = 1
	}
	v, rc := c.h.DBConfig(int32(op), val)
	if rc != capi.OK {
		return false, c.err(rc, "")
	}
	return v != 0, nil
}

// CheckpointMode is the mode of Conn.Checkpoint.
type CheckpointMode int32

// Checkpoint modes (SQLITE_CHECKPOINT_*).
const (
	// CheckpointPassive does as much as it can without waiting for other connections.
	CheckpointPassive CheckpointMode = capi.CheckpointPassive
	// CheckpointFull waits for writers, then checkpoints the whole log.
	CheckpointFull CheckpointMode = capi.CheckpointFull
	// CheckpointRestart is Full, then waits for readers so that the next writer restarts
	// the log.
	CheckpointRestart CheckpointMode = capi.CheckpointRestart
	// CheckpointTruncate is Restart, and truncates the log file to zero bytes.
	CheckpointTruncate CheckpointMode = capi.CheckpointTruncate
)

// Checkpoint runs a WAL checkpoint of database schema of c ("" is every attached database)
// in mode (sqlite3_wal_checkpoint_v2): log is the number of frames in the log and
// checkpointed the number checkpointed, both -1 when the database is not in WAL mode. When
// another connection holds a lock the checkpoint does what it can and returns ErrBusy with
// the counts.
func (c *Conn) Checkpoint(schema string, mode CheckpointMode) (log, checkpointed int, err error) {
	l, ck, rc := c.h.Checkpoint(schema, int32(mode))
	if rc != capi.OK {
		err = c.err(rc, "")
	}
	return int(l), int(ck), err
}

// DBStatus names a connection status counter of Conn.Status
// (https://sqlite.org/c3ref/c_dbstatus_options.html).
type DBStatus int32

// Connection status counters, with SQLite's values (SQLITE_DBSTATUS_*).
const (
	DBStatusLookasideUsed     DBStatus = 0
	DBStatusCacheUsed         DBStatus = 1 // bytes of page cache in use
	DBStatusSchemaUsed        DBStatus = 2 // bytes of the schemas
	DBStatusStmtUsed          DBStatus = 3 // bytes of the prepared statements
	DBStatusLookasideHit      DBStatus = 4
	DBStatusLookasideMissSize DBStatus = 5
	DBStatusLookasideMissFull DBStatus = 6
	DBStatusCacheHit          DBStatus = 7 // page cache hits
	DBStatusCacheMiss         DBStatus = 8 // page cache misses
	DBStatusCacheWrite        DBStatus = 9 // pages written
	DBStatusDeferredFKs       DBStatus = 10
	DBStatusCacheUsedShared   DBStatus = 11
	DBStatusCacheSpill        DBStatus = 12
	DBStatusTempBufSpill      DBStatus = 13
)

// Status reads the status counter op of c (sqlite3_db_status64) and, if reset is set,
// resets its high-water mark (the counter itself for the hit and miss counters). An
// unknown op gives ErrOutOfRange.
func (c *Conn) Status(op DBStatus, reset bool) (current, highwater int64, err error) {
	cur, hi, rc := c.h.Status(int32(op), reset)
	if rc != capi.OK {
		return 0, 0, c.err(rc, "")
	}
	return cur, hi, nil
}

// TxnState is the transaction state of a database of a connection (Conn.TxnState).
type TxnState int32

// Transaction states (SQLITE_TXN_*).
const (
	TxnNone  TxnState = capi.TxnNone  // no transaction
	TxnRead  TxnState = capi.TxnRead  // a read transaction
	TxnWrite TxnState = capi.TxnWrite // a write transaction
)

// String returns "none", "read" or "write".
func (s TxnState) String() string {
	switch s {
	case TxnNone:
		return "none"
	case TxnRead:
		return "read"
	case TxnWrite:
		return "write"
	}
	return "TxnState(?)"
}

// TxnState returns the transaction state of database schema of c ("" is the most advanced
// state over every attached database; sqlite3_txn_state). An unknown schema gives ErrError.
func (c *Conn) TxnState(schema string) (TxnState, error) {
	s, rc := c.h.TxnState(schema)
	if rc != capi.OK {
		return TxnNone, c.err(rc, "")
	}
	return TxnState(s), nil
}

// ReadOnly reports whether database schema of c ("" is "main") is read-only: opened
// read-only, or a file that could only be opened for reading (sqlite3_db_readonly). A
// database deserialized with DeserializeReadOnly refuses writes but reads false here, as
// SQLite reports it. An unknown schema gives ErrError.
func (c *Conn) ReadOnly(schema string) (bool, error) {
	b, rc := c.h.Readonly(schema)
	if rc != capi.OK {
		return false, c.err(rc, "")
	}
	return b, nil
}

// Filename returns the absolute path of the file behind database schema of c ("" is
// "main"), or "" for an in-memory or temporary database (sqlite3_db_filename). An unknown
// schema gives ErrError.
func (c *Conn) Filename(schema string) (string, error) {
	f, rc := c.h.Filename(schema)
	if rc != capi.OK {
		return "", c.err(rc, "")
	}
	return f, nil
}

// StmtStatus names a statement counter of Stmt.Status
// (https://sqlite.org/c3ref/c_stmtstatus_counter.html).
type StmtStatus int32

// Statement counters, with SQLite's values (SQLITE_STMTSTATUS_*).
const (
	StmtStatusFullscanStep StmtStatus = 1  // steps of full table scans
	StmtStatusSort         StmtStatus = 2  // sorts
	StmtStatusAutoindex    StmtStatus = 3  // rows inserted into automatic indexes
	StmtStatusVMStep       StmtStatus = 4  // virtual machine steps
	StmtStatusReprepare    StmtStatus = 5  // automatic recompilations
	StmtStatusRun          StmtStatus = 6  // runs
	StmtStatusFilterMiss   StmtStatus = 7  // Bloom filter misses
	StmtStatusFilterHit    StmtStatus = 8  // Bloom filter hits
	StmtStatusMemUsed      StmtStatus = 99 // bytes of the statement
)

// Status reads the counter op of s (sqlite3_stmt_status), resetting it if reset is set. An
// empty statement reads 0; an unknown op gives ErrOutOfRange.
func (s *Stmt) Status(op StmtStatus, reset bool) (int64, error) {
	if s.closed {
		return 0, errClosedStmt
	}
	n, rc := s.h.Status(int32(op), reset)
	if rc != capi.OK {
		return 0, s.err(rc)
	}
	return n, nil
}
