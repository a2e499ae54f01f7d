{-# LANGUAGE OverloadedStrings #-}
-- |
-- Module      : Database.SQLBatch.Direct.Extension
-- Description : SQLite extensions: shared libraries loaded by path, statically linked entry points
--
-- The calls over @sqlbatch_conn_enable_load_extension@, @sqlbatch_conn_load_extension@,
-- @sqlbatch_conn_init_extension@, @sqlbatch_auto_extension@ and
-- @sqlbatch_cancel_auto_extension@, in the style of "Database.SQLBatch.Direct": errors are
-- returned as 'Left' 'SQLError's carrying SQLite's message.
--
-- = Two kinds of extension
--
-- * A __shared library__ (@vec0.so@) is loaded by path with 'loadExtension', once loading
--   was turned on for the connection with 'enableLoadExtension' (it is off when a
--   connection opens; the SQL function @load_extension()@ stays off either way).
--
-- * A __statically linked__ extension (an archive such as @libsqlite_vec.a@ linked into the
--   program) is initialized from its entry point, the C function
--   @int sqlite3_NAME_init(sqlite3 *, char **, const sqlite3_api_routines *)@, which a
--   foreign import of its address gives:
--
--   > foreign import ccall "&sqlite3_vec_init" vecInit :: ExtensionEntry
--   >
--   > main = do
--   >   Right db <- open ":memory:"
--   >   Right () <- initExtension db vecInit          -- this connection
--   >   Right () <- autoExtension vecInit             -- every connection opened from now on
--
--   The extension must be compiled in SQLite's loadable style (without @SQLITE_CORE@), so
--   that it calls SQLite only through the API routines it is given:
--   libsqlbatch.a keeps its SQLite's symbols to itself. @scripts/build-sqlite-vec.sh@ builds
--   sqlite-vec that way. No enabling is needed: the code is already in the program.
--
-- Extensions run with the privileges of the process: load only code you trust.
module Database.SQLBatch.Direct.Extension
  ( -- * Types
    ExtensionInit
  , ExtensionEntry
    -- * Shared libraries
  , enableLoadExtension
  , loadExtension
    -- * Statically linked extensions
  , initExtension
  , autoExtension
  , cancelAutoExtension
    -- * Raw imports
  , c_sqlbatch_conn_enable_load_extension
  , c_sqlbatch_conn_load_extension
  , c_sqlbatch_conn_init_extension
  , c_sqlbatch_auto_extension
  , c_sqlbatch_cancel_auto_extension
  ) where

import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32)
import Data.Text (Text)
import Foreign.C.Types (CBool (..), CChar)
import Foreign.Ptr (Ptr, nullPtr)

import Database.SQLBatch.Direct
import Database.SQLBatch.Raw.Extra
import Database.SQLBatch.Raw.Types

result :: Database -> Text -> Int32 -> IO (Either SQLError ())
result db ctx rc
  | rc == sqlbatchOk = return (Right ())
  | otherwise = Left <$> errorFrom db rc ctx

-- | Turns loading shared-library extensions with 'loadExtension' on ('True') or off for the
-- connection. It is off when a connection opens.
enableLoadExtension :: Database -> Bool -> IO (Either SQLError ())
enableLoadExtension db@(Database c) on =
  c_sqlbatch_conn_enable_load_extension c (CBool (if on then 1 else 0))
    >>= result db "enable_load_extension"

-- | Loads the shared-library extension at a path into the connection and runs its entry
-- point: the named one, or with 'Nothing' SQLite's default (@sqlite3_extension_init@, else
-- the name derived from the file name: @sqlite3_vec_init@ for @vec0.so@). SQLite also tries
-- the path with the platform's suffix (@.so@) added. The library stays loaded until the
-- connection closes.
--
-- Fails with 'ErrorError' and SQLite's message when loading is not enabled
-- ('enableLoadExtension'), the file cannot be loaded, the entry point does not exist or it
-- fails; with 'ErrorInvalidArgument' for a NUL byte in the path or the name.
loadExtension :: Database -> Utf8 -> Maybe Utf8 -> IO (Either SQLError ())
loadExtension db@(Database c) (Utf8 path) entry =
  BU.unsafeUseAsCStringLen path $ \(p, n) ->
    let go :: Ptr CChar -> Int -> IO (Either SQLError ())
        go e en = c_sqlbatch_conn_load_extension c p (fromIntegral n) e (fromIntegral en)
                    >>= result db "load_extension"
    in case entry of
         Nothing -> go nullPtr 0
         Just (Utf8 name) -> BU.unsafeUseAsCStringLen name $ \(e, en) -> go e en

-- | Initializes a statically linked extension on the connection: calls its entry point with
-- the connection and the bundled SQLite's API routines, as SQLite does for a loaded one.
-- Fails with the code the entry point returned and its message.
initExtension :: Database -> ExtensionEntry -> IO (Either SQLError ())
initExtension db@(Database c) entry =
  c_sqlbatch_conn_init_extension c entry >>= result db "init_extension"

-- | Makes every connection opened after this call (by this library, in this process)
-- initialize the statically linked extension, as 'initExtension' would
-- (@sqlite3_auto_extension@). Registering the same entry point twice is a no-op. An entry
-- point that fails makes 'open' fail with its error. Any thread.
autoExtension :: ExtensionEntry -> IO (Either SQLError ())
autoExtension entry =
  c_sqlbatch_auto_extension entry >>= result (Database nullPtr) "auto_extension"

-- | Undoes 'autoExtension': connections opened from now on no longer initialize the
-- extension (those already open keep it). 'True' if it was registered, 'False' if not.
cancelAutoExtension :: ExtensionEntry -> IO (Either SQLError Bool)
cancelAutoExtension entry = do
  rc <- c_sqlbatch_cancel_auto_extension entry
  if rc == sqlbatchOk
    then return (Right True)
    else if rc == sqlbatchDone
      then return (Right False)
      else Left <$> errorFrom (Database nullPtr) rc "cancel_auto_extension"
