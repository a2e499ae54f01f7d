{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of SQLite extensions ("Database.SQLBatch.Direct.Extension",
-- "Database.SQLBatch.Extension") with sqlite-vec, which the Makefile builds with
-- scripts/build-sqlite-vec.sh: build/ext/vec0.so is loaded by path, build/ext/libsqlite_vec.a
-- is linked into this test suite (its ld-options) and initialized from @sqlite3_vec_init@.
module Extensions (extensionTests) where

import Control.Exception
import Control.Monad
import qualified Data.ByteString.Char8 as B8
import Data.Int
import Data.IORef
import Data.List (isInfixOf)
import Data.Text (Text)
import qualified Data.Text as T
import Foreign.C.Types (CInt (..))  -- the wrapper marshals ExtensionInit's CInt result
import Foreign.Ptr (freeHaskellFunPtr)
import System.Directory (doesFileExist, makeAbsolute)
import Test.HUnit

import Database.SQLBatch
import Kit
import qualified Database.SQLBatch.Direct as D
import qualified Database.SQLBatch.Direct.Extension as DE
import Database.SQLBatch.Extension

-- | sqlite-vec's entry point, from the statically linked build/ext/libsqlite_vec.a.
foreign import ccall "&sqlite3_vec_init" vecInit :: ExtensionEntry

-- | An entry point written in Haskell.
foreign import ccall "wrapper" mkEntry :: ExtensionInit -> IO ExtensionEntry

-- | The shared-library build of sqlite-vec (the test runs in bindings/haskell).
vecSo :: IO FilePath
vecSo = do
  p <- makeAbsolute "../../build/ext/vec0.so"
  ok <- doesFileExist p
  unless ok $ assertFailure (p ++ " is missing: run scripts/build-sqlite-vec.sh (make test does)")
  return p

right :: Show e => Either e a -> IO a
right = either (\e -> assertFailure ("unexpected error: " ++ show e) >> undefined) return

left :: Either e a -> IO e
left = either return (\_ -> assertFailure "expected an error" >> undefined)

-- | A Direct connection to a private in-memory database, closed afterwards.
withDb :: (D.Database -> IO a) -> IO a
withDb = bracket (D.open ":memory:" >>= right) D.close

-- | The integer of a one-row, one-column query on a Direct connection.
scalarD :: D.Database -> D.Utf8 -> IO (Either D.SQLError D.Value)
scalarD db sql = do
  r <- D.prepare db sql
  case r of
    Left e -> return (Left e)
    Right st -> do
      f <- D.fetch st 2 maxBound
      v <- case f of
        Left e -> return (Left e)
        Right (_, b) -> Right . concat <$> D.batchValues b
      D.finalize st
      return $ case v of
        Left e -> Left e
        Right [x] -> Right x
        Right xs -> error ("expected one value, got " ++ show xs)

-- | The vector queries of the preamble (tests/extensions.rs) on a connection with sqlite-vec.
vectorQueries :: Connection -> IO ()
vectorQueries c = do
  [Only ver] <- query_ c "SELECT vec_version()" :: IO [Only Text]
  assertBool ("vec_version " ++ show ver) ("v" `T.isPrefixOf` ver)
  [Only d] <- query_ c "SELECT vec_distance_l2('[1, 2]', '[4, 6]')"
  assertEqual "vec_distance_l2" (5.0 :: Double) d
  executeScript c "CREATE VIRTUAL TABLE v USING vec0(e float[2]); \
                  \INSERT INTO v(rowid, e) VALUES (1, '[0, 0]'), (2, '[1, 1]'), (3, '[5, 5]')"
  r <- query_ c "SELECT rowid FROM v WHERE e MATCH '[4, 4]' ORDER BY distance LIMIT 1"
  assertEqual "nearest neighbour" [Only (3 :: Int64)] r

-- | Whether a connection has sqlite-vec's functions.
hasVec :: D.Database -> IO Bool
hasVec db = either (const False) (const True) <$> scalarD db "SELECT vec_version()"


extensionTests :: Test
extensionTests = TestList
  [ TestLabel "load by path: refused until enabled, works after" $ TestCase $ do
      so <- vecSo
      withDb $ \db -> do
        e <- DE.loadExtension db (D.Utf8 (B8.pack so)) Nothing >>= left
        assertEqual "error" ErrorError (sqlError e)
        assertBool ("SQLite's message: " ++ show e) ("not authorized" `T.isInfixOf` sqlErrorDetails e)
        assertEqual "context" "load_extension" (sqlErrorContext e)
        hasVec db >>= assertBool "no vec functions after a refused load" . not
        DE.enableLoadExtension db True >>= right
        DE.loadExtension db (D.Utf8 (B8.pack so)) Nothing >>= right
        v <- scalarD db "SELECT vec_distance_l2('[1, 2]', '[4, 6]')" >>= right
        assertEqual "vec_distance_l2" (D.VFloat 5) v
      -- Enabled, then disabled again: refused.
      withDb $ \db -> do
        DE.enableLoadExtension db True >>= right
        DE.enableLoadExtension db False >>= right
        e <- DE.loadExtension db (D.Utf8 (B8.pack so)) (Just "sqlite3_vec_init") >>= left
        assertBool (show e) ("not authorized" `T.isInfixOf` sqlErrorDetails e)

  , TestLabel "load by path: the entry point by name" $ TestCase $ do
      so <- vecSo
      withDb $ \db -> do
        DE.enableLoadExtension db True >>= right
        DE.loadExtension db (D.Utf8 (B8.pack so)) (Just "sqlite3_vec_init") >>= right
        hasVec db >>= assertBool "vec functions"

  , TestLabel "load by path: missing file, missing entry point, NUL byte" $ TestCase $ do
      so <- vecSo
      withDb $ \db -> do
        DE.enableLoadExtension db True >>= right
        let missing = "/nonexistent/dir/no_such_ext.so"
        e1 <- DE.loadExtension db (D.Utf8 missing) Nothing >>= left
        assertEqual "missing file: code" ErrorError (sqlError e1)
        -- dlopen's message, passed on by SQLite, names the file.
        assertBool ("missing file: " ++ show e1)
          ("no_such_ext" `T.isInfixOf` sqlErrorDetails e1)
        e2 <- DE.loadExtension db (D.Utf8 (B8.pack so)) (Just "no_such_entry_point") >>= left
        assertEqual "missing entry point: code" ErrorError (sqlError e2)
        assertBool ("missing entry point: " ++ show e2)
          ("no_such_entry_point" `T.isInfixOf` sqlErrorDetails e2)
        e3 <- DE.loadExtension db (D.Utf8 (B8.pack (so ++ "\0x"))) Nothing >>= left
        assertEqual "NUL byte" ErrorInvalidArgument (sqlError e3)
        hasVec db >>= assertBool "no vec functions after failed loads" . not
        -- The connection is still usable, and a good load still works.
        DE.loadExtension db (D.Utf8 (B8.pack so)) Nothing >>= right
        hasVec db >>= assertBool "vec functions"

  , TestLabel "statically linked: initExtension and the vector queries" $ TestCase $ do
      withDb $ \db -> do
        hasVec db >>= assertBool "no vec functions before" . not
        DE.initExtension db vecInit >>= right
        hasVec db >>= assertBool "vec functions after initExtension"
      withConnection ":memory:" $ \c -> do
        initExtension c vecInit
        vectorQueries c

  , TestLabel "statically linked: an entry point's failure is the error" $ TestCase $ do
      calls <- newIORef (0 :: Int)
      failing <- mkEntry $ \_ _ _ -> modifyIORef' calls (+ 1) >> return 21  -- SQLITE_MISUSE
      withDb $ \db -> do
        e <- DE.initExtension db failing >>= left
        assertEqual "code" 21 (sqlErrorCode e)
        assertEqual "error" ErrorMisuse (sqlError e)
        assertEqual "context" "init_extension" (sqlErrorContext e)
      readIORef calls >>= assertEqual "calls" 1
      freeHaskellFunPtr failing

  , TestLabel "auto extension: every new connection, until cancelled" $ TestCase $ do
      calls <- newIORef (0 :: Int)
      counting <- mkEntry $ \_ _ _ -> modifyIORef' calls (+ 1) >> return 0
      withDb $ \before -> do
        autoExtension vecInit
        autoExtension counting
        DE.autoExtension vecInit >>= right   -- twice: a no-op
        withDb $ \db -> hasVec db >>= assertBool "vec functions on a new connection"
        withConnection ":memory:" vectorQueries
        hasVec before >>= assertBool "a connection opened before is unchanged" . not
        readIORef calls >>= assertEqual "entry point calls, one per new connection" 2
        cancelAutoExtension vecInit >>= assertBool "cancel: was registered"
        cancelAutoExtension counting >>= assertBool "cancel: was registered"
        cancelAutoExtension vecInit >>= assertBool "cancel again: not registered" . not
        withDb $ \db -> hasVec db >>= assertBool "no vec functions once cancelled" . not
        readIORef calls >>= assertEqual "no call once cancelled" 2
      freeHaskellFunPtr counting

  , TestLabel "auto extension: a failing entry point makes open fail" $ TestCase $ do
      failing <- mkEntry $ \_ _ _ -> return 1
      autoExtension failing
      r <- try (withConnection ":memory:" (const (return ())))
      _ <- cancelAutoExtension failing
      case r of
        Left (e :: SQLError) -> assertEqual "code" 1 (sqlErrorCode e)
        Right () -> assertFailure "open succeeded"
      withConnection ":memory:" (const (return ()))   -- and opens again once cancelled
      freeHaskellFunPtr failing

  , TestLabel "Connection: load by path throws until enabled" $ TestCase $ do
      so <- T.pack <$> vecSo
      withConnection ":memory:" $ \c -> do
        e <- sqlErrorOf (loadExtension c so Nothing)
        assertBool (show e) ("not authorized" `T.isInfixOf` sqlErrorDetails e)
        assertEqual "context" "loadExtension" (sqlErrorContext e)
        enableLoadExtension c True
        e2 <- sqlErrorOf (loadExtension c so (Just "no_such_entry_point"))
        assertBool (show e2) ("no_such_entry_point" `isInfixOf` show (sqlErrorDetails e2))
        loadExtension c so Nothing
        vectorQueries c
      c <- open ":memory:"
      close c
      e <- sqlErrorOf (initExtension c vecInit)
      assertEqual "closed connection" ErrorClosed (sqlError e)
  ]
