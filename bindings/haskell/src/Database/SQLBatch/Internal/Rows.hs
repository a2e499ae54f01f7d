{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# OPTIONS_HADDOCK not-home #-}
-- |
-- Module      : Database.SQLBatch.Internal.Rows
-- Description : Table values: a whole table as one parameter, laid out as the C ABI takes it
--
-- A 'TableValue' is a table (rows of equal width) laid out once, in Haskell memory, exactly
-- as @sqlbatch_stmt_bind_rows@ and @sqlbatch_vtab_push@ take rows: an array of 16-byte cells
-- and one block of bytes. Binding it is then one call into the library, which copies it.
--
-- = How a table travels through 'ToField'
--
-- sqlite-simple's 'ToField' turns a value into one 'SQLData', and 'SQLData' has no
-- constructor for a table. So 'toField' of a 'TableValue' is an 'SQLBlob' of its layout,
-- marked with a 48-byte header that holds a 64-bit secret drawn when the process starts,
-- and every call of this package that binds a statement's parameters ('tablesIn',
-- 'tablesInValues', then 'bindTables') recognises such a blob: it binds NULL in its place
-- and then the table, by @sqlbatch_stmt_bind_rows@. A BLOB from anywhere else (a file, the
-- network, another process) cannot carry the secret, so it always binds as the bytes it
-- is; a table value stored through a path that does not bind parameters (a bulk write's
-- rows, say) is bound as those bytes, and the SQL that reads it as a table fails with
-- sqlbatch_rows' error.
--
-- Exposed for the faces and for new combinators; the names here may change between versions.
module Database.SQLBatch.Internal.Rows
  ( -- * Table values
    TableValue (..)
  , tableValue
  , tableValueOfWidth
  , tableColumn
  , tableFromValues
  , tableRowCount
  , tableColumnCount
  , tableProblem
  , InList (..)
  , Rows (..)
    -- * Recognising and binding them
  , tableOfBlob
  , tablesIn
  , isTableValue
  , tablesInValues
  , withoutTables
  , withoutTablesValues
  , bindTables
  , withTableSlice
    -- * Cells
  , tableHeaderSize
  , putCellWords
  ) where

import Control.Exception (IOException, try)
import Control.Monad (when)
import Data.Bits (shiftL, shiftR, xor, (.&.), (.|.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Internal as BI
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.ForeignPtr (withForeignPtr)
import Foreign.Marshal.Utils (copyBytes)
import Foreign.Ptr (Ptr, castPtr, nullPtr, plusPtr, ptrToIntPtr)
import Foreign.Storable (pokeByteOff)
import GHC.ByteOrder (ByteOrder (..), targetByteOrder)
import GHC.Clock (getMonotonicTimeNSec)
import GHC.Float (castDoubleToWord64)
import GHC.ForeignPtr (mallocPlainForeignPtrAlignedBytes)
import System.IO (IOMode (ReadMode), withBinaryFile)
import System.IO.Unsafe (unsafeDupablePerformIO, unsafePerformIO)
import System.Mem.StableName (hashStableName, makeStableName)

import Database.SQLBatch.Direct (Value (..))
import Database.SQLBatch.Internal.Text (pokeUtf8, utf8Bound)
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Raw.VTab (c_sqlbatch_stmt_bind_rows, c_sqlbatch_stmt_bind_rows_unsafe)
import Database.SQLBatch.ToField (ToField (..))
import Database.SQLBatch.ToRow (ToRow (..))
import Database.SQLBatch.Types (SQLData (..))

------------------------------------------------------------------------------------------
-- Table values

-- | A whole table, bound to one parameter (a table-valued parameter) or handed to a virtual
-- table's scan ('Database.SQLBatch.VTab.writeTable'). The SQL reads a bound table through
-- the @sqlbatch_rows@ virtual table every connection has:
--
-- > query conn "SELECT id, name FROM item WHERE id IN sqlbatch_rows(?)" (Only (tableColumn ids))
--
-- Made by 'tableValue', 'tableColumn' or 'tableFromValues' (or through the newtypes
-- 'InList' and 'Rows'); laid out once, when it is first used, and bound in one call.
-- Its 'ToField' instance is what binds it (see the module's header for how).
newtype TableValue = TableValue
  { tableBytes :: B.ByteString
    -- ^ The layout: a 48-byte header (a mark, the process's secret, the row and column
    -- counts, the bytes' length), the cells (16 bytes each, row-major), the bytes of the
    -- TEXT and BLOB values (the cells' offsets count from their start). A table that
    -- cannot be bound (rows of different widths) has 0 columns and its problem in place
    -- of the cells.
  }
  deriving (Eq)

instance Show TableValue where
  show t = case tableProblem t of
    Just p -> "<table value: " ++ p ++ ">"
    Nothing -> "<table value: " ++ show (tableRowCount t) ++ " row(s) of "
                 ++ show (tableColumnCount t) ++ " column(s)>"

-- | Binds the table (see the module's header).
instance ToField TableValue where
  toField = SQLBlob . tableBytes
  {-# INLINE toField #-}

-- | A list bound as a table of one column, for @WHERE x IN sqlbatch_rows(?)@:
-- @query conn \"... WHERE id IN sqlbatch_rows(?)\" (Only (InList ids))@.
newtype InList a = InList [a]
  deriving (Eq, Show)

instance ToField a => ToField (InList a) where
  toField (InList xs) = toField (tableColumn xs)

-- | A list of rows bound as a table (each row's 'ToRow' values, all of the same width), for
-- a @sqlbatch_rows@ table of that many columns (see 'tableValue').
newtype Rows r = Rows [r]
  deriving (Eq, Show)

instance ToRow r => ToField (Rows r) where
  toField (Rows rs) = toField (tableValue rs)

-- | The table of these rows, each the 'ToRow' values of one element. Its width is that of
-- the first row; rows of another width make a table that cannot be bound, whose binding
-- fails with the row that differs. No rows read as an empty table from a @sqlbatch_rows@
-- table of any width.
tableValue :: ToRow r => [r] -> TableValue
tableValue rs = tableFromValues Nothing (map toRow rs)

-- | 'tableValue' of a given width: rows of another width make a table that cannot be bound.
-- (An empty table needs no width: it reads as empty from a table of any width.)
tableValueOfWidth :: ToRow r => Int -> [r] -> TableValue
tableValueOfWidth w rs = tableFromValues (Just w) (map toRow rs)

-- | A table of one column: one row per element.
tableColumn :: ToField a => [a] -> TableValue
tableColumn xs = encodeColumn (map toField xs)
{-# INLINE tableColumn #-}

-- | 'tableColumn' of the values: one pass to size them, one to lay them out.
encodeColumn :: [SQLData] -> TableValue
encodeColumn vs = unsafeDupablePerformIO $ do
  let sizes !n !b [] = (n, b)
      sizes n b (v : rest) = sizes (n + 1) (b + bytesOf v) rest
      (rows, bound) = sizes (0 :: Int) (0 :: Int) vs
      start = tableHeaderSize + rows * valueSize
  TableValue <$> allocate (start + bound) (\p -> do
    let dat = p `plusPtr` start
        go !_ !off [] = return off
        go cell off (v : rest) = do
          off' <- putValue cell dat off v
          go (cell `plusPtr` valueSize) off' rest
    dlen <- go (p `plusPtr` tableHeaderSize) 0 vs
    header p rows 1 dlen
    return (start + dlen))
{-# NOINLINE encodeColumn #-}

-- | A table of these rows of values, of the given width (or the first row's, or 1).
tableFromValues :: Maybe Int -> [[SQLData]] -> TableValue
tableFromValues mw rows = unsafeDupablePerformIO $
  case survey width rows of
    Left problem -> invalid problem
    Right (n, bound) -> encode width n bound rows
  where
    width = case (mw, rows) of
      (Just w, _) -> w
      (Nothing, r : _) -> length r
      (Nothing, []) -> 1
{-# NOINLINE tableFromValues #-}

-- | The row count and the bytes the values need at most, or what makes the rows unfit.
survey :: Int -> [[SQLData]] -> Either String (Int, Int)
survey w rows
  | w <= 0 = Left "a table needs at least one column"
  | otherwise = go 0 0 rows
  where
    go !n !b [] = Right (n, b)
    go n b (r : rest) = row 0 b r
      where
        row !k !b' [] | k /= w = Left ("row " ++ show n ++ " has " ++ show k ++ " value(s), the table " ++ show w)
                      | otherwise = go (n + 1) b' rest
        row k b' (v : vs) = row (k + 1) (b' + bytesOf v) vs

-- | The most bytes a value's TEXT or BLOB takes in a layout.
bytesOf :: SQLData -> Int
bytesOf v = case v of
  SQLText t -> utf8Bound t
  SQLBlob x -> B.length x
  _ -> 0
{-# INLINE bytesOf #-}

-- | The header's size: the cells start there.
tableHeaderSize :: Int
tableHeaderSize = 48

-- | The mark that starts a table's layout ("SQLBROWS").
mark :: Word64
mark = 0x53574f52424c5153

-- | The process's secret, the header's second word: from @/dev/urandom@, or (where it
-- cannot be read) from the clock and an address.
tableSecret :: Word64
tableSecret = unsafePerformIO $ do
  r <- try (withBinaryFile "/dev/urandom" ReadMode (`B.hGet` 8)) :: IO (Either IOException B.ByteString)
  case r of
    Right b | B.length b == 8 -> return (wordAt b 0)
    _ -> do
      t <- getMonotonicTimeNSec
      h <- hashStableName <$> makeStableName mark
      return (t `xor` (fromIntegral h `shiftL` 32) `xor` 0x9e3779b97f4a7c15)
{-# NOINLINE tableSecret #-}

-- | A little-endian word of a 'B.ByteString' at an offset (at least 8 bytes there).
wordAt :: B.ByteString -> Int -> Word64
wordAt b o = go 7 0
  where
    go :: Int -> Word64 -> Word64
    go i !acc
      | i < 0 = acc
      | otherwise = go (i - 1) ((acc `shiftL` 8) .|. fromIntegral (BU.unsafeIndex b (o + i)))

-- | Allocates a layout of @n@ bytes, aligned for the cells.
allocate :: Int -> (Ptr Word8 -> IO Int) -> IO B.ByteString
allocate n write = do
  fp <- mallocPlainForeignPtrAlignedBytes (max 8 n) 16
  used <- withForeignPtr fp write
  return (BI.fromForeignPtr fp 0 used)

putWord :: Ptr Word8 -> Int -> Word64 -> IO ()
putWord p o w
  | targetByteOrder == LittleEndian = pokeByteOff p o w
  | otherwise = mapM_ (\i -> pokeByteOff p (o + i) (fromIntegral (w `shiftR` (8 * i)) :: Word8)) [0 .. 7]

-- | A table that cannot be bound: 0 columns, the problem's text after the header.
invalid :: String -> IO TableValue
invalid problem = do
  let msg = TE.encodeUtf8 (T.pack problem)
  TableValue <$> allocate (tableHeaderSize + B.length msg) (\p -> do
    header p 0 0 (B.length msg)
    BU.unsafeUseAsCStringLen msg $ \(q, n) -> copyBytes (p `plusPtr` tableHeaderSize) (castPtr q) n
    return (tableHeaderSize + B.length msg))

header :: Ptr Word8 -> Int -> Int -> Int -> IO ()
header p rows cols dlen = do
  putWord p 0 mark
  putWord p 8 tableSecret
  putWord p 16 (fromIntegral rows)
  putWord p 24 (fromIntegral cols)
  putWord p 32 (fromIntegral dlen)
  putWord p 40 0

-- | Lays out @n@ rows of @w@ values whose bytes take at most @bound@.
encode :: Int -> Int -> Int -> [[SQLData]] -> IO TableValue
encode w n bound rows = do
  let cellBytes = n * w * valueSize
      start = tableHeaderSize + cellBytes
  TableValue <$> allocate (start + bound) (\p -> do
    let dat = p `plusPtr` start
        goRows !_ !off [] = return off
        goRows cell off (r : rest) = goVals cell off r rest
        goVals !cell !off [] rest = goRows cell off rest
        goVals cell off (v : vs) rest = do
          off' <- putValue cell dat off v
          goVals (cell `plusPtr` valueSize) off' vs rest
    dlen <- goRows (p `plusPtr` tableHeaderSize) 0 rows
    header p n w dlen
    return (start + dlen))

-- | Writes one value's cell (its bytes at @dat + off@); returns the bytes' new end.
putValue :: Ptr Word8 -> Ptr Word8 -> Int -> SQLData -> IO Int
putValue cell dat off v = case v of
  SQLInteger x -> off <$ putCellWords cell (fromIntegral x) 0 kindInteger
  SQLFloat d -> off <$ putCellWords cell (castDoubleToWord64 d) 0 kindFloat
  SQLNull -> off <$ putCellWords cell 0 0 kindNull
  SQLText t -> do
    k <- pokeUtf8 (dat `plusPtr` off) t
    putCellWords cell (fromIntegral off) (fromIntegral k) kindText
    return (off + k)
  SQLBlob b -> do
    let k = B.length b
    BU.unsafeUseAsCString b $ \q -> copyBytes (dat `plusPtr` off) (castPtr q) k
    putCellWords cell (fromIntegral off) (fromIntegral k) kindBlob
    return (off + k)

-- | Writes a whole cell: bits, length, kind, zero padding.
putCellWords :: Ptr Word8 -> Word64 -> Word32 -> Word8 -> IO ()
putCellWords cell bits len kind = do
  pokeByteOff cell valueBitsOff bits
  if targetByteOrder == LittleEndian && valueKindOff == valueLenOff + 4 && valueSize == valueLenOff + 8
    then pokeByteOff cell valueLenOff (fromIntegral len + fromIntegral kind * 0x100000000 :: Word64)
    else do
      pokeByteOff cell valueLenOff len
      pokeByteOff cell valueKindOff kind
      pokeByteOff cell (valueKindOff + 1) (0 :: Word8)
      pokeByteOff cell (valueKindOff + 2) (0 :: Word8)
      pokeByteOff cell (valueKindOff + 3) (0 :: Word8)
{-# INLINE putCellWords #-}

-- | The number of rows.
tableRowCount :: TableValue -> Int
tableRowCount (TableValue b) = fromIntegral (wordAt b 16)

-- | The number of columns (0 for a table that cannot be bound).
tableColumnCount :: TableValue -> Int
tableColumnCount (TableValue b) = fromIntegral (wordAt b 24)

-- | Why the table cannot be bound, if it cannot (rows of different widths, no column).
tableProblem :: TableValue -> Maybe String
tableProblem t@(TableValue b)
  | tableColumnCount t > 0 = Nothing
  | otherwise = Just (T.unpack (TE.decodeUtf8With (\_ _ -> Just '?') (B.drop tableHeaderSize b)))

------------------------------------------------------------------------------------------
-- Recognising and binding

-- | The table a BLOB carries, if it is a table value's layout made in this process.
tableOfBlob :: B.ByteString -> Maybe TableValue
tableOfBlob b
  | B.length b >= tableHeaderSize && wordAt b 0 == mark && wordAt b 8 == tableSecret =
      Just (TableValue (aligned b))
  | otherwise = Nothing

-- | The layout itself when its cells are aligned as the library reads them, else a copy
-- that is (a BLOB copied on its way here may sit anywhere).
aligned :: B.ByteString -> B.ByteString
aligned b = unsafeDupablePerformIO $ BU.unsafeUseAsCStringLen b $ \(p, n) ->
  if ptrToIntPtr p .&. 7 == 0 then return b
    else allocate n (\q -> n <$ copyBytes q (castPtr p) n)

-- | The table values among a statement's positional values: (parameter index from 1, the
-- table). Allocates nothing when no value is a BLOB.
tablesIn :: [SQLData] -> [(Int, TableValue)]
tablesIn = go 1
  where
    go :: Int -> [SQLData] -> [(Int, TableValue)]
    go !_ [] = []
    go i (SQLBlob b : vs) | Just t <- tableOfBlob b = (i, t) : go (i + 1) vs
    go i (_ : vs) = go (i + 1) vs
{-# INLINE tablesIn #-}

-- | Whether a value is a table value ('tablesIn' without the list).
isTableValue :: SQLData -> Bool
isTableValue (SQLBlob b) = case tableOfBlob b of
  Just _ -> True
  Nothing -> False
isTableValue _ = False
{-# INLINE isTableValue #-}

-- | 'tablesIn' for the layer below's values (direct-sqlite's per-parameter binds).
tablesInValues :: [Value] -> [(Int, TableValue)]
tablesInValues = go 1
  where
    go :: Int -> [Value] -> [(Int, TableValue)]
    go !_ [] = []
    go i (VBlob b : vs) | Just t <- tableOfBlob b = (i, t) : go (i + 1) vs
    go i (_ : vs) = go (i + 1) vs

-- | The values with every table value replaced by NULL (what the ordinary bind binds in
-- its place, before 'bindTables').
withoutTables :: [SQLData] -> [SQLData]
withoutTables = map (\v -> case v of
  SQLBlob b | Just _ <- tableOfBlob b -> SQLNull
  _ -> v)

-- | 'withoutTables' for the layer below's values.
withoutTablesValues :: [Value] -> [Value]
withoutTablesValues = map (\v -> case v of
  VBlob b | Just _ <- tableOfBlob b -> VNull
  _ -> v)

-- | The most bytes (cells and values) an @unsafe@ bind copies.
unsafeBindBytes :: Int
unsafeBindBytes = 64 * 1024

-- | Binds each table to its parameter (@sqlbatch_stmt_bind_rows@), after the statement's
-- other parameters were bound. @mayBeUnsafe@: the statement is not in the middle of a run,
-- so a small table can be bound by an @unsafe@ call. On failure: the library's code (whose
-- message is the connection's last error), or for a table that cannot be bound
-- ('tableProblem') 'sqlbatchEParamCount' and its problem.
bindTables :: Ptr CStmt -> Bool -> [(Int, TableValue)] -> IO (Either (Int32, Maybe String) ())
bindTables h mayBeUnsafe = go
  where
    go [] = return (Right ())
    go ((i, t) : rest) = case tableProblem t of
      Just p -> return (Left (sqlbatchEParamCount, Just ("table value for parameter " ++ show i ++ ": " ++ p)))
      Nothing -> do
        let cols = tableColumnCount t
        rc <- withTableSlice t 0 (tableRowCount t) $ \cells nv dat dlen ->
          withCParams cells nullPtr nv dat dlen 0 $ \pp ->
            if mayBeUnsafe && B.length (tableBytes t) <= unsafeBindBytes
              then c_sqlbatch_stmt_bind_rows_unsafe h (fromIntegral i) pp (fromIntegral cols)
              else c_sqlbatch_stmt_bind_rows h (fromIntegral i) pp (fromIntegral cols)
        if rc /= sqlbatchOk then return (Left (rc, Nothing)) else go rest

-- | Runs an action on rows @[from, from + n)@ of a table: their cells, the number of
-- values, the base of the bytes and the bytes' length (the cells' offsets count from that
-- base). The memory stays valid during the action only.
withTableSlice :: TableValue -> Int -> Int -> (Ptr Word8 -> Int -> Ptr Word8 -> Int -> IO a) -> IO a
withTableSlice t@(TableValue b) from n k =
  BU.unsafeUseAsCString b $ \p0 -> do
    let p = castPtr p0 :: Ptr Word8
        cols = tableColumnCount t
        rows = tableRowCount t
        dlen = fromIntegral (wordAt b 32) :: Int
        dat = p `plusPtr` (tableHeaderSize + rows * cols * valueSize)
    when (from < 0 || n < 0 || from + n > rows) $
      ioError (userError ("sqlbatch: rows " ++ show from ++ ".." ++ show (from + n) ++ " of a table of " ++ show rows))
    k (p `plusPtr` (tableHeaderSize + from * cols * valueSize)) (n * cols)
      (if dlen == 0 then nullPtr else dat) dlen
