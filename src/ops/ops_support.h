/* ops_support.h — what the generated dispatch code (build/gen/ops.c) stands on: the autorelease pool used by
 * derivative formulas, argument errors, saved metadata, and the in-place / out= write-back. */
#ifndef WK_OPS_SUPPORT_H
#define WK_OPS_SUPPORT_H

#include "autograd/autograd.h"
#include "core/host.h" /* wk_move_to_device, for CopyBackwards (ops/core.def) */
#include "ops_impl.h"

/* Note [Device table] (src/core/device.h): which device runs an op, and its kernel there. torch's rule
 * (TensorIterator): the op runs on the device of its first tensor that is not a CPU 0-d input (outputs first, then
 * the inputs in order); every other tensor must be on that device too, except CPU 0-d inputs (wrapped numbers among
 * them), which every device's kernels accept. With no tensor on a device the op runs on the CPU. The generated
 * wrappers pick each tensor argument, then take the kernel; an empty slot raises NotImplementedError naming the op
 * and the device. All-CPU calls stay inline: a compare per tensor and an indexed load. */
typedef struct {
    wk_device *dev;   /* the op's device so far; NULL: none picked yet */
    wk_device *other; /* a second device found (an error), or NULL */
} wk_devpick;
static inline void wk__pick(wk_devpick *p, const wk_tensor *t, bool output) {
    if (!t) return;
    wk_device *d = t->storage->device;
    if (d == p->dev) return;
    if (!output && d == &wk__cpu_device && t->ndim == 0) return;
    if (!p->dev) p->dev = d;
    else if (!p->other) p->other = d;
}
static inline void wk__pick_list(wk_devpick *p, const wk_tensor *const *ts, int64_t n) {
    for (int64_t i = 0; i < n; i++) wk__pick(p, ts[i], false);
}
WK_INTERNAL wk_kernel_fn wk__kernel_slow(const wk_devpick *p, int id, const char *op); /* NULL, error set */
static inline wk_kernel_fn wk__kernel(const wk_devpick *p, int id, const char *op) {
    if (!p->other) {
        wk_device *d = p->dev ? p->dev : &wk__cpu_device;
        wk_kernel_fn k = d->kernels ? d->kernels[id] : NULL;
        if (k) return k;
    }
    return wk__kernel_slow(p, id, op);
}

/* Note [Formula pool]: every tensor a derivative formula creates joins the pool and is released when the formula
 * is done; a NULL (failed op) marks the pool failed so the node reports the error. */
typedef struct {
    wk_tensor **items;
    void **arrays;
    int n, cap, narrays;
    bool failed;
} wk_pool;
WK_INTERNAL wk_tensor *wk__pool_add(wk_pool *p, wk_tensor *t);  /* NULL marks failure */
WK_INTERNAL wk_tensor *wk__pool_keep(wk_pool *p, wk_tensor *t); /* NULL is allowed (optional tensors) */
WK_INTERNAL wk_tensor **wk__pool_array(wk_pool *p, int64_t n);
WK_INTERNAL int wk__pool_end(wk_pool *p, int rc);
#define A(x) wk__pool_add(&pool, (x))

WK_INTERNAL void wk__null_arg(const char *op, const char *arg);
/* A list argument of an exported op (issue 25): len >= 0 (or None: NULL data, len -1), data unless empty, Tensor[] entries
 * not NULL; else an error naming op and arg, -1. */
WK_INTERNAL int wk__check_list(const char *op, const char *arg, const void *data, int64_t len, bool optional,
                               bool tensors);
WK_INTERNAL void wk__not_differentiable(const char *op, const char *arg);
WK_INTERNAL bool wk__list_requires_grad(wk_tensorlist l);
WK_INTERNAL int wk__copy_intlist(wk_intlist l, int64_t **data, int64_t *len);
WK_INTERNAL int wk__copy_floatlist(wk_floatlist l, double **data, int64_t *len); /* float[] saved by a node */
WK_INTERNAL char *wk__strdup(const char *s);
WK_INTERNAL int wk__save_meta(wk_tensor *const *ts, int64_t n, wk_input_meta **meta, int64_t *nmeta);
WK_INTERNAL void wk__free_meta(wk_input_meta *meta, int64_t n);
WK_INTERNAL int wk__materialize_grads(wk_pool *p, wk_tensor **gi, const wk_input_meta *meta, int64_t n);
WK_INTERNAL int wk__save_list_sizes(wk_tensorlist l, int64_t **out, int64_t *n);
WK_INTERNAL int wk__save_list_dtypes(wk_tensorlist l, wk_dtype **out, int64_t *n);
/* Writes an out-of-place result into self (same shape required; castable dtype), bumping self's version; r may be
 * self itself (written in place already: Note [Writing into the destination]). */
WK_INTERNAL int wk__write_inplace(wk_tensor *self, const wk_tensor *r, const char *op);
/* Note [In-place checks first]: an in-place binary op that torch runs on TensorIterator checks, before its kernel
 * runs (and so before a dtype the kernel refuses, or an integer division by zero): that self and other broadcast
 * ("The size of tensor a ..."), that the broadcast shape is self's ("output with shape [..] doesn't match the
 * broadcast shape [..]"), then that the result type casts to self's dtype ("result type Float can't be cast to the
 * desired output type Char"). For the ops whose kernel can fail so: `inplace_check:` in the op table. */
WK_INTERNAL int wk__binary_inplace_check(wk_tensor *self, wk_tensor *other);
WK_INTERNAL int wk__binary_inplace_check_scalar(wk_tensor *self, wk_scalar other);
WK_INTERNAL int wk__pow_inplace_check_scalar(wk_tensor *self, wk_scalar exponent); /* negative int exponent first */
WK_INTERNAL int wk__div_inplace_check(wk_tensor *self, wk_tensor *other, const char *rounding_mode); /* true: float */
/* out=: resizes out to r's shape when needed, checks the cast, copies, bumps the version (r may be out itself). */
WK_INTERNAL int wk__write_out(wk_tensor *out, const wk_tensor *r);
/* A result computed in place in a tensor of self's shape (an in-place op, or torch's loss.mul_(weight)): what is
 * multiplied in, of shape (nd, sizes), must broadcast into self's shape, else TensorIterator's "output with shape
 * [1] doesn't match the broadcast shape [2]" (or the broadcast error itself). */
WK_INTERNAL int wk__fits_in_place(const wk_tensor *self, int nd, const int64_t *sizes);
/* Note [Write overlap]: an in-place or out= variant of an op that torch runs on TensorIterator raises as its build
 * does, before any other check of the op's own: the written tensor must not reach one element twice (an expanded
 * view), nor share part of its memory with an input (`a.add_(a.t())`, `torch.exp(a[1:], out=a[:-1])`); the very
 * same memory, `a.mul_(a)`, is fine. Inputs may be NULL (an absent optional). The generated wrappers call it for the
 * ops of ops/{pointwise,unary,compare,nn_act}.def and those marked `overlap_check: true` (tools/gen.py). */
WK_INTERNAL int wk__check_write_overlap(const wk_tensor *dst, int n, const wk_tensor *const *inputs);
/* Note [Writing into the destination]: the in-place and out= variants of an op marked `writes_dest` in the op table
 * (its result is one elementwise kernel, wk__nary_op) name their destination before calling the op; wk__nary_op
 * takes it (once: the ops it calls itself see none) and, when that is safe, writes its result there and returns it,
 * so the write-back copies nothing. Safe: the destination is contiguous, has the result's shape and dtype, and
 * every input either shares no storage with it or is it exactly (same offset and strides), so each element is
 * read before it is written, by the same thread. Else the result goes to a new tensor and is copied as before.
 * 4M floats, 2 threads: torch.exp(x, out=y) 2.06 -> 0.65 ms, y.mul_(1.0) 2.25 -> 0.33 ms (torch 0.69, 0.38). */
WK_INTERNAL void wk__set_dest(wk_tensor *t);
WK_INTERNAL wk_tensor *wk__take_dest(void);
/* Note [Checks before the kernel]: torch builds an op's TensorIterator (broadcast, then an in-place output's shape,
 * then the cast of the result into the output) before its dtype dispatch says "... not implemented for 'Float'". The
 * in-place and out= variants of the TensorIterator ops (those with the overlap check) name what they write before
 * calling the op; wk__nary_op takes it (once, as the destination above) and, when it has no kernel for the dtype,
 * runs those checks first: `torch.ones(3).bitwise_and_(torch.ones(2, 3))` -> "output with shape [3] doesn't match
 * the broadcast shape [2, 3]", `torch.gcd(f, f, out=long_tensor)` -> "result type Float can't be cast ...". */
WK_INTERNAL void wk__set_write_target(wk_tensor *t, bool inplace);
typedef struct {
    const wk_tensor *t; /* NULL: none */
    bool inplace;
} wk_write_target;
WK_INTERNAL wk_write_target wk__take_write_target(void);
/* the checks torch's build makes on what it writes: an in-place output's shape, then the cast of `result` into it */
WK_INTERNAL int wk__check_write_target(wk_write_target w, int nd, const int64_t *shape, wk_dtype result);
/* out=(t1, t2, ...) of ops with several results: each out tensor must have its result's dtype exactly.
 * "Expected out tensor to have dtype long int, but got float instead" */
WK_INTERNAL int wk__check_out_dtypes(wk_tensor *const *out, wk_tensor *const *r, int n);
/* torch's mm_mat2_backward layout test: a [k, n] matrix stored transposed (column-major, e.g. a linear layer's
 * weight.t()). Its gradient is then computed as t(mm(t(grad), mat1)) so that it arrives contiguous in the weight's
 * own layout (AccumulateGrad can keep it without a copy); the sums are the same either way. */
static inline bool wk__mm_transposed_layout(wk_intlist sizes, wk_intlist strides) {
    return sizes.len == 2 && strides.len == 2 && strides.data[0] == 1 && strides.data[1] == sizes.data[0];
}

#endif
