{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE RankNTypes #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | The soak test (issue 33): many threads on shared and private connections to one WAL file
-- for a fixed time, with timeouts, interrupts and asynchronous exceptions at random points,
-- then checks that nothing was lost and nothing leaked. It runs only when @SQLBATCH_SOAK@
-- is a number of seconds (@make -C bindings/haskell soak@), as the Go driver's
-- (bindings/go/driver/soak_test.go).
--
-- The workload, on a WAL file with a 5 s busy timeout: 16 workers share one 'Connection'
-- (its lock serializes them, so they also wait on each other's batches), 8 have one each,
-- and reopen it now and then. Each loops over: point reads, scans left early (an exception
-- thrown from inside the fold), reads through a statement the worker keeps, reads through
-- "Database.SQLite3" (prepare, step, finalize), a table-valued function written in Haskell,
-- an IN list bound as one parameter, a query that only a timeout ends, and writes: bulk
-- writes ('executeMany') in an immediate transaction (on a connection of the worker's own:
-- a transaction on a shared connection takes in every thread's statements), single inserts
-- in autocommit, inserts of many rows fed by a table-valued function (one statement). A write is a set of rows of @log@, each holding the
-- write's row count. A fifth of the operations run under 'timeout' of 0-3 ms; a chaos thread
-- throws an exception to a random worker every few milliseconds and interrupts the shared
-- connection now and then.
--
-- Afterwards: every write whose call returned is in the file (row by row), every write in
-- the file is whole (an interrupted write is there whole or not at all: its call may have
-- been interrupted after its commit), the file passes @integrity_check@, every cursor of the
-- table-valued functions was closed, no statement registered with a connection is left, the
-- resident memory did not grow in the second half (the largest sample of the last quarter
-- within 10% + 16 MiB of the largest of the third), and every error was one SQLite's rules
-- allow (an interrupt, a timeout or the chaos exception; @SQLITE_BUSY@ only after waiting
-- the whole busy timeout, or at once for a write on the shared connection while another
-- thread's query holds a read transaction open there). The counts of operations and errors
-- are printed.
module Soak (soak, startWorker) where

import Control.Concurrent
import Control.Exception
import Control.Monad
import Data.Bits ((.&.), (.|.))
import Data.Int
import Data.IORef
import Data.List (foldl', sortOn)
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import Data.Word
import GHC.Clock (getMonotonicTime)
import GHC.Conc (threadStatus)
import GHC.Stats (GCDetails (..), RTSStats (..), getRTSStats)
import Foreign.Marshal.Alloc (mallocBytes, reallocBytes)
import Foreign.Marshal.Utils (fillBytes)
import Foreign.Ptr (Ptr, plusPtr)
import Foreign.Storable (peekElemOff, pokeElemOff)
import System.Directory (doesFileExist, getFileSize, getTemporaryDirectory, removeFile)
import System.Mem (performMajorGC)
import System.Posix.Process (getProcessID)
import System.Timeout (timeout)

import Database.SQLBatch
import Kit
import Database.SQLBatch.Internal.Core (liveStatementsWith)
import Database.SQLBatch.VTab
import qualified Database.SQLite3 as S3

-- | The exception the chaos thread throws.
data Chaos = Chaos
  deriving (Show)

instance Exception Chaos

-- | Thrown inside a fold to leave a scan early.
data Enough = Enough
  deriving (Show)

instance Exception Enough

sharedWorkers, ownWorkers :: Int
sharedWorkers = 16
ownWorkers = 8

busyMs :: Int
busyMs = 5000

-- | A worker's random numbers (xorshift64).
newtype Rng = Rng (IORef Word64)

next :: Rng -> Int -> IO Int
next (Rng r) = xorshift r

-- | What the run records: writes acknowledged (worker, seq) -> rows; operations and errors
-- by name; errors SQLite's rules do not allow.
data Book = Book
  { bDoing :: IORef (M.Map Int String)
    -- ^ what each worker is doing now (to name a worker that does not finish)
  , bAcked :: IORef (M.Map Int Acks)
    -- ^ each worker's writes, registered when it ends
  , bOps :: IORef (M.Map String Int)
  , bErrs :: IORef (M.Map String Int)
  , bBad :: IORef (Int, [String])
  , bOpen :: IORef Int
  , bClose :: IORef Int
  }

-- | A worker's writes, 2 bytes each (so that what the test remembers stays out of the
-- memory it measures, as the Go soak does): write s (from 1) at index s - 1, its row count
-- with the top bit set when its call returned, 0 when it did not.
data Acks = Acks !(Ptr Word16) !Int  -- ^ the array, and its capacity

newAcks :: IO (IORef Acks)
newAcks = do
  p <- mallocBytes (1024 * 2)
  fillBytes p 0 (1024 * 2)
  newIORef (Acks p 1024)

setAck :: IORef Acks -> Int -> Int -> IO ()
setAck ref s n = do
  Acks p cap <- readIORef ref
  Acks p' _ <- if s <= cap then return (Acks p cap) else do
    let cap' = max s (cap * 2)
    q <- reallocBytes p (cap' * 2)
    fillBytes (q `plusPtr` (cap * 2)) 0 ((cap' - cap) * 2)
    let a = Acks q cap'
    a <$ writeIORef ref a
  pokeElemOff p' (s - 1) (fromIntegral n .|. 0x8000)

-- | The acknowledged writes (seq, rows) of an array.
acked :: Acks -> IO [(Int, Int)]
acked (Acks p cap) = fmap concat $ forM [0 .. cap - 1] $ \i -> do
  v <- peekElemOff p i
  return [ (i + 1, fromIntegral (v .&. 0x7fff)) | v .&. 0x8000 /= 0 ]

count :: IORef (M.Map String Int) -> String -> IO ()
count r k = atomicModifyIORef' r (\m -> (M.insertWith (+) k 1 m, ()))

-- | Runs one operation, sorting its failure: the allowed ones are counted, the others
-- recorded as bad. Returns whether it completed.
guardOp :: Book -> Bool -> String -> IO () -> IO Bool
guardOp b onShared name act = do
  me <- myThreadId
  atomicModifyIORef' (bDoing b) (\m -> (M.insert (threadKey me) name m, ()))
  t0 <- getMonotonicTime
  r <- try act
  t1 <- getMonotonicTime
  case r of
    Right () -> True <$ count (bOps b) name
    Left (e :: SomeException) -> do
      let kind = classify onShared e (t1 - t0)
      case kind of
        Right k -> count (bErrs b) (name ++ ": " ++ k)
        Left bad -> recordBad b (name ++ ": " ++ bad)
      return False

-- | Records an error the rules do not allow: the first 20 kept, the rest counted.
recordBad :: Book -> String -> IO ()
recordBad b msg = atomicModifyIORef' (bBad b) (\(n, xs) ->
  let n' = n + 1
      xs' = if n < 20 then msg : xs else xs
  in n' `seq` xs' `seq` ((n', xs'), ()))

-- | A thread's key in 'bDoing'.
threadKey :: ThreadId -> Int
threadKey t = case reads (drop (length ("ThreadId " :: String)) (show t)) of
  [(n, _)] -> n
  _ -> 0

-- | What an error is: 'Right' a name if SQLite's rules (and the test's own doing) allow it.
classify :: Bool -> SomeException -> Double -> Either String String
classify onShared e waited
  | Just Chaos <- fromException e = Right "chaos"
  | Just Timeout' <- fromException e = Right "timeout"
  | Just (se :: SQLError) <- fromException e = case sqlError se of
      ErrorInterrupt -> Right "interrupted"
      ErrorBusy | waited * 1000 >= fromIntegral busyMs * 0.95 -> Right "busy after the timeout"
                -- On the shared connection another thread's query may hold a read
                -- transaction open between its batches: a write then has to upgrade it, and
                -- SQLite answers at once (SQLITE_BUSY, or SQLITE_BUSY_SNAPSHOT when the
                -- file changed since the read began) rather than wait and risk a deadlock.
                | onShared -> Right "busy at once: another thread's read on the shared connection"
                | otherwise -> Left ("SQLITE_BUSY after " ++ show waited ++ " s: " ++ show se)
      _ -> Left (show se)
  | Just (s3 :: S3.SQLError) <- fromException e = case S3.sqlError s3 of
      S3.ErrorInterrupt -> Right "interrupted"
      _ -> Left (show s3)
  | otherwise = Left (show e)

-- | The table-valued functions each connection has: @upto(n)@, and @rowsof(w, s, n)@, the
-- rows of write (w, s) of n rows. Counts their cursors.
register :: Book -> Connection -> IO ()
register b c = do
  let counted m = m { moduleOpen = \t -> atomicModifyIORef' (bOpen b) (\n -> (n + 1, ())) >> moduleOpen m t
                    , moduleClose = \x -> atomicModifyIORef' (bClose b) (\n -> (n + 1, ())) >> moduleClose m x }
  createModule c "upto" (ModuleOptions EponymousOnly 64) $ counted $
    (newModule (\_ -> return ("CREATE TABLE x(i INTEGER, n HIDDEN)", ())) (\_ -> newIORef (0, 0))
       (\ref fa -> writeIORef ref (0, case filterArgs fa of
                                         [ArgValue (SQLInteger n)] -> n
                                         _ -> 0 :: Int64))
       (\ref w -> do
          (i, n) <- readIORef ref
          mx <- writerMax w
          let end = min n (i + fromIntegral mx)
          forM_ [i .. end - 1] $ \j -> writeInt64 w j >> endRow w
          writeIORef ref (end, n)
          return (end >= n)))
      { moduleBestIndex = Just $ \_ info -> return $
          case [ i | (i, x) <- zip [0 ..] (indexConstraints info), constraintColumn x == 1
               , constraintOp x == OpEQ, constraintUsable x ] of
            i : _ -> Just (useConstraint i True fullScan) { planEstimatedCost = 1 }
            [] -> Just fullScan }
  createTableFunction c "rowsof" ["w INTEGER", "s INTEGER", "i INTEGER", "n INTEGER"] ["pw", "ps", "pn"] $ \args ->
    return $ case args of
      [SQLInteger w, SQLInteger s, SQLInteger n] -> [(w, s, i, n) | i <- [0 .. n - 1]]
      _ -> []

openDb :: Book -> FilePath -> IO Connection
openDb b p = do
  c <- open p
  setBusyTimeout c busyMs
  register b c
  return c

-- | One worker's loop until the deadline. It starts with exceptions masked ('startWorker'),
-- and unmasks them (the function given) for each operation only.
worker :: (forall a. IO a -> IO a) -> Book -> FilePath -> Double -> Int -> Maybe Connection -> IO ()
worker unmask b p deadline w shared = do
  rng <- Rng <$> newIORef (fromIntegral (w * 7919 + 1) * 0x9e3779b97f4a7c15)
  own <- newIORef Nothing
  seqRef <- newIORef (0 :: Int)
  acks <- newAcks
  let onShared = shared /= Nothing
  let conn = case shared of
        Just c -> return c
        Nothing -> do
          m <- readIORef own
          case m of
            Just c -> return c
            Nothing -> do
              c <- openDb b p
              writeIORef own (Just c)
              return c
      dropOwn = do
        m <- readIORef own
        writeIORef own Nothing
        forM_ m close
      ack s n = setAck acks s n
      newSeq = atomicModifyIORef' seqRef (\s -> (s + 1, s + 1))
      rows s n = [(w, s, i, n) | i <- [0 .. n - 1]]
      tvfWrite c = do
        s <- newSeq
        n <- (+ 1) <$> next rng 300
        chaos <- next rng 5
        d <- next rng 3000
        ok <- guardOp b onShared "write from a table function" (limitedWrite chaos d
                (execute c "INSERT INTO log(w, s, i, n) SELECT w, s, i, n FROM rowsof(?, ?, ?)" (w, s, n)))
        when ok $ ack s n
      -- Masked but for each operation, so that the chaos exception lands in one of them (or
      -- in its handler's place) and never ends the worker.
      loop restore = do
        more <- restore (do
                  now <- getMonotonicTime
                  if now < deadline then True <$ oneOp else return False)
                `catch` \Chaos -> True <$ count (bErrs b) "chaos between operations"
        when more (loop restore)
      oneOp = do
          op <- next rng 100
          chaos <- next rng 5
          d <- next rng 3000
          let run name act = void (guardOp b onShared name (limitedWrite chaos d act))
          c <- conn
          (case () of
            _ | op < 20 -> run "point read" $ do
                  k <- next rng 2000
                  r <- query c "SELECT k, v FROM kv WHERE k = ?" (Only k) :: IO [(Int, Int64)]
                  when (map fst r /= [k]) $ throwIO (userError ("point read of " ++ show k ++ ": " ++ show r))
              | op < 30 -> run "scan left early" $ do
                  stop <- next rng 1500
                  r <- try (fold_ c "SELECT k FROM kv" (0 :: Int) (\n (Only (_ :: Int)) ->
                         if n >= stop then throwIO Enough else return (n + 1)))
                  case r of
                    Left Enough -> return ()
                    Right n -> when (n /= 2000) $ throwIO (userError ("scan saw " ++ show n))
              | op < 38 -> run "whole writes seen" $ do
                  -- another worker's last write in the file: all its rows or none
                  other <- next rng (sharedWorkers + ownWorkers)
                  r <- query c "SELECT count(*), coalesce(max(n), 0), coalesce(min(n), 0) FROM log \
                               \WHERE w = ? AND s = (SELECT max(s) FROM log WHERE w = ?)" (other, other)
                         :: IO [(Int, Int, Int)]
                  case r of
                    [(k, mx, mn)] | k == mx && mx == mn -> return ()
                    _ -> throwIO (userError ("a write seen in part: " ++ show r))
              | op < 46 -> run "Database.SQLite3 read" $ do
                  st <- S3.prepare (connectionHandle c) "SELECT count(*) FROM kv WHERE k < 100"
                  (do r <- S3.step st
                      n <- S3.columnInt64 st 0
                      when (r /= S3.Row || n /= 100) $ throwIO (userError "SQLite3 read")) `finally` S3.finalize st
              | op < 54 -> run "table function" $ do
                  n <- next rng 1000
                  r <- query c "SELECT count(*), coalesce(sum(i), 0) FROM upto(?)" (Only n) :: IO [(Int, Int)]
                  when (r /= [(n, n * (n - 1) `div` 2)]) $ throwIO (userError ("upto: " ++ show r))
              | op < 60 -> run "IN list" $ do
                  ks <- replicateM 50 (next rng 2000)
                  r <- query c "SELECT count(*) FROM kv WHERE k IN sqlbatch_rows(?)" (Only (InList ks)) :: IO [Only Int]
                  let distinct = M.size (M.fromList [(k, ()) | k <- ks])
                  when (r /= [Only distinct]) $ throwIO (userError ("IN list: " ++ show r))
              | op < 62 -> run "endless query" $ do
                  -- Only the timeout (or the chaos exception) ends it: one that were lost
                  -- would leave the worker running past the deadline (test/Cancel.hs).
                  r <- timeout 2000 (query_ c "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r" :: IO [Only Int])
                  when (r /= Nothing) $ throwIO (userError ("an endless query returned " ++ show r))
              | op < 78 && shared /= Nothing -> tvfWrite c
              | op < 78 -> do
                  -- only on a connection of its own: a transaction on the shared connection
                  -- would take in the other workers' statements
                  s <- newSeq
                  n <- (+ 1) <$> next rng 200
                  ok <- guardOp b onShared "bulk write" (limitedWrite chaos d (withImmediateTransaction c $
                          executeMany c "INSERT INTO log(w, s, i, n) VALUES (?, ?, ?, ?)" (rows s n)))
                  when ok $ ack s n
              | op < 88 -> do
                  s <- newSeq
                  ok <- guardOp b onShared "single insert" (limitedWrite chaos d
                          (execute c "INSERT INTO log(w, s, i, n) VALUES (?, ?, ?, ?)" (w, s, 0 :: Int, 1 :: Int)))
                  when ok $ ack s 1
              | op < 95 -> tvfWrite c
              | op < 99 -> run "kept statement" $ do
                  st <- openStatement c "SELECT v FROM kv WHERE k = ?"
                  (forM_ [1 .. 5 :: Int] $ \_ -> do
                     k <- next rng 2000
                     bind st (Only k)
                     r <- nextRow st :: IO (Maybe (Only Int64))
                     reset st
                     when (r == Nothing) $ throwIO (userError "kept statement: no row")) `finally` closeStatement st
              | otherwise -> when (shared == Nothing) dropOwn)
  loop unmask `finally` (dropOwn >> readIORef acks >>= \a ->
    atomicModifyIORef' (bAcked b) (\m -> (M.insert w a m, ())))
  where
    limitedWrite chaos d act = if chaos == 0 then timeout d act >>= maybe (throwIO Timeout') return else act

-- | What a timed-out operation throws (System.Timeout's exception is caught by 'timeout').
data Timeout' = Timeout'
  deriving (Show)

instance Exception Timeout'

-- | A file's size (0 when it does not exist).
fileSize :: FilePath -> IO Int
fileSize f = do
  e <- doesFileExist f
  if e then fromIntegral <$> getFileSize f else return 0

-- | The resident set size, in bytes.
rss :: IO Int
rss = do
  s <- readFile "/proc/self/statm"
  -- read to its end, which closes the file
  return $! length s `seq` case words s of
    _ : r : _ -> read r * 4096
    _ -> 0

-- | Starts a worker thread; the MVar is filled when it ends, however it ends. The thread
-- starts with exceptions masked and gets the function that unmasks them: the chaos thread
-- throws from the first moment, and an exception thrown to a thread that has not run yet
-- is raised as it starts, before any handler of its own; forked unmasked, such a worker
-- died at once and silently (no handler, its MVar never filled), and the soak waited 30 s
-- for it and then failed, naming as still running every worker it had already waited for.
startWorker :: ((forall a. IO a -> IO a) -> IO ()) -> IO (ThreadId, MVar ())
startWorker body = do
  v <- newEmptyMVar
  t <- mask_ $ forkIOWithUnmask $ \unmask -> body unmask `finally` putMVar v ()
  return (t, v)

-- | Runs the soak for @secs@ seconds; True if every check holds. Prints what it did.
soak :: Int -> IO Bool
soak secs = do
  tmp <- getTemporaryDirectory
  pid <- getProcessID
  let p = tmp ++ "/sqlbatch-hs-soak-" ++ show pid ++ ".db"
      rmAll = forM_ ["", "-wal", "-shm", "-journal"] $ \s -> void (try (removeFile (p ++ s)) :: IO (Either IOException ()))
  rmAll
  b <- Book <$> newIORef M.empty <*> newIORef M.empty <*> newIORef M.empty <*> newIORef M.empty
            <*> newIORef (0, []) <*> newIORef 0 <*> newIORef 0
  setup <- open p
  executeScript setup
    "PRAGMA journal_mode=WAL; \
    \CREATE TABLE kv(k INTEGER PRIMARY KEY, v INTEGER NOT NULL); \
    \CREATE TABLE log(w INTEGER NOT NULL, s INTEGER NOT NULL, i INTEGER NOT NULL, n INTEGER NOT NULL); \
    \CREATE INDEX log_ws ON log(w, s)"
  withTransaction setup $ executeMany setup "INSERT INTO kv VALUES (?, ?)" [(k, k * 3) | k <- [0 .. 1999 :: Int64]]
  close setup
  shared <- openDb b p
  start <- getMonotonicTime
  let deadline = start + fromIntegral secs
  samples <- newIORef []
  stopSampler <- newEmptyMVar
  _ <- forkIO $ let go = do
                      t <- getMonotonicTime
                      r <- rss
                      live <- gcdetails_live_bytes . gc <$> getRTSStats
                      wal <- fileSize (p ++ "-wal")
                      -- each sample evaluated, so that it holds no RTSStats
                      let !dt = t - start
                          !l = fromIntegral live :: Int
                          !w = wal
                      modifyIORef' samples ((dt, (r, l, w)) :)
                      stop <- timeout 250000 (readMVar stopSampler)
                      when (stop == Nothing) go
                in go
  -- A checkpointer, as a service runs one against checkpoint starvation (readers keep the
  -- automatic checkpoints from reaching the WAL's end): TRUNCATE every quarter of a second.
  checkpoints <- newIORef (0 :: Int, 0 :: Int)
  cpDone <- newEmptyMVar
  _ <- forkIO $ (bracket (open p) close $ \cp -> do
         setBusyTimeout cp 1000
         let go = do
               now <- getMonotonicTime
               when (now < deadline) $ do
                 r <- try (query_ cp "PRAGMA wal_checkpoint(TRUNCATE)" :: IO [(Int, Int, Int)]) :: IO (Either SomeException [(Int, Int, Int)])
                 modifyIORef' checkpoints (\(ok, busy) -> case r of
                   Right [(0, _, _)] -> let ok' = ok + 1 in ok' `seq` (ok', busy)
                   _ -> let busy' = busy + 1 in busy' `seq` (ok, busy'))
                 threadDelay 250000
                 go
         go) `finally` putMVar cpDone ()
  dones <- forM [0 .. sharedWorkers + ownWorkers - 1] $ \w ->
    startWorker $ \unmask -> worker unmask b p deadline w (if w < sharedWorkers then Just shared else Nothing)
      `catch` (\(e :: SomeException) -> recordBad b ("worker " ++ show w ++ " died: " ++ show e))
  -- chaos: an exception to a random worker every few ms, an interrupt of the shared
  -- connection now and then
  rng <- Rng <$> newIORef 0x2545f4914f6cdd1d
  let chaos = do
        now <- getMonotonicTime
        when (now < deadline - 0.5) $ do
          i <- next rng (length dones)
          throwTo (fst (dones !! i)) Chaos
          k <- next rng 20
          when (k == 0) $ interrupt shared
          threadDelay =<< ((+ 1000) <$> next rng 5000)
          chaos
  chaos
  -- every worker ends within 30 s of the deadline (an operation waits 5 s for a lock at most)
  finished <- timeout 30000000 (mapM_ (readMVar . snd) dones)
  when (finished == Nothing) $ do
    doing <- readIORef (bDoing b)
    stuck <- fmap concat $ forM dones $ \(t, v) -> do
      e <- isEmptyMVar v
      -- what it does, and where the runtime has it (blocked on an MVar: the lock; in a
      -- foreign call: a call that did not end)
      st <- threadStatus t
      return [ M.findWithDefault "?" (threadKey t) doing ++ " (" ++ show st ++ ")" | e ]
    putStrLn ("soak: FAILED: workers still running 30 s after the deadline, in: " ++ show stuck)
  putMVar stopSampler ()
  takeMVar cpDone
  performMajorGC
  live <- liveStatementsWith (\_ _ -> return ()) (connectionHandle shared)
  close shared
  performMajorGC
  -- the checks
  check <- open p
  ackArrays <- readIORef (bAcked b)
  ackedWrites <- fmap concat $ forM (M.toList ackArrays) $ \(w, a) -> map (\(s, n) -> ((w, s), n)) <$> acked a
  groups <- query_ check "SELECT w, s, count(*), max(n), min(n) FROM log GROUP BY w, s" :: IO [(Int, Int, Int, Int, Int)]
  let inFile = M.fromList [((w, s), (k, mx, mn)) | (w, s, k, mx, mn) <- groups]
      missing = [ (ws, n) | (ws, n) <- ackedWrites, M.lookup ws inFile /= Just (n, n, n) ]
      partial = [ g | g@(_, _, k, mx, mn) <- groups, k /= mx || mx /= mn ]
  [Only integrity] <- query_ check "PRAGMA integrity_check" :: IO [Only T.Text]
  close check
  opened <- readIORef (bOpen b)
  closed <- readIORef (bClose b)
  rs <- sortOn fst <$> readIORef samples
  let quarter q = [ r | (t, (r, _, _)) <- rs, t >= fromIntegral secs * (q - 1) / 4, t < fromIntegral secs * q / 4 ]
      third = maximum (0 : quarter 3)
      fourth = maximum (0 : quarter 4)
      mib x = show (x `div` 1048576) ++ " MiB"
      rssOk = fromIntegral fourth <= (fromIntegral third * 1.1 + 16 * 1024 * 1024 :: Double)
  ops <- readIORef (bOps b)
  errs <- readIORef (bErrs b)
  (nBad, bad) <- readIORef (bBad b)
  let total = foldl' (+) 0 (M.elems ops)
  putStrLn ("soak: " ++ show secs ++ " s, " ++ show (sharedWorkers + ownWorkers) ++ " workers ("
            ++ show sharedWorkers ++ " on one connection), " ++ show total ++ " operations, "
            ++ show (length ackedWrites) ++ " writes acknowledged, " ++ show (length groups) ++ " in the file")
  forM_ (M.toList ops) $ \(k, n) -> putStrLn ("  ok   " ++ k ++ ": " ++ show n)
  forM_ (M.toList errs) $ \(k, n) -> putStrLn ("  err  " ++ k ++ ": " ++ show n)
  (cpOk, cpBusy) <- readIORef checkpoints
  putStrLn ("  RSS max, third quarter " ++ mib third ++ ", last quarter " ++ mib fourth
            ++ "; cursors opened " ++ show opened ++ ", closed " ++ show closed
            ++ "; checkpoints " ++ show cpOk ++ " (" ++ show cpBusy ++ " not to the end)")
  forM_ [ x | (i, x) <- zip [0 :: Int ..] rs, i `mod` max 1 (length rs `div` 8) == 0 ] $ \(t, (r, heap, wal)) ->
    putStrLn ("    at " ++ show (round t :: Int) ++ " s: RSS " ++ mib r ++ ", Haskell heap live "
              ++ mib heap ++ ", WAL " ++ mib wal)
  let failures =
        [ "acknowledged writes missing or partial: " ++ show (take 10 missing) | not (null missing) ]
        ++ [ "writes in the file that are not whole: " ++ show (take 10 partial) | not (null partial) ]
        ++ [ "integrity_check: " ++ T.unpack integrity | integrity /= "ok" ]
        ++ [ "cursors opened " ++ show opened ++ ", closed " ++ show closed | opened /= closed ]
        ++ [ "statements left registered: " ++ show live | live /= 0 ]
        ++ [ "RSS grew in the second half: " ++ show third ++ " -> " ++ show fourth | not rssOk ]
        ++ [ "errors SQLite's rules do not allow: " ++ show nBad ++ ", e.g. " ++ show (take 5 (reverse bad)) | nBad > 0 ]
        ++ [ "no operation completed" | total == 0 ]
        ++ [ "workers did not finish" | finished == Nothing ]
  forM_ failures $ \f -> putStrLn ("  FAILED: " ++ f)
  rmAll
  return (null failures)
