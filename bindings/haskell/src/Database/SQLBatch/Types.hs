{-# LANGUAGE TypeOperators #-}
{-# LANGUAGE DeriveFunctor #-}
{-# LANGUAGE DeriveGeneric #-}
-- |
-- Module      : Database.SQLBatch.Types
-- Description : Query text, SQL values and the small types of the sqlite-simple-shaped API
module Database.SQLBatch.Types
  ( Query (..)
  , SQLData (..)
  , ColumnType (..)
  , Only (..)
  , Null (..)
  , (:.) (..)
  ) where

import Control.DeepSeq (NFData (..))
import qualified Data.ByteString as B
import Data.Int (Int64)
import Data.String (IsString (..))
import Data.Text (Text)
import qualified Data.Text as T
import GHC.Generics (Generic)

-- | SQL text. Write it as a string literal with @OverloadedStrings@; it is sent to SQLite as
-- UTF-8. Build queries from parameters ('Database.SQLBatch.ToField.ToField'), never by
-- pasting values into the text.
newtype Query = Query { fromQuery :: Text }
  deriving (Eq, Ord, Generic)

instance Show Query where
  show = show . fromQuery

instance Read Query where
  readsPrec i = fmap (\(t, r) -> (Query t, r)) . readsPrec i

instance IsString Query where
  fromString = Query . T.pack

instance Semigroup Query where
  Query a <> Query b = Query (a <> b)

instance Monoid Query where
  mempty = Query T.empty

-- | One SQL value, as SQLite types it (per value, not per column).
data SQLData
  = SQLInteger !Int64
  | SQLFloat !Double
  | SQLText !Text
  | SQLBlob !B.ByteString
  | SQLNull
  deriving (Eq, Show, Generic)

instance NFData SQLData where
  rnf v = v `seq` ()

-- | The type of one value of a result (SQLite's storage classes).
data ColumnType
  = IntegerColumn
  | FloatColumn
  | TextColumn
  | BlobColumn
  | NullColumn
  deriving (Eq, Ord, Show, Enum, Bounded, Generic)

-- | A single-column row or a single parameter, since Haskell has no 1-tuple (the
-- definition of the @Only@ package's @Data.Tuple.Only@, which sqlite-simple re-exports;
-- that package is not available here, so this is a type of its own with the same shape):
-- @query conn \"SELECT name FROM t WHERE id = ?\" (Only 3) :: IO [Only Text]@.
newtype Only a = Only { fromOnly :: a }
  deriving (Eq, Ord, Show, Read, Functor, Generic)

instance NFData a => NFData (Only a) where
  rnf (Only a) = rnf a

-- | SQL NULL as a parameter, or a column that must be NULL in a result. As in SQL (and in
-- sqlite-simple), a NULL equals nothing, itself included: @Null == Null@ is 'False', and
-- so is @Null /= Null@.
data Null = Null
  deriving (Show, Read, Generic)

instance Eq Null where
  _ == _ = False
  _ /= _ = False

-- | Two rows side by side: @a :. b@ reads (or writes) the columns of @a@ and then those of
-- @b@, so rows wider than the largest tuple, or made of records, compose.
data a :. b = a :. b
  deriving (Eq, Ord, Show, Read, Generic)

infixr 3 :.
