/* unary.c — elementwise unary maths: float ops (ints and bools give the default float dtype), the rounding family
 * and abs / sign (which keep the dtype), and the special functions (erfinv, digamma, polygamma) with torch's
 * algorithms, so float32 results round as torch's do. */
#include "ops/pointwise.h"

#include "cpu/vec.h"
#include "ops_impl.h"

#define PI_D 3.14159265358979323846

/* float op over the float family; NAME_T is its loop table */
#define FLOAT_OP(NAME, EXPR)                                                           \
    WK_UNARY_FLOAT(NAME##_k, void, EXPR)                                               \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(NAME##_k)};      \
    wk_tensor *wk_impl_##NAME(wk_tensor *self) {                                       \
        wk_dtype dt = wk__float_op_dtype(self->dtype);                                 \
        return wk__unary_op(#NAME, self, dt, dt, NAME##_T, NULL);                       \
    }

/* ---- special functions (float and double versions; reduced floats compute in float) ---- */

/* erfinv: a rational first guess refined by two Newton steps on erf (the classic Pavlis algorithm, as torch). */
#define ERFINV_DEF(NAME, T, SQRT, LOG, ERF, EXP, FABS, COPYSIGN)                                               \
    static T NAME(T y) {                                                                                       \
        static const T a[4] = {(T)0.886226899, (T)-1.645349621, (T)0.914624893, (T)-0.140543331};             \
        static const T b[4] = {(T)-2.118377725, (T)1.442710462, (T)-0.329097515, (T)0.012229801};             \
        static const T c[4] = {(T)-1.970840454, (T)-1.624906493, (T)3.429567803, (T)1.641345311};             \
        static const T d[2] = {(T)3.543889200, (T)1.637067800};                                                \
        T ya = FABS(y), x, z, num, dem;                                                                        \
        if (ya > 1) return (T)NAN;                                                                             \
        if (ya == 1) return COPYSIGN((T)INFINITY, y);                                                          \
        if (ya <= (T)0.7) {                                                                                    \
            z = y * y;                                                                                         \
            num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];                                                   \
            dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + (T)1;                                      \
            x = y * num / dem;                                                                                 \
        } else {                                                                                               \
            z = SQRT(-LOG(((T)1 - ya) / (T)2));                                                                \
            num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];                                                   \
            dem = (d[1] * z + d[0]) * z + (T)1;                                                                \
            x = COPYSIGN(num, y) / dem;                                                                        \
        }                                                                                                      \
        const T two_over_sqrt_pi = (T)2 * (T)0.564189583547756286948;                                          \
        x = x - (ERF(x) - y) / (two_over_sqrt_pi * EXP(-x * x));                                               \
        x = x - (ERF(x) - y) / (two_over_sqrt_pi * EXP(-x * x));                                               \
        return x;                                                                                              \
    }
ERFINV_DEF(erfinv_f, float, sqrtf, logf, erff, expf, fabsf, copysignf)
ERFINV_DEF(erfinv_d, double, sqrt, log, erf, exp, fabs, copysign)
#define ERFINV(x) _Generic((x), float: erfinv_f, default: erfinv_d)(x)

/* digamma: reflection for x < 0 (the pi / tan(pi r) term in double, r the fractional part), recurrence up to
 * x >= 10, then the asymptotic series in 1/x^2 (Bernoulli coefficients). Poles: +-0 -> -+inf, negative ints -> nan. */
#define DIGAMMA_DEF(NAME, T, LOG, TRUNC)                                                                        \
    static T NAME(T x) {                                                                                        \
        static const T A[7] = {(T)8.33333333333333333333E-2, (T)-2.10927960927960927961E-2,                    \
                               (T)7.57575757575757575758E-3, (T)-4.16666666666666666667E-3,                    \
                               (T)3.96825396825396825397E-3, (T)-8.33333333333333333333E-3,                    \
                               (T)8.33333333333333333333E-2};                                                  \
        if (x == 0) return copysign((T)INFINITY, -x);                                                           \
        if (x < 0) {                                                                                            \
            if (x == TRUNC(x)) return (T)NAN;                                                                   \
            double q, r = modf((double)x, &q);                                                                  \
            return NAME(1 - x) - (T)(PI_D / tan(PI_D * r));                                                     \
        }                                                                                                       \
        T result = 0;                                                                                           \
        while (x < 10) {                                                                                        \
            result -= 1 / x;                                                                                    \
            x += 1;                                                                                             \
        }                                                                                                       \
        if (x == 10) return result + (T)2.25175258906672110764;                                                 \
        T y = 0;                                                                                                \
        if (x < (T)1.0e17) {                                                                                    \
            T z = 1 / (x * x), p = 0;                                                                           \
            for (int i = 0; i < 7; i++) p = p * z + A[i];                                                       \
            y = z * p;                                                                                          \
        }                                                                                                       \
        return result + LOG(x) - ((T)0.5 / x) - y;                                                              \
    }
DIGAMMA_DEF(digamma_f, float, logf, truncf)
DIGAMMA_DEF(digamma_d, double, log, trunc)
#define DIGAMMA(x) _Generic((x), float: digamma_f, default: digamma_d)(x)

/* trigamma: reflection for x < 0.5, six recurrence steps, then the asymptotic series */
#define TRIGAMMA_DEF(NAME, T, SIN)                                                                              \
    static T NAME(T x) {                                                                                        \
        T sign = 1, result = 0;                                                                                 \
        if (x < (T)0.5) {                                                                                       \
            sign = -1;                                                                                          \
            const T s = SIN((T)PI_D * x);                                                                       \
            result -= ((T)PI_D * (T)PI_D) / (s * s);                                                            \
            x = 1 - x;                                                                                          \
        }                                                                                                       \
        for (int i = 0; i < 6; ++i) {                                                                           \
            result += 1 / (x * x);                                                                              \
            x += 1;                                                                                             \
        }                                                                                                       \
        const T ixx = 1 / (x * x);                                                                              \
        result += (1 + 1 / (2 * x) + ixx * ((T)1 / 6 - ixx * ((T)1 / 30 - ixx * ((T)1 / 42)))) / x;            \
        return sign * result;                                                                                   \
    }
TRIGAMMA_DEF(trigamma_f, float, sinf)
TRIGAMMA_DEF(trigamma_d, double, sin)

/* Hurwitz zeta(x, q) in double: direct sum until the terms are negligible, then the Euler-Maclaurin tail. */
static double zeta_d(double x, double q) {
    static const double A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                                 7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                                 -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18};
    const double MACHEP = 1.11022302462515654042E-16;
    if (x == 1) return INFINITY;
    if (x < 1) return NAN;
    if (q <= 0) {
        if (q == floor(q)) return INFINITY;
        if (x != floor(x)) return NAN;
    }
    double s = pow(q, -x), a = q, b = 0;
    int i = 0;
    while (i < 9 || a <= 9) {
        i++;
        a += 1;
        b = pow(a, -x);
        s += b;
        if (-MACHEP * s < b && b < MACHEP * s) return s;
    }
    double w = a, k = 0;
    s += b * w / (x - 1);
    s -= 0.5 * b;
    a = 1;
    for (i = 0; i < 12; i++) {
        a *= x + k;
        b /= w;
        double t = a * b / A[i];
        s = s + t;
        if (fabs(t / s) < MACHEP) return s;
        k += 1;
        a *= x + k;
        b /= w;
        k += 1;
    }
    return s;
}
/* polygamma(n >= 2, x) = (-1)^(n+1) n! zeta(n+1, x), with n! as exp(lgamma(n+1)) in the element type */
static float polygamma_f(float x, int64_t n) {
    return ((n % 2) ? 1.0f : -1.0f) * expf(lgammaf((float)n + 1.0f)) * (float)zeta_d((double)(n + 1), (double)x);
}
static double polygamma_d(double x, int64_t n) {
    return ((n % 2) ? 1.0 : -1.0) * exp(lgamma((double)n + 1.0)) * zeta_d((double)(n + 1), x);
}

/* ---- float ops ---- */
#define SIGMOID(x) (1 / (1 + exp(-(x))))
#define SINC(x) ((x) == 0 ? (__typeof__(x))1 : sin((__typeof__(x))PI_D * (x)) / ((__typeof__(x))PI_D * (x)))
FLOAT_OP(exp2, exp2(x))
FLOAT_OP(expm1, expm1(x))
FLOAT_OP(log2, log2(x))
FLOAT_OP(log10, log10(x))
FLOAT_OP(log1p, log1p(x))
FLOAT_OP(sqrt, sqrt(x))
FLOAT_OP(rsqrt, 1 / sqrt(x))
FLOAT_OP(sin, sin(x))
FLOAT_OP(cos, cos(x))
FLOAT_OP(tan, tan(x))
FLOAT_OP(asin, asin(x))
FLOAT_OP(acos, acos(x))
FLOAT_OP(atan, atan(x))
FLOAT_OP(sinh, sinh(x))
FLOAT_OP(cosh, cosh(x))
FLOAT_OP(asinh, asinh(x))
FLOAT_OP(acosh, acosh(x))
FLOAT_OP(atanh, atanh(x))
WK_UNARY_FLOAT(sigmoid_k, void, SIGMOID(x)) /* float32: the vectorised kernel (src/cpu/vec.h) */
static const wk_loop_fn sigmoid_T[WK_NUM_DTYPES] = {[WK_FLOAT32] = wk__sigmoid_f32_loop, [WK_FLOAT64] = sigmoid_k_FLOAT64,
                                                    [WK_FLOAT16] = sigmoid_k_FLOAT16, [WK_BFLOAT16] = sigmoid_k_BFLOAT16};
wk_tensor *wk_impl_sigmoid(wk_tensor *self) {
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__unary_op("sigmoid", self, dt, dt, sigmoid_T, NULL);
}
FLOAT_OP(erf, erf(x))
FLOAT_OP(erfc, erfc(x))
FLOAT_OP(erfinv, ERFINV(x))
FLOAT_OP(lgamma, lgamma(x))
FLOAT_OP(digamma, DIGAMMA(x))
FLOAT_OP(sinc, SINC(x))
/* deg2rad / rad2deg multiply by a double constant rounded to the element type (torch's mul by a wrapped number) */
FLOAT_OP(deg2rad, x *(__typeof__(x))0.017453292519943295)
FLOAT_OP(rad2deg, x *(__typeof__(x))57.295779513082323)
/* angle of a real number: pi below zero, NaN stays NaN, else 0 (-0.0 too) */
FLOAT_OP(angle, isnan(x) ? x : x < 0 ? (__typeof__(x))PI_D : (__typeof__(x))0)

/* polygamma(n, x) */
typedef struct {
    int64_t n;
} poly_ctx;
#define POLYGAMMA(x)                                                                                               \
    (C->n == 0 ? DIGAMMA(x)                                                                                        \
     : C->n == 1 ? _Generic((x), float: trigamma_f, default: trigamma_d)(x)                                        \
                 : _Generic((x), float: polygamma_f, default: polygamma_d)(x, C->n))
WK_UNARY_FLOAT(polygamma_k, poly_ctx, POLYGAMMA(x))
static const wk_loop_fn POLYGAMMA_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(polygamma_k)};
wk_tensor *wk_impl_polygamma(int64_t n, wk_tensor *self) {
    if (n < 0) {
        wk__error(WK_RUNTIME_ERROR, "polygamma(n, x) does not support negative n.");
        return NULL;
    }
    poly_ctx c = {n};
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__unary_op("polygamma", self, dt, dt, POLYGAMMA_T, &c);
}

/* logit(x, eps) = log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] when eps is given */
typedef struct {
    double lo, hi;
    bool has;
} logit_ctx;
#define LOGIT_Z(x) (C->has ? ((x) < (__typeof__(x))C->lo ? (__typeof__(x))C->lo : (x) > (__typeof__(x))C->hi ? (__typeof__(x))C->hi : (x)) : (x))
#define LOGIT(z) log((z) / (1 - (z)))
WK_UNARY_FLOAT(logit_k, logit_ctx, LOGIT(LOGIT_Z(x)))
static const wk_loop_fn LOGIT_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(logit_k)};
wk_tensor *wk_impl_logit(wk_tensor *self, wk_optfloat eps) {
    logit_ctx c = {eps.v, 1 - eps.v, eps.has};
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__unary_op("logit_cpu", self, dt, dt, LOGIT_T, &c);
}

/* d logit / dx = 1 / (x (1 - x)) inside [eps, 1 - eps] (without eps: [0, 1], nan outside), 0 outside */
wk_tensor *wk_impl_logit_backward(wk_tensor *grad, wk_tensor *self, wk_optfloat eps) {
    double lo = eps.has ? eps.v : 0, hi = eps.has ? 1 - eps.v : 1;
    wk_tensor *a = wk_ge_Scalar(self, wk_float(lo)), *b = wk_le_Scalar(self, wk_float(hi));
    wk_tensor *m = (a && b) ? wk_logical_and(a, b) : NULL;
    wk_tensor *one_minus = wk_rsub_Scalar(self, wk_int(1), wk_int(1));
    wk_tensor *den = one_minus ? wk_mul(self, one_minus) : NULL, *q = den ? wk_div(grad, den, NULL) : NULL;
    wk_tensor *r = (m && q) ? wk_where_ScalarOther(m, q, eps.has ? wk_int(0) : wk_float(NAN)) : NULL;
    wk_release(a);
    wk_release(b);
    wk_release(m);
    wk_release(one_minus);
    wk_release(den);
    wk_release(q);
    return r;
}

/* d sinc / dx = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x == 0 */
wk_tensor *wk_impl_sinc_backward(wk_tensor *grad, wk_tensor *self) {
    wk_tensor *px = wk_mul_Scalar(self, wk_float(PI_D));
    wk_tensor *c = px ? wk_cos(px) : NULL, *s = px ? wk_sin(px) : NULL;
    wk_tensor *pc = c ? wk_mul(px, c) : NULL, *num = (pc && s) ? wk_sub(pc, s, wk_int(1)) : NULL;
    wk_tensor *den = px ? wk_mul(px, self) : NULL, *q = (num && den) ? wk_div(num, den, NULL) : NULL;
    wk_tensor *z = wk_eq_Scalar(self, wk_int(0));
    wk_tensor *m = (q && z) ? wk_where_ScalarSelf(z, wk_int(0), q) : NULL, *r = m ? wk_mul(m, grad) : NULL;
    wk_tensor *tmp[] = {px, c, s, pc, num, den, q, z, m};
    for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) wk_release(tmp[i]);
    return r;
}

/* ---- ops that keep the dtype ---- */
WK_UNARY_FLOAT(abs_k, void, fabs(x))
WK_UNARY_INT(abs_k, void, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
static const wk_loop_fn ABS[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(abs_k), WK_TABLE_INT(abs_k)};
wk_tensor *wk_impl_abs(wk_tensor *self) { return wk__unary_op("abs_cpu", self, self->dtype, self->dtype, ABS, NULL); }

/* sign: -1, 0, 1 (nan gives 0, as torch) */
WK_UNARY_FLOAT(sign_k, void, (__typeof__(x))((0 < x) - (x < 0)))
WK_UNARY_INT(sign_k, void, (0 < x) - (x < 0))
WK_UNARY_BOOL(sign_k, void, x)
static const wk_loop_fn SIGN[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(sign_k), WK_TABLE_INT(sign_k), WK_TABLE_BOOL(sign_k)};
wk_tensor *wk_impl_sign(wk_tensor *self) { return wk__unary_op("sign_cpu", self, self->dtype, self->dtype, SIGN, NULL); }
wk_tensor *wk_impl_sgn(wk_tensor *self) { return wk__unary_op("sgn_cpu", self, self->dtype, self->dtype, SIGN, NULL); }

/* the rounding family: integral inputs are copied, bool is refused */
#define ROUNDING_OP(NAME, EXPR, KNAME)                                                 \
    WK_UNARY_FLOAT(NAME##_k, void, EXPR)                                               \
    WK_UNARY_INT(NAME##_k, void, x)                                                    \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(NAME##_k), WK_TABLE_INT(NAME##_k)}; \
    wk_tensor *wk_impl_##NAME(wk_tensor *self) {                                       \
        return wk__unary_op(KNAME, self, self->dtype, self->dtype, NAME##_T, NULL);     \
    }
ROUNDING_OP(floor, floor(x), "floor_vml_cpu")
ROUNDING_OP(ceil, ceil(x), "ceil_vml_cpu")
ROUNDING_OP(round, nearbyint(x), "round_vml_cpu")
ROUNDING_OP(trunc, trunc(x), "trunc_vml_cpu")

WK_UNARY_FLOAT(frac_k, void, x - trunc(x))
static const wk_loop_fn FRAC[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(frac_k)};
wk_tensor *wk_impl_frac(wk_tensor *self) { return wk__unary_op("frac_cpu", self, self->dtype, self->dtype, FRAC, NULL); }

/* round(decimals=d): nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for d < 0, in the element type */
typedef struct {
    double p;
    bool neg;
} round_ctx;
#define ROUND_DEC(x) (C->neg ? nearbyint((x) / (__typeof__(x))C->p) * (__typeof__(x))C->p : nearbyint((x) * (__typeof__(x))C->p) / (__typeof__(x))C->p)
WK_UNARY_FLOAT(roundd_k, round_ctx, ROUND_DEC(x))
static const wk_loop_fn ROUNDD[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(roundd_k)};
wk_tensor *wk_impl_round_decimals(wk_tensor *self, int64_t decimals) {
    round_ctx c = {pow(10, (double)(decimals < 0 ? -decimals : decimals)), decimals < 0};
    return wk__unary_op("round_cpu", self, self->dtype, self->dtype, ROUNDD, &c);
}

/* relu = clamp_min(x, 0): nan stays nan, -0.0 stays -0.0 */
WK_UNARY_FLOAT(relu_k, void, x < 0 ? (__typeof__(x))0 : x)
WK_UNARY_INT(relu_k, void, x < 0 ? 0 : x)
static void relu_f32(char **d, const int64_t *s, int64_t n, void *ctx) { /* branch-free vector kernel */
    if (!wk__relu_f32_run(d, s, n)) relu_k_FLOAT32(d, s, n, ctx);
}
static const wk_loop_fn RELU[WK_NUM_DTYPES] = {[WK_FLOAT32] = relu_f32,       [WK_FLOAT64] = relu_k_FLOAT64,
                                               [WK_FLOAT16] = relu_k_FLOAT16, [WK_BFLOAT16] = relu_k_BFLOAT16,
                                               WK_TABLE_INT(relu_k)};
wk_tensor *wk_impl_relu(wk_tensor *self) {
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Boolean inputs not supported for relu");
        return NULL;
    }
    return wk__unary_op("clamp_min_scalar_cpu", self, self->dtype, self->dtype, RELU, NULL);
}

/* square = pow(x, 2) (bool gives int64, as torch) */
wk_tensor *wk_impl_square(wk_tensor *self) { return wk_impl_pow_Tensor_Scalar(self, wk_int(2)); }

/* positive: self itself (a bool tensor is refused) */
wk_tensor *wk_impl_positive(wk_tensor *self) {
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "The `+` operator, on a bool tensor is not supported.");
        return NULL;
    }
    return wk_retain(self);
}

/* nan_to_num: nan -> nan (0), +inf -> posinf (the dtype's max), -inf -> neginf (the dtype's lowest) */
typedef struct {
    double nan, pos, neg;
} n2n_ctx;
#define N2N(x) (isnan(x) ? (__typeof__(x))C->nan : isinf(x) ? ((x) > 0 ? (__typeof__(x))C->pos : (__typeof__(x))C->neg) : (x))
WK_UNARY_FLOAT(n2n_k, n2n_ctx, N2N(x))
WK_UNARY_INT(n2n_k, n2n_ctx, x)
WK_UNARY_BOOL(n2n_k, n2n_ctx, x)
static const wk_loop_fn N2N_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(n2n_k), WK_TABLE_INT(n2n_k), WK_TABLE_BOOL(n2n_k)};
wk_tensor *wk_impl_nan_to_num(wk_tensor *self, wk_optfloat nan, wk_optfloat posinf, wk_optfloat neginf) {
    double mx = 0;
    switch (self->dtype) {
    case WK_FLOAT16: mx = 65504.0; break;
    case WK_BFLOAT16: mx = 3.3895313892515355e38; break;
    case WK_FLOAT32: mx = 3.4028234663852886e38; break;
    default: mx = 1.7976931348623157e308; break;
    }
    n2n_ctx c = {nan.has ? nan.v : 0, posinf.has ? posinf.v : mx, neginf.has ? neginf.v : -mx};
    return wk__unary_op("nan_to_num", self, self->dtype, self->dtype, N2N_T, &c);
}

/* sigmoid_backward(g, y) = g * (1 - y) * y, tanh_backward(g, y) = g * (1 - y * y) (their own ops, as torch's,
 * so that second derivatives have torch's node names) */
WK_BINARY_FLOAT(sigmoid_bw_k, void, a * (1 - b) * b)
static const wk_loop_fn SIGMOID_BW[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(sigmoid_bw_k)};
WK_BINARY_FLOAT(tanh_bw_k, void, a * (1 - b * b))
static const wk_loop_fn TANH_BW[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(tanh_bw_k)};
wk_tensor *wk_impl_sigmoid_backward(wk_tensor *grad_output, wk_tensor *output) {
    wk_dtype dt = wk__result_type2(grad_output, output);
    return wk__binary_op("sigmoid_backward_cpu", grad_output, output, dt, dt, SIGMOID_BW, NULL);
}
wk_tensor *wk_impl_tanh_backward(wk_tensor *grad_output, wk_tensor *output) {
    wk_dtype dt = wk__result_type2(grad_output, output);
    return wk__binary_op("tanh_backward_cpu", grad_output, output, dt, dt, TANH_BW, NULL);
}

/* ---- out= for ops whose result keeps self's dtype: torch requires out to have exactly that dtype ---- */
#include "ops/ops_support.h"
static wk_tensor *write_out(wk_tensor *out, wk_tensor *r) { /* steals r */
    if (!r) return NULL;
    int rc = wk__write_out(out, r);
    wk_release(r);
    return rc < 0 ? NULL : wk_retain(out);
}
int wk__out_same_dtype(const wk_tensor *out, const wk_tensor *self) {
    if (out->dtype == self->dtype) return 0;
    wk__error(WK_RUNTIME_ERROR, "Found dtype %s but expected %s", wk_dtype_scalar_name(out->dtype),
              wk_dtype_scalar_name(self->dtype));
    return -1;
}
#define SAME_DTYPE_OUT(NAME)                                                                         \
    wk_tensor *wk_impl_##NAME##_out(wk_tensor *out, wk_tensor *self) {                               \
        return wk__out_same_dtype(out, self) < 0 ? NULL : write_out(out, wk_impl_##NAME(self));       \
    }
SAME_DTYPE_OUT(abs)
SAME_DTYPE_OUT(sign)
SAME_DTYPE_OUT(sgn)
SAME_DTYPE_OUT(floor)
SAME_DTYPE_OUT(ceil)
SAME_DTYPE_OUT(round)
SAME_DTYPE_OUT(trunc)
SAME_DTYPE_OUT(frac)
wk_tensor *wk_impl_round_decimals_out(wk_tensor *out, wk_tensor *self, int64_t decimals) {
    return wk__out_same_dtype(out, self) < 0 ? NULL : write_out(out, wk_impl_round_decimals(self, decimals));
}
wk_tensor *wk_impl_nan_to_num_out(wk_tensor *out, wk_tensor *self, wk_optfloat nan, wk_optfloat posinf,
                                  wk_optfloat neginf) {
    if (out->dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR, "nan_to_num: dtype of out: %s should be same as input: %s",
                  wk_dtype_scalar_name(out->dtype), wk_dtype_scalar_name(self->dtype));
        return NULL;
    }
    return write_out(out, wk_impl_nan_to_num(self, nan, posinf, neginf));
}
