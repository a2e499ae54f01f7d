{-# LANGUAGE FunctionalDependencies #-}
{-# LANGUAGE GeneralizedNewtypeDeriving #-}
-- |
-- Module      : Database.SQLite3.Bindings.Types
-- Description : direct-sqlite's "Database.SQLite3.Bindings.Types": the types its users import
--
-- The names of direct-sqlite's module of C-level types, for the programs that import it
-- (most for 'ParamIndex', 'ColumnIndex', 'ArgCount', 'Error' and 'ColumnType'). The
-- indexes, 'Error' and 'ColumnType' are the very types of "Database.SQLite3". The C-level
-- types ('CError', 'CColumnType', 'CParamIndex', ...) and their conversions ('FFIType')
-- are here with direct-sqlite's values, though nothing in this package takes them: it has
-- no @sqlite3_*@ bindings (its C library is sqlbatch's batched ABI). The opaque C types
-- ('CDatabase', 'CStatement', ...) exist only so that signatures naming them compile; no
-- function of this package gives or takes a pointer to one.
module Database.SQLite3.Bindings.Types
  ( -- * Objects
    CDatabase
  , CStatement
  , CValue
  , CContext
  , CBlob
  , CBackup
    -- * Enumerations
    -- ** Error
  , CError (..)
  , decodeError
  , encodeError
  , Error (..)
    -- ** ColumnType
  , CColumnType (..)
  , decodeColumnType
  , encodeColumnType
  , ColumnType (..)
    -- * Indices
  , ParamIndex (..)
  , ColumnIndex (..)
  , ColumnCount
    -- ** Indices (FFI)
  , CParamIndex (..)
  , CColumnIndex (..)
  , CColumnCount
    -- * Miscellaneous
  , CNumBytes (..)
  , CDestructor
  , c_SQLITE_STATIC
  , c_SQLITE_TRANSIENT
  , c_SQLITE_UTF8
    -- * Custom functions
  , ArgCount (..)
  , ArgIndex
  , CArgCount (..)
  , c_SQLITE_DETERMINISTIC
    -- * Conversion to and from FFI types
  , FFIType (..)
  ) where

import Foreign.C.Types (CInt)
import Foreign.Ptr (Ptr, intPtrToPtr)

import Database.SQLBatch.Error (Error (..), decodeExtended)
import qualified Database.SQLBatch.Error as E
import Database.SQLBatch.Types (ColumnType (..))

-- | @sqlite3@ (opaque; nothing here points to one).
data CDatabase

-- | @sqlite3_stmt@ (opaque; nothing here points to one).
data CStatement

-- | @sqlite3_value@ (opaque; nothing here points to one).
data CValue

-- | @sqlite3_context@ (opaque; nothing here points to one).
data CContext

-- | @sqlite3_blob@ (opaque; nothing here points to one).
data CBlob

-- | @sqlite3_backup@ (opaque; nothing here points to one).
data CBackup

-- | Index of a parameter of a prepared statement, from 1: the statement has the parameters
-- 1 to its largest index (@SELECT ?1, ?5@ has 5), each NULL until bound.
newtype ParamIndex = ParamIndex Int
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show ParamIndex where
  show (ParamIndex n) = show n

-- | The bounds of SQLite's native (C @int@) parameter indexes.
instance Bounded ParamIndex where
  minBound = ParamIndex (fromIntegral (minBound :: CInt))
  maxBound = ParamIndex (fromIntegral (maxBound :: CInt))

-- | Index of a column of a result row, from 0.
newtype ColumnIndex = ColumnIndex Int
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show ColumnIndex where
  show (ColumnIndex n) = show n

-- | The bounds of SQLite's native (C @int@) column indexes.
instance Bounded ColumnIndex where
  minBound = ColumnIndex (fromIntegral (minBound :: CInt))
  maxBound = ColumnIndex (fromIntegral (maxBound :: CInt))

-- | Number of columns of a result row.
type ColumnCount = ColumnIndex

-- | A 'ParamIndex' as C takes it.
newtype CParamIndex = CParamIndex CInt
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show CParamIndex where
  show (CParamIndex n) = show n

-- | A 'ColumnIndex' as C takes it.
newtype CColumnIndex = CColumnIndex CInt
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show CColumnIndex where
  show (CColumnIndex n) = show n

-- | A 'ColumnCount' as C takes it.
type CColumnCount = CColumnIndex

-- | A byte count as C takes it.
newtype CNumBytes = CNumBytes CInt
  deriving (Eq, Ord, Show, Enum, Num, Real, Integral)

-- | @sqlite3_destructor_type@ (opaque).
data CDestructor

-- | @SQLITE_STATIC@: the bytes stay valid and unchanged.
c_SQLITE_STATIC :: Ptr CDestructor
c_SQLITE_STATIC = intPtrToPtr 0

-- | @SQLITE_TRANSIENT@: SQLite copies the bytes.
c_SQLITE_TRANSIENT :: Ptr CDestructor
c_SQLITE_TRANSIENT = intPtrToPtr (-1)

-- | @SQLITE_UTF8@.
c_SQLITE_UTF8 :: CInt
c_SQLITE_UTF8 = 1

-- | Number of arguments of a user defined SQL function.
newtype ArgCount = ArgCount Int
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show ArgCount where
  show (ArgCount n) = show n

-- | From 0 to SQLite's limit of a function's arguments (@SQLITE_LIMIT_FUNCTION_ARG@, 127).
instance Bounded ArgCount where
  minBound = ArgCount 0
  maxBound = ArgCount 127

-- | Index of an argument of a custom function, from 0.
type ArgIndex = ArgCount

-- | An 'ArgCount' as C takes it (-1: any number).
newtype CArgCount = CArgCount CInt
  deriving (Eq, Ord, Enum, Num, Real, Integral)

-- | Shows the underlying integer, without the constructor.
instance Show CArgCount where
  show (CArgCount n) = show n

-- | From -1 (any number) to 127.
instance Bounded CArgCount where
  minBound = CArgCount (-1)
  maxBound = CArgCount 127

-- | @SQLITE_DETERMINISTIC@.
c_SQLITE_DETERMINISTIC :: CInt
c_SQLITE_DETERMINISTIC = 0x800

-- | A result code as C returns it (<https://www.sqlite.org/c3ref/c_abort.html>).
newtype CError = CError CInt
  deriving (Eq, Show)

-- | The 'Error' of a code: the extended code's constructor if it has one here, else the
-- primary code's ('ErrorUnknown' for a code SQLite does not have; direct-sqlite's is
-- partial there).
decodeError :: CError -> Error
decodeError (CError n) = decodeExtended (fromIntegral n)

-- | The code of an 'Error'.
encodeError :: Error -> CError
encodeError = CError . fromIntegral . E.encodeError

-- | A storage class as C returns it (<https://www.sqlite.org/c3ref/c_blob.html>).
newtype CColumnType = CColumnType CInt
  deriving (Eq, Show)

-- | The 'ColumnType' of a @SQLITE_INTEGER@ ... @SQLITE_NULL@ (any other value reads as
-- 'NullColumn'; direct-sqlite's is partial there).
decodeColumnType :: CColumnType -> ColumnType
decodeColumnType (CColumnType n) = case n of
  1 -> IntegerColumn
  2 -> FloatColumn
  3 -> TextColumn
  4 -> BlobColumn
  _ -> NullColumn

-- | The code of a 'ColumnType'.
encodeColumnType :: ColumnType -> CColumnType
encodeColumnType t = CColumnType $ case t of
  IntegerColumn -> 1
  FloatColumn -> 2
  TextColumn -> 3
  BlobColumn -> 4
  NullColumn -> 5

-- | The conversions between the types "Database.SQLite3" takes and those C takes.
class FFIType public ffi | public -> ffi, ffi -> public where
  -- | To the C type.
  toFFI :: public -> ffi
  -- | From the C type.
  fromFFI :: ffi -> public

-- | 'ParamIndex' and 'CParamIndex'.
instance FFIType ParamIndex CParamIndex where
  toFFI (ParamIndex n) = CParamIndex (fromIntegral n)
  fromFFI (CParamIndex n) = ParamIndex (fromIntegral n)

-- | 'ColumnIndex' and 'CColumnIndex'.
instance FFIType ColumnIndex CColumnIndex where
  toFFI (ColumnIndex n) = CColumnIndex (fromIntegral n)
  fromFFI (CColumnIndex n) = ColumnIndex (fromIntegral n)

-- | 'Error' and 'CError'.
instance FFIType Error CError where
  toFFI = encodeError
  fromFFI = decodeError

-- | 'ColumnType' and 'CColumnType'.
instance FFIType ColumnType CColumnType where
  toFFI = encodeColumnType
  fromFFI = decodeColumnType

-- | 'ArgCount' and 'CArgCount'.
instance FFIType ArgCount CArgCount where
  toFFI (ArgCount n) = CArgCount (fromIntegral n)
  fromFFI (CArgCount n) = ArgCount (fromIntegral n)
