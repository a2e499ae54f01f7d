/*
 * link_beside_rust.c: libsqlbatch.a and another Rust static library in one program.
 *
 * Each carries a Rust std. Built by the same toolchain, an unprocessed libsqlbatch.a
 * happened to link (the linker took std's members from whichever archive came first, and
 * both libraries shared them); built by another toolchain (make link-beside-rust uses
 * nightly when rustup has it), the link failed with "multiple definition of
 * `rust_eh_personality'". With only sqlbatch_* global in libsqlbatch.a, each library keeps
 * its own std either way. Both libraries unwind (the other one catches a panic), allocate
 * and spawn threads; sqlbatch reports an error and runs a query.
 */
#include <stdint.h>
#include <stdio.h>

#include <sqlbatch.h>

int other_rust_check(void);

int main(void) {
  sqlbatch_conn *conn = NULL;
  sqlbatch_stmt *stmt = NULL;
  sqlbatch_batch batch;
  int ok = other_rust_check() == 42;
  if (!ok) fprintf(stderr, "the other Rust library failed\n");
  ok = ok && sqlbatch_conn_open(":memory:", 8, 0, &conn) == SQLBATCH_OK;
  ok = ok && sqlbatch_stmt_prepare(conn, "SELECT nope", 11, 0, &stmt, NULL) != SQLBATCH_OK;
  ok = ok && sqlbatch_stmt_prepare(conn, "SELECT 6 * 7", 12, 0, &stmt, NULL) == SQLBATCH_OK;
  ok = ok && sqlbatch_stmt_fetch(stmt, 1, SIZE_MAX, &batch) == SQLBATCH_DONE && batch.n_rows == 1 &&
       sqlbatch_value_int64(sqlbatch_batch_cell(&batch, 0, 0)) == 42;
  sqlbatch_stmt_finalize(stmt);
  sqlbatch_conn_close(conn);
  ok = ok && other_rust_check() == 42;
  if (!ok) {
    fprintf(stderr, "link_beside_rust: failed\n");
    return 1;
  }
  printf("link_beside_rust: sqlbatch (SQLite %s) and another Rust library in one program: ok\n",
         sqlbatch_sqlite_version());
  return 0;
}
