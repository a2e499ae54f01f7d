{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE GeneralizedNewtypeDeriving #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE UnboxedTuples #-}
-- |
-- Module      : Database.SQLite3.Internal
-- Description : The implementation under "Database.SQLite3" and "Database.SQLite3.Direct"
--
-- direct-sqlite's per-row API (@step@ returns 'Row' or 'Done', @column*@ read the current
-- row) served from sqlbatch's batches. Nothing here is needed by a program written against
-- direct-sqlite; the module is exposed for the few who want the cursor's internals.
--
-- = How a statement runs
--
-- A statement is a /cursor/ over a snapshot of one batch: 'step' moves to the next row of
-- the snapshot with one increment (no FFI call, no lock; an atomic add when several
-- capabilities run Haskell code in parallel, see 'advancePos'), and the @column*@ functions read
-- the snapshot's cells in Haskell memory. Only when the snapshot is used up does 'step'
-- cross the FFI: it takes the connection's lock and calls @sqlbatch_stmt_fetch_into@ (an
-- interruptible call) for the next batch, whose cells and bytes are copied into a fresh
-- garbage-collected buffer. A snapshot is never written again once published, so a thread
-- that still reads an old one reads valid memory, whatever other threads do to the
-- statement meanwhile.
--
-- A read-only statement (@sqlbatch_stmt_readonly@) fetches 16 rows first, then four times
-- as many per batch up to about 64 KiB of cells (which stay in the CPU's cache while they
-- are copied and read). A statement that writes fetches one row
-- per batch, so its side effects (changes, the last insert rowid, triggers) happen at the
-- 'step' at which direct-sqlite would make them.
--
-- = Threads
--
-- Every call is safe from any number of threads: calls that reach the library hold the
-- connection's lock ('MVar'); 'step' on a snapshot claims its row atomically, so each row goes to
-- exactly one 'step'; column reads see some row of the statement (the current one when one
-- thread uses it, as in SQLite's serialized mode), never freed memory.
module Database.SQLite3.Internal
  ( -- * Types
    Database
  , Statement
  , StepResult (..)
  , ColumnType (..)
  , Error (..)
  , Utf8 (..)
  , ParamIndex (..)
  , ColumnIndex (..)
  , ColumnCount
  , OpenFlags
    -- * Connections
  , open
  , openWith
  , close
  , errcode
  , errmsg
  , interrupt
  , getAutoCommit
  , changes
  , totalChanges
  , lastInsertRowId
  , exec
  , execWithCallback
  , ExecCallback
    -- * Statements
  , prepare
  , prepareTail
  , getStatementDatabase
  , step
  , reset
  , finalize
  , clearBindings
  , statementSql
  , bindParameterCount
  , bindParameterName
  , bindParameterIndex
  , columnCount
  , columnName
  , bindInt64
  , bindDouble
  , bindText
  , bindBlob
  , bindZeroBlob
  , bindNull
  , columnType
  , columnInt64
  , columnDouble
  , columnText
  , columnBlob
  , columnTextWith
  , liveStatements
  , decodeCode
    -- * For "Database.SQLite3.Internal.Extra"
  , withLock
  , withLocks
  , dbIdent
  , libraryFailure
  , ownFailure
  , codeText
  , HookReentry (..)
  , runHook
  , inHook
  , takeHookException
    -- * Values
  , SQLData (..)
  , peekValues
  ) where

import Control.Concurrent (ThreadId, myThreadId)
import Control.Concurrent.MVar
import Control.Exception (Exception, SomeException, evaluate, mask, mask_, onException, throwIO, try)
import Control.Monad (forM, unless, when)
import Data.Bits ((.&.), (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.IORef
import qualified Data.IntMap.Strict as IM
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.C.String (peekCString)
import Foreign.C.Types (CBool (..), CInt, CSize)
import Foreign.ForeignPtr (ForeignPtr, touchForeignPtr)
import Foreign.ForeignPtr.Unsafe (unsafeForeignPtrToPtr)
import Foreign.Marshal.Alloc (alloca, allocaBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.Ptr (Ptr, castPtr, nullPtr, plusPtr, wordPtrToPtr)
import Foreign.Storable (peek, peekByteOff)
import GHC.Float (castWord64ToDouble)
import GHC.Exts (Int (..), MutableByteArray#, RealWorld, fetchAddIntArray#, newByteArray#,
                 readIntArray#, writeIntArray#, (+#))
import GHC.ForeignPtr (mallocPlainForeignPtrBytes)
import GHC.IO (IO (..))
import System.IO.Unsafe (unsafePerformIO)
import System.Mem (performMajorGC)
import System.Mem.Weak (Weak, deRefWeak)
import qualified System.Mem.Weak as Weak

import Database.SQLBatch.Direct (Utf8 (..))
import qualified Database.SQLBatch.Direct as D
import Database.SQLBatch.Error (Error (..), decodeError)
import Database.SQLBatch.Types (ColumnType (..), SQLData (..))
import Database.SQLBatch.Internal.Text (decodeUtf8Fresh)
import Database.SQLBatch.Raw
import Database.SQLBatch.Raw.Extra (rtsCapabilities)
import Database.SQLBatch.Raw.Types

------------------------------------------------------------------------------------------
-- Types (direct-sqlite's)

-- | Index of a parameter of a prepared statement, from 1. 'bindParameterCount' gives the
-- largest index (@SELECT ?1, ?5@ has 5 parameters).
newtype ParamIndex = ParamIndex Int
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show ParamIndex where
  show (ParamIndex n) = show n

-- | The bounds of SQLite's native (C @int@) parameter indexes.
instance Bounded ParamIndex where
  minBound = ParamIndex (fromIntegral (minBound :: CInt))
  maxBound = ParamIndex (fromIntegral (maxBound :: CInt))

-- | Index of a column of a result row, from 0.
newtype ColumnIndex = ColumnIndex Int
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show ColumnIndex where
  show (ColumnIndex n) = show n

-- | The bounds of SQLite's native (C @int@) column indexes.
instance Bounded ColumnIndex where
  minBound = ColumnIndex (fromIntegral (minBound :: CInt))
  maxBound = ColumnIndex (fromIntegral (maxBound :: CInt))

-- | Number of columns of a result row.
type ColumnCount = ColumnIndex

-- | What 'step' did.
data StepResult
  = Row   -- ^ a row is ready: read it with the @column*@ functions
  | Done  -- ^ the statement has finished
  deriving (Eq, Show)

-- | The 'Error' of a status code: SQLite's primary code (direct-sqlite's connections report
-- no extended codes), and for sqlbatch's own codes (1000 to 1023) the SQLite code a direct
-- call would have given.
decodeCode :: Int32 -> Error
decodeCode rc
  | rc >= 1000 && rc <= 1023 = library   -- sqlbatch's range, which no SQLite code falls in
  | otherwise = decodeError rc
  where
    library
      | rc == sqlbatchEPanic = ErrorInternal
      | rc == sqlbatchERange || rc == sqlbatchEParamCount = ErrorRange
      | rc == sqlbatchEInvalidUtf8 || rc == sqlbatchEMultipleStatements = ErrorError
      | rc == sqlbatchEBufferTooSmall = ErrorNoMemory
      | otherwise = ErrorMisuse  -- NULL parameter, stale batch, closed, invalid argument

-- | SQLite's English text of a primary code, as @sqlite3_errstr@ gives it.
codeText :: Int32 -> B.ByteString
codeText rc = unsafePerformIO (TE.encodeUtf8 . T.pack <$> (c_sqlbatch_code_str rc >>= peekCString))
{-# NOINLINE codeText #-}

------------------------------------------------------------------------------------------
-- Connections

-- | A database connection. Every function on it may be called from any thread: calls
-- into the library are serialized by a lock.
data Database = Database
  { dbLock :: !(MVar (Ptr CConn))
    -- ^ the connection's lock, holding the handle; 'nullPtr' once closed
  , dbGuard :: !(MVar (Ptr CConn))
    -- ^ the handle for 'interrupt', which must not run while 'close' frees it
  , dbStmts :: !(IORef (IM.IntMap (Weak (IORef Cursor), Core)))
    -- ^ statements not finalized yet, by id
  , dbOwnError :: !(IORef (Maybe (Int32, B.ByteString)))
    -- ^ the last failure made here (misuse, index out of range), shown by 'errmsg' until
    -- the library reports a newer one
  , dbId :: !Int
  , dbHookThreads :: !(IORef [(ThreadId, Maybe (Ptr CConn))])
    -- ^ the Haskell threads running a hook of this connection now, each with the handle it
    -- may use (the WAL hook's, which SQLite lets run SQL) or 'Nothing' (every other hook:
    -- using the connection throws 'HookReentry' instead of waiting for its own lock)
  , dbHookError :: !(IORef (Maybe SomeException))
    -- ^ the first exception a hook threw that nobody has taken yet
  }

instance Eq Database where
  a == b = dbId a == dbId b

instance Show Database where
  show d = "Database <" ++ show (dbId d) ++ ">"

{-# NOINLINE counter #-}
counter :: IORef Int
counter = unsafePerformIO (newIORef 0)

nextId :: IO Int
nextId = atomicModifyIORef' counter (\n -> (n + 1, n + 1))

-- | Open flags, SQLite's @SQLITE_OPEN_*@ bits (as @sqlite3_open_v2@ takes them).
type OpenFlags = Int

-- | <https://www.sqlite.org/c3ref/open.html>: read-write, created if missing.
open :: Utf8 -> IO (Either (Error, Utf8) Database)
open path = openWith path 0

-- | Opens with @SQLITE_OPEN_*@ flags (0: read-write, created if missing). The flags sqlbatch
-- does not take (@NOMUTEX@, which is its default, and the VFS-only ones) are dropped.
openWith :: Utf8 -> OpenFlags -> IO (Either (Error, Utf8) Database)
openWith (Utf8 path) flags = do
  _ <- c_hs_sqlbatch_ensure_handler
  BU.unsafeUseAsCStringLen path $ \(p, n) -> alloca $ \out -> do
    rc <- c_sqlbatch_conn_open p (fromIntegral n) (fromIntegral flags .&. accepted) out
    c <- peek out
    if rc == sqlbatchOk
      then Right <$> newDatabase c
      else do
        msg <- if c == nullPtr then return (codeText rc) else libraryMessage c rc
        c_sqlbatch_conn_close c
        return (Left (decodeCode rc, Utf8 msg))
  where
    accepted = openReadOnly .|. openReadWrite .|. openCreate .|. openUri .|. openMemory
      .|. openFullMutex .|. openSharedCache .|. openPrivateCache .|. openNoFollow

newDatabase :: Ptr CConn -> IO Database
newDatabase c = do
  lock <- newMVar c
  guard <- newMVar c
  stmts <- newIORef IM.empty
  own <- newIORef Nothing
  i <- nextId
  hooks <- newIORef []
  herr <- newIORef Nothing
  let db = Database lock guard stmts own i hooks herr
  -- A connection nobody references any more is closed by the garbage collector (its
  -- statements are unreachable too, so 'close' finds none alive).
  _ <- mkWeakMVar lock (() <$ close db)
  return db

-- | The message of the connection's last failure (the code's text if there is none).
libraryMessage :: Ptr CConn -> Int32 -> IO B.ByteString
libraryMessage c rc = allocaBytes errorSize $ \pe -> do
  r <- c_sqlbatch_conn_last_error c (castPtr pe)
  if r /= sqlbatchOk
    then return (codeText rc)
    else do
      e <- peekError (castPtr pe)
      return (if cerrCode e == sqlbatchOk || B.null (cerrMessage e) then codeText rc else cerrMessage e)

-- | A failure of the library on this connection: the code's 'Error', and 'errmsg' shows the
-- library's message from now on. Call with the lock held.
libraryFailure :: Database -> Int32 -> IO Error
libraryFailure db rc = do
  writeIORef (dbOwnError db) Nothing
  return (decodeCode rc)

-- | A failure detected here (misuse, an index out of range), recorded for 'errmsg' as
-- SQLite would record it.
ownFailure :: Database -> Int32 -> IO (Either Error a)
ownFailure db rc = do
  writeIORef (dbOwnError db) (Just (rc, codeText rc))
  return (Left (decodeCode rc))

sqliteMisuse, sqliteRange, sqliteBusy :: Int32
sqliteMisuse = 21
sqliteRange = 25
sqliteBusy = 5

-- | Runs an action with the connection's lock (interruptibly: waiting for the lock can be
-- interrupted by an asynchronous exception).
--
-- Inside a hook of this connection (which runs while the call that fired it holds the
-- lock), the lock is not taken: the WAL hook gets the connection's handle, every other hook
-- gets a 'HookReentry' exception (SQLite forbids them to use the connection; waiting for
-- the lock would never end).
withLock :: Database -> (Ptr CConn -> IO a) -> IO a
withLock db k = do
  hs <- readIORef (dbHookThreads db)
  if null hs then withMVar (dbLock db) k else do
    t <- myThreadId
    case lookup t hs of
      Nothing -> withMVar (dbLock db) k
      Just (Just c) -> k c
      Just Nothing -> throwIO HookReentry
{-# INLINE withLock #-}

-- | Both connections' locks, always taken in the same order (by id), so that two threads
-- running backups in opposite directions cannot deadlock. The two must differ.
withLocks :: Database -> Database -> (Ptr CConn -> Ptr CConn -> IO a) -> IO a
withLocks a b k
  | dbId a <= dbId b = withLock a $ \ca -> withLock b $ \cb -> k ca cb
  | otherwise = withLock b $ \cb -> withLock a $ \ca -> k ca cb

-- | Throws 'HookReentry' when called from a hook of the connection.
notInHook :: Database -> IO ()
notInHook db = do
  hs <- readIORef (dbHookThreads db)
  unless (null hs) $ do
    t <- myThreadId
    when (maybe False (const True) (lookup t hs)) (throwIO HookReentry)

-- | The connection's identity (unique in the process).
dbIdent :: Database -> Int
dbIdent = dbId

-- | Thrown inside a hook (update, commit, rollback, progress, busy, authorizer, change feed)
-- that uses its own connection, which SQLite forbids; the hook's runner catches it like any
-- other exception of the hook (see "Database.SQLite3.Internal.Extra").
data HookReentry = HookReentry
  deriving (Eq)

instance Show HookReentry where
  show _ = "Database.SQLite3: a hook used its own connection (SQLite forbids it; only the WAL hook may)"

instance Exception HookReentry

-- | Runs a hook's Haskell code: registers the running thread (see 'withLock'), catches every
-- exception (none may unwind through C), records the first one on the connection and
-- returns the default instead. The result is forced inside.
runHook :: Database -> Maybe (Ptr CConn) -> a -> IO a -> IO a
runHook db c dflt act = do
  r <- inHook db c act
  case r of
    Right x -> return x
    Left e -> do
      atomicModifyIORef' (dbHookError db) (\m -> (maybe (Just e) Just m, ()))
      return dflt

-- | Runs a callback's Haskell code as 'runHook' does (the thread registered as in a hook of
-- the connection, so that using it throws 'HookReentry'; the result forced), returning its
-- exception instead of keeping it: for callbacks whose caller reports it (the conflict
-- handler and filter of a changeset's apply).
inHook :: Database -> Maybe (Ptr CConn) -> IO a -> IO (Either SomeException a)
inHook db c act = mask $ \restore -> do
  t <- myThreadId
  atomicModifyIORef' (dbHookThreads db) (\hs -> ((t, c) : hs, ()))
  r <- try (restore (act >>= evaluate))
  atomicModifyIORef' (dbHookThreads db) (\hs -> (filter ((/= t) . fst) hs, ()))
  return r

------------------------------------------------------------------------------------------
-- Values

-- | Copies @n@ cells (@sqlbatch_value@s at the pointer, their bytes at the base, or at the
-- address in @bits@ when the base is NULL) into values: 'Nothing' for a cell of kind
-- @SQLBATCH_UNDEFINED@ (a column a change does not carry). TEXT that is not valid UTF-8 is
-- decoded leniently (U+FFFD).
peekValues :: Ptr Word8 -> Ptr () -> Int -> IO [Maybe SQLData]
peekValues base cells n = forM [0 .. n - 1] $ \i -> do
  let cell = cells `plusPtr` (i * valueSize)
  k <- peekByteOff cell valueKindOff :: IO Word8
  bits <- peekByteOff cell valueBitsOff :: IO Word64
  len <- fromIntegral <$> (peekByteOff cell valueLenOff :: IO Word32)
  let bytes
        | len == 0 = return B.empty
        | base == nullPtr = B.packCStringLen (wordPtrToPtr (fromIntegral bits), len)
        | otherwise = B.packCStringLen (castPtr (base `plusPtr` fromIntegral bits), len)
  if k == kindInteger then return (Just (SQLInteger (fromIntegral bits)))
    else if k == kindFloat then return (Just (SQLFloat (castWord64ToDouble bits)))
    else if k == kindText then Just . SQLText . TE.decodeUtf8With TE.lenientDecode <$> bytes
    else if k == kindBlob then Just . SQLBlob <$> bytes
    else if k == kindNull then return (Just SQLNull)
    else return Nothing

-- | The first exception a hook of the connection threw since the last call, if any (and
-- forgets it).
takeHookException :: Database -> IO (Maybe SomeException)
takeHookException db = atomicModifyIORef' (dbHookError db) (\m -> (Nothing, m))

-- | <https://www.sqlite.org/c3ref/close.html>. As @sqlite3_close@, returns 'ErrorBusy' (and
-- leaves the connection open) while a statement of the connection is not finalized, such
-- as one that runs on another thread at that moment: 'close' never waits for a query.
-- Statements nobody references any more do not count: 'close' finalizes them (running the
-- garbage collector once if live-looking statements remain). Closing a closed connection
-- is a no-op (@Right ()@).
close :: Database -> IO (Either Error ())
close db = notInHook db >> do
  busy <- liveStatementsWith finalizeCore db
  busy' <- if busy == 0 then return 0 else performMajorGC >> liveStatementsWith finalizeCore db
  if busy' > 0
    then ownFailureMsg db sqliteBusy closeBusy
    else do
      -- A script ('exec') may be running: stop it, then wait for the lock.
      interrupt db
      modifyMVar (dbLock db) $ \c -> do
        n <- liveStatementsWith finalizeLocked db
        if c == nullPtr then return (c, Right ())
          else if n > 0
            then (,) c <$> ownFailureMsg db sqliteBusy closeBusy
            else mask_ $ do
              _ <- swapMVar (dbGuard db) nullPtr
              c_sqlbatch_conn_close c
              return (nullPtr, Right ())
  where
    closeBusy = "unable to close due to unfinalized statements or unfinished backups"

ownFailureMsg :: Database -> Int32 -> B.ByteString -> IO (Either Error a)
ownFailureMsg db rc msg = do
  writeIORef (dbOwnError db) (Just (rc, msg))
  return (Left (decodeCode rc))

-- | The number of statements of the connection that are neither finalized nor unreachable;
-- the unreachable ones are finalized on the way.
liveStatements :: Database -> IO Int
liveStatements = liveStatementsWith finalizeCore

liveStatementsWith :: (Core -> IO ()) -> Database -> IO Int
liveStatementsWith fin db = do
  m <- readIORef (dbStmts db)
  alive <- forM (IM.elems m) $ \(w, core) -> do
    k <- deRefWeak w
    case k of
      Just _ -> return (1 :: Int)
      Nothing -> 0 <$ fin core
  return (sum alive)

-- | <https://www.sqlite.org/c3ref/errcode.html>: the code of the last failure on the
-- connection (sqlbatch keeps it until the next failure: successful calls do not reset it).
errcode :: Database -> IO Error
errcode db = do
  own <- readIORef (dbOwnError db)
  case own of
    Just (rc, _) -> return (decodeCode rc)
    Nothing -> withLock db $ \c ->
      if c == nullPtr then return ErrorMisuse else allocaBytes errorSize $ \pe -> do
        _ <- c_sqlbatch_conn_last_error c (castPtr pe)
        decodeCode . cerrCode <$> peekError (castPtr pe)

-- | <https://www.sqlite.org/c3ref/errcode.html>: the message of the last failure on the
-- connection (@\"not an error\"@ if there was none).
errmsg :: Database -> IO Utf8
errmsg db = do
  -- A failure made here is read without the lock, so that the 'ErrorBusy' of a 'close'
  -- racing with a running query is described at once.
  own <- readIORef (dbOwnError db)
  case own of
    Just (_, m) -> return (Utf8 m)
    Nothing -> withLock db $ \c ->
      if c == nullPtr then return (Utf8 "bad parameter or other API misuse")
        else Utf8 <$> libraryMessage c 0

-- | <https://www.sqlite.org/c3ref/interrupt.html>: makes the SQL running on the connection
-- (on another thread) stop with 'ErrorInterrupt' as soon as possible. Returns at once; a
-- no-op on a closed connection.
interrupt :: Database -> IO ()
interrupt db = withMVar (dbGuard db) $ \c -> unless (c == nullPtr) (c_sqlbatch_conn_interrupt c)

getter :: Database -> a -> (Ptr CConn -> Ptr b -> IO Int32) -> (Ptr b -> IO a) -> IO a
getter db dflt call rd = withLock db $ \c ->
  if c == nullPtr then return dflt else allocaBytes 8 $ \p -> do
    rc <- call c (castPtr p)
    if rc == sqlbatchOk then rd (castPtr p) else return dflt

-- | <https://www.sqlite.org/c3ref/get_autocommit.html>: 'True' outside a transaction
-- opened with BEGIN.
getAutoCommit :: Database -> IO Bool
getAutoCommit db = getter db True c_sqlbatch_conn_autocommit (fmap (\(CBool b) -> b /= 0) . peek)

-- | <https://www.sqlite.org/c3ref/changes.html>: rows changed by the most recent INSERT,
-- UPDATE or DELETE.
changes :: Database -> IO Int
changes db = getter db 0 c_sqlbatch_conn_changes (fmap (fromIntegral :: Int64 -> Int) . peek)

-- | <https://www.sqlite.org/c3ref/total_changes.html>: rows changed since the connection
-- was opened.
totalChanges :: Database -> IO Int
totalChanges db = getter db 0 c_sqlbatch_conn_total_changes (fmap (fromIntegral :: Int64 -> Int) . peek)

-- | <https://www.sqlite.org/c3ref/last_insert_rowid.html>
lastInsertRowId :: Database -> IO Int64
lastInsertRowId db = getter db 0 c_sqlbatch_conn_last_insert_rowid peek

-- | <https://www.sqlite.org/c3ref/exec.html>: runs every statement of the SQL (one call to
-- @sqlbatch_conn_exec@, interruptible). On failure, the message.
exec :: Database -> Utf8 -> IO (Either (Error, Utf8) ())
exec db (Utf8 sql) = withLock db $ \c ->
  if c == nullPtr then Left <$> closedPair db else
  BU.unsafeUseAsCStringLen sql $ \(p, n) -> do
    rc <- c_hs_sqlbatch_exec c p (fromIntegral n) nullPtr nullPtr
    if rc == sqlbatchOk
      then return (Right ())
      else do
        e <- libraryFailure db rc
        m <- libraryMessage c rc
        return (Left (e, Utf8 m))

closedPair :: Database -> IO (Error, Utf8)
closedPair db = do
  _ <- ownFailure db sqliteMisuse :: IO (Either Error ())
  return (ErrorMisuse, Utf8 (codeText sqliteMisuse))

-- | The callback of 'execWithCallback': the column count, the column names (the same for
-- every row of a statement) and the row's values as 'columnText' gives them ('Nothing'
-- for NULL).
type ExecCallback = ColumnCount -> [Utf8] -> [Maybe Utf8] -> IO ()

-- | Like 'exec', calling the callback for each result row. The statements are prepared and
-- stepped one after the other on batches; an exception of the callback is rethrown (the
-- statement it came from is finalized first).
execWithCallback :: Database -> Utf8 -> ExecCallback -> IO (Either (Error, Utf8) ())
execWithCallback db (Utf8 sql0) cb = go sql0
  where
    go sql
      | B.null sql = return (Right ())
      | otherwise = do
          r <- prepareTail db (Utf8 sql)
          case r of
            Left e -> failed e
            Right (Nothing, _) -> return (Right ())
            Right (Just st, tl) -> do
              res <- runStmt st `onException` finalize st
              _ <- finalize st
              case res of
                Left e -> failed e
                Right () -> go (B.drop tl sql)
    failed e = do
      m <- errmsg db
      return (Left (e, m))
    runStmt st = do
      n <- columnCount st
      names <- forM [0 .. n - 1] $ \i -> maybe (Utf8 B.empty) id <$> columnName st i
      let loop = do
            s <- step st
            case s of
              Left e -> return (Left e)
              Right Done -> return (Right ())
              Right Row -> do
                vals <- forM [0 .. n - 1] $ \i -> do
                  t <- columnType st i
                  if t == NullColumn then return Nothing else Just <$> columnText st i
                cb n names vals
                loop
      loop

------------------------------------------------------------------------------------------
-- Statements

-- | The state of a statement's run, read without any lock by 'step' and the @column*@
-- functions.
data Cursor
  = Ready             -- ^ prepared or reset: not run yet
  | Rows {-# UNPACK #-} !Snap  -- ^ running; the current row is the snapshot's position
  | Finished          -- ^ the last 'step' returned 'Done'
  | Failed !Int32     -- ^ the last 'step' failed with this code
  | Finalized

-- | A batch copied into Haskell memory, with the index of the current row. Unpacked into
-- 'Rows' (and its 'ForeignPtr' and 'Pos' into it), so that 'step' and the @column*@
-- functions reach every field with one load from the cursor, and none needs evaluating.
data Snap = Snap
  { snFP :: {-# UNPACK #-} !(ForeignPtr Word8)   -- ^ owns the cells and the bytes
  , snCells :: !(Ptr Word8)
  , snData :: !(Ptr Word8)
  , snDataLen :: !Int
  , snRows :: !Int
  , snCols :: !Int
  , snLast :: !Bool               -- ^ the batch ended the result
  , snPos :: {-# UNPACK #-} !Pos
  }

-- | The position of a cursor in its snapshot (one machine word, changed atomically).
data Pos = Pos (MutableByteArray# RealWorld)

newPos :: IO Pos
newPos = IO $ \s -> case newByteArray# 8# s of
  (# s1, mba #) -> case writeIntArray# mba 0# 0# s1 of
    s2 -> (# s2, Pos mba #)

readPos :: Pos -> IO Int
readPos (Pos mba) = IO $ \s -> case readIntArray# mba 0# s of
  (# s1, i #) -> (# s1, I# i #)
{-# INLINE readPos #-}

-- | Moves to the next row; returns the new position. Each position goes to exactly one
-- caller, also when several threads step the statement at once.
--
-- With one capability (the non-threaded RTS, or @-N1@, the default) only one Haskell thread
-- runs at a time, and it can only be descheduled at a safe point (a heap check, a call);
-- the read and the write below are two primitive operations with none between them, so a
-- plain increment is already atomic with respect to every other Haskell thread. With more
-- capabilities, threads run in parallel and the add is an atomic one (@lock xadd@, which
-- costs about as much as the rest of a 'step'). The count of capabilities is read from the
-- RTS's @n_capabilities@: it never decreases, and it only changes while every capability is
-- stopped at a safe point, so no thread is between the read and the write when it does.
advancePos :: Pos -> IO Int
advancePos (Pos mba) = do
  ncap <- peek rtsCapabilities
  IO $ \s -> if ncap == 1
    then case readIntArray# mba 0# s of
      (# s1, i #) -> case writeIntArray# mba 0# (i +# 1#) s1 of
        s2 -> (# s2, I# (i +# 1#) #)
    else case fetchAddIntArray# mba 0# 1# s of
      (# s1, i #) -> (# s1, I# (i +# 1#) #)
{-# INLINE advancePos #-}

-- | What a statement needs that never changes, and its mutable parts guarded by the
-- connection's lock.
data Core = Core
  { coHandle :: !(IORef (Ptr CStmt))     -- ^ 'nullPtr' once finalized (under the lock)
  , coDb :: !Database
  , coId :: !Int
  , coParams :: ![Maybe Utf8]             -- ^ parameter names, from index 1
  , coNParams :: !Int
  , coCols :: ![Utf8]
  , coNCols :: !Int
  , coWrites :: !Bool                     -- ^ not read-only: one row per batch
  , coBinds :: !(IORef (IM.IntMap D.Value))  -- ^ values bound, by index (others NULL)
  , coDirty :: !(IORef Bool)              -- ^ 'coBinds' changed since the library got them
  , coRows :: !(IORef Int)                -- ^ rows of the next batch
  , coBuf :: !(IORef Int)                 -- ^ bytes for TEXT and BLOB of the next batch
  , coSql :: !Utf8
  }

-- | A prepared statement. Every function on it may be called from any thread (see the
-- module's description); one that nobody references any more is finalized by the garbage
-- collector (and by 'close').
data Statement = Statement
  { stCore :: !Core
  , stCursor :: !(IORef Cursor)
    -- ^ read by every function on the statement, and the key of the GC's finalizer (the
    -- connection's list of statements holds only the 'Core', so the cursor dies with the
    -- last reference to the statement)
  , stWeak :: !(Weak (IORef Cursor))
    -- ^ that finalizer: 'finalize' runs it at once (then a no-op), so that the GC has no
    -- finalizer left to schedule for a statement finalized by hand
  }

instance Eq Statement where
  a == b = coId (stCore a) == coId (stCore b)

instance Show Statement where
  show s = "Statement <" ++ show (coId (stCore s)) ++ ">"

-- | <https://www.sqlite.org/c3ref/prepare.html>: compiles the first statement of the SQL
-- ('Nothing' if it holds none, only whitespace and comments).
prepare :: Database -> Utf8 -> IO (Either Error (Maybe Statement))
prepare db sql = fmap fst <$> prepareTail db sql

-- | Like 'prepare', also giving the byte offset where the next statement starts.
prepareTail :: Database -> Utf8 -> IO (Either Error (Maybe Statement, Int))
prepareTail db (Utf8 sql) = mask_ $ withLock db $ \c ->
  if c == nullPtr then ownFailure db sqliteMisuse else
  BU.unsafeUseAsCStringLen sql $ \(p, n) -> alloca $ \out -> alloca $ \tailp -> do
    rc <- c_sqlbatch_stmt_prepare c p (fromIntegral n) 0 out tailp
    if rc /= sqlbatchOk
      then Left <$> libraryFailure db rc
      else do
        h <- peek out
        tl <- fromIntegral <$> (peek tailp :: IO CSize)
        text <- stmtText h
        if B.null text
          then do
            c_sqlbatch_stmt_finalize h
            return (Right (Nothing, tl))
          else do
            st <- newStatement db h (Utf8 text)
            return (Right (Just st, tl))

stmtText :: Ptr CStmt -> IO B.ByteString
stmtText h = allocaBytes strSize $ \ps -> do
  rc <- c_sqlbatch_stmt_sql h (castPtr ps)
  if rc /= sqlbatchOk then return B.empty else maybe B.empty id <$> peekStr ps

newStatement :: Database -> Ptr CStmt -> Utf8 -> IO Statement
newStatement db h sql = do
  let ds = D.Statement h (D.Database nullPtr)
  params <- either (const []) (map (fmap (\(D.Utf8 b) -> Utf8 b))) <$> D.paramNames ds
  cols <- either (const []) (map (\ci -> let D.Utf8 b = D.columnName ci in Utf8 b)) <$> D.columns ds
  ro <- alloca $ \p -> do
    rc <- c_sqlbatch_stmt_readonly h p
    if rc /= sqlbatchOk then return False else (\(CBool b) -> b /= 0) <$> peek p
  hRef <- newIORef h
  binds <- newIORef IM.empty
  dirty <- newIORef False
  rows <- newIORef (if ro then firstRows else 1)
  buf <- newIORef (if null cols then 0 else if ro then initialBuf else 256)
  cur <- newIORef Ready
  i <- nextId
  let core = Core hRef db i params (length params) cols (length cols) (not ro) binds dirty
               rows buf sql
  w <- mkWeakIORef cur (finalizeCore core)
  atomicModifyIORef' (dbStmts db) (\m -> (IM.insert i (w, core) m, ()))
  return (Statement core cur w)

firstRows, initialBuf, cellBudget, maxBuf :: Int
firstRows = 16
initialBuf = 16 * 1024
cellBudget = 64 * 1024
maxBuf = 16 * 1024 * 1024

-- | Finalizes a statement's handle unless that was done already (the GC's finalizer, and
-- 'close' for statements nobody references). Takes the connection's lock.
finalizeCore :: Core -> IO ()
finalizeCore core = mask_ $ withLock (coDb core) $ \_ -> finalizeLocked core

finalizeLocked :: Core -> IO ()
finalizeLocked core = do
  h <- readIORef (coHandle core)
  unless (h == nullPtr) $ do
    writeIORef (coHandle core) nullPtr
    atomicModifyIORef' (dbStmts (coDb core)) (\m -> (IM.delete (coId core) m, ()))
    c_sqlbatch_stmt_finalize h

-- | <https://www.sqlite.org/c3ref/db_handle.html>
getStatementDatabase :: Statement -> IO Database
getStatementDatabase = return . coDb . stCore

-- | <https://www.sqlite.org/c3ref/finalize.html>: destroys the statement, returning the
-- error of its last 'step' if that failed (as @sqlite3_finalize@ does). Finalizing again is
-- a no-op (@Right ()@); every later use of the statement is an 'ErrorMisuse' (and its
-- columns read as NULL).
finalize :: Statement -> IO (Either Error ())
finalize st = mask_ $ do
  r <- withLock (coDb core) $ \_ -> do
    cur <- readIORef (stCursor st)
    writeIORef (stCursor st) Finalized
    finalizeLocked core
    return $ case cur of
      Failed rc -> Left (decodeCode rc)
      _ -> Right ()
  -- The GC's finalizer, now a no-op (the handle is gone), run and dropped here: a weak
  -- pointer with a finalizer costs the GC, and its run later a thread of its own, for every
  -- statement prepared and finalized (an ORM without a statement cache prepares one a row).
  Weak.finalize (stWeak st)
  return r
  where
    core = stCore st

-- | <https://www.sqlite.org/c3ref/reset.html>: rewinds the statement, keeping its
-- bindings; returns the error of the last 'step' if that failed (as @sqlite3_reset@ does).
reset :: Statement -> IO (Either Error ())
reset st = withLock (coDb core) $ \c -> do
  h <- readIORef (coHandle core)
  if h == nullPtr then ownFailure (coDb core) sqliteMisuse else do
    cur <- readIORef (stCursor st)
    case cur of
      Ready -> return (Right ())
      _ -> do
        writeIORef (stCursor st) Ready
        rc <- if c == nullPtr then return sqlbatchOk else c_sqlbatch_stmt_reset h
        if rc /= sqlbatchOk then Left <$> libraryFailure (coDb core) rc else
          return $ case cur of
            Failed e -> Left (decodeCode e)
            _ -> Right ()
  where
    core = stCore st

-- | <https://www.sqlite.org/c3ref/clear_bindings.html>: sets every parameter to NULL
-- (taking effect at the statement's next run).
clearBindings :: Statement -> IO ()
clearBindings st = withLock (coDb core) $ \_ -> do
  writeIORef (coBinds core) IM.empty
  writeIORef (coDirty core) True
  where
    core = stCore st

-- | <https://www.sqlite.org/c3ref/sql.html>: the statement's SQL ('Nothing' once finalized).
statementSql :: Statement -> IO (Maybe Utf8)
statementSql st = do
  h <- readIORef (coHandle (stCore st))
  return (if h == nullPtr then Nothing else Just (coSql (stCore st)))

-- | <https://www.sqlite.org/c3ref/bind_parameter_count.html>: the largest parameter index.
bindParameterCount :: Statement -> IO ParamIndex
bindParameterCount st = return (ParamIndex (coNParams (stCore st)))

-- | <https://www.sqlite.org/c3ref/bind_parameter_name.html>: the name of a parameter with
-- its prefix (@\":v\"@), 'Nothing' for a nameless @?@ or an index out of range.
bindParameterName :: Statement -> ParamIndex -> IO (Maybe Utf8)
bindParameterName st (ParamIndex i)
  | i < 1 || i > coNParams (stCore st) = return Nothing
  | otherwise = return (coParams (stCore st) !! (i - 1))

-- | <https://www.sqlite.org/c3ref/bind_parameter_index.html>: the index of the parameter
-- with exactly this name (prefix included).
bindParameterIndex :: Statement -> Utf8 -> IO (Maybe ParamIndex)
bindParameterIndex st name =
  return $ case [i | (i, Just n) <- zip [1 ..] (coParams (stCore st)), n == name] of
    (i : _) -> Just (ParamIndex i)
    [] -> Nothing

-- | <https://www.sqlite.org/c3ref/column_count.html>
columnCount :: Statement -> IO ColumnCount
columnCount st = return (ColumnIndex (coNCols (stCore st)))

-- | <https://www.sqlite.org/c3ref/column_name.html>: 'Nothing' for an index out of range.
columnName :: Statement -> ColumnIndex -> IO (Maybe Utf8)
columnName st (ColumnIndex i)
  | i < 0 || i >= coNCols (stCore st) = return Nothing
  | otherwise = return (Just (coCols (stCore st) !! i))

-- | Stores a binding: 'ErrorRange' for an index out of @[1, bindParameterCount]@,
-- 'ErrorMisuse' once the statement has run since its last reset (as @sqlite3_bind_*@).
bindValue :: Statement -> ParamIndex -> D.Value -> IO (Either Error ())
bindValue st (ParamIndex i) v = withLock (coDb core) $ \_ -> do
  h <- readIORef (coHandle core)
  cur <- readIORef (stCursor st)
  case cur of
    _ | h == nullPtr -> ownFailure (coDb core) sqliteMisuse
    Ready
      | i < 1 || i > coNParams core -> ownFailure (coDb core) sqliteRange
      | otherwise -> do
          modifyIORef' (coBinds core) (IM.insert i v)
          writeIORef (coDirty core) True
          return (Right ())
    _ -> ownFailure (coDb core) sqliteMisuse
  where
    core = stCore st

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindInt64 :: Statement -> ParamIndex -> Int64 -> IO (Either Error ())
bindInt64 st i x = bindValue st i (D.VInteger x)

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindDouble :: Statement -> ParamIndex -> Double -> IO (Either Error ())
bindDouble st i x = bindValue st i (D.VFloat x)

-- | <https://www.sqlite.org/c3ref/bind_blob.html>: the bytes are copied.
bindText :: Statement -> ParamIndex -> Utf8 -> IO (Either Error ())
bindText st i (Utf8 b) = bindValue st i (D.VText (B.copy b))

-- | <https://www.sqlite.org/c3ref/bind_blob.html>: the bytes are copied.
bindBlob :: Statement -> ParamIndex -> B.ByteString -> IO (Either Error ())
bindBlob st i b = bindValue st i (D.VBlob (B.copy b))

-- | <https://www.sqlite.org/c3ref/bind_blob.html>: a BLOB of @n@ zero bytes (sent as those
-- bytes: the ABI has no zeroblob value).
bindZeroBlob :: Statement -> ParamIndex -> Int -> IO (Either Error ())
bindZeroBlob st i n = bindValue st i (D.VBlob (B.replicate (max 0 n) 0))

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindNull :: Statement -> ParamIndex -> IO (Either Error ())
bindNull st i = bindValue st i D.VNull

-- | <https://www.sqlite.org/c3ref/step.html>: moves to the next row. Reads the current
-- batch (no FFI call) and fetches the next one when it is used up. After 'Done' or a
-- failure, the next 'step' runs the statement again from the start (SQLite's automatic
-- reset).
step :: Statement -> IO (Either Error StepResult)
step st = do
  cur <- readIORef (stCursor st)
  case cur of
    Rows sn -> do
      r <- advancePos (snPos sn)
      if r < snRows sn then return (Right Row) else stepSlow st
    _ -> stepSlow st
{-# INLINE step #-}

-- | The part of 'step' that needs the library, with the connection's lock held.
stepSlow :: Statement -> IO (Either Error StepResult)
stepSlow st = withLock (coDb core) $ \c -> do
  h <- readIORef (coHandle core)
  cur <- readIORef (stCursor st)
  case cur of
    _ | h == nullPtr || c == nullPtr -> ownFailure (coDb core) sqliteMisuse
    Finalized -> ownFailure (coDb core) sqliteMisuse
    Rows sn -> do
      -- Another thread may have fetched meanwhile: the position is taken again.
      p <- readPos (snPos sn)
      if p < snRows sn
        then do
          r <- advancePos (snPos sn)
          if r < snRows sn then return (Right Row) else next c h sn
        else next c h sn
    Ready -> start c h
    Finished -> restart c h
    Failed _ -> restart c h
  where
    core = stCore st
    next c h sn
      | snLast sn = do
          writeIORef (stCursor st) Finished
          return (Right Done)
      | otherwise = fetchBatch c h
    restart c h = do
      rc <- c_sqlbatch_stmt_reset h
      writeIORef (stCursor st) Ready
      if rc /= sqlbatchOk then failWith rc else start c h
    start c h = do
      dirty <- readIORef (coDirty core)
      rc <- if not dirty then return sqlbatchOk else do
        bs <- readIORef (coBinds core)
        let vals = [IM.findWithDefault D.VNull i bs | i <- [1 .. coNParams core]]
        D.withValueParams vals [] $ \pp _ -> c_sqlbatch_stmt_bind h pp
      if rc /= sqlbatchOk
        then Left <$> libraryFailure (coDb core) rc
        else do
          writeIORef (coDirty core) False
          fetchBatch c h
    failWith rc = do
      writeIORef (stCursor st) (Failed rc)
      Left <$> libraryFailure (coDb core) rc
    fetchBatch c h = do
      maxRows <- readIORef (coRows core)
      bufLen <- readIORef (coBuf core)
      let cols = coNCols core
          cellLen = maxRows * cols * valueSize
      fp <- mallocPlainForeignPtrBytes (cellLen + bufLen)
      let base = unsafeForeignPtrToPtr fp
          dat = base `plusPtr` cellLen
      r <- allocaBytes batchSize $ \pb -> do
        rc <- c_hs_sqlbatch_fetch_into c h (fromIntegral maxRows) dat (fromIntegral bufLen)
                (castPtr pb)
        b <- if rc == sqlbatchRow || rc == sqlbatchDone || rc == sqlbatchEBufferTooSmall
               then Just <$> peekBatch (castPtr pb) else return Nothing
        return (rc, b)
      touchForeignPtr fp
      case r of
        (rc, Just b)
          | rc == sqlbatchEBufferTooSmall -> do
              writeIORef (coBuf core) $! grow bufLen (batchDataLen b)
              fetchBatch c h
          | otherwise -> do
              let rows = batchRows b
                  done = rc == sqlbatchDone
              when (rows > 0 && cols > 0) $
                copyBytes base (batchCells b) (rows * cols * valueSize)
              -- The next batch: more rows (up to the budget), and more bytes when the buffer
              -- ended this one.
              unless (coWrites core) $
                writeIORef (coRows core) $! min (maxRowsFor cols) (maxRows * 4)
              when (not done && rows < maxRows && bufLen < maxBuf) $
                writeIORef (coBuf core) $! min maxBuf (bufLen * 4)
              if rows == 0
                then do
                  writeIORef (stCursor st) Finished
                  return (Right Done)
                else do
                  pos <- newPos
                  writeIORef (stCursor st) $! Rows (Snap fp base dat (batchDataLen b) rows cols done pos)
                  return (Right Row)
        (rc, Nothing) -> failWith rc
    grow have need = head [x | x <- iterate (* 2) (max 1024 have), x >= need]

-- | Rows per batch of a statement with this many columns: about 'cellBudget' bytes of cells.
maxRowsFor :: Int -> Int
maxRowsFor cols = max 16 (min 16384 (cellBudget `quot` (valueSize * max 1 cols)))

------------------------------------------------------------------------------------------
-- Reading the current row

-- | Reads cell @i@ of the current row: @k snap cell kind@, or the default for no row (the
-- statement has not stepped to a row, has finished, or the index is out of range: SQLite
-- then returns a NULL value).
withCell :: Statement -> Int -> a -> (Snap -> Ptr Word8 -> Word8 -> IO a) -> IO a
withCell st i dflt k = do
  cur <- readIORef (stCursor st)
  case cur of
    Rows sn | i >= 0 && i < snCols sn -> do
      r <- readPos (snPos sn)
      if r >= snRows sn then return dflt else do
        let cell = snCells sn `plusPtr` ((r * snCols sn + i) * valueSize)
        kind <- peekByteOff cell valueKindOff
        x <- k sn cell kind
        touchForeignPtr (snFP sn)
        return x
    _ -> return dflt
{-# INLINE withCell #-}

-- | <https://www.sqlite.org/c3ref/column_blob.html>: the storage class of a value of the
-- current row.
columnType :: Statement -> ColumnIndex -> IO ColumnType
columnType st (ColumnIndex i) = withCell st i NullColumn $ \_ _ k -> return $! kindType k
{-# INLINE columnType #-}

kindType :: Word8 -> ColumnType
kindType k = case k of
  1 -> IntegerColumn
  2 -> FloatColumn
  3 -> TextColumn
  4 -> BlobColumn
  _ -> NullColumn
{-# INLINE kindType #-}

-- | The value as an integer, converted as @sqlite3_column_int64@ does.
columnInt64 :: Statement -> ColumnIndex -> IO Int64
columnInt64 st (ColumnIndex i) = withCell st i 0 $ \sn cell k ->
  if k == kindInteger then peekByteOff cell valueBitsOff
  else if k == kindNull then return 0
  else convert sn cell kindInteger (\v -> peekByteOff v valueBitsOff) (return 0)
{-# INLINE columnInt64 #-}

-- | The value as a double, converted as @sqlite3_column_double@ does.
columnDouble :: Statement -> ColumnIndex -> IO Double
columnDouble st (ColumnIndex i) = withCell st i 0 $ \sn cell k ->
  if k == kindFloat then peekByteOff cell valueBitsOff
  else if k == kindNull then return 0
  else convert sn cell kindFloat (\v -> peekByteOff v valueBitsOff) (return 0)
{-# INLINE columnDouble #-}

-- | The value's text as UTF-8 bytes, converted as @sqlite3_column_text@ does (a number's
-- SQLite rendering; a BLOB's bytes as they are; empty for NULL).
columnText :: Statement -> ColumnIndex -> IO Utf8
columnText st i = Utf8 <$> columnBytes st i
{-# INLINE columnText #-}

-- | The value's bytes, converted as @sqlite3_column_blob@ does.
columnBlob :: Statement -> ColumnIndex -> IO B.ByteString
columnBlob = columnBytes
{-# INLINE columnBlob #-}

columnBytes :: Statement -> ColumnIndex -> IO B.ByteString
columnBytes st (ColumnIndex i) = withCell st i B.empty $ \sn cell k ->
  if k == kindText || k == kindBlob then cellBytes sn cell
  else if k == kindNull then return B.empty
  else convert sn cell kindText (\v -> do
         len <- fromIntegral <$> (peekByteOff v valueLenOff :: IO Word32)
         off <- peekByteOff v valueBitsOff :: IO Word64
         if len == 0 then return B.empty
           else B.packCStringLen (castPtr (v `plusPtr` (valueSize + fromIntegral off)), len))
         (return B.empty)
{-# INLINE columnBytes #-}

-- | A copy of a TEXT or BLOB cell's bytes.
cellBytes :: Snap -> Ptr Word8 -> IO B.ByteString
cellBytes sn cell = do
  len <- fromIntegral <$> (peekByteOff cell valueLenOff :: IO Word32)
  off <- peekByteOff cell valueBitsOff :: IO Word64
  if len == 0 then return B.empty else
    BI.create len $ \dst -> copyBytes dst (snData sn `plusPtr` fromIntegral off) len
{-# INLINE cellBytes #-}

-- | The value's text decoded to 'Text' straight from the batch (one C call), with @onBad@
-- given the bytes when they are not valid UTF-8. Numbers are rendered as
-- @sqlite3_column_text@ does; NULL is empty.
columnTextWith :: (B.ByteString -> IO Text) -> Statement -> ColumnIndex -> IO Text
columnTextWith onBad st ci@(ColumnIndex i) = withCell st i T.empty $ \sn cell k ->
  if k == kindText || k == kindBlob
    then do
      len <- fromIntegral <$> (peekByteOff cell valueLenOff :: IO Word32)
      off <- peekByteOff cell valueBitsOff :: IO Word64
      decodeUtf8Fresh (snData sn `plusPtr` fromIntegral off) len (cellBytes sn cell >>= onBad)
    else if k == kindNull then return T.empty
    else do
      b <- columnBytes st ci
      return $! TE.decodeUtf8 b
{-# INLINE columnTextWith #-}

-- | Converts a cell with @sqlbatch_value_convert@ (exactly SQLite's conversions) and reads
-- the result with @rd@, given the address of the out value, which is followed by the
-- conversion buffer (where a number's rendering goes).
convert :: Snap -> Ptr Word8 -> Word8 -> (Ptr Word8 -> IO a) -> IO a -> IO a
convert sn cell to rd dflt = allocaBytes (valueSize + convertBufSize) $ \out -> do
  let buf = out `plusPtr` valueSize
  rc <- c_sqlbatch_value_convert (castPtr cell) (snData sn) (fromIntegral (snDataLen sn)) to
          (castPtr out) buf (fromIntegral convertBufSize)
  if rc /= sqlbatchOk then dflt else do
    k <- peekByteOff out valueKindOff :: IO Word8
    if k == kindNull then dflt else rd out
{-# NOINLINE convert #-}
