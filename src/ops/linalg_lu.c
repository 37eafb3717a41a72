/* linalg_lu.c — the LU family: linalg.lu_factor / lu_factor_ex / lu / lu_solve, torch.lu_unpack / lu_solve /
 * _lu_with_info, for float32 and float64 (lu_unpack: any dtype), batched, rectangular where torch allows it.
 *
 * Note [Rectangular LU as getrf]: the factorisation is LAPACK's unblocked getf2 on the column-major matrix, as
 * torch's CPU path hands A to getrf: at step j < min(m, n) the pivot is the first entry of largest absolute value in
 * column j at or below the diagonal; a zero pivot is not swapped nor its column scaled and `info` records the first
 * one (1-based); the trailing update skips a zero row entry as BLAS's ger. Pivots are LAPACK's 1-based int32. The LU
 * result has torch's column-major strides. The solves are getrs (left, adjoint) on those factors. The derivatives are
 * torch's FunctionsManual.cpp formulas, written over recorded ops so that they are differentiable again. */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/reduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kernels ---- */
/* a: column-major m x n (a[j * m + i] is A[i, j]) := its L (unit, below the diagonal) and U; piv [min(m, n)] */
#define GETRF_KERNEL(NAME, T, FMA)                                                                             \
    static int32_t NAME(T *a, int64_t m, int64_t n, int32_t *piv) {                                            \
        int32_t info = 0;                                                                                      \
        int64_t k = m < n ? m : n;                                                                             \
        for (int64_t j = 0; j < k; j++) {                                                                      \
            T *col = a + j * m;                                                                                \
            int64_t p = j;                                                                                     \
            T best = (T)fabs((double)col[j]);                                                                  \
            for (int64_t i = j + 1; i < m; i++) {                                                              \
                T v = (T)fabs((double)col[i]);                                                                 \
                if (v > best) {                                                                                \
                    best = v;                                                                                  \
                    p = i;                                                                                     \
                }                                                                                              \
            }                                                                                                  \
            piv[j] = (int32_t)(p + 1);                                                                         \
            if (col[p] != 0) {                                                                                 \
                if (p != j)                                                                                    \
                    for (int64_t c = 0; c < n; c++) {                                                          \
                        T t = a[c * m + j];                                                                    \
                        a[c * m + j] = a[c * m + p];                                                           \
                        a[c * m + p] = t;                                                                      \
                    }                                                                                          \
                T d = col[j];                                                                                  \
                for (int64_t i = j + 1; i < m; i++) col[i] /= d;                                               \
            } else if (!info) {                                                                                \
                info = (int32_t)(j + 1);                                                                       \
            }                                                                                                  \
            for (int64_t c = j + 1; c < n; c++) {                                                              \
                T *cc = a + c * m;                                                                             \
                T u = cc[j];                                                                                   \
                if (u == 0) continue;                                                                          \
                for (int64_t i = j + 1; i < m; i++) cc[i] = FMA(-col[i], u, cc[i]);                            \
            }                                                                                                  \
        }                                                                                                      \
        return info;                                                                                           \
    }
GETRF_KERNEL(getrf_f32, float, fmaf)
GETRF_KERNEL(getrf_f64, double, fma)

/* b [n, r] row-major := A^-1 b (trans false) or A^-T b, A = P L U from getrf's column-major lu [n, n] and piv */
#define GETRS_KERNEL(NAME, T, FMA)                                                                             \
    static void NAME(const T *lu, const int32_t *piv, int64_t n, T *b, int64_t r, bool trans) {               \
        if (!trans) {                                                                                          \
            for (int64_t k = 0; k < n; k++) {                                                                  \
                int64_t p = piv[k] - 1;                                                                        \
                if (p != k)                                                                                    \
                    for (int64_t c = 0; c < r; c++) {                                                          \
                        T t = b[k * r + c];                                                                    \
                        b[k * r + c] = b[p * r + c];                                                           \
                        b[p * r + c] = t;                                                                      \
                    }                                                                                          \
            }                                                                                                  \
            for (int64_t k = 0; k < n; k++)                                                                    \
                for (int64_t i = k + 1; i < n; i++) {                                                          \
                    T l = lu[k * n + i];                                                                       \
                    if (l == 0) continue;                                                                      \
                    for (int64_t c = 0; c < r; c++) b[i * r + c] = FMA(-l, b[k * r + c], b[i * r + c]);        \
                }                                                                                              \
            for (int64_t k = n - 1; k >= 0; k--) {                                                             \
                T d = lu[k * n + k];                                                                           \
                for (int64_t c = 0; c < r; c++) b[k * r + c] /= d;                                             \
                for (int64_t i = 0; i < k; i++) {                                                              \
                    T u = lu[k * n + i];                                                                       \
                    if (u == 0) continue;                                                                      \
                    for (int64_t c = 0; c < r; c++) b[i * r + c] = FMA(-u, b[k * r + c], b[i * r + c]);        \
                }                                                                                              \
            }                                                                                                  \
            return;                                                                                            \
        }                                                                                                      \
        for (int64_t k = 0; k < n; k++) { /* U^T y = b */                                                      \
            for (int64_t i = 0; i < k; i++) {                                                                  \
                T u = lu[k * n + i];                                                                           \
                if (u == 0) continue;                                                                          \
                for (int64_t c = 0; c < r; c++) b[k * r + c] = FMA(-u, b[i * r + c], b[k * r + c]);            \
            }                                                                                                  \
            T d = lu[k * n + k];                                                                               \
            for (int64_t c = 0; c < r; c++) b[k * r + c] /= d;                                                 \
        }                                                                                                      \
        for (int64_t k = n - 1; k >= 0; k--) /* L^T z = y */                                                   \
            for (int64_t i = k + 1; i < n; i++) {                                                              \
                T l = lu[k * n + i];                                                                           \
                if (l == 0) continue;                                                                          \
                for (int64_t c = 0; c < r; c++) b[k * r + c] = FMA(-l, b[i * r + c], b[k * r + c]);            \
            }                                                                                                  \
        for (int64_t k = n - 1; k >= 0; k--) {                                                                 \
            int64_t p = piv[k] - 1;                                                                            \
            if (p != k)                                                                                        \
                for (int64_t c = 0; c < r; c++) {                                                              \
                    T t = b[k * r + c];                                                                        \
                    b[k * r + c] = b[p * r + c];                                                               \
                    b[p * r + c] = t;                                                                          \
                }                                                                                              \
        }                                                                                                      \
    }
GETRS_KERNEL(getrs_f32, float, fmaf)
GETRS_KERNEL(getrs_f64, double, fma)

/* ---- helpers ---- */
static wk_tensor *swap_last(const wk_tensor *t) { /* a view with the last two dims swapped (no autograd) */
    int64_t sz[WK_MAX_DIM], st[WK_MAX_DIM];
    int nd = t->ndim;
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(st, t->strides, sizeof(int64_t) * (size_t)nd);
    sz[nd - 2] = t->sizes[nd - 1], sz[nd - 1] = t->sizes[nd - 2];
    st[nd - 2] = t->strides[nd - 1], st[nd - 1] = t->strides[nd - 2];
    return wk__alias(t, nd, sz, st, t->offset);
}

static int check_min_dims(const wk_tensor *A, const char *api) {
    if (A->ndim >= 2) return 0;
    wk_strbuf s = {0};
    wk_sb_ints(&s, A->sizes, A->ndim);
    wk__error(WK_RUNTIME_ERROR, "%s: Expected tensor with 2 or more dimensions. Got size: %s instead", api,
              s.s ? s.s : "[]");
    wk_sb_free(&s);
    return -1;
}

static int check_lu_dtype(const wk_tensor *A) { /* the "lu_cpu" dispatch: float32 / float64 */
    if (A->dtype != WK_FLOAT32 && A->dtype != WK_FLOAT64) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"lu_cpu\" not implemented for '%s'", wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    return 0;
}

/* torch's _linalg_check_errors for the LU factorisation */
static int check_lu_info(const wk_tensor *info, const char *api, bool is_matrix) {
    int64_t nb = wk__numel(info);
    const int32_t *p = (const int32_t *)wk__data(info);
    for (int64_t b = 0; b < nb; b++) {
        if (p[b] <= 0) continue;
        char batch[64] = "";
        if (!is_matrix) snprintf(batch, sizeof batch, "(Batch element %lld): ", (long long)b);
        wk__error(WK_RUNTIME_ERROR, "%s: %sU[%d,%d] is zero and using it on lu_solve would result in a division by "
                  "zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                  "linalg.lu_factor_ex(A, pivot)", api, batch, p[b], p[b]);
        return -1;
    }
    return 0;
}

/* A [*, m, n] (checked) -> LU (column-major strides, as torch's), pivots [*, k] int32, info [*] int32 */
static int lu_factor_raw(const wk_tensor *A, bool pivot, wk_tensor **outs) {
    int nd = A->ndim;
    int64_t m = A->sizes[nd - 2], n = A->sizes[nd - 1], k = m < n ? m : n, nb = wk__prod(A->sizes, nd - 2);
    int64_t st[WK_MAX_DIM], psz[WK_MAX_DIM];
    wk__contiguous_strides(nd, A->sizes, st);
    st[nd - 2] = 1, st[nd - 1] = m > 0 ? m : 1; /* each matrix column-major, batches contiguous */
    memcpy(psz, A->sizes, sizeof(int64_t) * (size_t)nd);
    psz[nd - 2] = k;
    if (wk__numel(A) > 0) {
        if (check_lu_dtype(A) < 0) return -1;
        if (!pivot) {
            wk__error(WK_RUNTIME_ERROR, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
            return -1;
        }
    }
    wk_tensor *lu = wk__empty_strided(nd, A->sizes, st, A->dtype);
    wk_tensor *piv = lu ? wk__zeros(nd - 1, psz, WK_INT32) : NULL;
    wk_tensor *info = piv ? wk__zeros(nd - 2, A->sizes, WK_INT32) : NULL;
    if (!info || wk__copy_(lu, A) < 0) {
        wk_release(lu);
        wk_release(piv);
        wk_release(info);
        return -1;
    }
    if (wk__numel(A) > 0) {
        char *pa = wk__data(lu);
        int32_t *pp = (int32_t *)wk__data(piv), *pi = (int32_t *)wk__data(info);
        for (int64_t b = 0; b < nb; b++) {
            if (A->dtype == WK_FLOAT64) pi[b] = getrf_f64((double *)pa + b * m * n, m, n, pp + b * k);
            else pi[b] = getrf_f32((float *)pa + b * m * n, m, n, pp + b * k);
        }
    }
    outs[0] = lu;
    outs[1] = piv;
    outs[2] = info;
    return 0;
}

int wk_impl_linalg_lu_factor_ex(wk_tensor *A, bool pivot, bool check_errors, wk_tensor **outs) {
    if (check_min_dims(A, "torch.lu_factor") < 0 || lu_factor_raw(A, pivot, outs) < 0) return -1;
    if (check_errors && check_lu_info(outs[2], "torch.linalg.lu_factor_ex", A->ndim == 2) < 0) {
        for (int i = 0; i < 3; i++) wk_release(outs[i]);
        return -1;
    }
    return 0;
}

int wk_impl_linalg_lu_factor(wk_tensor *A, bool pivot, wk_tensor **outs) {
    wk_tensor *r[3];
    if (wk_linalg_lu_factor_ex(A, pivot, false, r) < 0) return -1;
    int rc = check_lu_info(r[2], "torch.linalg.lu_factor", A->ndim == 2);
    wk_release(r[2]);
    if (rc < 0) {
        wk_release(r[0]);
        wk_release(r[1]);
        return -1;
    }
    outs[0] = r[0];
    outs[1] = r[1];
    return 0;
}

int wk_impl__lu_with_info(wk_tensor *self, bool pivot, bool check_errors, wk_tensor **outs) {
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (!warned)
        wk__warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                 "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                 "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                 "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                 "torch.linalg.lu_factor_ex(A, compute_pivots)");
    warned = true;
    (void)check_errors; /* as torch's: _lu_with_info never raises for a singular input */
    return wk_linalg_lu_factor_ex(self, pivot, false, outs);
}

/* P [*, m, m] (LU's dtype) from the pivots; L [*, m, k], U [*, k, n] from the packed factors (any dtype) */
static int unpack_raw(const wk_tensor *LU, const wk_tensor *piv, bool unpack_data, bool unpack_pivots,
                      wk_tensor **outs) {
    int nd = LU->ndim;
    int64_t m = LU->sizes[nd - 2], n = LU->sizes[nd - 1], k = m < n ? m : n, nb = wk__prod(LU->sizes, nd - 2);
    size_t esz = wk_dtype_size(LU->dtype);
    int64_t sz[WK_MAX_DIM], zero = 0;
    memcpy(sz, LU->sizes, sizeof(int64_t) * (size_t)nd);
    outs[0] = outs[1] = outs[2] = NULL;
    if (unpack_pivots) {
        sz[nd - 1] = m;
        wk_tensor *P = outs[0] = wk__zeros(nd, sz, LU->dtype);
        int64_t *perm = malloc(sizeof(int64_t) * (size_t)(m > 0 ? m : 1));
        wk_tensor *pc = P && perm ? wk__contiguous(piv) : NULL;
        if (!pc) {
            free(perm);
            goto fail;
        }
        int64_t np = piv->sizes[piv->ndim - 1];
        const int32_t *pp = (const int32_t *)wk__data(pc);
        char *pd = wk__data(P);
        for (int64_t b = 0; b < nb; b++) {
            for (int64_t i = 0; i < m; i++) perm[i] = i;
            for (int64_t i = 0; i < np; i++) {
                int64_t j = (int64_t)pp[b * np + i] - 1, t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (int64_t i = 0; i < m; i++)
                wk__store_scalar(pd + (size_t)((b * m + perm[i]) * m + i) * esz, LU->dtype, wk_int(1));
        }
        free(perm);
        wk_release(pc);
    } else if (!(outs[0] = wk__empty(1, &zero, LU->dtype))) {
        goto fail;
    }
    if (!unpack_data) {
        if (!(outs[1] = wk__empty(1, &zero, LU->dtype)) || !(outs[2] = wk__empty(1, &zero, LU->dtype))) goto fail;
        return 0;
    }
    wk_tensor *c = wk__contiguous(LU);
    if (!c) goto fail;
    sz[nd - 2] = m, sz[nd - 1] = k;
    wk_tensor *L = outs[1] = wk__zeros(nd, sz, LU->dtype);
    sz[nd - 2] = k, sz[nd - 1] = n;
    wk_tensor *U = outs[2] = L ? wk__zeros(nd, sz, LU->dtype) : NULL;
    if (!U) {
        wk_release(c);
        goto fail;
    }
    const char *src = wk__data(c);
    char *pl = wk__data(L), *pu = wk__data(U);
    for (int64_t b = 0; b < nb; b++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                const char *e = src + (size_t)((b * m + i) * n + j) * esz;
                if (j < i && j < k) memcpy(pl + (size_t)((b * m + i) * k + j) * esz, e, esz);
                if (j >= i && i < k) memcpy(pu + (size_t)((b * k + i) * n + j) * esz, e, esz);
                if (j == i) wk__store_scalar(pl + (size_t)((b * m + i) * k + j) * esz, LU->dtype, wk_int(1));
            }
    wk_release(c);
    return 0;
fail:
    for (int i = 0; i < 3; i++) {
        wk_release(outs[i]);
        outs[i] = NULL;
    }
    return -1;
}

/* pivots: int32, LU's batch, values in [1, m] (torch's checks and messages) */
static int check_pivots_unpack(const wk_tensor *LU, const wk_tensor *piv) {
    if (piv->dtype != WK_INT32) {
        wk__error(WK_RUNTIME_ERROR, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                  "dtype.\nNote: this function is intended to be used with the output produced by "
                  "torch.linalg.lu_factor");
        return -1;
    }
    int nd = LU->ndim;
    bool shape_ok = piv->ndim == nd - 1 && piv->sizes[nd - 2] <= LU->sizes[nd - 2];
    for (int d = 0; shape_ok && d < nd - 2; d++) shape_ok = piv->sizes[d] == LU->sizes[d];
    if (!shape_ok) {
        wk__error(WK_RUNTIME_ERROR, "torch.lu_unpack: wick expects LU_pivots of shape LU.shape[:-2] + [k] with "
                  "k <= LU.size(-2), as torch.linalg.lu_factor returns them");
        return -1;
    }
    wk_tensor *pc = wk__contiguous(piv);
    if (!pc) return -1;
    const int32_t *pp = (const int32_t *)wk__data(pc);
    int64_t np = wk__numel(pc), m = LU->sizes[nd - 2];
    int rc = 0;
    for (int64_t i = 0; i < np && rc == 0; i++)
        if (pp[i] < 1 || pp[i] > m) {
            wk__error(WK_RUNTIME_ERROR, "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                      "Did you properly pass the result of lu_factor?");
            rc = -1;
        }
    wk_release(pc);
    return rc;
}

int wk_impl_lu_unpack(wk_tensor *LU_data, wk_tensor *LU_pivots, bool unpack_data, bool unpack_pivots,
                      wk_tensor **outs) {
    if (check_min_dims(LU_data, "torch.lu_unpack") < 0) return -1;
    if (unpack_pivots && check_pivots_unpack(LU_data, LU_pivots) < 0) return -1;
    return unpack_raw(LU_data, LU_pivots, unpack_data, unpack_pivots, outs);
}

int wk_impl_linalg_lu(wk_tensor *A, bool pivot, wk_tensor **outs) {
    if (check_min_dims(A, "linalg.lu") < 0) return -1;
    wk_tensor *f[3];
    if (lu_factor_raw(A, pivot, f) < 0) return -1;
    wk_release(f[2]);
    int rc = unpack_raw(f[0], f[1], true, pivot, outs);
    wk_release(f[0]);
    wk_release(f[1]);
    return rc;
}

/* ---- lu_solve ---- */
/* torch's linalg_lu_solve meta checks, in its order; then getrs over the broadcast batch */
wk_tensor *wk_impl_linalg_lu_solve(wk_tensor *LU, wk_tensor *pivots, wk_tensor *B, bool left, bool adjoint) {
    const char *api = "linalg.lu_solve";
    if (!wk_dtype_is_floating(LU->dtype))
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.%s: Expected a floating point or complex tensor as input. Got %s", api,
                       wk_dtype_scalar_name(LU->dtype));
    if (LU->dtype != B->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: Expected LU and B to have the same dtype, but found LU of type %s and B "
                       "of type %s instead", api, wk_dtype_scalar_name(LU->dtype), wk_dtype_scalar_name(B->dtype));
    if (pivots->dtype != WK_INT32)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: pivots should be a Tensor of scalar type torch.int32", api);
    if (LU->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.%s: The input tensor A must have at least 2 dimensions.", api);
    int64_t n = LU->sizes[LU->ndim - 1];
    if (LU->sizes[LU->ndim - 2] != n)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.%s: A must be batches of square matrices, but they are %lld by %lld "
                       "matrices", api, (long long)LU->sizes[LU->ndim - 2], (long long)n);
    if (B->ndim < 2) return WK_FAIL(WK_RUNTIME_ERROR, "%s: The input tensor B must have at least 2 dimensions.", api);
    int64_t br = B->sizes[B->ndim - 2], bc = B->sizes[B->ndim - 1];
    if (left ? n != br : n != bc)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and "
                       "%lldx%lld)", api, left ? "AX = B" : "XA = B", (long long)n, (long long)n, (long long)br,
                       (long long)bc);
    if (pivots->ndim < 1 || pivots->sizes[pivots->ndim - 1] != n)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: Number of pivots per batch should be same as the dimension of the matrix",
                       api);
    bool same = pivots->ndim == LU->ndim - 1;
    for (int d = 0; same && d < pivots->ndim; d++) same = pivots->sizes[d] == LU->sizes[d];
    if (!same) {
        wk_strbuf s = {0};
        wk_sb_ints(&s, pivots->sizes, pivots->ndim);
        wk__error(WK_RUNTIME_ERROR, "%s: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                  "shape %s instead", api, s.s ? s.s : "[]");
        wk_sb_free(&s);
        return NULL;
    }
    int nbatch = 0;
    int64_t xs[WK_MAX_DIM];
    if (wk__broadcast_shapes(B->ndim - 2, B->sizes, LU->ndim - 2, LU->sizes, &nbatch, xs) < 0) return NULL;
    if (nbatch + 2 > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "%s: too many dimensions", api);
    int64_t rhs = left ? bc : br, nb = wk__prod(xs, nbatch);
    bool empty = nb == 0 || n == 0 || rhs == 0;
    wk_dtype dt = LU->dtype;
    if (!empty && dt != WK_FLOAT32 && dt != WK_FLOAT64)
        return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR, "\"lu_solve_cpu\" not implemented for '%s'", wk_dtype_scalar_name(dt));
    wk_tensor *pc = wk__contiguous(pivots);
    if (!pc) return NULL;
    const int32_t *pp0 = (const int32_t *)wk__data(pc);
    int64_t np = wk__numel(pc);
    const char *bad = NULL;
    for (int64_t i = 0; i < np && !empty; i++)
        if (pp0[i] < 1) bad = "greater or equal to 1";
    for (int64_t i = 0; i < np && !empty && !bad; i++)
        if (pp0[i] > n) bad = "smaller or equal to LU.size(-2)";
    wk_release(pc);
    if (bad)
        return WK_FAIL(WK_RUNTIME_ERROR, "Pivots given to lu_solve must all be %s. Did you properly pass the result of "
                       "lu_factor?", bad);
    int64_t as[WK_MAX_DIM], ps[WK_MAX_DIM];
    memcpy(as, xs, sizeof(int64_t) * (size_t)nbatch);
    memcpy(ps, xs, sizeof(int64_t) * (size_t)nbatch);
    as[nbatch] = as[nbatch + 1] = n;
    ps[nbatch] = n;
    xs[nbatch] = n; /* the system solved: [batch, n, rhs] */
    xs[nbatch + 1] = rhs;
    wk_tensor *LUt = swap_last(LU), *Bx = LUt ? (left ? wk_retain(B) : swap_last(B)) : NULL;
    wk_tensor *Le = Bx ? wk__expand_to(LUt, nbatch + 2, as) : NULL, *Pe = Le ? wk__expand_to(pivots, nbatch + 1, ps) : NULL;
    wk_tensor *Be = Pe ? wk__expand_to(Bx, nbatch + 2, xs) : NULL;
    wk_tensor *lu = Be ? wk__contiguous(Le) : NULL, *pv = lu ? wk__contiguous(Pe) : NULL;
    wk_tensor *x = pv ? wk__clone(Be) : NULL;
    wk_release(LUt);
    wk_release(Bx);
    wk_release(Le);
    wk_release(Pe);
    wk_release(Be);
    if (!x) {
        wk_release(lu);
        wk_release(pv);
        return NULL;
    }
    bool trans = left ? adjoint : !adjoint;
    const char *pa = wk__data(lu);
    const int32_t *pp = (const int32_t *)wk__data(pv);
    char *px = wk__data(x);
    for (int64_t b = 0; b < nb && !empty; b++) {
        if (dt == WK_FLOAT64)
            getrs_f64((const double *)pa + b * n * n, pp + b * n, n, (double *)px + b * n * rhs, rhs, trans);
        else
            getrs_f32((const float *)pa + b * n * n, pp + b * n, n, (float *)px + b * n * rhs, rhs, trans);
    }
    wk_release(lu);
    wk_release(pv);
    if (left) return x;
    wk_tensor *xt = swap_last(x), *res = xt ? wk__contiguous(xt) : NULL;
    wk_release(xt);
    wk_release(x);
    return res;
}

wk_tensor *wk_impl_lu_solve(wk_tensor *self, wk_tensor *LU_data, wk_tensor *LU_pivots) {
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (!warned)
        wk__warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
                 "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, "
                 "pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)");
    warned = true;
    return wk_linalg_lu_solve(LU_data, LU_pivots, self, true, false);
}

/* ---- derivatives (torch's FunctionsManual.cpp), over recorded ops ---- */
#define MT(x) P_(wk_transpose((x), -2, -1))

/* torch's linalg_lu_backward: A = P L U with L [*, m, k], U [*, k, n] */
wk_tensor *wk_impl__linalg_lu_backward(wk_tensor *gL, wk_tensor *gU, wk_tensor *P, wk_tensor *L, wk_tensor *U,
                                       bool pivot) {
    wk_cpool pool = {0};
    int64_t m = L->sizes[L->ndim - 2], n = U->sizes[U->ndim - 1], k = m < n ? m : n;
    wk_tensor *g;
    if (m == n) {
        /* gA = P L^-H [L^H gL o 1_L + gU U^H o 1_U] U^-H */
        g = P_(wk_add(P_(wk_tril(P_(wk_matmul(MT(L), gL)), -1)), P_(wk_triu(P_(wk_matmul(gU, MT(U))), 0)), wk_int(1)));
        g = P_(wk_linalg_solve_triangular(MT(U), g, false, false, false));
        g = P_(wk_linalg_solve_triangular(MT(L), g, true, true, true));
    } else if (m < n) {
        /* wide: gA1 = P L^-H [gU1 o 1_U + (L^H gL o 1_L - (gU U^H) o 1_L) U1^-H], gA2 = P L^-H gU2 */
        wk_tensor *U1 = P_(wk_narrow(U, -1, 0, k));
        g = P_(wk_sub(P_(wk_matmul(MT(L), gL)), P_(wk_matmul(P_(wk_triu(gU, 0)), MT(U))), wk_int(1)));
        g = P_(wk_linalg_solve_triangular(MT(U1), P_(wk_tril(g, -1)), false, false, false));
        wk_tensor *parts[2] = {P_(wk_add(g, P_(wk_triu(P_(wk_narrow(gU, -1, 0, k)), 0)), wk_int(1))),
                               P_(wk_narrow(gU, -1, k, n - k))};
        g = pool.failed ? NULL : P_(wk_cat((wk_tensorlist){parts, 2}, -1));
        g = P_(wk_linalg_solve_triangular(MT(L), g, true, true, true));
    } else {
        /* tall: gA1 = P [gL1 o 1_L + L1^-H (gU U^H o 1_U - (L^H gL) o 1_U)] U^-H, gA2 = P gL2 U^-H */
        wk_tensor *L1 = P_(wk_narrow(L, -2, 0, k));
        g = P_(wk_sub(P_(wk_matmul(gU, MT(U))), P_(wk_matmul(MT(L), P_(wk_tril(gL, -1)))), wk_int(1)));
        g = P_(wk_linalg_solve_triangular(MT(L1), P_(wk_triu(g, 0)), true, true, true));
        wk_tensor *parts[2] = {P_(wk_add(g, P_(wk_tril(P_(wk_narrow(gL, -2, 0, k)), -1)), wk_int(1))),
                               P_(wk_narrow(gL, -2, k, m - k))};
        g = pool.failed ? NULL : P_(wk_cat((wk_tensorlist){parts, 2}, -2));
        g = P_(wk_linalg_solve_triangular(MT(U), g, false, false, false));
    }
    if (pivot) g = P_(wk_matmul(P, g));
    return wk_cpool_end(&pool, g);
}

/* torch's lu_factor_ex_backward: unpack, then linalg_lu_backward with gL, gU the packed gradient's parts */
wk_tensor *wk_impl__linalg_lu_factor_ex_backward(wk_tensor *grad, wk_tensor *LU, wk_tensor *pivots, bool pivot) {
    wk_tensor *f[3];
    if (wk_lu_unpack(LU, pivots, true, pivot, f) < 0) return NULL;
    wk_cpool pool = {0};
    for (int i = 0; i < 3; i++) P_(f[i]);
    int64_t m = LU->sizes[LU->ndim - 2], n = LU->sizes[LU->ndim - 1], k = m < n ? m : n;
    wk_tensor *gL = P_(wk_narrow(grad, -1, 0, k)), *gU = P_(wk_narrow(grad, -2, 0, k));
    wk_tensor *r = P_(wk__linalg_lu_backward(gL, gU, f[0], f[1], f[2], pivot));
    return wk_cpool_end(&pool, r);
}

/* torch's lu_unpack_backward: gL below the diagonal and gU on and above it, packed as LU [*, m, n] */
wk_tensor *wk_impl__lu_unpack_backward(wk_tensor *gL, wk_tensor *gU, wk_intlist LU_sizes) {
    int64_t m = LU_sizes.data[LU_sizes.len - 2], n = LU_sizes.data[LU_sizes.len - 1], k = m < n ? m : n;
    wk_cpool pool = {0};
    wk_tensor *r;
    if (m == n) {
        r = P_(wk_add(P_(wk_tril(gL, -1)), P_(wk_triu(gU, 0)), wk_int(1)));
    } else if (m > n) {
        wk_tensor *parts[2] = {P_(wk_add(P_(wk_tril(P_(wk_narrow(gL, -2, 0, k)), -1)), P_(wk_triu(gU, 0)), wk_int(1))),
                               P_(wk_narrow(gL, -2, k, m - k))};
        r = pool.failed ? NULL : P_(wk_cat((wk_tensorlist){parts, 2}, -2));
    } else {
        wk_tensor *parts[2] = {P_(wk_add(P_(wk_tril(gL, -1)), P_(wk_triu(P_(wk_narrow(gU, -1, 0, k)), 0)), wk_int(1))),
                               P_(wk_narrow(gU, -1, k, n - k))};
        r = pool.failed ? NULL : P_(wk_cat((wk_tensorlist){parts, 2}, -1));
    }
    return wk_cpool_end(&pool, r);
}

/* torch's linalg_lu_solve_LU */
wk_tensor *wk_impl__linalg_lu_solve_LU(wk_tensor *gX, wk_tensor *LU, wk_tensor *pivots, wk_tensor *X, bool left,
                                       bool adjoint) {
    wk_tensor *f[3];
    if (wk_lu_unpack(LU, pivots, true, left == adjoint, f) < 0) return NULL;
    wk_cpool pool = {0};
    for (int i = 0; i < 3; i++) P_(f[i]);
    wk_tensor *P = f[0], *L = f[1], *U = f[2], *r;
    if (left != adjoint) {
        /* gR = U^-H op2(-gX) op2(X)^H; gL = (L^-H gR U^H).tril(-1); gLU = gL + gR.triu() */
        wk_tensor *prod = P_(left ? wk_matmul(gX, MT(X)) : wk_matmul(MT(gX), X));
        wk_tensor *gR = P_(wk_linalg_solve_triangular(MT(U), P_(wk_neg(prod)), false, true, false));
        wk_tensor *gl = P_(wk_tril(P_(wk_linalg_solve_triangular(MT(L), P_(wk_matmul(gR, MT(U))), true, true, true)), -1));
        r = P_(wk_add(gl, P_(wk_triu(gR, 0)), wk_int(1)));
    } else {
        /* gR = -P^T op3(X) op1(op2(gX)) P L^-H; gU = (L^H gR U^-H).triu(); gLU = gR.tril(-1) + gU */
        wk_tensor *t = P_(wk_matmul(MT(P), left ? X : MT(X)));
        t = P_(wk_matmul(t, left ? MT(gX) : gX));
        wk_tensor *gR = P_(wk_neg(P_(wk_matmul(t, P))));
        gR = P_(wk_linalg_solve_triangular(MT(L), gR, true, false, true));
        wk_tensor *gu = P_(wk_triu(P_(wk_linalg_solve_triangular(MT(U), P_(wk_matmul(MT(L), gR)), false, false, false)), 0));
        r = P_(wk_add(P_(wk_tril(gR, -1)), gu, wk_int(1)));
    }
    return wk_cpool_end(&pool, r);
}
