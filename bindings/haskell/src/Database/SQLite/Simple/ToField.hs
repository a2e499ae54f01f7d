-- |
-- Module      : Database.SQLite.Simple.ToField
-- Description : sqlite-simple's Database.SQLite.Simple.ToField ("Database.SQLBatch.ToField")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.ToField",
-- which may add extensions.
module Database.SQLite.Simple.ToField
  ( ToField (..)
  ) where

import Database.SQLBatch.ToField
