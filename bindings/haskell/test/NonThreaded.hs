{-# LANGUAGE OverloadedStrings #-}
-- | SQL functions whose callbacks run in GHC's non-threaded RTS (the test suites use
-- @-threaded@): a scalar function over 1,000 rows, an exception in a callback becoming an
-- SQL error that leaves the connection usable, and a batched aggregate. Built and run by
-- @make test@ without @-threaded@; exits non-zero on a wrong answer.
module Main (main) where

import Control.Exception (SomeException, throwIO, try)
import Control.Monad (unless)
import Data.List (isInfixOf)
import Database.SQLBatch
import qualified Database.SQLBatch.Function as F
import System.Exit (exitFailure)

check :: String -> Bool -> IO ()
check what ok = unless ok (putStrLn ("FAIL: " ++ what) >> exitFailure)

main :: IO ()
main = withConnection ":memory:" $ \c -> do
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
  putStrLn "non-threaded RTS: SQL function callbacks work"
