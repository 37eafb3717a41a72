/* linalg_svd.c — the singular value decomposition: torch._linalg_svd (the op with the derivative,
 * LinalgSvdBackward0), linalg.svd, linalg.svdvals and the legacy torch.svd / Tensor.svd, for float32 and float64,
 * batched over any leading dims.
 *
 * Note [SVD by one-sided Jacobi]: torch's CPU svd is LAPACK's gesdd; here each matrix is decomposed without LAPACK,
 * in float64 for both dtypes (float32 is rounded once at the end). For A [m, n] with m >= n (else A^T, and the roles
 * of U and V swap): Householder QR first, A = Q R (wk__geqr2 / wk__org2r, the kernels of linalg.qr), which makes
 * the iteration square and gives the completion of U for full_matrices (the last m - n columns of the complete Q);
 * then one-sided Jacobi (Hestenes) on R [n, n]: plane rotations of column pairs (p, q), each making columns p and
 * q orthogonal, V accumulating the rotations, sweeps until no pair has |r_p . r_q| > eps sqrt(|r_p|^2 |r_q|^2)
 * (eps = 2^-53 n; at most 80 sweeps). Then S_j = |r_j|, U_R's columns r_j / S_j, sorted descending (stable);
 * U = Q U_R, V accumulated, Vh = V^T. This never forms A^T A, so every singular value is accurate to about
 * eps |A| (through A^T A a small one would only be accurate to eps |A|^2 / S_j). A column of norm at most
 * eps N S_0 (rank deficiency, e.g. A = 0: its direction is rounding noise) gets an orthonormal completion: the
 * unit vector e_i with the largest residual against the columns already made, orthogonalised twice.
 * Singular vectors are not unique (each pair's sign; any basis of a repeated singular value's space), and wick's
 * differ from gesdd's, so the parity cases compare invariants (S, U diag(S) Vh, |U|, |Vh|, U^T U, ...), never U
 * itself. As torch's gesdd: any NaN in a matrix raises LinAlgError ("The algorithm failed to converge because the
 * input matrix contained non-finite values."); an infinity (without NaN) gives NaN for all of that matrix's U, S
 * and Vh. */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/linalg_dense.h"
#include "ops/reduce.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* w [k columns, each of length k contiguous] := its columns made mutually orthogonal by rotations; v [k, k] (same
 * column layout, the identity on entry) accumulates them when not NULL. The naive reference kernel. */
static void jacobi_columns(double *w, double *v, int64_t k) {
    const double eps = DBL_EPSILON / 2 * (double)k;
    for (int sweep = 0; sweep < 80; sweep++) {
        bool rotated = false;
        for (int64_t p = 0; p < k; p++)
            for (int64_t q = p + 1; q < k; q++) {
                double *wp = w + p * k, *wq = w + q * k;
                double a = 0, b = 0, g = 0; /* |w_p|^2, |w_q|^2, w_p . w_q */
                for (int64_t i = 0; i < k; i++) {
                    a += wp[i] * wp[i];
                    b += wq[i] * wq[i];
                    g += wp[i] * wq[i];
                }
                if (g == 0 || fabs(g) <= eps * sqrt(a) * sqrt(b)) continue;
                rotated = true;
                /* [w_p, w_q] := [w_p, w_q] [[c, s], [-s, c]], t the smaller root of t^2 + 2 zeta t - 1 = 0 */
                double zeta = (b - a) / (2 * g);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + hypot(zeta, 1.0));
                double c = 1 / hypot(t, 1.0), s = c * t;
                for (int64_t i = 0; i < k; i++) {
                    double x = wp[i], y = wq[i];
                    wp[i] = c * x - s * y;
                    wq[i] = s * x + c * y;
                }
                if (!v) continue;
                double *vp = v + p * k, *vq = v + q * k;
                for (int64_t i = 0; i < k; i++) {
                    double x = vp[i], y = vq[i];
                    vp[i] = c * x - s * y;
                    vq[i] = s * x + c * y;
                }
            }
        if (!rotated) break;
    }
}

/* u [k columns of length k]: column j (norm zero) := a unit vector orthogonal to the columns in done[] */
static void complete_column(double *u, int64_t k, int64_t j, const bool *done, double *r) {
    double best = -1;
    int64_t bi = 0;
    for (int64_t e = 0; e < k; e++) { /* the e_i with the largest residual */
        double res = 1;
        for (int64_t l = 0; l < k; l++)
            if (done[l]) res -= u[l * k + e] * u[l * k + e];
        if (res > best) best = res, bi = e;
    }
    for (int64_t i = 0; i < k; i++) r[i] = i == bi;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t l = 0; l < k; l++) {
            if (!done[l]) continue;
            double d = 0;
            for (int64_t i = 0; i < k; i++) d += u[l * k + i] * r[i];
            for (int64_t i = 0; i < k; i++) r[i] -= d * u[l * k + i];
        }
    double nr = 0;
    for (int64_t i = 0; i < k; i++) nr = hypot(nr, r[i]);
    for (int64_t i = 0; i < k; i++) u[j * k + i] = r[i] / nr;
}

/* scratch of one matrix (sizes in doubles): a [M, N] (M >= N, the matrix or its transpose, row-major), tau [N],
 * q [M, M], w and v [N, N] (column layout), s [N], done [N], r [N], perm [N] */
typedef struct {
    double *a, *tau, *q, *w, *v, *s, *r;
    bool *done;
    int64_t *perm;
} svd_scratch;

/* One matrix x [M, N] (row-major, M >= N, finite) -> s [N] descending, u [M, uc] (uc = N or M) and vt [N, N] = V^T
 * (row-major) when uv. */
static void svd_one(svd_scratch *sc, int64_t M, int64_t N, bool uv, int64_t uc, double *s, double *u, double *vt) {
    wk__geqr2(sc->a, M, N, sc->tau);
    double *w = sc->w, *v = uv ? sc->v : NULL;
    for (int64_t j = 0; j < N; j++) /* w's column j := R's column j */
        for (int64_t i = 0; i < N; i++) w[j * N + i] = i <= j ? sc->a[i * N + j] : 0;
    if (v)
        for (int64_t i = 0; i < N * N; i++) v[i] = i % (N + 1) == 0;
    jacobi_columns(w, v, N);
    for (int64_t j = 0; j < N; j++) {
        double nj = 0;
        for (int64_t i = 0; i < N; i++) nj = hypot(nj, w[j * N + i]);
        sc->s[j] = nj;
        sc->perm[j] = j;
    }
    for (int64_t i = 1; i < N; i++) /* insertion sort of the column order, descending, stable */
        for (int64_t j = i; j > 0 && sc->s[sc->perm[j - 1]] < sc->s[sc->perm[j]]; j--) {
            int64_t t = sc->perm[j];
            sc->perm[j] = sc->perm[j - 1], sc->perm[j - 1] = t;
        }
    for (int64_t j = 0; j < N; j++) s[j] = sc->s[sc->perm[j]];
    if (!uv) return;
    /* U_R's columns, normalised, in w (kept in place: column perm[j] is output column j) */
    double small = N ? s[0] * DBL_EPSILON * (double)N : 0; /* below it a column is rounding noise: completed */
    for (int64_t j = 0; j < N; j++) {
        double nj = sc->s[j];
        sc->done[j] = nj > small;
        if (nj > 0)
            for (int64_t i = 0; i < N; i++) w[j * N + i] /= nj;
    }
    for (int64_t j = 0; j < N; j++)
        if (!sc->done[j]) {
            complete_column(w, N, j, sc->done, sc->r);
            sc->done[j] = true;
        }
    wk__org2r(sc->a, M, N, sc->tau, sc->q, uc); /* q [M, uc] */
    for (int64_t i = 0; i < M; i++) {           /* U [:, :N] = Q[:, :N] U_R (permuted); U[:, N:] = Q[:, N:] */
        for (int64_t j = 0; j < N; j++) {
            const double *wc = w + sc->perm[j] * N;
            double t = 0;
            for (int64_t l = 0; l < N; l++) t += sc->q[i * uc + l] * wc[l];
            u[i * uc + j] = t;
        }
        for (int64_t j = N; j < uc; j++) u[i * uc + j] = sc->q[i * uc + j];
    }
    for (int64_t j = 0; j < N; j++)
        for (int64_t i = 0; i < N; i++) vt[j * N + i] = v[sc->perm[j] * N + i];
}

static int svd_checks(const wk_tensor *A, const char *driver) {
    if (driver) {
        wk__error(WK_RUNTIME_ERROR, "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
                  "with cuSOLVER backend.");
        return -1;
    }
    if (A->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "linalg.svd: The input tensor A must have at least 2 dimensions.");
        return -1;
    }
    if (!wk_dtype_is_floating(A->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "linalg.svd: Expected a floating point or complex tensor as input. Got %s",
                  wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    return 0;
}

int wk_impl__linalg_svd(wk_tensor *A, bool full_matrices, bool compute_uv, const char *driver, wk_tensor **outs) {
    if (svd_checks(A, driver) < 0) return -1;
    int nd = A->ndim;
    int64_t m = A->sizes[nd - 2], n = A->sizes[nd - 1], k = m < n ? m : n, nb = wk__prod(A->sizes, nd - 2);
    bool full = full_matrices && compute_uv;
    int64_t us[WK_MAX_DIM], ss[WK_MAX_DIM], vs[WK_MAX_DIM];
    memcpy(us, A->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(ss, A->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(vs, A->sizes, sizeof(int64_t) * (size_t)nd);
    us[nd - 1] = full ? m : k, ss[nd - 2] = k, vs[nd - 2] = full ? n : k;
    if (A->dtype != WK_FLOAT32 && A->dtype != WK_FLOAT64 && wk__numel(A) > 0) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"linalg_svd_cpu\" not implemented for '%s'",
                  wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    bool t = m < n;                          /* decompose A^T [n, m] instead: A = V' S U'^T */
    int64_t M = t ? n : m, N = k;            /* the decomposed matrix is [M, N], M >= N */
    int64_t uc = full ? M : N;               /* columns of the decomposed matrix's U */
    int64_t kn = N ? N : 1, mm = M ? M : 1;
    wk_tensor *a = wk__to_dtype(A, WK_FLOAT64), *ac = a ? wk__clone(a) : NULL; /* [*, m, n] float64 */
    wk_release(a);
    wk_tensor *S = ac ? wk__zeros(nd - 1, ss, WK_FLOAT64) : NULL;                 /* [*, k] */
    wk_tensor *U = S && compute_uv ? wk__zeros(nd, us, WK_FLOAT64) : NULL;       /* [*, m, m or k] */
    wk_tensor *Vh = U ? wk__zeros(nd, vs, WK_FLOAT64) : NULL;                    /* [*, n or k, n] */
    svd_scratch sc = {0};
    double *buf = NULL, *ub = NULL, *vb = NULL;
    if (S && (Vh || !compute_uv)) {
        size_t doubles = (size_t)(mm * kn + kn + mm * mm + 2 * kn * kn + 2 * kn); /* a, tau, q, w v, s r */
        buf = malloc(sizeof(double) * doubles);
        ub = malloc(sizeof(double) * (size_t)(mm * mm));   /* [M, uc] the decomposed matrix's U */
        vb = malloc(sizeof(double) * (size_t)(kn * kn));   /* [N, N] its V^T */
        sc.done = malloc(sizeof(bool) * (size_t)kn);
        sc.perm = malloc(sizeof(int64_t) * (size_t)kn);
    }
    if (!buf || !ub || !vb || !sc.done || !sc.perm) {
        if (S && (Vh || !compute_uv)) wk__error(WK_RUNTIME_ERROR, "linalg.svd: out of memory");
        free(buf), free(ub), free(vb), free(sc.done), free(sc.perm);
        wk_release(ac), wk_release(S), wk_release(U), wk_release(Vh);
        return -1;
    }
    sc.a = buf, sc.tau = sc.a + mm * kn, sc.q = sc.tau + kn, sc.w = sc.q + mm * mm, sc.v = sc.w + kn * kn;
    sc.s = sc.v + kn * kn, sc.r = sc.s + kn;
    const double *pa = (const double *)wk__data(ac);
    double *ps = (double *)wk__data(S);
    double *pu = U ? (double *)wk__data(U) : NULL, *pv = Vh ? (double *)wk__data(Vh) : NULL;
    int64_t ucols = us[nd - 1], vrows = vs[nd - 2];
    int rc = 0;
    for (int64_t b = 0; b < nb && rc == 0; b++) {
        const double *ab = pa + b * m * n;
        double *sb = ps + b * k, *ubo = pu ? pu + b * m * ucols : NULL, *vbo = pv ? pv + b * vrows * n : NULL;
        bool nan = false, inf = false;
        for (int64_t i = 0; i < m * n; i++) {
            nan |= isnan(ab[i]);
            inf |= isinf(ab[i]);
        }
        if (nan) {
            char batch[64] = "";
            if (nd > 2) snprintf(batch, sizeof batch, "(Batch element %lld): ", (long long)b);
            wk__error(WK_LINALG_ERROR, "linalg.svd: %sThe algorithm failed to converge because the input matrix "
                      "contained non-finite values.", batch);
            rc = -1;
            break;
        }
        if (inf) {
            for (int64_t i = 0; i < k; i++) sb[i] = NAN;
            for (int64_t i = 0; ubo && i < m * ucols; i++) ubo[i] = NAN;
            for (int64_t i = 0; vbo && i < vrows * n; i++) vbo[i] = NAN;
            continue;
        }
        for (int64_t i = 0; i < M; i++) /* the decomposed matrix, [M, N] row-major */
            for (int64_t j = 0; j < N; j++) sc.a[i * N + j] = t ? ab[j * n + i] : ab[i * n + j];
        svd_one(&sc, M, N, compute_uv, uc, sb, ub, vb);
        if (!compute_uv) continue;
        /* not transposed: U = ub [m, uc], Vh = vb [k, k] (k = n) and, full, Vh = V^T [n, n] too.
         * transposed (A^T = U' S V'^T): U = V' = vb^T [m, m] (m = k), Vh = U'^T = ub^T [uc, n] */
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < ucols; j++) ubo[i * ucols + j] = t ? vb[j * N + i] : ub[i * uc + j];
        for (int64_t i = 0; i < vrows; i++)
            for (int64_t j = 0; j < n; j++) vbo[i * n + j] = t ? ub[j * uc + i] : vb[i * N + j];
    }
    if (rc == 0 && nb > 0 && k == 0 && full) { /* no decomposition ran: U and Vh are identities, as torch's */
        for (int64_t b = 0; b < nb; b++) {
            for (int64_t i = 0; i < m; i++) pu[b * m * m + i * m + i] = 1;
            for (int64_t i = 0; i < n; i++) pv[b * n * n + i * n + i] = 1;
        }
    }
    free(buf), free(ub), free(vb), free(sc.done), free(sc.perm);
    wk_release(ac);
    if (rc == 0 && !compute_uv) { /* torch returns empty U and Vh */
        U = wk__empty(1, (int64_t[]){0}, WK_FLOAT64);
        Vh = U ? wk__empty(1, (int64_t[]){0}, WK_FLOAT64) : NULL;
        if (!Vh) rc = -1;
    }
    wk_dtype dt = A->dtype; /* float32 / float64, or an empty input's floating dtype */
    outs[0] = rc == 0 ? wk__to_dtype(U, dt) : NULL;
    outs[1] = outs[0] ? wk__to_dtype(S, dt) : NULL;
    outs[2] = outs[1] ? wk__to_dtype(Vh, dt) : NULL;
    wk_release(U), wk_release(S), wk_release(Vh);
    if (!outs[2]) {
        wk_release(outs[0]), wk_release(outs[1]);
        return -1;
    }
    return 0;
}

/* linalg.svd: torch's composite, _linalg_svd(A, full_matrices, compute_uv=True) */
int wk_impl_linalg_svd(wk_tensor *A, bool full_matrices, const char *driver, wk_tensor **outs) {
    return wk__linalg_svd(A, full_matrices, true, driver, outs);
}

/* linalg.svdvals: _linalg_svd's S; U and Vh are computed only when A needs a gradient (torch's
 * _may_require_fw_or_bw_grad), so svd_backward has them */
wk_tensor *wk_impl_linalg_svdvals(wk_tensor *A, const char *driver) {
    wk_tensor *outs[3];
    bool uv = wk__grad_enabled() && wk__tensor_requires_grad(A);
    if (wk__linalg_svd(A, false, uv, driver, outs) < 0) return NULL;
    wk_release(outs[0]), wk_release(outs[2]);
    return outs[1];
}

/* torch.svd(A, some, compute_uv): linalg.svd(A, full_matrices=!some) with V = Vh^T; without compute_uv, S from
 * linalg.svdvals and U [*, m, m], V [*, n, n] zeros */
int wk_impl_svd(wk_tensor *self, bool some, bool compute_uv, wk_tensor **outs) {
    if (self->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "linalg.svd: input should have at least 2 dimensions, but has %d dimensions "
                  "instead", self->ndim);
        return -1;
    }
    if (compute_uv) {
        wk_tensor *r[3];
        if (wk_linalg_svd(self, !some, NULL, r) < 0) return -1;
        outs[0] = r[0], outs[1] = r[1];
        outs[2] = wk_transpose(r[2], -2, -1);
        wk_release(r[2]);
        if (!outs[2]) {
            wk_release(r[0]), wk_release(r[1]);
            return -1;
        }
        return 0;
    }
    wk_tensor *S = wk_linalg_svdvals(self, NULL);
    if (!S) return -1;
    int nd = self->ndim;
    int64_t us[WK_MAX_DIM], vs[WK_MAX_DIM];
    memcpy(us, self->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(vs, self->sizes, sizeof(int64_t) * (size_t)nd);
    us[nd - 1] = self->sizes[nd - 2], vs[nd - 2] = self->sizes[nd - 1];
    outs[0] = wk__zeros(nd, us, S->dtype);
    outs[2] = outs[0] ? wk__zeros(nd, vs, S->dtype) : NULL;
    if (!outs[2]) {
        wk_release(outs[0]), wk_release(S);
        return -1;
    }
    outs[1] = S;
    return 0;
}

/* exactly zero (an output whose gradient was not defined arrives materialised as zeros) */
static int svd_all_zero(wk_tensor *t, bool *zero) {
    wk_tensor *d = wk__to_dtype(t, WK_FLOAT64), *c = d ? wk__clone(d) : NULL; /* same shape, float64, contiguous */
    wk_release(d);
    if (!c) return -1;
    const double *p = (const double *)wk__data(c);
    int64_t cnt = wk__numel(c), i = 0;
    while (i < cnt && p[i] == 0) i++;
    *zero = i == cnt;
    wk_release(c);
    return 0;
}

/* svd_backward's middle matrix M [*, k, k] (a new reference; its own pool, as wk_cpool holds 32 tensors) */
static wk_tensor *svd_backward_m(wk_tensor *gU, wk_tensor *gS, wk_tensor *gVh, wk_tensor *U, wk_tensor *S,
                                 wk_tensor *Vh, bool zu, bool zv) {
    int64_t k = S->sizes[S->ndim - 1];
    wk_cpool pool = {0};
    wk_tensor *Sr = P_(wk_unsqueeze(S, -2)), *Sc = P_(wk_unsqueeze(S, -1)); /* [*, 1, k], [*, k, 1] */
    wk_tensor *S2 = P_(wk_mul(S, S));
    wk_tensor *E = P_(wk_sub(P_(wk_unsqueeze(S2, -2)), P_(wk_unsqueeze(S2, -1)), wk_int(1))); /* [*, k, k] */
    E = P_(wk_add(E, P_(wk_eye(k, S->dtype, false)), wk_int(1)));                        /* E's diagonal is 0 */
    wk_tensor *J = NULL, *K = NULL;
    if (!zu) {
        wk_tensor *X = P_(wk_matmul(P_(wk_transpose(U, -2, -1)), gU));
        J = P_(wk_sub(X, P_(wk_transpose(X, -2, -1)), wk_int(1)));
    }
    if (!zv) {
        wk_tensor *X = P_(wk_matmul(Vh, P_(wk_transpose(gVh, -2, -1))));
        K = P_(wk_sub(X, P_(wk_transpose(X, -2, -1)), wk_int(1)));
    }
    wk_tensor *M;
    if (J && K)
        M = P_(wk_div(P_(wk_add(P_(wk_mul(J, Sr)), P_(wk_mul(Sc, K)), wk_int(1))), E, NULL));
    else if (J)
        M = P_(wk_mul(P_(wk_div(J, E, NULL)), Sr));
    else
        M = P_(wk_mul(Sc, P_(wk_div(K, E, NULL))));
    M = P_(wk_add(M, P_(wk_diag_embed(gS, 0, -2, -1)), wk_int(1)));
    return wk_cpool_end(&pool, M);
}

/* torch's svd_backward (real case), after derivatives.yaml narrows U, Vh (and their gradients) to k = min(m, n)
 * columns / rows when full_matrices:
 *   gU, gVh both undefined: gA = U diag(gS) Vh
 *   else J = skew(U^T gU), K = skew(Vh gVh^T), skew(X) = X - X^T, E_ij = S_j^2 - S_i^2 (E_ii = 1):
 *     M = (J S_j + S_i K) / E (the terms of an undefined gradient left out) + diag(gS)
 *     m > n, gU defined: gA = (U M + gU / S_j - U U^T (gU / S_j)) Vh
 *     m < n, gVh defined: gA = U (M Vh + gVh / S_i - (gVh / S_i) Vh^T Vh)
 *     else gA = U M Vh
 * wick's node receives undefined gradients as zeros; an exactly zero gU / gVh is taken as undefined (so a repeated
 * or zero singular value stays finite where torch's is, e.g. for svdvals). */
wk_tensor *wk_impl__linalg_svd_backward(wk_tensor *gU, wk_tensor *gS, wk_tensor *gVh, wk_tensor *U, wk_tensor *S,
                                        wk_tensor *Vh, bool full_matrices, bool compute_uv) {
    if (!compute_uv)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch._linalg_svd: the derivative needs U and Vh, which are not computed "
                       "when compute_uv=False");
    int64_t m = U->sizes[U->ndim - 2], n = Vh->sizes[Vh->ndim - 1], k = S->sizes[S->ndim - 1];
    wk_cpool pool = {0};
    if (full_matrices) {
        U = P_(wk_narrow(U, -1, 0, k)), gU = P_(wk_narrow(gU, -1, 0, k));
        Vh = P_(wk_narrow(Vh, -2, 0, k)), gVh = P_(wk_narrow(gVh, -2, 0, k));
    }
    bool zu, zv;
    if (svd_all_zero(gU, &zu) < 0 || svd_all_zero(gVh, &zv) < 0) return wk_cpool_end(&pool, NULL);
    wk_tensor *Sr = P_(wk_unsqueeze(S, -2)), *Sc = P_(wk_unsqueeze(S, -1)); /* [*, 1, k], [*, k, 1] */
    if (zu && zv) {
        wk_tensor *gSr = P_(wk_unsqueeze(gS, -2)), *gSc = P_(wk_unsqueeze(gS, -1));
        return wk_cpool_end(&pool, m >= n ? P_(wk_matmul(U, P_(wk_mul(gSc, Vh)))) : P_(wk_matmul(P_(wk_mul(U, gSr)),
                                                                                                   Vh)));
    }
    wk_tensor *M = P_(svd_backward_m(gU, gS, gVh, U, S, Vh, zu, zv));
    wk_tensor *gA;
    if (m > n && !zu) {
        wk_tensor *gUS = P_(wk_div(gU, Sr, NULL));
        gA = P_(wk_add(P_(wk_matmul(U, M)), gUS, wk_int(1)));
        gA = P_(wk_sub(gA, P_(wk_matmul(U, P_(wk_matmul(P_(wk_transpose(U, -2, -1)), gUS)))), wk_int(1)));
        gA = P_(wk_matmul(gA, Vh));
    } else if (m < n && !zv) {
        wk_tensor *SgV = P_(wk_div(gVh, Sc, NULL));
        gA = P_(wk_add(P_(wk_matmul(M, Vh)), SgV, wk_int(1)));
        gA = P_(wk_sub(gA, P_(wk_matmul(P_(wk_matmul(SgV, P_(wk_transpose(Vh, -2, -1)))), Vh)), wk_int(1)));
        gA = P_(wk_matmul(U, gA));
    } else {
        gA = m >= n ? P_(wk_matmul(U, P_(wk_matmul(M, Vh)))) : P_(wk_matmul(P_(wk_matmul(U, M)), Vh));
    }
    return wk_cpool_end(&pool, gA);
}
