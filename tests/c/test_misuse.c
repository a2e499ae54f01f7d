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
  CHECK_RC(NULL, sqlbatch_conn_close(NULL), SQLBATCH_OK);
  CHECK_RC(NULL, sqlbatch_stmt_finalize(NULL), SQLBATCH_OK);
  sqlbatch_conn_interrupt(NULL);
  CHECK_RC(NULL, sqlbatch_conn_exec(NULL, "", 0, NULL, NULL, 0, NULL, 0, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_prepare(NULL, "", 0, 0, &s, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_fetch(NULL, 1, 1, &b), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_batch_get(NULL, &b, 0, 0, &v), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_conn_changes(NULL, &i), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_readonly(NULL, &flag), SQLBATCH_E_NULL_PARAMETER);
  c = open_memory();
  CHECK_RC(c, sqlbatch_conn_exec(c, NULL, 10, NULL, NULL, 0, NULL, 0, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(c, sqlbatch_stmt_prepare(c, "SELECT 1", 8, 0, NULL, NULL), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(c, prepare(c, "SELECT ?", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_bind(s, NULL, 1, NULL, 0), SQLBATCH_E_NULL_PARAMETER);
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
  CHECK_RC(c, sqlbatch_stmt_bind(s, &one, 1, NULL, 0), SQLBATCH_E_PARAM_COUNT);
  sqlbatch_stmt_finalize(s);
  CHECK_RC(c, prepare(c, "SELECT ?", &s), SQLBATCH_OK);
  one.kind = 99;
  CHECK_RC(c, sqlbatch_stmt_bind(s, &one, 1, NULL, 0), SQLBATCH_E_INVALID_ARGUMENT);
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
  CHECK_RC(NULL, sqlbatch_stmt_finalize(s), SQLBATCH_OK);
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
  RUN(test_interrupt_from_a_second_thread);
  RUN(test_interrupt_from_a_signal_handler);
  return finish();
}
