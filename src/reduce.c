/* reduce.c — sum, mean and the reduction framework (reduce.h). */
#include "reduce.h"

#include "cpu/loops.h"
#include "ops_impl.h"

int wk__reduce_mask(const wk_tensor *self, wk_intlist dim, bool *mask) {
    int nd = self->ndim;
    for (int i = 0; i < nd; i++) mask[i] = false;
    if (!dim.data || dim.len <= 0) {
        for (int i = 0; i < nd; i++) mask[i] = true;
        return nd;
    }
    int count = 0;
    for (int64_t k = 0; k < dim.len; k++) {
        int64_t d;
        if (wk__wrap_dim(dim.data[k], nd, &d) < 0) return -1;
        if (nd == 0) continue;
        if (mask[d]) {
            wk__error(WK_RUNTIME_ERROR, "dim %lld appears multiple times in the list of dims", (long long)d);
            return -1;
        }
        mask[d] = true;
        count++;
    }
    return count;
}

int wk__reduce_shape(const wk_tensor *self, const bool *mask, bool keepdim, int64_t *out) {
    int n = 0;
    for (int i = 0; i < self->ndim; i++) {
        if (!mask[i]) out[n++] = self->sizes[i];
        else if (keepdim) out[n++] = 1;
    }
    return n;
}

wk_tensor *wk__reduce_view(const wk_tensor *acc, const wk_tensor *self) {
    int64_t strides[WK_MAX_DIM];
    for (int i = 0; i < self->ndim; i++) strides[i] = acc->sizes[i] == 1 ? 0 : acc->strides[i];
    return wk__alias(acc, self->ndim, self->sizes, strides, acc->offset);
}

wk_tensor *wk__squeeze_mask(const wk_tensor *t, const bool *mask) {
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (!mask[i]) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return wk__alias(t, n, sizes, strides, t->offset);
}

/* accumulate: acc (double or int64) += x */
#define SUM_ACC_LOOP(NAME, ST_T, ACC_T, LD)                                          \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx) {             \
        (void)ctx;                                                                   \
        if (s[0] == 0) {                                                             \
            ACC_T acc = *(ACC_T *)d[0];                                              \
            const char *p = d[1];                                                    \
            for (int64_t i = 0; i < n; i++, p += s[1]) acc += (ACC_T)LD(*(const ST_T *)p); \
            *(ACC_T *)d[0] = acc;                                                    \
            return;                                                                  \
        }                                                                            \
        char *o = d[0];                                                              \
        const char *p = d[1];                                                        \
        for (int64_t i = 0; i < n; i++, o += s[0], p += s[1]) *(ACC_T *)o += (ACC_T)LD(*(const ST_T *)p); \
    }
SUM_ACC_LOOP(sum_f32, float, double, WK_LD_ID)
SUM_ACC_LOOP(sum_f64, double, double, WK_LD_ID)
SUM_ACC_LOOP(sum_f16, uint16_t, double, WK_LD_F16)
SUM_ACC_LOOP(sum_bf16, uint16_t, double, WK_LD_BF16)
SUM_ACC_LOOP(sum_u8, uint8_t, int64_t, WK_LD_I)
SUM_ACC_LOOP(sum_i8, int8_t, int64_t, WK_LD_I)
SUM_ACC_LOOP(sum_i16, int16_t, int64_t, WK_LD_I)
SUM_ACC_LOOP(sum_i32, int32_t, int64_t, WK_LD_I)
SUM_ACC_LOOP(sum_i64, uint64_t, uint64_t, WK_LD_I)
static const wk_loop_fn SUM_ACC[WK_NUM_DTYPES] = {
    [WK_BOOL] = sum_u8,  [WK_UINT8] = sum_u8,     [WK_INT8] = sum_i8,      [WK_INT16] = sum_i16, [WK_INT32] = sum_i32,
    [WK_INT64] = sum_i64, [WK_FLOAT16] = sum_f16, [WK_BFLOAT16] = sum_bf16, [WK_FLOAT32] = sum_f32, [WK_FLOAT64] = sum_f64,
};

/* Sums self over the masked dims into a new keepdim-shaped tensor of `out_dtype`. */
static wk_tensor *sum_keepdim(const wk_tensor *self, const bool *mask, wk_dtype out_dtype) {
    int64_t shape[WK_MAX_DIM];
    int nd = wk__reduce_shape(self, mask, true, shape);
    bool fl = wk_dtype_is_floating(self->dtype) || wk_dtype_is_floating(out_dtype);
    wk_tensor *src = (wk_tensor *)self, *cast = NULL;
    if (wk_dtype_is_floating(out_dtype) && !wk_dtype_is_floating(self->dtype)) {
        cast = wk__to_dtype(self, WK_FLOAT64); /* sum(int_tensor, dtype=float) */
        if (!cast) return NULL;
        src = cast;
    }
    wk_tensor *acc = wk__zeros(nd, shape, fl ? WK_FLOAT64 : WK_INT64);
    wk_tensor *view = acc ? wk__reduce_view(acc, src) : NULL;
    wk_tensor *out = NULL;
    if (view) {
        wk_tensor *ops[2] = {view, src};
        wk_iter_apply(2, ops, SUM_ACC[src->dtype], NULL);
        out = wk__to_dtype(acc, out_dtype);
    }
    wk_release(view);
    wk_release(acc);
    wk_release(cast);
    return out;
}

static wk_dtype sum_dtype(const wk_tensor *self, wk_dtype dtype) {
    if (dtype != WK_DTYPE_NONE) return dtype;
    return wk_dtype_is_integral(self->dtype, true) ? WK_INT64 : self->dtype;
}

wk_tensor *wk_impl_sum_dim(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    wk_tensor *k = sum_keepdim(self, mask, sum_dtype(self, dtype));
    if (!k || keepdim) return k;
    wk_tensor *r = wk__squeeze_mask(k, mask);
    wk_release(k);
    return r;
}

wk_tensor *wk_impl_sum(wk_tensor *self, wk_dtype dtype) { return wk_impl_sum_dim(self, wk_none_ints(), false, dtype); }

static int mean_check(const wk_tensor *self, wk_dtype dtype, const char *name) {
    wk_dtype d = dtype != WK_DTYPE_NONE ? dtype : self->dtype;
    if (!wk_dtype_is_floating(d)) {
        wk__error(WK_RUNTIME_ERROR,
                  "%s(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. "
                  "Got: %s",
                  name, dtype != WK_DTYPE_NONE ? "Optional" : "Input", wk_dtype_scalar_name(d));
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_mean_dim(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    if (mean_check(self, dtype, "mean") < 0) return NULL;
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    wk_dtype out = dtype != WK_DTYPE_NONE ? dtype : self->dtype;
    int64_t count = 1;
    for (int i = 0; i < self->ndim; i++)
        if (mask[i]) count *= self->sizes[i];
    wk_tensor *s = sum_keepdim(self, mask, WK_FLOAT64);
    if (!s) return NULL;
    /* divide in double, then round once to the output dtype */
    double *p = (double *)wk__data(s);
    int64_t n = wk__numel(s);
    for (int64_t i = 0; i < n; i++) p[i] = p[i] / (double)count;
    wk_tensor *k = wk__to_dtype(s, out);
    wk_release(s);
    if (!k || keepdim) return k;
    wk_tensor *r = wk__squeeze_mask(k, mask);
    wk_release(k);
    return r;
}

wk_tensor *wk_impl_mean(wk_tensor *self, wk_dtype dtype) { return wk_impl_mean_dim(self, wk_none_ints(), false, dtype); }

/* grad of a dim reduction: put the reduced dims back (unsqueeze) and expand to the input's sizes */
static wk_tensor *unreduce(wk_tensor *grad, wk_intlist sizes, wk_intlist dim, bool keepdim) {
    int nd = (int)sizes.len;
    bool mask[WK_MAX_DIM] = {0};
    if (!dim.data || dim.len <= 0) {
        for (int i = 0; i < nd; i++) mask[i] = true;
    } else {
        for (int64_t k = 0; k < dim.len; k++) {
            int64_t d;
            if (wk__wrap_dim(dim.data[k], nd, &d) < 0) return NULL;
            if (nd) mask[d] = true;
        }
    }
    wk_tensor *g = wk_retain(grad);
    if (!keepdim) {
        int64_t shape[WK_MAX_DIM];
        int j = 0;
        for (int i = 0; i < nd; i++) shape[i] = mask[i] ? 1 : grad->sizes[j++];
        wk_release(g);
        g = wk_reshape(grad, wk_ints(shape, nd));
        if (!g) return NULL;
    }
    wk_tensor *r = wk_expand(g, sizes, false);
    wk_release(g);
    return r;
}

wk_tensor *wk_impl_sum_backward(wk_tensor *grad, wk_intlist sizes, wk_intlist dim, bool keepdim) {
    return unreduce(grad, sizes, dim, keepdim);
}

wk_tensor *wk_impl_mean_backward(wk_tensor *grad, wk_intlist sizes, wk_intlist dim, bool keepdim) {
    int64_t count = 1;
    if (!dim.data || dim.len <= 0) count = wk__prod(sizes.data, (int)sizes.len);
    else
        for (int64_t k = 0; k < dim.len; k++) {
            int64_t d;
            if (wk__wrap_dim(dim.data[k], (int)sizes.len, &d) < 0) return NULL;
            if (sizes.len) count *= sizes.data[d];
        }
    wk_tensor *e = unreduce(grad, sizes, dim, keepdim);
    if (!e) return NULL;
    wk_tensor *r = wk_div_Scalar(e, wk_int(count));
    wk_release(e);
    return r;
}

wk_tensor *wk_impl_sum_to_size(wk_tensor *self, wk_intlist size) {
    /* sum over leading dims and over dims where size is 1 but self's is not */
    int nd = self->ndim, ns = (int)size.len;
    if (ns > nd) goto bad;
    bool mask[WK_MAX_DIM] = {0};
    int lead = nd - ns;
    for (int i = 0; i < nd; i++) {
        if (i < lead) mask[i] = true;
        else if (size.data[i - lead] == 1 && self->sizes[i] != 1) mask[i] = true;
        else if (size.data[i - lead] != self->sizes[i]) goto bad;
    }
    wk_tensor *k = sum_keepdim(self, mask, self->dtype);
    if (!k) return NULL;
    wk_tensor *r = wk__alias(k, ns, size.data, k->strides + lead, k->offset);
    wk_release(k);
    return r;
bad:;
    wk_strbuf a = {0}, b = {0};
    wk_sb_ints(&a, size.data, ns);
    wk_sb_ints(&b, self->sizes, nd);
    wk__error(WK_RUNTIME_ERROR, "size {%s} is not expandable to size {%s}.", a.s, b.s);
    wk_sb_free(&a);
    wk_sb_free(&b);
    return NULL;
}
