/*
 * native_vtab.c: the native C baseline of the virtual-table workloads (benches/README.md):
 * modules written against SQLite's own sqlite3_module, the way a C programmer writes one,
 * with one xColumn call per value and one xNext/xEof per row; and in_list's loop over
 * sqlite3_carray_bind_v2. Compiled into c-bench only, against the bundled sqlite3.h.
 */
#include "sqlite3.h"

#include <stdlib.h>
#include <string.h>

#include "native_vtab.h"

/* ---- the data of vtab_scan: built before the clock starts ---- */

nb_vdata *nb_vdata_make(int64_t n) {
  nb_vdata *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->n = n;
  d->text = malloc((size_t)n * 8);
  d->at = malloc((size_t)n * sizeof *d->at);
  d->len = malloc((size_t)n * sizeof *d->len);
  if (!d->text || !d->at || !d->len) {
    nb_vdata_free(d);
    return NULL;
  }
  size_t used = 0;
  for (int64_t i = 0; i < n; i++) {
    /* c: "v" and i % 1000 in decimal: 2 to 4 bytes. */
    char buf[8];
    int k = 0;
    buf[k++] = 'v';
    int64_t x = i % 1000;
    char digits[4];
    int m = 0;
    do {
      digits[m++] = (char)('0' + x % 10);
      x /= 10;
    } while (x);
    while (m) buf[k++] = digits[--m];
    memcpy(d->text + used, buf, (size_t)k);
    d->at[i] = (uint32_t)used;
    d->len[i] = (uint32_t)k;
    used += (size_t)k;
  }
  return d;
}

void nb_vdata_free(nb_vdata *d) {
  if (!d) return;
  free(d->text);
  free(d->at);
  free(d->len);
  free(d);
}

/* ---- vtab_scan's module: nvtab(a INTEGER, b REAL, c TEXT, d INTEGER) over nb_vdata ---- */

typedef struct {
  sqlite3_vtab base;
  const nb_vdata *data;
} scan_table;

typedef struct {
  sqlite3_vtab_cursor base;
  int64_t row;
} scan_cursor;

static int scan_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(a INTEGER, b REAL, c TEXT, d INTEGER)");
  if (rc != SQLITE_OK) return rc;
  scan_table *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->data = aux;
  *out = &t->base;
  return SQLITE_OK;
}

static int scan_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int scan_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  info->estimatedCost = 1e6;
  return SQLITE_OK;
}

static int scan_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  scan_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int scan_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int scan_filter(sqlite3_vtab_cursor *c, int idx, const char *s, int argc, sqlite3_value **argv) {
  (void)idx, (void)s, (void)argc, (void)argv;
  ((scan_cursor *)c)->row = 0;
  return SQLITE_OK;
}

static int scan_next(sqlite3_vtab_cursor *c) {
  ((scan_cursor *)c)->row++;
  return SQLITE_OK;
}

static int scan_eof(sqlite3_vtab_cursor *c) {
  const scan_table *t = (const scan_table *)c->pVtab;
  return ((scan_cursor *)c)->row >= t->data->n;
}

static int scan_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int i) {
  const nb_vdata *d = ((const scan_table *)c->pVtab)->data;
  int64_t r = ((scan_cursor *)c)->row;
  switch (i) {
    case 0: sqlite3_result_int64(ctx, r); break;
    case 1: sqlite3_result_double(ctx, (double)r * 0.5); break;
    case 2: sqlite3_result_text(ctx, d->text + d->at[r], (int)d->len[r], SQLITE_STATIC); break;
    default:
      if (r % 7 == 0) sqlite3_result_null(ctx);
      else sqlite3_result_int64(ctx, r % 100);
  }
  return SQLITE_OK;
}

static int scan_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *out) {
  *out = ((scan_cursor *)c)->row + 1;
  return SQLITE_OK;
}

static const sqlite3_module scan_module = {
    .iVersion = 0,
    .xCreate = NULL,
    .xConnect = scan_connect,
    .xBestIndex = scan_best_index,
    .xDisconnect = scan_disconnect,
    .xDestroy = scan_disconnect,
    .xOpen = scan_open,
    .xClose = scan_close,
    .xFilter = scan_filter,
    .xNext = scan_next,
    .xEof = scan_eof,
    .xColumn = scan_column,
    .xRowid = scan_rowid,
};

int nb_vtab_register(sqlite3 *db, const nb_vdata *data) {
  return sqlite3_create_module(db, "nvtab", &scan_module, (void *)data);
}

/* ---- tvf_join's table-valued function: pairs(n) of (k INTEGER, w INTEGER, n HIDDEN) ---- */

typedef struct {
  sqlite3_vtab_cursor base;
  int64_t row, n;
} pairs_cursor;

static int pairs_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(k INTEGER, w INTEGER, n HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  *out = t;
  return SQLITE_OK;
}

static int pairs_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn == 2 && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!c->usable) return SQLITE_CONSTRAINT;
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 1e5;
      return SQLITE_OK;
    }
  }
  info->estimatedCost = 1e12;
  return SQLITE_OK;
}

static int pairs_filter(sqlite3_vtab_cursor *c, int idx, const char *s, int argc, sqlite3_value **argv) {
  (void)s;
  pairs_cursor *p = (pairs_cursor *)c;
  p->row = 0;
  p->n = idx == 1 && argc > 0 ? sqlite3_value_int64(argv[0]) : 0;
  return SQLITE_OK;
}

static int pairs_eof(sqlite3_vtab_cursor *c) {
  pairs_cursor *p = (pairs_cursor *)c;
  return p->row >= p->n;
}

static int pairs_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  pairs_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int pairs_next(sqlite3_vtab_cursor *c) {
  ((pairs_cursor *)c)->row++;
  return SQLITE_OK;
}

static int pairs_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int i) {
  pairs_cursor *p = (pairs_cursor *)c;
  switch (i) {
    case 0: sqlite3_result_int64(ctx, NB_PAIR_KEY(p->row)); break;
    case 1: sqlite3_result_int64(ctx, NB_PAIR_WEIGHT(p->row)); break;
    default: sqlite3_result_int64(ctx, p->n);
  }
  return SQLITE_OK;
}

static int pairs_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *out) {
  *out = ((pairs_cursor *)c)->row + 1;
  return SQLITE_OK;
}

static const sqlite3_module pairs_module = {
    .iVersion = 0,
    .xCreate = NULL,
    .xConnect = pairs_connect,
    .xBestIndex = pairs_best_index,
    .xDisconnect = scan_disconnect,
    .xDestroy = scan_disconnect,
    .xOpen = pairs_open,
    .xClose = scan_close,
    .xFilter = pairs_filter,
    .xNext = pairs_next,
    .xEof = pairs_eof,
    .xColumn = pairs_column,
    .xRowid = pairs_rowid,
};

int nb_pairs_register(sqlite3 *db) { return sqlite3_create_module(db, "pairs", &pairs_module, NULL); }

/* ---- in_list: per query, the 100 ids bound with sqlite3_carray_bind_v2 ---- */

int nb_in_list(sqlite3_stmt *s, int64_t queries, int64_t *count, int64_t *checksum) {
  sqlite3_int64 ids[NB_IN_LIST_IDS];
  uint64_t sum = 0;
  for (int64_t q = 0; q < queries; q++) {
    for (int j = 0; j < NB_IN_LIST_IDS; j++) ids[j] = NB_IN_LIST_ID(q, j);
    int rc = sqlite3_carray_bind_v2(s, 1, ids, NB_IN_LIST_IDS, SQLITE_CARRAY_INT64, SQLITE_STATIC, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) return rc;
    sum += (uint64_t)sqlite3_column_int64(s, 0) + (uint64_t)sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
  }
  *count = queries;
  *checksum = (int64_t)sum;
  return SQLITE_OK;
}
