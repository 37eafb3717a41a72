/* vec.c — the native instance of vec_impl.h, the naive references, the run-time choice and the iterator loops. */
#define WK_VEC_TABLE wk__vec_base_ops
#include "cpu/vec_impl.h"

#include <stdlib.h>

#if defined(__x86_64__) && defined(__GNUC__)
extern const wk_vec_ops wk__vec_avx2_ops, wk__vec_avx512_ops;
static wk_vec_ops merged; /* AVX2 with the AVX-512 exp family */
#endif

/* ---- naive references (libm, plain loops, the same summation orders written the obvious way) ---- */
static void r_exp(const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = expf(x[i]);
}
static void r_sigmoid(const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
static float r_exp_sub_sum(const float *x, float *y, int64_t n, float s, int store) {
    double t = 0;
    for (int64_t i = 0; i < n; i++) {
        float e = expf(x[i] - s);
        if (store) y[i] = e;
        t += e;
    }
    return (float)t;
}
static void r_scale(const float *x, float *y, int64_t n, float s) {
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * s;
}
static void r_sub_scalar(const float *x, float *y, int64_t n, float s) {
    for (int64_t i = 0; i < n; i++) y[i] = x[i] - s;
}
static void r_exp_sub_acc(const float *x, const float *m, float *y, float *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = expf(x[i] - m[i]);
        s[i] += y[i];
    }
}
static void r_mul_cols(const float *x, const float *r, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * r[i];
}
static void r_sub2_cols(const float *x, const float *a, const float *b, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = (x[i] - a[i]) - b[i];
}
static float r_max(const float *x, int64_t n) {
    float m = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i])) return x[i];
        if (x[i] > m) m = x[i];
    }
    return m;
}
static void r_max_rows(const float *x, float *m, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (!isnan(m[i]) && (isnan(x[i]) || x[i] > m[i])) m[i] = x[i];
}

/* Note [Cascade sum]: ATen's float sum (SumKernel.cpp) in its own words, one element at a time. A row of n is cut
 * into `lanes`-wide vectors; vector i goes to accumulator (i mod 4) of the ILP-4 row_sum, whose rows feed a 4-level
 * cascade (level_step = 2^max(4, ceil_log2(size) / 4) additions per level-0 block); the n mod lanes tail is summed
 * left to right from 0, then the lanes are added in order. Columns (outer sums) use 4 x lanes columns per
 * multi_row_sum, then lanes-wide row_sums, then scalar row_sums. */
static float ref_multi(const float *b, int64_t rs, int64_t cs, int64_t size, int64_t k) {
    int64_t lp = 4, c = 1;
    if (size > 2) {
        c = 0;
        for (uint64_t v = (uint64_t)(size - 1); v; v >>= 1) c++;
    }
    if (c / 4 > lp) lp = c / 4;
    int64_t step = (int64_t)1 << lp, mask = step - 1;
    float acc[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + step <= size;) {
        for (int64_t j = 0; j < step; j++, i++) acc[0] += b[i * rs + k * cs];
        for (int l = 1; l < 4; l++) {
            acc[l] += acc[l - 1];
            acc[l - 1] = 0;
            if (i & (mask << (l * lp))) break;
        }
    }
    for (; i < size; i++) acc[0] += b[i * rs + k * cs];
    return ((acc[0] + acc[1]) + acc[2]) + acc[3];
}
/* element `lane` of the lanes-wide (lanes = 1: scalar) row_sum over i < size of b[i * stride + lane] */
static float ref_rowsum(const float *b, int64_t stride, int64_t size, int lane) {
    int64_t ilp = size / 4;
    float p[4];
    for (int k = 0; k < 4; k++) p[k] = ref_multi(b + lane, 4 * stride, stride, ilp, k);
    for (int64_t i = ilp * 4; i < size; i++) p[0] += b[i * stride + lane];
    return ((p[0] + p[1]) + p[2]) + p[3];
}
static float r_sum_inner(const float *x, int64_t n, int lanes) {
    if (n < lanes) return ref_rowsum(x, 1, n, 0);
    int64_t nv = n / lanes;
    float acc = 0;
    for (int64_t k = nv * lanes; k < n; k++) acc += x[k];
    for (int l = 0; l < lanes; l++) acc += ref_rowsum(x, lanes, nv, l);
    return acc;
}
static void r_sum_outer(const float *x, int64_t rows, int64_t cols, int64_t ld, float *out, int lanes) {
    int64_t j = 0;
    if (cols >= lanes) {
        for (; j + 4 * lanes <= cols; j += 4 * lanes)
            for (int k = 0; k < 4; k++)
                for (int l = 0; l < lanes; l++) out[j + k * lanes + l] = ref_multi(x + j + l, ld, lanes, rows, k);
        for (; j + lanes <= cols; j += lanes)
            for (int l = 0; l < lanes; l++) out[j + l] = ref_rowsum(x + j, ld, rows, l);
    } else {
        for (; j + 3 < cols; j += 4)
            for (int k = 0; k < 4; k++) out[j + k] = ref_multi(x + j, ld, 1, rows, k);
    }
    for (; j < cols; j++) out[j] = ref_rowsum(x + j, ld, rows, 0);
}

static void r_add(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = a[i * sa] + b[i * sb];
}
static void r_sub(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = a[i * sa] - b[i * sb];
}
static void r_mul(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = a[i * sa] * b[i * sb];
}
static void r_add_alpha(const float *a, int64_t sa, const float *b, int64_t sb, float alpha, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = fmaf(b[i * sb], alpha, a[i * sa]);
}
static void r_relu(const float *x, int64_t sx, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = x[i * sx] < 0 ? 0.0f : x[i * sx];
}
static void r_gather(const float *x, int64_t sx, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = x[i * sx];
}
static void r_threshold_bw(const float *g, int64_t sg, const float *x, int64_t sx, float th, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = x[i * sx] <= th ? 0.0f : g[i * sg];
}

static const wk_vec_ops ref_ops = {
    .name = "reference", .exp = r_exp, .sigmoid = r_sigmoid, .exp_sub_sum = r_exp_sub_sum, .scale = r_scale,
    .sub_scalar = r_sub_scalar, .exp_sub_acc = r_exp_sub_acc, .mul_cols = r_mul_cols, .sub2_cols = r_sub2_cols,
    .max = r_max, .max_rows = r_max_rows, .sum_inner = r_sum_inner, .sum_outer = r_sum_outer, .add = r_add,
    .sub = r_sub, .mul = r_mul, .add_alpha = r_add_alpha, .relu = r_relu, .threshold_bw = r_threshold_bw, .gather = r_gather};

const wk_vec_ops *wk__vec_ref(void) { return &ref_ops; }
const wk_vec_ops *wk__vec_base(void) { return &wk__vec_base_ops; }

static const wk_vec_ops *chosen;
const wk_vec_ops *wk__vec(void) {
    if (chosen) return chosen;
    const wk_vec_ops *v = &wk__vec_base_ops;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) v = &wk__vec_avx2_ops;
    if (v == &wk__vec_avx2_ops && __builtin_cpu_supports("avx512f") && !getenv("WICK_NO_AVX512")) {
        merged = wk__vec_avx2_ops;
        merged.name = "avx512+avx2";
        merged.exp = wk__vec_avx512_ops.exp;
        merged.sigmoid = wk__vec_avx512_ops.sigmoid;
        merged.exp_sub_sum = wk__vec_avx512_ops.exp_sub_sum;
        merged.exp_sub_acc = wk__vec_avx512_ops.exp_sub_acc;
        v = &merged;
    }
#endif
    chosen = v; /* idempotent: a race writes the same pointer */
    return v;
}

/* Note [CPU-dependent paths in torch]: where torch hands an op to oneDNN depends on the CPU it runs on (the real
 * CPU, so WICK_NO_AVX512 leaves these alone), and its answers (a value at an edge, an error message) follow:
 *   avx512_core (AVX-512 F+BW+VL+DQ): oneDNN's bf16 paths (mkldnn_bf16_device_check), its AVX-512 GELU (erf) kernel
 *   avx512_fp16: oneDNN's fp16 paths (mkldnn_fp16_device_check)
 * Measured on the two machine classes at hand: Intel Sapphire Rapids (both) and AMD EPYC Zen 3 (neither). */
bool wk__cpu_avx512_core(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
    return false;
#endif
}
bool wk__cpu_avx512_fp16(void) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512fp16");
#else
    return false;
#endif
}

/* Vectorized<float>::size() of the kernel torch's sum runs: 8. SumKernel.cpp registers with REGISTER_DISPATCH, which
 * leaves AVX512 out, so AVX512 machines run its AVX2 build; the DEFAULT build's Vectorized is 32 bytes too.
 * (Measured: 8 lanes reproduce torch 2.13's float32 sums bit for bit on an AVX512 machine; 16 do not.) */
int wk__vec_sum_lanes(void) { return 8; }

/* ---- strided-iterator loops: contiguous runs go straight to the kernel; strided inputs are gathered (into the
 * output itself when it is contiguous, else into a stack buffer) and computed in place ---- */
#define VEC_UNARY_LOOP(NAME, FIELD)                                                                 \
    void NAME(char **d, const int64_t *s, int64_t n, void *ctx) {                                   \
        (void)ctx;                                                                                  \
        const wk_vec_ops *v = wk__vec();                                                            \
        if (s[0] == 4 && s[1] == 4) {                                                               \
            v->FIELD((const float *)d[1], (float *)d[0], n);                                        \
            return;                                                                                 \
        }                                                                                           \
        if (s[0] == 4 && s[1] % 4 == 0) {                                                           \
            const float *x = (const float *)d[1];                                                   \
            float *y = (float *)d[0];                                                               \
            for (int64_t i = 0; i < n; i += 1024) { /* 4 KiB pieces, computed while in L1 */        \
                int64_t m = n - i < 1024 ? n - i : 1024;                                            \
                v->gather(x + i * (s[1] / 4), s[1] / 4, y + i, m);                                  \
                v->FIELD(y + i, y + i, m);                                                          \
            }                                                                                       \
            return;                                                                                 \
        }                                                                                           \
        float buf[256]; /* [chunk] gathered inputs, then outputs */                                 \
        char *po = d[0], *pi = d[1];                                                                \
        for (int64_t i = 0; i < n; i += 256) {                                                      \
            int64_t m = n - i < 256 ? n - i : 256;                                                  \
            for (int64_t j = 0; j < m; j++, pi += s[1]) buf[j] = *(const float *)pi;                \
            v->FIELD(buf, buf, m);                                                                  \
            for (int64_t j = 0; j < m; j++, po += s[0]) *(float *)po = buf[j];                      \
        }                                                                                           \
    }
VEC_UNARY_LOOP(wk__exp_f32_loop, exp)
VEC_UNARY_LOOP(wk__sigmoid_f32_loop, sigmoid)

/* d[0] a contiguous float32 output; d[1], d[2] float32 inputs with element-aligned strides (any sign, 0 too) */
static int f32_strides(const int64_t *s, int nin, int64_t *es) {
    if (s[0] != 4) return 0;
    for (int k = 1; k <= nin; k++) {
        if (s[k] % 4) return 0;
        es[k] = s[k] / 4;
    }
    return 1;
}
int wk__add_f32_run(char **d, const int64_t *s, int64_t n) {
    int64_t e[3];
    if (!f32_strides(s, 2, e)) return 0;
    wk__vec()->add((const float *)d[1], e[1], (const float *)d[2], e[2], (float *)d[0], n);
    return 1;
}
int wk__sub_f32_run(char **d, const int64_t *s, int64_t n) {
    int64_t e[3];
    if (!f32_strides(s, 2, e)) return 0;
    wk__vec()->sub((const float *)d[1], e[1], (const float *)d[2], e[2], (float *)d[0], n);
    return 1;
}
int wk__mul_f32_run(char **d, const int64_t *s, int64_t n) {
    int64_t e[3];
    if (!f32_strides(s, 2, e)) return 0;
    wk__vec()->mul((const float *)d[1], e[1], (const float *)d[2], e[2], (float *)d[0], n);
    return 1;
}
int wk__add_alpha_f32_run(char **d, const int64_t *s, int64_t n, float alpha) {
    int64_t e[3];
    if (!f32_strides(s, 2, e)) return 0;
    wk__vec()->add_alpha((const float *)d[1], e[1], (const float *)d[2], e[2], alpha, (float *)d[0], n);
    return 1;
}
int wk__relu_f32_run(char **d, const int64_t *s, int64_t n) {
    int64_t e[2];
    if (!f32_strides(s, 1, e)) return 0;
    wk__vec()->relu((const float *)d[1], e[1], (float *)d[0], n);
    return 1;
}
int wk__threshold_bw_f32_run(char **d, const int64_t *s, int64_t n, float th) {
    int64_t e[3];
    if (!f32_strides(s, 2, e)) return 0;
    wk__vec()->threshold_bw((const float *)d[1], e[1], (const float *)d[2], e[2], th, (float *)d[0], n);
    return 1;
}
