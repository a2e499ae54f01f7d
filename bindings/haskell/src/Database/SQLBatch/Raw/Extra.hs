{-# LANGUAGE CApiFFI #-}
-- |
-- Module      : Database.SQLBatch.Raw.Extra
-- Description : Foreign imports of the rest of @include/sqlbatch.h@: blobs, backups, hooks, sessions, functions, extensions
--
-- The second half of "Database.SQLBatch.Raw" (which has the connections, statements,
-- fetches, scripts and bulk writes): every other C function of the header, with the same
-- conventions (the C name with a @c_@ prefix, @capi@ against the header, each call @safe@
-- or @unsafe@ with its reason), the types of the callbacks the library takes, and the
-- @wrapper@ imports that make C function pointers of Haskell closures. These two modules,
-- and "Database.SQLBatch.Raw.Types", hold every foreign import of the package.
module Database.SQLBatch.Raw.Extra
  ( -- * Incremental blob I/O
    c_sqlbatch_blob_open
  , c_sqlbatch_blob_size
  , c_sqlbatch_blob_read
  , c_sqlbatch_blob_write
  , c_sqlbatch_blob_reopen
  , c_sqlbatch_blob_read_many
  , c_sqlbatch_blob_close
    -- * Online backup
  , c_sqlbatch_backup_init
  , c_sqlbatch_backup_step
  , c_sqlbatch_backup_remaining
  , c_sqlbatch_backup_pagecount
  , c_sqlbatch_backup_finish
  , c_sqlbatch_conn_backup_to_file
  , c_sqlbatch_conn_restore_from_file
    -- * Serialization
  , c_sqlbatch_conn_serialize
  , c_sqlbatch_conn_deserialize
  , p_sqlbatch_free
    -- * Encryption
  , c_sqlbatch_cipher_version
  , c_sqlbatch_conn_open_encrypted
  , c_sqlbatch_conn_rekey
  , c_sqlbatch_conn_export
    -- * Limits, switches and state
  , c_sqlbatch_conn_limit
  , c_sqlbatch_conn_db_config
  , c_sqlbatch_conn_checkpoint
  , c_sqlbatch_conn_status
  , c_sqlbatch_conn_txn_state
  , c_sqlbatch_conn_encoding
  , c_sqlbatch_conn_readonly
  , c_sqlbatch_conn_filename
    -- * Hooks and tracing
  , c_sqlbatch_conn_update_hook_batched
  , c_sqlbatch_conn_commit_hook
  , c_sqlbatch_conn_rollback_hook
  , c_sqlbatch_conn_wal_hook
  , c_sqlbatch_conn_progress_handler
  , c_sqlbatch_conn_busy_handler
  , c_sqlbatch_conn_authorizer
  , c_sqlbatch_conn_change_feed
  , c_sqlbatch_conn_preupdate_hook
  , c_sqlbatch_conn_trace
    -- * Sessions and changesets
  , c_sqlbatch_session_create
  , c_sqlbatch_session_attach
  , c_sqlbatch_session_set_enabled
  , c_sqlbatch_session_set_indirect
  , c_sqlbatch_session_is_empty
  , c_sqlbatch_session_changeset
  , c_sqlbatch_session_patchset
  , c_sqlbatch_session_diff
  , c_sqlbatch_session_delete
  , c_sqlbatch_conn_apply_changeset
  , c_sqlbatch_changeset_invert
  , c_sqlbatch_changeset_concat
  , c_sqlbatch_changeset_read
    -- * SQL functions, aggregates and collations
  , c_sqlbatch_conn_create_function
  , c_sqlbatch_conn_create_aggregate
  , c_sqlbatch_conn_create_collation
  , c_sqlbatch_call_result
  , c_sqlbatch_call_error
    -- * Extensions
  , c_sqlbatch_conn_enable_load_extension
  , c_sqlbatch_conn_load_extension
  , c_sqlbatch_conn_init_extension
  , c_sqlbatch_auto_extension
  , c_sqlbatch_cancel_auto_extension
    -- * Callback wrappers
  , mkDestroy
  , mkUpdateBatch
  , mkCommit
  , mkRollback
  , mkWal
  , mkBusy
  , mkAuth
  , mkFeed
  , mkPreUpdate
  , mkTrace
  , mkConflict
  , mkFilter
  , mkRead
  , mkScalar
  , mkStep
  , mkFinish
  , mkCollation
    -- * Callback types
  , DestroyFn
  , UpdateBatchFn
  , CommitFn
  , RollbackFn
  , WalFn
  , BusyFn
  , AuthFn
  , FeedFn
  , PreUpdateFn
  , TraceFn
  , ConflictFn
  , FilterFn
  , ReadFn
  , ScalarFn
  , StepFn
  , FinishFn
  , CollationFn
  , ExtensionInit
  , ExtensionEntry
    -- * The runtime
  , rtsCapabilities
  ) where

import Data.Int (Int32, Int64)
import Data.Word (Word32, Word64, Word8)
import Foreign.C.String (CString)
import Foreign.C.Types (CBool (..), CChar, CInt (..), CSize (..), CUInt)
import Foreign.Ptr (FunPtr, Ptr)

import Database.SQLBatch.Raw (CValue)
import Database.SQLBatch.Raw.Types

------------------------------------------------------------------------------------------
-- Incremental blob I/O

-- | @sqlbatch_blob_open@ (safe: reads the schema and the row).
foreign import capi safe "hs_sqlbatch.h sqlbatch_blob_open"
  c_sqlbatch_blob_open :: Ptr CConn -> CString -> CSize -> CString -> CSize -> CString -> CSize -> Int64
    -> CBool -> Ptr (Ptr CBlob) -> IO Int32

-- | @sqlbatch_blob_size@ (unsafe: reads the handle).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_blob_size"
  c_sqlbatch_blob_size :: Ptr CBlob -> Ptr Word64 -> IO Int32

-- | @sqlbatch_blob_read@ (safe: reads pages).
foreign import capi safe "hs_sqlbatch.h sqlbatch_blob_read"
  c_sqlbatch_blob_read :: Ptr CBlob -> Word64 -> Ptr Word8 -> CSize -> IO Int32

-- | @sqlbatch_blob_write@ (safe: writes pages).
foreign import capi safe "hs_sqlbatch.h sqlbatch_blob_write"
  c_sqlbatch_blob_write :: Ptr CBlob -> Word64 -> Ptr Word8 -> CSize -> IO Int32

-- | @sqlbatch_blob_reopen@ (safe: seeks to another row).
foreign import capi safe "hs_sqlbatch.h sqlbatch_blob_reopen"
  c_sqlbatch_blob_reopen :: Ptr CBlob -> Int64 -> IO Int32

-- | @sqlbatch_blob_read_many@ (safe: reads pages).
foreign import capi safe "hs_sqlbatch.h sqlbatch_blob_read_many"
  c_sqlbatch_blob_read_many :: Ptr CBlob -> Ptr () -> CSize -> Ptr Word8 -> CSize -> Ptr CSize -> IO Int32

-- | @sqlbatch_blob_close@ (safe: may end a read transaction).
foreign import capi safe "hs_sqlbatch.h sqlbatch_blob_close"
  c_sqlbatch_blob_close :: Ptr CBlob -> IO ()

------------------------------------------------------------------------------------------
-- Online backup

-- | @sqlbatch_backup_init@ (safe: takes locks).
foreign import capi safe "hs_sqlbatch.h sqlbatch_backup_init"
  c_sqlbatch_backup_init :: Ptr CConn -> CString -> CSize -> Ptr CConn -> CString -> CSize
    -> Ptr (Ptr CBackup) -> IO Int32

-- | @sqlbatch_backup_step@ (safe: copies pages).
foreign import capi safe "hs_sqlbatch.h sqlbatch_backup_step"
  c_sqlbatch_backup_step :: Ptr CBackup -> Int32 -> IO Int32

-- | @sqlbatch_backup_remaining@ (unsafe: reads the handle).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_backup_remaining"
  c_sqlbatch_backup_remaining :: Ptr CBackup -> Ptr Int64 -> IO Int32

-- | @sqlbatch_backup_pagecount@ (unsafe: reads the handle).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_backup_pagecount"
  c_sqlbatch_backup_pagecount :: Ptr CBackup -> Ptr Int64 -> IO Int32

-- | @sqlbatch_backup_finish@ (safe: ends transactions).
foreign import capi safe "hs_sqlbatch.h sqlbatch_backup_finish"
  c_sqlbatch_backup_finish :: Ptr CBackup -> IO Int32

-- | @sqlbatch_conn_backup_to_file@ (safe: writes a file).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_backup_to_file"
  c_sqlbatch_conn_backup_to_file :: Ptr CConn -> CString -> CSize -> CString -> CSize -> IO Int32

-- | @sqlbatch_conn_restore_from_file@ (safe: reads a file).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_restore_from_file"
  c_sqlbatch_conn_restore_from_file :: Ptr CConn -> CString -> CSize -> CString -> CSize -> IO Int32

------------------------------------------------------------------------------------------
-- Serialization

-- | @sqlbatch_conn_serialize@ (safe: reads every page).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_serialize"
  c_sqlbatch_conn_serialize :: Ptr CConn -> CString -> CSize -> Ptr (Ptr Word8) -> Ptr CSize -> IO Int32

-- | @sqlbatch_conn_deserialize@ (safe: replaces the database).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_deserialize"
  c_sqlbatch_conn_deserialize :: Ptr CConn -> CString -> CSize -> Ptr Word8 -> CSize -> Word32 -> IO Int32

-- | The address of @sqlbatch_free@: a finalizer for the buffers the library hands out.
foreign import capi "hs_sqlbatch.h &sqlbatch_free"
  p_sqlbatch_free :: FunPtr (Ptr Word8 -> IO ())

------------------------------------------------------------------------------------------
-- Encryption (the encrypted build; in the default one the three calls after the version
-- return SQLBATCH_E_UNSUPPORTED)

-- | @sqlbatch_cipher_version@ (unsafe: returns a static string): SQLCipher's version in the
-- encrypted build, NULL in the default one.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_cipher_version"
  c_sqlbatch_cipher_version :: IO CString

-- | @sqlbatch_conn_open_encrypted@ (safe: opens the file, derives the key, reads the schema).
-- Arguments: path, path_len, flags, key, key_len, cipher (may be NULL), out_conn. The key
-- and the settings are read during the call only.
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_open_encrypted"
  c_sqlbatch_conn_open_encrypted :: Ptr CChar -> CSize -> Word32 -> Ptr Word8 -> CSize -> Ptr CCipher
    -> Ptr (Ptr CConn) -> IO Int32

-- | @sqlbatch_conn_rekey@ (safe: rewrites every page). Arguments: conn, schema, schema_len
-- (NULL, 0: \"main\"), key, key_len.
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_rekey"
  c_sqlbatch_conn_rekey :: Ptr CConn -> CString -> CSize -> Ptr Word8 -> CSize -> IO Int32

-- | @sqlbatch_conn_export@ (safe: writes a whole database). Arguments: conn, schema,
-- schema_len, path, path_len, key, key_len (0: a plain copy), cipher (may be NULL).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_export"
  c_sqlbatch_conn_export :: Ptr CConn -> CString -> CSize -> CString -> CSize -> Ptr Word8 -> CSize
    -> Ptr CCipher -> IO Int32

------------------------------------------------------------------------------------------
-- Limits, switches and state

-- | @sqlbatch_conn_limit@ (unsafe: reads or writes a field).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_limit"
  c_sqlbatch_conn_limit :: Ptr CConn -> Int32 -> Int32 -> Ptr Int32 -> IO Int32

-- | @sqlbatch_conn_db_config@ (unsafe: reads or writes a flag).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_db_config"
  c_sqlbatch_conn_db_config :: Ptr CConn -> Int32 -> Int32 -> Ptr Int32 -> IO Int32

-- | @sqlbatch_conn_checkpoint@ (safe: writes the database file).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_checkpoint"
  c_sqlbatch_conn_checkpoint :: Ptr CConn -> CString -> CSize -> Int32 -> Ptr Int32 -> Ptr Int32 -> IO Int32

-- | @sqlbatch_conn_status@ (unsafe: reads counters).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_status"
  c_sqlbatch_conn_status :: Ptr CConn -> Int32 -> CBool -> Ptr Int64 -> Ptr Int64 -> IO Int32

-- | @sqlbatch_conn_txn_state@ (unsafe: reads the state).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_txn_state"
  c_sqlbatch_conn_txn_state :: Ptr CConn -> CString -> CSize -> Ptr Int32 -> IO Int32

-- | @sqlbatch_conn_encoding@ (safe: it runs @PRAGMA encoding@, which may read the schema
-- and call a hook, the authorizer or the trace).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_encoding"
  c_sqlbatch_conn_encoding :: Ptr CConn -> Ptr Int32 -> IO Int32

-- | @sqlbatch_conn_readonly@ (unsafe: reads a flag).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_readonly"
  c_sqlbatch_conn_readonly :: Ptr CConn -> CString -> CSize -> Ptr CBool -> IO Int32

-- | @sqlbatch_conn_filename@ (unsafe: reads a name).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_filename"
  c_sqlbatch_conn_filename :: Ptr CConn -> CString -> CSize -> Ptr CString -> IO Int32

------------------------------------------------------------------------------------------
-- Hooks and tracing

-- | @sqlbatch_conn_update_hook_batched@ (safe: replacing a hook runs the old destroy, which is Haskell).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_update_hook_batched"
  c_sqlbatch_conn_update_hook_batched :: Ptr CConn -> CSize -> FunPtr UpdateBatchFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_commit_hook@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_commit_hook"
  c_sqlbatch_conn_commit_hook :: Ptr CConn -> FunPtr CommitFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_rollback_hook@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_rollback_hook"
  c_sqlbatch_conn_rollback_hook :: Ptr CConn -> FunPtr RollbackFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_wal_hook@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_wal_hook"
  c_sqlbatch_conn_wal_hook :: Ptr CConn -> FunPtr WalFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_progress_handler@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_progress_handler"
  c_sqlbatch_conn_progress_handler :: Ptr CConn -> Int32 -> FunPtr CommitFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_busy_handler@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_busy_handler"
  c_sqlbatch_conn_busy_handler :: Ptr CConn -> FunPtr BusyFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_authorizer@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_authorizer"
  c_sqlbatch_conn_authorizer :: Ptr CConn -> FunPtr AuthFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_change_feed@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_change_feed"
  c_sqlbatch_conn_change_feed :: Ptr CConn -> CSize -> FunPtr FeedFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_preupdate_hook@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_preupdate_hook"
  c_sqlbatch_conn_preupdate_hook :: Ptr CConn -> Word32 -> FunPtr PreUpdateFn -> Ptr () -> FunPtr DestroyFn
    -> IO Int32

-- | @sqlbatch_conn_trace@ (safe: as the update hook).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_trace"
  c_sqlbatch_conn_trace :: Ptr CConn -> Word32 -> FunPtr TraceFn -> Ptr () -> FunPtr DestroyFn -> IO Int32

------------------------------------------------------------------------------------------
-- Sessions and changesets

-- | @sqlbatch_session_create@ (safe: reads the schema).
foreign import capi safe "hs_sqlbatch.h sqlbatch_session_create"
  c_sqlbatch_session_create :: Ptr CConn -> CString -> CSize -> Ptr (Ptr CSession) -> IO Int32

-- | @sqlbatch_session_attach@ (safe: reads the schema).
foreign import capi safe "hs_sqlbatch.h sqlbatch_session_attach"
  c_sqlbatch_session_attach :: Ptr CSession -> CString -> CSize -> IO Int32

-- | @sqlbatch_session_set_enabled@ (unsafe: touches only the session's memory).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_session_set_enabled"
  c_sqlbatch_session_set_enabled :: Ptr CSession -> CBool -> IO Int32

-- | @sqlbatch_session_set_indirect@ (unsafe: touches only the session's memory).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_session_set_indirect"
  c_sqlbatch_session_set_indirect :: Ptr CSession -> CBool -> IO Int32

-- | @sqlbatch_session_is_empty@ (unsafe: touches only the session's memory).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_session_is_empty"
  c_sqlbatch_session_is_empty :: Ptr CSession -> Ptr CBool -> IO Int32

-- | @sqlbatch_session_changeset@ (safe: reads the tables).
foreign import capi safe "hs_sqlbatch.h sqlbatch_session_changeset"
  c_sqlbatch_session_changeset :: Ptr CSession -> Ptr (Ptr Word8) -> Ptr CSize -> IO Int32

-- | @sqlbatch_session_patchset@ (safe: reads the tables).
foreign import capi safe "hs_sqlbatch.h sqlbatch_session_patchset"
  c_sqlbatch_session_patchset :: Ptr CSession -> Ptr (Ptr Word8) -> Ptr CSize -> IO Int32

-- | @sqlbatch_session_diff@ (safe: reads the tables).
foreign import capi safe "hs_sqlbatch.h sqlbatch_session_diff"
  c_sqlbatch_session_diff :: Ptr CSession -> CString -> CSize -> CString -> CSize -> IO Int32

-- | @sqlbatch_session_delete@ (safe: frees what the session recorded).
foreign import capi safe "hs_sqlbatch.h sqlbatch_session_delete"
  c_sqlbatch_session_delete :: Ptr CSession -> IO Int32

-- | @sqlbatch_conn_apply_changeset@ (safe: writes, and runs Haskell callbacks).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_apply_changeset"
  c_sqlbatch_conn_apply_changeset :: Ptr CConn -> Ptr Word8 -> CSize -> Word32 -> Int32 -> FunPtr ConflictFn
    -> FunPtr FilterFn -> Ptr () -> IO Int32

-- | @sqlbatch_changeset_invert@ (safe: walks the whole changeset).
foreign import capi safe "hs_sqlbatch.h sqlbatch_changeset_invert"
  c_sqlbatch_changeset_invert :: Ptr Word8 -> CSize -> Ptr (Ptr Word8) -> Ptr CSize -> IO Int32

-- | @sqlbatch_changeset_concat@ (safe: walks both changesets).
foreign import capi safe "hs_sqlbatch.h sqlbatch_changeset_concat"
  c_sqlbatch_changeset_concat :: Ptr Word8 -> CSize -> Ptr Word8 -> CSize -> Ptr (Ptr Word8) -> Ptr CSize
    -> IO Int32

-- | @sqlbatch_changeset_read@ (safe: calls back into Haskell).
foreign import capi safe "hs_sqlbatch.h sqlbatch_changeset_read"
  c_sqlbatch_changeset_read :: Ptr Word8 -> CSize -> Word32 -> CSize -> FunPtr ReadFn -> Ptr () -> IO Int32

------------------------------------------------------------------------------------------
-- SQL functions, aggregates and collations

-- | @sqlbatch_conn_create_function@ (safe: replacing a registration runs its destroy).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_create_function"
  c_sqlbatch_conn_create_function
  :: Ptr CConn -> Ptr CChar -> CSize -> Int32 -> Word32 -> FunPtr ScalarFn -> Ptr ()
  -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_create_aggregate@ (safe: as create_function. The struct is @sqlbatch_aggregate@ (step, finish, inverse, value, batch_rows, batch_bytes)).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_create_aggregate"
  c_sqlbatch_conn_create_aggregate
  :: Ptr CConn -> Ptr CChar -> CSize -> Int32 -> Word32 -> Ptr () -> Ptr ()
  -> FunPtr DestroyFn -> IO Int32

-- | @sqlbatch_conn_create_collation@ (safe: as create_function).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_create_collation"
  c_sqlbatch_conn_create_collation
  :: Ptr CConn -> Ptr CChar -> CSize -> FunPtr CollationFn -> Ptr () -> FunPtr DestroyFn
  -> IO Int32

-- | @sqlbatch_call_result@ (unsafe: copies one value into SQLite's result).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_call_result"
  c_sqlbatch_call_result :: Ptr CCall -> Ptr CValue -> Ptr Word8 -> CSize -> IO Int32

-- | @sqlbatch_call_error@ (unsafe: copies the message).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_call_error"
  c_sqlbatch_call_error :: Ptr CCall -> Int32 -> Ptr CChar -> CSize -> IO ()

------------------------------------------------------------------------------------------
-- Extensions

-- | @sqlbatch_conn_enable_load_extension@ (safe: takes SQLite's mutex).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_enable_load_extension"
  c_sqlbatch_conn_enable_load_extension :: Ptr CConn -> CBool -> IO Int32

-- | @sqlbatch_conn_load_extension@ (safe: opens a file and runs the entry point).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_load_extension"
  c_sqlbatch_conn_load_extension
  :: Ptr CConn -> Ptr CChar -> CSize -> Ptr CChar -> CSize -> IO Int32

-- | @sqlbatch_conn_init_extension@ (safe: runs the entry point).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_init_extension"
  c_sqlbatch_conn_init_extension :: Ptr CConn -> ExtensionEntry -> IO Int32

-- | @sqlbatch_auto_extension@ (safe: takes SQLite's global mutex).
foreign import capi safe "hs_sqlbatch.h sqlbatch_auto_extension"
  c_sqlbatch_auto_extension :: ExtensionEntry -> IO Int32

-- | @sqlbatch_cancel_auto_extension@ (safe: takes SQLite's global mutex).
foreign import capi safe "hs_sqlbatch.h sqlbatch_cancel_auto_extension"
  c_sqlbatch_cancel_auto_extension :: ExtensionEntry -> IO Int32

------------------------------------------------------------------------------------------
-- Callback wrappers

-- | Makes a C function pointer of a Haskell @DestroyFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkDestroy :: DestroyFn -> IO (FunPtr DestroyFn)

-- | Makes a C function pointer of a Haskell @UpdateBatchFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkUpdateBatch :: UpdateBatchFn -> IO (FunPtr UpdateBatchFn)

-- | Makes a C function pointer of a Haskell @CommitFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkCommit :: CommitFn -> IO (FunPtr CommitFn)

-- | Makes a C function pointer of a Haskell @RollbackFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkRollback :: RollbackFn -> IO (FunPtr RollbackFn)

-- | Makes a C function pointer of a Haskell @WalFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkWal :: WalFn -> IO (FunPtr WalFn)

-- | Makes a C function pointer of a Haskell @BusyFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkBusy :: BusyFn -> IO (FunPtr BusyFn)

-- | Makes a C function pointer of a Haskell @AuthFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkAuth :: AuthFn -> IO (FunPtr AuthFn)

-- | Makes a C function pointer of a Haskell @FeedFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkFeed :: FeedFn -> IO (FunPtr FeedFn)

-- | Makes a C function pointer of a Haskell @PreUpdateFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkPreUpdate :: PreUpdateFn -> IO (FunPtr PreUpdateFn)

-- | Makes a C function pointer of a Haskell @TraceFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkTrace :: TraceFn -> IO (FunPtr TraceFn)

-- | Makes a C function pointer of a Haskell @ConflictFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkConflict :: ConflictFn -> IO (FunPtr ConflictFn)

-- | Makes a C function pointer of a Haskell @FilterFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkFilter :: FilterFn -> IO (FunPtr FilterFn)

-- | Makes a C function pointer of a Haskell @ReadFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkRead :: ReadFn -> IO (FunPtr ReadFn)

-- | Makes a C function pointer of a Haskell @ScalarFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkScalar :: ScalarFn -> IO (FunPtr ScalarFn)

-- | Makes a C function pointer of a Haskell @StepFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkStep :: StepFn -> IO (FunPtr StepFn)

-- | Makes a C function pointer of a Haskell @FinishFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkFinish :: FinishFn -> IO (FunPtr FinishFn)

-- | Makes a C function pointer of a Haskell @CollationFn@ (freed with 'Foreign.Ptr.freeHaskellFunPtr'; this binding makes one per callback kind, once).
foreign import ccall "wrapper" mkCollation :: CollationFn -> IO (FunPtr CollationFn)

------------------------------------------------------------------------------------------
-- Callback types

-- | @sqlbatch_destroy_fn@: frees a registration's user data; the library calls it exactly once.
type DestroyFn = Ptr () -> IO ()

-- | @sqlbatch_update_batch_fn@: a batch of update-hook events (changes, their count, tables, their count).
type UpdateBatchFn = Ptr () -> Ptr () -> CSize -> Ptr () -> CSize -> IO Int32

-- | @sqlbatch_commit_fn@ (also the progress handler): non-zero vetoes (interrupts).
type CommitFn = Ptr () -> IO Int32

-- | @sqlbatch_rollback_fn@.
type RollbackFn = Ptr () -> IO ()

-- | @sqlbatch_wal_fn@: the database name and the frames in the log.
type WalFn = Ptr () -> CString -> Int32 -> IO Int32

-- | @sqlbatch_busy_fn@: the count of calls for this lock; non-zero retries.
type BusyFn = Ptr () -> Int32 -> IO Int32

-- | @sqlbatch_authorizer_fn@: the action code and up to four names.
type AuthFn = Ptr () -> Int32 -> CString -> CString -> CString -> CString -> IO Int32

-- | @sqlbatch_change_feed_fn@: a batch of changes, their tables and why it was handed over.
type FeedFn = Ptr () -> Ptr () -> CSize -> Ptr () -> CSize -> Int32 -> IO ()

-- | @sqlbatch_preupdate_fn@: one @sqlbatch_preupdate@.
type PreUpdateFn = Ptr () -> Ptr () -> IO ()

-- | @sqlbatch_trace_fn@: one @sqlbatch_trace_event@.
type TraceFn = Ptr () -> Ptr CTraceEvent -> IO ()

-- | @sqlbatch_conflict_fn@ of a changeset apply: one @sqlbatch_conflict@.
type ConflictFn = Ptr () -> Ptr () -> IO Int32

-- | @sqlbatch_filter_fn@ of a changeset apply: a table name; non-zero applies its changes.
type FilterFn = Ptr () -> CString -> IO Int32

-- | @sqlbatch_changeset_read_fn@: a batch of decoded changes and the base of their bytes. Reading calls back into Haskell: safe.
type ReadFn = Ptr () -> Ptr () -> CSize -> Ptr Word8 -> IO Int32

-- | @sqlbatch_scalar_fn@: one call of an SQL function (its arguments as cells).
type ScalarFn = Ptr CCall -> Ptr () -> Ptr CValue -> CSize -> Ptr Word8 -> IO ()

-- | @sqlbatch_step_fn@: a batch of argument rows of an aggregate group, and its state slot.
type StepFn = Ptr CCall -> Ptr () -> Ptr (Ptr ()) -> Ptr CValue -> CSize -> CSize -> Ptr Word8 -> IO ()

-- | @sqlbatch_finish_fn@: an aggregate group's end, with its state.
type FinishFn = Ptr CCall -> Ptr () -> Ptr () -> IO ()

-- | @sqlbatch_collation_fn@: compares two texts.
type CollationFn = Ptr () -> Ptr Word8 -> CSize -> Ptr Word8 -> CSize -> IO Int32

-- | The C type of an extension's entry point (@sqlbatch_extension_init_fn@):
-- @int (*)(void *db, char **err_msg, const void *api)@. On failure it sets @*err_msg@ to a
-- message from @sqlite3_malloc@ and returns an SQLite error code.
type ExtensionInit = Ptr () -> Ptr (Ptr CChar) -> Ptr () -> IO CInt

-- | The address of an entry point, as @foreign import ccall \"&sqlite3_NAME_init\"@ gives it.
type ExtensionEntry = FunPtr ExtensionInit

------------------------------------------------------------------------------------------
-- The runtime

-- | The RTS's count of capabilities (@n_capabilities@, rts/Threads.h): a global the RTS
-- changes only while every capability is stopped.
foreign import ccall "&n_capabilities" rtsCapabilities :: Ptr CUInt
