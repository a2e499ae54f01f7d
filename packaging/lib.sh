# Shared by the install tests (sourced): a temporary directory outside the repository and a
# PATH without Rust, as a user who installs a release has.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# A new temporary directory, refused if it is inside the repository.
outside_tmp() {
	local t
	t=$(mktemp -d "${TMPDIR:-/tmp}/sqlbatch-$1.XXXXXX")
	case "$t/" in "$root"/*) echo "$0: $t is inside the repository" >&2; rm -rf "$t"; return 1;; esac
	echo "$t"
}

# PATH less every directory that holds cargo or rustc; fails if either is still found.
drop_rust_from_path() {
	local dir new=
	local IFS=:
	for dir in $PATH; do
		[ -n "$dir" ] || continue
		if [ -x "$dir/cargo" ] || [ -x "$dir/rustc" ]; then continue; fi
		new=${new:+$new:}$dir
	done
	PATH=$new
	export PATH
	if command -v cargo > /dev/null || command -v rustc > /dev/null; then
		echo "$0: cargo or rustc is still on PATH" >&2
		return 1
	fi
}

# Fails unless FILE's dynamic section needs none of the given libraries (by name prefix).
needs_none() {
	local file=$1 lib
	shift
	for lib in "$@"; do
		if readelf -d "$file" | grep NEEDED | grep -q "\[$lib"; then
			echo "$0: $file needs $lib, want it linked statically" >&2
			return 1
		fi
	done
}
