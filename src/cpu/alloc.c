/* alloc.c — Note [Caching allocator]: tensor storage comes from size-bucketed free lists, so a training loop,
 * which frees and re-allocates the same sizes every step, stops calling malloc (and stops faulting in fresh
 * pages for large buffers). A request is rounded up to its size class (multiples of 64 bytes up to 1 KiB, then
 * four classes per power of two, so at most 25% is wasted); a freed block goes on its class's list, and the next
 * request of that class takes it back. The lists are guarded by one mutex. At most CACHE_LIMIT bytes stay
 * cached; beyond that a freed block goes back to the system. Everything cached is freed at exit.
 *
 * Blocks of HUGE_MIN bytes or more are 2 MiB aligned and advised as transparent huge pages (Linux): a 16 MB
 * tensor then takes 8 page faults instead of 4096 when fresh, and streaming over it walks 8 TLB entries instead of
 * 4096 (measured: a + b and sum over 16 MB 3-5% faster on one thread in this VM).
 *
 * Bypass: built with AddressSanitizer (so use-after-free and leak checks see every block), or with the
 * environment variable WICK_NO_CACHING_ALLOC=1 set when the first tensor is allocated, blocks go straight to
 * aligned_alloc / free. */
#include "cpu/alloc.h"

#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#ifndef WK_NO_THREADS
#include <pthread.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define WK_ALLOC_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WK_ALLOC_BYPASS 1
#endif
#endif

#define NCLASSES (16 + 4 * 54)
#define CACHE_LIMIT ((size_t)256 << 20)

typedef struct block {
    struct block *next;
} block;

static struct {
    block *free[NCLASSES]; /* per class: the cached blocks, linked through their first bytes */
    size_t cached;         /* bytes held in the lists */
    int mode;              /* 0: not decided yet, 1: caching, 2: bypass */
#ifndef WK_NO_THREADS
    pthread_mutex_t mu;
#endif
} cache = {
#ifndef WK_NO_THREADS
    .mu = PTHREAD_MUTEX_INITIALIZER,
#endif
};

static void lock(void) {
#ifndef WK_NO_THREADS
    pthread_mutex_lock(&cache.mu);
#endif
}
static void unlock(void) {
#ifndef WK_NO_THREADS
    pthread_mutex_unlock(&cache.mu);
#endif
}

/* n > 0 rounded up to its class; *idx gets the class, or -1 when the size is too large to cache */
static size_t size_class(size_t n, int *idx) {
    if (n <= 1024) {
        size_t c = (n + 63) / 64; /* 1..16 */
        *idx = (int)c - 1;
        return c * 64;
    }
    int k = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^k < n <= 2^(k+1), k >= 10 */
    if (k >= 10 + 54 || k > 60) {
        *idx = -1;
        return n;
    }
    size_t step = (size_t)1 << (k - 2), c = (n + step - 1) / step; /* 5..8 */
    *idx = 16 + (k - 10) * 4 + (int)(c - 5);
    return c * step;
}

static void at_exit(void) { wk__cache_empty(); }

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#endif

/* a new block of class size sz */
static void *block_new(size_t sz) {
#ifdef HUGE_MIN
    if (sz >= HUGE_MIN) {
        size_t full = (sz + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = aligned_alloc(HUGE_PAGE, full);
        if (p) madvise(p, full, MADV_HUGEPAGE); /* advice only: failure changes nothing */
        return p;
    }
#endif
    return aligned_alloc(64, sz);
}

static int mode(void) {
    if (cache.mode) return cache.mode;
    lock();
    if (!cache.mode) {
#ifdef WK_ALLOC_BYPASS
        cache.mode = 2;
#else
        const char *e = getenv("WICK_NO_CACHING_ALLOC");
        cache.mode = e && *e && strcmp(e, "0") ? 2 : 1;
        if (cache.mode == 1) atexit(at_exit);
#endif
    }
    unlock();
    return cache.mode;
}

void *wk__cache_alloc(size_t n) {
    int idx;
    size_t sz = size_class(n, &idx);
    if (mode() == 2 || idx < 0) return aligned_alloc(64, (n + 63) & ~(size_t)63);
    lock();
    block *b = cache.free[idx];
    if (b) {
        cache.free[idx] = b->next;
        cache.cached -= sz;
    }
    unlock();
    return b ? (void *)b : block_new(sz);
}

void wk__cache_free(void *p, size_t n) {
    if (!p) return;
    int idx;
    size_t sz = size_class(n, &idx);
    if (mode() == 2 || idx < 0) {
        free(p);
        return;
    }
    lock();
    if (cache.cached + sz <= CACHE_LIMIT) {
        block *b = p;
        b->next = cache.free[idx];
        cache.free[idx] = b;
        cache.cached += sz;
        p = NULL;
    }
    unlock();
    free(p);
}

void wk__cache_empty(void) {
    lock();
    for (int i = 0; i < NCLASSES; i++) {
        block *b = cache.free[i];
        while (b) {
            block *next = b->next;
            free(b);
            b = next;
        }
        cache.free[i] = NULL;
    }
    cache.cached = 0;
    unlock();
}
