{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE CApiFFI #-}
{-# LANGUAGE InterruptibleFFI #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE UnboxedTuples #-}
{-# LANGUAGE UnliftedFFITypes #-}
-- |
-- Module      : Database.SQLBatch.Raw
-- Description : Foreign imports mirroring @include/sqlbatch.h@, one per C function
--
-- The names are the C names with a @c_@ prefix. Pointer arguments are typed with the
-- records of "Database.SQLBatch.Raw.Types" where the C type is a struct the caller
-- allocates. See the header for every function's contract; nothing here adds behaviour.
--
-- The imports use the @capi@ calling convention: GHC compiles each call against the C
-- header, so a change of a function's signature in @include/sqlbatch.h@ breaks the build
-- here instead of the program at run time. They all name @cbits/hs_sqlbatch.h@, which
-- includes @sqlbatch.h@: the latter cannot be included twice in one C file (its inline
-- helpers sit after the include guard's @#endif@).
--
-- = @safe@, @unsafe@ or @interruptible@
--
-- An @unsafe@ call is a plain C call (a few ns), but while it runs the calling capability
-- can neither run other Haskell threads nor take part in garbage collection, so it must
-- only be used for calls that are short and never block. A @safe@ call releases the
-- capability first (about 50-100 ns more), so the rest of the program keeps running.
-- sqlbatch moves whole batches per call, so the calls that run SQL are all @safe@ and
-- their cost is paid once per batch, script or bulk write, not once per value:
--
-- * __safe__: everything that may run SQL, touch the file system or wait for a lock
--   (open, close, prepare, fetch, exec, execute_many, bind, reset, finalize, and
--   column_not_null, which may load the schema).
-- * __unsafe__: getters that only read memory the library already has, and
--   @sqlbatch_conn_interrupt@, which only sets a flag and must be cheap to call from an
--   exception handler.
-- * __interruptible__: the @c_hs_*@ wrappers (from @cbits/hs_sqlbatch.c@) around fetch,
--   exec and execute_many. They are the ones the high-level API uses: an asynchronous
--   exception thrown to the calling thread interrupts the running statement (see that C
--   file for the mechanism), instead of waiting for it to finish. Each is a Haskell function
--   that makes two calls: an @unsafe@ one that arms the call, and the @interruptible@ one.
--
-- = Fetch-ahead and write-behind
--
-- With fetch-ahead ('c_sqlbatch_stmt_set_fetch_ahead', @SQLBATCH_OPEN_FETCH_AHEAD@) or a
-- queued write ('c_sqlbatch_stmt_execute_many_start'), the connection's worker thread may be
-- running a job, and then /every/ call on the connection, its statements, blobs and backups
-- waits for it first, the getters above included. An @unsafe@ call that waits would hold its
-- capability for as long as the job runs (a whole batch, or a slow step), stopping garbage
-- collection for the whole program, and deadlocks if the job runs a Haskell callback (an SQL
-- function, a collation, the trace or busy handler), which needs a capability too. So the
-- high-level API waits for the worker first, with one interruptible call
-- ('c_hs_sqlbatch_settle'), whenever the worker may be busy, and makes the @unsafe@ calls
-- only after it. Callers of this module who turn the options on must do the same.
module Database.SQLBatch.Raw
  ( -- * Library
    c_sqlbatch_code_str
  , c_sqlbatch_code_name
  , c_sqlbatch_version
  , c_sqlbatch_sqlite_version
    -- * Connections
  , c_sqlbatch_conn_open
  , c_sqlbatch_conn_close
  , c_sqlbatch_conn_interrupt
  , c_sqlbatch_conn_busy_timeout
  , c_sqlbatch_conn_changes
  , c_sqlbatch_conn_total_changes
  , c_sqlbatch_conn_last_insert_rowid
  , c_sqlbatch_conn_autocommit
  , c_sqlbatch_conn_last_error
  , c_sqlbatch_conn_exec
    -- * Statements
  , c_sqlbatch_stmt_prepare
  , c_sqlbatch_stmt_finalize
  , c_sqlbatch_stmt_finalize_unsafe
  , c_sqlbatch_stmt_reset
  , c_sqlbatch_stmt_reset_unsafe
  , c_sqlbatch_stmt_clear_bindings
  , c_sqlbatch_stmt_bind
  , c_sqlbatch_stmt_bind_unsafe
  , c_sqlbatch_stmt_columns
  , c_sqlbatch_stmt_column_not_null
  , c_sqlbatch_stmt_params
  , c_sqlbatch_stmt_param_count
  , c_sqlbatch_stmt_param_index
  , c_sqlbatch_stmt_readonly
  , c_sqlbatch_stmt_sql
  , c_sqlbatch_stmt_expanded_sql
  , c_sqlbatch_stmt_execute_many
  , c_sqlbatch_stmt_execute_many_start
  , c_sqlbatch_stmt_execute_many_wait
    -- * Fetch-ahead
  , c_sqlbatch_stmt_set_fetch_ahead
    -- * Batched fetch
  , c_sqlbatch_stmt_fetch
  , c_sqlbatch_stmt_fetch_into
  , c_sqlbatch_batch_get
    -- * Conversions
  , c_sqlbatch_value_convert
    -- * Interruptible wrappers (cbits/hs_sqlbatch.c)
  , c_hs_sqlbatch_ensure_handler
  , c_hs_sqlbatch_fetch_into
  , c_hs_sqlbatch_rewind_fetch_into
  , c_hs_sqlbatch_rewind_step_quick
  , c_hs_sqlbatch_fetch
  , c_hs_sqlbatch_exec
  , c_hs_sqlbatch_execute_many
  , c_hs_sqlbatch_execute_many_start
  , c_hs_sqlbatch_execute_many_wait
  , c_hs_sqlbatch_settle
  , c_hs_sqlbatch_utf8_to_utf16
  , c_hs_sqlbatch_utf16_to_utf8
    -- * Value and cell types
  , CValue
  , CColumn
  , CStr
  ) where

import Data.Int (Int32, Int64)
import Data.Word (Word32, Word64, Word8)
import Foreign.C.String (CString)
import Foreign.C.Types (CBool (..), CChar, CInt (..), CPtrdiff (..), CSize (..))
import GHC.Exts (ByteArray#, MutableByteArray#, RealWorld, ThreadId#, myThreadId#)
import GHC.IO (IO (..), unIO)
import Foreign.Ptr (Ptr)

import Database.SQLBatch.Raw.Types

-- | @sqlbatch_value@ (16 bytes; read with the offsets in "Database.SQLBatch.Raw.Types").
data CValue

-- | @sqlbatch_column@.
data CColumn

-- | @sqlbatch_str@.
data CStr

-- | @sqlbatch_code_str@ (unsafe: returns a static string): describes any status code.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_code_str"
  c_sqlbatch_code_str :: Int32 -> IO CString

-- | @sqlbatch_code_name@ (unsafe: returns a static string): the symbolic name of a status
-- code (@\"SQLITE_CONSTRAINT_UNIQUE\"@, @\"SQLBATCH_E_RANGE\"@), NULL for an unknown code.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_code_name"
  c_sqlbatch_code_name :: Int32 -> IO CString

-- | @sqlbatch_version@: the library's version, static.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_version"
  c_sqlbatch_version :: IO CString

-- | @sqlbatch_sqlite_version@: the bundled SQLite's version, static.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_sqlite_version"
  c_sqlbatch_sqlite_version :: IO CString

-- | @sqlbatch_conn_open@ (safe: opens files, may wait for locks).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_open"
  c_sqlbatch_conn_open :: Ptr CChar -> CSize -> Word32 -> Ptr (Ptr CConn) -> IO Int32

-- | @sqlbatch_conn_close@ (safe: may checkpoint and sync). Cannot fail; NULL is a no-op.
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_close"
  c_sqlbatch_conn_close :: Ptr CConn -> IO ()

-- | @sqlbatch_conn_interrupt@ (unsafe: sets a flag; callable from any thread).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_interrupt"
  c_sqlbatch_conn_interrupt :: Ptr CConn -> IO ()

-- | @sqlbatch_conn_busy_timeout@ (unsafe: stores a setting).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_busy_timeout"
  c_sqlbatch_conn_busy_timeout :: Ptr CConn -> Int32 -> IO Int32

-- | @sqlbatch_conn_changes@ (unsafe: reads a counter).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_changes"
  c_sqlbatch_conn_changes :: Ptr CConn -> Ptr Int64 -> IO Int32

-- | @sqlbatch_conn_total_changes@ (unsafe: reads a counter).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_total_changes"
  c_sqlbatch_conn_total_changes :: Ptr CConn -> Ptr Int64 -> IO Int32

-- | @sqlbatch_conn_last_insert_rowid@ (unsafe: reads a counter).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_last_insert_rowid"
  c_sqlbatch_conn_last_insert_rowid :: Ptr CConn -> Ptr Int64 -> IO Int32

-- | @sqlbatch_conn_autocommit@ (unsafe: reads a flag).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_autocommit"
  c_sqlbatch_conn_autocommit :: Ptr CConn -> Ptr CBool -> IO Int32

-- | @sqlbatch_conn_last_error@ (unsafe: copies a struct).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_conn_last_error"
  c_sqlbatch_conn_last_error :: Ptr CConn -> Ptr CError -> IO Int32

-- | @sqlbatch_conn_exec@ (safe: runs a whole script). The parameter set may be NULL
-- (no parameters), and so may the result.
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_exec"
  c_sqlbatch_conn_exec
    :: Ptr CConn -> Ptr CChar -> CSize -> Ptr CParams -> Ptr ExecResult -> IO Int32

-- | @sqlbatch_stmt_prepare@ (safe: may load the schema from disk, wait for locks).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_prepare"
  c_sqlbatch_stmt_prepare
    :: Ptr CConn -> Ptr CChar -> CSize -> Word32 -> Ptr (Ptr CStmt) -> Ptr CSize -> IO Int32

-- | @sqlbatch_stmt_finalize@ (safe: ending a statement may end its autocommit transaction).
-- Cannot fail; NULL is a no-op.
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_finalize"
  c_sqlbatch_stmt_finalize :: Ptr CStmt -> IO ()

-- | @sqlbatch_stmt_finalize@, unsafe: only for a statement that is not in the middle of a
-- run (its finalize does no I/O and runs no callback) on a connection whose worker has no
-- job (it does not wait); "Database.SQLBatch.Internal" knows which.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_finalize"
  c_sqlbatch_stmt_finalize_unsafe :: Ptr CStmt -> IO ()

-- | @sqlbatch_stmt_reset@ (safe: as finalize).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_reset"
  c_sqlbatch_stmt_reset :: Ptr CStmt -> IO Int32

-- | @sqlbatch_stmt_reset@, unsafe: only for a statement that is reset already or ran to
-- its end (SQLite has ended its transaction then, so the reset does no I/O and takes no
-- lock; "Database.SQLBatch.Internal" knows which).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_reset"
  c_sqlbatch_stmt_reset_unsafe :: Ptr CStmt -> IO Int32

-- | @sqlbatch_stmt_clear_bindings@ (unsafe: sets parameters to NULL).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_clear_bindings"
  c_sqlbatch_stmt_clear_bindings :: Ptr CStmt -> IO Int32

-- | @sqlbatch_stmt_bind@ (safe: copies the bytes, which may be large, and resets a
-- statement that has run).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_bind"
  c_sqlbatch_stmt_bind :: Ptr CStmt -> Ptr CParams -> IO Int32

-- | @sqlbatch_stmt_bind@, unsafe: only for a statement that needs no reset (as
-- 'c_sqlbatch_stmt_reset_unsafe') and values of a few KiB at most.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_bind"
  c_sqlbatch_stmt_bind_unsafe :: Ptr CStmt -> Ptr CParams -> IO Int32

-- | @sqlbatch_stmt_columns@ (unsafe: reads the statement's metadata).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_columns"
  c_sqlbatch_stmt_columns :: Ptr CStmt -> Ptr (Ptr CColumn) -> Ptr CSize -> IO Int32

-- | @sqlbatch_stmt_column_not_null@ (safe: looks up the schema).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_column_not_null"
  c_sqlbatch_stmt_column_not_null :: Ptr CStmt -> CSize -> Ptr Int32 -> IO Int32

-- | @sqlbatch_stmt_params@ (unsafe: reads the statement's metadata).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_params"
  c_sqlbatch_stmt_params :: Ptr CStmt -> Ptr (Ptr CStr) -> Ptr CSize -> IO Int32

-- | @sqlbatch_stmt_param_count@ (unsafe: reads the statement's metadata): the parameter
-- count without building the names array of @sqlbatch_stmt_params@.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_param_count"
  c_sqlbatch_stmt_param_count :: Ptr CStmt -> Ptr CSize -> IO Int32

-- | @sqlbatch_stmt_param_index@ (unsafe: a lookup). A name without its prefix matches
-- @:x@, then @\@x@, then @$x@ (the rule of exec and a named bind).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_param_index"
  c_sqlbatch_stmt_param_index :: Ptr CStmt -> Ptr CChar -> CSize -> Ptr CSize -> IO Int32

-- | @sqlbatch_stmt_readonly@ (unsafe: reads a flag).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_readonly"
  c_sqlbatch_stmt_readonly :: Ptr CStmt -> Ptr CBool -> IO Int32

-- | @sqlbatch_stmt_sql@ (unsafe: reads the statement's text).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_sql"
  c_sqlbatch_stmt_sql :: Ptr CStmt -> Ptr CStr -> IO Int32

-- | @sqlbatch_stmt_expanded_sql@ (unsafe: formats the statement's text).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_expanded_sql"
  c_sqlbatch_stmt_expanded_sql :: Ptr CStmt -> Ptr CStr -> IO Int32

-- | @sqlbatch_stmt_execute_many@ (safe: runs the statement once per parameter row): the
-- parameter set holds the rows' values one row after another, and no names.
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_execute_many"
  c_sqlbatch_stmt_execute_many
    :: Ptr CStmt -> Ptr CParams -> CSize -> Ptr WriteResult -> IO Int32

-- | @sqlbatch_stmt_execute_many_start@ (safe: queues the rows for the connection's worker;
-- runs them itself when called from a callback on the worker). The parameter memory (the
-- values and their bytes, not the 'CParams' struct) must stay valid and unchanged until
-- 'c_sqlbatch_stmt_execute_many_wait' returns.
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_execute_many_start"
  c_sqlbatch_stmt_execute_many_start :: Ptr CStmt -> Ptr CParams -> CSize -> IO Int32

-- | @sqlbatch_stmt_execute_many_wait@ (safe: waits for the worker to run the queued rows).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_execute_many_wait"
  c_sqlbatch_stmt_execute_many_wait :: Ptr CStmt -> Ptr WriteResult -> IO Int32

-- | @sqlbatch_stmt_set_fetch_ahead@ (safe: may wait for the worker to finish the batch it
-- steps).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_set_fetch_ahead"
  c_sqlbatch_stmt_set_fetch_ahead :: Ptr CStmt -> CBool -> IO Int32

-- | @sqlbatch_stmt_fetch@ (safe: steps the statement up to @max_rows@ times).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_fetch"
  c_sqlbatch_stmt_fetch :: Ptr CStmt -> CSize -> CSize -> Ptr Batch -> IO Int32

-- | @sqlbatch_stmt_fetch_into@ (safe: as fetch).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_fetch_into"
  c_sqlbatch_stmt_fetch_into :: Ptr CStmt -> CSize -> Ptr Word8 -> CSize -> Ptr Batch -> IO Int32

-- | @sqlbatch_batch_get@ (unsafe: copies one cell).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_batch_get"
  c_sqlbatch_batch_get :: Ptr CStmt -> Ptr Batch -> CSize -> CSize -> Ptr CValue -> IO Int32

-- | @sqlbatch_value_convert@: one value converted to another storage class exactly as
-- @sqlite3_column_int64@ / @_double@ / @_text@ / @_blob@ would (unsafe: a short computation
-- in memory; TEXT to a number uses a private in-memory SQLite connection of the thread).
-- Arguments: value, data, data_len, to, out_value, buf (32 bytes), buf_len.
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_value_convert"
  c_sqlbatch_value_convert
    :: Ptr CValue -> Ptr Word8 -> CSize -> Word8 -> Ptr CValue -> Ptr Word8 -> CSize -> IO Int32

-- | Installs the SIGPIPE handler that turns GHC's interruption of an @interruptible@ call into
-- @sqlbatch_conn_interrupt@, unless it is in place (0 = was in place, 1 = installed, -1 = error).
foreign import capi unsafe "hs_sqlbatch.h hs_sqlbatch_ensure_handler"
  c_hs_sqlbatch_ensure_handler :: IO CInt

-- The interruptible wrappers below are each an @unsafe@ call of @hs_sqlbatch_arm@ followed
-- by the @interruptible@ call, which takes the token the first returns (see "A cancellation
-- at any moment of the call" in @cbits/hs_sqlbatch.c@: the arm marks the call cancelled if
-- an exception is already queued for the thread, and so does a signal that lands between
-- the two calls; either would otherwise be lost). The two must run on the same OS thread, so
-- nothing may stand between them where GHC could switch threads (a heap or stack check, the
-- evaluation of an argument): each wrapper forces its arguments before the arm, and the
-- result of the arm goes straight to the second call (in GHC 9.0's Cmm: the arm, then
-- @suspendThread@). The C side checks the token and ignores an arm that is not its own.
--
-- The wrappers are NOINLINE, but for the two fetches, which are INLINE: a safe call pushes
-- the frame it returns to, and a wrapper of its own would add a second one under it (the
-- wrapper's return to its caller), which the runtime walks at every safe call of the
-- thread (@threadPaused@). Inlined, the arm and the call still have nothing between them:
-- the arguments are forced first (an evaluation is not moved past the arm, a call with
-- side effects), an @unsafe@ call's result needs no heap check, and the arm's result is
-- the call's argument (checked in GHC 9.0's Cmm of every module of the package they are
-- inlined into: "Database.SQLBatch.Internal.Core", "Database.SQLBatch.Internal",
-- "Database.SQLBatch", "Database.SQLite3.Internal" and "Database.SQLBatch.Direct").

-- | Arms the next interruptible call of the OS thread (unsafe: a few loads from the thread's
-- TSO and stores to thread-local memory); returns its token. (@ccall@: @capi@ cannot pass a
-- @ThreadId#@, which GHC passes as the pointer to the thread's TSO.)
foreign import ccall unsafe "hs_sqlbatch_arm"
  c_hs_sqlbatch_arm :: ThreadId# -> IO Word64

-- | @hs_sqlbatch_arm@ for the calling thread.
arm :: IO Word64
arm = IO $ \s -> case myThreadId# s of (# s1, t #) -> unIO (c_hs_sqlbatch_arm t) s1
{-# INLINE arm #-}

-- | @sqlbatch_stmt_fetch_into@, interruptible by asynchronous exceptions. The connection is
-- the one the statement was prepared on.
c_hs_sqlbatch_fetch_into
  :: Ptr CConn -> Ptr CStmt -> CSize -> Ptr Word8 -> CSize -> Ptr Batch -> IO Int32
c_hs_sqlbatch_fetch_into !c !s !n !b !l !o = arm >>= \t -> armedFetchInto t c s n b l o
{-# INLINE c_hs_sqlbatch_fetch_into #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_fetch_into"
  armedFetchInto
    :: Word64 -> Ptr CConn -> Ptr CStmt -> CSize -> Ptr Word8 -> CSize -> Ptr Batch -> IO Int32

-- | @sqlbatch_stmt_reset@ and then @sqlbatch_stmt_fetch_into@ (if the reset succeeded), in
-- one call interruptible by asynchronous exceptions.
c_hs_sqlbatch_rewind_fetch_into
  :: Ptr CConn -> Ptr CStmt -> CSize -> Ptr Word8 -> CSize -> Ptr Batch -> IO Int32
c_hs_sqlbatch_rewind_fetch_into !c !s !n !b !l !o =
  arm >>= \t -> armedRewindFetchInto t c s n b l o
{-# INLINE c_hs_sqlbatch_rewind_fetch_into #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_rewind_fetch_into"
  armedRewindFetchInto
    :: Word64 -> Ptr CConn -> Ptr CStmt -> CSize -> Ptr Word8 -> CSize -> Ptr Batch -> IO Int32

-- | @sqlbatch_stmt_reset_fetch_into@ of at most one row into no
-- buffer, as an @unsafe@ call: only for a statement that cannot wait or call back into Haskell
-- (the kept deferred @BEGIN@ of @runKept@).
foreign import capi unsafe "hs_sqlbatch.h hs_sqlbatch_rewind_step_quick"
  c_hs_sqlbatch_rewind_step_quick :: Ptr CStmt -> Ptr Batch -> IO Int32

-- | @sqlbatch_stmt_fetch@, interruptible by asynchronous exceptions.
c_hs_sqlbatch_fetch :: Ptr CConn -> Ptr CStmt -> CSize -> CSize -> Ptr Batch -> IO Int32
c_hs_sqlbatch_fetch !c !s !n !m !o = arm >>= \t -> armedFetch t c s n m o
{-# NOINLINE c_hs_sqlbatch_fetch #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_fetch"
  armedFetch :: Word64 -> Ptr CConn -> Ptr CStmt -> CSize -> CSize -> Ptr Batch -> IO Int32

-- | @sqlbatch_conn_exec@, interruptible by asynchronous exceptions.
c_hs_sqlbatch_exec :: Ptr CConn -> Ptr CChar -> CSize -> Ptr CParams -> Ptr ExecResult -> IO Int32
c_hs_sqlbatch_exec !c !q !n !p !r = arm >>= \t -> armedExec t c q n p r
{-# NOINLINE c_hs_sqlbatch_exec #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_exec"
  armedExec :: Word64 -> Ptr CConn -> Ptr CChar -> CSize -> Ptr CParams -> Ptr ExecResult -> IO Int32

-- | @sqlbatch_stmt_execute_many@, interruptible by asynchronous exceptions. The connection
-- is the one the statement was prepared on.
c_hs_sqlbatch_execute_many
  :: Ptr CConn -> Ptr CStmt -> Ptr CParams -> CSize -> Ptr WriteResult -> IO Int32
c_hs_sqlbatch_execute_many !c !s !p !n !r = arm >>= \t -> armedExecuteMany t c s p n r
{-# NOINLINE c_hs_sqlbatch_execute_many #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_execute_many"
  armedExecuteMany
    :: Word64 -> Ptr CConn -> Ptr CStmt -> Ptr CParams -> CSize -> Ptr WriteResult -> IO Int32

-- | @sqlbatch_stmt_execute_many_start@, interruptible by asynchronous exceptions.
c_hs_sqlbatch_execute_many_start :: Ptr CConn -> Ptr CStmt -> Ptr CParams -> CSize -> IO Int32
c_hs_sqlbatch_execute_many_start !c !s !p !n =
  arm >>= \t -> armedExecuteManyStart t c s p n
{-# NOINLINE c_hs_sqlbatch_execute_many_start #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_execute_many_start"
  armedExecuteManyStart :: Word64 -> Ptr CConn -> Ptr CStmt -> Ptr CParams -> CSize -> IO Int32

-- | @sqlbatch_stmt_execute_many_wait@, interruptible by asynchronous exceptions (the
-- interrupt stops the queued rows, as it stops the synchronous call's).
c_hs_sqlbatch_execute_many_wait :: Ptr CConn -> Ptr CStmt -> Ptr WriteResult -> IO Int32
c_hs_sqlbatch_execute_many_wait !c !s !r = arm >>= \t -> armedExecuteManyWait t c s r
{-# NOINLINE c_hs_sqlbatch_execute_many_wait #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_execute_many_wait"
  armedExecuteManyWait :: Word64 -> Ptr CConn -> Ptr CStmt -> Ptr WriteResult -> IO Int32

-- | Waits until the connection's worker has no job (see "Fetch-ahead and write-behind"
-- above), interruptible by asynchronous exceptions, which stop the job.
c_hs_sqlbatch_settle :: Ptr CConn -> IO Int32
c_hs_sqlbatch_settle !c = arm >>= \t -> armedSettle t c
{-# NOINLINE c_hs_sqlbatch_settle #-}

foreign import capi interruptible "hs_sqlbatch.h hs_sqlbatch_settle"
  armedSettle :: Word64 -> Ptr CConn -> IO Int32

-- | Decodes UTF-8 into a UTF-16 array, starting at the given unit of the array, which must
-- have room for as many units as there are bytes; returns the units written or -1 for
-- invalid UTF-8 (unsafe: a short loop over one value, and the only way to pass an
-- unpinned array).
foreign import capi unsafe "hs_sqlbatch.h hs_sqlbatch_utf8_to_utf16"
  c_hs_sqlbatch_utf8_to_utf16
    :: MutableByteArray# RealWorld -> CSize -> Ptr Word8 -> CSize -> IO CPtrdiff

-- | Encodes UTF-16 units of an array (from the given unit on) as UTF-8 into a buffer with
-- room for 3 bytes per unit; returns the bytes written (unsafe: a short loop over one value,
-- and the only way to pass an unpinned array).
foreign import capi unsafe "hs_sqlbatch.h hs_sqlbatch_utf16_to_utf8"
  c_hs_sqlbatch_utf16_to_utf8 :: Ptr Word8 -> ByteArray# -> CSize -> CSize -> IO CSize
