{-# LANGUAGE GeneralizedNewtypeDeriving #-}
{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLBatch.Direct
-- Description : A thin layer over the C ABI: handles, 'Either' errors, ByteString text
--
-- One function per C function, returning errors instead of throwing them and doing only
-- cheap conversions: text is UTF-8 in a 'B.ByteString' ('Utf8'), values are 'Value's over
-- ByteStrings, batches are read in place. There is no locking: as the header's thread
-- model says, the caller uses a connection (and its statements) from one thread at a time.
-- "Database.SQLBatch" builds the usual API on top of this module, adding the locking,
-- 'Data.Text.Text', exceptions and resource safety.
module Database.SQLBatch.Direct
  ( -- * Text
    Utf8 (..)
  , fromUtf8
    -- * Connections
  , Database (..)
  , OpenFlag (..)
  , openFlagBits
  , open
  , openWith
  , close
  , interrupt
  , setBusyTimeout
  , changes
  , totalChanges
  , lastInsertRowId
  , autocommit
  , lastError
    -- * Statements
  , Statement (..)
  , PrepareFlag (..)
  , prepare
  , prepareTail
  , prepareWith
  , finalize
  , reset
  , clearBindings
  , bind
  , paramNames
  , paramCount
  , paramIndex
  , ColumnInfo (..)
  , columns
  , columnNotNull
  , readOnly
  , setFetchAhead
  , statementSql
  , expandedSql
    -- * Values
  , Value (..)
  , withValues
  , withValueParams
    -- * Batched fetch
  , FetchStatus (..)
  , Batch (..)
  , fetch
  , fetchInto
  , FetchIntoResult (..)
  , batchCell
  , cellKind
  , cellInt64
  , cellDouble
  , cellLength
  , cellBytes
  , cellValue
  , batchValues
    -- * Conversions
  , convertValue
    -- * Scripts and bulk writes
  , exec
  , ExecResult (..)
  , executeMany
  , WriteResult (..)
    -- * Library
  , codeString
  , codeName
  , libraryVersion
  , sqliteVersion
    -- * Errors
  , SQLError (..)
  , Error (..)
  , errorFrom
  ) where

import Control.Monad (forM)
import Data.Bits ((.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.List (foldl')
import Data.String (IsString (..))
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word16, Word32, Word64, Word8)
import Foreign.C.String (peekCString)
import Foreign.C.Types (CBool (..), CSize)
import Foreign.ForeignPtr (ForeignPtr, touchForeignPtr)
import Foreign.ForeignPtr.Unsafe (unsafeForeignPtrToPtr)
import Foreign.Marshal.Alloc (alloca, allocaBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.Ptr (Ptr, castPtr, nullPtr, plusPtr, ptrToWordPtr)
import Foreign.Storable (peek, peekByteOff, pokeByteOff)
import GHC.Float (castDoubleToWord64, castWord64ToDouble)

import Database.SQLBatch.Error
import Database.SQLBatch.Raw
import Database.SQLBatch.Raw.Types

-- | UTF-8 text in a ByteString: SQL, paths, names. The one type of the package
-- (direct-sqlite's @Utf8@, which "Database.SQLite3.Direct" re-exports), shown as the text
-- it holds.
newtype Utf8 = Utf8 B.ByteString
  deriving (Eq, Ord, Semigroup, Monoid)

-- | Shows the text (decoded leniently), as direct-sqlite does.
instance Show Utf8 where
  show (Utf8 s) = show (TE.decodeUtf8With TE.lenientDecode s)

-- | @fromString = Utf8 . 'TE.encodeUtf8' . 'T.pack'@
instance IsString Utf8 where
  fromString = Utf8 . TE.encodeUtf8 . T.pack

-- | The bytes of a 'Utf8'.
fromUtf8 :: Utf8 -> B.ByteString
fromUtf8 (Utf8 b) = b

-- | A connection handle. Valid until 'close'.
newtype Database = Database { databasePtr :: Ptr CConn }
  deriving (Eq, Show)

-- | A statement handle with the connection it was prepared on (needed for error details
-- and for interrupting). Valid until 'finalize'.
data Statement = Statement
  { statementPtr :: {-# UNPACK #-} !(Ptr CStmt)
  , statementDatabase :: {-# UNPACK #-} !Database
  }
  deriving (Eq, Show)

-- | Flags of 'openWith' (SQLite's @SQLITE_OPEN_*@ values). With neither 'OpenReadOnly'
-- nor 'OpenReadWrite', the database is opened read-write and created if missing.
data OpenFlag
  = OpenReadOnly
  | OpenReadWrite
  | OpenCreate
  | OpenUri
  | OpenMemory
  | OpenFullMutex    -- ^ keep SQLite's per-connection mutex (off by default; see the header)
  | OpenSharedCache
  | OpenPrivateCache
  | OpenNoFollow
  | OpenFetchAhead
    -- ^ sqlbatch's own (@SQLBATCH_OPEN_FETCH_AHEAD@): every statement of the connection
    -- fetches ahead (see 'setFetchAhead', which overrides it per statement). Under the
    -- non-threaded RTS, "Database.SQLBatch" leaves it out (see its \"Fetch-ahead and
    -- write-behind\"); this module passes it on as given.
  | OpenWriteBehind
    -- ^ Not a flag of the library (no bit is passed at this level): it makes
    -- "Database.SQLBatch"'s @executeMany@ on the connection write behind (run one chunk of
    -- rows on the connection's worker thread while the next is laid out).
  | OpenUntrusted
    -- ^ sqlbatch's own (@SQLBATCH_OPEN_UNTRUSTED@): the file may come from anyone (a
    -- download, a user's document). The open applies SQLite's defenses for untrusted
    -- databases (defensive mode, the schema not trusted to call functions with side
    -- effects, @cell_size_check@ on, no memory-mapped reads) and reads the whole file once
    -- (@PRAGMA quick_check@): a damaged file fails the open with 'ErrorCorrupt' (the check's
    -- first finding as the message) or 'ErrorNotADatabase'. The connection stays as wary for its
    -- life. The check costs about a second a gigabyte; queries afterwards run as fast.
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | The library's bit of an 'OpenFlag' (0 for 'OpenWriteBehind', which is not one).
openFlagBits :: OpenFlag -> Word32
openFlagBits f = case f of
  OpenReadOnly -> openReadOnly
  OpenReadWrite -> openReadWrite
  OpenCreate -> openCreate
  OpenUri -> openUri
  OpenMemory -> openMemory
  OpenFullMutex -> openFullMutex
  OpenSharedCache -> openSharedCache
  OpenPrivateCache -> openPrivateCache
  OpenNoFollow -> openNoFollow
  OpenFetchAhead -> openFetchAhead
  OpenWriteBehind -> 0
  OpenUntrusted -> openUntrusted

-- | The 'SQLError' describing the last failure on a connection; @rc@ is the code the failing
-- call returned (used if the connection has no details) and @ctx@ says what was being done.
errorFrom :: Database -> Int32 -> Text -> IO SQLError
errorFrom (Database c) rc ctx
  | c == nullPtr = return (plain rc)
  | otherwise = allocaBytes errorSize $ \pe -> do
      r <- c_sqlbatch_conn_last_error c (castPtr pe)
      if r /= sqlbatchOk
        then return (plain rc)
        else do
          e <- peekError (castPtr pe)
          let code = if cerrCode e == sqlbatchOk then rc else cerrCode e
              opt x = if x < 0 then Nothing else Just (fromIntegral x)
          return SQLError
            { sqlError = decodeError code
            , sqlErrorCode = code
            , sqlErrorDetails = TE.decodeUtf8With TE.lenientDecode (cerrMessage e)
            , sqlErrorContext = ctx
            , sqlErrorOffset = opt (cerrTokenOffset e)
            , sqlErrorStatementIndex = opt (cerrStatementIndex e)
            , sqlErrorStatementOffset = opt (cerrStatementOffset e)
            , sqlErrorRowIndex = opt (cerrRowIndex e)
            }
  where
    plain code = SQLError (decodeError code) code (T.pack (show (decodeError code))) ctx
      Nothing Nothing Nothing Nothing

-- | The result of a call that returns just a status.
status :: Database -> Text -> Int32 -> IO (Either SQLError ())
status db ctx rc
  | rc == sqlbatchOk = return (Right ())
  | otherwise = Left <$> errorFrom db rc ctx
{-# INLINE status #-}

-- | Reads an out-parameter after a call returning a status.
getter :: Database -> Text -> (Ptr a -> IO Int32) -> (Ptr a -> IO b) -> IO (Either SQLError b)
getter db ctx call rd = allocaBytes 16 $ \p -> do
  rc <- call (castPtr p)
  if rc == sqlbatchOk then Right <$> rd (castPtr p) else Left <$> errorFrom db rc ctx
{-# INLINE getter #-}

-- | Opens a connection (read-write, created if missing). @\":memory:\"@ is a private
-- in-memory database, @\"\"@ a private temporary file.
open :: Utf8 -> IO (Either SQLError Database)
open path = openWith path []

-- | Opens a connection with 'OpenFlag's.
openWith :: Utf8 -> [OpenFlag] -> IO (Either SQLError Database)
openWith (Utf8 path) flags =
  BU.unsafeUseAsCStringLen path $ \(p, n) -> alloca $ \out -> do
    rc <- c_sqlbatch_conn_open p (fromIntegral n) (foldl' (.|.) 0 (map openFlagBits flags)) out
    c <- peek out
    if rc == sqlbatchOk
      then return (Right (Database c))
      else do
        e <- errorFrom (Database c) rc ("open " <> TE.decodeUtf8With TE.lenientDecode path)
        c_sqlbatch_conn_close c
        return (Left e)

-- | Closes a connection: finalizes the SQLite statements still open on it (their handles
-- must still be 'finalize'd) and frees it. Must be called once, when no other thread uses it.
close :: Database -> IO ()
close (Database c) = c_sqlbatch_conn_close c

-- | Makes the SQL running on the connection stop with 'ErrorInterrupt'. The one function
-- that may be called from any thread while another uses the connection (but not
-- concurrently with 'close').
interrupt :: Database -> IO ()
interrupt (Database c) = c_sqlbatch_conn_interrupt c

-- | Waits up to this many milliseconds for locks held by other connections (0 turns waiting off).
setBusyTimeout :: Database -> Int -> IO (Either SQLError ())
setBusyTimeout db@(Database c) ms =
  c_sqlbatch_conn_busy_timeout c (fromIntegral ms) >>= status db "busy_timeout"

-- | Rows changed by the most recent INSERT, UPDATE or DELETE.
changes :: Database -> IO (Either SQLError Int64)
changes db@(Database c) = getter db "changes" (c_sqlbatch_conn_changes c) peek

-- | Rows changed since the connection was opened.
totalChanges :: Database -> IO (Either SQLError Int64)
totalChanges db@(Database c) = getter db "total_changes" (c_sqlbatch_conn_total_changes c) peek

-- | The rowid of the most recent successful INSERT into a rowid table (0 if none).
lastInsertRowId :: Database -> IO (Either SQLError Int64)
lastInsertRowId db@(Database c) =
  getter db "last_insert_rowid" (c_sqlbatch_conn_last_insert_rowid c) peek

-- | Whether the connection is outside any transaction opened with BEGIN.
autocommit :: Database -> IO (Either SQLError Bool)
autocommit db@(Database c) =
  getter db "autocommit" (c_sqlbatch_conn_autocommit c) (fmap (\(CBool b) -> b /= 0) . peek)

-- | The details of the last failure on the connection ('ErrorOK' if none).
lastError :: Database -> IO SQLError
lastError db = errorFrom db sqlbatchOk "last_error"

-- | Flags of 'prepareWith'.
data PrepareFlag
  = PreparePersistent  -- ^ the statement will be kept and reused many times (SQLite's hint)
  | PrepareSingle
    -- ^ refuse SQL holding more than one statement with 'ErrorMultipleStatements' (whose
    -- offset is where the second statement starts); whitespace, comments and lone
    -- semicolons may follow the statement
  deriving (Eq, Ord, Show, Enum, Bounded)

prepareFlagBits :: PrepareFlag -> Word32
prepareFlagBits f = case f of
  PreparePersistent -> preparePersistent
  PrepareSingle -> prepareSingle

-- | Compiles the first statement of the SQL (what follows it is ignored; see
-- 'PrepareSingle'). An empty statement (only whitespace and comments) is a valid statement
-- that returns no rows.
prepare :: Database -> Utf8 -> IO (Either SQLError Statement)
prepare db sql = fmap fst <$> prepareTail db sql

-- | Like 'prepare', also giving the byte offset just past the compiled statement.
prepareTail :: Database -> Utf8 -> IO (Either SQLError (Statement, Int))
prepareTail db = prepareWith db []

-- | Like 'prepareTail', with 'PrepareFlag's.
prepareWith :: Database -> [PrepareFlag] -> Utf8 -> IO (Either SQLError (Statement, Int))
prepareWith db@(Database c) flags (Utf8 sql) =
  -- One allocation for both out-parameters (the statement, then the tail offset).
  BU.unsafeUseAsCStringLen sql $ \(p, n) -> allocaBytes 16 $ \out -> do
    let tailp = out `plusPtr` 8 :: Ptr CSize
    rc <- c_sqlbatch_stmt_prepare c p (fromIntegral n) (foldl' (.|.) 0 (map prepareFlagBits flags))
            out tailp
    if rc == sqlbatchOk
      then do
        s <- peek out
        t <- peek tailp
        return (Right (Statement s db, fromIntegral t))
      else Left <$> errorFrom db rc "prepare"

-- | Destroys a statement. Call it once per statement, also after the connection was closed.
finalize :: Statement -> IO ()
finalize s = c_sqlbatch_stmt_finalize (statementPtr s)

-- | Rewinds a statement so that it runs again from the start, keeping its bindings.
reset :: Statement -> IO (Either SQLError ())
reset s = c_sqlbatch_stmt_reset (statementPtr s) >>= status (statementDatabase s) "reset"

-- | Sets every parameter to NULL.
clearBindings :: Statement -> IO (Either SQLError ())
clearBindings s =
  c_sqlbatch_stmt_clear_bindings (statementPtr s) >>= status (statementDatabase s) "clear_bindings"

-- | A value to bind, or a copy of a cell.
data Value
  = VInteger !Int64
  | VFloat !Double
  | VText !B.ByteString   -- ^ UTF-8
  | VBlob !B.ByteString
  | VNull
  deriving (Eq, Show)

-- | Lays values out as a @sqlbatch_value@ array whose TEXT and BLOB cells hold the
-- /addresses/ of the ByteStrings' bytes, so no byte is copied; the ByteStrings are kept
-- alive until the continuation returns. Pass this array in a @sqlbatch_params@ with the
-- flag 'paramsAddresses' and a NULL @data@ (as 'withValueParams' does).
withValues :: [Value] -> (Ptr CValue -> Int -> IO a) -> IO a
withValues vs k = allocaBytes (max 1 n * valueSize) $ \p -> do
  keep <- go p 0 vs []
  r <- k (castPtr p) n
  mapM_ touchForeignPtr keep
  return r
  where
    n = length vs
    go :: Ptr Word8 -> Int -> [Value] -> [ForeignPtr Word8] -> IO [ForeignPtr Word8]
    go _ _ [] keep = return keep
    go p !i (v : rest) keep = do
      let cell = p `plusPtr` (i * valueSize)
          put :: Word64 -> Word32 -> Word8 -> IO ()
          put bits len kind = do
            pokeByteOff cell valueBitsOff bits
            pokeByteOff cell valueLenOff len
            pokeByteOff cell valueKindOff kind
            pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
            pokeByteOff cell (valueKindOff + 2) (0 :: Word16)
          bytes kind (BI.PS fp off len) = do
            let addr = unsafeForeignPtrToPtr fp `plusPtr` off :: Ptr Word8
            put (fromIntegral (ptrToWordPtr addr)) (fromIntegral len) kind
            return (fp : keep)
      keep' <- case v of
        VInteger x -> keep <$ put (fromIntegral x) 0 kindInteger
        VFloat d -> keep <$ put (castDoubleToWord64 d) 0 kindFloat
        VNull -> keep <$ put 0 0 kindNull
        VText b -> bytes kindText b
        VBlob b -> bytes kindBlob b
      go p (i + 1) rest keep'

-- | A @sqlbatch_params@ of these values (laid out by 'withValues', with the flag
-- 'paramsAddresses') and, if the second list is not empty, as many names: a 'Just' name
-- binds its value by name (with its prefix, or without one to match @:x@, @\@x@ and
-- @$x@), a 'Nothing' leaves it positional. The count of values is passed to the action too.
withValueParams :: [Value] -> [Maybe Utf8] -> (Ptr CParams -> Int -> IO a) -> IO a
withValueParams vs names k = withValues vs $ \p n ->
  if null names
    then withCParams p nullPtr n nullPtr 0 paramsAddresses (\pp -> k pp n)
    else withValues (map (maybe VNull (VText . fromUtf8)) names) $ \pn _ ->
      withCParams p pn n nullPtr 0 paramsAddresses (\pp -> k pp n)

-- | Binds all parameters at once: value @i@ goes to parameter @i+1@; the count must match.
bind :: Statement -> [Value] -> IO (Either SQLError ())
bind s vs = withValueParams vs [] $ \pp _ ->
  c_sqlbatch_stmt_bind (statementPtr s) pp >>= status (statementDatabase s) "bind"

-- | The names of the parameters, by index (from 1, so the head is parameter 1), with their
-- prefix (@\":a\"@, @\"\@a\"@, @\"$a\"@, @\"?3\"@), 'Nothing' for a nameless @?@.
paramNames :: Statement -> IO (Either SQLError [Maybe Utf8])
paramNames s = alloca $ \pp -> alloca $ \pn -> do
  rc <- c_sqlbatch_stmt_params (statementPtr s) pp pn
  if rc /= sqlbatchOk
    then Left <$> errorFrom (statementDatabase s) rc "params"
    else do
      n <- peek pn
      -- The array is NULL when there are no parameters: read it only through the count.
      p <- if n == 0 then return nullPtr else peek pp
      fmap Right $ forM [0 .. fromIntegral n - 1] $ \i ->
        fmap Utf8 <$> peekStr (p `plusPtr` (i * strSize))

-- | The number of parameters (the largest index, as 'paramNames' counts them), without
-- building their names.
paramCount :: Statement -> IO (Either SQLError Int)
paramCount s = alloca $ \pn -> do
  rc <- c_sqlbatch_stmt_param_count (statementPtr s) pn
  if rc /= sqlbatchOk
    then Left <$> errorFrom (statementDatabase s) rc "params"
    else Right . fromIntegral <$> peek pn

-- | The index (from 1) of the named parameter, 0 if there is none. A name with its prefix
-- (@\":id\"@, @\"?3\"@) matches that spelling only; a name without one (@\"id\"@)
-- matches @:id@, else @\@id@, else @$id@ (the library's rule, as for 'exec').
paramIndex :: Statement -> Utf8 -> IO (Either SQLError Int)
paramIndex s (Utf8 name) = BU.unsafeUseAsCStringLen name $ \(p, n) ->
  getter (statementDatabase s) "param_index"
    (c_sqlbatch_stmt_param_index (statementPtr s) p (fromIntegral n))
    (fmap (fromIntegral :: CSize -> Int) . peek)

-- | Metadata of a result column.
data ColumnInfo = ColumnInfo
  { columnName :: !Utf8
  , columnDeclType :: !(Maybe Utf8)
  , columnDatabase :: !(Maybe Utf8)
  , columnTable :: !(Maybe Utf8)
  , columnOrigin :: !(Maybe Utf8)
  }
  deriving (Eq, Show)

-- | The result columns of a statement, in one call.
columns :: Statement -> IO (Either SQLError [ColumnInfo])
columns s = alloca $ \pp -> alloca $ \pn -> do
  rc <- c_sqlbatch_stmt_columns (statementPtr s) pp pn
  if rc /= sqlbatchOk
    then Left <$> errorFrom (statementDatabase s) rc "columns"
    else do
      n <- peek pn
      -- The array is NULL when there are no columns: read it only through the count.
      p <- if n == 0 then return nullPtr else peek pp
      fmap Right $ forM [0 .. fromIntegral n - 1] $ \i -> do
        let c = castPtr p `plusPtr` (i * columnSize) :: Ptr Word8
            str o = fmap Utf8 <$> peekStr (c `plusPtr` o)
        name <- str columnNameOff
        ColumnInfo (maybe (Utf8 B.empty) id name)
          <$> str columnDeclTypeOff <*> str columnDatabaseOff <*> str columnTableOff
          <*> str columnOriginOff

-- | Whether result column @i@ (from 0) can never be NULL: @Just True@ for a NOT NULL table
-- column, @Just False@ for a nullable one, 'Nothing' for an expression.
columnNotNull :: Statement -> Int -> IO (Either SQLError (Maybe Bool))
columnNotNull s i = getter (statementDatabase s) "column_not_null"
  (c_sqlbatch_stmt_column_not_null (statementPtr s) (fromIntegral i))
  (fmap (\v -> if (v :: Int32) < 0 then Nothing else Just (v == 1)) . peek)

-- | Whether the statement makes no direct change to the database.
readOnly :: Statement -> IO (Either SQLError Bool)
readOnly s = getter (statementDatabase s) "readonly" (c_sqlbatch_stmt_readonly (statementPtr s))
  (fmap (\(CBool b) -> b /= 0) . peek)

-- | Turns fetch-ahead on or off for the statement (@sqlbatch_stmt_set_fetch_ahead@;
-- statements start with their connection's 'OpenFetchAhead'). With it on, every 'fetch' or
-- 'fetchInto' that returns a batch with more rows to follow hands the statement to the
-- connection's worker thread, which steps the next batch while the caller reads this one;
-- rows, order and errors stay those of synchronous fetching. Only read-only statements
-- fetch ahead. While the worker runs, every call on the connection waits for it, the
-- unsafe getters of this module included (see "Database.SQLBatch.Raw", \"Fetch-ahead and
-- write-behind\"), and callbacks the stepping runs (SQL functions, collations, the trace,
-- progress and busy handlers) run on the worker thread, which the non-threaded RTS cannot
-- take.
setFetchAhead :: Statement -> Bool -> IO (Either SQLError ())
setFetchAhead s on =
  c_sqlbatch_stmt_set_fetch_ahead (statementPtr s) (CBool (if on then 1 else 0))
    >>= status (statementDatabase s) "set_fetch_ahead"

-- | The statement's SQL as prepared.
statementSql :: Statement -> IO (Either SQLError Utf8)
statementSql s = getter (statementDatabase s) "sql" (c_sqlbatch_stmt_sql (statementPtr s))
  (fmap (Utf8 . maybe B.empty id) . peekStr)

-- | The statement's SQL with its bound parameters written in.
expandedSql :: Statement -> IO (Either SQLError Utf8)
expandedSql s = getter (statementDatabase s) "expanded_sql"
  (c_sqlbatch_stmt_expanded_sql (statementPtr s)) (fmap (Utf8 . maybe B.empty id) . peekStr)

-- | Whether more rows may follow a batch.
data FetchStatus = FetchMore | FetchDone
  deriving (Eq, Show)

fetchStatus :: Int32 -> FetchStatus
fetchStatus rc = if rc == sqlbatchDone then FetchDone else FetchMore
{-# INLINE fetchStatus #-}

-- | Steps the statement up to @maxRows@ times into a batch held by the statement (valid
-- until the next fetch, bind, reset, bulk write or finalize on it). @maxBytes@ bounds the
-- batch's cells plus bytes (a single row always comes whole). The call is interruptible:
-- an asynchronous exception thrown to the calling thread stops the statement.
fetch :: Statement -> Int -> Int -> IO (Either SQLError (FetchStatus, Batch))
fetch s maxRows maxBytes = allocaBytes batchSize $ \pb -> do
  rc <- c_hs_sqlbatch_fetch (databasePtr (statementDatabase s)) (statementPtr s)
          (fromIntegral maxRows) (fromIntegral maxBytes) (castPtr pb)
  if rc == sqlbatchRow || rc == sqlbatchDone
    then do
      b <- peekBatch (castPtr pb)
      return (Right (fetchStatus rc, b))
    else Left <$> errorFrom (statementDatabase s) rc "fetch"

-- | What 'fetchInto' did.
data FetchIntoResult
  = Fetched !FetchStatus !Batch
  | NeedBytes !Int   -- ^ the buffer cannot hold the next row, which needs this many bytes
  deriving (Show)

-- | Like 'fetch', but the TEXT and BLOB bytes go to the caller's buffer. The C call leaves
-- the batch's @data@ NULL (it never writes a pointer to the caller's memory back); the
-- returned 'batchData' is set to the buffer here. Interruptible like 'fetch'.
fetchInto :: Statement -> Int -> Ptr Word8 -> Int -> IO (Either SQLError FetchIntoResult)
fetchInto s maxRows buf len = allocaBytes batchSize $ \pb -> do
  rc <- c_hs_sqlbatch_fetch_into (databasePtr (statementDatabase s)) (statementPtr s)
          (fromIntegral maxRows) buf (fromIntegral len) (castPtr pb)
  if rc == sqlbatchRow || rc == sqlbatchDone
    then Right . Fetched (fetchStatus rc) . (\b -> b { batchData = buf }) <$> peekBatch (castPtr pb)
    else if rc == sqlbatchEBufferTooSmall
      then Right . NeedBytes . batchDataLen <$> peekBatch (castPtr pb)
      else Left <$> errorFrom (statementDatabase s) rc "fetch_into"

-- | The address of cell (row, column) of a batch. No bounds check.
batchCell :: Batch -> Int -> Int -> Ptr Word8
batchCell b r c = batchCells b `plusPtr` ((r * batchCols b + c) * valueSize)
{-# INLINE batchCell #-}

-- | The kind of a cell: one of 'kindInteger', 'kindFloat', 'kindText', 'kindBlob', 'kindNull'.
cellKind :: Ptr Word8 -> IO Word8
cellKind p = peekByteOff p valueKindOff
{-# INLINE cellKind #-}

-- | The value of an INTEGER cell.
cellInt64 :: Ptr Word8 -> IO Int64
cellInt64 p = peekByteOff p valueBitsOff
{-# INLINE cellInt64 #-}

-- | The value of a FLOAT cell.
cellDouble :: Ptr Word8 -> IO Double
cellDouble p = peekByteOff p valueBitsOff
{-# INLINE cellDouble #-}

-- | The byte length of a TEXT or BLOB cell.
cellLength :: Ptr Word8 -> IO Int
cellLength p = fromIntegral <$> (peekByteOff p valueLenOff :: IO Word32)
{-# INLINE cellLength #-}

-- | A copy of the bytes of a TEXT or BLOB cell of the batch. A cell of length 0 reads no
-- memory (the batch's 'batchData' is NULL when it holds no bytes).
cellBytes :: Batch -> Ptr Word8 -> IO B.ByteString
cellBytes b p = do
  off <- peekByteOff p valueBitsOff :: IO Word64
  len <- cellLength p
  if len == 0
    then return B.empty
    else B.packCStringLen (castPtr (batchData b) `plusPtr` fromIntegral off, len)
{-# INLINE cellBytes #-}

-- | A copy of cell (row, column).
cellValue :: Batch -> Int -> Int -> IO Value
cellValue b r c = do
  let p = batchCell b r c
  k <- cellKind p
  case () of
    _ | k == kindInteger -> VInteger <$> cellInt64 p
      | k == kindFloat -> VFloat <$> cellDouble p
      | k == kindText -> VText <$> cellBytes b p
      | k == kindBlob -> VBlob <$> cellBytes b p
      | otherwise -> return VNull

-- | Copies of all rows of a batch (none for an empty batch, whose 'batchCells' is NULL).
batchValues :: Batch -> IO [[Value]]
batchValues b = forM [0 .. batchRows b - 1] $ \r -> forM [0 .. batchCols b - 1] (cellValue b r)

-- | A value converted to storage class @to@ ('kindInteger', 'kindFloat', 'kindText' or
-- 'kindBlob') by @sqlbatch_value_convert@: exactly what @sqlite3_column_int64@, @_double@,
-- @_text@ or @_blob@ give for that value (TEXT @\"1e3\"@ is the INTEGER 1, the REAL 1e21
-- the TEXT @\"1.0e+21\"@). A NULL value, and a NaN, give 'VNull' as TEXT or BLOB.
convertValue :: Value -> Word8 -> IO (Either SQLError Value)
convertValue v to = allocaBytes (2 * valueSize + convertBufSize + pad + B.length bytes) $ \mem -> do
  let cell = mem :: Ptr Word8
      out = mem `plusPtr` valueSize :: Ptr Word8
      buf = mem `plusPtr` (2 * valueSize) :: Ptr Word8
      dat = buf `plusPtr` convertBufSize :: Ptr Word8
      put bits len kind = do
        pokeByteOff cell valueBitsOff (bits :: Word64)
        pokeByteOff cell valueLenOff (len :: Word32)
        pokeByteOff cell valueKindOff (kind :: Word8)
        pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
        pokeByteOff cell (valueKindOff + 2) (0 :: Word16)
  -- The bytes sit at an offset from the base that is not 0, as in a batch.
  BU.unsafeUseAsCStringLen bytes $ \(p, n) -> copyBytes (dat `plusPtr` pad) (castPtr p) n
  case v of
    VInteger x -> put (fromIntegral x) 0 kindInteger
    VFloat d -> put (castDoubleToWord64 d) 0 kindFloat
    VText b -> put (fromIntegral pad) (fromIntegral (B.length b)) kindText
    VBlob b -> put (fromIntegral pad) (fromIntegral (B.length b)) kindBlob
    VNull -> put 0 0 kindNull
  rc <- c_sqlbatch_value_convert (castPtr cell) dat (fromIntegral (pad + B.length bytes)) to
          (castPtr out) buf (fromIntegral convertBufSize)
  if rc /= sqlbatchOk
    then Left <$> errorFrom (Database nullPtr) rc "value_convert"
    else do
      k <- peekByteOff out valueKindOff :: IO Word8
      bits <- peekByteOff out valueBitsOff :: IO Word64
      len <- fromIntegral <$> (peekByteOff out valueLenOff :: IO Word32)
      -- Bytes of a number's rendering are in buf; bytes of TEXT or BLOB stay in data.
      let base = if isBytes v then dat else buf
          outBytes
            | len == 0 = return B.empty
            | otherwise = B.packCStringLen (castPtr (base `plusPtr` fromIntegral bits), len)
      fmap Right $ case () of
        _ | k == kindInteger -> return (VInteger (fromIntegral bits))
          | k == kindFloat -> return (VFloat (castWord64ToDouble bits))
          | k == kindText -> VText <$> outBytes
          | k == kindBlob -> VBlob <$> outBytes
          | otherwise -> return VNull
  where
    pad = 3
    bytes = case v of
      VText b -> b
      VBlob b -> b
      _ -> B.empty
    isBytes x = case x of
      VText _ -> True
      VBlob _ -> True
      _ -> False

-- | Runs every statement of a script in one call. Positional values are consumed in order
-- across the statements; a @(name, value)@ pair goes to every parameter of that name
-- (@\":id\"@ matches @:id@ only, @\"id\"@ matches @:id@, @\@id@ and @$id@).
-- Interruptible like 'fetch'. On failure the 'ExecResult' says what ran.
exec :: Database -> Utf8 -> [Value] -> [(Utf8, Value)]
     -> IO (Either (SQLError, ExecResult) ExecResult)
exec db@(Database c) (Utf8 sql) positional named =
  BU.unsafeUseAsCStringLen sql $ \(p, n) ->
    withValueParams (positional ++ map snd named)
      (if null named then [] else map (const Nothing) positional ++ map (Just . fst) named) $ \pp _ ->
        allocaBytes execResultSize $ \pr -> do
          rc <- c_hs_sqlbatch_exec c p (fromIntegral n) pp (castPtr pr)
          r <- peekExecResult (castPtr pr)
          if rc == sqlbatchOk
            then return (Right r)
            else do
              e <- errorFrom db rc "exec"
              return (Left (e, r))

-- | Runs the statement once per parameter row, in one call: @executeMany s nRows vs@ where
-- @vs@ holds the rows one after another: exactly @nRows@ times the statement's parameter
-- count of values, else 'ErrorParamCount'. Interruptible like 'fetch'. Does not open a
-- transaction. On failure the 'WriteResult' says how many rows ran (and so which one failed).
executeMany :: Statement -> Int -> [Value] -> IO (Either (SQLError, WriteResult) WriteResult)
executeMany s nRows vs = withValueParams vs [] $ \pp _ -> allocaBytes writeResultSize $ \pr -> do
  rc <- c_hs_sqlbatch_execute_many (databasePtr (statementDatabase s)) (statementPtr s) pp
          (fromIntegral nRows) (castPtr pr)
  r <- peekWriteResult (castPtr pr)
  if rc == sqlbatchOk
    then return (Right r)
    else do
      e <- errorFrom (statementDatabase s) rc "execute_many"
      return (Left (e, r))

-- | The English description of a status code.
codeString :: Int32 -> IO String
codeString c = c_sqlbatch_code_str c >>= peekCString

-- | The symbolic name of a status code (@\"SQLITE_CONSTRAINT_UNIQUE\"@,
-- @\"SQLBATCH_E_RANGE\"@), from the library; 'Nothing' for a code it does not know.
codeName :: Int32 -> IO (Maybe String)
codeName c = do
  p <- c_sqlbatch_code_name c
  if p == nullPtr then return Nothing else Just <$> peekCString p

-- | The version of the sqlbatch library linked in, e.g. @\"0.2.0\"@.
libraryVersion :: IO String
libraryVersion = c_sqlbatch_version >>= peekCString

-- | The version of SQLite built into sqlbatch, e.g. @\"3.54.1\"@.
sqliteVersion :: IO String
sqliteVersion = c_sqlbatch_sqlite_version >>= peekCString
