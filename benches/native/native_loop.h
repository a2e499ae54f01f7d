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
#include <string.h>

#ifndef SQLITE3_H /* sqlite3.h, when a caller included it, has these typedefs already */
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
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

/* ---- issue 15's application-shaped workloads (benches/README.md, "Small queries and large
 * values"). The timed part of each is one call: nb_point_query, nb_few_rows, nb_prepare_churn,
 * nb_small_tx, nb_large_values. ---- */

/* sqlite3_prepare_v2 of sql (NUL-terminated), no flags; sqlite3_finalize. Untimed set-up of
 * the statements point_query, few_rows and small_tx keep prepared. */
int nb_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **out);
void nb_finalize(sqlite3_stmt *s);
/* PRAGMA synchronous=NORMAL, which every connection of these workloads runs after open. */
int nb_synchronous_normal(sqlite3 *db);

/* The statements, one text for every implementation. */
#define NB_POINT_SQL "SELECT id, name, qty, price, tag FROM items WHERE id = ?"
#define NB_FEW_ROWS_SQL "SELECT id, name, qty, price, tag FROM items WHERE id >= ? ORDER BY id LIMIT 10"
#define NB_CHURN_INSERT_SQL "INSERT INTO churn(a, b, c) VALUES (?, ?, ?)"
#define NB_LARGE_SQL "SELECT id, t, b FROM big ORDER BY id"
/* The keys: query i of point_query looks up NB_POINT_KEY(i), query i of few_rows starts at
 * NB_FEW_ROWS_START(i). */
#define NB_POINT_QUERIES 100000
#define NB_POINT_KEY(i) ((int64_t)(i) * 7919 % 100000 + 1)
#define NB_FEW_ROWS_QUERIES 20000
#define NB_FEW_ROWS_START(i) ((int64_t)(i) * 7919 % 99991 + 1)

/* point_query: with s = NB_POINT_SQL prepared, for i = 0 .. n-1 bind NB_POINT_KEY(i), step,
 * read the row's five cells as their types (id, qty int64; name text, its code points; price
 * double x 1000 truncated; tag text or NULL -> 1), reset. *count = n (queries), *checksum the
 * wrapping sum. A key without a row is an error (SQLITE_DONE is returned). */
int nb_point_query(sqlite3_stmt *s, int64_t n, int64_t *count, int64_t *checksum);
/* few_rows: the same with s = NB_FEW_ROWS_SQL, NB_FEW_ROWS_START(i), every row read (up to
 * 10), reset; *count = n (queries). */
int nb_few_rows(sqlite3_stmt *s, int64_t n, int64_t *count, int64_t *checksum);

/* prepare_churn and small_tx set-up: removes path and its -wal and -shm files, opens it
 * (nb_open), runs PRAGMA journal_mode=WAL, PRAGMA synchronous=NORMAL and
 * CREATE TABLE churn(a INTEGER, b REAL, c TEXT). NULL on failure, with a message in *err
 * (static). nb_churn_remove removes the three files (at exit). The caller builds the path:
 * <$TMPDIR or /tmp>/sqlbatch-bench-<pid>.db. */
sqlite3 *nb_churn_open(const char *path, const char **err);
void nb_churn_remove(const char *path);
/* prepare_churn: BEGIN; for i = 0 .. n-1: prepare NB_CHURN_INSERT_SQL, bind (i, i * 0.25,
 * "row-<i>", the text built in the loop by snprintf, SQLITE_STATIC), step, finalize; COMMIT
 * (BEGIN and COMMIT through sqlite3_exec). */
int nb_prepare_churn(sqlite3 *db, int64_t n);
/* small_tx: with ins = NB_CHURN_INSERT_SQL prepared, for i = 0 .. n-1: BEGIN; bind row i as
 * prepare_churn does, step, reset; COMMIT (BEGIN and COMMIT through sqlite3_exec). */
int nb_small_tx(sqlite3 *db, sqlite3_stmt *ins, int64_t n);
/* The count and checksum of both: SELECT count(*), sum(a) + sum(length(c)) FROM churn. */
#define NB_CHURN_CHECK_SQL "SELECT count(*), sum(a) + sum(length(c)) FROM churn"

/* large_values: prepare NB_LARGE_SQL, read every row, finalize. Per row: id + the code points
 * of t + nb_blob_sum of b. *count = rows. */
int nb_large_values(sqlite3 *db, int64_t *count, int64_t *checksum);
/* large_values' BLOB rule: n + the sum of the unsigned bytes at offsets 0, 64, 128, ... */
int64_t nb_blob_sum(const unsigned char *p, size_t n);

/* ---- issue 11: blob_read, blob_many, backup (benches/README.md, "Blobs and backup"). The
 * timed part of each is one call: nb_blob_read, nb_blob_many, nb_backup. ---- */

/* blob.db's tables and column, and the BLOB rule of every blob workload: nb_blob_sum (the
 * length plus the unsigned bytes at offsets 0, 64, 128, ...), as large_values'. */
#define NB_BLOB_READ_TABLE "big_blob"
#define NB_BLOB_MANY_TABLE "small_blobs"
#define NB_BLOB_COLUMN "b"
#define NB_BLOB_READ_ROWID 1
/* blob_read reads its value in ranges of NB_BLOB_RANGE bytes (a multiple of 64, so that the
 * rule summed over the ranges is the rule over the whole value). */
#define NB_BLOB_RANGE 65536
/* blob_many reads NB_BLOB_MANY values, value i from row NB_BLOB_MANY_KEY(i) (a permutation
 * of 1 .. 100,000). */
#define NB_BLOB_MANY 100000
#define NB_BLOB_MANY_KEY(i) ((int64_t)(i) * 7919 % 100000 + 1)

/* blob_read: sqlite3_blob_open of row NB_BLOB_READ_ROWID (read-only), sqlite3_blob_read of
 * NB_BLOB_RANGE bytes at a time into one buffer, sqlite3_blob_close. *count = the bytes
 * read, *checksum = the sum of nb_blob_sum over the ranges. */
int nb_blob_read(sqlite3 *db, int64_t *count, int64_t *checksum);
/* blob_many: sqlite3_blob_open on the first row, then per value sqlite3_blob_reopen,
 * sqlite3_blob_bytes, sqlite3_blob_read of the whole value into one buffer (grown when a
 * value does not fit), sqlite3_blob_close. *count = NB_BLOB_MANY, *checksum = the sum of
 * nb_blob_sum over the values. */
int nb_blob_many(sqlite3 *db, int64_t *count, int64_t *checksum);

/* backup: copies the main database of src into a new file at path: nb_open of path, PRAGMA
 * synchronous=OFF on it (so that the commit does not wait for 256 MiB to reach the disk),
 * sqlite3_backup_init, sqlite3_backup_step(-1), sqlite3_backup_finish, sqlite3_close. The
 * caller removes the file before (nb_backup_remove) and checks the copy afterwards with
 * NB_BACKUP_CHECK_SQL (untimed). The path: <$TMPDIR or /tmp>/sqlbatch-bench-backup-<pid>.db. */
int nb_backup(sqlite3 *src, const char *path);
/* Removes path and its -journal, -wal and -shm files. */
void nb_backup_remove(const char *path);
#define NB_BACKUP_SYNCHRONOUS_SQL "PRAGMA synchronous=OFF"
/* The copy's count and checksum: its size in bytes, and count(*) + sum(n) + sum(length(b)). */
#define NB_BACKUP_CHECK_SQL \
  "SELECT (SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()), " \
  "count(*) + sum(n) + sum(length(b)) FROM bk"

/* ---- fetch_work (benches/README.md): the fetch_wide query with real work per row, a 64-bit
 * FNV-1a hash kept across the whole repetition and folded over every cell in column order:
 * one byte, the cell's SQLite type code (1 INTEGER, 2 FLOAT, 3 TEXT, 4 BLOB, 5 NULL), then
 * INTEGER its 8 bytes little-endian, FLOAT the 8 bytes of its IEEE-754 bits little-endian,
 * TEXT its UTF-8 bytes, BLOB its bytes, NULL nothing. The checksum is the final hash as a
 * wrapping int64. The helpers are static inline so that every loop (nb_fetch_work, c-bench's
 * c-sqlbatch) hashes in line, as a C programmer's own loop would. ---- */
#define NB_FNV_OFFSET 14695981039346656037ULL
#define NB_FNV_PRIME 1099511628211ULL
#define NB_WORK_SQL "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"

static inline uint64_t nb_fnv_byte(uint64_t h, unsigned char b) { return (h ^ b) * NB_FNV_PRIME; }

static inline uint64_t nb_fnv_u64(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; i++) h = nb_fnv_byte(h, (unsigned char)(v >> (8 * i)));
  return h;
}

static inline uint64_t nb_fnv_bytes(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = nb_fnv_byte(h, p[i]);
  return h;
}

/* One cell of each type: the type code, then the value's bytes. */
static inline uint64_t nb_fnv_int64(uint64_t h, int64_t v) { return nb_fnv_u64(nb_fnv_byte(h, 1), (uint64_t)v); }
static inline uint64_t nb_fnv_double(uint64_t h, double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  return nb_fnv_u64(nb_fnv_byte(h, 2), bits);
}
static inline uint64_t nb_fnv_text(uint64_t h, const unsigned char *p, size_t n) { return nb_fnv_bytes(nb_fnv_byte(h, 3), p, n); }
static inline uint64_t nb_fnv_blob(uint64_t h, const unsigned char *p, size_t n) { return nb_fnv_bytes(nb_fnv_byte(h, 4), p, n); }
static inline uint64_t nb_fnv_null(uint64_t h) { return nb_fnv_byte(h, 5); }

/* fetch_work: NB_WORK_SQL stepped with sqlite3_step, every cell read with sqlite3_column_type
 * and sqlite3_column_int64 / _double / _text / _blob + _bytes and hashed in the step loop.
 * *count = rows, *checksum = the hash. */
int nb_fetch_work(sqlite3 *db, int64_t *count, int64_t *checksum);

/* The version of the SQLite the loop runs (sqlite3_libversion). */
const char *nb_sqlite_version(void);
/* UTF-8 code points of n bytes (bytes that are not continuation bytes): fetch_wide's text term,
 * which the sqlbatch loops beside the native one compute with this same function. */
int64_t nb_code_points(const unsigned char *p, size_t n);
#endif
