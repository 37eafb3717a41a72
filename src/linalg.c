/* linalg.c — matrix products. The reference kernels here are the naive ones; fast GEMM lives in cpu/gemm.c. */
#include "autograd.h"
#include "ops_impl.h"

/* C[m,n] = A[m,k] @ B[k,n] with element strides; accumulate in ACC_T. Reference kernel. */
#define MM_REF(NAME, T, ACC_T, LD, ST)                                                                   \
    static void NAME(const char *a, const char *b, char *c, int64_t m, int64_t n, int64_t k, int64_t sam, \
                     int64_t sak, int64_t sbk, int64_t sbn, int64_t scm, int64_t scn) {                  \
        for (int64_t i = 0; i < m; i++)                                                                  \
            for (int64_t j = 0; j < n; j++) {                                                            \
                ACC_T acc = 0;                                                                           \
                for (int64_t p = 0; p < k; p++)                                                          \
                    acc += (ACC_T)LD(((const T *)a)[i * sam + p * sak]) * (ACC_T)LD(((const T *)b)[p * sbk + j * sbn]); \
                ((T *)c)[i * scm + j * scn] = ST(acc);                                                   \
            }                                                                                            \
    }
#define ID(x) (x)
#define F16(x) wk__half_to_float(x)
#define TOF16(x) wk__float_to_half((float)(x))
#define BF16(x) wk__bf16_to_float(x)
#define TOBF16(x) wk__float_to_bf16((float)(x))
#define TOI(T) (T)(uint64_t)
MM_REF(mm_f32, float, float, ID, (float))
MM_REF(mm_f64, double, double, ID, (double))
MM_REF(mm_f16, uint16_t, float, F16, TOF16)
MM_REF(mm_bf16, uint16_t, float, BF16, TOBF16)
MM_REF(mm_i64, int64_t, int64_t, ID, (int64_t))
MM_REF(mm_i32, int32_t, int64_t, ID, (int32_t))
MM_REF(mm_i16, int16_t, int64_t, ID, (int16_t))
MM_REF(mm_i8, int8_t, int64_t, ID, (int8_t))
MM_REF(mm_u8, uint8_t, int64_t, ID, (uint8_t))

typedef void (*mm_fn)(const char *, const char *, char *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, int64_t, int64_t);
static const mm_fn MM[WK_NUM_DTYPES] = {
    [WK_FLOAT32] = mm_f32, [WK_FLOAT64] = mm_f64, [WK_FLOAT16] = mm_f16, [WK_BFLOAT16] = mm_bf16, [WK_INT64] = mm_i64,
    [WK_INT32] = mm_i32,   [WK_INT16] = mm_i16,   [WK_INT8] = mm_i8,     [WK_UINT8] = mm_u8,
};

wk_tensor *wk_impl_mm(wk_tensor *self, wk_tensor *mat2) {
    if (self->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "self must be a matrix");
    if (mat2->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "mat2 must be a matrix");
    if (self->sizes[1] != mat2->sizes[0]) {
        wk__error(WK_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                  (long long)self->sizes[0], (long long)self->sizes[1], (long long)mat2->sizes[0],
                  (long long)mat2->sizes[1]);
        return NULL;
    }
    if (self->dtype != mat2->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                  wk_dtype_name(self->dtype) + (wk_dtype_is_floating(self->dtype) ? 0 : 0),
                  wk_dtype_name(mat2->dtype));
        return NULL;
    }
    mm_fn f = MM[self->dtype];
    if (!f) {
        wk__error(WK_RUNTIME_ERROR, "\"addmm_impl_cpu_\" not implemented for '%s'", wk_dtype_scalar_name(self->dtype));
        return NULL;
    }
    int64_t m = self->sizes[0], k = self->sizes[1], n = mat2->sizes[1];
    int64_t shape[2] = {m, n};
    wk_tensor *c = wk__empty(2, shape, self->dtype);
    if (!c) return NULL;
    f(wk__data(self), wk__data(mat2), wk__data(c), m, n, k, self->strides[0], self->strides[1], mat2->strides[0],
      mat2->strides[1], n, 1);
    return c;
}
