{-# LANGUAGE TypeOperators #-}
{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE GeneralizedNewtypeDeriving #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- |
-- Module      : Database.SQLBatch
-- Description : SQLite for Haskell with a sqlite-simple-shaped API, one FFI call per batch
--
-- = Overview
--
-- > {-# LANGUAGE OverloadedStrings #-}
-- > import Database.SQLBatch
-- >
-- > main :: IO ()
-- > main = withConnection "test.db" $ \conn -> do
-- >   executeScript conn "CREATE TABLE IF NOT EXISTS people(id INTEGER PRIMARY KEY, name TEXT, age INT)"
-- >   withTransaction conn $
-- >     executeMany conn "INSERT INTO people(name, age) VALUES (?, ?)"
-- >       [("Ada" :: Text, 36 :: Int), ("Alan", 41)]
-- >   rows <- query conn "SELECT name, age FROM people WHERE age > ?" (Only (40 :: Int)) :: IO [(Text, Int)]
-- >   total <- fold_ conn "SELECT age FROM people" 0 (\acc (Only a) -> return $! acc + a) :: IO Int
-- >   print (rows, total)
--
-- = How it works
--
-- The library underneath (sqlbatch, a Rust library over SQLite) exports a C ABI that does a
-- batch of work per call: a fetch steps up to thousands of rows into an array of 16-byte
-- cells, a script runs all its statements, a bulk write runs a statement for many
-- parameter rows. So this binding crosses the FFI boundary once per batch, not once per
-- column as direct-sqlite does, and can afford to make every call that runs SQL @safe@
-- (a long query never stops the rest of the program) while reading the results with plain
-- memory reads. TEXT values are decoded straight from the batch; 'B.ByteString' values
-- are zero-copy slices of a pinned batch buffer.
--
-- = Threads, interruption and resources
--
-- * A 'Connection' may be shared between threads; each call into the library holds the
--   connection's lock for one batch (or script, or bulk write), so statements of different
--   threads interleave, and a 'fold' callback may itself run queries on the connection.
-- * Asynchronous exceptions interrupt the running SQL: @'System.Timeout.timeout' 1000000
--   (query_ conn ...)@ stops a long query within milliseconds, the statement is
--   finalized and the connection stays usable. This needs the threaded RTS (@-threaded@);
--   see @cbits/hs_sqlbatch.c@ for the mechanism. 'interrupt' does the same from any thread.
-- * Statements are always finalized ('bracket'); a 'Connection' should be closed with
--   'close' or 'withConnection' (a finalizer closes a forgotten one, as a backstop only).
-- * 'fold', 'fold_' and 'forEach' stream: memory stays bounded by one batch (at most a
--   few hundred KiB of cells plus a buffer of up to 1 MiB) whatever the size of the result.
module Database.SQLBatch
  ( -- * Connections
    Connection (..)
  , open
  , openWith
  , openUntrusted
  , D.OpenFlag (..)
  , close
  , withConnection
  , interrupt
  , setBusyTimeout
  , setTrace
    -- * Encryption
    -- $encryption
  , openEncrypted
  , openEncryptedWith
  , Cipher (..)
  , defaultCipher
  , rekey
  , export
  , cipherVersion
    -- * Fetch-ahead and write-behind
    -- $ahead
  , setFetchAhead
    -- * Queries that return rows
  , query
  , query_
  , queryNamed
  , queryWith
  , queryWith_
  , queryNamedWith
  , fold
  , fold_
  , foldNamed
  , foldWith
  , foldWith_
  , foldNamedWith
  , forEach
  , forEach_
    -- * Statements that return no rows
  , execute
  , execute_
  , executeNamed
  , executeMany
  , executeScript
  , executeScriptWith
  , ExecResult (..)
    -- * Transactions
  , withTransaction
  , withImmediateTransaction
  , withExclusiveTransaction
  , withSavepoint
    -- * Connection state
  , lastInsertRowId
  , changes
  , totalChanges
  , isAutocommit
    -- * Prepared statements
  , Statement (..)
  , openStatement
  , closeStatement
  , withStatement
  , bind
  , bindNamed
  , withBind
  , reset
  , nextRow
  , nextRowWith
  , foldStatement
  , ColumnIndex (..)
  , columnName
  , columnCount
  , columnNames
    -- * Types
  , Query (..)
  , Only (..)
  , Null (..)
  , (:.) (..)
  , SQLData (..)
  , ColumnType (..)
  , NamedParam (..)
    -- * Conversions
  , FromRow (..)
  , ToRow (..)
  , FromField (..)
  , ToField (..)
  , RowParser
  , field
  , fieldWith
  , numFieldsRemaining
  , returnRowError
  , Ok (..)
    -- * Errors
  , FormatError (..)
  , ResultError (..)
  , SQLError (..)
  , Error (..)
  , ManyErrors (..)
    -- * Library
  , sqliteVersion
  , sqlbatchVersion
  ) where

import Control.Concurrent.MVar (withMVar)
import Control.Exception
import Control.Monad (forM, forM_, unless, when)
import Data.Maybe (catMaybes, fromMaybe, listToMaybe)
import Data.IORef
import Data.Bits ((.|.))
import Data.Int (Int32, Int64)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import System.IO.Unsafe (unsafePerformIO)

import Database.SQLBatch.Direct (Utf8 (..))
import qualified Database.SQLBatch.Direct as D
import Database.SQLBatch.Error
import Database.SQLBatch.FromField
import Database.SQLBatch.FromRow
import Database.SQLBatch.Internal
import Database.SQLBatch.Internal.Rows (isTableValue, tablesIn)
import Database.SQLBatch.Internal.Walk (walkStop)
import Database.SQLBatch.Internal.Core (Database (..), cipherVersion, interruptDatabase, rawDatabase, throwAfter, withDb, withDbAhead,
                                        withDbQuick)
import qualified Database.SQLBatch.Internal.Core as C
import Database.SQLBatch.Ok
import Database.SQLBatch.Raw (CValue, c_hs_sqlbatch_exec, c_hs_sqlbatch_execute_many,
                              c_hs_sqlbatch_execute_many_start, c_hs_sqlbatch_execute_many_wait)
import Database.SQLBatch.Raw.Types (CConn, Cipher (..), defaultCipher, ExecResult (..), pokeParams, TraceView (..), peekTraceEvent, traceExpanded, traceStmt, execResultSize, peekExecResult,
                                    sqlbatchOk, sqlbatchDone, sqlbatchRow, sqlbatchESkipped, sqlbatchEMultipleStatements,
                                    sqlbatchEParamCount, paramsSingle, valueSize,
                                    withCParams, writeResultSize)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import qualified Data.ByteString.Unsafe as BU
import Foreign.Marshal.Alloc (allocaBytes, free, mallocBytes, reallocBytes)
import Data.Word (Word32, Word8)
import Foreign.Ptr (FunPtr, Ptr, castFunPtrToPtr, castPtr, castPtrToFunPtr, freeHaskellFunPtr,
                    nullFunPtr, nullPtr, plusPtr)
import System.IO (hPutStrLn, stderr)
import Database.SQLBatch.Raw.Extra (c_sqlbatch_conn_trace, mkDestroy, mkTrace)
import qualified Database.SQLite3.Bindings.Types as BT
import Database.SQLBatch.ToField
import Database.SQLBatch.ToRow
import Database.SQLBatch.Types

------------------------------------------------------------------------------------------
-- Connections

-- | Opens (and creates if needed) a database file for reading and writing. @\":memory:\"@
-- opens a private in-memory database, @\"\"@ a private temporary file. Throws 'SQLError'.
open :: String -> IO Connection
open path = openConnection (T.pack path) []

-- | Opens a database with explicit flags (e.g. @['D.OpenReadOnly']@, @['D.OpenUri']@).
openWith :: String -> [D.OpenFlag] -> IO Connection
openWith path = openConnection (T.pack path)

-- | Opens a database file that may come from anyone (a download, a user's document):
-- @'openWith' path ['D.OpenUntrusted']@. SQLite's defenses for untrusted databases are on
-- for the connection's life, and the whole file is checked first: a damaged one fails here
-- with 'ErrorCorrupt' (the check's first finding as the details) or 'ErrorNotADatabase'.
openUntrusted :: String -> IO Connection
openUntrusted path = openWith path [D.OpenUntrusted]

-- | Closes a connection, waiting for a call running on it to finish. Statements still open
-- on it stop working ('ErrorClosed'). Closing twice is harmless.
close :: Connection -> IO ()
close = closeConnection

-- | Opens a connection, runs the action and closes it, also on exceptions.
withConnection :: String -> (Connection -> IO a) -> IO a
withConnection path = bracket (open path) close

-- | Makes the SQL running on the connection (in any thread) stop with 'ErrorInterrupt' as
-- soon as possible. Safe to call from any thread at any time; a no-op if nothing runs.
-- (Asynchronous exceptions do this for you; see the module header.)
interrupt :: Connection -> IO ()
interrupt = interruptDatabase . connectionHandle

-- | Makes SQLite wait up to this many milliseconds for locks held by other connections,
-- instead of failing at once with 'ErrorBusy'. 0 turns waiting off.
setBusyTimeout :: Connection -> Int -> IO ()
setBusyTimeout c ms = withConnDirect c "setBusyTimeout" $ \db -> D.setBusyTimeout db ms

------------------------------------------------------------------------------------------
-- Encryption

-- $encryption
-- With the encrypted build of the library (SQLCipher in place of SQLite: @make lib
-- ENCRYPTION=1@, installed with @make install ENCRYPTION=1@; see the package's README), a
-- database file can be encrypted at rest:
--
-- > conn <- openEncrypted "secrets.db" "correct horse battery staple" defaultCipher
-- > execute_ conn "CREATE TABLE IF NOT EXISTS notes(body TEXT)"
-- > close conn
--
-- Everything else works on such a connection as on any other. The file's bytes are
-- encrypted page by page (its WAL too); SQLCipher writes files the
-- @sqlcipher@ shell and the SQLCipher packages of other languages read with the same key and
-- settings. In a build without encryption ('cipherVersion' is 'Nothing') 'openEncrypted',
-- 'rekey' and 'export' throw 'SQLError' with 'ErrorUnsupported' and create no file.
--
-- __Keys.__ A key is a passphrase (any bytes; SQLCipher derives the key with
-- PBKDF2-HMAC-SHA512, 256,000 iterations by default) or a raw key written @x\'…\'@ with 64
-- hex digits (256 bits) or 96 (the key, then the file's 128-bit salt). The key's
-- 'B.ByteString' is passed to the library where it lies, without a copy, and the library
-- keeps none (SQLCipher keeps the key it derives, in memory it wipes when the connection
-- closes): what stays in the program's memory is the caller's 'B.ByteString', the caller's to
-- overwrite after the call if it wants to (with "Data.ByteString.Unsafe"'s
-- @unsafeUseAsCStringLen@ and "Foreign.Marshal.Utils"'s @fillBytes@, on a 'B.ByteString' no
-- other code shares). An empty key, a malformed raw key, a setting out of its range, and an
-- in-memory or temporary database (no file to encrypt) fail with 'ErrorInvalidArgument'
-- before anything is opened or written.

-- | Opens (and creates if needed) a database file encrypted with the key (see
-- \"Encryption\" above) and the cipher settings ('defaultCipher': SQLCipher 4's), for reading
-- and writing. A new or empty file becomes an encrypted database; an existing one must have
-- been written with this key and these settings. The file is read here, so a wrong key,
-- wrong settings or a file that is no database fail here, with 'ErrorNotADatabase', not at
-- the first query. Throws 'SQLError' ('ErrorUnsupported' in a build without encryption).
openEncrypted :: String -> B.ByteString -> Cipher -> IO Connection
openEncrypted path = openEncryptedWith path []

-- | 'openEncrypted' with explicit flags, as 'openWith' (e.g. @['D.OpenReadOnly']@;
-- 'D.OpenUntrusted' keys the file before its check reads it).
openEncryptedWith :: String -> [D.OpenFlag] -> B.ByteString -> Cipher -> IO Connection
openEncryptedWith path flags key cipher = openConnectionWith (Just (key, cipher)) (T.pack path) flags

-- | Changes the key of the connection's encrypted database (its main database) to this one,
-- rewriting every page in one transaction under an exclusive lock: 'ErrorBusy' while another
-- connection reads the file, and then nothing has changed. Its cipher settings stay; a
-- database in WAL mode must be switched to a rollback journal first (SQLCipher's rule). The
-- key is passed as by 'openEncrypted' (not copied; the caller may overwrite it afterwards).
--
-- SQLCipher encrypts or decrypts no database in place: an empty key, or a connection to a
-- plain database, is 'ErrorInvalidArgument'. To encrypt a plain database, or decrypt an
-- encrypted one, 'export' it into a new file and put that in its place.
rekey :: Connection -> B.ByteString -> IO ()
rekey conn key = withConn conn "rekey" $ \c -> do
  rc <- C.rekeyHandle c B.empty key
  unless (rc == sqlbatchOk) $ throwSQL (connDatabase conn) rc "rekey"

-- | Writes the whole content of the connection's main database (schema, rows, indexes,
-- triggers, views, @user_version@ and @application_id@) into a new database file at the
-- path, encrypted with the key and cipher settings, or plain for an empty key (SQLCipher's
-- @sqlcipher_export@): how a plain database is encrypted, an encrypted one decrypted, or its
-- settings changed (export, close, then put the copy in the file's place). The path must
-- not exist, or be an empty file ('ErrorInvalidArgument'); a failure may leave a partial
-- file there, which is the caller's to remove. The key is passed as by 'openEncrypted'.
export :: Connection -> FilePath -> B.ByteString -> Cipher -> IO ()
export conn path key cipher = withConn conn ctx $ \c -> do
  rc <- C.exportHandle c B.empty (TE.encodeUtf8 (T.pack path)) key cipher
  unless (rc == sqlbatchOk) $ throwSQL (connDatabase conn) rc ctx
  where
    ctx = "export " <> T.pack path

------------------------------------------------------------------------------------------
-- Fetch-ahead and write-behind

-- $ahead
-- Two options let the connection's worker, a native thread the library starts the first
-- time it is needed (one per connection, ended by 'close'), do SQLite's share of the work
-- while your thread does its own:
--
-- * __Fetch-ahead__ ('D.OpenFetchAhead' at 'openWith', or 'setFetchAhead' per statement):
--   while 'fold', 'query', 'forEach', 'nextRow' and the other calls that read rows work on
--   one batch, the worker steps the statement's next batch. A row then costs the larger of
--   SQLite's time and yours (the 'FromRow' conversion, UTF-8 to 'T.Text', what your fold
--   does) instead of their sum. Only read-only statements fetch ahead.
-- * __Write-behind__ ('D.OpenWriteBehind' at 'openWith'): 'executeMany' lays out the next
--   chunk of parameter rows (4096 rows or 1 MiB) while the worker inserts the one before.
--
-- Nothing else changes: the rows, their order, the errors and where they come (the rows
-- before a failing step first, then the 'SQLError'; the failing row's index of
-- 'executeMany'), interruption by asynchronous exceptions and 'interrupt', and sharing a
-- 'Connection' between threads work as without the options. Every other call on the
-- connection waits for the worker first.
--
-- What it costs: a second core, busy while both threads run, for a small gain of wall time
-- per row; CPU time (user+sys) grows by the hand-over, a few microseconds per job of the
-- worker (a batch, or up to 16 batches of small rows). Worth
-- it for large results and bulk loads (thousands of rows) where your code does real work per
-- row; not for point queries, small results or a machine whose cores are all busy anyway.
--
-- Callbacks (SQL functions of "Database.SQLBatch.Function", collations, 'setTrace's logger,
-- the progress and busy handlers) run on the worker thread when the stepping there calls
-- them. That works under the threaded RTS (@-threaded@): the RTS runs them as calls into
-- Haskell from a foreign thread, and a callback that throws gives the statement its SQL error
-- as it does without the options. The non-threaded RTS cannot take calls from a thread it did
-- not start, so there the options are accepted and ignored: everything runs synchronously
-- on the calling thread, with the same results.

-- | Turns fetch-ahead on or off for a prepared statement (statements start with their
-- connection's 'D.OpenFetchAhead'); see \"Fetch-ahead and write-behind\" above. A
-- statement that writes never fetches ahead. A no-op under the non-threaded RTS.
setFetchAhead :: Statement -> Bool -> IO ()
setFetchAhead = setStatementFetchAhead

------------------------------------------------------------------------------------------
-- Tracing

-- | sqlite-simple's @setTrace@: @'setTrace' conn ('Just' logger)@ calls @logger@ with the
-- text of every statement the connection runs, as it starts, with the values of its
-- parameters in place (as SQLite's legacy @sqlite3_trace@, which sqlite-simple uses, gives
-- it; a statement of a trigger gives @-- @ and the trigger's name); 'Nothing' stops
-- tracing. A new logger replaces the previous one. The logger runs on the thread that runs
-- the statement, while the connection is busy with it: it must not use the connection.
--
-- Unlike sqlite-simple (\"if the logger callback throws an exception, your whole program may
-- crash\"), an exception thrown by the logger is caught: it is printed on @stderr@ and the
-- statement goes on.
setTrace :: Connection -> Maybe (T.Text -> IO ()) -> IO ()
setTrace conn Nothing = withConn conn "setTrace" $ \c -> do
  rc <- c_sqlbatch_conn_trace c 0 nullFunPtr nullPtr nullFunPtr
  unless (rc == sqlbatchOk) $ throwSQL (connDatabase conn) rc "setTrace"
setTrace conn (Just logger) = mask_ $ do
  fp <- mkTrace $ \_ ev ->
    (do TraceView _ sql len _ _ <- peekTraceEvent ev
        bs <- BU.unsafePackCStringLen (sql, len)
        -- Decoding copies, so the text outlives the call.
        logger $! TE.decodeUtf8With TE.lenientDecode bs)
      `catch` \(e :: SomeException) ->
        hPutStrLn stderr ("sqlbatch: the setTrace logger threw " ++ show e)
  -- From the call on, the library owns the wrapper and frees it ('traceDestroy') when it is
  -- replaced, removed or the connection closes, or at once if the call fails.
  called <- newIORef False
  withConn conn "setTrace" (\c -> do
      writeIORef called True
      -- From now on SQLite calls back while a statement steps ('C.runKept').
      writeIORef (C.dbCallsBack (connectionHandle conn)) True
      rc <- c_sqlbatch_conn_trace c (traceStmt .|. traceExpanded) fp (castFunPtrToPtr fp)
              traceDestroy
      unless (rc == sqlbatchOk) $ throwSQL (connDatabase conn) rc "setTrace")
    `onException` (readIORef called >>= \b -> unless b (freeHaskellFunPtr fp))

-- | The destroy callback of a trace: its user data is the logger's wrapper, freed here.
traceDestroy :: FunPtr (Ptr () -> IO ())
traceDestroy = unsafePerformIO $ mkDestroy $ \ud -> freeHaskellFunPtr (castPtrToFunPtr ud)
{-# NOINLINE traceDestroy #-}

------------------------------------------------------------------------------------------
-- Queries

-- | Runs a query with positional parameters (@?@) and returns all rows. The values must
-- match the statement's parameters in number, and the statement may not have named ones
-- ('FormatError'). Throws 'ResultError' (or what a 'FromField' instance returned) if a row
-- does not convert, 'SQLError' for SQLite's errors.
query :: (ToRow q, FromRow r) => Connection -> Query -> q -> IO [r]
query conn q params = queryWith fromRow conn q params
{-# INLINE query #-}

-- | Runs a query without binding parameters (a parameter in it is NULL) and returns all
-- rows.
query_ :: FromRow r => Connection -> Query -> IO [r]
query_ = queryWith_ fromRow
{-# INLINE query_ #-}

-- | Runs a query with named parameters (@:name@, @\@name@, @$name@, spelled as in the SQL;
-- one value for each parameter) and returns all rows.
queryNamed :: FromRow r => Connection -> Query -> [NamedParam] -> IO [r]
queryNamed = queryNamedWith fromRow
{-# INLINE queryNamed #-}

-- | 'queryNamed' with an explicit row parser.
queryNamedWith :: RowParser r -> Connection -> Query -> [NamedParam] -> IO [r]
queryNamedWith rp conn q params = withPrepared conn q $ \st -> do
  bindNamedChecked st params
  collectStatementWith rp st
{-# INLINE queryNamedWith #-}

-- | 'query' with an explicit row parser.
queryWith :: ToRow q => RowParser r -> Connection -> Query -> q -> IO [r]
queryWith rp conn q params = withPrepared conn q $ \st -> do
  bindParams st (toRow params)
  collectStatementWith rp st
{-# INLINE queryWith #-}

-- | 'query_' with an explicit row parser.
queryWith_ :: RowParser r -> Connection -> Query -> IO [r]
queryWith_ rp conn q = withPrepared conn q (collectStatementWith rp)
{-# INLINE queryWith_ #-}

-- | Folds over the rows of a query as they stream in, batch by batch, in bounded memory.
-- The accumulator is evaluated to WHNF at every row.
fold :: (FromRow row, ToRow params)
     => Connection -> Query -> params -> a -> (a -> row -> IO a) -> IO a
fold = foldWith fromRow
{-# INLINE fold #-}

-- | 'fold' without binding parameters.
fold_ :: FromRow row => Connection -> Query -> a -> (a -> row -> IO a) -> IO a
fold_ = foldWith_ fromRow
{-# INLINE fold_ #-}

-- | 'fold' with named parameters.
foldNamed :: FromRow row => Connection -> Query -> [NamedParam] -> a -> (a -> row -> IO a) -> IO a
foldNamed = foldNamedWith fromRow
{-# INLINE foldNamed #-}

-- | 'fold' with an explicit row parser.
foldWith :: ToRow params
         => RowParser row -> Connection -> Query -> params -> a -> (a -> row -> IO a) -> IO a
foldWith rp conn q params z f = withPrepared conn q $ \st -> do
  bindParams st (toRow params)
  foldStatementWith rp st z f
{-# INLINE foldWith #-}

-- | 'fold_' with an explicit row parser.
foldWith_ :: RowParser row -> Connection -> Query -> a -> (a -> row -> IO a) -> IO a
foldWith_ rp conn q z f = withPrepared conn q $ \st -> foldStatementWith rp st z f
{-# INLINE foldWith_ #-}

-- | 'foldNamed' with an explicit row parser.
foldNamedWith :: RowParser row -> Connection -> Query -> [NamedParam] -> a -> (a -> row -> IO a) -> IO a
foldNamedWith rp conn q params z f = withPrepared conn q $ \st -> do
  bindNamedChecked st params
  foldStatementWith rp st z f
{-# INLINE foldNamedWith #-}

-- | Runs an action on every row, streaming (see 'fold').
forEach :: (FromRow r, ToRow q) => Connection -> Query -> q -> (r -> IO ()) -> IO ()
forEach conn q params act = fold conn q params () (\_ r -> act r)
{-# INLINE forEach #-}

-- | 'forEach' without parameters.
forEach_ :: FromRow r => Connection -> Query -> (r -> IO ()) -> IO ()
forEach_ conn q act = fold_ conn q () (\_ r -> act r)
{-# INLINE forEach_ #-}

-- | Binds positional parameters after sqlite-simple's checks ('checkPositional').
bindParams :: Statement -> [SQLData] -> IO ()
bindParams st ps = do
  -- The common case (a known parameter count, as many values, all short) in one pass.
  quick <- bindPositionalQuick st ps
  unless quick $ do
    checkPositional st ps
    case ps of
      [] -> return ()
      _ -> bindValues st ps
{-# INLINE bindParams #-}

-- | The parameter names of a statement, by index (from 1): 'Nothing' for a plain @?@.
paramNamesOf :: Statement -> IO [Maybe T.Text]
paramNamesOf = statementParamNames

-- | sqlite-simple's 'FormatError'.
formatError :: Show v => String -> Query -> [v] -> IO a
formatError msg q vs = throwIO (FormatError msg q (map show vs))

-- | sqlite-simple's checks of positional values: as many as the statement has parameters,
-- and no named parameter (nor @?NNN@) in the statement. The count is all that is asked of
-- the library unless the SQL might hold a named parameter ('statementMayNameParams'):
-- only then are the names built and looked at.
checkPositional :: Statement -> [SQLData] -> IO ()
checkPositional st vs = do
  n <- statementParamCount st
  when (length vs /= n) $
    formatError ("SQL query contains " ++ show n ++ " params, but " ++ show (length vs)
                 ++ " arguments given") (stmtQuery st) vs
  when (n > 0 && statementMayNameParams st) $ do
    names <- paramNamesOf st
    case [nm | Just nm <- names] of
      nm : _ -> formatError ("Only unnamed '?' query parameters are accepted, '" ++ T.unpack nm
                             ++ "' given") (stmtQuery st) vs
      [] -> return ()

-- | sqlite-simple's checks of named values (one per parameter, each name spelled as in the
-- SQL), then the values bound by position (a name given twice: the last value counts).
bindNamedChecked :: Statement -> [NamedParam] -> IO ()
bindNamedChecked st params = do
  vs <- namedPositional st params
  unless (null vs) $ bindValues st vs

-- | The positional values of named parameters, after sqlite-simple's checks.
namedPositional :: Statement -> [NamedParam] -> IO [SQLData]
namedPositional st params = do
  names <- paramNamesOf st
  let n = length names
  when (length params /= n) $
    formatError ("SQL query contains " ++ show n ++ " params, but " ++ show (length params)
                 ++ " arguments given") (stmtQuery st) params
  forM_ params $ \(k := _) ->
    unless (Just k `elem` names) $
      formatError ("Unknown named parameter '" ++ T.unpack k ++ "'") (stmtQuery st) params
  let valueOf nm = case [toField v | (k := v) <- reverse params, Just k == nm] of
        v : _ -> v
        [] -> SQLNull
  return (map valueOf names)

-- | Runs a prepared statement once to completion with these values for its parameters
-- (one row of the library's bulk write), discarding any rows.
runOnce :: T.Text -> Statement -> [SQLData] -> IO ()
runOnce ctx st vs =
  withParams vs [] (\cells _ dat len ->
    bulkWrite (stmtDb st) ctx st (castPtr cells) 1 (length vs) dat len 0)
  `catch` \e -> throwIO e { sqlErrorRowIndex = Nothing }

------------------------------------------------------------------------------------------
-- Statements that return no rows

-- | Runs one statement with positional parameters (checked as by 'query'), discarding any
-- rows. SQL holding a second statement is refused ('ErrorMultipleStatements'; see
-- 'executeScript').
execute :: ToRow q => Connection -> Query -> q -> IO ()
execute conn q params = do
  let vs = toRow params
  if any isTableValue vs then executeTables conn q vs else do
    done <- executeOnce "execute" conn q vs
    unless done $ withPrepared conn q $ \st -> do
      checkPositional st vs
      runOnce (contextOf "execute" q) st vs

-- | 'execute' with table values ("Database.SQLBatch.VTab"), which the library binds one
-- by one: the statement is prepared, bound and run to its end (rows discarded).
executeTables :: Connection -> Query -> [SQLData] -> IO ()
executeTables conn q vs = withPrepared conn q $ \st -> do
  checkPositional st vs
  bindValues st vs
  runToEnd st

-- | Runs a bound statement to its end, discarding its rows.
runToEnd :: Statement -> IO ()
runToEnd st = foldStatementWith skipRow st () (\_ _ -> return ())
  where
    skipRow = numFieldsRemaining >>= \n -> mapM_ (const (fieldWith (const (Ok ())))) [1 .. n]

-- | Runs one statement without binding parameters: a parameter in it is NULL (as in
-- sqlite-simple).
execute_ :: Connection -> Query -> IO ()
execute_ conn q = do
  done <- executeOnce "execute_" conn q []
  unless done $ withPrepared conn q $ \st -> do
    n <- statementParamCount st
    runOnce (contextOf "execute_" q) st (replicate n SQLNull)

-- | Runs a statement once in one call into the library, which prepares, binds, runs and
-- finalizes it (@sqlbatch_conn_exec@ with 'paramsSingle'): no 'Statement' is made. Only for
-- SQL that cannot name or number a parameter ('mayNameParams'), where the number of values
-- is the only check sqlite-simple makes. Returns False, having run nothing, when the SQL may
-- name parameters, or when the library refuses it before running it (a second statement,
-- another number of values): the caller then takes the statement path, whose checks raise
-- sqlite-simple's errors. Any other error is the statement's, as the statement path would
-- raise it, with the 'execute' context (SQLite's compile errors included).
executeOnce :: T.Text -> Connection -> Query -> [SQLData] -> IO Bool
executeOnce what conn q vs = do
  -- The SQL's bytes, and whether it may name parameters, kept from the connection's last
  -- SQL if it is the same text ('C.sqlText').
  C.SqlText _ sql may <- C.sqlText (connectionHandle conn) (fromQuery q)
  if may then return False else
      execSingle conn ctx sql vs (\rc ->
        rc == sqlbatchEMultipleStatements || rc == sqlbatchEParamCount) >>= \r -> case r of
          Right rc -> return (rc == sqlbatchOk)
          -- A script's error says which statement failed; this is one statement.
          Left e -> throwAfter e { sqlErrorStatementIndex = Nothing, sqlErrorStatementOffset = Nothing }
  where
    ctx = contextOf what q

-- | Runs one statement with named parameters (checked as by 'queryNamed').
executeNamed :: Connection -> Query -> [NamedParam] -> IO ()
executeNamed conn q params = withPrepared conn q $ \st -> do
  vs <- namedPositional st params
  if null (tablesIn vs) then runOnce (contextOf "executeNamed" q) st vs else do
    bindValues st vs
    runToEnd st

-- | Runs a whole script (any number of statements, e.g. a schema or a dump) in one call.
-- On failure, the statements before the failing one stay run (wrap the script in
-- 'withTransaction' to make it all-or-nothing) and the 'SQLError' gives the failing
-- statement's index and offset and the offending token's offset in the whole script.
executeScript :: Connection -> Query -> IO ()
executeScript conn q = let Utf8 sql = queryUtf8 q in executeScriptBytes conn q sql

-- | 'executeScript' of SQL already in UTF-8 (the query for the error context). No
-- parameters and no result wanted: NULL for both, no buffer allocated.
executeScriptBytes :: Connection -> Query -> B.ByteString -> IO ()
executeScriptBytes conn q sql = scriptBytes conn q sql >>= either throwAfter return

-- | 'executeScriptBytes' returning its error (to throw with 'throwAfter'). A transaction
-- statement (@BEGIN@, @COMMIT@ and their kin, byte for byte) runs as a statement the
-- connection keeps prepared ('C.runKept'), the error of a failing one as the script's.
scriptBytes :: Connection -> Query -> B.ByteString -> IO (Either SQLError ())
scriptBytes conn q sql = do
  let ctx = contextOf "executeScript" q
      db = connectionHandle conn
  case C.keptIndex sql of
    Just i -> keptScript conn q i
    Nothing -> BU.unsafeUseAsCStringLen sql $ \(sp, sn) ->
      withDbQuick db True ctx $ \c -> do
        rc <- c_hs_sqlbatch_exec c sp (fromIntegral sn) nullPtr nullPtr
        if rc == sqlbatchOk then return (Right ()) else Left <$> D.errorFrom (connDatabase conn) rc ctx

-- | 'scriptBytes' of the transaction statement of this index ('C.keptIndex'): the
-- statement the connection keeps prepared, run once ('C.runKept').
keptScript :: Connection -> Query -> Int -> IO (Either SQLError ())
keptScript conn q i =
  -- The locked section's action puts the lock back itself ('C.lockedReleasing'), so that
  -- the call leaves one frame of its own under the mask's ('keptIn').
  C.withLockReleasing db True
    (\_ isOpen -> if isOpen then keptIn conn q i True (dbHandle db) else closed)
    (keptIn conn q i False)
  where
    db = connectionHandle conn
    closed = Left (C.closedError (contextOf "executeScript" q)) <$ C.unlock db

-- | 'keptScript' with the connection's handle, in its locked section if @locked@ (the lock
-- put back last), else in a hook of the connection.
keptIn :: Connection -> Query -> Int -> Bool -> Ptr CConn -> IO (Either SQLError ())
keptIn conn q i locked c = do
  let db = connectionHandle conn
  rc <- C.runKept db c i
  r <- if rc == sqlbatchDone || rc == sqlbatchRow then return (Right ()) else do
    e <- D.errorFrom (connDatabase conn) rc (contextOf "executeScript" q)
    return (Left e { sqlErrorStatementIndex = Just 0, sqlErrorStatementOffset = Just 0 })
  when locked $ C.unlock db
  return r

-- | 'executeScript' with positional parameters (consumed in order across the statements)
-- and named ones; returns what ran.
executeScriptWith :: ToRow q => Connection -> Query -> q -> [NamedParam] -> IO ExecResult
executeScriptWith conn q params named =
  runScript "executeScript" conn q (toRow params) (namedValues named)

namedValues :: [NamedParam] -> [(T.Text, SQLData)]
namedValues = map (\(k := v) -> (k, toField v))

runScript :: T.Text -> Connection -> Query -> [SQLData] -> [(T.Text, SQLData)] -> IO ExecResult
runScript what conn q positional named = do
  let ctx = contextOf what q
      Utf8 sql = queryUtf8 q
      vals = positional ++ map snd named
      names = map (const SQLNull) positional ++ map (SQLText . fst) named
  allocaBytes execResultSize $ \pr -> do
    r <- execWith conn ctx sql vals (if null named then [] else names) 0 (castPtr pr) (const False)
    case r of
      Left e -> throwAfter e
      Right _ -> peekExecResult (castPtr pr)

-- | One @sqlbatch_conn_exec@ of @sql@ with positional values, names ([] for none; else one
-- per value, 'SQLNull' for a positional one), params flags and result (NULL for none), under
-- the connection's lock (interruptible): the status if it is 'sqlbatchOk' or one that
-- @expected@ accepts, else the error, read under the lock before another call on the
-- connection replaces it (throw it with 'throwAfter').
execWith :: Connection -> T.Text -> B.ByteString -> [SQLData] -> [SQLData] -> Word32
         -> Ptr ExecResult -> (Int32 -> Bool) -> IO (Either SQLError Int32)
execWith conn ctx sql vals names flags pr expected =
  C.withBytes sql $ \sp sn ->
    withParamsRoom paramsRoom vals names $ \nv front cells nameCells dat len -> do
      let pp = castPtr front
      pokeParams pp cells nameCells nv dat len flags
      withDbQuick (connectionHandle conn) True ctx $ \c -> do
        rc <- c_hs_sqlbatch_exec c sp (fromIntegral sn) pp pr
        if rc == sqlbatchOk || expected rc then return (Right rc)
          else Left <$> D.errorFrom (connDatabase conn) rc ctx
{-# INLINE execWith #-}

-- | 'execWith' of one statement with positional values ('paramsSingle', no names, no
-- result), for 'executeOnce': the values laid out in one buffer (one pass over them, none
-- over names), and the locked section ending with the call ('C.withLockReleasing': the
-- call's continuation puts the lock back), so that at the safe call the stack holds, of
-- this, the call's frame and the mask's (the runtime walks every frame at a safe call).
execSingle :: Connection -> T.Text -> B.ByteString -> [SQLData] -> (Int32 -> Bool)
           -> IO (Either SQLError Int32)
execSingle conn ctx sql vals expected =
  let !(Sized nv bv) = sized vals
      cellBytes = nv * valueSize
  in allocaBytes (paramsRoom + cellBytes + bv) $ \front -> do
    let cells = front `plusPtr` paramsRoom
        dat = cells `plusPtr` cellBytes
        pp = castPtr front
    len <- encodeParams cells dat 0 vals
    pokeParams pp (castPtr cells :: Ptr CValue) nullPtr nv dat len paramsSingle
    C.withBytes sql $ \sp sn ->
      C.withLockReleasing db True
        (\_ isOpen -> if isOpen then run pp sp sn True (dbHandle db)
                                else Left (C.closedError ctx) <$ C.unlock db)
        (run pp sp sn False)
  where
    db = connectionHandle conn
    -- In the locked section if @locked@ (the lock put back after the call), else in a hook
    -- of the connection.
    run pp sp sn locked c = do
      rc <- c_hs_sqlbatch_exec c sp (fromIntegral sn) pp nullPtr
      r <- if rc == sqlbatchOk || expected rc then return (Right rc)
        else Left <$> D.errorFrom (connDatabase conn) rc ctx
      when locked $ C.unlock db
      return r
    {-# INLINE run #-}
{-# INLINE execSingle #-}

-- | Runs a statement once per parameter row through the library's bulk write: the rows
-- are sent in chunks of a few thousand, one call per chunk. It does not open a
-- transaction; wrap it in 'withTransaction' for speed and atomicity. On failure the
-- 'SQLError' gives the index of the failing row ('sqlErrorRowIndex'); the rows before it
-- have run.
--
-- The list is consumed as it is sent, so a lazily produced list streams in bounded memory.
-- Where the type of the rows is known, each row is laid out straight from its fields (see
-- 'encodeRow'), with no intermediate list of 'SQLData'.
executeMany :: forall q. ToRow q => Connection -> Query -> [q] -> IO ()
executeMany _ _ [] = return ()
executeMany conn q rows@(r0 : _)
  | connWriteBehind conn = executeManyBehind conn q rows
  | otherwise =
  withPrepared conn q $ \st -> checkPositional st (toRow r0) >>= \() ->
  bracket (mallocBytes (max 1 (chunkRows * ncols) * valueSize)) free $ \cells ->
  bracket (mallocBytes initialData >>= newIORef . flip (,) initialData) (\ref -> readIORef ref >>= free . fst) $ \dataRef -> do
    let send !base !n !dat !used = when (n > 0) $ bulkWrite (connectionHandle conn) ctx st cells n ncols dat used base
        -- The chunk being filled starts at row @base@ and holds @n@ rows; the next row's
        -- cells go to @cell@, its bytes to @dat@ (of @cap@ bytes) from @used@ on.
        fill :: Int -> Int -> Ptr Word8 -> Ptr Word8 -> Int -> Int -> [q] -> IO ()
        fill !base !n !cell !dat !cap !used rs = case rs of
          [] -> send base n dat used
          r : rest
            | n == chunkRows -> do
                send base n dat used
                fill (base + n) 0 (castPtr cells) dat cap 0 rs
            | otherwise -> do
                used' <- encodeRow ncols (toRow r) cell dat used cap
                if used' >= 0
                  then fill base (n + 1) (cell `plusPtr` rowBytes) dat cap used' rest
                  else if used' == rowNoRoom
                    then do
                      let need = used + paramBytesBound (toRow r)
                      if n > 0 && need > maxData
                        then do
                          send base n dat used
                          fill (base + n) 0 (castPtr cells) dat cap 0 rs
                        else do
                          (dat', cap') <- growData dataRef need
                          fill base n cell dat' cap' used rs
                    else do
                      send base n dat used
                      formatError ("SQL query contains " ++ show ncols ++ " params, but "
                                   ++ show (length (toRow r)) ++ " arguments given") q (toRow r)
    (dat0, cap0) <- readIORef dataRef
    fill 0 0 (castPtr cells) dat0 cap0 0 rows
  where
    ctx = contextOf "executeMany" q
    ncols = length (toRow r0)
    rowBytes = ncols * valueSize
    chunkRows = 4096 :: Int
    initialData = 64 * 1024 :: Int
    maxData = 1024 * 1024 :: Int
{-# INLINABLE executeMany #-}

-- | 'executeMany' with write-behind (a connection opened with 'D.OpenWriteBehind'): the
-- same chunks, laid out the same way, but over three sets of buffers, so that while the
-- connection's worker thread runs chunks k and k+1, one after the other
-- (@sqlbatch_stmt_execute_many_start@ queues up to two), this thread lays out chunk k+2 into
-- the third set; the wait for chunk k (@sqlbatch_stmt_execute_many_wait@) comes before chunk
-- k+2 starts. A chunk queued behind one that fails does not run, so the results, the errors
-- (the failing row's index, 'FormatError' after the rows before it ran) and their order are
-- those of the synchronous loop. The buffers are malloc'd (outside the garbage collected
-- heap) and freed only after the last wait, also on exceptions: an asynchronous one
-- interrupts the chunks in flight first, as it would interrupt the synchronous call; a
-- synchronous one (a 'ToField' that throws) waits for them, and gives way to the error of a
-- chunk that failed, since the synchronous loop would have stopped there first.
executeManyBehind :: forall q. ToRow q => Connection -> Query -> [q] -> IO ()
executeManyBehind _ _ [] = return ()
executeManyBehind conn q rows@(r0 : _) =
  withPrepared conn q $ \st -> checkPositional st (toRow r0) >>= \() ->
  withSlot 0 $ \slotA -> withSlot 1 $ \slotB -> withSlot 2 $ \slotC -> do
    -- The first rows (in the whole list) of the chunks that may be in flight, oldest first:
    -- a chunk goes in before its start and out after its wait, so that whatever exception
    -- comes in between, cleanup waits for every chunk the library may still be reading (a
    -- wait with nothing queued returns SQLITE_MISUSE, which cleanup ignores).
    pending <- newIORef ([] :: [Int])
    let h = stmtPtr st
        -- Waits for the oldest chunk in flight.
        waitOldest = readIORef pending >>= \m -> case m of
          [] -> return ()
          base : rest -> do
            bulkWait (connectionHandle conn) ctx st base (not (null rest))
            writeIORef pending rest
        waitAll = readIORef pending >>= \m -> unless (null m) (waitOldest >> waitAll)
        -- Sends the chunk being filled (once at most one other is in flight).
        send :: Slot -> Int -> Int -> Ptr Word8 -> Int -> IO ()
        send slot !base !n !dat !used = when (n > 0) $ do
          inFlight <- readIORef pending
          when (length inFlight >= 2) waitOldest
          modifyIORef' pending (++ [base])
          bulkStart (connectionHandle conn) ctx st (slotCells slot) n ncols dat used base
        other slot = case slotId slot of
          0 -> slotB
          1 -> slotC
          _ -> slotA
        -- As in 'executeMany', over the slot being filled.
        fill :: Slot -> Int -> Int -> Ptr Word8 -> Ptr Word8 -> Int -> Int -> [q] -> IO ()
        fill slot !base !n !cell !dat !cap !used rs = case rs of
          [] -> send slot base n dat used >> waitAll
          r : rest
            | n == chunkRows -> next slot base n dat used rs
            | otherwise -> do
                used' <- encodeRow ncols (toRow r) cell dat used cap
                if used' >= 0
                  then fill slot base (n + 1) (cell `plusPtr` rowBytes) dat cap used' rest
                  else if used' == rowNoRoom
                    then do
                      let need = used + paramBytesBound (toRow r)
                      if n > 0 && need > maxData
                        then next slot base n dat used rs
                        else do
                          (dat', cap') <- growData (slotData slot) need
                          fill slot base n cell dat' cap' used rs
                    else do
                      send slot base n dat used
                      waitAll
                      formatError ("SQL query contains " ++ show ncols ++ " params, but "
                                   ++ show (length (toRow r)) ++ " arguments given") q (toRow r)
        -- Sends the chunk and goes on with the next slot.
        next slot base n dat used rs = do
          send slot base n dat used
          let slot' = other slot
          (dat', cap') <- readIORef (slotData slot')
          fill slot' (base + n) 0 (slotCells slot') dat' cap' 0 rs
        -- Waits for the chunks still in flight, oldest first; the first error of one of
        -- them replaces e (a chunk behind a failed one reports that it was skipped: no
        -- error of its own).
        cleanup :: SomeException -> IO ()
        cleanup e = uninterruptibleMask_ $ do
          m <- readIORef pending
          writeIORef pending []
          let async = case fromException e of
                Just (_ :: SomeAsyncException) -> True
                Nothing -> False
          let db = connectionHandle conn
          failed <- withMVar (dbLock db) $ \_ -> do
            isOpen <- readIORef (dbOpen db)
            if not isOpen || null m then return Nothing else do
              job <- readIORef (dbJob db)
              when (async && job == WriteJob h) $ D.interrupt (connDatabase conn)
              let p = dbHandle db
              errs <- allocaBytes writeResultSize $ \pr -> forM m $ \base -> do
                rc <- c_hs_sqlbatch_execute_many_wait p h (castPtr pr)
                if rc == sqlbatchOk || rc == sqliteMisuse || rc == sqlbatchESkipped || async
                  then return Nothing
                  else do
                    err <- D.errorFrom (connDatabase conn) rc ctx
                    return (Just err { sqlErrorRowIndex = (+ base) <$> sqlErrorRowIndex err })
              -- Whatever the waits found, the worker is idle after this (NoJob is then true).
              settle db
              return (listToMaybe (catMaybes errs))
          case failed of
            Just err -> throwIO err
            Nothing -> throwIO e
    (dat0, cap0) <- readIORef (slotData slotA)
    fill slotA 0 0 (slotCells slotA) dat0 cap0 0 rows `catch` cleanup
  where
    ctx = contextOf "executeMany" q
    ncols = length (toRow r0)
    rowBytes = ncols * valueSize
    chunkRows = 4096 :: Int
    initialData = 64 * 1024 :: Int
    maxData = 1024 * 1024 :: Int
    withSlot :: Int -> (Slot -> IO a) -> IO a
    withSlot i k =
      bracket (mallocBytes (max 1 (chunkRows * ncols) * valueSize)) free $ \cells ->
      bracket (mallocBytes initialData >>= newIORef . flip (,) initialData)
              (\ref -> readIORef ref >>= free . fst) $ \dataRef ->
        k (Slot i (castPtr cells) dataRef)
{-# INLINABLE executeManyBehind #-}

-- | One set of buffers of 'executeManyBehind': the cells of a chunk and its bytes.
data Slot = Slot
  { slotId :: !Int
  , slotCells :: !(Ptr Word8)
  , slotData :: !(IORef (Ptr Word8, Int))
  }

-- | @SQLITE_MISUSE@: what the wait returns when no write is queued.
sqliteMisuse :: Int32
sqliteMisuse = 21

-- | Queues a chunk of 'executeManyBehind' (see 'bulkWrite' for the arguments); errors found
-- before any row runs are thrown here.
bulkStart :: Database -> T.Text -> Statement -> Ptr Word8 -> Int -> Int -> Ptr Word8 -> Int -> Int -> IO ()
bulkStart db ctx st cells n ncols dat used base =
  withCParams cells nullPtr (n * ncols) dat used 0 $ \pp ->
    withDbAhead db ctx $ \c -> do
      -- May be left running: its next bind or reset is a safe call.
      writeIORef (C.stRun (unStatement st)) C.Running
      let h = stmtPtr st
      -- It waits for the worker's job, if any, itself.
      rc <- c_hs_sqlbatch_execute_many_start c h pp (fromIntegral n)
      -- A start that fails queues nothing but leaves a write queued before it running.
      when (rc == sqlbatchOk) $ writeIORef (dbJob db) (WriteJob h)
      when (rc /= 0) $ do
        e <- D.errorFrom (rawDatabase db) rc ctx
        throwIO e { sqlErrorRowIndex = (+ base) <$> sqlErrorRowIndex e }
{-# NOINLINE bulkStart #-}

-- | Waits for the oldest chunk 'bulkStart' queued, whose first row is row @base@ of the
-- list, and throws its error; @more@ says that another chunk is still queued behind it.
bulkWait :: Database -> T.Text -> Statement -> Int -> Bool -> IO ()
bulkWait db ctx st base more =
  allocaBytes writeResultSize $ \pr ->
    withDbAhead db ctx $ \c -> do
      let h = stmtPtr st
      rc <- c_hs_sqlbatch_execute_many_wait c h (castPtr pr)
      -- The wait of the last write queued waits for the worker to be idle.
      writeIORef (dbJob db) $! if more then WriteJob h else NoJob
      when (rc /= 0) $ do
        e <- D.errorFrom (rawDatabase db) rc ctx
        throwIO e { sqlErrorRowIndex = (+ base) <$> sqlErrorRowIndex e }
{-# NOINLINE bulkWait #-}

-- | Grows the data buffer of 'executeMany' to at least @need@ bytes (at least doubling
-- it), keeping its contents.
growData :: IORef (Ptr Word8, Int) -> Int -> IO (Ptr Word8, Int)
growData ref need = do
  (dat, cap) <- readIORef ref
  let cap' = head [c | c <- iterate (* 2) (max 1 cap), c >= need]
  p <- reallocBytes dat cap'
  writeIORef ref (p, cap')
  return (p, cap')

-- | Runs a chunk of 'executeMany': @n@ rows of @ncols@ cells at @cells@, their bytes the
-- first @used@ of @dat@, the first of them row @base@ of the whole list.
bulkWrite :: Database -> T.Text -> Statement -> Ptr Word8 -> Int -> Int -> Ptr Word8 -> Int -> Int -> IO ()
bulkWrite db ctx st cells n ncols dat used base =
  withCParams cells nullPtr (n * ncols) dat used 0 $ \pp ->
  allocaBytes writeResultSize $ \pr ->
    withDb db ctx $ \c -> do
      -- May be left running: its next bind, reset or finalize is a safe call.
      let run = C.stRun (unStatement st)
      writeIORef run C.Running
      rc <- c_hs_sqlbatch_execute_many c (stmtPtr st) pp (fromIntegral n) (castPtr pr)
      when (rc /= 0) $ do
        e <- D.errorFrom (rawDatabase db) rc ctx
        throwIO e { sqlErrorRowIndex = (+ base) <$> sqlErrorRowIndex e }
      -- Every row ran to its end, and the library reset the statement after each.
      writeIORef run C.Ready
{-# NOINLINE bulkWrite #-}

------------------------------------------------------------------------------------------
-- Transactions

-- | Runs the action in a transaction (@BEGIN@ ... @COMMIT@). If it throws, synchronously
-- or asynchronously, the transaction is rolled back and the exception rethrown.
withTransaction :: Connection -> IO a -> IO a
withTransaction = transaction "BEGIN" beginKept

-- | 'withTransaction' with @BEGIN IMMEDIATE@ (takes the write lock at once).
withImmediateTransaction :: Connection -> IO a -> IO a
withImmediateTransaction = transaction "BEGIN IMMEDIATE" beginImmediateKept

-- | 'withTransaction' with @BEGIN EXCLUSIVE@.
withExclusiveTransaction :: Connection -> IO a -> IO a
withExclusiveTransaction = transaction "BEGIN EXCLUSIVE" beginExclusiveKept

-- | The statements of the transactions: their indexes among the statements a connection
-- keeps prepared ('C.keptIndex'), found once for all.
beginKept, beginImmediateKept, beginExclusiveKept, commitKept :: Int
beginKept = keptOf "BEGIN"
beginImmediateKept = keptOf "BEGIN IMMEDIATE"
beginExclusiveKept = keptOf "BEGIN EXCLUSIVE"
commitKept = keptOf "COMMIT"
{-# NOINLINE beginKept #-}
{-# NOINLINE beginImmediateKept #-}
{-# NOINLINE beginExclusiveKept #-}
{-# NOINLINE commitKept #-}

keptOf :: String -> Int
keptOf sql = fromMaybe (error ("Database.SQLBatch: " ++ sql ++ " is not a kept statement"))
  (C.keptIndex (B8.pack sql))

transaction :: Query -> Int -> Connection -> IO a -> IO a
transaction begin beginK conn act = mask $ \restore -> do
  keptScript conn begin beginK >>= either throwAfter return
  -- The action's safe calls walk the stack only down to the transaction ("Walk").
  r <- restore (walkStop act) `onException` rollback
  -- A failed COMMIT (an asynchronous exception that interrupted it included: it is raised
  -- by 'throwAfter', after the rollback) rolls back.
  c <- keptScript conn "COMMIT" commitKept
  case c of
    Right () -> return r
    Left e -> rollback >> throwAfter e
  where
    -- SQLite may have rolled back already (some errors do); then there is nothing to undo.
    rollback = uninterruptibleMask_ $ do
      ac <- isAutocommit conn
      unless ac $ executeScript conn "ROLLBACK" `catch` \(_ :: SQLError) -> return ()

-- | Runs the action inside a savepoint, which nests (in a transaction or not): released on
-- success, rolled back to (and released) on an exception.
withSavepoint :: Connection -> IO a -> IO a
withSavepoint conn act = mask $ \restore -> do
  n <- atomicModifyIORef' savepointCounter (\k -> (k + 1, k))
  let name = "sqlbatch_sp_" <> T.pack (show n)
  executeScript conn (Query ("SAVEPOINT " <> name))
  let undo = uninterruptibleMask_ $
        executeScript conn (Query ("ROLLBACK TO " <> name <> "; RELEASE " <> name))
          `catch` \(_ :: SQLError) -> return ()
  r <- restore (walkStop act) `onException` undo
  executeScript conn (Query ("RELEASE " <> name)) `onException` undo
  return r

savepointCounter :: IORef Int
savepointCounter = unsafePerformIO (newIORef 0)
{-# NOINLINE savepointCounter #-}

------------------------------------------------------------------------------------------
-- Connection state

-- | The rowid of the most recent successful INSERT on the connection (0 if none).
lastInsertRowId :: Connection -> IO Int64
lastInsertRowId c = withConnDirect c "lastInsertRowId" D.lastInsertRowId

-- | Rows changed by the most recent INSERT, UPDATE or DELETE on the connection.
changes :: Connection -> IO Int
changes c = fromIntegral <$> withConnDirect c "changes" D.changes

-- | Rows changed since the connection was opened.
totalChanges :: Connection -> IO Int
totalChanges c = fromIntegral <$> withConnDirect c "totalChanges" D.totalChanges

-- | Whether the connection is outside a transaction.
isAutocommit :: Connection -> IO Bool
isAutocommit c = withConnDirect c "isAutocommit" D.autocommit

------------------------------------------------------------------------------------------
-- Prepared statements

-- | Prepares one statement, to be run several times with 'bind' and 'nextRow' (or
-- 'foldStatement'). Close it with 'closeStatement', or use 'withStatement'. SQL holding a
-- second statement is refused with 'ErrorMultipleStatements' (as by 'query' and 'fold').
openStatement :: Connection -> Query -> IO Statement
openStatement conn q = mask_ $ do
  st <- prepareStatement conn q
  -- Kept by the caller: registered with the connection ("Database.SQLite3"'s close counts
  -- it) and finalized by the garbage collector if the caller forgets it. The registry is
  -- written with the lock held.
  C.withLockQuick (connectionHandle conn) (\_ -> C.registerStatement (unStatement st))
  return st

-- | Finalizes a statement. Call it once.
closeStatement :: Statement -> IO ()
closeStatement = finalizeStatement

-- | Prepares a statement, runs the action and finalizes it, also on exceptions.
withStatement :: Connection -> Query -> (Statement -> IO a) -> IO a
withStatement = withPrepared

-- | Binds positional parameters (resetting the statement if it has run), checked as by
-- 'query' ('FormatError').
bind :: ToRow q => Statement -> q -> IO ()
bind st params = bindParams st (toRow params)
{-# INLINE bind #-}

-- | Binds named parameters (resetting the statement if it has run), checked as by
-- 'queryNamed' ('FormatError').
bindNamed :: Statement -> [NamedParam] -> IO ()
bindNamed st params = bindNamedChecked st params

-- | Binds the parameters, runs the action and then 'reset's the statement, also on
-- exceptions (so that an unfinished statement does not hold a transaction open).
withBind :: ToRow params => Statement -> params -> IO a -> IO a
withBind st params io = do
  bind st params
  io `finally` reset st

-- | Rewinds the statement so that it runs again, keeping its bindings.
reset :: Statement -> IO ()
reset = resetStatement

-- | The next row of the statement, or 'Nothing' after the last (rows still come in batches).
nextRow :: FromRow r => Statement -> IO (Maybe r)
nextRow = nextRowWith fromRow
{-# INLINE nextRow #-}

-- | Folds over the remaining rows of a statement (see 'fold').
foldStatement :: FromRow r => Statement -> a -> (a -> r -> IO a) -> IO a
foldStatement st z f = foldStatementWith fromRow st z f
{-# INLINE foldStatement #-}

-- | The index of a result column, from 0: sqlite-simple's, a wrapper of direct-sqlite's
-- ("Database.SQLite3"'s 'BT.ColumnIndex', which programs mixing the two APIs unwrap and
-- pass on).
newtype ColumnIndex = ColumnIndex BT.ColumnIndex
  deriving (Eq, Ord, Show, Enum, Num, Real, Integral)

-- | The name of a result column. Throws 'IndexOutOfBounds' for an index out of range.
columnName :: Statement -> ColumnIndex -> IO T.Text
columnName st (ColumnIndex c) = do
  ns <- columnNamesOf st
  let n = fromIntegral c :: Int
  if n >= 0 && n < length ns
    then return (ns !! n)
    else throwIO (IndexOutOfBounds ("Column index " ++ show n ++ " out of bounds"))

-- | The number of result columns.
columnCount :: Statement -> IO ColumnIndex
columnCount st = ColumnIndex . fromIntegral . length <$> columnNamesOf st

-- | Extension: the names of all result columns.
columnNames :: Statement -> IO [T.Text]
columnNames = columnNamesOf

------------------------------------------------------------------------------------------
-- Library

-- | The version of SQLite built into the library, e.g. @\"3.54.1\"@.
sqliteVersion :: IO String
sqliteVersion = D.sqliteVersion

-- | The version of the sqlbatch library, e.g. @\"0.1.0\"@.
sqlbatchVersion :: IO String
sqlbatchVersion = D.libraryVersion
