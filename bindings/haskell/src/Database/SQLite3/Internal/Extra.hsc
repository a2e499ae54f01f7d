{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLite3.Internal.Extra
-- Description : Blob I/O, online backup, serialization, limits, switches and hooks for
--               "Database.SQLite3.Direct" and "Database.SQLite3"
--
-- The rest of SQLite's surface for direct-sqlite's API, over sqlbatch's C ABI: incremental
-- blob I/O ('blobOpen' ... 'blobReadMany'), the online backup ('backupInit' ...
-- 'backupFinish', 'backupToFile', 'restoreFromFile'), 'serialize' / 'deserialize', limits,
-- @db_config@ switches, checkpoints, status counters, and the hooks (update, commit,
-- rollback, WAL, progress, busy, authorizer, preupdate, the batched change feed, and the
-- trace). Sessions and changesets are in "Database.SQLite3.Internal.Session". Every function
-- returns its error (direct-sqlite's "Direct" style); "Database.SQLite3" has the throwing
-- forms.
--
-- = Safety
--
-- Every call that does I/O or can run a hook written in Haskell is a @safe@ foreign call;
-- only pure getters (sizes, page counts, limits, switches, counters) are @unsafe@. A 'Blob'
-- or 'Backup' may be closed twice, before or after its connection, in any order, from any
-- thread: a closed one gives 'ErrorMisuse' (its getters 0); one nobody references any more is
-- closed by the garbage collector. Closing a connection closes its blob handles and finishes
-- the backups it is the destination of (the C library does); they then give 'ErrorMisuse'
-- and still close cleanly. Calls take the connection's lock (a backup takes both, always in
-- the same order).
--
-- = Hooks
--
-- Each hook's closure is held by a 'StablePtr' passed to the library as its user data, and
-- called through one 'FunPtr' per hook kind, made once (@foreign import ccall "wrapper"@).
-- The library calls the destroy callback exactly once per registration (when it is replaced
-- or removed, when the connection closes, or at once if the registration fails), which
-- frees the 'StablePtr'; 'liveHookCount' counts the registrations not yet destroyed.
--
-- An exception thrown by a hook never unwinds through C. It is caught, the first one is kept
-- on the connection for 'takeHookException', and the hook answers as if it had said no: a
-- commit hook vetoes the commit, a progress handler interrupts the statement, a busy handler
-- gives up ('ErrorBusy'), an authorizer denies ('ErrorAuthorization'), a WAL hook makes the
-- committing statement report 'ErrorError' (the commit stands). An update hook, preupdate
-- hook, rollback hook, change feed or trace cannot stop anything: its exception is only
-- kept.
--
-- A hook must not use its own connection (SQLite's rule); here such a use throws
-- 'HookReentry' inside the hook (instead of waiting forever for the connection's lock, which
-- the call that fired the hook holds), which is then handled as above. The WAL hook is the
-- exception SQLite makes: it may run SQL on its connection (e.g. 'walCheckpoint').
module Database.SQLite3.Internal.Extra
  ( -- * Incremental blob I/O
    Blob
  , blobOpen
  , blobClose
  , blobReopen
  , blobBytes
  , blobRead
  , blobReadBuf
  , blobWrite
  , blobReadMany
  , blobDatabase
    -- * Online backup
  , Backup
  , BackupStepResult (..)
  , backupInit
  , backupStep
  , backupRemaining
  , backupPagecount
  , backupFinish
  , backupDestination
  , backupToFile
  , restoreFromFile
    -- * Serialization
  , DeserializeFlag (..)
  , serialize
  , deserialize
    -- * Encryption
  , rekey
  , export
    -- * Limits, switches and state
  , Limit (..)
  , getLimit
  , setLimit
  , DbConfig (..)
  , getDbConfig
  , setDbConfig
  , CheckpointMode (..)
  , walCheckpoint
  , DbStatus (..)
  , dbStatus
  , TxnState (..)
  , txnState
  , dbReadOnly
  , dbFilename
    -- * Hooks
  , ChangeOp (..)
  , setUpdateHook
  , setCommitHook
  , setRollbackHook
  , setWalHook
  , setProgressHandler
  , setBusyHandler
  , AuthAction (..)
  , AuthResult (..)
  , setAuthorizer
  , Change (..)
  , FeedReason (..)
  , setChangeFeed
  , PreUpdate (..)
  , PreUpdateFlag (..)
  , setPreUpdateHook
  , setPreUpdateHookWith
    -- * Tracing
  , TraceFlag (..)
  , TraceEvent (..)
  , setTraceEvents
  , setStatementTrace
    -- * Hook exceptions and bookkeeping
  , takeHookException
  , HookReentry (..)
  , liveHookCount
  ) where

import Control.Exception (mask_, throwIO)
import Control.Monad (forM, when)
import Data.Bits ((.&.), (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.IORef
import qualified Data.IntMap.Strict as IM
import Data.Text (Text)
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.C.String (CString)
import Foreign.C.Types (CBool (..), CChar, CSize (..))
import Foreign.ForeignPtr (ForeignPtr, newForeignPtr, withForeignPtr)
import Foreign.Marshal.Alloc (alloca, allocaBytes)
import Foreign.Ptr (FunPtr, Ptr, castPtr, nullFunPtr, nullPtr, plusPtr)
import Foreign.StablePtr
import Foreign.Storable (peek, peekByteOff, pokeByteOff)
import GHC.ForeignPtr (mallocPlainForeignPtrBytes)
import System.IO.Unsafe (unsafePerformIO)
import System.Mem.Weak (Weak)

import Database.SQLBatch.Raw.Types (CBackup, CBlob, CConn, CTraceEvent, TraceView (..), peekTraceEvent, sqlbatchDone, sqlbatchEBufferTooSmall,
                                    sqlbatchERange, sqlbatchOk)
import Database.SQLBatch.Raw.Extra
import Database.SQLBatch.Raw.Types (Cipher, withBytesOrNull)
import Database.SQLBatch.Internal.Core (Database (dbCallsBack), exportHandle, rekeyHandle)
import Database.SQLite3.Internal

#include "sqlbatch.h"

------------------------------------------------------------------------------------------
-- Foreign imports

-- | The Haskell closures behind each kind (the C signature without the user data).
type UpdateBatchH = Ptr () -> CSize -> Ptr () -> CSize -> IO Int32
type WalH = CString -> Int32 -> IO Int32
type BusyH = Int32 -> IO Int32
type AuthH = Int32 -> CString -> CString -> CString -> CString -> IO Int32
type FeedH = Ptr () -> CSize -> Ptr () -> CSize -> Int32 -> IO ()

-- | A hook kind's static 'FunPtr', tagged with the type of closure its user data holds.
newtype HookFP f h = HookFP (FunPtr f)

------------------------------------------------------------------------------------------
-- Helpers

-- | Passes a name as (pointer, length); an empty one as NULL, which the library reads as
-- @\"main\"@.
withName :: Utf8 -> (CString -> CSize -> IO a) -> IO a
withName (Utf8 b) = withBytesOrNull b

-- | Like 'withName' for an optional name ('Nothing': NULL).
withMaybeName :: Maybe Utf8 -> (CString -> CSize -> IO a) -> IO a
withMaybeName = maybe (\k -> k nullPtr 0) withName

-- | A library call's status as a result, recording the failure on the connection.
result :: Database -> a -> Int32 -> IO (Either Error a)
result db x rc
  | rc == sqlbatchOk = return (Right x)
  | otherwise = Left <$> libraryFailure db rc

misuse :: Database -> IO (Either Error a)
misuse db = ownFailure db 21

-- | Runs @k@ with the open connection's handle, or fails with 'ErrorMisuse'.
withOpen :: Database -> (Ptr CConn -> IO (Either Error a)) -> IO (Either Error a)
withOpen db k = withLock db $ \c -> if c == nullPtr then misuse db else k c

{-# NOINLINE handleIds #-}
handleIds :: IORef Int
handleIds = unsafePerformIO (newIORef 0)

nextHandleId :: IO Int
nextHandleId = atomicModifyIORef' handleIds (\n -> (n + 1, n + 1))

------------------------------------------------------------------------------------------
-- Blobs

-- | A handle on one value (one column of one row) for incremental I/O
-- (<https://www.sqlite.org/c3ref/blob.html>). Closed by 'blobClose', or by the garbage
-- collector once unreachable.
data Blob = Blob
  { blDb :: !Database
  , blHandle :: !(IORef (Ptr CBlob))   -- ^ 'nullPtr' once closed (under the lock)
  , blId :: !Int
  , blGuess :: !(IORef Int)
    -- ^ the guess of 'blobReadMany' for a range to the end: the mean length of those its
    -- last library call read (a race between threads only makes it a worse guess)
  }

instance Eq Blob where
  a == b = blId a == blId b

instance Show Blob where
  show b = "Blob <" ++ show (blId b) ++ ">"

-- | The connection a blob handle belongs to.
blobDatabase :: Blob -> Database
blobDatabase = blDb

-- | <https://www.sqlite.org/c3ref/blob_open.html>: opens column @column@ of row @rowid@ of
-- @table@ in database @db@ (@\"main\"@; empty means @\"main\"@), for writing too if the
-- flag is set. The value's size is fixed (set it with @zeroblob(N)@ first).
blobOpen :: Database -> Utf8 -> Utf8 -> Utf8 -> Int64 -> Bool -> IO (Either Error Blob)
blobOpen db schema table column rowid rw = mask_ $ withOpen db $ \c ->
  withName schema $ \sp sn -> withName table $ \tp tn -> withName column $ \cp cn ->
  alloca $ \out -> do
    rc <- c_sqlbatch_blob_open c sp sn tp tn cp cn rowid (CBool (if rw then 1 else 0)) out
    if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
      h <- peek out
      ref <- newIORef h
      i <- nextHandleId
      size <- alloca $ \p -> do
        src <- c_sqlbatch_blob_size h p
        if src == sqlbatchOk then fromIntegral <$> peek p else return 0
      guess <- newIORef (initialGuess size)
      let b = Blob db ref i guess
      _ <- mkWeakIORef ref (() <$ blobClose b) :: IO (Weak (IORef (Ptr CBlob)))
      return (Right b)

-- | <https://www.sqlite.org/c3ref/blob_close.html>: closes the handle. Closing again, or
-- after the connection was closed, is fine (@Right ()@).
blobClose :: Blob -> IO (Either Error ())
blobClose b = mask_ $ withLock (blDb b) $ \_ -> do
  h <- readIORef (blHandle b)
  when (h /= nullPtr) $ do
    writeIORef (blHandle b) nullPtr
    c_sqlbatch_blob_close h
  return (Right ())

-- | Runs @k@ with the blob's handle (and the connection's lock), or fails with 'ErrorMisuse'
-- once closed.
withBlobHandle :: Blob -> (Ptr CBlob -> IO (Either Error a)) -> IO (Either Error a)
withBlobHandle b k = withLock (blDb b) $ \_ -> do
  h <- readIORef (blHandle b)
  if h == nullPtr then misuse (blDb b) else k h

-- | A blob call's status: a range outside the value is 'ErrorError', as SQLite reports it.
blobResult :: Database -> a -> Int32 -> IO (Either Error a)
blobResult db x rc
  | rc == sqlbatchERange = do
      _ <- libraryFailure db rc
      return (Left ErrorError)
  | otherwise = result db x rc

-- | <https://www.sqlite.org/c3ref/blob_reopen.html>: moves the handle to row @rowid@ (same
-- table and column). Also revives a handle whose row changed ('ErrorAbort').
blobReopen :: Blob -> Int64 -> IO (Either Error ())
blobReopen b rowid = withBlobHandle b $ \h -> c_sqlbatch_blob_reopen h rowid >>= result (blDb b) ()

-- | <https://www.sqlite.org/c3ref/blob_bytes.html>: the value's size in bytes (0 once the
-- handle is closed).
blobBytes :: Blob -> IO Int
blobBytes b = either (const 0) id <$> withBlobHandle b (\h -> alloca $ \p -> do
  rc <- c_sqlbatch_blob_size h p
  if rc == sqlbatchOk then Right . fromIntegral <$> peek p else return (Right 0))

-- | <https://www.sqlite.org/c3ref/blob_read.html>: @blobRead blob len offset@ reads @len@
-- bytes at @offset@, in one call whatever the length. A range outside the value is
-- 'ErrorError'; a row changed since the handle was opened or moved, 'ErrorAbort'.
blobRead :: Blob -> Int -> Int -> IO (Either Error B.ByteString)
blobRead b len off
  | len < 0 || off < 0 = rangeError (blDb b)
  | otherwise = do
      fp <- BI.mallocByteString len
      r <- withForeignPtr fp $ \p -> blobReadBuf b p len off
      return (BI.fromForeignPtr fp 0 len <$ r)

rangeError :: Database -> IO (Either Error a)
rangeError db = ownFailure db 1

-- | Like 'blobRead', into memory the caller provides (at least @len@ bytes at the pointer).
blobReadBuf :: Blob -> Ptr a -> Int -> Int -> IO (Either Error ())
blobReadBuf b buf len off
  | len < 0 || off < 0 = rangeError (blDb b)
  | otherwise = withBlobHandle b $ \h ->
      c_sqlbatch_blob_read h (fromIntegral off) (castPtr buf) (fromIntegral len) >>= blobResult (blDb b) ()

-- | <https://www.sqlite.org/c3ref/blob_write.html>: @blobWrite blob bytes offset@ writes the
-- bytes over the value at @offset@ (in one call); the handle must be writable and the range
-- inside the value.
blobWrite :: Blob -> B.ByteString -> Int -> IO (Either Error ())
blobWrite b bs off
  | off < 0 = rangeError (blDb b)
  | otherwise = withBlobHandle b $ \h -> BU.unsafeUseAsCStringLen bs $ \(p, n) ->
      c_sqlbatch_blob_write h (fromIntegral off) (castPtr p) (fromIntegral n) >>= blobResult (blDb b) ()

-- | Reads many ranges, each @(rowid, offset, length)@ of the handle's column ('Nothing': to
-- the end of that row's value), in as few library calls as the bytes allow (usually one):
-- e.g. thousands of small values by rowid. The handle is left on the last row read. The
-- results share one buffer per call (slices, not copies). A failing range fails the whole
-- call (a missing row: 'ErrorError').
--
-- Memory: each library call gets a buffer for the ranges it takes, up to about 1 MiB (a
-- larger range alone gets its own length). A range to the end is counted at a guess: the
-- mean length of the ranges to the end that the handle's previous call read (at first, the
-- size of the value the handle was opened on, within 64 bytes and 64 KiB), plus an eighth
-- for the variation. So many small values cost about their own size, not a fixed amount
-- each. A guess too low costs one more call: the library stops at the first range that does
-- not fit and says how long it is, and the next call goes on from there.
blobReadMany :: Blob -> [(Int64, Int, Maybe Int)] -> IO (Either Error [B.ByteString])
blobReadMany b reqs0
  | any (\(_, o, l) -> o < 0 || maybe False (< 0) l) reqs0 = rangeError (blDb b)
  | null reqs0 = return (Right [])
  | otherwise = allocaBytes (slots * rangeSize) $ \rs -> do
      g <- readIORef (blGuess b)
      go rs g reqs0 []
  where
    rangeSize = #{size sqlbatch_blob_range}
    -- The range array, made once for the whole list: as many entries as one call may take.
    slots = boundedLength maxRangesPerCall reqs0
    -- One library call for the ranges that fit in the budget (at least one); only those are
    -- marshalled (not every range left, which made a long list quadratic). Each call's
    -- slices are one list (chunks holds them, the last call's first); the ranges a call did
    -- not read go to the next one.
    go _ _ [] chunks = return $ Right $ case chunks of
      [one] -> one
      _ -> concat (reverse chunks)
    go rs g reqs chunks = do
      (n, known, guessed) <- marshal rs g reqs
      let bufLen = max 64 (known + guessed + guessed `quot` 8)
      fp <- mallocPlainForeignPtrBytes bufLen
      r <- withBlobHandle b $ \h -> withForeignPtr fp $ \buf -> alloca $ \pdone -> do
        rc <- c_sqlbatch_blob_read_many h (castPtr rs) (fromIntegral n) buf (fromIntegral bufLen) pdone
        done <- fromIntegral <$> peek pdone
        if rc == sqlbatchOk then return (Right (done, False))
          else if rc == sqlbatchEBufferTooSmall && done < n then return (Right (done, True))
          else blobResult (blDb b) (0, False) rc
      case r of
        Left e -> return (Left e)
        Right (done, short) -> do
          (slices, total) <- peekSlices rs fp done
          let Skipped left knownDone nKnown = skipRead done reqs
              -- The ranges to the end just read: their count and bytes.
              nEnd = done - nKnown
              sumEnd = total - knownDone
          -- The range at done did not fit (a guess was low): its length is known now.
          (left', sumEnd', nEnd') <- case left of
            (rid, o, l) : more | short -> do
              need <- peekLen rs done
              return ((rid, o, Just need) : more, maybe (sumEnd + need) (const sumEnd) l,
                      maybe (nEnd + 1) (const nEnd) l)
            _ -> return (left, sumEnd, nEnd)
          let g' = if nEnd' > 0 then max 1 ((sumEnd' + nEnd' - 1) `quot` nEnd') else g
          writeIORef (blGuess b) g'
          go rs g' left' (if done > 0 then slices : chunks else chunks)
    -- Writes the ranges the call takes: while the buffer they need (the known lengths, the
    -- guesses and an eighth of the guesses) stays within the budget, and there is a slot.
    -- Returns how many, and their known and guessed bytes.
    marshal :: Ptr () -> Int -> [(Int64, Int, Maybe Int)] -> IO (Int, Int, Int)
    marshal rs g = loop 0 0 0
      where
        loop !i !known !guessed reqs = case reqs of
          (rid, o, l) : more | i < slots -> do
            let known' = maybe known (known +) l
                guessed' = maybe (guessed + g) (const guessed) l
            if i > 0 && known' + guessed' + guessed' `quot` 8 > readBudget
              then return (i, known, guessed)
              else do
                let p = rs `plusPtr` (i * rangeSize)
                #{poke sqlbatch_blob_range, rowid} p rid
                #{poke sqlbatch_blob_range, offset} p (fromIntegral o :: Word64)
                #{poke sqlbatch_blob_range, len} p (maybe maxBound fromIntegral l :: Word64)
                #{poke sqlbatch_blob_range, at} p (0 :: Word64)
                loop (i + 1) known' guessed' more
          _ -> return (i, known, guessed)
    -- The first done ranges' slices, in order (built from the last one back), and their
    -- bytes.
    peekSlices :: Ptr () -> ForeignPtr Word8 -> Int -> IO ([B.ByteString], Int)
    peekSlices rs fp done = loop (done - 1) [] 0
      where
        loop !i acc !total
          | i < 0 = return (acc, total)
          | otherwise = do
              let p = rs `plusPtr` (i * rangeSize)
              len <- fromIntegral <$> (#{peek sqlbatch_blob_range, len} p :: IO Word64)
              at <- fromIntegral <$> (#{peek sqlbatch_blob_range, at} p :: IO Word64)
              let !v = BI.fromForeignPtr fp at len
              loop (i - 1) (v : acc) (total + len)
    peekLen rs i = fromIntegral <$> (#{peek sqlbatch_blob_range, len} (rs `plusPtr` (i * rangeSize)) :: IO Word64)

-- | The walk of 'blobReadMany' past the ranges a call read: the ranges after them, and the
-- known lengths among them (their sum and count).
data Skipped = Skipped [(Int64, Int, Maybe Int)] !Int !Int

skipRead :: Int -> [(Int64, Int, Maybe Int)] -> Skipped
skipRead = go 0 0
  where
    go !known !nKnown k reqs = case reqs of
      (_, _, l) : more | k > 0 -> case l of
        Just x -> go (known + x) (nKnown + 1) (k - 1 :: Int) more
        Nothing -> go known nKnown (k - 1) more
      _ -> Skipped reqs known nKnown

-- | The buffer one 'blobReadMany' library call asks for at most (unless one range alone
-- needs more), and the ranges it takes at most.
readBudget, maxRangesPerCall :: Int
readBudget = 1024 * 1024
maxRangesPerCall = 4096

-- | A new handle's guess of a to-the-end range: the size of the value it was opened on,
-- within 64 bytes and 64 KiB.
initialGuess :: Int -> Int
initialGuess = max 64 . min 65536

-- | The length of a list, counting up to the bound at most.
boundedLength :: Int -> [a] -> Int
boundedLength bound = go 0
  where
    go !k xs = case xs of
      _ : more | k < bound -> go (k + 1) more
      _ -> k

------------------------------------------------------------------------------------------
-- Backups

-- | What 'backupStep' did (direct-sqlite's type).
data BackupStepResult
  = BackupOK    -- ^ There are still more pages to be copied.
  | BackupDone  -- ^ All pages were successfully copied.
  deriving (Eq, Show)

-- | An online backup from one connection's database to another's
-- (<https://www.sqlite.org/backup.html>). Finished by 'backupFinish', or by the garbage
-- collector once unreachable. Until it is finished, the destination connection is the
-- backup's alone: every other use of it fails with 'ErrorBusy'.
data Backup = Backup
  { bkDest :: !Database
  , bkSrc :: !Database
  , bkHandle :: !(IORef (Ptr CBackup))
  , bkId :: !Int
  }

instance Eq Backup where
  a == b = bkId a == bkId b

instance Show Backup where
  show b = "Backup <" ++ show (bkId b) ++ ">"

-- | The destination connection of a backup.
backupDestination :: Backup -> Database
backupDestination = bkDest

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupinit>: @backupInit dest
-- destName src srcName@ prepares to copy database @srcName@ of @src@ over @destName@ of
-- @dest@ (names such as @\"main\"@; empty means @\"main\"@). The connections must differ
-- ('ErrorMisuse' otherwise).
backupInit :: Database -> Utf8 -> Database -> Utf8 -> IO (Either Error Backup)
backupInit dest dn src sn
  | dest == src = misuse dest
  | otherwise = mask_ $ withLocks dest src $ \cd cs ->
      if cd == nullPtr || cs == nullPtr then misuse dest else
      withName dn $ \dp dl -> withName sn $ \sp sl -> alloca $ \out -> do
        rc <- c_sqlbatch_backup_init cd dp dl cs sp sl out
        if rc /= sqlbatchOk then Left <$> libraryFailure dest rc else do
          h <- peek out
          ref <- newIORef h
          i <- nextHandleId
          let bk = Backup dest src ref i
          _ <- mkWeakIORef ref (() <$ backupFinish bk) :: IO (Weak (IORef (Ptr CBackup)))
          return (Right bk)

withBackupHandle :: Backup -> (Ptr CBackup -> IO (Either Error a)) -> IO (Either Error a)
withBackupHandle bk k = withLocks (bkDest bk) (bkSrc bk) $ \_ _ -> do
  h <- readIORef (bkHandle bk)
  if h == nullPtr then misuse (bkDest bk) else k h

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupstep>: copies up to that
-- many pages (all that remain if negative). 'ErrorBusy' or 'ErrorLocked' (a lock held
-- elsewhere) lose nothing: step again later. Another error is final (only 'backupFinish'
-- remains). The message is the destination's ('Database.SQLite3.Direct.errmsg').
backupStep :: Backup -> Int -> IO (Either Error BackupStepResult)
backupStep bk pages = withBackupHandle bk $ \h -> do
  rc <- c_sqlbatch_backup_step h (fromIntegral (max (-1) (min 0x7fffffff pages)))
  if rc == sqlbatchOk then return (Right BackupOK)
    else if rc == sqlbatchDone then return (Right BackupDone)
    else Left <$> libraryFailure (bkDest bk) rc

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupremaining>: pages still
-- to copy as of the last step (0 once finished).
backupRemaining :: Backup -> IO Int
backupRemaining bk = backupGetter bk c_sqlbatch_backup_remaining

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backuppagecount>: the source's
-- pages as of the last step (0 before the first, and once finished).
backupPagecount :: Backup -> IO Int
backupPagecount bk = backupGetter bk c_sqlbatch_backup_pagecount

backupGetter :: Backup -> (Ptr CBackup -> Ptr Int64 -> IO Int32) -> IO Int
backupGetter bk f = either (const 0) id <$> withBackupHandle bk (\h -> alloca $ \p -> do
  rc <- f h p
  if rc == sqlbatchOk then Right . fromIntegral <$> peek p else return (Right 0))

-- | <https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupfinish>: ends the backup,
-- complete or not (the destination keeps the copy only if it completed), returning the
-- error that ended it, if any. Finishing again, or after either connection was closed, is
-- fine.
backupFinish :: Backup -> IO (Either Error ())
backupFinish bk = mask_ $ withLocks (bkDest bk) (bkSrc bk) $ \_ _ -> do
  h <- readIORef (bkHandle bk)
  if h == nullPtr then return (Right ()) else do
    writeIORef (bkHandle bk) nullPtr
    rc <- c_sqlbatch_backup_finish h
    if rc == sqlbatchOk then return (Right ()) else Left <$> libraryFailure (bkDest bk) rc

-- | Copies database @schema@ (empty: @\"main\"@) of the connection into the file at the
-- path (created, or replaced if it holds a database; a file that is not one is left alone:
-- 'ErrorNotADatabase'), in one call.
backupToFile :: Database -> Utf8 -> Utf8 -> IO (Either Error ())
backupToFile db schema path = withOpen db $ \c -> withName schema $ \sp sl ->
  withName path $ \pp pl -> c_sqlbatch_conn_backup_to_file c sp sl pp pl >>= result db ()

-- | Replaces database @schema@ (empty: @\"main\"@) of the connection with the database in
-- the file at the path, in one call.
restoreFromFile :: Database -> Utf8 -> Utf8 -> IO (Either Error ())
restoreFromFile db schema path = withOpen db $ \c -> withName schema $ \sp sl ->
  withName path $ \pp pl -> c_sqlbatch_conn_restore_from_file c sp sl pp pl >>= result db ()

------------------------------------------------------------------------------------------
-- Serialization

-- | How 'deserialize' opens the bytes.
data DeserializeFlag
  = DeserializeReadOnly    -- ^ the database refuses writes
  | DeserializeResizeable  -- ^ writes may grow it past the buffer's size
  deriving (Eq, Show)

-- | <https://www.sqlite.org/c3ref/serialize.html>: database @schema@ (empty: @\"main\"@) as
-- the bytes its file would hold. The bytes are the library's buffer, handed over without a
-- copy and freed by the garbage collector.
serialize :: Database -> Utf8 -> IO (Either Error B.ByteString)
serialize db schema = mask_ $ withOpen db $ \c -> withName schema $ \sp sl ->
  alloca $ \pd -> alloca $ \pl -> do
    rc <- c_sqlbatch_conn_serialize c sp sl pd pl
    if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
      d <- peek pd
      n <- fromIntegral <$> peek pl
      if d == nullPtr then return (Right B.empty) else do
        fp <- newForeignPtr p_sqlbatch_free d
        return (Right (BI.fromForeignPtr fp 0 n))

-- | <https://www.sqlite.org/c3ref/deserialize.html>: replaces database @schema@ (empty:
-- @\"main\"@) with a copy of the bytes. A buffer that is not a database, or a corrupt one,
-- is not checked here: later statements fail with 'ErrorNotADatabase' or 'ErrorCorrupt'.
deserialize :: Database -> Utf8 -> B.ByteString -> [DeserializeFlag] -> IO (Either Error ())
deserialize db schema bytes flags = withOpen db $ \c -> withName schema $ \sp sl ->
  BU.unsafeUseAsCStringLen bytes $ \(p, n) ->
    c_sqlbatch_conn_deserialize c sp sl (castPtr p) (fromIntegral n) (foldr ((.|.) . bit) 0 flags) >>= result db ()
  where
    bit DeserializeReadOnly = #{const SQLBATCH_DESERIALIZE_READONLY}
    bit DeserializeResizeable = #{const SQLBATCH_DESERIALIZE_RESIZEABLE}

------------------------------------------------------------------------------------------
-- Encryption

-- | Changes the key of the encrypted database @schema@ (empty: @\"main\"@) to this one, in
-- one transaction under an exclusive lock ('ErrorBusy' while another connection reads the
-- file, and then nothing has changed); its cipher settings stay. The key is passed to the
-- library in place, not copied, and the library keeps none. SQLCipher encrypts or decrypts
-- no database in place: an empty key or a plain database fails ('ErrorMisuse', the library's
-- @SQLBATCH_E_INVALID_ARGUMENT@, with its message in @errmsg@); 'export' copies one into a
-- new file instead. 'ErrorUnsupported' in a build without encryption.
rekey :: Database -> Utf8 -> B.ByteString -> IO (Either Error ())
rekey db (Utf8 schema) key = withOpen db $ \c -> rekeyHandle c schema key >>= result db ()

-- | @export db schema path key cipher@ writes database @schema@ (empty: @\"main\"@) into a new
-- database file at @path@, encrypted with the key and cipher settings, or plain for an empty
-- key (SQLCipher's @sqlcipher_export@, plus @user_version@ and @application_id@): how a plain
-- database is encrypted, an encrypted one decrypted, or its settings changed. @path@ must not
-- exist or be an empty file; a failure may leave a partial file there. The key is passed in
-- place, as by 'rekey'. 'ErrorUnsupported' in a build without encryption.
export :: Database -> Utf8 -> Utf8 -> B.ByteString -> Cipher -> IO (Either Error ())
export db (Utf8 schema) (Utf8 path) key cipher =
  withOpen db $ \c -> exportHandle c schema path key cipher >>= result db ()

------------------------------------------------------------------------------------------
-- Limits, switches, state

-- | SQLite's run-time limits (<https://www.sqlite.org/c3ref/c_limit_attached.html>).
data Limit
  = LimitLength | LimitSqlLength | LimitColumn | LimitExprDepth | LimitCompoundSelect
  | LimitVdbeOp | LimitFunctionArg | LimitAttached | LimitLikePatternLength
  | LimitVariableNumber | LimitTriggerDepth | LimitWorkerThreads
  deriving (Eq, Show, Enum, Bounded)

-- | <https://www.sqlite.org/c3ref/limit.html>: a limit's current value.
getLimit :: Database -> Limit -> IO (Either Error Int)
getLimit db l = limitCall db l (-1)

-- | Sets a limit (SQLite lowers a value above the compile-time maximum to it), returning
-- the value before. A negative value only reads.
setLimit :: Database -> Limit -> Int -> IO (Either Error Int)
setLimit db l v = limitCall db l (fromIntegral (max (-1) (min 0x7fffffff v)))

limitCall :: Database -> Limit -> Int32 -> IO (Either Error Int)
limitCall db l v = withOpen db $ \c -> alloca $ \p -> do
  rc <- c_sqlbatch_conn_limit c (fromIntegral (fromEnum l)) v p
  if rc == sqlbatchOk then Right . fromIntegral <$> peek p else Left <$> libraryFailure db rc

-- | On/off switches of @sqlite3_db_config@
-- (<https://www.sqlite.org/c3ref/c_dbconfig_defensive.html>).
data DbConfig
  = DbConfigEnableFKey | DbConfigEnableTrigger | DbConfigEnableView | DbConfigDefensive
  | DbConfigTrustedSchema | DbConfigDqsDml | DbConfigDqsDdl | DbConfigResetDatabase
  | DbConfigWritableSchema | DbConfigLegacyAlterTable | DbConfigNoCkptOnClose
  | DbConfigEnableQpsg | DbConfigTriggerEqp | DbConfigLegacyFileFormat
  | DbConfigOther !Int  -- ^ any other @SQLITE_DBCONFIG_*@ switch, by number
  deriving (Eq, Show)

dbConfigOp :: DbConfig -> Int32
dbConfigOp o = case o of
  DbConfigEnableFKey -> 1002
  DbConfigEnableTrigger -> 1003
  DbConfigNoCkptOnClose -> 1006
  DbConfigEnableQpsg -> 1007
  DbConfigTriggerEqp -> 1008
  DbConfigResetDatabase -> 1009
  DbConfigDefensive -> 1010
  DbConfigWritableSchema -> 1011
  DbConfigLegacyAlterTable -> 1012
  DbConfigDqsDml -> 1013
  DbConfigDqsDdl -> 1014
  DbConfigEnableView -> 1015
  DbConfigLegacyFileFormat -> 1016
  DbConfigTrustedSchema -> 1017
  DbConfigOther n -> fromIntegral n

-- | A switch's state.
getDbConfig :: Database -> DbConfig -> IO (Either Error Bool)
getDbConfig db o = dbConfigCall db o (-1)

-- | Sets a switch, returning its state after the call.
setDbConfig :: Database -> DbConfig -> Bool -> IO (Either Error Bool)
setDbConfig db o v = dbConfigCall db o (if v then 1 else 0)

dbConfigCall :: Database -> DbConfig -> Int32 -> IO (Either Error Bool)
dbConfigCall db o v = withOpen db $ \c -> alloca $ \p -> do
  rc <- c_sqlbatch_conn_db_config c (dbConfigOp o) v p
  if rc == sqlbatchOk then Right . (/= 0) <$> peek p else Left <$> libraryFailure db rc

-- | Modes of 'walCheckpoint' (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>).
data CheckpointMode = CheckpointPassive | CheckpointFull | CheckpointRestart | CheckpointTruncate
  deriving (Eq, Show, Enum, Bounded)

-- | <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>: checkpoints database @schema@
-- ('Nothing': every attached one), returning the frames in the log and the frames
-- checkpointed (-1 each when not in WAL mode). 'ErrorBusy' if another connection held a
-- lock (the checkpoint did what it could).
walCheckpoint :: Database -> Maybe Utf8 -> CheckpointMode -> IO (Either Error (Int, Int))
walCheckpoint db schema mode = withOpen db $ \c -> withMaybeName schema $ \sp sl ->
  alloca $ \pl -> alloca $ \pc -> do
    rc <- c_sqlbatch_conn_checkpoint c sp sl (fromIntegral (fromEnum mode)) pl pc
    if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
      l <- peek pl
      k <- peek pc
      return (Right (fromIntegral l, fromIntegral k))

-- | Connection status counters (<https://www.sqlite.org/c3ref/c_dbstatus_options.html>).
data DbStatus
  = DbStatusLookasideUsed | DbStatusCacheUsed | DbStatusSchemaUsed | DbStatusStmtUsed
  | DbStatusLookasideHit | DbStatusLookasideMissSize | DbStatusLookasideMissFull
  | DbStatusCacheHit | DbStatusCacheMiss | DbStatusCacheWrite | DbStatusDeferredFks
  | DbStatusCacheUsedShared | DbStatusCacheSpill
  deriving (Eq, Show, Enum, Bounded)

-- | <https://www.sqlite.org/c3ref/db_status.html>: a counter's (current, high-water) values,
-- resetting it (the high-water mark, or for hits and misses the counter) if asked.
dbStatus :: Database -> DbStatus -> Bool -> IO (Either Error (Int64, Int64))
dbStatus db op rst = withOpen db $ \c -> alloca $ \pc -> alloca $ \ph -> do
  rc <- c_sqlbatch_conn_status c (fromIntegral (fromEnum op)) (CBool (if rst then 1 else 0)) pc ph
  if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
    cur <- peek pc
    hi <- peek ph
    return (Right (cur, hi))

-- | A transaction's state (<https://www.sqlite.org/c3ref/txn_state.html>).
data TxnState = TxnNone | TxnRead | TxnWrite
  deriving (Eq, Show, Enum, Bounded)

-- | The transaction state of database @schema@ ('Nothing': the most advanced of all).
txnState :: Database -> Maybe Utf8 -> IO (Either Error TxnState)
txnState db schema = withOpen db $ \c -> withMaybeName schema $ \sp sl -> alloca $ \p -> do
  rc <- c_sqlbatch_conn_txn_state c sp sl p
  if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
    v <- peek p
    return (Right (toEnum (fromIntegral (max 0 (min 2 v)))))

-- | <https://www.sqlite.org/c3ref/db_readonly.html>: whether database @schema@ (empty:
-- @\"main\"@) is read-only.
dbReadOnly :: Database -> Utf8 -> IO (Either Error Bool)
dbReadOnly db schema = withOpen db $ \c -> withName schema $ \sp sl -> alloca $ \p -> do
  rc <- c_sqlbatch_conn_readonly c sp sl p
  if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
    CBool v <- peek p
    return (Right (v /= 0))

-- | <https://www.sqlite.org/c3ref/db_filename.html>: the absolute path of the file behind
-- database @schema@ (empty: @\"main\"@); empty for an in-memory or temporary database.
dbFilename :: Database -> Utf8 -> IO (Either Error Utf8)
dbFilename db schema = withOpen db $ \c -> withName schema $ \sp sl -> alloca $ \p -> do
  rc <- c_sqlbatch_conn_filename c sp sl p
  if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
    s <- peek p
    if s == nullPtr then return (Right (Utf8 B.empty)) else Right . Utf8 <$> B.packCString s

------------------------------------------------------------------------------------------
-- Hooks

{-# NOINLINE liveHooks #-}
liveHooks :: IORef Int
liveHooks = unsafePerformIO (newIORef 0)

-- | The number of hook registrations (of every connection) whose closure the library still
-- holds: it goes up with each registration and down when the library destroys it (on
-- replacement, removal, close, or a failed registration). For tests and leak checks.
liveHookCount :: IO Int
liveHookCount = readIORef liveHooks

destroyFP :: FunPtr DestroyFn
destroyFP = unsafePerformIO $ mkDestroy $ \ud -> do
  freeStablePtr (castPtrToStablePtr ud)
  atomicModifyIORef' liveHooks (\n -> (n - 1, ()))
{-# NOINLINE destroyFP #-}

-- | Registers a hook: @install c fn userData destroy@ is the library call; @fp@ the kind's
-- 'FunPtr'; @mk c@ builds the closure (given the connection's handle). 'Nothing' removes.
register :: Database -> (Ptr CConn -> FunPtr f -> Ptr () -> FunPtr DestroyFn -> IO Int32)
         -> HookFP f h -> Maybe (Ptr CConn -> h) -> IO (Either Error ())
register db install (HookFP fp) mk = mask_ $ withOpen db $ \c -> case mk of
  Nothing -> install c nullFunPtr nullPtr nullFunPtr >>= result db ()
  Just k -> do
    -- From now on SQLite may call back while a statement steps ('runKept').
    writeIORef (dbCallsBack db) True
    sp <- newStablePtr (k c)
    atomicModifyIORef' liveHooks (\n -> (n + 1, ()))
    install c fp (castStablePtrToPtr sp) destroyFP >>= result db ()

callSP :: Ptr () -> IO h
callSP = deRefStablePtr . castPtrToStablePtr
{-# INLINE callSP #-}

-- | What a row change was (the update hook's and the change feed's operation).
data ChangeOp = ChangeInsert | ChangeDelete | ChangeUpdate
  deriving (Eq, Show)

decodeOp :: Int32 -> ChangeOp
decodeOp 18 = ChangeInsert
decodeOp 9 = ChangeDelete
decodeOp _ = ChangeUpdate

updateBatchFP :: HookFP UpdateBatchFn UpdateBatchH
updateBatchFP = HookFP $ unsafePerformIO $ mkUpdateBatch $ \ud cs n ts nt -> do
  f <- callSP ud
  f cs n ts nt
{-# NOINLINE updateBatchFP #-}

-- | <https://www.sqlite.org/c3ref/update_hook.html>: calls the function for every row
-- inserted, deleted or updated, in order, with the database (@\"main\"@...), the table
-- and the rowid; 'Nothing' removes it. Not called for WITHOUT ROWID tables or a truncating
-- DELETE. See the module's description for using the connection from a hook.
--
-- The function is called once per event, but the events do not cross from C one at a time:
-- the library collects them (@sqlbatch_conn_update_hook_batched@) and hands them to Haskell
-- many at a time, each table's names copied once per batch (the same table gives the same
-- 'Utf8' within a batch), never later than the difference could be seen. Every event
-- reaches the function before any other callback of the connection runs (an SQL function,
-- a collation, another hook; before a commit, ahead of the commit hook; before a rollback)
-- and before the call that made it returns (@exec@, @step@ ...). So neither a callback nor
-- the caller can tell it from a call per event; only timing can: a function that reads the
-- clock, or another thread watching what it writes while the statement runs, sees the
-- events a little later (at most 1024 events later).
--
-- An exception of the function is kept for 'takeHookException' (the first one), as a
-- per-event hook's was: the change stands, the statement goes on, and the function is still
-- called for the events after it.
setUpdateHook :: Database -> Maybe (ChangeOp -> Utf8 -> Utf8 -> Int64 -> IO ()) -> IO (Either Error ())
setUpdateHook db mf = register db (\c -> c_sqlbatch_conn_update_hook_batched c 0) updateBatchFP $
  fmap (\f _ cs n ts nt -> 0 <$ updateBatch db f cs (fromIntegral n) ts nt) mf

-- | One batch of the update hook: the function for each event in order, each of them as
-- if it were its own hook call. The thread is registered as in a hook (see 'runHook') once
-- for the batch, not once per event; an exception ends that registration, is kept as
-- 'runHook' keeps it, and the events after it go on in a new one. It never throws.
updateBatch :: Database -> (ChangeOp -> Utf8 -> Utf8 -> Int64 -> IO ()) -> Ptr () -> Int -> Ptr () -> CSize
            -> IO ()
updateBatch db f cs n ts nt = do
  next <- newIORef (0 :: Int)          -- the next event to hand over
  names <- newIORef Nothing            -- the tables' names, once copied
  let events = do
        m <- readIORef names
        tables <- case m of
          Just t -> return t
          Nothing -> do
            t <- peekChangeTables Utf8 ts nt
            writeIORef names (Just t)
            return t
        let loop = do
              i <- readIORef next
              when (i < n) $ do
                writeIORef next (i + 1)
                (op, ti, rowid) <- peekChange cs i
                let (s, t) = tables ti
                f op s t rowid
                loop
        loop
      rounds = do
        r <- inHook db Nothing events
        case r of
          Right () -> return ()
          Left e -> do
            -- Kept as runHook keeps a hook's exception (the first one since the last
            -- takeHookException); runHook is the one place that writes it.
            runHook db Nothing () (throwIO e)
            i <- readIORef next
            when (i < n) rounds
  rounds

commitFP :: HookFP CommitFn (IO Int32)
commitFP = HookFP $ unsafePerformIO $ mkCommit $ \ud -> callSP ud >>= id
{-# NOINLINE commitFP #-}

-- | <https://www.sqlite.org/c3ref/commit_hook.html>: called before each commit; returning
-- 'True' turns the commit into a rollback (as a non-zero return of SQLite's hook does; the
-- statement then fails with 'ErrorConstraint'). An exception vetoes too.
setCommitHook :: Database -> Maybe (IO Bool) -> IO (Either Error ())
setCommitHook db mf = register db c_sqlbatch_conn_commit_hook commitFP $ fmap (\f _ ->
  runHook db Nothing 1 (fromBool <$> f)) mf

fromBool :: Bool -> Int32
fromBool b = if b then 1 else 0

rollbackFP :: HookFP RollbackFn (IO ())
rollbackFP = HookFP $ unsafePerformIO $ mkRollback $ \ud -> callSP ud >>= id
{-# NOINLINE rollbackFP #-}

-- | <https://www.sqlite.org/c3ref/commit_hook.html>: called when a transaction rolls back
-- (not for @ROLLBACK TO@, nor when the connection closes with a transaction open).
setRollbackHook :: Database -> Maybe (IO ()) -> IO (Either Error ())
setRollbackHook db mf = register db c_sqlbatch_conn_rollback_hook rollbackFP $ fmap (\f _ ->
  runHook db Nothing () f) mf

walFP :: HookFP WalFn WalH
walFP = HookFP $ unsafePerformIO $ mkWal $ \ud s n -> do
  f <- callSP ud
  f s n
{-# NOINLINE walFP #-}

-- | <https://www.sqlite.org/c3ref/wal_hook.html>: called after each commit in WAL mode with
-- the database and the frames now in its log. It may use the connection (e.g.
-- 'walCheckpoint'). It replaces SQLite's automatic checkpoints (set them back with
-- @PRAGMA wal_autocheckpoint@ after removing it). An exception makes the committing
-- statement fail with 'ErrorError' (the commit stands).
setWalHook :: Database -> Maybe (Utf8 -> Int -> IO ()) -> IO (Either Error ())
setWalHook db mf = register db c_sqlbatch_conn_wal_hook walFP $ fmap (\f c s n ->
  runHook db (Just c) 1 $ do
    sb <- B.packCString s
    f (Utf8 sb) (fromIntegral n)
    return 0) mf

progressFP :: HookFP CommitFn (IO Int32)
progressFP = HookFP $ unsafePerformIO $ mkCommit $ \ud -> callSP ud >>= id
{-# NOINLINE progressFP #-}

-- | <https://www.sqlite.org/c3ref/progress_handler.html>: called about every @n@ virtual
-- machine steps of a running statement; returning 'True' interrupts it
-- ('ErrorInterrupt'), and so does an exception. 'Nothing' or @n < 1@ removes it.
setProgressHandler :: Database -> Int -> Maybe (IO Bool) -> IO (Either Error ())
setProgressHandler db n mf = register db (\c -> c_sqlbatch_conn_progress_handler c every) progressFP $
  fmap (\f _ -> runHook db Nothing 1 (fromBool <$> f)) (if n < 1 then Nothing else mf)
  where
    every = fromIntegral (max 0 (min 0x7fffffff n))

busyFP :: HookFP BusyFn BusyH
busyFP = HookFP $ unsafePerformIO $ mkBusy $ \ud k -> do
  f <- callSP ud
  f k
{-# NOINLINE busyFP #-}

-- | <https://www.sqlite.org/c3ref/busy_handler.html>: called when a table is locked by
-- another connection, with how many times it was called for this lock; 'True' retries,
-- 'False' (or an exception) gives up with 'ErrorBusy'. It replaces the busy timeout, and a
-- later busy timeout replaces it.
setBusyHandler :: Database -> Maybe (Int -> IO Bool) -> IO (Either Error ())
setBusyHandler db mf = register db c_sqlbatch_conn_busy_handler busyFP $ fmap (\f _ k ->
  runHook db Nothing 0 (fromBool <$> f (fromIntegral k))) mf

-- | An authorizer action code (@SQLITE_CREATE_INDEX@ 1 ... @SQLITE_RECURSIVE@ 33;
-- <https://www.sqlite.org/c3ref/c_alter_table.html>), e.g. 'AuthAction' 20 is
-- @SQLITE_READ@, 18 @SQLITE_INSERT@, 19 @SQLITE_PRAGMA@, 21 @SQLITE_SELECT@.
newtype AuthAction = AuthAction Int
  deriving (Eq, Ord, Show)

-- | An authorizer's verdict.
data AuthResult
  = AuthOk      -- ^ allowed
  | AuthDeny    -- ^ the prepare fails with 'ErrorAuthorization'
  | AuthIgnore  -- ^ the column reads as NULL, or the action is skipped
  deriving (Eq, Show)

authFP :: HookFP AuthFn AuthH
authFP = HookFP $ unsafePerformIO $ mkAuth $ \ud a x y s t -> do
  f <- callSP ud
  f a x y s t
{-# NOINLINE authFP #-}

-- | <https://www.sqlite.org/c3ref/set_authorizer.html>: consulted while statements are
-- prepared, once per action, with up to four names that depend on the action (the last two
-- are the database and the innermost trigger or view). An exception denies. Statements
-- prepared before keep their verdicts.
setAuthorizer :: Database
              -> Maybe (AuthAction -> Maybe Utf8 -> Maybe Utf8 -> Maybe Utf8 -> Maybe Utf8 -> IO AuthResult)
              -> IO (Either Error ())
setAuthorizer db mf = register db c_sqlbatch_conn_authorizer authFP $ fmap (\f _ a x y s t ->
  runHook db Nothing 1 $ do
    x' <- opt x
    y' <- opt y
    s' <- opt s
    t' <- opt t
    r <- f (AuthAction (fromIntegral a)) x' y' s' t'
    return $! case r of
      AuthOk -> 0
      AuthDeny -> 1
      AuthIgnore -> 2) mf
  where
    opt p = if p == nullPtr then return Nothing else Just . Utf8 <$> B.packCString p

-- | One change of a batch of the change feed.
data Change = Change
  { changeOp :: !ChangeOp
  , changeDatabase :: !Text   -- ^ @\"main\"@, @\"temp\"@ or an attached name
  , changeTable :: !Text
  , changeRowId :: !Int64     -- ^ the new rowid for an insert
  }
  deriving (Eq, Show)

-- | Why a batch of the change feed was handed over.
data FeedReason
  = FeedFull      -- ^ the batch was full; its transaction goes on
  | FeedCommit    -- ^ its transaction committed (outside BEGIN, every statement is one)
  | FeedRollback  -- ^ its transaction rolled back: these changes (and those of the batches
                  -- since its last 'FeedCommit') were undone
  deriving (Eq, Show)

feedFP :: HookFP FeedFn FeedH
feedFP = HookFP $ unsafePerformIO $ mkFeed $ \ud cs n ts nt why -> do
  f <- callSP ud
  f cs n ts nt why
{-# NOINLINE feedFP #-}

-- | The batched form of 'setUpdateHook': the changes are collected and handed to the
-- function up to @max@ at a time (@max < 1@: 1024), in the order they happened, when the
-- batch is full, when its transaction commits (with whatever is pending) or rolls back:
-- one Haskell call for many changed rows. Changes pending when the feed is removed or
-- replaced are dropped; @ROLLBACK TO@ a savepoint is not reported (SQLite reports none).
setChangeFeed :: Database -> Int -> Maybe ([Change] -> FeedReason -> IO ()) -> IO (Either Error ())
setChangeFeed db maxChanges mf =
  register db (\c -> c_sqlbatch_conn_change_feed c (fromIntegral (max 0 maxChanges))) feedFP $
    fmap (\f _ cs n ts nt why -> runHook db Nothing () $ do
      tables <- peekChangeTables (TE.decodeUtf8With TE.lenientDecode) ts nt
      evs <- forM [0 .. fromIntegral n - 1] $ \i -> do
        (op, ti, rowid) <- peekChange cs i
        let (s, t) = tables ti
        return $! Change op s t rowid
      f evs (reason why)) mf
  where
    reason :: Int32 -> FeedReason
    reason r
      | r == #{const SQLBATCH_FEED_COMMIT} = FeedCommit
      | r == #{const SQLBATCH_FEED_ROLLBACK} = FeedRollback
      | otherwise = FeedFull

-- | The tables of a batch of changes (@sqlbatch_change_table@s, of the change feed or the
-- batched update hook): each one's (database, table) names copied and converted once, by
-- index; an index outside the batch gives empty names. For the change feed and the update
-- hook alike.
peekChangeTables :: (B.ByteString -> a) -> Ptr () -> CSize -> IO (Int -> (a, a))
peekChangeTables conv ts nt = do
  tables <- forM [0 .. fromIntegral nt - 1] $ \i -> do
    let p = ts `plusPtr` (i * #{size sqlbatch_change_table})
    s <- str (p `plusPtr` #{offset sqlbatch_change_table, schema})
    t <- str (p `plusPtr` #{offset sqlbatch_change_table, name})
    return (s, t)
  let none = (conv B.empty, conv B.empty)
  return $! case tables of
    [one] -> \i -> if i == 0 then one else none
    _ -> let m = IM.fromList (zip [0 ..] tables) in \i -> IM.findWithDefault none i m
  where
    str p = do
      sp <- #{peek sqlbatch_str, ptr} p :: IO (Ptr CChar)
      sl <- #{peek sqlbatch_str, len} p :: IO CSize
      if sp == nullPtr then return $! conv B.empty
        else conv <$> B.packCStringLen (sp, fromIntegral sl)

-- | Change @i@ of a batch (@sqlbatch_change@s): its operation, its table's index and the
-- rowid.
peekChange :: Ptr () -> Int -> IO (ChangeOp, Int, Int64)
peekChange cs i = do
  let p = cs `plusPtr` (i * #{size sqlbatch_change})
  rowid <- #{peek sqlbatch_change, rowid} p :: IO Int64
  op <- #{peek sqlbatch_change, op} p :: IO Int32
  ti <- #{peek sqlbatch_change, table} p :: IO Word32
  return (decodeOp op, fromIntegral ti, rowid)
{-# INLINE peekChange #-}

------------------------------------------------------------------------------------------
-- Preupdate hook

-- | Which rows a preupdate hook is handed ('setPreUpdateHookWith'). Decoding a row costs
-- a copy of its values; without the flags the event carries only what changes where.
data PreUpdateFlag
  = PreUpdateOld  -- ^ the row before the change (DELETE, UPDATE)
  | PreUpdateNew  -- ^ the row after the change (INSERT, UPDATE)
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | A row about to change, for a preupdate hook.
data PreUpdate = PreUpdate
  { preUpdateOp :: !ChangeOp
  , preUpdateDepth :: !Int
    -- ^ 0 for a change the statement makes, 1 for one a trigger it fired makes, 2 for a
    -- trigger of that trigger, ...
  , preUpdateDatabase :: !Text  -- ^ @\"main\"@, @\"temp\"@ or an attached name
  , preUpdateTable :: !Text
  , preUpdateOldRowId :: !Int64
    -- ^ DELETE and UPDATE: the rowid before the change (0 for an INSERT; undefined for a
    -- WITHOUT ROWID table)
  , preUpdateNewRowId :: !Int64
    -- ^ INSERT and UPDATE: the rowid after the change (0 for a DELETE; undefined for a
    -- WITHOUT ROWID table)
  , preUpdateColumnCount :: !Int
  , preUpdateOld :: !(Maybe [SQLData])
    -- ^ with 'PreUpdateOld', for a DELETE or an UPDATE: the row before the change
  , preUpdateNew :: !(Maybe [SQLData])
    -- ^ with 'PreUpdateNew', for an INSERT or an UPDATE: the row after the change
  , preUpdateBlobColumn :: !(Maybe Int)
    -- ^ a write through an incremental blob handle ('blobWrite'): the column written
    -- (the operation is then 'ChangeDelete', and the new row is not known)
  }
  deriving (Eq, Show)

preUpdateFP :: HookFP PreUpdateFn (Ptr () -> IO ())
preUpdateFP = HookFP $ unsafePerformIO $ mkPreUpdate $ \ud p -> do
  f <- callSP ud
  f p
{-# NOINLINE preUpdateFP #-}

-- | <https://www.sqlite.org/c3ref/preupdate_blobwrite.html>: calls the function before
-- every row is inserted, deleted or updated, with the whole change (both rows, decoded);
-- 'Nothing' removes it. Unlike the update hook it sees WITHOUT ROWID tables, and the
-- changes triggers make ('preUpdateDepth'). SQLite has one preupdate slot, which sessions
-- also take: while a 'Database.SQLite3.Internal.Session.Session' of the connection lives,
-- this fails with 'ErrorMisuse'. An exception is kept for 'takeHookException' (the change
-- goes ahead).
setPreUpdateHook :: Database -> Maybe (PreUpdate -> IO ()) -> IO (Either Error ())
setPreUpdateHook db = setPreUpdateHookWith db [PreUpdateOld, PreUpdateNew]

-- | 'setPreUpdateHook' handed only the rows asked for: @[]@ decodes no row at all
-- ('preUpdateOld' and 'preUpdateNew' are then 'Nothing'), the cheapest hook.
setPreUpdateHookWith :: Database -> [PreUpdateFlag] -> Maybe (PreUpdate -> IO ()) -> IO (Either Error ())
setPreUpdateHookWith db which mf =
  register db (\c -> c_sqlbatch_conn_preupdate_hook c flags) preUpdateFP $
    fmap (\f _ p -> runHook db Nothing () (peekPreUpdate p >>= f)) mf
  where
    flags = foldr ((.|.) . bit) 0 which :: Word32
    bit PreUpdateOld = #{const SQLBATCH_PREUPDATE_OLD}
    bit PreUpdateNew = #{const SQLBATCH_PREUPDATE_NEW}

peekPreUpdate :: Ptr () -> IO PreUpdate
peekPreUpdate p = do
  op <- #{peek sqlbatch_preupdate, op} p :: IO Int32
  depth <- #{peek sqlbatch_preupdate, depth} p :: IO Int32
  schema <- peekStrText (p `plusPtr` #{offset sqlbatch_preupdate, schema})
  table <- peekStrText (p `plusPtr` #{offset sqlbatch_preupdate, table})
  oldId <- #{peek sqlbatch_preupdate, old_rowid} p :: IO Int64
  newId <- #{peek sqlbatch_preupdate, new_rowid} p :: IO Int64
  n <- fromIntegral <$> (#{peek sqlbatch_preupdate, n_cols} p :: IO CSize)
  base <- #{peek sqlbatch_preupdate, data} p :: IO (Ptr Word8)
  let rowAt off = do
        cells <- peekByteOff p off :: IO (Ptr ())
        if cells == nullPtr then return Nothing
          else Just . map (maybe SQLNull id) <$> peekValues base cells n
  old <- rowAt #{offset sqlbatch_preupdate, old_values}
  new <- rowAt #{offset sqlbatch_preupdate, new_values}
  bc <- #{peek sqlbatch_preupdate, blob_column} p :: IO Int32
  return $! PreUpdate
    { preUpdateOp = decodeOp op, preUpdateDepth = fromIntegral depth
    , preUpdateDatabase = schema, preUpdateTable = table
    , preUpdateOldRowId = oldId, preUpdateNewRowId = newId, preUpdateColumnCount = n
    , preUpdateOld = old, preUpdateNew = new
    , preUpdateBlobColumn = if bc < 0 then Nothing else Just (fromIntegral bc) }

-- | A @sqlbatch_str@ as text (empty for a NULL pointer).
peekStrText :: Ptr () -> IO Text
peekStrText p = do
  sp <- #{peek sqlbatch_str, ptr} p :: IO (Ptr CChar)
  sl <- #{peek sqlbatch_str, len} p :: IO CSize
  if sp == nullPtr then return "" else
    TE.decodeUtf8With TE.lenientDecode <$> B.packCStringLen (sp, fromIntegral sl)

------------------------------------------------------------------------------------------
-- Tracing

-- | What 'setTraceEvents' reports (<https://www.sqlite.org/c3ref/c_sqlbatch_conn_trace.html>).
data TraceFlag
  = TraceStatements  -- ^ 'TraceStatement' events
  | TraceProfiles    -- ^ 'TraceProfile' events
  | TraceRows        -- ^ 'TraceRow' events
  | TraceCloses      -- ^ 'TraceClose' events
  | TraceExpanded    -- ^ 'TraceStatement' with the bound values in place of the parameters
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | A trace event. Text that is not valid UTF-8 is decoded leniently.
data TraceEvent
  = TraceStatement !Text
    -- ^ a statement starts: its text (with 'TraceExpanded', its parameters' values in
    -- place, as @sqlite3_expanded_sql@); a statement of a trigger gives @-- @ and the
    -- trigger's name
  | TraceProfile !Text !Int64
    -- ^ a statement finished: its text (as prepared) and how long it ran, in nanoseconds
  | TraceRow !Text
    -- ^ a statement produced a row: its text (as prepared)
  | TraceClose
    -- ^ the connection closes
  deriving (Eq, Show)

type TraceH = Ptr CTraceEvent -> IO ()

traceFP :: HookFP TraceFn TraceH
traceFP = HookFP $ unsafePerformIO $ mkTrace $ \ud e -> do
  f <- callSP ud
  f e
{-# NOINLINE traceFP #-}

traceRaw :: Database -> Word32 -> Maybe (Word32 -> B.ByteString -> Int64 -> IO ()) -> IO (Either Error ())
traceRaw db mask' mf = register db (\c -> c_sqlbatch_conn_trace c mask') traceFP $
  fmap (\f _ e -> runHook db Nothing () $ do
    TraceView ev s n ns _ <- peekTraceEvent e
    sql <- if s == nullPtr then return B.empty else B.packCStringLen (s, n)
    f ev sql ns) (if mask' .&. eventBits == 0 then Nothing else mf)
  where
    eventBits = #{const SQLBATCH_TRACE_STMT} .|. #{const SQLBATCH_TRACE_PROFILE}
      .|. #{const SQLBATCH_TRACE_ROW} .|. #{const SQLBATCH_TRACE_CLOSE}

-- | <https://www.sqlite.org/c3ref/trace_v2.html>: calls the function for the events asked
-- for, on the thread running the statement, while the connection is busy with it (it must
-- not use the connection: 'HookReentry'); 'Nothing', or no event in the list, removes it.
-- A new trace replaces the previous one (also that of 'setStatementTrace'). An exception is kept
-- for 'takeHookException' (the statement goes on).
setTraceEvents :: Database -> [TraceFlag] -> Maybe (TraceEvent -> IO ()) -> IO (Either Error ())
setTraceEvents db which mf = traceRaw db (foldr ((.|.) . bit) 0 which) (fmap event mf)
  where
    bit f = case f of
      TraceStatements -> #{const SQLBATCH_TRACE_STMT}
      TraceProfiles -> #{const SQLBATCH_TRACE_PROFILE}
      TraceRows -> #{const SQLBATCH_TRACE_ROW}
      TraceCloses -> #{const SQLBATCH_TRACE_CLOSE}
      TraceExpanded -> #{const SQLBATCH_TRACE_EXPANDED}
    event f ev sql ns
      | ev == #{const SQLBATCH_TRACE_STMT} = f (TraceStatement (dec sql))
      | ev == #{const SQLBATCH_TRACE_PROFILE} = f (TraceProfile (dec sql) ns)
      | ev == #{const SQLBATCH_TRACE_ROW} = f (TraceRow (dec sql))
      | otherwise = f TraceClose
    dec = TE.decodeUtf8With TE.lenientDecode

-- | direct-sqlite's @setTrace@ with its error: calls the function with the text of every
-- statement as it starts, its parameters' values in place (as the legacy @sqlite3_trace@
-- gives it); 'Nothing' removes it. The same as 'setTraceEvents' with 'TraceStatements' and
-- 'TraceExpanded'.
setStatementTrace :: Database -> Maybe (Utf8 -> IO ()) -> IO (Either Error ())
setStatementTrace db mf = traceRaw db (#{const SQLBATCH_TRACE_STMT} .|. #{const SQLBATCH_TRACE_EXPANDED})
  (fmap (\f _ sql _ -> f (Utf8 sql)) mf)
