/* copy.c — the out-of-place forms of copy_, fill_ and zero_ (the generated in-place wrappers write them into self). */
#include "ops/index.h"
#include "ops_impl.h"

wk_tensor *wk_impl_copy(wk_tensor *self, wk_tensor *src, bool non_blocking) {
    WK_UNUSED(non_blocking);
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(self->ndim, self->sizes, src->ndim, src->sizes, &nd, shape) < 0) return NULL;
    if (nd != self->ndim || memcmp(shape, self->sizes, sizeof(int64_t) * (size_t)nd)) { /* torch's TensorIterator */
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, self->sizes, self->ndim);
        wk_sb_ints(&b, shape, nd);
        wk__error(WK_RUNTIME_ERROR, "output with shape %s doesn't match the broadcast shape %s", a.s, b.s);
        wk_sb_free(&a);
        wk_sb_free(&b);
        return NULL;
    }
    wk_tensor *r = wk__empty(self->ndim, self->sizes, self->dtype);
    if (r && wk__copy_(r, src) < 0) { /* src must broadcast to self's shape (not the other way) */
        wk_release(r);
        return NULL;
    }
    return r;
}

wk_tensor *wk_impl_fill_Scalar(wk_tensor *self, wk_scalar value) {
    /* torch's value.to<scalar_t>() overflow check; one-element half/bfloat16 tensors take its unchecked scalar_fill */
    bool one = wk__numel(self) == 1;
    if (!(one && (self->dtype == WK_FLOAT16 || self->dtype == WK_BFLOAT16)) && wk__check_scalar_fits(value, self->dtype) < 0)
        return NULL;
    return wk__full(self->ndim, self->sizes, self->dtype, value);
}

wk_tensor *wk_impl_fill_Tensor(wk_tensor *self, wk_tensor *value) {
    if (value->ndim != 0) {
        wk__error(WK_RUNTIME_ERROR,
                  "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.", value->ndim);
        return NULL;
    }
    wk_scalar v;
    if (wk_item(value, &v) < 0) return NULL;
    return wk__full(self->ndim, self->sizes, self->dtype, v);
}

wk_tensor *wk_impl_zero(wk_tensor *self) { return wk__zeros(self->ndim, self->sizes, self->dtype); }
