-- |
-- Module      : Database.SQLite.Simple.Time
-- Description : sqlite-simple's Database.SQLite.Simple.Time ("Database.SQLBatch.Time")
--
-- sqlite-simple's exports of this module, re-exported from "Database.SQLBatch.Time",
-- which may add extensions.
module Database.SQLite.Simple.Time
  ( parseUTCTime, parseDay, utcTimeToBuilder, dayToBuilder, timeOfDayToBuilder, timeZoneToBuilder
  ) where

import Database.SQLBatch.Time
