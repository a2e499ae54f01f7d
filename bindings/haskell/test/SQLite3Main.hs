{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of direct-sqlite's API ("Database.SQLite3", "Database.SQLite3.Direct"): behaviour,
-- errors, the cases that must neither crash nor hang, many threads on one statement and one
-- connection, and QuickCheck properties against the fold API of "Database.SQLBatch".
module Main (main) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.Int (Int64)
import Data.IORef
import Data.List (intercalate, sort)
import Data.Text (Text)
import qualified Data.Text as T
import Data.Text.Encoding.Error (UnicodeException)
import System.Exit (exitFailure)
import System.IO (BufferMode (..), hSetBuffering, stdout)
import System.Mem (performMajorGC)
import System.Timeout (timeout)
import Test.HUnit
import qualified Test.QuickCheck as Q
import qualified Test.QuickCheck.Monadic as QM

import qualified Database.SQLBatch as S
import Database.SQLite3
import qualified Database.SQLite3.Direct as Direct
import qualified Database.SQLite3.Internal as I

import SQLite3Compat (compatTests)
import SQLite3Extra (extraTests)
import SQLite3Session (sessionProperties, sessionTests)

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  (c, _) <- performTest start (problem "ERROR") (problem "FAIL") () tests
  putStrLn (showCounts c)
  ok <- properties
  when (errors c + failures c > 0 || not ok) exitFailure
  where
    name st = intercalate " / " [l | Label l <- reverse (path st)]
    start st () = putStrLn ("test: " ++ name st)
    problem what _ msg st () = putStrLn (what ++ ": " ++ name st ++ "\n" ++ msg)

withDb :: (Database -> IO a) -> IO a
withDb = bracket (open ":memory:") (\db -> try (close db) :: IO (Either SQLError ()))

-- | The SQLError an action throws.
sqlErrorOf :: IO a -> IO SQLError
sqlErrorOf act = do
  r <- try act
  case r of
    Left e -> return e
    Right _ -> assertFailure "expected an SQLError" >> undefined

-- | All rows of a statement, read with step and columns.
allRows :: Statement -> IO [[SQLData]]
allRows st = do
  r <- step st
  case r of
    Done -> return []
    Row -> (:) <$> columns st <*> allRows st

queryAll :: Database -> Text -> IO [[SQLData]]
queryAll db q = bracket (prepare db q) finalize allRows

-- | A statement that runs forever (and holds the connection while a step runs).
endless :: Text
endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

tests :: Test
tests = TestList
  [ TestLabel "extra (blob, backup, serialize, limits, hooks)" extraTests
  , TestLabel "preupdate, sessions, changesets, tracing" sessionTests
  , TestLabel "direct-sqlite's documented behaviour" compatTests
  , TestLabel "basics" $ TestList
    [ TestLabel "step/column over every type" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(a, b, c, d, e); INSERT INTO t VALUES (1, 2.5, 'x\233', x'00ff', NULL)"
        rows <- queryAll db "SELECT * FROM t"
        rows @?= [[SQLInteger 1, SQLFloat 2.5, SQLText "x\233", SQLBlob (B.pack [0, 255]), SQLNull]]
        st <- prepare db "SELECT a, b, c, d, e FROM t"
        Row <- step st
        ts <- mapM (columnType st) [0 .. 4]
        ts @?= [IntegerColumn, FloatColumn, TextColumn, BlobColumn, NullColumn]
        n <- columnCount st
        n @?= 5
        names <- mapM (columnName st) [0 .. 5]
        names @?= map Just ["a", "b", "c", "d", "e"] ++ [Nothing]
        -- out of range reads NULL, as SQLite
        columnType st 9 >>= (@?= NullColumn)
        columnInt64 st (-1) >>= (@?= 0)
        Done <- step st
        columnType st 0 >>= (@?= NullColumn)
        finalize st
    , TestLabel "many batches, in order" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE n(x INTEGER); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 70000) INSERT INTO n SELECT i FROM c"
        rows <- queryAll db "SELECT x, 'v' || x FROM n ORDER BY x"
        length rows @?= 70000
        rows @?= [[SQLInteger i, SQLText (T.pack ('v' : show i))] | i <- [1 .. 70000]]
    , TestLabel "step after Done runs the statement again" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT 1 UNION ALL SELECT 2"
        a <- allRows st
        b <- allRows st
        a @?= b
        a @?= [[SQLInteger 1], [SQLInteger 2]]
        finalize st
    , TestLabel "conversions as sqlite3_column_*" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT '12abc', 7, 1.5, NULL, x'41', 1e21"
        Row <- step st
        columnInt64 st 0 >>= (@?= 12)
        columnDouble st 1 >>= (@?= 7.0)
        columnText st 1 >>= (@?= "7")
        columnText st 2 >>= (@?= "1.5")
        columnInt64 st 2 >>= (@?= 1)
        columnBlob st 3 >>= (@?= B.empty)
        columnText st 3 >>= (@?= "")
        columnText st 4 >>= (@?= "A")
        columnText st 5 >>= (@?= "1.0e+21")
        vs <- typedColumns st [Just TextColumn, Just FloatColumn, Nothing, Just IntegerColumn]
        vs @?= [SQLText "12abc", SQLFloat 7, SQLFloat 1.5, SQLInteger 0]
        finalize st
    , TestLabel "invalid UTF-8: DecodeError, bytes through Direct" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT CAST(x'ff41' AS TEXT)"
        Row <- step st
        r <- try (columnText st 0)
        case r of
          Left (_ :: UnicodeException) -> return ()
          Right t -> assertFailure ("decoded " ++ show t)
        Direct.columnText st 0 >>= (@?= Direct.Utf8 (B.pack [255, 65]))
        finalize st
    , TestLabel "empty SQL" $ TestCase $ withDb $ \db -> do
        r <- Direct.prepare db "  -- nothing\n"
        case r of
          Right Nothing -> return ()
          _ -> assertFailure "expected Right Nothing"
        e <- try (prepare db " ")
        case e of
          Left (_ :: IOException) -> return ()
          Right _ -> assertFailure "prepare of empty SQL succeeded"
    , TestLabel "execPrint and execWithCallback" $ TestCase $ withDb $ \db -> do
        ref <- newIORef []
        execWithCallback db "SELECT 1 AS a, NULL AS b; SELECT 'x' AS c" $ \n names vals ->
          modifyIORef ref ((n, names, vals) :)
        got <- reverse <$> readIORef ref
        got @?= [(2, ["a", "b"], [Just "1", Nothing]), (1, ["c"], [Just "x"])]
    ]
  , TestLabel "bindings" $ TestList
    [ TestLabel "per index, named, counts" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT ?1, ?3, :v"
        bindParameterCount st >>= (@?= 4)
        bindParameterName st 1 >>= (@?= Just "?1")
        bindParameterName st 2 >>= (@?= Nothing)
        bindParameterName st 4 >>= (@?= Just ":v")
        Direct.bindParameterIndex st ":v" >>= (@?= Just 4)
        Direct.bindParameterIndex st "v" >>= (@?= Nothing)
        bindSQLData st 1 (SQLInteger 1)
        bindSQLData st 2 (SQLInteger 2)
        e <- sqlErrorOf (bindSQLData st 6 (SQLInteger 6))
        sqlError e @?= ErrorRange
        sqlErrorContext e @?= "bind int64"
        sqlErrorDetails e @?= "column index out of range"
        bindText st 4 "t"
        allRows st >>= (@?= [[SQLInteger 1, SQLNull, SQLText "t"]])
        named <- prepare db "SELECT :a, @b, $c"
        bindNamed named [("$c", SQLFloat 0.5), (":a", SQLNull), ("@b", SQLBlob "b")]
        allRows named >>= (@?= [[SQLNull, SQLBlob "b", SQLFloat 0.5]])
        r0 <- try (bindNamed named [("a", SQLNull), ("@b", SQLNull), ("$c", SQLNull)])
        case r0 of
          Left (_ :: IOException) -> return ()
          Right _ -> assertFailure "bindNamed with an unknown name succeeded"
        finalize named
        reset st
        clearBindings st
        allRows st >>= (@?= [[SQLNull, SQLNull, SQLNull]])
        r <- try (bind st [SQLNull])
        case r of
          Left (_ :: IOException) -> return ()
          Right _ -> assertFailure "bind with a wrong count succeeded"
        finalize st
    , TestLabel "bind on a running statement is ErrorMisuse" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT ? UNION ALL SELECT 2"
        bindInt st 1 5
        Row <- step st
        e <- sqlErrorOf (bindInt st 1 6)
        sqlError e @?= ErrorMisuse
        reset st
        bindInt st 1 7
        allRows st >>= (@?= [[SQLInteger 7], [SQLInteger 2]])
        finalize st
    , TestLabel "binds of one statement on many threads at once are all kept" $ TestCase $ withDb $ \db -> do
        -- The binds take no lock: each is recorded in its parameter's slot, and the run
        -- sends them all.
        st <- prepare db "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8"
        forM_ [1 .. 200 :: Int64] $ \r -> do
          dones <- forM [1 .. 8] $ \i -> do
            done <- newEmptyMVar
            _ <- forkIO $ (bindInt64 st (fromIntegral i) (r * 100 + i) >> yield >> bindInt64 st (fromIntegral i) (r * 1000 + i))
                            `finally` putMVar done ()
            return done
          mapM_ takeMVar dones
          allRows st >>= (@?= [[SQLInteger (r * 1000 + i) | i <- [1 .. 8]]])
          reset st
        finalize st
    , TestLabel "zeroblob" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT ?"
        bindZeroBlob st 1 3
        allRows st >>= (@?= [[SQLBlob (B.replicate 3 0)]])
        finalize st
    ]
  , TestLabel "errors" $ TestList
    [ TestLabel "prepare: syntax error" $ TestCase $ withDb $ \db -> do
        e <- sqlErrorOf (prepare db "SELEC 1")
        sqlError e @?= ErrorError
        sqlErrorDetails e @?= "near \"SELEC\": syntax error"
        sqlErrorContext e @?= "prepare \"SELEC 1\""
        show e @?= "SQLite3 returned ErrorError while attempting to perform prepare \"SELEC 1\": near \"SELEC\": syntax error"
    , TestLabel "step: constraint (primary code, as direct-sqlite)" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1)"
        st <- prepare db "INSERT INTO u VALUES (1)"
        e <- sqlErrorOf (step st)
        sqlError e @?= ErrorConstraint
        sqlErrorContext e @?= "step"
        sqlErrorDetails e @?= "UNIQUE constraint failed: u.x"
        r <- Direct.finalize st
        r @?= Left ErrorConstraint
    , TestLabel "exec error carries its message" $ TestCase $ withDb $ \db -> do
        e <- sqlErrorOf (exec db "SELECT * FROM nowhere")
        sqlError e @?= ErrorError
        sqlErrorDetails e @?= "no such table: nowhere"
        sqlErrorContext e @?= "exec \"SELECT * FROM nowhere\""
    , TestLabel "open failure" $ TestCase $ do
        e <- sqlErrorOf (open2 "/nonexistent/dir/x.db" [SQLOpenReadOnly] SQLVFSDefault)
        sqlError e @?= ErrorCan'tOpen
    ]
  , TestLabel "writes one row at a time" $ TestCase $ withDb $ \db -> do
      exec db "CREATE TABLE w(id INTEGER PRIMARY KEY, v)"
      st <- prepare db "INSERT INTO w(v) VALUES (?)"
      forM_ [1 .. 3 :: Int] $ \i -> do
        bindInt st 1 (i * 10)
        Done <- step st
        changes db >>= (@?= 1)
        lastInsertRowId db >>= (@?= fromIntegral i)
        reset st
      finalize st
      -- a trigger fires at the step of its row, not a batch ahead
      exec db "CREATE TABLE log(n); CREATE TRIGGER tr AFTER DELETE ON w BEGIN INSERT INTO log VALUES (old.id); END"
      del <- prepare db "DELETE FROM w WHERE id = 1 RETURNING id"
      Row <- step del
      queryAll db "SELECT n FROM log" >>= (@?= [[SQLInteger 1]])
      finalize del
  , TestLabel "no crash, no hang" $ TestList
    [ TestLabel "finalize twice, use after finalize" $ TestCase $ withDb $ \db -> do
        st <- prepare db "SELECT 1"
        Row <- step st
        finalize st
        finalize st
        Direct.finalize st >>= (@?= Right ())
        e <- sqlErrorOf (step st)
        sqlError e @?= ErrorMisuse
        columnType st 0 >>= (@?= NullColumn)
        columnText st 0 >>= (@?= "")
        e2 <- sqlErrorOf (bindInt st 1 1)
        sqlError e2 @?= ErrorMisuse
        Direct.reset st >>= (@?= Left ErrorMisuse)
    , TestLabel "close twice, use after close" $ TestCase $ do
        db <- open ":memory:"
        close db
        close db
        e <- sqlErrorOf (prepare db "SELECT 1")
        sqlError e @?= ErrorMisuse
        e2 <- sqlErrorOf (exec db "SELECT 1")
        sqlError e2 @?= ErrorMisuse
        interrupt db
        changes db >>= (@?= 0)
    , TestLabel "close with a live statement: ErrorBusy, connection stays usable" $ TestCase $ do
        db <- open ":memory:"
        st <- prepare db "SELECT 1"
        e <- sqlErrorOf (close db)
        sqlError e @?= ErrorBusy
        allRows st >>= (@?= [[SQLInteger 1]])
        finalize st
        close db
    , TestLabel "statements nobody finalizes are finalized by the GC" $ TestCase $ do
        db <- open ":memory:"
        forM_ [1 .. 50 :: Int] $ \_ -> do
          st <- prepare db "SELECT 1"
          _ <- step st
          return ()
        performMajorGC
        threadDelay 10000
        n <- I.liveStatements db
        n @?= 0
        close db
    , TestLabel "close while a query runs on another thread returns ErrorBusy at once" $ TestCase $ do
        db <- open ":memory:"
        st <- prepare db endless
        res <- newEmptyMVar
        _ <- forkIO (try (step st) >>= putMVar res)
        threadDelay 50000
        r <- timeout 2000000 (try (close db))
        case r of
          Just (Left e) -> sqlError e @?= ErrorBusy
          Just (Right ()) -> assertFailure "close succeeded while a statement runs"
          Nothing -> assertFailure "close hung"
        interrupt db
        s <- timeout 2000000 (takeMVar res)
        case s of
          Just (Left e) -> sqlError e @?= ErrorInterrupt
          _ -> assertFailure "the interrupted step did not end"
        finalize st
        close db
    , TestLabel "close while exec runs on another thread interrupts it" $ TestCase $ do
        db <- open ":memory:"
        res <- newEmptyMVar
        _ <- forkIO (try (exec db endless) >>= putMVar res)
        threadDelay 50000
        r <- timeout 2000000 (close db)
        r @?= Just ()
        s <- timeout 2000000 (takeMVar res)
        case s of
          Just (Left e) -> sqlError e @?= ErrorInterrupt
          _ -> assertFailure "exec did not end"
    , TestLabel "an asynchronous exception stops a running step" $ TestCase $ withDb $ \db -> do
        st <- prepare db endless
        r <- timeout 200000 (step st)
        r @?= Nothing
        reset st
        finalize st
        queryAll db "SELECT 1" >>= (@?= [[SQLInteger 1]])
    ]
  , TestLabel "threads" $ TestList
    [ TestLabel "many threads on one statement and one connection" $ TestCase $ withDb manyThreads
      -- With one capability a step claims its row with a plain increment (no other Haskell
      -- thread can run meanwhile); with two, threads run in parallel and it takes an atomic
      -- add. The count of capabilities changes here, between the two runs, as a program may.
    , TestLabel "the same with two capabilities (threads in parallel)" $ TestCase $ do
        n <- getNumCapabilities
        when (n < 2) (setNumCapabilities 2)
        withDb manyThreads
    , TestLabel "finalize and reset racing with steps on other threads" $ TestCase $ withDb $ \db -> do
        st <- prepare db "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000) SELECT i, printf('%0100d', i) FROM s"
        vs <- forM [1 .. 4 :: Int] $ \k -> do
          v <- newEmptyMVar
          _ <- forkIO $ do
            r <- try $ replicateM_ 20000 $ do
              _ <- Direct.step st
              _ <- Direct.columnInt64 st 0
              _ <- Direct.columnText st 1
              when (k == 1) (() <$ Direct.reset st)
            putMVar v (r :: Either SomeException ())
          return v
        threadDelay 20000
        finalize st
        rs <- mapM takeMVar vs
        forM_ rs $ either (assertFailure . show) return
    ]
  ]

-- | Eight threads stepping one statement to its end while two others use the connection:
-- every row goes to exactly one step, and every value read is one of the table's.
manyThreads :: Database -> IO ()
manyThreads db = do
  let n = 20000 :: Int
      nThreads = 8
  exec db "CREATE TABLE c(x INTEGER, t TEXT)"
  exec db ("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < "
           <> T.pack (show n) <> ") INSERT INTO c SELECT i, 'row ' || i FROM s")
  st <- prepare db "SELECT x, t FROM c"
  bad <- newIORef (0 :: Int)
  dones <- forM [1 .. nThreads] $ \_ -> do
    v <- newEmptyMVar
    _ <- forkIO $ do
      let loop !k = do
            r <- step st
            case r of
              Done -> return k
              Row -> do
                x <- columnInt64 st 0
                t <- columnText st 1
                -- each a value of some row, or NULL's (another thread may have moved
                -- on between the two reads, so they need not be of the same row), never
                -- garbage
                unless ((x == 0 || (x >= 1 && x <= fromIntegral n))
                          && (T.null t || T.isPrefixOf "row " t)) $
                  atomicModifyIORef' bad (\b -> (b + 1, ()))
                loop (k + 1)
      try (loop (0 :: Int)) >>= putMVar v
    return v
  -- meanwhile, the connection is used by other statements and getters
  side <- forM [1 .. 2 :: Int] $ \_ -> do
    v <- newEmptyMVar
    _ <- forkIO $ do
      r <- try $ replicateM_ 200 $ do
        rows <- queryAll db "SELECT count(*) FROM c"
        when (rows /= [[SQLInteger (fromIntegral n)]]) $ throwIO (userError (show rows))
        _ <- changes db
        _ <- lastInsertRowId db
        return ()
      putMVar v (r :: Either SomeException ())
    return v
  results <- mapM takeMVar dones
  sides <- mapM takeMVar side
  forM_ sides $ \s -> either (assertFailure . show) return s
  ks <- forM results $ either (\(e :: SomeException) -> assertFailure (show e) >> return 0) return
  -- each thread stops at its Done and every Done ends one complete run of the statement
  sum ks @?= nThreads * n
  readIORef bad >>= (@?= 0)
  finalize st

------------------------------------------------------------------------------------------
-- Properties

-- | A value of a random table (no NaN: it equals nothing).
newtype Cell = Cell SQLData
  deriving (Show)

instance Q.Arbitrary Cell where
  arbitrary = Cell <$> Q.oneof
    [ SQLInteger <$> Q.arbitrary
    , SQLFloat <$> (Q.arbitrary `Q.suchThat` (\d -> not (isNaN d)))
    , SQLText . T.pack <$> Q.listOf (Q.arbitrary `Q.suchThat` (\c -> c /= '\0' && (c < '\xD800' || c > '\xDFFF')))
    , SQLBlob . B.pack <$> Q.arbitrary
    , return SQLNull ]

toS :: SQLData -> S.SQLData
toS d = case d of
  SQLInteger i -> S.SQLInteger i
  SQLFloat x -> S.SQLFloat x
  SQLText t -> S.SQLText t
  SQLBlob b -> S.SQLBlob b
  SQLNull -> S.SQLNull

-- | A random table (up to 3 columns, up to 3000 rows, so that reads cross batches) written
-- with bind/step/reset and read back with step/column equals what was written and what the
-- fold of "Database.SQLBatch" reads from the same file.
propTable :: Q.Property
propTable = Q.forAll (Q.choose (1, 3)) $ \ncols ->
  Q.forAll (Q.choose (0, 3000) >>= \n -> Q.vectorOf n (Q.vectorOf ncols (Q.resize 40 Q.arbitrary))) $ \rows ->
  QM.monadicIO $ do
    let table = [[d | Cell d <- r] | r <- rows]
        cols = ["c" <> T.pack (show i) | i <- [1 .. ncols]]
        file = "/tmp/sqlite3-prop.db"
    (viaStep, viaFold) <- QM.run $ do
      db <- open (T.pack file)
      exec db "DROP TABLE IF EXISTS p"
      exec db ("CREATE TABLE p(" <> T.intercalate ", " cols <> ")")
      exec db "BEGIN"
      ins <- prepare db ("INSERT INTO p VALUES (" <> T.intercalate ", " (map (const "?") cols) <> ")")
      forM_ table $ \r -> bind ins r >> step ins >> reset ins
      finalize ins
      exec db "COMMIT"
      a <- queryAll db "SELECT * FROM p ORDER BY rowid"
      close db
      c <- S.open file
      b <- S.fold_ c "SELECT * FROM p ORDER BY rowid" [] (\acc (r :: [S.SQLData]) -> return (r : acc))
      S.close c
      return (a, reverse b)
    QM.assert (viaStep == table)
    QM.assert (map (map toS) viaStep == viaFold)

-- | Reading a table in an interleaved way (two statements, stepping alternately) gives
-- both the whole table.
propInterleaved :: Q.Property
propInterleaved = Q.forAll (Q.choose (0, 2000 :: Int)) $ \n -> QM.monadicIO $ do
  (a, b) <- QM.run $ withDb $ \db -> do
    exec db "CREATE TABLE s(x)"
    exec db ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < " <> T.pack (show n)
             <> ") INSERT INTO s SELECT i FROM r WHERE " <> T.pack (show n) <> " > 0")
    s1 <- prepare db "SELECT x FROM s ORDER BY x"
    s2 <- prepare db "SELECT x FROM s ORDER BY x DESC"
    let go acc1 acc2 = do
          r1 <- step s1
          v1 <- columnInt64 s1 0
          r2 <- step s2
          v2 <- columnInt64 s2 0
          let acc1' = if r1 == Row then v1 : acc1 else acc1
              acc2' = if r2 == Row then v2 : acc2 else acc2
          if r1 == Done && r2 == Done then return (reverse acc1', acc2') else go acc1' acc2'
    r <- go [] []
    finalize s1 >> finalize s2
    return r
  QM.assert (a == [1 .. fromIntegral n :: Int64])
  QM.assert (sort b == a)

properties :: IO Bool
properties = do
  putStrLn "property: random table, step/column = written = fold"
  r1 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 60 } propTable
  putStrLn "property: two statements stepped alternately"
  r2 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 30 } propInterleaved
  ok <- sessionProperties
  return (Q.isSuccess r1 && Q.isSuccess r2 && ok)
