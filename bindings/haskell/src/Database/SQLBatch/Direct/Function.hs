{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- |
-- Module      : Database.SQLBatch.Direct.Function
-- Description : SQL functions, aggregates (also batched) and collations written in Haskell
--
-- The direct-sqlite-shaped registration calls over @sqlbatch_conn_create_function@,
-- @sqlbatch_conn_create_aggregate@ and @sqlbatch_conn_create_collation@: 'createFunction',
-- 'createAggregate', 'createAggregateBatched' (the argument rows of a group arrive in
-- batches, one callback per batch), 'createCollation', 'deleteFunction'.
--
-- = How the callbacks are made
--
-- There is one @foreign import ccall \"wrapper\"@ 'FunPtr' per callback /kind/ (scalar,
-- step, finish, collation, destroy), made once per program and never freed. What a
-- registration calls is its @user_data@: a 'StablePtr' to the Haskell closure, freed by the
-- destroy callback, which the library runs exactly once (on replacement, deletion, close, or
-- a failed registration). Per-group aggregate state is a 'StablePtr' too, freed by the
-- finish callback (which the library calls exactly once per group).
--
-- = Exceptions
--
-- An exception thrown by a function, a step or a finish is caught in the callback and
-- becomes the statement's error (@sqlbatch_call_error@ with @SQLITE_ERROR@ and the
-- exception's 'show'); nothing unwinds through SQLite and the connection stays usable. A
-- collation must not fail: if it throws, the two strings compare as their bytes do.
--
-- = @safe@ calls
--
-- GHC forbids an @unsafe@ foreign call that calls back into Haskell. Every library call of
-- this binding that can run SQL (and so a registered callback) is already @safe@ or
-- @interruptible@ (which is safe): fetch, exec, execute_many, bind, reset, finalize, close
-- (see "Database.SQLBatch.Raw"), so registering a function changes nothing on the fast
-- path. The registration calls here are @safe@ too: replacing a registration runs the old
-- destroy callback. Callbacks run on the OS thread that runs the statement, with the
-- threaded RTS and without.
--
-- = Running SQL from a callback
--
-- Not on the same connection (the header does not support it; with the high-level
-- 'Database.SQLBatch.Connection' it would wait for the connection's own lock). Other
-- connections are fine.
module Database.SQLBatch.Direct.Function
  ( -- * Arguments
    FuncArgs (..)
  , funcArgCount
  , funcArgType
  , funcArgValue
  , funcArgValues
  , funcArgInt64
  , funcArgDouble
  , funcArgText
  , funcArgBlob
  , FuncRows (..)
  , funcRowCount
  , funcRowArgs
    -- * Results
  , FuncContext (..)
  , funcResultValue
  , funcResultInt64
  , funcResultDouble
  , funcResultText
  , funcResultBlob
  , funcResultNull
  , funcResultError
    -- * Registering
  , ArgCount
  , FunctionFlag (..)
  , createFunction
  , createFunctionWith
  , deleteFunction
  , createAggregate
  , createAggregateBatched
  , createCollation
  , deleteCollation
    -- * Raw imports
  , CCall
  , c_sqlbatch_conn_create_function
  , c_sqlbatch_conn_create_aggregate
  , c_sqlbatch_conn_create_collation
  , c_sqlbatch_call_result
  , c_sqlbatch_call_error
  ) where

import Control.Exception (SomeException, evaluate, try)
import Control.Monad (forM, when)
import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.List (foldl')
import Data.Bits ((.|.))
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.C.Types (CSize (..))
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Ptr (FunPtr, Ptr, castPtr, nullFunPtr, nullPtr, plusPtr)
import Foreign.StablePtr
import Foreign.Storable (peek, peekByteOff, poke, pokeByteOff)
import GHC.Float (castDoubleToWord64)
import System.IO.Unsafe (unsafePerformIO)

import Database.SQLBatch.Direct
import Database.SQLBatch.Raw.Extra
import Database.SQLBatch.Raw.Types

------------------------------------------------------------------------------------------
-- Arguments and results

-- | The arguments of one call: @n@ cells and the base of their bytes. Valid only during
-- the callback: copy what is kept ('funcArgText' and 'funcArgBlob' copy).
data FuncArgs = FuncArgs
  { funcArgCells :: {-# UNPACK #-} !(Ptr Word8)
  , funcArgN :: {-# UNPACK #-} !Int
  , funcArgData :: {-# UNPACK #-} !(Ptr Word8)
  }

-- | The number of arguments.
funcArgCount :: FuncArgs -> Int
funcArgCount = funcArgN

cellAt :: FuncArgs -> Int -> Ptr Word8
cellAt a i
  | i < 0 || i >= funcArgN a = error ("sqlbatch: function argument " ++ show i ++ " out of range")
  | otherwise = funcArgCells a `plusPtr` (i * valueSize)

-- | The kind tag of argument @i@ (from 0): 'kindInteger', 'kindFloat', 'kindText',
-- 'kindBlob' or 'kindNull'.
funcArgType :: FuncArgs -> Int -> IO Word8
funcArgType a i = peekByteOff (cellAt a i) valueKindOff

-- | Argument @i@ as an INTEGER (its bits, whatever its kind: check 'funcArgType').
funcArgInt64 :: FuncArgs -> Int -> IO Int64
funcArgInt64 a i = peekByteOff (cellAt a i) valueBitsOff

-- | Argument @i@ as a REAL: a REAL's value, an INTEGER converted, 0 otherwise.
funcArgDouble :: FuncArgs -> Int -> IO Double
funcArgDouble a i = do
  k <- funcArgType a i
  if k == kindFloat
    then peekByteOff (cellAt a i) valueBitsOff
    else if k == kindInteger then fromIntegral <$> funcArgInt64 a i else return 0

bytesAt :: FuncArgs -> Int -> IO B.ByteString
bytesAt a i = do
  let c = cellAt a i
  k <- funcArgType a i
  if k /= kindText && k /= kindBlob
    then return B.empty
    else do
      off <- peekByteOff c valueBitsOff :: IO Word64
      len <- peekByteOff c valueLenOff :: IO Word32
      if len == 0
        then return B.empty
        else B.packCStringLen (castPtr (funcArgData a) `plusPtr` fromIntegral off, fromIntegral len)

-- | A copy of the UTF-8 bytes of a TEXT (or BLOB) argument; empty for other kinds.
funcArgText :: FuncArgs -> Int -> IO Utf8
funcArgText a i = Utf8 <$> bytesAt a i

-- | A copy of the bytes of a BLOB (or TEXT) argument; empty for other kinds.
funcArgBlob :: FuncArgs -> Int -> IO B.ByteString
funcArgBlob = bytesAt

-- | A copy of argument @i@.
funcArgValue :: FuncArgs -> Int -> IO Value
funcArgValue a i = do
  k <- funcArgType a i
  case () of
    _ | k == kindInteger -> VInteger <$> funcArgInt64 a i
      | k == kindFloat -> VFloat <$> peekByteOff (cellAt a i) valueBitsOff
      | k == kindText -> VText <$> bytesAt a i
      | k == kindBlob -> VBlob <$> bytesAt a i
      | otherwise -> return VNull

-- | Copies of all arguments.
funcArgValues :: FuncArgs -> IO [Value]
funcArgValues a = forM [0 .. funcArgN a - 1] (funcArgValue a)

-- | A batch of argument rows given to a batched aggregate's step: @rows@ rows of @n@
-- cells each. Valid only during the callback.
data FuncRows = FuncRows
  { funcRowCells :: {-# UNPACK #-} !(Ptr Word8)
  , funcRowN :: {-# UNPACK #-} !Int
  , funcRowWidth :: {-# UNPACK #-} !Int
  , funcRowData :: {-# UNPACK #-} !(Ptr Word8)
  }

-- | The number of rows in the batch.
funcRowCount :: FuncRows -> Int
funcRowCount = funcRowN

-- | The arguments of row @r@ (from 0) of the batch.
funcRowArgs :: FuncRows -> Int -> FuncArgs
funcRowArgs rs r
  | r < 0 || r >= funcRowN rs = error ("sqlbatch: aggregate row " ++ show r ++ " out of range")
  | otherwise = FuncArgs (funcRowCells rs `plusPtr` (r * funcRowWidth rs * valueSize))
                         (funcRowWidth rs) (funcRowData rs)

-- | Where the result of the current call goes. Valid only during the callback.
newtype FuncContext = FuncContext (Ptr CCall)

-- | Sets the result (bytes are copied). Throws nothing; a value SQLite refuses (too big)
-- becomes the call's error.
funcResultValue :: FuncContext -> Value -> IO ()
funcResultValue (FuncContext call) v = allocaBytes valueSize $ \cell -> do
  let put :: Word64 -> Word32 -> Word8 -> IO ()
      put bits len kind = do
        pokeByteOff cell valueBitsOff bits
        pokeByteOff cell valueLenOff len
        pokeByteOff cell valueKindOff kind
        pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
        pokeByteOff cell (valueKindOff + 2) (0 :: Word8)
        pokeByteOff cell (valueKindOff + 3) (0 :: Word8)
      bytes kind b
        | B.null b = put 0 0 kind >> go nullPtr 0
        | otherwise = BU.unsafeUseAsCStringLen b $ \(p, n) -> do
            put 0 (fromIntegral n) kind
            go (castPtr p) n
      go :: Ptr Word8 -> Int -> IO ()
      -- A refused value (too big) is set as the call's error by the library itself.
      go p n = () <$ c_sqlbatch_call_result call (castPtr cell) p (fromIntegral n)
  case v of
    VInteger i -> put (fromIntegral i) 0 kindInteger >> go nullPtr 0
    VFloat d -> put (castDoubleToWord64 d) 0 kindFloat >> go nullPtr 0
    VText b -> bytes kindText b
    VBlob b -> bytes kindBlob b
    VNull -> put 0 0 kindNull >> go nullPtr 0

-- | Sets an INTEGER result.
funcResultInt64 :: FuncContext -> Int64 -> IO ()
funcResultInt64 c = funcResultValue c . VInteger

-- | Sets a REAL result.
funcResultDouble :: FuncContext -> Double -> IO ()
funcResultDouble c = funcResultValue c . VFloat

-- | Sets a TEXT result.
funcResultText :: FuncContext -> Utf8 -> IO ()
funcResultText c (Utf8 b) = funcResultValue c (VText b)

-- | Sets a BLOB result.
funcResultBlob :: FuncContext -> B.ByteString -> IO ()
funcResultBlob c = funcResultValue c . VBlob

-- | Sets a NULL result (also what a callback that sets nothing gives).
funcResultNull :: FuncContext -> IO ()
funcResultNull c = funcResultValue c VNull

-- | Makes the call fail: the statement stops with @SQLITE_ERROR@ and this message.
funcResultError :: FuncContext -> T.Text -> IO ()
funcResultError (FuncContext call) msg =
  BU.unsafeUseAsCStringLen (TE.encodeUtf8 msg) $ \(p, n) ->
    c_sqlbatch_call_error call 1 p (fromIntegral n)

-- | Runs a callback body; an exception becomes the call's error.
guarded :: Ptr CCall -> IO () -> IO ()
guarded call act = do
  r <- try act
  case r of
    Right () -> return ()
    Left (e :: SomeException) ->
      funcResultError (FuncContext call) (T.pack ("Haskell exception: " ++ show e))

------------------------------------------------------------------------------------------
-- The static callbacks

-- | The scalar callback: user_data is a 'StablePtr' of the function.
scalarFP :: FunPtr ScalarFn
scalarFP = unsafePerformIO $ mkScalar $ \call ud args n dat -> guarded call $ do
  f <- deRefStablePtr (castPtrToStablePtr ud) :: IO (FuncContext -> FuncArgs -> IO ())
  f (FuncContext call) (FuncArgs (castPtr args) (fromIntegral n) dat)
{-# NOINLINE scalarFP #-}

-- | What an aggregate registration keeps: the step over a batch of rows and the finish,
-- both on the state as an opaque 'StablePtr' slot (see 'mkAggregate').
data Agg = Agg
  { aggStep :: FuncContext -> Ptr (Ptr ()) -> FuncRows -> IO ()
  , aggFinish :: FuncContext -> Ptr () -> IO ()
  }

stepFP :: FunPtr StepFn
stepFP = unsafePerformIO $ mkStep $ \call ud st args nrows width dat -> guarded call $ do
  a <- deRefStablePtr (castPtrToStablePtr ud) :: IO Agg
  aggStep a (FuncContext call) st
    (FuncRows (castPtr args) (fromIntegral nrows) (fromIntegral width) dat)
{-# NOINLINE stepFP #-}

finishFP :: FunPtr FinishFn
finishFP = unsafePerformIO $ mkFinish $ \call ud st -> guarded call $ do
  a <- deRefStablePtr (castPtrToStablePtr ud) :: IO Agg
  aggFinish a (FuncContext call) st
{-# NOINLINE finishFP #-}

collationFP :: FunPtr CollationFn
collationFP = unsafePerformIO $ mkCollation $ \ud pa na pb nb -> do
  a <- BU.unsafePackCStringLen (castPtr pa, fromIntegral na)
  b <- BU.unsafePackCStringLen (castPtr pb, fromIntegral nb)
  f <- deRefStablePtr (castPtrToStablePtr ud) :: IO (Utf8 -> Utf8 -> Ordering)
  r <- try (evaluate (f (Utf8 a) (Utf8 b)))
  return $ case either (\(_ :: SomeException) -> compare a b) id r of
    LT -> -1
    EQ -> 0
    GT -> 1
{-# NOINLINE collationFP #-}

-- | The destroy callback: frees the registration's 'StablePtr'.
destroyFP :: FunPtr DestroyFn
destroyFP = unsafePerformIO $ mkDestroy $ \ud -> freeStablePtr (castPtrToStablePtr ud)
{-# NOINLINE destroyFP #-}

------------------------------------------------------------------------------------------
-- Registering

-- | The number of arguments; 'Nothing' for any number.
type ArgCount = Maybe Int

-- | Flags of 'createFunctionWith' (@SQLBATCH_FUNCTION_*@).
data FunctionFlag
  = Deterministic  -- ^ same result for the same arguments within a statement
  | DirectOnly     -- ^ not callable from the schema (triggers, views, CHECK)
  | Innocuous      -- ^ no side effects: usable in the schema with trusted_schema off
  deriving (Eq, Show)

flagBits :: [FunctionFlag] -> Word32
flagBits = foldl' (\acc f -> acc .|. bit f) 0
  where
    bit Deterministic = 2048
    bit DirectOnly = 524288
    bit Innocuous = 2097152

nargs :: ArgCount -> Int32
nargs = maybe (-1) fromIntegral

registered :: Database -> T.Text -> Int32 -> IO (Either SQLError ())
registered db ctx rc
  | rc == sqlbatchOk = return (Right ())
  | otherwise = Left <$> errorFrom db rc ctx

-- | direct-sqlite's @createFunction@: registers (or replaces) a scalar function; the
-- 'Bool' says whether it is deterministic. The callback reads its arguments with the
-- @funcArg*@ calls and sets its result with the @funcResult*@ calls.
createFunction :: Database -> Utf8 -> ArgCount -> Bool -> (FuncContext -> FuncArgs -> IO ())
               -> IO (Either SQLError ())
createFunction db name n det =
  createFunctionWith db name n [Deterministic | det]

-- | 'createFunction' with any 'FunctionFlag's.
createFunctionWith :: Database -> Utf8 -> ArgCount -> [FunctionFlag]
                   -> (FuncContext -> FuncArgs -> IO ()) -> IO (Either SQLError ())
createFunctionWith db@(Database c) (Utf8 name) n flags f = do
  sp <- newStablePtr f
  BU.unsafeUseAsCStringLen name $ \(p, len) ->
    c_sqlbatch_conn_create_function c p (fromIntegral len) (nargs n) (flagBits flags)
      scalarFP (castStablePtrToPtr sp) destroyFP
      >>= registered db "create_function"

-- | Deletes the function (or aggregate) of that name and argument count.
deleteFunction :: Database -> Utf8 -> ArgCount -> IO (Either SQLError ())
deleteFunction db@(Database c) (Utf8 name) n =
  BU.unsafeUseAsCStringLen name $ \(p, len) ->
    c_sqlbatch_conn_create_function c p (fromIntegral len) (nargs n) 0 nullFunPtr nullPtr nullFunPtr
      >>= registered db "delete_function"

-- | Reads a group's state slot: the initial value when the group has none yet.
readState :: a -> Ptr (Ptr ()) -> IO a
readState a0 slot = do
  p <- peek slot
  if p == nullPtr then return a0 else deRefStablePtr (castPtrToStablePtr p)

writeState :: Ptr (Ptr ()) -> a -> IO ()
writeState slot a = do
  old <- peek slot
  sp <- newStablePtr a
  poke slot (castStablePtrToPtr sp)
  when (old /= nullPtr) $ freeStablePtr (castPtrToStablePtr old)

-- | Builds an aggregate from a step over whole batches.
mkAggregate :: forall a. a -> (FuncContext -> FuncRows -> a -> IO a) -> (FuncContext -> a -> IO ())
            -> Agg
mkAggregate a0 step final = Agg stepB finishB
  where
    stepB ctx slot rows = do
      s <- readState a0 slot
      s' <- step ctx rows s >>= evaluate
      writeState slot s'
    finishB ctx p = do
      s <- if p == nullPtr then return a0 else do
             let sp = castPtrToStablePtr p :: StablePtr a
             v <- deRefStablePtr sp
             freeStablePtr sp
             return v
      final ctx s

registerAggregate :: Database -> Utf8 -> ArgCount -> Int -> Agg -> IO (Either SQLError ())
registerAggregate db@(Database c) (Utf8 name) n batch agg = do
  sp <- newStablePtr agg
  -- sqlbatch_aggregate: step, finish, inverse, value (pointers), batch_rows, batch_bytes.
  allocaBytes 48 $ \fns -> do
    pokeByteOff fns 0 stepFP
    pokeByteOff fns 8 finishFP
    pokeByteOff fns 16 (nullFunPtr :: FunPtr StepFn)
    pokeByteOff fns 24 (nullFunPtr :: FunPtr FinishFn)
    pokeByteOff fns 32 (fromIntegral (max 0 batch) :: CSize)
    pokeByteOff fns 40 (0 :: CSize)
    BU.unsafeUseAsCStringLen name $ \(p, len) ->
      c_sqlbatch_conn_create_aggregate c p (fromIntegral len) (nargs n) 0 fns
        (castStablePtrToPtr sp) destroyFP
        >>= registered db "create_aggregate"

-- | direct-sqlite's @createAggregate@: an initial state, a step called once per row with
-- that row's arguments, and a final call that sets the result from the state (the initial
-- state for a group without rows). The state is forced to WHNF after each step.
createAggregate :: Database -> Utf8 -> ArgCount -> a -> (FuncContext -> FuncArgs -> a -> IO a)
                -> (FuncContext -> a -> IO ()) -> IO (Either SQLError ())
createAggregate db name n a0 step final =
  registerAggregate db name n 1 (mkAggregate a0 stepRows final)
  where
    stepRows ctx rows s0 = go 0 s0
      where
        go !r !s
          | r >= funcRowCount rows = return s
          | otherwise = step ctx (funcRowArgs rows r) s >>= evaluate >>= go (r + 1)

-- | A batched aggregate: the step is a fold over a batch of up to @batchRows@ argument rows
-- of the group at a time (in SQLite's order; the last, partial batch before the final
-- call), so that one callback serves many rows. An exception in the step fails the
-- statement (reported with the batch, not the row).
createAggregateBatched :: Database -> Utf8 -> ArgCount -> Int -> a
                       -> (FuncContext -> FuncRows -> a -> IO a) -> (FuncContext -> a -> IO ())
                       -> IO (Either SQLError ())
createAggregateBatched db name n rowsPerBatch a0 step final =
  registerAggregate db name n (max 1 rowsPerBatch) (mkAggregate a0 step final)

-- | direct-sqlite's @createCollation@: registers (or replaces) a collation over the UTF-8
-- bytes of two texts. It must be a total order; if it throws, the bytes are compared.
createCollation :: Database -> Utf8 -> (Utf8 -> Utf8 -> Ordering) -> IO (Either SQLError ())
createCollation db@(Database c) (Utf8 name) f = do
  sp <- newStablePtr f
  BU.unsafeUseAsCStringLen name $ \(p, len) ->
    c_sqlbatch_conn_create_collation c p (fromIntegral len) collationFP
      (castStablePtrToPtr sp) destroyFP
      >>= registered db "create_collation"

-- | Deletes a collation.
deleteCollation :: Database -> Utf8 -> IO (Either SQLError ())
deleteCollation db@(Database c) (Utf8 name) =
  BU.unsafeUseAsCStringLen name $ \(p, len) ->
    c_sqlbatch_conn_create_collation c p (fromIntegral len) nullFunPtr nullPtr
      nullFunPtr
      >>= registered db "delete_collation"
