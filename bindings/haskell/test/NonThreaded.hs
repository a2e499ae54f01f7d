{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | SQL functions and virtual tables whose callbacks run in GHC's non-threaded RTS (the test
-- suites use @-threaded@): a scalar function over 1,000 rows, an exception in a callback
-- becoming an SQL error that leaves the connection usable, a table-valued function over many
-- batches and a list bound as one parameter, and fetch-ahead and write-behind asked for
-- (which the library then runs synchronously). The test suite @test-nonthreaded@ (built
-- without @-threaded@); exits non-zero on a wrong answer.
module Main (main) where

import Control.Concurrent (rtsSupportsBoundThreads)
import Control.Exception (SomeException, bracket, throwIO, try)
import Control.Monad (unless)
import Data.List (isInfixOf)
import Database.SQLBatch
import qualified Database.SQLBatch.Direct as D
import qualified Database.SQLBatch.Function as F
import qualified Database.SQLBatch.VTab as V
import System.Exit (exitFailure)

check :: String -> Bool -> IO ()
check what ok = unless ok (putStrLn ("FAIL: " ++ what) >> exitFailure)

withAheadConn :: (Connection -> IO a) -> IO a
withAheadConn = bracket (openWith ":memory:" [D.OpenFetchAhead, D.OpenWriteBehind]) close

main :: IO ()
main = withConnection ":memory:" $ \c -> do
  check "the suite runs in the non-threaded RTS" (not rtsSupportsBoundThreads)
  F.createFunction c "twice" (\x -> return (2 * x :: Int) :: IO Int)
  F.createFunction c "boom" (\x -> (if x > (1 :: Int) then throwIO (userError "boom!") else return x) :: IO Int)
  executeScript c "CREATE TABLE t(x INTEGER); WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 1000) INSERT INTO t SELECT i FROM k"
  [Only s] <- query_ c "SELECT sum(twice(x)) FROM t" :: IO [Only Int]
  check ("sum(twice(x)) = " ++ show s) (s == 1001000)
  r <- try (query_ c "SELECT boom(x) FROM t" :: IO [Only Int])
  case r of
    Left e -> check ("the error names the exception: " ++ show e) ("boom!" `isInfixOf` show (e :: SomeException))
    Right _ -> check "an exception in a callback must fail the query" False
  [Only t] <- query_ c "SELECT twice(21)" :: IO [Only Int]
  check "the connection is usable afterwards" (t == 42)
  -- Fetch-ahead and write-behind are ignored here (callbacks on the library's worker thread
  -- would be calls into this RTS from a thread it did not start): the same results,
  -- synchronously, over many batches with a callback in every row.
  withAheadConn $ \a -> do
    F.createFunction a "twice" (\x -> return (2 * x :: Int) :: IO Int)
    executeScript a "CREATE TABLE t(x INTEGER)"
    executeMany a "INSERT INTO t VALUES (twice(?))" [Only i | i <- [1 .. 20000 :: Int]]
    s2 <- fold_ a "SELECT twice(x) FROM t" (0 :: Int) (\acc (Only v) -> return $! acc + v)
    check ("fold with fetch-ahead asked for: " ++ show s2) (s2 == 4 * 200010000)
    n <- withStatement a "SELECT x FROM t" $ \st -> do
      setFetchAhead st True
      foldStatement st (0 :: Int) (\acc (Only (_ :: Int)) -> return $! acc + 1)
    check "setFetchAhead is a no-op" (n == 20000)
  -- Virtual tables: a table-valued function read over many batches, an exception in its
  -- fill, and a list bound as one parameter (also on the connection that asked for
  -- fetch-ahead, where the fills then run on this thread too).
  let upto conn = V.createTableFunction conn "upto" ["i INTEGER"] ["n"] $ \args -> return $ case args of
        [SQLInteger m] -> map Only [1 .. m]
        _ -> []
  upto c
  [Only u] <- query_ c "SELECT sum(i) FROM upto(5000)" :: IO [Only Int]
  check ("sum(i) of upto(5000) = " ++ show u) (u == 12502500)
  V.createTableFunction c "broken" ["i INTEGER"] [] $ \_ -> return (map Only [1, 2 :: Int] ++ error "broken list")
  rb <- try (query_ c "SELECT sum(i) FROM broken" :: IO [Only Int])
  case rb of
    Left e -> check ("the fill's error names the exception: " ++ show e) ("broken list" `isInfixOf` show (e :: SomeException))
    Right _ -> check "an exception in a fill must fail the query" False
  [Only k] <- query c "SELECT count(*) FROM t WHERE x IN sqlbatch_rows(?)" (Only (V.InList [5, 10, 5000 :: Int])) :: IO [Only Int]
  check ("an IN list bound as one parameter: " ++ show k) (k == 2)
  withAheadConn $ \a -> do
    upto a
    s3 <- fold_ a "SELECT i FROM upto(20000)" (0 :: Int) (\acc (Only v) -> return $! acc + v)
    check ("a table function with fetch-ahead asked for: " ++ show s3) (s3 == 200010000)
  putStrLn "non-threaded RTS: SQL function and virtual table callbacks work (fetch-ahead and write-behind asked for: synchronous)"
