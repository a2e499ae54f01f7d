{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Issue 15's application-shaped workloads (benches/README.md): point_query, few_rows,
-- prepare_churn, small_tx and large_values, as a user of each Haskell API writes them.
--
-- * hs-sqlbatch-fold: "Database.SQLBatch" (sqlite-simple's API): a kept 'Statement' with
--   'bind' / 'foldStatement' / 'reset' for the queries, 'execute' (prepare, bind, run,
--   finalize) per row for prepare_churn, 'withTransaction' around 'bind' / 'nextRow' /
--   'reset' of a kept INSERT for small_tx, 'fold_' into (Int64, Text, ByteString) for
--   large_values.
-- * hs-sqlbatch-direct: "Database.SQLite3" (direct-sqlite's API): bindInt64, step,
--   column*, reset, finalize.
-- * hs-perrow-safe: the per-row safe FFI baseline ("PerRow").
--
-- And issue 11's blob_read, blob_many and backup, for hs-sqlbatch-direct only (the blob and
-- backup API is "Database.SQLite3"'s, direct-sqlite's shape): 'S3.blobOpen', 'S3.blobReadBuf'
-- in 64 KiB ranges, 'S3.blobReadMany' (sqlbatch's batched read) for the many small values,
-- 'S3.backupInit' / 'S3.backupStep' / 'S3.backupFinish' into a new file.
module Small
  ( isSmall
  , smallSetup
  , itemSum
  , blobSum
  , pointKey
  , fewStart
  ) where

import Control.Exception (evaluate)
import Control.Monad (forM_, unless, when)
import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int64)
import Data.List (foldl')
import Data.Text (Text)
import qualified Data.Text as T
import Data.Word (Word8)
import Foreign.C.Types (CInt (..))
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Ptr (Ptr, castPtr)
import Foreign.Storable (peekByteOff)
import System.Directory (removeFile, doesFileExist)
import System.Environment (lookupEnv)
import System.IO.Unsafe (unsafeDupablePerformIO)
import System.Mem (performMajorGC)

import Database.SQLBatch
import qualified Database.SQLite3 as S3
import qualified PerRow as P
import Work (Took, stamp, tookSince)

foreign import ccall unsafe "getpid" c_getpid :: IO CInt

-- | The five workloads, and issue 11's three.
isSmall :: String -> Bool
isSmall w = w `elem` ["point_query", "few_rows", "prepare_churn", "small_tx", "large_values"] || isBlob w

-- | Issue 11's blob and backup workloads.
isBlob :: String -> Bool
isBlob w = w `elem` ["blob_read", "blob_many", "backup"]

-- | The key of query @i@ of point_query and the start of query @i@ of few_rows.
pointKey, fewStart :: Int64 -> Int64
pointKey i = (i * 7919) `mod` 100000 + 1
fewStart i = (i * 7919) `mod` 99991 + 1

pointSql, fewSql, insertSql, largeSql :: Query
pointSql = "SELECT id, name, qty, price, tag FROM items WHERE id = ?"
fewSql = "SELECT id, name, qty, price, tag FROM items WHERE id >= ? ORDER BY id LIMIT 10"
insertSql = "INSERT INTO churn(a, b, c) VALUES (?, ?, ?)"
largeSql = "SELECT id, t, b FROM big ORDER BY id"

-- | An items row as its types.
type Item = (Int64, Text, Int64, Double, Maybe Text)

-- | The cell rule over an items row.
itemSum :: Item -> Int64
itemSum (a, n, q, p, t) =
  a + fromIntegral (T.length n) + q + fromIntegral (truncate (p * 1000) :: Int) + maybe 1 (fromIntegral . T.length) t
{-# INLINE itemSum #-}

-- | large_values' BLOB rule (also the blob workloads'): the length plus the bytes at
-- offsets 0, 64, 128, ... The loop enters the buffer once ('BU.unsafeUseAsCStringLen') and
-- peeks: an index loop with 'BU.unsafeIndex' pays GHC 9.0's @keepAlive#@ per byte read.
blobSum :: B.ByteString -> Int64
blobSum b = unsafeDupablePerformIO $ BU.unsafeUseAsCStringLen b $ \(p, n) -> blobSumPtr (castPtr p) n
{-# INLINE blobSum #-}

-- | The same rule over @n@ bytes at an address.
blobSumPtr :: Ptr Word8 -> Int -> IO Int64
blobSumPtr p n = go 0 (fromIntegral n)
  where
    go !i !acc
      | i >= n = return acc
      | otherwise = do
          w <- peekByteOff p i :: IO Word8
          go (i + 64) (acc + fromIntegral w)

churnPath :: IO FilePath
churnPath = do
  tmp <- maybe "/tmp" id <$> lookupEnv "TMPDIR"
  pid <- c_getpid
  return (tmp ++ "/sqlbatch-bench-" ++ show pid ++ ".db")

removeChurn :: FilePath -> IO ()
removeChurn p = forM_ ["", "-wal", "-shm"] $ \s -> do
  e <- doesFileExist (p ++ s)
  when e $ removeFile (p ++ s)

churnScript :: Text
churnScript = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE churn(a INTEGER, b REAL, c TEXT)"

-- | Runs the timed part between an untimed major GC and the clock (wall and CPU time).
clock :: IO a -> IO (Took, a)
clock act = do
  performMajorGC
  t0 <- stamp
  r <- act >>= evaluate
  t1 <- tookSince t0
  return (t1, r)

-- | Runs the action for i = 0 .. n - 1, a counting loop as in the per-row loops ("PerRow").
-- (A @forM_ [0 .. n - 1]@ here would not be fused: its list, not depending on the
-- connection, is floated out of the set-up's lambda and shared by the repetitions, so every
-- garbage collection copies its cells, about 60 bytes a row that the per-row loops do not
-- pay.)
upTo :: Int64 -> (Int64 -> IO ()) -> IO ()
upTo n f = go 0
  where
    go !i
      | i == n = return ()
      | otherwise = f i >> go (i + 1)
{-# INLINE upTo #-}

-- | The row i of prepare_churn and small_tx, its text built here (inside the timed loop).
churnRow :: Int64 -> (Int64, Double, Text)
churnRow i = (i, fromIntegral i * 0.25, T.pack ("row-" ++ show i))
{-# INLINE churnRow #-}

-- | The untimed set-up of a workload for an implementation; the action it returns runs one
-- repetition: (its wall and CPU time, (count, checksum)). 'Nothing' if the implementation does
-- not have it (the blob and backup workloads: all but hs-sqlbatch-direct).
smallSetup :: String -> String -> String -> IO (Maybe (IO (Took, (Int64, Int64))))
smallSetup impl workload input
  | isBlob workload = if impl == "hs-sqlbatch-direct" then Just <$> blobSetup workload input else return Nothing
  | otherwise = case impl of
      "hs-sqlbatch-fold" -> Just <$> sbSetup workload input
      "hs-sqlbatch-direct" -> Just <$> s3Setup workload input
      "hs-perrow-safe" -> Just <$> prSetup workload input
      _ -> return Nothing

------------------------------------------------------------------------------------------
-- Database.SQLBatch

sbOpen :: String -> IO Connection
sbOpen path = do
  c <- open path
  executeScript c "PRAGMA synchronous=NORMAL"
  return c

sbSetup :: String -> String -> IO (IO (Took, (Int64, Int64)))
sbSetup workload input = case workload of
  "point_query" -> do
    c <- sbOpen input
    st <- openStatement c pointSql
    return $ clock $ do
      let go !i !s
            | i == 100000 = return (100000, s)
            | otherwise = do
                bind st (Only (pointKey i))
                s' <- foldStatement st s (\acc r -> return $! acc + itemSum r)
                reset st
                go (i + 1) s'
      go 0 0
  "few_rows" -> do
    c <- sbOpen input
    st <- openStatement c fewSql
    return $ clock $ do
      let go !i !s
            | i == 20000 = return (20000, s)
            | otherwise = do
                bind st (Only (fewStart i))
                s' <- foldStatement st s (\acc r -> return $! acc + itemSum r)
                reset st
                go (i + 1) s'
      go 0 0
  "prepare_churn" -> do
    let n = read input :: Int64
    return $ churnRep $ \c -> withTransaction c $ upTo n $ \i ->
      execute c insertSql (churnRow i)
  "small_tx" -> do
    let n = read input :: Int64
    return $ churnRep' $ \c -> do
      st <- openStatement c insertSql
      return $ upTo n $ \i -> withTransaction c $ do
        bind st (churnRow i)
        _ <- nextRow st :: IO (Maybe [SQLData])
        reset st
  "large_values" -> do
    c <- sbOpen input
    return $ clock $ do
      (n, s) <- fold_ c largeSql (0 :: Int64, 0 :: Int64) $ \(!n, !s) (i, t :: Text, b) ->
        return (n + 1, s + i + fromIntegral (T.length t) + blobSum b)
      return (n, s)
  _ -> unsupported
  where
    churnRep act = churnRep' (\c -> return (act c))
    churnRep' prep = do
      p <- churnPath
      removeChurn p
      c <- sbOpen p
      executeScript c (Query churnScript)
      act <- prep c
      (ns, ()) <- clock act
      [(k, s)] <- query_ c "SELECT count(*), sum(a) + sum(length(c)) FROM churn"
      close c
      removeChurn p
      return (ns, (k, s))

unsupported :: IO a
unsupported = ioError (userError "unsupported")

------------------------------------------------------------------------------------------
-- Database.SQLite3 (direct-sqlite's API)

s3Open :: String -> IO S3.Database
s3Open path = do
  db <- S3.open (T.pack path)
  S3.exec db "PRAGMA synchronous=NORMAL"
  return db

s3Item :: S3.Statement -> IO Int64
s3Item st = do
  a <- S3.columnInt64 st 0
  n <- S3.columnText st 1
  q <- S3.columnInt64 st 2
  p <- S3.columnDouble st 3
  ty <- S3.columnType st 4
  t <- case ty of
    S3.NullColumn -> return 1
    _ -> fromIntegral . T.length <$> S3.columnText st 4
  return $! a + fromIntegral (T.length n) + q + fromIntegral (truncate (p * 1000) :: Int) + t

s3Setup :: String -> String -> IO (IO (Took, (Int64, Int64)))
s3Setup workload input = case workload of
  "point_query" -> queries 100000 pointKey pointSql
  "few_rows" -> queries 20000 fewStart fewSql
  "prepare_churn" -> do
    let n = read input :: Int64
    return $ churnRep $ \db -> do
      S3.exec db "BEGIN"
      upTo n $ \i -> do
        st <- S3.prepare db (fromQuery insertSql)
        bindRow st i
        _ <- S3.step st
        S3.finalize st
      S3.exec db "COMMIT"
  "small_tx" -> do
    let n = read input :: Int64
    return $ churnRep' $ \db -> do
      st <- S3.prepare db (fromQuery insertSql)
      return (upTo n (\i -> do
        S3.exec db "BEGIN"
        bindRow st i
        _ <- S3.step st
        S3.reset st
        S3.exec db "COMMIT"), S3.finalize st)
  "large_values" -> do
    db <- s3Open input
    return $ clock $ do
      st <- S3.prepare db (fromQuery largeSql)
      let go !n !s = do
            r <- S3.step st
            case r of
              S3.Row -> do
                i <- S3.columnInt64 st 0
                t <- S3.columnText st 1
                b <- S3.columnBlob st 2
                go (n + 1) (s + i + fromIntegral (T.length t) + blobSum b)
              S3.Done -> return (n, s)
      r <- go 0 0
      S3.finalize st
      return r
  _ -> unsupported
  where
    -- The row taken apart at once, as the per-row loop's bindChurn does (a lazy pattern
    -- would bind a selector thunk per value).
    bindRow st i = case churnRow i of
      (a, b, t) -> do
        S3.bindInt64 st 1 a
        S3.bindDouble st 2 b
        S3.bindText st 3 t
    queries :: Int64 -> (Int64 -> Int64) -> Query -> IO (IO (Took, (Int64, Int64)))
    queries count key q = do
      db <- s3Open input
      st <- S3.prepare db (fromQuery q)
      return $ clock $ do
        let go !i !s
              | i == count = return (count, s)
              | otherwise = do
                  S3.bindInt64 st 1 (key i)
                  let rows !acc = do
                        r <- S3.step st
                        case r of
                          S3.Row -> s3Item st >>= \v -> rows (acc + v)
                          S3.Done -> return acc
                  s' <- rows s
                  S3.reset st
                  go (i + 1) s'
        go 0 0
    churnRep act = churnRep' (\db -> return (act db, return ()))
    churnRep' prep = do
      p <- churnPath
      removeChurn p
      db <- S3.open (T.pack p)
      S3.exec db churnScript
      (act, after) <- prep db
      (ns, ()) <- clock act
      () <- after
      st <- S3.prepare db "SELECT count(*), sum(a) + sum(length(c)) FROM churn"
      _ <- S3.step st
      k <- S3.columnInt64 st 0
      s <- S3.columnInt64 st 1
      S3.finalize st
      S3.close db
      removeChurn p
      return (ns, (k, s))

------------------------------------------------------------------------------------------
-- Per-row safe FFI

prSetup :: String -> String -> IO (IO (Took, (Int64, Int64)))
prSetup workload input = case workload of
  "point_query" -> queries 100000 pointKey pointSql
  "few_rows" -> queries 20000 fewStart fewSql
  "prepare_churn" -> do
    let n = read input :: Int64
    return $ churnRep (\db -> return (P.prepareChurn db n churnRow))
  "small_tx" -> do
    let n = read input :: Int64
    return $ churnRep $ \db -> do
      st <- P.prepareStmt db (qBytes insertSql)
      return (P.smallTx db st n churnRow)
  "large_values" -> do
    db <- prOpen input
    return $ clock (P.largeValues db blobSum)
  _ -> unsupported
  where
    qBytes (Query t) = B.pack (map (fromIntegral . fromEnum) (T.unpack t))
    prOpen p = do
      db <- P.openDb p
      P.execScript P.Safe db "PRAGMA synchronous=NORMAL"
      return db
    queries count key q = do
      db <- prOpen input
      st <- P.prepareStmt db (qBytes q)
      return $ clock (P.itemQueries db st count key)
    churnRep prep = do
      p <- churnPath
      removeChurn p
      db <- P.openDb p
      P.execScript P.Safe db (qBytes (Query churnScript))
      act <- prep db
      (ns, ()) <- clock act
      r <- P.scalar2 db "SELECT count(*), sum(a) + sum(length(c)) FROM churn"
      P.closeDb db
      removeChurn p
      return (ns, r)

------------------------------------------------------------------------------------------
-- Issue 11: blob_read, blob_many, backup through "Database.SQLite3"

-- | blob_read's range, blob_many's count and ranges a call, and the rowid of its value @i@
-- (a permutation of 1 .. 100,000).
blobRange, blobMany, blobManyChunk :: Int
blobRange = 65536
blobMany = 100000
blobManyChunk = 1024

blobKey :: Int -> Int64
blobKey i = fromIntegral ((i * 7919) `mod` 100000 + 1)

backupCheck :: T.Text
backupCheck = "SELECT (SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()), "
  <> "count(*) + sum(n) + sum(length(b)) FROM bk"

-- | The copy of backup: @<$TMPDIR or /tmp>/sqlbatch-bench-backup-<pid>.db@.
backupPath :: IO FilePath
backupPath = do
  tmp <- maybe "/tmp" id <$> lookupEnv "TMPDIR"
  pid <- c_getpid
  return (tmp ++ "/sqlbatch-bench-backup-" ++ show pid ++ ".db")

removeBackup :: FilePath -> IO ()
removeBackup p = forM_ ["", "-journal", "-wal", "-shm"] $ \s -> do
  e <- doesFileExist (p ++ s)
  when e $ removeFile (p ++ s)

blobSetup :: String -> String -> IO (IO (Took, (Int64, Int64)))
blobSetup workload input = case workload of
  "blob_read" -> do
    -- 'S3.blobReadBuf' of 64 KiB at a time into one buffer (as the C and Go rows read);
    -- direct-sqlite's 'S3.blobRead', a new ByteString a range, costs about 10% more here.
    db <- S3.open (T.pack input)
    return $ clock $ allocaBytes blobRange $ \buf -> do
      b <- S3.blobOpen db "main" "big_blob" "b" 1 False
      size <- S3.blobBytes b
      let go !off !n !s
            | off >= size = return (n, s)
            | otherwise = do
                let k = min blobRange (size - off)
                S3.blobReadBuf b buf k off
                v <- blobSumPtr buf k
                go (off + k) (n + fromIntegral k) (s + v)
      r <- go 0 0 0
      S3.blobClose b
      return r
  "blob_many" -> do
    -- 'S3.blobReadMany' (sqlbatch's batched read) of 1,024 (rowid, 0, to the end) ranges a
    -- call, as the C and Go rows chunk them. One call of all 100,000 costs about 25% more
    -- CPU: the binding marshals every remaining range again for each library call it makes.
    db <- S3.open (T.pack input)
    return $ clock $ do
      b <- S3.blobOpen db "main" "small_blobs" "b" (blobKey 0) False
      let chunk !c !s
            | c >= blobMany = return s
            | otherwise = do
                vs <- S3.blobReadMany b [(blobKey i, 0, Nothing) | i <- [c .. min blobMany (c + blobManyChunk) - 1]]
                chunk (c + blobManyChunk) (foldl' (\acc v -> acc + blobSum v) s vs)
      s <- chunk 0 0
      S3.blobClose b
      return (fromIntegral blobMany, s)
  "backup" -> do
    src <- S3.open (T.pack input)
    path <- backupPath
    return $ do
      removeBackup path
      (took, ()) <- clock $ do
        dest <- S3.open (T.pack path)
        S3.exec dest "PRAGMA synchronous=OFF"
        bk <- S3.backupInit dest "main" src "main"
        r <- S3.backupStep bk (-1)
        S3.backupFinish bk
        S3.close dest
        unless (r == S3.BackupDone) $ ioError (userError "backup: pages left after a step of every page")
      copy <- S3.open (T.pack path)
      st <- S3.prepare copy backupCheck
      _ <- S3.step st
      k <- S3.columnInt64 st 0
      s <- S3.columnInt64 st 1
      S3.finalize st
      S3.close copy
      removeBackup path
      return (took, (k, s))
  _ -> unsupported
