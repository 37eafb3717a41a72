/* optim.c — the optimisers' update steps (ops/optim.def): one call per param group, in place, no autograd.
 *
 * Note [Optimiser arithmetic]
 * torch's CPU optimisers run the single-tensor for-loop algorithm (foreach and fused default to off on the
 * CPU): a short sequence of tensor ops per parameter, each rounding its result to the tensor's dtype. We run
 * the same sequence per element in one pass (the ops are elementwise, so the order across elements does not
 * matter) and reproduce each op's rounding exactly. Established by experiment against torch 2.13 (x86, AVX2
 * and AVX-512 kernels; float32 and float64, contiguous and tail elements alike):
 *   add(a, b, alpha)        fma(alpha, b, a)            one rounding (ATen's vectorised fmadd; scalar tail contracted)
 *   lerp(s, e, w)           fma(w, e - s, s) if |w| < 0.5 else fma(-(e - s), 1 - w, e)   (1 - w in the op's type)
 *   addcmul(s, a, b, v)     fma(v * a, b, s)            v * a rounded, then one fused rounding
 *   addcdiv(s, a, b, v)     s + v * a / b               three roundings, nothing fused
 *   a * s, a / s, a + s     one rounding, with the Python scalar first cast to the tensor's type (not double)
 * Python-level scalars (bias corrections, step sizes) are doubles in torch, computed with the same formula and
 * the same libm pow() as CPython's float `**`; they are cast to the tensor's type where a tensor op takes them.
 * float16/bfloat16 tensors are computed in float (ATen's opmath type) and rounded back after every tensor op, with
 * two exceptions found the same way: a Python scalar added to a tensor (x + eps) is first rounded to the tensor's
 * type, and add(a, b, alpha) is fused (with alpha rounded to the tensor's type) in ATen's 32-lane vector loop
 * but computed in the storage type (alpha * b rounded, then the sum rounded) in its scalar tail, so the result
 * depends on the element's position in the run: elements [0, n - n % 32) are vector elements. (A tensor large
 * enough for ATen to split across threads gets a tail per chunk; wick assumes one run.)
 */
#include "core/core.h"

#include "ops_impl.h"
#include "cpu/threadpool.h"

typedef struct {
    double weight_decay, momentum, lr, dampening;
    bool nesterov, maximize;
} optim_sgd_args;
typedef struct {
    bool amsgrad;
    double beta1, beta2, lr, weight_decay, eps;
    bool maximize, decoupled_weight_decay;
} optim_adam_args;
typedef struct {
    double lr, alpha, eps, weight_decay, momentum;
    bool centered, maximize;
} optim_rmsprop_args;
typedef struct {
    double lr, weight_decay, lr_decay, eps;
    bool maximize;
} optim_adagrad_args;
typedef struct {
    double lr, rho, eps, weight_decay;
    bool maximize;
} optim_adadelta_args;
typedef struct {
    double eps, beta1, beta2, lr, weight_decay;
    bool maximize;
} optim_adamax_args;
typedef struct {
    double beta1, beta2, lr, weight_decay, momentum_decay, eps;
    bool decoupled_weight_decay, maximize;
} optim_nadam_args;
typedef struct {
    double beta1, beta2, lr, weight_decay, eps;
    bool decoupled_weight_decay, maximize;
} optim_radam_args;

/* ---- sqrt as torch computes it ----
 * Note [torch's float sqrt]
 * torch's CPU sqrt on float32/float64 tensors (official x86 builds, which link MKL) goes through MKL VML
 * (vsSqrt/vdSqrt), which is not correctly rounded: it starts from the AVX-512 reciprocal-square-root estimate
 * (VRSQRT14) and refines it, and lands one ulp low in ~0.6% of elements (those whose exact root lies just above
 * a rounding midpoint). Established by experiment against torch 2.13 on an AVX-512 machine (0 mismatches over
 * 2^22 random bit patterns per dtype, all exponents, tensor sizes 1..40 and 0-d):
 *   y = rsqrt14(x)                                  float32: s = x*y, h = 0.5*y, r = fma(fma(-s, s, x), h, s)
 *   float64 first refines y once: y = fma(0.5*y, fma(-(x*y), y, 1), y), then the same final step.
 * Inputs below 2^-100 (float32) / 2^-900 (float64) are scaled by an even power of two first (MKL does the same
 * in effect: its results there are the scaled ones); 0, inf, NaN and negatives give what sqrt gives.
 * rsqrt14 is a table lookup on the exponent's parity and the top 15 fraction bits; its 2 x 32768 entries (17-bit
 * significands) are piecewise linear over 32 segments per parity: entry = (C0 - C1*l) >> 14 with l the low 10
 * index bits. The (C0, C1) pairs below were fitted to the hardware instruction's output over every float in
 * [1, 4) and reproduce it bit for bit (checked against the instruction on 2^22 random floats and doubles).
 * An exact power of four is special: its estimate is exact. */
static const uint32_t optim_rsqrt14_seg[64][2] = { /* [parity*32 + segment] = {C0, C1} */
    {2147389440u, 32032u}, {2114588672u, 30560u}, {2083278848u, 29280u}, {2053316608u, 28064u},
    {2024595456u, 26912u}, {1997041664u, 25824u}, {1970589696u, 24800u}, {1945178112u, 23904u},
    {1920704512u, 23008u}, {1897140224u, 22176u}, {1874423808u, 21408u}, {1852522496u, 20704u},
    {1831346176u, 20000u}, {1810866176u, 19296u}, {1791094784u, 18720u}, {1771941888u, 18144u},
    {1753378816u, 17568u}, {1735405568u, 17056u}, {1717956608u, 16544u}, {1701019648u, 16032u},
    {1684590592u, 15584u}, {1668624384u, 15136u}, {1653112832u, 14752u}, {1638019072u, 14368u},
    {1623322624u, 13984u}, {1609019392u, 13600u}, {1595105280u, 13280u}, {1581506560u, 12896u},
    {1568272384u, 12576u}, {1555390464u, 12320u}, {1542778880u, 12000u}, {1530503168u, 11744u},
    {1518424064u, 22624u}, {1495240704u, 21600u}, {1473101824u, 20704u}, {1451900928u, 19808u},
    {1431617536u, 19040u}, {1412132864u, 18272u}, {1393430528u, 17568u}, {1375440896u, 16864u},
    {1358155776u, 16288u}, {1341501440u, 15712u}, {1325420544u, 15136u}, {1309921280u, 14624u},
    {1294946304u, 14112u}, {1280483328u, 13664u}, {1266487296u, 13216u}, {1252962304u, 12832u},
    {1239838720u, 12448u}, {1227108352u, 12064u}, {1214771200u, 11680u}, {1202819072u, 11360u},
    {1191194624u, 11040u}, {1179901952u, 10720u}, {1168916480u, 10400u}, {1158250496u, 10144u},
    {1147871232u,  9888u}, {1137758208u,  9632u}, {1127903232u,  9376u}, {1118298112u,  9120u},
    {1108955136u,  8928u}, {1099812864u,  8672u}, {1090912256u,  8480u}, {1082220544u,  8288u},
};

/* The VRSQRT14 estimate of 1/sqrt(x) for a positive normal x given as (unbiased exponent E, fraction bits). */
static double rsqrt14_est(int E, uint64_t frac15) {
    int par = E & 1;
    if (!par && frac15 == UINT64_MAX) return ldexp(1.0, -E / 2); /* exact power of four */
    uint32_t seg = (uint32_t)(frac15 >> 10), l = (uint32_t)(frac15 & 1023);
    const uint32_t *c = optim_rsqrt14_seg[par * 32 + seg];
    uint32_t sig = (uint32_t)(((uint64_t)c[0] - (uint64_t)c[1] * l) >> 14); /* [2^16, 2^17) */
    return ldexp((double)sig, (par ? -(E - 1) / 2 : -E / 2) - 17);
}

static float torch_sqrtf(float x) {
    if (!(x > 0) || isinf(x)) return sqrtf(x); /* 0, -0, inf, NaN, negatives */
    if (x < 0x1p-100f) return torch_sqrtf(x * 0x1p64f) * 0x1p-32f;
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t frac = u & 0x7fffff;
    float y = (float)rsqrt14_est((int)(u >> 23) - 127, frac ? frac >> 8 : UINT64_MAX);
    float s = x * y, h = 0.5f * y;
    return fmaf(fmaf(-s, s, x), h, s);
}

static double torch_sqrt(double x) {
    if (!(x > 0) || isinf(x)) return sqrt(x);
    if (x < 0x1p-900) return torch_sqrt(x * 0x1p200) * 0x1p-100;
    uint64_t u;
    memcpy(&u, &x, 8);
    uint64_t frac = u & 0xfffffffffffffull;
    double y = rsqrt14_est((int)(u >> 52) - 1023, frac ? frac >> 37 : UINT64_MAX);
    y = fma(0.5 * y, fma(-(x * y), y, 1.0), y);
    double s = x * y, h = 0.5 * y;
    return fma(fma(-s, s, x), h, s);
}

typedef struct {
    double lambd, lr, t0, alpha, weight_decay;
    bool maximize;
} optim_asgd_args;
typedef struct {
    double step_size_min, step_size_max, etaminus, etaplus;
    bool maximize;
} optim_rprop_args;

static inline float optim_round_half(float x) { return wk__half_to_float(wk__float_to_half(x)); }
static inline float optim_round_bf16(float x) { return wk__bf16_to_float(wk__float_to_bf16(x)); }

/* Set by tests/c/test_optim.c: the float32 steps take their scalar kernels (the reference) instead of the vector
 * ones; the split across threads stays. */
WK_INTERNAL bool wk__optim_scalar;
bool wk__optim_scalar = false;

/* float32, float64: add(a, b, alpha) is one fused multiply-add everywhere */
#define T float
#define SUF f32
#define FMA fmaf
#define SQRT torch_sqrtf
#define R(x) (x)
#define ADDA(a, b, al, vec) fmaf((al), (b), (a))
#include "ops/optim_kernels.h"
#undef SUF
/* The same float32 kernels built for x86's FMA instructions (fmaf becomes one vfmadd instead of a libm call;
 * the results are the same bits, fmaf being exactly rounded either way), chosen at run time. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__)
#define OPTIM_FMA_VARIANT 1
#pragma GCC push_options
#pragma GCC target("fma")
#define SUF f32fma
#include "ops/optim_kernels.h"
#undef SUF
#pragma GCC pop_options
static bool optim_have_fma(void) {
    static int have = -1;
    if (have < 0) have = __builtin_cpu_supports("fma") ? 1 : 0;
    return have == 1;
}

/* SGD on float32 in 8-lane AVX2 vectors: each lane does sgd_f32's operations (one multiply or one fused
 * multiply-add each, the same roundings), so the bits are sgd_f32's; the last n % 8 elements go through it. */
#include <immintrin.h>
static bool optim_have_avx2(void) {
    static int have = -1;
    if (have < 0) have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    return have == 1 && !wk__optim_scalar;
}
__attribute__((target("avx2,fma"))) static void sgd_f32avx2(int64_t n, float *p, const float *g, float *buf,
                                                           bool first, const optim_sgd_args *a) {
    const bool wd_on = a->weight_decay != 0, nest = a->nesterov, maxi = a->maximize;
    const __m256 wd = _mm256_set1_ps((float)a->weight_decay), mom = _mm256_set1_ps((float)a->momentum);
    const __m256 damp1 = _mm256_set1_ps((float)(1 - a->dampening)), nlr = _mm256_set1_ps((float)(-a->lr));
    const __m256 sign = _mm256_set1_ps(-0.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 pi = _mm256_loadu_ps(p + i), d = _mm256_loadu_ps(g + i);
        if (maxi) d = _mm256_xor_ps(d, sign);
        if (wd_on) d = _mm256_fmadd_ps(wd, pi, d);
        if (buf) {
            __m256 b = first ? d : _mm256_fmadd_ps(damp1, d, _mm256_mul_ps(_mm256_loadu_ps(buf + i), mom));
            _mm256_storeu_ps(buf + i, b);
            d = nest ? _mm256_fmadd_ps(mom, b, d) : b;
        }
        _mm256_storeu_ps(p + i, _mm256_fmadd_ps(nlr, d, pi));
    }
    if (i < n) sgd_f32fma(n - i, p + i, g + i, buf ? buf + i : NULL, first, a);
}

/* torch_sqrtf on 8 lanes: the same estimate (rsqrt14_est's table, gathered), scaling and refinement, so the same
 * bits; lanes that torch_sqrtf hands to sqrtf (0, negatives, inf, NaN) take the correctly rounded vsqrtps. */
__attribute__((target("avx2,fma"))) static __m256 torch_sqrtf_avx2(__m256 x) {
    const __m256i one = _mm256_set1_epi32(1);
    __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(0x1p-100f), _CMP_LT_OQ);
    __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(0x1p64f)), tiny);
    __m256i u = _mm256_castps_si256(xs);
    __m256i E = _mm256_sub_epi32(_mm256_srli_epi32(u, 23), _mm256_set1_epi32(127));
    __m256i frac = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffff)), par = _mm256_and_si256(E, one);
    __m256i f15 = _mm256_srli_epi32(frac, 8);
    __m256i fz = _mm256_cmpeq_epi32(frac, _mm256_setzero_si256());
    /* frac == 0 passes UINT64_MAX: an exact power of four when E is even, else entry 31 with l = 1023 */
    __m256i idx = _mm256_add_epi32(_mm256_slli_epi32(par, 5), _mm256_srli_epi32(f15, 10));
    __m256i l = _mm256_and_si256(f15, _mm256_set1_epi32(1023));
    idx = _mm256_blendv_epi8(idx, _mm256_set1_epi32(31), fz);
    l = _mm256_blendv_epi8(l, _mm256_set1_epi32(1023), fz);
    const int *tab = (const int *)optim_rsqrt14_seg;
    __m256i i2 = _mm256_slli_epi32(idx, 1);
    __m256i c0 = _mm256_i32gather_epi32(tab, i2, 4), c1 = _mm256_i32gather_epi32(tab, _mm256_add_epi32(i2, one), 4);
    __m256i sig = _mm256_srli_epi32(_mm256_sub_epi32(c0, _mm256_mullo_epi32(c1, l)), 14); /* [2^16, 2^17) */
    __m256i k = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_srai_epi32(_mm256_sub_epi32(E, par), 1));
    __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127 - 17)), 23));
    __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(sig), scale);
    __m256 exact = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
    __m256i pow4 = _mm256_and_si256(fz, _mm256_cmpeq_epi32(par, _mm256_setzero_si256()));
    y = _mm256_blendv_ps(y, exact, _mm256_castsi256_ps(pow4));
    __m256 sv = _mm256_mul_ps(xs, y), h = _mm256_mul_ps(_mm256_set1_ps(0.5f), y);
    __m256 r = _mm256_fmadd_ps(_mm256_fnmadd_ps(sv, sv, xs), h, sv);
    r = _mm256_blendv_ps(r, _mm256_mul_ps(r, _mm256_set1_ps(0x1p-32f)), tiny);
    /* !(x > 0) || isinf(x) */
    __m256 plain = _mm256_or_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NGT_UQ),
                                _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
    return _mm256_blendv_ps(r, _mm256_sqrt_ps(x), plain);
}

__attribute__((target("avx2,fma"))) static void sqrt8_avx2(const float *x, float *y) {
    _mm256_storeu_ps(y, torch_sqrtf_avx2(_mm256_loadu_ps(x)));
}

/* torch.maximum on 8 lanes: NaN if either side is NaN (a's first), else the larger (b on ties). */
__attribute__((target("avx2,fma"))) static __m256 maximum_avx2(__m256 a, __m256 b) {
    __m256 r = _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_GT_OQ));
    r = _mm256_blendv_ps(r, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
    return _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

/* Adam / AdamW on float32 in 8 lanes: adam_f32's operations lane by lane (the same constants, roundings and order);
 * the last n % 8 elements go through adam_f32fma. */
__attribute__((target("avx2,fma"))) static void adam_f32avx2(int64_t n, float *p, const float *g, float *m, float *v,
                                                            float *vmax, double step, const optim_adam_args *a) {
    const double bc1 = 1 - pow(a->beta1, step), bc2 = 1 - pow(a->beta2, step);
    const double step_size = a->lr / bc1, bc2_sqrt = pow(bc2, 0.5);
    const bool wd_on = a->weight_decay != 0, decoupled = a->decoupled_weight_decay, maxi = a->maximize;
    const float w1f = (float)(1 - a->beta1);
    const bool lerp_lo = (w1f < 0 ? -w1f : w1f) < 0.5f;
    const __m256 wd = _mm256_set1_ps((float)a->weight_decay), decay = _mm256_set1_ps((float)(1 - a->lr * a->weight_decay));
    const __m256 w1 = _mm256_set1_ps(w1f), omw1 = _mm256_set1_ps(1.0f - w1f), b2 = _mm256_set1_ps((float)a->beta2);
    const __m256 w2 = _mm256_set1_ps((float)(1 - a->beta2)), c2 = _mm256_set1_ps((float)bc2_sqrt);
    const __m256 eps = _mm256_set1_ps((float)a->eps), nss = _mm256_set1_ps((float)(-step_size));
    const __m256 sign = _mm256_set1_ps(-0.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 pi = _mm256_loadu_ps(p + i), d = _mm256_loadu_ps(g + i), mo = _mm256_loadu_ps(m + i);
        if (wd_on && decoupled) pi = _mm256_mul_ps(pi, decay);
        if (maxi) d = _mm256_xor_ps(d, sign);
        if (wd_on && !decoupled) d = _mm256_fmadd_ps(wd, pi, d);
        __m256 df = _mm256_sub_ps(d, mo);
        __m256 mi = lerp_lo ? _mm256_fmadd_ps(w1, df, mo) : _mm256_fnmadd_ps(df, omw1, d);
        __m256 vi = _mm256_fmadd_ps(_mm256_mul_ps(w2, d), d, _mm256_mul_ps(_mm256_loadu_ps(v + i), b2));
        _mm256_storeu_ps(m + i, mi);
        _mm256_storeu_ps(v + i, vi);
        if (vmax) {
            vi = maximum_avx2(_mm256_loadu_ps(vmax + i), vi);
            _mm256_storeu_ps(vmax + i, vi);
        }
        __m256 denom = _mm256_add_ps(_mm256_div_ps(torch_sqrtf_avx2(vi), c2), eps);
        _mm256_storeu_ps(p + i, _mm256_add_ps(pi, _mm256_div_ps(_mm256_mul_ps(nss, mi), denom)));
    }
    if (i < n) adam_f32fma(n - i, p + i, g + i, m + i, v + i, vmax ? vmax + i : NULL, step, a);
}
#endif
#undef R
#undef SQRT
#undef ADDA
/* float16/bfloat16: sqrt is ATen's own (correctly rounded in float), not MKL's; add(a, b, alpha) is fused in the
 * vector loop but computed in the storage type (alpha * b rounded, then the sum) in the scalar tail */
#define SQRT sqrtf
#define ADDA(a, b, al, vec) ((vec) ? R(fmaf((al), (b), (a))) : R((a) + R((al) * (b))))
#define SUF f16
#define R(x) optim_round_half(x)
#include "ops/optim_kernels.h"
#undef SUF
#undef R
#define SUF bf16
#define R(x) optim_round_bf16(x)
#include "ops/optim_kernels.h"
#undef T
#undef SUF
#undef FMA
#undef SQRT
#undef R
#undef ADDA
#define T double
#define SUF f64
#define FMA fma
#define SQRT torch_sqrt
#define R(x) (x)
#define ADDA(a, b, al, vec) fma((al), (b), (a))
#include "ops/optim_kernels.h"
#undef T
#undef SUF
#undef FMA
#undef SQRT
#undef R
#undef ADDA

/* For tests/c/test_optim.c: y = torch_sqrtf(x) over n floats, through the vector path where it is available
 * (else the scalar one, as the steps do). */
WK_INTERNAL void wk__optim_sqrt_f32(const float *x, float *y, int64_t n);
void wk__optim_sqrt_f32(const float *x, float *y, int64_t n) {
    int64_t i = 0;
#ifdef OPTIM_FMA_VARIANT
    if (optim_have_avx2())
        for (; i + 8 <= n; i += 8) sqrt8_avx2(x + i, y + i);
#endif
    for (; i < n; i++) y[i] = torch_sqrtf(x[i]);
}

/* ---- operands ----
 * A kernel sees contiguous arrays of its compute type (double for float64, float otherwise). A tensor that
 * already is one is used in place; any other (non-contiguous, or float16/bfloat16) gets a contiguous working
 * copy that is written back when the kernel is done. */
typedef struct {
    wk_tensor *t;    /* the caller's tensor (borrowed), or NULL for an absent operand */
    wk_tensor *work; /* owned: the contiguous compute-type tensor the kernel reads and writes */
    bool write;
} optim_operand;

static wk_dtype optim_compute_dtype(wk_dtype dt) { return dt == WK_FLOAT64 ? WK_FLOAT64 : WK_FLOAT32; }

static int operand_open(optim_operand *o, wk_tensor *t, bool write) {
    o->t = t;
    o->work = NULL;
    o->write = write;
    if (!t) return 0;
    wk_dtype ct = optim_compute_dtype(t->dtype);
    if (t->dtype == ct && wk__is_contiguous(t)) {
        o->work = wk_retain(t);
        return 0;
    }
    o->work = wk__empty(t->ndim, t->sizes, ct);
    if (!o->work) return -1;
    return wk__copy_(o->work, t);
}

/* Writes the result back (when it lives in a working copy) and bumps the version, as torch's in-place ops do. */
static int operand_close(optim_operand *o, int rc) {
    if (!o->t) return rc;
    if (rc == 0 && o->write) {
        if (o->work != o->t && wk__copy_(o->t, o->work) < 0) rc = -1;
        wk__bump_version(o->t);
    }
    wk_release(o->work);
    o->work = NULL;
    return rc;
}

static void *operand_data(const optim_operand *o) { return o->work ? wk__data(o->work) : NULL; }

/* ---- argument checks ---- */
static int check_list_len(const char *op, const char *name, int64_t len, int64_t n, bool may_be_empty) {
    if (len == n || (may_be_empty && len == 0)) return 0;
    wk__error(WK_RUNTIME_ERROR, "%s: expected %s to have %lld tensors (one per param), but got %lld", op, name,
              (long long)n, (long long)len);
    return -1;
}

static int check_param(const char *op, int64_t i, const wk_tensor *p, const wk_tensor *g) {
    if (!p || !g) {
        wk__error(WK_RUNTIME_ERROR, "%s: params[%lld] and grads[%lld] must be tensors", op, (long long)i,
                  (long long)i);
        return -1;
    }
    if (!wk_dtype_is_floating(p->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "%s: params[%lld] must be a floating point tensor, but got %s", op, (long long)i,
                  wk_dtype_name(p->dtype));
        return -1;
    }
    return 0;
}

/* A state tensor of params[i] (or its grad): same shape and dtype as the param. */
static int check_like(const char *op, const char *name, int64_t i, const wk_tensor *p, const wk_tensor *t) {
    if (!t) {
        wk__error(WK_RUNTIME_ERROR, "%s: %s[%lld] is None", op, name, (long long)i);
        return -1;
    }
    if (t->dtype != p->dtype) {
        wk__error(WK_RUNTIME_ERROR, "%s: %s[%lld] has dtype %s but params[%lld] has dtype %s", op, name,
                  (long long)i, wk_dtype_name(t->dtype), (long long)i, wk_dtype_name(p->dtype));
        return -1;
    }
    bool same = t->ndim == p->ndim;
    for (int d = 0; same && d < p->ndim; d++) same = t->sizes[d] == p->sizes[d];
    if (!same) {
        wk_strbuf b = {0};
        wk_sb_printf(&b, "%s: %s[%lld] has shape ", op, name, (long long)i);
        wk_sb_ints(&b, t->sizes, t->ndim);
        wk_sb_printf(&b, " but params[%lld] has shape ", (long long)i);
        wk_sb_ints(&b, p->sizes, p->ndim);
        wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : op);
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

/* A 0-d (one-element) floating state scalar such as state['step']. */
static int check_scalar(const char *op, const char *name, int64_t i, const wk_tensor *t) {
    if (!t || wk__numel(t) != 1 || !wk_dtype_is_floating(t->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "%s: %s[%lld] must be a one-element floating point tensor", op, name,
                  (long long)i);
        return -1;
    }
    return 0;
}

/* Rounds a double to the dtype of a state scalar (what storing into that tensor does). */
static double round_to(wk_dtype dt, double v) {
    switch (dt) {
    case WK_FLOAT32: return (float)v;
    case WK_FLOAT16: return optim_round_half((float)v);
    case WK_BFLOAT16: return optim_round_bf16((float)v);
    default: return v;
    }
}

static void store_scalar(wk_tensor *t, double v) {
    wk__store_scalar(wk__data(t), t->dtype, wk_float(v));
    wk__bump_version(t);
}

/* step_t += 1 (in the step tensor's dtype); returns the new value as Python reads it (step_t.item()). */
static double step_increment(wk_tensor *step_t) {
    double s = wk__load_double(wk__data(step_t), step_t->dtype);
    double r = step_t->dtype == WK_FLOAT64 ? s + 1.0 : round_to(step_t->dtype, (double)((float)s + 1.0f));
    store_scalar(step_t, r);
    return r;
}

/* Which kernel instance a param's dtype uses. */
typedef enum { OK_F32, OK_F64, OK_F16, OK_BF16 } optim_kind;
static optim_kind kind_of(wk_dtype dt) {
    return dt == WK_FLOAT64 ? OK_F64 : dt == WK_FLOAT16 ? OK_F16 : dt == WK_BFLOAT16 ? OK_BF16 : OK_F32;
}

/* Opens up to 6 operands of one param, runs `body` (a statement using D(k) for operand k's data), closes them. */
#define OPTIM_MAX_OPERANDS 6
#define WITH_OPERANDS(n_, tensors_, writes_, body_)                                        \
    do {                                                                                   \
        optim_operand ops_[OPTIM_MAX_OPERANDS];                                            \
        int rc_ = 0, opened_ = 0;                                                          \
        for (; opened_ < (n_) && rc_ == 0; opened_++)                                      \
            rc_ = operand_open(&ops_[opened_], (tensors_)[opened_], (writes_)[opened_]);   \
        if (rc_ == 0) { body_; }                                                           \
        for (int k_ = 0; k_ < opened_; k_++) rc_ = operand_close(&ops_[k_], rc_);          \
        if (rc_ < 0) return -1;                                                            \
    } while (0)
#define D(k) operand_data(&ops_[k])

#ifdef OPTIM_FMA_VARIANT
#define OPTIM_F32(name_, ...)                                            \
    do {                                                                 \
        if (optim_have_fma()) name_##_f32fma(__VA_ARGS__);               \
        else name_##_f32(__VA_ARGS__);                                   \
    } while (0)
#else
#define OPTIM_F32(name_, ...) name_##_f32(__VA_ARGS__)
#endif
/* Dispatches one kernel call on params[i]'s dtype: KERNEL_f32(args...) etc. */
#define DISPATCH(dt_, name_, ...)                                        \
    switch (kind_of(dt_)) {                                              \
    case OK_F32: OPTIM_F32(name_, __VA_ARGS__); break;                   \
    case OK_F64: name_##_f64(__VA_ARGS__); break;                        \
    case OK_F16: name_##_f16(__VA_ARGS__); break;                        \
    case OK_BF16: name_##_bf16(__VA_ARGS__); break;                      \
    }

/* Checks the common lists: grads and every state list parallel to params (like-shaped), steps scalars. */
static int check_group(const char *op, wk_tensorlist params, wk_tensorlist grads, int nstate,
                       const wk_tensorlist *states, const char *const *names, const bool *optional,
                       wk_tensorlist steps) {
    const int64_t n = params.len;
    if (check_list_len(op, "grads", grads.len, n, false) < 0) return -1;
    for (int s = 0; s < nstate; s++)
        if (check_list_len(op, names[s], states[s].len, n, optional[s]) < 0) return -1;
    if (steps.data && check_list_len(op, "state_steps", steps.len, n, false) < 0) return -1;
    for (int64_t i = 0; i < n; i++) {
        if (check_param(op, i, params.data[i], grads.data[i]) < 0 ||
            check_like(op, "grads", i, params.data[i], grads.data[i]) < 0)
            return -1;
        for (int s = 0; s < nstate; s++)
            if (states[s].len && check_like(op, names[s], i, params.data[i], states[s].data[i]) < 0) return -1;
        if (steps.data && check_scalar(op, "state_steps", i, steps.data[i]) < 0) return -1;
    }
    return 0;
}

static wk_tensor *at(wk_tensorlist l, int64_t i) { return l.len ? l.data[i] : NULL; }

/* ---- SGD ---- */
/* One param's arrays, split across the thread pool in element ranges (float32/float64 only: their kernels do the
 * same per element wherever it lies; float16/bfloat16 round by position in the run). */
typedef struct {
    optim_kind kind;
    void *p, *buf;     /* [n] param, momentum buffer (NULL without momentum) */
    const void *g;     /* [n] grad */
    bool first;
    const optim_sgd_args *a;
} sgd_job;

static void sgd_range(int64_t b, int64_t e, int tid, void *ctx) {
    WK_UNUSED(tid);
    const sgd_job *j = ctx;
    if (j->kind == OK_F64) {
        double *buf = j->buf;
        sgd_f64(e - b, (double *)j->p + b, (const double *)j->g + b, buf ? buf + b : NULL, j->first, j->a);
        return;
    }
    float *p = (float *)j->p + b, *buf = j->buf ? (float *)j->buf + b : NULL;
    const float *g = (const float *)j->g + b;
#ifdef OPTIM_FMA_VARIANT
    if (optim_have_avx2()) sgd_f32avx2(e - b, p, g, buf, j->first, j->a);
    else
#endif
        OPTIM_F32(sgd, e - b, p, g, buf, j->first, j->a);
}

#define OPTIM_GRAIN 32768 /* elements per thread at least (ATen's GRAIN_SIZE) */

static int sgd_one(wk_tensor *p, wk_tensor *g, wk_tensor *buf, bool first, const optim_sgd_args *a) {
    wk_tensor *ts[3] = {p, g, buf};
    const bool ws[3] = {true, false, true};
    optim_kind kind = kind_of(p->dtype);
    if (kind == OK_F32 || kind == OK_F64) {
        sgd_job j;
        WITH_OPERANDS(3, ts, ws, (j = (sgd_job){kind, D(0), D(2), D(1), first, a},
                                  wk_parallel_for(0, wk__numel(p), OPTIM_GRAIN, sgd_range, &j)));
        return 0;
    }
    WITH_OPERANDS(3, ts, ws, DISPATCH(p->dtype, sgd, wk__numel(p), D(0), D(1), D(2), first, a));
    return 0;
}

wk_tensorvec wk_impl_sgd_step(wk_tensorlist params, wk_tensorlist grads, wk_opttensorlist momentum_buffer_list,
                              double weight_decay, double momentum, double lr, double dampening, bool nesterov,
                              bool maximize) {
    const char *op = "_sgd_step";
    const int64_t n = params.len;
    const bool use_buf = momentum != 0;
    wk_tensorvec out = {NULL, 0};
    if (check_list_len(op, "grads", grads.len, n, false) < 0 ||
        check_list_len(op, "momentum_buffer_list", momentum_buffer_list.len, n, !use_buf) < 0)
        return out;
    for (int64_t i = 0; i < n; i++) {
        if (check_param(op, i, params.data[i], grads.data[i]) < 0 ||
            check_like(op, "grads", i, params.data[i], grads.data[i]) < 0)
            return out;
        if (use_buf && momentum_buffer_list.data[i] &&
            check_like(op, "momentum_buffer_list", i, params.data[i], momentum_buffer_list.data[i]) < 0)
            return out;
    }
    /* out: the momentum buffers, [n] (or empty without momentum) */
    out.data = wk__calloc((size_t)(n ? n : 1), sizeof(wk_tensor *));
    if (!out.data) return out;
    out.len = use_buf ? n : 0;
    const optim_sgd_args a = {weight_decay, momentum, lr, dampening, nesterov, maximize};
    for (int64_t i = 0; i < n; i++) {
        wk_tensor *p = params.data[i], *buf = NULL;
        bool first = false;
        if (use_buf) {
            first = !momentum_buffer_list.data[i];
            buf = first ? wk__zeros(p->ndim, p->sizes, p->dtype) : wk_retain((wk_tensor *)momentum_buffer_list.data[i]);
            if (!buf) goto fail;
            out.data[i] = buf;
        }
        if (sgd_one(p, grads.data[i], buf, first, &a) < 0) goto fail;
    }
    return out;
fail:
    wk_tensorvec_free(out);
    return (wk_tensorvec){NULL, 0};
}

/* ---- Adam / AdamW ---- */
/* One param's arrays split across the pool, as sgd_job. */
typedef struct {
    optim_kind kind;
    void *w[4];        /* [n] each: param, exp_avg, exp_avg_sq, max_exp_avg_sq (NULL unless amsgrad) */
    const void *g;     /* [n] grad */
    double step;
    const optim_adam_args *a;
} adam_job;

static void adam_range(int64_t b, int64_t e, int tid, void *ctx) {
    WK_UNUSED(tid);
    const adam_job *j = ctx;
    if (j->kind == OK_F64) {
        double *vm = j->w[3];
        adam_f64(e - b, (double *)j->w[0] + b, (const double *)j->g + b, (double *)j->w[1] + b,
                 (double *)j->w[2] + b, vm ? vm + b : NULL, j->step, j->a);
        return;
    }
    float *p = (float *)j->w[0] + b, *m = (float *)j->w[1] + b, *v = (float *)j->w[2] + b;
    float *vm = j->w[3] ? (float *)j->w[3] + b : NULL;
    const float *g = (const float *)j->g + b;
#ifdef OPTIM_FMA_VARIANT
    if (optim_have_avx2()) adam_f32avx2(e - b, p, g, m, v, vm, j->step, j->a);
    else
#endif
        OPTIM_F32(adam, e - b, p, g, m, v, vm, j->step, j->a);
}

int wk_impl_adam_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist exp_avgs, wk_tensorlist exp_avg_sqs,
                      wk_tensorlist max_exp_avg_sqs, wk_tensorlist state_steps, bool amsgrad, double beta1,
                      double beta2, double lr, double weight_decay, double eps, bool maximize,
                      bool decoupled_weight_decay) {
    const wk_tensorlist st[3] = {exp_avgs, exp_avg_sqs, max_exp_avg_sqs};
    const char *const nm[3] = {"exp_avgs", "exp_avg_sqs", "max_exp_avg_sqs"};
    const bool opt[3] = {false, false, !amsgrad};
    if (check_group("_adam_step", params, grads, 3, st, nm, opt, state_steps) < 0) return -1;
    const optim_adam_args a = {amsgrad, beta1, beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        double step = step_increment(state_steps.data[i]);
        wk_tensor *ts[5] = {p, grads.data[i], exp_avgs.data[i], exp_avg_sqs.data[i],
                            amsgrad ? at(max_exp_avg_sqs, i) : NULL};
        const bool ws[5] = {true, false, true, true, true};
        optim_kind kind = kind_of(p->dtype);
        adam_job j;
        if (kind == OK_F32 || kind == OK_F64)
            WITH_OPERANDS(5, ts, ws, (j = (adam_job){kind, {D(0), D(2), D(3), D(4)}, D(1), step, &a},
                                      wk_parallel_for(0, wk__numel(p), OPTIM_GRAIN, adam_range, &j)));
        else
            WITH_OPERANDS(5, ts, ws, DISPATCH(p->dtype, adam, wk__numel(p), D(0), D(1), D(2), D(3), D(4), step, &a));
    }
    return 0;
}

/* ---- RMSprop ---- */
int wk_impl_rmsprop_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist square_avgs,
                         wk_tensorlist grad_avgs, wk_tensorlist momentum_buffer_list, wk_tensorlist state_steps,
                         double lr, double alpha, double eps, double weight_decay, double momentum, bool centered,
                         bool maximize) {
    const wk_tensorlist st[3] = {square_avgs, grad_avgs, momentum_buffer_list};
    const char *const nm[3] = {"square_avgs", "grad_avgs", "momentum_buffer_list"};
    const bool opt[3] = {false, !centered, !(momentum > 0)};
    if (check_group("_rmsprop_step", params, grads, 3, st, nm, opt, state_steps) < 0) return -1;
    const optim_rmsprop_args a = {lr, alpha, eps, weight_decay, momentum, centered, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        step_increment(state_steps.data[i]);
        wk_tensor *ts[5] = {p, grads.data[i], square_avgs.data[i], centered ? at(grad_avgs, i) : NULL,
                            momentum > 0 ? at(momentum_buffer_list, i) : NULL};
        const bool ws[5] = {true, false, true, true, true};
        WITH_OPERANDS(5, ts, ws, DISPATCH(p->dtype, rmsprop, wk__numel(p), D(0), D(1), D(2), D(3), D(4), &a));
    }
    return 0;
}

/* ---- Adagrad ---- */
int wk_impl_adagrad_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist state_sums,
                         wk_tensorlist state_steps, double lr, double weight_decay, double lr_decay, double eps,
                         bool maximize) {
    const wk_tensorlist st[1] = {state_sums};
    const char *const nm[1] = {"state_sums"};
    const bool opt[1] = {false};
    if (check_group("_adagrad_step", params, grads, 1, st, nm, opt, state_steps) < 0) return -1;
    const optim_adagrad_args a = {lr, weight_decay, lr_decay, eps, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        double step = step_increment(state_steps.data[i]);
        wk_tensor *ts[3] = {p, grads.data[i], state_sums.data[i]};
        const bool ws[3] = {true, false, true};
        WITH_OPERANDS(3, ts, ws, DISPATCH(p->dtype, adagrad, wk__numel(p), D(0), D(1), D(2), step, &a));
    }
    return 0;
}

/* ---- Adadelta ---- */
int wk_impl_adadelta_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist square_avgs,
                          wk_tensorlist acc_deltas, wk_tensorlist state_steps, double lr, double rho, double eps,
                          double weight_decay, bool maximize) {
    const wk_tensorlist st[2] = {square_avgs, acc_deltas};
    const char *const nm[2] = {"square_avgs", "acc_deltas"};
    const bool opt[2] = {false, false};
    if (check_group("_adadelta_step", params, grads, 2, st, nm, opt, state_steps) < 0) return -1;
    const optim_adadelta_args a = {lr, rho, eps, weight_decay, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        step_increment(state_steps.data[i]);
        wk_tensor *ts[4] = {p, grads.data[i], square_avgs.data[i], acc_deltas.data[i]};
        const bool ws[4] = {true, false, true, true};
        WITH_OPERANDS(4, ts, ws, DISPATCH(p->dtype, adadelta, wk__numel(p), D(0), D(1), D(2), D(3), &a));
    }
    return 0;
}

/* ---- Adamax ---- */
int wk_impl_adamax_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist exp_avgs, wk_tensorlist exp_infs,
                        wk_tensorlist state_steps, double eps, double beta1, double beta2, double lr,
                        double weight_decay, bool maximize) {
    const wk_tensorlist st[2] = {exp_avgs, exp_infs};
    const char *const nm[2] = {"exp_avgs", "exp_infs"};
    const bool opt[2] = {false, false};
    if (check_group("_adamax_step", params, grads, 2, st, nm, opt, state_steps) < 0) return -1;
    const optim_adamax_args a = {eps, beta1, beta2, lr, weight_decay, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        double step = step_increment(state_steps.data[i]);
        wk_tensor *ts[4] = {p, grads.data[i], exp_avgs.data[i], exp_infs.data[i]};
        const bool ws[4] = {true, false, true, true};
        WITH_OPERANDS(4, ts, ws, DISPATCH(p->dtype, adamax, wk__numel(p), D(0), D(1), D(2), D(3), step, &a));
    }
    return 0;
}

/* ---- NAdam ---- */
int wk_impl_nadam_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist exp_avgs, wk_tensorlist exp_avg_sqs,
                       wk_tensorlist mu_products, wk_tensorlist state_steps, double beta1, double beta2, double lr,
                       double weight_decay, double momentum_decay, double eps, bool decoupled_weight_decay,
                       bool maximize) {
    const char *op = "_nadam_step";
    const wk_tensorlist st[2] = {exp_avgs, exp_avg_sqs};
    const char *const nm[2] = {"exp_avgs", "exp_avg_sqs"};
    const bool opt[2] = {false, false};
    if (check_group(op, params, grads, 2, st, nm, opt, state_steps) < 0 ||
        check_list_len(op, "mu_products", mu_products.len, params.len, false) < 0)
        return -1;
    for (int64_t i = 0; i < params.len; i++)
        if (check_scalar(op, "mu_products", i, mu_products.data[i]) < 0) return -1;
    const optim_nadam_args a = {beta1, beta2, lr, weight_decay, momentum_decay, eps, decoupled_weight_decay, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i], *mp_t = mu_products.data[i];
        double step = step_increment(state_steps.data[i]);
        double bc2 = 1 - pow(beta2, step);
        double mu = beta1 * (1.0 - 0.5 * pow(0.96, step * momentum_decay));
        double mu_next = beta1 * (1.0 - 0.5 * pow(0.96, (step + 1) * momentum_decay));
        /* mu_product *= mu: the scalar is cast to the 0-d tensor's type first */
        double mp = wk__load_double(wk__data(mp_t), mp_t->dtype);
        mp = mp_t->dtype == WK_FLOAT64 ? mp * mu : round_to(mp_t->dtype, (double)((float)mp * (float)mu));
        store_scalar(mp_t, mp);
        double mp_next = mp * mu_next;
        double c_grad = -lr * (1.0 - mu) / (1.0 - mp);
        double c_avg = (-lr * mu_next) / (1.0 - mp_next);
        wk_tensor *ts[4] = {p, grads.data[i], exp_avgs.data[i], exp_avg_sqs.data[i]};
        const bool ws[4] = {true, false, true, true};
        WITH_OPERANDS(4, ts, ws,
                      DISPATCH(p->dtype, nadam, wk__numel(p), D(0), D(1), D(2), D(3), bc2, c_grad, c_avg, &a));
    }
    return 0;
}

/* ---- RAdam ---- */
int wk_impl_radam_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist exp_avgs, wk_tensorlist exp_avg_sqs,
                       wk_tensorlist state_steps, double beta1, double beta2, double lr, double weight_decay,
                       double eps, bool decoupled_weight_decay, bool maximize) {
    const wk_tensorlist st[2] = {exp_avgs, exp_avg_sqs};
    const char *const nm[2] = {"exp_avgs", "exp_avg_sqs"};
    const bool opt[2] = {false, false};
    if (check_group("_radam_step", params, grads, 2, st, nm, opt, state_steps) < 0) return -1;
    const optim_radam_args a = {beta1, beta2, lr, weight_decay, eps, decoupled_weight_decay, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        double step = step_increment(state_steps.data[i]);
        wk_tensor *ts[4] = {p, grads.data[i], exp_avgs.data[i], exp_avg_sqs.data[i]};
        const bool ws[4] = {true, false, true, true};
        WITH_OPERANDS(4, ts, ws, DISPATCH(p->dtype, radam, wk__numel(p), D(0), D(1), D(2), D(3), step, &a));
    }
    return 0;
}

/* ---- ASGD ---- */
int wk_impl_asgd_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist axs, wk_tensorlist mus,
                      wk_tensorlist etas, wk_tensorlist state_steps, double lambd, double lr, double t0, double alpha,
                      double weight_decay, bool maximize) {
    const char *op = "_asgd_step";
    const wk_tensorlist st[1] = {axs};
    const char *const nm[1] = {"axs"};
    const bool opt[1] = {false};
    if (check_group(op, params, grads, 1, st, nm, opt, state_steps) < 0 ||
        check_list_len(op, "mus", mus.len, params.len, false) < 0 ||
        check_list_len(op, "etas", etas.len, params.len, false) < 0)
        return -1;
    for (int64_t i = 0; i < params.len; i++)
        if (check_scalar(op, "mus", i, mus.data[i]) < 0 || check_scalar(op, "etas", i, etas.data[i]) < 0) return -1;
    const optim_asgd_args a = {lambd, lr, t0, alpha, weight_decay, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i], *mu_t = mus.data[i], *eta_t = etas.data[i];
        double step = step_increment(state_steps.data[i]);
        double eta = wk__load_double(wk__data(eta_t), eta_t->dtype);
        double mu = wk__load_double(wk__data(mu_t), mu_t->dtype);
        wk_tensor *ts[3] = {p, grads.data[i], axs.data[i]};
        const bool ws[3] = {true, false, true};
        WITH_OPERANDS(3, ts, ws, DISPATCH(p->dtype, asgd, wk__numel(p), D(0), D(1), D(2), eta, mu, &a));
        /* eta = lr / (1 + lambd * lr * step) ** alpha; mu = 1 / max(1, step - t0) (Python floats, then stored) */
        store_scalar(eta_t, round_to(eta_t->dtype, lr / pow(1 + lambd * lr * step, alpha)));
        store_scalar(mu_t, round_to(mu_t->dtype, 1 / (step - t0 > 1 ? step - t0 : 1.0)));
    }
    return 0;
}

/* ---- Rprop ---- */
int wk_impl_rprop_step(wk_tensorlist params, wk_tensorlist grads, wk_tensorlist prevs, wk_tensorlist step_sizes,
                       wk_tensorlist state_steps, double step_size_min, double step_size_max, double etaminus,
                       double etaplus, bool maximize) {
    const wk_tensorlist st[2] = {prevs, step_sizes};
    const char *const nm[2] = {"prevs", "step_sizes"};
    const bool opt[2] = {false, false};
    if (check_group("_rprop_step", params, grads, 2, st, nm, opt, state_steps) < 0) return -1;
    const optim_rprop_args a = {step_size_min, step_size_max, etaminus, etaplus, maximize};
    for (int64_t i = 0; i < params.len; i++) {
        wk_tensor *p = params.data[i];
        step_increment(state_steps.data[i]);
        wk_tensor *ts[4] = {p, grads.data[i], prevs.data[i], step_sizes.data[i]};
        const bool ws[4] = {true, false, true, true};
        WITH_OPERANDS(4, ts, ws, DISPATCH(p->dtype, rprop, wk__numel(p), D(0), D(1), D(2), D(3), &a));
    }
    return 0;
}
