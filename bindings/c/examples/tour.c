/*
 * tour.c: a short tour of sqlbatch from C.
 *
 *   1. open a database
 *   2. run a whole multi-statement script in one call
 *   3. bulk-insert many rows in one call
 *   4. query with batched fetch, reading rows with plain memory loads
 *   5. handle errors: the status code, and the details kept on the connection
 *
 * Build against an installed sqlbatch:  cc tour.c $(pkg-config --cflags --libs sqlbatch)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlbatch.h>

/* Prints the details of the last error on `conn`. */
static void print_error(sqlbatch_conn *conn, int32_t rc, const char *what) {
  sqlbatch_error e;
  const char *name = sqlbatch_code_name(rc); /* "SQLITE_CONSTRAINT_NOTNULL"; NULL if unknown */
  fprintf(stderr, "%s failed: %s (%s, %d)\n", what, sqlbatch_code_str(rc), name ? name : "?", (int)rc);
  if (conn && sqlbatch_conn_last_error(conn, &e) == SQLBATCH_OK) {
    fprintf(stderr, "  message: %s\n", e.message);
    if (e.statement_index >= 0)
      fprintf(stderr, "  statement %lld, starting at byte %lld\n", (long long)e.statement_index,
              (long long)e.statement_offset);
    if (e.token_offset >= 0) fprintf(stderr, "  near byte %lld\n", (long long)e.token_offset);
  }
}

int main(void) {
  sqlbatch_conn *conn = NULL;
  sqlbatch_stmt *insert = NULL, *query = NULL;
  int32_t rc;
  int status = 1;

  /* 1. Open. On failure the handle is still set (it carries the error) and must be closed. */
  rc = sqlbatch_conn_open(":memory:", strlen(":memory:"), SQLBATCH_OPEN_READWRITE | SQLBATCH_OPEN_CREATE, &conn);
  if (rc != SQLBATCH_OK) {
    print_error(conn, rc, "open");
    goto cleanup;
  }
  printf("sqlbatch %s on SQLite %s\n", sqlbatch_version(), sqlbatch_sqlite_version());

  /* 2. A whole script in one call. */
  const char *schema =
      "CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT NOT NULL, population INTEGER, area REAL);\n"
      "CREATE INDEX city_name ON city(name);\n"
      "-- a comment after the last statement is fine\n";
  sqlbatch_exec_result ran;
  rc = sqlbatch_conn_exec(conn, schema, strlen(schema), NULL, &ran); /* NULL: no parameters */
  if (rc != SQLBATCH_OK) {
    print_error(conn, rc, "schema");
    goto cleanup;
  }
  printf("schema: %llu statements\n", (unsigned long long)ran.statements);

  /* 3. Bulk insert: one row-major array of tagged values. TEXT bytes are given as offsets
   *    into `names` (the parameter set's `data`), so the whole batch is two flat arrays.
   *    (With `.flags = SQLBATCH_PARAMS_ADDRESSES` and no `data`, `bits` would be addresses.) */
  const char names[] = "ZürichGenevaBaselLausanneBern";
  const struct { uint32_t at, len; int64_t pop; double area; } rows[] = {
      {0, 7, 443037, 87.88}, {7, 6, 203856, 15.93}, {13, 5, 173863, 23.91},
      {18, 8, 140202, 41.37}, {26, 4, 134794, 51.62}};
  sqlbatch_value values[5 * 3];
  memset(values, 0, sizeof values);
  for (int i = 0; i < 5; i++) {
    values[i * 3].kind = SQLBATCH_TEXT;
    values[i * 3].bits = rows[i].at;
    values[i * 3].len = rows[i].len;
    values[i * 3 + 1].kind = SQLBATCH_INTEGER;
    values[i * 3 + 1].bits = (uint64_t)rows[i].pop;
    values[i * 3 + 2].kind = SQLBATCH_FLOAT;
    memcpy(&values[i * 3 + 2].bits, &rows[i].area, sizeof(double));
  }
  const sqlbatch_params params = {
      .values = values, .n_values = 5 * 3, .data = (const uint8_t *)names, .data_len = sizeof names - 1};
  const char *ins = "INSERT INTO city(name, population, area) VALUES (?, ?, ?)";
  sqlbatch_write_result wrote;
  if ((rc = sqlbatch_stmt_prepare(conn, ins, strlen(ins), 0, &insert, NULL)) != SQLBATCH_OK ||
      (rc = sqlbatch_stmt_execute_many(insert, &params, 5, &wrote)) != SQLBATCH_OK) {
    print_error(conn, rc, "bulk insert");
    goto cleanup;
  }
  printf("inserted %llu rows\n", (unsigned long long)wrote.rows);

  /* 3b. A statement run once (what a binding's execute(sql, values) is): one call prepares,
   *     binds (the bytes are not copied), runs and finalizes it. With SQLBATCH_PARAMS_SINGLE
   *     a second statement or a wrong number of values is refused before anything runs. */
  const char lugano[] = "Lugano";
  const double lugano_area = 75.98;
  sqlbatch_value one[3] = {{.kind = SQLBATCH_TEXT, .bits = 0, .len = 6},
                           {.kind = SQLBATCH_INTEGER, .bits = 62315},
                           {.kind = SQLBATCH_FLOAT}};
  memcpy(&one[2].bits, &lugano_area, sizeof lugano_area);
  const sqlbatch_params once = {.values = one, .n_values = 3, .data = (const uint8_t *)lugano,
                                .data_len = sizeof lugano - 1, .flags = SQLBATCH_PARAMS_SINGLE};
  if ((rc = sqlbatch_conn_exec(conn, ins, strlen(ins), &once, NULL)) != SQLBATCH_OK) {
    print_error(conn, rc, "insert one");
    goto cleanup;
  }

  /* 4. Query with batched fetch: each call steps up to 2 rows here (use hundreds in real
   *    code); the cells are read with plain loads, no call per row or column. */
  const char *sql = "SELECT name, population, population / area FROM city ORDER BY population DESC";
  if ((rc = sqlbatch_stmt_prepare(conn, sql, strlen(sql), 0, &query, NULL)) != SQLBATCH_OK) {
    print_error(conn, rc, "prepare");
    goto cleanup;
  }
  sqlbatch_batch batch;
  do {
    rc = sqlbatch_stmt_fetch(query, 2, 64 * 1024, &batch);
    if (rc != SQLBATCH_ROW && rc != SQLBATCH_DONE) {
      print_error(conn, rc, "fetch");
      goto cleanup;
    }
    for (size_t r = 0; r < batch.n_rows; r++) {
      const sqlbatch_value *name = sqlbatch_batch_cell(&batch, r, 0);
      printf("  %-10.*s %8lld people %8.0f per km2\n", (int)name->len,
             (const char *)sqlbatch_batch_bytes(&batch, name),
             (long long)sqlbatch_value_int64(sqlbatch_batch_cell(&batch, r, 1)),
             sqlbatch_value_double(sqlbatch_batch_cell(&batch, r, 2)));
    }
  } while (rc == SQLBATCH_ROW);

  /* 5. Errors: a failing statement in the middle of a script says which one and where; the
   *    statements before it have run. */
  const char *bad = "INSERT INTO city(name) VALUES ('Lugano');\nINSERT INTO city(name) VALUES (NULL);\n";
  rc = sqlbatch_conn_exec(conn, bad, strlen(bad), NULL, &ran);
  if (rc == SQLBATCH_OK) {
    fprintf(stderr, "expected a NOT NULL error\n");
    goto cleanup;
  }
  print_error(conn, rc, "the deliberately bad script");
  printf("before the error, %llu statement(s) ran\n", (unsigned long long)ran.statements);
  status = 0;

cleanup:
  sqlbatch_stmt_finalize(query);
  sqlbatch_stmt_finalize(insert);
  sqlbatch_conn_close(conn);
  return status;
}
