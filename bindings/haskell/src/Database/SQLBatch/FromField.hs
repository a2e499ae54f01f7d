{-# LANGUAGE FlexibleInstances #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- |
-- Module      : Database.SQLBatch.FromField
-- Description : Converting one value of a result to a Haskell value (sqlite-simple's class)
--
-- The class, its instances and their rules are sqlite-simple's (this module is also
-- "Database.SQLite.Simple.FromField"): a 'FieldParser' is a pure function of a 'Field' (the
-- value, as 'SQLData', and its column index) to 'Ok'. The instances are strict about SQL
-- types the way sqlite-simple's are:
--
-- * integer types take INTEGER only, converted with 'fromIntegral' (a value out of the
--   type's range wraps, as in sqlite-simple);
-- * 'Double' and 'Float' take REAL only (not INTEGER);
-- * 'Bool' takes INTEGER 0 or 1;
-- * 'Text' and 'String' take TEXT, and also INTEGER and REAL (their 'show');
-- * 'B.ByteString' takes BLOB only (see 'textBytes' for the bytes of TEXT);
-- * 'UTCTime' and 'Day' take TEXT in the formats of "Database.SQLBatch.Time";
-- * NULL needs 'Maybe' (or 'Null').
--
-- Every mismatch is a 'ConversionFailed' naming the SQL type found (@INTEGER@, @FLOAT@,
-- @TEXT@, @BLOB@, @NULL@) and the Haskell type wanted, as sqlite-simple reports it.
--
-- = Writing an instance
--
-- > newtype Email = Email Text
-- > instance FromField Email where
-- >   fromField f = do
-- >     t <- fromField f                      -- reuse Text's conversion
-- >     if "@" `T.isInfixOf` t then Ok (Email t) else returnError ConversionFailed f "not an e-mail address"
--
-- Values are read from the batch when the row parser reaches the column: a TEXT is decoded
-- once, a BLOB is a zero-copy slice of the batch buffer (which lives as long as the slice;
-- 'B.copy' a small one kept long).
module Database.SQLBatch.FromField
  ( FromField (..)
  , FieldParser
  , ResultError (..)
  , Field
  , fieldData
  , returnError
    -- * Extensions
  , fieldColumn
  , fieldType
  , textBytes
  , ColumnType (..)
  , InlineKinds
  , inlineKinds
  ) where

import Control.Exception (Exception, SomeException (..))
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import qualified Data.ByteString.Lazy as BL
import Data.Int (Int16, Int32, Int64, Int8)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Lazy as TL
import Data.Time (Day, UTCTime)
import Data.Typeable (Typeable, typeOf)
import Data.Word (Word16, Word32, Word64, Word8)
import GHC.Float (double2Float)

import Database.SQLBatch.Error
import Database.SQLBatch.Internal (Field (..), FieldParser, InlineKinds, allKinds, fieldData,
                                   gettypename, inlineKinds, orNullKind)
import Database.SQLBatch.Raw.Types (kindBlob, kindFloat, kindInteger, kindNull, kindText)
import Database.SQLBatch.Ok
import Database.SQLBatch.Time (parseDay, parseUTCTime)
import Database.SQLBatch.Types

-- | Types a result value can be converted to.
class FromField a where
  -- | Converts a field, or returns why not (usually one 'ResultError').
  fromField :: FieldParser a

  -- | Extension (not in sqlite-simple, and not exported by
  -- "Database.SQLite.Simple.FromField"; the default is right for every instance): the SQL
  -- kinds of value for which a row parser applies 'fromField' in line (@'inlineKinds'
  -- [kindInteger]@ for an integer type), the others going through one out-of-line call.
  -- It changes only the speed and size of compiled row parsers, never a result: both
  -- paths apply 'fromField' to the same 'Field'.
  fieldInlineKinds :: InlineKinds a
  fieldInlineKinds = allKinds
  {-# INLINE fieldInlineKinds #-}

-- | The column index of the field, from 0.
fieldColumn :: Field -> Int
fieldColumn = column
{-# INLINE fieldColumn #-}

-- | The SQL type of the field's value.
fieldType :: Field -> ColumnType
fieldType f = case result f of
  SQLInteger _ -> IntegerColumn
  SQLFloat _ -> FloatColumn
  SQLText _ -> TextColumn
  SQLBlob _ -> BlobColumn
  SQLNull -> NullColumn

-- | Extension: the bytes of a TEXT (its UTF-8) or of a BLOB, as a 'B.ByteString'. Use it
-- with 'Database.SQLBatch.FromRow.fieldWith' where sqlite-simple would need a 'Text' only
-- to encode it again.
textBytes :: FieldParser B.ByteString
textBytes f = case result f of
  SQLBlob b -> Ok b
  SQLText t -> Ok (TE.encodeUtf8 t)
  _ -> returnError ConversionFailed f "expecting SQLText or SQLBlob column type"

-- | Fails the conversion with a 'ResultError' of the given constructor, filling in the
-- field's SQL type and the Haskell type @a@ (sqlite-simple's function).
returnError :: forall a err. (Typeable a, Exception err)
            => (String -> String -> String -> err) -> Field -> String -> Ok a
returnError mk f msg =
  Errors [SomeException (mk (B8.unpack (gettypename (result f))) (show (typeOf (undefined :: a))) msg)]
{-# NOINLINE returnError #-}

instance FromField a => FromField (Maybe a) where
  fromField (Field SQLNull _) = Ok Nothing
  fromField f = Just <$> fromField f
  {-# INLINE fromField #-}
  fieldInlineKinds = orNullKind fieldInlineKinds
  {-# INLINE fieldInlineKinds #-}

instance FromField Null where
  fromField (Field SQLNull _) = Ok Null
  fromField f = returnError ConversionFailed f "data is not null"
  fieldInlineKinds = inlineKinds [kindNull]
  {-# INLINE fieldInlineKinds #-}

-- Failures out of line, one per type, so that the conversions stay small enough for GHC
-- to inline a whole row parser into the loop of 'Database.SQLBatch.fold'.
needInt :: (Typeable a) => Field -> Ok a
needInt f = returnError ConversionFailed f "need an int"
{-# NOINLINE needInt #-}

takeInt :: Num a => (Field -> Ok a) -> FieldParser a
takeInt failed f = case result f of
  SQLInteger i -> Ok (fromIntegral i)
  _ -> failed f
{-# INLINE takeInt #-}

needIntInt64 :: Field -> Ok Int64
needIntInt64 = needInt
{-# NOINLINE needIntInt64 #-}

needIntInt :: Field -> Ok Int
needIntInt = needInt
{-# NOINLINE needIntInt #-}

instance FromField Int64 where
  fromField = takeInt needIntInt64
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Int where
  fromField = takeInt needIntInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Int32 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Int16 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Int8 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Integer where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Word where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Word64 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Word32 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Word16 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

instance FromField Word8 where
  fromField = takeInt needInt
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

needFloat :: Typeable a => Field -> Ok a
needFloat f = returnError ConversionFailed f "expecting an SQLFloat column type"
{-# NOINLINE needFloat #-}

needFloatDouble :: Field -> Ok Double
needFloatDouble = needFloat
{-# NOINLINE needFloatDouble #-}

-- | REAL only.
instance FromField Double where
  fromField f = case result f of
    SQLFloat x -> Ok x
    _ -> needFloatDouble f
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindFloat]
  {-# INLINE fieldInlineKinds #-}

-- | REAL only, narrowed with 'double2Float'.
instance FromField Float where
  fromField f = case result f of
    SQLFloat x -> Ok (double2Float x)
    _ -> needFloat f
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindFloat]
  {-# INLINE fieldInlineKinds #-}

-- | INTEGER 0 or 1.
instance FromField Bool where
  fromField f = case result f of
    SQLInteger b
      | b == 0 || b == 1 -> Ok (b /= 0)
      | otherwise -> returnError ConversionFailed f ("bool must be 0 or 1, got " ++ show b)
    _ -> returnError ConversionFailed f "expecting an SQLInteger column type"
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindInteger]
  {-# INLINE fieldInlineKinds #-}

needText :: Field -> Ok Text
needText f = returnError ConversionFailed f "need a text"
{-# NOINLINE needText #-}

-- | TEXT only (invalid UTF-8 replaced with U+FFFD); anything else fails with
-- @ConversionFailed@ @\"need a text\"@ (sqlite-simple's rule and words).
instance FromField Text where
  fromField f = case result f of
    SQLText t -> Ok t
    _ -> needText f
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindText]
  {-# INLINE fieldInlineKinds #-}

-- | As 'Text' (a failure names the type @Text@, as sqlite-simple's does).
instance FromField TL.Text where
  fromField f = TL.fromStrict <$> fromField f
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindText]
  {-# INLINE fieldInlineKinds #-}

needString :: Field -> Ok String
needString f = returnError ConversionFailed f "expecting SQLText column type"
{-# NOINLINE needString #-}

-- | TEXT only; anything else fails with @ConversionFailed@
-- @\"expecting SQLText column type\"@ (sqlite-simple's words).
instance FromField [Char] where
  fromField f = case result f of
    SQLText t -> Ok (T.unpack t)
    _ -> needString f
  fieldInlineKinds = inlineKinds [kindText]
  {-# INLINE fieldInlineKinds #-}

needBlob :: Typeable a => Field -> Ok a
needBlob f = returnError ConversionFailed f "expecting SQLBlob column type"
{-# NOINLINE needBlob #-}

needBlobBS :: Field -> Ok B.ByteString
needBlobBS = needBlob
{-# NOINLINE needBlobBS #-}

-- | BLOB only: a zero-copy slice of the batch buffer.
instance FromField B.ByteString where
  fromField f = case result f of
    SQLBlob b -> Ok b
    _ -> needBlobBS f
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindBlob]
  {-# INLINE fieldInlineKinds #-}

-- | BLOB only.
instance FromField BL.ByteString where
  fromField f = case result f of
    SQLBlob b -> Ok (BL.fromChunks [b])
    _ -> needBlob f
  {-# INLINE fromField #-}
  fieldInlineKinds = inlineKinds [kindBlob]
  {-# INLINE fieldInlineKinds #-}

-- | Any value.
instance FromField SQLData where
  fromField f = Ok (fieldData f)
  {-# INLINE fromField #-}

-- | TEXT, as 'parseUTCTime' reads it.
instance FromField UTCTime where
  fromField f = case result f of
    SQLText t -> case parseUTCTime t of
      Right v -> Ok v
      Left e -> returnError ConversionFailed f ("couldn't parse UTCTime field: " ++ e)
    _ -> returnError ConversionFailed f "expecting SQLText column type"
  fieldInlineKinds = inlineKinds [kindText]
  {-# INLINE fieldInlineKinds #-}

-- | TEXT, as 'parseDay' reads it.
instance FromField Day where
  fromField f = case result f of
    SQLText t -> case parseDay t of
      Right v -> Ok v
      Left e -> returnError ConversionFailed f ("couldn't parse Day field: " ++ e)
    _ -> returnError ConversionFailed f "expecting SQLText column type"
  fieldInlineKinds = inlineKinds [kindText]
  {-# INLINE fieldInlineKinds #-}
