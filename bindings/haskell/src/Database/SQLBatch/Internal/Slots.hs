{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE UnboxedTuples #-}
-- |
-- Module      : Database.SQLBatch.Internal.Slots
-- Description : The values a statement's parameters hold for its next run
--
-- direct-sqlite binds one parameter at a time, and the library takes all of a statement's
-- values in one call at the start of its next run. In between they live here: one slot a
-- parameter (a parameter never bound holds NULL), written without the connection's lock,
-- and two counts that tell whether the library has them all: the binds made and, of those,
-- the ones the library had when the values were last sent.
--
-- A bind writes its slot, then counts itself (atomically). The run that sends the values
-- reads the count first, then the slots, and records that count as sent: a bind that comes
-- meanwhile, on another thread, is either in what was sent or counted after the count that
-- was read, so that the next run sends the values again. No bind is lost, and none is
-- waited for.
module Database.SQLBatch.Internal.Slots
  ( Slots
  , newSlots
  , slotCount
  , recordSlot
  , setSlot
  , readSlot
  , bindsMade
  , countBind
  , unsent
  , markSent
  ) where

import GHC.Exts
  ( Int (I#)
  , SmallMutableArray#
  , MutableByteArray#
  , RealWorld
  , atomicReadIntArray#
  , fetchAddIntArray#
  , newSmallArray#
  , newByteArray#
  , readSmallArray#
  , readIntArray#
  , sizeofSmallMutableArray#
  , writeSmallArray#
  , writeIntArray#
  , (-#)
  )
import GHC.IO (IO (..))

import Database.SQLBatch.Direct (Value (VNull))

-- | The values of parameters @1 .. slotCount@, and the two counts (binds made, binds sent).
data Slots = Slots (SmallMutableArray# RealWorld Value) (MutableByteArray# RealWorld)

-- | @n@ slots holding NULL, nothing to send.
newSlots :: Int -> IO Slots
newSlots (I# n) = IO $ \s -> case newSmallArray# n VNull s of
  (# s1, arr #) -> case newByteArray# 16# s1 of
    (# s2, counts #) -> case writeIntArray# counts 0# 0# s2 of
      s3 -> case writeIntArray# counts 1# 0# s3 of
        s4 -> (# s4, Slots arr counts #)

-- | The number of parameters.
slotCount :: Slots -> Int
slotCount (Slots arr _) = I# (sizeofSmallMutableArray# arr)
{-# INLINE slotCount #-}

-- | direct-sqlite's bind of parameter @i@ (@1 <= i <= 'slotCount'@, unchecked): the value
-- (to weak head normal form) in its slot, then the bind counted. Without the lock.
recordSlot :: Slots -> Int -> Value -> IO ()
recordSlot (Slots arr counts) (I# i) !v = IO $ \s -> case writeSmallArray# arr (i -# 1#) v s of
  s1 -> case fetchAddIntArray# counts 0# 1# s1 of
    (# s2, _ #) -> (# s2, () #)
{-# INLINE recordSlot #-}

-- | A value the library is given otherwise (a bind of all parameters at once): the slot
-- written, not counted, the value as it is (a thunk is evaluated when the slot is read).
-- Wrap the writes in 'bindsMade' before and 'markSent' after.
setSlot :: Slots -> Int -> Value -> IO ()
setSlot (Slots arr _) (I# i) v = IO $ \s -> (# writeSmallArray# arr (i -# 1#) v s, () #)
{-# INLINE setSlot #-}

-- | The value of parameter @i@ (@1 <= i <= 'slotCount'@, unchecked).
readSlot :: Slots -> Int -> IO Value
readSlot (Slots arr _) (I# i) = IO $ \s -> readSmallArray# arr (i -# 1#) s
{-# INLINE readSlot #-}

-- | The binds made so far (read before the slots that are sent with it).
bindsMade :: Slots -> IO Int
bindsMade (Slots _ counts) = IO $ \s -> case atomicReadIntArray# counts 0# s of
  (# s1, n #) -> (# s1, I# n #)
{-# INLINE bindsMade #-}

-- | Counts a bind (of values written by 'setSlot' that the library does not have).
countBind :: Slots -> IO ()
countBind (Slots _ counts) = IO $ \s -> case fetchAddIntArray# counts 0# 1# s of
  (# s1, _ #) -> (# s1, () #)

-- | Whether binds were made that the library does not have.
unsent :: Slots -> IO Bool
unsent sl@(Slots _ counts) = do
  made <- bindsMade sl
  IO $ \s -> case readIntArray# counts 1# s of
    (# s1, sent #) -> (# s1, I# sent /= made #)
{-# INLINE unsent #-}

-- | Records that the library has the values of the first @made@ binds ('bindsMade' read
-- before the values were sent or written). With the connection's lock held.
markSent :: Slots -> Int -> IO ()
markSent (Slots _ counts) (I# made) = IO $ \s -> (# writeIntArray# counts 1# made s, () #)
{-# INLINE markSent #-}
