#!/bin/sh
# Regenerates include/sqlbatch.h from src/ with the cbindgen version pinned in Cargo.lock, and
# its copy in the Go module (bindings/go/internal/capi/sqlbatch.h).
set -eu
cd "$(dirname "$0")/.."
SQLBATCH_BLESS=1 cargo test --quiet --test header_in_sync header_matches_cbindgen_output
echo "include/sqlbatch.h (and bindings/go/internal/capi/sqlbatch.h) regenerated"
