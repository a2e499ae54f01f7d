/* Fetch-ahead and write-behind from C (issue 14): the connection's worker thread steps the
 * next batch while the caller reads this one, and runs a queued bulk write while the caller
 * fills the next parameter buffer. Every result is compared with the synchronous call's:
 * the same batches and statuses (sqlbatch_stmt_fetch and sqlbatch_stmt_fetch_into, fixed and
 * changing bounds, a new binding between calls), an error after the rows before it, an
 * interrupt from another pthread, finalize and close while a batch is stepped ahead, write-
 * behind over two alternating parameter buffers against sqlbatch_stmt_execute_many (rows,
 * changes, last_insert_rowid, the failing row), and the misuse rules of a queued write.
 * A probe SQL function records the thread each row is stepped on, so that a fetch-ahead that
 * silently stayed synchronous fails the tests. Run static, under valgrind, under ASan + UBSan
 * and, with test_concurrency, under ThreadSanitizer (make test-tsan). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

#define SQLITE_ERROR 1
#define SQLITE_INTERRUPT 9
#define SQLITE_MISUSE 21
#define SQLITE_CONSTRAINT_PRIMARYKEY 1555

/* ---- a byte log of batches, compared with memcmp ---------------------------------------- */

struct log {
  uint8_t *p;
  size_t len, cap;
};

static void log_put(struct log *l, const void *x, size_t n) {
  if (l->len + n > l->cap) {
    size_t cap = l->cap ? l->cap : 4096;
    while (cap < l->len + n) cap *= 2;
    l->p = realloc(l->p, cap);
    if (!l->p) abort();
    l->cap = cap;
  }
  if (n) memcpy(l->p + l->len, x, n);
  l->len += n;
}

static void log_int(struct log *l, int64_t v) { log_put(l, &v, sizeof v); }

static void log_free(struct log *l) {
  free(l->p);
  memset(l, 0, sizeof *l);
}

static bool log_eq(const struct log *a, const struct log *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/* Appends every cell of `b` (kind, length, value or bytes, whose base is `base`) to `l`, and
 * returns the batch's cost as the byte bound counts it (16 per cell plus the bytes) without
 * its last row in *before_last. */
static void log_cells(struct log *l, const sqlbatch_batch *b, const uint8_t *base, size_t *before_last) {
  size_t cost = 0;
  for (size_t r = 0; r < b->n_rows; r++) {
    if (before_last && r + 1 == b->n_rows) *before_last = cost;
    for (size_t col = 0; col < b->n_cols; col++) {
      const sqlbatch_value *v = sqlbatch_batch_cell(b, r, col);
      log_int(l, v->kind);
      log_int(l, v->len);
      cost += 16;
      if (v->kind == SQLBATCH_TEXT || v->kind == SQLBATCH_BLOB) {
        if (v->len) log_put(l, base + v->bits, v->len);
        cost += v->len;
      } else if (v->kind != SQLBATCH_NULL) {
        log_int(l, (int64_t)v->bits);
      }
    }
  }
  if (before_last && b->n_rows == 0) *before_last = 0;
}

/* Bounds of fetch k: max_rows[k % n], max_bytes[k % n]. */
struct bounds {
  const size_t *max_rows, *max_bytes;
  size_t n;
};

/* Fetches `s` to DONE or an error with these bounds. `batches` gets (status, n_rows, cells)
 * per fetch, `rows` (if not NULL) the cells alone. Checks each batch against its bounds.
 * Returns the last status, or -1 if a check failed. */
static int32_t fetch_all(sqlbatch_stmt *s, struct bounds bd, struct log *batches, struct log *rows) {
  for (size_t k = 0; k < 1000000; k++) {
    size_t max_rows = bd.max_rows[k % bd.n], max_bytes = bd.max_bytes[k % bd.n], before_last = 0;
    sqlbatch_batch b;
    int32_t rc;
    memset(&b, 0, sizeof b);
    rc = sqlbatch_stmt_fetch(s, max_rows, max_bytes, &b);
    log_int(batches, rc);
    if (rc != SQLBATCH_ROW && rc != SQLBATCH_DONE) return rc;
    log_int(batches, (int64_t)b.n_rows);
    log_int(batches, (int64_t)b.n_cols);
    log_cells(batches, &b, b.data, &before_last);
    if (rows) log_cells(rows, &b, b.data, NULL);
    if (b.n_rows > max_rows) {
      fprintf(stderr, "  batch %zu: %zu rows for max_rows %zu\n", k, b.n_rows, max_rows);
      return -1;
    }
    if (b.n_rows > 1 && before_last >= max_bytes) {
      fprintf(stderr, "  batch %zu: %zu bytes before its last row, bound %zu\n", k, before_last, max_bytes);
      return -1;
    }
    if (rc == SQLBATCH_DONE) return rc;
  }
  return -1;
}

/* The same through sqlbatch_stmt_fetch_into with a fresh buffer of sizes[k % n] bytes per
 * fetch, freed right after it is read (the library must not touch it again). */
static int32_t fetch_all_into(sqlbatch_stmt *s, size_t max_rows, const size_t *sizes, size_t n, struct log *batches,
                              struct log *rows, int *too_small) {
  for (size_t k = 0; k < 1000000; k++) {
    size_t size = sizes[k % n];
    uint8_t *buf = malloc(size ? size : 1);
    sqlbatch_batch b;
    int32_t rc;
    if (!buf) abort();
    memset(&b, 0, sizeof b);
    rc = sqlbatch_stmt_fetch_into(s, max_rows, buf, size, &b);
    log_int(batches, rc);
    if (rc == SQLBATCH_ROW || rc == SQLBATCH_DONE) {
      bool ok = b.data == NULL && b.data_len <= size && b.n_rows <= max_rows;
      log_int(batches, (int64_t)b.n_rows);
      log_int(batches, (int64_t)b.data_len);
      log_cells(batches, &b, buf, NULL);
      if (rows) log_cells(rows, &b, buf, NULL);
      free(buf);
      if (!ok) {
        fprintf(stderr, "  fetch_into %zu: data %p, data_len %zu, buffer %zu, %zu rows\n", k, (const void *)b.data,
                b.data_len, size, b.n_rows);
        return -1;
      }
      if (rc == SQLBATCH_DONE) return rc;
    } else if (rc == SQLBATCH_E_BUFFER_TOO_SMALL) {
      free(buf);
      log_int(batches, (int64_t)b.data_len);
      (*too_small)++;
      if (b.n_rows != 0 || b.data_len <= size) {
        fprintf(stderr, "  fetch_into %zu: too small, but %zu rows, needs %zu of %zu\n", k, b.n_rows, b.data_len, size);
        return -1;
      }
    } else {
      free(buf);
      return rc;
    }
  }
  return -1;
}

/* ---- where rows are stepped ---------------------------------------------------------------- */

/* probe(x) returns x and counts the calls made on the test's main thread and elsewhere. The
 * counts are read only when no fetch-ahead is in flight (the statement is done, reset or
 * finalized): the hand-over orders the worker's writes before the reads. */
struct probe {
  pthread_t main;
  long on_main, elsewhere;
};

static void probe_fn(sqlbatch_call *call, void *user_data, const sqlbatch_value *args, size_t n_args,
                     const uint8_t *data) {
  struct probe *p = user_data;
  (void)n_args;
  (void)data;
  if (pthread_equal(pthread_self(), p->main))
    p->on_main++;
  else
    p->elsewhere++;
  call->result = args[0];
}

static bool add_probe(sqlbatch_conn *c, struct probe *p) {
  p->main = pthread_self();
  p->on_main = p->elsewhere = 0;
  CHECK_RC(c, sqlbatch_conn_create_function(c, "probe", 5, 1, 0, probe_fn, p, NULL), SQLBATCH_OK);
  return true;
}

/* ---- data ----------------------------------------------------------------------------------- */

#define MIXED_ROWS 3000

/* 3,000 rows of every type, TEXT and BLOB of varied lengths (0 to 96 and 0 to 49 bytes). */
static bool mixed(sqlbatch_conn *c) {
  CHECK_RC(c,
           exec(c, "CREATE TABLE m(i INTEGER, r REAL, t TEXT, b BLOB, n);"
                   "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s WHERE x < 2999)"
                   " INSERT INTO m SELECT x, x * 0.5, printf('%.*c', x % 97, char(97 + x % 26)),"
                   " CAST(printf('%.*c', x % 50, char(48 + x % 40)) AS BLOB),"
                   " CASE WHEN x % 7 = 0 THEN NULL ELSE x END FROM s"),
           SQLBATCH_OK);
  return true;
}

/* In rowid order (i's), without a sort, which would call probe() for every row at the first step. */
static const char *const Q = "SELECT probe(i), r, t, b, n FROM m";
static const char *const LONG =
    "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s) SELECT probe(x), printf('%d', x) FROM s";

static const size_t NO_BOUND = SIZE_MAX;

/* ---- fetch-ahead ---------------------------------------------------------------------------- */

static bool test_fetch_ahead_gives_the_synchronous_batches(void) {
  /* The connection's open flag turns it on for every statement; the reference is turned off. */
  sqlbatch_conn *c = NULL;
  struct probe p;
  const size_t rows[] = {1, 7, 256, 100, 5000, 3000, 2999};
  const size_t bytes[] = {NO_BOUND, NO_BOUND, NO_BOUND, 2000, 1 << 16, NO_BOUND, NO_BOUND};
  CHECK_RC(c, sqlbatch_conn_open(":memory:", 8, SQLBATCH_OPEN_FETCH_AHEAD, &c), SQLBATCH_OK);
  CHECK(mixed(c) && add_probe(c, &p));
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    struct bounds bd = {&rows[k], &bytes[k], 1};
    struct log want = {0}, want_rows = {0}, got = {0}, got_rows = {0}, again = {0}, again_rows = {0};
    sqlbatch_stmt *sync = NULL, *s = NULL;
    sqlbatch_batch b;
    CHECK_RC(c, prepare(c, Q, &sync), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(sync, false), SQLBATCH_OK);
    p.on_main = p.elsewhere = 0;
    CHECK_RC(c, fetch_all(sync, bd, &want, &want_rows), SQLBATCH_DONE);
    CHECK(p.on_main == MIXED_ROWS && p.elsewhere == 0);
    CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
    p.on_main = p.elsewhere = 0;
    CHECK_RC(c, fetch_all(s, bd, &got, &got_rows), SQLBATCH_DONE);
    CHECK(log_eq(&got, &want));
    /* The first batch is stepped on this thread (one row further: the step that tells whether
     * the result ends there), the others ahead on the worker. A result that fits in one batch
     * and the step past it has none to step ahead. */
    if (rows[k] < MIXED_ROWS - 1) CHECK(p.elsewhere > 0 && p.on_main >= (long)(bytes[k] == NO_BOUND ? rows[k] : 1));
    CHECK(p.on_main + p.elsewhere == MIXED_ROWS);
    /* After DONE it stays DONE, with no rows, and a reset runs it again. */
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 10, NO_BOUND, &b), SQLBATCH_DONE);
    CHECK(b.n_rows == 0);
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
    CHECK_RC(c, fetch_all(s, bd, &again, &again_rows), SQLBATCH_DONE);
    CHECK(log_eq(&again_rows, &want_rows));
    sqlbatch_stmt_finalize(sync);
    sqlbatch_stmt_finalize(s);
    log_free(&want), log_free(&want_rows), log_free(&got), log_free(&got_rows), log_free(&again), log_free(&again_rows);
  }
  sqlbatch_conn_close(c);
  return true;
}

static uint64_t rng_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static bool test_bounds_that_change_between_calls(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  struct log want = {0}, want_rows = {0};
  sqlbatch_stmt *s = NULL;
  const size_t one = 1000, unbounded = NO_BOUND;
  CHECK(mixed(c) && add_probe(c, &p));
  CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
  CHECK_RC(c, fetch_all(s, (struct bounds){&one, &unbounded, 1}, &want, &want_rows), SQLBATCH_DONE);
  sqlbatch_stmt_finalize(s);
  /* Random bounds per call, rows and bytes: the same rows, each batch within its bounds. */
  for (uint64_t seed = 1; seed <= 8; seed++) {
    size_t rows[4096], bytes[4096];
    uint64_t x = seed * 0x9e3779b97f4a7c15ull;
    struct log batches = {0}, got_rows = {0};
    for (size_t k = 0; k < 4096; k++) {
      rows[k] = 1 + rng_next(&x) % 300;
      bytes[k] = rng_next(&x) % 3 == 0 ? NO_BOUND : 1 + rng_next(&x) % 20000;
    }
    CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    p.on_main = p.elsewhere = 0;
    CHECK_RC(c, fetch_all(s, (struct bounds){rows, bytes, 4096}, &batches, &got_rows), SQLBATCH_DONE);
    CHECK(log_eq(&got_rows, &want_rows));
    CHECK(p.elsewhere > 0 && p.on_main + p.elsewhere == MIXED_ROWS);
    sqlbatch_stmt_finalize(s);
    log_free(&batches), log_free(&got_rows);
  }
  /* Smaller bounds than the batch stepped ahead: it is handed out in parts within them. */
  {
    sqlbatch_batch first, b;
    sqlbatch_value v;
    CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 100, NO_BOUND, &first), SQLBATCH_ROW);
    for (int64_t at = 100; at < 190; at += 30) {
      CHECK_RC(c, sqlbatch_stmt_fetch(s, 30, NO_BOUND, &b), SQLBATCH_ROW);
      CHECK(b.n_rows == 30 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == at);
      CHECK_RC(c, sqlbatch_batch_get(s, &b, 29, 0, &v), SQLBATCH_OK);
      CHECK(sqlbatch_value_int64(&v) == at + 29);
      CHECK_RC(c, sqlbatch_batch_get(s, &first, 0, 0, &v), SQLBATCH_E_STALE_BATCH);
    }
    /* Batches of 100 of these rows are small (about 15 KB): the job stepped several, and the
     * parts go on past the first of them. */
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 30, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK(b.n_rows == 30 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 29, 0)) == 219);
    /* Larger ones: never more rows than the call allows, and the rows go on in order. */
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 2000, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK(b.n_rows >= 1 && b.n_rows <= 2000 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == 220);
    sqlbatch_stmt_finalize(s);
  }
  log_free(&want), log_free(&want_rows);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_a_new_binding_between_calls(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  sqlbatch_stmt *s = NULL, *sync = NULL;
  const int64_t from[] = {0, 2990, 5, 1500, 2999, 3000};
  const size_t rows = 64, bytes = NO_BOUND;
  CHECK(mixed(c) && add_probe(c, &p));
  CHECK_RC(c, prepare(c, "SELECT probe(i), t FROM m WHERE i >= ? ORDER BY i", &s), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "SELECT probe(i), t FROM m WHERE i >= ? ORDER BY i", &sync), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
  for (size_t k = 0; k < sizeof from / sizeof from[0]; k++) {
    sqlbatch_value v = {0};
    sqlbatch_params prm = params_of(&v, 1, NULL, 0);
    sqlbatch_batch b;
    struct log want = {0}, got = {0};
    int32_t rc;
    v.kind = SQLBATCH_INTEGER;
    v.bits = (uint64_t)from[k];
    /* A bind while the next batch is (probably) being stepped drops it. */
    CHECK_RC(c, sqlbatch_stmt_bind(s, &prm), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_bind(sync, &prm), SQLBATCH_OK);
    rc = sqlbatch_stmt_fetch(s, 3, NO_BOUND, &b);
    CHECK(rc == (from[k] < 2997 ? SQLBATCH_ROW : SQLBATCH_DONE));
    if (b.n_rows) CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == from[k]);
    /* Whole results after a new binding, and after a reset. */
    CHECK_RC(c, sqlbatch_stmt_bind(s, &prm), SQLBATCH_OK);
    CHECK_RC(c, fetch_all(sync, (struct bounds){&rows, &bytes, 1}, &want, NULL), SQLBATCH_DONE);
    CHECK_RC(c, fetch_all(s, (struct bounds){&rows, &bytes, 1}, &got, NULL), SQLBATCH_DONE);
    CHECK(log_eq(&got, &want));
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, NO_BOUND, &b), from[k] < 2999 ? SQLBATCH_ROW : SQLBATCH_DONE);
    CHECK(b.n_rows == (from[k] < 3000 ? 1u : 0u));
    log_free(&want), log_free(&got);
  }
  sqlbatch_stmt_finalize(s);
  sqlbatch_stmt_finalize(sync);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_fetch_into_ahead_gives_the_synchronous_batches(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  struct log want_rows = {0};
  const size_t all = NO_BOUND;
  const size_t max_rows[] = {64, 1000, 3, 40, 17};
  const size_t sizes[][8] = {{4096}, {1 << 20}, {200}, {50, 3000, 96, 10, 200, 100000, 97, 500}, {1 << 16}};
  const size_t n_sizes[] = {1, 1, 1, 8, 1};
  sqlbatch_stmt *s = NULL;
  CHECK(mixed(c) && add_probe(c, &p));
  CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
  {
    struct log ignore = {0};
    CHECK_RC(c, fetch_all(s, (struct bounds){&max_rows[1], &all, 1}, &ignore, &want_rows), SQLBATCH_DONE);
    log_free(&ignore);
  }
  sqlbatch_stmt_finalize(s);
  for (size_t k = 0; k < sizeof max_rows / sizeof max_rows[0]; k++) {
    struct log want = {0}, got = {0}, rows_sync = {0}, rows_ahead = {0};
    sqlbatch_stmt *sync = NULL;
    int small_sync = 0, small_ahead = 0;
    CHECK_RC(c, prepare(c, Q, &sync), SQLBATCH_OK);
    CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    CHECK_RC(c, fetch_all_into(sync, max_rows[k], sizes[k], n_sizes[k], &want, &rows_sync, &small_sync), SQLBATCH_DONE);
    p.on_main = p.elsewhere = 0;
    CHECK_RC(c, fetch_all_into(s, max_rows[k], sizes[k], n_sizes[k], &got, &rows_ahead, &small_ahead), SQLBATCH_DONE);
    CHECK(log_eq(&rows_ahead, &want_rows));
    if (n_sizes[k] == 1) {
      /* The same size every time: the same batches and statuses as synchronously. */
      CHECK(log_eq(&got, &want));
      CHECK(small_ahead == small_sync);
    } else {
      /* Sizes that change from call to call (some too small for the next row): the batch
       * stepped ahead with one size is handed out in parts within the next, so the batches
       * may differ from the synchronous ones, but not the rows, and a row that does not fit
       * is still reported (checked in fetch_all_into). */
      CHECK(small_ahead > 0 && small_sync > 0);
    }
    CHECK(p.elsewhere > 0 && p.on_main + p.elsewhere == MIXED_ROWS);
    sqlbatch_stmt_finalize(sync);
    sqlbatch_stmt_finalize(s);
    log_free(&want), log_free(&got), log_free(&rows_sync), log_free(&rows_ahead);
  }
  /* The arena and the caller's buffer mixed on one statement. */
  {
    struct log rows = {0};
    size_t sz = 1 << 16;
    CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    for (int k = 0;; k++) {
      sqlbatch_batch b;
      int32_t rc;
      if (k % 2 == 0) {
        rc = sqlbatch_stmt_fetch(s, 33, NO_BOUND, &b);
        CHECK(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE);
        log_cells(&rows, &b, b.data, NULL);
      } else {
        uint8_t *buf = malloc(sz);
        CHECK(buf != NULL);
        rc = sqlbatch_stmt_fetch_into(s, 17, buf, sz, &b);
        if (rc == SQLBATCH_ROW || rc == SQLBATCH_DONE) log_cells(&rows, &b, buf, NULL);
        free(buf);
        CHECK(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE);
      }
      if (rc == SQLBATCH_DONE) break;
    }
    CHECK(log_eq(&rows, &want_rows));
    sqlbatch_stmt_finalize(s);
    log_free(&rows);
  }
  log_free(&want_rows);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_an_error_mid_result_comes_after_its_rows(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  /* abs() of the smallest integer fails with "integer overflow" at row 1,700 (rowid order:
   * a sort would evaluate every row at the first step). */
  const char *q = "SELECT probe(CASE WHEN i = 1700 THEN abs(-9223372036854775807 - 1) ELSE i END), t FROM m";
  const size_t max_rows[] = {1, 64, 1000, 1700, 1699};
  const size_t all = NO_BOUND;
  CHECK(mixed(c) && add_probe(c, &p));
  for (size_t k = 0; k < sizeof max_rows / sizeof max_rows[0]; k++) {
    struct bounds bd = {&max_rows[k], &all, 1};
    struct log want = {0}, want_rows = {0}, got = {0}, got_rows = {0};
    sqlbatch_stmt *sync = NULL, *s = NULL;
    sqlbatch_error e;
    sqlbatch_batch b;
    char want_msg[256];
    CHECK_RC(c, prepare(c, q, &sync), SQLBATCH_OK);
    CHECK_RC(c, fetch_all(sync, bd, &want, &want_rows), SQLITE_ERROR);
    CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
    CHECK(e.code == SQLITE_ERROR && strstr(e.message, "integer overflow") != NULL);
    snprintf(want_msg, sizeof want_msg, "%s", e.message);
    CHECK_RC(c, prepare(c, q, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    p.on_main = p.elsewhere = 0;
    CHECK_RC(c, fetch_all(s, bd, &got, &got_rows), SQLITE_ERROR);
    CHECK(log_eq(&got, &want)); /* the same batches, then the error in the same place */
    CHECK(log_eq(&got_rows, &want_rows));
    CHECK(p.on_main + p.elsewhere == 1700); /* the failing call of probe is not made */
    if (max_rows[k] < 1699) CHECK(p.elsewhere > 0);
    CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
    CHECK(e.code == SQLITE_ERROR && strcmp(e.message, want_msg) == 0);
    /* The failed statement keeps failing until reset, then runs again. */
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 10, NO_BOUND, &b), SQLITE_ERROR);
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
    log_free(&got), log_free(&got_rows);
    CHECK_RC(c, fetch_all(s, bd, &got, &got_rows), SQLITE_ERROR);
    CHECK(log_eq(&got_rows, &want_rows));
    sqlbatch_stmt_finalize(sync);
    sqlbatch_stmt_finalize(s);
    log_free(&want), log_free(&want_rows), log_free(&got), log_free(&got_rows);
  }
  sqlbatch_conn_close(c);
  return true;
}

/* ---- interrupts from another thread ------------------------------------------------------- */

/* Calls sqlbatch_conn_interrupt every period_ms until stopped. */
struct interrupter {
  sqlbatch_conn *conn;
  int period_ms;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool stop;
  long sent;
  pthread_t thread;
};

static void *interrupt_loop(void *arg) {
  struct interrupter *it = arg;
  pthread_mutex_lock(&it->mu);
  while (!it->stop) {
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_nsec += it->period_ms * 1000000L;
    at.tv_sec += at.tv_nsec / 1000000000L;
    at.tv_nsec %= 1000000000L;
    if (pthread_cond_timedwait(&it->cv, &it->mu, &at) != 0 && !it->stop) {
      pthread_mutex_unlock(&it->mu);
      sqlbatch_conn_interrupt(it->conn);
      pthread_mutex_lock(&it->mu);
      it->sent++;
    }
  }
  pthread_mutex_unlock(&it->mu);
  return NULL;
}

static bool interrupter_start(struct interrupter *it, sqlbatch_conn *c, int period_ms) {
  memset(it, 0, sizeof *it);
  it->conn = c;
  it->period_ms = period_ms;
  CHECK(pthread_mutex_init(&it->mu, NULL) == 0 && pthread_cond_init(&it->cv, NULL) == 0);
  CHECK(pthread_create(&it->thread, NULL, interrupt_loop, it) == 0);
  return true;
}

static long interrupter_stop(struct interrupter *it) {
  pthread_mutex_lock(&it->mu);
  it->stop = true;
  pthread_cond_signal(&it->cv);
  pthread_mutex_unlock(&it->mu);
  pthread_join(it->thread, NULL);
  pthread_cond_destroy(&it->cv);
  pthread_mutex_destroy(&it->mu);
  return it->sent;
}

static volatile uint64_t work_sink;

/* Reads an endless result x, printf('%d', x) in batches of max_rows, checking every row and
 * doing some work per row, until a fetch fails; returns its status and the rows read. */
static int32_t read_endless(sqlbatch_stmt *s, size_t max_rows, int64_t *n) {
  uint64_t h = 14695981039346656037ull;
  *n = 0;
  for (;;) {
    sqlbatch_batch b;
    int32_t rc = sqlbatch_stmt_fetch(s, max_rows, NO_BOUND, &b);
    if (rc != SQLBATCH_ROW) return rc;
    for (size_t r = 0; r < b.n_rows; r++, (*n)++) {
      const sqlbatch_value *x = sqlbatch_batch_cell(&b, r, 0), *t = sqlbatch_batch_cell(&b, r, 1);
      char want[24];
      int len = snprintf(want, sizeof want, "%lld", (long long)*n);
      if (x->kind != SQLBATCH_INTEGER || sqlbatch_value_int64(x) != *n || t->kind != SQLBATCH_TEXT ||
          t->len != (uint32_t)len || memcmp(sqlbatch_batch_bytes(&b, t), want, (size_t)len) != 0) {
        fprintf(stderr, "  row %lld is not itself\n", (long long)*n);
        return -1;
      }
      for (int k = 0; k < 200; k++) h = (h ^ (uint64_t)(k + *n)) * 1099511628211ull; /* the caller's work */
    }
    work_sink = h;
    if (*n > 100000000) return -2; /* no interrupt came */
  }
}

static bool test_an_interrupt_from_another_thread_stops_a_long_fetch_ahead(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  sqlbatch_stmt *s = NULL;
  const size_t max_rows[] = {1, 64, 500, 4096};
  const int period_ms[] = {1, 3, 10, 30};
  CHECK(add_probe(c, &p));
  CHECK_RC(c, prepare(c, LONG, &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
  for (size_t k = 0; k < 4; k++) {
    struct interrupter it;
    sqlbatch_batch b;
    int64_t n = 0;
    int32_t rc;
    long sent;
    CHECK(interrupter_start(&it, c, period_ms[k]));
    rc = read_endless(s, max_rows[k], &n);
    sent = interrupter_stop(&it);
    CHECK_RC(c, rc, SQLITE_INTERRUPT);
    CHECK(sent > 0 && n >= 0);
    /* The statement stays failed: it is interrupted, not ended. */
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 10, NO_BOUND, &b), SQLITE_INTERRUPT);
    /* Reset, and it runs again from the start; the interrupt is forgotten. */
    p.on_main = p.elsewhere = 0;
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 10, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK(b.n_rows == 10 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 9, 0)) == 9);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 1000, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK(b.n_rows >= 1 && b.n_rows <= 1000 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == 10);
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
    CHECK(p.elsewhere > 0);
  }
  /* From the caller's own thread, while the worker steps the next batch: as synchronously,
   * the next fetch takes the row the statement stood on and meets the interrupt at its next
   * step, so it returns that one row, and the fetch after it the interrupt. */
  {
    sqlbatch_batch b;
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 1000, NO_BOUND, &b), SQLBATCH_ROW);
    sqlbatch_conn_interrupt(c);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 1000, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK(b.n_rows == 1 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == 1000);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 1000, NO_BOUND, &b), SQLITE_INTERRUPT);
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
  }
  sqlbatch_stmt_finalize(s);
  /* The connection is usable afterwards. */
  CHECK_RC(c, exec(c, "CREATE TABLE after(x); INSERT INTO after VALUES (1)"), SQLBATCH_OK);
  sqlbatch_conn_close(c);
  return true;
}

/* ---- finalize, reset and close while a batch is stepped ahead ------------------------------ */

static bool test_finalize_reset_and_close_while_a_batch_is_stepped_ahead(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  CHECK(mixed(c) && add_probe(c, &p));
  /* Reset drops the batch stepped ahead; the statement starts over. */
  CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
  for (int k = 0; k < 50; k++) {
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 100, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK(b.n_rows == 100 && sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == 0);
    CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 99, 0)) == 99);
    CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
  }
  sqlbatch_stmt_finalize(s);
  /* Finalize with an endless result stepped ahead, through fetch and through fetch_into. */
  for (int k = 0; k < 20; k++) {
    CHECK_RC(c, prepare(c, LONG, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    if (k % 2 == 0) {
      CHECK_RC(c, sqlbatch_stmt_fetch(s, 2000, NO_BOUND, &b), SQLBATCH_ROW);
    } else {
      uint8_t buf[1 << 14];
      CHECK_RC(c, sqlbatch_stmt_fetch_into(s, 2000, buf, sizeof buf, &b), SQLBATCH_ROW);
    }
    sqlbatch_stmt_finalize(s);
  }
  /* The connection works on, and no statement is left running. */
  CHECK_RC(c, exec(c, "CREATE TABLE after(x); INSERT INTO after VALUES (1)"), SQLBATCH_OK);
  sqlbatch_conn_close(c);
  /* Close with a batch stepped ahead: the statement then says CLOSED, and finalizes. Also
   * with a second statement mid-result beside it, and one finalized after the close. */
  for (int k = 0; k < 10; k++) {
    sqlbatch_stmt *t = NULL;
    c = open_memory();
    CHECK(add_probe(c, &p));
    CHECK_RC(c, prepare(c, LONG, &s), SQLBATCH_OK);
    CHECK_RC(c, prepare(c, LONG, &t), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(t, true), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_fetch(t, 1 + (size_t)k * 100, NO_BOUND, &b), SQLBATCH_ROW);
    CHECK_RC(c, sqlbatch_stmt_fetch(s, 1 + (size_t)k * 300, NO_BOUND, &b), SQLBATCH_ROW);
    if (k % 2) sqlbatch_stmt_finalize(t);
    sqlbatch_conn_close(c);
    CHECK_RC(NULL, sqlbatch_stmt_fetch(s, 10, NO_BOUND, &b), SQLBATCH_E_CLOSED);
    CHECK_RC(NULL, sqlbatch_stmt_set_fetch_ahead(s, false), SQLBATCH_E_CLOSED);
    sqlbatch_stmt_finalize(s);
    if (k % 2 == 0) sqlbatch_stmt_finalize(t);
  }
  return true;
}

/* ---- write-behind ------------------------------------------------------------------------- */

#define BULK_ROWS 500

/* A parameter buffer of BULK_ROWS rows (i, i * 0.25, 'row-i'), its text bytes at `data`. */
struct pbuf {
  sqlbatch_value v[BULK_ROWS * 3];
  uint8_t data[BULK_ROWS * 32];
  size_t data_len;
};

static sqlbatch_params pbuf_fill(struct pbuf *b, int64_t from) {
  memset(b, 0xa5, sizeof *b); /* what was there before is gone */
  b->data_len = 0;
  for (int r = 0; r < BULK_ROWS; r++) {
    int64_t i = from + r;
    double d = (double)i * 0.25;
    sqlbatch_value *v = &b->v[3 * r];
    int len = snprintf((char *)b->data + b->data_len, 32, "row-%lld", (long long)i);
    memset(v, 0, 3 * sizeof *v);
    v[0].kind = SQLBATCH_INTEGER;
    v[0].bits = (uint64_t)i;
    v[1].kind = SQLBATCH_FLOAT;
    memcpy(&v[1].bits, &d, sizeof d);
    v[2].kind = SQLBATCH_TEXT;
    v[2].bits = b->data_len;
    v[2].len = (uint32_t)len;
    b->data_len += (size_t)len;
  }
  return params_of(b->v, BULK_ROWS * 3, b->data, b->data_len);
}

static bool write_result_eq(const sqlbatch_write_result *a, const sqlbatch_write_result *b) {
  return a->rows == b->rows && a->changes == b->changes && a->last_insert_rowid == b->last_insert_rowid;
}

/* Every row of `sql` on `c` into `l`. */
static bool dump(sqlbatch_conn *c, const char *sql, struct log *l) {
  sqlbatch_stmt *s = NULL;
  const size_t rows = 777, bytes = NO_BOUND;
  CHECK_RC(c, prepare(c, sql, &s), SQLBATCH_OK);
  CHECK_RC(c, fetch_all(s, (struct bounds){&rows, &bytes, 1}, l, NULL), SQLBATCH_DONE);
  sqlbatch_stmt_finalize(s);
  return true;
}

static bool test_write_behind_with_two_buffers_writes_what_execute_many_writes(void) {
  enum { BATCHES = 21 };
  sqlbatch_conn *a = open_memory(), *b = open_memory();
  sqlbatch_stmt *sa = NULL, *sb = NULL;
  static struct pbuf sync_buf, bufs[2];
  sqlbatch_write_result want[BATCHES];
  struct log da = {0}, db = {0};
  const char *schema = "CREATE TABLE bulk(a INTEGER PRIMARY KEY, b REAL, c TEXT); BEGIN";
  CHECK_RC(a, exec(a, schema), SQLBATCH_OK);
  CHECK_RC(b, exec(b, schema), SQLBATCH_OK);
  CHECK_RC(a, prepare(a, "INSERT INTO bulk VALUES (?, ?, ?)", &sa), SQLBATCH_OK);
  CHECK_RC(b, prepare(b, "INSERT INTO bulk VALUES (?, ?, ?)", &sb), SQLBATCH_OK);
  /* start(b0); fill b1; wait(); start(b1); fill b0; wait(); start(b0); ...; wait(). */
  for (int k = 0; k <= BATCHES; k++) {
    sqlbatch_params p;
    sqlbatch_write_result got;
    if (k < BATCHES) {
      p = pbuf_fill(&sync_buf, (int64_t)k * BULK_ROWS);
      CHECK_RC(a, sqlbatch_stmt_execute_many(sa, &p, BULK_ROWS, &want[k]), SQLBATCH_OK);
      p = pbuf_fill(&bufs[k % 2], (int64_t)k * BULK_ROWS); /* while the worker writes bufs[(k - 1) % 2] */
    }
    if (k > 0) {
      memset(&got, 0xff, sizeof got);
      CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, &got), SQLBATCH_OK);
      CHECK(write_result_eq(&got, &want[k - 1]));
      CHECK(got.rows == BULK_ROWS && got.changes == BULK_ROWS && got.last_insert_rowid == (int64_t)k * BULK_ROWS - 1);
    }
    if (k < BATCHES) {
      CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p, BULK_ROWS), SQLBATCH_OK);
      memset(&p, 0, sizeof p); /* the sqlbatch_params struct itself is read before start returns */
    }
  }
  /* The parameter memory is the caller's again. */
  memset(bufs, 0, sizeof bufs);
  CHECK_RC(a, exec(a, "COMMIT"), SQLBATCH_OK);
  CHECK_RC(b, exec(b, "COMMIT"), SQLBATCH_OK);
  CHECK(dump(a, "SELECT a, b, c FROM bulk ORDER BY a", &da) && dump(b, "SELECT a, b, c FROM bulk ORDER BY a", &db));
  CHECK(log_eq(&da, &db));
  log_free(&da), log_free(&db);
  CHECK(dump(b, "SELECT count(*), sum(a), min(c), max(c) FROM bulk", &db));
  CHECK(dump(a, "SELECT 10500, 10500 * 10499 / 2, 'row-0', 'row-9999'", &da));
  CHECK(log_eq(&da, &db));
  log_free(&da), log_free(&db);
  /* The same write-behind on a statement with no parameters, and on an empty statement. */
  {
    sqlbatch_stmt *z = NULL, *e = NULL;
    sqlbatch_write_result w;
    CHECK_RC(b, exec(b, "CREATE TABLE z(x DEFAULT 1)"), SQLBATCH_OK);
    CHECK_RC(b, prepare(b, "INSERT INTO z DEFAULT VALUES", &z), SQLBATCH_OK);
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(z, NULL, 5), SQLBATCH_OK);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(z, &w), SQLBATCH_OK);
    CHECK(w.rows == 5 && w.changes == 5);
    CHECK_RC(b, prepare(b, "  -- nothing\n", &e), SQLBATCH_OK);
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(e, NULL, 3), SQLBATCH_OK);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(e, NULL), SQLBATCH_OK); /* out_result may be NULL */
    sqlbatch_stmt_finalize(z);
    sqlbatch_stmt_finalize(e);
  }
  sqlbatch_stmt_finalize(sa);
  sqlbatch_stmt_finalize(sb);
  sqlbatch_conn_close(a);
  sqlbatch_conn_close(b);
  return true;
}

/* The header's pattern with three buffers and two writes queued: the worker goes from one
 * batch straight to the next. A write queued behind one that fails does not run. */
static bool test_write_behind_with_three_buffers_and_two_queued(void) {
  enum { BATCHES = 22 };
  sqlbatch_conn *a = open_memory(), *b = open_memory();
  sqlbatch_stmt *sa = NULL, *sb = NULL;
  static struct pbuf sync_buf, bufs[3];
  sqlbatch_write_result want[BATCHES], got;
  struct log da = {0}, db = {0};
  const char *schema = "CREATE TABLE bulk(a INTEGER PRIMARY KEY, b REAL, c TEXT); BEGIN";
  CHECK_RC(a, exec(a, schema), SQLBATCH_OK);
  CHECK_RC(b, exec(b, schema), SQLBATCH_OK);
  CHECK_RC(a, prepare(a, "INSERT INTO bulk VALUES (?, ?, ?)", &sa), SQLBATCH_OK);
  CHECK_RC(b, prepare(b, "INSERT INTO bulk VALUES (?, ?, ?)", &sb), SQLBATCH_OK);
  /* start(b0); fill b1; start(b1); fill b2; wait() (b0); start(b2); fill b0; wait() (b1); ... */
  for (int k = 0; k < BATCHES; k++) {
    sqlbatch_params p = pbuf_fill(&sync_buf, (int64_t)k * BULK_ROWS);
    CHECK_RC(a, sqlbatch_stmt_execute_many(sa, &p, BULK_ROWS, &want[k]), SQLBATCH_OK);
    p = pbuf_fill(&bufs[k % 3], (int64_t)k * BULK_ROWS); /* while the worker writes the two before */
    if (k >= 2) {
      memset(&got, 0xff, sizeof got);
      CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, &got), SQLBATCH_OK);
      CHECK(write_result_eq(&got, &want[k - 2]));
    }
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p, BULK_ROWS), SQLBATCH_OK);
  }
  for (int k = BATCHES - 2; k < BATCHES; k++) {
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, &got), SQLBATCH_OK);
    CHECK(write_result_eq(&got, &want[k]));
  }
  CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, &got), SQLITE_MISUSE);
  CHECK_RC(a, exec(a, "COMMIT"), SQLBATCH_OK);
  CHECK_RC(b, exec(b, "COMMIT"), SQLBATCH_OK);
  CHECK(dump(a, "SELECT a, b, c FROM bulk ORDER BY a", &da) && dump(b, "SELECT a, b, c FROM bulk ORDER BY a", &db));
  CHECK(log_eq(&da, &db));
  log_free(&da), log_free(&db);
  /* Rows 0..499 are there: the first write fails at its first row, the second is skipped. */
  {
    sqlbatch_error e;
    sqlbatch_params p0 = pbuf_fill(&bufs[0], 0), p1 = pbuf_fill(&bufs[1], (int64_t)BATCHES * BULK_ROWS);
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p0, BULK_ROWS), SQLBATCH_OK);
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p1, BULK_ROWS), SQLBATCH_OK);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, &got), SQLITE_CONSTRAINT_PRIMARYKEY);
    CHECK(got.rows == 0);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, &got), SQLBATCH_E_SKIPPED);
    CHECK(got.rows == 0 && got.changes == 0);
    CHECK_RC(b, sqlbatch_conn_last_error(b, &e), SQLBATCH_OK);
    CHECK(e.code == SQLBATCH_E_SKIPPED && strstr(e.message, "failed") != NULL);
    CHECK(strcmp(sqlbatch_code_name(SQLBATCH_E_SKIPPED), "SQLBATCH_E_SKIPPED") == 0);
    CHECK(dump(b, "SELECT count(*) FROM bulk", &db) && dump(a, "SELECT 11000", &da));
    CHECK(log_eq(&da, &db));
    log_free(&da), log_free(&db);
  }
  sqlbatch_stmt_finalize(sa);
  sqlbatch_stmt_finalize(sb);
  sqlbatch_conn_close(a);
  sqlbatch_conn_close(b);
  return true;
}

static bool test_write_behind_reports_the_failing_row_at_the_wait(void) {
  sqlbatch_conn *a = open_memory(), *b = open_memory();
  sqlbatch_stmt *sa = NULL, *sb = NULL;
  static struct pbuf bufs[2];
  struct log da = {0}, db = {0};
  /* Batch 1 (rows 500..999) meets the row 537 already there: it fails at its row 37. */
  const char *schema = "CREATE TABLE u(a INTEGER PRIMARY KEY, b REAL, c TEXT); INSERT INTO u VALUES (537, 0, 'x')";
  CHECK_RC(a, exec(a, schema), SQLBATCH_OK);
  CHECK_RC(b, exec(b, schema), SQLBATCH_OK);
  CHECK_RC(a, prepare(a, "INSERT INTO u VALUES (?, ?, ?)", &sa), SQLBATCH_OK);
  CHECK_RC(b, prepare(b, "INSERT INTO u VALUES (?, ?, ?)", &sb), SQLBATCH_OK);
  for (int k = 0; k < 3; k++) {
    sqlbatch_params p = pbuf_fill(&bufs[k % 2], (int64_t)k * BULK_ROWS);
    sqlbatch_write_result want, got;
    int32_t want_rc, got_rc;
    sqlbatch_error e;
    char want_msg[256];
    int64_t want_row_index;
    want_rc = sqlbatch_stmt_execute_many(sa, &p, BULK_ROWS, &want);
    CHECK_RC(a, sqlbatch_conn_last_error(a, &e), SQLBATCH_OK);
    snprintf(want_msg, sizeof want_msg, "%s", want_rc ? e.message : "");
    want_row_index = e.row_index;
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p, BULK_ROWS), SQLBATCH_OK);
    memset(&got, 0xff, sizeof got);
    got_rc = sqlbatch_stmt_execute_many_wait(sb, &got);
    CHECK(got_rc == want_rc);
    CHECK(write_result_eq(&got, &want));
    if (k == 1) {
      CHECK_RC(b, got_rc, SQLITE_CONSTRAINT_PRIMARYKEY);
      CHECK(got.rows == 37 && got.changes == 37);
      CHECK_RC(b, sqlbatch_conn_last_error(b, &e), SQLBATCH_OK);
      CHECK(e.code == SQLITE_CONSTRAINT_PRIMARYKEY && e.row_index == 37 && want_row_index == 37);
      CHECK(strcmp(e.message, want_msg) == 0 && strstr(e.message, "UNIQUE") != NULL);
    } else {
      CHECK_RC(b, got_rc, SQLBATCH_OK);
    }
  }
  /* Autocommit: the rows before the failing one stay. The statement worked on after it. */
  CHECK(dump(a, "SELECT * FROM u ORDER BY a", &da) && dump(b, "SELECT * FROM u ORDER BY a", &db));
  CHECK(log_eq(&da, &db));
  log_free(&da), log_free(&db);
  CHECK(dump(b, "SELECT count(*) FROM u", &db) && dump(a, "SELECT 500 + 37 + 1 + 500", &da));
  CHECK(log_eq(&da, &db));
  log_free(&da), log_free(&db);
  /* Errors found before any row runs come from the start, and nothing is queued. */
  {
    static sqlbatch_value names[BULK_ROWS * 3];
    sqlbatch_params p = pbuf_fill(&bufs[0], 5000);
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p, BULK_ROWS - 1), SQLBATCH_E_PARAM_COUNT);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, NULL), SQLITE_MISUSE);
    p.names = names;
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p, BULK_ROWS), SQLBATCH_E_INVALID_ARGUMENT);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, NULL), SQLITE_MISUSE);
    p.names = NULL;
    p.values = NULL;
    CHECK_RC(b, sqlbatch_stmt_execute_many_start(sb, &p, BULK_ROWS), SQLBATCH_E_NULL_PARAMETER);
    CHECK_RC(b, sqlbatch_stmt_execute_many_wait(sb, NULL), SQLITE_MISUSE);
  }
  sqlbatch_stmt_finalize(sa);
  sqlbatch_stmt_finalize(sb);
  sqlbatch_conn_close(a);
  sqlbatch_conn_close(b);
  return true;
}

static bool test_an_interrupt_stops_a_write_behind(void) {
  enum { N = 50000 };
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_value *v = calloc(N, sizeof *v);
  sqlbatch_params p = params_of(v, N, NULL, 0);
  sqlbatch_write_result w;
  struct log got = {0}, want = {0};
  int32_t rc;
  char sql[64];
  CHECK(v != NULL);
  for (int i = 0; i < N; i++) {
    v[i].kind = SQLBATCH_INTEGER;
    v[i].bits = (uint64_t)i;
  }
  CHECK_RC(c, exec(c, "CREATE TABLE q(a)"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO q VALUES (?)", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, N), SQLBATCH_OK);
  sqlbatch_conn_interrupt(c);
  rc = sqlbatch_stmt_execute_many_wait(s, &w);
  /* The interrupt may come after the last row on a fast machine; never a wrong count. */
  if (rc == SQLBATCH_OK) {
    CHECK(w.rows == N);
  } else {
    CHECK_RC(c, rc, SQLITE_INTERRUPT);
    CHECK(w.rows < N);
  }
  snprintf(sql, sizeof sql, "SELECT %llu", (unsigned long long)w.rows);
  CHECK(dump(c, "SELECT count(*) FROM q", &got) && dump(c, sql, &want));
  CHECK(log_eq(&got, &want));
  /* The statement and the connection work on. */
  p.n_values = 10;
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, 10), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, &w), SQLBATCH_OK);
  CHECK(w.rows == 10);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  free(v);
  log_free(&got), log_free(&want);
  return true;
}

/* ---- misuse -------------------------------------------------------------------------------- */

static bool test_a_queued_write_must_be_waited_for(void) {
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL, *other = NULL;
  static struct pbuf buf, buf2;
  sqlbatch_params p, p2;
  sqlbatch_batch b;
  sqlbatch_error e;
  sqlbatch_write_result w;
  struct log got = {0}, want = {0};
  uint8_t small[64];
  CHECK_RC(c, exec(c, "CREATE TABLE q(a, b, c)"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO q VALUES (?, ?, ?)", &s), SQLBATCH_OK);
  p = pbuf_fill(&buf, 0);
  /* No write queued yet. */
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, &w), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, BULK_ROWS), SQLBATCH_OK);
  /* Until the waits, the statement refuses every call with SQLITE_MISUSE but one more start
   * (two writes may be queued), a third start first. */
  p2 = pbuf_fill(&buf2, BULK_ROWS);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p2, BULK_ROWS), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, BULK_ROWS), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_conn_last_error(c, &e), SQLBATCH_OK);
  CHECK(e.code == SQLITE_MISUSE && strstr(e.message, "wait") != NULL);
  CHECK_RC(c, sqlbatch_stmt_execute_many(s, &p, BULK_ROWS, &w), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, NO_BOUND, &b), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_fetch_into(s, 1, small, sizeof small, &b), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_reset(s), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_bind(s, &p), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_clear_bindings(s), SQLITE_MISUSE);
  {
    const sqlbatch_column *cols;
    const sqlbatch_str *names;
    size_t n;
    int32_t nn;
    bool ro;
    sqlbatch_str sql;
    CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_columns(s, &cols, &n), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_column_not_null(s, 0, &nn), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_param_count(s, &n), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_params(s, &names, &n), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_param_index(s, "a", 1, &n), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_readonly(s, &ro), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_sql(s, &sql), SQLITE_MISUSE);
    CHECK_RC(c, sqlbatch_stmt_expanded_sql(s, &sql), SQLITE_MISUSE);
  }
  /* The connection and its other statements wait for the write. */
  CHECK(dump(c, "SELECT count(*) FROM q", &got) && dump(c, "SELECT 1000", &want));
  CHECK(log_eq(&got, &want));
  log_free(&got), log_free(&want);
  /* The waits report the writes the refused calls did not disturb, oldest first. */
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, &w), SQLBATCH_OK);
  CHECK(w.rows == BULK_ROWS && w.changes == BULK_ROWS && w.last_insert_rowid == BULK_ROWS);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, NO_BOUND, &b), SQLITE_MISUSE); /* one still queued */
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, &w), SQLBATCH_OK);
  CHECK(w.rows == BULK_ROWS && w.changes == BULK_ROWS && w.last_insert_rowid == 2 * BULK_ROWS);
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, &w), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_reset(s), SQLBATCH_OK);
  /* A queued write on one statement, a fetch-ahead read on another of the connection. */
  CHECK_RC(c, prepare(c, "SELECT a, c FROM q ORDER BY a", &other), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(other, true), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(other, 100, NO_BOUND, &b), SQLBATCH_ROW);
  p = pbuf_fill(&buf, 2 * BULK_ROWS); /* after the fetch: the new rows are past its 100 */
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, BULK_ROWS), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(other, 100, NO_BOUND, &b), SQLBATCH_ROW);
  CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == 100);
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, &w), SQLBATCH_OK);
  CHECK(w.rows == BULK_ROWS);
  sqlbatch_stmt_finalize(other);
  /* Finalize with a write queued: it runs, its result is dropped. */
  p = pbuf_fill(&buf, 3 * BULK_ROWS);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, BULK_ROWS), SQLBATCH_OK);
  sqlbatch_stmt_finalize(s);
  CHECK(dump(c, "SELECT count(*), max(a) FROM q", &got) && dump(c, "SELECT 2000, 1999", &want));
  CHECK(log_eq(&got, &want));
  log_free(&got), log_free(&want);
  sqlbatch_conn_close(c);
  /* Close with a write queued: it runs before the connection closes; the wait reports it. */
  c = open_memory();
  CHECK_RC(c, exec(c, "CREATE TABLE q(a, b, c)"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO q VALUES (?, ?, ?)", &s), SQLBATCH_OK);
  p = pbuf_fill(&buf, 0);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &p, BULK_ROWS), SQLBATCH_OK);
  sqlbatch_conn_close(c);
  CHECK_RC(NULL, sqlbatch_stmt_execute_many_wait(s, &w), SQLBATCH_OK);
  CHECK(w.rows == BULK_ROWS);
  CHECK_RC(NULL, sqlbatch_stmt_execute_many_start(s, &p, BULK_ROWS), SQLBATCH_E_CLOSED);
  sqlbatch_stmt_finalize(s);
  /* NULL. */
  CHECK_RC(NULL, sqlbatch_stmt_set_fetch_ahead(NULL, true), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_execute_many_start(NULL, NULL, 0), SQLBATCH_E_NULL_PARAMETER);
  CHECK_RC(NULL, sqlbatch_stmt_execute_many_wait(NULL, &w), SQLBATCH_E_NULL_PARAMETER);
  return true;
}

/* sqlbatch_stmt_status reads (and with `reset`, writes) SQLite's counters of the statement,
 * which the worker's stepping updates: like every other call it must wait for the worker,
 * and refuse a statement whose queued write was not waited for. */
static bool test_stmt_status_waits_for_the_worker(void) {
  sqlbatch_conn *c = open_memory();
  struct probe p;
  sqlbatch_stmt *s = NULL;
  static struct pbuf buf;
  sqlbatch_params prm;
  sqlbatch_batch b;
  int64_t st = -1, steps = 0;
  CHECK(mixed(c) && add_probe(c, &p));
  /* While the next batch is stepped ahead (VM_STEP 4, reset each time). */
  CHECK_RC(c, prepare(c, Q, &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_set_fetch_ahead(s, true), SQLBATCH_OK);
  for (;;) {
    int32_t rc = sqlbatch_stmt_fetch(s, 50, NO_BOUND, &b);
    CHECK(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE);
    CHECK_RC(c, sqlbatch_stmt_status(s, 4, true, &st), SQLBATCH_OK);
    CHECK(st >= 0);
    steps += st;
    if (rc == SQLBATCH_DONE) break;
  }
  CHECK(steps > MIXED_ROWS);
  sqlbatch_stmt_finalize(s);
  /* While a write is queued on it. */
  CHECK_RC(c, exec(c, "CREATE TABLE q(a, b, c)"), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO q VALUES (?, ?, ?)", &s), SQLBATCH_OK);
  prm = pbuf_fill(&buf, 0);
  CHECK_RC(c, sqlbatch_stmt_execute_many_start(s, &prm, BULK_ROWS), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_status(s, 4, true, &st), SQLITE_MISUSE);
  CHECK_RC(c, sqlbatch_stmt_execute_many_wait(s, NULL), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_status(s, 6, false, &st), SQLBATCH_OK);
  CHECK(st == BULK_ROWS); /* RUN: one run per parameter row */
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

/* A statement that writes (INSERT ... RETURNING) on a connection that fetches ahead: only
 * read-only statements step ahead, and this one gives its rows as it does synchronously.
 * (SQLite runs every insert of a RETURNING statement at its first step, so the rows of
 * probe() are all stepped on this thread either way: what this checks is the result.) */
static bool test_a_statement_that_writes_gives_its_rows_as_synchronously(void) {
  const char *ins = "INSERT INTO w WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 1000)"
                    " SELECT probe(x) FROM s RETURNING x, printf('%d', x)";
  const size_t rows = 10, bytes = NO_BOUND;
  struct log want = {0}, got = {0};
  for (int ahead = 0; ahead < 2; ahead++) {
    sqlbatch_conn *c = NULL;
    struct probe p;
    sqlbatch_stmt *s = NULL;
    bool ro = true;
    CHECK_RC(c, sqlbatch_conn_open(":memory:", 8, ahead ? SQLBATCH_OPEN_FETCH_AHEAD : 0, &c), SQLBATCH_OK);
    CHECK(add_probe(c, &p));
    CHECK_RC(c, exec(c, "CREATE TABLE w(x)"), SQLBATCH_OK);
    CHECK_RC(c, prepare(c, ins, &s), SQLBATCH_OK);
    CHECK_RC(c, sqlbatch_stmt_readonly(s, &ro), SQLBATCH_OK);
    CHECK(!ro);
    CHECK_RC(c, fetch_all(s, (struct bounds){&rows, &bytes, 1}, ahead ? &got : &want, NULL), SQLBATCH_DONE);
    CHECK(p.on_main == 1000 && p.elsewhere == 0);
    sqlbatch_stmt_finalize(s);
    sqlbatch_conn_close(c);
  }
  CHECK(log_eq(&got, &want));
  log_free(&want), log_free(&got);
  return true;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* each result before a sanitizer's report ends the run */
  RUN(test_fetch_ahead_gives_the_synchronous_batches);
  RUN(test_bounds_that_change_between_calls);
  RUN(test_a_new_binding_between_calls);
  RUN(test_fetch_into_ahead_gives_the_synchronous_batches);
  RUN(test_an_error_mid_result_comes_after_its_rows);
  RUN(test_an_interrupt_from_another_thread_stops_a_long_fetch_ahead);
  RUN(test_finalize_reset_and_close_while_a_batch_is_stepped_ahead);
  RUN(test_write_behind_with_two_buffers_writes_what_execute_many_writes);
  RUN(test_write_behind_with_three_buffers_and_two_queued);
  RUN(test_write_behind_reports_the_failing_row_at_the_wait);
  RUN(test_an_interrupt_stops_a_write_behind);
  RUN(test_a_queued_write_must_be_waited_for);
  RUN(test_a_statement_that_writes_gives_its_rows_as_synchronously);
  RUN(test_stmt_status_waits_for_the_worker);
  return finish();
}
