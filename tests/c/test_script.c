/* Script exec and bulk write from C. */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

static bool test_script_error_in_the_middle(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_exec_result r;
  sqlbatch_error e;
  const char *sql =
      "CREATE TABLE t(a PRIMARY KEY);\n"
      "INSERT INTO t VALUES (1);\n"
      "INSERT INTO t VALUES (1);\n"
      "INSERT INTO t VALUES (2);\n";
  int32_t rc = sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL, 0, NULL, 0, &r);
  CHECK((rc & 0xff) == 19); /* SQLITE_CONSTRAINT */
  CHECK(r.statements == 2 && r.changes == 1);
  CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
  CHECK(e.code == rc && e.primary_code == 19);
  CHECK(e.statement_index == 2);
  CHECK(e.statement_offset == (int64_t)(strstr(sql, "INSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2)") - sql));
  CHECK(strstr(e.message, "UNIQUE constraint failed") != NULL);
  CHECK(strlen(e.message) == e.message_len);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_script_with_parameters_and_trailing_comment(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_exec_result r;
  sqlbatch_value v[3] = {{0}};
  const char *text = "hello";
  const char *sql = "CREATE TABLE t(a, b); INSERT INTO t VALUES (?, ?); DELETE FROM t WHERE a = ?; -- foo";
  v[0].kind = SQLBATCH_INTEGER;
  v[0].bits = 7;
  v[1].kind = SQLBATCH_TEXT;
  v[1].bits = 0; /* offset into `data` */
  v[1].len = 5;
  v[2].kind = SQLBATCH_INTEGER;
  v[2].bits = 8;
  CHECK_RC(c, sqlbatch_conn_exec(c, sql, strlen(sql), v, NULL, 3, (const uint8_t *)text, 5, &r), SQLBATCH_OK);
  CHECK(r.statements == 3 && r.params_used == 3 && r.changes == 1 && r.last_insert_rowid == 1);
  CHECK(r.end_offset == strlen(sql));
  sqlbatch_conn_close(c);
  return true;
}

static bool test_bulk_insert(void) {
  enum { N = 100000 };
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL, *q = NULL;
  sqlbatch_write_result w;
  sqlbatch_batch b;
  sqlbatch_value *rows = calloc(N * 3, sizeof *rows);
  char *data = malloc(N * 16);
  size_t used = 0;
  CHECK(rows && data);
  for (int i = 0; i < N; i++) {
    double d = i * 0.25;
    int n = snprintf(data + used, 16, "row-%d", i);
    rows[i * 3].kind = SQLBATCH_INTEGER;
    rows[i * 3].bits = (uint64_t)i;
    rows[i * 3 + 1].kind = SQLBATCH_FLOAT;
    memcpy(&rows[i * 3 + 1].bits, &d, sizeof d);
    rows[i * 3 + 2].kind = SQLBATCH_TEXT;
    rows[i * 3 + 2].bits = used;
    rows[i * 3 + 2].len = (uint32_t)n;
    used += (size_t)n;
  }
  CHECK_RC(c, exec(c, "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT); BEGIN"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO bulk VALUES (?, ?, ?)", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_execute_many(s, rows, N, 3, (const uint8_t *)data, used, &w), SQLBATCH_OK);
  CHECK(w.rows == N && w.changes == N && w.last_insert_rowid == N);
  CHECK_RC(c, exec(c, "COMMIT"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "SELECT count(*), sum(a), sum(length(c)) FROM bulk", &q), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(q, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(sqlbatch_cell_int64(&b.cells[0]) == N);
  CHECK(sqlbatch_cell_int64(&b.cells[1]) == (int64_t)N * (N - 1) / 2);
  CHECK(sqlbatch_cell_int64(&b.cells[2]) == (int64_t)used);
  /* Wrong number of columns. */
  CHECK_RC(c, sqlbatch_stmt_execute_many(s, rows, 1, 2, (const uint8_t *)data, used, &w), SQLBATCH_E_PARAM_COUNT);
  sqlbatch_stmt_finalize(q);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  free(rows);
  free(data);
  return true;
}

int main(void) {
  RUN(test_script_error_in_the_middle);
  RUN(test_script_with_parameters_and_trailing_comment);
  RUN(test_bulk_insert);
  return finish();
}
