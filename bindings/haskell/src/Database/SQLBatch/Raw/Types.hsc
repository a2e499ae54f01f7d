{-# LANGUAGE EmptyDataDecls #-}
-- |
-- Module      : Database.SQLBatch.Raw.Types
-- Description : Constants, struct sizes and field offsets of @include/sqlbatch.h@
--
-- Everything here is read from the C header by @hsc2hs@ at build time, so a change of
-- the ABI's layout shows up as a compile-time change here rather than as silent memory
-- corruption. The struct readers ('peekBatch', 'peekError', ...) copy a C struct into a
-- Haskell record; the hot path (reading cells of a batch) uses the offsets directly with
-- 'Foreign.Storable.peekByteOff'.
module Database.SQLBatch.Raw.Types
  ( -- * Opaque handles
    CConn
  , CStmt
  , CBlob
  , CBackup
  , CSession
  , CCall
    -- * Status codes
  , sqlbatchOk, sqlbatchRow, sqlbatchDone
  , -- | The library's own error codes, @SQLBATCH_E_*@ (1000 and up; see the header).
sqlbatchENullParameter, sqlbatchEPanic, sqlbatchEInvalidUtf8, sqlbatchERange
  , sqlbatchEParamCount, sqlbatchEStaleBatch, sqlbatchEClosed, sqlbatchEInvalidArgument
  , sqlbatchEBufferTooSmall, sqlbatchEMultipleStatements, sqlbatchESkipped, sqlbatchEUnsupported
    -- * Value kinds
  , kindInteger, kindFloat, kindText, kindBlob, kindNull
    -- * Open and prepare flags
  , -- | Open flags (@SQLBATCH_OPEN_*@, SQLite's values) and the prepare flag.
openReadOnly, openReadWrite, openCreate, openUri, openMemory, openFullMutex
  , openSharedCache, openPrivateCache, openNoFollow, openFetchAhead, openUntrusted
  , preparePersistent, prepareSingle
    -- * @sqlbatch_params@
  , CParams, paramsSize, paramsAddresses, paramsSingle, pokeParams, withCParams
    -- * @sqlbatch_value@ (16 bytes)
  , valueSize, valueBitsOff, valueLenOff, valueKindOff
    -- * @sqlbatch_value_convert@
  , convertBufSize
    -- * @sqlbatch_batch@
  , batchSize, Batch (..), peekBatch
    -- * @sqlbatch_error@
  , errorSize, CError (..), peekError
    -- * @sqlbatch_exec_result@
  , execResultSize, ExecResult (..), peekExecResult
    -- * @sqlbatch_write_result@
  , writeResultSize, WriteResult (..), peekWriteResult
    -- * @sqlbatch_str@ and @sqlbatch_column@
  , strSize, peekStr, columnSize, columnNameOff, columnDeclTypeOff, columnDatabaseOff
  , columnTableOff, columnOriginOff
    -- * @sqlbatch_trace_event@
  , CTraceEvent, TraceView (..), peekTraceEvent, traceStmt, traceExpanded
    -- * @sqlbatch_cipher@
  , Cipher (..), defaultCipher, CCipher, withCCipher
    -- * Byte arguments
  , withBytesOrNull
  ) where

import Data.Int (Int32, Int64)
import Data.Word (Word32, Word64, Word8)
import Foreign.C.String (CString)
import Foreign.C.Types (CSize (..))
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Ptr (Ptr, castPtr, nullPtr)
import Foreign.Storable (peekByteOff, pokeByteOff)
import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU

#include "sqlbatch.h"

-- | @sqlbatch_conn@: a connection handle (opaque).
data CConn

-- | @sqlbatch_stmt@: a prepared statement handle (opaque).
data CStmt

-- | @sqlbatch_blob@: an incremental blob I/O handle (opaque).
data CBlob

-- | @sqlbatch_backup@: an online backup (opaque).
data CBackup

-- | @sqlbatch_session@: a session recording changes (opaque).
data CSession

-- | @sqlbatch_call@: where the result of one SQL function callback goes (opaque).
data CCall

-- | @SQLBATCH_OK@, @SQLBATCH_ROW@, @SQLBATCH_DONE@: success, and the two fetch statuses.
sqlbatchOk, sqlbatchRow, sqlbatchDone :: Int32
sqlbatchOk = #{const SQLBATCH_OK}
sqlbatchRow = #{const SQLBATCH_ROW}
sqlbatchDone = #{const SQLBATCH_DONE}

-- | The library's own error codes, @SQLBATCH_E_*@ (1000 and up; see the header).
sqlbatchENullParameter, sqlbatchEPanic, sqlbatchEInvalidUtf8, sqlbatchERange,
  sqlbatchEParamCount, sqlbatchEStaleBatch, sqlbatchEClosed, sqlbatchEInvalidArgument,
  sqlbatchEBufferTooSmall, sqlbatchEMultipleStatements, sqlbatchESkipped,
  sqlbatchEUnsupported :: Int32
sqlbatchENullParameter = #{const SQLBATCH_E_NULL_PARAMETER}
sqlbatchEPanic = #{const SQLBATCH_E_PANIC}
sqlbatchEInvalidUtf8 = #{const SQLBATCH_E_INVALID_UTF8}
sqlbatchERange = #{const SQLBATCH_E_RANGE}
sqlbatchEParamCount = #{const SQLBATCH_E_PARAM_COUNT}
sqlbatchEStaleBatch = #{const SQLBATCH_E_STALE_BATCH}
sqlbatchEClosed = #{const SQLBATCH_E_CLOSED}
sqlbatchEInvalidArgument = #{const SQLBATCH_E_INVALID_ARGUMENT}
sqlbatchEBufferTooSmall = #{const SQLBATCH_E_BUFFER_TOO_SMALL}
sqlbatchEMultipleStatements = #{const SQLBATCH_E_MULTIPLE_STATEMENTS}
sqlbatchESkipped = #{const SQLBATCH_E_SKIPPED}
sqlbatchEUnsupported = #{const SQLBATCH_E_UNSUPPORTED}

-- | The @kind@ tags of a @sqlbatch_value@ (@SQLBATCH_INTEGER@ ... @SQLBATCH_NULL@).
kindInteger, kindFloat, kindText, kindBlob, kindNull :: Word8
kindInteger = #{const SQLBATCH_INTEGER}
kindFloat = #{const SQLBATCH_FLOAT}
kindText = #{const SQLBATCH_TEXT}
kindBlob = #{const SQLBATCH_BLOB}
kindNull = #{const SQLBATCH_NULL}

-- | Open flags (@SQLBATCH_OPEN_*@, SQLite's values) and the prepare flags
-- (@SQLBATCH_PREPARE_PERSISTENT@, and @SQLBATCH_PREPARE_SINGLE@, which refuses SQL holding
-- more than one statement with @SQLBATCH_E_MULTIPLE_STATEMENTS@).
openReadOnly, openReadWrite, openCreate, openUri, openMemory, openFullMutex,
  openSharedCache, openPrivateCache, openNoFollow, openFetchAhead, openUntrusted,
  preparePersistent, prepareSingle :: Word32
openReadOnly = #{const SQLBATCH_OPEN_READONLY}
openReadWrite = #{const SQLBATCH_OPEN_READWRITE}
openCreate = #{const SQLBATCH_OPEN_CREATE}
openUri = #{const SQLBATCH_OPEN_URI}
openMemory = #{const SQLBATCH_OPEN_MEMORY}
openFullMutex = #{const SQLBATCH_OPEN_FULLMUTEX}
openSharedCache = #{const SQLBATCH_OPEN_SHAREDCACHE}
openPrivateCache = #{const SQLBATCH_OPEN_PRIVATECACHE}
openNoFollow = #{const SQLBATCH_OPEN_NOFOLLOW}
-- sqlbatch's own: every statement of the connection fetches ahead.
openFetchAhead = #{const SQLBATCH_OPEN_FETCH_AHEAD}
-- sqlbatch's own: a file from anyone, opened with SQLite's defenses and checked first.
openUntrusted = #{const SQLBATCH_OPEN_UNTRUSTED}
preparePersistent = #{const SQLBATCH_PREPARE_PERSISTENT}
prepareSingle = #{const SQLBATCH_PREPARE_SINGLE}

-- | @sqlbatch_params@: the parameter set taken by @sqlbatch_conn_exec@,
-- @sqlbatch_stmt_bind@ and @sqlbatch_stmt_execute_many@ (opaque here; written with
-- 'pokeParams').
data CParams

-- | Size of @sqlbatch_params@.
paramsSize :: Int
paramsSize = #{size sqlbatch_params}

-- | @SQLBATCH_PARAMS_ADDRESSES@: the @bits@ of TEXT and BLOB values are the addresses of
-- their bytes (then @data@ must be NULL and @data_len@ 0).
paramsAddresses :: Word32
paramsAddresses = #{const SQLBATCH_PARAMS_ADDRESSES}

-- | @SQLBATCH_PARAMS_SINGLE@: @sqlbatch_conn_exec@ runs one statement taking exactly the
-- values given, or refuses before running anything.
paramsSingle :: Word32
paramsSingle = #{const SQLBATCH_PARAMS_SINGLE}

-- | Writes a @sqlbatch_params@: @pokeParams p values names n data dataLen flags@. @names@ is
-- 'nullPtr' when every value is positional; @values@ may be 'nullPtr' when @n@ is 0.
pokeParams :: Ptr CParams -> Ptr v -> Ptr v -> Int -> Ptr Word8 -> Int -> Word32 -> IO ()
pokeParams p values names n dat dlen flags = do
  #{poke sqlbatch_params, values} p values
  #{poke sqlbatch_params, names} p names
  #{poke sqlbatch_params, n_values} p (fromIntegral n :: CSize)
  #{poke sqlbatch_params, data} p dat
  #{poke sqlbatch_params, data_len} p (fromIntegral dlen :: CSize)
  #{poke sqlbatch_params, flags} p flags
{-# INLINE pokeParams #-}

-- | A @sqlbatch_params@ on the stack for the duration of the action (see 'pokeParams' for
-- the arguments).
withCParams :: Ptr v -> Ptr v -> Int -> Ptr Word8 -> Int -> Word32 -> (Ptr CParams -> IO a) -> IO a
withCParams values names n dat dlen flags k = allocaBytes paramsSize $ \p -> do
  pokeParams p values names n dat dlen flags
  k p
{-# INLINE withCParams #-}

-- | Size of @sqlbatch_value@ and the offsets of its fields.
valueSize, valueBitsOff, valueLenOff, valueKindOff :: Int
valueSize = #{size sqlbatch_value}
valueBitsOff = #{offset sqlbatch_value, bits}
valueLenOff = #{offset sqlbatch_value, len}
valueKindOff = #{offset sqlbatch_value, kind}

-- | The bytes @sqlbatch_value_convert@ needs in its @buf@ to render a number as TEXT or
-- BLOB (the header's \"@buf@ must hold 32 bytes\").
convertBufSize :: Int
convertBufSize = 32

-- | Size of @sqlbatch_batch@.
batchSize :: Int
batchSize = #{size sqlbatch_batch}

-- | A copy of a @sqlbatch_batch@. The pointers borrow memory of the statement (cells) and
-- of the caller or statement (data); see the header for their lifetime. Empty arrays are
-- NULL: 'batchCells' is 'nullPtr' when the batch has no cells (@rows * cols == 0@),
-- 'batchData' when it has no bytes, so read them only through a non-zero count.
data Batch = Batch
  { batchCells :: {-# UNPACK #-} !(Ptr Word8)
  , batchData :: {-# UNPACK #-} !(Ptr Word8)
  , batchDataLen :: {-# UNPACK #-} !Int
  , batchRows :: {-# UNPACK #-} !Int
  , batchCols :: {-# UNPACK #-} !Int
  , batchGeneration :: {-# UNPACK #-} !Word64
  }
  deriving (Show)

-- | Reads a @sqlbatch_batch@.
peekBatch :: Ptr Batch -> IO Batch
peekBatch p = do
  cells <- #{peek sqlbatch_batch, cells} p
  dat <- #{peek sqlbatch_batch, data} p
  dlen <- #{peek sqlbatch_batch, data_len} p :: IO CSize
  rows <- #{peek sqlbatch_batch, n_rows} p :: IO CSize
  cols <- #{peek sqlbatch_batch, n_cols} p :: IO CSize
  gen <- #{peek sqlbatch_batch, generation} p
  return $! Batch cells dat (fromIntegral dlen) (fromIntegral rows) (fromIntegral cols) gen
{-# INLINE peekBatch #-}

-- | Size of @sqlbatch_error@.
errorSize :: Int
errorSize = #{size sqlbatch_error}

-- | A copy of a @sqlbatch_error@, with the message copied out of the connection.
data CError = CError
  { cerrCode :: !Int32
  , cerrPrimary :: !Int32
  , cerrMessage :: !B.ByteString
  , cerrTokenOffset :: !Int64
  , cerrStatementIndex :: !Int64
  , cerrStatementOffset :: !Int64
  , cerrRowIndex :: !Int64
  }
  deriving (Show)

-- | Reads a @sqlbatch_error@, copying its message (which the connection owns).
peekError :: Ptr CError -> IO CError
peekError p = do
  code <- #{peek sqlbatch_error, code} p
  prim <- #{peek sqlbatch_error, primary_code} p
  msgp <- #{peek sqlbatch_error, message} p
  msgl <- #{peek sqlbatch_error, message_len} p :: IO CSize
  msg <- if msgp == nullPtr then return B.empty
         else do
           b <- BU.unsafePackCStringLen (msgp, fromIntegral msgl)
           return $! B.copy b
  tok <- #{peek sqlbatch_error, token_offset} p
  si <- #{peek sqlbatch_error, statement_index} p
  so <- #{peek sqlbatch_error, statement_offset} p
  ri <- #{peek sqlbatch_error, row_index} p
  return $! CError code prim msg tok si so ri

-- | Size of @sqlbatch_exec_result@.
execResultSize :: Int
execResultSize = #{size sqlbatch_exec_result}

-- | A copy of a @sqlbatch_exec_result@: what a script run did.
data ExecResult = ExecResult
  { execStatements :: !Word64
  , execParamsUsed :: !Word64
  , execChanges :: !Int64
  , execLastInsertRowId :: !Int64
  , execEndOffset :: !Int
  }
  deriving (Eq, Show)

-- | Reads a @sqlbatch_exec_result@.
peekExecResult :: Ptr ExecResult -> IO ExecResult
peekExecResult p = do
  s <- #{peek sqlbatch_exec_result, statements} p
  u <- #{peek sqlbatch_exec_result, params_used} p
  c <- #{peek sqlbatch_exec_result, changes} p
  r <- #{peek sqlbatch_exec_result, last_insert_rowid} p
  e <- #{peek sqlbatch_exec_result, end_offset} p :: IO CSize
  return $! ExecResult s u c r (fromIntegral e)

-- | Size of @sqlbatch_write_result@.
writeResultSize :: Int
writeResultSize = #{size sqlbatch_write_result}

-- | A copy of a @sqlbatch_write_result@: what a bulk write did.
data WriteResult = WriteResult
  { writeRows :: !Word64
  , writeChanges :: !Int64
  , writeLastInsertRowId :: !Int64
  }
  deriving (Eq, Show)

-- | Reads a @sqlbatch_write_result@.
peekWriteResult :: Ptr WriteResult -> IO WriteResult
peekWriteResult p = do
  r <- #{peek sqlbatch_write_result, rows} p
  c <- #{peek sqlbatch_write_result, changes} p
  i <- #{peek sqlbatch_write_result, last_insert_rowid} p
  return $! WriteResult r c i

-- | Size of @sqlbatch_str@.
strSize :: Int
strSize = #{size sqlbatch_str}

-- | Reads a @sqlbatch_str@ at the given address, copying its bytes; 'Nothing' for a NULL @ptr@.
peekStr :: Ptr a -> IO (Maybe B.ByteString)
peekStr p = do
  sp <- #{peek sqlbatch_str, ptr} p
  sl <- #{peek sqlbatch_str, len} p :: IO CSize
  if sp == nullPtr
    then return Nothing
    else do
      b <- BU.unsafePackCStringLen (sp, fromIntegral sl)
      return $! Just $! B.copy b

-- | Size of @sqlbatch_column@ and the offsets of its strings.
columnSize, columnNameOff, columnDeclTypeOff, columnDatabaseOff, columnTableOff,
  columnOriginOff :: Int
columnSize = #{size sqlbatch_column}
columnNameOff = #{offset sqlbatch_column, name}
columnDeclTypeOff = #{offset sqlbatch_column, decl_type}
columnDatabaseOff = #{offset sqlbatch_column, database}
columnTableOff = #{offset sqlbatch_column, table}
columnOriginOff = #{offset sqlbatch_column, origin}

-- | A @sqlbatch_trace_event@, which a trace callback gets a pointer to.
data CTraceEvent

-- | The parts of a @sqlbatch_trace_event@ the bindings use; the texts are views of C memory,
-- valid during the callback only ('nullPtr' where absent).
data TraceView = TraceView
  { traceEvent :: !Word32
    -- ^ one @SQLBATCH_TRACE_*@ event bit
  , traceText :: !CString
  , traceTextLen :: !Int
    -- ^ the statement's text: for @STMT@ with @SQLBATCH_TRACE_EXPANDED@ the expanded one
    -- where SQLite gives it, otherwise as prepared (a trigger's \"-- \" texts included)
  , traceNanoseconds :: !Int64
  , traceAutocommit :: !Bool
  }

-- | Reads a trace event.
peekTraceEvent :: Ptr CTraceEvent -> IO TraceView
peekTraceEvent p = do
  ev <- #{peek sqlbatch_trace_event, event} p
  ac <- #{peek sqlbatch_trace_event, autocommit} p :: IO Int32
  ep <- #{peek sqlbatch_trace_event, expanded_sql.ptr} p
  (sp, sl) <- if ep /= nullPtr
    then (,) ep <$> (#{peek sqlbatch_trace_event, expanded_sql.len} p :: IO CSize)
    else (,) <$> #{peek sqlbatch_trace_event, sql.ptr} p
             <*> (#{peek sqlbatch_trace_event, sql.len} p :: IO CSize)
  ns <- #{peek sqlbatch_trace_event, nanoseconds} p
  return $! TraceView ev sp (fromIntegral sl) ns (ac /= 0)

-- | @SQLBATCH_TRACE_STMT@ and @SQLBATCH_TRACE_EXPANDED@: the trace mask of a statement
-- logger with its parameters' values in place.
traceStmt, traceExpanded :: Word32
traceStmt = #{const SQLBATCH_TRACE_STMT}
traceExpanded = #{const SQLBATCH_TRACE_EXPANDED}

-- | The cipher settings of an encrypted database (the encrypted build of the library, see
-- \"Encryption\" in the package's README): SQLCipher's pragmas, each applied when not 0.
-- 'defaultCipher' (every field 0) is SQLCipher 4's defaults: AES-256-CBC, HMAC-SHA512,
-- PBKDF2-HMAC-SHA512 with 256,000 iterations, 4096-byte pages. A file opens only with the
-- settings it was written with. A value out of its field's range (one that does not fit in
-- 32 bits included) is refused with @SQLBATCH_E_INVALID_ARGUMENT@ before anything is
-- opened or written.
data Cipher = Cipher
  { cipherCompatibility :: !Int
    -- ^ @PRAGMA cipher_compatibility@: 1 to 4, the defaults of that SQLCipher major version
    -- (3 for the files of SQLCipher 3.x, such as Debian 12's @sqlcipher@ writes); 0: 4.
  , cipherPageSize :: !Int
    -- ^ @PRAGMA cipher_page_size@: a power of two from 512 to 65536; 0: the default.
  , cipherKdfIter :: !Int
    -- ^ @PRAGMA kdf_iter@: the PBKDF2 iterations of a passphrase; 0: the default.
  , cipherPlaintextHeaderSize :: !Int
    -- ^ @PRAGMA cipher_plaintext_header_size@: bytes at the start of the file left
    -- unencrypted (a multiple of 16, at least 32), for iOS's shared WAL containers; 0: none.
  }
  deriving (Eq, Show)

-- | The library's defaults (SQLCipher 4's): every setting 0.
defaultCipher :: Cipher
defaultCipher = Cipher 0 0 0 0

-- | @sqlbatch_cipher@ (written with 'withCCipher').
data CCipher

-- | A @sqlbatch_cipher@ on the stack holding the settings, for the duration of the action.
-- A setting that does not fit in the C struct's @int32_t@ is written as -1, which the
-- library refuses for every field, rather than wrapped round to a value it might take.
withCCipher :: Cipher -> (Ptr CCipher -> IO a) -> IO a
withCCipher c k = allocaBytes #{size sqlbatch_cipher} $ \p -> do
  #{poke sqlbatch_cipher, compatibility} p (i32 (cipherCompatibility c))
  #{poke sqlbatch_cipher, page_size} p (i32 (cipherPageSize c))
  #{poke sqlbatch_cipher, kdf_iter} p (i32 (cipherKdfIter c))
  #{poke sqlbatch_cipher, plaintext_header_size} p (i32 (cipherPlaintextHeaderSize c))
  k p
  where
    i32 :: Int -> Int32
    i32 x
      | x < fromIntegral (minBound :: Int32) || x > fromIntegral (maxBound :: Int32) = -1
      | otherwise = fromIntegral x

-- | Bytes passed as (pointer, length) for the duration of the action, in place (a
-- 'B.ByteString' is pinned: no copy is made); an empty one as NULL and 0, which the
-- library reads as "none" (a key) or @\"main\"@ (a database name).
withBytesOrNull :: B.ByteString -> (Ptr a -> CSize -> IO b) -> IO b
withBytesOrNull b k
  | B.null b = k nullPtr 0
  | otherwise = BU.unsafeUseAsCStringLen b $ \(p, n) -> k (castPtr p) (fromIntegral n)
