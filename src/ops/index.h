/* index.h — what other modules may use from the indexing core (src/ops/index.c). */
#ifndef WK_INDEX_H
#define WK_INDEX_H

#include "core/core.h"

/* c10's checked_convert: the Python scalar must fit the dtype, else RuntimeError
 * "value cannot be converted to type int8_t without overflow". Half, BFloat16 and bool are never refused; uint8
 * takes negative integers down to -255 (they wrap), floats must lie in [lowest, max] (inf/nan only for floats). */
WK_INTERNAL int wk__check_scalar_fits(wk_scalar s, wk_dtype dt);
/* A 0-d tensor of dtype dt holding s, checked as above (torch's scalarToTensor in setitem). */
WK_INTERNAL wk_tensor *wk__scalar_tensor_checked(wk_scalar s, wk_dtype dt);

/* torch's memory-overlap checks (ATen MemOverlap): the written-to tensor `out` must not share memory with `in`. */
WK_INTERNAL int wk__assert_no_internal_overlap(const wk_tensor *out);
WK_INTERNAL int wk__assert_no_partial_overlap(const wk_tensor *out, const wk_tensor *in);
WK_INTERNAL int wk__assert_no_overlap(const wk_tensor *out, const wk_tensor *in);

#endif
