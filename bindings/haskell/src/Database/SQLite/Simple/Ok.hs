-- |
-- Module      : Database.SQLite.Simple.Ok
-- Description : sqlite-simple's Database.SQLite.Simple.Ok ("Database.SQLBatch.Ok")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.Ok",
-- which may add extensions.
module Database.SQLite.Simple.Ok
  ( Ok (..), ManyErrors (..)
  ) where

import Database.SQLBatch.Ok
