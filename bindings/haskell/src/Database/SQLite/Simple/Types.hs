-- |
-- Module      : Database.SQLite.Simple.Types
-- Description : sqlite-simple's Database.SQLite.Simple.Types ("Database.SQLBatch.Types")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.Types",
-- which may add extensions.
module Database.SQLite.Simple.Types
  ( Null (..), Only (..), Query (..), (:.) (..)
  ) where

import Database.SQLBatch.Types
