/* pointwise.h — the elementwise op framework: type promotion, broadcasting, output allocation, loop dispatch. */
#ifndef WK_POINTWISE_H
#define WK_POINTWISE_H

#include "cpu/loops.h"

/* torch.result_type(a, b) */
WK_INTERNAL wk_dtype wk__result_type2(const wk_tensor *a, const wk_tensor *b);
/* The dtype of unary float ops (exp, sin, ...): integral and bool inputs give the default float dtype. */
WK_INTERNAL wk_dtype wk__float_op_dtype(wk_dtype d);
/* out = table[compute](a, b), broadcasting; a and b are cast to `compute`; the output has dtype out_dtype
 * (equal to compute, or bool for predicates). `name` is used in "not implemented for" errors. */
WK_INTERNAL wk_tensor *wk__binary_op(const char *name, const wk_tensor *a, const wk_tensor *b, wk_dtype compute,
                                     wk_dtype out_dtype, const wk_loop_fn *table, void *ctx);
WK_INTERNAL wk_tensor *wk__unary_op(const char *name, const wk_tensor *a, wk_dtype compute, wk_dtype out_dtype,
                                    const wk_loop_fn *table, void *ctx);
/* A ternary elementwise op: out = table[compute](a, b, c) (where, lerp, addcmul, clamp with tensors). */
WK_INTERNAL wk_tensor *wk__ternary_op(const char *name, const wk_tensor *a, const wk_tensor *b, const wk_tensor *c,
                                      wk_dtype compute, wk_dtype out_dtype, const wk_loop_fn *table, void *ctx);
WK_INTERNAL void wk__not_implemented_for(const char *name, wk_dtype dt);

#endif
