{-# LANGUAGE CApiFFI #-}
-- |
-- Module      : Database.SQLBatch.Raw.VTab
-- Description : Foreign imports and layouts of the header's virtual tables and table-valued parameters
--
-- The part of @include/sqlbatch.h@ that "Database.SQLBatch.VTab" is built on: binding a
-- whole table to one parameter (@sqlbatch_stmt_bind_rows@), registering a module whose
-- cursors fill batches (@sqlbatch_conn_create_module@ and the calls a callback makes:
-- @sqlbatch_vtab_declare@, @sqlbatch_vtab_push@, @sqlbatch_vtab_error@), the callbacks'
-- types with their @wrapper@ imports, and the layouts of the structs they exchange, read
-- from the header by @hsc2hs@. The conventions are those of "Database.SQLBatch.Raw": the C
-- name with a @c_@ prefix, @capi@ against the header, each call @safe@ or @unsafe@ with its
-- reason. Nothing here adds behaviour.
module Database.SQLBatch.Raw.VTab
  ( -- * Table-valued parameters
    c_sqlbatch_stmt_bind_rows
  , c_sqlbatch_stmt_bind_rows_unsafe
    -- * Modules
  , c_sqlbatch_conn_create_module
  , c_sqlbatch_vtab_declare
  , c_sqlbatch_vtab_push
  , c_sqlbatch_vtab_error
    -- * Opaque types
  , CVtabCall
  , CVtabIndex
  , CVtabArg
  , CVtabChange
  , CVtabModule
    -- * Callbacks
  , ConnectFn
  , BestIndexFn
  , OpenFn
  , FilterFn
  , FillFn
  , CloseFn
  , DisconnectFn
  , UpdateFn
  , mkConnect
  , mkBestIndex
  , mkOpen
  , mkFilter
  , mkFill
  , mkClose
  , mkDisconnect
  , mkUpdate
    -- * Constants
  , vtabEponymous
  , vtabEponymousOnly
  , vtabInsert
  , vtabUpdate
  , vtabDelete
  , indexEQ, indexGT, indexLE, indexLT, indexGE, indexMatch, indexLike, indexGlob
  , indexRegexp, indexNE, indexIsNot, indexIsNotNull, indexIsNull, indexIs, indexLimit
  , indexOffset
  , sqliteConstraint
    -- * @sqlbatch_vtab_module@
  , moduleSize
  , pokeModule
    -- * @sqlbatch_vtab_index@ and its arrays
  , indexConstraintsOff, indexNConstraintsOff, indexOrderByOff, indexNOrderByOff
  , indexColumnsUsedOff, indexDataOff, indexUsesOff, indexIdxNumOff
  , indexOrderByConsumedOff, indexUniqueOff, indexEstimatedCostOff, indexEstimatedRowsOff
  , constraintSize, constraintColumnOff, constraintOpOff, constraintUsableOff
  , constraintInListOff, constraintValueOff
  , orderSize, orderColumnOff, orderDescOff
  , useSize, useArgIndexOff, useOmitOff, useWholeListOff
    -- * @sqlbatch_vtab_arg@
  , argSize, argValueOff, argListOff, argNListOff
    -- * @sqlbatch_vtab_change@
  , changeOpOff, changeOldRowidOff, changeNewRowidOff, changeValuesOff, changeNValuesOff
  , changeDataOff
  ) where

import Data.Int (Int32, Int64)
import Data.Word (Word32, Word8)
import Foreign.C.Types (CBool (..), CChar, CSize (..))
import Foreign.Ptr (FunPtr, Ptr)
import Foreign.Storable (pokeByteOff)

import Database.SQLBatch.Raw (CStr)
import Database.SQLBatch.Raw.Extra (DestroyFn)
import Database.SQLBatch.Raw.Types (CConn, CParams, CStmt)

#include "sqlbatch.h"

-- | @sqlbatch_vtab_call@: one call of a module's callback (opaque; valid during it only).
data CVtabCall

-- | @sqlbatch_vtab_index@: a planning call (read and written with the offsets below).
data CVtabIndex

-- | @sqlbatch_vtab_arg@: an argument of @filter@.
data CVtabArg

-- | @sqlbatch_vtab_change@: a change to a writable table.
data CVtabChange

-- | @sqlbatch_vtab_module@: the callbacks of a module ('pokeModule').
data CVtabModule

------------------------------------------------------------------------------------------
-- Table-valued parameters

-- | @sqlbatch_stmt_bind_rows@ (safe: a statement in the middle of a run is reset first,
-- which closes its virtual table cursors, whose callbacks may be Haskell's; the copy of a
-- large table takes time).
foreign import capi safe "hs_sqlbatch.h sqlbatch_stmt_bind_rows"
  c_sqlbatch_stmt_bind_rows :: Ptr CStmt -> CSize -> Ptr CParams -> CSize -> IO Int32

-- | @sqlbatch_stmt_bind_rows@, unsafe: only for a statement that is not in the middle of a
-- run (nothing to reset) and a small table (a plain copy).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_stmt_bind_rows"
  c_sqlbatch_stmt_bind_rows_unsafe :: Ptr CStmt -> CSize -> Ptr CParams -> CSize -> IO Int32

------------------------------------------------------------------------------------------
-- Modules

-- | @sqlbatch_conn_create_module@ (safe: replacing a module runs its destroy callback).
foreign import capi safe "hs_sqlbatch.h sqlbatch_conn_create_module"
  c_sqlbatch_conn_create_module
  :: Ptr CConn -> Ptr CChar -> CSize -> Ptr CVtabModule -> Word32 -> Ptr () -> FunPtr DestroyFn
  -> IO Int32

-- | @sqlbatch_vtab_declare@ (safe: SQLite parses the schema, which may run the authorizer).
foreign import capi safe "hs_sqlbatch.h sqlbatch_vtab_declare"
  c_sqlbatch_vtab_declare :: Ptr CVtabCall -> Ptr CChar -> CSize -> IO Int32

-- | @sqlbatch_vtab_push@ (unsafe: copies the rows, calls nothing back).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_vtab_push"
  c_sqlbatch_vtab_push :: Ptr CVtabCall -> Ptr CParams -> CSize -> Ptr Int64 -> IO Int32

-- | @sqlbatch_vtab_error@ (unsafe: copies the message).
foreign import capi unsafe "hs_sqlbatch.h sqlbatch_vtab_error"
  c_sqlbatch_vtab_error :: Ptr CVtabCall -> Ptr CChar -> CSize -> IO ()

------------------------------------------------------------------------------------------
-- Callbacks

-- | @connect@: user data, call, create, args, their count, out table.
type ConnectFn = Ptr () -> Ptr CVtabCall -> CBool -> Ptr CStr -> CSize -> Ptr (Ptr ()) -> IO Int32

-- | @best_index@: user data, call, table, the planning call.
type BestIndexFn = Ptr () -> Ptr CVtabCall -> Ptr () -> Ptr CVtabIndex -> IO Int32

-- | @open@: user data, call, table, out cursor.
type OpenFn = Ptr () -> Ptr CVtabCall -> Ptr () -> Ptr (Ptr ()) -> IO Int32

-- | @filter@: user data, call, cursor, plan number, arguments, their count, base of their bytes.
type FilterFn = Ptr () -> Ptr CVtabCall -> Ptr () -> Int32 -> Ptr CVtabArg -> CSize -> Ptr Word8 -> IO Int32

-- | @fill@: user data, call, cursor, the most rows to push.
type FillFn = Ptr () -> Ptr CVtabCall -> Ptr () -> CSize -> IO Int32

-- | @close@: user data, cursor.
type CloseFn = Ptr () -> Ptr () -> IO ()

-- | @disconnect@: user data, table, destroy.
type DisconnectFn = Ptr () -> Ptr () -> CBool -> IO ()

-- | @update@: user data, call, table, the change, out rowid.
type UpdateFn = Ptr () -> Ptr CVtabCall -> Ptr () -> Ptr CVtabChange -> Ptr Int64 -> IO Int32

-- | Makes a C function pointer of a 'ConnectFn' (this binding makes one, once).
foreign import ccall "wrapper" mkConnect :: ConnectFn -> IO (FunPtr ConnectFn)

-- | Makes a C function pointer of a 'BestIndexFn'.
foreign import ccall "wrapper" mkBestIndex :: BestIndexFn -> IO (FunPtr BestIndexFn)

-- | Makes a C function pointer of an 'OpenFn'.
foreign import ccall "wrapper" mkOpen :: OpenFn -> IO (FunPtr OpenFn)

-- | Makes a C function pointer of a 'FilterFn'.
foreign import ccall "wrapper" mkFilter :: FilterFn -> IO (FunPtr FilterFn)

-- | Makes a C function pointer of a 'FillFn'.
foreign import ccall "wrapper" mkFill :: FillFn -> IO (FunPtr FillFn)

-- | Makes a C function pointer of a 'CloseFn'.
foreign import ccall "wrapper" mkClose :: CloseFn -> IO (FunPtr CloseFn)

-- | Makes a C function pointer of a 'DisconnectFn'.
foreign import ccall "wrapper" mkDisconnect :: DisconnectFn -> IO (FunPtr DisconnectFn)

-- | Makes a C function pointer of an 'UpdateFn'.
foreign import ccall "wrapper" mkUpdate :: UpdateFn -> IO (FunPtr UpdateFn)

------------------------------------------------------------------------------------------
-- Constants

-- | Module flags: @SQLBATCH_VTAB_EPONYMOUS@, @SQLBATCH_VTAB_EPONYMOUS_ONLY@.
vtabEponymous, vtabEponymousOnly :: Word32
vtabEponymous = #{const SQLBATCH_VTAB_EPONYMOUS}
vtabEponymousOnly = #{const SQLBATCH_VTAB_EPONYMOUS_ONLY}

-- | Kinds of change: @SQLBATCH_VTAB_INSERT@, @_UPDATE@, @_DELETE@.
vtabInsert, vtabUpdate, vtabDelete :: Int32
vtabInsert = #{const SQLBATCH_VTAB_INSERT}
vtabUpdate = #{const SQLBATCH_VTAB_UPDATE}
vtabDelete = #{const SQLBATCH_VTAB_DELETE}

-- | Constraint operators, @SQLBATCH_INDEX_*@ (SQLite's @SQLITE_INDEX_CONSTRAINT_*@).
indexEQ, indexGT, indexLE, indexLT, indexGE, indexMatch, indexLike, indexGlob, indexRegexp,
  indexNE, indexIsNot, indexIsNotNull, indexIsNull, indexIs, indexLimit, indexOffset :: Word8
indexEQ = #{const SQLBATCH_INDEX_EQ}
indexGT = #{const SQLBATCH_INDEX_GT}
indexLE = #{const SQLBATCH_INDEX_LE}
indexLT = #{const SQLBATCH_INDEX_LT}
indexGE = #{const SQLBATCH_INDEX_GE}
indexMatch = #{const SQLBATCH_INDEX_MATCH}
indexLike = #{const SQLBATCH_INDEX_LIKE}
indexGlob = #{const SQLBATCH_INDEX_GLOB}
indexRegexp = #{const SQLBATCH_INDEX_REGEXP}
indexNE = #{const SQLBATCH_INDEX_NE}
indexIsNot = #{const SQLBATCH_INDEX_ISNOT}
indexIsNotNull = #{const SQLBATCH_INDEX_ISNOTNULL}
indexIsNull = #{const SQLBATCH_INDEX_ISNULL}
indexIs = #{const SQLBATCH_INDEX_IS}
indexLimit = #{const SQLBATCH_INDEX_LIMIT}
indexOffset = #{const SQLBATCH_INDEX_OFFSET}

-- | @SQLITE_CONSTRAINT@: what @best_index@ returns for a plan that cannot be used.
sqliteConstraint :: Int32
sqliteConstraint = 19

------------------------------------------------------------------------------------------
-- Layouts

-- | Size of @sqlbatch_vtab_module@.
moduleSize :: Int
moduleSize = #{size sqlbatch_vtab_module}

-- | Writes a @sqlbatch_vtab_module@: connect, best_index (may be null), open, filter, fill,
-- close, disconnect, update (may be null), batch_rows.
pokeModule :: Ptr CVtabModule -> FunPtr ConnectFn -> FunPtr BestIndexFn -> FunPtr OpenFn
           -> FunPtr FilterFn -> FunPtr FillFn -> FunPtr CloseFn -> FunPtr DisconnectFn
           -> FunPtr UpdateFn -> Int -> IO ()
pokeModule p conn plan open filt fill close disc upd batch = do
  #{poke sqlbatch_vtab_module, connect} p conn
  #{poke sqlbatch_vtab_module, best_index} p plan
  #{poke sqlbatch_vtab_module, open} p open
  #{poke sqlbatch_vtab_module, filter} p filt
  #{poke sqlbatch_vtab_module, fill} p fill
  #{poke sqlbatch_vtab_module, close} p close
  #{poke sqlbatch_vtab_module, disconnect} p disc
  #{poke sqlbatch_vtab_module, update} p upd
  #{poke sqlbatch_vtab_module, batch_rows} p (fromIntegral batch :: CSize)

-- | Offsets of @sqlbatch_vtab_index@'s fields.
indexConstraintsOff, indexNConstraintsOff, indexOrderByOff, indexNOrderByOff,
  indexColumnsUsedOff, indexDataOff, indexUsesOff, indexIdxNumOff, indexOrderByConsumedOff,
  indexUniqueOff, indexEstimatedCostOff, indexEstimatedRowsOff :: Int
indexConstraintsOff = #{offset sqlbatch_vtab_index, constraints}
indexNConstraintsOff = #{offset sqlbatch_vtab_index, n_constraints}
indexOrderByOff = #{offset sqlbatch_vtab_index, order_by}
indexNOrderByOff = #{offset sqlbatch_vtab_index, n_order_by}
indexColumnsUsedOff = #{offset sqlbatch_vtab_index, columns_used}
indexDataOff = #{offset sqlbatch_vtab_index, data}
indexUsesOff = #{offset sqlbatch_vtab_index, uses}
indexIdxNumOff = #{offset sqlbatch_vtab_index, idx_num}
indexOrderByConsumedOff = #{offset sqlbatch_vtab_index, order_by_consumed}
indexUniqueOff = #{offset sqlbatch_vtab_index, unique}
indexEstimatedCostOff = #{offset sqlbatch_vtab_index, estimated_cost}
indexEstimatedRowsOff = #{offset sqlbatch_vtab_index, estimated_rows}

-- | Size of @sqlbatch_vtab_constraint@ and its fields' offsets.
constraintSize, constraintColumnOff, constraintOpOff, constraintUsableOff,
  constraintInListOff, constraintValueOff :: Int
constraintSize = #{size sqlbatch_vtab_constraint}
constraintColumnOff = #{offset sqlbatch_vtab_constraint, column}
constraintOpOff = #{offset sqlbatch_vtab_constraint, op}
constraintUsableOff = #{offset sqlbatch_vtab_constraint, usable}
constraintInListOff = #{offset sqlbatch_vtab_constraint, in_list}
constraintValueOff = #{offset sqlbatch_vtab_constraint, value}

-- | Size of @sqlbatch_vtab_order@ and its fields' offsets.
orderSize, orderColumnOff, orderDescOff :: Int
orderSize = #{size sqlbatch_vtab_order}
orderColumnOff = #{offset sqlbatch_vtab_order, column}
orderDescOff = #{offset sqlbatch_vtab_order, desc}

-- | Size of @sqlbatch_vtab_use@ and its fields' offsets.
useSize, useArgIndexOff, useOmitOff, useWholeListOff :: Int
useSize = #{size sqlbatch_vtab_use}
useArgIndexOff = #{offset sqlbatch_vtab_use, arg_index}
useOmitOff = #{offset sqlbatch_vtab_use, omit}
useWholeListOff = #{offset sqlbatch_vtab_use, whole_list}

-- | Size of @sqlbatch_vtab_arg@ and its fields' offsets.
argSize, argValueOff, argListOff, argNListOff :: Int
argSize = #{size sqlbatch_vtab_arg}
argValueOff = #{offset sqlbatch_vtab_arg, value}
argListOff = #{offset sqlbatch_vtab_arg, list}
argNListOff = #{offset sqlbatch_vtab_arg, n_list}

-- | Offsets of @sqlbatch_vtab_change@'s fields.
changeOpOff, changeOldRowidOff, changeNewRowidOff, changeValuesOff, changeNValuesOff,
  changeDataOff :: Int
changeOpOff = #{offset sqlbatch_vtab_change, op}
changeOldRowidOff = #{offset sqlbatch_vtab_change, old_rowid}
changeNewRowidOff = #{offset sqlbatch_vtab_change, new_rowid}
changeValuesOff = #{offset sqlbatch_vtab_change, values}
changeNValuesOff = #{offset sqlbatch_vtab_change, n_values}
changeDataOff = #{offset sqlbatch_vtab_change, data}
