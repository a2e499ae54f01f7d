{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
-- | The per-row baselines: SQLite called the way direct-sqlite calls it today, one FFI call
-- per step and per column accessor, over the very SQLite build inside libsqlbatch.a (linked
-- statically, so these sqlite3_* symbols are the ones sqlbatch uses), opened with the same
-- flags as sqlbatch and the native C loop (SQLITE_OPEN_NOMUTEX, extended result codes).
--
-- * "safe" follows direct-sqlite's imports exactly: @sqlite3_step@, @sqlite3_prepare_v2@,
--   @sqlite3_finalize@ and @sqlite3_exec@ are safe calls, the column accessors, binds and
--   @sqlite3_reset@ unsafe. Text is read as direct-sqlite's @columnText@ does: pointer and
--   length, copied into a ByteString (and decoded to 'T.Text' for the Text variant).
-- * "unsafe" makes every call unsafe (direct-sqlite's @stepNoCB@), the fastest per-row code
--   Haskell can have, at the price of blocking the runtime during each step.
module PerRow
  ( Mode (..)
  , Db
  , openDb
  , closeDb
  , fetchNarrow
  , fetchWide
  , fetchWork
  , WideText (..)
  , execScript
  , bulkInsert
  , scalar2
    -- * Issue 15's workloads
  , Stmt
  , prepareStmt
  , itemQueries
  , prepareChurn
  , smallTx
  , largeValues
  ) where

import Control.Monad (when)
import Data.Bits ((.&.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int64)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Foreign.C.String (CString, withCString)
import Foreign.C.Types (CInt (..))
import Foreign.Marshal.Alloc (alloca)
import Foreign.Ptr (FunPtr, Ptr, castPtrToFunPtr, intPtrToPtr, nullFunPtr, nullPtr)
import Foreign.Storable (peek)

import Work

data CDb
data CStmt

-- | A connection opened with sqlite3_open_v2.
newtype Db = Db (Ptr CDb)

-- | Which calls are safe.
data Mode = Safe | Unsafe
  deriving (Eq, Show)

foreign import ccall safe "sqlite3_open_v2"
  c_open :: CString -> Ptr (Ptr CDb) -> CInt -> CString -> IO CInt
foreign import ccall safe "sqlite3_close"
  c_close :: Ptr CDb -> IO CInt
foreign import ccall unsafe "sqlite3_errmsg"
  c_errmsg :: Ptr CDb -> IO CString

foreign import ccall safe "sqlite3_prepare_v2"
  c_prepare_safe :: Ptr CDb -> CString -> CInt -> Ptr (Ptr CStmt) -> Ptr CString -> IO CInt
foreign import ccall unsafe "sqlite3_prepare_v2"
  c_prepare_unsafe :: Ptr CDb -> CString -> CInt -> Ptr (Ptr CStmt) -> Ptr CString -> IO CInt
foreign import ccall safe "sqlite3_step"
  c_step_safe :: Ptr CStmt -> IO CInt
foreign import ccall unsafe "sqlite3_step"
  c_step_unsafe :: Ptr CStmt -> IO CInt
foreign import ccall safe "sqlite3_finalize"
  c_finalize_safe :: Ptr CStmt -> IO CInt
foreign import ccall unsafe "sqlite3_finalize"
  c_finalize_unsafe :: Ptr CStmt -> IO CInt
foreign import ccall unsafe "sqlite3_reset"
  c_reset :: Ptr CStmt -> IO CInt
foreign import ccall safe "sqlite3_exec"
  c_exec_safe :: Ptr CDb -> CString -> FunPtr () -> Ptr () -> Ptr CString -> IO CInt
foreign import ccall unsafe "sqlite3_exec"
  c_exec_unsafe :: Ptr CDb -> CString -> FunPtr () -> Ptr () -> Ptr CString -> IO CInt

foreign import ccall unsafe "sqlite3_column_type"
  c_column_type :: Ptr CStmt -> CInt -> IO CInt
foreign import ccall unsafe "sqlite3_column_int64"
  c_column_int64 :: Ptr CStmt -> CInt -> IO Int64
foreign import ccall unsafe "sqlite3_column_double"
  c_column_double :: Ptr CStmt -> CInt -> IO Double
foreign import ccall unsafe "sqlite3_column_text"
  c_column_text :: Ptr CStmt -> CInt -> IO CString
foreign import ccall unsafe "sqlite3_column_blob"
  c_column_blob :: Ptr CStmt -> CInt -> IO CString
foreign import ccall unsafe "sqlite3_column_bytes"
  c_column_bytes :: Ptr CStmt -> CInt -> IO CInt

foreign import ccall unsafe "sqlite3_bind_int64"
  c_bind_int64 :: Ptr CStmt -> CInt -> Int64 -> IO CInt
foreign import ccall unsafe "sqlite3_bind_double"
  c_bind_double :: Ptr CStmt -> CInt -> Double -> IO CInt
foreign import ccall unsafe "sqlite3_bind_text"
  c_bind_text :: Ptr CStmt -> CInt -> CString -> CInt -> FunPtr () -> IO CInt

sqliteRow, sqliteDone :: CInt
sqliteRow = 100
sqliteDone = 101

-- | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE.
openFlags :: CInt
openFlags = 0x2 + 0x4 + 0x8000 + 0x02000000

openDb :: String -> IO Db
openDb path = withCString path $ \p -> alloca $ \out -> do
  rc <- c_open p out openFlags nullPtr
  db <- peek out
  when (rc /= 0) $ failWith (Db db) ("open " ++ path)
  return (Db db)

closeDb :: Db -> IO ()
closeDb (Db db) = () <$ c_close db

failWith :: Db -> String -> IO a
failWith (Db db) what = do
  m <- c_errmsg db >>= \p -> if p == nullPtr then return B.empty else B.packCString p
  ioError (userError (what ++ ": " ++ show m))

prepare :: Mode -> Db -> B.ByteString -> IO (Ptr CStmt)
prepare mode d@(Db db) sql = BU.unsafeUseAsCStringLen sql $ \(p, n) -> alloca $ \out -> do
  rc <- (if mode == Safe then c_prepare_safe else c_prepare_unsafe) db p (fromIntegral n) out nullPtr
  when (rc /= 0) $ failWith d "prepare"
  peek out

step :: Mode -> Ptr CStmt -> IO CInt
step Safe = c_step_safe
step Unsafe = c_step_unsafe
{-# INLINE step #-}

finalize :: Mode -> Ptr CStmt -> IO ()
finalize Safe s = () <$ c_finalize_safe s
finalize Unsafe s = () <$ c_finalize_unsafe s

-- | @SELECT id FROM testdata@: (count, sum of id).
fetchNarrow :: Mode -> Db -> IO (Int64, Int64)
fetchNarrow mode db = do
  s <- prepare mode db "SELECT id FROM testdata"
  let go !n !acc = do
        rc <- step mode s
        if rc == sqliteRow
          then do
            v <- c_column_int64 s 0
            go (n + 1) (acc + v)
          else do
            when (rc /= sqliteDone) $ failWith db "step"
            return (n, acc)
  r <- go 0 0
  finalize mode s
  return r

-- | How TEXT is read in the wide fetch.
data WideText = AsText | AsByteString
  deriving (Eq, Show)

-- | The fetch_wide workload with the checksum of benches/README.md: (count, checksum).
fetchWide :: Mode -> WideText -> Db -> IO (Int64, Int64)
fetchWide mode how db = do
  s <- prepare mode db "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"
  let cell :: CInt -> IO Int64
      cell c = do
        ty <- c_column_type s c
        case ty of
          1 -> c_column_int64 s c
          2 -> do
            d <- c_column_double s c
            return $! fromIntegral (truncate (d * 1000) :: Int)
          3 -> do
            p <- c_column_text s c
            n <- c_column_bytes s c
            bs <- B.packCStringLen (p, fromIntegral n)
            case how of
              AsText -> return $! fromIntegral (T.length (TE.decodeUtf8 bs))
              AsByteString -> return $! codePoints bs
          4 -> do
            p <- c_column_blob s c
            n <- c_column_bytes s c
            bs <- if n == 0 then return B.empty else B.packCStringLen (p, fromIntegral n)
            return $! fromIntegral (B.length bs)
          _ -> return 1
      row !c !acc
        | c == 10 = return acc
        | otherwise = do
            v <- cell c
            row (c + 1) (acc + v)
      go !n !acc = do
        rc <- step mode s
        if rc == sqliteRow
          then row 0 acc >>= go (n + 1)
          else do
            when (rc /= sqliteDone) $ failWith db "step"
            return (n, acc)
  r <- go 0 0
  finalize mode s
  return r

-- | fetch_work (benches/README.md): fetch_wide's query, every cell folded into the FNV-1a
-- hash ("Work"), TEXT and BLOB copied into a 'B.ByteString' as direct-sqlite's
-- @columnText@ / @columnBlob@ copy them (TEXT not decoded): (count, checksum).
fetchWork :: Mode -> Db -> IO (Int64, Int64)
fetchWork mode db = do
  s <- prepare mode db "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"
  let bytesOf :: CInt -> IO B.ByteString
      bytesOf c = do
        p <- c_column_blob s c
        n <- c_column_bytes s c
        if n == 0 then return B.empty else B.packCStringLen (p, fromIntegral n)
      cell :: Fnv -> CInt -> IO Fnv
      cell !h c = do
        ty <- c_column_type s c
        case ty of
          1 -> fnvInt64 h <$> c_column_int64 s c
          2 -> fnvDouble h <$> c_column_double s c
          3 -> do
            p <- c_column_text s c
            n <- c_column_bytes s c
            fnvText h <$> B.packCStringLen (p, fromIntegral n)
          4 -> fnvBlob h <$> bytesOf c
          _ -> return $! fnvNull h
      row !c !h
        | c == 10 = return h
        | otherwise = cell h c >>= row (c + 1)
      go !n !h = do
        rc <- step mode s
        if rc == sqliteRow
          then row 0 h >>= go (n + 1)
          else do
            when (rc /= sqliteDone) $ failWith db "step"
            return (n, fnvChecksum h)
  r <- go 0 fnvOffset
  finalize mode s
  return r

-- | Code points of UTF-8 bytes: the bytes that are not continuation bytes.
codePoints :: B.ByteString -> Int64
codePoints = B.foldl' (\n w -> n + fromIntegral (fromEnum (w .&. 0xC0 /= 0x80))) 0
{-# INLINE codePoints #-}

-- | Runs a script with sqlite3_exec (direct-sqlite's @exec@).
execScript :: Mode -> Db -> B.ByteString -> IO ()
execScript mode d@(Db db) sql = B.useAsCString sql $ \p -> do
  rc <- (if mode == Safe then c_exec_safe else c_exec_unsafe) db p nullFunPtr nullPtr nullPtr
  when (rc /= 0) $ failWith d "exec"

-- | The bulk_insert workload's timed part: BEGIN, one prepared INSERT bound and stepped per
-- row (as direct-sqlite's bind* and step do), COMMIT.
bulkInsert :: Mode -> Db -> [(Int64, Double, T.Text)] -> IO ()
bulkInsert mode db rows = do
  execScript mode db "BEGIN"
  s <- prepare mode db "INSERT INTO bulk VALUES (?, ?, ?)"
  let transient = castPtrToFunPtr (intPtrToPtr (-1)) :: FunPtr ()
      go [] = return ()
      go ((a, b, c) : rest) = do
        _ <- c_bind_int64 s 1 a
        _ <- c_bind_double s 2 b
        _ <- BU.unsafeUseAsCStringLen (TE.encodeUtf8 c) $ \(p, n) ->
          c_bind_text s 3 p (fromIntegral n) transient
        rc <- step mode s
        when (rc /= sqliteDone) $ failWith db "insert"
        _ <- c_reset s
        go rest
  go rows
  finalize mode s
  execScript mode db "COMMIT"

-- | Two integer columns of the first row of a query.
scalar2 :: Db -> B.ByteString -> IO (Int64, Int64)
scalar2 db sql = do
  s <- prepare Safe db sql
  rc <- c_step_safe s
  when (rc /= sqliteRow) $ failWith db "scalar"
  a <- c_column_int64 s 0
  b <- c_column_int64 s 1
  finalize Safe s
  return (a, b)

------------------------------------------------------------------------------------------
-- Issue 15: point_query, few_rows, prepare_churn, small_tx, large_values, as direct-sqlite
-- calls SQLite (safe prepare, step, finalize and exec; unsafe binds, reset and column reads;
-- TEXT copied into a ByteString and decoded to 'T.Text', BLOB copied into a ByteString).

-- | A statement kept prepared.
newtype Stmt = Stmt (Ptr CStmt)

-- | Prepares with a safe call.
prepareStmt :: Db -> B.ByteString -> IO Stmt
prepareStmt db sql = Stmt <$> prepare Safe db sql

-- | The TEXT of a column, copied and decoded (direct-sqlite's columnText).
columnText :: Ptr CStmt -> CInt -> IO T.Text
columnText s c = do
  p <- c_column_text s c
  n <- c_column_bytes s c
  bs <- B.packCStringLen (p, fromIntegral n)
  return $! TE.decodeUtf8 bs

-- | The BLOB of a column, copied (direct-sqlite's columnBlob).
columnBlob :: Ptr CStmt -> CInt -> IO B.ByteString
columnBlob s c = do
  p <- c_column_blob s c
  n <- c_column_bytes s c
  if n == 0 then return B.empty else B.packCStringLen (p, fromIntegral n)

-- | @count@ queries of the items statement, query @i@ bound to @key i@, every row read as
-- (Int64, Text, Int64, Double, Maybe Text) and summed by the cell rule: (count, checksum).
itemQueries :: Db -> Stmt -> Int64 -> (Int64 -> Int64) -> IO (Int64, Int64)
itemQueries db (Stmt s) count key = go 0 0
  where
    go !i !acc
      | i == count = return (count, acc)
      | otherwise = do
          _ <- c_bind_int64 s 1 (key i)
          acc' <- rows acc
          _ <- c_reset s
          go (i + 1) acc'
    rows !acc = do
      rc <- c_step_safe s
      if rc == sqliteRow
        then do
          a <- c_column_int64 s 0
          n <- columnText s 1
          q <- c_column_int64 s 2
          p <- c_column_double s 3
          ty <- c_column_type s 4
          t <- if ty == 5 then return 1 else fromIntegral . T.length <$> columnText s 4
          rows (acc + a + fromIntegral (T.length n) + q + fromIntegral (truncate (p * 1000) :: Int) + t)
        else do
          when (rc /= sqliteDone) $ failWith db "step"
          return acc

bindChurn :: Ptr CStmt -> (Int64, Double, T.Text) -> IO ()
bindChurn s (a, b, c) = do
  _ <- c_bind_int64 s 1 a
  _ <- c_bind_double s 2 b
  _ <- BU.unsafeUseAsCStringLen (TE.encodeUtf8 c) $ \(p, n) ->
    c_bind_text s 3 p (fromIntegral n) (castPtrToFunPtr (intPtrToPtr (-1)))
  return ()

-- | prepare_churn's timed part: BEGIN, per row prepare, bind, step, finalize; COMMIT. Row i
-- is @row i@, built in the loop as the other implementations build theirs (a list of the
-- rows made outside it would be made once and shared by every repetition).
prepareChurn :: Db -> Int64 -> (Int64 -> (Int64, Double, T.Text)) -> IO ()
prepareChurn db n row = do
  execScript Safe db "BEGIN"
  let go !i
        | i == n = return ()
        | otherwise = do
            s <- prepare Safe db "INSERT INTO churn(a, b, c) VALUES (?, ?, ?)"
            bindChurn s (row i)
            rc <- c_step_safe s
            _ <- c_finalize_safe s
            when (rc /= sqliteDone) $ failWith db "insert"
            go (i + 1)
  go 0
  execScript Safe db "COMMIT"

-- | small_tx's timed part: per row BEGIN, bind, step, reset, COMMIT (row i as in
-- 'prepareChurn').
smallTx :: Db -> Stmt -> Int64 -> (Int64 -> (Int64, Double, T.Text)) -> IO ()
smallTx db (Stmt s) n row = go 0
  where
    go !i
      | i == n = return ()
      | otherwise = do
          execScript Safe db "BEGIN"
          bindChurn s (row i)
          rc <- c_step_safe s
          _ <- c_reset s
          when (rc /= sqliteDone) $ failWith db "insert"
          execScript Safe db "COMMIT"
          go (i + 1)

-- | large_values: prepare, every row's id, TEXT decoded to 'T.Text' (code points) and BLOB
-- (by the given rule), finalize: (count, checksum).
largeValues :: Db -> (B.ByteString -> Int64) -> IO (Int64, Int64)
largeValues db blobRule = do
  s <- prepare Safe db "SELECT id, t, b FROM big ORDER BY id"
  let go !n !acc = do
        rc <- c_step_safe s
        if rc == sqliteRow
          then do
            i <- c_column_int64 s 0
            t <- columnText s 1
            b <- columnBlob s 2
            go (n + 1) (acc + i + fromIntegral (T.length t) + blobRule b)
          else do
            when (rc /= sqliteDone) $ failWith db "step"
            return (n, acc)
  r <- go 0 0
  finalize Safe s
  return r
