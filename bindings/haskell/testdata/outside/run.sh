#!/bin/sh
# Builds and runs testdata/outside/Main.hs as the program of a new cabal project outside the
# repository (a temporary directory), the way a user of the package does it: the C library
# installed with its sqlbatch.pc, the package taken from a local package repository.
#
#   run.sh PREFIX REPO
#
#   PREFIX  the installed C library: PREFIX/lib/pkgconfig/sqlbatch.pc, its header and
#           libraries (the release tarball unpacked, or `make install PREFIX=...` at the top)
#   REPO    a directory holding sqlbatch-VERSION.tar.gz (`make -C bindings/haskell dist`;
#           the release's build/dist/hackage), copied into the temporary directory, as a user
#           keeps a downloaded one, since cabal writes its noindex.cache there
#
# The project's cabal.project names that directory as its only package repository
# (file+noindex), and its package `outside` has `build-depends: sqlbatch`; the rest comes
# from GHC's global package database (GHC's and Debian's packages). Offline: CABAL_CONFIG is
# a file naming no repository (so not Hackage) and CABAL_DIR a directory of the temporary
# one, whose store receives the package. cabal finds libsqlbatch through pkg-config, with
# PKG_CONFIG_PATH=PREFIX/lib/pkgconfig. These are the steps bindings/haskell/README.md gives
# users; the one addition is `optimization: False`, to build faster.
#
# Which library: with both libsqlbatch.so and libsqlbatch.a in PREFIX/lib the linker takes
# the .so, for the program and for the package's own shared library libHSsqlbatch-*.so (the
# one GHC loads to run the sql quasiquoter); the script checks that the program NEEDs
# libsqlbatch.so.N. Both find it at run time through an rpath to PREFIX/lib
# (-optl-Wl,-rpath in the ghc-options of every package), not LD_LIBRARY_PATH, which the
# script unsets: GHC 9.0 dlopens libHSsqlbatch-*.so before the package's libraries, so
# without the rpath in it the build stops at the quasiquoter with "libsqlbatch.so.1: cannot
# open shared object file" (a library installed under /usr or /usr/local, known to ldconfig,
# needs no rpath).
set -eu
prefix=$(cd "$1" && pwd)
repo=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
test -f "$prefix/lib/pkgconfig/sqlbatch.pc" ||
	{ echo "run.sh: no sqlbatch.pc in $prefix/lib/pkgconfig" >&2; exit 1; }
tarball=$(cd "$repo" && ls sqlbatch-*.tar.gz)
version=${tarball#sqlbatch-}
version=${version%.tar.gz}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sqlbatch-hs-outside.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp/" in "$top"/*) echo "run.sh: $tmp is inside the repository" >&2; exit 1;; esac

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pcversion=$(pkg-config --modversion sqlbatch)
test "$pcversion" = "$version" ||
	{ echo "run.sh: pkg-config finds sqlbatch $pcversion, want $version" >&2; exit 1; }
printf '%s\n' '-- No repository: the project names its own.' 'jobs: $ncpus' > "$tmp/cabal-config"
export CABAL_CONFIG="$tmp/cabal-config"
export CABAL_DIR="$tmp/cabal-dir"
unset LD_LIBRARY_PATH LIBRARY_PATH C_INCLUDE_PATH GHC_ENVIRONMENT GHC_PACKAGE_PATH || true

mkdir "$tmp/hackage" "$tmp/project" "$tmp/project/outside"
cp "$repo/$tarball" "$tmp/hackage/"
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
cat > "$tmp/project/cabal.project" <<PROJECT
packages: outside

repository sqlbatch
  url: file+noindex://$tmp/hackage

package *
  ghc-options: -optl-Wl,-rpath,$prefix/lib

optimization: False
PROJECT

cd "$tmp/project"
# The package is built into the store, its output in a log there: shown if the build fails.
cabal build -v1 outside || { cat "$CABAL_DIR"/logs/ghc-*/sqlbatch-*.log >&2 2>/dev/null; exit 1; }
ls -d "$CABAL_DIR"/store/ghc-*/"sqlbatch-$version"-* > /dev/null 2>&1 ||
	{ echo "run.sh: sqlbatch-$version is not in the project's store" >&2; exit 1; }
bin=$(cabal list-bin outside)
dyn=$(readelf -d "$bin")
echo "$dyn" | grep NEEDED | grep -q 'libsqlbatch\.so\.[0-9]' ||
	{ echo "run.sh: $bin does not link libsqlbatch.so.N" >&2; exit 1; }
echo "$dyn" | grep -E 'RUNPATH|RPATH' | grep -qF "$prefix/lib" ||
	{ echo "run.sh: $bin has no rpath to $prefix/lib" >&2; exit 1; }
out=$(cd / && "$bin" "$tmp/outside.db")
want="2 people, total age 77, Ada,Alan,Grace"
test "$out" = "$want" || { echo "run.sh: the program printed '$out', want '$want'" >&2; exit 1; }
echo "PASS outside: sqlbatch $version from a file+noindex repository, built in $tmp against $prefix (pkg-config, libsqlbatch.so, rpath): $out"
