/* threadpool.c — see threadpool.h. Note [Pool hand-off]: one job at a time, cut into at most nthreads equal
 * chunks (the cut depends only on the range, the grain and the thread count, never on timing). The caller and
 * the workers claim chunks from one atomic word, so a chunk that no worker has picked up yet (a worker still
 * waking, or descheduled on a loaded machine) is run by the caller itself; `tid` is the chunk's index.
 * Workers spin for a short while (SPIN_NS) after a job before sleeping on a condition variable, and the caller
 * spins as long for the last chunks: back-to-back jobs (a training step's elementwise ops) then hand off in
 * well under a microsecond instead of a futex wake-up each (tens of microseconds in a VM). */
#include "cpu/threadpool.h"

#ifdef WK_NO_THREADS
int wk_get_num_threads(void) { return 1; }
int wk_set_num_threads(int n) {
    if (n < 1) {
        wk__error(WK_RUNTIME_ERROR, "set_num_threads expects a positive integer");
        return -1;
    }
    return 0;
}
void wk_parallel_for(int64_t begin, int64_t end, int64_t grain, wk_range_fn fn, void *ctx) {
    WK_UNUSED(grain);
    if (begin < end) fn(begin, end, 0, ctx);
}
#else
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS 200000 /* how long an idle worker (or a waiting caller) polls before it sleeps */

/* the claim word: job generation << 32 | chunk count << 16 | next unclaimed chunk */
#define W_GEN(w) ((uint32_t)((w) >> 32))
#define W_N(w) ((int)(((w) >> 16) & 0xffff))
#define W_NEXT(w) ((int)((w)&0xffff))

static struct {
    pthread_mutex_t mu;    /* guards the sleeps below */
    pthread_cond_t work;   /* workers sleep here for a new generation */
    pthread_cond_t done;   /* the caller sleeps here for the last chunk */
    pthread_mutex_t run;   /* one job at a time (a second concurrent caller runs its job inline) */
    int nthreads;          /* configured, including the caller */
    int started;           /* workers running */
    _Atomic uint64_t word; /* see W_GEN / W_N / W_NEXT */
    _Atomic int ndone;     /* chunks finished in the current job */
    _Atomic int sleepers;  /* workers asleep (or about to be) on `work` */
    _Atomic int waiting;   /* 1 while the caller sleeps (or is about to) on `done` */
    wk_range_fn fn;        /* the current job: written before its generation is published */
    void *ctx;
    int64_t begin, chunk, end;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER,
          .run = PTHREAD_MUTEX_INITIALIZER};

static WK_TLS int in_worker = 0;

static int default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > WK_MAX_THREADS ? WK_MAX_THREADS : (int)n;
}

int wk_get_num_threads(void) {
    if (!pool.nthreads) pool.nthreads = default_threads();
    return pool.nthreads;
}

int wk_set_num_threads(int n) {
    if (n < 1) {
        wk__error(WK_RUNTIME_ERROR, "set_num_threads expects a positive integer");
        return -1;
    }
    pool.nthreads = n > WK_MAX_THREADS ? WK_MAX_THREADS : n; /* workers beyond n simply get no chunks */
    return 0;
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Claims and runs chunks of the job published as generation `gen` until none is left. */
static void run_chunks(uint32_t gen) {
    uint64_t w = atomic_load_explicit(&pool.word, memory_order_acquire);
    while (W_GEN(w) == gen && W_NEXT(w) < W_N(w)) {
        if (!atomic_compare_exchange_weak_explicit(&pool.word, &w, w + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        /* chunk W_NEXT(w) is ours; the job cannot change until every chunk is done */
        int c = W_NEXT(w), n = W_N(w);
        int64_t b = pool.begin + c * pool.chunk, e = b + pool.chunk < pool.end ? b + pool.chunk : pool.end;
        if (b < e) pool.fn(b, e, c, pool.ctx);
        if (atomic_fetch_add(&pool.ndone, 1) + 1 == n && /* seq_cst: pairs with the caller's `waiting` */
            atomic_load(&pool.waiting)) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.mu);
        }
        w = atomic_load_explicit(&pool.word, memory_order_acquire);
    }
}

static void *worker(void *arg) {
    uint32_t seen = (uint32_t)(uintptr_t)arg; /* the generation current when this worker was started */
    in_worker = 1;
    for (;;) {
        uint32_t g = W_GEN(atomic_load_explicit(&pool.word, memory_order_acquire));
        int64_t t0 = 0;
        for (int k = 0; g == seen; k++) { /* spin a while, then sleep */
            cpu_relax();
            if ((k & 255) == 255) {
                int64_t t = now_ns();
                if (!t0) t0 = t;
                else if (t - t0 > SPIN_NS) {
                    pthread_mutex_lock(&pool.mu);
                    atomic_fetch_add(&pool.sleepers, 1); /* seq_cst: pairs with the publisher's (Dekker) */
                    while (W_GEN(atomic_load(&pool.word)) == seen) pthread_cond_wait(&pool.work, &pool.mu);
                    atomic_fetch_sub(&pool.sleepers, 1);
                    pthread_mutex_unlock(&pool.mu);
                    t0 = 0;
                }
            }
            g = W_GEN(atomic_load_explicit(&pool.word, memory_order_acquire));
        }
        seen = g;
        run_chunks(g);
    }
    return NULL;
}

static void ensure_workers(int n) {
    while (pool.started < n - 1) {
        pthread_t t;
        uintptr_t gen = W_GEN(atomic_load(&pool.word));
        if (pthread_create(&t, NULL, worker, (void *)gen) != 0) break;
        pthread_detach(t);
        pool.started++;
    }
}

void wk_parallel_for(int64_t begin, int64_t end, int64_t grain, wk_range_fn fn, void *ctx) {
    if (begin >= end) return;
    int64_t n = end - begin;
    int nt = wk_get_num_threads();
    if (grain < 1) grain = 1;
    int64_t max_chunks = (n + grain - 1) / grain;
    int nchunks = (int)(max_chunks < nt ? max_chunks : nt);
    if (nchunks <= 1 || in_worker || pthread_mutex_trylock(&pool.run) != 0) {
        fn(begin, end, 0, ctx);
        return;
    }
    ensure_workers(nchunks);
    if (pool.started < nchunks - 1) nchunks = pool.started + 1; /* could not start all: use what runs */
    pool.fn = fn;
    pool.ctx = ctx;
    pool.begin = begin;
    pool.end = end;
    pool.chunk = (n + nchunks - 1) / nchunks;
    atomic_store_explicit(&pool.ndone, 0, memory_order_relaxed);
    uint32_t gen = W_GEN(atomic_load(&pool.word)) + 1;
    atomic_store(&pool.word, (uint64_t)gen << 32 | (uint64_t)nchunks << 16); /* seq_cst: publishes the job */
    if (atomic_load(&pool.sleepers) > 0) {
        pthread_mutex_lock(&pool.mu);
        pthread_cond_broadcast(&pool.work);
        pthread_mutex_unlock(&pool.mu);
    }
    in_worker = 1;
    run_chunks(gen);
    in_worker = 0;
    int64_t t0 = 0;
    for (int k = 0; atomic_load_explicit(&pool.ndone, memory_order_acquire) < nchunks; k++) {
        cpu_relax();
        if ((k & 255) != 255) continue;
        int64_t t = now_ns();
        if (!t0) t0 = t;
        else if (t - t0 > SPIN_NS) {
            pthread_mutex_lock(&pool.mu);
            atomic_store(&pool.waiting, 1);
            while (atomic_load(&pool.ndone) < nchunks) pthread_cond_wait(&pool.done, &pool.mu);
            atomic_store(&pool.waiting, 0);
            pthread_mutex_unlock(&pool.mu);
        }
    }
    pthread_mutex_unlock(&pool.run);
}
#endif
