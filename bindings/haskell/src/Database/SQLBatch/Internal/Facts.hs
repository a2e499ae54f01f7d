{-# LANGUAGE MagicHash #-}
{-# LANGUAGE UnboxedTuples #-}
-- |
-- Module      : Database.SQLBatch.Internal.Facts
-- Description : A statement's small numbers, learnt once and kept, in one mutable array
--
-- What a statement learns of the library on first use and keeps (its parameter count,
-- whether it writes, the text encoding of its run, the columns of its last batch, whether
-- it fetches ahead) and its handle: one machine word each, in one mutable byte array. One
-- array costs its statement one allocation where an 'Data.IORef.IORef' a number would
-- cost five, and it boxes no number when written. Each word is read and written whole, by plain loads and
-- stores, as an 'Data.IORef.IORef' is; the callers say which ones they write with the
-- connection's lock held.
module Database.SQLBatch.Internal.Facts
  ( Facts
  , Fact
  , newFacts
  , readFact
  , writeFact
  , factParamCount
  , factWrites
  , factEncoding
  , factSnapCols
  , factAhead
  , readHandle
  , writeHandle
  ) where

import GHC.Exts
  ( Int (I#)
  , MutableByteArray#
  , Ptr (..)
  , RealWorld
  , newByteArray#
  , readAddrArray#
  , readIntArray#
  , writeAddrArray#
  , writeIntArray#
  )
import GHC.IO (IO (..))

-- | A statement's facts.
data Facts = Facts (MutableByteArray# RealWorld)

-- | Which fact: its word's index.
newtype Fact = Fact Int

-- | The parameter count, asked of the library once; -1 until then.
factParamCount :: Fact
factParamCount = Fact 0

-- | Whether the statement writes (1) or only reads (0); -1 until asked.
factWrites :: Fact
factWrites = Fact 1

-- | The @SQLBATCH_CONVERT_UTF16*@ flag of the connection's text encoding (0 for UTF-8),
-- asked of the library when a BLOB is first read as a number in a run; -1 until then (a
-- run starts at -1: a database takes its encoding when its first table is made).
factEncoding :: Fact
factEncoding = Fact 2

-- | The columns of the last batch fetched (-1 before the first), the room a snapshot's
-- cells are given.
factSnapCols :: Fact
factSnapCols = Fact 3

-- | Whether the statement fetches ahead (1) or not (0).
factAhead :: Fact
factAhead = Fact 4

-- | The word after the facts (index 5): the statement's handle ('readHandle').
handleIndex :: Int
handleIndex = 5

-- | A statement's facts before it learns any, with its handle: every one -1 but
-- 'factAhead', given.
newFacts :: Bool -> Ptr a -> IO Facts
newFacts ahead (Ptr h) = IO $ \s -> case newByteArray# 48# s of
  (# s1, a #) -> case writeIntArray# a 0# -1# s1 of
    s2 -> case writeIntArray# a 1# -1# s2 of
      s3 -> case writeIntArray# a 2# -1# s3 of
        s4 -> case writeIntArray# a 3# -1# s4 of
          s5 -> case writeIntArray# a 4# (if ahead then 1# else 0#) s5 of
            s6 -> case handleIndex of
              I# hi -> case writeAddrArray# a hi h s6 of
                s7 -> (# s7, Facts a #)

-- | The statement's handle, or the null pointer once it is finalized: one load, no
-- evaluation (where a reference's value would be tested for a thunk first).
readHandle :: Facts -> IO (Ptr a)
readHandle (Facts a) = IO $ \s -> case handleIndex of
  I# i -> case readAddrArray# a i s of
    (# s1, x #) -> (# s1, Ptr x #)
{-# INLINE readHandle #-}

-- | Sets the statement's handle (the null pointer when it is finalized, with the
-- connection's lock held). A plain store: no write barrier (the array holds no pointers
-- to the heap).
writeHandle :: Facts -> Ptr a -> IO ()
writeHandle (Facts a) (Ptr x) = IO $ \s -> case handleIndex of
  I# i -> (# writeAddrArray# a i x s, () #)
{-# INLINE writeHandle #-}

-- | A fact's value.
readFact :: Facts -> Fact -> IO Int
readFact (Facts a) (Fact (I# i)) = IO $ \s -> case readIntArray# a i s of
  (# s1, x #) -> (# s1, I# x #)
{-# INLINE readFact #-}

-- | Sets a fact.
writeFact :: Facts -> Fact -> Int -> IO ()
writeFact (Facts a) (Fact (I# i)) (I# x) = IO $ \s -> (# writeIntArray# a i x s, () #)
{-# INLINE writeFact #-}
