/* compare.c — comparisons, logical and bitwise ops, shifts, the is* predicates, isclose / allclose / equal. */
#include "ops/pointwise.h"

#include "ops_impl.h"

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

/* ---- comparisons: computed in the promoted dtype, bool out ---- */
#define COMPARE(NAME, EXPR)                                                                      \
    WK_BINARY_PRED_ALL(NAME##_k, void, EXPR)                                                     \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_ALL(NAME##_k)};                  \
    wk_tensor *wk_impl_##NAME(wk_tensor *self, wk_tensor *other) {                               \
        wk_dtype dt = wk__result_type2(self, other);                                             \
        return wk__binary_op(#NAME "_cpu", self, other, dt, WK_BOOL, NAME##_T, NULL);            \
    }                                                                                            \
    wk_tensor *wk_impl_##NAME##_Scalar(wk_tensor *self, wk_scalar other) {                       \
        return scalar_other(wk_impl_##NAME, self, other);                                        \
    }
COMPARE(eq, a == b)
COMPARE(ne, a != b)
COMPARE(lt, a < b)
COMPARE(le, a <= b)
COMPARE(gt, a > b)
COMPARE(ge, a >= b)

/* ---- logical ops: nonzero is true (nan included) ---- */
#define LOGICAL(NAME, EXPR)                                                                      \
    WK_BINARY_PRED_ALL(NAME##_k, void, EXPR)                                                     \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_ALL(NAME##_k)};                  \
    wk_tensor *wk_impl_##NAME(wk_tensor *self, wk_tensor *other) {                               \
        wk_dtype dt = wk__result_type2(self, other);                                             \
        return wk__binary_op(#NAME "_cpu", self, other, dt, WK_BOOL, NAME##_T, NULL);            \
    }
LOGICAL(logical_and, a != 0 && b != 0)
LOGICAL(logical_or, a != 0 || b != 0)
LOGICAL(logical_xor, (a != 0) != (b != 0))

WK_UNARY_PRED_ALL(logical_not_k, void, x == 0)
static const wk_loop_fn LOGICAL_NOT[WK_NUM_DTYPES] = {WK_TABLE_ALL(logical_not_k)};
wk_tensor *wk_impl_logical_not(wk_tensor *self) {
    return wk__unary_op("logical_not_cpu", self, self->dtype, WK_BOOL, LOGICAL_NOT, NULL);
}

/* ---- bitwise ops on integral and bool tensors ---- */
#define BITWISE(NAME, OP)                                                                        \
    WK_BINARY_INT(NAME##_k, void, a OP b)                                                        \
    WK_BINARY_BOOL(NAME##_k, void, a OP b)                                                       \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_INT(NAME##_k), WK_TABLE_BOOL(NAME##_k)}; \
    wk_tensor *wk_impl_##NAME(wk_tensor *self, wk_tensor *other) {                               \
        wk_dtype dt = wk__result_type2(self, other);                                             \
        return wk__binary_op(#NAME "_cpu", self, other, dt, dt, NAME##_T, NULL);                 \
    }                                                                                            \
    wk_tensor *wk_impl_##NAME##_Scalar(wk_tensor *self, wk_scalar other) {                       \
        return scalar_other(wk_impl_##NAME, self, other);                                        \
    }                                                                                            \
    wk_tensor *wk_impl_##NAME##_Scalar_Tensor(wk_scalar self, wk_tensor *other) {                \
        return scalar_self(wk_impl_##NAME, self, other);                                         \
    }
BITWISE(bitwise_and, &)
BITWISE(bitwise_or, |)
BITWISE(bitwise_xor, ^)

/* Shifts by b outside [0, bits) give 0 (left) or the sign fill (right), as torch's kernels. */
#define LSHIFT(a, b, BITS) (((b) < 0 || (b) >= (BITS)) ? 0 : (int64_t)((uint64_t)(a) << (b)))
#define RSHIFT(a, b, BITS) (((b) < 0 || (b) >= (BITS)) ? ((a) < 0 ? -1 : 0) : (a) >> (b))
#define SHIFT_LOOPS(NAME, M)                                                                                \
    WK_BINARY_LOOP_(NAME##_UINT8, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_U8, void, M(a, b, 8))          \
    WK_BINARY_LOOP_(NAME##_INT8, int8_t, int64_t, int8_t, WK_LD_I, WK_ST_I8, void, M(a, b, 8))             \
    WK_BINARY_LOOP_(NAME##_INT16, int16_t, int64_t, int16_t, WK_LD_I, WK_ST_I16, void, M(a, b, 16))        \
    WK_BINARY_LOOP_(NAME##_INT32, int32_t, int64_t, int32_t, WK_LD_I, WK_ST_I32, void, M(a, b, 32))        \
    WK_BINARY_LOOP_(NAME##_INT64, int64_t, int64_t, int64_t, WK_LD_I, WK_ST_I64, void, M(a, b, 64))        \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_INT(NAME)};
SHIFT_LOOPS(lshift_k, LSHIFT)
SHIFT_LOOPS(rshift_k, RSHIFT)
wk_tensor *wk_impl_bitwise_left_shift(wk_tensor *self, wk_tensor *other) {
    wk_dtype dt = wk__result_type2(self, other);
    return wk__binary_op("lshift_cpu", self, other, dt, dt, lshift_k_T, NULL);
}
wk_tensor *wk_impl_bitwise_right_shift(wk_tensor *self, wk_tensor *other) {
    wk_dtype dt = wk__result_type2(self, other);
    return wk__binary_op("rshift_cpu", self, other, dt, dt, rshift_k_T, NULL);
}
wk_tensor *wk_impl_bitwise_left_shift_Tensor_Scalar(wk_tensor *self, wk_scalar other) {
    return scalar_other(wk_impl_bitwise_left_shift, self, other);
}
wk_tensor *wk_impl_bitwise_left_shift_Scalar_Tensor(wk_scalar self, wk_tensor *other) {
    return scalar_self(wk_impl_bitwise_left_shift, self, other);
}
wk_tensor *wk_impl_bitwise_right_shift_Tensor_Scalar(wk_tensor *self, wk_scalar other) {
    return scalar_other(wk_impl_bitwise_right_shift, self, other);
}
wk_tensor *wk_impl_bitwise_right_shift_Scalar_Tensor(wk_scalar self, wk_tensor *other) {
    return scalar_self(wk_impl_bitwise_right_shift, self, other);
}

WK_UNARY_INT(bitwise_not_k, void, ~x)
WK_UNARY_BOOL(bitwise_not_k, void, !x)
static const wk_loop_fn BITWISE_NOT[WK_NUM_DTYPES] = {WK_TABLE_INT(bitwise_not_k), WK_TABLE_BOOL(bitwise_not_k)};
wk_tensor *wk_impl_bitwise_not(wk_tensor *self) {
    return wk__unary_op("bitwise_not_cpu", self, self->dtype, self->dtype, BITWISE_NOT, NULL);
}

wk_tensor *wk_impl_invert(wk_tensor *self) {
    if (wk_dtype_is_floating(self->dtype)) {
        wk__error(WK_TYPE_ERROR, "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
        return NULL;
    }
    return wk_bitwise_not(self);
}

/* ---- predicates ---- */
#define PREDICATE(NAME, EXPR)                                                                    \
    WK_UNARY_PRED_ALL(NAME##_k, void, EXPR)                                                      \
    static const wk_loop_fn NAME##_T[WK_NUM_DTYPES] = {WK_TABLE_ALL(NAME##_k)};                  \
    wk_tensor *wk_impl_##NAME(wk_tensor *self) {                                                 \
        return wk__unary_op(#NAME, self, self->dtype, WK_BOOL, NAME##_T, NULL);                  \
    }
/* integral x: the float tests below are false / true / false as torch's */
#define FLT(x) ((double)(x))
PREDICATE(isnan, isnan(FLT(x)))
PREDICATE(isinf, isinf(FLT(x)))
PREDICATE(isfinite, isfinite(FLT(x)))
PREDICATE(isposinf, isinf(FLT(x)) && x > 0)
PREDICATE(isneginf, isinf(FLT(x)) && x < 0)
PREDICATE(signbit, signbit(FLT(x)) != 0)
PREDICATE(isreal, ((void)x, 1))

/* ---- isclose: a == b, or (equal_nan and both nan), or |a - b| finite and <= atol + |rtol * b| ----
 * torch computes this with tensor ops, and so does this kernel, step by step: for float16 / bfloat16 every
 * intermediate is rounded to the dtype (rtol * b reads rtol as float, atol is rounded first, as their mul / add);
 * integers and bools are compared in the default float. */
typedef struct {
    double rtol, atol;
    bool equal_nan;
} close_ctx;
#define CLOSE_F(a, b, R)                                                                                        \
    ((a) == (b) || (C->equal_nan && isnan(a) && isnan(b)) ||                                                    \
     (isfinite(R(fabs((a) - (b)))) &&                                                                           \
      R(fabs((a) - (b))) <= R(R((__typeof__(a))C->atol) + fabs(R((__typeof__(a))C->rtol * (b))))))
#define R_ID(v) (v)
#define R_F16(v) wk__half_to_float(wk__float_to_half(v))
#define R_BF16(v) wk__bf16_to_float(wk__float_to_bf16(v))
/* integral and bool: both sides in the default float (float32 here), as torch casts them */
#define CLOSE_I(a, b)                                                                                           \
    ((a) == (b) || fabsf((float)(a) - (float)(b)) <= (float)C->atol + fabsf((float)C->rtol * (float)(b)))
WK_BINARY_LOOP_(close_k_FLOAT32, float, float, uint8_t, WK_LD_ID, WK_ST_B, close_ctx, CLOSE_F(a, b, R_ID))
WK_BINARY_LOOP_(close_k_FLOAT64, double, double, uint8_t, WK_LD_ID, WK_ST_B, close_ctx, CLOSE_F(a, b, R_ID))
WK_BINARY_LOOP_(close_k_FLOAT16, uint16_t, float, uint8_t, WK_LD_F16, WK_ST_B, close_ctx, CLOSE_F(a, b, R_F16))
WK_BINARY_LOOP_(close_k_BFLOAT16, uint16_t, float, uint8_t, WK_LD_BF16, WK_ST_B, close_ctx, CLOSE_F(a, b, R_BF16))
WK_BINARY_LOOP_(close_k_UINT8, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, close_ctx, CLOSE_I(a, b))
WK_BINARY_LOOP_(close_k_INT8, int8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, close_ctx, CLOSE_I(a, b))
WK_BINARY_LOOP_(close_k_INT16, int16_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, close_ctx, CLOSE_I(a, b))
WK_BINARY_LOOP_(close_k_INT32, int32_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, close_ctx, CLOSE_I(a, b))
WK_BINARY_LOOP_(close_k_INT64, int64_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, close_ctx, CLOSE_I(a, b))
WK_BINARY_LOOP_(close_k_BOOL, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, close_ctx, CLOSE_I(a, b))
static const wk_loop_fn CLOSE[WK_NUM_DTYPES] = {WK_TABLE_ALL(close_k)};

wk_tensor *wk_impl_isclose(wk_tensor *self, wk_tensor *other, double rtol, double atol, bool equal_nan) {
    if (self->dtype != other->dtype) {
        wk__error(WK_RUNTIME_ERROR, "%s did not match %s", wk_dtype_scalar_name(self->dtype),
                  wk_dtype_scalar_name(other->dtype));
        return NULL;
    }
    if (rtol < 0) {
        wk__error(WK_RUNTIME_ERROR, "rtol must be greater than or equal to zero, but got %.6g", rtol);
        return NULL;
    }
    if (atol < 0) {
        wk__error(WK_RUNTIME_ERROR, "atol must be greater than or equal to zero, but got %.6g", atol);
        return NULL;
    }
    close_ctx c = {rtol, atol, equal_nan};
    return wk__binary_op("isclose", self, other, self->dtype, WK_BOOL, CLOSE, &c);
}

static int all_true(wk_tensor *b, bool *result) { /* b: a bool tensor */
    wk_tensor *c = wk__contiguous(b);
    if (!c) return -1;
    const uint8_t *p = (const uint8_t *)wk__data(c); /* [numel] */
    int64_t n = wk__numel(c);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) ok = p[i] != 0;
    wk_release(c);
    *result = ok;
    return 0;
}

int wk_impl_allclose(wk_tensor *self, wk_tensor *other, double rtol, double atol, bool equal_nan, bool *result) {
    wk_tensor *c = wk_impl_isclose(self, other, rtol, atol, equal_nan);
    if (!c) return -1;
    int rc = all_true(c, result);
    wk_release(c);
    return rc;
}

int wk_impl_equal(wk_tensor *self, wk_tensor *other, bool *result) {
    if (self->ndim != other->ndim || memcmp(self->sizes, other->sizes, sizeof(int64_t) * (size_t)self->ndim)) {
        *result = false;
        return 0;
    }
    wk_tensor *c = wk_impl_eq(self, other);
    if (!c) return -1;
    int rc = all_true(c, result);
    wk_release(c);
    return rc;
}

/* ---- out= checks: bitwise_not keeps self's dtype; isposinf / isneginf / signbit write only bool ---- */
#include "ops/ops_support.h"
static wk_tensor *write_out(wk_tensor *out, wk_tensor *r) { /* steals r */
    if (!r) return NULL;
    int rc = wk__write_out(out, r);
    wk_release(r);
    return rc < 0 ? NULL : wk_retain(out);
}
wk_tensor *wk_impl_bitwise_not_out(wk_tensor *out, wk_tensor *self) {
    return wk__out_same_dtype(out, self) < 0 ? NULL : write_out(out, wk_impl_bitwise_not(self));
}
#define BOOL_OUT(NAME)                                                                                   \
    wk_tensor *wk_impl_##NAME##_out(wk_tensor *out, wk_tensor *self) {                                   \
        if (out->dtype != WK_BOOL) {                                                                     \
            wk__error(WK_RUNTIME_ERROR, #NAME " does not support non-boolean outputs.");                 \
            return NULL;                                                                                 \
        }                                                                                                \
        return write_out(out, wk_impl_##NAME(self));                                                     \
    }
BOOL_OUT(isposinf)
BOOL_OUT(isneginf)
BOOL_OUT(signbit)
