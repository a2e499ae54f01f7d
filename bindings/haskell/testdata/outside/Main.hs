{-# LANGUAGE DeriveGeneric #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE QuasiQuotes #-}
-- The program of a project outside the repository (testdata/outside/run.sh builds it against
-- an installed sqlbatch): sqlite-simple's API as its users write it, the sql quasiquoter
-- (Template Haskell, so GHC loads the library while compiling this module), a Generic
-- FromRow record, and one direct-sqlite call on a connection of its own.
module Main (main) where

import Control.Monad (unless)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Database.SQLite3 as D
import Database.SQLite.Simple
import Database.SQLite.Simple.QQ (sql)
import GHC.Generics (Generic)
import System.Environment (getArgs)
import System.Exit (exitFailure)
import System.IO (hPutStrLn, stderr)

data Person = Person
  { personId :: Int
  , personName :: Text
  , personAge :: Maybe Int
  } deriving (Eq, Show, Generic)

instance FromRow Person

check :: (Eq a, Show a) => String -> a -> a -> IO ()
check what want got =
  unless (got == want) $ do
    hPutStrLn stderr ("outside: " ++ what ++ ": want " ++ show want ++ ", got " ++ show got)
    exitFailure

main :: IO ()
main = do
  args <- getArgs
  path <- case args of
    [p] -> return p
    _ -> hPutStrLn stderr "usage: outside DATABASE" >> exitFailure
  (people, total) <- withConnection path $ \conn -> do
    execute_ conn [sql|
      CREATE TABLE people (
        id   INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        age  INTEGER
      )|]
    mapM_ (execute conn "INSERT INTO people (name, age) VALUES (?, ?)")
      [("Ada" :: Text, Just (36 :: Int)), ("Alan", Just 41), ("Grace", Nothing)]
    people <- query conn [sql|
      SELECT id, name, age
      FROM people
      WHERE age > ? OR age IS NULL
      ORDER BY id
      |] (Only (40 :: Int))
    total <- fold conn "SELECT age FROM people WHERE id >= ?" (Only (1 :: Int)) 0 $
      \acc (Only age) -> return $! acc + maybe 0 id (age :: Maybe Int)
    return (people, total)
  check "query" [Person 2 "Alan" (Just 41), Person 3 "Grace" Nothing] people
  check "fold" (77 :: Int) total
  -- direct-sqlite's API, on a connection of its own to the same file.
  db <- D.open (T.pack path)
  st <- D.prepare db "SELECT group_concat(name, ',') FROM (SELECT name FROM people ORDER BY id)"
  r <- D.step st
  check "direct-sqlite step" D.Row r
  names <- D.columnText st 0
  D.finalize st
  D.close db
  check "direct-sqlite" "Ada,Alan,Grace" names
  putStrLn $ show (length people) ++ " people, total age " ++ show total ++ ", " ++ T.unpack names
