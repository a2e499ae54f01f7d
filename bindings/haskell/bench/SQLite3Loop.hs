{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
-- | hs-sqlbatch-direct: the fetch workloads written as a direct-sqlite program would be,
-- against "Database.SQLite3" (direct-sqlite's API served from sqlbatch's batches): one
-- 'S3.step' per row and one @column*@ call per value, TEXT read as 'T.Text'.
module SQLite3Loop
  ( openDb
  , fetchNarrow
  , fetchWide
  , fetchWork
  ) where

import qualified Data.ByteString as B
import Data.Int (Int64)
import qualified Data.Text as T

import qualified Database.SQLite3 as S3

import Work

-- | Opens the workload's database.
openDb :: String -> IO S3.Database
openDb = S3.open . T.pack

-- | @SELECT id FROM testdata@: (count, sum of id).
fetchNarrow :: S3.Database -> IO (Int64, Int64)
fetchNarrow db = do
  st <- S3.prepare db "SELECT id FROM testdata"
  let go !n !acc = do
        r <- S3.step st
        case r of
          S3.Row -> do
            v <- S3.columnInt64 st 0
            go (n + 1) (acc + v)
          S3.Done -> return (n, acc)
  r <- go 0 0
  S3.finalize st
  return r

-- | fetch_wide with the checksum of benches/README.md (NULL 1, INTEGER its value, REAL
-- trunc(x * 1000), TEXT its code points, BLOB its length): (count, checksum).
fetchWide :: S3.Database -> IO (Int64, Int64)
fetchWide db = do
  st <- S3.prepare db "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"
  let cell :: S3.ColumnIndex -> IO Int64
      cell c = do
        t <- S3.columnType st c
        case t of
          S3.IntegerColumn -> S3.columnInt64 st c
          S3.FloatColumn -> do
            d <- S3.columnDouble st c
            return $! fromIntegral (truncate (d * 1000) :: Int)
          S3.TextColumn -> do
            x <- S3.columnText st c
            return $! fromIntegral (T.length x)
          S3.BlobColumn -> do
            b <- S3.columnBlob st c
            return $! fromIntegral (B.length b)
          S3.NullColumn -> return 1
      row !c !acc
        | c == 10 = return acc
        | otherwise = do
            v <- cell c
            row (c + 1) (acc + v)
      go !n !acc = do
        r <- S3.step st
        case r of
          S3.Row -> row 0 acc >>= go (n + 1)
          S3.Done -> return (n, acc)
  r <- go 0 0
  S3.finalize st
  return r

-- | fetch_work (benches/README.md): every cell folded into the FNV-1a hash ("Work"), TEXT
-- read as its bytes with 'S3.columnBlob' (what @sqlite3_column_blob@ gives for TEXT, as in
-- direct-sqlite; not decoded): (count, checksum).
fetchWork :: S3.Database -> IO (Int64, Int64)
fetchWork db = do
  st <- S3.prepare db "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"
  let cell :: Fnv -> S3.ColumnIndex -> IO Fnv
      cell !h c = do
        t <- S3.columnType st c
        case t of
          S3.IntegerColumn -> fnvInt64 h <$> S3.columnInt64 st c
          S3.FloatColumn -> fnvDouble h <$> S3.columnDouble st c
          S3.TextColumn -> fnvText h <$> S3.columnBlob st c
          S3.BlobColumn -> fnvBlob h <$> S3.columnBlob st c
          S3.NullColumn -> return $! fnvNull h
      row !c !h
        | c == 10 = return h
        | otherwise = cell h c >>= row (c + 1)
      go !n !h = do
        r <- S3.step st
        case r of
          S3.Row -> row 0 h >>= go (n + 1)
          S3.Done -> return (n, fnvChecksum h)
  r <- go 0 fnvOffset
  S3.finalize st
  return r
