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
  int32_t rc = sqlbatch_conn_exec(c, sql, strlen(sql), NULL, &r);
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
  const sqlbatch_params p = params_of(v, 3, text, 5);
  CHECK_RC(c, sqlbatch_conn_exec(c, sql, strlen(sql), &p, &r), SQLBATCH_OK);
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
  sqlbatch_params p = params_of(rows, (size_t)N * 3, data, used);
  CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, N, &w), SQLBATCH_OK);
  CHECK(w.rows == N && w.changes == N && w.last_insert_rowid == N);
  CHECK_RC(c, exec(c, "COMMIT"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "SELECT count(*), sum(a), sum(length(c)) FROM bulk", &q), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(q, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(sqlbatch_value_int64(&b.cells[0]) == N);
  CHECK(sqlbatch_value_int64(&b.cells[1]) == (int64_t)N * (N - 1) / 2);
  CHECK(sqlbatch_value_int64(&b.cells[2]) == (int64_t)used);
  /* A value count that is not n_rows times the parameter count. */
  p.n_values = 2;
  CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, 1, &w), SQLBATCH_E_PARAM_COUNT);
  sqlbatch_stmt_finalize(q);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  free(rows);
  free(data);
  return true;
}

/* SQLBATCH_PARAMS_ADDRESSES: from C, TEXT/BLOB values (and names) can carry the address of
 * their bytes instead of an offset from a base. */
static bool test_params_by_address(void) {
  enum { N = 1000 };
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL, *q = NULL;
  sqlbatch_exec_result r;
  sqlbatch_write_result w;
  sqlbatch_batch b;
  static char words[N][16];
  static sqlbatch_value rows[N * 2];
  int64_t want_len = 0;
  memset(rows, 0, sizeof rows);
  for (int i = 0; i < N; i++) {
    int n = snprintf(words[i], sizeof words[i], "w%d", i * 7);
    rows[i * 2].kind = SQLBATCH_INTEGER;
    rows[i * 2].bits = (uint64_t)i;
    rows[i * 2 + 1].kind = i % 2 ? SQLBATCH_TEXT : SQLBATCH_BLOB;
    rows[i * 2 + 1].bits = (uint64_t)(uintptr_t)words[i]; /* strings anywhere in memory */
    rows[i * 2 + 1].len = (uint32_t)n;
    want_len += n;
  }
  sqlbatch_params p = params_of(rows, N * 2, NULL, 0);
  p.flags = SQLBATCH_PARAMS_ADDRESSES;
  CHECK_RC(c, exec(c, "CREATE TABLE t(a INTEGER, b)"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO t VALUES (?, ?)", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, N, &w), SQLBATCH_OK);
  CHECK(w.rows == N && w.changes == N);

  /* exec with a named value whose name and bytes are both given by address. */
  const char *name = "word", *word = "w7";
  sqlbatch_value v[2] = {{0}}, names[2] = {{0}};
  v[0].kind = SQLBATCH_TEXT;
  v[0].bits = (uint64_t)(uintptr_t)word;
  v[0].len = 2;
  names[0].kind = SQLBATCH_TEXT;
  names[0].bits = (uint64_t)(uintptr_t)name;
  names[0].len = 4;
  v[1].kind = SQLBATCH_INTEGER;
  v[1].bits = 5;
  names[1].kind = SQLBATCH_NULL; /* positional */
  p = params_of(v, 2, NULL, 0);
  p.names = names;
  p.flags = SQLBATCH_PARAMS_ADDRESSES;
  const char *sql = "DELETE FROM t WHERE b = $word OR a = ?; DELETE FROM t WHERE b = :word";
  CHECK_RC(c, sqlbatch_conn_exec(c, sql, strlen(sql), &p, &r), SQLBATCH_OK);
  CHECK(r.statements == 2 && r.params_used == 3 && r.changes == 2); /* rows 1 (text 'w7') and 5 */

  CHECK_RC(c, prepare(c, "SELECT count(*), sum(length(b)), sum(a) FROM t", &q), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(q, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(sqlbatch_value_int64(&b.cells[0]) == N - 2);
  CHECK(sqlbatch_value_int64(&b.cells[1]) == want_len - 2 - 3);
  CHECK(sqlbatch_value_int64(&b.cells[2]) == (int64_t)N * (N - 1) / 2 - 1 - 5);
  sqlbatch_stmt_finalize(q);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* sqlbatch_code_name gives the name a C header spells, for a real failure and for the rest. */
static bool test_code_names(void) {
  sqlbatch_conn *c = open_memory();
  int32_t rc = exec(c, "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1); INSERT INTO u VALUES (1)");
  CHECK(rc == 2067); /* SQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT | (8 << 8) */
  CHECK(sqlbatch_code_name(rc) != NULL && strcmp(sqlbatch_code_name(rc), "SQLITE_CONSTRAINT_UNIQUE") == 0);
  CHECK(strcmp(sqlbatch_code_name(19), "SQLITE_CONSTRAINT") == 0);
  CHECK(strcmp(sqlbatch_code_name(1555), "SQLITE_CONSTRAINT_PRIMARYKEY") == 0);
  CHECK(strcmp(sqlbatch_code_name(5), "SQLITE_BUSY") == 0);
  CHECK(strcmp(sqlbatch_code_name(SQLBATCH_OK), "SQLBATCH_OK") == 0);
  CHECK(strcmp(sqlbatch_code_name(SQLBATCH_ROW), "SQLBATCH_ROW") == 0);
  CHECK(strcmp(sqlbatch_code_name(SQLBATCH_DONE), "SQLBATCH_DONE") == 0);
  CHECK(strcmp(sqlbatch_code_name(SQLBATCH_E_RANGE), "SQLBATCH_E_RANGE") == 0);
  CHECK(strcmp(sqlbatch_code_name(SQLBATCH_E_NULL_PARAMETER), "SQLBATCH_E_NULL_PARAMETER") == 0);
  CHECK(sqlbatch_code_name(-1) == NULL && sqlbatch_code_name(999) == NULL && sqlbatch_code_name(1023) == NULL);
  sqlbatch_conn_close(c);
  return true;
}

int main(void) {
  RUN(test_script_error_in_the_middle);
  RUN(test_script_with_parameters_and_trailing_comment);
  RUN(test_bulk_insert);
  RUN(test_params_by_address);
  RUN(test_code_names);
  return finish();
}
