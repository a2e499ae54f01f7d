{-# LANGUAGE DeriveGeneric #-}
-- |
-- Module      : Database.SQLBatch.Error
-- Description : The exceptions of the binding: SQL errors and conversion errors
module Database.SQLBatch.Error
  ( -- * Errors reported by SQLite or sqlbatch
    SQLError (..)
  , Error (..)
  , decodeError
  , decodeExtended
  , encodeError
  , errorCodeName
  , sqlErrorPrimary
  , isLibraryCode
    -- * Errors converting a result to Haskell values
  , ResultError (..)
  , ColumnOutOfBounds (..)
    -- * Errors in a query's parameters
  , FormatError (..)
  ) where

import Control.Exception (Exception (..))
import Data.Bits ((.&.))
import Data.Int (Int32)
import Data.Text (Text)
import qualified Data.Text as T
import GHC.Generics (Generic)

import Database.SQLBatch.Internal.Code
  ( Error (..), IsSQLError (..), decodeError, decodeExtended, encodeError
  , errorCodeName, isLibraryCode, sqlErrorFromException, sqlErrorToException )
import qualified Database.SQLBatch.Internal.Code as Code
import Database.SQLBatch.Types (Query)

-- | A failure reported by SQLite or by sqlbatch, thrown by every function of
-- "Database.SQLBatch" (and returned by "Database.SQLBatch.Direct").
--
-- The message and context are lazy: they cost nothing unless read.
data SQLError = SQLError
  { sqlError :: !Error
    -- ^ The primary code, decoded.
  , sqlErrorCode :: !Int32
    -- ^ The code the failing call returned: SQLite's /extended/ result code
    -- (e.g. 2067, @SQLITE_CONSTRAINT_UNIQUE@) or a library code (1000 and up).
  , sqlErrorDetails :: Text
    -- ^ The message (@sqlite3_errmsg@ or sqlbatch's own).
  , sqlErrorContext :: Text
    -- ^ What was being done, e.g. @query \"SELECT ...\"@.
  , sqlErrorOffset :: !(Maybe Int)
    -- ^ Byte offset of the offending token in the SQL text given (for a script, counted
    -- from the start of the whole script), when SQLite knows it.
  , sqlErrorStatementIndex :: !(Maybe Int)
    -- ^ Scripts: index (from 0) of the statement that failed.
  , sqlErrorStatementOffset :: !(Maybe Int)
    -- ^ Scripts: byte offset where the failing statement starts.
  , sqlErrorRowIndex :: !(Maybe Int)
    -- ^ 'Database.SQLBatch.executeMany': index (from 0) of the parameter row that failed.
  }
  deriving (Eq, Generic)

-- | The primary code as a number (@sqlErrorCode .&. 0xff@ for SQLite codes).
sqlErrorPrimary :: SQLError -> Int32
sqlErrorPrimary e
  | isLibraryCode c = c
  | otherwise = c .&. 0xff
  where
    c = sqlErrorCode e

instance Show SQLError where
  show e =
    "SQLite error " ++ errorCodeName (sqlErrorCode e) ++ " (" ++ show (sqlErrorCode e) ++ "): "
      ++ T.unpack (sqlErrorDetails e)
      ++ maybe "" (\o -> " at byte " ++ show o) (sqlErrorOffset e)
      ++ maybe "" (\i -> ", statement " ++ show i) (sqlErrorStatementIndex e)
      ++ maybe "" (\o -> " starting at byte " ++ show o) (sqlErrorStatementOffset e)
      ++ maybe "" (\i -> ", parameter row " ++ show i) (sqlErrorRowIndex e)
      ++ (if T.null (sqlErrorContext e) then "" else "; in " ++ T.unpack (sqlErrorContext e))

-- | Thrown under 'SomeSQLError': a handler for direct-sqlite's @SQLError@
-- ("Database.SQLite3", "Database.SQLite.Simple") catches it too, converted (its 'Error',
-- message and context); and a handler for this type catches direct-sqlite's, with
-- 'sqlErrorCode' the 'Error'\'s code and no offsets or indexes.
instance Exception SQLError where
  toException = sqlErrorToException
  fromException = sqlErrorFromException fromDirectSQLError

instance IsSQLError SQLError where
  toDirectSQLError e = Code.SQLError
    { Code.sqlError = sqlError e
    , Code.sqlErrorDetails = sqlErrorDetails e
    , Code.sqlErrorContext = sqlErrorContext e }

-- | direct-sqlite's exception as this one.
fromDirectSQLError :: Code.SQLError -> SQLError
fromDirectSQLError d =
  SQLError (Code.sqlError d) (encodeError (Code.sqlError d)) (Code.sqlErrorDetails d)
    (Code.sqlErrorContext d) Nothing Nothing Nothing Nothing

-- | A value of a result could not be converted to the Haskell type asked for
-- (sqlite-simple's type: the SQL type found, the Haskell type wanted, and a message).
data ResultError
  = Incompatible { errSQLType :: String, errHaskellType :: String, errMessage :: String }
    -- ^ The SQL and Haskell types are not compatible.
  | UnexpectedNull { errSQLType :: String, errHaskellType :: String, errMessage :: String }
    -- ^ A SQL @NULL@ where the Haskell type does not permit it.
  | ConversionFailed { errSQLType :: String, errHaskellType :: String, errMessage :: String }
    -- ^ The SQL value could not be converted (the library's instances report every
    -- mismatch, NULL included, with this constructor, as sqlite-simple's do), or the
    -- number of columns does not match the row parser.
  deriving (Eq, Show, Generic)

instance Exception ResultError

-- | A query's text and its parameters do not match (sqlite-simple's type): a wrong number
-- of values, a named parameter given a positional value, an unknown name.
data FormatError = FormatError
  { fmtMessage :: String
  , fmtQuery :: Query
  , fmtParams :: [String]
  }
  deriving (Eq, Show, Generic)

instance Exception FormatError

-- | A row parser asked for the column at this index (counted from 1) of a row that has
-- fewer; 'Database.SQLBatch.query' reports it as a 'ConversionFailed', as sqlite-simple does.
newtype ColumnOutOfBounds = ColumnOutOfBounds { errorColumnIndex :: Int }
  deriving (Eq, Show, Generic)

instance Exception ColumnOutOfBounds
