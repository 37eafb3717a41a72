/* random_ops.c — the ops of ops/random.def: tensor-level wrappers over the bit-exact sampling kernels of
 * random.c (rand, randn, randint, randperm, the *_like factories, normal, bernoulli, multinomial, poisson, the
 * in-place samplers uniform_/normal_/random_/exponential_/geometric_/log_normal_/cauchy_/bernoulli_, dropout).
 *
 * Note [Filling a tensor in torch's order]
 * torch's sampling kernels visit the output in TensorIterator order: the dims sorted by stride, innermost the
 * smallest, i.e. memory order. A non-overlapping and dense tensor (contiguous, transposed, any permutation) is
 * therefore filled as one storage span, element 0 of the span first. Any other layout (a slice with steps) is
 * filled through a dense scratch tensor with self's dim order (wk_iter_alloc_output, torch's
 * infer_dense_strides), which is then copied in element by element. Expanded outputs (a stride 0 over more than
 * one element) are refused, as TensorIterator does. normal_ alone looks at the tensor itself: its vectorised
 * path runs only when self.is_contiguous() (Note [Random kernels over buffers] in random.h).
 *
 * Factories follow torch's recipes: rand = empty(size).uniform_(0, 1), randn = empty(size).normal_(0, 1),
 * randint = empty(size, int64).random_(low, high), the *_like ones start from empty_like (memory format
 * preserved), out= variants resize `out` and fill it in its own order. */
#include "autograd/autograd.h"
#include "cpu/iter.h"
#include "ops_impl.h"
#include "core/random.h"

#include <inttypes.h>

/* ---- one sampler call over a buffer ---- */

typedef enum {
    F_UNIFORM,
    F_NORMAL,
    F_RANDOM,
    F_RANDOM_FROM_TO,
    F_BERNOULLI_SCALAR,
    F_BERNOULLI_TENSOR,
    F_EXPONENTIAL,
    F_GEOMETRIC,
    F_LOG_NORMAL,
    F_CAUCHY,
    F_DROPOUT,
} fill_kind;

typedef struct {
    fill_kind kind;
    double a, b;      /* uniform (from, to), normal/log_normal (mean, std), cauchy (median, sigma), p, lambd */
    int64_t from, to; /* random_ bounds */
    bool has_to;      /* random_(from, to) rather than random_(from, None) */
    wk_dtype p_dtype; /* bernoulli_(p: Tensor): p's dtype ... */
    const void *p;    /* ... and its values, one per output element in the fill order (NULL: checks only) */
    bool contiguous;  /* normal_: self.is_contiguous() */
} fill_args;

/* One call of the kernel over `n` elements of `out` (NULL with n == 0: the argument checks only). */
static int run_kernel(wk_generator *g, const fill_args *a, wk_dtype dt, void *out, int64_t n) {
    switch (a->kind) {
    case F_UNIFORM: return wk__uniform_(g, dt, out, n, a->a, a->b);
    case F_NORMAL: return wk__normal_(g, dt, out, n, a->a, a->b, a->contiguous);
    case F_RANDOM: return wk__random_(g, dt, out, n);
    case F_RANDOM_FROM_TO: return wk__random_from_to_(g, dt, out, n, a->from, a->has_to, a->to);
    case F_BERNOULLI_SCALAR: return wk__bernoulli_scalar_(g, dt, out, n, a->a);
    case F_BERNOULLI_TENSOR: return wk__bernoulli_tensor_(g, dt, out, n, a->p_dtype, a->p);
    case F_EXPONENTIAL: return wk__exponential_(g, dt, out, n, a->a);
    case F_GEOMETRIC: return wk__geometric_(g, dt, out, n, a->a);
    case F_LOG_NORMAL: return wk__log_normal_(g, dt, out, n, a->a, a->b);
    case F_CAUCHY: return wk__cauchy_(g, dt, out, n, a->a, a->b);
    case F_DROPOUT: return wk__dropout_noise(g, dt, out, n, a->a);
    }
    return 0;
}

/* ---- layouts (Note [Filling a tensor in torch's order]) ---- */

/* Fills self in torch's order. The kernel's argument checks come first, as torch checks them before it builds
 * the iterator (a dry run with n = 0), except random_(from, to), whose checks (and bounds warnings) come after
 * the iterator's expanded-output error, in the real call. With a bernoulli p tensor, a->p must already be laid
 * out like wk__empty_like_preserve(self) (see bernoulli_tensor_fill). */
static int fill(wk_tensor *self, wk_generator *g, const fill_args *a) {
    wk_dtype dt = self->dtype;
    int64_t n = wk__numel(self);
    bool overlap = false;
    for (int i = 0; n > 0 && i < self->ndim; i++) overlap = overlap || (self->strides[i] == 0 && self->sizes[i] > 1);
    if ((a->kind != F_RANDOM_FROM_TO || n == 0) && run_kernel(g, a, dt, NULL, 0) < 0) return -1;
    if (n == 0) return 0;
    /* normal_'s dtype dispatch comes before its iterator too: the kernel raises before it writes anything */
    if (overlap && a->kind == F_NORMAL && !wk_dtype_is_floating(dt)) return run_kernel(g, a, dt, NULL, n);
    if (overlap) {
        wk__error(WK_RUNTIME_ERROR,
                  "unsupported operation: more than one element of the written-to tensor refers to a single "
                  "memory location. Please clone() the tensor before performing the operation.");
        return -1;
    }
    if (wk__non_overlapping_and_dense(self)) return run_kernel(g, a, dt, wk__data(self), n);
    wk_tensor *tmp = wk__empty_like_preserve(self, dt); /* dense, self's dim order */
    if (!tmp) return -1;
    int rc = run_kernel(g, a, dt, wk__data(tmp), n);
    if (rc == 0) rc = wk__copy_(self, tmp);
    wk_release(tmp);
    return rc;
}

/* ---- the in-place samplers (mutates: self; the generated wrapper does the checks, version and autograd) ---- */

static wk_tensor *fill_self(wk_tensor *self, wk_generator *g, fill_args a) {
    if (fill(self, g, &a) < 0) return NULL;
    return wk_retain(self);
}

wk_tensor *wk_impl_uniform_(wk_tensor *self, double from, double to, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_UNIFORM, .a = from, .b = to});
}

wk_tensor *wk_impl_normal_(wk_tensor *self, double mean, double std, wk_generator *generator) {
    return fill_self(self, generator,
                     (fill_args){.kind = F_NORMAL, .a = mean, .b = std, .contiguous = wk__is_contiguous(self)});
}

wk_tensor *wk_impl_random_(wk_tensor *self, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_RANDOM});
}

wk_tensor *wk_impl_random_from_(wk_tensor *self, int64_t from, wk_optint to, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_RANDOM_FROM_TO, .from = from, .has_to = to.has, .to = to.v});
}

wk_tensor *wk_impl_random_to_(wk_tensor *self, int64_t to, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_RANDOM_FROM_TO, .from = 0, .has_to = true, .to = to});
}

wk_tensor *wk_impl_exponential_(wk_tensor *self, double lambd, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_EXPONENTIAL, .a = lambd});
}

wk_tensor *wk_impl_geometric_(wk_tensor *self, double p, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_GEOMETRIC, .a = p});
}

wk_tensor *wk_impl_log_normal_(wk_tensor *self, double mean, double std, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_LOG_NORMAL, .a = mean, .b = std});
}

wk_tensor *wk_impl_cauchy_(wk_tensor *self, double median, double sigma, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_CAUCHY, .a = median, .b = sigma});
}

wk_tensor *wk_impl_bernoulli_float_(wk_tensor *self, double p, wk_generator *generator) {
    return fill_self(self, generator, (fill_args){.kind = F_BERNOULLI_SCALAR, .a = p});
}

/* bernoulli_(p: Tensor): p is expanded to self's shape (expand_inplace) and its values are taken in self's fill
 * order: copied into a dense tensor with self's dim order, whose storage order is the order fill() visits. */
static int bernoulli_tensor_fill(wk_tensor *self, wk_tensor *p, wk_generator *g) {
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *pe = wk_expand(p, wk_ints(self->sizes, self->ndim), false);
    wk_set_grad_enabled(prev);
    if (!pe) return -1;
    wk_tensor *pbuf = wk__numel(self) ? wk__empty_like_preserve(self, p->dtype) : NULL; /* p in self's order */
    int rc = -1;
    if (wk__numel(self) && (!pbuf || wk__copy_(pbuf, pe) < 0)) goto done;
    rc = fill(self, g,
              &(fill_args){.kind = F_BERNOULLI_TENSOR, .p_dtype = p->dtype, .p = pbuf ? wk__data(pbuf) : NULL});
done:
    wk_release(pbuf);
    wk_release(pe);
    return rc;
}

wk_tensor *wk_impl_bernoulli_Tensor_(wk_tensor *self, wk_tensor *p, wk_generator *generator) {
    if (bernoulli_tensor_fill(self, p, generator) < 0) return NULL;
    return wk_retain(self);
}

/* ---- factories ---- */

static wk_dtype or_default(wk_dtype d) { return d == WK_DTYPE_NONE ? wk_get_default_dtype() : d; }

/* A new contiguous tensor of `size`, filled; requires_grad is applied after the draws, as torch does. */
static wk_tensor *new_filled(wk_intlist size, wk_dtype dtype, bool requires_grad, wk_generator *g, fill_args a) {
    wk_tensor *t = wk__empty((int)size.len, size.data, dtype);
    if (!t) return NULL;
    if (fill(t, g, &a) < 0) {
        wk_release(t);
        return NULL;
    }
    return wk__finish_factory(t, requires_grad);
}

/* empty_like(self) (memory format preserved), filled. */
static wk_tensor *like_filled(wk_tensor *self, wk_dtype dtype, bool requires_grad, wk_generator *g, fill_args a) {
    wk_tensor *t = wk__empty_like_preserve(self, dtype);
    if (!t) return NULL;
    if (a.kind == F_NORMAL) a.contiguous = wk__is_contiguous(t);
    if (fill(t, g, &a) < 0) {
        wk_release(t);
        return NULL;
    }
    return wk__finish_factory(t, requires_grad);
}

static bool same_sizes(const wk_tensor *t, int ndim, const int64_t *sizes) {
    if (t->ndim != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (t->sizes[i] != sizes[i]) return false;
    return true;
}

/* The start of every out= factory: torch's argument-parser and autograd checks, then out.resize_(size). */
static int out_prepare(const char *op, wk_tensor *out, wk_dtype dtype, int ndim, const int64_t *sizes) {
    if (dtype != WK_DTYPE_NONE && dtype != out->dtype) {
        wk__error(WK_RUNTIME_ERROR, "dtype %s does not match dtype of out parameter (%s)", wk_dtype_scalar_name(dtype),
                  wk_dtype_scalar_name(out->dtype));
        return -1;
    }
    if (wk_is_grad_enabled() && wk__tensor_requires_grad(out)) {
        wk__error(WK_RUNTIME_ERROR,
                  "aten::%s(): functions with out=... arguments don't support automatic differentiation, but one of "
                  "the arguments requires grad.",
                  op);
        return -1;
    }
    if (!same_sizes(out, ndim, sizes) && wk__resize_(out, ndim, sizes) < 0) return -1;
    return 0;
}

/* out.resize_(size) then out.<sampler>_(...), in out's own layout. */
static wk_tensor *out_filled(const char *op, wk_tensor *out, wk_intlist size, wk_dtype dtype, wk_generator *g,
                             fill_args a) {
    if (out_prepare(op, out, dtype, (int)size.len, size.data) < 0) return NULL;
    if (a.kind == F_NORMAL) a.contiguous = wk__is_contiguous(out);
    if (fill(out, g, &a) < 0) return NULL;
    wk__bump_version(out);
    return wk_retain(out);
}

wk_tensor *wk_impl_rand(wk_intlist size, wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    return new_filled(size, or_default(dtype), requires_grad, generator, (fill_args){.kind = F_UNIFORM, .b = 1});
}

wk_tensor *wk_impl_rand_out(wk_tensor *out, wk_intlist size, wk_generator *generator, wk_dtype dtype,
                            bool requires_grad) {
    WK_UNUSED(requires_grad);
    return out_filled("rand", out, size, dtype, generator, (fill_args){.kind = F_UNIFORM, .b = 1});
}

wk_tensor *wk_impl_randn(wk_intlist size, wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    return new_filled(size, or_default(dtype), requires_grad, generator,
                      (fill_args){.kind = F_NORMAL, .b = 1, .contiguous = true});
}

wk_tensor *wk_impl_randn_out(wk_tensor *out, wk_intlist size, wk_generator *generator, wk_dtype dtype,
                             bool requires_grad) {
    WK_UNUSED(requires_grad);
    return out_filled("randn", out, size, dtype, generator, (fill_args){.kind = F_NORMAL, .b = 1});
}

static fill_args from_to(int64_t low, int64_t high) {
    return (fill_args){.kind = F_RANDOM_FROM_TO, .from = low, .has_to = true, .to = high};
}

wk_tensor *wk_impl_randint(int64_t high, wk_intlist size, wk_generator *generator, wk_dtype dtype,
                           bool requires_grad) {
    return wk_impl_randint_low(0, high, size, generator, dtype, requires_grad);
}

wk_tensor *wk_impl_randint_out(wk_tensor *out, int64_t high, wk_intlist size, wk_generator *generator,
                               wk_dtype dtype, bool requires_grad) {
    return wk_impl_randint_low_out(out, 0, high, size, generator, dtype, requires_grad);
}

wk_tensor *wk_impl_randint_low(int64_t low, int64_t high, wk_intlist size, wk_generator *generator, wk_dtype dtype,
                               bool requires_grad) {
    return new_filled(size, dtype == WK_DTYPE_NONE ? WK_INT64 : dtype, requires_grad, generator, from_to(low, high));
}

wk_tensor *wk_impl_randint_low_out(wk_tensor *out, int64_t low, int64_t high, wk_intlist size,
                                   wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    WK_UNUSED(requires_grad);
    return out_filled("randint", out, size, dtype, generator, from_to(low, high));
}

wk_tensor *wk_impl_rand_like(wk_tensor *self, wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    return like_filled(self, dtype, requires_grad, generator, (fill_args){.kind = F_UNIFORM, .b = 1});
}

wk_tensor *wk_impl_randn_like(wk_tensor *self, wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    return like_filled(self, dtype, requires_grad, generator, (fill_args){.kind = F_NORMAL, .b = 1});
}

wk_tensor *wk_impl_randint_like(wk_tensor *self, int64_t high, wk_generator *generator, wk_dtype dtype,
                                bool requires_grad) {
    return like_filled(self, dtype, requires_grad, generator, from_to(0, high));
}

wk_tensor *wk_impl_randint_like_low_dtype(wk_tensor *self, int64_t low, int64_t high, wk_generator *generator,
                                          wk_dtype dtype, bool requires_grad) {
    return like_filled(self, dtype, requires_grad, generator, from_to(low, high));
}

wk_tensor *wk_impl_randint_like_Tensor(wk_tensor *self, wk_tensor *high, wk_generator *generator, wk_dtype dtype,
                                       bool requires_grad) {
    wk_scalar h;
    if (wk__numel(high) != 1 || high->ndim != 0 || wk_item(high, &h) < 0)
        return WK_FAIL(WK_RUNTIME_ERROR, "high must be a scalar tensor and on CPU");
    return like_filled(self, dtype, requires_grad, generator, from_to(0, wk__scalar_to_int(h)));
}

/* randperm: the kernel fills a buffer in index order (torch writes r[i * stride]); a strided out is filled
 * through a contiguous scratch tensor. */
static int randperm_into(wk_tensor *r, int64_t n, wk_generator *g) {
    if (wk__is_contiguous(r)) return wk__randperm(g, r->dtype, wk__data(r), n);
    wk_tensor *tmp = wk__empty(1, &n, r->dtype);
    if (!tmp) return -1;
    int rc = wk__randperm(g, r->dtype, wk__data(tmp), n);
    if (rc == 0) rc = wk__copy_(r, tmp);
    wk_release(tmp);
    return rc;
}

wk_tensor *wk_impl_randperm(int64_t n, wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    wk_tensor *t = wk__empty(1, &n, dtype == WK_DTYPE_NONE ? WK_INT64 : dtype); /* at::empty(n) checks n first */
    if (!t) return NULL;
    if (randperm_into(t, n, generator) < 0) {
        wk_release(t);
        return NULL;
    }
    return wk__finish_factory(t, requires_grad);
}

wk_tensor *wk_impl_randperm_out(wk_tensor *out, int64_t n, wk_generator *generator, wk_dtype dtype,
                                bool requires_grad) {
    WK_UNUSED(requires_grad);
    if (n < 0) return WK_FAIL(WK_RUNTIME_ERROR, "n must be non-negative, got%" PRId64, n);
    if (out_prepare("randperm", out, dtype, 1, &n) < 0) return NULL;
    if (randperm_into(out, n, generator) < 0) return NULL;
    wk__bump_version(out);
    return wk_retain(out);
}

/* ---- torch.normal over tensors (Note 15 of tests/rng/FINDINGS.md) ----
 * normal(Tm, s)  = empty(mean's shape).normal_(0, s).add_(mean)
 * normal(m, Ts)  = empty(std's shape).normal_(0, 1).mul_(std).add_(full((), m))
 * normal(Tm, Ts) = empty(broadcast shape, mean's dtype).normal_(0, 1).mul_(std).add_(mean)
 * Each step is its own rounded op; the output is a new contiguous tensor (or `out`, in its own layout). */

static int check_std_scalar(double std) {
    if (!(std >= 0.0)) {
        wk__error(WK_RUNTIME_ERROR, "normal expects std >= 0.0, but found std %g", std);
        return -1;
    }
    return 0;
}

/* CHECK_NORMAL_TENSOR_STD: std.numel() == 0 || std.min() >= 0 (a NaN fails). */
static int check_std_tensor(const wk_tensor *std) {
    int64_t n = wk__numel(std);
    double *v = wk__malloc((size_t)(n ? n : 1) * sizeof *v); /* [n] std's values as double */
    if (!v) return -1;
    int rc = wk_copy_to_buffer(std, WK_FLOAT64, v);
    for (int64_t i = 0; rc == 0 && i < n; i++)
        if (!(v[i] >= 0)) {
            wk__error(WK_RUNTIME_ERROR, "normal expects all elements of std >= 0.0");
            rc = -1;
        }
    free(v);
    return rc;
}

/* output.normal_(0, s) then, with grad mode off, output.mul_(std_t) and output.add_(mean_t or full((), mean)). */
static wk_tensor *normal_finish(wk_tensor *output, wk_tensor *mean_t, double mean, wk_tensor *std_t, double s,
                                wk_generator *g) {
    if (fill(output, g, &(fill_args){.kind = F_NORMAL, .b = s, .contiguous = wk__is_contiguous(output)}) < 0)
        return NULL;
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *r = wk_retain(output);
    if (r && std_t) {
        wk_tensor *m = wk_mul_(output, std_t);
        if (!m) r = (wk_release(r), NULL);
        wk_release(m);
    }
    if (r) {
        wk_tensor *mt = mean_t ? wk_retain(mean_t) : wk__full(0, NULL, output->dtype, wk_float(mean));
        wk_tensor *a = mt ? wk_add_(output, mt, wk_int(1)) : NULL;
        if (!a) r = (wk_release(r), NULL);
        wk_release(a);
        wk_release(mt);
    }
    wk_set_grad_enabled(prev);
    return r;
}

/* The output of shape (ndim, sizes) and dtype: a new contiguous tensor, or `out` resized. */
static wk_tensor *normal_output(const char *op, wk_tensor *out, int ndim, const int64_t *sizes, wk_dtype dtype) {
    if (!out) return wk__empty(ndim, sizes, dtype);
    if (wk__tensor_requires_grad(out) && wk_is_grad_enabled()) {
        wk__error(WK_RUNTIME_ERROR,
                  "%s(): functions with out=... arguments don't support automatic differentiation, but one of the "
                  "arguments requires grad.",
                  op);
        return NULL;
    }
    if (!same_sizes(out, ndim, sizes) && wk__resize_(out, ndim, sizes) < 0) return NULL;
    wk__bump_version(out);
    return wk_retain(out);
}

static wk_tensor *normal_tensor_float(wk_tensor *out, wk_tensor *mean, double std, wk_generator *g) {
    if (check_std_scalar(std) < 0) return NULL;
    wk_tensor *o = normal_output("normal", out, mean->ndim, mean->sizes, mean->dtype);
    if (!o) return NULL;
    wk_tensor *r = normal_finish(o, mean, 0, NULL, std, g);
    wk_release(o);
    return r;
}

static wk_tensor *normal_float_tensor(wk_tensor *out, double mean, wk_tensor *std, wk_generator *g) {
    if (check_std_tensor(std) < 0) return NULL;
    wk_tensor *o = normal_output("normal", out, std->ndim, std->sizes, std->dtype);
    if (!o) return NULL;
    wk_tensor *r = normal_finish(o, NULL, mean, std, 1, g);
    wk_release(o);
    return r;
}

static wk_tensor *normal_tensor_tensor(wk_tensor *out, wk_tensor *mean, wk_tensor *std, wk_generator *g) {
    if (check_std_tensor(std) < 0) return NULL;
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(mean->ndim, mean->sizes, std->ndim, std->sizes, &nd, shape) < 0) return NULL;
    wk_tensor *o = normal_output("normal", out, nd, shape, mean->dtype);
    if (!o) return NULL;
    wk_tensor *r = normal_finish(o, mean, 0, std, 1, g);
    wk_release(o);
    return r;
}

wk_tensor *wk_impl_normal_Tensor_float(wk_tensor *mean, double std, wk_generator *generator) {
    return normal_tensor_float(NULL, mean, std, generator);
}
wk_tensor *wk_impl_normal_Tensor_float_out(wk_tensor *out, wk_tensor *mean, double std, wk_generator *generator) {
    return normal_tensor_float(out, mean, std, generator);
}
wk_tensor *wk_impl_normal_float_Tensor(double mean, wk_tensor *std, wk_generator *generator) {
    return normal_float_tensor(NULL, mean, std, generator);
}
wk_tensor *wk_impl_normal_float_Tensor_out(wk_tensor *out, double mean, wk_tensor *std, wk_generator *generator) {
    return normal_float_tensor(out, mean, std, generator);
}
wk_tensor *wk_impl_normal_Tensor_Tensor(wk_tensor *mean, wk_tensor *std, wk_generator *generator) {
    return normal_tensor_tensor(NULL, mean, std, generator);
}
wk_tensor *wk_impl_normal_Tensor_Tensor_out(wk_tensor *out, wk_tensor *mean, wk_tensor *std,
                                            wk_generator *generator) {
    return normal_tensor_tensor(out, mean, std, generator);
}

wk_tensor *wk_impl_normal_float_float(double mean, double std, wk_intlist size, wk_generator *generator,
                                      wk_dtype dtype, bool requires_grad) {
    return new_filled(size, or_default(dtype), requires_grad, generator,
                      (fill_args){.kind = F_NORMAL, .a = mean, .b = std, .contiguous = true});
}

wk_tensor *wk_impl_normal_float_float_out(wk_tensor *out, double mean, double std, wk_intlist size,
                                          wk_generator *generator, wk_dtype dtype, bool requires_grad) {
    WK_UNUSED(requires_grad);
    return out_filled("normal", out, size, dtype, generator, (fill_args){.kind = F_NORMAL, .a = mean, .b = std});
}

/* ---- sampling from tensors ---- */

/* bernoulli(self): empty_like(self, contiguous).bernoulli_(self). */
wk_tensor *wk_impl_bernoulli(wk_tensor *self, wk_generator *generator) {
    wk_tensor *r = wk__empty(self->ndim, self->sizes, self->dtype);
    if (!r) return NULL;
    if (bernoulli_tensor_fill(r, self, generator) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

wk_tensor *wk_impl_bernoulli_out(wk_tensor *out, wk_tensor *self, wk_generator *generator) {
    if (out_prepare("bernoulli", out, WK_DTYPE_NONE, self->ndim, self->sizes) < 0) return NULL;
    if (bernoulli_tensor_fill(out, self, generator) < 0) return NULL;
    wk__bump_version(out);
    return wk_retain(out);
}

/* bernoulli(self, p): empty_like(self, contiguous).bernoulli_(p). */
wk_tensor *wk_impl_bernoulli_p(wk_tensor *self, double p, wk_generator *generator) {
    return new_filled(wk_ints(self->sizes, self->ndim), self->dtype, false, generator,
                      (fill_args){.kind = F_BERNOULLI_SCALAR, .a = p});
}

/* The backward of an op torch has no derivative entry for: its NotImplemented node raises when reached. */
wk_tensor *wk_impl__no_derivative_grad(wk_tensor *grad, const char *name) {
    WK_UNUSED(grad);
    return WK_FAIL(WK_RUNTIME_ERROR, "derivative for aten::%s is not implemented", name);
}

/* multinomial(self, num_samples, replacement): int64 [num_samples] or [rows, num_samples]. */
wk_tensor *wk_impl_multinomial(wk_tensor *self, int64_t num_samples, bool replacement, wk_generator *generator) {
    int nd = self->ndim;
    bool shape_ok = (nd == 1 || nd == 2) && num_samples > 0;
    int64_t sizes[2] = {nd == 2 ? self->sizes[0] : num_samples, num_samples}; /* the result's shape */
    wk_tensor *r = shape_ok ? wk__empty(nd, sizes, WK_INT64) : wk__empty(1, (int64_t[]){0}, WK_INT64);
    if (!r) return NULL;
    /* the kernel checks everything before it writes (a bad shape never reaches the result) */
    if (wk__multinomial(generator, self->dtype, wk__data(self), nd, self->sizes, self->strides, num_samples,
                        replacement, (int64_t *)wk__data(r)) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

wk_tensor *wk_impl_multinomial_out(wk_tensor *out, wk_tensor *self, int64_t num_samples, bool replacement,
                                   wk_generator *generator) {
    wk_tensor *r = wk_impl_multinomial(self, num_samples, replacement, generator);
    if (!r) return NULL;
    int rc = 0;
    if (!same_sizes(out, r->ndim, r->sizes)) rc = wk__resize_(out, r->ndim, r->sizes);
    if (rc == 0) rc = wk__copy_(out, r);
    wk_release(r);
    if (rc < 0) return NULL;
    wk__bump_version(out);
    return wk_retain(out);
}

/* poisson(rates): a new contiguous tensor; rates read in row-major order. */
wk_tensor *wk_impl_poisson(wk_tensor *self, wk_generator *generator) {
    wk_tensor *rates = wk__contiguous(self);
    if (!rates) return NULL;
    wk_tensor *r = wk__zeros(self->ndim, self->sizes, self->dtype);
    if (r && wk__poisson(generator, self->dtype, wk__data(r), wk__data(rates), wk__numel(self)) < 0) {
        wk_release(r);
        r = NULL;
    }
    wk_release(rates);
    return r;
}

/* ---- dropout: torch's _dropout_impl<feature, alpha, inplace> on CPU (Note 14 of tests/rng/FINDINGS.md) ----
 * p == 0, eval mode or an empty input: the input itself, no draws. p == 1: input * zeros(()). Otherwise
 * input * noise, noise = bernoulli_(1 - p) / (1 - p) (alpha: a*noise and b = (noise - 1)*alpha*a + alpha*a*p,
 * result input*noise + b), where noise is empty_like(input) or, for feature dropout, (N, C, 1, ...). */

static wk_tensor *dropout_impl(wk_tensor *input, double p, bool train, bool feature, bool alpha, bool inplace) {
    if (!(p >= 0 && p <= 1)) return WK_FAIL(WK_RUNTIME_ERROR, "dropout probability has to be between 0 and 1, but got %g", p);
    if (p == 0 || !train || wk__numel(input) == 0) return wk_retain(input);
    if (p == 1) {
        wk_tensor *zero = wk__zeros(0, NULL, input->dtype);
        if (!zero) return NULL;
        wk_tensor *r = inplace ? wk_mul_(input, zero) : wk_mul(input, zero);
        wk_release(zero);
        return r;
    }
    wk_tensor *noise;
    if (feature) {
        if (input->ndim < 2) return WK_FAIL(WK_RUNTIME_ERROR, "Feature dropout requires at least 2 dimensions in the input");
        int64_t sizes[WK_MAX_DIM]; /* (N, C, 1, 1, ...) */
        for (int i = 0; i < input->ndim; i++) sizes[i] = i < 2 ? input->sizes[i] : 1;
        noise = wk__empty(input->ndim, sizes, input->dtype);
    } else {
        noise = wk__empty_like_preserve(input, WK_DTYPE_NONE);
    }
    if (!noise) return NULL;
    wk_tensor *b = NULL, *r = NULL;
    if (!alpha) {
        if (fill(noise, NULL, &(fill_args){.kind = F_DROPOUT, .a = p}) < 0) goto done;
    } else {
        if (fill(noise, NULL, &(fill_args){.kind = F_BERNOULLI_SCALAR, .a = 1 - p}) < 0) goto done;
        const double alpha_ = 1.7580993408473766;
        double a = 1. / sqrt((alpha_ * alpha_ * p + 1) * (1 - p));
        /* b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p); noise.mul_(a) */
        wk_tensor *m1 = wk__wrap_scalar(wk_int(-1)), *s1 = wk__wrap_scalar(wk_float(alpha_ * a)),
                  *s2 = wk__wrap_scalar(wk_float(alpha_ * a * p)), *s3 = wk__wrap_scalar(wk_float(a));
        bool ok = m1 && s1 && s2 && s3;
        b = ok ? wk_add(noise, m1, wk_int(1)) : NULL;
        wk_tensor *t1 = b ? wk_mul_(b, s1) : NULL;
        wk_tensor *t2 = t1 ? wk_add_(b, s2, wk_int(1)) : NULL;
        wk_tensor *t3 = t2 ? wk_mul_(noise, s3) : NULL;
        ok = t3 != NULL;
        wk_release(t1);
        wk_release(t2);
        wk_release(t3);
        wk_release(m1);
        wk_release(s1);
        wk_release(s2);
        wk_release(s3);
        if (!ok) goto done;
    }
    r = inplace ? wk_mul_(input, noise) : wk_mul(input, noise);
    if (r && alpha) {
        wk_tensor *t = wk_add_(r, b, wk_int(1));
        if (!t) r = (wk_release(r), NULL);
        wk_release(t);
    }
done:
    wk_release(b);
    wk_release(noise);
    return r;
}

wk_tensor *wk_impl_dropout(wk_tensor *input, double p, bool train) {
    return dropout_impl(input, p, train, false, false, false);
}
wk_tensor *wk_impl_dropout_(wk_tensor *self, double p, bool train) {
    return dropout_impl(self, p, train, false, false, true);
}
wk_tensor *wk_impl_feature_dropout(wk_tensor *input, double p, bool train) {
    return dropout_impl(input, p, train, true, false, false);
}
wk_tensor *wk_impl_feature_dropout_(wk_tensor *self, double p, bool train) {
    return dropout_impl(self, p, train, true, false, true);
}
wk_tensor *wk_impl_alpha_dropout(wk_tensor *input, double p, bool train) {
    return dropout_impl(input, p, train, false, true, false);
}
wk_tensor *wk_impl_alpha_dropout_(wk_tensor *self, double p, bool train) {
    return dropout_impl(self, p, train, false, true, true);
}
wk_tensor *wk_impl_feature_alpha_dropout(wk_tensor *input, double p, bool train) {
    return dropout_impl(input, p, train, true, true, false);
}
wk_tensor *wk_impl_feature_alpha_dropout_(wk_tensor *self, double p, bool train) {
    return dropout_impl(self, p, train, true, true, true);
}

/* ---- rrelu (Activation.cpp: rrelu, rrelu_with_noise, _rrelu_with_noise_train) ----
 * training: for each element of self.contiguous() in order, x <= 0 draws r = u * (upper - lower) + lower in
 * double (u the 53-bit uniform; unfused: not a per-capability file) with lower/upper first converted to the
 * dtype's opmath type (float for float32/bfloat16), r is converted back to opmath, out = x * r, noise = r;
 * x > 0 (and NaN) gives out = x, noise = 1. Float32, float64 and bfloat16 only. Eval: leaky_relu with the
 * slope (lower + upper) / 2 computed as torch's 0-d tensors do (double, or the default dtype for two ints). */

static double scalar_as_opmath(wk_scalar s, wk_dtype dt) {
    double v = wk__scalar_to_double(s);
    return dt == WK_FLOAT64 ? v : (double)(float)v;
}

static wk_scalar rrelu_eval_slope(wk_scalar lower, wk_scalar upper) {
    if (lower.tag != WK_SCALAR_FLOAT && upper.tag != WK_SCALAR_FLOAT) { /* int64 sum, true division */
        double sum = (double)(wk__scalar_to_int(lower) + wk__scalar_to_int(upper));
        if (wk_get_default_dtype() == WK_FLOAT64) return wk_float(sum / 2.0);
        return wk_float((double)((float)sum / 2.0f));
    }
    return wk_float((wk__scalar_to_double(lower) + wk__scalar_to_double(upper)) / 2.0);
}

static int rrelu_train(wk_tensor *input, wk_tensor *out, wk_tensor *noise, wk_scalar lower_, wk_scalar upper_,
                       wk_generator *g) {
    wk_dtype dt = input->dtype;
    if (dt != WK_FLOAT32 && dt != WK_FLOAT64 && dt != WK_BFLOAT16) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"rrelu_with_noise_out_cpu\" not implemented for '%s'",
                  wk_dtype_scalar_name(dt));
        return -1;
    }
    if (!g) g = wk_default_generator();
    double lower = scalar_as_opmath(lower_, dt), upper = scalar_as_opmath(upper_, dt);
    int64_t n = wk__numel(input);
    const char *x = wk__data(input); /* [n] self.contiguous() */
    char *o = wk__data(out), *z = wk__data(noise); /* [n] contiguous result and noise */
    for (int64_t i = 0; i < n; i++) {
        double xv = dt == WK_FLOAT64 ? ((const double *)x)[i]
                    : dt == WK_FLOAT32 ? (double)((const float *)x)[i]
                                       : (double)wk__bf16_to_float(((const uint16_t *)x)[i]);
        double r = 1.0, ov = xv;
        if (xv <= 0) {
            double u = (double)(wk_random64(g) & ((UINT64_C(1) << 53) - 1)) * 0x1p-53;
            r = u * (upper - lower) + lower;
            if (dt == WK_FLOAT64) {
                ov = xv * r;
            } else {
                float rf = (float)r; /* opmath_t r */
                ov = (double)((float)xv * rf);
                r = rf;
            }
        }
        switch (dt) {
        case WK_FLOAT64: ((double *)o)[i] = ov, ((double *)z)[i] = r; break;
        case WK_FLOAT32: ((float *)o)[i] = (float)ov, ((float *)z)[i] = (float)r; break;
        default: ((uint16_t *)o)[i] = wk__float_to_bf16((float)ov), ((uint16_t *)z)[i] = wk__float_to_bf16((float)r);
        }
    }
    return 0;
}

wk_tensor *wk_impl_rrelu_with_noise(wk_tensor *self, wk_tensor *noise, wk_scalar lower, wk_scalar upper, bool training,
                                    wk_generator *generator) {
    if (!same_sizes(noise, self->ndim, self->sizes)) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, self->sizes, self->ndim);
        wk_sb_ints(&b, noise->sizes, noise->ndim);
        wk__error(WK_RUNTIME_ERROR, "noise tensor shape must match self tensor shape. Got self.shape = %s noise.shape = %s",
                  a.s ? a.s : "", b.s ? b.s : "");
        wk_sb_free(&a);
        wk_sb_free(&b);
        return NULL;
    }
    if (!training) {
        bool prev = wk_set_grad_enabled(false);
        wk_tensor *r = wk_leaky_relu(self, rrelu_eval_slope(lower, upper));
        wk_set_grad_enabled(prev);
        return r;
    }
    if (noise->dtype != self->dtype) return WK_FAIL(WK_RUNTIME_ERROR, "expected scalar type %s but found %s",
                                                    wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(noise->dtype));
    wk_tensor *input = wk__contiguous(self);
    wk_tensor *out = input ? wk__empty(self->ndim, self->sizes, self->dtype) : NULL;
    bool noise_contig = wk__is_contiguous(noise);
    wk_tensor *nz = out ? (noise_contig ? wk_retain(noise) : wk__empty(noise->ndim, noise->sizes, noise->dtype)) : NULL;
    int rc = nz ? rrelu_train(input, out, nz, lower, upper, generator) : -1;
    if (rc == 0 && !noise_contig) rc = wk__copy_(noise, nz);
    if (rc == 0) wk__bump_version(noise);
    wk_release(nz);
    wk_release(input);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

/* The gradient: noise * grad in training, leaky_relu's gradient with the mean slope otherwise. */
wk_tensor *wk_impl_rrelu_with_noise_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *noise,
                                             wk_scalar lower, wk_scalar upper, bool training, bool self_is_result) {
    if (training) return wk_mul(noise, grad_output);
    double mid = (wk__scalar_to_double(lower) + wk__scalar_to_double(upper)) / 2.;
    return wk_leaky_relu_backward(grad_output, self, wk_float(mid), self_is_result);
}

static int check_rrelu_bounds(wk_scalar lower, wk_scalar upper) {
    if (!(wk__scalar_to_double(lower) <= wk__scalar_to_double(upper))) {
        wk__error(WK_RUNTIME_ERROR, "Lower bound should be less than or equal to the upper bound");
        return -1;
    }
    return 0;
}

/* rrelu(self) = rrelu_with_noise(self, empty_like(self, contiguous), ...): the recorded node is
 * RreluWithNoiseBackward0 (its in-place form RreluWithNoiseBackward1), in training and in eval. */
wk_tensor *wk_impl_rrelu(wk_tensor *self, wk_scalar lower, wk_scalar upper, bool training, wk_generator *generator) {
    if (check_rrelu_bounds(lower, upper) < 0) return NULL;
    wk_tensor *noise = wk__empty(self->ndim, self->sizes, self->dtype);
    if (!noise) return NULL;
    wk_tensor *r = wk_rrelu_with_noise(self, noise, lower, upper, training, generator);
    wk_release(noise);
    return r;
}

wk_tensor *wk_impl_rrelu_(wk_tensor *self, wk_scalar lower, wk_scalar upper, bool training, wk_generator *generator) {
    if (check_rrelu_bounds(lower, upper) < 0) return NULL;
    wk_tensor *noise = wk__empty(self->ndim, self->sizes, self->dtype);
    if (!noise) return NULL;
    wk_tensor *r = wk_rrelu_with_noise_(self, noise, lower, upper, training, generator);
    wk_release(noise);
    return r;
}
