/* nn_softmax.c — _softmax / _log_softmax and their backward ops, numerically stable (max subtracted), fused along
 * one dim; softmax.int / log_softmax.int (the dtype= forms). Working precision: Note [nn working precision]. */
#include "ops/nn.h"

#include <stdio.h>

#include "cpu/threadpool.h"
#include "cpu/vec.h"

/* The tensor viewed as [outer, n, inner] around dim. */
typedef struct {
    int64_t outer, n, inner;
} span3;

static int span_of(const wk_tensor *t, int64_t dim, int64_t *d, span3 *s) {
    if (wk__wrap_dim(dim, t->ndim, d) < 0) return -1;
    if (t->ndim == 0) {
        s->outer = s->n = s->inner = 1;
        return 0;
    }
    s->outer = wk__prod(t->sizes, (int)*d);
    s->n = t->sizes[*d];
    s->inner = wk__prod(t->sizes + *d + 1, t->ndim - (int)*d - 1);
    return 0;
}

static int softmax_checks(const wk_tensor *self, int64_t dim, bool half_to_float, bool is_log, int64_t *d, span3 *s) {
    if (half_to_float) {
        wk__error(WK_RUNTIME_ERROR, "%s with half to float conversion is not supported on CPU", is_log ? "log_softmax" : "softmax");
        return -1;
    }
    if (span_of(self, dim, d, s) < 0) return -1;
    if (wk__numel(self) == 0) return 1; /* torch's softmax_cpu_out returns before its kernel's dtype dispatch */
    if (!wk_dtype_is_floating(self->dtype)) {
        bool last = self->ndim == 0 || *d == self->ndim - 1;
        char name[64];
        snprintf(name, sizeof name, "%ssoftmax_%skernel_impl", is_log ? "log_" : "", last ? "lastdim_" : "");
        wk__not_implemented_for(name, self->dtype);
        return -1;
    }
    return 0;
}

/* ---- float32: vectorised and threaded (src/cpu/vec.h); the float64 path below stays as the reference ----
 * As torch's _vec_softmax / _vec_log_softmax: m = max over the dim, e = exp(x - m), s = sum e (in float),
 * softmax = e * (1 / s), log_softmax = (x - m) - log(s). Rows (inner == 1) are one contiguous run each; otherwise
 * the dim is walked row by row over a block of up to SM_BLOCK contiguous columns, so every pass streams memory. */
#define SM_BLOCK 512
typedef struct {
    const float *x; /* [outer, n, inner] contiguous input */
    float *y;       /* [outer, n, inner] output */
    span3 s;
    int64_t nblk; /* column blocks per outer index */
    bool is_log;
} sm_job;

/* Short rows (n < SM_SHORT) on the AVX2 / AVX-512 tables (8 or 16 lanes): exp_sub_sum's sum is then the plain
 * left-to-right sum (one vector at most, whose lanes it adds in order, then the tail), and its exps are the vector
 * exp's lane for lane. So the exps of a block of rows go through one vector exp call and each row is summed here in
 * that order: the same bits, without one vector exp per element in the tail (64 x 10 log_softmax: 38 -> 5 us). */
#define SM_SHORT 16
#define SM_SHORT_BLOCK 256
static void sm_short_rows(const sm_job *j, const wk_vec_ops *v, int64_t b, int64_t e) {
    int64_t n = j->s.n, per = SM_SHORT_BLOCK / n;
    float m[SM_SHORT_BLOCK], ex[SM_SHORT_BLOCK]; /* per row of the block: its max; [rows, n]: exp(x - max) */
    for (int64_t r0 = b; r0 < e; r0 += per) {
        int64_t rows = e - r0 < per ? e - r0 : per;
        const float *x = j->x + r0 * n;
        float *y = j->y + r0 * n;
        for (int64_t r = 0; r < rows; r++) {
            m[r] = v->max(x + r * n, n);
            for (int64_t k = 0; k < n; k++) ex[r * n + k] = x[r * n + k] - m[r];
        }
        (v->exp)(ex, ex, rows * n);
        for (int64_t r = 0; r < rows; r++) {
            float sum = 0;
            for (int64_t k = 0; k < n; k++) sum += ex[r * n + k];
            if (j->is_log) {
                v->sub_scalar(x + r * n, y + r * n, n, m[r]);
                v->sub_scalar(y + r * n, y + r * n, n, logf(sum));
            } else {
                v->scale(ex + r * n, y + r * n, n, 1.0f / sum);
            }
        }
    }
}

static void sm_rows(int64_t b, int64_t e, int tid, void *job_) {
    (void)tid;
    const sm_job *j = (const sm_job *)job_;
    const wk_vec_ops *v = wk__vec();
    int64_t n = j->s.n;
    if (n < SM_SHORT && !strncmp(v->name, "avx", 3)) {
        sm_short_rows(j, v, b, e);
        return;
    }
    for (int64_t r = b; r < e; r++) {
        const float *x = j->x + r * n;
        float *y = j->y + r * n;
        float m = v->max(x, n);
        if (j->is_log) {
            float l = logf(v->exp_sub_sum(x, y, n, m, 0));
            v->sub_scalar(x, y, n, m);
            v->sub_scalar(y, y, n, l);
        } else {
            float sum = v->exp_sub_sum(x, y, n, m, 1);
            v->scale(y, y, n, 1.0f / sum);
        }
    }
}

static void sm_cols(int64_t b, int64_t e, int tid, void *job_) {
    (void)tid;
    const sm_job *j = (const sm_job *)job_;
    const wk_vec_ops *v = wk__vec();
    int64_t n = j->s.n, inner = j->s.inner;
    float m[SM_BLOCK], sum[SM_BLOCK]; /* per column of the block: running max, then sum of exp (then 1/sum or log) */
    for (int64_t t = b; t < e; t++) {
        int64_t a = t / j->nblk, c0 = (t % j->nblk) * SM_BLOCK, w = inner - c0 < SM_BLOCK ? inner - c0 : SM_BLOCK;
        const float *x = j->x + a * n * inner + c0;
        float *y = j->y + a * n * inner + c0;
        for (int64_t c = 0; c < w; c++) {
            m[c] = -INFINITY;
            sum[c] = 0;
        }
        for (int64_t i = 0; i < n; i++) v->max_rows(x + i * inner, m, w);
        for (int64_t i = 0; i < n; i++) v->exp_sub_acc(x + i * inner, m, y + i * inner, sum, w);
        if (j->is_log) {
            for (int64_t c = 0; c < w; c++) sum[c] = logf(sum[c]);
            for (int64_t i = 0; i < n; i++) v->sub2_cols(x + i * inner, m, sum, y + i * inner, w);
        } else {
            for (int64_t c = 0; c < w; c++) sum[c] = 1.0f / sum[c];
            for (int64_t i = 0; i < n; i++) v->mul_cols(y + i * inner, sum, y + i * inner, w);
        }
    }
}

static wk_tensor *softmax_f32(wk_tensor *self, span3 s, bool is_log) {
    wk_tensor *xc = wk__contiguous(self);
    wk_tensor *out = xc ? wk__empty(self->ndim, self->sizes, WK_FLOAT32) : NULL;
    if (!out) {
        wk_release(xc);
        return NULL;
    }
    sm_job j = {(const float *)wk__data(xc), (float *)wk__data(out), s, (s.inner + SM_BLOCK - 1) / SM_BLOCK, is_log};
    if (s.n > 0 && s.outer * s.inner > 0) {
        if (s.inner == 1) {
            int64_t grain = WK_GRAIN_SIZE / s.n + 1;
            wk_parallel_for(0, s.outer, grain, sm_rows, &j);
        } else {
            int64_t per = s.n * (s.inner < SM_BLOCK ? s.inner : SM_BLOCK);
            wk_parallel_for(0, s.outer * j.nblk, WK_GRAIN_SIZE / per + 1, sm_cols, &j);
        }
    }
    wk_release(xc);
    return out;
}

static wk_tensor *softmax_fwd(wk_tensor *self, int64_t dim, bool half_to_float, bool is_log) {
    int64_t d;
    span3 s;
    int rc = softmax_checks(self, dim, half_to_float, is_log, &d, &s);
    if (rc < 0) return NULL;
    if (rc == 1) return wk__empty(self->ndim, self->sizes, self->dtype);
    if (self->dtype == WK_FLOAT32) return softmax_f32(self, s, is_log);
    double *x = wk__nn_load(self); /* [outer, n, inner] */
    wk_tensor *w = x ? wk__nn_work(self->ndim, self->sizes) : NULL;
    if (!w) {
        free(x);
        return NULL;
    }
    double *o = wk__nn_data(w);
    for (int64_t a = 0; a < s.outer; a++)
        for (int64_t k = 0; k < s.inner; k++) {
            const double *xp = x + a * s.n * s.inner + k;
            double *op = o + a * s.n * s.inner + k;
            double mx = -INFINITY;
            for (int64_t j = 0; j < s.n; j++) {
                double v = xp[j * s.inner];
                if (v > mx || isnan(v)) mx = v;
                if (isnan(v)) break;
            }
            if (isinf(mx) && mx < 0) mx = 0; /* all -inf: exp(-inf - 0) = 0, torch gives nan via 0/0 too */
            double sum = 0;
            for (int64_t j = 0; j < s.n; j++) sum += exp(xp[j * s.inner] - mx);
            if (is_log) {
                double lse = mx + log(sum);
                for (int64_t j = 0; j < s.n; j++) op[j * s.inner] = xp[j * s.inner] - lse;
            } else {
                for (int64_t j = 0; j < s.n; j++) op[j * s.inner] = exp(xp[j * s.inner] - mx) / sum;
            }
        }
    free(x);
    return wk__nn_finish(w, self->dtype);
}

wk_tensor *wk_impl__softmax(wk_tensor *self, int64_t dim, bool half_to_float) {
    return softmax_fwd(self, dim, half_to_float, false);
}
wk_tensor *wk_impl__log_softmax(wk_tensor *self, int64_t dim, bool half_to_float) {
    return softmax_fwd(self, dim, half_to_float, true);
}

/* softmax: gI = o * (g - sum(g * o)); log_softmax: gI = g - exp(o) * sum(g) */
static wk_tensor *softmax_bwd(wk_tensor *grad_output, wk_tensor *output, int64_t dim, wk_dtype input_dtype, bool is_log) {
    if (grad_output->dtype != output->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(output->dtype),
                  wk_dtype_scalar_name(grad_output->dtype));
        return NULL;
    }
    if (input_dtype != output->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(output->dtype),
                  wk_dtype_scalar_name(input_dtype));
        return NULL;
    }
    if (grad_output->ndim != output->ndim || memcmp(grad_output->sizes, output->sizes, sizeof(int64_t) * (size_t)output->ndim)) {
        wk__error(WK_RUNTIME_ERROR, "grad_output and output must have the same shape");
        return NULL;
    }
    int64_t d;
    span3 s;
    if (span_of(output, dim, &d, &s) < 0) return NULL;
    if (!wk_dtype_is_floating(output->dtype)) {
        wk__not_implemented_for(is_log ? "log_softmax_backward_lastdim_kernel_impl" : "softmax_backward_lastdim_kernel_impl",
                                output->dtype);
        return NULL;
    }
    if (output->dtype == WK_FLOAT32 && s.inner == 1 && wk__is_contiguous(grad_output) && wk__is_contiguous(output)) {
        /* float32 rows (the cross-entropy backward): the float64 loop below on the floats in place, each result
         * rounded once to float as wk__nn_finish does: the same bits without the float64 copies */
        wk_tensor *out = wk__empty(output->ndim, output->sizes, WK_FLOAT32);
        if (!out) return NULL;
        const float *gf = (const float *)wk__data(grad_output), *of = (const float *)wk__data(output);
        float *rf = (float *)wk__data(out);
        for (int64_t a = 0; a < s.outer; a++) {
            const float *gr = gf + a * s.n, *orow = of + a * s.n;
            float *rr = rf + a * s.n;
            double acc = 0;
            for (int64_t j = 0; j < s.n; j++) acc += is_log ? (double)gr[j] : (double)gr[j] * (double)orow[j];
            for (int64_t j = 0; j < s.n; j++)
                rr[j] = (float)(is_log ? (double)gr[j] - exp((double)orow[j]) * acc
                                       : (double)orow[j] * ((double)gr[j] - acc));
        }
        return out;
    }
    double *g = wk__nn_load(grad_output), *o = wk__nn_load(output);
    wk_tensor *w = g && o ? wk__nn_work(output->ndim, output->sizes) : NULL;
    if (!w) {
        free(g);
        free(o);
        return NULL;
    }
    double *r = wk__nn_data(w);
    for (int64_t a = 0; a < s.outer; a++)
        for (int64_t k = 0; k < s.inner; k++) {
            int64_t base = a * s.n * s.inner + k;
            double acc = 0;
            for (int64_t j = 0; j < s.n; j++) {
                int64_t i = base + j * s.inner;
                acc += is_log ? g[i] : g[i] * o[i];
            }
            for (int64_t j = 0; j < s.n; j++) {
                int64_t i = base + j * s.inner;
                r[i] = is_log ? g[i] - exp(o[i]) * acc : o[i] * (g[i] - acc);
            }
        }
    free(g);
    free(o);
    return wk__nn_finish(w, output->dtype);
}

wk_tensor *wk_impl__softmax_backward_data(wk_tensor *grad_output, wk_tensor *output, int64_t dim, wk_dtype input_dtype) {
    return softmax_bwd(grad_output, output, dim, input_dtype, false);
}
wk_tensor *wk_impl__log_softmax_backward_data(wk_tensor *grad_output, wk_tensor *output, int64_t dim,
                                              wk_dtype input_dtype) {
    return softmax_bwd(grad_output, output, dim, input_dtype, true);
}

/* softmax.int / log_softmax.int: cast first when dtype= is given (ToCopyBackward0 in the graph, as torch) */
static wk_tensor *softmax_dtype(wk_tensor *self, int64_t dim, wk_dtype dtype, bool is_log) {
    wk_tensor *x = dtype != WK_DTYPE_NONE ? wk_to_dtype(self, dtype, false, false) : wk_retain(self);
    if (!x) return NULL;
    wk_tensor *r = is_log ? wk__log_softmax(x, dim, false) : wk__softmax(x, dim, false);
    wk_release(x);
    return r;
}
wk_tensor *wk_impl_softmax_int(wk_tensor *self, int64_t dim, wk_dtype dtype) { return softmax_dtype(self, dim, dtype, false); }
wk_tensor *wk_impl_log_softmax_int(wk_tensor *self, int64_t dim, wk_dtype dtype) {
    return softmax_dtype(self, dim, dtype, true);
}
