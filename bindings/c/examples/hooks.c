/*
 * hooks.c: watching what a connection does, at one call per batch where SQLite calls per row.
 *
 *   1. a trace callback sees each statement start (as written and with its values), and its
 *      end with its run time and whether a transaction is still open
 *   2. the batched update hook gets the update events of many rows in one call, yet before
 *      every other callback of the connection (here an SQL function) and before the call that
 *      made them returns, so a per-row handler called from it sees what SQLite's own per-row
 *      update hook would have shown
 *   3. its stop answer undoes the statement, as interrupting it would
 *
 * Build against an installed sqlbatch:  cc hooks.c $(pkg-config --cflags --libs sqlbatch)
 * It exits 0 only if every step did what the comments say.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlbatch.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    int32_t rc_ = (call);                                                            \
    if (rc_ != SQLBATCH_OK) {                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, sqlbatch_code_name(rc_)); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

static int32_t exec(sqlbatch_conn *c, const char *sql) {
  return sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL);
}

/* 1. Each event's text is valid during the call only: print it, keep nothing. */
static void on_trace(void *user, const sqlbatch_trace_event *e) {
  int *profiles = user;
  if (e->event == SQLBATCH_TRACE_STMT) {
    printf("   start: %s", e->sql.ptr);
    if (e->expanded_sql.ptr && strcmp(e->expanded_sql.ptr, e->sql.ptr) != 0) printf("   (run as: %s)", e->expanded_sql.ptr);
    printf("\n");
  } else if (e->event == SQLBATCH_TRACE_PROFILE) {
    printf("   end:   %lld ns, %s\n", (long long)e->nanoseconds,
           e->autocommit ? "no transaction open" : "inside a transaction");
    (*profiles)++;
  }
}

/* 2. What the log of one run holds: the order in which the callbacks saw the rows. */
struct log {
  char text[512];
  int batches, events, stop_at;
};

static void log_add(struct log *l, const char *what, long long n) {
  size_t used = strlen(l->text);
  snprintf(l->text + used, sizeof l->text - used, "%s%s%lld", used ? " " : "", what, n);
}

static int32_t on_updates(void *user, const sqlbatch_change *changes, size_t n,
                          const sqlbatch_change_table *tables, size_t n_tables) {
  struct log *l = user;
  (void)n_tables;
  l->batches++;
  for (size_t i = 0; i < n; i++) {
    /* The per-row handler: table name and rowid, as the update hook would give them. */
    log_add(l, tables[changes[i].table].name.ptr, (long long)changes[i].rowid);
    if (++l->events == l->stop_at) return 1; /* stop the statement */
  }
  return 0;
}

static void double_it(sqlbatch_call *call, void *user, const sqlbatch_value *args, size_t n,
                      const uint8_t *data) {
  (void)n;
  (void)data;
  log_add(user, "f", (long long)args[0].bits);
  call->result.kind = SQLBATCH_INTEGER;
  call->result.bits = (uint64_t)((int64_t)args[0].bits * 2);
}

int main(void) {
  sqlbatch_conn *c = NULL;
  CHECK(sqlbatch_conn_open(":memory:", 8, 0, &c));
  CHECK(exec(c, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"));

  printf("1. tracing, with the values of the parameters:\n");
  int profiles = 0;
  CHECK(sqlbatch_conn_trace(c, SQLBATCH_TRACE_STMT | SQLBATCH_TRACE_PROFILE | SQLBATCH_TRACE_EXPANDED,
                            on_trace, &profiles, NULL));
  sqlbatch_params one = {0};
  sqlbatch_value seven = {.kind = SQLBATCH_INTEGER, .bits = 7};
  one.values = &seven;
  one.n_values = 1;
  CHECK(exec(c, "BEGIN"));
  CHECK(sqlbatch_conn_exec(c, "INSERT INTO t VALUES (?)", 24, &one, NULL));
  CHECK(exec(c, "COMMIT"));
  CHECK(sqlbatch_conn_trace(c, 0, NULL, NULL, NULL));

  printf("2. the batched update hook, with a function called between the rows:\n");
  struct log l = {.text = "", .stop_at = 0};
  CHECK(sqlbatch_conn_create_function(c, "f", 1, 1, SQLBATCH_FUNCTION_DETERMINISTIC, double_it, &l, NULL));
  CHECK(sqlbatch_conn_update_hook_batched(c, 0, on_updates, &l, NULL));
  CHECK(exec(c, "UPDATE t SET x = f(x)"));
  printf("   %s (%d batches)\n", l.text, l.batches);
  const char *want = "f1 t1 f2 t2 f3 t3 f7 t4";
  int ok = strcmp(l.text, want) == 0 && profiles == 3;
  l.text[0] = '\0';
  l.batches = 0;
  CHECK(exec(c, "INSERT INTO t SELECT x FROM t")); /* 4 rows, no function: one batch */
  printf("   %s (%d batch)\n", l.text, l.batches);
  ok = ok && strcmp(l.text, "t5 t6 t7 t8") == 0 && l.batches == 1;

  printf("3. a stop answer at the 2nd row of a transaction's insert:\n");
  l.text[0] = '\0';
  l.events = 0;
  l.stop_at = 2;
  CHECK(exec(c, "BEGIN"));
  int32_t rc = exec(c, "INSERT INTO t VALUES (10), (20)");
  bool autocommit = false;
  CHECK(sqlbatch_conn_autocommit(c, &autocommit));
  printf("   the insert: %s; transaction %s\n", sqlbatch_code_name(rc), autocommit ? "rolled back" : "open");
  ok = ok && rc == 9 /* SQLITE_INTERRUPT */ && autocommit;

  sqlbatch_conn_close(c);
  if (!ok) fprintf(stderr, "hooks: FAILED\n");
  return !ok;
}
