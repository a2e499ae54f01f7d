/* native.h: the native C loop, the baseline of the Go benchmarks (see native.c). */
#ifndef SQLBATCHBENCH_NATIVE_H
#define SQLBATCHBENCH_NATIVE_H
#include <stddef.h>
#include <stdint.h>

typedef struct sqlite3 sqlite3;

/* Opens path as the C benchmark does; NULL on failure (the message goes to *err). */
sqlite3 *nb_open(const char *path, const char **err);
void nb_close(sqlite3 *db);
/* sqlite3_exec without a callback; returns the SQLite code, the message in *err. */
int nb_exec(sqlite3 *db, const char *sql, const char **err);
/* The first row of a two-integer query. */
int nb_scalar2(sqlite3 *db, const char *sql, int64_t *a, int64_t *b);

int nb_fetch_narrow(sqlite3 *db, int64_t *count, int64_t *checksum);
int nb_fetch_wide(sqlite3 *db, int64_t *count, int64_t *checksum);

/* Rows of bulk_insert, built before the clock starts. */
typedef struct nb_rows nb_rows;
nb_rows *nb_make_rows(size_t n);
void nb_free_rows(nb_rows *r);
int nb_bulk_insert(sqlite3 *db, const nb_rows *rows);
/* The same fetches through the sqlbatch C ABI. */
typedef struct sqlbatch_conn sqlbatch_conn;
sqlbatch_conn *nb_sb_open(const char *path);
int nb_sb_fetch(sqlbatch_conn *c, int wide, int64_t *count, int64_t *checksum);
/* bulk_insert through the ABI: every row's values built beforehand, one execute_many. */
typedef struct sqlbatch_value sqlbatch_value;
sqlbatch_value *nb_sb_make_values(const nb_rows *rows);
int nb_sb_exec(sqlbatch_conn *c, const char *sql);
int nb_sb_bulk_insert(sqlbatch_conn *c, const nb_rows *rows, const sqlbatch_value *values);
int nb_sb_scalar2(sqlbatch_conn *c, const char *sql, int64_t *a, int64_t *b);
#endif
