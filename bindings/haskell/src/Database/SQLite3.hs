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
    -- * Interrupting a long-running query
  , interrupt
  , interruptibly
    -- * Types
  , Database
  , Statement
  , SQLData (..)
  , SQLOpenFlag (..)
  , SQLVFS (..)
  , SQLError (..)
  , ColumnType (..)
    -- ** Results and errors
  , StepResult (..)
  , Error (..)
    -- ** Special integers
  , ParamIndex (..)
  , ColumnIndex (..)
  , ColumnCount
  ) where

import Control.Exception (Exception, evaluate, throw, throwIO)
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
  , Statement, StepResult (..), Utf8 (..), bindParameterCount, changes, clearBindings
  , columnBlob, columnCount, columnDouble, columnInt64, columnType, interrupt
  , lastInsertRowId )
import qualified Database.SQLite3.Internal as I

-- | A value of a column or parameter.
data SQLData
  = SQLInteger !Int64
  | SQLFloat !Double
  | SQLText !Text
  | SQLBlob !ByteString
  | SQLNull
  deriving (Eq, Show)

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

-- | Exception thrown when SQLite reports an error.
data SQLError = SQLError
  { sqlError :: !Error
    -- ^ Error code returned by API call
  , sqlErrorDetails :: Text
    -- ^ Text describing the error
  , sqlErrorContext :: Text
    -- ^ Indicates what action produced this error, e.g. @exec \"SELECT * FROM foo\"@
  }
  deriving (Eq)

instance Show SQLError where
  show e = T.unpack $ T.concat
    [ "SQLite3 returned ", T.pack (show (sqlError e)), " while attempting to perform "
    , sqlErrorContext e, ": ", sqlErrorDetails e ]

instance Exception SQLError

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
open2 path flags vfs = do
  case vfs of
    SQLVFSDefault -> return ()
    SQLVFSUnix -> return ()
    _ -> throwIO SQLError
           { sqlError = ErrorError
           , sqlErrorDetails = "no such vfs: " <> vfsName
           , sqlErrorContext = "open2 " `appendShow` path }
  I.openWith (toUtf8 path) (foldr ((.|.) . bit) 0 flags)
    >>= checkErrorMsg ("open2 " `appendShow` path)
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
      _ -> 0

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
bindText st i t = bindWith "bind text" I.bindText st i (toUtf8 t)

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
