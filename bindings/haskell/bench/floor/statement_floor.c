/* The floor the library sets under direct-sqlite's face on prepare_churn: one statement per
 * row prepared, bound, stepped and finalized, as direct-sqlite's calls make it, through the
 * ABI (sqlbatch_stmt_prepare, sqlbatch_stmt_param_count, one sqlbatch_stmt_bind of the three
 * values, sqlbatch_stmt_fetch_into, sqlbatch_stmt_finalize: the calls the binding makes) and
 * through SQLite's own API (prepare, three binds, step, finalize: the per-row loop's calls),
 * with nothing around them. bench/statement-floor.sh runs both under cachegrind.
 *
 *   statement_floor abi|native N     (N rows into a fresh /tmp file, in one transaction)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlbatch.h"
#include "sqlite3.h"

static const char insert_sql[] = "INSERT INTO churn(a, b, c) VALUES (?, ?, ?)";
static const char setup_sql[] = "CREATE TABLE churn(a INTEGER, b REAL, c TEXT)";

static void fail(const char *what, long rc) {
  fprintf(stderr, "statement_floor: %s failed (%ld)\n", what, rc);
  exit(1);
}

static void run_abi(const char *path, long n) {
  sqlbatch_conn *c = NULL;
  int32_t rc = sqlbatch_conn_open(path, strlen(path), 0, &c);
  if (rc != SQLBATCH_OK) fail("open", rc);
  if ((rc = sqlbatch_conn_exec(c, setup_sql, sizeof setup_sql - 1, NULL, NULL)) != SQLBATCH_OK) fail("create", rc);
  if ((rc = sqlbatch_conn_exec(c, "BEGIN", 5, NULL, NULL)) != SQLBATCH_OK) fail("begin", rc);
  static uint8_t room[4096];
  char text[32];
  for (long i = 0; i < n; i++) {
    sqlbatch_stmt *s = NULL;
    size_t tail = 0, nparams = 0;
    if ((rc = sqlbatch_stmt_prepare(c, insert_sql, sizeof insert_sql - 1, 0, &s, &tail)) != SQLBATCH_OK) fail("prepare", rc);
    if ((rc = sqlbatch_stmt_param_count(s, &nparams)) != SQLBATCH_OK || nparams != 3) fail("param count", rc);
    int k = snprintf(text, sizeof text, "row-%ld", i);
    double d = (double)i * 0.25;
    sqlbatch_value v[3] = {
        {.bits = (uint64_t)i, .kind = SQLBATCH_INTEGER},
        {.kind = SQLBATCH_FLOAT},
        {.bits = 0, .len = (uint32_t)k, .kind = SQLBATCH_TEXT},
    };
    memcpy(&v[1].bits, &d, sizeof d);
    sqlbatch_params p = {.values = v, .n_values = 3, .data = (const uint8_t *)text, .data_len = (size_t)k};
    if ((rc = sqlbatch_stmt_bind(s, &p)) != SQLBATCH_OK) fail("bind", rc);
    sqlbatch_batch b;
    if ((rc = sqlbatch_stmt_fetch_into(s, 16, room, sizeof room, &b)) != SQLBATCH_DONE) fail("step", rc);
    sqlbatch_stmt_finalize(s);
  }
  if ((rc = sqlbatch_conn_exec(c, "COMMIT", 6, NULL, NULL)) != SQLBATCH_OK) fail("commit", rc);
  sqlbatch_conn_close(c);
}

static void run_native(const char *path, long n) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK) fail("open", rc);
  if ((rc = sqlite3_exec(db, setup_sql, NULL, NULL, NULL)) != SQLITE_OK) fail("create", rc);
  if ((rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK) fail("begin", rc);
  char text[32];
  for (long i = 0; i < n; i++) {
    sqlite3_stmt *s = NULL;
    if ((rc = sqlite3_prepare_v2(db, insert_sql, sizeof insert_sql, &s, NULL)) != SQLITE_OK) fail("prepare", rc);
    int k = snprintf(text, sizeof text, "row-%ld", i);
    sqlite3_bind_int64(s, 1, i);
    sqlite3_bind_double(s, 2, (double)i * 0.25);
    sqlite3_bind_text(s, 3, text, k, SQLITE_TRANSIENT);
    if ((rc = sqlite3_step(s)) != SQLITE_DONE) fail("step", rc);
    sqlite3_finalize(s);
  }
  if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) fail("commit", rc);
  sqlite3_close(db);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: statement_floor abi|native N\n");
    return 2;
  }
  long n = atol(argv[2]);
  char path[64];
  snprintf(path, sizeof path, "/tmp/statement-floor-%ld.db", (long)getpid());
  unlink(path);
  if (strcmp(argv[1], "abi") == 0) run_abi(path, n);
  else if (strcmp(argv[1], "native") == 0) run_native(path, n);
  else { fprintf(stderr, "statement_floor: abi or native, not %s\n", argv[1]); return 2; }
  unlink(path);
  return 0;
}
