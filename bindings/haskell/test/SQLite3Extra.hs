{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of the rest of SQLite's surface in direct-sqlite's API ("Database.SQLite3",
-- "Database.SQLite3.Direct"): blob I/O, backup, serialization, limits and switches, hooks
-- and the change feed; closing every handle in any order; exceptions in hooks.
module SQLite3Extra (extraTests) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.Int (Int64)
import Data.IORef
import Data.List (isInfixOf)
import Data.Text (Text)
import qualified Data.Text as T
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Ptr (castPtr)
import System.Directory (getTemporaryDirectory, removeFile)
import System.IO (hClose, openTempFile)
import System.Mem (performMajorGC)
import System.Timeout (timeout)
import Test.HUnit
import qualified Test.QuickCheck as Q

import qualified Database.SQLBatch.Direct as SD
import qualified Database.SQLBatch.Direct.Function as DF
import Database.SQLite3
import qualified Database.SQLite3.Direct as Direct
import qualified Database.SQLite3.Internal as I
import qualified Database.SQLite3.Internal.Extra as X

withDb :: (Database -> IO a) -> IO a
withDb = bracket (open ":memory:") (\db -> try (close db) :: IO (Either SQLError ()))

-- | A fresh file name in the temporary directory (removed afterwards, with its -wal/-shm).
withTempPath :: (Text -> IO a) -> IO a
withTempPath k = do
  dir <- getTemporaryDirectory
  (p, h) <- openTempFile dir "sqlbatch-hs-extra.db"
  hClose h
  removeFile p
  k (T.pack p) `finally` mapM_ (\s -> try (removeFile (p ++ s)) :: IO (Either IOException ()))
                                ["", "-wal", "-shm", "-journal"]

-- | The 'Error' of the SQLError an action throws.
errorOf :: IO a -> IO Error
errorOf act = do
  r <- try act
  case r of
    Left e -> return (sqlError e)
    Right _ -> assertFailure "expected an SQLError" >> return ErrorOK

queryInts :: Database -> Text -> IO [Int64]
queryInts db q = bracket (prepare db q) finalize go
  where
    go st = do
      r <- step st
      case r of
        Done -> return []
        Row -> (:) <$> columnInt64 st 0 <*> go st

-- | Bytes 0, 1, ..., 255, 0, 1, ... of the given length, shifted by @k@.
pattern' :: Int -> Int -> B.ByteString
pattern' k n = B.pack [fromIntegral (i + k) | i <- [0 .. n - 1]]

-- | A table t(b) with rows 1..n holding @pattern' i size@.
blobTable :: Database -> Int -> Int -> IO ()
blobTable db n size = do
  exec db "CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)"
  st <- prepare db "INSERT INTO t(id, b) VALUES (?, ?)"
  forM_ [1 .. n] $ \i -> do
    bindInt st 1 i
    bindBlob st 2 (pattern' i size)
    Done <- step st
    reset st
  finalize st

noHang :: String -> IO a -> IO a
noHang what act = do
  r <- timeout 20000000 act
  maybe (assertFailure (what ++ ": hung") >> undefined) return r

extraTests :: Test
extraTests = TestList
  [ TestLabel "blob" $ TestList
    [ TestLabel "write, read, ranges, readBuf" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(b BLOB); INSERT INTO t VALUES (zeroblob(100000))"
        withBlob db "main" "t" "b" 1 True $ \b -> do
          blobBytes b >>= (@?= 100000)
          blobWrite b (pattern' 0 100000) 0
          blobRead b 100000 0 >>= (@?= pattern' 0 100000)
          blobRead b 1000 5000 >>= (@?= B.take 1000 (B.drop 5000 (pattern' 0 100000)))
          blobRead b 0 100000 >>= (@?= B.empty)
          blobWrite b "abc" 99997
          blobRead b 3 99997 >>= (@?= "abc")
          allocaBytes 16 $ \p -> do
            blobReadBuf b p 16 16
            B.packCStringLen (castPtr p, 16) >>= (@?= B.take 16 (B.drop 16 (pattern' 0 100000)))
          -- Ranges outside the value: SQLite's SQLITE_ERROR, nothing read or written.
          errorOf (blobRead b 10 99995) >>= (@?= ErrorError)
          errorOf (blobWrite b "toolong" 99995) >>= (@?= ErrorError)
          errorOf (blobRead b (-1) 0) >>= (@?= ErrorError)
          errorOf (blobRead b 1 (-1)) >>= (@?= ErrorError)
        queryInts db "SELECT length(b) FROM t" >>= (@?= [100000])
        bracket (prepare db "SELECT substr(b, 99998) FROM t") finalize $ \st -> do
          Row <- step st
          columnBlob st 0 >>= (@?= "abc")
    , TestLabel "read-only handle, open errors" $ TestCase $ withDb $ \db -> do
        blobTable db 1 10
        withBlob db "main" "t" "b" 1 False $ \b -> do
          blobRead b 10 0 >>= (@?= pattern' 1 10)
          errorOf (blobWrite b "x" 0) >>= (@?= ErrorReadOnly)
        errorOf (blobOpen db "main" "t" "b" 99 False) >>= (@?= ErrorError)
        errorOf (blobOpen db "main" "nosuch" "b" 1 False) >>= (@?= ErrorError)
        errorOf (blobOpen db "main" "t" "nosuch" 1 False) >>= (@?= ErrorError)
        errorOf (blobOpen db "nosuch" "t" "b" 1 False) >>= (@?= ErrorError)
    , TestLabel "reopen on other rows; row changed or deleted: ErrorAbort, then reopen" $
        TestCase $ withDb $ \db -> do
          blobTable db 3 50
          b <- blobOpen db "" "t" "b" 1 False
          forM_ [1, 2, 3, 1] $ \i -> do
            blobReopen b i
            blobRead b 50 0 >>= (@?= pattern' (fromIntegral i) 50)
          exec db "UPDATE t SET b = x'0102' WHERE id = 1"
          errorOf (blobRead b 2 0) >>= (@?= ErrorAbort)
          blobReopen b 1
          blobBytes b >>= (@?= 2)
          blobRead b 2 0 >>= (@?= B.pack [1, 2])
          exec db "DELETE FROM t WHERE id = 1"
          errorOf (blobRead b 2 0) >>= (@?= ErrorAbort)
          errorOf (blobReopen b 1) >>= (@?= ErrorError)
          errorOf (blobRead b 2 0) >>= (@?= ErrorAbort)
          blobReopen b 2
          blobRead b 50 0 >>= (@?= pattern' 2 50)
          blobClose b
    , TestLabel "readMany: many rows in one call, ranges, a value bigger than the guess, errors" $
        TestCase $ withDb $ \db -> do
          blobTable db 2000 64
          exec db "INSERT INTO t(id, b) VALUES (5000, zeroblob(300000))"
          withBlob db "main" "t" "b" 1 False $ \b -> do
            vs <- blobReadMany b [(fromIntegral i, 0, Nothing) | i <- [1 .. 2000 :: Int]]
            vs @?= [pattern' i 64 | i <- [1 .. 2000]]
            ws <- blobReadMany b [(7, 10, Just 5), (3, 0, Just 0), (9, 60, Nothing), (5000, 0, Nothing), (1, 63, Just 1)]
            ws @?= [B.take 5 (B.drop 10 (pattern' 7 64)), B.empty, B.drop 60 (pattern' 9 64)
                   , B.replicate 300000 0, B.drop 63 (pattern' 1 64)]
            blobReadMany b [] >>= (@?= [])
            errorOf (blobReadMany b [(1, 0, Nothing), (4242, 0, Nothing)]) >>= (@?= ErrorError)
            errorOf (blobReadMany b [(1, 60, Just 10)]) >>= (@?= ErrorError)
            -- Still usable after the failures.
            blobReadMany b [(2, 0, Just 3)] >>= (@?= [B.take 3 (pattern' 2 64)])
    , TestLabel "readMany: random sizes (some over 1 MiB), known lengths and to the end, as blobRead reads them" $
        TestCase $ do
          r <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 60, Q.chatty = False } propReadMany
          assertBool (show r) (Q.isSuccess r)
    , TestLabel "readMany: 10,000 ranges in one list, small values then big ones then small" $
        TestCase $ withDb $ \db -> do
          blobTable db 300 100
          exec db "INSERT INTO t(id, b) VALUES (1000, zeroblob(1500000)), (1001, zeroblob(700000))"
          withBlob db "main" "t" "b" 1 False $ \b -> do
            let small = [(fromIntegral (1 + i `mod` 300), i `mod` 7, if even i then Nothing else Just 50) | i <- [0 .. 9999 :: Int]]
                want (rid, o, l) = do
                  v <- blobReopen b rid >> blobBytes b
                  blobRead b (maybe (v - o) id l) o
            expect <- mapM want small
            blobReadMany b small >>= (@?= expect)
            -- The guess from the small values is far too low for these, then far too high.
            let mixed = [(1000, 0, Nothing), (1001, 5, Nothing), (1000, 1499999, Nothing)] ++ take 500 small
            expect' <- mapM want mixed
            blobReadMany b mixed >>= (@?= expect')
            blobReadMany b small >>= (@?= expect)
    , TestLabel "close twice, after the connection, in any order, by the GC" $ TestCase $ do
        db <- open ":memory:"
        blobTable db 2 10
        b1 <- blobOpen db "main" "t" "b" 1 True
        b2 <- blobOpen db "main" "t" "b" 2 False
        blobClose b1
        blobClose b1
        errorOf (blobRead b1 1 0) >>= (@?= ErrorMisuse)
        blobBytes b1 >>= (@?= 0)
        _ <- blobOpen db "main" "t" "b" 2 False  -- dropped: closed by the GC
        performMajorGC
        close db
        errorOf (blobRead b2 1 0) >>= (@?= ErrorMisuse)
        errorOf (blobReopen b2 1) >>= (@?= ErrorMisuse)
        blobBytes b2 >>= (@?= 0)
        blobClose b2
        blobClose b2
        errorOf (blobOpen db "main" "t" "b" 1 False) >>= (@?= ErrorMisuse)
    , TestLabel "withBlob closes on an exception" $ TestCase $ withDb $ \db -> do
        blobTable db 1 10
        ref <- newIORef Nothing
        r <- try (withBlob db "main" "t" "b" 1 False $ \b -> writeIORef ref (Just b) >> throwIO (userError "boom"))
        either (\(_ :: IOException) -> return ()) (const (assertFailure "no exception")) r
        Just b <- readIORef ref
        errorOf (blobRead b 1 0) >>= (@?= ErrorMisuse)
    ]
  , TestLabel "backup" $ TestList
    [ TestLabel "memory to memory in steps" $ TestCase $ withDb $ \src -> withDb $ \dst -> do
        blobTable src 300 1000
        bk <- backupInit dst "main" src "main"
        backupPagecount bk >>= (@?= 0)
        let loop n = do
              r <- backupStep bk 10
              rem' <- backupRemaining bk
              pc <- backupPagecount bk
              assertBool "page count" (pc > 0)
              case r of
                BackupOK -> assertBool "remaining" (rem' > 0) >> loop (n + 1)
                BackupDone -> (rem' @?= 0) >> return (n + 1 :: Int)
        steps <- loop 0
        assertBool ("several steps: " ++ show steps) (steps > 3)
        backupFinish bk
        backupFinish bk
        backupRemaining bk >>= (@?= 0)
        queryInts dst "SELECT count(*) FROM t" >>= (@?= [300])
        queryInts dst "SELECT sum(length(b)) FROM t" >>= (@?= [300000])
    , TestLabel "to and from a file" $ TestCase $ withTempPath $ \fp -> withDb $ \src -> do
        blobTable src 50 100
        backupToFile src "main" fp
        f <- open fp
        queryInts f "SELECT count(*) FROM t" >>= (@?= [50])
        close f
        withDb $ \m -> do
          restoreFromFile m "main" fp
          queryInts m "SELECT sum(id) FROM t" >>= (@?= [sum [1 .. 50]])
          errorOf (restoreFromFile m "main" (fp <> "-missing")) >>= (@?= ErrorCan'tOpen)
        -- withBackup into a file connection.
        exec src "DELETE FROM t WHERE id > 10"
        f2 <- open fp
        withBackup f2 "main" src "main" $ \bk -> do
          BackupDone <- backupStep bk (-1)
          return ()
        queryInts f2 "SELECT count(*) FROM t" >>= (@?= [10])
        close f2
    , TestLabel "busy destination: ErrorBusy, resumed later" $ TestCase $ withTempPath $ \fp -> withDb $ \src -> do
        blobTable src 100 1000
        dst <- open fp
        exec dst "CREATE TABLE old(x); INSERT INTO old VALUES (1)"
        reader <- open fp
        exec reader "BEGIN"
        queryInts reader "SELECT x FROM old" >>= (@?= [1])
        bk <- backupInit dst "main" src "main"
        errorOf (backupStep bk 5) >>= assertBool "busy" . (`elem` [ErrorBusy, ErrorLocked])
        -- The destination is the backup's until it is finished.
        errorOf (exec dst "SELECT 1") >>= (@?= ErrorBusy)
        exec reader "COMMIT"
        let loop = do
              r <- backupStep bk 5
              when (r == BackupOK) loop
        loop
        backupFinish bk
        queryInts dst "SELECT count(*) FROM t" >>= (@?= [100])
        queryInts reader "SELECT count(*) FROM t" >>= (@?= [100])
        close reader
        close dst
    , TestLabel "closing in any order, twice, same connection" $ TestCase $ do
        let setup = do
              s <- open ":memory:"
              d <- open ":memory:"
              blobTable s 100 1000
              bk <- backupInit d "main" s "main"
              BackupOK <- backupStep bk 1
              return (s, d, bk)
        -- The source closed first.
        (s1, d1, bk1) <- setup
        close s1
        errorOf (backupStep bk1 1) >>= (@?= ErrorMisuse)
        _ <- try (backupFinish bk1) :: IO (Either SQLError ())
        backupFinish bk1
        queryInts d1 "SELECT count(*) FROM sqlite_master" >>= (@?= [0])
        close d1
        -- The destination closed first (which finishes the backup).
        (s2, d2, bk2) <- setup
        close d2
        errorOf (backupStep bk2 1) >>= (@?= ErrorMisuse)
        backupRemaining bk2 >>= \r -> assertBool "remaining" (r >= 0)
        _ <- try (backupFinish bk2) :: IO (Either SQLError ())
        backupFinish bk2
        close s2
        -- Both closed, then finish; and a backup left to the GC.
        (s3, d3, bk3) <- setup
        (_, _, _) <- setup
        performMajorGC
        close d3 >> close s3
        _ <- try (backupFinish bk3) :: IO (Either SQLError ())
        backupFinish bk3
        -- Same connection twice.
        withDb $ \db -> errorOf (backupInit db "main" db "main") >>= (@?= ErrorMisuse)
        -- A closed connection.
        withDb $ \db -> do
          c <- open ":memory:"
          close c
          errorOf (backupInit db "main" c "main") >>= (@?= ErrorMisuse)
          errorOf (backupInit c "main" db "main") >>= (@?= ErrorMisuse)
        -- An unknown schema.
        withDb $ \a -> withDb $ \b -> errorOf (backupInit a "main" b "nosuch") >>= (@?= ErrorError)
    , TestLabel "backups both ways on two threads do not deadlock" $ TestCase $ withDb $ \a -> withDb $ \b -> do
        blobTable a 20 100
        exec b "CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)"
        -- A backup meeting the other one's destination is refused (busy) and abandoned;
        -- neither thread may wait for the other forever.
        dones <- forM [(a, b), (b, a)] $ \(x, y) -> do
          v <- newEmptyMVar
          _ <- forkIO $ do
            r <- try $ forM [1 .. 30 :: Int] $ \_ -> do
              r1 <- try (withBackup y "main" x "main" (\bk -> backupStep bk 2 >> backupStep bk (-1)))
              case r1 of
                Right BackupDone -> return True
                Right BackupOK -> return False
                Left (e :: SQLError)
                  | sqlError e `elem` [ErrorBusy, ErrorLocked] -> yield >> return False
                  | otherwise -> throwIO e
            putMVar v (r :: Either SomeException [Bool])
          return v
        rs <- noHang "two-way backups" (mapM takeMVar dones)
        forM_ rs $ either (\e -> assertFailure ("unexpected: " ++ show e)) (const (return ()))
    ]
  , TestLabel "serialize" $ TestList
    [ TestLabel "round trip; read-only; resizeable" $ TestCase $ withDb $ \db -> do
        blobTable db 100 500
        bytes <- serialize db "main"
        assertBool "a database image" ("SQLite format 3\0" `B.isPrefixOf` bytes)
        withDb $ \m -> do
          deserialize m "main" bytes []
          queryInts m "SELECT sum(length(b)) FROM t" >>= (@?= [50000])
        withDb $ \m -> do
          deserialize m "main" bytes [DeserializeReadOnly]
          queryInts m "SELECT count(*) FROM t" >>= (@?= [100])
          errorOf (exec m "INSERT INTO t(b) VALUES (1)") >>= (@?= ErrorReadOnly)
        withDb $ \m -> do
          deserialize m "main" bytes [DeserializeResizeable]
          exec m "INSERT INTO t(b) SELECT b FROM t"
          queryInts m "SELECT count(*) FROM t" >>= (@?= [200])
          bytes2 <- serialize m "main"
          assertBool "grew" (B.length bytes2 > B.length bytes)
        -- The image does not change with the database.
        exec db "DELETE FROM t"
        withDb $ \m -> deserialize m "main" bytes [] >> queryInts m "SELECT count(*) FROM t" >>= (@?= [100])
        errorOf (serialize db "nosuch") >>= (@?= ErrorError)
        withDb $ \m -> serialize m "main" >>= \e -> assertBool "empty database" (B.length e <= 4096)
    , TestLabel "corrupt and truncated buffers give errors, never a crash" $ TestCase $ withDb $ \db -> do
        blobTable db 200 300
        exec db "CREATE INDEX ti ON t(b)"
        bytes <- serialize db "main"
        let probe img = withDb $ \m -> do
              r <- try (deserialize m "main" img [])
              case r of
                Left (_ :: SQLError) -> return Nothing
                Right () -> do
                  q <- try (queryInts m "SELECT count(*) FROM t WHERE b > x'05'" >> exec m "PRAGMA integrity_check; INSERT INTO t(b) VALUES (1)")
                  return (Just (either (\(e :: SQLError) -> Just (sqlError e)) (const Nothing) q))
        Just (Just e1) <- probe "this is not a database at all, not even close......................"
        e1 @?= ErrorNotADatabase
        _ <- probe (B.take (B.length bytes `div` 2) bytes)
        -- Random damage: each image either fails cleanly or works.
        g <- Q.generate (Q.vectorOf 60 ((,) <$> Q.choose (0, B.length bytes - 1) <*> Q.choose (1, 255 :: Int)))
        forM_ (zip [0 :: Int ..] g) $ \(i, (at, x)) -> do
          let dmg = B.concat [B.take at bytes, B.singleton (fromIntegral (fromIntegral (B.index bytes at) + x)), B.drop (at + 1) bytes]
              img = if even i then dmg else B.take (at + 1) dmg
          _ <- probe img
          return ()
    ]
  , TestLabel "limits, switches, state" $ TestCase $ withTempPath $ \fp -> withDb $ \db -> do
      old <- getLimit db LimitLength
      assertBool "a length limit" (old > 1000)
      setLimit db LimitLength 100 >>= (@?= old)
      getLimit db LimitLength >>= (@?= 100)
      errorOf (exec db ("SELECT '" <> T.replicate 200 "x" <> "'")) >>= (@?= ErrorTooBig)
      _ <- setLimit db LimitLength old
      _ <- setLimit db LimitVariableNumber 2
      errorOf (prepare db "SELECT ?, ?, ?") >>= (@?= ErrorError)
      setDbConfig db DbConfigDefensive True >>= (@?= True)
      getDbConfig db DbConfigDefensive >>= (@?= True)
      setDbConfig db DbConfigDefensive False >>= (@?= False)
      setDbConfig db DbConfigEnableView False >>= (@?= False)
      exec db "CREATE TABLE t(x); CREATE VIEW v AS SELECT x FROM t"
      errorOf (exec db "SELECT * FROM v") >>= (@?= ErrorError)
      errorOf (setDbConfig db (DbConfigOther 42) True) >>= (@?= ErrorMisuse)
      txnState db Nothing >>= (@?= TxnNone)
      exec db "BEGIN"
      _ <- queryInts db "SELECT count(*) FROM t"
      txnState db (Just "main") >>= (@?= TxnRead)
      exec db "INSERT INTO t VALUES (1)"
      txnState db Nothing >>= (@?= TxnWrite)
      exec db "COMMIT"
      errorOf (txnState db (Just "nosuch")) >>= (@?= ErrorError)
      dbReadOnly db "main" >>= (@?= False)
      dbFilename db "main" >>= (@?= "")
      walCheckpoint db Nothing CheckpointPassive >>= (@?= (-1, -1))
      (cur, _) <- dbStatus db DbStatusCacheUsed False
      assertBool "cache used" (cur > 0)
      f <- open fp
      exec f "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)"
      fn <- dbFilename f "main"
      assertBool ("absolute fp: " ++ show fn) ("/" `T.isPrefixOf` fn && T.takeEnd 10 fn == T.takeEnd 10 fp)
      (lg, ck) <- walCheckpoint f (Just "main") CheckpointTruncate
      (lg, ck) @?= (0, 0)
      close f
      ro <- open2 fp [SQLOpenReadOnly] SQLVFSDefault
      dbReadOnly ro "main" >>= (@?= True)
      close ro
      c <- open ":memory:"
      close c
      errorOf (getLimit c LimitLength) >>= (@?= ErrorMisuse)
      errorOf (dbFilename c "main") >>= (@?= ErrorMisuse)
  , TestLabel "hooks" $ TestList
    [ TestLabel "update hook and change feed: the same events, in order, in batches" $ TestCase $ withDb $ \db -> do
        evs <- newIORef []
        batches <- newIORef []
        setUpdateHook db (Just (\op s t r -> modifyIORef evs ((op, s, t, r) :)))
        setChangeFeed db 2 (Just (\cs why -> modifyIORef batches ((cs, why) :)))
        exec db "CREATE TABLE t(x); CREATE TABLE u(y)"
        exec db "BEGIN; INSERT INTO t VALUES (1); INSERT INTO u VALUES (2); INSERT INTO t VALUES (3); UPDATE t SET x = 9 WHERE rowid = 1; DELETE FROM u WHERE y = 2; COMMIT"
        es <- reverse <$> readIORef evs
        es @?= [ (ChangeInsert, "main", "t", 1), (ChangeInsert, "main", "u", 1), (ChangeInsert, "main", "t", 2)
               , (ChangeUpdate, "main", "t", 1), (ChangeDelete, "main", "u", 1) ]
        bs <- reverse <$> readIORef batches
        map (\(cs, why) -> (length cs, why)) bs @?= [(2, FeedFull), (2, FeedFull), (1, FeedCommit)]
        [(changeOp c, changeDatabase c, changeTable c, changeRowId c) | (cs, _) <- bs, c <- cs] @?= es
        -- Outside BEGIN, each statement commits; a rollback is reported as such.
        setChangeFeed db 10 (Just (\cs why -> modifyIORef batches ((cs, why) :)))
        writeIORef batches []
        exec db "INSERT INTO t VALUES (4)"
        exec db "BEGIN; INSERT INTO t VALUES (5); DELETE FROM t WHERE x = 3; ROLLBACK"
        bs2 <- reverse <$> readIORef batches
        map (\(cs, why) -> (map changeOp cs, why)) bs2
          @?= [([ChangeInsert], FeedCommit), ([ChangeInsert, ChangeDelete], FeedRollback)]
        -- Removed: nothing more.
        setUpdateHook db Nothing
        setChangeFeed db 0 Nothing
        writeIORef evs [] >> writeIORef batches []
        exec db "INSERT INTO t VALUES (6)"
        readIORef evs >>= (@?= [])
        readIORef batches >>= (@?= [])
    , TestLabel "update hook (batched underneath): in order across statements, tables, schemas and batches" $
        TestCase $ withDb $ \db -> do
          exec db "CREATE TABLE t(x); CREATE TABLE u(y); CREATE TEMP TABLE w(z); CREATE TRIGGER tu AFTER INSERT ON t BEGIN INSERT INTO u VALUES (new.x); END"
          evs <- newIORef []
          setUpdateHook db (Just (\op s t r -> modifyIORef' evs ((op, s, t, r) :)))
          -- 3,000 events in one statement: more than a batch (1,024) holds.
          exec db "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1500) INSERT INTO t SELECT i FROM r"
          exec db "UPDATE u SET y = -y WHERE rowid % 500 = 0; INSERT INTO w VALUES (1); DELETE FROM t WHERE x > 1498"
          st <- prepare db "INSERT INTO w VALUES (?)"
          forM_ [2, 3] $ \i -> bindInt st 1 i >> step st >> reset st
          finalize st
          es <- reverse <$> readIORef evs
          length es @?= 3008
          es @?= concat [[(ChangeInsert, "main", "t", i), (ChangeInsert, "main", "u", i)] | i <- [1 .. 1500]]
                 ++ [(ChangeUpdate, "main", "u", i) | i <- [500, 1000, 1500]]
                 ++ [(ChangeInsert, "temp", "w", 1)]
                 ++ [(ChangeDelete, "main", "t", i) | i <- [1499, 1500]]
                 ++ [(ChangeInsert, "temp", "w", i) | i <- [2, 3]]
          setUpdateHook db Nothing
    , TestLabel "update hook: each row's event reaches Haskell before an SQL function's next call" $
        TestCase $ withDb $ \db -> do
          exec db "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3), (4)"
          logv <- newIORef ([] :: [(String, Int64)])
          Right () <- I.withLock db $ \c -> DF.createFunction (SD.Database c) (SD.Utf8 "f") (Just 1) False $ \ctx args -> do
            x <- DF.funcArgInt64 args 0
            modifyIORef logv (("f", x) :)
            DF.funcResultInt64 ctx (x * 10)
          setUpdateHook db (Just (\_ _ _ r -> modifyIORef logv (("event", r) :)))
          exec db "UPDATE t SET x = f(x)"
          log1 <- reverse <$> readIORef logv
          log1 @?= concat [[("f", i), ("event", i)] | i <- [1 .. 4]]
          -- The same through prepare and step.
          writeIORef logv []
          bracket (prepare db "UPDATE t SET x = f(x) WHERE rowid > 2") finalize $ \st -> do
            Done <- step st
            log2 <- reverse <$> readIORef logv
            log2 @?= [("f", 30), ("event", 3), ("f", 40), ("event", 4)]
          queryInts db "SELECT x FROM t" >>= (@?= [10, 20, 300, 400])
          setUpdateHook db Nothing
    , TestLabel "update hook: a statement's events arrive before its call returns, and before commit and rollback hooks" $
        TestCase $ withDb $ \db -> do
          exec db "CREATE TABLE t(x)"
          evs <- newIORef []
          atCommit <- newIORef []
          atRollback <- newIORef []
          setUpdateHook db (Just (\_ _ _ r -> modifyIORef evs (r :)))
          setCommitHook db (Just (readIORef evs >>= \es -> modifyIORef atCommit (length es :) >> return False))
          setRollbackHook db (Just (readIORef evs >>= \es -> modifyIORef atRollback (length es :)))
          exec db "BEGIN"
          exec db "INSERT INTO t VALUES (1), (2), (3)"
          readIORef evs >>= (@?= [3, 2, 1])      -- inside BEGIN, right as the INSERT returned
          bracket (prepare db "INSERT INTO t VALUES (?)") finalize $ \st -> do
            bindInt st 1 4
            Done <- step st
            readIORef evs >>= (@?= [4, 3, 2, 1])  -- as step returned
          readIORef atCommit >>= (@?= [])
          exec db "COMMIT"
          readIORef atCommit >>= (@?= [4])
          -- Outside BEGIN the statement commits itself: its events come first.
          exec db "INSERT INTO t VALUES (5), (6)"
          readIORef atCommit >>= (@?= [6, 4])
          exec db "BEGIN; INSERT INTO t VALUES (7), (8); ROLLBACK"
          readIORef atRollback >>= (@?= [8])
          setCommitHook db Nothing
          setRollbackHook db Nothing
          setUpdateHook db Nothing
    , TestLabel "update hook: an exception is kept, the events after it still come, the statement goes on" $
        TestCase $ withDb $ \db -> do
          exec db "CREATE TABLE t(x)"
          seen <- newIORef []
          setUpdateHook db $ Just $ \_ _ _ r -> do
            modifyIORef seen (r :)
            when (r == 2) $ throwIO (userError "first boom")
            -- After an exception the hook is still a hook: its connection is refused to it.
            when (r == 3) $ do
              e <- try (exec db "SELECT 1")
              modifyIORef seen ((if e == Left HookReentry then -1 else 0) :)
            when (r == 4) $ throwIO (userError "second boom")
          noHang "hook after an exception" (exec db "INSERT INTO t VALUES (1), (2), (3), (4), (5)")
          reverse <$> readIORef seen >>= (@?= [1, 2, 3, -1, 4, 5])
          Just e <- takeHookException db
          assertBool (show e) ("first boom" `isInfixOf` show e)
          takeHookException db >>= assertBool "only the first one is kept" . null
          queryInts db "SELECT x FROM t" >>= (@?= [1 .. 5])
          setUpdateHook db Nothing
    , TestLabel "a big change feed: every row once, in order" $ TestCase $ withDb $ \db -> do
        seen <- newIORef (0 :: Int64, True, 0 :: Int)
        setChangeFeed db 1000 $ Just $ \cs _ -> forM_ cs $ \c -> modifyIORef' seen $ \(n, ok, k) ->
          (n + 1, ok && changeRowId c == n + 1, k + 1)
        exec db "CREATE TABLE t(x); WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000) INSERT INTO t SELECT i FROM r"
        (n, ok, _) <- readIORef seen
        (n, ok) @?= (100000, True)
    , TestLabel "commit veto, rollback hook" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(x)"
        rolled <- newIORef (0 :: Int)
        veto <- newIORef True
        setCommitHook db (Just (readIORef veto))
        setRollbackHook db (Just (modifyIORef rolled (+ 1)))
        errorOf (exec db "INSERT INTO t VALUES (1)") >>= (@?= ErrorConstraint)
        readIORef rolled >>= (@?= 1)
        writeIORef veto False
        exec db "INSERT INTO t VALUES (2)"
        queryInts db "SELECT x FROM t" >>= (@?= [2])
        exec db "BEGIN; INSERT INTO t VALUES (3); ROLLBACK"
        readIORef rolled >>= (@?= 2)
    , TestLabel "exceptions in hooks: kept, and the hook says no" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(x)"
        setUpdateHook db (Just (\_ _ _ _ -> throwIO (userError "update boom")))
        exec db "INSERT INTO t VALUES (1)"        -- the change stands
        queryInts db "SELECT count(*) FROM t" >>= (@?= [1])
        Just e1 <- takeHookException db
        assertBool (show e1) ("update boom" `isInfixOf` show e1)
        takeHookException db >>= assertBool "taken" . null
        setUpdateHook db Nothing
        setCommitHook db (Just (throwIO (userError "commit boom")))
        errorOf (exec db "INSERT INTO t VALUES (2)") >>= (@?= ErrorConstraint)
        Just e2 <- takeHookException db
        assertBool (show e2) ("commit boom" `isInfixOf` show e2)
        -- A lazy error in the result is forced inside the hook.
        setCommitHook db (Just (return (error "lazy boom")))
        errorOf (exec db "INSERT INTO t VALUES (2)") >>= (@?= ErrorConstraint)
        Just e3 <- takeHookException db
        assertBool (show e3) ("lazy boom" `isInfixOf` show e3)
        setCommitHook db Nothing
        setAuthorizer db (Just (\_ _ _ _ _ -> throwIO (userError "auth boom")))
        errorOf (prepare db "SELECT x FROM t") >>= (@?= ErrorAuthorization)
        _ <- takeHookException db
        setAuthorizer db Nothing
        setProgressHandler db 100 (Just (throwIO (userError "progress boom")))
        errorOf (exec db "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
          >>= (@?= ErrorInterrupt)
        Just e4 <- takeHookException db
        assertBool (show e4) ("progress boom" `isInfixOf` show e4)
        setProgressHandler db 0 Nothing
        setChangeFeed db 1 (Just (\_ _ -> throwIO (userError "feed boom")))
        exec db "INSERT INTO t VALUES (3)"
        Just e5 <- takeHookException db
        assertBool (show e5) ("feed boom" `isInfixOf` show e5)
        setChangeFeed db 1 Nothing
        queryInts db "SELECT x FROM t ORDER BY x" >>= (@?= [1, 3])
    , TestLabel "a hook using its own connection: HookReentry, no deadlock" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(x)"
        setUpdateHook db (Just (\_ _ _ _ -> exec db "SELECT 1"))
        noHang "update hook" (exec db "INSERT INTO t VALUES (1)")
        Just e <- takeHookException db
        fromException e @?= Just HookReentry
        setUpdateHook db (Just (\_ _ _ _ -> void (try (close db) :: IO (Either SQLError ()))))
        noHang "close from a hook" (exec db "INSERT INTO t VALUES (2)")
        Just e' <- takeHookException db
        fromException e' @?= Just HookReentry
        -- Changing hooks from a hook is refused the same way.
        setCommitHook db (Just (setUpdateHook db Nothing >> return False))
        noHang "set from a hook" (errorOf (exec db "INSERT INTO t VALUES (3)")) >>= (@?= ErrorConstraint)
        _ <- takeHookException db
        setCommitHook db Nothing
        setUpdateHook db Nothing
        queryInts db "SELECT x FROM t" >>= (@?= [1, 2])
    , TestLabel "WAL hook may checkpoint its connection" $ TestCase $ withTempPath $ \fp -> do
        db <- open fp
        exec db "PRAGMA journal_mode=WAL; CREATE TABLE t(x)"
        calls <- newIORef []
        setWalHook db $ Just $ \s n -> do
          r <- walCheckpoint db (Just s) CheckpointPassive
          modifyIORef calls ((s, n, r) :)
        exec db "INSERT INTO t VALUES (1)"
        cs <- readIORef calls
        case cs of
          [(s, n, (lg, ck))] -> do
            s @?= "main"
            assertBool "frames" (n > 0)
            (lg, ck) @?= (n, n)
          _ -> assertFailure ("WAL hook calls: " ++ show cs)
        setWalHook db (Just (\_ _ -> throwIO (userError "wal boom")))
        errorOf (exec db "INSERT INTO t VALUES (2)") >>= (@?= ErrorError)
        _ <- takeHookException db
        setWalHook db Nothing
        queryInts db "SELECT x FROM t" >>= (@?= [1, 2])
        close db
    , TestLabel "authorizer: ignore a column, deny an action" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(a, secret); INSERT INTO t VALUES (1, 42)"
        seen <- newIORef []
        setAuthorizer db $ Just $ \act x y s _ -> do
          modifyIORef seen ((act, x, y, s) :)
          return $ case (act, y) of
            (AuthAction 20, Just "secret") -> AuthIgnore
            (AuthAction 18, _) -> AuthDeny
            _ -> AuthOk
        bracket (prepare db "SELECT a, secret FROM t") finalize $ \st -> do
          Row <- step st
          columns st >>= (@?= [SQLInteger 1, SQLNull])
        errorOf (exec db "INSERT INTO t VALUES (2, 3)") >>= (@?= ErrorAuthorization)
        ss <- readIORef seen
        assertBool "read of t.secret seen" ((AuthAction 20, Just "t", Just "secret", Just "main") `elem` ss)
        setAuthorizer db Nothing
        exec db "INSERT INTO t VALUES (2, 3)"
    , TestLabel "a kept BEGIN calls back once a callback is set (it runs unsafe before)" $ TestCase $ withDb $ \db -> do
        -- The second BEGIN runs the kept statement without waiting (an unsafe call); once an
        -- authorizer or a trace is set it must be a safe call again: SQLite prepares it anew
        -- (setting an authorizer expires every statement) and calls both.
        replicateM_ 2 (exec db "BEGIN" >> exec db "COMMIT")
        seen <- newIORef []
        -- Each collects garbage too: under an unsafe call that would find the calling
        -- thread's stack in the middle of the call.
        setAuthorizer db $ Just $ \act x _ _ _ -> do
          modifyIORef seen ((act, x) :)
          performMajorGC
          return AuthOk
        traced <- newIORef []
        Direct.setTrace db (Just (\t -> modifyIORef traced (t :) >> performMajorGC))
        exec db "BEGIN"
        Direct.getAutoCommit db >>= (@?= False)
        exec db "COMMIT"
        ss <- readIORef seen
        assertBool ("BEGIN authorized again: " ++ show ss) ((AuthAction 22, Just "BEGIN") `elem` ss)
        ts <- readIORef traced
        reverse ts @?= [Direct.Utf8 "BEGIN", Direct.Utf8 "COMMIT"]
        setAuthorizer db Nothing
        Direct.setTrace db Nothing
    , TestLabel "busy handler retries, then gives up" $ TestCase $ withTempPath $ \fp -> do
        a <- open fp
        b <- open fp
        exec a "CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)"
        calls <- newIORef []
        setBusyHandler b (Just (\k -> modifyIORef calls (k :) >> return (k < 3)))
        errorOf (exec b "INSERT INTO t VALUES (2)") >>= (@?= ErrorBusy)
        readIORef calls >>= (@?= [3, 2, 1, 0])
        exec a "COMMIT"
        exec b "INSERT INTO t VALUES (2)"
        close a >> close b
    , TestLabel "progress handler interrupts" $ TestCase $ withDb $ \db -> do
        n <- newIORef (0 :: Int)
        setProgressHandler db 1000 (Just (modifyIORef' n (+ 1) >> (> 5) <$> readIORef n))
        errorOf (exec db "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
          >>= (@?= ErrorInterrupt)
        readIORef n >>= (@?= 6)
        setProgressHandler db 1000 Nothing
        queryInts db "SELECT 7" >>= (@?= [7])
    , TestLabel "every registration's closure is released exactly once" $ TestCase $ do
        n0 <- X.liveHookCount
        db <- open ":memory:"
        let setAll = do
              setUpdateHook db (Just (\_ _ _ _ -> return ()))
              setCommitHook db (Just (return False))
              setRollbackHook db (Just (return ()))
              setWalHook db (Just (\_ _ -> return ()))
              setProgressHandler db 10 (Just (return False))
              setBusyHandler db (Just (\_ -> return False))
              setAuthorizer db (Just (\_ _ _ _ _ -> return AuthOk))
              setChangeFeed db 10 (Just (\_ _ -> return ()))
        setAll
        X.liveHookCount >>= (@?= n0 + 8)
        setAll   -- replacing destroys the old ones
        X.liveHookCount >>= (@?= n0 + 8)
        setUpdateHook db Nothing
        setProgressHandler db 0 (Just (return False))   -- every < 1 removes
        X.liveHookCount >>= (@?= n0 + 6)
        exec db "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
        close db
        X.liveHookCount >>= (@?= n0)
        -- On a closed connection nothing is registered.
        errorOf (setUpdateHook db (Just (\_ _ _ _ -> return ()))) >>= (@?= ErrorMisuse)
        r <- Direct.setCommitHook db (Just (return False))
        r @?= Left ErrorMisuse
        X.liveHookCount >>= (@?= n0)
    ]
  ]

-- | 'blobReadMany' of random ranges over values of random sizes (a few over 1 MiB, some
-- empty), in a few calls on one handle (its guess carried from call to call), reads what
-- 'blobRead' reads range by range.
propReadMany :: Q.Property
propReadMany = Q.forAll (Q.choose (1, 30) >>= \n -> Q.vectorOf n size) $ \sizes ->
  Q.forAll (Q.choose (1, 3) >>= \k -> Q.vectorOf k (Q.choose (0, 400) >>= \m -> Q.vectorOf m (range sizes))) $ \groups ->
    Q.ioProperty $ withDb $ \db -> do
      exec db "CREATE TABLE v(id INTEGER PRIMARY KEY, b BLOB NOT NULL)"
      st <- prepare db "INSERT INTO v(id, b) VALUES (?, coalesce(?, zeroblob(0)))"
      forM_ (zip [1 ..] sizes) $ \(i, n) -> do
        bindInt st 1 i
        if n == 0 then bindNull st 2 else bindBlob st 2 (pattern' i n)
        Done <- step st
        reset st
      finalize st
      withBlob db "main" "v" "b" 1 False $ \b -> withBlob db "main" "v" "b" 1 False $ \one -> do
        let byOne (rid, o, l) = do
              blobReopen one rid
              v <- blobBytes one
              blobRead one (maybe (v - o) id l) o
        oks <- forM groups $ \g -> (==) <$> blobReadMany b g <*> mapM byOne g
        return (and oks)
  where
    size = Q.frequency [(12, Q.choose (0, 1100)), (3, Q.choose (1100, 70000)), (1, Q.choose (1048576 - 100, 2500000))]
    range sizes = do
      k <- Q.choose (0, length sizes - 1)
      let n = sizes !! k
      o <- Q.choose (0, n)
      l <- Q.oneof [pure Nothing, Just <$> Q.choose (0, n - o)]
      return (fromIntegral (k + 1) :: Int64, o, l)
