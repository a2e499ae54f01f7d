/*
 * The native C loop of hs-bench: benches/native/native_loop.c, the very source c-native of
 * benches/impls/c and the Go benchmarks run (included here, so that cabal compiles it as this
 * package's C source), under the names and signatures bench/Main.hs imports. It links the
 * SQLite that libsqlbatch is built with, from build/native/libsqlite3.a (the ld-options of the
 * hs-bench stanza; benches/README.md, "The native C baseline"), as do the per-row baselines of
 * bench/PerRow.hs, which call sqlite3_* themselves.
 */
#include "../../../../benches/native/native_loop.c"

sqlite3 *hs_native_open(const char *path) {
  const char *err = NULL;
  return nb_open(path, &err);
}

void hs_native_close(sqlite3 *db) { nb_close(db); }

/* SELECT id FROM testdata: returns the checksum (sum of id), *count the rows; -1 count on error. */
int64_t hs_native_fetch_narrow(sqlite3 *db, int64_t *count) {
  int64_t sum = 0;
  if (nb_fetch_narrow(db, count, &sum) != 0) *count = -1;
  return sum;
}

/* The fetch_wide checksum of benches/README.md; -1 count on error. */
int64_t hs_native_fetch_wide(sqlite3 *db, int64_t *count) {
  int64_t sum = 0;
  if (nb_fetch_wide(db, count, &sum) != 0) *count = -1;
  return sum;
}
