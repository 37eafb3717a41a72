/* vec_impl.h — the float32 kernels of vec.h, written once against simd.h and included once per ISA:
 * vec_avx2.c (x86, compiled for AVX2+FMA) and vec.c (the build's native ISA). The includer defines
 * WK_VEC_TABLE, the name of the wk_vec_ops table to define. Everything else here is static. */
#include "cpu/simd.h"
#include "cpu/vec.h"

/* ---- exp: Note [Vector exp] ----
 * exp(x) = 2^n * e^r, n = round(x / ln 2), r = x - n ln 2 in two steps (ln 2 = C1 + C2 with C1 = 355/512, so n * C1
 * is exact and x - n * C1 is exact by Sterbenz), e^r = 1 + r (1 + r p(r)) with Cephes' degree-5 p on [-ln2/2, ln2/2].
 * 2^n is applied as 2^(n>>1) * 2^(n - n>>1), so results near overflow and in the subnormal range round once, at the
 * last product. Inputs are clamped to [-104, 88.7228317] (below: 0; the top is the largest x with a finite expf);
 * x > 88.7228317 gives inf and NaN gives NaN, as libm. Checked against exp in double over every float in
 * [-104, 89] and random others (tests/c/test_vec.c, WK_VEC_EXHAUSTIVE=1): max error < 1 ulp, inf / nan / 0 exact. */
/* e^r with n = round(x / ln 2) and r = x - n ln 2 (the range reduction and polynomial both paths share). n comes from
 * t = x / ln 2 + (1.5 * 2^23 + 127), rounded to an integer (to nearest even) by the addition, fused where the ISA
 * fuses; t's low bits then hold n + 127, the exponent field of 2^n. */
#define EXP_MAGIC 12583039.0f /* 1.5 * 2^23 + 127 */
static inline wk_vf v_exp_core(wk_vf x, wk_vf *n_out, wk_vf *t_out) {
    wk_vf t = vf_fma(x, vf_set1(1.44269504088896341f), vf_set1(EXP_MAGIC));
    wk_vf n = vf_sub(t, vf_set1(EXP_MAGIC));
    wk_vf r = vf_fma(n, vf_set1(-0.693359375f), x);
    r = vf_fma(n, vf_set1(2.12194440e-4f), r);
    wk_vf p = vf_set1(1.9875691500e-4f);
    p = vf_fma(p, r, vf_set1(1.3981999507e-3f));
    p = vf_fma(p, r, vf_set1(8.3334519073e-3f));
    p = vf_fma(p, r, vf_set1(4.1665795894e-2f));
    p = vf_fma(p, r, vf_set1(1.6666665459e-1f));
    p = vf_fma(p, r, vf_set1(5.0000001201e-1f));
    *n_out = n;
    *t_out = t;
#if WK_VF_FUSED
    return vf_fma(r, vf_fma(r, p, vf_set1(1.0f)), vf_set1(1.0f)); /* 1 + r (1 + r p): one rounding last */
#else
    return vf_add(vf_add(vf_mul(p, vf_mul(r, r)), r), vf_set1(1.0f)); /* 1 + (r + r^2 p) without FMA */
#endif
}
static inline wk_vf v_exp_poly(wk_vf x) {
    const wk_vf hi = vf_set1(88.72283172607421875f);
    wk_vm over = vf_gt(x, hi), nan = vf_isnan(x);
    wk_vf n, t, y = v_exp_core(vf_min(vf_max(x, vf_set1(-104.0f)), hi), &n, &t);
    wk_vi ni = vf_to_vi(n), n1 = vi_srai1(ni), n2 = vi_sub(ni, n1);
    y = vf_mul(y, vf_from_bits(vi_shl23(vi_add(n1, vi_set1(127)))));
    y = vf_mul(y, vf_from_bits(vi_shl23(vi_add(n2, vi_set1(127)))));
    y = vf_select(over, vf_set1(INFINITY), y);
    return vf_select(nan, vf_add(x, x), y);
}
/* The same for x in [-87, 88] (every lane): no clamps or special cases, and n in [-126, 127], so 2^n is a normal
 * float and one multiplication by it rounds as the two above (the first of which is exact) — or one scalef on
 * AVX-512, the exactly rounded y * 2^n too. Bit for bit the value of v_exp_poly (checked over every float in the
 * range, AVX2 and AVX-512); about half the instructions. */
static inline wk_vf v_exp_inrange(wk_vf x) {
    wk_vf n, t, y = v_exp_core(x, &n, &t);
#if defined(WK_SIMD_AVX512)
    return vf_ldexp(y, n);
#else
    return vf_mul(y, vf_from_bits(vi_shl23(vf_bits(t)))); /* 2^n from t's low bits: n + 127 in [1, 254] */
#endif
}
static inline wk_vf v_exp_vec(wk_vf x) {
    wk_vm in = vm_and(vf_ge(x, vf_set1(-87.0f)), vf_le(x, vf_set1(88.0f))); /* false for NaN */
    return vm_all(in) ? v_exp_inrange(x) : v_exp_poly(x);
}
#if WK_VL == 1
#define v_exp(x) expf(x) /* the scalar build: libm */
#else
#define v_exp(x) v_exp_vec(x)
#endif
static inline float s_exp(float x) { /* one lane through the vector code (tails) */
    float b[WK_VL] = {0};
    b[0] = x;
    vf_storeu(b, v_exp(vf_loadu(b)));
    return b[0];
}

/* sigmoid = 1 / (1 + exp(-x)), as torch's vectorised kernel */
static inline wk_vf v_sigmoid(wk_vf x) {
    const wk_vf one = vf_set1(1.0f);
    return vf_div(one, vf_add(one, v_exp(vf_sub(vf_zero(), x))));
}

static void k_exp(const float *x, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) vf_storeu(y + i, v_exp(vf_loadu(x + i)));
    for (; i < n; i++) y[i] = s_exp(x[i]);
}

static void k_sigmoid(const float *x, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) vf_storeu(y + i, v_sigmoid(vf_loadu(x + i)));
    for (; i < n; i++) y[i] = 1.0f / (1.0f + s_exp(-x[i]));
}

/* sum of exp(x - s) in float: 4 vector accumulators, added pairwise, then the lanes left to right */
static float k_exp_sub_sum(const float *x, float *y, int64_t n, float s, int store) {
    wk_vf vs = vf_set1(s), acc[4] = {vf_zero(), vf_zero(), vf_zero(), vf_zero()};
    int64_t i = 0;
    for (; i + 4 * WK_VL <= n; i += 4 * WK_VL)
        for (int k = 0; k < 4; k++) {
            wk_vf e = v_exp(vf_sub(vf_loadu(x + i + k * WK_VL), vs));
            if (store) vf_storeu(y + i + k * WK_VL, e);
            acc[k] = vf_add(acc[k], e);
        }
    for (; i + WK_VL <= n; i += WK_VL) {
        wk_vf e = v_exp(vf_sub(vf_loadu(x + i), vs));
        if (store) vf_storeu(y + i, e);
        acc[0] = vf_add(acc[0], e);
    }
    float part[WK_VL], tot = 0;
    vf_storeu(part, vf_add(vf_add(acc[0], acc[1]), vf_add(acc[2], acc[3])));
    for (int k = 0; k < WK_VL; k++) tot += part[k];
    for (; i < n; i++) {
        float e = s_exp(x[i] - s);
        if (store) y[i] = e;
        tot += e;
    }
    return tot;
}

static void k_scale(const float *x, float *y, int64_t n, float s) {
    wk_vf vs = vf_set1(s);
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) vf_storeu(y + i, vf_mul(vf_loadu(x + i), vs));
    for (; i < n; i++) y[i] = x[i] * s;
}

static void k_sub_scalar(const float *x, float *y, int64_t n, float s) {
    wk_vf vs = vf_set1(s);
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) vf_storeu(y + i, vf_sub(vf_loadu(x + i), vs));
    for (; i < n; i++) y[i] = x[i] - s;
}

static void k_exp_sub_acc(const float *x, const float *m, float *y, float *s, int64_t n) {
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) {
        wk_vf e = v_exp(vf_sub(vf_loadu(x + i), vf_loadu(m + i)));
        vf_storeu(y + i, e);
        vf_storeu(s + i, vf_add(vf_loadu(s + i), e));
    }
    for (; i < n; i++) {
        y[i] = s_exp(x[i] - m[i]);
        s[i] += y[i];
    }
}
static void k_mul_cols(const float *x, const float *r, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) vf_storeu(y + i, vf_mul(vf_loadu(x + i), vf_loadu(r + i)));
    for (; i < n; i++) y[i] = x[i] * r[i];
}
static void k_sub2_cols(const float *x, const float *a, const float *b, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL)
        vf_storeu(y + i, vf_sub(vf_sub(vf_loadu(x + i), vf_loadu(a + i)), vf_loadu(b + i)));
    for (; i < n; i++) y[i] = (x[i] - a[i]) - b[i];
}

#if WK_VL <= 8 /* the AVX-512 instance carries the exp family only (vec.c takes the rest from AVX2) */
/* ---- elementwise add / sub / mul / add with alpha / relu / threshold_backward on element-strided operands ----
 * o[i] = op(a[i * sa], b[i * sb]) for a contiguous o; strides 1 and 0 (a broadcast scalar) vectorise by loads,
 * stride 2 (every other element: x[:, ::2]) by vf_load_even, any other stride one element at a time. Each op is
 * one IEEE operation (add with alpha: one fused multiply-add, vectorised only where the ISA fuses it) or a compare
 * and select per element, so every path gives the same bits. `th` carries threshold_backward's threshold, or alpha. */
enum { EW_ADD, EW_SUB, EW_MUL, EW_ADDA, EW_THBW };
#define EW_STREAM_MIN ((int64_t)1 << 20) /* floats of one contiguous run written with streaming stores at least */
static inline wk_vf ew_v(int op, wk_vf a, wk_vf b, wk_vf th) {
    if (op == EW_ADD) return vf_add(a, b);
    if (op == EW_ADDA) return vf_fma(b, th, a);
    if (op == EW_SUB) return vf_sub(a, b);
    if (op == EW_MUL) return vf_mul(a, b);
    return vf_select(vf_le(b, th), vf_zero(), a); /* threshold_backward: b (self) <= th ? 0 : a (grad) */
}
static inline float ew_s(int op, float a, float b, float th) {
    if (op == EW_ADD) return a + b;
    if (op == EW_SUB) return a - b;
    if (op == EW_MUL) return a * b;
    if (op == EW_ADDA) return fmaf(b, th, a);
    return b <= th ? 0.0f : a;
}
static inline void ew_run(int op, const float *a, int64_t sa, const float *b, int64_t sb, float th, float *o,
                          int64_t n) {
    const wk_vf vt = vf_set1(th);
    int64_t i = 0;
    if (op == EW_ADDA && !WK_VF_FUSED) {
        /* vf_fma would round twice: the scalar loop below */
    } else if (sa == 1 && sb == 1 && WK_VF_STREAM && n >= EW_STREAM_MIN) {
        /* Note [Streaming stores]: a run this long (3 x 4 MiB and more; the threads' runs together pass the L3) is
         * written around the caches, which saves reading the output's lines first: 1.45 -> 1.2 ms for a 4M-float
         * add on 2 cores of a Zen 3 (bench/NOTES.md). Same bits: only the kind of store differs. */
        for (; i < n && ((uintptr_t)(o + i) & (WK_VL * sizeof(float) - 1)); i++) o[i] = ew_s(op, a[i], b[i], th);
        for (; i + WK_VL <= n; i += WK_VL) vf_stream(o + i, ew_v(op, vf_loadu(a + i), vf_loadu(b + i), vt));
        vf_stream_done();
    } else if (sa == 1 && sb == 1) {
        for (; i + WK_VL <= n; i += WK_VL) vf_storeu(o + i, ew_v(op, vf_loadu(a + i), vf_loadu(b + i), vt));
    } else if (sa == 1 && sb == 0) {
        const wk_vf vb = vf_set1(*b);
        for (; i + WK_VL <= n; i += WK_VL) vf_storeu(o + i, ew_v(op, vf_loadu(a + i), vb, vt));
    } else if (sa == 0 && sb == 1) {
        const wk_vf va = vf_set1(*a);
        for (; i + WK_VL <= n; i += WK_VL) vf_storeu(o + i, ew_v(op, va, vf_loadu(b + i), vt));
    } else if ((sa == 1 || sa == 2) && (sb == 1 || sb == 2)) { /* i + WK_VL < n: the load's extra float exists */
        for (; i + WK_VL < n; i += WK_VL) {
            wk_vf va = sa == 1 ? vf_loadu(a + i) : vf_load_even(a + 2 * i);
            wk_vf vb = sb == 1 ? vf_loadu(b + i) : vf_load_even(b + 2 * i);
            vf_storeu(o + i, ew_v(op, va, vb, vt));
        }
    }
    for (; i < n; i++) o[i] = ew_s(op, a[i * sa], b[i * sb], th);
}
static void k_add(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) {
    ew_run(EW_ADD, a, sa, b, sb, 0, o, n);
}
static void k_sub(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) {
    ew_run(EW_SUB, a, sa, b, sb, 0, o, n);
}
static void k_mul(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) {
    ew_run(EW_MUL, a, sa, b, sb, 0, o, n);
}
static void k_add_alpha(const float *a, int64_t sa, const float *b, int64_t sb, float alpha, float *o, int64_t n) {
    ew_run(EW_ADDA, a, sa, b, sb, alpha, o, n);
}
static void k_threshold_bw(const float *g, int64_t sg, const float *x, int64_t sx, float th, float *o, int64_t n) {
    ew_run(EW_THBW, g, sg, x, sx, th, o, n);
}
/* o[i] = x[i * sx] (a strided run gathered into a contiguous buffer) */
static void k_gather(const float *x, int64_t sx, float *o, int64_t n) {
    int64_t i = 0;
    if (sx == 1)
        for (; i + WK_VL <= n; i += WK_VL) vf_storeu(o + i, vf_loadu(x + i));
    else if (sx == 2)
        for (; i + WK_VL < n; i += WK_VL) vf_storeu(o + i, vf_load_even(x + 2 * i));
    for (; i < n; i++) o[i] = x[i * sx];
}
/* relu: x < 0 ? 0 : x (NaN and -0.0 pass through, as torch's clamp_min) */
static void k_relu(const float *x, int64_t sx, float *o, int64_t n) {
    const wk_vf z = vf_zero();
    int64_t i = 0;
    if (sx == 1)
        for (; i + WK_VL <= n; i += WK_VL) {
            wk_vf v = vf_loadu(x + i);
            vf_storeu(o + i, vf_select(vf_lt(v, z), z, v));
        }
    else if (sx == 2)
        for (; i + WK_VL < n; i += WK_VL) {
            wk_vf v = vf_load_even(x + 2 * i);
            vf_storeu(o + i, vf_select(vf_lt(v, z), z, v));
        }
    for (; i < n; i++) o[i] = x[i * sx] < 0 ? 0.0f : x[i * sx];
}

/* max with NaN propagation: NaN lanes are tracked apart (vf_max's NaN behaviour differs between ISAs) */
static float k_max(const float *x, int64_t n) {
    wk_vf m0 = vf_set1(-INFINITY), m1 = m0;
    wk_vm bad = vf_isnan(vf_zero());
    int64_t i = 0;
    for (; i + 2 * WK_VL <= n; i += 2 * WK_VL) {
        wk_vf a = vf_loadu(x + i), b = vf_loadu(x + i + WK_VL);
        bad = vm_or(bad, vm_or(vf_isnan(a), vf_isnan(b)));
        m0 = vf_max(m0, a);
        m1 = vf_max(m1, b);
    }
    if (vm_any(bad)) return NAN;
    float part[WK_VL], m = -INFINITY;
    vf_storeu(part, vf_max(m0, m1));
    for (int k = 0; k < WK_VL; k++) m = part[k] > m ? part[k] : m;
    for (; i < n; i++) {
        if (x[i] != x[i]) return NAN;
        m = x[i] > m ? x[i] : m;
    }
    return m;
}

static void k_max_rows(const float *x, float *m, int64_t n) {
    int64_t i = 0;
    for (; i + WK_VL <= n; i += WK_VL) {
        wk_vf a = vf_loadu(x + i), b = vf_loadu(m + i);
        /* b stays NaN once NaN; a NaN a replaces */
        wk_vf r = vf_select(vf_gt(a, b), a, b);
        r = vf_select(vf_isnan(a), a, r);
        vf_storeu(m + i, r);
    }
    for (; i < n; i++)
        if (x[i] > m[i] || x[i] != x[i]) m[i] = m[i] != m[i] ? m[i] : x[i];
}

/* ---- torch's cascade sum: Note [Cascade sum] (vec.c) ----
 * A "vacc" is W = 8 or 16 float lanes, NV = W / WK_VL vectors. */
static inline int64_t ceil_log2(int64_t x) { return x <= 2 ? 1 : 64 - __builtin_clzll((unsigned long long)(x - 1)); }

/* multi_row_sum of 4 vaccs: column k (of 4) at base + i*rs + k*cs for i < size; out[k*W + lane].
 * a0 sums `step` rows, c1..c3 are the cascade's levels 1..3 (torch's acc[1..3]); every loop over k and v is
 * unrolled so that all of them stay in registers (rolled, gcc kept them on the stack: a store-to-load forward on
 * every addition, and ~80 cycles a row of 2048 floats in the flushes and set-up). */
#define WK_UNROLLED(body)                                                                                            \
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) body
/* the cascade's carry: level `hi` takes level `lo`'s sums, and `lo` starts again */
#define WK_CARRY(hi, lo) WK_UNROLLED({ hi[k][v] = vf_add(hi[k][v], lo[k][v]); lo[k][v] = vf_zero(); })
#define CASCADE_DEF(W)                                                                                               \
    enum { NV##W = (W) / WK_VL };                                                                                    \
    static void multi4_v##W(const float *base, int64_t rs, int64_t cs, int64_t size, float *out) {                   \
        enum { NV = NV##W };                                                                                         \
        const int64_t lp = ceil_log2(size) / 4 > 4 ? ceil_log2(size) / 4 : 4, step = (int64_t)1 << lp, mask = step - 1; \
        wk_vf a0[4][NV], c1[4][NV], c2[4][NV], c3[4][NV];                                                            \
        WK_UNROLLED(a0[k][v] = c1[k][v] = c2[k][v] = c3[k][v] = vf_zero();)                                          \
        int64_t i = 0;                                                                                               \
        while (i + step <= size) {                                                                                   \
            for (int64_t j = 0; j < step; j++, i++) {                                                                \
                const float *p = base + i * rs;                                                                      \
                /* no software prefetch: level from L3, 10-35% slower from DRAM (bench/NOTES.md, session 10) */      \
                WK_UNROLLED(a0[k][v] = vf_add(a0[k][v], vf_loadu(p + k * cs + v * WK_VL));)                          \
            }                                                                                                        \
            WK_CARRY(c1, a0)                                                                                         \
            if (i & (mask << lp)) continue;                                                                          \
            WK_CARRY(c2, c1)                                                                                         \
            if (i & (mask << 2 * lp)) continue;                                                                      \
            WK_CARRY(c3, c2)                                                                                         \
        }                                                                                                            \
        for (; i < size; i++) {                                                                                      \
            const float *p = base + i * rs;                                                                          \
            WK_UNROLLED(a0[k][v] = vf_add(a0[k][v], vf_loadu(p + k * cs + v * WK_VL));)                              \
        }                                                                                                            \
        WK_UNROLLED(vf_storeu(out + k * (W) + v * WK_VL, vf_add(vf_add(vf_add(a0[k][v], c1[k][v]), c2[k][v]), c3[k][v]));) \
    }                                                                                                                \
    /* row_sum of vaccs at base + i*stride, i < size (ilp 4) -> out[W] */                                            \
    static void rowsum_v##W(const float *base, int64_t stride, int64_t size, float *out) {                           \
        float part[4 * (W)];                                                                                         \
        int64_t size_ilp = size / 4;                                                                                 \
        multi4_v##W(base, 4 * stride, stride, size_ilp, part);                                                       \
        wk_vf p0[NV##W];                                                                                             \
        for (int v = 0; v < NV##W; v++) p0[v] = vf_loadu(part + v * WK_VL);                                          \
        for (int64_t i = size_ilp * 4; i < size; i++)                                                                \
            for (int v = 0; v < NV##W; v++) p0[v] = vf_add(p0[v], vf_loadu(base + i * stride + v * WK_VL));         \
        for (int k = 1; k < 4; k++)                                                                                  \
            for (int v = 0; v < NV##W; v++) p0[v] = vf_add(p0[v], vf_loadu(part + k * (W) + v * WK_VL));             \
        for (int v = 0; v < NV##W; v++) vf_storeu(out + v * WK_VL, p0[v]);                                           \
    }
#if WK_VL <= 8
CASCADE_DEF(8)
#endif
CASCADE_DEF(16)

/* scalar multi_row_sum with 4 rows and row_sum (the scalar paths of SumKernel.cpp) */
static void multi4_s(const float *base, int64_t rs, int64_t cs, int64_t size, float *out) {
    const int64_t lp = ceil_log2(size) / 4 > 4 ? ceil_log2(size) / 4 : 4, step = (int64_t)1 << lp, mask = step - 1;
    float acc[4][4] = {{0}};
    int64_t i = 0;
    while (i + step <= size) {
        for (int64_t j = 0; j < step; j++, i++)
            for (int k = 0; k < 4; k++) acc[0][k] += base[i * rs + k * cs];
        for (int l = 1; l < 4; l++) {
            for (int k = 0; k < 4; k++) {
                acc[l][k] += acc[l - 1][k];
                acc[l - 1][k] = 0;
            }
            if (i & (mask << (l * lp))) break;
        }
    }
    for (; i < size; i++)
        for (int k = 0; k < 4; k++) acc[0][k] += base[i * rs + k * cs];
    for (int l = 1; l < 4; l++)
        for (int k = 0; k < 4; k++) acc[0][k] += acc[l][k];
    for (int k = 0; k < 4; k++) out[k] = acc[0][k];
}
static float rowsum_s(const float *base, int64_t stride, int64_t size) {
    float part[4];
    int64_t size_ilp = size / 4;
    multi4_s(base, 4 * stride, stride, size_ilp, part);
    for (int64_t i = size_ilp * 4; i < size; i++) part[0] += base[i * stride];
    for (int k = 1; k < 4; k++) part[0] += part[k];
    return part[0];
}

static float k_sum_inner(const float *x, int64_t n, int lanes) {
    if (n < lanes) return rowsum_s(x, 1, n);
    float v[16];
    int64_t nv = n / lanes;
#if WK_VL <= 8
    if (lanes == 8) rowsum_v8(x, 8, nv, v);
    else
#endif
        rowsum_v16(x, 16, nv, v);
    float acc = 0;
    for (int64_t k = nv * lanes; k < n; k++) acc += x[k];
    for (int k = 0; k < lanes; k++) acc += v[k];
    return acc;
}

/* multi_row_sum of every column c < cols (cols a multiple of WK_VL) of x[rows][ld], streamed row by row: the same
 * additions per column as multi4_v8 / multi4_v16 (each column's level-0 sum over `step` rows, then the cascade),
 * but the rows are read whole (SUM_BAND columns at a time) instead of 32 or 64 columns down all the rows, so memory
 * streams. acc[l][c]: the column's level-l accumulator, l < 4. */
#define SUM_BAND 1024
static void sum_cols_stream(const float *x, int64_t rows, int64_t cols, int64_t ld, float *out) {
    const int64_t lp = ceil_log2(rows) / 4 > 4 ? ceil_log2(rows) / 4 : 4, step = (int64_t)1 << lp, mask = step - 1;
    float acc[4][SUM_BAND];
    for (int64_t c0 = 0; c0 < cols; c0 += SUM_BAND) {
        const int64_t w = cols - c0 < SUM_BAND ? cols - c0 : SUM_BAND;
        const float *xb = x + c0;
        for (int l = 0; l < 4; l++) memset(acc[l], 0, sizeof(float) * (size_t)w);
        int64_t i = 0;
        for (;;) {
            int64_t blk = i + step <= rows ? step : rows - i; /* a level-0 block, or the tail rows */
            int64_t r = 0;
            for (; r + 4 <= blk; r += 4) { /* 4 rows at a time, each column in row order */
                const float *p0 = xb + (i + r) * ld, *p1 = p0 + ld, *p2 = p1 + ld, *p3 = p2 + ld;
                for (int64_t c = 0; c < w; c += WK_VL) {
                    wk_vf a = vf_add(vf_loadu(acc[0] + c), vf_loadu(p0 + c));
                    a = vf_add(a, vf_loadu(p1 + c));
                    a = vf_add(a, vf_loadu(p2 + c));
                    vf_storeu(acc[0] + c, vf_add(a, vf_loadu(p3 + c)));
                }
            }
            for (; r < blk; r++) {
                const float *p0 = xb + (i + r) * ld;
                for (int64_t c = 0; c < w; c += WK_VL) vf_storeu(acc[0] + c, vf_add(vf_loadu(acc[0] + c), vf_loadu(p0 + c)));
            }
            i += blk;
            if (blk < step) break; /* the tail stays in level 0 */
            int top = 1; /* levels fed: 1 always, then 2 and 3 while i is a multiple of their span */
            while (top < 3 && !(i & (mask << (top * lp)))) top++;
            for (int64_t c = 0; c < w; c += WK_VL) {
                wk_vf a = vf_loadu(acc[0] + c);
                vf_storeu(acc[0] + c, vf_zero());
                for (int l = 1; l <= top; l++) {
                    a = vf_add(vf_loadu(acc[l] + c), a);
                    vf_storeu(acc[l] + c, l < top ? vf_zero() : a);
                }
            }
            if (i == rows) break;
        }
        for (int64_t c = 0; c < w; c += WK_VL) {
            wk_vf a = vf_loadu(acc[0] + c);
            for (int l = 1; l < 4; l++) a = vf_add(a, vf_loadu(acc[l] + c));
            vf_storeu(out + c0 + c, a);
        }
    }
}

static void k_sum_outer(const float *x, int64_t rows, int64_t cols, int64_t ld, float *out, int lanes) {
    int64_t j = 0;
    if (cols >= lanes) {
        j = cols - cols % (4 * lanes); /* the multi_row_sum columns */
        if (j > 0) sum_cols_stream(x, rows, j, ld, out);
        for (; j + lanes <= cols; j += lanes) {
#if WK_VL <= 8
            if (lanes == 8) rowsum_v8(x + j, ld, rows, out + j);
            else
#endif
                rowsum_v16(x + j, ld, rows, out + j);
        }
    } else {
        for (; j + 3 < cols; j += 4) multi4_s(x + j, ld, 1, rows, out + j);
    }
    for (; j < cols; j++) out[j] = rowsum_s(x + j, ld, rows);
}

const wk_vec_ops WK_VEC_TABLE = {
    .name = WK_SIMD_NAME, .exp = k_exp, .sigmoid = k_sigmoid, .exp_sub_sum = k_exp_sub_sum, .scale = k_scale,
    .sub_scalar = k_sub_scalar, .exp_sub_acc = k_exp_sub_acc, .mul_cols = k_mul_cols, .sub2_cols = k_sub2_cols,
    .max = k_max, .max_rows = k_max_rows, .sum_inner = k_sum_inner, .sum_outer = k_sum_outer, .add = k_add,
    .sub = k_sub, .mul = k_mul, .add_alpha = k_add_alpha, .relu = k_relu, .threshold_bw = k_threshold_bw, .gather = k_gather};
#else
const wk_vec_ops WK_VEC_TABLE = {
    .name = WK_SIMD_NAME, .exp = k_exp, .sigmoid = k_sigmoid, .exp_sub_sum = k_exp_sub_sum, .scale = k_scale,
    .sub_scalar = k_sub_scalar, .exp_sub_acc = k_exp_sub_acc, .mul_cols = k_mul_cols, .sub2_cols = k_sub2_cols};
#endif
