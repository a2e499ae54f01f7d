{-# LANGUAGE FlexibleInstances #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE UndecidableInstances #-}
-- |
-- Module      : Database.SQLBatch.Function
-- Description : SQL functions written in Haskell (see also "Database.SQLite.Simple.Function")
--
-- Any Haskell function of 'FromField' arguments to a 'ToField' result (pure, or in 'IO')
-- can be registered as an SQL function:
--
-- > createFunction conn "twice_plus_one" (\x -> x * 2 + 1 :: Int64)
-- > createFunction conn "greet" (\name -> return ("hello " <> name) :: IO Text)
-- > query_ conn "SELECT twice_plus_one(x), greet(name) FROM t"
--
-- The argument count is the function's arity (SQLite refuses a call with another count).
-- A pure function is registered as deterministic, an 'IO' one not. Arguments convert with
-- the same 'FromField' instances as query results (strict about SQL types: an 'Int' needs
-- an INTEGER, NULL needs 'Maybe'). A conversion that fails, and any exception thrown by the
-- function, ends the statement with an 'Database.SQLBatch.Error.SQLError' whose message is
-- the exception's text; the connection stays usable. The function's result is forced inside the call.
--
-- The function runs on the thread that runs the statement, while the connection's lock is
-- held: it must not use the same 'Connection' (that would wait for itself); other
-- connections are fine. Aggregates and collations: see "Database.SQLBatch.Direct.Function".
module Database.SQLBatch.Function
  ( Function
  , createFunction
  , deleteFunction
  ) where

import Control.Exception (evaluate, throwIO)
import Control.Monad (forM_, when)
import Data.IORef (newIORef)
import Data.Proxy (Proxy (..))
import Data.Text (Text)
import qualified Data.Text.Encoding as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.ForeignPtr (ForeignPtr, mallocForeignPtrBytes, withForeignPtr)
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.Ptr (Ptr, plusPtr)
import Foreign.Storable (peekByteOff, pokeByteOff)
import System.IO.Unsafe (unsafePerformIO)

import Database.SQLBatch.Direct (Utf8 (..))
import qualified Database.SQLBatch.Direct.Function as DF
import Database.SQLBatch.FromField (FromField (..))
import Database.SQLBatch.Internal
import Database.SQLBatch.Internal.Core (detachedStatement)
import qualified Database.SQLBatch.Internal.Core as C
import Database.SQLBatch.Ok (Ok (..), ManyErrors (..))
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.ToField (ToField (..))
import Database.SQLBatch.Types

-- | Haskell functions that can be SQL functions: @a1 -> a2 -> ... -> r@ with every @ai@ a
-- 'FromField' and @r@ either a 'ToField' (a deterministic function) or @IO r'@ with @r'@ a
-- 'ToField'.
class Function a where
  -- | The number of SQL arguments.
  argCount :: Proxy a -> Int
  -- | Whether SQLite may treat the function as deterministic.
  deterministicFn :: Proxy a -> Bool
  -- | Applies the function to the arguments from index @i@ on.
  evalFunction :: (Int -> Cell) -> Int -> a -> IO SQLData

instance {-# OVERLAPPABLE #-} ToField a => Function a where
  argCount _ = 0
  deterministicFn _ = True
  evalFunction _ _ a = evaluate (toField a)

instance {-# OVERLAPPING #-} ToField a => Function (IO a) where
  argCount _ = 0
  deterministicFn _ = False
  evalFunction _ _ io = io >>= evaluate . toField

instance {-# OVERLAPPING #-} (FromField a, Function f) => Function (a -> f) where
  argCount _ = 1 + argCount (Proxy :: Proxy f)
  deterministicFn _ = deterministicFn (Proxy :: Proxy f)
  evalFunction fields i f = do
    fld <- cellField (fields i)
    case fromField fld of
      Ok x -> evalFunction fields (i + 1) (f x)
      Errors [e] -> throwIO e
      Errors es -> throwIO (ManyErrors es)

-- | The statement of argument fields: of no connection, so that a conversion error that
-- looks up a "column name" gets none at once (instead of waiting for the lock of the
-- connection whose statement is running).
noStatement :: C.Statement
noStatement = unsafePerformIO (detachedStatement (Query "function arguments"))
{-# NOINLINE noStatement #-}

-- | Scratch of a 'BatchCtx': flag at 64, units used at 72, conversion scratch at 80.
scratchBytes :: Int
scratchBytes = 80 + valueSize + convertBufSize

-- | Runs an action with the call's arguments as 'Field's. The TEXT and BLOB bytes are first
-- copied into a buffer of their own, so that a zero-copy 'B.ByteString' argument stays
-- valid after the call.
withArgFields :: DF.FuncArgs -> ((Int -> Cell) -> IO a) -> IO a
withArgFields args k = allocaBytes scratchBytes $ \scratch -> do
  pokeByteOff scratch 64 (0 :: Word8)
  pokeByteOff scratch 72 (0 :: Int)
  let n = DF.funcArgCount args
      cells = DF.funcArgCells args
  end <- spanEnd cells n
  fp <- mallocForeignPtrBytes (max 1 end) :: IO (ForeignPtr Word8)
  withForeignPtr fp $ \base -> do
    when (end > 0) $ copyBytes base (DF.funcArgData args) end
    -- An empty text chunk: the first 'Text' argument allocates a real one.
    chunk <- newTextChunk 0 >>= newIORef
    let ctx = BatchCtx base fp 0 (scratch `plusPtr` 64) (scratch `plusPtr` 72)
                (scratch `plusPtr` 80) chunk noStatement
    k (\i -> Cell (cells `plusPtr` (i * valueSize)) i ctx)

-- | The end of the bytes the TEXT and BLOB cells use.
spanEnd :: Ptr Word8 -> Int -> IO Int
spanEnd cells n = go 0 0
  where
    go i acc
      | i >= n = return acc
      | otherwise = do
          let c = cells `plusPtr` (i * valueSize)
          k <- peekByteOff c valueKindOff :: IO Word8
          if k == kindText || k == kindBlob
            then do
              off <- peekByteOff c valueBitsOff :: IO Word64
              len <- peekByteOff c valueLenOff :: IO Word32
              go (i + 1) (max acc (fromIntegral off + fromIntegral len))
            else go (i + 1) acc

-- | Registers (or replaces) a Haskell function as the SQL function @name@ on the
-- connection, with the function's arity as its argument count. Throws
-- 'Database.SQLBatch.Error.SQLError'.
createFunction :: forall f. Function f => Connection -> Text -> f -> IO ()
createFunction conn name f =
  withConnDirect conn "createFunction" $ \db ->
    DF.createFunctionWith db (Utf8 (TE.encodeUtf8 name)) (Just n)
      [DF.Deterministic | deterministicFn (Proxy :: Proxy f)] body
  where
    n = argCount (Proxy :: Proxy f)
    body ctx args = do
      r <- withArgFields args $ \fields -> evalFunction fields 0 f
      DF.funcResultValue ctx (toValue r)

-- | Deletes the SQL function @name@ from the connection: every argument count of it (0 to
-- 127, and \"any number\"). Throws 'Database.SQLBatch.Error.SQLError' (e.g. while a
-- statement that uses it runs).
deleteFunction :: Connection -> Text -> IO ()
deleteFunction conn name =
  withConnDirect conn "deleteFunction" $ \db -> do
    let u = Utf8 (TE.encodeUtf8 name)
    r0 <- DF.deleteFunction db u Nothing
    case r0 of
      Left e -> return (Left e)
      Right () -> do
        forM_ [0 .. 127] $ \i -> DF.deleteFunction db u (Just i) >>= either throwIO return
        return (Right ())
