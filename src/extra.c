/* extra.c — ops from the coverage ledger's gaps that belong to no other area (ops/extra.def): tensor queries, the
 * numpy-style split aliases, triangle indices, in-place resizing and restriding, fill_diagonal_, and the maths a
 * tutorial reaches for. Composites call the public ops, so the grad_fn they record is the one torch records. */
#include "autograd.h"
#include "iter.h"
#include "ops_impl.h"
#include "pointwise.h"

#define VEC_FAIL ((wk_tensorvec){NULL, 0})

/* ---- trivial spellings ------------------------------------------------------------------------------------------ */
wk_tensor *wk_impl_detach_fn(wk_tensor *self) { return wk_detach(self); }

wk_tensor *wk_impl_detach_fn_(wk_tensor *self) {
    if (wk_detach_(self) < 0) return NULL;
    return wk_retain(self);
}

/* torch: self.contiguous().view(-1) */
wk_tensor *wk_impl_ravel(wk_tensor *self) {
    wk_tensor *c = wk_contiguous(self);
    if (!c) return NULL;
    int64_t m1 = -1;
    wk_tensor *r = wk_view(c, wk_ints(&m1, 1));
    wk_release(c);
    return r;
}

/* torch: self.to(other.options()) */
wk_tensor *wk_impl_type_as(wk_tensor *self, wk_tensor *other) { return wk_to_other(self, other, false, false); }

int wk_impl_is_same_size(wk_tensor *self, wk_tensor *other, bool *result) {
    *result = self->ndim == other->ndim && !memcmp(self->sizes, other->sizes, sizeof(int64_t) * (size_t)self->ndim);
    return 0;
}

int wk_impl_is_inference(wk_tensor *self, bool *result) {
    *result = self->version->inference;
    return 0;
}

/* ---- hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-D) / 0 / 2 ------------------------------------- */
static int split_dims_check(const char *name, const wk_tensor *self, int need) {
    if (self->ndim < need) {
        wk__error(WK_RUNTIME_ERROR, "torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                                    "dimensions!", name, need, self->ndim);
        return -1;
    }
    return 0;
}

static wk_tensorvec split_int(const char *name, wk_tensor *self, int need, int64_t dim, int64_t sections) {
    if (split_dims_check(name, self, need) < 0) return VEC_FAIL;
    if (sections == 0 || self->sizes[dim] % sections != 0) {
        wk__error(WK_RUNTIME_ERROR, "torch.%s attempted to split along dimension %lld, but the size of the dimension "
                                    "%lld is not divisible by the split_size %lld!", name, (long long)dim,
                  (long long)self->sizes[dim], (long long)sections);
        return VEC_FAIL;
    }
    return wk_tensor_split_sections(self, sections, dim);
}

static wk_tensorvec split_array(const char *name, wk_tensor *self, int need, int64_t dim, wk_intlist indices) {
    if (split_dims_check(name, self, need) < 0) return VEC_FAIL;
    return wk_tensor_split_indices(self, indices, dim);
}

wk_tensorvec wk_impl_hsplit_int(wk_tensor *self, int64_t sections) {
    return split_int("hsplit", self, 1, self->ndim == 1 ? 0 : 1, sections);
}
wk_tensorvec wk_impl_hsplit_array(wk_tensor *self, wk_intlist indices) {
    return split_array("hsplit", self, 1, self->ndim == 1 ? 0 : 1, indices);
}
wk_tensorvec wk_impl_vsplit_int(wk_tensor *self, int64_t sections) { return split_int("vsplit", self, 2, 0, sections); }
wk_tensorvec wk_impl_vsplit_array(wk_tensor *self, wk_intlist indices) {
    return split_array("vsplit", self, 2, 0, indices);
}
wk_tensorvec wk_impl_dsplit_int(wk_tensor *self, int64_t sections) { return split_int("dsplit", self, 3, 2, sections); }
wk_tensorvec wk_impl_dsplit_array(wk_tensor *self, wk_intlist indices) {
    return split_array("dsplit", self, 3, 2, indices);
}

/* ---- tril_indices / triu_indices ---------------------------------------------------------------------------------
 * Row r of the lower triangle (c <= r + offset) holds clamp(r + offset + 1, 0, col) columns. The count is summed in
 * closed form (rows may be huge while the triangle is empty), in 128 bits. */
static __int128 tril_count(int64_t row, int64_t col, int64_t offset) {
    __int128 a = (__int128)offset + 1, total = 0;
    __int128 lo = a < 0 ? -a : 0;                   /* first row with a column */
    __int128 full = (__int128)col - a;              /* first row with every column */
    if (full < 0) full = 0;
    __int128 end = row;
    __int128 mid_end = full < end ? full : end;     /* rows [lo, mid_end) grow linearly */
    if (lo < mid_end) total += (mid_end - lo) * (lo + a + mid_end - 1 + a) / 2;
    if (full < end) total += (end - full) * (__int128)col;
    return total;
}

static wk_tensor *tri_indices(const char *name, int64_t row, int64_t col, int64_t offset, wk_dtype dtype, bool upper) {
    if (row < 0) return WK_FAIL(WK_RUNTIME_ERROR, "row must be non-negative, got%lld", (long long)row);
    if (col < 0) return WK_FAIL(WK_RUNTIME_ERROR, "col must be non-negative, got%lld", (long long)col);
    if (dtype == WK_DTYPE_NONE) dtype = WK_INT64;
    if (dtype != WK_INT64 && dtype != WK_INT32) {
        wk__not_implemented_for(name, dtype);
        return NULL;
    }
    /* upper (c >= r + offset) is everything but the lower triangle of offset - 1 */
    __int128 n = upper ? (__int128)row * col - tril_count(row, col, offset - 1) : tril_count(row, col, offset);
    if (n > INT64_MAX / 2) return WK_FAIL(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
    int64_t sizes[2] = {2, (int64_t)n};
    wk_tensor *t = wk__empty(2, sizes, dtype);
    if (!t) return NULL;
    char *p = wk__data(t); /* [2, n]: row indices, then column indices */
    int64_t k = 0;
    for (int64_t r = 0; r < row && k < n; r++) {
        int64_t c0, c1; /* columns [c0, c1) of row r */
        if (upper) {
            c0 = r + offset < 0 ? 0 : r + offset;
            c1 = col;
        } else {
            c0 = 0;
            c1 = r + offset + 1 > col ? col : r + offset + 1;
        }
        for (int64_t c = c0; c < c1; c++, k++) {
            if (dtype == WK_INT64) {
                ((int64_t *)p)[k] = r;
                ((int64_t *)p)[n + k] = c;
            } else {
                ((int32_t *)p)[k] = (int32_t)r;
                ((int32_t *)p)[n + k] = (int32_t)c;
            }
        }
    }
    return t;
}

wk_tensor *wk_impl_tril_indices(int64_t row, int64_t col, int64_t offset, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(tri_indices("tril_indices", row, col, offset, dtype, false), requires_grad);
}
wk_tensor *wk_impl_triu_indices(int64_t row, int64_t col, int64_t offset, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(tri_indices("triu_indices", row, col, offset, dtype, true), requires_grad);
}

/* ---- resize_ / resize_as_ ----------------------------------------------------------------------------------------
 * torch's resize_impl_cpu_: the same sizes keep the strides; otherwise the strides become contiguous and the storage
 * grows (in place, so views sharing it see the new bytes) to hold offset + numel elements. It never shrinks. */
static int resize_to(wk_tensor *self, int n, const int64_t *sizes) {
    if (wk__tensor_requires_grad(self)) {
        wk__error(WK_RUNTIME_ERROR, "cannot resize variables that require grad");
        return -1;
    }
    if (n > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, n);
        return -1;
    }
    uint64_t numel = 1;
    bool overflow = false;
    for (int i = 0; i < n; i++) overflow |= __builtin_mul_overflow(numel, (uint64_t)sizes[i], &numel);
    if (overflow || numel > (uint64_t)INT64_MAX) {
        wk__error(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) { /* torch lets [0, -1] through; wick keeps sizes non-negative */
            wk_strbuf b = {0};
            wk_sb_ints(&b, sizes, n);
            wk__error(WK_RUNTIME_ERROR, "Trying to create tensor with negative dimension %lld: %s", (long long)sizes[i],
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
    }
    if (n == self->ndim && !memcmp(sizes, self->sizes, sizeof(int64_t) * (size_t)n)) return 0; /* strides kept */
    int64_t bytes;
    if (numel && (__builtin_add_overflow((int64_t)numel, self->offset, &bytes) ||
                  __builtin_mul_overflow(bytes, (int64_t)wk_dtype_size(self->dtype), &bytes))) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, sizes, n);
        wk__error(WK_RUNTIME_ERROR, "Storage size calculation overflowed with sizes=%s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if (numel && wk__storage_grow(self->storage, (size_t)bytes) < 0) return -1;
    self->ndim = n;
    if (n) memcpy(self->sizes, sizes, sizeof(int64_t) * (size_t)n);
    wk__contiguous_strides(n, sizes, self->strides);
    wk__bump_version(self);
    return 0;
}

wk_tensor *wk_impl_resize_(wk_tensor *self, wk_intlist size) {
    if (size.len > WK_MAX_DIM)
        return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %lld", WK_MAX_DIM,
                       (long long)size.len);
    if (resize_to(self, (int)size.len, size.data) < 0) return NULL;
    return wk_retain(self);
}

wk_tensor *wk_impl_resize_as_(wk_tensor *self, wk_tensor *the_template) {
    if (resize_to(self, the_template->ndim, the_template->sizes) < 0) return NULL;
    return wk_retain(self);
}

/* ---- as_strided_: the view computed out of place (recording AsStridedBackward1), its geometry and history moved
 * into self (Note [In-place metadata ops] in shape.c) ---------------------------------------------------------------- */
wk_tensor *wk_impl_as_strided_(wk_tensor *self, wk_intlist size, wk_intlist stride, wk_optint storage_offset) {
    if (wk__check_inplace(self) < 0) return NULL;
    wk_tensor *r = wk__as_strided_meta(self, size, stride, storage_offset);
    if (!r) return NULL;
    self->ndim = r->ndim;
    memcpy(self->sizes, r->sizes, sizeof self->sizes);
    memcpy(self->strides, r->strides, sizeof self->strides);
    self->offset = r->offset;
    wk__bump_version(self);
    if (r->grad_fn) wk__set_history(self, r->grad_fn, r->output_nr); /* after the bump: a view stays fresh */
    wk_release(r);
    return wk_retain(self);
}

/* ---- fill_diagonal_: torch's composite: fill_ on an as_strided view of the diagonal (and of its wrapped
 * continuation for tall matrices), so the history is a CopySlices as in torch ------------------------------------ */
static int fill_strided(wk_tensor *self, int64_t size, int64_t stride, int64_t offset, wk_scalar v) {
    wk_tensor *d = wk_as_strided(self, wk_ints(&size, 1), wk_ints(&stride, 1), wk_some(offset));
    if (!d) return -1;
    wk_tensor *r = wk_fill_Scalar_(d, v);
    wk_release(d);
    if (!r) return -1;
    wk_release(r);
    return 0;
}

wk_tensor *wk_impl_fill_diagonal_(wk_tensor *self, wk_scalar fill_value, bool wrap) {
    int nd = self->ndim;
    if (nd < 2) return WK_FAIL(WK_RUNTIME_ERROR, "dimensions must larger than 1");
    int64_t height = self->sizes[0], width = self->sizes[1];
    if (nd > 2)
        for (int i = 1; i < nd; i++)
            if (self->sizes[i] != height) return WK_FAIL(WK_RUNTIME_ERROR, "all dimensions of input must be of equal length");
    int64_t size = height < width ? height : width, stride = 0;
    for (int i = 0; i < nd; i++) stride += self->strides[i];
    if (fill_strided(self, size, stride, self->offset, fill_value) < 0) return NULL;
    if (wrap && nd == 2 && height > width + 1) {
        int64_t step = width + 1;
        int64_t wrap_size = (wk__numel(self) + step - 1) / step - size;
        if (fill_strided(self, wrap_size, stride, self->offset + self->strides[0] * (width + 1), fill_value) < 0)
            return NULL;
    }
    return wk_retain(self);
}
