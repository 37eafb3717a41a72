/* reduce.h — the reduction framework: dim lists, output shapes, and the two ways a reduction walks its input.
 *
 * Note [Accumulating reductions]: sum, prod, amax, all, norm, var, logsumexp, ... keep one accumulator per output
 * slot. The accumulator tensor has the keepdim shape; wk__reduce_view expands it to self's shape with stride 0 in
 * the reduced dims, and the strided iterator walks (acc_view, self) together, so each loop call sees a run of
 * inputs and the accumulators they fold into (stride 0 when the run lies inside a reduced dim). Accumulators are
 * double for floating inputs and int64 for integral ones (torch accumulates float32 sums in a cascade of floats;
 * double is at least as accurate). A faster kernel (SIMD, threads) replaces the loop, not the framework.
 *
 * Note [Row reductions]: argmax, max.dim, median, mode, kthvalue, sort, topk and the scans need a whole row along
 * one dim at once. wk__rows_apply runs the iterator over every operand with that dim squashed to size 1, and the
 * loop gets, for each of its n positions, a pointer per operand to the start of a row; the row's element stride of
 * operand k is ctx->rs[k] bytes and its length is whatever the op put in the ctx (rows of outputs may be shorter:
 * one element for a reduction, k for topk). One loop call per run of rows, never one per element. */
#ifndef WK_REDUCE_H
#define WK_REDUCE_H

#include "cpu/loops.h"

/* Parses a `dim` argument (None or empty = all dims) into a mask over self's dims, with torch's errors.
 * Returns the number of reduced dims or -1. */
WK_INTERNAL int wk__reduce_mask(const wk_tensor *self, wk_intlist dim, bool *mask);
/* Single-dim form: wraps dim (0-d tensors accept 0 and -1). */
WK_INTERNAL int wk__reduce_dim(const wk_tensor *self, int64_t dim, int64_t *out);
/* The output shape of a reduction: reduced dims become 1 (keepdim) or vanish. */
WK_INTERNAL int wk__reduce_shape(const wk_tensor *self, const bool *mask, bool keepdim, int64_t *out);
/* A view of `acc` (keepdim shape) expanded to self's shape, with stride 0 in reduced dims: iterating it together
 * with self visits every input element once and accumulates into its output slot. */
WK_INTERNAL wk_tensor *wk__reduce_view(const wk_tensor *acc_keepdim, const wk_tensor *self);
/* Drops the reduced dims of a keepdim-shaped result (a view). */
WK_INTERNAL wk_tensor *wk__squeeze_mask(const wk_tensor *t, const bool *mask);
/* Steals k (keepdim-shaped): returns it, or its squeezed view when !keepdim. NULL passes through. */
WK_INTERNAL wk_tensor *wk__reduce_finish(wk_tensor *k, const bool *mask, bool keepdim);
/* Number of input elements folded into each output slot. */
WK_INTERNAL int64_t wk__reduce_count(const wk_tensor *self, const bool *mask);
/* "<name>(): Expected reduction dim <d> to have non-zero size." (IndexError) when a masked dim is empty. */
WK_INTERNAL int wk__check_nonempty_dims(const wk_tensor *self, const bool *mask, const char *name);

/* Note [Accumulating reductions]: a new keepdim-shaped tensor of acc_dtype filled with `init`, folded over self's
 * masked dims by `loop` (operands: 0 = accumulator view, 1 = self). */
WK_INTERNAL wk_tensor *wk__reduce_acc(const wk_tensor *self, const bool *mask, wk_dtype acc_dtype, wk_scalar init,
                                      wk_loop_fn loop, void *ctx);

/* Note [Row reductions] */
typedef struct {
    int64_t len;             /* elements in a row of the input (operand `in` below; op-defined) */
    int64_t rs[WK_MAX_OPS];  /* byte stride along the row, per operand */
    void *arg;               /* the op's own parameters */
} wk_rows_ctx;
/* All operands have self's ndim (0-d operands are seen as [1]) and equal sizes except along `dim`. */
WK_INTERNAL int wk__rows_apply(int nops, wk_tensor *const *ops, int64_t dim, wk_loop_fn fn, wk_rows_ctx *ctx);

/* Typed element access for kernels over every dtype: X(enum, storage type, compute type, load, store).
 * Floating dtypes compute in double (exact for all of them), integral ones and bool in int64. */
#define WK_LDD_F16(v) ((double)wk__half_to_float(v))
#define WK_LDD_BF16(v) ((double)wk__bf16_to_float(v))
#define WK_STD_F16(v) wk__float_to_half((float)(v))
#define WK_STD_BF16(v) wk__float_to_bf16((float)(v))
#define WK_STD_F32(v) ((float)(v))
#define WK_REDUCE_INT_DTYPES(X)                     \
    X(BOOL, uint8_t, int64_t, WK_LD_I, WK_ST_B)     \
    X(UINT8, uint8_t, int64_t, WK_LD_I, WK_ST_U8)   \
    X(INT8, int8_t, int64_t, WK_LD_I, WK_ST_I8)     \
    X(INT16, int16_t, int64_t, WK_LD_I, WK_ST_I16)  \
    X(INT32, int32_t, int64_t, WK_LD_I, WK_ST_I32)  \
    X(INT64, int64_t, int64_t, WK_LD_I, WK_ST_I64)
#define WK_REDUCE_FLOAT_DTYPES(X)                             \
    X(FLOAT16, uint16_t, double, WK_LDD_F16, WK_STD_F16)      \
    X(BFLOAT16, uint16_t, double, WK_LDD_BF16, WK_STD_BF16)   \
    X(FLOAT32, float, double, WK_LD_ID, WK_STD_F32)           \
    X(FLOAT64, double, double, WK_LD_ID, WK_ST_ID)
#define WK_REDUCE_ALL_DTYPES(X) WK_REDUCE_INT_DTYPES(X) WK_REDUCE_FLOAT_DTYPES(X)

/* A differentiable op asked (dtype=) for an integral result of an input that requires grad: torch refuses to record
 * it ("Autograd not support dtype: Long"). Returns -1 with that error. */
WK_INTERNAL int wk__check_diff_dtype(const wk_tensor *self, wk_dtype out_dtype);

/* Composing recorded ops in C (backward helpers written as torch writes them): every tensor made joins a pool and
 * is released at the end; after a failure the remaining steps are skipped. Usage:
 *     wk_cpool pool = {0};
 *     wk_tensor *y = P_(wk_mul(P_(wk_abs(x)), g));
 *     return wk_cpool_end(&pool, y);    // y retained if every step succeeded, else NULL */
typedef struct {
    wk_tensor *t0[32]; /* the first 32 tensors; past that a heap array (t) that doubles */
    wk_tensor **t;     /* NULL while t0 holds them all */
    int n, cap;
    bool failed;
} wk_cpool;
static inline wk_tensor *wk_cpool_add(wk_cpool *p, wk_tensor *t) {
    if (!t) { /* the step failed and set the error */
        p->failed = true;
        return NULL;
    }
    wk_tensor **slots = p->t ? p->t : p->t0;
    int cap = p->t ? p->cap : 32;
    if (p->n == cap) {
        wk_tensor **grown = cap <= INT32_MAX / 2 ? (wk_tensor **)wk__malloc(sizeof *grown * (size_t)cap * 2) : NULL;
        if (!grown) {
            if (cap > INT32_MAX / 2) wk__error(WK_RUNTIME_ERROR, "wk_cpool: too many tensors");
            wk_release(t);
            p->failed = true;
            return NULL;
        }
        memcpy(grown, slots, sizeof *grown * (size_t)cap);
        free(p->t);
        p->t = slots = grown;
        p->cap = cap * 2;
    }
    return slots[p->n++] = t;
}
static inline wk_tensor *wk_cpool_end(wk_cpool *p, wk_tensor *keep) {
    wk_tensor *r = !p->failed && keep ? wk_retain(keep) : NULL;
    wk_tensor **slots = p->t ? p->t : p->t0;
    for (int i = 0; i < p->n; i++) wk_release(slots[i]);
    free(p->t);
    p->t = NULL;
    p->n = 0;
    return r;
}
#define P_(x) wk_cpool_add(&pool, (pool.failed ? NULL : (x)))

/* NaN test that is false for integers (the compute type may be int64). */
#define WK_ISNAN(x) ((x) != (x))

#endif
