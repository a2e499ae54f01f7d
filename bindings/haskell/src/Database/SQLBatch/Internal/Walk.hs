-- |
-- Module      : Database.SQLBatch.Internal.Walk
-- Description : A bound on the runtime's stack walk at each safe foreign call
--
-- Each @safe@ foreign call (every call that may wait: a fetch that steps SQLite, a
-- prepare, a commit) runs the runtime's @threadPaused@ first, which walks the calling
-- thread's stack frame by frame, down to the first update frame it has marked before (or
-- to the bottom of the stack's chunk). The stacks of database code hold no update frame
-- (they are made of @IO@ continuations, handlers and masks), so each call walks the whole
-- stack: the program's frames under the call (its @main@, its loops, a transaction's mask,
-- handler and continuation), about 25 instructions a frame, every time.
--
-- 'walkStop' runs an action as the evaluation of a thunk, whose update frame stays under
-- the action's frames while it runs. The first safe call of the action marks that frame,
-- and every later one stops its walk there: inside a transaction of many statements, each
-- safe call walks only the frames above the transaction. (The first call walks as far as
-- before, and marks the frame; with the thunk and its update, that costs a transaction
-- about 220 instructions, which a second safe call inside it wins back.)
--
-- Nothing else changes. The thunk is private to the call: it is made by
-- 'unsafeDupableInterleaveIO' (it captures the call's state token, so GHC never floats it
-- out and shares it between runs) and forced at once, by a call GHC cannot look into, so
-- that it stays an updatable thunk; its value is a box around the action's result, so the
-- result is not evaluated. An exception the action throws, or an asynchronous one that
-- reaches it, propagates as from the action itself (the runtime updates or freezes the
-- thunk on the way, which nobody forces again).
module Database.SQLBatch.Internal.Walk
  ( walkStop
  ) where

import Control.Exception (evaluate)
import GHC.Exts (noinline)
import GHC.IO.Unsafe (unsafeDupableInterleaveIO)

-- | The action's result, boxed: the thunk's value, in weak head normal form without the
-- result being evaluated.
data Box a = Box a

-- | Runs the action under an update frame that bounds the stack walk of its safe calls
-- (the module header).
walkStop :: IO a -> IO a
walkStop act = do
  t <- unsafeDupableInterleaveIO (Box <$> act)
  -- 'noinline': GHC sees neither that 'evaluate' forces the thunk at once (it would run
  -- the action in place, with no thunk and no update frame) nor that it is forced once
  -- (a thunk entered once is made without an update frame).
  Box r <- noinline evaluate t
  return r
{-# INLINE walkStop #-}
