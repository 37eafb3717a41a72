/* alloc.c — Note [Caching allocator]: tensor storage comes from size-bucketed free lists, so a training loop,
 * which frees and re-allocates the same sizes every step, stops calling malloc (and stops faulting in fresh
 * pages for large buffers). A request is rounded up to its size class (multiples of 64 bytes up to 1 KiB, then
 * four classes per power of two, so at most 25% is wasted); a freed block goes on its class's list, and the next
 * request of that class takes it back. The lists are guarded by one mutex. At most CACHE_LIMIT bytes stay
 * cached; beyond that a freed block goes back to the system. Everything cached is freed at exit.
 *
 * Note [Lazy zero pages]: blocks of MAP_MIN bytes or more (Linux, not under ASan) are mapped with mmap, 2 MiB
 * aligned and advised as transparent huge pages: a 16 MB tensor then takes 8 page faults instead of 4096 when
 * fresh, and streaming over it walks 8 TLB entries instead of 4096 (measured: a + b and sum over 16 MB 3-5% faster
 * on one thread in this VM). A fresh mapping reads as zeros and costs no memory until a page is touched, so
 * wk__cache_alloc_zeroed writes nothing into one: zeros(n) / empty(n) / the legacy Tensor(n) of 8 GiB touch no page
 * (torch's empty leaves its glibc mmap untouched the same way). Any other block (cached, or small from
 * aligned_alloc) may hold old bytes and is cleared with memset.
 *
 * Bypass: built with AddressSanitizer (so use-after-free and leak checks see every block, none mapped), or with the
 * environment variable WICK_NO_CACHING_ALLOC=1 set when the first tensor is allocated, blocks go straight to
 * aligned_alloc / free (big ones to mmap / munmap outside ASan). */
#include "cpu/alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* the size of class idx (the inverse of size_class) */
static size_t class_size(int idx) {
    if (idx < 16) return (size_t)(idx + 1) * 64;
    int j = idx - 16, k = 10 + j / 4;
    return (size_t)(5 + j % 4) << (k - 2);
}

#if defined(__linux__) && !defined(__EMSCRIPTEN__) && !defined(WK_ALLOC_BYPASS)
#define MAP_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#endif

/* whether a block of sz bytes (its class size, or its 64-byte rounded size when not cached) is mapped */
static bool is_mapped(size_t sz) {
#ifdef MAP_MIN
    return sz >= MAP_MIN;
#else
    WK_UNUSED(sz);
    return false;
#endif
}

#ifdef MAP_MIN
static size_t map_len(size_t sz) { return (sz + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1); }

/* sz bytes of fresh zero pages, 2 MiB aligned: map one huge page more, then unmap the ends around the aligned part */
static void *map_new(size_t sz) {
    if (sz > SIZE_MAX / 2) return NULL;
    size_t len = map_len(sz);
    char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    size_t head = (size_t)(p - raw); /* a multiple of the page size, < HUGE_PAGE */
    if (head) munmap(raw, head);
    if (HUGE_PAGE - head) munmap(p + len, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* advice only: failure changes nothing */
#endif
    return p;
}
#endif

/* a new block of sz bytes; *fresh_zero tells whether every byte is known to be 0 (a fresh mapping) */
static void *block_new(size_t sz, bool *fresh_zero) {
#ifdef MAP_MIN
    if (is_mapped(sz)) {
        *fresh_zero = true;
        return map_new(sz);
    }
#endif
    *fresh_zero = false;
    return aligned_alloc(64, sz);
}

static void block_del(void *p, size_t sz) {
#ifdef MAP_MIN
    if (is_mapped(sz)) {
        munmap(p, map_len(sz));
        return;
    }
#else
    WK_UNUSED(sz);
#endif
    free(p);
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

/* the block for a request of n bytes: its size class, or n rounded to 64 bytes when the block is not cached (*idx
 * -1: bypass mode, or too large for a class) */
static size_t block_size(size_t n, int *idx) {
    size_t sz = size_class(n, idx);
    if (mode() == 2 || *idx < 0) {
        *idx = -1;
        return n > SIZE_MAX - 63 ? SIZE_MAX & ~(size_t)63 : (n + 63) & ~(size_t)63;
    }
    return sz;
}

static void *alloc_block(size_t n, bool *fresh_zero) {
    int idx;
    size_t sz = block_size(n, &idx);
    if (idx < 0) return block_new(sz, fresh_zero);
    lock();
    block *b = cache.free[idx];
    if (b) {
        cache.free[idx] = b->next;
        cache.cached -= sz;
    }
    unlock();
    if (!b) return block_new(sz, fresh_zero);
    *fresh_zero = false;
    return b;
}

void *wk__cache_alloc(size_t n) {
    bool fresh_zero;
    return alloc_block(n, &fresh_zero);
}

void *wk__cache_alloc_zeroed(size_t n) {
    bool fresh_zero;
    void *p = alloc_block(n, &fresh_zero);
    if (p && !fresh_zero) memset(p, 0, n);
    return p;
}

void wk__cache_free(void *p, size_t n) {
    if (!p) return;
    int idx;
    size_t sz = block_size(n, &idx);
    if (idx >= 0) {
        lock();
        if (cache.cached + sz <= CACHE_LIMIT) {
            block *b = p;
            b->next = cache.free[idx];
            cache.free[idx] = b;
            cache.cached += sz;
            p = NULL;
        }
        unlock();
    }
    if (p) block_del(p, sz);
}

void wk__cache_empty(void) {
    lock();
    for (int i = 0; i < NCLASSES; i++) {
        block *b = cache.free[i];
        while (b) {
            block *next = b->next;
            block_del(b, class_size(i));
            b = next;
        }
        cache.free[i] = NULL;
    }
    cache.cached = 0;
    unlock();
}
