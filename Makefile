# sqlbatch: build, test, benchmark and install.
#
#   make test       everything the README's test command runs (after scripts/setup.sh)
#   make bench      the cross-language benchmark table (the README's main command), published
#                   to benches/results and README.md's summary table
#   make install PREFIX=/usr/local   header, libraries and pkg-config file
#   make dist       the release artifacts of this platform in build/dist (packaging/dist.sh)
#   make fuzz FUZZTIME=600   a long libFuzzer run, FUZZTIME seconds per target (fuzz/README.md)
#
# Each binding has its own Makefile with `build` and `test` targets; this one calls them.

SHELL := /bin/bash
PREFIX ?= /usr/local
CARGO ?= cargo
# ENCRYPTION=1 builds the encrypted variant (SQLCipher in place of SQLite, docs/encryption.md):
# its own cargo target directory and its own build/lib-encrypted, so that the two builds
# never overwrite each other; `make install ENCRYPTION=1` installs it.
ifeq ($(ENCRYPTION),1)
LIB_DIR := build/lib-encrypted
CARGO_LIB := --features encryption --target-dir target/encrypted
CARGO_OUT := target/encrypted/release
else
LIB_DIR := build/lib
CARGO_LIB :=
CARGO_OUT := target/release
endif

.PHONY: all setup lib test-encryption dist test-lib-path test-dist test-abi test test-rust test-c test-go test-haskell test-valgrind test-tsan test-fuzz fuzz bench bench-core install clean \
  test-durability test-durability-long test-soak test-soak-long

all: lib

setup:
	./scripts/setup.sh

# What every consumer in the repository links (the Go and Haskell bindings, the C tests and
# examples, the benches) is build/lib, a directory cargo never writes:
#   build/lib/libsqlbatch.a   cargo's archive processed by scripts/hide-symbols.sh, so that it
#                             defines no global symbol but sqlbatch_* (SQLite and Rust's std
#                             become local, and a program can link it beside another SQLite or
#                             another Rust library); rewritten only when cargo's changed
#   build/lib/libsqlbatch.so  a copy of cargo's, and the link named by its SONAME
#                             (libsqlbatch.so.N -> libsqlbatch.so) that programs linked with
#                             -Lbuild/lib -lsqlbatch ask the dynamic loader for
# Both keep their debug line tables (for profiling and valgrind's reports). cargo puts its
# unprocessed archive back at target/release/libsqlbatch.a on every build, so nothing links
# that one (test-lib-path runs a plain cargo build after make lib, then links a Go program
# with sqlbatch beside mattn/go-sqlite3).
lib:
	@mkdir -p $(LIB_DIR)
	$(CARGO) build --release --lib $(CARGO_LIB)
	./scripts/hide-symbols.sh $(CARGO_OUT)/libsqlbatch.a $(LIB_DIR)/libsqlbatch.a
	@cmp -s $(CARGO_OUT)/libsqlbatch.so $(LIB_DIR)/libsqlbatch.so || { \
	  cp $(CARGO_OUT)/libsqlbatch.so $(LIB_DIR)/.libsqlbatch.so.tmp && mv -f $(LIB_DIR)/.libsqlbatch.so.tmp $(LIB_DIR)/libsqlbatch.so; }
	@soname=$$(readelf -d $(LIB_DIR)/libsqlbatch.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'); \
	  test -n "$$soname" || { echo "libsqlbatch.so has no SONAME" >&2; exit 1; }; \
	  test "$$(readlink $(LIB_DIR)/$$soname 2>/dev/null)" = libsqlbatch.so || ln -sfn libsqlbatch.so $(LIB_DIR)/$$soname

# The Rust tests run twice: as they are, and in fetch-ahead mode (SQLBATCH_TEST_AHEAD=1: every
# connection of the test kit fetches ahead and its bulk writes go through write-behind, so that
# the differential, fault and misuse tests check both modes with the same assertions).
test-rust:
	$(CARGO) test --release
	SQLBATCH_TEST_AHEAD=1 $(CARGO) test --release --tests
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings

# ThreadSanitizer over the tests of what runs on two threads at once (fetch-ahead and
# write-behind, interrupts from another thread), in both modes: the standard library rebuilt
# with TSan (-Zbuild-std; RUSTC_BOOTSTRAP=1 lets stable accept the -Z flags, as for the fuzz
# targets; rust-src comes from setup), SQLite compiled with it too (CC/CFLAGS reach the cc
# crate); then the C tests of the same (tests/c's test-tsan). tests/tsan.supp lists the races
# SQLite means (its lock-free fast paths).
TSAN_TESTS := capi_ahead concurrency
TSAN_ENV := RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Zsanitizer=thread CC=clang CFLAGS=-fsanitize=thread \
  TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1"
TSAN_CARGO := $(CARGO) test -Zbuild-std --target x86_64-unknown-linux-gnu --target-dir target/tsan --release \
  $(patsubst %,--test %,$(TSAN_TESTS))
test-tsan:
	$(TSAN_ENV) $(TSAN_CARGO)
	$(TSAN_ENV) SQLBATCH_TEST_AHEAD=1 $(TSAN_CARGO)
	$(MAKE) -C tests/c test-tsan

# The encrypted variant (ENCRYPTION=1): the whole Rust suite on SQLCipher's amalgamation
# (tests/encryption.rs among them, with files read and written by Debian's sqlcipher shell),
# then the C example and the Go and Haskell bindings' tests of keys, on build/lib-encrypted
# (the C example without valgrind: each key derivation is 256,000 PBKDF2 rounds).
test-encryption:
	$(MAKE) --no-print-directory lib ENCRYPTION=1
	SQLBATCH_REQUIRE_SQLCIPHER_SHELL=1 $(CARGO) test --release --features encryption --target-dir target/encrypted
	$(MAKE) -C bindings/c encrypted LIB=$(CURDIR)/build/lib-encrypted VALGRIND=
	$(MAKE) -C bindings/go test-encryption
	$(MAKE) -C bindings/haskell test-encryption

test-c: lib
	$(MAKE) -C tests/c test
	$(MAKE) -C bindings/c test

test-go: lib
	$(MAKE) -C bindings/go test
	$(MAKE) test-lib-path

# A plain `cargo build --release` after `make lib` puts cargo's unprocessed archive back in
# target/release (SQLite's symbols global again: checked, or the test would prove nothing);
# since nothing links that one, a Go program with sqlbatch beside mattn/go-sqlite3 still links.
test-lib-path: lib
	$(CARGO) build --release
	@if ./scripts/hide-symbols.sh --check target/release/libsqlbatch.a > /dev/null 2>&1; then \
	  echo "target/release/libsqlbatch.a defines only sqlbatch_*: this test would prove nothing" >&2; exit 1; fi
	$(MAKE) -C benches/go test-linkbeside

test-haskell: lib
	$(MAKE) -C bindings/haskell test

# Crash durability (tests/durability): writers through every write path killed with SIGKILL
# at random moments, and power losses played after a kill, each checked for integrity and for
# every acknowledged transaction; the short run 400 kills and 200 power losses, the long one
# 5,000 and 2,500 (tests/README.md).
test-durability: lib
	$(MAKE) -C tests/durability test

test-durability-long: lib
	$(MAKE) -C tests/durability test-long

# The Go driver's soak test: 64 goroutines on one *sql.DB, then leaks, lost writes and errors
# checked; 20 s under the race detector and 25 s without in the short run, 10 minutes in the
# long one.
test-soak: lib
	$(MAKE) -C bindings/go soak

test-soak-long: lib
	$(MAKE) -C bindings/go soak-long

# The Rust ABI tests once more under valgrind memcheck (not differential.rs, whose 1M cells
# would take long, nor the 100 MiB and 1 GiB values or the 100,000-statement scripts); any
# error or definite leak fails. --fair-sched=yes: valgrind runs one thread at a time, and its
# default lock can starve a thread (the interrupting thread of the interrupt tests) until the
# busy one ends.
VALGRIND_TESTS := capi_ahead capi_conn capi_fetch capi_script capi_direct_reads capi_functions capi_backup capi_blob capi_config capi_hooks capi_update_batched capi_session capi_rows capi_vtab faults misuse concurrency
test-valgrind:
	@set -e; for t in $(VALGRIND_TESTS); do \
	  bin=$$($(CARGO) test --release --test $$t --no-run 2>&1 | sed -n 's/.*Executable.*(\(.*\))/\1/p'); \
	  echo "== $$t under valgrind"; start=$$SECONDS; \
	  valgrind -q --fair-sched=yes --error-exitcode=99 --leak-check=full --show-possibly-lost=no --errors-for-leak-kinds=definite,indirect \
	    $$bin --test-threads=1 --skip 100_mib --skip over_sqlites_length_limit --skip 100000 2>&1 | grep -v '^test .* ok$$'; \
	  test $${PIPESTATUS[0]} -eq 0; echo "   ($$((SECONDS - start)) s)"; \
	done

# A short run of the libFuzzer targets (30 s each: their committed corpora, then new inputs),
# and of the Go binding's FuzzQuery (its FuzzExecScript runs in test-go), by count of inputs
# (about 10 s): Go 1.26's fuzz coordinator can report a spurious "context deadline exceeded"
# when a duration -fuzztime expires on a loaded machine (golang/go#75804, fixed in Go 1.27),
# which a count avoids. CGO_CFLAGS carries
# a digest of libsqlbatch.a so that Go relinks when it changes (as bindings/go/Makefile does).
GO_FUZZ_ENV = CGO_CFLAGS="-O2 -g -DSQLBATCH_LIB_DIGEST=$$(sha256sum $(CURDIR)/$(LIB_DIR)/libsqlbatch.a | cut -c1-16)"
test-fuzz: lib
	$(MAKE) -C fuzz test
	cd bindings/go && $(GO_FUZZ_ENV) go test -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime 30000x .

FUZZTIME ?= 600
fuzz: lib
	$(MAKE) -C fuzz run FUZZTIME=$(FUZZTIME)
	cd bindings/go && $(GO_FUZZ_ENV) go test -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME)s .

# The release artifacts (make dist, built once) installed as a user installs them, each in a
# temporary directory outside the repository with no cargo or rustc on PATH: the Go module
# with `go get` from the module proxy tree, the Debian packages with dpkg -i (removed after),
# the tarball unpacked into a prefix, the Haskell package from its local package repository
# against that tarball (packaging/install-test-*.sh).
test-dist: dist
	./packaging/install-test-go.sh
	./packaging/install-test-c.sh deb
	./packaging/install-test-c.sh tarball
	./packaging/install-test-haskell.sh

# The ABI against the baseline committed for the library's SONAME (abi/check.sh: abidiff of
# the exported symbols and of the header's types, and the header's constants).
test-abi: lib
	./abi/check.sh

test: setup test-rust test-encryption test-valgrind test-tsan test-c test-go test-haskell test-durability test-soak test-fuzz test-dist test-abi

# Runs every implementation on every workload, the encrypted rows too (the first run builds the
# encrypted library, OpenSSL included), prints the table and publishes it: benches/results/
# (latest.txt, .svg, .jsonl, summary.md) and the summary table in README.md.
bench: setup lib
	./benches/run --publish --all $(BENCH_ARGS)

# The core's criterion groups (native_c vs sqlbatch), then their ratios.
bench-core:
	$(CARGO) bench --bench core
	python3 benches/criterion/ratios.py

# The shared library goes in under its full version, libsqlbatch.so.X.Y.Z, with the links
# libsqlbatch.so.X (its SONAME, what programs load; build.rs sets it) and libsqlbatch.so (what
# -lsqlbatch finds); both libraries without debug info (in build/lib they keep it, for
# profiling).
# PC_PREFIX is the prefix sqlbatch.pc names: PREFIX, or for a tree that may be moved (the
# release tarball) ${pcfiledir}/../.., which pkg-config resolves from where the file is.
VERSION = $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
PC_PREFIX ?= $(PREFIX)
install: lib
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/sqlbatch.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIB_DIR)/libsqlbatch.a $(DESTDIR)$(PREFIX)/lib/libsqlbatch.a.tmp
	strip --strip-debug $(DESTDIR)$(PREFIX)/lib/libsqlbatch.a.tmp
	mv -f $(DESTDIR)$(PREFIX)/lib/libsqlbatch.a.tmp $(DESTDIR)$(PREFIX)/lib/libsqlbatch.a
	install -m 755 -s $(LIB_DIR)/libsqlbatch.so $(DESTDIR)$(PREFIX)/lib/libsqlbatch.so.$(VERSION)
	soname=$$(readelf -d $(LIB_DIR)/libsqlbatch.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'); \
	  test -n "$$soname" && ln -sfn libsqlbatch.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$$soname && \
	  ln -sfn $$soname $(DESTDIR)$(PREFIX)/lib/libsqlbatch.so
	sed -e 's|@PREFIX@|$(PC_PREFIX)|' -e 's|@LIBDIR@|$${exec_prefix}/lib|' -e 's|@VERSION@|$(VERSION)|' \
	  bindings/c/sqlbatch.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/sqlbatch.pc

# The release artifacts of this platform, with the version from Cargo.toml, in build/dist: a
# Go module proxy tree (goproxy/), sqlbatch-VERSION-OS-ARCH.tar.gz, the Debian packages, and
# the Haskell package (hackage/). What each holds: packaging/dist.sh.
dist: lib
	./packaging/dist.sh

clean:
	$(CARGO) clean
	rm -rf build
