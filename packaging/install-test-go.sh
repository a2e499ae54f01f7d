#!/usr/bin/env bash
# The Go module installed as a user installs it, from the release's module proxy tree (make
# dist's build/dist/goproxy): in new modules in a temporary directory outside the repository,
# with cargo and rustc not on PATH, each program runs
#
#   go mod init example.com/NAME
#   go get github.com/sqlbatch/sqlbatch/bindings/go@vVERSION
#   go build
#
# with GOPROXY=file://.../goproxy,$(go env GOPROXY) (the module proxy for everything else)
# and GONOSUMDB for github.com/sqlbatch/sqlbatch, which the checksum database has never
# seen. The programs (bindings/go/testdata/install) use the database/sql driver, the
# low-level package, and the driver beside mattn/go-sqlite3 (`go get` of it too), all
# linked statically: no tag, no environment. The one beside mattn is also built as a fully
# static binary.
#
#   packaging/install-test-go.sh [PROXYDIR] [VERSION]   (defaults: build/dist/goproxy, Cargo.toml's)
#
# The module cache is a directory of its own (kept between runs, outside the repository, so
# that mattn/go-sqlite3 is downloaded and compiled once), from which sqlbatch's modules are
# removed first: a rebuilt release of the same version must not be taken from the cache.
# That proxy tree holds this platform's module only, so `go mod tidy`, which resolves every
# platform's module, is left out (a published release has them all).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
proxy=$(cd "${1:-$root/build/dist/goproxy}" && pwd)
version=${2:-$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)}
mod=github.com/sqlbatch/sqlbatch/bindings/go
mattn=$(sed -n 's/^[[:space:]]*\(github.com\/mattn\/go-sqlite3\) \(v[^ ]*\).*/\1@\2/p' "$root/benches/go/go.mod")
[ -f "$proxy/$mod/@v/v$version.zip" ] || { echo "$0: no $mod v$version in $proxy (make dist)" >&2; exit 1; }

export GOPROXY="file://$proxy,$(go env GOPROXY)"
export GONOSUMDB=github.com/sqlbatch/sqlbatch
export GOFLAGS=-modcacherw GOWORK=off GOTOOLCHAIN=local
export GOMODCACHE="${TMPDIR:-/tmp}/sqlbatch-install-test-gomodcache"
# The go command keeps an index of each module version's packages in its build cache and,
# since a version's content never changes in the real world, never checks it again: a release
# rebuilt at the same version with a new file would be compiled without it ("undefined:
# TableValue"). goindex=0 reads the module's directory instead.
export GODEBUG=goindex=0
unset CGO_CFLAGS CGO_LDFLAGS CGO_ENABLED GOOS GOARCH
rm -rf "$GOMODCACHE/github.com/sqlbatch" "$GOMODCACHE/cache/download/github.com/sqlbatch"
tmp=$(outside_tmp install-go)
trap 'rm -rf "$tmp"' EXIT
drop_rust_from_path

# build NAME [GO GET ARGS...]: a new module with testdata/install/NAME/main.go.
build() {
	local name=$1
	shift
	mkdir "$tmp/$name"
	cp "$root/bindings/go/testdata/install/$name/main.go" "$tmp/$name/"
	(
		cd "$tmp/$name"
		go mod init "example.com/$name" 2> /dev/null
		go get "$mod@v$version" 2>&1 | grep -v '^go: downloading' || true
		grep -q "^require $mod v$version\$\|^[[:space:]]$mod v$version" go.mod || { echo "$0: $name: go get did not add $mod v$version" >&2; exit 1; }
		for m in "$@"; do go get "$m" 2>&1 | grep -v '^go: downloading' || true; done
		go build -o "$name" .
	)
	# The modules in the cache are the release's.
	for m in "$mod" "$mod/lib/$(go env GOOS)-$(go env GOARCH)"; do
		cmp -s "$proxy/$m/@v/v$version.zip" "$GOMODCACHE/cache/download/$m/@v/v$version.zip" \
			|| { echo "$0: $name: $m v$version is not the one in $proxy" >&2; exit 1; }
	done
	needs_none "$tmp/$name/$name" libsqlbatch libsqlite3
}

check() { # NAME WANT [BINARY]
	local out
	out=$(cd / && "${3:-$tmp/$1/$1}")
	echo "$1: $out"
	[ "$out" = "$2" ] || { echo "$0: $1: want: $2" >&2; exit 1; }
}

build sql
check sql "database/sql: [Lyon 522000 Turin 848000]; again: UNIQUE constraint failed: city.name (unique: true)"
build lowlevel
out=$(cd / && "$tmp/lowlevel/lowlevel")
echo "lowlevel: $out"
case $out in
"sqlbatch $version (SQLite 3."*"): 1000 rows, id sum 499500, 7890 bytes of names") ;;
*) echo "$0: lowlevel: want sqlbatch $version, 1000 rows, id sum 499500, 7890 bytes" >&2; exit 1;;
esac
build beside "$mattn"
want="sqlbatch reads 200 rows, id sum 20100; mattn reads 200 rows, id sum 20100; separate SQLite libraries: true"
check beside "$want"
(cd "$tmp/beside" && go build -o beside-static -ldflags '-linkmode external -extldflags -static' . 2>&1 \
	| grep -v -e 'statically linked applications requires at runtime' -e 'in function' -e '^# ' || true)
[ -z "$(readelf -d "$tmp/beside/beside-static" 2> /dev/null | grep NEEDED)" ] || { echo "$0: beside-static is not a static binary" >&2; exit 1; }
check beside "$want" "$tmp/beside/beside-static"
echo "install-test-go: $mod@v$version from $proxy: 3 programs (database/sql, low-level, beside $mattn, also fully static) built and run with no Rust on PATH"
