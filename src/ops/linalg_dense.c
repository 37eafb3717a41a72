/* linalg_dense.c — dense linear algebra: linalg.inv / inv_ex, det, slogdet, logdet, solve / solve_ex,
 * cholesky / cholesky_ex, for float32 and float64, batched over any leading dims.
 *
 * Note [LU as LAPACK's]: every op but cholesky starts from an LU factorisation with partial pivoting, P A = L U,
 * computed as LAPACK's getrf chooses it: at step k the pivot is the entry of largest absolute value in column k
 * at or below the diagonal, the first one on ties; a zero pivot is not swapped, the column not scaled, and
 * `info` is the (1-based) index of the first zero diagonal element of U. So singular detection, the sign of det
 * and the messages are torch's; the values agree with MKL's blocked kernels to rounding (a few ulps).
 * torch's linalg.inv is linalg.solve(A, I); det = sign(P) * prod(diag(U)); slogdet = (sign(P) * prod(sgn(diag U)),
 * sum(log|diag U|)). Each matrix is copied into a contiguous row-major scratch in its own dtype. */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/reduce.h"
#include "ops/linalg_dense.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels (one n x n matrix, row-major) ---- */
#define LU_KERNEL(NAME, T)                                                                                     \
    static int64_t NAME(T *a, int64_t n, int64_t *piv) {                                                      \
        int64_t info = 0;                                                                                      \
        for (int64_t k = 0; k < n; k++) {                                                                      \
            int64_t p = k;                                                                                     \
            T best = (T)fabs((double)a[k * n + k]);                                                            \
            for (int64_t i = k + 1; i < n; i++) {                                                              \
                T v = (T)fabs((double)a[i * n + k]);                                                           \
                if (v > best) {                                                                                \
                    best = v;                                                                                  \
                    p = i;                                                                                     \
                }                                                                                              \
            }                                                                                                  \
            piv[k] = p;                                                                                        \
            if (a[p * n + k] != 0) {                                                                           \
                if (p != k)                                                                                    \
                    for (int64_t j = 0; j < n; j++) {                                                          \
                        T t = a[k * n + j];                                                                    \
                        a[k * n + j] = a[p * n + j];                                                           \
                        a[p * n + j] = t;                                                                      \
                    }                                                                                          \
                T d = a[k * n + k];                                                                            \
                for (int64_t i = k + 1; i < n; i++) a[i * n + k] /= d;                                         \
            } else if (!info) {                                                                                \
                info = k + 1;                                                                                  \
            }                                                                                                  \
            for (int64_t i = k + 1; i < n; i++) {                                                              \
                T l = a[i * n + k];                                                                            \
                if (l == 0) continue;                                                                          \
                for (int64_t j = k + 1; j < n; j++) a[i * n + j] = FMA(-l, a[k * n + j], a[i * n + j]);       \
            }                                                                                                  \
        }                                                                                                      \
        return info;                                                                                           \
    }
#define FMA fmaf
LU_KERNEL(lu_f32, float)
#undef FMA
#define FMA fma
LU_KERNEL(lu_f64, double)
#undef FMA

/* b [n, m] := A^-1 b from the factors of lu_*: the row swaps, L (unit lower) forward, U backward. */
#define LU_SOLVE_KERNEL(NAME, T)                                                                               \
    static void NAME(const T *lu, const int64_t *piv, int64_t n, T *b, int64_t m) {                           \
        for (int64_t k = 0; k < n; k++)                                                                        \
            if (piv[k] != k)                                                                                   \
                for (int64_t j = 0; j < m; j++) {                                                              \
                    T t = b[k * m + j];                                                                        \
                    b[k * m + j] = b[piv[k] * m + j];                                                          \
                    b[piv[k] * m + j] = t;                                                                     \
                }                                                                                              \
        for (int64_t k = 0; k < n; k++)                                                                        \
            for (int64_t i = k + 1; i < n; i++) {                                                              \
                T l = lu[i * n + k];                                                                           \
                if (l == 0) continue;                                                                          \
                for (int64_t j = 0; j < m; j++) b[i * m + j] = FMA(-l, b[k * m + j], b[i * m + j]);                         \
            }                                                                                                  \
        for (int64_t k = n - 1; k >= 0; k--) {                                                                 \
            T d = lu[k * n + k];                                                                               \
            for (int64_t j = 0; j < m; j++) b[k * m + j] /= d;                                                 \
            for (int64_t i = 0; i < k; i++) {                                                                  \
                T u = lu[i * n + k];                                                                           \
                if (u == 0) continue;                                                                          \
                for (int64_t j = 0; j < m; j++) b[i * m + j] = FMA(-u, b[k * m + j], b[i * m + j]);                         \
            }                                                                                                  \
        }                                                                                                      \
    }
#define FMA fmaf
LU_SOLVE_KERNEL(lu_solve_f32, float)
#undef FMA
#define FMA fma
LU_SOLVE_KERNEL(lu_solve_f64, double)
#undef FMA

/* Cholesky of the lower triangle of a (n x n, row-major) in place, LAPACK potf2's order: returns info (the order
 * of the first leading minor that is not positive-definite, its diagonal entry left as computed, the rest of a
 * untouched) and zeroes the strict upper triangle. */
#define CHOL_KERNEL(NAME, T)                                                                                   \
    static int64_t NAME(T *a, int64_t n) {                                                                     \
        int64_t info = 0;                                                                                      \
        for (int64_t j = 0; j < n && !info; j++) {                                                             \
            T s = 0;                                                                                           \
            for (int64_t k = 0; k < j; k++) s += a[j * n + k] * a[j * n + k];                                  \
            T ajj = a[j * n + j] - s;                                                                          \
            if (!(ajj > 0)) {                                                                                  \
                a[j * n + j] = ajj;                                                                            \
                info = j + 1;                                                                                  \
                break;                                                                                         \
            }                                                                                                  \
            ajj = (T)sqrt((double)ajj);                                                                        \
            a[j * n + j] = ajj;                                                                                \
            T r = (T)1 / ajj;                                                                                  \
            for (int64_t i = j + 1; i < n; i++) {                                                              \
                T t = 0;                                                                                       \
                for (int64_t k = 0; k < j; k++) t += a[i * n + k] * a[j * n + k];                              \
                a[i * n + j] = (a[i * n + j] - t) * r;                                                         \
            }                                                                                                  \
        }                                                                                                      \
        for (int64_t i = 0; i < n; i++)                                                                        \
            for (int64_t j = i + 1; j < n; j++) a[i * n + j] = 0;                                              \
        return info;                                                                                           \
    }
CHOL_KERNEL(chol_f32, float)
CHOL_KERNEL(chol_f64, double)

/* ---- checks, with torch's messages ---- */
/* squareCheckInputs: at least 2 dims, square */
static int check_square(const wk_tensor *A, const char *api, const char *arg) {
    if (A->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "%s: The input tensor %s must have at least 2 dimensions.", api, arg);
        return -1;
    }
    if (A->sizes[A->ndim - 1] != A->sizes[A->ndim - 2]) {
        wk__error(WK_RUNTIME_ERROR, "%s: %s must be batches of square matrices, but they are %lld by %lld matrices",
                  api, arg, (long long)A->sizes[A->ndim - 2], (long long)A->sizes[A->ndim - 1]);
        return -1;
    }
    return 0;
}
/* checkFloatingOrComplex; low_precision false: Half / BFloat16 refused with torch's words */
static int check_floating(const wk_tensor *A, const char *api, bool low_precision) {
    if (!wk_dtype_is_floating(A->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "%s: Expected a floating point or complex tensor as input. Got %s", api,
                  wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    if (!low_precision && (A->dtype == WK_FLOAT16 || A->dtype == WK_BFLOAT16)) {
        wk__error(WK_RUNTIME_ERROR, "%s: Low precision dtypes not supported. Got %s", api,
                  wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    return 0;
}
/* the kernels' dispatch: float32 / float64 only ('"lu_cpu" not implemented for 'Half'') */
static int check_kernel_dtype(const wk_tensor *A, const char *kernel) {
    if (A->dtype != WK_FLOAT32 && A->dtype != WK_FLOAT64 && wk__numel(A) > 0) { /* empty input: no kernel runs */
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", kernel, wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    return 0;
}

/* _linalg_check_errors: the first batch element with info != 0 raises LinAlgError */
typedef enum { INFO_INV, INFO_SOLVE, INFO_CHOLESKY } info_kind;
static int check_info(const wk_tensor *info, const char *api, bool is_matrix, info_kind kind) {
    int64_t nb = wk__numel(info);
    const int32_t *p = (const int32_t *)wk__data(info);
    for (int64_t b = 0; b < nb; b++) {
        if (p[b] == 0) continue;
        char batch[64] = "";
        if (!is_matrix) snprintf(batch, sizeof batch, "(Batch element %lld): ", (long long)b);
        if (p[b] < 0) {
            wk__error(WK_RUNTIME_ERROR, "%s: %sArgument %d has illegal value. Most certainly there is a bug in the "
                      "implementation calling the backend library.", api, batch, -p[b]);
        } else if (kind == INFO_INV) {
            wk__error(WK_LINALG_ERROR, "%s: %sThe diagonal element %d is zero, the inversion could not be completed "
                      "because the input matrix is singular.", api, batch, p[b]);
        } else if (kind == INFO_SOLVE) {
            wk__error(WK_LINALG_ERROR, "%s: %sThe solver failed because the input matrix is singular.", api, batch);
        } else {
            wk__error(WK_LINALG_ERROR, "%s: %sThe factorization could not be completed because the input is not "
                      "positive-definite (the leading minor of order %d is not positive-definite).", api, batch, p[b]);
        }
        return -1;
    }
    return 0;
}

/* ---- LU-based ops ---- */
static wk_tensor *swap_view(const wk_tensor *t, int i, int j);

/* Note [LU of A^T]: torch's det / slogdet factor A^T instead of A when A is contiguous (row-major is A^T's
 * column-major, the layout LAPACK wants: no copy; det(A^T) = det(A)); solve and inv factor A itself (their `info`
 * is A's). The pivots, exact zeros and rounding follow from that choice, so wick makes it too:
 * det([[2, 3, 1], [4, 6, 2], [1, 0, 5]]) is -2.9976e-15 as torch's, and -0. for its non-contiguous transpose's
 * transpose. A [*, n, n] (checked) -> the LU factors of A (or of A^T with `use_t`) in a contiguous copy. */
static wk_tensor *lu_batch_t(const wk_tensor *A, bool use_t, wk_tensor **piv_out, wk_tensor **info_out) {
    int nd = A->ndim;
    int64_t n = A->sizes[nd - 1], nb = wk__prod(A->sizes, nd - 2);
    wk_tensor *At = use_t ? swap_view(A, nd - 2, nd - 1) : NULL;
    wk_tensor *lu = use_t ? (At ? wk__clone(At) : NULL) : wk__clone(A);
    wk_release(At);
    wk_tensor *piv = lu ? wk__empty(nd - 1, A->sizes, WK_INT64) : NULL;
    wk_tensor *info = piv ? wk__empty(nd - 2, A->sizes, WK_INT32) : NULL;
    if (!info) {
        wk_release(lu);
        wk_release(piv);
        return NULL;
    }
    int64_t *pp = (int64_t *)wk__data(piv);
    int32_t *pi = (int32_t *)wk__data(info);
    char *pa = wk__data(lu);
    for (int64_t b = 0; b < nb; b++) {
        if (A->dtype == WK_FLOAT64)
            pi[b] = (int32_t)lu_f64((double *)pa + b * n * n, n, pp + b * n);
        else
            pi[b] = (int32_t)lu_f32((float *)pa + b * n * n, n, pp + b * n);
    }
    *piv_out = piv;
    *info_out = info;
    return lu;
}
static wk_tensor *lu_batch(const wk_tensor *A, wk_tensor **piv_out, wk_tensor **info_out) {
    return lu_batch_t(A, wk__is_contiguous(A), piv_out, info_out);
}

/* a view of t with dims i and j swapped (no autograd) */
static wk_tensor *swap_view(const wk_tensor *t, int i, int j) {
    int64_t sz[WK_MAX_DIM], st[WK_MAX_DIM];
    for (int d = 0; d < t->ndim; d++) {
        sz[d] = t->sizes[d];
        st[d] = t->strides[d];
    }
    sz[i] = t->sizes[j], sz[j] = t->sizes[i];
    st[i] = t->strides[j], st[j] = t->strides[i];
    return wk__alias(t, t->ndim, sz, st, t->offset);
}

/* X [batch, n, m] = A^-1 B for A [*, n, n] (its batch broadcastable to `batch`) and B already [batch, n, m];
 * info [*]: over A's own batch, as torch's */
static int solve_batch(const wk_tensor *A, const wk_tensor *B, wk_tensor **x_out, wk_tensor **info_out) {
    wk_tensor *piv = NULL, *info = NULL;
    wk_tensor *lu = lu_batch_t(A, false, &piv, &info); /* solve and inv factor A itself (their info is A's) */
    if (!lu) return -1;
    int nd = B->ndim;
    int64_t n = A->sizes[A->ndim - 1], m = B->sizes[nd - 1], nb = wk__prod(B->sizes, nd - 2);
    int64_t psz[WK_MAX_DIM];
    for (int d = 0; d < nd - 2; d++) psz[d] = B->sizes[d];
    psz[nd - 2] = psz[nd - 1] = n; /* lu [batch, n, n], piv [batch, n] */
    wk_tensor *lue = wk__expand_to(lu, nd, psz), *pive = lue ? wk__expand_to(piv, nd - 1, psz) : NULL;
    wk_tensor *luc = pive ? wk__contiguous(lue) : NULL, *pivc = luc ? wk__contiguous(pive) : NULL;
    wk_tensor *x = pivc ? wk__clone(B) : NULL;
    wk_release(lu);
    wk_release(piv);
    wk_release(lue);
    wk_release(pive);
    if (!x) {
        wk_release(luc);
        wk_release(pivc);
        wk_release(info);
        return -1;
    }
    const int64_t *pp = (const int64_t *)wk__data(pivc);
    const char *pa = wk__data(luc);
    char *px = wk__data(x);
    for (int64_t b = 0; b < nb; b++) {
        if (A->dtype == WK_FLOAT64)
            lu_solve_f64((const double *)pa + b * n * n, pp + b * n, n, (double *)px + b * n * m, m);
        else
            lu_solve_f32((const float *)pa + b * n * n, pp + b * n, n, (float *)px + b * n * m, m);
    }
    wk_release(luc);
    wk_release(pivc);
    *x_out = x;
    *info_out = info;
    return 0;
}

int wk_impl_linalg_inv_ex(wk_tensor *A, bool check_errors, wk_tensor **outs) {
    if (check_square(A, "linalg.inv", "A") < 0 || check_floating(A, "linalg.inv", false) < 0) return -1;
    wk_tensor *eye = wk__zeros(A->ndim, A->sizes, A->dtype);
    if (!eye) return -1;
    int64_t n = A->sizes[A->ndim - 1], nb = wk__prod(A->sizes, A->ndim - 2);
    size_t esz = wk_dtype_size(A->dtype);
    char *pe = wk__data(eye);
    for (int64_t b = 0; b < nb; b++)
        for (int64_t i = 0; i < n; i++) wk__store_scalar(pe + (size_t)((b * n + i) * n + i) * esz, A->dtype, wk_float(1));
    wk_tensor *x = NULL, *info = NULL;
    int rc = solve_batch(A, eye, &x, &info);
    wk_release(eye);
    if (rc < 0) return -1;
    if (check_errors && check_info(info, "linalg.inv_ex", A->ndim == 2, INFO_INV) < 0) {
        wk_release(x);
        wk_release(info);
        return -1;
    }
    outs[0] = x;
    outs[1] = info;
    return 0;
}

wk_tensor *wk_impl_linalg_inv(wk_tensor *A) {
    wk_tensor *outs[2];
    if (wk_linalg_inv_ex(A, false, outs) < 0) return NULL;
    int rc = check_info(outs[1], "linalg.inv", A->ndim == 2, INFO_INV);
    wk_release(outs[1]);
    if (rc < 0) {
        wk_release(outs[0]);
        return NULL;
    }
    return outs[0];
}

wk_tensor *wk_impl_inverse(wk_tensor *self) { return wk_linalg_inv(self); }

/* det / slogdet of every matrix: one LU each */
static int det_common(const wk_tensor *A, const char *api, bool logdet, wk_tensor **outs) {
    if (check_square(A, api, "A") < 0 || check_floating(A, api, !logdet) < 0) return -1;
    if (!logdet && check_kernel_dtype(A, "lu_cpu") < 0) return -1;
    wk_tensor *piv = NULL, *info = NULL;
    wk_tensor *lu = lu_batch(A, &piv, &info);
    if (!lu) return -1;
    wk_release(info);
    int nd = A->ndim;
    int64_t n = A->sizes[nd - 1], nb = wk__prod(A->sizes, nd - 2);
    wk_tensor *r0 = wk__empty(nd - 2, A->sizes, A->dtype);
    wk_tensor *r1 = r0 && logdet ? wk__empty(nd - 2, A->sizes, A->dtype) : NULL;
    if (!r0 || (logdet && !r1)) {
        wk_release(lu);
        wk_release(piv);
        wk_release(r0);
        return -1;
    }
    const int64_t *pp = (const int64_t *)wk__data(piv);
    const char *pa = wk__data(lu);
    size_t esz = wk_dtype_size(A->dtype);
    bool f64 = A->dtype == WK_FLOAT64;
    for (int64_t b = 0; b < nb; b++) {
        double sp = 1; /* sign(P) */
        for (int64_t k = 0; k < n; k++)
            if (pp[b * n + k] != k) sp = -sp;
        if (!logdet) {
            double v;
            if (f64) {
                double p = 1;
                for (int64_t k = 0; k < n; k++) p *= ((const double *)pa)[b * n * n + k * n + k];
                v = sp * p;
            } else {
                float p = 1;
                for (int64_t k = 0; k < n; k++) p *= ((const float *)pa)[b * n * n + k * n + k];
                v = (float)sp * p;
            }
            wk__store_scalar((char *)wk__data(r0) + (size_t)b * esz, A->dtype, wk_float(v)); /* half: 0 x 0 only */
        } else {
            double sg = sp, la = 0;
            float laf = 0;
            for (int64_t k = 0; k < n; k++) {
                double d = f64 ? ((const double *)pa)[b * n * n + k * n + k] : ((const float *)pa)[b * n * n + k * n + k];
                sg *= d > 0 ? 1 : d < 0 ? -1 : d == 0 ? 0 : d; /* sgn, NaN kept */
                if (f64)
                    la += log(fabs(d));
                else
                    laf += logf(fabsf((float)d));
            }
            wk__store_scalar((char *)wk__data(r0) + (size_t)b * esz, A->dtype, wk_float(sg));
            wk__store_scalar((char *)wk__data(r1) + (size_t)b * esz, A->dtype, wk_float(f64 ? la : (double)laf));
        }
    }
    wk_release(lu);
    wk_release(piv);
    outs[0] = r0;
    if (logdet) outs[1] = r1;
    return 0;
}

wk_tensor *wk_impl_linalg_det(wk_tensor *A) {
    wk_tensor *r = NULL;
    return det_common(A, "linalg.det", false, &r) < 0 ? NULL : r;
}

wk_tensor *wk_impl_det(wk_tensor *self) { return wk_linalg_det(self); }

int wk_impl_linalg_slogdet(wk_tensor *A, wk_tensor **outs) { return det_common(A, "linalg.slogdet", true, outs); }

int wk_impl_slogdet(wk_tensor *self, wk_tensor **outs) { return wk_linalg_slogdet(self, outs); }

/* torch's logdet: where(sign == -1, nan, logabsdet) */
wk_tensor *wk_impl_logdet(wk_tensor *self) {
    if (check_square(self, "logdet", "A") < 0 || check_floating(self, "logdet", false) < 0) return NULL;
    wk_tensor *sl[2];
    if (wk_linalg_slogdet(self, sl) < 0) return NULL;
    wk_tensor *neg = wk_eq_Scalar(sl[0], wk_float(-1));
    wk_tensor *nan = neg ? wk_scalar_tensor(wk_float(NAN), self->dtype, false) : NULL;
    wk_tensor *r = nan ? wk_where_self(neg, nan, sl[1]) : NULL;
    wk_release(neg);
    wk_release(nan);
    wk_release(sl[0]);
    wk_release(sl[1]);
    return r;
}

/* torch's linalg_det_backward: (grad * det)[..., None, None] * inv(A)^T. With every det nonzero it is torch's
 * linalg_solve (differentiable again, LinalgSolveExBackward0); otherwise torch's first-order path: lu_solve with
 * the LU's zero pivots replaced by eps (so a singular matrix's gradient is grad * 0 * a finite matrix: zeros). */
wk_tensor *wk_impl__linalg_det_backward(wk_tensor *grad, wk_tensor *det, wk_tensor *A) {
    /* A: batches of square matrices; det: A's batch shape; grad: expandable to it (each indexed below) */
    if (A->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "linalg.det: The input tensor A must have at least 2 dimensions.");
    if (A->sizes[A->ndim - 1] != A->sizes[A->ndim - 2])
        return WK_FAIL(WK_RUNTIME_ERROR, "linalg.det: A must be batches of square matrices, but they are %lld by %lld matrices",
                       (long long)A->sizes[A->ndim - 2], (long long)A->sizes[A->ndim - 1]);
    if (det->ndim != A->ndim - 2 || memcmp(det->sizes, A->sizes, sizeof(int64_t) * (size_t)det->ndim))
        return WK_FAIL(WK_RUNTIME_ERROR, "_linalg_det_backward: det must have A's batch shape");
    wk_tensor *gchk = wk__expand_to(grad, det->ndim, det->sizes); /* torch's expand error */
    if (!gchk) return NULL;
    wk_release(gchk);
    wk_tensor *dc = wk__to_dtype(det, WK_FLOAT64);
    wk_tensor *dcc = dc ? wk__contiguous(dc) : NULL;
    wk_release(dc);
    if (!dcc) return NULL;
    int64_t nb = wk__numel(dcc);
    const double *pd = (const double *)wk__data(dcc);
    bool singular = false;
    for (int64_t b = 0; b < nb; b++) singular |= pd[b] == 0;
    wk_release(dcc);
    if (!singular) { /* torch's: linalg_solve(A^H, diag_embed((grad * det).unsqueeze(-1).expand_as(pivots))) */
        wk_tensor *gd = wk_mul(grad, det);
        wk_tensor *r = gd ? wk__linalg_slogdet_backward(gd, A) : NULL;
        wk_release(gd);
        return r;
    }
    int nd = A->ndim;
    int64_t n = A->sizes[nd - 1];
    wk_tensor *a64 = wk__to_dtype(A, WK_FLOAT64);
    wk_tensor *ac = a64 ? wk__clone(a64) : NULL;
    wk_tensor *d64 = wk__to_dtype(det, WK_FLOAT64);
    wk_tensor *dcl = d64 ? wk__clone(d64) : NULL;
    wk_tensor *g64 = wk__to_dtype(grad, WK_FLOAT64);
    wk_tensor *ge = g64 ? wk__expand_to(g64, nd - 2, A->sizes) : NULL;
    wk_tensor *gc = ge ? wk__clone(ge) : NULL;
    wk_tensor *out = gc ? wk__empty(nd, A->sizes, WK_FLOAT64) : NULL;
    double *scratch = out ? wk__malloc(sizeof(double) * (size_t)(2 * n * n + 1)) : NULL;
    int64_t *piv = scratch ? wk__malloc(sizeof(int64_t) * (size_t)(n + 1)) : NULL;
    wk_tensor *r = NULL;
    if (piv) {
        const double *pa = (const double *)wk__data(ac), *pg = (const double *)wk__data(gc);
        const double *pdet = (const double *)wk__data(dcl);
        double *po = (double *)wk__data(out);
        double eps = A->dtype == WK_FLOAT64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
        for (int64_t b = 0; b < nb; b++) {
            double *o = po + b * n * n;
            double *lu = scratch, *e = scratch + n * n;
            memcpy(lu, pa + b * n * n, sizeof(double) * (size_t)(n * n));
            lu_f64(lu, n, piv);
            for (int64_t k = 0; k < n; k++)
                if (lu[k * n + k] == 0) lu[k * n + k] = eps;
            double gd = pg[b] * pdet[b];
            for (int64_t i = 0; i < n * n; i++) e[i] = (i / n == i % n) ? gd : 0;
            lu_solve_f64(lu, piv, n, e, n);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) o[i * n + j] = e[j * n + i];
        }
        r = wk__to_dtype(out, A->dtype);
    }
    free(scratch);
    free(piv);
    wk_release(a64);
    wk_release(ac);
    wk_release(d64);
    wk_release(dcl);
    wk_release(g64);
    wk_release(ge);
    wk_release(gc);
    wk_release(out);
    return r;
}

wk_tensor *wk_impl__linalg_slogdet_backward(wk_tensor *grad, wk_tensor *A) {
    /* torch's: linalg_solve(A^H, diag_embed(g.unsqueeze(-1).expand_as(pivots))); a singular A gives inf / nan (as
     * torch's lu_solve there), not an error */
    wk_tensor *g1 = wk_unsqueeze(grad, -1);
    wk_tensor *ge = g1 ? wk_expand(g1, wk_ints(A->sizes, A->ndim - 1), false) : NULL;
    wk_tensor *d = ge ? wk_diag_embed(ge, 0, -2, -1) : NULL;
    wk_tensor *At = d ? wk_transpose(A, -2, -1) : NULL;
    wk_tensor *outs[2] = {NULL, NULL};
    if (At && wk_linalg_solve_ex(At, d, true, false, outs) == 0) wk_release(outs[1]);
    wk_release(g1);
    wk_release(ge);
    wk_release(d);
    wk_release(At);
    return outs[0];
}

/* ---- solve ---- */
/* linalg_solve_is_vector_rhs: B is 1-D, or A.shape[:-1] */
static bool solve_is_vector(const wk_tensor *A, const wk_tensor *B) {
    if (B->ndim == 1) return true;
    if (B->ndim != A->ndim - 1) return false;
    for (int i = 0; i < B->ndim; i++)
        if (B->sizes[i] != A->sizes[i]) return false;
    return true;
}

int wk_impl_linalg_solve_ex(wk_tensor *A, wk_tensor *B, bool left, bool check_errors, wk_tensor **outs) {
    const char *api = "linalg.solve";
    if (check_floating(A, api, true) < 0) return -1;
    if (A->dtype != B->dtype) {
        wk__error(WK_RUNTIME_ERROR, "linalg.solve: Expected A and B to have the same dtype, but found A of type %s "
                  "and B of type %s instead", wk_dtype_scalar_name(A->dtype), wk_dtype_scalar_name(B->dtype));
        return -1;
    }
    bool vec = A->ndim >= 1 && solve_is_vector(A, B);
    if (check_square(A, api, "A") < 0) return -1;
    int bnd = vec ? B->ndim + 1 : B->ndim; /* B_ = vec ? B.unsqueeze(-1) : B */
    int64_t bs[WK_MAX_DIM + 1];
    for (int i = 0; i < B->ndim; i++) bs[i] = B->sizes[i];
    if (vec) bs[B->ndim] = 1;
    if (bnd < 2) {
        wk__error(WK_RUNTIME_ERROR, "%s: The input tensor B must have at least 2 dimensions.", api);
        return -1;
    }
    int64_t n = A->sizes[A->ndim - 1];
    if (left ? n != bs[bnd - 2] : n != bs[bnd - 1]) {
        wk__error(WK_RUNTIME_ERROR, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)",
                  api, left ? "AX = B" : "XA = B", (long long)n, (long long)n, (long long)bs[bnd - 2],
                  (long long)bs[bnd - 1]);
        return -1;
    }
    int nbatch = 0;
    int64_t batch[WK_MAX_DIM];
    if (wk__broadcast_shapes(bnd - 2, bs, A->ndim - 2, A->sizes, &nbatch, batch) < 0) return -1;
    if (!left && vec) {
        wk__error(WK_RUNTIME_ERROR, "linalg.solve: Vector broadcasting of the left hand side is not supported for "
                  "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
        return -1;
    }
    if (check_kernel_dtype(A, "lu_cpu") < 0) return -1;
    if (nbatch + 2 > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "linalg.solve: too many dimensions");
        return -1;
    }
    /* left=False: X A = B is A^T X^T = B^T */
    int64_t xs[WK_MAX_DIM];
    for (int i = 0; i < nbatch; i++) xs[i] = batch[i];
    xs[nbatch] = left ? bs[bnd - 2] : bs[bnd - 1];
    xs[nbatch + 1] = left ? bs[bnd - 1] : bs[bnd - 2];
    wk_tensor *Bv;
    if (vec) { /* B.unsqueeze(-1) */
        int64_t st[WK_MAX_DIM + 1];
        for (int i = 0; i < B->ndim; i++) st[i] = B->strides[i];
        st[B->ndim] = 1;
        Bv = wk__alias(B, bnd, bs, st, B->offset);
    } else {
        Bv = wk_retain(B);
    }
    if (!Bv) return -1;
    wk_tensor *Bx = left ? wk_retain(Bv) : swap_view(Bv, bnd - 2, bnd - 1);
    wk_tensor *Ax = left ? wk_retain(A) : swap_view(A, A->ndim - 2, A->ndim - 1);
    wk_tensor *Be = Bx && Ax ? wk__expand_to(Bx, nbatch + 2, xs) : NULL;
    wk_tensor *x = NULL, *info = NULL;
    int rc = Be ? solve_batch(Ax, Be, &x, &info) : -1;
    wk_release(Bv);
    wk_release(Bx);
    wk_release(Ax);
    wk_release(Be);
    if (rc < 0) return -1;
    wk_tensor *res = NULL;
    if (left) {
        if (vec) { /* squeeze(-1) of a contiguous [batch, n, 1] */
            int64_t st[WK_MAX_DIM];
            wk__contiguous_strides(nbatch + 1, xs, st);
            res = wk__alias(x, nbatch + 1, xs, st, 0);
        } else {
            res = wk_retain(x);
        }
    } else {
        wk_tensor *xt = swap_view(x, nbatch, nbatch + 1);
        res = xt ? wk__contiguous(xt) : NULL;
        wk_release(xt);
    }
    wk_release(x);
    if (!res) {
        wk_release(info);
        return -1;
    }
    if (check_errors && check_info(info, "torch.linalg.solve_ex", A->ndim == 2, INFO_SOLVE) < 0) {
        wk_release(res);
        wk_release(info);
        return -1;
    }
    outs[0] = res;
    outs[1] = info;
    return 0;
}

wk_tensor *wk_impl_linalg_solve(wk_tensor *A, wk_tensor *B, bool left) {
    wk_tensor *outs[2];
    if (wk_linalg_solve_ex(A, B, left, false, outs) < 0) return NULL;
    int rc = check_info(outs[1], "torch.linalg.solve", A->ndim == 2, INFO_SOLVE);
    wk_release(outs[1]);
    if (rc < 0) {
        wk_release(outs[0]);
        return NULL;
    }
    return outs[0];
}

/* torch's linalg_solve_backward. which 0: gA, 1: gB. With vector_to_matrix / matrix_to_vector the unsqueeze(-1) /
 * squeeze(-1) of a vector right-hand side: gB_ = solve(A^T, vector_to_matrix(gX), left), gB = matrix_to_vector(gB_),
 * gA = -gB_ X_^T (left) or -X_^T gB_ */
wk_tensor *wk_impl__linalg_solve_backward(wk_tensor *grad, wk_tensor *A, wk_tensor *B, wk_tensor *result, bool left,
                                          int64_t which) {
    bool vec = solve_is_vector(A, B);
    wk_tensor *At = wk_transpose(A, -2, -1);
    wk_tensor *g = At ? (vec ? wk_unsqueeze(grad, -1) : wk_retain(grad)) : NULL;
    wk_tensor *gB_ = g ? wk_linalg_solve(At, g, left) : NULL;
    wk_release(At);
    wk_release(g);
    if (!gB_) return NULL;
    if (which == 1) {
        if (!vec) return gB_;
        wk_tensor *r = wk_squeeze_dim(gB_, -1);
        wk_release(gB_);
        return r;
    }
    wk_tensor *x = vec ? wk_unsqueeze(result, -1) : wk_retain(result);
    wk_tensor *xt = x ? wk_transpose(x, -2, -1) : NULL;
    wk_tensor *p = xt ? (left ? wk_matmul(gB_, xt) : wk_matmul(xt, gB_)) : NULL;
    wk_tensor *r = p ? wk_neg(p) : NULL;
    wk_release(gB_);
    wk_release(x);
    wk_release(xt);
    wk_release(p);
    return r;
}

/* ---- cholesky ---- */
int wk_impl_linalg_cholesky_ex(wk_tensor *self, bool upper, bool check_errors, wk_tensor **outs) {
    const char *api = "linalg.cholesky";
    if (check_square(self, api, "A") < 0 || check_floating(self, api, true) < 0 ||
        check_kernel_dtype(self, "cholesky_cpu") < 0)
        return -1;
    int nd = self->ndim;
    int64_t n = self->sizes[nd - 1], nb = wk__prod(self->sizes, nd - 2);
    /* upper: U = L^T of A^T's lower triangle (A's upper one) */
    wk_tensor *src = upper ? swap_view(self, nd - 2, nd - 1) : wk_retain(self);
    wk_tensor *L = src ? wk__clone(src) : NULL;
    wk_release(src);
    wk_tensor *info = L ? wk__empty(nd - 2, self->sizes, WK_INT32) : NULL;
    if (!info) {
        wk_release(L);
        return -1;
    }
    int32_t *pi = (int32_t *)wk__data(info);
    char *pl = wk__data(L);
    for (int64_t b = 0; b < nb; b++)
        pi[b] = (int32_t)(self->dtype == WK_FLOAT64 ? chol_f64((double *)pl + b * n * n, n)
                                                    : chol_f32((float *)pl + b * n * n, n));
    if (upper) {
        wk_tensor *t = swap_view(L, nd - 2, nd - 1);
        wk_tensor *c = t ? wk__contiguous(t) : NULL;
        wk_release(t);
        wk_release(L);
        L = c;
        if (!L) {
            wk_release(info);
            return -1;
        }
    }
    if (check_errors && check_info(info, "linalg.cholesky_ex", nd == 2, INFO_CHOLESKY) < 0) {
        wk_release(L);
        wk_release(info);
        return -1;
    }
    outs[0] = L;
    outs[1] = info;
    return 0;
}

wk_tensor *wk_impl_linalg_cholesky(wk_tensor *self, bool upper) {
    wk_tensor *outs[2];
    if (wk_linalg_cholesky_ex(self, upper, false, outs) < 0) return NULL;
    int rc = check_info(outs[1], "linalg.cholesky", self->ndim == 2, INFO_CHOLESKY);
    wk_release(outs[1]);
    if (rc < 0) {
        wk_release(outs[0]);
        return NULL;
    }
    return outs[0];
}

/* gA = L^-T phi L^-1, phi = tril(L^T gL) with its strict lower part's transpose added, halved */
wk_tensor *wk_impl__linalg_cholesky_backward(wk_tensor *grad, wk_tensor *L, bool upper) {
    wk_tensor *Lm = upper ? wk_transpose(L, -2, -1) : wk_retain(L);
    wk_tensor *gL = upper ? wk_transpose(grad, -2, -1) : wk_retain(grad);
    wk_tensor *Lt = Lm ? wk_transpose(Lm, -2, -1) : NULL;
    wk_tensor *p = Lt && gL ? wk_matmul(Lt, gL) : NULL;
    wk_tensor *phi = p ? wk_tril(p, 0) : NULL;
    wk_tensor *low = phi ? wk_tril(phi, -1) : NULL;
    wk_tensor *lowt = low ? wk_transpose(low, -2, -1) : NULL;
    wk_tensor *s = lowt ? wk_add(phi, lowt, wk_int(1)) : NULL;
    wk_tensor *h = s ? wk_mul_Scalar(s, wk_float(0.5)) : NULL;
    /* as torch's cholesky_backward: two triangular solves (so the double-backward graph is torch's too) */
    wk_tensor *y = h ? wk_linalg_solve_triangular(Lt, h, true, true, false) : NULL; /* L^-T h */
    wk_tensor *r = y ? wk_linalg_solve_triangular(Lm, y, false, false, false) : NULL; /* y L^-1 */
    wk_release(Lm);
    wk_release(gL);
    wk_release(Lt);
    wk_release(p);
    wk_release(phi);
    wk_release(low);
    wk_release(lowt);
    wk_release(s);
    wk_release(h);
    wk_release(y);
    return r;
}

/* ---- solve_triangular ---- */
/* b [n, m] := A^-1 b for A [n, n] triangular (only its upper / lower part read; unit: diagonal taken as 1) */
#define TRSM_KERNEL(NAME, T)                                                                                   \
    static void NAME(const T *a, int64_t n, T *b, int64_t m, bool upper, bool unit) {                           \
        for (int64_t s = 0; s < n; s++) {                                                                      \
            int64_t i = upper ? n - 1 - s : s;                                                                 \
            int64_t j0 = upper ? i + 1 : 0, j1 = upper ? n : i;                                                \
            for (int64_t j = j0; j < j1; j++) {                                                                \
                T l = a[i * n + j];                                                                            \
                if (l == 0) continue;                                                                          \
                for (int64_t c = 0; c < m; c++) b[i * m + c] -= l * b[j * m + c];                              \
            }                                                                                                  \
            if (!unit)                                                                                         \
                for (int64_t c = 0; c < m; c++) b[i * m + c] /= a[i * n + i];                                  \
        }                                                                                                      \
    }
TRSM_KERNEL(trsm_f32, float)
TRSM_KERNEL(trsm_f64, double)

/* torch's linalg_solve_triangular: A [*, n, n], B [*, n, k] (left) or [*, k, n]; batch dims broadcast, B taken
 * in A's dtype. left=False: X A = B is A^T X^T = B^T (A^T's other triangle). */
wk_tensor *wk_impl_linalg_solve_triangular(wk_tensor *self, wk_tensor *B, bool upper, bool left, bool unitriangular) {
    const wk_tensor *A = self;
    const char *api = "linalg.solve_triangular";
    if (A->ndim < 2 || B->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "%s: The input tensor %s must have at least 2 dimensions.", api,
                  A->ndim < 2 ? "A" : "B");
        return NULL;
    }
    if (check_square(A, api, "A") < 0) return NULL;
    int64_t n = A->sizes[A->ndim - 1], br = B->sizes[B->ndim - 2], bc = B->sizes[B->ndim - 1];
    if (left ? n != br : n != bc) {
        wk__error(WK_RUNTIME_ERROR, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)",
                  api, left ? "AX = B" : "XA = B", (long long)n, (long long)n, (long long)br, (long long)bc);
        return NULL;
    }
    wk_dtype dt = A->dtype; /* as torch 2.13: B is cast to A's dtype (float64 B with float32 A gives float32) */
    if (dt != WK_FLOAT32 && dt != WK_FLOAT64) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"triangular_solve_cpu\" not implemented for '%s'",
                  wk_dtype_scalar_name(dt));
        return NULL;
    }
    int nbatch = 0;
    int64_t xs[WK_MAX_DIM];
    if (wk__broadcast_shapes(B->ndim - 2, B->sizes, A->ndim - 2, A->sizes, &nbatch, xs) < 0) return NULL;
    if (nbatch + 2 > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "%s: too many dimensions", api);
        return NULL;
    }
    int64_t as[WK_MAX_DIM]; /* A expanded: [batch, n, n] */
    memcpy(as, xs, sizeof(int64_t) * (size_t)nbatch);
    as[nbatch] = as[nbatch + 1] = n;
    xs[nbatch] = left ? br : bc; /* the system solved: [batch, n, m] */
    xs[nbatch + 1] = left ? bc : br;
    int64_t m = xs[nbatch + 1], nb = wk__prod(xs, nbatch);
    wk_tensor *Ac = wk__to_dtype(A, dt), *Bc = Ac ? wk__to_dtype(B, dt) : NULL;
    wk_tensor *Ax = Bc ? (left ? wk_retain(Ac) : swap_view(Ac, A->ndim - 2, A->ndim - 1)) : NULL;
    wk_tensor *Bx = Ax ? (left ? wk_retain(Bc) : swap_view(Bc, B->ndim - 2, B->ndim - 1)) : NULL;
    wk_tensor *Ae = Bx ? wk__expand_to(Ax, nbatch + 2, as) : NULL, *Be = Ae ? wk__expand_to(Bx, nbatch + 2, xs) : NULL;
    wk_tensor *a = Be ? wk__contiguous(Ae) : NULL, *x = a ? wk__clone(Be) : NULL;
    wk_release(Ac);
    wk_release(Bc);
    wk_release(Ax);
    wk_release(Bx);
    wk_release(Ae);
    wk_release(Be);
    if (!x) {
        wk_release(a);
        return NULL;
    }
    bool up = left ? upper : !upper;
    const char *pa = wk__data(a);
    char *px = wk__data(x);
    for (int64_t b = 0; b < nb && n > 0 && m > 0; b++) {
        if (dt == WK_FLOAT64)
            trsm_f64((const double *)pa + b * n * n, n, (double *)px + b * n * m, m, up, unitriangular);
        else
            trsm_f32((const float *)pa + b * n * n, n, (float *)px + b * n * m, m, up, unitriangular);
    }
    wk_release(a);
    if (left) return x;
    wk_tensor *xt = swap_view(x, nbatch, nbatch + 1), *res = xt ? wk__contiguous(xt) : NULL;
    wk_release(xt);
    wk_release(x);
    return res;
}

/* gA = -gB X^T (left) or -X^T gB, with gB = solve_triangular(A^T, grad, !upper): triu(., unit) or tril(., -unit) */
wk_tensor *wk_impl__linalg_solve_triangular_backward_A(wk_tensor *grad, wk_tensor *A, wk_tensor *X, bool upper,
                                                      bool left, bool unitriangular) {
    wk_cpool pool = {0};
    wk_tensor *gB = P_(wk_linalg_solve_triangular(P_(wk_transpose(A, -2, -1)), grad, !upper, left, unitriangular));
    wk_tensor *Xt = P_(wk_transpose(X, -2, -1));
    wk_tensor *gA = P_(wk_neg(P_(left ? wk_matmul(gB, Xt) : wk_matmul(Xt, gB))));
    wk_tensor *r = P_(upper ? wk_triu(gA, unitriangular ? 1 : 0) : wk_tril(gA, unitriangular ? -1 : 0));
    return wk_cpool_end(&pool, r);
}

/* ---- QR (Householder, as LAPACK's geqr2 + org2r) ----
 * Note [QR as LAPACK's]: torch's linalg.qr is geqrf (reflectors H_j = I - tau_j v_j v_j^T, v_j[j] = 1) then orgqr
 * (Q = H_0 ... H_{k-1} applied to the identity). dlarfg's choice fixes the signs: beta = -copysign(|[alpha, x]|,
 * alpha), so R's diagonal is -sign(a_jj) |column|, and a column already zero below the diagonal gets tau = 0 (H = I,
 * R_jj = a_jj unchanged). Q's columns below the diagonal start as -tau v (-0. where tau = 0, as torch prints them).
 * The factorisation is then unique, so values compare directly. Computed in float64 for both dtypes (a naive
 * unblocked kernel; float32 results agree with sgeqrf's to rounding). */
/* a [m, n] row-major := R on and above the diagonal, v_j below it; tau [min(m, n)] */
void wk__geqr2(double *a, int64_t m, int64_t n, double *tau) {
    for (int64_t j = 0; j < m && j < n; j++) {
        double alpha = a[j * n + j], xn = 0;
        for (int64_t i = j + 1; i < m; i++) xn = hypot(xn, a[i * n + j]);
        tau[j] = 0;
        if (xn == 0) continue;
        double beta = -copysign(hypot(alpha, xn), alpha), s = 1 / (alpha - beta);
        tau[j] = (beta - alpha) / beta;
        for (int64_t i = j + 1; i < m; i++) a[i * n + j] *= s;
        a[j * n + j] = beta;
        for (int64_t c = j + 1; c < n; c++) { /* H_j applied to the columns right of j */
            double w = a[j * n + c];
            for (int64_t i = j + 1; i < m; i++) w += a[i * n + j] * a[i * n + c];
            w *= tau[j];
            a[j * n + c] -= w;
            for (int64_t i = j + 1; i < m; i++) a[i * n + c] -= w * a[i * n + j];
        }
    }
}
/* q [m, qn] := the first qn columns of H_0 ... H_{k-1}, k = min(m, n), from geqr2's a [m, n] and tau (org2r) */
void wk__org2r(const double *a, int64_t m, int64_t n, const double *tau, double *q, int64_t qn) {
    int64_t k = m < n ? m : n;
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = k; c < qn; c++) q[i * qn + c] = i == c;
    for (int64_t j = k - 1; j >= 0; j--) {
        for (int64_t c = j + 1; c < qn && tau[j] != 0; c++) { /* H_j applied to rows j.. of the columns right of j */
            double w = q[j * qn + c];
            for (int64_t i = j + 1; i < m; i++) w += a[i * n + j] * q[i * qn + c];
            w *= tau[j];
            q[j * qn + c] -= w;
            for (int64_t i = j + 1; i < m; i++) q[i * qn + c] -= w * a[i * n + j];
        }
        for (int64_t i = j + 1; i < m; i++) q[i * qn + j] = -tau[j] * a[i * n + j];
        q[j * qn + j] = 1 - tau[j];
        for (int64_t i = 0; i < j; i++) q[i * qn + j] = 0;
    }
}

int wk_impl_linalg_qr(wk_tensor *A, const char *mode, wk_tensor **outs) {
    const char *api = "linalg.qr";
    if (A->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "%s: The input tensor A must have at least 2 dimensions.", api);
        return -1;
    }
    if (check_floating(A, api, true) < 0) return -1;
    bool complete = !strcmp(mode, "complete"), want_q = strcmp(mode, "r") != 0;
    if (strcmp(mode, "reduced") && !complete && want_q) {
        wk__error(WK_RUNTIME_ERROR, "qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', "
                  "or 'complete'", mode);
        return -1;
    }
    if (A->dtype != WK_FLOAT32 && A->dtype != WK_FLOAT64) { /* empty too */
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"geqrf_cpu\" not implemented for '%s'", wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    int nd = A->ndim;
    int64_t m = A->sizes[nd - 2], n = A->sizes[nd - 1], k = m < n ? m : n, nb = wk__prod(A->sizes, nd - 2);
    int64_t qn = complete ? m : k, rm = complete ? m : k;
    int64_t qs[WK_MAX_DIM], rs[WK_MAX_DIM];
    memcpy(qs, A->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(rs, A->sizes, sizeof(int64_t) * (size_t)nd);
    qs[nd - 1] = qn, rs[nd - 2] = rm;
    wk_tensor *a = wk__to_dtype(A, WK_FLOAT64), *ac = a ? wk__clone(a) : NULL;    /* [*, m, n] float64 */
    wk_tensor *q = ac ? wk__zeros(nd, qs, WK_FLOAT64) : NULL;                      /* [*, m, qn] */
    wk_tensor *r = q ? wk__zeros(nd, rs, WK_FLOAT64) : NULL;                       /* [*, rm, n] */
    double *tau = r ? malloc(sizeof(double) * (size_t)(k ? k : 1)) : NULL;         /* [k] */
    wk_release(a);
    if (!tau) {
        if (r) wk__error(WK_RUNTIME_ERROR, "linalg.qr: out of memory");
        wk_release(ac);
        wk_release(q);
        wk_release(r);
        return -1;
    }
    double *pa = (double *)wk__data(ac), *pq = (double *)wk__data(q), *pr = (double *)wk__data(r);
    for (int64_t b = 0; b < nb; b++) {
        double *ab = pa + b * m * n, *rb = pr + b * rm * n;
        wk__geqr2(ab, m, n, tau);
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = i; j < n; j++) rb[i * n + j] = ab[i * n + j];
        if (want_q) wk__org2r(ab, m, n, tau, pq + b * m * qn, qn);
    }
    free(tau);
    wk_release(ac);
    wk_tensor *qo = want_q ? wk__to_dtype(q, A->dtype) : wk__empty(1, (int64_t[]){0}, A->dtype);
    wk_tensor *ro = qo ? wk__to_dtype(r, A->dtype) : NULL;
    wk_release(q);
    wk_release(r);
    if (!ro) {
        wk_release(qo);
        return -1;
    }
    outs[0] = qo;
    outs[1] = ro;
    return 0;
}

/* torch.qr(A, some): linalg.qr(A, 'reduced' if some else 'complete'), with its deprecation warning (once) */
int wk_impl_qr(wk_tensor *self, bool some, wk_tensor **outs) {
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (!warned)
        wk__warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
                 "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, "
                 "some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')");
    warned = true;
    return wk_linalg_qr(self, some ? "reduced" : "complete", outs);
}

/* torch's linalg_qr_backward (real case), M = gR R^T - Q^T gQ:
 *   m >= n: gA = (gQ + Q syminvadj(triu(M))) R^-T, syminvadj(triu(M)) = triu(M) + triu(M, 1)^T
 *   m <  n: gA = [Q tril(-M + M^T) U^-T, 0] + Q gR, U = R[..., :m] */
wk_tensor *wk_impl__linalg_qr_backward(wk_tensor *gQ, wk_tensor *gR, wk_tensor *Q, wk_tensor *R, const char *mode) {
    if (!strcmp(mode, "r"))
        return WK_FAIL(WK_RUNTIME_ERROR, "The derivative of linalg.qr depends on Q, which is not computed when "
                       "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                       "linalg.qr.");
    int64_t m = Q->sizes[Q->ndim - 2], n = R->sizes[R->ndim - 1];
    if (!strcmp(mode, "complete") && m > n)
        return WK_FAIL(WK_RUNTIME_ERROR, "The QR decomposition is not differentiable when mode='complete' and nrows > "
                       "ncols.");
    wk_cpool pool = {0};
    wk_tensor *Qt = P_(wk_transpose(Q, -2, -1));
    wk_tensor *M = P_(wk_sub(P_(wk_matmul(gR, P_(wk_transpose(R, -2, -1)))), P_(wk_matmul(Qt, gQ)), wk_int(1)));
    if (m >= n) {
        wk_tensor *S = P_(wk_add(P_(wk_triu(M, 0)), P_(wk_transpose(P_(wk_triu(M, 1)), -2, -1)), wk_int(1)));
        wk_tensor *b = P_(wk_add(gQ, P_(wk_matmul(Q, S)), wk_int(1)));
        wk_tensor *Rt = P_(wk_transpose(R, -2, -1));
        return wk_cpool_end(&pool, P_(wk_linalg_solve_triangular(Rt, b, false, false, false)));
    }
    wk_tensor *K = P_(wk_tril(P_(wk_sub(P_(wk_transpose(M, -2, -1)), M, wk_int(1))), 0));
    wk_tensor *Ut = P_(wk_transpose(P_(wk_narrow(R, -1, 0, m)), -2, -1));
    wk_tensor *g = P_(wk_linalg_solve_triangular(Ut, P_(wk_matmul(Q, K)), false, false, false));
    wk_tensor *gp = P_(wk_constant_pad_nd(g, wk_ints((int64_t[]){0, n - m}, 2), wk_int(0)));
    return wk_cpool_end(&pool, P_(wk_add(gp, P_(wk_matmul(Q, gR)), wk_int(1))));
}

/* ---- symmetric eigendecomposition (cyclic Jacobi) ----
 * Note [eigh by Jacobi]: torch's linalg.eigh is LAPACK's syevd; here the symmetric matrix read from one triangle
 * (UPLO 'L' or 'U', the other triangle is never read) is diagonalised by cyclic Jacobi rotations in float64 for
 * both dtypes, sweeps until the off-diagonal part is below 1e-16 of the matrix's norm (at most 64). Eigenvalues
 * are sorted ascending, eigenvectors are the columns of the accumulated rotations, orthonormal to rounding. The
 * eigenvalues agree with LAPACK's to rounding; each eigenvector's sign (and the basis of a repeated eigenvalue's
 * space) is not determined and differs from syevd's, so the parity cases compare invariants for V. A non-finite
 * entry in the triangle read gives NaN for every value, as torch's syevd does. */
/* s [n, n] row-major symmetric, destroyed; w [n] ascending; v [n, n] (columns: eigenvectors) */
static void jacobi_eigh(double *s, int64_t n, double *w, double *v) {
    double norm2 = 0;
    for (int64_t i = 0; i < n * n; i++) norm2 += s[i] * s[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) v[i * n + j] = i == j;
    if (!isfinite(norm2)) {
        for (int64_t i = 0; i < n; i++) w[i] = NAN;
        for (int64_t i = 0; i < n * n; i++) v[i] = NAN;
        return;
    }
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) off += 2 * s[p * n + q] * s[p * n + q];
        if (off <= norm2 * 1e-32) break;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double apq = s[p * n + q];
                if (apq == 0) continue;
                /* J = [[c, s], [-s, c]] in the (p, q) plane; S := J^T S J zeroes s_pq, t the smaller root */
                double theta = (s[q * n + q] - s[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + hypot(theta, 1.0));
                double c = 1 / hypot(t, 1.0), sn = t * c;
                for (int64_t k = 0; k < n; k++) { /* columns p, q */
                    double kp = s[k * n + p], kq = s[k * n + q];
                    s[k * n + p] = c * kp - sn * kq;
                    s[k * n + q] = sn * kp + c * kq;
                }
                for (int64_t k = 0; k < n; k++) { /* rows p, q */
                    double pk = s[p * n + k], qk = s[q * n + k];
                    s[p * n + k] = c * pk - sn * qk;
                    s[q * n + k] = sn * pk + c * qk;
                }
                s[p * n + q] = s[q * n + p] = 0;
                for (int64_t k = 0; k < n; k++) { /* V := V J */
                    double kp = v[k * n + p], kq = v[k * n + q];
                    v[k * n + p] = c * kp - sn * kq;
                    v[k * n + q] = sn * kp + c * kq;
                }
            }
    }
    for (int64_t i = 0; i < n; i++) w[i] = s[i * n + i];
    for (int64_t i = 1; i < n; i++) /* insertion sort, stable, the columns of v with their eigenvalue */
        for (int64_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            double t = w[j];
            w[j] = w[j - 1], w[j - 1] = t;
            for (int64_t k = 0; k < n; k++) {
                t = v[k * n + j];
                v[k * n + j] = v[k * n + j - 1], v[k * n + j - 1] = t;
            }
        }
}

/* torch's squareCheckInputs + checkUplo; *upper set from UPLO ('l' and 'u' accepted, as torch upper-cases it) */
static int eigh_checks(const wk_tensor *A, const char *UPLO, bool *upper) {
    if (A->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "linalg.eigh: The input tensor A must have at least 2 dimensions.");
        return -1;
    }
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    if (m != n) {
        wk__error(WK_RUNTIME_ERROR, "linalg.eigh: A must be batches of square matrices, but they are %lld by %lld "
                  "matrices", (long long)m, (long long)n);
        return -1;
    }
    char u = UPLO[0] && !UPLO[1] ? UPLO[0] : 0;
    if (u != 'L' && u != 'l' && u != 'U' && u != 'u') {
        wk__error(WK_RUNTIME_ERROR, "Expected UPLO argument to be 'L' or 'U', but got %s", UPLO);
        return -1;
    }
    *upper = u == 'U' || u == 'u';
    return check_kernel_dtype(A, "linalg_eigh_cpu");
}

int wk_impl_linalg_eigh(wk_tensor *A, const char *UPLO, wk_tensor **outs) {
    bool upper;
    if (eigh_checks(A, UPLO, &upper) < 0) return -1;
    int nd = A->ndim;
    int64_t n = A->sizes[nd - 1], nb = wk__prod(A->sizes, nd - 2);
    if (wk__numel(A) == 0) { /* no kernel runs: empty results in A's dtype (integers too, as torch) */
        outs[0] = wk__zeros(nd - 1, A->sizes, A->dtype);
        outs[1] = outs[0] ? wk__zeros(nd, A->sizes, A->dtype) : NULL;
        if (!outs[1]) wk_release(outs[0]);
        return outs[1] ? 0 : -1;
    }
    wk_tensor *a = wk__to_dtype(A, WK_FLOAT64), *ac = a ? wk__clone(a) : NULL; /* [*, n, n] float64 */
    wk_release(a);
    wk_tensor *w = ac ? wk__zeros(nd - 1, A->sizes, WK_FLOAT64) : NULL;       /* [*, n] */
    wk_tensor *v = w ? wk__zeros(nd, A->sizes, WK_FLOAT64) : NULL;            /* [*, n, n] */
    double *s = v ? malloc(sizeof(double) * (size_t)(n * n)) : NULL;           /* [n, n] scratch */
    if (!s) {
        if (v) wk__error(WK_RUNTIME_ERROR, "linalg.eigh: out of memory");
        wk_release(ac);
        wk_release(w);
        wk_release(v);
        return -1;
    }
    const double *pa = (const double *)wk__data(ac);
    double *pw = (double *)wk__data(w), *pv = (double *)wk__data(v);
    for (int64_t b = 0; b < nb; b++) {
        const double *ab = pa + b * n * n;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j <= i; j++) /* the triangle read, mirrored */
                s[i * n + j] = s[j * n + i] = upper ? ab[j * n + i] : ab[i * n + j];
        jacobi_eigh(s, n, pw + b * n, pv + b * n * n);
    }
    free(s);
    wk_release(ac);
    outs[0] = wk__to_dtype(w, A->dtype);
    outs[1] = outs[0] ? wk__to_dtype(v, A->dtype) : NULL;
    wk_release(w);
    wk_release(v);
    if (!outs[1]) {
        wk_release(outs[0]);
        return -1;
    }
    return 0;
}

/* linalg.eigvalsh: linalg.eigh's eigenvalues (torch runs _linalg_eigh too; its grad_fn is LinalgEighBackward0) */
wk_tensor *wk_impl_linalg_eigvalsh(wk_tensor *A, const char *UPLO) {
    wk_tensor *outs[2];
    if (wk_linalg_eigh(A, UPLO, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}

/* exactly zero (an output whose gradient was not defined, materialised as zeros) */
static int all_zero(wk_tensor *t, bool *zero) {
    wk_tensor *d = wk__to_dtype(t, WK_FLOAT64), *c = d ? wk__clone(d) : NULL; /* same shape, float64, contiguous */
    wk_release(d);
    if (!c) return -1;
    const double *p = (const double *)wk__data(c);
    int64_t k = wk__numel(c), i = 0;
    while (i < k && p[i] == 0) i++;
    *zero = i == k;
    wk_release(c);
    return 0;
}

/* torch's linalg_eig_backward, is_hermitian = true (real case):
 *   gV undefined (here: exactly zero, see below): gA = (V * gL.unsqueeze(-2)) V^T
 *   otherwise: gA = V (diag(gL) + skew(V^T gV) / E) V^T, skew(X) = (X - X^T) / 2, E_ij = L_j - L_i, E_ii = 1.
 * torch takes the first form when the eigenvectors' gradient is undefined (eigvalsh, or only L used); wick's
 * node receives it materialised as zeros, so an exactly zero gV takes that form (else a repeated eigenvalue
 * would give 0/0 where torch's result is finite). */
wk_tensor *wk_impl__linalg_eigh_backward(wk_tensor *gL, wk_tensor *gV, wk_tensor *L, wk_tensor *V) {
    bool zero;
    if (all_zero(gV, &zero) < 0) return NULL;
    wk_cpool pool = {0};
    wk_tensor *Vt = P_(wk_transpose(V, -2, -1));
    if (zero) return wk_cpool_end(&pool, P_(wk_matmul(P_(wk_mul(V, P_(wk_unsqueeze(gL, -2)))), Vt)));
    wk_tensor *X = P_(wk_matmul(Vt, gV));
    wk_tensor *S = P_(wk_mul_Scalar(P_(wk_sub(X, P_(wk_transpose(X, -2, -1)), wk_int(1))), wk_float(0.5)));
    wk_tensor *E = P_(wk_sub(P_(wk_unsqueeze(L, -2)), P_(wk_unsqueeze(L, -1)), wk_int(1)));
    wk_tensor *Id = P_(wk_eye(L->sizes[L->ndim - 1], L->dtype, false));
    wk_tensor *M = P_(wk_add(P_(wk_div(S, P_(wk_add(E, Id, wk_int(1))), NULL)), P_(wk_diag_embed(gL, 0, -2, -1)),
                             wk_int(1)));
    return wk_cpool_end(&pool, P_(wk_matmul(V, P_(wk_matmul(M, Vt)))));
}
