/*
 * sync.c: keeping two databases in step with sessions and changesets, and an audit log with
 * the preupdate hook.
 *
 *   1. a session records what a "laptop" database changes
 *   2. its changeset is applied to a "server" database, where one row was changed meanwhile:
 *      a conflict callback sees the change and the server's row, and keeps the server's
 *   3. the inverse of the changeset undoes it on the laptop
 *   4. a preupdate hook on a third connection logs every row before it changes, old and new
 *      values in one call per change
 *
 * Build against an installed sqlbatch:  cc sync.c $(pkg-config --cflags --libs sqlbatch)
 * It exits 0 only if every step did what the comments say.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlbatch.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    int32_t rc_ = (call);                                                            \
    if (rc_ != SQLBATCH_OK) {                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, sqlbatch_code_name(rc_)); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

static sqlbatch_conn *open_memory(void) {
  sqlbatch_conn *c = NULL;
  if (sqlbatch_conn_open(":memory:", 8, 0, &c) != SQLBATCH_OK) {
    sqlbatch_conn_close(c);
    return NULL;
  }
  return c;
}

static int32_t exec(sqlbatch_conn *c, const char *sql) {
  return sqlbatch_conn_exec(c, sql, strlen(sql), NULL, NULL);
}

/* The integer in the first column of the first row of `sql`, or -1. */
static int64_t scalar(sqlbatch_conn *c, const char *sql) {
  sqlbatch_stmt *s = NULL;
  sqlbatch_batch b;
  int64_t v = -1;
  int32_t rc = sqlbatch_stmt_prepare(c, sql, strlen(sql), 0, &s, NULL);
  if (rc == SQLBATCH_OK) rc = sqlbatch_stmt_fetch(s, 1, 0, &b); /* ROW, or DONE if that was all */
  if ((rc == SQLBATCH_ROW || rc == SQLBATCH_DONE) && b.n_rows == 1 && b.cells[0].kind == SQLBATCH_INTEGER)
    v = (int64_t)b.cells[0].bits;
  sqlbatch_stmt_finalize(s);
  return v;
}

/* Prints one row of cells (bytes at `data + bits`). */
static void print_row(const char *label, const sqlbatch_value *v, size_t n, const uint8_t *data) {
  printf("    %s (", label);
  for (size_t i = 0; i < n; i++) {
    if (i) printf(", ");
    switch (v[i].kind) {
      case SQLBATCH_INTEGER: printf("%lld", (long long)(int64_t)v[i].bits); break;
      case SQLBATCH_TEXT: printf("'%.*s'", (int)v[i].len, (const char *)data + v[i].bits); break;
      case SQLBATCH_NULL: printf("NULL"); break;
      case SQLBATCH_UNDEFINED: printf("-"); break; /* a column the change does not carry */
      default: printf("?"); break;
    }
  }
  printf(")\n");
}

/* Step 2's conflict callback: report, then keep the server's row. */
static int32_t on_conflict(void *user, const sqlbatch_conflict *c) {
  int *conflicts = user;
  ++*conflicts;
  printf("  conflict %d on %s (op %d):\n", c->kind, c->table.ptr, c->op);
  if (c->old_values) print_row("expected", c->old_values, c->n_cols, c->data);
  if (c->new_values) print_row("change  ", c->new_values, c->n_cols, c->data);
  if (c->conflict_values) print_row("server  ", c->conflict_values, c->n_cols, c->data);
  return SQLBATCH_CHANGESET_OMIT;
}

/* Step 4's preupdate hook: one line per change, with the rows before and after. */
static void audit(void *user, const sqlbatch_preupdate *p) {
  int *events = user;
  ++*events;
  const char *op = p->op == 18 ? "INSERT" : p->op == 9 ? "DELETE" : "UPDATE";
  printf("  %s %s.%s rowid %lld -> %lld%s\n", op, p->schema.ptr, p->table.ptr, (long long)p->old_rowid,
         (long long)p->new_rowid, p->depth ? " (by a trigger)" : "");
  if (p->old_values) print_row("old", p->old_values, p->n_cols, p->data);
  if (p->new_values) print_row("new", p->new_values, p->n_cols, p->data);
}

static int sync_example(sqlbatch_conn *laptop, sqlbatch_conn *server) {
  const char *schema = "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT, tag TEXT);"
                       "INSERT INTO notes VALUES (1, 'buy milk', NULL), (2, 'call bob', 'work');";
  CHECK(exec(laptop, schema));
  CHECK(exec(server, schema));

  /* 1. Record everything the laptop changes, in every table. */
  sqlbatch_session *session = NULL;
  CHECK(sqlbatch_session_create(laptop, NULL, 0, &session));
  CHECK(sqlbatch_session_attach(session, NULL, 0));
  CHECK(exec(laptop, "UPDATE notes SET body = 'buy oat milk' WHERE id = 1;"
                     "UPDATE notes SET tag = 'urgent' WHERE id = 2;"
                     "INSERT INTO notes VALUES (3, 'book flight', 'travel');"));
  uint8_t *changes = NULL;
  size_t n_changes = 0;
  CHECK(sqlbatch_session_changeset(session, &changes, &n_changes));
  printf("1. the laptop's changeset: %zu bytes\n", n_changes);

  /* 2. Meanwhile the server changed note 2: applying reports that conflict, keeps the
   * server's row, and applies the rest. */
  CHECK(exec(server, "UPDATE notes SET tag = 'home' WHERE id = 2"));
  int conflicts = 0;
  printf("2. applied to the server:\n");
  CHECK(sqlbatch_conn_apply_changeset(server, changes, n_changes, 0, SQLBATCH_CHANGESET_ABORT, on_conflict,
                                      NULL, &conflicts));
  if (conflicts != 1 || scalar(server, "SELECT count(*) FROM notes") != 3 ||
      scalar(server, "SELECT count(*) FROM notes WHERE id = 2 AND tag = 'home'") != 1 ||
      scalar(server, "SELECT count(*) FROM notes WHERE body = 'buy oat milk'") != 1) {
    fprintf(stderr, "the server did not end up as expected\n");
    return 1;
  }

  /* 3. The inverse changeset undoes the laptop's changes. */
  uint8_t *undo = NULL;
  size_t n_undo = 0;
  CHECK(sqlbatch_changeset_invert(changes, n_changes, &undo, &n_undo));
  CHECK(sqlbatch_session_delete(session)); /* (not recording the undo) */
  CHECK(sqlbatch_conn_apply_changeset(laptop, undo, n_undo, 0, SQLBATCH_CHANGESET_ABORT, NULL, NULL, NULL));
  printf("3. undone on the laptop: %lld notes, note 1 is '%s'\n", (long long)scalar(laptop, "SELECT count(*) FROM notes"),
         scalar(laptop, "SELECT body = 'buy milk' FROM notes WHERE id = 1") == 1 ? "buy milk" : "?");
  sqlbatch_free(undo);
  sqlbatch_free(changes);
  if (scalar(laptop, "SELECT count(*) FROM notes") != 2) return 1;
  return 0;
}

static int audit_example(sqlbatch_conn *c) {
  int events = 0;
  CHECK(exec(c, "CREATE TABLE stock(item TEXT PRIMARY KEY, qty INTEGER) WITHOUT ROWID;"
                "CREATE TABLE history(item TEXT, qty INTEGER);"
                "CREATE TRIGGER keep AFTER UPDATE ON stock BEGIN INSERT INTO history VALUES (old.item, old.qty); END;"));
  CHECK(sqlbatch_conn_preupdate_hook(c, SQLBATCH_PREUPDATE_OLD | SQLBATCH_PREUPDATE_NEW, audit, &events, NULL));
  printf("4. the audit log:\n");
  CHECK(exec(c, "INSERT INTO stock VALUES ('apples', 10); UPDATE stock SET qty = qty - 3; DELETE FROM stock"));
  CHECK(sqlbatch_conn_preupdate_hook(c, 0, NULL, NULL, NULL));
  /* insert, update, the trigger's insert into history, delete */
  return events == 4 ? 0 : 1;
}

int main(void) {
  sqlbatch_conn *laptop = open_memory(), *server = open_memory(), *shop = open_memory();
  int failed = !laptop || !server || !shop || sync_example(laptop, server) || audit_example(shop);
  sqlbatch_conn_close(laptop);
  sqlbatch_conn_close(server);
  sqlbatch_conn_close(shop);
  if (failed) fprintf(stderr, "sync: FAILED\n");
  return failed;
}
