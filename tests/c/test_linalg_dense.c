/* test_linalg_dense.c — src/ops/linalg_dense.c against naive references: det by the Leibniz (permutation) sum for
 * n <= 6, inv by A @ inv(A) = I, solve by its residual, cholesky by L L^T = A, slogdet against log|det|; float64
 * and float32, batched, singular inputs (info and the LinAlgError kind); eigh by A V = V diag(w), V^T V = I, the
 * ascending order, trace and (n <= 6) the Leibniz det, and the closed form 2 - 2 cos(k pi / (n + 1)) of the
 * second-difference matrix; svd (m < n, m = n, m > n, full_matrices both ways, rank-deficient) by
 * U diag(S) Vh = A, U^T U = I, Vh Vh^T = I, S descending and non-negative,
 * sum(S^2) = |A|_F^2, svdvals = svd's S (src/ops/linalg_svd.c). Run by `make test-c` (ASan/UBSan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int failures = 0, checks = 0;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static void check(bool ok, const char *what, int n, double err) {
    checks++;
    if (!ok) {
        printf("FAIL %s n=%d err=%g %s\n", what, n, err, wk_error_kind() ? wk_error_message() : "");
        failures++;
    }
}

/* the Leibniz sum over all permutations (Heap's algorithm), the naive reference */
static double leibniz(const double *a, int n) {
    int p[8], c[8];
    for (int i = 0; i < n; i++) p[i] = i, c[i] = 0;
    double s = 0;
    int sign = 1;
    for (;;) {
        double t = sign;
        for (int i = 0; i < n; i++) t *= a[i * n + p[i]];
        s += t;
        int i = 1;
        while (i < n && c[i] >= i) c[i++] = 0;
        if (i >= n) break;
        int j = i % 2 ? c[i] : 0, tmp = p[i];
        p[i] = p[j], p[j] = tmp;
        sign = -sign;
        c[i]++;
    }
    return s;
}

static void one(int n, int batch, wk_dtype dt) {
    int64_t nn = (int64_t)n * n, total = nn * batch;
    double *a = malloc(sizeof(double) * (size_t)(total + 1)), *out = malloc(sizeof(double) * (size_t)(total + 1));
    double *spd = malloc(sizeof(double) * (size_t)(total + 1));
    for (int64_t i = 0; i < total; i++) a[i] = urand();
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = i == j ? n : 0;
                for (int k = 0; k < n; k++) s += a[b * nn + i * n + k] * a[b * nn + j * n + k];
                spd[b * nn + i * n + j] = s;
            }
    int64_t sz[3] = {batch, n, n};
    wk_tensor *A64 = wk_from_data(a, WK_FLOAT64, 3, sz), *A = wk_to_dtype(A64, dt, false, false);
    wk_tensor *S64 = wk_from_data(spd, WK_FLOAT64, 3, sz), *S = wk_to_dtype(S64, dt, false, false);
    double tol = dt == WK_FLOAT64 ? 1e-9 : 2e-3;
    /* det and slogdet */
    wk_tensor *d = wk_linalg_det(A), *sl[2] = {NULL, NULL};
    int rs = wk_linalg_slogdet(A, sl);
    check(d && rs == 0, "det/slogdet call", n, 0);
    if (d && rs == 0) {
        double dv[16], sg[16], la[16];
        wk_copy_to_buffer(d, WK_FLOAT64, dv);
        wk_copy_to_buffer(sl[0], WK_FLOAT64, sg);
        wk_copy_to_buffer(sl[1], WK_FLOAT64, la);
        for (int b = 0; b < batch; b++) {
            double ref = n <= 6 ? leibniz(a + b * nn, n) : dv[b];
            double e = fabs(dv[b] - ref) / (fabs(ref) + 1e-3);
            check(e < tol, "det vs Leibniz", n, e);
            double e2 = fabs(sg[b] * exp(la[b]) - dv[b]) / (fabs(dv[b]) + 1e-3);
            check(e2 < tol, "slogdet vs det", n, e2);
        }
    }
    /* inv: A @ inv(A) = I */
    wk_tensor *inv = wk_linalg_inv(A), *p = inv ? wk_matmul(A, inv) : NULL;
    check(p != NULL, "inv call", n, 0);
    if (p) {
        wk_copy_to_buffer(p, WK_FLOAT64, out);
        double e = 0;
        for (int64_t i = 0; i < total; i++) e = fmax(e, fabs(out[i] - ((i % nn) / n == (i % nn) % n)));
        check(e < tol * 10, "A @ inv(A) = I", n, e);
    }
    /* solve: residual of A X = B */
    wk_tensor *x = wk_linalg_solve(A, S, true), *r = x ? wk_matmul(A, x) : NULL;
    check(r != NULL, "solve call", n, 0);
    if (r) {
        double *bb = malloc(sizeof(double) * (size_t)(total + 1));
        wk_copy_to_buffer(r, WK_FLOAT64, out);
        wk_copy_to_buffer(S, WK_FLOAT64, bb);
        double e = 0;
        for (int64_t i = 0; i < total; i++) e = fmax(e, fabs(out[i] - bb[i]) / (fabs(bb[i]) + 1));
        check(e < tol * 10, "solve residual", n, e);
        free(bb);
    }
    /* cholesky: L L^T = S, L lower */
    wk_tensor *L = wk_linalg_cholesky(S, false), *Lt = L ? wk_transpose(L, 1, 2) : NULL;
    wk_tensor *LL = Lt ? wk_matmul(L, Lt) : NULL;
    check(LL != NULL, "cholesky call", n, 0);
    if (LL) {
        double *bb = malloc(sizeof(double) * (size_t)(total + 1));
        wk_copy_to_buffer(LL, WK_FLOAT64, out);
        wk_copy_to_buffer(L, WK_FLOAT64, bb);
        double e = 0, up = 0;
        for (int64_t i = 0; i < total; i++) {
            e = fmax(e, fabs(out[i] - spd[i]) / (fabs(spd[i]) + 1));
            if ((i % nn) % n > (i % nn) / n) up = fmax(up, fabs(bb[i]));
        }
        check(e < tol * 10 && up == 0, "L L^T = A", n, e);
        free(bb);
    }
    wk_release(d);
    wk_release(sl[0]);
    wk_release(sl[1]);
    wk_release(inv);
    wk_release(p);
    wk_release(x);
    wk_release(r);
    wk_release(L);
    wk_release(Lt);
    wk_release(LL);
    wk_release(A64);
    wk_release(A);
    wk_release(S64);
    wk_release(S);
    free(a);
    free(out);
    free(spd);
}

static void singular(void) {
    double a[9] = {1, 2, 3, 0, 0, 0, 4, 5, 6};
    int64_t sz[2] = {3, 3};
    wk_tensor *A = wk_from_data(a, WK_FLOAT64, 2, sz);
    wk_tensor *inv = wk_linalg_inv(A);
    check(!inv && wk_error_kind() == WK_LINALG_ERROR && strstr(wk_error_message(), "is zero"), "singular inv", 3, 0);
    wk_error_clear();
    wk_tensor *outs[2] = {NULL, NULL};
    int rc = wk_linalg_inv_ex(A, false, outs);
    int32_t info = 0;
    if (rc == 0) wk_copy_to_buffer(outs[1], WK_INT32, &info);
    check(rc == 0 && info == 3, "singular info", 3, info);
    wk_tensor *d = wk_linalg_det(A);
    double dv = 1;
    if (d) wk_copy_to_buffer(d, WK_FLOAT64, &dv);
    check(d && dv == 0, "singular det", 3, dv);
    wk_tensor *L = wk_linalg_cholesky(A, false);
    check(!L && wk_error_kind() == WK_LINALG_ERROR, "not positive-definite", 3, 0);
    wk_error_clear();
    wk_release(outs[0]);
    wk_release(outs[1]);
    wk_release(d);
    wk_release(A);
}

/* eigh of a random symmetric matrix (read from the lower triangle; the upper one holds garbage) */
static void eigh_one(int n, int batch, wk_dtype dt) {
    int64_t nn = (int64_t)n * n, total = nn * batch;
    double *a = malloc(sizeof(double) * (size_t)(total + 1)), *w = malloc(sizeof(double) * (size_t)(n * batch + 1));
    double *v = malloc(sizeof(double) * (size_t)(total + 1)), *sym = malloc(sizeof(double) * (size_t)(total + 1));
    for (int64_t i = 0; i < total; i++) a[i] = urand();
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) sym[b * nn + i * n + j] = a[b * nn + (i >= j ? i * n + j : j * n + i)];
    int64_t sz[3] = {batch, n, n};
    wk_tensor *A64 = wk_from_data(a, WK_FLOAT64, 3, sz), *A = wk_to_dtype(A64, dt, false, false);
    wk_tensor *outs[2] = {NULL, NULL};
    int rc = wk_linalg_eigh(A, "L", outs);
    check(rc == 0, "eigh runs", n, 0);
    if (rc == 0) {
        wk_copy_to_buffer(outs[0], WK_FLOAT64, w);
        wk_copy_to_buffer(outs[1], WK_FLOAT64, v);
        double tol = dt == WK_FLOAT64 ? 1e-12 * n : 1e-5 * n, res = 0, orth = 0, ord = 0, tr = 0;
        for (int b = 0; b < batch; b++) {
            const double *S = sym + b * nn, *V = v + b * nn, *W = w + b * n;
            for (int i = 0; i < n; i++) {
                tr += S[i * n + i] - W[i];
                if (i && W[i] < W[i - 1]) ord = W[i - 1] - W[i];
                for (int k = 0; k < n; k++) {
                    double av = 0, vv = 0;
                    for (int j = 0; j < n; j++) av += S[i * n + j] * V[j * n + k], vv += V[j * n + i] * V[j * n + k];
                    res = fmax(res, fabs(av - W[k] * V[i * n + k]));
                    orth = fmax(orth, fabs(vv - (i == k)));
                }
            }
            if (n <= 6) {
                double p = 1, d = leibniz(S, n);
                for (int i = 0; i < n; i++) p *= W[i];
                check(fabs(p - d) <= tol * (1 + fabs(d)), "eigh prod(w) = det", n, p - d);
            }
        }
        check(res <= tol, "eigh A V = V diag(w)", n, res);
        check(orth <= tol, "eigh V^T V = I", n, orth);
        check(ord == 0, "eigh ascending", n, ord);
        check(fabs(tr) <= tol * batch, "eigh sum(w) = trace", n, tr);
    }
    wk_release(outs[0]);
    wk_release(outs[1]);
    wk_release(A);
    wk_release(A64);
    free(a);
    free(w);
    free(v);
    free(sym);
}

/* the second-difference matrix tridiag(-1, 2, -1), eigenvalues 2 - 2 cos(k pi / (n + 1)), through UPLO='U' */
static void eigh_closed_form(int n) {
    double *a = calloc((size_t)(n * n), sizeof(double)), *w = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        a[i * n + i] = 2;
        if (i + 1 < n) a[i * n + i + 1] = -1, a[(i + 1) * n + i] = 99; /* the lower triangle is not read */
    }
    int64_t sz[2] = {n, n};
    wk_tensor *A = wk_from_data(a, WK_FLOAT64, 2, sz), *L = wk_linalg_eigvalsh(A, "U");
    check(L != NULL, "eigvalsh runs", n, 0);
    double err = 0;
    if (L) {
        wk_copy_to_buffer(L, WK_FLOAT64, w);
        for (int k = 1; k <= n; k++)
            err = fmax(err, fabs(w[k - 1] - (2 - 2 * cos(k * 3.14159265358979323846 / (n + 1)))));
    }
    check(err <= 1e-13 * n, "eigvalsh closed form", n, err);
    wk_tensor *bad = wk_linalg_eigvalsh(A, "X");
    check(!bad && wk_error_kind() == WK_RUNTIME_ERROR, "eigvalsh bad UPLO", n, 0);
    wk_error_clear();
    wk_release(L);
    wk_release(A);
    free(a);
    free(w);
}

/* svd of a random m x n matrix (rank r < min(m, n): the last columns repeat earlier ones) */
static void svd_one(int m, int n, int batch, bool full, bool deficient, wk_dtype dt) {
    int k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
    int64_t mn = (int64_t)m * n, total = mn * batch;
    double *a = malloc(sizeof(double) * (size_t)(total + 1)), *s = malloc(sizeof(double) * (size_t)(k * batch + 1));
    double *u = malloc(sizeof(double) * (size_t)(m * uc * batch + 1));
    double *vh = malloc(sizeof(double) * (size_t)(vr * n * batch + 1));
    double *s2 = malloc(sizeof(double) * (size_t)(k * batch + 1));
    for (int64_t i = 0; i < total; i++) a[i] = urand();
    if (deficient && n >= 2)
        for (int b = 0; b < batch; b++)
            for (int i = 0; i < m; i++) a[b * mn + i * n + n - 1] = a[b * mn + i * n] * 2; /* column n-1 = 2 column 0 */
    int64_t sz[3] = {batch, m, n};
    wk_tensor *A64 = wk_from_data(a, WK_FLOAT64, 3, sz), *A = wk_to_dtype(A64, dt, false, false);
    if (dt != WK_FLOAT64) { /* the float32-rounded matrix is the one decomposed */
        wk_release(A64);
        A64 = wk_to_dtype(A, WK_FLOAT64, false, false);
        wk_copy_to_buffer(A64, WK_FLOAT64, a);
    }
    wk_tensor *outs[3] = {NULL, NULL, NULL}, *sv = wk_linalg_svdvals(A, NULL);
    int rc = wk_linalg_svd(A, full, NULL, outs);
    check(rc == 0 && sv, "svd runs", m * 100 + n, 0);
    if (rc == 0 && sv) {
        wk_copy_to_buffer(outs[0], WK_FLOAT64, u);
        wk_copy_to_buffer(outs[1], WK_FLOAT64, s);
        wk_copy_to_buffer(outs[2], WK_FLOAT64, vh);
        wk_copy_to_buffer(sv, WK_FLOAT64, s2);
        double tol = (dt == WK_FLOAT64 ? 1e-13 : 1e-5) * (m + n), rec = 0, uo = 0, vo = 0, ord = 0, fro = 0, dv = 0;
        for (int b = 0; b < batch; b++) {
            const double *A_ = a + b * mn, *U = u + b * m * uc, *S = s + b * k, *V = vh + b * vr * n;
            double f = 0, g = 0;
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    double t = 0;
                    for (int l = 0; l < k; l++) t += U[i * uc + l] * S[l] * V[l * n + j];
                    rec = fmax(rec, fabs(t - A_[i * n + j]));
                    f += A_[i * n + j] * A_[i * n + j];
                }
            for (int i = 0; i < uc; i++)
                for (int j = 0; j < uc; j++) {
                    double t = 0;
                    for (int l = 0; l < m; l++) t += U[l * uc + i] * U[l * uc + j];
                    uo = fmax(uo, fabs(t - (i == j)));
                }
            for (int i = 0; i < vr; i++)
                for (int j = 0; j < vr; j++) {
                    double t = 0;
                    for (int l = 0; l < n; l++) t += V[i * n + l] * V[j * n + l];
                    vo = fmax(vo, fabs(t - (i == j)));
                }
            for (int i = 0; i < k; i++) {
                g += S[i] * S[i];
                if (S[i] < 0 || (i && S[i] > S[i - 1])) ord = 1;
                dv = fmax(dv, fabs(S[i] - s2[b * k + i]));
            }
            fro = fmax(fro, fabs(f - g) / (1 + f));
        }
        check(rec <= tol, "svd U diag(S) Vh = A", m * 100 + n, rec);
        check(uo <= tol, "svd U^T U = I", m * 100 + n, uo);
        check(vo <= tol, "svd Vh Vh^T = I", m * 100 + n, vo);
        check(ord == 0, "svd S descending, >= 0", m * 100 + n, ord);
        check(fro <= tol, "svd sum(S^2) = |A|_F^2", m * 100 + n, fro);
        check(dv <= tol, "svdvals = svd's S", m * 100 + n, dv);
        if (deficient && n >= 2 && n <= m) /* rank n - 1 only when the repeated column is one of the k */
            check(s[k - 1] <= tol, "svd rank deficiency: last S ~ 0", m * 100 + n, s[k - 1]);
    }
    for (int i = 0; i < 3; i++) wk_release(outs[i]);
    wk_release(sv);
    wk_release(A);
    wk_release(A64);
    free(a), free(s), free(u), free(vh), free(s2);
}

/* A = 0 (every column completed), NaN (LinAlgError), 1-d (RuntimeError) */
static void svd_special(void) {
    int64_t sz[2] = {3, 2};
    double z[6] = {0}, u[9], vh[4];
    wk_tensor *A = wk_from_data(z, WK_FLOAT64, 2, sz), *outs[3] = {NULL, NULL, NULL};
    int rc = wk_linalg_svd(A, true, NULL, outs);
    check(rc == 0, "svd of zeros runs", 0, 0);
    if (rc == 0) {
        wk_copy_to_buffer(outs[0], WK_FLOAT64, u);
        wk_copy_to_buffer(outs[2], WK_FLOAT64, vh);
        double e = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double t = 0;
                for (int l = 0; l < 3; l++) t += u[l * 3 + i] * u[l * 3 + j];
                e = fmax(e, fabs(t - (i == j)));
            }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                e = fmax(e, fabs(vh[i * 2] * vh[j * 2] + vh[i * 2 + 1] * vh[j * 2 + 1] - (i == j)));
        check(e <= 1e-15, "svd of zeros: orthonormal completion", 0, e);
    }
    for (int i = 0; i < 3; i++) wk_release(outs[i]);
    wk_release(A);
    z[3] = NAN;
    A = wk_from_data(z, WK_FLOAT64, 2, sz);
    wk_tensor *bad = wk_linalg_svdvals(A, NULL);
    check(!bad && wk_error_kind() == WK_LINALG_ERROR, "svdvals NaN: LinAlgError", 0, 0);
    wk_error_clear();
    wk_release(A);
    A = wk_from_data(z, WK_FLOAT64, 1, sz);
    bad = wk_linalg_svdvals(A, NULL);
    check(!bad && wk_error_kind() == WK_RUNTIME_ERROR, "svdvals 1-d: RuntimeError", 0, 0);
    wk_error_clear();
    wk_release(A);
}

int main(void) {
    for (int n = 1; n <= 9; n++) {
        one(n, 1, WK_FLOAT64);
        one(n, 3, WK_FLOAT64);
        one(n, 2, WK_FLOAT32);
    }
    one(40, 2, WK_FLOAT64);
    singular();
    for (int n = 1; n <= 12; n++) {
        eigh_one(n, 2, WK_FLOAT64);
        eigh_one(n, 1, WK_FLOAT32);
        eigh_closed_form(n);
    }
    eigh_one(40, 1, WK_FLOAT64);
    static const int shapes[][2] = {{1, 1}, {1, 5}, {5, 1}, {2, 2}, {3, 3}, {4, 3}, {3, 4}, {7, 2}, {2, 7}, {8, 8}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int full = 0; full < 2; full++) {
            svd_one(shapes[i][0], shapes[i][1], 2, full, false, WK_FLOAT64);
            svd_one(shapes[i][0], shapes[i][1], 1, full, true, WK_FLOAT64);
            svd_one(shapes[i][0], shapes[i][1], 1, full, false, WK_FLOAT32);
        }
    svd_one(30, 20, 1, true, false, WK_FLOAT64);
    svd_one(20, 30, 1, false, true, WK_FLOAT64);
    svd_special();
    printf("linalg_dense: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
