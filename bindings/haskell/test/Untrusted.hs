{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of opening a file that may come from anyone ('OpenUntrusted',
-- @SQLBATCH_OPEN_UNTRUSTED@; docs/reliability.md): a damaged file or one that is not a
-- database fails the open with a clean 'SQLError', a sound one opens and reads, and the
-- defenses are in force on the connection.
module Untrusted (untrustedTests) where

import Control.Exception
import qualified Data.ByteString as B
import Data.Int
import Data.Text (Text)
import qualified Data.Text as T
import System.IO (IOMode (ReadWriteMode), SeekMode (AbsoluteSeek), hSeek, withBinaryFile)
import Test.HUnit

import Database.SQLBatch
import Kit
import Database.SQLBatch.Function (createFunction)
import qualified Database.SQLite3 as S3


-- | A fresh path in the temporary directory (removed after the action, with its journals).
withPath :: String -> (FilePath -> IO a) -> IO a
withPath name = withTempDb ("untrusted-" ++ name)

-- | A sound database: a table of 2,000 rows with an index (about 70 pages of 4 KiB).
makeDatabase :: FilePath -> IO ()
makeDatabase p = withConnection p $ \c -> do
  executeScript c "PRAGMA page_size=4096; PRAGMA journal_mode=DELETE; \
                  \CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX t_name ON t(name)"
  withTransaction c $ executeMany c "INSERT INTO t VALUES (?, ?)"
    [(i, T.replicate 100 (T.pack (show i))) | i <- [1 .. 2000 :: Int64]]

-- | Overwrites @n@ bytes of the file at an offset.
damage :: FilePath -> Integer -> B.ByteString -> IO ()
damage p off bytes = withBinaryFile p ReadWriteMode $ \h -> hSeek h AbsoluteSeek off >> B.hPut h bytes

untrustedTests :: Test
untrustedTests = TestList
  [ "a damaged b-tree page fails an untrusted open with ErrorCorrupt; a plain open does not check" ~:
      withPath "damaged" $ \p -> do
        makeDatabase p
        -- page 3 (a b-tree page of the table): its header and cell pointers overwritten
        damage p (2 * 4096) (B.replicate 64 0xff)
        e <- sqlErrorOf (openWith p [OpenUntrusted])
        sqlError e @?= ErrorCorrupt
        assertBool ("the check's finding: " ++ show e) (not (T.null (sqlErrorDetails e)))
        -- without the flag the open succeeds and the damage shows only when it is read
        c <- open p
        r <- try (query_ c "SELECT count(*), sum(length(name)) FROM t" :: IO [(Int64, Int64)])
        close c
        case r of
          Left (e2 :: SQLError) -> assertBool (show e2) (sqlError e2 `elem` [ErrorCorrupt, ErrorNotADatabase])
          Right rows -> assertBool ("the damaged table read whole: " ++ show rows) (rows /= [(2000, 2000 * 100 * 3)])
  , "direct-sqlite's open2 with SQLOpenUntrusted, and openUntrusted, refuse the damaged file too" ~:
      withPath "damaged2" $ \p -> do
        makeDatabase p
        damage p (2 * 4096) (B.replicate 64 0xff)
        r <- try (S3.open2 (T.pack p) [S3.SQLOpenReadWrite, S3.SQLOpenUntrusted] S3.SQLVFSDefault)
        case r of
          Left (e :: S3.SQLError) -> S3.sqlError e @?= S3.ErrorCorrupt
          Right db -> S3.close db >> assertFailure "open2 SQLOpenUntrusted opened a damaged file"
        e <- sqlErrorOf (openUntrusted p)
        sqlError e @?= ErrorCorrupt
        -- and a sound file opens through both
        withPath "sound2" $ \q -> do
          makeDatabase q
          db <- S3.open2 (T.pack q) [S3.SQLOpenReadWrite, S3.SQLOpenUntrusted] S3.SQLVFSDefault
          st <- S3.prepare db "SELECT count(*) FROM t"
          _ <- S3.step st
          S3.columnInt64 st 0 >>= (@?= 2000)
          S3.finalize st
          S3.close db
          c <- openUntrusted q
          [Only n] <- query_ c "SELECT count(*) FROM t" :: IO [Only Int]
          n @?= 2000
          close c
  , "a file that is not a database fails an untrusted open with ErrorNotADatabase" ~:
      withPath "notadb" $ \p -> do
        B.writeFile p (B.concat (replicate 50 "not a database at all "))
        e <- sqlErrorOf (openWith p [OpenUntrusted])
        sqlError e @?= ErrorNotADatabase
  , "a truncated database fails an untrusted open cleanly" ~:
      withPath "truncated" $ \p -> do
        makeDatabase p
        whole <- B.readFile p
        B.writeFile p (B.take (B.length whole `div` 2 + 100) whole)
        e <- sqlErrorOf (openWith p [OpenUntrusted])
        assertBool (show e) (sqlError e `elem` [ErrorCorrupt, ErrorNotADatabase])
  , "a sound file opens untrusted and reads and writes as usual" ~:
      withPath "sound" $ \p -> do
        makeDatabase p
        withConnectionFlags p $ \c -> do
          [(n, l)] <- query_ c "SELECT count(*), sum(length(name)) FROM t" :: IO [(Int64, Int64)]
          n @?= 2000
          l @?= sum [100 * fromIntegral (length (show i)) | i <- [1 .. 2000 :: Int]]
          execute c "INSERT INTO t(name) VALUES (?)" (Only ("new" :: Text))
          [Only m] <- query_ c "SELECT count(*) FROM t" :: IO [Only Int]
          m @?= 2001
  , "the defenses hold on the connection: no writable schema, the schema cannot call unsafe functions" ~:
      withPath "defended" $ \p -> do
        makeDatabase p
        withConnection p $ \c -> executeScript c "CREATE VIEW v AS SELECT side_effect(id) FROM t LIMIT 1"
        withConnectionFlags p $ \c -> do
          -- defensive mode: the schema table cannot be written, even with writable_schema
          _ <- try (executeScript c "PRAGMA writable_schema=ON") :: IO (Either SQLError ())
          e <- sqlErrorOf (executeScript c "UPDATE sqlite_schema SET sql = 'x' WHERE name = 't'")
          assertBool (show e) (sqlError e /= ErrorOK)
          -- trusted_schema off: the view may not call a function with side effects
          createFunction c "side_effect" (\(x :: Int64) -> return (x + 1) :: IO Int64)
          [Only d] <- query_ c "SELECT side_effect(41)" :: IO [Only Int64]
          d @?= 42
          e2 <- sqlErrorOf (query_ c "SELECT * FROM v" :: IO [[SQLData]])
          assertBool (show e2) ("unsafe use of side_effect" `T.isInfixOf` sqlErrorDetails e2)
        -- the same view works on a connection that trusts the file
        withConnection p $ \c -> do
          createFunction c "side_effect" (\(x :: Int64) -> return (x + 1) :: IO Int64)
          r <- query_ c "SELECT * FROM v" :: IO [Only Int64]
          r @?= [Only 2]
  ]
  where
    withConnectionFlags p = bracket (openWith p [OpenUntrusted]) close
