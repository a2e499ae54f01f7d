{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | direct-sqlite's documented behaviour, name by name, as its own test suite (test/Main.hs)
-- and its Haddocks state it: what a program written against direct-sqlite 2.3.29 and its
-- master branch sees with this package in its build-depends. Written against
-- "Database.SQLite3", "Database.SQLite3.Direct" and "Database.SQLite3.Bindings.Types" only.
module SQLite3Compat (compatTests, directSqliteNames) where

import Control.Concurrent (forkIO, newChan, readChan, threadDelay, writeChan)
import Control.Exception
import Control.Monad (forM_, replicateM_)
import qualified Data.ByteString as B
import Data.Int (Int64)
import Data.IORef
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Data.Text.Encoding.Error (UnicodeException (..))
import System.Directory (getTemporaryDirectory, removeFile)
import System.IO.Error (isUserError)
import System.Timeout (timeout)
import Test.HUnit

import Database.SQLite3
import qualified Database.SQLite3 as S3
import qualified Database.SQLite3.Bindings.Types as BT
import qualified Database.SQLite3.Direct as Direct
import Foreign.C.Types (CInt)
import Foreign.Ptr (Ptr)
import Data.Text (Text)

withDb :: (Database -> IO a) -> IO a
withDb = bracket (open ":memory:") (\db -> try (close db) :: IO (Either SQLError ()))

withStmt :: Database -> T.Text -> (Statement -> IO a) -> IO a
withStmt db sql = bracket (prepare db sql) finalize

-- | A file database of its own, removed afterwards: for tests with several connections.
withFile :: String -> (FilePath -> IO a) -> IO a
withFile name act = do
  tmp <- getTemporaryDirectory
  let file = tmp ++ "/sqlbatch-direct-compat-" ++ name ++ ".db"
      rm = mapM_ (\s -> try (removeFile (file ++ s)) :: IO (Either IOException ())) ["", "-journal", "-wal", "-shm"]
  bracket_ rm rm (act file)

errorOf :: IO a -> IO Error
errorOf act = do
  r <- try act
  case r of
    Left e -> return (sqlError e)
    Right _ -> assertFailure "expected an SQLError" >> undefined

failsWithUserError :: IO a -> Assertion
failsWithUserError act = do
  r <- try act
  case r of
    Left e -> assertBool ("a userError (fail), got " ++ show e) (isUserError e)
    Right _ -> assertFailure "expected a userError (fail)"

data Boom = Boom deriving (Show)

instance Exception Boom

-- | Every name direct-sqlite 2.3.29 exports from "Database.SQLite3",
-- "Database.SQLite3.Direct" and "Database.SQLite3.Bindings.Types" (its Hackage index), each
-- at the type it has there: this module compiles only if each exists here with that type
-- (the README's table of names says where a name differs, and why). Types and classes are
-- named in the signatures; data constructors are applied or matched.
directSqliteNames :: [()]
directSqliteNames =
  -- Database.SQLite3: connections, statements, binds and columns
  [ name (S3.open :: Text -> IO Database)
  , name (S3.open2 :: Text -> [SQLOpenFlag] -> SQLVFS -> IO Database)
  , name (S3.close :: Database -> IO ())
  , name (S3.withDatabase :: Text -> (Database -> IO ()) -> IO ())
  , name (S3.exec :: Database -> Text -> IO ())
  , name (S3.execPrint :: Database -> Text -> IO ())
  , name (S3.execWithCallback :: Database -> Text -> S3.ExecCallback -> IO ())
  , name ((\_ _ _ -> return ()) :: ColumnCount -> [Text] -> [Maybe Text] -> IO ()) `seq` name (undefined :: S3.ExecCallback)
  , name (S3.prepare :: Database -> Text -> IO Statement)
  , name (S3.prepareUtf8 :: Database -> Direct.Utf8 -> IO Statement)
  , name (S3.step :: Statement -> IO StepResult)
  , name (S3.stepNoCB :: Statement -> IO StepResult)
  , name (S3.reset :: Statement -> IO ())
  , name (S3.finalize :: Statement -> IO ())
  , name (S3.withStatement :: Database -> Text -> (Statement -> IO ()) -> IO ())
  , name (S3.clearBindings :: Statement -> IO ())
  , name (S3.bindParameterCount :: Statement -> IO ParamIndex)
  , name (S3.bindParameterName :: Statement -> ParamIndex -> IO (Maybe Text))
  , name (S3.columnCount :: Statement -> IO ColumnCount)
  , name (S3.columnName :: Statement -> ColumnIndex -> IO (Maybe Text))
  , name (S3.bindSQLData :: Statement -> ParamIndex -> SQLData -> IO ())
  , name (S3.bind :: Statement -> [SQLData] -> IO ())
  , name (S3.bindNamed :: Statement -> [(Text, SQLData)] -> IO ())
  , name (S3.bindInt :: Statement -> ParamIndex -> Int -> IO ())
  , name (S3.bindInt64 :: Statement -> ParamIndex -> Int64 -> IO ())
  , name (S3.bindDouble :: Statement -> ParamIndex -> Double -> IO ())
  , name (S3.bindText :: Statement -> ParamIndex -> Text -> IO ())
  , name (S3.bindBlob :: Statement -> ParamIndex -> B.ByteString -> IO ())
  , name (S3.bindZeroBlob :: Statement -> ParamIndex -> Int -> IO ())
  , name (S3.bindNull :: Statement -> ParamIndex -> IO ())
  , name (S3.column :: Statement -> ColumnIndex -> IO SQLData)
  , name (S3.columns :: Statement -> IO [SQLData])
  , name (S3.typedColumns :: Statement -> [Maybe ColumnType] -> IO [SQLData])
  , name (S3.columnType :: Statement -> ColumnIndex -> IO ColumnType)
  , name (S3.columnInt64 :: Statement -> ColumnIndex -> IO Int64)
  , name (S3.columnDouble :: Statement -> ColumnIndex -> IO Double)
  , name (S3.columnText :: Statement -> ColumnIndex -> IO Text)
  , name (S3.columnBlob :: Statement -> ColumnIndex -> IO B.ByteString)
  , name (S3.lastInsertRowId :: Database -> IO Int64)
  , name (S3.changes :: Database -> IO Int)
    -- Database.SQLite3: functions, collations, interrupts, blobs, backups
  , name (S3.createFunction :: Database -> Text -> Maybe ArgCount -> Bool -> (FuncContext -> FuncArgs -> IO ()) -> IO ())
  , name (S3.createAggregate :: Database -> Text -> Maybe ArgCount -> Int -> (FuncContext -> FuncArgs -> Int -> IO Int)
                                -> (FuncContext -> Int -> IO ()) -> IO ())
  , name (S3.deleteFunction :: Database -> Text -> Maybe ArgCount -> IO ())
  , name (S3.funcArgCount :: FuncArgs -> ArgCount)
  , name (S3.funcArgType :: FuncArgs -> ArgIndex -> IO ColumnType)
  , name (S3.funcArgInt64 :: FuncArgs -> ArgIndex -> IO Int64)
  , name (S3.funcArgDouble :: FuncArgs -> ArgIndex -> IO Double)
  , name (S3.funcArgText :: FuncArgs -> ArgIndex -> IO Text)
  , name (S3.funcArgBlob :: FuncArgs -> ArgIndex -> IO B.ByteString)
  , name (S3.funcResultSQLData :: FuncContext -> SQLData -> IO ())
  , name (S3.funcResultInt64 :: FuncContext -> Int64 -> IO ())
  , name (S3.funcResultDouble :: FuncContext -> Double -> IO ())
  , name (S3.funcResultText :: FuncContext -> Text -> IO ())
  , name (S3.funcResultBlob :: FuncContext -> B.ByteString -> IO ())
  , name (S3.funcResultZeroBlob :: FuncContext -> Int -> IO ())
  , name (S3.funcResultNull :: FuncContext -> IO ())
  , name (S3.getFuncContextDatabase :: FuncContext -> IO Database)
  , name (S3.createCollation :: Database -> Text -> (Text -> Text -> Ordering) -> IO ())
  , name (S3.deleteCollation :: Database -> Text -> IO ())
  , name (S3.interrupt :: Database -> IO ())
  , name (S3.interruptibly :: Database -> IO () -> IO ())
  , name (S3.blobOpen :: Database -> Text -> Text -> Text -> Int64 -> Bool -> IO Blob)
  , name (S3.blobClose :: Blob -> IO ())
  , name (S3.blobReopen :: Blob -> Int64 -> IO ())
  , name (S3.blobBytes :: Blob -> IO Int)
  , name (S3.blobRead :: Blob -> Int -> Int -> IO B.ByteString)
  , name (S3.blobReadBuf :: Blob -> Ptr () -> Int -> Int -> IO ())
  , name (S3.blobWrite :: Blob -> B.ByteString -> Int -> IO ())
  , name (S3.backupInit :: Database -> Text -> Database -> Text -> IO Backup)
  , name (S3.backupFinish :: Backup -> IO ())
  , name (S3.backupStep :: Backup -> Int -> IO BackupStepResult)
  , name (S3.backupRemaining :: Backup -> IO Int)
  , name (S3.backupPagecount :: Backup -> IO Int)
    -- Database.SQLite3: the types' constructors and fields
  , name [S3.SQLInteger 1, S3.SQLFloat 1, S3.SQLText "", S3.SQLBlob B.empty, S3.SQLNull]
  , name [ S3.SQLOpenReadOnly, S3.SQLOpenReadWrite, S3.SQLOpenCreate, S3.SQLOpenDeleteOnClose
         , S3.SQLOpenExclusive, S3.SQLOpenAutoProxy, S3.SQLOpenURI, S3.SQLOpenMemory
         , S3.SQLOpenMainDB, S3.SQLOpenTempDB, S3.SQLOpenTransientDB, S3.SQLOpenMainJournal
         , S3.SQLOpenTempJournal, S3.SQLOpenSubJournal, S3.SQLOpenMasterJournal, S3.SQLOpenNoMutex
         , S3.SQLOpenFullMutex, S3.SQLOpenSharedCache, S3.SQLOpenPrivateCache, S3.SQLOpenWAL
         , S3.SQLOpenNoFollow, S3.SQLOpenExResCode ]
  , name [ S3.SQLVFSDefault, S3.SQLVFSUnix, S3.SQLVFSUnixDotFile, S3.SQLVFSUnixExcl
         , S3.SQLVFSUnixNone, S3.SQLVFSUnixNamedSem, S3.SQLVFSCustom "" ]
  , name (S3.SQLError :: Error -> Text -> Text -> SQLError)
  , name (S3.sqlError :: SQLError -> Error, S3.sqlErrorDetails :: SQLError -> Text, S3.sqlErrorContext :: SQLError -> Text)
  , name [S3.IntegerColumn, S3.FloatColumn, S3.TextColumn, S3.BlobColumn, S3.NullColumn]
  , name [S3.Row, S3.Done]
  , name [S3.BackupOK, S3.BackupDone]
  , name (S3.ParamIndex :: Int -> ParamIndex, S3.ColumnIndex :: Int -> ColumnIndex, S3.ArgCount :: Int -> ArgCount)
  , name (0 :: S3.ColumnCount, 0 :: S3.ArgIndex)
  , name [ S3.ErrorOK, S3.ErrorError, S3.ErrorInternal, S3.ErrorPermission, S3.ErrorAbort, S3.ErrorBusy
         , S3.ErrorLocked, S3.ErrorNoMemory, S3.ErrorReadOnly, S3.ErrorInterrupt, S3.ErrorIO
         , S3.ErrorCorrupt, S3.ErrorNotFound, S3.ErrorFull, S3.ErrorCan'tOpen, S3.ErrorProtocol
         , S3.ErrorEmpty, S3.ErrorSchema, S3.ErrorTooBig, S3.ErrorConstraint, S3.ErrorMismatch
         , S3.ErrorMisuse, S3.ErrorNoLargeFileSupport, S3.ErrorAuthorization, S3.ErrorFormat
         , S3.ErrorRange, S3.ErrorNotADatabase, S3.ErrorNotice, S3.ErrorWarning, S3.ErrorRow
         , S3.ErrorDone ]
    -- Database.SQLite3.Direct
  , name (Direct.open :: Direct.Utf8 -> IO (Either (Error, Direct.Utf8) Database))
  , name (Direct.open2 :: Direct.Utf8 -> Int -> Maybe Direct.Utf8 -> IO (Either (Error, Direct.Utf8) Database))
  , name (Direct.close :: Database -> IO (Either Error ()))
  , name (Direct.errcode :: Database -> IO Error)
  , name (Direct.extendedErrcode :: Database -> IO Error)
  , name (Direct.errmsg :: Database -> IO Direct.Utf8)
  , name (Direct.setExtendedResultCodes :: Database -> Bool -> IO (Either Error ()))
  , name (Direct.setTrace :: Database -> Maybe (Direct.Utf8 -> IO ()) -> IO ())
  , name (Direct.getAutoCommit :: Database -> IO Bool)
  , name (Direct.setSharedCacheEnabled :: Bool -> IO (Either Error ()))
  , name (Direct.exec :: Database -> Direct.Utf8 -> IO (Either (Error, Direct.Utf8) ()))
  , name (Direct.execWithCallback :: Database -> Direct.Utf8 -> Direct.ExecCallback -> IO (Either (Error, Direct.Utf8) ()))
  , name ((\_ _ _ -> return ()) :: Direct.ExecCallback) `seq` name ((\_ _ _ -> return ()) :: ColumnCount -> [Direct.Utf8] -> [Maybe Direct.Utf8] -> IO ())
  , name (Direct.prepare :: Database -> Direct.Utf8 -> IO (Either Error (Maybe Statement)))
  , name (Direct.getStatementDatabase :: Statement -> IO Database)
  , name (Direct.step :: Statement -> IO (Either Error StepResult))
  , name (Direct.stepNoCB :: Statement -> IO (Either Error StepResult))
  , name (Direct.reset :: Statement -> IO (Either Error ()))
  , name (Direct.finalize :: Statement -> IO (Either Error ()))
  , name (Direct.clearBindings :: Statement -> IO ())
  , name (Direct.statementSql :: Statement -> IO (Maybe Direct.Utf8))
  , name (Direct.bindParameterCount :: Statement -> IO ParamIndex)
  , name (Direct.bindParameterName :: Statement -> ParamIndex -> IO (Maybe Direct.Utf8))
  , name (Direct.bindParameterIndex :: Statement -> Direct.Utf8 -> IO (Maybe ParamIndex))
  , name (Direct.columnCount :: Statement -> IO ColumnCount)
  , name (Direct.columnName :: Statement -> ColumnIndex -> IO (Maybe Direct.Utf8))
  , name (Direct.bindInt64 :: Statement -> ParamIndex -> Int64 -> IO (Either Error ()))
  , name (Direct.bindDouble :: Statement -> ParamIndex -> Double -> IO (Either Error ()))
  , name (Direct.bindText :: Statement -> ParamIndex -> Direct.Utf8 -> IO (Either Error ()))
  , name (Direct.bindBlob :: Statement -> ParamIndex -> B.ByteString -> IO (Either Error ()))
  , name (Direct.bindZeroBlob :: Statement -> ParamIndex -> Int -> IO (Either Error ()))
  , name (Direct.bindNull :: Statement -> ParamIndex -> IO (Either Error ()))
  , name (Direct.columnType :: Statement -> ColumnIndex -> IO ColumnType)
  , name (Direct.columnInt64 :: Statement -> ColumnIndex -> IO Int64)
  , name (Direct.columnDouble :: Statement -> ColumnIndex -> IO Double)
  , name (Direct.columnText :: Statement -> ColumnIndex -> IO Direct.Utf8)
  , name (Direct.columnBlob :: Statement -> ColumnIndex -> IO B.ByteString)
  , name (Direct.setLoadExtensionEnabled :: Database -> Bool -> IO (Either Error ()))
  , name (Direct.lastInsertRowId :: Database -> IO Int64)
  , name (Direct.changes :: Database -> IO Int)
  , name (Direct.totalChanges :: Database -> IO Int)
  , name (Direct.createFunction :: Database -> Direct.Utf8 -> Maybe ArgCount -> Bool -> (FuncContext -> FuncArgs -> IO ())
                                   -> IO (Either Error ()))
  , name (Direct.createAggregate :: Database -> Direct.Utf8 -> Maybe ArgCount -> Int
                                    -> (FuncContext -> FuncArgs -> Int -> IO Int) -> (FuncContext -> Int -> IO ())
                                    -> IO (Either Error ()))
  , name (Direct.deleteFunction :: Database -> Direct.Utf8 -> Maybe ArgCount -> IO (Either Error ()))
  , name (Direct.funcArgCount :: FuncArgs -> ArgCount)
  , name (Direct.funcArgType :: FuncArgs -> ArgIndex -> IO ColumnType)
  , name (Direct.funcArgInt64 :: FuncArgs -> ArgIndex -> IO Int64)
  , name (Direct.funcArgDouble :: FuncArgs -> ArgIndex -> IO Double)
  , name (Direct.funcArgText :: FuncArgs -> ArgIndex -> IO Direct.Utf8)
  , name (Direct.funcArgBlob :: FuncArgs -> ArgIndex -> IO B.ByteString)
  , name (Direct.funcResultInt64 :: FuncContext -> Int64 -> IO ())
  , name (Direct.funcResultDouble :: FuncContext -> Double -> IO ())
  , name (Direct.funcResultText :: FuncContext -> Direct.Utf8 -> IO ())
  , name (Direct.funcResultBlob :: FuncContext -> B.ByteString -> IO ())
  , name (Direct.funcResultZeroBlob :: FuncContext -> Int -> IO ())
  , name (Direct.funcResultNull :: FuncContext -> IO ())
  , name (Direct.getFuncContextDatabase :: FuncContext -> IO Database)
  , name (Direct.createCollation :: Database -> Direct.Utf8 -> (Direct.Utf8 -> Direct.Utf8 -> Ordering) -> IO (Either Error ()))
  , name (Direct.deleteCollation :: Database -> Direct.Utf8 -> IO (Either Error ()))
  , name (Direct.interrupt :: Database -> IO ())
  , name (Direct.blobOpen :: Database -> Direct.Utf8 -> Direct.Utf8 -> Direct.Utf8 -> Int64 -> Bool -> IO (Either Error Blob))
  , name (Direct.blobClose :: Blob -> IO (Either Error ()))
  , name (Direct.blobReopen :: Blob -> Int64 -> IO (Either Error ()))
  , name (Direct.blobBytes :: Blob -> IO Int)
  , name (Direct.blobRead :: Blob -> Int -> Int -> IO (Either Error B.ByteString))
  , name (Direct.blobReadBuf :: Blob -> Ptr () -> Int -> Int -> IO (Either Error ()))
  , name (Direct.blobWrite :: Blob -> B.ByteString -> Int -> IO (Either Error ()))
  , name (Direct.backupInit :: Database -> Direct.Utf8 -> Database -> Direct.Utf8 -> IO (Either Error Backup))
  , name (Direct.backupFinish :: Backup -> IO (Either Error ()))
  , name (Direct.backupStep :: Backup -> Int -> IO (Either Error BackupStepResult))
  , name (Direct.backupRemaining :: Backup -> IO Int)
  , name (Direct.backupPagecount :: Backup -> IO Int)
  , name (Direct.Utf8 :: B.ByteString -> Direct.Utf8)
  , name (undefined :: (Direct.Database, Direct.Statement, Direct.FuncContext, Direct.FuncArgs, Direct.Blob, Direct.Backup))
    -- Database.SQLite3.Bindings.Types
  , name (undefined :: (Ptr BT.CDatabase, Ptr BT.CStatement, Ptr BT.CValue, Ptr BT.CContext, Ptr BT.CBlob, Ptr BT.CBackup))
  , name (BT.CError :: CInt -> BT.CError, BT.decodeError :: BT.CError -> Error, BT.encodeError :: Error -> BT.CError)
  , name (BT.CColumnType :: CInt -> BT.CColumnType, BT.decodeColumnType :: BT.CColumnType -> ColumnType
         , BT.encodeColumnType :: ColumnType -> BT.CColumnType)
  , name (BT.CParamIndex :: CInt -> BT.CParamIndex, BT.CColumnIndex :: CInt -> BT.CColumnIndex, 0 :: BT.CColumnCount)
  , name (BT.CNumBytes :: CInt -> BT.CNumBytes, BT.c_SQLITE_STATIC :: Ptr BT.CDestructor
         , BT.c_SQLITE_TRANSIENT :: Ptr BT.CDestructor, BT.c_SQLITE_UTF8 :: CInt)
  , name (BT.CArgCount :: CInt -> BT.CArgCount, BT.c_SQLITE_DETERMINISTIC :: CInt)
  , name (BT.toFFI :: ParamIndex -> BT.CParamIndex, BT.fromFFI :: BT.CParamIndex -> ParamIndex)
  ]
  where
    name :: a -> ()
    name x = x `seq` ()

compatTests :: Test
compatTests = TestList
  [ "exec: empty text, lone semicolons and comments run nothing; an open comment is ErrorError" ~: withDb $ \db -> do
      mapM_ (exec db) ["", "     ", ";", " ; ; ; ", "--", ";--\n;/**/"]
      errorOf (exec db "/*") >>= (@?= ErrorError)
  , "exec runs every statement; values come back as stored" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (n FLOAT, t TEXT); INSERT INTO foo VALUES (3.5, null); \
              \INSERT INTO foo VALUES (null, '\7740\8358\9432\8353\7907\8363\7709'); \
              \INSERT INTO foo VALUES (null, ''); INSERT INTO foo VALUES (null, 'null'); \
              \INSERT INTO foo VALUES (null, null)"
      withStmt db "SELECT * FROM foo" $ \st -> do
        let row want = step st >>= (@?= Row) >> columns st >>= (@?= want)
        row [SQLFloat 3.5, SQLNull]
        row [SQLNull, SQLText "\7740\8358\9432\8353\7907\8363\7709"]
        row [SQLNull, SQLText ""]
        row [SQLNull, SQLText "null"]
        row [SQLNull, SQLNull]
        step st >>= (@?= Done)
  , "execWithCallback: count, names and values of each row; the callback's exception comes out" ~: withDb $ \db -> do
      chan <- newChan
      let run sql = execWithCallback db sql (\n names vals -> writeChan chan (n, names, vals))
      run "CREATE TABLE foo (a INT, b TEXT); INSERT INTO foo VALUES (1, 'a'), (2, 'b'), (3, null), (null, 'd')"
      run "SELECT 1, 2, 3"
      readChan chan >>= (@?= (3, ["1", "2", "3"], [Just "1", Just "2", Just "3"]))
      run "SELECT null"
      readChan chan >>= (@?= (1, ["null"], [Nothing]))
      run "SELECT * FROM foo WHERE a < 0; SELECT 123"
      readChan chan >>= (@?= (1, ["123"], [Just "123"]))
      run "SELECT rowid, f.a, f.b, a || b FROM foo AS f WHERE rowid <= 2"
      readChan chan >>= (@?= (4, ["rowid", "a", "b", "a || b"], [Just "1", Just "1", Just "a", Just "1a"]))
      readChan chan >>= (@?= (4, ["rowid", "a", "b", "a || b"], [Just "2", Just "2", Just "b", Just "2b"]))
      r <- try (execWithCallback db "SELECT 1" (\_ _ _ -> throwIO Boom))
      case r of
        Left Boom -> return ()
        Right () -> assertFailure "the callback's exception was lost"
  , "Direct.setTrace: each statement's text, its parameters in place; Nothing stops it" ~: withDb $ \db -> do
      chan <- newChan
      Direct.setTrace db (Just (writeChan chan))
      withStmt db "SELECT null" $ \st -> step st >> step st >>= (@?= Done)
      readChan chan >>= (@?= Direct.Utf8 "SELECT null")
      withStmt db "SELECT 1+?" $ \st -> do
        bind st [SQLInteger 2]
        _ <- step st
        reset st
        bind st [SQLInteger 3]
        _ <- step st
        readChan chan >>= (@?= Direct.Utf8 "SELECT 1+2")
        readChan chan >>= (@?= Direct.Utf8 "SELECT 1+3")
        Direct.setTrace db Nothing
        reset st
        _ <- step st
        writeChan chan (Direct.Utf8 "empty")
        readChan chan >>= (@?= Direct.Utf8 "empty")
  , "prepare: fails on text with no statement; runs only the first statement" ~: withDb $ \db -> do
      failsWithUserError (prepare db "")
      failsWithUserError (prepare db ";")
      withStmt db "CREATE TABLE foo (a INT, b INT); INSERT INTO foo VALUES (1, 2)" $ \st -> step st >>= (@?= Done)
      withStmt db "SELECT * FROM foo" $ \st -> step st >>= (@?= Done)
  , "close with a statement alive: ErrorBusy; after its finalize, closes" ~: do
      db <- open ":memory:"
      st <- prepare db "SELECT 1"
      errorOf (close db) >>= (@?= ErrorBusy)
      finalize st
      close db
  , "bind, bindBlob and bindZeroBlob" ~: withDb $ \db -> do
      withStmt db "SELECT ?+?" $ \st -> do
        bind st [SQLInteger 1, SQLInteger 1]
        _ <- step st
        columns st >>= (@?= [SQLInteger 2])
      withStmt db "SELECT ?,?" $ \st -> do
        bindBlob st 1 (B.replicate 7 0)
        bindZeroBlob st 2 7
        _ <- step st
        columns st >>= (@?= [SQLBlob (B.replicate 7 0), SQLBlob (B.replicate 7 0)])
  , "bindParameterCount: the largest index, gaps included" ~: withDb $ \db -> do
      let count sql = withStmt db sql bindParameterCount
      forM_ [("SELECT $a", 1), ("SELECT (?1+?1+?1+?2+?3)", 3), ("SELECT (?+?+?)", 3), ("SELECT ?3, ?5, ?1", 5)
            , ("SELECT ?3, ?5, ?1, ?", 6), ("SELECT ?, ?5, ?, ?2, ?, ?6, ?", 8), ("SELECT 1", 0)] $ \(sql, n) ->
        count sql >>= assertEqual (T.unpack sql) n
  , "bindParameterName: names with their prefix, Nothing for ?" ~: withDb $ \db -> do
      let names sql = withStmt db sql $ \st -> do
            n <- bindParameterCount st
            mapM (bindParameterName st) [1 .. n]
      names "SELECT :v + :v2" >>= (@?= [Just ":v", Just ":v2"])
      names "SELECT ?1 + ?1" >>= (@?= [Just "?1"])
      names "SELECT ? + ?" >>= (@?= [Nothing, Nothing])
      names "SELECT $1 + $2" >>= (@?= [Just "$1", Just "$2"])
  , "bind of the wrong count fails (userError); bindNamed with an unknown name too" ~: withDb $ \db -> do
      withStmt db "SELECT ?" $ \st -> failsWithUserError (bind st [])
      withStmt db "SELECT ?" $ \st -> failsWithUserError (bind st [SQLInteger 1, SQLInteger 2])
      withStmt db "SELECT :bar" $ \st -> do
        failsWithUserError (bindNamed st [(":missing", SQLInteger 42)])
        bindNamed st [(":bar", SQLInteger 1)]
        _ <- step st
        column st 0 >>= (@?= SQLInteger 1)
  , "Direct.bindParameterIndex: exact names only; bindNamed in any order" ~: withDb $ \db -> do
      withStmt db "SELECT :foo / :bar" $ \st -> do
        Just foo <- Direct.bindParameterIndex st ":foo"
        Just bar <- Direct.bindParameterIndex st ":bar"
        Direct.bindParameterIndex st "intentionally_undefined" >>= (@?= Nothing)
        Right () <- Direct.bindInt64 st foo 4
        Right () <- Direct.bindInt64 st bar 2
        _ <- step st
        columns st >>= (@?= [SQLInteger 2])
      withStmt db "SELECT @n1+@n2" $ \st -> do
        Direct.bindParameterIndex st "@n1" >>= (@?= Just 1)
        Direct.bindParameterIndex st ":n1" >>= (@?= Nothing)
      withStmt db "SELECT :foo / :bar,:t" $ \st -> do
        bindNamed st [(":t", SQLText "txt"), (":foo", SQLInteger 6), (":bar", SQLInteger 2)]
        _ <- step st
        columns st >>= (@?= [SQLInteger 3, SQLText "txt"])
  , "columnCount follows the schema as SQLite prepares the statement again" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (a INT)"
      withStmt db "SELECT * FROM foo" $ \st -> do
        columnCount st >>= (@?= 1)
        exec db "ALTER TABLE foo ADD COLUMN b INT"
        step st >>= (@?= Done)
        columnCount st >>= (@?= 2)
      exec db "INSERT INTO foo VALUES (1, 2), (3, 4), (5, 6)"
      withStmt db "SELECT * FROM foo" $ \st -> do
        columnCount st >>= (@?= 2)
        exec db "ALTER TABLE foo ADD COLUMN c INT"
        step st >>= (@?= Row)
        columnCount st >>= (@?= 3)
        columns st >>= (@?= [SQLInteger 1, SQLInteger 2, SQLNull])
        -- A schema change while the statement runs waits for its next run.
        exec db "ALTER TABLE foo ADD COLUMN d INT NOT NULL DEFAULT 42"
        step st >>= (@?= Row)
        columns st >>= (@?= [SQLInteger 3, SQLInteger 4, SQLNull])
        step st >>= (@?= Row)
        step st >>= (@?= Done)
        columnCount st >>= (@?= 3)
        reset st
        columnCount st >>= (@?= 3)
        step st >>= (@?= Row)
        columnCount st >>= (@?= 4)
        columns st >>= (@?= [SQLInteger 1, SQLInteger 2, SQLNull, SQLInteger 42])
      withStmt db "CREATE TABLE bar (x INT)" $ \st -> do
        columnCount st >>= (@?= 0)
        step st >>= (@?= Done)
        columnCount st >>= (@?= 0)
  , "typedColumns converts as sqlite3_column_* do" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (a INT, b INT); INSERT INTO foo VALUES (1, 2), (3, 4)"
      withStmt db "SELECT * FROM foo" $ \st -> do
        _ <- step st
        typedColumns st [Nothing, Nothing] >>= (@?= [SQLInteger 1, SQLInteger 2])
        typedColumns st [Just TextColumn, Just TextColumn] >>= (@?= [SQLText "1", SQLText "2"])
        _ <- step st
        typedColumns st [Just FloatColumn, Just FloatColumn] >>= (@?= [SQLFloat 3, SQLFloat 4])
  , "a BLOB read as a number converts in the database's encoding, as SQLite's CAST (UTF-16le, UTF-16be, UTF-8)" ~:
      forM_ ["UTF-16le", "UTF-16be", "UTF-8"] $ \enc -> withDb $ \db -> do
        exec db ("PRAGMA encoding = '" <> enc <> "'")
        exec db "CREATE TABLE t (b BLOB); INSERT INTO t VALUES (CAST('12' AS BLOB)), \
                \(CAST(' 3.5e1' AS BLOB)), (CAST('-7x' AS BLOB)), (CAST('1e400' AS BLOB)), (x'3100320033'), \
                \(x'0031003200'), (x''), (x'00')"
        withStmt db "PRAGMA encoding" $ \st -> step st >> columnText st 0 >>= (@?= enc)
        withStmt db "SELECT b, CAST(b AS INTEGER), CAST(b AS REAL) FROM t ORDER BY rowid" $ \st -> do
          let loop :: Int -> IO Int
              loop n = do
                r <- step st
                case r of
                  Done -> return n
                  Row -> do
                    let what = T.unpack enc ++ ", row " ++ show n
                    columnType st 0 >>= assertEqual what BlobColumn
                    wantI <- columnInt64 st 1
                    wantD <- columnDouble st 2
                    columnInt64 st 0 >>= assertEqual (what ++ ": columnInt64") wantI
                    columnDouble st 0 >>= assertEqual (what ++ ": columnDouble") wantD
                    typedColumns st [Just IntegerColumn, Nothing, Nothing]
                      >>= assertEqual (what ++ ": typedColumns") [SQLInteger wantI, SQLInteger wantI, SQLFloat wantD]
                    typedColumns st [Just FloatColumn, Nothing, Nothing]
                      >>= assertEqual (what ++ ": typedColumns") [SQLFloat wantD, SQLInteger wantI, SQLFloat wantD]
                    loop (n + 1)
          loop 0 >>= (@?= 8)
        -- The first value is the text '12' in the database's encoding: 12 in every one (read
        -- as UTF-8, the UTF-16 bytes would give 1 or 0).
        withStmt db "SELECT b FROM t ORDER BY rowid LIMIT 1" $ \st -> do
          _ <- step st
          columnInt64 st 0 >>= (@?= 12)
          columnDouble st 0 >>= (@?= 12)
  , "columnName: Nothing out of range, minBound and maxBound included; names after AS" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (id INTEGER PRIMARY KEY, abc TEXT, \"123\" REAL, \252ber INT); \
              \INSERT INTO foo (abc, \"123\", \252ber) VALUES ('hello', 3.14, 456)"
      withStmt db "SELECT id AS id, abc AS x, \"123\" AS y, \252ber AS \252 FROM foo" $ \st -> do
        let names = do
              columnCount st >>= (@?= 4)
              mapM (columnName st) [-1, 0, 1, 2, 3, 4, minBound, maxBound]
                >>= (@?= [Nothing, Just "id", Just "x", Just "y", Just "\252", Nothing, Nothing, Nothing])
        names
        step st >>= (@?= Row)
        names
        columns st >>= (@?= [SQLInteger 1, SQLText "hello", SQLFloat 3.14, SQLInteger 456])
        step st >>= (@?= Done)
        names
  , "errors: constraint, range of binds, NULL for a column out of range, unused numbered parameters" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (n INT UNIQUE); INSERT INTO foo VALUES (3)"
      errorOf (exec db "INSERT INTO foo VALUES (3)") >>= (@?= ErrorConstraint)
      exec db "INSERT INTO foo VALUES (null); INSERT INTO foo VALUES (null)"
      withStmt db "SELECT ?" $ \st -> do
        forM_ [-1, 0, 2] $ \i -> do
          errorOf (bindSQLData st i (SQLInteger 42)) >>= (@?= ErrorRange)
          errorOf (bindSQLData st i SQLNull) >>= (@?= ErrorRange)
        bindSQLData st 1 (SQLInteger 42)
        _ <- step st
        column st (-1) >>= (@?= SQLNull)
        column st 1 >>= (@?= SQLNull)
        column st 0 >>= (@?= SQLInteger 42)
      withStmt db "SELECT 1" $ \st -> do
        bind st []
        _ <- step st
        column st 0 >>= (@?= SQLInteger 1)
      withStmt db "SELECT ?5" $ \st -> do
        errorOf (bindSQLData st 6 SQLNull) >>= (@?= ErrorRange)
        bind st (map SQLInteger [1 .. 5])
        _ <- step st
        columns st >>= (@?= [SQLInteger 5])
  , "errors across connections: ErrorLocked on the same one, ErrorBusy on another; a step after the table vanished fails" ~: withFile "locked" $ \file -> do
      let fresh = open (T.pack file)
      db <- fresh
      -- More rows than the first batch (16): the statement is still running after its first
      -- step, as direct-sqlite's is (see the README: a SELECT reads up to a batch ahead).
      exec db "CREATE TABLE foo (a INT, b INT); INSERT INTO foo VALUES (1, 2), (3, 4), (5, 6)"
      exec db "INSERT INTO foo SELECT a + 6, b + 6 FROM foo; INSERT INTO foo SELECT a + 12, b + 12 FROM foo; \
              \INSERT INTO foo SELECT a + 24, b + 24 FROM foo; INSERT INTO foo SELECT a + 48, b + 48 FROM foo"
      withStmt db "SELECT * FROM foo" $ \st -> do
        _ <- step st
        columns st >>= (@?= [SQLInteger 1, SQLInteger 2])
        errorOf (exec db "DROP TABLE foo") >>= (@?= ErrorLocked)
        bracket fresh close $ \db2 -> do
          errorOf (exec db2 "DROP TABLE foo") >>= (@?= ErrorBusy)
          exec db2 "BEGIN; DROP TABLE foo"
          errorOf (exec db2 "COMMIT") >>= (@?= ErrorBusy)
          exec db2 "ROLLBACK"
        let drain = step st >>= \r -> if r == Row then drain else return ()
        drain
        exec db "DROP TABLE foo"
        Direct.reset st >>= (@?= Right ())
        e <- errorOf (step st)
        assertBool ("a step after the table vanished: " ++ show e) (e `elem` [ErrorError, ErrorSchema])
      close db
  , "integrity: extreme values come back as stored; NaN as NULL" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (i INT, f FLOAT, t TEXT, b BLOB, n TEXT)"
      withStmt db "INSERT INTO foo VALUES (?, ?, ?, ?, ?)" $ \ins -> withStmt db "SELECT * FROM foo" $ \sel -> do
        let roundTrip vs = do
              exec db "DELETE FROM foo"
              reset ins
              bind ins vs
              step ins >>= (@?= Done)
              reset sel
              step sel >>= (@?= Row)
              r <- columns sel
              step sel >>= (@?= Done)
              return r
        forM_ [ [SQLInteger 0, SQLFloat 0, SQLText "", SQLBlob B.empty, SQLNull]
              , [SQLInteger minBound, SQLFloat (-1 / 0), SQLText "\0", SQLBlob (B.pack [0]), SQLNull]
              , [SQLInteger maxBound, SQLFloat (1 / 0), SQLText "\1114111", SQLBlob (B.pack [255]), SQLNull] ] $ \vs ->
          roundTrip vs >>= (@?= vs)
        roundTrip [SQLNull, SQLFloat (0 / 0), SQLNull, SQLNull, SQLNull] >>= (@?= replicate 5 SQLNull)
  , "invalid UTF-8: column throws DecodeError, Direct.columnText gives the bytes" ~: withDb $ \db ->
      withStmt db "SELECT ?" $ \st -> do
        Right () <- Direct.bindText st 1 (Direct.Utf8 (B.pack [0x80]))
        _ <- step st
        r <- try (column st 0)
        case r of
          Left (DecodeError msg _) -> msg @?= "Database.SQLite3.columnText: Invalid UTF-8"
          Left e -> assertFailure (show e)
          Right v -> assertFailure ("decoded " ++ show v)
        Direct.columnText st 0 >>= (@?= Direct.Utf8 (B.pack [0x80]))
  , "lastInsertRowId, changes and totalChanges" ~: withDb $ \db -> do
      let stats = (,,) <$> lastInsertRowId db <*> changes db <*> Direct.totalChanges db
      stats >>= (@?= (0, 0, 0))
      exec db "CREATE TABLE tbl (n INTEGER PRIMARY KEY)"
      stats >>= (@?= (0, 0, 0))
      exec db "INSERT INTO tbl DEFAULT VALUES"
      stats >>= (@?= (1, 1, 1))
      exec db "INSERT INTO tbl VALUES (123)"
      stats >>= (@?= (123, 1, 2))
      exec db "INSERT INTO tbl VALUES (9223372036854775807)"
      stats >>= (@?= (maxBound, 1, 3))
      exec db "UPDATE tbl SET rowid=rowid+1 WHERE rowid=1 OR rowid=123"
      (_, c, t) <- stats
      (c, t) @?= (2, 5)
      errorOf (exec db "UPDATE tbl SET rowid=4") >>= (@?= ErrorConstraint)
      exec db "DELETE FROM tbl"
      (_, c', t') <- stats
      (c', t') @?= (3, 8)
  , "getAutoCommit: in and out of transactions, and after a failed statement" ~: withDb $ \db -> do
      Direct.getAutoCommit db >>= (@?= True)
      exec db "BEGIN"
      Direct.getAutoCommit db >>= (@?= False)
      Left (ErrorError, _) <- Direct.exec db "BEGIN"
      exec db "ROLLBACK"
      Direct.getAutoCommit db >>= (@?= True)
      Left (ErrorError, _) <- Direct.exec db "ROLLBACK"
      exec db "BEGIN"
      Left (ErrorFull, _) <- Direct.exec db "PRAGMA max_page_count=1; CREATE TABLE foo (a INT)"
      -- The SQLite of today keeps the transaction open after SQLITE_FULL (direct-sqlite's
      -- test was written when SQLite rolled it back): what getAutoCommit is for.
      Direct.getAutoCommit db >>= (@?= False)
      exec db "ROLLBACK"
      Direct.getAutoCommit db >>= (@?= True)
  , "Direct.statementSql" ~: withDb $ \db ->
      withStmt db "SELECT 1+1" $ \st -> Direct.statementSql st >>= (@?= Just "SELECT 1+1")
  , "createFunction, funcArg*, funcResultText, deleteFunction" ~: withDb $ \db -> do
      createFunction db "repeat" (Just 2) True $ \ctx args -> do
        n <- funcArgInt64 args 0
        s <- funcArgText args 1
        funcResultText ctx (T.concat (replicate (fromIntegral n) s))
      withStmt db "SELECT repeat(3,'abc'), repeat('2', 7)" $ \st -> do
        step st >>= (@?= Row)
        -- funcArgInt64 and funcArgText convert as sqlite3_value_* do ('2' is 2, 7 is \"7\").
        columns st >>= (@?= [SQLText "abcabcabc", SQLText "77"])
      deleteFunction db "repeat" (Just 2)
      errorOf (exec db "SELECT repeat(3,'abc')") >>= (@?= ErrorError)
  , "a function's exception fails the statement with its text" ~: withDb $ \db -> do
      createFunction db "fail" (Just 0) True (\_ _ -> error "error message")
      r <- try (exec db "SELECT fail()")
      case r of
        Left e -> do
          sqlError e @?= ErrorError
          T.take 13 (sqlErrorDetails e) @?= "error message"
        Right () -> assertFailure "no error"
  , "createAggregate: a state per group, the final result" ~: withDb $ \db -> do
      exec db "CREATE TABLE tbl (n INT); INSERT INTO tbl(n) VALUES (12), (-3), (7)"
      createAggregate db "mysum" (Just 1) 0 (\_ args s -> (s +) <$> funcArgInt64 args 0) funcResultInt64
      withStmt db "SELECT mysum(n) FROM tbl" $ \st -> step st >> columns st >>= (@?= [SQLInteger 16])
      withStmt db "SELECT mysum(n) FROM tbl WHERE n > 100" $ \st -> step st >> columns st >>= (@?= [SQLInteger 0])
      deleteFunction db "mysum" (Just 1)
      errorOf (exec db "SELECT mysum(n) FROM tbl") >>= (@?= ErrorError)
  , "createCollation, deleteCollation" ~: withDb $ \db -> do
      exec db "CREATE TABLE tbl (n TEXT); INSERT INTO tbl(n) VALUES ('dog'),('mouse'),('ox'),('cat')"
      createCollation db "len" (\a b -> compare (T.length a) (T.length b) <> compare a b)
      withStmt db "SELECT * FROM tbl ORDER BY n COLLATE len" $ \st -> do
        let go acc = step st >>= \r -> case r of
              Row -> column st 0 >>= \v -> go (v : acc)
              Done -> return (reverse acc)
        go [] >>= (@?= map SQLText ["ox", "cat", "dog", "mouse"])
      deleteCollation db "len"
      errorOf (exec db "SELECT * FROM tbl ORDER BY n COLLATE len") >>= (@?= ErrorError)
  , "funcArgCount, funcArgType, funcArgDouble, funcArgBlob, out-of-range arguments, funcResult*" ~: withDb $ \db -> do
      createFunction db "describe" Nothing True $ \ctx args -> do
        BT.ArgCount n <- return (funcArgCount args)
        ts <- mapM (funcArgType args . fromIntegral) [0 .. n - 1]
        d <- funcArgDouble args 0
        b <- funcArgBlob args 1
        past <- (,,) <$> funcArgInt64 args 99 <*> funcArgType args 99 <*> funcArgBlob args 99
        funcResultSQLData ctx (SQLText (T.pack (show (ts, d, b, past))))
      withStmt db "SELECT describe('2.5', 12, NULL, x'00')" $ \st -> do
        _ <- step st
        column st 0 >>= (@?= SQLText (T.pack (show ([TextColumn, IntegerColumn, NullColumn, BlobColumn], 2.5 :: Double, "12" :: B.ByteString, (0 :: Int64, NullColumn, "" :: B.ByteString)))))
      createFunction db "zb" (Just 1) True $ \ctx args -> funcArgInt64 args 0 >>= funcResultZeroBlob ctx . fromIntegral
      createFunction db "nul" (Just 0) True $ \ctx _ -> funcResultNull ctx
      createFunction db "dbl" (Just 0) True $ \ctx _ -> funcResultDouble ctx 0.5
      createFunction db "blb" (Just 0) True $ \ctx _ -> funcResultBlob ctx "xy"
      withStmt db "SELECT zb(3), nul(), dbl(), blb()" $ \st -> do
        _ <- step st
        columns st >>= (@?= [SQLBlob (B.replicate 3 0), SQLNull, SQLFloat 0.5, SQLBlob "xy"])
  , "getFuncContextDatabase; a function that uses its own connection fails the statement" ~: withDb $ \db -> do
      seen <- newIORef Nothing
      createFunction db "who" (Just 0) False $ \ctx _ -> do
        d <- getFuncContextDatabase ctx
        writeIORef seen (Just (d == db))
        funcResultInt64 ctx 1
      createFunction db "reenter" (Just 0) False $ \ctx _ -> do
        d <- getFuncContextDatabase ctx
        exec d "SELECT 1"
        funcResultInt64 ctx 1
      exec db "SELECT who()"
      readIORef seen >>= (@?= Just True)
      errorOf (exec db "SELECT reenter()") >>= (@?= ErrorError)
      -- and the connection goes on
      withStmt db "SELECT 41 + who()" $ \st -> step st >> column st 0 >>= (@?= SQLInteger 42)
  , "incremental blob I/O" ~: withDb $ \db -> do
      exec db "CREATE TABLE tbl (n BLOB); INSERT INTO tbl(rowid,n) VALUES (1,'abcdefg')"
      blob <- blobOpen db "main" "tbl" "n" 1 True
      blobBytes blob >>= (@?= 7)
      blobRead blob 4 2 >>= (@?= "cdef")
      blobWrite blob "BC" 1
      blobClose blob
      withStmt db "SELECT n FROM tbl" $ \st -> step st >> columnBlob st 0 >>= (@?= "aBCdefg")
  , "interrupt from another thread: the step and the finalize report ErrorInterrupt; interruptibly and timeout" ~: withDb $ \db -> do
      exec db "CREATE TABLE tbl (n INT)"
      withStmt db "INSERT INTO tbl VALUES (?)" $ \st -> do
        exec db "BEGIN"
        forM_ [1 .. 200] $ \i -> reset st >> bind st [SQLInteger i] >> step st
        exec db "COMMIT"
      let tripleSum = "SELECT sum(a.n + b.n + c.n) FROM tbl as a, tbl as b, tbl as c"
      st <- prepare db tripleSum
      _ <- forkIO (threadDelay 100000 >> interrupt db)
      Direct.step st >>= (@?= Left ErrorInterrupt)
      Direct.finalize st >>= (@?= Left ErrorInterrupt)
      timeout 100000 (interruptibly db (exec db tripleSum)) >>= (@?= Nothing)
  , "a multi-row INSERT" ~: withDb $ \db -> do
      exec db "CREATE TABLE foo (a INT, b INT)"
      exec db "INSERT INTO foo VALUES (1,2), (3,4)"
      changes db >>= (@?= 2)
  , "extended result codes: off by default, SQLOpenExResCode, setExtendedResultCodes, extendedErrcode" ~: do
      let violate d = exec d "CREATE TABLE t (x INT UNIQUE); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)"
      withDb $ \db -> do
        errorOf (violate db) >>= (@?= ErrorConstraint)
        Direct.errcode db >>= (@?= ErrorConstraint)
        Direct.extendedErrcode db >>= (@?= ErrorConstraintUnique)
        Direct.setExtendedResultCodes db True >>= (@?= Right ())
        errorOf (exec db "INSERT INTO t VALUES (1)") >>= (@?= ErrorConstraintUnique)
        Direct.errcode db >>= (@?= ErrorConstraintUnique)
        Direct.setExtendedResultCodes db False >>= (@?= Right ())
        errorOf (exec db "INSERT INTO t VALUES (1)") >>= (@?= ErrorConstraint)
      bracket (open2 ":memory:" [SQLOpenReadWrite, SQLOpenCreate, SQLOpenExResCode] SQLVFSDefault) close $ \db ->
        errorOf (violate db) >>= (@?= ErrorConstraintUnique)
  , "withDatabase and withStatement" ~: do
      r <- withDatabase ":memory:" $ \db -> do
        exec db "CREATE TABLE t (x INT); INSERT INTO t VALUES (7)"
        withStatement db "SELECT x FROM t" $ \st -> step st >> column st 0
      r @?= SQLInteger 7
      -- The statement is finalized when the action throws, so the connection still closes.
      withDatabase ":memory:" $ \db -> do
        e <- try (withStatement db "SELECT 1" (\_ -> throwIO Boom))
        case e of
          Left Boom -> return ()
          Right () -> assertFailure "no exception"
  , "Direct.setLoadExtensionEnabled, Direct.setSharedCacheEnabled, Direct.open2's VFS" ~: do
      withDb $ \db -> do
        Direct.setLoadExtensionEnabled db True >>= (@?= Right ())
        Direct.setLoadExtensionEnabled db False >>= (@?= Right ())
      Direct.setSharedCacheEnabled True >>= (@?= Right ())
      withFile "shared" $ \file -> do
        -- Two connections sharing a cache see each other's table locks (SQLITE_LOCKED).
        a <- open (T.pack file)
        b <- open (T.pack file)
        exec a "CREATE TABLE t (x INT); INSERT INTO t VALUES (1)"
        exec a "BEGIN; INSERT INTO t VALUES (2)"
        e <- errorOf (exec b "SELECT * FROM t")
        exec a "COMMIT"
        mapM_ close [a, b]
        e @?= ErrorLocked
      Direct.setSharedCacheEnabled False >>= (@?= Right ())
      r <- Direct.open2 ":memory:" 6 (Just "no-such-vfs")
      either fst (const ErrorOK) r @?= ErrorError
      Right db <- Direct.open2 ":memory:" 6 (Just "unix")
      Direct.close db >>= (@?= Right ())
  , "Database.SQLite3.Bindings.Types: direct-sqlite's codes and conversions" ~: do
      BT.decodeError (BT.CError 19) @?= ErrorConstraint
      BT.decodeError (BT.CError 2067) @?= ErrorConstraintUnique
      BT.encodeError ErrorConstraintUnique @?= BT.CError 2067
      BT.encodeError ErrorRow @?= BT.CError 100
      BT.decodeColumnType (BT.CColumnType 3) @?= TextColumn
      BT.toFFI (ParamIndex 3) @?= BT.CParamIndex 3
      BT.fromFFI (BT.CArgCount 2) @?= (2 :: ArgCount)
      show (ColumnIndex 4) @?= "4"
      (minBound, maxBound) @?= (BT.ArgCount 0, BT.ArgCount 127)
  , "step after Done runs the statement again; reset keeps the bindings" ~: withDb $ \db ->
      withStmt db "SELECT ?" $ \st -> do
        bindInt64 st 1 5
        replicateM_ 2 $ do
          step st >>= (@?= Row)
          column st 0 >>= (@?= SQLInteger 5)
          step st >>= (@?= Done)
        reset st
        step st >>= (@?= Row)
        column st 0 >>= (@?= SQLInteger 5)
  , "text through TE: bindText and columnText round-trip any Unicode" ~: withDb $ \db ->
      withStmt db "SELECT ?" $ \st -> do
        let t = T.pack ['\0', 'a', '\1114111', '\233']
        bindText st 1 t
        _ <- step st
        columnText st 0 >>= (@?= t)
        Direct.columnText st 0 >>= (@?= Direct.Utf8 (TE.encodeUtf8 t))
  ]
