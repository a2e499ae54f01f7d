{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLBatch.Extension
-- Description : SQLite extensions on a 'Connection' (shared libraries and statically linked ones)
--
-- sqlite-simple has no way to load an extension; this module adds one for a
-- "Database.SQLBatch" 'Connection', over "Database.SQLBatch.Direct.Extension" (which says
-- more about the two kinds of extension). The calls take the connection's lock and throw
-- 'Database.SQLBatch.SQLError' with SQLite's message.
--
-- > {-# LANGUAGE OverloadedStrings #-}
-- > import Database.SQLBatch
-- > import Database.SQLBatch.Extension
-- >
-- > foreign import ccall "&sqlite3_vec_init" vecInit :: ExtensionEntry
-- >
-- > main :: IO ()
-- > main = do
-- >   withConnection ":memory:" $ \conn -> do        -- a shared library, by path
-- >     enableLoadExtension conn True
-- >     loadExtension conn "build/ext/vec0.so" Nothing
-- >     query_ conn "SELECT vec_version()" >>= print . map fromOnly
-- >   withConnection ":memory:" $ \conn -> do        -- the statically linked one
-- >     initExtension conn vecInit
-- >     [Only d] <- query_ conn "SELECT vec_distance_l2('[1, 2]', '[4, 6]')"
-- >     print (d :: Double)
module Database.SQLBatch.Extension
  ( DE.ExtensionInit
  , DE.ExtensionEntry
  , enableLoadExtension
  , loadExtension
  , initExtension
  , autoExtension
  , cancelAutoExtension
  ) where

import Control.Exception (throwIO)
import Data.Text (Text)
import qualified Data.Text.Encoding as TE

import Database.SQLBatch.Direct (Utf8 (..))
import qualified Database.SQLBatch.Direct.Extension as DE
import Database.SQLBatch.Internal (Connection, withConnDirect)

-- | Turns loading shared-library extensions with 'loadExtension' on ('True') or off for the
-- connection (off when it opens). Throws 'Database.SQLBatch.SQLError'.
enableLoadExtension :: Connection -> Bool -> IO ()
enableLoadExtension conn on =
  withConnDirect conn "enableLoadExtension" $ \db -> DE.enableLoadExtension db on

-- | Loads the shared-library extension at the path into the connection and runs its entry
-- point (the named one, or SQLite's default for 'Nothing': @sqlite3_vec_init@ for
-- @vec0.so@). Needs 'enableLoadExtension' first. Throws 'Database.SQLBatch.SQLError' with
-- SQLite's message (not enabled, no such file, no such entry point, or the entry point failed).
loadExtension :: Connection -> Text -> Maybe Text -> IO ()
loadExtension conn path entry =
  withConnDirect conn "loadExtension" $ \db ->
    DE.loadExtension db (utf8 path) (utf8 <$> entry)
  where
    utf8 = Utf8 . TE.encodeUtf8

-- | Initializes a statically linked extension on the connection from its entry point
-- (@foreign import ccall \"&sqlite3_NAME_init\"@). Throws 'Database.SQLBatch.SQLError' with
-- the entry point's code and message if it fails.
initExtension :: Connection -> DE.ExtensionEntry -> IO ()
initExtension conn entry =
  withConnDirect conn "initExtension" $ \db -> DE.initExtension db entry

-- | Makes every connection opened from now on (by this library, in this process) initialize
-- the statically linked extension; a no-op if it already does. Throws
-- 'Database.SQLBatch.SQLError'.
autoExtension :: DE.ExtensionEntry -> IO ()
autoExtension entry = DE.autoExtension entry >>= either throwIO return

-- | Undoes 'autoExtension' for connections opened from now on; 'False' if the entry point
-- was not registered.
cancelAutoExtension :: DE.ExtensionEntry -> IO Bool
cancelAutoExtension entry = DE.cancelAutoExtension entry >>= either throwIO return
