/* C helpers of the Haskell binding: the calls that run SQL, wrapped so that an
 * asynchronous exception thrown to the calling Haskell thread interrupts them.
 * See hs_sqlbatch.c for how. Each wrapper takes the token of hs_sqlbatch_arm, called
 * (unsafe, with the calling thread's TSO) just before it on the same OS thread; 0 arms
 * nothing. */
#ifndef HS_SQLBATCH_H
#define HS_SQLBATCH_H

#include "sqlbatch.h"

int hs_sqlbatch_ensure_handler(void);

uint64_t hs_sqlbatch_arm(void *tso);

int32_t hs_sqlbatch_fetch_into(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                               size_t max_rows, uint8_t *buf, size_t buf_len,
                               sqlbatch_batch *out_batch);

int32_t hs_sqlbatch_rewind_fetch_into(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                      size_t max_rows, uint8_t *buf, size_t buf_len,
                                      sqlbatch_batch *out_batch);

int32_t hs_sqlbatch_rewind_step_quick(sqlbatch_stmt *stmt, sqlbatch_batch *out_batch);

int32_t hs_sqlbatch_fetch(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                          size_t max_rows, size_t max_bytes, sqlbatch_batch *out_batch);

int32_t hs_sqlbatch_exec(uint64_t token, sqlbatch_conn *conn, const char *sql, size_t sql_len,
                         const sqlbatch_params *params, sqlbatch_exec_result *out_result);

int32_t hs_sqlbatch_execute_many(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                 const sqlbatch_params *rows, size_t n_rows,
                                 sqlbatch_write_result *out_result);

int32_t hs_sqlbatch_execute_many_start(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                       const sqlbatch_params *rows, size_t n_rows);

int32_t hs_sqlbatch_execute_many_wait(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                      sqlbatch_write_result *out_result);

int32_t hs_sqlbatch_settle(uint64_t token, sqlbatch_conn *conn);

ptrdiff_t hs_sqlbatch_utf8_to_utf16(uint16_t *dst, size_t dst_off, const uint8_t *src, size_t n);

size_t hs_sqlbatch_utf16_to_utf8(uint8_t *dst, const uint16_t *src, size_t src_off, size_t n);

#endif
