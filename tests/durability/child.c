/*
 * child.c: the writer the crash-durability test (run.py) kills. It commits numbered
 * transactions into one database through one write path of the C ABI and reports each commit
 * the library acknowledged, on stdout, only after the call that committed returned success.
 *
 *   child DB PATH JOURNAL SYNC
 *     PATH     exec     each transaction is one sqlbatch_conn_exec of a script (BEGIN ...
 *                       COMMIT) with its parameters
 *              many     each statement of the transaction (BEGIN, the inserts, the delete, the
 *                       update, COMMIT) is a prepared statement run by sqlbatch_stmt_execute_many
 *              behind   the same statements queued with sqlbatch_stmt_execute_many_start (the
 *                       inserts in two writes queued at once on one statement, COMMIT on the
 *                       worker thread), then waited for with _wait, in order
 *     JOURNAL  wal | delete;  SYNC  full | normal
 *
 * Protocol (one line each, written with a single write(2)):
 *   ready LAST TOTAL JOURNAL SYNC   after opening (which recovers a hot journal or WAL): the
 *                                   last transaction the database holds, its row total, and
 *                                   the journal mode and synchronous level read back
 *   ack N                           transaction N is committed (the call returned success)
 * then transactions LAST+1, LAST+2, ... until killed. Any failure exits with status 2 and a
 * message on stderr.
 *
 * What transaction N writes is a function of N alone (shared with run.py and the Go child):
 * rows(N) rows (N, k, h(N, k), v(N, k)) into t; the rows of transaction N - 8 with k >= 2
 * deleted; meta.last = N and meta.total += rows(N). So the parent can tell exactly what a
 * database holding transactions 1..N must contain.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlbatch.h"

#define KEEP 8        /* transaction N deletes rows k >= 2 of transaction N - KEEP */
#define MAX_ROWS 200  /* rows of the largest transaction */
#define MAX_VALUE 9000

static sqlbatch_conn *conn;

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* The rows of transaction n: 1 to 24, and 200 for one transaction in 16. */
static size_t tx_rows(int64_t n) {
  uint64_t h = mix((uint64_t)n);
  return (h >> 8) % 16 == 0 ? MAX_ROWS : 1 + h % 24;
}

static uint64_t row_seed(int64_t n, size_t k) { return mix(((uint64_t)n << 16) | k); }

/* The length of v(n, k): up to 96 bytes, and 3,000 to 9,000 (overflow pages) for one in 32. */
static size_t value_len(uint64_t seed) {
  return (seed >> 40) % 32 == 0 ? 3000 + (seed >> 20) % 6001 : (seed >> 20) % 97;
}

/* v(n, k): the 8 little-endian bytes of its seed, repeated. */
static void value_bytes(uint64_t seed, uint8_t *out, size_t len) {
  for (size_t i = 0; i < len; i++) out[i] = (uint8_t)(seed >> (8 * (i % 8)));
}

static void die(int32_t rc, const char *what) {
  sqlbatch_error e;
  const char *msg = "";
  if (conn && sqlbatch_conn_last_error(conn, &e) == SQLBATCH_OK) msg = e.message;
  fprintf(stderr, "child: %s: %s (%d): %s\n", what, sqlbatch_code_str(rc), (int)rc, msg);
  exit(2);
}

static void check(int32_t rc, const char *what) {
  if (rc != SQLBATCH_OK) die(rc, what);
}

static void say(const char *line) {
  size_t len = strlen(line);
  if (write(1, line, len) != (ssize_t)len) {
    fprintf(stderr, "child: write to the parent: %s\n", strerror(errno));
    exit(2);
  }
}

static void exec(const char *sql) {
  check(sqlbatch_conn_exec(conn, sql, strlen(sql), NULL, NULL), sql);
}

static sqlbatch_stmt *prepare(const char *sql) {
  sqlbatch_stmt *s = NULL;
  check(sqlbatch_stmt_prepare(conn, sql, strlen(sql), SQLBATCH_PREPARE_PERSISTENT, &s, NULL), sql);
  return s;
}

/* The first column of the first row of sql, as an integer or (into text) as text. */
static int64_t query_one(const char *sql, char *text, size_t text_len) {
  sqlbatch_stmt *s = prepare(sql);
  sqlbatch_batch b;
  int32_t rc = sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b);
  if ((rc != SQLBATCH_ROW && rc != SQLBATCH_DONE) || b.n_rows != 1) die(rc, sql);
  const sqlbatch_value *v = sqlbatch_batch_cell(&b, 0, 0);
  int64_t n = 0;
  if (v->kind == SQLBATCH_INTEGER) n = sqlbatch_value_int64(v);
  if (text) {
    size_t len = v->kind == SQLBATCH_TEXT && v->len < text_len ? v->len : 0;
    if (len) memcpy(text, sqlbatch_batch_bytes(&b, v), len);
    text[len] = 0;
  }
  sqlbatch_stmt_finalize(s);
  return n;
}

/* The parameters of one transaction: its rows (4 values each, BLOB bytes at offsets into
 * data), then the delete's and the update's. */
struct tx {
  int64_t n;
  size_t rows;
  sqlbatch_value values[MAX_ROWS * 4 + 3];
  uint8_t data[MAX_ROWS * MAX_VALUE];
  size_t data_len;
};

static void fill(struct tx *t, int64_t n) {
  memset(t->values, 0, sizeof t->values);
  t->n = n;
  t->rows = tx_rows(n);
  t->data_len = 0;
  for (size_t k = 0; k < t->rows; k++) {
    uint64_t seed = row_seed(n, k);
    size_t len = value_len(seed);
    sqlbatch_value *v = &t->values[k * 4];
    v[0].kind = SQLBATCH_INTEGER, v[0].bits = (uint64_t)n;
    v[1].kind = SQLBATCH_INTEGER, v[1].bits = k;
    v[2].kind = SQLBATCH_INTEGER, v[2].bits = seed; /* h: the seed as a signed 64-bit integer */
    v[3].kind = SQLBATCH_BLOB, v[3].bits = t->data_len, v[3].len = (uint32_t)len;
    value_bytes(seed, t->data + t->data_len, len);
    t->data_len += len;
  }
  sqlbatch_value *tail = &t->values[t->rows * 4];
  tail[0].kind = SQLBATCH_INTEGER, tail[0].bits = (uint64_t)(n - KEEP); /* DELETE ... tx = ? */
  tail[1].kind = SQLBATCH_INTEGER, tail[1].bits = (uint64_t)n;          /* meta.last */
  tail[2].kind = SQLBATCH_INTEGER, tail[2].bits = t->rows;              /* meta.total += */
}

static sqlbatch_params params(const struct tx *t, size_t first, size_t n_values) {
  sqlbatch_params p = {.values = t->values + first, .n_values = n_values, .data = t->data, .data_len = t->data_len};
  if (t->data_len == 0) p.data = NULL;
  return p;
}

static const char *INSERT = "INSERT INTO t(tx, k, h, v) VALUES (?, ?, ?, ?)";
static const char *DELETE = "DELETE FROM t WHERE tx = ? AND k >= 2";
static const char *UPDATE = "UPDATE meta SET last = ?, total = total + ? WHERE id = 1";

/* exec: the whole transaction as one script with its parameters. */
static void commit_exec(const struct tx *t) {
  static char sql[64 + MAX_ROWS * 16 + 256];
  size_t at = (size_t)sprintf(sql, "BEGIN; INSERT INTO t(tx, k, h, v) VALUES ");
  for (size_t k = 0; k < t->rows; k++) at += (size_t)sprintf(sql + at, k ? ",(?,?,?,?)" : "(?,?,?,?)");
  at += (size_t)sprintf(sql + at, "; %s; %s; COMMIT;", DELETE, UPDATE);
  sqlbatch_params p = params(t, 0, t->rows * 4 + 3);
  check(sqlbatch_conn_exec(conn, sql, at, &p, NULL), "exec of a transaction");
}

static sqlbatch_stmt *s_begin, *s_insert, *s_delete, *s_update, *s_commit;

/* many: every statement of the transaction through sqlbatch_stmt_execute_many. */
static void commit_many(const struct tx *t) {
  sqlbatch_params rows = params(t, 0, t->rows * 4);
  sqlbatch_params del = params(t, t->rows * 4, 1);
  sqlbatch_params upd = params(t, t->rows * 4 + 1, 2);
  check(sqlbatch_stmt_execute_many(s_begin, NULL, 1, NULL), "execute_many BEGIN");
  check(sqlbatch_stmt_execute_many(s_insert, &rows, t->rows, NULL), "execute_many INSERT");
  check(sqlbatch_stmt_execute_many(s_delete, &del, 1, NULL), "execute_many DELETE");
  check(sqlbatch_stmt_execute_many(s_update, &upd, 1, NULL), "execute_many UPDATE");
  check(sqlbatch_stmt_execute_many(s_commit, NULL, 1, NULL), "execute_many COMMIT");
}

/* behind: the same statements queued on the worker; the inserts as two writes queued on one
 * statement at once. Every write is waited for in order; the acknowledgement follows the wait
 * of COMMIT, which the worker ran. */
static void commit_behind(const struct tx *t) {
  size_t half = t->rows / 2;
  sqlbatch_params first = params(t, 0, half * 4);
  sqlbatch_params second = params(t, half * 4, (t->rows - half) * 4);
  sqlbatch_params del = params(t, t->rows * 4, 1);
  sqlbatch_params upd = params(t, t->rows * 4 + 1, 2);
  sqlbatch_write_result r;
  check(sqlbatch_stmt_execute_many_start(s_begin, NULL, 1), "start BEGIN");
  check(sqlbatch_stmt_execute_many_start(s_insert, &first, half), "start INSERT (first half)");
  check(sqlbatch_stmt_execute_many_start(s_insert, &second, t->rows - half), "start INSERT (second half)");
  check(sqlbatch_stmt_execute_many_start(s_delete, &del, 1), "start DELETE");
  check(sqlbatch_stmt_execute_many_start(s_update, &upd, 1), "start UPDATE");
  check(sqlbatch_stmt_execute_many_start(s_commit, NULL, 1), "start COMMIT");
  check(sqlbatch_stmt_execute_many_wait(s_begin, &r), "wait BEGIN");
  check(sqlbatch_stmt_execute_many_wait(s_insert, &r), "wait INSERT (first half)");
  if (r.rows != half) die(SQLBATCH_OK, "wait INSERT (first half): wrong row count");
  check(sqlbatch_stmt_execute_many_wait(s_insert, &r), "wait INSERT (second half)");
  if (r.rows != t->rows - half) die(SQLBATCH_OK, "wait INSERT (second half): wrong row count");
  check(sqlbatch_stmt_execute_many_wait(s_delete, &r), "wait DELETE");
  check(sqlbatch_stmt_execute_many_wait(s_update, &r), "wait UPDATE");
  if (r.changes != 1) die(SQLBATCH_OK, "wait UPDATE: no row changed");
  check(sqlbatch_stmt_execute_many_wait(s_commit, &r), "wait COMMIT");
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: child DB exec|many|behind wal|delete full|normal\n");
    return 2;
  }
  const char *path = argv[1], *how = argv[2], *journal = argv[3], *sync = argv[4];
  void (*commit)(const struct tx *) = !strcmp(how, "exec")   ? commit_exec
                                      : !strcmp(how, "many")   ? commit_many
                                      : !strcmp(how, "behind") ? commit_behind
                                                               : NULL;
  if (!commit || (strcmp(journal, "wal") && strcmp(journal, "delete")) ||
      (strcmp(sync, "full") && strcmp(sync, "normal"))) {
    fprintf(stderr, "child: bad arguments\n");
    return 2;
  }
  int32_t rc = sqlbatch_conn_open(path, strlen(path), SQLBATCH_OPEN_READWRITE | SQLBATCH_OPEN_CREATE, &conn);
  check(rc, "open");

  /* The journal mode first: in WAL mode this build's default synchronous is NORMAL
   * (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1), so the level is set after it, and both are read back. */
  char setup[256];
  snprintf(setup, sizeof setup,
           "PRAGMA journal_mode = %s; PRAGMA synchronous = %s; PRAGMA cache_size = -256;"
           "PRAGMA wal_autocheckpoint = 64;",
           journal, sync);
  exec(setup);
  exec("BEGIN;"
       "CREATE TABLE IF NOT EXISTS t(tx INTEGER NOT NULL, k INTEGER NOT NULL, h INTEGER NOT NULL,"
       "  v BLOB NOT NULL, PRIMARY KEY (tx, k));"
       "CREATE INDEX IF NOT EXISTS t_h ON t(h);"
       "CREATE TABLE IF NOT EXISTS meta(id INTEGER PRIMARY KEY, last INTEGER NOT NULL, total INTEGER NOT NULL);"
       "INSERT OR IGNORE INTO meta VALUES (1, 0, 0);"
       "COMMIT;");
  char mode[32];
  query_one("PRAGMA journal_mode", mode, sizeof mode);
  int64_t level = query_one("PRAGMA synchronous", NULL, 0);
  int64_t last = query_one("SELECT last FROM meta WHERE id = 1", NULL, 0);
  int64_t total = query_one("SELECT total FROM meta WHERE id = 1", NULL, 0);
  char line[128];
  snprintf(line, sizeof line, "ready %lld %lld %s %s\n", (long long)last, (long long)total, mode,
           level == 2 ? "full" : level == 1 ? "normal" : "other");
  say(line);

  s_begin = prepare("BEGIN");
  s_insert = prepare(INSERT);
  s_delete = prepare(DELETE);
  s_update = prepare(UPDATE);
  s_commit = prepare("COMMIT");
  static struct tx t;
  for (int64_t n = last + 1;; n++) {
    fill(&t, n);
    commit(&t);
    snprintf(line, sizeof line, "ack %lld\n", (long long)n);
    say(line);
  }
}
