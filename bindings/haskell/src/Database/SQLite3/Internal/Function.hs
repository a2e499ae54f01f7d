{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLite3.Internal.Function
-- Description : direct-sqlite's SQL functions, aggregates and collations, on the one connection
--
-- direct-sqlite's @createFunction@, @createAggregate@, @createCollation@ and their readers
-- of arguments and setters of results, over "Database.SQLBatch.Direct.Function" (one
-- static C callback per kind; the closure in a 'Foreign.StablePtr.StablePtr' the library
-- frees exactly once), registered with the connection's lock held. Every function returns
-- its error (direct-sqlite's "Direct" style); "Database.SQLite3" has the throwing forms.
--
-- = Arguments
--
-- The arguments of one call arrive as cells, read in place during the call. 'funcArgInt64',
-- 'funcArgDouble', 'funcArgText' and 'funcArgBlob' convert a value of another storage class
-- as @sqlite3_value_int64@ ... @sqlite3_value_blob@ do (the library's
-- @sqlbatch_value_convert@, SQLite's own conversions): the text @\"12\"@ reads as 12, a
-- NULL as 0 or empty.
--
-- = Exceptions and the connection
--
-- An exception thrown by a function, a step or a final call makes the statement fail
-- with @SQLITE_ERROR@ and the exception's 'show' as the message, as with direct-sqlite
-- (nothing unwinds through C; a step that throws leaves the group's state as it was). A callback
-- runs while the statement that called it holds the connection's lock: using the
-- connection from it throws 'Database.SQLBatch.Internal.Core.HookReentry' there (which
-- then fails the statement) instead of waiting for that lock forever.
module Database.SQLite3.Internal.Function
  ( -- * Types
    FuncContext
  , FuncArgs
  , ArgCount (..)
  , ArgIndex
    -- * Registering
  , createFunction
  , createAggregate
  , deleteFunction
  , createCollation
  , deleteCollation
    -- * Arguments
  , funcArgCount
  , funcArgType
  , funcArgInt64
  , funcArgDouble
  , funcArgText
  , funcArgBlob
    -- * Results
  , funcResultSQLData
  , funcResultInt64
  , funcResultDouble
  , funcResultText
  , funcResultBlob
  , funcResultZeroBlob
  , funcResultNull
  , getFuncContextDatabase
  ) where

import qualified Data.ByteString as B
import Data.Int (Int64)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Data.Word (Word8)
import Foreign.Ptr (nullPtr)

import Database.SQLBatch.Direct (Utf8 (..), Value (..))
import qualified Database.SQLBatch.Direct as D
import qualified Database.SQLBatch.Direct.Function as DF
import Database.SQLBatch.Error (Error, SQLError (..))
import Database.SQLBatch.Internal.Core
import Database.SQLBatch.Raw.Types (kindBlob, kindFloat, kindInteger, kindNull, kindText)
import Database.SQLBatch.Types (ColumnType (..), SQLData (..))
import Database.SQLite3.Bindings.Types (ArgCount (..), ArgIndex)

-- | Where the result of one call goes, and the connection that made the call. Valid only
-- during the callback.
data FuncContext = FuncContext !DF.FuncContext !Database

-- | The arguments of one call (cells read in place). Valid only during the callback: the
-- readers copy what they return.
newtype FuncArgs = FuncArgs DF.FuncArgs

-- | Runs a registration call with the connection's lock, turning the library's error into
-- direct-sqlite's.
registering :: Database -> (D.Database -> IO (Either SQLError ())) -> IO (Either Error ())
registering db act = withLock db $ \c ->
  if c == nullPtr then ownFailure db sqliteMisuse else do
    r <- act (rawDatabase db)
    case r of
      Right () -> return (Right ())
      Left e -> Left <$> libraryFailure db (sqlErrorCode e)

-- | A callback's body, run as a hook of the connection ('inHook': using the connection
-- throws 'HookReentry'); an exception becomes the call's error, its 'show' the message (as
-- direct-sqlite does), and the default is returned.
callback :: Database -> DF.FuncContext -> a -> IO a -> IO a
callback db ctx dflt act = do
  r <- inHook db Nothing act
  case r of
    Right x -> return x
    Left e -> dflt <$ DF.funcResultError ctx (T.pack (show e))
{-# INLINE callback #-}

argCount :: Maybe ArgCount -> DF.ArgCount
argCount = fmap (\(ArgCount n) -> n)

-- | <https://sqlite.org/c3ref/create_function.html>: registers (or replaces) the SQL
-- function @name@ with that many arguments ('Nothing': any number); the 'Bool' says whether
-- it is deterministic (SQLite may then call it once for equal arguments).
createFunction :: Database -> Utf8 -> Maybe ArgCount -> Bool -> (FuncContext -> FuncArgs -> IO ())
               -> IO (Either Error ())
createFunction db name n det f = registering db $ \raw ->
  DF.createFunction raw name (argCount n) det $ \ctx args ->
    callback db ctx () (f (FuncContext ctx db) (FuncArgs args))

-- | Like 'createFunction', for an aggregate: an initial state, a step per row of the group
-- (the state is evaluated to WHNF after each), and a final call that sets the result from
-- the state (the initial state for a group without rows).
createAggregate :: Database -> Utf8 -> Maybe ArgCount -> a -> (FuncContext -> FuncArgs -> a -> IO a)
                -> (FuncContext -> a -> IO ()) -> IO (Either Error ())
createAggregate db name n a0 step final = registering db $ \raw ->
  DF.createAggregate raw name (argCount n) a0
    (\ctx args s -> callback db ctx s (step (FuncContext ctx db) (FuncArgs args) s))
    (\ctx s -> callback db ctx () (final (FuncContext ctx db) s))

-- | Deletes the SQL function (scalar or aggregate) of that name and argument count.
deleteFunction :: Database -> Utf8 -> Maybe ArgCount -> IO (Either Error ())
deleteFunction db name n = registering db $ \raw -> DF.deleteFunction raw name (argCount n)

-- | <https://www.sqlite.org/c3ref/create_collation.html>: registers (or replaces) a
-- collation over the UTF-8 of two texts. It must be a total order; if it throws, the bytes
-- are compared.
createCollation :: Database -> Utf8 -> (Utf8 -> Utf8 -> Ordering) -> IO (Either Error ())
createCollation db name cmp = registering db $ \raw -> DF.createCollation raw name cmp

-- | Deletes a collation.
deleteCollation :: Database -> Utf8 -> IO (Either Error ())
deleteCollation db name = registering db $ \raw -> DF.deleteCollation raw name

-- | The number of arguments of the call.
funcArgCount :: FuncArgs -> ArgCount
funcArgCount (FuncArgs a) = ArgCount (DF.funcArgCount a)

-- | The storage class of argument @i@ (from 0).
funcArgType :: FuncArgs -> ArgIndex -> IO ColumnType
funcArgType (FuncArgs a) (ArgCount i)
  | outside a i = return NullColumn
  | otherwise = kindType <$> DF.funcArgType a i

-- | Whether an index is out of the arguments' range (the readers then give NULL's value,
-- as direct-sqlite's do).
outside :: DF.FuncArgs -> Int -> Bool
outside a i = i < 0 || i >= DF.funcArgCount a

kindType :: Word8 -> ColumnType
kindType k
  | k == kindInteger = IntegerColumn
  | k == kindFloat = FloatColumn
  | k == kindText = TextColumn
  | k == kindBlob = BlobColumn
  | otherwise = NullColumn

-- | Argument @i@ converted to @to@ by SQLite's rules (@sqlbatch_value_convert@).
converted :: DF.FuncArgs -> Int -> Word8 -> IO Value
converted a i to = do
  v <- DF.funcArgValue a i
  r <- D.convertValue v to
  return (either (const VNull) id r)

-- | Argument @i@ as an integer, as @sqlite3_value_int64@ gives it.
funcArgInt64 :: FuncArgs -> ArgIndex -> IO Int64
funcArgInt64 (FuncArgs a) (ArgCount i) | outside a i = return 0
funcArgInt64 (FuncArgs a) (ArgCount i) = do
  k <- DF.funcArgType a i
  if k == kindInteger then DF.funcArgInt64 a i
    else if k == kindNull then return 0
    else do
      v <- converted a i kindInteger
      return $ case v of
        VInteger x -> x
        _ -> 0

-- | Argument @i@ as a double, as @sqlite3_value_double@ gives it.
funcArgDouble :: FuncArgs -> ArgIndex -> IO Double
funcArgDouble (FuncArgs a) (ArgCount i) | outside a i = return 0
funcArgDouble (FuncArgs a) (ArgCount i) = do
  k <- DF.funcArgType a i
  if k == kindFloat || k == kindInteger then DF.funcArgDouble a i
    else if k == kindNull then return 0
    else do
      v <- converted a i kindFloat
      return $ case v of
        VFloat x -> x
        _ -> 0

-- | Argument @i@ as UTF-8 text (a copy), as @sqlite3_value_text@ gives it: a number's
-- SQLite rendering, a BLOB's bytes, empty for NULL.
funcArgText :: FuncArgs -> ArgIndex -> IO Utf8
funcArgText (FuncArgs a) (ArgCount i) = Utf8 <$> argBytes a i

-- | Argument @i@ as bytes (a copy), as @sqlite3_value_blob@ gives it.
funcArgBlob :: FuncArgs -> ArgIndex -> IO B.ByteString
funcArgBlob (FuncArgs a) (ArgCount i) = argBytes a i

argBytes :: DF.FuncArgs -> Int -> IO B.ByteString
argBytes a i | outside a i = return B.empty
argBytes a i = do
  k <- DF.funcArgType a i
  if k == kindText || k == kindBlob then DF.funcArgBlob a i
    else if k == kindNull then return B.empty
    else do
      v <- converted a i kindText
      return $ case v of
        VText b -> b
        VBlob b -> b
        _ -> B.empty

-- | Sets the result to a value.
funcResultSQLData :: FuncContext -> SQLData -> IO ()
funcResultSQLData (FuncContext c _) d = DF.funcResultValue c $ case d of
  SQLInteger x -> VInteger x
  SQLFloat x -> VFloat x
  SQLText t -> VText (TE.encodeUtf8 t)
  SQLBlob b -> VBlob b
  SQLNull -> VNull

-- | Sets an INTEGER result.
funcResultInt64 :: FuncContext -> Int64 -> IO ()
funcResultInt64 (FuncContext c _) = DF.funcResultInt64 c

-- | Sets a REAL result.
funcResultDouble :: FuncContext -> Double -> IO ()
funcResultDouble (FuncContext c _) = DF.funcResultDouble c

-- | Sets a TEXT result (UTF-8, copied).
funcResultText :: FuncContext -> Utf8 -> IO ()
funcResultText (FuncContext c _) = DF.funcResultText c

-- | Sets a BLOB result (copied).
funcResultBlob :: FuncContext -> B.ByteString -> IO ()
funcResultBlob (FuncContext c _) = DF.funcResultBlob c

-- | Sets a BLOB result of @n@ zero bytes.
funcResultZeroBlob :: FuncContext -> Int -> IO ()
funcResultZeroBlob (FuncContext c _) n = DF.funcResultBlob c (B.replicate (max 0 n) 0)

-- | Sets a NULL result (what a call that sets nothing gives too).
funcResultNull :: FuncContext -> IO ()
funcResultNull (FuncContext c _) = DF.funcResultNull c

-- | <https://www.sqlite.org/c3ref/context_db_handle.html>: the connection that called the
-- function. A callback must not use it (it is busy running the statement).
getFuncContextDatabase :: FuncContext -> IO Database
getFuncContextDatabase (FuncContext _ db) = return db
