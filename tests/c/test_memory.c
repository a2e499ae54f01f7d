/* Memory stays bounded: a million open/prepare/fetch/finalize/close cycles keep RSS flat, and
 * streaming 10,000,000 rows keeps RSS within a few MiB of the batch bound. Run on the static
 * build only (it is a long run, not a sanitizer target). */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

/* Resident set size of this process, in bytes. */
static long rss_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

static bool one_cycle(void) {
  sqlbatch_conn *c = NULL;
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  const char *sql = "SELECT 1, 'two', x'03', 4.5, NULL";
  CHECK_RC(c, sqlbatch_conn_open(":memory:", 8, 0, &c), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_prepare(c, sql, strlen(sql), 0, &s, NULL), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 16, 4096, &b), SQLBATCH_DONE);
  CHECK(b.n_rows == 1 && b.n_cols == 5);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

static bool test_a_million_cycles_keep_rss_flat(void) {
  const long warmup = 20000, total = 1000000;
  long before = 0;
  for (long i = 0; i < total; i++) {
    if (!one_cycle()) return false;
    if (i == warmup) before = rss_bytes();
  }
  long after = rss_bytes();
  printf("     rss after %ld cycles: %.1f MiB, after %ld: %.1f MiB\n", warmup, before / 1048576.0, total,
         after / 1048576.0);
  CHECK(before > 0 && after > 0);
  CHECK(after - before < 1024 * 1024);
  return true;
}

static bool test_streaming_ten_million_rows_stays_near_the_batch_bound(void) {
  const size_t bound = 256 * 1024;
  sqlbatch_conn *c = open_memory();
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  int32_t rc;
  int64_t rows = 0, sum = 0;
  long start = rss_bytes(), peak = start;
  CHECK_RC(c,
           prepare(c,
                   "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 10000000) "
                   "SELECT i, printf('row number %d', i), zeroblob(i % 32) FROM k",
                   &s),
           SQLBATCH_OK);
  do {
    rc = sqlbatch_stmt_fetch(s, SIZE_MAX, bound, &b);
    CHECK(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE);
    for (size_t r = 0; r < b.n_rows; r++) sum += sqlbatch_value_int64(sqlbatch_batch_cell(&b, r, 0));
    rows += (int64_t)b.n_rows;
    if ((rows & 0xffff) < b.n_rows) {
      long now = rss_bytes();
      if (now > peak) peak = now;
    }
  } while (rc == SQLBATCH_ROW);
  printf("     %lld rows; rss at start %.1f MiB, peak %.1f MiB\n", (long long)rows, start / 1048576.0,
         peak / 1048576.0);
  CHECK(rows == 10000000);
  CHECK(sum == (int64_t)10000000 * 10000001 / 2);
  CHECK(peak - start < 4 * 1024 * 1024);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  return true;
}

int main(void) {
  RUN(test_a_million_cycles_keep_rss_flat);
  RUN(test_streaming_ten_million_rows_stays_near_the_batch_bound);
  return finish();
}
