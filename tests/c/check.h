/* Tiny test harness shared by the C tests: rure-style `bool test_x(void)` functions. */
#ifndef SQLBATCH_TEST_CHECK_H
#define SQLBATCH_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlbatch.h"

/* Fails the current test (returns false) with a message naming the line. */
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      return false;                                                         \
    }                                                                       \
  } while (0)

/* Fails the test when `rc` differs from `want`, printing the connection's last error. */
#define CHECK_RC(conn, rc, want)                                            \
  do {                                                                      \
    int32_t rc_ = (rc);                                                     \
    if (rc_ != (want)) {                                                    \
      sqlbatch_error e_;                                                    \
      const char *m_ = "(no connection)";                                   \
      if ((conn) && sqlbatch_conn_last_error((conn), &e_) == SQLBATCH_OK) m_ = e_.message; \
      fprintf(stderr, "  %s:%d: %s returned %d (%s), want %d: %s\n", __FILE__, __LINE__, #rc, \
              (int)rc_, sqlbatch_code_str(rc_), (int)(want), m_);          \
      return false;                                                         \
    }                                                                       \
  } while (0)

static int failures = 0;

static void run_test(const char *name, bool (*fn)(void)) {
  if (fn()) {
    printf("ok   %s\n", name);
  } else {
    printf("FAIL %s\n", name);
    failures++;
  }
}

#define RUN(fn) run_test(#fn, fn)

/* Opens a private in-memory database or aborts. */
static inline sqlbatch_conn *open_memory(void) {
  sqlbatch_conn *c = NULL;
  if (sqlbatch_conn_open(":memory:", 8, 0, &c) != SQLBATCH_OK) {
    fprintf(stderr, "cannot open :memory:\n");
    abort();
  }
  return c;
}

/* Runs a script with no parameters. */
static inline int32_t exec(sqlbatch_conn *c, const char *sql) {
  return sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL);
}

/* A parameter set of n positional values whose TEXT/BLOB bytes are at data (data_len bytes). */
static inline sqlbatch_params params_of(const sqlbatch_value *values, size_t n, const void *data, size_t data_len) {
  sqlbatch_params p;
  memset(&p, 0, sizeof p);
  p.values = values;
  p.n_values = n;
  p.data = (const uint8_t *)data;
  p.data_len = data_len;
  return p;
}

static inline int32_t prepare(sqlbatch_conn *c, const char *sql, sqlbatch_stmt **out) {
  return sqlbatch_stmt_prepare(c, sql, strlen(sql), 0, out, NULL);
}

static int finish(void) {
  if (failures) {
    printf("%d test(s) failed\n", failures);
    return 1;
  }
  printf("all passed\n");
  return 0;
}

#endif
