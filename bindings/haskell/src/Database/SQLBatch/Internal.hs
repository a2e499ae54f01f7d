{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE UnboxedTuples #-}
{-# OPTIONS_HADDOCK not-home #-}
-- |
-- Module      : Database.SQLBatch.Internal
-- Description : Connections, statements, the batch reader and the row parser core
--
-- The machinery behind "Database.SQLBatch". Exposed for writing new combinators and for the
-- benchmark; the names here may change between versions.
--
-- = How a result is read
--
-- A statement is run by 'nextBatch', which makes one (interruptible, @safe@) call to
-- @sqlbatch_stmt_fetch_into@ for up to a few thousand rows. The cells land in memory owned
-- by the statement and are read with plain 'peekByteOff's; the TEXT and BLOB bytes land in
-- a pinned buffer allocated here, so that a 'B.ByteString' field is a zero-copy slice of it
-- and 'Data.Text.Text' is decoded straight from it. A buffer is reused for the next batch
-- unless a slice of it was handed out; then the next batch goes to the rest of the buffer,
-- or to a fresh one, and the old buffer lives exactly as long as its slices.
module Database.SQLBatch.Internal
  ( -- * Connections
    Connection (..)
  , openConnection
  , closeConnection
  , withConn
  , withConnDirect
  , withConnAhead
  , settle
  , Job (..)
  , fetchAheadAvailable
  , throwSQL
    -- * Statements
  , Statement (..)
  , stmtReset
  , stmtRunning
  , Cursor (..)
  , dropCursor
  , statementParamNames
  , statementParamCount
  , statementMayNameParams
  , mayNameParams
  , prepareStatement
  , finalizeStatement
  , withPrepared
  , bindValues
  , bindNamedValues
  , resetStatement
  , setStatementFetchAhead
  , cancelAhead
  , columnNamesOf
  , columnNameAt
    -- * Reading batches
  , Fetcher
  , newFetcher
  , freeFetcher
  , withFetcher
  , acquireFetcher
  , releaseFetcher
  , foldBudget
  , collectBudget
  , BatchView (..)
  , BatchCtx (..)
  , nextBatch
  , TextChunk
  , newTextChunk
    -- * Fields
  , Cell (..)
  , Field (..)
  , FieldParser
  , fieldData
  , cellData
  , cellField
  , gettypename
  , fieldKind
  , fieldType
  , fieldInt64Unchecked
  , fieldDoubleUnchecked
  , fieldDoubleConverted
  , fieldLength
  , fieldByteSlice
  , fieldByteCopy
  , fieldTextOr
  , decodeUtf8At
  , fieldName
  , kindName
    -- * Row parsers
  , RowParser (..)
  , Row (..)
  , fieldWith
  , fieldWithKinds
  , InlineKinds (..)
  , allKinds
  , inlineKinds
  , orNullKind
  , numFieldsRemaining
  , runRow
  , runRowRaw
  , catchRowFailure
  , columnMismatch
  , foldBatch
  , collectBatch
  , RowArray
  , rowsToList
  , foldStatementWith
  , collectStatementWith
    -- * Values
  , toValue
  , encodeParams
  , paramBytesBound
  , encodeRow
  , rowNoRoom
  , rowBadWidth
  , withParams
  , queryUtf8
  , contextOf
  ) where

import Control.Applicative (Alternative (..))
import Control.Concurrent (rtsSupportsBoundThreads)
import Control.Concurrent.MVar
import Control.Monad (MonadPlus)
import Control.Exception
import Control.Monad (filterM, unless, when)
import Data.Bits (shiftL, testBit, (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Either (fromRight)
import Data.IORef
import Data.Int (Int32, Int64)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word16, Word32, Word64, Word8)
import Foreign.ForeignPtr (ForeignPtr, touchForeignPtr)
import Foreign.ForeignPtr.Unsafe (unsafeForeignPtrToPtr)
import Foreign.Marshal.Alloc (allocaBytes, free, mallocBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.C.Types (CBool (..))
import Foreign.Ptr (Ptr, castPtr, nullPtr, plusPtr)
import Foreign.Storable (peekByteOff, pokeByteOff)
import GHC.Exts (oneShot, raiseIO#, Array#, Int (..), Int#, RealWorld, State#, indexArray#, isTrue#, newArray#, unsafeFreezeArray#, writeArray#, (+#), (-#), (<#), (==#), (>=#))
import GHC.ByteOrder (ByteOrder (..), targetByteOrder)
import GHC.ForeignPtr (mallocPlainForeignPtrBytes)

import GHC.IO (IO (..), unIO)

import Database.SQLBatch.Direct (Database (..), Utf8 (..), Value (..))
import qualified Database.SQLBatch.Direct as D
import Database.SQLBatch.Error
import Database.SQLBatch.Internal.Text
import Database.SQLBatch.Ok
import Database.SQLBatch.Raw
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Types

------------------------------------------------------------------------------------------
-- Connections

-- | A connection to a database. Safe to share between threads: calls into the library are
-- serialized by a lock that is held for one call at a time (one batch, one script), so a
-- connection can be used by a fold's callback while the fold is running.
data Connection = Connection
  { connDatabase :: {-# UNPACK #-} !Database
    -- ^ The handle; valid while 'connOpen' is True.
  , connLock :: {-# UNPACK #-} !(MVar ())
    -- ^ Held during every call into the library (the header's thread model).
  , connOpen :: {-# UNPACK #-} !(IORef Bool)
    -- ^ False once closed; written with both locks held.
  , connGuard :: {-# UNPACK #-} !(MVar ())
    -- ^ Held by 'closeConnection' and by interrupt, which must not run at the same time.
  , connPath :: !Text
  , connFetchAhead :: !Bool
    -- ^ Opened with 'D.OpenFetchAhead' (and the threaded RTS): statements start fetching
    -- ahead.
  , connWriteBehind :: !Bool
    -- ^ Opened with 'D.OpenWriteBehind' (and the threaded RTS): bulk writes write behind.
  , connJob :: {-# UNPACK #-} !(IORef Job)
    -- ^ What the connection's worker thread may be running; written with 'connLock' held.
  }

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

instance Eq Connection where
  a == b = connLock a == connLock b

instance Show Connection where
  show c = "<sqlbatch connection " ++ show (connPath c) ++ ">"

-- | Throws an 'SQLError' built from the connection's last error. Call it with the lock held.
throwSQL :: Database -> Int32 -> Text -> IO a
throwSQL db rc ctx = D.errorFrom db rc ctx >>= throwIO

-- | Opens a connection; throws 'SQLError' on failure.
openConnection :: Text -> [D.OpenFlag] -> IO Connection
openConnection path flags0 = do
  _ <- c_hs_sqlbatch_ensure_handler
  let flags
        | fetchAheadAvailable = flags0
        | otherwise = filter (`notElem` [D.OpenFetchAhead, D.OpenWriteBehind]) flags0
  r <- D.openWith (Utf8 (TE.encodeUtf8 path)) flags
  case r of
    Left e -> throwIO e
    Right db -> do
      lock <- newMVar ()
      openRef <- newIORef True
      guard <- newMVar ()
      job <- newIORef NoJob
      let conn = Connection db lock openRef guard path (D.OpenFetchAhead `elem` flags)
                   (D.OpenWriteBehind `elem` flags) job
      -- A backstop only: connections should be closed with 'close' or 'withConnection'.
      _ <- mkWeakIORef openRef (closeConnection conn)
      return conn

-- | Closes the connection (waiting for a call running on it to end). Idempotent.
closeConnection :: Connection -> IO ()
closeConnection c = uninterruptibleMask_ $ do
  takeMVar (connLock c)
  takeMVar (connGuard c)
  open <- readIORef (connOpen c)
  when open $ do
    writeIORef (connOpen c) False
    -- A batch stepped ahead is dropped with its statement: stop its stepping rather than
    -- wait for it (the statements of a closing connection need no SQLite state kept). A
    -- queued write runs to its end, as a synchronous one holding the lock would have.
    job <- readIORef (connJob c)
    case job of
      AheadJob _ -> D.interrupt (connDatabase c)
      _ -> return ()
    D.close (connDatabase c)
    writeIORef (connJob c) NoJob
  putMVar (connGuard c) ()
  putMVar (connLock c) ()

-- | Runs one call into the library with the connection's lock held; throws 'SQLError'
-- 'ErrorClosed' if the connection is closed. The action runs with asynchronous exceptions
-- unmasked, so that an interruptible call in it can be interrupted.
withConn :: Connection -> Text -> (Ptr CConn -> IO a) -> IO a
withConn c ctx act = withConnAhead c ctx $ \p -> do
  job <- readIORef (connJob c)
  case job of
    NoJob -> return ()
    _ -> settle c p
  act p
{-# INLINE withConn #-}

-- | Waits (one interruptible call) for the job the connection's worker may be running.
-- With the lock held.
settle :: Connection -> Ptr CConn -> IO ()
settle c p = do
  _ <- c_hs_sqlbatch_settle p
  writeIORef (connJob c) NoJob
{-# NOINLINE settle #-}

-- | 'withConn' that does not wait for the connection's worker first: for calls that are
-- @safe@ (interruptible) and wait for it themselves, and that keep 'connJob' up to date
-- (the fetch, the bulk write's start and wait).
withConnAhead :: Connection -> Text -> (Ptr CConn -> IO a) -> IO a
withConnAhead c ctx act = mask $ \restore -> do
  takeMVar (connLock c)
  r <- restore (do
         open <- readIORef (connOpen c)
         unless open $ throwIO (closedError ctx)
         act (databasePtr (connDatabase c)))
       `onException` putMVar (connLock c) ()
  putMVar (connLock c) ()
  return r
{-# INLINE withConnAhead #-}

-- | 'withConn' for a "Database.SQLBatch.Direct" call returning 'Either': throws the error.
withConnDirect :: Connection -> Text -> (Database -> IO (Either SQLError a)) -> IO a
withConnDirect c ctx act = do
  r <- withConn c ctx (\_ -> act (connDatabase c))
  case r of
    Right a -> return a
    Left e -> throwIO e { sqlErrorContext = ctx }
{-# INLINE withConnDirect #-}

closedError :: Text -> SQLError
closedError ctx =
  SQLError ErrorClosed 1006 "the connection is closed" ctx Nothing Nothing Nothing Nothing

------------------------------------------------------------------------------------------
-- Statements

-- | A prepared statement of a 'Connection'.
data Statement = Statement
  { stmtHandle :: {-# UNPACK #-} !D.Statement
  , stmtConn :: !Connection
  , stmtQuery :: !Query
  , stmtCursor :: !(IORef (Maybe Cursor))
    -- ^ Row-at-a-time reading state ('Database.SQLBatch.nextRow').
  , stmtParams :: !(IORef (Maybe [Maybe Text]))
    -- ^ The parameter names, asked of the library once, when first needed
    -- ('statementParamNames').
  , stmtParamCount :: !(IORef Int)
    -- ^ The parameter count, asked of the library once ('statementParamCount'); -1 until
    -- then.
  , stmtMayName :: Bool
    -- ^ Lazy: whether the SQL might hold a named or numbered parameter
    -- ('statementMayNameParams').
  , stmtRan :: !(IORef Int)
    -- ^ 'stmtReset' (reset or never run), 'stmtDone' (ran to its end), 'stmtRewind' (ran to
    -- its end, then reset here only) or 'stmtRunning' (may be in the middle of a run): a
    -- bind or reset of a statement that is not running is an unsafe call (it does no I/O),
    -- one of a running statement a safe call.
  , stmtAhead :: !(IORef Bool)
    -- ^ Whether the statement fetches ahead (the connection's 'connFetchAhead' until
    -- 'setStatementFetchAhead').
  , stmtIdle :: !(IORef (Maybe Fetcher))
    -- ^ The fetcher of the last run, kept for the next one ('acquireFetcher'): a statement
    -- run again and again (a point query) allocates no new scratch memory, batch buffer or
    -- text chunk per run.
  }

-- | Where 'Database.SQLBatch.nextRow' stands.
data Cursor = Cursor !Fetcher !(IORef (Maybe (BatchView, Int)))

-- | The text used in error contexts: the call and (the start of) the SQL.
contextOf :: Text -> Query -> Text
contextOf what (Query q)
  | T.length q > 200 = what <> " " <> T.pack (show (T.take 200 q <> "..."))
  | otherwise = what <> " " <> T.pack (show q)

-- | The UTF-8 bytes of a query.
queryUtf8 :: Query -> Utf8
queryUtf8 = Utf8 . TE.encodeUtf8 . fromQuery
{-# INLINE queryUtf8 #-}

-- | Prepares the query, which must hold one statement: if another follows (anything but
-- whitespace, comments and semicolons), the library refuses it (@SQLBATCH_PREPARE_SINGLE@)
-- and this throws 'SQLError' with 'ErrorMultipleStatements', whose offset is where the
-- second statement starts; use 'Database.SQLBatch.executeScript' for scripts.
prepareStatement :: Connection -> Query -> IO Statement
prepareStatement conn q = mask_ $ do
  let ctx = contextOf "prepare" q
      Utf8 sql = queryUtf8 q
  -- The parameter count in the same locked section (an unsafe call): every bind checks it.
  (st, n) <- withConnDirect conn ctx $ \db -> do
    r <- D.prepareWith db [D.PrepareSingle] (Utf8 sql)
    case r of
      Left e -> return (Left e)
      Right (s, _) -> Right . (,) s . fromRight (-1) <$> D.paramCount s
  cur <- newIORef Nothing
  params <- newIORef Nothing
  count <- newIORef n
  idle <- newIORef Nothing
  ran <- newIORef stmtReset
  ahead <- newIORef (connFetchAhead conn)
  return (Statement st conn q cur params count (mayNameParams sql) ran ahead idle)

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

-- | Finalizes a statement (and frees its row cursor, if any). Idempotent per statement only
-- through 'withPrepared'; call it once.
finalizeStatement :: Statement -> IO ()
finalizeStatement st = uninterruptibleMask_ $ do
  cur <- readIORef (stmtCursor st)
  writeIORef (stmtCursor st) Nothing
  case cur of
    Just (Cursor f _) -> freeFetcher f
    Nothing -> return ()
  idle <- atomicModifyIORef' (stmtIdle st) (\m -> (Nothing, m))
  maybe (return ()) freeFetcher idle
  -- Finalizing works after close too, so no open check here.
  -- It waits for the connection's worker (a batch of this statement stepped ahead is
  -- dropped, a write queued on it runs to its end first). Without a job there, a statement
  -- that is not in the middle of a run is finalized by an unsafe call: it does no I/O.
  let c = stmtConn st
  takeMVar (connLock c)
  job <- readIORef (connJob c)
  ran <- readIORef (stmtRan st)
  let h = D.statementPtr (stmtHandle st)
  (if job == NoJob && ran /= stmtRunning
     then c_sqlbatch_stmt_finalize_unsafe h
     else D.finalize (stmtHandle st) >> writeIORef (connJob c) NoJob)
    `finally` putMVar (connLock c) ()

-- | Prepares, runs the action and finalizes, also on exceptions.
withPrepared :: Connection -> Query -> (Statement -> IO a) -> IO a
withPrepared conn q = bracket (prepareStatement conn q) finalizeStatement
{-# INLINE withPrepared #-}

-- | Converts a parameter to the value the library binds (Text is encoded to UTF-8).
toValue :: SQLData -> Value
toValue d = case d of
  SQLInteger i -> VInteger i
  SQLFloat x -> VFloat x
  SQLText t -> VText (TE.encodeUtf8 t)
  SQLBlob b -> VBlob b
  SQLNull -> VNull
{-# INLINE toValue #-}

-- | Lays parameter values out for the ABI, in two passes over the list: the 16-byte cells
-- go to @cells@ (room for all of them), the bytes of TEXT and BLOB values to @dat@ from
-- offset @off@ on (room for 'paramBytesBound' bytes), each cell holding its bytes' offset.
-- 'Text' is encoded to UTF-8 straight from its array (one unsafe C call), a 'B.ByteString'
-- copied. Returns the offset after the last byte written.
encodeParams :: Ptr Word8 -> Ptr Word8 -> Int -> [SQLData] -> IO Int
encodeParams cells dat = go cells
  where
    go !_ !off [] = return off
    go !cell !off (v : vs) = do
      off' <- case v of
        SQLInteger i -> put cell (fromIntegral i) 0 kindInteger >> return off
        SQLFloat x -> do
          pokeByteOff cell valueBitsOff x
          putTail cell 0 kindFloat
          return off
        SQLNull -> put cell 0 0 kindNull >> return off
        SQLText t -> do
          n <- pokeUtf8 (dat `plusPtr` off) t
          put cell (fromIntegral off) (fromIntegral n) kindText
          return (off + n)
        SQLBlob b -> do
          let n = B.length b
          BU.unsafeUseAsCString b $ \p -> copyBytes (dat `plusPtr` off) (castPtr p) n
          put cell (fromIntegral off) (fromIntegral n) kindBlob
          return (off + n)
      go (cell `plusPtr` valueSize) off' vs
    put :: Ptr Word8 -> Word64 -> Word32 -> Word8 -> IO ()
    put cell bits len kind = pokeByteOff cell valueBitsOff bits >> putTail cell len kind
    putTail :: Ptr Word8 -> Word32 -> Word8 -> IO ()
    putTail cell len kind = do
      pokeByteOff cell valueLenOff len
      pokeByteOff cell valueKindOff kind
      pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
      pokeByteOff cell (valueKindOff + 2) (0 :: Word16)

-- | An upper bound of the bytes 'encodeParams' writes for these values.
paramBytesBound :: [SQLData] -> Int
paramBytesBound = go 0
  where
    go !acc [] = acc
    go !acc (v : vs) = case v of
      SQLText t -> go (acc + utf8Bound t) vs
      SQLBlob b -> go (acc + B.length b) vs
      _ -> go acc vs

-- | Lays out one parameter row of a bulk write in a single pass over its values, for
-- 'Database.SQLBatch.executeMany': @encodeRow ncols vs cells dat off cap@ writes the
-- @ncols@ cells of @vs@ at @cells@ and their TEXT and BLOB bytes at @dat@ from offset @off@
-- on, within @cap@ bytes. Returns the offset after the row's bytes; or 'rowNoRoom' if a
-- value's bytes might not fit (nothing is counted then: grow the buffer or send the rows
-- before, and encode the row again); or 'rowBadWidth' if the row does not have @ncols@
-- values (no cell beyond the row's @ncols@ is written).
--
-- It is a 'foldr' over the values and is inlined: where the row's 'Database.SQLBatch.ToRow'
-- instance is known (a tuple, 'Database.SQLBatch.Only', a record listing its fields), its
-- list of values is fused away, so a row costs its pokes and no allocation.
encodeRow :: Int -> [SQLData] -> Ptr Word8 -> Ptr Word8 -> Int -> Int -> IO Int
encodeRow !ncols vs cells0 !dat !off0 !cap = foldr step done vs cells0 off0 0
  where
    done :: Ptr Word8 -> Int -> Int -> IO Int
    done = oneShot (\_ -> oneShot (\off -> oneShot (\i ->
      return (if i == ncols then off else rowBadWidth))))
    step :: SQLData -> (Ptr Word8 -> Int -> Int -> IO Int) -> Ptr Word8 -> Int -> Int -> IO Int
    step v k = oneShot (\ !cell -> oneShot (\ !off -> oneShot (\ !i ->
      if i >= ncols then return rowBadWidth else
      let next = k (cell `plusPtr` valueSize)
          i' = i + 1
      in case v of
        SQLInteger x -> putCell cell (fromIntegral x) 0 kindInteger >> next off i'
        SQLFloat x -> do
          pokeByteOff cell valueBitsOff x
          putCellTail cell 0 kindFloat
          next off i'
        SQLNull -> putCell cell 0 0 kindNull >> next off i'
        SQLText t
          | utf8Bound t > cap - off -> return rowNoRoom
          | otherwise -> do
              n <- pokeUtf8 (dat `plusPtr` off) t
              putCell cell (fromIntegral off) (fromIntegral n) kindText
              next (off + n) i'
        SQLBlob b
          | B.length b > cap - off -> return rowNoRoom
          | otherwise -> do
              let n = B.length b
              BU.unsafeUseAsCString b $ \p -> copyBytes (dat `plusPtr` off) (castPtr p) n
              putCell cell (fromIntegral off) (fromIntegral n) kindBlob
              next (off + n) i')))
    {-# INLINE step #-}
{-# INLINE encodeRow #-}

-- | What 'encodeRow' returns when the row's bytes might not fit, and when the row does not
-- have the expected number of values.
rowNoRoom, rowBadWidth :: Int
rowNoRoom = -1
rowBadWidth = -2

-- | Writes a whole cell: bits, length and kind (and zero padding).
putCell :: Ptr Word8 -> Word64 -> Word32 -> Word8 -> IO ()
putCell cell bits len kind = pokeByteOff cell valueBitsOff bits >> putCellTail cell len kind
{-# INLINE putCell #-}

-- | Writes a cell's length, kind and padding: one 8-byte store on a little-endian target
-- with the header's layout (length at 8, kind at 12, 3 bytes of padding), else one by one.
putCellTail :: Ptr Word8 -> Word32 -> Word8 -> IO ()
putCellTail cell len kind
  | targetByteOrder == LittleEndian && valueKindOff == valueLenOff + 4 && valueSize == valueLenOff + 8 =
      pokeByteOff cell valueLenOff (fromIntegral len + fromIntegral kind * 0x100000000 :: Word64)
  | otherwise = do
      pokeByteOff cell valueLenOff len
      pokeByteOff cell valueKindOff kind
      pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
      pokeByteOff cell (valueKindOff + 2) (0 :: Word16)
{-# INLINE putCellTail #-}

-- | Encodes values (and, if given, as many names: 'SQLText' or 'SQLNull') into freshly
-- allocated memory for the duration of the action: @k cells names dat dataLen@.
withParams :: [SQLData] -> [SQLData] -> (Ptr CValue -> Ptr CValue -> Ptr Word8 -> Int -> IO a) -> IO a
withParams vs names k =
  -- One buffer (one pinned allocation): the cells, then the bytes.
  let cellBytes = (length vs + length names) * valueSize
  in allocaBytes (max 1 (cellBytes + paramBytesBound vs + paramBytesBound names)) $ \cells -> do
    let dat = cells `plusPtr` cellBytes
    off <- encodeParams cells dat 0 vs
    let nameCells = cells `plusPtr` (length vs * valueSize)
    end <- encodeParams nameCells dat off names
    k (castPtr cells) (if null names then nullPtr else castPtr nameCells) dat end

-- | Binds all parameters (positional): value @i@ to parameter @i+1@; the count must match.
bindValues :: Statement -> [SQLData] -> IO ()
bindValues st vs = bindRaw st (contextOf "bind" (stmtQuery st)) vs []

-- | One @sqlbatch_stmt_bind@ of values (and, if not empty, as many names): an unsafe call
-- if the statement is not running (the library has nothing to reset) and the values take
-- at most 'unsafeBindBytes' bytes, else a safe one.
bindRaw :: Statement -> Text -> [SQLData] -> [SQLData] -> IO ()
bindRaw st ctx vs names = withParams vs names $ \cells nameCells dat len ->
  withCParams cells nameCells (length vs) dat len 0 $ \pp ->
    withConn (stmtConn st) ctx $ \_ -> do
      ran <- readIORef (stmtRan st)
      let h = D.statementPtr (stmtHandle st)
      rc <- if ran /= stmtRunning && len <= unsafeBindBytes
        then c_sqlbatch_stmt_bind_unsafe h pp
        else c_sqlbatch_stmt_bind h pp
      writeIORef (stmtRan st) stmtReset
      when (rc /= sqlbatchOk) $ throwSQL (connDatabase (stmtConn st)) rc ctx

-- | The states of 'stmtRan'. 'stmtRewind': the statement ran to its end (SQLite has
-- already ended its run and released what it held) and was then reset; the library still
-- reports the end, so the next fetch rewinds it first, in the same call
-- (@hs_sqlbatch_rewind_fetch_into@), and a bind rewinds it anyway. So the reset of a point
-- query, after its rows, takes neither the lock nor a call into the library.
stmtReset, stmtDone, stmtRunning, stmtRewind :: Int
stmtReset = 0
stmtDone = 1
stmtRunning = 2
stmtRewind = 3

-- | The most bytes of TEXT and BLOB values an unsafe bind copies.
unsafeBindBytes :: Int
unsafeBindBytes = 64 * 1024

-- | Binds named parameters, by the library's rules (@sqlbatch_stmt_bind@ with names): a
-- name with its prefix (@\":id\"@) matches that parameter, a name without one (@\"id\"@)
-- matches @:id@, @\@id@ or @$id@. A parameter without a value is 'ErrorParamCount' (from
-- the library); a name that matches no parameter (asked of @sqlbatch_stmt_param_index@) is
-- 'ErrorRange', as in sqlite-simple. If a name is given twice, the first value counts.
bindNamedValues :: Statement -> [(Text, SQLData)] -> IO ()
bindNamedValues st named = do
  let ctx = contextOf "bind" (stmtQuery st)
  unknown <- withConn (stmtConn st) ctx $ \_ -> filterM (isUnknown ctx) (map fst named)
  case unknown of
    [] -> return ()
    (k : _) -> throwIO (SQLError ErrorRange 25 ("the statement has no parameter named " <> k)
                          ctx Nothing Nothing Nothing Nothing)
  bindRaw st ctx (map snd named) (if null named then [] else map (SQLText . fst) named)
  where
    isUnknown ctx k = do
      r <- D.paramIndex (stmtHandle st) (Utf8 (TE.encodeUtf8 k))
      case r of
        Right i -> return (i == 0)
        Left e -> throwIO e { sqlErrorContext = ctx }

-- | Drops the statement's row cursor (before it is bound, reset or run another way). Most
-- calls find none (a fold or a bind leaves none): they mask nothing.
dropCursor :: Statement -> IO ()
dropCursor st = do
  cur <- readIORef (stmtCursor st)
  case cur of
    Nothing -> return ()
    Just _ -> mask_ $ do
      now <- readIORef (stmtCursor st)
      writeIORef (stmtCursor st) Nothing
      maybe (return ()) (\(Cursor f _) -> releaseFetcher st f) now
{-# INLINE dropCursor #-}

-- | The statement's parameter names by index (from 1), 'Nothing' for a plain @?@: asked of
-- the library (@sqlbatch_stmt_params@) on first use only, then kept with the statement
-- (they cannot change), so binding a kept statement again costs no extra call.
statementParamNames :: Statement -> IO [Maybe Text]
statementParamNames st = do
  cached <- readIORef (stmtParams st)
  case cached of
    Just ns -> return ns
    Nothing -> do
      ns <- withConnDirect (stmtConn st) (contextOf "params" (stmtQuery st)) $ \_ ->
        D.paramNames (stmtHandle st)
      let names = [fmap (\(Utf8 b) -> TE.decodeUtf8With TE.lenientDecode b) n | n <- ns]
      writeIORef (stmtParams st) (Just names)
      return names

-- | The statement's parameter count (the largest index): from its names if they were
-- asked for already, else asked of the library (@sqlbatch_stmt_param_count@, which builds
-- no names) on first use only and kept with the statement.
statementParamCount :: Statement -> IO Int
statementParamCount st = do
  cached <- readIORef (stmtParamCount st)
  if cached >= 0
    then return cached
    else do
      names <- readIORef (stmtParams st)
      n <- case names of
        Just ns -> return (length ns)
        Nothing -> withConnDirect (stmtConn st) (contextOf "params" (stmtQuery st)) $ \_ ->
          D.paramCount (stmtHandle st)
      writeIORef (stmtParamCount st) n
      return n

-- | False if the statement certainly has only nameless @?@ parameters (or none), judged
-- from its SQL text without asking the library ('mayNameParams'); True if it might have a
-- named or numbered one ('statementParamNames' then tells).
statementMayNameParams :: Statement -> Bool
statementMayNameParams = stmtMayName

-- | Rewinds the statement (keeping bindings) and drops its row cursor. A statement that ran
-- to its end is only marked ('stmtRewind').
resetStatement :: Statement -> IO ()
resetStatement st = do
  dropCursor st
  ended <- readIORef (stmtRan st)
  if ended == stmtDone || ended == stmtRewind
    then do
      open <- readIORef (connOpen (stmtConn st))
      unless open $ throwIO (closedError (contextOf "reset" (stmtQuery st)))
      writeIORef (stmtRan st) stmtRewind
    else resetNow st
{-# INLINE resetStatement #-}

-- | The reset of a statement that may be in the middle of a run: a call into the library.
resetNow :: Statement -> IO ()
resetNow st = do
  let ctx = contextOf "reset" (stmtQuery st)
  withConn (stmtConn st) ctx $ \_ -> do
    ran <- readIORef (stmtRan st)
    let h = D.statementPtr (stmtHandle st)
    rc <- if ran == stmtRunning then c_sqlbatch_stmt_reset h else c_sqlbatch_stmt_reset_unsafe h
    writeIORef (stmtRan st) stmtReset
    when (rc /= sqlbatchOk) $ throwSQL (connDatabase (stmtConn st)) rc ctx

-- | Turns fetch-ahead on or off for the statement (@sqlbatch_stmt_set_fetch_ahead@). A
-- no-op under the non-threaded RTS ('fetchAheadAvailable').
setStatementFetchAhead :: Statement -> Bool -> IO ()
setStatementFetchAhead st on
  | not fetchAheadAvailable = return ()
  | otherwise = do
      let ctx = contextOf "setFetchAhead" (stmtQuery st)
      withConn (stmtConn st) ctx $ \_ -> do
        rc <- c_sqlbatch_stmt_set_fetch_ahead (D.statementPtr (stmtHandle st))
                (CBool (if on then 1 else 0))
        when (rc /= sqlbatchOk) $ throwSQL (connDatabase (stmtConn st)) rc ctx
        writeIORef (stmtAhead st) on

-- | Stops the stepping of the statement's next batch, if its last fetch left the worker on
-- it: for an asynchronous exception that leaves a query between two fetches (the rows are
-- not wanted; the next call on the statement is its finalize or reset, which drop them).
-- It interrupts the connection, as an asynchronous exception inside a fetch does.
cancelAhead :: Statement -> IO ()
cancelAhead st = uninterruptibleMask_ $ do
  let c = stmtConn st
  withMVar (connLock c) $ \_ -> do
    job <- readIORef (connJob c)
    open <- readIORef (connOpen c)
    when (open && job == AheadJob (D.statementPtr (stmtHandle st))) $
      D.interrupt (connDatabase c)

-- | The names of the result columns.
columnNamesOf :: Statement -> IO [Text]
columnNamesOf st = do
  cols <- withConnDirect (stmtConn st) (contextOf "columns" (stmtQuery st)) $ \_ ->
    D.columns (stmtHandle st)
  return [TE.decodeUtf8With TE.lenientDecode n | D.ColumnInfo (Utf8 n) _ _ _ _ <- cols]

-- | The name of result column @i@ (from 0), or empty if it cannot be had.
columnNameAt :: Statement -> Int -> IO Text
columnNameAt st i = do
  r <- try (columnNamesOf st)
  return $ case r of
    Right ns | i >= 0 && i < length ns -> ns !! i
    Right _ -> T.empty
    Left (_ :: SomeException) -> T.empty

------------------------------------------------------------------------------------------
-- Reading batches

-- | The state of reading one run of a statement: the batch out-parameter, the current data
-- buffer and the batch size.
data Fetcher = Fetcher
  { fStmt :: !Statement
  , fScratch :: {-# UNPACK #-} !(Ptr Word8)
    -- ^ malloc'd: the @sqlbatch_batch@ out-parameter, the "slice taken" flag byte (at
    -- 'flagOff') and the units used in the current text chunk (at 'usedOff').
  , fText :: {-# UNPACK #-} !(IORef TextChunk)
    -- ^ Where decoded 'Text' goes.
  , fBuf :: {-# UNPACK #-} !(IORef Buf)
  , fMaxRows :: {-# UNPACK #-} !(IORef Int)
  , fBudget :: {-# UNPACK #-} !Int
    -- ^ Bytes of cells per batch ('foldBudget' or 'collectBudget').
  }

-- | A data buffer: the first @keep@ bytes hold slices handed out; the previous batch's
-- bytes (@last@ of them, right after @keep@) are kept too if its flag was set. @want@ is the
-- size of the next buffer to allocate.
data Buf = Buf
  { _bufFP :: !(ForeignPtr Word8)
  , _bufSize :: {-# UNPACK #-} !Int
  , _bufKeep :: {-# UNPACK #-} !Int
  , _bufLast :: {-# UNPACK #-} !Int
  , _bufWant :: {-# UNPACK #-} !Int
  }

flagOff, usedOff, convOff, scratchSize :: Int
flagOff = 64
usedOff = 72
convOff = 80
scratchSize = convOff + valueSize + convertBufSize

-- | Initial and largest data buffer, and the budget for a batch's cells (16 bytes each).
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
  scratch <- mallocBytes scratchSize
  pokeByteOff scratch flagOff (0 :: Word8)
  pokeByteOff scratch usedOff (0 :: Int)
  -- The first Text allocates the first real chunk; a query without text allocates none.
  chunk <- newTextChunk 0 >>= newIORef
  fp <- mallocPlainForeignPtrBytes initialBuf
  buf <- newIORef (Buf fp initialBuf 0 0 initialBuf)
  mr <- newIORef initialRows
  return (Fetcher st scratch chunk buf mr budget)

-- | Frees a fetcher's scratch memory; call once.
freeFetcher :: Fetcher -> IO ()
freeFetcher f = free (fScratch f)

-- | The statement's idle fetcher if it has one with this budget (the one its last run
-- used: its batch buffer, text chunk and batch size carry over, as from one batch to the
-- next), else a new one. Call with asynchronous exceptions masked.
acquireFetcher :: Int -> Statement -> IO Fetcher
acquireFetcher budget st = do
  idle <- atomicModifyIORef' (stmtIdle st) (\m -> (Nothing, m))
  case idle of
    Just f | fBudget f == budget -> return f
    Just f -> freeFetcher f >> newFetcher budget st
    Nothing -> newFetcher budget st

-- | Gives a fetcher back to its statement for the next run (freeing the one kept before,
-- if another run put one back meanwhile).
releaseFetcher :: Statement -> Fetcher -> IO ()
releaseFetcher st f = do
  old <- atomicModifyIORef' (stmtIdle st) (\m -> (Just f, m))
  maybe (return ()) freeFetcher old

-- | A fetcher of the statement ('acquireFetcher') around an action, given back after.
withFetcher :: Int -> Statement -> (Fetcher -> IO a) -> IO a
withFetcher budget st = bracket (acquireFetcher budget st) (releaseFetcher st)
{-# INLINE withFetcher #-}

-- | What a field needs to read a batch's bytes.
data BatchCtx = BatchCtx
  { bcBase :: {-# UNPACK #-} !(Ptr Word8)   -- ^ the batch's @data@
  , bcFP :: !(ForeignPtr Word8)              -- ^ the buffer @data@ points into
  , bcOff :: {-# UNPACK #-} !Int             -- ^ @data@'s offset in the buffer
  , bcFlag :: {-# UNPACK #-} !(Ptr Word8)    -- ^ set to 1 when a slice is handed out
  , bcUsed :: {-# UNPACK #-} !(Ptr Int)      -- ^ units used in the current text chunk
  , bcConv :: {-# UNPACK #-} !(Ptr Word8)
    -- ^ scratch of 'fieldDoubleConverted': an out value and a 'convertBufSize' buffer
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
  Buf fp size keep0 lastLen want <- readIORef (fBuf f)
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
fetchAt f maxRows bfp size off want = do
  let scratch = fScratch f
      st = fStmt f
      base = unsafeForeignPtrToPtr bfp `plusPtr` off
  rc <- withConnAhead (stmtConn st) "fetch" $ \c -> do
    ran <- readIORef (stmtRan st)
    writeIORef (stmtRan st) stmtRunning
    let h = D.statementPtr (stmtHandle st)
        fetchInto = if ran == stmtRewind then c_hs_sqlbatch_rewind_fetch_into else c_hs_sqlbatch_fetch_into
    r <- fetchInto c h (fromIntegral maxRows) base (fromIntegral (size - off)) (castPtr scratch)
    -- The fetch waited for the worker; with fetch-ahead, a batch with more rows to follow
    -- left it stepping the next one.
    ahead <- readIORef (stmtAhead st)
    writeIORef (connJob (stmtConn st)) $! if ahead && r == sqlbatchRow then AheadJob h else NoJob
    when (r /= sqlbatchRow && r /= sqlbatchDone && r /= sqlbatchEBufferTooSmall) $
      throwSQL (connDatabase (stmtConn st)) r (contextOf "fetch" (stmtQuery st))
    return r
  touchForeignPtr bfp
  if rc == sqlbatchEBufferTooSmall
    then do
      need <- batchDataLen <$> peekBatch (castPtr scratch)
      let nsize = head [c | c <- iterate (* 2) (max want initialBuf), c >= need]
      nfp <- mallocPlainForeignPtrBytes nsize
      fetchAt f maxRows nfp nsize 0 nsize
    else do
      when (rc == sqlbatchDone) $ writeIORef (stmtRan st) stmtDone
      b <- peekBatch (castPtr scratch)
      let rows = batchRows b
          cols = batchCols b
          done = rc == sqlbatchDone
          -- The buffer, not the row count, ended the batch: use a bigger one next time (up
          -- to 'maxBuf', but never smaller than @want@, which is at least the largest row
          -- so far: a row that did not fit set it. So only a row larger than every row
          -- before costs a second fetch, and no buffer too small for the rows is allocated).
          want' = if not done && rows < maxRows then max want (min maxBuf (size * 4)) else want
      writeIORef (fBuf f) $! Buf bfp size off (batchDataLen b) want'
      when (cols > 0) $
        writeIORef (fMaxRows f) $! max 16 (min 65536 (fBudget f `quot` (valueSize * cols)))
      return $! BatchView (batchCells b) rows cols done
        (BatchCtx base bfp off (scratch `plusPtr` flagOff) (scratch `plusPtr` usedOff)
          (scratch `plusPtr` convOff) (fText f) st)

------------------------------------------------------------------------------------------
-- Fields

-- | One value of a batch, read in place: valid only while its batch is current. The
-- low-level readers below take one; a 'Field' is made of it by 'cellField'.
data Cell = Cell
  { cellPtr :: {-# UNPACK #-} !(Ptr Word8)   -- ^ the @sqlbatch_value@
  , cellColumn :: {-# UNPACK #-} !Int        -- ^ column index, from 0
  , cellCtx :: !BatchCtx
  }

-- | The cell's kind tag.
fieldKind :: Cell -> IO Word8
fieldKind f = peekByteOff (cellPtr f) valueKindOff
{-# INLINE fieldKind #-}

-- | The SQL type of the value.
fieldType :: Cell -> IO ColumnType
fieldType f = do
  k <- fieldKind f
  return $! kindType k
{-# INLINE fieldType #-}

kindType :: Word8 -> ColumnType
kindType k
  | k == kindInteger = IntegerColumn
  | k == kindFloat = FloatColumn
  | k == kindText = TextColumn
  | k == kindBlob = BlobColumn
  | otherwise = NullColumn
{-# INLINE kindType #-}

-- | The SQL name of a kind, for error messages (sqlite-simple's names: @FLOAT@ for REAL).
kindName :: Word8 -> Text
kindName k = case kindType k of
  IntegerColumn -> "INTEGER"
  FloatColumn -> "FLOAT"
  TextColumn -> "TEXT"
  BlobColumn -> "BLOB"
  NullColumn -> "NULL"

-- | The value of an INTEGER cell (no check of the kind).
fieldInt64Unchecked :: Cell -> IO Int64
fieldInt64Unchecked f = peekByteOff (cellPtr f) valueBitsOff
{-# INLINE fieldInt64Unchecked #-}

-- | The value of a FLOAT cell (no check of the kind).
fieldDoubleUnchecked :: Cell -> IO Double
-- The cell holds the IEEE-754 bits of the double in the machine's byte order, so it is read
-- as a 'Double' directly (castWord64ToDouble is an out-of-line call in GHC 9.0).
fieldDoubleUnchecked f = peekByteOff (cellPtr f) valueBitsOff
{-# INLINE fieldDoubleUnchecked #-}

-- | The value of a cell of another class read as a FLOAT, as @sqlite3_column_double@ gives
-- it: converted by @sqlbatch_value_convert@ (one unsafe call), so that the binding makes no
-- conversion of its own. For cells without bytes (INTEGER, NULL); throws
-- 'ConversionFailed' if the library refuses the value.
fieldDoubleConverted :: Cell -> IO Double
fieldDoubleConverted f = do
  let out = bcConv (cellCtx f)
  rc <- c_sqlbatch_value_convert (castPtr (cellPtr f)) nullPtr 0 kindFloat (castPtr out)
          (out `plusPtr` valueSize) (fromIntegral convertBufSize)
  if rc == sqlbatchOk
    then peekByteOff out valueBitsOff
    else do
      k <- fieldKind f
      throwIO (ConversionFailed (T.unpack (kindName k)) "Double"
                 ("sqlbatch_value_convert: " ++ errorCodeName rc))
{-# NOINLINE fieldDoubleConverted #-}

-- | The byte length of a TEXT or BLOB cell.
fieldLength :: Cell -> IO Int
fieldLength f = fromIntegral <$> (peekByteOff (cellPtr f) valueLenOff :: IO Word32)
{-# INLINE fieldLength #-}

-- | The bytes of a TEXT or BLOB cell as a zero-copy slice of the batch buffer (which then
-- lives as long as the slice).
fieldByteSlice :: Cell -> IO B.ByteString
fieldByteSlice f = do
  let ctx = cellCtx f
  off <- peekByteOff (cellPtr f) valueBitsOff :: IO Word64
  len <- fieldLength f
  pokeByteOff (bcFlag ctx) 0 (1 :: Word8)
  return $! BI.PS (bcFP ctx) (bcOff ctx + fromIntegral off) len
{-# INLINE fieldByteSlice #-}

-- | A copy of the bytes of a TEXT or BLOB cell (sharing nothing with the batch buffer).
fieldByteCopy :: Cell -> IO B.ByteString
fieldByteCopy f = do
  let ctx = cellCtx f
  off <- peekByteOff (cellPtr f) valueBitsOff :: IO Word64
  len <- fieldLength f
  return $! B.copy (BI.PS (bcFP ctx) (bcOff ctx + fromIntegral off) len)
{-# INLINE fieldByteCopy #-}

-- | Decodes a TEXT cell's UTF-8 into 'Text', or runs the second action if the bytes are not
-- valid UTF-8. With text-1, one unsafe C call per value writes the UTF-16 straight into the
-- fetcher's current text chunk, and the 'Text' is a slice of that chunk (no per-value
-- allocation but the 'Text' itself); with text-2, a copy of the bytes once validated.
fieldTextOr :: Cell -> IO Text -> IO Text
fieldTextOr f onBad = do
  off <- peekByteOff (cellPtr f) valueBitsOff :: IO Word64
  len <- fieldLength f
  let ctx = cellCtx f
  decodeUtf8Chunked (bcUsed ctx) (bcText ctx) (bcBase ctx `plusPtr` fromIntegral off) len onBad
{-# INLINE fieldTextOr #-}

-- | Decodes @len@ bytes of UTF-8 at an address into a fresh 'Text', or runs the last action
-- if they are not valid UTF-8.
decodeUtf8At :: Ptr Word8 -> Int -> IO Text -> IO Text
decodeUtf8At = decodeUtf8Fresh

-- | The name of the cell's column (looked up when asked).
fieldName :: Cell -> IO Text
fieldName f = columnNameAt (bcStmt (cellCtx f)) (cellColumn f)

-- | The value as 'SQLData': TEXT decoded to 'Text' (invalid UTF-8 is replaced with
-- U+FFFD, as direct-sqlite's @columnText@ does), BLOB as a zero-copy slice.
cellData :: Cell -> IO SQLData
cellData f = do
  k <- fieldKind f
  case kindType k of
    IntegerColumn -> SQLInteger <$> fieldInt64Unchecked f
    FloatColumn -> SQLFloat <$> fieldDoubleUnchecked f
    TextColumn -> do
      t <- fieldTextOr f $ do
        -- Invalid UTF-8: decode leniently (U+FFFD for bad bytes) from a copy.
        bs <- fieldByteCopy f
        return $! TE.decodeUtf8With TE.lenientDecode bs
      return (SQLText t)
    BlobColumn -> SQLBlob <$> fieldByteSlice f
    NullColumn -> return SQLNull
{-# INLINE cellData #-}

-- | One value of a result row, as sqlite-simple has it: the value and its column index
-- (from 0). It holds no pointer into a batch: 'cellField' reads the whole value (decodes
-- TEXT, slices BLOB) when the row parser reaches the column, so a 'Field' stays valid
-- whatever a parser keeps of it.
data Field = Field
  { result :: SQLData
  , column :: {-# UNPACK #-} !Int
  }

-- | A conversion of one field (see "Database.SQLBatch.FromField").
type FieldParser a = Field -> Ok a

-- | The value of a field.
fieldData :: Field -> SQLData
fieldData = result
{-# INLINE fieldData #-}

-- | The 'Field' of a cell: its value read whole (evaluated before the 'Field' is made).
cellField :: Cell -> IO Field
cellField c = do
  d <- cellData c
  case d of
    SQLInteger _ -> return (Field d (cellColumn c))
    SQLFloat _ -> return (Field d (cellColumn c))
    SQLText _ -> return (Field d (cellColumn c))
    SQLBlob _ -> return (Field d (cellColumn c))
    SQLNull -> return (Field d (cellColumn c))
{-# INLINE cellField #-}

-- | sqlite-simple's name of the SQL type of a value (@FLOAT@ for REAL), as error messages
-- give it.
gettypename :: SQLData -> B.ByteString
gettypename d = case d of
  SQLInteger _ -> "INTEGER"
  SQLFloat _ -> "FLOAT"
  SQLText _ -> "TEXT"
  SQLBlob _ -> "BLOB"
  SQLNull -> "NULL"

------------------------------------------------------------------------------------------
-- Row parsers

-- | The row being parsed: its first cell, its width and the batch context.
data Row = Row
  { rowCells :: {-# UNPACK #-} !(Ptr Word8)
  , rowCols :: {-# UNPACK #-} !Int
  , rowCtx :: !BatchCtx
  }

-- | Reads a row, one column after another (sqlite-simple's type). Build one with
-- 'fieldWith' / 'Database.SQLBatch.FromRow.field' and the 'Applicative', 'Monad' and
-- 'Alternative' instances:
--
-- > data User = User { userId :: Int, userName :: Text }
-- > instance FromRow User where
-- >   fromRow = User <$> field <*> field
--
-- A failed conversion ends the parse with its 'Ok' errors, unless an alternative
-- (@p '<|>' q@) succeeds from the same column; a row that fails is thrown by the query.
--
-- (Internally a state-passing function over unboxed values whose only result is the
-- value: a failure leaves it as a private exception, 'RowFailure', which '<|>' catches and
-- the query turns into sqlite-simple's exception. So a parser built from @field@s compiles
-- to straight-line reads of the cells that construct the row at the end, and nothing is
-- allocated for the success of a field.)
newtype RowParser a = RowParser
  { unRowParser :: Row -> Int# -> State# RealWorld -> (# State# RealWorld, Int#, a #) }

-- | A failed row parse on its way out: the errors sqlite-simple's parser would have in its
-- 'Ok'. Private: 'runRow' and the batch loops turn it into what sqlite-simple throws
-- ('rowFailed'); no user code sees it.
data RowFailure = RowFailure !Row [SomeException]

instance Show RowFailure where
  show (RowFailure _ es) = "RowFailure " ++ show es

instance Exception RowFailure

-- | Fails the parse with these errors.
rowFail :: Row -> [SomeException] -> State# RealWorld -> (# State# RealWorld, Int#, a #)
rowFail r es s = case raiseIO# (toException (RowFailure r es)) s of
  (# s1, a #) -> (# s1, 0#, a #)
{-# NOINLINE rowFail #-}

instance Functor RowParser where
  fmap f (RowParser p) = RowParser $ \r c s -> case p r c s of
    (# s1, c1, a #) -> (# s1, c1, f a #)
  {-# INLINE fmap #-}

instance Applicative RowParser where
  pure a = RowParser $ \_ c s -> (# s, c, a #)
  {-# INLINE pure #-}
  RowParser pf <*> RowParser pa = RowParser $ \r c s -> case pf r c s of
    (# s1, c1, f #) -> case pa r c1 s1 of
      (# s2, c2, a #) -> (# s2, c2, f a #)
  {-# INLINE (<*>) #-}

instance Monad RowParser where
  RowParser p >>= k = RowParser $ \r c s -> case p r c s of
    (# s1, c1, a #) -> unRowParser (k a) r c1 s1
  {-# INLINE (>>=) #-}

-- | Backtracking: @p '<|>' q@ runs @q@ from the column where @p@ started if @p@ fails;
-- if both fail, the errors of both are kept. 'empty' fails with no error.
instance Alternative RowParser where
  empty = RowParser $ \r _ s -> rowFail r [] s
  RowParser p <|> RowParser q = RowParser $ \r c s ->
    case unIO (tryRow (IO (\s0 -> case p r c s0 of (# s1, c1, a #) -> (# s1, (I# c1, a) #)))) s of
      (# s1, Right (I# c1, a) #) -> (# s1, c1, a #)
      (# s1, Left es #) ->
        case unIO (tryRow (IO (\s2 -> case q r c s2 of (# s3, c3, b #) -> (# s3, (I# c3, b) #)))) s1 of
          (# s3, Right (I# c3, b) #) -> (# s3, c3, b #)
          (# s3, Left fs #) -> rowFail r (es ++ fs) s3

-- | The value, or the errors of a failed parse.
tryRow :: IO a -> IO (Either [SomeException] a)
tryRow act = (Right <$> act) `catch` \(RowFailure _ es) -> return (Left es)

instance MonadPlus RowParser

-- | @fail@ fails the row with an 'ErrorCall' (as 'Ok'\'s @fail@).
instance MonadFail RowParser where
  fail msg = RowParser $ \r _ s -> rowFail r [SomeException (ErrorCall msg)] s

-- | The SQL kinds of value (a bit per @SQLBATCH_*@ kind) for which a row parser applies a
-- field's conversion in line, at type @a@; for the others it makes one out-of-line call of
-- the same conversion ('fieldSlow'). Only the speed and the size of the compiled parser
-- depend on it, never the result: both paths apply the conversion to the same 'Field'.
newtype InlineKinds a = InlineKinds Int

-- | Every kind in line (what a conversion that says nothing gets).
allKinds :: InlineKinds a
allKinds = InlineKinds 0x3e
{-# INLINE allKinds #-}

-- | The given kinds in line (@kindInteger@, ... from "Database.SQLBatch.Raw.Types").
inlineKinds :: [Word8] -> InlineKinds a
inlineKinds = InlineKinds . foldr (\k m -> m .|. shiftL 1 (fromIntegral k)) 0
{-# INLINE inlineKinds #-}

-- | The kinds of @a@ and NULL (for @Maybe a@).
orNullKind :: InlineKinds a -> InlineKinds (Maybe a)
orNullKind (InlineKinds m) = InlineKinds (m .|. shiftL 1 (fromIntegral kindNull))
{-# INLINE orNullKind #-}

inKinds :: InlineKinds a -> Word8 -> Bool
inKinds (InlineKinds m) k = testBit m (fromIntegral k)
{-# INLINE inKinds #-}

-- | Reads the next column with the given conversion (the 'Ok' is evaluated, so the
-- converted value is in WHNF). Past the last column it fails with 'ColumnOutOfBounds'.
fieldWith :: FieldParser a -> RowParser a
fieldWith = fieldWithKinds allKinds
{-# INLINE fieldWith #-}

-- | 'fieldWith' that applies the conversion in line only for values of the given kinds
-- (see 'InlineKinds'); 'Database.SQLBatch.FromRow.field' passes the kinds of the
-- 'Database.SQLBatch.FromField.FromField' instance.
fieldWithKinds :: forall a. InlineKinds a -> FieldParser a -> RowParser a
fieldWithKinds kinds fp = RowParser $ \r c s ->
  let i = I# c
  in if i >= rowCols r
       then outOfBounds r i s
       else
         -- One branch per kind in line, each applying the conversion to a known
         -- constructor, so that GHC resolves the conversion's case on it and allocates no
         -- 'SQLData'; every other kind goes to one out-of-line call.
         let cell = Cell (rowCells r `plusPtr` (i * valueSize)) i (rowCtx r)
             done :: State# RealWorld -> Ok a -> (# State# RealWorld, Int#, a #)
             done s1 ok = case ok of
               Ok a -> (# s1, c +# 1#, a #)
               Errors es -> rowFail r es s1
             {-# INLINE done #-}
         in case unIO (fieldKind cell) s of
              (# s0, k #)
                | inKinds kinds kindInteger && k == kindInteger ->
                    case unIO (fieldInt64Unchecked cell) s0 of
                      (# s1, x #) -> done s1 (fp (Field (SQLInteger x) i))
                | inKinds kinds kindFloat && k == kindFloat ->
                    case unIO (fieldDoubleUnchecked cell) s0 of
                      (# s1, x #) -> done s1 (fp (Field (SQLFloat x) i))
                | inKinds kinds kindNull && k == kindNull -> done s0 (fp (Field SQLNull i))
                | inKinds kinds kindText && k == kindText ->
                    case unIO (fieldTextOr cell (lenientText cell)) s0 of
                      (# s1, t #) -> done s1 (fp (Field (SQLText t) i))
                | inKinds kinds kindBlob && k == kindBlob ->
                    case unIO (fieldByteSlice cell) s0 of
                      (# s1, b #) -> done s1 (fp (Field (SQLBlob b) i))
                | otherwise -> case unIO (fieldSlow fp r cell) s0 of
                    (# s1, a #) -> (# s1, c +# 1#, a #)
{-# INLINE fieldWithKinds #-}

-- | A field's conversion out of line: the value read whole ('cellField') and converted.
fieldSlow :: FieldParser a -> Row -> Cell -> IO a
fieldSlow fp r cell = do
  f <- cellField cell
  case fp f of
    Ok a -> return a
    Errors es -> throwIO (RowFailure r es)
{-# NOINLINE fieldSlow #-}

-- | A TEXT cell's bytes that are not valid UTF-8, decoded leniently (U+FFFD for bad bytes)
-- from a copy, as 'cellData' does.
lenientText :: Cell -> IO Text
lenientText cell = do
  bs <- fieldByteCopy cell
  return $! TE.decodeUtf8With TE.lenientDecode bs
{-# NOINLINE lenientText #-}

outOfBounds :: Row -> Int -> State# RealWorld -> (# State# RealWorld, Int#, a #)
outOfBounds r i = rowFail r [SomeException (ColumnOutOfBounds (i + 1))]
{-# NOINLINE outOfBounds #-}

-- | How many columns of the row are left to read.
numFieldsRemaining :: RowParser Int
numFieldsRemaining = RowParser $ \r c s -> (# s, c, rowCols r - I# c #)
{-# INLINE numFieldsRemaining #-}

-- | Runs a row parser over a row, checking that it read every column. Throws what
-- sqlite-simple throws: the error of a parse that failed with one, 'ManyErrors' for
-- several, and 'ConversionFailed' (with sqlite-simple's texts) when the parser reads fewer
-- or more columns than the row has.
runRow :: RowParser a -> Row -> IO a
runRow rp row = catchRowFailure (runRowRaw rp row)
{-# INLINE runRow #-}

-- | 'runRow' that leaves a failed parse as 'RowFailure': for loops over many rows, which
-- catch it once around the batch ('catchRowFailure').
runRowRaw :: RowParser a -> Row -> IO a
runRowRaw (RowParser p) row = IO $ \s -> case p row 0# s of
  (# s1, c, a #)
    | isTrue# (c ==# cols) -> (# s1, a #)
    | otherwise -> unIO (columnMismatch row (I# c)) s1
  where
    !(I# cols) = rowCols row
{-# INLINE runRowRaw #-}

-- | Runs an action that parses rows with 'runRowRaw' (a loop over batches), turning a
-- 'RowFailure' into sqlite-simple's exception for its row. The row's batch must still be
-- valid when the action ends: the failure ends the loop before the next fetch, and this
-- runs inside 'withFetcher'.
catchRowFailure :: IO a -> IO a
catchRowFailure act = act `catch` \(RowFailure row es) -> rowFailed row es
{-# INLINE catchRowFailure #-}

-- | The errors of a failed row, thrown.
rowFailed :: Row -> [SomeException] -> IO a
rowFailed row es = case es of
  [] -> throwIO (ConversionFailed "" "" "unknown error")
  [e] -> case fromException e of
    Just (ColumnOutOfBounds c) -> columnMismatch row c
    Nothing -> throwIO e
  _ -> throwIO (ManyErrors es)
{-# NOINLINE rowFailed #-}

-- | sqlite-simple's error for a row parser that does not read every column (@c@ is the
-- column count it needed, or read).
columnMismatch :: Row -> Int -> IO a
columnMismatch row c = do
  vals <- mapM (\i -> cellData (Cell (rowCells row `plusPtr` (i * valueSize)) i (rowCtx row)))
            [0 .. rowCols row - 1]
  let shown = [(gettypename v, ellipsis v) | v <- vals]
      ellipsis v = let t = T.pack (show v)
                   in if T.length t > 20 then T.take 15 t <> "[...]" else t
  throwIO (ConversionFailed (show (rowCols row) ++ " values: " ++ show shown)
             ("at least " ++ show c ++ " slots in target type")
             "mismatch between number of columns to convert and number in target type")
{-# NOINLINE columnMismatch #-}

-- | Folds over the rows of a batch, strictly (the accumulator is forced to WHNF). A row
-- that fails to parse leaves as 'RowFailure': run it inside 'catchRowFailure' (around the
-- whole loop over the batches, so that the loop's variables stay local to it).
foldBatch :: RowParser r -> BatchView -> (a -> r -> IO a) -> a -> IO a
foldBatch rp bv f = go 0
  where
    !n = bvRows bv
    !cols = bvCols bv
    !stride = cols * valueSize
    !cells = bvCells bv
    ctx = bvCtx bv
    go !i !acc
      | i >= n = return acc
      | otherwise = do
          r <- runRowRaw rp (Row (cells `plusPtr` (i * stride)) cols ctx)
          acc' <- f acc r
          go (i + 1) acc'
{-# INLINE foldBatch #-}

-- | The rows of a batch, parsed in order into an array (a large object that the garbage
-- collector scans but never copies). Failures as for 'foldBatch'.
collectBatch :: RowParser r -> BatchView -> IO (RowArray r)
collectBatch rp bv = IO $ \s0 -> case newArray# n# undefinedRow s0 of
  (# s1, marr #) ->
    let go i s
          | isTrue# (i >=# n#) = case unsafeFreezeArray# marr s of
              (# s2, arr #) -> (# s2, RowArray arr n# #)
          | otherwise = case unIO (runRowRaw rp (Row (cells `plusPtr` (I# i * stride)) cols ctx)) s of
              (# s2, r #) -> case writeArray# marr i r s2 of
                s3 -> go (i +# 1#) s3
    in go 0# s1
  where
    !(I# n#) = bvRows bv
    !cols = bvCols bv
    !stride = cols * valueSize
    !cells = bvCells bv
    ctx = bvCtx bv
{-# INLINE collectBatch #-}

-- | The rows of one batch.
data RowArray r = RowArray (Array# r) Int#

undefinedRow :: a
undefinedRow = error "Database.SQLBatch.Internal: row not parsed"
{-# NOINLINE undefinedRow #-}

-- | The rows of the arrays (given last batch first), as one list built from its end: one
-- cons per row, no intermediate lists.
rowsToList :: [RowArray r] -> [r]
rowsToList = go []
  where
    go acc [] = acc
    go acc (RowArray arr n : rest) = go (fill acc (n -# 1#)) rest
      where
        fill xs i
          | isTrue# (i <# 0#) = xs
          | otherwise = case indexArray# arr i of
              (# r #) -> fill (r : xs) (i -# 1#)

-- | Folds over every remaining row of a statement, batch by batch.
foldStatementWith :: RowParser r -> Statement -> a -> (a -> r -> IO a) -> IO a
foldStatementWith rp st z f = withFetcher foldBudget st $ \fr ->
  let loop !acc = do
        bv <- nextBatch fr
        acc' <- foldBatch rp bv f acc
        if bvDone bv then return acc' else loop acc'
  in onAsync st (catchRowFailure (loop z))
{-# INLINE foldStatementWith #-}

-- | Every remaining row of a statement, as a list.
collectStatementWith :: RowParser r -> Statement -> IO [r]
collectStatementWith rp st = withFetcher collectBudget st $ \fr ->
  let loop batches = do
        bv <- nextBatch fr
        rows <- collectBatch rp bv
        let batches' = rows : batches
        if bvDone bv then return $! rowsToList batches' else loop batches'
  in onAsync st (catchRowFailure (loop []))
{-# INLINE collectStatementWith #-}

-- | Runs a loop over a statement's batches; if an asynchronous exception ends it while the
-- worker steps the statement's next batch, stops that stepping ('cancelAhead').
onAsync :: Statement -> IO a -> IO a
onAsync st act = act `catch` \e -> do
  case fromException e of
    Just (_ :: SomeAsyncException) -> cancelAhead st
    Nothing -> return ()
  throwIO (e :: SomeException)
{-# INLINE onAsync #-}
