{-# LANGUAGE BangPatterns #-}
-- |
-- Module      : Database.SQLBatch.Time
-- Description : The time formats of SQLite (and sqlite-simple): parsers and printers
--
-- Also "Database.SQLite.Simple.Time". What 'Database.SQLBatch.FromField.FromField' and
-- 'Database.SQLBatch.ToField.ToField' use for 'UTCTime' and 'Day'.
--
-- Read (the formats of SQLite's date functions, <https://sqlite.org/lang_datefunc.html>):
--
-- * @YYYY-MM-DD@ for a 'Day' (a year of at least 4 digits);
-- * @YYYY-MM-DD HH:MM[:SS[.S...]]@ for a 'UTCTime', with @T@ instead of the space allowed,
--   optionally followed by @Z@ or a zone @[+-]HH[:MM]@ (converted to UTC).
--
-- Written: @YYYY-MM-DD@ (the year padded to 4 digits), and @YYYY-MM-DD HH:MM:SS[.S...]@ in
-- UTC, with the fraction's trailing zeros (and a zero fraction) left out.
module Database.SQLBatch.Time
  ( parseUTCTime
  , parseDay
  , utcTimeToBuilder
  , dayToBuilder
  , timeOfDayToBuilder
  , timeZoneToBuilder
  ) where

import Data.ByteString.Builder (Builder, char7, integerDec, string7)
import Data.Char (isDigit, ord)
import Data.Fixed (Pico)
import qualified Data.Text as T
-- An explicit list: this module defines names of its own (getTimeZone among them) that a
-- later release of time could export too.
import Data.Time (Day, TimeOfDay (..), TimeZone (..), UTCTime (..), addDays, fromGregorianValid,
                  localToUTCTimeOfDay, makeTimeOfDayValid, minutesToTimeZone, timeOfDayToTime,
                  timeToTimeOfDay, toGregorian, utc)

-- | A parser of a prefix of the text: the rest, or an error.
newtype P a = P { runP :: T.Text -> Either String (a, T.Text) }

instance Functor P where
  fmap f (P p) = P $ \t -> fmap (\(a, r) -> (f a, r)) (p t)

instance Applicative P where
  pure a = P $ \t -> Right (a, t)
  P pf <*> P pa = P $ \t -> case pf t of
    Left e -> Left e
    Right (f, r) -> fmap (\(a, r') -> (f a, r')) (pa r)

instance Monad P where
  P p >>= k = P $ \t -> case p t of
    Left e -> Left e
    Right (a, r) -> runP (k a) r

failP :: String -> P a
failP msg = P $ \_ -> Left ("Failed reading: " ++ msg)

-- | @p `orElse` q@: @q@ from the same place if @p@ fails.
orElse :: P a -> P a -> P a
orElse (P p) (P q) = P $ \t -> either (const (q t)) Right (p t)

char :: Char -> P ()
char c = P $ \t -> case T.uncons t of
  Just (x, r) | x == c -> Right ((), r)
  _ -> Left ("Failed reading: expected " ++ show c)

digits2 :: String -> P Int
digits2 what = P $ \t -> case T.unpack (T.take 2 t) of
  [x, y] | isDigit x && isDigit y -> Right (10 * digit x + digit y, T.drop 2 t)
  _ -> Left ("Failed reading: " ++ what ++ " is not 2 digits")

digit :: Num n => Char -> n
digit c = fromIntegral (ord c - ord '0')

endOfInput :: P ()
endOfInput = P $ \t -> if T.null t then Right ((), t) else Left "endOfInput"

parseAll :: P a -> T.Text -> Either String a
parseAll p t = fst <$> runP (p <* endOfInput) t

-- | Parses a 'Day' (@YYYY-MM-DD@).
parseDay :: T.Text -> Either String Day
parseDay = parseAll getDay

-- | Parses a 'UTCTime' (see the module header for the formats).
parseUTCTime :: T.Text -> Either String UTCTime
parseUTCTime = parseAll getUTCTime

getDay :: P Day
getDay = do
  ys <- P $ \t -> Right (T.span isDigit t)
  if T.length ys < 4 then failP "year must consist of at least 4 digits" else do
    let !year = T.foldl' (\a c -> 10 * a + digit c) 0 ys :: Integer
    char '-'
    m <- digits2 "month"
    char '-'
    d <- digits2 "day"
    maybe (failP "invalid date") return (fromGregorianValid year m d)

getTimeOfDay :: P TimeOfDay
getTimeOfDay = do
  h <- digits2 "hours"
  char ':'
  m <- digits2 "minutes"
  -- Seconds may be left out; then so is the fraction.
  s <- (do char ':'
           sec <- digits2 "seconds"
           frac <- (char '.' >> fraction) `orElse` return 0
           return (fromIntegral sec + frac))
       `orElse` return 0
  maybe (failP "invalid time of day") return (makeTimeOfDayValid h m s)
  where
    fraction :: P Pico
    fraction = P $ \t -> case T.span isDigit t of
      (ds, r)
        | T.null ds -> Left "Failed reading: takeWhile1"
        | otherwise ->
            let n = T.foldl' (\a c -> 10 * a + digit c) 0 ds :: Integer
            in Right (fromRational (fromIntegral n / 10 ^ T.length ds), r)

getTimeZone :: P TimeZone
getTimeZone = do
  sign <- P $ \t -> case T.uncons t of
    Just (c, r) | c == '+' || c == '-' -> Right (c, r)
    _ -> Left "Failed reading: satisfy"
  h <- digits2 "timezone"
  m <- (char ':' >> digits2 "timezone minutes") `orElse` return 0
  let off = 60 * h + m
  return $! minutesToTimeZone (if sign == '+' then off else negate off)

getUTCTime :: P UTCTime
getUTCTime = do
  day <- getDay
  char ' ' `orElse` char 'T'
  tod <- getTimeOfDay
  zone <- getTimeZone `orElse` (char 'Z' >> return utc) `orElse` return utc
  let (dayDelta, tod') = localToUTCTimeOfDay zone tod
  return $! UTCTime (addDays dayDelta day) (timeOfDayToTime tod')

-- | @YYYY-MM-DD@, the year padded to 4 digits (SQLite's date functions need 4).
dayToBuilder :: Day -> Builder
dayToBuilder d = year y <> char7 '-' <> pad2 m <> char7 '-' <> pad2 dd
  where
    (y, m, dd) = toGregorian d
    year n
      | n < 0 = char7 '-' <> year (negate n)
      | n >= 10000 = integerDec n
      | otherwise = pad2 (fromIntegral (n `quot` 100)) <> pad2 (fromIntegral (n `rem` 100))

-- | @HH:MM:SS[.S...]@ (the fraction without trailing zeros, left out when zero).
timeOfDayToBuilder :: TimeOfDay -> Builder
timeOfDayToBuilder (TimeOfDay h m s) = pad2 h <> char7 ':' <> pad2 m <> char7 ':' <> seconds s

-- | @+HH@ or @+HH:MM@ (@-@ for zones west of UTC).
timeZoneToBuilder :: TimeZone -> Builder
timeZoneToBuilder tz = char7 (if mins < 0 then '-' else '+') <> pad2 h
  <> (if m == 0 then mempty else char7 ':' <> pad2 m)
  where
    mins = timeZoneMinutes tz
    (h, m) = abs mins `quotRem` 60

-- | @YYYY-MM-DD HH:MM:SS[.S...]@, in UTC, without a zone (as SQLite writes times).
utcTimeToBuilder :: UTCTime -> Builder
utcTimeToBuilder (UTCTime day time) =
  dayToBuilder day <> char7 ' ' <> timeOfDayToBuilder (timeToTimeOfDay time)

seconds :: Pico -> Builder
seconds p
  | frac == 0 = pad2 (fromIntegral whole)
  | otherwise = pad2 (fromIntegral whole) <> char7 '.' <> string7 (stripZeros (pad12 frac))
  where
    picos = truncate (p * 1000000000000) :: Integer
    (whole, frac) = picos `quotRem` 1000000000000
    pad12 n = let str = show n in replicate (12 - length str) '0' ++ str
    stripZeros = reverse . dropWhile (== '0') . reverse

pad2 :: Int -> Builder
pad2 n = char7 (toEnum (48 + n `quot` 10)) <> char7 (toEnum (48 + n `rem` 10))
