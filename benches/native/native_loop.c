/*
 * native_loop.c: the native C baseline (see native_loop.h), one copy for every benchmark.
 *
 * Built three ways, each with -O2 as before: benches/impls/c/Makefile compiles it into
 * c-bench; benches/go/sqlbatchbench/native.c and bindings/haskell/bench/cbits/native.c
 * #include it (cgo and cabal compile only files of their own package directory).
 *
 * It declares the few SQLite functions it calls itself, with SQLite's signatures and values,
 * because sqlite3.h lives in libsqlite3-sys's source tree, on no include path of cgo or cabal.
 * benches/impls/c compiles it with -DNB_USE_SQLITE3_H and the bundled sqlite3.h on the path,
 * so that the compiler checks these declarations against the real ones.
 *
 * It links the SQLite object that libsqlite3-sys compiled and that is inside libsqlbatch
 * (benches/README.md, "The native C baseline"): the same SQLite, flags and -O level as
 * sqlbatch's.
 */
#ifdef NB_USE_SQLITE3_H
#include "sqlite3.h"
#endif
#include <stdio.h>
#include <stdlib.h>

#include "native_loop.h"

struct sqlite3_stmt;
int sqlite3_open_v2(const char *, struct sqlite3 **, int, const char *);
int sqlite3_close(struct sqlite3 *);
int sqlite3_exec(struct sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
const char *sqlite3_errmsg(struct sqlite3 *);
const char *sqlite3_errstr(int);
const char *sqlite3_libversion(void);
int sqlite3_prepare_v2(struct sqlite3 *, const char *, int, struct sqlite3_stmt **, const char **);
int sqlite3_step(struct sqlite3_stmt *);
int sqlite3_reset(struct sqlite3_stmt *);
int sqlite3_finalize(struct sqlite3_stmt *);
int sqlite3_column_type(struct sqlite3_stmt *, int);
long long sqlite3_column_int64(struct sqlite3_stmt *, int);
double sqlite3_column_double(struct sqlite3_stmt *, int);
const unsigned char *sqlite3_column_text(struct sqlite3_stmt *, int);
int sqlite3_column_bytes(struct sqlite3_stmt *, int);
int sqlite3_bind_int64(struct sqlite3_stmt *, int, long long);
int sqlite3_bind_double(struct sqlite3_stmt *, int, double);
int sqlite3_bind_text(struct sqlite3_stmt *, int, const char *, int, void (*)(void *));
const void *sqlite3_column_blob(struct sqlite3_stmt *, int);
struct sqlite3_context;
struct sqlite3_value;
int sqlite3_create_function_v2(struct sqlite3 *, const char *, int, int, void *,
                               void (*)(struct sqlite3_context *, int, struct sqlite3_value **),
                               void (*)(struct sqlite3_context *, int, struct sqlite3_value **),
                               void (*)(struct sqlite3_context *), void (*)(void *));
long long sqlite3_value_int64(struct sqlite3_value *);
void sqlite3_result_int64(struct sqlite3_context *, long long);
void sqlite3_result_null(struct sqlite3_context *);
void sqlite3_result_error_nomem(struct sqlite3_context *);
void *sqlite3_aggregate_context(struct sqlite3_context *, int);
void *sqlite3_update_hook(struct sqlite3 *, void (*)(void *, int, const char *, const char *, long long), void *);
struct sqlite3_blob;
int sqlite3_blob_open(struct sqlite3 *, const char *, const char *, const char *, long long, int,
                      struct sqlite3_blob **);
int sqlite3_blob_reopen(struct sqlite3_blob *, long long);
int sqlite3_blob_bytes(struct sqlite3_blob *);
int sqlite3_blob_read(struct sqlite3_blob *, void *, int, int);
int sqlite3_blob_close(struct sqlite3_blob *);
struct sqlite3_backup;
struct sqlite3_backup *sqlite3_backup_init(struct sqlite3 *, const char *, struct sqlite3 *, const char *);
int sqlite3_backup_step(struct sqlite3_backup *, int);
int sqlite3_backup_finish(struct sqlite3_backup *);
int sqlite3_errcode(struct sqlite3 *);

/* SQLite's values (sqlite3.h). */
enum {
  NB_SQLITE_OK = 0,
  NB_SQLITE_ROW = 100,
  NB_SQLITE_DONE = 101,
  NB_SQLITE_INTEGER = 1,
  NB_SQLITE_FLOAT = 2,
  NB_SQLITE_TEXT = 3,
  NB_SQLITE_BLOB = 4,
  NB_SQLITE_NULL = 5,
  NB_SQLITE_NOMEM = 7,
  NB_SQLITE_CANTOPEN = 14
};
#define NB_OPEN_FLAGS (0x00000002 /* READWRITE */ | 0x00000004 /* CREATE */ | 0x00008000 /* NOMUTEX */ | \
                       0x02000000 /* EXRESCODE */)
#define NB_STATIC ((void (*)(void *))0) /* SQLITE_STATIC */
#define NB_UTF8 1                    /* SQLITE_UTF8 */
#define NB_DETERMINISTIC 0x000000800 /* SQLITE_DETERMINISTIC */

#ifdef NB_USE_SQLITE3_H /* C99 has no _Static_assert: an array of size -1 fails to compile */
typedef char nb_check_codes[NB_SQLITE_OK == SQLITE_OK && NB_SQLITE_ROW == SQLITE_ROW && NB_SQLITE_DONE == SQLITE_DONE &&
                                    NB_SQLITE_NOMEM == SQLITE_NOMEM && NB_SQLITE_CANTOPEN == SQLITE_CANTOPEN ? 1 : -1];
typedef char nb_check_types[NB_SQLITE_INTEGER == SQLITE_INTEGER && NB_SQLITE_FLOAT == SQLITE_FLOAT &&
                                    NB_SQLITE_TEXT == SQLITE_TEXT && NB_SQLITE_BLOB == SQLITE_BLOB &&
                                    NB_SQLITE_NULL == SQLITE_NULL ? 1 : -1];
typedef char nb_check_flags[NB_OPEN_FLAGS == (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                                              SQLITE_OPEN_EXRESCODE) ? 1 : -1];
typedef char nb_check_function_flags[NB_UTF8 == SQLITE_UTF8 && NB_DETERMINISTIC == SQLITE_DETERMINISTIC ? 1 : -1];
#endif

sqlite3 *nb_open(const char *path, const char **err) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, NB_OPEN_FLAGS, NULL);
  if (rc != NB_SQLITE_OK) {
    *err = sqlite3_errstr(rc); /* static, unlike sqlite3_errmsg(db) once db is closed */
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

void nb_close(sqlite3 *db) { sqlite3_close(db); }

int nb_exec(sqlite3 *db, const char *sql, const char **err) {
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (rc != NB_SQLITE_OK) *err = sqlite3_errmsg(db);
  return rc;
}

int nb_scalar2(sqlite3 *db, const char *sql, int64_t *a, int64_t *b) {
  struct sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  rc = sqlite3_step(s);
  if (rc == NB_SQLITE_ROW) {
    *a = sqlite3_column_int64(s, 0);
    *b = sqlite3_column_int64(s, 1);
    rc = NB_SQLITE_OK;
  } /* else the step's code, SQLITE_DONE (101) when there is no row: not 0 either way */
  sqlite3_finalize(s);
  return rc;
}

const char *nb_sqlite_version(void) { return sqlite3_libversion(); }

int64_t nb_code_points(const unsigned char *p, size_t n) {
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) k += (p[i] & 0xC0) != 0x80;
  return k;
}

/* The timed part of each fetch includes the prepare and the finalize, as it always has. */
int nb_fetch_narrow(sqlite3 *db, int64_t *count, int64_t *checksum) {
  struct sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, "SELECT id FROM testdata", -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  int64_t n = 0, sum = 0;
  while ((rc = sqlite3_step(s)) == NB_SQLITE_ROW) {
    sum += sqlite3_column_int64(s, 0);
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  *checksum = sum;
  return rc == NB_SQLITE_DONE ? NB_SQLITE_OK : rc;
}

int nb_fetch_wide(sqlite3 *db, int64_t *count, int64_t *checksum) {
  struct sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide", -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  uint64_t sum = 0;
  int64_t n = 0;
  while ((rc = sqlite3_step(s)) == NB_SQLITE_ROW) {
    for (int c = 0; c < 10; c++) {
      switch (sqlite3_column_type(s, c)) {
        case NB_SQLITE_INTEGER: sum += (uint64_t)sqlite3_column_int64(s, c); break;
        case NB_SQLITE_FLOAT: sum += (uint64_t)(int64_t)(sqlite3_column_double(s, c) * 1000.0); break;
        case NB_SQLITE_TEXT: {
          const unsigned char *p = sqlite3_column_text(s, c);
          sum += (uint64_t)nb_code_points(p, (size_t)sqlite3_column_bytes(s, c));
          break;
        }
        case NB_SQLITE_BLOB: sum += (uint64_t)sqlite3_column_bytes(s, c); break;
        default: sum += 1;
      }
    }
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  *checksum = (int64_t)sum;
  return rc == NB_SQLITE_DONE ? NB_SQLITE_OK : rc;
}

int nb_fetch_work(sqlite3 *db, int64_t *count, int64_t *checksum) {
  struct sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, NB_WORK_SQL, -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  uint64_t h = NB_FNV_OFFSET;
  int64_t n = 0;
  while ((rc = sqlite3_step(s)) == NB_SQLITE_ROW) {
    for (int c = 0; c < 10; c++) {
      switch (sqlite3_column_type(s, c)) {
        case NB_SQLITE_INTEGER: h = nb_fnv_int64(h, sqlite3_column_int64(s, c)); break;
        case NB_SQLITE_FLOAT: h = nb_fnv_double(h, sqlite3_column_double(s, c)); break;
        case NB_SQLITE_TEXT: {
          const unsigned char *p = sqlite3_column_text(s, c);
          h = nb_fnv_text(h, p, (size_t)sqlite3_column_bytes(s, c));
          break;
        }
        case NB_SQLITE_BLOB: {
          const unsigned char *p = sqlite3_column_blob(s, c);
          h = nb_fnv_blob(h, p, (size_t)sqlite3_column_bytes(s, c));
          break;
        }
        default: h = nb_fnv_null(h);
      }
    }
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  *checksum = (int64_t)h;
  return rc == NB_SQLITE_DONE ? NB_SQLITE_OK : rc;
}

nb_rows *nb_make_rows(size_t n) {
  nb_rows *r = malloc(sizeof *r);
  if (!r) return NULL;
  r->n = n;
  r->text = malloc(n * 16 + 1);
  r->at = malloc((n + 1) * sizeof(uint32_t));
  r->len = malloc((n + 1) * sizeof(uint32_t));
  if (!r->text || !r->at || !r->len) {
    nb_free_rows(r);
    return NULL;
  }
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    int k = snprintf(r->text + used, 16, "row-%zu", i);
    r->at[i] = (uint32_t)used;
    r->len[i] = (uint32_t)k;
    used += (size_t)k;
  }
  return r;
}

void nb_free_rows(nb_rows *r) {
  if (!r) return;
  free(r->text);
  free(r->at);
  free(r->len);
  free(r);
}

int nb_bulk_insert(sqlite3 *db, const nb_rows *rows) {
  int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  struct sqlite3_stmt *s;
  rc = sqlite3_prepare_v2(db, "INSERT INTO bulk VALUES (?, ?, ?)", -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  for (size_t i = 0; i < rows->n; i++) {
    sqlite3_bind_int64(s, 1, (long long)i);
    sqlite3_bind_double(s, 2, (double)i * 0.25);
    sqlite3_bind_text(s, 3, rows->text + rows->at[i], (int)rows->len[i], NB_STATIC);
    if ((rc = sqlite3_step(s)) != NB_SQLITE_DONE) {
      sqlite3_finalize(s);
      return rc;
    }
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* ---- udf_scalar, udf_aggregate ---- */

/* What f and sumsq count during one repetition (the benchmarks are single-threaded). */
static int64_t nb_f_calls, nb_sumsq_rows;

static void nb_f(struct sqlite3_context *ctx, int argc, struct sqlite3_value **argv) {
  (void)argc;
  nb_f_calls++;
  uint64_t x = (uint64_t)sqlite3_value_int64(argv[0]);
  sqlite3_result_int64(ctx, (long long)(x * 2 + 1));
}

static void nb_sumsq_step(struct sqlite3_context *ctx, int argc, struct sqlite3_value **argv) {
  (void)argc;
  uint64_t *sum = sqlite3_aggregate_context(ctx, sizeof *sum); /* zeroed at the group's first row */
  if (!sum) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  nb_sumsq_rows++;
  uint64_t x = (uint64_t)sqlite3_value_int64(argv[0]);
  *sum += x * x;
}

static void nb_sumsq_final(struct sqlite3_context *ctx) {
  uint64_t *sum = sqlite3_aggregate_context(ctx, 0); /* NULL when the group had no row */
  if (sum) sqlite3_result_int64(ctx, (long long)*sum);
  else sqlite3_result_null(ctx);
}

int nb_udf_register(sqlite3 *db) {
  int rc = sqlite3_create_function_v2(db, "f", 1, NB_UTF8 | NB_DETERMINISTIC, NULL, nb_f, NULL, NULL, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  return sqlite3_create_function_v2(db, "sumsq", 1, NB_UTF8, NULL, NULL, nb_sumsq_step, nb_sumsq_final, NULL);
}

/* Prepares, steps and finalizes a one-row, one-column query: its integer in *v. */
static int nb_query_int64(sqlite3 *db, const char *sql, int64_t *v) {
  struct sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  rc = sqlite3_step(s);
  if (rc == NB_SQLITE_ROW) {
    *v = sqlite3_column_int64(s, 0);
    rc = NB_SQLITE_OK;
  }
  int frc = sqlite3_finalize(s);
  return rc != NB_SQLITE_OK ? rc : frc;
}

int nb_udf_scalar(sqlite3 *db, int64_t *count, int64_t *checksum) {
  nb_f_calls = 0;
  int rc = nb_query_int64(db, "SELECT sum(f(x)) FROM udf", checksum);
  *count = nb_f_calls;
  return rc;
}

int nb_udf_aggregate(sqlite3 *db, int64_t *count, int64_t *checksum) {
  nb_sumsq_rows = 0;
  int rc = nb_query_int64(db, "SELECT sumsq(x) FROM udf", checksum);
  *count = nb_sumsq_rows;
  return rc;
}

/* ---- update_hook ---- */

static int64_t nb_hook_rows, nb_hook_rowids;

static void nb_count_update(void *ud, int op, const char *schema, const char *table, long long rowid) {
  (void)ud;
  (void)op;
  (void)schema;
  (void)table;
  nb_hook_rows++;
  nb_hook_rowids += rowid;
}

int nb_update_hook_set(sqlite3 *db) {
  sqlite3_update_hook(db, nb_count_update, NULL);
  return NB_SQLITE_OK;
}

int nb_update_hook(sqlite3 *db, int64_t *count, int64_t *checksum) {
  nb_hook_rows = nb_hook_rowids = 0;
  int rc = sqlite3_exec(db, "UPDATE udf SET x = x + 1", NULL, NULL, NULL);
  *count = nb_hook_rows;
  *checksum = nb_hook_rowids;
  return rc;
}

/* ---- issue 15: point_query, few_rows, prepare_churn, small_tx, large_values ---- */

int nb_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **out) { return sqlite3_prepare_v2(db, sql, -1, out, NULL); }

void nb_finalize(sqlite3_stmt *s) { sqlite3_finalize(s); }

int nb_synchronous_normal(sqlite3 *db) { return sqlite3_exec(db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL); }

/* The five cells of an items row as their types: id, qty int64; name the code points of its
 * text; price x 1000 truncated; tag NULL -> 1, else its code points. */
static uint64_t nb_item_row(sqlite3_stmt *s) {
  uint64_t sum = (uint64_t)sqlite3_column_int64(s, 0);
  const unsigned char *name = sqlite3_column_text(s, 1);
  sum += (uint64_t)nb_code_points(name, (size_t)sqlite3_column_bytes(s, 1));
  sum += (uint64_t)sqlite3_column_int64(s, 2);
  sum += (uint64_t)(int64_t)(sqlite3_column_double(s, 3) * 1000.0);
  if (sqlite3_column_type(s, 4) == NB_SQLITE_NULL) {
    sum += 1;
  } else {
    const unsigned char *tag = sqlite3_column_text(s, 4);
    sum += (uint64_t)nb_code_points(tag, (size_t)sqlite3_column_bytes(s, 4));
  }
  return sum;
}

int nb_point_query(sqlite3_stmt *s, int64_t n, int64_t *count, int64_t *checksum) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; i++) {
    sqlite3_bind_int64(s, 1, NB_POINT_KEY(i));
    int rc = sqlite3_step(s);
    if (rc != NB_SQLITE_ROW) {
      sqlite3_reset(s);
      return rc == NB_SQLITE_DONE ? NB_SQLITE_DONE : rc; /* no row for a key is an error here */
    }
    sum += nb_item_row(s);
    sqlite3_reset(s);
  }
  *count = n;
  *checksum = (int64_t)sum;
  return NB_SQLITE_OK;
}

int nb_few_rows(sqlite3_stmt *s, int64_t n, int64_t *count, int64_t *checksum) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; i++) {
    sqlite3_bind_int64(s, 1, NB_FEW_ROWS_START(i));
    int rc;
    while ((rc = sqlite3_step(s)) == NB_SQLITE_ROW) sum += nb_item_row(s);
    sqlite3_reset(s);
    if (rc != NB_SQLITE_DONE) return rc;
  }
  *count = n;
  *checksum = (int64_t)sum;
  return NB_SQLITE_OK;
}

/* path + suffix into buf (large enough for any path the benchmarks build), then removed. */
static void nb_remove_with(const char *path, const char *suffix) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s%s", path, suffix) < (int)sizeof buf) remove(buf);
}

void nb_churn_remove(const char *path) {
  nb_remove_with(path, "");
  nb_remove_with(path, "-wal");
  nb_remove_with(path, "-shm");
}

sqlite3 *nb_churn_open(const char *path, const char **err) {
  nb_churn_remove(path);
  sqlite3 *db = nb_open(path, err);
  if (!db) return NULL;
  static const char *const setup[] = {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                                      "CREATE TABLE churn(a INTEGER, b REAL, c TEXT)"};
  for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
    int rc = sqlite3_exec(db, setup[i], NULL, NULL, NULL);
    if (rc != NB_SQLITE_OK) {
      *err = sqlite3_errstr(rc);
      sqlite3_close(db);
      return NULL;
    }
  }
  return db;
}

/* Binds row i of prepare_churn and small_tx: (i, i * 0.25, "row-<i>"), the text in buf
 * (SQLITE_STATIC: buf outlives the step). */
static void nb_bind_churn_row(sqlite3_stmt *s, int64_t i, char *buf, size_t size) {
  int k = snprintf(buf, size, "row-%lld", (long long)i);
  sqlite3_bind_int64(s, 1, i);
  sqlite3_bind_double(s, 2, (double)i * 0.25);
  sqlite3_bind_text(s, 3, buf, k, NB_STATIC);
}

int nb_prepare_churn(sqlite3 *db, int64_t n) {
  int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  char buf[32];
  for (int64_t i = 0; i < n; i++) {
    struct sqlite3_stmt *s;
    if ((rc = sqlite3_prepare_v2(db, NB_CHURN_INSERT_SQL, -1, &s, NULL)) != NB_SQLITE_OK) return rc;
    nb_bind_churn_row(s, i, buf, sizeof buf);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != NB_SQLITE_DONE) return rc;
  }
  return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

int nb_small_tx(sqlite3 *db, sqlite3_stmt *ins, int64_t n) {
  char buf[32];
  for (int64_t i = 0; i < n; i++) {
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc != NB_SQLITE_OK) return rc;
    nb_bind_churn_row(ins, i, buf, sizeof buf);
    rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (rc != NB_SQLITE_DONE) return rc;
    if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != NB_SQLITE_OK) return rc;
  }
  return NB_SQLITE_OK;
}

int64_t nb_blob_sum(const unsigned char *p, size_t n) {
  int64_t sum = (int64_t)n;
  for (size_t i = 0; i < n; i += 64) sum += p[i];
  return sum;
}

int nb_large_values(sqlite3 *db, int64_t *count, int64_t *checksum) {
  struct sqlite3_stmt *s;
  int rc = sqlite3_prepare_v2(db, NB_LARGE_SQL, -1, &s, NULL);
  if (rc != NB_SQLITE_OK) return rc;
  uint64_t sum = 0;
  int64_t n = 0;
  while ((rc = sqlite3_step(s)) == NB_SQLITE_ROW) {
    sum += (uint64_t)sqlite3_column_int64(s, 0);
    const unsigned char *t = sqlite3_column_text(s, 1);
    sum += (uint64_t)nb_code_points(t, (size_t)sqlite3_column_bytes(s, 1));
    const unsigned char *b = sqlite3_column_blob(s, 2);
    sum += (uint64_t)nb_blob_sum(b, (size_t)sqlite3_column_bytes(s, 2));
    n++;
  }
  sqlite3_finalize(s);
  *count = n;
  *checksum = (int64_t)sum;
  return rc == NB_SQLITE_DONE ? NB_SQLITE_OK : rc;
}

/* ---- issue 11: blob_read, blob_many, backup ---- */

int nb_blob_read(sqlite3 *db, int64_t *count, int64_t *checksum) {
  struct sqlite3_blob *b = NULL;
  int rc = sqlite3_blob_open(db, "main", NB_BLOB_READ_TABLE, NB_BLOB_COLUMN, NB_BLOB_READ_ROWID, 0, &b);
  if (rc != NB_SQLITE_OK) return rc;
  unsigned char *buf = malloc(NB_BLOB_RANGE);
  if (!buf) {
    sqlite3_blob_close(b);
    return NB_SQLITE_NOMEM;
  }
  int size = sqlite3_blob_bytes(b);
  uint64_t sum = 0;
  for (int off = 0; off < size && rc == NB_SQLITE_OK; off += NB_BLOB_RANGE) {
    int n = size - off < NB_BLOB_RANGE ? size - off : NB_BLOB_RANGE;
    if ((rc = sqlite3_blob_read(b, buf, n, off)) == NB_SQLITE_OK) sum += (uint64_t)nb_blob_sum(buf, (size_t)n);
  }
  free(buf);
  sqlite3_blob_close(b);
  *count = size;
  *checksum = (int64_t)sum;
  return rc;
}

int nb_blob_many(sqlite3 *db, int64_t *count, int64_t *checksum) {
  struct sqlite3_blob *b = NULL;
  int rc = sqlite3_blob_open(db, "main", NB_BLOB_MANY_TABLE, NB_BLOB_COLUMN, NB_BLOB_MANY_KEY(0), 0, &b);
  if (rc != NB_SQLITE_OK) return rc;
  size_t cap = 4096;
  unsigned char *buf = malloc(cap);
  uint64_t sum = 0;
  for (int64_t i = 0; i < NB_BLOB_MANY && buf; i++) {
    if (i > 0 && (rc = sqlite3_blob_reopen(b, NB_BLOB_MANY_KEY(i))) != NB_SQLITE_OK) break;
    int n = sqlite3_blob_bytes(b);
    if ((size_t)n > cap) {
      unsigned char *bigger = realloc(buf, (size_t)n);
      if (!bigger) break;
      buf = bigger;
      cap = (size_t)n;
    }
    if ((rc = sqlite3_blob_read(b, buf, n, 0)) != NB_SQLITE_OK) break;
    sum += (uint64_t)nb_blob_sum(buf, (size_t)n);
  }
  if (!buf && rc == NB_SQLITE_OK) rc = NB_SQLITE_NOMEM;
  free(buf);
  sqlite3_blob_close(b);
  *count = NB_BLOB_MANY;
  *checksum = (int64_t)sum;
  return rc;
}

void nb_backup_remove(const char *path) {
  nb_remove_with(path, "");
  nb_remove_with(path, "-journal");
  nb_remove_with(path, "-wal");
  nb_remove_with(path, "-shm");
}

int nb_backup(sqlite3 *src, const char *path) {
  const char *err = NULL;
  sqlite3 *dest = nb_open(path, &err);
  if (!dest) return NB_SQLITE_CANTOPEN;
  int rc = sqlite3_exec(dest, NB_BACKUP_SYNCHRONOUS_SQL, NULL, NULL, NULL);
  if (rc == NB_SQLITE_OK) {
    struct sqlite3_backup *b = sqlite3_backup_init(dest, "main", src, "main");
    if (!b) {
      rc = sqlite3_errcode(dest);
    } else {
      rc = sqlite3_backup_step(b, -1);
      int frc = sqlite3_backup_finish(b);
      rc = rc == NB_SQLITE_DONE ? frc : rc;
    }
  }
  sqlite3_close(dest);
  return rc;
}
