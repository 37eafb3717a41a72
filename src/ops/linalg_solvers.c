/* linalg_solvers.c — torch's legacy solvers: torch.triangular_solve, cholesky_solve, cholesky_inverse and the
 * deprecated torch.cholesky, composed over linalg_solve_triangular and linalg_cholesky_ex (src/ops/linalg_dense.c)
 * with torch's own checks and texts (linearSolveCheckInputs) and derivatives (FunctionsManual.cpp's
 * triangular_solve_backward, cholesky_solve_backward, cholesky_inverse_backward, cholesky_backward). */
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/reduce.h"

#include <stdio.h>
#include <string.h>

#define MT(x) P_(wk_transpose((x), -2, -1))

/* torch's linearSolveCheckInputs(b, A, name), after the callers' own dimension checks */
static int linear_solve_checks(const wk_tensor *b, const wk_tensor *A, const char *name) {
    if (b->dtype != A->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Expected b and A to have the same dtype, but found b of type %s and A of type %s "
                  "instead.", wk_dtype_scalar_name(b->dtype), wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    int64_t n = A->sizes[A->ndim - 1];
    if (A->sizes[A->ndim - 2] != n) {
        wk__error(WK_RUNTIME_ERROR, "A must be batches of square matrices, but they are %lld by %lld matrices",
                  (long long)A->sizes[A->ndim - 2], (long long)n);
        return -1;
    }
    if (b->sizes[b->ndim - 2] != n) {
        wk__error(WK_RUNTIME_ERROR, "Incompatible matrix sizes for %s: each A matrix is %lld by %lld but each b matrix "
                  "is %lld by %lld", name, (long long)n, (long long)n, (long long)b->sizes[b->ndim - 2],
                  (long long)b->sizes[b->ndim - 1]);
        return -1;
    }
    int nb = 0;
    int64_t bs[WK_MAX_DIM];
    return wk__broadcast_shapes(b->ndim - 2, b->sizes, A->ndim - 2, A->sizes, &nb, bs);
}

static int check_kernel(const wk_tensor *A, const char *kernel) {
    if (A->dtype != WK_FLOAT32 && A->dtype != WK_FLOAT64) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", kernel, wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    return 0;
}

/* ---- triangular_solve ---- */
int wk_impl_triangular_solve(wk_tensor *self, wk_tensor *A, bool upper, bool transpose, bool unitriangular,
                             wk_tensor **outs) {
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (!warned)
        wk__warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in "
                 "a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
                 "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
                 "with\nX = torch.linalg.solve_triangular(A, B).");
    warned = true;
    for (int i = 0; i < 2; i++) {
        const wk_tensor *t = i ? A : self;
        if (t->ndim < 2) {
            wk__error(WK_RUNTIME_ERROR, "torch.triangular_solve: Expected %s to have at least 2 dimensions, but it has "
                      "%d dimensions instead", i ? "A" : "b", t->ndim);
            return -1;
        }
    }
    if (linear_solve_checks(self, A, "triangular_solve") < 0 || check_kernel(A, "triangular_solve_cpu") < 0) return -1;
    int nb = 0;
    int64_t cs[WK_MAX_DIM];
    wk__broadcast_shapes(self->ndim - 2, self->sizes, A->ndim - 2, A->sizes, &nb, cs);
    cs[nb] = cs[nb + 1] = A->sizes[A->ndim - 1];
    wk_cpool pool = {0};
    wk_tensor *Ae = P_(wk__expand_to(A, nb + 2, cs));
    wk_tensor *coef = P_(Ae ? wk__clone(Ae) : NULL);
    wk_tensor *X = P_(wk_linalg_solve_triangular(transpose ? MT(A) : A, self, transpose ? !upper : upper, true,
                                                 unitriangular));
    if (pool.failed) {
        wk_cpool_end(&pool, NULL);
        return -1;
    }
    outs[0] = wk_retain(X);
    outs[1] = wk_retain(coef);
    wk_cpool_end(&pool, NULL);
    return 0;
}

/* torch's triangular_solve_backward (which 0: b, 1: A) */
wk_tensor *wk_impl__triangular_solve_backward(wk_tensor *grad_x, wk_tensor *grad_m, wk_tensor *A, wk_tensor *x,
                                              bool upper, bool transpose, bool unitriangular, int64_t which) {
    wk_cpool pool = {0};
    wk_tensor *r[2] = {NULL, NULL};
    if (wk_triangular_solve(grad_x, A, upper, !transpose, unitriangular, r) < 0) return NULL;
    wk_release(r[1]);
    wk_tensor *gB = P_(r[0]);
    if (which == 0) return wk_cpool_end(&pool, gB);
    wk_tensor *gA = P_(wk_neg(P_(transpose ? wk_matmul(x, MT(gB)) : wk_matmul(gB, MT(x)))));
    gA = P_(upper ? wk_triu(gA, unitriangular ? 1 : 0) : wk_tril(gA, unitriangular ? -1 : 0));
    gA = P_(wk_add(gA, grad_m, wk_int(1)));
    return wk_cpool_end(&pool, gA);
}

/* ---- cholesky_solve: A = L L^H (or U^H U) from its factor; X = A^-1 b by two triangular solves ---- */
wk_tensor *wk_impl_cholesky_solve(wk_tensor *self, wk_tensor *input2, bool upper) {
    if (self->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "b should have at least 2 dimensions, but has %d dimensions instead",
                       self->ndim);
    if (input2->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "u should have at least 2 dimensions, but has %d dimensions instead",
                       input2->ndim);
    if (linear_solve_checks(self, input2, "cholesky_solve") < 0 || check_kernel(input2, "cholesky_solve_cpu") < 0)
        return NULL;
    wk_cpool pool = {0};
    wk_tensor *F = upper ? MT(input2) : input2; /* the lower factor: A = F F^T */
    wk_tensor *Z = P_(wk_linalg_solve_triangular(F, self, false, true, false));
    wk_tensor *X = P_(wk_linalg_solve_triangular(MT(F), Z, true, true, false));
    return wk_cpool_end(&pool, X);
}

/* torch's cholesky_solve_backward for the factor: -(C L) or -(U C)... with C = gB X^H + X gB^H */
wk_tensor *wk_impl__cholesky_solve_backward_L(wk_tensor *grad, wk_tensor *L, wk_tensor *X, bool upper) {
    wk_cpool pool = {0};
    wk_tensor *gB = P_(wk_cholesky_solve(grad, L, upper));
    wk_tensor *c = P_(wk_matmul(gB, MT(X)));
    c = P_(wk_add(c, MT(c), wk_int(1)));
    wk_tensor *r = P_(wk_neg(P_(upper ? wk_matmul(L, c) : wk_matmul(c, L))));
    return wk_cpool_end(&pool, r);
}

/* ---- cholesky_inverse: (L L^H)^-1 from L's triangle, potri's info (a zero diagonal entry) ---- */
wk_tensor *wk_impl_cholesky_inverse(wk_tensor *self, bool upper) {
    const char *api = "cholesky_inverse";
    if (self->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: The input tensor A must have at least 2 dimensions.", api);
    int64_t n = self->sizes[self->ndim - 1];
    if (self->sizes[self->ndim - 2] != n)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                       api, (long long)self->sizes[self->ndim - 2], (long long)n);
    if (check_kernel(self, "cholesky_inverse_out_cpu") < 0) return NULL;
    wk_tensor *c = wk__contiguous(self);
    if (!c) return NULL;
    int64_t nb = wk__prod(self->sizes, self->ndim - 2);
    const char *p = wk__data(c);
    for (int64_t b = 0; b < nb; b++)
        for (int64_t i = 0; i < n; i++) {
            int64_t off = (b * n + i) * n + i;
            double d = self->dtype == WK_FLOAT64 ? ((const double *)p)[off] : (double)((const float *)p)[off];
            if (d != 0) continue;
            char batch[64] = "";
            if (self->ndim > 2) snprintf(batch, sizeof batch, "(Batch element %lld): ", (long long)b);
            wk_release(c);
            return WK_FAIL(WK_LINALG_ERROR, "%s: %sThe diagonal element %lld is zero, the inversion could not be "
                           "completed because the input matrix is singular.", api, batch, (long long)(i + 1));
        }
    wk_release(c);
    wk_cpool pool = {0};
    wk_tensor *F = P_(upper ? wk_triu(self, 0) : wk_tril(self, 0));
    wk_tensor *eye = P_(wk__zeros(self->ndim, self->sizes, self->dtype));
    if (eye) {
        char *pi = wk__data(eye);
        size_t esz = wk_dtype_size(self->dtype);
        for (int64_t b = 0; b < nb; b++)
            for (int64_t i = 0; i < n; i++) wk__store_scalar(pi + (size_t)((b * n + i) * n + i) * esz, self->dtype,
                                                             wk_int(1));
    }
    wk_tensor *X = P_(wk_cholesky_solve(eye, F, upper));
    return wk_cpool_end(&pool, X);
}

/* torch's cholesky_inverse_backward: C = inv (gX + gX^H) inv; -C L (lower) or -U C (upper) */
wk_tensor *wk_impl__cholesky_inverse_backward(wk_tensor *grad, wk_tensor *L, bool upper, wk_tensor *inverse) {
    wk_cpool pool = {0};
    wk_tensor *c = P_(wk_add(grad, MT(grad), wk_int(1)));
    c = P_(wk_matmul(inverse, P_(wk_matmul(c, inverse))));
    wk_tensor *r = P_(wk_neg(P_(upper ? wk_matmul(L, c) : wk_matmul(c, L))));
    return wk_cpool_end(&pool, r);
}

/* ---- torch.cholesky (deprecated): linalg_cholesky_ex with torch's "cholesky" texts ---- */
wk_tensor *wk_impl_cholesky(wk_tensor *self, bool upper) {
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (!warned)
        wk__warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                 "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand"
                 "\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
                 "transform will produce equivalent results for all valid (symmetric positive definite) inputs.");
    warned = true;
    const char *api = "cholesky";
    if (self->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: The input tensor A must have at least 2 dimensions.", api);
    int64_t n = self->sizes[self->ndim - 1];
    if (self->sizes[self->ndim - 2] != n)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                       api, (long long)self->sizes[self->ndim - 2], (long long)n);
    if (wk__numel(self) > 0 && check_kernel(self, "cholesky_cpu") < 0) return NULL;
    wk_tensor *r[2];
    if (wk_linalg_cholesky_ex(self, upper, false, r) < 0) return NULL;
    int64_t nb = wk__numel(r[1]);
    const int32_t *info = (const int32_t *)wk__data(r[1]);
    for (int64_t b = 0; b < nb; b++) {
        if (info[b] == 0) continue;
        char batch[64] = "";
        if (self->ndim > 2) snprintf(batch, sizeof batch, "(Batch element %lld): ", (long long)b);
        wk__error(WK_LINALG_ERROR, "%s: %sThe factorization could not be completed because the input is not "
                  "positive-definite (the leading minor of order %d is not positive-definite).", api, batch, info[b]);
        wk_release(r[0]);
        wk_release(r[1]);
        return NULL;
    }
    wk_release(r[1]);
    return r[0];
}
