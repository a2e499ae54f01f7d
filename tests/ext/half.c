/* A loadable SQLite extension for the tests: half(x) = x / 2.0. Built as a shared library by
 * tests/extensions.rs against the bundled sqlite3ext.h, loaded by path. */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

static void half(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_double(ctx, sqlite3_value_double(argv[0]) / 2.0);
}

int sqlite3_half_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "half", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, half, 0, 0);
}

/* An entry point that fails, with a message. */
int sqlite3_half_fail(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)db;
  SQLITE_EXTENSION_INIT2(api);
  *err = sqlite3_mprintf("half: refusing on purpose");
  return SQLITE_ERROR;
}
