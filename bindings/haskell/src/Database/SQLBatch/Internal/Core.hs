{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE UnboxedTuples #-}
{-# OPTIONS_HADDOCK not-home #-}
-- |
-- Module      : Database.SQLBatch.Internal.Core
-- Description : The one connection and statement under every API of the package
--
-- "Database.SQLBatch" (and "Database.SQLite.Simple") and "Database.SQLite3" (and
-- "Database.SQLite3.Direct") are two faces of the objects defined here: one 'Database' (a
-- connection: its handle, its one lock, its worker's job, its hooks, its statements) and
-- one 'Statement' (its handle, its one run state, its metadata, its buffers). Each face
-- adds only its own shape: direct-sqlite's @Either@s and per-row @step@, sqlite-simple's
-- row parsers and exceptions. So a connection or statement of one face is usable through the
-- other (@connectionHandle@, @unStatement@), and both see the same state.
--
-- Exposed for the faces and for new combinators; the names here may change between
-- versions.
--
-- = The lock
--
-- Connections are opened without SQLite's mutex (the header's thread model: the caller
-- serializes), so every call into the library on a connection, or on one of its
-- statements, blobs, backups or sessions, holds the connection's lock ('withLock',
-- 'withDb') for that one call. The lock is taken under 'mask' and the call runs with
-- asynchronous exceptions restored, so that an interruptible call can be interrupted and
-- the lock is never left taken. A hook or SQL function runs while the call that fired it
-- holds the lock: a hook's thread is registered ('inHook'), and its use of the connection
-- throws 'HookReentry' instead of waiting for its own lock.
--
-- = The run state
--
-- A statement's 'Run' says where its run stands, for both faces: 'Ready' (prepared or
-- reset), 'Rewind' (ran to its end, then reset here only: the next fetch rewinds it in the
-- same call), 'Rows' (direct-sqlite's @step@ reads a snapshot of a batch), 'Running'
-- (somewhere in the middle: a fold between batches, a bulk write), 'Finished' (ran to its end)
-- or 'Failed'. Calls on a statement that is not in the middle of a run do no I/O, and are
-- @unsafe@ foreign calls; the others are @safe@.
module Database.SQLBatch.Internal.Core
  ( -- * Connections
    Database (..)
  , Job (..)
  , fetchAheadAvailable
  , openDatabase
  , openDatabaseWith
  , closeDatabase
  , interruptDatabase
  , rawDatabase
  , dbIdent
  , keptSql
  , keptIndex
  , runKept
  , withScratch
  , SqlText (..)
  , sqlText
  , withBytes
    -- * Encryption
  , cipherVersion
  , rekeyHandle
  , exportHandle
    -- * The lock
  , withLock
  , withLocks
  , withDb
  , withDbAhead
  , lockedQuick
  , lockedReleasing
  , withLockReleasing
  , unlock
  , restoreIf
  , withLockQuick
  , withDbQuick
  , throwAfter
  , settle
  , notInHook
    -- * Errors
  , throwSQL
  , closedError
  , libraryMessage
  , libraryFailure
  , ownFailure
  , ownFailureMsg
  , codeText
  , decodeCode
  , sqliteMisuse
  , sqliteRange
  , sqliteBusy
    -- * Hooks
  , HookReentry (..)
  , runHook
  , inHook
  , takeHookException
    -- * Statements
  , Statement (..)
  , knownParams
  , knownCols
  , Run (..)
  , Whole (..)
  , noSlots
  , knowParamCount
  , settleSlots
  , Snap (..)
  , Pos
  , newPos
  , readPos
  , advancePos
  , prepareCore
  , detachedStatement
  , newStatement
  , registerStatement
  , registerYoung
  , ageYoung
  , finalizeHandle
  , finalizeHandleLocked
  , finalizeCore
  , finalizeLocked
  , liveStatementsWith
  , statementHandle
  , statementSql
  , contextOf
  , statementParamNames
  , statementParamCount
  , statementParamCountAt
  , statementMayNameParams
  , mayNameParams
  , statementColumnNames
  , statementWrites
  , setStatementFetchAhead
  , cancelAhead
  , running
  , startsRun
  , casIORef
    -- * Reading batches
  , Fetcher
  , newFetcher
  , freeFetcher
  , withFetcher
  , acquireFetcher
  , releaseFetcher
  , takeFetcher
  , putFetcher
  , foldBudget
  , collectBudget
  , BatchView (..)
  , BatchCtx (..)
  , nextBatch
  , snapshotView
  , fetchSnapshot
  ) where

import Control.Concurrent (ThreadId, myThreadId, rtsSupportsBoundThreads)
import Control.Concurrent.MVar
import Control.Exception
import Control.Monad (forM, forM_, unless, when)
import Data.Bits (complement, (.&.), (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32)
import Data.IORef
import qualified Data.IntMap.Strict as IM
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word16, Word32, Word64, Word8)
import Foreign.C.String (peekCString)
import Foreign.C.Types (CBool (..), CChar, CSize)
import Foreign.ForeignPtr (ForeignPtr, castForeignPtr, touchForeignPtr)
import Foreign.ForeignPtr.Unsafe (unsafeForeignPtrToPtr)
import Foreign.Marshal.Alloc (alloca, allocaBytes)
import Foreign.Marshal.Utils (copyBytes, fillBytes)
import Foreign.Ptr (Ptr, castPtr, minusPtr, nullPtr, plusPtr, ptrToWordPtr)
import Foreign.Storable (peek, peekByteOff, peekElemOff, pokeByteOff, pokeElemOff, sizeOf)
import GHC.Exts (Int (..), MutableByteArray#, RealWorld, casMutVar#, fetchAddIntArray#,
                 getMaskingState#, maskAsyncExceptions#, newByteArray#, readIntArray#, touch#,
                 writeIntArray#, (+#))
import GHC.Float (castDoubleToWord64)
import GHC.ForeignPtr (mallocPlainForeignPtrBytes)
import GHC.IO (IO (..), unIO, unsafeUnmask)
import GHC.IORef (IORef (..))
import GHC.STRef (STRef (..))
import System.IO.Unsafe (unsafePerformIO)
import System.Mem.Weak (Weak, deRefWeak)
import qualified System.Mem.Weak as Weak

import Database.SQLBatch.Direct (Utf8 (..), Value (..))
import qualified Database.SQLBatch.Direct as D
import Database.SQLBatch.Error
import Database.SQLBatch.Internal.Rows (TableValue, bindTables, tableOfBlob)
import Database.SQLBatch.Internal.Facts
import Database.SQLBatch.Internal.Slots
import Database.SQLBatch.Internal.Text
import Database.SQLBatch.Raw
import Database.SQLBatch.Raw.Extra (c_sqlbatch_cipher_version, c_sqlbatch_conn_export,
                                    c_sqlbatch_conn_open_encrypted, c_sqlbatch_conn_rekey,
                                    rtsCapabilities)
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Types (Query (..))

------------------------------------------------------------------------------------------
-- Connections

-- | A connection: the one object behind "Database.SQLBatch"'s @Connection@ (its
-- @connectionHandle@) and "Database.SQLite3"'s @Database@. Every function on it may be
-- called from any thread.
data Database = Database
  { dbHandle :: {-# UNPACK #-} !(Ptr CConn)
    -- ^ The library's handle; valid while 'dbOpen' is True.
  , dbLock :: {-# UNPACK #-} !(MVar ())
    -- ^ Held during every call into the library (the header's thread model).
  , dbOpen :: {-# UNPACK #-} !(IORef Bool)
    -- ^ False once closed; written with the lock and the guard held.
  , dbGuard :: {-# UNPACK #-} !(MVar ())
    -- ^ Held by the close and by 'interruptDatabase', which must not run at the same time.
  , dbJob :: {-# UNPACK #-} !(IORef Job)
    -- ^ What the connection's worker thread may be running; written with the lock held.
  , dbHookThreads :: {-# UNPACK #-} !(IORef [(ThreadId, Maybe (Ptr CConn))])
    -- ^ The Haskell threads running a hook of this connection now, each with the handle it
    -- may use (the WAL hook's, which SQLite lets run SQL) or 'Nothing' (every other hook:
    -- using the connection throws 'HookReentry' instead of waiting for its own lock).
  , dbFetchAhead :: !Bool
    -- ^ Opened with 'D.OpenFetchAhead' (and the threaded RTS): statements fetch ahead.
  , dbWriteBehind :: !Bool
    -- ^ Opened with 'D.OpenWriteBehind' (and the threaded RTS): bulk writes write behind.
  , dbPath :: !Text
  , dbId :: {-# UNPACK #-} !Int
  , dbStmts :: !(IORef (IM.IntMap (Weak (IORef Run), Facts)))
    -- ^ The registered statements not finalized yet (those of "Database.SQLite3" and
    -- @openStatement@), by id: the key of the one's finalizer, and its facts, which hold
    -- its handle ('readHandle'; not the statement, which would keep the key alive).
    -- Written with the lock held.
  , dbOwnError :: !(IORef (Maybe (Int32, B.ByteString)))
    -- ^ The last failure detected here (misuse, an index out of range), shown by
    -- direct-sqlite's @errmsg@ until the library reports a newer one.
  , dbHookError :: !(IORef (Maybe SomeException))
    -- ^ The first exception a hook threw that nobody has taken yet.
  , dbExtended :: !(IORef Bool)
    -- ^ Whether "Database.SQLite3" reports extended result codes
    -- (@setExtendedResultCodes@, @SQLOpenExResCode@).
  , dbKept :: !(ForeignPtr (Ptr CStmt))
    -- ^ The transaction statements kept prepared ('runKept'): one handle for each of
    -- 'keptSql', NULL until prepared; written with the lock held, finalized by the close.
  , dbScratchFP :: !(ForeignPtr Word8)
    -- ^ Owns 'dbScratch'.
  , dbScratch :: {-# UNPACK #-} !(Ptr Word8)
    -- ^ 'scratchBytes' bytes for the out values of calls made with the lock held.
  , dbSql :: {-# UNPACK #-} !(IORef SqlText)
    -- ^ The last SQL text run through 'sqlText', with its UTF-8 bytes.
  , dbCallsBack :: {-# UNPACK #-} !(IORef Bool)
    -- ^ Set (for good) once a callback that SQLite may call while any statement steps or is
    -- prepared again (a trace, a progress handler, an authorizer, any hook) has been
    -- registered on the connection: 'runKept' then makes even a @BEGIN@ a safe call.
  , dbYoung :: !(IORef [Statement])
    -- ^ The last statements "Database.SQLite3" prepared ('registerYoung'), newest first, at
    -- most two: not registered yet. Written with the lock held.
  }

instance Eq Database where
  a == b = dbId a == dbId b

instance Show Database where
  show d = "Database <" ++ show (dbId d) ++ ">"

-- | What a connection's worker thread may be running (see "Database.SQLBatch.Raw",
-- \"Fetch-ahead and write-behind\"): while it may run anything, the next call on the
-- connection first waits for it with one interruptible call, so that no @unsafe@ call ever
-- waits.
data Job
  = NoJob
    -- ^ nothing: every call since the last job was launched waited for it
  | AheadJob {-# UNPACK #-} !(Ptr CStmt)
    -- ^ the next batch of this statement, stepped ahead by its last fetch
  | WriteJob {-# UNPACK #-} !(Ptr CStmt)
    -- ^ a bulk write queued on this statement
  deriving (Eq, Show)

-- | Whether fetch-ahead and write-behind can be used: only under the threaded RTS
-- ('rtsSupportsBoundThreads'). Callbacks the worker thread runs (SQL functions, collations,
-- the trace, progress and busy handlers) are calls into Haskell from a thread the RTS did
-- not start, which the non-threaded RTS cannot take; there the options are accepted and
-- ignored, and everything runs synchronously.
fetchAheadAvailable :: Bool
fetchAheadAvailable = rtsSupportsBoundThreads

{-# NOINLINE counter #-}
counter :: Pos
counter = unsafePerformIO newPos

-- | A number unique in the process (an atomic add).
nextId :: IO Int
nextId = case counter of
  Pos mba -> IO $ \s -> case fetchAddIntArray# mba 0# 1# s of
    (# s1, i #) -> (# s1, I# (i +# 1#) #)

-- | Opens a connection: @openDatabase path flags fetchAhead writeBehind@, the flags as the
-- library takes them (@SQLBATCH_OPEN_*@). On failure, the code and the message (the
-- library's, or the code's text). A connection nobody references any more is closed by the
-- garbage collector.
openDatabase :: B.ByteString -> Word32 -> Bool -> Bool -> IO (Either (Int32, B.ByteString) Database)
openDatabase = openDatabaseWith Nothing

-- | 'openDatabase', with a key and cipher settings when given: @sqlbatch_conn_open_encrypted@
-- in place of @sqlbatch_conn_open@, and otherwise the same. The key's bytes are passed to
-- the library where they are (a 'B.ByteString' is pinned memory), not copied: nothing of
-- the key is left here to wipe, and the library keeps no copy either (SQLCipher keeps the
-- key it derives, and wipes it when the connection closes). A build without encryption
-- fails with @SQLBATCH_E_UNSUPPORTED@, and a key or settings the library refuses with
-- @SQLBATCH_E_INVALID_ARGUMENT@, each with the library's message (on a handle that was
-- never open, which it gives for that).
openDatabaseWith :: Maybe (B.ByteString, Cipher) -> B.ByteString -> Word32 -> Bool -> Bool
  -> IO (Either (Int32, B.ByteString) Database)
openDatabaseWith key path flags0 ahead0 behind0 = do
  _ <- c_hs_sqlbatch_ensure_handler
  let ahead = ahead0 && fetchAheadAvailable
      behind = behind0 && fetchAheadAvailable
      flags = if ahead then flags0 else flags0 .&. complement openFetchAhead
  BU.unsafeUseAsCStringLen path $ \(p, n) -> alloca $ \out -> do
    rc <- case key of
      Nothing -> c_sqlbatch_conn_open p (fromIntegral n) flags out
      Just (k, cipher) -> withBytesOrNull k $ \kp kn -> withCCipher cipher $ \cp ->
        c_sqlbatch_conn_open_encrypted p (fromIntegral n) flags kp kn cp out
    c <- peek out
    if rc == sqlbatchOk
      then do
        lock <- newMVar ()
        openRef <- newIORef True
        guard <- newMVar ()
        job <- newIORef NoJob
        hooks <- newIORef []
        stmts <- newIORef IM.empty
        own <- newIORef Nothing
        herr <- newIORef Nothing
        ext <- newIORef False
        kept <- newKept
        sfp <- mallocPlainForeignPtrBytes scratchBytes
        sql <- newIORef noSqlText
        calls <- newIORef False
        young <- newIORef []
        i <- nextId
        let db = Database c lock openRef guard job hooks ahead behind
                   (TE.decodeUtf8With TE.lenientDecode path) i stmts own herr ext kept sfp
                   (unsafeForeignPtrToPtr sfp) sql calls young
        -- A backstop only: connections should be closed.
        _ <- mkWeakIORef openRef (closeDatabase db)
        return (Right db)
      else do
        msg <- if c == nullPtr then return (codeText rc) else libraryMessage c rc
        c_sqlbatch_conn_close c
        return (Left (rc, msg))

------------------------------------------------------------------------------------------
-- Encryption

-- | The version of SQLCipher in an encrypted build of the library (@\"4.20.0 community\"@),
-- or 'Nothing' in a build without encryption (where every key call fails with
-- @SQLBATCH_E_UNSUPPORTED@): which of the two builds the program is linked with.
cipherVersion :: IO (Maybe Text)
cipherVersion = do
  p <- c_sqlbatch_cipher_version
  if p == nullPtr then return Nothing else Just . T.pack <$> peekCString p

-- | @sqlbatch_conn_rekey@ on a handle (the caller holds the connection's lock): database
-- @schema@ (UTF-8; empty: @\"main\"@) re-encrypted with the key, which is passed in place as
-- by 'openDatabaseWith'. The status; the details are the connection's last error.
rekeyHandle :: Ptr CConn -> B.ByteString -> B.ByteString -> IO Int32
rekeyHandle c schema key = withBytesOrNull schema $ \sp sl -> withBytesOrNull key $ \kp kn ->
  c_sqlbatch_conn_rekey c sp sl kp kn

-- | @sqlbatch_conn_export@ on a handle (the caller holds the connection's lock): database
-- @schema@ (empty: @\"main\"@) copied into a new file at the path (UTF-8), encrypted with
-- the key and settings, or plain for an empty key. The status; the details are the
-- connection's last error.
exportHandle :: Ptr CConn -> B.ByteString -> B.ByteString -> B.ByteString -> Cipher -> IO Int32
exportHandle c schema path key cipher = withBytesOrNull schema $ \sp sl ->
  BU.unsafeUseAsCStringLen path $ \(pp, pl) -> withBytesOrNull key $ \kp kn -> withCCipher cipher $ \cp ->
    c_sqlbatch_conn_export c sp sl pp (fromIntegral pl) kp kn cp

-- | Closes the connection, waiting for a call running on it to end (a batch stepped ahead
-- is dropped; a queued write runs to its end). Idempotent. Statements still open on it
-- then fail ('ErrorClosed', or direct-sqlite's 'ErrorMisuse').
closeDatabase :: Database -> IO ()
closeDatabase db = uninterruptibleMask_ $ do
  takeMVar (dbLock db)
  -- The statements prepared last get their finalizer, as the others have (a statement
  -- outlives its connection: its calls then fail).
  _ <- ageYoung db
  takeMVar (dbGuard db)
  open <- readIORef (dbOpen db)
  when open $ do
    writeIORef (dbOpen db) False
    job <- readIORef (dbJob db)
    case job of
      AheadJob _ -> c_sqlbatch_conn_interrupt (dbHandle db)
      _ -> return ()
    c_sqlbatch_conn_close (dbHandle db)
    let kept = unsafeForeignPtrToPtr (dbKept db)
    forM_ [0 .. length keptSql - 1] $ \k -> do
      h <- peekElemOff kept k
      unless (h == nullPtr) $ do
        pokeElemOff kept k nullPtr
        c_sqlbatch_stmt_finalize_unsafe h
    touchForeignPtr (dbKept db)
    writeIORef (dbJob db) NoJob
  putMVar (dbGuard db) ()
  putMVar (dbLock db) ()

-- | Makes the SQL running on the connection (on any thread) stop with 'ErrorInterrupt' as
-- soon as possible. Returns at once; a no-op on a closed connection.
interruptDatabase :: Database -> IO ()
interruptDatabase db = withMVar (dbGuard db) $ \_ -> do
  o <- readIORef (dbOpen db)
  when o $ c_sqlbatch_conn_interrupt (dbHandle db)

-- | The handle in the layer below ("Database.SQLBatch.Direct"): valid while the connection
-- is open; calls on it must hold the lock.
rawDatabase :: Database -> D.Database
rawDatabase = D.Database . dbHandle

-- | The connection's identity (unique in the process).
dbIdent :: Database -> Int
dbIdent = dbId

-- | SQL text, its UTF-8 bytes, and whether it might name or number a parameter
-- ('mayNameParams'; computed when first asked).
data SqlText = SqlText !Text !B.ByteString Bool

-- | The text of no SQL.
noSqlText :: SqlText
noSqlText = SqlText T.empty B.empty False
{-# NOINLINE noSqlText #-}

-- | The UTF-8 bytes of SQL text to run on the connection, and whether it might name a
-- parameter. The connection keeps the last text it was given with its bytes, so that a
-- program running the same SQL again and again (sqlite-simple's @execute@ in a loop)
-- encodes it and scans it for parameter names once: a repeat costs a comparison of the
-- two texts. Any thread may call it: the kept value is replaced whole.
sqlText :: Database -> Text -> IO SqlText
sqlText db t = do
  m@(SqlText t0 _ _) <- readIORef (dbSql db)
  if t0 == t then return m else do
    let !b = TE.encodeUtf8 t
        m' = SqlText t b (mayNameParams b)
    writeIORef (dbSql db) m'
    return m'

-- | The address and length of a 'B.ByteString''s bytes for the duration of an action
-- that returns (a foreign call and what follows it): 'BU.unsafeUseAsCStringLen' without
-- the frame and the closure that its @keepAlive#@ costs (GHC 9.0), the bytes kept alive
-- by a @touch#@ after the action instead. Not for an action that may loop or always
-- throws, after which GHC may drop the @touch#@.
withBytes :: B.ByteString -> (Ptr CChar -> Int -> IO a) -> IO a
withBytes (BI.PS fp off len) k = do
  r <- k (unsafeForeignPtrToPtr fp `plusPtr` off) len
  touchForeignPtr fp
  return r
{-# INLINE withBytes #-}

-- | Bytes of 'dbScratch': out values at 0 (64 bytes), then the data buffer of a first
-- snapshot ('fetchSnapshot') at 'scratchData', of 'scratchDataLen' bytes.
scratchBytes, scratchData, scratchDataLen :: Int
scratchBytes = scratchData + scratchDataLen
scratchData = 64
scratchDataLen = 4096

-- | @k@ given @need@ bytes for a call made with the lock held: the connection's scratch, or
-- a temporary buffer if @hooked@ (in a hook of the connection the scratch may be the hooked
-- call's) or if the scratch is too small.
withScratch :: Database -> Bool -> Int -> (Ptr Word8 -> IO a) -> IO a
withScratch db hooked need k
  | not hooked && need <= scratchBytes = k (dbScratch db) <* touchForeignPtr (dbScratchFP db)
  | otherwise = allocaBytes need k
{-# INLINE withScratch #-}

------------------------------------------------------------------------------------------
-- Statements kept prepared

-- | The transaction statements a connection keeps prepared, once used: run by 'runKept'
-- (@withTransaction@'s, and direct-sqlite's @exec@ of exactly one of these texts) instead
-- of being compiled again by @sqlbatch_conn_exec@ at every call, which is most of the cost
-- of a @BEGIN@ or a @COMMIT@. SQLite prepares them again itself when the schema changes;
-- nothing else about them is observable (they are not the program's statements, and
-- direct-sqlite's @close@ does not count them).
keptSql :: [B.ByteString]
keptSql = map (TE.encodeUtf8 . T.pack)
  [ "BEGIN", "COMMIT", "ROLLBACK", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE", "BEGIN DEFERRED"
  , "BEGIN TRANSACTION", "COMMIT TRANSACTION", "ROLLBACK TRANSACTION", "END"
  , "END TRANSACTION" ]
{-# NOINLINE keptSql #-}

-- | Whether the kept statement of index @i@ is a deferred @BEGIN@ (@BEGIN@, @BEGIN DEFERRED@,
-- @BEGIN TRANSACTION@), which 'runKept' may run with an unsafe call.
quickKept :: Int -> Bool
quickKept i = i == 0 || i == 5 || i == 6
{-# INLINE quickKept #-}

-- | A connection's 'dbKept': no statement prepared yet.
newKept :: IO (ForeignPtr (Ptr CStmt))
newKept = do
  let bytes = length keptSql * sizeOf nullPtr
  fp <- mallocPlainForeignPtrBytes bytes
  fillBytes (unsafeForeignPtrToPtr fp) 0 bytes
  return (castForeignPtr fp)

-- | The index of SQL text in 'keptSql', if it is one of them (byte for byte).
keptIndex :: B.ByteString -> Maybe Int
keptIndex sql
  | B.length sql > 20 = Nothing
  | otherwise = go 0 keptSql
  where
    go !_ [] = Nothing
    go !i (k : ks) = if k == sql then Just i else go (i + 1) ks

-- | Runs the kept statement of index @i@ ('keptIndex') once, with the lock held (the open
-- connection's handle given), preparing it first if this connection has not yet: one
-- interruptible call (@hs_sqlbatch_rewind_fetch_into@: reset, then step). The library's
-- status: 'sqlbatchDone' (or 'sqlbatchRow') when it ran, else its error (the connection's
-- last error tells more, as after @sqlbatch_conn_exec@).
--
-- A deferred @BEGIN@ ('quickKept') already prepared is one unsafe call instead: SQLite only
-- turns autocommit off (or fails at once, inside a transaction); it takes no lock, touches
-- no file and waits for nothing, so it cannot block the capability. Not when SQLite may call
-- back into Haskell while it steps ('dbCallsBack': a trace, a progress handler, an
-- authorizer when the statement is prepared again), which an unsafe call must not allow,
-- nor inside a hook of the connection.
runKept :: Database -> Ptr CConn -> Int -> IO Int32
runKept db c i = do
  hs <- readIORef (dbHookThreads db)
  let hooked = not (null hs)
  withScratch db hooked 64 (runKeptAt db c i hooked)
-- INLINE, and 'runKeptAt' too: the caller's work after the call (the status read, the lock
-- put back: 'lockedReleasing') joins the call's continuation, the one frame of the call.
{-# INLINE runKept #-}

runKeptAt :: Database -> Ptr CConn -> Int -> Bool -> Ptr Word8 -> IO Int32
runKeptAt db c i hooked out = do
  let kept = unsafeForeignPtrToPtr (dbKept db)
  h0 <- peekElemOff kept i
  e <- if h0 /= nullPtr then return (Right h0) else
    BU.unsafeUseAsCStringLen (keptSql !! i) $ \(p, n) -> do
      rc <- c_sqlbatch_stmt_prepare c p (fromIntegral n) (prepareSingle .|. preparePersistent)
              (castPtr out) nullPtr
      if rc /= sqlbatchOk then return (Left rc) else do
        h <- peek (castPtr out)
        pokeElemOff kept i h
        return (Right h)
  r <- case e of
    Left rc -> return rc
    Right h -> do
      quick <- if hooked || h0 == nullPtr || not (quickKept i) then return False
        else not <$> readIORef (dbCallsBack db)
      if quick then c_hs_sqlbatch_rewind_step_quick h (castPtr out)
        else c_hs_sqlbatch_rewind_fetch_into c h 1 nullPtr 0 (castPtr out)
  touchForeignPtr (dbKept db)
  return r
{-# INLINE runKeptAt #-}

------------------------------------------------------------------------------------------
-- The lock

-- | Runs an action with the connection's lock, giving it the handle, or 'nullPtr' if the
-- connection is closed; waits for the worker's job first. Inside a hook of this connection
-- the lock is not taken: the WAL hook gets the connection's handle, every other hook a
-- 'HookReentry' exception.
withLock :: Database -> (Ptr CConn -> IO a) -> IO a
withLock db k = do
  hs <- readIORef (dbHookThreads db)
  if null hs then lockedWith db True (\open -> k (if open then dbHandle db else nullPtr))
    else inHookThread db hs k (lockedWith db True (\open -> k (if open then dbHandle db else nullPtr)))
{-# INLINE withLock #-}

-- | The lock's common path: under 'mask', the lock taken, the action run with asynchronous
-- exceptions restored (given whether the connection is open), the lock put back. With
-- @wait@, the worker's job is waited for first (an open connection only).
lockedWith :: Database -> Bool -> (Bool -> IO a) -> IO a
lockedWith db wait k = mask $ \restore -> do
  takeMVar (dbLock db)
  r <- restore (do
         open <- readIORef (dbOpen db)
         when (wait && open) $ settleJob db
         k open)
       `onException` putMVar (dbLock db) ()
  putMVar (dbLock db) ()
  return r
{-# INLINE lockedWith #-}

-- | The lock around an action that never throws (it returns its errors): the lock taken
-- under 'mask_', the action run masked (given whether the connection is open), the lock put
-- back. With @wait@, the worker's job is waited for first (an open connection only).
--
-- Cheaper than 'lockedWith' (no handler, no unmasking inside), and as interruptible: an
-- @interruptible@ foreign call is interrupted by an asynchronous exception also while
-- exceptions are masked (by 'mask', not by 'uninterruptibleMask'), and the runtime raises
-- that exception once the mask ends, after the lock is back, so the lock is never left
-- taken. A failing call must therefore not throw its error from inside (use 'throwAfter'
-- outside): an exception of the action would leave the lock taken.
lockedQuick :: Database -> Bool -> (Bool -> IO a) -> IO a
lockedQuick db wait k = mask_ (lockedMasked db wait k)
{-# INLINE lockedQuick #-}

-- | 'lockedQuick' without its mask, for a caller that has masked exceptions already
-- ('finalizeCore', uninterruptibly): the lock taken, the action run (given whether the
-- connection is open), the lock put back.
lockedMasked :: Database -> Bool -> (Bool -> IO a) -> IO a
lockedMasked db wait k = do
  open <- takeLock db wait
  r <- k open
  unlock db
  return r
{-# INLINE lockedMasked #-}

-- | 'lockedQuick' for an action that puts the lock back itself ('unlock'), on every path,
-- before anything that can throw; the action is the section's last call. So a safe call
-- in the action, with the work after it (the lock's release included) in the call's
-- continuation, has just that continuation and the mask's frame under it on the stack,
-- which the runtime walks at every safe call (@threadPaused@). The action is given whether
-- the section masked exceptions itself (the caller's were unmasked) and whether the
-- connection is open. It runs masked to its end, also after the lock is back: what must
-- run as after the section (a 'throwAfter', another call) goes through 'restoreIf'.
lockedReleasing :: Database -> Bool -> (Bool -> Bool -> IO a) -> IO a
lockedReleasing db wait k = IO $ \s -> case getMaskingState# s of
  (# s1, 0# #) -> maskAsyncExceptions# (unIO (section True)) s1
  (# s1, _ #) -> unIO (section False) s1
  where
    section masked = takeLock db wait >>= k masked
{-# INLINE lockedReleasing #-}

-- | 'lockedReleasing' (given the section's action), or in a thread that runs hooks of the
-- connection the other action, with the handle ('inHookThread'), neither locked nor masked
-- by this. 'lockedReleasing' is written in each branch: one shared action would be a
-- closure allocated per call.
withLockReleasing :: Database -> Bool -> (Bool -> Bool -> IO a) -> (Ptr CConn -> IO a) -> IO a
withLockReleasing db wait section hooked = do
  hs <- readIORef (dbHookThreads db)
  if null hs then lockedReleasing db wait section
    else inHookThread db hs hooked (lockedReleasing db wait section)
{-# INLINE withLockReleasing #-}

-- | Takes the connection's lock (the caller masks exceptions) and, with @wait@ and the
-- connection open, waits for the worker's job ('settleJob'); whether the connection is open.
takeLock :: Database -> Bool -> IO Bool
takeLock db wait = do
  takeMVar (dbLock db)
  open <- readIORef (dbOpen db)
  when (wait && open) $ settleJob db
  return open
{-# INLINE takeLock #-}

-- | Puts the connection's lock back ('lockedReleasing').
unlock :: Database -> IO ()
unlock db = putMVar (dbLock db) ()
{-# INLINE unlock #-}

-- | An action in a 'lockedReleasing' section as if after it: unmasked if the section
-- masked exceptions itself (given 'True'), else as it is.
restoreIf :: Bool -> IO a -> IO a
restoreIf masked act = if masked then unsafeUnmask act else act
{-# INLINE restoreIf #-}

-- | 'withLock' for an action that never throws ('lockedQuick').
withLockQuick :: Database -> (Ptr CConn -> IO a) -> IO a
withLockQuick db k = do
  hs <- readIORef (dbHookThreads db)
  if null hs then lockedQuick db True (\open -> k (if open then dbHandle db else nullPtr))
    else inHookThread db hs k (lockedQuick db True (\open -> k (if open then dbHandle db else nullPtr)))
{-# INLINE withLockQuick #-}

-- | 'withDb' for an action that never throws ('lockedQuick'): 'Left' the error of a closed
-- connection, else the action's result.
withDbQuick :: Database -> Bool -> Text -> (Ptr CConn -> IO (Either SQLError a)) -> IO (Either SQLError a)
withDbQuick db wait ctx k = do
  hs <- readIORef (dbHookThreads db)
  if null hs then lockedQuick db wait run
    else inHookThread db hs k (lockedQuick db wait run)
  where
    run open = if open then k (dbHandle db) else return (Left (closedError ctx))
{-# INLINE withDbQuick #-}

-- | Throws the error of a call made under 'lockedQuick', after letting an asynchronous
-- exception that interrupted the call be raised first (the call's own error, such as
-- 'ErrorInterrupt', is then not what the caller sees): what an exception thrown during the
-- call, with exceptions unmasked, gives.
throwAfter :: Exception e => e -> IO a
throwAfter e = interruptible (return ()) >> throwIO e
{-# NOINLINE throwAfter #-}

-- | A call from a thread that runs hooks of some connection: this one's (no lock, the WAL
-- hook's handle or 'HookReentry'), or another's (the usual path).
inHookThread :: Database -> [(ThreadId, Maybe (Ptr CConn))] -> (Ptr CConn -> IO a) -> IO a -> IO a
inHookThread _ hs k usual = do
  t <- myThreadId
  case lookup t hs of
    Nothing -> usual
    Just (Just c) -> k c
    Just Nothing -> throwIO HookReentry
{-# NOINLINE inHookThread #-}

-- | Both connections' locks, always taken in the same order (by id), so that two threads
-- running backups in opposite directions cannot deadlock. The two must differ.
withLocks :: Database -> Database -> (Ptr CConn -> Ptr CConn -> IO a) -> IO a
withLocks a b k
  | dbId a <= dbId b = withLock a $ \ca -> withLock b $ \cb -> k ca cb
  | otherwise = withLock b $ \cb -> withLock a $ \ca -> k ca cb

-- | Runs one call into the library with the connection's lock held, after waiting for the
-- worker's job; throws 'SQLError' 'ErrorClosed' (with this context) if the connection is
-- closed. The action runs with asynchronous exceptions unmasked, so that an interruptible
-- call in it can be interrupted.
withDb :: Database -> Text -> (Ptr CConn -> IO a) -> IO a
withDb db ctx k = do
  hs <- readIORef (dbHookThreads db)
  if null hs then lockedWith db True run else inHookThread db hs k (lockedWith db True run)
  where
    run open = if open then k (dbHandle db) else throwIO (closedError ctx)
{-# INLINE withDb #-}

-- | 'withDb' that does not wait for the connection's worker first: for calls that are
-- @safe@ (interruptible) and wait for it themselves, and that keep 'dbJob' up to date
-- (the fetch, the bulk write's start and wait).
withDbAhead :: Database -> Text -> (Ptr CConn -> IO a) -> IO a
withDbAhead db ctx k = do
  hs <- readIORef (dbHookThreads db)
  if null hs then lockedWith db False run else inHookThread db hs k (lockedWith db False run)
  where
    run open = if open then k (dbHandle db) else throwIO (closedError ctx)
{-# INLINE withDbAhead #-}

-- | Waits (one interruptible call) for the job the connection's worker may be running.
-- With the lock held.
settle :: Database -> IO ()
settle db = do
  _ <- c_hs_sqlbatch_settle (dbHandle db)
  writeIORef (dbJob db) NoJob
{-# NOINLINE settle #-}

-- | 'settle' if the connection's worker may be running a job. With the lock held.
settleJob :: Database -> IO ()
settleJob db = do
  job <- readIORef (dbJob db)
  case job of
    NoJob -> return ()
    _ -> settle db
{-# INLINE settleJob #-}

-- | Throws 'HookReentry' when called from a hook of the connection.
notInHook :: Database -> IO ()
notInHook db = do
  hs <- readIORef (dbHookThreads db)
  unless (null hs) $ do
    t <- myThreadId
    when (maybe False (const True) (lookup t hs)) (throwIO HookReentry)

------------------------------------------------------------------------------------------
-- Errors

-- | Throws an 'SQLError' built from the connection's last error. Call it with the lock held.
throwSQL :: Database -> Int32 -> Text -> IO a
throwSQL db rc ctx = D.errorFrom (rawDatabase db) rc ctx >>= throwIO

-- | The error of a call on a closed connection.
closedError :: Text -> SQLError
closedError ctx =
  SQLError ErrorClosed 1006 "the connection is closed" ctx Nothing Nothing Nothing Nothing

-- | SQLite's English text of a code, as @sqlite3_errstr@ gives it.
codeText :: Int32 -> B.ByteString
codeText rc = unsafePerformIO (TE.encodeUtf8 . T.pack <$> (c_sqlbatch_code_str rc >>= peekCString))
{-# NOINLINE codeText #-}

-- | The message of the connection's last failure (the code's text if there is none).
libraryMessage :: Ptr CConn -> Int32 -> IO B.ByteString
libraryMessage c rc = allocaBytes errorSize $ \pe -> do
  r <- c_sqlbatch_conn_last_error c (castPtr pe)
  if r /= sqlbatchOk
    then return (codeText rc)
    else do
      e <- peekError (castPtr pe)
      return (if cerrCode e == sqlbatchOk || B.null (cerrMessage e) then codeText rc else cerrMessage e)

-- | direct-sqlite's 'Error' of a status code: SQLite's primary code, or its extended one if
-- the connection reports those ('dbExtended'); for sqlbatch's own codes (1000 to 1023) the
-- SQLite code a direct call would have given.
decodeCode :: Bool -> Int32 -> Error
decodeCode ext rc
  | rc >= 1000 && rc <= 1023 = library   -- sqlbatch's range, which no SQLite code falls in
  | ext = decodeExtended rc
  | otherwise = decodeError rc
  where
    library
      | rc == sqlbatchEPanic = ErrorInternal
      | rc == sqlbatchERange || rc == sqlbatchEParamCount = ErrorRange
      | rc == sqlbatchEInvalidUtf8 || rc == sqlbatchEMultipleStatements = ErrorError
      | rc == sqlbatchEBufferTooSmall = ErrorNoMemory
      -- No SQLite code says it, and only calls direct-sqlite does not have return it.
      | rc == sqlbatchEUnsupported = ErrorUnsupported
      | otherwise = ErrorMisuse  -- NULL parameter, stale batch, closed, invalid argument

-- | A failure of the library on this connection, for direct-sqlite's face: its 'Error', and
-- @errmsg@ shows the library's message from now on. Call with the lock held.
libraryFailure :: Database -> Int32 -> IO Error
libraryFailure db rc = do
  writeIORef (dbOwnError db) Nothing
  ext <- readIORef (dbExtended db)
  return (decodeCode ext rc)

-- | A failure detected here (misuse, an index out of range), recorded for @errmsg@ as
-- SQLite would record it.
ownFailure :: Database -> Int32 -> IO (Either Error a)
ownFailure db rc = ownFailureMsg db rc (codeText rc)

-- | 'ownFailure' with a message.
ownFailureMsg :: Database -> Int32 -> B.ByteString -> IO (Either Error a)
ownFailureMsg db rc msg = do
  writeIORef (dbOwnError db) (Just (rc, msg))
  return (Left (decodeCode False rc))

-- | SQLite's codes the faces detect themselves.
sqliteMisuse, sqliteRange, sqliteBusy :: Int32
sqliteMisuse = 21
sqliteRange = 25
sqliteBusy = 5

------------------------------------------------------------------------------------------
-- Hooks

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

-- | The first exception a hook of the connection threw since the last call, if any (and
-- forgets it).
takeHookException :: Database -> IO (Maybe SomeException)
takeHookException db = atomicModifyIORef' (dbHookError db) (\m -> (Nothing, m))

------------------------------------------------------------------------------------------
-- Statements

-- | A prepared statement: the one object behind "Database.SQLite3"'s @Statement@ and
-- "Database.SQLBatch"'s (its @unStatement@). Every function on it may be called from any
-- thread.
data Statement = Statement
  { stPtr :: {-# UNPACK #-} !(Ptr CStmt)
    -- ^ The library's handle (valid until finalized: see 'statementHandle').
  , stDb :: !Database
  , stId :: {-# UNPACK #-} !Int
  , stRun :: {-# UNPACK #-} !(IORef Run)
    -- ^ Where the run stands; also the key of the garbage collector's finalizer of a
    -- registered statement.
  , stQuery :: Query
    -- ^ The SQL as given (lazy), for error contexts and 'Database.SQLBatch.FormatError'.
  , stMayName :: Bool
    -- ^ Lazy: whether the SQL might hold a named or numbered parameter ('mayNameParams').
  , stFacts :: {-# UNPACK #-} !Facts
    -- ^ Its parameter count, whether it writes, the text encoding of its run, the columns
    -- of its last batch, whether it fetches ahead ("Database.SQLBatch.Internal.Facts"),
    -- and its handle: 'stPtr', or 'nullPtr' once finalized (written under the lock; read
    -- by 'statementHandle', one load with nothing to evaluate).
  , stLearnt :: {-# UNPACK #-} !(IORef Learnt)
    -- ^ Its parameters' and columns' names and its finalizer, once known (written under
    -- the lock).
  , stSlots :: {-# UNPACK #-} !(IORef Slots)
    -- ^ The values of the parameters for the next run ("Database.SQLBatch.Internal.Slots"):
    -- 'noSlots' until the parameter count is known ('knowParamCount'), then one a parameter.
  , stWhole :: {-# UNPACK #-} !(IORef Whole)
    -- ^ The last bind of all parameters at once, while the slots do not hold its values.
  , stIdle :: {-# UNPACK #-} !(IORef (Maybe Fetcher))
    -- ^ The fetcher of the last run, kept for the next one ('acquireFetcher').
  }

-- | What a statement learns rarely, in one reference (one allocation for a statement, where
-- a reference each would be three): written with the connection's lock held, so that a
-- write of one field, which copies the other two, loses no other write.
data Learnt = Learnt
  { lnParams :: !(Maybe [Maybe Utf8])
    -- ^ The parameter names, asked of the library once, when first needed.
  , lnCols :: !(Maybe [Utf8])
    -- ^ The result columns' names, asked of the library when needed and forgotten when a
    -- run starts: SQLite prepares a statement again when the schema changed, and its
    -- columns may change with it.
  , lnWeak :: !(Maybe (Weak (IORef Run)))
    -- ^ The garbage collector's finalizer of a registered statement ('registerStatement').
  }

-- | Nothing learnt yet.
noneLearnt :: Learnt
noneLearnt = Learnt Nothing Nothing Nothing
{-# NOINLINE noneLearnt #-}

-- | The parameter names, if known.
knownParams :: Statement -> IO (Maybe [Maybe Utf8])
knownParams st = lnParams <$> readIORef (stLearnt st)
{-# INLINE knownParams #-}

-- | The result columns' names, if known.
knownCols :: Statement -> IO (Maybe [Utf8])
knownCols st = lnCols <$> readIORef (stLearnt st)
{-# INLINE knownCols #-}

-- | The statement's finalizer, if registered.
statementWeak :: Statement -> IO (Maybe (Weak (IORef Run)))
statementWeak st = lnWeak <$> readIORef (stLearnt st)
{-# INLINE statementWeak #-}

-- | Sets the parameter names (with the lock held).
setKnownParams :: Statement -> Maybe [Maybe Utf8] -> IO ()
setKnownParams st x = modifyLearnt st (\l -> l { lnParams = x })

-- | Sets the result columns' names (with the lock held).
setKnownCols :: Statement -> Maybe [Utf8] -> IO ()
setKnownCols st x = modifyLearnt st (\l -> l { lnCols = x })

-- | Changes what the statement has learnt, with the lock held: the record is read and
-- replaced whole, so two changes never run at once and neither loses the other's field.
modifyLearnt :: Statement -> (Learnt -> Learnt) -> IO ()
modifyLearnt st f = do
  l <- readIORef (stLearnt st)
  writeIORef (stLearnt st) $! f l
{-# INLINE modifyLearnt #-}

instance Eq Statement where
  a == b = stId a == stId b

instance Show Statement where
  show s = "Statement <" ++ show (stId s) ++ ">"

-- | Where a statement's run stands.
data Run
  = Ready
    -- ^ prepared or reset: the next fetch starts a run
  | Rewind
    -- ^ ran to its end, then reset here only: the library still reports the end, so the
    -- next fetch rewinds it first, in the same call (@hs_sqlbatch_rewind_fetch_into@), and
    -- a bind rewinds it anyway
  | Rows {-# UNPACK #-} !Snap
    -- ^ direct-sqlite's @step@ (and @nextRow@) read this snapshot; the statement is in the
    -- middle of its run unless the snapshot is the last batch
  | Running
    -- ^ in the middle of its run (a fold between batches, a bulk write, an interrupted call)
  | Finished
    -- ^ ran to its end
  | Failed {-# UNPACK #-} !Int32
    -- ^ the last fetch failed with this code

-- | Whether a run state is in the middle of a run (a bind, reset or finalize of such a
-- statement may do I/O: a @safe@ call).
running :: Run -> Bool
running r = case r of
  Ready -> False
  Rewind -> False
  Finished -> False
  Rows sn -> not (snLast sn)
  _ -> True
{-# INLINE running #-}

-- | The slots of a statement whose parameter count is not known yet, and of one without
-- parameters: none, nothing ever counted in them.
noSlots :: Slots
noSlots = unsafePerformIO (newSlots 0)
{-# NOINLINE noSlots #-}

-- | The last bind of all parameters at once ("Database.SQLBatch"'s 'bind'), while the
-- slots do not hold its values: they are written there only when a per-parameter bind
-- follows ('settleSlots'), which is rare; a kept statement of "Database.SQLBatch" never
-- touches its slots.
data Whole
  = InSlots
    -- ^ the slots hold every value
  | WholeSent [Int] [Value]
    -- ^ the library has these values of these parameters (lazy: converted when settled)
  | WholeEncoded [Int] [Value] !(ForeignPtr Word8)
    -- ^ a bind that cannot fail (numbers, NULLs, short TEXTs and BLOBs:
    -- "Database.SQLBatch.Internal"'s @deferBind@), not sent yet: a @sqlbatch_params@ at the
    -- start of the buffer, which the statement's next run sends to the library in the same
    -- locked section as its first fetch ('runFetch')

-- | Writes the values of the last bind of all parameters into the slots (every other
-- parameter NULL), with the lock held, before a per-parameter bind: that bind's run then
-- sends them all. Values the library does not have yet count as a bind.
settleSlots :: Statement -> IO ()
settleSlots st = do
  whole <- readIORef (stWhole st)
  case whole of
    InSlots -> return ()
    WholeSent is vs -> writeBack whole is vs False
    WholeEncoded is vs _ -> writeBack whole is vs True
  where
    writeBack whole is vs unsentYet = do
      slots <- readIORef (stSlots st)
      made <- bindsMade slots
      let n = slotCount slots
          go (i : is') (v : vs') = do
            when (i >= 1 && i <= n) $ setSlot slots i v
            go is' vs'
          go _ _ = return ()
      mapM_ (\i -> setSlot slots i VNull) [1 .. n]
      go is vs
      if unsentYet then countBind slots else markSent slots made
      -- A bind of all parameters without the lock ("Database.SQLBatch.Internal"'s
      -- @deferBind@) may have come meanwhile: then settled again.
      ok <- casIORef (stWhole st) whole InSlots
      unless ok (settleSlots st)

-- | Records the parameter count the library gave, with the lock held: the statement gets
-- its slots (before the count, which the binds without the lock read first).
knowParamCount :: Statement -> Int -> IO ()
knowParamCount st n = do
  sl <- readIORef (stSlots st)
  when (n > 0 && slotCount sl /= n) $ newSlots n >>= writeIORef (stSlots st)
  writeFact (stFacts st) factParamCount n

-- | Replaces the IORef's value if it is still the very object given; whether it did.
casIORef :: IORef a -> a -> a -> IO Bool
casIORef (IORef (STRef mv)) old new = IO $ \s -> case casMutVar# mv old new s of
  (# s1, 0#, _ #) -> (# s1, True #)
  (# s1, _, _ #) -> (# s1, False #)

-- | A batch copied into Haskell memory, with the index of the current row. Unpacked into
-- 'Rows' (and its 'ForeignPtr' and 'Pos' into it), so that @step@ and the @column*@
-- functions reach every field with one load from the run state.
data Snap = Snap
  { snFP :: {-# UNPACK #-} !(ForeignPtr Word8)   -- ^ owns the cells and the bytes
  , snCells :: !(Ptr Word8)
  , snData :: !(Ptr Word8)
  , snDataLen :: !Int
  , snRows :: !Int
  , snCols :: !Int
  , snLast :: !Bool               -- ^ the batch ended the result
  , snMax :: !Int                 -- ^ the rows the batch had room for
  , snRoom :: !Int                -- ^ the bytes the batch had room for
  , snPos :: {-# UNPACK #-} !Pos
  }

-- | The position of a cursor in its snapshot (one machine word, changed atomically).
data Pos = Pos (MutableByteArray# RealWorld)

-- | A position at 0 (before the snapshot's first row; 'advancePos' makes it 1).
newPos :: IO Pos
newPos = IO $ \s -> case newByteArray# 8# s of
  (# s1, mba #) -> case writeIntArray# mba 0# 0# s1 of
    s2 -> (# s2, Pos mba #)

-- | The position.
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
-- costs about as much as the rest of a @step@). The count of capabilities is read from the
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

-- | Prepares the first statement of the SQL: @prepareCore db query sql flags@, with the
-- lock held and the handle given. 'Left' the library's code; @Right Nothing@ when the SQL
-- holds no statement (only whitespace and comments), with the offset where the text after
-- the statement starts.
prepareCore :: Database -> Ptr CConn -> Query -> B.ByteString -> Word32
            -> IO (Either Int32 (Maybe Statement, Int))
prepareCore db c q sql flags =
  BU.unsafeUseAsCStringLen sql $ \(p, n) -> allocaBytes 16 $ \outs -> do
    -- One buffer for both out values (the handle, the tail's offset).
    let out = castPtr outs :: Ptr (Ptr CStmt)
        tailp = castPtr (outs `plusPtr` 8) :: Ptr CSize
    rc <- c_sqlbatch_stmt_prepare c p (fromIntegral n) flags out tailp
    if rc /= sqlbatchOk then return (Left rc) else do
      h <- peek out
      tl <- fromIntegral <$> (peek tailp :: IO CSize)
      if h == nullPtr then return (Right (Nothing, tl)) else do
        st <- newStatement db h q sql
        return (Right (Just st, tl))
{-# INLINE prepareCore #-}

-- | A statement of no connection (a closed one, without a handle): for reading values that
-- are not a statement's (the arguments of an SQL function) with the row parsers, whose
-- errors then name no column.
detachedStatement :: Query -> IO Statement
detachedStatement q = do
  lock <- newMVar ()
  openRef <- newIORef False
  guard <- newMVar ()
  job <- newIORef NoJob
  hooks <- newIORef []
  stmts <- newIORef IM.empty
  own <- newIORef Nothing
  herr <- newIORef Nothing
  ext <- newIORef False
  kept <- newKept
  sfp <- mallocPlainForeignPtrBytes scratchBytes
  sql <- newIORef noSqlText
  calls <- newIORef False
  young <- newIORef []
  let db = Database nullPtr lock openRef guard job hooks False False (fromQuery q) (-1) stmts own
             herr ext kept sfp (unsafeForeignPtrToPtr sfp) sql calls young
  st <- newStatement db nullPtr q B.empty
  writeIORef (stLearnt st) (Learnt (Just []) (Just []) Nothing)
  writeFact (stFacts st) factParamCount 0
  return st

-- | A statement of the connection for a handle just prepared from this SQL (its query and
-- bytes), not registered ('registerStatement').
newStatement :: Database -> Ptr CStmt -> Query -> B.ByteString -> IO Statement
newStatement db h q sql = do
  run <- newIORef Ready
  facts <- newFacts (dbFetchAhead db) h
  learnt <- newIORef noneLearnt
  slots <- newIORef noSlots
  whole <- newIORef InSlots
  idle <- newIORef Nothing
  i <- nextId
  return (Statement h db i run q (mayNameParams sql) facts learnt slots whole idle)

-- | Registers a statement with its connection (direct-sqlite's @close@ counts it) and gives
-- it a finalizer the garbage collector runs once nobody references it. The statements of
-- "Database.SQLBatch"'s queries, finalized by 'bracket' within the call, are not
-- registered. With the connection's lock held: the registry ('dbStmts') is written only
-- so, by a plain read and write.
registerStatement :: Statement -> IO ()
registerStatement st = do
  let db = stDb st
      facts = stFacts st
  w <- mkWeakIORef (stRun st) (finalizeHandle db (stId st) facts)
  modifyLearnt st (\l -> l { lnWeak = Just w })
  modifyIORef' (dbStmts db) (IM.insert (stId st) (w, facts))

-- | 'registerStatement', deferred (direct-sqlite's @prepare@): the statement joins the
-- connection's young ones ('dbYoung'), which the connection references, and is registered
-- only when two newer ones push it out, if it is not finalized by then; the
-- connection's close and the count of its statements ('ageYoung') register the young ones
-- first. A statement prepared, run and finalized at once (the usual case) so never has a
-- weak pointer, a finalizer or an entry in 'dbStmts': those cost its prepare and finalize
-- about as much again as the rest of their Haskell side, and the collector a copy of each
-- weak pointer. A statement nobody references is finalized by the collector once it is
-- registered (after two more prepares, or at the close). With the lock held.
registerYoung :: Statement -> IO ()
registerYoung st = do
  let ref = dbYoung (stDb st)
  young <- readIORef ref
  -- Two kept (a match: a count and a split cost 70 instructions).
  case young of
    (a : older : _) -> do
      writeIORef ref [st, a]
      () <$ ageStatement older
    _ -> writeIORef ref (st : young)
{-# INLINE registerYoung #-}

-- | Registers the connection's young statements that are not finalized ('registerYoung');
-- whether there was one. With the lock held.
ageYoung :: Database -> IO Bool
ageYoung db = do
  young <- readIORef (dbYoung db)
  if null young then return False else do
    writeIORef (dbYoung db) []
    or <$> mapM ageStatement young

-- | Registers a young statement unless it is finalized; whether it did.
ageStatement :: Statement -> IO Bool
ageStatement st = do
  h <- statementHandle st
  if h == nullPtr then return False else True <$ registerStatement st

firstRows, firstCols, initialSnapBuf :: Int
firstRows = 16
firstCols = 8
initialSnapBuf = 1024

-- | Finalizes a statement's handle unless that was done already (the garbage collector's
-- finalizer, and direct-sqlite's @close@ for statements nobody references). Takes the
-- connection's lock.
finalizeHandle :: Database -> Int -> Facts -> IO ()
finalizeHandle db i facts = do
  -- Already finalized (the usual case: 'finalizeCore' runs this after its finalize): no lock.
  h <- readHandle facts :: IO (Ptr CStmt)
  unless (h == nullPtr) $ mask_ $ lockedWith db True $ \_ -> finalizeHandleLocked db i facts

-- | 'finalizeHandle' with the connection's lock held (the handle finalized unless that was
-- done already, the statement taken out of the registry).
finalizeHandleLocked :: Database -> Int -> Facts -> IO ()
finalizeHandleLocked db i facts = do
  h <- readHandle facts
  unless (h == nullPtr) $ do
    writeHandle facts nullPtr
    modifyIORef' (dbStmts db) (IM.delete i)
    c_sqlbatch_stmt_finalize h

-- | Finalizes a statement (the handle, its fetchers and its finalizer), returning its run
-- state before. Idempotent. Works after the connection was closed. Without a job of the
-- worker, a statement that is not in the middle of a run is finalized by an unsafe call: it
-- does no I/O.
finalizeCore :: Statement -> IO Run
finalizeCore st = do
  r <- uninterruptibleMask_ $ do
    -- The fetcher kept for the next run goes (its memory is the collector's).
    idle <- readIORef (stIdle st)
    case idle of
      Nothing -> return ()
      Just _ -> writeIORef (stIdle st) Nothing
    -- Not interruptible: a statement's finalize must not be lost to a timeout. From a hook
    -- of the connection, as any other call ('withLock').
    -- No wait for the worker first: the finalize drops a batch of this statement stepped
    -- ahead rather than waiting for it.
    -- (Masked already: 'lockedMasked'.)
    let db = stDb st
        k _ = finalizeLocked st
        locked = lockedMasked db False k
    hs <- readIORef (dbHookThreads db)
    if null hs then locked else inHookThread db hs k locked
  -- The garbage collector's finalizer, now a no-op (the handle is gone), run and dropped
  -- here: a weak pointer with a finalizer costs the collector, and its run later a thread
  -- of its own, for every statement prepared and finalized.
  w <- statementWeak st
  maybe (return ()) Weak.finalize w
  return r

-- | 'finalizeCore' with the lock held (the fetchers and the weak pointer left).
finalizeLocked :: Statement -> IO Run
finalizeLocked st = do
  let db = stDb st
  h <- statementHandle st
  run <- readIORef (stRun st)
  unless (h == nullPtr) $ do
    writeHandle (stFacts st) nullPtr
    writeIORef (stRun st) Ready
    -- Only a registered statement is in the registry (not a young one, nor one of
    -- "Database.SQLBatch"'s queries).
    w <- statementWeak st
    case w of
      Nothing -> return ()
      Just _ -> modifyIORef' (dbStmts db) (IM.delete (stId st))
    job <- readIORef (dbJob db)
    if job == NoJob && not (running run)
      then c_sqlbatch_stmt_finalize_unsafe h
      else do
        -- It waits for the connection's worker (a batch of this statement stepped ahead is
        -- dropped, a write queued on it runs to its end first).
        c_sqlbatch_stmt_finalize h
        writeIORef (dbJob db) NoJob
  return run

-- | The number of registered statements of the connection that are neither finalized nor
-- unreachable; the unreachable ones are finalized on the way (with @fin@, given the id and
-- the facts that hold the handle).
liveStatementsWith :: (Int -> Facts -> IO ()) -> Database -> IO Int
liveStatementsWith fin db = do
  m <- readIORef (dbStmts db)
  alive <- forM (IM.toList m) $ \(i, (w, facts)) -> do
    k <- deRefWeak w
    case k of
      Just _ -> return (1 :: Int)
      Nothing -> 0 <$ fin i facts
  return (sum alive)

-- | The handle, or 'nullPtr' once finalized (a word of the statement's facts: one load,
-- nothing to evaluate).
statementHandle :: Statement -> IO (Ptr CStmt)
statementHandle st = readHandle (stFacts st)
{-# INLINE statementHandle #-}

-- | The statement's SQL as the library holds it (@sqlbatch_stmt_sql@: the first statement
-- of the text given), with the lock held; empty once finalized.
statementSql :: Statement -> Ptr CConn -> IO B.ByteString
statementSql st _ = do
  h <- statementHandle st
  if h == nullPtr then return B.empty else allocaBytes strSize $ \ps -> do
    rc <- c_sqlbatch_stmt_sql h (castPtr ps)
    if rc /= sqlbatchOk then return B.empty else maybe B.empty id <$> peekStr ps

-- | The text used in error contexts: the call and (the start of) the SQL.
contextOf :: Text -> Query -> Text
contextOf what (Query q)
  | T.length q > 200 = what <> " " <> T.pack (show (T.take 200 q <> "..."))
  | otherwise = what <> " " <> T.pack (show q)

-- | Whether SQL text might hold a parameter with a name (@:a@, @\@a@, @$a@, @#a@) or a
-- number (@?3@): False only if none of the bytes that start one (@:@ @\@@ @$@ @#@, @?@
-- followed by a digit) occurs anywhere in it. A pre-check only, erring on the side of
-- True (a colon in a string literal counts): when it is True, the parameters' names are
-- asked of the library, which alone says what the parameters are.
mayNameParams :: B.ByteString -> Bool
mayNameParams b = any (`B.elem` b) [58, 64, 36, 35] || numbered b
  where
    -- memchr for each byte (B.elem, B.elemIndex): a few instructions per 16 bytes, where a
    -- loop over the bytes in Haskell took about 35 a byte.
    numbered s = case B.elemIndex 63 s of
      Nothing -> False
      Just i ->
        let rest = BU.unsafeDrop (i + 1) s
        in (not (B.null rest) && BU.unsafeHead rest - 48 < 10) || numbered rest

-- | False if the statement certainly has only nameless @?@ parameters (or none), judged
-- from its SQL text without asking the library ('mayNameParams'); True if it might have a
-- named or numbered one ('statementParamNames' then tells).
statementMayNameParams :: Statement -> Bool
statementMayNameParams = stMayName

-- | The statement's parameter names by index (from 1), 'Nothing' for a plain @?@: asked of
-- the library (@sqlbatch_stmt_params@) on first use only, then kept (they cannot change).
-- With the lock held; [] once finalized.
statementParamNames :: Statement -> IO [Maybe Utf8]
statementParamNames st = do
  cached <- knownParams st
  case cached of
    Just ns -> return ns
    Nothing -> do
      h <- statementHandle st
      if h == nullPtr then return [] else do
        r <- D.paramNames (D.Statement h (rawDatabase (stDb st)))
        case r of
          Left _ -> return []
          Right ns -> do
            setKnownParams st (Just ns)
            knowParamCount st (length ns)
            return ns

-- | The statement's parameter count (the largest index): asked of the library
-- (@sqlbatch_stmt_param_count@, which builds no names) on first use only. With the lock
-- held; 0 once finalized.
statementParamCount :: Statement -> IO Int
statementParamCount st = do
  cached <- readFact (stFacts st) factParamCount
  if cached >= 0 then return cached else do
    h <- statementHandle st
    if h == nullPtr then return 0 else do
      -- The out value in the connection's scratch (outside its hooks: there the scratch
      -- may be the hooked call's).
      let db = stDb st
      hs <- readIORef (dbHookThreads db)
      if null hs then statementParamCountAt st h (castPtr (dbScratch db)) <* touchForeignPtr (dbScratchFP db)
        else alloca (statementParamCountAt st h)

-- | Asks the library for the parameter count of a live statement (its handle given) and
-- records it ('knowParamCount'), the out value at the pointer given. With the lock held.
statementParamCountAt :: Statement -> Ptr CStmt -> Ptr CSize -> IO Int
statementParamCountAt st h out = do
  rc <- c_sqlbatch_stmt_param_count h out
  n <- if rc /= sqlbatchOk then return 0 else fromIntegral <$> peek out
  knowParamCount st n
  return n

-- | The names of the result columns, with the lock held: kept from the last time they were
-- asked within the current run (see 'lnCols'); [] once finalized.
statementColumnNames :: Statement -> IO [Utf8]
statementColumnNames st = do
  cached <- knownCols st
  case cached of
    Just ns -> return ns
    Nothing -> do
      h <- statementHandle st
      if h == nullPtr then return [] else do
        r <- D.columns (D.Statement h (rawDatabase (stDb st)))
        let ns = either (const []) (map D.columnName) r
        setKnownCols st (Just ns)
        return ns

-- | Whether the statement writes (@sqlbatch_stmt_readonly@, asked once). With the lock held.
statementWrites :: Statement -> IO Bool
statementWrites st = do
  cached <- readFact (stFacts st) factWrites
  if cached >= 0 then return (cached == 1) else do
    h <- statementHandle st
    ro <- if h == nullPtr then return True else alloca $ \p -> do
      rc <- c_sqlbatch_stmt_readonly h p
      if rc /= sqlbatchOk then return False else (\(CBool b) -> b /= 0) <$> peek p
    writeFact (stFacts st) factWrites (if ro then 0 else 1)
    return (not ro)

-- | Turns fetch-ahead on or off for the statement (@sqlbatch_stmt_set_fetch_ahead@). A
-- no-op under the non-threaded RTS ('fetchAheadAvailable').
setStatementFetchAhead :: Statement -> Bool -> IO ()
setStatementFetchAhead st on
  | not fetchAheadAvailable = return ()
  | otherwise = do
      let ctx = contextOf "setFetchAhead" (stQuery st)
          db = stDb st
      withDb db ctx $ \_ -> do
        h <- statementHandle st
        rc <- c_sqlbatch_stmt_set_fetch_ahead h (CBool (if on then 1 else 0))
        when (rc /= sqlbatchOk) $ throwSQL db rc ctx
        writeFact (stFacts st) factAhead (if on then 1 else 0)

-- | Stops the stepping of the statement's next batch, if its last fetch left the worker on
-- it: for an asynchronous exception that leaves a query between two fetches (the rows are
-- not wanted; the next call on the statement is its finalize or reset, which drop them).
-- It interrupts the connection, as an asynchronous exception inside a fetch does.
cancelAhead :: Statement -> IO ()
cancelAhead st = uninterruptibleMask_ $ do
  let db = stDb st
  withMVar (dbLock db) $ \_ -> do
    job <- readIORef (dbJob db)
    open <- readIORef (dbOpen db)
    when (open && job == AheadJob (stPtr st)) $
      c_sqlbatch_conn_interrupt (dbHandle db)

------------------------------------------------------------------------------------------
-- Reading batches in place ("Database.SQLBatch"'s folds and queries)

-- | The state of reading a statement's batches: the batch out-parameter, the current data
-- buffer and the batch size.
data Fetcher = Fetcher
  { fStmt :: !Statement
  , fScratchFP :: {-# UNPACK #-} !(ForeignPtr Word8)
    -- ^ Owns 'fScratch' (pinned memory of the garbage collector's: a fetcher dropped by an
    -- exception leaks nothing).
  , fScratch :: {-# UNPACK #-} !(Ptr Word8)
    -- ^ The @sqlbatch_batch@ out-parameter, the "slice taken" flag byte (at 'flagOff'), the
    -- units used in the current text chunk (at 'usedOff'), a conversion's scratch (at
    -- 'convOff') and the byte length of the last batch's data (at 'lastOff').
  , fText :: {-# UNPACK #-} !(IORef TextChunk)
    -- ^ Where decoded 'Text' goes.
  , fBuf :: {-# UNPACK #-} !(IORef Buf)
  , fMaxRows :: {-# UNPACK #-} !(IORef Int)
  , fBudget :: {-# UNPACK #-} !Int
    -- ^ Bytes of cells per batch ('foldBudget' or 'collectBudget').
  }

-- | A data buffer: the first @keep@ bytes hold slices handed out; the previous batch's
-- bytes (as many as the scratch's word at 'lastOff' says, right after @keep@) are kept too
-- if its flag was set. @want@ is the size of the next buffer to allocate. (The last
-- batch's length is not here: it changes from one run of a point query to the next, and
-- a new 'Buf' written every time costs an allocation and the write barrier.)
data Buf = Buf
  { _bufFP :: !(ForeignPtr Word8)
  , _bufSize :: {-# UNPACK #-} !Int
  , _bufKeep :: {-# UNPACK #-} !Int
  , _bufWant :: {-# UNPACK #-} !Int
  }

flagOff, usedOff, convOff, lastOff, scratchSize :: Int
flagOff = 64
usedOff = 72
convOff = 80
lastOff = (convOff + valueSize + convertBufSize + 7) `quot` 8 * 8
scratchSize = lastOff + 8

-- | Cell budgets of a batch: small for streaming (the cells stay in the CPU's cache while
-- they are read), larger when every row is collected into a list anyway (fewer batches,
-- fewer list chunks to join).
foldBudget, collectBudget :: Int
foldBudget = 64 * 1024
collectBudget = 1024 * 1024

initialBuf, maxBuf, initialRows :: Int
initialBuf = 16 * 1024
maxBuf = 1024 * 1024
initialRows = 256

-- | Starts reading a statement.
newFetcher :: Int -> Statement -> IO Fetcher
newFetcher budget st = do
  sfp <- mallocPlainForeignPtrBytes scratchSize
  let scratch = unsafeForeignPtrToPtr sfp
  pokeByteOff scratch flagOff (0 :: Word8)
  pokeByteOff scratch usedOff (0 :: Int)
  pokeByteOff scratch lastOff (0 :: Int)
  -- The first Text allocates the first real chunk; a query without text allocates none.
  chunk <- newTextChunk 0 >>= newIORef
  fp <- mallocPlainForeignPtrBytes initialBuf
  buf <- newIORef (Buf fp initialBuf 0 initialBuf)
  mr <- newIORef initialRows
  return (Fetcher st sfp scratch chunk buf mr budget)

-- | Ends the use of a fetcher's memory (which belongs to the garbage collector: nothing is
-- freed, and a fetcher simply dropped leaks nothing either).
freeFetcher :: Fetcher -> IO ()
freeFetcher f = touchForeignPtr (fScratchFP f)

-- | The statement's idle fetcher if it has one with this budget (the one its last run
-- used: its batch buffer, text chunk and batch size carry over, as from one batch to the
-- next), else a new one. Call with asynchronous exceptions masked.
acquireFetcher :: Int -> Statement -> IO Fetcher
acquireFetcher budget st = do
  idle <- atomicModifyIORef' (stIdle st) (\m -> (Nothing, m))
  case idle of
    Just f | fBudget f == budget -> return f
    Just f -> freeFetcher f >> newFetcher budget st
    Nothing -> newFetcher budget st

-- | Gives a fetcher back to its statement for the next run (freeing the one kept before,
-- if another run put one back meanwhile, or the fetcher itself if the statement was
-- finalized meanwhile).
releaseFetcher :: Statement -> Fetcher -> IO ()
releaseFetcher st f = do
  old <- atomicModifyIORef' (stIdle st) (\m -> (Just f, m))
  maybe (return ()) freeFetcher old
  -- A statement finalized meanwhile keeps no fetcher: take it back.
  h <- statementHandle st
  when (h == nullPtr) $ do
    left <- atomicModifyIORef' (stIdle st) (\m -> (Nothing, m))
    maybe (return ()) freeFetcher left

-- | A fetcher of the statement ('acquireFetcher') around an action, given back after.
withFetcher :: Int -> Statement -> (Fetcher -> IO a) -> IO a
withFetcher budget st = bracket (acquireFetcher budget st) (releaseFetcher st)
{-# INLINE withFetcher #-}

-- | 'acquireFetcher' without the mask it needs: the statement's idle fetcher (taken with
-- one compare-and-swap) if it has one of this budget, else a new one. A fetcher never
-- given back ('putFetcher'), because an exception ended its run, is the garbage
-- collector's, so the runs that read rows need neither 'mask' nor 'bracket'.
takeFetcher :: Int -> Statement -> IO Fetcher
takeFetcher budget st = do
  idle <- readIORef (stIdle st)
  case idle of
    Just f | fBudget f == budget -> do
      ok <- casIORef (stIdle st) idle Nothing
      if ok then return f else takeFetcher budget st
    _ -> newFetcher budget st
{-# INLINE takeFetcher #-}

-- | Gives a fetcher back to its statement for the next run (replacing the one kept, if
-- another run put one back meanwhile), unless the statement was finalized.
putFetcher :: Statement -> Fetcher -> IO ()
putFetcher st f = do
  touchForeignPtr (fScratchFP f)
  h <- statementHandle st
  unless (h == nullPtr) $ writeIORef (stIdle st) (Just f)
{-# INLINE putFetcher #-}

-- | What a field needs to read a batch's bytes.
data BatchCtx = BatchCtx
  { bcBase :: {-# UNPACK #-} !(Ptr Word8)   -- ^ the batch's @data@
  , bcFP :: !(ForeignPtr Word8)              -- ^ the buffer @data@ points into
  , bcOff :: {-# UNPACK #-} !Int             -- ^ @data@'s offset in the buffer
  , bcFlag :: {-# UNPACK #-} !(Ptr Word8)    -- ^ set to 1 when a slice is handed out
  , bcUsed :: {-# UNPACK #-} !(Ptr Int)      -- ^ units used in the current text chunk
  , bcConv :: {-# UNPACK #-} !(Ptr Word8)
    -- ^ scratch of a value's conversion: an out value and a 'convertBufSize' buffer
  , bcText :: {-# UNPACK #-} !(IORef TextChunk)
  , bcStmt :: !Statement                     -- ^ for column names in errors
  }

-- | One batch, valid until the next 'nextBatch' on the same fetcher.
data BatchView = BatchView
  { bvCells :: {-# UNPACK #-} !(Ptr Word8)
  , bvRows :: {-# UNPACK #-} !Int
  , bvCols :: {-# UNPACK #-} !Int
  , bvDone :: !Bool
  , bvCtx :: !BatchCtx
  }

-- | Fetches the next batch (one interruptible call). Throws 'SQLError' on failure.
nextBatch :: Fetcher -> IO BatchView
nextBatch f = do
  let scratch = fScratch f
  Buf fp size keep0 want <- readIORef (fBuf f)
  lastLen <- peekByteOff scratch lastOff :: IO Int
  taken <- peekByteOff scratch flagOff :: IO Word8
  pokeByteOff scratch flagOff (0 :: Word8)
  let keep = if taken /= 0 then keep0 + lastLen else keep0
  maxRows <- readIORef (fMaxRows f)
  if want > size || size - keep < size `quot` 4
    then do
      nfp <- mallocPlainForeignPtrBytes want
      fetchAt f maxRows nfp want 0 want
    else fetchAt f maxRows fp size keep want
{-# NOINLINE nextBatch #-}

fetchAt :: Fetcher -> Int -> ForeignPtr Word8 -> Int -> Int -> Int -> IO BatchView
fetchAt f !maxRows bfp !size !off !want = do
  -- The whole fetch is the locked section's action ('lockedReleasing'), and 'fetchIn' reads
  -- the batch after putting the lock back: so all the work after the call is in the call's
  -- continuation, the fetch's one frame under the mask's.
  withLockReleasing (stDb (fStmt f)) False (fetchOpen f maxRows bfp size off want)
    (fetchIn f maxRows bfp size off want False False)

-- | The section of 'fetchAt' ('lockedReleasing'), given @masked@ and whether the
-- connection is open.
fetchOpen :: Fetcher -> Int -> ForeignPtr Word8 -> Int -> Int -> Int -> Bool -> Bool
          -> IO BatchView
fetchOpen f maxRows bfp size off want masked open
  | open = fetchIn f maxRows bfp size off want masked True (dbHandle (stDb (fStmt f)))
  | otherwise = fetchFailed f bfp masked True (closedFetch (fStmt f))
{-# INLINE fetchOpen #-}

-- | 'fetchAt' on a connection's handle, in a 'lockedReleasing' section if @locked@ (the
-- lock put back after the call; @masked@ for 'restoreIf'), else in a hook of the connection.
-- Everything a fetch that succeeds needs is computed strictly here, and everything only a
-- failure needs (the error's context, the error) in functions of their own, called on
-- failure: so the common path allocates no thunk and no error it does not throw.
fetchIn :: Fetcher -> Int -> ForeignPtr Word8 -> Int -> Int -> Int -> Bool -> Bool -> Ptr CConn
        -> IO BatchView
fetchIn f !maxRows bfp !size !off !want masked locked c = do
  let scratch = fScratch f
      st = fStmt f
      db = stDb st
      !base = unsafeForeignPtrToPtr bfp `plusPtr` off
      !cMaxRows = fromIntegral maxRows :: CSize
      !cLen = fromIntegral (size - off) :: CSize
  h <- statementHandle st
  if h == nullPtr then fetchFailed f bfp masked locked (finalizedFetch st) else do
    run <- readIORef (stRun st)
    rc <- runFetch db st c h run cMaxRows base cLen (castPtr scratch)
    if rc /= sqlbatchRow && rc /= sqlbatchDone && rc /= sqlbatchEBufferTooSmall
      then fetchFailure st rc >>= fetchFailed f bfp masked locked
      else do
        when locked $ unlock db
        touchForeignPtr bfp
        if rc == sqlbatchEBufferTooSmall then fetchGrown f maxRows want masked else do
          b <- peekBatch (castPtr scratch)
          let rows = batchRows b
              cols = batchCols b
              dataLen = batchDataLen b
              done = rc == sqlbatchDone
              -- The buffer, not the row count, ended the batch: use a bigger one next time
              -- (up to 'maxBuf', but never smaller than @want@, which is at least the
              -- largest row so far: a row that did not fit set it. So only a row larger than
              -- every row before costs a second fetch, and no buffer too small for the rows
              -- is allocated).
              !want' = if not done && rows < maxRows then max want (min maxBuf (size * 4)) else want
          -- Written only when they change: a statement run again and again (a point query)
          -- keeps its buffer and batch size, and then writes neither.
          pokeByteOff scratch lastOff dataLen
          Buf ofp osize ooff owant <- readIORef (fBuf f)
          unless (ofp == bfp && osize == size && ooff == off && owant == want') $
            writeIORef (fBuf f) $! Buf bfp size off want'
          when (cols > 0) $ do
            let !rows' = max 16 (min 65536 (fBudget f `quot` (valueSize * cols)))
            when (rows' /= maxRows) $ writeIORef (fMaxRows f) rows'
          return $! BatchView (batchCells b) rows cols done
            (BatchCtx base bfp off (scratch `plusPtr` flagOff) (scratch `plusPtr` usedOff)
              (scratch `plusPtr` convOff) (fText f) st)

-- | The end of a fetch that failed ('fetchIn'): the lock put back if @locked@, the error
-- thrown ('throwAfter') as after the section.
fetchFailed :: Fetcher -> ForeignPtr Word8 -> Bool -> Bool -> SQLError -> IO a
fetchFailed f bfp masked locked e = do
  when locked $ unlock (stDb (fStmt f))
  touchForeignPtr bfp
  restoreIf masked (throwAfter e)
{-# NOINLINE fetchFailed #-}

-- | The fetch again into a bigger buffer, after one that the first row did not fit
-- ('fetchIn', with the lock back), as after the section.
fetchGrown :: Fetcher -> Int -> Int -> Bool -> IO BatchView
fetchGrown f maxRows want masked = restoreIf masked $ do
  need <- batchDataLen <$> peekBatch (castPtr (fScratch f))
  let nsize = head [c | c <- iterate (* 2) (max want initialBuf), c >= need]
  nfp <- mallocPlainForeignPtrBytes nsize
  fetchAt f maxRows nfp nsize 0 nsize
{-# NOINLINE fetchGrown #-}

-- | The error of a fetch that failed with this code (with the lock held: the message is
-- the connection's), in the fetch's context.
fetchFailure :: Statement -> Int32 -> IO SQLError
fetchFailure st r = D.errorFrom (rawDatabase (stDb st)) r (contextOf "fetch" (stQuery st))
{-# NOINLINE fetchFailure #-}

-- | The error of a fetch on a finalized statement, and on a closed connection.
finalizedFetch, closedFetch :: Statement -> SQLError
finalizedFetch st = finalizedError (contextOf "fetch" (stQuery st))
closedFetch st = closedError (contextOf "fetch" (stQuery st))
{-# NOINLINE finalizedFetch #-}
{-# NOINLINE closedFetch #-}

-- | One fetch with the lock held, keeping the run state and the worker's job: from 'Ready'
-- it starts a run (the column names are asked again), from 'Rewind' it rewinds
-- first in the same call. A batch that ends the result leaves 'Finished', a failure
-- 'Failed', anything else 'Running' (the snapshot fetch sets 'Rows' itself).
runFetch :: Database -> Statement -> Ptr CConn -> Ptr CStmt -> Run -> CSize -> Ptr Word8 -> CSize
         -> Ptr Batch -> IO Int32
runFetch db st c h run0 maxRows base len out = do
  -- One use of @starting@, so that it is inlined (two would make it a closure per fetch).
  (brc, run) <- if startsRun run0 then starting else return (sqlbatchOk, run0)
  if brc /= sqlbatchOk then brc <$ writeIORef (stRun st) (Failed brc) else do
    writeIORef (stRun st) Running
    r <- case run of
      Rewind -> c_hs_sqlbatch_rewind_fetch_into c h maxRows base len out
      _ -> c_hs_sqlbatch_fetch_into c h maxRows base len out
    -- The fetch waited for the worker; with fetch-ahead, a batch with more rows to follow
    -- left it stepping the next one.
    ahead <- readFact (stFacts st) factAhead
    job <- readIORef (dbJob db)
    let job' = if ahead /= 0 && r == sqlbatchRow then AheadJob h else NoJob
    when (job' /= job) $ writeIORef (dbJob db) job'
    if r == sqlbatchDone then writeIORef (stRun st) Finished
      else when (r /= sqlbatchRow && r /= sqlbatchEBufferTooSmall) $ writeIORef (stRun st) (Failed r)
    return r
  where
    -- A run starts: the column names are asked again, and the binds not yet sent (direct-
    -- sqlite's, and "Database.SQLBatch"'s laid out by 'bind') go first, by one unsafe call
    -- (the statement is not in the middle of a run: the bind does no I/O), which rewinds
    -- the statement itself.
    starting = do
      cols <- knownCols st
      case cols of
        Nothing -> return ()
        Just _ -> setKnownCols st Nothing
      e <- readFact (stFacts st) factEncoding
      when (e /= -1) $ writeFact (stFacts st) factEncoding (-1)
      whole <- readIORef (stWhole st)
      case whole of
        InSlots -> do
          slots <- readIORef (stSlots st)
          more <- unsent slots
          if not more then return (sqlbatchOk, run0) else do
            unjammed
            rc <- sendPending st h slots
            return (rc, Ready)
        WholeSent _ _ -> return (sqlbatchOk, run0)
        WholeEncoded is vs fp -> do
          -- Values laid out by "Database.SQLBatch"'s 'bind': one unsafe call, as above.
          -- Sent: kept as sent, unless a bind came meanwhile (for the next run).
          unjammed
          rc <- c_sqlbatch_stmt_bind_unsafe h (castPtr (unsafeForeignPtrToPtr fp))
          touchForeignPtr fp
          when (rc == sqlbatchOk) $ () <$ casIORef (stWhole st) whole (WholeSent is vs)
          return (rc, Ready)
    -- The fetch's locked section does not wait for the connection's worker first (the
    -- fetch waits for it itself, interruptibly), but an unsafe call must never wait: while
    -- the worker may run a job (another statement's batch stepped ahead, a write behind),
    -- the bind's unsafe call would wait for it with the capability held and no way to
    -- interrupt it. So the job is waited for first, interruptibly ('settleJob').
    unjammed = settleJob db
{-# INLINE runFetch #-}

-- | Whether a fetch from this run state starts a run ('runFetch'): the statement is
-- between runs, where a bind may come.
startsRun :: Run -> Bool
startsRun Ready = True
startsRun Rewind = True
startsRun _ = False
{-# INLINE startsRun #-}

-- | Sends the values of the slots ('runFetch'), with the lock held.
sendPending :: Statement -> Ptr CStmt -> Slots -> IO Int32
sendPending st h slots = do
  made <- bindsMade slots
  -- Table values ("Database.SQLBatch.Internal.Rows") go after the other values, each by
  -- its own bind (NULL in its place until then).
  (rc0, tables) <- sendBinds (stDb st) h slots
  rc <- if rc0 /= sqlbatchOk || null tables then return rc0 else do
    r <- bindTables h True tables
    case r of
      Right () -> return sqlbatchOk
      Left (code, Nothing) -> return code
      Left (code, Just msg) -> code <$ ownFailureMsg (stDb st) code (TE.encodeUtf8 (T.pack msg))
  -- Sent: the binds counted before the values were read ("Database.SQLBatch.Internal.Slots").
  when (rc == sqlbatchOk) $ markSent slots made
  return rc
{-# NOINLINE sendPending #-}

-- | The error of a call on a finalized statement ("Database.SQLBatch"'s face).
finalizedError :: Text -> SQLError
finalizedError ctx =
  SQLError ErrorMisuse 21 "the statement is finalized" ctx Nothing Nothing Nothing Nothing

------------------------------------------------------------------------------------------
-- Snapshots (direct-sqlite's step, and nextRow)

-- | A 'BatchView' of the rest of a snapshot (its rows from the current position on), read
-- with a fetcher's scratch and text chunk: for the row parsers of "Database.SQLBatch",
-- which read a snapshot as they read a batch. The rows before @pos@ are left out.
snapshotView :: Fetcher -> Snap -> Int -> BatchView
snapshotView f sn pos =
  let scratch = fScratch f
      base = unsafeForeignPtrToPtr (snFP sn)
      n = max 0 (snRows sn - pos)
  in BatchView (snCells sn `plusPtr` (pos * snCols sn * valueSize)) n (snCols sn) (snLast sn)
       (BatchCtx (snData sn) (snFP sn) (snData sn `minusPtr` base) (scratch `plusPtr` flagOff)
          (scratch `plusPtr` usedOff) (scratch `plusPtr` convOff) (fText f) (fStmt f))

-- | Fetches the next batch of a statement into a fresh snapshot, with the lock held
-- (handle given): the run state becomes 'Rows' (or 'Finished' for a batch without rows, or
-- 'Failed'). Applies direct-sqlite's pending binds first when a run starts. A read-only
-- statement fetches 16 rows first, then four times more a batch up to about 64 KiB of
-- cells; one that writes fetches one row per batch, so that its effects come at the @step@
-- where direct-sqlite makes them. Returns the status: 'sqlbatchRow' with rows to read,
-- 'sqlbatchDone', or a failure's code. INLINE (two callers): the caller's work after it
-- (the status read, the lock put back: 'lockedReleasing') joins the fetch's continuation,
-- the one frame of the call.
fetchSnapshot :: Statement -> Ptr CConn -> Ptr CStmt -> IO Int32
fetchSnapshot st c h = do
  run <- readIORef (stRun st)
  -- The first snapshot of a run has room for 'firstRows' rows and is fetched into the
  -- connection's scratch ('scratchDataLen' bytes), then copied into one of its exact size;
  -- the next ones of the run four times more rows while the rows fill them (up to
  -- 'maxRowsFor'), four times more bytes while the bytes do. So a point query allocates a
  -- small snapshot, a long result few large ones. A statement that writes keeps
  -- 'firstRows' (the library steps it one row a call).
  case run of
    Rows sn -> do
      writes <- statementWrites st
      let byRows = snRows sn >= snMax sn
          rows' | writes || not byRows = snMax sn
                | otherwise = min (maxRowsFor (snCols sn)) (snMax sn * 4)
          room' | byRows = snRoom sn
                | otherwise = min maxSnapBuf (snRoom sn * 4)
      go run rows' room'
    _ -> do
      -- Inside a hook of the connection the scratch may be the hooked call's.
      hs <- readIORef (dbHookThreads db)
      if null hs then first run else go run firstRows initialSnapBuf
  where
    db = stDb st
    -- The first snapshot of a run: the batch fetched into the connection's scratch (with
    -- the lock held), then copied into a snapshot of its exact size; none for a batch
    -- without rows (a statement that writes). A first row larger than the scratch takes
    -- the general path.
    first run = do
      let pb = dbScratch db
          dat = pb `plusPtr` scratchData
      rc <- runFetch db st c h run (fromIntegral firstRows) dat (fromIntegral scratchDataLen) (castPtr pb)
      b <- peekBatch (castPtr pb)
      if rc == sqlbatchEBufferTooSmall
        then go Running firstRows (grow scratchDataLen (batchDataLen b))
        else if rc /= sqlbatchRow && rc /= sqlbatchDone then return rc
        else do
          let rows = batchRows b
              bcols = batchCols b
              dlen = batchDataLen b
              cellLen = rows * bcols * valueSize
          k <- readFact (stFacts st) factSnapCols
          when (k /= bcols) $ writeFact (stFacts st) factSnapCols bcols
          if rows == 0
            then do
              writeIORef (stRun st) Finished
              return sqlbatchDone
            else do
              fp <- mallocPlainForeignPtrBytes (cellLen + dlen)
              let base = unsafeForeignPtrToPtr fp
              copyBytes base (batchCells b) cellLen
              copyBytes (base `plusPtr` cellLen) dat dlen
              touchForeignPtr (dbScratchFP db)
              pos <- newPos
              writeIORef (stRun st) $! Rows (Snap fp base (base `plusPtr` cellLen) dlen rows bcols
                                               (rc == sqlbatchDone) firstRows scratchDataLen pos)
              return sqlbatchRow
    go run maxRows bufLen = do
      -- Room for the cells of as many columns as the last batch had (the columns' count
      -- the first time): a schema change that adds columns costs a copy below.
      -- (A statement's first batch guesses 'firstCols' columns: a wider one costs a copy
      -- below, once.)
      cols <- case run of
        Rows sn -> return (snCols sn)
        _ -> do
          k <- readFact (stFacts st) factSnapCols
          return (if k >= 0 then k else firstCols)
      -- One buffer: the batch's description (the library's out value), the cells, the
      -- bytes.
      let cellRoom = maxRows * cols * valueSize
          hdr = (batchSize + 15) `quot` 16 * 16
      fp0 <- mallocPlainForeignPtrBytes (hdr + cellRoom + bufLen)
      let pb = unsafeForeignPtrToPtr fp0
          base = pb `plusPtr` hdr
          dat = base `plusPtr` cellRoom
          fp = fp0
      rc <- runFetch db st c h run (fromIntegral maxRows) dat (fromIntegral bufLen) (castPtr pb)
      b <- peekBatch (castPtr pb)
      touchForeignPtr fp
      if rc == sqlbatchEBufferTooSmall
        then do
          go Running maxRows (grow bufLen (batchDataLen b))
        else if rc /= sqlbatchRow && rc /= sqlbatchDone then return rc
        else do
          let rows = batchRows b
              bcols = batchCols b
              done = rc == sqlbatchDone
              cellLen = rows * bcols * valueSize
          writeFact (stFacts st) factSnapCols bcols
          (fp', cells, dat') <-
            if cellLen <= cellRoom
              then do
                when (cellLen > 0) $ copyBytes base (batchCells b) cellLen
                return (fp, base, dat)
              else do
                -- More columns than room for (SQLite prepared the statement again after a
                -- schema change): a buffer of the right size, cells and bytes copied.
                let dlen = batchDataLen b
                nfp <- mallocPlainForeignPtrBytes (cellLen + dlen)
                let nbase = unsafeForeignPtrToPtr nfp
                copyBytes nbase (batchCells b) cellLen
                copyBytes (nbase `plusPtr` cellLen) dat dlen
                touchForeignPtr fp
                return (nfp, nbase, nbase `plusPtr` cellLen)
          if rows == 0
            then do
              writeIORef (stRun st) Finished
              return sqlbatchDone
            else do
              pos <- newPos
              writeIORef (stRun st) $! Rows (Snap fp' cells dat' (batchDataLen b) rows bcols done maxRows bufLen pos)
              return sqlbatchRow
    grow have need = head [x | x <- iterate (* 2) (max 1024 have), x >= need]
{-# INLINE fetchSnapshot #-}

-- | Binds the values of the slots (every parameter) with one unsafe @sqlbatch_stmt_bind@
-- of a statement that is not in the middle of a run: the cells in one buffer, a TEXT or
-- BLOB cell holding the address of its bytes (@SQLBATCH_PARAMS_ADDRESSES@), kept alive
-- until the call returns (a bind on another thread may replace a slot meanwhile). A table
-- value is bound as NULL here and returned with its index, in order, for its own bind
-- after this one. With the lock held: the values are laid out in the connection's scratch
-- (no buffer allocated) when they fit and no hook of the connection runs on this thread
-- (there the scratch may be the hooked call's); the library has copied them when the call
-- returns.
sendBinds :: Database -> Ptr CStmt -> Slots -> IO (Int32, [(Int, TableValue)])
sendBinds db h slots = do
  hs <- readIORef (dbHookThreads db)
  withScratch db (not (null hs)) (sendBindsRoom (slotCount slots)) $ \front ->
    sendBindsAt front h slots

-- | The bytes 'sendBindsAt' lays @n@ values out in.
sendBindsRoom :: Int -> Int
sendBindsRoom n = (paramsSize + 15) `quot` 16 * 16 + max 1 n * valueSize
{-# INLINE sendBindsRoom #-}

-- | 'sendBinds' with the values laid out at @front@ ('sendBindsRoom' bytes).
sendBindsAt :: Ptr Word8 -> Ptr CStmt -> Slots -> IO (Int32, [(Int, TableValue)])
sendBindsAt front h slots = do
  let cells = front `plusPtr` hdr
      put :: Int -> Word64 -> Word32 -> Word8 -> IO ()
      put i bits len kind = do
        let cell = cells `plusPtr` ((i - 1) * valueSize) :: Ptr Word8
        pokeByteOff cell valueBitsOff bits
        pokeByteOff cell valueLenOff len
        pokeByteOff cell valueKindOff kind
        pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
        pokeByteOff cell (valueKindOff + 2) (0 :: Word16)
      bytes i kind b = BU.unsafeUseAsCStringLen b $ \(p, len) ->
        put i (fromIntegral (ptrToWordPtr p)) (fromIntegral len) kind
      fill !i keep tables
        | i > n = return (keep, tables)
        | otherwise = do
            v <- readSlot slots i
            case v of
              VInteger x -> put i (fromIntegral x) 0 kindInteger >> fill (i + 1) keep tables
              VFloat d -> put i (castDoubleToWord64 d) 0 kindFloat >> fill (i + 1) keep tables
              VNull -> put i 0 0 kindNull >> fill (i + 1) keep tables
              VText b -> bytes i kindText b >> fill (i + 1) (b : keep) tables
              VBlob b -> case tableOfBlob b of
                Just t -> put i 0 0 kindNull >> fill (i + 1) keep ((i, t) : tables)
                Nothing -> bytes i kindBlob b >> fill (i + 1) (b : keep) tables
  (keep, tables) <- fill 1 [] []
  pokeParams (castPtr front) cells nullPtr n nullPtr 0 paramsAddresses
  rc <- c_sqlbatch_stmt_bind_unsafe h (castPtr front)
  IO (\s -> (# touch# keep s, () #))
  return (rc, if null tables then [] else reverse tables)
  where
    n = slotCount slots
    hdr = (paramsSize + 15) `quot` 16 * 16

maxSnapBuf, cellBudget :: Int
maxSnapBuf = 16 * 1024 * 1024
cellBudget = 64 * 1024

-- | Rows per snapshot of a statement with this many columns: about 'cellBudget' bytes of
-- cells.
maxRowsFor :: Int -> Int
maxRowsFor cols = max 16 (min 16384 (cellBudget `quot` (valueSize * max 1 cols)))

