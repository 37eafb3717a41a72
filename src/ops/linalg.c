/* linalg.c — matrix products: mm, bmm, mv, dot, vdot, addmm, addmv, baddbmm, addbmm, trace, and the composites
 * built on them (matmul, outer, inner, kron, tensordot, einsum).
 *
 * Note [Reference GEMM]: one naive kernel serves every product. Operands are made contiguous first; each output
 * row is accumulated in a row of scratch (i-k-j order: the innermost loop streams a row of B and the scratch
 * row, so it is cache-friendly and vectorisable), then scaled and written:
 *     C[i, j] = alpha * sum_s sum_p A[s, i, p] * B[s, p, j] + beta * bias[i, j]
 * The sum over s (nsum > 1) is addbmm's sum over batches. Accumulation is in float for float (half and
 * bfloat16 operands are converted to float first and the result rounded once), double for double, int64 for the
 * integer types (wrapping, as torch's integer kernels do). The fast packed
 * GEMM (another issue) is checked against this one. */
#include "autograd/autograd.h"
#include "ops/index.h"
#include "ops_impl.h"

#include <ctype.h>

#include "cpu/gemm.h"

/* The C++ type names torch prints in some dtype messages ("expected m1 and m2 to have the same dtype, but got:
 * float != long int"). */
static const char *const CPP_NAME[WK_NUM_DTYPES] = {
    [WK_BOOL] = "bool",     [WK_UINT8] = "unsigned char", [WK_INT8] = "signed char", [WK_INT16] = "short int",
    [WK_INT32] = "int",     [WK_INT64] = "long int",      [WK_FLOAT16] = "c10::Half", [WK_BFLOAT16] = "c10::BFloat16",
    [WK_FLOAT32] = "float", [WK_FLOAT64] = "double",
};

typedef struct {
    const char *a;    /* [nsum, m, k] contiguous */
    const char *b;    /* [nsum, k, n] contiguous */
    const char *bias; /* [m, n] contiguous, or NULL (beta == 0 ignores it, as BLAS does) */
    char *c;          /* [m, n] contiguous output */
    int64_t m, n, k, nsum;
    wk_scalar alpha, beta;
} gemm_args;

#define GEMM_REF(NAME, T, ACC, LD, ST, SCALAR)                                                                 \
    static void NAME(const gemm_args *g, ACC *acc /* [n] scratch */) {                                         \
        const T *a = (const T *)g->a, *b = (const T *)g->b, *bias = (const T *)g->bias;                        \
        T *c = (T *)g->c;                                                                                      \
        const int64_t m = g->m, n = g->n, k = g->k;                                                            \
        const ACC alpha = SCALAR(g->alpha), beta = SCALAR(g->beta);                                            \
        const bool use_bias = bias && !(beta == 0);                                                            \
        for (int64_t i = 0; i < m; i++) {                                                                      \
            for (int64_t j = 0; j < n; j++) acc[j] = 0;                                                        \
            for (int64_t s = 0; s < g->nsum; s++)                                                              \
                for (int64_t p = 0; p < k; p++) {                                                              \
                    const ACC av = (ACC)LD(a[(s * m + i) * k + p]);                                            \
                    const T *restrict brow = b + (s * k + p) * n;                                              \
                    ACC *restrict accr = acc;                                                                  \
                    for (int64_t j = 0; j < n; j++) accr[j] += av * (ACC)LD(brow[j]);                          \
                }                                                                                              \
            T *crow = c + i * n;                                                                               \
            const T *brow = use_bias ? bias + i * n : NULL;                                                    \
            for (int64_t j = 0; j < n; j++) {                                                                  \
                ACC r = alpha * acc[j];                                                                        \
                if (use_bias) r += beta * (ACC)LD(brow[j]);                                                    \
                crow[j] = ST(r);                                                                               \
            }                                                                                                  \
        }                                                                                                      \
    }

static double scalar_d(wk_scalar s) { return wk__scalar_to_double(s); }
static int64_t scalar_i(wk_scalar s) { return wk__scalar_to_int(s); }
#define ID(x) (x)
#define SF(s) ((float)scalar_d(s))
#define SD(s) scalar_d(s)
#define SI64(s) scalar_i(s)
#define SI32(s) ((int64_t)(int32_t)scalar_i(s))
#define SI16(s) ((int64_t)(int16_t)scalar_i(s))
#define SI8(s) ((int64_t)(int8_t)scalar_i(s))
#define SU8(s) ((int64_t)(uint8_t)scalar_i(s))
#define TOI64(x) ((int64_t)(x))
#define TOI32(x) ((int32_t)(uint32_t)(uint64_t)(x))
#define TOI16(x) ((int16_t)(uint16_t)(uint64_t)(x))
#define TOI8(x) ((int8_t)(uint8_t)(uint64_t)(x))
#define TOU8(x) ((uint8_t)(uint64_t)(x))
GEMM_REF(gemm_f32, float, float, ID, (float), SF)
GEMM_REF(gemm_f64, double, double, ID, (double), SD)
GEMM_REF(gemm_i64, int64_t, int64_t, ID, TOI64, SI64)
GEMM_REF(gemm_i32, int32_t, int64_t, ID, TOI32, SI32)
GEMM_REF(gemm_i16, int16_t, int64_t, ID, TOI16, SI16)
GEMM_REF(gemm_i8, int8_t, int64_t, ID, TOI8, SI8)
GEMM_REF(gemm_u8, uint8_t, int64_t, ID, TOU8, SU8)

/* float32 goes through the packed SIMD GEMM (src/cpu/gemm.c); GEMM_REF stays as its reference */
static int gemm_fast_f32(const gemm_args *g) {
    const float *a = (const float *)g->a, *b = (const float *)g->b, *bias = (const float *)g->bias;
    float *c = (float *)g->c;
    const int64_t m = g->m, n = g->n, k = g->k;
    if (g->nsum == 0) memset(c, 0, sizeof(float) * (size_t)(m * n)); /* an empty batch sums to zero */
    for (int64_t s = 0; s < g->nsum; s++)
        if (wk_gemm_f32(m, n, k, a + s * m * k, k, 1, b + s * k * n, n, 1, s == 0 ? 0.0f : 1.0f, c, n, 1) < 0)
            return -1;
    const float alpha = SF(g->alpha), beta = SF(g->beta);
    const bool use_bias = bias && !(beta == 0);
    if (alpha != 1 || use_bias)
        for (int64_t i = 0; i < m * n; i++) c[i] = alpha * c[i] + (use_bias ? beta * bias[i] : 0.0f);
    return 0;
}

static int gemm(wk_dtype dt, const gemm_args *g) {
    if (dt == WK_FLOAT32) return gemm_fast_f32(g);
    size_t accsz = dt == WK_FLOAT64 || !wk_dtype_is_floating(dt) ? 8 : 4;
    void *acc = wk__malloc(accsz * (size_t)(g->n ? g->n : 1));
    if (!acc) return -1;
    switch (dt) {
    case WK_FLOAT32: gemm_f32(g, acc); break;
    case WK_FLOAT64: gemm_f64(g, acc); break;
    case WK_INT64: gemm_i64(g, acc); break;
    case WK_INT32: gemm_i32(g, acc); break;
    case WK_INT16: gemm_i16(g, acc); break;
    case WK_INT8: gemm_i8(g, acc); break;
    case WK_UINT8: gemm_u8(g, acc); break;
    default: free(acc); wk__error(WK_RUNTIME_ERROR, "gemm: unsupported dtype"); return -1;
    }
    free(acc);
    return 0;
}

/* alpha and beta are converted to the element type as torch's Scalar::to<scalar_t>() does (checked). */
static int check_alpha_beta(wk_scalar alpha, wk_scalar beta, wk_dtype dt) {
    if (wk__check_scalar_fits(beta, dt) < 0 || wk__check_scalar_fits(alpha, dt) < 0) return -1;
    return 0;
}

/* t as a contiguous tensor of dtype dt (t itself when it already is one) */
static wk_tensor *contiguous_as(const wk_tensor *t, wk_dtype dt) {
    if (t->dtype == dt) return wk__contiguous(t);
    wk_tensor *c = wk__empty(t->ndim, t->sizes, dt);
    if (c && wk__copy_(c, t) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

/* float32 operands go to the packed GEMM with their own strides (a transposed or sliced operand is packed
 * straight from where it lies, not copied to a contiguous tensor first); out is the fresh contiguous result,
 * consumed (returned, or released on error). Same products, same order as gemm_fast_f32. */
static wk_tensor *gemm_f32_strided(const wk_tensor *a, const wk_tensor *b, const wk_tensor *bias, wk_scalar beta_s,
                                   wk_scalar alpha_s, int64_t B, int64_t m, int64_t n, int64_t k, bool sum_batches,
                                   wk_tensor *out) {
    const float *pa = (const float *)wk__data(a), *pb = (const float *)wk__data(b);
    float *c = (float *)wk__data(out); /* [B or 1, m, n] */
    for (int64_t s = 0; s < B; s++) {
        float *cs = sum_batches ? c : c + s * m * n;
        float beta = sum_batches && s > 0 ? 1.0f : 0.0f;
        if (wk_gemm_f32(m, n, k, pa + s * a->strides[0], a->strides[1], a->strides[2], pb + s * b->strides[0],
                        b->strides[1], b->strides[2], beta, cs, n, 1) < 0) {
            wk_release(out);
            return NULL;
        }
    }
    const float alpha = SF(alpha_s), beta = SF(beta_s);
    const bool use_bias = bias && !(beta == 0);
    if (alpha != 1 || use_bias) {
        wk_tensor *biasc = use_bias ? contiguous_as(bias, WK_FLOAT32) : NULL; /* [B or 1, m, n] */
        if (use_bias && !biasc) {
            wk_release(out);
            return NULL;
        }
        const float *pbias = biasc ? (const float *)wk__data(biasc) : NULL;
        int64_t total = (sum_batches ? 1 : B) * m * n;
        for (int64_t i = 0; i < total; i++) c[i] = alpha * c[i] + (pbias ? beta * pbias[i] : 0.0f);
        wk_release(biasc);
    }
    return out;
}

/* An mm of depth 1 (m, n > 1) in float32 / float64 is torch's (MKL's) outer product: each element the product
 * itself, alpha * (a_i * b_j) (+ beta * bias), so 0 * -1 stays -0 where a sum from zero gives +0 (printed "-0."
 * as torch's: torch.zeros(3, 1) @ -torch.ones(1, 4)). Same values otherwise. out: [m, n], consumed. */
static wk_tensor *outer_depth1(const wk_tensor *a, const wk_tensor *b, const wk_tensor *bias, wk_scalar beta_s,
                               wk_scalar alpha_s, int64_t m, int64_t n, wk_tensor *out) {
    const double alpha = wk__scalar_to_double(alpha_s), beta = wk__scalar_to_double(beta_s);
    wk_tensor *bc = bias && beta != 0 ? contiguous_as(bias, out->dtype) : NULL; /* [m, n] */
    if (bias && beta != 0 && !bc) {
        wk_release(out);
        return NULL;
    }
    const int64_t sa = a->strides[1], sb = b->strides[2];
    if (out->dtype == WK_FLOAT32) {
        const float *pa = (const float *)wk__data(a), *pb = (const float *)wk__data(b);
        const float *pc = bc ? (const float *)wk__data(bc) : NULL;
        float *o = (float *)wk__data(out), fa = (float)alpha, fb = (float)beta;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float p = pa[i * sa] * pb[j * sb];
                p = fa == 1 ? p : fa * p;
                o[i * n + j] = pc ? p + fb * pc[i * n + j] : p;
            }
    } else {
        const double *pa = (const double *)wk__data(a), *pb = (const double *)wk__data(b);
        const double *pc = bc ? (const double *)wk__data(bc) : NULL;
        double *o = (double *)wk__data(out);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double p = pa[i * sa] * pb[j * sb];
                p = alpha == 1 ? p : alpha * p;
                o[i * n + j] = pc ? p + beta * pc[i * n + j] : p;
            }
    }
    wk_release(bc);
    return out;
}

/* out[B, m, n] = alpha * a[B, m, k] @ b[B, k, n] (+ beta * bias[B, m, n]); any strides; one product per batch
 * (nsum = 1), or with sum_batches the sum over the batch of a [B, m, k] @ [B, k, n] into out [m, n]. */
static wk_tensor *gemm_tensors(const wk_tensor *a, const wk_tensor *b, const wk_tensor *bias, wk_scalar beta,
                               wk_scalar alpha, int64_t B, int64_t m, int64_t n, int64_t k, bool sum_batches) {
    /* half and bfloat16 are computed in float (converted once, rounded once at the end) */
    wk_dtype dt = a->dtype == WK_FLOAT16 || a->dtype == WK_BFLOAT16 ? WK_FLOAT32 : a->dtype;
    int64_t shape[3] = {B, m, n};
    wk_tensor *out = sum_batches ? wk__empty(2, shape + 1, dt) : wk__empty(3, shape, dt);
    if (out && sum_batches && B == 1 && k == 1 && m > 1 && n > 1 && (dt == WK_FLOAT32 || dt == WK_FLOAT64) &&
        a->dtype == dt && b->dtype == dt)
        return outer_depth1(a, b, bias, beta, alpha, m, n, out);
    if (out && a->dtype == WK_FLOAT32 && b->dtype == WK_FLOAT32 && B > 0)
        return gemm_f32_strided(a, b, bias, beta, alpha, B, m, n, k, sum_batches, out);
    wk_tensor *ac = contiguous_as(a, dt), *bc = contiguous_as(b, dt), *biasc = bias ? contiguous_as(bias, dt) : NULL;
    int rc = -1;
    if (out && ac && bc && (!bias || biasc)) {
        size_t esz = wk_dtype_size(dt);
        gemm_args g = {wk__data(ac), wk__data(bc), biasc ? wk__data(biasc) : NULL, wk__data(out), m, n, k, 1, alpha,
                       beta};
        if (sum_batches) {
            g.nsum = B;
            rc = gemm(dt, &g);
        } else {
            rc = 0;
            for (int64_t s = 0; s < B && rc == 0; s++) {
                g.a = wk__data(ac) + (size_t)(s * m * k) * esz;
                g.b = wk__data(bc) + (size_t)(s * k * n) * esz;
                g.bias = biasc ? wk__data(biasc) + (size_t)(s * m * n) * esz : NULL;
                g.c = wk__data(out) + (size_t)(s * m * n) * esz;
                rc = gemm(dt, &g);
            }
        }
    }
    wk_release(ac);
    wk_release(bc);
    wk_release(biasc);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    if (dt != a->dtype) {
        wk_tensor *r = wk__to_dtype(out, a->dtype);
        wk_release(out);
        return r;
    }
    return out;
}

static wk_tensor *not_implemented(const char *kernel, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", kernel, wk_dtype_scalar_name(dt));
    return NULL;
}

/* Bool has no GEMM kernel, but torch's addmm_impl_cpu_, addmv_out_cpu and bmm_out_or_baddbmm_ return before their
 * dtype dispatch when the result is empty (as is) or the contraction is (beta * self: zeros without self or with beta
 * 0, else self, which a truthy beta leaves unchanged in bool): so an empty bool product works as torch's, any other
 * raises torch's NotImplementedError. bias: NULL or self expanded to shape. */
static wk_tensor *bool_product(const wk_tensor *bias, int ndim, const int64_t *shape, int64_t k, wk_scalar beta,
                               const char *kernel) {
    if (wk__prod(shape, ndim) != 0 && k != 0) return not_implemented(kernel, WK_BOOL);
    if (wk__prod(shape, ndim) == 0 || !bias || wk__scalar_to_double(beta) == 0) return wk__zeros(ndim, shape, WK_BOOL);
    if (beta.tag != WK_SCALAR_BOOL) { /* torch's result.mul_(beta): a bool result cannot hold bool * int or float */
        wk__error(WK_RUNTIME_ERROR, "result type %s can't be cast to the desired output type Bool",
                  beta.tag == WK_SCALAR_INT ? "Long" : "Float");
        return NULL;
    }
    return wk__clone(bias);
}

/* A [m, n] view of a 2-D tensor as [1, m, n] (no copy) for the batched kernel. */
static wk_tensor *as_batch(const wk_tensor *t) {
    int64_t sizes[3] = {1, t->ndim > 0 ? t->sizes[0] : 1, t->ndim > 1 ? t->sizes[1] : 1};
    int64_t strides[3] = {0, t->ndim > 0 ? t->strides[0] : 1, t->ndim > 1 ? t->strides[1] : 1};
    return wk__alias(t, 3, sizes, strides, t->offset);
}

/* bias broadcast to sizes (torch's expand, with its message); a view. */
static wk_tensor *expand_bias(wk_tensor *self, int n, const int64_t *sizes) {
    return wk_impl_expand(self, wk_ints(sizes, n), false);
}

/* ---- mm / addmm ---- */
static wk_tensor *mm_kernel(wk_tensor *bias, wk_tensor *mat1, wk_tensor *mat2, wk_scalar beta, wk_scalar alpha) {
    int64_t m = mat1->sizes[0], k = mat1->sizes[1], n = mat2->sizes[1];
    wk_tensor *a = as_batch(mat1), *b = as_batch(mat2), *bb = bias ? as_batch(bias) : NULL;
    wk_tensor *r = a && b && (!bias || bb) ? gemm_tensors(a, b, bb, beta, alpha, 1, m, n, k, true) : NULL;
    wk_release(a);
    wk_release(b);
    wk_release(bb);
    return r;
}

static int check_mm_shapes(const wk_tensor *a, const wk_tensor *b) {
    if (a->sizes[1] != b->sizes[0]) {
        wk__error(WK_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                  (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0], (long long)b->sizes[1]);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_mm(wk_tensor *self, wk_tensor *mat2) {
    if (self->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "self must be a matrix");
    if (mat2->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "mat2 must be a matrix");
    if (check_mm_shapes(self, mat2) < 0) return NULL;
    if (self->dtype != mat2->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                  CPP_NAME[self->dtype], CPP_NAME[mat2->dtype]);
        return NULL;
    }
    if (self->dtype == WK_BOOL)
        return bool_product(NULL, 2, (int64_t[]){self->sizes[0], mat2->sizes[1]}, self->sizes[1], wk_int(0),
                            "addmm_impl_cpu_");
    return mm_kernel(NULL, self, mat2, wk_int(0), wk_int(1));
}

/* addmm's dtype checks come first (torch's addmm_out_cpu order), then the matrix checks, then self's broadcast. */
static int check_addmm_dtypes(const wk_tensor *self, const wk_tensor *mat1, const wk_tensor *mat2) {
    if (self->dtype != mat2->dtype) {
        wk__error(WK_RUNTIME_ERROR, "self and mat2 must have the same dtype, but got %s and %s",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(mat2->dtype));
        return -1;
    }
    if (mat1->dtype != mat2->dtype) {
        wk__error(WK_RUNTIME_ERROR, "mat1 and mat2 must have the same dtype, but got %s and %s",
                  wk_dtype_scalar_name(mat1->dtype), wk_dtype_scalar_name(mat2->dtype));
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_addmm(wk_tensor *self, wk_tensor *mat1, wk_tensor *mat2, wk_scalar beta, wk_scalar alpha) {
    if (check_addmm_dtypes(self, mat1, mat2) < 0) return NULL;
    if (mat1->ndim != 2) {
        wk__error(WK_RUNTIME_ERROR, "mat1 must be a matrix, got %d-D tensor", mat1->ndim);
        return NULL;
    }
    if (mat2->ndim != 2) {
        wk__error(WK_RUNTIME_ERROR, "mat2 must be a matrix, got %d-D tensor", mat2->ndim);
        return NULL;
    }
    if (check_mm_shapes(mat1, mat2) < 0) return NULL;
    int64_t shape[2] = {mat1->sizes[0], mat2->sizes[1]};
    wk_tensor *bias = expand_bias(self, 2, shape);
    if (!bias) return NULL;
    wk_tensor *r = NULL;
    if (self->dtype == WK_BOOL) r = bool_product(bias, 2, shape, mat1->sizes[1], beta, "addmm_impl_cpu_");
    else if (check_alpha_beta(alpha, beta, self->dtype) == 0) r = mm_kernel(bias, mat1, mat2, beta, alpha);
    wk_release(bias);
    return r;
}

/* ---- bmm / baddbmm / addbmm ---- */
static int check_bmm_sizes(const wk_tensor *b1, const wk_tensor *b2) {
    if (b2->sizes[0] != b1->sizes[0] || b2->sizes[1] != b1->sizes[2]) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                  (long long)b1->sizes[0], (long long)b1->sizes[2], (long long)b2->sizes[0], (long long)b2->sizes[1]);
        return -1;
    }
    return 0;
}

static int check_same_scalar_type(const wk_tensor *expected, const wk_tensor *found) {
    if (expected->dtype != found->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(expected->dtype),
                  wk_dtype_scalar_name(found->dtype));
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_bmm(wk_tensor *self, wk_tensor *mat2) {
    if (self->ndim != 3) return WK_FAIL(WK_RUNTIME_ERROR, "batch1 must be a 3D tensor");
    if (mat2->ndim != 3) return WK_FAIL(WK_RUNTIME_ERROR, "batch2 must be a 3D tensor");
    if (check_bmm_sizes(self, mat2) < 0 || check_same_scalar_type(self, mat2) < 0) return NULL;
    if (self->dtype == WK_BOOL)
        return bool_product(NULL, 3, (int64_t[]){self->sizes[0], self->sizes[1], mat2->sizes[2]}, self->sizes[2],
                            wk_int(0), "bmm");
    return gemm_tensors(self, mat2, NULL, wk_int(0), wk_int(1), self->sizes[0], self->sizes[1], mat2->sizes[2],
                        self->sizes[2], false);
}

wk_tensor *wk_impl_baddbmm(wk_tensor *self, wk_tensor *batch1, wk_tensor *batch2, wk_scalar beta, wk_scalar alpha) {
    if (batch1->ndim != 3) return WK_FAIL(WK_RUNTIME_ERROR, "batch1 must be a 3D tensor");
    int64_t d2;
    if (wk__wrap_dim(2, batch2->ndim, &d2) < 0) return NULL; /* torch reads batch2.size(2) here */
    int64_t shape[3] = {batch1->sizes[0], batch1->sizes[1], batch2->sizes[2]};
    wk_tensor *bias = expand_bias(self, 3, shape);
    if (!bias) return NULL;
    wk_tensor *r = NULL;
    if (self->dtype != batch1->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
                  CPP_NAME[self->dtype], CPP_NAME[batch1->dtype], CPP_NAME[batch2->dtype]);
    } else if (batch2->ndim != 3) {
        wk__error(WK_RUNTIME_ERROR, "batch2 must be a 3D tensor");
    } else if (check_bmm_sizes(batch1, batch2) == 0 && check_same_scalar_type(batch1, batch2) == 0) {
        if (self->dtype == WK_BOOL) r = bool_product(bias, 3, shape, batch1->sizes[2], beta, "baddbmm");
        else if (check_alpha_beta(alpha, beta, self->dtype) == 0)
            r = gemm_tensors(batch1, batch2, bias, beta, alpha, shape[0], shape[1], shape[2], batch1->sizes[2], false);
    }
    wk_release(bias);
    return r;
}

wk_tensor *wk_impl_addbmm(wk_tensor *self, wk_tensor *batch1, wk_tensor *batch2, wk_scalar beta, wk_scalar alpha) {
    int64_t d1, d2;
    if (wk__wrap_dim(1, batch1->ndim, &d1) < 0 || wk__wrap_dim(2, batch2->ndim, &d2) < 0) return NULL;
    int64_t shape[2] = {batch1->sizes[1], batch2->sizes[2]};
    wk_tensor *bias = expand_bias(self, 2, shape);
    if (!bias) return NULL;
    wk_tensor *r = NULL;
    if (batch1->ndim != 3) {
        wk__error(WK_RUNTIME_ERROR, "batch1 must be a 3D tensor");
    } else if (batch2->ndim != 3) {
        wk__error(WK_RUNTIME_ERROR, "batch2 must be a 3D tensor");
    } else if (batch1->sizes[0] != batch2->sizes[0]) {
        wk__error(WK_RUNTIME_ERROR, "batch1 and batch2 must have same number of batches, got %lld and %lld",
                  (long long)batch1->sizes[0], (long long)batch2->sizes[0]);
    } else if (batch1->sizes[2] != batch2->sizes[1]) {
        wk__error(WK_RUNTIME_ERROR, "Incompatible matrix sizes for bmm (%lldx%lld and %lldx%lld)",
                  (long long)batch1->sizes[1], (long long)batch1->sizes[2], (long long)batch2->sizes[1],
                  (long long)batch2->sizes[2]);
    } else if (check_addmm_dtypes(self, batch1, batch2) == 0) {
        if (self->dtype == WK_BOOL) not_implemented("addmm_impl_cpu_", self->dtype);
        else if (check_alpha_beta(alpha, beta, self->dtype) == 0) {
            wk_tensor *bb = as_batch(bias);
            if (bb)
                r = gemm_tensors(batch1, batch2, bb, beta, alpha, batch1->sizes[0], shape[0], shape[1],
                                 batch1->sizes[2], true);
            wk_release(bb);
        }
    }
    wk_release(bias);
    return r;
}

/* grad [m, n] -> [b, m, n] (a broadcast view recorded as unsqueeze + expand, as torch's formula) */
wk_tensor *wk_impl_addbmm_grad_expand(wk_tensor *grad, wk_intlist batch1_sizes, wk_intlist batch2_sizes) {
    if (batch1_sizes.len != 3 || batch2_sizes.len != 3) return WK_FAIL(WK_RUNTIME_ERROR, "addbmm_grad_expand: bad sizes");
    int64_t shape[3] = {batch1_sizes.data[0], batch1_sizes.data[1], batch2_sizes.data[2]};
    wk_tensor *u = wk_unsqueeze(grad, 0);
    if (!u) return NULL;
    wk_tensor *e = wk_expand(u, wk_ints(shape, 3), false);
    wk_release(u);
    return e;
}

/* ---- mv / addmv ---- */
static int check_addmv(const wk_tensor *self, const wk_tensor *mat, const wk_tensor *vec) {
    if (mat->ndim != 2 || vec->ndim != 1 || self->ndim > 1) {
        wk__error(WK_RUNTIME_ERROR, "vector + matrix @ vector expected, got %d, %d, %d", self->ndim, mat->ndim,
                  vec->ndim);
        return -1;
    }
    int64_t sn = self->ndim ? self->sizes[0] : 1;
    if (mat->sizes[1] != vec->sizes[0] || !(mat->sizes[0] == sn || sn == 1)) {
        wk__error(WK_RUNTIME_ERROR, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)", (long long)sn,
                  (long long)mat->sizes[0], (long long)mat->sizes[1], (long long)vec->sizes[0]);
        return -1;
    }
    if (self->dtype != mat->dtype || mat->dtype != vec->dtype) {
        wk__error(WK_RUNTIME_ERROR, "addmv input tensors must have the same dtype, but got %s, %s, and %s",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(mat->dtype),
                  wk_dtype_scalar_name(vec->dtype));
        return -1;
    }
    return 0; /* bool: bool_product */
}

/* out[m] = alpha * mat[m, k] @ vec[k] + beta * bias[m] (a [1, m, k] @ [1, k, 1] product) */
static wk_tensor *mv_kernel(const wk_tensor *bias, const wk_tensor *mat, const wk_tensor *vec, wk_scalar beta,
                            wk_scalar alpha) {
    int64_t m = mat->sizes[0], k = mat->sizes[1];
    int64_t vsz[3] = {1, k, 1}, vst[3] = {0, vec->strides[0], 1};
    int64_t bsz[3] = {1, m, 1}, bst[3] = {0, bias ? bias->strides[0] : 0, 1};
    wk_tensor *a = as_batch(mat), *b = wk__alias(vec, 3, vsz, vst, vec->offset);
    wk_tensor *bb = bias ? wk__alias(bias, 3, bsz, bst, bias->offset) : NULL;
    wk_tensor *r = a && b && (!bias || bb) ? gemm_tensors(a, b, bb, beta, alpha, 1, m, 1, k, true) : NULL;
    wk_release(a);
    wk_release(b);
    wk_release(bb);
    if (!r) return NULL;
    wk_tensor *v = wk__alias(r, 1, &m, (int64_t[]){1}, 0);
    wk_release(r);
    return v;
}

wk_tensor *wk_impl_mv(wk_tensor *self, wk_tensor *vec) {
    /* torch computes mv as addmv into an empty result of vec's dtype: its checks and messages */
    int64_t rsz = self->ndim ? self->sizes[0] : 1;
    wk_tensor *result = wk__empty(1, &rsz, vec->dtype);
    if (!result) return NULL;
    int rc = check_addmv(result, self, vec);
    wk_release(result);
    if (rc < 0) return NULL;
    if (vec->dtype == WK_BOOL) return bool_product(NULL, 1, &rsz, vec->sizes[0], wk_int(0), "addmv_impl_cpu");
    return mv_kernel(NULL, self, vec, wk_int(0), wk_int(1));
}

wk_tensor *wk_impl_addmv(wk_tensor *self, wk_tensor *mat, wk_tensor *vec, wk_scalar beta, wk_scalar alpha) {
    if (check_addmv(self, mat, vec) < 0 || check_alpha_beta(alpha, beta, self->dtype) < 0) return NULL;
    int64_t m = mat->sizes[0];
    wk_tensor *bias = expand_bias(self, 1, &m);
    if (!bias) return NULL;
    wk_tensor *r = self->dtype == WK_BOOL ? bool_product(bias, 1, &m, vec->sizes[0], beta, "addmv_impl_cpu")
                                          : mv_kernel(bias, mat, vec, beta, alpha);
    wk_release(bias);
    return r;
}

/* ---- dot / vdot ---- */
static wk_tensor *dot_common(wk_tensor *self, wk_tensor *other, const char *kernel) {
    if (self->ndim != 1 || other->ndim != 1) {
        wk__error(WK_RUNTIME_ERROR, "1D tensors expected, but got %dD and %dD tensors", self->ndim, other->ndim);
        return NULL;
    }
    if (self->dtype != other->dtype) {
        wk__error(WK_RUNTIME_ERROR, "dot : expected both vectors to have same dtype, but found %s and %s",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(other->dtype));
        return NULL;
    }
    if (self->sizes[0] != other->sizes[0]) {
        wk__error(WK_RUNTIME_ERROR,
                  "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of "
                  "elements, but got %lld and %lld elements respectively",
                  (long long)self->sizes[0], (long long)other->sizes[0], (long long)self->sizes[0],
                  (long long)other->sizes[0]);
        return NULL;
    }
    if (self->dtype == WK_BOOL) return not_implemented(kernel, self->dtype);
    int64_t k = self->sizes[0];
    /* with k <= 1 the strides are never stepped: any value (2**62, INT64_MIN) is legal there, so read with stride 1
     * rather than let the GEMM's byte offsets (stride * itemsize) overflow */
    int64_t sa = k > 1 ? self->strides[0] : 1, sb = k > 1 ? other->strides[0] : 1;
    int64_t asz[3] = {1, 1, k}, ast[3] = {0, 0, sa};
    int64_t bsz[3] = {1, k, 1}, bst[3] = {0, sb, 1};
    wk_tensor *a = wk__alias(self, 3, asz, ast, self->offset), *b = wk__alias(other, 3, bsz, bst, other->offset);
    wk_tensor *r = a && b ? gemm_tensors(a, b, NULL, wk_int(0), wk_int(1), 1, 1, 1, k, true) : NULL;
    wk_release(a);
    wk_release(b);
    if (!r) return NULL;
    wk_tensor *s = wk__alias(r, 0, NULL, NULL, 0);
    wk_release(r);
    return s;
}

wk_tensor *wk_impl_dot(wk_tensor *self, wk_tensor *tensor) { return dot_common(self, tensor, "dot"); }
wk_tensor *wk_impl_vdot(wk_tensor *self, wk_tensor *other) { return dot_common(self, other, "dot"); }

/* ---- trace ---- */
wk_tensor *wk_impl_trace(wk_tensor *self) {
    if (self->ndim != 2) {
        wk__error(WK_RUNTIME_ERROR, "trace: expected a matrix, but got tensor with dim %d", self->ndim);
        return NULL;
    }
    if (self->dtype == WK_BOOL) return not_implemented("trace", self->dtype);
    /* integers sum into int64, as sum() does */
    wk_dtype out_dt = wk_dtype_is_floating(self->dtype) ? self->dtype : WK_INT64;
    wk_tensor *r = wk__zeros(0, NULL, out_dt);
    if (!r) return NULL;
    int64_t n = self->sizes[0] < self->sizes[1] ? self->sizes[0] : self->sizes[1];
    const char *p = wk__data(self); /* [rows, cols] strided */
    size_t esz = wk_dtype_size(self->dtype);
    int64_t step = (self->strides[0] + self->strides[1]) * (int64_t)esz;
    if (wk_dtype_is_floating(self->dtype)) {
        double acc = 0; /* torch accumulates in the accumulate type: double for float/double */
        float facc = 0;
        for (int64_t i = 0; i < n; i++, p += step) {
            if (self->dtype == WK_FLOAT64 || self->dtype == WK_FLOAT32) acc += wk__load_double(p, self->dtype);
            else facc += (float)wk__load_double(p, self->dtype);
        }
        wk__store_scalar(wk__data(r), out_dt, wk_float(self->dtype == WK_FLOAT64 || self->dtype == WK_FLOAT32 ? acc : facc));
    } else {
        uint64_t acc = 0;
        for (int64_t i = 0; i < n; i++, p += step) acc += (uint64_t)wk__load_scalar(p, self->dtype).v.i;
        wk__store_scalar(wk__data(r), out_dt, wk_int((int64_t)acc));
    }
    return r;
}

wk_tensor *wk_impl_trace_backward(wk_tensor *grad, wk_intlist sizes) {
    if (sizes.len != 2) return WK_FAIL(WK_RUNTIME_ERROR, "expected matrix input");
    wk_tensor *g = wk__zeros(2, sizes.data, grad->dtype);
    if (!g) return NULL;
    wk_scalar v = wk__load_scalar(wk__data(grad), grad->dtype);
    int64_t n = sizes.data[0] < sizes.data[1] ? sizes.data[0] : sizes.data[1];
    size_t esz = wk_dtype_size(grad->dtype);
    for (int64_t i = 0; i < n; i++) wk__store_scalar(wk__data(g) + (size_t)(i * sizes.data[1] + i) * esz, grad->dtype, v);
    return g;
}

/* ---- composites (autograd: manual: the graph is made of the ops they call, as in torch) ----
 * Small helpers: every call returns a new reference or NULL; RELEASE drops a list of them. */
static void release_all(wk_tensor **ts, int n) {
    for (int i = 0; i < n; i++) wk_release(ts[i]);
}

static wk_tensor *reshape2(wk_tensor *t, int64_t a, int64_t b) {
    int64_t s[2] = {a, b};
    return wk_reshape(t, wk_ints(s, 2));
}

/* torch's matmul (LinearAlgebra.cpp _matmul_impl): dot / mv / mm for 1-D and 2-D operands; otherwise fold the
 * batch of the larger operand into mm/mv rows when that needs no copy (or the smaller operand requires grad),
 * else broadcast the batch dimensions and use bmm. */
static bool should_fold(wk_tensor *t1_, wk_tensor *t2_) {
    bool t1_larger = t1_->ndim >= t2_->ndim;
    int dim_t1 = t1_larger ? t1_->ndim : t2_->ndim, dim_t2 = t1_larger ? t2_->ndim : t1_->ndim;
    if (!(dim_t1 >= 3 && dim_t2 <= 2)) return false;
    if (wk__tensor_requires_grad(t1_larger ? t2_ : t1_)) return true;
    if (t1_->ndim == 2) return false;
    /* t1 = the larger operand (tensor2.mT() when tensor2 is larger) */
    const wk_tensor *t = t1_larger ? t1_ : t2_;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    if (!t1_larger) { /* mT */
        int64_t s = sizes[dim_t1 - 1], st = strides[dim_t1 - 1];
        sizes[dim_t1 - 1] = sizes[dim_t1 - 2];
        strides[dim_t1 - 1] = strides[dim_t1 - 2];
        sizes[dim_t1 - 2] = s;
        strides[dim_t1 - 2] = st;
    }
    if (wk__prod(sizes, dim_t1) == 0) return true;
    for (int i = 0; i < dim_t1 - 2; i++)
        if (strides[i] != strides[i + 1] * sizes[i + 1]) return false;
    return true;
}

wk_tensor *wk_impl_matmul(wk_tensor *tensor1, wk_tensor *tensor2) {
    int d1 = tensor1->ndim, d2 = tensor2->ndim;
    if (d1 == 0 || d2 == 0) {
        wk__error(WK_RUNTIME_ERROR, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2);
        return NULL;
    }
    if (d1 == 1 && d2 == 1) return wk_dot(tensor1, tensor2);
    if (d1 == 2 && d2 == 1) return wk_mv(tensor1, tensor2);
    if (d1 == 1 && d2 == 2) {
        wk_tensor *u = wk_unsqueeze(tensor1, 0), *m = u ? wk_mm(u, tensor2) : NULL;
        wk_release(u);
        if (!m) return NULL;
        wk_tensor *r = wk_squeeze__dim(m, 0); /* in place, as torch's squeeze_(0): SqueezeBackward4 */
        wk_release(m);
        return r;
    }
    if (d1 == 2 && d2 == 2) return wk_mm(tensor1, tensor2);
    if (should_fold(tensor1, tensor2)) {
        bool transpose = d2 > d1;
        wk_tensor *tmp[8] = {0};
        int nt = 0;
        wk_tensor *t1 = transpose ? (tmp[nt++] = wk_mT(tensor2)) : tensor1;
        wk_tensor *t2 = !transpose ? tensor2 : d1 == 2 ? (tmp[nt++] = wk_t(tensor1)) : tensor1;
        wk_tensor *r = NULL;
        if (t1 && t2) {
            int64_t out_shape[WK_MAX_DIM];
            int no = t1->ndim - 1;
            memcpy(out_shape, t1->sizes, sizeof(int64_t) * (size_t)no);
            int64_t folded = wk__prod(out_shape, no);
            bool t2_matrix = t2->ndim == 2;
            if (t2_matrix) out_shape[no++] = t2->sizes[1];
            wk_tensor *t1f = tmp[nt++] = reshape2(t1, folded, t1->sizes[t1->ndim - 1]);
            wk_tensor *prod = t1f ? (tmp[nt++] = t2_matrix ? wk_mm(t1f, t2) : wk_mv(t1f, t2)) : NULL;
            wk_tensor *out = prod ? wk__unsafe_view(prod, wk_ints(out_shape, no)) : NULL;
            if (out && transpose && t2_matrix) {
                wk_tensor *mt = wk_mT(out);
                wk_release(out);
                out = mt ? wk_contiguous(mt) : NULL;
                wk_release(mt);
            }
            r = out;
        }
        release_all(tmp, nt);
        return r;
    }
    /* batched: broadcast the batch dims, bmm, view back */
    int64_t n = d1 > 1 ? tensor1->sizes[d1 - 2] : 1, m1 = tensor1->sizes[d1 - 1];
    int64_t m2 = d2 > 1 ? tensor2->sizes[d2 - 2] : tensor2->sizes[0], p = d2 > 1 ? tensor2->sizes[d2 - 1] : 1;
    int nb1 = d1 > 2 ? d1 - 2 : 0, nb2 = d2 > 2 ? d2 - 2 : 0;
    if (d1 == 3 && d2 == 3 && tensor1->sizes[0] != tensor2->sizes[0]) {
        if (tensor1->sizes[0] == 1 && wk__tensor_requires_grad(tensor1)) {
            wk_tensor *s = wk_squeeze_dim(tensor1, 0), *r = s ? wk_impl_matmul(s, tensor2) : NULL;
            wk_release(s);
            return r;
        }
        if (tensor2->sizes[0] == 1 && wk__tensor_requires_grad(tensor2)) {
            wk_tensor *s = wk_squeeze_dim(tensor2, 0), *r = s ? wk_impl_matmul(tensor1, s) : NULL;
            wk_release(s);
            return r;
        }
    }
    int64_t out_shape[WK_MAX_DIM + 2];
    int nb;
    if (wk__broadcast_shapes(nb1, tensor1->sizes, nb2, tensor2->sizes, &nb, out_shape) < 0) return NULL;
    int64_t batch = wk__prod(out_shape, nb);
    int64_t e1[WK_MAX_DIM + 2], e2[WK_MAX_DIM + 2];
    memcpy(e1, out_shape, sizeof(int64_t) * (size_t)nb);
    memcpy(e2, out_shape, sizeof(int64_t) * (size_t)nb);
    e1[nb] = n;
    e1[nb + 1] = m1;
    bool vector_rhs = d2 == 1;
    int ne2 = nb;
    e2[ne2++] = m2;
    if (!vector_rhs) e2[ne2++] = p;
    if (nb + 2 > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "matmul: too many dimensions");
    wk_tensor *tmp[8] = {0};
    int nt = 0;
    wk_tensor *r = NULL;
    wk_tensor *x1 = tmp[nt++] = wk_expand(tensor1, wk_ints(e1, nb + 2), false);
    wk_tensor *x1r = x1 ? (tmp[nt++] = wk_reshape(x1, wk_ints((int64_t[]){batch, n, m1}, 3))) : NULL;
    wk_tensor *x2 = x1r ? (tmp[nt++] = wk_expand(tensor2, wk_ints(e2, ne2), false)) : NULL;
    wk_tensor *x2r = NULL;
    if (x2 && vector_rhs) {
        wk_tensor *f = tmp[nt++] = wk_reshape(x2, wk_ints((int64_t[]){batch, m2}, 2));
        x2r = f ? (tmp[nt++] = wk_unsqueeze(f, 2)) : NULL;
    } else if (x2) {
        x2r = tmp[nt++] = wk_reshape(x2, wk_ints((int64_t[]){batch, m2, p}, 3));
    }
    if (x2r) {
        if (d1 > 1) out_shape[nb++] = n;
        if (d2 > 1) out_shape[nb++] = p;
        wk_tensor *b = tmp[nt++] = wk_bmm(x1r, x2r);
        wk_tensor *bs = b && vector_rhs ? (tmp[nt++] = wk_squeeze_dim(b, -1)) : b;
        r = bs ? wk__unsafe_view(bs, wk_ints(out_shape, nb)) : NULL;
    }
    release_all(tmp, nt);
    return r;
}

/* outer: self.reshape(n, 1) * vec2 (MulBackward0 over a ViewBackward0) */
static int check_1d(const wk_tensor *t, const char *arg, const char *fn) {
    if (t->ndim != 1) {
        wk__error(WK_RUNTIME_ERROR, "%s: Expected 1-D argument %s, but got %d-D", fn, arg, t->ndim);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_outer(wk_tensor *self, wk_tensor *vec2) {
    if (check_1d(self, "self", "outer") < 0 || check_1d(vec2, "vec2", "outer") < 0) return NULL;
    wk_tensor *col = reshape2(self, self->sizes[0], 1);
    if (!col) return NULL;
    wk_tensor *r = wk_mul(col, vec2);
    wk_release(col);
    return r;
}

/* tensordot (Linear.cpp): sum broadcast (size-1) contracted dims right away, permute the contracted dims
 * together, and contract with one mm (with dot when nothing is left uncontracted, as torch 2.13 does). */
wk_tensor *wk_impl_tensordot(wk_tensor *self, wk_tensor *other, wk_intlist dims_self, wk_intlist dims_other) {
    if (dims_self.len != dims_other.len) return WK_FAIL(WK_RUNTIME_ERROR, "both dimension lists should have same length");
    if (self->dtype != other->dtype) return WK_FAIL(WK_RUNTIME_ERROR, "both inputs should have same dtype");
    int nd = (int)dims_self.len;
    if (nd > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "tensordot: too many dims");
    int64_t c1[WK_MAX_DIM], c2[WK_MAX_DIM]; /* [nd] wrapped contracted dims */
    bool in1[WK_MAX_DIM] = {false}, in2[WK_MAX_DIM] = {false};
    for (int i = 0; i < nd; i++) {
        if (wk__wrap_dim(dims_self.data[i], self->ndim, &c1[i]) < 0) return NULL;
        if (wk__wrap_dim(dims_other.data[i], other->ndim, &c2[i]) < 0) return NULL;
    }
    wk_tensor *tmp[8 + 2 * WK_MAX_DIM] = {0};
    int nt = 0;
    wk_tensor *t1 = self, *t2 = other, *r = NULL;
    int64_t csize = 1;
    for (int i = 0; i < nd; i++) {
        int64_t s1 = self->sizes[c1[i]], s2 = other->sizes[c2[i]];
        if (s2 == 1) {
            t1 = tmp[nt++] = wk_sum_dim(t1, wk_ints(&c1[i], 1), true, t1->dtype); /* torch: in its own dtype */
        } else if (s1 == 1) {
            t2 = tmp[nt++] = wk_sum_dim(t2, wk_ints(&c2[i], 1), true, t2->dtype);
        } else if (s1 != s2) {
            wk__error(WK_RUNTIME_ERROR,
                      "contracted dimensions need to match, but first has size %lld in dim %lld and second has size "
                      "%lld in dim %lld",
                      (long long)s1, (long long)dims_self.data[i], (long long)s2, (long long)dims_other.data[i]);
            goto done;
        } else {
            csize *= s1;
        }
        if (!t1 || !t2) goto done;
    }
    for (int i = 0; i < nd; i++) { /* torch's dim_list_to_bitset */
        if (in1[c1[i]]) {
            wk__error(WK_RUNTIME_ERROR, "dim %lld appears multiple times in the list of dims", (long long)c1[i]);
            goto done;
        }
        in1[c1[i]] = true;
    }
    for (int i = 0; i < nd; i++) {
        if (in2[c2[i]]) {
            wk__error(WK_RUNTIME_ERROR, "dim %lld appears multiple times in the list of dims", (long long)c2[i]);
            goto done;
        }
        in2[c2[i]] = true;
    }
    int64_t p1[WK_MAX_DIM], p2[WK_MAX_DIM], rsizes[2 * WK_MAX_DIM];
    int n1 = 0, n2 = 0, nr = 0;
    int64_t size1 = 1, size2 = 1;
    for (int i = 0; i < self->ndim; i++)
        if (!in1[i]) {
            p1[n1++] = i;
            size1 *= t1->sizes[i];
            rsizes[nr++] = t1->sizes[i];
        }
    for (int i = 0; i < nd; i++) p1[n1++] = c1[i];
    for (int i = 0; i < nd; i++) p2[n2++] = c2[i];
    for (int i = 0; i < other->ndim; i++)
        if (!in2[i]) {
            p2[n2++] = i;
            size2 *= t2->sizes[i];
            rsizes[nr++] = t2->sizes[i];
        }
    if (nr > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
        goto done;
    }
    wk_tensor *q1 = tmp[nt++] = wk_permute(t1, wk_ints(p1, n1));
    wk_tensor *q2 = q1 ? (tmp[nt++] = wk_permute(t2, wk_ints(p2, n2))) : NULL;
    if (!q2) goto done;
    wk_tensor *prod;
    if (size1 == 1 && size2 == 1) {
        wk_tensor *f1 = tmp[nt++] = wk_reshape(q1, wk_ints(&csize, 1));
        wk_tensor *f2 = f1 ? (tmp[nt++] = wk_reshape(q2, wk_ints(&csize, 1))) : NULL;
        prod = f2 ? (tmp[nt++] = wk_dot(f1, f2)) : NULL;
    } else {
        wk_tensor *f1 = tmp[nt++] = reshape2(q1, size1, csize);
        wk_tensor *f2 = f1 ? (tmp[nt++] = reshape2(q2, csize, size2)) : NULL;
        prod = f2 ? (tmp[nt++] = wk_mm(f1, f2)) : NULL;
    }
    if (prod) r = wk_reshape(prod, wk_ints(rsizes, nr));
done:
    for (int i = 0; i < nt; i++) wk_release(tmp[i]);
    return r;
}

/* inner: self * other for 0-d operands, else tensordot over the last dims */
wk_tensor *wk_impl_inner(wk_tensor *self, wk_tensor *other) {
    if (self->ndim == 0 || other->ndim == 0) return wk_mul(self, other);
    if (self->sizes[self->ndim - 1] != other->sizes[other->ndim - 1]) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, self->sizes, self->ndim);
        wk_sb_ints(&b, other->sizes, other->ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "inner() the last dimension must match on both input tensors but got shapes %s and %s",
                  a.s ? a.s : "", b.s ? b.s : "");
        wk_sb_free(&a);
        wk_sb_free(&b);
        return NULL;
    }
    int64_t m1 = -1;
    return wk_tensordot(self, other, wk_ints(&m1, 1), wk_ints(&m1, 1));
}

/* kron: interleave size-1 dims, multiply with broadcasting, view back (UnsafeView -> Mul -> UnsafeView) */
wk_tensor *wk_impl_kron(wk_tensor *self, wk_tensor *other) {
    int maxdim = self->ndim > other->ndim ? self->ndim : other->ndim;
    if (2 * maxdim > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "kron: too many dimensions for wick");
    int ps = maxdim - self->ndim, po = maxdim - other->ndim;
    int64_t ar[WK_MAX_DIM], br[WK_MAX_DIM], rr[WK_MAX_DIM];
    for (int i = 0; i < maxdim; i++) {
        ar[2 * i] = i >= ps ? self->sizes[i - ps] : 1;
        ar[2 * i + 1] = 1;
        br[2 * i] = 1;
        br[2 * i + 1] = i >= po ? other->sizes[i - po] : 1;
        rr[i] = ar[2 * i] * br[2 * i + 1];
    }
    wk_tensor *a = wk__unsafe_view(self, wk_ints(ar, 2 * maxdim));
    wk_tensor *b = a ? wk__unsafe_view(other, wk_ints(br, 2 * maxdim)) : NULL;
    wk_tensor *m = b ? wk_mul(a, b) : NULL;
    wk_tensor *r = m ? wk__unsafe_view(m, wk_ints(rr, maxdim)) : NULL;
    wk_release(a);
    wk_release(b);
    wk_release(m);
    return r;
}

/* ---- einsum (Linear.cpp): parse, align every operand to [output dims..., contracted dims...] (diagonals for
 * repeated labels, unsqueeze for missing ones, permute), then contract left to right with sumproduct_pair
 * (permute + reshape + bmm), and sum or view away the contracted dims. ---- */
#define EIN_LETTERS 26
#define EIN_LABELS 52
#define EIN_ELLIPSIS 52

static int ein_label(unsigned char c) { return isupper(c) ? c - 'A' : c - 'a' + EIN_LETTERS; }
static char ein_char(int s) { return (char)(s < EIN_LETTERS ? s + 'A' : s + 'a' - EIN_LETTERS); }

/* (left * right).sum(sum_dims, keepdim=True) through bmm; operands have equal ndim (broadcastable). */
static wk_tensor *sumproduct_pair(wk_tensor *left_, wk_tensor *right_, const int64_t *sum_dims_, int nsum) {
    if (nsum == 0) return wk_mul(left_, right_);
    int dim = left_->ndim;
    bool is_sum[WK_MAX_DIM] = {false};
    for (int i = 0; i < nsum; i++) is_sum[sum_dims_[i]] = true;
    int64_t lro[WK_MAX_DIM], lo[WK_MAX_DIM], ro[WK_MAX_DIM];
    int nlro = 0, nlo = 0, nro = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    wk_tensor *tmp[16] = {0};
    int nt = 0;
    wk_tensor *left = left_, *right = right_, *r = NULL;
    for (int i = 0; i < dim; i++) {
        bool sl = left->sizes[i] != 1, sr = right->sizes[i] != 1;
        int64_t di = i;
        if (is_sum[i]) {
            if (sl && sr) {
                if (left->sizes[i] != right->sizes[i]) {
                    wk__error(WK_RUNTIME_ERROR, "non-broadcast dimensions must match");
                    goto done;
                }
                sum_size *= left->sizes[i];
            } else if (sl) {
                if (nt >= 14) goto done;
                left = tmp[nt++] = wk_sum_dim(left, wk_ints(&di, 1), true, WK_DTYPE_NONE);
                if (!left) goto done;
            } else if (sr) {
                if (nt >= 14) goto done;
                right = tmp[nt++] = wk_sum_dim(right, wk_ints(&di, 1), true, WK_DTYPE_NONE);
                if (!right) goto done;
            }
        } else if (sl && sr) {
            if (left->sizes[i] != right->sizes[i]) {
                wk__error(WK_RUNTIME_ERROR, "non-broadcast dimensions must match");
                goto done;
            }
            lro[nlro++] = i;
            lro_size *= left->sizes[i];
        } else if (sl) {
            lo[nlo++] = i;
            lo_size *= left->sizes[i];
        } else {
            ro[nro++] = i;
            ro_size *= right->sizes[i];
        }
    }
    int64_t out_size[WK_MAX_DIM], lperm[WK_MAX_DIM], rperm[WK_MAX_DIM], operm[WK_MAX_DIM];
    int no = 0, nl = 0, nr = 0;
    for (int i = 0; i < nlro; i++) out_size[no++] = left->sizes[lro[i]];
    for (int i = 0; i < nlo; i++) out_size[no++] = left->sizes[lo[i]];
    for (int i = 0; i < nsum; i++) out_size[no++] = 1;
    for (int i = 0; i < nro; i++) out_size[no++] = right->sizes[ro[i]];
    for (int i = 0; i < nlro; i++) lperm[nl++] = lro[i];
    for (int i = 0; i < nlo; i++) lperm[nl++] = lo[i];
    for (int i = 0; i < nsum; i++) lperm[nl++] = sum_dims_[i];
    for (int i = 0; i < nro; i++) lperm[nl++] = ro[i];
    for (int i = 0; i < nlro; i++) rperm[nr++] = lro[i];
    for (int i = 0; i < nsum; i++) rperm[nr++] = sum_dims_[i];
    for (int i = 0; i < nro; i++) rperm[nr++] = ro[i];
    for (int i = 0; i < nlo; i++) rperm[nr++] = lo[i];
    {
        int k = 0;
        for (int i = 0; i < nlro; i++) operm[lro[i]] = k++;
        for (int i = 0; i < nlo; i++) operm[lo[i]] = k++;
        for (int i = 0; i < nsum; i++) operm[sum_dims_[i]] = k++;
        for (int i = 0; i < nro; i++) operm[ro[i]] = k++;
    }
    wk_tensor *lp = tmp[nt++] = wk_permute(left, wk_ints(lperm, nl));
    wk_tensor *l3 = lp ? (tmp[nt++] = wk_reshape(lp, wk_ints((int64_t[]){lro_size, lo_size, sum_size}, 3))) : NULL;
    wk_tensor *rp = l3 ? (tmp[nt++] = wk_permute(right, wk_ints(rperm, nr))) : NULL;
    wk_tensor *r3 = rp ? (tmp[nt++] = wk_reshape(rp, wk_ints((int64_t[]){lro_size, sum_size, ro_size}, 3))) : NULL;
    wk_tensor *b = r3 ? (tmp[nt++] = wk_bmm(l3, r3)) : NULL;
    wk_tensor *v = b ? (tmp[nt++] = wk_view(b, wk_ints(out_size, no))) : NULL;
    if (v) r = wk_permute(v, wk_ints(operm, no));
done:
    release_all(tmp, nt);
    return r;
}

wk_tensor *wk_impl_einsum(const char *equation, wk_tensorlist tensors, wk_intlist path) {
    int64_t num_ops = tensors.len;
    if (num_ops == 0) return WK_FAIL(WK_RUNTIME_ERROR, "einsum(): must provide at least one operand");
    if (num_ops > 64) return WK_FAIL(WK_RUNTIME_ERROR, "einsum(): wick takes at most 64 operands");
    if (path.data) {
        int64_t path_size = num_ops == 1 ? 1 : (num_ops - 1) * 2;
        if (path.len != path_size) {
            wk__error(WK_RUNTIME_ERROR,
                      "einsum(): expected contraction path given in path parameter to have size %lld but got %lld",
                      (long long)path_size, (long long)path.len);
            return NULL;
        }
    }
    const char *arrow = strstr(equation, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - equation) : strlen(equation);
    /* op_labels[i]: the subscripts of operand i (EIN_ELLIPSIS for "...") */
    uint8_t(*op_labels)[WK_MAX_DIM + 1] = calloc((size_t)num_ops, sizeof *op_labels);
    int *nlab = calloc((size_t)num_ops, sizeof *nlab);
    wk_tensor **ops = calloc((size_t)num_ops, sizeof *ops); /* the aligned operands (owned) */
    wk_tensor *result = NULL;
    if (!op_labels || !nlab || !ops) {
        wk__error(WK_MEMORY_ERROR, "einsum: out of memory");
        goto done;
    }
    bool ell_in_input = false;
    int64_t cur = 0;
    for (size_t i = 0; i < lhs_len; i++) {
        unsigned char c = (unsigned char)equation[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (ell_in_input) {
                wk__error(WK_RUNTIME_ERROR, "einsum(): found '.' for operand %lld for which an ellipsis was already found",
                          (long long)cur);
                goto done;
            }
            if (!(i + 2 < lhs_len && equation[i + 1] == '.' && equation[i + 2] == '.')) {
                wk__error(WK_RUNTIME_ERROR, "einsum(): found '.' for operand %lld that is not part of any ellipsis",
                          (long long)cur);
                goto done;
            }
            i += 2;
            if (nlab[cur] > WK_MAX_DIM) goto too_many;
            op_labels[cur][nlab[cur]++] = EIN_ELLIPSIS;
            ell_in_input = true;
        } else if (c == ',') {
            cur++;
            if (cur >= num_ops) {
                wk__error(WK_RUNTIME_ERROR, "einsum(): fewer operands were provided than specified in the equation");
                goto done;
            }
            ell_in_input = false;
        } else {
            if (!isalpha(c)) {
                wk__error(WK_RUNTIME_ERROR,
                          "einsum(): invalid subscript given at index %zu in the equation string, subscripts must be in "
                          "[a-zA-Z]",
                          i);
                goto done;
            }
            if (nlab[cur] > WK_MAX_DIM) goto too_many;
            op_labels[cur][nlab[cur]++] = (uint8_t)ein_label(c);
        }
    }
    if (cur != num_ops - 1) {
        wk__error(WK_RUNTIME_ERROR, "einsum(): more operands were provided than specified in the equation");
        goto done;
    }
    int64_t label_count[EIN_LABELS] = {0};
    int64_t ell_num_dim = 0;
    for (int64_t i = 0; i < num_ops; i++) {
        int ndims = tensors.data[i]->ndim;
        int64_t n = nlab[i];
        bool has_ell = false;
        for (int j = 0; j < nlab[i]; j++) {
            if (op_labels[i][j] == EIN_ELLIPSIS) {
                n--;
                has_ell = true;
                if (ndims - n > ell_num_dim) ell_num_dim = ndims - n;
            } else {
                label_count[op_labels[i][j]]++;
            }
        }
        if (has_ell ? n > ndims : n != ndims) {
            wk__error(WK_RUNTIME_ERROR,
                      "einsum(): the number of subscripts in the equation (%lld) %s the number of dimensions (%d) for "
                      "operand %lld%s",
                      (long long)n, has_ell ? "is more than" : "does not match", ndims, (long long)i,
                      has_ell ? "" : " and no ellipsis was given");
            goto done;
        }
    }
    /* where each label goes in the aligned shape: output dims first, then contracted ones */
    int64_t label_perm[EIN_LABELS];
    for (int l = 0; l < EIN_LABELS; l++) label_perm[l] = -1;
    int64_t perm_index = 0, ell_index = 0;
    bool ell_in_output = false;
    if (!arrow) {
        perm_index = ell_num_dim;
        ell_in_output = true;
        for (int l = 0; l < EIN_LABELS; l++)
            if (label_count[l] == 1) label_perm[l] = perm_index++;
    } else {
        const char *rhs = arrow + 2;
        size_t rlen = strlen(rhs);
        for (size_t i = 0; i < rlen; i++) {
            unsigned char c = (unsigned char)rhs[i];
            if (c == ' ') continue;
            if (c == '.') {
                if (ell_in_output) {
                    wk__error(WK_RUNTIME_ERROR,
                              "einsum(): found '.' for output but an ellipsis (...) was already found");
                    goto done;
                }
                if (!(i + 2 < rlen && rhs[i + 1] == '.' && rhs[i + 2] == '.')) {
                    wk__error(WK_RUNTIME_ERROR, "einsum(): found '.' for output that is not part of any ellipsis (...)");
                    goto done;
                }
                i += 2;
                ell_index = perm_index;
                perm_index += ell_num_dim;
                ell_in_output = true;
            } else {
                if (!isalpha(c)) {
                    wk__error(WK_RUNTIME_ERROR,
                              "einsum(): invalid subscript given at index %zu in the equation string, subscripts must "
                              "be in [a-zA-Z]",
                              lhs_len + 2 + i);
                    goto done;
                }
                int s = ein_label(c);
                if (!(label_count[s] > 0 && label_perm[s] == -1)) {
                    wk__error(WK_RUNTIME_ERROR, "einsum(): output subscript %c %s", c,
                              label_perm[s] > -1 ? "appears more than once in the output"
                                                 : "does not appear in the equation for any input operand");
                    goto done;
                }
                label_perm[s] = perm_index++;
            }
        }
    }
    int64_t out_num_dim = perm_index;
    if (!ell_in_output) {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for (int l = 0; l < EIN_LABELS; l++)
        if (label_count[l] > 0 && label_perm[l] == -1) label_perm[l] = perm_index++;
    if (perm_index > WK_MAX_DIM) goto too_many;
    /* align the operands */
    int64_t label_size[EIN_LABELS], ell_sizes[WK_MAX_DIM], dim_counts[WK_MAX_DIM] = {0};
    for (int l = 0; l < EIN_LABELS; l++) label_size[l] = 1;
    for (int j = 0; j < WK_MAX_DIM; j++) ell_sizes[j] = 1;
    for (int64_t i = 0; i < num_ops; i++) {
        wk_tensor *op = wk_retain(tensors.data[i]);
        int64_t perm[WK_MAX_DIM];
        for (int j = 0; j < perm_index; j++) perm[j] = -1;
        int64_t dim = 0;
        for (int q = 0; q < nlab[i]; q++) {
            int s = op_labels[i][q];
            if (s == EIN_ELLIPSIS) {
                int64_t ndim = tensors.data[i]->ndim - (nlab[i] - 1);
                for (int64_t j = ell_num_dim - ndim; j < ell_num_dim; j++) {
                    if (op->sizes[dim] != 1) {
                        if (!(ell_sizes[j] == 1 || ell_sizes[j] == op->sizes[dim])) {
                            wk__error(WK_RUNTIME_ERROR,
                                      "einsum(): dimension %lld covered by ellipsis in operand %lldhas size %lld which "
                                      "does not broadcast with previously seen ellipsis with size %lld for the "
                                      "respective dimension",
                                      (long long)dim, (long long)i, (long long)op->sizes[dim], (long long)ell_sizes[j]);
                            wk_release(op);
                            goto done;
                        }
                        ell_sizes[j] = op->sizes[dim];
                        dim_counts[ell_index + j]++;
                    }
                    perm[ell_index + j] = dim++;
                }
            } else if (perm[label_perm[s]] == -1) {
                if (op->sizes[dim] != 1) {
                    if (!(label_size[s] == 1 || label_size[s] == op->sizes[dim])) {
                        wk__error(WK_RUNTIME_ERROR,
                                  "einsum(): subscript %c has size %lld for operand %lld which does not broadcast with "
                                  "previously seen size %lld",
                                  ein_char(s), (long long)op->sizes[dim], (long long)i, (long long)label_size[s]);
                        wk_release(op);
                        goto done;
                    }
                    label_size[s] = op->sizes[dim];
                    dim_counts[label_perm[s]]++;
                }
                perm[label_perm[s]] = dim++;
            } else { /* repeated label: take the diagonal */
                int64_t prev = perm[label_perm[s]];
                if (op->sizes[dim] != op->sizes[prev]) {
                    wk__error(WK_RUNTIME_ERROR,
                              "einsum(): subscript %c is repeated for operand %lld but the sizes don't match, %lld != "
                              "%lld",
                              ein_char(s), (long long)i, (long long)op->sizes[dim], (long long)op->sizes[prev]);
                    wk_release(op);
                    goto done;
                }
                wk_tensor *d = wk_diagonal(op, 0, prev, dim);
                wk_tensor *mv = d ? wk_movedim_int(d, -1, prev) : NULL;
                wk_release(d);
                wk_release(op);
                op = mv;
                if (!op) goto done;
            }
        }
        for (int j = 0; j < perm_index; j++)
            if (perm[j] == -1) {
                wk_tensor *u = wk_unsqueeze(op, dim);
                wk_release(op);
                op = u;
                if (!op) goto done;
                perm[j] = dim++;
            }
        ops[i] = wk_permute(op, wk_ints(perm, perm_index));
        wk_release(op);
        if (!ops[i]) goto done;
    }
    /* contract pairs: (0, 1) by default, the result in front; or as the path says, the result at the back */
    int64_t nleft = num_ops;
    const int64_t *it = path.data;
    while (nleft > 1) {
        int64_t i = 0, j = 1;
        if (path.data) {
            i = *it++;
            j = *it++;
            if (j < i) {
                int64_t t = i;
                i = j;
                j = t;
            }
            if (!(i != j && i >= 0 && j < nleft)) {
                wk__error(WK_RUNTIME_ERROR, "einsum(): invalid contraction (%lld, %lld%s", (long long)i, (long long)j,
                          i == j ? ") cannot contract an operand with itself" : ") operand index is out of bounds");
                goto done;
            }
        }
        wk_tensor *a = ops[i], *b = ops[j];
        memmove(ops + j, ops + j + 1, sizeof(wk_tensor *) * (size_t)(nleft - j - 1));
        memmove(ops + i, ops + i + 1, sizeof(wk_tensor *) * (size_t)(nleft - i - 1));
        nleft -= 2;
        ops[nleft] = ops[nleft + 1] = NULL; /* slots past nleft stay empty */
        int64_t sum_dims[WK_MAX_DIM], a_sum[WK_MAX_DIM], b_sum[WK_MAX_DIM];
        int ns = 0, nas = 0, nbs = 0;
        for (int64_t d = out_num_dim; d < perm_index; d++) {
            if (a->sizes[d] != 1 && b->sizes[d] != 1) {
                if (--dim_counts[d] == 1) {
                    sum_dims[ns++] = d;
                    dim_counts[d] = 0;
                }
            } else if (dim_counts[d] == 1) {
                if (a->sizes[d] != 1) {
                    a_sum[nas++] = d;
                    dim_counts[d] = 0;
                } else if (b->sizes[d] != 1) {
                    b_sum[nbs++] = d;
                    dim_counts[d] = 0;
                }
            }
        }
        if (nas) {
            wk_tensor *s = wk_sum_dim(a, wk_ints(a_sum, nas), true, WK_DTYPE_NONE);
            wk_release(a);
            a = s;
        }
        if (nbs && a) {
            wk_tensor *s = wk_sum_dim(b, wk_ints(b_sum, nbs), true, WK_DTYPE_NONE);
            wk_release(b);
            b = s;
        }
        wk_tensor *c = a && b ? sumproduct_pair(a, b, sum_dims, ns) : NULL;
        wk_release(a);
        wk_release(b);
        if (!c) goto done;
        if (path.data) {
            ops[nleft++] = c;
        } else {
            memmove(ops + 1, ops, sizeof(wk_tensor *) * (size_t)nleft);
            ops[0] = c;
            nleft++;
        }
    }
    if (perm_index - out_num_dim > 0) {
        if (num_ops > 1) {
            int64_t sizes[WK_MAX_DIM];
            memcpy(sizes, ops[0]->sizes, sizeof(int64_t) * (size_t)out_num_dim);
            result = wk_view(ops[0], wk_ints(sizes, out_num_dim));
        } else {
            int64_t sd[WK_MAX_DIM];
            for (int64_t d = out_num_dim; d < perm_index; d++) sd[d - out_num_dim] = d;
            result = wk_sum_dim(ops[0], wk_ints(sd, perm_index - out_num_dim), false, WK_DTYPE_NONE);
        }
    } else {
        result = wk_retain(ops[0]);
    }
    goto done;
too_many:
    wk__error(WK_RUNTIME_ERROR, "einsum(): wick supports tensors of at most %d dimensions", WK_MAX_DIM);
done:
    if (ops)
        for (int64_t k = 0; k < num_ops; k++) wk_release(ops[k]);
    free(op_labels);
    free(nlab);
    free(ops);
    return result;
}

/* ---- out= dtype rules (the out_check of the op table): torch's products write only into an out tensor of the
 * result's dtype, each with its own message ---- */
static int out_mismatch(const wk_tensor *out, const wk_tensor *r) { return out->dtype != r->dtype; }

int wk__out_exact_dtype(const wk_tensor *out, const wk_tensor *result) {
    if (!out_mismatch(out, result)) return 0;
    wk__error(WK_RUNTIME_ERROR, "Expected out tensor to have dtype %s, but got %s instead", CPP_NAME[result->dtype],
              CPP_NAME[out->dtype]);
    return -1;
}

int wk__out_check_mv(const wk_tensor *out, const wk_tensor *result) {
    if (!out_mismatch(out, result)) return 0;
    wk__error(WK_RUNTIME_ERROR, "addmv input tensors must have the same dtype, but got %s, %s, and %s",
              wk_dtype_scalar_name(out->dtype), wk_dtype_scalar_name(result->dtype),
              wk_dtype_scalar_name(result->dtype));
    return -1;
}

int wk__out_check_dot(const wk_tensor *out, const wk_tensor *result) {
    if (!out_mismatch(out, result)) return 0;
    wk__error(WK_RUNTIME_ERROR, "result dtype %s does not match input dtype %s", wk_dtype_scalar_name(out->dtype),
              wk_dtype_scalar_name(result->dtype));
    return -1;
}

int wk__out_check_addbmm(const wk_tensor *out, const wk_tensor *result) {
    if (!out_mismatch(out, result)) return 0;
    wk__error(WK_RUNTIME_ERROR, "self and mat2 must have the same dtype, but got %s and %s",
              wk_dtype_scalar_name(out->dtype), wk_dtype_scalar_name(result->dtype));
    return -1;
}

int wk__out_check_tensordot(const wk_tensor *out, const wk_tensor *result) {
    if (!out_mismatch(out, result)) return 0;
    wk__error(WK_RUNTIME_ERROR,
              "tensordot: Expected the output tensor to have dtype %s, but got an output tensor with dtype %s",
              wk_dtype_scalar_name(result->dtype), wk_dtype_scalar_name(out->dtype));
    return -1;
}
