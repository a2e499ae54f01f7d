#!/bin/sh
# Builds and runs testdata/outside/Main.hs as the program of a cabal project outside the
# repository (a temporary directory), against an installed sqlbatch, the way a user of the
# package does. Run by `make -C bindings/haskell test-outside` (part of `make test`).
#
#   run.sh PREFIX     PREFIX from `make install PREFIX=...` at the top: include/sqlbatch.h,
#                     lib/libsqlbatch.{a,so}
#
# The package goes in as the tarball of `cabal sdist`, so a file missing from the .cabal
# file's lists fails here. The project's cabal.project names the installed library with
# extra-lib-dirs / extra-include-dirs (package sqlbatch), the lines the README gives users.
#
# Which library: with both libsqlbatch.so and libsqlbatch.a in PREFIX/lib the linker takes
# the .so, for the program and for the package's own shared library libHSsqlbatch-*.so
# (the one GHC loads to run the sql quasiquoter); the script checks that the program NEEDs
# libsqlbatch.so. Both find it at run time through an rpath to PREFIX/lib (-optl-Wl,-rpath
# in the ghc-options of packages sqlbatch and outside), not LD_LIBRARY_PATH, which the
# script unsets: GHC 9.0 dlopens libHSsqlbatch-*.so before the package's extra-libraries,
# so without the rpath in it the build stops at the quasiquoter with "libsqlbatch.so.0.2:
# cannot open shared object file" (an installed /usr/local/lib known to ldconfig needs no
# rpath). Offline: the repository's offline.cabal-config (no package repository) and a
# CABAL_DIR inside the temporary directory; the tarball's package is built into that
# CABAL_DIR's store.
set -eu
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
pkg=$(cd "$here/../.." && pwd) # bindings/haskell
repo=$(cd "$pkg/../.." && pwd)
test -f "$prefix/include/sqlbatch.h" && test -f "$prefix/lib/libsqlbatch.so" ||
	{ echo "run.sh: no installed sqlbatch in $prefix (make install PREFIX=$prefix)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sqlbatch-hs-outside.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp" in "$repo"/*) echo "run.sh: $tmp is inside the repository" >&2; exit 1;; esac

export CABAL_CONFIG="$pkg/offline.cabal-config"
export CABAL_DIR="$tmp/cabal-dir"
unset LD_LIBRARY_PATH LIBRARY_PATH C_INCLUDE_PATH GHC_ENVIRONMENT GHC_PACKAGE_PATH || true

(cd "$pkg" && cabal sdist -v0 -o "$tmp")
tarball=$(cd "$tmp" && ls sqlbatch-*.tar.gz)

mkdir "$tmp/project" "$tmp/project/outside"
cp "$here/Main.hs" "$tmp/project/outside/Main.hs"
cat > "$tmp/project/outside/outside.cabal" <<CABAL
cabal-version:      2.4
name:               outside
version:            0
build-type:         Simple

executable outside
  main-is:          Main.hs
  build-depends:    base, sqlbatch, text
  default-language: Haskell2010
  ghc-options:      -Wall -Werror -threaded
CABAL
# optimization: False for speed. The package's own ghc-options say -O2, which would come
# after cabal's -O0 on GHC's command line; a project's ghc-options come last, hence -O0
# there too.
cat > "$tmp/project/cabal.project" <<PROJECT
packages: ../$tarball outside
optimization: False

package sqlbatch
  extra-lib-dirs: $prefix/lib
  extra-include-dirs: $prefix/include
  ghc-options: -O0 -optl-Wl,-rpath,$prefix/lib

package outside
  ghc-options: -optl-Wl,-rpath,$prefix/lib
PROJECT

cd "$tmp/project"
# The package is built into the store, its output in a log there: shown if the build fails.
cabal build -v1 outside || { cat "$CABAL_DIR"/logs/ghc-*/sqlbatch-*.log >&2 2>/dev/null; exit 1; }
bin=$(cabal list-bin outside)
dyn=$(readelf -d "$bin")
echo "$dyn" | grep NEEDED | grep -q 'libsqlbatch\.so' ||
	{ echo "run.sh: $bin does not link libsqlbatch.so" >&2; exit 1; }
echo "$dyn" | grep -E 'RUNPATH|RPATH' | grep -qF "$prefix/lib" ||
	{ echo "run.sh: $bin has no rpath to $prefix/lib" >&2; exit 1; }
out=$(cd / && "$bin" "$tmp/outside.db")
want="2 people, total age 77, Ada,Alan,Grace"
test "$out" = "$want" || { echo "run.sh: the program printed '$out', want '$want'" >&2; exit 1; }
echo "PASS test-outside: $tarball built in $tmp against $prefix (libsqlbatch.so, rpath): $out"
