/* pointwise.c — elementwise arithmetic: the framework (pointwise.h), add / sub / mul / div and the division family,
 * pow, and the binary maths (atan2, hypot, lerp, maximum, copysign, logaddexp, xlogy, addcmul, clamp, where). */
#include "ops/pointwise.h"

#include "cpu/vec.h"
#include "ops/index.h"
#include "ops_impl.h"
#include "ops/ops_support.h"

/* ---- framework ---- */
wk_dtype wk__result_type2(const wk_tensor *a, const wk_tensor *b) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, a);
    wk__promo_tensor(&p, b);
    return wk__promo_result(&p);
}

wk_dtype wk__result_type3(const wk_tensor *a, const wk_tensor *b, const wk_tensor *c) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, a);
    if (b) wk__promo_tensor(&p, b);
    if (c) wk__promo_tensor(&p, c);
    return wk__promo_result(&p);
}

wk_dtype wk__float_op_dtype(wk_dtype d) { return wk_dtype_is_floating(d) ? d : wk_get_default_dtype(); }

void wk__not_implemented_for(const char *name, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", name, wk_dtype_scalar_name(dt));
}

/* Note [Writing into the destination] (ops_support.h): may dest (contiguous) take the result of in -> shape? */
static bool dest_fits(const wk_tensor *dest, int nin, wk_tensor *const *in, int nd, const int64_t *shape,
                      wk_dtype dtype) {
    if (dest->dtype != dtype || dest->ndim != nd || memcmp(dest->sizes, shape, sizeof(int64_t) * (size_t)nd) ||
        !wk__is_contiguous(dest))
        return false;
    for (int k = 0; k < nin; k++)
        if (in[k]->storage == dest->storage &&
            (in[k]->offset != dest->offset || memcmp(in[k]->strides, dest->strides, sizeof(int64_t) * (size_t)nd)))
            return false;
    return true;
}

wk_tensor *wk__nary_op(const char *name, int nin, const wk_tensor *const *in, const wk_dtype *in_dt,
                       wk_dtype out_dtype, wk_loop_fn loop, wk_dtype err_dtype, void *ctx) {
    wk_tensor *dest = wk__take_dest();
    const wk_write_target target = wk__take_write_target();
    int nd = in[0]->ndim;
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, in[0]->sizes, sizeof(int64_t) * (size_t)nd);
    for (int k = 1; k < nin; k++) { /* TensorIterator broadcasts before the kernel's dtype dispatch */
        int n2;
        int64_t s2[WK_MAX_DIM];
        if (wk__broadcast_shapes(nd, shape, in[k]->ndim, in[k]->sizes, &n2, s2) < 0) return NULL;
        nd = n2;
        memcpy(shape, s2, sizeof(int64_t) * (size_t)nd);
    }
    if (!loop) { /* Note [Checks before the kernel] */
        if (wk__check_write_target(target, nd, shape, out_dtype) == 0) wk__not_implemented_for(name, err_dtype);
        return NULL;
    }
    wk_tensor *ops[WK_MAX_OPS] = {0}; /* [0] the output, [1..nin] the inputs cast and expanded */
    wk_tensor *out = NULL;
    int rc = -1;
    bool broadcast = false;
    for (int k = 0; k < nin; k++) {
        wk_tensor *c = wk__to_dtype(in[k], in_dt[k] == WK_DTYPE_NONE ? in[k]->dtype : in_dt[k]);
        if (!c) goto done;
        /* same shape: the kernel can read c itself (an expanded alias would cost a header allocation) */
        bool same = c->ndim == nd && !memcmp(c->sizes, shape, sizeof(int64_t) * (size_t)nd);
        broadcast |= !same;
        ops[k + 1] = same ? wk_retain(c) : wk__expand_to(c, nd, shape);
        wk_release(c);
        if (!ops[k + 1]) goto done;
    }
    if (dest && dest_fits(dest, nin, ops + 1, nd, shape, out_dtype)) out = wk_retain(dest);
    else out = wk_iter_alloc_output_ex(nin, ops + 1, nd, shape, out_dtype, broadcast);
    if (!out) goto done;
    ops[0] = out;
    wk_iter it; /* elementwise loops are pure: the iteration may run on the thread pool */
    rc = wk_iter_init(&it, nin + 1, ops);
    if (rc == 0) wk_iter_run_parallel(&it, loop, ctx);
done:
    for (int k = 1; k <= nin; k++) wk_release(ops[k]);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

static wk_tensor *elementwise(const char *name, int nin, const wk_tensor *const *in, wk_dtype compute,
                              wk_dtype out_dtype, const wk_loop_fn *table, void *ctx) {
    wk_dtype dts[WK_MAX_OPS];
    for (int k = 0; k < nin; k++) dts[k] = compute;
    return wk__nary_op(name, nin, in, dts, out_dtype, table[compute], compute, ctx);
}

wk_tensor *wk__binary_op(const char *name, const wk_tensor *a, const wk_tensor *b, wk_dtype compute,
                         wk_dtype out_dtype, const wk_loop_fn *table, void *ctx) {
    const wk_tensor *in[2] = {a, b};
    return elementwise(name, 2, in, compute, out_dtype, table, ctx);
}

wk_tensor *wk__unary_op(const char *name, const wk_tensor *a, wk_dtype compute, wk_dtype out_dtype,
                        const wk_loop_fn *table, void *ctx) {
    const wk_tensor *in[1] = {a};
    return elementwise(name, 1, in, compute, out_dtype, table, ctx);
}

wk_tensor *wk__ternary_op(const char *name, const wk_tensor *a, const wk_tensor *b, const wk_tensor *c,
                          wk_dtype compute, wk_dtype out_dtype, const wk_loop_fn *table, void *ctx) {
    const wk_tensor *in[3] = {a, b, c};
    return elementwise(name, 3, in, compute, out_dtype, table, ctx);
}

/* Scalar overloads run the Tensor overload with the scalar as a wrapped number (as torch does). */
typedef wk_tensor *(*binary_fn)(wk_tensor *, wk_tensor *);
static wk_tensor *scalar_other(binary_fn f, wk_tensor *self, wk_scalar other) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = f(self, o);
    wk_release(o);
    return r;
}
static wk_tensor *scalar_self(binary_fn f, wk_scalar self, wk_tensor *other) {
    wk_tensor *s = wk__wrap_scalar(self);
    if (!s) return NULL;
    wk_tensor *r = f(s, other);
    wk_release(s);
    return r;
}

/* ---- add / sub: out = a + alpha * b ---- */
static int alpha_check(wk_dtype dt, wk_scalar alpha, wk_scalar_ctx *c) {
    if (alpha.tag == WK_SCALAR_FLOAT && !wk_dtype_is_floating(dt)) {
        wk__error(WK_RUNTIME_ERROR, "For integral input tensors, argument alpha must not be a floating point number.");
        return -1;
    }
    if (alpha.tag == WK_SCALAR_BOOL && dt != WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Boolean alpha only supported for Boolean results.");
        return -1;
    }
    if (wk__check_scalar_fits(alpha, dt) < 0) return -1; /* torch's alpha.to<scalar_t>() */
    c->f = wk__scalar_to_double(alpha);
    c->i = wk__scalar_to_int(alpha);
    return 0;
}

/* Floating types: b * alpha + a with one rounding, alpha in the type (torch's vectorised kernel: fmadd; its scalar
 * loop is compiled with FMA contraction, so every layout rounds once). One known difference: where the other operand
 * is a broadcast scalar, torch's compiled tail (the last n % 16 of a float32 run) rounds alpha * b separately for
 * some elements and not others; wick rounds once there too. float16 / bfloat16: ADD_HALF below. */
#define FMA_ALPHA(a, b, alpha) _Generic((a), float: fmaf((b), (float)(alpha), (a)), default: fma((b), (alpha), (a)))
WK_BINARY_FLOAT(add_k, wk_scalar_ctx, C->f == 1 ? a + b : FMA_ALPHA(a, b, C->f))
WK_BINARY_INT(add_k, wk_scalar_ctx, (int64_t)((uint64_t)a + (uint64_t)b * (uint64_t)C->i))
WK_BINARY_BOOL(add_k, wk_scalar_ctx, a + b * (C->i != 0)) /* alpha.to<bool>() */
/* alpha 1 and -1 (sub) are a + b and a - b; any other alpha one fused multiply-add: the vector kernels */
static void add_f32(char **d, const int64_t *s, int64_t n, void *ctx) {
    double alpha = ((const wk_scalar_ctx *)ctx)->f;
    if (alpha == 1 ? wk__add_f32_run(d, s, n) : alpha == -1 ? wk__sub_f32_run(d, s, n)
                                                            : wk__add_alpha_f32_run(d, s, n, (float)alpha))
        return;
    add_k_FLOAT32(d, s, n, ctx);
}
/* float16 / bfloat16: alpha is rounded to the type first (torch's alpha.to<scalar_t>()). Torch's vectorised loop
 * (every operand contiguous, or one input a broadcast scalar) computes fmaf(b, alpha, a) in float and rounds once,
 * 32 elements at a time; the last n % 32 of the run, and every element of any other layout, go through its scalar
 * loop of c10::Half arithmetic: alpha * b rounded to the type, then the sum (measured: 2032 elements differ from
 * 2016 on). Runs match torch's: TensorIterator's inner loops, split between threads as at::parallel_for does. */
#define ADD_HALF(NAME, LD, ST)                                                                               \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx) {                                     \
        const float alpha = LD(ST((float)((const wk_scalar_ctx *)ctx)->f));                                  \
        const int64_t e = 2;                                                                                 \
        const bool vec = s[0] == e && ((s[1] == e && (s[2] == e || s[2] == 0)) || (s[1] == 0 && s[2] == e)); \
        const int64_t nvec = vec ? n - n % 32 : 0;                                                           \
        char *po = d[0], *pa = d[1], *pb = d[2];                                                             \
        for (int64_t i = 0; i < n; i++, po += s[0], pa += s[1], pb += s[2]) {                                \
            float a = LD(*(const uint16_t *)pa), b = LD(*(const uint16_t *)pb);                              \
            *(uint16_t *)po = i < nvec ? ST(fmaf(b, alpha, a)) : ST(a + LD(ST(alpha * b)));                  \
        }                                                                                                    \
    }
ADD_HALF(add_f16, wk__half_to_float, wk__float_to_half)
ADD_HALF(add_bf16, wk__bf16_to_float, wk__float_to_bf16)
static const wk_loop_fn ADD[WK_NUM_DTYPES] = {[WK_FLOAT32] = add_f32,   [WK_FLOAT64] = add_k_FLOAT64,
                                              [WK_FLOAT16] = add_f16,   [WK_BFLOAT16] = add_bf16,
                                              WK_TABLE_INT(add_k),           WK_TABLE_BOOL(add_k)};

wk_tensor *wk_impl_add(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    wk_dtype dt = wk__result_type2(self, other);
    wk_scalar_ctx c;
    if (alpha_check(dt, alpha, &c) < 0) return NULL;
    return wk__binary_op("add", self, other, dt, dt, ADD, &c);
}

wk_tensor *wk_impl_add_Scalar(wk_tensor *self, wk_scalar other, wk_scalar alpha) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = wk_impl_add(self, o, alpha);
    wk_release(o);
    return r;
}

static int sub_check(const wk_tensor *a, const wk_tensor *b) {
    if (a->dtype == WK_BOOL && b->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                                    "`^` or `logical_xor()` operator instead.");
        return -1;
    }
    if (a->dtype == WK_BOOL || b->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_sub(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    wk_dtype dt = wk__result_type2(self, other);
    if (sub_check(self, other) < 0) return NULL;
    wk_scalar_ctx c;
    if (alpha_check(dt, alpha, &c) < 0) return NULL;
    c.f = -c.f;
    c.i = (int64_t)(0 - (uint64_t)c.i);
    return wk__binary_op("sub", self, other, dt, dt, ADD, &c);
}

/* rsub(self, other, alpha) = other - alpha * self */
wk_tensor *wk_impl_rsub(wk_tensor *self, wk_tensor *other, wk_scalar alpha) { return wk_impl_sub(other, self, alpha); }

wk_tensor *wk_impl_rsub_Scalar(wk_tensor *self, wk_scalar other, wk_scalar alpha) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = wk_impl_sub(o, self, alpha);
    wk_release(o);
    return r;
}

/* ---- mul ---- */
WK_BINARY_FLOAT(mul_k, void, a *b)
WK_BINARY_INT(mul_k, void, (int64_t)((uint64_t)a * (uint64_t)b))
WK_BINARY_BOOL(mul_k, void, a &&b)
static void mul_f32(char **d, const int64_t *s, int64_t n, void *ctx) {
    if (!wk__mul_f32_run(d, s, n)) mul_k_FLOAT32(d, s, n, ctx);
}
static const wk_loop_fn MUL[WK_NUM_DTYPES] = {[WK_FLOAT32] = mul_f32,        [WK_FLOAT64] = mul_k_FLOAT64,
                                              [WK_FLOAT16] = mul_k_FLOAT16,  [WK_BFLOAT16] = mul_k_BFLOAT16,
                                              WK_TABLE_INT(mul_k),           WK_TABLE_BOOL(mul_k)};

/* Note [Reduced-float scalars]: when the result is float16 / bfloat16 and the second operand has one element of
 * another dtype (a Python number, a 0-d float64 tensor), torch's mul and div kernels read that operand at its own
 * precision (as float) instead of rounding it to the result dtype first; add, sub, remainder, fmod and pow round it.
 * reduced_scalar() runs such an op as a unary kernel over self with the scalar in the context. */
typedef struct {
    float b;
} rs_ctx;
WK_UNARY_LOOP_(rs_mul_F16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, rs_ctx, x * C->b)
WK_UNARY_LOOP_(rs_mul_BF16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, rs_ctx, x * C->b)
WK_UNARY_LOOP_(rs_div_F16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, rs_ctx, x / C->b)
WK_UNARY_LOOP_(rs_div_BF16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, rs_ctx, x / C->b)
WK_UNARY_LOOP_(rs_divtrunc_F16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, rs_ctx, truncf(x / C->b))
WK_UNARY_LOOP_(rs_divtrunc_BF16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, rs_ctx, truncf(x / C->b))
static inline float div_floor_f(float a, float b);
WK_UNARY_LOOP_(rs_divfloor_F16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, rs_ctx, div_floor_f(x, C->b))
WK_UNARY_LOOP_(rs_divfloor_BF16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, rs_ctx, div_floor_f(x, C->b))
#define RS_TABLE(NAME) {[WK_FLOAT16] = rs_##NAME##_F16, [WK_BFLOAT16] = rs_##NAME##_BF16}
static const wk_loop_fn RS_MUL[WK_NUM_DTYPES] = RS_TABLE(mul), RS_DIV[WK_NUM_DTYPES] = RS_TABLE(div),
                        RS_DIVTRUNC[WK_NUM_DTYPES] = RS_TABLE(divtrunc), RS_DIVFLOOR[WK_NUM_DTYPES] = RS_TABLE(divfloor);

/* false: not the reduced-float scalar case (use the general kernel); true: *out is the result (NULL on error) */
static bool reduced_scalar(const char *name, wk_tensor *self, wk_tensor *other, wk_dtype dt, const wk_loop_fn *table,
                           wk_tensor **out) {
    *out = NULL;
    if ((dt != WK_FLOAT16 && dt != WK_BFLOAT16) || other->dtype == dt || wk__numel(other) != 1) return false;
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(self->ndim, self->sizes, other->ndim, other->sizes, &nd, shape) < 0) return true;
    rs_ctx c = {(float)wk__load_double(wk__data(other), other->dtype)};
    wk_tensor *e = wk__expand_to(self, nd, shape);
    *out = e ? wk__unary_op(name, e, dt, dt, table, &c) : NULL;
    wk_release(e);
    return true;
}

wk_tensor *wk_impl_mul(wk_tensor *self, wk_tensor *other) {
    wk_dtype dt = wk__result_type2(self, other);
    wk_tensor *r;
    if (reduced_scalar("mul", self, other, dt, RS_MUL, &r)) return r;
    return wk__binary_op("mul", self, other, dt, dt, MUL, NULL);
}

wk_tensor *wk_impl_mul_Scalar(wk_tensor *self, wk_scalar other) { return scalar_other(wk_impl_mul, self, other); }

/* ---- the division family ----
 * Integer kernels compute in int64; INT64_MIN / -1 wraps (as two's complement hardware would) instead of trapping. */
static inline int64_t idiv_trunc(int64_t a, int64_t b) { return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b; }
static inline int64_t irem_trunc(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
static inline int64_t idiv_floor(int64_t a, int64_t b) {
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}
static inline int64_t irem_floor(int64_t a, int64_t b) {
    if (b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

WK_BINARY_FLOAT(div_k, void, a / b)
static const wk_loop_fn DIV[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(div_k)};
WK_BINARY_FLOAT(divtrunc_k, void, trunc(a / b))
WK_BINARY_INT(divtrunc_k, void, idiv_trunc(a, b))
static const wk_loop_fn DIVTRUNC[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(divtrunc_k), WK_TABLE_INT(divtrunc_k)};
/* torch's div_floor for floats: mod = fmod(a, b); div = (a - mod) / b; if mod != 0 and the signs of b and mod
 * differ, div -= 1; then floor(div), corrected up by one when div - floor(div) > 0.5; b == 0 gives a / b. */
#define DIV_FLOOR_DEF(NAME, T)                                                       \
    static inline T NAME(T a, T b) {                                                 \
        if (b == 0) return a / b;                                                    \
        T mod = fmod(a, b), div = (a - mod) / b;                                     \
        if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                            \
        if (div == 0) return copysign((T)0, a / b);                                  \
        T fl = floor(div);                                                           \
        if (div - fl > (T)0.5) fl += 1;                                              \
        return fl;                                                                   \
    }
DIV_FLOOR_DEF(div_floor_f, float)
DIV_FLOOR_DEF(div_floor_d, double)
#define DIV_FLOOR_F(a, b) _Generic((a), float: div_floor_f, default: div_floor_d)(a, b)
WK_BINARY_FLOAT(divfloor_k, void, DIV_FLOOR_F(a, b))
WK_BINARY_INT(divfloor_k, void, idiv_floor(a, b))
static const wk_loop_fn DIVFLOOR[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(divfloor_k), WK_TABLE_INT(divfloor_k)};

/* remainder (sign of the divisor) and fmod (sign of the dividend) */
#define REM_DEF(NAME, T)                                                             \
    static inline T NAME(T a, T b) {                                                 \
        T mod = fmod(a, b);                                                          \
        if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;                            \
        return mod;                                                                  \
    }
REM_DEF(rem_f, float)
REM_DEF(rem_d, double)
#define REM_F(a, b) _Generic((a), float: rem_f, default: rem_d)(a, b)
WK_BINARY_FLOAT(remainder_k, void, REM_F(a, b))
WK_BINARY_INT(remainder_k, void, irem_floor(a, b))
static const wk_loop_fn REMAINDER[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(remainder_k), WK_TABLE_INT(remainder_k)};
WK_BINARY_FLOAT(fmod_k, void, fmod(a, b))
WK_BINARY_INT(fmod_k, void, irem_trunc(a, b))
static const wk_loop_fn FMOD[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(fmod_k), WK_TABLE_INT(fmod_k)};

int wk__check_int_divisor(const wk_tensor *self, const wk_tensor *other, wk_dtype dt) {
    if (!wk_dtype_is_integral(dt, false)) return 0;
    int nd = 0;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(self->ndim, self->sizes, other->ndim, other->sizes, &nd, shape) < 0) return -1;
    for (int i = 0; i < nd; i++)
        if (shape[i] == 0) return 0; /* torch's kernel checks the divisors it reaches: none */
    /* the divisor as the kernel sees it, in dt (int8 // 256 divides by 0), widened to int64 */
    wk_tensor *d = wk__to_dtype(other, dt);
    if (!d) return -1;
    wk_tensor *c = wk__to_dtype(d, WK_INT64);
    wk_release(d);
    if (!c) return -1;
    wk_tensor *cc = wk__contiguous(c);
    wk_release(c);
    if (!cc) return -1;
    const int64_t *p = (const int64_t *)wk__data(cc); /* [numel] the divisor as int64 */
    int64_t n = wk__numel(cc);
    bool z = false;
    for (int64_t i = 0; i < n && !z; i++) z = p[i] == 0;
    wk_release(cc);
    if (z) {
        wk__error(WK_RUNTIME_ERROR, "ZeroDivisionError");
        return -1;
    }
    return 0;
}

/* An integral division-like op in torch's order: the shapes broadcast (its TensorIterator is built first), then the
 * dtype check ("not implemented for 'Bool'"), then the zero check. */
static wk_tensor *int_checked(const char *name, wk_tensor *a, wk_tensor *b, const wk_loop_fn *table) {
    wk_dtype dt = wk__result_type2(a, b);
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(a->ndim, a->sizes, b->ndim, b->sizes, &nd, shape) < 0) return NULL;
    if (!table[dt]) {
        wk__not_implemented_for(name, dt);
        return NULL;
    }
    if (wk__check_int_divisor(a, b, dt) < 0) return NULL;
    return wk__binary_op(name, a, b, dt, dt, table, NULL);
}

wk_tensor *wk_impl_div(wk_tensor *self, wk_tensor *other, const char *rounding_mode) {
    if (!rounding_mode) {
        wk_dtype f = wk__float_op_dtype(wk__result_type2(self, other));
        wk_tensor *r;
        if (reduced_scalar("div_true", self, other, f, RS_DIV, &r)) return r;
        return wk__binary_op("div_true", self, other, f, f, DIV, NULL);
    }
    bool trunc_ = !strcmp(rounding_mode, "trunc"), floor_ = !strcmp(rounding_mode, "floor");
    if (!trunc_ && !floor_) {
        wk__error(WK_RUNTIME_ERROR,
                  "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", rounding_mode);
        return NULL;
    }
    wk_tensor *r;
    if (reduced_scalar(trunc_ ? "div_trunc_cpu" : "div_floor_cpu", self, other, wk__result_type2(self, other),
                       trunc_ ? RS_DIVTRUNC : RS_DIVFLOOR, &r))
        return r;
    return int_checked(trunc_ ? "div_trunc_cpu" : "div_floor_cpu", self, other, trunc_ ? DIVTRUNC : DIVFLOOR);
}

wk_tensor *wk_impl_div_Scalar(wk_tensor *self, wk_scalar other) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = wk_impl_div(self, o, NULL);
    wk_release(o);
    return r;
}

wk_tensor *wk_impl_true_divide(wk_tensor *self, wk_tensor *other) { return wk_impl_div(self, other, NULL); }

wk_tensor *wk_impl_floor_divide(wk_tensor *self, wk_tensor *other) {
    return int_checked("div_floor_cpu", self, other, DIVFLOOR);
}

wk_tensor *wk_impl_remainder(wk_tensor *self, wk_tensor *other) {
    return int_checked("remainder_cpu", self, other, REMAINDER);
}
wk_tensor *wk_impl_remainder_Scalar(wk_tensor *self, wk_scalar other) {
    return scalar_other(wk_impl_remainder, self, other);
}
wk_tensor *wk_impl_remainder_Scalar_Tensor(wk_scalar self, wk_tensor *other) {
    return scalar_self(wk_impl_remainder, self, other);
}

wk_tensor *wk_impl_fmod(wk_tensor *self, wk_tensor *other) { return int_checked("fmod_cpu", self, other, FMOD); }
wk_tensor *wk_impl_fmod_Scalar(wk_tensor *self, wk_scalar other) { return scalar_other(wk_impl_fmod, self, other); }

/* The derivative of ops torch leaves undifferentiated (floor_divide, remainder(Scalar, Tensor)). */
wk_tensor *wk_impl__grad_not_implemented(wk_tensor *grad, const char *name) {
    WK_UNUSED(grad);
    wk__error(WK_RUNTIME_ERROR, "derivative for aten::%s is not implemented", name);
    return NULL;
}

/* ---- pow ----
 * Integers: exponentiation by squaring with wrap-around; a negative exponent gives 1 for base 1, +-1 for base -1 and
 * 0 otherwise (as torch's powi). Floats: pow(), with torch's fast paths for the common scalar exponents. */
static inline int64_t ipow(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    while (b) {
        if (b & 1) r *= x;
        x *= x;
        b >>= 1;
    }
    return (int64_t)r;
}
WK_BINARY_FLOAT(pow_k, void, pow(a, b))
WK_BINARY_INT(pow_k, void, ipow(a, b))
static const wk_loop_fn POW[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(pow_k), WK_TABLE_INT(pow_k)};

wk_tensor *wk_impl_pow(wk_tensor *self, wk_tensor *exponent) {
    wk_dtype dt = wk__result_type2(self, exponent);
    return wk__binary_op("pow", self, exponent, dt, dt, POW, NULL);
}

/* x ** e for a scalar e: e is 2, 3, 0.5, -0.5, -1, -2 or general (C->f); ints use C->i */
typedef struct {
    double f;
    int64_t i;
    int kind; /* 0 general, 1 square, 2 cube, 3 sqrt, 4 rsqrt, 5 reciprocal, 6 1/x^2 */
} pow_ctx;
#define POW_SCALAR(x)                                                                                   \
    (C->kind == 1 ? (x) * (x) : C->kind == 2 ? (x) * (x) * (x) : C->kind == 3 ? sqrt(x)                 \
     : C->kind == 4 ? 1 / sqrt(x) : C->kind == 5 ? 1 / (x) : C->kind == 6 ? 1 / ((x) * (x))              \
     : pow(x, (__typeof__(x))C->f))
WK_UNARY_FLOAT(pows_k, pow_ctx, POW_SCALAR(x))
WK_UNARY_INT(pows_k, pow_ctx, ipow(x, C->i))
static const wk_loop_fn POWS[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(pows_k), WK_TABLE_INT(pows_k)};

wk_tensor *wk_impl_pow_Tensor_Scalar(wk_tensor *self, wk_scalar exponent) {
    wk_tensor *e = wk__wrap_scalar(exponent);
    if (!e) return NULL;
    wk_dtype dt = wk__result_type2(self, e);
    wk_release(e);
    if (wk_dtype_is_integral(dt, true) && exponent.tag != WK_SCALAR_FLOAT && exponent.v.i < 0) {
        wk__error(WK_RUNTIME_ERROR, "Integers to negative integer powers are not allowed.");
        return NULL;
    }
    if (wk__check_scalar_fits(exponent, dt) < 0) return NULL;
    double ef = wk__scalar_to_double(exponent);
    if (exponent.tag != WK_SCALAR_FLOAT && (ef == 0 || ef == 1)) { /* x ** 0 == 1, x ** 1 == x, bool included */
        wk_tensor *c = ef == 0 ? NULL : wk__to_dtype(self, dt);
        if (ef == 1) {
            if (!c) return NULL;
            wk_tensor *r = wk__clone(c);
            wk_release(c);
            return r;
        }
        return wk__full(self->ndim, self->sizes, dt, wk_int(1));
    }
    if (dt == WK_FLOAT16 || dt == WK_BFLOAT16) { /* torch rounds the exponent to the tensor's dtype */
        uint16_t h;
        wk__store_scalar(&h, dt, wk_float(ef));
        ef = wk__load_double(&h, dt);
    }
    pow_ctx c = {ef, wk__scalar_to_int(exponent), 0};
    if (wk_dtype_is_floating(dt))
        c.kind = ef == 2 ? 1 : ef == 3 ? 2 : ef == 0.5 ? 3 : ef == -0.5 ? 4 : ef == -1 ? 5 : ef == -2 ? 6 : 0;
    return wk__unary_op("pow", self, dt, dt, POWS, &c);
}

/* torch's pow.Scalar allocates its output with the exponent's sizes and contiguous strides (its meta function), not
 * in TensorIterator's memory order */
wk_tensor *wk_impl_pow_Scalar(wk_scalar self, wk_tensor *exponent) {
    wk_tensor *r = scalar_self(wk_impl_pow, self, exponent);
    if (!r) return NULL;
    int64_t st = 1;
    bool standard = true;
    for (int i = r->ndim - 1; i >= 0; i--) {
        standard = standard && r->strides[i] == st;
        st *= r->sizes[i];
    }
    if (standard || wk__numel(r) == 0) return r;
    wk_tensor *c = wk__empty(r->ndim, r->sizes, r->dtype);
    if (c && wk__copy_(c, r) < 0) wk_release(c), c = NULL;
    wk_release(r);
    return c;
}

/* pow derivatives (torch's pow_backward, pow_backward_self, pow_backward_exponent), composed of recording ops */
wk_tensor *wk_impl_pow_backward(wk_tensor *grad, wk_tensor *self, wk_scalar exponent) {
    if (wk__scalar_to_double(exponent) == 0) return wk_zeros_like(self, WK_DTYPE_NONE, false);
    wk_scalar em1 = exponent.tag == WK_SCALAR_FLOAT ? wk_float(exponent.v.f - 1) : wk_int(exponent.v.i - 1);
    wk_tensor *p = wk_pow_Tensor_Scalar(self, em1), *q = p ? wk_mul_Scalar(p, exponent) : NULL;
    wk_tensor *r = q ? wk_mul(grad, q) : NULL;
    wk_release(p);
    wk_release(q);
    return r;
}

wk_tensor *wk_impl_pow_backward_self(wk_tensor *grad, wk_tensor *self, wk_tensor *exponent) {
    /* where(exponent == 0, 0, grad * (exponent * self ** (exponent - 1))) */
    wk_tensor *z = wk_eq_Scalar(exponent, wk_int(0));
    wk_tensor *e1 = wk_add_Scalar(exponent, wk_int(-1), wk_int(1));
    wk_tensor *p = e1 ? wk_pow(self, e1) : NULL, *q = p ? wk_mul(exponent, p) : NULL, *g = q ? wk_mul(grad, q) : NULL;
    wk_tensor *r = (z && g) ? wk_where_ScalarSelf(z, wk_int(0), g) : NULL;
    wk_release(z);
    wk_release(e1);
    wk_release(p);
    wk_release(q);
    wk_release(g);
    return r;
}

/* grad * where((self == 0) & (exponent >= 0), 0, result * log(self)) */
static wk_tensor *pow_exp_grad(wk_tensor *grad, wk_tensor *base_is_zero, wk_tensor *logbase, wk_tensor *exponent,
                               wk_tensor *result) {
    wk_tensor *ge = wk_ge_Scalar(exponent, wk_int(0));
    wk_tensor *cond = ge ? wk_logical_and(base_is_zero, ge) : NULL;
    wk_tensor *rl = wk_mul(result, logbase);
    wk_tensor *w = (cond && rl) ? wk_where_ScalarSelf(cond, wk_int(0), rl) : NULL;
    wk_tensor *r = w ? wk_mul(grad, w) : NULL;
    wk_release(ge);
    wk_release(cond);
    wk_release(rl);
    wk_release(w);
    return r;
}

wk_tensor *wk_impl_pow_backward_exponent(wk_tensor *grad, wk_tensor *self, wk_tensor *exponent, wk_tensor *result) {
    wk_dtype dt = wk__result_type2(self, exponent);
    wk_tensor *s = wk__to_dtype(self, dt);
    if (!s) return NULL;
    wk_tensor *z = wk_eq_Scalar(s, wk_int(0)), *lg = wk_log(s);
    wk_tensor *r = (z && lg) ? pow_exp_grad(grad, z, lg, exponent, result) : NULL;
    wk_release(s);
    wk_release(z);
    wk_release(lg);
    return r;
}

wk_tensor *wk_impl_pow_backward_exponent_Scalar(wk_tensor *grad, wk_scalar self, wk_tensor *exponent,
                                                wk_tensor *result) {
    wk_tensor *b = wk__wrap_scalar(self);
    if (!b) return NULL;
    wk_dtype dt = wk__result_type2(b, exponent);
    wk_tensor *s = wk__full(0, NULL, dt, self); /* a 0-d tensor holding the base in the result dtype */
    wk_release(b);
    if (!s) return NULL;
    wk_tensor *z = wk_eq_Scalar(s, wk_int(0)), *lg = wk_log(s);
    wk_tensor *r = (z && lg) ? pow_exp_grad(grad, z, lg, exponent, result) : NULL;
    wk_release(s);
    wk_release(z);
    wk_release(lg);
    return r;
}

/* float_power: pow computed in float64 (inputs converted first, as torch's composite does) */
static wk_tensor *to_f64(wk_tensor *t) { return wk_to_dtype(t, WK_FLOAT64, false, false); }
wk_tensor *wk_impl_float_power(wk_tensor *self, wk_tensor *exponent) {
    wk_tensor *a = to_f64(self), *b = a ? to_f64(exponent) : NULL;
    wk_tensor *r = b ? wk_pow(a, b) : NULL;
    wk_release(a);
    wk_release(b);
    return r;
}
wk_tensor *wk_impl_float_power_Tensor_Scalar(wk_tensor *self, wk_scalar exponent) {
    wk_tensor *a = to_f64(self);
    wk_tensor *r = a ? wk_pow_Tensor_Scalar(a, wk_float(wk__scalar_to_double(exponent))) : NULL;
    wk_release(a);
    return r;
}
wk_tensor *wk_impl_float_power_Scalar(wk_scalar self, wk_tensor *exponent) {
    wk_tensor *b = to_f64(exponent);
    wk_tensor *r = b ? wk_pow_Scalar(wk_float(wk__scalar_to_double(self)), b) : NULL;
    wk_release(b);
    return r;
}

/* ---- binary maths on floats ---- */
static wk_tensor *float_binary(const char *name, wk_tensor *a, wk_tensor *b, const wk_loop_fn *table,
                               bool promote_int) {
    wk_dtype dt = wk__result_type2(a, b);
    if (promote_int) dt = wk__float_op_dtype(dt);
    return wk__binary_op(name, a, b, dt, dt, table, NULL);
}

WK_BINARY_FLOAT(atan2_k, void, atan2(a, b))
static const wk_loop_fn ATAN2[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(atan2_k)};
wk_tensor *wk_impl_atan2(wk_tensor *self, wk_tensor *other) { return float_binary("atan2_cpu", self, other, ATAN2, true); }

WK_BINARY_FLOAT(hypot_k, void, hypot(a, b))
static const wk_loop_fn HYPOT[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(hypot_k)};
wk_tensor *wk_impl_hypot(wk_tensor *self, wk_tensor *other) { return float_binary("hypot_cpu", self, other, HYPOT, false); }

WK_BINARY_FLOAT(copysign_k, void, copysign(a, b))
static const wk_loop_fn COPYSIGN[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(copysign_k)};
wk_tensor *wk_impl_copysign(wk_tensor *self, wk_tensor *other) {
    return float_binary("copysign_cpu", self, other, COPYSIGN, true);
}
wk_tensor *wk_impl_copysign_Scalar(wk_tensor *self, wk_scalar other) { return scalar_other(wk_impl_copysign, self, other); }

/* d copysign(x, y) / dx = result / self, 0 where self == 0 */
wk_tensor *wk_impl_copysign_backward(wk_tensor *grad, wk_tensor *self, wk_tensor *result) {
    wk_tensor *ratio = wk_div(result, self, NULL), *z = wk_eq_Scalar(self, wk_int(0));
    wk_tensor *m = (ratio && z) ? wk_where_ScalarSelf(z, wk_int(0), ratio) : NULL;
    wk_tensor *r = m ? wk_mul(grad, m) : NULL;
    wk_release(ratio);
    wk_release(z);
    wk_release(m);
    return r;
}

/* logaddexp(a, b) = max + log1p(exp(-|a - b|)); equal infinities give themselves */
#define LOGADDEXP(a, b) ((isinf(a) && (a) == (b)) ? (a) : (((a) < (b) ? (b) : (a)) + log1p(exp(-fabs((a) - (b))))))
#define LOGADDEXP2(a, b)                                                                                       \
    ((isinf(a) && (a) == (b)) ? (a)                                                                            \
                              : (((a) < (b) ? (b) : (a)) + log1p(exp2(-fabs((a) - (b)))) * (__typeof__(a))1.4426950408889634))
WK_BINARY_FLOAT(logaddexp_k, void, LOGADDEXP(a, b))
static const wk_loop_fn LOGADDEXP_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(logaddexp_k)};
WK_BINARY_FLOAT(logaddexp2_k, void, LOGADDEXP2(a, b))
static const wk_loop_fn LOGADDEXP2_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(logaddexp2_k)};
wk_tensor *wk_impl_logaddexp(wk_tensor *self, wk_tensor *other) {
    return float_binary("logaddexp_cpu", self, other, LOGADDEXP_T, false);
}
wk_tensor *wk_impl_logaddexp2(wk_tensor *self, wk_tensor *other) {
    return float_binary("logaddexp2_cpu", self, other, LOGADDEXP2_T, false);
}

/* xlogy(x, y) = x * log(y), 0 where x == 0, nan where y is nan. float16 / bfloat16 round log(y) to the type before
 * the product, as torch's scalar kernel of c10::Half arithmetic does (measured: one rounding differs in 2 of 6) */
#define XLOGY(a, b, logb) (isnan(b) ? (b) : (a) == 0 ? (__typeof__(a))0 : (a) * (logb))
WK_BINARY_LOOP_(xlogy_k_FLOAT32, float, float, float, WK_LD_ID, WK_ST_ID, void, XLOGY(a, b, log(b)))
WK_BINARY_LOOP_(xlogy_k_FLOAT64, double, double, double, WK_LD_ID, WK_ST_ID, void, XLOGY(a, b, log(b)))
WK_BINARY_LOOP_(xlogy_k_FLOAT16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, void,
                XLOGY(a, b, WK_LD_F16(WK_ST_F16(log(b)))))
WK_BINARY_LOOP_(xlogy_k_BFLOAT16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, void,
                XLOGY(a, b, WK_LD_BF16(WK_ST_BF16(log(b)))))
static const wk_loop_fn XLOGY_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(xlogy_k)};
wk_tensor *wk_impl_xlogy(wk_tensor *self, wk_tensor *other) { return float_binary("xlogy_cpu", self, other, XLOGY_T, true); }
wk_tensor *wk_impl_xlogy_Scalar_Self(wk_scalar self, wk_tensor *other) { return scalar_self(wk_impl_xlogy, self, other); }
wk_tensor *wk_impl_xlogy_Scalar_Other(wk_tensor *self, wk_scalar other) { return scalar_other(wk_impl_xlogy, self, other); }

/* d xlogy / dx = xlogy(grad, other), 0 where (self == 0) & (other <= 0) */
wk_tensor *wk_impl_xlogy_backward_self(wk_tensor *grad, wk_tensor *self, wk_tensor *other) {
    wk_tensor *x = wk_xlogy(grad, other), *a = wk_eq_Scalar(self, wk_int(0)), *b = wk_le_Scalar(other, wk_int(0));
    wk_tensor *m = (a && b) ? wk_logical_and(a, b) : NULL;
    wk_tensor *r = (x && m) ? wk_masked_fill_Scalar(x, m, wk_int(0)) : NULL;
    wk_release(x);
    wk_release(a);
    wk_release(b);
    wk_release(m);
    return r;
}
wk_tensor *wk_impl_xlogy_backward_self_Scalar(wk_tensor *grad, wk_tensor *self, wk_scalar other) {
    wk_tensor *x = wk_xlogy_Scalar_Other(grad, other);
    if (!x || wk__scalar_to_double(other) > 0) return x;
    wk_tensor *m = wk_eq_Scalar(self, wk_int(0));
    wk_tensor *r = m ? wk_masked_fill_Scalar(x, m, wk_int(0)) : NULL;
    wk_release(x);
    wk_release(m);
    return r;
}

/* ---- maximum / minimum (nan propagates; ties give self) and fmax / fmin (nan ignored) ---- */
#define MAXNAN(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) < (b) ? (b) : (a))
#define MINNAN(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) > (b) ? (b) : (a))
#define FMAX(a, b) (isnan(b) ? (a) : isnan(a) ? (b) : (a) < (b) ? (b) : (a))
#define FMIN(a, b) (isnan(b) ? (a) : isnan(a) ? (b) : (a) > (b) ? (b) : (a))
WK_BINARY_FLOAT(maximum_k, void, MAXNAN(a, b))
WK_BINARY_INT(maximum_k, void, a < b ? b : a)
WK_BINARY_BOOL(maximum_k, void, a || b)
WK_BINARY_FLOAT(minimum_k, void, MINNAN(a, b))
WK_BINARY_INT(minimum_k, void, a > b ? b : a)
WK_BINARY_BOOL(minimum_k, void, a && b)
WK_BINARY_FLOAT(fmax_k, void, FMAX(a, b))
WK_BINARY_FLOAT(fmin_k, void, FMIN(a, b))
static const wk_loop_fn MAXIMUM[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(maximum_k), WK_TABLE_INT(maximum_k), WK_TABLE_BOOL(maximum_k)};
static const wk_loop_fn MINIMUM[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(minimum_k), WK_TABLE_INT(minimum_k), WK_TABLE_BOOL(minimum_k)};
static const wk_loop_fn FMAX_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(fmax_k), WK_TABLE_INT(maximum_k), WK_TABLE_BOOL(maximum_k)};
static const wk_loop_fn FMIN_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(fmin_k), WK_TABLE_INT(minimum_k), WK_TABLE_BOOL(minimum_k)};
wk_tensor *wk_impl_maximum(wk_tensor *self, wk_tensor *other) { return float_binary("maximum_cpu", self, other, MAXIMUM, false); }
wk_tensor *wk_impl_minimum(wk_tensor *self, wk_tensor *other) { return float_binary("minimum_cpu", self, other, MINIMUM, false); }
wk_tensor *wk_impl_fmax(wk_tensor *self, wk_tensor *other) { return float_binary("fmax_cpu", self, other, FMAX_T, false); }
wk_tensor *wk_impl_fmin(wk_tensor *self, wk_tensor *other) { return float_binary("fmin_cpu", self, other, FMIN_T, false); }

/* ---- lerp: self + weight * (end - self) for |weight| < 0.5, else end - (end - self) * (1 - weight) ---- */
#define LERP(s, e, w) (fabs(w) < 0.5 ? (s) + (w) * ((e) - (s)) : (e) - ((e) - (s)) * (1 - (w)))
WK_BINARY_FLOAT(lerps_k, wk_scalar_ctx, LERP(a, b, (__typeof__(a))C->f))
static const wk_loop_fn LERPS[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(lerps_k)};
WK_TERNARY_FLOAT(lerpt_k, void, LERP(a, b, c))
static const wk_loop_fn LERPT[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(lerpt_k)};

static int lerp_dtype_check(const wk_tensor *self, const wk_tensor *t, const char *what) {
    if (t->dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected dtype %s for `%s` but got dtype %s", wk__cpp_type_name(self->dtype),
                  what, wk__cpp_type_name(t->dtype));
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_lerp(wk_tensor *self, wk_tensor *end, wk_scalar weight) {
    if (lerp_dtype_check(self, end, "end") < 0) return NULL;
    wk_scalar_ctx c = {wk__scalar_to_double(weight), 0, 0, 0};
    return wk__binary_op("lerp_kernel_scalar", self, end, self->dtype, self->dtype, LERPS, &c);
}

wk_tensor *wk_impl_lerp_Tensor(wk_tensor *self, wk_tensor *end, wk_tensor *weight) {
    if (lerp_dtype_check(self, end, "end") < 0) return NULL;
    if (weight->ndim > 0 && lerp_dtype_check(self, weight, "weight") < 0) return NULL;
    return wk__ternary_op("lerp_kernel_tensor", self, end, weight, self->dtype, self->dtype, LERPT, NULL);
}

/* ---- addcmul / addcdiv: self + value * t1 * t2, self + value * t1 / t2 ---- */
WK_TERNARY_FLOAT(addcmul_k, wk_scalar_ctx, a + (__typeof__(a))C->f * b * c)
WK_TERNARY_INT(addcmul_k, wk_scalar_ctx, (int64_t)((uint64_t)a + (uint64_t)C->i * (uint64_t)b * (uint64_t)c))
static const wk_loop_fn ADDCMUL[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(addcmul_k), WK_TABLE_INT(addcmul_k)};
WK_TERNARY_FLOAT(addcdiv_k, wk_scalar_ctx, a + (__typeof__(a))C->f * b / c)
static const wk_loop_fn ADDCDIV[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(addcdiv_k)};

wk_tensor *wk_impl_addcmul(wk_tensor *self, wk_tensor *tensor1, wk_tensor *tensor2, wk_scalar value) {
    wk_dtype dt = wk__result_type3(self, tensor1, tensor2);
    wk_scalar_ctx c = {wk__scalar_to_double(value), wk__scalar_to_int(value), 0, 0};
    return wk__ternary_op("addcmul_cpu_out", self, tensor1, tensor2, dt, dt, ADDCMUL, &c);
}

wk_tensor *wk_impl_addcdiv(wk_tensor *self, wk_tensor *tensor1, wk_tensor *tensor2, wk_scalar value) {
    if (wk_dtype_is_integral(tensor1->dtype, true) && wk_dtype_is_integral(tensor2->dtype, true)) {
        wk__error(WK_RUNTIME_ERROR,
                  "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
                  "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
                  "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                  "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                  "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
        return NULL;
    }
    wk_dtype dt = wk__result_type3(self, tensor1, tensor2);
    wk_scalar_ctx c = {wk__scalar_to_double(value), wk__scalar_to_int(value), 0, 0};
    return wk__ternary_op("addcdiv_cpu_out", self, tensor1, tensor2, dt, dt, ADDCDIV, &c);
}

/* ---- clamp: min(max(x, lo), hi) with nan propagating from x and from the bounds; lo > hi gives hi ---- */
#define CLAMP_LO(x, lo) (isnan(x) ? (x) : isnan(lo) ? (lo) : (x) < (lo) ? (lo) : (x))
#define CLAMP_HI(x, hi) (isnan(x) ? (x) : isnan(hi) ? (hi) : (x) > (hi) ? (hi) : (x))
typedef struct {
    double lo, hi;
    int64_t ilo, ihi;
    bool has_lo, has_hi;
} clamp_ctx;
static inline double clamp_d(double x, const clamp_ctx *c) {
    if (c->has_lo) x = CLAMP_LO(x, c->lo);
    if (c->has_hi) x = CLAMP_HI(x, c->hi);
    return x;
}
static inline float clamp_f(float x, const clamp_ctx *c) {
    if (c->has_lo) x = CLAMP_LO(x, (float)c->lo);
    if (c->has_hi) x = CLAMP_HI(x, (float)c->hi);
    return x;
}
static inline int64_t clamp_i(int64_t x, const clamp_ctx *c) {
    if (c->has_lo && x < c->ilo) x = c->ilo;
    if (c->has_hi && x > c->ihi) x = c->ihi;
    return x;
}
#define CLAMP_F(x) _Generic((x), float: clamp_f, default: clamp_d)(x, C)
WK_UNARY_FLOAT(clamps_k, clamp_ctx, CLAMP_F(x))
WK_UNARY_INT(clamps_k, clamp_ctx, clamp_i(x, C))
static const wk_loop_fn CLAMPS[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(clamps_k), WK_TABLE_INT(clamps_k)};
WK_TERNARY_FLOAT(clampt_k, void, CLAMP_HI(CLAMP_LO(a, b), c))
WK_TERNARY_INT(clampt_k, void, a < b ? (b > c ? c : b) : (a > c ? c : a))
static const wk_loop_fn CLAMPT[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(clampt_k), WK_TABLE_INT(clampt_k)};
WK_BINARY_FLOAT(clampmin_k, void, CLAMP_LO(a, b))
WK_BINARY_INT(clampmin_k, void, a < b ? b : a)
WK_BINARY_BOOL(clampmin_k, void, a || b)
static const wk_loop_fn CLAMPMIN[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(clampmin_k), WK_TABLE_INT(clampmin_k), WK_TABLE_BOOL(clampmin_k)};
WK_BINARY_FLOAT(clampmax_k, void, CLAMP_HI(a, b))
WK_BINARY_INT(clampmax_k, void, a > b ? b : a)
WK_BINARY_BOOL(clampmax_k, void, a && b)
static const wk_loop_fn CLAMPMAX[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(clampmax_k), WK_TABLE_INT(clampmax_k), WK_TABLE_BOOL(clampmax_k)};

static int clamp_bounds_check(bool has_lo, bool has_hi) {
    if (has_lo || has_hi) return 0;
    wk__error(WK_RUNTIME_ERROR, "torch.clamp: At least one of 'min' or 'max' must not be None");
    return -1;
}

static wk_tensor *clamp_scalar(const char *name, wk_tensor *self, wk_scalar min, wk_scalar max) {
    bool has_lo = min.tag != WK_SCALAR_NONE, has_hi = max.tag != WK_SCALAR_NONE;
    if (clamp_bounds_check(has_lo, has_hi) < 0) return NULL;
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, self);
    if (has_lo) wk__promo_scalar(&p, min);
    if (has_hi) wk__promo_scalar(&p, max);
    wk_dtype dt = wk__promo_result(&p);
    if (!CLAMPS[dt]) {
        wk__not_implemented_for(name, dt);
        return NULL;
    }
    if ((has_lo && wk__check_scalar_fits(min, dt) < 0) || (has_hi && wk__check_scalar_fits(max, dt) < 0)) return NULL;
    clamp_ctx c = {0, 0, 0, 0, has_lo, has_hi};
    if (has_lo) c.lo = wk__scalar_to_double(min), c.ilo = wk__scalar_to_int(min);
    if (has_hi) c.hi = wk__scalar_to_double(max), c.ihi = wk__scalar_to_int(max);
    if (!wk_dtype_is_floating(dt)) { /* integral bounds are first converted to the result dtype (with wrap) */
        uint8_t buf[8];
        if (has_lo) wk__store_scalar(buf, dt, min), c.ilo = wk__scalar_to_int(wk__load_scalar(buf, dt));
        if (has_hi) wk__store_scalar(buf, dt, max), c.ihi = wk__scalar_to_int(wk__load_scalar(buf, dt));
    }
    return wk__unary_op(name, self, dt, dt, CLAMPS, &c);
}

int wk_impl__clamp_bounds_given(wk_tensor *min, wk_tensor *max, bool *result) {
    *result = true;
    return clamp_bounds_check(min, max);
}

int wk_impl__clamp_inplace_check(wk_tensor *self, wk_scalar min, wk_scalar max, bool *result) {
    *result = true;
    /* the bounds first, then the write's overlap check (Note [Write overlap]), then the cast, as torch */
    if (clamp_bounds_check(min.tag != WK_SCALAR_NONE, max.tag != WK_SCALAR_NONE) < 0) return -1;
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, self);
    if (min.tag != WK_SCALAR_NONE) wk__promo_scalar(&p, min);
    if (max.tag != WK_SCALAR_NONE) wk__promo_scalar(&p, max);
    wk_dtype dt = wk__promo_result(&p);
    if (dt == WK_DTYPE_NONE || wk_can_cast(dt, self->dtype)) return 0;
    wk__error(WK_RUNTIME_ERROR, "result type %s can't be cast to the desired output type %s", wk_dtype_scalar_name(dt),
              wk__cpp_type_name(self->dtype));
    return -1;
}

wk_tensor *wk_impl_clamp(wk_tensor *self, wk_scalar min, wk_scalar max) {
    /* one bound alone runs torch's clamp_min / clamp_max kernel (its name shows in the dtype error) */
    const char *name = max.tag == WK_SCALAR_NONE ? "clamp_min_scalar_cpu"
                       : min.tag == WK_SCALAR_NONE ? "clamp_max_scalar_cpu" : "clamp_scalar_cpu";
    return clamp_scalar(name, self, min, max);
}
wk_tensor *wk_impl_clamp_min(wk_tensor *self, wk_scalar min) {
    return clamp_scalar("clamp_min_scalar_cpu", self, min, wk_scalar_none());
}
wk_tensor *wk_impl_clamp_max(wk_tensor *self, wk_scalar max) {
    return clamp_scalar("clamp_max_scalar_cpu", self, wk_scalar_none(), max);
}

wk_tensor *wk_impl_clamp_min_Tensor(wk_tensor *self, wk_tensor *min) {
    wk_dtype dt = wk__result_type2(self, min);
    return wk__binary_op("clamp_min_cpu", self, min, dt, dt, CLAMPMIN, NULL);
}
wk_tensor *wk_impl_clamp_max_Tensor(wk_tensor *self, wk_tensor *max) {
    wk_dtype dt = wk__result_type2(self, max);
    return wk__binary_op("clamp_max_cpu", self, max, dt, dt, CLAMPMAX, NULL);
}

wk_tensor *wk_impl_clamp_Tensor(wk_tensor *self, wk_tensor *min, wk_tensor *max) {
    if (clamp_bounds_check(min, max) < 0) return NULL;
    wk_dtype dt = wk__result_type3(self, min, max);
    if (min && max && !CLAMPT[dt]) { /* one bound alone goes through clamp_min / clamp_max, which take bool */
        wk__not_implemented_for("clamp_cpu", dt);
        return NULL;
    }
    if (!max) return wk__binary_op("clamp_cpu", self, min, dt, dt, CLAMPMIN, NULL);
    if (!min) return wk__binary_op("clamp_cpu", self, max, dt, dt, CLAMPMAX, NULL);
    return wk__ternary_op("clamp_cpu", self, min, max, dt, dt, CLAMPT, NULL);
}

/* clamp derivatives (torch's clamp_backward and clamp_backward_min_max), composed of recording ops */
static wk_tensor *and_release(wk_tensor *a, wk_tensor *b) { /* logical_and(a, b); NULL-tolerant; releases both */
    wk_tensor *r = NULL;
    if (a && b) r = wk_logical_and(a, b);
    else if (a || b) r = wk_retain(a ? a : b);
    wk_release(a);
    wk_release(b);
    return r;
}
static wk_tensor *mask_grad(wk_tensor *grad, wk_tensor *mask) { /* where(mask, grad, 0); releases mask */
    if (!mask) return NULL;
    wk_tensor *r = wk_where_ScalarOther(mask, grad, wk_int(0));
    wk_release(mask);
    return r;
}

wk_tensor *wk_impl_clamp_backward(wk_tensor *grad, wk_tensor *self, wk_scalar min, wk_scalar max) {
    bool lo = min.tag != WK_SCALAR_NONE, hi = max.tag != WK_SCALAR_NONE;
    if (!lo && !hi) return wk_retain(grad);
    wk_tensor *a = lo ? wk_ge_Scalar(self, min) : NULL, *b = hi ? wk_le_Scalar(self, max) : NULL;
    if ((lo && !a) || (hi && !b)) {
        wk_release(a);
        wk_release(b);
        return NULL;
    }
    return mask_grad(grad, and_release(a, b));
}

wk_tensor *wk_impl_clamp_backward_Tensor(wk_tensor *grad, wk_tensor *self, wk_tensor *min, wk_tensor *max) {
    if (!min && !max) return wk_retain(grad);
    wk_tensor *a = min ? wk_ge(self, min) : NULL, *b = max ? wk_le(self, max) : NULL;
    if ((min && !a) || (max && !b)) {
        wk_release(a);
        wk_release(b);
        return NULL;
    }
    return mask_grad(grad, and_release(a, b));
}

wk_tensor *wk_impl_clamp_backward_min(wk_tensor *grad, wk_tensor *self, wk_tensor *min, wk_tensor *max) {
    if (!min) return wk_zeros_like(grad, WK_DTYPE_NONE, false);
    wk_tensor *a = wk_lt(self, min);
    if (!a || !max) return mask_grad(grad, a);
    return mask_grad(grad, and_release(a, wk_lt(min, max)));
}

wk_tensor *wk_impl_clamp_backward_max(wk_tensor *grad, wk_tensor *self, wk_tensor *min, wk_tensor *max) {
    if (!max) return wk_zeros_like(grad, WK_DTYPE_NONE, false);
    wk_tensor *a = wk_gt(self, max);
    if (!a || !min) return mask_grad(grad, a);
    wk_tensor *b = wk_lt(max, min), *m = b ? wk_logical_or(a, b) : NULL;
    wk_release(a);
    wk_release(b);
    return mask_grad(grad, m);
}

/* ---- where(condition, self, other): a byte-size select, dtype-agnostic ---- */
#define WHERE_LOOP(SZ, T)                                                                                     \
    static void where_##SZ(char **d, const int64_t *s, int64_t n, void *ctx) {                               \
        (void)ctx;                                                                                           \
        char *po = d[0], *pc = d[1], *pa = d[2], *pb = d[3];                                                 \
        for (int64_t i = 0; i < n; i++, po += s[0], pc += s[1], pa += s[2], pb += s[3])                      \
            *(T *)po = *(const uint8_t *)pc ? *(const T *)pa : *(const T *)pb;                               \
    }
WHERE_LOOP(1, uint8_t)
WHERE_LOOP(2, uint16_t)
WHERE_LOOP(4, uint32_t)
WHERE_LOOP(8, uint64_t)

static int where_scalar_check(const wk_tensor *t, wk_dtype dt) {
    if (!t->wrapped_number || wk_dtype_is_floating(dt)) return 0;
    return wk__check_scalar_fits(wk__load_scalar(wk__data(t), t->dtype), dt);
}

wk_tensor *wk_impl_where_self(wk_tensor *condition, wk_tensor *self, wk_tensor *other) {
    /* torch still takes a uint8 condition (with a deprecation warning, which wick does not print) */
    if (condition->dtype != WK_BOOL && condition->dtype != WK_UINT8) {
        wk__error(WK_RUNTIME_ERROR, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                  wk_dtype_scalar_name(condition->dtype));
        return NULL;
    }
    wk_dtype dt = wk__result_type2(self, other);
    if (where_scalar_check(self, dt) < 0 || where_scalar_check(other, dt) < 0) return NULL;
    static const wk_loop_fn BY_SIZE[9] = {[1] = where_1, [2] = where_2, [4] = where_4, [8] = where_8};
    const wk_tensor *in[3] = {condition, self, other};
    const wk_dtype dts[3] = {WK_BOOL, dt, dt};
    return wk__nary_op("where_cpu", 3, in, dts, dt, BY_SIZE[wk_dtype_size(dt)], dt, NULL);
}

/* the scalar forms: wrapped numbers through the recording where.self */
static wk_tensor *where_wrapped(wk_tensor *condition, wk_tensor *self, wk_scalar *s_self, wk_tensor *other,
                                wk_scalar *s_other) {
    wk_tensor *a = s_self ? wk__wrap_scalar(*s_self) : wk_retain(self);
    wk_tensor *b = s_other ? wk__wrap_scalar(*s_other) : wk_retain(other);
    wk_tensor *r = (a && b) ? wk_where_self(condition, a, b) : NULL;
    wk_release(a);
    wk_release(b);
    return r;
}
wk_tensor *wk_impl_where_ScalarOther(wk_tensor *condition, wk_tensor *self, wk_scalar other) {
    return where_wrapped(condition, self, NULL, NULL, &other);
}
wk_tensor *wk_impl_where_ScalarSelf(wk_tensor *condition, wk_scalar self, wk_tensor *other) {
    return where_wrapped(condition, NULL, &self, other, NULL);
}
wk_tensor *wk_impl_where_Scalar(wk_tensor *condition, wk_scalar self, wk_scalar other) {
    return where_wrapped(condition, NULL, &self, NULL, &other);
}

/* ---- neg, reciprocal, exp, log, tanh (the first unary ops; the rest live in unary.c) ---- */
WK_UNARY_FLOAT(neg_k, void, -x)
WK_UNARY_INT(neg_k, void, (int64_t)(0 - (uint64_t)x))
static const wk_loop_fn NEG[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(neg_k), WK_TABLE_INT(neg_k)};
wk_tensor *wk_impl_neg(wk_tensor *self) {
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                                    "to invert a mask, use the `~` or `logical_not()` operator instead.");
        return NULL;
    }
    return wk__unary_op("neg", self, self->dtype, self->dtype, NEG, NULL);
}

#define FLOAT_UNARY(NAME, EXPR)                                                        \
    WK_UNARY_FLOAT(NAME##_k, void, EXPR)                                               \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(NAME##_k)};      \
    wk_tensor *wk_impl_##NAME(wk_tensor *self) {                                       \
        wk_dtype dt = wk__float_op_dtype(self->dtype);                                 \
        return wk__unary_op(#NAME, self, dt, dt, NAME##_T, NULL);                       \
    }
/* exp: float32 through the vectorised kernel (src/cpu/vec.h, Note [Vector exp]), as torch's Sleef expf */
WK_UNARY_FLOAT(exp_k, void, exp(x))
static const wk_loop_fn exp_T[WK_NUM_DTYPES] = {[WK_FLOAT32] = wk__exp_f32_loop, [WK_FLOAT64] = exp_k_FLOAT64,
                                                [WK_FLOAT16] = exp_k_FLOAT16, [WK_BFLOAT16] = exp_k_BFLOAT16};
wk_tensor *wk_impl_exp(wk_tensor *self) {
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__unary_op("exp", self, dt, dt, exp_T, NULL);
}
FLOAT_UNARY(log, log(x))
FLOAT_UNARY(tanh, tanh(x))
FLOAT_UNARY(reciprocal, 1 / x)

/* float_power_: self must already be float64 (torch's check and message); then an in-place pow */
static int float_power_inplace_check(const wk_tensor *self) {
    if (self->dtype == WK_FLOAT64) return 0;
    wk__error(WK_RUNTIME_ERROR,
              "the base given to float_power_ has dtype %s but the operation's result requires dtype Double",
              wk_dtype_scalar_name(self->dtype));
    return -1;
}
wk_tensor *wk_impl_float_power_inplace_Scalar(wk_tensor *self, wk_scalar exponent) {
    if (float_power_inplace_check(self) < 0) return NULL;
    return wk_pow_Tensor_Scalar_(self, wk_float(wk__scalar_to_double(exponent)));
}
wk_tensor *wk_impl_float_power_inplace(wk_tensor *self, wk_tensor *exponent) {
    if (float_power_inplace_check(self) < 0) return NULL;
    wk_tensor *e = to_f64(exponent);
    wk_tensor *r = e ? wk_pow_(self, e) : NULL;
    wk_release(e);
    return r;
}

/* ---- out= with torch's own dtype checks ---- */
#include "ops/ops_support.h"
static wk_tensor *write_out(wk_tensor *out, wk_tensor *r) { /* steals r */
    if (!r) return NULL;
    int rc = wk__write_out(out, r);
    wk_release(r);
    return rc < 0 ? NULL : wk_retain(out);
}
wk_tensor *wk_impl_neg_out(wk_tensor *out, wk_tensor *self) {
    if (self->dtype == WK_BOOL) return wk_impl_neg(self); /* its own error first */
    return wk__out_same_dtype(out, self) < 0 ? NULL : write_out(out, wk_impl_neg(self));
}
/* where(..., out=): out must have the result dtype */
wk_tensor *wk_impl_where_self_out(wk_tensor *out, wk_tensor *condition, wk_tensor *self, wk_tensor *other) {
    wk_tensor *r = wk_impl_where_self(condition, self, other);
    if (r && out->dtype != r->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Expected out type to be %s but got %s", wk_dtype_scalar_name(r->dtype),
                  wk_dtype_scalar_name(out->dtype));
        wk_release(r);
        return NULL;
    }
    return write_out(out, r);
}
/* float_power(..., out=): out must be float64 */
static int float_power_out_check(const wk_tensor *out) {
    if (out->dtype == WK_FLOAT64) return 0;
    wk__error(WK_RUNTIME_ERROR,
              "the output given to float_power has dtype %s but the operation's result requires dtype Double",
              wk_dtype_scalar_name(out->dtype));
    return -1;
}
wk_tensor *wk_impl_float_power_out(wk_tensor *out, wk_tensor *self, wk_tensor *exponent) {
    return float_power_out_check(out) < 0 ? NULL : write_out(out, wk_impl_float_power(self, exponent));
}
wk_tensor *wk_impl_float_power_Tensor_Scalar_out(wk_tensor *out, wk_tensor *self, wk_scalar exponent) {
    return float_power_out_check(out) < 0 ? NULL : write_out(out, wk_impl_float_power_Tensor_Scalar(self, exponent));
}
wk_tensor *wk_impl_float_power_Scalar_out(wk_tensor *out, wk_scalar self, wk_tensor *exponent) {
    return float_power_out_check(out) < 0 ? NULL : write_out(out, wk_impl_float_power_Scalar(self, exponent));
}
