-- |
-- Module      : Database.SQLite.Simple
-- Description : sqlite-simple's API, on sqlbatch's batched core
--
-- The module of sqlite-simple with its names, types and behaviour, so that a program
-- written against sqlite-simple builds against this package unchanged. It is
-- "Database.SQLBatch" restricted to sqlite-simple's exports (the same types: instances
-- written for one serve the other); "Database.SQLBatch" adds scripts, interruption,
-- streaming helpers and more. The differences that remain are listed in the package's
-- README (\"What differs from sqlite-simple\").
--
-- 'SQLError' is direct-sqlite's (the one "Database.SQLite3" exports), as in sqlite-simple:
-- its handlers catch the failures of these functions (thrown as
-- "Database.SQLBatch.Error"'s richer @SQLError@, converted: the same 'Error', message
-- and context) and those of "Database.SQLite3" alike.
module Database.SQLite.Simple
  ( Query (..)
  , Connection (..)
  , ToRow (..)
  , FromRow (..)
  , Only (..)
  , (:.) (..)
  , SQLData (..)
  , Statement (..)
  , ColumnIndex (..)
  , NamedParam (..)
    -- * Connections
  , open
  , close
  , withConnection
  , setTrace
    -- * Queries that return results
  , query
  , query_
  , queryWith
  , queryWith_
  , queryNamed
  , queryNamedWith
  , lastInsertRowId
  , changes
  , totalChanges
    -- * Queries that stream results
  , fold
  , fold_
  , foldNamed
  , foldWith
  , foldWith_
  , foldNamedWith
    -- * Statements that do not return results
  , execute
  , execute_
  , executeMany
  , executeNamed
  , field
  , returnRowError
    -- * Transactions
  , withTransaction
  , withImmediateTransaction
  , withExclusiveTransaction
  , withSavepoint
    -- * Low-level statement API for stream access and prepared statements
  , openStatement
  , closeStatement
  , withStatement
  , bind
  , bindNamed
  , reset
  , columnName
  , columnCount
  , withBind
  , nextRow
  , nextRowWith
    -- * Exceptions
  , FormatError (..)
  , ResultError (..)
  , SQLError (..)
  , Error (..)
  ) where

import Database.SQLBatch hiding (SQLError (..))
import Database.SQLBatch.Internal.Code (SQLError (..))
