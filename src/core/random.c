/* random.c — torch's CPU generator (mt19937, CPUGeneratorImpl) and its sampling kernels, bit for bit.
 *
 * Note [FMA in random kernels]
 * torch compiles the files of aten/src/ATen/native/cpu once per CPU capability; the AVX2 and AVX512 copies are
 * built with FMA enabled and GCC contracts `a*b + c` into one fused operation. Official x86 wheels on
 * AVX2/AVX512 machines therefore fuse every "scale and shift" below. This file is compiled with
 * -ffp-contract=off (and the pragma) so the compiler never fuses on its own; fma()/fmaf() appear exactly
 * where torch's AVX2 build fuses. Generator code (CPUGeneratorImpl.cpp, randperm in TensorFactories.cpp,
 * poisson in Distributions.cpp) is built without -mfma, so it has no fused operations.
 *
 * Note [libm]
 * The double paths call log, log1p, sin, cos, tan, exp, lgamma as torch does, so they are bit-exact where
 * the libm is the one torch uses (glibc on Linux). musl (wasm32-wasi) differs from glibc in the last bit
 * for about 3% of sin/cos/tan and 10% of exp results (0.08% for log1p), which shows in float64 outputs of
 * normal_ (small path and float64 fill), exponential_, log_normal_ and cauchy_; float32 and smaller
 * outputs almost always round it away. The float32 vectorised normal path uses only its own polynomial
 * code and sqrtf (correctly rounded everywhere), so it is exact on any machine. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas" /* GCC ignores the STDC pragma; -ffp-contract=off holds */
#endif
#pragma STDC FP_CONTRACT OFF

#include "core/random.h"

#include <float.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#if defined(__wasi__)
#include <wasi/api.h>
#endif

#define WK_PI 3.141592653589793238462643383279502884 /* c10::pi<double> */

/* ================================================================================================
 * The engine (at::mt19937)
 * ================================================================================================ */

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UMASK 0x80000000u
#define MT_LMASK 0x7fffffffu

/* init_genrand(seed & 0xffffffff); the full 64-bit seed is kept for initial_seed(). Clears both caches. */
static void mt_seed(wk_generator *g, uint64_t seed) {
    g->seed = seed;
    g->mt[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t j = 1; j < WK_MT19937_N; j++)
        g->mt[j] = 1812433253u * (g->mt[j - 1] ^ (g->mt[j - 1] >> 30)) + j;
    g->left = 1; /* so the first draw twists */
    g->next = 0;
    g->has_next_double_normal = false;
    g->next_double_normal = 0.0;
    g->has_next_float_normal = false;
    g->next_float_normal = 0.0f;
}

/* The MT19937 twist, in place, k = 0..623 in order. */
static void mt_next_state(wk_generator *g) {
    uint32_t *mt = g->mt;
    for (int k = 0; k < WK_MT19937_N; k++) {
        uint32_t u = mt[k], v = mt[(k + 1) % WK_MT19937_N];
        uint32_t y = (u & MT_UMASK) | (v & MT_LMASK);
        mt[k] = mt[(k + MT_M) % WK_MT19937_N] ^ (y >> 1) ^ ((v & 1u) ? MT_MATRIX_A : 0u);
    }
    g->left = WK_MT19937_N;
    g->next = 0;
}

static uint32_t mt_draw(wk_generator *g) {
    if (--g->left == 0) mt_next_state(g);
    uint32_t y = g->mt[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

static uint64_t mt_draw64(wk_generator *g) {
    uint64_t hi = mt_draw(g);
    uint64_t lo = mt_draw(g);
    return (hi << 32) | lo;
}

/* ================================================================================================
 * Generators: creation, the default generator, seeding, state bytes
 * ================================================================================================ */

static wk_generator default_gen;
static atomic_int default_gen_ready; /* 0 = not yet, 1 = being seeded, 2 = ready */

/* c10::detail::getNonDeterministicRandom (CPU): 8 bytes of /dev/urandom. Falls back to the clock. */
static uint64_t nondeterministic_seed(void) {
    uint64_t s = 0;
#if defined(__wasi__)
    if (__wasi_random_get((uint8_t *)&s, sizeof s) == 0) return s;
#else
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        size_t got = fread(&s, 1, sizeof s, f);
        fclose(f);
        if (got == sizeof s) return s;
    }
#endif
    /* No entropy source: mix the wall clock (C11 timespec_get) and an address (splitmix64 finaliser). */
    struct timespec ts = {0, 0};
    timespec_get(&ts, TIME_UTC);
    s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&s;
    s += 0x9e3779b97f4a7c15ull;
    s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ull;
    s = (s ^ (s >> 27)) * 0x94d049bb133111ebull;
    return s ^ (s >> 31);
}

WK_API wk_generator *wk_default_generator(void) {
    if (atomic_load(&default_gen_ready) != 2) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&default_gen_ready, &expected, 1)) {
            mt_seed(&default_gen, nondeterministic_seed());
            default_gen.refcount = 1;
            default_gen.pyobj = NULL;
            atomic_store(&default_gen_ready, 2);
        } else {
            while (atomic_load(&default_gen_ready) != 2) {
            }
        }
    }
    return &default_gen;
}

static wk_generator *gen_or_default(wk_generator *g) { return g ? g : wk_default_generator(); }

WK_API wk_generator *wk_generator_new(void) {
    wk_generator *g = wk__malloc(sizeof *g);
    if (!g) return NULL;
    mt_seed(g, WK_GENERATOR_DEFAULT_SEED);
    g->refcount = 1;
    g->pyobj = NULL;
    return g;
}

WK_API wk_generator *wk_generator_retain(wk_generator *g) {
    if (g && g != &default_gen) g->refcount++;
    return g;
}

WK_API void wk_generator_release(wk_generator *g) {
    if (!g || g == &default_gen) return;
    if (--g->refcount == 0) free(g);
}

WK_API wk_generator *wk_generator_clone(const wk_generator *g) {
    const wk_generator *src = g ? g : wk_default_generator();
    wk_generator *c = wk__malloc(sizeof *c);
    if (!c) return NULL;
    *c = *src;
    c->refcount = 1;
    c->pyobj = NULL;
    return c;
}

WK_API wk_generator *wk_generator_manual_seed(wk_generator *g, uint64_t seed) {
    g = gen_or_default(g);
    mt_seed(g, seed);
    return g;
}

WK_API uint64_t wk_generator_initial_seed(const wk_generator *g) {
    return g ? g->seed : wk_default_generator()->seed;
}

WK_API uint64_t wk_generator_seed(wk_generator *g) {
    uint64_t s = nondeterministic_seed();
    mt_seed(gen_or_default(g), s);
    return s;
}

WK_API uint32_t wk_random32(wk_generator *g) { return mt_draw(gen_or_default(g)); }
WK_API uint64_t wk_random64(wk_generator *g) { return mt_draw64(gen_or_default(g)); }

/* Little-endian field access for the state bytes. */
static void put_le(uint8_t *p, uint64_t v, int nbytes) {
    for (int i = 0; i < nbytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *p, int nbytes) {
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Byte offsets in CPUGeneratorImplState (x86-64): the legacy THGenerator block, then the float cache. */
enum {
    ST_SEED = 0,           /* uint64 the_initial_seed */
    ST_LEFT = 8,           /* int32 left */
    ST_SEEDED = 12,        /* int32 seeded */
    ST_NEXT = 16,          /* uint64 next */
    ST_MT = 24,            /* uint64 state[624], each word zero-extended */
    ST_NORMAL_X = 5016,    /* double, always 0 */
    ST_NORMAL_Y = 5024,    /* double: the cached double normal */
    ST_NORMAL_RHO = 5032,  /* double, always 0 */
    ST_NORMAL_VALID = 5040, /* int32 */
    ST_FLOAT_NORMAL = 5048, /* float: the cached float normal */
    ST_FLOAT_VALID = 5052,  /* bool */
};

WK_API void wk_generator_get_state(const wk_generator *g, uint8_t out[WK_GENERATOR_STATE_SIZE]) {
    if (!g) g = wk_default_generator();
    memset(out, 0, WK_GENERATOR_STATE_SIZE);
    put_le(out + ST_SEED, g->seed, 8);
    put_le(out + ST_LEFT, (uint32_t)g->left, 4);
    put_le(out + ST_SEEDED, 1, 4);
    put_le(out + ST_NEXT, g->next, 8);
    for (int k = 0; k < WK_MT19937_N; k++) put_le(out + ST_MT + 8 * k, g->mt[k], 8);
    if (g->has_next_double_normal) {
        uint64_t bits;
        memcpy(&bits, &g->next_double_normal, 8);
        put_le(out + ST_NORMAL_Y, bits, 8);
        put_le(out + ST_NORMAL_VALID, 1, 4);
    }
    if (g->has_next_float_normal) {
        uint32_t bits;
        memcpy(&bits, &g->next_float_normal, 4);
        put_le(out + ST_FLOAT_NORMAL, bits, 4);
        out[ST_FLOAT_VALID] = 1;
    }
}

WK_API int wk_generator_set_state(wk_generator *g, const uint8_t *state, size_t n) {
    g = gen_or_default(g);
    if (n != WK_GENERATOR_STATE_SIZE) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected a CPUGeneratorImplState of size %d but found the input RNG state size to be %zu",
                  WK_GENERATOR_STATE_SIZE, n);
        return -1;
    }
    /* torch copies the fields into an engine, narrowing `next` and each state word to 32 bits, then
     * checks seeded && 0 < left <= 624 && next <= 624. */
    int32_t left = (int32_t)(uint32_t)get_le(state + ST_LEFT, 4);
    bool seeded = get_le(state + ST_SEEDED, 4) != 0;
    uint32_t next = (uint32_t)get_le(state + ST_NEXT, 8);
    if (!(seeded && left > 0 && left <= WK_MT19937_N && next <= WK_MT19937_N)) {
        wk__error(WK_RUNTIME_ERROR, "Invalid mt19937 state");
        return -1;
    }
    g->seed = get_le(state + ST_SEED, 8);
    g->left = left;
    g->next = next;
    for (int k = 0; k < WK_MT19937_N; k++) g->mt[k] = (uint32_t)get_le(state + ST_MT + 8 * k, 8);
    uint64_t ybits = get_le(state + ST_NORMAL_Y, 8);
    uint32_t fbits = (uint32_t)get_le(state + ST_FLOAT_NORMAL, 4);
    g->has_next_double_normal = get_le(state + ST_NORMAL_VALID, 4) != 0;
    g->has_next_float_normal = state[ST_FLOAT_VALID] != 0;
    memcpy(&g->next_double_normal, &ybits, 8);
    memcpy(&g->next_float_normal, &fbits, 4);
    if (!g->has_next_double_normal) g->next_double_normal = 0.0;
    if (!g->has_next_float_normal) g->next_float_normal = 0.0f;
    return 0;
}

/* ================================================================================================
 * dtype helpers: names for messages, stores with C++/x86 conversion semantics
 * ================================================================================================ */

static const char *scalar_type_name(wk_dtype dt) { /* c10::ScalarType: "Long" */
    switch (dt) {
#define WK_X(E, n, s, sz, k) \
    case WK_##E:             \
        return #s;
        WK_DTYPES(WK_X)
#undef WK_X
    default:
        return "Undefined";
    }
}

static const char *type_meta_name(wk_dtype dt) { /* caffe2::TypeMeta (GCC's demangled names) */
    switch (dt) {
    case WK_BOOL: return "bool";
    case WK_UINT8: return "unsigned char";
    case WK_INT8: return "signed char";
    case WK_INT16: return "short int";
    case WK_INT32: return "int";
    case WK_INT64: return "long int";
    case WK_FLOAT16: return "c10::Half";
    case WK_BFLOAT16: return "c10::BFloat16";
    case WK_FLOAT32: return "float";
    case WK_FLOAT64: return "double";
    default: return "nullptr (uninitialized)";
    }
}

static size_t dtype_size(wk_dtype dt) {
    switch (dt) {
#define WK_X(E, n, s, sz, k) \
    case WK_##E:             \
        return sz;
        WK_DTYPES(WK_X)
#undef WK_X
    default:
        return 0;
    }
}

static bool is_floating(wk_dtype dt) {
    return dt == WK_FLOAT16 || dt == WK_BFLOAT16 || dt == WK_FLOAT32 || dt == WK_FLOAT64;
}

static int not_implemented(const char *kernel, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", kernel, scalar_type_name(dt));
    return -1;
}

/* x86 cvttsd2si: out-of-range and NaN give the "integer indefinite" value (INT_MIN). GCC converts
 * double to int8/uint8/int16 through the 32-bit form and truncates. */
static int32_t cvtt_i32(double d) {
    return (d > -2147483649.0 && d < 2147483648.0) ? (int32_t)d : INT32_MIN;
}
static int64_t cvtt_i64(double d) {
    return (d >= -9223372036854775808.0 && d < 9223372036854775808.0) ? (int64_t)d : INT64_MIN;
}

/* static_cast<scalar_t>(double v), stored at out[i]. Half/BFloat16 go through float (c10 has only a
 * float constructor), so a double is rounded twice. */
static void store_double(wk_dtype dt, void *out, int64_t i, double v) {
    switch (dt) {
    case WK_BOOL: ((bool *)out)[i] = v != 0.0; break;
    case WK_UINT8: ((uint8_t *)out)[i] = (uint8_t)(uint32_t)cvtt_i32(v); break;
    case WK_INT8: { uint8_t b = (uint8_t)(uint32_t)cvtt_i32(v); memcpy((int8_t *)out + i, &b, 1); break; }
    case WK_INT16: { uint16_t h = (uint16_t)(uint32_t)cvtt_i32(v); memcpy((int16_t *)out + i, &h, 2); break; }
    case WK_INT32: ((int32_t *)out)[i] = cvtt_i32(v); break;
    case WK_INT64: ((int64_t *)out)[i] = cvtt_i64(v); break;
    case WK_FLOAT16: ((uint16_t *)out)[i] = wk__float_to_half((float)v); break;
    case WK_BFLOAT16: ((uint16_t *)out)[i] = wk__float_to_bf16((float)v); break;
    case WK_FLOAT32: ((float *)out)[i] = (float)v; break;
    case WK_FLOAT64: ((double *)out)[i] = v; break;
    default: break;
    }
}

/* static_cast<scalar_t>(float v) for the float-computing kernels (float32, float16, bfloat16 outputs). */
static void store_float(wk_dtype dt, void *out, int64_t i, float v) {
    switch (dt) {
    case WK_FLOAT16: ((uint16_t *)out)[i] = wk__float_to_half(v); break;
    case WK_BFLOAT16: ((uint16_t *)out)[i] = wk__float_to_bf16(v); break;
    case WK_FLOAT32: ((float *)out)[i] = v; break;
    default: store_double(dt, out, i, (double)v); break;
    }
}

/* static_cast<scalar_t>(int64_t v): integers wrap (two's complement), floats round to nearest. */
static void store_int64(wk_dtype dt, void *out, int64_t i, int64_t v) {
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case WK_BOOL: ((bool *)out)[i] = v != 0; break;
    case WK_UINT8: ((uint8_t *)out)[i] = (uint8_t)u; break;
    case WK_INT8: { uint8_t b = (uint8_t)u; memcpy((int8_t *)out + i, &b, 1); break; }
    case WK_INT16: { uint16_t h = (uint16_t)u; memcpy((int16_t *)out + i, &h, 2); break; }
    case WK_INT32: { uint32_t w = (uint32_t)u; memcpy((int32_t *)out + i, &w, 4); break; }
    case WK_INT64: ((int64_t *)out)[i] = v; break;
    case WK_FLOAT16: ((uint16_t *)out)[i] = wk__float_to_half((float)v); break;
    case WK_BFLOAT16: ((uint16_t *)out)[i] = wk__float_to_bf16((float)v); break;
    case WK_FLOAT32: ((float *)out)[i] = (float)v; break;
    case WK_FLOAT64: ((double *)out)[i] = (double)v; break;
    default: break;
    }
}

/* Element i of a floating buffer, as float (float16/bfloat16/float32) or double. */
static double load_floating(wk_dtype dt, const void *p, int64_t i) {
    switch (dt) {
    case WK_FLOAT16: return wk__half_to_float(((const uint16_t *)p)[i]);
    case WK_BFLOAT16: return wk__bf16_to_float(((const uint16_t *)p)[i]);
    case WK_FLOAT32: return ((const float *)p)[i];
    case WK_FLOAT64: return ((const double *)p)[i];
    default: return 0.0;
    }
}

/* std::numeric_limits<scalar_t>::digits for the floating dtypes. */
static int float_digits(wk_dtype dt) {
    switch (dt) {
    case WK_FLOAT16: return 11;
    case WK_BFLOAT16: return 8;
    case WK_FLOAT32: return 24;
    default: return 53;
    }
}

/* numeric_limits<scalar_t>::max() as a double (lowest() is its negation). */
static double float_max(wk_dtype dt) {
    switch (dt) {
    case WK_FLOAT16: return 65504.0;
    case WK_BFLOAT16: return 3.3895313892515355e+38; /* 0x7f7f */
    case WK_FLOAT32: return (double)FLT_MAX;
    default: return DBL_MAX;
    }
}

/* static_cast<scalar_t>(float v) read back as float: the value the dtype actually holds. */
static float round_to_dtype(wk_dtype dt, float v) {
    if (dt == WK_FLOAT16) return wk__half_to_float(wk__float_to_half(v));
    if (dt == WK_BFLOAT16) return wk__bf16_to_float(wk__float_to_bf16(v));
    return v;
}

/* ================================================================================================
 * Uniform transforms (at::uniform_real_distribution with from = 0, to = 1)
 * ================================================================================================ */

/* float: 24 random bits on a 2^-24 grid in [0, 1). One draw. */
static float uniform_float(wk_generator *g) { return (float)(mt_draw(g) & 0xffffffu) * 0x1p-24f; }

/* double: the low 53 bits of random64() on a 2^-53 grid in [0, 1). Two draws. */
static double uniform_double(wk_generator *g) {
    return (double)(mt_draw64(g) & ((UINT64_C(1) << 53) - 1)) * 0x1p-53;
}

/* ================================================================================================
 * uniform_
 * ================================================================================================ */

WK_INTERNAL int wk__uniform_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double from, double to) {
    if (!is_floating(dtype)) return not_implemented("check_uniform_bounds", dtype);
    double max = float_max(dtype), min = -max;
    if (!(from >= min && from <= max)) {
        wk__error(WK_RUNTIME_ERROR, "from is out of bounds for %s", type_meta_name(dtype));
        return -1;
    }
    if (!(to >= min && to <= max)) {
        wk__error(WK_RUNTIME_ERROR, "to is out of bounds for %s", type_meta_name(dtype));
        return -1;
    }
    if (!(from <= to)) {
        wk__error(WK_RUNTIME_ERROR, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                  from, to);
        return -1;
    }
    if (!(to - from <= max)) {
        wk__error(WK_RUNTIME_ERROR,
                  "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found to=%g and from=%g "
                  "which result in to-from to exceed the limit",
                  scalar_type_name(dtype), to, from);
        return -1;
    }
    if (n == 0) return 0;
    g = gen_or_default(g);
    if (dtype == WK_FLOAT64) {
        double *d = out; /* [n] */
        double span = to - from;
        for (int64_t i = 0; i < n; i++) {
            double v = fma(uniform_double(g), span, from);
            d[i] = v == to ? from : v; /* the cast rounded up to `to`: return `from` */
        }
        return 0;
    }
    /* float32/float16/bfloat16 compute in float (opmath), then cast; compare in the output dtype. */
    float from_f = (float)from, to_f = (float)to, span = to_f - from_f;
    float to_scalar = round_to_dtype(dtype, (float)to), from_scalar = round_to_dtype(dtype, (float)from);
    for (int64_t i = 0; i < n; i++) {
        float v = round_to_dtype(dtype, fmaf(uniform_float(g), span, from_f));
        store_float(dtype, out, i, v == to_scalar ? from_scalar : v);
    }
    return 0;
}

/* ================================================================================================
 * normal_
 * ================================================================================================ */

/* at::normal_distribution<double>: Box–Muller with the second sample cached in the generator. */
static double normal_double_sample(wk_generator *g, double mean, double std) {
    if (g->has_next_double_normal) {
        g->has_next_double_normal = false;
        return fma(g->next_double_normal, std, mean);
    }
    double u1 = uniform_double(g);
    double u2 = uniform_double(g);
    double r = sqrt(-2.0 * log1p(-u2));
    double theta = 2.0 * WK_PI * u1;
    g->next_double_normal = r * sin(theta);
    g->has_next_double_normal = true;
    return fma(r * cos(theta), std, mean);
}

/* Cephes-style float32 log of avx_mathfun.h (log256_ps), as GCC compiles it with FMA (x > 0 here). */
static float avx2_logf(float x) {
    static const float P[9] = {7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f,
                               -1.2420140846e-1f, 1.4249322787e-1f, -1.6668057665e-1f,
                               2.0000714765e-1f, -2.4999993993e-1f, 3.3333331174e-1f};
    const float Q1 = -2.12194440e-4f, Q2 = 0.693359375f, SQRTHF = 0.707106781186547524f;
    if (!(x > 0.0f)) return NAN;
    if (x < FLT_MIN) x = FLT_MIN;
    uint32_t bits;
    memcpy(&bits, &x, 4);
    int e_i = (int)(bits >> 23) - 127;
    uint32_t mbits = (bits & ~0x7f800000u) | 0x3f000000u; /* mantissa with the exponent of 0.5 */
    float m;
    memcpy(&m, &mbits, 4);
    float e = (float)e_i + 1.0f;
    float t = 0.0f;
    if (m < SQRTHF) {
        e = e - 1.0f;
        t = m;
    }
    float xm = m - 1.0f;
    xm = xm + t;
    float z = xm * xm;
    float y = P[0];
    for (int k = 1; k < 9; k++) y = fmaf(y, xm, P[k]);
    y = y * xm;
    y = fmaf(y, z, e * Q1);
    y = fmaf(-z, 0.5f, y);
    xm = xm + y;
    return fmaf(e, Q2, xm);
}

/* Cephes-style float32 sincos of avx_mathfun.h (sincos256_ps), as GCC compiles it with FMA. */
static void avx2_sincosf(float x, float *s_out, float *c_out) {
    const float DP1 = -0.78515625f, DP2 = -2.4187564849853515625e-4f, DP3 = -3.77489497744594108e-8f;
    const float FOPI = 1.27323954473516f;
    const float S0 = -1.9515295891e-4f, S1 = 8.3321608736e-3f, S2 = -1.6666654611e-1f;
    const float C0 = 2.443315711809948e-5f, C1 = -1.388731625493765e-3f, C2 = 4.166664568298827e-2f;
    uint32_t xbits;
    memcpy(&xbits, &x, 4);
    uint32_t sign_sin = xbits & 0x80000000u;
    x = fabsf(x);
    float y = x * FOPI;
    int32_t j = (int32_t)y; /* cvttps: truncation */
    j = (j + 1) & ~1;
    y = (float)j;
    if (j & 4) sign_sin ^= 0x80000000u;
    bool poly_sin = (j & 2) == 0; /* the sine polynomial gives sin (else the cosine one does) */
    x = fmaf(y, DP1, x);
    x = fmaf(y, DP2, x);
    x = fmaf(y, DP3, x);
    uint32_t sign_cos = ((~(uint32_t)(j - 2)) & 4u) ? 0x80000000u : 0u;
    float z = x * x;
    float c = C0;
    c = fmaf(c, z, C1);
    c = fmaf(c, z, C2);
    c = c * z;
    c = fmaf(c, z, -(z * 0.5f));
    c = c + 1.0f;
    float s = S0;
    s = fmaf(s, z, S1);
    s = fmaf(s, z, S2);
    s = s * z;
    s = fmaf(s, x, x);
    float sv = poly_sin ? s : c, cv = poly_sin ? c : s;
    uint32_t sb, cb;
    memcpy(&sb, &sv, 4);
    memcpy(&cb, &cv, 4);
    sb ^= sign_sin;
    cb ^= sign_cos;
    memcpy(s_out, &sb, 4);
    memcpy(c_out, &cb, 4);
}

/* NormalFill16<float> (AVX2): d[16] uniforms in [0, 1) -> 16 normals; pairs (d[j], d[j+8]). */
static void normal_fill_16_float(float *d, float mean, float std) {
    const float two_pi = (float)(2.0 * WK_PI);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j];
        float u2 = d[j + 8];
        float radius = sqrtf(-2.0f * avx2_logf(u1));
        float theta = two_pi * u2;
        float s, c;
        avx2_sincosf(theta, &s, &c);
        float n1 = radius * c, n2 = radius * s;
        d[j] = fmaf(n1, std, mean);
        d[j + 8] = fmaf(n2, std, mean);
    }
}

/* NormalFill16<double>: scalar Box–Muller with libm, explicit std::fma. */
static void normal_fill_16_double(double *d, double mean, double std) {
    for (int j = 0; j < 8; j++) {
        double u1 = 1.0 - d[j];
        double u2 = d[j + 8];
        double radius = sqrt(-2.0 * log(u1));
        double theta = 2.0 * WK_PI * u2;
        d[j] = fma(radius * cos(theta), std, mean);
        d[j + 8] = fma(radius * sin(theta), std, mean);
    }
}

/* normal_fill: the vectorised path for a contiguous tensor of n >= 16 elements. */
static void normal_fill(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double mean, double std) {
    if (dtype == WK_FLOAT64) {
        double *d = out; /* [n]: first all n uniforms, then each full block of 16 is transformed */
        for (int64_t i = 0; i < n; i++) d[i] = uniform_double(g);
        for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16_double(d + i, mean, std);
        if (n % 16 != 0) { /* 16 fresh uniforms over the last 16 slots, transformed again */
            double *tail = d + n - 16;
            for (int k = 0; k < 16; k++) tail[k] = uniform_double(g);
            normal_fill_16_double(tail, mean, std);
        }
        return;
    }
    float mean_f = (float)mean, std_f = (float)std;
    if (dtype == WK_FLOAT32) {
        float *d = out; /* [n], as for float64 */
        for (int64_t i = 0; i < n; i++) d[i] = uniform_float(g);
        for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16_float(d + i, mean_f, std_f);
        if (n % 16 != 0) {
            float *tail = d + n - 16;
            for (int k = 0; k < 16; k++) tail[k] = uniform_float(g);
            normal_fill_16_float(tail, mean_f, std_f);
        }
        return;
    }
    /* float16/bfloat16: each full block draws 16 float uniforms into buf, transforms and casts; the
     * n % 16 leftover uniforms are never drawn: the tail block draws 16 and overwrites the last 16. */
    float buf[16]; /* one block of float uniforms, then normals */
    for (int64_t i = 0; i + 16 <= n; i += 16) {
        for (int k = 0; k < 16; k++) buf[k] = uniform_float(g);
        normal_fill_16_float(buf, mean_f, std_f);
        for (int k = 0; k < 16; k++) store_float(dtype, out, i + k, buf[k]);
    }
    if (n % 16 != 0) {
        for (int k = 0; k < 16; k++) buf[k] = uniform_float(g);
        normal_fill_16_float(buf, mean_f, std_f);
        for (int k = 0; k < 16; k++) store_float(dtype, out, n - 16 + k, buf[k]);
    }
}

WK_INTERNAL int wk__normal_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double mean, double std,
                            bool contiguous) {
    if (!(std >= 0.0)) {
        wk__error(WK_RUNTIME_ERROR, "normal expects std >= 0.0, but found std %g", std);
        return -1;
    }
    if (n == 0) return 0;
    if (!is_floating(dtype)) return not_implemented("normal_kernel_cpu", dtype);
    g = gen_or_default(g);
    if (n >= 16 && contiguous) {
        normal_fill(g, dtype, out, n, mean, std);
        return 0;
    }
    for (int64_t i = 0; i < n; i++) store_double(dtype, out, i, normal_double_sample(g, mean, std));
    return 0;
}

/* ================================================================================================
 * random_
 * ================================================================================================ */

WK_INTERNAL int wk__random_(wk_generator *g, wk_dtype dtype, void *out, int64_t n) {
    if (n == 0) return 0;
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        /* uniform_int_distribution: random64() for int64/double, random() otherwise; then % (max+1),
         * or % (2^digits + 1) for the floating dtypes. */
        switch (dtype) {
        case WK_BOOL: ((bool *)out)[i] = (mt_draw(g) & 1u) != 0; break;
        case WK_UINT8: store_int64(dtype, out, i, mt_draw(g) % 256u); break;
        case WK_INT8: store_int64(dtype, out, i, mt_draw(g) % 128u); break;
        case WK_INT16: store_int64(dtype, out, i, mt_draw(g) % 32768u); break;
        case WK_INT32: store_int64(dtype, out, i, mt_draw(g) % 2147483648u); break;
        case WK_INT64: store_int64(dtype, out, i, (int64_t)(mt_draw64(g) % (UINT64_C(1) << 63))); break;
        case WK_FLOAT16: store_int64(dtype, out, i, mt_draw(g) % ((1u << 11) + 1)); break;
        case WK_BFLOAT16: store_int64(dtype, out, i, mt_draw(g) % ((1u << 8) + 1)); break;
        case WK_FLOAT32: store_int64(dtype, out, i, mt_draw(g) % ((1u << 24) + 1)); break;
        case WK_FLOAT64:
            store_int64(dtype, out, i, (int64_t)(mt_draw64(g) % ((UINT64_C(1) << 53) + 1)));
            break;
        default: break;
        }
    }
    return 0;
}

/* update_from/update_to: move a bound that the dtype cannot hold inward to a value it can. */
static int64_t cast_through_dtype(wk_dtype dt, int64_t v) { /* static_cast<int64_t>(static_cast<T>(v)) */
    if (dt == WK_FLOAT64) return cvtt_i64((double)v);
    return cvtt_i64((double)round_to_dtype(dt, (float)v));
}
static int64_t update_from(wk_dtype dt, int64_t from) {
    int64_t from_plus_1 = cast_through_dtype(dt, (int64_t)((uint64_t)from + 1));
    if (from_plus_1 < from) {
        int64_t f = (int64_t)((uint64_t)from + 1);
        uint64_t a = f < 0 ? (uint64_t)0 - (uint64_t)f : (uint64_t)f;
        int nbits = 0;
        while (a >>= 1) ++nbits;
        from = (int64_t)((uint64_t)from_plus_1 + (UINT64_C(1) << (nbits - float_digits(dt) + 1)));
    }
    return from;
}
static int64_t update_to(wk_dtype dt, int64_t to) {
    int64_t to_minus_1 = cast_through_dtype(dt, (int64_t)((uint64_t)to - 1));
    if (to_minus_1 >= to) {
        int64_t t = (int64_t)((uint64_t)to - 1);
        uint64_t a = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
        int nbits = 0;
        while (a >>= 1) ++nbits;
        to = (int64_t)((uint64_t)to_minus_1 - (UINT64_C(1) << (nbits - float_digits(dt) + 1)));
    }
    return to;
}

/* check_from_to_in_range: both bounds must be representable in the dtype. */
static int check_from_to_in_range(wk_dtype dt, int64_t from, int64_t to_inc) {
    bool from_ok, to_ok;
    if (is_floating(dt)) {
        double max = float_max(dt);
        from_ok = (double)from >= -max && (double)from <= max;
        to_ok = (double)to_inc >= -max && (double)to_inc <= max;
    } else {
        int64_t lo, hi;
        switch (dt) {
        case WK_BOOL: lo = 0; hi = 1; break;
        case WK_UINT8: lo = 0; hi = 255; break;
        case WK_INT8: lo = -128; hi = 127; break;
        case WK_INT16: lo = -32768; hi = 32767; break;
        case WK_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
        default: lo = INT64_MIN; hi = INT64_MAX; break;
        }
        from_ok = from >= lo && from <= hi;
        to_ok = to_inc >= lo && to_inc <= hi;
    }
    if (!from_ok) {
        wk__error(WK_RUNTIME_ERROR, "from is out of bounds for %s", type_meta_name(dt));
        return -1;
    }
    if (!to_ok) {
        wk__error(WK_RUNTIME_ERROR, "to - 1 is out of bounds for %s", type_meta_name(dt));
        return -1;
    }
    if (is_floating(dt)) { /* WARN_OUT_OF_BOUNDS: beyond ±2^digits not every integer is representable */
        int d = float_digits(dt);
        int64_t lim = INT64_C(1) << d;
        const char *names[2] = {"from", "to - 1"};
        int64_t vals[2] = {from, to_inc};
        for (int k = 0; k < 2; k++)
            if (vals[k] < -lim || vals[k] > lim)
                wk__warn("%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations %s can support discrete "
                         "uniform distribution only within this range. This warning will become an error in version "
                         "1.7 release, please fix the code in advance",
                         names[k], d, d, type_meta_name(dt));
    }
    return 0;
}

/* random_from_to_kernel: value = (int64)(v % range + base), v = random64() when range >= 2^28. */
static void random_from_to_kernel(wk_generator *g, wk_dtype dtype, void *out, int64_t n, uint64_t range,
                                  int64_t base) {
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = range >= (UINT64_C(1) << 28) ? mt_draw64(g) : (uint64_t)mt_draw(g);
        store_int64(dtype, out, i, (int64_t)(v % range + (uint64_t)base));
    }
}

WK_INTERNAL int wk__random_from_to_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, int64_t from,
                                    bool has_to, int64_t to) {
    uint64_t range;
    if (has_to) {
        if (!(from < to)) {
            wk__error(WK_RUNTIME_ERROR,
                      "random_ expects 'from' to be less than 'to', but got from=%" PRId64 " >= to=%" PRId64,
                      from, to);
            return -1;
        }
        if (is_floating(dtype)) {
            from = update_from(dtype, from);
            to = update_to(dtype, to);
            if (!(from < to)) {
                wk__error(WK_RUNTIME_ERROR,
                          "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                          "from=%" PRId64 " >= to=%" PRId64,
                          from, to);
                return -1;
            }
        }
        if (check_from_to_in_range(dtype, from, (int64_t)((uint64_t)to - 1)) < 0) return -1;
        if (n == 0) return 0;
        range = (uint64_t)to - (uint64_t)from;
    } else if (from != INT64_MIN) {
        int64_t to_inc;
        if (is_floating(dtype)) {
            int d = float_digits(dtype);
            to_inc = d >= 63 ? INT64_MAX : (int64_t)(UINT64_C(1) << d);
            from = update_from(dtype, from);
            if (!(from < to_inc)) {
                wk__error(WK_RUNTIME_ERROR,
                          "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
                          "dtype, but got from=%" PRId64 " > to_inc=%" PRId64,
                          from, to_inc);
                return -1;
            }
        } else {
            switch (dtype) {
            case WK_BOOL: to_inc = 1; break;
            case WK_UINT8: to_inc = 255; break;
            case WK_INT8: to_inc = 127; break;
            case WK_INT16: to_inc = 32767; break;
            case WK_INT32: to_inc = INT32_MAX; break;
            default: to_inc = INT64_MAX; break;
            }
        }
        if (check_from_to_in_range(dtype, from, to_inc) < 0) return -1;
        if (n == 0) return 0;
        range = (uint64_t)to_inc - (uint64_t)from + 1;
    } else {
        /* random_full_64_bits_range_kernel: (T)(int64_t)random64() for int64, double, float, bfloat16. */
        if (n == 0) return 0;
        if (dtype == WK_BOOL || dtype == WK_FLOAT16)
            return not_implemented("random_full_64_bits_range_kernel_cpu", dtype);
        if (dtype != WK_INT64 && dtype != WK_FLOAT64 && dtype != WK_FLOAT32 && dtype != WK_BFLOAT16) {
            wk__error(WK_RUNTIME_ERROR,
                      "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
            return -1;
        }
        g = gen_or_default(g);
        for (int64_t i = 0; i < n; i++) store_int64(dtype, out, i, (int64_t)mt_draw64(g));
        return 0;
    }
    random_from_to_kernel(gen_or_default(g), dtype, out, n, range, from);
    return 0;
}

/* ================================================================================================
 * randperm
 * ================================================================================================ */

WK_INTERNAL int wk__randperm(wk_generator *g, wk_dtype dtype, void *out, int64_t n) {
    if (n < 0) {
        wk__error(WK_RUNTIME_ERROR, "n must be non-negative, got%" PRId64, n);
        return -1;
    }
    /* check_supported_max_int_with_precision: n - 1 must convert to the dtype, n must be exact in it. */
    int64_t top = n > 0 ? n - 1 : n;
    const char *ctype = NULL;
    switch (dtype) {
    case WK_UINT8: if (top > 255) ctype = "uint8_t"; break;
    case WK_INT8: if (top > 127) ctype = "int8_t"; break;
    case WK_INT16: if (top > 32767) ctype = "int16_t"; break;
    case WK_INT32: if (top > INT32_MAX) ctype = "int"; break;
    default: break;
    }
    if (ctype) {
        wk__error(WK_RUNTIME_ERROR, "value cannot be converted to type %s without overflow", ctype);
        return -1;
    }
    if (dtype == WK_FLOAT16 && n > (INT64_C(1) << 11) + 1) {
        wk__error(WK_RUNTIME_ERROR, "n cannot be greater than 2049 for Half type.");
        return -1;
    }
    if (dtype == WK_FLOAT32 && n > (INT64_C(1) << 24) + 1) {
        wk__error(WK_RUNTIME_ERROR, "n cannot be greater than 2^24+1 for Float type.");
        return -1;
    }
    if (dtype == WK_FLOAT64 && n > (INT64_C(1) << 53) + 1) {
        wk__error(WK_RUNTIME_ERROR, "n cannot be greater than 2^53+1 for Double type.");
        return -1;
    }
    if (dtype == WK_BOOL) return not_implemented("randperm", dtype);
    g = gen_or_default(g);
    size_t esz = dtype_size(dtype);
    char *r = out; /* [n] elements of dtype */
    if (n < (int64_t)(UINT32_MAX / 20)) {
        /* r = 0..n-1, then for i = 0..n-2 swap r[i] with r[i + random() % (n - i)]. */
        for (int64_t i = 0; i < n; i++) store_int64(dtype, r, i, i);
        char tmp[8];
        for (int64_t i = 0; i < n - 1; i++) {
            int64_t z = (int64_t)(mt_draw(g) % (uint64_t)(n - i));
            memcpy(tmp, r + (size_t)i * esz, esz);
            memcpy(r + (size_t)i * esz, r + (size_t)(z + i) * esz, esz);
            memcpy(r + (size_t)(z + i) * esz, tmp, esz);
        }
        return 0;
    }
    /* n >= 214748364: the "inside-out" Fisher–Yates shuffle with random64(). */
    for (int64_t i = 0; i < n; i++) {
        int64_t z = (int64_t)(mt_draw64(g) % (uint64_t)(i + 1));
        store_int64(dtype, r, i, i);
        memcpy(r + (size_t)i * esz, r + (size_t)z * esz, esz);
        store_int64(dtype, r, z, i);
    }
    return 0;
}

/* ================================================================================================
 * bernoulli_
 * ================================================================================================ */

WK_INTERNAL int wk__bernoulli_scalar_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double p) {
    if (!(0 <= p && p <= 1)) {
        wk__error(WK_RUNTIME_ERROR, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
        return -1;
    }
    if (n == 0) return 0;
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) store_double(dtype, out, i, uniform_double(g) < p ? 1.0 : 0.0);
    return 0;
}

WK_INTERNAL int wk__bernoulli_tensor_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, wk_dtype p_dtype,
                                      const void *p) {
    if (n == 0) return 0;
    if (!is_floating(p_dtype)) return not_implemented("bernoulli_tensor_cpu_p_", p_dtype);
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        /* bernoulli_distribution<double> for double p, <float> otherwise; its constructor checks p
         * element by element, so earlier elements are already drawn and written when one fails. */
        if (p_dtype == WK_FLOAT64) {
            double pv = ((const double *)p)[i];
            if (!(pv >= 0 && pv <= 1)) goto bad_p;
            store_double(dtype, out, i, uniform_double(g) < pv ? 1.0 : 0.0);
        } else {
            float pv = (float)load_floating(p_dtype, p, i);
            if (!(pv >= 0 && pv <= 1)) goto bad_p;
            store_double(dtype, out, i, uniform_float(g) < pv ? 1.0 : 0.0);
        }
    }
    return 0;
bad_p:
    wk__error(WK_RUNTIME_ERROR, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                                "message be improved?  If so, please report an enhancement request to PyTorch.)");
    return -1;
}

/* ================================================================================================
 * exponential_, geometric_, log_normal_, cauchy_, poisson
 * ================================================================================================ */

WK_INTERNAL int wk__exponential_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double lambd) {
    if (!(lambd > 0.0)) {
        wk__error(WK_RUNTIME_ERROR, "exponential_ expects lambda > 0.0, but found lambda=%g", lambd);
        return -1;
    }
    if (n == 0) return 0;
    if (!is_floating(dtype)) {
        wk__error(WK_RUNTIME_ERROR,
                  "Exponential distribution is a continuous probability distribution. dtype must be a floating "
                  "point but you specified %s",
                  scalar_type_name(dtype));
        return -1;
    }
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        double u = uniform_double(g);
        store_double(dtype, out, i, (-1.0 / lambd) * log1p(-u));
    }
    return 0;
}

WK_INTERNAL int wk__geometric_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double p) {
    if (!(0 < p && p < 1)) {
        wk__error(WK_RUNTIME_ERROR, "geometric_ expects p to be in (0, 1), but got p=%g", p);
        return -1;
    }
    if (n == 0) return 0;
    if (dtype == WK_BOOL) return not_implemented("geometric_cpu", dtype);
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        double u = uniform_double(g);
        store_double(dtype, out, i, ceil(log(u) / log1p(-p)));
    }
    return 0;
}

WK_INTERNAL int wk__log_normal_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double mean, double std) {
    if (!(std > 0.0)) {
        wk__error(WK_RUNTIME_ERROR, "log_normal_ expects std > 0.0, but found std=%g", std);
        return -1;
    }
    if (n == 0) return 0;
    if (!is_floating(dtype)) return not_implemented("log_normal_cpu", dtype);
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) store_double(dtype, out, i, exp(normal_double_sample(g, mean, std)));
    return 0;
}

WK_INTERNAL int wk__cauchy_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double median, double sigma) {
    if (!(sigma > 0.0)) {
        wk__error(WK_RUNTIME_ERROR, "cauchy_ expects sigma > 0.0, but found sigma=%g", sigma);
        return -1;
    }
    if (!is_floating(dtype)) {
        wk__error(WK_RUNTIME_ERROR,
                  "Cauchy distribution is a continuous probability distribution. dtype must be a floating point "
                  "but you specified %s",
                  type_meta_name(dtype));
        return -1;
    }
    if (n == 0) return 0;
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        double u = uniform_double(g);
        store_double(dtype, out, i, fma(sigma, tan(WK_PI * (u - 0.5)), median));
    }
    return 0;
}

/* sample_poisson (Distributions.cpp, not a per-capability kernel: no fused operations). */
static int64_t sample_poisson(wk_generator *g, double lambda) {
    if (lambda >= 10) { /* transformed rejection (Hoermann 1993) */
        double slam = sqrt(lambda);
        double loglam = log(lambda);
        double b = 0.931 + 2.53 * slam;
        double a = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4);
        double vr = 0.9277 - 3.6224 / (b - 2);
        for (;;) {
            double U = uniform_double(g) - 0.5;
            double V = uniform_double(g);
            double us = 0.5 - fabs(U);
            int64_t k = cvtt_i64(floor((2 * a / us + b) * U + lambda + 0.43));
            if (us >= 0.07 && V <= vr) return k;
            if (k < 0 || (us < 0.013 && V > us)) continue;
            if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lambda + (double)k * loglam - lgamma((double)k + 1))
                return k;
        }
    }
    if (lambda == 0) return 0;
    double enlam = exp(-lambda); /* multiplication method */
    int64_t x = 0;
    double prod = 1.0;
    for (;;) {
        prod *= uniform_double(g);
        if (prod > enlam)
            x += 1;
        else
            return x;
    }
}

WK_INTERNAL int wk__poisson(wk_generator *g, wk_dtype dtype, void *out, const void *rates, int64_t n) {
    if (!is_floating(dtype)) return not_implemented("poisson_cpu", dtype);
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        double lambda = load_floating(dtype, rates, i);
        if (!(lambda >= 0)) {
            wk__error(WK_RUNTIME_ERROR, "invalid Poisson rate, expected rate to be non-negative");
            return -1;
        }
        store_int64(dtype, out, i, sample_poisson(g, lambda));
    }
    return 0;
}

/* ================================================================================================
 * _standard_gamma, _sample_dirichlet, binomial (Distributions.cpp / Distributions.h: built without FMA)
 * ================================================================================================ */

/* sample_gamma<scalar_t, double> for scalar_t = float: Marsaglia-Tsang rejection, with alpha < 1 boosted by
 * U^(1/alpha). The float-typed steps stay float (1.0f / alpha, alpha += 1, alpha - 1.0f / 3.0f); the rest is
 * double, with torch's float literals (0.0331f) promoted. Draws: uniform_double and the cached normal. */
static float sample_gamma_float(wk_generator *g, float alpha) {
    double scale = 1.0f;
    if (alpha < 1.0f) {
        if (alpha == 0.f) return 0.f;
        scale *= pow(1 - uniform_double(g), (double)(1.0f / alpha));
        alpha += 1.0f;
    }
    const double d = (double)(alpha - 1.0f / 3.0f);
    const double c = 1.0f / sqrt(9.0f * d);
    for (;;) {
        double x, y;
        do {
            x = normal_double_sample(g, 0.0, 1.0);
            y = 1.0f + c * x;
        } while (y <= 0);
        const double v = y * y * y;
        const double u = 1 - uniform_double(g);
        const double xx = x * x;
        if (u < 1.0f - 0.0331f * xx * xx) return (float)(scale * d * v);
        if (log(u) < 0.5f * xx + d * (1.0f - v + log(v))) return (float)(scale * d * v);
    }
}

/* sample_gamma<double, double>: the same steps in double (the float literals 1.0f / 3.0f and 0.0331f as torch's). */
static double sample_gamma_double(wk_generator *g, double alpha) {
    double scale = 1.0f;
    if (alpha < 1.0f) {
        if (alpha == 0.f) return 0.f;
        scale *= pow(1 - uniform_double(g), 1.0f / alpha);
        alpha += 1.0f;
    }
    const double d = alpha - 1.0f / 3.0f;
    const double c = 1.0f / sqrt(9.0f * d);
    for (;;) {
        double x, y;
        do {
            x = normal_double_sample(g, 0.0, 1.0);
            y = 1.0f + c * x;
        } while (y <= 0);
        const double v = y * y * y;
        const double u = 1 - uniform_double(g);
        const double xx = x * x;
        if (u < 1.0f - 0.0331f * xx * xx) return scale * d * v;
        if (log(u) < 0.5f * xx + d * (1.0f - v + log(v))) return scale * d * v;
    }
}

WK_INTERNAL int wk__gamma_draws(wk_generator *g, wk_dtype dtype, void *out, const void *alpha, int64_t n) {
    if (dtype != WK_FLOAT32 && dtype != WK_FLOAT64) return not_implemented("gamma_cpu", dtype);
    g = gen_or_default(g);
    if (dtype == WK_FLOAT32) {
        const float *a = alpha; /* [n] */
        float *o = out;         /* [n] */
        for (int64_t i = 0; i < n; i++) {
            float v = sample_gamma_float(g, a[i]);
            o[i] = v > FLT_MIN ? v : FLT_MIN; /* std::max(numeric_limits<float>::min(), v) */
        }
    } else {
        const double *a = alpha; /* [n] */
        double *o = out;         /* [n] */
        for (int64_t i = 0; i < n; i++) {
            double v = sample_gamma_double(g, a[i]);
            o[i] = v > DBL_MIN ? v : DBL_MIN;
        }
    }
    return 0;
}

WK_INTERNAL int wk__dirichlet_draws(wk_generator *g, wk_dtype dtype, void *out, const void *alpha, int64_t rows,
                                     int64_t k) {
    if (dtype != WK_FLOAT32 && dtype != WK_FLOAT64) return not_implemented("dirichlet", dtype);
    int64_t n = rows * k;
    double *gam = malloc((size_t)(n > 0 ? n : 1) * sizeof(double)); /* [rows, k]: the gamma draws, in double */
    if (!gam) {
        wk__error(WK_RUNTIME_ERROR, "out of memory");
        return -1;
    }
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) { /* all the draws first, in row-major order (torch's first iterator) */
        double a = dtype == WK_FLOAT32 ? (double)((const float *)alpha)[i] : ((const double *)alpha)[i];
        double v = sample_gamma_double(g, a);
        gam[i] = v > DBL_MIN ? v : DBL_MIN;
    }
    for (int64_t r = 0; r < rows; r++) { /* then normalise each row by its double sum */
        double sum = 0;
        for (int64_t j = 0; j < k; j++) sum += gam[r * k + j];
        for (int64_t j = 0; j < k; j++) {
            double q = gam[r * k + j] / sum;
            if (dtype == WK_FLOAT32) {
                float v = (float)q, lo = FLT_MIN, hi = nextafterf(1.0f, 0.0f);
                ((float *)out)[r * k + j] = v < lo ? lo : (v > hi ? hi : v);
            } else {
                double lo = DBL_MIN, hi = nextafter(1.0, 0.0);
                ((double *)out)[r * k + j] = q < lo ? lo : (q > hi ? hi : q);
            }
        }
    }
    free(gam);
    return 0;
}

/* stirling_approx_tail<double> (from TensorFlow's random_binomial_op.cc, as torch's). */
static double stirling_approx_tail(double k) {
    static const double tail[] = {0.0810614667953272,  0.0413406959554092,  0.0276779256849983, 0.02079067210376509,
                                  0.0166446911898211,  0.0138761288230707,  0.0118967099458917, 0.0104112652619720,
                                  0.00925546218271273, 0.00833056343336287};
    if (k <= 9) return tail[(size_t)k];
    double kp1sq = (k + 1) * (k + 1);
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

/* The binomial samplers, written once over scalar_t (float or double) the way torch's template instantiates them:
 * products of two scalar_t values stay scalar_t, std::sqrt / std::floor / std::log1p of a scalar_t are the
 * scalar_t versions, the rest is double. */
#define BINOMIAL_DEF(SUFFIX, S, SQRT, FLOOR, LOG1P)                                                                \
    static S binomial_inversion_##SUFFIX(wk_generator *g, S count, S prob) {                                       \
        double geom_sum = 0;                                                                                       \
        S num_geom = 0;                                                                                            \
        double logprob = LOG1P(-prob);                                                                             \
        for (;;) {                                                                                                 \
            double U = uniform_double(g);                                                                          \
            double geom = ceil(log(U) / logprob);                                                                  \
            geom_sum += geom;                                                                                      \
            if (geom_sum > count) break;                                                                           \
            num_geom = num_geom + 1;                                                                               \
        }                                                                                                          \
        return num_geom;                                                                                           \
    }                                                                                                              \
    static S btrs_##SUFFIX(wk_generator *g, S count, S prob) {                                                     \
        const double stddev = SQRT(count * prob * (1 - prob));                                                     \
        const double b = 1.15 + 2.53 * stddev;                                                                     \
        const double a = -0.0873 + 0.0248 * b + 0.01 * prob;                                                       \
        const double c = count * prob + 0.5;                                                                       \
        const double v_r = 0.92 - 4.2 / b;                                                                         \
        const double r = prob / (1 - prob);                                                                        \
        const double alpha = (2.83 + 5.1 / b) * stddev;                                                            \
        const double m = FLOOR((count + 1) * prob);                                                                \
        for (;;) {                                                                                                 \
            double U = uniform_double(g) - 0.5;                                                                    \
            double V = uniform_double(g);                                                                          \
            double us = 0.5 - fabs(U);                                                                             \
            S k = (S)floor((2 * a / us + b) * U + c);                                                              \
            if (k < 0 || k > count) continue;                                                                      \
            if (us >= 0.07 && V <= v_r) return k;                                                                  \
            V = log(V * alpha / (a / (us * us) + b));                                                              \
            double upperbound = ((m + 0.5) * log((m + 1) / (r * (count - m + 1))) +                                \
                                 (count + 1) * log((count - m + 1) / (count - k + 1)) +                            \
                                 (k + 0.5) * log(r * (count - k + 1) / (k + 1)) + stirling_approx_tail(m) +        \
                                 stirling_approx_tail(count - m) - stirling_approx_tail(k) -                       \
                                 stirling_approx_tail(count - k));                                                 \
            if (V <= upperbound) return k;                                                                         \
        }                                                                                                          \
    }                                                                                                              \
    static S sample_binomial_##SUFFIX(wk_generator *g, S count, S prob) {                                          \
        if (count <= 0.0 || prob <= 0.0) return 0;                                                                 \
        if (prob >= 1.0) return count;                                                                             \
        if (prob <= 0.5) {                                                                                         \
            if (count * prob >= 10.0) return btrs_##SUFFIX(g, count, prob);                                        \
            return binomial_inversion_##SUFFIX(g, count, prob);                                                    \
        }                                                                                                          \
        if (prob > 0.5) {                                                                                          \
            S qprob = (S)(1.0 - prob);                                                                             \
            if (count * qprob >= 10.0) return count - btrs_##SUFFIX(g, count, qprob);                              \
            return count - binomial_inversion_##SUFFIX(g, count, qprob);                                           \
        }                                                                                                          \
        return (S)NAN; /* prob is NaN */                                                                           \
    }
BINOMIAL_DEF(f, float, sqrtf, floorf, log1pf)
BINOMIAL_DEF(d, double, sqrt, floor, log1p)
#undef BINOMIAL_DEF

WK_INTERNAL int wk__binomial_draws(wk_generator *g, wk_dtype dtype, void *out, const void *count, const void *prob,
                             int64_t n) {
    if (dtype != WK_FLOAT32 && dtype != WK_FLOAT64) return not_implemented("binomial_cpu", dtype);
    g = gen_or_default(g);
    for (int64_t i = 0; i < n; i++) {
        if (dtype == WK_FLOAT32)
            ((float *)out)[i] = sample_binomial_f(g, ((const float *)count)[i], ((const float *)prob)[i]);
        else
            ((double *)out)[i] = sample_binomial_d(g, ((const double *)count)[i], ((const double *)prob)[i]);
    }
    return 0;
}

/* ================================================================================================
 * multinomial
 * ================================================================================================ */

/* p / q in p's dtype (q is stored in that dtype first). */
static double div_in_dtype(wk_dtype dt, double p, double q_exact) {
    if (dt == WK_FLOAT64) return p / q_exact;
    float q = round_to_dtype(dt, (float)q_exact);
    return round_to_dtype(dt, (float)p / q);
}

/* ---- topk(largest, sorted) as torch's CPU kernel (TopKImpl.h) runs it with GCC's libstdc++ ----
 * torch sorts (value, index) pairs with std::partial_sort when k * 64 <= n, otherwise std::nth_element
 * followed by std::sort of the first k - 1. Equal values (frequent in float16/bfloat16 p / q, and for
 * zero-probability categories) come out in whatever order those algorithms leave them, so they are
 * re-implemented here step for step: libstdc++'s introselect, introsort and heap routines. */
typedef struct {
    double v;  /* p / q (exact in double for every p dtype) */
    int64_t i; /* category */
} topk_item;

/* torch's comparator for largest: NaN first, then larger values. */
static bool topk_before(const topk_item *x, const topk_item *y) {
    return (isnan(x->v) && !isnan(y->v)) || x->v > y->v;
}

static void item_swap(topk_item *a, topk_item *b) {
    topk_item t = *a;
    *a = *b;
    *b = t;
}

static int64_t floor_log2(int64_t n) {
    int64_t k = 0;
    while (n >>= 1) k++;
    return k;
}

static void heap_push(topk_item *a, int64_t hole, int64_t top, topk_item value) {
    int64_t parent = (hole - 1) / 2;
    while (hole > top && topk_before(&a[parent], &value)) {
        a[hole] = a[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    a[hole] = value;
}

static void heap_adjust(topk_item *a, int64_t hole, int64_t len, topk_item value) {
    int64_t top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (topk_before(&a[child], &a[child - 1])) child--;
        a[hole] = a[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        a[hole] = a[child - 1];
        hole = child - 1;
    }
    heap_push(a, hole, top, value);
}

static void heap_make(topk_item *a, int64_t len) {
    if (len < 2) return;
    for (int64_t parent = (len - 2) / 2;; parent--) {
        heap_adjust(a, parent, len, a[parent]);
        if (parent == 0) return;
    }
}

static void heap_pop(topk_item *a, int64_t len, topk_item *result) { /* a[0] -> *result, reheap a[0..len) */
    topk_item value = *result;
    *result = a[0];
    heap_adjust(a, 0, len, value);
}

static void heap_select(topk_item *a, int64_t middle, int64_t last) {
    heap_make(a, middle);
    for (int64_t i = middle; i < last; i++)
        if (topk_before(&a[i], &a[0])) heap_pop(a, middle, &a[i]);
}

static void heap_sort(topk_item *a, int64_t len) {
    while (len > 1) {
        len--;
        heap_pop(a, len, &a[len]);
    }
}

static void linear_insert(topk_item *a, int64_t last) { /* unguarded: a smaller element exists before */
    topk_item value = a[last];
    int64_t next = last - 1;
    while (topk_before(&value, &a[next])) {
        a[last] = a[next];
        last = next;
        next--;
    }
    a[last] = value;
}

static void insertion_sort(topk_item *a, int64_t first, int64_t last) {
    if (first == last) return;
    for (int64_t i = first + 1; i < last; i++) {
        if (topk_before(&a[i], &a[first])) {
            topk_item value = a[i];
            memmove(&a[first + 1], &a[first], (size_t)(i - first) * sizeof *a);
            a[first] = value;
        } else {
            linear_insert(a, i);
        }
    }
}

static void move_median_to_first(topk_item *a, int64_t result, int64_t x, int64_t y, int64_t z) {
    if (topk_before(&a[x], &a[y])) {
        if (topk_before(&a[y], &a[z]))
            item_swap(&a[result], &a[y]);
        else if (topk_before(&a[x], &a[z]))
            item_swap(&a[result], &a[z]);
        else
            item_swap(&a[result], &a[x]);
    } else if (topk_before(&a[x], &a[z])) {
        item_swap(&a[result], &a[x]);
    } else if (topk_before(&a[y], &a[z])) {
        item_swap(&a[result], &a[z]);
    } else {
        item_swap(&a[result], &a[y]);
    }
}

static int64_t partition_pivot(topk_item *a, int64_t first, int64_t last) {
    int64_t mid = first + (last - first) / 2;
    move_median_to_first(a, first, first + 1, mid, last - 1);
    int64_t lo = first + 1, hi = last;
    for (;;) {
        while (topk_before(&a[lo], &a[first])) lo++;
        hi--;
        while (topk_before(&a[first], &a[hi])) hi--;
        if (!(lo < hi)) return lo;
        item_swap(&a[lo], &a[hi]);
        lo++;
    }
}

static void introsort_loop(topk_item *a, int64_t first, int64_t last, int64_t depth) {
    while (last - first > 16) {
        if (depth == 0) { /* partial_sort(first, last, last) */
            heap_select(a + first, last - first, last - first);
            heap_sort(a + first, last - first);
            return;
        }
        depth--;
        int64_t cut = partition_pivot(a, first, last);
        introsort_loop(a, cut, last, depth);
        last = cut;
    }
}

static void std_sort(topk_item *a, int64_t len) {
    if (len <= 1) return;
    introsort_loop(a, 0, len, floor_log2(len) * 2);
    if (len > 16) {
        insertion_sort(a, 0, 16);
        for (int64_t i = 16; i < len; i++) linear_insert(a, i);
    } else {
        insertion_sort(a, 0, len);
    }
}

static void std_nth_element(topk_item *a, int64_t nth, int64_t len) {
    if (len == 0 || nth == len) return;
    int64_t first = 0, last = len, depth = floor_log2(len) * 2;
    while (last - first > 3) {
        if (depth == 0) {
            heap_select(a + first, nth + 1 - first, last - first);
            item_swap(&a[first], &a[nth]);
            return;
        }
        depth--;
        int64_t cut = partition_pivot(a, first, last);
        if (cut <= nth)
            first = cut;
        else
            last = cut;
    }
    insertion_sort(a, first, last);
}

/* The first k of row[0..n) become the k largest, in torch's order. */
static void topk_largest_sorted(topk_item *row, int64_t n, int64_t k) {
    if (k * 64 <= n) { /* std::partial_sort */
        heap_select(row, k, n);
        heap_sort(row, k);
    } else {
        std_nth_element(row, k - 1, n);
        std_sort(row, k - 1);
    }
}

/* multinomial_with_replacement_kernel: per row, a normalised cumulative sum (accumulated in p's dtype,
 * float for float16/bfloat16), then one 53-bit uniform and a lower-bound search per sample. */
static int multinomial_with_replacement(wk_generator *g, wk_dtype dt, const void *probs, int64_t n_dist,
                                        int64_t n_cat, int64_t s0, int64_t s1, int64_t n_sample, int64_t *out) {
    bool acc_double = dt == WK_FLOAT64;
    void *cum = wk__malloc((size_t)(n_cat > 0 ? n_cat : 1) * (acc_double ? sizeof(double) : sizeof(float)));
    if (!cum) return -1;
    double *cum_d = cum; /* [n_cat] cumulative distribution, float64 p */
    float *cum_f = cum;  /* [n_cat] cumulative distribution, other dtypes */
    for (int64_t i = 0; i < n_dist; i++) {
        double sum_d = 0.0;
        float sum_f = 0.0f;
        for (int64_t j = 0; j < n_cat; j++) {
            double val = load_floating(dt, probs, i * s0 + j * s1);
            if (!(val >= 0)) {
                free(cum);
                wk__error(WK_RUNTIME_ERROR, "invalid multinomial distribution (encountering probability entry < 0)");
                return -1;
            }
            if (!isfinite(val)) {
                free(cum);
                wk__error(WK_RUNTIME_ERROR,
                          "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
                return -1;
            }
            if (acc_double) {
                sum_d += val;
                cum_d[j] = sum_d;
            } else {
                sum_f += (float)val;
                cum_f[j] = sum_f;
            }
        }
        if (!(acc_double ? sum_d > 0 : sum_f > 0)) {
            free(cum);
            wk__error(WK_RUNTIME_ERROR, "invalid multinomial distribution (sum of probabilities <= 0)");
            return -1;
        }
        for (int64_t j = 0; j < n_cat; j++) {
            if (acc_double)
                cum_d[j] /= sum_d;
            else
                cum_f[j] /= sum_f;
        }
        if (acc_double)
            cum_d[n_cat - 1] = 1;
        else
            cum_f[n_cat - 1] = 1;
        for (int64_t k = 0; k < n_sample; k++) {
            double u = uniform_double(g);
            int64_t left = 0, right = n_cat;
            while (right - left > 0) {
                int64_t mid = left + (right - left) / 2;
                double c = acc_double ? cum_d[mid] : (double)cum_f[mid];
                if (c < u)
                    left = mid + 1;
                else
                    right = mid;
            }
            out[i * n_sample + k] = left;
        }
    }
    free(cum);
    return 0;
}

WK_INTERNAL int wk__multinomial(wk_generator *g, wk_dtype p_dtype, const void *probs, int ndim,
                                const int64_t *sizes, const int64_t *strides, int64_t n_sample, bool replacement,
                                int64_t *out) {
    if (!(ndim > 0 && ndim <= 2)) {
        wk__error(WK_RUNTIME_ERROR, "prob_dist must be 1 or 2 dim");
        return -1;
    }
    if (!is_floating(p_dtype)) {
        wk__error(WK_RUNTIME_ERROR, "multinomial only supports floating-point dtypes for input, got: %s",
                  scalar_type_name(p_dtype));
        return -1;
    }
    if (n_sample <= 0) {
        wk__error(WK_RUNTIME_ERROR, "cannot sample n_sample <= 0 samples");
        return -1;
    }
    int64_t n_cat = sizes[ndim - 1];
    int64_t n_dist = ndim == 2 ? sizes[0] : 1;
    int64_t s1 = strides[ndim - 1], s0 = ndim == 2 ? strides[0] : 0;
    if (!(replacement || n_sample <= n_cat)) {
        wk__error(WK_RUNTIME_ERROR, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        return -1;
    }
    if (n_cat > (INT64_C(1) << 24)) {
        wk__error(WK_RUNTIME_ERROR, "number of categories cannot exceed 2^24");
        return -1;
    }
    if (n_dist * n_sample == 0) return 0;
    g = gen_or_default(g);
    if (replacement && n_sample > 1)
        return multinomial_with_replacement(g, p_dtype, probs, n_dist, n_cat, s0, s1, n_sample, out);

    /* Without replacement (or one sample): s = argmax/topk(p / q), q ~ Exp(1). Checks come first:
     * (p.max() < inf) & (p.min() >= 0), then no all-zero row. */
    if (n_cat == 0) { /* only reachable with replacement and n_sample == 1; p.max() fails */
        wk__error(WK_RUNTIME_ERROR,
                  "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
        return -1;
    }
    bool valid = true;
    for (int64_t i = 0; i < n_dist && valid; i++)
        for (int64_t j = 0; j < n_cat; j++) {
            double v = load_floating(p_dtype, probs, i * s0 + j * s1);
            if (!(v < INFINITY && v >= 0)) { valid = false; break; }
        }
    if (!valid) {
        wk__error(WK_RUNTIME_ERROR, "probability tensor contains either `inf`, `nan` or element < 0");
        return -1;
    }
    for (int64_t i = 0; i < n_dist; i++) {
        bool all_zero = true;
        for (int64_t j = 0; j < n_cat && all_zero; j++) all_zero = load_floating(p_dtype, probs, i * s0 + j * s1) == 0;
        if (all_zero) {
            wk__error(WK_RUNTIME_ERROR, "invalid multinomial distribution (sum of probabilities <= 0)");
            return -1;
        }
    }
    /* q = empty_like(p).exponential_(1): drawn in q's memory order. empty_like keeps p's strides when p
     * is non-overlapping and dense, and otherwise gives dense strides in p's dim order (infer_dense_strides:
     * the smaller stride innermost; a zero stride decides nothing; equal strides put the smaller size
     * innermost), so a transposed 2-D p, sliced or not, is filled column by column. */
    int64_t total = n_dist * n_cat;
    bool col_major = ndim == 2 && n_dist > 1 && n_cat > 1 && s0 != 0 && s1 != 0 &&
                     (s0 < s1 || (s0 == s1 && n_dist < n_cat));
    topk_item *items = wk__malloc((size_t)total * sizeof *items); /* [n_dist][n_cat] (p/q, category) */
    if (!items) return -1;
    for (int64_t m = 0; m < total; m++) {
        int64_t i = col_major ? m % n_dist : m / n_cat;
        int64_t j = col_major ? m / n_dist : m % n_cat;
        double q = (-1.0 / 1.0) * log1p(-uniform_double(g));
        double pv = load_floating(p_dtype, probs, i * s0 + j * s1);
        items[i * n_cat + j].v = div_in_dtype(p_dtype, pv, q);
        items[i * n_cat + j].i = j;
    }
    for (int64_t i = 0; i < n_dist; i++) {
        topk_item *row = items + i * n_cat; /* [n_cat] */
        if (n_sample == 1) { /* argmax: the first maximum, NaN counting as the maximum */
            int64_t best = 0;
            for (int64_t j = 1; j < n_cat; j++) {
                if (isnan(row[best].v)) break;
                if (isnan(row[j].v) || row[j].v > row[best].v) best = j;
            }
            out[i] = best;
        } else {
            topk_largest_sorted(row, n_cat, n_sample);
            for (int64_t k = 0; k < n_sample; k++) out[i * n_sample + k] = row[k].i;
        }
    }
    free(items);
    return 0;
}

/* ================================================================================================
 * dropout
 * ================================================================================================ */

WK_INTERNAL int wk__dropout_noise(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double p) {
    double keep = 1 - p;
    /* noise = empty_like(x).bernoulli_(1 - p); noise.div_(1 - p): 1 / (1-p) in the dtype's opmath type. */
    if (wk__bernoulli_scalar_(g, dtype, out, n, keep) < 0) return -1;
    if (!is_floating(dtype)) { /* the draws happened; then div_ fails as torch's does */
        wk__error(WK_RUNTIME_ERROR, "result type Float can't be cast to the desired output type %s",
                  scalar_type_name(dtype));
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        double v = load_floating(dtype, out, i);
        if (dtype == WK_FLOAT64)
            ((double *)out)[i] = v / keep;
        else
            store_float(dtype, out, i, (float)v / (float)keep);
    }
    return 0;
}
