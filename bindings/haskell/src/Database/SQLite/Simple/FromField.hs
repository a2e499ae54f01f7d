-- |
-- Module      : Database.SQLite.Simple.FromField
-- Description : sqlite-simple's Database.SQLite.Simple.FromField ("Database.SQLBatch.FromField")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.FromField",
-- which may add extensions.
module Database.SQLite.Simple.FromField
  ( FromField (fromField), FieldParser, ResultError (..), Field, fieldData, returnError
  ) where

import Database.SQLBatch.FromField
