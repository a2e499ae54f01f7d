{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE DeriveGeneric #-}
{-# LANGUAGE ExistentialQuantification #-}
-- |
-- Module      : Database.SQLBatch.Internal.Code
-- Description : Result codes ('Error') and direct-sqlite's exception, below both faces
--
-- The package's one result-code type ('Error') and direct-sqlite's three-field
-- exception ('SQLError', re-exported as @SQLError@ by "Database.SQLite3",
-- "Database.SQLite3.Direct" and "Database.SQLite.Simple"), with the root of the
-- package's SQL exceptions ('SomeSQLError'): every SQL failure of the package, whichever
-- face threw it, is caught by a handler for either exception type
-- ("Database.SQLBatch.Error"'s @SQLError@ or direct-sqlite's), converted.
module Database.SQLBatch.Internal.Code
  ( Error (..)
  , decodeError
  , decodeExtended
  , encodeError
  , errorCodeName
  , isLibraryCode
    -- * direct-sqlite's exception
  , SQLError (..)
    -- * The root of the SQL exceptions
  , SomeSQLError (..)
  , IsSQLError (..)
  , sqlErrorToException
  , sqlErrorFromException
  ) where

import Control.Exception (Exception (..), SomeException (..))
import Data.Bits ((.&.))
import Data.Int (Int32)
import Data.Text (Text)
import qualified Data.Text as T
import Data.Typeable (cast)
import Foreign.C.String (peekCString)
import Foreign.Ptr (nullPtr)
import GHC.Generics (Generic)
import System.IO.Unsafe (unsafeDupablePerformIO)

import Database.SQLBatch.Raw (c_sqlbatch_code_name)
import Database.SQLBatch.Raw.Types

-- | A result code as a sum type: SQLite's primary codes and the extended codes with
-- direct-sqlite's constructor names, and sqlbatch's own codes (1000 and up). One type for
-- the whole package: "Database.SQLite3" and "Database.SQLite.Simple" re-export it as
-- direct-sqlite's @Error@.
--
-- Which constructor a failure gets depends on the API: "Database.SQLBatch" and
-- "Database.SQLite.Simple" report the primary code ('ErrorConstraint'; the extended code is
-- in 'sqlErrorCode'), and so does "Database.SQLite3" unless extended result codes were
-- asked for (@setExtendedResultCodes@, or the @SQLOpenExResCode@ open flag): then it
-- reports the extended code's constructor ('ErrorConstraintUnique'), the primary one for an
-- extended code without a constructor here.
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
  | ErrorErrorMissingCollatingSquence  -- ^ @SQLITE_ERROR_MISSING_COLLSEQ@ (257)
  | ErrorErrorRetry                    -- ^ @SQLITE_ERROR_RETRY@ (513)
  | ErrorErrorSnapshot                 -- ^ @SQLITE_ERROR_SNAPSHOT@ (769)
  | ErrorIORead                        -- ^ @SQLITE_IOERR_READ@ (266)
  | ErrorIOShortRead                   -- ^ @SQLITE_IOERR_SHORT_READ@ (522)
  | ErrorIOWrite                       -- ^ @SQLITE_IOERR_WRITE@ (778)
  | ErrorIOFsync                       -- ^ @SQLITE_IOERR_FSYNC@ (1034)
  | ErrorIODirectoryFsync              -- ^ @SQLITE_IOERR_DIR_FSYNC@ (1290)
  | ErrorIOTruncate                    -- ^ @SQLITE_IOERR_TRUNCATE@ (1546)
  | ErrorIOFstat                       -- ^ @SQLITE_IOERR_FSTAT@ (1802)
  | ErrorIOUnlock                      -- ^ @SQLITE_IOERR_UNLOCK@ (2058)
  | ErrorIOReadLock                    -- ^ @SQLITE_IOERR_RDLOCK@ (2314)
  | ErrorIODelete                      -- ^ @SQLITE_IOERR_DELETE@ (2570)
  | ErrorIOBlocked                     -- ^ @SQLITE_IOERR_BLOCKED@ (2826)
  | ErrorIONoMemory                    -- ^ @SQLITE_IOERR_NOMEM@ (3082)
  | ErrorIOAccess                      -- ^ @SQLITE_IOERR_ACCESS@ (3338)
  | ErrorIOCheckReservedLock           -- ^ @SQLITE_IOERR_CHECKRESERVEDLOCK@ (3594)
  | ErrorIOLock                        -- ^ @SQLITE_IOERR_LOCK@ (3850)
  | ErrorIOClose                       -- ^ @SQLITE_IOERR_CLOSE@ (4106)
  | ErrorIODirectoryClose              -- ^ @SQLITE_IOERR_DIR_CLOSE@ (4362)
  | ErrorIOShmOpen                     -- ^ @SQLITE_IOERR_SHMOPEN@ (4618)
  | ErrorIOShmSize                     -- ^ @SQLITE_IOERR_SHMSIZE@ (4874)
  | ErrorIOShmLock                     -- ^ @SQLITE_IOERR_SHMLOCK@ (5130)
  | ErrorIOShmMap                      -- ^ @SQLITE_IOERR_SHMMAP@ (5386)
  | ErrorIOSeek                        -- ^ @SQLITE_IOERR_SEEK@ (5642)
  | ErrorIODeleteNoEntity              -- ^ @SQLITE_IOERR_DELETE_NOENT@ (5898)
  | ErrorIOMmap                        -- ^ @SQLITE_IOERR_MMAP@ (6154)
  | ErrorIOGetTempPath                 -- ^ @SQLITE_IOERR_GETTEMPPATH@ (6410)
  | ErrorIOConvertedPath               -- ^ @SQLITE_IOERR_CONVPATH@ (6666)
  | ErrorIOVNode                       -- ^ @SQLITE_IOERR_VNODE@ (6922)
  | ErrorIOAuth                        -- ^ @SQLITE_IOERR_AUTH@ (7178)
  | ErrorIOBeginAtomic                 -- ^ @SQLITE_IOERR_BEGIN_ATOMIC@ (7434)
  | ErrorIOCommitAtomic                -- ^ @SQLITE_IOERR_COMMIT_ATOMIC@ (7690)
  | ErrorIORollbackAtomic              -- ^ @SQLITE_IOERR_ROLLBACK_ATOMIC@ (7946)
  | ErrorIOData                        -- ^ @SQLITE_IOERR_DATA@ (8202)
  | ErrorIOCorruptFilesystem           -- ^ @SQLITE_IOERR_CORRUPTFS@ (8458)
  | ErrorLockedSharedCache             -- ^ @SQLITE_LOCKED_SHAREDCACHE@ (262)
  | ErrorLockedVirtualTable            -- ^ @SQLITE_LOCKED_VTAB@ (518)
  | ErrorBusyRecovery                  -- ^ @SQLITE_BUSY_RECOVERY@ (261)
  | ErrorBusySnapshot                  -- ^ @SQLITE_BUSY_SNAPSHOT@ (517)
  | ErrorBusyTimeout                   -- ^ @SQLITE_BUSY_TIMEOUT@ (773)
  | ErrorCan'tOpenNotTempDirectory     -- ^ @SQLITE_CANTOPEN_NOTEMPDIR@ (270)
  | ErrorCan'tOpenIsDirectory          -- ^ @SQLITE_CANTOPEN_ISDIR@ (526)
  | ErrorCan'tOpenFullPath             -- ^ @SQLITE_CANTOPEN_FULLPATH@ (782)
  | ErrorCan'tOpenConvertedPath        -- ^ @SQLITE_CANTOPEN_CONVPATH@ (1038)
  | ErrorCan'tOpenDirtyWriteAheadLog   -- ^ @SQLITE_CANTOPEN_DIRTYWAL@ (1294)
  | ErrorCan'tOpenSymlink              -- ^ @SQLITE_CANTOPEN_SYMLINK@ (1550)
  | ErrorCorruptVirtualTable           -- ^ @SQLITE_CORRUPT_VTAB@ (267)
  | ErrorCorruptSequence               -- ^ @SQLITE_CORRUPT_SEQUENCE@ (523)
  | ErrorCorruptIndex                  -- ^ @SQLITE_CORRUPT_INDEX@ (779)
  | ErrorReadOnlyRecovery              -- ^ @SQLITE_READONLY_RECOVERY@ (264)
  | ErrorReadOnlyCan'tLock             -- ^ @SQLITE_READONLY_CANTLOCK@ (520)
  | ErrorReadOnlyRollback              -- ^ @SQLITE_READONLY_ROLLBACK@ (776)
  | ErrorReadOnlyDatabaseMoved         -- ^ @SQLITE_READONLY_DBMOVED@ (1032)
  | ErrorReadOnlyCan'tInit             -- ^ @SQLITE_READONLY_CANTINIT@ (1288)
  | ErrorReadOnlyDirectory             -- ^ @SQLITE_READONLY_DIRECTORY@ (1544)
  | ErrorAbortRollback                 -- ^ @SQLITE_ABORT_ROLLBACK@ (516)
  | ErrorConstraintCheck               -- ^ @SQLITE_CONSTRAINT_CHECK@ (275)
  | ErrorConstraintCommitHook          -- ^ @SQLITE_CONSTRAINT_COMMITHOOK@ (531)
  | ErrorConstraintForeignKey          -- ^ @SQLITE_CONSTRAINT_FOREIGNKEY@ (787)
  | ErrorConstraintFunction            -- ^ @SQLITE_CONSTRAINT_FUNCTION@ (1043)
  | ErrorConstraintNotNull             -- ^ @SQLITE_CONSTRAINT_NOTNULL@ (1299)
  | ErrorConstraintPrimaryKey          -- ^ @SQLITE_CONSTRAINT_PRIMARYKEY@ (1555)
  | ErrorConstraintTrigger             -- ^ @SQLITE_CONSTRAINT_TRIGGER@ (1811)
  | ErrorConstraintUnique              -- ^ @SQLITE_CONSTRAINT_UNIQUE@ (2067)
  | ErrorConstraintVirtualTable        -- ^ @SQLITE_CONSTRAINT_VTAB@ (2323)
  | ErrorConstraintRowId               -- ^ @SQLITE_CONSTRAINT_ROWID@ (2579)
  | ErrorConstraintPinned              -- ^ @SQLITE_CONSTRAINT_PINNED@ (2835)
  | ErrorConstraintDataType            -- ^ @SQLITE_CONSTRAINT_DATATYPE@ (3091)
  | ErrorNoticeRecoverWriteAheadLog    -- ^ @SQLITE_NOTICE_RECOVER_WAL@ (283)
  | ErrorNoticeRecoverRollback         -- ^ @SQLITE_NOTICE_RECOVER_ROLLBACK@ (539)
  | ErrorWarningAutoIndex              -- ^ @SQLITE_WARNING_AUTOINDEX@ (284)
  | ErrorAuthUser                      -- ^ @SQLITE_AUTH_USER@ (279)
  | ErrorOkLoadPermanently             -- ^ @SQLITE_OK_LOAD_PERMANENTLY@ (256)
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
  | ErrorUnsupported         -- ^ @SQLBATCH_E_UNSUPPORTED@ (1011): this build of the library
                             -- lacks what the call needs: the key calls
                             -- ('Database.SQLBatch.openEncrypted', 'Database.SQLBatch.rekey',
                             -- 'Database.SQLBatch.export') in a build without encryption
  | ErrorUnknown !Int32      -- ^ a code this binding does not know
  deriving (Eq, Show, Generic)

-- | The numbers of the primary constructors. The library's own codes come from the C
-- header (through "Database.SQLBatch.Raw.Types"); their names from the library
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
  , (sqlbatchEUnsupported, ErrorUnsupported)
  ]

-- | The numbers of the extended constructors (SQLite's @SQLITE_*_*@ values: the primary code
-- in the low byte).
extendeds :: [(Int32, Error)]
extendeds =
  [ (257, ErrorErrorMissingCollatingSquence)
  , (513, ErrorErrorRetry)
  , (769, ErrorErrorSnapshot)
  , (266, ErrorIORead)
  , (522, ErrorIOShortRead)
  , (778, ErrorIOWrite)
  , (1034, ErrorIOFsync)
  , (1290, ErrorIODirectoryFsync)
  , (1546, ErrorIOTruncate)
  , (1802, ErrorIOFstat)
  , (2058, ErrorIOUnlock)
  , (2314, ErrorIOReadLock)
  , (2570, ErrorIODelete)
  , (2826, ErrorIOBlocked)
  , (3082, ErrorIONoMemory)
  , (3338, ErrorIOAccess)
  , (3594, ErrorIOCheckReservedLock)
  , (3850, ErrorIOLock)
  , (4106, ErrorIOClose)
  , (4362, ErrorIODirectoryClose)
  , (4618, ErrorIOShmOpen)
  , (4874, ErrorIOShmSize)
  , (5130, ErrorIOShmLock)
  , (5386, ErrorIOShmMap)
  , (5642, ErrorIOSeek)
  , (5898, ErrorIODeleteNoEntity)
  , (6154, ErrorIOMmap)
  , (6410, ErrorIOGetTempPath)
  , (6666, ErrorIOConvertedPath)
  , (6922, ErrorIOVNode)
  , (7178, ErrorIOAuth)
  , (7434, ErrorIOBeginAtomic)
  , (7690, ErrorIOCommitAtomic)
  , (7946, ErrorIORollbackAtomic)
  , (8202, ErrorIOData)
  , (8458, ErrorIOCorruptFilesystem)
  , (262, ErrorLockedSharedCache)
  , (518, ErrorLockedVirtualTable)
  , (261, ErrorBusyRecovery)
  , (517, ErrorBusySnapshot)
  , (773, ErrorBusyTimeout)
  , (270, ErrorCan'tOpenNotTempDirectory)
  , (526, ErrorCan'tOpenIsDirectory)
  , (782, ErrorCan'tOpenFullPath)
  , (1038, ErrorCan'tOpenConvertedPath)
  , (1294, ErrorCan'tOpenDirtyWriteAheadLog)
  , (1550, ErrorCan'tOpenSymlink)
  , (267, ErrorCorruptVirtualTable)
  , (523, ErrorCorruptSequence)
  , (779, ErrorCorruptIndex)
  , (264, ErrorReadOnlyRecovery)
  , (520, ErrorReadOnlyCan'tLock)
  , (776, ErrorReadOnlyRollback)
  , (1032, ErrorReadOnlyDatabaseMoved)
  , (1288, ErrorReadOnlyCan'tInit)
  , (1544, ErrorReadOnlyDirectory)
  , (516, ErrorAbortRollback)
  , (275, ErrorConstraintCheck)
  , (531, ErrorConstraintCommitHook)
  , (787, ErrorConstraintForeignKey)
  , (1043, ErrorConstraintFunction)
  , (1299, ErrorConstraintNotNull)
  , (1555, ErrorConstraintPrimaryKey)
  , (1811, ErrorConstraintTrigger)
  , (2067, ErrorConstraintUnique)
  , (2323, ErrorConstraintVirtualTable)
  , (2579, ErrorConstraintRowId)
  , (2835, ErrorConstraintPinned)
  , (3091, ErrorConstraintDataType)
  , (283, ErrorNoticeRecoverWriteAheadLog)
  , (539, ErrorNoticeRecoverRollback)
  , (284, ErrorWarningAutoIndex)
  , (279, ErrorAuthUser)
  , (256, ErrorOkLoadPermanently)
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

-- | The 'Error' of a status code with SQLite's extended codes kept: an extended code's
-- constructor ('ErrorConstraintUnique' for 2067), or for one without a constructor here its
-- primary code's (as 'decodeError').
decodeExtended :: Int32 -> Error
decodeExtended c = maybe (decodeError c) id (lookup c extendeds)

-- | Whether a code is one of sqlbatch's own (@SQLBATCH_E_*@, the range 1000..1023 that the
-- header reserves for them), not SQLite's.
isLibraryCode :: Int32 -> Bool
isLibraryCode c = c >= 1000 && c <= 1023

-- | The code of an 'Error' (an extended constructor gives its extended code,
-- 'ErrorUnknown' gives back its code).
encodeError :: Error -> Int32
encodeError (ErrorUnknown c) = c
encodeError e = maybe (-1) fst (lookup e [(v, (k, v)) | (k, v) <- primaries ++ extendeds])

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


-- | direct-sqlite's exception (its @SQLError@, with its three fields and its 'show'):
-- what "Database.SQLite3" throws, and the type under which "Database.SQLite3",
-- "Database.SQLite3.Direct" and "Database.SQLite.Simple" export @SQLError@.
--
-- A handler for it also catches the failures of "Database.SQLBatch" (and so of
-- "Database.SQLite.Simple", whose functions are those of "Database.SQLBatch"), converted:
-- the same 'Error', message and context. The reverse holds too: a handler for
-- "Database.SQLBatch.Error"'s @SQLError@ catches this one.
data SQLError = SQLError
  { sqlError :: !Error
    -- ^ Error code returned by API call
  , sqlErrorDetails :: Text
    -- ^ Text describing the error
  , sqlErrorContext :: Text
    -- ^ Indicates what action produced this error, e.g. @exec \"SELECT * FROM foo\"@
  }
  deriving (Eq)

instance Show SQLError where
  show e = T.unpack $ T.concat
    [ "SQLite3 returned ", T.pack (show (sqlError e)), " while attempting to perform "
    , sqlErrorContext e, ": ", sqlErrorDetails e ]

-- | The root of the package's SQL exceptions: both @SQLError@ types are thrown wrapped
-- in it, so that a handler for either one catches both (see 'sqlErrorFromException').
data SomeSQLError = forall e. IsSQLError e => SomeSQLError e

instance Show SomeSQLError where
  show (SomeSQLError e) = show e

instance Exception SomeSQLError where
  displayException (SomeSQLError e) = displayException e

-- | An exception type under 'SomeSQLError': it converts to direct-sqlite's.
class Exception e => IsSQLError e where
  -- | The failure as direct-sqlite's exception.
  toDirectSQLError :: e -> SQLError

instance IsSQLError SQLError where
  toDirectSQLError = id

-- | 'toException' of a type under 'SomeSQLError'.
sqlErrorToException :: IsSQLError e => e -> SomeException
sqlErrorToException = toException . SomeSQLError

-- | 'fromException' of a type under 'SomeSQLError': the exception if it is one of type
-- @e@, else the conversion (given) of any other exception under 'SomeSQLError'.
sqlErrorFromException :: IsSQLError e => (SQLError -> e) -> SomeException -> Maybe e
sqlErrorFromException conv se = do
  SomeSQLError e <- fromException se
  case cast e of
    Just x -> Just x
    Nothing -> Just (conv (toDirectSQLError e))

instance Exception SQLError where
  toException = sqlErrorToException
  fromException = sqlErrorFromException id
  displayException = show
