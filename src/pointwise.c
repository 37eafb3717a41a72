/* pointwise.c — elementwise arithmetic: the framework (pointwise.h) and add, sub, mul, div, neg, exp, log, ... */
#include "pointwise.h"

#include "ops_impl.h"

/* ---- framework ---- */
wk_dtype wk__result_type2(const wk_tensor *a, const wk_tensor *b) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, a);
    wk__promo_tensor(&p, b);
    return wk__promo_result(&p);
}

wk_dtype wk__float_op_dtype(wk_dtype d) { return wk_dtype_is_floating(d) ? d : wk_get_default_dtype(); }

void wk__not_implemented_for(const char *name, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", name, wk_dtype_scalar_name(dt));
}

static wk_tensor *elementwise(const char *name, int nin, const wk_tensor *const *in, wk_dtype compute,
                              wk_dtype out_dtype, const wk_loop_fn *table, void *ctx) {
    wk_loop_fn loop = table[compute];
    if (!loop) {
        wk__not_implemented_for(name, compute);
        return NULL;
    }
    int nd = 0;
    int64_t shape[WK_MAX_DIM];
    for (int k = 0; k < nin; k++) {
        int n2;
        int64_t s2[WK_MAX_DIM];
        if (k == 0) {
            nd = in[0]->ndim;
            memcpy(shape, in[0]->sizes, sizeof(int64_t) * (size_t)nd);
            continue;
        }
        if (wk__broadcast_shapes(nd, shape, in[k]->ndim, in[k]->sizes, &n2, s2) < 0) return NULL;
        nd = n2;
        memcpy(shape, s2, sizeof(int64_t) * (size_t)nd);
    }
    wk_tensor *ops[WK_MAX_OPS] = {0};
    wk_tensor *out = NULL;
    int rc = -1;
    for (int k = 0; k < nin; k++) {
        wk_tensor *c = wk__to_dtype(in[k], compute);
        if (!c) goto done;
        ops[k + 1] = wk__expand_to(c, nd, shape);
        wk_release(c);
        if (!ops[k + 1]) goto done;
    }
    out = wk_iter_alloc_output(nin, ops + 1, nd, shape, out_dtype);
    if (!out) goto done;
    ops[0] = out;
    rc = wk_iter_apply(nin + 1, ops, loop, ctx);
done:
    for (int k = 1; k <= nin; k++) wk_release(ops[k]);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
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
    c->f = wk__scalar_to_double(alpha);
    c->i = wk__scalar_to_int(alpha);
    return 0;
}

/* float: fma(b, alpha, a), as torch's vectorised kernel computes it */
WK_BINARY_FLOAT(add_k, wk_scalar_ctx, C->f == 1 ? a + b : fma(b, C->f, a))
WK_BINARY_INT(add_k, wk_scalar_ctx, (int64_t)((uint64_t)a + (uint64_t)b * (uint64_t)C->i))
WK_BINARY_BOOL(add_k, wk_scalar_ctx, a + b * C->i)
static const wk_loop_fn ADD[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(add_k), WK_TABLE_INT(add_k), WK_TABLE_BOOL(add_k)};

wk_tensor *wk_impl_add(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    wk_dtype dt = wk__result_type2(self, other);
    wk_scalar_ctx c;
    if (alpha_check(dt, alpha, &c) < 0) return NULL;
    return wk__binary_op("add", self, other, dt, dt, ADD, &c);
}

wk_tensor *wk_impl_sub(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    wk_dtype dt = wk__result_type2(self, other);
    if (self->dtype == WK_BOOL && other->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                                    "`^` or `logical_xor()` operator instead.");
        return NULL;
    }
    if (self->dtype == WK_BOOL || other->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        return NULL;
    }
    wk_scalar_ctx c;
    if (alpha_check(dt, alpha, &c) < 0) return NULL;
    c.f = -c.f;
    c.i = (int64_t)(0 - (uint64_t)c.i);
    return wk__binary_op("sub", self, other, dt, dt, ADD, &c);
}

/* ---- mul ---- */
WK_BINARY_FLOAT(mul_k, void, a *b)
WK_BINARY_INT(mul_k, void, (int64_t)((uint64_t)a * (uint64_t)b))
WK_BINARY_BOOL(mul_k, void, a &&b)
static const wk_loop_fn MUL[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(mul_k), WK_TABLE_INT(mul_k), WK_TABLE_BOOL(mul_k)};

wk_tensor *wk_impl_mul(wk_tensor *self, wk_tensor *other) {
    wk_dtype dt = wk__result_type2(self, other);
    return wk__binary_op("mul", self, other, dt, dt, MUL, NULL);
}

wk_tensor *wk_impl_mul_Scalar(wk_tensor *self, wk_scalar other) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = wk_impl_mul(self, o);
    wk_release(o);
    return r;
}

/* ---- div ---- */
WK_BINARY_FLOAT(div_k, void, a / b)
static const wk_loop_fn DIV[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(div_k)};
/* trunc / floor division: floats follow torch (div then trunc; floor uses the remainder-corrected form) */
WK_BINARY_FLOAT(divtrunc_k, void, trunc(a / b))
WK_BINARY_INT(divtrunc_k, void, a / b)
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
WK_BINARY_INT(divfloor_k, void, (a / b) - (((a % b) != 0) && ((a < 0) != (b < 0))))
static const wk_loop_fn DIVFLOOR[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(divfloor_k), WK_TABLE_INT(divfloor_k)};

static bool has_zero(const wk_tensor *t) {
    /* integer divisors only */
    wk_tensor *c = wk__contiguous(t);
    if (!c) return true;
    bool z = false;
    int64_t n = wk__numel(c);
    size_t sz = wk_dtype_size(c->dtype);
    const char *p = wk__data(c);
    for (int64_t i = 0; i < n && !z; i++) {
        int64_t v = 0;
        switch (sz) {
        case 1: v = *(const int8_t *)(p + i); break;
        case 2: v = *(const int16_t *)(p + 2 * i); break;
        case 4: v = *(const int32_t *)(p + 4 * i); break;
        default: v = *(const int64_t *)(p + 8 * i); break;
        }
        z = v == 0;
    }
    wk_release(c);
    return z;
}

wk_tensor *wk_impl_div(wk_tensor *self, wk_tensor *other, const char *rounding_mode) {
    wk_dtype dt = wk__result_type2(self, other);
    if (!rounding_mode) {
        wk_dtype f = wk__float_op_dtype(dt);
        return wk__binary_op("div_true", self, other, f, f, DIV, NULL);
    }
    bool trunc_ = !strcmp(rounding_mode, "trunc"), floor_ = !strcmp(rounding_mode, "floor");
    if (!trunc_ && !floor_) {
        wk__error(WK_RUNTIME_ERROR,
                  "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", rounding_mode);
        return NULL;
    }
    if (dt == WK_BOOL) {
        wk__not_implemented_for(trunc_ ? "div_trunc_cpu" : "div_floor_cpu", dt);
        return NULL;
    }
    if (!wk_dtype_is_floating(dt)) {
        wk_tensor *o = wk__to_dtype(other, dt);
        bool z = !o || has_zero(o);
        wk_release(o);
        if (z) {
            wk__error(WK_RUNTIME_ERROR, "ZeroDivisionError");
            return NULL;
        }
    }
    return wk__binary_op(trunc_ ? "div_trunc_cpu" : "div_floor_cpu", self, other, dt, dt, trunc_ ? DIVTRUNC : DIVFLOOR,
                         NULL);
}

wk_tensor *wk_impl_div_Scalar(wk_tensor *self, wk_scalar other) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = wk_impl_div(self, o, NULL);
    wk_release(o);
    return r;
}

wk_tensor *wk_impl_rsub_Scalar(wk_tensor *self, wk_scalar other) {
    wk_tensor *o = wk__wrap_scalar(other);
    if (!o) return NULL;
    wk_tensor *r = wk_impl_sub(o, self, wk_int(1));
    wk_release(o);
    return r;
}

/* ---- unary ---- */
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
FLOAT_UNARY(exp, exp(x))
FLOAT_UNARY(log, log(x))
FLOAT_UNARY(tanh, tanh(x))
FLOAT_UNARY(reciprocal, 1 / x)
