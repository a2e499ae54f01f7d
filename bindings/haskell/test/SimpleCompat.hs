{-# LANGUAGE DeriveGeneric #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE QuasiQuotes #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE TypeOperators #-}
-- | Tests written against sqlite-simple's modules only (Database.SQLite.Simple.*), many of
-- them ported from sqlite-simple's own test suite (test/Errors.hs, ParamConv.hs,
-- UserInstances.hs, QQ.hs): what a program moved over by its build-depends sees.
module SimpleCompat (simpleCompatTests) where

import Control.Applicative ((<|>))
import Control.Exception
import qualified Data.ByteString as B
import qualified Data.ByteString.Builder as BB
import qualified Data.ByteString.Lazy as BL
import Data.Int (Int64, Int8)
import Data.IORef
import qualified Data.Text as T
import Data.Time
import Data.Word (Word64)
import GHC.Generics (Generic)
import Test.HUnit

import Database.SQLite.Simple
import Database.SQLite.Simple.FromField
import Database.SQLite.Simple.FromRow (RowParser)
import Database.SQLite.Simple.Ok
import Database.SQLite.Simple.QQ (sql)
import Database.SQLite.Simple.Time (dayToBuilder, parseDay, parseUTCTime)
import Database.SQLite.Simple.ToField
import Database.SQLite.Simple.Types (Null (..))

-- A record with the Generic default methods (sqlite-simple's idiom).
data Person = Person { pName :: T.Text, pAge :: Int }
  deriving (Eq, Show, Generic)

instance FromRow Person
instance ToRow Person

-- A Generic record of positional fields, several of one type (they share one instance
-- dictionary per type, the case GFromRow's gfromRowAt is about).
data Point = Point Int (Maybe Int) Int T.Text (Maybe T.Text) (Maybe Double)
  deriving (Eq, Show, Generic)

instance FromRow Point

-- A user FromField instance in sqlite-simple's style (pure, on fieldData, with Ok).
newtype Upper = Upper T.Text deriving (Eq, Show)

instance FromField Upper where
  fromField f = case fieldData f of
    SQLText t | T.all (`notElem` ['a' .. 'z']) t -> Ok (Upper t)
    SQLText _ -> returnError ConversionFailed f "lower case letters"
    _ -> returnError Incompatible f "want TEXT"

instance ToField Upper where
  toField (Upper t) = SQLText t

withC :: (Connection -> IO a) -> IO a
withC = withConnection ":memory:"

caught :: forall e a. Exception e => IO a -> IO e
caught act = do
  r <- try act
  case r of
    Left e -> return e
    Right _ -> assertFailure "expected an exception" >> undefined

simpleCompatTests :: Test
simpleCompatTests = TestList
  [ "Generic FromRow/ToRow records" ~: withC $ \c -> do
      execute_ c "CREATE TABLE p (name TEXT, age INT)"
      execute c "INSERT INTO p VALUES (?, ?)" (Person "ada" 36)
      executeMany c "INSERT INTO p VALUES (?, ?)" [Person "alan" 41, Person "grace" 85]
      rs <- query_ c "SELECT name, age FROM p ORDER BY age" :: IO [Person]
      rs @?= [Person "ada" 36, Person "alan" 41, Person "grace" 85]
      n <- fold_ c "SELECT name, age FROM p" (0 :: Int) (\a (Person _ k) -> return (a + k))
      n @?= 162
  , "Generic FromRow: positional fields of repeated types, NULLs, :., wrong widths" ~: withC $ \c -> do
      execute_ c "CREATE TABLE q (a INT, b INT, c INT, d TEXT, e TEXT, f REAL)"
      executeMany c "INSERT INTO q VALUES (?, ?, ?, ?, ?, ?)"
        [ (1 :: Int, Just (2 :: Int), 3 :: Int, "x" :: T.Text, Just ("y" :: T.Text), Just (0.5 :: Double))
        , (4, Nothing, 6, "", Nothing, Nothing) ]
      rs <- query_ c "SELECT a, b, c, d, e, f FROM q ORDER BY a" :: IO [Point]
      rs @?= [Point 1 (Just 2) 3 "x" (Just "y") (Just 0.5), Point 4 Nothing 6 "" Nothing Nothing]
      n <- fold_ c "SELECT a, b, c, d, e, f FROM q" (0 :: Int) $ \acc (Point a b k _ _ _) ->
        return $! acc + a + maybe 0 id b + k
      n @?= 16
      js <- query_ c "SELECT a, b, c, d, e, f, a * 10 FROM q ORDER BY a" :: IO [Point :. Only Int]
      [x | _ :. Only x <- js] @?= [10, 40]
      let re :: IO a -> IO ()
          re act = () <$ (caught act :: IO ResultError)
      re (query_ c "SELECT a, b, c, d, e FROM q" :: IO [Point])
      re (query_ c "SELECT a, b, c, d, e, f, a FROM q" :: IO [Point])
      re (query_ c "SELECT d, b, c, d, e, f FROM q" :: IO [Point])
  , "a user FromField instance: Ok, returnError, ConversionFailed/Incompatible" ~: withC $ \c -> do
      [Only u] <- query_ c "SELECT 'ABC'"
      u @?= Upper "ABC"
      e <- caught (query_ c "SELECT 'abc'" :: IO [Only Upper])
      e @?= ConversionFailed "TEXT" "Upper" "lower case letters"
      e2 <- caught (query_ c "SELECT 1" :: IO [Only Upper])
      e2 @?= Incompatible "INTEGER" "Upper" "want TEXT"
  , "RowParser Alternative: the second parser runs from the same column" ~: withC $ \c -> do
      let p = (Left <$> (field :: RowParser Int)) <|> (Right <$> (field :: RowParser T.Text))
      rs <- queryWith_ p c "SELECT 1 UNION ALL SELECT 'x'"
      rs @?= [Left 1, Right "x"]
      e <- caught (queryWith_ ((Left <$> (field :: RowParser Int)) <|> (Right <$> (field :: RowParser Null)))
                     c "SELECT 'y'" :: IO [Either Int Null])
      case e of ManyErrors es -> length es @?= 2
  , "Ok's instances" ~: do
      (Ok (1 :: Int) <|> Errors []) @?= Ok 1
      (Errors [] <|> Ok (2 :: Int)) @?= Ok 2
      case (Errors [toException (ErrorCall "a")] <|> Errors [toException (ErrorCall "b")] :: Ok Int) of
        Errors es -> length es @?= 2
        Ok _ -> assertFailure "expected Errors"
  , "sqlite-simple test/Errors.hs: column and type mismatches are ResultErrors" ~: withC $ \c -> do
      execute_ c "CREATE TABLE cols (id INTEGER PRIMARY KEY, t TEXT)"
      execute_ c "INSERT INTO cols (t) VALUES ('test string')"
      rows <- query_ c "SELECT t FROM cols" :: IO [Only String]
      rows @?= [Only "test string"]
      let re :: IO a -> IO ()
          re act = () <$ (caught act :: IO ResultError)
      re (query_ c "SELECT id,t FROM cols" :: IO [Only Int])
      re (query_ c "SELECT id FROM cols" :: IO [(Int, String)])
      re (query_ c "SELECT id, t FROM cols" :: IO [(String, Int)])
      re (query_ c "SELECT 'foo'" :: IO [Only Integer])
      re (query_ c "SELECT 1" :: IO [Only Double])
      re (query_ c "SELECT 'foo'" :: IO [Only Double])
      re (query_ c "SELECT 1" :: IO [Only Float])
      re (query_ c "SELECT 'true'" :: IO [Only Bool])
      re (query_ c "SELECT 2" :: IO [Only Bool])
      re (query_ c "SELECT 1" :: IO [Only UTCTime])
      re (query_ c "SELECT 1" :: IO [Only Day])
      [Only (_ :: B.ByteString)] <- query_ c "SELECT X'3177'"
      re (query_ c "SELECT 1" :: IO [Only B.ByteString])
      re (query_ c "SELECT 'foo'" :: IO [Only B.ByteString])
      re (query_ c "SELECT 'foo'" :: IO [Only BL.ByteString])
      re (query c "SELECT ?" (Only (B.pack [0 .. 127])) :: IO [Only String])
      [Only (nullVal :: Null)] <- query_ c "SELECT NULL"
      (nullVal == nullVal, nullVal /= nullVal) @?= (False, False)
      re (query_ c "SELECT 1" :: IO [Only Null])
  , "sqlite-simple test/Errors.hs: FormatError for bad parameters" ~: withC $ \c -> do
      execute_ c "CREATE TABLE invparams (id INTEGER PRIMARY KEY, t TEXT)"
      let fe :: IO a -> IO ()
          fe act = () <$ (caught act :: IO FormatError)
      fe (execute c "INSERT INTO invparams (t) VALUES (:v)" (Only ("foo" :: String)))
      fe (execute c "INSERT INTO invparams (id, t) VALUES (:v,$1)" (3 :: Int, "foo" :: String))
      fe (execute c "INSERT INTO invparams (id, t) VALUES (?, ?)" (Only (3 :: Int)))
      fe (queryNamed c "SELECT :foo" [":foox" := (1 :: Int)] :: IO [Only Int])
      fe (queryNamed c "SELECT :foo + :bar" [":foo" := (1 :: Int)] :: IO [Only Int])
      fe (query c "SELECT :foo" (Only (1 :: Int)) :: IO [Only Int])
      -- no parameters bound: SQLite substitutes NULL
      execute_ c "INSERT INTO invparams (t) VALUES (:v)"
      [Only row] <- query_ c "SELECT t FROM invparams" :: IO [Only (Maybe String)]
      row @?= Nothing
  , "sqlite-simple test/Errors.hs: columnName out of bounds, bad statement" ~: withC $ \c -> do
      execute_ c "CREATE TABLE invcolumn (id INTEGER PRIMARY KEY, t TEXT)"
      _ <- caught (withStatement c "SELECT id FROM invcolumn" $ \st -> columnName st (ColumnIndex (-1)))
             :: IO ArrayException
      withStatement c "SELECT id, t FROM invcolumn" $ \st -> do
        n <- columnCount st
        n @?= 2
        mapM (columnName st) [0 .. n - 1] >>= (@?= ["id", "t"])
      _ <- caught (withStatement c "SELECT id, t, t1 FROM invcolumn" $ \_ -> return ()) :: IO SQLError
      return ()
  , "sqlite-simple test/Errors.hs: a transaction rolls back on a FormatError" ~: withC $ \c -> do
      execute_ c "CREATE TABLE trans (id INTEGER PRIMARY KEY, t TEXT)"
      _ <- caught (withTransaction c $ do
             executeNamed c "INSERT INTO trans (t) VALUES (:txt)" [":txt" := ("foo" :: String)]
             executeNamed c "INSERT INTO trans (t) VALUES (:txt)" [":missing" := ("foo" :: String)])
             :: IO FormatError
      rows <- query_ c "SELECT t FROM trans" :: IO [Only String]
      rows @?= []
  , "conversions as sqlite-simple's: integers wrap, Text only from TEXT" ~: withC $ \c -> do
      [Only i8] <- query_ c "SELECT 257"
      i8 @?= (1 :: Int8)
      [Only w] <- query c "SELECT ?" (Only (maxBound :: Word64))
      w @?= (-1 :: Int64)
      [Only w'] <- query c "SELECT ?" (Only (maxBound :: Word64))
      w' @?= (maxBound :: Word64)
      e <- caught (query_ c "SELECT 42" :: IO [Only T.Text])
      e @?= ConversionFailed "INTEGER" "Text" "need a text"
  , "sqlite-simple test/ParamConv.hs: UTCTime and Day text forms" ~: withC $ \c -> do
      let at :: Int -> Int -> Int -> DiffTime -> UTCTime
          at d h m s = UTCTime (fromGregorian 2012 8 d) (fromIntegral (h * 3600 + m * 60) + s)
      forM' [ ("2012-08-17 13:25", at 17 13 25 0), ("2012-08-17T13:25:00", at 17 13 25 0)
            , ("2012-08-17 13:25:01.5", at 17 13 25 1.5), ("2012-08-17 13:25:00Z", at 17 13 25 0)
            , ("2012-08-17 13:25+02", at 17 11 25 0), ("2012-08-17 13:25:00-01:30", at 17 14 55 0) ] $ \(txt, want) -> do
        [Only got] <- query c "SELECT ?" (Only (txt :: T.Text))
        assertEqual (T.unpack txt) want got
      [Only back] <- query c "SELECT ?" (Only (at 17 13 25 0.25))
      back @?= ("2012-08-17 13:25:00.25" :: T.Text)
      [Only back0] <- query c "SELECT ?" (Only (at 17 13 25 0))
      back0 @?= ("2012-08-17 13:25:00" :: T.Text)
      -- a year before 1000 is padded so that SQLite's date() reads it back
      [Only d] <- query c "SELECT date(?)" (Only (fromGregorian 999 1 2))
      d @?= ("0999-01-02" :: T.Text)
      BL.toStrict (BB.toLazyByteString (dayToBuilder (fromGregorian 5 6 7))) @?= "0005-06-07"
      parseDay "2012-08-17" @?= Right (fromGregorian 2012 8 17)
      assertBool "short year" (either (const True) (const False) (parseDay "212-08-17"))
      assertBool "junk after" (either (const True) (const False) (parseUTCTime "2012-08-17 13:25 x"))
  , "Bool: 0 and 1 only" ~: withC $ \c -> do
      query_ c "SELECT 0, 1" >>= (@?= [(False, True)])
      e <- caught (query_ c "SELECT 2" :: IO [Only Bool])
      e @?= ConversionFailed "INTEGER" "Bool" "bool must be 0 or 1, got 2"
  , "foldWith, foldWith_, foldNamedWith, queryNamedWith, withBind" ~: withC $ \c -> do
      let p = (field :: RowParser Int)
      a <- foldWith_ p c "SELECT 1 UNION ALL SELECT 2" 0 (\x y -> return (x + y))
      b <- foldWith p c "SELECT ? UNION ALL SELECT 5" (Only (4 :: Int)) 0 (\x y -> return (x + y))
      d <- foldNamedWith p c "SELECT :v" [":v" := (7 :: Int)] 0 (\x y -> return (x + y))
      rs <- queryNamedWith p c "SELECT :v * 2" [":v" := (8 :: Int)]
      (a, b, d, rs) @?= (3, 9, 7, [16])
      withStatement c "SELECT ? + 1" $ \st -> do
        r1 <- withBind st (Only (1 :: Int)) (nextRow st)
        r2 <- withBind st (Only (10 :: Int)) (nextRow st :: IO (Maybe (Only Int)))
        (r1, r2) @?= (Just (Only (2 :: Int)), Just (Only 11))
  , "the sql quasiquoter (Template Haskell)" ~: withC $ \c -> do
      rs <- query c [sql|
        SELECT ? + 1
        |] (Only (41 :: Int))
      rs @?= [Only (42 :: Int)]
  , "setTrace: each statement's text as it runs, parameters expanded; Nothing stops it" ~: do
      logRef <- newIORef []
      let logger t = modifyIORef logRef (t :)
          logged = reverse <$> readIORef logRef
      withC $ \c -> do
        setTrace c (Just logger)
        execute_ c "CREATE TABLE t (a INTEGER, b TEXT)"
        execute c "INSERT INTO t VALUES (?, ?)" (1 :: Int, "x" :: T.Text)
        rs <- query c "SELECT a FROM t WHERE b = ?" (Only ("x" :: T.Text))
        rs @?= [Only (1 :: Int)]
        logged >>= (@?= [ "CREATE TABLE t (a INTEGER, b TEXT)"
                        , "INSERT INTO t VALUES (1, 'x')"
                        , "SELECT a FROM t WHERE b = 'x'" ])
        -- a new logger replaces the old one (whose wrapper the library frees)
        logRef2 <- newIORef []
        setTrace c (Just (\t -> modifyIORef logRef2 (t :)))
        execute_ c "DELETE FROM t"
        readIORef logRef2 >>= (@?= ["DELETE FROM t"])
        setTrace c Nothing
        execute_ c "DROP TABLE t"
        logged >>= (@?= [ "CREATE TABLE t (a INTEGER, b TEXT)"
                        , "INSERT INTO t VALUES (1, 'x')"
                        , "SELECT a FROM t WHERE b = 'x'" ])
        readIORef logRef2 >>= (@?= ["DELETE FROM t"])
        -- a logger that throws does not stop the statement
        setTrace c (Just (\_ -> throwIO (userError "logger failed")))
        query_ c "SELECT 7" >>= (@?= [Only (7 :: Int)])
        -- left set: closing the connection releases it
  , "setTrace on a closed connection throws and leaks nothing" ~: do
      c <- open ":memory:"
      close c
      r <- try (setTrace c (Just (\_ -> return ())))
      case r of
        Left (_ :: SQLError) -> return ()
        Right () -> assertFailure "expected SQLError"
  , "a row that fails in a later batch throws sqlite-simple's error (fold and query)" ~: withC $ \c -> do
      let q = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) \
              \SELECT CASE WHEN i = 15000 THEN 'x' ELSE i END, i FROM n"
      e1 <- caught (fold_ c q (0 :: Int) (\a (x, _ :: Int) -> return $! a + (x :: Int)))
      e1 @?= ConversionFailed "TEXT" "Int" "need an int"
      e2 <- caught (query_ c q :: IO [(Maybe Int64, Int)])
      e2 @?= ConversionFailed "TEXT" "Int64" "need an int"
      -- the slow path of a field (a kind its type does not take in line) converts the same
      rs <- query_ c "SELECT 'a', 2.5, NULL" :: IO [(T.Text, Maybe Double, Maybe T.Text)]
      rs @?= [("a", Just 2.5, Nothing)]
      e3 <- caught (query_ c "SELECT 'a', 1" :: IO [(T.Text, T.Text)])
      e3 @?= ConversionFailed "INTEGER" "Text" "need a text"
      ok <- query_ c "SELECT 1, 'a'" :: IO [(Int, T.Text)]
      ok @?= [(1, "a")]
      -- <|> over fields taken in line and out of line
      alt <- queryWith_ ((Left <$> (field :: RowParser Int)) <|> (Right <$> (field :: RowParser T.Text)))
               c "SELECT 'z' UNION ALL SELECT 3"
      alt @?= [Right "z", Left 3]
  ]
  where
    forM' xs f = mapM_ f xs
