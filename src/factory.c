/* factory.c — zeros, ones, full, zeros_like, ... */
#include "autograd.h"
#include "ops_impl.h"

/* The common tail of every factory: requires_grad=True checks the dtype like torch. */
wk_tensor *wk__finish_factory(wk_tensor *t, bool requires_grad) {
    if (t && requires_grad && wk_requires_grad_(t, true) < 0) {
        wk_release(t);
        wk__error(WK_RUNTIME_ERROR, "Only Tensors of floating point and complex dtype can require gradients");
        return NULL;
    }
    return t;
}

static wk_dtype or_default(wk_dtype d) { return d == WK_DTYPE_NONE ? wk_get_default_dtype() : d; }

wk_tensor *wk_impl_zeros(wk_intlist size, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(wk__zeros((int)size.len, size.data, or_default(dtype)), requires_grad);
}

wk_tensor *wk_impl_ones(wk_intlist size, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(wk__full((int)size.len, size.data, or_default(dtype), wk_int(1)), requires_grad);
}

wk_tensor *wk_impl_full(wk_intlist size, wk_scalar fill_value, wk_dtype dtype, bool requires_grad) {
    if (dtype == WK_DTYPE_NONE) dtype = wk__scalar_dtype(fill_value);
    return wk__finish_factory(wk__full((int)size.len, size.data, dtype, fill_value), requires_grad);
}

wk_tensor *wk_impl_zeros_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(wk__zeros(self->ndim, self->sizes, dtype == WK_DTYPE_NONE ? self->dtype : dtype),
                              requires_grad);
}
