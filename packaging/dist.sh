#!/usr/bin/env bash
# Builds the release artifacts of this platform into build/dist (`make dist`, after `make
# lib`), with the version from Cargo.toml:
#
#   goproxy/                  a Go module proxy tree (GOPROXY=file://.../goproxy): the module
#                             github.com/sqlbatch/sqlbatch/bindings/go and the per-platform
#                             module of this GOOS/GOARCH, both at vVERSION
#   sqlbatch-VERSION-OS-ARCH.tar.gz   header, libsqlbatch.so.VERSION with its links,
#                             libsqlbatch.a, a relocatable sqlbatch.pc, the C examples, LICENSE
#   libsqlbatchN_VERSION_ARCH.deb, libsqlbatch-dev_VERSION_ARCH.deb   (packaging/deb.sh)
#   hackage/                  the Haskell package, when bindings/haskell has a `dist` target
#   SHA256SUMS
#
# The Go module's zip holds the files of bindings/go that git tracks or would add (the
# untracked ones that .gitignore does not exclude), as the tag bindings/go/vVERSION would.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
dist=$root/build/dist
stage=$root/build/dist-stage
rm -rf "$dist" "$stage"
mkdir -p "$dist" "$stage"
[ -f build/lib/libsqlbatch.a ] && [ -f build/lib/libsqlbatch.so ] || { echo "$0: run make lib first" >&2; exit 1; }
# The release's time: the commit's, so that the same commit gives the same artifacts.
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
when=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

# --- Go --------------------------------------------------------------------------------
gomod=github.com/sqlbatch/sqlbatch/bindings/go
goos=$(go env GOOS) goarch=$(go env GOARCH)
# bindings/go requires each per-platform module at the library's version.
for d in bindings/go/lib/*/; do
	plat=$(basename "$d")
	grep -Eq "^[[:space:]]*$gomod/lib/$plat v$version\$" bindings/go/go.mod || {
		echo "$0: bindings/go/go.mod must require $gomod/lib/$plat v$version (the library's version)" >&2; exit 1; }
done
mkdir -p build/tools
go -C bindings/go/tools/modproxy build -o "$root/build/tools/modproxy" .
mkdir -p "$stage/go"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	(cd bindings/go && git ls-files -z -co --exclude-standard .) | while IFS= read -r -d '' f; do
		if [ -e "bindings/go/$f" ] || [ -L "bindings/go/$f" ]; then
			mkdir -p "$stage/go/$(dirname "$f")"
			cp -P "bindings/go/$f" "$stage/go/$f"
		fi
	done
else
	cp -a bindings/go/. "$stage/go/"
fi
# As the module proxy does for a module in a subdirectory: the repository's LICENSE.
[ -f "$stage/go/LICENSE" ] || cp LICENSE "$stage/go/LICENSE"
build/tools/modproxy -module "$gomod" -version "v$version" -dir "$stage/go" -out "$dist/goproxy" -time "$when"
bindings/go/tools/platform-module.sh build/lib/libsqlbatch.a "$stage/lib-$goos-$goarch" "$goos" "$goarch"
build/tools/modproxy -module "$gomod/lib/$goos-$goarch" -version "v$version" -dir "$stage/lib-$goos-$goarch" \
	-out "$dist/goproxy" -time "$when"

# --- C: the tarball ----------------------------------------------------------------------
os=$(uname -s | tr '[:upper:]' '[:lower:]')
name=sqlbatch-$version-$os-$(uname -m)
tree=$stage/$name
"${MAKE:-make}" -s install PREFIX="$tree" PC_PREFIX='$${pcfiledir}/../..' > /dev/null
mkdir -p "$tree/share/doc/sqlbatch/examples"
cp bindings/c/examples/*.c "$tree/share/doc/sqlbatch/examples/"
cp bindings/c/README.md "$tree/share/doc/sqlbatch/README.md"
[ ! -f CHANGELOG.md ] || cp CHANGELOG.md "$tree/share/doc/sqlbatch/"
cp LICENSE "$tree/LICENSE"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$stage" -cf - "$name" | gzip -9n > "$dist/$name.tar.gz"
echo "tarball $dist/$name.tar.gz ($(du -h "$dist/$name.tar.gz" | cut -f1))"

# --- C: the Debian packages ----------------------------------------------------------------
packaging/deb.sh "$dist" "$version" "$epoch"

# --- Haskell -------------------------------------------------------------------------------
if grep -Eq '^dist:' bindings/haskell/Makefile 2> /dev/null; then
	"${MAKE:-make}" -C bindings/haskell dist DIST="$dist/hackage"
else
	echo "hackage: skipped (bindings/haskell has no dist target)"
fi

(cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
rm -rf "$stage"
echo "dist: sqlbatch $version in $dist"
