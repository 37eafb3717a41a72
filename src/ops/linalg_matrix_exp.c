/* linalg_matrix_exp.c — linalg.matrix_exp / torch.matrix_exp / Tensor.matrix_exp for float32 and float64, batched.
 *
 * Note [matrix_exp as torch's]: torch's CPU kernel (Bader, Blanes, Casas 2019: "Computing the Matrix Exponential
 * with an Optimized Taylor Polynomial Approximation") picks, per matrix, the Taylor-type polynomial T_m of degree
 * m in {1, 2, 4, 8, 12, 18} from the matrix's 1-norm against per-dtype bounds theta_m, and above theta_12 scales by
 * 2^-s (s = max(0, ceil(log2(norm / theta_18)))), evaluates T_18 and squares s times. The polynomials are evaluated
 * with the paper's few products (T_8: 3, T_12: 4, T_18: 5 matrix products) and coefficients, in the input's dtype,
 * so the values follow torch's to rounding. n == 0 clones, n == 1 is exp. The derivative is torch's
 * linalg_matrix_exp_differential: the top-right block of exp([[A^T, G], [0, A^T]]), itself a recorded matrix_exp. */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double THETA_F32[6] = {1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                                    5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00};
static const double THETA_F64[6] = {2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                                    4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00};
static const double B12[4][4] = {
    {9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740},
    {5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989},
    {0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230},
    {-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359}};
static const double B18[5][5] = {
    {0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.},
    {0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
     -6.37898194594723280150e-04},
    {-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
     -6.98210122488052056106e-03, 3.34975017086070470649e-05},
    {-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
     2.95552570429315521194e-02, -1.39180257516060693404e-05},
    {0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05}};

/* out [n, n] := exp(a), row-major; w: scratch of 12 n x n matrices */
#define MEXP_KERNEL(NAME, T, THETA)                                                                            \
    static void NAME##_mm(const T *x, const T *y, T *z, int64_t n) {                                           \
        for (int64_t i = 0; i < n; i++) {                                                                      \
            for (int64_t j = 0; j < n; j++) z[i * n + j] = 0;                                                  \
            for (int64_t k = 0; k < n; k++) {                                                                  \
                T v = x[i * n + k];                                                                            \
                for (int64_t j = 0; j < n; j++) z[i * n + j] += v * y[k * n + j];                              \
            }                                                                                                  \
        }                                                                                                      \
    }                                                                                                          \
    /* z := sum_j c[j] * m[j] (cnt matrices) */                                                                \
    static void NAME##_comb(T *const *m, const double *c, int cnt, T *z, int64_t nn) {                         \
        for (int64_t e = 0; e < nn; e++) {                                                                     \
            T s = 0;                                                                                           \
            for (int j = 0; j < cnt; j++) s += (T)c[j] * m[j][e];                                              \
            z[e] = s;                                                                                          \
        }                                                                                                      \
    }                                                                                                          \
    static void NAME(const T *a, T *out, int64_t n, T *w) {                                                    \
        int64_t nn = n * n;                                                                                    \
        T *Id = w, *A = w + nn, *A2 = w + 2 * nn, *A3 = w + 3 * nn, *A6 = w + 4 * nn, *t1 = w + 5 * nn;         \
        T *Bm[5] = {w + 6 * nn, w + 7 * nn, w + 8 * nn, w + 9 * nn, w + 10 * nn}, *t2 = w + 11 * nn;           \
        T norm = 0;                                                                                            \
        for (int64_t j = 0; j < n; j++) {                                                                      \
            T s = 0;                                                                                           \
            for (int64_t i = 0; i < n; i++) s += (T)fabs((double)a[i * n + j]);                                \
            if (s > norm || s != s) norm = s;                                                                  \
        }                                                                                                      \
        int64_t sq = 0;                                                                                        \
        int deg;                                                                                               \
        if (norm <= (T)THETA[0]) deg = 1;                                                                      \
        else if (norm <= (T)THETA[1]) deg = 2;                                                                 \
        else if (norm <= (T)THETA[2]) deg = 4;                                                                 \
        else if (norm <= (T)THETA[3]) deg = 8;                                                                 \
        else if (norm <= (T)THETA[4]) deg = 12;                                                                \
        else {                                                                                                 \
            deg = 18;                                                                                          \
            double l = ceil(log2((double)(norm / (T)THETA[5])));                                               \
            sq = l > 0 ? (int64_t)l : 0;                                                                       \
            if (norm != norm) sq = 0;                                                                          \
        }                                                                                                      \
        for (int64_t e = 0; e < nn; e++) {                                                                     \
            A[e] = sq ? a[e] / (T)ldexp(1.0, (int)sq) : a[e];                                                  \
            Id[e] = 0;                                                                                          \
        }                                                                                                      \
        for (int64_t i = 0; i < n; i++) Id[i * n + i] = 1;                                                      \
        if (deg >= 2) NAME##_mm(A, A, A2, n);                                                                  \
        if (deg >= 12) NAME##_mm(A, A2, A3, n);                                                                \
        if (deg == 1) {                                                                                        \
            for (int64_t e = 0; e < nn; e++) out[e] = Id[e] + A[e];                                             \
        } else if (deg == 2) {                                                                                 \
            for (int64_t e = 0; e < nn; e++) out[e] = Id[e] + A[e] + A2[e] / 2;                                 \
        } else if (deg == 4) {                                                                                 \
            T *m3[3] = {Id, A, A2};                                                                             \
            NAME##_comb(m3, (const double[]){1 / 2.0, 1 / 6.0, 1 / 24.0}, 3, t1, nn);                          \
            NAME##_mm(A2, t1, t2, n);                                                                          \
            T *m4[4] = {Id, A, A2, t2};                                                                         \
            NAME##_comb(m4, (const double[]){1.0, 1.0, 0.0, 1.0}, 4, out, nn);                                 \
        } else if (deg == 8) {                                                                                 \
            /* torch's constexpr scalar_t constants: computed in double from the rounded sqrt_177 and x3 */      \
            const double sqrt_177 = (double)(T)0.1330413469565007072504e+2, x3 = (double)(T)(2. / 3.);        \
            const double x1 = (double)(T)(x3 * ((1. + sqrt_177) / 88.));                                      \
            const double x2 = (double)(T)(x3 * ((1. + sqrt_177) / 352.));                                     \
            const double x4 = (double)(T)((-271. + 29. * sqrt_177) / (315. * x3));                            \
            const double x5 = (double)(T)((-11. + 11. * sqrt_177) / (1260. * x3));                            \
            const double x6 = (double)(T)((-99. + 11. * sqrt_177) / (5040. * x3));                            \
            const double x7 = (double)(T)((89. - sqrt_177) / (5040. * x3));                                   \
            const double y2 = (double)(T)((857. - 58. * sqrt_177) / 630.);                                    \
            T *A4 = A3, *A8 = A6;                                                                              \
            T *m2[2] = {A, A2};                                                                                \
            NAME##_comb(m2, (const double[]){x1, x2}, 2, t1, nn);                              \
            NAME##_mm(A2, t1, A4, n); /* A4 = A2 (x1 A + x2 A2) */                                             \
            T *m22[2] = {A2, A4};                                                                              \
            NAME##_comb(m22, (const double[]){x3, 1.0}, 2, t1, nn);                                    \
            T *m44[4] = {Id, A, A2, A4};                                                                        \
            NAME##_comb(m44, (const double[]){x4, x5, x6, x7}, 4, t2, nn);     \
            NAME##_mm(t1, t2, A8, n); /* A8 = (x3 A2 + A4) (x4 Id + x5 A + x6 A2 + x7 A4) */                    \
            T *m5[5] = {Id, A, A2, A4, A8};                                                                     \
            NAME##_comb(m5, (const double[]){1.0, 1.0, y2, 0.0, 1.0}, 5, out, nn);                     \
        } else if (deg == 12) {                                                                                \
            T *m4[4] = {Id, A, A2, A3};                                                                         \
            double c[4];                                                                                       \
            for (int i = 0; i < 4; i++) {                                                                      \
                for (int j = 0; j < 4; j++) c[j] = (double)(T)B12[i][j];                                       \
                NAME##_comb(m4, c, 4, Bm[i], nn);                                                              \
            }                                                                                                  \
            NAME##_mm(Bm[3], Bm[3], t1, n);                                                                    \
            for (int64_t e = 0; e < nn; e++) Bm[2][e] += t1[e];                                                \
            for (int64_t e = 0; e < nn; e++) Bm[1][e] += Bm[2][e];                                             \
            NAME##_mm(Bm[1], Bm[2], t1, n);                                                                    \
            for (int64_t e = 0; e < nn; e++) out[e] = Bm[0][e] + t1[e];                                        \
        } else {                                                                                               \
            NAME##_mm(A3, A3, A6, n);                                                                          \
            T *m5[5] = {Id, A, A2, A3, A6};                                                                     \
            double c[5];                                                                                       \
            for (int i = 0; i < 5; i++) {                                                                      \
                for (int j = 0; j < 5; j++) c[j] = (double)(T)B18[i][j];                                       \
                NAME##_comb(m5, c, 5, Bm[i], nn);                                                              \
            }                                                                                                  \
            NAME##_mm(Bm[0], Bm[4], t1, n);                                                                    \
            for (int64_t e = 0; e < nn; e++) Bm[3][e] += t1[e];                                                \
            for (int64_t e = 0; e < nn; e++) Bm[2][e] += Bm[3][e];                                             \
            NAME##_mm(Bm[2], Bm[3], t1, n);                                                                    \
            for (int64_t e = 0; e < nn; e++) out[e] = Bm[1][e] + t1[e];                                        \
            for (int64_t p = 0; p < sq; p++) {                                                                 \
                NAME##_mm(out, out, t1, n);                                                                    \
                memcpy(out, t1, sizeof(T) * (size_t)nn);                                                       \
            }                                                                                                  \
        }                                                                                                      \
    }
MEXP_KERNEL(mexp_f32, float, THETA_F32)
MEXP_KERNEL(mexp_f64, double, THETA_F64)

wk_tensor *wk_impl_linalg_matrix_exp(wk_tensor *A) {
    const char *api = "linalg.matrix_exp";
    if (A->ndim < 2) return WK_FAIL(WK_RUNTIME_ERROR, "%s: The input tensor A must have at least 2 dimensions.", api);
    int64_t n = A->sizes[A->ndim - 1];
    if (A->sizes[A->ndim - 2] != n)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                       api, (long long)A->sizes[A->ndim - 2], (long long)n);
    if (!wk_dtype_is_floating(A->dtype))
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: Expected a floating point or complex tensor as input. Got %s", api,
                       wk_dtype_scalar_name(A->dtype));
    if (n == 0) return wk__clone(A);
    if (n == 1) return wk_exp(A);
    if (A->dtype != WK_FLOAT32 && A->dtype != WK_FLOAT64)
        return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR, "%s: %s is not supported by wick yet (float32 and float64 are)", api,
                       wk_dtype_scalar_name(A->dtype));
    wk_tensor *a = wk__contiguous(A), *r = a ? wk__empty(A->ndim, A->sizes, A->dtype) : NULL;
    size_t esz = wk_dtype_size(A->dtype);
    void *w = r ? malloc(esz * (size_t)(12 * n * n)) : NULL;
    if (!w) {
        wk_release(a);
        wk_release(r);
        return r ? WK_FAIL(WK_RUNTIME_ERROR, "%s: out of memory", api) : NULL;
    }
    int64_t nb = wk__prod(A->sizes, A->ndim - 2);
    const char *pa = wk__data(a);
    char *pr = wk__data(r);
    for (int64_t b = 0; b < nb; b++) {
        if (A->dtype == WK_FLOAT64) mexp_f64((const double *)pa + b * n * n, (double *)pr + b * n * n, n, w);
        else mexp_f32((const float *)pa + b * n * n, (float *)pr + b * n * n, n, w);
    }
    free(w);
    wk_release(a);
    return r;
}

wk_tensor *wk_impl_matrix_exp(wk_tensor *self) { return wk_linalg_matrix_exp(self); }

/* torch's linalg_matrix_exp_differential(A, G, adjoint=true): exp([[A^T, G], [0, A^T]])[..., :n, n:] */
wk_tensor *wk_impl__linalg_matrix_exp_differential(wk_tensor *A, wk_tensor *grad) {
    wk_cpool pool = {0};
    int64_t n = A->sizes[A->ndim - 1];
    wk_tensor *At = P_(wk_transpose(A, -2, -1));
    wk_tensor *Z = P_(wk_zeros_like(grad, WK_DTYPE_NONE, false));
    wk_tensor *top[2] = {At, P_(wk__to_dtype(grad, A->dtype))}, *bot[2] = {Z, At};
    wk_tensor *rows[2] = {pool.failed ? NULL : P_(wk_cat((wk_tensorlist){top, 2}, -1)),
                          pool.failed ? NULL : P_(wk_cat((wk_tensorlist){bot, 2}, -1))};
    wk_tensor *M = pool.failed ? NULL : P_(wk_cat((wk_tensorlist){rows, 2}, -2));
    wk_tensor *E = P_(wk_linalg_matrix_exp(M));
    wk_tensor *r = P_(wk_narrow(P_(wk_narrow(E, -2, 0, n)), -1, n, n));
    return wk_cpool_end(&pool, r);
}
