{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | What several test modules of the @test@ suite share.
module Kit
  ( sqlErrorOf
  , withMem
  , endless
  , xorshift
  , withTempDb
  ) where

import Control.Exception (IOException, finally, try)
import Control.Monad (void)
import Data.Bits (shiftL, shiftR, xor)
import Data.IORef
import Data.Word (Word64)
import System.Directory (getTemporaryDirectory, removeFile)
import System.Posix.Process (getProcessID)
import Test.HUnit (assertFailure)

import Database.SQLBatch

-- | The 'SQLError' the action throws (fails if it throws none).
sqlErrorOf :: IO a -> IO SQLError
sqlErrorOf act = do
  r <- try act
  case r of
    Left (e :: SQLError) -> return e
    Right _ -> assertFailure "expected an SQLError" >> undefined

-- | An action on a new in-memory database.
withMem :: (Connection -> IO a) -> IO a
withMem = withConnection ":memory:"

-- | A query that never ends on its own (one sqlite3_step that runs forever).
endless :: Query
endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

-- | The next number of a xorshift64 generator, taken into @[0, n)@.
xorshift :: IORef Word64 -> Int -> IO Int
xorshift r n = do
  x0 <- readIORef r
  let x1 = x0 `xor` (x0 `shiftL` 13)
      x2 = x1 `xor` (x1 `shiftR` 7)
      x3 = x2 `xor` (x2 `shiftL` 17)
  writeIORef r $! x3
  return $! fromIntegral (x3 `mod` fromIntegral (max 1 n))

-- | A fresh database path in the temporary directory, @sqlbatch-hs-TAG-PID.db@ (the
-- process id keeps concurrent runs apart): the file and its journals are removed before
-- the action and after it.
withTempDb :: String -> (FilePath -> IO a) -> IO a
withTempDb tag act = do
  tmp <- getTemporaryDirectory
  pid <- getProcessID
  let p = tmp ++ "/sqlbatch-hs-" ++ tag ++ "-" ++ show pid ++ ".db"
      rm f = void (try (removeFile f) :: IO (Either IOException ()))
      clean = mapM_ (rm . (p ++)) ["", "-journal", "-wal", "-shm"]
  clean
  act p `finally` clean
