/*
 * bench.c: the C implementations of the cross-language runner (see benches/README.md).
 *
 *   c-native    the loop a C programmer writes today: sqlite3_step + sqlite3_column_*,
 *               sqlite3_exec, a prepared insert loop (benches/native/native_loop.c, the
 *               baseline the Go and Haskell benchmarks share). It runs the very SQLite object
 *               that is inside libsqlbatch.a, opened with the same flags (SQLITE_OPEN_NOMUTEX,
 *               extended result codes); see benches/README.md, "The native C baseline".
 *   c-sqlbatch  the same work through the sqlbatch C ABI (for the udf workloads: f through
 *               sqlbatch_conn_create_function, sumsq through sqlbatch_conn_create_aggregate,
 *               batched; for issue 15's point_query, few_rows, prepare_churn, small_tx and
 *               large_values: sqlbatch_stmt_bind, sqlbatch_stmt_fetch, sqlbatch_stmt_reset,
 *               sqlbatch_conn_exec for BEGIN/COMMIT, as a C user of the ABI writes them;
 *               for issue 11's blob_read, blob_many and backup: sqlbatch_blob_read in
 *               64 KiB ranges, sqlbatch_blob_read_many, sqlbatch_backup_init/_step/_finish).
 *               With SQLBATCH_BENCH_AHEAD=1 (c-sqlbatch+ahead): fetch-ahead on the fetch
 *               workloads, write-behind on bulk_insert (issue 14); exit 3 on the others.
 *
 * Encryption (issue 34): build/bench/c-bench-enc is this file linked against the encrypted
 * build of the library (SQLCipher). SQLBATCH_BENCH_BULK_FILE=1 makes c-sqlbatch's
 * bulk_insert write a fresh file (<$TMPDIR or /tmp>/sqlbatch-bench-bulk-<pid>.db,
 * synchronous=OFF) instead of :memory:, which SQLCipher does not encrypt; with
 * SQLBATCH_BENCH_KEY=PASSPHRASE as well, c-sqlbatch opens the fetch workloads' input (an
 * encrypted copy) and that file with sqlbatch_conn_open_encrypted, SQLCipher's default
 * settings. Both: exit 3 for c-native and for the other workloads.
 *
 * Usage: c-bench --impl NAME --workload W --input PATH_OR_COUNT --reps N --warmup W
 *        c-bench --version
 *        SQLBATCH_BENCH_KEY=PASSPHRASE c-bench --encrypt PLAIN.db COPY.db
 *            (the encrypted build: writes an encrypted copy with sqlbatch_conn_export)
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "native_loop.h"
#include "native_vtab.h"
#include "sqlbatch.h"

#define BATCH_ROWS 256
#define BATCH_BYTES (256 * 1024)

static void die(const char *what, const char *detail) {
  fprintf(stderr, "c-bench: %s: %s\n", what, detail ? detail : "");
  exit(1);
}

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The start of a repetition's timed part: the wall clock and the process's CPU time (user +
 * sys, all threads: a library worker thread's too). */
typedef struct {
  uint64_t wall, cpu;
} stamp;

static stamp now_ns(void) { return (stamp){clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_PROCESS_CPUTIME_ID)}; }

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die(path, "read failed");
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* One measured repetition: its time, count and checksum. */
typedef struct {
  uint64_t ns, cpu_ns; /* wall and CPU time of the timed part */
  int64_t count, checksum;
} rep;

/* The end of the timed part that started at t0. */
static void stop_clock(rep *r, stamp t0) {
  stamp t1 = now_ns();
  r->ns = t1.wall - t0.wall;
  r->cpu_ns = t1.cpu - t0.cpu;
}

/* ---------------- native ---------------- */

/* The loops are benches/native/native_loop.c, shared with the Go and Haskell benchmarks. */

static sqlite3 *n_open(const char *path) {
  const char *err = NULL;
  sqlite3 *db = nb_open(path, &err);
  if (!db) die("open", err);
  return db;
}

static void n_check(int rc, const char *what) {
  if (rc != 0) die(what, "SQLite error");
}

/* wide: 0 fetch_narrow, 1 fetch_wide, 2 fetch_work. */
static rep n_fetch(sqlite3 *db, int wide) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(wide == 2   ? nb_fetch_work(db, &r.count, &r.checksum)
          : wide ? nb_fetch_wide(db, &r.count, &r.checksum)
                 : nb_fetch_narrow(db, &r.count, &r.checksum),
          "fetch");
  stop_clock(&r, t0);
  return r;
}

static rep n_exec_script(const char *script) {
  rep r = {0, 0, 0, 0};
  const char *err = NULL;
  sqlite3 *db = n_open(":memory:");
  if (nb_exec(db, "CREATE TABLE script_t(a INTEGER, b TEXT)", &err) != 0) die("exec", err);
  stamp t0 = now_ns();
  if (nb_exec(db, script, &err) != 0) die("exec", err);
  stop_clock(&r, t0);
  n_check(nb_scalar2(db, "SELECT count(*), sum(a) FROM script_t", &r.count, &r.checksum), "check");
  nb_close(db);
  return r;
}

static rep n_bulk_insert(const nb_rows *rows) {
  rep r = {0, 0, 0, 0};
  const char *err = NULL;
  sqlite3 *db = n_open(":memory:");
  if (nb_exec(db, "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)", &err) != 0) die("exec", err);
  stamp t0 = now_ns();
  n_check(nb_bulk_insert(db, rows), "insert");
  stop_clock(&r, t0);
  n_check(nb_scalar2(db, "SELECT count(*), sum(a) + sum(length(c)) FROM bulk", &r.count, &r.checksum), "check");
  nb_close(db);
  return r;
}

static rep n_udf(sqlite3 *db, int aggregate) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(aggregate ? nb_udf_aggregate(db, &r.count, &r.checksum) : nb_udf_scalar(db, &r.count, &r.checksum), "udf");
  stop_clock(&r, t0);
  return r;
}

/* update_hook: the UPDATE inside BEGIN ... ROLLBACK, only the UPDATE timed. */
static rep n_update_hook(sqlite3 *db) {
  rep r = {0, 0, 0, 0};
  const char *err;
  if (nb_exec(db, "BEGIN", &err) != 0) die("begin", err);
  stamp t0 = now_ns();
  n_check(nb_update_hook(db, &r.count, &r.checksum), "update");
  stop_clock(&r, t0);
  if (nb_exec(db, "ROLLBACK", &err) != 0) die("rollback", err);
  return r;
}

/* ---- issue 15 (native) ---- */

/* The file of prepare_churn and small_tx: <$TMPDIR or /tmp>/sqlbatch-bench-<pid>.db. */
static char churn_path[4096];

static void set_churn_path(void) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int k = snprintf(churn_path, sizeof churn_path, "%s/sqlbatch-bench-%ld.db", tmp, (long)getpid());
  if (k < 0 || k >= (int)sizeof churn_path) die("TMPDIR", "too long");
}

static void remove_churn_files(void) {
  if (churn_path[0]) nb_churn_remove(churn_path);
}

static int64_t churn_count(const char *input) {
  char *end;
  long long n = strtoll(input, &end, 10);
  if (*end || n <= 0) die("row count", input);
  return n;
}

/* point_query, few_rows: the statement prepared once per process (untimed). */
static rep n_small_reads(sqlite3_stmt *s, int few) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(few ? nb_few_rows(s, NB_FEW_ROWS_QUERIES, &r.count, &r.checksum)
              : nb_point_query(s, NB_POINT_QUERIES, &r.count, &r.checksum),
          "query");
  stop_clock(&r, t0);
  return r;
}

/* prepare_churn, small_tx: a fresh file per repetition (untimed), the INSERT of small_tx
 * prepared untimed. */
static rep n_churn(int64_t n, int small_tx) {
  rep r = {0, 0, 0, 0};
  const char *err = NULL;
  sqlite3 *db = nb_churn_open(churn_path, &err);
  if (!db) die("churn open", err);
  sqlite3_stmt *ins = NULL;
  if (small_tx) n_check(nb_prepare(db, NB_CHURN_INSERT_SQL, &ins), "prepare");
  stamp t0 = now_ns();
  n_check(small_tx ? nb_small_tx(db, ins, n) : nb_prepare_churn(db, n), "insert");
  stop_clock(&r, t0);
  nb_finalize(ins);
  n_check(nb_scalar2(db, NB_CHURN_CHECK_SQL, &r.count, &r.checksum), "check");
  nb_close(db);
  return r;
}

static rep n_large_values(sqlite3 *db) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(nb_large_values(db, &r.count, &r.checksum), "large_values");
  stop_clock(&r, t0);
  return r;
}

/* ---- issue 11: blob_read, blob_many, backup (native) ---- */

/* The copy of backup: <$TMPDIR or /tmp>/sqlbatch-bench-backup-<pid>.db, removed before and
 * after every repetition (and at exit). */
static char backup_path[4096];

static void set_backup_path(void) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int k = snprintf(backup_path, sizeof backup_path, "%s/sqlbatch-bench-backup-%ld.db", tmp, (long)getpid());
  if (k < 0 || k >= (int)sizeof backup_path) die("TMPDIR", "too long");
}

static void remove_backup_files(void) {
  if (backup_path[0]) nb_backup_remove(backup_path);
}

static rep n_blob(sqlite3 *db, int many) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(many ? nb_blob_many(db, &r.count, &r.checksum) : nb_blob_read(db, &r.count, &r.checksum), "blob");
  stop_clock(&r, t0);
  return r;
}

/* backup: the copy made (timed: open, synchronous=OFF, init, step(-1), finish, close), then
 * checked on a connection of its own (untimed) and removed. */
static rep n_backup(sqlite3 *src) {
  rep r = {0, 0, 0, 0};
  nb_backup_remove(backup_path);
  stamp t0 = now_ns();
  n_check(nb_backup(src, backup_path), "backup");
  stop_clock(&r, t0);
  sqlite3 *copy = n_open(backup_path);
  n_check(nb_scalar2(copy, NB_BACKUP_CHECK_SQL, &r.count, &r.checksum), "check");
  nb_close(copy);
  nb_backup_remove(backup_path);
  return r;
}

/* ---------------- sqlbatch ---------------- */

static void b_check(sqlbatch_conn *c, int32_t rc, const char *what) {
  if (rc == SQLBATCH_OK || rc == SQLBATCH_ROW || rc == SQLBATCH_DONE) return;
  sqlbatch_error e;
  sqlbatch_conn_last_error(c, &e);
  die(what, e.message);
}

static sqlbatch_conn *b_open_flags(const char *path, uint32_t flags) {
  sqlbatch_conn *c = NULL;
  b_check(c, sqlbatch_conn_open(path, strlen(path), flags, &c), "open");
  return c;
}

static sqlbatch_conn *b_open(const char *path) { return b_open_flags(path, 0); }

static void b_exec(sqlbatch_conn *c, const char *sql) {
  b_check(c, sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL), "exec");
}

static sqlbatch_stmt *b_prepare(sqlbatch_conn *c, const char *sql) {
  sqlbatch_stmt *s = NULL;
  b_check(c, sqlbatch_stmt_prepare(c, sql, strlen(sql), 0, &s, NULL), "prepare");
  return s;
}

/* The first n integers of the first row of a query. */
static void b_scalars(sqlbatch_conn *c, const char *sql, int64_t *out, size_t n) {
  sqlbatch_stmt *s = b_prepare(c, sql);
  sqlbatch_batch batch;
  b_check(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &batch), "fetch");
  if (batch.n_rows != 1 || batch.n_cols < n) die("fetch", sql);
  for (size_t i = 0; i < n; i++) out[i] = sqlbatch_value_int64(&batch.cells[i]);
  sqlbatch_stmt_finalize(s);
}

static void b_scalar2(sqlbatch_conn *c, const char *sql, int64_t *a, int64_t *b) {
  int64_t v[2];
  b_scalars(c, sql, v, 2);
  *a = v[0];
  *b = v[1];
}

static rep b_fetch_narrow(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  sqlbatch_stmt *s = b_prepare(c, "SELECT id FROM testdata");
  sqlbatch_batch b;
  int32_t rc;
  do {
    rc = sqlbatch_stmt_fetch(s, BATCH_ROWS, BATCH_BYTES, &b);
    b_check(c, rc, "fetch");
    for (size_t i = 0; i < b.n_rows; i++) r.checksum += (int64_t)b.cells[i].bits;
    r.count += (int64_t)b.n_rows;
  } while (rc == SQLBATCH_ROW);
  sqlbatch_stmt_finalize(s);
  stop_clock(&r, t0);
  return r;
}

static rep b_fetch_wide(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  sqlbatch_stmt *s = b_prepare(c, "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide");
  sqlbatch_batch b;
  int32_t rc;
  uint64_t sum = 0;
  do {
    rc = sqlbatch_stmt_fetch(s, BATCH_ROWS, BATCH_BYTES, &b);
    b_check(c, rc, "fetch");
    const sqlbatch_value *v = b.cells, *end = b.cells + b.n_rows * b.n_cols;
    for (; v < end; v++) {
      switch (v->kind) {
        case SQLBATCH_INTEGER: sum += v->bits; break;
        case SQLBATCH_FLOAT: sum += (uint64_t)(int64_t)(sqlbatch_value_double(v) * 1000.0); break;
        case SQLBATCH_TEXT: sum += (uint64_t)nb_code_points(b.data + v->bits, v->len); break;
        case SQLBATCH_BLOB: sum += v->len; break;
        default: sum += 1;
      }
    }
    r.count += (int64_t)b.n_rows;
  } while (rc == SQLBATCH_ROW);
  sqlbatch_stmt_finalize(s);
  stop_clock(&r, t0);
  r.checksum = (int64_t)sum;
  return r;
}

/* fetch_work: fetch_wide's query, every cell hashed (nb_fnv_* of native_loop.h) from the
 * batch in place: TEXT and BLOB bytes at b.data + bits. */
static rep b_fetch_work(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  sqlbatch_stmt *s = b_prepare(c, NB_WORK_SQL);
  sqlbatch_batch b;
  int32_t rc;
  uint64_t h = NB_FNV_OFFSET;
  do {
    rc = sqlbatch_stmt_fetch(s, BATCH_ROWS, BATCH_BYTES, &b);
    b_check(c, rc, "fetch");
    const sqlbatch_value *v = b.cells, *end = b.cells + b.n_rows * b.n_cols;
    for (; v < end; v++) {
      switch (v->kind) {
        case SQLBATCH_INTEGER: h = nb_fnv_int64(h, (int64_t)v->bits); break;
        case SQLBATCH_FLOAT: h = nb_fnv_double(h, sqlbatch_value_double(v)); break;
        case SQLBATCH_TEXT: h = nb_fnv_text(h, b.data + v->bits, v->len); break;
        case SQLBATCH_BLOB: h = nb_fnv_blob(h, b.data + v->bits, v->len); break;
        default: h = nb_fnv_null(h);
      }
    }
    r.count += (int64_t)b.n_rows;
  } while (rc == SQLBATCH_ROW);
  sqlbatch_stmt_finalize(s);
  stop_clock(&r, t0);
  r.checksum = (int64_t)h;
  return r;
}

static rep b_exec_script(const char *script) {
  rep r = {0, 0, 0, 0};
  sqlbatch_conn *c = b_open(":memory:");
  b_exec(c, "CREATE TABLE script_t(a INTEGER, b TEXT)");
  stamp t0 = now_ns();
  b_exec(c, script);
  stop_clock(&r, t0);
  b_scalar2(c, "SELECT count(*), sum(a) FROM script_t", &r.count, &r.checksum);
  sqlbatch_conn_close(c);
  return r;
}

/* Encryption (see the top): the passphrase, or NULL; bulk_insert into a file. */
static const char *bench_key = NULL;
static int bulk_file = 0;

static sqlbatch_conn *b_open_keyed(const char *path, uint32_t flags) {
  if (!bench_key) return b_open_flags(path, flags);
  sqlbatch_conn *c = NULL;
  b_check(c, sqlbatch_conn_open_encrypted(path, strlen(path), flags, bench_key, strlen(bench_key), NULL, &c), "open_encrypted");
  return c;
}

/* bulk_insert's file with SQLBATCH_BENCH_BULK_FILE: <$TMPDIR or /tmp>/sqlbatch-bench-bulk-<pid>.db,
 * removed (with its -journal) before every repetition and at exit. */
static char bulk_path[4096];

static void remove_bulk_files(void) {
  char j[4200];
  if (!bulk_path[0]) return;
  unlink(bulk_path);
  snprintf(j, sizeof j, "%s-journal", bulk_path);
  unlink(j);
}

/* The database of a bulk_insert repetition: :memory:, or a fresh file (keyed when a key is
 * set) with synchronous=OFF, so that the commit does not wait for the disk (what is measured
 * is SQLite's, and SQLCipher's, work on the pages, as in backup). */
static sqlbatch_conn *b_bulk_open(void) {
  if (!bulk_file) return b_open(":memory:");
  if (!bulk_path[0]) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    int k = snprintf(bulk_path, sizeof bulk_path, "%s/sqlbatch-bench-bulk-%ld.db", tmp, (long)getpid());
    if (k < 0 || k >= (int)sizeof bulk_path) die("TMPDIR", "too long");
    atexit(remove_bulk_files);
  }
  remove_bulk_files();
  sqlbatch_conn *c = b_open_keyed(bulk_path, 0);
  b_exec(c, "PRAGMA synchronous=OFF");
  return c;
}

/* c-bench --encrypt PLAIN COPY: an encrypted copy of PLAIN with SQLBATCH_BENCH_KEY and
 * SQLCipher's default settings (the runner writes COPY under a temporary name and renames it). */
static int b_encrypt_copy(const char *plain, const char *copy) {
  const char *key = getenv("SQLBATCH_BENCH_KEY");
  if (!key || !*key) die("--encrypt", "SQLBATCH_BENCH_KEY is not set");
  if (!sqlbatch_cipher_version()) die("--encrypt", "this c-bench is not linked against the encrypted build");
  sqlbatch_conn *c = b_open(plain);
  b_check(c, sqlbatch_conn_export(c, NULL, 0, copy, strlen(copy), key, strlen(key), NULL), "export");
  sqlbatch_conn_close(c);
  return 0;
}

/* Rows per sqlbatch_stmt_execute_many call: the cells of a chunk are built in the timed part,
 * from the same arrays the native loop binds from, as a caller of the ABI has to. */
#define BULK_CHUNK 4096

static rep b_bulk_insert(const nb_rows *rows, sqlbatch_value *cells) {
  rep r = {0, 0, 0, 0};
  sqlbatch_conn *c = b_bulk_open();
  b_exec(c, "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)");
  stamp t0 = now_ns();
  b_exec(c, "BEGIN");
  sqlbatch_stmt *s = b_prepare(c, "INSERT INTO bulk VALUES (?, ?, ?)");
  size_t data_len = rows->at[rows->n - 1] + rows->len[rows->n - 1];
  for (size_t first = 0; first < rows->n; first += BULK_CHUNK) {
    size_t n = rows->n - first < BULK_CHUNK ? rows->n - first : BULK_CHUNK;
    sqlbatch_value *v = cells;
    for (size_t i = first; i < first + n; i++, v += 3) {
      double d = (double)i * 0.25;
      v[0] = (sqlbatch_value){.bits = i, .kind = SQLBATCH_INTEGER};
      v[1] = (sqlbatch_value){.kind = SQLBATCH_FLOAT};
      memcpy(&v[1].bits, &d, sizeof d);
      v[2] = (sqlbatch_value){.bits = rows->at[i], .len = rows->len[i], .kind = SQLBATCH_TEXT};
    }
    const sqlbatch_params p = {.values = cells, .n_values = n * 3, .data = (const uint8_t *)rows->text, .data_len = data_len};
    b_check(c, sqlbatch_stmt_execute_many(s, &p, n, NULL), "execute_many");
  }
  sqlbatch_stmt_finalize(s);
  b_exec(c, "COMMIT");
  stop_clock(&r, t0);
  b_scalar2(c, "SELECT count(*), sum(a) + sum(length(c)) FROM bulk", &r.count, &r.checksum);
  sqlbatch_conn_close(c);
  return r;
}

/* bulk_insert with write-behind (c-sqlbatch+ahead): the same chunks of BULK_CHUNK rows,
 * built into three cell buffers in turn, with up to two writes queued: start(b0); fill b1;
 * start(b1); fill b2; wait() (b0); start(b2); fill b0; wait() (b1); ... wait(); wait(). The
 * worker goes from one chunk straight to the next while this thread builds the one after. */
static size_t b_bulk_fill(const nb_rows *rows, size_t first, sqlbatch_value *v) {
  size_t n = rows->n - first < BULK_CHUNK ? rows->n - first : BULK_CHUNK;
  for (size_t i = first; i < first + n; i++, v += 3) {
    double d = (double)i * 0.25;
    v[0] = (sqlbatch_value){.bits = i, .kind = SQLBATCH_INTEGER};
    v[1] = (sqlbatch_value){.kind = SQLBATCH_FLOAT};
    memcpy(&v[1].bits, &d, sizeof d);
    v[2] = (sqlbatch_value){.bits = rows->at[i], .len = rows->len[i], .kind = SQLBATCH_TEXT};
  }
  return n;
}

static rep b_bulk_insert_behind(const nb_rows *rows, sqlbatch_value *cells[3]) {
  rep r = {0, 0, 0, 0};
  sqlbatch_conn *c = b_bulk_open();
  b_exec(c, "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)");
  stamp t0 = now_ns();
  b_exec(c, "BEGIN");
  sqlbatch_stmt *s = b_prepare(c, "INSERT INTO bulk VALUES (?, ?, ?)");
  const uint8_t *data = (const uint8_t *)rows->text;
  size_t data_len = rows->at[rows->n - 1] + rows->len[rows->n - 1];
  int k = 0, queued = 0;
  for (size_t first = 0; first < rows->n;) {
    size_t n = b_bulk_fill(rows, first, cells[k]);
    if (queued == 2) {
      b_check(c, sqlbatch_stmt_execute_many_wait(s, NULL), "execute_many_wait");
      queued--;
    }
    const sqlbatch_params p = {.values = cells[k], .n_values = n * 3, .data = data, .data_len = data_len};
    b_check(c, sqlbatch_stmt_execute_many_start(s, &p, n), "execute_many_start");
    queued++;
    first += n;
    k = (k + 1) % 3;
  }
  for (; queued > 0; queued--) b_check(c, sqlbatch_stmt_execute_many_wait(s, NULL), "execute_many_wait");
  sqlbatch_stmt_finalize(s);
  b_exec(c, "COMMIT");
  stop_clock(&r, t0);
  b_scalar2(c, "SELECT count(*), sum(a) + sum(length(c)) FROM bulk", &r.count, &r.checksum);
  sqlbatch_conn_close(c);
  return r;
}

/* f and sumsq as a user of the ABI writes them: each counts its calls (rows) through its
 * user_data, and reads its argument cells as a fetch reads a batch. */
#define SUMSQ_BATCH_ROWS 256

static void b_f(sqlbatch_call *call, void *user_data, const sqlbatch_value *args, size_t n_args, const uint8_t *data) {
  (void)n_args;
  (void)data;
  ++*(int64_t *)user_data;
  /* A number needs no call: stored in call->result (sqlbatch_call_result would do too). */
  call->result.bits = args[0].bits * 2 + 1;
  call->result.kind = SQLBATCH_INTEGER;
}

static void b_sumsq_step(sqlbatch_call *call, void *user_data, void **state, const sqlbatch_value *args,
                         size_t n_rows, size_t n_args, const uint8_t *data) {
  (void)data;
  uint64_t *sum = *state;
  if (!sum) {
    if (!(sum = calloc(1, sizeof *sum))) {
      sqlbatch_call_error(call, 7 /* SQLITE_NOMEM */, NULL, 0);
      return;
    }
    *state = sum;
  }
  *(int64_t *)user_data += (int64_t)n_rows;
  uint64_t acc = *sum;
  for (size_t i = 0; i < n_rows; i++) {
    uint64_t x = args[i * n_args].bits;
    acc += x * x;
  }
  *sum = acc;
}

static void b_sumsq_finish(sqlbatch_call *call, void *user_data, void *state) {
  (void)user_data;
  if (!state) return; /* no rows: NULL */
  call->result.bits = *(uint64_t *)state;
  call->result.kind = SQLBATCH_INTEGER;
  free(state);
}

static int64_t b_f_calls, b_sumsq_rows;

static void b_udf_register(sqlbatch_conn *c) {
  b_check(c, sqlbatch_conn_create_function(c, "f", 1, 1, SQLBATCH_FUNCTION_DETERMINISTIC, b_f, &b_f_calls, NULL),
          "create_function");
  const sqlbatch_aggregate fns = {.step = b_sumsq_step, .finish = b_sumsq_finish, .batch_rows = SUMSQ_BATCH_ROWS};
  b_check(c, sqlbatch_conn_create_aggregate(c, "sumsq", 5, 1, 0, &fns, &b_sumsq_rows, NULL), "create_aggregate");
}

static rep b_udf(sqlbatch_conn *c, int aggregate) {
  rep r = {0, 0, 0, 0};
  int64_t *counter = aggregate ? &b_sumsq_rows : &b_f_calls;
  *counter = 0;
  stamp t0 = now_ns();
  b_scalars(c, aggregate ? "SELECT sumsq(x) FROM udf" : "SELECT sum(f(x)) FROM udf", &r.checksum, 1);
  stop_clock(&r, t0);
  r.count = *counter;
  return r;
}

/* update_hook through the change feed: batches of up to UPDATE_FEED_BATCH changes; the rows
 * and rowids of every batch counted (FULL during the UPDATE, whatever the ROLLBACK hands over
 * after the clock stops: nothing, with 1,000,000 rows in batches of 1000). */
#define UPDATE_FEED_BATCH 1000
static int64_t b_hook_rows, b_hook_rowids;

static void b_feed(void *ud, const sqlbatch_change *changes, size_t n, const sqlbatch_change_table *tables,
                   size_t n_tables, int32_t reason) {
  (void)ud;
  (void)tables;
  (void)n_tables;
  (void)reason;
  int64_t sum = 0;
  for (size_t i = 0; i < n; i++) sum += changes[i].rowid;
  b_hook_rows += (int64_t)n;
  b_hook_rowids += sum;
}

static rep b_update_hook(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  b_hook_rows = b_hook_rowids = 0;
  b_check(c, sqlbatch_conn_exec(c, "BEGIN", 5, NULL, NULL), "begin");
  stamp t0 = now_ns();
  static const char update[] = "UPDATE udf SET x = x + 1";
  b_check(c, sqlbatch_conn_exec(c, update, sizeof update - 1, NULL, NULL), "update");
  stop_clock(&r, t0);
  b_check(c, sqlbatch_conn_exec(c, "ROLLBACK", 8, NULL, NULL), "rollback");
  r.count = b_hook_rows;
  r.checksum = b_hook_rowids;
  return r;
}

/* ---- issue 15 (sqlbatch) ---- */

/* The five cells of an items row, as nb_item_row in native_loop.c reads them. */
static uint64_t b_item_row(const sqlbatch_value *v, const uint8_t *data) {
  uint64_t sum = v[0].bits;
  sum += (uint64_t)nb_code_points(data + v[1].bits, v[1].len);
  sum += v[2].bits;
  sum += (uint64_t)(int64_t)(sqlbatch_value_double(&v[3]) * 1000.0);
  sum += v[4].kind == SQLBATCH_NULL ? 1 : (uint64_t)nb_code_points(data + v[4].bits, v[4].len);
  return sum;
}

/* point_query, few_rows: the statement prepared once per process (untimed, flags 0 as the
 * native sqlite3_prepare_v2); per query: bind the key, fetch (point_query: max_rows 1;
 * few_rows: 10, the LIMIT), reset. A fetch steps once more after its last row, so both
 * come back SQLBATCH_DONE. */
static rep b_small_reads(sqlbatch_conn *c, sqlbatch_stmt *s, int few) {
  rep r = {0, 0, 0, 0};
  int64_t n = few ? NB_FEW_ROWS_QUERIES : NB_POINT_QUERIES;
  size_t max_rows = few ? 10 : 1;
  uint64_t sum = 0;
  stamp t0 = now_ns();
  for (int64_t i = 0; i < n; i++) {
    sqlbatch_value key = {.bits = (uint64_t)(few ? NB_FEW_ROWS_START(i) : NB_POINT_KEY(i)), .kind = SQLBATCH_INTEGER};
    const sqlbatch_params p = {.values = &key, .n_values = 1};
    int32_t rc = sqlbatch_stmt_bind(s, &p);
    if (rc != SQLBATCH_OK) b_check(c, rc, "bind");
    sqlbatch_batch b;
    rc = sqlbatch_stmt_fetch(s, max_rows, SIZE_MAX, &b);
    if (rc != SQLBATCH_DONE) {
      b_check(c, rc, "fetch");
      die("fetch", "more rows than expected");
    }
    if (!few && b.n_rows != 1) die("point_query", "no row for a key");
    for (size_t row = 0; row < b.n_rows; row++) sum += b_item_row(b.cells + row * 5, b.data);
    sqlbatch_stmt_reset(s);
  }
  stop_clock(&r, t0);
  r.count = n;
  r.checksum = (int64_t)sum;
  return r;
}

static sqlbatch_conn *b_churn_open(void) {
  nb_churn_remove(churn_path);
  sqlbatch_conn *c = b_open(churn_path);
  b_exec(c, "PRAGMA journal_mode=WAL");
  b_exec(c, "PRAGMA synchronous=NORMAL");
  b_exec(c, "CREATE TABLE churn(a INTEGER, b REAL, c TEXT)");
  return c;
}

/* Row i of prepare_churn and small_tx, (i, i * 0.25, "row-<i>"), into v[3]; the text built
 * into buf, which the params' data points at. */
static sqlbatch_params b_churn_row(int64_t i, sqlbatch_value *v, char *buf, size_t size) {
  int k = snprintf(buf, size, "row-%lld", (long long)i);
  double d = (double)i * 0.25;
  v[0] = (sqlbatch_value){.bits = (uint64_t)i, .kind = SQLBATCH_INTEGER};
  v[1] = (sqlbatch_value){.kind = SQLBATCH_FLOAT};
  memcpy(&v[1].bits, &d, sizeof d);
  v[2] = (sqlbatch_value){.bits = 0, .len = (uint32_t)k, .kind = SQLBATCH_TEXT};
  return (sqlbatch_params){.values = v, .n_values = 3, .data = (const uint8_t *)buf, .data_len = (size_t)k};
}

/* Runs a statement without rows to its end (the "step" of an INSERT through the ABI). */
static void b_step_done(sqlbatch_conn *c, sqlbatch_stmt *s) {
  sqlbatch_batch b;
  int32_t rc = sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b);
  if (rc != SQLBATCH_DONE) b_check(c, rc, "step");
}

static const char churn_insert[] = NB_CHURN_INSERT_SQL;

/* The timed parts of prepare_churn and small_tx, each one call as the native loops' (and
 * not static, so that the compiler keeps them apart: callgrind --toggle-collect=b_small_tx
 * measures exactly what the clock does). */
void b_prepare_churn(sqlbatch_conn *c, int64_t n);
void b_small_tx(sqlbatch_conn *c, sqlbatch_stmt *ins, int64_t n);

void b_prepare_churn(sqlbatch_conn *c, int64_t n) {
  sqlbatch_value v[3];
  char buf[32];
  b_check(c, sqlbatch_conn_exec(c, "BEGIN", 5, NULL, NULL), "begin");
  for (int64_t i = 0; i < n; i++) {
    sqlbatch_params p = b_churn_row(i, v, buf, sizeof buf);
    p.flags = SQLBATCH_PARAMS_SINGLE;
    int32_t rc = sqlbatch_conn_exec(c, churn_insert, sizeof churn_insert - 1, &p, NULL);
    if (rc != SQLBATCH_OK) b_check(c, rc, "execute");
  }
  b_check(c, sqlbatch_conn_exec(c, "COMMIT", 6, NULL, NULL), "commit");
}

void b_small_tx(sqlbatch_conn *c, sqlbatch_stmt *ins, int64_t n) {
  sqlbatch_value v[3];
  char buf[32];
  for (int64_t i = 0; i < n; i++) {
    int32_t rc = sqlbatch_conn_exec(c, "BEGIN", 5, NULL, NULL);
    if (rc != SQLBATCH_OK) b_check(c, rc, "begin");
    const sqlbatch_params p = b_churn_row(i, v, buf, sizeof buf);
    if ((rc = sqlbatch_stmt_bind(ins, &p)) != SQLBATCH_OK) b_check(c, rc, "bind");
    b_step_done(c, ins);
    sqlbatch_stmt_reset(ins);
    if ((rc = sqlbatch_conn_exec(c, "COMMIT", 6, NULL, NULL)) != SQLBATCH_OK) b_check(c, rc, "commit");
  }
}

static rep b_churn(int64_t n, int small_tx) {
  rep r = {0, 0, 0, 0};
  sqlbatch_conn *c = b_churn_open();
  sqlbatch_stmt *ins = small_tx ? b_prepare(c, churn_insert) : NULL;
  stamp t0 = now_ns();
  if (small_tx) b_small_tx(c, ins, n);
  else b_prepare_churn(c, n);
  stop_clock(&r, t0);
  sqlbatch_stmt_finalize(ins);
  b_scalar2(c, NB_CHURN_CHECK_SQL, &r.count, &r.checksum);
  sqlbatch_conn_close(c);
  return r;
}

/* large_values: prepare, fetch in batches of BATCH_ROWS rows / BATCH_BYTES (each row is
 * ~400 KB, so a batch holds one row), finalize. */
static rep b_large_values(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  uint64_t sum = 0;
  stamp t0 = now_ns();
  sqlbatch_stmt *s = b_prepare(c, NB_LARGE_SQL);
  sqlbatch_batch b;
  int32_t rc;
  do {
    rc = sqlbatch_stmt_fetch(s, BATCH_ROWS, BATCH_BYTES, &b);
    b_check(c, rc, "fetch");
    const sqlbatch_value *v = b.cells;
    for (size_t i = 0; i < b.n_rows; i++, v += 3) {
      sum += v[0].bits;
      sum += (uint64_t)nb_code_points(b.data + v[1].bits, v[1].len);
      sum += (uint64_t)nb_blob_sum(b.data + v[2].bits, v[2].len);
    }
    r.count += (int64_t)b.n_rows;
  } while (rc == SQLBATCH_ROW);
  sqlbatch_stmt_finalize(s);
  stop_clock(&r, t0);
  r.checksum = (int64_t)sum;
  return r;
}

/* ---- issue 11: blob_read, blob_many, backup (sqlbatch) ---- */

static sqlbatch_blob *b_blob_open(sqlbatch_conn *c, const char *table, int64_t rowid) {
  sqlbatch_blob *b = NULL;
  b_check(c, sqlbatch_blob_open(c, NULL, 0, table, strlen(table), NB_BLOB_COLUMN, strlen(NB_BLOB_COLUMN), rowid, false, &b),
          "blob_open");
  return b;
}

/* blob_read: open, sqlbatch_blob_read of NB_BLOB_RANGE bytes at a time into one buffer,
 * close (the buffer allocated in the timed part, as the native loop's). */
static rep b_blob_read(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  uint64_t sum = 0, size = 0;
  stamp t0 = now_ns();
  sqlbatch_blob *b = b_blob_open(c, NB_BLOB_READ_TABLE, NB_BLOB_READ_ROWID);
  uint8_t *buf = malloc(NB_BLOB_RANGE);
  if (!buf) die("malloc", "blob buffer");
  b_check(c, sqlbatch_blob_size(b, &size), "blob_size");
  for (uint64_t off = 0; off < size; off += NB_BLOB_RANGE) {
    size_t n = size - off < NB_BLOB_RANGE ? (size_t)(size - off) : NB_BLOB_RANGE;
    int32_t rc = sqlbatch_blob_read(b, off, buf, n);
    if (rc != SQLBATCH_OK) b_check(c, rc, "blob_read");
    sum += (uint64_t)nb_blob_sum(buf, n);
  }
  free(buf);
  sqlbatch_blob_close(b);
  stop_clock(&r, t0);
  r.count = (int64_t)size;
  r.checksum = (int64_t)sum;
  return r;
}

/* blob_many: one handle (opened on the first row), sqlbatch_blob_read_many over chunks of
 * BLOB_MANY_CHUNK ranges (rowid, 0, SQLBATCH_BLOB_TO_END) into a buffer of BLOB_MANY_BUF
 * bytes (1,024 values of at most 1,024 bytes fit; a chunk that does not fit goes on from
 * the range that did not, SQLBATCH_E_BUFFER_TOO_SMALL). */
#define BLOB_MANY_CHUNK 1024
#define BLOB_MANY_BUF (1 << 20)

static rep b_blob_many(sqlbatch_conn *c) {
  rep r = {0, 0, 0, 0};
  uint64_t sum = 0;
  stamp t0 = now_ns();
  sqlbatch_blob *b = b_blob_open(c, NB_BLOB_MANY_TABLE, NB_BLOB_MANY_KEY(0));
  sqlbatch_blob_range *ranges = malloc(BLOB_MANY_CHUNK * sizeof *ranges);
  uint8_t *buf = malloc(BLOB_MANY_BUF);
  if (!ranges || !buf) die("malloc", "blob_many buffers");
  for (int64_t first = 0; first < NB_BLOB_MANY; first += BLOB_MANY_CHUNK) {
    size_t n = NB_BLOB_MANY - first < BLOB_MANY_CHUNK ? (size_t)(NB_BLOB_MANY - first) : BLOB_MANY_CHUNK;
    for (size_t i = 0; i < n; i++)
      ranges[i] = (sqlbatch_blob_range){.rowid = NB_BLOB_MANY_KEY(first + (int64_t)i), .len = SQLBATCH_BLOB_TO_END};
    for (size_t at = 0; at < n;) {
      size_t done = 0;
      int32_t rc = sqlbatch_blob_read_many(b, ranges + at, n - at, buf, BLOB_MANY_BUF, &done);
      for (size_t k = at; k < at + done; k++) sum += (uint64_t)nb_blob_sum(buf + ranges[k].at, (size_t)ranges[k].len);
      at += done;
      if (rc == SQLBATCH_E_BUFFER_TOO_SMALL && done == 0) die("blob_read_many", "a value larger than the buffer");
      if (rc != SQLBATCH_OK && rc != SQLBATCH_E_BUFFER_TOO_SMALL) b_check(c, rc, "blob_read_many");
    }
  }
  free(ranges);
  free(buf);
  sqlbatch_blob_close(b);
  stop_clock(&r, t0);
  r.count = NB_BLOB_MANY;
  r.checksum = (int64_t)sum;
  return r;
}

/* backup: timed, a connection to the new file, PRAGMA synchronous=OFF on it,
 * sqlbatch_backup_init, sqlbatch_backup_step(-1) (SQLBATCH_DONE), sqlbatch_backup_finish,
 * close; then the copy checked on a connection of its own (untimed) and removed.
 * (sqlbatch_conn_backup_to_file does the same in one call, but opens the file with SQLite's
 * defaults: synchronous=FULL, so it would time the fsync of 256 MiB as well.) */
static rep b_backup(sqlbatch_conn *src) {
  rep r = {0, 0, 0, 0};
  nb_backup_remove(backup_path);
  stamp t0 = now_ns();
  sqlbatch_conn *dest = b_open(backup_path);
  b_exec(dest, NB_BACKUP_SYNCHRONOUS_SQL);
  sqlbatch_backup *bk = NULL;
  b_check(dest, sqlbatch_backup_init(dest, NULL, 0, src, NULL, 0, &bk), "backup_init");
  int32_t rc = sqlbatch_backup_step(bk, -1);
  if (rc == SQLBATCH_OK) die("backup_step", "pages left after a step of every page");
  if (rc != SQLBATCH_DONE) b_check(dest, rc, "backup_step");
  b_check(dest, sqlbatch_backup_finish(bk), "backup_finish");
  sqlbatch_conn_close(dest);
  stop_clock(&r, t0);
  sqlbatch_conn *copy = b_open(backup_path);
  b_scalar2(copy, NB_BACKUP_CHECK_SQL, &r.count, &r.checksum);
  sqlbatch_conn_close(copy);
  nb_backup_remove(backup_path);
  return r;
}

/* ---------------- driver ---------------- */

/* ---------------- virtual tables (vtab_scan, tvf_join, in_list) ---------------- */

/* One query's two integers through the native API (untimed statements are prepared here). */
static rep n_query2(sqlite3 *db, const char *sql) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(nb_scalar2(db, sql, &r.count, &r.checksum), sql);
  stop_clock(&r, t0);
  return r;
}

/* vtab_scan and tvf_join report count(*) and the sum; the checksum is count + sum. */
static rep n_vtab(sqlite3 *db, const char *sql) {
  rep r = n_query2(db, sql);
  r.checksum += r.count;
  return r;
}

static rep n_in_list(sqlite3_stmt *s) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  n_check(nb_in_list(s, NB_IN_LIST_QUERIES, &r.count, &r.checksum), "in_list");
  stop_clock(&r, t0);
  return r;
}

/* vtab_scan through sqlbatch: the same rows as cells, built before the clock starts, and a
 * module whose fill pushes them a batch at a time (one sqlbatch_vtab_push per fill). */
typedef struct {
  sqlbatch_value *cells; /* 4 a row */
  const nb_vdata *data;
} b_vsource;

typedef struct {
  int64_t row, n; /* pairs: the row and the count; scan: the row */
} b_vcursor;

static int32_t bv_connect(void *user, sqlbatch_vtab_call *call, bool create, const sqlbatch_str *args, size_t n_args,
                          void **out_table) {
  (void)create, (void)args, (void)n_args;
  const char *sql = user ? "CREATE TABLE x(a INTEGER, b REAL, c TEXT, d INTEGER)" : "CREATE TABLE x(k INTEGER, w INTEGER, n HIDDEN)";
  *out_table = user;
  return sqlbatch_vtab_declare(call, sql, strlen(sql));
}

static int32_t bv_open(void *user, sqlbatch_vtab_call *call, void *table, void **out_cursor) {
  (void)user, (void)call, (void)table;
  b_vcursor *c = calloc(1, sizeof *c);
  if (!c) return SQLBATCH_E_RANGE;
  *out_cursor = c;
  return SQLBATCH_OK;
}

static void bv_close(void *user, void *cursor) {
  (void)user;
  free(cursor);
}

static void bv_disconnect(void *user, void *table, bool destroy) { (void)user, (void)table, (void)destroy; }

static int32_t bv_scan_filter(void *user, sqlbatch_vtab_call *call, void *cursor, int32_t idx_num,
                              const sqlbatch_vtab_arg *args, size_t n_args, const uint8_t *data) {
  (void)user, (void)call, (void)idx_num, (void)args, (void)n_args, (void)data;
  ((b_vcursor *)cursor)->row = 0;
  return SQLBATCH_OK;
}

static int32_t bv_scan_fill(void *user, sqlbatch_vtab_call *call, void *cursor, size_t max_rows) {
  const b_vsource *src = user;
  b_vcursor *c = cursor;
  int64_t left = src->data->n - c->row;
  size_t take = left < (int64_t)max_rows ? (size_t)left : max_rows;
  if (take > 0) {
    sqlbatch_params rows = {.values = src->cells + c->row * 4, .n_values = take * 4,
                            .data = (const uint8_t *)src->data->text, .data_len = (size_t)src->data->at[src->data->n - 1] + 4};
    int32_t rc = sqlbatch_vtab_push(call, &rows, 4, NULL);
    if (rc != SQLBATCH_OK) return rc;
  }
  c->row += (int64_t)take;
  return c->row < src->data->n ? SQLBATCH_ROW : SQLBATCH_DONE;
}

static int32_t bv_pairs_plan(void *user, sqlbatch_vtab_call *call, void *table, sqlbatch_vtab_index *ix) {
  (void)user, (void)call, (void)table;
  for (size_t i = 0; i < ix->n_constraints; i++) {
    if (ix->constraints[i].column == 2 && ix->constraints[i].op == SQLBATCH_INDEX_EQ) {
      if (!ix->constraints[i].usable) return 19; /* SQLITE_CONSTRAINT: not this plan */
      ix->uses[i].arg_index = 1;
      ix->uses[i].omit = true;
      ix->idx_num = 1;
      ix->estimated_cost = 1e5;
      return SQLBATCH_OK;
    }
  }
  ix->estimated_cost = 1e12;
  return SQLBATCH_OK;
}

static int32_t bv_pairs_filter(void *user, sqlbatch_vtab_call *call, void *cursor, int32_t idx_num,
                               const sqlbatch_vtab_arg *args, size_t n_args, const uint8_t *data) {
  (void)user, (void)call, (void)data;
  b_vcursor *c = cursor;
  c->row = 0;
  c->n = idx_num == 1 && n_args > 0 && args[0].value.kind == SQLBATCH_INTEGER ? sqlbatch_value_int64(&args[0].value) : 0;
  return SQLBATCH_OK;
}

/* pairs' rows are made in the fill, as the native module makes them in xColumn. */
static int32_t bv_pairs_fill(void *user, sqlbatch_vtab_call *call, void *cursor, size_t max_rows) {
  (void)user;
  b_vcursor *c = cursor;
  sqlbatch_value cells[2 * 256];
  size_t take = 0;
  for (; take < max_rows && take < 256 && c->row < c->n; take++, c->row++) {
    cells[2 * take] = (sqlbatch_value){.bits = (uint64_t)NB_PAIR_KEY(c->row), .kind = SQLBATCH_INTEGER};
    cells[2 * take + 1] = (sqlbatch_value){.bits = (uint64_t)NB_PAIR_WEIGHT(c->row), .kind = SQLBATCH_INTEGER};
  }
  if (take > 0) {
    sqlbatch_params rows = {.values = cells, .n_values = take * 2};
    int32_t rc = sqlbatch_vtab_push(call, &rows, 2, NULL);
    if (rc != SQLBATCH_OK) return rc;
  }
  return c->row < c->n ? SQLBATCH_ROW : SQLBATCH_DONE;
}

static void b_vtab_register(sqlbatch_conn *c, b_vsource *scan) {
  sqlbatch_vtab_module m = {.connect = bv_connect, .open = bv_open, .filter = bv_scan_filter, .fill = bv_scan_fill,
                            .close = bv_close, .disconnect = bv_disconnect};
  if (scan) b_check(c, sqlbatch_conn_create_module(c, "bvtab", 5, &m, SQLBATCH_VTAB_EPONYMOUS_ONLY, scan, NULL), "module");
  m.best_index = bv_pairs_plan;
  m.filter = bv_pairs_filter;
  m.fill = bv_pairs_fill;
  b_check(c, sqlbatch_conn_create_module(c, "bpairs", 6, &m, SQLBATCH_VTAB_EPONYMOUS_ONLY, NULL, NULL), "module");
}

static b_vsource *b_vsource_make(const nb_vdata *d) {
  b_vsource *s = calloc(1, sizeof *s);
  if (!s || !(s->cells = calloc((size_t)d->n * 4, sizeof *s->cells))) die("malloc", "cells");
  s->data = d;
  for (int64_t i = 0; i < d->n; i++) {
    sqlbatch_value *v = s->cells + i * 4;
    double b = (double)i * 0.5;
    v[0] = (sqlbatch_value){.bits = (uint64_t)i, .kind = SQLBATCH_INTEGER};
    memcpy(&v[1].bits, &b, sizeof b);
    v[1].kind = SQLBATCH_FLOAT;
    v[2] = (sqlbatch_value){.bits = d->at[i], .len = d->len[i], .kind = SQLBATCH_TEXT};
    v[3] = i % 7 == 0 ? (sqlbatch_value){.kind = SQLBATCH_NULL} : (sqlbatch_value){.bits = (uint64_t)(i % 100), .kind = SQLBATCH_INTEGER};
  }
  return s;
}

/* The query's two integers through sqlbatch: prepare, one fetch, finalize, all timed (as
 * nb_scalar2 does natively). */
static rep b_vtab(sqlbatch_conn *c, const char *sql) {
  rep r = {0, 0, 0, 0};
  stamp t0 = now_ns();
  sqlbatch_stmt *s = b_prepare(c, sql);
  sqlbatch_batch b;
  int32_t rc = sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b);
  if (rc != SQLBATCH_DONE || b.n_rows != 1) b_check(c, rc == SQLBATCH_DONE ? SQLBATCH_E_RANGE : rc, sql);
  r.count = sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0));
  r.checksum = r.count + sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 1));
  sqlbatch_stmt_finalize(s);
  stop_clock(&r, t0);
  return r;
}

/* in_list through sqlbatch: per query, the 100 ids bound as one table (sqlbatch_stmt_bind_rows,
 * read by `IN sqlbatch_rows(?)`), one fetch of the one row. */
static rep b_in_list(sqlbatch_conn *c, sqlbatch_stmt *s) {
  rep r = {0, 0, 0, 0};
  sqlbatch_value ids[NB_IN_LIST_IDS];
  uint64_t sum = 0;
  stamp t0 = now_ns();
  for (int64_t q = 0; q < NB_IN_LIST_QUERIES; q++) {
    for (int j = 0; j < NB_IN_LIST_IDS; j++) ids[j] = (sqlbatch_value){.bits = (uint64_t)NB_IN_LIST_ID(q, j), .kind = SQLBATCH_INTEGER};
    sqlbatch_params list = {.values = ids, .n_values = NB_IN_LIST_IDS};
    int32_t rc = sqlbatch_stmt_bind_rows(s, 1, &list, 1);
    if (rc != SQLBATCH_OK) b_check(c, rc, "bind_rows");
    sqlbatch_batch b;
    rc = sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b);
    if (rc != SQLBATCH_DONE || b.n_rows != 1) b_check(c, rc == SQLBATCH_DONE ? SQLBATCH_E_RANGE : rc, "fetch");
    sum += b.cells[0].bits + b.cells[1].bits;
  }
  stop_clock(&r, t0);
  r.count = NB_IN_LIST_QUERIES;
  r.checksum = (int64_t)sum;
  return r;
}

int main(int argc, char **argv) {
  const char *impl = NULL, *workload = NULL, *input = NULL;
  int reps = 5, warmup = 1;
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    const char *cipher = sqlbatch_cipher_version();
    if (cipher) printf("SQLite %s, sqlbatch %s, SQLCipher %s\n", nb_sqlite_version(), sqlbatch_version(), cipher);
    else printf("SQLite %s, sqlbatch %s\n", nb_sqlite_version(), sqlbatch_version());
    return 0;
  }
  if (argc == 4 && !strcmp(argv[1], "--encrypt")) return b_encrypt_copy(argv[2], argv[3]);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--impl")) impl = argv[i + 1];
    else if (!strcmp(argv[i], "--workload")) workload = argv[i + 1];
    else if (!strcmp(argv[i], "--input")) input = argv[i + 1];
    else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--warmup")) warmup = atoi(argv[i + 1]);
    else die("unknown argument", argv[i]);
  }
  if (!impl || !workload || !input) die("usage", "--impl NAME --workload W --input P [--reps N] [--warmup W]");
  int native = !strcmp(impl, "c-native");
  if (!native && strcmp(impl, "c-sqlbatch")) die("unknown impl", impl);
  /* SQLBATCH_BENCH_AHEAD=1 (the runner's c-sqlbatch+ahead): fetch-ahead for the fetch
   * workloads (the connection opened with SQLBATCH_OPEN_FETCH_AHEAD), write-behind for
   * bulk_insert (execute_many_start / _wait over three parameter buffers). */
  const char *ahead_env = getenv("SQLBATCH_BENCH_AHEAD");
  int ahead = ahead_env && *ahead_env && strcmp(ahead_env, "0") != 0;
  int fetch_workload = !strncmp(workload, "fetch_", 6);
  if (ahead && (native || !(fetch_workload || !strcmp(workload, "bulk_insert")))) {
    fprintf(stderr, "c-bench: %s has no fetch-ahead / write-behind form of %s\n", impl, workload);
    return 3;
  }
  bench_key = getenv("SQLBATCH_BENCH_KEY");
  if (bench_key && !*bench_key) bench_key = NULL;
  const char *file_env = getenv("SQLBATCH_BENCH_BULK_FILE");
  bulk_file = (file_env && *file_env && strcmp(file_env, "0") != 0) || bench_key;
  if ((bench_key || bulk_file) && (native || !(fetch_workload || !strcmp(workload, "bulk_insert")))) {
    fprintf(stderr, "c-bench: %s has no encrypted form of %s\n", impl, workload);
    return 3;
  }
  if (bench_key && !sqlbatch_cipher_version()) die("SQLBATCH_BENCH_KEY", "this c-bench is not linked against the encrypted build");

  sqlite3 *db = NULL;
  sqlbatch_conn *conn = NULL;
  char *script = NULL;
  nb_rows *rows = NULL;
  nb_vdata *vdata = NULL;
  b_vsource *vsource = NULL;
  sqlbatch_value *values = NULL, *behind[3] = {NULL, NULL, NULL};
  sqlite3_stmt *nstmt = NULL;
  sqlbatch_stmt *bstmt = NULL;
  int64_t churn_n = 0;
  enum {
    NARROW,
    WIDE,
    WORK,
    SCRIPT,
    BULK,
    UDF_SCALAR,
    UDF_AGGREGATE,
    UPDATE_HOOK,
    POINT_QUERY,
    FEW_ROWS,
    PREPARE_CHURN,
    SMALL_TX,
    LARGE_VALUES,
    BLOB_READ,
    BLOB_MANY,
    BACKUP,
    VTAB_SCAN,
    TVF_JOIN,
    IN_LIST
  } kind;
  if (!strncmp(workload, "fetch_narrow", 12)) kind = NARROW;
  else if (!strcmp(workload, "fetch_wide")) kind = WIDE;
  else if (!strcmp(workload, "fetch_work")) kind = WORK;
  else if (!strncmp(workload, "exec_script", 11)) kind = SCRIPT;
  else if (!strcmp(workload, "bulk_insert")) kind = BULK;
  else if (!strcmp(workload, "udf_scalar")) kind = UDF_SCALAR;
  else if (!strcmp(workload, "udf_aggregate")) kind = UDF_AGGREGATE;
  else if (!strcmp(workload, "update_hook")) kind = UPDATE_HOOK;
  else if (!strcmp(workload, "point_query")) kind = POINT_QUERY;
  else if (!strcmp(workload, "few_rows")) kind = FEW_ROWS;
  else if (!strcmp(workload, "prepare_churn")) kind = PREPARE_CHURN;
  else if (!strcmp(workload, "small_tx")) kind = SMALL_TX;
  else if (!strcmp(workload, "large_values")) kind = LARGE_VALUES;
  else if (!strcmp(workload, "blob_read")) kind = BLOB_READ;
  else if (!strcmp(workload, "blob_many")) kind = BLOB_MANY;
  else if (!strcmp(workload, "backup")) kind = BACKUP;
  else if (!strcmp(workload, "vtab_scan")) kind = VTAB_SCAN;
  else if (!strcmp(workload, "tvf_join")) kind = TVF_JOIN;
  else if (!strcmp(workload, "in_list")) kind = IN_LIST;
  else {
    fprintf(stderr, "c-bench: workload %s not supported\n", workload);
    return 3;
  }
  if (kind == NARROW || kind == WIDE || kind == WORK) {
    if (native) db = n_open(input);
    else conn = b_open_keyed(input, ahead ? SQLBATCH_OPEN_FETCH_AHEAD : 0);
  } else if (kind == UDF_SCALAR || kind == UDF_AGGREGATE) {
    if (native) n_check(nb_udf_register(db = n_open(input)), "register");
    else b_udf_register(conn = b_open(input));
  } else if (kind == UPDATE_HOOK) {
    if (native) n_check(nb_update_hook_set(db = n_open(input)), "update_hook");
    else {
      conn = b_open(input);
      b_check(conn, sqlbatch_conn_change_feed(conn, UPDATE_FEED_BATCH, b_feed, NULL, NULL), "change_feed");
    }
  } else if (kind == POINT_QUERY || kind == FEW_ROWS || kind == LARGE_VALUES) {
    /* Open read-write (the file stays in WAL mode), synchronous=NORMAL, untimed. */
    const char *sql = kind == POINT_QUERY ? NB_POINT_SQL : NB_FEW_ROWS_SQL;
    if (native) {
      n_check(nb_synchronous_normal(db = n_open(input)), "synchronous");
      if (kind != LARGE_VALUES) n_check(nb_prepare(db, sql, &nstmt), "prepare");
    } else {
      b_exec(conn = b_open(input), "PRAGMA synchronous=NORMAL");
      if (kind != LARGE_VALUES) bstmt = b_prepare(conn, sql);
    }
  } else if (kind == PREPARE_CHURN || kind == SMALL_TX) {
    churn_n = churn_count(input);
    set_churn_path();
    atexit(remove_churn_files);
  } else if (kind == BLOB_READ || kind == BLOB_MANY || kind == BACKUP) {
    /* blob.db / backup.db opened read-write, SQLite's defaults; backup's copy is a file of
     * its own per repetition. */
    if (native) db = n_open(input);
    else conn = b_open(input);
    if (kind == BACKUP) {
      set_backup_path();
      atexit(remove_backup_files);
    }
  } else if (kind == VTAB_SCAN) {
    /* The table's rows, made before the clock starts; the database is a private one. */
    if (!(vdata = nb_vdata_make(churn_count(input)))) die("malloc", "vtab rows");
    if (native) n_check(nb_vtab_register(db = n_open(":memory:"), vdata), "module");
    else b_vtab_register(conn = b_open(":memory:"), vsource = b_vsource_make(vdata));
  } else if (kind == TVF_JOIN || kind == IN_LIST) {
    /* app.db's items, opened read-write (WAL), synchronous=NORMAL, untimed. */
    if (native) {
      n_check(nb_synchronous_normal(db = n_open(input)), "synchronous");
      if (kind == TVF_JOIN) n_check(nb_pairs_register(db), "module");
      else n_check(nb_prepare(db, NB_IN_LIST_SQL("carray(?)"), &nstmt), "prepare");
    } else {
      b_exec(conn = b_open(input), "PRAGMA synchronous=NORMAL");
      if (kind == TVF_JOIN) b_vtab_register(conn, NULL);
      else bstmt = b_prepare(conn, NB_IN_LIST_SQL("sqlbatch_rows(?)"));
    }
  } else if (kind == SCRIPT) {
    script = read_file(input);
  } else {
    if (!(rows = nb_make_rows((size_t)strtoull(input, NULL, 10))) || rows->n == 0) die("bulk rows", input);
    if (!native && !(values = calloc(BULK_CHUNK * 3, sizeof *values))) die("malloc", "values");
    if (ahead && (!(behind[0] = calloc(BULK_CHUNK * 3, sizeof *values)) ||
                  !(behind[1] = calloc(BULK_CHUNK * 3, sizeof *values)) ||
                  !(behind[2] = calloc(BULK_CHUNK * 3, sizeof *values))))
      die("malloc", "values");
  }
  for (int i = 0; i < warmup + reps; i++) {
    rep r;
    switch (kind) {
      case NARROW: r = native ? n_fetch(db, 0) : b_fetch_narrow(conn); break;
      case WIDE: r = native ? n_fetch(db, 1) : b_fetch_wide(conn); break;
      case WORK: r = native ? n_fetch(db, 2) : b_fetch_work(conn); break;
      case SCRIPT: r = native ? n_exec_script(script) : b_exec_script(script); break;
      case UDF_SCALAR: r = native ? n_udf(db, 0) : b_udf(conn, 0); break;
      case UDF_AGGREGATE: r = native ? n_udf(db, 1) : b_udf(conn, 1); break;
      case UPDATE_HOOK: r = native ? n_update_hook(db) : b_update_hook(conn); break;
      case POINT_QUERY: r = native ? n_small_reads(nstmt, 0) : b_small_reads(conn, bstmt, 0); break;
      case FEW_ROWS: r = native ? n_small_reads(nstmt, 1) : b_small_reads(conn, bstmt, 1); break;
      case PREPARE_CHURN: r = native ? n_churn(churn_n, 0) : b_churn(churn_n, 0); break;
      case SMALL_TX: r = native ? n_churn(churn_n, 1) : b_churn(churn_n, 1); break;
      case LARGE_VALUES: r = native ? n_large_values(db) : b_large_values(conn); break;
      case BLOB_READ: r = native ? n_blob(db, 0) : b_blob_read(conn); break;
      case BLOB_MANY: r = native ? n_blob(db, 1) : b_blob_many(conn); break;
      case BACKUP: r = native ? n_backup(db) : b_backup(conn); break;
      case VTAB_SCAN: r = native ? n_vtab(db, NB_VTAB_SQL("nvtab")) : b_vtab(conn, NB_VTAB_SQL("bvtab")); break;
      case TVF_JOIN: r = native ? n_vtab(db, NB_TVF_SQL("pairs")) : b_vtab(conn, NB_TVF_SQL("bpairs")); break;
      case IN_LIST: r = native ? n_in_list(nstmt) : b_in_list(conn, bstmt); break;
      default: r = native ? n_bulk_insert(rows) : ahead ? b_bulk_insert_behind(rows, behind) : b_bulk_insert(rows, values); break;
    }
    if (i >= warmup)
      printf("%llu %lld %lld %llu\n", (unsigned long long)r.ns, (long long)r.count, (long long)r.checksum,
             (unsigned long long)r.cpu_ns);
  }
  nb_finalize(nstmt);
  sqlbatch_stmt_finalize(bstmt);
  nb_close(db);
  sqlbatch_conn_close(conn);
  free(script);
  free(values);
  free(behind[0]);
  free(behind[1]);
  free(behind[2]);
  nb_free_rows(rows);
  if (vsource) free(vsource->cells);
  free(vsource);
  nb_vdata_free(vdata);
  return 0;
}
