/*
 * Interrupting a running sqlbatch call when the calling Haskell thread receives an
 * asynchronous exception (System.Timeout.timeout, killThread, Ctrl-C).
 *
 * The problem. A `safe` foreign call cannot be interrupted: GHC delivers an exception thrown
 * to a thread that is inside a foreign call only when the call returns, and the thrower
 * waits until then. A query stuck in one long sqlite3_step (a big sort, a recursive CTE)
 * would make `timeout` wait for it to finish.
 *
 * The usual Haskell fix (run the call in a forked thread and wait on an MVar, calling
 * sqlbatch_conn_interrupt when the wait is interrupted) costs two OS thread switches per call
 * when the caller is a bound thread, such as `main` under -threaded: 25-50 us per batch here,
 * which is more than a whole batch of narrow rows takes.
 *
 * What we do instead. These wrappers are imported `interruptible` (GHC's InterruptibleFFI).
 * When a thread inside an interruptible call is the target of throwTo, the GHC RTS sends
 * SIGPIPE to the OS thread running the call (pthread_kill; see "Interruptible foreign calls"
 * in the GHC User's Guide); the RTS's own SIGPIPE handler does nothing, which is enough to
 * make a blocking system call return EINTR but not to stop SQLite's bytecode loop. So we put
 * our own SIGPIPE handler in front of whatever handler was installed before: if the signal
 * lands on a thread that is inside one of these wrappers, it calls sqlbatch_conn_interrupt on
 * that call's connection (the ABI allows it from any thread at any time; here it is the very
 * thread running the call, so the connection is open), and then it chains to the previous
 * handler. The call returns SQLITE_INTERRUPT soon after and GHC raises the exception.
 *
 * The handler is (re)installed by a wrapper call if something replaced it (for example
 * System.Posix.Signals.installHandler sigPIPE Ignore). Looking costs a sigaction() system call
 * (0.13 us here, as much as 8% of a point query), so a wrapper looks only if no call looked
 * during the current tick of CLOCK_MONOTONIC_COARSE (4 ms on this kernel; 1 to 10 ms,
 * depending on its HZ), which costs a read of the vDSO clock (about 5 ns). The price: after
 * the program replaces the handler, a call that starts in the same tick as the last look runs
 * without ours, and an exception thrown to its thread then waits for it to return, as it would
 * without this file. The first call of the next tick puts the handler back.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hs_sqlbatch.h"

/* The connection whose call the current OS thread is running, or NULL. */
static __thread const sqlbatch_conn *volatile running;

/* The handler that was installed before ours, in one of two slots so that the signal handler
 * never reads a slot while it is being written (reinstalling is rare). */
static struct sigaction previous[2];
static atomic_int previous_slot;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_sigpipe(int sig, siginfo_t *info, void *context) {
  int saved_errno = errno;
  const sqlbatch_conn *conn = running;
  if (conn != NULL) {
    sqlbatch_conn_interrupt(conn);
  }
  const struct sigaction *prev = &previous[atomic_load(&previous_slot)];
  if (prev->sa_flags & SA_SIGINFO) {
    if (prev->sa_sigaction != NULL) {
      prev->sa_sigaction(sig, info, context);
    }
  } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN && prev->sa_handler != NULL) {
    prev->sa_handler(sig);
  }
  errno = saved_errno;
}

static int is_ours(const struct sigaction *a) {
  return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == on_sigpipe;
}

/* Installs on_sigpipe for SIGPIPE unless it is installed already.
 * Returns 0 if it was in place, 1 if it was (re)installed, -1 on error. */
int hs_sqlbatch_ensure_handler(void) {
  struct sigaction current;
  if (sigaction(SIGPIPE, NULL, &current) != 0) {
    return -1;
  }
  if (is_ours(&current)) {
    return 0;
  }
  int result = 0;
  pthread_mutex_lock(&install_lock);
  if (sigaction(SIGPIPE, NULL, &current) != 0) {
    result = -1;
  } else if (!is_ours(&current)) {
    int next = 1 - atomic_load(&previous_slot);
    previous[next] = current;
    atomic_store(&previous_slot, next);
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_sigpipe;
    ours.sa_flags = SA_SIGINFO; /* no SA_RESTART, like the RTS's own handler */
    sigemptyset(&ours.sa_mask);
    result = sigaction(SIGPIPE, &ours, NULL) == 0 ? 1 : -1;
  }
  pthread_mutex_unlock(&install_lock);
  return result;
}

/* The tick of CLOCK_MONOTONIC_COARSE (its nanoseconds) in which a wrapper last found the
 * handler in place (or put it there); 0 before the first look. Where there is no coarse
 * clock (it is Linux's and FreeBSD's), the plain monotonic clock, whose ticks are so short
 * that nearly every wrapper looks. */
static atomic_llong looked_at;

#ifdef CLOCK_MONOTONIC_COARSE
#define TICK_CLOCK CLOCK_MONOTONIC_COARSE
#else
#define TICK_CLOCK CLOCK_MONOTONIC
#endif

/* hs_sqlbatch_ensure_handler, unless a wrapper did it during the current tick of the coarse
 * clock (see the top of this file). */
static inline void ensure_handler_this_tick(void) {
  struct timespec t;
  long long now = 0;
  if (clock_gettime(TICK_CLOCK, &t) == 0) {
    now = (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
    if (now != 0 && atomic_load_explicit(&looked_at, memory_order_relaxed) == now) {
      return;
    }
  }
  if (hs_sqlbatch_ensure_handler() >= 0) {
    atomic_store_explicit(&looked_at, now, memory_order_relaxed);
  }
}

static inline void enter(const sqlbatch_conn *conn) {
  ensure_handler_this_tick();
  running = conn;
  atomic_signal_fence(memory_order_seq_cst);
}

static inline void leave(void) {
  atomic_signal_fence(memory_order_seq_cst);
  running = NULL;
}

int32_t hs_sqlbatch_fetch_into(sqlbatch_conn *conn, sqlbatch_stmt *stmt, size_t max_rows,
                               uint8_t *buf, size_t buf_len, sqlbatch_batch *out_batch) {
  enter(conn);
  int32_t rc = sqlbatch_stmt_fetch_into(stmt, max_rows, buf, buf_len, out_batch);
  leave();
  return rc;
}

/* sqlbatch_stmt_reset and then sqlbatch_stmt_fetch_into, in one interruptible call: the
 * first fetch of a run whose statement the binding reset only in its own state (a reset of a
 * statement that had run to its end: see stmtRewind in Database/SQLBatch/Internal.hs). */
int32_t hs_sqlbatch_rewind_fetch_into(sqlbatch_conn *conn, sqlbatch_stmt *stmt, size_t max_rows,
                                      uint8_t *buf, size_t buf_len, sqlbatch_batch *out_batch) {
  enter(conn);
  int32_t rc = sqlbatch_stmt_reset(stmt);
  if (rc == SQLBATCH_OK) {
    rc = sqlbatch_stmt_fetch_into(stmt, max_rows, buf, buf_len, out_batch);
  }
  leave();
  return rc;
}

int32_t hs_sqlbatch_fetch(sqlbatch_conn *conn, sqlbatch_stmt *stmt, size_t max_rows,
                          size_t max_bytes, sqlbatch_batch *out_batch) {
  enter(conn);
  int32_t rc = sqlbatch_stmt_fetch(stmt, max_rows, max_bytes, out_batch);
  leave();
  return rc;
}

int32_t hs_sqlbatch_exec(sqlbatch_conn *conn, const char *sql, size_t sql_len,
                         const sqlbatch_params *params, sqlbatch_exec_result *out_result) {
  enter(conn);
  int32_t rc = sqlbatch_conn_exec(conn, sql, sql_len, params, out_result);
  leave();
  return rc;
}

int32_t hs_sqlbatch_execute_many(sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                 const sqlbatch_params *rows, size_t n_rows,
                                 sqlbatch_write_result *out_result) {
  enter(conn);
  int32_t rc = sqlbatch_stmt_execute_many(stmt, rows, n_rows, out_result);
  leave();
  return rc;
}

/* Write-behind (sqlbatch_stmt_execute_many_start / _wait): the start may run the rows itself
 * (from a callback on the worker, or without a thread), and the wait waits for the worker; an
 * interrupt from the handler stops the rows in both, as it does the synchronous call's. */
int32_t hs_sqlbatch_execute_many_start(sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                       const sqlbatch_params *rows, size_t n_rows) {
  enter(conn);
  int32_t rc = sqlbatch_stmt_execute_many_start(stmt, rows, n_rows);
  leave();
  return rc;
}

int32_t hs_sqlbatch_execute_many_wait(sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                      sqlbatch_write_result *out_result) {
  enter(conn);
  int32_t rc = sqlbatch_stmt_execute_many_wait(stmt, out_result);
  leave();
  return rc;
}

/* Returns once the connection's worker has no job (a batch stepped ahead, a queued write):
 * every call on the connection waits for it first, and sqlbatch_conn_autocommit does nothing
 * else (a read of one SQLite flag). The binding calls this, as an interruptible call, before
 * the calls it makes `unsafe`, whenever the worker may be busy: an unsafe call must not wait,
 * and the wait must be interruptible. (A call of the ABI that only waits would say it
 * better; this one gives the same.) */
int32_t hs_sqlbatch_settle(sqlbatch_conn *conn) {
  bool autocommit;
  enter(conn);
  int32_t rc = sqlbatch_conn_autocommit(conn, &autocommit);
  leave();
  return rc;
}

/*
 * hs_sqlbatch_utf8_to_utf16 decodes `n` bytes of UTF-8 at `src` into UTF-16 at
 * `dst + dst_off` (units), which has room for `n` code units (always enough: every code point takes at least as many bytes
 * as units). Returns the number of units written, or -1 if the bytes are not valid UTF-8
 * (overlong forms, surrogates, code points above U+10FFFF and truncated sequences are all
 * invalid, as for Data.Text.Encoding.decodeUtf8).
 *
 * This is how the binding builds a Data.Text (text-1.2 is UTF-16 inside) straight from a
 * batch: one unsafe call per value into a freshly allocated array, with an ASCII fast path of
 * 8 bytes at a time, instead of decodeUtf8's per-call pinned scratch allocation and exception
 * handler.
 */
ptrdiff_t hs_sqlbatch_utf8_to_utf16(uint16_t *dst, size_t dst_off, const uint8_t *src, size_t n) {
  dst += dst_off;
  uint16_t *d = dst;
  const uint8_t *s = src, *end = src + n;
  while (s < end) {
    uint32_t c = s[0];
    if (c < 0x80) {
      /* A run of ASCII: 8 bytes at a time, then byte by byte. */
      while (end - s >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        if (w & UINT64_C(0x8080808080808080)) break;
        for (int i = 0; i < 8; i++) d[i] = s[i];
        d += 8;
        s += 8;
      }
      while (s < end && *s < 0x80) *d++ = *s++;
    } else if (c < 0xC2) {
      return -1;
    } else if (c < 0xE0) {
      if (end - s < 2 || (s[1] & 0xC0) != 0x80) return -1;
      *d++ = (uint16_t)(((c & 0x1F) << 6) | (s[1] & 0x3F));
      s += 2;
    } else if (c < 0xF0) {
      if (end - s < 3) return -1;
      uint32_t c1 = s[1], c2 = s[2];
      if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80) return -1;
      if (c == 0xE0 && c1 < 0xA0) return -1;  /* overlong */
      if (c == 0xED && c1 >= 0xA0) return -1; /* UTF-16 surrogate */
      *d++ = (uint16_t)(((c & 0x0F) << 12) | ((c1 & 0x3F) << 6) | (c2 & 0x3F));
      s += 3;
    } else if (c < 0xF5) {
      if (end - s < 4) return -1;
      uint32_t c1 = s[1], c2 = s[2], c3 = s[3];
      if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) return -1;
      if (c == 0xF0 && c1 < 0x90) return -1;  /* overlong */
      if (c == 0xF4 && c1 >= 0x90) return -1; /* above U+10FFFF */
      uint32_t cp = ((c & 0x07) << 18) | ((c1 & 0x3F) << 12) | ((c2 & 0x3F) << 6) | (c3 & 0x3F);
      cp -= 0x10000;
      *d++ = (uint16_t)(0xD800 + (cp >> 10));
      *d++ = (uint16_t)(0xDC00 + (cp & 0x3FF));
      s += 4;
    } else {
      return -1;
    }
  }
  return d - dst;
}

/*
 * hs_sqlbatch_utf16_to_utf8 encodes `n` UTF-16 code units at `src + src_off` (the array of a
 * Data.Text) as UTF-8 at `dst`, which has room for 3 * n bytes. Returns the bytes written.
 * A lone surrogate (which a valid Text never holds) becomes U+FFFD.
 *
 * This is how parameters of type Text reach sqlbatch: straight from the Text's array into
 * the parameter buffer of a bulk write, without an intermediate ByteString per value.
 */
size_t hs_sqlbatch_utf16_to_utf8(uint8_t *dst, const uint16_t *src, size_t src_off, size_t n) {
  uint8_t *d = dst;
  const uint16_t *s = src + src_off, *end = src + src_off + n;
  while (s < end) {
    uint32_t c = *s;
    if (c < 0x80) {
      /* A run of ASCII: 8 units at a time, then one by one. */
#ifdef __SSE2__
      while (end - s >= 8) {
        __m128i u = _mm_loadu_si128((const __m128i *)s);
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(u, _mm_set1_epi16((short)0xFF80)),
                                              _mm_setzero_si128())) != 0xFFFF) break;
        _mm_storel_epi64((__m128i *)d, _mm_packus_epi16(u, u));
        d += 8;
        s += 8;
      }
#else
      while (end - s >= 4) {
        uint32_t a = s[0], b = s[1], e = s[2], f = s[3];
        if ((a | b | e | f) >= 0x80) break;
        d[0] = (uint8_t)a; d[1] = (uint8_t)b; d[2] = (uint8_t)e; d[3] = (uint8_t)f;
        d += 4;
        s += 4;
      }
#endif
      while (s < end && *s < 0x80) *d++ = (uint8_t)*s++;
      continue;
    }
    s++;
    if (c < 0x800) {
      *d++ = (uint8_t)(0xC0 | (c >> 6));
      *d++ = (uint8_t)(0x80 | (c & 0x3F));
    } else if (c >= 0xD800 && c < 0xDC00 && s < end && *s >= 0xDC00 && *s < 0xE000) {
      uint32_t cp = 0x10000 + ((c - 0xD800) << 10) + (uint32_t)(*s++ - 0xDC00);
      *d++ = (uint8_t)(0xF0 | (cp >> 18));
      *d++ = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
      *d++ = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
      *d++ = (uint8_t)(0x80 | (cp & 0x3F));
    } else {
      if (c >= 0xD800 && c < 0xE000) c = 0xFFFD;
      *d++ = (uint8_t)(0xE0 | (c >> 12));
      *d++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
      *d++ = (uint8_t)(0x80 | (c & 0x3F));
    }
  }
  return (size_t)(d - dst);
}
