/* reduce.h — the reduction framework: dim lists, output shapes, accumulation over reduced dims. */
#ifndef WK_REDUCE_H
#define WK_REDUCE_H

#include "iter.h"

/* Parses a `dim` argument (None or empty = all dims) into a mask over self's dims, with torch's errors.
 * Returns the number of reduced dims or -1. */
WK_INTERNAL int wk__reduce_mask(const wk_tensor *self, wk_intlist dim, bool *mask);
/* The output shape of a reduction: reduced dims become 1 (keepdim) or vanish. */
WK_INTERNAL int wk__reduce_shape(const wk_tensor *self, const bool *mask, bool keepdim, int64_t *out);
/* A view of `acc` (keepdim shape) expanded to self's shape, with stride 0 in reduced dims: iterating it together
 * with self visits every input element once and accumulates into its output slot. */
WK_INTERNAL wk_tensor *wk__reduce_view(const wk_tensor *acc_keepdim, const wk_tensor *self);
/* Drops the reduced dims of a keepdim-shaped result (a view). */
WK_INTERNAL wk_tensor *wk__squeeze_mask(const wk_tensor *t, const bool *mask);

#endif
