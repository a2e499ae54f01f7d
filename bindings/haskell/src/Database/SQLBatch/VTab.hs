{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- |
-- Module      : Database.SQLBatch.VTab
-- Description : Virtual tables and table-valued functions written in Haskell, fed in batches; tables bound as one parameter
--
-- Two ways for a program's own rows to take part in SQL, each crossing the FFI once per
-- batch of rows rather than once per row and per value.
--
-- = A list or a table as one parameter
--
-- A 'TableValue' (or the newtypes 'InList' and 'Rows') binds a whole table to one @?@,
-- which the SQL reads through the @sqlbatch_rows@ virtual table that every connection has:
--
-- > ids <- ...                                              -- [Int64]
-- > rows <- query conn "SELECT id, name FROM item WHERE id IN sqlbatch_rows(?)" (Only (InList ids))
-- >
-- > execute_ conn "CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, name TEXT)"
-- > execute conn "INSERT INTO item(id, name) SELECT * FROM incoming(?)" (Only (Rows pairs))
--
-- The eponymous @sqlbatch_rows@ has one column, @value@; a table of several columns is
-- declared once per shape, per connection, and read as a table-valued function. Through
-- "Database.SQLBatch" every call that binds parameters takes them
-- ('Database.SQLBatch.query', 'Database.SQLBatch.execute', 'Database.SQLBatch.fold', their
-- named forms, 'Database.SQLBatch.bind'); through "Database.SQLite3",
-- 'Database.SQLite3.bindSQLData' of a 'toField' (or 'bindTable'). A bulk write
-- ('Database.SQLBatch.executeMany') binds by row and does not take them.
--
-- = A virtual table
--
-- A 'Module' is a record of functions: 'moduleConnect' declares a table's columns,
-- 'moduleBestIndex' plans a scan from the query's constraints, 'moduleOpen' makes a cursor,
-- 'moduleFilter' starts a scan with the arguments the plan asked for, and 'moduleFill'
-- writes the scan's next rows, up to a few hundred at a time, into a 'RowWriter'. The
-- library answers SQLite's per-row and per-value calls from those batches, so that Haskell
-- is entered once per batch. A table-valued function is simpler still
-- ('createTableFunction'): a Haskell function from its arguments to a (lazy) list of rows.
--
-- > createTableFunction conn "pairs" ["k INTEGER", "w INTEGER"] ["n"] $ \[SQLInteger n] ->
-- >   return [(j * 7919 `mod` 100000 + 1, j `mod` 10) | j <- [0 .. n - 1 :: Int64]]
-- > query_ conn "SELECT sum(w) FROM pairs(1000)" :: IO [Only Int64]
--
-- = Errors, exceptions, threads
--
-- An exception thrown by a callback ends the statement with an 'SQLError' whose message is
-- the exception's text ('SQLError's own code and details when it is one); nothing unwinds
-- through C, the connection stays usable. The callbacks run on the thread that steps the
-- statement (the connection's worker thread for a statement that fetches ahead), while the
-- call that stepped it holds the connection: they must not use that connection (it throws
-- 'Database.SQLBatch.Internal.Core.HookReentry', which fails the statement); other
-- connections are fine. Every cursor 'moduleOpen' makes is closed once ('moduleClose') and
-- every table 'moduleConnect' makes disconnected once ('moduleDisconnect'), also when a
-- statement is finalized or reset in the middle of a scan, when an asynchronous exception
-- interrupts the query (an interrupted statement is stopped between two batches), and when
-- the connection closes. An exception thrown by 'moduleClose' or 'moduleDisconnect' is
-- dropped; the state is released all the same.
--
-- Registration ('createModule', 'createTableFunction') works on "Database.SQLBatch"'s
-- 'Connection' and on "Database.SQLite3"'s @Database@ alike ('HasDatabase'): they are one
-- connection.
module Database.SQLBatch.VTab
  ( -- * Tables as parameters
    TableValue
  , tableValue
  , tableValueOfWidth
  , tableColumn
  , tableFromValues
  , tableRowCount
  , tableColumnCount
  , tableProblem
  , InList (..)
  , Rows (..)
  , bindTable
    -- * Virtual table modules
  , HasDatabase (..)
  , Module (..)
  , newModule
  , ModuleKind (..)
  , ModuleOptions (..)
  , defaultModuleOptions
  , createModule
  , deleteModule
  , Connect (..)
    -- ** Planning a scan
  , IndexInfo (..)
  , IndexConstraint (..)
  , IndexOp (..)
  , OrderTerm (..)
  , IndexPlan (..)
  , ConstraintUse (..)
  , fullScan
  , useConstraint
    -- ** Scanning
  , FilterArgs (..)
  , FilterArg (..)
  , RowWriter
  , writerMax
  , writerRows
  , writerFull
  , writeInt64
  , writeInt
  , writeDouble
  , writeText
  , writeUtf8
  , writeBlob
  , writeNull
  , writeValue
  , writeField
  , endRow
  , endRowWithId
  , writeRow
  , writeTable
    -- ** Changes
  , RowChange (..)
    -- * Table-valued functions
  , createTableFunction
  , createTableGenerator
  ) where

import Control.Exception (SomeException, displayException, evaluate, finally, fromException,
                          mask_, throwIO, try)
import Control.Monad (forM, forM_, when)
import Data.Bits (setBit, testBit, (.&.))
import qualified Data.ByteString as B
import qualified Data.ByteString.Unsafe as BU
import Data.Int (Int32, Int64)
import Data.IORef
import Data.List (find, sortOn)
import Data.Maybe (fromMaybe, isJust)
import Data.Text (Text)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Text.Encoding.Error as TE
import Data.Word (Word32, Word64, Word8)
import Foreign.C.Types (CBool (..), CSize (..))
import Foreign.Marshal.Alloc (allocaBytes, free, mallocBytes, reallocBytes)
import Foreign.Marshal.Utils (copyBytes, fillBytes)
import Foreign.Ptr (FunPtr, Ptr, castPtr, nullFunPtr, nullPtr, plusPtr)
import Foreign.StablePtr
import Foreign.Storable (peekByteOff, poke, pokeByteOff)
import GHC.Float (castDoubleToWord64, castWord64ToDouble)
import System.IO.Unsafe (unsafePerformIO)

import Database.SQLBatch.Error (SQLError (..), decodeError)
import Database.SQLBatch.Internal (Connection (..))
import Database.SQLBatch.Internal.Core (Database, inHook, throwSQL, withDb)
import Database.SQLBatch.Internal.Rows
import Database.SQLBatch.Internal.Text (pokeUtf8, utf8Bound)
import Database.SQLBatch.Raw (CStr)
import Database.SQLBatch.Raw.Extra (DestroyFn, mkDestroy)
import Database.SQLBatch.Raw.Types
import Database.SQLBatch.Raw.VTab
import Database.SQLBatch.ToField (ToField (..))
import Database.SQLBatch.ToRow (ToRow (..))
import Database.SQLBatch.Types (SQLData (..))
import qualified Database.SQLite3 as S3

------------------------------------------------------------------------------------------
-- Tables as parameters

-- | Binds a table to parameter @i@ (from 1) of a "Database.SQLite3" statement: the same as
-- @'Database.SQLite3.bindSQLData' st i ('toField' t)@. The table is copied into the
-- statement when it next runs.
bindTable :: S3.Statement -> S3.ParamIndex -> TableValue -> IO ()
bindTable st i t = S3.bindSQLData st i (toField t)

------------------------------------------------------------------------------------------
-- Modules

-- | What a module can be registered on: "Database.SQLBatch"'s 'Connection' and
-- "Database.SQLite3"'s @Database@ (the package's one connection, which the first holds).
class HasDatabase c where
  -- | The connection.
  databaseOf :: c -> Database

instance HasDatabase Database where
  databaseOf = id

instance HasDatabase Connection where
  databaseOf = connectionHandle

-- | A virtual table module: how its tables are made and scanned, for tables of state
-- @table@ with cursors of state @cursor@. Every function may throw: the statement then
-- fails with the exception's text (see the module's header).
data Module table cursor = Module
  { moduleConnect :: Connect -> IO (Text, table)
    -- ^ Makes a table: its columns, as a @CREATE TABLE@ statement whose table name is
    -- ignored (@\"CREATE TABLE x(a INTEGER, b TEXT, arg HIDDEN)\"@: hidden columns are the
    -- arguments of a table-valued function, in order), and its state.
  , moduleBestIndex :: Maybe (table -> IndexInfo -> IO (Maybe IndexPlan))
    -- ^ Plans a scan, once for each plan SQLite considers: which constraints become
    -- arguments of 'moduleFilter', the plan's number, its cost. 'Nothing' from it: the
    -- plan cannot be used (it needs a constraint that is not usable: SQLite tries another
    -- join order). Without it every scan reads the whole table, with no arguments.
  , moduleOpen :: table -> IO cursor
    -- ^ Makes a cursor for a scan.
  , moduleFilter :: cursor -> FilterArgs -> IO ()
    -- ^ Starts (or restarts) a scan with the plan's number and the arguments it asked for.
  , moduleFill :: cursor -> RowWriter -> IO Bool
    -- ^ Writes the scan's next rows, at most 'writerMax' of them, and says whether they are
    -- the last ('True'). A fill that writes no row must say 'True'.
  , moduleClose :: cursor -> IO ()
    -- ^ Ends a cursor (once per 'moduleOpen', also in the middle of a scan).
  , moduleDisconnect :: table -> Bool -> IO ()
    -- ^ Ends a table (once per 'moduleConnect'); 'True' when it is dropped (@DROP TABLE@:
    -- its data may go too), 'False' when its connection closes.
  , moduleUpdate :: Maybe (table -> RowChange -> IO Int64)
    -- ^ A writable table: makes one change (one call per row, as SQLite makes them) and
    -- returns the new row's rowid for an insert (ignored otherwise). Without it the table
    -- is read-only.
  }

-- | A module from its four required functions: connect, open, filter, fill; no planning
-- (full scans), nothing to close or disconnect, read-only. Set the other fields with
-- record update.
newModule :: (Connect -> IO (Text, table)) -> (table -> IO cursor) -> (cursor -> FilterArgs -> IO ())
          -> (cursor -> RowWriter -> IO Bool) -> Module table cursor
newModule c o f w = Module
  { moduleConnect = c, moduleBestIndex = Nothing, moduleOpen = o, moduleFilter = f
  , moduleFill = w, moduleClose = \_ -> return (), moduleDisconnect = \_ _ -> return ()
  , moduleUpdate = Nothing }

-- | How a module's tables come to be.
data ModuleKind
  = Tables
    -- ^ made by @CREATE VIRTUAL TABLE t USING name(args...)@
  | Eponymous
    -- ^ also the table @name@ itself, without @CREATE@ (with hidden columns, a table-valued
    -- function: @SELECT * FROM name(1, 2)@)
  | EponymousOnly
    -- ^ only the table @name@; @CREATE VIRTUAL TABLE@ refuses the module
  deriving (Eq, Show)

-- | The options of 'createModule'.
data ModuleOptions = ModuleOptions
  { moduleKind :: ModuleKind
    -- ^ Tables made by @CREATE VIRTUAL TABLE@, the eponymous table, or both.
  , moduleBatchRows :: Int
    -- ^ How many rows a fill is asked for at most (0: the library's 256).
  }
  deriving (Eq, Show)

-- | 'Tables', batches of the library's size.
defaultModuleOptions :: ModuleOptions
defaultModuleOptions = ModuleOptions Tables 0

-- | What 'moduleConnect' is told: SQLite's arguments of @xCreate@/@xConnect@.
data Connect = Connect
  { connectCreate :: Bool
    -- ^ True when @CREATE VIRTUAL TABLE@ makes the table; False when an existing one is
    -- connected again (the database was reopened) and for an eponymous table.
  , connectModule :: Text
    -- ^ The module's name.
  , connectDatabase :: Text
    -- ^ @main@, @temp@ or an attached database's name.
  , connectTable :: Text
    -- ^ The table's name (the module's, for an eponymous table).
  , connectArgs :: [Text]
    -- ^ The module arguments of @CREATE VIRTUAL TABLE t USING m(args...)@, as written.
  }
  deriving (Eq, Show)

-- | A constraint's operator (SQLite's @SQLITE_INDEX_CONSTRAINT_*@).
data IndexOp
  = OpEQ  -- ^ @=@; an @IN (...)@ too ('constraintInList')
  | OpGT  -- ^ @>@
  | OpLE  -- ^ @<=@
  | OpLT  -- ^ @<@
  | OpGE  -- ^ @>=@
  | OpMatch  -- ^ @MATCH@
  | OpLike  -- ^ @LIKE@
  | OpGlob  -- ^ @GLOB@
  | OpRegexp  -- ^ @REGEXP@
  | OpNE  -- ^ @!=@ or @<>@
  | OpIsNot  -- ^ @IS NOT@
  | OpIsNotNull  -- ^ @IS NOT NULL@
  | OpIsNull  -- ^ @IS NULL@
  | OpIs  -- ^ @IS@
  | OpLimit   -- ^ the query's @LIMIT@ ('constraintColumn' -1)
  | OpOffset  -- ^ the query's @OFFSET@ ('constraintColumn' -1)
  | OpOther Word8  -- ^ an operator this binding does not name (a function's)
  deriving (Eq, Show)

-- | One constraint of a query on the table.
data IndexConstraint = IndexConstraint
  { constraintColumn :: Int
    -- ^ The column (from 0, hidden ones counted); -1 for the rowid, LIMIT and OFFSET.
  , constraintOp :: IndexOp
    -- ^ Its operator.
  , constraintUsable :: Bool
    -- ^ Whether this plan can use it (False: its value comes from a table later in the
    -- join order SQLite is costing).
  , constraintInList :: Bool
    -- ^ An @IN (...)@ whose whole list 'moduleFilter' can take ('useWholeList').
  , constraintValue :: Maybe SQLData
    -- ^ Its value, when SQLite knows it at planning time (a literal).
  }
  deriving (Eq, Show)

-- | One @ORDER BY@ term.
data OrderTerm = OrderTerm
  { orderColumn :: Int  -- ^ from 0; -1 for the rowid
  , orderDesc :: Bool  -- ^ descending
  }
  deriving (Eq, Show)

-- | A planning call: the query's constraints and order on the table.
data IndexInfo = IndexInfo
  { indexConstraints :: [IndexConstraint]
    -- ^ The constraints on the table, in SQLite's order (what 'planUses' counts in).
  , indexOrderBy :: [OrderTerm]
    -- ^ The @ORDER BY@ terms.
  , indexColumnsUsed :: Word64
    -- ^ Bit @i@ set when the query reads column @i@ (bit 63 for column 63 and up).
  }
  deriving (Eq, Show)

-- | What a plan does with one constraint.
data ConstraintUse = ConstraintUse
  { useArgIndex :: Int
    -- ^ Its value is argument @k@ of 'moduleFilter' (counting from 1, with no gap, over
    -- the constraints a plan uses).
  , useOmit :: Bool
    -- ^ SQLite need not check it on the rows (the table applies it).
  , useWholeList :: Bool
    -- ^ For an IN constraint: 'moduleFilter' gets the whole list as one argument
    -- ('ArgList'), and one scan instead of one per value.
  }
  deriving (Eq, Show)

-- | The plan 'moduleBestIndex' chooses.
data IndexPlan = IndexPlan
  { planUses :: [(Int, ConstraintUse)]
    -- ^ The constraints used, by their index in 'indexConstraints'.
  , planIdxNum :: Int32
    -- ^ The plan's number, handed to 'moduleFilter'.
  , planOrderByConsumed :: Bool
    -- ^ The rows come in the @ORDER BY@'s order (SQLite does not sort them).
  , planUnique :: Bool
    -- ^ The plan gives at most one row.
  , planEstimatedCost :: Double
    -- ^ Compared between plans; a disk page read is 1.
  , planEstimatedRows :: Int64
    -- ^ The rows the plan gives, as estimated.
  }
  deriving (Eq, Show)

-- | A full scan with no argument: plan 0, cost 1e6, 1,000,000 rows (the library's
-- defaults).
fullScan :: IndexPlan
fullScan = IndexPlan [] 0 False False 1e6 1000000

-- | Uses constraint @i@ as the next argument of 'moduleFilter' (its 'useArgIndex' one more
-- than the largest so far), omitted from SQLite's checks if asked.
useConstraint :: Int -> Bool -> IndexPlan -> IndexPlan
useConstraint i omit p =
  let k = 1 + maximum (0 : map (useArgIndex . snd) (planUses p))
  in p { planUses = planUses p ++ [(i, ConstraintUse k omit False)] }

-- | The arguments of 'moduleFilter'.
data FilterArgs = FilterArgs
  { filterIdxNum :: Int32
    -- ^ The plan's number (0 without 'moduleBestIndex').
  , filterArgs :: [FilterArg]
    -- ^ Argument @k - 1@ is the value of the constraint whose 'useArgIndex' is @k@.
  }
  deriving (Eq, Show)

-- | One argument of 'moduleFilter'.
data FilterArg
  = ArgValue SQLData
    -- ^ A constraint's value.
  | ArgList [SQLData]
    -- ^ A whole IN list ('useWholeList'), in no particular order, possibly with duplicates.
  deriving (Eq, Show)

-- | A change to a writable table ('moduleUpdate').
data RowChange
  = RowInsert (Maybe Int64) [SQLData]
    -- ^ a new row: its rowid if the statement gives one, and its columns (hidden ones
    -- included)
  | RowUpdate Int64 Int64 [SQLData]
    -- ^ the rowid of the row, its new rowid (the same unless the statement changes it),
    -- its new columns
  | RowDelete Int64
    -- ^ the rowid of the row deleted
  deriving (Eq, Show)

------------------------------------------------------------------------------------------
-- The row writer

-- | Where a fill writes its rows: in Haskell memory laid out as the C ABI takes rows (16-byte
-- cells and one block of bytes), handed over in one call when the fill returns. Write a
-- row's values one by one and end it with 'endRow' (or 'endRowWithId' to give its rowid;
-- rows without one are numbered 1, 2, ... in each scan), or whole rows with 'writeRow', or
-- rows laid out in advance with 'writeTable'. Every row of a scan has the same number of
-- values, which may be fewer than the table's columns (the rest, hidden argument columns
-- say, read as NULL). Valid during the fill only.
data RowWriter = RowWriter
  { wHdr :: {-# UNPACK #-} !(Ptr Word8)
  , wErr :: !(IORef (Maybe String))
  , wPre :: !(IORef (Maybe (TableValue, Int, Int)))
  }

-- Slots of the writer's header (one machine word each).
sCells, sCellsCap, sNVals, sData, sDataCap, sDataLen, sRows, sRowStart, sNCols, sRowids,
  sRowidsCap, sExplicit, sScanRows, sMax, sPre, sSavedCap, nSlots :: Int
sCells = 0
sCellsCap = 1
sNVals = 2
sData = 3
sDataCap = 4
sDataLen = 5
sRows = 6
sRowStart = 7
sNCols = 8
sRowids = 9
sRowidsCap = 10
sExplicit = 11
sScanRows = 12
sMax = 13
sPre = 14
sSavedCap = 15
nSlots = 16

rd :: Ptr Word8 -> Int -> IO Int
rd h s = peekByteOff h (s * 8)
{-# INLINE rd #-}

wr :: Ptr Word8 -> Int -> Int -> IO ()
wr h s = pokeByteOff h (s * 8)
{-# INLINE wr #-}

rdPtr :: Ptr Word8 -> Int -> IO (Ptr Word8)
rdPtr h s = peekByteOff h (s * 8)
{-# INLINE rdPtr #-}

wrPtr :: Ptr Word8 -> Int -> Ptr Word8 -> IO ()
wrPtr h s = pokeByteOff h (s * 8)
{-# INLINE wrPtr #-}

-- | A cursor's writer, with its first buffers (freed by 'freeWriter').
newWriter :: IO RowWriter
newWriter = do
  h <- mallocBytes (nSlots * 8)
  fillBytes h 0 (nSlots * 8)
  cells <- mallocBytes (1024 * valueSize)
  dat <- mallocBytes 4096
  wrPtr h sCells cells
  wr h sCellsCap 1024
  wrPtr h sData dat
  wr h sDataCap 4096
  RowWriter h <$> newIORef Nothing <*> newIORef Nothing

freeWriter :: RowWriter -> IO ()
freeWriter (RowWriter h _ _) = do
  rdPtr h sCells >>= free
  rdPtr h sData >>= free
  rdPtr h sRowids >>= free
  free h

-- | Empties the writer for a fill of at most @mx@ rows.
resetWriter :: RowWriter -> Int -> IO ()
resetWriter w@(RowWriter h e p) mx = do
  pre <- rd h sPre
  when (pre /= 0) $ restoreCap w
  forM_ [sNVals, sDataLen, sRows, sRowStart, sNCols, sExplicit] $ \s -> wr h s 0
  wr h sMax mx
  writeIORef e Nothing
  writeIORef p Nothing

restoreCap :: RowWriter -> IO ()
restoreCap (RowWriter h _ _) = do
  rd h sSavedCap >>= wr h sCellsCap
  wr h sPre 0

-- | How many rows the fill may write.
writerMax :: RowWriter -> IO Int
writerMax w = rd (wHdr w) sMax

-- | How many rows the fill has written.
writerRows :: RowWriter -> IO Int
writerRows w = rd (wHdr w) sRows

-- | Whether the fill has written 'writerMax' rows.
writerFull :: RowWriter -> IO Bool
writerFull w = (>=) <$> rd (wHdr w) sRows <*> rd (wHdr w) sMax

failWriter :: RowWriter -> String -> IO ()
failWriter w msg = modifyIORef' (wErr w) (\m -> case m of
  Nothing -> Just msg
  Just _ -> m)

-- | The next cell of the current row.
nextCell :: RowWriter -> IO (Ptr Word8)
nextCell w = do
  let h = wHdr w
  n <- rd h sNVals
  cap <- rd h sCellsCap
  if n >= cap then roomForCell w >> nextCell w else do
    base <- rdPtr h sCells
    wr h sNVals (n + 1)
    return (base `plusPtr` (n * valueSize))
{-# INLINE nextCell #-}

-- | The slow path of 'nextCell': a table handed over whole ('writeTable') is copied in
-- first, or the cells' buffer grows.
roomForCell :: RowWriter -> IO ()
roomForCell w = do
  let h = wHdr w
  pre <- rd h sPre
  if pre /= 0 then unpre w else do
    n <- rd h sNVals
    cap <- rd h sCellsCap
    when (n >= cap) $ do
      let cap' = max 64 (cap * 2)
      old <- rdPtr h sCells
      new <- reallocBytes old (cap' * valueSize)
      wrPtr h sCells new
      wr h sCellsCap cap'
{-# NOINLINE roomForCell #-}

-- | Room for @k@ more bytes; their offset.
roomForBytes :: RowWriter -> Int -> IO Int
roomForBytes w k = do
  let h = wHdr w
  pre <- rd h sPre
  when (pre /= 0) (unpre w)
  len <- rd h sDataLen
  cap <- rd h sDataCap
  when (len + k > cap) $ do
    let cap' = head [c | c <- iterate (* 2) (max 4096 cap), c >= len + k]
    old <- rdPtr h sData
    new <- reallocBytes old cap'
    wrPtr h sData new
    wr h sDataCap cap'
  return len

-- | Writes an INTEGER.
writeInt64 :: RowWriter -> Int64 -> IO ()
writeInt64 w x = nextCell w >>= \c -> putCellWords c (fromIntegral x) 0 kindInteger
{-# INLINE writeInt64 #-}

-- | Writes an INTEGER.
writeInt :: RowWriter -> Int -> IO ()
writeInt w = writeInt64 w . fromIntegral
{-# INLINE writeInt #-}

-- | Writes a REAL.
writeDouble :: RowWriter -> Double -> IO ()
writeDouble w x = nextCell w >>= \c -> putCellWords c (castDoubleToWord64 x) 0 kindFloat
{-# INLINE writeDouble #-}

-- | Writes TEXT.
writeText :: RowWriter -> Text -> IO ()
writeText w t = do
  off <- roomForBytes w (utf8Bound t)
  dat <- rdPtr (wHdr w) sData
  k <- pokeUtf8 (dat `plusPtr` off) t
  bytesCell w off k kindText

-- | Writes TEXT given as its UTF-8 bytes (not checked: SQLite takes them as they are).
writeUtf8 :: RowWriter -> B.ByteString -> IO ()
writeUtf8 w = writeBytes w kindText

-- | Writes a BLOB.
writeBlob :: RowWriter -> B.ByteString -> IO ()
writeBlob w = writeBytes w kindBlob

writeBytes :: RowWriter -> Word8 -> B.ByteString -> IO ()
writeBytes w kind b = do
  let k = B.length b
  off <- roomForBytes w k
  dat <- rdPtr (wHdr w) sData
  BU.unsafeUseAsCString b $ \p -> copyBytes (dat `plusPtr` off) (castPtr p) k
  bytesCell w off k kind

bytesCell :: RowWriter -> Int -> Int -> Word8 -> IO ()
bytesCell w off k kind
  | k > 0x7fffffff = do
      failWriter w ("a value of " ++ show k ++ " bytes is too large")
      writeNull w
  | otherwise = do
      c <- nextCell w
      putCellWords c (fromIntegral off) (fromIntegral k) kind
      wr (wHdr w) sDataLen (off + k)

-- | Writes NULL.
writeNull :: RowWriter -> IO ()
writeNull w = nextCell w >>= \c -> putCellWords c 0 0 kindNull
{-# INLINE writeNull #-}

-- | Writes one value.
writeValue :: RowWriter -> SQLData -> IO ()
writeValue w v = case v of
  SQLInteger x -> writeInt64 w x
  SQLFloat x -> writeDouble w x
  SQLText t -> writeText w t
  SQLBlob b -> writeBlob w b
  SQLNull -> writeNull w

-- | Writes a value as its 'ToField' makes it.
writeField :: ToField a => RowWriter -> a -> IO ()
writeField w = writeValue w . toField
{-# INLINE writeField #-}

-- | Writes a whole row (its 'ToRow' values) and ends it.
writeRow :: ToRow r => RowWriter -> r -> IO ()
writeRow w r = mapM_ (writeValue w) (toRow r) >> endRow w
{-# INLINE writeRow #-}

-- | Ends the row whose values were written since the last one ended.
endRow :: RowWriter -> IO ()
endRow w = endRowWith w Nothing

-- | Ends the row, whose rowid is the one given.
endRowWithId :: RowWriter -> Int64 -> IO ()
endRowWithId w rid = endRowWith w (Just rid)

endRowWith :: RowWriter -> Maybe Int64 -> IO ()
endRowWith w rid = do
  let h = wHdr w
  pre <- rd h sPre
  when (pre /= 0) (unpre w)
  n <- rd h sNVals
  start <- rd h sRowStart
  cols <- rd h sNCols
  rows <- rd h sRows
  mx <- rd h sMax
  let k = n - start
      problem
        | k == 0 = Just "RowWriter: a row of no values"
        | cols /= 0 && k /= cols = Just ("RowWriter: row " ++ show rows ++ " has " ++ show k
                                          ++ " value(s), the rows before it " ++ show cols)
        | rows >= mx = Just ("the fill wrote more than the " ++ show mx ++ " rows it was asked for (see writerFull)")
        | otherwise = Nothing
  case problem of
    Just p -> failWriter w p >> wr h sNVals start
    Nothing -> do
      wr h sNCols k
      rowids w 1 rid
      wr h sRows (rows + 1)
      wr h sRowStart n

-- | Records the rowids of @k@ new rows: the one given (@k@ is 1), or their numbers in the
-- scan, once some row of the fill has one.
rowids :: RowWriter -> Int -> Maybe Int64 -> IO ()
rowids w k rid = do
  let h = wHdr w
  explicit <- rd h sExplicit
  rows <- rd h sRows
  scan <- rd h sScanRows
  let numbered i = fromIntegral (scan + i + 1) :: Int64
  when (explicit == 0 && isJust rid) $ do
    roomForRowids w rows
    p <- rdPtr h sRowids
    forM_ [0 .. rows - 1] $ \i -> pokeByteOff p (i * 8) (numbered i)
    wr h sExplicit 1
  explicit' <- rd h sExplicit
  when (explicit' /= 0) $ do
    roomForRowids w (rows + k)
    p <- rdPtr h sRowids
    forM_ [0 .. k - 1] $ \i ->
      pokeByteOff p ((rows + i) * 8) (fromMaybe (numbered (rows + i)) rid)

roomForRowids :: RowWriter -> Int -> IO ()
roomForRowids w n = do
  let h = wHdr w
  cap <- rd h sRowidsCap
  when (n > cap) $ do
    let cap' = max n (max 256 (cap * 2))
    old <- rdPtr h sRowids
    new <- reallocBytes old (cap' * 8)
    wrPtr h sRowids new
    wr h sRowidsCap cap'

-- | Writes rows @[from, from + n)@ of a table laid out in advance, whole rows after the
-- rows before (the same width). Rows handed over this way cost nothing more: when they are
-- all the fill writes, the table's own memory is what crosses into C.
writeTable :: RowWriter -> TableValue -> Int -> Int -> IO ()
writeTable w t from n = do
  let h = wHdr w
      cols = tableColumnCount t
  pre <- rd h sPre
  when (pre /= 0) (unpre w)
  nv <- rd h sNVals
  start <- rd h sRowStart
  rows <- rd h sRows
  mx <- rd h sMax
  ncols <- rd h sNCols
  let problem
        | Just p <- tableProblem t = Just p
        | from < 0 || n < 0 || from + n > tableRowCount t =
            Just ("writeTable: rows " ++ show from ++ " to " ++ show (from + n) ++ " of a table of "
                  ++ show (tableRowCount t))
        | nv /= start = Just "writeTable inside a row (end it first)"
        | rows + n > mx = Just ("the fill wrote more than the " ++ show mx ++ " rows it was asked for (see writerFull)")
        | rows > 0 && cols /= ncols = Just ("writeTable: rows of " ++ show cols ++ " values after rows of " ++ show ncols)
        | otherwise = Nothing
  case problem of
    Just p -> failWriter w p
    Nothing
      | n == 0 -> return ()
      | nv == 0 && rows == 0 -> do
          -- Alone so far: handed over as it is, unless something is written after it.
          writeIORef (wPre w) (Just (t, from, n))
          rd h sCellsCap >>= wr h sSavedCap
          wr h sCellsCap (-1)
          wr h sPre 1
          wr h sNCols cols
          wr h sRows n
      | otherwise -> copyRows w t from n

-- | Copies a table's rows into the writer's buffers (their bytes' offsets shifted).
copyRows :: RowWriter -> TableValue -> Int -> Int -> IO ()
copyRows w t from n = withTableSlice t from n $ \cells nv dat _ -> do
  let h = wHdr w
  forM_ [0 .. nv - 1] $ \i -> do
    let src = cells `plusPtr` (i * valueSize)
    kind <- peekByteOff src valueKindOff :: IO Word8
    bits <- peekByteOff src valueBitsOff :: IO Word64
    len <- peekByteOff src valueLenOff :: IO Word32
    if kind == kindText || kind == kindBlob
      then do
        let k = fromIntegral len
        off <- roomForBytes w k
        d <- rdPtr h sData
        copyBytes (d `plusPtr` off) (dat `plusPtr` fromIntegral bits) k
        c <- nextCell w
        putCellWords c (fromIntegral off) len kind
        wr h sDataLen (off + k)
      else do
        c <- nextCell w
        putCellWords c bits 0 kind
  rows <- rd h sRows
  rowids w n Nothing
  wr h sNCols (tableColumnCount t)
  wr h sRows (rows + n)
  rd h sNVals >>= wr h sRowStart

-- | Copies the table handed over whole into the buffers: something is written after it.
unpre :: RowWriter -> IO ()
unpre w = do
  restoreCap w
  let h = wHdr w
  p <- readIORef (wPre w)
  writeIORef (wPre w) Nothing
  wr h sRows 0
  wr h sNCols 0
  case p of
    Just (t, from, n) -> copyRows w t from n
    Nothing -> return ()

-- | Hands the fill's rows over to the library (one call).
pushRows :: Ptr CVtabCall -> RowWriter -> IO Int32
pushRows call w = do
  let h = wHdr w
  rows <- rd h sRows
  cols <- rd h sNCols
  pre <- readIORef (wPre w)
  if rows == 0 then return sqlbatchOk else case pre of
    Just (t, from, n) ->
      withTableSlice t from n $ \cells nv dat dlen ->
        withCParams cells nullPtr nv dat dlen 0 $ \pp ->
          c_sqlbatch_vtab_push call pp (fromIntegral cols) nullPtr
    Nothing -> do
      cells <- rdPtr h sCells
      nv <- rd h sNVals
      dat <- rdPtr h sData
      dlen <- rd h sDataLen
      explicit <- rd h sExplicit
      ids <- if explicit /= 0 then castPtr <$> rdPtr h sRowids else return nullPtr
      withCParams cells nullPtr nv (if dlen == 0 then nullPtr else dat) dlen 0 $ \pp ->
        c_sqlbatch_vtab_push call pp (fromIntegral cols) ids

------------------------------------------------------------------------------------------
-- Registering

-- | The callbacks of one registration (its @user_data@), closed over the typed module.
data Callbacks = Callbacks
  { cbConnect :: ConnectFn'
  , cbBestIndex :: BestIndexFn'
  , cbOpen :: OpenFn'
  , cbFilter :: FilterFn'
  , cbFill :: FillFn'
  , cbClose :: Ptr () -> IO ()
  , cbDisconnect :: Ptr () -> CBool -> IO ()
  , cbUpdate :: UpdateFn'
  }

type ConnectFn' = Ptr CVtabCall -> CBool -> Ptr CStr -> CSize -> Ptr (Ptr ()) -> IO Int32
type BestIndexFn' = Ptr CVtabCall -> Ptr () -> Ptr CVtabIndex -> IO Int32
type OpenFn' = Ptr CVtabCall -> Ptr () -> Ptr (Ptr ()) -> IO Int32
type FilterFn' = Ptr CVtabCall -> Ptr () -> Int32 -> Ptr CVtabArg -> CSize -> Ptr Word8 -> IO Int32
type FillFn' = Ptr CVtabCall -> Ptr () -> CSize -> IO Int32
type UpdateFn' = Ptr CVtabCall -> Ptr () -> Ptr CVtabChange -> Ptr Int64 -> IO Int32

-- | A cursor's state: the module's, and its writer.
data Cur c = Cur !c !RowWriter

-- | Registers (or replaces) the virtual table module @name@ on the connection. Throws
-- 'SQLError' (a closed connection, a name SQLite refuses, or from inside a callback of the
-- connection 'Database.SQLBatch.Internal.Core.HookReentry').
createModule :: HasDatabase db => db -> Text -> ModuleOptions -> Module table cursor -> IO ()
createModule h name opts m = do
  let db = databaseOf h
      flags = case moduleKind opts of
        Tables -> 0
        Eponymous -> vtabEponymous
        EponymousOnly -> vtabEponymousOnly
      cb = Callbacks
        { cbConnect = connectImpl db m
        , cbBestIndex = bestIndexImpl db m
        , cbOpen = openImpl db m
        , cbFilter = filterImpl db m
        , cbFill = fillImpl db m
        , cbClose = closeImpl db m
        , cbDisconnect = disconnectImpl db m
        , cbUpdate = updateImpl db m
        }
      ctx = "createModule " <> name
  when (moduleBatchRows opts < 0) $
    throwIO (SQLError (decodeError sqlbatchEInvalidArgument) sqlbatchEInvalidArgument
               "moduleBatchRows is negative" ctx Nothing Nothing Nothing Nothing)
  allocaBytes moduleSize $ \mp -> do
    pokeModule (castPtr mp) connectFP (maybe nullFunPtr (const bestIndexFP) (moduleBestIndex m))
      openFP filterFP fillFP closeFP disconnectFP (maybe nullFunPtr (const updateFP) (moduleUpdate m))
      (moduleBatchRows opts)
    BU.unsafeUseAsCStringLen (TE.encodeUtf8 name) $ \(p, n) ->
      withDb db ctx $ \c -> do
        rc <- mask_ $ do
          sp <- newStablePtr cb
          -- The library calls destroy (which frees sp) exactly once, at once if this fails.
          c_sqlbatch_conn_create_module c p (fromIntegral n) (castPtr mp) flags
            (castStablePtrToPtr sp) destroyFP
        when (rc /= sqlbatchOk) $ throwSQL db rc ctx

-- | Removes the module @name@ from the connection (tables that use it stop working).
-- Throws 'SQLError'.
deleteModule :: HasDatabase db => db -> Text -> IO ()
deleteModule h name = do
  let db = databaseOf h
      ctx = "deleteModule " <> name
  BU.unsafeUseAsCStringLen (TE.encodeUtf8 name) $ \(p, n) ->
    withDb db ctx $ \c -> do
      rc <- c_sqlbatch_conn_create_module c p (fromIntegral n) nullPtr 0 nullPtr nullFunPtr
      when (rc /= sqlbatchOk) $ throwSQL db rc ctx

------------------------------------------------------------------------------------------
-- The callbacks

-- | Runs a callback's Haskell code as a hook of the connection (using the connection
-- throws 'Database.SQLBatch.Internal.Core.HookReentry' instead of waiting for its own
-- lock), its result forced; an exception becomes the call's error: its message given to
-- the library, its code returned.
guarded :: Database -> Ptr CVtabCall -> IO a -> IO (Either Int32 a)
guarded db call act = do
  r <- inHook db Nothing act
  case r of
    Right x -> return (Right x)
    Left e -> Left <$> report call e

-- | Gives the library an exception's text as the call's error; returns its code: an
-- 'SQLError' its SQLite code, else @SQLITE_ERROR@.
report :: Ptr CVtabCall -> SomeException -> IO Int32
report call e = do
  let (code, msg) = case fromException e of
        Just se | c <- sqlErrorCode se, c > 0, c < 1000, c .&. 0xff `notElem` [100, 101] ->
          (c, sqlErrorDetails se)
        Just se -> (1, sqlErrorDetails se)
        Nothing -> (1, T.pack (displayException e))
  r <- try (evaluate (TE.encodeUtf8 msg)) :: IO (Either SomeException B.ByteString)
  let bytes = either (const "a Haskell exception whose text could not be shown") id r
  BU.unsafeUseAsCStringLen bytes $ \(p, n) -> c_sqlbatch_vtab_error call p (fromIntegral n)
  return code

-- | The error of a callback that did not keep the rules (a fill that returned in the middle
-- of a row, say): @SQLITE_ERROR@ with this message.
refuse :: Ptr CVtabCall -> String -> IO Int32
refuse call msg = do
  BU.unsafeUseAsCStringLen (TE.encodeUtf8 (T.pack msg)) $ \(p, n) ->
    c_sqlbatch_vtab_error call p (fromIntegral n)
  return 1

-- | Runs a callback that cannot fail (close, disconnect): as a hook, its exception dropped.
quietly :: Database -> IO () -> IO ()
quietly db act = () <$ inHook db Nothing act

-- | The last line of defence of every static callback: no exception may unwind into C.
boundary :: a -> IO a -> IO a
boundary dflt act = do
  r <- try act
  case r of
    Right x -> return x
    Left (_ :: SomeException) -> return dflt

decodeLenient :: B.ByteString -> Text
decodeLenient = TE.decodeUtf8With TE.lenientDecode

-- | A copy of the value of a cell whose bytes are at @dat + bits@; 'Nothing' for
-- @SQLBATCH_UNDEFINED@ (or an unknown kind).
cellValue :: Ptr Word8 -> Ptr Word8 -> IO (Maybe SQLData)
cellValue cell dat = do
  kind <- peekByteOff cell valueKindOff :: IO Word8
  bits <- peekByteOff cell valueBitsOff :: IO Word64
  len <- peekByteOff cell valueLenOff :: IO Word32
  let bytes
        | len == 0 = return B.empty
        | otherwise = B.packCStringLen (castPtr (dat `plusPtr` fromIntegral bits), fromIntegral len)
  case () of
    _ | kind == kindInteger -> return (Just (SQLInteger (fromIntegral bits)))
      | kind == kindFloat -> return (Just (SQLFloat (castWord64ToDouble bits)))
      | kind == kindText -> Just . SQLText . decodeLenient <$> bytes
      | kind == kindBlob -> Just . SQLBlob <$> bytes
      | kind == kindNull -> return (Just SQLNull)
      | otherwise -> return Nothing

cellValues :: Ptr Word8 -> Int -> Ptr Word8 -> IO [SQLData]
cellValues p n dat = forM [0 .. n - 1] $ \i -> fromMaybe SQLNull <$> cellValue (p `plusPtr` (i * valueSize)) dat

fromBool :: CBool -> Bool
fromBool = (/= 0)

toCBool :: Bool -> CBool
toCBool b = if b then 1 else 0

connectImpl :: Database -> Module t c -> ConnectFn'
connectImpl db m call create args n out = do
  r <- guarded db call $ do
    names <- forM [0 .. fromIntegral n - 1] $ \i ->
      maybe "" decodeLenient <$> peekStr (args `plusPtr` (i * strSize))
    let at i = if i < length names then names !! i else ""
    (schema, t) <- moduleConnect m Connect
      { connectCreate = fromBool create, connectModule = at 0, connectDatabase = at 1
      , connectTable = at 2, connectArgs = drop 3 names }
    s <- evaluate (TE.encodeUtf8 schema)
    return (s, t)
  case r of
    Left rc -> return rc
    Right (schema, t) -> do
      rc <- BU.unsafeUseAsCStringLen schema $ \(p, len) ->
        c_sqlbatch_vtab_declare call p (fromIntegral len)
      if rc /= sqlbatchOk
        then rc <$ quietly db (moduleDisconnect m t False)
        else do
          sp <- newStablePtr t
          poke out (castStablePtrToPtr sp)
          return sqlbatchOk

opOf :: Word8 -> IndexOp
opOf o
  | o == indexEQ = OpEQ
  | o == indexGT = OpGT
  | o == indexLE = OpLE
  | o == indexLT = OpLT
  | o == indexGE = OpGE
  | o == indexMatch = OpMatch
  | o == indexLike = OpLike
  | o == indexGlob = OpGlob
  | o == indexRegexp = OpRegexp
  | o == indexNE = OpNE
  | o == indexIsNot = OpIsNot
  | o == indexIsNotNull = OpIsNotNull
  | o == indexIsNull = OpIsNull
  | o == indexIs = OpIs
  | o == indexLimit = OpLimit
  | o == indexOffset = OpOffset
  | otherwise = OpOther o

readIndex :: Ptr CVtabIndex -> IO (IndexInfo, Int)
readIndex ix = do
  cs <- peekByteOff ix indexConstraintsOff :: IO (Ptr Word8)
  nc <- fromIntegral <$> (peekByteOff ix indexNConstraintsOff :: IO CSize)
  os <- peekByteOff ix indexOrderByOff :: IO (Ptr Word8)
  no <- fromIntegral <$> (peekByteOff ix indexNOrderByOff :: IO CSize)
  used <- peekByteOff ix indexColumnsUsedOff
  dat <- peekByteOff ix indexDataOff
  constraints <- forM [0 .. nc - 1] $ \i -> do
    let c = cs `plusPtr` (i * constraintSize)
    col <- peekByteOff c constraintColumnOff :: IO Int32
    op <- peekByteOff c constraintOpOff
    usable <- peekByteOff c constraintUsableOff
    inList <- peekByteOff c constraintInListOff
    v <- cellValue (c `plusPtr` constraintValueOff) dat
    return IndexConstraint
      { constraintColumn = fromIntegral col, constraintOp = opOf op
      , constraintUsable = fromBool usable, constraintInList = fromBool inList
      , constraintValue = v }
  order <- forM [0 .. no - 1] $ \i -> do
    let o = os `plusPtr` (i * orderSize)
    col <- peekByteOff o orderColumnOff :: IO Int32
    desc <- peekByteOff o orderDescOff
    return (OrderTerm (fromIntegral col) (fromBool desc))
  return (IndexInfo constraints order used, nc)

bestIndexImpl :: Database -> Module t c -> BestIndexFn'
bestIndexImpl db m call tp ix = case moduleBestIndex m of
  Nothing -> return sqlbatchOk
  Just plan -> do
    r <- guarded db call $ do
      t <- deRefStablePtr (castPtrToStablePtr tp)
      (info, nc) <- readIndex ix
      mp <- plan t info
      case mp of
        Nothing -> return Nothing
        Just p -> do
          -- Forced here, inside the guard.
          forM_ (planUses p) $ \(i, u) -> do
            _ <- evaluate (useArgIndex u + fromEnum (useOmit u) + fromEnum (useWholeList u))
            when (i < 0 || i >= nc) $
              ioError (userError ("bestIndex: plan uses constraint " ++ show i ++ " of "
                                  ++ show nc))
          _ <- evaluate (planIdxNum p)
          _ <- evaluate (planEstimatedCost p + fromIntegral (planEstimatedRows p))
          _ <- evaluate (planOrderByConsumed p || planUnique p)
          return (Just p)
    case r of
      Left rc -> return rc
      Right Nothing -> return sqliteConstraint
      Right (Just p) -> do
        uses <- peekByteOff ix indexUsesOff :: IO (Ptr Word8)
        forM_ (planUses p) $ \(i, u) -> do
          let q = uses `plusPtr` (i * useSize)
          pokeByteOff q useArgIndexOff (fromIntegral (useArgIndex u) :: Int32)
          pokeByteOff q useOmitOff (toCBool (useOmit u))
          pokeByteOff q useWholeListOff (toCBool (useWholeList u))
        pokeByteOff ix indexIdxNumOff (planIdxNum p)
        pokeByteOff ix indexOrderByConsumedOff (toCBool (planOrderByConsumed p))
        pokeByteOff ix indexUniqueOff (toCBool (planUnique p))
        pokeByteOff ix indexEstimatedCostOff (planEstimatedCost p)
        pokeByteOff ix indexEstimatedRowsOff (planEstimatedRows p)
        return sqlbatchOk

openImpl :: Database -> Module t c -> OpenFn'
openImpl db m call tp out = do
  r <- guarded db call $ do
    t <- deRefStablePtr (castPtrToStablePtr tp)
    moduleOpen m t
  case r of
    Left rc -> return rc
    Right c -> do
      w <- newWriter
      sp <- newStablePtr (Cur c w)
      poke out (castStablePtrToPtr sp)
      return sqlbatchOk

filterImpl :: Database -> Module t c -> FilterFn'
filterImpl db m call cp idx args n dat = do
  Cur c w <- deRefStablePtr (castPtrToStablePtr cp)
  wr (wHdr w) sScanRows 0
  r <- guarded db call $ do
    as <- forM [0 .. fromIntegral n - 1] $ \i -> do
      let a = castPtr args `plusPtr` (i * argSize) :: Ptr Word8
      v <- cellValue (a `plusPtr` argValueOff) dat
      case v of
        Just x -> return (ArgValue x)
        Nothing -> do
          lp <- peekByteOff a argListOff
          ln <- peekByteOff a argNListOff :: IO CSize
          ArgList <$> cellValues lp (fromIntegral ln) dat
    moduleFilter m c (FilterArgs idx as)
  return (either id (const sqlbatchOk) r)

fillImpl :: Database -> Module t c -> FillFn'
fillImpl db m call cp maxRows = do
  Cur c w <- deRefStablePtr (castPtrToStablePtr cp)
  resetWriter w (fromIntegral maxRows)
  r <- guarded db call (moduleFill m c w)
  let h = wHdr w
  case r of
    Left rc -> rc <$ resetWriter w 0
    Right done -> do
      err <- readIORef (wErr w)
      nv <- rd h sNVals
      start <- rd h sRowStart
      rows <- rd h sRows
      pre <- rd h sPre
      let problem
            | Just e <- err = Just e
            | pre == 0 && nv /= start = Just "the fill returned in the middle of a row (endRow)"
            | rows == 0 && not done = Just "the fill wrote no row and did not say it was the last"
            | otherwise = Nothing
      case problem of
        Just p -> resetWriter w 0 >> refuse call p
        Nothing -> do
          rc <- pushRows call w
          resetWriter w 0
          if rc /= sqlbatchOk then return rc else do
            scan <- rd h sScanRows
            wr h sScanRows (scan + rows)
            return (if done then sqlbatchDone else sqlbatchRow)

closeImpl :: Database -> Module t c -> Ptr () -> IO ()
closeImpl db m cp = do
  let sp = castPtrToStablePtr cp
  Cur c w <- deRefStablePtr sp
  quietly db (moduleClose m c) `finally` (freeWriter w >> freeStablePtr sp)

disconnectImpl :: Database -> Module t c -> Ptr () -> CBool -> IO ()
disconnectImpl db m tp destroy = do
  let sp = castPtrToStablePtr tp
  t <- deRefStablePtr sp
  quietly db (moduleDisconnect m t (fromBool destroy)) `finally` freeStablePtr sp

updateImpl :: Database -> Module t c -> UpdateFn'
updateImpl db m call tp ch out = case moduleUpdate m of
  Nothing -> refuse call "the virtual table is read-only"
  Just upd -> do
    r <- guarded db call $ do
      t <- deRefStablePtr (castPtrToStablePtr tp)
      op <- peekByteOff ch changeOpOff :: IO Int32
      old <- peekByteOff ch changeOldRowidOff :: IO Int64
      dat <- peekByteOff ch changeDataOff
      new <- cellValue (castPtr ch `plusPtr` changeNewRowidOff) dat
      vp <- peekByteOff ch changeValuesOff
      vn <- peekByteOff ch changeNValuesOff :: IO CSize
      vals <- cellValues vp (fromIntegral vn) dat
      let newId = case new of
            Just (SQLInteger i) -> Just i
            _ -> Nothing
          change
            | op == vtabInsert = RowInsert newId vals
            | op == vtabUpdate = RowUpdate old (fromMaybe old newId) vals
            | otherwise = RowDelete old
      rid <- upd t change >>= evaluate
      return (change, rid)
    case r of
      Left rc -> return rc
      Right (RowInsert given _, rid) -> do
        poke out (maybe rid (\g -> if rid == 0 then g else rid) given)
        return sqlbatchOk
      Right _ -> return sqlbatchOk

-- The static C function pointers: one per callback kind, made once, never freed. Each
-- finds its registration's callbacks in its user data.

callbacksOf :: Ptr () -> IO Callbacks
callbacksOf = deRefStablePtr . castPtrToStablePtr

connectFP :: FunPtr ConnectFn
connectFP = unsafePerformIO $ mkConnect $ \ud call create args n out -> boundary 1 $ do
  cb <- callbacksOf ud
  cbConnect cb call create args n out
{-# NOINLINE connectFP #-}

bestIndexFP :: FunPtr BestIndexFn
bestIndexFP = unsafePerformIO $ mkBestIndex $ \ud call t ix -> boundary 1 $ do
  cb <- callbacksOf ud
  cbBestIndex cb call t ix
{-# NOINLINE bestIndexFP #-}

openFP :: FunPtr OpenFn
openFP = unsafePerformIO $ mkOpen $ \ud call t out -> boundary 1 $ do
  cb <- callbacksOf ud
  cbOpen cb call t out
{-# NOINLINE openFP #-}

filterFP :: FunPtr FilterFn
filterFP = unsafePerformIO $ mkFilter $ \ud call c idx args n dat -> boundary 1 $ do
  cb <- callbacksOf ud
  cbFilter cb call c idx args n dat
{-# NOINLINE filterFP #-}

fillFP :: FunPtr FillFn
fillFP = unsafePerformIO $ mkFill $ \ud call c n -> boundary 1 $ do
  cb <- callbacksOf ud
  cbFill cb call c n
{-# NOINLINE fillFP #-}

closeFP :: FunPtr CloseFn
closeFP = unsafePerformIO $ mkClose $ \ud c -> boundary () $ do
  cb <- callbacksOf ud
  cbClose cb c
{-# NOINLINE closeFP #-}

disconnectFP :: FunPtr DisconnectFn
disconnectFP = unsafePerformIO $ mkDisconnect $ \ud t destroy -> boundary () $ do
  cb <- callbacksOf ud
  cbDisconnect cb t destroy
{-# NOINLINE disconnectFP #-}

updateFP :: FunPtr UpdateFn
updateFP = unsafePerformIO $ mkUpdate $ \ud call t ch out -> boundary 1 $ do
  cb <- callbacksOf ud
  cbUpdate cb call t ch out
{-# NOINLINE updateFP #-}

-- | Frees a registration's callbacks (the library calls it once).
destroyFP :: FunPtr DestroyFn
destroyFP = unsafePerformIO $ mkDestroy $ \ud -> boundary () (freeStablePtr (castPtrToStablePtr ud))
{-# NOINLINE destroyFP #-}

------------------------------------------------------------------------------------------
-- Table-valued functions

-- | Where a table-valued function's scan takes its rows from.
newtype Source = Source (RowWriter -> IO (Source, Bool))

noRows :: Source
noRows = Source (\_ -> return (noRows, True))

-- | The rows of a lazy list, as many a fill as it asks for.
listSource :: ToRow r => [r] -> Source
listSource rs = Source $ \w -> do
  mx <- writerMax w
  let go !k xs
        | k >= mx = return (listSource xs, null xs)
        | otherwise = case xs of
            [] -> return (noRows, True)
            x : rest -> writeRow w x >> go (k + 1) rest
  go (0 :: Int) rs

-- | The rows a generator gives until it gives 'Nothing'.
genSource :: ToRow r => IO (Maybe r) -> Source
genSource g = Source $ \w -> do
  mx <- writerMax w
  let go !k
        | k >= mx = return (genSource g, False)
        | otherwise = do
            x <- g
            case x of
              Nothing -> return (noRows, True)
              Just r -> writeRow w r >> go (k + 1)
  go (0 :: Int)

-- | Registers a table-valued function: @name(arg1, arg2, ...)@ reads as a table whose
-- columns are @columns@ (SQL column definitions: @[\"k INTEGER\", \"w INTEGER\"]@) and
-- whose rows are the list the function makes of its arguments' values (@args@ names them:
-- the hidden columns a query may also filter on; an argument the query leaves out is NULL). The list is consumed lazily, a batch at a
-- time, so it may be long or infinite (with a @LIMIT@); an exception thrown while it is
-- made or read ends the statement with its text. An eponymous-only module named @name@
-- (see 'createModule').
createTableFunction :: (HasDatabase db, ToRow r) => db -> Text -> [Text] -> [Text]
                    -> ([SQLData] -> IO [r]) -> IO ()
createTableFunction db name columns args f =
  createModule db name (ModuleOptions EponymousOnly 0)
    (tableFunctionModule columns args (\vs -> listSource <$> f vs))

-- | 'createTableFunction' whose rows come from a generator: the function makes, from the
-- arguments, an action that gives the next row, or 'Nothing' at the end (called as the
-- scan needs rows, a batch at a time, until it gives 'Nothing' or the scan stops).
createTableGenerator :: (HasDatabase db, ToRow r) => db -> Text -> [Text] -> [Text]
                     -> ([SQLData] -> IO (IO (Maybe r))) -> IO ()
createTableGenerator db name columns args f =
  createModule db name (ModuleOptions EponymousOnly 0)
    (tableFunctionModule columns args (\vs -> genSource <$> f vs))

tableFunctionModule :: [Text] -> [Text] -> ([SQLData] -> IO Source) -> Module () (IORef Source)
tableFunctionModule columns args start = (newModule connect open' filt fill)
  { moduleBestIndex = Just (\_ info -> return (plan info)) }
  where
    nCols = length columns
    nArgs = length args
    schema = "CREATE TABLE x(" <> T.intercalate ", " (columns ++ map hidden args) <> ")"
    hidden a = "\"" <> T.replace "\"" "\"\"" a <> "\" HIDDEN"
    connect _ = return (schema, ())
    open' _ = newIORef noRows
    -- Argument j is the EQ constraint on hidden column nCols + j; the plan's number has bit
    -- j set when the query gives it. A plan whose argument is not usable yet cannot be used.
    plan info =
      let cs = zip [0 :: Int ..] (indexConstraints info)
          onArg j = [ (i, c) | (i, c) <- cs, constraintColumn c == nCols + j
                    , constraintOp c == OpEQ ]
          found = [ (j, find (constraintUsable . snd) (onArg j)) | j <- [0 .. nArgs - 1] ]
          blocked = or [ null' u && not (null (onArg j)) | (j, u) <- found ]
          null' = maybe True (const False)
          given = [ (j, i) | (j, Just (i, _)) <- found ]
          p0 = fullScan { planIdxNum = foldl setBit 0 (map fst given)
                        , planEstimatedCost = if length given == nArgs then 1 else 1e6
                        , planEstimatedRows = 1000 }
      in if blocked then Nothing
           else Just (foldl (\p (_, i) -> useConstraint i True p) p0 (sortOn fst given))
    filt ref fa = do
      let present = [ j | j <- [0 .. nArgs - 1], testBit (filterIdxNum fa) j ]
          given = zip present [ v | ArgValue v <- filterArgs fa ]
          vals = [ fromMaybe SQLNull (lookup j given) | j <- [0 .. nArgs - 1] ]
      s <- start vals
      writeIORef ref s
    fill ref w = do
      Source next <- readIORef ref
      (s', done) <- next w
      writeIORef ref s'
      return done
