{-# LANGUAGE BangPatterns #-}
-- | What every Haskell implementation of the runner shares for fetch_work
-- (benches/README.md): the 64-bit FNV-1a hash, kept across the whole repetition and folded
-- over every cell in column order: one byte, the cell's SQLite type code (1 INTEGER, 2 FLOAT,
-- 3 TEXT, 4 BLOB, 5 NULL), then an INTEGER's 8 bytes little-endian, a FLOAT's IEEE-754 bits
-- the same way, a TEXT's UTF-8 bytes (a 'B.ByteString', not decoded), a BLOB's bytes, nothing
-- for NULL. The checksum is the final hash as a wrapping 'Int64' ('fnvChecksum').
module Work
  ( Fnv
  , fnvOffset
  , fnvInt64
  , fnvDouble
  , fnvText
  , fnvBlob
  , fnvNull
  , fnvChecksum
    -- * Timing
  , Took (..)
  , Stamp
  , stamp
  , tookSince
  ) where

import Data.Bits (shiftR, xor, (.&.))
import qualified Data.ByteString as B
import Data.Int (Int64)
import Data.Word (Word64, Word8)
import GHC.Clock (getMonotonicTimeNSec)
import GHC.Float (castDoubleToWord64)
import System.CPUTime (getCPUTime)

-- | The running hash.
type Fnv = Word64

-- | FNV-1a's 64-bit offset basis: the hash of no cell.
fnvOffset :: Fnv
fnvOffset = 14695981039346656037

fnvPrime :: Word64
fnvPrime = 1099511628211

fnvByte :: Fnv -> Word8 -> Fnv
fnvByte h b = (h `xor` fromIntegral b) * fnvPrime
{-# INLINE fnvByte #-}

-- | Eight bytes, little-endian.
fnvWord64 :: Fnv -> Word64 -> Fnv
fnvWord64 h0 v = go (0 :: Int) h0
  where
    go !i !h
      | i == 8 = h
      | otherwise = go (i + 1) ((h `xor` ((v `shiftR` (8 * i)) .&. 0xff)) * fnvPrime)
{-# INLINE fnvWord64 #-}

fnvBytes :: Fnv -> B.ByteString -> Fnv
fnvBytes = B.foldl' fnvByte
{-# INLINE fnvBytes #-}

-- | An INTEGER cell.
fnvInt64 :: Fnv -> Int64 -> Fnv
fnvInt64 h v = fnvWord64 (fnvByte h 1) (fromIntegral v)
{-# INLINE fnvInt64 #-}

-- | A FLOAT cell.
fnvDouble :: Fnv -> Double -> Fnv
fnvDouble h d = fnvWord64 (fnvByte h 2) (castDoubleToWord64 d)
{-# INLINE fnvDouble #-}

-- | A TEXT cell, given its UTF-8 bytes.
fnvText :: Fnv -> B.ByteString -> Fnv
fnvText h = fnvBytes (fnvByte h 3)
{-# INLINE fnvText #-}

-- | A BLOB cell.
fnvBlob :: Fnv -> B.ByteString -> Fnv
fnvBlob h = fnvBytes (fnvByte h 4)
{-# INLINE fnvBlob #-}

-- | A NULL cell.
fnvNull :: Fnv -> Fnv
fnvNull h = fnvByte h 5
{-# INLINE fnvNull #-}

-- | fetch_work's checksum: the hash as a wrapping 'Int64'.
fnvChecksum :: Fnv -> Int64
fnvChecksum = fromIntegral

-- | The wall time and the process's CPU time (user + sys, all threads: the RTS's and a
-- library worker thread's too; 'getCPUTime', CLOCK_PROCESS_CPUTIME_ID) of a timed part, in
-- nanoseconds: what every repetition reports (benches/README.md, the protocol).
data Took = Took { tookWall :: !Word64, tookCpu :: !Word64 }

-- | The start of a timed part.
data Stamp = Stamp !Word64 !Integer

-- | Now.
stamp :: IO Stamp
stamp = do
  cpu <- getCPUTime
  wall <- getMonotonicTimeNSec
  return (Stamp wall cpu)

-- | The time since a 'stamp'.
tookSince :: Stamp -> IO Took
tookSince (Stamp w0 c0) = do
  w1 <- getMonotonicTimeNSec
  c1 <- getCPUTime
  return (Took (w1 - w0) (fromIntegral ((c1 - c0) `div` 1000)))
