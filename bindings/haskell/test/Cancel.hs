{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Cancellation at any moment of a call (issue 33): thousands of asynchronous exceptions
-- ('timeout' of a few microseconds to a few milliseconds, 'throwTo' from another thread),
-- each thrown around a call that never ends on its own, so that some land before the call
-- has entered C (while the binding holds the connection's lock masked), some as it enters,
-- some before its statement starts, some while SQLite runs. Every one must end its call: a
-- cancellation that is lost leaves the call running forever, which a monitor notices (the
-- call still runs 2 s after it started), counts as lost and ends with 'interrupt'; a series
-- stops after 3 lost. After every cancelled call, a call on the same connection that takes
-- a few hundred microseconds (every 16th: a few milliseconds, longer than the interval at
-- which a cancelled call is interrupted again, see cbits/hs_sqlbatch.c) must run to its end:
-- a cancellation must not reach the calls after the one it was meant for.
--
-- Two cases come first, made on purpose rather than by chance: an exception pending when a
-- call starts under 'mask' (GHC queues it without a signal) must stop the call at once, and
-- one pending under 'uninterruptibleMask' must leave it to run to its end.
--
-- The series run on bound and unbound threads, with one capability and with two, through
-- each kind of interruptible call (a fetch, a script, a bulk write, the direct-sqlite face).
-- Before the binding armed its calls and interrupted a cancelled call again until it
-- returned, 1 to 12% of the cancellations were lost, depending on the series.
-- @SQLBATCH_CANCEL_ROUNDS@ sets the rounds of each series (for a longer run by hand).
module Cancel (cancelTests) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import Data.IORef
import qualified Data.Text as T
import Data.Word
import GHC.Clock (getMonotonicTime)
import GHC.Conc (ThreadStatus (..), threadStatus)
import System.Environment (lookupEnv)
import System.Timeout (timeout)
import Test.HUnit

import Database.SQLBatch
import Kit
import qualified Database.SQLite3 as S3

-- | The exception thrown by the 'throwTo' series.
data Cancel = Cancel
  deriving (Show)

instance Exception Cancel


-- | A query of @n@ rows' work that runs to its end.
bounded :: Int -> Query
bounded n = Query (T.pack ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT "
                           ++ show n ++ ") SELECT count(*) FROM c"))

-- | A connection under test: the endless calls it offers, the call that must run to its
-- end after each (given its rows), and how the monitor stops a call it finds still running.
data Target = Target
  { tCalls :: [IO ()]
  , tAfter :: Int -> IO Int
  , tInterrupt :: IO ()
  }

-- | A 'Connection' with a table for the endless bulk write: a query, a fold, a script and
-- a bulk write, each endless.
withTarget :: (Target -> IO a) -> IO a
withTarget act = withConnection ":memory:" $ \c -> do
  executeScript c "CREATE TABLE sink(x)"
  act Target
    { tCalls =
        [ void (query_ c endless :: IO [Only Int])
        , void (fold_ c endless (0 :: Int) (\a (Only x) -> return (a + x)))
        , executeScript c ("SELECT 1; " <> endless)
        , executeMany c "INSERT INTO sink SELECT x FROM (WITH RECURSIVE c(x) AS \
                         \(SELECT ? UNION ALL SELECT x+1 FROM c) SELECT x FROM c)" [Only (1 :: Int)]
        ]
    , tAfter = \n -> do
        [Only k] <- query_ c (bounded n)
        return k
    , tInterrupt = interrupt c
    }

-- | The same through "Database.SQLite3" (exec and step).
withS3Target :: (Target -> IO a) -> IO a
withS3Target act = bracket (S3.open ":memory:") S3.close $ \db -> do
  let Query e = endless
  act Target
    { tCalls =
        [ S3.exec db e
        , bracket (S3.prepare db e) S3.finalize (void . S3.step)
        ]
    , tAfter = \n -> do
        let Query b = bounded n
        bracket (S3.prepare db b) S3.finalize $ \st -> do
          _ <- S3.step st
          fromIntegral <$> S3.columnInt64 st 0
    , tInterrupt = S3.interrupt db
    }

-- | How a round cancels its call: 'timeout' after a delay, or 'throwTo' from another
-- thread after it has spun a while (as 'killThread' would).
data How = ByTimeout | ByThrowTo
  deriving (Show)

-- | What a series saw: rounds, cancellations lost, calls after a cancelled one that were
-- interrupted.
data Tally = Tally !Int !Int !Int
  deriving (Eq, Show)

instance Semigroup Tally where
  Tally a b c <> Tally x y z = Tally (a + x) (b + y) (c + z)


-- | A delay: mostly under 200 us (the exception then often lands as the call enters C),
-- now and then up to 3 ms (while SQLite runs).
delayOf :: IORef Word64 -> IO Int
delayOf rng = do
  k <- xorshift rng 8
  if k == 0 then (+ 1) <$> xorshift rng 3000 else (+ 1) <$> xorshift rng 200

-- | Spins @n@ times without allocating (a delay finer than the timer's).
spin :: Int -> IO ()
spin n = void (evaluate (spinFor n 0))
  where
    spinFor :: Int -> Int -> Int
    spinFor 0 !acc = acc
    spinFor k !acc = spinFor (k - 1) (acc + k `mod` 7)

-- | Runs @rounds@ rounds on the target in the calling thread.
series :: How -> Word64 -> Int -> Target -> IO Tally
series how seed rounds t = do
  rng <- newIORef seed
  state <- newMVar Nothing
  lost <- newIORef (0 :: Int)
  rescued <- newIORef (-1 :: Int)
  spurious <- newIORef (0 :: Int)
  let monitor = forever $ do
        threadDelay 50000
        now <- getMonotonicTime
        withMVar state $ \s -> case s of
          Just (k, t0, what) | now - t0 > 2 -> do
            r <- readIORef rescued
            when (r /= k) $ do
              writeIORef rescued k
              modifyIORef' lost (+ 1)
              putStrLn ("  lost: round " ++ show k ++ ", " ++ what)
            tInterrupt t
          _ -> return ()
      calls = tCalls t
      -- A failing run stops after 3 lost cancellations (each costs the monitor's 2 s).
      go k = do
        l <- readIORef lost
        if k > rounds || l >= 3 then return (k - 1) else oneRound k >> go (k + 1)
      oneRound k = do
        i <- xorshift rng (length calls)
        d <- delayOf rng
        t0 <- getMonotonicTime
        modifyMVar_ state (\_ -> return (Just (k, t0, show how ++ " after " ++ show d ++ " of call " ++ show i)))
        cancel how rng d (calls !! i)
        modifyMVar_ state (\_ -> return Nothing)
        let n = if k `mod` 16 == 0 then 20000 else 1000
        r <- try (tAfter t n)
        case r of
          Right m -> when (m /= n) $ assertFailure ("the call after a cancelled one returned " ++ show m)
          Left (e :: SomeException)
            | interrupted e -> modifyIORef' spurious (+ 1)
            | otherwise -> throwIO e
  ran <- bracket (forkIO monitor) killThread (\_ -> go 1)
  Tally ran <$> readIORef lost <*> readIORef spurious
  where
    interrupted e
      | Just (se :: SQLError) <- fromException e = sqlError se == ErrorInterrupt
      | Just (s3 :: S3.SQLError) <- fromException e = S3.sqlError s3 == S3.ErrorInterrupt
      | otherwise = False

-- | Runs an endless call and cancels it: the call must end by the exception (or by the
-- monitor's interrupt, when the exception was lost).
cancel :: How -> IORef Word64 -> Int -> IO () -> IO ()
cancel ByTimeout _ d call = do
  r <- try (timeout d call)
  case r of
    Right Nothing -> return ()
    Right (Just ()) -> assertFailure "an endless call returned"
    Left (e :: SomeException) -> unlessInterrupted e
cancel ByThrowTo rng d call = do
  me <- myThreadId
  thrown <- newEmptyMVar
  k <- (* 20) <$> xorshift rng d
  mask $ \restore -> do
    _ <- forkIO (spin k >> throwTo me Cancel >> putMVar thrown ())
    r <- try (restore call)
    case r of
      Left (e :: SomeException)
        | Just Cancel <- fromException e -> return ()
        | otherwise -> unlessInterrupted e
      Right () -> assertFailure "an endless call returned"
    -- The exception has been delivered once the thrower is done (after the monitor's
    -- interrupt, the call may end before it).
    handle (\Cancel -> return ()) (restore (takeMVar thrown))

-- | An interrupt (the monitor's, which counted the round lost) ends a call too.
unlessInterrupted :: SomeException -> IO ()
unlessInterrupted e
  | Just (se :: SQLError) <- fromException e, sqlError se == ErrorInterrupt = return ()
  | Just (s3 :: S3.SQLError) <- fromException e, S3.sqlError s3 == S3.ErrorInterrupt = return ()
  | otherwise = throwIO e

-- | Runs the action with @n@ capabilities, then puts back the number there was.
withCapabilities :: Int -> IO a -> IO a
withCapabilities n act = do
  was <- getNumCapabilities
  bracket_ (setNumCapabilities n) (setNumCapabilities was) act

-- | Runs series on @k@ unbound threads at once (each its own target) and sums them.
onThreads :: Int -> (Int -> IO Tally) -> IO Tally
onThreads k run = do
  vars <- forM [1 .. k] $ \i -> do
    v <- newEmptyMVar
    _ <- forkIO (try (run i) >>= putMVar v)
    return v
  rs <- mapM takeMVar vars
  ts <- forM rs $ either (\(e :: SomeException) -> throwIO e) return
  return (foldr (<>) (Tally 0 0 0) ts)

check :: String -> Tally -> Assertion
check what tally@(Tally n l s) = do
  putStrLn ("  " ++ what ++ ": " ++ show n ++ " cancelled calls, " ++ show l ++ " lost, "
            ++ show s ++ " calls after one interrupted")
  tally @?= Tally n 0 0

-- | Runs the action with exceptions masked ('mask_' or 'uninterruptibleMask_') and a
-- 'Cancel' pending: thrown by another thread, which GHC holds blocked in 'throwTo' until
-- the mask ends (or the action blocks interruptibly). Returns how the action ended, and
-- whether the 'Cancel' came (from the action, or once the mask ended: a call that fails
-- with 'ErrorInterrupt' under the caller's mask leaves it pending until then).
withPending :: (IO () -> IO ()) -> IO () -> IO (Either SomeException (), Bool)
withPending masking act = do
  r <- try $ try $ masking $ do
    me <- myThreadId
    thrower <- forkIO (throwTo me Cancel)
    let waitBlocked = do
          st <- threadStatus thrower
          case st of
            ThreadBlocked _ -> return ()
            _ -> yield >> waitBlocked
    waitBlocked
    act
  late <- (threadDelay 1000 >> return False) `catch` \Cancel -> return True
  return $ case r of
    Left e -> (Left e, isCancel e)
    Right inner -> (inner, late || either isCancel (const False) inner)
  where
    isCancel e = case fromException e of
      Just Cancel -> True
      Nothing -> False

cancelTests :: Test
cancelTests = TestList
  [ "an exception pending under mask stops the call at once" ~: withTarget $ \t -> do
      -- GHC queues it without a signal, and does not look at the queue when the call
      -- starts; the binding's own calls run under mask_. Without the arm, the call runs on
      -- until a rescuer interrupts it after 2 s.
      forM_ [1 .. 10 :: Int] $ \_ -> forM_ (zip [0 :: Int ..] (tCalls t)) $ \(i, call) -> do
        t0 <- getMonotonicTime
        done <- newEmptyMVar
        _ <- forkIO $ do
          r <- timeout 2000000 (readMVar done)
          when (r == Nothing) (tInterrupt t)
        r <- withPending mask_ call
        putMVar done ()
        t1 <- getMonotonicTime
        assertBool ("call " ++ show i ++ " ended by " ++ show (fst r)) (snd r)
        assertBool ("call " ++ show i ++ " ran on for " ++ show (t1 - t0) ++ " s") (t1 - t0 < 1)
  , "under mask, the call that the pending exception stopped throws that exception" ~: withTarget $ \t ->
      -- Not the ErrorInterrupt it caused (every call throws its error by throwAfter).
      forM_ (zip [0 :: Int ..] (tCalls t)) $ \(i, call) -> do
        (r, _) <- withPending mask_ call
        case r of
          Left e | Just Cancel <- fromException e -> return ()
          _ -> assertFailure ("call " ++ show i ++ " ended by " ++ show r)
  , "an exception pending under uninterruptibleMask leaves the call to run" ~: withTarget $ \t -> do
      got <- newIORef 0
      r <- withPending uninterruptibleMask_ (tAfter t 200000 >>= writeIORef got)
      readIORef got >>= (@?= 200000)
      assertBool ("then the exception: " ++ show (fst r)) (snd r)
  , "timeouts on a bound thread, one capability" ~: do
      n <- roundsOf 1500
      withCapabilities 1 (withTarget (series ByTimeout 1 n)) >>= check "bound, timeout"
  , "timeouts on two unbound threads, two capabilities" ~: do
      n <- roundsOf 1500
      withCapabilities 2 (onThreads 2 (\i -> withTarget (series ByTimeout (fromIntegral i + 10) n)))
        >>= check "unbound, timeout"
  , "throwTo from another thread, one and two capabilities" ~: do
      n <- roundsOf 1500
      a <- withCapabilities 1 (onThreads 1 (\_ -> withTarget (series ByThrowTo 21 n)))
      b <- withCapabilities 2 (onThreads 1 (\_ -> withTarget (series ByThrowTo 22 n)))
      check "throwTo" (a <> b)
  , "timeouts and throwTo through the direct-sqlite face" ~: do
      n <- roundsOf 1000
      a <- withCapabilities 2 (onThreads 1 (\_ -> withS3Target (series ByTimeout 31 n)))
      b <- withCapabilities 1 (withS3Target (series ByThrowTo 32 n))
      check "direct-sqlite" (a <> b)
  ]
  where
    roundsOf d = maybe d read <$> lookupEnv "SQLBATCH_CANCEL_ROUNDS"
