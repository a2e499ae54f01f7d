{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Programs that mix sqlite-simple's API and direct-sqlite's on one connection and one
-- statement, through 'connectionHandle' and 'unStatement', as sqlite-simple's users do
-- (sqlite-simple's own test/DirectSqlite.hs among them): one connection, one statement,
-- one 'SQLData', one cursor.
module Mixing (mixingTests) where

import Control.Exception (bracket, catch, throwIO, try)
import Data.IORef (newIORef)
import qualified Data.Text as T
import Test.HUnit

import Database.SQLite.Simple
import qualified Database.SQLBatch as B
import qualified Database.SQLite3 as DS
import qualified Database.SQLite3.Direct as DSD

withC :: (Connection -> IO a) -> IO a
withC = withConnection ":memory:"

mixingTests :: Test
mixingTests = TestList
  [ "sqlite-simple test/DirectSqlite.hs: direct-sqlite on connectionHandle, sqlite-simple on a Connection made of a Database" ~: withC $ \conn -> do
      let dsConn = connectionHandle conn
      bracket (DS.prepare dsConn "SELECT 1+1") DS.finalize $ \stmt -> do
        DS.Row <- DS.step stmt
        res <- DS.column stmt 0
        -- One SQLData: direct-sqlite's column compares with sqlite-simple's constructor.
        assertEqual "1+1" (SQLInteger 2) res
      counter <- newIORef 0
      [Only (res :: Int)] <- query_ (Connection dsConn counter) "SELECT 1+2"
      assertEqual "1+2" 3 res
  , "a connection opened by direct-sqlite used by sqlite-simple, and closed by either" ~: do
      db <- DS.open ":memory:"
      counter <- newIORef 0
      let conn = Connection db counter
      execute_ conn "CREATE TABLE t (x INT)"
      DS.exec db "INSERT INTO t VALUES (1), (2)"
      executeMany conn "INSERT INTO t VALUES (?)" [Only (3 :: Int), Only 4]
      n <- DS.changes db
      n @?= 1
      xs <- query_ conn "SELECT x FROM t ORDER BY x" :: IO [Only Int]
      xs @?= map Only [1 .. 4]
      DS.close db
      close conn
  , "metadata of a statement through unStatement" ~: withC $ \conn -> do
      execute_ conn "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"
      withStatement conn "SELECT id, name FROM t WHERE id > :min" $ \stmt -> do
        n <- DS.columnCount (unStatement stmt)
        n @?= 2
        DS.columnName (unStatement stmt) 1 >>= (@?= Just "name")
        DS.bindParameterCount (unStatement stmt) >>= (@?= 1)
        DS.bindParameterName (unStatement stmt) 1 >>= (@?= Just ":min")
        columnCount stmt >>= (@?= 2)
        DSD.statementSql (unStatement stmt) >>= (@?= Just "SELECT id, name FROM t WHERE id > :min")
  , "one cursor: nextRow, direct-sqlite's step and column, and a fold go on from each other" ~: withC $ \conn -> do
      execute_ conn "CREATE TABLE t (x INT)"
      executeMany conn "INSERT INTO t VALUES (?)" (map Only [1 .. 10 :: Int])
      withStatement conn "SELECT x FROM t ORDER BY x" $ \stmt -> do
        let s = unStatement stmt
        Just (Only (a :: Int)) <- nextRow stmt
        a @?= 1
        -- The row nextRow read is direct-sqlite's current row.
        DS.column s 0 >>= (@?= SQLInteger 1)
        DS.Row <- DS.step s
        DS.columnInt64 s 0 >>= (@?= 2)
        Just (Only (b :: Int)) <- nextRow stmt
        b @?= 3
        Just (Only (c :: Int)) <- nextRow stmt
        c @?= 4
        rest <- B.foldStatement stmt [] (\acc (Only x) -> return (x : acc))
        reverse rest @?= [5 .. 10 :: Int]
        -- The fold read the end; a step after the end runs the statement again (SQLite's
        -- automatic reset, as direct-sqlite's step does).
        DS.step s >>= (@?= DS.Row)
        DS.columnInt64 s 0 >>= (@?= 1)
  , "direct-sqlite binds, sqlite-simple reads; sqlite-simple binds, direct-sqlite reads" ~: withC $ \conn -> do
      execute_ conn "CREATE TABLE t (x INT, y TEXT)"
      executeMany conn "INSERT INTO t VALUES (?, ?)" [(1 :: Int, "a" :: T.Text), (2, "b"), (3, "c")]
      withStatement conn "SELECT y FROM t WHERE x = ?" $ \stmt -> do
        DS.bindInt64 (unStatement stmt) 1 2
        nextRow stmt >>= (@?= Just (Only ("b" :: T.Text)))
        reset stmt
        bind stmt (Only (3 :: Int))
        DS.Row <- DS.step (unStatement stmt)
        DS.columnText (unStatement stmt) 0 >>= (@?= "c")
        -- A per-parameter bind after sqlite-simple's bind keeps the others (here: none).
        DS.reset (unStatement stmt)
        DS.bindSQLData (unStatement stmt) 1 (SQLInteger 1)
        nextRow stmt >>= (@?= Just (Only ("a" :: T.Text)))
  , "a per-parameter bind after sqlite-simple's bind keeps its other values, sent or not" ~: withC $ \conn -> do
      execute_ conn "CREATE TABLE t (a INT, b TEXT, c REAL)"
      let long = T.replicate 100 "x"
      withStatement conn "INSERT INTO t VALUES (?, ?, ?)" $ \stmt -> do
        let s = unStatement stmt
            run = do
              DS.Done <- DS.step s
              DS.reset s
        -- Short values: the bind waits for the run; one value replaced before it.
        bind stmt (1 :: Int, "one" :: T.Text, 1.5 :: Double)
        DS.bindInt64 s 1 10
        run
        -- Those values sent by the run, then one replaced.
        DS.bindText s 2 "ten"
        run
        -- A long text: bound at once; then one value replaced.
        bind stmt (2 :: Int, long, 2.5 :: Double)
        DS.bindDouble s 3 3.5
        run
        -- Cleared after sqlite-simple's bind, not yet sent: every value NULL.
        bind stmt (3 :: Int, "three" :: T.Text, 3.0 :: Double)
        DS.clearBindings s
        run
        -- sqlite-simple's bind after per-parameter binds replaces them all.
        DS.bindInt64 s 1 40
        DS.bindText s 2 "forty"
        bind stmt (4 :: Int, "four" :: T.Text, 4.5 :: Double)
        run
      rows <- query_ conn "SELECT a, b, c FROM t ORDER BY rowid"
      rows @?= [ (Just 10, Just "one", Just 1.5), (Just 10, Just "ten", Just 1.5)
               , (Just (2 :: Int), Just long, Just (3.5 :: Double)), (Nothing, Nothing, Nothing)
               , (Just 4, Just "four", Just 4.5) ]
  , "one lock, one error: a direct-sqlite statement and a sqlite-simple query interleave" ~: withC $ \conn -> do
      execute_ conn "CREATE TABLE t (x INT UNIQUE)"
      executeMany conn "INSERT INTO t VALUES (?)" (map Only [1 .. 100 :: Int])
      st <- DS.prepare (connectionHandle conn) "SELECT x FROM t ORDER BY x"
      DS.Row <- DS.step st
      [Only (k :: Int)] <- query_ conn "SELECT count(*) FROM t"
      k @?= 100
      DS.Row <- DS.step st
      DS.columnInt64 st 0 >>= (@?= 2)
      DS.finalize st
      r <- try (DS.exec (connectionHandle conn) "INSERT INTO t VALUES (1)")
      either (Left . DS.sqlError) Right r @?= Left DS.ErrorConstraint
  , "a schema change: direct-sqlite's columnCount and columns follow SQLite's new statement" ~: withC $ \conn -> do
      let db = connectionHandle conn
      DS.exec db "CREATE TABLE foo (a INT); INSERT INTO foo VALUES (1)"
      st <- DS.prepare db "SELECT * FROM foo"
      DS.columnCount st >>= (@?= 1)
      DS.exec db "ALTER TABLE foo ADD COLUMN b INT"
      DS.Row <- DS.step st
      DS.columnCount st >>= (@?= 2)
      DS.columns st >>= (@?= [SQLInteger 1, SQLNull])
      DS.columnName st 1 >>= (@?= Just "b")
      DS.step st >>= (@?= DS.Done)
      DS.columnCount st >>= (@?= 2)
      DS.finalize st
  , "one exception: either SQLError type catches either API's failures" ~: withC $ \conn -> do
      execute_ conn "CREATE TABLE u (x INT UNIQUE)"
      execute_ conn "INSERT INTO u VALUES (1)"
      -- Database.SQLBatch's richer SQLError catches direct-sqlite's failure ...
      r1 <- try (DS.exec (connectionHandle conn) "INSERT INTO u VALUES (1)")
      case r1 of
        Left (e :: B.SQLError) -> do
          (B.sqlError e, B.sqlErrorCode e) @?= (DS.ErrorConstraint, 19)
          B.sqlErrorDetails e @?= "UNIQUE constraint failed: u.x"
        Right () -> assertFailure "expected a failure"
      -- ... and direct-sqlite's SQLError catches Database.SQLBatch's.
      r2 <- try (B.execute_ conn "INSERT INTO u VALUES (1)")
      case r2 of
        Left (e :: DS.SQLError) -> DS.sqlError e @?= DS.ErrorConstraint
        Right () -> assertFailure "expected a failure"
      -- A rethrown exception stays catchable as either.
      r3 <- try (B.execute_ conn "INSERT INTO u VALUES (1)" `catchDS` throwIO)
      case r3 of
        Left (e :: B.SQLError) -> B.sqlError e @?= DS.ErrorConstraint
        Right () -> assertFailure "expected a failure"
  ]
  where
    catchDS :: IO a -> (DS.SQLError -> IO a) -> IO a
    catchDS = catch
