/*
 * encrypted.c: an encrypted database (the encrypted build of sqlbatch, make lib ENCRYPTION=1).
 *
 *   1. a new database file is encrypted with a passphrase, and a row written to it
 *   2. the file holds none of that row's text, and a wrong key does not open it (SQLITE_NOTADB)
 *   3. the key is changed in place, and a plain copy exported beside it
 *
 * Against the default build, which has no encryption, it says so (SQLBATCH_E_UNSUPPORTED)
 * and exits 0 after checking that nothing was created.
 *
 * Build:  cc encrypted.c $(pkg-config --cflags --libs sqlbatch)
 * Run:    ./a.out DIRECTORY   (the files are written there)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlbatch.h>

#define CHECK(conn, call)                                                              \
  do {                                                                                 \
    int32_t rc_ = (call);                                                              \
    if (rc_ != SQLBATCH_OK) {                                                          \
      sqlbatch_error e_;                                                               \
      sqlbatch_conn_last_error((conn), &e_);                                           \
      fprintf(stderr, "%s:%d: %s: %s: %.*s\n", __FILE__, __LINE__, #call,              \
              sqlbatch_code_name(rc_), (int)e_.message_len, e_.message);               \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

static const char secret[] = "correct horse battery staple";
static const char marker[] = "the treasure is under the oak";

/* Whether the file at path holds text. */
static int file_contains(const char *path, const char *text) {
  static char buf[1 << 16];
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  for (size_t i = 0; i + strlen(text) <= n; i++)
    if (memcmp(buf + i, text, strlen(text)) == 0) return 1;
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  char path[4096], copy[4096];
  snprintf(path, sizeof path, "%s/encrypted.db", dir);
  snprintf(copy, sizeof copy, "%s/decrypted.db", dir);
  remove(path);
  remove(copy);

  /* 1. Open (and create) it with a key; NULL settings: SQLCipher 4's defaults. */
  sqlbatch_conn *conn = NULL;
  int32_t rc = sqlbatch_conn_open_encrypted(path, strlen(path), 0, secret, strlen(secret), NULL, &conn);
  if (rc == SQLBATCH_E_UNSUPPORTED) {
    /* The handle (never open) says why; no file was created. */
    struct stat st;
    sqlbatch_error err;
    sqlbatch_conn_last_error(conn, &err);
    printf("%.*s (sqlbatch_cipher_version: %s)\n", (int)err.message_len, err.message,
           sqlbatch_cipher_version() == NULL ? "NULL" : sqlbatch_cipher_version());
    sqlbatch_conn_close(conn);
    return stat(path, &st) != 0 ? 0 : 1;
  }
  CHECK(conn, rc);
  printf("SQLCipher %s\n", sqlbatch_cipher_version());
  char sql[256];
  snprintf(sql, sizeof sql, "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('%s')", marker);
  CHECK(conn, sqlbatch_conn_exec(conn, sql, strlen(sql), NULL, NULL));
  sqlbatch_conn_close(conn);

  /* 2. No plaintext in the file; a wrong key fails at open, with a handle that says why. */
  if (file_contains(path, marker) != 0) {
    fprintf(stderr, "the file holds the plaintext\n");
    return 1;
  }
  rc = sqlbatch_conn_open_encrypted(path, strlen(path), 0, "guess", 5, NULL, &conn);
  sqlbatch_error err;
  sqlbatch_conn_last_error(conn, &err);
  printf("wrong key: %s: %.*s\n", sqlbatch_code_name(rc), (int)err.message_len, err.message);
  sqlbatch_conn_close(conn);
  if (strcmp(sqlbatch_code_name(rc), "SQLITE_NOTADB") != 0) return 1;

  /* 3. A new key in place, then a plain copy (an empty key). */
  CHECK(conn, sqlbatch_conn_open_encrypted(path, strlen(path), 0, secret, strlen(secret), NULL, &conn));
  const char *next = "x'000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'"; /* a raw key */
  CHECK(conn, sqlbatch_conn_rekey(conn, NULL, 0, next, strlen(next)));
  CHECK(conn, sqlbatch_conn_export(conn, NULL, 0, copy, strlen(copy), NULL, 0, NULL));
  sqlbatch_conn_close(conn);
  if (file_contains(copy, marker) != 1 || file_contains(path, marker) != 0) {
    fprintf(stderr, "the plain copy should hold the text, the encrypted file not\n");
    return 1;
  }
  CHECK(conn, sqlbatch_conn_open_encrypted(path, strlen(path), SQLBATCH_OPEN_READONLY, next, strlen(next), NULL, &conn));
  sqlbatch_conn_close(conn);
  printf("rekeyed, and exported a plain copy to %s\n", copy);
  return 0;
}
