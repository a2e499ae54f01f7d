{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE DeriveGeneric #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE UnboxedTuples #-}
-- | hs-bench: the Haskell benchmark of sqlbatch.
--
-- With no arguments (or only --workloads DIR / --reps N), it prints the table of issue 4,
-- measured in this one process: sqlbatch's 'fold' and 'query', the per-row baselines
-- (direct-sqlite's pattern with a safe step, and all-unsafe) and the native C loop, on
-- fetch_narrow and fetch_wide (TEXT read as Text and, separately, as ByteString), as medians
-- with the ratio to native C.
--
-- With --impl NAME --workload W --input P --reps N --warmup W it follows the implementation
-- protocol of benches/README.md (impls hs-sqlbatch-fold, hs-sqlbatch-query, hs-perrow-safe,
-- hs-perrow-unsafe, hs-sqlbatch-direct (fetch workloads), hs-sqlbatch-generic (fetch_narrow,
-- fetch_narrow_1m and fetch_wide: 'fold_' into records with the Generic 'FromRow'); and, for instruction counts under valgrind, hs-native-c and hs-direct on
-- the fetch workloads: the table's native C loop and Direct-layer loop). The udf_scalar and
-- udf_aggregate workloads (SQL functions written in Haskell, see 'udfSetup') are run by
-- hs-sqlbatch-fold and hs-sqlbatch-query; the per-row baselines do not have them (exit 3).
--
-- Encryption (issue 34): build/bench/hs-bench-enc is this program linked against the
-- encrypted build of the library (SQLCipher; make build-enc). SQLBATCH_BENCH_BULK_FILE=1 makes
-- hs-sqlbatch-fold's bulk_insert write a fresh file (<$TMPDIR or /tmp>/sqlbatch-bench-bulk-<pid>.db,
-- synchronous=OFF) instead of :memory:, which SQLCipher does not encrypt; with
-- SQLBATCH_BENCH_KEY=PASSPHRASE as well, hs-sqlbatch-fold and hs-sqlbatch-direct open the
-- fetch workloads' input (an encrypted copy) and that file with the key ('openEncryptedWith',
-- "Database.SQLite3"'s 'S3.openEncrypted'), SQLCipher's default settings. Both: exit 3 for
-- the other implementations and workloads (hs-sqlbatch-direct has no bulk_insert).
module Main (main) where

import Control.Exception (IOException, bracket, evaluate, finally, try)
import Control.Monad (forM, forM_, replicateM_, unless, when)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import Data.Bits ((.&.))
import Data.Int (Int64)
import Data.IORef (IORef, modifyIORef', newIORef, readIORef, writeIORef)
import Data.List (foldl', sort, transpose)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Data.Word (Word64, Word8)
import Foreign.C.String (CString, withCString)
import Foreign.Marshal.Alloc (alloca, mallocBytes)
import Foreign.Ptr (Ptr, nullPtr, plusPtr)
import Foreign.Storable (peek, peekByteOff)
import GHC.Conc (getNumCapabilities)
import System.Directory (doesFileExist, getTemporaryDirectory, removeFile)
import System.Environment (getArgs, getExecutablePath, lookupEnv)
import System.Exit (exitWith, ExitCode (..), exitFailure)
import System.FilePath (takeDirectory, (</>))
import System.IO (hPutStrLn, stderr, hFlush, stdout)
import System.Mem (performMajorGC)
import System.Posix.Process (getProcessID)
import Text.Printf (printf)

import Database.SQLBatch
import qualified Database.SQLBatch.Direct as D
import qualified Database.SQLBatch.Direct.Function as DF
import qualified Database.SQLBatch.Function as F
import qualified Database.SQLite3 as S3
import Database.SQLBatch.FromField (textBytes)
import Database.SQLBatch.Internal (Cell (..), Row (..), RowParser (..), connDatabase, fieldByteSlice,
                                   fieldDoubleUnchecked, fieldInt64Unchecked, fieldKind)
import Database.SQLBatch.Raw.Types (kindBlob, kindFloat, kindInteger, kindText, valueSize)
import GHC.Exts (Int (I#), (+#))
import GHC.Generics (Generic)
import GHC.IO (unIO)
import qualified PerRow as P
import qualified SQLite3Loop as L3
import qualified Small
import qualified VTab
import Work

------------------------------------------------------------------------------------------
-- Native C loop (bench/cbits/native.c)

data CDb

foreign import ccall safe "hs_native_open" c_native_open :: CString -> IO (Ptr CDb)
foreign import ccall safe "hs_native_close" c_native_close :: Ptr CDb -> IO ()
foreign import ccall safe "hs_native_fetch_narrow"
  c_native_fetch_narrow :: Ptr CDb -> Ptr Int64 -> IO Int64
foreign import ccall safe "hs_native_fetch_wide"
  c_native_fetch_wide :: Ptr CDb -> Ptr Int64 -> IO Int64

nativeOpen :: FilePath -> IO (Ptr CDb)
nativeOpen path = do
  db <- withCString path c_native_open
  when (db == nullPtr) $ die' ("native open failed: " ++ path)
  return db

native :: (Ptr CDb -> Ptr Int64 -> IO Int64) -> Ptr CDb -> IO (Int64, Int64)
native f db = alloca $ \pn -> do
  s <- f db pn
  n <- peek pn
  when (n < 0) $ die' "native fetch failed"
  return (n, s)

------------------------------------------------------------------------------------------
-- sqlbatch

data Acc = Acc !Int64 !Int64

narrowSql, wideSql :: Query
narrowSql = "SELECT id FROM testdata"
wideSql = "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"

sbFoldNarrow :: Connection -> IO (Int64, Int64)
sbFoldNarrow c = do
  Acc n s <- fold_ c narrowSql (Acc 0 0) (\(Acc n s) (Only i) -> return $! Acc (n + 1) (s + i))
  return (n, s)

sbQueryNarrow :: Connection -> IO (Int64, Int64)
sbQueryNarrow c = do
  rows <- query_ c narrowSql :: IO [Only Int64]
  let go !n !s [] = (n, s)
      go n s (Only i : rest) = go (n + 1) (s + i) rest
  return $! go 0 0 rows

-- | A wide row, with TEXT as @t@ (Text or ByteString).
type Wide t =
  ( Int64, Maybe Int64, Maybe Int64, Maybe Int64, Maybe Double, Maybe Double
  , Maybe t, Maybe t, Maybe t, Maybe B.ByteString )

-- | The fetch_wide checksum of one row (benches/README.md): NULL 1, INTEGER its value,
-- REAL trunc(x * 1000), TEXT its code points, BLOB its length; wrapping Int64.
wideSum :: (t -> Int64) -> Wide t -> Int64
wideSum len (a, b, c, d, e, f, g, h, i, j) =
  a + mi b + mi c + mi d + md e + md f + mt g + mt h + mt i + maybe 1 (fromIntegral . B.length) j
  where
    mi = maybe 1 id
    md = maybe 1 (\x -> fromIntegral (truncate (x * 1000) :: Int))
    mt = maybe 1 len
{-# INLINE wideSum #-}

textLen :: Text -> Int64
textLen = fromIntegral . T.length
{-# INLINE textLen #-}

-- | fetch_wide's row as sqlite-simple's users write a record: plain fields, TEXT as
-- @Maybe Text@, and the 'FromRow' instance from 'Generic' (no hand-written 'fromRow').
data WideRow = WideRow
  { wideId :: Int64
  , wideI1, wideI2, wideI3 :: Maybe Int64
  , wideR1, wideR2 :: Maybe Double
  , wideT1, wideT2, wideT3 :: Maybe Text
  , wideB :: Maybe B.ByteString
  } deriving (Generic)

instance FromRow WideRow

-- | fetch_narrow's row as a one-field record, its 'FromRow' from 'Generic' as well.
newtype NarrowRow = NarrowRow { narrowId :: Int64 } deriving (Generic)

instance FromRow NarrowRow

-- | hs-sqlbatch-generic on fetch_wide: the fold of hs-sqlbatch-fold ('sbFoldWideText') into
-- 'WideRow's, with its checksum.
sbGenericWide :: Connection -> IO (Int64, Int64)
sbGenericWide c = do
  Acc n s <- fold_ c wideSql (Acc 0 0) $ \(Acc n s) (WideRow a b c' d e f g h i j) ->
    return $! Acc (n + 1) (s + wideSum textLen (a, b, c', d, e, f, g, h, i, j))
  return (n, s)

-- | hs-sqlbatch-generic on fetch_narrow and fetch_narrow_1m ('sbFoldNarrow' into 'NarrowRow's).
sbGenericNarrow :: Connection -> IO (Int64, Int64)
sbGenericNarrow c = do
  Acc n s <- fold_ c narrowSql (Acc 0 0) (\(Acc n s) (NarrowRow i) -> return $! Acc (n + 1) (s + i))
  return (n, s)

-- | The UTF-8 bytes of a TEXT column (sqlite-simple's 'B.ByteString' instance takes BLOB
-- only; 'textBytes' is the extension that reads TEXT as bytes).
newtype Utf8Bytes = Utf8Bytes B.ByteString

instance FromField Utf8Bytes where
  fromField f = Utf8Bytes <$> textBytes f
  {-# INLINE fromField #-}

-- | Code points of UTF-8 bytes: the bytes that are not continuation bytes (the loop of the
-- C implementations, @k += (p[i] & 0xC0) != 0x80@). 'B.foldl'' enters the buffer once; an
-- index loop with 'Data.ByteString.Unsafe.unsafeIndex' pays GHC 9.0's @keepAlive#@ per byte.
bsLen :: B.ByteString -> Int64
bsLen = B.foldl' (\n w -> n + fromIntegral (fromEnum (w .&. 0xC0 /= 0x80))) 0
{-# INLINE bsLen #-}

sbFoldWideText :: Connection -> IO (Int64, Int64)
sbFoldWideText c = do
  Acc n s <- fold_ c wideSql (Acc 0 0) $ \(Acc n s) (r :: Wide Text) ->
    return $! Acc (n + 1) (s + wideSum textLen r)
  return (n, s)

sbFoldWideBytes :: Connection -> IO (Int64, Int64)
sbFoldWideBytes c = do
  Acc n s <- fold_ c wideSql (Acc 0 0) $ \(Acc n s) (r :: Wide Utf8Bytes) ->
    return $! Acc (n + 1) (s + wideSum (\(Utf8Bytes b) -> bsLen b) r)
  return (n, s)

sbQueryWideText :: Connection -> IO (Int64, Int64)
sbQueryWideText c = do
  rows <- query_ c wideSql :: IO [Wide Text]
  return $! foldl' (\(!n, !s) r -> (n + 1, s + wideSum textLen r)) (0, 0) rows

sbQueryWideBytes :: Connection -> IO (Int64, Int64)
sbQueryWideBytes c = do
  rows <- query_ c wideSql :: IO [Wide Utf8Bytes]
  return $! foldl' (\(!n, !s) r -> (n + 1, s + wideSum (\(Utf8Bytes b) -> bsLen b) r)) (0, 0) rows

-- | A cell of fetch_work as its type, TEXT and BLOB as their bytes ('fieldByteSlice': a
-- slice of the batch, not decoded, not copied).
data RawCell = RInt !Int64 | RFloat !Double | RText !B.ByteString | RBlob !B.ByteString | RNull

-- | The row parser of one 'RawCell'. sqlite-simple's 'field' decodes every TEXT into
-- 'Text' (its 'Field' holds an 'SQLData'), so fetch_work's fold reads its cells with a
-- parser of its own over "Database.SQLBatch.Internal"'s cells, as 'field' does, but keeping
-- TEXT as bytes.
rawCell :: RowParser RawCell
rawCell = RowParser $ \r c s ->
  let i = I# c
      cell = Cell (rowCells r `plusPtr` (i * valueSize)) i (rowCtx r)
  in if i >= rowCols r
       then case unIO (die' "fetch_work: more columns read than the row has") s of
         (# s1, x #) -> (# s1, c, x #)
       else case unIO (readCell cell) s of
         (# s1, x #) -> (# s1, c +# 1#, x #)
  where
    readCell cell = do
      k <- fieldKind cell
      if k == kindInteger then RInt <$> fieldInt64Unchecked cell
      else if k == kindFloat then RFloat <$> fieldDoubleUnchecked cell
      else if k == kindText then RText <$> fieldByteSlice cell
      else if k == kindBlob then RBlob <$> fieldByteSlice cell
      else return RNull
{-# INLINE rawCell #-}

-- | A row of fetch_work: its ten cells.
data WorkRow = WorkRow !RawCell !RawCell !RawCell !RawCell !RawCell !RawCell !RawCell !RawCell !RawCell !RawCell

instance FromRow WorkRow where
  fromRow = WorkRow <$> rawCell <*> rawCell <*> rawCell <*> rawCell <*> rawCell <*> rawCell <*> rawCell
                    <*> rawCell <*> rawCell <*> rawCell

fnvCell :: Fnv -> RawCell -> Fnv
fnvCell h (RInt x) = fnvInt64 h x
fnvCell h (RFloat x) = fnvDouble h x
fnvCell h (RText b) = fnvText h b
fnvCell h (RBlob b) = fnvBlob h b
fnvCell h RNull = fnvNull h
{-# INLINE fnvCell #-}

fnvRow :: Fnv -> WorkRow -> Fnv
fnvRow h (WorkRow a b c d e f g i j k) =
  fnvCell (fnvCell (fnvCell (fnvCell (fnvCell (fnvCell (fnvCell (fnvCell (fnvCell (fnvCell h a) b) c) d) e) f) g) i) j) k
{-# INLINE fnvRow #-}

data WorkAcc = WorkAcc !Int64 !Fnv

-- | fetch_work through 'fold_': every row's cells folded into the hash.
sbFoldWork :: Connection -> IO (Int64, Int64)
sbFoldWork c = do
  WorkAcc n h <- fold_ c wideSql (WorkAcc 0 fnvOffset) (\(WorkAcc n h) r -> return $! WorkAcc (n + 1) (fnvRow h r))
  return (n, fnvChecksum h)

-- | fetch_work through 'query_' (the rows as a list first).
sbQueryWork :: Connection -> IO (Int64, Int64)
sbQueryWork c = do
  rows <- query_ c wideSql :: IO [WorkRow]
  let WorkAcc n h = foldl' (\(WorkAcc k x) r -> WorkAcc (k + 1) (fnvRow x r)) (WorkAcc 0 fnvOffset) rows
  return (n, fnvChecksum h)

-- | The floor of the binding: "Database.SQLBatch.Direct" with a hand-written loop over the
-- cells (what c-sqlbatch does in C), no row parser, no Haskell values.
directFetch :: D.Database -> Ptr Word8 -> Int -> Query -> IO (Int64, Int64)
directFetch db buf bufLen q = do
  Right st <- D.prepare db (D.Utf8 (TE.encodeUtf8 (fromQuery q)))
  let loop !n !acc = do
        r <- D.fetchInto st 4096 buf bufLen
        case r of
          Right (D.Fetched status b) -> do
            acc' <- cellsSum b
            let n' = n + fromIntegral (D.batchRows b)
            if status == D.FetchDone then return (n', acc') else loop n' acc'
            where
              cellsSum bat = go 0 acc
                where
                  end = D.batchRows bat * D.batchCols bat
                  go !i !s
                    | i >= end = return s
                    | otherwise = do
                        let cell = D.batchCells bat `plusPtr` (i * 16)
                        k <- D.cellKind cell
                        v <- case k of
                          1 -> D.cellInt64 cell
                          2 -> (\x -> fromIntegral (truncate (x * 1000) :: Int)) <$> D.cellDouble cell
                          3 -> do
                            off <- peekByteOff cell 0 :: IO Word64
                            len <- D.cellLength cell
                            utf8Len (D.batchData bat `plusPtr` fromIntegral off) len
                          4 -> fromIntegral <$> D.cellLength cell
                          _ -> return 1
                        go (i + 1) (s + v)
          Right (D.NeedBytes _) -> die' "direct: buffer too small"
          Left e -> die' (show e)
  r <- loop 0 0
  D.finalize st
  return r

-- | Code points of UTF-8 bytes at an address.
utf8Len :: Ptr Word8 -> Int -> IO Int64
utf8Len p n = go 0 0
  where
    go !i !acc
      | i >= n = return acc
      | otherwise = do
          w <- peekByteOff p i :: IO Word8
          go (i + 1) (acc + fromIntegral (fromEnum (w .&. 0xC0 /= 0x80)))

------------------------------------------------------------------------------------------
-- SQL functions written in Haskell (udf_scalar, udf_aggregate)

-- | Registers the udf workloads' @f(x) = x*2+1@ and @sumsq(x)@ (the wrapping sum of x*x) on
-- the connection, each counting in an 'IORef' the calls of f / the rows sumsq's step saw, as
-- the implementation says (benches/README.md):
--
-- * hs-sqlbatch-fold: "Database.SQLBatch.Direct.Function"'s 'DF.createFunction' (a
--   deterministic function reading its argument cell) and 'DF.createAggregateBatched' (a
--   fold over batches of 'udfBatchRows' argument rows: one Haskell call per batch);
-- * hs-sqlbatch-query: "Database.SQLBatch.Function"'s 'F.createFunction' of an
--   @Int64 -> IO Int64@ (sqlite-simple's shape; counting needs 'IO', so it is registered as
--   not deterministic, which changes nothing for this query) and the per-row
--   'DF.createAggregate' (direct-sqlite's shape: one Haskell call per row).
udfSetup :: Bool -> Connection -> IO (IORef Int64, IORef Int64)
udfSetup isFold c = do
  fCalls <- newIORef 0
  sqRows <- newIORef 0
  let db = connDatabase c
      ok what r = either (\e -> die' (what ++ ": " ++ show e)) return r
  if isFold
    then do
      DF.createFunction db "f" (Just 1) True (\ctx args -> do
        x <- DF.funcArgInt64 args 0
        modifyIORef' fCalls (+ 1)
        DF.funcResultInt64 ctx (x * 2 + 1)) >>= ok "createFunction"
      DF.createAggregateBatched db "sumsq" (Just 1) udfBatchRows (0 :: Int64)
        (\_ rows s0 -> do
          let n = DF.funcRowCount rows
              go !r !s
                | r >= n = return s
                | otherwise = do
                    x <- DF.funcArgInt64 (DF.funcRowArgs rows r) 0
                    go (r + 1) (s + x * x)
          modifyIORef' sqRows (+ fromIntegral n)
          go 0 s0)
        DF.funcResultInt64 >>= ok "createAggregateBatched"
    else do
      F.createFunction c "f" (\x -> do
        modifyIORef' fCalls (+ 1)
        return (x * 2 + 1 :: Int64))
      DF.createAggregate db "sumsq" (Just 1) (0 :: Int64)
        (\_ args s -> do
          x <- DF.funcArgInt64 args 0
          modifyIORef' sqRows (+ 1)
          return (s + x * x))
        DF.funcResultInt64 >>= ok "createAggregate"
  return (fCalls, sqRows)

-- | The rows per call of the batched aggregate's step.
udfBatchRows :: Int
udfBatchRows = 1024

-- | One repetition of udf_scalar or udf_aggregate: the counter is reset, the query is
-- prepared, run and finalized ('fold_' or 'query_', as the implementation fetches), and the
-- result is (the counter, the query's integer).
udfRun :: Bool -> Connection -> IORef Int64 -> Query -> IO (Int64, Int64)
udfRun isFold c counter q = do
  writeIORef counter 0
  v <- if isFold
    then fold_ c q 0 (\_ (Only x) -> return $! x)
    else do
      rows <- query_ c q
      case rows of
        [Only x] -> return x
        _ -> die' ("udf: expected one row, got " ++ show (length rows))
  n <- readIORef counter
  return (n, v)

------------------------------------------------------------------------------------------
-- Measuring

-- | Runs an action once, untimed garbage collection first: (its wall and CPU time,
-- (count, checksum)).
timed :: IO (Int64, Int64) -> IO (Took, (Int64, Int64))
timed act = do
  performMajorGC
  t0 <- stamp
  r <- act >>= evaluate
  t1 <- tookSince t0
  return (t1, r)

median :: [Word64] -> Double
median xs = case sort xs of
  [] -> 0
  s | odd (length s) -> fromIntegral (s !! (length s `div` 2))
    | otherwise -> (fromIntegral (s !! (length s `div` 2 - 1)) + fromIntegral (s !! (length s `div` 2))) / 2

die' :: String -> IO a
die' msg = hPutStrLn stderr ("hs-bench: " ++ msg) >> exitFailure

------------------------------------------------------------------------------------------
-- Protocol mode (benches/README.md)

data Opts = Opts
  { oImpl :: Maybe String, oWorkload :: Maybe String, oInput :: Maybe String
  , oReps :: Maybe Int, oWarmup :: Int, oWorkloads :: Maybe FilePath, oOnly :: Maybe String }

parseOpts :: [String] -> IO Opts
parseOpts = go (Opts Nothing Nothing Nothing Nothing 1 Nothing Nothing)
  where
    go o [] = return o
    go o ("--impl" : v : r) = go o { oImpl = Just v } r
    go o ("--workload" : v : r) = go o { oWorkload = Just v } r
    go o ("--input" : v : r) = go o { oInput = Just v } r
    go o ("--reps" : v : r) = go o { oReps = Just (read v) } r
    go o ("--warmup" : v : r) = go o { oWarmup = read v } r
    go o ("--workloads" : v : r) = go o { oWorkloads = Just v } r
    go o ("--only" : v : r) = go o { oOnly = Just v } r
    go _ (a : _) = die' ("unknown argument " ++ a ++ usage)
    usage = "\nusage: hs-bench [--workloads DIR] [--reps N] [--only fetch_narrow|fetch_wide]\n"
         ++ "       hs-bench --impl NAME --workload W --input PATH_OR_COUNT --reps N --warmup W"

-- | The encryption of a run (see the module's header): the passphrase of
-- SQLBATCH_BENCH_KEY, and the file bulk_insert writes instead of @:memory:@.
data Enc = Enc { encKey :: Maybe B.ByteString, encBulkFile :: Maybe FilePath }

-- | Reads SQLBATCH_BENCH_KEY and SQLBATCH_BENCH_BULK_FILE (implied by the key).
readEnc :: IO Enc
readEnc = do
  key <- fmap B8.pack . nonEmpty <$> lookupEnv "SQLBATCH_BENCH_KEY"
  bulk <- maybe False (`notElem` ["", "0"]) <$> lookupEnv "SQLBATCH_BENCH_BULK_FILE"
  path <- if bulk || key /= Nothing
    then do
      tmp <- getTemporaryDirectory
      pid <- getProcessID
      return (Just (tmp </> ("sqlbatch-bench-bulk-" ++ show pid ++ ".db")))
    else return Nothing
  return (Enc key path)
  where
    nonEmpty m = case m of
      Just x | not (null x) -> Just x
      _ -> Nothing

-- | Removes the bulk_insert file and its rollback journal: before every repetition and at
-- the end of the process.
removeBulkFiles :: Enc -> IO ()
removeBulkFiles e = forM_ (encBulkFile e) $ \p ->
  forM_ [p, p ++ "-journal"] $ \f -> () <$ (try (removeFile f) :: IO (Either IOException ()))

protocol :: String -> String -> String -> Int -> Int -> IO ()
protocol impl workload input reps warmup = do
  -- SQLBATCH_BENCH_AHEAD=1: the runner's hs-sqlbatch-fold+ahead (issue 14), read once.
  ahead <- maybe False (`notElem` ["", "0"]) <$> lookupEnv "SQLBATCH_BENCH_AHEAD"
  -- Issue 14: hs-sqlbatch-fold's fetch workloads on a connection opened with
  -- D.OpenFetchAhead, and bulk_insert's executeMany on one opened with D.OpenWriteBehind (the
  -- options given to the connections setup opens). Other implementations are n/a (exit 3).
  when (ahead && (impl /= "hs-sqlbatch-fold"
                  || workload `notElem` ["fetch_narrow", "fetch_narrow_1m", "fetch_wide", "fetch_work", "bulk_insert"])) $ do
    hPutStrLn stderr ("hs-bench: " ++ impl ++ " has no fetch-ahead / write-behind for " ++ workload ++ " (SQLBATCH_BENCH_AHEAD)")
    exitWith (ExitFailure 3)
  -- Issue 34: the key and the bulk file (the runner's -sqlcipher and +enc rows).
  enc <- readEnc
  when (encBulkFile enc /= Nothing
        && (impl `notElem` ["hs-sqlbatch-fold", "hs-sqlbatch-direct"]
            || workload `notElem` ["fetch_narrow", "fetch_narrow_1m", "fetch_wide", "fetch_work", "bulk_insert"])) $ do
    hPutStrLn stderr ("hs-bench: " ++ impl ++ " has no encrypted form of " ++ workload
                      ++ " (SQLBATCH_BENCH_KEY, SQLBATCH_BENCH_BULK_FILE)")
    exitWith (ExitFailure 3)
  when (encKey enc /= Nothing) $ do
    v <- cipherVersion
    when (v == Nothing) $ die' "SQLBATCH_BENCH_KEY: this hs-bench is not linked against the encrypted build"
  let aheadOpts = if ahead then [D.OpenFetchAhead, D.OpenWriteBehind] else []
      -- A connection of hs-sqlbatch-fold: with the key when there is one.
      openConn path opts = case encKey enc of
        Just k -> openEncryptedWith path opts k defaultCipher
        Nothing -> openWith path opts
  run <- setup enc openConn aheadOpts
  (do replicateM_ warmup (() <$ run)
      replicateM_ reps $ do
        (t, (n, s)) <- run
        printf "%d %d %d %d\n" (tookWall t) n s (tookCpu t)
        hFlush stdout)
    `finally` removeBulkFiles enc
  where
    sqlbatchImpl = impl `elem` ["hs-sqlbatch-fold", "hs-sqlbatch-query"]
    -- For instruction counts (valgrind) of the table's floors in this same harness.
    extraImpl = impl `elem` ["hs-native-c", "hs-direct"]
    mode = if impl == "hs-perrow-safe" then P.Safe else P.Unsafe
    unsupported = do
      hPutStrLn stderr ("hs-bench: workload " ++ workload ++ " not supported by " ++ impl)
      exitWith (ExitFailure 3)
    setup enc openConn aheadOpts
      | VTab.isVTab workload = do
          -- Virtual tables and lists (bench/VTab.hs): direct, fold, and in_list per row.
          r <- VTab.vtabSetup impl workload input
          maybe unsupported return r
      | Small.isSmall workload = do
          -- Issue 15's workloads (bench/Small.hs): fold, direct and per-row safe only.
          r <- Small.smallSetup impl workload input
          case r of
            Just act -> return act
            Nothing -> unsupported
      | impl == "hs-sqlbatch-direct" =
          -- direct-sqlite's API on batches (bench/SQLite3Loop.hs): the fetch workloads only
          if workload `elem` ["fetch_narrow", "fetch_narrow_1m", "fetch_wide", "fetch_work"]
            then do
              db <- maybe (L3.openDb input) (\k -> S3.openEncrypted (T.pack input) k defaultCipher) (encKey enc)
              let f = case workload of
                    "fetch_wide" -> L3.fetchWide
                    "fetch_work" -> L3.fetchWork
                    _ -> L3.fetchNarrow
              return (timed (f db))
            else unsupported
      | impl == "hs-sqlbatch-generic" =
          -- sqlite-simple's fold over Generic FromRow records: the fetch workloads of one query
          -- only (fetch_work reads raw cells, not a record of FromField values)
          if workload `elem` ["fetch_narrow", "fetch_narrow_1m", "fetch_wide"]
            then do
              c <- open input
              return (timed ((if workload == "fetch_wide" then sbGenericWide else sbGenericNarrow) c))
            else unsupported
      | impl `notElem` ["hs-sqlbatch-fold", "hs-sqlbatch-query", "hs-perrow-safe", "hs-perrow-unsafe"]
          && not extraImpl =
          die' ("unknown impl " ++ impl)
      | extraImpl && workload `elem` ["fetch_narrow", "fetch_narrow_1m", "fetch_wide"] = do
          let narrow = workload /= "fetch_wide"
          if impl == "hs-native-c"
            then do
              db <- nativeOpen input
              return (timed (native (if narrow then c_native_fetch_narrow else c_native_fetch_wide) db))
            else do
              Right db <- D.open (D.Utf8 (B8.pack input))
              let bufLen = 4 * 1024 * 1024
              buf <- mallocBytes bufLen
              return (timed (directFetch db buf bufLen (if narrow then narrowSql else wideSql)))
      | extraImpl = unsupported
      | workload `elem` ["udf_scalar", "udf_aggregate"] = do
          unless sqlbatchImpl (() <$ unsupported)
          let isFold = impl == "hs-sqlbatch-fold"
          c <- open input
          (fCalls, sqRows) <- udfSetup isFold c
          return $ if workload == "udf_scalar"
            then timed (udfRun isFold c fCalls "SELECT sum(f(x)) FROM udf")
            else timed (udfRun isFold c sqRows "SELECT sumsq(x) FROM udf")
      | workload == "fetch_work" =
          if sqlbatchImpl
            then do
              c <- openConn input aheadOpts
              return (timed ((if impl == "hs-sqlbatch-fold" then sbFoldWork else sbQueryWork) c))
            else do
              db <- P.openDb input
              return (timed (P.fetchWork mode db))
      | workload `elem` ["fetch_narrow", "fetch_narrow_1m", "fetch_wide"] = do
          let narrow = workload /= "fetch_wide"
          if sqlbatchImpl
            then do
              c <- openConn input aheadOpts
              let f = case (narrow, impl == "hs-sqlbatch-fold") of
                        (True, True) -> sbFoldNarrow
                        (True, False) -> sbQueryNarrow
                        (False, True) -> sbFoldWideText
                        (False, False) -> sbQueryWideText
              return (timed (f c))
            else do
              db <- P.openDb input
              return (timed (if narrow then P.fetchNarrow mode db else P.fetchWide mode P.AsText db))
      | workload `elem` ["exec_script", "exec_script_10k"] = do
          script <- B.readFile input
          let scriptText = TE.decodeUtf8 script
          _ <- evaluate (T.length scriptText)
          return $ if sqlbatchImpl
            then withConnection ":memory:" $ \c -> do
              execute_ c "CREATE TABLE script_t(a INTEGER, b TEXT)"
              performMajorGC
              t0 <- stamp
              executeScript c (Query scriptText)
              t1 <- tookSince t0
              [(n, s)] <- query_ c "SELECT count(*), sum(a) FROM script_t"
              return (t1, (n, s))
            else do
              db <- P.openDb ":memory:"
              P.execScript mode db "CREATE TABLE script_t(a INTEGER, b TEXT)"
              performMajorGC
              t0 <- stamp
              P.execScript mode db script
              t1 <- tookSince t0
              r <- P.scalar2 db "SELECT count(*), sum(a) FROM script_t"
              P.closeDb db
              return (t1, r)
      | workload == "bulk_insert" = do
          let n = read input :: Int64
              rows = [(i, fromIntegral i * 0.25, T.pack ("row-" ++ show i)) | i <- [0 .. n - 1]]
          _ <- evaluate (foldl' (\k (a, b, t) -> k + a + truncate b + fromIntegral (T.length t)) 0 rows)
          -- :memory:, or a fresh file (keyed when there is a key) with synchronous=OFF, so
          -- that the commit does not wait for the disk (the work measured is SQLite's, and
          -- SQLCipher's, on the pages); opened untimed, as the C and Go programs do.
          let bulkOpen = case encBulkFile enc of
                Nothing -> openWith ":memory:" aheadOpts
                Just p -> do
                  removeBulkFiles enc
                  c <- openConn p aheadOpts
                  execute_ c "PRAGMA synchronous=OFF"
                  return c
          return $ if sqlbatchImpl
            then bracket bulkOpen close $ \c -> do
              execute_ c "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)"
              performMajorGC
              t0 <- stamp
              withTransaction c $ executeMany c "INSERT INTO bulk VALUES (?, ?, ?)" rows
              t1 <- tookSince t0
              [(k, s)] <- query_ c "SELECT count(*), sum(a) + sum(length(c)) FROM bulk"
              return (t1, (k, s))
            else do
              db <- P.openDb ":memory:"
              P.execScript mode db "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)"
              performMajorGC
              t0 <- stamp
              P.bulkInsert mode db rows
              t1 <- tookSince t0
              r <- P.scalar2 db "SELECT count(*), sum(a) + sum(length(c)) FROM bulk"
              P.closeDb db
              return (t1, r)
      | otherwise = unsupported

------------------------------------------------------------------------------------------
-- Table mode (issue 4)

data Variant = Variant
  { vWorkload :: String, vName :: String, vRun :: IO (Int64, Int64) }

findWorkloads :: Maybe FilePath -> IO FilePath
findWorkloads (Just d) = return d
findWorkloads Nothing = do
  exe <- getExecutablePath
  let candidates = [takeDirectory exe </> ".." </> "workloads", "build/workloads", "../../build/workloads"]
  found <- filterM' (\d -> doesFileExist (d </> "fetch_wide.db")) candidates
  case found of
    (d : _) -> return d
    [] -> die' ("no workloads found (tried " ++ show candidates ++ "); run "
                ++ "`python3 benches/workloads/generate.py build/workloads` at the top of the repository")
  where
    filterM' p = fmap concat . mapM (\x -> p x >>= \b -> return [x | b])

table :: Maybe FilePath -> Maybe Int -> Maybe String -> IO ()
table wdir repsOpt only = do
  dir <- findWorkloads wdir
  let narrowDb = dir </> "fetch_narrow.db"
      wideDb = dir </> "fetch_wide.db"
  nNarrow <- nativeOpen narrowDb
  nWide <- nativeOpen wideDb
  cNarrow <- open narrowDb
  cWide <- open wideDb
  pNarrow <- P.openDb narrowDb
  pWide <- P.openDb wideDb
  Right dNarrow <- D.open (D.Utf8 (B8.pack narrowDb))
  Right dWide <- D.open (D.Utf8 (B8.pack wideDb))
  let bufLen = 4 * 1024 * 1024
  buf <- mallocBytes bufLen
  let narrow =
        [ Variant "fetch_narrow" "native C (sqlite3_step loop)" (native c_native_fetch_narrow nNarrow)
        , Variant "fetch_narrow" "(Direct layer, hand-written cell loop)" (directFetch dNarrow buf bufLen narrowSql)
        , Variant "fetch_narrow" "sqlbatch fold" (sbFoldNarrow cNarrow)
        , Variant "fetch_narrow" "sqlbatch query (list)" (sbQueryNarrow cNarrow)
        , Variant "fetch_narrow" "per-row, safe step (direct-sqlite)" (P.fetchNarrow P.Safe pNarrow)
        , Variant "fetch_narrow" "per-row, all unsafe" (P.fetchNarrow P.Unsafe pNarrow)
        ]
      wide =
        [ Variant "fetch_wide" "native C (sqlite3_step loop)" (native c_native_fetch_wide nWide)
        , Variant "fetch_wide" "sqlbatch fold, text as ByteString" (sbFoldWideBytes cWide)
        , Variant "fetch_wide" "sqlbatch fold, text as Text" (sbFoldWideText cWide)
        , Variant "fetch_wide" "sqlbatch query, text as ByteString" (sbQueryWideBytes cWide)
        , Variant "fetch_wide" "sqlbatch query, text as Text" (sbQueryWideText cWide)
        , Variant "fetch_wide" "(Direct layer, hand-written cell loop)" (directFetch dWide buf bufLen wideSql)
        , Variant "fetch_wide" "per-row safe, text as ByteString" (P.fetchWide P.Safe P.AsByteString pWide)
        , Variant "fetch_wide" "per-row safe, text as Text" (P.fetchWide P.Safe P.AsText pWide)
        , Variant "fetch_wide" "per-row unsafe, text as ByteString" (P.fetchWide P.Unsafe P.AsByteString pWide)
        , Variant "fetch_wide" "per-row unsafe, text as Text" (P.fetchWide P.Unsafe P.AsText pWide)
        ]
      repsNarrow = maybe 41 id repsOpt
      repsWide = maybe 9 id repsOpt
  caps <- getNumCapabilities
  sv <- sqliteVersion
  bv <- sqlbatchVersion
  printf "hs-bench: SQLite %s via sqlbatch %s; GHC -threaded, %d capabilit%s; each variant run\n"
    sv bv caps (if caps == 1 then "y" else "ies" :: String)
  printf "interleaved with the others (1 warm-up + %d runs narrow, 1 + %d wide), median time; a major GC\n"
    repsNarrow repsWide
  printf "runs untimed before every run. Ratio = rows/s over native C's rows/s (higher is better),\n"
  printf "from the medians (the issue's measure) and, less sensitive to a busy machine, from the minima.\n\n"
  rNarrow <- if only `elem` [Nothing, Just "fetch_narrow"] then measure narrow repsNarrow else return []
  rWide <- if only `elem` [Nothing, Just "fetch_wide"] then measure wide repsWide else return []
  let results = rNarrow ++ rWide
  printf "%-13s %-38s %10s %8s %12s %6s %9s\n" ("workload" :: String) ("variant" :: String)
    ("median ms" :: String) ("min ms" :: String) ("rows/s" :: String) ("vs C" :: String)
    ("(by min)" :: String)
  let nativeOf w = head [m | (v, m, _, _) <- results, vWorkload v == w, "native" `isPrefix` vName v]
      nativeMinOf w = head [m | (v, _, m, _) <- results, vWorkload v == w, "native" `isPrefix` vName v]
      isPrefix p s = take (length p) s == p
      rowsOf w = head [n | (v, _, _, (n, _)) <- results, vWorkload v == w]
  forM_ results $ \(v, m, mn, _) -> do
    let ratio = nativeOf (vWorkload v) / m
        rps = fromIntegral (rowsOf (vWorkload v)) / (m / 1e9) :: Double
    printf "%-13s %-38s %10.2f %8.2f %12s %6.2f %9.2f\n" (vWorkload v) (vName v) (m / 1e6) (mn / 1e6)
      (human rps) ratio (nativeMinOf (vWorkload v) / mn)
  -- checksums
  let bad = [ (vWorkload v, vName v, r) | (v, _, _, r) <- results
            , r /= head [r' | (v', _, _, r') <- results, vWorkload v' == vWorkload v] ]
  unless (null bad) $ do
    printf "\nCHECKSUM MISMATCH against native C: %s\n" (show bad)
  -- targets
  let ratioOf w name = nativeOf w / head [m | (v, m, _, _) <- results, vWorkload v == w, vName v == name]
      check :: String -> Double -> Double -> IO Bool
      check what x goal = do
        printf "  %-62s %5.2f  (target %.2f)  %s\n" what x goal (if x >= goal then "met" else "NOT MET" :: String)
        return (x >= goal)
  printf "\nIssue 4 targets (ratio to native C):\n"
  let present w = any (\(v, _, _, _) -> vWorkload v == w) results
  _ <- forM
    [ (w, what, name, goal)
    | (w, what, name, goal) <-
        [ ("fetch_narrow", "fetch_narrow: fold", "sqlbatch fold", 0.90)
        , ("fetch_narrow", "fetch_narrow: query into a list", "sqlbatch query (list)", 0.70)
        , ("fetch_wide", "fetch_wide: fold, text as ByteString", "sqlbatch fold, text as ByteString", 0.80)
        , ("fetch_wide", "fetch_wide: fold, text as Text", "sqlbatch fold, text as Text", 0.70)
        ]
    , present w
    ] (\(w, what, name, goal) -> check what (ratioOf w name) goal)
  let best w = maximum [nativeOf w / m | (v, m, _, _) <- results, vWorkload v == w, "per-row" `isPrefix` vName v]
  forM_ ["fetch_narrow", "fetch_wide"] $ \w -> when (present w) $
    printf "  %s: the per-row baselines reach at best %.2f of native C\n" w (best w)
  close cNarrow >> close cWide >> P.closeDb pNarrow >> P.closeDb pWide
  D.close dNarrow >> D.close dWide
  c_native_close nNarrow >> c_native_close nWide
  unless (null bad) exitFailure
  where
    human x
      | x >= 1e6 = printf "%.2fM" (x / 1e6) :: String
      | x >= 1e3 = printf "%.1fk" (x / 1e3)
      | otherwise = printf "%.0f" x

-- | Runs every variant once as warm-up, then @reps@ rounds of every variant in turn.
measure :: [Variant] -> Int -> IO [(Variant, Double, Double, (Int64, Int64))]
measure vs reps = do
  firsts <- forM vs $ \v -> snd <$> timed (vRun v)
  rounds <- forM [1 .. reps] $ \_ -> forM vs $ \v -> tookWall . fst <$> timed (vRun v)
  let perVariant = transpose rounds
  return [ (v, median ts, fromIntegral (minimum ts), r) | (v, ts, r) <- zip3 vs perVariant firsts ]

------------------------------------------------------------------------------------------

main :: IO ()
main = do
  args <- getArgs
  o <- parseOpts args
  case (oImpl o, oWorkload o, oInput o) of
    (Just i, Just w, Just p) -> protocol i w p (maybe 5 id (oReps o)) (oWarmup o)
    (Nothing, Nothing, Nothing) -> table (oWorkloads o) (oReps o) (oOnly o)
    _ -> die' "--impl, --workload and --input go together"
