-- |
-- Module      : Database.SQLite.Simple.Function
-- Description : sqlite-simple's SQL functions in Haskell (over "Database.SQLBatch.Function")
--
-- 'createFunction' and 'deleteFunction' return the error instead of throwing it, as
-- sqlite-simple's do.
module Database.SQLite.Simple.Function
  ( Function
  , createFunction
  , deleteFunction
  ) where

import Control.Exception (try)
import Data.Text (Text)

import Database.SQLBatch (Connection, Error, SQLError (..))
import Database.SQLBatch.Function (Function)
import qualified Database.SQLBatch.Function as F

-- | Registers (or replaces) a Haskell function as the SQL function @name@, with the
-- function's arity as its argument count.
createFunction :: Function f => Connection -> Text -> f -> IO (Either Error ())
createFunction conn name f = either (Left . sqlError) Right <$> try (F.createFunction conn name f)

-- | Deletes the SQL function @name@.
deleteFunction :: Connection -> Text -> IO (Either Error ())
deleteFunction conn name = either (Left . sqlError) Right <$> try (F.deleteFunction conn name)
