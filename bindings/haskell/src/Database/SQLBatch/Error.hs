{-# LANGUAGE DeriveGeneric #-}
-- |
-- Module      : Database.SQLBatch.Error
-- Description : The exceptions of the binding: SQL errors and conversion errors
module Database.SQLBatch.Error
  ( -- * Errors reported by SQLite or sqlbatch
    SQLError (..)
  , Error (..)
  , decodeError
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
import Foreign.C.String (peekCString)
import Foreign.Ptr (nullPtr)
import GHC.Generics (Generic)
import System.IO.Unsafe (unsafeDupablePerformIO)

import Database.SQLBatch.Raw (c_sqlbatch_code_name)
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Types (Query)

-- | The primary result code of a failure, as a sum type (the names follow direct-sqlite's
-- @Error@), plus sqlbatch's own codes (1000 and up).
data Error
  = ErrorOK                  -- ^ @SQLITE_OK@ (0): not an error
  | ErrorError               -- ^ @SQLITE_ERROR@ (1): SQL error or missing database
  | ErrorInternal            -- ^ @SQLITE_INTERNAL@ (2)
  | ErrorPermission          -- ^ @SQLITE_PERM@ (3)
  | ErrorAbort               -- ^ @SQLITE_ABORT@ (4)
  | ErrorBusy                -- ^ @SQLITE_BUSY@ (5): the database file is locked
  | ErrorLocked              -- ^ @SQLITE_LOCKED@ (6): a table is locked
  | ErrorNoMemory            -- ^ @SQLITE_NOMEM@ (7)
  | ErrorReadOnly            -- ^ @SQLITE_READONLY@ (8)
  | ErrorInterrupt           -- ^ @SQLITE_INTERRUPT@ (9): interrupted (see 'Database.SQLBatch.interrupt')
  | ErrorIO                  -- ^ @SQLITE_IOERR@ (10)
  | ErrorCorrupt             -- ^ @SQLITE_CORRUPT@ (11)
  | ErrorNotFound            -- ^ @SQLITE_NOTFOUND@ (12)
  | ErrorFull                -- ^ @SQLITE_FULL@ (13)
  | ErrorCan'tOpen           -- ^ @SQLITE_CANTOPEN@ (14)
  | ErrorProtocol            -- ^ @SQLITE_PROTOCOL@ (15)
  | ErrorEmpty               -- ^ @SQLITE_EMPTY@ (16)
  | ErrorSchema              -- ^ @SQLITE_SCHEMA@ (17)
  | ErrorTooBig              -- ^ @SQLITE_TOOBIG@ (18)
  | ErrorConstraint          -- ^ @SQLITE_CONSTRAINT@ (19)
  | ErrorMismatch            -- ^ @SQLITE_MISMATCH@ (20)
  | ErrorMisuse              -- ^ @SQLITE_MISUSE@ (21)
  | ErrorNoLargeFileSupport  -- ^ @SQLITE_NOLFS@ (22)
  | ErrorAuthorization       -- ^ @SQLITE_AUTH@ (23)
  | ErrorFormat              -- ^ @SQLITE_FORMAT@ (24)
  | ErrorRange               -- ^ @SQLITE_RANGE@ (25): bind parameter index out of range
  | ErrorNotADatabase        -- ^ @SQLITE_NOTADB@ (26)
  | ErrorNotice              -- ^ @SQLITE_NOTICE@ (27)
  | ErrorWarning             -- ^ @SQLITE_WARNING@ (28)
  | ErrorRow                 -- ^ @SQLITE_ROW@ (100): not an error
  | ErrorDone                -- ^ @SQLITE_DONE@ (101): not an error
  | ErrorNullParameter       -- ^ @SQLBATCH_E_NULL_PARAMETER@ (1000)
  | ErrorPanic               -- ^ @SQLBATCH_E_PANIC@ (1001): a bug in sqlbatch
  | ErrorInvalidUtf8         -- ^ @SQLBATCH_E_INVALID_UTF8@ (1002)
  | ErrorOutOfRange          -- ^ @SQLBATCH_E_RANGE@ (1003): a size or index out of range
  | ErrorParamCount          -- ^ @SQLBATCH_E_PARAM_COUNT@ (1004): wrong number of parameters
  | ErrorStaleBatch          -- ^ @SQLBATCH_E_STALE_BATCH@ (1005)
  | ErrorClosed              -- ^ @SQLBATCH_E_CLOSED@ (1006): the connection was closed
  | ErrorInvalidArgument     -- ^ @SQLBATCH_E_INVALID_ARGUMENT@ (1007)
  | ErrorBufferTooSmall      -- ^ @SQLBATCH_E_BUFFER_TOO_SMALL@ (1008)
  | ErrorMultipleStatements  -- ^ @SQLBATCH_E_MULTIPLE_STATEMENTS@ (1009): a query (prepared
                             -- statement) holds more than one statement; see
                             -- 'Database.SQLBatch.executeScript' for scripts
  | ErrorSkipped             -- ^ @SQLBATCH_E_SKIPPED@ (1010): a bulk write queued behind one
                             -- that failed did not run (write-behind; 'Database.SQLBatch.executeMany'
                             -- reports the failure before it instead)
  | ErrorUnknown !Int32      -- ^ a code this binding does not know
  deriving (Eq, Show, Generic)

-- | The numbers of the constructors. The library's own codes come from the C header
-- (through "Database.SQLBatch.Raw.Types"); their names from the library
-- ('errorCodeName').
primaries :: [(Int32, Error)]
primaries =
  [ (0, ErrorOK), (1, ErrorError), (2, ErrorInternal), (3, ErrorPermission), (4, ErrorAbort)
  , (5, ErrorBusy), (6, ErrorLocked), (7, ErrorNoMemory), (8, ErrorReadOnly)
  , (9, ErrorInterrupt), (10, ErrorIO), (11, ErrorCorrupt), (12, ErrorNotFound), (13, ErrorFull)
  , (14, ErrorCan'tOpen), (15, ErrorProtocol), (16, ErrorEmpty), (17, ErrorSchema)
  , (18, ErrorTooBig), (19, ErrorConstraint), (20, ErrorMismatch), (21, ErrorMisuse)
  , (22, ErrorNoLargeFileSupport), (23, ErrorAuthorization), (24, ErrorFormat), (25, ErrorRange)
  , (26, ErrorNotADatabase), (27, ErrorNotice), (28, ErrorWarning), (sqlbatchRow, ErrorRow)
  , (sqlbatchDone, ErrorDone), (sqlbatchENullParameter, ErrorNullParameter)
  , (sqlbatchEPanic, ErrorPanic), (sqlbatchEInvalidUtf8, ErrorInvalidUtf8)
  , (sqlbatchERange, ErrorOutOfRange), (sqlbatchEParamCount, ErrorParamCount)
  , (sqlbatchEStaleBatch, ErrorStaleBatch), (sqlbatchEClosed, ErrorClosed)
  , (sqlbatchEInvalidArgument, ErrorInvalidArgument)
  , (sqlbatchEBufferTooSmall, ErrorBufferTooSmall)
  , (sqlbatchEMultipleStatements, ErrorMultipleStatements), (sqlbatchESkipped, ErrorSkipped)
  ]

-- | The 'Error' of a status code: library codes as they are, SQLite's extended codes by
-- their primary code (@code .&. 0xff@).
decodeError :: Int32 -> Error
decodeError c
  | isLibraryCode c = lookupOr c
  | c == sqlbatchRow || c == sqlbatchDone = lookupOr c
  | otherwise = lookupOr (c .&. 0xff)
  where
    lookupOr k = maybe (ErrorUnknown c) id (lookup k primaries)

-- | Whether a code is one of sqlbatch's own (@SQLBATCH_E_*@, the range 1000..1023 that the
-- header reserves for them), not SQLite's.
isLibraryCode :: Int32 -> Bool
isLibraryCode c = c >= 1000 && c <= 1023

-- | The primary code of an 'Error' ('ErrorUnknown' gives back its code).
encodeError :: Error -> Int32
encodeError (ErrorUnknown c) = c
encodeError e = maybe (-1) fst (lookup e [(v, (k, v)) | (k, v) <- primaries])

-- | The C name of a status code, as the library names it (@sqlbatch_code_name@): every
-- primary and extended code of the bundled SQLite (@\"SQLITE_CONSTRAINT_UNIQUE\"@,
-- @\"SQLITE_IOERR_FSYNC\"@) and every library code (@\"SQLBATCH_E_RANGE\"@);
-- @\"unknown code N\"@ for a code the library does not know.
errorCodeName :: Int32 -> String
errorCodeName c = unsafeDupablePerformIO $ do
  -- A static, NUL-terminated string (or NULL): nothing to free, the same on every call.
  p <- c_sqlbatch_code_name c
  if p == nullPtr then return ("unknown code " ++ show c) else peekCString p
{-# NOINLINE errorCodeName #-}

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

instance Exception SQLError

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
