/* Table-valued parameters and virtual table modules whose cursors fill batches, from C. */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

/* The first row's first two cells of a one-row query, as integers. */
static bool query2(sqlbatch_conn *c, const char *sql, int64_t *a, int64_t *b) {
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch batch;
  CHECK_RC(c, prepare(c, sql, &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &batch), SQLBATCH_DONE);
  CHECK(batch.n_rows == 1 && batch.n_cols >= 2);
  *a = sqlbatch_value_int64(sqlbatch_batch_cell(&batch, 0, 0));
  *b = sqlbatch_value_int64(sqlbatch_batch_cell(&batch, 0, 1));
  sqlbatch_stmt_finalize(s);
  return true;
}

/* An IN list from the program, bound as one table: one call, any length, NULLs allowed. */
static bool test_in_list(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  sqlbatch_value ids[1000];
  CHECK_RC(c, exec(c, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER);"
                      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
                      "INSERT INTO t SELECT i, i * 2 FROM n"),
           SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "SELECT count(*), sum(v) FROM t WHERE id IN sqlbatch_rows(?)", &s), SQLBATCH_OK);
  for (int i = 0; i < 1000; i++) ids[i] = (sqlbatch_value){.bits = (uint64_t)(i * 7 + 1), .kind = SQLBATCH_INTEGER};
  ids[999] = (sqlbatch_value){.kind = SQLBATCH_NULL}; /* matches nothing */
  sqlbatch_params list = params_of(ids, 1000, NULL, 0);
  CHECK_RC(c, sqlbatch_stmt_bind_rows(s, 1, &list, 1), SQLBATCH_OK);
  memset(ids, 0, sizeof ids); /* the library copied them */
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  int64_t want = 0, n = 0;
  for (int i = 0; i < 999; i++)
    if (i * 7 + 1 <= 5000) want += (i * 7 + 1) * 2, n++;
  CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == n);
  CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 1)) == want);
  /* Bad tables: not whole rows, no columns, a parameter that does not exist, NULL. */
  CHECK(sqlbatch_stmt_bind_rows(s, 1, &list, 3) == SQLBATCH_E_PARAM_COUNT);
  CHECK(sqlbatch_stmt_bind_rows(s, 1, &list, 0) == SQLBATCH_E_PARAM_COUNT);
  CHECK(sqlbatch_stmt_bind_rows(s, 2, &list, 1) == SQLBATCH_E_RANGE);
  CHECK(sqlbatch_stmt_bind_rows(s, 1, NULL, 1) == SQLBATCH_E_NULL_PARAMETER);
  CHECK(sqlbatch_stmt_bind_rows(NULL, 1, &list, 1) == SQLBATCH_E_NULL_PARAMETER);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* A table of several typed columns inserted in one statement. */
static bool test_rows_into_a_table(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  const char *names = "alphabetagamma";
  sqlbatch_value rows[3 * 3] = {
      {.bits = 1, .kind = SQLBATCH_INTEGER}, {.bits = 0, .len = 5, .kind = SQLBATCH_TEXT}, {.kind = SQLBATCH_NULL},
      {.bits = 2, .kind = SQLBATCH_INTEGER}, {.bits = 5, .len = 4, .kind = SQLBATCH_TEXT}, {.bits = 7, .kind = SQLBATCH_INTEGER},
      {.bits = 3, .kind = SQLBATCH_INTEGER}, {.bits = 9, .len = 5, .kind = SQLBATCH_TEXT}, {.bits = 9, .kind = SQLBATCH_INTEGER},
  };
  CHECK_RC(c, exec(c, "CREATE TABLE t(id INTEGER, name TEXT, score INTEGER);"
                      "CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, name TEXT, score INTEGER)"),
           SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO t SELECT * FROM incoming(?)", &s), SQLBATCH_OK);
  sqlbatch_params p = params_of(rows, 9, names, strlen(names));
  CHECK_RC(c, sqlbatch_stmt_bind_rows(s, 1, &p, 3), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  sqlbatch_stmt_finalize(s);
  int64_t n, total;
  CHECK(query2(c, "SELECT count(*), sum(length(name)) + sum(coalesce(score, 100)) FROM t", &n, &total));
  CHECK(n == 3 && total == 5 + 4 + 5 + 100 + 7 + 9);
  sqlbatch_conn_close(c);
  return true;
}

/* ---- a batched module: series(start, stop), a table-valued function ---- */

typedef struct {
  int64_t at, stop;
} series_cursor;

static int closes = 0, disconnects = 0, destroyed = 0;

static int32_t series_connect(void *user, sqlbatch_vtab_call *call, bool create, const sqlbatch_str *args, size_t n_args,
                              void **out_table) {
  (void)user, (void)create, (void)args, (void)n_args;
  const char *sql = "CREATE TABLE x(value INTEGER, start HIDDEN, stop HIDDEN)";
  *out_table = NULL;
  return sqlbatch_vtab_declare(call, sql, strlen(sql));
}

static int32_t series_plan(void *user, sqlbatch_vtab_call *call, void *table, sqlbatch_vtab_index *ix) {
  (void)user, (void)call, (void)table;
  int next = 1;
  for (int col = 1; col <= 2; col++)
    for (size_t i = 0; i < ix->n_constraints; i++)
      if (ix->constraints[i].column == col && ix->constraints[i].op == SQLBATCH_INDEX_EQ) {
        if (!ix->constraints[i].usable) return 19; /* SQLITE_CONSTRAINT: not this plan */
        ix->uses[i].arg_index = next++;
        ix->uses[i].omit = true;
      }
  ix->idx_num = next - 1;
  ix->estimated_cost = 10;
  return SQLBATCH_OK;
}

static int32_t series_open(void *user, sqlbatch_vtab_call *call, void *table, void **out_cursor) {
  (void)user, (void)call, (void)table;
  *out_cursor = calloc(1, sizeof(series_cursor));
  return *out_cursor ? SQLBATCH_OK : 7; /* SQLITE_NOMEM */
}

static int32_t series_filter(void *user, sqlbatch_vtab_call *call, void *cursor, int32_t idx_num,
                             const sqlbatch_vtab_arg *args, size_t n_args, const uint8_t *data) {
  (void)user, (void)data;
  series_cursor *c = cursor;
  if (idx_num != 2 || n_args != 2) {
    const char *m = "series needs start and stop";
    sqlbatch_vtab_error(call, m, strlen(m));
    return 1; /* SQLITE_ERROR */
  }
  c->at = sqlbatch_value_int64(&args[0].value);
  c->stop = sqlbatch_value_int64(&args[1].value);
  return SQLBATCH_OK;
}

static int32_t series_fill(void *user, sqlbatch_vtab_call *call, void *cursor, size_t max_rows) {
  (void)user;
  series_cursor *c = cursor;
  sqlbatch_value v[64];
  size_t n = 0;
  while (n < max_rows && n < 64 && c->at <= c->stop) v[n++] = (sqlbatch_value){.bits = (uint64_t)c->at++, .kind = SQLBATCH_INTEGER};
  if (n > 0) {
    sqlbatch_params rows = params_of(v, n, NULL, 0);
    int32_t rc = sqlbatch_vtab_push(call, &rows, 1, NULL);
    if (rc != SQLBATCH_OK) return rc;
  }
  return c->at <= c->stop ? SQLBATCH_ROW : SQLBATCH_DONE;
}

/* A fill that pushes more rows than it was asked for. */
static int32_t greedy_fill(void *user, sqlbatch_vtab_call *call, void *cursor, size_t max_rows) {
  (void)user, (void)cursor;
  sqlbatch_value v[2] = {{.bits = 1, .kind = SQLBATCH_INTEGER}, {.bits = 2, .kind = SQLBATCH_INTEGER}};
  sqlbatch_params rows = params_of(v, 2, NULL, 0);
  return max_rows < 2 ? sqlbatch_vtab_push(call, &rows, 1, NULL) : SQLBATCH_DONE;
}

static void series_close(void *user, void *cursor) {
  (void)user;
  closes++;
  free(cursor);
}

static void series_disconnect(void *user, void *table, bool destroy) { (void)user, (void)table, (void)destroy, disconnects++; }

static void series_destroy(void *user) { (void)user, destroyed++; }

static const sqlbatch_vtab_module series_module = {
    .connect = series_connect, .best_index = series_plan, .open = series_open, .filter = series_filter,
    .fill = series_fill, .close = series_close, .disconnect = series_disconnect, .batch_rows = 50};

static bool test_batched_module(void) {
  sqlbatch_conn *c = open_memory();
  int64_t n, sum;
  CHECK_RC(c, sqlbatch_conn_create_module(c, "series", 6, &series_module, SQLBATCH_VTAB_EPONYMOUS_ONLY, NULL, series_destroy),
           SQLBATCH_OK);
  CHECK(query2(c, "SELECT count(*), sum(value) FROM series(1, 100000)", &n, &sum));
  CHECK(n == 100000 && sum == 5000050000);
  /* Joined, and with the host's error when an argument is missing. */
  CHECK_RC(c, exec(c, "CREATE TABLE lim(k INTEGER); INSERT INTO lim VALUES (3), (10)"), SQLBATCH_OK);
  CHECK(query2(c, "SELECT count(*), sum(value) FROM lim, series(1, lim.k)", &n, &sum));
  CHECK(n == 13 && sum == 6 + 55);
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  sqlbatch_error e;
  CHECK_RC(c, prepare(c, "SELECT value FROM series", &s), SQLBATCH_OK);
  CHECK(sqlbatch_stmt_fetch(s, 10, SIZE_MAX, &b) == 1);
  CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
  CHECK(strstr(e.message, "series needs start and stop") != NULL);
  sqlbatch_stmt_finalize(s);
  /* Finalized in the middle of a scan: the cursor is closed once. */
  int before = closes;
  CHECK_RC(c, prepare(c, "SELECT value FROM series(1, 1000000)", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 10, SIZE_MAX, &b), SQLBATCH_ROW);
  sqlbatch_stmt_finalize(s);
  CHECK(closes == before + 1);
  sqlbatch_conn_close(c);
  CHECK(destroyed == 1 && disconnects >= 1);
  return true;
}

static bool test_misbehaving_module(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_vtab_module m = series_module;
  m.fill = greedy_fill;
  m.batch_rows = 1;
  CHECK_RC(c, sqlbatch_conn_create_module(c, "greedy", 6, &m, SQLBATCH_VTAB_EPONYMOUS_ONLY, NULL, NULL), SQLBATCH_OK);
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  sqlbatch_error e;
  CHECK_RC(c, prepare(c, "SELECT value FROM greedy(1, 2)", &s), SQLBATCH_OK);
  CHECK(sqlbatch_stmt_fetch(s, 10, SIZE_MAX, &b) == 1); /* SQLITE_ERROR */
  CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
  CHECK(strstr(e.message, "more than the 1 the fill asked for") != NULL);
  sqlbatch_stmt_finalize(s);
  /* A module without fill, bad flags, a NULL connection: refused, the user data released. */
  int before = destroyed;
  m.fill = NULL;
  CHECK(sqlbatch_conn_create_module(c, "bad", 3, &m, 0, NULL, series_destroy) == SQLBATCH_E_INVALID_ARGUMENT);
  m.fill = series_fill;
  CHECK(sqlbatch_conn_create_module(c, "bad", 3, &m, 3, NULL, series_destroy) == SQLBATCH_E_INVALID_ARGUMENT);
  CHECK(sqlbatch_conn_create_module(NULL, "bad", 3, &m, 0, NULL, series_destroy) == SQLBATCH_E_NULL_PARAMETER);
  CHECK(destroyed == before + 3);
  /* Calls outside their callback, and NULL calls. */
  CHECK(sqlbatch_vtab_declare(NULL, "x", 1) == SQLBATCH_E_NULL_PARAMETER);
  CHECK(sqlbatch_vtab_push(NULL, NULL, 1, NULL) == SQLBATCH_E_NULL_PARAMETER);
  sqlbatch_vtab_error(NULL, "x", 1);
  sqlbatch_conn_close(c);
  return true;
}

int main(void) {
  RUN(test_in_list);
  RUN(test_rows_into_a_table);
  RUN(test_batched_module);
  RUN(test_misbehaving_module);
  return finish();
}
