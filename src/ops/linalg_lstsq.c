/* linalg_lstsq.c — torch.linalg.lstsq for float32 / float64, batched with broadcasting, the vector right-hand side.
 *
 * Note [lstsq through the SVD]: torch's CPU drivers are LAPACK's gels (QR, full rank assumed), gelsy (complete
 * orthogonal factorisation, the default), gelsd and gelss (SVD). Each returns the minimum-norm least-squares
 * solution for its rank, so wick computes every driver from one SVD: rank = #{S_i > rcond * S_max} (rcond defaults
 * to eps * max(m, n)), X = V diag(1 / S_rank) U^T B. The outputs are per driver as torch's: rank for all but gels,
 * singular_values for gelsd / gelss, residuals (||A X - B||^2 per column) when m > n for gels / gelsd / gelss when
 * every matrix has full rank n. gelsy decides its rank from the pivoted QR's condition estimate instead of the
 * singular values: the two agree unless a singular value sits at the threshold. The derivative is torch's
 * linalg_lstsq_backward (through pinv); residuals share the node and, as torch's, carry no gradient of their own. */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/reduce.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double elem(const char *p, wk_dtype dt, int64_t i) {
    return dt == WK_FLOAT64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void set_elem(char *p, wk_dtype dt, int64_t i, double v) {
    if (dt == WK_FLOAT64) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}

int wk_impl_linalg_lstsq(wk_tensor *self, wk_tensor *b, wk_optfloat rcond, const char *driver, wk_tensor **outs) {
    const wk_tensor *A = self;
    const char *api = "torch.linalg.lstsq";
    if (A->ndim < 2) return wk__error(WK_RUNTIME_ERROR, "%s: input must have at least 2 dimensions.", api), -1;
    if (b->ndim < 1) return wk__error(WK_RUNTIME_ERROR, "%s: other must have at least 1 dimension.", api), -1;
    if (A->dtype != b->dtype)
        return wk__error(WK_RUNTIME_ERROR, "%s: Expected input and other to have the same dtype, but got input's dtype "
                         "%s and other's dtype %s", api, wk_dtype_scalar_name(A->dtype),
                         wk_dtype_scalar_name(b->dtype)), -1;
    int diff = A->ndim - b->ndim;
    if (diff < 0 || diff > 1)
        return wk__error(WK_RUNTIME_ERROR, "%s: input.dim() must be greater or equal to other.dim() and (input.dim() - "
                         "other.dim()) <= 1", api), -1;
    bool vec = diff == 1;
    /* batch: broadcast of A's and B's batch dims (checked before the sizes, as torch's) */
    int bnd = b->ndim - (vec ? 1 : 2), nbd = 0;
    int64_t bsz[WK_MAX_DIM];
    if (wk__broadcast_shapes(A->ndim - 2, A->sizes, bnd, b->sizes, &nbd, bsz) < 0) return -1;
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1];
    int64_t bm = vec ? b->sizes[b->ndim - 1] : b->sizes[b->ndim - 2], k = vec ? 1 : b->sizes[b->ndim - 1];
    if (m != bm)
        return wk__error(WK_RUNTIME_ERROR, vec ? "%s: input.size(-2) should match other.size(-1)"
                                               : "%s: input.size(-2) should match other.size(-2)", api), -1;
    const char *drv = driver ? driver : "gelsy";
    if (strcmp(drv, "gels") && strcmp(drv, "gelsy") && strcmp(drv, "gelsd") && strcmp(drv, "gelss"))
        return wk__error(WK_RUNTIME_ERROR, "%s: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)", api),
               -1;
    wk_dtype dt = A->dtype;
    if (dt != WK_FLOAT32 && dt != WK_FLOAT64)
        return wk__error(WK_RUNTIME_ERROR, "This function doesn't handle types other than float and double"), -1;
    double rc = rcond.has ? rcond.v : (dt == WK_FLOAT64 ? DBL_EPSILON : FLT_EPSILON) * (double)(m > n ? m : n);
    bool has_rank = strcmp(drv, "gels") != 0, has_sv = !strcmp(drv, "gelsd") || !strcmp(drv, "gelss");
    if (nbd + 2 > WK_MAX_DIM) return wk__error(WK_RUNTIME_ERROR, "%s: too many dimensions", api), -1;
    int64_t nb = wk__prod(bsz, nbd), r = m < n ? m : n;
    int64_t as[WK_MAX_DIM], xs[WK_MAX_DIM], bs2[WK_MAX_DIM];
    memcpy(as, bsz, sizeof(int64_t) * (size_t)nbd);
    memcpy(xs, bsz, sizeof(int64_t) * (size_t)nbd);
    memcpy(bs2, bsz, sizeof(int64_t) * (size_t)nbd);
    as[nbd] = m, as[nbd + 1] = n;
    bs2[nbd] = m, bs2[nbd + 1] = k;
    xs[nbd] = n, xs[nbd + 1] = k;
    wk_cpool pool = {0};
    wk_tensor *B2 = vec ? P_(wk_unsqueeze(b, -1)) : b;
    wk_tensor *Ae = P_(wk__expand_to(A, nbd + 2, as)), *Be = P_(B2 ? wk__expand_to(B2, nbd + 2, bs2) : NULL);
    wk_tensor *Ac = P_(Ae ? wk__contiguous(Ae) : NULL), *Bc = P_(Be ? wk__contiguous(Be) : NULL);
    wk_tensor *X = P_(wk__zeros(nbd + 2, xs, dt));
    wk_tensor *rank = P_(wk__zeros(nbd, bsz, WK_INT64));
    int anb = A->ndim - 2; /* rank and singular_values follow A's own batch, as torch's */
    int64_t svs[WK_MAX_DIM];
    memcpy(svs, A->sizes, sizeof(int64_t) * (size_t)anb);
    svs[anb] = r;
    wk_tensor *S = NULL, *U = NULL, *Vh = NULL;
    if (!pool.failed && r > 0) {
        wk_tensor *f[3];
        if (wk__linalg_svd(Ac, false, true, NULL, f) < 0) {
            wk_cpool_end(&pool, NULL);
            return -1;
        }
        U = P_(wk__contiguous(f[0]));
        S = P_(wk__contiguous(f[1]));
        Vh = P_(wk__contiguous(f[2]));
        for (int i = 0; i < 3; i++) wk_release(f[i]);
    }
    if (pool.failed) {
        wk_cpool_end(&pool, NULL);
        return -1;
    }
    int64_t *prk = (int64_t *)wk__data(rank);
    char *px = wk__data(X);
    const char *pb = wk__data(Bc), *pa = wk__data(Ac);
    bool full = true;
    for (int64_t bi = 0; bi < nb && r > 0; bi++) {
        const char *pu = wk__data(U), *ps = wk__data(S), *pv = wk__data(Vh);
        double smax = elem(ps, dt, bi * r);
        int64_t rk = 0;
        for (int64_t i = 0; i < r; i++)
            if (elem(ps, dt, bi * r + i) > rc * smax) rk++;
        prk[bi] = rk;
        if (rk != n) full = false;
        for (int64_t c = 0; c < k; c++)
            for (int64_t i = 0; i < rk; i++) { /* X += v_i (u_i . b_c) / s_i */
                double d = 0;
                for (int64_t t = 0; t < m; t++) d += elem(pu, dt, (bi * m + t) * r + i) * elem(pb, dt, (bi * m + t) * k + c);
                d /= elem(ps, dt, bi * r + i);
                for (int64_t j = 0; j < n; j++) {
                    int64_t o = (bi * n + j) * k + c;
                    set_elem(px, dt, o, elem(px, dt, o) + d * elem(pv, dt, (bi * r + i) * n + j));
                }
            }
    }
    if (r == 0) full = n == 0;
    wk_tensor *res, *sv;
    int64_t zero = 0;
    bool want_res = m > n && strcmp(drv, "gelsy") && (!has_rank || full);
    if (want_res) {
        int64_t rs[WK_MAX_DIM];
        memcpy(rs, bsz, sizeof(int64_t) * (size_t)nbd);
        rs[nbd] = k;
        res = P_(wk__zeros(nbd + 1, rs, dt));
        if (res) {
            char *pr = wk__data(res);
            for (int64_t bi = 0; bi < nb; bi++)
                for (int64_t c = 0; c < k; c++) {
                    double s2 = 0;
                    for (int64_t i = 0; i < m; i++) {
                        double e = -elem(pb, dt, (bi * m + i) * k + c);
                        for (int64_t j = 0; j < n; j++)
                            e += elem(pa, dt, (bi * m + i) * n + j) * elem(px, dt, (bi * n + j) * k + c);
                        s2 += e * e;
                    }
                    set_elem(pr, dt, bi * k + c, s2);
                }
        }
    } else {
        res = P_(wk__empty(1, &zero, dt));
    }
    wk_tensor *own_S = NULL, *own_rank = NULL;
    if (has_rank && !pool.failed) { /* A's own batch: one more SVD when B's batch broadcast A's */
        bool same = nbd == anb;
        for (int d = 0; same && d < anb; d++) same = A->sizes[d] == bsz[d];
        if (same || r == 0) {
            own_S = S;
            own_rank = same ? rank : P_(wk__zeros(anb, A->sizes, WK_INT64));
        } else {
            wk_tensor *g[3];
            if (wk__linalg_svd(self, false, false, NULL, g) < 0) {
                wk_cpool_end(&pool, NULL);
                return -1;
            }
            own_S = P_(wk__contiguous(g[1]));
            for (int i = 0; i < 3; i++) wk_release(g[i]);
            own_rank = P_(wk__zeros(anb, A->sizes, WK_INT64));
            if (own_S && own_rank) {
                const char *ps = wk__data(own_S);
                int64_t *pr = (int64_t *)wk__data(own_rank), na = wk__prod(A->sizes, anb);
                for (int64_t bi = 0; bi < na; bi++) {
                    double smax = elem(ps, dt, bi * r);
                    pr[bi] = 0;
                    for (int64_t i = 0; i < r; i++) pr[bi] += elem(ps, dt, bi * r + i) > rc * smax;
                }
            }
        }
    }
    if (has_sv) sv = own_S ? P_(wk__clone(own_S)) : P_(wk__zeros(anb + 1, svs, dt));
    else sv = P_(wk__empty(1, &zero, dt));
    wk_tensor *rk_out = has_rank ? own_rank : P_(wk__empty(1, &zero, WK_INT64));
    wk_tensor *sol = vec ? P_(wk_squeeze_dim(X, -1)) : X;
    if (pool.failed) {
        wk_cpool_end(&pool, NULL);
        return -1;
    }
    outs[0] = wk__contiguous(sol);
    outs[1] = wk_retain(res);
    outs[2] = wk_retain(rk_out);
    outs[3] = wk_retain(sv);
    wk_cpool_end(&pool, NULL);
    if (!outs[0]) {
        for (int i = 1; i < 4; i++) wk_release(outs[i]);
        return -1;
    }
    return 0;
}

/* torch's linalg_lstsq_backward: gA = pinv_backward(gX B^H, pinv(A), A), gB = pinv(A)^H gX (which 0: A, 1: B) */
wk_tensor *wk_impl__linalg_lstsq_backward(wk_tensor *grad, wk_tensor *A, wk_tensor *B, int64_t which) {
    wk_cpool pool = {0};
    bool vec = B->ndim == A->ndim - 1;
    wk_tensor *gX = vec ? P_(wk_unsqueeze(grad, -1)) : grad, *Bm = vec ? P_(wk_unsqueeze(B, -1)) : B;
    wk_tensor *pinvA = P_(wk_linalg_pinv_atol_rtol_tensor(A, NULL, NULL, false));
    wk_tensor *r;
    if (which == 0) {
        r = P_(wk__linalg_pinv_backward(P_(wk_matmul(gX, P_(wk_transpose(Bm, -2, -1)))), pinvA, A));
    } else {
        r = P_(wk_matmul(P_(wk_transpose(pinvA, -2, -1)), gX));
        if (vec) r = P_(wk_squeeze_dim(r, -1));
    }
    return wk_cpool_end(&pool, r);
}
