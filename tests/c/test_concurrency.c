/* Concurrency from C: pthreads, each with its own connection, writing and reading one WAL
 * database. Writers commit transactions of BATCH rows with sqlbatch_stmt_execute_many and
 * with parameterized scripts; readers fetch counts and must never see part of a transaction.
 * The only error allowed is SQLITE_BUSY (no busy timeout here, so the callers retry); at the
 * end no row is lost or doubled. Run static, under valgrind and under ASan + UBSan. */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"

#define SQLITE_BUSY 5
#define THREADS 6
#define TXNS 30
#define BATCH 25

static char db_path[64];

struct worker {
  int id;
  bool writer;
  bool ok;
  long busy;
};

static bool is_busy(int32_t rc) { return (rc & 0xff) == SQLITE_BUSY; }

/* Runs a script with no parameters, retrying while it reports SQLITE_BUSY. */
static int32_t exec_retry(sqlbatch_conn *c, const char *sql, long *busy) {
  int32_t rc;
  while (is_busy(rc = exec(c, sql))) {
    (*busy)++;
    sched_yield();
  }
  return rc;
}

static bool write_txn(sqlbatch_conn *c, sqlbatch_stmt *ins, int id, int txn, long *busy) {
  sqlbatch_value v[BATCH * 2];
  sqlbatch_write_result w;
  sqlbatch_exec_result r;
  char script[BATCH * 64];
  size_t len = 0;
  const sqlbatch_params p = params_of(v, BATCH * 2, NULL, 0);
  memset(v, 0, sizeof v);
  CHECK_RC(c, exec_retry(c, "BEGIN IMMEDIATE", busy), SQLBATCH_OK);
  for (int i = 0; i < BATCH; i++) {
    v[2 * i].kind = SQLBATCH_INTEGER;
    v[2 * i].bits = (uint64_t)id;
    v[2 * i + 1].kind = SQLBATCH_INTEGER;
    v[2 * i + 1].bits = (uint64_t)(txn * BATCH + i);
  }
  if (txn % 2 == 0) {
    CHECK_RC(c, sqlbatch_stmt_execute_many(ins, &p, BATCH, &w), SQLBATCH_OK);
    CHECK(w.rows == BATCH && w.changes == BATCH);
  } else {
    for (int i = 0; i < BATCH; i++) len += (size_t)sprintf(script + len, "INSERT INTO t(thread, seq) VALUES (?, ?);");
    CHECK_RC(c, sqlbatch_conn_exec(c, script, len, &p, &r), SQLBATCH_OK);
    CHECK(r.statements == BATCH && r.params_used == BATCH * 2);
  }
  CHECK_RC(c, exec_retry(c, "COMMIT", busy), SQLBATCH_OK);
  return true;
}

static bool read_count(sqlbatch_conn *c, sqlbatch_stmt *count, int64_t *last, long *busy) {
  sqlbatch_batch b;
  int32_t rc;
  int64_t n;
  for (;;) {
    sqlbatch_stmt_reset(count);
    rc = sqlbatch_stmt_fetch(count, 1, SIZE_MAX, &b);
    if (!is_busy(rc)) break;
    (*busy)++;
    sched_yield();
  }
  CHECK_RC(c, rc, SQLBATCH_DONE);
  n = sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0));
  CHECK(n % BATCH == 0); /* never part of a transaction */
  CHECK(n >= *last);     /* never back in time */
  *last = n;
  return true;
}

static bool work(struct worker *me) {
  sqlbatch_conn *c = NULL;
  sqlbatch_stmt *ins = NULL, *count = NULL;
  int64_t last = 0;
  CHECK_RC(c, sqlbatch_conn_open(db_path, strlen(db_path), 0, &c), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "INSERT INTO t(thread, seq) VALUES (?, ?)", &ins), SQLBATCH_OK);
  CHECK_RC(c, prepare(c, "SELECT count(*) FROM t", &count), SQLBATCH_OK);
  for (int txn = 0; txn < TXNS; txn++) {
    if (me->writer && !write_txn(c, ins, me->id, txn, &me->busy)) return false;
    for (int k = 0; k < (me->writer ? 1 : 20); k++)
      if (!read_count(c, count, &last, &me->busy)) return false;
  }
  sqlbatch_stmt_finalize(ins);
  sqlbatch_stmt_finalize(count);
  sqlbatch_conn_close(c);
  return true;
}

static void *run_worker(void *arg) {
  struct worker *me = arg;
  me->ok = work(me);
  return NULL;
}

static bool test_threads_write_and_read_one_wal_database(void) {
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  sqlbatch_conn *c = NULL;
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  long busy = 0;
  int writers = 0;
  int fd;
  strcpy(db_path, "/tmp/sqlbatch-conc-XXXXXX");
  fd = mkstemp(db_path);
  CHECK(fd >= 0);
  close(fd);
  CHECK_RC(c, sqlbatch_conn_open(db_path, strlen(db_path), 0, &c), SQLBATCH_OK);
  CHECK_RC(c, exec(c, "PRAGMA journal_mode = WAL; CREATE TABLE t(thread INTEGER, seq INTEGER, PRIMARY KEY (thread, seq))"),
           SQLBATCH_OK);
  for (int i = 0; i < THREADS; i++) {
    workers[i].id = i;
    workers[i].writer = i % 3 != 2;
    workers[i].ok = false;
    workers[i].busy = 0;
    writers += workers[i].writer;
    CHECK(pthread_create(&threads[i], NULL, run_worker, &workers[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    busy += workers[i].busy;
  }
  for (int i = 0; i < THREADS; i++) CHECK(workers[i].ok);
  CHECK_RC(c, prepare(c, "SELECT count(*), count(DISTINCT thread), sum(seq) FROM t", &s), SQLBATCH_OK);
  CHECK_RC(c, sqlbatch_stmt_fetch(s, 1, SIZE_MAX, &b), SQLBATCH_DONE);
  CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 0)) == (int64_t)writers * TXNS * BATCH);
  CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 1)) == writers);
  CHECK(sqlbatch_value_int64(sqlbatch_batch_cell(&b, 0, 2)) == (int64_t)writers * (TXNS * BATCH) * (TXNS * BATCH - 1) / 2);
  printf("     %d rows from %d writer threads beside %d readers; %ld busy results retried\n", writers * TXNS * BATCH,
         writers, THREADS - writers, busy);
  sqlbatch_stmt_finalize(s);
  sqlbatch_conn_close(c);
  unlink(db_path);
  {
    char side[96];
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
  }
  return true;
}

int main(void) {
  RUN(test_threads_write_and_read_one_wal_database);
  return finish();
}
