-- |
-- Module      : Database.SQLite.Simple.ToRow
-- Description : sqlite-simple's Database.SQLite.Simple.ToRow ("Database.SQLBatch.ToRow")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.ToRow",
-- which may add extensions.
module Database.SQLite.Simple.ToRow
  ( GToRow (..), ToRow (..)
  ) where

import Database.SQLBatch.ToRow
