{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | The virtual-table workloads (benches/README.md, "Virtual tables and lists"): vtab_scan,
-- tvf_join and in_list, as a user of each Haskell API writes them ("Database.SQLBatch.VTab").
--
-- * hs-sqlbatch-direct ("Database.SQLite3", direct-sqlite's face, with
--   'createModule' on its @Database@): vtab_scan's module (eponymous only) hands over, a fill
--   at a time, rows laid out before the clock starts in one 'TableValue' ('writeTable': its
--   cells are what crosses into C, as c-sqlbatch's precomputed cells and go-sqlbatch's
--   @AppendRows@ do), the query by 'S3.prepare' / 'S3.step' / 'S3.finalize'; tvf_join's
--   @pairs@ is a module whose 'moduleBestIndex' takes the hidden column's EQ constraint as
--   the argument and whose fill writes up to 256 rows with 'writeInt64' and 'endRow'; in_list
--   binds the 100 ids with 'bindTable' of a 'tableColumn' on a statement prepared once, then
--   'S3.step', two 'S3.columnInt64', 'S3.reset'.
-- * hs-sqlbatch-fold ("Database.SQLBatch", sqlite-simple's face): vtab_scan's fill writes
--   each value ('writeInt64', 'writeDouble', 'writeUtf8' of c from the 1,000 distinct texts
--   made before the clock starts, 'writeNull', 'endRow'), the query by 'fold_'; tvf_join's
--   @pairs@ is 'createTableFunction' of a lazy list of @(k, w)@ tuples; in_list binds
--   @'Only' ('InList' ids)@ on a kept 'Statement' ('bind', 'nextRow', 'reset').
-- * hs-perrow-safe: in_list as direct-sqlite users write an IN list today: @IN (?, ?, ...,
--   ?)@ with 100 placeholders, prepared once, and per query 100 unsafe @sqlite3_bind_int64@,
--   a safe @sqlite3_step@, two unsafe @sqlite3_column_int64@ and an unsafe @sqlite3_reset@.
--   direct-sqlite has no virtual tables: vtab_scan and tvf_join are n/a.
module VTab
  ( isVTab
  , vtabSetup
  ) where

import Control.Exception (evaluate)
import Control.Monad (forM_, unless, when)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import Data.Int (Int64)
import Data.IORef
import qualified Data.Text as T
import Foreign.C.String (CString, withCString)
import Foreign.C.Types (CInt (..))
import Foreign.Marshal.Alloc (alloca)
import Foreign.Ptr (FunPtr, Ptr, nullFunPtr, nullPtr)
import Foreign.Storable (peek)
import GHC.Arr (Array, listArray, unsafeAt)
import System.Exit (exitFailure)
import System.IO (hPutStrLn, stderr)
import System.Mem (performMajorGC)

import Database.SQLBatch
import Database.SQLBatch.VTab
import qualified Database.SQLite3 as S3
import Work (Took, stamp, tookSince)

-- | The three workloads.
isVTab :: String -> Bool
isVTab w = w `elem` ["vtab_scan", "tvf_join", "in_list"]

-- | The untimed set-up of a workload for an implementation; the action it returns runs one
-- repetition: (its wall and CPU time, (count, checksum)). 'Nothing' where the implementation
-- does not have it.
vtabSetup :: String -> String -> String -> IO (Maybe (IO (Took, (Int64, Int64))))
vtabSetup impl workload input = case (impl, workload) of
  ("hs-sqlbatch-direct", "vtab_scan") -> Just <$> directScan (read input)
  ("hs-sqlbatch-direct", "tvf_join") -> Just <$> directPairs input
  ("hs-sqlbatch-direct", "in_list") -> Just <$> directInList input
  ("hs-sqlbatch-fold", "vtab_scan") -> Just <$> foldScan (read input)
  ("hs-sqlbatch-fold", "tvf_join") -> Just <$> foldPairs input
  ("hs-sqlbatch-fold", "in_list") -> Just <$> foldInList input
  ("hs-perrow-safe", "in_list") -> Just <$> perRowInList input
  _ -> return Nothing

-- | Runs the timed part between an untimed major GC and the clock (wall and CPU time).
clock :: IO a -> IO (Took, a)
clock act = do
  performMajorGC
  t0 <- stamp
  r <- act >>= evaluate
  t1 <- tookSince t0
  return (t1, r)

die' :: String -> IO a
die' msg = hPutStrLn stderr ("hs-bench: " ++ msg) >> exitFailure

------------------------------------------------------------------------------------------
-- vtab_scan

scanSql :: T.Text -> T.Text
scanSql v = "SELECT count(*), sum(a) + sum(length(c)) FROM " <> v

-- | Row i's c: "v" and i % 1000 in decimal.
cText :: Int64 -> B.ByteString
cText i = B8.pack ('v' : show (i `mod` 1000))

-- | Row i of the table.
scanRow :: Int64 -> [SQLData]
scanRow i =
  [ SQLInteger i, SQLFloat (fromIntegral i * 0.5), SQLText (T.pack ('v' : show (i `mod` 1000)))
  , if i `mod` 7 == 0 then SQLNull else SQLInteger (i `mod` 100) ]

scanSchema :: T.Text
scanSchema = "CREATE TABLE x(a INTEGER, b REAL, c TEXT, d INTEGER)"

-- | The library's batch, as c-sqlbatch's and go-sqlbatch's modules ask for.
batchRows :: Int
batchRows = 256

-- | A cursor's position: the next row.
type Pos = IORef Int64

-- | hs-sqlbatch-direct: the rows laid out before the clock, handed over a slice a fill.
directScan :: Int64 -> IO (IO (Took, (Int64, Int64)))
directScan n = do
  let tv = tableFromValues (Just 4) (map scanRow [0 .. n - 1])
  _ <- evaluate (tableRowCount tv)
  db <- S3.open ":memory:"
  createModule db "hvtab" (ModuleOptions EponymousOnly batchRows)
    (newModule (\_ -> return (scanSchema, ())) (\_ -> newIORef 0) (\pos _ -> writeIORef pos 0)
      (\pos w -> do
         i <- readIORef pos
         mx <- writerMax w
         let k = min (fromIntegral mx) (n - i)
         writeTable w tv (fromIntegral i) (fromIntegral k)
         writeIORef pos (i + k)
         return (i + k >= n)) :: Module () Pos)
  return $ clock $ do
    (cnt, s) <- s3Pair db (scanSql "hvtab")
    return (cnt, cnt + s)

-- | hs-sqlbatch-fold: each value written in the fill.
foldScan :: Int64 -> IO (IO (Took, (Int64, Int64)))
foldScan n = do
  let texts = listArray (0, 999) (map cText [0 .. 999]) :: Array Int B.ByteString
  forM_ [0 .. 999] $ \i -> evaluate (texts `unsafeAt` i)
  c <- open ":memory:"
  createModule c "hvtab" (ModuleOptions EponymousOnly batchRows)
    (newModule (\_ -> return (scanSchema, ())) (\_ -> newIORef 0) (\pos _ -> writeIORef pos 0)
      (\pos w -> do
         i0 <- readIORef pos
         mx <- writerMax w
         let end = min n (i0 + fromIntegral mx)
             go !i
               | i >= end = return ()
               | otherwise = do
                   writeInt64 w i
                   writeDouble w (fromIntegral i * 0.5)
                   writeUtf8 w (texts `unsafeAt` fromIntegral (i `mod` 1000))
                   if i `mod` 7 == 0 then writeNull w else writeInt64 w (i `mod` 100)
                   endRow w
                   go (i + 1)
         go i0
         writeIORef pos end
         return (end >= n)) :: Module () Pos)
  return $ clock $ do
    r <- fold_ c (Query (scanSql "hvtab")) Nothing (\_ (cnt, s) -> return $! Just (cnt, s))
    case r of
      Just (cnt, s) -> return (cnt, cnt + s :: Int64)
      Nothing -> die' "vtab_scan: no row"

-- | One row of two integers through "Database.SQLite3": prepare, step, finalize (timed, as
-- c-sqlbatch's prepare, fetch and finalize are).
s3Pair :: S3.Database -> T.Text -> IO (Int64, Int64)
s3Pair db sql = do
  st <- S3.prepare db sql
  r <- S3.step st
  unless (r == S3.Row) $ die' ("no row: " ++ T.unpack sql)
  a <- S3.columnInt64 st 0
  b <- S3.columnInt64 st 1
  S3.finalize st
  return (a, b)

------------------------------------------------------------------------------------------
-- tvf_join

pairsSql :: T.Text -> T.Text
pairsSql f = "SELECT count(*), sum(i.qty * p.w) FROM " <> f <> "(100000) AS p JOIN items AS i ON i.id = p.k"

pairKey, pairWeight :: Int64 -> Int64
pairKey j = (j * 7919) `mod` 100000 + 1
pairWeight j = j `mod` 10

-- | hs-sqlbatch-direct: a module of the ABI's shape (a plan taking the hidden column's EQ
-- constraint, a fill writing up to a batch of rows).
directPairs :: FilePath -> IO (IO (Took, (Int64, Int64)))
directPairs path = do
  db <- S3.open (T.pack path)
  S3.exec db "PRAGMA synchronous=NORMAL"
  let plan _ info =
        case [ (i, c) | (i, c) <- zip [0 ..] (indexConstraints info), constraintColumn c == 2
             , constraintOp c == OpEQ ] of
          (i, c) : _
            | constraintUsable c -> return (Just (useConstraint i True fullScan)
                                                    { planIdxNum = 1, planEstimatedCost = 1e5 })
            | otherwise -> return Nothing
          [] -> return (Just fullScan { planEstimatedCost = 1e12 })
  createModule db "hpairs" (ModuleOptions EponymousOnly batchRows)
    ((newModule (\_ -> return ("CREATE TABLE x(k INTEGER, w INTEGER, n HIDDEN)", ()))
       (\_ -> (,) <$> newIORef 0 <*> newIORef 0)
       (\(pos, lim) fa -> do
          writeIORef pos 0
          writeIORef lim $ case (filterIdxNum fa, filterArgs fa) of
            (1, [ArgValue (SQLInteger m)]) -> m
            _ -> 0)
       (\(pos, lim) w -> do
          j0 <- readIORef pos
          m <- readIORef lim
          mx <- writerMax w
          let end = min m (j0 + fromIntegral mx)
              go !j
                | j >= end = return ()
                | otherwise = writeInt64 w (pairKey j) >> writeInt64 w (pairWeight j) >> endRow w >> go (j + 1)
          go j0
          writeIORef pos end
          return (end >= m))) { moduleBestIndex = Just plan } :: Module () (IORef Int64, IORef Int64))
  return $ clock $ do
    (cnt, s) <- s3Pair db (pairsSql "hpairs")
    return (cnt, cnt + s)

-- | hs-sqlbatch-fold: a table-valued function of a lazy list.
foldPairs :: FilePath -> IO (IO (Took, (Int64, Int64)))
foldPairs path = do
  c <- open path
  executeScript c "PRAGMA synchronous=NORMAL"
  createTableFunction c "hpairs" ["k INTEGER", "w INTEGER"] ["n"] $ \args -> return $ case args of
    [SQLInteger m] -> [(pairKey j, pairWeight j) | j <- [0 .. m - 1]]
    _ -> []
  return $ clock $ do
    r <- fold_ c (Query (pairsSql "hpairs")) Nothing (\_ (cnt, s) -> return $! Just (cnt, s))
    case r of
      Just (cnt, s) -> return (cnt, cnt + s :: Int64)
      Nothing -> die' "tvf_join: no row"

------------------------------------------------------------------------------------------
-- in_list

inListQueries, inListIds :: Int64
inListQueries = 20000
inListIds = 100

inListSql :: T.Text -> T.Text
inListSql list = "SELECT count(*), coalesce(sum(qty), 0) FROM items WHERE id IN " <> list

-- | Query q's ids.
idsOf :: Int64 -> [Int64]
idsOf q = [((q * inListIds + j) * 7919) `mod` 100000 + 1 | j <- [0 .. inListIds - 1]]
{-# INLINE idsOf #-}

directInList :: FilePath -> IO (IO (Took, (Int64, Int64)))
directInList path = do
  db <- S3.open (T.pack path)
  S3.exec db "PRAGMA synchronous=NORMAL"
  st <- S3.prepare db (inListSql "sqlbatch_rows(?)")
  return $ clock $ do
    let go !q !s
          | q == inListQueries = return (inListQueries, s)
          | otherwise = do
              bindTable st 1 (tableColumn (idsOf q))
              r <- S3.step st
              unless (r == S3.Row) $ die' "in_list: no row"
              a <- S3.columnInt64 st 0
              b <- S3.columnInt64 st 1
              S3.reset st
              go (q + 1) (s + a + b)
    go 0 0

foldInList :: FilePath -> IO (IO (Took, (Int64, Int64)))
foldInList path = do
  c <- open path
  executeScript c "PRAGMA synchronous=NORMAL"
  st <- openStatement c (Query (inListSql "sqlbatch_rows(?)"))
  return $ clock $ do
    let go !q !s
          | q == inListQueries = return (inListQueries, s)
          | otherwise = do
              bind st (Only (InList (idsOf q)))
              r <- nextRow st
              reset st
              case r of
                Just (a, b) -> go (q + 1) (s + a + b)
                Nothing -> die' "in_list: no row"
    go 0 0

------------------------------------------------------------------------------------------
-- in_list per row: the placeholders direct-sqlite's users write

data CDb
data CStmt

foreign import ccall safe "sqlite3_open_v2"
  c_open :: CString -> Ptr (Ptr CDb) -> CInt -> CString -> IO CInt
foreign import ccall safe "sqlite3_prepare_v2"
  c_prepare :: Ptr CDb -> CString -> CInt -> Ptr (Ptr CStmt) -> Ptr CString -> IO CInt
foreign import ccall safe "sqlite3_exec"
  c_exec :: Ptr CDb -> CString -> FunPtr () -> Ptr () -> Ptr CString -> IO CInt
foreign import ccall unsafe "sqlite3_bind_int64"
  c_bind_int64 :: Ptr CStmt -> CInt -> Int64 -> IO CInt
foreign import ccall safe "sqlite3_step"
  c_step :: Ptr CStmt -> IO CInt
foreign import ccall unsafe "sqlite3_column_int64"
  c_column_int64 :: Ptr CStmt -> CInt -> IO Int64
foreign import ccall unsafe "sqlite3_reset"
  c_reset :: Ptr CStmt -> IO CInt

perRowInList :: FilePath -> IO (IO (Took, (Int64, Int64)))
perRowInList path = do
  -- SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, as PerRow opens.
  db <- withCString path $ \p -> alloca $ \out -> do
    rc <- c_open p out 0x8006 nullPtr
    when (rc /= 0) $ die' ("open " ++ path)
    peek out
  rc0 <- withCString "PRAGMA synchronous=NORMAL" $ \p -> c_exec db p nullFunPtr nullPtr nullPtr
  when (rc0 /= 0) $ die' "synchronous"
  let marks = T.intercalate ", " (replicate (fromIntegral inListIds) "?")
  st <- withCString (T.unpack (inListSql ("(" <> marks <> ")"))) $ \p -> alloca $ \out -> do
    rc <- c_prepare db p (-1) out nullPtr
    when (rc /= 0) $ die' "prepare"
    peek out
  return $ clock $ do
    let go !q !s
          | q == inListQueries = return (inListQueries, s)
          | otherwise = do
              let bindAll !j [] = return j
                  bindAll j (x : xs) = c_bind_int64 st j x >> bindAll (j + 1) xs
              _ <- bindAll 1 (idsOf q)
              r <- c_step st
              when (r /= 100) $ die' ("in_list: step " ++ show r)
              a <- c_column_int64 st 0
              b <- c_column_int64 st 1
              _ <- c_reset st
              go (q + 1) (s + a + b)
    go 0 0
