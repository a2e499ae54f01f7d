{-# LANGUAGE ExistentialQuantification #-}
{-# LANGUAGE FlexibleInstances #-}
-- |
-- Module      : Database.SQLBatch.ToField
-- Description : Converting a Haskell value to a parameter
module Database.SQLBatch.ToField
  ( ToField (..)
  , NamedParam (..)
  , SQLData (..)
  ) where

import qualified Data.ByteString as B
import qualified Data.ByteString.Lazy as BL
import Data.Int (Int16, Int32, Int64, Int8)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Lazy as TL
import Data.Time (Day, UTCTime, defaultTimeLocale, formatTime)
import Data.Word (Word16, Word32, Word64, Word8)

import Database.SQLBatch.Types

-- | Types that can be bound as a parameter.
class ToField a where
  toField :: a -> SQLData

-- | A named parameter: @\":id\" := 3@. The name is written with its prefix (@:@, @\@@ or
-- @$@) as in the SQL, and then matches that spelling only; without a prefix it matches
-- @:id@, @\@id@ or @$id@. The library does the matching (the rule of
-- @sqlbatch_conn_exec@ and @sqlbatch_stmt_param_index@).
data NamedParam = forall v. ToField v => Text := v

infixr 3 :=

instance Show NamedParam where
  show (k := v) = show k ++ " := " ++ show (toField v)

instance ToField SQLData where
  toField = id
  {-# INLINE toField #-}

instance ToField Int64 where
  toField = SQLInteger
  {-# INLINE toField #-}

instance ToField Int where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

instance ToField Int32 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

instance ToField Int16 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

instance ToField Int8 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

instance ToField Word32 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

instance ToField Word16 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

instance ToField Word8 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

-- | Values above 'maxBound' :: 'Int64' cannot be stored as INTEGER and raise an error.
instance ToField Word64 where
  toField w
    | w > fromIntegral (maxBound :: Int64) =
        error ("Database.SQLBatch.ToField: Word64 " ++ show w ++ " does not fit in an SQLite INTEGER")
    | otherwise = SQLInteger (fromIntegral w)

-- | As 'Word64'.
instance ToField Word where
  toField w = toField (fromIntegral w :: Word64)

-- | Values outside the 'Int64' range cannot be stored as INTEGER and raise an error.
instance ToField Integer where
  toField i
    | i < toInteger (minBound :: Int64) || i > toInteger (maxBound :: Int64) =
        error ("Database.SQLBatch.ToField: Integer " ++ show i ++ " does not fit in an SQLite INTEGER")
    | otherwise = SQLInteger (fromInteger i)

-- | Note that SQLite stores NaN as NULL.
instance ToField Double where
  toField = SQLFloat
  {-# INLINE toField #-}

instance ToField Float where
  toField = SQLFloat . realToFrac
  {-# INLINE toField #-}

-- | As INTEGER 0 or 1.
instance ToField Bool where
  toField b = SQLInteger (if b then 1 else 0)
  {-# INLINE toField #-}

instance ToField Text where
  toField = SQLText
  {-# INLINE toField #-}

instance ToField TL.Text where
  toField = SQLText . TL.toStrict
  {-# INLINE toField #-}

instance ToField [Char] where
  toField = SQLText . T.pack
  {-# INLINE toField #-}

-- | As BLOB.
instance ToField B.ByteString where
  toField = SQLBlob
  {-# INLINE toField #-}

-- | As BLOB.
instance ToField BL.ByteString where
  toField = SQLBlob . BL.toStrict
  {-# INLINE toField #-}

-- | 'Nothing' is NULL.
instance ToField a => ToField (Maybe a) where
  toField = maybe SQLNull toField
  {-# INLINE toField #-}

instance ToField Null where
  toField _ = SQLNull
  {-# INLINE toField #-}

-- | As TEXT @YYYY-MM-DD@ (what SQLite's date functions use).
instance ToField Day where
  toField = SQLText . T.pack . formatTime defaultTimeLocale "%F"

-- | As TEXT @YYYY-MM-DD HH:MM:SS[.SSSSSSSSSSSS]@ in UTC (what SQLite's date functions use).
instance ToField UTCTime where
  toField = SQLText . T.pack . formatTime defaultTimeLocale "%F %T%Q"
