#!/bin/sh
# Installs what building and testing every part of sqlbatch needs on a fresh Debian machine.
# Idempotent and quick when everything is present. Rust (cargo), Go, Python, gcc and make are
# expected on the machine already; GHC and cabal-install come from Debian's packages.
set -eu

# Debian packages: GHC and cabal for the Haskell binding (only boot packages and libghc-*-dev
# are used, since Hackage is not reachable), valgrind for leak checks, clang to build SQLite
# with coverage instrumentation for the fuzz targets (fuzz/README.md), dpkg-dev and
# pkg-config for the Debian packages of `make dist` and the install tests, abigail-tools
# (abidw, abidiff) for the ABI check (abi/check.sh), perl for building the vendored OpenSSL of
# the encrypted build and sqlcipher (SQLCipher's shell) for its interoperability test.
PKGS="ghc cabal-install libghc-hunit-dev libghc-quickcheck2-dev valgrind clang dpkg-dev pkg-config abigail-tools perl sqlcipher"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

for tool in cargo go python3 gcc make; do
  command -v "$tool" >/dev/null || { echo "setup: $tool is required but not installed" >&2; exit 1; }
done

# The Rust standard library's source, which `make test-tsan` rebuilds with ThreadSanitizer
# (-Zbuild-std); rustup fetches it once.
if command -v rustup >/dev/null && ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  echo "setup: adding the rust-src component"
  rustup component add rust-src
fi
