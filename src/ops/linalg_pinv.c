/* linalg_pinv.c — linalg.pinv / torch.pinverse / linalg.matrix_rank / linalg.cond: composites over linalg_svd,
 * linalg_svdvals, linalg_eigh / eigvalsh, linalg_inv_ex and linalg_matrix_norm, written as torch's
 * LinearAlgebra.cpp writes them (so values, dtypes, graph and errors follow). Only the Tensor-tolerance linalg_pinv is
 * a recorded op (LinalgPinvBackward0, torch's pinv_backward below); the rest compose recorded ops.
 *
 * Note [Tolerances of pinv and matrix_rank] (torch's get_atol_rtol)
 *   atol defaults to 0; rtol defaults to eps(dtype) * max(m, n), except that a given atol > 0 makes it 0 (as a
 *   `where` over the atol tensor in the Tensor overloads). Both are float64 0-d tensors on the input's device when
 *   built here. A singular value S_i counts (is inverted) when S_i > max(atol, rtol * S_max), per batch element
 *   (atol and rtol broadcast against the batch). The Tensor overloads check the input's dtype first; the float
 *   overloads ask eps first, which raises "This function doesn't handle types other than float and double" for any
 *   other dtype when rtol is not given. */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/reduce.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const int64_t LAST = -1;

/* torch's _get_epsilon */
static int real_epsilon(wk_dtype dt, double *eps) {
    if (dt == WK_FLOAT32) *eps = FLT_EPSILON;
    else if (dt == WK_FLOAT64) *eps = DBL_EPSILON;
    else {
        wk__error(WK_RUNTIME_ERROR, "This function doesn't handle types other than float and double");
        return -1;
    }
    return 0;
}

static wk_tensor *f64_scalar(wk_tensor *like, double v) { /* [] float64 on like's device */
    return wk_new_full(like, wk_ints(NULL, 0), wk_float(v), WK_FLOAT64, false);
}

/* get_atol_rtol, Tensor form: *atol_out, *rtol_out new references */
static int atol_rtol_tensor(wk_tensor *A, wk_tensor *atol, wk_tensor *rtol, wk_tensor **atol_out, wk_tensor **rtol_out) {
    *atol_out = *rtol_out = NULL;
    wk_tensor *at = atol ? wk_retain(atol) : f64_scalar(A, 0.0);
    if (!at) return -1;
    if (rtol) {
        *atol_out = at;
        *rtol_out = wk_retain(rtol);
        return 0;
    }
    double eps;
    if (real_epsilon(A->dtype, &eps) < 0) {
        wk_release(at);
        return -1;
    }
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    wk_cpool pool = {0};
    wk_tensor *def = P_(f64_scalar(A, eps * (double)(m > n ? m : n)));
    wk_tensor *rt = atol ? P_(wk_where_self(P_(wk_gt_Scalar(atol, wk_int(0))), P_(f64_scalar(A, 0.0)), def)) : def;
    wk_tensor *r = wk_cpool_end(&pool, rt);
    if (!r) {
        wk_release(at);
        return -1;
    }
    *atol_out = at;
    *rtol_out = r;
    return 0;
}

/* get_atol_rtol, float form */
static int atol_rtol_float(wk_tensor *A, wk_optfloat atol, wk_optfloat rtol, wk_tensor **atol_out,
                           wk_tensor **rtol_out) {
    *atol_out = *rtol_out = NULL;
    double a = atol.has ? atol.v : 0.0, r = rtol.has ? rtol.v : 0.0;
    if (!rtol.has) { /* torch reads size(-2) first, then eps */
        double eps;
        int64_t d;
        if (A->ndim == 0) {
            wk__error(WK_INDEX_ERROR, "Dimension specified as -2 but tensor has no dimensions");
            return -1;
        }
        if (wk__wrap_dim(-2, A->ndim, &d) < 0 || real_epsilon(A->dtype, &eps) < 0) return -1;
        int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
        r = atol.has && atol.v > 0.0 ? 0.0 : eps * (double)(m > n ? m : n);
    }
    *atol_out = f64_scalar(A, a);
    *rtol_out = *atol_out ? f64_scalar(A, r) : NULL;
    if (!*rtol_out) {
        if (*atol_out) wk_release(*atol_out);
        *atol_out = NULL;
        return -1;
    }
    return 0;
}

/* ================================================================================================ linalg.pinv */

static int pinv_check(const wk_tensor *A) {
    if ((A->dtype == WK_FLOAT32 || A->dtype == WK_FLOAT64) && A->ndim >= 2) return 0;
    wk_strbuf b = {0};
    wk_sb_ints(&b, A->sizes, A->ndim);
    wk__error(WK_RUNTIME_ERROR,
              "linalg.pinv(%s{%s}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
              "types",
              wk_dtype_scalar_name(A->dtype), b.s ? b.s : "[]");
    wk_sb_free(&b);
    return -1;
}

/* S [batch..., k] the singular values (or |eigenvalues|), smax [batch..., 1]: S_i > max(atol, rtol * smax) */
static wk_tensor *above_tol(wk_cpool *pp, wk_tensor *S, wk_tensor *smax, wk_tensor *atol, wk_tensor *rtol) {
#define Q_(x) wk_cpool_add(pp, (pp->failed ? NULL : (x)))
    wk_tensor *tol = Q_(wk_maximum(Q_(wk_unsqueeze(atol, -1)), Q_(wk_mul(Q_(wk_unsqueeze(rtol, -1)), smax))));
    return Q_(wk_gt(S, tol));
#undef Q_
}

wk_tensor *wk_impl_linalg_pinv_atol_rtol_tensor(wk_tensor *self, wk_tensor *atol, wk_tensor *rtol, bool hermitian) {
    if (pinv_check(self) < 0) return NULL;
    wk_tensor *at, *rt;
    if (atol_rtol_tensor(self, atol, rtol, &at, &rt) < 0) return NULL;
    wk_cpool pool = {0};
    P_(at);
    P_(rt);
    wk_tensor *r;
    if (wk__numel(self) == 0) { /* the mT's shape, empty */
        int64_t sz[WK_MAX_DIM];                   /* [ndim] */
        memcpy(sz, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
        sz[self->ndim - 1] = self->sizes[self->ndim - 2];
        sz[self->ndim - 2] = self->sizes[self->ndim - 1];
        r = P_(wk_new_empty(self, wk_ints(sz, self->ndim), self->dtype, false));
    } else if (!hermitian) {
        wk_tensor *usv[3] = {0}; /* U [.., m, k], S [.., k], Vh [.., k, n] */
        if (wk_linalg_svd(self, false, NULL, usv) < 0) return wk_cpool_end(&pool, NULL);
        wk_tensor *U = P_(usv[0]), *S = P_(usv[1]), *Vh = P_(usv[2]);
        wk_tensor *keep = above_tol(&pool, S, P_(wk_narrow(S, -1, 0, 1)), at, rt);
        wk_tensor *Sinv = P_(wk_to_dtype(P_(wk_where_ScalarOther(keep, P_(wk_reciprocal(S)), wk_int(0))), self->dtype,
                                         false, false));                          /* [.., k] */
        wk_tensor *VS = P_(wk_mul(P_(wk_mT(Vh)), P_(wk_unsqueeze(Sinv, -2))));    /* [.., n, k] */
        r = P_(wk_matmul(VS, P_(wk_mT(U))));                                      /* [.., n, m] */
    } else {
        wk_tensor *lv[2] = {0}; /* L [.., n], V [.., n, n] */
        if (wk_linalg_eigh(self, "L", lv) < 0) return wk_cpool_end(&pool, NULL);
        wk_tensor *L = P_(lv[0]), *V = P_(lv[1]);
        wk_tensor *Labs = P_(wk_abs(L));
        wk_tensor *keep = above_tol(&pool, Labs, P_(wk_amax(Labs, wk_ints(&LAST, 1), true)), at, rt);
        wk_tensor *Linv = P_(wk_to_dtype(P_(wk_where_ScalarOther(keep, P_(wk_reciprocal(L)), wk_int(0))), self->dtype,
                                         false, false));
        r = P_(wk_matmul(P_(wk_mul(V, P_(wk_unsqueeze(Linv, -2)))), P_(wk_mT(V))));
    }
    return wk_cpool_end(&pool, r);
}

/* torch's pinv_backward (FunctionsManual.cpp), real case: the products ordered to keep the smaller dimension, the terms
 * summed in torch's order (the grad_fn of a second derivative shows it) */
wk_tensor *wk_impl__linalg_pinv_backward(wk_tensor *grad, wk_tensor *pinvA, wk_tensor *A) {
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    wk_cpool pool = {0};
    wk_tensor *pinvAh = P_(wk_mT(pinvA)), *gradh = P_(wk_mT(grad));
    wk_tensor *r;
    if (m <= n) {
        wk_tensor *K = P_(wk_matmul(gradh, pinvA));     /* [.., m, m] */
        wk_tensor *KpinvAh = P_(wk_matmul(K, pinvAh));  /* [.., m, n] */
        wk_tensor *t1 = P_(wk_neg(P_(wk_mT(P_(wk_matmul(pinvA, K))))));
        wk_tensor *t3 = P_(wk_matmul(P_(wk_matmul(A, pinvA)), KpinvAh));
        wk_tensor *t4 = P_(wk_matmul(P_(wk_matmul(pinvAh, pinvA)), P_(wk_sub(gradh, P_(wk_matmul(K, A)), wk_int(1)))));
        r = P_(wk_add(P_(wk_sub(P_(wk_add(t1, KpinvAh, wk_int(1))), t3, wk_int(1))), t4, wk_int(1)));
    } else {
        wk_tensor *K = P_(wk_matmul(pinvA, gradh));      /* [.., n, n] */
        wk_tensor *pinvAhK = P_(wk_matmul(pinvAh, K));   /* [.., m, n] */
        wk_tensor *t1 = P_(wk_neg(P_(wk_mT(P_(wk_matmul(K, pinvA))))));
        wk_tensor *t3 = P_(wk_matmul(P_(wk_matmul(pinvAhK, pinvA)), A));
        wk_tensor *t4 = P_(wk_matmul(P_(wk_matmul(P_(wk_sub(gradh, P_(wk_matmul(A, K)), wk_int(1))), pinvA)), pinvAh));
        r = P_(wk_sub(P_(wk_add(P_(wk_add(t1, t4, wk_int(1))), pinvAhK, wk_int(1))), t3, wk_int(1)));
    }
    return wk_cpool_end(&pool, r);
}

wk_tensor *wk_impl_linalg_pinv_atol_rtol_float(wk_tensor *self, wk_optfloat atol, wk_optfloat rtol, bool hermitian) {
    wk_tensor *at, *rt;
    if (atol_rtol_float(self, atol, rtol, &at, &rt) < 0) return NULL;
    wk_tensor *r = wk_linalg_pinv_atol_rtol_tensor(self, at, rt, hermitian);
    wk_release(at);
    wk_release(rt);
    return r;
}

/* rcond is NumPy's: a relative tolerance */
wk_tensor *wk_impl_linalg_pinv(wk_tensor *self, double rcond, bool hermitian) {
    return wk_linalg_pinv_atol_rtol_float(self, (wk_optfloat){true, 0.0}, (wk_optfloat){true, rcond}, hermitian);
}

wk_tensor *wk_impl_linalg_pinv_rcond_tensor(wk_tensor *self, wk_tensor *rcond, bool hermitian) {
    wk_tensor *z = f64_scalar(self, 0.0);
    if (!z) return NULL;
    wk_tensor *r = wk_linalg_pinv_atol_rtol_tensor(self, z, rcond, hermitian);
    wk_release(z);
    return r;
}

wk_tensor *wk_impl_pinverse(wk_tensor *self, double rcond) { return wk_linalg_pinv(self, rcond, false); }

/* ======================================================================================== linalg.matrix_rank */

static int rank_check(const wk_tensor *A) {
    if (A->ndim >= 2) return 0;
    wk__error(WK_RUNTIME_ERROR, "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
    return -1;
}

/* atol, rtol: owned here (released) */
static wk_tensor *matrix_rank_impl(wk_tensor *A, wk_tensor *atol, wk_tensor *rtol, bool hermitian) {
    wk_cpool pool = {0};
    P_(atol);
    P_(rtol);
    wk_tensor *r;
    if (wk__numel(A) == 0) { /* no rows or no columns: rank 0 (NumPy errors here) */
        r = P_(wk_new_zeros(A, wk_ints(A->sizes, A->ndim - 2), WK_INT64, false));
    } else {
        wk_tensor *S, *smax; /* [batch..., k], [batch..., 1] */
        if (!hermitian) {
            S = P_(wk_linalg_svdvals(A, NULL));
            smax = P_(wk_narrow(S, -1, 0, 1));
        } else {
            S = P_(wk_abs(P_(wk_linalg_eigvalsh(A, "L"))));
            smax = P_(wk_amax(S, wk_ints(&LAST, 1), true));
        }
        r = P_(wk_sum_dim(above_tol(&pool, S, smax, atol, rtol), wk_ints(&LAST, 1), false, WK_DTYPE_NONE));
    }
    return wk_cpool_end(&pool, r);
}

wk_tensor *wk_impl_linalg_matrix_rank_atol_rtol_tensor(wk_tensor *input, wk_tensor *atol, wk_tensor *rtol,
                                                       bool hermitian) {
    if (rank_check(input) < 0) return NULL;
    wk_tensor *at, *rt;
    if (atol_rtol_tensor(input, atol, rtol, &at, &rt) < 0) return NULL;
    return matrix_rank_impl(input, at, rt, hermitian);
}

wk_tensor *wk_impl_linalg_matrix_rank_atol_rtol_float(wk_tensor *self, wk_optfloat atol, wk_optfloat rtol,
                                                      bool hermitian) {
    if (rank_check(self) < 0) return NULL;
    wk_tensor *at, *rt;
    if (atol_rtol_float(self, atol, rtol, &at, &rt) < 0) return NULL;
    return matrix_rank_impl(self, at, rt, hermitian);
}

/* tol is an absolute tolerance (rtol 0) */
wk_tensor *wk_impl_linalg_matrix_rank(wk_tensor *self, double tol, bool hermitian) {
    return wk_linalg_matrix_rank_atol_rtol_float(self, (wk_optfloat){true, tol}, (wk_optfloat){true, 0.0}, hermitian);
}

wk_tensor *wk_impl_linalg_matrix_rank_tol_tensor(wk_tensor *input, wk_tensor *tol, bool hermitian) {
    wk_tensor *z = f64_scalar(input, 0.0);
    if (!z) return NULL;
    wk_tensor *r = wk_linalg_matrix_rank_atol_rtol_tensor(input, tol, z, hermitian);
    wk_release(z);
    return r;
}

/* ================================================================================================ linalg.cond */

/* NumPy leaves 0x0 undefined; torch gives zeros of the batch shape */
static wk_tensor *cond_empty(wk_tensor *A) { return wk_new_zeros(A, wk_ints(A->sizes, A->ndim - 2), A->dtype, false); }

static int cond_square(const wk_tensor *A, const char *ord) {
    if (A->sizes[A->ndim - 1] == A->sizes[A->ndim - 2]) return 0;
    wk__error(WK_RUNTIME_ERROR, "linalg.cond(ord=%s): A must be batches of square matrices, but they are %lld by %lld "
              "matrices", ord, (long long)A->sizes[A->ndim - 2], (long long)A->sizes[A->ndim - 1]);
    return -1;
}

/* _linalg_cond_helper: norm(A) * norm(inv(A)), a singular matrix's inverse set to inf, 0 * inf made inf */
static wk_tensor *cond_via_inverse(wk_tensor *A, wk_scalar ord, const char *sord) {
    wk_tensor *ii[2] = {0}; /* inverse [.., n, n], info [..] */
    if (wk_linalg_inv_ex(A, false, ii) < 0) return NULL;
    wk_cpool pool = {0};
    P_(ii[0]);
    P_(ii[1]);
    wk_tensor *info = P_(wk_unsqueeze(P_(wk_unsqueeze(ii[1], -1)), -1));
    /* in place, as torch: inv_ex's backward saved this output, so cond's backward through it raises torch's
     * modified-saved-tensor error (torch's cond is not differentiable for these orders) */
    wk_tensor *inv = ii[0];
    wk_tensor *mask = P_(wk_gt_Scalar(info, wk_int(0)));
    if (!pool.failed) {
        wk_tensor *w = wk_masked_fill_Scalar_(inv, mask, wk_float(INFINITY)); /* new reference to inv */
        if (!w) return wk_cpool_end(&pool, NULL);
        wk_release(w);
    }
    static const int64_t d[2] = {-2, -1};
    wk_tensor *na, *ni;
    if (sord) {
        na = P_(wk_linalg_matrix_norm_str_ord(A, sord, wk_ints(d, 2), false, WK_DTYPE_NONE));
        ni = P_(wk_linalg_matrix_norm_str_ord(inv, sord, wk_ints(d, 2), false, WK_DTYPE_NONE));
    } else {
        na = P_(wk_linalg_matrix_norm(A, ord, wk_ints(d, 2), false, WK_DTYPE_NONE));
        ni = P_(wk_linalg_matrix_norm(inv, ord, wk_ints(d, 2), false, WK_DTYPE_NONE));
    }
    wk_tensor *r = P_(wk_nan_to_num(P_(wk_mul(na, ni)), (wk_optfloat){true, INFINITY}, (wk_optfloat){true, INFINITY},
                                    (wk_optfloat){true, -INFINITY}));
    return wk_cpool_end(&pool, r);
}

wk_tensor *wk_impl_linalg_cond(wk_tensor *self, wk_scalar p) {
    if (self->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "linalg.cond: The input tensor must have at least 2 dimensions.");
        return NULL;
    }
    wk_scalar ord = p.tag == WK_SCALAR_NONE ? wk_int(2) : p; /* NumPy's None: the 2-norm */
    double o = wk__scalar_to_double(ord), ao = fabs(o);
    if (ao != 2.0 && ao != 1.0 && ao != INFINITY) {
        wk__error(WK_RUNTIME_ERROR, "linalg.cond got an invalid norm type: %g", o);
        return NULL;
    }
    if (wk__numel(self) == 0) return cond_empty(self);
    if (ao == 2.0) { /* S_max / S_min (S_min / S_max for -2), squeezed */
        wk_cpool pool = {0};
        wk_tensor *S = P_(wk_linalg_svdvals(self, NULL)); /* [batch..., k] */
        wk_tensor *smax = P_(wk_narrow(S, -1, 0, 1)), *smin = P_(wk_narrow(S, -1, -1, 1));
        wk_tensor *q = o < 0 ? P_(wk_div(smin, smax, NULL)) : P_(wk_div(smax, smin, NULL));
        return wk_cpool_end(&pool, P_(wk_squeeze_dim(q, -1)));
    }
    char name[32]; /* C++'s std::to_string: "%f" of a floating ord, "%lld" of an integer one */
    if (ord.tag == WK_SCALAR_FLOAT) snprintf(name, sizeof name, "%f", o);
    else snprintf(name, sizeof name, "%lld", (long long)o);
    if (cond_square(self, name) < 0) return NULL;
    return cond_via_inverse(self, ord, NULL);
}

wk_tensor *wk_impl_linalg_cond_p_str(wk_tensor *self, const char *p) {
    if (self->ndim < 2) { /* squareCheckInputs' first check */
        wk__error(WK_RUNTIME_ERROR, "linalg.cond(ord=%s): The input tensor A must have at least 2 dimensions.", p);
        return NULL;
    }
    if (cond_square(self, p) < 0) return NULL;
    if (strcmp(p, "fro") && strcmp(p, "nuc")) {
        wk__error(WK_RUNTIME_ERROR, "linalg.cond got an invalid norm type: %s", p);
        return NULL;
    }
    if (wk__numel(self) == 0) return cond_empty(self);
    if (!strcmp(p, "nuc")) { /* sum(S) * sum(1 / S): matrix_norm('nuc') of an inverse full of inf would raise */
        wk_cpool pool = {0};
        wk_tensor *S = P_(wk_linalg_svdvals(self, NULL));
        wk_tensor *r = P_(wk_mul(P_(wk_sum_dim(S, wk_ints(&LAST, 1), false, WK_DTYPE_NONE)),
                                 P_(wk_sum_dim(P_(wk_reciprocal(S)), wk_ints(&LAST, 1), false, WK_DTYPE_NONE))));
        return wk_cpool_end(&pool, r);
    }
    return cond_via_inverse(self, wk_scalar_none(), p);
}
