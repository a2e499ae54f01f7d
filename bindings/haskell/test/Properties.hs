{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | QuickCheck properties of the binding (issue 33): every 'SQLData' and every
-- 'ToField'/'FromField' pair round-trips through a bind and a column, on both faces, through
-- a bulk write and the batched fetch, through a virtual table's fill and a table bound as
-- one parameter; random tables read in batches of random sizes give the rows a per-row
-- reader ("Database.SQLite3"'s @step@) gives and the rows written; a random script with an
-- error in the middle leaves exactly what running it statement by statement leaves; values
-- larger than a batch arrive whole.
module Properties (properties) where

import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import Data.Int
import Data.IORef
import Data.List (intercalate)
import Data.Text (Text)
import qualified Data.Text as T
import Data.Time (Day, UTCTime (..), fromGregorian, picosecondsToDiffTime)
import qualified Test.QuickCheck as Q
import qualified Test.QuickCheck.Monadic as QM

import Database.SQLBatch
import Database.SQLBatch.VTab
import qualified Database.SQLite3 as S3

------------------------------------------------------------------------------------------
-- Generators

-- | Every kind of value, the edges of each more often than chance would give them: the
-- extreme integers, infinities and negative zero, empty and non-ASCII text (NUL included),
-- empty and binary blobs, NULL. (A NaN is bound as NULL, so it is left to a unit test.)
genValue :: Q.Gen SQLData
genValue = Q.frequency
  [ (4, SQLInteger <$> genInt64)
  , (3, SQLFloat <$> genDouble)
  , (4, SQLText <$> genText)
  , (3, SQLBlob <$> genBytes)
  , (1, pure SQLNull)
  ]

genInt64 :: Q.Gen Int64
genInt64 = Q.frequency
  [ (1, Q.elements [minBound, maxBound, 0, -1, 1, 2 ^ (53 :: Int), -(2 ^ (53 :: Int)) - 1])
  , (4, Q.arbitrarySizedBoundedIntegral)
  , (2, Q.arbitraryBoundedIntegral)
  ]

genDouble :: Q.Gen Double
genDouble = Q.frequency
  [ (1, Q.elements [0, -0.0, 1 / 0, -1 / 0, 5.0e-324, 1.7976931348623157e308, 0.1, 1e15 + 0.3])
  , (4, Q.arbitrary)
  , (2, (*) <$> Q.arbitrary <*> Q.elements [1e-300, 1e-10, 1e10, 1e300])
  ]

genText :: Q.Gen Text
genText = Q.frequency
  [ (1, pure "")
  , (4, T.pack <$> Q.listOf Q.arbitraryUnicodeChar)
  , (2, T.pack <$> Q.listOf (Q.elements "aé☕\0\n'\"𝄞"))
  ]

genBytes :: Q.Gen B.ByteString
genBytes = Q.frequency
  [ (1, pure B.empty)
  , (4, B.pack <$> Q.listOf Q.arbitrary)
  ]

-- | A value that may be large: now and then hundreds of kilobytes to a few megabytes,
-- larger than a fetch's first buffer and than a batch.
genMaybeLarge :: Q.Gen SQLData
genMaybeLarge = Q.frequency
  [ (30, genValue)
  , (1, do n <- Q.choose (100000, 3000000 :: Int)
           b <- Q.arbitrary
           return (SQLBlob (B.replicate n b)))
  , (1, do n <- Q.choose (100000, 1000000 :: Int)
           c <- Q.elements "xé☕"
           return (SQLText (T.replicate n (T.singleton c))))
  ]

-- | A table: a width of 1 to 5 and rows of that many values.
newtype Table = Table [[SQLData]]
  deriving (Show)

genTable :: Q.Gen SQLData -> Q.Gen Table
genTable gv = do
  w <- Q.choose (1, 5 :: Int)
  n <- Q.frequency [(3, Q.choose (0, 50 :: Int)), (2, Q.choose (50, 2000 :: Int)), (1, Q.choose (2000, 6000 :: Int))]
  Table <$> Q.vectorOf n (Q.vectorOf w gv)

-- | 'genTable' whose small tables (up to 40 rows) may hold large values.
genTableLarge :: Q.Gen Table
genTableLarge = do
  w <- Q.choose (1, 5 :: Int)
  n <- Q.frequency [(3, Q.choose (0, 40 :: Int)), (2, Q.choose (40, 2000 :: Int)), (1, Q.choose (2000, 6000 :: Int))]
  Table <$> Q.vectorOf n (Q.vectorOf w (if n <= 40 then genMaybeLarge else genValue))

-- | Values read back as SQLite stores them: a NaN read back is NULL (never generated), and
-- the rest exactly. 'SQLFloat' compares with '==' on 'Double': -0.0 and 0.0 are equal.
sameValues :: [[SQLData]] -> [[SQLData]] -> Bool
sameValues = (==)

------------------------------------------------------------------------------------------
-- Properties

-- | A value bound and read back: "Database.SQLBatch" ('query'), "Database.SQLite3"
-- ('S3.bindSQLData', 'S3.step', 'S3.column'), a bulk write then the batched fetch.
propValueRoundTrip :: Connection -> Q.Property
propValueRoundTrip c = Q.forAll genMaybeLarge $ \v -> QM.monadicIO $ QM.run $ do
  [Only a] <- query c "SELECT ?" (Only v)
  st <- S3.prepare (connectionHandle c) "SELECT ?"
  S3.bindSQLData st 1 v
  _ <- S3.step st
  b <- S3.column st 0
  S3.finalize st
  execute_ c "DELETE FROM one"
  executeMany c "INSERT INTO one VALUES (?)" [Only v, Only v]
  rows <- query_ c "SELECT v FROM one"
  return (a == v && b == v && rows == [Only v, Only v])

-- | Typed values through 'ToField' and 'FromField': what goes in comes out, as the same
-- type, through a bind, a bulk write and a column.
propTypedRoundTrip :: Connection -> Q.Property
propTypedRoundTrip c = Q.conjoin
  [ Q.counterexample "Int64" $ Q.forAll genInt64 (same :: Int64 -> Q.Property)
  , Q.counterexample "Int" $ Q.forAll Q.arbitrary (same :: Int -> Q.Property)
  , Q.counterexample "Int32" $ Q.forAll Q.arbitrary (same :: Int32 -> Q.Property)
  , Q.counterexample "Double" $ Q.forAll genDouble (same :: Double -> Q.Property)
  , Q.counterexample "Text" $ Q.forAll genText (same :: Text -> Q.Property)
  , Q.counterexample "String" $ Q.forAll (T.unpack <$> genText) (same :: String -> Q.Property)
  , Q.counterexample "ByteString" $ Q.forAll genBytes (same :: B.ByteString -> Q.Property)
  , Q.counterexample "Bool" $ Q.forAll Q.arbitrary (same :: Bool -> Q.Property)
  , Q.counterexample "Maybe Int64" $ Q.forAll (Q.liftArbitrary genInt64) (same :: Maybe Int64 -> Q.Property)
  , Q.counterexample "Maybe Text" $ Q.forAll (Q.liftArbitrary genText) (same :: Maybe Text -> Q.Property)
  , Q.counterexample "Day" $ Q.forAll genDay (same :: Day -> Q.Property)
  , Q.counterexample "UTCTime" $ Q.forAll genTime (same :: UTCTime -> Q.Property)
  ]
  where
    same :: (Eq a, ToField a, FromField a) => a -> Q.Property
    same x = QM.monadicIO $ do
      (a, b) <- QM.run $ do
        [Only a] <- query c "SELECT ?" (Only x)
        execute_ c "DELETE FROM one"
        executeMany c "INSERT INTO one VALUES (?)" [Only x]
        [Only b] <- query_ c "SELECT v FROM one"
        return (a, b)
      QM.assert (a == x && b == x)
    genDay = fromGregorian <$> Q.choose (1, 9999 :: Integer) <*> Q.choose (1, 12 :: Int) <*> Q.choose (1, 31 :: Int)
    genTime = UTCTime <$> genDay
                      <*> (picosecondsToDiffTime . (* 1000000) <$> Q.choose (0, 86399999999 :: Integer))

-- | A random table written by a bulk write reads back whole, the same through 'query_',
-- 'fold_' and "Database.SQLite3"'s per-row 'S3.step', read in batches whose rows and bytes
-- the values' sizes cut at random places; the same rows written one 'execute' at a time make
-- the same table.
propBatches :: Connection -> Q.Property
propBatches c = Q.forAllShrink genTableLarge shrinkTable $ \(Table rows) -> QM.monadicIO $ do
  let w = case rows of
        r : _ -> length r
        [] -> 1
      cols = intercalate ", " ["c" ++ show i | i <- [0 .. w - 1]]
      marks = intercalate ", " (replicate w "?")
  ok <- QM.run $ do
    executeScript c "DROP TABLE IF EXISTS bt; DROP TABLE IF EXISTS bt2"
    execute_ c (Query (T.pack ("CREATE TABLE bt(" ++ cols ++ ")")))
    execute_ c (Query (T.pack ("CREATE TABLE bt2(" ++ cols ++ ")")))
    withTransaction c $ executeMany c (Query (T.pack ("INSERT INTO bt VALUES (" ++ marks ++ ")"))) rows
    withTransaction c $ forM_ rows $ execute c (Query (T.pack ("INSERT INTO bt2 VALUES (" ++ marks ++ ")")))
    let sel t = Query (T.pack ("SELECT " ++ cols ++ " FROM " ++ t ++ " ORDER BY rowid"))
    viaQuery <- query_ c (sel "bt")
    viaFold <- reverse <$> fold_ c (sel "bt") [] (\acc r -> return (r : acc))
    st <- S3.prepare (connectionHandle c) (fromQuery (sel "bt"))
    let loop acc = do
          r <- S3.step st
          if r == S3.Row then S3.columns st >>= \v -> loop (v : acc) else return (reverse acc)
    viaStep <- loop []
    S3.finalize st
    other <- query_ c (sel "bt2")
    return [ ("query_", sameValues viaQuery rows), ("fold_", sameValues viaFold rows)
           , ("step", sameValues viaStep rows), ("execute per row", sameValues other rows) ]
  forM_ ok $ \(what, good) -> unless good (QM.monitor (Q.counterexample what))
  QM.assert (all snd ok)

shrinkTable :: Table -> [Table]
shrinkTable (Table rows) = [Table (take k rows) | k <- [0, length rows `div` 2], k < length rows]

-- | A random table handed over by a virtual table's fill, in batches of a random size, reads
-- back as written (values of every kind, large ones too, across fills).
propFill :: Connection -> IORef [[SQLData]] -> Q.Property
propFill c src = Q.forAll ((,) <$> genTableLarge <*> Q.choose (1, 600 :: Int)) $ \(Table rows, batch) ->
  QM.monadicIO $ do
    got <- QM.run $ do
      writeIORef src rows
      createModule c "rt" (ModuleOptions EponymousOnly batch) fillModule
      let w = case rows of
            r : _ -> length r
            [] -> 1
      query_ c (Query ("SELECT " <> T.intercalate ", " (take w ["a", "b", "c", "d", "e"]) <> " FROM rt"))
    QM.assert (sameValues got rows)
  where
    fillModule = newModule (\_ -> return ("CREATE TABLE x(a, b, c, d, e)", ()))
      (\_ -> newIORef []) (\ref _ -> readIORef src >>= writeIORef ref)
      (\ref w -> do
         rs <- readIORef ref
         mx <- writerMax w
         let (now, later) = splitAt mx rs
         forM_ now $ \r -> mapM_ (writeValue w) r >> endRow w
         writeIORef ref later
         return (null later))

-- | A random table bound as one parameter reads back as bound.
propTableValue :: Connection -> Q.Property
propTableValue c = Q.forAll (genTable genValue) $ \(Table rows) -> QM.monadicIO $ do
  got <- QM.run $ do
    let w = case rows of
          r : _ -> length r
          [] -> 1
        cols = T.intercalate ", " (take w ["a", "b", "c", "d", "e"])
        name = "tv" <> T.pack (show w)
    executeScript c (Query ("DROP TABLE IF EXISTS temp." <> name <> "; CREATE VIRTUAL TABLE temp." <> name
                            <> " USING sqlbatch_rows(" <> cols <> ")"))
    query c (Query ("SELECT * FROM " <> name <> "(?)")) (Only (tableValueOfWidth w rows))
  QM.assert (sameValues got rows)

-- | One statement of a random script: an insert of a value, or (the one failure) an insert
-- that breaks a constraint, a syntax error, or a reference to a missing table.
data Stmt = Insert Int64 | Breaks Int
  deriving (Show)

stmtText :: Stmt -> String
stmtText (Insert k) = "INSERT INTO log(k) VALUES (" ++ show k ++ ")"
stmtText (Breaks 0) = "INSERT INTO log(k) VALUES (NULL)"
stmtText (Breaks 1) = "INSERT INTO log(k, nosuchcolumn) VALUES (1, 2)"
stmtText (Breaks 2) = "SELEC 1"
stmtText (Breaks _) = "INSERT INTO nosuchtable VALUES (1)"

genScript :: Q.Gen [Stmt]
genScript = do
  before <- Q.listOf (Insert <$> Q.choose (0, 1000 :: Int64))
  after <- Q.listOf (Insert <$> Q.choose (0, 1000 :: Int64))
  failing <- Q.frequency [(1, pure []), (3, (: []) . Breaks <$> Q.choose (0, 3 :: Int))]
  return (before ++ failing ++ after)

-- | A random script with (usually) one failing statement, run in one call: the statements
-- before the failing one stay run, nothing after it runs, and the error names it; exactly
-- what running the statements one at a time leaves.
propScript :: Q.Property
propScript = Q.forAll genScript $ \stmts -> QM.monadicIO $ do
  let script = intercalate ";\n" (map stmtText stmts)
      setup c = execute_ c "CREATE TABLE log(n INTEGER PRIMARY KEY, k INTEGER NOT NULL)"
      firstBad = lookup True (zip (map isBad stmts) [0 :: Int ..])
      isBad (Breaks _) = True
      isBad _ = False
  (whole, err) <- QM.run $ withConnection ":memory:" $ \c -> do
    setup c
    r <- try (executeScript c (Query (T.pack script)))
    rows <- query_ c "SELECT n, k FROM log ORDER BY n" :: IO [(Int64, Int64)]
    return (rows, either (\(e :: SQLError) -> Just e) (const Nothing) r)
  (single, stopped) <- QM.run $ withConnection ":memory:" $ \c -> do
    setup c
    let go _ [] = return Nothing
        go i (s : rest) = do
          r <- try (execute_ c (Query (T.pack (stmtText s))))
          case r of
            Left (_ :: SQLError) -> return (Just i)
            Right () -> go (i + 1) rest
    at <- go (0 :: Int) stmts
    rows <- query_ c "SELECT n, k FROM log ORDER BY n" :: IO [(Int64, Int64)]
    return (rows, at)
  QM.monitor (Q.counterexample (show (whole, err, single, stopped)))
  QM.assert (whole == single)
  QM.assert (stopped == firstBad)
  QM.assert (fmap sqlErrorStatementIndex err == fmap Just firstBad)
  QM.assert (length whole == length (takeWhile (not . isBad) stmts))

-- | Runs the properties; True if all hold.
properties :: IO Bool
properties = do
  src <- newIORef []
  withConnection ":memory:" $ \c -> do
    execute_ c "CREATE TABLE one(v)"
    rs <- forM
      [ ("every SQLData round-trips through bind, column, bulk write and fetch (both faces)", 500, propValueRoundTrip c)
      , ("ToField/FromField pairs round-trip as their type", 100, propTypedRoundTrip c)
      , ("random tables in random batches: query_, fold_, step and per-row execute = the rows", 60, propBatches c)
      , ("a virtual table's fills in random batch sizes = the rows written", 80, propFill c src)
      , ("a random table bound as one parameter = the rows bound", 100, propTableValue c)
      , ("a random script with an error mid-way = statement by statement, nothing lost", 300, propScript)
      ] $ \(name, n, p) -> do
        putStrLn ("property: " ++ name)
        Q.isSuccess <$> Q.quickCheckWithResult Q.stdArgs { Q.maxSuccess = n } p
    return (and rs)
