/* shape.c — views and shape ops: view, reshape, expand, t, contiguous, clone, to(dtype). */
#include "autograd.h"
#include "iter.h"
#include "ops_impl.h"

/* Resolves a requested shape against numel: one -1 is inferred. torch's infer_size. */
static int infer_size(wk_intlist shape, int64_t numel, int64_t *out) {
    int infer = -1;
    int64_t prod = 1;
    if (shape.len > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %lld", WK_MAX_DIM,
                  (long long)shape.len);
        return -1;
    }
    for (int64_t i = 0; i < shape.len; i++) {
        int64_t s = shape.data[i];
        if (s == -1) {
            if (infer >= 0) {
                wk__error(WK_RUNTIME_ERROR, "only one dimension can be inferred");
                return -1;
            }
            infer = (int)i;
        } else if (s >= 0) {
            prod *= s;
        } else {
            wk__error(WK_RUNTIME_ERROR, "invalid shape dimension %lld", (long long)s);
            return -1;
        }
        out[i] = s;
    }
    if (numel == prod || (infer >= 0 && prod > 0 && numel % prod == 0)) {
        if (infer >= 0) {
            if (prod == 0) goto bad; /* cannot infer with a zero-size dim */
            out[infer] = numel / prod;
        }
        return 0;
    }
bad:;
    wk_strbuf b = {0};
    wk_sb_ints(&b, shape.data, (int)shape.len);
    wk__error(WK_RUNTIME_ERROR, "shape '%s' is invalid for input of size %lld", b.s, (long long)numel);
    wk_sb_free(&b);
    return -1;
}

/* torch's computeStride: strides for viewing (sizes, strides) as new_sizes without copying, or false. */
static bool compute_stride(const wk_tensor *t, int nn, const int64_t *nsizes, int64_t *nstrides) {
    int64_t numel = wk__numel(t);
    if (numel == 0) {
        wk__contiguous_strides(nn, nsizes, nstrides);
        return true;
    }
    int view_d = nn - 1;
    int64_t chunk_base_stride = t->ndim ? t->strides[t->ndim - 1] : 1;
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = t->ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= t->sizes[tensor_d];
        if (tensor_d == 0 || (t->sizes[tensor_d - 1] != 1 && t->strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || nsizes[view_d] == 1)) {
                nstrides[view_d] = view_numel * chunk_base_stride;
                view_numel *= nsizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (tensor_d > 0) {
                chunk_base_stride = t->strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

wk_tensor *wk_impl_view(wk_tensor *self, wk_intlist size) {
    int64_t shape[WK_MAX_DIM], strides[WK_MAX_DIM];
    if (infer_size(size, wk__numel(self), shape) < 0) return NULL;
    int nn = (int)size.len;
    if (!compute_stride(self, nn, shape, strides)) {
        wk__error(WK_RUNTIME_ERROR, "view size is not compatible with input tensor's size and stride (at least one "
                                    "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return wk__alias(self, nn, shape, strides, self->offset);
}

wk_tensor *wk_impl__unsafe_view(wk_tensor *self, wk_intlist size) { return wk_impl_view(self, size); }

wk_tensor *wk_impl_reshape(wk_tensor *self, wk_intlist shape) {
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    if (infer_size(shape, wk__numel(self), sizes) < 0) return NULL;
    if (compute_stride(self, (int)shape.len, sizes, strides)) return wk_view(self, wk_ints(sizes, shape.len));
    wk_tensor *r = wk_clone_contiguous(self);
    if (!r) return NULL;
    wk_tensor *v = wk__unsafe_view(r, wk_ints(sizes, shape.len));
    wk_release(r);
    return v;
}

wk_tensor *wk_impl_expand(wk_tensor *self, wk_intlist size, bool implicit) {
    WK_UNUSED(implicit);
    int n = (int)size.len;
    if (n < self->ndim) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, size.data, n);
        wk__error(WK_RUNTIME_ERROR,
                  "expand(%s{[%s]}, size=%s): the number of sizes provided (%d) must be greater or equal to the number "
                  "of dimensions in the tensor (%d)",
                  wk__legacy_type_name(self->dtype), "", b.s, n, self->ndim);
        wk_sb_free(&b);
        return NULL;
    }
    if (n > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    int64_t sizes[WK_MAX_DIM];
    for (int i = 0; i < n; i++) {
        int j = i - (n - self->ndim);
        int64_t s = size.data[i];
        if (s == -1) {
            if (j < 0) {
                wk__error(WK_RUNTIME_ERROR,
                          "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %d", i);
                return NULL;
            }
            s = self->sizes[j];
        } else if (s < -1) {
            wk_strbuf b = {0};
            wk_sb_ints(&b, size.data, n);
            wk__error(WK_RUNTIME_ERROR, "Trying to create tensor with negative dimension %lld: %s", (long long)s, b.s);
            wk_sb_free(&b);
            return NULL;
        }
        sizes[i] = s;
    }
    return wk__expand_to(self, n, sizes);
}

wk_tensor *wk_impl_t(wk_tensor *self) {
    if (self->ndim > 2) {
        wk__error(WK_RUNTIME_ERROR, "t() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim);
        return NULL;
    }
    if (self->ndim < 2) return wk__alias(self, self->ndim, self->sizes, self->strides, self->offset);
    int64_t sizes[2] = {self->sizes[1], self->sizes[0]}, strides[2] = {self->strides[1], self->strides[0]};
    return wk__alias(self, 2, sizes, strides, self->offset);
}

wk_tensor *wk_impl_contiguous(wk_tensor *self) {
    if (wk__is_contiguous(self)) return wk_retain(self);
    return wk_clone_contiguous(self);
}

wk_tensor *wk_impl_clone_contiguous(wk_tensor *self) { return wk__clone(self); }

wk_tensor *wk_impl_clone(wk_tensor *self) {
    wk_tensor *ins[1] = {self};
    wk_tensor *c = wk_iter_alloc_output(1, ins, self->ndim, self->sizes, self->dtype);
    if (c && wk__copy_(c, self) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

wk_tensor *wk_impl_to_dtype(wk_tensor *self, wk_dtype dtype, bool non_blocking, bool copy) {
    WK_UNUSED(non_blocking);
    if (dtype < 0 || dtype >= WK_NUM_DTYPES) return WK_FAIL(WK_TYPE_ERROR, "to(): invalid dtype");
    if (dtype == self->dtype && !copy) return wk_retain(self);
    if (dtype == self->dtype) return wk_clone(self);
    return wk__to_copy(self, dtype);
}

wk_tensor *wk_impl__to_copy(wk_tensor *self, wk_dtype dtype) { return wk__to_dtype(self, dtype); }
