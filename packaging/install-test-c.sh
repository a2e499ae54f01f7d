#!/usr/bin/env bash
# The C library installed as a user installs it, from make dist's artifacts, in a temporary
# directory outside the repository with cargo and rustc not on PATH:
#
#   deb       dpkg -i the runtime and development packages (as root, or with sudo), build
#             the installed example tour.c with `cc tour.c $(pkg-config --cflags --libs
#             sqlbatch)`, run it, check that it loads /usr/lib/MULTIARCH/libsqlbatch.so.N;
#             the packages are removed afterwards, whatever happened
#   tarball   unpack sqlbatch-VERSION-OS-ARCH.tar.gz into a prefix, build tour.c with
#             PKG_CONFIG_PATH=PREFIX/lib/pkgconfig the same way (and an rpath), and
#             statically with libsqlbatch.a and `pkg-config --static --libs`; run both
#
#   packaging/install-test-c.sh deb|tarball [DISTDIR]   (default build/dist)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mode=$1
dist=$(cd "${2:-$root/build/dist}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)
tmp=$(outside_tmp "install-$mode")
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
drop_rust_from_path
CC=${CC:-cc}

run_tour() { # BINARY: tour.c names the library's version first and the failed script last
	local out
	out=$(cd "$tmp" && "$1" 2> /dev/null)
	echo "$out" | sed -n "1p;\$p" | sed "s|^|  $(basename "$1"): |"
	case $out in
	"sqlbatch $version on SQLite 3."*"before the error, 1 statement(s) ran") ;;
	*) echo "$0: $1 did not print what tour.c prints with libsqlbatch $version" >&2; exit 1;;
	esac
}

case $mode in
deb)
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	debversion=${version//-/\~}
	runtime=$(cd "$dist" && ls libsqlbatch[0-9]*_"${debversion}"_*.deb)
	dev=$(cd "$dist" && ls libsqlbatch-dev_"${debversion}"_*.deb)
	for p in libsqlbatch-dev "${runtime%%_*}"; do
		if dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed'; then
			echo "$0: $p is installed already: not touching it" >&2; exit 1
		fi
	done
	cleanup() {
		$SUDO dpkg --purge libsqlbatch-dev "${runtime%%_*}" > /dev/null 2>&1 || true
		rm -rf "$tmp"
	}
	$SUDO dpkg -i "$dist/$runtime" "$dist/$dev"
	cp /usr/share/doc/libsqlbatch-dev/examples/tour.c "$tmp/"
	(cd "$tmp" && $CC -std=c99 -Wall -Werror tour.c $(pkg-config --cflags --libs sqlbatch) -o tour)
	so=$(ldd "$tmp/tour" | sed -n 's/.*libsqlbatch\.so[^ ]* => \([^ ]*\).*/\1/p')
	multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || gcc -print-multiarch)
	[ "$(readlink -f "$so")" = "/usr/lib/$multiarch/libsqlbatch.so.$version" ] \
		|| { echo "$0: tour loads '$so', want the package's /usr/lib/$multiarch/libsqlbatch.so.$version" >&2; exit 1; }
	run_tour "$tmp/tour"
	echo "install-test-c deb: $runtime and $dev installed, tour.c built with pkg-config against $so and run; removing them"
	;;
tarball)
	tarball=$(cd "$dist" && ls sqlbatch-"$version"-*.tar.gz)
	prefix=$tmp/prefix
	mkdir -p "$prefix"
	tar -xzf "$dist/$tarball" -C "$prefix" --strip-components=1
	export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
	[ "$(pkg-config --modversion sqlbatch)" = "$version" ] || { echo "$0: sqlbatch.pc is not version $version" >&2; exit 1; }
	cp "$prefix/share/doc/sqlbatch/examples/tour.c" "$tmp/"
	(cd "$tmp" && $CC -std=c99 -Wall -Werror tour.c $(pkg-config --cflags --libs sqlbatch) -Wl,-rpath,"$prefix/lib" -o tour)
	so=$(ldd "$tmp/tour" | sed -n 's/.*libsqlbatch\.so[^ ]* => \([^ ]*\).*/\1/p')
	case $so in "$prefix"/lib/libsqlbatch.so.*) ;; *) echo "$0: tour loads '$so', want the tarball's" >&2; exit 1;; esac
	run_tour "$tmp/tour"
	(cd "$tmp" && $CC -std=c99 -Wall -Werror tour.c $(pkg-config --cflags sqlbatch) "$prefix/lib/libsqlbatch.a" \
		$(pkg-config --static --libs-only-l sqlbatch | sed 's/-lsqlbatch//') -o tour-static)
	needs_none "$tmp/tour-static" libsqlbatch
	run_tour "$tmp/tour-static"
	echo "install-test-c tarball: $tarball unpacked into a prefix, tour.c built with pkg-config (shared: $so) and with libsqlbatch.a, both run"
	;;
*) echo "usage: $0 deb|tarball [DISTDIR]" >&2; exit 2;;
esac
