/* loops.h — macros that stamp out the typed inner loops the strided iterator calls (one call per run).
 *
 * Families (Note [Loop families]):
 *   FLOAT: float32 and float64 natively; float16 and bfloat16 load to float, compute in float, round back.
 *          Expressions use <tgmath.h> names (exp, log, ...) so float32 gets expf and float64 gets exp.
 *   INT:   uint8, int8, int16, int32, int64 computed in int64 (`a`, `b` are int64_t); results are stored by
 *          truncation through uint64 (two's complement wrap, as torch, without C's signed-overflow UB).
 *   BOOL:  uint8 0/1.
 * Each loop has fast paths for contiguous runs and a scalar second operand, so the compiler can vectorise them.
 * `ctx` is available to expressions as `C` (cast to the op's parameter struct by the caller-provided CTX type). */
#ifndef WK_LOOPS_H
#define WK_LOOPS_H

#include <tgmath.h>

#include "cpu/iter.h"

#define WK_LD_F16(p) wk__half_to_float(p)
#define WK_ST_F16(v) wk__float_to_half(v)
#define WK_LD_BF16(p) wk__bf16_to_float(p)
#define WK_ST_BF16(v) wk__float_to_bf16(v)
#define WK_LD_ID(p) (p)
#define WK_ST_ID(v) (v)

/* ---- binary: out = EXPR(a, b) ---- */
#define WK_BINARY_LOOP_(NAME, ST_T, CT, OST_T, LD, ST, CTX, EXPR)                                    \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx_) {                            \
        const CTX *C = (const CTX *)ctx_;                                                            \
        (void)C;                                                                                     \
        if (s[0] == sizeof(OST_T) && s[1] == sizeof(ST_T) && s[2] == sizeof(ST_T)) {                 \
            OST_T *o = (OST_T *)d[0];                                                                \
            const ST_T *x = (const ST_T *)d[1], *y = (const ST_T *)d[2];                             \
            for (int64_t i = 0; i < n; i++) {                                                        \
                CT a = LD(x[i]), b = LD(y[i]);                                                       \
                o[i] = ST(EXPR);                                                                     \
            }                                                                                        \
        } else if (s[0] == sizeof(OST_T) && s[1] == sizeof(ST_T) && s[2] == 0) {                     \
            OST_T *o = (OST_T *)d[0];                                                                \
            const ST_T *x = (const ST_T *)d[1];                                                      \
            const CT b = LD(*(const ST_T *)d[2]);                                                    \
            for (int64_t i = 0; i < n; i++) {                                                        \
                CT a = LD(x[i]);                                                                     \
                o[i] = ST(EXPR);                                                                     \
            }                                                                                        \
        } else if (s[0] == sizeof(OST_T) && s[1] % (int64_t)sizeof(ST_T) == 0 &&                    \
                   s[2] % (int64_t)sizeof(ST_T) == 0) { /* strided inputs into a contiguous output */    \
            OST_T *o = (OST_T *)d[0];                                                                \
            const ST_T *x = (const ST_T *)d[1], *y = (const ST_T *)d[2];                             \
            const int64_t sa = s[1] / (int64_t)sizeof(ST_T), sb = s[2] / (int64_t)sizeof(ST_T);      \
            for (int64_t i = 0; i < n; i++) {                                                        \
                CT a = LD(x[i * sa]), b = LD(y[i * sb]);                                             \
                o[i] = ST(EXPR);                                                                     \
            }                                                                                        \
        } else {                                                                                     \
            char *po = d[0], *pa = d[1], *pb = d[2];                                                 \
            for (int64_t i = 0; i < n; i++, po += s[0], pa += s[1], pb += s[2]) {                    \
                CT a = LD(*(const ST_T *)pa), b = LD(*(const ST_T *)pb);                             \
                *(OST_T *)po = ST(EXPR);                                                             \
            }                                                                                        \
        }                                                                                            \
    }

#define WK_TRUNC_I(T, v) ((T)(uint64_t)(int64_t)(v))
#define WK_ST_I8(v) WK_TRUNC_I(int8_t, v)
#define WK_ST_U8(v) WK_TRUNC_I(uint8_t, v)
#define WK_ST_I16(v) WK_TRUNC_I(int16_t, v)
#define WK_ST_I32(v) WK_TRUNC_I(int32_t, v)
#define WK_ST_I64(v) WK_TRUNC_I(int64_t, v)
#define WK_LD_I(v) ((int64_t)(v))
#define WK_ST_B(v) ((uint8_t)((v) != 0))

/* FLOAT family: defines NAME_FLOAT32, NAME_FLOAT64, NAME_FLOAT16, NAME_BFLOAT16 */
#define WK_BINARY_FLOAT(NAME, CTX, EXPR)                                                     \
    WK_BINARY_LOOP_(NAME##_FLOAT32, float, float, float, WK_LD_ID, WK_ST_ID, CTX, EXPR)      \
    WK_BINARY_LOOP_(NAME##_FLOAT64, double, double, double, WK_LD_ID, WK_ST_ID, CTX, EXPR)   \
    WK_BINARY_LOOP_(NAME##_FLOAT16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, CTX, EXPR) \
    WK_BINARY_LOOP_(NAME##_BFLOAT16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, CTX, EXPR)
#define WK_BINARY_INT(NAME, CTX, EXPR)                                                       \
    WK_BINARY_LOOP_(NAME##_UINT8, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_U8, CTX, EXPR)   \
    WK_BINARY_LOOP_(NAME##_INT8, int8_t, int64_t, int8_t, WK_LD_I, WK_ST_I8, CTX, EXPR)      \
    WK_BINARY_LOOP_(NAME##_INT16, int16_t, int64_t, int16_t, WK_LD_I, WK_ST_I16, CTX, EXPR)  \
    WK_BINARY_LOOP_(NAME##_INT32, int32_t, int64_t, int32_t, WK_LD_I, WK_ST_I32, CTX, EXPR)  \
    WK_BINARY_LOOP_(NAME##_INT64, int64_t, int64_t, int64_t, WK_LD_I, WK_ST_I64, CTX, EXPR)
#define WK_BINARY_BOOL(NAME, CTX, EXPR) \
    WK_BINARY_LOOP_(NAME##_BOOL, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)

/* Predicates: compute in the common dtype, write bool. */
#define WK_BINARY_PRED_ALL(NAME, CTX, EXPR)                                                        \
    WK_BINARY_LOOP_(NAME##_FLOAT32, float, float, uint8_t, WK_LD_ID, WK_ST_B, CTX, EXPR)           \
    WK_BINARY_LOOP_(NAME##_FLOAT64, double, double, uint8_t, WK_LD_ID, WK_ST_B, CTX, EXPR)         \
    WK_BINARY_LOOP_(NAME##_FLOAT16, uint16_t, float, uint8_t, WK_LD_F16, WK_ST_B, CTX, EXPR)       \
    WK_BINARY_LOOP_(NAME##_BFLOAT16, uint16_t, float, uint8_t, WK_LD_BF16, WK_ST_B, CTX, EXPR)     \
    WK_BINARY_LOOP_(NAME##_UINT8, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)          \
    WK_BINARY_LOOP_(NAME##_INT8, int8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)            \
    WK_BINARY_LOOP_(NAME##_INT16, int16_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)          \
    WK_BINARY_LOOP_(NAME##_INT32, int32_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)          \
    WK_BINARY_LOOP_(NAME##_INT64, int64_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)          \
    WK_BINARY_LOOP_(NAME##_BOOL, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)

/* Loop tables indexed by dtype; NULL = not implemented for that dtype. */
#define WK_TABLE_FLOAT(NAME) \
    [WK_FLOAT32] = NAME##_FLOAT32, [WK_FLOAT64] = NAME##_FLOAT64, [WK_FLOAT16] = NAME##_FLOAT16, [WK_BFLOAT16] = NAME##_BFLOAT16
#define WK_TABLE_INT(NAME) \
    [WK_UINT8] = NAME##_UINT8, [WK_INT8] = NAME##_INT8, [WK_INT16] = NAME##_INT16, [WK_INT32] = NAME##_INT32, [WK_INT64] = NAME##_INT64
#define WK_TABLE_BOOL(NAME) [WK_BOOL] = NAME##_BOOL

/* ---- unary: out = EXPR(x) ---- */
#define WK_UNARY_LOOP_(NAME, ST_T, CT, OST_T, LD, ST, CTX, EXPR)                       \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx_) {              \
        const CTX *C = (const CTX *)ctx_;                                              \
        (void)C;                                                                       \
        if (s[0] == sizeof(OST_T) && s[1] == sizeof(ST_T)) {                           \
            OST_T *o = (OST_T *)d[0];                                                  \
            const ST_T *in = (const ST_T *)d[1];                                       \
            for (int64_t i = 0; i < n; i++) {                                          \
                CT x = LD(in[i]);                                                      \
                o[i] = ST(EXPR);                                                       \
            }                                                                          \
        } else {                                                                       \
            char *po = d[0], *pi = d[1];                                               \
            for (int64_t i = 0; i < n; i++, po += s[0], pi += s[1]) {                  \
                CT x = LD(*(const ST_T *)pi);                                          \
                *(OST_T *)po = ST(EXPR);                                               \
            }                                                                          \
        }                                                                              \
    }
#define WK_UNARY_FLOAT(NAME, CTX, EXPR)                                                     \
    WK_UNARY_LOOP_(NAME##_FLOAT32, float, float, float, WK_LD_ID, WK_ST_ID, CTX, EXPR)      \
    WK_UNARY_LOOP_(NAME##_FLOAT64, double, double, double, WK_LD_ID, WK_ST_ID, CTX, EXPR)   \
    WK_UNARY_LOOP_(NAME##_FLOAT16, uint16_t, float, uint16_t, WK_LD_F16, WK_ST_F16, CTX, EXPR) \
    WK_UNARY_LOOP_(NAME##_BFLOAT16, uint16_t, float, uint16_t, WK_LD_BF16, WK_ST_BF16, CTX, EXPR)
#define WK_UNARY_INT(NAME, CTX, EXPR)                                                       \
    WK_UNARY_LOOP_(NAME##_UINT8, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_U8, CTX, EXPR)   \
    WK_UNARY_LOOP_(NAME##_INT8, int8_t, int64_t, int8_t, WK_LD_I, WK_ST_I8, CTX, EXPR)      \
    WK_UNARY_LOOP_(NAME##_INT16, int16_t, int64_t, int16_t, WK_LD_I, WK_ST_I16, CTX, EXPR)  \
    WK_UNARY_LOOP_(NAME##_INT32, int32_t, int64_t, int32_t, WK_LD_I, WK_ST_I32, CTX, EXPR)  \
    WK_UNARY_LOOP_(NAME##_INT64, int64_t, int64_t, int64_t, WK_LD_I, WK_ST_I64, CTX, EXPR)
#define WK_UNARY_BOOL(NAME, CTX, EXPR) \
    WK_UNARY_LOOP_(NAME##_BOOL, uint8_t, int64_t, uint8_t, WK_LD_I, WK_ST_B, CTX, EXPR)

typedef struct {
    double f;  /* a Scalar parameter as double (float family) */
    int64_t i; /* ... and as int64 (int family) */
    double f2;
    int64_t i2;
} wk_scalar_ctx;

#endif
