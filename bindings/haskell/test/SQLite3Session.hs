{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of the preupdate hook, sessions and changesets, and tracing in direct-sqlite's API
-- ("Database.SQLite3", "Database.SQLite3.Direct"), with QuickCheck properties of applying
-- changesets.
module SQLite3Session (sessionTests, sessionProperties) where

import Control.Concurrent (threadDelay)
import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.Either (isLeft)
import Data.Int (Int64)
import Data.IORef
import Data.List (isInfixOf, nub, sort, sortOn)
import Data.Maybe (isJust)
import Data.Text (Text)
import qualified Data.Text as T
import System.Mem (performMajorGC)
import System.Timeout (timeout)
import Test.HUnit
import qualified Test.QuickCheck as Q
import qualified Test.QuickCheck.Monadic as QM

import Database.SQLite3
import qualified Database.SQLite3.Direct as Direct
import qualified Database.SQLite3.Internal.Extra as X

withDb :: (Database -> IO a) -> IO a
withDb = bracket (open ":memory:") (\db -> try (close db) :: IO (Either SQLError ()))

-- | The 'Error' of the SQLError an action throws.
errorOf :: IO a -> IO Error
errorOf act = do
  r <- try act
  case r of
    Left e -> return (sqlError e)
    Right _ -> assertFailure "expected an SQLError" >> return ErrorOK

rows :: Database -> Text -> IO [[SQLData]]
rows db q = bracket (prepare db q) finalize go
  where
    go st = do
      r <- step st
      case r of
        Done -> return []
        Row -> (:) <$> columns st <*> go st

noHang :: String -> IO a -> IO a
noHang what act = do
  r <- timeout 20000000 act
  maybe (assertFailure (what ++ ": hung") >> undefined) return r

-- | The user error an action throws (its text).
userErrorOf :: IO a -> IO String
userErrorOf act = do
  r <- try act
  case r of
    Left (e :: IOException) -> return (show e)
    Right _ -> assertFailure "expected an exception" >> return ""

schemaT :: Text
schemaT = "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT, c BLOB)"

-- | Two connections with the same schema (and the same rows, if any).
withPair :: Text -> ((Database, Database) -> IO a) -> IO a
withPair setup k = withDb $ \src -> withDb $ \dst -> do
  exec src setup
  exec dst setup
  k (src, dst)

-- | The changeset of what the action does to the source's tables.
recorded :: Database -> IO () -> IO B.ByteString
recorded db act = withSession db "main" $ \s -> do
  sessionAttach s Nothing
  act
  sessionChangeset s

sessionTests :: Test
sessionTests = TestList
  [ TestLabel "preupdate hook" $ TestList
    [ TestLabel "every type in the old and new rows, rowids, names" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(id INTEGER PRIMARY KEY, i, f, s, b, n)"
        evs <- newIORef []
        setPreUpdateHook db (Just (\e -> modifyIORef evs (e :)))
        exec db "INSERT INTO t VALUES (5, -7, 2.5, 'h\233llo \8364', x'0001ff', NULL)"
        exec db "UPDATE t SET id = 6, i = 9223372036854775807, s = '', b = x'' WHERE id = 5"
        exec db "DELETE FROM t"
        es <- reverse <$> readIORef evs
        let row5 = [SQLInteger 5, SQLInteger (-7), SQLFloat 2.5, SQLText "h\233llo \8364", SQLBlob (B.pack [0, 1, 255]), SQLNull]
            row6 = [SQLInteger 6, SQLInteger maxBound, SQLFloat 2.5, SQLText "", SQLBlob B.empty, SQLNull]
        map (\e -> (preUpdateOp e, preUpdateOldRowId e, preUpdateNewRowId e, preUpdateOld e, preUpdateNew e)) es
          @?= [ (ChangeInsert, 0, 5, Nothing, Just row5)
              , (ChangeUpdate, 5, 6, Just row5, Just row6)
              , (ChangeDelete, 6, 0, Just row6, Nothing) ]
        forM_ es $ \e -> do
          (preUpdateDatabase e, preUpdateTable e, preUpdateDepth e) @?= ("main", "t", 0)
          preUpdateColumnCount e @?= 6
          preUpdateBlobColumn e @?= Nothing
        -- Removed: nothing more.
        setPreUpdateHook db Nothing
        writeIORef evs []
        exec db "INSERT INTO t(id) VALUES (1)"
        readIORef evs >>= (@?= [])
    , TestLabel "flags choose the rows; WITHOUT ROWID tables and temp are seen" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID; CREATE TEMP TABLE tt(x)"
        evs <- newIORef []
        let hook flags = setPreUpdateHookWith db flags (Just (\e -> modifyIORef evs (e :)))
            runAll = do
              writeIORef evs []
              exec db "INSERT INTO w VALUES ('a', 1); UPDATE w SET v = 2; DELETE FROM w"
              reverse <$> readIORef evs
        hook []
        es0 <- runAll
        map (\e -> (preUpdateOp e, preUpdateOld e, preUpdateNew e, preUpdateColumnCount e)) es0
          @?= [(ChangeInsert, Nothing, Nothing, 2), (ChangeUpdate, Nothing, Nothing, 2), (ChangeDelete, Nothing, Nothing, 2)]
        hook [PreUpdateOld]
        es1 <- runAll
        map (\e -> (preUpdateOld e, preUpdateNew e)) es1
          @?= [(Nothing, Nothing), (Just [SQLText "a", SQLInteger 1], Nothing), (Just [SQLText "a", SQLInteger 2], Nothing)]
        hook [PreUpdateNew]
        es2 <- runAll
        map (\e -> (preUpdateOld e, preUpdateNew e)) es2
          @?= [(Nothing, Just [SQLText "a", SQLInteger 1]), (Nothing, Just [SQLText "a", SQLInteger 2]), (Nothing, Nothing)]
        writeIORef evs []
        exec db "INSERT INTO tt VALUES (3)"
        es3 <- readIORef evs
        map (\e -> (preUpdateDatabase e, preUpdateTable e, preUpdateNew e)) es3 @?= [("temp", "tt", Just [SQLInteger 3])]
    , TestLabel "depth in triggers" $ TestCase $ withDb $ \db -> do
        exec db $ T.unlines
          [ "CREATE TABLE t(x); CREATE TABLE l1(y); CREATE TABLE l2(z);"
          , "CREATE TRIGGER t1 AFTER INSERT ON t BEGIN INSERT INTO l1 VALUES (new.x * 10); END;"
          , "CREATE TRIGGER t2 BEFORE INSERT ON l1 BEGIN INSERT INTO l2 VALUES (new.y + 1); END;" ]
        evs <- newIORef []
        setPreUpdateHook db (Just (\e -> modifyIORef evs ((preUpdateTable e, preUpdateDepth e, preUpdateNew e) :)))
        exec db "INSERT INTO t VALUES (4)"
        es <- reverse <$> readIORef evs
        sortOn (\(_, d, _) -> d) es @?= [("t", 0, Just [SQLInteger 4]), ("l1", 1, Just [SQLInteger 40]), ("l2", 2, Just [SQLInteger 41])]
    , TestLabel "a write through a blob handle: the column written" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(a, b BLOB); INSERT INTO t VALUES (1, zeroblob(8))"
        evs <- newIORef []
        setPreUpdateHook db (Just (\e -> modifyIORef evs (e :)))
        withBlob db "main" "t" "b" 1 True $ \b -> blobWrite b "abc" 2
        es <- readIORef evs
        map (\e -> (preUpdateOp e, preUpdateBlobColumn e, preUpdateOldRowId e, preUpdateTable e)) es
          @?= [(ChangeDelete, Just 1, 1, "t")]
    , TestLabel "an exception is kept; the change stands; using the connection: HookReentry" $ TestCase $ withDb $ \db -> do
        exec db "CREATE TABLE t(x)"
        setPreUpdateHook db (Just (\_ -> throwIO (userError "preupdate boom")))
        exec db "INSERT INTO t VALUES (1)"
        rows db "SELECT x FROM t" >>= (@?= [[SQLInteger 1]])
        Just e <- takeHookException db
        assertBool (show e) ("preupdate boom" `isInfixOf` show e)
        setPreUpdateHook db (Just (\_ -> void (rows db "SELECT 1")))
        noHang "preupdate reentry" (exec db "INSERT INTO t VALUES (2)")
        Just e' <- takeHookException db
        fromException e' @?= Just HookReentry
        setPreUpdateHook db Nothing
        rows db "SELECT count(*) FROM t" >>= (@?= [[SQLInteger 2]])
    , TestLabel "sessions and the preupdate hook exclude each other" $ TestCase $ withDb $ \db -> do
        n0 <- X.liveHookCount
        exec db schemaT
        s <- sessionCreate db "main"
        errorOf (setPreUpdateHook db (Just (\_ -> return ()))) >>= (@?= ErrorMisuse)
        X.liveHookCount >>= (@?= n0)   -- the refused registration was released
        s2 <- sessionCreate db ""      -- many sessions are fine
        sessionDelete s
        errorOf (setPreUpdateHook db (Just (\_ -> return ()))) >>= (@?= ErrorMisuse)
        sessionDelete s2
        setPreUpdateHook db (Just (\_ -> return ()))
        errorOf (sessionCreate db "main") >>= (@?= ErrorMisuse)
        setPreUpdateHook db Nothing
        withSession db "main" $ \_ -> return ()
        X.liveHookCount >>= (@?= n0)
    ]
  , TestLabel "sessions" $ TestList
    [ TestLabel "record, changeset, apply elsewhere: the same rows (every type)" $ TestCase $
        withPair schemaT $ \(src, dst) -> do
          let ins = "INSERT INTO t VALUES (1, -7, 'x', x'00'), (2, 2.5, 'h\233llo', NULL), (3, NULL, '', x''), (4, 9, 'gone', NULL)"
          exec src ins
          exec dst ins
          cs <- recorded src $ exec src $ T.unlines
            [ "INSERT INTO t VALUES (5, 1e300, 'new \8364', x'ff00ff');"
            , "UPDATE t SET a = 'now text', c = x'0102' WHERE id = 1;"
            , "UPDATE t SET b = NULL WHERE id = 3;"
            , "DELETE FROM t WHERE id = 4;" ]
          assertBool "a changeset" (not (B.null cs))
          applyChangeset dst cs defaultApplyOptions
          want <- rows src "SELECT * FROM t ORDER BY id"
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= want)
          length want @?= 4
    , TestLabel "patchset: smaller, applies the same; cannot be inverted" $ TestCase $
        withPair (schemaT <> "; INSERT INTO t VALUES (1, 'a long value to leave out', 'b', NULL)") $ \(src, dst) -> do
          (cs, ps) <- withSession src "main" $ \s -> do
            sessionAttach s (Just "t")
            exec src "UPDATE t SET b = 'c' WHERE id = 1; INSERT INTO t VALUES (2, 1, 2, 3)"
            (,) <$> sessionChangeset s <*> sessionPatchset s
          assertBool "smaller" (B.length ps < B.length cs)
          applyChangeset dst ps defaultApplyOptions
          want <- rows src "SELECT * FROM t ORDER BY id"
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= want)
          either sqlError (const ErrorOK) (invertChangeset ps) @?= ErrorCorrupt
          either sqlError (const ErrorOK) (concatChangesets cs ps) @?= ErrorError
    , TestLabel "invert undoes; ApplyInvert does the same" $ TestCase $
        withPair (schemaT <> "; INSERT INTO t VALUES (1, 1, 'one', NULL), (2, 2, 'two', NULL)") $ \(src, dst) -> do
          before <- rows dst "SELECT * FROM t ORDER BY id"
          cs <- recorded src $ exec src "UPDATE t SET a = 10; DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (3, 3, 'three', x'33')"
          applyChangeset dst cs defaultApplyOptions
          after <- rows dst "SELECT * FROM t ORDER BY id"
          after @?= [[SQLInteger 1, SQLInteger 10, SQLText "one", SQLNull], [SQLInteger 3, SQLInteger 3, SQLText "three", SQLBlob "3"]]
          Right inv <- return (invertChangeset cs)
          applyChangeset dst inv defaultApplyOptions
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before)
          applyChangeset dst cs defaultApplyOptions
          applyChangeset dst cs defaultApplyOptions { applyFlags = [ApplyInvert] }
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before)
          invertChangeset B.empty @?= Right B.empty
    , TestLabel "concat: one changeset doing both" $ TestCase $
        withPair schemaT $ \(src, dst) -> do
          c1 <- recorded src $ exec src "INSERT INTO t VALUES (1, 1, 'a', NULL), (2, 2, 'b', NULL)"
          c2 <- recorded src $ exec src "UPDATE t SET a = 5 WHERE id = 1; DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (3, 3, 'c', NULL)"
          Right c12 <- return (concatChangesets c1 c2)
          applyChangeset dst c12 defaultApplyOptions
          want <- rows src "SELECT * FROM t ORDER BY id"
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= want)
          concatChangesets B.empty c1 @?= Right c1
    , TestLabel "enable, is-empty, indirect, diff" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        withSession db "main" $ \s -> do
          sessionAttach s (Just "t")
          sessionIsEmpty s >>= (@?= True)
          sessionEnable s False
          exec db "INSERT INTO t VALUES (1, 1, 'off', NULL)"
          sessionIsEmpty s >>= (@?= True)
          sessionEnable s True
          sessionSetIndirect s True
          exec db "INSERT INTO t VALUES (2, 2, 'on', NULL)"
          sessionIsEmpty s >>= (@?= False)
          cs <- sessionChangeset s
          -- Applied where row 2 exists: a CONFLICT, marked indirect.
          seen <- newIORef []
          withDb $ \other -> do
            exec other (schemaT <> "; INSERT INTO t VALUES (2, 0, 'x', NULL)")
            applyChangeset other cs defaultApplyOptions
              { applyOnConflict = Just (\c -> modifyIORef seen (c :) >> return ConflictOmit) }
          map (\c -> (conflictKind c, conflictIndirect c)) <$> readIORef seen >>= (@?= [(ConflictConflict, True)])
        -- diff: the changes that make aux.t (the "from" table) equal to main.t. Applied to
        -- another connection holding aux.t's rows, they give main.t's.
        exec db "ATTACH ':memory:' AS aux"
        let auxRows = "INSERT INTO t VALUES (1, 1, 'off', NULL), (7, 7, 'seven', x'07')"
        exec db ("CREATE TABLE aux.t(id INTEGER PRIMARY KEY, a, b TEXT, c BLOB); " <> T.replace "INTO t" "INTO aux.t" auxRows)
        cs <- withSession db "main" $ \s -> sessionDiff s "aux" "t" >> sessionChangeset s
        want <- rows db "SELECT * FROM main.t ORDER BY id"
        length want @?= 2
        withDb $ \other -> do
          exec other (schemaT <> "; " <> auxRows)
          applyChangeset other cs defaultApplyOptions
          rows other "SELECT * FROM t ORDER BY id" >>= (@?= want)
        exec db "CREATE TABLE aux.u(x PRIMARY KEY); CREATE TABLE u(x PRIMARY KEY, y)"
        withSession db "main" $ \s -> errorOf (sessionDiff s "aux" "u") >>= (@?= ErrorSchema)
    , TestLabel "close with a live session, then delete (twice); a deleted session refuses" $ TestCase $ do
        db <- open ":memory:"
        exec db schemaT
        s <- sessionCreate db "main"
        sessionAttach s Nothing
        exec db "INSERT INTO t VALUES (1, 1, 'a', NULL)"
        close db
        errorOf (sessionChangeset s) >>= (@?= ErrorMisuse)
        errorOf (sessionAttach s Nothing) >>= (@?= ErrorMisuse)
        sessionDelete s
        sessionDelete s
        db2 <- open ":memory:"
        s2 <- sessionCreate db2 "main"
        sessionDelete s2
        errorOf (sessionIsEmpty s2) >>= (@?= ErrorMisuse)
        errorOf (sessionCreate db "main") >>= (@?= ErrorMisuse)   -- closed connection
        close db2
    , TestLabel "a session nobody references is deleted by the GC" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        _ <- sessionCreate db "main"
        let loop :: Int -> IO ()
            loop k = do
              performMajorGC
              threadDelay 10000
              r <- try (setPreUpdateHook db (Just (\_ -> return ())))
              case r of
                Right () -> return ()
                Left (e :: SQLError)
                  | k > 0 -> loop (k - 1)
                  | otherwise -> assertFailure ("session still alive: " ++ show e)
        loop 200
        setPreUpdateHook db Nothing
    , TestLabel "a session from a hook: HookReentry" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        s <- sessionCreate db "main"
        setCommitHook db (Just (sessionAttach s Nothing >> return False))
        noHang "session call in a hook" (errorOf (exec db "INSERT INTO t VALUES (1, 1, 'a', NULL)")) >>= (@?= ErrorConstraint)
        Just e <- takeHookException db
        fromException e @?= Just HookReentry
        setCommitHook db Nothing
        sessionDelete s
    ]
  , TestLabel "applying" $ TestList
    [ TestLabel "each conflict kind reaches the handler with its rows" $ TestCase $ do
        let setup = "PRAGMA foreign_keys = ON; CREATE TABLE p(id INTEGER PRIMARY KEY);"
              <> "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT UNIQUE, c, pid REFERENCES p(id));"
              <> "INSERT INTO p VALUES (1), (2);"
              <> "INSERT INTO t VALUES (1, 'one', 'b1', 10, 1), (2, 'two', 'b2', 20, 1), (3, 'three', 'b3', 30, 1)"
        withPair setup $ \(src, dst) -> do
          cs <- recorded src $ exec src $ T.unlines
            [ "UPDATE t SET a = 'ONE' WHERE id = 1;"       -- DATA: dst changed row 1's a
            , "UPDATE t SET c = 21 WHERE id = 2;"          -- NOTFOUND: dst deleted row 2
            , "INSERT INTO t VALUES (4, 'four', 'b4', 40, 1);"  -- CONFLICT: dst has a row 4
            , "INSERT INTO t VALUES (5, 'five', 'b5', 50, 1);"  -- CONSTRAINT: dst has b5 elsewhere
            , "UPDATE t SET pid = 2 WHERE id = 3;" ]       -- FOREIGN_KEY: dst has no parent 2
          exec dst "UPDATE t SET a = 'uno' WHERE id = 1; DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (4, 'cuatro', 'x4', 0, 1), (6, 'six', 'b5', 60, 1); DELETE FROM p WHERE id = 2"
          seen <- newIORef []
          applyChangeset dst cs defaultApplyOptions
            { applyOnConflict = Just (\c -> modifyIORef seen (c :) >> return ConflictOmit) }
          cs' <- reverse <$> readIORef seen
          let byKind k = [c | c <- cs', conflictKind c == k]
          sort (map conflictKind cs') @?= [ConflictData, ConflictNotFound, ConflictConflict, ConflictConstraint, ConflictForeignKey]
          [d] <- return $ byKind ConflictData
          (conflictOp d, conflictTable d, conflictIndirect d) @?= (Just ChangeUpdate, Just "t", False)
          -- The UPDATE carries the key, the old value of what it changes, nothing else.
          conflictOld d @?= Just [Just (SQLInteger 1), Just (SQLText "one"), Nothing, Nothing, Nothing]
          conflictNew d @?= Just [Nothing, Just (SQLText "ONE"), Nothing, Nothing, Nothing]
          conflictCurrent d @?= Just [SQLInteger 1, SQLText "uno", SQLText "b1", SQLInteger 10, SQLInteger 1]
          [nf] <- return $ byKind ConflictNotFound
          conflictOld nf @?= Just [Just (SQLInteger 2), Nothing, Nothing, Just (SQLInteger 20), Nothing]
          conflictCurrent nf @?= Nothing
          [cf] <- return $ byKind ConflictConflict
          (conflictOp cf, conflictOld cf) @?= (Just ChangeInsert, Nothing)
          conflictNew cf @?= Just (map Just [SQLInteger 4, SQLText "four", SQLText "b4", SQLInteger 40, SQLInteger 1])
          conflictCurrent cf @?= Just [SQLInteger 4, SQLText "cuatro", SQLText "x4", SQLInteger 0, SQLInteger 1]
          [ct] <- return $ byKind ConflictConstraint
          (conflictOp ct, conflictCurrent ct) @?= (Just ChangeInsert, Nothing)
          [fk] <- return $ byKind ConflictForeignKey
          (conflictOp fk, conflictTable fk, conflictFkViolations fk) @?= (Nothing, Nothing, 1)
          -- OMIT for the foreign key conflict commits despite it: the update of row 3 stands.
          rows dst "SELECT id, a, pid FROM t ORDER BY id"
            >>= (@?= [ [SQLInteger 1, SQLText "uno", SQLInteger 1], [SQLInteger 3, SQLText "three", SQLInteger 2]
                     , [SQLInteger 4, SQLText "cuatro", SQLInteger 1], [SQLInteger 6, SQLText "six", SQLInteger 1] ])
    , TestLabel "policies: abort (the default) rolls back, omit skips, replace overwrites" $ TestCase $
        withPair (schemaT <> "; INSERT INTO t VALUES (1, 1, 'a', NULL)") $ \(src, dst) -> do
          cs <- recorded src $ exec src "INSERT INTO t VALUES (2, 2, 'new', NULL); UPDATE t SET a = 100 WHERE id = 1; INSERT INTO t VALUES (3, 3, 'c', NULL)"
          exec dst "UPDATE t SET a = 50 WHERE id = 1"
          before <- rows dst "SELECT * FROM t ORDER BY id"
          errorOf (applyChangeset dst cs defaultApplyOptions) >>= (@?= ErrorAbort)
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before)
          -- A handler that aborts at the second conflict: the first's choice is undone too.
          exec dst "INSERT INTO t VALUES (3, 0, 'taken', NULL)"
          before' <- rows dst "SELECT * FROM t ORDER BY id"
          n <- newIORef (0 :: Int)
          errorOf (applyChangeset dst cs defaultApplyOptions
            { applyOnConflict = Just (\_ -> do
                modifyIORef n (+ 1)
                k <- readIORef n
                return (if k == 1 then ConflictReplace else ConflictAbort)) }) >>= (@?= ErrorAbort)
          readIORef n >>= (@?= 2)
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before')
          exec dst "DELETE FROM t WHERE id = 3"
          applyChangeset dst cs defaultApplyOptions { applyPolicy = ConflictOmit }
          rows dst "SELECT id, a FROM t ORDER BY id"
            >>= (@?= [[SQLInteger 1, SQLInteger 50], [SQLInteger 2, SQLInteger 2], [SQLInteger 3, SQLInteger 3]])
          exec dst "DELETE FROM t WHERE id > 1"
          applyChangeset dst cs defaultApplyOptions { applyPolicy = ConflictReplace }
          rows dst "SELECT id, a FROM t ORDER BY id"
            >>= (@?= [[SQLInteger 1, SQLInteger 100], [SQLInteger 2, SQLInteger 2], [SQLInteger 3, SQLInteger 3]])
          -- REPLACE answered to a NOTFOUND conflict is SQLite's misuse.
          exec dst "DELETE FROM t WHERE id = 1"
          cs2 <- recorded src (exec src "UPDATE t SET a = 7 WHERE id = 1")
          errorOf (applyChangeset dst cs2 defaultApplyOptions { applyOnConflict = Just (\_ -> return ConflictReplace) })
            >>= (@?= ErrorMisuse)
    , TestLabel "ApplyNoSavepoint: an abort keeps what was applied before it" $ TestCase $
        withPair "CREATE TABLE a(k PRIMARY KEY, v); CREATE TABLE b(k PRIMARY KEY, v)" $ \(src, dst) -> do
          -- Tables come in the order of their first change.
          cs <- recorded src $ exec src "INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (2, 2)"
          exec dst "INSERT INTO b VALUES (2, 0)"
          errorOf (applyChangeset dst cs defaultApplyOptions) >>= (@?= ErrorAbort)
          rows dst "SELECT k FROM a" >>= (@?= [])
          errorOf (applyChangeset dst cs defaultApplyOptions { applyFlags = [ApplyNoSavepoint] }) >>= (@?= ErrorAbort)
          rows dst "SELECT k FROM a" >>= (@?= [[SQLInteger 1]])
          -- An exception in the handler, likewise.
          exec dst "DELETE FROM a"
          _ <- userErrorOf (applyChangeset dst cs defaultApplyOptions
                 { applyFlags = [ApplyNoSavepoint], applyOnConflict = Just (\_ -> throwIO (userError "x")) })
          rows dst "SELECT k FROM a" >>= (@?= [[SQLInteger 1]])
    , TestLabel "filter: only the tables it accepts" $ TestCase $
        withPair "CREATE TABLE a(k PRIMARY KEY, v); CREATE TABLE b(k PRIMARY KEY, v); CREATE TABLE c(k PRIMARY KEY, v)" $ \(src, dst) -> do
          cs <- recorded src $ exec src "INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (2, 2); INSERT INTO c VALUES (3, 3)"
          asked <- newIORef []
          applyChangeset dst cs defaultApplyOptions
            { applyFilter = Just (\t -> modifyIORef asked (t :) >> return (t /= "b")) }
          sort <$> readIORef asked >>= (@?= ["a", "b", "c"])
          rows dst "SELECT k FROM a UNION ALL SELECT k FROM b UNION ALL SELECT k FROM c"
            >>= (@?= [[SQLInteger 1], [SQLInteger 3]])
    , TestLabel "exceptions in the handler or the filter: rethrown, nothing applied" $ TestCase $
        withPair (schemaT <> "; INSERT INTO t VALUES (1, 1, 'a', NULL)") $ \(src, dst) -> do
          cs <- recorded src $ exec src "INSERT INTO t VALUES (2, 2, 'b', NULL); UPDATE t SET a = 9 WHERE id = 1; INSERT INTO t VALUES (3, 3, 'c', NULL)"
          exec dst "UPDATE t SET a = 5 WHERE id = 1"
          before <- rows dst "SELECT * FROM t ORDER BY id"
          m <- userErrorOf (applyChangeset dst cs defaultApplyOptions
                 { applyOnConflict = Just (\_ -> throwIO (userError "handler boom")) })
          assertBool m ("handler boom" `isInfixOf` m)
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before)
          m2 <- userErrorOf (applyChangeset dst cs defaultApplyOptions
                  { applyFilter = Just (\_ -> throwIO (userError "filter boom")), applyPolicy = ConflictOmit })
          assertBool m2 ("filter boom" `isInfixOf` m2)
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before)
          -- A filter that throws for the second table: the first table's changes are undone.
          withPair "CREATE TABLE a(k PRIMARY KEY); CREATE TABLE b(k PRIMARY KEY)" $ \(s2, d2) -> do
            c2 <- recorded s2 $ exec s2 "INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)"
            calls <- newIORef (0 :: Int)
            m3 <- userErrorOf (applyChangeset d2 c2 defaultApplyOptions
                    { applyFilter = Just (\_ -> do
                        modifyIORef calls (+ 1)
                        k <- readIORef calls
                        when (k == 2) (throwIO (userError "second table"))
                        return True) })
            assertBool m3 ("second table" `isInfixOf` m3)
            rows d2 "SELECT k FROM a UNION ALL SELECT k FROM b" >>= (@?= [])
            getAutoCommit' d2 >>= (@?= True)
          -- A handler using the connection: HookReentry, no hang.
          r <- noHang "handler reentry" $ try (applyChangeset dst cs defaultApplyOptions
                 { applyOnConflict = Just (\_ -> rows dst "SELECT 1" >> return ConflictOmit) })
          r @?= Left HookReentry
          rows dst "SELECT * FROM t ORDER BY id" >>= (@?= before)
          -- The connection stays usable, and the exceptions were not kept as hook exceptions.
          takeHookException dst >>= assertBool "nothing kept" . not . isJust
          applyChangeset dst cs defaultApplyOptions { applyPolicy = ConflictReplace }
          rows dst "SELECT id, a FROM t ORDER BY id"
            >>= (@?= [[SQLInteger 1, SQLInteger 9], [SQLInteger 2, SQLInteger 2], [SQLInteger 3, SQLInteger 3]])
    , TestLabel "bytes that are not a changeset: ErrorCorrupt, never a crash" $ TestCase $
        withPair schemaT $ \(src, dst) -> do
          cs <- recorded src $ exec src "INSERT INTO t VALUES (1, 1, 'a', x'00'), (2, 2.5, 'b', NULL); UPDATE t SET b = 'z'"
          errorOf (applyChangeset dst "not a changeset" defaultApplyOptions) >>= (@?= ErrorCorrupt)
          applyChangeset dst B.empty defaultApplyOptions
          -- Random damage: each either fails cleanly or applies.
          g <- Q.generate (Q.vectorOf 80 ((,) <$> Q.choose (0, B.length cs - 1) <*> Q.choose (1, 255 :: Int)))
          forM_ (zip [0 :: Int ..] g) $ \(i, (at, x)) -> do
            let dmg = B.concat [B.take at cs, B.singleton (fromIntegral (fromIntegral (B.index cs at) + x)), B.drop (at + 1) cs]
                img = if even i then dmg else B.take (at + 1) dmg
            _ <- try (applyChangeset dst img defaultApplyOptions { applyPolicy = ConflictOmit }) :: IO (Either SQLError ())
            _ <- evaluate (isLeft (invertChangeset img))
            _ <- evaluate (isLeft (concatChangesets img cs))
            return ()
          exec dst "DELETE FROM t"
          applyChangeset dst cs defaultApplyOptions
          rows dst "SELECT count(*) FROM t" >>= (@?= [[SQLInteger 2]])
    , TestLabel "Direct layer: errors returned, names as Utf8" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        Right s <- Direct.sessionCreate db (Direct.Utf8 "main")
        Direct.sessionAttach s (Just (Direct.Utf8 "t")) >>= (@?= Right ())
        exec db "INSERT INTO t VALUES (1, 1, 'a', NULL)"
        Right cs <- Direct.sessionChangeset s
        Direct.sessionDelete s >>= (@?= Right ())
        Direct.sessionChangeset s >>= (@?= Left ErrorMisuse) . fmap (const ())
        Direct.applyChangeset db cs Direct.defaultApplyOptions >>= (@?= Left ErrorAbort)
        case Direct.invertChangeset "junk" of
          Left (e, Direct.Utf8 m) -> (e, B.null m) @?= (ErrorCorrupt, False)
          Right _ -> assertFailure "junk inverted"
    ]
  , TestLabel "reading changesets" $ TestList
    [ TestLabel "every change with its table, op, key, old and new rows (every type)" $ TestCase $ withDb $ \db -> do
        exec db (schemaT <> "; CREATE TABLE u(x TEXT, y INTEGER, z, PRIMARY KEY (y, x))")
        exec db "INSERT INTO t VALUES (1, -7, 'x', x'00'), (2, 2.5, 'h\233llo', NULL), (3, 0, 'three', NULL)"
        cs <- withSession db "main" $ \s -> do
          sessionAttach s Nothing
          exec db $ T.unlines
            [ "INSERT INTO t VALUES (5, 1e300, 'new \8364', x'ff00ff');"
            , "UPDATE t SET a = 'now text', c = x'0102' WHERE id = 1;"
            , "DELETE FROM t WHERE id = 2;" ]
          sessionSetIndirect s True
          exec db "INSERT INTO u VALUES ('k', 7, NULL); UPDATE t SET b = 'III' WHERE id = 3"
          sessionChangeset s
        Right cc <- return (changesetChanges [] cs)
        let pkT = [True, False, False, False]
            byKey = sortOn (\c -> (ccTable c, show (ccOld c, ccNew c)))
        byKey cc @?= byKey
          [ ChangesetChange "t" ChangeInsert False pkT Nothing
              (Just [Just (SQLInteger 5), Just (SQLFloat 1e300), Just (SQLText "new \8364"), Just (SQLBlob "\255\0\255")])
          , ChangesetChange "t" ChangeUpdate False pkT
              (Just [Just (SQLInteger 1), Just (SQLInteger (-7)), Nothing, Just (SQLBlob "\0")])
              (Just [Nothing, Just (SQLText "now text"), Nothing, Just (SQLBlob "\1\2")])
          , ChangesetChange "t" ChangeDelete False pkT
              (Just [Just (SQLInteger 2), Just (SQLFloat 2.5), Just (SQLText "h\233llo"), Just SQLNull]) Nothing
          -- Changed after the indirect mark only: indirect.
          , ChangesetChange "t" ChangeUpdate True pkT
              (Just [Just (SQLInteger 3), Nothing, Just (SQLText "three"), Nothing])
              (Just [Nothing, Nothing, Just (SQLText "III"), Nothing])
          , ChangesetChange "u" ChangeInsert True [True, True, False] Nothing
              (Just [Just (SQLText "k"), Just (SQLInteger 7), Just SQLNull]) ]
        -- The fold sees the same changes in the same order.
        foldChangeset [] cs [] (\acc c -> return (c : acc)) >>= (@?= cc) . reverse
        changesetChanges [] B.empty @?= Right []
    , TestLabel "a patchset's DELETE carries the key only, its UPDATE the key and the new values" $ TestCase $ withDb $ \db -> do
        exec db (schemaT <> "; INSERT INTO t VALUES (1, 1, 'one', x'01'), (2, 2, 'two', NULL)")
        ps <- withSession db "main" $ \s -> do
          sessionAttach s (Just "t")
          exec db "DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (3, 3, 'three', NULL); UPDATE t SET b = 'uno' WHERE id = 1"
          sessionPatchset s
        Right cc <- return (changesetChanges [] ps)
        sortOn (show . ccOp) cc @?=
          [ ChangesetChange "t" ChangeDelete False [True, False, False, False]
              (Just [Just (SQLInteger 2), Nothing, Nothing, Nothing]) Nothing
          , ChangesetChange "t" ChangeInsert False [True, False, False, False] Nothing
              (Just [Just (SQLInteger 3), Just (SQLInteger 3), Just (SQLText "three"), Just SQLNull])
          -- An UPDATE: the key in the old row, the changed columns in the new.
          , ChangesetChange "t" ChangeUpdate False [True, False, False, False]
              (Just [Just (SQLInteger 1), Nothing, Nothing, Nothing])
              (Just [Nothing, Nothing, Just (SQLText "uno"), Nothing]) ]
        -- A patchset cannot be read inverted.
        either sqlError (const ErrorOK) (changesetChanges [ChangesetReadInvert] ps) @?= ErrorCorrupt
    , TestLabel "inverted: the changes of invertChangeset, without building it" $ TestCase $ withDb $ \db -> do
        exec db (schemaT <> "; INSERT INTO t VALUES (1, 1, 'one', NULL), (2, 2, 'two', NULL)")
        cs <- recorded db $ exec db "UPDATE t SET a = 10 WHERE id = 1; DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (3, 3, 'three', x'33')"
        Right inv <- return (invertChangeset cs)
        Right ci <- return (changesetChanges [ChangesetReadInvert] cs)
        changesetChanges [] inv @?= Right ci
        let pkT = [True, False, False, False]
        sortOn (show . ccOp) ci @?=
          [ ChangesetChange "t" ChangeDelete False pkT
              (Just [Just (SQLInteger 3), Just (SQLInteger 3), Just (SQLText "three"), Just (SQLBlob "3")]) Nothing
          , ChangesetChange "t" ChangeInsert False pkT Nothing
              (Just [Just (SQLInteger 2), Just (SQLInteger 2), Just (SQLText "two"), Just SQLNull])
          -- Old and new swapped; the key stays in the old row.
          , ChangesetChange "t" ChangeUpdate False pkT
              (Just [Just (SQLInteger 1), Just (SQLInteger 10), Nothing, Nothing])
              (Just [Nothing, Just (SQLInteger 1), Nothing, Nothing]) ]
    , TestLabel "many batches: 700 rows and 3 MiB of values read in order, each exactly" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        cs <- recorded db $ do
          exec db "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700) INSERT INTO t SELECT i, i * 2, 'row ' || i, NULL FROM n"
          exec db "WITH RECURSIVE n(i) AS (SELECT 701 UNION ALL SELECT i + 1 FROM n WHERE i < 730) INSERT INTO t SELECT i, NULL, NULL, zeroblob(100000) FROM n"
        n <- foldChangeset [] cs (0 :: Int) $ \k c -> do
          case ccNew c of
            Just [Just (SQLInteger i), a, b, d]
              | i <= 700 -> (a, b, d) @?= (Just (SQLInteger (2 * i)), Just (SQLText ("row " <> T.pack (show i))), Just SQLNull)
              | otherwise -> d @?= Just (SQLBlob (B.replicate 100000 0))
            other -> assertFailure ("unexpected row " ++ show other)
          return (k + 1)
        n @?= 730
    , TestLabel "corrupt or truncated bytes: ErrorCorrupt after the changes before the damage, never a crash" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        cs <- recorded db $ exec db "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO t SELECT i, i, 'text ' || i, x'0102' FROM n"
        Right full <- return (changesetChanges [] cs)
        either sqlError (const ErrorOK) (changesetChanges [] "not a changeset") @?= ErrorCorrupt
        Left (ErrorCorrupt, _) <- return (Direct.changesetChanges [] "not a changeset")
        -- Cut in the middle: the fold sees a prefix of the changes, then the error.
        seen <- newIORef []
        e <- errorOf $ foldChangeset [] (B.take (B.length cs `div` 2) cs) () $ \() c -> modifyIORef seen (c :)
        e @?= ErrorCorrupt
        got <- reverse <$> readIORef seen
        assertBool "some changes before the cut" (length got > 10 && length got < 50)
        got @?= take (length got) full
        Direct.foldChangeset [] (B.take (B.length cs - 3) cs) (0 :: Int) (\k _ -> return (k + 1))
          >>= (@?= Just ErrorCorrupt) . either (Just . fst) (const Nothing)
        -- Random damage: each read fails cleanly or gives changes.
        g <- Q.generate (Q.vectorOf 200 ((,) <$> Q.choose (0, B.length cs - 1) <*> Q.choose (1, 255 :: Int)))
        forM_ (zip [0 :: Int ..] g) $ \(i, (at, x)) -> do
          let dmg = B.concat [B.take at cs, B.singleton (fromIntegral (fromIntegral (B.index cs at) + x)), B.drop (at + 1) cs]
              img = if even i then dmg else B.take (at + 1) dmg
          _ <- evaluate (either (const 0) length (changesetChanges [] img))
          _ <- evaluate (either (const 0) length (changesetChanges [ChangesetReadInvert] img))
          return ()
    , TestLabel "an exception in the step stops the read and is rethrown" $ TestCase $ withDb $ \db -> do
        exec db schemaT
        cs <- recorded db $ exec db "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO t SELECT i, i, NULL, NULL FROM n"
        forM_ [3, 300] $ \stopAt -> do
          count <- newIORef (0 :: Int)
          msg <- userErrorOf $ foldChangeset [] cs () $ \() _ -> do
            k <- atomicModifyIORef' count (\k -> (k + 1, k + 1))
            when (k == stopAt) $ throwIO (userError "step failed")
          assertBool msg ("step failed" `isInfixOf` msg)
          readIORef count >>= (@?= stopAt)
        -- A step returning an undefined accumulator counts as throwing.
        r <- try (foldChangeset [] cs (0 :: Int) (\_ _ -> return (error "lazy bomb")))
        case r of
          Left (ErrorCall m) -> m @?= "lazy bomb"
          Right _ -> assertFailure "no exception"
        -- Direct: rethrown too, not returned.
        msg <- userErrorOf $ Direct.foldChangeset [] cs () (\() _ -> throwIO (userError "direct step"))
        assertBool msg ("direct step" `isInfixOf` msg)
    ]
  , TestLabel "tracing" $ TestList
    [ TestLabel "setTrace: each statement as it starts, expanded; Nothing stops it" $ TestCase $ withDb $ \db -> do
        logged <- newIORef []
        setTrace db (Just (\t -> modifyIORef logged (t :)))
        exec db "CREATE TABLE t(x, y)"
        exec db "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END"
        bracket (prepare db "INSERT INTO t VALUES (?, ?)") finalize $ \st -> do
          bindSQLData st 1 (SQLInteger 42)
          bindSQLData st 2 (SQLText "it's")
          Done <- step st
          return ()
        ls <- reverse <$> readIORef logged
        assertBool (show ls) ("CREATE TABLE t(x, y)" `elem` ls)
        assertBool (show ls) ("INSERT INTO t VALUES (42, 'it''s')" `elem` ls)
        assertBool (show ls) ("-- TRIGGER tr" `elem` ls)
        setTrace db Nothing
        writeIORef logged []
        exec db "SELECT 1"
        readIORef logged >>= (@?= [])
        -- Direct's form: UTF-8 bytes, direct-sqlite's IO ().
        lu <- newIORef []
        Direct.setTrace db (Just (\u -> modifyIORef lu (u :)))
        exec db "SELECT 'x'"
        readIORef lu >>= (@?= [Direct.Utf8 "SELECT 'x'"])
        Direct.setTrace db Nothing
    , TestLabel "setTraceEvents: statements, profiles, rows, close" $ TestCase $ do
        db <- open ":memory:"
        evs <- newIORef []
        setTraceEvents db [TraceStatements, TraceProfiles, TraceRows, TraceCloses]
          (Just (\e -> modifyIORef evs (e :)))
        exec db "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"
        bracket (prepare db "SELECT x FROM t WHERE x > ?") finalize $ \st -> do
          bindSQLData st 1 (SQLInteger 1)
          r <- rows' st
          r @?= [[SQLInteger 2], [SQLInteger 3]]
        close db
        es <- reverse <$> readIORef evs
        let q = "SELECT x FROM t WHERE x > ?"
        -- Not expanded without TraceExpanded.
        assertBool (show es) (TraceStatement q `elem` es)
        length [() | TraceRow s <- es, s == q] @?= 2
        case [ns | TraceProfile s ns <- es, s == q] of
          [ns] -> assertBool ("time " ++ show ns) (ns >= 0)
          other -> assertFailure ("profiles: " ++ show other)
        last es @?= TraceClose
        length (filter (== TraceClose) es) @?= 1
    , TestLabel "a throwing logger: kept; no events after removal; registrations released" $ TestCase $ do
        n0 <- X.liveHookCount
        withDb $ \db -> do
          setTraceEvents db [TraceStatements, TraceExpanded] (Just (\_ -> throwIO (userError "trace boom")))
          exec db "SELECT 1"
          Just e <- takeHookException db
          assertBool (show e) ("trace boom" `isInfixOf` show e)
          setTraceEvents db [] (Just (\_ -> throwIO (userError "never")))   -- no event: removes
          exec db "SELECT 1"
          takeHookException db >>= assertBool "nothing" . not . isJust
          setTraceEvents db [TraceRows] (Just (\_ -> void (rows db "SELECT 1")))
          _ <- noHang "trace reentry" (rows db "SELECT 5")
          Just e' <- takeHookException db
          fromException e' @?= Just HookReentry
          setTrace db (Just (\_ -> return ()))
          X.liveHookCount >>= (@?= n0 + 1)
        X.liveHookCount >>= (@?= n0)
        db <- open ":memory:"
        close db
        errorOf (setTrace db (Just (\_ -> return ()))) >>= (@?= ErrorMisuse)
        Direct.setTrace db (Just (\_ -> return ()))   -- direct-sqlite's shape: no error to return
        X.liveHookCount >>= (@?= n0)
    ]
  ]
  where
    getAutoCommit' = Direct.getAutoCommit
    rows' st = do
      r <- step st
      case r of
        Done -> return []
        Row -> (:) <$> columns st <*> rows' st

------------------------------------------------------------------------------------------
-- Properties

-- | A value of any storage class (no NaN: SQLite stores it as NULL).
genValue :: Q.Gen SQLData
genValue = Q.oneof
  [ SQLInteger <$> Q.arbitrary
  , SQLFloat <$> Q.suchThat Q.arbitrary (not . isNaN)
  , SQLText . T.pack <$> Q.listOf (Q.elements "ab\233\8364 '\"")
  , SQLBlob . B.pack <$> Q.listOf Q.arbitrary
  , return SQLNull ]

-- | Changes to a table t(id INTEGER PRIMARY KEY, a, b) of keys 1..30.
data Op = Ins Int64 SQLData SQLData | Upd Int64 SQLData | Del Int64
  deriving (Show)

genOps :: Q.Gen [Op]
genOps = Q.listOf $ Q.oneof
  [ Ins <$> key <*> genValue <*> genValue
  , Upd <$> key <*> genValue
  , Del <$> key ]
  where key = Q.choose (1, 30)

genRows :: Q.Gen [(Int64, SQLData, SQLData)]
genRows = do
  ks <- nub <$> Q.listOf (Q.choose (1, 30))
  forM ks $ \k -> (,,) k <$> genValue <*> genValue

propSetup :: [(Int64, SQLData, SQLData)] -> Database -> IO ()
propSetup rs db = do
  exec db "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)"
  forM_ rs $ \(k, a, b) -> run db "INSERT INTO t VALUES (?, ?, ?)" [SQLInteger k, a, b]

run :: Database -> Text -> [SQLData] -> IO ()
run db q vs = bracket (prepare db q) finalize $ \st -> do
  bind st vs
  _ <- step st
  return ()

applyOps :: Database -> [Op] -> IO ()
applyOps db = mapM_ $ \op -> case op of
  Ins k a b -> run db "INSERT OR REPLACE INTO t VALUES (?, ?, ?)" [SQLInteger k, a, b]
  Upd k a -> run db "UPDATE t SET a = ? WHERE id = ?" [a, SQLInteger k]
  Del k -> run db "DELETE FROM t WHERE id = ?" [SQLInteger k]

-- | apply(changeset) makes the target equal to the source; apply(invert) brings it back;
-- invert(invert c) applies like c.
propApply :: Q.Property
propApply = Q.forAll genRows $ \rs -> Q.forAll genOps $ \ops -> QM.monadicIO $ do
  ok <- QM.run $ withDb $ \src -> withDb $ \dst -> withDb $ \dst2 -> do
    mapM_ (propSetup rs) [src, dst, dst2]
    before <- rows dst "SELECT * FROM t ORDER BY id"
    cs <- recorded src (applyOps src ops)
    want <- rows src "SELECT * FROM t ORDER BY id"
    applyChangeset dst cs defaultApplyOptions
    got <- rows dst "SELECT * FROM t ORDER BY id"
    Right inv <- return (invertChangeset cs)
    Right inv2 <- return (invertChangeset inv)
    applyChangeset dst2 inv2 defaultApplyOptions
    got2 <- rows dst2 "SELECT * FROM t ORDER BY id"
    applyChangeset dst inv defaultApplyOptions
    back <- rows dst "SELECT * FROM t ORDER BY id"
    return (got == want && got2 == want && back == before)
  QM.assert ok

-- | Two changesets recorded one after the other, concatenated, apply as both do.
propConcat :: Q.Property
propConcat = Q.forAll genRows $ \rs -> Q.forAll genOps $ \ops1 -> Q.forAll genOps $ \ops2 -> QM.monadicIO $ do
  ok <- QM.run $ withDb $ \src -> withDb $ \dst -> do
    mapM_ (propSetup rs) [src, dst]
    c1 <- recorded src (applyOps src ops1)
    c2 <- recorded src (applyOps src ops2)
    want <- rows src "SELECT * FROM t ORDER BY id"
    case concatChangesets c1 c2 of
      Left e -> return (Left (show e))
      Right c -> do
        applyChangeset dst c defaultApplyOptions
        got <- rows dst "SELECT * FROM t ORDER BY id"
        return (if got == want then Right () else Left (show (got, want)))
  QM.monitor (Q.counterexample (either id (const "") ok))
  QM.assert (either (const False) (const True) ok)

-- | Reading the changeset of random inserts into an empty table gives exactly those rows
-- (as INSERTs, every column carried, the key flagged); read inverted, as DELETEs.
propRead :: Q.Property
propRead = Q.forAll genRows $ \rs -> QM.monadicIO $ do
  ok <- QM.run $ withDb $ \db -> do
    exec db "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)"
    cs <- recorded db (forM_ rs $ \(k, a, b) -> run db "INSERT INTO t VALUES (?, ?, ?)" [SQLInteger k, a, b])
    let want = sortOn fst [ (k, [SQLInteger k, a, b]) | (k, a, b) <- rs ]
        row (Just vs@(Just (SQLInteger k) : _)) | all isJust vs = Right (k, [v | Just v <- vs])
        row other = Left ("a row not carried whole: " ++ show other)
        check c = do
          when (ccTable c /= "t" || ccPrimaryKey c /= [True, False, False] || ccIndirect c) $
            Left ("unexpected change " ++ show c)
          return c
        inserts = do
          cc <- either (Left . show) Right (changesetChanges [] cs) >>= mapM check
          if any ((/= ChangeInsert) . ccOp) cc || any (isJust . ccOld) cc then Left ("not inserts: " ++ show cc) else
            mapM (row . ccNew) cc
        deletes = do
          cc <- either (Left . show) Right (changesetChanges [ChangesetReadInvert] cs) >>= mapM check
          if any ((/= ChangeDelete) . ccOp) cc || any (isJust . ccNew) cc then Left ("not deletes: " ++ show cc) else
            mapM (row . ccOld) cc
    return $ do
      got <- sortOn fst <$> inserts
      when (got /= want) $ Left ("inserts " ++ show got ++ " /= " ++ show want)
      gone <- sortOn fst <$> deletes
      when (gone /= want) $ Left ("deletes " ++ show gone ++ " /= " ++ show want)
  QM.monitor (Q.counterexample (either id (const "") ok))
  QM.assert (either (const False) (const True) ok)

sessionProperties :: IO Bool
sessionProperties = do
  putStrLn "property: apply(changeset) = source; apply(invert) undoes; invert . invert applies the same"
  r1 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 100 } propApply
  putStrLn "property: concat(c1, c2) applies as c1 then c2"
  r2 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 100 } propConcat
  putStrLn "property: reading the changeset of random inserts gives those rows (inverted: as deletes)"
  r3 <- Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = 100 } propRead
  return (Q.isSuccess r1 && Q.isSuccess r2 && Q.isSuccess r3)
