-- | The encryption tests alone (make test-encryption): test/Encryption.hs, linked against
-- the encrypted build of the library (build/lib-encrypted). With SQLBATCH_TEST_ENCRYPTION set
-- (the Makefile sets it), a library without encryption fails the run instead of taking the
-- default build's tests. make test runs the same tests in the test suite, against the
-- default build.
module Main (main) where

import Control.Monad (when)
import Data.List (intercalate)
import System.Exit (exitFailure)
import System.IO (BufferMode (..), hSetBuffering, stdout)
import Test.HUnit

import Database.SQLBatch (cipherVersion, sqlbatchVersion)
import Encryption (encryptionRequired, encryptionTests)

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  v <- cipherVersion
  lib <- sqlbatchVersion
  putStrLn ("sqlbatch " ++ lib ++ ", encryption: " ++ maybe "none (the default build)" show v)
  required <- encryptionRequired
  when (required && v == Nothing) $ do
    putStrLn "FAIL: SQLBATCH_TEST_ENCRYPTION is set but the library linked has no encryption"
    exitFailure
  (c, _) <- performTest start (problem "ERROR") (problem "FAIL") () encryptionTests
  putStrLn (showCounts c)
  when (errors c + failures c > 0) exitFailure
  where
    name st = intercalate " / " [l | Label l <- reverse (path st)]
    start st () = putStrLn ("test: " ++ name st)
    problem what _ msg st () = putStrLn (what ++ ": " ++ name st ++ "\n" ++ msg)
