/* sizes.c — the one place where sizes, strides and offsets become element counts and bytes, overflow-checked.
 *
 * Note [Size arithmetic]: every path that turns a geometry into a count or a byte size (factories, resize_ and
 * out=, as_strided, views, the loader's rebuild, safetensors offsets, wk_from_blob) goes through these functions,
 * so that no product or sum can wrap. They follow torch's c10 arithmetic (unsigned 64-bit, a sticky overflow flag,
 * the result capped at INT64_MAX) and raise torch's messages:
 *   numel                    TensorImpl::safe_compute_numel      "numel: integer multiplication overflow"
 *   contiguous storage bytes computeStorageNbytesContiguous      "Storage size calculation overflowed with sizes=[..]"
 *   strided storage bytes    computeStorageNbytes                "... with sizes=[..] and strides=[..]"
 *   a geometry in a storage  checkInBoundsForStorage             "setStorage: sizes [..], strides [..], ..." */
#include "core.h"

static bool over_max(uint64_t v) { return v > (uint64_t)INT64_MAX; }

int wk__numel_checked(int ndim, const int64_t *sizes, int64_t *out) {
    uint64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) overflow |= __builtin_mul_overflow(n, (uint64_t)sizes[i], &n);
    if (overflow || over_max(n)) {
        wk__error(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
        return -1;
    }
    if (out) *out = (int64_t)n;
    return 0;
}

static void overflow_error(int ndim, const int64_t *sizes, const int64_t *strides) {
    wk_strbuf a = {0}, b = {0};
    wk_sb_ints(&a, sizes, ndim);
    if (strides) {
        wk_sb_ints(&b, strides, ndim);
        wk__error(WK_RUNTIME_ERROR, "Storage size calculation overflowed with sizes=%s and strides=%s", a.s ? a.s : "",
                  b.s ? b.s : "");
    } else {
        wk__error(WK_RUNTIME_ERROR, "Storage size calculation overflowed with sizes=%s", a.s ? a.s : "");
    }
    wk_sb_free(&a);
    wk_sb_free(&b);
}

int wk__storage_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset, size_t itemsize,
                       int64_t *out) {
    bool overflow = offset < 0;
    uint64_t n;
    if (!strides) { /* (prod(sizes) + offset) * itemsize */
        n = 1;
        for (int i = 0; i < ndim; i++) overflow |= __builtin_mul_overflow(n, (uint64_t)sizes[i], &n);
        overflow |= __builtin_add_overflow(n, (uint64_t)offset, &n);
    } else { /* (offset + 1 + sum((size - 1) * stride)) * itemsize; 0 when any size is 0 */
        for (int i = 0; i < ndim; i++)
            if (sizes[i] == 0) {
                *out = 0;
                return 0;
            }
        overflow |= __builtin_add_overflow((uint64_t)offset, (uint64_t)1, &n);
        for (int i = 0; i < ndim; i++) {
            uint64_t step;
            overflow |= sizes[i] < 0 || strides[i] < 0;
            overflow |= __builtin_mul_overflow((uint64_t)strides[i], (uint64_t)(sizes[i] - 1), &step);
            overflow |= __builtin_add_overflow(n, step, &n);
        }
    }
    overflow |= __builtin_mul_overflow(n, (uint64_t)itemsize, &n);
    if (overflow || over_max(n)) {
        overflow_error(ndim, sizes, strides);
        return -1;
    }
    *out = (int64_t)n;
    return 0;
}

int wk__check_in_storage(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset, size_t itemsize,
                         size_t storage_nbytes) {
    int64_t span; /* bytes from the offset to one past the last element */
    if (wk__storage_nbytes(ndim, sizes, strides, 0, itemsize, &span) < 0) return -1;
    if (offset < 0) {
        wk__error(WK_RUNTIME_ERROR, "Tensor: invalid storage offset %lld", (long long)offset);
        return -1;
    }
    if (span == 0) return wk__numel_checked(ndim, sizes, NULL); /* an empty geometry fits any storage */
    int64_t off_bytes, need;
    if (__builtin_mul_overflow(offset, (int64_t)itemsize, &off_bytes) || __builtin_add_overflow(span, off_bytes, &need)) {
        overflow_error(ndim, sizes, strides);
        return -1;
    }
    if ((uint64_t)need > storage_nbytes) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, sizes, ndim);
        wk_sb_ints(&b, strides, ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %zu requiring a storage size of "
                  "%lld are out of bounds for storage of size %zu",
                  a.s ? a.s : "", b.s ? b.s : "", (long long)offset, itemsize, (long long)need, storage_nbytes);
        wk_sb_free(&a);
        wk_sb_free(&b);
        return -1;
    }
    return wk__numel_checked(ndim, sizes, NULL);
}
