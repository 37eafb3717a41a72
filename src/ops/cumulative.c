/* cumulative.c — scans along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp, and their gradients.
 * Rows along dim come from the row framework (Note [Row reductions] in reduce.h). Floating scans accumulate in
 * double (torch's CPU kernels accumulate float32 in double too), integral ones in int64 with wrap-around. */
#include "ops/reduce.h"

#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/ops_support.h"

#define CADD(a, b) _Generic((a), int64_t: (int64_t)((uint64_t)(a) + (uint64_t)(b)), default: (a) + (b))
#define CMUL(a, b) _Generic((a), int64_t: (int64_t)((uint64_t)(a) * (uint64_t)(b)), default: (a) * (b))

enum { SCAN_SUM, SCAN_PROD, SCAN_RSUM };

/* operands: 0 out rows, 1 self rows (same dtype) */
#define SCAN_ROW(E, ST_T, CT, LD, ST)                                                      \
    static void scan_##E(char **d, const int64_t *s, int64_t n, void *ctx_) {              \
        const wk_rows_ctx *c = ctx_;                                                       \
        int mode = *(const int *)c->arg;                                                   \
        for (int64_t i = 0; i < n; i++) {                                                  \
            char *o = d[0] + i * s[0];                                                     \
            const char *p = d[1] + i * s[1];                                               \
            CT acc = mode == SCAN_PROD ? 1 : 0;                                            \
            for (int64_t k = 0; k < c->len; k++) {                                         \
                int64_t j = mode == SCAN_RSUM ? c->len - 1 - k : k;                        \
                CT x = LD(*(const ST_T *)(p + j * c->rs[1]));                              \
                acc = mode == SCAN_PROD ? CMUL(acc, x) : CADD(acc, x);                     \
                *(ST_T *)(o + j * c->rs[0]) = ST(acc);                                     \
            }                                                                              \
        }                                                                                  \
    }
WK_REDUCE_ALL_DTYPES(SCAN_ROW)
#define SCAN_TAB(E, ...) [WK_##E] = scan_##E,
static const wk_loop_fn SCAN[WK_NUM_DTYPES] = {WK_REDUCE_ALL_DTYPES(SCAN_TAB)};

/* A new tensor of self's shape and `dtype` holding the scan of self (cast to dtype) along dim. */
static wk_tensor *scan(const wk_tensor *self, int64_t dim, wk_dtype dtype, int mode) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    wk_tensor *src = wk__to_dtype(self, dtype);
    if (!src) return NULL;
    wk_tensor *out = wk__empty(self->ndim, self->sizes, dtype);
    if (out && wk__numel(out) > 0) {
        wk_rows_ctx c = {.len = self->ndim ? self->sizes[d] : 1, .arg = &mode};
        wk_tensor *ops[2] = {out, src};
        wk__rows_apply(2, ops, d, SCAN[dtype], &c);
    }
    wk_release(src);
    return out;
}

static wk_dtype scan_dtype(const wk_tensor *self, wk_dtype dtype) {
    if (dtype != WK_DTYPE_NONE) return dtype;
    return wk_dtype_is_integral(self->dtype, true) ? WK_INT64 : self->dtype;
}

int wk_impl__scan_inplace_check(wk_tensor *self, wk_dtype dtype, bool *result) {
    *result = true;
    if (dtype != WK_DTYPE_NONE && dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Bad in-place call: input tensor dtype %s and output tensor dtype %s should match",
                  wk__cpp_type_name(self->dtype), wk__cpp_type_name(dtype));
        return -1;
    }
    return 0;
}

/* torch's cumsum/cumprod kernels have no bool instance: dtype=torch.bool (or cumsum_ on a bool tensor) is refused */
static int scan_check(const wk_tensor *self, int64_t dim, wk_dtype dtype, const char *kernel) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    if (dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for 'Bool'", kernel);
        return -1;
    }
    return wk__check_diff_dtype(self, dtype);
}

wk_tensor *wk_impl_cumsum(wk_tensor *self, int64_t dim, wk_dtype dtype) {
    if (scan_check(self, dim, scan_dtype(self, dtype), "cumsum_out_cpu") < 0) return NULL;
    return scan(self, dim, scan_dtype(self, dtype), SCAN_SUM);
}

wk_tensor *wk_impl_cumprod(wk_tensor *self, int64_t dim, wk_dtype dtype) {
    if (scan_check(self, dim, scan_dtype(self, dtype), "cumprod_out_cpu") < 0) return NULL;
    return scan(self, dim, scan_dtype(self, dtype), SCAN_PROD);
}

wk_tensor *wk_impl__cumsum_backward(wk_tensor *grad, int64_t dim) {
    if (grad->ndim == 0 || wk__numel(grad) == 0) return wk_retain(grad);
    return scan(grad, dim, grad->dtype, SCAN_RSUM);
}

/* ---- cumprod's gradient. Without zeros: reversed_cumsum(result * grad) / self (recorded ops). With zeros, per row
 * with z the first zero: g_j = rcumsum(result * grad)_j / x_j for j < z; g_z = sum_{i >= z} grad_i * prod_{k <= i,
 * k != z} x_k; g_j = 0 for j > z. */
static bool has_zero(const wk_tensor *t) {
    wk_tensor *c = wk__contiguous(t);
    if (!c) return false;
    int64_t n = wk__numel(c);
    size_t es = wk_dtype_size(c->dtype);
    const char *p = wk__data(c);
    bool z = false;
    for (int64_t i = 0; i < n && !z; i++) z = wk__load_double(p + (size_t)i * es, c->dtype) == 0;
    wk_release(c);
    return z;
}

/* For every k: grad_input[k] = sum_{j >= k} grad_j * prod_{i <= j, i != k} x_i, built from prods and cumprods of
 * slices and written with grad_input.select(dim, k).copy_(...) (torch's form when grad mode is on, so that second
 * derivatives flow; the result's grad_fn is CopySlices, as torch's). */
static wk_tensor *cumprod_backward_graph(wk_tensor *grad, wk_tensor *input, int64_t dim) {
    int64_t n = input->sizes[dim];
    int64_t ones_size[WK_MAX_DIM];
    memcpy(ones_size, input->sizes, sizeof(int64_t) * (size_t)input->ndim);
    ones_size[dim] = 1;
    wk_tensor *gi = wk__zeros(input->ndim, input->sizes, grad->dtype);
    for (int64_t k = 0; k < n && gi; k++) {
        wk_cpool pool = {0};
        wk_tensor *omitted;
        if (k == 0) {
            wk_tensor *ones = P_(wk__full(input->ndim, ones_size, grad->dtype, wk_int(1)));
            wk_tensor *from = P_(wk_cumprod(P_(wk_narrow(input, dim, 1, n - 1)), dim, WK_DTYPE_NONE));
            wk_tensor *l[2] = {ones, from};
            omitted = P_(wk_cat((wk_tensorlist){l, 2}, dim));
        } else if (k == n - 1) {
            omitted = P_(wk_prod_dim_int(P_(wk_narrow(input, dim, 0, k)), dim, true, WK_DTYPE_NONE));
        } else {
            wk_tensor *until = P_(wk_prod_dim_int(P_(wk_narrow(input, dim, 0, k)), dim, true, WK_DTYPE_NONE));
            wk_tensor *from = P_(wk_cumprod(P_(wk_narrow(input, dim, k + 1, n - k - 1)), dim, WK_DTYPE_NONE));
            wk_tensor *prodk = P_(wk_mul(P_(wk_expand_as(until, from)), from));
            wk_tensor *l[2] = {until, prodk};
            omitted = P_(wk_cat((wk_tensorlist){l, 2}, dim));
        }
        wk_tensor *gs = P_(wk_sum_dim(P_(wk_mul(P_(wk_narrow(grad, dim, k, n - k)), omitted)), wk_ints(&dim, 1), false,
                                      WK_DTYPE_NONE));
        P_(wk_copy_(P_(wk_select(gi, dim, k)), gs, false));
        if (pool.failed) {
            wk_release(gi);
            gi = NULL;
        }
        wk_cpool_end(&pool, NULL);
    }
    return gi;
}

wk_tensor *wk_impl_cumprod_backward(wk_tensor *grad, wk_tensor *self, int64_t dim, wk_tensor *res) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    if (wk__numel(self) <= 1 || self->ndim == 0 || self->sizes[d] == 1) return wk_retain(grad);
    if (has_zero(self)) /* under create_graph: torch's differentiable O(n^2) form; else a direct kernel */
        return wk__grad_enabled() ? cumprod_backward_graph(grad, self, d) : wk__cumprod_backward_zeros(grad, self, dim, res);
    wk_tensor *w = wk_mul(res, grad);
    wk_tensor *r = w ? wk__cumsum_backward(w, dim) : NULL;
    wk_tensor *out = r ? wk_div(r, self, NULL) : NULL;
    wk_release(w);
    wk_release(r);
    return out;
}

typedef struct {
    wk_dtype gdt, sdt, rdt;
} cpz_ctx;

/* operands: 0 out, 1 grad, 2 self, 3 result (rows of len) */
static void cumprod_zeros_rows(char **d, const int64_t *s, int64_t n, void *ctx_) {
    const wk_rows_ctx *c = ctx_;
    const cpz_ctx *t = c->arg;
    int64_t len = c->len;
    for (int64_t i = 0; i < n; i++) {
        char *o = d[0] + i * s[0];
        const char *g = d[1] + i * s[1], *x = d[2] + i * s[2], *r = d[3] + i * s[3];
#define G(j) wk__load_double(g + (j) * c->rs[1], t->gdt)
#define X(j) wk__load_double(x + (j) * c->rs[2], t->sdt)
#define R(j) wk__load_double(r + (j) * c->rs[3], t->rdt)
#define OUT(j, v) wk__store_scalar(o + (j) * c->rs[0], t->gdt, wk_float(v))
        int64_t z = 0;
        while (z < len && X(z) != 0) z++;
        double acc = 0; /* reversed cumsum of result * grad over [j, z) */
        for (int64_t j = len - 1; j >= 0; j--) {
            if (j > z) {
                OUT(j, 0.0);
                continue;
            }
            if (j == z) {
                double pre = z > 0 ? R(z - 1) : 1.0, sum = 0;
                for (int64_t k = z; k < len; k++) {
                    if (k > z) pre *= X(k);
                    sum += G(k) * pre;
                }
                OUT(j, sum);
                continue;
            }
            acc += R(j) * G(j);
            OUT(j, acc / X(j));
        }
#undef G
#undef X
#undef R
#undef OUT
    }
}

wk_tensor *wk_impl__cumprod_backward_zeros(wk_tensor *grad, wk_tensor *self, int64_t dim, wk_tensor *res) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    wk_tensor *g = wk__expand_to(grad, self->ndim, self->sizes);
    wk_tensor *out = g ? wk__empty(self->ndim, self->sizes, grad->dtype) : NULL;
    if (out) {
        cpz_ctx t = {grad->dtype, self->dtype, res->dtype};
        wk_rows_ctx c = {.len = self->sizes[d], .arg = &t};
        wk_tensor *ops[4] = {out, g, self, res};
        wk__rows_apply(4, ops, d, cumprod_zeros_rows, &c);
    }
    wk_release(g);
    return out;
}

/* ---- cummax / cummin: a NaN, or a value >= (<=) the running one, takes over (so ties report the last index). */
#define CUMEXT_ROW(E, ST_T, CT, LD, ST)                                                    \
    static void cumext_##E(char **d, const int64_t *s, int64_t n, void *ctx_) {           \
        const wk_rows_ctx *c = ctx_;                                                       \
        const bool is_max = *(const bool *)c->arg;                                         \
        for (int64_t i = 0; i < n; i++) {                                                  \
            const char *p = d[2] + i * s[2];                                               \
            char *vo = d[0] + i * s[0], *io = d[1] + i * s[1];                             \
            ST_T best = *(const ST_T *)p;                                                  \
            CT bv = LD(best);                                                              \
            int64_t bi = 0;                                                                \
            for (int64_t j = 0; j < c->len; j++) {                                         \
                ST_T e = *(const ST_T *)(p + j * c->rs[2]);                                \
                CT v = LD(e);                                                              \
                if (WK_ISNAN(v) || (!WK_ISNAN(bv) && (is_max ? v >= bv : v <= bv))) {      \
                    best = e;                                                              \
                    bv = v;                                                                \
                    bi = j;                                                                \
                }                                                                          \
                *(ST_T *)(vo + j * c->rs[0]) = best;                                       \
                *(int64_t *)(io + j * c->rs[1]) = bi;                                      \
            }                                                                              \
        }                                                                                  \
    }
WK_REDUCE_ALL_DTYPES(CUMEXT_ROW)
#define CUMEXT_TAB(E, ...) [WK_##E] = cumext_##E,
static const wk_loop_fn CUMEXT[WK_NUM_DTYPES] = {WK_REDUCE_ALL_DTYPES(CUMEXT_TAB)};

static int cumext(wk_tensor *self, int64_t dim, bool is_max, wk_tensor **outs) {
    int64_t d = 0;
    if (self->ndim == 0 && dim != 0 && dim != -1) {
        wk__error(WK_INDEX_ERROR, "%s(): Expected reduction dim -1 or 0 for scalar but got %lld", is_max ? "cummax" : "cummin",
                  (long long)dim);
        return -1;
    }
    if (wk__numel(self) > 0 && wk__wrap_dim(dim, self->ndim, &d) < 0) return -1; /* an empty input: any dim */
    outs[0] = wk__empty(self->ndim, self->sizes, self->dtype);
    outs[1] = wk__empty(self->ndim, self->sizes, WK_INT64);
    if (!outs[0] || !outs[1]) goto fail;
    if (wk__numel(self) > 0) {
        wk_rows_ctx c = {.len = self->ndim ? self->sizes[d] : 1, .arg = &is_max};
        wk_tensor *ops[3] = {outs[0], outs[1], self};
        if (wk__rows_apply(3, ops, d, CUMEXT[self->dtype], &c) < 0) goto fail;
    }
    return 0;
fail:
    wk_release(outs[0]);
    wk_release(outs[1]);
    outs[0] = outs[1] = NULL;
    return -1;
}

int wk_impl_cummax(wk_tensor *self, int64_t dim, wk_tensor **outs) { return cumext(self, dim, true, outs); }
int wk_impl_cummin(wk_tensor *self, int64_t dim, wk_tensor **outs) { return cumext(self, dim, false, outs); }

/* out=(values, indices): torch checks their dtypes first ("expected scalar_type Long but found Int") */
static int cumext_out(wk_tensor *const *out, wk_tensor *self, int64_t dim, bool is_max) {
    for (int i = 0; i < 2; i++) {
        wk_dtype want = i ? WK_INT64 : self->dtype;
        if (out[i]->dtype != want) {
            wk__error(WK_RUNTIME_ERROR, "expected scalar_type %s but found %s", wk_dtype_scalar_name(want),
                      wk_dtype_scalar_name(out[i]->dtype));
            return -1;
        }
    }
    wk_tensor *r[2];
    if (cumext(self, dim, is_max, r) < 0) return -1;
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) rc = wk__write_out(out[i], r[i]);
    wk_release(r[0]);
    wk_release(r[1]);
    return rc;
}
int wk_impl_cummax_out(wk_tensor *const *out, wk_tensor *self, int64_t dim) { return cumext_out(out, self, dim, true); }
int wk_impl_cummin_out(wk_tensor *const *out, wk_tensor *self, int64_t dim) { return cumext_out(out, self, dim, false); }

/* ---- logcumsumexp: acc = log_add_exp(x, acc) from acc = -inf, with torch's handling of infinities */
static double log_add_exp(double x, double y) {
    double mn = WK_ISNAN(y) ? y : (x < y ? x : y), mx = WK_ISNAN(y) ? y : (x > y ? x : y);
    if (WK_ISNAN(x)) mn = mx = x; /* std::min / std::max return their first argument when it is nan */
    if (mn != mx || isfinite(mn)) return log1p(exp(mn - mx)) + mx;
    return x;
}

/* operands: 0 out, 1 self (same floating dtype) */
static void lcse_rows(char **d, const int64_t *s, int64_t n, void *ctx_) {
    const wk_rows_ctx *c = ctx_;
    wk_dtype dt = *(const wk_dtype *)c->arg;
    for (int64_t i = 0; i < n; i++) {
        char *o = d[0] + i * s[0];
        const char *p = d[1] + i * s[1];
        double acc = -INFINITY;
        for (int64_t j = 0; j < c->len; j++) {
            acc = log_add_exp(wk__load_double(p + j * c->rs[1], dt), acc);
            wk__store_scalar(o + j * c->rs[0], dt, wk_float(acc));
        }
    }
}

wk_tensor *wk_impl_logcumsumexp(wk_tensor *self, int64_t dim) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"logcumsumexp_out_cpu\" not implemented for '%s'",
                  wk_dtype_scalar_name(self->dtype));
        return NULL;
    }
    wk_tensor *out = wk__empty(self->ndim, self->sizes, self->dtype);
    if (out && wk__numel(out) > 0) {
        wk_dtype dt = self->dtype;
        wk_rows_ctx c = {.len = self->ndim ? self->sizes[d] : 1, .arg = &dt};
        wk_tensor *ops[2] = {out, self};
        wk__rows_apply(2, ops, d, lcse_rows, &c);
    }
    return out;
}

/* torch's logcumsumexp_backward, composed of recorded ops (so differentiable again): with the positive and the
 * negative parts of grad in log space, out = exp(rlcse(log|g+| - r) + x) - exp(rlcse(log|g-| - r) + x), rlcse the
 * reversed logcumsumexp along dim. */
static double lowest_of(wk_dtype dt) {
    switch (dt) {
    case WK_FLOAT16: return -65504.0;
    case WK_BFLOAT16: return -3.3895313892515355e38;
    case WK_FLOAT32: return -3.4028234663852886e38;
    default: return -1.7976931348623157e308;
    }
}

wk_tensor *wk_impl__logcumsumexp_backward(wk_tensor *grad, wk_tensor *self, wk_tensor *res, int64_t dim) {
    if (grad->ndim == 0 || wk__numel(grad) == 0) return wk_retain(grad);
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    wk_cpool pool = {0};
    wk_scalar lo = wk_float(lowest_of(grad->dtype));
    wk_tensor *la = P_(wk_log(P_(wk_abs(grad))));
    wk_tensor *lp = P_(wk_where_ScalarOther(P_(wk_gt_Scalar(grad, wk_int(0))), la, lo));
    wk_tensor *ln = P_(wk_where_ScalarOther(P_(wk_lt_Scalar(grad, wk_int(0))), la, lo));
    wk_intlist dl = wk_ints(&d, 1);
    wk_tensor *rp = P_(wk_flip(P_(wk_logcumsumexp(P_(wk_flip(P_(wk_sub(lp, res, wk_int(1))), dl)), d)), dl));
    wk_tensor *op = P_(wk_exp(P_(wk_add(rp, self, wk_int(1)))));
    wk_tensor *rn = P_(wk_flip(P_(wk_logcumsumexp(P_(wk_flip(P_(wk_sub(ln, res, wk_int(1))), dl)), d)), dl));
    wk_tensor *on = P_(wk_exp(P_(wk_add(rn, self, wk_int(1)))));
    return wk_cpool_end(&pool, P_(wk_sub(op, on, wk_int(1))));
}
