-- |
-- Module      : Database.SQLite3.Direct
-- Description : direct-sqlite's "Database.SQLite3.Direct" over sqlbatch's batches
--
-- The names, types and per-row semantics of direct-sqlite's lower-level module: functions
-- return errors instead of throwing them, text is UTF-8 in 'Utf8'. 'step' and the
-- @column*@ functions read the current batch in Haskell memory and cross the FFI only when
-- a batch is used up (see "Database.SQLite3.Internal" for how, and for the thread model:
-- every function here may be called from any thread, and none can crash the program).
--
-- Differences from direct-sqlite (see the binding's README): 'Database' and 'Statement'
-- are abstract (no 'Foreign.Ptr.Ptr' inside to misuse); 'close' of a closed connection and
-- 'finalize' of a finalized statement are no-ops; 'errmsg' keeps the last failure's message
-- after later successful calls; bindings reach the library when the statement next runs,
-- so an error of the library's own bind checks (e.g. 'ErrorTooBig') comes from 'step'.
module Database.SQLite3.Direct
  ( -- * Connection management
    open
  , close
  , errcode
  , errmsg
  , getAutoCommit
    -- * Simple query execution
  , exec
  , execWithCallback
  , ExecCallback
    -- * Statement management
  , prepare
  , getStatementDatabase
  , step
  , stepNoCB
  , reset
  , finalize
  , clearBindings
  , statementSql
    -- * Parameter and column information
  , bindParameterCount
  , bindParameterName
  , bindParameterIndex
  , columnCount
  , columnName
    -- * Binding values to a prepared statement
  , bindInt64
  , bindDouble
  , bindText
  , bindBlob
  , bindZeroBlob
  , bindNull
    -- * Reading the result row
  , columnType
  , columnInt64
  , columnDouble
  , columnText
  , columnBlob
    -- * Result statistics
  , lastInsertRowId
  , changes
  , totalChanges
    -- * Interrupting a long-running query
  , interrupt
    -- * Types
  , Database
  , Statement
  , ColumnType (..)
    -- ** Results and errors
  , StepResult (..)
  , Error (..)
    -- ** Special types
  , Utf8 (..)
  , ParamIndex (..)
  , ColumnIndex (..)
  , ColumnCount
  ) where

import Database.SQLite3.Internal

-- | The same as 'step' (direct-sqlite's unsafe-call variant). A 'step' that reads the
-- current batch makes no foreign call at all, and the one that fetches must stay @safe@:
-- it may run SQL functions written in Haskell.
stepNoCB :: Statement -> IO (Either Error StepResult)
stepNoCB = step
{-# INLINE stepNoCB #-}
