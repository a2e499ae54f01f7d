-- |
-- Module      : Database.SQLite3.Direct
-- Description : direct-sqlite's "Database.SQLite3.Direct" over sqlbatch's batches
--
-- The names, types and per-row semantics of direct-sqlite's lower-level module: functions
-- return errors instead of throwing them, text is UTF-8 in 'Utf8'. 'step' and the
-- @column*@ functions read the current batch in Haskell memory and cross the FFI only when
-- a batch is used up (see "Database.SQLite3.Internal" for how, and for the thread model:
-- every function here may be called from any thread, and none can crash the program).
--
-- Differences from direct-sqlite (see the binding's README): 'Database' and 'Statement'
-- are abstract (no 'Foreign.Ptr.Ptr' inside to misuse); 'close' of a closed connection and
-- 'finalize' of a finalized statement are no-ops; 'errmsg' keeps the last failure's message
-- after later successful calls; bindings reach the library when the statement next runs,
-- so an error of the library's own bind checks (e.g. 'ErrorTooBig') comes from 'step'.
module Database.SQLite3.Direct
  ( -- * Connection management
    open
  , open2
  , close
  , errcode
  , extendedErrcode
  , errmsg
  , setExtendedResultCodes
  , getAutoCommit
  , setSharedCacheEnabled
    -- * Encryption
    --
    -- | Not in direct-sqlite: the encrypted build of the library (see "Database.SQLite3",
    -- \"Encryption\"). In a build without encryption each fails with 'ErrorUnsupported'.
  , openEncrypted
  , openEncrypted2
  , Cipher (..)
  , defaultCipher
  , rekey
  , export
  , cipherVersion
    -- * Simple query execution
  , exec
  , execWithCallback
  , ExecCallback
    -- * Statement management
  , prepare
  , getStatementDatabase
  , step
  , stepNoCB
  , reset
  , finalize
  , clearBindings
  , statementSql
    -- * Parameter and column information
  , bindParameterCount
  , bindParameterName
  , bindParameterIndex
  , columnCount
  , columnName
    -- * Binding values to a prepared statement
  , bindInt64
  , bindDouble
  , bindText
  , bindBlob
  , bindZeroBlob
  , bindNull
    -- * Reading the result row
  , columnType
  , columnInt64
  , columnDouble
  , columnText
  , columnBlob
    -- * Controlling the loading of extensions
  , setLoadExtensionEnabled
    -- * Result statistics
  , lastInsertRowId
  , changes
  , totalChanges
    -- * Custom SQL functions
  , createFunction
  , createAggregate
  , deleteFunction
    -- ** Arguments
  , funcArgCount
  , funcArgType
  , funcArgInt64
  , funcArgDouble
  , funcArgText
  , funcArgBlob
    -- ** Results
  , funcResultInt64
  , funcResultDouble
  , funcResultText
  , funcResultBlob
  , funcResultZeroBlob
  , funcResultNull
  , getFuncContextDatabase
    -- * Custom collations
  , createCollation
  , deleteCollation
    -- * Interrupting a long-running query
  , interrupt
    -- * Incremental blob I/O
    --
    -- | <https://www.sqlite.org/c3ref/blob_open.html>. 'blobReadMany' is sqlbatch's: many
    -- (rowid, range) pairs in one call.
  , blobOpen
  , blobClose
  , blobReopen
  , blobBytes
  , blobRead
  , blobReadBuf
  , blobWrite
  , blobReadMany
  , blobDatabase
    -- * Online Backup API
    --
    -- | <https://www.sqlite.org/backup.html> and
    -- <https://www.sqlite.org/c3ref/backup_finish.html>
  , backupInit
  , backupFinish
  , backupStep
  , backupRemaining
  , backupPagecount
  , backupDestination
  , backupToFile
  , restoreFromFile
    -- * Serialization
  , serialize
  , deserialize
  , DeserializeFlag (..)
    -- * Limits, switches and state
  , getLimit
  , setLimit
  , Limit (..)
  , getDbConfig
  , setDbConfig
  , DbConfig (..)
  , walCheckpoint
  , CheckpointMode (..)
  , dbStatus
  , DbStatus (..)
  , txnState
  , TxnState (..)
  , dbReadOnly
  , dbFilename
    -- * Hooks
    --
    -- | Not in direct-sqlite; see "Database.SQLite3.Internal.Extra" for how exceptions in
    -- hooks are handled and what a hook may do with its connection.
  , setUpdateHook
  , ChangeOp (..)
  , setChangeFeed
  , Change (..)
  , FeedReason (..)
  , setCommitHook
  , setRollbackHook
  , setWalHook
  , setProgressHandler
  , setBusyHandler
  , setAuthorizer
  , AuthAction (..)
  , AuthResult (..)
  , setPreUpdateHook
  , setPreUpdateHookWith
  , PreUpdate (..)
  , PreUpdateFlag (..)
  , takeHookException
  , HookReentry (..)
    -- * Tracing
    --
    -- | 'setTrace' is direct-sqlite's; 'setStatementTrace' (the same, returning its error)
    -- and 'setTraceEvents' (@sqlite3_trace_v2@'s events) are not in direct-sqlite.
  , setTrace
  , setStatementTrace
  , setTraceEvents
  , TraceFlag (..)
  , TraceEvent (..)
    -- * Sessions and changesets
    --
    -- | Not in direct-sqlite; see "Database.SQLite3.Internal.Session". A session and a
    -- preupdate hook exclude each other on one connection ('ErrorMisuse').
  , Session
  , sessionCreate
  , sessionDelete
  , sessionDatabase
  , sessionAttach
  , sessionEnable
  , sessionSetIndirect
  , sessionIsEmpty
  , sessionChangeset
  , sessionPatchset
  , sessionDiff
  , applyChangeset
  , ApplyOptions (..)
  , defaultApplyOptions
  , ApplyFlag (..)
  , ConflictAction (..)
  , ConflictKind (..)
  , Conflict (..)
  , ChangesetChange (..)
  , ChangesetReadFlag (..)
  , foldChangeset
  , changesetChanges
  , invertChangeset
  , concatChangesets
    -- * Types
  , Database
  , Statement
  , ColumnType (..)
  , FuncContext
  , FuncArgs
  , Blob
  , Backup
  , SQLData (..)
    -- ** Results and errors
  , StepResult (..)
  , BackupStepResult (..)
  , Error (..)
    -- ** Special types
  , Utf8 (..)
  , ParamIndex (..)
  , ColumnIndex (..)
  , ColumnCount
  , ArgCount (..)
  , ArgIndex
  ) where

import qualified Data.ByteString as B
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE


import Database.SQLBatch.Internal.Core (cipherVersion)
import Database.SQLBatch.Raw.Types (Cipher (..), defaultCipher)
import Database.SQLite3.Internal
import Database.SQLite3.Internal.Extra
import Database.SQLite3.Internal.Function
import Database.SQLite3.Internal.Session

-- | <https://www.sqlite.org/c3ref/profile.html>: calls the logger with the text of every
-- statement the connection runs, as it starts, its parameters' values in place (as
-- direct-sqlite's legacy @sqlite3_trace@ gives it; a statement of a trigger gives @-- @
-- and the trigger's name); 'Nothing' stops tracing. direct-sqlite's type: on a closed
-- connection it does nothing ('setStatementTrace' returns the error). Unlike
-- direct-sqlite (\"your whole program may crash\"), an exception of the logger is caught
-- and kept for 'takeHookException'; the statement goes on.
setTrace :: Database -> Maybe (Utf8 -> IO ()) -> IO ()
setTrace db mf = () <$ setStatementTrace db mf

-- | The same as 'step' (direct-sqlite's unsafe-call variant). A 'step' that reads the
-- current batch makes no foreign call at all, and the one that fetches must stay @safe@:
-- it may run SQL functions written in Haskell.
stepNoCB :: Statement -> IO (Either Error StepResult)
stepNoCB = step
{-# INLINE stepNoCB #-}

-- | <https://www.sqlite.org/c3ref/open.html>, with @SQLITE_OPEN_*@ flags and a VFS. sqlbatch
-- opens with SQLite's default VFS: 'Nothing' and @\"unix\"@ are accepted, another name fails
-- with 'ErrorError' (\"no such vfs\", as SQLite says). See 'openWith' for the flags.
open2 :: Utf8 -> Int -> Maybe Utf8 -> IO (Either (Error, Utf8) Database)
open2 path flags vfs = withVfs vfs (openWith path flags)

-- | 'open' for a database encrypted with the key and cipher settings ('defaultCipher':
-- SQLCipher 4's): a new or empty file becomes an encrypted database, an existing one must
-- have been written with this key and these settings. The file is read here, so a wrong key
-- fails here with 'ErrorNotADatabase'. An empty or malformed key, a setting out of range or
-- an in-memory database is 'ErrorMisuse' (the library's @SQLBATCH_E_INVALID_ARGUMENT@; the
-- message says which). The key is passed to the library in place, not copied, and the
-- library keeps none: the caller may overwrite its bytes once this returns.
openEncrypted :: Utf8 -> B.ByteString -> Cipher -> IO (Either (Error, Utf8) Database)
openEncrypted path = openEncryptedWith path 0

-- | 'openEncrypted' with the flags and VFS of 'open2'.
openEncrypted2 :: Utf8 -> Int -> Maybe Utf8 -> B.ByteString -> Cipher -> IO (Either (Error, Utf8) Database)
openEncrypted2 path flags vfs key cipher = withVfs vfs (openEncryptedWith path flags key cipher)

-- | Runs the open if the VFS is SQLite's default one (the one sqlbatch opens with).
withVfs :: Maybe Utf8 -> IO (Either (Error, Utf8) Database) -> IO (Either (Error, Utf8) Database)
withVfs vfs opening = case vfs of
  Just (Utf8 name) | not (B.null name) && name /= TE.encodeUtf8 (T.pack "unix") ->
    return (Left (ErrorError, Utf8 (TE.encodeUtf8 (T.pack "no such vfs: ") <> name)))
  _ -> opening
