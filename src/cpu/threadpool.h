/* threadpool.h — a persistent pool of worker threads and parallel_for (serial where threads do not exist).
 * Results must not depend on the thread count where torch's do not: kernels split work into disjoint output
 * ranges and never change the order of a floating-point reduction with the number of threads. */
#ifndef WK_THREADPOOL_H
#define WK_THREADPOOL_H

#include "core/core.h"

/* fn(begin, end, thread_id, ctx) runs on disjoint chunks of [begin, end); chunks have at least `grain` items.
 * Called from inside a worker it runs serially (no nested parallelism). */
#define WK_MAX_THREADS 64 /* wk_get_num_threads() is at most this */
typedef void (*wk_range_fn)(int64_t begin, int64_t end, int tid, void *ctx);
WK_INTERNAL void wk_parallel_for(int64_t begin, int64_t end, int64_t grain, wk_range_fn fn, void *ctx);
WK_API int wk_get_num_threads(void);
WK_API int wk_set_num_threads(int n); /* torch.set_num_threads; n >= 1 */

#endif
