/*
 * idle_thread.c: makes any program multi-threaded without changing what it does, to measure
 * what being multi-threaded costs a program that makes many system calls (every Go program
 * is multi-threaded; the native C loop of the runner is not). Loaded with LD_PRELOAD, it
 * starts one thread that sleeps for good before main runs. The cost it shows is the kernel's
 * and glibc's, not SQLite's: with more than one thread, each system call on a file
 * descriptor takes and drops a reference to the file (fdget/fput), and each cancellation
 * point (pread, pwrite, fsync) switches thread cancellation on and off around the call.
 *
 *   cc -O2 -shared -fPIC -o build/idle_thread.so benches/native/idle_thread.c -lpthread
 *   build/bench/c-bench --impl c-native --workload point_query --input build/workloads/app.db --reps 7
 *   LD_PRELOAD=$PWD/build/idle_thread.so build/bench/c-bench --impl c-native ...   (the same)
 *
 * (Not part of any build: a measuring aid for the multi-thread tax in docs/floors.md and docs/go.md.)
 */
#include <pthread.h>
#include <unistd.h>

static void *sleep_forever(void *arg) {
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

__attribute__((constructor)) static void start_idle_thread(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, sleep_forever, NULL) == 0)
        pthread_detach(t);
}
