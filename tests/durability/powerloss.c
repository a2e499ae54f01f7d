/*
 * powerloss.c: an LD_PRELOAD shim for the power-loss half of the crash-durability test. It
 * stands where SQLite's crash-test VFS (test6.c) stands, one layer lower: sqlbatch's archive
 * keeps SQLite's symbols to itself (only sqlbatch_* are global), so no VFS can be registered
 * from outside, but SQLite's unix VFS reaches the file system through libc, whose calls an
 * LD_PRELOAD library sees in any program, C or Go.
 *
 * For the three files of one database (PL_DB, PL_DB-journal, PL_DB-wal) it keeps, beside each
 * file F:
 *   F.pl-durable   what a power loss cannot take away: F as of its last completed fsync
 *                  (made from F when the process first opens it: what was on disk before)
 *   F.pl-pending   every write and truncation since then, in order: a record
 *                  {u32 magic, u8 'W' or 'T', u64 offset or size, u32 length} and the bytes
 * Writes go to F as usual (the program reads its own writes back); fsync or fdatasync of F
 * applies F.pl-pending to F.pl-durable and empties it, and then (with PL_NOTES set) writes
 * "sync db|journal|wal\n" to fd 1, so that the parent sees, in order with the program's
 * acknowledgements, which commits were made durable before which sync.
 *
 * After the process is killed, run.py plays the power loss: F becomes F.pl-durable with a
 * random part of F.pl-pending applied (each 512-byte piece of each write: written, lost, or
 * torn), which is what SQLite assumes a power loss can leave (https://sqlite.org/atomiccommit.html:
 * writes not synced may be lost or reordered, a sector write is not atomic, a file that grew
 * may hold garbage where nothing was written yet; deleting a file is atomic). As in SQLite's
 * own crash tests, creating and deleting files is taken as durable at once (SQLite syncs the
 * directory after creating a journal; the deletion that commits in DELETE mode is made durable
 * only by synchronous=EXTRA).
 *
 * A kill at any moment leaves these files in a state run.py can use: a record is appended
 * before the write it describes is made (a record cut short by the kill is ignored: its write
 * never happened), and a sync empties the pending file only after applying it (a sync cut
 * short leaves durable holding a prefix of the pending writes, one of the states a power loss
 * during that fsync can leave).
 *
 * PL_CRASH_AT=N kills the process (SIGKILL) just before its Nth write, truncation or sync of
 * the database's files, for power losses at chosen points of the I/O rather than of time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAGIC 0x31574c50u /* "PLW1" */
#define MAX_FD 4096
#define KINDS 3
static const char *const kind_suffix[KINDS] = {"", "-journal", "-wal"};
static const char *const kind_name[KINDS] = {"db", "journal", "wal"};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char paths[KINDS][4096];
static int configured = -1; /* -1: not read yet; 0: PL_DB unset; 1: on */
static int notes;
static long crash_at, ops;
static signed char fd_kind[MAX_FD]; /* 0: untracked; k + 1: kind k */
static int pending_fd[KINDS] = {-1, -1, -1};

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_ftruncate)(int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);

static void die(const char *what) {
  char msg[256];
  int n = snprintf(msg, sizeof msg, "powerloss: %s: %s\n", what, strerror(errno));
  if (n > 0) (void)!write(2, msg, (size_t)n);
  abort();
}

static void resolve(void) {
  real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
  real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat64");
  real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  real_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
  real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  real_ftruncate = (int (*)(int, off_t))dlsym(RTLD_NEXT, "ftruncate64");
  real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  real_unlink = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
  real_unlinkat = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
  if (!real_open || !real_openat || !real_close || !real_pwrite || !real_write || !real_ftruncate ||
      !real_fsync || !real_fdatasync || !real_unlink || !real_unlinkat)
    die("dlsym");
}

static void configure(void) { /* under mu */
  if (configured >= 0) return;
  resolve();
  const char *db = getenv("PL_DB");
  configured = db && *db == '/';
  if (!configured) return;
  for (int k = 0; k < KINDS; k++) {
    if ((size_t)snprintf(paths[k], sizeof paths[k], "%s%s", db, kind_suffix[k]) >= sizeof paths[k])
      die("PL_DB too long");
  }
  notes = getenv("PL_NOTES") != NULL;
  const char *c = getenv("PL_CRASH_AT");
  crash_at = c ? atol(c) : 0;
}

static void ensure_resolved(void) {
  if (configured < 0) {
    pthread_mutex_lock(&mu);
    configure();
    pthread_mutex_unlock(&mu);
  }
}

static int kind_of_path(const char *path) {
  if (configured != 1 || !path) return -1;
  for (int k = 0; k < KINDS; k++)
    if (!strcmp(path, paths[k])) return k;
  return -1;
}

static void side_path(char *out, size_t len, int k, const char *ext) {
  if ((size_t)snprintf(out, len, "%s.pl-%s", paths[k], ext) >= len) die("path too long");
}

/* An I/O the shim counts, and PL_CRASH_AT's kill before the chosen one. */
static void count_op(void) {
  ops++;
  if (crash_at > 0 && ops == crash_at) raise(SIGKILL);
}

static void write_all(int fd, const void *buf, size_t len, off_t at) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = real_pwrite(fd, p, len, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("pwrite");
    }
    p += n, len -= (size_t)n, at += n;
  }
}

/* Under mu: the first open of kind k in this process copies the file as it is (what was on
 * disk before the process started, or the empty file just created) into F.pl-durable, through a
 * temporary file renamed into place, and opens F.pl-pending. */
static void track_open(int fd, int k) {
  if (fd < 0) return;
  if (fd < MAX_FD) fd_kind[fd] = (signed char)(k + 1);
  if (pending_fd[k] >= 0) return;
  char durable[4200], tmp[4200], pending[4200];
  side_path(durable, sizeof durable, k, "durable");
  side_path(tmp, sizeof tmp, k, "tmp");
  side_path(pending, sizeof pending, k, "pending");
  if (access(durable, F_OK) != 0) {
    int out = real_open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) die("open tmp");
    char buf[65536];
    off_t at = 0;
    for (;;) {
      ssize_t n = pread(fd, buf, sizeof buf, at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) die("pread");
      if (n == 0) break;
      write_all(out, buf, (size_t)n, at);
      at += n;
    }
    real_close(out);
    if (rename(tmp, durable) != 0) die("rename");
  }
  pending_fd[k] = real_open(pending, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (pending_fd[k] < 0) die("open pending");
}

static int tracked(int fd) { return fd >= 0 && fd < MAX_FD && fd_kind[fd] > 0 ? fd_kind[fd] - 1 : -1; }

/* Under mu: appends a record in one write (a record cut short by a kill is dropped by the
 * reader, and its write has not been made yet). */
static void log_record(int k, char type, uint64_t at, const void *data, uint32_t len) {
  unsigned char head[17];
  uint32_t magic = MAGIC;
  memcpy(head, &magic, 4);
  head[4] = (unsigned char)type;
  memcpy(head + 5, &at, 8);
  memcpy(head + 13, &len, 4);
  struct iovec iov[2] = {{head, sizeof head}, {(void *)data, len}};
  size_t want = sizeof head + len;
  ssize_t n = writev(pending_fd[k], iov, len ? 2 : 1);
  if (n != (ssize_t)want) die("writev pending");
}

/* Under mu: applies F.pl-pending to F.pl-durable in order, then empties it. */
static void make_durable(int k) {
  char durable[4200];
  side_path(durable, sizeof durable, k, "durable");
  int d = real_open(durable, O_WRONLY | O_CLOEXEC, 0);
  if (d < 0) die("open durable");
  int p = pending_fd[k];
  off_t at = 0;
  unsigned char head[17];
  char *buf = NULL;
  size_t cap = 0;
  for (;;) {
    ssize_t n = pread(p, head, sizeof head, at);
    if (n == 0) break;
    if (n != (ssize_t)sizeof head) die("read pending");
    uint32_t magic, len;
    uint64_t off;
    memcpy(&magic, head, 4);
    memcpy(&off, head + 5, 8);
    memcpy(&len, head + 13, 4);
    if (magic != MAGIC) die("bad pending record");
    at += (off_t)sizeof head;
    if (head[4] == 'T') {
      if (real_ftruncate(d, (off_t)off) != 0) die("ftruncate durable");
      continue;
    }
    if (len > cap) {
      free(buf);
      cap = len;
      buf = malloc(cap);
      if (!buf) die("malloc");
    }
    if (pread(p, buf, len, at) != (ssize_t)len) die("read pending");
    at += len;
    write_all(d, buf, len, (off_t)off);
  }
  free(buf);
  real_close(d);
  if (real_ftruncate(p, 0) != 0) die("ftruncate pending");
  if (notes) {
    char line[32];
    int n = snprintf(line, sizeof line, "sync %s\n", kind_name[k]);
    if (real_write(1, line, (size_t)n) != n) die("write note");
  }
}

static int do_open(int dirfd, const char *path, int flags, mode_t mode, int at) {
  ensure_resolved();
  int k = kind_of_path(path);
  if (k < 0) return at ? real_openat(dirfd, path, flags, mode) : real_open(path, flags, mode);
  pthread_mutex_lock(&mu);
  int fd = at ? real_openat(dirfd, path, flags, mode) : real_open(path, flags, mode);
  int saved = errno;
  track_open(fd, k);
  pthread_mutex_unlock(&mu);
  errno = saved;
  return fd;
}

static mode_t mode_arg(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open(AT_FDCWD, path, flags, mode, 0);
}

int open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open(AT_FDCWD, path, flags, mode, 0);
}

int openat(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open(dirfd, path, flags, mode, 1);
}

int openat64(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open(dirfd, path, flags, mode, 1);
}

int close(int fd) {
  ensure_resolved();
  if (tracked(fd) >= 0) {
    pthread_mutex_lock(&mu);
    fd_kind[fd] = 0;
    int rc = real_close(fd);
    pthread_mutex_unlock(&mu);
    return rc;
  }
  return real_close(fd);
}

static ssize_t do_pwrite(int fd, const void *buf, size_t len, off_t at) {
  ensure_resolved();
  pthread_mutex_lock(&mu);
  int k = tracked(fd);
  if (k < 0) {
    pthread_mutex_unlock(&mu);
    return real_pwrite(fd, buf, len, at);
  }
  count_op();
  log_record(k, 'W', (uint64_t)at, buf, (uint32_t)len);
  ssize_t n = real_pwrite(fd, buf, len, at);
  int saved = errno;
  pthread_mutex_unlock(&mu);
  errno = saved;
  return n;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t at) { return do_pwrite(fd, buf, len, at); }
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t at) { return do_pwrite(fd, buf, len, at); }

ssize_t write(int fd, const void *buf, size_t len) {
  ensure_resolved();
  if (tracked(fd) < 0) return real_write(fd, buf, len);
  off_t at = lseek(fd, 0, SEEK_CUR);
  ssize_t n = do_pwrite(fd, buf, len, at);
  if (n > 0) lseek(fd, at + n, SEEK_SET);
  return n;
}

static int do_ftruncate(int fd, off_t size) {
  ensure_resolved();
  pthread_mutex_lock(&mu);
  int k = tracked(fd);
  if (k >= 0) {
    count_op();
    log_record(k, 'T', (uint64_t)size, NULL, 0);
  }
  int rc = real_ftruncate(fd, size);
  int saved = errno;
  pthread_mutex_unlock(&mu);
  errno = saved;
  return rc;
}

int ftruncate(int fd, off_t size) { return do_ftruncate(fd, size); }
int ftruncate64(int fd, off_t size) { return do_ftruncate(fd, size); }

static int do_sync(int fd, int data_only) {
  ensure_resolved();
  pthread_mutex_lock(&mu);
  int k = tracked(fd);
  if (k >= 0) count_op();
  int rc = data_only ? real_fdatasync(fd) : real_fsync(fd);
  int saved = errno;
  if (rc == 0 && k >= 0) make_durable(k);
  pthread_mutex_unlock(&mu);
  errno = saved;
  return rc;
}

int fsync(int fd) { return do_sync(fd, 0); }
int fdatasync(int fd) { return do_sync(fd, 1); }

/* Deleting a file is durable at once: its side files go with it, and descriptors still open
 * on it are no longer followed. */
static void forget(int k) {
  char side[4200];
  static const char *const exts[] = {"durable", "pending", "tmp"};
  for (int i = 0; i < 3; i++) {
    side_path(side, sizeof side, k, exts[i]);
    real_unlink(side);
  }
  if (pending_fd[k] >= 0) real_close(pending_fd[k]);
  pending_fd[k] = -1;
  for (int fd = 0; fd < MAX_FD; fd++)
    if (fd_kind[fd] == k + 1) fd_kind[fd] = 0;
}

int unlink(const char *path) {
  ensure_resolved();
  int k = kind_of_path(path);
  if (k < 0) return real_unlink(path);
  pthread_mutex_lock(&mu);
  int rc = real_unlink(path);
  int saved = errno;
  if (rc == 0) forget(k);
  pthread_mutex_unlock(&mu);
  errno = saved;
  return rc;
}

int unlinkat(int dirfd, const char *path, int flags) {
  ensure_resolved();
  int k = kind_of_path(path);
  if (k < 0 || flags) return real_unlinkat(dirfd, path, flags);
  pthread_mutex_lock(&mu);
  int rc = real_unlinkat(dirfd, path, flags);
  int saved = errno;
  if (rc == 0) forget(k);
  pthread_mutex_unlock(&mu);
  errno = saved;
  return rc;
}
