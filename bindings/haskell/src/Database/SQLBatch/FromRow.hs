{-# LANGUAGE TypeOperators #-}
{-# LANGUAGE DefaultSignatures #-}
{-# LANGUAGE FlexibleContexts #-}
{-# LANGUAGE FlexibleInstances #-}
{-# LANGUAGE MagicHash #-}
{-# LANGUAGE UnboxedTuples #-}
-- |
-- Module      : Database.SQLBatch.FromRow
-- Description : Converting a result row to a Haskell value
--
-- sqlite-simple's class (this module is also "Database.SQLite.Simple.FromRow"). Instances
-- exist for 'Only', tuples of up to 15 'FromField's, lists (all remaining columns), and
-- @a ':.' b@ (the columns of @a@ followed by those of @b@). A record with a 'Generic'
-- instance gets one from the default method:
--
-- > data Person = Person { name :: Text, age :: Int } deriving (Generic)
-- > instance FromRow Person
--
-- or write a 'RowParser' with 'field':
--
-- > instance FromRow Person where
-- >   fromRow = Person <$> field <*> field
--
-- A row parser must read every column of the result: a result wider or narrower than the
-- parser throws 'Database.SQLBatch.Error.ConversionFailed' (with sqlite-simple's texts).
module Database.SQLBatch.FromRow
  ( GFromRow (gfromRow)
  , FromRow (..)
  , RowParser
  , field
  , fieldWith
  , numFieldsRemaining
  , returnRowError
  ) where

import Control.Monad (replicateM)
import GHC.Exts (Int#, RealWorld, State#)
import GHC.Generics

import Database.SQLBatch.FromField
import Database.SQLBatch.Internal (Row, RowParser (..), fieldWith, fieldWithKinds, numFieldsRemaining, returnRowError)
import Database.SQLBatch.Types

-- | The generic implementation of 'FromRow', for product types: one 'field' per
-- constructor field, in order.
--
-- The instances here define the hidden method @gfromRowAt@, the parser as a function of
-- its three arguments, and 'gfromRow' comes from it. With 'gfromRow' alone (a value, no
-- arguments), GHC inlines each instance's parser into the instance dictionary; the fields
-- of one type share one dictionary (a record with three @Maybe Int64@ fields needs one
-- @GFromRow (K1 R (Maybe Int64))@), which, used several times and too large to inline,
-- stays a function called per field. With the arguments on the left of @gfromRowAt@, the
-- dictionary stays a small partial application, and every field is inlined where it is
-- read, as in the tuple instances. An instance defining only 'gfromRow' works as before.
class GFromRow f where
  gfromRow :: RowParser (f a)
  gfromRow = RowParser gfromRowAt
  {-# INLINE gfromRow #-}
  gfromRowAt :: Row -> Int# -> State# RealWorld -> (# State# RealWorld, Int#, f a #)
  gfromRowAt = unRowParser gfromRow
  {-# INLINE gfromRowAt #-}
  {-# MINIMAL gfromRow | gfromRowAt #-}

instance GFromRow U1 where
  gfromRowAt _ c s = (# s, c, U1 #)
  {-# INLINE gfromRowAt #-}

instance FromField a => GFromRow (K1 i a) where
  gfromRowAt r c s = unRowParser (K1 <$> field) r c s
  {-# INLINE gfromRowAt #-}

instance GFromRow a => GFromRow (M1 i c a) where
  gfromRowAt r c s = case gfromRowAt r c s of
    (# s1, c1, x #) -> (# s1, c1, M1 x #)
  {-# INLINE gfromRowAt #-}

instance (GFromRow a, GFromRow b) => GFromRow (a :*: b) where
  gfromRowAt r c s = case gfromRowAt r c s of
    (# s1, c1, x #) -> case gfromRowAt r c1 s1 of
      (# s2, c2, y #) -> (# s2, c2, x :*: y #)
  {-# INLINE gfromRowAt #-}

-- | Types a result row can be converted to.
class FromRow a where
  fromRow :: RowParser a
  default fromRow :: (Generic a, GFromRow (Rep a)) => RowParser a
  fromRow = to <$> RowParser gfromRowAt
  {-# INLINE fromRow #-}

-- | Reads the next column.
field :: FromField a => RowParser a
field = fieldWithKinds fieldInlineKinds fromField
{-# INLINE field #-}

instance FromField a => FromRow (Only a) where
  fromRow = Only <$> field
  {-# INLINE fromRow #-}

-- | All remaining columns.
instance FromField a => FromRow [a] where
  fromRow = do
    n <- numFieldsRemaining
    replicateM n field

instance (FromRow a, FromRow b) => FromRow (a :. b) where
  fromRow = (:.) <$> fromRow <*> fromRow
  {-# INLINE fromRow #-}

instance (FromField a, FromField b) => FromRow (a, b) where
  fromRow = (,) <$> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c) => FromRow (a, b, c) where
  fromRow = (,,) <$> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d) => FromRow (a, b, c, d) where
  fromRow = (,,,) <$> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e) => FromRow (a, b, c, d, e) where
  fromRow = (,,,,) <$> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f) => FromRow (a, b, c, d, e, f) where
  fromRow = (,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g) => FromRow (a, b, c, d, e, f, g) where
  fromRow = (,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h) => FromRow (a, b, c, d, e, f, g, h) where
  fromRow = (,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i) => FromRow (a, b, c, d, e, f, g, h, i) where
  fromRow = (,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i, FromField j) => FromRow (a, b, c, d, e, f, g, h, i, j) where
  fromRow = (,,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i, FromField j, FromField k) => FromRow (a, b, c, d, e, f, g, h, i, j, k) where
  fromRow = (,,,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i, FromField j, FromField k, FromField l) => FromRow (a, b, c, d, e, f, g, h, i, j, k, l) where
  fromRow = (,,,,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i, FromField j, FromField k, FromField l, FromField m) => FromRow (a, b, c, d, e, f, g, h, i, j, k, l, m) where
  fromRow = (,,,,,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i, FromField j, FromField k, FromField l, FromField m, FromField n) => FromRow (a, b, c, d, e, f, g, h, i, j, k, l, m, n) where
  fromRow = (,,,,,,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}

instance (FromField a, FromField b, FromField c, FromField d, FromField e, FromField f, FromField g, FromField h, FromField i, FromField j, FromField k, FromField l, FromField m, FromField n, FromField o) => FromRow (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) where
  fromRow = (,,,,,,,,,,,,,,) <$> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field <*> field
  {-# INLINE fromRow #-}
