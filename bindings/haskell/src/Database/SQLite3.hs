{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLite3
-- Description : direct-sqlite's "Database.SQLite3" over sqlbatch's batches
--
-- The names, types, messages and per-row semantics of direct-sqlite's main module, so that
-- a program (or a library such as persistent-sqlite's lower layers) written against
-- direct-sqlite moves over by changing its build-depends. Failures throw 'SQLError' with
-- direct-sqlite's fields: the 'Error', the connection's message and what was being done
-- (@\"step\"@, @\"bind int64\"@, @\"prepare \\\"SELECT ...\\\"\"@).
--
-- Underneath, 'step' and the @column*@ functions read the current batch of rows in Haskell
-- memory and cross the FFI only when the batch is used up (a statement that writes gets
-- one row per batch, so its side effects happen at the 'step' direct-sqlite would make
-- them). Every function may be called from any thread and none can crash the program:
-- calls into the library are serialized per connection, a finalized statement or closed
-- connection gives 'ErrorMisuse' (finalizing or closing twice is a no-op), 'close' returns
-- 'ErrorBusy' while statements are alive (as @sqlite3_close@) instead of waiting for a
-- query running on another thread, and statements nobody references are finalized by the
-- garbage collector. See the binding's README for the full list of differences.
module Database.SQLite3
  ( -- * Connection management
    open
  , open2
  , close
  , withDatabase
    -- * Encryption
    --
    -- | Not in direct-sqlite: a database file encrypted at rest, with the encrypted build of
    -- the library (SQLCipher in place of SQLite: @make lib ENCRYPTION=1@, installed with
    -- @make install ENCRYPTION=1@; see the package's README).
    --
    -- > db <- openEncrypted "secrets.db" "correct horse battery staple" defaultCipher
    -- > exec db "CREATE TABLE IF NOT EXISTS notes(body TEXT)"
    -- > close db
    --
    -- A key is a passphrase (any bytes; SQLCipher derives the key with PBKDF2) or a raw key
    -- written @x\'…\'@ with 64 hex digits (or 96: the key, then the file's salt). Its
    -- 'ByteString' is passed to the library where it lies, without a copy, and the library
    -- keeps none (SQLCipher keeps the key it derives, in memory it wipes when the
    -- connection closes): the only copy left is the caller's, to overwrite after the call if
    -- it wants to. In a build without encryption ('cipherVersion' is 'Nothing') every call
    -- here but 'cipherVersion' throws 'ErrorUnsupported' and no file is created. An empty or
    -- malformed key, a setting out of range, and an in-memory or temporary database are
    -- 'ErrorMisuse' (as direct-sqlite reports the library's other argument errors), with the
    -- library's message.
  , openEncrypted
  , openEncrypted2
  , Cipher (..)
  , defaultCipher
  , rekey
  , export
  , cipherVersion
    -- * Simple query execution
  , exec
  , execPrint
  , execWithCallback
  , ExecCallback
    -- * Statement management
  , prepare
  , prepareUtf8
  , step
  , stepNoCB
  , reset
  , finalize
  , withStatement
  , clearBindings
    -- * Parameter and column information
  , bindParameterCount
  , bindParameterName
  , columnCount
  , columnName
    -- * Binding values to a prepared statement
  , bindSQLData
  , bind
  , bindNamed
  , bindInt
  , bindInt64
  , bindDouble
  , bindText
  , bindBlob
  , bindZeroBlob
  , bindNull
    -- * Reading the result row
    --
    -- | 'column' and 'columns' throw a 'DecodeError' if a TEXT value is not valid UTF-8.
  , column
  , columns
  , typedColumns
  , columnType
  , columnInt64
  , columnDouble
  , columnText
  , columnBlob
    -- * Result statistics
  , lastInsertRowId
  , changes
    -- * Create custom SQL functions
  , createFunction
  , createAggregate
  , deleteFunction
    -- ** Extract function arguments
  , funcArgCount
  , funcArgType
  , funcArgInt64
  , funcArgDouble
  , funcArgText
  , funcArgBlob
    -- ** Set the result of a function
  , funcResultSQLData
  , funcResultInt64
  , funcResultDouble
  , funcResultText
  , funcResultBlob
  , funcResultZeroBlob
  , funcResultNull
  , getFuncContextDatabase
    -- * Create custom collations
  , createCollation
  , deleteCollation
    -- * Interrupting a long-running query
  , interrupt
  , interruptibly
    -- * Incremental blob I/O
    --
    -- | <https://www.sqlite.org/c3ref/blob_open.html>. 'withBlob' and 'blobReadMany' are
    -- not in direct-sqlite. A handle may be closed twice, and before or after its
    -- connection (closing a connection closes its blob handles; using one then throws
    -- 'ErrorMisuse').
  , blobOpen
  , blobClose
  , blobReopen
  , blobBytes
  , blobRead
  , blobReadBuf
  , blobWrite
  , blobReadMany
  , withBlob
    -- * Online Backup API
    --
    -- | <https://www.sqlite.org/backup.html> and
    -- <https://www.sqlite.org/c3ref/backup_finish.html>. 'withBackup', 'backupToFile' and
    -- 'restoreFromFile' are not in direct-sqlite.
  , backupInit
  , backupFinish
  , backupStep
  , backupRemaining
  , backupPagecount
  , withBackup
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
    -- | Not in direct-sqlite. An exception thrown by a hook never unwinds through SQLite:
    -- it is kept for 'takeHookException' and the hook answers no (a commit hook vetoes, a
    -- progress handler interrupts, a busy handler gives up, an authorizer denies, a WAL hook
    -- makes the statement fail). A hook must not use its own connection (it gets a
    -- 'HookReentry' exception), except the WAL hook. See
    -- "Database.SQLite3.Internal.Extra".
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
    -- | direct-sqlite has @setTrace@ in "Database.SQLite3.Direct" only (there with 'Utf8');
    -- here it takes 'Text'. 'setTraceEvents' has @sqlite3_trace_v2@'s events.
  , setTrace
  , setTraceEvents
  , TraceFlag (..)
  , TraceEvent (..)
    -- * Sessions and changesets
    --
    -- | Not in direct-sqlite: SQLite's session extension
    -- (<https://www.sqlite.org/sessionintro.html>). A 'Session' records the changes to some
    -- tables; its changeset (a 'ByteString') replays them elsewhere with 'applyChangeset'.
    -- A session and a preupdate hook exclude each other on one connection ('ErrorMisuse').
    -- See "Database.SQLite3.Internal.Session".
  , Session
  , sessionCreate
  , withSession
  , sessionDelete
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
  , SQLData (..)
  , SQLOpenFlag (..)
  , SQLVFS (..)
  , SQLError (..)
  , ColumnType (..)
  , FuncContext
  , FuncArgs
  , Blob
  , Backup
    -- ** Results and errors
  , StepResult (..)
  , BackupStepResult (..)
  , Error (..)
    -- ** Special integers
  , ParamIndex (..)
  , ColumnIndex (..)
  , ColumnCount
  , ArgCount (..)
  , ArgIndex
  ) where

import Control.Exception (bracket, evaluate, mask, onException, throw, throwIO)
import Control.Monad (when, zipWithM, zipWithM_)
import Data.Bits ((.|.))
import Data.ByteString (ByteString)
import Data.Int (Int64)
import Data.Maybe (fromMaybe)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Data.Text.Encoding.Error (UnicodeException (..), lenientDecode)
import qualified Data.Text.IO as T

import Database.SQLite3.Internal
  ( ColumnCount, ColumnIndex (..), ColumnType (..), Database, Error (..), ParamIndex (..)
  , SQLData (..), Statement, StepResult (..), Utf8 (..), bindParameterCount, changes, clearBindings
  , columnBlob, columnCount, columnDouble, columnInt64, columnType, interrupt
  , lastInsertRowId )
import qualified Database.SQLite3.Internal as I
import Database.SQLite3.Internal.Extra
  ( Backup, BackupStepResult (..), Blob, Change (..), ChangeOp (..), CheckpointMode (..)
  , DbConfig (..), DbStatus (..), DeserializeFlag (..), FeedReason (..), HookReentry (..)
  , Limit (..), TxnState (..), AuthAction (..), AuthResult (..), PreUpdate (..)
  , PreUpdateFlag (..), TraceEvent (..), TraceFlag (..), backupPagecount
  , backupRemaining, blobBytes, takeHookException )
import qualified Database.SQLite3.Internal.Extra as X
import Database.SQLite3.Internal.Session
  ( ApplyFlag (..), ApplyOptions (..), ChangesetChange (..), ChangesetReadFlag (..)
  , Conflict (..), ConflictAction (..), ConflictKind (..), Session, defaultApplyOptions )
import qualified Database.SQLite3.Internal.Session as XS
import Database.SQLite3.Internal.Function
  ( ArgCount (..), ArgIndex, FuncArgs, FuncContext, funcArgBlob, funcArgCount, funcArgDouble
  , funcArgInt64, funcArgType, funcResultBlob, funcResultDouble, funcResultInt64
  , funcResultNull, funcResultSQLData, funcResultZeroBlob, getFuncContextDatabase )
import qualified Database.SQLite3.Internal.Function as F
import Foreign.Ptr (Ptr)

import Database.SQLBatch.Internal.Code (SQLError (..))
import Database.SQLBatch.Internal.Core (cipherVersion)
import Database.SQLBatch.Raw.Types (Cipher (..), defaultCipher)

-- | The flags of 'open2' (SQLite's @SQLITE_OPEN_*@). The VFS-only ones and
-- 'SQLOpenNoMutex' (sqlbatch's default) change nothing.
data SQLOpenFlag
  = SQLOpenReadOnly
  | SQLOpenReadWrite
  | SQLOpenCreate
  | SQLOpenDeleteOnClose
  | SQLOpenExclusive
  | SQLOpenAutoProxy
  | SQLOpenURI
  | SQLOpenMemory
  | SQLOpenMainDB
  | SQLOpenTempDB
  | SQLOpenTransientDB
  | SQLOpenMainJournal
  | SQLOpenTempJournal
  | SQLOpenSubJournal
  | SQLOpenMasterJournal
  | SQLOpenNoMutex
  | SQLOpenFullMutex
  | SQLOpenSharedCache
  | SQLOpenPrivateCache
  | SQLOpenWAL
  | SQLOpenNoFollow
  | SQLOpenExResCode
    -- ^ the connection reports extended result codes ('ErrorConstraintUnique', not
    -- 'ErrorConstraint')
  | SQLOpenUntrusted
    -- ^ sqlbatch's own (not direct-sqlite's): the file may come from anyone; SQLite's
    -- defenses for untrusted databases are on and the whole file is checked first, so that
    -- a damaged one fails the open with 'ErrorCorrupt' or 'ErrorNotADatabase' (see
    -- "Database.SQLBatch.Direct"'s @OpenUntrusted@)
  deriving (Eq, Show)

-- | The VFS of 'open2'. sqlbatch opens with SQLite's default VFS (@unix@): 'SQLVFSDefault'
-- and 'SQLVFSUnix' are accepted, the others fail with 'ErrorError'.
data SQLVFS
  = SQLVFSDefault
  | SQLVFSUnix
  | SQLVFSUnixDotFile
  | SQLVFSUnixExcl
  | SQLVFSUnixNone
  | SQLVFSUnixNamedSem
  | SQLVFSCustom Text
  deriving (Eq, Show)

data DetailSource
  = DetailDatabase Database
  | DetailStatement Statement
  | DetailMessage Utf8

throwSQLError :: DetailSource -> Text -> Error -> IO a
throwSQLError src ctx err = do
  Utf8 details <- case src of
    DetailDatabase db -> I.errmsg db
    DetailStatement st -> I.getStatementDatabase st >>= I.errmsg
    DetailMessage m -> return m
  throwIO SQLError
    { sqlError = err, sqlErrorDetails = TE.decodeUtf8With lenientDecode details
    , sqlErrorContext = ctx }

checkError :: DetailSource -> Text -> Either Error a -> IO a
checkError src ctx = either (throwSQLError src ctx) return
{-# INLINE checkError #-}

checkErrorMsg :: Text -> Either (Error, Utf8) a -> IO a
checkErrorMsg ctx = either (\(e, m) -> throwSQLError (DetailMessage m) ctx e) return

appendShow :: Show a => Text -> a -> Text
appendShow t a = t <> T.pack (show a)

toUtf8 :: Text -> Utf8
toUtf8 = Utf8 . TE.encodeUtf8

fromUtf8' :: String -> Utf8 -> Text
fromUtf8' desc (Utf8 b) = TE.decodeUtf8With (\_ c -> throw (DecodeError desc c)) b

-- | <https://www.sqlite.org/c3ref/open.html>
open :: Text -> IO Database
open path = I.open (toUtf8 path) >>= checkErrorMsg ("open " `appendShow` path)

-- | <https://www.sqlite.org/c3ref/open.html>, with flags and a VFS.
open2 :: Text -> [SQLOpenFlag] -> SQLVFS -> IO Database
open2 path flags vfs = open2With I.openWith "open2 " path flags vfs

-- | Opens a database file encrypted with the key (see \"Encryption\" above) and the cipher
-- settings ('defaultCipher': SQLCipher 4's), read-write and created if missing: a new or
-- empty file becomes an encrypted database, an existing one must have been written with
-- this key and these settings. The file is read here, so a wrong key, wrong settings or a
-- file that is no database throw 'ErrorNotADatabase' here, not at the first query.
openEncrypted :: Text -> ByteString -> Cipher -> IO Database
openEncrypted path key cipher = I.openEncryptedWith (toUtf8 path) 0 key cipher
  >>= checkErrorMsg ("openEncrypted " `appendShow` path)

-- | 'openEncrypted' with the flags and VFS of 'open2'.
openEncrypted2 :: Text -> [SQLOpenFlag] -> SQLVFS -> ByteString -> Cipher -> IO Database
openEncrypted2 path flags vfs key cipher =
  open2With (\p f -> I.openEncryptedWith p f key cipher) "openEncrypted2 " path flags vfs

-- | 'open2' and 'openEncrypted2': the VFS checked, the flags' bits, the error thrown.
open2With :: (Utf8 -> Int -> IO (Either (Error, Utf8) Database)) -> Text -> Text -> [SQLOpenFlag] -> SQLVFS
  -> IO Database
open2With opening name path flags vfs = do
  case vfs of
    SQLVFSDefault -> return ()
    SQLVFSUnix -> return ()
    _ -> throwIO SQLError
           { sqlError = ErrorError
           , sqlErrorDetails = "no such vfs: " <> vfsName
           , sqlErrorContext = name `appendShow` path }
  opening (toUtf8 path) (foldr ((.|.) . bit) 0 flags)
    >>= checkErrorMsg (name `appendShow` path)
  where
    vfsName = case vfs of
      SQLVFSUnixDotFile -> "unix-dotfile"
      SQLVFSUnixExcl -> "unix-excl"
      SQLVFSUnixNone -> "unix-none"
      SQLVFSUnixNamedSem -> "unix-namedsem"
      SQLVFSCustom t -> t
      _ -> "unix"
    bit f = case f of
      SQLOpenReadOnly -> 0x00000001
      SQLOpenReadWrite -> 0x00000002
      SQLOpenCreate -> 0x00000004
      SQLOpenURI -> 0x00000040
      SQLOpenMemory -> 0x00000080
      SQLOpenFullMutex -> 0x00010000
      SQLOpenSharedCache -> 0x00020000
      SQLOpenPrivateCache -> 0x00040000
      SQLOpenNoFollow -> 0x01000000
      SQLOpenExResCode -> 0x02000000
      SQLOpenUntrusted -> 0x20000000
      _ -> 0

-- | Changes the key of the encrypted database @schema@ (@\"main\"@, or @\"\"@ for it) to
-- this one, rewriting every page in one transaction under an exclusive lock: 'ErrorBusy'
-- while another connection reads the file, and then nothing has changed. Its cipher
-- settings stay; a database in WAL mode must be switched to a rollback journal first.
-- SQLCipher encrypts or decrypts no database in place: an empty key, or a plain database,
-- throws 'ErrorMisuse'; 'export' writes an encrypted copy of a plain database, or a plain
-- copy of an encrypted one.
rekey :: Database -> Text -> ByteString -> IO ()
rekey db schema key = X.rekey db (toUtf8 schema) key >>= checkError (DetailDatabase db) "rekey"

-- | @export db schema path key cipher@ writes the whole content of database @schema@ into a
-- new database file at @path@, encrypted with the key and cipher settings, or plain for an
-- empty key (SQLCipher's @sqlcipher_export@, plus @user_version@ and @application_id@): how
-- a plain database is encrypted, an encrypted one decrypted, or its settings changed
-- (export, close, then put the copy in the file's place). @path@ must not exist or be an
-- empty file; a failure may leave a partial file there, the caller's to remove.
export :: Database -> Text -> Text -> ByteString -> Cipher -> IO ()
export db schema path key cipher = X.export db (toUtf8 schema) (toUtf8 path) key cipher
  >>= checkError (DetailDatabase db) ("export " `appendShow` path)

-- | <https://www.sqlite.org/c3ref/close.html>. Throws 'ErrorBusy' while statements of the
-- connection are not finalized (the connection stays open); a no-op on a closed one.
close :: Database -> IO ()
close db = I.close db >>= checkError (DetailDatabase db) "close"

-- | Our calls into SQLite are interruptible already: an asynchronous exception thrown to a
-- thread running 'step' or 'exec' stops the statement at once. So this is the identity,
-- kept for direct-sqlite's programs.
interruptibly :: Database -> IO a -> IO a
interruptibly _ io = io

-- | Executes zero or more SQL statements delimited by semicolons.
exec :: Database -> Text -> IO ()
exec db sql = I.exec db (toUtf8 sql) >>= checkErrorMsg ("exec " `appendShow` sql)

-- | Like 'exec', but prints result rows to standard output (values separated by @|@, NULL
-- as nothing, as the sqlite3 shell does).
execPrint :: Database -> Text -> IO ()
execPrint !db !sql = execWithCallback db sql $ \_ _ ->
  T.putStrLn . T.intercalate "|" . map (fromMaybe "")

-- | The callback of 'execWithCallback': column count, column names, the row's values.
type ExecCallback = ColumnCount -> [Text] -> [Maybe Text] -> IO ()

-- | Like 'exec', but invokes the callback for each result row.
execWithCallback :: Database -> Text -> ExecCallback -> IO ()
execWithCallback db sql cb =
  I.execWithCallback db (toUtf8 sql) cb' >>= checkErrorMsg ("execWithCallback " `appendShow` sql)
  where
    cb' n names = cb n (map dec names) . map (fmap dec)
    dec = fromUtf8' "Database.SQLite3.execWithCallback: Invalid UTF-8"

-- | <https://www.sqlite.org/c3ref/prepare.html>: compiles the first statement of the
-- text (the rest is ignored). Fails if the text holds no statement.
prepare :: Database -> Text -> IO Statement
prepare db sql = prepareUtf8 db (toUtf8 sql)

-- | Like 'prepare', for text that is UTF-8 already.
prepareUtf8 :: Database -> Utf8 -> IO Statement
prepareUtf8 db sql = do
  m <- I.prepare db sql >>= checkError (DetailDatabase db) ("prepare " `appendShow` sql)
  case m of
    Nothing -> fail "Direct.SQLite3.prepare: empty query string"
    Just st -> return st

-- | <https://www.sqlite.org/c3ref/step.html>
step :: Statement -> IO StepResult
step st = I.step st >>= either (throwSQLError (DetailStatement st) "step") return
{-# INLINE step #-}

-- | The same as 'step'.
stepNoCB :: Statement -> IO StepResult
stepNoCB = step
{-# INLINE stepNoCB #-}

-- | <https://www.sqlite.org/c3ref/reset.html>. Never throws (the error of a failed 'step'
-- was thrown by that 'step'); keeps the bindings.
reset :: Statement -> IO ()
reset st = () <$ I.reset st

-- | <https://www.sqlite.org/c3ref/finalize.html>. Never throws; finalizing twice is a
-- no-op.
finalize :: Statement -> IO ()
finalize st = () <$ I.finalize st

-- | <https://www.sqlite.org/c3ref/bind_parameter_name.html>: a parameter's name with its
-- prefix (@Just \":v\"@); 'Nothing' for a nameless one. Indexes start at 1.
bindParameterName :: Statement -> ParamIndex -> IO (Maybe Text)
bindParameterName st i =
  fmap (fromUtf8' "Database.SQLite3.bindParameterName: Invalid UTF-8") <$> I.bindParameterName st i

-- | <https://www.sqlite.org/c3ref/column_name.html>: 'Nothing' for an index out of range.
columnName :: Statement -> ColumnIndex -> IO (Maybe Text)
columnName st i = fmap (fromUtf8' "Database.SQLite3.columnName: Invalid UTF-8") <$> I.columnName st i

bindWith :: Text -> (Statement -> ParamIndex -> a -> IO (Either Error ())) -> Statement -> ParamIndex -> a -> IO ()
bindWith ctx f st i x = f st i x >>= checkError (DetailStatement st) ctx
{-# INLINE bindWith #-}

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindBlob :: Statement -> ParamIndex -> ByteString -> IO ()
bindBlob = bindWith "bind blob" I.bindBlob

-- | A BLOB of this many zero bytes.
bindZeroBlob :: Statement -> ParamIndex -> Int -> IO ()
bindZeroBlob = bindWith "bind zeroblob" I.bindZeroBlob

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindDouble :: Statement -> ParamIndex -> Double -> IO ()
bindDouble = bindWith "bind double" I.bindDouble

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindInt :: Statement -> ParamIndex -> Int -> IO ()
bindInt st i x = bindWith "bind int" I.bindInt64 st i (fromIntegral x)

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindInt64 :: Statement -> ParamIndex -> Int64 -> IO ()
bindInt64 = bindWith "bind int64" I.bindInt64

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindNull :: Statement -> ParamIndex -> IO ()
bindNull st i = I.bindNull st i >>= checkError (DetailStatement st) "bind null"

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindText :: Statement -> ParamIndex -> Text -> IO ()
bindText st i t = bindWith "bind text" I.bindTextOwned st i (toUtf8 t)

-- | Binds one value. An index outside 1 .. 'bindParameterCount' fails with 'ErrorRange';
-- any index inside succeeds, even one the SQL skips (@SELECT ?1, ?3@ has 3 parameters).
bindSQLData :: Statement -> ParamIndex -> SQLData -> IO ()
bindSQLData st i d = case d of
  SQLInteger v -> bindInt64 st i v
  SQLFloat v -> bindDouble st i v
  SQLText v -> bindText st i v
  SQLBlob v -> bindBlob st i v
  SQLNull -> bindNull st i

-- | Binds values to all parameters, in order; 'fail's if the count is not the statement's.
bind :: Statement -> [SQLData] -> IO ()
bind st vs = do
  ParamIndex n <- bindParameterCount st
  when (n /= length vs) $
    fail ("mismatched parameter count for bind.  Prepared statement needs "
          ++ show n ++ ", " ++ show (length vs) ++ " given")
  zipWithM_ (bindSQLData st) [1 ..] vs

-- | Binds named values (names with their prefix, @\":foo\"@); 'fail's if the count is not
-- the statement's or a name is unknown.
bindNamed :: Statement -> [(Text, SQLData)] -> IO ()
bindNamed st params = do
  ParamIndex n <- bindParameterCount st
  when (n /= length params) $
    fail ("mismatched parameter count for bind.  Prepared statement needs "
          ++ show n ++ ", " ++ show (length params) ++ " given")
  mapM_ one params
  where
    one (name, v) = do
      mi <- I.bindParameterIndex st (toUtf8 name)
      case mi of
        Just i -> bindSQLData st i v
        Nothing -> fail ("unknown named parameter " ++ show name)

-- | The value's text; throws a 'DecodeError' if it is not valid UTF-8. Numbers come as
-- SQLite renders them, NULL as empty text.
columnText :: Statement -> ColumnIndex -> IO Text
columnText = I.columnTextWith bad
  where
    bad b = evaluate (fromUtf8' "Database.SQLite3.columnText: Invalid UTF-8" (Utf8 b))
{-# INLINE columnText #-}

-- | A value of the current row, of its own storage class.
column :: Statement -> ColumnIndex -> IO SQLData
column st i = do
  t <- columnType st i
  typedColumn t st i
{-# INLINE column #-}

-- | All values of the current row.
columns :: Statement -> IO [SQLData]
columns st = do
  n <- columnCount st
  mapM (column st) [0 .. n - 1]

typedColumn :: ColumnType -> Statement -> ColumnIndex -> IO SQLData
typedColumn t st i = case t of
  IntegerColumn -> SQLInteger <$> columnInt64 st i
  FloatColumn -> SQLFloat <$> columnDouble st i
  TextColumn -> SQLText <$> columnText st i
  BlobColumn -> SQLBlob <$> columnBlob st i
  NullColumn -> return SQLNull
{-# INLINE typedColumn #-}

-- | The values of the current row, each converted to the given type ('Nothing': its own),
-- as @sqlite3_column_*@ convert (<https://www.sqlite.org/c3ref/column_blob.html>).
typedColumns :: Statement -> [Maybe ColumnType] -> IO [SQLData]
typedColumns st = zipWithM f [0 ..]
  where
    f i Nothing = column st i
    f i (Just t) = typedColumn t st i

------------------------------------------------------------------------------------------
-- Blob I/O

-- | <https://www.sqlite.org/c3ref/blob_open.html>: opens a value for incremental I/O.
blobOpen
  :: Database
  -> Text   -- ^ The symbolic name of the database (e.g. \"main\").
  -> Text   -- ^ The table name.
  -> Text   -- ^ The column name.
  -> Int64  -- ^ The @ROWID@ of the row.
  -> Bool   -- ^ Open the blob for read-write.
  -> IO Blob
blobOpen db zDb zTable zColumn rowid rw =
  X.blobOpen db (toUtf8 zDb) (toUtf8 zTable) (toUtf8 zColumn) rowid rw
    >>= checkError (DetailDatabase db) "blobOpen"

-- | <https://www.sqlite.org/c3ref/blob_close.html>: never throws; closing twice is a no-op.
blobClose :: Blob -> IO ()
blobClose b = X.blobClose b >>= checkError (DetailDatabase (X.blobDatabase b)) "blobClose"

-- | <https://www.sqlite.org/c3ref/blob_reopen.html>
blobReopen
  :: Blob
  -> Int64  -- ^ The @ROWID@ of the row.
  -> IO ()
blobReopen b rowid = X.blobReopen b rowid >>= checkError (DetailDatabase (X.blobDatabase b)) "blobReopen"

-- | <https://www.sqlite.org/c3ref/blob_read.html>
blobRead
  :: Blob
  -> Int  -- ^ Number of bytes to read.
  -> Int  -- ^ Offset within the blob.
  -> IO ByteString
blobRead b len off = X.blobRead b len off >>= checkError (DetailDatabase (X.blobDatabase b)) "blobRead"

-- | Like 'blobRead', into a buffer of at least that many bytes.
blobReadBuf :: Blob -> Ptr a -> Int -> Int -> IO ()
blobReadBuf b buf len off =
  X.blobReadBuf b buf len off >>= checkError (DetailDatabase (X.blobDatabase b)) "blobReadBuf"

-- | <https://www.sqlite.org/c3ref/blob_write.html>
blobWrite
  :: Blob
  -> ByteString
  -> Int  -- ^ Offset within the blob.
  -> IO ()
blobWrite b bs off = X.blobWrite b bs off >>= checkError (DetailDatabase (X.blobDatabase b)) "blobWrite"

-- | Reads many @(rowid, offset, length)@ ranges of the handle's column ('Nothing': to the
-- end of the value) in as few calls as the bytes allow (usually one).
blobReadMany :: Blob -> [(Int64, Int, Maybe Int)] -> IO [ByteString]
blobReadMany b rs = X.blobReadMany b rs >>= checkError (DetailDatabase (X.blobDatabase b)) "blobReadMany"

-- | Opens a blob handle for the action and closes it afterwards, also on an exception.
withBlob :: Database -> Text -> Text -> Text -> Int64 -> Bool -> (Blob -> IO a) -> IO a
withBlob db zDb zTable zColumn rowid rw act = mask $ \restore -> do
  b <- blobOpen db zDb zTable zColumn rowid rw
  r <- restore (act b) `onException` X.blobClose b
  blobClose b
  return r

------------------------------------------------------------------------------------------
-- Backup

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupinit>
backupInit
  :: Database  -- ^ Destination database handle.
  -> Text      -- ^ Destination database name.
  -> Database  -- ^ Source database handle.
  -> Text      -- ^ Source database name.
  -> IO Backup
backupInit dst dn src sn =
  X.backupInit dst (toUtf8 dn) src (toUtf8 sn) >>= checkError (DetailDatabase dst) "backupInit"

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupfinish>: throws the error
-- that ended the backup, if any; finishing twice is a no-op.
backupFinish :: Backup -> IO ()
backupFinish bk = X.backupFinish bk >>= checkError (DetailDatabase (X.backupDestination bk)) "backupFinish"

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupstep>: copies up to that
-- many pages (negative: all). 'ErrorBusy' and 'ErrorLocked' lose nothing: step again. The
-- error's details are the destination's message (direct-sqlite says \"failed\").
backupStep :: Backup -> Int -> IO BackupStepResult
backupStep bk pages =
  X.backupStep bk pages >>= checkError (DetailDatabase (X.backupDestination bk)) "backupStep"

-- | Starts a backup for the action and finishes it afterwards (also on an exception, then
-- without throwing a second error).
withBackup :: Database -> Text -> Database -> Text -> (Backup -> IO a) -> IO a
withBackup dst dn src sn act = mask $ \restore -> do
  bk <- backupInit dst dn src sn
  r <- restore (act bk) `onException` X.backupFinish bk
  backupFinish bk
  return r

-- | Copies database @schema@ of the connection to the file at the path, in one call.
backupToFile :: Database -> Text -> Text -> IO ()
backupToFile db schema path = X.backupToFile db (toUtf8 schema) (toUtf8 path)
  >>= checkError (DetailDatabase db) ("backupToFile " `appendShow` path)

-- | Replaces database @schema@ of the connection with the database in the file at the path.
restoreFromFile :: Database -> Text -> Text -> IO ()
restoreFromFile db schema path = X.restoreFromFile db (toUtf8 schema) (toUtf8 path)
  >>= checkError (DetailDatabase db) ("restoreFromFile " `appendShow` path)

------------------------------------------------------------------------------------------
-- Serialization, limits, switches, state

-- | <https://www.sqlite.org/c3ref/serialize.html>: database @schema@ as its file's bytes.
serialize :: Database -> Text -> IO ByteString
serialize db schema = X.serialize db (toUtf8 schema) >>= checkError (DetailDatabase db) "serialize"

-- | <https://www.sqlite.org/c3ref/deserialize.html>: replaces database @schema@ with a copy
-- of the bytes (a corrupt buffer makes later statements fail, never crash).
deserialize :: Database -> Text -> ByteString -> [DeserializeFlag] -> IO ()
deserialize db schema bs flags =
  X.deserialize db (toUtf8 schema) bs flags >>= checkError (DetailDatabase db) "deserialize"

-- | <https://www.sqlite.org/c3ref/limit.html>
getLimit :: Database -> Limit -> IO Int
getLimit db l = X.getLimit db l >>= checkError (DetailDatabase db) "getLimit"

-- | Sets a limit, returning the previous value.
setLimit :: Database -> Limit -> Int -> IO Int
setLimit db l v = X.setLimit db l v >>= checkError (DetailDatabase db) "setLimit"

-- | A @sqlite3_db_config@ switch's state.
getDbConfig :: Database -> DbConfig -> IO Bool
getDbConfig db o = X.getDbConfig db o >>= checkError (DetailDatabase db) "getDbConfig"

-- | Sets a @sqlite3_db_config@ switch, returning its new state.
setDbConfig :: Database -> DbConfig -> Bool -> IO Bool
setDbConfig db o v = X.setDbConfig db o v >>= checkError (DetailDatabase db) "setDbConfig"

-- | <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>: (frames in the log, frames
-- checkpointed).
walCheckpoint :: Database -> Maybe Text -> CheckpointMode -> IO (Int, Int)
walCheckpoint db schema mode =
  X.walCheckpoint db (toUtf8 <$> schema) mode >>= checkError (DetailDatabase db) "walCheckpoint"

-- | <https://www.sqlite.org/c3ref/db_status.html>: (current, high-water).
dbStatus :: Database -> DbStatus -> Bool -> IO (Int64, Int64)
dbStatus db op rst = X.dbStatus db op rst >>= checkError (DetailDatabase db) "dbStatus"

-- | <https://www.sqlite.org/c3ref/txn_state.html>
txnState :: Database -> Maybe Text -> IO TxnState
txnState db schema = X.txnState db (toUtf8 <$> schema) >>= checkError (DetailDatabase db) "txnState"

-- | <https://www.sqlite.org/c3ref/db_readonly.html>
dbReadOnly :: Database -> Text -> IO Bool
dbReadOnly db schema = X.dbReadOnly db (toUtf8 schema) >>= checkError (DetailDatabase db) "dbReadOnly"

-- | <https://www.sqlite.org/c3ref/db_filename.html>: empty for an in-memory database.
dbFilename :: Database -> Text -> IO Text
dbFilename db schema = do
  Utf8 b <- X.dbFilename db (toUtf8 schema) >>= checkError (DetailDatabase db) "dbFilename"
  return (TE.decodeUtf8With lenientDecode b)

------------------------------------------------------------------------------------------
-- Hooks

decodeName :: Utf8 -> Text
decodeName (Utf8 b) = TE.decodeUtf8With lenientDecode b

-- | <https://www.sqlite.org/c3ref/update_hook.html>: called for every row inserted, deleted
-- or updated, with the database, the table and the rowid; 'Nothing' removes it.
setUpdateHook :: Database -> Maybe (ChangeOp -> Text -> Text -> Int64 -> IO ()) -> IO ()
setUpdateHook db mf = X.setUpdateHook db (fmap (\f op s t -> f op (decodeName s) (decodeName t)) mf)
  >>= checkError (DetailDatabase db) "setUpdateHook"

-- | The update hook's events in batches of up to @max@ (@< 1@: 1024), handed over when
-- full, at commit and at rollback: one call for many rows.
setChangeFeed :: Database -> Int -> Maybe ([Change] -> FeedReason -> IO ()) -> IO ()
setChangeFeed db n mf = X.setChangeFeed db n mf >>= checkError (DetailDatabase db) "setChangeFeed"

-- | <https://www.sqlite.org/c3ref/commit_hook.html>: 'True' turns the commit into a rollback.
setCommitHook :: Database -> Maybe (IO Bool) -> IO ()
setCommitHook db mf = X.setCommitHook db mf >>= checkError (DetailDatabase db) "setCommitHook"

-- | <https://www.sqlite.org/c3ref/commit_hook.html>: called when a transaction rolls back.
setRollbackHook :: Database -> Maybe (IO ()) -> IO ()
setRollbackHook db mf = X.setRollbackHook db mf >>= checkError (DetailDatabase db) "setRollbackHook"

-- | <https://www.sqlite.org/c3ref/wal_hook.html>: after each commit in WAL mode, with the
-- database and its log's frames; it may use the connection (e.g. 'walCheckpoint').
setWalHook :: Database -> Maybe (Text -> Int -> IO ()) -> IO ()
setWalHook db mf = X.setWalHook db (fmap (\f s -> f (decodeName s)) mf)
  >>= checkError (DetailDatabase db) "setWalHook"

-- | <https://www.sqlite.org/c3ref/progress_handler.html>: every @n@ virtual machine steps;
-- 'True' interrupts the statement.
setProgressHandler :: Database -> Int -> Maybe (IO Bool) -> IO ()
setProgressHandler db n mf =
  X.setProgressHandler db n mf >>= checkError (DetailDatabase db) "setProgressHandler"

-- | <https://www.sqlite.org/c3ref/busy_handler.html>: 'True' retries.
setBusyHandler :: Database -> Maybe (Int -> IO Bool) -> IO ()
setBusyHandler db mf = X.setBusyHandler db mf >>= checkError (DetailDatabase db) "setBusyHandler"

-- | <https://www.sqlite.org/c3ref/set_authorizer.html>
setAuthorizer
  :: Database
  -> Maybe (AuthAction -> Maybe Text -> Maybe Text -> Maybe Text -> Maybe Text -> IO AuthResult)
  -> IO ()
setAuthorizer db mf = X.setAuthorizer db (fmap wrap mf) >>= checkError (DetailDatabase db) "setAuthorizer"
  where
    wrap f a x y s t = f a (decodeName <$> x) (decodeName <$> y) (decodeName <$> s) (decodeName <$> t)

-- | <https://www.sqlite.org/c3ref/preupdate_blobwrite.html>: called before every row is
-- inserted, deleted or updated (WITHOUT ROWID tables and the changes of triggers too), with
-- the whole change: operation, trigger depth, names, rowids and both rows decoded;
-- 'Nothing' removes it. Throws 'ErrorMisuse' while a 'Session' of the connection lives
-- (SQLite has one preupdate slot, which sessions need). An exception of the hook is kept for
-- 'takeHookException' (the change goes ahead).
setPreUpdateHook :: Database -> Maybe (PreUpdate -> IO ()) -> IO ()
setPreUpdateHook db mf = X.setPreUpdateHook db mf >>= checkError (DetailDatabase db) "setPreUpdateHook"

-- | 'setPreUpdateHook' handed only the rows asked for (@[]@: none decoded, the cheapest).
setPreUpdateHookWith :: Database -> [PreUpdateFlag] -> Maybe (PreUpdate -> IO ()) -> IO ()
setPreUpdateHookWith db flags mf =
  X.setPreUpdateHookWith db flags mf >>= checkError (DetailDatabase db) "setPreUpdateHook"

------------------------------------------------------------------------------------------
-- Tracing

-- | <https://www.sqlite.org/c3ref/profile.html>: calls the logger with the text of every
-- statement the connection runs, as it starts, its parameters' values in place (as the
-- legacy @sqlite3_trace@ gives it; a statement of a trigger gives @-- @ and the trigger's
-- name); 'Nothing' stops tracing. The logger runs while the connection is busy with the
-- statement: it must not use it ('HookReentry'). An exception of the logger is kept for
-- 'takeHookException'; the statement goes on.
setTrace :: Database -> Maybe (Text -> IO ()) -> IO ()
setTrace db mf = X.setStatementTrace db (fmap (. decodeName) mf) >>= checkError (DetailDatabase db) "setTrace"

-- | <https://www.sqlite.org/c3ref/trace_v2.html>: calls the function for each event of
-- the kinds listed (statements as they start, with 'TraceExpanded' their values in place;
-- profiles with the run time; rows; the close); 'Nothing' or no event kind removes it. It
-- replaces the logger of 'setTrace', and the other way round.
setTraceEvents :: Database -> [TraceFlag] -> Maybe (TraceEvent -> IO ()) -> IO ()
setTraceEvents db flags mf = X.setTraceEvents db flags mf >>= checkError (DetailDatabase db) "setTraceEvents"

------------------------------------------------------------------------------------------
-- Sessions and changesets

-- | <https://www.sqlite.org/session/sqlite3session_create.html>: starts a session on
-- database @schema@ (@\"main\"@; empty means @\"main\"@). It records nothing until tables
-- are attached ('sessionAttach'). Throws 'ErrorMisuse' while a preupdate hook is set.
sessionCreate :: Database -> Text -> IO Session
sessionCreate db schema = XS.sessionCreate db (toUtf8 schema) >>= checkError (DetailDatabase db) "sessionCreate"

-- | Creates a session for the action and deletes it afterwards, also on an exception.
withSession :: Database -> Text -> (Session -> IO a) -> IO a
withSession db schema act = mask $ \restore -> do
  s <- sessionCreate db schema
  r <- restore (act s) `onException` XS.sessionDelete s
  sessionDelete s
  return r

sessionCheck :: Session -> Text -> Either Error a -> IO a
sessionCheck s = checkError (DetailDatabase (XS.sessionDatabase s))

-- | <https://www.sqlite.org/session/sqlite3session_delete.html>: deleting twice, or after
-- the connection was closed, is fine.
sessionDelete :: Session -> IO ()
sessionDelete s = XS.sessionDelete s >>= sessionCheck s "sessionDelete"

-- | <https://www.sqlite.org/session/sqlite3session_attach.html>: records the changes to a
-- table, or with 'Nothing' to every table (those created later too). Only tables with a
-- PRIMARY KEY are recorded.
sessionAttach :: Session -> Maybe Text -> IO ()
sessionAttach s t = XS.sessionAttach s (toUtf8 <$> t) >>= sessionCheck s "sessionAttach"

-- | <https://www.sqlite.org/session/sqlite3session_enable.html>: recording on (the default)
-- or off.
sessionEnable :: Session -> Bool -> IO ()
sessionEnable s on = XS.sessionEnable s on >>= sessionCheck s "sessionEnable"

-- | <https://www.sqlite.org/session/sqlite3session_indirect.html>: marks the changes
-- recorded from now on as indirect ('conflictIndirect').
sessionSetIndirect :: Session -> Bool -> IO ()
sessionSetIndirect s on = XS.sessionSetIndirect s on >>= sessionCheck s "sessionSetIndirect"

-- | <https://www.sqlite.org/session/sqlite3session_isempty.html>
sessionIsEmpty :: Session -> IO Bool
sessionIsEmpty s = XS.sessionIsEmpty s >>= sessionCheck s "sessionIsEmpty"

-- | <https://www.sqlite.org/session/sqlite3session_changeset.html>: what the session
-- recorded, as a changeset (empty when nothing changed); recording goes on.
sessionChangeset :: Session -> IO ByteString
sessionChangeset s = XS.sessionChangeset s >>= sessionCheck s "sessionChangeset"

-- | <https://www.sqlite.org/session/sqlite3session_patchset.html>: as a patchset (smaller:
-- no old values but the key's; cannot be inverted).
sessionPatchset :: Session -> IO ByteString
sessionPatchset s = XS.sessionPatchset s >>= sessionCheck s "sessionPatchset"

-- | <https://www.sqlite.org/session/sqlite3session_diff.html>: @sessionDiff s from table@
-- records what would make the table of that name in database @from@ of the same connection
-- equal to @table@ of the session's database. Throws 'ErrorSchema' if their columns or keys
-- differ.
sessionDiff :: Session -> Text -> Text -> IO ()
sessionDiff s from table = XS.sessionDiff s (toUtf8 from) (toUtf8 table) >>= sessionCheck s "sessionDiff"

-- | <https://www.sqlite.org/session/sqlite3changeset_apply.html>: applies a changeset or
-- patchset (all or nothing, unless 'ApplyNoSavepoint'), settling each conflict with
-- 'applyOnConflict' or 'applyPolicy' ('defaultApplyOptions': abort). Throws 'ErrorAbort'
-- when a conflict was answered with 'ConflictAbort', 'ErrorCorrupt' for bytes that are not
-- a changeset. An exception of the filter or the conflict handler aborts the apply (nothing
-- is applied) and is rethrown.
applyChangeset :: Database -> ByteString -> ApplyOptions -> IO ()
applyChangeset db cs opts = XS.applyChangeset db cs opts >>= checkError (DetailDatabase db) "applyChangeset"

-- | <https://www.sqlite.org/session/sqlite3changeset_invert.html>: the changeset that
-- undoes this one. A patchset, or bytes that are not a changeset, give 'ErrorCorrupt'.
invertChangeset :: ByteString -> Either SQLError ByteString
invertChangeset = either (Left . pureError "invertChangeset") Right . XS.invertChangeset

-- | <https://www.sqlite.org/session/sqlite3changeset_concat.html>: one changeset doing what
-- the first then the second do. Mixing a changeset with a patchset gives 'ErrorError'.
concatChangesets :: ByteString -> ByteString -> Either SQLError ByteString
concatChangesets a b = either (Left . pureError "concatChangesets") Right (XS.concatChangesets a b)

-- | <https://www.sqlite.org/session/sqlite3changeset_start.html>: runs the step on every
-- change of the changeset or patchset (or, with 'ChangesetReadInvert', of its inverse), in
-- order, threading the accumulator through; no connection is involved. The changes cross
-- into Haskell many at a time (up to 256, or 1 MiB of values), so a large changeset is read
-- in bounded memory. For bytes that are not a changeset, throws 'ErrorCorrupt' after the
-- step has seen the changes before the damage (never a crash). An exception of the step
-- stops the read and is rethrown.
foldChangeset :: [ChangesetReadFlag] -> ByteString -> a -> (a -> ChangesetChange -> IO a) -> IO a
foldChangeset flags cs z f =
  XS.foldChangeset flags cs z f >>= either (throwIO . pureError "foldChangeset") return

-- | Every change of the changeset or patchset (or of its inverse, with
-- 'ChangesetReadInvert'), in order, decoded at once. Bytes that are not a changeset give
-- 'ErrorCorrupt' (and no changes; 'foldChangeset' sees those before the damage).
changesetChanges :: [ChangesetReadFlag] -> ByteString -> Either SQLError [ChangesetChange]
changesetChanges flags = either (Left . pureError "changesetChanges") Right . XS.changesetChanges flags

pureError :: Text -> (Error, Utf8) -> SQLError
pureError ctx (e, m) = SQLError { sqlError = e, sqlErrorDetails = decodeName m, sqlErrorContext = ctx }

------------------------------------------------------------------------------------------
-- Brackets

-- | Opens a connection for the action and closes it afterwards, also on an exception (a
-- statement the action left alive keeps the connection from closing: 'ErrorBusy').
withDatabase :: Text -> (Database -> IO a) -> IO a
withDatabase path = bracket (open path) close

-- | Prepares a statement for the action and finalizes it afterwards, also on an exception.
withStatement :: Database -> Text -> (Statement -> IO a) -> IO a
withStatement db sql = bracket (prepare db sql) finalize

------------------------------------------------------------------------------------------
-- Custom SQL functions and collations

-- | <https://sqlite.org/c3ref/create_function.html>: creates (or replaces) the SQL function
-- @name@ with that many arguments ('Nothing': any number); the 'Bool' says whether it is
-- deterministic. The function reads its arguments with the @funcArg*@ functions and sets
-- its result with the @funcResult*@ ones (NULL if it sets none). An exception it throws
-- makes the statement that called it fail; it must not use its own connection (it gets
-- 'HookReentry').
createFunction
  :: Database
  -> Text            -- ^ Name of the function.
  -> Maybe ArgCount  -- ^ Number of arguments; 'Nothing': any number.
  -> Bool            -- ^ Whether the function is deterministic.
  -> (FuncContext -> FuncArgs -> IO ())  -- ^ The function.
  -> IO ()
createFunction db name n det f = F.createFunction db (toUtf8 name) n det f
  >>= checkError (DetailDatabase db) ("createFunction " `appendShow` name)

-- | Like 'createFunction', for an aggregate: the initial state, a step per row of the
-- group, and a final call that sets the result from the state.
createAggregate
  :: Database
  -> Text            -- ^ Name of the function.
  -> Maybe ArgCount  -- ^ Number of arguments.
  -> a               -- ^ Initial aggregate state.
  -> (FuncContext -> FuncArgs -> a -> IO a)  -- ^ Processes one row and updates the state.
  -> (FuncContext -> a -> IO ())             -- ^ Sets the result from the final state.
  -> IO ()
createAggregate db name n a0 stepF final = F.createAggregate db (toUtf8 name) n a0 stepF final
  >>= checkError (DetailDatabase db) ("createAggregate " `appendShow` name)

-- | Deletes an SQL function (scalar or aggregate) of that name and argument count.
deleteFunction :: Database -> Text -> Maybe ArgCount -> IO ()
deleteFunction db name n = F.deleteFunction db (toUtf8 name) n
  >>= checkError (DetailDatabase db) ("deleteFunction " `appendShow` name)

-- | Argument @i@ as text: a number's SQLite rendering, empty for NULL. Throws a
-- 'DecodeError' if the bytes are not valid UTF-8.
funcArgText :: FuncArgs -> ArgIndex -> IO Text
funcArgText args i = do
  u <- F.funcArgText args i
  evaluate (fromUtf8' "Database.SQLite3.funcArgText: Invalid UTF-8" u)

-- | Sets a TEXT result.
funcResultText :: FuncContext -> Text -> IO ()
funcResultText ctx = F.funcResultText ctx . toUtf8

-- | <https://www.sqlite.org/c3ref/create_collation.html>: creates (or replaces) a collation
-- (invalid UTF-8 is decoded leniently). It must be a total order.
createCollation :: Database -> Text -> (Text -> Text -> Ordering) -> IO ()
createCollation db name cmp = F.createCollation db (toUtf8 name) cmp'
  >>= checkError (DetailDatabase db) ("createCollation " `appendShow` name)
  where
    cmp' (Utf8 a) (Utf8 b) = cmp (TE.decodeUtf8With lenientDecode a) (TE.decodeUtf8With lenientDecode b)

-- | Deletes a collation.
deleteCollation :: Database -> Text -> IO ()
deleteCollation db name = F.deleteCollation db (toUtf8 name)
  >>= checkError (DetailDatabase db) ("deleteCollation " `appendShow` name)
