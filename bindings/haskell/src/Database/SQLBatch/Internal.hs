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
-- A 'Connection' is sqlite-simple's record around the package's one connection
-- ('connectionHandle', a "Database.SQLite3" @Database@), and a 'Statement' a view of the one
-- statement ('unStatement', a "Database.SQLite3" @Statement@): see
-- "Database.SQLBatch.Internal.Core", which holds the lock, the run state and the batch
-- readers both APIs share.
--
-- = How a result is read
--
-- A statement is run by 'nextBatch', which makes one (interruptible, @safe@) call to
-- @sqlbatch_stmt_fetch_into@ for up to a few thousand rows. The cells land in memory owned
-- by the statement and are read with plain 'peekByteOff's; the TEXT and BLOB bytes land in
-- a pinned buffer allocated here, so that a 'B.ByteString' field is a zero-copy slice of it
-- and 'Data.Text.Text' is decoded straight from it. A buffer is reused for the next batch
-- unless a slice of it was handed out; then the next batch goes to the rest of the buffer,
-- or to a fresh one, and the old buffer lives exactly as long as its slices. 'nextRowWith'
-- reads rows one at a time through the statement's cursor (the snapshot direct-sqlite's
-- @step@ reads), so that the two APIs see one position.
module Database.SQLBatch.Internal
  ( -- * Connections
    Connection (..)
  , openConnection
  , openConnectionWith
  , closeConnection
  , connDatabase
  , connJob
  , connWriteBehind
  , withConn
  , withConnDirect
  , withConnAhead
  , settle
  , Job (..)
  , fetchAheadAvailable
  , throwSQL
    -- * Statements
  , Statement (..)
  , stmtQuery
  , stmtDb
  , stmtPtr
  , statementParamNames
  , statementParamCount
  , statementMayNameParams
  , mayNameParams
  , prepareStatement
  , finalizeStatement
  , withPrepared
  , bindValues
  , bindPositionalQuick
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
  , returnRowError
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
  , nextRowWith
    -- * Values
  , toValue
  , encodeParams
  , paramBytesBound
  , Sized (..)
  , sized
  , encodeRow
  , rowNoRoom
  , rowBadWidth
  , withParams
  , withParamsRoom
  , paramsRoom
  , queryUtf8
  , contextOf
  ) where

import Control.Applicative (Alternative (..))
import Control.Monad (MonadPlus)
import Control.Exception
import Control.Monad (filterM, unless, when)
import Data.Bits (shiftL, testBit, (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.IORef
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word16, Word32, Word64, Word8)
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.ForeignPtr.Unsafe (unsafeForeignPtrToPtr)
import Foreign.Ptr (Ptr, castPtr, nullPtr, plusPtr)
import Foreign.Storable (peekByteOff, pokeByteOff)
import GHC.Exts (oneShot, raiseIO#, Array#, Int (..), Int#, RealWorld, State#, indexArray#, isTrue#, newArray#, unsafeFreezeArray#, writeArray#, (+#), (-#), (<#), (==#), (>=#))
import GHC.ByteOrder (ByteOrder (..), targetByteOrder)
import GHC.ForeignPtr (mallocPlainForeignPtrBytes)

import GHC.IO (IO (..), unIO)

import Database.SQLBatch.Direct (Utf8 (..), Value (..))
import qualified Database.SQLBatch.Direct as D
import Database.SQLBatch.Error
import Database.SQLBatch.Internal.Core hiding (Statement, cancelAhead, setStatementFetchAhead, statementMayNameParams,
                                               statementParamCount, statementParamNames, throwSQL)
import qualified Database.SQLBatch.Internal.Core as C
import Database.SQLBatch.Internal.Facts (factParamCount, readFact)
import Database.SQLBatch.Internal.Rows (bindTables, tablesIn, withoutTables)
import Database.SQLBatch.Internal.Text
import Database.SQLBatch.Ok
import Database.SQLBatch.Raw
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Types

------------------------------------------------------------------------------------------
-- Connections

-- | A connection to a database (sqlite-simple's record). All its state is in its
-- 'connectionHandle', the package's one connection, which "Database.SQLite3" uses as its
-- @Database@: a program may mix the two APIs on one connection. Safe to share between
-- threads: calls into the library are serialized by a lock that is held for one call at a
-- time (one batch, one script), so a connection can be used by a fold's callback while the
-- fold is running.
data Connection = Connection
  { connectionHandle :: !Database
    -- ^ The connection as "Database.SQLite3" (direct-sqlite's API) takes it.
  , connectionTempNameCounter :: !(IORef Word64)
    -- ^ sqlite-simple's counter of names for savepoints.
  }

instance Eq Connection where
  a == b = connectionHandle a == connectionHandle b

instance Show Connection where
  show c = "<sqlbatch connection " ++ show (dbPath (connectionHandle c)) ++ ">"

-- | The connection's handle in the layer below ("Database.SQLBatch.Direct"): valid while
-- the connection is open; calls on it must hold the lock ('withConn').
connDatabase :: Connection -> D.Database
connDatabase = rawDatabase . connectionHandle
{-# INLINE connDatabase #-}

-- | What the connection's worker may be running.
connJob :: Connection -> IORef Job
connJob = dbJob . connectionHandle

-- | Whether 'Database.SQLBatch.executeMany' writes behind on the connection.
connWriteBehind :: Connection -> Bool
connWriteBehind = dbWriteBehind . connectionHandle

-- | Throws an 'SQLError' built from the connection's last error. Call it with the lock held.
throwSQL :: D.Database -> Int32 -> Text -> IO a
throwSQL db rc ctx = D.errorFrom db rc ctx >>= throwIO

-- | Opens a connection; throws 'SQLError' on failure.
openConnection :: Text -> [D.OpenFlag] -> IO Connection
openConnection = openConnectionWith Nothing

-- | 'openConnection', with a key and cipher settings when given (see 'openDatabaseWith').
openConnectionWith :: Maybe (B.ByteString, Cipher) -> Text -> [D.OpenFlag] -> IO Connection
openConnectionWith key path flags = do
  let bits = foldr ((.|.) . D.openFlagBits) 0 flags
      Utf8 p = Utf8 (TE.encodeUtf8 path)
  r <- openDatabaseWith key p bits (D.OpenFetchAhead `elem` flags) (D.OpenWriteBehind `elem` flags)
  case r of
    Right db -> Connection db <$> newIORef 0
    Left (rc, msg) -> throwIO SQLError
      { sqlError = decodeError rc, sqlErrorCode = rc
      , sqlErrorDetails = TE.decodeUtf8With TE.lenientDecode msg
      , sqlErrorContext = "open " <> path
      , sqlErrorOffset = Nothing, sqlErrorStatementIndex = Nothing
      , sqlErrorStatementOffset = Nothing, sqlErrorRowIndex = Nothing }

-- | Closes the connection (waiting for a call running on it to end). Idempotent.
closeConnection :: Connection -> IO ()
closeConnection = closeDatabase . connectionHandle

-- | Runs one call into the library with the connection's lock held; throws 'SQLError'
-- 'ErrorClosed' if the connection is closed. The action runs with asynchronous exceptions
-- unmasked, so that an interruptible call in it can be interrupted.
withConn :: Connection -> Text -> (Ptr CConn -> IO a) -> IO a
withConn c = withDb (connectionHandle c)
{-# INLINE withConn #-}

-- | 'withConn' that does not wait for the connection's worker first (see 'withDbAhead').
withConnAhead :: Connection -> Text -> (Ptr CConn -> IO a) -> IO a
withConnAhead c = withDbAhead (connectionHandle c)
{-# INLINE withConnAhead #-}

-- | 'withConn' for a "Database.SQLBatch.Direct" call returning 'Either': throws the error.
withConnDirect :: Connection -> Text -> (D.Database -> IO (Either SQLError a)) -> IO a
withConnDirect c ctx act = do
  r <- withConn c ctx (\_ -> act (connDatabase c))
  case r of
    Right a -> return a
    Left e -> throwIO e { sqlErrorContext = ctx }
{-# INLINE withConnDirect #-}

------------------------------------------------------------------------------------------
-- Statements

-- | A prepared statement (sqlite-simple's newtype): a view of the package's one statement,
-- which "Database.SQLite3" uses as its @Statement@. Both APIs see one run: rows read by
-- 'Database.SQLBatch.nextRow' and direct-sqlite's @step@ come from one cursor.
newtype Statement = Statement
  { unStatement :: C.Statement
    -- ^ The statement as "Database.SQLite3" (direct-sqlite's API) takes it.
  }

instance Eq Statement where
  Statement a == Statement b = a == b

-- | The SQL as given, for error contexts and 'FormatError'.
stmtQuery :: Statement -> Query
stmtQuery = C.stQuery . unStatement
{-# INLINE stmtQuery #-}

-- | The statement's connection.
stmtDb :: Statement -> Database
stmtDb = C.stDb . unStatement
{-# INLINE stmtDb #-}

-- | The statement's handle (valid until finalized).
stmtPtr :: Statement -> Ptr CStmt
stmtPtr = C.stPtr . unStatement
{-# INLINE stmtPtr #-}

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
      db = connectionHandle conn
  withDb db ctx $ \c -> do
    r <- prepareCore db c q sql prepareSingle
    case r of
      Left rc -> throwSQL (rawDatabase db) rc ctx
      Right (Nothing, _) -> throwSQL (rawDatabase db) sqlbatchENullParameter ctx
      Right (Just st, _) -> do
        -- The parameter count in the same locked section (an unsafe call): every bind
        -- checks it.
        _ <- C.statementParamCount st
        return (Statement st)

-- | Finalizes a statement (and frees its buffers). Idempotent.
finalizeStatement :: Statement -> IO ()
finalizeStatement st = () <$ finalizeCore (unStatement st)

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
    -- 'putCell' and 'putCellTail': the length, kind and padding in one store.
    put = putCell
    putTail = putCellTail

-- | The number of values, and an upper bound of the bytes 'encodeParams' writes for them
-- ('sized'): one pass.
data Sized = Sized !Int !Int

-- | The 'Sized' of values.
sized :: [SQLData] -> Sized
sized = go 0 0
  where
    go !n !acc [] = Sized n acc
    go !n !acc (v : vs) = case v of
      SQLText t -> go (n + 1) (acc + utf8Bound t) vs
      SQLBlob b -> go (n + 1) (acc + B.length b) vs
      _ -> go (n + 1) acc vs
{-# INLINE sized #-}

-- | An upper bound of the bytes 'encodeParams' writes for these values.
paramBytesBound :: [SQLData] -> Int
paramBytesBound vs = case sized vs of Sized _ bytes -> bytes
{-# INLINE paramBytesBound #-}

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
withParams vs names k = withParamsRoom 0 vs names (\_ _ -> k)
{-# INLINE withParams #-}

-- | 'withParams' with @room@ more bytes (a multiple of 16) in front of the cells, for the
-- caller's use: one buffer (one pinned allocation) for the room, the cells and the bytes;
-- the action also gets the number of values (@k nvalues front cells names dat dataLen@).
withParamsRoom :: Int -> [SQLData] -> [SQLData]
               -> (Int -> Ptr Word8 -> Ptr CValue -> Ptr CValue -> Ptr Word8 -> Int -> IO a) -> IO a
withParamsRoom room vs names k =
  let !(Sized nv bv) = sized vs
      !(Sized nn bn) = sized names
      cellBytes = (nv + nn) * valueSize
  in allocaBytes (max 1 (room + cellBytes + bv + bn)) $ \front -> do
    let cells = front `plusPtr` room
        dat = cells `plusPtr` cellBytes
    off <- encodeParams cells dat 0 vs
    let nameCells = cells `plusPtr` (nv * valueSize)
    end <- encodeParams nameCells dat off names
    k nv front (castPtr cells) (if nn == 0 then nullPtr else castPtr nameCells) dat end
{-# INLINE withParamsRoom #-}

-- | Binds all parameters (positional): value @i@ to parameter @i+1@; the count must match.
bindValues :: Statement -> [SQLData] -> IO ()
bindValues st vs = bindRaw st (contextOf "bind" (stmtQuery st)) vs []

-- | One @sqlbatch_stmt_bind@ of values (and, if not empty, as many names): an unsafe call
-- if the statement is not in the middle of a run (the library has nothing to reset) and
-- the values take at most 'unsafeBindBytes' bytes, else a safe one. The values are kept,
-- lazily, for direct-sqlite's per-parameter binds.
bindRaw :: Statement -> Text -> [SQLData] -> [SQLData] -> IO ()
bindRaw s@(Statement st) ctx vs0 names
  | null names, n <- deferrable 0 0 vs0, n >= 0 = do
      deferred <- deferBind st vs0 (n `quot` deferUnit) (n `rem` deferUnit)
      unless deferred $ bindNow s ctx vs0 names
  | otherwise = bindNow s ctx vs0 names
{-# INLINE bindRaw #-}

-- | The common bind of a kept statement ("Database.SQLBatch"'s @bind@), with
-- sqlite-simple's checks made in the same pass as 'deferrable''s: when the statement's
-- parameter count is known and is the number of values, the SQL cannot name a parameter
-- ('statementMayNameParams') and every value is 'deferrable', the values are bound
-- ('deferBind', else 'bindNow', as 'bindValues' binds them) and this returns True. Those
-- checks pass then, so nothing else would have been thrown. False, with nothing done, in
-- every other case: the caller then makes the checks and binds.
bindPositionalQuick :: Statement -> [SQLData] -> IO Bool
bindPositionalQuick s@(Statement st) vs = do
  np <- readFact (stFacts st) factParamCount
  let d = deferrable 0 0 vs
      n = d `quot` deferUnit
  if np <= 0 || d < 0 || n /= np || n > maxParams || C.statementMayNameParams st then return False else do
    deferred <- deferBind st vs n (d `rem` deferUnit)
    unless deferred $ bindNow s (contextOf "bind" (stmtQuery s)) vs []
    return True

-- | If every value is a number, a NULL, or a TEXT or BLOB of at most 'minLengthLimit'
-- bytes: @count * 'deferUnit' + bytes@ (an upper bound of the TEXTs' bytes); else -1.
deferrable :: Int -> Int -> [SQLData] -> Int
deferrable !n !bytes [] = n * deferUnit + bytes
deferrable !n !bytes (v : vs) = case v of
  SQLInteger _ -> deferrable (n + 1) bytes vs
  SQLFloat _ -> deferrable (n + 1) bytes vs
  SQLNull -> deferrable (n + 1) bytes vs
  SQLText t | k <- utf8Bound t, k <= minLengthLimit -> deferrable (n + 1) (bytes + k) vs
  SQLBlob b | k <- B.length b, k <= minLengthLimit -> deferrable (n + 1) (bytes + k) vs
  _ -> -1

-- | The radix of 'deferrable' (more than the bytes of 'maxParams' values of 'minLengthLimit'
-- bytes), and the most values a deferred bind has.
deferUnit, maxParams :: Int
deferUnit = 1000000
maxParams = 32766

-- | SQLite's least length limit (@SQLITE_MIN_LENGTH@: @sqlite3_limit@ raises a lower
-- @SQLITE_LIMIT_LENGTH@ to it): a value of at most this many bytes is never too big to bind.
minLengthLimit :: Int
minLengthLimit = 30

-- | The bind of @n@ values ('deferrable', with at most @bytes@ bytes of TEXT and BLOB) to
-- a live statement that is not in the middle of a run, has @n@ parameters, and is on an
-- open connection outside its hooks: laid out here and recorded ('WholeEncoded'), without
-- the lock; the statement's next run sends it in the locked section of its first fetch
-- (one unsafe call, as an eager bind of such a statement is, after waiting interruptibly
-- for a job the connection's worker may run: "Database.SQLBatch.Internal.Core"'s
-- @runFetch@). Such a bind cannot fail (the count is right, no value is longer than any
-- length limit SQLite allows, a 'Text' is valid UTF-8), so no error comes later than it
-- would have; and a kept statement's bind and run take the lock once. False, with nothing
-- done, in every other case: 'bindNow' then binds at once, with its checks and errors.
deferBind :: C.Statement -> [SQLData] -> Int -> Int -> IO Bool
deferBind st vs !n !bytes
  | n > maxParams = return False
  | otherwise = do
  let db = stDb st
  h <- statementHandle st
  np <- readFact (stFacts st) factParamCount
  run <- readIORef (stRun st)
  open <- readIORef (dbOpen db)
  hs <- readIORef (dbHookThreads db)
  if h == nullPtr || np /= n || running run || not open || not (null hs) then return False else do
    let cellBytes = max 1 n * valueSize
    fp <- mallocPlainForeignPtrBytes (paramsRoom + cellBytes + bytes)
    let front = unsafeForeignPtrToPtr fp
        cells = front `plusPtr` paramsRoom
        dat = cells `plusPtr` cellBytes
    end <- encodeParams cells dat 0 vs
    pokeParams (castPtr front) (castPtr cells) nullPtr n (if end == 0 then nullPtr else dat) end 0
    -- A run that ended is rewound by the bind the next run sends (as by an eager bind); a
    -- run state changed meanwhile by another thread makes this bind an eager one. From
    -- 'Ready' and 'Rewind' (a statement reset after its run) nothing is written.
    ok <- case run of
      Ready -> return True
      Rewind -> return True
      _ -> casIORef (stRun st) run Rewind
    if not ok then return False else do
      writeIORef (stWhole st) $! WholeEncoded [1 ..] (map toValue vs) fp
      return True

-- | The bind made at once, with the lock held ('bindRaw').
bindNow :: Statement -> Text -> [SQLData] -> [SQLData] -> IO ()
bindNow (Statement st) ctx vs0 names
  | not (null tables) && not (null names) = throwIO (SQLError ErrorMisuse sqlbatchEInvalidArgument
      "a table value (Database.SQLBatch.VTab) is bound by position, not by name" ctx Nothing Nothing Nothing Nothing)
  | otherwise =
  withParamsRoom paramsRoom vs names $ \nv front cells nameCells dat len -> do
   let pp = castPtr front
   pokeParams pp cells nameCells nv dat len 0
   r <- withDbQuick db True ctx $ \_ -> do
      h <- statementHandle st
      if h == nullPtr then return (Left (finalizedErr ctx)) else do
        run <- readIORef (stRun st)
        rc0 <- if not (running run) && len <= unsafeBindBytes
          then c_sqlbatch_stmt_bind_unsafe h pp
          else c_sqlbatch_stmt_bind h pp
        writeIORef (stRun st) Ready
        -- Table values: NULL in the bind above, then each its own (the statement is reset).
        trc <- if rc0 /= sqlbatchOk || null tables then return (Right ()) else bindTables h True tables
        let rc = either fst (const rc0) trc
        if rc /= sqlbatchOk then case trc of
          Left (_, Just msg) -> return (Left (SQLError (decodeError rc) rc (T.pack msg) ctx
                                               Nothing Nothing Nothing Nothing))
          _ -> Left <$> D.errorFrom (rawDatabase db) rc ctx
        else do
          known <- if null names then return (Just [1 ..]) else do
            ps <- knownParams st
            return $ fmap (\ns -> [i | n <- names, i <- indexOf ns n]) ps
          writeIORef (stWhole st) $! case known of
            Just is -> WholeSent is (map toValue vs0)
            Nothing -> WholeSent [] []
          return (Right ())
   either throwAfter return r
  where
    db = stDb st
    tables = tablesIn vs0
    vs = if null tables then vs0 else withoutTables vs0
    indexOf ns (SQLText n) = [i | (i, Just (Utf8 b)) <- zip [1 ..] ns, TE.decodeUtf8With TE.lenientDecode b == n]
    indexOf _ _ = []

-- | Room for a @sqlbatch_params@ in front of a parameter buffer ('withParamsRoom').
paramsRoom :: Int
paramsRoom = (paramsSize + 15) `quot` 16 * 16

-- | The error of a call on a finalized statement.
finalizedErr :: Text -> SQLError
finalizedErr ctx =
  SQLError ErrorMisuse 21 "the statement is finalized" ctx Nothing Nothing Nothing Nothing

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
  unknown <- withDb (stmtDb st) ctx $ \_ -> filterM (isUnknown ctx) (map fst named)
  case unknown of
    [] -> return ()
    (k : _) -> throwIO (SQLError ErrorRange 25 ("the statement has no parameter named " <> k)
                          ctx Nothing Nothing Nothing Nothing)
  bindRaw st ctx (map snd named) (if null named then [] else map (SQLText . fst) named)
  where
    isUnknown ctx k = do
      r <- D.paramIndex (D.Statement (stmtPtr st) (rawDatabase (stmtDb st))) (Utf8 (TE.encodeUtf8 k))
      case r of
        Right i -> return (i == 0)
        Left e -> throwIO e { sqlErrorContext = ctx }

-- | The statement's parameter names by index (from 1), 'Nothing' for a plain @?@: asked of
-- the library (@sqlbatch_stmt_params@) on first use only, then kept with the statement
-- (they cannot change), so binding a kept statement again costs no extra call.
statementParamNames :: Statement -> IO [Maybe Text]
statementParamNames (Statement st) = do
  cached <- knownParams st
  ns <- case cached of
    Just ns -> return ns
    Nothing -> withDb (stDb st) (contextOf "params" (stQuery st)) $ \_ -> C.statementParamNames st
  return [fmap (\(Utf8 b) -> TE.decodeUtf8With TE.lenientDecode b) n | n <- ns]

-- | The statement's parameter count (the largest index): asked of the library
-- (@sqlbatch_stmt_param_count@, which builds no names) on first use only and kept with the
-- statement.
statementParamCount :: Statement -> IO Int
statementParamCount (Statement st) = do
  cached <- readFact (stFacts st) factParamCount
  if cached >= 0 then return cached
    else withDb (stDb st) (contextOf "params" (stQuery st)) $ \_ -> C.statementParamCount st

-- | Rewinds the statement (keeping bindings). A statement that ran to its end is only
-- marked ('Rewind'): its next run rewinds it in the same call.
resetStatement :: Statement -> IO ()
resetStatement (Statement st) = do
  run <- readIORef (stRun st)
  let ended = case run of
        Finished -> True
        Rewind -> True
        Rows sn -> snLast sn
        _ -> False
  if ended
    then do
      open <- readIORef (dbOpen (stDb st))
      unless open $ throwIO (closedError (contextOf "reset" (stQuery st)))
      writeIORef (stRun st) Rewind
    else resetNow st
{-# INLINE resetStatement #-}

-- | The reset of a statement that may be in the middle of a run: a call into the library.
resetNow :: C.Statement -> IO ()
resetNow st = do
  let ctx = contextOf "reset" (stQuery st)
      db = stDb st
  withDb db ctx $ \_ -> do
    h <- statementHandle st
    when (h == nullPtr) $ throwIO (finalizedErr ctx)
    run <- readIORef (stRun st)
    rc <- if running run then c_sqlbatch_stmt_reset h else c_sqlbatch_stmt_reset_unsafe h
    writeIORef (stRun st) Ready
    when (rc /= sqlbatchOk) $ throwSQL (rawDatabase db) rc ctx

-- | False if the statement certainly has only nameless @?@ parameters (or none), judged
-- from its SQL text without asking the library ('mayNameParams'); True if it might have a
-- named or numbered one ('statementParamNames' then tells).
statementMayNameParams :: Statement -> Bool
statementMayNameParams = C.statementMayNameParams . unStatement

-- | Turns fetch-ahead on or off for the statement (@sqlbatch_stmt_set_fetch_ahead@). A
-- no-op under the non-threaded RTS ('fetchAheadAvailable').
setStatementFetchAhead :: Statement -> Bool -> IO ()
setStatementFetchAhead = C.setStatementFetchAhead . unStatement

-- | Stops the stepping of the statement's next batch, if its last fetch left the worker on
-- it (see "Database.SQLBatch.Internal.Core").
cancelAhead :: Statement -> IO ()
cancelAhead = C.cancelAhead . unStatement

-- | The names of the result columns (of the statement as SQLite last prepared it).
columnNamesOf :: Statement -> IO [Text]
columnNamesOf (Statement st) = do
  cached <- knownCols st
  ns <- case cached of
    Just ns -> return ns
    Nothing -> withDb (stDb st) (contextOf "columns" (stQuery st)) $ \_ -> statementColumnNames st
  return [TE.decodeUtf8With TE.lenientDecode n | Utf8 n <- ns]

-- | The name of result column @i@ (from 0), or empty if it cannot be had.
columnNameAt :: C.Statement -> Int -> IO Text
columnNameAt st i = do
  r <- try (columnNamesOf (Statement st))
  return $ case r of
    Right ns | i >= 0 && i < length ns -> ns !! i
    Right _ -> T.empty
    Left (_ :: SomeException) -> T.empty

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

-- | Fails the row with this exception (sqlite-simple's, from its master branch): the
-- query, fold or 'Database.SQLBatch.nextRow' throws it as it is (several errors, from
-- both sides of a failed '<|>', as 'ManyErrors'). For checks over a whole row that no
-- single field can make:
--
-- > pair :: RowParser (Text, Text)
-- > pair = do
-- >   n <- numFieldsRemaining
-- >   if n /= 2 then returnRowError (userError "two columns") else (,) <$> field <*> field
returnRowError :: Exception e => e -> RowParser a
returnRowError e = RowParser $ \r _ s -> rowFail r [toException e] s

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

-- | Reads the rest of the snapshot the statement's cursor stands on, if any (rows that
-- direct-sqlite's @step@ or 'nextRowWith' fetched and nobody read yet), so that a fold or
-- a query goes on from the cursor's row: @k view@ with the rows after the current one,
-- then the run state is what the rest of the statement gives ('Finished' if the snapshot
-- was the last batch).
snapshotRest :: Fetcher -> C.Statement -> (BatchView -> IO a) -> IO (Maybe a)
snapshotRest fr st k = do
  run <- readIORef (stRun st)
  case run of
    Rows sn -> do
      p <- readPos (snPos sn)
      writeIORef (stRun st) (if snLast sn then Finished else Running)
      if p + 1 >= snRows sn then return Nothing else Just <$> k (snapshotView fr sn (p + 1))
    _ -> return Nothing
{-# INLINE snapshotRest #-}

-- | Folds over every remaining row of a statement, batch by batch (from the cursor's row
-- on, if direct-sqlite's @step@ or 'nextRowWith' left it inside a batch).
--
-- The statement's fetcher is taken and given back without 'bracket': one that an exception
-- drops is the garbage collector's ('takeFetcher').
foldStatementWith :: RowParser r -> Statement -> a -> (a -> r -> IO a) -> IO a
foldStatementWith rp (Statement st) z f = do
  fr <- takeFetcher foldBudget st
  let loop !acc = do
        bv <- nextBatch fr
        acc' <- foldBatch rp bv f acc
        if bvDone bv then return acc' else loop acc'
      start = do
        rest <- snapshotRest fr st (\bv -> (,) (bvDone bv) <$> foldBatch rp bv f z)
        case rest of
          Nothing -> loop z
          Just (done, acc) -> if done then return acc else loop acc
  r <- onFailure st start
  putFetcher st fr
  return r
{-# INLINE foldStatementWith #-}

-- | Every remaining row of a statement, as a list (from the cursor's row on, as
-- 'foldStatementWith').
collectStatementWith :: RowParser r -> Statement -> IO [r]
collectStatementWith rp (Statement st) = do
  fr <- takeFetcher collectBudget st
  let loop batches = do
        bv <- nextBatch fr
        rows <- collectBatch rp bv
        let batches' = rows : batches
        if bvDone bv then return $! rowsToList batches' else loop batches'
      start = do
        rest <- snapshotRest fr st (\bv -> (,) (bvDone bv) <$> collectBatch rp bv)
        case rest of
          Nothing -> loop []
          Just (done, rows) -> if done then return $! rowsToList [rows] else loop [rows]
  r <- onFailure st start
  putFetcher st fr
  return r
{-# INLINE collectStatementWith #-}

-- | The next row of the statement through its cursor (the one direct-sqlite's @step@
-- moves), or 'Nothing' after the last: rows still come in batches, copied into a snapshot.
-- After 'Nothing' the statement stays at its end until it is reset or bound again.
nextRowWith :: RowParser r -> Statement -> IO (Maybe r)
nextRowWith rp (Statement st) = do
  run <- readIORef (stRun st)
  case run of
    Rows sn -> do
      r <- advancePos (snPos sn)
      if r < snRows sn then Just <$> parseAt sn r else slow
    Finished -> return Nothing
    _ -> slow
  where
    db = stDb st
    -- The locked section's action puts the lock back itself ('lockedReleasing', 'nextIn'),
    -- so that a fetch leaves one frame of its own under the mask's.
    slow = do
      m <- withLockReleasing db False (\_ open -> nextOpen st open) (nextIn st False)
      case m of
        Left e -> throwAfter e
        Right Nothing -> return Nothing
        Right (Just (sn, r)) -> Just <$> parseAt sn r
    -- Row @r@ of the snapshot, parsed with a fetcher's scratch (whose "slice taken" flag is
    -- left as it was: a snapshot is never reused).
    parseAt sn r = do
      fr <- takeFetcher foldBudget st
      let bv = snapshotView fr sn r
          ctxB = bvCtx bv
      flag <- peekByteOff (bcFlag ctxB) 0 :: IO Word8
      x <- runRow rp (Row (bvCells bv) (bvCols bv) ctxB)
      pokeByteOff (bcFlag ctxB) 0 flag
      putFetcher st fr
      return x

-- | The locked section of 'nextRowWith', given whether the connection is open.
nextOpen :: C.Statement -> Bool -> IO (Either SQLError (Maybe (Snap, Int)))
nextOpen st open
  | open = nextIn st True (dbHandle (stDb st))
  | otherwise = Left (closedError (contextOf "fetch" (stQuery st))) <$ unlock (stDb st)
{-# INLINE nextOpen #-}

-- | The part of 'nextRowWith' that needs the library: the snapshot's next row, fetching the
-- next snapshot if needed ('Nothing' at the end), with the connection's handle; in the
-- locked section if @locked@ (the lock put back last), else in a hook of the connection.
nextIn :: C.Statement -> Bool -> Ptr CConn -> IO (Either SQLError (Maybe (Snap, Int)))
nextIn st locked c = do
  h <- statementHandle st
  if h == nullPtr then out (Left (finalizedErr ctx)) else do
    run <- readIORef (stRun st)
    case run of
      Rows sn -> do
        -- Another thread may have fetched meanwhile: the position is taken again.
        p <- readPos (snPos sn)
        r <- if p < snRows sn then advancePos (snPos sn) else return p
        if r < snRows sn then out (Right (Just (sn, r))) else next h sn
      Finished -> out (Right Nothing)
      _ -> fetch h
  where
    db = stDb st
    ctx = contextOf "fetch" (stQuery st)
    out r = do
      when locked $ unlock db
      return r
    next h sn
      | snLast sn = writeIORef (stRun st) Finished >> out (Right Nothing)
      | otherwise = fetch h
    fetch h = do
      rc <- fetchSnapshot st c h
      if rc == sqlbatchRow
        then do
          run <- readIORef (stRun st)
          case run of
            Rows sn -> out (Right (Just (sn, 0)))
            _ -> out (Right Nothing)
        else if rc == sqlbatchDone then out (Right Nothing)
        else D.errorFrom (rawDatabase db) rc ctx >>= out . Left

-- | Runs a loop over a statement's batches under one handler: a row that failed to parse
-- ('RowFailure') throws sqlite-simple's error ('catchRowFailure'), and an asynchronous
-- exception stops the stepping of the statement's next batch if the worker does it
-- ('onAsync').
onFailure :: C.Statement -> IO a -> IO a
onFailure st act = act `catch` \e -> case fromException e of
  Just (RowFailure row es) -> rowFailed row es
  Nothing -> do
    case fromException e of
      Just (_ :: SomeAsyncException) -> C.cancelAhead st
      Nothing -> return ()
    throwIO (e :: SomeException)
{-# INLINE onFailure #-}

