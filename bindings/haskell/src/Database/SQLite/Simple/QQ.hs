-- |
-- Module      : Database.SQLite.Simple.QQ
-- Description : sqlite-simple's Database.SQLite.Simple.QQ ("Database.SQLBatch.QQ")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.QQ",
-- which may add extensions.
module Database.SQLite.Simple.QQ
  ( sql
  ) where

import Database.SQLBatch.QQ
