{-# LANGUAGE TemplateHaskell #-}
-- |
-- Module      : Database.SQLBatch.QQ
-- Description : The @sql@ quasiquoter (also "Database.SQLite.Simple.QQ")
--
-- > {-# LANGUAGE QuasiQuotes #-}
-- > rows <- query conn [sql|
-- >   SELECT name
-- >   FROM users
-- >   WHERE job = ?
-- >   |] (Only job)
--
-- The text between the brackets becomes the 'Query', unchanged.
module Database.SQLBatch.QQ
  ( sql
  ) where

import Data.String (fromString)
import Language.Haskell.TH (Exp, Q, appE, stringE)
import Language.Haskell.TH.Quote (QuasiQuoter (..))

import Database.SQLBatch.Types (Query)

-- | A 'Query' written over several lines, in expression context only.
sql :: QuasiQuoter
sql = QuasiQuoter
  { quotePat = const (fail "Database.SQLBatch.QQ.sql: quasiquoter used in pattern context")
  , quoteType = const (fail "Database.SQLBatch.QQ.sql: quasiquoter used in type context")
  , quoteDec = const (fail "Database.SQLBatch.QQ.sql: quasiquoter used in declaration context")
  , quoteExp = sqlExp
  }

sqlExp :: String -> Q Exp
sqlExp = appE [| fromString :: String -> Query |] . stringE
