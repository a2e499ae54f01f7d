{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | Tests of encryption at rest (docs/encryption.md) through both faces: 'openEncrypted',
-- 'rekey', 'export' of "Database.SQLBatch", and of "Database.SQLite3".
--
-- They run against whichever library the suite links. The default build (make test) must
-- refuse every key call with 'ErrorUnsupported' and a message saying why, creating no file;
-- the encrypted build (make test-encryption, which links build/lib-encrypted and sets
-- SQLBATCH_TEST_ENCRYPTION) is tested through them: round trips, wrong and missing keys,
-- rekey, export both ways, and every bad input.
module Encryption (encryptionTests, encryptionRequired) where

import Control.Exception
import Control.Monad
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as B8
import qualified Data.ByteString.Unsafe as BU
import Data.Maybe (isJust)
import Data.Text (Text)
import qualified Data.Text as T
import Foreign.Marshal.Utils (fillBytes)
import System.Directory (doesFileExist)
import System.Environment (lookupEnv)
import Test.HUnit

import Database.SQLBatch
import Kit
import Database.SQLBatch.Error (decodeError, encodeError, errorCodeName)
import qualified Database.SQLite3 as S3

-- | A text no encrypted file may hold.
marker :: Text
marker = "PLAINTEXT-MARKER-hs-5d2e"

-- | Whether make test-encryption asked for the encrypted build (SQLBATCH_TEST_ENCRYPTION):
-- then a library without encryption is a failure, not the default build's case.
encryptionRequired :: IO Bool
encryptionRequired = maybe False (`notElem` ["", "0"]) <$> lookupEnv "SQLBATCH_TEST_ENCRYPTION"

-- | Settings with few PBKDF2 iterations, so that the many opens here stay quick (the
-- defaults' 256,000 are tested once, in the round trip).
fast :: Cipher
fast = defaultCipher { cipherKdfIter = 4000 }


-- | The "Database.SQLite3" 'S3.SQLError' the action throws.
s3ErrorOf :: IO a -> IO S3.SQLError
s3ErrorOf act = do
  r <- try act
  case r of
    Left (e :: S3.SQLError) -> return e
    Right _ -> assertFailure "expected an SQLError of Database.SQLite3" >> undefined

-- | Asserts the error's code and that its message says something (and contains the text).
expectError :: Error -> Text -> SQLError -> Assertion
expectError code text e = do
  assertEqual ("code of " ++ show e) code (sqlError e)
  assertBool ("a message: " ++ show e) (not (T.null (sqlErrorDetails e)))
  assertBool ("the message says " ++ show text ++ ": " ++ show e) (text `T.isInfixOf` sqlErrorDetails e)

-- | The same for "Database.SQLite3"'s exception.
expectS3Error :: Error -> Text -> S3.SQLError -> Assertion
expectS3Error code text e = do
  assertEqual ("code of " ++ show e) code (S3.sqlError e)
  assertBool ("the message says " ++ show text ++ ": " ++ show e) (text `T.isInfixOf` S3.sqlErrorDetails e)

-- | A fresh path in the temporary directory (removed after the action, with its journals).
withPath :: String -> (FilePath -> IO a) -> IO a
withPath name = withTempDb ("enc-" ++ name)

-- | Two fresh paths.
withPath2 :: String -> (FilePath -> FilePath -> IO a) -> IO a
withPath2 name act = withPath (name ++ "-1") $ \p -> withPath (name ++ "-2") (act p)

-- | An encrypted database holding the marker, written through "Database.SQLBatch".
create :: FilePath -> B.ByteString -> Cipher -> IO ()
create p key cipher = bracket (openEncrypted p key cipher) close $ \c ->
  executeScript c (Query ("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('" <> marker <> "')"))

-- | The rows of t, read with the key.
readWith :: FilePath -> B.ByteString -> Cipher -> IO [Text]
readWith p key cipher = bracket (openEncrypted p key cipher) close $ \c ->
  map fromOnly <$> query_ c "SELECT s FROM t"

-- | The rows of t of a plain database.
readPlain :: FilePath -> IO [Text]
readPlain p = withConnection p $ \c -> map fromOnly <$> query_ c "SELECT s FROM t"

-- | Asserts the file holds neither the marker nor SQLite's plain header.
assertCiphertext :: FilePath -> Assertion
assertCiphertext p = do
  raw <- B.readFile p
  assertBool "the file is not empty" (B.length raw >= 4096)
  assertBool "no SQLite header" (not ("SQLite format 3" `B.isPrefixOf` raw))
  assertBool "no plaintext" (not (B.isInfixOf (B8.pack (T.unpack marker)) raw))

-- | Asserts the key does not open the file: 'ErrorNotADatabase' with a message, and no row.
assertRefused :: FilePath -> B.ByteString -> Cipher -> Assertion
assertRefused p key cipher = do
  e <- sqlErrorOf (readWith p key cipher)
  expectError ErrorNotADatabase "" e

encryptionTests :: Test
encryptionTests = TestList
  [ "SQLBATCH_E_UNSUPPORTED is ErrorUnsupported, with the library's name" ~: do
      decodeError 1011 @?= ErrorUnsupported
      encodeError ErrorUnsupported @?= 1011
      errorCodeName 1011 @?= "SQLBATCH_E_UNSUPPORTED"
  , "cipherVersion says which build is linked" ~: do
      v <- cipherVersion
      required <- encryptionRequired
      when required $ assertBool "SQLBATCH_TEST_ENCRYPTION is set but the library has no encryption" (isJust v)
      v3 <- S3.cipherVersion
      v3 @?= v
      forM_ v $ \s -> assertBool (show s) ("4." `T.isPrefixOf` s)
  , TestLabel "default build" defaultBuildTests
  , TestLabel "encrypted build" encryptedBuildTests
  ]

-- | Runs the test only in the build without encryption.
defaultOnly :: Assertion -> Assertion
defaultOnly t = cipherVersion >>= \v -> when (v == Nothing) t

-- | Runs the test only in the encrypted build.
encryptedOnly :: Assertion -> Assertion
encryptedOnly t = cipherVersion >>= \v -> when (isJust v) t

defaultBuildTests :: Test
defaultBuildTests = TestList
  [ "openEncrypted: ErrorUnsupported with a message, and no file" ~: defaultOnly $ withPath "unsupported" $ \p -> do
      e <- sqlErrorOf (openEncrypted p "secret" defaultCipher)
      expectError ErrorUnsupported "no encryption" e
      sqlErrorCode e @?= 1011
      doesFileExist p >>= assertBool "a file was created" . not
      e3 <- s3ErrorOf (S3.openEncrypted (T.pack p) "secret" defaultCipher)
      expectS3Error ErrorUnsupported "no encryption" e3
      e4 <- s3ErrorOf (S3.openEncrypted2 (T.pack p) [S3.SQLOpenReadWrite, S3.SQLOpenCreate] S3.SQLVFSDefault "secret" defaultCipher)
      expectS3Error ErrorUnsupported "no encryption" e4
      doesFileExist p >>= assertBool "a file was created" . not
  , "rekey and export: ErrorUnsupported, the connection still usable" ~: defaultOnly $ withPath2 "unsupported-rekey" $ \p q -> do
      withConnection p $ \c -> do
        execute_ c "CREATE TABLE t(x)"
        e <- sqlErrorOf (rekey c "secret")
        expectError ErrorUnsupported "no encryption" e
        e2 <- sqlErrorOf (export c q "secret" defaultCipher)
        expectError ErrorUnsupported "no encryption" e2
        query_ c "SELECT count(*) FROM t" >>= (@?= [Only (0 :: Int)])
      db <- S3.open (T.pack p)
      e3 <- s3ErrorOf (S3.rekey db "main" "secret")
      expectS3Error ErrorUnsupported "no encryption" e3
      e4 <- s3ErrorOf (S3.export db "" (T.pack q) "" defaultCipher)
      expectS3Error ErrorUnsupported "no encryption" e4
      S3.close db
  ]

encryptedBuildTests :: Test
encryptedBuildTests = TestList
  [ "round trip: written with a key, read with it; the file is ciphertext" ~: encryptedOnly $ withPath "roundtrip" $ \p -> do
      create p "correct horse" defaultCipher
      assertCiphertext p
      readWith p "correct horse" defaultCipher >>= (@?= [marker])
      -- direct-sqlite's face reads the same file
      db <- S3.openEncrypted (T.pack p) "correct horse" defaultCipher
      st <- S3.prepare db "SELECT s FROM t"
      S3.step st >>= (@?= S3.Row)
      S3.columnText st 0 >>= (@?= marker)
      S3.step st >>= (@?= S3.Done)
      S3.finalize st
      S3.close db
  , "a wrong key, other settings, or no key: ErrorNotADatabase with a message, no row" ~: encryptedOnly $ withPath "wrong" $ \p -> do
      create p "right" fast
      assertRefused p "wrong" fast
      assertRefused p "right" defaultCipher                         -- other iterations
      assertRefused p "right" fast { cipherCompatibility = 3 }
      -- without a key: the open reads nothing, the first query fails
      e <- sqlErrorOf (readPlain p)
      expectError ErrorNotADatabase "" e
      e3 <- s3ErrorOf (S3.openEncrypted (T.pack p) "wrong" fast)
      expectS3Error ErrorNotADatabase "" e3
      -- and the right key still reads it
      readWith p "right" fast >>= (@?= [marker])
  , "a file that is no database: ErrorNotADatabase" ~: encryptedOnly $ withPath "garbage" $ \p -> do
      B.writeFile p (B.replicate 8192 0x5a)
      assertRefused p "key" fast
  , "the caller may wipe its key once openEncrypted returns" ~: encryptedOnly $ withPath "wipe" $ \p -> do
      let keyText = "wipe me after use" :: B.ByteString
      key <- evaluate (B.copy keyText)    -- a buffer of its own, which this test may overwrite
      c <- openEncrypted p key fast
      BU.unsafeUseAsCStringLen key $ \(kp, kn) -> fillBytes kp 0 kn
      key @?= B.replicate (B.length keyText) 0
      executeScript c (Query ("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('" <> marker <> "')"))
      close c
      readWith p keyText fast >>= (@?= [marker])
  , "a raw key x'…' of 64 hex digits opens; a malformed one is refused" ~: encryptedOnly $ withPath "raw" $ \p -> do
      let raw = B8.pack ("x'" ++ concat (replicate 4 "0123456789abcdef") ++ "'")
      create p raw fast
      assertCiphertext p
      readWith p raw fast >>= (@?= [marker])
      e <- sqlErrorOf (openEncrypted p "x'12'" fast)
      expectError ErrorInvalidArgument "raw key" e
  , "rekey to a new key: the old one no longer opens the file" ~: encryptedOnly $ withPath "rekey" $ \p -> do
      create p "old" fast
      bracket (openEncrypted p "old" fast) close $ \c -> do
        rekey c "new"
        -- the connection goes on with the new key
        query_ c "SELECT s FROM t" >>= (@?= [Only marker])
      assertRefused p "old" fast
      readWith p "new" fast >>= (@?= [marker])
      assertCiphertext p
  , "rekey cannot decrypt in place: an empty key is ErrorInvalidArgument, nothing changed" ~: encryptedOnly $ withPath "rekey-empty" $ \p -> do
      create p "key" fast
      bracket (openEncrypted p "key" fast) close $ \c -> do
        e <- sqlErrorOf (rekey c "")
        expectError ErrorInvalidArgument "empty" e
        query_ c "SELECT s FROM t" >>= (@?= [Only marker])
      readWith p "key" fast >>= (@?= [marker])
  , "rekey of a plain database is ErrorInvalidArgument; export encrypts it" ~: encryptedOnly $ withPath2 "plain-to-enc" $ \p q -> do
      withConnection p $ \c -> executeScript c (Query ("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('" <> marker <> "')"))
      withConnection p $ \c -> do
        e <- sqlErrorOf (rekey c "key")
        expectError ErrorInvalidArgument "" e
        export c q "key" fast
      readPlain p >>= (@?= [marker])       -- the plain file is untouched
      assertCiphertext q
      readWith q "key" fast >>= (@?= [marker])
  , "export to plain: the copy opens without a key" ~: encryptedOnly $ withPath2 "enc-to-plain" $ \p q -> do
      create p "key" fast
      bracket (openEncrypted p "key" fast) close $ \c -> do
        execute_ c "PRAGMA user_version = 7"
        export c q "" defaultCipher
      raw <- B.readFile q
      assertBool "a plain copy" ("SQLite format 3" `B.isPrefixOf` raw)
      readPlain q >>= (@?= [marker])
      withConnection q $ \c -> query_ c "PRAGMA user_version" >>= (@?= [Only (7 :: Int)])
  , "export with other settings, and onto an existing file (refused)" ~: encryptedOnly $ withPath2 "export-settings" $ \p q -> do
      create p "key" fast
      let v3 = fast { cipherCompatibility = 3 }
      bracket (openEncrypted p "key" fast) close $ \c -> do
        export c q "other" v3
        e <- sqlErrorOf (export c q "other" v3)
        expectError ErrorInvalidArgument "" e
      readWith q "other" v3 >>= (@?= [marker])
      assertRefused q "other" fast
  , "an empty key is refused at open, and no file is created" ~: encryptedOnly $ withPath "empty-key" $ \p -> do
      e <- sqlErrorOf (openEncrypted p "" defaultCipher)
      expectError ErrorInvalidArgument "empty" e
      doesFileExist p >>= assertBool "a file was created" . not
      e3 <- s3ErrorOf (S3.openEncrypted (T.pack p) "" defaultCipher)
      expectS3Error ErrorMisuse "empty" e3
      doesFileExist p >>= assertBool "a file was created" . not
  , "an in-memory or temporary database is refused" ~: encryptedOnly $ do
      forM_ [":memory:", ""] $ \p -> do
        e <- sqlErrorOf (openEncrypted p "key" defaultCipher)
        expectError ErrorInvalidArgument "" e
        e3 <- s3ErrorOf (S3.openEncrypted (T.pack p) "key" defaultCipher)
        expectS3Error ErrorMisuse "" e3
      -- rekey of an in-memory database too
      withConnection ":memory:" $ \c -> do
        e <- sqlErrorOf (rekey c "key")
        expectError ErrorInvalidArgument "" e
  , "cipher settings out of range are refused before a file is created" ~: encryptedOnly $ withPath "settings" $ \p -> do
      let bad = [ defaultCipher { cipherCompatibility = 5 }
                , defaultCipher { cipherCompatibility = -1 }
                , defaultCipher { cipherPageSize = 1000 }
                , defaultCipher { cipherPageSize = 131072 }
                , defaultCipher { cipherKdfIter = -1 }
                , defaultCipher { cipherPlaintextHeaderSize = 7 }
                , defaultCipher { cipherKdfIter = 2 ^ (32 :: Int) + 1000 }  -- does not fit in 32 bits
                ]
      forM_ bad $ \cipher -> do
        e <- sqlErrorOf (openEncrypted p "key" cipher)
        expectError ErrorInvalidArgument "cipher setting" e
        e3 <- s3ErrorOf (S3.openEncrypted (T.pack p) "key" cipher)
        expectS3Error ErrorMisuse "cipher setting" e3
        doesFileExist p >>= assertBool ("a file was created for " ++ show cipher) . not
  , "settings in range: a file written with them opens with them only" ~: encryptedOnly $ withPath "settings-ok" $ \p -> do
      let s = fast { cipherPageSize = 8192, cipherCompatibility = 4 }
      create p "key" s
      readWith p "key" s >>= (@?= [marker])
      assertRefused p "key" fast
  , "openEncryptedWith: read-only refuses writes" ~: encryptedOnly $ withPath "readonly" $ \p -> do
      create p "key" fast
      bracket (openEncryptedWith p [OpenReadOnly] "key" fast) close $ \c -> do
        query_ c "SELECT s FROM t" >>= (@?= [Only marker])
        e <- sqlErrorOf (execute_ c "INSERT INTO t VALUES ('x')")
        sqlError e @?= ErrorReadOnly
  , "Database.SQLite3: openEncrypted, rekey and export" ~: encryptedOnly $ withPath2 "s3" $ \p q -> withPath "s3-3" $ \r -> do
      db <- S3.openEncrypted (T.pack p) "one" fast
      S3.exec db ("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('" <> marker <> "')")
      S3.rekey db "main" "two"
      S3.export db "" (T.pack q) "" defaultCipher
      S3.export db "main" (T.pack r) "three" fast
      e <- s3ErrorOf (S3.rekey db "" "")
      expectS3Error ErrorMisuse "empty" e
      e2 <- s3ErrorOf (S3.rekey db "nosuch" "four")
      assertEqual (show e2) ErrorError (S3.sqlError e2)
      S3.close db
      assertCiphertext p
      readWith p "two" fast >>= (@?= [marker])
      assertRefused p "one" fast
      readPlain q >>= (@?= [marker])
      assertCiphertext r
      readWith r "three" fast >>= (@?= [marker])
      -- openEncrypted2 with flags: read-only
      db2 <- S3.openEncrypted2 (T.pack r) [S3.SQLOpenReadOnly] S3.SQLVFSDefault "three" fast
      e3 <- s3ErrorOf (S3.exec db2 "INSERT INTO t VALUES ('x')")
      assertEqual (show e3) ErrorReadOnly (S3.sqlError e3)
      S3.close db2
      e4 <- s3ErrorOf (S3.openEncrypted2 (T.pack r) [] (S3.SQLVFSCustom "nosuch") "three" fast)
      expectS3Error ErrorError "no such vfs" e4
  ]
