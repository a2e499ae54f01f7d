/* Batched fetch from C: every type, NULL vs empty, batch boundaries, byte bounds. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "sqlbatch.h" /* a second time: the header, inline helpers included, is idempotent */

static sqlbatch_value int_value(int64_t v) {
  sqlbatch_value x = {0};
  x.bits = (uint64_t)v;
  x.kind = SQLBATCH_INTEGER;
  return x;
}

static sqlbatch_value float_value(double d) {
  sqlbatch_value x = {0};
  memcpy(&x.bits, &d, sizeof d);
  x.kind = SQLBATCH_FLOAT;
  return x;
}

/* TEXT or BLOB given by address: bound with SQLBATCH_PARAMS_ADDRESSES (see round_trip). */
static sqlbatch_value bytes_value(uint8_t kind, const void *p, uint32_t len) {
  sqlbatch_value x = {0};
  x.bits = (uint64_t)(uintptr_t)p;
  x.len = len;
  x.kind = kind;
  return x;
}

/* Inserts one value through bind + fetch and reads it back through a fetch. */
static bool round_trip(sqlbatch_conn *c, sqlbatch_value in, sqlbatch_value *out, const uint8_t **bytes) {
  sqlbatch_stmt *ins = NULL, *sel = NULL;
  sqlbatch_batch b;
  CHECK_RC(c, exec(c, "DELETE FROM v"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO v VALUES (?)", &ins), SQLBATCH_OK);
  sqlbatch_params p = params_of(&in, 1, NULL, 0);
  p.flags = SQLBATCH_PARAMS_ADDRESSES;
  CHECK_RC(c, sqlbatch_stmt_bind(ins, &p), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(ins, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  sqlbatch_stmt_finalize(ins);
  CHECK_RC(c, prepare(c, "SELECT x FROM v", &sel), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(sel, 8, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 1 && b.n_cols == 1);
  *out = b.cells[0];
  if (bytes) {
    /* Copy the bytes out: the batch dies with the statement. */
    uint8_t *copy = malloc(out->len + 1);
    CHECK(copy != NULL);
    memcpy(copy, sqlbatch_batch_bytes(&b, &b.cells[0]), out->len);
    *bytes = copy;
  }
  sqlbatch_stmt_finalize(sel);
  return true;
}

static bool test_numbers_round_trip(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_value out;
  const int64_t ints[] = {0, 1, -1, INT64_MIN, INT64_MAX};
  const double reals[] = {0.0, -0.0, 1.5, -2.25e300, 5e-324, INFINITY, -INFINITY};
  CHECK_RC(c, exec(c, "CREATE TABLE v(x)"), SQLBATCH_OK);
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    CHECK(round_trip(c, int_value(ints[i]), &out, NULL));
    CHECK(out.kind == SQLBATCH_INTEGER && sqlbatch_value_int64(&out) == ints[i]);
  }
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
    CHECK(round_trip(c, float_value(reals[i]), &out, NULL));
    double d = sqlbatch_value_double(&out);
    CHECK(out.kind == SQLBATCH_FLOAT);
    CHECK(memcmp(&d, &reals[i], sizeof d) == 0); /* bit-exact: keeps -0.0 */
  }
  /* SQLite stores a NaN as NULL. */
  CHECK(round_trip(c, float_value(NAN), &out, NULL));
  CHECK(out.kind == SQLBATCH_NULL);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_text_and_blobs_round_trip(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_value out;
  const uint8_t *got = NULL;
  const char unicode[] = "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9d\x84\x9e";
  const char with_nul[] = {'a', 0, 'b', 0};
  size_t big_len = 1u << 20;
  uint8_t *big = malloc(big_len);
  CHECK(big != NULL);
  for (size_t i = 0; i < big_len; i++) big[i] = (uint8_t)(i * 31);
  CHECK_RC(c, exec(c, "CREATE TABLE v(x)"), SQLBATCH_OK);

  CHECK(round_trip(c, bytes_value(SQLBATCH_TEXT, unicode, (uint32_t)strlen(unicode)), &out, &got));
  CHECK(out.kind == SQLBATCH_TEXT && out.len == strlen(unicode) && memcmp(got, unicode, out.len) == 0);
  free((void *)got);
  CHECK(round_trip(c, bytes_value(SQLBATCH_TEXT, with_nul, 4), &out, &got));
  CHECK(out.kind == SQLBATCH_TEXT && out.len == 4 && memcmp(got, with_nul, 4) == 0);
  free((void *)got);
  CHECK(round_trip(c, bytes_value(SQLBATCH_TEXT, "", 0), &out, NULL));
  CHECK(out.kind == SQLBATCH_TEXT && out.len == 0);
  CHECK(round_trip(c, bytes_value(SQLBATCH_BLOB, NULL, 0), &out, NULL));
  CHECK(out.kind == SQLBATCH_BLOB && out.len == 0);
  CHECK(round_trip(c, bytes_value(SQLBATCH_BLOB, big, (uint32_t)big_len), &out, &got));
  CHECK(out.kind == SQLBATCH_BLOB && out.len == big_len && memcmp(got, big, big_len) == 0);
  free((void *)got);
  free(big);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_null_empty_text_and_empty_blob_differ(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  CHECK_RC(c, prepare(c, "SELECT NULL, '', x''", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 1 && b.n_cols == 3);
  CHECK(b.cells[0].kind == SQLBATCH_NULL);
  CHECK(b.cells[1].kind == SQLBATCH_TEXT && b.cells[1].len == 0);
  CHECK(b.cells[2].kind == SQLBATCH_BLOB && b.cells[2].len == 0);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* Counts rows and checks they come in order through batches of `max_rows`. */
static bool stream(sqlbatch_conn *c, size_t max_rows, size_t max_bytes, int64_t want_rows, int *calls) {
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  int64_t next = 1;
  int32_t rc;
  *calls = 0;
  CHECK_RC(c, prepare(c, "SELECT i, s FROM n ORDER BY i", &s), SQLBATCH_OK);
  do {
    rc = sqlbatch_stmt_fetch(s, max_rows, max_bytes, &b);
    (*calls)++;
    CHECK(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE);
    CHECK(b.n_rows <= max_rows);
    for (size_t r = 0; r < b.n_rows; r++) {
      char want[32];
      const sqlbatch_value *text = sqlbatch_batch_cell(&b, r, 1);
      CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, r, 0)) == next);
      snprintf(want, sizeof want, "row %lld", (long long)next);
      CHECK(text->len == strlen(want) && memcmp(sqlbatch_batch_bytes(&b, text), want, text->len) == 0);
      next++;
    }
  } while (rc == SQLBATCH_ROW);
  CHECK(next - 1 == want_rows);
  /* Done stays done. */
  CHECK_RC(c, sqlbatch_stmt_fetch(s, max_rows, max_bytes, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 0);
  sqlbatch_stmt_finalize(s);
  return true;
}

static bool fill_numbers(sqlbatch_conn *c, int n) {
  char sql[256];
  CHECK_RC(c, exec(c, "DROP TABLE IF EXISTS n; CREATE TABLE n(i INTEGER PRIMARY KEY, s TEXT)"), SQLBATCH_OK);
  snprintf(sql, sizeof sql,
           "WITH RECURSIVE k(i) AS (SELECT 1 WHERE %d > 0 UNION ALL SELECT i + 1 FROM k WHERE i < %d) "
           "INSERT INTO n SELECT i, 'row ' || i FROM k",
           n, n);
  CHECK_RC(c, exec(c, sql), SQLBATCH_OK);
  return true;
}

static bool test_batches_of_zero_exactly_n_and_n_plus_one(void) {
  sqlbatch_conn *c = open_memory();
  int calls;
  CHECK(fill_numbers(c, 0));
  CHECK(stream(c, 16, SIZE_MAX, 0, &calls) && calls == 1);
  CHECK(fill_numbers(c, 16));
  CHECK(stream(c, 16, SIZE_MAX, 16, &calls) && calls == 1); /* DONE comes with the last row */
  CHECK(fill_numbers(c, 17));
  CHECK(stream(c, 16, SIZE_MAX, 17, &calls) && calls == 2);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_results_larger_than_the_byte_bound_stream(void) {
  sqlbatch_conn *c = open_memory();
  int calls;
  CHECK(fill_numbers(c, 50000));
  CHECK(stream(c, SIZE_MAX, 8192, 50000, &calls));
  CHECK(calls > 50000 * 32 / 8192);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_fetch_into_a_caller_buffer(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  uint8_t small[4], big[64];
  CHECK_RC(c, prepare(c, "SELECT 'abcdefgh' UNION ALL SELECT 'ij'", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch_into(s, 10, small, sizeof small, &b), SQLBATCH_E_BUFFER_TOO_SMALL);
  CHECK(b.n_rows == 0 && b.data_len == 8);
  CHECK_RC(c, sqlbatch_stmt_fetch_into(s, 10, big, sizeof big, &b), SQLBATCH_DONE);
  CHECK(b.data == NULL && b.n_rows == 2); /* the bytes are in `big`, at each cell's offset */
  CHECK(memcmp(big + b.cells[0].bits, "abcdefgh", 8) == 0 && memcmp(big + b.cells[1].bits, "ij", 2) == 0);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* Every array the library hands out is NULL when it is empty. The out-parameters start as a
 * non-NULL sentinel, so that a call that leaves them alone fails the test too. */
static bool test_empty_arrays_are_null(void) {
  static const sqlbatch_value sentinel_cell = {0};
  static const uint8_t sentinel_byte = 0;
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  const sqlbatch_column *cols = (const sqlbatch_column *)&sentinel_cell;
  const sqlbatch_str *names = (const sqlbatch_str *)&sentinel_cell;
  size_t n = 99;
  uint8_t buf[16];

  /* An empty result: no cells, no bytes. */
  CHECK_RC(c, prepare(c, "SELECT 1, 'x' WHERE 0", &s), SQLBATCH_OK);
  b.cells = &sentinel_cell;
  b.data = &sentinel_byte;
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 16, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 0 && b.n_cols == 2);
  CHECK(b.cells == NULL && b.data == NULL && b.data_len == 0);
  /* ... also for the DONE that follows DONE, and through fetch_into. */
  b.cells = &sentinel_cell;
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 16, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 0 && b.cells == NULL && b.data == NULL);
  CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
  b.cells = &sentinel_cell;
  CHECK_RC(c, sqlbatch_stmt_fetch_into(s, 16, buf, sizeof buf, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 0 && b.cells == NULL && b.data == NULL);
  sqlbatch_stmt_finalize(s);

  /* Rows without bytes (numbers, NULL, empty text, empty blob): cells, but no data. */
  CHECK_RC(c, prepare(c, "SELECT 1, 2.5, NULL, '', x'' UNION ALL SELECT 2, 3.5, NULL, '', x''", &s), SQLBATCH_OK);
  b.data = &sentinel_byte;
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 16, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 2 && b.n_cols == 5 && b.cells != NULL);
  CHECK(b.data == NULL && b.data_len == 0);
  CHECK(b.cells[3].kind == SQLBATCH_TEXT && b.cells[3].len == 0 && sqlbatch_batch_bytes(&b, &b.cells[3]) == NULL);
  CHECK(b.cells[4].kind == SQLBATCH_BLOB && b.cells[4].len == 0);
  /* A statement without parameters has a NULL parameter array; this one has columns. */
  CHECK_RC(c, sqlbatch_stmt_params(s, &names, &n), SQLBATCH_OK);
  CHECK(n == 0 && names == NULL);
  CHECK_RC(c, sqlbatch_stmt_columns(s, &cols, &n), SQLBATCH_OK);
  CHECK(n == 5 && cols != NULL && cols[0].name.ptr != NULL);
  sqlbatch_stmt_finalize(s);

  /* Statements without columns: DDL, DML without RETURNING, and an empty statement. */
  const char *no_columns[] = {"CREATE TABLE t(x)", "-- only a comment", ""};
  for (size_t i = 0; i < sizeof no_columns / sizeof no_columns[0]; i++) {
    cols = (const sqlbatch_column *)&sentinel_cell;
    names = (const sqlbatch_str *)&sentinel_cell;
    n = 99;
    CHECK_RC(c, prepare(c, no_columns[i], &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_columns(s, &cols, &n), SQLBATCH_OK);
    CHECK(n == 0 && cols == NULL);
    n = 99;
    CHECK_RC(c, sqlbatch_stmt_params(s, &names, &n), SQLBATCH_OK);
    CHECK(n == 0 && names == NULL);
    b.cells = &sentinel_cell;
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 16, SIZE_MAX, &b), SQLBATCH_DONE);
    CHECK(b.n_rows == 0 && b.n_cols == 0 && b.cells == NULL && b.data == NULL);
    sqlbatch_stmt_finalize(s);
  }
  /* Parameters but no columns: a non-NULL parameter array, a NULL column array. */
  CHECK_RC(c, prepare(c, "INSERT INTO t VALUES (:x)", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_params(s, &names, &n), SQLBATCH_OK);
  CHECK(n == 1 && names != NULL && names[0].len == 2 && memcmp(names[0].ptr, ":x", 2) == 0);
  CHECK_RC(c, sqlbatch_stmt_columns(s, &cols, &n), SQLBATCH_OK);
  CHECK(n == 0 && cols == NULL);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* param_index writes a size_t, and a name without its prefix matches :x, then @x, then $x. */
static bool test_param_index(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  size_t i = 99;
  CHECK_RC(c, prepare(c, "SELECT @b, :a, $c, ?9", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_param_index(s, ":a", 2, &i), SQLBATCH_OK);
  CHECK(i == 2);
  CHECK_RC(c, sqlbatch_stmt_param_index(s, "a", 1, &i), SQLBATCH_OK);
  CHECK(i == 2);
  CHECK_RC(c, sqlbatch_stmt_param_index(s, "b", 1, &i), SQLBATCH_OK);
  CHECK(i == 1);
  CHECK_RC(c, sqlbatch_stmt_param_index(s, "c", 1, &i), SQLBATCH_OK);
  CHECK(i == 3);
  CHECK_RC(c, sqlbatch_stmt_param_index(s, "?9", 2, &i), SQLBATCH_OK);
  CHECK(i == 9);
  CHECK_RC(c, sqlbatch_stmt_param_index(s, ":b", 2, &i), SQLBATCH_OK); /* a prefix matches only itself */
  CHECK(i == 0);
  i = 99;
  CHECK_RC(c, sqlbatch_stmt_param_index(s, "zz", 2, &i), SQLBATCH_OK);
  CHECK(i == 0);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

int main(void) {
  RUN(test_numbers_round_trip);
  RUN(test_text_and_blobs_round_trip);
  RUN(test_null_empty_text_and_empty_blob_differ);
  RUN(test_batches_of_zero_exactly_n_and_n_plus_one);
  RUN(test_results_larger_than_the_byte_bound_stream);
  RUN(test_fetch_into_a_caller_buffer);
  RUN(test_empty_arrays_are_null);
  RUN(test_param_index);
  return finish();
}
