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
import Data.ByteString.Builder (Builder, toLazyByteString)
import qualified Data.Text.Encoding as TE
import Data.Time (Day, UTCTime)
import GHC.Float (float2Double)

import Database.SQLBatch.Time (dayToBuilder, utcTimeToBuilder)
import Data.Word (Word16, Word32, Word64, Word8)

import Database.SQLBatch.Types

-- | Types that can be bound as a parameter.
class ToField a where
  toField :: a -> SQLData

-- | A named parameter: @\":id\" := 3@. The name must be spelled as in the SQL, prefix
-- (@:@, @\@@ or @$@) included, as in sqlite-simple: a name the statement does not have is
-- a 'Database.SQLBatch.Error.FormatError'.
data NamedParam = forall v. ToField v => Text := v

infixr 3 :=

instance Show NamedParam where
  show (k := v) = show (k, toField v)

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

-- | Converted with 'fromIntegral', as sqlite-simple does: values above 'maxBound' ::
-- 'Int64' wrap around to negative numbers (and read back as the same 'Word64').
instance ToField Word64 where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

-- | As 'Word64'.
instance ToField Word where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

-- | Converted with 'fromIntegral', as sqlite-simple does: values outside the 'Int64'
-- range wrap (keep their low 64 bits).
instance ToField Integer where
  toField = SQLInteger . fromIntegral
  {-# INLINE toField #-}

-- | Note that SQLite stores NaN as NULL.
instance ToField Double where
  toField = SQLFloat
  {-# INLINE toField #-}

instance ToField Float where
  toField = SQLFloat . float2Double
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

-- | As TEXT @YYYY-MM-DD@, the year padded to 4 digits ('dayToBuilder').
instance ToField Day where
  toField = SQLText . builderText . dayToBuilder

-- | As TEXT @YYYY-MM-DD HH:MM:SS[.S...]@ in UTC ('utcTimeToBuilder').
instance ToField UTCTime where
  toField = SQLText . builderText . utcTimeToBuilder

builderText :: Builder -> Text
builderText = TE.decodeLatin1 . BL.toStrict . toLazyByteString
