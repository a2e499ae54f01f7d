/*
 * link_beside_sqlite3.c: libsqlbatch.a and the system's libsqlite3 in one process.
 *
 *   cc link_beside_sqlite3.c libsqlbatch.a -lsqlite3 -lpthread -ldl -lm
 *
 * libsqlbatch.a carries its own SQLite (3.54) but defines no global symbol except
 * sqlbatch_* (scripts/hide-symbols.sh), so the program links without duplicate symbols and
 * sqlite3_* below are the system library's (3.40 on the development machine). Each library
 * writes rows to one shared database file and reads the other's; any mismatch exits 1.
 * Only ABI calls that ABI v2 leaves alone are used (the return values of close and finalize
 * are ignored: they become void).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlbatch.h>

static int failures = 0;

#define CHECK(cond, ...)                                               \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);       \
      fprintf(stderr, __VA_ARGS__);                                    \
      fputc('\n', stderr);                                             \
      failures++;                                                      \
    }                                                                  \
  } while (0)

/* Runs one SQL statement through sqlbatch (prepare, fetch to the end). With `out`, the
 * statement is a query of one INTEGER and one TEXT column: their sums of id and of text
 * lengths go to out[0] and out[1], the row count to out[2]. */
static int sqlbatch_run(sqlbatch_conn *conn, const char *sql, long long *out) {
  sqlbatch_stmt *stmt = NULL;
  sqlbatch_batch batch;
  int32_t rc = sqlbatch_stmt_prepare(conn, sql, strlen(sql), 0, &stmt, NULL);
  if (rc != SQLBATCH_OK) {
    fprintf(stderr, "sqlbatch_stmt_prepare(%s): %s\n", sql, sqlbatch_code_str(rc));
    return -1;
  }
  if (out) out[0] = out[1] = out[2] = 0;
  do {
    rc = sqlbatch_stmt_fetch(stmt, 100, SIZE_MAX, &batch);
    if (rc != SQLBATCH_ROW && rc != SQLBATCH_DONE) break;
    for (size_t r = 0; out && r < batch.n_rows; r++) {
      const sqlbatch_value *id = sqlbatch_batch_cell(&batch, r, 0), *name = sqlbatch_batch_cell(&batch, r, 1);
      if (id->kind != SQLBATCH_INTEGER || name->kind != SQLBATCH_TEXT) return -1;
      out[0] += sqlbatch_value_int64(id);
      out[1] += name->len;
      out[2]++;
    }
  } while (rc == SQLBATCH_ROW);
  sqlbatch_stmt_finalize(stmt);
  if (rc != SQLBATCH_DONE) {
    fprintf(stderr, "sqlbatch_stmt_fetch(%s): %s\n", sql, sqlbatch_code_str(rc));
    return -1;
  }
  return 0;
}

/* The same query through the system's SQLite. */
static int sqlite3_sums(sqlite3 *db, const char *sql, long long *out) {
  sqlite3_stmt *stmt = NULL;
  int rc;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
    fprintf(stderr, "sqlite3_prepare_v2(%s): %s\n", sql, sqlite3_errmsg(db));
    return -1;
  }
  out[0] = out[1] = out[2] = 0;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    out[0] += sqlite3_column_int64(stmt, 0);
    out[1] += sqlite3_column_bytes(stmt, 1);
    out[2]++;
  }
  sqlite3_finalize(stmt);
  return rc == SQLITE_DONE ? 0 : -1;
}

int main(int argc, char **argv) {
  char path[4096];
  const char *dir = argc > 1 ? argv[1] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  snprintf(path, sizeof path, "%s/link_beside_sqlite3-%ld.db", dir, (long)getpid());
  unlink(path);

  /* Two SQLite libraries, two versions. */
  const char *system_version = sqlite3_libversion(), *own_version = sqlbatch_sqlite_version();
  printf("system libsqlite3: %s (header %s); sqlbatch's SQLite: %s\n", system_version, SQLITE_VERSION,
         own_version);
  CHECK(strncmp(system_version, "3.40.", 5) == 0, "system SQLite is %s, expected 3.40.x", system_version);
  CHECK(strncmp(own_version, "3.54.", 5) == 0, "sqlbatch's SQLite is %s, expected 3.54.x", own_version);
  CHECK(sqlite3_libversion_number() == SQLITE_VERSION_NUMBER, "libsqlite3 %d is not its header's %d",
        sqlite3_libversion_number(), SQLITE_VERSION_NUMBER);
  CHECK(strcmp(system_version, own_version) != 0, "both report %s: one SQLite is used for both", own_version);

  sqlite3 *db = NULL;
  sqlbatch_conn *conn = NULL;
  int32_t rc = sqlbatch_conn_open(path, strlen(path), SQLBATCH_OPEN_READWRITE | SQLBATCH_OPEN_CREATE, &conn);
  CHECK(rc == SQLBATCH_OK, "sqlbatch_conn_open: %s", sqlbatch_code_str(rc));
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK, "sqlite3_open_v2: %s",
        db ? sqlite3_errmsg(db) : "no memory");
  if (failures) goto done;

  /* sqlbatch creates the table and writes 100 rows (ids 1..100, names "n1".."n100"). A
   * rollback journal (not WAL) keeps the file readable by 3.40 whatever 3.54 would default to. */
  CHECK(sqlbatch_run(conn, "PRAGMA journal_mode=DELETE", NULL) == 0, "journal mode");
  CHECK(sqlbatch_run(conn, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL)", NULL) == 0, "create");
  CHECK(sqlbatch_run(conn,
                     "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100) "
                     "INSERT INTO t SELECT i, 'n' || i FROM c",
                     NULL) == 0,
        "insert through sqlbatch");

  /* The system SQLite reads them: sum of ids 5050, of name lengths 9*2 + 90*3 + 4 = 292. */
  long long sums[3];
  CHECK(sqlite3_sums(db, "SELECT id, name FROM t", sums) == 0, "select through sqlite3");
  CHECK(sums[0] == 5050 && sums[1] == 292 && sums[2] == 100, "sqlite3 read %lld/%lld/%lld, expected 5050/292/100",
        sums[0], sums[1], sums[2]);

  /* The system SQLite writes 100 more (ids 101..200, "m101".."m200") and reads its version
   * into the table, which sqlbatch then reads back. */
  char *err = NULL;
  rc = sqlite3_exec(db,
                    "WITH RECURSIVE c(i) AS (SELECT 101 UNION ALL SELECT i + 1 FROM c WHERE i < 200) "
                    "INSERT INTO t SELECT i, 'm' || i FROM c",
                    NULL, NULL, &err);
  CHECK(rc == SQLITE_OK, "insert through sqlite3: %s", err ? err : "?");
  sqlite3_free(err);

  CHECK(sqlbatch_run(conn, "SELECT id, name FROM t WHERE id > 100", sums) == 0, "select through sqlbatch");
  CHECK(sums[0] == 15050 && sums[1] == 400 && sums[2] == 100,
        "sqlbatch read %lld/%lld/%lld, expected 15050/400/100", sums[0], sums[1], sums[2]);
  CHECK(sqlbatch_run(conn, "SELECT id, name FROM t", sums) == 0, "select all through sqlbatch");
  CHECK(sums[0] == 20100 && sums[2] == 200, "sqlbatch read %lld rows, id sum %lld", sums[2], sums[0]);
  CHECK(sqlite3_sums(db, "SELECT id, name FROM t", sums) == 0 && sums[0] == 20100 && sums[2] == 200,
        "sqlite3 read %lld rows, id sum %lld", sums[2], sums[0]);

  /* Each connection's sqlite_version() is its own library's. */
  sqlite3_stmt *v = NULL;
  if (sqlite3_prepare_v2(db, "SELECT sqlite_version()", -1, &v, NULL) == SQLITE_OK && sqlite3_step(v) == SQLITE_ROW)
    CHECK(strcmp((const char *)sqlite3_column_text(v, 0), system_version) == 0, "sqlite3's sqlite_version() is %s",
          sqlite3_column_text(v, 0));
  else
    CHECK(0, "SELECT sqlite_version() through sqlite3");
  sqlite3_finalize(v);
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch batch;
  if (sqlbatch_stmt_prepare(conn, "SELECT sqlite_version()", 23, 0, &s, NULL) == SQLBATCH_OK &&
      sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &batch) == SQLBATCH_DONE && batch.n_rows == 1) {
    const sqlbatch_value *c = sqlbatch_batch_cell(&batch, 0, 0);
    CHECK(c->kind == SQLBATCH_TEXT && c->len == strlen(own_version) &&
              memcmp(sqlbatch_batch_bytes(&batch, c), own_version, c->len) == 0,
          "sqlbatch's sqlite_version() is %.*s", (int)c->len, (const char *)sqlbatch_batch_bytes(&batch, c));
  } else {
    CHECK(0, "SELECT sqlite_version() through sqlbatch");
  }
  sqlbatch_stmt_finalize(s);

done:
  sqlite3_close(db);
  sqlbatch_conn_close(conn);
  unlink(path);
  if (failures) {
    fprintf(stderr, "link_beside_sqlite3: %d check(s) failed\n", failures);
    return 1;
  }
  printf("link_beside_sqlite3: both SQLite libraries in one process: ok\n");
  return 0;
}
