/*
 * native_vtab.h: the native C baseline of the virtual-table workloads (vtab_scan, tvf_join,
 * in_list; benches/README.md), and the data they share with c-sqlbatch.
 */
#ifndef SQLBATCH_NATIVE_VTAB_H
#define SQLBATCH_NATIVE_VTAB_H
#include <stdint.h>

#include "native_loop.h" /* the sqlite3 and sqlite3_stmt typedefs */

/* vtab_scan's table, built before the clock starts: row i is (a = i, b = i * 0.5,
 * c = "v" followed by i % 1000 in decimal, d = NULL when i % 7 == 0, else i % 100). */
typedef struct nb_vdata {
  int64_t n;
  char *text;    /* every row's c, back to back */
  uint32_t *at;  /* offset of row i's c in `text` */
  uint32_t *len; /* its length */
} nb_vdata;
nb_vdata *nb_vdata_make(int64_t n); /* NULL when out of memory */
void nb_vdata_free(nb_vdata *d);
#define NB_VTAB_ROWS 1000000
/* vtab_scan's query on a table v of those columns. */
#define NB_VTAB_SQL(v) "SELECT count(*), sum(a) + sum(length(c)) FROM " v

/* Registers nvtab, an eponymous-only module over `data` (one xColumn call per value). */
int nb_vtab_register(sqlite3 *db, const nb_vdata *data);

/* tvf_join: pairs(n), a table-valued function of n rows (k, w), joined to app.db's items. */
#define NB_PAIR_KEY(j) ((((j) * 7919) % 100000) + 1)
#define NB_PAIR_WEIGHT(j) ((j) % 10)
#define NB_PAIRS 100000
#define NB_TVF_SQL(f) "SELECT count(*), sum(i.qty * p.w) FROM " f "(100000) AS p JOIN items AS i ON i.id = p.k"
int nb_pairs_register(sqlite3 *db);

/* in_list: 20,000 queries, each with a list of 100 ids. */
#define NB_IN_LIST_QUERIES 20000
#define NB_IN_LIST_IDS 100
#define NB_IN_LIST_ID(q, j) (((((q) * NB_IN_LIST_IDS + (j)) * 7919) % 100000) + 1)
#define NB_IN_LIST_SQL(list) "SELECT count(*), coalesce(sum(qty), 0) FROM items WHERE id IN " list
/* The loop over queries: sqlite3_carray_bind_v2 of the ids (SQLITE_STATIC), step, reset, on
 * `s` prepared from NB_IN_LIST_SQL("carray(?)"); *checksum sums each query's two numbers. */
int nb_in_list(sqlite3_stmt *s, int64_t queries, int64_t *count, int64_t *checksum);

#endif
