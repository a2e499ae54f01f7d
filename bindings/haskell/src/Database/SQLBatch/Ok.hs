{-# LANGUAGE DeriveFunctor #-}
-- |
-- Module      : Database.SQLBatch.Ok
-- Description : The result of a conversion: a value or the exceptions that explain why not
--
-- 'Ok' is sqlite-simple's type of the same name (also exported as
-- "Database.SQLite.Simple.Ok"): a 'Database.SQLBatch.FromField.FieldParser' returns one.
-- It is @Either [SomeException]@ with an 'Alternative' instance: @a '<|>' b@ tries @b@ if
-- @a@ fails and, if both fail, keeps the exceptions of both; 'empty' is @Errors []@.
module Database.SQLBatch.Ok
  ( Ok (..)
  , ManyErrors (..)
  ) where

import Control.Applicative (Alternative (..))
import Control.Exception (ErrorCall (..), Exception, SomeException (..))
import Control.Monad (MonadPlus (..))
import Control.Monad.Catch (MonadThrow (..))

-- | A converted value, or the reasons the conversion failed. The value is strict.
data Ok a = Errors [SomeException] | Ok !a
  deriving (Show, Functor)

-- | Two 'Errors' are equal whatever their exceptions.
instance Eq a => Eq (Ok a) where
  Errors _ == Errors _ = True
  Ok a == Ok b = a == b
  _ == _ = False

instance Applicative Ok where
  pure = Ok
  {-# INLINE pure #-}
  Errors es <*> _ = Errors es
  _ <*> Errors es = Errors es
  Ok f <*> Ok a = Ok (f a)
  {-# INLINE (<*>) #-}

instance Alternative Ok where
  empty = Errors []
  a@(Ok _) <|> _ = a
  Errors _ <|> b@(Ok _) = b
  Errors as <|> Errors bs = Errors (as ++ bs)

instance MonadPlus Ok where
  mzero = empty
  mplus = (<|>)

instance Monad Ok where
  Errors es >>= _ = Errors es
  Ok a >>= f = f a
  {-# INLINE (>>=) #-}

instance MonadFail Ok where
  fail str = Errors [SomeException (ErrorCall str)]

instance MonadThrow Ok where
  throwM = fail . show

-- | Several exceptions as one: what a query throws when a row's conversion failed in more
-- than one way (e.g. both sides of a '<|>').
newtype ManyErrors = ManyErrors [SomeException]
  deriving (Show)

instance Exception ManyErrors
