/* forward_ad.c — forward-mode AD: dual levels, tangents, and the entry points torch.autograd.forward_ad stands on.
 *
 * Note [Forward AD]
 * A tensor's tangent (torch's forward grad) sits in t->fw_grad, stamped with the dual level it was set at
 * (t->fw_level). At most one level is open at a time (torch: "Nested forward mode AD is not supported at the
 * moment"); its stamp is wk__fw_level, a counter that only grows, so exiting a level makes every tangent of that
 * level invisible at once (wk__fw_get compares stamps) without walking the tensors; a stale tangent is released with
 * its tensor. The level number torch's Python sees is 0, as torch's first level.
 * Every generated op wrapper (tools/gen.py, Note [jvp formulas] in ops/README.md) asks after the kernel ran whether
 * an input has a tangent; if so it evaluates the op's jvp formula with forward AD suspended (the formula's ops see
 * primals only, as torch's `self_p`) and grad mode unchanged (so a tangent has history: reverse over forward), and
 * sets the result's tangent. An op without a formula raises torch's NotImplementedError naming it. A saved output
 * keeps its tangent (forward over reverse: backward formulas then carry tangents); so that the tangent's history
 * cannot hold the node that saves it, a formula that reads `result` while the output gets history reads a
 * recomputed result instead. */
#include <stdio.h>
#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/ops_support.h"

uint64_t wk__fw_level;
static uint64_t fw_counter; /* the last stamp handed out */
static bool fw_open;        /* a level is open (its stamp may be suspended to 0 while a formula runs) */

bool wk__fw_list_any(wk_tensorlist l) {
    for (int64_t i = 0; i < l.len; i++)
        if (wk__fw_get(l.data[i])) return true;
    return false;
}

void wk__fw_copy(wk_tensor *dst, const wk_tensor *src) {
    wk_tensor *t = wk__fw_get(src);
    if (!t || dst == src) return;
    wk_release(dst->fw_grad);
    dst->fw_grad = wk_retain(t);
    dst->fw_level = wk__fw_level;
}

int wk__fw_set(wk_tensor *r, wk_tensor *t) {
    if (!t || !wk_dtype_is_floating(r->dtype)) return 0;
    wk_tensor *v = wk_retain(t);
    if (v->dtype != r->dtype) {
        wk_tensor *c = wk__to_copy(v, r->dtype);
        wk_release(v);
        if (!(v = c)) return -1;
    }
    bool same = v->ndim == r->ndim;
    for (int i = 0; same && i < r->ndim; i++) same = v->sizes[i] == r->sizes[i];
    if (!same) {
        wk_tensor *e = wk_expand(v, (wk_intlist){r->sizes, r->ndim}, false);
        wk_release(v);
        if (!(v = e)) return -1;
    }
    wk_release(r->fw_grad);
    r->fw_grad = v;
    r->fw_level = wk__fw_level;
    return 0;
}

void wk__fw_refuse(const char *op) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR,
              "Trying to use forward AD with %s that does not support it because it has not been implemented yet.\n"
              "Please file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-"
              "request.yml so that we can prioritize its implementation or submit a PR adding the implementation to "
              "derivatives.yaml", op);
}

static void sizes_str(char *buf, size_t n, const wk_tensor *t) { /* "[3, 4]" */
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

/* ---- the op table's entry points (ops/forward_ad.def) ---- */

int wk_impl__enter_dual_level(int64_t *result) {
    if (fw_open) {
        wk__error(WK_RUNTIME_ERROR, "Nested forward mode AD is not supported at the moment");
        return -1;
    }
    fw_open = true;
    wk__fw_level = ++fw_counter;
    *result = 0;
    return 0;
}

int wk_impl__exit_dual_level(int64_t level) {
    if (!fw_open || level != 0) {
        wk__error(WK_RUNTIME_ERROR, "Trying to exit a forward AD level that was not the last one that was created. "
                                    "This is not supported.");
        return -1;
    }
    fw_open = false;
    wk__fw_level = 0;
    return 0;
}

static int check_level(int64_t level) {
    if (fw_open && level == 0) return 0;
    wk__error(WK_RUNTIME_ERROR, "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                                "enter_dual_level() first.");
    return -1;
}

/* torch's _make_dual: a view of primal (its history: ViewBackward0) whose tangent is `tangent`. */
wk_tensor *wk_impl__make_dual(wk_tensor *primal, wk_tensor *tangent, int64_t level) {
    if (check_level(level) < 0) return NULL;
    if (!wk_dtype_is_floating(primal->dtype))
        return WK_FAIL(WK_VALUE_ERROR, "Expected primal to be floating point or complex, but got: torch.%s",
                       wk_dtype_name(primal->dtype));
    if (!wk_dtype_is_floating(tangent->dtype))
        return WK_FAIL(WK_VALUE_ERROR, "Expected tangent to be floating point or complex, but got: torch.%s",
                       wk_dtype_name(tangent->dtype));
    bool same = primal->ndim == tangent->ndim;
    for (int i = 0; same && i < primal->ndim; i++) same = primal->sizes[i] == tangent->sizes[i];
    if (!same) {
        char a[256], b[256];
        sizes_str(a, sizeof a, primal);
        sizes_str(b, sizeof b, tangent);
        return WK_FAIL(WK_RUNTIME_ERROR, "Trying to set a forward gradient that has a different size than that of the "
                       "original Tensor, this is not supported. Tensor is of size %s while the given forward gradient "
                       "is of size %s.", a, b);
    }
    uint64_t saved = wk__fw_level;
    wk__fw_level = 0; /* the view itself carries no tangent of primal's */
    wk_tensor *r = wk_view(primal, (wk_intlist){primal->sizes, primal->ndim});
    wk__fw_level = saved;
    if (!r) return NULL;
    if (wk__fw_set(r, tangent) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

/* torch's _unpack_dual's primal: a view of self without its tangent. */
wk_tensor *wk_impl__fw_primal(wk_tensor *self, int64_t level) {
    (void)level;
    uint64_t saved = wk__fw_level;
    wk__fw_level = 0;
    wk_tensor *r = wk_view(self, (wk_intlist){self->sizes, self->ndim});
    wk__fw_level = saved;
    return r;
}

int wk_impl__has_fw_grad(wk_tensor *self, int64_t level, bool *result) {
    *result = level == 0 && wk__fw_get(self) != NULL;
    return 0;
}

/* the tangent itself (not a copy), as torch's unpack_dual gives it; an error when there is none */
wk_tensor *wk_impl__fw_tangent(wk_tensor *self, int64_t level) {
    wk_tensor *t = level == 0 ? wk__fw_get(self) : NULL;
    if (!t) return WK_FAIL(WK_RUNTIME_ERROR, "_fw_tangent: the tensor has no tangent at this level");
    return wk_retain(t);
}

/* the tangent of self itself, in place (a custom Function's outputs get their jvp's tangents so) */
int wk_impl__set_fw_grad(wk_tensor *self, wk_tensor *tangent, int64_t level) {
    if (check_level(level) < 0) return -1;
    bool same = self->ndim == tangent->ndim;
    for (int i = 0; same && i < self->ndim; i++) same = self->sizes[i] == tangent->sizes[i];
    if (!same) {
        char a[256], b[256];
        sizes_str(a, sizeof a, self);
        sizes_str(b, sizeof b, tangent);
        wk__error(WK_RUNTIME_ERROR, "Trying to set a forward gradient that has a different size than that of the "
                  "original Tensor, this is not supported. Tensor is of size %s while the given forward gradient is "
                  "of size %s.", a, b);
        return -1;
    }
    return wk__fw_set(self, tangent);
}
