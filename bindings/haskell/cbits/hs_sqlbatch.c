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
 * in the GHC User's Guide), once; the RTS's own SIGPIPE handler does nothing, which is enough
 * to make a blocking system call return EINTR but not to stop SQLite's bytecode loop. So we
 * put our own SIGPIPE handler in front of whatever handler was installed before: if the
 * signal lands on a thread that is inside one of these wrappers, it calls
 * sqlbatch_conn_interrupt on that call's connection (the ABI allows it from any thread at any
 * time; here it is the very thread running the call, so the connection is open), and then it
 * chains to the previous handler. The call returns SQLITE_INTERRUPT soon after and GHC raises
 * the exception.
 *
 * A cancellation at any moment of the call. The one signal may come too early, or not at
 * all, or its interrupt may be forgotten, and the call would then run to its end (forever,
 * for an endless query: 1 to 12% of the exceptions thrown around one were lost so, in the
 * series of test/Cancel.hs). Three cases:
 * - The exception comes before the call, while the thread masks exceptions (the binding
 *   holds a connection's lock under `mask`): the RTS queues it without a signal, and does
 *   not look at the queue when an interruptible call starts. So the Haskell side arms each
 *   call first (hs_sqlbatch_arm, an `unsafe` call with the thread's TSO, made just before
 *   the interruptible one with no point between them where GHC could switch threads: see
 *   Database.SQLBatch.Raw), and the arm marks the call cancelled if an exception is queued
 *   (one GHC would deliver to an interruptible operation).
 * - The signal comes too early: the RTS counts the thread as inside the call from its
 *   suspendThread, which hands the capability to another OS thread (where the thrower may
 *   run at once) before the C function starts. A signal that lands before the wrapper has
 *   published its connection finds none; it marks the armed call cancelled. (Between the
 *   arm and the call the thread runs no other foreign call, so the signal is this call's.)
 *   The wrapper, once it has published its connection, interrupts a call marked cancelled
 *   itself.
 * - The interrupt is forgotten: SQLite forgets an interrupt that arrives while no statement
 *   of the connection is running (the first sqlite3_step of a statement clears it), and
 *   sqlbatch one that arrives before a script or bulk write starts: an interrupt between
 *   the wrapper's start and its statement's is lost, the wrapper's own for a call marked
 *   cancelled included. So a call that was interrupted is interrupted again every
 *   millisecond until it returns, as the Go driver does for a cancelled context
 *   (bindings/go/driver/conn.go, watch): by a thread of this file (the watcher), started
 *   with the handler, which sleeps on a semaphore while no call needs it. The signal handler
 *   hands it the call (a slot: lock-free, and sem_post is async-signal-safe); the wrapper,
 *   before it returns, takes the slot back and waits until the watcher is not in the middle
 *   of interrupting it, so that no interrupt of the watcher reaches a later call, or a
 *   connection closed after the call.
 * What an exception thrown just as a call ends does is unchanged: the call may complete (a
 * write commits) before it notices, and GHC raises the exception when it returns. An
 * interrupt still set on the connection after the call reaches a statement of the connection
 * that is in the middle of its rows, as SQLite's rules say.
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
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "Rts.h"

#include "hs_sqlbatch.h"

/* ---- The calls of this OS thread ---------------------------------------------------- */

/* A call in progress, on the C stack of its wrapper. */
struct call {
  const sqlbatch_conn *conn;
  struct call *outer;  /* the call this one runs in (from a callback), or NULL */
  volatile int watch;  /* its slot with the watcher, or -1 (written by the signal handler) */
};

/* The call the current OS thread is running, or NULL. */
static __thread struct call *volatile current;

/* The armed call's token (0: none), and the token a signal that landed outside any call
 * found armed (0: none since the arm). */
static __thread volatile uint64_t armed;
static __thread volatile uint64_t early;

/* This thread's tag (from 1, in the high half of its tokens) and its last token's number. */
static __thread uint64_t thread_tag;
static __thread uint32_t thread_calls;
static atomic_uint_fast64_t next_tag;

/* ---- The watcher: interrupts the cancelled calls again until they return ------------ */

#define WATCH_SLOTS 64
#define WATCH_PERIOD_NS 1000000

/* A cancelled call the watcher interrupts. `taken` is claimed by compare-and-swap; `conn` is
 * NULL once the call has left; `busy` is set while the watcher interrupts `conn`. */
static struct watch {
  atomic_int taken;
  _Atomic(const sqlbatch_conn *) conn;
  atomic_int busy;
} watches[WATCH_SLOTS];

static sem_t watcher_wake;
/* 0: not started (in this process: see on_fork_child), 1: running, -1: could not start. */
static atomic_int watcher_state;

static void *watcher(void *unused) {
  (void)unused;
  for (;;) {
    while (sem_wait(&watcher_wake) != 0) {
    }
    /* Every millisecond, the calls in the slots, until none is left (a slot taken after
     * the last look posted the semaphore again). */
    for (;;) {
      struct timespec period = {0, WATCH_PERIOD_NS};
      nanosleep(&period, NULL);
      int any = 0;
      for (int i = 0; i < WATCH_SLOTS; i++) {
        const sqlbatch_conn *conn = atomic_load(&watches[i].conn);
        if (conn == NULL) {
          continue;
        }
        any = 1;
        /* Sequentially consistent, with leave's store of NULL then load of busy: either
         * this second load sees NULL, or leave sees busy and waits. */
        atomic_store(&watches[i].busy, 1);
        if (atomic_load(&watches[i].conn) == conn) {
          sqlbatch_conn_interrupt(conn);
        }
        atomic_store(&watches[i].busy, 0);
      }
      if (!any) {
        break;
      }
    }
  }
  return NULL;
}

/* Hands a cancelled call's connection to the watcher: its slot, or -1 if there is no watcher
 * or no free slot (the call then has the one interrupt). Async-signal-safe. */
static int watch_start(const sqlbatch_conn *conn) {
  if (atomic_load(&watcher_state) != 1) {
    return -1;
  }
  for (int i = 0; i < WATCH_SLOTS; i++) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&watches[i].taken, &expected, 1)) {
      atomic_store(&watches[i].conn, conn);
      sem_post(&watcher_wake);
      return i;
    }
  }
  return -1;
}

/* Takes the slot back: once this returns, the watcher no longer interrupts its connection. */
static void watch_stop(int i) {
  atomic_store(&watches[i].conn, NULL);
  while (atomic_load(&watches[i].busy)) {
    sched_yield();
  }
  atomic_store(&watches[i].taken, 0);
}

/* ---- The signal handler ----------------------------------------------------------- */

/* The handler that was installed before ours, in one of two slots so that the signal handler
 * never reads a slot while it is being written (reinstalling is rare). */
static struct sigaction previous[2];
static atomic_int previous_slot;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_sigpipe(int sig, siginfo_t *info, void *context) {
  int saved_errno = errno;
  struct call *c = current;
  if (c != NULL) {
    sqlbatch_conn_interrupt(c->conn);
    if (c->watch < 0) {
      c->watch = watch_start(c->conn);
    }
  } else if (armed != 0) {
    early = armed;
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

/* In a child of fork() only the forking thread exists: no watcher, no call in progress. */
static void on_fork_child(void) {
  for (int i = 0; i < WATCH_SLOTS; i++) {
    atomic_store(&watches[i].conn, NULL);
    atomic_store(&watches[i].busy, 0);
    atomic_store(&watches[i].taken, 0);
  }
  atomic_store(&watcher_state, 0);
  pthread_mutex_init(&install_lock, NULL);
}

/* Starts the watcher (with install_lock held), with every signal blocked in it. */
static void start_watcher(void) {
  static int at_fork_registered;
  if (!at_fork_registered) {
    at_fork_registered = pthread_atfork(NULL, NULL, on_fork_child) == 0;
  }
  if (sem_init(&watcher_wake, 0, 0) != 0) {
    atomic_store(&watcher_state, -1);
    return;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_attr_t attr;
  int ok = pthread_attr_init(&attr) == 0;
  if (ok) {
    size_t stack = 64 * 1024;
#ifdef PTHREAD_STACK_MIN
    if (stack < (size_t)PTHREAD_STACK_MIN) {
      stack = PTHREAD_STACK_MIN;
    }
#endif
    pthread_attr_setstacksize(&attr, stack);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    ok = pthread_create(&thread, &attr, watcher, NULL) == 0;
    pthread_attr_destroy(&attr);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  atomic_store(&watcher_state, ok ? 1 : -1);
}

/* Installs on_sigpipe for SIGPIPE unless it is installed already, and starts the watcher
 * unless it was started. Returns 0 if both were in place, 1 if the handler was
 * (re)installed, -1 on error. */
int hs_sqlbatch_ensure_handler(void) {
  struct sigaction current_action;
  if (sigaction(SIGPIPE, NULL, &current_action) != 0) {
    return -1;
  }
  if (is_ours(&current_action) && atomic_load(&watcher_state) != 0) {
    return 0;
  }
  int result = 0;
  pthread_mutex_lock(&install_lock);
  if (atomic_load(&watcher_state) == 0) {
    start_watcher();
  }
  if (sigaction(SIGPIPE, NULL, &current_action) != 0) {
    result = -1;
  } else if (!is_ours(&current_action)) {
    int next = 1 - atomic_load(&previous_slot);
    previous[next] = current_action;
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

/* ---- Arming, entering and leaving a call ------------------------------------------ */

/* Whether GHC holds an exception for the thread whose TSO this is, which a call it makes now
 * must not outlive: one thrown while the thread masked exceptions (`mask`, as the binding does
 * around its calls) and before the call, which the RTS queues without a signal; it would
 * signal a thread inside the call, and delivers it once the thread unmasks or blocks
 * interruptibly, which an interruptible call is, but it does not look at the queue when such
 * a call starts. Not under `uninterruptibleMask`, where the RTS would not interrupt the call
 * either. Read in an unsafe call: the thread holds its capability, so nothing moves the TSO
 * or changes its queue (an exception thrown from another capability meanwhile is a message
 * to this one, handled after the call has started, with a signal). */
static int exception_pending(const StgTSO *tso) {
  return tso->blocked_exceptions != (struct MessageThrowTo_ *)END_TSO_QUEUE &&
         ((tso->flags & TSO_BLOCKEX) == 0 || (tso->flags & TSO_INTERRUPTIBLE) != 0);
}

uint64_t hs_sqlbatch_arm(void *tso) {
  if (thread_tag == 0) {
    thread_tag = atomic_fetch_add(&next_tag, 1) + 1;
  }
  uint64_t token = (thread_tag << 32) | ++thread_calls;
  /* The handler sets `early` only while a call is armed. */
  armed = 0;
  atomic_signal_fence(memory_order_seq_cst);
  early = exception_pending((const StgTSO *)tso) ? token : 0;
  atomic_signal_fence(memory_order_seq_cst);
  armed = token;
  atomic_signal_fence(memory_order_seq_cst);
  return token;
}

/* Publishes the call; interrupts it at once if a signal landed between its arm and now. */
static inline void enter(struct call *c, const sqlbatch_conn *conn, uint64_t token) {
  ensure_handler_this_tick();
  c->conn = conn;
  c->outer = current;
  c->watch = -1;
  atomic_signal_fence(memory_order_seq_cst);
  current = c;
  atomic_signal_fence(memory_order_seq_cst);
  /* From here on a signal takes the handler's first branch. A token that is not this
   * thread's armed one (the Haskell thread moved to another OS thread between the two
   * calls, which Database.SQLBatch.Raw rules out) says nothing about this call. */
  int cancelled = token != 0 && armed == token && early == token;
  armed = 0;
  early = 0;
  if (cancelled) {
    /* As the handler would have done had the signal come now; with SIGPIPE blocked, so
     * that the handler does not start a second watch meanwhile. */
    sigset_t pipe, old;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    sqlbatch_conn_interrupt(conn);
    if (c->watch < 0) {
      c->watch = watch_start(conn);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
}

static inline void leave(struct call *c) {
  atomic_signal_fence(memory_order_seq_cst);
  current = c->outer;
  atomic_signal_fence(memory_order_seq_cst);
  if (c->watch >= 0) {
    watch_stop(c->watch);
  }
}

/* ---- The wrappers ------------------------------------------------------------------ */

int32_t hs_sqlbatch_fetch_into(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                               size_t max_rows, uint8_t *buf, size_t buf_len,
                               sqlbatch_batch *out_batch) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_stmt_fetch_into(stmt, max_rows, buf, buf_len, out_batch);
  leave(&c);
  return rc;
}

/* sqlbatch_stmt_reset_fetch_into (a reset, then sqlbatch_stmt_fetch_into) in one interruptible
 * call: the first fetch of a run whose statement the binding reset only in its own state (a
 * reset of a statement that had run to its end: see stmtRewind in Database/SQLBatch/Internal.hs). */
int32_t hs_sqlbatch_rewind_fetch_into(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                      size_t max_rows, uint8_t *buf, size_t buf_len,
                                      sqlbatch_batch *out_batch) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_stmt_reset_fetch_into(stmt, max_rows, buf, buf_len, out_batch);
  leave(&c);
  return rc;
}

/* sqlbatch_stmt_reset_fetch_into of at most one row into no buffer,
 * not interruptible: for the binding's unsafe call of a kept deferred BEGIN, which neither
 * waits nor calls back (see runKept in Database/SQLBatch/Internal/Core.hs). */
int32_t hs_sqlbatch_rewind_step_quick(sqlbatch_stmt *stmt, sqlbatch_batch *out_batch) {
  return sqlbatch_stmt_reset_fetch_into(stmt, 1, NULL, 0, out_batch);
}

int32_t hs_sqlbatch_fetch(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                          size_t max_rows, size_t max_bytes, sqlbatch_batch *out_batch) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_stmt_fetch(stmt, max_rows, max_bytes, out_batch);
  leave(&c);
  return rc;
}

int32_t hs_sqlbatch_exec(uint64_t token, sqlbatch_conn *conn, const char *sql, size_t sql_len,
                         const sqlbatch_params *params, sqlbatch_exec_result *out_result) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_conn_exec(conn, sql, sql_len, params, out_result);
  leave(&c);
  return rc;
}

int32_t hs_sqlbatch_execute_many(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                 const sqlbatch_params *rows, size_t n_rows,
                                 sqlbatch_write_result *out_result) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_stmt_execute_many(stmt, rows, n_rows, out_result);
  leave(&c);
  return rc;
}

/* Write-behind (sqlbatch_stmt_execute_many_start / _wait): the start may run the rows itself
 * (from a callback on the worker, or without a thread), and the wait waits for the worker; an
 * interrupt from the handler stops the rows in both, as it does the synchronous call's. */
int32_t hs_sqlbatch_execute_many_start(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                       const sqlbatch_params *rows, size_t n_rows) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_stmt_execute_many_start(stmt, rows, n_rows);
  leave(&c);
  return rc;
}

int32_t hs_sqlbatch_execute_many_wait(uint64_t token, sqlbatch_conn *conn, sqlbatch_stmt *stmt,
                                      sqlbatch_write_result *out_result) {
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_stmt_execute_many_wait(stmt, out_result);
  leave(&c);
  return rc;
}

/* Returns once the connection's worker has no job (a batch stepped ahead, a queued write):
 * every call on the connection waits for it first, and sqlbatch_conn_autocommit does nothing
 * else (a read of one SQLite flag). The binding calls this, as an interruptible call, before
 * the calls it makes `unsafe`, whenever the worker may be busy: an unsafe call must not wait,
 * and the wait must be interruptible. (A call of the ABI that only waits would say it
 * better; this one gives the same.) */
int32_t hs_sqlbatch_settle(uint64_t token, sqlbatch_conn *conn) {
  bool autocommit;
  struct call c;
  enter(&c, conn, token);
  int32_t rc = sqlbatch_conn_autocommit(conn, &autocommit);
  leave(&c);
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
