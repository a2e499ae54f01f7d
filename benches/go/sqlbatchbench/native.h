/* native.h: the baselines of the Go benchmarks (see native.c). */
#ifndef SQLBATCHBENCH_NATIVE_H
#define SQLBATCHBENCH_NATIVE_H
#include <stddef.h>
#include <stdint.h>

/* The native C loop: nb_open, nb_exec, nb_fetch_narrow, nb_bulk_insert, ... */
#include "../../native/native_loop.h"

/* The same work through the sqlbatch C ABI. */
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
