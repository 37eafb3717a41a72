/* nn_act.c — activation functions and their backward ops (torch's `*_backward` natives), plus the nn helpers of
 * nn.h. Each forward is one typed elementwise loop; each backward takes (grad_output, self) and is one loop too.
 * Second derivatives use small `_nn_*_d2` helpers: d(backward)/d(self) = grad * grad_output * d2(self).
 *
 * Note [NaN in torch's piecewise backward kernels]: torch's CPU kernels run a vector loop over the first
 * n - n % (2 * lanes) elements and a scalar loop over the rest, and for a NaN input some of them disagree
 * (hardtanh / shrink backward: 0 vs grad; hardswish backward: NaN vs grad). Which one an element gets depends on
 * its position, the length, the dtype and the CPU; the kernels here follow torch's scalar loop, which is what torch
 * gives every tensor of under 8 elements (tests/parity/cases_act_fuzz.py keeps NaN in torch's scalar tail). */
#include "ops/nn.h"

#include "cpu/vec.h"

/* ---- nn.h helpers ---- */
double *wk__nn_load(const wk_tensor *t) {
    int64_t n = wk__numel(t);
    double *p = wk__malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!p) return NULL;
    if (n && wk_copy_to_buffer(t, WK_FLOAT64, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

wk_tensor *wk__nn_work(int ndim, const int64_t *sizes) { return wk__zeros(ndim, sizes, WK_FLOAT64); }

wk_tensor *wk__nn_finish(wk_tensor *work, wk_dtype dtype) {
    if (!work) return NULL;
    wk_tensor *r = wk__to_dtype(work, dtype);
    wk_release(work);
    return r;
}

int wk__nn_check_float(const wk_tensor *t, const char *kernel) {
    if (wk_dtype_is_floating(t->dtype)) return 0;
    wk__not_implemented_for(kernel, t->dtype);
    return -1;
}

int64_t *wk__nn_load_index(const wk_tensor *t) {
    int64_t n = wk__numel(t);
    int64_t *p = wk__malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!p) return NULL;
    if (n && wk_copy_to_buffer(t, WK_INT64, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

int wk__nn_expand_param(wk_intlist v, int n, int64_t *out) {
    if (v.len == 1) {
        for (int i = 0; i < n; i++) out[i] = v.data[0];
        return 0;
    }
    if (v.len != n) return -1;
    for (int i = 0; i < n; i++) out[i] = v.data[i];
    return 0;
}

int wk__nn_check_reduction(int64_t reduction) {
    if (reduction >= 0 && reduction <= 2) return 0;
    wk__error(WK_VALUE_ERROR, "%lld is not a valid value for reduction", (long long)reduction);
    return -1;
}

wk_tensor *wk__nn_unsqueeze(wk_tensor *t, int64_t dim) { return wk_unsqueeze(t, dim); }
wk_tensor *wk__nn_squeeze(wk_tensor *t, int64_t dim) { return wk_squeeze_dim(t, dim); }

/* ---- the loops ----
 * Parameters travel in act_ctx: a, b, c (Scalars as double), i (Scalars as int64 for the integer family), flag. */
typedef struct {
    double a, b, c;
    int64_t ia, ib;
    int flag;
} act_ctx;

#define SIG(x) (1 / (1 + exp(-(x))))

/* unary forwards over floating dtypes: NAME_T table */
#define ACT_UNARY(NAME, EXPR)                                                           \
    WK_UNARY_FLOAT(NAME##_k, act_ctx, EXPR)                                             \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(NAME##_k)};
/* binary backwards (a = grad_output, b = self) over floating dtypes */
#define ACT_BINARY(NAME, EXPR)                                                          \
    WK_BINARY_FLOAT(NAME##_k, act_ctx, EXPR)                                            \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(NAME##_k)};

/* torch converts comparison parameters (thresholds, lambdas, clamp bounds) to the tensor's dtype first */
static double round_to(double v, wk_dtype dt) {
    if (dt == WK_FLOAT16) return wk__half_to_float(wk__float_to_half((float)v));
    if (dt == WK_BFLOAT16) return wk__bf16_to_float(wk__float_to_bf16((float)v));
    if (dt == WK_FLOAT32) return (float)v;
    return v;
}
static void round_params(act_ctx *c, wk_dtype dt) {
    if (!c) return;
    c->a = round_to(c->a, dt);
    c->b = round_to(c->b, dt);
}

static wk_tensor *act_unary(const char *kernel, wk_tensor *self, const wk_loop_fn *table, act_ctx *c) {
    return wk__unary_op(kernel, self, self->dtype, self->dtype, table, c);
}

static wk_tensor *act_binary(const char *kernel, wk_tensor *grad, wk_tensor *self, const wk_loop_fn *table,
                             act_ctx *c) {
    wk_dtype dt = wk__result_type2(grad, self);
    return wk__binary_op(kernel, grad, self, dt, dt, table, c);
}

static double sd(wk_scalar s) { return wk__scalar_to_double(s); }

/* ---- threshold: x <= threshold ? value : x (every dtype but bool) ---- */
WK_UNARY_FLOAT(threshold_k, act_ctx, x <= (__typeof__(x))C->a ? (__typeof__(x))C->b : x)
WK_UNARY_INT(threshold_k, act_ctx, x <= C->ia ? C->ib : x)
static const wk_loop_fn THRESHOLD[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(threshold_k), WK_TABLE_INT(threshold_k)};
WK_BINARY_FLOAT(threshold_bw_k, act_ctx, b <= (__typeof__(b))C->a ? 0 : a)
WK_BINARY_INT(threshold_bw_k, act_ctx, b <= C->ia ? 0 : a)
static void threshold_bw_f32(char **d, const int64_t *s, int64_t n, void *ctx) { /* branch-free vector kernel */
    if (!wk__threshold_bw_f32_run(d, s, n, (float)((const act_ctx *)ctx)->a)) threshold_bw_k_FLOAT32(d, s, n, ctx);
}
static const wk_loop_fn THRESHOLD_BW[WK_NUM_DTYPES] = {
    [WK_FLOAT32] = threshold_bw_f32,       [WK_FLOAT64] = threshold_bw_k_FLOAT64, [WK_FLOAT16] = threshold_bw_k_FLOAT16,
    [WK_BFLOAT16] = threshold_bw_k_BFLOAT16, WK_TABLE_INT(threshold_bw_k)};

wk_tensor *wk_impl_threshold(wk_tensor *self, wk_scalar threshold, wk_scalar value) {
    act_ctx c = {.a = sd(threshold), .b = sd(value), .ia = wk__scalar_to_int(threshold), .ib = wk__scalar_to_int(value)};
    return act_unary("threshold_cpu", self, THRESHOLD, &c);
}

wk_tensor *wk_impl_threshold_backward(wk_tensor *grad_output, wk_tensor *self, wk_scalar threshold) {
    act_ctx c = {.a = sd(threshold), .ia = wk__scalar_to_int(threshold)};
    return act_binary("threshold_backward_cpu", grad_output, self, THRESHOLD_BW, &c);
}

/* ---- leaky_relu ---- */
ACT_UNARY(leaky, x > 0 ? x : x * (__typeof__(x))C->a)
ACT_BINARY(leaky_bw, b > 0 ? a : a * (__typeof__(a))C->a)
wk_tensor *wk_impl_leaky_relu(wk_tensor *self, wk_scalar negative_slope) {
    act_ctx c = {.a = sd(negative_slope)};
    return act_unary("leaky_relu_cpu", self, leaky_T, &c);
}
wk_tensor *wk_impl_leaky_relu_backward(wk_tensor *grad_output, wk_tensor *self, wk_scalar negative_slope,
                                       bool self_is_result) {
    act_ctx c = {.a = sd(negative_slope)};
    if (self_is_result && c.a < 0)
        return WK_FAIL(WK_RUNTIME_ERROR,
                       "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
                       "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
                       "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                       "in-place leakRelu backward calculation with negative slope");
    return act_binary("leaky_relu_backward_cpu", grad_output, self, leaky_bw_T, &c);
}

/* ---- elu: x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale ---- */
ACT_UNARY(elu, x <= 0 ? expm1(x * (__typeof__(x))C->c) * (__typeof__(x))(C->a * C->b) : x * (__typeof__(x))C->b)
/* flag: is_result (b holds the forward's output) */
ACT_BINARY(elu_bw, C->flag ? (b <= 0 ? a * (__typeof__(a))C->c * (b + (__typeof__(a))(C->a * C->b)) : a * (__typeof__(a))C->b)
                          : (b <= 0 ? a * (__typeof__(a))(C->c * C->a * C->b) * exp(b * (__typeof__(a))C->c)
                                    : a * (__typeof__(a))C->b))
/* d(elu_backward)/d(self_or_result) per unit grad_output: torch's elu_double_backward masks with self_or_result < 0
 * (strictly: at 0 the first derivative is the negative side's, the second is 0) */
ACT_UNARY(elu_d2, C->flag ? (x < 0 ? (__typeof__(x))C->c : 0)
                         : (x < 0 ? (__typeof__(x))(C->c * C->c * C->a * C->b) * exp(x * (__typeof__(x))C->c) : 0))

wk_tensor *wk_impl_elu(wk_tensor *self, wk_scalar alpha, wk_scalar scale, wk_scalar input_scale) {
    act_ctx c = {.a = sd(alpha), .b = sd(scale), .c = sd(input_scale)};
    return act_unary("elu_cpu", self, elu_T, &c);
}
wk_tensor *wk_impl_elu_backward(wk_tensor *grad_output, wk_scalar alpha, wk_scalar scale, wk_scalar input_scale,
                                bool is_result, wk_tensor *self_or_result) {
    act_ctx c = {.a = sd(alpha), .b = sd(scale), .c = sd(input_scale), .flag = is_result};
    if (is_result && c.a < 0)
        return WK_FAIL(WK_RUNTIME_ERROR,
                       "In-place elu backward calculation is triggered with a negative slope which is not supported. "
                       "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
                       "version instead.");
    return act_binary("elu_backward_cpu", grad_output, self_or_result, elu_bw_T, &c);
}
wk_tensor *wk_impl__nn_elu_d2(wk_tensor *self, wk_scalar alpha, wk_scalar scale, wk_scalar input_scale,
                              bool is_result) {
    act_ctx c = {.a = sd(alpha), .b = sd(scale), .c = sd(input_scale), .flag = is_result};
    return act_unary("elu_backward_cpu", self, elu_d2_T, &c);
}
wk_tensor *wk_impl_celu(wk_tensor *self, wk_scalar alpha) {
    double a = sd(alpha);
    if (a == 0) {
        wk__error(WK_RUNTIME_ERROR, "ZeroDivisionError: alpha cannot be 0 for CELU");
        return NULL;
    }
    return wk_impl_elu(self, alpha, wk_float(1.0), wk_float(1.0 / a));
}
wk_tensor *wk_impl_selu(wk_tensor *self) {
    return wk_impl_elu(self, wk_float(1.6732632423543772848170429916717), wk_float(1.0507009873554804934193349852946),
                  wk_int(1));
}

/* ---- gelu ---- */
#define GELU_BETA 0.7978845608028654 /* sqrt(2 / pi) */
#define GELU_KAPPA 0.044715
ACT_UNARY(gelu, C->flag ? (__typeof__(x))0.5 * x *
                              (1 + tanh((__typeof__(x))GELU_BETA * (x + (__typeof__(x))GELU_KAPPA * x * x * x)))
                        : (C->ia && isinf(x) ? (__typeof__(x))NAN                                     \
                                             : x * (__typeof__(x))0.5 * (1 + erf(x * (__typeof__(x))M_SQRT1_2))))
static inline double gelu_d1(double x, int tanh_) {
    if (tanh_) {
        double inner = GELU_BETA * (x + GELU_KAPPA * x * x * x), t = tanh(inner);
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GELU_BETA * (1 + 3 * GELU_KAPPA * x * x);
    }
    double cdf = 0.5 * (1 + erf(x * M_SQRT1_2)), pdf = exp(-0.5 * x * x) * (M_2_SQRTPI * M_SQRT1_2 * 0.5);
    return cdf + x * pdf;
}
static inline double gelu_d2(double x, int tanh_) {
    if (tanh_) {
        double u = GELU_BETA * (x + GELU_KAPPA * x * x * x), t = tanh(u), s = 1 - t * t;
        double du = GELU_BETA * (1 + 3 * GELU_KAPPA * x * x), ddu = GELU_BETA * 6 * GELU_KAPPA * x;
        return s * du + 0.5 * x * (-2 * t * s * du * du + s * ddu);
    }
    double pdf = exp(-0.5 * x * x) * (M_2_SQRTPI * M_SQRT1_2 * 0.5);
    return pdf * (2 - x * x);
}
ACT_BINARY(gelu_bw, a * (__typeof__(a))gelu_d1((double)b, C->flag))
ACT_UNARY(gelu_d2, (__typeof__(x))gelu_d2((double)x, C->flag))

static int gelu_mode(const char *approximate, int *tanh_) {
    if (!approximate || !strcmp(approximate, "none")) *tanh_ = 0;
    else if (!strcmp(approximate, "tanh")) *tanh_ = 1;
    else {
        wk__error(WK_RUNTIME_ERROR, "approximate argument must be either none or tanh.");
        return -1;
    }
    return 0;
}
wk_tensor *wk_impl_gelu(wk_tensor *self, const char *approximate) {
    act_ctx c = {0};
    if (gelu_mode(approximate, &c.flag) < 0) return NULL;
    c.ia = wk__cpu_avx512_core(); /* torch on avx512_core: gelu(+-inf) = NaN (Note [CPU-dependent paths in torch]) */
    return act_unary("GeluKernelImpl", self, gelu_T, &c);
}
wk_tensor *wk_impl_gelu_backward(wk_tensor *grad_output, wk_tensor *self, const char *approximate) {
    act_ctx c = {0};
    if (gelu_mode(approximate, &c.flag) < 0) return NULL;
    return act_binary("GeluBackwardKernelImpl", grad_output, self, gelu_bw_T, &c);
}
wk_tensor *wk_impl__nn_gelu_d2(wk_tensor *self, const char *approximate) {
    act_ctx c = {0};
    if (gelu_mode(approximate, &c.flag) < 0) return NULL;
    return act_unary("GeluBackwardKernelImpl", self, gelu_d2_T, &c);
}

/* ---- silu: x * sigmoid(x) ---- */
ACT_UNARY(silu, x / (1 + exp(-x)))
ACT_BINARY(silu_bw, a * SIG(b) * (1 + b * (1 - SIG(b))))
ACT_UNARY(silu_d2, SIG(x) * (1 - SIG(x)) * (2 + x * (1 - 2 * SIG(x))))
wk_tensor *wk_impl_silu(wk_tensor *self) { return act_unary("silu_cpu", self, silu_T, NULL); }
wk_tensor *wk_impl_silu_backward(wk_tensor *grad_output, wk_tensor *self) {
    return act_binary("silu_backward_cpu", grad_output, self, silu_bw_T, NULL);
}
wk_tensor *wk_impl__nn_silu_d2(wk_tensor *self) { return act_unary("silu_backward_cpu", self, silu_d2_T, NULL); }

/* ---- mish: x * tanh(softplus(x)) ---- */
static inline double mish_d2(double x) {
    double s = 1 / (1 + exp(-x)), t = tanh(log1p(exp(x))), dt = (1 - t * t) * s;
    double ds = s * (1 - s);
    /* d/dx [t + x * s * (1 - t^2)] */
    return dt + s * (1 - t * t) + x * (ds * (1 - t * t) - s * 2 * t * dt);
}
ACT_UNARY(mish, x * tanh(log1p(exp(x))))
ACT_BINARY(mish_bw, a * (tanh(log1p(exp(b))) + b * SIG(b) * (1 - tanh(log1p(exp(b))) * tanh(log1p(exp(b))))))
ACT_UNARY(mish_d2, (__typeof__(x))mish_d2((double)x))
wk_tensor *wk_impl_mish(wk_tensor *self) { return act_unary("mish_cpu", self, mish_T, NULL); }
wk_tensor *wk_impl_mish_backward(wk_tensor *grad_output, wk_tensor *self) {
    return act_binary("mish_backward_cpu", grad_output, self, mish_bw_T, NULL);
}
wk_tensor *wk_impl__nn_mish_d2(wk_tensor *self) { return act_unary("mish_backward_cpu", self, mish_d2_T, NULL); }

/* ---- softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta ---- */
ACT_UNARY(softplus, x * (__typeof__(x))C->a > (__typeof__(x))C->b ? x
                                                                    : log1p(exp(x * (__typeof__(x))C->a)) / (__typeof__(x))C->a)
ACT_BINARY(softplus_bw, b * (__typeof__(b))C->a > (__typeof__(b))C->b
                            ? a
                            : a * exp(b * (__typeof__(b))C->a) / (exp(b * (__typeof__(b))C->a) + 1))
/* torch's softplus_double_backward: sigmoid_backward(g, sigmoid(x * beta)) * (x * beta < threshold) * beta -- a mask
 * multiplied, not selected (NaN stays NaN), and strict, where the forward and first derivative switch at > */
ACT_UNARY(softplus_d2, (__typeof__(x))(x * (__typeof__(x))C->a < (__typeof__(x))C->b) * (__typeof__(x))C->a *
                           SIG(x * (__typeof__(x))C->a) * (1 - SIG(x * (__typeof__(x))C->a)))
wk_tensor *wk_impl_softplus(wk_tensor *self, wk_scalar beta, wk_scalar threshold) {
    act_ctx c = {.a = sd(beta), .b = sd(threshold)};
    return act_unary("softplus_cpu", self, softplus_T, &c);
}
wk_tensor *wk_impl_softplus_backward(wk_tensor *grad_output, wk_tensor *self, wk_scalar beta, wk_scalar threshold) {
    act_ctx c = {.a = sd(beta), .b = sd(threshold)};
    return act_binary("softplus_backward_cpu", grad_output, self, softplus_bw_T, &c);
}
wk_tensor *wk_impl__nn_softplus_d2(wk_tensor *self, wk_scalar beta, wk_scalar threshold) {
    act_ctx c = {.a = sd(beta), .b = sd(threshold)};
    return act_unary("softplus_backward_cpu", self, softplus_d2_T, &c);
}

/* ---- hardtanh: clamp(x, min_val, max_val) (NaN propagates); integers too ---- */
WK_UNARY_FLOAT(hardtanh_k, act_ctx,
               isnan(x) ? x : (x < (__typeof__(x))C->a ? (__typeof__(x))C->a : (x > (__typeof__(x))C->b ? (__typeof__(x))C->b : x)))
WK_UNARY_INT(hardtanh_k, act_ctx, x < C->ia ? C->ia : (x > C->ib ? C->ib : x))
static const wk_loop_fn HARDTANH[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(hardtanh_k), WK_TABLE_INT(hardtanh_k)};
WK_BINARY_FLOAT(hardtanh_bw_k, act_ctx, (b <= (__typeof__(b))C->a || b >= (__typeof__(b))C->b) ? 0 : a)
WK_BINARY_INT(hardtanh_bw_k, act_ctx, (b <= C->ia || b >= C->ib) ? 0 : a)
static const wk_loop_fn HARDTANH_BW[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(hardtanh_bw_k), WK_TABLE_INT(hardtanh_bw_k)};
wk_tensor *wk_impl_hardtanh(wk_tensor *self, wk_scalar min_val, wk_scalar max_val) {
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Bool inputs not supported for hardtanh");
        return NULL;
    }
    double lo = sd(min_val), hi = sd(max_val);
    if (lo > hi) {
        wk__error(WK_VALUE_ERROR, "min_val cannot be greater than max_val");
        return NULL;
    }
    act_ctx c = {.a = lo, .b = hi, .ia = wk__scalar_to_int(min_val), .ib = wk__scalar_to_int(max_val)};
    round_params(&c, self->dtype);
    return act_unary("clamp_scalar_cpu", self, HARDTANH, &c);
}
wk_tensor *wk_impl_hardtanh_backward(wk_tensor *grad_output, wk_tensor *self, wk_scalar min_val, wk_scalar max_val) {
    act_ctx c = {.a = sd(min_val), .b = sd(max_val), .ia = wk__scalar_to_int(min_val), .ib = wk__scalar_to_int(max_val)};
    return act_binary("hardtanh_backward_cpu", grad_output, self, HARDTANH_BW, &c);
}

/* ---- hardswish / hardsigmoid ---- */
#define RELU6(v) ((v) < 0 ? 0 : ((v) > 6 ? 6 : (v)))
ACT_UNARY(hardswish, x * RELU6(x + 3) / 6)
/* torch's CPU kernel: 0 for self <= -3, grad for self >= 3 (so 0 and 1 at the bends), the slope between */
ACT_BINARY(hardswish_bw, b <= -3 ? 0 : (b < 3 ? a * ((b / 3) + (__typeof__(b))0.5) : a))
ACT_UNARY(hardswish_d2, (x > -3 && x < 3) ? (__typeof__(x))1 / 3 : 0)
ACT_UNARY(hardsigmoid, RELU6(x + 3) / 6)
/* torch multiplies by (scalar_t)(1.0f / 6.0f): float's sixth, in double too */
ACT_BINARY(hardsigmoid_bw, (b > -3 && b < 3) ? a * (__typeof__(a))(1.0f / 6.0f) : 0)
wk_tensor *wk_impl_hardswish(wk_tensor *self) { return act_unary("hardswish_cpu", self, hardswish_T, NULL); }
wk_tensor *wk_impl_hardswish_backward(wk_tensor *grad_output, wk_tensor *self) {
    return act_binary("hardswish_backward_cpu", grad_output, self, hardswish_bw_T, NULL);
}
wk_tensor *wk_impl__nn_hardswish_d2(wk_tensor *self) {
    return act_unary("hardswish_backward_cpu", self, hardswish_d2_T, NULL);
}
wk_tensor *wk_impl_hardsigmoid(wk_tensor *self) { return act_unary("hardsigmoid_cpu", self, hardsigmoid_T, NULL); }
wk_tensor *wk_impl_hardsigmoid_backward(wk_tensor *grad_output, wk_tensor *self) {
    return act_binary("hardsigmoid_backward_cpu", grad_output, self, hardsigmoid_bw_T, NULL);
}

/* ---- log_sigmoid: min(x, 0) - log1p(exp(-|x|)) ---- */
ACT_UNARY(logsig, (x < 0 ? x : 0) - log1p(exp(-fabs(x))))
ACT_UNARY(logsig_buf, exp(-fabs(x)))
ACT_BINARY(logsig_bw, a * ((b < 0 ? 1 : 0) - (b < 0 ? 1 : -1) * (exp(-fabs(b)) / (1 + exp(-fabs(b))))))
ACT_UNARY(logsig_d2, -SIG(x) * (1 - SIG(x)))
int wk_impl_log_sigmoid_forward(wk_tensor *self, wk_tensor **outs) {
    outs[0] = act_unary("log_sigmoid_cpu", self, logsig_T, NULL);
    if (!outs[0]) return -1;
    outs[1] = act_unary("log_sigmoid_cpu", self, logsig_buf_T, NULL);
    if (!outs[1]) {
        wk_release(outs[0]);
        outs[0] = NULL;
        return -1;
    }
    return 0;
}
wk_tensor *wk_impl_log_sigmoid(wk_tensor *self) {
    wk_tensor *outs[2] = {0};
    if (wk_log_sigmoid_forward(self, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}
wk_tensor *wk_impl_log_sigmoid_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *buffer) {
    WK_UNUSED(buffer);
    return act_binary("log_sigmoid_backward_cpu", grad_output, self, logsig_bw_T, NULL);
}
wk_tensor *wk_impl__nn_log_sigmoid_d2(wk_tensor *self) {
    return act_unary("log_sigmoid_backward_cpu", self, logsig_d2_T, NULL);
}

/* ---- hardshrink / softshrink ---- */
ACT_UNARY(hardshrink, (x >= -(__typeof__(x))C->a && x <= (__typeof__(x))C->a) ? 0 : x)
ACT_BINARY(shrink_bw, (b >= -(__typeof__(b))C->a && b <= (__typeof__(b))C->a) ? 0 : a)
ACT_UNARY(softshrink, x > (__typeof__(x))C->a ? x - (__typeof__(x))C->a
                                              : (x < -(__typeof__(x))C->a ? x + (__typeof__(x))C->a : x * 0))
wk_tensor *wk_impl_hardshrink(wk_tensor *self, wk_scalar lambd) {
    act_ctx c = {.a = sd(lambd)};
    round_params(&c, self->dtype);
    return act_unary("hardshrink_cpu", self, hardshrink_T, &c);
}
wk_tensor *wk_impl_hardshrink_backward(wk_tensor *grad_out, wk_tensor *self, wk_scalar lambd) {
    act_ctx c = {.a = sd(lambd)};
    return act_binary("hardshrink_backward_cpu", grad_out, self, shrink_bw_T, &c);
}
static int softshrink_check(const wk_tensor *self, wk_scalar lambd) {
    if (wk__nn_check_float(self, "softshrink_check") < 0) return -1;
    double l = sd(lambd), hi = self->dtype == WK_FLOAT64 ? 1.7976931348623157e308
                                 : self->dtype == WK_FLOAT16 ? 65504.0
                                 : self->dtype == WK_BFLOAT16 ? 3.3895313892515355e38 : 3.4028234663852886e38;
    if (!(l >= 0 && l <= hi)) {
        wk__error(WK_RUNTIME_ERROR, "lambda must be in range [0, %g] for input dtype %s, but found %g", hi,
                  wk_dtype_scalar_name(self->dtype), l);
        return -1;
    }
    return 0;
}
wk_tensor *wk_impl_softshrink(wk_tensor *self, wk_scalar lambd) {
    if (softshrink_check(self, lambd) < 0) return NULL;
    act_ctx c = {.a = sd(lambd)};
    return act_unary("softshrink_cpu", self, softshrink_T, &c);
}
wk_tensor *wk_impl_softshrink_backward(wk_tensor *grad_output, wk_tensor *self, wk_scalar lambd) {
    act_ctx c = {.a = sd(lambd)};
    return act_binary("softshrink_backward_cpu", grad_output, self, shrink_bw_T, &c);
}

/* ---- glu: a * sigmoid(b), a and b the two halves of dim ---- */
static int glu_split(const wk_tensor *self, int64_t dim, int64_t *d, wk_tensor **a, wk_tensor **b) {
    if (self->ndim == 0) {
        wk__error(WK_RUNTIME_ERROR, "glu does not support scalars because halving size must be even");
        return -1;
    }
    if (wk__wrap_dim(dim, self->ndim, d) < 0) return -1;
    int64_t n = self->sizes[*d];
    if (n % 2) {
        wk__error(WK_RUNTIME_ERROR, "Halving dimension must be even, but dimension %lld is size %lld", (long long)*d,
                  (long long)n);
        return -1;
    }
    int64_t sz[WK_MAX_DIM];
    memcpy(sz, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sz[*d] = n / 2;
    *a = wk__alias(self, self->ndim, sz, self->strides, self->offset);
    *b = wk__alias(self, self->ndim, sz, self->strides, self->offset + (n / 2) * self->strides[*d]);
    if (!*a || !*b) {
        wk_release(*a);
        wk_release(*b);
        return -1;
    }
    return 0;
}
WK_BINARY_FLOAT(glu_k, void, a / (1 + exp(-b)))
static const wk_loop_fn GLU[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(glu_k)};
wk_tensor *wk_impl_glu(wk_tensor *self, int64_t dim) {
    int64_t d;
    wk_tensor *a = NULL, *b = NULL;
    if (wk__nn_check_float(self, "glu_cpu") < 0 || glu_split(self, dim, &d, &a, &b) < 0) return NULL;
    wk_tensor *r = wk__binary_op("glu_cpu", a, b, self->dtype, self->dtype, GLU, NULL);
    wk_release(a);
    wk_release(b);
    return r;
}
/* grad_input = cat(g * sig(b), g * a * sig(b) * (1 - sig(b))) along dim */
wk_tensor *wk_impl_glu_backward(wk_tensor *grad_output, wk_tensor *self, int64_t dim) {
    int64_t d;
    wk_tensor *a = NULL, *b = NULL;
    if (wk__nn_check_float(self, "glu_backward_cpu") < 0 || glu_split(self, dim, &d, &a, &b) < 0) return NULL;
    wk_tensor *r = NULL;
    double *g = wk__nn_load(grad_output), *av = wk__nn_load(a), *bv = wk__nn_load(b);
    wk_tensor *w = wk__nn_work(self->ndim, self->sizes);
    if (g && av && bv && w && wk__numel(grad_output) == wk__numel(a)) {
        int64_t outer = wk__prod(self->sizes, (int)d), half = self->sizes[d] / 2;
        int64_t inner = wk__prod(self->sizes + d + 1, self->ndim - (int)d - 1);
        double *o = wk__nn_data(w);
        for (int64_t i = 0; i < outer; i++)
            for (int64_t j = 0; j < half; j++)
                for (int64_t k = 0; k < inner; k++) {
                    int64_t h = (i * half + j) * inner + k;
                    double s = 1 / (1 + exp(-bv[h]));
                    o[(i * 2 * half + j) * inner + k] = g[h] * s;
                    o[(i * 2 * half + half + j) * inner + k] = g[h] * av[h] * s * (1 - s);
                }
        r = wk__nn_finish(w, self->dtype);
        w = NULL;
    } else if (g && av && bv && w) {
        wk__error(WK_RUNTIME_ERROR, "glu_backward: grad_output has the wrong number of elements");
    }
    wk_release(w);
    free(g);
    free(av);
    free(bv);
    wk_release(a);
    wk_release(b);
    return r;
}

/* ---- prelu: x > 0 ? x : w * x, w broadcast (the Python side reshapes it) ---- */
WK_BINARY_FLOAT(prelu_k, void, a > 0 ? a : b * a)
static const wk_loop_fn PRELU[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(prelu_k)};
static int prelu_types(const wk_tensor *self, const wk_tensor *weight) {
    if (self->dtype != weight->dtype) {
        wk__error(WK_RUNTIME_ERROR, "prelu: Type promoting not supported. Got %s and %s",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(weight->dtype));
        return -1;
    }
    return wk__nn_check_float(self, "prelu_cpu");
}
wk_tensor *wk_impl__prelu_kernel(wk_tensor *self, wk_tensor *weight) {
    if (prelu_types(self, weight) < 0) return NULL;
    return wk__binary_op("prelu_cpu", self, weight, self->dtype, self->dtype, PRELU, NULL);
}
/* grad_self = x > 0 ? g : w * g */
WK_BINARY_FLOAT(prelu_bx_k, void, b > 0 ? a : 0)
WK_BINARY_FLOAT(prelu_bw_k, void, b > 0 ? 0 : a * b)
static const wk_loop_fn PRELU_POS[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(prelu_bx_k)};
static const wk_loop_fn PRELU_NEG[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(prelu_bw_k)};
wk_tensor *wk_impl__prelu_kernel_backward_self(wk_tensor *grad_output, wk_tensor *self, wk_tensor *weight) {
    if (prelu_types(self, weight) < 0) return NULL;
    /* g where x > 0, else g * w: pos = (x > 0 ? g : 0); r = pos + (g - pos) * w */
    wk_tensor *pos = wk__binary_op("prelu_backward_cpu", grad_output, self, self->dtype, self->dtype, PRELU_POS, NULL);
    wk_tensor *neg = pos ? wk_impl_sub(grad_output, pos, wk_int(1)) : NULL;
    wk_tensor *gw = neg ? wk_impl_mul(neg, weight) : NULL;
    wk_tensor *r = gw ? wk_impl_add(pos, gw, wk_int(1)) : NULL;
    wk_release(pos);
    wk_release(neg);
    wk_release(gw);
    return r;
}
/* grad_weight (elementwise, before the engine sums it to weight's shape) = x > 0 ? 0 : g * x */
wk_tensor *wk_impl__prelu_kernel_backward_weight(wk_tensor *grad_output, wk_tensor *self, wk_tensor *weight) {
    if (prelu_types(self, weight) < 0) return NULL;
    return wk__binary_op("prelu_backward_cpu", grad_output, self, self->dtype, self->dtype, PRELU_NEG, NULL);
}

/* ---- a derivative torch itself does not implement: its RuntimeError ---- */
wk_tensor *wk_impl__nn_derivative_not_implemented(wk_tensor *grad, const char *name) {
    WK_UNUSED(grad);
    wk__error(WK_RUNTIME_ERROR, "derivative for aten::%s is not implemented", name);
    return NULL;
}

/* ---- a derivative that wick does not implement (third derivatives of activations, ...) ---- */
wk_tensor *wk_impl__nn_grad_not_implemented(wk_tensor *grad, const char *name) {
    WK_UNUSED(grad);
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "the derivative for '%s' is not implemented.", name);
    return NULL;
}

/* prelu: checks, then weight reshaped to broadcast over dim 1 ([1, C, 1, ...]) and _prelu_kernel */
wk_tensor *wk_impl_prelu(wk_tensor *self, wk_tensor *weight) {
    if (self->dtype != weight->dtype) {
        wk__error(WK_RUNTIME_ERROR, "prelu: Type promoting not supported. Got %s and %s",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(weight->dtype));
        return NULL;
    }
    int64_t wn = wk__numel(weight);
    if (wn != 1) {
        if (self->ndim == 0) return WK_FAIL(WK_RUNTIME_ERROR, "Not allow zero-dim input tensor.");
        int64_t channels = self->ndim > 1 ? self->sizes[1] : 1;
        if (channels != wn) {
            wk__error(WK_RUNTIME_ERROR,
                      "Mismatch of parameter numbers and input channel size. Found parameter numbers = %lld and "
                      "channel size = %lld.",
                      (long long)wn, (long long)channels);
            return NULL;
        }
    }
    if (weight->ndim > 1) {
        wk__error(WK_RUNTIME_ERROR, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = %d",
                  weight->ndim);
        return NULL;
    }
    wk_tensor *w = NULL;
    if (self->ndim != weight->ndim) {
        int64_t shape[WK_MAX_DIM];
        for (int i = 0; i < self->ndim; i++) shape[i] = 1;
        if (self->ndim > 1) shape[1] = wn;
        w = wk_reshape(weight, wk_ints(shape, self->ndim));
    } else {
        w = wk_retain(weight);
    }
    if (!w) return NULL;
    wk_tensor *r = wk__prelu_kernel(self, w);
    wk_release(w);
    return r;
}
