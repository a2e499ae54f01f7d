{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Fetch-ahead and write-behind (issue 14): the same rows and errors as synchronously,
-- interruption, reset/finalize/close while a batch is stepped ahead, Haskell callbacks on
-- the worker thread, and the bulk write's equivalence and errors. QuickCheck properties
-- compare both modes over random tables, random batch bounds and random bulk loads.
module Ahead (aheadTests, aheadProperties) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.IORef
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import GHC.Clock (getMonotonicTime)
import System.Directory (getTemporaryDirectory, removeFile)
import System.Timeout (timeout)
import Test.HUnit
import qualified Test.QuickCheck as Q
import qualified Test.QuickCheck.Monadic as QM

import Database.SQLBatch
import qualified Database.SQLBatch.Direct as D
import qualified Database.SQLBatch.Function as F
import Database.SQLBatch.Internal (Job (..), connDatabase, connJob)

-- | A fresh database file, removed afterwards.
withDbFile :: String -> (FilePath -> IO a) -> IO a
withDbFile tag act = do
  tmp <- getTemporaryDirectory
  let dbPath = tmp ++ "/sqlbatch-hs-ahead-" ++ tag ++ ".db"
      rm = void (try (removeFile dbPath) :: IO (Either IOException ()))
  rm
  act dbPath `finally` rm

-- | An in-memory connection with both options.
withAhead :: (Connection -> IO a) -> IO a
withAhead = bracket (openWith ":memory:" [D.OpenFetchAhead, D.OpenWriteBehind]) close

-- | Fails the test instead of hanging: after 30 s, interrupts the connection (the
-- mechanism under test failed).
watchdog :: Connection -> IO a -> IO a
watchdog c act = do
  fired <- newIORef False
  done <- newEmptyMVar
  _ <- forkIO $ do
    r <- timeout 30000000 (readMVar done)
    when (r == Nothing) $ writeIORef fired True >> interrupt c
  a <- act `finally` putMVar done ()
  f <- readIORef fired
  when f $ assertFailure "the watchdog had to interrupt the connection"
  return a

-- | 1..n in table t(x INTEGER, s TEXT).
fillT :: Connection -> Int -> IO ()
fillT c n = do
  executeScript c "CREATE TABLE t(x INTEGER PRIMARY KEY, s TEXT)"
  withTransaction c $ executeMany c "INSERT INTO t VALUES (?, ?)"
    [(i, T.pack ("row " ++ show i)) | i <- [1 .. n :: Int]]

-- | Rows 1..5000 at once, then a step that never ends (until interrupted).
slowTail :: Query
slowTail = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) \
           \SELECT x FROM c WHERE x <= 5000 OR x % 1000000000000 = 0"

-- | 20 rows at once, then one more after some 30 million steps of the recursion (seconds):
-- the first snapshot (16 rows, and the next one stepped to) comes at once, the batch after
-- it, which the worker steps ahead, takes seconds.
slowSecondBatch :: Query
slowSecondBatch = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 30000000) \
                  \SELECT x FROM c WHERE x <= 20 OR x = 30000000"

expectSQLError :: IO a -> IO SQLError
expectSQLError act = do
  r <- try act
  case r of
    Left e -> return e
    Right _ -> assertFailure "expected an SQLError" >> undefined

aheadTests :: Test
aheadTests = TestList
  [ "fold, query, forEach and nextRow give the rows of the synchronous calls" ~: withDbFile "same" $ \p -> do
      withConnection p $ \c -> fillT c 20000
      sync <- withConnection p $ \c -> query_ c "SELECT x, s FROM t ORDER BY x" :: IO [(Int, Text)]
      length sync @?= 20000
      bracket (openWith p [D.OpenFetchAhead]) close $ \c -> do
        q <- query_ c "SELECT x, s FROM t ORDER BY x"
        q @?= sync
        f <- fold_ c "SELECT x, s FROM t ORDER BY x" [] (\acc r -> return (r : acc))
        reverse f @?= sync
        acc <- newIORef []
        forEach c "SELECT x, s FROM t WHERE x > ? ORDER BY x" (Only (0 :: Int)) $ \r -> modifyIORef' acc (r :)
        (reverse <$> readIORef acc) >>= (@?= sync)
        rs <- withStatement c "SELECT x, s FROM t ORDER BY x" $ \st ->
          let go xs = nextRow st >>= maybe (return (reverse xs)) (\r -> go (r : xs)) in go []
        rs @?= sync
  , "the job is tracked: a batch stepped ahead, then nothing once the rows end" ~: withAhead $ \c -> do
      fillT c 3000
      withStatement c "SELECT x FROM t" $ \st -> do
        Just (Only (1 :: Int)) <- nextRow st
        j <- readIORef (connJob c)
        assertBool ("after the first batch the worker steps the next: " ++ show j) (isAhead j)
        -- an unsafe getter after a settle: the job is done
        _ <- changes c
        readIORef (connJob c) >>= (@?= NoJob)
        rest <- drain st
        rest @?= [2 .. 3000]
        readIORef (connJob c) >>= (@?= NoJob)
  , "a bind sent by the fetch waits for another statement's batch stepped ahead interruptibly" ~: withAhead $ \c -> watchdog c $ do
      -- 'bind' of a number is laid out without the lock and sent by the statement's next
      -- fetch, in its locked section, by an unsafe call. The library makes every call wait
      -- for the connection's worker first: an unsafe one would wait with the capability
      -- held, and no exception could end it. Here the worker steps the next batch of the
      -- other statement (seconds of stepping for one row), and a timeout must end the fetch.
      executeScript c "CREATE TABLE kv(k INTEGER PRIMARY KEY, v INTEGER); INSERT INTO kv VALUES (1, 10)"
      withStatement c slowSecondBatch $ \a -> withStatement c "SELECT v FROM kv WHERE k = ?" $ \b -> do
        Just (Only (1 :: Int)) <- nextRow a
        readIORef (connJob c) >>= assertBool "the worker steps the next batch" . isAhead
        bind b (Only (1 :: Int))
        t0 <- getMonotonicTime
        r <- timeout 100000 (nextRow b :: IO (Maybe (Only Int)))
        t1 <- getMonotonicTime
        assertBool ("the fetch ended after " ++ show (t1 - t0) ++ " s, with " ++ show r) (t1 - t0 < 1)
      query_ c "SELECT v FROM kv WHERE k = 1" >>= (@?= [Only (10 :: Int)])
  , "setFetchAhead per statement, on a connection without the option" ~: withMem $ \c -> do
      fillT c 3000
      withStatement c "SELECT x FROM t ORDER BY x" $ \st -> do
        setFetchAhead st True
        Just (Only (1 :: Int)) <- nextRow st
        readIORef (connJob c) >>= assertBool "stepped ahead" . isAhead
        rest <- drain st
        rest @?= [2 .. 3000]
        reset st
        setFetchAhead st False
        Just (Only (1 :: Int)) <- nextRow st
        readIORef (connJob c) >>= (@?= NoJob)
  , "a statement that writes never fetches ahead" ~: withAhead $ \c -> do
      executeScript c "CREATE TABLE w(x)"
      r <- query_ c (Query ("INSERT INTO w " <> series 5000 <> " RETURNING x")) :: IO [Only Int]
      length r @?= 5000
      [Only n] <- query_ c "SELECT count(*) FROM w"
      n @?= (5000 :: Int)
  , "an error mid-result comes after its rows, as synchronously" ~: do
      let q = Query ("SELECT CASE WHEN value <= 3000 THEN value ELSE abs(-9223372036854775807 - 1) END FROM (" <> series 10000 <> ")")
          run c = do
            seen <- newIORef (0 :: Int)
            e <- expectSQLError (fold_ c q () (\() (Only (_ :: Int)) -> modifyIORef' seen (+ 1)))
            n <- readIORef seen
            return (n, sqlError e, sqlErrorDetails e)
      s <- withMem run
      a <- withAhead run
      a @?= s
      let (n, err, _) = a
      n @?= 3000
      err @?= ErrorError
  , "SQL functions run on the worker thread; a throwing one gives the SQL error after its rows" ~: withAhead $ \c -> do
      tid <- myThreadId
      onOther <- newIORef False
      F.createFunction c "twice" (\x -> do
          t <- myThreadId
          when (t /= tid) (writeIORef onOther True)
          return (2 * x :: Int) :: IO Int)
      F.createFunction c "boom" (\x -> (if x > (4000 :: Int) then throwIO (userError "boom!") else return x) :: IO Int)
      s <- fold_ c (Query ("SELECT twice(value) FROM (" <> series 20000 <> ")")) (0 :: Int) (\a (Only x) -> return $! a + x)
      s @?= 20000 * 20001
      readIORef onOther >>= assertBool "a callback ran outside the calling thread" 
      seen <- newIORef (0 :: Int)
      r <- try (fold_ c (Query ("SELECT boom(value) FROM (" <> series 20000 <> ")")) () (\() (Only (_ :: Int)) -> modifyIORef' seen (+ 1)))
      case r of
        Left (e :: SQLError) -> assertBool (show e) ("boom!" `T.isInfixOf` sqlErrorDetails e)
        Right _ -> assertFailure "the throwing function must fail the query"
      readIORef seen >>= (@?= 4000)
      query_ c "SELECT twice(21)" >>= (@?= [Only (42 :: Int)])
  , "unsafe getters and other statements inside a fold whose stepping runs Haskell callbacks" ~: withAhead $ \c -> watchdog c $ do
      F.createFunction c "inc" (\x -> return (x + 1 :: Int) :: IO Int)
      fillT c 10000
      n <- fold_ c "SELECT inc(x) FROM t" (0 :: Int) $ \a (Only (_ :: Int)) -> do
        _ <- totalChanges c
        _ <- lastInsertRowId c
        _ <- isAutocommit c
        when (a `mod` 1000 == 0) $ do
          [Only k] <- query c "SELECT inc(?)" (Only a)
          k @?= a + 1
        return $! a + 1
      n @?= 10000
  , "two statements stepped ahead alternately" ~: withAhead $ \c -> do
      fillT c 5000
      withStatement c "SELECT x FROM t ORDER BY x" $ \a -> withStatement c "SELECT x FROM t ORDER BY x DESC" $ \b -> do
        let go acc = do
              ra <- nextRow a
              rb <- nextRow b
              case (ra, rb) of
                (Just (Only x), Just (Only y)) -> go ((x, y) : acc)
                (Nothing, Nothing) -> return (reverse acc)
                _ -> assertFailure "different lengths" >> return []
        ps <- go []
        ps @?= [(x, 5001 - x) | x <- [1 .. 5000 :: Int]]
  , "timeout while waiting for a batch stepped ahead interrupts it; the rows before it came in order" ~: do
      let run opts = bracket (openWith ":memory:" opts) close $ \c -> watchdog c $ do
            seen <- newIORef []
            r <- timeout 300000 (fold_ c slowTail () (\() (Only (x :: Int)) -> modifyIORef' seen (x :)))
            r @?= Nothing
            query_ c "SELECT 41 + 1" >>= (@?= [Only (42 :: Int)])
            reverse <$> readIORef seen
      -- The batch after the first rows waits for rows that never come, in both modes (where
      -- the batches end differs: a batch stepped ahead has the bounds of the fetch before).
      forM_ [[], [D.OpenFetchAhead]] $ \opts -> do
        xs <- run opts
        assertBool (show (opts, length xs)) (not (null xs) && length xs < 5000)
        xs @?= [1 .. length xs]
  , "timeout in the fold's callback stops the stepping ahead (finalize does not wait for it)" ~: withAhead $ \c -> watchdog c $ do
      r <- timeout 300000 (fold_ c slowTail () (\() (Only (x :: Int)) -> when (x == 4990) (threadDelay 5000000)))
      r @?= Nothing
      query_ c "SELECT 7" >>= (@?= [Only (7 :: Int)])
  , "killThread during a fetch-ahead query from another thread" ~: withAhead $ \c -> watchdog c $ do
      started <- newEmptyMVar
      t <- forkIO $ forEach_ c slowTail $ \(Only (_ :: Int)) -> void (tryPutMVar started ())
      takeMVar started
      threadDelay 50000
      killThread t
      query_ c "SELECT 8" >>= (@?= [Only (8 :: Int)])
  , "interrupt from another thread during a fetch-ahead query" ~: withAhead $ \c -> watchdog c $ do
      _ <- forkIO (threadDelay 200000 >> interrupt c)
      e <- expectSQLError (fold_ c slowTail (0 :: Int) (\a (Only x) -> return $! a + x))
      sqlError e @?= ErrorInterrupt
      query_ c "SELECT 1" >>= (@?= [Only (1 :: Int)])
  , "reset while a batch is stepped ahead: the statement runs again from its first row" ~: withAhead $ \c -> do
      fillT c 5000
      withStatement c "SELECT x FROM t ORDER BY x" $ \st -> do
        Just (Only (1 :: Int)) <- nextRow st
        Just (Only (2 :: Int)) <- nextRow st
        reset st
        rs <- foldStatement st [] (\a (Only x) -> return (x : a))
        reverse rs @?= [1 .. 5000 :: Int]
        -- and again, from the middle of a later batch
        reset st
        replicateM_ 3000 (nextRow st :: IO (Maybe (Only Int)))
        reset st
        n <- foldStatement st (0 :: Int) (\a (Only (_ :: Int)) -> return (a + 1))
        n @?= 5000
  , "finalize while a batch is stepped ahead; the connection goes on" ~: withAhead $ \c -> do
      fillT c 5000
      st <- openStatement c "SELECT x FROM t"
      Just (Only (_ :: Int)) <- nextRow st
      closeStatement st
      readIORef (connJob c) >>= (@?= NoJob)
      [Only n] <- query_ c "SELECT count(*) FROM t"
      n @?= (5000 :: Int)
      -- a file database: the finalized statement holds no read lock
  , "close while a batch is stepped ahead, and while the worker is stuck in a slow step" ~: do
      c <- openWith ":memory:" [D.OpenFetchAhead]
      fillT c 5000
      st <- openStatement c "SELECT x FROM t"
      Just (Only (_ :: Int)) <- nextRow st
      close c
      e <- expectSQLError (foldStatement st () (\() (Only (_ :: Int)) -> return ()))
      sqlError e @?= ErrorClosed
      closeStatement st
      c2 <- openWith ":memory:" [D.OpenFetchAhead]
      st2 <- openStatement c2 slowTail
      -- Row 300 is in the second batch (rows 257 to 4352): its fetch left the worker stepping
      -- the third, which never fills (no row after 5000 comes).
      replicateM_ 300 (nextRow st2 :: IO (Maybe (Only Int)))
      threadDelay 100000
      readIORef (connJob c2) >>= assertBool "the worker steps the third batch" . isAhead
      done <- newEmptyMVar
      _ <- forkIO (close c2 >> putMVar done ())
      r <- timeout 10000000 (takeMVar done)
      r @?= Just ()
      closeStatement st2
  , "a file database: the statement left stepped ahead by an exception holds no lock" ~: withDbFile "lock" $ \p ->
      bracket (openWith p [D.OpenFetchAhead]) close $ \c -> watchdog c $ do
        fillT c 5000
        r <- try (fold_ c "SELECT x FROM t" () (\() (Only (x :: Int)) -> when (x == 10) (throwIO (userError "stop"))))
        case r of
          Left (_ :: IOException) -> return ()
          Right _ -> assertFailure "the fold must throw"
        withConnection p $ \c2 -> execute_ c2 "INSERT INTO t(s) VALUES ('w')"
        [Only n] <- query_ c "SELECT count(*) FROM t"
        n @?= (5001 :: Int)
  , "write-behind: the same table as the synchronous executeMany, over many chunks" ~: do
      let rows = [(i, T.replicate (i `mod` 37) "é", B.replicate (i `mod` 300) 7) | i <- [1 .. 30000 :: Int]]
          load opts = bracket (openWith ":memory:" opts) close $ \c -> do
            executeScript c "CREATE TABLE b(x INTEGER, s TEXT, y BLOB)"
            withTransaction c $ executeMany c "INSERT INTO b VALUES (?, ?, ?)" rows
            query_ c "SELECT x, s, y FROM b ORDER BY rowid" :: IO [(Int, Text, B.ByteString)]
      s <- load []
      a <- load [D.OpenWriteBehind]
      length a @?= 30000
      a @?= s
  , "write-behind: a failing row's index and the rows before it, as synchronously" ~: do
      let run opts bad = bracket (openWith ":memory:" opts) close $ \c -> do
            executeScript c "CREATE TABLE u(x INTEGER PRIMARY KEY)"
            e <- expectSQLError (executeMany c "INSERT INTO u VALUES (?)"
                   [Only (if i == bad then 1 else i) | i <- [1 .. 20000 :: Int]])
            [Only n] <- query_ c "SELECT count(*) FROM u"
            return (sqlError e, sqlErrorRowIndex e, n :: Int)
      forM_ [5, 4096, 4100, 9000, 19999] $ \bad -> do
        s <- run [] bad
        a <- run [D.OpenWriteBehind] bad
        a @?= s
        a @?= (ErrorConstraint, Just (bad - 1), bad - 1)
  , "write-behind: a row of the wrong width is a FormatError after the rows before it" ~: do
      let run opts = bracket (openWith ":memory:" opts) close $ \c -> do
            executeScript c "CREATE TABLE v(x, y)"
            r <- try (executeMany c "INSERT INTO v VALUES (?, ?)"
                   [if i == 9001 then [SQLInteger 1] else [SQLInteger (fromIntegral i), SQLNull] | i <- [1 .. 12000 :: Int]])
            case r of
              Left (_ :: FormatError) -> return ()
              Right _ -> assertFailure "expected a FormatError"
            [Only n] <- query_ c "SELECT count(*) FROM v"
            return (n :: Int)
      s <- run []
      a <- run [D.OpenWriteBehind]
      a @?= s
      a @?= 9000
  , "write-behind: a ToField that throws; a failing chunk's error comes before a later throw" ~: do
      let run opts badRow throwAt = bracket (openWith ":memory:" opts) close $ \c -> do
            executeScript c "CREATE TABLE u(x INTEGER PRIMARY KEY)"
            r <- try (evaluateRows c badRow throwAt)
            [Only n] <- query_ c "SELECT count(*) FROM u"
            return (either (\e -> Left (show (e :: SomeException))) (const (Right ())) r, n :: Int)
          evaluateRows c badRow throwAt = executeMany c "INSERT INTO u VALUES (?)"
            [Only (if i == throwAt then error "bad value" else if i == badRow then 1 else i :: Int) | i <- [1 .. 12000]]
      forM_ [(0, 5000), (100, 5000), (4500, 9000)] $ \(badRow, throwAt) -> do
        s <- run [] badRow throwAt
        a <- run [D.OpenWriteBehind] badRow throwAt
        a @?= s
  , "write-behind: SQL functions on the worker, and a throwing one" ~: withAhead $ \c -> do
      F.createFunction c "twice" (\x -> return (2 * x :: Int) :: IO Int)
      F.createFunction c "boom" (\x -> (if x == (7000 :: Int) then throwIO (userError "boom!") else return x) :: IO Int)
      executeScript c "CREATE TABLE f(x)"
      executeMany c "INSERT INTO f VALUES (twice(?))" [Only i | i <- [1 .. 10000 :: Int]]
      [Only s] <- query_ c "SELECT sum(x) FROM f"
      s @?= (10000 * 10001 :: Int)
      e <- expectSQLError (executeMany c "INSERT INTO f VALUES (boom(?))" [Only i | i <- [1 .. 10000 :: Int]])
      sqlErrorRowIndex e @?= Just 6999
      assertBool (show e) ("boom!" `T.isInfixOf` sqlErrorDetails e)
      [Only n] <- query_ c "SELECT count(*) FROM f"
      n @?= (10000 + 6999 :: Int)
  , "write-behind: timeout interrupts a long bulk load; the connection works on" ~: withAhead $ \c -> watchdog c $ do
      executeScript c "CREATE TABLE g(x, y)"
      r <- timeout 300000 (withTransaction c (executeMany c "INSERT INTO g VALUES (?, ?)" [(i, T.pack (show i)) | i <- [1 .. 50000000 :: Int]]))
      r @?= Nothing
      [Only n] <- query_ c "SELECT count(*) FROM g"
      n @?= (0 :: Int)
      executeMany c "INSERT INTO g VALUES (?, ?)" [(1 :: Int, "a" :: Text)]
      [Only m] <- query_ c "SELECT count(*) FROM g"
      m @?= (1 :: Int)
  ]
  where
    drain st = nextRow st >>= maybe (return []) (\(Only x) -> ((x :: Int) :) <$> drain st)
    series :: Int -> Text
    series n = "WITH RECURSIVE g(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM g WHERE value < "
      <> T.pack (show n) <> ") SELECT value FROM g"
    isAhead j = case j of
      AheadJob _ -> True
      _ -> False
    withMem = bracket (open ":memory:") close

-- | A random table: a few columns, each cell of any kind.
newtype Table = Table [[SQLData]]
  deriving Show

genCell :: Q.Gen SQLData
genCell = Q.frequency
  [ (3, SQLInteger <$> Q.arbitrary)
  , (2, SQLFloat <$> (Q.arbitrary `Q.suchThat` (\d -> not (isNaN d))))
  , (3, SQLText . T.pack <$> Q.frequency [(5, Q.listOf Q.arbitrary), (1, Q.vectorOf 3000 Q.arbitrary)])
  , (2, SQLBlob . B.pack <$> Q.frequency [(5, Q.listOf Q.arbitrary), (1, Q.vectorOf 5000 Q.arbitrary)])
  , (1, pure SQLNull)
  ]

instance Q.Arbitrary Table where
  arbitrary = do
    cols <- Q.choose (1, 6)
    rows <- Q.frequency [(1, Q.choose (0, 20)), (3, Q.choose (200, 3000))]
    Table <$> Q.vectorOf rows (Q.vectorOf cols genCell)
  shrink (Table rs) = [Table rs' | rs' <- Q.shrinkList (const []) rs]

-- | Writes the table (synchronously) into a fresh file database and returns its path.
writeTable :: FilePath -> Table -> IO Int
writeTable p (Table rs) = withConnection p $ \c -> do
  let cols = case rs of
        r : _ -> length r
        [] -> 1
  executeScript c "DROP TABLE IF EXISTS r"
  executeScript c (Query ("CREATE TABLE r(" <> T.intercalate ", " [T.pack ("c" ++ show i) | i <- [1 .. cols]] <> ")"))
  unless (null rs) $ withTransaction c $
    executeMany c (Query ("INSERT INTO r VALUES (" <> T.intercalate ", " (replicate cols "?") <> ")")) rs
  return cols

-- | Fetch-ahead gives the rows of synchronous fetching: through query, fold and nextRow,
-- and through the Direct layer with random bounds per fetch (which hands a stepped batch out
-- in parts, or asks for more than it holds).
propSameRows :: FilePath -> Table -> [(Q.Positive Int, Q.Positive Int)] -> Q.Property
propSameRows p t@(Table rs) bounds = QM.monadicIO $ QM.run $ do
  _ <- writeTable p t
  let q = "SELECT * FROM r ORDER BY rowid"
  sync <- withConnection p $ \c -> query_ c q :: IO [[SQLData]]
  bracket (openWith p [D.OpenFetchAhead]) close $ \c -> do
    a <- query_ c q
    f <- fold_ c q [] (\acc r -> return (r : acc))
    n <- withStatement c q $ \st ->
      let go xs = nextRow st >>= maybe (return (reverse xs)) (\r -> go (r : xs)) in go []
    dOn <- directRows c True q bounds
    dOff <- withConnection p $ \c2 -> directRows c2 False q bounds
    return $ Q.counterexample (show (length sync, length rs))
      (sync == rs && a == sync && reverse f == sync && n == sync && dOn == dOff && dOn == sync)

-- | The rows of a query read with "Database.SQLBatch.Direct"'s fetch, with the bounds
-- (max_rows, max_bytes) of the list, cycled.
directRows :: Connection -> Bool -> Query -> [(Q.Positive Int, Q.Positive Int)] -> IO [[SQLData]]
directRows c on (Query q) bounds = do
  let db = connDatabase c
      bs = cycle (if null bounds then [(1000, 65536)] else [(1 + r `mod` 700, 1 + b `mod` 100000) | (Q.Positive r, Q.Positive b) <- bounds])
  Right st <- D.prepare db (D.Utf8 (TE.encodeUtf8 q))
  Right () <- D.setFetchAhead st on
  let loop acc ((r, b) : more) = do
        res <- D.fetch st r b
        case res of
          Left e -> throwIO e
          Right (status, batch) -> do
            vals <- D.batchValues batch
            let acc' = reverse (map (map toData) vals) ++ acc
            case status of
              D.FetchDone -> return (reverse acc')
              D.FetchMore -> loop acc' more
      loop _ [] = return []
  loop [] bs `finally` D.finalize st

toData :: D.Value -> SQLData
toData v = case v of
  D.VInteger i -> SQLInteger i
  D.VFloat x -> SQLFloat x
  D.VText b -> SQLText (TE.decodeUtf8 b)
  D.VBlob b -> SQLBlob b
  D.VNull -> SQLNull

-- | Write-behind loads the same table, over chunks of any size (rows of large blobs make
-- chunks end at 1 MiB).
propWriteBehind :: Table -> Q.Property
propWriteBehind (Table rs0) = QM.monadicIO $ QM.run $ do
  let rs = concat (replicate 3 rs0) -- past one chunk of 4096 rows more often
      cols = case rs of
        r : _ -> length r
        [] -> 1
      load opts = bracket (openWith ":memory:" opts) close $ \c -> do
        executeScript c (Query ("CREATE TABLE r(" <> T.intercalate ", " [T.pack ("c" ++ show i) | i <- [1 .. cols]] <> ")"))
        unless (null rs) $ withTransaction c $
          executeMany c (Query ("INSERT INTO r VALUES (" <> T.intercalate ", " (replicate cols "?") <> ")")) rs
        query_ c "SELECT * FROM r ORDER BY rowid" :: IO [[SQLData]]
  a <- load [D.OpenWriteBehind]
  return (a == rs)

-- | The properties, run by the suite's main.
aheadProperties :: IO Bool
aheadProperties = do
  tmp <- getTemporaryDirectory
  let p = tmp ++ "/sqlbatch-hs-ahead-prop.db"
  putStrLn "property: fetch-ahead = synchronous rows (query, fold, nextRow, Direct with random bounds)"
  r1 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 40 } (propSameRows p)
  _ <- try (removeFile p) :: IO (Either IOException ())
  putStrLn "property: write-behind executeMany = the rows written"
  r2 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 30 } propWriteBehind
  return (Q.isSuccess r1 && Q.isSuccess r2)
