{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of virtual tables, table-valued functions and tables bound as one parameter
-- ("Database.SQLBatch.VTab"): answers against the same rows in an ordinary table, every
-- kind of value, tables larger than a batch, planning, errors and exceptions in every
-- callback, cursors abandoned in the middle of a scan, interrupts, re-entry, writable
-- tables, both faces.
module VTabTests (vtabTests) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.Int
import Data.IORef
import Data.List (nub, sort, sortOn)
import Data.Text (Text)
import qualified Data.Text as T
import System.Mem (performMajorGC)
import System.Timeout (timeout)
import Test.HUnit

import Database.SQLBatch
import Kit
import Database.SQLBatch.VTab
import qualified Database.SQLite3 as S3



-- | Asserts that the action throws an 'SQLError' whose details contain the text.
failsWith :: String -> Text -> IO a -> IO ()
failsWith what needle act = do
  e <- sqlErrorOf act
  assertBool (what ++ ": " ++ show e) (needle `T.isInfixOf` sqlErrorDetails e)

-- | Opens and closes of cursors, connects and disconnects of tables, fills and filters.
data Tally = Tally
  { cOpen, cClose, cConnect, cDisconnect, cDestroy, cFill, cFilter :: IORef Int }

newTally :: IO Tally
newTally = Tally <$> newIORef 0 <*> newIORef 0 <*> newIORef 0 <*> newIORef 0 <*> newIORef 0
                   <*> newIORef 0 <*> newIORef 0

bump :: IORef Int -> IO ()
bump r = atomicModifyIORef' r (\n -> (n + 1, ()))

-- | Every cursor opened was closed, every table connected disconnected (when asked).
balanced :: String -> Tally -> IO ()
balanced what k = do
  o <- readIORef (cOpen k)
  c <- readIORef (cClose k)
  assertEqual (what ++ ": cursors opened and closed") o c

-- | Rows of every kind of value: the row of i is (i, i / 4, a text, a blob, a nullable).
sampleRow :: Int64 -> [SQLData]
sampleRow i =
  [ SQLInteger (i * 7 - 3)
  , SQLFloat (fromIntegral i / 4)
  , case i `mod` 5 of
      0 -> SQLText ""
      1 -> SQLText "naïve café ☕"
      2 -> SQLText (T.pack ("a\0b" ++ show i))
      3 -> SQLNull
      _ -> SQLText (T.replicate (fromIntegral (i `mod` 97)) "x")
  , case i `mod` 4 of
      0 -> SQLBlob B.empty
      1 -> SQLBlob (B.pack [0, 1, 2, 255])
      2 -> SQLNull
      _ -> SQLBlob (B.replicate (fromIntegral (i `mod` 300)) (fromIntegral i))
  , if i `mod` 3 == 0 then SQLNull else SQLInteger (i `mod` 100)
  ]

sampleCols :: [Text]
sampleCols = ["a INTEGER", "b REAL", "c TEXT", "d BLOB", "e INTEGER"]

-- | A module whose rows are @rowsOf n@ for the table's argument n (default 100).
rowsModule :: Tally -> (Int64 -> [[SQLData]]) -> Module Int64 (Int64, IORef [[SQLData]])
rowsModule k rowsOf = (newModule connect open' filt fill)
  { moduleClose = \_ -> bump (cClose k)
  , moduleDisconnect = \_ destroy -> bump (if destroy then cDestroy k else cDisconnect k)
  , moduleBestIndex = Just plan
  }
  where
    connect cn = do
      bump (cConnect k)
      let n = case connectArgs cn of
            (a : _) -> read (T.unpack a)
            [] -> 100
      return ("CREATE TABLE x(" <> T.intercalate ", " sampleCols <> ")", n)
    open' n = bump (cOpen k) >> (,) n <$> newIORef []
    plan _ info =
      let cs = zip [0 ..] (indexConstraints info)
          eqIn = [ (i, c) | (i, c) <- cs, constraintColumn c == 0, constraintOp c == OpEQ, constraintUsable c ]
          gt = [ i | (i, c) <- cs, constraintColumn c == 0, constraintOp c == OpGT, constraintUsable c ]
      in return $ Just $ case (eqIn, gt) of
           ((i, c) : _, _) -> fullScan { planUses = [(i, ConstraintUse 1 True (constraintInList c))]
                                       , planIdxNum = 1, planEstimatedCost = 1 }
           ([], i : _) -> (useConstraint i True fullScan) { planIdxNum = 2, planEstimatedCost = 10 }
           _ -> fullScan
    filt (n, ref) fa = do
      bump (cFilter k)
      let keep r = case (filterIdxNum fa, filterArgs fa, r) of
            (1, [ArgValue v], x : _) -> x == v
            (1, [ArgList vs], x : _) -> x `elem` vs
            (2, [ArgValue (SQLInteger g)], SQLInteger x : _) -> x > g
            (2, [ArgValue _], _) -> False
            _ -> True
      writeIORef ref (filter keep (rowsOf n))
    fill (_, ref) w = do
      bump (cFill k)
      rs <- readIORef ref
      mx <- writerMax w
      let (now, later) = splitAt mx rs
      forM_ now $ \r -> mapM_ (writeValue w) r >> endRow w
      writeIORef ref later
      return (null later)

-- | The sample rows 1..n.
samples :: Int64 -> [[SQLData]]
samples n = map sampleRow [1 .. n]

-- | The same rows in an ordinary table t.
sampleTable :: Connection -> Int64 -> IO ()
sampleTable c n = do
  execute_ c ("CREATE TABLE t(" <> Query (T.intercalate ", " sampleCols) <> ")")
  withTransaction c $ executeMany c "INSERT INTO t VALUES (?, ?, ?, ?, ?)" (samples n)

-- | A query's rows as values, on the virtual table v and on t.
sameAnswer :: Connection -> Text -> IO ()
sameAnswer c sql = do
  let on name = Query (T.replace "{}" name sql)
  a <- query_ c (on "v") :: IO [[SQLData]]
  b <- query_ c (on "t") :: IO [[SQLData]]
  assertEqual (T.unpack sql) b a

vtabTests :: Test
vtabTests = TestList
  [ TestLabel "Modules" moduleTests
  , TestLabel "Errors" errorTests
  , TestLabel "Lifetimes" lifetimeTests
  , TestLabel "TableFunctions" tableFunctionTests
  , TestLabel "Writable" writableTests
  , TestLabel "TableValues" tableValueTests
  ]

moduleTests :: Test
moduleTests = TestList
  [ "a module's table answers as the same rows in a table do" ~: withMem $ \c -> do
      k <- newTally
      createModule c "rowsmod" defaultModuleOptions (rowsModule k samples)
      execute_ c "CREATE VIRTUAL TABLE temp.v USING rowsmod(1000)"
      sampleTable c 1000
      forM_
        [ "SELECT * FROM {} ORDER BY a"
        , "SELECT typeof(a), typeof(b), typeof(c), typeof(d), typeof(e) FROM {} ORDER BY a"
        , "SELECT count(*), sum(a), sum(b), sum(length(c)), sum(length(d)), count(e), total(e) FROM {}"
        , "SELECT e, count(*), group_concat(c, '|') FROM {} GROUP BY e ORDER BY e"
        , "SELECT a, c FROM {} WHERE a = 69"
        , "SELECT a FROM {} WHERE a > 6900 ORDER BY a"
        , "SELECT a, d FROM {} WHERE a IN (4, 11, 200, 6993, 5) ORDER BY a"
        , "SELECT count(*) FROM {} AS x JOIN {} AS y ON x.e = y.e WHERE x.a < 100"
        , "SELECT a FROM {} ORDER BY c DESC, a LIMIT 7"
        , "SELECT hex(d), quote(c) FROM {} WHERE d IS NOT NULL ORDER BY a LIMIT 20"
        ] (sameAnswer c)
      balanced "after the queries" k
  , "the plan's arguments reach filter; an IN list arrives whole, in one scan" ~: withMem $ \c -> do
      k <- newTally
      createModule c "rowsmod" defaultModuleOptions (rowsModule k samples)
      execute_ c "CREATE VIRTUAL TABLE temp.v USING rowsmod(500)"
      writeIORef (cFilter k) 0
      [Only n] <- query_ c "SELECT count(*) FROM v WHERE a IN (4, 11, 18, 25)" :: IO [Only Int]
      n @?= 4
      filters <- readIORef (cFilter k)
      filters @?= 1
      [Only m] <- query_ c "SELECT count(*) FROM v WHERE a > 3000" :: IO [Only Int]
      m @?= length [i | i <- [1 .. 500 :: Int64], i * 7 - 3 > 3000]
  , "planning sees every constraint, the ORDER BY, the LIMIT and the columns used" ~: withMem $ \c -> do
      seen <- newIORef []
      let m = (newModule (\_ -> return ("CREATE TABLE x(a INTEGER, b TEXT, c REAL)", ()))
                 (\_ -> newIORef False) (\_ _ -> return ()) (\_ _ -> return True))
                { moduleBestIndex = Just (\_ info -> modifyIORef seen (info :) >> return (Just fullScan)) }
      createModule c "planned" (ModuleOptions Eponymous 0) m
      _ <- query_ c "SELECT a, c FROM planned WHERE a = 5 AND b > 'x' ORDER BY c DESC LIMIT 3" :: IO [[SQLData]]
      infos <- readIORef seen
      assertBool "planned at least once" (not (null infos))
      let info = last infos
          ops = [ (constraintColumn x, constraintOp x) | x <- indexConstraints info ]
      assertBool ("a = 5: " ++ show ops) ((0, OpEQ) `elem` ops)
      assertBool ("b > 'x': " ++ show ops) ((1, OpGT) `elem` ops)
      assertBool ("the literal 5 is known: " ++ show info)
        (any (\x -> constraintColumn x == 0 && constraintValue x == Just (SQLInteger 5)) (indexConstraints info))
      indexOrderBy info @?= [OrderTerm 2 True]
      assertEqual "columns used: a, b, c" 7 (indexColumnsUsed info)
      writeIORef seen []
      _ <- query_ c "SELECT a FROM planned LIMIT 3" :: IO [[SQLData]]
      limited <- readIORef seen
      assertBool ("the LIMIT: " ++ show limited)
        (any (any (\x -> constraintOp x == OpLimit && constraintValue x == Just (SQLInteger 3)) . indexConstraints) limited)
  , "tables much larger than a batch, every batch size" ~: withMem $ \c -> do
      forM_ [(1, 3000), (7, 20000), (0, 100000), (5000, 100000)] $ \(batch, n) -> do
        k <- newTally
        let name = T.pack ("big" ++ show batch ++ "_" ++ show n)
        createModule c name (ModuleOptions EponymousOnly batch)
          ((rowsModule k (\_ -> [[SQLInteger i, SQLText (T.pack (show i))] | i <- [1 .. n]]))
             { moduleConnect = \_ -> return ("CREATE TABLE x(a INTEGER, b TEXT)", n) })
        [(cnt, s, l)] <- query_ c (Query ("SELECT count(*), sum(a), sum(length(b)) FROM " <> name))
        (cnt :: Int64, s :: Int64, l :: Int64) @?= (n, n * (n + 1) `div` 2, sum [fromIntegral (length (show i)) | i <- [1 .. n]])
        fills <- readIORef (cFill k)
        let per = if batch == 0 then 256 else batch
        assertBool ("fills for " ++ show (batch, n) ++ ": " ++ show fills)
          (fills >= fromIntegral n `div` per && fills <= fromIntegral n `div` per + 2)
        balanced "big" k
  , "rowids: numbered in each scan, or given by the fill" ~: withMem $ \c -> do
      let m given = newModule (\_ -> return ("CREATE TABLE x(a INTEGER)", ())) (\_ -> newIORef (0 :: Int))
            (\ref _ -> writeIORef ref 0)
            (\ref w -> do
               i <- readIORef ref
               mx <- writerMax w
               let n = min mx (600 - i)
               forM_ [i .. i + n - 1] $ \j -> do
                 writeInt w j
                 if given && j `mod` 2 == 0 then endRowWithId w (fromIntegral (1000 + j)) else endRow w
               writeIORef ref (i + n)
               return (i + n >= 600))
      createModule c "numbered" (ModuleOptions EponymousOnly 100) (m False)
      createModule c "given" (ModuleOptions EponymousOnly 100) (m True)
      r1 <- query_ c "SELECT rowid, a FROM numbered" :: IO [(Int64, Int64)]
      r1 @?= [(j + 1, j) | j <- [0 .. 599]]
      r2 <- query_ c "SELECT rowid, a FROM given" :: IO [(Int64, Int64)]
      r2 @?= [(if even j then 1000 + j else j + 1, j) | j <- [0 .. 599]]
  , "writeTable hands over rows laid out in advance, alone or with written rows" ~: withMem $ \c -> do
      let tv = tableFromValues Nothing (samples 1000)
          m mixed = newModule (\_ -> return ("CREATE TABLE x(" <> T.intercalate ", " sampleCols <> ")", ()))
            (\_ -> newIORef 0) (\ref _ -> writeIORef ref 0)
            (\ref w -> do
               i <- readIORef ref
               mx <- writerMax w
               let n = min mx (1000 - i)
               if mixed
                 then do
                   -- two rows from the table (alone so far: handed over whole), then one
                   -- written value by value (they are copied in first), then the rest
                   let a = min 2 n
                   writeTable w tv i a
                   when (n > a) $ do
                     mapM_ (writeValue w) (sampleRow (fromIntegral (i + a + 1))) >> endRow w
                     when (n > a + 1) $ writeTable w tv (i + a + 1) (n - a - 1)
                 else writeTable w tv i n
               writeIORef ref (i + n)
               return (i + n >= 1000))
      createModule c "whole" (ModuleOptions EponymousOnly 64) (m False)
      createModule c "mixed" (ModuleOptions EponymousOnly 64) (m True)
      sampleTable c 1000
      a <- query_ c "SELECT * FROM t ORDER BY a" :: IO [[SQLData]]
      b <- query_ c "SELECT * FROM whole ORDER BY a" :: IO [[SQLData]]
      d <- query_ c "SELECT * FROM mixed ORDER BY a" :: IO [[SQLData]]
      b @?= a
      d @?= a
  , "a fill may write fewer columns than the table has: the rest read as NULL" ~: withMem $ \c -> do
      createModule c "narrow" (ModuleOptions EponymousOnly 0)
        (newModule (\_ -> return ("CREATE TABLE x(a INTEGER, b TEXT, c BLOB)", ())) (\_ -> return ())
          (\_ _ -> return ()) (\_ w -> writeRow w (Only (7 :: Int)) >> return True))
      r <- query_ c "SELECT a, b, c FROM narrow" :: IO [(Int, Maybe Text, Maybe B.ByteString)]
      r @?= [(7, Nothing, Nothing)]
  , "eponymous, eponymous-only and CREATE-only modules" ~: withMem $ \c -> do
      let m = newModule (\cn -> return ("CREATE TABLE x(a INTEGER)", connectTable cn)) (\_ -> newIORef False)
                (\ref _ -> writeIORef ref False)
                (\ref w -> do
                   done <- readIORef ref
                   unless done (writeRow w (Only (1 :: Int)))
                   writeIORef ref True
                   return True)
      createModule c "only" (ModuleOptions EponymousOnly 0) m
      createModule c "both" (ModuleOptions Eponymous 0) m
      createModule c "made" defaultModuleOptions m
      (query_ c "SELECT a FROM only" :: IO [Only Int]) >>= (@?= [Only 1])
      (query_ c "SELECT a FROM both" :: IO [Only Int]) >>= (@?= [Only 1])
      _ <- sqlErrorOf (execute_ c "CREATE VIRTUAL TABLE temp.o USING only")
      execute_ c "CREATE VIRTUAL TABLE temp.b USING both"
      (query_ c "SELECT a FROM b" :: IO [Only Int]) >>= (@?= [Only 1])
      failsWith "a CREATE-only module is no table by itself" "no such table" (query_ c "SELECT a FROM made" :: IO [Only Int])
      execute_ c "CREATE VIRTUAL TABLE temp.m USING made"
      (query_ c "SELECT a FROM m" :: IO [Only Int]) >>= (@?= [Only 1])
  , "Connect gets the module's, database's and table's names and the arguments as written" ~: withMem $ \c -> do
      seen <- newIORef []
      createModule c "args" defaultModuleOptions
        (newModule (\cn -> modifyIORef seen (cn :) >> return ("CREATE TABLE x(a)", ())) (\_ -> return ())
           (\_ _ -> return ()) (\_ _ -> return True))
      execute_ c "CREATE VIRTUAL TABLE temp.t1 USING args(1, 'two', three four)"
      cns <- readIORef seen
      map (\cn -> (connectCreate cn, connectModule cn, connectDatabase cn, connectTable cn, connectArgs cn)) cns
        @?= [(True, "args", "temp", "t1", ["1", "'two'", "three four"])]
  , "a module on direct-sqlite's Database, read with step and column*" ~: do
      db <- S3.open ":memory:"
      k <- newTally
      createModule db "rowsmod" (ModuleOptions Eponymous 3) (rowsModule k samples)
      st <- S3.prepare db "SELECT a, c, d FROM rowsmod ORDER BY a"
      let loop acc = do
            r <- S3.step st
            if r == S3.Row
              then do
                a <- S3.columnInt64 st 0
                ty <- S3.columnType st 1
                d <- S3.column st 2
                loop ((a, ty, d) : acc)
              else return (reverse acc)
      got <- loop []
      S3.finalize st
      length got @?= 100
      take 2 got @?= [(4, S3.TextColumn, SQLBlob (B.pack [0, 1, 2, 255])), (11, S3.TextColumn, SQLNull)]
      S3.close db
      balanced "direct-sqlite" k
  , "two cursors of one table at once (a self-join), and nested table functions" ~: withMem $ \c -> do
      k <- newTally
      createModule c "rowsmod" (ModuleOptions Eponymous 10) (rowsModule k samples)
      [Only n] <- query_ c "SELECT count(*) FROM rowsmod AS x, rowsmod AS y WHERE x.e = y.e" :: IO [Only Int64]
      let es = [e | [_, _, _, _, e] <- samples 100]
      n @?= fromIntegral (length [() | x <- es, y <- es, x == y, x /= SQLNull])
      createTableFunction c "upto" ["i INTEGER"] ["n"] $ \args -> case args of
        [SQLInteger m] -> return (map Only [1 .. m])
        _ -> return []
      [Only s] <- query_ c "SELECT sum(i) FROM upto((SELECT count(*) FROM upto(10)))" :: IO [Only Int64]
      s @?= 55
      balanced "self-join" k
  ]

errorTests :: Test
errorTests = TestList
  [ "an exception in any callback fails the statement with its text; the connection goes on" ~: withMem $ \c -> do
      k <- newTally
      let base = rowsModule k samples
          boom where' = throwIO (userError ("boom in " ++ where'))
          failing =
            [ ("connect", base { moduleConnect = \_ -> boom "connect" })
            , ("bestIndex", base { moduleBestIndex = Just (\_ _ -> boom "bestIndex") })
            , ("open", base { moduleOpen = \_ -> boom "open" })
            , ("filter", base { moduleFilter = \_ _ -> boom "filter" })
            , ("fill", base { moduleFill = \_ _ -> boom "fill" })
            , ("pure fill", base { moduleFill = \_ _ -> evaluate (1 `div` (0 :: Int)) >> return True })
            , ("error fill", base { moduleFill = \_ _ -> error "an error call in fill" })
            ]
      forM_ failing $ \(what, m) -> do
        let name = T.filter (/= ' ') (T.pack what)
        createModule c name (ModuleOptions EponymousOnly 0) m
        e <- sqlErrorOf (query_ c (Query ("SELECT * FROM " <> name)) :: IO [[SQLData]])
        let text = sqlErrorDetails e
        assertBool (what ++ ": " ++ show e) $ case what of
          "pure fill" -> "divide by zero" `T.isInfixOf` text
          "error fill" -> "an error call in fill" `T.isInfixOf` text
          _ -> T.pack ("boom in " ++ what) `T.isInfixOf` text
        sqlError e @?= ErrorError
        [Only one] <- query_ c "SELECT 1" :: IO [Only Int]
        one @?= 1
      balanced "after the failures" k
  , "an SQLError thrown by a callback keeps its code and details" ~: withMem $ \c -> do
      createModule c "busy" (ModuleOptions EponymousOnly 0)
        (newModule (\_ -> return ("CREATE TABLE x(a)", ())) (\_ -> return ()) (\_ _ -> return ())
          (\_ _ -> throwIO (SQLError ErrorConstraint 19 "my own constraint" "fill" Nothing Nothing Nothing Nothing)))
      e <- sqlErrorOf (query_ c "SELECT * FROM busy" :: IO [[SQLData]])
      sqlError e @?= ErrorConstraint
      assertBool (show e) ("my own constraint" `T.isInfixOf` sqlErrorDetails e)
  , "a fill that breaks the rules fails the statement with what it did" ~: withMem $ \c -> do
      let fillWith f = newModule (\_ -> return ("CREATE TABLE x(a, b)", ())) (\_ -> return ()) (\_ _ -> return ()) (\_ w -> f w)
          failing =
            [ ("more rows than asked", "more than the", \w -> do
                mx <- writerMax w
                replicateM_ (mx + 1) (writeRow w (1 :: Int, 2 :: Int))
                return False)
            , ("returns inside a row", "middle of a row", \w -> writeInt w 1 >> return True)
            , ("no row, not the last", "wrote no row", \_ -> return False)
            , ("rows of different widths", "value(s), the rows before it", \w -> do
                writeRow w (1 :: Int, 2 :: Int)
                writeRow w (Only (3 :: Int))
                return True)
            , ("a row of no values", "a row of no values", \w -> endRow w >> return True)
            , ("a bad slice of a table", "writeTable: rows", \w -> writeTable w (tableColumn [1 :: Int]) 0 5 >> return True)
            , ("a table of another width", "rows of 1 values after rows of 2", \w -> do
                writeRow w (1 :: Int, 2 :: Int)
                writeTable w (tableColumn [1 :: Int]) 0 1
                return True)
            ]
      forM_ (zip [0 :: Int ..] failing) $ \(i, (what, needle, f)) -> do
        let name = T.pack ("rule" ++ show i)
        createModule c name (ModuleOptions EponymousOnly 16) (fillWith f)
        failsWith what needle (query_ c (Query ("SELECT * FROM " <> name)) :: IO [[SQLData]])
  , "a schema SQLite refuses fails the CREATE; the table is disconnected" ~: withMem $ \c -> do
      k <- newTally
      createModule c "badschema" defaultModuleOptions
        ((rowsModule k samples) { moduleConnect = \_ -> bump (cConnect k) >> return ("CREATE TABLE x(a INTEGER,", 1) })
      _ <- sqlErrorOf (execute_ c "CREATE VIRTUAL TABLE temp.bad USING badschema")
      readIORef (cConnect k) >>= (@?= 1)
      readIORef (cDisconnect k) >>= (@?= 1)
  , "a plan that cannot be used makes SQLite pick another join order" ~: withMem $ \c -> do
      createTableFunction c "twice" ["y INTEGER"] ["x"] $ \args -> case args of
        [SQLInteger x] -> return [Only (2 * x)]
        _ -> return []
      execute_ c "CREATE TABLE nums(x INTEGER)"
      executeMany c "INSERT INTO nums VALUES (?)" (map Only [1 .. 5 :: Int])
      r <- query_ c "SELECT sum(y) FROM twice(nums.x) JOIN nums" :: IO [Only Int64]
      r @?= [Only 30]
  , "a callback that uses its own connection fails its statement instead of deadlocking" ~: withMem $ \c -> do
      createModule c "reentrant" (ModuleOptions EponymousOnly 0)
        (newModule (\_ -> return ("CREATE TABLE x(a)", ())) (\_ -> return ()) (\_ _ -> return ())
          (\_ w -> do
             [Only n] <- query_ c "SELECT 41" :: IO [Only Int]
             writeRow w (Only (n + 1)) >> return True))
      r <- timeout 10000000 (sqlErrorOf (query_ c "SELECT a FROM reentrant" :: IO [Only Int]))
      case r of
        Nothing -> assertFailure "the re-entrant callback deadlocked"
        Just e -> assertBool (show e) ("own connection" `T.isInfixOf` sqlErrorDetails e)
      -- another connection is fine
      withMem $ \other -> do
        createModule c "elsewhere" (ModuleOptions EponymousOnly 0)
          (newModule (\_ -> return ("CREATE TABLE x(a)", ())) (\_ -> return ()) (\_ _ -> return ())
            (\_ w -> do
               [Only n] <- query_ other "SELECT 41" :: IO [Only Int]
               writeRow w (Only (n + 1)) >> return True))
        (query_ c "SELECT a FROM elsewhere" :: IO [Only Int]) >>= (@?= [Only 42])
  , "deleteModule: its tables stop working" ~: withMem $ \c -> do
      k <- newTally
      createModule c "gone" (ModuleOptions EponymousOnly 0) (rowsModule k samples)
      _ <- query_ c "SELECT count(*) FROM gone" :: IO [Only Int]
      deleteModule c "gone"
      _ <- sqlErrorOf (query_ c "SELECT count(*) FROM gone" :: IO [Only Int])
      balanced "deleted" k
  , "registering on a closed connection throws" ~: do
      c <- open ":memory:"
      close c
      k <- newTally
      _ <- sqlErrorOf (createModule c "late" defaultModuleOptions (rowsModule k samples))
      return ()
  ]

lifetimeTests :: Test
lifetimeTests = TestList
  [ "a cursor abandoned in the middle of a scan is closed: finalize, reset, an exception in a fold" ~: withMem $ \c -> do
      k <- newTally
      createModule c "rowsmod" (ModuleOptions EponymousOnly 8) (rowsModule k samples)
        { moduleConnect = \_ -> return ("CREATE TABLE x(" <> T.intercalate ", " sampleCols <> ")", 100000) }
      -- direct-sqlite: a few steps, then finalize
      let db = connectionHandle c
      st <- S3.prepare db "SELECT a FROM rowsmod"
      replicateM_ 20 (S3.step st)
      readIORef (cOpen k) >>= (@?= 1)
      readIORef (cClose k) >>= (@?= 0)
      S3.finalize st
      balanced "finalize" k
      -- a reset in the middle, then a new run
      st2 <- S3.prepare db "SELECT a FROM rowsmod"
      replicateM_ 30 (S3.step st2)
      S3.reset st2
      S3.step st2 >>= (@?= S3.Row)
      S3.finalize st2
      balanced "reset" k
      -- an exception thrown by the fold's own code after a few rows
      r <- try (fold_ c "SELECT a FROM rowsmod" (0 :: Int) (\n (Only (_ :: Int64)) ->
             if n == 25 then throwIO (userError "stop here") else return (n + 1)))
      case r of
        Left (_ :: IOException) -> return ()
        Right _ -> assertFailure "the fold did not stop"
      balanced "fold" k
      -- nextRow on a kept statement, then closeStatement
      s <- openStatement c "SELECT a FROM rowsmod"
      replicateM_ 3 (nextRow s :: IO (Maybe (Only Int64)))
      closeStatement s
      balanced "closeStatement" k
  , "closing the connection in the middle of a scan closes the cursor and disconnects the table" ~: do
      k <- newTally
      c <- open ":memory:"
      createModule c "rowsmod" defaultModuleOptions (rowsModule k samples)
      execute_ c "CREATE VIRTUAL TABLE temp.v USING rowsmod(50)"
      let db = connectionHandle c
      st <- S3.prepare db "SELECT a FROM v"
      replicateM_ 5 (S3.step st)
      close c
      balanced "close" k
      readIORef (cConnect k) >>= (@?= 1)
      readIORef (cDisconnect k) >>= (@?= 1)
      _ <- try (S3.finalize st) :: IO (Either SomeException ())
      return ()
  , "DROP TABLE disconnects with destroy" ~: withMem $ \c -> do
      k <- newTally
      createModule c "rowsmod" defaultModuleOptions (rowsModule k samples)
      execute_ c "CREATE VIRTUAL TABLE temp.v USING rowsmod(5)"
      execute_ c "DROP TABLE temp.v"
      readIORef (cDestroy k) >>= (@?= 1)
  , "a timeout interrupts a scan that would never end; the cursor is closed" ~: withMem $ \c -> do
      k <- newTally
      createModule c "forever" (ModuleOptions EponymousOnly 0)
        ((newModule (\_ -> return ("CREATE TABLE x(a INTEGER)", ())) (\_ -> bump (cOpen k) >> newIORef (0 :: Int64))
           (\ref _ -> writeIORef ref 0)
           (\ref w -> do
              i <- readIORef ref
              mx <- writerMax w
              forM_ [i .. i + fromIntegral mx - 1] (\j -> writeInt64 w j >> endRow w)
              writeIORef ref (i + fromIntegral mx)
              return False))
          { moduleClose = \_ -> bump (cClose k) })
      r <- timeout 300000 (query_ c "SELECT count(*) FROM forever" :: IO [Only Int64])
      r @?= Nothing
      balanced "timeout" k
      -- killThread from another thread, too
      done <- newEmptyMVar
      t <- forkIO (void (query_ c "SELECT max(a) FROM forever" :: IO [Only Int64]) `finally` putMVar done ())
      threadDelay 100000
      killThread t
      r2 <- timeout 10000000 (takeMVar done)
      r2 @?= Just ()
      balanced "killThread" k
      (query_ c "SELECT a FROM forever LIMIT 3" :: IO [Only Int64]) >>= (@?= map Only [0, 1, 2])
      balanced "LIMIT" k
  , "interrupt from another thread stops the scan with ErrorInterrupt" ~: withMem $ \c -> do
      createTableGenerator c "ticks" ["i INTEGER"] [] $ \_ -> do
        ref <- newIORef (0 :: Int64)
        return (Just . Only <$> atomicModifyIORef' ref (\i -> (i + 1, i)))
      _ <- forkIO (threadDelay 100000 >> interrupt c)
      e <- sqlErrorOf (query_ c "SELECT count(*) FROM ticks" :: IO [Only Int64])
      sqlError e @?= ErrorInterrupt
  , "registrations are released: replacing and deleting modules frees their callbacks" ~: withMem $ \c -> do
      k <- newTally
      forM_ [1 .. 200 :: Int] $ \_ -> createModule c "again" (ModuleOptions EponymousOnly 0) (rowsModule k samples)
      performMajorGC
      [Only n] <- query_ c "SELECT count(*) FROM again" :: IO [Only Int]
      n @?= 100
      deleteModule c "again"
  , "scans on many threads and connections at once" ~: do
      k <- newTally
      dones <- forM [1 .. 4 :: Int] $ \t -> do
        v <- newEmptyMVar
        _ <- forkIO $ (do
          withMem $ \c -> do
            createModule c "rowsmod" (ModuleOptions EponymousOnly (t * 13)) (rowsModule k samples)
            forM_ [1 .. 30 :: Int] $ \_ -> do
              [Only n] <- query_ c "SELECT count(*) FROM rowsmod WHERE e IS NOT NULL" :: IO [Only Int]
              when (n /= 67) $ throwIO (userError ("count " ++ show n))
          putMVar v Nothing) `catch` (\(e :: SomeException) -> putMVar v (Just (show e)))
        return v
      rs <- mapM takeMVar dones
      rs @?= replicate 4 Nothing
      balanced "threads" k
  ]

tableFunctionTests :: Test
tableFunctionTests = TestList
  [ "a table-valued function from a list: pairs(n) joined to a table" ~: withMem $ \c -> do
      createTableFunction c "pairs" ["k INTEGER", "w INTEGER"] ["n"] $ \args -> case args of
        [SQLInteger n] -> return [((j * 7919) `mod` 1000 + 1, j `mod` 10) | j <- [0 .. n - 1 :: Int64]]
        _ -> return []
      execute_ c "CREATE TABLE items(id INTEGER PRIMARY KEY, qty INTEGER)"
      withTransaction c $ executeMany c "INSERT INTO items VALUES (?, ?)" [(i, i * 3) | i <- [1 .. 1000 :: Int64]]
      [(cnt, s)] <- query_ c "SELECT count(*), sum(i.qty * p.w) FROM pairs(5000) AS p JOIN items AS i ON i.id = p.k"
      let want = [((j * 7919) `mod` 1000 + 1) * 3 * (j `mod` 10) | j <- [0 .. 4999 :: Int64]]
      (cnt :: Int64, s :: Int64) @?= (5000, sum want)
      [Only kk] <- query_ c "SELECT k FROM pairs(3) WHERE w = 2" :: IO [Only Int64]
      kk @?= (2 * 7919) `mod` 1000 + 1
  , "an argument left out is NULL; arguments of every type arrive as given" ~: withMem $ \c -> do
      createTableFunction c "echo" ["a", "b"] ["x", "y"] $ \args -> return [args]
      r <- query_ c "SELECT a, b FROM echo(1.5, x'00ff')" :: IO [[SQLData]]
      r @?= [[SQLFloat 1.5, SQLBlob (B.pack [0, 255])]]
      r2 <- query_ c "SELECT a, b FROM echo('text')" :: IO [[SQLData]]
      r2 @?= [[SQLText "text", SQLNull]]
      r3 <- query_ c "SELECT a, b FROM echo()" :: IO [[SQLData]]
      r3 @?= [[SQLNull, SQLNull]]
      r4 <- query_ c "SELECT a, b FROM echo(NULL, 7)" :: IO [[SQLData]]
      r4 @?= [[SQLNull, SQLInteger 7]]
  , "an infinite list with a LIMIT; the list is read a batch at a time" ~: withMem $ \c -> do
      forced <- newIORef (0 :: Int)
      createTableFunction c "naturals" ["i INTEGER"] [] $ \_ ->
        return [Only i | i <- [0 :: Int64 ..]]
      r <- query_ c "SELECT i FROM naturals LIMIT 1000" :: IO [Only Int64]
      r @?= map Only [0 .. 999]
      createTableGenerator c "counted" ["i INTEGER"] [] $ \_ -> do
        ref <- newIORef (0 :: Int64)
        return $ do
          i <- atomicModifyIORef' ref (\x -> (x + 1, x))
          atomicModifyIORef' forced (\x -> (x + 1, ()))
          return (Just (Only i))
      r2 <- query_ c "SELECT i FROM counted LIMIT 10" :: IO [Only Int64]
      r2 @?= map Only [0 .. 9]
      n <- readIORef forced
      assertBool ("rows made for LIMIT 10: " ++ show n) (n <= 256)
  , "an exception inside the lazy list, or from the generator, fails the statement" ~: withMem $ \c -> do
      createTableFunction c "broken" ["i INTEGER"] [] $ \_ ->
        return (map Only [1, 2, 3 :: Int64] ++ error "the list broke")
      failsWith "lazy list" "the list broke" (query_ c "SELECT sum(i) FROM broken" :: IO [Only Int64])
      createTableGenerator c "gbroken" ["i INTEGER"] [] $ \_ -> return (throwIO (userError "generator broke") :: IO (Maybe (Only Int)))
      failsWith "generator" "generator broke" (query_ c "SELECT sum(i) FROM gbroken" :: IO [Only Int64])
      createTableFunction c "fbroken" ["i INTEGER"] ["x"] $ \_ -> (throwIO (userError "start broke") :: IO [Only Int])
      failsWith "function" "start broke" (query_ c "SELECT sum(i) FROM fbroken(1)" :: IO [Only Int64])
      [Only one] <- query_ c "SELECT 1" :: IO [Only Int]
      one @?= 1
  , "rows of every kind of value, on direct-sqlite's Database" ~: do
      db <- S3.open ":memory:"
      createTableFunction db "vals" sampleCols ["n"] $ \args -> return $ case args of
        [SQLInteger n] -> samples n
        _ -> []
      st <- S3.prepare db "SELECT a, b, c, d, e FROM vals(300)"
      let loop acc = do
            r <- S3.step st
            if r == S3.Row then S3.columns st >>= \v -> loop (v : acc) else return (reverse acc)
      got <- loop []
      S3.finalize st
      S3.close db
      got @?= samples 300
  ]

writableTests :: Test
writableTests = TestList
  [ "INSERT, UPDATE and DELETE reach moduleUpdate, one row each" ~: withMem $ \c -> do
      store <- newIORef ([] :: [(Int64, [SQLData])])
      next <- newIORef (1 :: Int64)
      let m = (newModule (\_ -> return ("CREATE TABLE x(name TEXT, n INTEGER)", ()))
                 (\_ -> newIORef [])
                 (\ref _ -> readIORef store >>= writeIORef ref . sortOn fst)
                 (\ref w -> do
                    rs <- readIORef ref
                    mx <- writerMax w
                    let (now, later) = splitAt mx rs
                    forM_ now $ \(rid, vs) -> mapM_ (writeValue w) vs >> endRowWithId w rid
                    writeIORef ref later
                    return (null later)))
                { moduleUpdate = Just $ \_ ch -> case ch of
                    RowInsert given vs -> do
                      rid <- maybe (atomicModifyIORef' next (\i -> (i + 1, i))) return given
                      modifyIORef' store ((rid, vs) :)
                      return rid
                    RowUpdate old new vs -> do
                      modifyIORef' store (((new, vs) :) . filter ((/= old) . fst))
                      return 0
                    RowDelete old -> modifyIORef' store (filter ((/= old) . fst)) >> return 0 }
      createModule c "store" (ModuleOptions Tables 2) m
      execute_ c "CREATE VIRTUAL TABLE temp.s USING store"
      execute c "INSERT INTO s(name, n) VALUES (?, ?), (?, ?), (?, ?)" ("a" :: Text, 1 :: Int, "b" :: Text, 2 :: Int, "c" :: Text, 3 :: Int)
      rid <- lastInsertRowId c
      rid @?= 3
      execute_ c "INSERT INTO s(rowid, name, n) VALUES (10, 'ten', 10)"
      execute_ c "UPDATE s SET n = n * 100 WHERE name <> 'b'"
      execute_ c "DELETE FROM s WHERE name = 'c'"
      execute_ c "UPDATE s SET rowid = 20 WHERE rowid = 10"
      r <- query_ c "SELECT rowid, name, n FROM s ORDER BY rowid" :: IO [(Int64, Text, Int64)]
      r @?= [(1, "a", 100), (2, "b", 2), (20, "ten", 1000)]
      sort . map fst <$> readIORef store >>= (@?= [1, 2, 20])
  , "a table without moduleUpdate is read-only; an exception in update fails the change" ~: withMem $ \c -> do
      let ro = newModule (\_ -> return ("CREATE TABLE x(a)", ())) (\_ -> return ()) (\_ _ -> return ()) (\_ _ -> return True)
      createModule c "ro" defaultModuleOptions ro
      execute_ c "CREATE VIRTUAL TABLE temp.r USING ro"
      _ <- sqlErrorOf (execute_ c "INSERT INTO r VALUES (1)")
      createModule c "rw" defaultModuleOptions ro { moduleUpdate = Just (\_ _ -> throwIO (userError "no room")) }
      execute_ c "CREATE VIRTUAL TABLE temp.w USING rw"
      failsWith "update" "no room" (execute_ c "INSERT INTO w VALUES (1)")
  ]

tableValueTests :: Test
tableValueTests = TestList
  [ "an IN list of any length is one parameter" ~: withMem $ \c -> do
      execute_ c "CREATE TABLE items(id INTEGER PRIMARY KEY, qty INTEGER)"
      withTransaction c $ executeMany c "INSERT INTO items VALUES (?, ?)" [(i, i * 3) | i <- [1 .. 10000 :: Int64]]
      forM_ [[], [5], [1, 2, 3, 9999, 10001, 5000], [1 .. 5000], [3, 3, 3]] $ \(ids :: [Int64]) -> do
        r <- query c "SELECT count(*), coalesce(sum(qty), 0) FROM items WHERE id IN sqlbatch_rows(?)" (Only (InList ids))
        let present = [i | i <- sort (nub ids), i >= 1, i <= 10000]
        r @?= [(length present, sum (map (* 3) present))]
  , "a table of rows through a declared sqlbatch_rows table: INSERT ... SELECT, every kind of value" ~: withMem $ \c -> do
      execute_ c ("CREATE TABLE t(" <> Query (T.intercalate ", " sampleCols) <> ")")
      execute_ c "CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(a INTEGER, b REAL, c TEXT, d BLOB, e INTEGER)"
      execute c "INSERT INTO t SELECT * FROM incoming(?)" (Only (Rows (samples 20000)))
      -- an empty list needs no width: it reads as empty from a table of any width
      execute c "INSERT INTO t SELECT * FROM incoming(?)" (Only (Rows ([] :: [[SQLData]])))
      got <- query_ c "SELECT * FROM t ORDER BY rowid" :: IO [[SQLData]]
      got @?= samples 20000
      -- the same through a prepared statement, rebound with another table
      s <- openStatement c "SELECT count(*), sum(a) FROM incoming(?)"
      forM_ [5, 0, 700] $ \n -> do
        bind s (Only (tableValueOfWidth 5 (samples n)))
        r <- nextRow s :: IO (Maybe (Int64, Maybe Int64))
        r @?= Just (n, if n == 0 then Nothing else Just (sum [i * 7 - 3 | i <- [1 .. n]]))
        reset s
      closeStatement s
  , "fold, queryNamed and direct-sqlite's bindSQLData take a table too" ~: withMem $ \c -> do
      n <- fold c "SELECT value FROM sqlbatch_rows(?)" (Only (InList [1 .. 100 :: Int])) (0 :: Int) (\a (Only v) -> return (a + v))
      n @?= 5050
      r <- queryNamed c "SELECT count(*) FROM sqlbatch_rows(:xs) WHERE value > :min" [":xs" := InList (map T.singleton "abcdef"), ":min" := ("c" :: Text)]
      r @?= [Only (3 :: Int)]
      let db = connectionHandle c
      st <- S3.prepare db "SELECT sum(value) FROM sqlbatch_rows(?)"
      bindTable st 1 (tableColumn [10, 20, 30 :: Int])
      S3.step st >>= (@?= S3.Row)
      S3.columnInt64 st 0 >>= (@?= 60)
      S3.reset st
      S3.bindSQLData st 1 (toField (InList [1 :: Int, 2]))
      S3.step st >>= (@?= S3.Row)
      S3.columnInt64 st 0 >>= (@?= 3)
      S3.finalize st
  , "a table of mismatched rows, or of another width than the table's, is an error" ~: withMem $ \c -> do
      failsWith "mismatched" "row 1 has 1 value(s)"
        (query c "SELECT * FROM sqlbatch_rows(?)" (Only (tableFromValues Nothing [[SQLInteger 1, SQLNull], [SQLInteger 2]])) :: IO [[SQLData]])
      execute_ c "CREATE VIRTUAL TABLE temp.two USING sqlbatch_rows(a, b)"
      failsWith "width" "column" (query c "SELECT * FROM two(?)" (Only (InList [1 :: Int])) :: IO [[SQLData]])
      failsWith "not a table" "not a table"
        (query c "SELECT * FROM sqlbatch_rows(?)" (Only (SQLBlob "just bytes")) :: IO [[SQLData]])
      [Only one] <- query_ c "SELECT 1" :: IO [Only Int]
      one @?= 1
  , "an ordinary BLOB stays a BLOB; a table value copied elsewhere still binds" ~: withMem $ \c -> do
      let tv = tableColumn [4, 5, 6 :: Int]
          bytes = case toField tv of
            SQLBlob b' -> b'
            _ -> B.empty
      [Only b] <- query c "SELECT ?" (Only (SQLBlob (B.drop 1 bytes)))
      b @?= B.drop 1 bytes
      [Only s] <- query c "SELECT sum(value) FROM sqlbatch_rows(?)" (Only (SQLBlob (B.copy (B.drop 3 (B.append "xyz" bytes)))))
      s @?= (15 :: Int)
      show tv @?= "<table value: 3 row(s) of 1 column(s)>"
  , "a table value in a bulk write is refused by sqlbatch_rows, not taken as something else" ~: withMem $ \c -> do
      execute_ c "CREATE TABLE t(x)"
      _ <- sqlErrorOf (executeMany c "INSERT INTO t SELECT value FROM sqlbatch_rows(?)" [Only (InList [1 :: Int, 2]), Only (InList [3])])
      [Only n] <- query_ c "SELECT count(*) FROM t" :: IO [Only Int]
      n @?= 0
  ]
