/*
 * native.c: the loop a C programmer writes today, over the SQLite built into libsqlbatch.a
 * (the same build sqlbatch runs), opened with the same flags as sqlbatch (SQLITE_OPEN_NOMUTEX,
 * extended result codes). It mirrors c-native in benches/impls/c/bench.c, so that the Go
 * benchmarks can give ratios to it measured in the same process.
 *
 * SQLite's header is not on cgo's include path (it lives in libsqlite3-sys's build tree), so
 * the few declarations needed are written out here, with SQLite's values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "sqlbatch.h"

typedef struct sqlite3_stmt sqlite3_stmt;
typedef long long sqlite3_int64;
int sqlite3_open_v2(const char *, sqlite3 **, int, const char *);
int sqlite3_close(sqlite3 *);
int sqlite3_exec(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
const char *sqlite3_errmsg(sqlite3 *);
int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
int sqlite3_step(sqlite3_stmt *);
int sqlite3_reset(sqlite3_stmt *);
int sqlite3_finalize(sqlite3_stmt *);
int sqlite3_column_type(sqlite3_stmt *, int);
sqlite3_int64 sqlite3_column_int64(sqlite3_stmt *, int);
double sqlite3_column_double(sqlite3_stmt *, int);
const unsigned char *sqlite3_column_text(sqlite3_stmt *, int);
int sqlite3_column_bytes(sqlite3_stmt *, int);
int sqlite3_bind_int64(sqlite3_stmt *, int, sqlite3_int64);
int sqlite3_bind_double(sqlite3_stmt *, int, double);
int sqlite3_bind_text(sqlite3_stmt *, int, const char *, int, void (*)(void *));

#define SQLITE_OK 0
#define SQLITE_ROW 100
#define SQLITE_DONE 101
#define SQLITE_INTEGER 1
#define SQLITE_FLOAT 2
#define SQLITE_TEXT 3
#define SQLITE_BLOB 4
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_OPEN_CREATE 0x00000004
#define SQLITE_OPEN_NOMUTEX 0x00008000
#define SQLITE_OPEN_EXRESCODE 0x02000000
#define SQLITE_STATIC ((void (*)(void *))0)

#define OPEN_FLAGS (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE)

sqlite3 *nb_open(const char *path, const char **err) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, OPEN_FLAGS, NULL) != SQLITE_OK) {
    *err = db ? sqlite3_errmsg(db) : "out of memory";
    return NULL;
  }
  return db;
}

void nb_close(sqlite3 *db) { sqlite3_close(db); }

int nb_exec(sqlite3 *db, const char *sql, const char **err) {
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) *err = sqlite3_errmsg(db);
  return rc;
}

int nb_scalar2(sqlite3 *db, const char *sql, int64_t *a, int64_t *b) {
  sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    *a = sqlite3_column_int64(s, 0);
    *b = sqlite3_column_int64(s, 1);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(s);
  return rc;
}

/* Counts UTF-8 code points: bytes that are not continuation bytes. */
static int64_t code_points(const unsigned char *p, size_t n) {
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) k += (p[i] & 0xC0) != 0x80;
  return k;
}

int nb_fetch_narrow(sqlite3 *db, int64_t *count, int64_t *checksum) {
  sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, "SELECT id FROM testdata", -1, &s, NULL);
  if (rc != SQLITE_OK) return rc;
  int64_t n = 0, sum = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    sum += sqlite3_column_int64(s, 0);
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  *checksum = sum;
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int nb_fetch_wide(sqlite3 *db, int64_t *count, int64_t *checksum) {
  sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide", -1, &s, NULL);
  if (rc != SQLITE_OK) return rc;
  uint64_t sum = 0;
  int64_t n = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
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
  *checksum = (int64_t)sum;
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

struct nb_rows {
  size_t n;
  char *text;    /* all "row-<i>" strings back to back */
  uint32_t *at;  /* offset of row i's text */
  uint32_t *len; /* its length */
};

nb_rows *nb_make_rows(size_t n) {
  nb_rows *r = malloc(sizeof *r);
  if (!r) return NULL;
  r->n = n;
  r->text = malloc(n * 16 + 1);
  r->at = malloc((n + 1) * sizeof(uint32_t));
  r->len = malloc((n + 1) * sizeof(uint32_t));
  if (!r->text || !r->at || !r->len) {
    nb_free_rows(r);
    return NULL;
  }
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    int k = snprintf(r->text + used, 16, "row-%zu", i);
    r->at[i] = (uint32_t)used;
    r->len[i] = (uint32_t)k;
    used += (size_t)k;
  }
  return r;
}

void nb_free_rows(nb_rows *r) {
  if (!r) return;
  free(r->text);
  free(r->at);
  free(r->len);
  free(r);
}

int nb_bulk_insert(sqlite3 *db, const nb_rows *rows) {
  int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  if (rc != SQLITE_OK) return rc;
  sqlite3_stmt *s;
  rc = sqlite3_prepare_v2(db, "INSERT INTO bulk VALUES (?, ?, ?)", -1, &s, NULL);
  if (rc != SQLITE_OK) return rc;
  for (size_t i = 0; i < rows->n; i++) {
    sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
    sqlite3_bind_double(s, 2, (double)i * 0.25);
    sqlite3_bind_text(s, 3, rows->text + rows->at[i], (int)rows->len[i], SQLITE_STATIC);
    if ((rc = sqlite3_step(s)) != SQLITE_DONE) {
      sqlite3_finalize(s);
      return rc;
    }
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* The same fetches through the sqlbatch C ABI (c-sqlbatch in benches/impls/c/bench.c):
 * what the batched ABI costs before any Go is involved. */
sqlbatch_conn *nb_sb_open(const char *path) {
  sqlbatch_conn *c = NULL;
  if (sqlbatch_conn_open(path, strlen(path), 0, &c) != SQLBATCH_OK) {
    sqlbatch_conn_close(c);
    return NULL;
  }
  return c;
}

int nb_sb_fetch(sqlbatch_conn *c, int wide, int64_t *count, int64_t *checksum) {
  const char *q = wide ? "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide" : "SELECT id FROM testdata";
  sqlbatch_stmt *s = NULL;
  int32_t rc = sqlbatch_stmt_prepare(c, q, strlen(q), 0, &s, NULL);
  if (rc != SQLBATCH_OK) return rc;
  uint64_t sum = 0;
  int64_t n = 0;
  sqlbatch_batch b;
  do {
    rc = sqlbatch_stmt_fetch(s, 256, 256 * 1024, &b);
    if (rc != SQLBATCH_ROW && rc != SQLBATCH_DONE) break;
    const sqlbatch_value *v = b.cells, *end = b.cells + b.n_rows * b.n_cols;
    for (; v < end; v++) {
      switch (v->kind) {
        case SQLBATCH_INTEGER: sum += v->bits; break;
        case SQLBATCH_FLOAT: sum += (uint64_t)(int64_t)(sqlbatch_cell_double(v) * 1000.0); break;
        case SQLBATCH_TEXT: sum += (uint64_t)code_points(b.data + v->bits, v->len); break;
        case SQLBATCH_BLOB: sum += v->len; break;
        default: sum += 1;
      }
    }
    n += (int64_t)b.n_rows;
  } while (rc == SQLBATCH_ROW);
  sqlbatch_stmt_finalize(s);
  *count = n;
  *checksum = (int64_t)sum;
  return rc == SQLBATCH_DONE ? SQLBATCH_OK : rc;
}

/* bulk_insert through the sqlbatch C ABI, as c-sqlbatch in benches/impls/c/bench.c does it:
 * the values of every row built before the clock starts, one sqlbatch_stmt_execute_many. */
sqlbatch_value *nb_sb_make_values(const nb_rows *rows) {
  sqlbatch_value *v = calloc(rows->n * 3 + 1, sizeof *v);
  if (!v) return NULL;
  for (size_t i = 0; i < rows->n; i++) {
    double d = (double)i * 0.25;
    v[i * 3].kind = SQLBATCH_INTEGER;
    v[i * 3].bits = i;
    v[i * 3 + 1].kind = SQLBATCH_FLOAT;
    memcpy(&v[i * 3 + 1].bits, &d, sizeof d);
    v[i * 3 + 2].kind = SQLBATCH_TEXT;
    v[i * 3 + 2].bits = rows->at[i];
    v[i * 3 + 2].len = rows->len[i];
  }
  return v;
}

int nb_sb_exec(sqlbatch_conn *c, const char *sql) {
  return sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL, 0, NULL, 0, NULL);
}

int nb_sb_bulk_insert(sqlbatch_conn *c, const nb_rows *rows, const sqlbatch_value *values) {
  int32_t rc = nb_sb_exec(c, "BEGIN");
  if (rc != SQLBATCH_OK) return rc;
  const char *q = "INSERT INTO bulk VALUES (?, ?, ?)";
  sqlbatch_stmt *s = NULL;
  rc = sqlbatch_stmt_prepare(c, q, strlen(q), 0, &s, NULL);
  if (rc != SQLBATCH_OK) return rc;
  size_t data_len = rows->n ? rows->at[rows->n - 1] + rows->len[rows->n - 1] : 0;
  sqlbatch_write_result w;
  rc = sqlbatch_stmt_execute_many(s, values, rows->n, 3, (const uint8_t *)rows->text, data_len, &w);
  sqlbatch_stmt_finalize(s);
  if (rc != SQLBATCH_OK) return rc;
  return nb_sb_exec(c, "COMMIT");
}

/* The first row of a two-integer query, through the ABI. */
int nb_sb_scalar2(sqlbatch_conn *c, const char *sql, int64_t *a, int64_t *b) {
  sqlbatch_stmt *s = NULL;
  int32_t rc = sqlbatch_stmt_prepare(c, sql, strlen(sql), 0, &s, NULL);
  if (rc != SQLBATCH_OK) return rc;
  sqlbatch_batch batch;
  rc = sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &batch);
  if (rc == SQLBATCH_ROW || rc == SQLBATCH_DONE) {
    rc = batch.n_rows == 1 ? SQLBATCH_OK : SQLBATCH_E_INVALID_ARGUMENT;
    if (rc == SQLBATCH_OK) {
      *a = sqlbatch_cell_int64(&batch.cells[0]);
      *b = sqlbatch_cell_int64(&batch.cells[1]);
    }
  }
  sqlbatch_stmt_finalize(s);
  return rc;
}
