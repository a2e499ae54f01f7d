/*
 * The native C loop of hs-bench: what a C programmer writes today (sqlite3_step +
 * sqlite3_column_*), calling the SQLite built into libsqlbatch.a, opened with the same flags
 * as sqlbatch and benches/impls/c (SQLITE_OPEN_NOMUTEX, extended result codes). The loops are
 * those of benches/impls/c/bench.c (n_fetch_narrow, n_fetch_wide), so the checksums agree.
 */
#include <stdint.h>
#include <stddef.h>

#include "sqlite3.h"

#define OPEN_FLAGS (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE)

sqlite3 *hs_native_open(const char *path) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, OPEN_FLAGS, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

void hs_native_close(sqlite3 *db) { sqlite3_close(db); }

/* Counts UTF-8 code points: bytes that are not continuation bytes. */
static int64_t code_points(const unsigned char *p, size_t n) {
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) k += (p[i] & 0xC0) != 0x80;
  return k;
}

/* SELECT id FROM testdata: returns the checksum (sum of id), *count the rows; -1 count on error. */
int64_t hs_native_fetch_narrow(sqlite3 *db, int64_t *count) {
  sqlite3_stmt *s;
  int64_t sum = 0, n = 0;
  *count = -1;
  if (sqlite3_prepare_v2(db, "SELECT id FROM testdata", -1, &s, NULL) != SQLITE_OK) return 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    sum += sqlite3_column_int64(s, 0);
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  return sum;
}

/* The fetch_wide checksum of benches/README.md. */
int64_t hs_native_fetch_wide(sqlite3 *db, int64_t *count) {
  sqlite3_stmt *s;
  uint64_t sum = 0;
  int64_t n = 0;
  *count = -1;
  if (sqlite3_prepare_v2(db, "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide", -1, &s, NULL) != SQLITE_OK)
    return 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int c = 0; c < 10; c++) {
      switch (sqlite3_column_type(s, c)) {
        case SQLITE_INTEGER: sum += (uint64_t)sqlite3_column_int64(s, c); break;
        case SQLITE_FLOAT: sum += (uint64_t)(int64_t)(sqlite3_column_double(s, c) * 1000.0); break;
        case SQLITE_TEXT: {
          const unsigned char *p = sqlite3_column_text(s, c);
          sum += (uint64_t)code_points(p, (size_t)sqlite3_column_bytes(s, c));
          break;
        }
        case SQLITE_BLOB: sum += (uint64_t)sqlite3_column_bytes(s, c); break;
        default: sum += 1;
      }
    }
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  return (int64_t)sum;
}
