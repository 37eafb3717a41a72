/* iter.h — the strided iterator (in the spirit of ATen's TensorIterator).
 *
 * Operands (outputs first) must already have the same sizes (broadcast inputs with wk__expand_to first).
 * The iterator orders dimensions by the first operand's strides (innermost = smallest), coalesces dimensions
 * that are contiguous for every operand, and hands each contiguous-or-strided inner run to a loop function:
 * one function-pointer call per run, never per element. */
#ifndef WK_ITER_H
#define WK_ITER_H

#include "core/core.h"

#define WK_MAX_OPS 8

/* data[k]: pointer to operand k's first element of the run; strides[k]: its byte stride; n: run length. */
typedef void (*wk_loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

typedef struct {
    int nops;
    int ndim;                                  /* after coalescing; 0 means one element */
    int64_t shape[WK_MAX_DIM];                 /* shape[0] is the inner dimension */
    int64_t strides[WK_MAX_DIM][WK_MAX_OPS];   /* byte strides, [dim][operand] */
    char *data[WK_MAX_OPS];
    int64_t numel;
} wk_iter;

WK_INTERNAL int wk_iter_init(wk_iter *it, int nops, wk_tensor *const *ops);
WK_INTERNAL void wk_iter_run(const wk_iter *it, wk_loop_fn fn, void *ctx);
/* The same on the thread pool, in chunks of at least WK_GRAIN_SIZE elements (as ATen's GRAIN_SIZE), for loops whose
 * elements are independent (pure elementwise: each output element written once, ctx read-only). */
#define WK_GRAIN_SIZE 32768
WK_INTERNAL void wk_iter_run_parallel(const wk_iter *it, wk_loop_fn fn, void *ctx);
/* Allocates an output of `sizes` whose memory order follows the inputs' (as TensorIterator does: `x.t().exp()`
 * has x.t()'s strides). Inputs must already be expanded to `sizes`. */
WK_INTERNAL wk_tensor *wk_iter_alloc_output(int nin, wk_tensor *const *inputs, int ndim, const int64_t *sizes,
                                            wk_dtype dtype);
/* The same, told whether the inputs were broadcast to `sizes`: TensorIterator's fast set-up (a contiguous output for
 * contiguous inputs, their own strides for dense ones) needs every operand in the same shape, so `x[:0] * 2` (an
 * empty x beside a scalar) sorts the dims and a size-0 dim gives the dims outside it stride 0. */
WK_INTERNAL wk_tensor *wk_iter_alloc_output_ex(int nin, wk_tensor *const *inputs, int ndim, const int64_t *sizes,
                                               wk_dtype dtype, bool broadcast);
/* torch's empty_like(t, memory_format=preserve), as clone() and the *_like factories make it: t's own strides when t
 * is non-overlapping and dense (size-0 and size-1 dims keep theirs: x.unsqueeze(0).clone() has x's), else dense
 * strides in t's dim order (infer_dense_strides). dtype WK_DTYPE_NONE: t's. */
WK_INTERNAL wk_tensor *wk__empty_like_preserve(const wk_tensor *t, wk_dtype dtype);
/* Convenience: build and run in one go. */
WK_INTERNAL int wk_iter_apply(int nops, wk_tensor *const *ops, wk_loop_fn fn, void *ctx);

/* Elementwise cast loop from `src` dtype to `dst` dtype (operand 0 = dst, 1 = src). */
WK_INTERNAL wk_loop_fn wk_cast_loop(wk_dtype dst, wk_dtype src);

#endif
