{-# LANGUAGE FlexibleInstances #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- |
-- Module      : Database.SQLBatch.FromField
-- Description : Converting one value of a result to a Haskell value
--
-- A 'FieldParser' reads one cell of the current batch in place: the number, or the bytes of
-- TEXT and BLOB values where sqlbatch put them. It runs while its row is being parsed and
-- must not keep the 'Field'.
--
-- Conversions are strict about SQL types, like sqlite-simple's: an 'Int' needs an INTEGER,
-- 'Text' needs TEXT, a 'Double' takes REAL or INTEGER, a 'B.ByteString' takes BLOB or TEXT
-- (the UTF-8 bytes), and NULL needs 'Maybe' (or 'Null'). A failed conversion throws
-- 'ResultError', naming the column (index and name), the SQL type and the Haskell type.
--
-- Where a value is read as another storage class than its own, the result is SQLite's: a
-- 'Double' of an INTEGER is converted by the library's @sqlbatch_value_convert@ (exactly
-- @sqlite3_column_double@); the bytes of a TEXT read as a 'B.ByteString' are the value's
-- own, as @sqlite3_column_blob@ (and @sqlbatch_value_convert@) give them. No instance reads
-- a number from TEXT or text from a number.
--
-- = Writing an instance
--
-- > newtype Email = Email Text
-- > instance FromField Email where
-- >   fromField f = do
-- >     t <- fromField f                      -- reuse Text's conversion
-- >     if "@" `T.isInfixOf` t then return (Email t) else returnError ConversionFailed f "not an e-mail address"
module Database.SQLBatch.FromField
  ( FromField (..)
  , FieldParser
  , Field
  , fieldColumn
  , fieldType
  , fieldData
  , fieldName
  , fieldBytes
  , fieldBytesCopy
  , returnError
  , incompatible
  , ResultError (..)
  , ColumnType (..)
  ) where

import Control.Exception (throwIO)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import qualified Data.ByteString.Lazy as BL
import Data.Int (Int16, Int32, Int64, Int8)
import Data.Proxy (Proxy (..))
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Lazy as TL
import Data.Time (Day, UTCTime, defaultTimeLocale, parseTimeM)
import Data.Typeable (Typeable, typeRep)
import Data.Word (Word16, Word32, Word64, Word8)

import Database.SQLBatch.Error
import Database.SQLBatch.Internal
import Database.SQLBatch.Raw.Types (kindBlob, kindFloat, kindInteger, kindNull, kindText)
import Database.SQLBatch.Types

-- | Types a result value can be converted to.
class FromField a where
  fromField :: FieldParser a

-- | The bytes of a TEXT or BLOB field as a zero-copy slice of the batch buffer: the slice
-- keeps that buffer (up to 1 MiB) alive; use 'fieldBytesCopy' (or 'B.copy') for a small
-- value kept long. Throws 'Incompatible' for other types.
fieldBytes :: FieldParser B.ByteString
fieldBytes f = do
  k <- fieldKindOf f
  if k == kindText || k == kindBlob then fieldByteSlice f else wrongType f k
{-# INLINE fieldBytes #-}

-- | Like 'fieldBytes', but a fresh copy.
fieldBytesCopy :: FieldParser B.ByteString
fieldBytesCopy f = do
  k <- fieldKindOf f
  if k == kindText || k == kindBlob then fieldByteCopy f else wrongType f k
{-# INLINE fieldBytesCopy #-}

fieldKindOf :: Field -> IO Word8
fieldKindOf = fieldKind
{-# INLINE fieldKindOf #-}

-- | Throws a 'ResultError' of the given constructor ('Incompatible', 'UnexpectedNull',
-- 'ConversionFailed') for this field, filling in the column, its name, the SQL type found
-- and the Haskell type @a@.
returnError
  :: forall a. Typeable a
  => (Int -> Text -> Text -> Text -> Text -> ResultError) -> Field -> String -> IO a
returnError mk f msg = do
  k <- fieldKind f
  name <- fieldName f
  throwIO (mk (fieldColumn f) name (kindName k) (T.pack (show (typeRep (Proxy :: Proxy a))))
             (T.pack msg))
{-# NOINLINE returnError #-}

-- | The error for a field whose SQL type the conversion does not take: 'UnexpectedNull' for
-- NULL, 'Incompatible' otherwise.
incompatible :: forall a. Typeable a => Field -> IO a
incompatible f = do
  k <- fieldKind f
  wrongType f k
{-# NOINLINE incompatible #-}

-- 'incompatible' at the types of the instances below, each one a call with a single
-- argument (no 'Typeable' dictionary): that keeps those conversions small enough for GHC to
-- inline a whole row parser into the loop of 'Database.SQLBatch.fold' even when the parser
-- is shared by several call sites (a shared parser is a top-level binding, inlined only
-- when its size is under GHC's threshold).
incompatibleInt64 :: Field -> IO Int64
incompatibleInt64 = incompatible
{-# NOINLINE incompatibleInt64 #-}

incompatibleInt :: Field -> IO Int
incompatibleInt = incompatible
{-# NOINLINE incompatibleInt #-}

incompatibleInteger :: Field -> IO Integer
incompatibleInteger = incompatible
{-# NOINLINE incompatibleInteger #-}

incompatibleDouble :: Field -> IO Double
incompatibleDouble = incompatible
{-# NOINLINE incompatibleDouble #-}

incompatibleBool :: Field -> IO Bool
incompatibleBool = incompatible
{-# NOINLINE incompatibleBool #-}

wrongType :: forall a. Typeable a => Field -> Word8 -> IO a
wrongType f k
  | k == kindNull = returnError UnexpectedNull f "use Maybe for a column that may be NULL"
  | otherwise = returnError Incompatible f ""
{-# NOINLINE wrongType #-}

integral :: forall a. (Typeable a, Integral a, Bounded a) => FieldParser a
integral f = do
  k <- fieldKind f
  if k /= kindInteger
    then wrongType f k
    else do
      v <- fieldInt64Unchecked f
      if toInteger v < toInteger (minBound :: a) || toInteger v > toInteger (maxBound :: a)
        then returnError ConversionFailed f ("value " ++ show v ++ " out of range")
        else return (fromIntegral v)
{-# INLINE integral #-}

instance FromField Int64 where
  fromField f = do
    k <- fieldKind f
    if k == kindInteger then fieldInt64Unchecked f else incompatibleInt64 f
  {-# INLINE fromField #-}

instance FromField Int where
  fromField f = do
    k <- fieldKind f
    if k == kindInteger then fromIntegral <$> fieldInt64Unchecked f else incompatibleInt f
  {-# INLINE fromField #-}

instance FromField Int32 where
  fromField = integral
  {-# INLINE fromField #-}

instance FromField Int16 where
  fromField = integral
  {-# INLINE fromField #-}

instance FromField Int8 where
  fromField = integral
  {-# INLINE fromField #-}

instance FromField Word where
  fromField = nonNegative
  {-# INLINE fromField #-}

instance FromField Word64 where
  fromField = nonNegative
  {-# INLINE fromField #-}

instance FromField Word32 where
  fromField = integral
  {-# INLINE fromField #-}

instance FromField Word16 where
  fromField = integral
  {-# INLINE fromField #-}

instance FromField Word8 where
  fromField = integral
  {-# INLINE fromField #-}

-- 64-bit unsigned types: any non-negative INTEGER fits.
nonNegative :: forall a. (Typeable a, Num a) => FieldParser a
nonNegative f = do
  k <- fieldKind f
  if k /= kindInteger
    then wrongType f k
    else do
      v <- fieldInt64Unchecked f
      if v < 0
        then returnError ConversionFailed f ("value " ++ show v ++ " out of range")
        else return (fromIntegral v)
{-# INLINE nonNegative #-}

instance FromField Integer where
  fromField f = do
    k <- fieldKind f
    if k == kindInteger then toInteger <$> fieldInt64Unchecked f else incompatibleInteger f
  {-# INLINE fromField #-}

-- | REAL, or INTEGER converted as @sqlite3_column_double@ converts it (by the library's
-- @sqlbatch_value_convert@).
instance FromField Double where
  fromField f = do
    k <- fieldKind f
    if k == kindFloat
      then fieldDoubleUnchecked f
      else if k == kindInteger then fieldDoubleConverted f else incompatibleDouble f
  {-# INLINE fromField #-}

-- | REAL or INTEGER, converted with 'realToFrac'.
instance FromField Float where
  fromField f = do
    d <- fromField f :: IO Double
    return $! realToFrac d
  {-# INLINE fromField #-}

-- | INTEGER: 0 is 'False', anything else 'True'.
instance FromField Bool where
  fromField f = do
    k <- fieldKind f
    if k == kindInteger then (/= 0) <$> fieldInt64Unchecked f else incompatibleBool f
  {-# INLINE fromField #-}

-- | TEXT, decoded from UTF-8 (invalid UTF-8 is a 'ConversionFailed').
instance FromField Text where
  fromField f = do
    k <- fieldKind f
    if k /= kindText
      then wrongType f k
      else fieldTextOr f (returnError ConversionFailed f "invalid UTF-8")
  {-# INLINE fromField #-}

instance FromField TL.Text where
  fromField f = TL.fromStrict <$> fromField f
  {-# INLINE fromField #-}

-- | TEXT, as a 'String'.
instance FromField [Char] where
  fromField f = T.unpack <$> fromField f

-- | BLOB or TEXT: a zero-copy slice of the batch buffer (see 'fieldBytes').
instance FromField B.ByteString where
  fromField = fieldBytes
  {-# INLINE fromField #-}

instance FromField BL.ByteString where
  fromField f = BL.fromStrict <$> fieldBytes f
  {-# INLINE fromField #-}

-- | NULL is 'Nothing'.
instance FromField a => FromField (Maybe a) where
  fromField f = do
    k <- fieldKind f
    if k == kindNull then return Nothing else Just <$> fromField f
  {-# INLINE fromField #-}

-- | Only NULL.
instance FromField Null where
  fromField f = do
    k <- fieldKind f
    if k == kindNull then return Null else returnError Incompatible f "expected NULL"

-- | Any value.
instance FromField SQLData where
  fromField = fieldData
  {-# INLINE fromField #-}

-- | TEXT @YYYY-MM-DD@.
instance FromField Day where
  fromField f = do
    s <- B8.unpack <$> fieldBytesCopy f
    case parseTimeM True defaultTimeLocale "%F" s of
      Just d -> return d
      Nothing -> returnError ConversionFailed f ("not a date (YYYY-MM-DD): " ++ show s)

-- | TEXT @YYYY-MM-DD HH:MM:SS[.SSS]@ (or with @T@), optionally followed by @Z@ or a
-- @+HH:MM@ offset, as written by SQLite's date functions and by 'Database.SQLBatch.ToField'.
instance FromField UTCTime where
  fromField f = do
    s <- B8.unpack <$> fieldBytesCopy f
    let formats = [d ++ "%T%Q" ++ z | d <- ["%F ", "%FT"], z <- ["", "Z", "%Ez"]]
    case [t | fmt <- formats, Just t <- [parseTimeM True defaultTimeLocale fmt s]] of
      (t : _) -> return t
      [] -> returnError ConversionFailed f ("not a timestamp (YYYY-MM-DD HH:MM:SS): " ++ show s)
