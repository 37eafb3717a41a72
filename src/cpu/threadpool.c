/* threadpool.c — see threadpool.h. One job at a time: the caller runs chunk 0, workers run the others. */
#include "threadpool.h"

#if defined(__wasi__) && !defined(_REENTRANT)
#define WK_NO_THREADS 1
#endif

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
#include <unistd.h>

#define MAX_THREADS 64

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    int nthreads;          /* configured, including the caller */
    int started;           /* workers running */
    uint64_t generation;   /* bumped per job */
    wk_range_fn fn;
    void *ctx;
    int64_t begin, chunk, end;
    int nchunks, pending;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, NULL, NULL, 0, 0,
          0, 0, 0};

static _Thread_local int in_worker = 0;

static int default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
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
    pool.nthreads = n > MAX_THREADS ? MAX_THREADS : n; /* workers beyond n simply get no chunks */
    return 0;
}

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    uint64_t seen = 0;
    in_worker = 1;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (pool.generation == seen) pthread_cond_wait(&pool.work, &pool.mu);
        seen = pool.generation;
        if (id >= pool.nchunks) continue;
        int64_t b = pool.begin + id * pool.chunk, e = b + pool.chunk < pool.end ? b + pool.chunk : pool.end;
        wk_range_fn fn = pool.fn;
        void *ctx = pool.ctx;
        pthread_mutex_unlock(&pool.mu);
        if (b < e) fn(b, e, id, ctx);
        pthread_mutex_lock(&pool.mu);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

static void ensure_workers(int n) {
    while (pool.started < n - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, (void *)(intptr_t)(pool.started + 1)) != 0) break;
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
    if (nchunks <= 1 || in_worker) {
        fn(begin, end, 0, ctx);
        return;
    }
    pthread_mutex_lock(&pool.mu);
    ensure_workers(nchunks);
    if (pool.started < nchunks - 1) nchunks = pool.started + 1; /* could not start all: use what runs */
    pool.fn = fn;
    pool.ctx = ctx;
    pool.begin = begin;
    pool.end = end;
    pool.chunk = (n + nchunks - 1) / nchunks;
    pool.nchunks = nchunks;
    pool.pending = nchunks - 1;
    pool.generation++;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.mu);
    int64_t e0 = begin + pool.chunk < end ? begin + pool.chunk : end;
    in_worker = 1;
    fn(begin, e0, 0, ctx);
    in_worker = 0;
    pthread_mutex_lock(&pool.mu);
    while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
}
#endif
