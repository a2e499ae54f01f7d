#!/usr/bin/env bash
# The Haskell package installed as a user installs it, from make dist's artifacts, in a
# temporary directory outside the repository with cargo and rustc not on PATH: the C
# library's tarball sqlbatch-VERSION-OS-ARCH.tar.gz unpacked into a prefix (pkg-config finds
# it with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), and a new cabal project whose cabal.project
# names build/dist/hackage (the package's sdist) as its only package repository
# (file+noindex), besides GHC's and Debian's installed packages: no Hackage. It builds and
# runs a sqlite-simple program with `build-depends: sqlbatch`
# (bindings/haskell/testdata/outside: run.sh does the project, Main.hs is the program).
#
#   packaging/install-test-haskell.sh [DISTDIR]   (default build/dist)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dist=$(cd "${1:-$root/build/dist}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)
tarball=$(cd "$dist" && ls sqlbatch-"$version"-*.tar.gz)
[ -f "$dist/hackage/sqlbatch-$version.tar.gz" ] || { echo "$0: no hackage/sqlbatch-$version.tar.gz in $dist (make dist)" >&2; exit 1; }
tmp=$(outside_tmp install-haskell)
trap 'rm -rf "$tmp"' EXIT
drop_rust_from_path
prefix=$tmp/prefix
mkdir -p "$prefix"
tar -xzf "$dist/$tarball" -C "$prefix" --strip-components=1
TMPDIR=$tmp "$root/bindings/haskell/testdata/outside/run.sh" "$prefix" "$dist/hackage"
echo "install-test-haskell: $tarball unpacked into a prefix, sqlbatch-$version from the file+noindex repository $dist/hackage, a sqlite-simple program built with cabal and run, no Rust on PATH"
