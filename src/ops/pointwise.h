/* pointwise.h — the elementwise op framework: type promotion, broadcasting, output allocation, loop dispatch. */
#ifndef WK_POINTWISE_H
#define WK_POINTWISE_H

#include "cpu/loops.h"

/* torch.result_type(a, b) */
WK_INTERNAL wk_dtype wk__result_type2(const wk_tensor *a, const wk_tensor *b);
WK_INTERNAL wk_dtype wk__result_type3(const wk_tensor *a, const wk_tensor *b, const wk_tensor *c); /* c may be NULL */
/* The dtype of unary float ops (exp, sin, ...): integral and bool inputs give the default float dtype. */
WK_INTERNAL wk_dtype wk__float_op_dtype(wk_dtype d);
/* out = table[compute](a, b), broadcasting; a and b are cast to `compute`; the output has dtype out_dtype
 * (equal to compute, or bool for predicates). `name` is used in "not implemented for" errors. */
WK_INTERNAL wk_tensor *wk__binary_op(const char *name, const wk_tensor *a, const wk_tensor *b, wk_dtype compute,
                                     wk_dtype out_dtype, const wk_loop_fn *table, void *ctx);
WK_INTERNAL wk_tensor *wk__unary_op(const char *name, const wk_tensor *a, wk_dtype compute, wk_dtype out_dtype,
                                    const wk_loop_fn *table, void *ctx);
/* A ternary elementwise op: out = table[compute](a, b, c) (lerp, addcmul, clamp with tensors). */
WK_INTERNAL wk_tensor *wk__ternary_op(const char *name, const wk_tensor *a, const wk_tensor *b, const wk_tensor *c,
                                      wk_dtype compute, wk_dtype out_dtype, const wk_loop_fn *table, void *ctx);
/* The general form: input k is cast to in_dt[k] (WK_DTYPE_NONE keeps its dtype), all are broadcast together, and
 * loop(out, in0, in1, ...) runs over the result of dtype out_dtype (loop NULL: `name` not implemented for
 * err_dtype). */
WK_INTERNAL wk_tensor *wk__nary_op(const char *name, int nin, const wk_tensor *const *in, const wk_dtype *in_dt,
                                   wk_dtype out_dtype, wk_loop_fn loop, wk_dtype err_dtype, void *ctx);
WK_INTERNAL void wk__not_implemented_for(const char *name, wk_dtype dt);
/* out= of an op whose result keeps self's dtype: RuntimeError "Found dtype Float but expected Long" otherwise */
WK_INTERNAL int wk__out_same_dtype(const wk_tensor *out, const wk_tensor *self);
/* RuntimeError "ZeroDivisionError" when an integral divisor tensor holds a zero in the computation dtype dt
 * (int8 // 256 too), unless self and other broadcast to no elements at all. */
WK_INTERNAL int wk__check_int_divisor(const wk_tensor *self, const wk_tensor *other, wk_dtype dt);

/* ---- ternary loops: out = EXPR(a, b, c), all of storage type ST_T, computed in CT ---- */
#define WK_TERNARY_LOOP_(NAME, ST_T, CT, LD, ST, CTX, EXPR)                                               \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx_) {                                 \
        const CTX *C = (const CTX *)ctx_;                                                                 \
        (void)C;                                                                                          \
        char *po = d[0], *pa = d[1], *pb = d[2], *pc = d[3];                                              \
        for (int64_t i = 0; i < n; i++, po += s[0], pa += s[1], pb += s[2], pc += s[3]) {                 \
            CT a = LD(*(const ST_T *)pa), b = LD(*(const ST_T *)pb), c = LD(*(const ST_T *)pc);           \
            *(ST_T *)po = ST(EXPR);                                                                       \
        }                                                                                                 \
    }
#define WK_TERNARY_FLOAT(NAME, CTX, EXPR)                                                     \
    WK_TERNARY_LOOP_(NAME##_FLOAT32, float, float, WK_LD_ID, WK_ST_ID, CTX, EXPR)             \
    WK_TERNARY_LOOP_(NAME##_FLOAT64, double, double, WK_LD_ID, WK_ST_ID, CTX, EXPR)           \
    WK_TERNARY_LOOP_(NAME##_FLOAT16, uint16_t, float, WK_LD_F16, WK_ST_F16, CTX, EXPR)        \
    WK_TERNARY_LOOP_(NAME##_BFLOAT16, uint16_t, float, WK_LD_BF16, WK_ST_BF16, CTX, EXPR)
#define WK_TERNARY_INT(NAME, CTX, EXPR)                                                       \
    WK_TERNARY_LOOP_(NAME##_UINT8, uint8_t, int64_t, WK_LD_I, WK_ST_U8, CTX, EXPR)            \
    WK_TERNARY_LOOP_(NAME##_INT8, int8_t, int64_t, WK_LD_I, WK_ST_I8, CTX, EXPR)              \
    WK_TERNARY_LOOP_(NAME##_INT16, int16_t, int64_t, WK_LD_I, WK_ST_I16, CTX, EXPR)           \
    WK_TERNARY_LOOP_(NAME##_INT32, int32_t, int64_t, WK_LD_I, WK_ST_I32, CTX, EXPR)           \
    WK_TERNARY_LOOP_(NAME##_INT64, int64_t, int64_t, WK_LD_I, WK_ST_I64, CTX, EXPR)

/* ---- unary predicates: bool out = EXPR(x) ---- */
#define WK_UNARY_PRED_ALL(NAME, CTX, EXPR)                                                     \
    WK_UNARY_LOOP_(NAME##_FLOAT32, float, float, uint8_t, WK_LD_ID, WK_ST_B, CTX, EXPR)        \
    WK_UNARY_LOOP_(NAME##_FLOAT64, double, double, uint8_t, WK_LD_ID, WK_ST_B, CTX, EXPR)      \
    WK_UNARY_LOOP_(NAME##_FLOAT16, uint16_t, float, uint8_t, WK_LD_F16, WK_ST_B, CTX, EXPR)    \
    WK_UNARY_LOOP_(NAME##_BFLOAT16, uint16_t, float, uint8_t, WK_LD_BF16, WK_ST_B, CTX, EXPR)  \
    WK_UNARY_LOOP_(NAME##_UINT8, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)       \
    WK_UNARY_LOOP_(NAME##_INT8, int8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)         \
    WK_UNARY_LOOP_(NAME##_INT16, int16_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)       \
    WK_UNARY_LOOP_(NAME##_INT32, int32_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)       \
    WK_UNARY_LOOP_(NAME##_INT64, int64_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)       \
    WK_UNARY_LOOP_(NAME##_BOOL, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)
#define WK_TABLE_ALL(NAME) WK_TABLE_FLOAT(NAME), WK_TABLE_INT(NAME), WK_TABLE_BOOL(NAME)

#endif
