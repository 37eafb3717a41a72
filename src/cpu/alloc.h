/* alloc.h — the caching allocator for tensor storage (Note [Caching allocator], alloc.c). */
#ifndef WK_ALLOC_H
#define WK_ALLOC_H

#include "core/core.h"

/* 64-byte aligned block of at least n bytes (n > 0), or NULL. Free it with wk__cache_free(p, n), same n. */
WK_INTERNAL void *wk__cache_alloc(size_t n);
WK_INTERNAL void wk__cache_free(void *p, size_t n);
/* The same, every byte 0: fresh big blocks are mapped zero pages, written only by their user (Note [Lazy zero
 * pages], alloc.c); any other block is cleared with memset. */
WK_INTERNAL void *wk__cache_alloc_zeroed(size_t n);
/* Returns every cached block to the system (also runs at exit). */
WK_INTERNAL void wk__cache_empty(void);

#endif
