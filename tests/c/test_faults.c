/* Faults from C: closing a connection whose virtual tables keep statements of their own,
 * disk full (SQLITE_FULL from max_page_count, and from a real file system that is full when
 * a directory on a size-limited tmpfs is given as argv[1]), and a failed transaction that
 * must lose nothing committed before it. Each ends in a clear status and a connection that
 * still works or closes cleanly. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"

#define SQLITE_FULL 13

static const char *tmpfs_dir = NULL;

/* Reads one integer with a query. */
static bool query_int(sqlbatch_conn *c, const char *sql, int64_t *out) {
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  CHECK_RC(c, prepare(c, sql, &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 1 && b.n_cols >= 1 && sqlbatch_batch_cell(&b, 0, 0)->kind == SQLBATCH_INTEGER);
  *out = sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0));
  sqlbatch_stmt_finalize(s);
  return true;
}

/* Checks that PRAGMA integrity_check says "ok". */
static bool integrity_ok(sqlbatch_conn *c) {
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  const sqlbatch_value *v;
  CHECK_RC(c, prepare(c, "PRAGMA integrity_check", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 10, SIZE_MAX, &b), SQLBATCH_DONE);
  v = sqlbatch_batch_cell(&b, 0, 0);
  CHECK(b.n_rows == 1 && v->kind == SQLBATCH_TEXT && v->len == 2 && memcmp(sqlbatch_batch_bytes(&b, v), "ok", 2) == 0);
  sqlbatch_stmt_finalize(s);
  return true;
}

/* FTS5, FTS3 and R*Tree prepare statements of their own on the connection; closing it must
 * leave those to the modules (finalizing them twice is a use-after-free). */
static bool test_close_with_virtual_tables_that_own_statements(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  CHECK_RC(c,
           exec(c, "CREATE VIRTUAL TABLE f5 USING fts5(x); INSERT INTO f5 VALUES ('hello world');"
                   "CREATE VIRTUAL TABLE f3 USING fts4(x); INSERT INTO f3 VALUES ('hello there');"
                   "CREATE VIRTUAL TABLE r USING rtree(id, x0, x1); INSERT INTO r VALUES (1, 0, 5);"
                   "SELECT * FROM f5 WHERE f5 MATCH 'hello'; SELECT * FROM f3 WHERE f3 MATCH 'hello';"
                   "SELECT * FROM r WHERE x0 < 3"),
           SQLBATCH_OK);
  /* One statement of the caller's own, left open mid-result, and finalized after the close. */
  CHECK_RC(c, prepare(c, "SELECT x FROM f5 UNION ALL SELECT x FROM f3", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_ROW);
  sqlbatch_conn_close(c);
  CHECK_RC(NULL, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_E_CLOSED);
  sqlbatch_stmt_finalize(s);
  return true;
}

/* Fills a database until SQLite reports the disk full, inside a transaction, and checks
 * that the transaction is gone and everything committed before it is still there. */
static bool fill_until_full(sqlbatch_conn *c, int64_t committed) {
  sqlbatch_stmt *ins = NULL;
  sqlbatch_value v[1];
  sqlbatch_write_result w;
  sqlbatch_error e;
  int64_t n = 0;
  int32_t rc = SQLBATCH_OK;
  static uint8_t blob[4000];
  memset(blob, 0x5a, sizeof blob);
  v[0].kind = SQLBATCH_BLOB;
  v[0].bits = 0;
  v[0].len = sizeof blob;
  const sqlbatch_params rows = params_of(v, 1, blob, sizeof blob);
  CHECK_RC(c, exec(c, "BEGIN"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO big(b) VALUES (?)", &ins), SQLBATCH_OK);
  for (int i = 0; i < 100000 && rc == SQLBATCH_OK; i++)
    rc = sqlbatch_stmt_execute_many(ins, &rows, 1, &w);
  CHECK(rc == SQLITE_FULL);
  sqlbatch_conn_last_error(c, &e);
  CHECK(e.primary_code == SQLITE_FULL && strstr(e.message, "full") != NULL);
  sqlbatch_stmt_finalize(ins);
  /* The statement's failure may have rolled the transaction back already; either way,
   * end it and check that the committed rows are all there and the connection works. */
  exec(c, "ROLLBACK");
  CHECK(query_int(c, "SELECT count(*) FROM big", &n));
  CHECK(n == committed);
  CHECK(integrity_ok(c));
  CHECK_RC(c, exec(c, "DELETE FROM big WHERE rowid > 1; INSERT INTO big(b) VALUES (x'01')"), SQLBATCH_OK);
  CHECK(query_int(c, "SELECT count(*) FROM big", &n));
  CHECK(n == (committed > 0 ? 2 : 1));
  return true;
}

static bool test_disk_full_through_max_page_count(void) {
  char path[] = "/tmp/sqlbatch-faults-XXXXXX";
  char db[64];
  int fd = mkstemp(path);
  sqlbatch_conn *c = NULL;
  CHECK(fd >= 0);
  close(fd);
  unlink(path);
  snprintf(db, sizeof db, "%s.db", path);
  CHECK_RC(c, sqlbatch_conn_open(db, strlen(db), 0, &c), SQLBATCH_OK);
  CHECK_RC(c, exec(c, "PRAGMA journal_mode = WAL; CREATE TABLE big(b); "
                      "INSERT INTO big(b) VALUES (zeroblob(1000)), (zeroblob(1000)); PRAGMA max_page_count = 64"),
           SQLBATCH_OK);
  CHECK(fill_until_full(c, 2));
  sqlbatch_conn_close(c);
  unlink(db);
  return true;
}

/* A real full file system: the directory given on the command line is a small tmpfs. */
static bool test_disk_full_on_a_full_file_system(void) {
  char db[4096];
  sqlbatch_conn *c = NULL;
  if (!tmpfs_dir) {
    printf("     (skipped: no size-limited directory given)\n");
    return true;
  }
  snprintf(db, sizeof db, "%s/full.db", tmpfs_dir);
  unlink(db);
  CHECK_RC(c, sqlbatch_conn_open(db, strlen(db), 0, &c), SQLBATCH_OK);
  CHECK_RC(c, exec(c, "CREATE TABLE big(b); INSERT INTO big(b) VALUES (zeroblob(1000)), (zeroblob(1000))"),
           SQLBATCH_OK);
  CHECK(fill_until_full(c, 2));
  sqlbatch_conn_close(c);
  unlink(db);
  return true;
}

int main(int argc, char **argv) {
  if (argc > 1) tmpfs_dir = argv[1];
  RUN(test_close_with_virtual_tables_that_own_statements);
  RUN(test_disk_full_through_max_page_count);
  RUN(test_disk_full_on_a_full_file_system);
  return finish();
}
