/* test_vec.c — the float32 kernels of src/cpu/vec.h (the run-time choice, and the native build) against their naive
 * references: exp / sigmoid within 1 ulp of exp in double (inf, nan, overflow, underflow, subnormals exactly as
 * libm), the max kernels and torch's cascade sum order bit for bit, on odd sizes, tails and zero-size inputs.
 * WK_VEC_EXHAUSTIVE=1 in the environment checks exp on every float in [-104, 89] (about 2^31 values; minutes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/vec.h"

/* The polynomial exp without FMA, one lane: the arithmetic the wasm simd128 build runs (IEEE float ops, no FMA).
 * Compiled here from the same source (the test's own scalar instance; the library's scalar build uses libm). */
#define WK_VEC_TABLE test_nofma_table
#include "cpu/vec_impl.h"
static void nofma_exp(const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = v_exp_vec(x[i]);
}
/* v_exp_vec's in-range path against the general one (no FMA): bit for bit on a sample of [-88, 89] */
static int check_inrange(void) {
    int bad = 0;
    for (float x = -88.5f; x < 89.0f; x = nextafterf(x, 100.0f) + 0.000731f * (x < 0 ? -x : x) + 1e-6f) {
        float a = v_exp_vec(x), b = v_exp_poly(x);
        if (memcmp(&a, &b, 4) && bad++ < 5) fprintf(stderr, "  no-FMA exp(%a): in-range %a, general %a\n", x, a, b);
    }
    return bad;
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static float frand(void) { return (float)((rnd32() >> 8) & 0xffff) / 4096.0f - 8.0f; }
static float bits_f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t f_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* error of y against exp(x) in double, in units of the float ulp at the exact value; -1 for a wrong special */
static double exp_err(float x, float y) {
    double e = exp((double)x);
    float cr = (float)e;
    if (isnan(x)) return isnan(y) ? 0 : -1;
    if (isinf(cr) || cr == 0) {
        /* beyond the range: the correctly rounded value, or (1 ulp) its neighbour at the edges */
        if (y == cr) return 0;
        if (cr == 0 && y == bits_f(1)) return e / (double)bits_f(1); /* the smallest subnormal */
        if (isinf(cr) && y == 3.40282347e+38f) return 1;
        return -1;
    }
    int ex;
    frexp(e, &ex);
    double ulp = ldexp(1.0, ex - 24);
    if (ulp < ldexp(1.0, -149)) ulp = ldexp(1.0, -149);
    return fabs((double)y - e) / ulp;
}

static int check_exp_range(const wk_vec_ops *v, uint32_t lo, uint32_t hi, uint32_t step, double *worst) {
    enum { B = 4096 };
    static float xs[B], ys[B];
    int bad = 0;
    uint64_t u = lo;
    while (u <= hi) {
        int m = 0;
        for (; m < B && u <= hi; m++, u += step) xs[m] = bits_f((uint32_t)u);
        v->exp(xs, ys, m);
        for (int i = 0; i < m; i++) {
            double e = exp_err(xs[i], ys[i]);
            if (e < 0 || e >= 1.0) {
                if (bad++ < 5) fprintf(stderr, "  %s exp(%a) = %a, want %a\n", v->name, xs[i], ys[i], (float)exp((double)xs[i]));
            } else if (e > *worst) {
                *worst = e;
            }
        }
    }
    return bad;
}

static int test_exp(const wk_vec_ops *v, int exhaustive) {
    double worst = 0;
    int bad = 0;
    const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN, 88.72283172607421875f,
                             88.72283935546875f, 89.0f, 1e30f, -1e30f, -87.33654f, -87.5f, -103.0f, -103.972f,
                             -103.97208f, -104.0f, -105.0f, 1e-45f, -1e-45f, 1e-38f, 3e-8f, -3e-8f, 0.5f, -0.5f};
    float y[32], ys[32];
    int ns = (int)(sizeof special / sizeof special[0]);
    v->exp(special, y, ns);
    for (int i = 0; i < ns; i++) {
        double e = exp_err(special[i], y[i]);
        if (e < 0 || e >= 1) {
            fprintf(stderr, "  %s exp(%a) = %a (special)\n", v->name, special[i], y[i]);
            bad++;
        }
    }
    v->sigmoid(special, ys, ns);
    for (int i = 0; i < ns; i++) {
        float want = 1.0f / (1.0f + expf(-special[i]));
        if (!(isnan(want) ? isnan(ys[i]) : fabsf(ys[i] - want) <= 2.4e-7f * fabsf(want))) {
            fprintf(stderr, "  %s sigmoid(%a) = %a, want %a\n", v->name, special[i], ys[i], want);
            bad++;
        }
    }
    if (exhaustive) {
        bad += check_exp_range(v, 0x00000000u, f_bits(89.0f), 1, &worst);       /* [0, 89] */
        bad += check_exp_range(v, 0x80000000u, f_bits(-104.0f), 1, &worst);     /* [-104, -0] */
    } else {
        bad += check_exp_range(v, f_bits(0.001f), f_bits(89.0f), 97, &worst);
        bad += check_exp_range(v, f_bits(-0.001f), f_bits(-104.0f), 89, &worst);
    }
    for (int k = 0; k < 2000000 / 4096; k++) { /* random bit patterns over everything */
        uint32_t lo = rnd32();
        bad += check_exp_range(v, lo, lo + 4095, 1, &worst);
    }
    printf("  %s exp: max error %.4f ulp%s\n", v->name, worst, exhaustive ? " (exhaustive)" : "");
    return bad;
}

static int same_bits(float a, float b) { return f_bits(a) == f_bits(b) || (isnan(a) && isnan(b)); }

static int test_kernels(const wk_vec_ops *v) {
    const wk_vec_ops *r = wk__vec_ref();
    int bad = 0;
    static const int64_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 128, 129, 255,
                                    256, 257, 1000, 1023, 4097, 65537, 300001};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        float *x = malloc(sizeof(float) * (size_t)(n + 1)), *y1 = malloc(sizeof(float) * (size_t)(n + 1)),
              *y2 = malloc(sizeof(float) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) x[i] = frand();
        /* exp / sigmoid: within 1 ulp of libm's float */
        v->sigmoid(x, y1, n);
        r->sigmoid(x, y2, n);
        for (int64_t i = 0; i < n; i++)
            if (fabsf(y1[i] - y2[i]) > 2.5e-7f * fabsf(y2[i])) {
                if (bad++ < 5) fprintf(stderr, "  %s sigmoid n=%lld [%lld]: %a vs %a\n", v->name, (long long)n, (long long)i, y1[i], y2[i]);
            }
        /* exp(x - s) sums, scale, sub */
        if (n > 0) {
            float s1 = v->exp_sub_sum(x, y1, n, 1.5f, 1), s2 = r->exp_sub_sum(x, y2, n, 1.5f, 1);
            if (fabsf(s1 - s2) > (n > 10000 ? 1e-4f : 1e-5f) * s2 + 1e-30f) {
                bad++;
                fprintf(stderr, "  %s exp_sub_sum n=%lld: %g vs %g\n", v->name, (long long)n, s1, s2);
            }
            v->scale(x, y1, n, 0.37f);
            r->scale(x, y2, n, 0.37f);
            v->sub_scalar(x, y1, n, 0.37f);
            r->sub_scalar(x, y2, n, 0.37f);
            for (int64_t i = 0; i < n; i++) bad += !same_bits(y1[i], y2[i]);
            /* max, with and without a NaN, and max_rows */
            for (int nanpos = -1; nanpos < 2; nanpos++) {
                if (nanpos >= 0) x[nanpos ? n - 1 : n / 2] = NAN;
                bad += !same_bits(v->max(x, n), r->max(x, n));
            }
            for (int64_t i = 0; i < n; i++) y1[i] = y2[i] = frand();
            y1[0] = y2[0] = NAN;
            v->max_rows(x, y1, n);
            r->max_rows(x, y2, n);
            for (int64_t i = 0; i < n; i++) bad += !same_bits(y1[i], y2[i]);
            for (int64_t i = 0; i < n; i++) x[i] = frand();
        }
        /* cascade sums: bit for bit, both lane counts */
        for (int lanes = 8; lanes <= 16; lanes *= 2) {
            float a = v->sum_inner(x, n, lanes), b = r->sum_inner(x, n, lanes);
            if (!same_bits(a, b)) {
                if (bad++ < 5) fprintf(stderr, "  %s sum_inner n=%lld lanes %d: %a vs %a\n", v->name, (long long)n, lanes, a, b);
            }
        }
        free(x);
        free(y1);
        free(y2);
    }
    /* elementwise add / mul / add with alpha / relu / threshold_backward on element-strided inputs: bit for bit
     * (NaN, -0.0 too) */
    static const int64_t strides[] = {1, 0, 2, 3, -1, -2};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si], span = 3 * n + 1;
        float *a = malloc(sizeof(float) * (size_t)(2 * span)), *b = malloc(sizeof(float) * (size_t)(2 * span)),
              *o1 = malloc(sizeof(float) * (size_t)(n + 1)), *o2 = malloc(sizeof(float) * (size_t)(n + 1));
        for (int64_t i = 0; i < 2 * span; i++) {
            a[i] = frand();
            b[i] = i % 7 == 0 ? 0.0f : frand();
            if (i % 13 == 5) a[i] = i % 2 ? NAN : -0.0f;
            if (i % 11 == 3) b[i] = i % 2 ? -NAN : -0.0f;
        }
        for (size_t ka = 0; ka < 6; ka++)
            for (size_t kb = 0; kb < 6; kb++) {
                int64_t sa = strides[ka], sb = strides[kb];
                /* the element i * s of a buffer of 2 * span floats, centred so that negative strides stay inside */
                const float *pa = a + span, *pb = b + span;
                for (int op = 0; op < 6; op++) {
                    if (op == 0) v->add(pa, sa, pb, sb, o1, n), r->add(pa, sa, pb, sb, o2, n);
                    if (op == 5) v->add_alpha(pa, sa, pb, sb, 0.1f, o1, n), r->add_alpha(pa, sa, pb, sb, 0.1f, o2, n);
                    if (op == 4) v->sub(pa, sa, pb, sb, o1, n), r->sub(pa, sa, pb, sb, o2, n);
                    if (op == 1) v->mul(pa, sa, pb, sb, o1, n), r->mul(pa, sa, pb, sb, o2, n);
                    if (op == 2) v->threshold_bw(pa, sa, pb, sb, 0.25f, o1, n), r->threshold_bw(pa, sa, pb, sb, 0.25f, o2, n);
                    if (op == 3) {
                        if (kb > 1) continue;
                        if (kb == 0) v->relu(pa, sa, o1, n), r->relu(pa, sa, o2, n);
                        else v->gather(pa, sa, o1, n), r->gather(pa, sa, o2, n);
                    }
                    for (int64_t i = 0; i < n; i++)
                        if (!same_bits(o1[i], o2[i])) {
                            if (bad++ < 5) fprintf(stderr, "  %s elementwise op %d n=%lld strides %lld %lld [%lld]: %a vs %a\n", v->name, op, (long long)n, (long long)sa, (long long)sb, (long long)i, o1[i], o2[i]);
                            break;
                        }
                }
            }
        free(a);
        free(b);
        free(o1);
        free(o2);
    }
    /* contiguous runs long enough for streaming stores (Note [Streaming stores]), the output misaligned by one
     * float: the same bits as the reference */
    {
        int64_t n = ((int64_t)1 << 20) + 13;
        float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n),
              *o1 = malloc(sizeof(float) * (size_t)(n + 1)), *o2 = malloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++) a[i] = i % 13 == 5 ? NAN : frand(), b[i] = i % 11 == 3 ? -0.0f : frand();
        for (int op = 0; op < 5; op++) {
            if (op == 0) v->add(a, 1, b, 1, o1 + 1, n), r->add(a, 1, b, 1, o2, n);
            if (op == 1) v->sub(a, 1, b, 1, o1 + 1, n), r->sub(a, 1, b, 1, o2, n);
            if (op == 2) v->mul(a, 1, b, 1, o1 + 1, n), r->mul(a, 1, b, 1, o2, n);
            if (op == 3) v->add_alpha(a, 1, b, 1, 0.1f, o1 + 1, n), r->add_alpha(a, 1, b, 1, 0.1f, o2, n);
            if (op == 4) v->threshold_bw(a, 1, b, 1, 0.25f, o1 + 1, n), r->threshold_bw(a, 1, b, 1, 0.25f, o2, n);
            for (int64_t i = 0; i < n; i++)
                if (!same_bits(o1[i + 1], o2[i])) {
                    if (bad++ < 5) fprintf(stderr, "  %s streamed elementwise op %d [%lld]: %a vs %a\n", v->name, op, (long long)i, o1[i + 1], o2[i]);
                    break;
                }
        }
        free(a);
        free(b);
        free(o1);
        free(o2);
    }
    /* column sums on odd shapes */
    static const int64_t shapes[][2] = {{1, 1}, {3, 5}, {17, 16}, {100, 70}, {513, 129}, {2, 300}, {1000, 8}, {40, 7},
                                        {9000, 40}, {70, 2100}, {4096, 64}, {4111, 33}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        int64_t R = shapes[si][0], C = shapes[si][1], ld = C + 3;
        float *x = malloc(sizeof(float) * (size_t)(R * ld)), *o1 = malloc(sizeof(float) * (size_t)C),
              *o2 = malloc(sizeof(float) * (size_t)C);
        for (int64_t i = 0; i < R * ld; i++) x[i] = frand();
        for (int lanes = 8; lanes <= 16; lanes *= 2) {
            v->sum_outer(x, R, C, ld, o1, lanes);
            r->sum_outer(x, R, C, ld, o2, lanes);
            for (int64_t j = 0; j < C; j++)
                if (!same_bits(o1[j], o2[j])) {
                    if (bad++ < 5) fprintf(stderr, "  %s sum_outer %lldx%lld [%lld]: %a vs %a\n", v->name, (long long)R, (long long)C, (long long)j, o1[j], o2[j]);
                }
        }
        free(x);
        free(o1);
        free(o2);
    }
    return bad;
}

int main(void) {
    const char *ex = getenv("WK_VEC_EXHAUSTIVE");
    int exhaustive = ex && *ex == '1', bad = 0;
    const wk_vec_ops *impls[2] = {wk__vec(), wk__vec_base()};
    for (int k = 0; k < 2; k++) {
        if (k == 1 && impls[1] == impls[0]) break;
        printf("vec kernels: %s\n", impls[k]->name);
        bad += test_exp(impls[k], exhaustive);
        bad += test_kernels(impls[k]);
    }
    wk_vec_ops nofma = *wk__vec_ref();
    nofma.name = "no-FMA polynomial (wasm)";
    nofma.exp = nofma_exp;
    printf("vec kernels: %s\n", nofma.name);
    bad += test_exp(&nofma, exhaustive);
    bad += check_inrange();
    printf("%s (%d failures)\n", bad ? "FAIL" : "ok", bad);
    return bad != 0;
}
