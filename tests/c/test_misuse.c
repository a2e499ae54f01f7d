/* Misuse from C: NULL pointers, invalid UTF-8, wrong counts, stale batches, closed handles,
 * and an interrupt from a second thread. Each must end in a clear status, never a crash. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/time.h>
#include <stdint.h>
#include <time.h>

#include "check.h"

static bool test_null_pointers_everywhere(void) {
  sqlbatch_conn *c = NULL;
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  sqlbatch_value v;
  int64_t i;
  bool flag;
  CHECK_RC(NULL, sqlbatch_conn_open(NULL, 3, 0, &c), SQLBATCH_E_NULL_PARAMETER);
  CHECK(c == NULL);
  CHECK_RC(NULL, sqlbatch_conn_open(":memory:", 8, 0, NULL), SQLBATCH_E_NULL_PARAMETER);
  sqlbatch_conn_close(NULL); /* no-ops */
  sqlbatch_stmt_finalize(NULL);
  sqlbatch_conn_interrupt(NULL);
  CHECK_RC(NULL, sqlbatch_conn_exec(NULL, "", 0, NULL, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_prepare(NULL, "", 0, 0, &s, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_fetch(NULL, 1, 1, &b), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_batch_get(NULL, &b, 0, 0, &v), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_conn_changes(NULL, &i), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_readonly(NULL, &flag), SQLBATCH_E_NULL_PARAMETER);
  c = open_memory();
  CHECK_RC(c, sqlbatch_conn_exec(c, NULL, 10, NULL, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(c, sqlbatch_stmt_prepare(c, "SELECT 1", 8, 0, NULL, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(c, prepare(c, "SELECT ?", &s), SQLBATCH_OK);
  const sqlbatch_params no_values = params_of(NULL, 1, NULL, 0); /* one value, no array */
  CHECK_RC(c, sqlbatch_stmt_bind(s, &no_values), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, 1, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(c, sqlbatch_conn_last_insert_rowid(c, NULL), SQLBATCH_E_NULL_PARAMETER);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_invalid_utf8_and_wrong_counts(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_error e;
  sqlbatch_value one = {0};
  const char bad[] = "SELECT '\xc3\x28'";
  CHECK_RC(c, sqlbatch_stmt_prepare(c, bad, strlen(bad), 0, &s, NULL), SQLBATCH_E_INVALID_UTF8);
  CHECK(s == NULL);
  sqlbatch_conn_last_error(c, &e);
  CHECK(e.token_offset == 8 && strstr(e.message, "not valid UTF-8") != NULL);
  CHECK_RC(c, prepare(c, "SELECT ?, ?", &s), SQLBATCH_OK);
  one.kind = SQLBATCH_INTEGER;
  const sqlbatch_params p = params_of(&one, 1, NULL, 0);
  CHECK_RC(c, sqlbatch_stmt_bind(s, &p), SQLBATCH_E_PARAM_COUNT);
  sqlbatch_stmt_finalize(s);
  CHECK_RC(c, prepare(c, "SELECT ?", &s), SQLBATCH_OK);
  one.kind = 99;
  CHECK_RC(c, sqlbatch_stmt_bind(s, &p), SQLBATCH_E_INVALID_ARGUMENT);
  sqlbatch_stmt_finalize(s);
  CHECK_RC(c, sqlbatch_stmt_prepare(c, "SELECT 1", 8, 0xff, &s, NULL), SQLBATCH_E_INVALID_ARGUMENT);
  CHECK(s == NULL);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_stale_batch_and_closed_connection(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch first, second;
  sqlbatch_value v;
  CHECK_RC(c, prepare(c, "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &first), SQLBATCH_ROW);
  CHECK_RC(c, sqlbatch_batch_get(s, &first, 0, 0, &v), SQLBATCH_OK);
  CHECK(v.kind == SQLBATCH_INTEGER && v.bits == 1);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &second), SQLBATCH_ROW);
  CHECK_RC(c, sqlbatch_batch_get(s, &first, 0, 0, &v), SQLBATCH_E_STALE_BATCH);
  CHECK_RC(c, sqlbatch_batch_get(s, &second, 1, 0, &v), SQLBATCH_E_RANGE);
  sqlbatch_conn_close(c); /* finalizes s underneath; the handle stays valid */
  CHECK_RC(NULL, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &second), SQLBATCH_E_CLOSED);
  sqlbatch_stmt_finalize(s);
  return true;
}

/* A TEXT or BLOB value with bytes but no base (data NULL, no SQLBATCH_PARAMS_ADDRESSES) is
 * SQLBATCH_E_INVALID_ARGUMENT in exec, bind and execute_many: its offset is never taken for an
 * address (it used to be: SIGSEGV). Bad flags too. A value of length 0 needs no base. */
static bool test_bytes_without_a_base_are_an_error(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL, *named = NULL;
  sqlbatch_exec_result r;
  sqlbatch_write_result w;
  sqlbatch_batch b;
  sqlbatch_error e;
  const uint8_t kinds[] = {SQLBATCH_TEXT, SQLBATCH_BLOB};
  CHECK_RC(c, exec(c, "CREATE TABLE t(x)"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO t VALUES (?)", &s), SQLBATCH_OK);
  for (size_t k = 0; k < 2; k++) {
    sqlbatch_value v = {0};
    v.kind = kinds[k];
    v.bits = 8; /* an offset; as an address it would fault */
    v.len = 5;
    sqlbatch_params p = params_of(&v, 1, NULL, 0);
    CHECK_RC(c, sqlbatch_conn_exec(c, "SELECT ?", 8, &p, &r), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK(r.statements == 0);
    CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
    CHECK(e.code == SQLBATCH_E_INVALID_ARGUMENT && e.message_len > 0);
    CHECK_RC(c, sqlbatch_stmt_bind(s, &p), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, 1, &w), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK(w.rows == 0);
    /* A name with bytes and no base, beside a value that is fine. */
    sqlbatch_value one = {0}, name = {0};
    one.kind = SQLBATCH_INTEGER;
    name.kind = SQLBATCH_TEXT;
    name.bits = 8;
    name.len = 1;
    p = params_of(&one, 1, NULL, 0);
    p.names = &name;
    CHECK_RC(c, sqlbatch_conn_exec(c, "SELECT :x", 9, &p, NULL), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(c, prepare(c, "SELECT :x", &named), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_bind(named, &p), SQLBATCH_E_INVALID_ARGUMENT);
    sqlbatch_stmt_finalize(named);
    /* Names are refused by execute_many whatever they hold. */
    CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, 1, &w), SQLBATCH_E_INVALID_ARGUMENT);
    /* With the addresses flag, a base is refused; unknown flags are refused. */
    v.bits = 0;
    p = params_of(&v, 1, "hello", 5);
    p.flags = SQLBATCH_PARAMS_ADDRESSES;
    CHECK_RC(c, sqlbatch_conn_exec(c, "SELECT ?", 8, &p, NULL), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(c, sqlbatch_stmt_bind(s, &p), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, 1, &w), SQLBATCH_E_INVALID_ARGUMENT);
    p.flags = 4;
    CHECK_RC(c, sqlbatch_conn_exec(c, "SELECT ?", 8, &p, NULL), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(c, sqlbatch_stmt_bind(s, &p), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, 1, &w), SQLBATCH_E_INVALID_ARGUMENT);
    /* Length 0 reads no bytes: no base needed, whatever bits holds. */
    v.bits = 8;
    v.len = 0;
    p = params_of(&v, 1, NULL, 0);
    CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, 1, &w), SQLBATCH_OK);
    CHECK(w.rows == 1 && w.changes == 1);
  }
  sqlbatch_stmt_finalize(s);
  /* Nothing but the two empty values went in. */
  CHECK_RC(c, prepare(c, "SELECT count(*), sum(length(x)), count(DISTINCT typeof(x)) FROM t", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(sqlbatch_value_int64(&b.cells[0]) == 2 && sqlbatch_value_int64(&b.cells[1]) == 0);
  CHECK(sqlbatch_value_int64(&b.cells[2]) == 2); /* text and blob */
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* SQLBATCH_PREPARE_SINGLE refuses SQL that holds a second statement. */
static bool test_prepare_single_refuses_a_second_statement(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_error e;
  size_t tail = 0;
  const char *two = "SELECT 1; SELECT 2";
  s = (sqlbatch_stmt *)&e; /* a sentinel: a refused prepare sets NULL */
  CHECK_RC(c, sqlbatch_stmt_prepare(c, two, strlen(two), SQLBATCH_PREPARE_SINGLE, &s, &tail),
           SQLBATCH_E_MULTIPLE_STATEMENTS);
  CHECK(s == NULL);
  CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
  CHECK(e.code == SQLBATCH_E_MULTIPLE_STATEMENTS && e.primary_code == SQLBATCH_E_MULTIPLE_STATEMENTS);
  CHECK(e.token_offset == 10); /* the second statement's first byte */
  CHECK(strcmp(sqlbatch_code_name(SQLBATCH_E_MULTIPLE_STATEMENTS), "SQLBATCH_E_MULTIPLE_STATEMENTS") == 0);
  /* Also when the second statement is not valid SQL, and with the persistent flag beside it. */
  const char *junk = "SELECT 1;\n  nonsense";
  CHECK_RC(c, sqlbatch_stmt_prepare(c, junk, strlen(junk), SQLBATCH_PREPARE_SINGLE | SQLBATCH_PREPARE_PERSISTENT, &s, NULL),
           SQLBATCH_E_MULTIPLE_STATEMENTS);
  CHECK(s == NULL);
  sqlbatch_conn_last_error(c, &e);
  CHECK(e.token_offset == 12);
  /* Whitespace, comments and lone semicolons after the statement are fine. */
  const char *one = "SELECT 1; ; -- a comment\n /* another */ ;\n";
  CHECK_RC(c, sqlbatch_stmt_prepare(c, one, strlen(one), SQLBATCH_PREPARE_SINGLE, &s, &tail), SQLBATCH_OK);
  CHECK(s != NULL);
  sqlbatch_stmt_finalize(s);
  /* Without the flag, the first statement is compiled and the tail says where the next starts. */
  CHECK_RC(c, sqlbatch_stmt_prepare(c, two, strlen(two), 0, &s, &tail), SQLBATCH_OK);
  CHECK(s != NULL && tail == 9);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

struct interrupter {
  sqlbatch_conn *conn;
  int delay_ms;
};

static void *interrupt_later(void *arg) {
  struct interrupter *it = arg;
  struct timespec ts = {0, it->delay_ms * 1000000L};
  nanosleep(&ts, NULL);
  sqlbatch_conn_interrupt(it->conn);
  return NULL;
}

static bool test_interrupt_from_a_second_thread(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  pthread_t t;
  struct interrupter it = {c, 50};
  CHECK_RC(c, prepare(c, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT sum(i) FROM k", &s),
           SQLBATCH_OK);
  CHECK(pthread_create(&t, NULL, interrupt_later, &it) == 0);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), 9); /* SQLITE_INTERRUPT */
  pthread_join(t, NULL);
  sqlbatch_stmt_finalize(s);
  /* The connection is usable afterwards. */
  CHECK_RC(c, exec(c, "CREATE TABLE after(x); INSERT INTO after VALUES (1)"), SQLBATCH_OK);
  sqlbatch_conn_close(c);
  return true;
}

static sqlbatch_conn *alarm_conn;

static void on_alarm(int sig) {
  (void)sig;
  sqlbatch_conn_interrupt(alarm_conn); /* documented as safe in a signal handler */
}

static bool test_interrupt_from_a_signal_handler(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  struct sigaction sa;
  struct itimerval t;
  memset(&sa, 0, sizeof sa);
  memset(&t, 0, sizeof t);
  sa.sa_handler = on_alarm;
  alarm_conn = c;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  t.it_value.tv_usec = 50000;
  CHECK_RC(c, prepare(c, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT sum(i) FROM k", &s),
           SQLBATCH_OK);
  CHECK(setitimer(ITIMER_REAL, &t, NULL) == 0);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), 9); /* SQLITE_INTERRUPT */
  sqlbatch_stmt_finalize(s);
  signal(SIGALRM, SIG_DFL);
  sqlbatch_conn_close(c);
  return true;
}

int main(void) {
  RUN(test_null_pointers_everywhere);
  RUN(test_invalid_utf8_and_wrong_counts);
  RUN(test_stale_batch_and_closed_connection);
  RUN(test_bytes_without_a_base_are_an_error);
  RUN(test_prepare_single_refuses_a_second_statement);
  RUN(test_interrupt_from_a_second_thread);
  RUN(test_interrupt_from_a_signal_handler);
  return finish();
}
