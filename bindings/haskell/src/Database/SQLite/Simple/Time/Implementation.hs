-- |
-- Module      : Database.SQLite.Simple.Time.Implementation
-- Description : sqlite-simple's Database.SQLite.Simple.Time.Implementation ("Database.SQLBatch.Time")
--
-- sqlite-simple's module of the same name: the same six functions as
-- "Database.SQLite.Simple.Time" (sqlite-simple's "Database.SQLite.Simple.Time" re-exports
-- this one). The builders are @Data.ByteString.Builder@'s (blaze-builder's @Builder@ is
-- that type since blaze-builder 0.4).
module Database.SQLite.Simple.Time.Implementation
  ( parseUTCTime, parseDay, utcTimeToBuilder, dayToBuilder, timeOfDayToBuilder, timeZoneToBuilder
  ) where

import Database.SQLBatch.Time
