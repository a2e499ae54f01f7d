{-# LANGUAGE CPP #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE UnboxedTuples #-}
-- |
-- Module      : Database.SQLBatch.Internal.Text
-- Description : Text to and from the UTF-8 of the ABI, for text-1 (UTF-16) and text-2 (UTF-8)
--
-- Everything in the package that depends on how "Data.Text" stores a 'Text': the ABI's
-- TEXT values are UTF-8, and a 'Text' is UTF-16 inside in text-1 and UTF-8 in text-2.
--
-- * text-1: a parameter is encoded straight from the array of its 'Text' into the
--   parameter buffer, and a TEXT value decoded straight from the batch into the array of a
--   'Text', by one unsafe C call each (@hs_sqlbatch_utf16_to_utf8@ and
--   @hs_sqlbatch_utf8_to_utf16@ in @cbits/hs_sqlbatch.c@); decoded values share a
--   'TextChunk' the way Data.Text's own builder shares its buffers.
-- * text-2: the bytes are the same on both sides, so a parameter is a copy of the bytes of
--   its 'Text' ("Data.Text.Foreign"), and a TEXT value is validated and copied by
--   'Data.Text.Encoding.decodeUtf8''; no chunks.
module Database.SQLBatch.Internal.Text
  ( utf8Bound
  , pokeUtf8
  , TextChunk
  , newTextChunk
  , decodeUtf8Chunked
  , decodeUtf8Fresh
  ) where

import Data.IORef (IORef)
import Data.Text (Text)
import qualified Data.Text as T
import Data.Word (Word8)
import Foreign.Ptr (Ptr)

#if MIN_VERSION_text(2,0,0)
import qualified Data.ByteString.Unsafe as BU
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Foreign as TF
import Foreign.Ptr (castPtr)
#else
import Control.Monad (when)
import Data.IORef (readIORef, writeIORef)
import qualified Data.Text.Array as TA
import qualified Data.Text.Internal as TI
import Foreign.Ptr (nullPtr)
import Foreign.Storable (peekByteOff, pokeByteOff)
import GHC.Exts (ByteArray#, Int (..), Int#, MutableByteArray#, RealWorld, newByteArray#,
                 shrinkMutableByteArray#, unsafeFreezeByteArray#, (*#))
import GHC.IO (IO (..))

import Database.SQLBatch.Raw (c_hs_sqlbatch_utf16_to_utf8, c_hs_sqlbatch_utf8_to_utf16)
#endif

-- | An upper bound of the bytes 'pokeUtf8' writes for this 'Text'.
utf8Bound :: Text -> Int
-- | @pokeUtf8 dst t@ writes the UTF-8 of @t@ at @dst@ (room for 'utf8Bound' bytes) and
-- returns the bytes written.
pokeUtf8 :: Ptr Word8 -> Text -> IO Int
-- | Decodes @len@ bytes of UTF-8 at an address into a 'Text' that shares the text chunk in
-- the 'IORef' (the units used of it at the 'Ptr' 'Int'), or runs the last action if the
-- bytes are not valid UTF-8. The bytes are read during the call only.
decodeUtf8Chunked :: Ptr Int -> IORef TextChunk -> Ptr Word8 -> Int -> IO Text -> IO Text
-- | Decodes @len@ bytes of UTF-8 at an address into a 'Text' of its own, or runs the last
-- action if they are not valid UTF-8. The bytes are read during the call only.
decodeUtf8Fresh :: Ptr Word8 -> Int -> IO Text -> IO Text

#if MIN_VERSION_text(2,0,0)

utf8Bound = TF.lengthWord8
{-# INLINE utf8Bound #-}

pokeUtf8 dst t = TF.unsafeCopyToPtr t dst >> return (TF.lengthWord8 t)
{-# INLINE pokeUtf8 #-}

-- | Nothing with text-2: every decoded 'Text' has its own array.
data TextChunk = TextChunk

-- | The placeholder (the size is ignored).
newTextChunk :: Int -> IO TextChunk
newTextChunk _ = return TextChunk

decodeUtf8Chunked _ _ = decodeUtf8Fresh
{-# INLINE decodeUtf8Chunked #-}

decodeUtf8Fresh src len onBad
  | len == 0 = return T.empty
  | otherwise = do
      b <- BU.unsafePackCStringLen (castPtr src, len)
      -- Matched here, while the bytes are valid: the 'Text' is a copy of them.
      case TE.decodeUtf8' b of
        Right t -> return t
        Left _ -> onBad

#else

utf8Bound (TI.Text _ _ n) = 3 * n
{-# INLINE utf8Bound #-}

pokeUtf8 dst (TI.Text (TA.Array ba) off n) =
  fromIntegral <$> c_hs_sqlbatch_utf16_to_utf8 dst ba (fromIntegral off) (fromIntegral n)
{-# INLINE pokeUtf8 #-}

-- | A chunk of UTF-16 memory that 'Text' values are decoded into, one after another; each
-- 'Text' is a slice of it (the way Data.Text's own builder shares its buffers). Chunks are
-- large objects, so the garbage collector never copies them.
data TextChunk = TextChunk (MutableByteArray# RealWorld) ByteArray# Int#

-- | Units (of 2 bytes) in a text chunk: a 'Text' keeps at most this much memory alive.
textChunkUnits :: Int
textChunkUnits = 8192

-- | A fresh text chunk of this many UTF-16 units.
newTextChunk :: Int -> IO TextChunk
newTextChunk (I# units) = IO $ \s0 -> case newByteArray# (units *# 2#) s0 of
  (# s1, mba #) -> case unsafeFreezeByteArray# mba s1 of
    (# s2, ba #) -> (# s2, TextChunk mba ba units #)

-- One unsafe C call per value writes the UTF-16 straight into the current chunk, and the
-- 'Text' is a slice of it (no per-value allocation but the 'Text' itself). A value that
-- does not fit starts a new chunk, or gets an array of its own if it is large.
decodeUtf8Chunked usedPtr ref src len onBad
  | len == 0 = return T.empty
  | otherwise = do
      used <- peekByteOff usedPtr 0 :: IO Int
      TextChunk mba ba cap <- readIORef ref
      if I# cap - used >= len
        then decodeInto usedPtr mba ba used src len onBad
        else if len > textChunkUnits `quot` 2
          then do
            TextChunk mba' ba' _ <- newTextChunk len
            decodeInto nullPtr mba' ba' 0 src len onBad
          else do
            c@(TextChunk mba' ba' _) <- newTextChunk textChunkUnits
            writeIORef ref c
            decodeInto usedPtr mba' ba' 0 src len onBad
{-# INLINE decodeUtf8Chunked #-}

-- | Decodes into the array from unit @used@ on (room for @len@ units: every code point
-- takes at least as many bytes as units) and, unless the 'Ptr' is null, records the units
-- used after it.
decodeInto :: Ptr Int -> MutableByteArray# RealWorld -> ByteArray# -> Int -> Ptr Word8 -> Int
           -> IO Text -> IO Text
decodeInto usedPtr mba ba used src len onBad = do
  n <- fromIntegral <$> c_hs_sqlbatch_utf8_to_utf16 mba (fromIntegral used) src (fromIntegral len)
  if n < 0
    then onBad
    else do
      when (usedPtr /= nullPtr) $ pokeByteOff usedPtr 0 (used + n)
      return $! TI.Text (TA.Array ba) used n
{-# INLINE decodeInto #-}

-- An array of @len@ units, shrunk to the units written.
decodeUtf8Fresh src len onBad
  | len == 0 = return T.empty
  | otherwise = IO $ \s0 -> case newByteArray# (unI (2 * len)) s0 of
      (# s1, mba #) -> case c_hs_sqlbatch_utf8_to_utf16 mba 0 src (fromIntegral len) of
        IO f -> case f s1 of
          (# s2, r #)
            | r < 0 -> case onBad of IO g -> g s2
            | otherwise ->
                let n = fromIntegral r
                in case shrinkMutableByteArray# mba (unI (2 * n)) s2 of
                  s3 -> case unsafeFreezeByteArray# mba s3 of
                    (# s4, ba #) -> (# s4, TI.text (TA.Array ba) 0 n #)
  where
    unI (I# x) = x

#endif
