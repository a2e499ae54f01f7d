{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLite3.Internal
-- Description : The implementation under "Database.SQLite3" and "Database.SQLite3.Direct"
--
-- direct-sqlite's per-row API (@step@ returns 'Row' or 'Done', @column*@ read the current
-- row) over the package's one connection and statement ("Database.SQLBatch.Internal.Core"),
-- served from sqlbatch's batches. Nothing here is needed by a program written against
-- direct-sqlite; the module is exposed for the few who want the cursor's internals.
--
-- = How a statement runs
--
-- A statement is a /cursor/ over a snapshot of one batch: 'step' moves to the next row of
-- the snapshot with one increment (no FFI call, no lock; an atomic add when several
-- capabilities run Haskell code in parallel, see 'advancePos'), and the @column*@ functions
-- read the snapshot's cells in Haskell memory. Only when the snapshot is used up does 'step'
-- cross the FFI: it takes the connection's lock and calls @sqlbatch_stmt_fetch_into@ (an
-- interruptible call) for the next batch, whose cells and bytes are copied into a fresh
-- garbage-collected buffer ('fetchSnapshot'). A snapshot is never written again once
-- published, so a thread that still reads an old one reads valid memory, whatever other
-- threads do to the statement meanwhile.
--
-- A read-only statement (@sqlbatch_stmt_readonly@) fetches 16 rows first, then four times
-- as many per batch up to about 64 KiB of cells (which stay in the CPU's cache while they
-- are copied and read). A statement that writes fetches one row per batch, so its side
-- effects (changes, the last insert rowid, triggers) happen at the 'step' at which
-- direct-sqlite would make them.
--
-- = Threads
--
-- Every call is safe from any number of threads: calls that reach the library hold the
-- connection's lock; 'step' on a snapshot claims its row atomically, so each row goes to
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
  , openEncryptedWith
  , close
  , errcode
  , extendedErrcode
  , errmsg
  , setExtendedResultCodes
  , setLoadExtensionEnabled
  , setSharedCacheEnabled
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
  , bindTextOwned
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

import Control.Exception (mask_, onException)
import Control.Monad (forM, forM_, when)
import Data.Bits ((.&.), (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.IORef
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.C.Types (CBool (..), CSize)
import Foreign.ForeignPtr (touchForeignPtr)
import Foreign.Marshal.Alloc (alloca, allocaBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.Ptr (Ptr, castPtr, nullPtr, plusPtr, wordPtrToPtr)
import Foreign.Storable (Storable, peek, peekByteOff)
import GHC.Float (castWord64ToDouble)
import System.IO.Unsafe (unsafePerformIO)
import System.Mem (performMajorGC)
import Control.Concurrent (myThreadId)
import Control.Concurrent.MVar (putMVar, takeMVar, tryTakeMVar)

import Database.SQLBatch.Direct (Utf8 (..), Value (..))
import Database.SQLBatch.Error (Error (..))
import Database.SQLBatch.Internal.Core hiding (statementSql)
import qualified Database.SQLBatch.Internal.Core as Core
import Database.SQLBatch.Internal.Slots (recordSlot, slotCount)
import Database.SQLBatch.Internal.Facts (factEncoding, factParamCount, readFact, writeFact)
import Database.SQLBatch.Internal.Text (decodeUtf8Fresh)
import Database.SQLBatch.Raw
import Database.SQLBatch.Raw.Extra (c_sqlbatch_conn_enable_load_extension, c_sqlbatch_conn_encoding)
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Types (ColumnType (..), Query (..), SQLData (..))
import Database.SQLite3.Bindings.Types (ColumnCount, ColumnIndex (..), ParamIndex (..))

------------------------------------------------------------------------------------------
-- Types (direct-sqlite's)

-- | What 'step' did.
data StepResult
  = Row   -- ^ a row is ready: read it with the @column*@ functions
  | Done  -- ^ the statement has finished
  deriving (Eq, Show)

------------------------------------------------------------------------------------------
-- Connections

-- | Open flags, SQLite's @SQLITE_OPEN_*@ bits (as @sqlite3_open_v2@ takes them).
type OpenFlags = Int

-- | <https://www.sqlite.org/c3ref/open.html>: read-write, created if missing.
open :: Utf8 -> IO (Either (Error, Utf8) Database)
open path = openWith path 0

-- | Opens with @SQLITE_OPEN_*@ flags (0: read-write, created if missing). The flags sqlbatch
-- does not take (@NOMUTEX@, which is its default, and the VFS-only ones) are dropped;
-- @SQLITE_OPEN_EXRESCODE@ makes the connection report extended result codes (as
-- 'setExtendedResultCodes').
openWith :: Utf8 -> OpenFlags -> IO (Either (Error, Utf8) Database)
openWith = openKeyed Nothing

-- | 'openWith' for a database encrypted with the key and cipher settings (the encrypted
-- build; see "Database.SQLite3"'s @openEncrypted@). The key is passed to the library in
-- place, not copied ('openDatabaseWith').
openEncryptedWith :: Utf8 -> OpenFlags -> B.ByteString -> Cipher -> IO (Either (Error, Utf8) Database)
openEncryptedWith path flags key cipher = openKeyed (Just (key, cipher)) path flags

-- | 'openWith' and 'openEncryptedWith'.
openKeyed :: Maybe (B.ByteString, Cipher) -> Utf8 -> OpenFlags -> IO (Either (Error, Utf8) Database)
openKeyed key (Utf8 path) flags = do
  shared <- readIORef sharedCache
  let cache = if shared && flags .&. (openSharedCacheBit .|. openPrivateCacheBit) == 0
        then openSharedCacheBit else 0
  r <- openDatabaseWith key path ((fromIntegral flags .|. fromIntegral cache) .&. accepted) False False
  case r of
    Right db -> do
      when extended $ writeIORef (dbExtended db) True
      return (Right db)
    Left (rc, msg) -> return (Left (decodeCode extended rc, Utf8 msg))
  where
    extended = flags .&. openExResCode /= 0
    accepted = openReadOnly .|. openReadWrite .|. openCreate .|. openUri .|. openMemory
      .|. openFullMutex .|. openSharedCache .|. openPrivateCache .|. openNoFollow .|. openUntrusted

-- | @SQLITE_OPEN_EXRESCODE@, @SQLITE_OPEN_SHAREDCACHE@, @SQLITE_OPEN_PRIVATECACHE@.
openExResCode, openSharedCacheBit, openPrivateCacheBit :: Int
openExResCode = 0x02000000
openSharedCacheBit = 0x00020000
openPrivateCacheBit = 0x00040000

{-# NOINLINE sharedCache #-}
sharedCache :: IORef Bool
sharedCache = unsafePerformIO (newIORef False)

-- | <https://www.sqlite.org/c3ref/enable_shared_cache.html>: whether the connections opened
-- from now on (by this module, without @SQLITE_OPEN_SHAREDCACHE@ or
-- @SQLITE_OPEN_PRIVATECACHE@) share their page cache with the other connections of the
-- process to the same database. Off at first, as in SQLite.
setSharedCacheEnabled :: Bool -> IO (Either Error ())
setSharedCacheEnabled on = Right () <$ writeIORef sharedCache on

-- | <https://www.sqlite.org/c3ref/enable_load_extension.html>: whether the connection may
-- load extensions (SQL's @load_extension()@ stays off; "Database.SQLBatch.Extension" loads
-- them). Off when a connection opens.
setLoadExtensionEnabled :: Database -> Bool -> IO (Either Error ())
setLoadExtensionEnabled db on = withLock db $ \c ->
  if c == nullPtr then ownFailure db sqliteMisuse else do
    rc <- c_sqlbatch_conn_enable_load_extension c (CBool (if on then 1 else 0))
    if rc == sqlbatchOk then return (Right ()) else Left <$> libraryFailure db rc

-- | <https://www.sqlite.org/c3ref/close.html>. As @sqlite3_close@, returns 'ErrorBusy' (and
-- leaves the connection open) while a statement of the connection is not finalized, such
-- as one that runs on another thread at that moment: 'close' never waits for a query.
-- Statements nobody references any more do not count: 'close' finalizes them (running the
-- garbage collector once if live-looking statements remain). Closing a closed connection
-- is a no-op (@Right ()@).
close :: Database -> IO (Either Error ())
close db = notInHook db >> do
  -- The statements prepared last are registered first ('registerYoung'), so that they
  -- are counted (or finalized, if nobody references them).
  (_, young) <- ageYoungNow db
  busy <- (+ young) <$> liveStatementsWith (finalizeHandle db) db
  busy' <- if busy == 0 then return 0
    else performMajorGC >> (+ young) <$> liveStatementsWith (finalizeHandle db) db
  if busy' > 0
    then ownFailureMsg db sqliteBusy closeBusy
    else do
      -- A script ('exec') may be running: stop it, then wait for the lock.
      interruptDatabase db
      mask_ $ do
        takeMVar (dbLock db)
        r <- (do
          isOpen <- readIORef (dbOpen db)
          if not isOpen then return (Right ()) else do
            _ <- ageYoung db
            n <- liveStatementsWith (finalizeHandleLocked db) db
            if n > 0 then ownFailureMsg db sqliteBusy closeBusy else do
              putMVar (dbLock db) ()
              closeDatabase db
              takeMVar (dbLock db)
              return (Right ()))
          `onException` putMVar (dbLock db) ()
        putMVar (dbLock db) ()
        return r
  where
    closeBusy = "unable to close due to unfinalized statements or unfinished backups"

-- | The number of the connection's statements that are neither finalized nor unreachable;
-- the unreachable ones are finalized on the way (after a collection, if statements
-- prepared last had to be registered for it: see 'registerYoung').
liveStatements :: Database -> IO Int
liveStatements db = do
  -- Whether a statement prepared last ('registerYoung') is unreachable takes a collection
  -- once it is registered.
  (aged, young) <- ageYoungNow db
  when aged performMajorGC
  (+ young) <$> liveStatementsWith (finalizeHandle db) db

-- | Registers the connection's young statements ('registerYoung', 'ageYoung') if its lock
-- is free at once: whether one was registered. Never waits ('close' never waits for a
-- query): with the lock taken, the young statements stay as they are and the second
-- figure counts those not finalized (as live: another thread is using the connection).
ageYoungNow :: Database -> IO (Bool, Int)
ageYoungNow db = mask_ $ do
  free <- tryTakeMVar (dbLock db)
  case free of
    Just () -> do
      aged <- ageYoung db `onException` putMVar (dbLock db) ()
      putMVar (dbLock db) ()
      return (aged, 0)
    Nothing -> do
      young <- readIORef (dbYoung db)
      hs <- mapM statementHandle young
      return (False, length (filter (/= nullPtr) hs))

-- | <https://www.sqlite.org/c3ref/errcode.html>: the code of the last failure on the
-- connection (sqlbatch keeps it until the next failure: successful calls do not reset it);
-- an extended code only if the connection reports those ('setExtendedResultCodes').
errcode :: Database -> IO Error
errcode db = do
  ext <- readIORef (dbExtended db)
  lastCode db (decodeCode ext)

-- | <https://www.sqlite.org/c3ref/errcode.html>: the extended code of the last failure on
-- the connection, whether the connection reports extended codes or not.
extendedErrcode :: Database -> IO Error
extendedErrcode db = lastCode db (decodeCode True)

lastCode :: Database -> (Int32 -> Error) -> IO Error
lastCode db dec = do
  own <- readIORef (dbOwnError db)
  case own of
    Just (rc, _) -> return (dec rc)
    Nothing -> withLock db $ \c ->
      if c == nullPtr then return ErrorMisuse else allocaBytes errorSize $ \pe -> do
        _ <- c_sqlbatch_conn_last_error c (castPtr pe)
        dec . cerrCode <$> peekError (castPtr pe)

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

-- | <https://www.sqlite.org/c3ref/extended_result_codes.html>: whether the failures of this
-- connection report SQLite's extended result codes ('ErrorConstraintUnique') or the primary
-- ones ('ErrorConstraint', the default, as a connection of direct-sqlite reports them).
-- Fails with 'ErrorMisuse' on a closed connection.
setExtendedResultCodes :: Database -> Bool -> IO (Either Error ())
setExtendedResultCodes db on = withLock db $ \c ->
  if c == nullPtr then ownFailure db sqliteMisuse else do
    writeIORef (dbExtended db) on
    return (Right ())

-- | <https://www.sqlite.org/c3ref/interrupt.html>: makes the SQL running on the connection
-- (on another thread) stop with 'ErrorInterrupt' as soon as possible. Returns at once; a
-- no-op on a closed connection.
interrupt :: Database -> IO ()
interrupt = interruptDatabase

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
exec db sql =
  -- The locked section's action puts the lock back itself ('lockedReleasing'), so that the
  -- call leaves one frame of its own under the mask's ('execIn').
  withLockReleasing db True
    (\_ isOpen -> execIn db sql True (if isOpen then dbHandle db else nullPtr))
    (execIn db sql False)

-- | 'exec' with the connection's handle ('nullPtr' if closed), in its locked section if
-- @locked@ (the lock put back last), else in a hook of the connection.
execIn :: Database -> Utf8 -> Bool -> Ptr CConn -> IO (Either (Error, Utf8) ())
execIn db (Utf8 sql) locked c = do
  r <- if c == nullPtr then Left <$> closedPair db else case keptIndex sql of
    -- A transaction statement, byte for byte: the connection's kept one ('runKept').
    Just i -> do
      rc <- runKept db c i
      if rc == sqlbatchDone || rc == sqlbatchRow then return (Right ()) else failed rc
    Nothing -> BU.unsafeUseAsCStringLen sql $ \(p, n) -> do
      rc <- c_hs_sqlbatch_exec c p (fromIntegral n) nullPtr nullPtr
      if rc == sqlbatchOk then return (Right ()) else failed rc
  when locked $ unlock db
  return r
  where
    failed rc = do
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
      let loop names = do
            s <- step st
            case s of
              Left e -> return (Left e)
              Right Done -> return (Right ())
              Right Row -> do
                n <- columnCount st
                -- The names, once per statement (after its first step, which may have
                -- prepared it again).
                ns <- case names of
                  Just ns -> return ns
                  Nothing -> forM [0 .. n - 1] $ \i -> maybe (Utf8 B.empty) id <$> columnName st i
                vals <- forM [0 .. n - 1] $ \i -> do
                  t <- columnType st i
                  if t == NullColumn then return Nothing else Just <$> columnText st i
                cb n ns vals
                loop (Just ns)
      loop Nothing

------------------------------------------------------------------------------------------
-- Statements

-- | <https://www.sqlite.org/c3ref/prepare.html>: compiles the first statement of the SQL
-- ('Nothing' if it holds none, only whitespace and comments).
prepare :: Database -> Utf8 -> IO (Either Error (Maybe Statement))
prepare db sql = fmap fst <$> prepareTail db sql

-- | Like 'prepare', also giving the byte offset where the next statement starts.
prepareTail :: Database -> Utf8 -> IO (Either Error (Maybe Statement, Int))
prepareTail db (Utf8 sql) =
  -- The locked section's action puts the lock back itself ('lockedReleasing'), so that the
  -- prepare's safe call leaves one frame of its own under the mask's.
  withLockReleasing db True
    (\_ isOpen -> prepareIn db sql True (if isOpen then dbHandle db else nullPtr))
    (prepareIn db sql False)

-- | 'prepareTail' on a connection's handle ('nullPtr' if closed), in its locked section if
-- @locked@ (the lock put back last), else in a hook of the connection. In the locked
-- section the out values go to the connection's scratch (no buffer allocated); in a hook
-- the scratch may be the hooked call's.
prepareIn :: Database -> B.ByteString -> Bool -> Ptr CConn -> IO (Either Error (Maybe Statement, Int))
prepareIn db sql locked c
  | c == nullPtr = do
      r <- ownFailure db sqliteMisuse
      when locked $ unlock db
      return r
  | otherwise = withScratch db (not locked) 16 (prepareAt db sql locked c)

-- | 'prepareIn' with 16 bytes for the out values (the handle, the tail's offset): the
-- library's prepare (a safe call), then the statement, registered with its parameter count
-- (an unsafe call: the binds check it, and without it the first one would take the lock).
-- Puts the lock back last if @locked@.
prepareAt :: Database -> B.ByteString -> Bool -> Ptr CConn -> Ptr Word8
          -> IO (Either Error (Maybe Statement, Int))
prepareAt db sql locked c outs = do
  let out = castPtr outs :: Ptr (Ptr CStmt)
      tailp = castPtr (outs `plusPtr` 8) :: Ptr CSize
  rc <- BU.unsafeUseAsCStringLen sql $ \(p, n) ->
    c_sqlbatch_stmt_prepare c p (fromIntegral n) 0 out tailp
  r <- if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
    h <- peek out
    tl <- fromIntegral <$> peek tailp
    if h == nullPtr then return (Right (Nothing, tl)) else do
      st <- newStatement db h (Query (TE.decodeUtf8With TE.lenientDecode sql)) sql
      -- SQL of only whitespace and comments gives an empty statement: no statement for
      -- direct-sqlite.
      empty <- if startsStatement sql then return False else B.null <$> Core.statementSql st c
      if empty
        then do
          _ <- finalizeLocked st
          return (Right (Nothing, tl))
        else do
          registerYoung st
          -- The parameter count, its out value where the prepare's were.
          _ <- statementParamCountAt st h (castPtr outs)
          return (Right (Just st, tl))
  when locked $ unlock db
  return r

-- | Whether SQL text surely begins with a statement: its first byte after ASCII white space
-- is a letter, @(@ or a digit (no comment, no lone @;@ before it). When False the library
-- is asked whether the prepared statement is empty.
startsStatement :: B.ByteString -> Bool
startsStatement b = go 0
  where
    n = B.length b
    go !i
      | i >= n = False
      | w == 32 || (w >= 9 && w <= 13) = go (i + 1)
      | otherwise = (w >= 65 && w <= 90) || (w >= 97 && w <= 122) || w == 40 || (w >= 48 && w <= 57)
      where
        w = BU.unsafeIndex b i

-- | <https://www.sqlite.org/c3ref/db_handle.html>
getStatementDatabase :: Statement -> IO Database
getStatementDatabase = return . stDb

-- | <https://www.sqlite.org/c3ref/finalize.html>: destroys the statement, returning the
-- error of its last 'step' if that failed (as @sqlite3_finalize@ does). Finalizing again is
-- a no-op (@Right ()@); every later use of the statement is an 'ErrorMisuse' (and its
-- columns read as NULL).
finalize :: Statement -> IO (Either Error ())
finalize st = do
  run <- finalizeCore st
  ext <- readIORef (dbExtended (stDb st))
  return $ case run of
    Failed rc -> Left (decodeCode ext rc)
    _ -> Right ()

-- | <https://www.sqlite.org/c3ref/reset.html>: rewinds the statement, keeping its
-- bindings; returns the error of the last 'step' if that failed (as @sqlite3_reset@ does).
-- A statement that ran to its end is only marked: its next run rewinds it in the same call.
reset :: Statement -> IO (Either Error ())
reset st = do
  -- Without the lock when there is nothing to do but mark the statement (one
  -- compare-and-swap of its run state): a live statement that is not in the middle of a
  -- run.
  h <- statementHandle st
  run <- readIORef (stRun st)
  if h == nullPtr || running run then resetLocked st else case run of
    Ready -> return (Right ())
    Failed _ -> resetLocked st
    _ -> do
      ok <- casIORef (stRun st) run Rewind
      if ok then return (Right ()) else resetLocked st
{-# INLINE reset #-}

-- | 'reset' with the lock held.
resetLocked :: Statement -> IO (Either Error ())
resetLocked st = withLockQuick db $ \c -> do
  h <- statementHandle st
  if h == nullPtr then ownFailure db sqliteMisuse else do
    run <- readIORef (stRun st)
    if not (running run)
      then do
        case run of
          Ready -> return ()
          _ -> writeIORef (stRun st) Rewind
        return (Right ())
      else do
        writeIORef (stRun st) Ready
        rc <- if c == nullPtr then return sqlbatchOk else c_sqlbatch_stmt_reset h
        if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
          ext <- readIORef (dbExtended db)
          return $ case run of
            Failed e -> Left (decodeCode ext e)
            _ -> Right ()
  where
    db = stDb st

-- | <https://www.sqlite.org/c3ref/clear_bindings.html>: sets every parameter to NULL
-- (taking effect at the statement's next run).
clearBindings :: Statement -> IO ()
clearBindings st = withLock (stDb st) $ \_ -> do
  n <- statementParamCount st
  settleSlots st
  slots <- readIORef (stSlots st)
  forM_ [1 .. min n (slotCount slots)] $ \i -> recordSlot slots i VNull

-- | <https://www.sqlite.org/c3ref/sql.html>: the statement's SQL ('Nothing' once finalized).
statementSql :: Statement -> IO (Maybe Utf8)
statementSql st = withLock (stDb st) $ \c -> do
  h <- statementHandle st
  if h == nullPtr then return Nothing else Just . Utf8 <$> Core.statementSql st c

-- | <https://www.sqlite.org/c3ref/bind_parameter_count.html>: the largest parameter index.
bindParameterCount :: Statement -> IO ParamIndex
bindParameterCount st = do
  cached <- readFact (stFacts st) factParamCount
  if cached >= 0 then return (ParamIndex cached)
    else ParamIndex <$> withLock (stDb st) (\_ -> statementParamCount st)

paramNames :: Statement -> IO [Maybe Utf8]
paramNames st = do
  cached <- knownParams st
  case cached of
    Just ns -> return ns
    Nothing -> withLock (stDb st) (\_ -> statementParamNames st)

-- | <https://www.sqlite.org/c3ref/bind_parameter_name.html>: the name of a parameter with
-- its prefix (@\":v\"@), 'Nothing' for a nameless @?@ or an index out of range.
bindParameterName :: Statement -> ParamIndex -> IO (Maybe Utf8)
bindParameterName st (ParamIndex i) = do
  ns <- paramNames st
  return $ if i < 1 || i > length ns then Nothing else ns !! (i - 1)

-- | <https://www.sqlite.org/c3ref/bind_parameter_index.html>: the index of the parameter
-- with exactly this name (prefix included).
bindParameterIndex :: Statement -> Utf8 -> IO (Maybe ParamIndex)
bindParameterIndex st name = do
  ns <- paramNames st
  return $ case [i | (i, Just n) <- zip [1 ..] ns, n == name] of
    (i : _) -> Just (ParamIndex i)
    [] -> Nothing

columnNames :: Statement -> IO [Utf8]
columnNames st = do
  cached <- knownCols st
  case cached of
    Just ns -> return ns
    Nothing -> withLock (stDb st) (\_ -> statementColumnNames st)

-- | <https://www.sqlite.org/c3ref/column_count.html>: the columns of the current row, or of
-- the statement as SQLite last prepared it (after a schema change, SQLite prepares a
-- statement again at its next run, and its columns follow).
columnCount :: Statement -> IO ColumnCount
columnCount st = do
  run <- readIORef (stRun st)
  case run of
    Rows sn -> return (ColumnIndex (snCols sn))
    _ -> ColumnIndex . length <$> columnNames st

-- | <https://www.sqlite.org/c3ref/column_name.html>: 'Nothing' for an index out of range.
columnName :: Statement -> ColumnIndex -> IO (Maybe Utf8)
columnName st (ColumnIndex i) = do
  ns <- columnNames st
  return $ if i < 0 || i >= length ns then Nothing else Just (ns !! i)

-- | Stores a binding: 'ErrorRange' for an index out of @[1, bindParameterCount]@,
-- 'ErrorMisuse' once the statement has run since its last reset (as @sqlite3_bind_*@).
bindValue :: Statement -> ParamIndex -> Value -> IO (Either Error ())
bindValue st (ParamIndex i) v = do
  -- The common case without the lock: a live statement between runs, its parameter count
  -- known, the index in range. The binding is only recorded here, atomically (the
  -- statement's next run sends it), so nothing of the library's is touched; anything else
  -- (the count to ask for, an error to record) takes the lock. A bind racing with a step
  -- of the same statement on another thread is kept for the run after (SQLite would refuse
  -- it with SQLITE_MISUSE or take it before the step; neither loses it).
  h <- statementHandle st
  slots <- readIORef (stSlots st)
  run <- readIORef (stRun st)
  whole <- readIORef (stWhole st)
  let ready = startsRun run
      settled = case whole of
        InSlots -> True
        _ -> False
  if h /= nullPtr && ready && settled && i >= 1 && i <= slotCount slots
    then Right () <$ recordSlot slots i v
    else bindValueLocked st i v
{-# INLINE bindValue #-}

-- | 'bindValue' with the lock held.
bindValueLocked :: Statement -> Int -> Value -> IO (Either Error ())
bindValueLocked st i v = withLock db $ \_ -> do
  h <- statementHandle st
  run <- readIORef (stRun st)
  if h == nullPtr || not (startsRun run) then ownFailure db sqliteMisuse else do
    n <- statementParamCount st
    if i < 1 || i > n then ownFailure db sqliteRange else do
      settleSlots st
      slots <- readIORef (stSlots st)
      Right () <$ recordSlot slots i v
  where
    db = stDb st

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindInt64 :: Statement -> ParamIndex -> Int64 -> IO (Either Error ())
bindInt64 st i x = bindValue st i (VInteger x)
{-# INLINE bindInt64 #-}

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindDouble :: Statement -> ParamIndex -> Double -> IO (Either Error ())
bindDouble st i x = bindValue st i (VFloat x)
{-# INLINE bindDouble #-}

-- | <https://www.sqlite.org/c3ref/bind_blob.html>: the bytes are copied.
bindText :: Statement -> ParamIndex -> Utf8 -> IO (Either Error ())
bindText st i (Utf8 b) = bindValue st i (VText (B.copy b))

-- | 'bindText' of bytes that nothing else holds (a 'Text' just encoded): not copied.
bindTextOwned :: Statement -> ParamIndex -> Utf8 -> IO (Either Error ())
bindTextOwned st i (Utf8 b) = bindValue st i (VText b)
{-# INLINE bindTextOwned #-}

-- | <https://www.sqlite.org/c3ref/bind_blob.html>: the bytes are copied.
bindBlob :: Statement -> ParamIndex -> B.ByteString -> IO (Either Error ())
bindBlob st i b = bindValue st i (VBlob (B.copy b))

-- | <https://www.sqlite.org/c3ref/bind_blob.html>: a BLOB of @n@ zero bytes (sent as those
-- bytes: the ABI has no zeroblob value).
bindZeroBlob :: Statement -> ParamIndex -> Int -> IO (Either Error ())
bindZeroBlob st i n = bindValue st i (VBlob (B.replicate (max 0 n) 0))

-- | <https://www.sqlite.org/c3ref/bind_blob.html>
bindNull :: Statement -> ParamIndex -> IO (Either Error ())
bindNull st i = bindValue st i VNull
{-# INLINE bindNull #-}

-- | <https://www.sqlite.org/c3ref/step.html>: moves to the next row. Reads the current
-- batch (no FFI call) and fetches the next one when it is used up. After 'Done' or a
-- failure, the next 'step' runs the statement again from the start (SQLite's automatic
-- reset).
step :: Statement -> IO (Either Error StepResult)
step st = do
  cur <- readIORef (stRun st)
  case cur of
    Rows sn -> do
      r <- advancePos (snPos sn)
      if r < snRows sn then return (Right Row)
        else if snLast sn then stepEnd st cur
        else stepSlow st
    _ -> stepSlow st
{-# INLINE step #-}

-- | The step past the last row of a snapshot that ended the result: 'Done', without the
-- lock (one compare-and-swap of the run state to 'Finished') while the connection is open.
stepEnd :: Statement -> Run -> IO (Either Error StepResult)
stepEnd st cur = do
  isOpen <- readIORef (dbOpen (stDb st))
  ok <- if isOpen then casIORef (stRun st) cur Finished else return False
  if ok then return (Right Done) else stepSlow st
{-# NOINLINE stepEnd #-}

-- | The part of 'step' that needs the library, with the connection's lock held: the
-- locked section's action ('lockedReleasing'), which puts the lock back itself, so that a
-- fetch leaves one frame of its own under the mask's. (No exception to raise after it:
-- the errors are returned.)
stepSlow :: Statement -> IO (Either Error StepResult)
stepSlow st =
  withLockReleasing db True
    (\_ isOpen -> stepIn st True (if isOpen then dbHandle db else nullPtr))
    (stepIn st False)
  where
    db = stDb st

-- | 'stepSlow' on a connection's handle ('nullPtr' if closed), in its locked section if
-- @locked@ (the lock put back last), else in a hook of the connection.
stepIn :: Statement -> Bool -> Ptr CConn -> IO (Either Error StepResult)
stepIn st locked c = do
  h <- statementHandle st
  if h == nullPtr || c == nullPtr then ownFailure db sqliteMisuse >>= out else do
    cur <- readIORef (stRun st)
    case cur of
      Rows sn -> do
        -- Another thread may have fetched meanwhile: the position is taken again.
        p <- readPos (snPos sn)
        if p < snRows sn
          then do
            r <- advancePos (snPos sn)
            if r < snRows sn then out (Right Row) else next h sn
          else next h sn
      Finished -> restart h
      Failed _ -> restart h
      _ -> fetch h
  where
    db = stDb st
    out r = do
      when locked $ unlock db
      return r
    next h sn
      | snLast sn = do
          writeIORef (stRun st) Finished
          out (Right Done)
      | otherwise = fetch h
    -- SQLite's automatic reset: the fetch rewinds the statement first.
    restart h = writeIORef (stRun st) Rewind >> fetch h
    fetch h = do
      rc <- fetchSnapshot st c h
      if rc == sqlbatchRow then out (Right Row)
        else if rc == sqlbatchDone then out (Right Done)
        else libraryFailure db rc >>= out . Left

------------------------------------------------------------------------------------------
-- Reading the current row

-- | Reads cell @i@ of the current row: @k snap cell kind@, or the default for no row (the
-- statement has not stepped to a row, has finished, or the index is out of range: SQLite
-- then returns a NULL value).
withCell :: Statement -> Int -> a -> (Snap -> Ptr Word8 -> Word8 -> IO a) -> IO a
withCell st i dflt k = do
  cur <- readIORef (stRun st)
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
  else convertNumber st sn cell k kindInteger
{-# INLINE columnInt64 #-}

-- | The value as a double, converted as @sqlite3_column_double@ does.
columnDouble :: Statement -> ColumnIndex -> IO Double
columnDouble st (ColumnIndex i) = withCell st i 0 $ \sn cell k ->
  if k == kindFloat then peekByteOff cell valueBitsOff
  else if k == kindNull then return 0
  else convertNumber st sn cell k kindFloat
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

-- | A cell of kind @k@ read as a number of kind @to@ (INTEGER or FLOAT), converted as
-- @sqlite3_column_int64@ and @sqlite3_column_double@ convert it: a BLOB's bytes are text of
-- the database's encoding ('blobEncoding'). 0 if the library refuses the value.
convertNumber :: (Storable a, Num a) => Statement -> Snap -> Ptr Word8 -> Word8 -> Word8 -> IO a
convertNumber st sn cell k to = do
  flag <- if k == kindBlob then blobEncoding st else return 0
  convert sn cell (to .|. flag) (\v -> peekByteOff v valueBitsOff) (return 0)
{-# NOINLINE convertNumber #-}

-- | The @SQLBATCH_CONVERT_UTF16*@ flag of the connection's text encoding (0 for UTF-8), asked
-- of the library (@sqlbatch_conn_encoding@, under the lock) once a run, when a run first
-- reads a BLOB as a number. From a hook of the connection, which may not use it, and on a
-- closed connection: 0.
blobEncoding :: Statement -> IO Word8
blobEncoding st = do
  cached <- readFact (stFacts st) factEncoding
  if cached >= 0 then return (fromIntegral cached) else do
    let db = stDb st
    hs <- readIORef (dbHookThreads db)
    inHook' <- if null hs then return False else (`elem` map fst hs) <$> myThreadId
    if inHook' then return 0 else do
      r <- withLockQuick db $ \c -> if c == nullPtr then return Nothing else alloca $ \p -> do
        rc <- c_sqlbatch_conn_encoding c p
        if rc /= sqlbatchOk then return Nothing else do
          enc <- peek p
          return $ Just $ if enc == encodingUtf16le then convertUtf16le
            else if enc == encodingUtf16be then convertUtf16be
            else 0
      case r of
        Nothing -> return 0
        Just flag -> do
          writeFact (stFacts st) factEncoding (fromIntegral flag)
          return flag

-- | @SQLBATCH_ENCODING_UTF16LE@ and @_UTF16BE@, and the flags of @sqlbatch_value_convert@
-- for them (@SQLBATCH_CONVERT_UTF16LE@, @_UTF16BE@).
encodingUtf16le, encodingUtf16be :: Int32
encodingUtf16le = 2
encodingUtf16be = 3
convertUtf16le, convertUtf16be :: Word8
convertUtf16le = 64
convertUtf16be = 128

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

