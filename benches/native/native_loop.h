/*
 * native_loop.h: the native C baseline of every benchmark that reports a ratio to native C
 * (benches/impls/c's c-native, the Go benchmarks' Native, hs-bench's native C loop): the loop
 * a C programmer writes today, sqlite3_step + sqlite3_column_*, sqlite3_exec, a prepared
 * insert loop. One source, benches/native/native_loop.c, built into each of them; see
 * benches/README.md ("The native C baseline") for which SQLite it links and why the
 * comparison is fair.
 *
 * Every function returns SQLite's result code (0 is SQLITE_OK); the timed part of each
 * workload is one call (nb_fetch_*, nb_exec of the script, nb_bulk_insert, nb_udf_*).
 */
#ifndef SQLBATCH_NATIVE_LOOP_H
#define SQLBATCH_NATIVE_LOOP_H
#include <stddef.h>
#include <stdint.h>

#ifndef SQLITE3_H /* sqlite3.h, when a caller included it, has this typedef already */
typedef struct sqlite3 sqlite3;
#endif

/* Opens path with the flags sqlbatch uses: READWRITE | CREATE | NOMUTEX | EXRESCODE.
 * NULL on failure, with a static message in *err. */
sqlite3 *nb_open(const char *path, const char **err);
void nb_close(sqlite3 *db);
/* sqlite3_exec without a callback: the exec_script workload, and setup. On failure *err is
 * sqlite3_errmsg(db), valid until the next call on db. */
int nb_exec(sqlite3 *db, const char *sql, const char **err);
/* The two integers of the first row of a query (the checks after exec_script, bulk_insert). */
int nb_scalar2(sqlite3 *db, const char *sql, int64_t *a, int64_t *b);

/* fetch_narrow: SELECT id FROM testdata; the count of rows and the sum of id. */
int nb_fetch_narrow(sqlite3 *db, int64_t *count, int64_t *checksum);
/* fetch_wide: the ten columns of `wide`, summed as benches/README.md says. */
int nb_fetch_wide(sqlite3 *db, int64_t *count, int64_t *checksum);

/* The rows of bulk_insert, built before the clock starts: row i is (i, i * 0.25, "row-<i>"). */
typedef struct nb_rows {
  size_t n;
  char *text;    /* all "row-<i>" strings back to back */
  uint32_t *at;  /* offset of row i's text in `text` */
  uint32_t *len; /* its length */
} nb_rows;
nb_rows *nb_make_rows(size_t n); /* NULL when out of memory */
void nb_free_rows(nb_rows *rows);
/* bulk_insert: BEGIN, one prepared INSERT INTO bulk VALUES (?, ?, ?) bound and stepped per
 * row (the text SQLITE_STATIC), COMMIT. The table exists already. */
int nb_bulk_insert(sqlite3 *db, const nb_rows *rows);

/* Registers f and sumsq (the udf workloads) on db; untimed set-up. f(x) is x*2+1 (int64,
 * wrapping), a deterministic scalar function; sumsq(x) the wrapping int64 sum of x*x, an
 * aggregate (xStep/xFinal, its sum in sqlite3_aggregate_context; NULL for no rows). Both
 * sqlite3_create_function_v2, SQLITE_UTF8; f also SQLITE_DETERMINISTIC. */
int nb_udf_register(sqlite3 *db);
/* udf_scalar / udf_aggregate: one repetition; *count = calls of f / rows sumsq saw. Prepare,
 * step and finalize SELECT sum(f(x)) FROM udf / SELECT sumsq(x) FROM udf; *checksum is the
 * query's integer. The counters are static (the benchmarks are single-threaded) and reset at
 * the start of each call. */
int nb_udf_scalar(sqlite3 *db, int64_t *count, int64_t *checksum);
int nb_udf_aggregate(sqlite3 *db, int64_t *count, int64_t *checksum);

/* update_hook: sets an update hook (sqlite3_update_hook) on db that counts the rows it sees
 * and sums their rowids; untimed set-up. nb_update_hook runs UPDATE udf SET x = x + 1 (one
 * sqlite3_exec) with the counters reset first: *count is the rows the hook saw, *checksum the
 * sum of their rowids. The caller brackets it with BEGIN and ROLLBACK (untimed), so that every
 * repetition starts from the same file. */
int nb_update_hook_set(sqlite3 *db);
int nb_update_hook(sqlite3 *db, int64_t *count, int64_t *checksum);

/* The version of the SQLite the loop runs (sqlite3_libversion). */
const char *nb_sqlite_version(void);
/* UTF-8 code points of n bytes (bytes that are not continuation bytes): fetch_wide's text term,
 * which the sqlbatch loops beside the native one compute with this same function. */
int64_t nb_code_points(const unsigned char *p, size_t n);
#endif
