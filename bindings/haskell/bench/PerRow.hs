module PerRow where
