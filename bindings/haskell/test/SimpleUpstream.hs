{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE QuasiQuotes #-}
{-# LANGUAGE RankNTypes #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE TypeApplications #-}
{-# LANGUAGE TypeOperators #-}
-- | sqlite-simple's own test suite (release 0.4.19 and its master branch), case by case,
-- written against "Database.SQLite.Simple" and its modules only: each test below is named
-- after the upstream test (@File/testName@) whose documented behaviour it checks, with the
-- upstream expectations (values, exceptions and their exact fields). Where this package
-- differs on purpose, the test says so and checks this package's answer.
module SimpleUpstream (simpleUpstreamTests, sqliteSimpleNames) where

import Control.Applicative ((<|>))
import Control.Concurrent.Chan (newChan, readChan, writeChan)
import Control.Exception
import Control.Monad (forM_, replicateM)
import qualified Data.ByteString as B
import qualified Data.ByteString.Lazy as BL
import Data.Int
import Data.Maybe (fromJust)
import qualified Data.Text as T
import qualified Data.Text.Lazy as LT
import Data.Time (Day, UTCTime)
import Data.Word
import Test.HUnit

import Database.SQLite.Simple
import Database.SQLite.Simple.FromField
import Database.SQLite.Simple.FromRow (RowParser, numFieldsRemaining)
import Database.SQLite.Simple.Function (createFunction)
import Database.SQLite.Simple.Ok
import Database.SQLite.Simple.QQ (sql)
import Database.SQLite.Simple.ToField
import Database.SQLite.Simple.Types (Null (..))
import qualified Database.SQLite3 as Base
import qualified Data.ByteString.Builder as BB
import Data.IORef (IORef)
import Data.Time (TimeOfDay, TimeZone)
import qualified Database.SQLite.Simple as S
import qualified Database.SQLite.Simple.FromField as SFF
import qualified Database.SQLite.Simple.FromRow as SFR
import qualified Database.SQLite.Simple.Function as SF
import qualified Database.SQLite.Simple.Internal as SI
import qualified Database.SQLite.Simple.Ok as SO
import qualified Database.SQLite.Simple.QQ as SQ
import qualified Database.SQLite.Simple.Time as ST
import qualified Database.SQLite.Simple.Time.Implementation as STI
import qualified Database.SQLite.Simple.ToField as STF
import qualified Database.SQLite.Simple.ToRow as STR
import qualified Database.SQLite.Simple.Types as STy

-- | One upstream test: a fresh in-memory connection each.
upstream :: String -> (Connection -> Assertion) -> Test
upstream name body = name ~: withConnection ":memory:" body

-- | The action throws exactly this exception.
throws :: (Eq e, Exception e) => IO a -> e -> Assertion
throws act want = do
  r <- try act
  case r of
    Left e -> assertEqual "exception" want e
    Right _ -> assertFailure ("expected " ++ show want ++ ", nothing was thrown")

-- | The action throws an exception of type @e@ (its text can be shown).
throwsA :: forall e a. Exception e => IO a -> IO e
throwsA act = do
  r <- try act
  case r of
    Left (e :: e) -> length (show e) `seq` return e
    Right _ -> assertFailure "expected an exception, nothing was thrown" >> undefined

-- | Every name sqlite-simple 0.4.19 and its master branch export from
-- @Database.SQLite.Simple*@ (Hackage's index, and master's export lists), each at the type
-- it has there: this module compiles only if each exists here with that type (the README's
-- table of names says where one differs, and why). Classes and types are named in the
-- signatures; data constructors and fields are applied.
sqliteSimpleNames :: [()]
sqliteSimpleNames =
  -- Database.SQLite.Simple: types and their constructors and fields
  [ name (S.Query :: T.Text -> S.Query, S.fromQuery :: S.Query -> T.Text)
  , name (S.Connection :: Base.Database -> IORef Word64 -> S.Connection)
  , name (S.connectionHandle :: S.Connection -> Base.Database, S.connectionTempNameCounter :: S.Connection -> IORef Word64)
  , name (S.toRow :: (Int, Int) -> [S.SQLData], S.fromRow :: SFR.RowParser (Int, Int))
  , name (S.Only :: Int -> S.Only Int, S.fromOnly :: S.Only Int -> Int)
  , name ((S.:.) :: S.Only Int -> S.Only Int -> S.Only Int S.:. S.Only Int)
  , name [S.SQLInteger 1, S.SQLFloat 1, S.SQLText "", S.SQLBlob B.empty, S.SQLNull]
  , name (S.Statement :: Base.Statement -> S.Statement, S.unStatement :: S.Statement -> Base.Statement)
  , name (S.ColumnIndex :: Base.ColumnIndex -> S.ColumnIndex)
  , name ((S.:=) :: T.Text -> Int -> S.NamedParam)
    -- connections
  , name (S.open :: String -> IO S.Connection)
  , name (S.close :: S.Connection -> IO ())
  , name (S.withConnection :: String -> (S.Connection -> IO ()) -> IO ())
  , name (S.setTrace :: S.Connection -> Maybe (T.Text -> IO ()) -> IO ())
    -- queries that return results
  , name (S.query :: S.Connection -> S.Query -> S.Only Int -> IO [S.Only Int])
  , name (S.query_ :: S.Connection -> S.Query -> IO [S.Only Int])
  , name (S.queryWith :: SFR.RowParser Int -> S.Connection -> S.Query -> S.Only Int -> IO [Int])
  , name (S.queryWith_ :: SFR.RowParser Int -> S.Connection -> S.Query -> IO [Int])
  , name (S.queryNamed :: S.Connection -> S.Query -> [S.NamedParam] -> IO [S.Only Int])
  , name (S.queryNamedWith :: SFR.RowParser Int -> S.Connection -> S.Query -> [S.NamedParam] -> IO [Int])
  , name (S.lastInsertRowId :: S.Connection -> IO Int64)
  , name (S.changes :: S.Connection -> IO Int)
  , name (S.totalChanges :: S.Connection -> IO Int)
    -- queries that stream results
  , name (S.fold :: S.Connection -> S.Query -> S.Only Int -> Int -> (Int -> S.Only Int -> IO Int) -> IO Int)
  , name (S.fold_ :: S.Connection -> S.Query -> Int -> (Int -> S.Only Int -> IO Int) -> IO Int)
  , name (S.foldNamed :: S.Connection -> S.Query -> [S.NamedParam] -> Int -> (Int -> S.Only Int -> IO Int) -> IO Int)
  , name (S.foldWith :: SFR.RowParser Int -> S.Connection -> S.Query -> S.Only Int -> Int -> (Int -> Int -> IO Int) -> IO Int)
  , name (S.foldWith_ :: SFR.RowParser Int -> S.Connection -> S.Query -> Int -> (Int -> Int -> IO Int) -> IO Int)
  , name (S.foldNamedWith :: SFR.RowParser Int -> S.Connection -> S.Query -> [S.NamedParam] -> Int -> (Int -> Int -> IO Int)
                             -> IO Int)
    -- statements that do not return results
  , name (S.execute :: S.Connection -> S.Query -> S.Only Int -> IO ())
  , name (S.execute_ :: S.Connection -> S.Query -> IO ())
  , name (S.executeMany :: S.Connection -> S.Query -> [S.Only Int] -> IO ())
  , name (S.executeNamed :: S.Connection -> S.Query -> [S.NamedParam] -> IO ())
  , name (S.field :: SFR.RowParser Int)
    -- transactions
  , name (S.withTransaction :: S.Connection -> IO () -> IO ())
  , name (S.withImmediateTransaction :: S.Connection -> IO () -> IO ())
  , name (S.withExclusiveTransaction :: S.Connection -> IO () -> IO ())
  , name (S.withSavepoint :: S.Connection -> IO () -> IO ())
    -- prepared statements
  , name (S.openStatement :: S.Connection -> S.Query -> IO S.Statement)
  , name (S.closeStatement :: S.Statement -> IO ())
  , name (S.withStatement :: S.Connection -> S.Query -> (S.Statement -> IO ()) -> IO ())
  , name (S.bind :: S.Statement -> S.Only Int -> IO ())
  , name (S.bindNamed :: S.Statement -> [S.NamedParam] -> IO ())
  , name (S.reset :: S.Statement -> IO ())
  , name (S.columnName :: S.Statement -> S.ColumnIndex -> IO T.Text)
  , name (S.columnCount :: S.Statement -> IO S.ColumnIndex)
  , name (S.withBind :: S.Statement -> S.Only Int -> IO () -> IO ())
  , name (S.nextRow :: S.Statement -> IO (Maybe (S.Only Int)))
    -- exceptions
  , name (S.FormatError :: String -> S.Query -> [String] -> S.FormatError)
  , name (S.fmtMessage :: S.FormatError -> String, S.fmtQuery :: S.FormatError -> S.Query, S.fmtParams :: S.FormatError -> [String])
  , name (S.Incompatible :: String -> String -> String -> S.ResultError, S.UnexpectedNull :: String -> String -> String -> S.ResultError
         , S.ConversionFailed :: String -> String -> String -> S.ResultError)
  , name (S.errSQLType :: S.ResultError -> String, S.errHaskellType :: S.ResultError -> String, S.errMessage :: S.ResultError -> String)
  , name (S.SQLError :: S.Error -> T.Text -> T.Text -> S.SQLError)
  , name (S.sqlError :: S.SQLError -> S.Error, S.sqlErrorDetails :: S.SQLError -> T.Text, S.sqlErrorContext :: S.SQLError -> T.Text)
  , name (S.ErrorConstraint :: Base.Error)
    -- Database.SQLite.Simple.FromField
  , name (SFF.fromField :: SFF.FieldParser Int, (\_ -> SO.Ok 1) :: SFF.FieldParser Int, (\_ -> SO.Ok 1) :: SFF.Field -> SO.Ok Int)
  , name (SFF.fieldData :: SFF.Field -> S.SQLData)
  , name (SFF.returnError :: (String -> String -> String -> SFF.ResultError) -> SFF.Field -> String -> SO.Ok Int)
    -- Database.SQLite.Simple.FromRow
  , name (SFR.fieldWith :: SFF.FieldParser Int -> SFR.RowParser Int)
  , name (SFR.numFieldsRemaining :: SFR.RowParser Int)
  , name (SFR.returnRowError :: SFF.ResultError -> SFR.RowParser Int)
  , name (SFR.field :: SFR.RowParser Int, SFR.fromRow :: SFR.RowParser (S.Only Int))
    -- Database.SQLite.Simple.Function
  , name (SF.createFunction :: S.Connection -> T.Text -> (Int64 -> Int64) -> IO (Either Base.Error ()))
  , name (SF.deleteFunction :: S.Connection -> T.Text -> IO (Either Base.Error ()))
    -- Database.SQLite.Simple.Internal
  , name (SI.Connection :: Base.Database -> IORef Word64 -> SI.Connection)
  , name (SI.ColumnOutOfBounds :: Int -> SI.ColumnOutOfBounds, SI.errorColumnIndex :: SI.ColumnOutOfBounds -> Int)
  , name (SI.Field :: S.SQLData -> Int -> SI.Field, SI.result :: SI.Field -> S.SQLData, SI.column :: SI.Field -> Int)
  , name (SI.gettypename :: S.SQLData -> B.ByteString)
  , name (undefined :: SI.RowParser Int)
    -- Database.SQLite.Simple.Ok
  , name (SO.Ok 'a', SO.Errors [] :: SO.Ok Char, SO.ManyErrors :: [SomeException] -> SO.ManyErrors)
    -- Database.SQLite.Simple.QQ
  , name SQ.sql   -- a QuasiQuoter (used as [sql| ... |] in the tests above)
    -- Database.SQLite.Simple.Time and .Time.Implementation
  , name (ST.parseUTCTime :: T.Text -> Either String UTCTime, ST.parseDay :: T.Text -> Either String Day)
  , name (ST.utcTimeToBuilder :: UTCTime -> BB.Builder, ST.dayToBuilder :: Day -> BB.Builder)
  , name (ST.timeOfDayToBuilder :: TimeOfDay -> BB.Builder, ST.timeZoneToBuilder :: TimeZone -> BB.Builder)
  , name (STI.parseUTCTime :: T.Text -> Either String UTCTime, STI.parseDay :: T.Text -> Either String Day)
  , name (STI.utcTimeToBuilder :: UTCTime -> BB.Builder, STI.dayToBuilder :: Day -> BB.Builder)
  , name (STI.timeOfDayToBuilder :: TimeOfDay -> BB.Builder, STI.timeZoneToBuilder :: TimeZone -> BB.Builder)
    -- Database.SQLite.Simple.ToField, .ToRow and .Types
  , name (STF.toField :: Int -> S.SQLData, STR.toRow :: S.Only Int -> [S.SQLData])
  , name (STy.Null :: STy.Null, STy.Only 'a', STy.Query "", STy.Only 'a' STy.:. STy.Only 'b')
  ]
  where
    name :: a -> ()
    name x = x `seq` ()

simpleUpstreamTests :: Test
simpleUpstreamTests = TestList
  [ TestLabel "Simple" simpleTests
  , TestLabel "ParamConv" paramConvTests
  , TestLabel "Errors" errorsTests
  , TestLabel "Utf8Strings" utf8Tests
  , TestLabel "UserInstances" userInstanceTests
  , TestLabel "Fold" foldTests
  , TestLabel "Statement" statementTests
  , TestLabel "Debug" debugTests
  , TestLabel "DirectSqlite" directTests
  , TestLabel "TestImports" importTests
  , TestLabel "Function" functionTests
  , TestLabel "QQ" qqTests
  , TestLabel "With (master)" withTests
  , TestLabel "SQLError is direct-sqlite's" sqlErrorTests
  ]

------------------------------------------------------------------------------------------
-- test/Simple.hs

simpleTests :: Test
simpleTests = TestList
  [ upstream "testSimpleOnePlusOne" $ \c -> do
      rs <- query_ c "SELECT 1+1" :: IO [Only Int]
      rs @?= [Only 2]
  , upstream "testSimpleSelect" $ \c -> do
      execute_ c "CREATE TABLE test1 (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO test1 (t) VALUES ('test string')"
      (query_ c "SELECT t FROM test1" :: IO [Only String]) >>= (@?= [Only "test string"])
      (query_ c "SELECT id,t FROM test1" :: IO [(Int, String)]) >>= (@?= [(1, "test string")])
      execute_ c "INSERT INTO test1 (t) VALUES ('test string 2')"
      (query_ c "SELECT id,t FROM test1" :: IO [(Int, String)])
        >>= (@?= [(1, "test string"), (2, "test string 2")])
      (query_ c "SELECT NULL" :: IO [Only (Maybe Int)]) >>= (@?= [Only Nothing])
      (query_ c "SELECT 1" :: IO [Only (Maybe Int)]) >>= (@?= [Only (Just 1)])
      (query_ c "SELECT 1.0" :: IO [Only Double]) >>= (@?= [Only 1.0])
      (query_ c "SELECT 1.0" :: IO [Only Float]) >>= (@?= [Only 1.0])
  , upstream "testSimpleParams" $ \c -> do
      execute_ c "CREATE TABLE testparams (id INTEGER PRIMARY KEY, t TEXT)"
      (query c "SELECT ?" (Only (42 :: Int)) :: IO [Only Int]) >>= (@?= [Only 42])
      execute c "INSERT INTO testparams (t) VALUES (?)" (Only ("test string" :: String))
      execute_ c "INSERT INTO testparams (t) VALUES ('test2')"
      let byId i = query c "SELECT t FROM testparams WHERE id = ?" (Only (i :: Int)) :: IO [Only String]
      byId 1 >>= (@?= [Only "test string"])
      byId 2 >>= (@?= [Only "test2"])
      (query c "SELECT t FROM testparams WHERE (id = ? OR id = ?)" (1 :: Int, 2 :: Int) :: IO [Only String])
        >>= (@?= [Only "test string", Only "test2"])
      -- a list of values is a ToRow too
      (query c "SELECT ?+?" [42 :: Int, 1] :: IO [Only Int]) >>= (@?= [Only 43])
      (query c "SELECT ?" [2.0 :: Double] :: IO [Only Double]) >>= (@?= [Only 2.0])
      (query c "SELECT ?" [4.0 :: Float] :: IO [Only Float]) >>= (@?= [Only 4.0])
  , upstream "testSimpleTime" $ \c -> do
      let timestr = "2012-08-20 20:19:58"
          time = read (timestr ++ " UTC") :: UTCTime
      execute_ c "CREATE TABLE time (t TIMESTAMP)"
      execute c "INSERT INTO time (t) VALUES (?)" (Only time)
      (query_ c "SELECT * FROM time" :: IO [Only UTCTime]) >>= (@?= [Only time])
      (query c "SELECT * FROM time WHERE t = ?" (Only time) :: IO [Only UTCTime]) >>= (@?= [Only time])
      execute_ c "CREATE TABLE time2 (t TIMESTAMP)"
      execute_ c (Query (T.concat ["INSERT INTO time2 (t) VALUES ('", T.pack timestr, "')"]))
      (query_ c "SELECT * FROM time2" :: IO [Only UTCTime]) >>= (@?= [Only time])
      -- the parameter's text form is the one stored: the comparison finds the row
      (query c "SELECT * FROM time2 WHERE t = ?" (Only time) :: IO [Only UTCTime]) >>= (@?= [Only time])
      let day = read "2013-08-21" :: Day
      (query_ c "SELECT '2013-08-21'" :: IO [Only Day]) >>= (@?= [Only day])
      (query c "SELECT ?" (Only day) :: IO [Only Day]) >>= (@?= [Only day])
      (query_ c "SELECT date('2013-08-21 08:00:03.256887')" :: IO [Only Day]) >>= (@?= [Only day])
  , upstream "testSimpleTimeFract" $ \c -> do
      let timestr = "2012-08-17 08:00:03.256887"
          time = read (timestr ++ " UTC") :: UTCTime
      execute_ c "CREATE TABLE timefract (t TIMESTAMP)"
      execute_ c (Query (T.concat ["INSERT INTO timefract (t) VALUES ('", T.pack timestr, "')"]))
      (query_ c "SELECT * FROM timefract" :: IO [Only UTCTime]) >>= (@?= [Only time])
      rows <- query c "SELECT * FROM timefract WHERE t = ?" (Only time) :: IO [Only UTCTime]
      length rows @?= 1
  , upstream "testSimpleInsertId" $ \c -> do
      execute_ c "CREATE TABLE test_row_id (id INTEGER PRIMARY KEY, t TEXT)"
      execute c "INSERT INTO test_row_id (t) VALUES (?)" (Only ("test string" :: String))
      id1 <- lastInsertRowId c
      execute_ c "INSERT INTO test_row_id (t) VALUES ('test2')"
      id2 <- lastInsertRowId c
      (id1, id2) @?= (1, 2)
      (query c "SELECT t FROM test_row_id WHERE id = ?" (Only (1 :: Int)) :: IO [Only String])
        >>= (@?= [Only "test string"])
  , upstream "testSimpleMultiInsert" $ \c -> do
      execute_ c "CREATE TABLE test_multi_insert (id INTEGER PRIMARY KEY, t1 TEXT, t2 TEXT)"
      executeMany c "INSERT INTO test_multi_insert (t1, t2) VALUES (?, ?)"
        ([("foo", "bar"), ("baz", "bat")] :: [(String, String)])
      lastInsertRowId c >>= (@?= 2)
      (query_ c "SELECT id,t1,t2 FROM test_multi_insert" :: IO [(Int, String, String)])
        >>= (@?= [(1, "foo", "bar"), (2, "baz", "bat")])
  , upstream "testSimpleUTCTime" $ \c -> do
      let spaced = ["2012-08-17 13:25", "2012-08-17 13:25:44", "2012-08-17 13:25:44.123"]
          withT = map (T.map (\ch -> if ch == ' ' then 'T' else ch)) spaced
          asUTC s = read (T.unpack (T.replace "T" " " (pad s)) ++ " UTC") :: UTCTime
          pad s = if T.length s < 19 then s <> ":00" else s
      execute_ c "CREATE TABLE utctimes (t TIMESTAMP)"
      forM_ (spaced ++ withT) $ \t -> execute c "INSERT INTO utctimes (t) VALUES (?)" (Only t)
      got <- query_ c "SELECT t from utctimes" :: IO [Only UTCTime]
      got @?= map (Only . asUTC) (spaced ++ withT)
      forM_ ["2012-08-17 13:25", "2012-08-17 13:25:00"] $ \z -> do
        [Only d] <- query c "SELECT ?" (Only (z <> "Z" :: T.Text))
        d @?= asUTC z
  , upstream "testSimpleUTCTimeTZ" $ \c -> do
      let zoned = [ "2013-02-03 13:00:00-02:00", "2013-02-03 13:00:00-01:00"
                  , "2013-02-03 13:00:00-03:00", "2013-02-03 13:00:00Z"
                  , "2013-02-03 13:00:00+00:00", "2013-02-03 13:00:00+03:00"
                  , "2013-02-03 13:00:00+02:00", "2013-02-03 13:00:00+04:00" ] :: [T.Text]
      execute_ c "CREATE TABLE utctimestz (t TIMESTAMP)"
      forM_ zoned $ \t -> execute c "INSERT INTO utctimestz (t) VALUES (?)" (Only t)
      got <- query_ c "SELECT t from utctimestz" :: IO [Only UTCTime]
      got @?= map (Only . read . T.unpack) zoned
  , upstream "testSimpleUTCTimeParams" $ \c ->
      forM_ [ "2012-08-17 08:00:03", "2012-08-17 08:00:03.2", "2012-08-17 08:00:03.256"
            , "2012-08-17 08:00:03.4192" ] $ \txt -> do
        let t = read (T.unpack txt ++ " UTC") :: UTCTime
        (query c "SELECT ?" (Only t) :: IO [Only T.Text]) >>= (@?= [Only txt])
  , "testSimpleQueryCov" ~: do
      let q = "SELECT 1+1" :: Query
      fromQuery q @?= ("SELECT 1+1" :: T.Text)
      show q @?= show ("SELECT 1+1" :: T.Text)
      (read (show q) :: Query) @?= q
      (Query "SELECT 1" <> Query "+1") @?= q
      foldr mappend mempty ["SELECT ", "1", "+", "1"] @?= q
      assertBool "Ord" (q <= q)
  , upstream "testSimpleStrings" $ \c -> do
      (query_ c "SELECT 'str1'" :: IO [Only T.Text]) >>= (@?= [Only "str1"])
      (query_ c "SELECT 'strLazy'" :: IO [Only LT.Text]) >>= (@?= [Only "strLazy"])
      (query c "SELECT ?" (Only ("strP" :: T.Text)) :: IO [Only T.Text]) >>= (@?= [Only "strP"])
      (query c "SELECT ?" (Only ("strPLazy" :: LT.Text)) :: IO [Only T.Text]) >>= (@?= [Only "strPLazy"])
      -- ByteStrings are BLOBs both ways
      (query c "SELECT ?" (Only ("strBsP" :: B.ByteString)) :: IO [Only B.ByteString]) >>= (@?= [Only "strBsP"])
      (query c "SELECT ?" (Only ("strBsPLazy" :: BL.ByteString)) :: IO [Only B.ByteString])
        >>= (@?= [Only "strBsPLazy"])
      (query c "SELECT ?" (Only ("strBsPLazy2" :: B.ByteString)) :: IO [Only BL.ByteString])
        >>= (@?= [Only "strBsPLazy2"])
  , upstream "testSimpleChanges" $ \c -> do
      execute_ c "CREATE TABLE testchanges (id INTEGER PRIMARY KEY, t TEXT)"
      execute c "INSERT INTO testchanges(t) VALUES (?)" (Only ("test string" :: String))
      changes c >>= (@?= 1)
      execute c "INSERT INTO testchanges(t) VALUES (?)" (Only ("test string 2" :: String))
      changes c >>= (@?= 1)
      execute_ c "UPDATE testchanges SET t = 'foo' WHERE id = 1"
      changes c >>= (@?= 1)
      execute_ c "UPDATE testchanges SET t = 'foo' WHERE id = 100"
      changes c >>= (@?= 0)
      execute_ c "UPDATE testchanges SET t = 'foo'"
      changes c >>= (@?= 2)
      totalChanges c >>= (@?= 5)
  ]

------------------------------------------------------------------------------------------
-- test/ParamConv.hs

data TwoInts = TwoInts Int64 Int64 deriving (Eq, Show)
data TwoTexts = TwoTexts T.Text T.Text deriving (Eq, Show)

instance FromRow TwoInts where
  fromRow = TwoInts <$> field <*> field

instance FromRow TwoTexts where
  fromRow = TwoTexts <$> field <*> field

instance ToRow TwoInts where
  toRow (TwoInts a b) = [SQLInteger a, SQLInteger b]

instance ToRow TwoTexts where
  toRow (TwoTexts a b) = [SQLText a, SQLText b]

-- | The one value of a one-row, one-column result.
one1 :: (ToRow q, FromField a) => Connection -> Query -> q -> IO a
one1 c q p = do
  rs <- query c q p
  case rs of
    [Only a] -> return a
    _ -> assertFailure ("one row expected, got " ++ show (length rs)) >> undefined

paramConvTests :: Test
paramConvTests = TestList
  [ upstream "testParamConvNull" $ \c -> do
      execute_ c "CREATE TABLE nulltype (id INTEGER PRIMARY KEY, t1 TEXT)"
      [Only n] <- query_ c "SELECT NULL" :: IO [Only Null]
      execute c "INSERT INTO nulltype (id, t1) VALUES (?,?)" (1 :: Int, n)
      (query_ c "SELECT t1 FROM nulltype WHERE id = 1" :: IO [Only (Maybe String)]) >>= (@?= [Only Nothing])
      execute c "INSERT INTO nulltype (id, t1) VALUES (?,?)" (2 :: Int, "foo" :: String)
      (query_ c "SELECT t1 FROM nulltype WHERE id = 2" :: IO [Only (Maybe String)]) >>= (@?= [Only (Just "foo")])
  , upstream "testParamConvInt" $ \c -> do
      (one1 c "SELECT ?" (Only (1 :: Int)) :: IO Int) >>= (@?= 1)
      (one1 c "SELECT ?" (Only (1 :: Int)) :: IO Integer) >>= (@?= 1)
      (one1 c "SELECT ?+?" (1 :: Int, 2 :: Int) :: IO Int) >>= (@?= 3)
      (one1 c "SELECT ?+?" (1 :: Int, 15 :: Int64) :: IO Int) >>= (@?= 16)
      (one1 c "SELECT ?+?" (2 :: Int, 14 :: Int32) :: IO Int) >>= (@?= 16)
      (one1 c "SELECT ?+?" (2 :: Int, 14 :: Integer) :: IO Int) >>= (@?= 16)
      (one1 c "SELECT 255*?" (Only (0x7FFFFFFF :: Int32)) :: IO Int64) >>= (@?= 255 * 0x7FFFFFFF)
      (one1 c "SELECT 2*?" (Only (0x7FFFFFFFFF :: Int64)) :: IO Int64) >>= (@?= 2 * 0x7FFFFFFFFF)
      (one1 c "SELECT NULL" () :: IO (Maybe Int)) >>= (@?= Nothing)
      (one1 c "SELECT 3" () :: IO (Maybe Int)) >>= (@?= Just 3)
      (one1 c "SELECT ?" (Only (Nothing :: Maybe Int)) :: IO (Maybe Int)) >>= (@?= Nothing)
      (one1 c "SELECT ?" (Only (Just 3 :: Maybe Int)) :: IO (Maybe Int)) >>= (@?= Just 3)
  , upstream "testParamConvIntWidths" $ \c -> do
      let asInt :: ToField a => a -> IO Int
          asInt v = one1 c "SELECT ?" (Only v)
      asInt (1 :: Int8) >>= (@?= 1)
      asInt (fromIntegral (257 :: Int) :: Int8) >>= (@?= 1)
      asInt (257 :: Int16) >>= (@?= 257)
      asInt (258 :: Int32) >>= (@?= 258)
      asInt (1 :: Word8) >>= (@?= 1)
      asInt (fromIntegral (257 :: Int) :: Word8) >>= (@?= 1)
      asInt (257 :: Word16) >>= (@?= 257)
      asInt (257 :: Word32) >>= (@?= 257)
      asInt (0x100000000 :: Word64) >>= (@?= 0x100000000)
      asInt (1 :: Integer) >>= (@?= 1)
      asInt (1 :: Word) >>= (@?= 1)
  , upstream "testParamConvIntWidthsFromField" $ \c -> do
      let from :: FromField a => Int64 -> IO a
          from v = one1 c "SELECT ?" (Only v)
      (from 1 :: IO Int8) >>= (@?= 1)
      (from 257 :: IO Int8) >>= (@?= 1)
      (from 65536 :: IO Int16) >>= (@?= 0)
      (from 65536 :: IO Int32) >>= (@?= 65536)
      (from 258 :: IO Int32) >>= (@?= 258)
      (from 1 :: IO Word8) >>= (@?= 1)
      (from 257 :: IO Word8) >>= (@?= 1)
      (from 257 :: IO Word16) >>= (@?= 257)
      (from 257 :: IO Word32) >>= (@?= 257)
      (from 0x100000000 :: IO Word64) >>= (@?= 0x100000000)
      (from 1 :: IO Word) >>= (@?= 1)
  , upstream "testParamConvFloat" $ \c -> do
      (one1 c "SELECT ?" (Only (1.0 :: Double)) :: IO Double) >>= (@?= 1.0)
      (one1 c "SELECT ?*0.25" (Only (8.0 :: Double)) :: IO Double) >>= (@?= 2.0)
  , upstream "testParamConvDateTime" $ \c -> do
      execute_ c "CREATE TABLE dt (id INTEGER PRIMARY KEY, t1 DATE, t2 TIMESTAMP)"
      execute_ c "INSERT INTO dt (t1, t2) VALUES (date('now'), datetime('now'))"
      now <- query_ c "SELECT t1,t2 from dt" :: IO [(Day, UTCTime)]
      length now @?= 1
      let d = read "2012-08-12" :: Day
          t = read "2012-08-12 01:01:01 UTC" :: UTCTime
      execute c "INSERT INTO dt (t1,t2) VALUES (?,?)" (d, t)
      [_, r] <- query_ c "SELECT t1,t2 from dt" :: IO [(Day, UTCTime)]
      r @?= (d, t)
  , upstream "testParamConvBools" $ \c -> do
      execute_ c "CREATE TABLE bt (id INTEGER PRIMARY KEY, b BOOLEAN)"
      execute_ c "INSERT INTO bt (b) VALUES (0)"
      execute_ c "INSERT INTO bt (b) VALUES (1)"
      (query_ c "SELECT b from bt" :: IO [Only Bool]) >>= (@?= [Only False, Only True])
      forM_ [True, False, False] $ \b -> execute c "INSERT INTO bt (b) VALUES (?)" (Only b)
      (query_ c "SELECT b from bt where id in (3, 4, 5) ORDER BY id" :: IO [Only Bool])
        >>= (@?= [Only True, Only False, Only False])
  , upstream "testParamConvFromRow" $ \c -> do
      (query_ c "SELECT 1,2" :: IO [(Int, Int)]) >>= (@?= [(1, 2)])
      (query_ c "SELECT 1,2,3" :: IO [(Int, Int, Int)]) >>= (@?= [(1, 2, 3)])
      (query_ c "SELECT 1,2,3,4" :: IO [(Int, Int, Int, Int)]) >>= (@?= [(1, 2, 3, 4)])
      (query_ c "SELECT 1,2,3,4,5" :: IO [(Int, Int, Int, Int, Int)]) >>= (@?= [(1, 2, 3, 4, 5)])
      (query_ c "SELECT 1,2,3,4,5,6" :: IO [(Int, Int, Int, Int, Int, Int)]) >>= (@?= [(1, 2, 3, 4, 5, 6)])
      (query_ c "SELECT 1,2,3,4,5,6,7" :: IO [(Int, Int, Int, Int, Int, Int, Int)])
        >>= (@?= [(1, 2, 3, 4, 5, 6, 7)])
      (query_ c "SELECT 1,2,3,4,5,6,7,8" :: IO [(Int, Int, Int, Int, Int, Int, Int, Int)])
        >>= (@?= [(1, 2, 3, 4, 5, 6, 7, 8)])
      (query_ c "SELECT 1,2,3,4,5,6,7,8,9" :: IO [(Int, Int, Int, Int, Int, Int, Int, Int, Int)])
        >>= (@?= [(1, 2, 3, 4, 5, 6, 7, 8, 9)])
      (query_ c "SELECT 1,2,3,4,5,6,7,8,9,10" :: IO [(Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)])
        >>= (@?= [(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)])
      (query_ c "SELECT 1,2,3" :: IO [[Int]]) >>= (@?= [[1, 2, 3]])
  , upstream "testParamConvToRow" $ \c -> do
      (one1 c "SELECT 13" () :: IO Int) >>= (@?= 13)
      (one1 c "SELECT ?" (Only (1 :: Int)) :: IO Int) >>= (@?= 1)
      let ns = [1 ..] :: [Int]
          sumOf k = sum (take k ns)
          plus k = Query ("SELECT " <> T.intercalate "+" (replicate k "?"))
      (one1 c (plus 2) (1 :: Int, 2 :: Int) :: IO Int) >>= (@?= sumOf 2)
      (one1 c (plus 3) (1 :: Int, 2 :: Int, 3 :: Int) :: IO Int) >>= (@?= sumOf 3)
      (one1 c (plus 4) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int) :: IO Int) >>= (@?= sumOf 4)
      (one1 c (plus 5) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int) :: IO Int) >>= (@?= sumOf 5)
      (one1 c (plus 6) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int, 6 :: Int) :: IO Int)
        >>= (@?= sumOf 6)
      (one1 c (plus 7) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int, 6 :: Int, 7 :: Int) :: IO Int)
        >>= (@?= sumOf 7)
      (one1 c (plus 8) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int, 6 :: Int, 7 :: Int, 8 :: Int) :: IO Int)
        >>= (@?= sumOf 8)
      (one1 c (plus 9) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int, 6 :: Int, 7 :: Int, 8 :: Int, 9 :: Int) :: IO Int)
        >>= (@?= sumOf 9)
      (one1 c (plus 10) (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int, 6 :: Int, 7 :: Int, 8 :: Int, 9 :: Int, 10 :: Int) :: IO Int)
        >>= (@?= sumOf 10)
  , upstream "testParamConvComposite" $ \c -> do
      (query_ c "SELECT 1,2" :: IO [TwoInts]) >>= (@?= [TwoInts 1 2])
      (query_ c "SELECT 'foo','bar'" :: IO [TwoTexts]) >>= (@?= [TwoTexts "foo" "bar"])
      [ab] <- query_ c "SELECT 4,5,'baz','xyzz'" :: IO [TwoInts :. TwoTexts]
      ab @?= (TwoInts 4 5 :. TwoTexts "baz" "xyzz")
      [TwoInts x y :. TwoTexts z w] <- query c "SELECT ?,?,?,?" ab
      (x, y, z, w) @?= (4, 5, "baz", "xyzz")
  , upstream "testParamNamed" $ \c -> do
      (queryNamed c "SELECT :foo / :bar" [":foo" := (2 :: Int), ":bar" := (1 :: Int)] :: IO [Only Int])
        >>= (@?= [Only 2])
      (queryNamed c "SELECT :foo,:bar" [":foo" := ("foo" :: T.Text), ":bar" := (1 :: Int)] :: IO [(T.Text, Int)])
        >>= (@?= [("foo", 1)])
      execute_ c "CREATE TABLE np (id INTEGER PRIMARY KEY, b BOOLEAN)"
      executeNamed c "INSERT INTO np (b) VALUES (:b)" [":b" := True]
      (query_ c "SELECT b FROM np" :: IO [Only Bool]) >>= (@?= [Only True])
  ]

------------------------------------------------------------------------------------------
-- test/Errors.hs (master: the exact ResultErrors)

cf :: String -> String -> String -> ResultError
cf = ConversionFailed

errorsTests :: Test
errorsTests = TestList
  [ upstream "testErrorsColumns" $ \c -> do
      execute_ c "CREATE TABLE cols (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO cols (t) VALUES ('test string')"
      (query_ c "SELECT t FROM cols" :: IO [Only String]) >>= (@?= [Only "test string"])
      throws (query_ c "SELECT id,t FROM cols" :: IO [Only Int]) $
        cf "2 values: [(\"INTEGER\",\"SQLInteger 1\"),(\"TEXT\",\"SQLText \\\"test s[...]\")]"
           "at least 1 slots in target type"
           "mismatch between number of columns to convert and number in target type"
      throws (query_ c "SELECT id FROM cols" :: IO [(Int, String)]) $
        cf "1 values: [(\"INTEGER\",\"SQLInteger 1\")]" "at least 2 slots in target type"
           "mismatch between number of columns to convert and number in target type"
      throws (query_ c "SELECT id, t FROM cols" :: IO [(String, Int)]) $
        cf "INTEGER" "[Char]" "expecting SQLText column type"
      throws (query_ c "SELECT 'foo'" :: IO [Only Integer]) $ cf "TEXT" "Integer" "need an int"
      throws (query_ c "SELECT 1" :: IO [Only Double]) $
        cf "INTEGER" "Double" "expecting an SQLFloat column type"
      throws (query_ c "SELECT 'foo'" :: IO [Only Double]) $
        cf "TEXT" "Double" "expecting an SQLFloat column type"
      throws (query_ c "SELECT 1" :: IO [Only Float]) $
        cf "INTEGER" "Float" "expecting an SQLFloat column type"
      throws (query_ c "SELECT 'foo'" :: IO [Only Float]) $
        cf "TEXT" "Float" "expecting an SQLFloat column type"
      throws (query_ c "SELECT 'true'" :: IO [Only Bool]) $
        cf "TEXT" "Bool" "expecting an SQLInteger column type"
      throws (query_ c "SELECT 2" :: IO [Only Bool]) $ cf "INTEGER" "Bool" "bool must be 0 or 1, got 2"
      throws (query_ c "SELECT 1" :: IO [Only T.Text]) $ cf "INTEGER" "Text" "need a text"
      throws (query_ c "SELECT 1" :: IO [Only LT.Text]) $ cf "INTEGER" "Text" "need a text"
      throws (query_ c "SELECT 1.0" :: IO [Only T.Text]) $ cf "FLOAT" "Text" "need a text"
      throws (query_ c "SELECT 1.0" :: IO [Only LT.Text]) $ cf "FLOAT" "Text" "need a text"
      throws (query_ c "SELECT 1" :: IO [Only UTCTime]) $
        cf "INTEGER" "UTCTime" "expecting SQLText column type"
      throws (query_ c "SELECT 1" :: IO [Only Day]) $ cf "INTEGER" "Day" "expecting SQLText column type"
      (query_ c "SELECT X'3177'" :: IO [Only B.ByteString]) >>= (@?= [Only "1w"])
      throws (query_ c "SELECT 1" :: IO [Only B.ByteString]) $
        cf "INTEGER" "ByteString" "expecting SQLBlob column type"
      throws (query_ c "SELECT 1" :: IO [Only BL.ByteString]) $
        cf "INTEGER" "ByteString" "expecting SQLBlob column type"
      throws (query_ c "SELECT 'foo'" :: IO [Only B.ByteString]) $
        cf "TEXT" "ByteString" "expecting SQLBlob column type"
      throws (query_ c "SELECT 'foo'" :: IO [Only BL.ByteString]) $
        cf "TEXT" "ByteString" "expecting SQLBlob column type"
      execute_ c "CREATE TABLE cols_blobs (id INTEGER, b BLOB)"
      execute c "INSERT INTO cols_blobs (id, b) VALUES (?,?)" (1 :: Int, B.pack [0 .. 127])
      throws (query c "SELECT b FROM cols_blobs WHERE id = ?" (Only (1 :: Int)) :: IO [Only String]) $
        cf "BLOB" "[Char]" "expecting SQLText column type"
      execute_ c "CREATE TABLE cols_bools (id INTEGER PRIMARY KEY, b BOOLEAN)"
      execute_ c "INSERT INTO cols_bools (b) VALUES (3)"
      throws (query_ c "SELECT b FROM cols_bools" :: IO [Only Bool]) $
        cf "INTEGER" "Bool" "bool must be 0 or 1, got 3"
      [Only (nul :: Null)] <- query_ c "SELECT NULL"
      (nul == nul, nul /= nul) @?= (False, False)
      throws (query_ c "SELECT 1" :: IO [Only Null]) $ cf "INTEGER" "Null" "data is not null"
  , upstream "testErrorsColumns: the first field that fails is the one reported" $ \c -> do
      throws (query_ c "SELECT 'a', 'b'" :: IO [(Int, Double)]) $ cf "TEXT" "Int" "need an int"
      throws (query_ c "SELECT 1, 'b', NULL" :: IO [(Int, Double, T.Text)]) $
        cf "TEXT" "Double" "expecting an SQLFloat column type"
      throws (query_ c "SELECT NULL, 'b'" :: IO [TwoTexts]) $ cf "NULL" "Text" "need a text"
  , upstream "testErrorsInvalidParams" $ \c -> do
      execute_ c "CREATE TABLE invparams (id INTEGER PRIMARY KEY, t TEXT)"
      _ <- throwsA @FormatError (execute c "INSERT INTO invparams (t) VALUES (:v)" (Only ("foo" :: String)))
      _ <- throwsA @FormatError
             (execute c "INSERT INTO invparams (id, t) VALUES (:v,$1)" (3 :: Int, "foo" :: String))
      _ <- throwsA @FormatError (execute c "INSERT INTO invparams (id, t) VALUES (?, ?)" (Only (3 :: Int)))
      return ()
  , upstream "testErrorsInvalidNamedParams" $ \c -> do
      _ <- throwsA @FormatError (queryNamed c "SELECT :foo" [":foox" := (1 :: Int)] :: IO [Only Int])
      _ <- throwsA @FormatError (queryNamed c "SELECT :foo + :bar" [":foo" := (1 :: Int)] :: IO [Only Int])
      _ <- throwsA @FormatError (query c "SELECT :foo" (Only (1 :: Int)) :: IO [Only Int])
      return ()
  , upstream "testErrorsWithStatement" $ \c -> do
      execute_ c "CREATE TABLE invstat (id INTEGER PRIMARY KEY, t TEXT)"
      e <- throwsA @SQLError $
        withStatement c "SELECT id, t, t1 FROM invstat" $ \_ -> assertFailure "Error not detected"
      sqlError e @?= ErrorError
      sqlErrorDetails e @?= "no such column: t1"
  , upstream "testErrorsColumnName" $ \c -> do
      execute_ c "CREATE TABLE invcolumn (id INTEGER PRIMARY KEY, t TEXT)"
      _ <- throwsA @ArrayException $ withStatement c "SELECT id FROM invcolumn" $ \st ->
        columnName st (ColumnIndex (-1)) >> assertFailure "Error not detected"
      return ()
  , transactionTest "testErrorsTransaction" "trans" withTransaction
  , transactionTest "testErrorsImmediateTransaction" "itrans" withImmediateTransaction
  , transactionTest "testErrorsExclusiveTransaction" "etrans" withExclusiveTransaction
  , transactionTest "testErrorsSavepoint" "strans" withSavepoint
  ]

-- | A transaction's value is returned and its writes kept; a FormatError in it rolls its
-- writes back.
transactionTest :: String -> T.Text -> (forall a. Connection -> IO a -> IO a) -> Test
transactionTest name table within = upstream name $ \c -> do
  let tq s = Query (T.replace "TBL" table s)
      rows = query_ c (tq "SELECT t FROM TBL") :: IO [Only String]
  execute_ c (tq "CREATE TABLE TBL (id INTEGER PRIMARY KEY, t TEXT)")
  v <- within c $ do
    executeNamed c (tq "INSERT INTO TBL (t) VALUES (:txt)") [":txt" := ("foo" :: String)]
    [Only r] <- rows
    return r
  v @?= "foo"
  rows >>= (@?= [Only "foo"])
  execute_ c (tq "DELETE FROM TBL")
  rows >>= (@?= [])
  _ <- throwsA @FormatError $ within c $ do
    executeNamed c (tq "INSERT INTO TBL (t) VALUES (:txt)") [":txt" := ("foo" :: String)]
    executeNamed c (tq "INSERT INTO TBL (t) VALUES (:txt)") [":missing" := ("foo" :: String)]
  rows >>= (@?= [])

------------------------------------------------------------------------------------------
-- test/Utf8Strings.hs

utf8Tests :: Test
utf8Tests = TestList
  [ upstream "testUtf8Simplest" $ \c -> do
      execute_ c "CREATE TABLE utf (id INTEGER, t TEXT)"
      execute_ c "INSERT INTO utf (id, t) VALUES (1, '\228\228\246\246')"
      execute c "INSERT INTO utf (id, t) VALUES (?,?)" (2 :: Int, "\228\228\246\246\229\229" :: String)
      (query c "SELECT t FROM utf WHERE id = ?" (Only (1 :: Int)) :: IO [Only String])
        >>= (@?= [Only "\228\228\246\246"])
      (query c "SELECT t FROM utf WHERE id = ?" (Only (2 :: Int)) :: IO [Only String])
        >>= (@?= [Only "\228\228\246\246\229\229"])
  , upstream "testBlobs" $ \c -> do
      let d = B.pack [0 .. 127]
      execute_ c "CREATE TABLE blobs (id INTEGER, b BLOB)"
      execute c "INSERT INTO blobs (id, b) VALUES (?,?)" (1 :: Int, d)
      [Only b] <- query c "SELECT b FROM blobs WHERE id = ?" (Only (1 :: Int))
      b @?= d
      (B.index b 0, B.index b 1) @?= (0, 1)
  ]

------------------------------------------------------------------------------------------
-- test/UserInstances.hs

newtype Tagged = Tagged String deriving (Eq, Show)

instance FromField Tagged where
  fromField f = case fieldData f of
    SQLText s -> Ok (Tagged ("fromField " ++ T.unpack s))
    _ -> returnError ConversionFailed f "expecting SQLText type"

instance ToField Tagged where
  toField (Tagged s) = SQLText (T.pack ("toField " ++ s))

userInstanceTests :: Test
userInstanceTests = TestList
  [ upstream "testUserFromField" $ \c -> do
      execute_ c "CREATE TABLE fromfield (t TEXT)"
      execute c "INSERT INTO fromfield (t) VALUES (?)" (Only ("test string" :: String))
      (query_ c "SELECT t FROM fromfield" :: IO [Only Tagged]) >>= (@?= [Only (Tagged "fromField test string")])
      execute_ c "DELETE FROM fromfield"
      execute c "INSERT INTO fromfield (t) VALUES (?)" (Only (Tagged "test2"))
      (query_ c "SELECT t FROM fromfield" :: IO [Only String]) >>= (@?= [Only "toField test2"])
      throws (query_ c "SELECT 1" :: IO [Only Tagged]) $ cf "INTEGER" "Tagged" "expecting SQLText type"
  , upstream "testSQLDataFromField" $ \c -> do
      execute_ c "CREATE TABLE sqldatafromfield (t TEXT, i INT, b BOOLEAN, f FLOAT)"
      execute c "INSERT INTO sqldatafromfield (t,i,b,f) VALUES (?,?,?,?)"
        ("test string" :: T.Text, 1 :: Int64, True, 1.11 :: Double)
      execute c "INSERT INTO sqldatafromfield (t,i,b) VALUES (?,?,?)"
        ("test string2" :: T.Text, 2 :: Int64, False)
      (query_ c "SELECT * FROM sqldatafromfield" :: IO [[SQLData]]) >>=
        (@?= [ [SQLText "test string", SQLInteger 1, SQLInteger 1, SQLFloat 1.11]
             , [SQLText "test string2", SQLInteger 2, SQLInteger 0, SQLNull] ])
  ]

------------------------------------------------------------------------------------------
-- test/Fold.hs

foldTests :: Test
foldTests = TestList
  [ upstream "testFolds" $ \c -> do
      execute_ c "CREATE TABLE testf (id INTEGER PRIMARY KEY, t INT)"
      forM_ [4, 5, 6 :: Int] $ \t -> execute c "INSERT INTO testf (t) VALUES (?)" (Only t)
      let step (is, ts) (i :: Int, t :: Int) = return (i : is, t : ts)
      fold_ c "SELECT id,t FROM testf" ([], []) step >>= (@?= ([3, 2, 1], [6, 5, 4]))
      fold c "SELECT id,t FROM testf WHERE id > ?" (Only (1 :: Int)) ([], []) step
        >>= (@?= ([3, 2], [6, 5]))
      foldNamed c "SELECT id,t FROM testf WHERE id > :id" [":id" := (1 :: Int)] ([], []) step
        >>= (@?= ([3, 2], [6, 5]))
  ]

------------------------------------------------------------------------------------------
-- test/Statement.hs

statementTests :: Test
statementTests = TestList
  [ upstream "testBind" $ \c -> do
      execute_ c "CREATE TABLE test_bind (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO test_bind VALUES(1, 'result')"
      withStatement c "SELECT t FROM test_bind WHERE id=?" $ \st ->
        withBind st [1 :: Int] $ do
          row <- nextRow st :: IO (Maybe (Only String))
          fromJust row @?= Only "result"
  , upstream "testDoubleBind" $ \c -> do
      execute_ c "CREATE TABLE test_double_bind (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO test_double_bind VALUES(1, 'first result')"
      execute_ c "INSERT INTO test_double_bind VALUES(2, 'second result')"
      withStatement c "SELECT t FROM test_double_bind WHERE id=?" $ \st -> do
        withBind st [1 :: Int] $
          (nextRow st :: IO (Maybe (Only String))) >>= (@?= Just (Only "first result"))
        withBind st [2 :: Int] $
          (nextRow st :: IO (Maybe (Only String))) >>= (@?= Just (Only "second result"))
  , upstream "testPreparedStatements" $ \c -> do
      execute_ c "CREATE TABLE ps (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO ps VALUES(1, 'first result')"
      execute_ c "INSERT INTO ps VALUES(2, 'second result')"
      withStatement c "SELECT t FROM ps WHERE id=?" $ \st -> do
        columnName st 0 >>= (@?= "t")
        let one i = withBind st (Only (i :: Int)) $ do
              Just (Only r) <- nextRow st
              Nothing <- nextRow st :: IO (Maybe (Only String))
              return r
        mapM one [1, 2] >>= (@?= ["first result" :: String, "second result"])
  , upstream "testPreparedStatementsColumnCount" $ \c -> do
      execute_ c "CREATE TABLE ps2 (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO ps2 VALUES(1, 'first result')"
      withStatement c "SELECT t FROM ps2 WHERE id=?" $ \st -> do
        columnName st 0 >>= (@?= "t")
        ColumnIndex n <- columnCount st
        n @?= 1
        -- direct-sqlite's columnCount on the statement under it
        Base.columnCount (unStatement st) >>= (@?= 1)
  ]

------------------------------------------------------------------------------------------
-- test/Debug.hs

debugTests :: Test
debugTests = TestList
  [ upstream "testDebugTracing" $ \c -> do
      chan <- newChan
      setTrace c (Just (writeChan chan))
      execute_ c "SELECT null"
      readChan chan >>= (@?= "SELECT null")
      execute c "SELECT 1+?" (Only (2 :: Int))
      execute c "SELECT 1+?" (Only (3 :: Int))
      readChan chan >>= (@?= "SELECT 1+2")
      readChan chan >>= (@?= "SELECT 1+3")
      setTrace c Nothing
      execute_ c "SELECT null"
      writeChan chan "empty"
      readChan chan >>= (@?= "empty")
  ]

------------------------------------------------------------------------------------------
-- test/DirectSqlite.hs

directTests :: Test
directTests = TestList
  [ upstream "testDirectSqlite" $ \c -> do
      let db = connectionHandle c
      bracket (Base.prepare db "SELECT 1+1") Base.finalize $ \st -> do
        Base.Row <- Base.step st
        Base.column st 0 >>= (@?= SQLInteger 2)
      (query_ c "SELECT 1+2" :: IO [Only Int]) >>= (@?= [Only 3])
  ]

------------------------------------------------------------------------------------------
-- test/TestImports.hs: one import is enough

data Three = Three Int Int Int

instance FromRow Three where
  fromRow = Three <$> field <*> field <*> field

importTests :: Test
importTests = TestList
  [ "testImports" ~: do
      c <- open ":memory:"
      execute_ c "CREATE TABLE testimp (id INTEGER PRIMARY KEY, id2 INTEGER, id3 INTEGER)"
      execute_ c "INSERT INTO testimp (id, id2, id3) VALUES (1, 2, 3)"
      [Three a b d] <- query_ c "SELECT * FROM testimp"
      (a, b, d) @?= (1, 2, 3)
      (query c "SELECT ?+?" (3 :: Int, 4 :: Int) :: IO [Only Int]) >>= (@?= [Only 7])
      close c
      withConnection ":memory:" $ \c2 -> do
        execute_ c2 "CREATE TABLE testimp (id INTEGER PRIMARY KEY)"
        execute_ c2 "INSERT INTO testimp (id) VALUES (1)"
        (query_ c2 (Query (T.concat ["SELECT * FROM ", "testimp"])) :: IO [Only Int]) >>= (@?= [Only 1])
  ]

------------------------------------------------------------------------------------------
-- test/Function.hs

functionTests :: Test
functionTests = TestList
  [ upstream "testExternalAddition" $ \c -> do
      r <- createFunction c "my_add" ((+) :: Int -> Int -> Int)
      r @?= Right ()
      forM_ [1 .. 10 :: Int] $ \x -> forM_ [1 .. 10 :: Int] $ \y ->
        (query c "SELECT my_add(?,?)" (x, y) :: IO [Only Int]) >>= (@?= [Only (x + y)])
  ]

------------------------------------------------------------------------------------------
-- test/QQ.hs

qqTests :: Test
qqTests = TestList
  [ upstream "testSimpleQQ" $ \c -> do
      q <- query_ c "SELECT 1+1" :: IO [Only Int]
      qq <- query_ c [sql|
              SELECT 1 + 1
              |] :: IO [Only Int]
      qq @?= q
  , upstream "testMultiLinedQQ" $ \c -> do
      execute_ c "CREATE TABLE testQQ (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO testQQ (t) VALUES ('test string')"
      q <- query_ c "SELECT t FROM testQQ" :: IO [Only String]
      qq <- query_ c [sql|
        SELECT
          t
        FROM
          testQQ

        |] :: IO [Only String]
      qq @?= q
  ]

------------------------------------------------------------------------------------------
-- test/With.hs (master): queryWith, queryWith_, queryNamedWith, foldWith, foldWith_,
-- foldNamedWith with row parsers that fail a field, or the whole row (returnRowError)

data RowCheck = WrongArity | TooManyNulls deriving (Eq, Show)

instance Exception RowCheck

-- | The columns as text, last first; 2 or 3 columns with at most one NULL, else the row
-- fails with 'returnRowError'.
concatParser :: RowParser T.Text
concatParser = do
  n <- numFieldsRemaining
  vs <- replicateM n (field :: RowParser SQLData)
  if n /= 2 && n /= 3
    then returnRowError WrongArity
    else if length [() | SQLNull <- vs] > 1
      then returnRowError TooManyNulls
      else return (T.concat (reverse (map render vs)))
  where
    render v = case v of
      SQLText t -> t
      SQLNull -> ""
      SQLInteger i -> T.pack (show i)
      SQLFloat d -> T.pack (show d)
      SQLBlob b -> T.pack (show b)

-- | The two columns swapped: an Int after a Text.
swapParser :: RowParser (Int, T.Text)
swapParser = (\t i -> (i, t)) <$> field <*> field

-- | The six functions, on a SELECT whose first column gets a suffix from a parameter
-- (none, positional, named), as a list (the folds append).
runners :: Monoid r => RowParser r -> Connection -> T.Text -> [(String, IO [r], [r] -> [r])]
runners p c sel =
  [ ("queryWith_", queryWith_ p c (q ""), id)
  , ("queryWith", queryWith p c (q " || ?") (Only ("z" :: T.Text)), id)
  , ("queryNamedWith", queryNamedWith p c (q " || :suffix") [":suffix" := ("z" :: T.Text)], id)
  , ("foldWith_", pure <$> foldWith_ p c (q "") mempty app, pure . mconcat)
  , ("foldWith", pure <$> foldWith p c (q " || ?") (Only ("z" :: T.Text)) mempty app, pure . mconcat)
  , ("foldNamedWith", pure <$> foldNamedWith p c (q " || :suffix") [":suffix" := ("z" :: T.Text)] mempty app
    , pure . mconcat)
  ]
  where
    q suffix = Query (T.replace "FIRST" suffix sel)
    app acc r = return (acc <> r)

withTests :: Test
withTests = TestList
  [ upstream "a row parser over two columns, happy and failing on a NULL" $ \c -> do
      execute_ c "CREATE TABLE w (t1 TEXT, i INTEGER)"
      executeMany c "INSERT INTO w VALUES (?, ?)" [("a" :: T.Text, 1 :: Int), ("b", 2)]
      let sel = "SELECT t1FIRST, i FROM w ORDER BY t1"
          pairs = map (\(i, t) -> ([(i, t)] :: [(Int, T.Text)]))
          listed = (: []) <$> swapParser
      forM_ (zip [0 :: Int ..] (runners listed c sel)) $ \(k, (name, run, norm)) -> do
        got <- run
        let want = if k `mod` 3 == 0 then [(1, "a"), (2, "b")] else [(1, "az"), (2, "bz")]
        assertEqual name (norm (pairs want)) got
      execute c "INSERT INTO w VALUES (?, ?)" (Nothing :: Maybe T.Text, Just (8 :: Int))
      forM_ (runners listed c sel) $ \(name, run, _) -> do
        r <- try run
        case r of
          Left e -> assertEqual name (cf "NULL" "Text" "need a text") e
          Right _ -> assertFailure (name ++ ": expected a ResultError")
  , upstream "returnRowError: the parser's own exception, as it is" $ \c -> do
      execute_ c "CREATE TABLE w3 (t1 TEXT, i INTEGER, t2 TEXT)"
      executeMany c "INSERT INTO w3 VALUES (?, ?, ?)"
        [ (Just "i" :: Maybe T.Text, Just (5 :: Int), Just "j" :: Maybe T.Text)
        , (Nothing, Just 6, Just "k"), (Just "l", Nothing, Just "m"), (Just "n", Just 7, Nothing) ]
      let sel = "SELECT t1FIRST, i, t2 FROM w3 ORDER BY t1"
      forM_ (zip [0 :: Int ..] (runners concatParser c sel)) $ \(k, (name, run, norm)) -> do
        got <- run
        let want = if k `mod` 3 == 0 then ["k6", "j5i", "ml", "7n"] else ["k6", "j5iz", "mlz", "7nz"]
        assertEqual name (norm want) got
      execute c "INSERT INTO w3 VALUES (?, ?, ?)" (Nothing :: Maybe T.Text, Nothing :: Maybe Int, Just ("o" :: T.Text))
      forM_ (runners concatParser c sel) $ \(name, run, _) -> do
        r <- try run
        case r of
          Left e -> assertEqual name TooManyNulls e
          Right _ -> assertFailure (name ++ ": expected TooManyNulls")
      execute_ c "CREATE TABLE w4 (t1 TEXT, t2 TEXT, t3 TEXT, t4 TEXT)"
      execute c "INSERT INTO w4 VALUES (?, ?, ?, ?)" ("p" :: T.Text, "q" :: T.Text, "r" :: T.Text, "s" :: T.Text)
      forM_ (runners concatParser c "SELECT t1FIRST, t2, t3, t4 FROM w4") $ \(name, run, _) -> do
        r <- try run
        case r of
          Left e -> assertEqual name WrongArity e
          Right _ -> assertFailure (name ++ ": expected WrongArity")
      -- several errors (both sides of <|>) are ManyErrors
      e <- throwsA @ManyErrors $
        queryWith_ (returnRowError WrongArity <|> returnRowError TooManyNulls :: RowParser Int) c "SELECT 1"
      case e of ManyErrors es -> length es @?= 2
  ]

------------------------------------------------------------------------------------------
-- SQLError: sqlite-simple re-exports direct-sqlite's

sqlErrorTests :: Test
sqlErrorTests = TestList
  [ upstream "a failing query is caught as direct-sqlite's SQLError, with its fields and show" $ \c -> do
      execute_ c "CREATE TABLE u (x INTEGER UNIQUE)"
      execute_ c "INSERT INTO u VALUES (1)"
      e <- throwsA @SQLError (execute_ c "INSERT INTO u VALUES (1)")
      sqlError e @?= ErrorConstraint
      sqlErrorDetails e @?= "UNIQUE constraint failed: u.x"
      -- Base.SQLError is the same type
      let asBase :: Base.SQLError
          asBase = e
      show asBase @?= ("SQLite3 returned ErrorConstraint while attempting to perform "
                        ++ T.unpack (sqlErrorContext e) ++ ": UNIQUE constraint failed: u.x")
  , upstream "direct-sqlite's failures on connectionHandle are caught by the same handler" $ \c -> do
      e <- throwsA @SQLError (Base.exec (connectionHandle c) "SELEC 1")
      (sqlError e, sqlErrorContext e) @?= (ErrorError, "exec \"SELEC 1\"")
      e2 <- throwsA @SQLError (query_ c "SELEC 1" :: IO [Only Int])
      sqlError e2 @?= ErrorError
      sqlErrorDetails e2 @?= sqlErrorDetails e
  , upstream "a handler for other exceptions does not catch it" $ \c -> do
      r <- try (try (execute_ c "SELEC 1") >>= \x -> case x of
                   Left (_ :: ResultError) -> return "ResultError"
                   Right () -> return "none")
      case r of
        Left (_ :: SQLError) -> return ()
        Right (s :: String) -> assertFailure s
  , "open of a bad path" ~: do
      e <- throwsA @SQLError (open "/nonexistent-dir/x/y.db")
      sqlError e @?= ErrorCan'tOpen
  ]
