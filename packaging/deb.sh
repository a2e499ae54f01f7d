#!/usr/bin/env bash
# Builds sqlbatch's Debian packages from build/lib and include/ with dpkg-deb, split as
# Debian splits a C library:
#
#   libsqlbatchN (N: the SONAME's version)   the shared library libsqlbatch.so.VERSION and its
#                                            SONAME link, with shlibs and the ldconfig trigger
#   libsqlbatch-dev                          the header, libsqlbatch.so (for -lsqlbatch),
#                                            libsqlbatch.a, sqlbatch.pc, the C examples
#
# in /usr/lib/MULTIARCH, as Debian installs libraries. The runtime package's dependencies
# come from dpkg-shlibdeps.
#
#   packaging/deb.sh OUTDIR VERSION [EPOCH]   (EPOCH: the changelog's date, in seconds)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$1 version=$2 epoch=${3:-$(date +%s)}
maintainer="The sqlbatch authors <sqlbatch@users.noreply.invalid>"
homepage=https://github.com/sqlbatch/sqlbatch
# A pre-release (1.0.0-rc.1) sorts before its release in Debian's order with a tilde.
debversion=${version//-/\~}
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || gcc -print-multiarch)
soname=$(readelf -d build/lib/libsqlbatch.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
sover=${soname#libsqlbatch.so.}
[ -n "$sover" ] && [ "$sover" != "$soname" ] || { echo "$0: unexpected SONAME '$soname'" >&2; exit 1; }
runtime=libsqlbatch$sover
libdir=usr/lib/$multiarch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# The documentation every package carries: copyright and the Debian changelog.
docs() {
	local dir=$1/usr/share/doc/$2
	mkdir -p "$dir"
	{
		echo "sqlbatch: $homepage"
		echo
		echo "The library contains SQLite (public domain, https://sqlite.org/copyright.html) and"
		echo "the Rust standard library (MIT or Apache-2.0). sqlbatch itself:"
		echo
		cat LICENSE
	} > "$dir/copyright"
	printf 'sqlbatch (%s) unstable; urgency=medium\n\n  * Upstream release %s.\n\n -- %s  %s\n' \
		"$debversion" "$version" "$maintainer" "$(date -R -u -d "@$epoch")" | gzip -9n > "$dir/changelog.Debian.gz"
}

finish() { # PKGDIR: md5sums, then the .deb
	local dir=$1 name
	name=$(sed -n 's/^Package: //p' "$dir/DEBIAN/control")
	(cd "$dir" && find usr -type f | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums)
	find "$dir" -exec touch -h -d "@$epoch" {} +
	dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/${name}_${debversion}_${arch}.deb" > /dev/null
	echo "deb $out/${name}_${debversion}_${arch}.deb"
}

# --- the runtime package
r=$tmp/$runtime
mkdir -p "$r/DEBIAN" "$r/$libdir"
install -m 644 build/lib/libsqlbatch.so "$r/$libdir/libsqlbatch.so.$version"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$r/$libdir/libsqlbatch.so.$version"
ln -s "libsqlbatch.so.$version" "$r/$libdir/$soname"
docs "$r" "$runtime"
echo "libsqlbatch $sover $runtime (>= $debversion)" > "$r/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$r/DEBIAN/triggers"
mkdir -p "$tmp/shlibdeps/debian"
printf 'Source: sqlbatch\n\nPackage: %s\nArchitecture: any\n' "$runtime" > "$tmp/shlibdeps/debian/control"
depends=$(cd "$tmp/shlibdeps" && dpkg-shlibdeps -O "$r/$libdir/libsqlbatch.so.$version" 2> /dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "$0: dpkg-shlibdeps found no dependency" >&2; exit 1; }
cat > "$r/DEBIAN/control" <<CONTROL
Package: $runtime
Source: sqlbatch
Version: $debversion
Architecture: $arch
Multi-Arch: same
Maintainer: $maintainer
Installed-Size: $(du -sk "$r/usr" | cut -f1)
Depends: $depends
Section: libs
Priority: optional
Homepage: $homepage
Description: batched C ABI over SQLite (shared library)
 sqlbatch is a library over SQLite (bundled: no system SQLite needed) whose C ABI
 does a whole batch of work per call: fetch many rows into memory read with plain
 loads, run a whole multi-statement script, or run a statement for many parameter
 rows.
 .
 This package contains the shared library.
CONTROL
finish "$r"

# --- the development package
d=$tmp/libsqlbatch-dev
mkdir -p "$d/DEBIAN" "$d/usr/include" "$d/$libdir/pkgconfig"
install -m 644 include/sqlbatch.h "$d/usr/include/sqlbatch.h"
install -m 644 build/lib/libsqlbatch.a "$d/$libdir/libsqlbatch.a"
strip --strip-debug "$d/$libdir/libsqlbatch.a"
ln -s "$soname" "$d/$libdir/libsqlbatch.so"
sed -e 's|@PREFIX@|/usr|' -e "s|@LIBDIR@|\${prefix}/lib/$multiarch|" -e "s|@VERSION@|$version|" \
	bindings/c/sqlbatch.pc.in > "$d/$libdir/pkgconfig/sqlbatch.pc"
docs "$d" libsqlbatch-dev
mkdir -p "$d/usr/share/doc/libsqlbatch-dev/examples"
install -m 644 bindings/c/examples/*.c "$d/usr/share/doc/libsqlbatch-dev/examples/"
cat > "$d/DEBIAN/control" <<CONTROL
Package: libsqlbatch-dev
Source: sqlbatch
Version: $debversion
Architecture: $arch
Multi-Arch: same
Maintainer: $maintainer
Installed-Size: $(du -sk "$d/usr" | cut -f1)
Depends: $runtime (= $debversion)
Section: libdevel
Priority: optional
Homepage: $homepage
Description: batched C ABI over SQLite (development files)
 sqlbatch is a library over SQLite (bundled: no system SQLite needed) whose C ABI
 does a whole batch of work per call: fetch many rows into memory read with plain
 loads, run a whole multi-statement script, or run a statement for many parameter
 rows.
 .
 This package contains the header, the static library, the pkg-config file
 (sqlbatch.pc) and example programs.
CONTROL
finish "$d"
