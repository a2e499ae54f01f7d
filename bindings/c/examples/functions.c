/*
 * functions.c: SQL functions written in C through sqlbatch, and a statically linked
 * extension (sqlite-vec), as bindings/c/README.md shows them. Built and run by
 * `make -C bindings/c test` (against build/ext/libsqlite_vec.a from scripts/build-sqlite-vec.sh),
 * and by it once more with vec0.so loaded by path (argv[1]).
 *
 *   cc -std=c99 functions.c libsqlbatch.a libsqlite_vec.a -lpthread -ldl -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlbatch.h"

/* sqlite-vec's entry point, from libsqlite_vec.a (built in the loadable style: it calls SQLite
 * only through the routines sqlbatch_conn_init_extension hands it). */
int sqlite3_vec_init(void *db, char **err, const void *api);

static int failures;
#define CHECK(cond, ...)                        \
  do {                                          \
    if (!(cond)) {                              \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);             \
      fprintf(stderr, "\n");                    \
      failures++;                               \
    }                                           \
  } while (0)

/* f(x) = x * 2 + 1: a number result needs no call, it is stored in call->result. */
static void twice_plus_one(sqlbatch_call *call, void *user, const sqlbatch_value *args, size_t n,
                           const uint8_t *data) {
  (void)user, (void)n, (void)data;
  if (args[0].kind != SQLBATCH_INTEGER) {
    sqlbatch_call_error(call, 0, "f wants an integer", 18);
    return;
  }
  call->result.kind = SQLBATCH_INTEGER;
  call->result.bits = args[0].bits * 2 + 1;
}

/* greet(name): TEXT built in malloc'd memory and handed over with free as its destructor. */
static void greet(sqlbatch_call *call, void *user, const sqlbatch_value *args, size_t n,
                  const uint8_t *data) {
  (void)user, (void)n;
  size_t len = args[0].len;
  char *out = malloc(len + 7);
  if (!out) {
    sqlbatch_call_error(call, 7 /* SQLITE_NOMEM */, NULL, 0);
    return;
  }
  memcpy(out, "hello ", 6);
  if (len) memcpy(out + 6, data + args[0].bits, len);
  sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, (const uint8_t *)out, len + 6, free);
}

/* sumsq(x), batched: one call of step takes up to 256 rows of the group. */
static void sumsq_step(sqlbatch_call *call, void *user, void **state, const sqlbatch_value *args,
                       size_t n_rows, size_t n_args, const uint8_t *data) {
  (void)data;
  int64_t *sum = *state;
  if (!sum && !(*state = sum = calloc(1, sizeof *sum))) {
    sqlbatch_call_error(call, 7, NULL, 0);
    return;
  }
  size_t *largest = user;
  if (n_rows > *largest) *largest = n_rows;
  for (size_t i = 0; i < n_rows; i++) {
    int64_t x = (int64_t)args[i * n_args].bits;
    *sum += x * x;
  }
}

static void sumsq_finish(sqlbatch_call *call, void *user, void *state) {
  (void)user;
  if (!state) return; /* a group without rows: NULL */
  call->result.kind = SQLBATCH_INTEGER;
  call->result.bits = (uint64_t)*(int64_t *)state;
  free(state);
}

/* The first cell of a one-row query, as text (CAST), into buf. */
static int text_of(sqlbatch_conn *c, const char *sql, char *buf, size_t cap) {
  char q[512];
  snprintf(q, sizeof q, "SELECT CAST((%s) AS TEXT)", sql);
  sqlbatch_stmt *s;
  int rc = sqlbatch_stmt_prepare(c, q, strlen(q), 0, &s, NULL);
  if (rc != SQLBATCH_OK) return rc;
  sqlbatch_batch b;
  rc = sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b);
  if ((rc == SQLBATCH_ROW || rc == SQLBATCH_DONE) && b.n_rows == 1) {
    size_t n = b.cells[0].len < cap - 1 ? b.cells[0].len : cap - 1;
    if (n) memcpy(buf, b.data + b.cells[0].bits, n);
    buf[n] = 0;
    rc = SQLBATCH_OK;
  }
  sqlbatch_stmt_finalize(s);
  return rc;
}

static void vector_queries(sqlbatch_conn *c, const char *how) {
  char buf[64];
  CHECK(text_of(c, "vec_version()", buf, sizeof buf) == SQLBATCH_OK && buf[0] == 'v', "%s: vec_version", how);
  CHECK(text_of(c, "vec_distance_l2('[1, 2]', '[4, 6]')", buf, sizeof buf) == SQLBATCH_OK && !strcmp(buf, "5.0"),
        "%s: distance %s", how, buf);
  const char *script = "CREATE VIRTUAL TABLE v USING vec0(e float[2]);"
                       "INSERT INTO v(rowid, e) VALUES (1, '[0, 0]'), (2, '[1, 1]'), (3, '[5, 5]')";
  CHECK(sqlbatch_conn_exec(c, script, strlen(script), NULL, NULL) == SQLBATCH_OK, "%s: vec0 table", how);
  CHECK(text_of(c, "SELECT rowid FROM v WHERE e MATCH '[4, 4]' ORDER BY distance LIMIT 1", buf, sizeof buf) ==
                SQLBATCH_OK && !strcmp(buf, "3"),
        "%s: nearest %s", how, buf);
  printf("%s: %s, nearest to [4, 4] is row %s\n", how, "sqlite-vec works", buf);
}

int main(int argc, char **argv) {
  sqlbatch_conn *c;
  if (sqlbatch_conn_open(":memory:", 8, 0, &c) != SQLBATCH_OK) return 1;

  size_t largest = 0;
  const sqlbatch_aggregate sumsq = {.step = sumsq_step, .finish = sumsq_finish, .batch_rows = 256};
  CHECK(sqlbatch_conn_create_function(c, "f", 1, 1, SQLBATCH_FUNCTION_DETERMINISTIC, twice_plus_one, NULL, NULL) ==
            SQLBATCH_OK, "create f");
  CHECK(sqlbatch_conn_create_function(c, "greet", 5, 1, 0, greet, NULL, NULL) == SQLBATCH_OK, "create greet");
  CHECK(sqlbatch_conn_create_aggregate(c, "sumsq", 5, 1, 0, &sumsq, &largest, NULL) == SQLBATCH_OK, "create sumsq");
  const char *setup = "CREATE TABLE t(x INTEGER);"
                      "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 999) "
                      "INSERT INTO t SELECT i FROM k";
  CHECK(sqlbatch_conn_exec(c, setup, strlen(setup), NULL, NULL) == SQLBATCH_OK, "setup");

  char buf[64];
  CHECK(text_of(c, "SELECT sum(f(x)) FROM t", buf, sizeof buf) == SQLBATCH_OK && !strcmp(buf, "1000000"),
        "sum(f(x)) = %s", buf);
  CHECK(text_of(c, "SELECT sumsq(x) FROM t", buf, sizeof buf) == SQLBATCH_OK && !strcmp(buf, "332833500"),
        "sumsq = %s", buf);
  CHECK(largest == 256, "batches of %zu rows, not 256", largest);
  CHECK(text_of(c, "greet('world')", buf, sizeof buf) == SQLBATCH_OK && !strcmp(buf, "hello world"), "greet %s", buf);
  CHECK(text_of(c, "f('x')", buf, sizeof buf) == 1 /* SQLITE_ERROR */, "f('x') must fail");
  printf("functions: sum(f(x)) over 1000 rows is 1000000, sumsq in batches of %zu rows\n", largest);

  /* Statically linked: the entry point itself. */
  CHECK(sqlbatch_conn_init_extension(c, sqlite3_vec_init) == SQLBATCH_OK, "init sqlite-vec");
  vector_queries(c, "statically linked");
  sqlbatch_conn_close(c);

  /* By path, only once enabled. */
  if (argc > 1) {
    if (sqlbatch_conn_open(":memory:", 8, 0, &c) != SQLBATCH_OK) return 1;
    const char *path = argv[1];
    CHECK(sqlbatch_conn_load_extension(c, path, strlen(path), NULL, 0) == 1, "loading must be off by default");
    CHECK(sqlbatch_conn_enable_load_extension(c, true) == SQLBATCH_OK, "enable");
    CHECK(sqlbatch_conn_load_extension(c, path, strlen(path), "sqlite3_vec_init", 16) == SQLBATCH_OK, "load %s", path);
    vector_queries(c, "loaded by path");
    sqlbatch_conn_close(c);
  }
  return failures ? 1 : 0;
}
