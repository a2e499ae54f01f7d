{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
{-# LANGUAGE TypeOperators #-}
-- | The test suite of the Haskell binding (run by `make test`).
module Main (main) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import qualified Data.ByteString.Lazy as BL
import Data.Int
import Data.IORef
import Data.List (intercalate, isInfixOf, sort)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Lazy as TL
import Data.Time (Day, UTCTime (..), fromGregorian, secondsToDiffTime)
import Data.Word
import GHC.Stats
import System.Directory (getTemporaryDirectory, removeFile)
import System.Exit (exitFailure, exitSuccess)
import System.IO.Unsafe (unsafeInterleaveIO)
import System.Posix.Signals (Handler (Ignore), installHandler, sigPIPE)
import System.Mem (performMajorGC)
import System.Timeout (timeout)
import Test.HUnit

import Database.SQLBatch
import Kit
import qualified Database.SQLBatch.Direct as D
import Database.SQLBatch.Error (decodeError, encodeError, errorCodeName)
import qualified Database.SQLBatch.FromField as FF
import Database.SQLBatch.Raw (c_sqlbatch_stmt_bind)
import Database.SQLBatch.Raw.Types (paramsAddresses, withCParams)
import Ahead (aheadProperties, aheadTests)
import Database.SQLBatch.Internal (mayNameParams)
import qualified Database.SQLBatch.Internal.Core as C
import qualified Test.QuickCheck as Q
import Extensions (extensionTests)
import Functions (functionTests)
import SimpleCompat (simpleCompatTests)
import SimpleUpstream (simpleUpstreamTests)
import Mixing (mixingTests)
import VTabTests (vtabTests)
import Untrusted (untrustedTests)
import Cancel (cancelTests)
import Encryption (encryptionTests)
import Properties (properties)
import Soak (soak, startWorker)
import Foreign.Ptr (castPtr, nullPtr)
import GHC.Float (castDoubleToWord64, castWord64ToDouble)
import Numeric (readHex)
import System.Environment (lookupEnv)
import Foreign.Marshal.Alloc (allocaBytes)

main :: IO ()
main = do
  -- SQLBATCH_SOAK=SECONDS runs the soak test alone (make soak).
  soakFor <- lookupEnv "SQLBATCH_SOAK"
  case soakFor of
    Just secs -> soak (read secs) >>= \ok -> unless ok exitFailure
    Nothing -> suite

-- | The whole suite, or (@SQLBATCH_TESTS@: labels of 'tests', separated by spaces) only
-- those groups, without the properties.
suite :: IO ()
suite = do
  only <- fmap words <$> lookupEnv "SQLBATCH_TESTS"
  let chosen = case (only, tests) of
        (Just ls, TestList ts) -> TestList [t | t@(TestLabel l _) <- ts, l `elem` ls]
        _ -> tests
  (c, _) <- performTest start (problem "ERROR") (problem "FAIL") () chosen
  putStrLn (showCounts c)
  when (only /= Nothing) $ if errors c + failures c > 0 then exitFailure else exitSuccess
  props <- aheadProperties
  putStrLn "property: mayNameParams finds every byte that may start a named or numbered parameter"
  named <- Q.isSuccess <$> Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 2000 } propMayName
  more <- properties
  when (errors c + failures c > 0 || not props || not named || not more) exitFailure
  where
    name st = intercalate " / " [l | Label l <- reverse (path st)]
    start st () = putStrLn ("test: " ++ name st)
    problem what _ msg st () = putStrLn (what ++ ": " ++ name st ++ "\n" ++ msg)

-- | 'mayNameParams' (memchr per byte) against a loop over the bytes, on SQL-ish strings
-- rich in the bytes it looks for.
propMayName :: Q.Property
propMayName = Q.forAll (Q.listOf (Q.elements (B.unpack (B8.pack "?:@$#?0179a ;'")))) $ \ws ->
  let b = B.pack ws
      starts i = B.index b i `elem` [58, 64, 36, 35]
        || (B.index b i == 63 && i + 1 < B.length b && B.index b (i + 1) `elem` [48 .. 57])
  in mayNameParams b Q.=== any starts [0 .. B.length b - 1]

tests :: Test
tests = TestList
  [ TestLabel "RoundTrip" roundTrips
  , TestLabel "Rows" rowTests
  , TestLabel "Conversion" conversionErrors
  , TestLabel "SQLError" sqlErrors
  , TestLabel "Script" scriptTests
  , TestLabel "ExecuteMany" executeManyTests
  , TestLabel "Named" namedTests
  , TestLabel "Transaction" transactionTests
  , TestLabel "State" stateTests
  , TestLabel "Statement" statementTests
  , TestLabel "Buffers" bufferTests
  , TestLabel "Streaming" streamingTests
  , TestLabel "Async" asyncTests
  , TestLabel "Cancel" cancelTests
  , TestLabel "Threads" threadTests
  , TestLabel "Direct" directTests
  , TestLabel "EmptyArrays" emptyArrayTests
  , TestLabel "ConversionVectors" conversionVectorTests
  , TestLabel "Functions" functionTests
  , TestLabel "SimpleCompat" simpleCompatTests
  , TestLabel "sqlite-simple's test suite" simpleUpstreamTests
  , TestLabel "Mixing" mixingTests
  , TestLabel "VTab" vtabTests
  , TestLabel "Untrusted" untrustedTests
  , TestLabel "Extensions" extensionTests
  , TestLabel "Ahead" aheadTests
  , TestLabel "Encryption" encryptionTests
  , TestLabel "SoakHarness" soakHarnessTests
  ]

-- | What the soak thread throws at its workers (here: at once).
data Early = Early
  deriving (Show)

instance Exception Early

-- | The soak's own harness ("Soak"): it throws exceptions at its workers from the moment
-- they are forked.
soakHarnessTests :: Test
soakHarnessTests = TestList
  [ "a soak worker thrown an exception before it first runs still handles it and says it ended" ~: do
      -- Forked unmasked, a thread thrown an exception before it has run dies as it starts,
      -- before any handler of its own: its end is never signalled (the soak then waited for
      -- it and failed, naming every worker it had already waited for as still running).
      ws <- forM [1 .. 64 :: Int] $ \_ -> do
        got <- newEmptyMVar
        (t, done) <- startWorker $ \unmask ->
          (unmask (threadDelay 5000000) >> putMVar got False) `catch` \Early -> putMVar got True
        throwTo t Early
        return (got, done)
      r <- timeout 2000000 (forM ws (\(got, done) -> readMVar done >> readMVar got))
      r @?= Just (replicate 64 True)
  ]

-- | Writes a value through a parameter into a typeless column and reads it back.
roundTrip :: forall a. (ToField a, FromField a) => Connection -> a -> IO a
roundTrip conn v = do
  executeScript conn "DROP TABLE IF EXISTS rt; CREATE TABLE rt(x)"
  execute conn "INSERT INTO rt VALUES (?)" (Only v)
  [Only r] <- query_ conn "SELECT x FROM rt"
  -- and the same through a bound SELECT, without storage
  [Only r2] <- query conn "SELECT ?" (Only v)
  r2' <- return (r2 :: a)
  _ <- evaluate r2'
  return r

sameBits :: Double -> Double -> Bool
sameBits a b = (isNaN a && isNaN b) || (a == b && isNegativeZero a == isNegativeZero b)

roundTrips :: Test
roundTrips = TestList
  [ "Int64 extremes" ~: withMem $ \c -> forM_ [minBound, maxBound, 0, -1, 1 :: Int64] $ \v ->
      roundTrip c v >>= (@?= v)
  , "Int and Integer" ~: withMem $ \c -> do
      roundTrip c (maxBound :: Int) >>= (@?= maxBound)
      roundTrip c (toInteger (minBound :: Int64)) >>= (@?= toInteger (minBound :: Int64))
  , "small ints and words" ~: withMem $ \c -> do
      roundTrip c (minBound :: Int8) >>= (@?= minBound)
      roundTrip c (maxBound :: Int32) >>= (@?= maxBound)
      roundTrip c (maxBound :: Word32) >>= (@?= maxBound)
      roundTrip c (fromIntegral (maxBound :: Int64) :: Word64) >>= (@?= fromIntegral (maxBound :: Int64))
  , "doubles: infinities, -0.0, subnormal, extremes" ~: withMem $ \c ->
      forM_ [0, -0.0, 1 / 0, -1 / 0, 1.5e-300, 4.9e-324, 1.7976931348623157e308, pi, -2.5 :: Double] $ \v -> do
        r <- roundTrip c v
        assertBool ("double " ++ show v ++ " came back as " ++ show r) (sameBits v r)
  , "NaN: SQLite stores it as NULL" ~: withMem $ \c -> do
      r <- roundTrip c (Just (0 / 0 :: Double))
      r @?= Nothing
      [Only t] <- query c "SELECT typeof(?)" (Only (0 / 0 :: Double))
      t @?= ("null" :: Text)
  , "Float" ~: withMem $ \c -> roundTrip c (1.5 :: Float) >>= (@?= 1.5)
  , "Bool" ~: withMem $ \c -> do
      roundTrip c True >>= (@?= True)
      roundTrip c False >>= (@?= False)
  , "unicode text" ~: withMem $ \c ->
      forM_ ["", "a", "héllo wörld ✓", "𝄞 music, 🙂 emoji", "日本語のテキスト", "ελληνικά", T.replicate 1000 "ü"] $ \t ->
        roundTrip c (t :: Text) >>= (@?= t)
  , "embedded NUL in text and blob" ~: withMem $ \c -> do
      roundTrip c ("nul\0inside\0" :: Text) >>= (@?= "nul\0inside\0")
      roundTrip c (B.pack [0, 1, 0, 255, 0]) >>= (@?= B.pack [0, 1, 0, 255, 0])
      [Only n] <- query c "SELECT length(CAST(? AS BLOB))" (Only ("a\0b" :: Text))
      n @?= (3 :: Int)
  , "all byte values in a blob" ~: withMem $ \c ->
      roundTrip c (B.pack [0 .. 255]) >>= (@?= B.pack [0 .. 255])
  , "empty vs NULL" ~: withMem $ \c -> do
      [(a, b, d, e)] <- query_ c "SELECT '', x'', NULL, typeof(x'')"
      (a :: Maybe Text, b :: Maybe B.ByteString, d :: Maybe Text, e :: Text) @?= (Just "", Just "", Nothing, "blob")
      roundTrip c (Just ("" :: Text)) >>= (@?= Just "")
      roundTrip c (Nothing :: Maybe Text) >>= (@?= Nothing)
      roundTrip c (Just B.empty) >>= (@?= Just B.empty)
      [Only ty] <- query c "SELECT typeof(?)" (Only B.empty)
      ty @?= ("blob" :: Text)
      [Only ty'] <- query c "SELECT typeof(?)" (Only ("" :: Text))
      ty' @?= ("text" :: Text)
  , "Null" ~: withMem $ \c -> do
      [Only n] <- query c "SELECT ?" (Only Null)
      -- as in SQL and sqlite-simple, a NULL equals nothing, not even itself
      (n == Null, n /= Null) @?= (False, False)
  , "SQLData" ~: withMem $ \c -> do
      let vs = [SQLInteger 7, SQLFloat 2.5, SQLText "t", SQLBlob "b", SQLNull]
      [r] <- query c "SELECT ?, ?, ?, ?, ?" vs
      r @?= vs
  , "String, lazy Text, lazy ByteString" ~: withMem $ \c -> do
      roundTrip c ("straße" :: String) >>= (@?= "straße")
      roundTrip c ("lazy ✓" :: TL.Text) >>= (@?= "lazy ✓")
      roundTrip c (BL.fromChunks ["ab", "cd"]) >>= (@?= "abcd")
  , "Day and UTCTime" ~: withMem $ \c -> do
      let d = fromGregorian 2024 2 29
          t = UTCTime d (secondsToDiffTime 3723 + 0.25)
      roundTrip c (d :: Day) >>= (@?= d)
      roundTrip c (t :: UTCTime) >>= (@?= t)
      [Only t2] <- query_ c "SELECT datetime('2024-02-29 01:02:03')"
      t2 @?= UTCTime d (secondsToDiffTime 3723)
  ]

data Person = Person { pName :: Text, pAge :: Int, pEmail :: Maybe Text }
  deriving (Eq, Show)

instance FromRow Person where
  fromRow = Person <$> field <*> field <*> field

instance ToRow Person where
  toRow (Person n a e) = toRow (n, a, e)

rowTests :: Test
rowTests = TestList
  [ "tuples up to 10 and beyond" ~: withMem $ \c -> do
      [r10] <- query_ c "SELECT 1,2,3,4,5,6,7,8,9,10"
      r10 @?= ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10) :: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int))
      [r15] <- query_ c "SELECT 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
      r15 @?= ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        :: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int))
      [r3 :. r2] <- query c "SELECT ?, ?, ?, ?, ?" (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int)
      (r3, r2) @?= ((1, 2, 3) :: (Int, Int, Int), (4, 5) :: (Int, Int))
  , "records through RowParser and ToRow" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE p(name TEXT, age INT, email TEXT)"
      let ps = [Person "Ada" 36 (Just "ada@example.org"), Person "Alan" 41 Nothing]
      executeMany c "INSERT INTO p VALUES (?, ?, ?)" ps
      got <- query_ c "SELECT name, age, email FROM p ORDER BY age"
      got @?= ps
  , "list instance reads all columns" ~: withMem $ \c -> do
      [r] <- query_ c "SELECT 1, 2, 3"
      r @?= [1, 2, 3 :: Int]
  , "query returns rows in order across many batches" ~: withMem $ \c -> do
      rs <- query_ c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000) SELECT x FROM c"
      map fromOnly rs @?= [1 .. 100000 :: Int]
  , "empty result" ~: withMem $ \c -> do
      rs <- query_ c "SELECT 1 WHERE 0" :: IO [Only Int]
      rs @?= []
      n <- fold_ c "SELECT 1 WHERE 0" (0 :: Int) (\a (Only x) -> return (a + x))
      n @?= 0
  , "fold and forEach see every row" ~: withMem $ \c -> do
      s <- fold c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?) SELECT x FROM c"
             (Only (50000 :: Int)) (0 :: Int) (\a (Only x) -> return $! a + x)
      s @?= sum [1 .. 50000]
      ref <- newIORef (0 :: Int)
      forEach_ c "SELECT 3 UNION ALL SELECT 4" (\(Only x) -> modifyIORef' ref (+ x))
      readIORef ref >>= (@?= 7)
  , "nested queries inside a fold" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE a(x); INSERT INTO a VALUES (1), (2), (3); CREATE TABLE b(y)"
      forEach_ c "SELECT x FROM a" $ \(Only (x :: Int)) ->
        execute c "INSERT INTO b VALUES (?)" (Only (x * 10))
      rs <- query_ c "SELECT y FROM b ORDER BY y"
      map fromOnly rs @?= [10, 20, 30 :: Int]
  , "queryWith a monadic row parser" ~: withMem $ \c -> do
      let rp = do
            n <- field :: RowParser Int
            xs <- replicateM n field
            return (xs :: [Text])
      rs <- queryWith_ rp c "SELECT 2, 'a', 'b'"
      rs @?= [["a", "b"]]
  ]

-- | Runs an action expecting a ResultError.
resultError :: IO a -> IO ResultError
resultError act = do
  r <- try act
  case r of
    Left e -> return e
    Right _ -> assertFailure "expected a ResultError" >> undefined

conversionErrors :: Test
conversionErrors = TestList
  [ "a type mismatch is ConversionFailed with sqlite-simple's fields" ~: withMem $ \c -> do
      e <- resultError (query_ c "SELECT 1 AS id, 'x' AS name" :: IO [(Int, Int)])
      e @?= ConversionFailed "TEXT" "Int" "need an int"
  , "NULL for a type without Maybe" ~: withMem $ \c -> do
      e <- resultError (query_ c "SELECT NULL AS maybe_text" :: IO [Only Text])
      e @?= ConversionFailed "NULL" "Text" "need a text"
  , "narrowing integers wrap (as sqlite-simple)" ~: withMem $ \c -> do
      [Only w] <- query_ c "SELECT 300 AS small"
      w @?= (44 :: Word8)
      [Only i] <- query_ c "SELECT 257"
      i @?= (1 :: Int8)
  , "invalid UTF-8 in TEXT is decoded leniently" ~: withMem $ \c -> do
      [Only t] <- query_ c "SELECT CAST(x'61ff62' AS TEXT) AS bad"
      t @?= T.pack "a\xfffd\&b"
  , "REAL is not an Int" ~: withMem $ \c -> do
      e <- resultError (query_ c "SELECT 1.5" :: IO [Only Int64])
      (errSQLType e, errHaskellType e) @?= ("FLOAT", "Int64")
  , "errors name the Haskell type asked for" ~: withMem $ \c -> do
      forM_ [("NULL", "SELECT NULL AS v"), ("BLOB", "SELECT x'00' AS v")] $ \(ty, q) -> do
        e1 <- resultError (query_ c q :: IO [Only Int64])
        (errSQLType e1, errHaskellType e1) @?= (ty, "Int64")
        e2 <- resultError (query_ c q :: IO [Only Double])
        (errSQLType e2, errHaskellType e2) @?= (ty, "Double")
        e3 <- resultError (query_ c q :: IO [Only Float])
        (errSQLType e3, errHaskellType e3) @?= (ty, "Float")
        e4 <- resultError (query_ c q :: IO [Only Bool])
        (errSQLType e4, errHaskellType e4) @?= (ty, "Bool")
        e5 <- resultError (query_ c q :: IO [Only UTCTime])
        (errSQLType e5, errHaskellType e5) @?= (ty, "UTCTime")
        e6 <- resultError (query_ c q :: IO [Only Day])
        (errSQLType e6, errHaskellType e6) @?= (ty, "Day")
        e7 <- resultError (fold_ c q (0 :: Int64) (\a (Only x) -> return $! a + x))
        (errSQLType e7, errHaskellType e7) @?= (ty, "Int64")
  , "too few and too many columns" ~: withMem $ \c -> do
      e1 <- resultError (query_ c "SELECT 1, 2, 3" :: IO [(Int, Int)])
      e1 @?= ConversionFailed "3 values: [(\"INTEGER\",\"SQLInteger 1\"),(\"INTEGER\",\"SQLInteger 2\"),(\"INTEGER\",\"SQLInteger 3\")]"
               "at least 2 slots in target type"
               "mismatch between number of columns to convert and number in target type"
      e2 <- resultError (query_ c "SELECT 1" :: IO [(Int, Int)])
      errHaskellType e2 @?= "at least 2 slots in target type"
  , "the connection works after a conversion error" ~: withMem $ \c -> do
      _ <- try (query_ c "SELECT 'x'" :: IO [Only Int]) :: IO (Either ResultError [Only Int])
      [Only x] <- query_ c "SELECT 42"
      x @?= (42 :: Int)
  ]

expectFormatError :: IO a -> IO FormatError
expectFormatError act = do
  r <- try act
  case r of
    Left e -> return e
    Right _ -> assertFailure "expected a FormatError" >> undefined

expectSQLError :: IO a -> IO SQLError
expectSQLError act = do
  r <- try act
  case r of
    Left e -> return e
    Right _ -> assertFailure "expected an SQLError" >> undefined

sqlErrors :: Test
sqlErrors = TestList
  [ "syntax error with the token's offset" ~: withMem $ \c -> do
      e <- expectSQLError (query_ c "SELECT 1 FROM nowhere" :: IO [Only Int])
      sqlError e @?= ErrorError
      sqlErrorCode e @?= 1
      assertBool (show e) ("no such table" `T.isInfixOf` sqlErrorDetails e)
      e1 <- expectSQLError (query_ c "SELECT a, nosuchcol FROM (SELECT 1 AS a)" :: IO [(Int, Int)])
      assertBool (show e1) ("no such column" `T.isInfixOf` sqlErrorDetails e1)
      sqlErrorOffset e1 @?= Just 10
      e2 <- expectSQLError (executeScript c "SELECT 1 FRM t")
      sqlErrorOffset e2 @?= Just 13 -- "FRM" parses as an alias; the error is at "t"
      assertBool (show e2) ("SELECT 1 FRM t" `T.isInfixOf` sqlErrorContext e2)
  , "constraint violation with the extended code" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE u(x UNIQUE)"
      execute c "INSERT INTO u VALUES (?)" (Only (1 :: Int))
      e <- expectSQLError (execute c "INSERT INTO u VALUES (?)" (Only (1 :: Int)))
      sqlError e @?= ErrorConstraint
      sqlErrorCode e @?= 2067
      assertBool (show e) ("SQLITE_CONSTRAINT_UNIQUE" `isInfixOf` show e)
      e2 <- expectSQLError (execute c "INSERT INTO u VALUES (NULL), (?)" (Only (1 :: Int)))
      sqlErrorCode e2 @?= 2067
  , "runtime error while fetching, after some rows" ~: withMem $ \c -> do
      e <- expectSQLError (query_ c
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5) SELECT CASE WHEN x = 4 THEN abs(-9223372036854775807 - 1) ELSE x END FROM c"
        :: IO [Only Int])
      assertBool (show e) ("integer overflow" `T.isInfixOf` sqlErrorDetails e)
  , "wrong number of parameters" ~: withMem $ \c -> do
      e <- expectFormatError (query c "SELECT ?, ?" (Only (1 :: Int)) :: IO [(Int, Int)])
      fmtMessage e @?= "SQL query contains 2 params, but 1 arguments given"
      (fmtQuery e, fmtParams e) @?= ("SELECT ?, ?", ["SQLInteger 1"])
      e2 <- expectFormatError (execute c "SELECT ?" (1 :: Int, 2 :: Int))
      fmtMessage e2 @?= "SQL query contains 1 params, but 2 arguments given"
  , "query with two statements is refused (SQLBATCH_PREPARE_SINGLE)" ~: withMem $ \c -> do
      e <- expectSQLError (query_ c "SELECT 1; SELECT 2" :: IO [Only Int])
      sqlError e @?= ErrorMultipleStatements
      sqlErrorCode e @?= 1009
      sqlErrorOffset e @?= Just 10 -- where the second statement starts
      assertBool (show e) ("SQLBATCH_E_MULTIPLE_STATEMENTS" `isInfixOf` show e)
      e2 <- expectSQLError (withStatement c "SELECT 1;\n/* c */ INSERT INTO nowhere VALUES (1)" (\_ -> return ()))
      (sqlError e2, sqlErrorOffset e2) @?= (ErrorMultipleStatements, Just 18)
      e3 <- expectSQLError (queryNamed c "SELECT :a; SELECT 2" [":a" := (1 :: Int)] :: IO [Only Int])
      sqlError e3 @?= ErrorMultipleStatements
      rs <- query_ c "SELECT 1; -- just a comment\n  "
      rs @?= [Only (1 :: Int)]
      rs2 <- query_ c "SELECT 2;;  ; /* lone semicolons and comments */ ;"
      rs2 @?= [Only (2 :: Int)]
      -- a script still runs through execute
      executeScript c "CREATE TABLE two(x); INSERT INTO two VALUES (1)"
      query_ c "SELECT x FROM two" >>= (@?= [Only (1 :: Int)])
  , "code names come from the library (sqlbatch_code_name)" ~: do
      map errorCodeName [0, 1, 5, 19, 2067, 1555, 266, 3850, 100, 101]
        @?= [ "SQLBATCH_OK", "SQLITE_ERROR", "SQLITE_BUSY", "SQLITE_CONSTRAINT"
            , "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_IOERR_READ"
            , "SQLITE_IOERR_LOCK", "SQLBATCH_ROW", "SQLBATCH_DONE" ]
      map errorCodeName [1000, 1003, 1004, 1006, 1009]
        @?= [ "SQLBATCH_E_NULL_PARAMETER", "SQLBATCH_E_RANGE", "SQLBATCH_E_PARAM_COUNT"
            , "SQLBATCH_E_CLOSED", "SQLBATCH_E_MULTIPLE_STATEMENTS" ]
      errorCodeName 99999 @?= "unknown code 99999"
      D.codeName 99999 >>= (@?= Nothing)
      D.codeName 2067 >>= (@?= Just "SQLITE_CONSTRAINT_UNIQUE")
      -- every constructor has a number the library has a name for, and decodes back
      forM_ [ErrorOK, ErrorError, ErrorBusy, ErrorConstraint, ErrorRange, ErrorWarning, ErrorRow, ErrorDone
            , ErrorNullParameter, ErrorPanic, ErrorInvalidUtf8, ErrorOutOfRange, ErrorParamCount
            , ErrorStaleBatch, ErrorClosed, ErrorInvalidArgument, ErrorBufferTooSmall
            , ErrorMultipleStatements] $ \e -> do
        decodeError (encodeError e) @?= e
        n <- D.codeName (encodeError e)
        assertBool (show e) (n /= Nothing)
      decodeError 2067 @?= ErrorConstraint
      decodeError 1009 @?= ErrorMultipleStatements
  , "closed connection" ~: do
      c <- open ":memory:"
      close c
      close c
      e <- expectSQLError (executeScript c "SELECT 1")
      sqlError e @?= ErrorClosed
  , "open failure" ~: do
      e <- expectSQLError (openWith "/nonexistent/dir/x.db" [D.OpenReadOnly])
      sqlError e @?= ErrorCan'tOpen
  , "interrupt error code" ~: withMem $ \c ->
      -- interrupting when nothing runs is a no-op
      interrupt c >> (query_ c "SELECT 1" >>= (@?= [Only (1 :: Int)]))
  ]

scriptTests :: Test
scriptTests = TestList
  [ "a script runs all its statements" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE s(a, b); INSERT INTO s VALUES (1, 'x'); INSERT INTO s VALUES (2, 'y'); -- done\n"
      rs <- query_ c "SELECT a, b FROM s ORDER BY a"
      rs @?= [(1 :: Int, "x" :: Text), (2, "y")]
  , "an error mid-script: index, offsets, earlier statements stay run" ~: withMem $ \c -> do
      let script = "CREATE TABLE s(a UNIQUE);\nINSERT INTO s VALUES (1);\nINSERT INTO s VALUES (2);\nINSERT INTO s VALUES (1);\nINSERT INTO s VALUES (3);\n"
      e <- expectSQLError (executeScript c script)
      sqlErrorCode e @?= 2067
      sqlErrorStatementIndex e @?= Just 3
      sqlErrorStatementOffset e @?= Just (length ("CREATE TABLE s(a UNIQUE);\nINSERT INTO s VALUES (1);\nINSERT INTO s VALUES (2);\n" :: String))
      rs <- query_ c "SELECT a FROM s ORDER BY a"
      map fromOnly rs @?= [1, 2 :: Int]
  , "a syntax error mid-script points into the whole script" ~: withMem $ \c -> do
      let script = "CREATE TABLE s(a);\nINSERT INTO s VALUES (1);\nINSERT INTO s VALUS (2);\n"
      e <- expectSQLError (executeScript c script)
      sqlError e @?= ErrorError
      sqlErrorStatementIndex e @?= Just 2
      sqlErrorOffset e @?= Just (length ("CREATE TABLE s(a);\nINSERT INTO s VALUES (1);\nINSERT INTO s " :: String))
      [Only n] <- query_ c "SELECT count(*) FROM s"
      n @?= (1 :: Int)
  , "every transaction statement the connection keeps prepared is found by its text, no other" ~: do
      forM_ (zip [0 ..] C.keptSql) $ \(i, k) -> C.keptIndex k @?= Just i
      forM_ ["begin", "BEGIN ", "COMMITS", "END TRANSACTIONS", "ROLLBACK TO x", ""] $ \k ->
        C.keptIndex (B8.pack k) @?= Nothing
  , "an error mid-script inside withTransaction rolls everything back" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE s(a UNIQUE)"
      _ <- try (withTransaction c (executeScript c "INSERT INTO s VALUES (1); INSERT INTO s VALUES (1);"))
             :: IO (Either SQLError ())
      [Only n] <- query_ c "SELECT count(*) FROM s"
      n @?= (0 :: Int)
  , "parameters consumed across statements, and named ones" ~: withMem $ \c -> do
      r <- executeScriptWith c
        "CREATE TABLE s(a, b); INSERT INTO s VALUES (?, :tag); INSERT INTO s VALUES (?, :tag);"
        (10 :: Int, 20 :: Int) [":tag" := ("t" :: Text)]
      execStatements r @?= 3
      execChanges r @?= 2
      rs <- query_ c "SELECT a, b FROM s ORDER BY a"
      rs @?= [(10 :: Int, "t" :: Text), (20, "t")]
  , "execute and execute_ run one statement and refuse a second (use executeScript)" ~: withMem $ \c -> do
      e <- expectSQLError (execute c "CREATE TABLE s(a); INSERT INTO s VALUES (?)" (Only (1 :: Int)))
      sqlError e @?= ErrorMultipleStatements
      e2 <- expectSQLError (execute_ c "CREATE TABLE s(a); INSERT INTO s VALUES (1)")
      sqlError e2 @?= ErrorMultipleStatements
      [Only n] <- query_ c "SELECT count(*) FROM sqlite_master"
      n @?= (0 :: Int)
  , "execute in one call: values, errors and the statement path's checks" ~: withMem $ \c -> do
      -- SQL that cannot name a parameter runs in one call into the library (prepare, bind,
      -- run, finalize); the values arrive as the statement path binds them.
      execute_ c "CREATE TABLE v(a, b, c, d)"
      let big = T.replicate 5000 "\233t\233 "
      execute c "INSERT INTO v VALUES (?, ?, ?, ?)" (1 :: Int, "" :: Text, B.pack [0, 1, 0], 2.5 :: Double)
      execute c "INSERT INTO v VALUES (?, ?, ?, ?)" (2 :: Int, big, B.empty, SQLNull)
      rs <- query_ c "SELECT a, b, c, d FROM v ORDER BY a"
      rs @?= [ (1 :: Int, "" :: Text, SQLBlob (B.pack [0, 1, 0]), SQLFloat 2.5)
             , (2, big, SQLBlob B.empty, SQLNull) ]
      -- An error of the statement: no statement index or offset (one statement, not a
      -- script), SQLite's token offset as before.
      execute_ c "CREATE TABLE u(x UNIQUE)"
      execute c "INSERT INTO u VALUES (?)" (Only (1 :: Int))
      e <- expectSQLError (execute c "INSERT INTO u VALUES (?)" (Only (1 :: Int)))
      (sqlErrorCode e, sqlErrorStatementIndex e, sqlErrorStatementOffset e, sqlErrorRowIndex e)
        @?= (2067, Nothing, Nothing, Nothing)
      -- A compile error as the statement path gives it (a comment with a colon sends the
      -- same statement there), but for its context.
      e2 <- expectSQLError (execute c "INSERT INTO nowhere VALUES (?)" (Only (1 :: Int)))
      e2' <- expectSQLError (execute c "INSERT INTO nowhere VALUES (?) -- :" (Only (1 :: Int)))
      assertBool (show e2) ("no such table" `T.isInfixOf` sqlErrorDetails e2)
      e2 { sqlErrorContext = "" } @?= e2' { sqlErrorContext = "" }
      e4 <- expectSQLError (execute c "INSERT INTO u VALUES (?) -- :" (Only (1 :: Int)))
      e { sqlErrorContext = "" } @?= e4 { sqlErrorContext = "" }
      -- Too many or too few values, a second statement: refused before anything ran, with
      -- the statement path's errors.
      f <- expectFormatError (execute c "INSERT INTO u VALUES (?)" ())
      fmtMessage f @?= "SQL query contains 1 params, but 0 arguments given"
      e3 <- expectSQLError (execute c "INSERT INTO u VALUES (?); INSERT INTO u VALUES (9)" (Only (5 :: Int)))
      (sqlError e3, sqlErrorOffset e3) @?= (ErrorMultipleStatements, Just 26)
      query_ c "SELECT x FROM u" >>= (@?= [Only (1 :: Int)])
      -- A colon in a string literal: the statement path (it may name a parameter), same result.
      execute c "INSERT INTO u VALUES (? || ':x')" (Only ("a" :: Text))
      query_ c "SELECT x FROM u WHERE x <> 1" >>= (@?= [Only ("a:x" :: Text)])
      -- No statement at all does nothing, as it did.
      execute_ c " -- nothing"
      execute c "" ()
  , "execute_ with an unbound parameter binds NULL (as query_ does)" ~: withMem $ \c -> do
      execute_ c "CREATE TABLE s(a)"
      execute_ c "INSERT INTO s VALUES (?)"
      rs <- query_ c "SELECT a FROM s"
      rs @?= [Only (Nothing :: Maybe Int)]
      rs2 <- query_ c "SELECT ?"
      rs2 @?= [Only SQLNull]
  ]

executeManyTests :: Test
executeManyTests = TestList
  [ "bulk insert of 20,000 rows (several chunks)" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)"
      let rows = [(i, fromIntegral i * 0.25, "row-" <> T.pack (show i)) | i <- [0 .. 19999 :: Int]]
      withTransaction c $ executeMany c "INSERT INTO bulk VALUES (?, ?, ?)" (rows :: [(Int, Double, Text)])
      [(n, s, l)] <- query_ c "SELECT count(*), sum(a), sum(length(c)) FROM bulk"
      (n, s, l) @?= (20000 :: Int, sum [0 .. 19999] :: Int, sum [length ("row-" ++ show i) | i <- [0 .. 19999 :: Int]])
      back <- query_ c "SELECT a, b, c FROM bulk ORDER BY a"
      back @?= rows
  , "a failing row is reported by index, across chunks" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE u(x UNIQUE)"
      let rows = map Only ([0 .. 5000] ++ [17 :: Int] ++ [6000 .. 6010])
      e <- expectSQLError (executeMany c "INSERT INTO u VALUES (?)" rows)
      sqlErrorCode e @?= 2067
      sqlErrorRowIndex e @?= Just 5001
      [Only n] <- query_ c "SELECT count(*) FROM u"
      n @?= (5001 :: Int)
  , "rows of different widths are refused" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE w(x, y)"
      e <- expectFormatError (executeMany c "INSERT INTO w VALUES (?, ?)" [[1, 2], [3 :: Int]])
      fmtMessage e @?= "SQL query contains 2 params, but 1 arguments given"
  , "a row of the wrong width: the rows before it have run, its index is given" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE w(x, y)"
      let rows = [[i, i] | i <- [0 .. 4999 :: Int]] ++ [[1, 2, 3]] ++ [[7, 7]]
      e <- expectFormatError (executeMany c "INSERT INTO w VALUES (?, ?)" rows)
      fmtMessage e @?= "SQL query contains 2 params, but 3 arguments given"
      [Only n] <- query_ c "SELECT count(*) FROM w"
      n @?= (5000 :: Int)
      e2 <- expectFormatError (executeMany c "INSERT INTO w VALUES (?, ?)" [(1 :: Int, 2 :: Int) :. Only (3 :: Int)])
      fmtMessage e2 @?= "SQL query contains 2 params, but 3 arguments given"
  , "texts and blobs that outgrow the data buffer, NULLs, non-ASCII text" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE g(i INTEGER, t TEXT, b BLOB, n)"
      -- (the row count comes from SQLite so that the rows are not a constant kept for good)
      [Only m] <- query_ c "SELECT 150"
      let big k = T.replicate (1000 * (k `mod` 7) + 1) (T.pack "\955x\128512")
          rows = [ (k, if k == 13 then T.replicate 3000000 "z" else big k, B.replicate (k * 997 `mod` 150000) (fromIntegral k), Nothing :: Maybe Int)
                 | k <- [0 .. m - 1 :: Int] ]
      executeMany c "INSERT INTO g VALUES (?, ?, ?, ?)" rows
      back <- query_ c "SELECT i, t, b, n FROM g ORDER BY i"
      length back @?= length rows
      assertBool "rows read back as written" (back == rows)
  , "texts with ASCII runs of every length around non-ASCII characters, at any offset" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE a(i INTEGER, t TEXT)"
      let piece k = T.pack (take k (cycle ['a' .. 'z'])) <> T.pack [toEnum (0x80 + k * 37), '\955', '\128512']
          texts = [T.drop d (T.concat (map piece [k .. k + 3]) <> T.replicate k "q") | k <- [0 .. 40], d <- [0 .. 3]]
          rows = zip [0 :: Int ..] texts
      executeMany c "INSERT INTO a VALUES (?, ?)" rows
      back <- query_ c "SELECT i, t FROM a ORDER BY i"
      back @?= rows
      bytes <- query_ c "SELECT CAST(t AS BLOB) FROM a ORDER BY i"
      bytes @?= map (Only . TE.encodeUtf8) texts
  , "rows through the generic path ([SQLData] and :.)" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE s(a, b, c)"
      executeMany c "INSERT INTO s VALUES (?, ?, ?)"
        [[SQLInteger 1, SQLFloat 0.5, SQLText "x"], [SQLNull, SQLBlob (B.pack [0, 1]), SQLText ""]]
      executeMany c "INSERT INTO s VALUES (?, ?, ?)" [Only (2 :: Int) :. ("y" :: Text, 3.5 :: Double)]
      back <- query_ c "SELECT a, b, c FROM s ORDER BY rowid"
      back @?= [ [SQLInteger 1, SQLFloat 0.5, SQLText "x"], [SQLNull, SQLBlob (B.pack [0, 1]), SQLText ""]
               , [SQLInteger 2, SQLText "y", SQLFloat 3.5] ]
  , "a lazily produced list streams in bounded memory" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE l(a INTEGER, b TEXT)"
      let n = 400000 :: Int
          liveBytes = performMajorGC >> (gcdetails_live_bytes . gc <$> getRTSStats)
      peak <- newIORef 0
      -- The rows are produced as they are consumed; every 50,000 rows the live heap is measured.
      let gen i
            | i > n = return []
            | otherwise = do
                when (i `mod` 50000 == 0) $ liveBytes >>= \l -> modifyIORef' peak (max l)
                rest <- unsafeInterleaveIO (gen (i + 1))
                return ((i, T.pack (show i)) : rest)
      base <- liveBytes
      rows <- gen 1
      withTransaction c $ executeMany c "INSERT INTO l VALUES (?, ?)" rows
      [Only k] <- query_ c "SELECT count(*) FROM l"
      k @?= n
      -- As a signed number: the live heap can end below where it started (a Word64 difference
      -- then wrapped around and failed the test).
      grown <- (\p -> toInteger p - toInteger base) <$> readIORef peak
      -- 400,000 rows of (Int, Text) held at once would take over 40 MB.
      assertBool ("the live heap grew by " ++ show grown ++ " bytes") (grown < 4000000)
  , "no rows is a no-op" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE w(x)"
      executeMany c "INSERT INTO w VALUES (?)" ([] :: [Only Int])
      [Only n] <- query_ c "SELECT count(*) FROM w"
      n @?= (0 :: Int)
  ]

namedTests :: Test
namedTests = TestList
  [ "queryNamed and executeNamed" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE n(id INTEGER, name TEXT)"
      executeNamed c "INSERT INTO n VALUES (:id, :name)" [":id" := (1 :: Int), ":name" := ("one" :: Text)]
      executeNamed c "INSERT INTO n VALUES (@id, $name)" ["@id" := (2 :: Int), "$name" := ("two" :: Text)]
      rs <- queryNamed c "SELECT name FROM n WHERE id >= :min ORDER BY id" [":min" := (1 :: Int)]
      map fromOnly rs @?= ["one", "two" :: Text]
      s <- foldNamed c "SELECT id FROM n WHERE name = :n" [":n" := ("two" :: Text)] 0 (\a (Only x) -> return (a + x))
      s @?= (2 :: Int)
  , "a missing or unknown name is a FormatError (sqlite-simple's checks)" ~: withMem $ \c -> do
      e <- expectFormatError (queryNamed c "SELECT :a, :b" [":a" := (1 :: Int)] :: IO [(Int, Int)])
      fmtMessage e @?= "SQL query contains 2 params, but 1 arguments given"
      e2 <- expectFormatError (queryNamed c "SELECT :foo" [":foox" := (1 :: Int)] :: IO [Only Int])
      fmtMessage e2 @?= "Unknown named parameter ':foox'"
      fmtParams e2 @?= ["(\":foox\",SQLInteger 1)"]
      -- a name matches its exact spelling only
      e3 <- expectFormatError (queryNamed c "SELECT @a" [":a" := (1 :: Int)] :: IO [Only Int])
      fmtMessage e3 @?= "Unknown named parameter ':a'"
      e4 <- expectFormatError (queryNamed c "SELECT :a" ["a" := (1 :: Int)] :: IO [Only Int])
      fmtMessage e4 @?= "Unknown named parameter 'a'"
      -- positional values for named parameters are refused
      e5 <- expectFormatError (query c "SELECT :foo" (Only (1 :: Int)) :: IO [Only Int])
      fmtMessage e5 @?= "Only unnamed '?' query parameters are accepted, ':foo' given"
      e6 <- expectFormatError (execute c "SELECT :v, $1" (3 :: Int, "foo" :: String))
      fmtMessage e6 @?= "Only unnamed '?' query parameters are accepted, ':v' given"
  , "a name given twice binds every use; the last value counts" ~: withMem $ \c -> do
      rs2 <- queryNamed c "SELECT :a + :a, @b" [":a" := (5 :: Int), "@b" := (7 :: Int)]
      rs2 @?= [(10 :: Int, 7 :: Int)]
      withStatement c "SELECT $v || '!'" $ \st -> do
        bindNamed st ["$v" := ("x" :: Text)]
        nextRow st >>= (@?= Just (Only ("x!" :: Text)))
        bindNamed st ["$v" := ("y" :: Text)]
        nextRow st >>= (@?= Just (Only ("y!" :: Text)))
      -- a statement without parameters takes no names
      queryNamed c "SELECT 4" [] >>= (@?= [Only (4 :: Int)])
      executeScript c "CREATE TABLE nn(a, b)"
      executeNamed c "INSERT INTO nn VALUES (:a, $b)" [":a" := (1 :: Int), "$b" := ("bee" :: Text)]
      query_ c "SELECT a, b FROM nn" >>= (@?= [(1 :: Int, "bee" :: Text)])
  , "the parameter count alone for positional values; names only when needed" ~: withMem $ \c -> do
      -- Direct.paramCount agrees with paramNames
      Right db <- D.open ":memory:"
      forM_ [("SELECT 1", 0), ("SELECT ?", 1), ("SELECT ?, ?", 2), ("SELECT :a, @b, $c, ?5", 5), ("SELECT ?3, ?", 4)] $ \(q, n) -> do
        Right st <- D.prepare db q
        D.paramCount st >>= (@?= Right (n :: Int)) . either (Left . show) Right
        D.paramNames st >>= (@?= Right n) . either (Left . show) (Right . length)
        D.finalize st
      D.close db
      executeScript c "CREATE TABLE pc(a, b)"
      -- a wrong count gives the same FormatError through execute, execute_ and executeMany
      e <- expectFormatError (execute c "INSERT INTO pc VALUES (?, ?)" (Only (1 :: Int)))
      fmtMessage e @?= "SQL query contains 2 params, but 1 arguments given"
      e2 <- expectFormatError (executeMany c "INSERT INTO pc VALUES (?, ?)" [(1 :: Int, 2 :: Int, 3 :: Int)])
      fmtMessage e2 @?= "SQL query contains 2 params, but 3 arguments given"
      execute_ c "INSERT INTO pc VALUES (?, ?)"
      query_ c "SELECT a IS NULL, b IS NULL FROM pc" >>= (@?= [(True, True)])
      -- bytes that may start a named parameter inside a literal: still only '?' parameters
      execute c "INSERT INTO pc VALUES (?, 'a:b@c$d#e?1')" (Only (7 :: Int))
      query_ c "SELECT b FROM pc WHERE a = 7" >>= (@?= [Only ("a:b@c$d#e?1" :: Text)])
      -- a numbered parameter is refused for positional values (sqlite-simple)
      e3 <- expectFormatError (execute c "INSERT INTO pc VALUES (?1, ?2)" (1 :: Int, 2 :: Int))
      fmtMessage e3 @?= "Only unnamed '?' query parameters are accepted, '?1' given"
      -- a kept statement: the count is asked first (positional bind), the names later
      withStatement c "INSERT INTO pc VALUES (:a, @b)" $ \st -> do
        e4 <- expectFormatError (bind st (1 :: Int, 2 :: Int))
        fmtMessage e4 @?= "Only unnamed '?' query parameters are accepted, ':a' given"
        e5 <- expectFormatError (bind st (Only (1 :: Int)))
        fmtMessage e5 @?= "SQL query contains 2 params, but 1 arguments given"
        bindNamed st [":a" := (10 :: Int), "@b" := ("ten" :: Text)]
        _ <- nextRow st :: IO (Maybe [SQLData])
        reset st
        bindNamed st [":a" := (11 :: Int), "@b" := ("eleven" :: Text)]
        _ <- nextRow st :: IO (Maybe [SQLData])
        return ()
      -- and the other way round: names first, then the count (from the names)
      withStatement c "SELECT ? + ?" $ \st -> do
        bindNamed st [] `catch` \(_ :: FormatError) -> return ()
        bind st (20 :: Int, 22 :: Int)
        nextRow st >>= (@?= Just (Only (42 :: Int)))
        e6 <- expectFormatError (bind st (Only (1 :: Int)))
        fmtMessage e6 @?= "SQL query contains 2 params, but 1 arguments given"
      query_ c "SELECT a, b FROM pc WHERE a >= 10 ORDER BY a" >>= (@?= [(10 :: Int, "ten" :: Text), (11, "eleven")])
  , "Direct: paramIndex is prefix-less, exec takes names" ~: do
      Right db <- D.open ":memory:"
      Right st <- D.prepare db "SELECT :a, @b, $c, ?5"
      forM_ [("a", 1), (":a", 1), ("b", 2), ("@b", 2), (":b", 0), ("c", 3), ("$c", 3), ("?5", 5), ("zz", 0)] $ \(n, i) ->
        D.paramIndex st (D.Utf8 n) >>= (@?= Right (i :: Int)) . either (Left . show) Right
      D.finalize st
      Right _ <- either (Left . fst) Right <$> D.exec db "CREATE TABLE e(a, b, c); INSERT INTO e VALUES (?, :b, @c)"
                   [D.VInteger 1] [("b", D.VText "bee"), ("@c", D.VBlob (B.pack [0, 9]))]
      Right st2 <- D.prepare db "SELECT a, b, c FROM e"
      Right (D.FetchDone, b) <- D.fetch st2 10 maxBound
      D.batchValues b >>= (@?= [[D.VInteger 1, D.VText "bee", D.VBlob (B.pack [0, 9])]])
      D.finalize st2
      D.close db
  ]

data Boom = Boom deriving (Show)
instance Exception Boom

transactionTests :: Test
transactionTests = TestList
  [ "commit" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      withTransaction c $ executeScript c "INSERT INTO t VALUES (1)"
      count c >>= (@?= 1)
      isAutocommit c >>= (@?= True)
  , "rollback on a synchronous exception" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      r <- try (withTransaction c (executeScript c "INSERT INTO t VALUES (1)" >> throwIO Boom))
      case r of
        Left Boom -> return ()
        Right () -> assertFailure "expected Boom"
      count c >>= (@?= 0)
      isAutocommit c >>= (@?= True)
  , "rollback on an SQL error" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x UNIQUE)"
      _ <- try (withTransaction c (executeScript c "INSERT INTO t VALUES (1)" >> executeScript c "INSERT INTO t VALUES (1)"))
             :: IO (Either SQLError ())
      count c >>= (@?= 0)
  , "rollback on an asynchronous exception (timeout)" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      r <- timeout 100000 $ withTransaction c $ do
        executeScript c "INSERT INTO t VALUES (1)"
        threadDelay 10000000
      r @?= Nothing
      count c >>= (@?= 0)
      isAutocommit c >>= (@?= True)
  , "nested savepoints" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      withTransaction c $ do
        executeScript c "INSERT INTO t VALUES (1)"
        _ <- try (withSavepoint c (executeScript c "INSERT INTO t VALUES (2)" >> throwIO Boom)) :: IO (Either Boom ())
        withSavepoint c (executeScript c "INSERT INTO t VALUES (3)")
      rs <- query_ c "SELECT x FROM t ORDER BY x"
      map fromOnly rs @?= [1, 3 :: Int]
    -- The action runs under an update frame of its own ("Database.SQLBatch.Internal.Walk"):
    -- it must still run at each run of the same IO value, its result must stay lazy, and an
    -- exception after its safe calls must end it as before.
  , "the same transaction, run again, runs its action again" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      ran <- newIORef (0 :: Int)
      let tx = withTransaction c $ do
            execute c "INSERT INTO t VALUES (?)" (Only (1 :: Int))
            modifyIORef' ran (+ 1)
          sp = withSavepoint c (modifyIORef' ran (+ 10))
      replicateM_ 3 tx
      replicateM_ 2 sp
      readIORef ran >>= (@?= 23)
      count c >>= (@?= 3)
  , "the action's result is not evaluated" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      _ <- withTransaction c (executeScript c "INSERT INTO t VALUES (1)" >> return (error "lazy" :: Int))
      _ <- withSavepoint c (return (error "lazy too" :: Int))
      count c >>= (@?= 1)
      isAutocommit c >>= (@?= True)
  , "an exception after several statements rolls them all back" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      r <- try (withTransaction c $ do
             forM_ [1 .. 5 :: Int] $ \i -> execute c "INSERT INTO t VALUES (?)" (Only i)
             _ <- query_ c "SELECT count(*) FROM t" :: IO [Only Int]
             throwIO Boom)
      case r of
        Left Boom -> return ()
        Right () -> assertFailure "expected Boom"
      count c >>= (@?= 0)
      t <- timeout 100000 $ withTransaction c $ do
        forM_ [1 .. 5 :: Int] $ \i -> execute c "INSERT INTO t VALUES (?)" (Only i)
        threadDelay 10000000
      t @?= Nothing
      count c >>= (@?= 0)
      isAutocommit c >>= (@?= True)
      withTransaction c (execute c "INSERT INTO t VALUES (?)" (Only (7 :: Int)))
      count c >>= (@?= 1)
  ]
  where
    count c = do
      [Only n] <- query_ c "SELECT count(*) FROM t"
      return (n :: Int)

stateTests :: Test
stateTests = TestList
  [ "lastInsertRowId, changes, totalChanges" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(id INTEGER PRIMARY KEY, x)"
      execute c "INSERT INTO t(x) VALUES (?)" (Only ("a" :: Text))
      lastInsertRowId c >>= (@?= 1)
      executeScript c "INSERT INTO t(id, x) VALUES (41, 'b'), (42, 'c')"
      lastInsertRowId c >>= (@?= 42)
      changes c >>= (@?= 2)
      executeScript c "UPDATE t SET x = 'z'"
      changes c >>= (@?= 3)
      totalChanges c >>= (@?= 6)
  , "versions" ~: do
      v <- sqliteVersion
      assertBool v ("3." `isPrefixOf'` v)
      b <- sqlbatchVersion
      assertBool b (not (null b))
  ]
  where
    isPrefixOf' p s = take (length p) s == p

statementTests :: Test
statementTests = TestList
  [ "bind, nextRow, reset, rebind" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3), (4)"
      withStatement c "SELECT x FROM t WHERE x >= ? ORDER BY x" $ \st -> do
        columnNames st >>= (@?= ["x"])
        columnCount st >>= (@?= 1)
        bind st (Only (2 :: Int))
        r1 <- nextRow st
        r1 @?= Just (Only (2 :: Int))
        r2 <- nextRow st
        r2 @?= Just (Only (3 :: Int))
        reset st
        rs <- foldStatement st [] (\a (Only x) -> return (x : a))
        rs @?= [4, 3, 2 :: Int]
        bind st (Only (4 :: Int))
        nextRow st >>= (@?= Just (Only (4 :: Int)))
        nextRow st >>= (@?= (Nothing :: Maybe (Only Int)))
        nextRow st >>= (@?= (Nothing :: Maybe (Only Int)))
  , "reset after the last row (no call into the library) and run again" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"
      withStatement c "SELECT x FROM t WHERE x >= ? ORDER BY x" $ \st -> do
        bind st (Only (2 :: Int))
        let rows = foldStatement st [] (\a (Only x) -> return (x : a))
        rows >>= (@?= [3, 2 :: Int])
        -- without a reset the statement stays at its end
        rows >>= (@?= ([] :: [Int]))
        -- reset twice, then each way of running it again: fold, nextRow, bind
        reset st >> reset st
        rows >>= (@?= [3, 2 :: Int])
        reset st
        nextRow st >>= (@?= Just (Only (2 :: Int)))
        reset st
        rows >>= (@?= [3, 2 :: Int])
        reset st
        bind st (Only (3 :: Int))
        rows >>= (@?= [3 :: Int])
        reset st
        executeScript c "INSERT INTO t VALUES (4)"
        rows >>= (@?= [4, 3 :: Int])
      -- a statement reset after its end holds no transaction: another connection can write
      tmp <- getTemporaryDirectory
      let dbFile = tmp ++ "/sqlbatch-hs-reset-test.db"
      _ <- try (removeFile dbFile) :: IO (Either IOException ())
      withConnection dbFile $ \c1 -> do
        executeScript c1 "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
        withStatement c1 "SELECT x FROM t" $ \st -> do
          foldStatement st (0 :: Int) (\a (Only x) -> return (a + x)) >>= (@?= 1)
          reset st
          isAutocommit c1 >>= (@?= True)
          withConnection dbFile $ \c2 -> execute_ c2 "INSERT INTO t VALUES (2)"
          foldStatement st (0 :: Int) (\a (Only x) -> return (a + x)) >>= (@?= 3)
        -- and on a closed connection, a reset after the end still fails as a call would
        st <- openStatement c1 "SELECT 1"
        _ <- foldStatement st () (\_ (Only (_ :: Int)) -> return ())
        close c1
        e <- expectSQLError (reset st)
        sqlError e @?= ErrorClosed
      removeFile dbFile
  , "bindNamed" ~: withMem $ \c ->
      withStatement c "SELECT :a + :b" $ \st -> do
        bindNamed st [":a" := (1 :: Int), ":b" := (2 :: Int)]
        nextRow st >>= (@?= Just (Only (3 :: Int)))
  , "nextRow over many batches" ~: withMem $ \c ->
      withStatement c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 30000) SELECT x, 'v' || x FROM c" $ \st -> do
        let loop !acc = do
              r <- nextRow st
              case r of
                Nothing -> return acc
                Just (x :: Int, t :: Text) -> do
                  when (t /= "v" <> T.pack (show x)) $ assertFailure (show (x, t))
                  loop (acc + x)
        loop 0 >>= (@?= sum [1 .. 30000])
  , "a kept statement run many times (its fetcher reused): values and slices intact" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, b BLOB)"
      withTransaction c $ executeMany c "INSERT INTO t VALUES (?, ?, ?)"
        [(i, "name " <> T.pack (show i), B8.pack (replicate (i `mod` 50) 'x' ++ show i)) | i <- [1 .. 500 :: Int]]
      withStatement c "SELECT id, name, b FROM t WHERE id = ?" $ \st -> do
        kept <- forM [1 .. 2000 :: Int] $ \k -> do
          let key = (k * 7919) `mod` 500 + 1
          bind st (Only key)
          rs <- foldStatement st [] (\a r -> return (r : a))
          reset st
          return (key, rs)
        forM_ kept $ \(key, rs) ->
          rs @?= [(key, "name " <> T.pack (show key), B8.pack (replicate (key `mod` 50) 'x' ++ show key))]
      -- and through nextRow, alternating with folds
      withStatement c "SELECT id FROM t WHERE id >= ? ORDER BY id LIMIT 3" $ \st -> forM_ [1 .. 300 :: Int] $ \k -> do
        bind st (Only k)
        rs <- replicateM 4 (nextRow st)
        rs @?= map (Just . Only) (take 3 [k .. 500 :: Int]) ++ replicate (4 - length (take 3 [k .. 500])) Nothing
        bind st (Only (k + 1))
        rest <- foldStatement st [] (\a (Only x) -> return (x : a))
        rest @?= reverse (take 3 [k + 1 .. 500 :: Int])
  , "binding a kept statement checks the parameter count every time" ~: withMem $ \c ->
      withStatement c "SELECT ? + ?" $ \st -> do
        bind st (1 :: Int, 2 :: Int)
        nextRow st >>= (@?= Just (Only (3 :: Int)))
        r <- try (bind st (Only (1 :: Int)))
        case r of
          Left (e :: FormatError) -> fmtMessage e @?= "SQL query contains 2 params, but 1 arguments given"
          Right () -> assertFailure "a wrong count was bound"
        bind st (5 :: Int, 6 :: Int)
        nextRow st >>= (@?= Just (Only (11 :: Int)))
  , "bind and reset of a statement left in the middle of a write (RETURNING)" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE w(x)"
      withStatement c "INSERT INTO w WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < ?) SELECT v FROM c RETURNING x" $ \st -> do
        bind st (Only (3 :: Int))
        nextRow st >>= (@?= Just (Only (1 :: Int)))
        -- running: the rebind resets it (a safe call), ending its statement transaction
        bind st (Only (2 :: Int))
        rs <- foldStatement st [] (\a (Only x) -> return (x : a))
        rs @?= [2, 1 :: Int]
        bind st (Only (4 :: Int))
        nextRow st >>= (@?= Just (Only (1 :: Int)))
        reset st
        isAutocommit c >>= (@?= True)
      [Only n] <- query_ c "SELECT count(*) FROM w"
      n @?= (3 + 2 + 4 :: Int)
  , "one-row transactions with a kept INSERT (small_tx)" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE s(a INTEGER, b REAL, c TEXT)"
      withStatement c "INSERT INTO s VALUES (?, ?, ?)" $ \st -> forM_ [0 .. 999 :: Int] $ \i ->
        withTransaction c $ do
          bind st (i, fromIntegral i * 0.25 :: Double, "row-" <> T.pack (show i))
          _ <- nextRow st :: IO (Maybe [SQLData])
          reset st
      [(n, s)] <- query_ c "SELECT count(*), sum(a) + sum(length(c)) FROM s"
      (n, s) @?= (1000 :: Int, sum [0 .. 999] + sum [length ("row-" ++ show i) | i <- [0 .. 999 :: Int]])
  ]

-- | Zero-copy ByteString slices and buffer reuse.
bufferTests :: Test
bufferTests = TestList
  [ "ByteString slices kept from many batches stay intact" ~: withMem $ \c -> do
      -- Varying sizes so that batches end on the buffer, not the row count; every other
      -- column is read as Text (which does not keep the buffer).
      rs <- query_ c
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 20000) SELECT x, CAST(x || ':' || substr(replace(hex(zeroblob(x % 300)), '0', 'a'), 1, x % 300) AS BLOB), 'text ' || x FROM c"
      forM_ rs $ \(x :: Int, b :: B.ByteString, t :: Text) -> do
        let want = B8.pack (show x ++ ":" ++ replicate (x `mod` 300) 'a')
        when (b /= want) $ assertFailure ("row " ++ show x ++ ": " ++ show (B.take 40 b))
        when (t /= "text " <> T.pack (show x)) $ assertFailure ("row " ++ show x ++ ": " ++ show t)
      length rs @?= 20000
  , "slices kept from a fold while the buffer is reused" ~: withMem $ \c -> do
      kept <- fold_ c
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50000) SELECT x, CAST('value number ' || x AS BLOB) FROM c"
        [] (\acc (x :: Int, b :: B.ByteString) -> return $! if x `mod` 997 == 0 then (x, b) : acc else acc)
      forM_ kept $ \(x, b) -> b @?= B8.pack ("value number " ++ show x)
      length kept @?= 50
  , "a value larger than the buffer (BUFFER_TOO_SMALL dbPath)" ~: withMem $ \c -> do
      rs <- query_ c "SELECT 1, randomblob(10), 2, zeroblob(5000000), 'after' UNION ALL SELECT 3, x'00', 4, x'01', 'end'"
      [(a, _, b, big, t), (a2, _, b2, small, t2)] <- return (rs :: [(Int, B.ByteString, Int, B.ByteString, Text)])
      (a, b, B.length big, B.all (== 0) big, t) @?= (1, 2, 5000000, True, "after")
      (a2, b2, small, t2) @?= (3, 4, B.pack [1], "end")
  , "rows of growing sizes, and rows larger than the largest batch buffer, slices kept" ~: withMem $ \c -> do
      -- sizes from 1 KB to 3 MB, then 2.5 MB rows again and again (bigger than the 1 MiB a
      -- batch buffer grows to by itself), each BLOB a zero-copy slice kept to the end
      let sizes = [1000 * 2 ^ k | k <- [0 .. 11 :: Int]] ++ replicate 6 2500000 ++ [10, 500000, 2500000]
      executeScript c "CREATE TABLE g(i INTEGER, b BLOB, t TEXT)"
      withTransaction c $ forM_ (zip [0 :: Int ..] sizes) $ \(i, n) ->
        execute c "INSERT INTO g VALUES (?, ?, ?)"
          (i, B.cons (fromIntegral (65 + i `mod` 26)) (B.replicate (n - 1) 0), T.replicate (n `div` 3) "\233")
      kept <- fold_ c "SELECT i, b, t FROM g ORDER BY i" [] $ \acc (i :: Int, b :: B.ByteString, t :: Text) -> do
        T.length t @?= (sizes !! i) `div` 3
        T.all (== '\233') t @?= True
        return ((i, b) : acc)
      length kept @?= length sizes
      forM_ kept $ \(i, b) -> do
        B.length b @?= sizes !! i
        B.head b @?= fromIntegral (65 + i `mod` 26)
        B.all (== 0) (B.tail b) @?= True
      -- the same through query (the list's larger batches) and a kept statement
      rs <- query_ c "SELECT i, length(b), b FROM g ORDER BY i" :: IO [(Int, Int, B.ByteString)]
      [B.length b | (_, _, b) <- rs] @?= sizes
      withStatement c "SELECT b FROM g WHERE i = ?" $ \st -> forM_ [length sizes - 1, length sizes - 2 .. 0] $ \i -> do
        bind st (Only i)
        Just (Only b) <- nextRow st
        B.length b @?= sizes !! i
        reset st
  , "Text from large values" ~: withMem $ \c -> do
      [Only t] <- query_ c "SELECT replace(hex(zeroblob(300000)), '00', 'é')"
      T.length t @?= 300000
      T.all (== 'é') t @?= True
  ]

-- | The resident set size of the process, from /proc/self/statm (4 KiB pages, x86-64 Linux).
rssBytes :: IO Int
rssBytes = do
  s <- readFile "/proc/self/statm"
  case words s of
    (_ : resident : _) -> return $! read resident * 4096
    _ -> assertFailure ("cannot read /proc/self/statm: " ++ s) >> return 0

-- | Rows the RSS streaming test reads (about 5 s).
rssStreamRows :: Int
rssStreamRows = 10000000

-- | Streaming keeps memory flat: 10,000,000 rows with RSS sampled, 1,000,000 with live bytes.
streamingTests :: Test
streamingTests = TestList
  [ "fold over millions of rows keeps RSS near the batch bound" ~: withMem $ \c -> do
      let n = rssStreamRows
      -- The peak RSS of the first half (after a warm-up) against that of the second: a cost
      -- per row would show as growth between the halves, while where the GC happens to leave
      -- the heap at one sample (the old baseline, taken right after a major GC) does not.
      base <- newIORef (0 :: Int)
      peak <- newIORef (0 :: Int)
      let sample k = when (k `mod` 65536 == 0 && k >= 262144) $ do
            r <- rssBytes
            modifyIORef' (if k <= n `div` 2 then base else peak) (max r)
          q = Query (T.pack ("WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < "
                ++ show n ++ ") SELECT i, printf('row number %d', i), zeroblob(i % 32) FROM k"))
      (rows, total, bytes) <- fold_ c q (0 :: Int, 0 :: Int, 0 :: Int)
        (\(!k, !s, !tb) (x :: Int, t :: Text, b :: B.ByteString) -> do
            sample (k + 1)
            return (k + 1, s + x, tb + T.length t + B.length b))
      (rows, total) @?= (n, n * (n + 1) `div` 2)
      assertBool "read the text" (bytes > 0)
      b <- readIORef base
      p <- readIORef peak
      putStrLn ("  " ++ show rows ++ " rows; peak RSS of the first half " ++ mib b ++ ", of the second "
                ++ mib p ++ " (growth " ++ mib (p - b) ++ ")")
      assertBool ("RSS grew by " ++ show (p - b) ++ " bytes from the first half to the second") (p - b < 8 * 1024 * 1024)
  , "fold over 1,000,000 rows in bounded memory" ~: withMem $ \c -> do
      enabled <- getRTSStatsEnabled
      assertBool "run with +RTS -T (the test suite is linked with -with-rtsopts=-T)" enabled
      performMajorGC
      base <- gcdetails_live_bytes . gc <$> getRTSStats
      peak <- newIORef (0 :: Word64)
      let n = 1000000 :: Int
      (nrows, total, textBytes) <- fold_ c
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000) SELECT x, 'row number ' || x, x'0102030405' FROM c"
        (0 :: Int, 0 :: Int, 0 :: Int)
        (\(!k, !s, !tb) (x :: Int, t :: Text, b :: B.ByteString) -> do
            when (k `mod` 100000 == 99999) $ do
              performMajorGC
              live <- gcdetails_live_bytes . gc <$> getRTSStats
              modifyIORef' peak (max live)
            return (k + 1, s + x, tb + T.length t + B.length b))
      (nrows, total) @?= (n, n * (n + 1) `div` 2)
      assertBool "read the text" (textBytes > 0)
      p <- readIORef peak
      let growth = fromIntegral p - fromIntegral base :: Int
      -- The whole result would be ~100 MB as a list; a batch is a few hundred KiB.
      putStrLn ("  live bytes at start " ++ show base ++ ", highest sample while streaming "
                ++ show p ++ " (growth " ++ show growth ++ ")")
      assertBool ("live memory grew by " ++ show growth ++ " bytes while streaming") (growth < 8 * 1024 * 1024)
  , "forEach_ over 1,000,000 rows in bounded memory" ~: withMem $ \c -> do
      performMajorGC
      base <- gcdetails_live_bytes . gc <$> getRTSStats
      peak <- newIORef (0 :: Word64)
      seen <- newIORef (0 :: Int)
      forEach_ c "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000) SELECT x FROM c" $
        \(Only (x :: Int)) -> do
          modifyIORef' seen (+ 1)
          when (x `mod` 250000 == 0) $ do
            performMajorGC
            live <- gcdetails_live_bytes . gc <$> getRTSStats
            modifyIORef' peak (max live)
      readIORef seen >>= (@?= 1000000)
      p <- readIORef peak
      let growth = fromIntegral p - fromIntegral base :: Int
      putStrLn ("  live bytes at start " ++ show base ++ ", highest sample while streaming "
                ++ show p ++ " (growth " ++ show growth ++ ")")
      assertBool ("live memory grew by " ++ show growth ++ " bytes") (growth < 8 * 1024 * 1024)
  ]

mib :: Int -> String
mib x = show (fromIntegral (x * 10 `div` 1048576) / 10 :: Double) ++ " MiB"

-- | Runs a test with a watchdog: if the test has not finished after 60 s (the mechanism
-- under test failed), the watchdog interrupts the connection so that the suite ends, and
-- the test fails.
watchdog :: Connection -> IO a -> IO a
watchdog c act = do
  fired <- newIORef False
  done <- newEmptyMVar
  _ <- forkIO $ do
    r <- timeout 60000000 (readMVar done)
    when (r == Nothing) $ writeIORef fired True >> interrupt c
  a <- act `finally` putMVar done ()
  f <- readIORef fired
  when f $ assertFailure "the watchdog had to interrupt the query: the timeout did not"
  return a

asyncTests :: Test
asyncTests = TestList
  [ "timeout interrupts a running query; the connection stays usable" ~: withMem $ \c -> watchdog c $ do
      r <- timeout 200000 (query_ c endless :: IO [Only Int])
      r @?= Nothing
      [Only x] <- query_ c "SELECT 41 + 1"
      x @?= (42 :: Int)
  , "a SIGPIPE handler the program installs is put back behind ours: timeout still interrupts" ~:
      withMem $ \c -> watchdog c $ do
        _ <- installHandler sigPIPE Ignore Nothing
        -- The calls look at the handler once per tick of the coarse clock (1-10 ms).
        threadDelay 20000
        r <- timeout 200000 (query_ c endless :: IO [Only Int])
        r @?= Nothing
        [Only x] <- query_ c "SELECT 41 + 1"
        x @?= (42 :: Int)
  , "timeout from an unbound thread" ~: withMem $ \c -> watchdog c $ do
      res <- newEmptyMVar
      _ <- forkIO $ do
        r <- timeout 200000 (fold_ c endless (0 :: Int) (\a (Only x) -> return (a + x)))
        putMVar res r
      takeMVar res >>= (@?= Nothing)
      query_ c "SELECT 1" >>= (@?= [Only (1 :: Int)])
  , "timeout interrupts a long script and a long bulk write" ~: withMem $ \c -> watchdog c $ do
      r <- timeout 200000 (executeScript c "CREATE TABLE e(x); INSERT INTO e SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c)")
      r @?= Nothing
      [Only n] <- query_ c "SELECT count(*) FROM e"
      n @?= (0 :: Int)
      executeScript c "CREATE TABLE f(x)"
      r2 <- timeout 200000 (executeMany c "INSERT INTO f SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x+1 FROM c) SELECT x FROM c)" [Only (1 :: Int)])
      r2 @?= Nothing
      [Only n2] <- query_ c "SELECT count(*) FROM f"
      n2 @?= (0 :: Int)
  , "the interrupted statement is finalized: another connection can write" ~: do
      tmp <- getTemporaryDirectory
      let dbPath = tmp ++ "/sqlbatch-hs-async-test.db"
      _ <- try (removeFile dbPath) :: IO (Either IOException ())
      withConnection dbPath $ \c -> watchdog c $ do
        executeScript c "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"
        r <- timeout 200000 (fold_ c
               "SELECT a.x FROM t a CROSS JOIN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c) b WHERE b.x < 0"
               (0 :: Int) (\acc (Only v) -> return (acc + v)))
        r @?= Nothing
        -- A statement left running would hold a read lock and make this fail with SQLITE_BUSY.
        withConnection dbPath $ \c2 -> execute_ c2 "INSERT INTO t VALUES (4)"
        [Only n] <- query_ c "SELECT count(*) FROM t"
        n @?= (4 :: Int)
      removeFile dbPath
  , "killThread during a fold callback finalizes the statement" ~: withMem $ \c -> watchdog c $ do
      started <- newEmptyMVar
      t <- forkIO $ forEach_ c "SELECT 1 UNION ALL SELECT 2" $ \(Only (_ :: Int)) -> do
        _ <- tryPutMVar started ()
        threadDelay 10000000
      takeMVar started
      killThread t
      query_ c "SELECT 7" >>= (@?= [Only (7 :: Int)])
  , "interrupt from another thread" ~: withMem $ \c -> watchdog c $ do
      _ <- forkIO (threadDelay 100000 >> interrupt c)
      e <- expectSQLError (query_ c endless :: IO [Only Int])
      sqlError e @?= ErrorInterrupt
      query_ c "SELECT 1" >>= (@?= [Only (1 :: Int)])
  ]

threadTests :: Test
threadTests = TestList
  [ "one connection shared by several threads" ~: withMem $ \c -> do
      executeScript c "CREATE TABLE t(x)"
      executeMany c "INSERT INTO t VALUES (?)" (map Only [1 .. 20000 :: Int])
      results <- forM [1 .. 4 :: Int] $ \k -> do
        mv <- newEmptyMVar
        _ <- forkIO $ do
          r <- try $ do
            s <- fold_ c "SELECT x FROM t" 0 (\a (Only x) -> return $! a + x * k)
            execute c "INSERT INTO t VALUES (?)" (Only (-k))
            return s
          putMVar mv r
        return mv
      rs <- mapM takeMVar results
      forM_ (zip [1 ..] rs) $ \(k, r) -> case r of
        Left (e :: SomeException) -> assertFailure (show e)
        Right s -> assertBool (show (k, s)) (s `elem` [k * sum [1 .. 20000] - k * j | j <- [0 .. 10]])
      neg <- query_ c "SELECT x FROM t WHERE x < 0"
      sort (map fromOnly neg) @?= [-4, -3, -2, -1 :: Int]
  ]

directTests :: Test
directTests = TestList
  [ "the Direct layer returns errors as values" ~: do
      Right db <- D.open ":memory:"
      Left e <- D.prepare db "SELEC 1"
      sqlError e @?= ErrorError
      Right (st, _) <- D.prepareTail db "SELECT 1, 'two', x'03', NULL, 2.5; SELECT 2"
      Right (D.FetchDone, b) <- D.fetch st 10 maxBound
      vals <- D.batchValues b
      vals @?= [[D.VInteger 1, D.VText "two", D.VBlob (B.pack [3]), D.VNull, D.VFloat 2.5]]
      D.finalize st
      Right _ <- either (Left . fst) Right <$> D.exec db "CREATE TABLE t(x); INSERT INTO t VALUES (?)" [D.VInteger 5] []
      Right st2 <- D.prepare db "INSERT INTO t VALUES (?)"
      Right wr <- either (Left . fst) Right <$> D.executeMany st2 3 [D.VInteger 1, D.VInteger 2, D.VInteger 3]
      D.writeRows wr @?= 3
      D.finalize st2
      Right n <- D.totalChanges db
      n @?= 4
      D.close db
  ]

-- | The ABI hands out NULL for every empty array (batch cells and data, columns, parameter
-- names): every reader goes by the count and never looks through the pointer.
emptyArrayTests :: Test
emptyArrayTests = TestList
  [ "Direct: an empty result has NULL cells" ~: do
      Right db <- D.open ":memory:"
      Right st <- D.prepare db "SELECT 1, 'x' WHERE 0"
      Right (D.FetchDone, b) <- D.fetch st 10 maxBound
      (D.batchRows b, D.batchCols b, D.batchCells b == nullPtr, D.batchData b == nullPtr)
        @?= (0, 2, True, True)
      D.batchValues b >>= (@?= [])
      D.finalize st
      Right st2 <- D.prepare db "SELECT 1 WHERE 0"
      r <- allocaBytes 64 $ \buf -> D.fetchInto st2 10 buf 64
      case r of
        Right (D.Fetched D.FetchDone b2) -> D.batchRows b2 @?= 0
        other -> assertFailure (show (either (Left . show) Right other))
      D.finalize st2
      D.close db
  , "Direct: a row without bytes has NULL data" ~: do
      Right db <- D.open ":memory:"
      Right st <- D.prepare db "SELECT 1, '', x'', NULL, 2.5"
      Right (D.FetchDone, b) <- D.fetch st 10 maxBound
      (D.batchRows b, D.batchDataLen b, D.batchData b == nullPtr) @?= (1, 0, True)
      D.batchValues b >>= (@?= [[D.VInteger 1, D.VText "", D.VBlob "", D.VNull, D.VFloat 2.5]])
      D.finalize st
      D.close db
  , "Direct: a statement without columns or parameters" ~: do
      Right db <- D.open ":memory:"
      Right st <- D.prepare db "CREATE TABLE t(x)"
      D.columns st >>= (@?= Right []) . either (Left . show) Right
      D.paramNames st >>= (@?= Right []) . either (Left . show) Right
      D.bind st [] >>= (@?= Right ()) . either (Left . show) Right
      Right (D.FetchDone, b) <- D.fetch st 10 maxBound
      (D.batchRows b, D.batchCols b, D.batchCells b == nullPtr) @?= (0, 0, True)
      D.finalize st
      -- an empty statement (only a comment) has neither either
      Right st2 <- D.prepare db "-- nothing"
      D.columns st2 >>= (@?= Right []) . either (Left . show) Right
      D.paramNames st2 >>= (@?= Right []) . either (Left . show) Right
      D.finalize st2
      D.close db
  , "Raw: the sqlbatch_params layout, and bytes without a base are refused" ~: do
      Right db <- D.open ":memory:"
      Right st <- D.prepare db "SELECT ?, ?"
      D.withValues [D.VText "abc", D.VInteger 7] $ \vals n -> do
        -- addresses without the flag: the library must refuse them (never read them)
        rc <- withCParams vals nullPtr n nullPtr 0 0 $ \pp -> c_sqlbatch_stmt_bind (D.statementPtr st) pp
        decodeError rc @?= ErrorInvalidArgument
        -- addresses with SQLBATCH_PARAMS_ADDRESSES, but a data base too: refused
        rc2 <- withCParams vals nullPtr n (castPtr vals) 1 paramsAddresses $ \pp ->
                 c_sqlbatch_stmt_bind (D.statementPtr st) pp
        decodeError rc2 @?= ErrorInvalidArgument
        -- unknown flags
        rc3 <- withCParams vals nullPtr n nullPtr 0 0x80 $ \pp -> c_sqlbatch_stmt_bind (D.statementPtr st) pp
        decodeError rc3 @?= ErrorInvalidArgument
        -- the count is read from the struct
        rc4 <- withCParams vals nullPtr 1 nullPtr 0 paramsAddresses $ \pp -> c_sqlbatch_stmt_bind (D.statementPtr st) pp
        decodeError rc4 @?= ErrorParamCount
        rc5 <- withCParams vals nullPtr n nullPtr 0 paramsAddresses $ \pp -> c_sqlbatch_stmt_bind (D.statementPtr st) pp
        rc5 @?= 0
      Right (D.FetchDone, b) <- D.fetch st 10 maxBound
      D.batchValues b >>= (@?= [[D.VText "abc", D.VInteger 7]])
      D.finalize st
      D.close db
  , "an empty result, rows without bytes, statements without columns" ~: withMem $ \c -> do
      rs <- query_ c "SELECT 'a', x'00' WHERE 0" :: IO [(Text, B.ByteString)]
      rs @?= []
      n <- fold_ c "SELECT 1 WHERE 0" (0 :: Int) (\a (Only x) -> return (a + x))
      n @?= 0
      rows <- query_ c "SELECT '', x'', NULL UNION ALL SELECT '', x'', NULL"
      rows @?= replicate 2 (Just ("" :: Text), Just B.empty, Nothing :: Maybe Int)
      withStatement c "CREATE TABLE t(x)" $ \st -> do
        columnNames st >>= (@?= [])
        columnCount st >>= (@?= 0)
        bind st ()
        nextRow st >>= (@?= (Nothing :: Maybe [SQLData]))
      withStatement c "SELECT x FROM t" $ \st -> do
        columnNames st >>= (@?= ["x"])
        bindNamed st []
        nextRow st >>= (@?= (Nothing :: Maybe (Only Int)))
      r <- query_ c "DELETE FROM t" :: IO [[SQLData]]
      r @?= []
      executeMany c "INSERT INTO t DEFAULT VALUES" [(), ()]
      query_ c "SELECT count(*) FROM t" >>= (@?= [Only (2 :: Int)])
  ]

-- | One line of tests/vectors/conversions.tsv (see tests/vectors/README.md): the input
-- value, its column type, and what sqlite3_column_int64 / _double / _text / _blob give
-- (@Nothing@ for a NULL pointer).
data Vector = Vector
  { vLine :: Int
  , vInput :: D.Value
  , vColumnType :: String
  , vInt64 :: Int64
  , vDouble :: Word64
  , vText :: Maybe B.ByteString
  , vBlob :: Maybe B.ByteString
  , vNote :: String
  }

-- | The vectors, from @SQLBATCH_VECTORS@ or @../../tests/vectors/conversions.tsv@ (the
-- test suite runs in bindings/haskell).
readVectors :: IO [Vector]
readVectors = do
  file <- maybe "../../tests/vectors/conversions.tsv" id <$> lookupEnv "SQLBATCH_VECTORS"
  ls <- lines . T.unpack . TE.decodeUtf8 <$> B.readFile file
  case ls of
    (header : rows) -> do
      splitTab header @?= ["kind", "input", "column_type", "int64", "double", "text", "blob", "note"]
      vs <- forM (zip [2 ..] rows) $ \(n, l) -> case splitTab l of
        [k, inp, ct, i, d, t, b, note] -> do
          input <- case k of
            "INTEGER" -> return (D.VInteger (read inp))
            "FLOAT" -> return (D.VFloat (castWord64ToDouble (hex64 inp)))
            "TEXT" -> return (D.VText (bytesOf inp))
            "BLOB" -> return (D.VBlob (bytesOf inp))
            "NULL" -> return D.VNull
            _ -> assertFailure ("line " ++ show n ++ ": kind " ++ k) >> return D.VNull
          let opt x = if x == "null" then Nothing else Just (bytesOf x)
          return (Vector n input ct (read i) (hex64 d) (opt t) (opt b) note)
        fs -> assertFailure ("line " ++ show n ++ ": " ++ show (length fs) ++ " fields") >> return undefined
      assertBool "the file has vectors of every class" (length vs > 50)
      return vs
    [] -> assertFailure (file ++ " is empty") >> return []
  where
    splitTab str = case break (== '\t') str of
      (a, []) -> [a]
      (a, _ : rest) -> a : splitTab rest
    hex64 h = case readHex h of
      [(w, "")] -> w :: Word64
      _ -> error ("not hex: " ++ h)
    bytesOf ('x' : h) = B.pack (pairs h)
    bytesOf other = error ("not bytes: " ++ other)
    pairs (a : b : rest) = fst (head (readHex [a, b])) : pairs rest
    pairs _ = []

-- | What a 'D.Value' is, with a FLOAT as its bits (so that -0.0 and NaNs compare exactly).
data Exact = EInt Int64 | EFloat Word64 | EText B.ByteString | EBlob B.ByteString | ENull
  deriving (Eq, Show)

exact :: D.Value -> Exact
exact v = case v of
  D.VInteger i -> EInt i
  D.VFloat d -> EFloat (castDoubleToWord64 d)
  D.VText b -> EText b
  D.VBlob b -> EBlob b
  D.VNull -> ENull

-- | The binding's conversions against the conversion vectors generated from SQLite.
conversionVectorTests :: Test
conversionVectorTests = TestList
  [ "sqlbatch_value_convert (raw FFI) gives SQLite's answer for every vector and class" ~: do
      vs <- readVectors
      forM_ vs $ \v -> do
        let isNull = vColumnType v == "NULL"
            want = [ ("INTEGER", 1, EInt (vInt64 v)), ("FLOAT", 2, EFloat (vDouble v))
                   , ("TEXT", 3, if isNull then ENull else EText (maybe B.empty id (vText v)))
                   , ("BLOB", 4, if isNull then ENull else EBlob (maybe B.empty id (vBlob v))) ]
        forM_ want $ \(cls, to, expected) -> do
          r <- D.convertValue (vInput v) to
          case r of
            Left e -> assertFailure ("line " ++ show (vLine v) ++ " (" ++ vNote v ++ ") to " ++ cls ++ ": " ++ show e)
            Right got -> assertEqual ("line " ++ show (vLine v) ++ " (" ++ vNote v ++ ") to " ++ cls)
                           expected (exact got)
  , "FromField Double of an INTEGER is refused (as sqlite-simple)" ~: withMem $ \c -> do
      e <- resultError (query c "SELECT ?" (Only (SQLInteger 3)) :: IO [Only Double])
      e @?= ConversionFailed "INTEGER" "Double" "expecting an SQLFloat column type"
  , "a REAL is read as itself (the vectors' double of a FLOAT input)" ~: withMem $ \c -> do
      vs <- readVectors
      forM_ [(d, v) | v <- vs, D.VFloat d <- [vInput v]] $ \(d, v) -> do
        [Only r] <- query c "SELECT ?" (Only (SQLFloat d))
        case r of
          Nothing -> vColumnType v @?= "NULL" -- a NaN is bound as NULL
          Just x -> assertEqual ("line " ++ show (vLine v) ++ " (" ++ vNote v ++ ")")
                      (vDouble v) (castDoubleToWord64 (x :: Double))
  , "ByteString of a TEXT is refused; textBytes gives its UTF-8" ~: withMem $ \c -> do
      e <- resultError (query_ c "SELECT 'abc'" :: IO [Only B.ByteString])
      e @?= ConversionFailed "TEXT" "ByteString" "expecting SQLBlob column type"
      vs <- readVectors
      let texts = [(b, v) | v <- vs, D.VText b <- [vInput v]]
      assertBool "text vectors" (length texts > 5)
      forM_ texts $ \(b, v) -> do
        [(ty, got)] <- queryWith ((,) <$> field <*> fieldWith FF.textBytes) c
                         "SELECT typeof(CAST(? AS TEXT)), CAST(? AS TEXT)" (SQLBlob b, SQLBlob b)
        ty @?= ("text" :: Text)
        let want = TE.encodeUtf8 (TE.decodeUtf8With (\_ _ -> Just '\xfffd') (maybe B.empty id (vBlob v)))
        assertEqual ("line " ++ show (vLine v) ++ " (" ++ vNote v ++ ")") want got
  ]
