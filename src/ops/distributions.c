/* distributions.c — the samplers and reparameterised gradients behind torch.distributions (Distributions.cpp):
 * _standard_gamma (Gamma), _sample_dirichlet (Dirichlet, Beta), binomial (Binomial), and the gradients
 * _standard_gamma_grad and _dirichlet_grad (Distributions.h's standard_gamma_grad_one and dirichlet_grad_one).
 * The draws are src/core/random.c's; this file shapes the tensors and holds the gradient maths, written the way
 * torch's templates instantiate with scalar_t float or double and accscalar_t double (Distributions.cpp is built
 * without FMA, and so is this file: -ffp-contract=off). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas" /* GCC ignores the STDC pragma; -ffp-contract=off holds */
#endif
#pragma STDC FP_CONTRACT OFF

#include <float.h>

#include "autograd/autograd.h"
#include "core/random.h"
#include "cpu/iter.h"
#include "ops_impl.h"
#include "ops/ops_support.h"
#include "ops/pointwise.h"

/* ---- digamma_one<S, double>: x is S (float steps stay float, logf for float), the sum is double ---- */
#define DIGAMMA_ONE_DEF(SUFFIX, S, LOG, FLOOR, TAN)                                                                \
    static S digamma_one_##SUFFIX(S x) {                                                                      \
        static const double A[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,                     \
                                   7.57575757575757575758E-3, -4.16666666666666666667E-3,                     \
                                   3.96825396825396825397E-3, -8.33333333333333333333E-3,                     \
                                   8.33333333333333333333E-2};                                                \
        const double PSI_10 = 2.25175258906672110764;                                                         \
        if (x == 0) return (S)INFINITY;                                                                       \
        double additional_summand = 0;                                                                        \
        int x_is_integer = x == FLOOR(x);                                                                     \
        if (x < 0) {                                                                                          \
            if (x_is_integer) return (S)INFINITY;                                                             \
            additional_summand = -(S)3.14159265358979323846 / TAN((S)3.14159265358979323846 * x);            \
            x = 1 - x;                                                                                        \
        }                                                                                                     \
        double result = 0;                                                                                    \
        while (x < 10) {                                                                                      \
            result -= 1 / x;                                                                                  \
            x += 1;                                                                                           \
        }                                                                                                     \
        if (x == 10) return (S)(result + PSI_10 + additional_summand);                                        \
        double y = 0;                                                                                         \
        if (x < 1.0e17f) {                                                                                    \
            double z = 1.0 / (x * x), p = 0;                                                                  \
            for (int i = 0; i <= 6; i++) p = p * z + A[i];                                                    \
            y = z * p;                                                                                        \
        }                                                                                                     \
        return (S)(result + LOG(x) - (0.5f / x) - y + additional_summand);                                   \
    }
DIGAMMA_ONE_DEF(f, float, logf, floorf, tanf)
DIGAMMA_ONE_DEF(d, double, log, floor, tan)
#undef DIGAMMA_ONE_DEF

/* standard_gamma_grad_one<S, double>: -(d/dalpha cdf(x; alpha)) / pdf(x; alpha), all in double. */
static double standard_gamma_grad_one(double alpha, double x) {
    if (x < 0.8f) { /* Taylor series for small x */
        double numer = 1, denom = alpha;
        double series1 = numer / denom, series2 = numer / (denom * denom);
        for (int i = 1; i <= 5; ++i) {
            numer *= -x / (double)i;
            denom += 1;
            series1 += numer / denom;
            series2 += numer / (denom * denom);
        }
        const double pow_x_alpha = pow(x, alpha);
        const double gamma_pdf = pow(x, alpha - 1) * exp(-x);
        const double gamma_cdf = pow_x_alpha * series1;
        const double gamma_cdf_alpha = (log(x) - digamma_one_d(alpha)) * gamma_cdf - pow_x_alpha * series2;
        const double result = -gamma_cdf_alpha / gamma_pdf;
        return isnan(result) ? 0.0 : result;
    }
    if (alpha > 8.0f) { /* Rice saddle point expansion for large alpha */
        if (0.9f * alpha <= x && x <= 1.1f * alpha) {
            const double numer_1 = 1 + 24 * alpha * (1 + 12 * alpha);
            const double numer_2 =
                1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x);
            const double denom = 1244160 * (alpha * alpha) * (alpha * alpha);
            return numer_1 * numer_2 / denom;
        }
        const double denom = sqrt(8 * alpha);
        const double term2 = denom / (alpha - x);
        const double term3 = pow(x - alpha - alpha * log(x / alpha), -1.5);
        const double term23 = (x < alpha) ? term2 - term3 : term2 + term3;
        const double term1 = log(x / alpha) * term23 - sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x));
        const double stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha));
        const double numer = x * term1;
        return -stirling * numer / denom;
    }
    /* a bivariate rational approximation */
    const double u = log(x / alpha), v = log(alpha);
    static const double coef_uv[3][8] = {
        {0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084},
        {0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623},
        {0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
         -1.5247877e-07},
    };
    double coef_v[8];
    for (int i = 0; i < 8; ++i) coef_v[i] = coef_uv[0][i] + u * (coef_uv[1][i] + u * coef_uv[2][i]);
    const double p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]));
    const double q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]));
    return exp(p / q);
}

/* _beta_grad_alpha_mid<S, double>: alpha and beta both large (a Rice saddle point expansion, in double). */
static double beta_grad_alpha_mid(double x, double alpha, double beta) {
    const double total = alpha + beta;
    const double mean = alpha / total;
    const double std = sqrt(alpha * beta / (total + 1)) / total;
    if (mean - 0.1 * std <= x && x <= mean + 0.1 * std) { /* avoid the singularity at x = mean */
        const double poly = 47 * x * (beta * beta) * (beta * beta) +
                            alpha * ((43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta +
                                     alpha * (3 * (59 + 180 * beta - 90 * x) * (beta * beta) +
                                              alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta +
                                                       alpha * (8 * (1 - x) * (135 * beta - 11)))));
        const double prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total);
        const double prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total);
        return prefactor_num / (1 - x) * poly / prefactor_den;
    }
    const double prefactor = -x / sqrt(2 * alpha * beta / total);
    const double stirling = (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) *
                            (1 + 1 / (12 * beta) + 1 / (288 * beta * beta)) /
                            (1 + 1 / (12 * total) + 1 / (288 * total * total));
    const double term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta);
    const double axbx = alpha * (x - 1) + beta * x;
    const double term1_den = sqrt(2 * alpha / beta) * pow(total, (double)1.5f) * axbx * axbx;
    const double term1 = term1_num / term1_den;
    const double term2 = 0.5f * log(alpha / (total * x));
    const double term3_num = sqrt(8 * alpha * beta / total);
    const double term3_den = beta * x + alpha * (x - 1);
    const double term3 = term3_num / term3_den;
    const double term4_base = beta * log(beta / (total * (1 - x))) + alpha * log(alpha / (total * x));
    const double term4 = pow(term4_base, (double)-1.5f);
    const double term1234 = term1 + term2 * (term3 + (x < mean ? term4 : -term4));
    return stirling * prefactor * term1234;
}

/* dirichlet_grad_one<S, double> with its small-x helpers _beta_grad_alpha_small / _beta_grad_beta_small, which
 * compute in S; the rational correction computes in double. */
#define DIRICHLET_GRAD_DEF(SUFFIX, S, LOG, POW)                                                                     \
    static S beta_grad_alpha_small_##SUFFIX(S x, S alpha, S beta) {                                                 \
        const S factor = digamma_one_##SUFFIX(alpha) - digamma_one_##SUFFIX(alpha + beta) - LOG(x);                 \
        S numer = 1;                                                                                                \
        S series = numer / alpha * (factor + 1 / alpha);                                                            \
        for (int i = 1; i <= 10; ++i) {                                                                             \
            S ci = (S)i;                                                                                            \
            numer *= (ci - beta) * x / ci;                                                                          \
            const S denom = alpha + ci;                                                                             \
            series += numer / denom * (factor + 1 / denom);                                                         \
        }                                                                                                           \
        const S result = x * POW(1 - x, -beta) * series;                                                            \
        return isnan(result) ? (S)0 : result;                                                                       \
    }                                                                                                               \
    static S beta_grad_beta_small_##SUFFIX(S x, S alpha, S beta) {                                                  \
        const S factor = digamma_one_##SUFFIX(alpha + beta) - digamma_one_##SUFFIX(beta);                           \
        S numer = 1, betas = 1, dbetas = 0, series = factor / alpha;                                                \
        for (int i = 1; i <= 8; ++i) {                                                                              \
            S ci = (S)i;                                                                                            \
            numer *= -x / ci;                                                                                       \
            dbetas = dbetas * (beta - ci) + betas;                                                                  \
            betas = betas * (beta - ci);                                                                            \
            series += numer / (alpha + ci) * (dbetas + factor * betas);                                             \
        }                                                                                                           \
        const S result = -POW(1 - x, 1 - beta) * series;                                                            \
        return isnan(result) ? (S)0 : result;                                                                       \
    }                                                                                                               \
    static S dirichlet_grad_one_##SUFFIX(S x, S alpha, S total) {                                                   \
        const double x_ = (double)x, alpha_ = (double)alpha, total_ = (double)total;                                \
        const S beta = total - alpha;                                                                               \
        const double beta_ = total_ - alpha_;                                                                       \
        const S boundary = total * x * (1 - x);                                                                     \
        if (x <= 0.5f && boundary < 2.5f) return beta_grad_alpha_small_##SUFFIX(x, alpha, beta);                    \
        if (x >= 0.5f && boundary < 0.75f) return -beta_grad_beta_small_##SUFFIX(1 - x, beta, alpha);               \
        if (alpha > 6 && beta > 6) return (S)beta_grad_alpha_mid(x_, alpha_, beta_);                                \
        const double u = log(x_);                                                                                   \
        const double a = log(alpha_) - u;                                                                           \
        const double b = log(total_) - a;                                                                           \
        const double pow_u[3] = {1, u, u * u};                                                                      \
        const double pow_a[3] = {1, a, a * a};                                                                      \
        double p = 0.0, q = 0.0;                                                                                    \
        for (int i = 0; i < 3; ++i)                                                                                 \
            for (int j = 0; j < 3; ++j) {                                                                           \
                const double ua = pow_u[i] * pow_a[j];                                                              \
                const double *c0 = DIRICHLET_C[0][i][j], *c1 = DIRICHLET_C[1][i][j];                                \
                p += ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])));                                          \
                q += ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])));                                          \
            }                                                                                                       \
        const double approx =                                                                                       \
            x_ * (digamma_one_##SUFFIX((S)total_) - digamma_one_##SUFFIX((S)alpha_)) / beta_;                      \
        return (S)(p / q * approx);                                                                                 \
    }
static const double DIRICHLET_C[2][3][3][4] = {
    {{{1.003668233, -0.01061107488, -0.0657888334, 0.01201642863},
      {0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033},
      {-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013}},
     {{0.221950385, -0.3187676331, 0.01799915743, 0.01074823814},
      {-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057},
      {0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05}},
     {{-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565},
      {0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181},
      {0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05}}},
    {{{1, -0.02924021934, -0.04438342661, 0.007285809825},
      {0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521},
      {-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149}},
     {{0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273},
      {0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956},
      {-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05}},
     {{0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05},
      {0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05},
      {-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06}}},
};
DIRICHLET_GRAD_DEF(f, float, logf, powf)
DIRICHLET_GRAD_DEF(d, double, log, pow)
#undef DIRICHLET_GRAD_DEF

/* ---- the gradient ops: elementwise over the broadcast inputs (torch's TensorIterator) ---- */
WK_BINARY_LOOP_(sgg_FLOAT32, float, double, float, WK_LD_ID, WK_ST_ID, void, (float)standard_gamma_grad_one(a, b))
WK_BINARY_LOOP_(sgg_FLOAT64, double, double, double, WK_LD_ID, WK_ST_ID, void, standard_gamma_grad_one(a, b))
static const wk_loop_fn SGG[WK_NUM_DTYPES] = {[WK_FLOAT32] = sgg_FLOAT32, [WK_FLOAT64] = sgg_FLOAT64};

wk_tensor *wk_impl__standard_gamma_grad(wk_tensor *self, wk_tensor *output) {
    return wk__binary_op("_standard_gamma_grad_cpu", self, output, self->dtype, self->dtype, SGG, NULL);
}

WK_TERNARY_LOOP_(dg_FLOAT32, float, float, WK_LD_ID, WK_ST_ID, void, dirichlet_grad_one_f(a, b, c))
WK_TERNARY_LOOP_(dg_FLOAT64, double, double, WK_LD_ID, WK_ST_ID, void, dirichlet_grad_one_d(a, b, c))
static const wk_loop_fn DG[WK_NUM_DTYPES] = {[WK_FLOAT32] = dg_FLOAT32, [WK_FLOAT64] = dg_FLOAT64};

wk_tensor *wk_impl__dirichlet_grad(wk_tensor *x, wk_tensor *alpha, wk_tensor *total) {
    return wk__ternary_op("_dirichlet_grad_cpu", x, alpha, total, x->dtype, x->dtype, DG, NULL);
}

/* ---- the samplers: a new contiguous result, the inputs read in row-major order ---- */
wk_tensor *wk_impl__standard_gamma(wk_tensor *self, wk_generator *generator) {
    wk_tensor *alpha = wk__contiguous(self);
    if (!alpha) return NULL;
    wk_tensor *r = wk__zeros(self->ndim, self->sizes, self->dtype);
    if (r && wk__gamma_draws(generator, self->dtype, wk__data(r), wk__data(alpha), wk__numel(self)) < 0) {
        wk_release(r);
        r = NULL;
    }
    wk_release(alpha);
    return r;
}

wk_tensor *wk_impl__sample_dirichlet(wk_tensor *self, wk_generator *generator) {
    wk_tensor *alpha = wk__contiguous(self);
    if (!alpha) return NULL;
    int64_t n = wk__numel(self), k = self->ndim ? self->sizes[self->ndim - 1] : 1;
    wk_tensor *r = wk__zeros(self->ndim, self->sizes, self->dtype);
    if (r && n > 0 && wk__dirichlet_draws(generator, self->dtype, wk__data(r), wk__data(alpha), n / k, k) < 0) {
        wk_release(r);
        r = NULL;
    }
    wk_release(alpha);
    return r;
}

static bool is_floating_dtype(wk_dtype dt) {
    return dt == WK_FLOAT16 || dt == WK_BFLOAT16 || dt == WK_FLOAT32 || dt == WK_FLOAT64;
}

wk_tensor *wk_impl_binomial(wk_tensor *count, wk_tensor *prob, wk_generator *generator) {
    if (!is_floating_dtype(count->dtype))
        return WK_FAIL(WK_VALUE_ERROR, "binomial only supports floating-point dtypes for count, got: %s",
                       wk_dtype_scalar_name(count->dtype));
    if (!is_floating_dtype(prob->dtype))
        return WK_FAIL(WK_VALUE_ERROR, "binomial only supports floating-point dtypes for prob, got: %s",
                       wk_dtype_scalar_name(prob->dtype));
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(count->ndim, count->sizes, prob->ndim, prob->sizes, &nd, shape) < 0) return NULL;
    if (count->dtype != prob->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "Found dtype %s but expected %s", wk_dtype_scalar_name(prob->dtype),
                       wk_dtype_scalar_name(count->dtype));
    wk_tensor *pe = wk__expand_to(prob, count->ndim, count->sizes); /* prob broadcasts to count's shape */
    if (!pe) return NULL;
    wk_tensor *c = wk__contiguous(count), *p = wk__contiguous(pe);
    wk_release(pe);
    wk_tensor *r = c && p ? wk__zeros(count->ndim, count->sizes, count->dtype) : NULL;
    if (r && wk__binomial_draws(generator, count->dtype, wk__data(r), wk__data(c), wk__data(p), wk__numel(count)) < 0) {
        wk_release(r);
        r = NULL;
    }
    if (c) wk_release(c);
    if (p) wk_release(p);
    return r;
}
