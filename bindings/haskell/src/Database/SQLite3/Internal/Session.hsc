{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- |
-- Module      : Database.SQLite3.Internal.Session
-- Description : Sessions, changesets and patchsets for "Database.SQLite3.Direct" and
--               "Database.SQLite3"
--
-- SQLite's session extension (<https://www.sqlite.org/sessionintro.html>) over sqlbatch's
-- C ABI: a 'Session' records the changes made to some tables of a connection; its
-- changeset (or the smaller patchset) is a byte string that 'applyChangeset' replays on
-- another database, settling conflicts with a handler or a policy; 'invertChangeset' undoes
-- a changeset, 'concatChangesets' merges two. Every function returns its error
-- (direct-sqlite's "Direct" style); "Database.SQLite3" has the throwing forms.
--
-- = Resources
--
-- A 'Session' may be deleted twice, before or after its connection is closed, in any order
-- and from any thread ('sessionDelete'); one nobody references any more is deleted by the
-- garbage collector. Every call on a session takes its connection's lock. A live session
-- takes SQLite's one preupdate slot: while one lives, 'Database.SQLite3.Internal.Extra.setPreUpdateHook'
-- fails with 'ErrorMisuse', and while a preupdate hook is set, so does 'sessionCreate'.
--
-- = Callbacks of 'applyChangeset'
--
-- The table filter and the conflict handler run during the call, on a Haskell thread of
-- their own, while the connection is busy applying: they must not use the connection (they
-- get 'HookReentry' if they do). An exception thrown by either never unwinds through C: it
-- stops the apply (a conflict handler's answer becomes 'ConflictAbort', a filter's skips
-- every table from then on), the changes made so far are undone, and the exception is
-- rethrown by 'applyChangeset' once the call returned.
--
-- = Reading changesets
--
-- 'foldChangeset' hands the changes of a changeset (or patchset, or its inverse) to a step
-- function, in order, without a connection: the library decodes them many at a time (up to
-- 256 changes or 1 MiB of values per crossing into Haskell), so that a large changeset is
-- read in bounded memory with few foreign calls. 'changesetChanges' collects them in a list.
module Database.SQLite3.Internal.Session
  ( -- * Sessions
    Session
  , sessionCreate
  , sessionDelete
  , sessionDatabase
  , sessionAttach
  , sessionEnable
  , sessionSetIndirect
  , sessionIsEmpty
  , sessionChangeset
  , sessionPatchset
  , sessionDiff
    -- * Applying changesets
  , ApplyOptions (..)
  , defaultApplyOptions
  , ApplyFlag (..)
  , ConflictAction (..)
  , ConflictKind (..)
  , Conflict (..)
  , applyChangeset
    -- * Changesets without a connection
  , ChangesetChange (..)
  , ChangesetReadFlag (..)
  , foldChangeset
  , changesetChanges
  , invertChangeset
  , concatChangesets
  ) where

import Control.Exception (SomeException, bracket, evaluate, finally, mask_, throwIO, try)
import Control.Monad (when)
import Data.Bits ((.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32)
import Data.IORef
import Data.Maybe (fromMaybe, isJust)
import Data.Text (Text)
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word32, Word8)
import Foreign.C.String (CString)
import Foreign.C.Types (CBool (..), CChar, CSize (..))
import Foreign.ForeignPtr (newForeignPtr)
import Foreign.Marshal.Alloc (alloca)
import Foreign.Marshal.Array (peekArray)
import Foreign.Ptr (FunPtr, Ptr, castPtr, nullFunPtr, nullPtr, plusPtr)
import Foreign.StablePtr
import Foreign.Storable (peek, peekByteOff, poke)
import System.IO.Unsafe (unsafePerformIO)
import System.Mem.Weak (Weak)

import Database.SQLBatch.Raw.Types (CConn, CSession, sqlbatchOk, withBytesOrNull)
import Database.SQLBatch.Raw.Extra
import Database.SQLite3.Internal
import Database.SQLite3.Internal.Extra (ChangeOp (..))

#include "sqlbatch.h"

------------------------------------------------------------------------------------------
-- Foreign imports

------------------------------------------------------------------------------------------
-- Helpers

-- | Passes a name as (pointer, length); an empty one as NULL, which the library reads as
-- @\"main\"@.
withName :: Utf8 -> (CString -> CSize -> IO a) -> IO a
withName (Utf8 b) = withBytesOrNull b

-- | A library call's status as a result, recording the failure on the connection.
result :: Database -> a -> Int32 -> IO (Either Error a)
result db x rc
  | rc == sqlbatchOk = return (Right x)
  | otherwise = Left <$> libraryFailure db rc

misuseCode :: Int32
misuseCode = 21

-- | Runs @k@ with the open connection's handle, or fails with 'ErrorMisuse'.
withOpen :: Database -> (Ptr CConn -> IO (Either Error a)) -> IO (Either Error a)
withOpen db k = withLock db $ \c -> if c == nullPtr then ownFailure db misuseCode else k c

-- | Calls a function that hands out a buffer (@sqlbatch_free@'s), as a 'B.ByteString' the
-- garbage collector frees (no copy). Call masked.
takeBuffer :: (Ptr (Ptr Word8) -> Ptr CSize -> IO Int32) -> IO (Either Int32 B.ByteString)
takeBuffer f = alloca $ \pd -> alloca $ \pl -> do
  poke pd nullPtr
  poke pl 0
  rc <- f pd pl
  if rc /= sqlbatchOk then return (Left rc) else do
    d <- peek pd
    n <- peek pl
    if d == nullPtr then return (Right B.empty) else do
      fp <- newForeignPtr p_sqlbatch_free d
      return (Right (BI.fromForeignPtr fp 0 (fromIntegral n)))

-- | The bytes of a changeset as (pointer, length).
withBytes :: B.ByteString -> (Ptr Word8 -> CSize -> IO a) -> IO a
withBytes b k = BU.unsafeUseAsCStringLen b $ \(p, n) -> k (castPtr p) (fromIntegral n)

{-# NOINLINE sessionIds #-}
sessionIds :: IORef Int
sessionIds = unsafePerformIO (newIORef 0)

------------------------------------------------------------------------------------------
-- Sessions

-- | A session (<https://www.sqlite.org/session/session.html>): records the changes made to
-- the attached tables of one database of a connection, from its creation on. Deleted by
-- 'sessionDelete', or by the garbage collector once unreachable.
data Session = Session
  { seDb :: !Database
  , seHandle :: !(IORef (Ptr CSession))   -- ^ 'nullPtr' once deleted (under the lock)
  , seId :: !Int
  }

instance Eq Session where
  a == b = seId a == seId b

instance Show Session where
  show s = "Session <" ++ show (seId s) ++ ">"

-- | The connection a session records.
sessionDatabase :: Session -> Database
sessionDatabase = seDb

-- | <https://www.sqlite.org/session/sqlite3session_create.html>: starts a session on
-- database @schema@ (@\"main\"@, @\"temp\"@ or an attached name; empty means @\"main\"@) of
-- the connection. It records nothing until tables are attached ('sessionAttach'). Several
-- sessions may record one connection. 'ErrorMisuse' while a preupdate hook is set (SQLite
-- has one preupdate slot, which sessions need).
sessionCreate :: Database -> Utf8 -> IO (Either Error Session)
sessionCreate db schema = mask_ $ withOpen db $ \c -> withName schema $ \sp sl ->
  alloca $ \out -> do
    rc <- c_sqlbatch_session_create c sp sl out
    if rc /= sqlbatchOk then Left <$> libraryFailure db rc else do
      h <- peek out
      ref <- newIORef h
      i <- atomicModifyIORef' sessionIds (\n -> (n + 1, n + 1))
      let s = Session db ref i
      _ <- mkWeakIORef ref (() <$ sessionDelete s) :: IO (Weak (IORef (Ptr CSession)))
      return (Right s)

-- | <https://www.sqlite.org/session/sqlite3session_delete.html>: ends the session and frees
-- it. Deleting again, or after the connection was closed, is fine (@Right ()@).
sessionDelete :: Session -> IO (Either Error ())
sessionDelete s = mask_ $ withLock (seDb s) $ \_ -> do
  h <- readIORef (seHandle s)
  if h == nullPtr then return (Right ()) else do
    rc <- c_sqlbatch_session_delete h
    -- The library refuses only from inside a hook (the lock rules that out but for the
    -- WAL hook); the session then lives on.
    when (rc == sqlbatchOk) $ writeIORef (seHandle s) nullPtr
    result (seDb s) () rc

-- | Runs @k@ with the session's handle (and its connection's lock), or fails with
-- 'ErrorMisuse' once deleted. (Once the connection is closed, the library says so.)
withSession :: Session -> (Ptr CSession -> IO (Either Error a)) -> IO (Either Error a)
withSession s k = withLock (seDb s) $ \_ -> do
  h <- readIORef (seHandle s)
  if h == nullPtr then ownFailure (seDb s) misuseCode else k h

-- | <https://www.sqlite.org/session/sqlite3session_attach.html>: records the changes to
-- table @Just t@, or with 'Nothing' to every table of the database (those created later
-- too). Only tables with a PRIMARY KEY are recorded; the table need not exist yet.
sessionAttach :: Session -> Maybe Utf8 -> IO (Either Error ())
sessionAttach s mt = withSession s $ \h -> case mt of
  Nothing -> c_sqlbatch_session_attach h nullPtr 0 >>= result (seDb s) ()
  -- NUL-terminated, so that even an empty name has a pointer (NULL means every table).
  Just (Utf8 t) -> BU.unsafeUseAsCString (B.snoc t 0) $ \p ->
    c_sqlbatch_session_attach h p (fromIntegral (B.length t)) >>= result (seDb s) ()

-- | <https://www.sqlite.org/session/sqlite3session_enable.html>: turns recording on (the
-- default) or off; changes made while it is off are not recorded.
sessionEnable :: Session -> Bool -> IO (Either Error ())
sessionEnable s on = withSession s $ \h -> c_sqlbatch_session_set_enabled h (cbool on) >>= result (seDb s) ()

-- | <https://www.sqlite.org/session/sqlite3session_indirect.html>: marks the changes
-- recorded from now on as indirect (or not, the default); a conflict handler sees the mark
-- ('conflictIndirect'). Changes made by triggers and foreign key actions are always
-- indirect.
sessionSetIndirect :: Session -> Bool -> IO (Either Error ())
sessionSetIndirect s on = withSession s $ \h -> c_sqlbatch_session_set_indirect h (cbool on) >>= result (seDb s) ()

cbool :: Bool -> CBool
cbool b = CBool (if b then 1 else 0)

-- | <https://www.sqlite.org/session/sqlite3session_isempty.html>: whether the session has
-- recorded no change (its changeset would be empty).
sessionIsEmpty :: Session -> IO (Either Error Bool)
sessionIsEmpty s = withSession s $ \h -> alloca $ \p -> do
  rc <- c_sqlbatch_session_is_empty h p
  if rc /= sqlbatchOk then Left <$> libraryFailure (seDb s) rc else do
    CBool v <- peek p
    return (Right (v /= 0))

-- | <https://www.sqlite.org/session/sqlite3session_changeset.html>: what the session
-- recorded, as a changeset: for each changed row (by primary key), one change from its
-- state when recording started to its state now, with every old value (so that applying it
-- elsewhere detects conflicts). Empty when nothing changed. Recording goes on. The bytes are
-- the library's buffer, handed over without a copy.
sessionChangeset :: Session -> IO (Either Error B.ByteString)
sessionChangeset s = mask_ $ withSession s $ \h ->
  takeBuffer (c_sqlbatch_session_changeset h) >>= either (fmap Left . libraryFailure (seDb s)) (return . Right)

-- | <https://www.sqlite.org/session/sqlite3session_patchset.html>: like 'sessionChangeset',
-- smaller: it leaves out the old values but the primary key's, so applying it finds a
-- conflict only where a row to change is missing or a key is taken. It cannot be inverted.
sessionPatchset :: Session -> IO (Either Error B.ByteString)
sessionPatchset s = mask_ $ withSession s $ \h ->
  takeBuffer (c_sqlbatch_session_patchset h) >>= either (fmap Left . libraryFailure (seDb s)) (return . Right)

-- | <https://www.sqlite.org/session/sqlite3session_diff.html>: @sessionDiff s from table@
-- records in the session the changes that would make the table of that name in database
-- @from@ of the same connection (e.g. one @ATTACH@ed) equal to @table@ of the session's
-- database (SQLite's direction: the changeset turns the /from/ table into the session's),
-- attaching the table to the session if needed. The tables must have the same columns and
-- primary key ('ErrorSchema' otherwise).
sessionDiff :: Session -> Utf8 -> Utf8 -> IO (Either Error ())
sessionDiff s (Utf8 from) (Utf8 table) = withSession s $ \h ->
  BU.unsafeUseAsCStringLen (B.snoc from 0) $ \(fp, _) ->
  BU.unsafeUseAsCStringLen (B.snoc table 0) $ \(tp, _) ->
    c_sqlbatch_session_diff h fp (fromIntegral (B.length from)) tp (fromIntegral (B.length table))
      >>= result (seDb s) ()

------------------------------------------------------------------------------------------
-- Applying

-- | What to do about a conflict (<https://www.sqlite.org/session/c_changeset_abort.html>).
data ConflictAction
  = ConflictOmit
    -- ^ skip the change (for a 'ConflictForeignKey': commit despite the violations)
  | ConflictReplace
    -- ^ apply the change over the conflicting row; only for 'ConflictData' and
    -- 'ConflictConflict' (an answer to another kind makes the apply fail with
    -- 'ErrorMisuse'; as a policy, the other kinds are omitted)
  | ConflictAbort
    -- ^ stop, and undo every change the apply made; it fails with 'ErrorAbort'
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | The kind of a conflict (<https://www.sqlite.org/session/c_changeset_conflict.html>).
data ConflictKind
  = ConflictData
    -- ^ the row to delete or update exists, with other values than the change expected
    -- ('conflictCurrent' holds it)
  | ConflictNotFound
    -- ^ the row to delete or update does not exist
  | ConflictConflict
    -- ^ an inserted row's primary key is taken ('conflictCurrent' holds that row)
  | ConflictConstraint
    -- ^ the change breaks another constraint (UNIQUE, CHECK, NOT NULL)
  | ConflictForeignKey
    -- ^ once every change was applied, foreign keys are violated
    -- ('conflictFkViolations' says how many); not about one change
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | A conflict met by 'applyChangeset': the change, and the row it conflicts with. A
-- column of 'conflictOld' or 'conflictNew' is 'Nothing' where the change does not carry a
-- value (SQLite's undefined: an UPDATE's unchanged columns).
data Conflict = Conflict
  { conflictKind :: !ConflictKind
  , conflictOp :: !(Maybe ChangeOp)
    -- ^ the change's operation ('Nothing' for a 'ConflictForeignKey')
  , conflictTable :: !(Maybe Text)
    -- ^ the change's table ('Nothing' for a 'ConflictForeignKey')
  , conflictIndirect :: !Bool
    -- ^ whether the change was recorded as indirect ('sessionSetIndirect', triggers)
  , conflictOld :: !(Maybe [Maybe SQLData])
    -- ^ DELETE and UPDATE: the row the change expected (for an UPDATE from a changeset,
    -- the columns it does not change and that are not in the primary key are 'Nothing';
    -- from a patchset, all but the key)
  , conflictNew :: !(Maybe [Maybe SQLData])
    -- ^ INSERT and UPDATE: the row as the change makes it (for an UPDATE, the columns it
    -- does not change are 'Nothing')
  , conflictCurrent :: !(Maybe [SQLData])
    -- ^ 'ConflictData' and 'ConflictConflict': the row as it is in the database
  , conflictFkViolations :: !Int
    -- ^ 'ConflictForeignKey': how many foreign key constraints are violated; 0 otherwise
  }
  deriving (Eq, Show)

-- | Flags of 'applyChangeset' (<https://www.sqlite.org/session/c_changesetapply_fknoaction.html>).
data ApplyFlag
  = ApplyNoSavepoint
    -- ^ no savepoint around the apply: an abort (or an exception) leaves the changes
    -- applied before it (@SQLITE_CHANGESETAPPLY_NOSAVEPOINT@)
  | ApplyInvert
    -- ^ apply the changeset inverted, an undo (@SQLITE_CHANGESETAPPLY_INVERT@)
  | ApplyIgnoreNoop
    -- ^ an UPDATE that finds the row as it would make it is no conflict
    -- (@SQLITE_CHANGESETAPPLY_IGNORENOOP@)
  | ApplyFkNoAction
    -- ^ foreign keys' ON UPDATE / ON DELETE actions do not run
    -- (@SQLITE_CHANGESETAPPLY_FKNOACTION@)
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | How 'applyChangeset' applies: start from 'defaultApplyOptions' and set what you need,
-- e.g. @defaultApplyOptions { applyPolicy = ConflictReplace }@.
data ApplyOptions = ApplyOptions
  { applyFilter :: Maybe (Text -> IO Bool)
    -- ^ asked once per table of the changeset: 'False' skips its changes ('Nothing':
    -- every table). Tables missing from the target, or with another primary key, are
    -- skipped anyway.
  , applyOnConflict :: Maybe (Conflict -> IO ConflictAction)
    -- ^ settles each conflict ('Nothing': 'applyPolicy' settles them all, without calling
    -- into Haskell)
  , applyPolicy :: ConflictAction
    -- ^ the answer to every conflict when there is no handler
  , applyFlags :: [ApplyFlag]
  }

-- | No filter, no handler, 'ConflictAbort' for every conflict (all or nothing), no flags.
defaultApplyOptions :: ApplyOptions
defaultApplyOptions = ApplyOptions
  { applyFilter = Nothing, applyOnConflict = Nothing, applyPolicy = ConflictAbort, applyFlags = [] }

-- | The closures behind one apply's callbacks.
data ApplyCtx = ApplyCtx
  { acConflict :: Ptr () -> IO Int32
  , acFilter :: CString -> IO Int32
  }

conflictFP :: FunPtr ConflictFn
conflictFP = unsafePerformIO $ mkConflict $ \ud p -> do
  ctx <- deRefStablePtr (castPtrToStablePtr ud)
  acConflict ctx p
{-# NOINLINE conflictFP #-}

filterFP :: FunPtr FilterFn
filterFP = unsafePerformIO $ mkFilter $ \ud t -> do
  ctx <- deRefStablePtr (castPtrToStablePtr ud)
  acFilter ctx t
{-# NOINLINE filterFP #-}

actionCode :: ConflictAction -> Int32
actionCode a = case a of
  ConflictOmit -> #{const SQLBATCH_CHANGESET_OMIT}
  ConflictReplace -> #{const SQLBATCH_CHANGESET_REPLACE}
  ConflictAbort -> #{const SQLBATCH_CHANGESET_ABORT}

flagBit :: ApplyFlag -> Word32
flagBit f = case f of
  ApplyNoSavepoint -> #{const SQLBATCH_APPLY_NOSAVEPOINT}
  ApplyInvert -> #{const SQLBATCH_APPLY_INVERT}
  ApplyIgnoreNoop -> #{const SQLBATCH_APPLY_IGNORENOOP}
  ApplyFkNoAction -> #{const SQLBATCH_APPLY_FKNOACTION}

-- | <https://www.sqlite.org/session/sqlite3changeset_apply.html>: applies a changeset or
-- patchset to the connection (tables matched by name in @\"main\"@), in one call, inside a
-- savepoint: all of it, or after an abort none of it (unless 'ApplyNoSavepoint'). Each
-- conflict is settled by 'applyOnConflict', or else by 'applyPolicy'. 'ErrorAbort' when a
-- conflict was answered with 'ConflictAbort'; 'ErrorCorrupt' for bytes that are not a
-- changeset (never a crash).
--
-- An exception thrown by the filter or the conflict handler (including 'HookReentry', for
-- one that uses the connection) aborts the apply, undoes what it applied (not with
-- 'ApplyNoSavepoint': then the changes before it stay, as after an abort) and is rethrown
-- here.
applyChangeset :: Database -> B.ByteString -> ApplyOptions -> IO (Either Error ())
applyChangeset db cs opts = do
  failure <- newIORef Nothing
  -- An exception in the conflict handler answers abort, one in the filter stops the apply
  -- (a negative answer: the library's savepoint then undoes the tables applied before it).
  r <- mask_ $ withOpen db $ \c -> do
    rc <- withCtx failure $ \ud -> withBytes cs $ \p n ->
      c_sqlbatch_conn_apply_changeset c p n flags (actionCode (applyPolicy opts))
        (maybe nullFunPtr (const conflictFP) (applyOnConflict opts))
        (maybe nullFunPtr (const filterFP) (applyFilter opts)) ud
    if rc /= sqlbatchOk then Left <$> libraryFailure db rc else return (Right ())
  readIORef failure >>= maybe (return r) throwIO
  where
    flags = foldr ((.|.) . flagBit) 0 (applyFlags opts)
    withCtx :: IORef (Maybe SomeException) -> (Ptr () -> IO a) -> IO a
    withCtx failure k
      | Nothing <- applyOnConflict opts, Nothing <- applyFilter opts = k nullPtr
      | otherwise = do
          sp <- newStablePtr ApplyCtx
            { acConflict = \p -> guarded failure (actionCode ConflictAbort) $ do
                cf <- peekConflict p
                a <- maybe (return (applyPolicy opts)) ($ cf) (applyOnConflict opts)
                return $! actionCode a
            , acFilter = \t -> guarded failure (-1) $ do
                name <- if t == nullPtr then return "" else
                  TE.decodeUtf8With TE.lenientDecode <$> B.packCString t
                ok <- maybe (return True) ($ name) (applyFilter opts)
                return (if ok then 1 else 0)
            }
          k (castStablePtrToPtr sp) `finally` freeStablePtr sp
    -- A callback's code: once one threw, every later one answers stop (abort) at once.
    guarded failure dflt act = do
      prior <- readIORef failure
      if isJust prior then return dflt else do
        r <- inHook db Nothing act
        case r of
          Right x -> return x
          Left e -> do
            writeIORef failure (Just e)
            return dflt

-- | Reads a @sqlbatch_conflict@, copying everything it points to.
peekConflict :: Ptr () -> IO Conflict
peekConflict p = do
  kind <- #{peek sqlbatch_conflict, kind} p :: IO Int32
  op <- #{peek sqlbatch_conflict, op} p :: IO Int32
  table <- peekName (p `plusPtr` #{offset sqlbatch_conflict, table})
  CBool ind <- #{peek sqlbatch_conflict, indirect} p
  n <- fromIntegral <$> (#{peek sqlbatch_conflict, n_cols} p :: IO CSize)
  base <- #{peek sqlbatch_conflict, data} p :: IO (Ptr Word8)
  let rowAt off = peekByteOff p off >>= peekRow base n
  old <- rowAt #{offset sqlbatch_conflict, old_values}
  new <- rowAt #{offset sqlbatch_conflict, new_values}
  cur <- rowAt #{offset sqlbatch_conflict, conflict_values}
  fk <- #{peek sqlbatch_conflict, fk_violations} p :: IO Int32
  let k = decodeKind kind
      isFk = k == ConflictForeignKey
  return $! Conflict
    { conflictKind = k
    , conflictOp = if isFk then Nothing else Just (decodeChangeOp op)
    , conflictTable = if isFk then Nothing else Just (fromMaybe "" table)
    , conflictIndirect = ind /= 0
    , conflictOld = old
    , conflictNew = new
    , conflictCurrent = map (fromMaybe SQLNull) <$> cur
    , conflictFkViolations = fromIntegral fk
    }
  where
    decodeKind :: Int32 -> ConflictKind
    decodeKind k
      | k == #{const SQLBATCH_CONFLICT_DATA} = ConflictData
      | k == #{const SQLBATCH_CONFLICT_NOTFOUND} = ConflictNotFound
      | k == #{const SQLBATCH_CONFLICT_CONFLICT} = ConflictConflict
      | k == #{const SQLBATCH_CONFLICT_CONSTRAINT} = ConflictConstraint
      | otherwise = ConflictForeignKey

-- | A row of @n@ cells (bytes at the base), as a conflict or a changeset's change holds it:
-- 'Nothing' for a NULL pointer (no such row), a column 'Nothing' where the change carries no
-- value (@SQLBATCH_UNDEFINED@).
peekRow :: Ptr Word8 -> Int -> Ptr () -> IO (Maybe [Maybe SQLData])
peekRow base n cells
  | cells == nullPtr = return Nothing
  | otherwise = Just <$> peekValues base cells n

-- | A @sqlbatch_str@ as text ('Nothing' for a NULL pointer).
peekName :: Ptr () -> IO (Maybe Text)
peekName p = do
  sp <- #{peek sqlbatch_str, ptr} p :: IO (Ptr CChar)
  sl <- #{peek sqlbatch_str, len} p :: IO CSize
  if sp == nullPtr then return Nothing else
    Just . TE.decodeUtf8With TE.lenientDecode <$> B.packCStringLen (sp, fromIntegral sl)

decodeChangeOp :: Int32 -> ChangeOp
decodeChangeOp 18 = ChangeInsert
decodeChangeOp 9 = ChangeDelete
decodeChangeOp _ = ChangeUpdate

------------------------------------------------------------------------------------------
-- Without a connection

-- | One change of a changeset, as 'foldChangeset' reads it
-- (<https://www.sqlite.org/session/sqlite3changeset_op.html>). A column of 'ccOld' or
-- 'ccNew' is 'Nothing' where the change does not carry a value (SQLite's undefined), as in
-- a 'Conflict'.
data ChangesetChange = ChangesetChange
  { ccTable :: !Text
    -- ^ the table's name
  , ccOp :: !ChangeOp
    -- ^ INSERT, DELETE or UPDATE (read inverted: as the inverse changeset has it)
  , ccIndirect :: !Bool
    -- ^ whether the change was recorded as indirect ('sessionSetIndirect', triggers)
  , ccPrimaryKey :: ![Bool]
    -- ^ one per column of the table: whether it is part of the primary key
  , ccOld :: !(Maybe [Maybe SQLData])
    -- ^ DELETE and UPDATE: the row before ('Nothing' for an INSERT). From a changeset, an
    -- UPDATE's unchanged columns outside the key are 'Nothing'; from a patchset, a DELETE
    -- carries the key only, and an UPDATE's old row holds only the key.
  , ccNew :: !(Maybe [Maybe SQLData])
    -- ^ INSERT and UPDATE: the row after ('Nothing' for a DELETE); an UPDATE's unchanged
    -- columns are 'Nothing'
  }
  deriving (Eq, Show)

-- | Flags of 'foldChangeset'.
data ChangesetReadFlag
  = ChangesetReadInvert
    -- ^ read the inverse changeset (@SQLITE_CHANGESETSTART_INVERT@): inserts as deletes and
    -- the other way round, updates with old and new swapped; what 'invertChangeset' would
    -- give, without building it. A patchset cannot be inverted ('ErrorCorrupt').
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | The callback's closure for one read: a batch of changes and the base of their bytes.
type ReadCtx = Ptr () -> CSize -> Ptr Word8 -> IO Int32

readFP :: FunPtr ReadFn
readFP = unsafePerformIO $ mkRead $ \ud p n base -> do
  f <- deRefStablePtr (castPtrToStablePtr ud) :: IO ReadCtx
  f p n base
{-# NOINLINE readFP #-}

-- | <https://www.sqlite.org/session/sqlite3changeset_start.html>: runs the step on every
-- change of the changeset or patchset, in its order, threading the accumulator through.
-- The library hands the changes over up to 256 at a time (fewer once their values hold
-- 1 MiB): one foreign crossing per batch, each change copied into a 'ChangesetChange'
-- before the steps run. No connection is involved. The step runs during the (safe) call,
-- on a Haskell thread of its own, as every callback from C does: it may use connections,
-- and an asynchronous exception thrown to the calling thread arrives once the read is over.
--
-- The bytes are not trusted: for bytes that are not a changeset ('ErrorCorrupt'), the step
-- has seen the changes before the damage when the error is returned (never a crash). An
-- exception thrown by the step, or hidden in the accumulator it returns (each is forced to
-- WHNF), stops the read (no more steps run) and is rethrown here.
foldChangeset :: [ChangesetReadFlag] -> B.ByteString -> a -> (a -> ChangesetChange -> IO a)
              -> IO (Either (Error, Utf8) a)
foldChangeset flags cs z f = do
  acc <- newIORef z
  failure <- newIORef Nothing
  let ctx :: ReadCtx
      ctx p n base = do
        r <- try $ do
          batch <- mapM (peekChange base . plusPtr p . (* #{size sqlbatch_changeset_change}))
                          [0 .. fromIntegral n - 1]
          readIORef acc >>= \a0 -> foldlM' a0 batch >>= writeIORef acc
        case r of
          Right () -> return 0
          Left (e :: SomeException) -> 1 <$ writeIORef failure (Just e)
      foldlM' a [] = return a
      foldlM' a (c : more) = f a c >>= evaluate >>= \a' -> foldlM' a' more
  rc <- bracket (newStablePtr ctx) freeStablePtr $ \sp -> withBytes cs $ \d len ->
    c_sqlbatch_changeset_read d len bits 0 readFP (castStablePtrToPtr sp)
  readIORef failure >>= maybe (return ()) throwIO
  if rc /= sqlbatchOk then return (failed rc) else Right <$> readIORef acc
  where
    bits = foldr ((.|.) . flagBit') 0 flags
    flagBit' ChangesetReadInvert = #{const SQLBATCH_CHANGESET_READ_INVERT}

-- | Every change of the changeset or patchset, in order ('foldChangeset' collecting them):
-- the whole changeset decoded at once. Bytes that are not a changeset give 'ErrorCorrupt'
-- (and no changes).
changesetChanges :: [ChangesetReadFlag] -> B.ByteString -> Either (Error, Utf8) [ChangesetChange]
changesetChanges flags cs = unsafePerformIO $
  fmap reverse <$> foldChangeset flags cs [] (\acc c -> return (c : acc))
{-# NOINLINE changesetChanges #-}

-- | Reads a @sqlbatch_changeset_change@, copying everything it points to.
peekChange :: Ptr Word8 -> Ptr () -> IO ChangesetChange
peekChange base p = do
  table <- peekName (p `plusPtr` #{offset sqlbatch_changeset_change, table})
  op <- #{peek sqlbatch_changeset_change, op} p :: IO Int32
  CBool ind <- #{peek sqlbatch_changeset_change, indirect} p
  n <- fromIntegral <$> (#{peek sqlbatch_changeset_change, n_cols} p :: IO CSize)
  pkp <- #{peek sqlbatch_changeset_change, primary_key} p :: IO (Ptr Word8)
  pk <- if pkp == nullPtr then return (replicate n False) else map (/= 0) <$> peekArray n pkp
  old <- #{peek sqlbatch_changeset_change, old_values} p >>= peekRow base n
  new <- #{peek sqlbatch_changeset_change, new_values} p >>= peekRow base n
  return $! ChangesetChange
    { ccTable = fromMaybe "" table
    , ccOp = decodeChangeOp op
    , ccIndirect = ind /= 0
    , ccPrimaryKey = pk
    , ccOld = old
    , ccNew = new
    }

-- | <https://www.sqlite.org/session/sqlite3changeset_invert.html>: the changeset that
-- undoes this one (inserts become deletes and the other way round, updates swap their old
-- and new values). A patchset cannot be inverted ('ErrorCorrupt'), nor can bytes that are
-- not a changeset. The error comes with SQLite's text of its code.
invertChangeset :: B.ByteString -> Either (Error, Utf8) B.ByteString
invertChangeset cs = unsafePerformIO $ mask_ $ withBytes cs $ \p n ->
  either failed Right <$> takeBuffer (c_sqlbatch_changeset_invert p n)
{-# NOINLINE invertChangeset #-}

-- | <https://www.sqlite.org/session/sqlite3changeset_concat.html>: the changeset that does
-- what the first then the second do, changes to one row merged into one. Both must be
-- changesets, or both patchsets ('ErrorError' otherwise, and for the same table with other
-- columns).
concatChangesets :: B.ByteString -> B.ByteString -> Either (Error, Utf8) B.ByteString
concatChangesets a b = unsafePerformIO $ mask_ $ withBytes a $ \pa na -> withBytes b $ \pb nb ->
  either failed Right <$> takeBuffer (c_sqlbatch_changeset_concat pa na pb nb)
{-# NOINLINE concatChangesets #-}

failed :: Int32 -> Either (Error, Utf8) a
failed rc = Left (decodeCode False rc, Utf8 (codeText rc))
