/*
 * native.c: the C side of the Go benchmarks' baselines.
 *
 * Native: the native C loop, benches/native/native_loop.c, the very source c-native of
 * benches/impls/c runs (cgo compiles only the .c files of the package directory, so it is
 * included here). It links the SQLite that libsqlbatch is built with, from
 * build/native/libsqlite3.a (see native.go's #cgo lines and benches/README.md, "The native C
 * baseline"), so that the Go benchmarks give ratios to it measured in the same process.
 *
 * CSqlbatch: the same work through the sqlbatch C ABI, below.
 */
#include <stdlib.h>
#include <string.h>

#include "../../native/native_loop.c"
#include "native.h"
#include "sqlbatch.h"

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
        case SQLBATCH_FLOAT: sum += (uint64_t)(int64_t)(sqlbatch_value_double(v) * 1000.0); break;
        case SQLBATCH_TEXT: sum += (uint64_t)nb_code_points(b.data + v->bits, v->len); break;
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
  return sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL);
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
  const sqlbatch_params p = {.values = values, .n_values = rows->n * 3, .data = (const uint8_t *)rows->text, .data_len = data_len};
  rc = sqlbatch_stmt_execute_many(s, &p, rows->n, &w);
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
      *a = sqlbatch_value_int64(&batch.cells[0]);
      *b = sqlbatch_value_int64(&batch.cells[1]);
    }
  }
  sqlbatch_stmt_finalize(s);
  return rc;
}
