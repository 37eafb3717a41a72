/* nn_misc.c — embedding (lookup, dense backward with padding_idx and scale_grad_by_freq, max_norm renorm), one_hot,
 * pixel_shuffle / pixel_unshuffle, im2col / col2im (F.unfold / F.fold). */
#include "ops/nn.h"

/* ---- embedding: weight [num, dim], indices any shape -> [*indices, dim] ---- */
static int check_indices(const wk_tensor *indices, const char *op) {
    if (indices->dtype == WK_INT64 || indices->dtype == WK_INT32) return 0;
    wk__error(WK_RUNTIME_ERROR,
              "Expected tensor for argument #%d 'indices' to have one of the following scalar types: Long, Int; but got "
              "%s instead (while checking arguments for %s)",
              strcmp(op, "embedding_renorm_") ? 1 : 2, wk__legacy_type_name(indices->dtype), op);
    return -1;
}

wk_tensor *wk_impl_embedding(wk_tensor *weight, wk_tensor *indices, int64_t padding_idx, bool scale_grad_by_freq,
                             bool sparse) {
    WK_UNUSED(padding_idx), WK_UNUSED(scale_grad_by_freq);
    if (weight->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "'weight' must be 2-D");
    if (check_indices(indices, "embedding") < 0) return NULL;
    if (sparse && wk__tensor_requires_grad(weight) && wk__grad_enabled())
        return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR, "wick: sparse gradients are not supported (embedding with sparse=True)");
    int64_t num = weight->sizes[0], dim = weight->sizes[1], n = wk__numel(indices);
    int64_t *ix = wk__nn_load_index(indices);
    if (!ix) return NULL;
    for (int64_t i = 0; i < n; i++)
        if (ix[i] < 0 || ix[i] >= num) {
            free(ix);
            return WK_FAIL(WK_INDEX_ERROR, "index out of range in self");
        }
    int64_t shape[WK_MAX_DIM];
    if (indices->ndim + 1 > WK_MAX_DIM) {
        free(ix);
        return WK_FAIL(WK_RUNTIME_ERROR, "embedding: too many dimensions");
    }
    memcpy(shape, indices->sizes, sizeof(int64_t) * (size_t)indices->ndim);
    shape[indices->ndim] = dim;
    wk_tensor *out = wk__empty(indices->ndim + 1, shape, weight->dtype);
    if (!out) {
        free(ix);
        return NULL;
    }
    /* copy rows through strided views: out[i, :] = weight[ix[i], :] */
    int64_t rs[1] = {dim}, st_w[1] = {weight->strides[1]}, st_o[1] = {1};
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        wk_tensor *src = wk__alias(weight, 1, rs, st_w, weight->offset + ix[i] * weight->strides[0]);
        wk_tensor *dst = src ? wk__alias(out, 1, rs, st_o, i * dim) : NULL;
        rc = dst ? wk__copy_(dst, src) : -1;
        wk_release(src);
        wk_release(dst);
    }
    free(ix);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

/* grad_weight [num_weights, dim]: rows of grad_output summed at their index; padding_idx rows stay zero;
 * scale_grad_by_freq divides each contribution by its index's count. */
wk_tensor *wk_impl_embedding_dense_backward(wk_tensor *grad_output, wk_tensor *indices, int64_t num_weights,
                                            int64_t padding_idx, bool scale_grad_by_freq) {
    if (check_indices(indices, "embedding_backward") < 0) return NULL;
    int64_t n = wk__numel(indices), dim = grad_output->ndim ? grad_output->sizes[grad_output->ndim - 1] : 1;
    if (wk__numel(grad_output) != n * dim) return WK_FAIL(WK_RUNTIME_ERROR, "embedding_backward: grad_output has the wrong size");
    int64_t shape[2] = {num_weights, dim};
    wk_tensor *w = wk__nn_work(2, shape);
    double *g = w ? wk__nn_load(grad_output) : NULL;
    int64_t *ix = g ? wk__nn_load_index(indices) : NULL;
    int64_t *cnt = ix && scale_grad_by_freq ? wk__calloc((size_t)(num_weights ? num_weights : 1), sizeof(int64_t)) : NULL;
    if (!ix || (scale_grad_by_freq && !cnt)) {
        free(g), free(ix), free(cnt);
        wk_release(w);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        if (ix[i] < 0 || ix[i] >= num_weights) {
            free(g), free(ix), free(cnt);
            wk_release(w);
            return WK_FAIL(WK_INDEX_ERROR, "index out of range in self");
        }
    if (cnt)
        for (int64_t i = 0; i < n; i++) cnt[ix[i]]++;
    double *o = wk__nn_data(w);
    for (int64_t i = 0; i < n; i++) {
        if (ix[i] == padding_idx) continue;
        double sc = cnt ? 1.0 / (double)cnt[ix[i]] : 1.0;
        for (int64_t j = 0; j < dim; j++) o[ix[i] * dim + j] += g[i * dim + j] * sc;
    }
    free(g), free(ix), free(cnt);
    return wk__nn_finish(w, grad_output->dtype);
}

/* the adjoint of embedding_dense_backward (its double backward): rows grad[indices], padding rows zero */
wk_tensor *wk_impl__nn_embedding_double_backward(wk_tensor *grad, wk_tensor *indices, int64_t padding_idx,
                                                  bool scale_grad_by_freq) {
    if (scale_grad_by_freq) return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR, "the derivative for 'embedding_dense_backward' with scale_grad_by_freq=True is not implemented.");
    wk_tensor *r = wk_impl_embedding(grad, indices, -1, false, false);
    if (!r || padding_idx < 0) return r;
    int64_t n = wk__numel(indices), dim = grad->sizes[1];
    int64_t *ix = wk__nn_load_index(indices);
    if (!ix) {
        wk_release(r);
        return NULL;
    }
    int64_t rs[1] = {dim}, st[1] = {1};
    for (int64_t i = 0; i < n; i++)
        if (ix[i] == padding_idx) {
            wk_tensor *row = wk__alias(r, 1, rs, st, i * dim);
            if (row) wk__fill_(row, wk_int(0));
            wk_release(row);
        }
    free(ix);
    return r;
}

static int cmp_index(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* in place, no autograd: rows of self named by indices with p-norm above max_norm are scaled to max_norm. As torch's
 * embedding_renorm_: the distinct indices in ascending order, each row self[i] (select: a negative index counts from
 * the end, one out of range is select()'s IndexError after the rows before it were renormed), its norm in self's
 * dtype, scale = max_norm / (norm + 1e-7) rounded to self's dtype, then the product (bfloat16: 200 of 200 rows as torch) */
wk_tensor *wk_impl_embedding_renorm_(wk_tensor *self, wk_tensor *indices, double max_norm, double norm_type) {
    if (self->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "'self' must be 2-D");
    if (check_indices(indices, "embedding_renorm_") < 0) return NULL;
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for("embedding_renorm_cpu_", self->dtype);
        return NULL;
    }
    int64_t n = wk__numel(indices);
    int64_t *ix = wk__nn_load_index(indices); /* [n] sorted below */
    if (!ix) return NULL;
    qsort(ix, (size_t)n, sizeof(int64_t), cmp_index);
    int rc = 0;
    bool written = false;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        if (i > 0 && ix[i] == ix[i - 1]) continue;
        wk_tensor *row = wk_impl_select(self, 0, ix[i]); /* [dim], a view of self */
        wk_tensor *norm = row ? wk_impl_linalg_vector_norm(row, wk_float(norm_type), wk_ints(NULL, 0), false,
                                                           WK_DTYPE_NONE) : NULL;
        rc = norm ? 0 : -1;
        double v = norm ? wk__load_double(wk__data(norm), norm->dtype) : 0;
        if (rc == 0 && v > max_norm) {
            wk_tensor *sc = wk__full(0, NULL, self->dtype, wk_float(max_norm / (v + 1e-7))); /* rounded to the dtype */
            wk_tensor *m = sc ? wk_impl_mul(row, sc) : NULL;
            rc = m ? wk__copy_(row, m) : -1;
            written = true;
            wk_release(sc);
            wk_release(m);
        }
        wk_release(norm);
        wk_release(row);
    }
    free(ix);
    if (written) wk__bump_version(self);
    return rc < 0 ? NULL : wk_retain(self);
}

/* ---- one_hot ---- */
wk_tensor *wk_impl_one_hot(wk_tensor *self, int64_t num_classes) {
    if (self->dtype != WK_INT64) return WK_FAIL(WK_RUNTIME_ERROR, "one_hot is only applicable to index tensor of type LongTensor.");
    int64_t n = wk__numel(self);
    if (n == 0 && num_classes <= 0) /* torch's one_hot: also an explicit 0 */
        return WK_FAIL(WK_RUNTIME_ERROR, "Can not infer total number of classes from empty tensor.");
    int64_t *ix = wk__nn_load_index(self);
    if (!ix) return NULL;
    int64_t mx = -1;
    for (int64_t i = 0; i < n; i++) {
        if (ix[i] < 0) {
            free(ix);
            return WK_FAIL(WK_RUNTIME_ERROR, "Class values must be non-negative.");
        }
        if (ix[i] > mx) mx = ix[i];
    }
    if (num_classes == -1) num_classes = mx + 1;
    else if (num_classes < -1) {
        free(ix);
        return WK_FAIL(WK_RUNTIME_ERROR, "num_classes should be positive");
    } else if (n && mx >= num_classes) {
        free(ix);
        return WK_FAIL(WK_RUNTIME_ERROR, "Class values must be smaller than num_classes.");
    }
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    shape[self->ndim] = num_classes;
    wk_tensor *out = wk__zeros(self->ndim + 1, shape, WK_INT64);
    if (out) {
        int64_t *o = (int64_t *)wk__data(out);
        for (int64_t i = 0; i < n; i++) o[i * num_classes + ix[i]] = 1;
    }
    free(ix);
    return out;
}

/* ---- pixel_shuffle: [*, C r^2, H, W] -> [*, C, H r, W r]; pixel_unshuffle the inverse ---- */
static wk_tensor *shuffle(wk_tensor *self, int64_t r, bool up) {
    const char *op = up ? "pixel_shuffle" : "pixel_unshuffle";
    if (self->ndim < 3) {
        wk__error(WK_RUNTIME_ERROR, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)",
                  op, self->ndim);
        return NULL;
    }
    if (r <= 0) {
        wk__error(WK_RUNTIME_ERROR, "%s expects a positive %s, but got %lld", op, up ? "upscale_factor" : "downscale_factor",
                  (long long)r);
        return NULL;
    }
    int nd = self->ndim;
    int64_t C = self->sizes[nd - 3], H = self->sizes[nd - 2], W = self->sizes[nd - 1];
    int64_t rr = (int64_t)((uint64_t)r * (uint64_t)r); /* wraps as torch's int64 product does; checked below */
    if (up && (r > 3037000499LL || C % rr)) {
        wk__error(WK_RUNTIME_ERROR,
                  "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                  "upscale_factor, but input.size(-3)=%lld is not divisible by %lld",
                  (long long)C, (long long)rr);
        return NULL;
    }
    if (!up && H % r) {
        wk__error(WK_RUNTIME_ERROR,
                  "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%lld is not "
                  "divisible by %lld",
                  (long long)H, (long long)r);
        return NULL;
    }
    if (!up && W % r) {
        wk__error(WK_RUNTIME_ERROR,
                  "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%lld is not "
                  "divisible by %lld",
                  (long long)W, (long long)r);
        return NULL;
    }
    if (up && ((H && r > INT64_MAX / H) || (W && r > INT64_MAX / W)))
        return WK_FAIL(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
    /* a strided view of self in the output's element order, then one copy */
    int64_t B = wk__prod(self->sizes, nd - 3);
    int64_t oshape[WK_MAX_DIM];
    memcpy(oshape, self->sizes, sizeof(int64_t) * (size_t)nd);
    wk_tensor *c = wk__contiguous(self);
    if (!c) return NULL;
    wk_tensor *out = NULL, *v = NULL;
    if (up) {
        int64_t Co = C / (r * r);
        oshape[nd - 3] = Co, oshape[nd - 2] = H * r, oshape[nd - 1] = W * r;
        /* out[b, c, h, i, w, j] = in[b, c, i, j, h, w]; in strides: c: r*r*H*W, i: r*H*W, j: H*W, h: W, w: 1 */
        int64_t vs[6] = {B, Co, H, r, W, r}, vst[6] = {C * H * W, r * r * H * W, W, r * H * W, 1, H * W};
        v = wk__alias(c, 6, vs, vst, c->offset);
    } else {
        oshape[nd - 3] = C * r * r, oshape[nd - 2] = H / r, oshape[nd - 1] = W / r;
        /* out[b, c, i, j, h, w] = in[b, c, h*r + i, w*r + j] */
        int64_t Ho = H / r, Wo = W / r;
        int64_t vs[6] = {B, C, r, r, Ho, Wo}, vst[6] = {C * H * W, H * W, W, 1, r * W, r};
        v = wk__alias(c, 6, vs, vst, c->offset);
    }
    if (v) {
        out = wk__empty(nd, oshape, self->dtype);
        if (out) {
            int64_t st6[6];
            wk__contiguous_strides(6, v->sizes, st6);
            wk_tensor *o6 = wk__alias(out, 6, v->sizes, st6, 0);
            int rc = o6 ? wk__copy_(o6, v) : -1;
            wk_release(o6);
            if (rc < 0) {
                wk_release(out);
                out = NULL;
            }
        }
    }
    wk_release(v);
    wk_release(c);
    return out;
}
wk_tensor *wk_impl_pixel_shuffle(wk_tensor *self, int64_t upscale_factor) { return shuffle(self, upscale_factor, true); }
wk_tensor *wk_impl_pixel_unshuffle(wk_tensor *self, int64_t downscale_factor) {
    return shuffle(self, downscale_factor, false);
}

/* ---- im2col / col2im (2-d) ---- */
static int im_params(wk_intlist kernel_size, wk_intlist dilation, wk_intlist padding, wk_intlist stride,
                     wk__nn_rel *R) {
    int64_t k[2], d[2], p[2], s[2];
    if (wk__nn_expand_param(kernel_size, 2, k) < 0 || wk__nn_expand_param(dilation, 2, d) < 0 ||
        wk__nn_expand_param(padding, 2, p) < 0 || wk__nn_expand_param(stride, 2, s) < 0) {
        wk__error(WK_RUNTIME_ERROR, "It is expected kernel_size, dilation, padding, stride to have 2 elements");
        return -1;
    }
    for (int j = 0; j < 2; j++) {
        if (k[j] <= 0) return wk__error(WK_RUNTIME_ERROR, "kernel size should be greater than zero, but got kernel_height: %lld kernel_width: %lld", (long long)k[0], (long long)k[1]), -1;
        if (s[j] <= 0) return wk__error(WK_RUNTIME_ERROR, "stride should be greater than zero, but got stride_height: %lld stride_width: %lld", (long long)s[0], (long long)s[1]), -1;
        if (d[j] <= 0) return wk__error(WK_RUNTIME_ERROR, "dilation should be greater than zero, but got dilation_height: %lld dilation_width: %lld", (long long)d[0], (long long)d[1]), -1;
        if (p[j] < 0) return wk__error(WK_RUNTIME_ERROR, "padding should be non-negative, but got pad_height: %lld pad_width: %lld", (long long)p[0], (long long)p[1]), -1;
        R->Kn[j] = k[j], R->d[j] = d[j], R->p[j] = p[j], R->s[j] = s[j];
    }
    R->nd = 2;
    return 0;
}

wk_tensor *wk_impl_im2col(wk_tensor *self, wk_intlist kernel_size, wk_intlist dilation, wk_intlist padding,
                          wk_intlist stride) {
    wk__nn_rel R;
    memset(&R, 0, sizeof R);
    if (im_params(kernel_size, dilation, padding, stride, &R) < 0) return NULL;
    if (self->ndim < 3) {
        wk__error(WK_INDEX_ERROR, "Dimension out of range (expected to be in range of [-%d, %d], but got 2)",
                  self->ndim ? self->ndim : 1, self->ndim ? self->ndim - 1 : 0);
        return NULL;
    }
    if (!((self->ndim == 3 && self->sizes[1] && self->sizes[2]) || (self->ndim == 4 && self->sizes[1] && self->sizes[2] && self->sizes[3]))) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %s", b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for("im2col_out_cpu", self->dtype);
        return NULL;
    }
    bool batched = self->ndim == 4;
    int64_t N = batched ? self->sizes[0] : 1, C = self->sizes[self->ndim - 3];
    R.In[0] = self->sizes[self->ndim - 2], R.In[1] = self->sizes[self->ndim - 1];
    for (int j = 0; j < 2; j++) R.Ln[j] = (R.In[j] + 2 * R.p[j] - (R.d[j] * (R.Kn[j] - 1) + 1)) / R.s[j] + 1;
    if (R.Ln[0] < 1 || R.Ln[1] < 1) {
        wk__error(WK_RUNTIME_ERROR,
                  "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), "
                  "padding=(%lld, %lld), calculated shape of the array of sliding blocks as (%lld, %lld), but its "
                  "components must be at least one.",
                  (long long)R.In[0], (long long)R.In[1], (long long)R.Kn[0], (long long)R.Kn[1], (long long)R.d[0],
                  (long long)R.d[1], (long long)R.p[0], (long long)R.p[1], (long long)R.Ln[0], (long long)R.Ln[1]);
        return NULL;
    }
    int64_t cs2[6] = {N, C, R.Kn[0], R.Kn[1], R.Ln[0], R.Ln[1]}; /* the output [N, C * K, L] must fit */
    if (wk__check_sizes(6, cs2) < 0) return NULL;
    wk__nn_rel_finish(&R);
    int64_t oshape[3] = {N, C * R.Ksz, R.Lsz};
    wk_tensor *w = wk__nn_work(batched ? 3 : 2, batched ? oshape : oshape + 1);
    double *x = w ? wk__nn_load(self) : NULL;
    if (!x) {
        wk_release(w);
        return NULL;
    }
    for (int64_t n = 0; n < N; n++) wk__nn_im2col(&R, x + n * C * R.Isz, C, wk__nn_data(w) + n * C * R.Ksz * R.Lsz);
    free(x);
    return wk__nn_finish(w, self->dtype);
}

wk_tensor *wk_impl_col2im(wk_tensor *self, wk_intlist output_size, wk_intlist kernel_size, wk_intlist dilation,
                          wk_intlist padding, wk_intlist stride) {
    wk__nn_rel R;
    memset(&R, 0, sizeof R);
    if (output_size.len != 2) return WK_FAIL(WK_RUNTIME_ERROR, "It is expected output_size equals to 2, but got size %lld", (long long)output_size.len);
    if (im_params(kernel_size, dilation, padding, stride, &R) < 0) return NULL;
    if (!((self->ndim == 2 && self->sizes[0] && self->sizes[1]) || (self->ndim == 3 && self->sizes[1] && self->sizes[2]))) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %s", b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    bool batched = self->ndim == 3;
    int64_t N = batched ? self->sizes[0] : 1, CK = self->sizes[self->ndim - 2], L = self->sizes[self->ndim - 1];
    int64_t kprod = R.Kn[0] * R.Kn[1];
    if (CK % kprod) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
                  "input.size(1)=%lld and kernel_size=(%lld, %lld).",
                  (long long)CK, (long long)R.Kn[0], (long long)R.Kn[1]);
        return NULL;
    }
    R.In[0] = output_size.data[0], R.In[1] = output_size.data[1];
    for (int j = 0; j < 2; j++) R.Ln[j] = (R.In[j] + 2 * R.p[j] - (R.d[j] * (R.Kn[j] - 1) + 1)) / R.s[j] + 1;
    if (R.Ln[0] * R.Ln[1] != L || R.Ln[0] < 1 || R.Ln[1] < 1) {
        wk__error(WK_RUNTIME_ERROR,
                  "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, "
                  "%lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of "
                  "sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                  (long long)R.In[0], (long long)R.In[1], (long long)R.Kn[0], (long long)R.Kn[1], (long long)R.d[0],
                  (long long)R.d[1], (long long)R.p[0], (long long)R.p[1], (long long)R.s[0], (long long)R.s[1],
                  (long long)R.Ln[0], (long long)R.Ln[1], (long long)(R.Ln[0] * R.Ln[1]), (long long)L);
        return NULL;
    }
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for("col2im_out_cpu", self->dtype);
        return NULL;
    }
    int64_t osz4[4] = {N, CK / kprod, R.In[0], R.In[1]};
    if (wk__check_sizes(4, osz4) < 0) return NULL;
    wk__nn_rel_finish(&R);
    int64_t C = CK / kprod;
    int64_t oshape[4] = {N, C, R.In[0], R.In[1]};
    wk_tensor *w = wk__nn_work(batched ? 4 : 3, batched ? oshape : oshape + 1);
    double *x = w ? wk__nn_load(self) : NULL;
    if (!x) {
        wk_release(w);
        return NULL;
    }
    for (int64_t n = 0; n < N; n++) wk__nn_col2im(&R, x + n * CK * L, C, wk__nn_data(w) + n * C * R.Isz);
    free(x);
    return wk__nn_finish(w, self->dtype);
}

/* ---- nn.init.orthogonal_: the Q of a reduced QR of a [m, n] matrix (m >= n), columns signed by diag(R) ----
 * Householder reflections in float64 (LAPACK's geqrf does the same); with the sign fix Q is unique, so it matches
 * torch.linalg.qr's to rounding. */
wk_tensor *wk_impl__orthogonal_q(wk_tensor *self) {
    if (self->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "orthogonal_: expected a matrix");
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for("linalg_qr_cpu", self->dtype);
        return NULL;
    }
    int64_t m = self->sizes[0], n = self->sizes[1];
    if (m < n) return WK_FAIL(WK_RUNTIME_ERROR, "orthogonal_: expected rows >= cols");
    double *a = wk__nn_load(self);                                  /* [m, n], becomes R above the diagonal */
    double *v = wk__malloc(sizeof(double) * (size_t)(m * (n ? n : 1) + 1)); /* [n][m] Householder vectors */
    double *beta = wk__malloc(sizeof(double) * (size_t)(n + 1));     /* [n] 2 / v.v (0: no reflection) */
    double *rdiag = wk__malloc(sizeof(double) * (size_t)(n + 1));    /* [n] */
    int64_t qs[2] = {m, n};
    wk_tensor *out = wk__nn_work(2, qs);
    if (!a || !v || !beta || !rdiag || !out) {
        free(a), free(v), free(beta), free(rdiag);
        wk_release(out);
        return NULL;
    }
    for (int64_t k = 0; k < n; k++) {
        double *vk = v + k * m, norm = 0;
        for (int64_t i = 0; i < m; i++) vk[i] = i < k ? 0 : a[i * n + k];
        for (int64_t i = k; i < m; i++) norm += vk[i] * vk[i];
        norm = sqrt(norm);
        double alpha = vk[k], r = alpha >= 0 ? -norm : norm;
        vk[k] -= r;
        double vv = 0;
        for (int64_t i = k; i < m; i++) vv += vk[i] * vk[i];
        beta[k] = vv > 0 ? 2 / vv : 0;
        rdiag[k] = vv > 0 ? r : alpha;
        for (int64_t j = k; j < n; j++) { /* A[k:, j] -= beta v (v . A[k:, j]) */
            double d = 0;
            for (int64_t i = k; i < m; i++) d += vk[i] * a[i * n + j];
            d *= beta[k];
            for (int64_t i = k; i < m; i++) a[i * n + j] -= d * vk[i];
        }
    }
    /* Q = H_0 ... H_{n-1} I[:, :n]: apply the reflections to the identity columns, last first */
    double *q = wk__nn_data(out);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) q[i * n + j] = i == j ? 1 : 0;
    for (int64_t k = n - 1; k >= 0; k--) {
        double *vk = v + k * m;
        for (int64_t j = 0; j < n; j++) {
            double d = 0;
            for (int64_t i = k; i < m; i++) d += vk[i] * q[i * n + j];
            d *= beta[k];
            for (int64_t i = k; i < m; i++) q[i * n + j] -= d * vk[i];
        }
    }
    for (int64_t j = 0; j < n; j++) {
        double s = rdiag[j] > 0 ? 1 : (rdiag[j] < 0 ? -1 : 0);
        for (int64_t i = 0; i < m; i++) q[i * n + j] *= s;
    }
    free(a), free(v), free(beta), free(rdiag);
    return wk__nn_finish(out, self->dtype);
}

/* ---- channel_shuffle: [N, C, *] viewed as [N, g, C/g, *], the two channel dims swapped ---- */
wk_tensor *wk_impl_channel_shuffle(wk_tensor *self, int64_t groups) {
    if (self->ndim <= 2) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "channel_shuffle expects input with > 2 dims, but got input with sizes %s",
                  b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    if (groups <= 0) {
        wk__error(WK_RUNTIME_ERROR, "Number of groups to divide channels in must be positive. Value of groups:%lld",
                  (long long)groups);
        return NULL;
    }
    int64_t N = self->sizes[0], C = self->sizes[1], R = wk__prod(self->sizes + 2, self->ndim - 2);
    if (C % groups) {
        wk__error(WK_RUNTIME_ERROR, "Number of channels must be divisible by groups. Got %lld channels and %lld groups.",
                  (long long)C, (long long)groups);
        return NULL;
    }
    wk_tensor *c = wk__contiguous(self);
    if (!c) return NULL;
    int64_t cg = C / groups;
    int64_t vs[4] = {N, cg, groups, R}, vst[4] = {C * R, R, cg * R, 1}, cst[4];
    wk_tensor *v = wk__alias(c, 4, vs, vst, c->offset);
    wk_tensor *out = v ? wk__empty(self->ndim, self->sizes, self->dtype) : NULL;
    wk__contiguous_strides(4, vs, cst);
    wk_tensor *o4 = out ? wk__alias(out, 4, vs, cst, 0) : NULL;
    int rc = o4 ? wk__copy_(o4, v) : -1;
    wk_release(o4);
    wk_release(v);
    wk_release(c);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

wk_tensor *wk_impl_native_channel_shuffle(wk_tensor *self, int64_t groups) { return wk_impl_channel_shuffle(self, groups); }

/* ---- embedding_bag: bags of rows of weight [num, D] reduced by sum (0), mean (1) or max (2) ----
 * indices [n] (Long or Int), offsets [B] (or [B + 1] with include_last_offset); padding_idx rows are skipped.
 * Outputs: output [B, D], offset2bag [n] (the bag of each index), bag_size [B], max_indices [B, D] (max mode; else
 * the bag sizes). */
typedef struct {
    int64_t n, B, D, num;
    int64_t *ix, *off; /* [n], [B + 1] */
} bag_geom;

static void bag_free(bag_geom *g) {
    free(g->ix);
    free(g->off);
}

static int bag_setup(const wk_tensor *weight, const wk_tensor *indices, const wk_tensor *offsets, bool include_last,
                     bag_geom *g) {
    memset(g, 0, sizeof *g);
    if (check_indices(indices, "embedding_bag") < 0) return -1;
    if (offsets->dtype != WK_INT64 && offsets->dtype != WK_INT32) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected tensor for argument #1 'offsets' to have one of the following scalar types: Long, Int; but "
                  "got %s instead (while checking arguments for embedding_bag)",
                  wk__legacy_type_name(offsets->dtype));
        return -1;
    }
    if (weight->ndim != 2) return wk__error(WK_RUNTIME_ERROR, "weight has to be a 2D Tensor"), -1;
    g->n = wk__numel(indices);
    g->D = weight->sizes[1];
    g->num = weight->sizes[0];
    int64_t no = wk__numel(offsets);
    g->B = include_last ? (no > 0 ? no - 1 : 0) : no;
    g->ix = wk__nn_load_index(indices);
    int64_t *o = wk__nn_load_index(offsets);
    g->off = wk__malloc(sizeof(int64_t) * (size_t)(g->B + 1));
    if (!g->ix || !o || !g->off) {
        free(o);
        bag_free(g);
        return -1;
    }
    if (no > 0 && o[0] != 0) {
        wk__error(WK_RUNTIME_ERROR,
                  "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                  "However, got %lld\n[ %s{} ]",
                  (long long)o[0], offsets->dtype == WK_INT32 ? "torch.IntTensor" : "torch.LongTensor");
        free(o);
        bag_free(g);
        return -1;
    }
    if (no > 0 && o[no - 1] > g->n) {
        wk__error(WK_RUNTIME_ERROR, "offsets[-1] can not be greater than input's length %lld but got offsets[-1] of %lld",
                  (long long)g->n, (long long)o[no - 1]);
        free(o);
        bag_free(g);
        return -1;
    }
    for (int64_t b = 0; b < g->B; b++) g->off[b] = o[b];
    g->off[g->B] = include_last ? o[g->B] : g->n;
    free(o);
    for (int64_t b = 0; b < g->B; b++)
        if (g->off[b + 1] < g->off[b]) {
            wk__error(WK_RUNTIME_ERROR, "Expected i < index_size to be true, but got false.  (Could this error message be "
                                        "improved?  If so, please report an enhancement request to PyTorch.)");
            bag_free(g);
            return -1;
        }
    for (int64_t i = 0; i < g->n; i++)
        if (g->ix[i] < 0 || g->ix[i] >= g->num) {
            wk__error(WK_RUNTIME_ERROR, "Index %lld of input takes value %lld which is not in the valid range [0, %lld)",
                      (long long)i, (long long)g->ix[i], (long long)g->num);
            bag_free(g);
            return -1;
        }
    return 0;
}

int wk_impl__embedding_bag(wk_tensor *weight, wk_tensor *indices, wk_tensor *offsets, bool scale_grad_by_freq,
                           int64_t mode, bool sparse, wk_tensor *per_sample_weights, bool include_last_offset,
                           int64_t padding_idx, wk_tensor **outs) {
    WK_UNUSED(scale_grad_by_freq), WK_UNUSED(sparse);
    bag_geom g;
    if (mode < 0 || mode > 2) return wk__error(WK_RUNTIME_ERROR, "embedding_bag: mode has to be 0 (sum), 1 (mean) or 2 (max)"), -1;
    if (bag_setup(weight, indices, offsets, include_last_offset, &g) < 0) return -1;
    double *w = wk__nn_load(weight), *psw = per_sample_weights ? wk__nn_load(per_sample_weights) : NULL;
    int64_t os[2] = {g.B, g.D}, nn1[1] = {g.n}, bs[1] = {g.B};
    wk_tensor *out = wk__nn_work(2, os), *o2b = wk__zeros(1, nn1, WK_INT64), *bsz = wk__zeros(1, bs, WK_INT64);
    wk_tensor *mi = mode == 2 ? wk__zeros(2, os, WK_INT64) : wk__zeros(1, bs, WK_INT64);
    int rc = -1;
    if (!w || !out || !o2b || !bsz || !mi || (per_sample_weights && !psw)) goto done;
    double *o = wk__nn_data(out);
    int64_t *ob = (int64_t *)wk__data(o2b), *sz = (int64_t *)wk__data(bsz), *mx = (int64_t *)wk__data(mi);
    for (int64_t b = 0; b < g.B; b++) {
        int64_t cnt = 0;
        for (int64_t i = g.off[b]; i < g.off[b + 1]; i++) {
            ob[i] = b;
            int64_t r = g.ix[i];
            if (r == padding_idx) continue;
            for (int64_t d = 0; d < g.D; d++) {
                double v = w[r * g.D + d] * (psw ? psw[i] : 1);
                if (mode == 2) {
                    if (cnt == 0 || v > o[b * g.D + d]) {
                        o[b * g.D + d] = v;
                        mx[b * g.D + d] = r;
                    }
                } else {
                    o[b * g.D + d] += v;
                }
            }
            cnt++;
        }
        sz[b] = cnt;
        if (mode == 1 && cnt > 0)
            for (int64_t d = 0; d < g.D; d++) o[b * g.D + d] /= (double)cnt;
        if (mode != 2) mx[b] = cnt;
    }
    outs[0] = wk__nn_finish(out, weight->dtype);
    out = NULL;
    if (!outs[0]) goto done;
    outs[1] = o2b, outs[2] = bsz, outs[3] = mi;
    o2b = bsz = mi = NULL;
    rc = 0;
done:
    wk_release(out), wk_release(o2b), wk_release(bsz), wk_release(mi);
    free(w), free(psw);
    bag_free(&g);
    return rc;
}

/* which 0: grad_weight [num, D]; which 1: grad of per_sample_weights [n] (sum mode) */
wk_tensor *wk_impl__nn_embedding_bag_backward(wk_tensor *grad, wk_tensor *weight, wk_tensor *indices, wk_tensor *offsets,
                                              int64_t mode, wk_tensor *per_sample_weights, bool include_last_offset,
                                              int64_t padding_idx, bool scale_grad_by_freq, wk_tensor *max_indices,
                                              int64_t which) {
    bag_geom g;
    if (bag_setup(weight, indices, offsets, include_last_offset, &g) < 0) return NULL;
    double *go = wk__nn_load(grad), *w = wk__nn_load(weight), *psw = per_sample_weights ? wk__nn_load(per_sample_weights) : NULL;
    int64_t *mx = mode == 2 && max_indices ? wk__nn_load_index(max_indices) : NULL;
    int64_t *freq = scale_grad_by_freq ? wk__calloc((size_t)(g.num ? g.num : 1), sizeof(int64_t)) : NULL;
    wk_tensor *out = NULL;
    if (!go || !w || (per_sample_weights && !psw) || (mode == 2 && !mx) || (scale_grad_by_freq && !freq)) goto done;
    if (freq)
        for (int64_t i = 0; i < g.n; i++) freq[g.ix[i]]++;
    if (which == 0) out = wk__nn_work(2, weight->sizes);
    else {
        int64_t s1[1] = {g.n};
        out = wk__nn_work(1, s1);
    }
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t b = 0; b < g.B; b++) {
        int64_t cnt = 0;
        for (int64_t i = g.off[b]; i < g.off[b + 1]; i++) cnt += g.ix[i] != padding_idx;
        if (mode == 2) {
            if (which == 0)
                for (int64_t d = 0; d < g.D; d++)
                    if (cnt > 0) o[mx[b * g.D + d] * g.D + d] += go[b * g.D + d];
            continue;
        }
        for (int64_t i = g.off[b]; i < g.off[b + 1]; i++) {
            int64_t r = g.ix[i];
            if (r == padding_idx) continue;
            double sc = (mode == 1 ? 1.0 / (double)cnt : 1.0) * (freq ? 1.0 / (double)freq[r] : 1.0);
            if (which == 0)
                for (int64_t d = 0; d < g.D; d++) o[r * g.D + d] += go[b * g.D + d] * sc * (psw ? psw[i] : 1);
            else {
                double dot = 0;
                for (int64_t d = 0; d < g.D; d++) dot += go[b * g.D + d] * w[r * g.D + d];
                o[i] = dot;
            }
        }
    }
done:
    free(go), free(w), free(psw), free(mx), free(freq);
    bag_free(&g);
    return wk__nn_finish(out, weight->dtype);
}

int wk_impl_embedding_bag_padding_idx(wk_tensor *weight, wk_tensor *indices, wk_tensor *offsets, bool scale_grad_by_freq,
                                      int64_t mode, bool sparse, wk_tensor *per_sample_weights, bool include_last_offset,
                                      wk_optint padding_idx, wk_tensor **outs) {
    return wk__embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                             include_last_offset, padding_idx.has ? padding_idx.v : -1, outs);
}
