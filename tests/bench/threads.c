/* Scenario for the thread-count benchmark (tests/bench/record-threads.sh):
 * the same work, a token passed around a ring of threads, done by many
 * threads or by a few, so that two recordings differ in their number of
 * threads and little else (event kinds, count, rate).
 *
 *   threads NTHREADS HOPS
 *
 * Starts NTHREADS threads (64 KiB stacks), all alive until the end, each
 * waiting on its own futex word. The token goes round the ring HOPS times in
 * all: a thread woken with the token sets its successor's word, wakes it
 * with FUTEX_WAKE and waits again with FUTEX_WAIT. Each hop is a futex
 * wake and a futex wait (syscall entry and exit), a waking/wakeup and a
 * switch: with 10,000 threads every one of them is in the trace's
 * scheduling events; with 8, the same events name 8 threads. Creating and
 * joining the threads adds about ten events per thread (clone3, fork,
 * wakeup_new, exit, free), a few per cent of the trace with 10,000 threads.
 *
 * Build: gcc -O2 -o threads threads.c -lpthread
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long nthreads;
static long hops_left;
static _Atomic int *words;
static _Atomic long remaining;

static void fwait(_Atomic int *w)
{
    while (atomic_load(w) == 0)
        syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void fwake(_Atomic int *w)
{
    atomic_store(w, 1);
    syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *ring(void *arg)
{
    long me = (long)arg;
    long next = (me + 1) % nthreads;
    for (;;) {
        fwait(&words[me]);
        atomic_store(&words[me], 0);
        long left = atomic_fetch_sub(&remaining, 1);
        if (left <= 0) {
            /* Done: pass the end on so that every thread leaves. */
            fwake(&words[next]);
            return NULL;
        }
        fwake(&words[next]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NTHREADS HOPS\n", argv[0]);
        return 2;
    }
    nthreads = atol(argv[1]);
    hops_left = atol(argv[2]);
    if (nthreads < 2 || hops_left < 1) {
        fprintf(stderr, "NTHREADS >= 2, HOPS >= 1\n");
        return 2;
    }
    atomic_store(&remaining, hops_left);
    words = calloc(nthreads, sizeof *words);
    pthread_t *t = calloc(nthreads, sizeof *t);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024 > PTHREAD_STACK_MIN ? 64 * 1024 : PTHREAD_STACK_MIN);
    for (long i = 0; i < nthreads; i++) {
        if (pthread_create(&t[i], &attr, ring, (void *)i) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    fwake(&words[0]);
    for (long i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    printf("%ld threads, %ld hops\n", nthreads, hops_left);
    return 0;
}
