{-# LANGUAGE TypeOperators #-}
{-# LANGUAGE DefaultSignatures #-}
{-# LANGUAGE FlexibleContexts #-}
{-# LANGUAGE FlexibleInstances #-}
-- |
-- Module      : Database.SQLBatch.ToRow
-- Description : Converting a Haskell value to the parameters of a statement
--
-- Instances exist for @()@ (no parameters), 'Only', tuples of up to 15 'ToField's, lists,
-- and @a ':.' b@. A record with a 'Generic' instance gets one from the default method
-- (@instance ToRow Person@), or list its fields:
--
-- > instance ToRow Person where
-- >   toRow (Person n a) = toRow (n, a)
module Database.SQLBatch.ToRow
  ( GToRow (..)
  , ToRow (..)
  ) where

import GHC.Generics

import Database.SQLBatch.ToField
import Database.SQLBatch.Types

-- | The generic implementation of 'ToRow', for product types: the constructor's fields
-- in order.
class GToRow f where
  gtoRow :: f a -> [SQLData]

instance GToRow U1 where
  gtoRow U1 = []
  {-# INLINE gtoRow #-}

instance ToField a => GToRow (K1 i a) where
  gtoRow (K1 a) = [toField a]
  {-# INLINE gtoRow #-}

instance (GToRow a, GToRow b) => GToRow (a :*: b) where
  gtoRow (a :*: b) = gtoRow a ++ gtoRow b
  {-# INLINE gtoRow #-}

instance GToRow a => GToRow (M1 i c a) where
  gtoRow (M1 a) = gtoRow a
  {-# INLINE gtoRow #-}

-- | Types that can be bound as a statement's parameters, in order.
class ToRow a where
  toRow :: a -> [SQLData]
  default toRow :: (Generic a, GToRow (Rep a)) => a -> [SQLData]
  toRow = gtoRow . from
  {-# INLINE toRow #-}

instance ToRow () where
  toRow () = []
  {-# INLINE toRow #-}

instance ToField a => ToRow (Only a) where
  toRow (Only a) = [toField a]
  {-# INLINE toRow #-}

instance ToField a => ToRow [a] where
  toRow = map toField
  {-# INLINE toRow #-}

instance (ToRow a, ToRow b) => ToRow (a :. b) where
  toRow (a :. b) = toRow a ++ toRow b
  {-# INLINE toRow #-}

instance (ToField a, ToField b) => ToRow (a, b) where
  toRow (a, b) = [toField a, toField b]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c) => ToRow (a, b, c) where
  toRow (a, b, c) = [toField a, toField b, toField c]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d) => ToRow (a, b, c, d) where
  toRow (a, b, c, d) = [toField a, toField b, toField c, toField d]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e) => ToRow (a, b, c, d, e) where
  toRow (a, b, c, d, e) = [toField a, toField b, toField c, toField d, toField e]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f) => ToRow (a, b, c, d, e, f) where
  toRow (a, b, c, d, e, f) = [toField a, toField b, toField c, toField d, toField e, toField f]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g) => ToRow (a, b, c, d, e, f, g) where
  toRow (a, b, c, d, e, f, g) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h) => ToRow (a, b, c, d, e, f, g, h) where
  toRow (a, b, c, d, e, f, g, h) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i) => ToRow (a, b, c, d, e, f, g, h, i) where
  toRow (a, b, c, d, e, f, g, h, i) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i, ToField j) => ToRow (a, b, c, d, e, f, g, h, i, j) where
  toRow (a, b, c, d, e, f, g, h, i, j) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i, toField j]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i, ToField j, ToField k) => ToRow (a, b, c, d, e, f, g, h, i, j, k) where
  toRow (a, b, c, d, e, f, g, h, i, j, k) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i, toField j, toField k]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i, ToField j, ToField k, ToField l) => ToRow (a, b, c, d, e, f, g, h, i, j, k, l) where
  toRow (a, b, c, d, e, f, g, h, i, j, k, l) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i, toField j, toField k, toField l]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i, ToField j, ToField k, ToField l, ToField m) => ToRow (a, b, c, d, e, f, g, h, i, j, k, l, m) where
  toRow (a, b, c, d, e, f, g, h, i, j, k, l, m) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i, toField j, toField k, toField l, toField m]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i, ToField j, ToField k, ToField l, ToField m, ToField n) => ToRow (a, b, c, d, e, f, g, h, i, j, k, l, m, n) where
  toRow (a, b, c, d, e, f, g, h, i, j, k, l, m, n) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i, toField j, toField k, toField l, toField m, toField n]
  {-# INLINE toRow #-}

instance (ToField a, ToField b, ToField c, ToField d, ToField e, ToField f, ToField g, ToField h, ToField i, ToField j, ToField k, ToField l, ToField m, ToField n, ToField o) => ToRow (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) where
  toRow (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) = [toField a, toField b, toField c, toField d, toField e, toField f, toField g, toField h, toField i, toField j, toField k, toField l, toField m, toField n, toField o]
  {-# INLINE toRow #-}
