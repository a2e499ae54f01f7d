{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of SQL functions, aggregates and collations written in Haskell
-- ("Database.SQLBatch.Function", "Database.SQLBatch.Direct.Function").
module Functions (functionTests) where

import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.Int
import Data.IORef
import Data.Text (Text)
import qualified Data.Text as T
import System.Mem (performMajorGC)
import System.Mem.Weak (deRefWeak)
import Control.Concurrent (threadDelay)
import Test.HUnit

import Database.SQLBatch
import Kit
import qualified Database.SQLBatch.Direct as D
import qualified Database.SQLBatch.Direct.Function as DF
import Database.SQLBatch.Function
import Database.SQLBatch.Internal (connDatabase)


-- | A table @t(x)@ of the integers 1..n (and @g = x % 7@).
numbers :: Connection -> Int -> IO ()
numbers c n = execute c
  "CREATE TABLE t AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < ?) \
  \SELECT x, x % 7 AS g FROM r" (Only n)


right :: Either SQLError a -> IO a
right = either throwIO return

-- | An aggregate's sum over the rows of a batch (the batched step).
sumRows :: DF.FuncRows -> Int64 -> IO Int64
sumRows rows s0 = go 0 s0
  where
    go r s
      | r >= DF.funcRowCount rows = return s
      | otherwise = do
          x <- DF.funcArgInt64 (DF.funcRowArgs rows r) 0
          go (r + 1) $! s + x * x

-- | A counter captured by a registered function, and a weak pointer that tells when the
-- registration has let go of it (its destroy callback freed the 'StablePtr').
capturing :: IO (Int64 -> IO Int64, IO Bool)
capturing = do
  ref <- newIORef (0 :: Int64)
  w <- mkWeakIORef ref (return ())
  let f x = atomicModifyIORef' ref (\n -> (n + x, n + x))
      released = do
        let loop :: Int -> IO Bool
            loop 0 = return False
            loop k = do
              performMajorGC
              r <- deRefWeak w
              case r of
                Nothing -> return True
                Just _ -> threadDelay 10000 >> loop (k - 1)
        loop 50
  return (f, released)

functionTests :: Test
functionTests = TestList
  [ "a scalar function over 200,000 rows" ~: withMem $ \c -> do
      numbers c 200000
      createFunction c "f" (\x -> x * 2 + 1 :: Int64)
      [Only (s :: Int64)] <- query_ c "SELECT sum(f(x)) FROM t"
      [Only (w :: Int64)] <- query_ c "SELECT sum(x * 2 + 1) FROM t"
      s @?= w
      -- and the per-row results, through a fold
      n <- fold_ c "SELECT x, f(x) FROM t" (0 :: Int) $ \acc (x :: Int64, y :: Int64) -> do
        when (y /= x * 2 + 1) $ assertFailure ("f(" ++ show x ++ ") = " ++ show y)
        return $! acc + 1
      n @?= 200000
  , "FromField arguments and ToField results" ~: withMem $ \c -> do
      createFunction c "greet" (\(t :: Text) (n :: Int) -> T.replicate n t <> "!")
      createFunction c "rev" (\(b :: B.ByteString) -> B.reverse b)
      createFunction c "half" (\(d :: Double) -> d / 2)
      createFunction c "orzero" (\(m :: Maybe Int64) -> maybe 0 (+ 1) m)
      createFunction c "nullflag" (\(m :: Maybe Text) -> maybe (1 :: Int) (const 0) m)
      createFunction c "three" (\a b (cc :: Int64) -> (a :: Int64) * 100 + (b :: Int64) * 10 + cc)
      createFunction c "none" (Nothing :: Maybe Int)
      [(g, r, h, o1, o2, nl, th, nt)] <- query_ c
        "SELECT greet('héllo', 2), rev(x'010203'), half(5.0), orzero(NULL), orzero(41), \
        \nullflag(NULL), three(1, 2, 3), none()"
      g @?= ("héllohéllo!" :: Text)
      r @?= B.pack [3, 2, 1]
      h @?= (2.5 :: Double)
      (o1, o2) @?= (0 :: Int64, 42 :: Int64)
      nl @?= (1 :: Int)
      th @?= (123 :: Int64)
      nt @?= (Nothing :: Maybe Int)
      -- TEXT arguments of many rows, and an empty one
      execute_ c "CREATE TABLE s(v TEXT)"
      executeMany c "INSERT INTO s VALUES (?)" [Only (T.pack (show i)) | i <- [1 .. 2000 :: Int]]
      execute_ c "INSERT INTO s VALUES ('')"
      createFunction c "tlen" (\(t :: Text) -> T.length t)
      [Only (tl :: Int)] <- query_ c "SELECT sum(tlen(v)) FROM s"
      tl @?= sum (map (length . show) [1 .. 2000 :: Int])
  , "an IO function runs once per call" ~: withMem $ \c -> do
      numbers c 100
      ref <- newIORef (0 :: Int)
      createFunction c "tick" (\(x :: Int64) -> atomicModifyIORef' ref (\n -> (n + 1, x)))
      [Only (s :: Int64)] <- query_ c "SELECT sum(tick(x)) FROM t"
      s @?= 5050
      readIORef ref >>= (@?= 100)
  , "an exception in a function is an SQL error; the connection stays usable" ~: withMem $ \c -> do
      numbers c 1000
      createFunction c "boom" (\x -> if x == 500 then error "boom at 500" else x :: Int64)
      e <- sqlErrorOf (query_ c "SELECT sum(boom(x)) FROM t" :: IO [Only Int64])
      sqlError e @?= ErrorError
      assertBool ("message: " ++ show (sqlErrorDetails e)) ("boom at 500" `T.isInfixOf` sqlErrorDetails e)
      createFunction c "ioboom" (\(_ :: Int64) -> throwIO (userError "io failure") :: IO Int64)
      e2 <- sqlErrorOf (query_ c "SELECT ioboom(1)" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e2)) ("io failure" `T.isInfixOf` sqlErrorDetails e2)
      -- a conversion error of an argument
      createFunction c "needint" (\(x :: Int64) -> x)
      e3 <- sqlErrorOf (query_ c "SELECT needint('text')" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e3)) ("Int64" `T.isInfixOf` sqlErrorDetails e3)
      -- still usable, the same function included
      [Only (s :: Int64)] <- query_ c "SELECT sum(boom(x)) FROM t WHERE x < 500"
      s @?= sum [1 .. 499]
      [Only (one :: Int)] <- query_ c "SELECT 1"
      one @?= 1
  , "the wrong argument count is refused by SQLite" ~: withMem $ \c -> do
      createFunction c "inc" (\x -> x + 1 :: Int64)
      e <- sqlErrorOf (query_ c "SELECT inc(1, 2)" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e)) ("inc" `T.isInfixOf` sqlErrorDetails e)
  , "replacing and deleting a function" ~: withMem $ \c -> do
      forM_ [1 .. 50 :: Int64] $ \k -> createFunction c "k" (\x -> x + k :: Int64)
      [Only (v :: Int64)] <- query_ c "SELECT k(1)"
      v @?= 51
      createFunction c "k2" (\x y -> x + y :: Int64)
      deleteFunction c "k"
      deleteFunction c "k2"
      e <- sqlErrorOf (query_ c "SELECT k(1)" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e)) ("no such function" `T.isInfixOf` sqlErrorDetails e)
      e2 <- sqlErrorOf (query_ c "SELECT k2(1, 2)" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e2)) ("no such function" `T.isInfixOf` sqlErrorDetails e2)
      -- the name can be registered again
      createFunction c "k" (\x -> x :: Int64)
      [Only (w :: Int64)] <- query_ c "SELECT k(7)"
      w @?= 7
  , "the destroy callback releases the closure on replacement, deletion and close" ~: do
      withMem $ \c -> do
        (f, released) <- capturing
        createFunction c "acc" f
        [Only (a :: Int64)] <- query_ c "SELECT acc(2) + acc(3)"
        a @?= 7
        createFunction c "acc" (\x -> x :: Int64)     -- replaces it
        released >>= assertBool "replaced: released"
        (g, releasedG) <- capturing
        createFunction c "acc2" g
        deleteFunction c "acc2"
        releasedG >>= assertBool "deleted: released"
      (h, releasedH) <- capturing
      withMem $ \c -> do
        createFunction c "acc3" h
        performMajorGC
        [Only (b :: Int64)] <- query_ c "SELECT acc3(5)"   -- still registered and alive
        b @?= 5
      releasedH >>= assertBool "closed: released"
  , "functions and aggregates on a connection that closes" ~: do
      forM_ [1 .. 20 :: Int] $ \_ -> withMem $ \c -> do
        createFunction c "f" (\x -> x :: Int64)
        right =<< DF.createAggregate (connDatabase c) "a" (Just 1) (0 :: Int64)
          (\_ args s -> (+ s) <$> DF.funcArgInt64 args 0) DF.funcResultInt64
        [Only (_ :: Int64)] <- query_ c "SELECT f(1)"
        return ()
  , "Direct: a variadic function reading its arguments" ~: withMem $ \c -> do
      right =<< DF.createFunction (connDatabase c) "describe" Nothing True (\ctx args -> do
        vs <- DF.funcArgValues args
        DF.funcResultText ctx (D.Utf8 (B.intercalate "," [B.pack (map (fromIntegral . fromEnum) (show v)) | v <- vs])))
      [Only (t :: Text)] <- query_ c "SELECT describe(1, 2.5, 'a', x'00', NULL)"
      t @?= "VInteger 1,VFloat 2.5,VText \"a\",VBlob \"\\NUL\",VNull"
      [Only (t0 :: Text)] <- query_ c "SELECT describe()"
      t0 @?= ""
      right =<< DF.createFunction (connDatabase c) "err" (Just 0) False (\ctx _ ->
        DF.funcResultError ctx "my message")
      e <- sqlErrorOf (query_ c "SELECT err()" :: IO [Only Int])
      sqlErrorDetails e @?= "my message"
  , "aggregates per row and batched agree with SQL's sum" ~: withMem $ \c -> do
      numbers c 100000
      let db = connDatabase c
      rowCalls <- newIORef (0 :: Int)
      batchCalls <- newIORef (0 :: Int)
      right =<< DF.createAggregate db "sumsq" (Just 1) (0 :: Int64)
        (\_ args s -> do
           modifyIORef' rowCalls (+ 1)
           x <- DF.funcArgInt64 args 0
           return $! s + x * x)
        DF.funcResultInt64
      right =<< DF.createAggregateBatched db "bsumsq" (Just 1) 256 (0 :: Int64)
        (\_ rows s -> modifyIORef' batchCalls (+ 1) >> sumRows rows s)
        DF.funcResultInt64
      [(a, b, w)] <- query_ c "SELECT sumsq(x), bsumsq(x), sum(x * x) FROM t"
      (a :: Int64, b :: Int64) @?= (w, w)
      readIORef rowCalls >>= (@?= 100000)
      nb <- readIORef batchCalls
      assertBool ("batches: " ++ show nb) (nb >= 100000 `div` 256 && nb <= 100000 `div` 256 + 1)
      -- per group
      gs <- query_ c "SELECT g, sumsq(x), bsumsq(x), sum(x * x) FROM t GROUP BY g ORDER BY g"
      length gs @?= 7
      forM_ gs $ \(g :: Int, x :: Int64, y :: Int64, z :: Int64) -> assertEqual ("group " ++ show g) (z, z) (x, y)
      -- a group without rows gets the initial state
      [(e1, e2)] <- query_ c "SELECT sumsq(x), bsumsq(x) FROM t WHERE x < 0"
      (e1, e2) @?= (0 :: Int64, 0 :: Int64)
  , "an exception in an aggregate's step or final is an SQL error" ~: withMem $ \c -> do
      numbers c 5000
      let db = connDatabase c
      right =<< DF.createAggregateBatched db "bad" (Just 1) 100 (0 :: Int64)
        (\_ rows s -> do
           s' <- sumRows rows s
           when (s' > 1000000) $ throwIO (userError "too big")
           return s')
        DF.funcResultInt64
      e <- sqlErrorOf (query_ c "SELECT bad(x) FROM t" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e)) ("too big" `T.isInfixOf` sqlErrorDetails e)
      right =<< DF.createAggregate db "badfinal" (Just 1) (0 :: Int64)
        (\_ _ s -> return (s + 1)) (\_ _ -> throwIO (userError "final failed"))
      e2 <- sqlErrorOf (query_ c "SELECT badfinal(x) FROM t" :: IO [Only Int64])
      assertBool (show (sqlErrorDetails e2)) ("final failed" `T.isInfixOf` sqlErrorDetails e2)
      [Only (ok :: Int64)] <- query_ c "SELECT bad(x) FROM t WHERE x <= 10"
      ok @?= sum [x * x | x <- [1 .. 10]]
  , "a collation orders ORDER BY and comparisons" ~: withMem $ \c -> do
      let db = connDatabase c
      right =<< DF.createCollation db "rev" (\(D.Utf8 a) (D.Utf8 b) -> compare b a)
      right =<< DF.createCollation db "nocase_len" (\(D.Utf8 a) (D.Utf8 b) -> compare (B.length a) (B.length b))
      execute_ c "CREATE TABLE w(v TEXT)"
      executeMany c "INSERT INTO w VALUES (?)" [Only (w :: Text) | w <- ["pear", "apple", "fig", "banana", "kiwi"]]
      r1 <- query_ c "SELECT v FROM w ORDER BY v COLLATE rev"
      map fromOnly r1 @?= (["pear", "kiwi", "fig", "banana", "apple"] :: [Text])
      [Only (eq :: Int)] <- query_ c "SELECT 'abc' = 'xyz' COLLATE nocase_len"
      eq @?= 1
      -- a throwing collation compares bytes
      right =<< DF.createCollation db "throws" (\_ _ -> error "no order")
      r2 <- query_ c "SELECT v FROM w ORDER BY v COLLATE throws"
      map fromOnly r2 @?= (["apple", "banana", "fig", "kiwi", "pear"] :: [Text])
      right =<< DF.deleteCollation db "rev"
      e <- sqlErrorOf (query_ c "SELECT v FROM w ORDER BY v COLLATE rev" :: IO [Only Text])
      assertBool (show (sqlErrorDetails e)) ("rev" `T.isInfixOf` sqlErrorDetails e)
  ]
