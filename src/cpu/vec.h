/* vec.h — the float32 elementwise and reduction kernels (written once in vec_impl.h against simd.h), chosen at
 * run time: AVX2+FMA on x86 CPUs that have it (vec_avx2.c), else the build's native ISA (vec.c: wasm simd128,
 * NEON or scalar). Each fast kernel has a naive reference (wk__vec_ref) that the C tests compare it with.
 *
 * Every kernel works on plain contiguous arrays; callers do the strided gathering and the threading. */
#ifndef WK_VEC_H
#define WK_VEC_H

#include "core/core.h"

typedef struct {
    const char *name; /* "avx2", "wasm-simd128", "neon", "scalar", "reference" */
    /* y[i] = exp(x[i]) (<= 1 ulp, libm's inf / nan / overflow / underflow), y[i] = 1 / (1 + exp(-x[i])) */
    void (*exp)(const float *x, float *y, int64_t n);
    void (*sigmoid)(const float *x, float *y, int64_t n);
    /* y = x - s (s a scalar); sum of exp(y) returned (when `store`, y[i] = exp(x[i] - s) is stored) */
    float (*exp_sub_sum)(const float *x, float *y, int64_t n, float s, int store);
    /* y[i] = x[i] * s */
    void (*scale)(const float *x, float *y, int64_t n, float s);
    /* y[i] = x[i] - s */
    void (*sub_scalar)(const float *x, float *y, int64_t n, float s);
    /* per column j < n: y[j] = exp(x[j] - m[j]); s[j] += y[j]   (softmax over a non-inner dim) */
    void (*exp_sub_acc)(const float *x, const float *m, float *y, float *s, int64_t n);
    /* y[j] = x[j] * r[j];  y[j] = (x[j] - a[j]) - b[j] */
    void (*mul_cols)(const float *x, const float *r, float *y, int64_t n);
    void (*sub2_cols)(const float *x, const float *a, const float *b, float *y, int64_t n);
    /* max of x[0..n) (n >= 1): NaN if any element is NaN */
    float (*max)(const float *x, int64_t n);
    /* m[j] = max(m[j], x[j]) with NaN propagating, j < n (the rows of a column reduction) */
    void (*max_rows)(const float *x, float *m, int64_t n);
    /* torch's cascade sum of a contiguous row (SumKernel.cpp: vectorized_inner_sum, `lanes` accumulator lanes) */
    float (*sum_inner)(const float *x, int64_t n, int lanes);
    /* torch's cascade sums of the columns x[0..rows) [c], c in [0, cols), row stride ld (vectorized_outer_sum) */
    void (*sum_outer)(const float *x, int64_t rows, int64_t cols, int64_t ld, float *out, int lanes);
    /* o[i] = a[i * sa] + b[i * sb] and a[i * sa] * b[i * sb], i < n: element strides, any (0: a broadcast scalar) */
    void (*add)(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n);
    void (*sub)(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n); /* a - b */
    void (*mul)(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n);
    /* o[i] = fmaf(b[i * sb], alpha, a[i * sa]): torch's float add with alpha (one rounding) */
    void (*add_alpha)(const float *a, int64_t sa, const float *b, int64_t sb, float alpha, float *o, int64_t n);
    /* o[i] = x < 0 ? 0 : x with x = x[i * sx] (relu: NaN and -0.0 pass through) */
    void (*relu)(const float *x, int64_t sx, float *o, int64_t n);
    /* o[i] = x[i * sx] <= th ? 0 : g[i * sg] (threshold_backward: NaN x passes g through) */
    void (*threshold_bw)(const float *g, int64_t sg, const float *x, int64_t sx, float th, float *o, int64_t n);
    /* o[i] = x[i * sx], i < n */
    void (*gather)(const float *x, int64_t sx, float *o, int64_t n);
} wk_vec_ops;

WK_INTERNAL const wk_vec_ops *wk__vec(void);     /* the fastest the CPU runs */
WK_INTERNAL const wk_vec_ops *wk__vec_base(void); /* the build's native ISA, without run-time dispatch */
WK_INTERNAL const wk_vec_ops *wk__vec_ref(void);  /* naive references: libm, plain loops */
WK_INTERNAL bool wk__cpu_avx512_core(void); /* Note [CPU-dependent paths in torch] (vec.c) */
WK_INTERNAL bool wk__cpu_avx512_fp16(void);
WK_INTERNAL int wk__vec_sum_lanes(void); /* the lanes of torch's float sum kernel: 8 (see vec.c) */

/* Loop functions for the strided iterator (float32 in, float32 out; any strides). */
WK_INTERNAL void wk__exp_f32_loop(char **d, const int64_t *s, int64_t n, void *ctx);
WK_INTERNAL void wk__sigmoid_f32_loop(char **d, const int64_t *s, int64_t n, void *ctx);
/* The float32 loops above with a contiguous output and element-aligned inputs: 1 when handled, 0 for the caller's
 * generic loop (a strided or misaligned output). */
WK_INTERNAL int wk__add_f32_run(char **d, const int64_t *s, int64_t n);
WK_INTERNAL int wk__sub_f32_run(char **d, const int64_t *s, int64_t n);
WK_INTERNAL int wk__mul_f32_run(char **d, const int64_t *s, int64_t n);
WK_INTERNAL int wk__add_alpha_f32_run(char **d, const int64_t *s, int64_t n, float alpha);
WK_INTERNAL int wk__relu_f32_run(char **d, const int64_t *s, int64_t n);
WK_INTERNAL int wk__threshold_bw_f32_run(char **d, const int64_t *s, int64_t n, float th);

#endif
