-- |
-- Module      : Database.SQLite.Simple.Internal
-- Description : The parts of sqlite-simple's Internal module that exist here
--
-- sqlite-simple's @Internal@ module is not part of its stable API; these are its names
-- that have a counterpart in this package ('Field' with its fields 'result' and
-- 'column', 'ColumnOutOfBounds', 'gettypename'). The row parser's representation differs
-- (see "Database.SQLBatch.Internal").
module Database.SQLite.Simple.Internal
  ( Connection (..)
  , ColumnOutOfBounds (..)
  , Field (..)
  , RowParser
  , gettypename
  ) where

import Database.SQLBatch.Error (ColumnOutOfBounds (..))
import Database.SQLBatch.Internal (Connection (..), Field (..), RowParser, gettypename)
