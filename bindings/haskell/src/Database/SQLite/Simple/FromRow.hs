-- |
-- Module      : Database.SQLite.Simple.FromRow
-- Description : sqlite-simple's Database.SQLite.Simple.FromRow ("Database.SQLBatch.FromRow")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.FromRow",
-- which may add extensions.
module Database.SQLite.Simple.FromRow
  ( GFromRow (..), FromRow (..), RowParser, field, fieldWith, numFieldsRemaining, returnRowError
  ) where

import Database.SQLBatch.FromRow
