/* nn_loss.c — loss functions: the elementwise losses (mse, smooth_l1, huber, soft_margin, binary_cross_entropy,
 * binary_cross_entropy_with_logits) with their backward ops, nll_loss / nll_loss2d (class indices, weights,
 * ignore_index) and the composites torch builds on them (nll_loss_nd, cross_entropy_loss).
 * Reductions follow at::Reduction: 0 none, 1 mean, 2 sum. Working precision: Note [nn working precision]. */
#include "ops/nn.h"
#include "ops/ops_support.h"
#include "ops/reduce.h"

/* ---- elementwise losses: self and target broadcast to one shape, read as float64 ---- */
typedef struct {
    int nd;
    int64_t shape[WK_MAX_DIM];
    int64_t n;       /* elements of the broadcast shape */
    wk_dtype dtype;  /* result dtype */
    double *x, *t;   /* [n] self, target */
} pair;

static void pair_free(pair *p) {
    free(p->x);
    free(p->t);
    p->x = p->t = NULL;
}

/* Loads `t` expanded to (nd, shape) as float64 (n doubles). */
static double *load_expanded(const wk_tensor *t, int nd, const int64_t *shape) {
    wk_tensor *e = wk__expand_to(t, nd, shape);
    if (!e) return NULL;
    double *p = wk__nn_load(e);
    wk_release(e);
    return p;
}

/* torch computes these losses in place in a tensor of self's shape: wk__fits_in_place (ops_support.h) */

static int pair_load(const char *kernel, const wk_tensor *self, const wk_tensor *target, pair *p) {
    memset(p, 0, sizeof *p);
    p->dtype = wk__result_type2(self, target);
    if (!wk_dtype_is_floating(p->dtype)) {
        wk__not_implemented_for(kernel, p->dtype);
        return -1;
    }
    if (wk__broadcast_shapes(self->ndim, self->sizes, target->ndim, target->sizes, &p->nd, p->shape) < 0) return -1;
    p->n = wk__prod(p->shape, p->nd);
    p->x = load_expanded(self, p->nd, p->shape);
    p->t = p->x ? load_expanded(target, p->nd, p->shape) : NULL;
    if (!p->t) {
        pair_free(p);
        return -1;
    }
    return 0;
}

/* Reduces the n losses in l: none -> the broadcast shape; mean -> sum / n (nan for n == 0); sum. */
static wk_tensor *reduce_losses(const double *l, int nd, const int64_t *shape, int64_t n, int64_t reduction,
                                wk_dtype dtype) {
    if (reduction == WK_RED_NONE) {
        wk_tensor *w = wk__nn_work(nd, shape);
        if (!w) return NULL;
        if (n) memcpy(wk__nn_data(w), l, sizeof(double) * (size_t)n);
        return wk__nn_finish(w, dtype);
    }
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += l[i];
    if (reduction == WK_RED_MEAN) s /= (double)n;
    wk_tensor *w = wk__nn_work(0, NULL);
    if (!w) return NULL;
    wk__nn_data(w)[0] = s;
    return wk__nn_finish(w, dtype);
}

/* The upstream gradient as n doubles over the broadcast shape, times 1/n for mean. */
static double *load_grad(const wk_tensor *grad, const pair *p, int64_t reduction, double *scale) {
    *scale = reduction == WK_RED_MEAN ? 1.0 / (double)p->n : 1.0;
    return load_expanded(grad, p->nd, p->shape);
}

typedef enum { L_MSE, L_SMOOTH_L1, L_HUBER, L_SOFT_MARGIN } loss_kind;

static wk_tensor *pointwise_loss(const char *kernel, wk_tensor *self, wk_tensor *target, int64_t reduction,
                                 loss_kind kind, double beta) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    pair p;
    if (pair_load(kernel, self, target, &p) < 0) return NULL;
    double *l = wk__malloc(sizeof(double) * (size_t)(p.n ? p.n : 1)); /* [n] losses */
    wk_tensor *r = NULL;
    if (l) {
        for (int64_t i = 0; i < p.n; i++) {
            double d = p.x[i] - p.t[i], z = fabs(d);
            switch (kind) {
            case L_MSE: l[i] = d * d; break;
            case L_SMOOTH_L1: l[i] = z < beta ? 0.5 * z * z / beta : z - 0.5 * beta; break;
            case L_HUBER: l[i] = z < beta ? 0.5 * z * z : beta * (z - 0.5 * beta); break;
            case L_SOFT_MARGIN: l[i] = log1p(exp(-p.t[i] * p.x[i])); break;
            }
        }
        r = reduce_losses(l, p.nd, p.shape, p.n, reduction, p.dtype);
    }
    free(l);
    pair_free(&p);
    return r;
}

/* d loss / d self, times the upstream gradient */
static wk_tensor *pointwise_loss_backward(const char *kernel, wk_tensor *grad, wk_tensor *self, wk_tensor *target,
                                          int64_t reduction, loss_kind kind, double beta) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    pair p;
    if (pair_load(kernel, self, target, &p) < 0) return NULL;
    double scale;
    double *g = load_grad(grad, &p, reduction, &scale);
    wk_tensor *w = g ? wk__nn_work(p.nd, p.shape) : NULL;
    if (w) {
        double *o = wk__nn_data(w);
        for (int64_t i = 0; i < p.n; i++) {
            double d = p.x[i] - p.t[i], v = 0;
            switch (kind) {
            case L_MSE: v = 2 * d; break;
            case L_SMOOTH_L1: v = d <= -beta ? -1 : (d >= beta ? 1 : d / beta); break;
            case L_HUBER: v = d <= -beta ? -beta : (d >= beta ? beta : d); break;
            case L_SOFT_MARGIN: {
                double z = exp(-p.t[i] * p.x[i]);
                v = -p.t[i] * z / (1 + z);
                break;
            }
            }
            o[i] = v * scale * g[i];
        }
    }
    free(g);
    pair_free(&p);
    return wk__nn_finish(w, p.dtype);
}

wk_tensor *wk_impl_mse_loss(wk_tensor *self, wk_tensor *target, int64_t reduction) {
    return pointwise_loss("mse_cpu", self, target, reduction, L_MSE, 0);
}
wk_tensor *wk_impl_mse_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target, int64_t reduction) {
    return pointwise_loss_backward("mse_backward_cpu", grad_output, self, target, reduction, L_MSE, 0);
}
/* torch's composite: apply_loss_reduction((self - target).abs(), reduction); differentiable through its ops */
wk_tensor *wk_impl_l1_loss(wk_tensor *self, wk_tensor *target, int64_t reduction) {
    wk_cpool pool = {0};
    wk_tensor *loss = P_(wk_abs(P_(wk_sub(self, target, wk_int(1)))));
    wk_tensor *r = reduction == WK_RED_MEAN  ? P_(wk_mean(loss, WK_DTYPE_NONE))
                   : reduction == WK_RED_SUM ? P_(wk_sum(loss, WK_DTYPE_NONE))
                                             : loss;
    return wk_cpool_end(&pool, r);
}
/* d(mse_loss_backward)/d(self) applied to g: 2 * g (/ numel for mean) */
wk_tensor *wk_impl__nn_mse_double_backward(wk_tensor *grad, wk_tensor *self, int64_t reduction) {
    WK_UNUSED(self);
    int64_t n = wk__numel(grad);
    return wk_impl_mul_Scalar(grad, wk_float(reduction == WK_RED_MEAN ? 2.0 / (double)(n ? n : 1) : 2.0));
}

static int check_beta(double beta, const char *what) {
    if (beta < 0) {
        wk__error(WK_RUNTIME_ERROR, "%s does not support negative values for beta.", what);
        return -1;
    }
    return 0;
}
wk_tensor *wk_impl_smooth_l1_loss(wk_tensor *self, wk_tensor *target, int64_t reduction, double beta) {
    if (check_beta(beta, "smooth_l1_loss") < 0) return NULL;
    return pointwise_loss("smooth_l1_cpu", self, target, reduction, L_SMOOTH_L1, beta);
}
wk_tensor *wk_impl_smooth_l1_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                           int64_t reduction, double beta) {
    return pointwise_loss_backward("smooth_l1_backward_cpu_out", grad_output, self, target, reduction, L_SMOOTH_L1, beta);
}
wk_tensor *wk_impl_huber_loss(wk_tensor *self, wk_tensor *target, int64_t reduction, double delta) {
    if (!(delta > 0)) return WK_FAIL(WK_RUNTIME_ERROR, "huber_loss does not support non-positive values for delta.");
    return pointwise_loss("huber_cpu", self, target, reduction, L_HUBER, delta);
}
wk_tensor *wk_impl_huber_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target, int64_t reduction,
                                       double delta) {
    return pointwise_loss_backward("huber_backward_cpu_out", grad_output, self, target, reduction, L_HUBER, delta);
}
wk_tensor *wk_impl_soft_margin_loss(wk_tensor *self, wk_tensor *target, int64_t reduction) {
    if (wk__fits_in_place(self, target->ndim, target->sizes) < 0) return NULL; /* torch: neg(self).mul_(target)... */
    return pointwise_loss("soft_margin_loss", self, target, reduction, L_SOFT_MARGIN, 0);
}
wk_tensor *wk_impl_soft_margin_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                             int64_t reduction) {
    return pointwise_loss_backward("soft_margin_loss_backward", grad_output, self, target, reduction, L_SOFT_MARGIN, 0);
}

/* ---- binary cross entropy (probabilities) ---- */
static int bce_load(wk_tensor *self, wk_tensor *target, wk_tensor *weight, pair *p, double **w) {
    *w = NULL;
    if (target->dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Found dtype %s but expected %s", wk_dtype_scalar_name(target->dtype),
                  wk_dtype_scalar_name(self->dtype));
        return -1;
    }
    if (weight && wk__fits_in_place(self, weight->ndim, weight->sizes) < 0) return -1; /* torch: loss.mul_(weight) */
    if (pair_load("binary_cross_entropy", self, target, p) < 0) return -1;
    if (weight) {
        *w = load_expanded(weight, p->nd, p->shape);
        if (!*w) {
            pair_free(p);
            return -1;
        }
    }
    return 0;
}

wk_tensor *wk_impl_binary_cross_entropy(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    pair p;
    double *w;
    if (bce_load(self, target, weight, &p, &w) < 0) return NULL;
    double *l = wk__malloc(sizeof(double) * (size_t)(p.n ? p.n : 1));
    wk_tensor *r = NULL;
    if (l) {
        int64_t i = 0;
        for (; i < p.n; i++) {
            double x = p.x[i], t = p.t[i];
            if (!(x >= 0 && x <= 1)) break;
            l[i] = (t - 1) * fmax(log1p(-x), -100.0) - t * fmax(log(x), -100.0);
            if (w) l[i] *= w[i];
        }
        if (i < p.n) wk__error(WK_RUNTIME_ERROR, "all elements of input should be between 0 and 1");
        else r = reduce_losses(l, p.nd, p.shape, p.n, reduction, p.dtype);
    }
    free(l);
    free(w);
    pair_free(&p);
    return r;
}

/* grad_self = g * w * (x - t) / max((1 - x) * x, 1e-12) (/ n for mean) */
wk_tensor *wk_impl_binary_cross_entropy_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                                 wk_tensor *weight, int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    pair p;
    double *w, scale;
    if (bce_load(self, target, weight, &p, &w) < 0) return NULL;
    double *g = load_grad(grad_output, &p, reduction, &scale);
    wk_tensor *out = g ? wk__nn_work(p.nd, p.shape) : NULL;
    if (out) {
        double *o = wk__nn_data(out);
        for (int64_t i = 0; i < p.n; i++) {
            double x = p.x[i];
            o[i] = g[i] * scale * (x - p.t[i]) / fmax((1 - x) * x, 1e-12) * (w ? w[i] : 1);
        }
    }
    free(g);
    free(w);
    pair_free(&p);
    return wk__nn_finish(out, p.dtype);
}

/* grad_target = -logit(x) * g * w (/ n for mean) */
wk_tensor *wk_impl__nn_binary_cross_entropy_target_backward(wk_tensor *grad_output, wk_tensor *self,
                                                            wk_tensor *target, wk_tensor *weight, int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    pair p;
    double *w, scale;
    if (bce_load(self, target, weight, &p, &w) < 0) return NULL;
    double *g = load_grad(grad_output, &p, reduction, &scale);
    wk_tensor *out = g ? wk__nn_work(p.nd, p.shape) : NULL;
    if (out) {
        double *o = wk__nn_data(out);
        for (int64_t i = 0; i < p.n; i++) {
            double x = p.x[i];
            o[i] = -log(x / (1 - x)) * g[i] * scale * (w ? w[i] : 1);
        }
    }
    free(g);
    free(w);
    pair_free(&p);
    return wk__nn_finish(out, p.dtype);
}

/* ---- binary cross entropy with logits: (1 - t) x - (1 + (pw - 1) t) log_sigmoid(x), times weight ---- */
typedef struct {
    pair p;
    double *w, *pw; /* [n] or NULL */
} bcel;

static void bcel_free(bcel *b) {
    pair_free(&b->p);
    free(b->w);
    free(b->pw);
}

static int bcel_load(wk_tensor *self, wk_tensor *target, wk_tensor *weight, wk_tensor *pos_weight, bcel *b) {
    memset(b, 0, sizeof *b);
    pair *p = &b->p;
    p->dtype = wk__result_type2(self, target);
    if (!wk_dtype_is_floating(p->dtype)) {
        wk__not_implemented_for("binary_cross_entropy_with_logits", p->dtype);
        return -1;
    }
    if (pos_weight) { /* torch: log_sigmoid(self).mul_((pos_weight - 1).mul(target).add_(1)) */
        int nw;
        int64_t sw[WK_MAX_DIM];
        if (wk__broadcast_shapes(pos_weight->ndim, pos_weight->sizes, target->ndim, target->sizes, &nw, sw) < 0 ||
            wk__fits_in_place(self, nw, sw) < 0)
            return -1;
    }
    if (weight && wk__fits_in_place(self, weight->ndim, weight->sizes) < 0) return -1; /* then loss.mul_(weight) */
    int nd = self->ndim;
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)nd);
    const wk_tensor *extra[3] = {target, weight, pos_weight};
    for (int k = 0; k < 3; k++) {
        if (!extra[k]) continue;
        int n2;
        int64_t s2[WK_MAX_DIM];
        if (wk__broadcast_shapes(nd, shape, extra[k]->ndim, extra[k]->sizes, &n2, s2) < 0) return -1;
        nd = n2;
        memcpy(shape, s2, sizeof(int64_t) * (size_t)nd);
    }
    p->nd = nd;
    memcpy(p->shape, shape, sizeof(int64_t) * (size_t)nd);
    p->n = wk__prod(shape, nd);
    p->x = load_expanded(self, nd, shape);
    p->t = p->x ? load_expanded(target, nd, shape) : NULL;
    if (!p->t) goto fail;
    if (weight && !(b->w = load_expanded(weight, nd, shape))) goto fail;
    if (pos_weight && !(b->pw = load_expanded(pos_weight, nd, shape))) goto fail;
    return 0;
fail:
    bcel_free(b);
    return -1;
}

static inline double log_sigmoid_d(double x) { return (x < 0 ? x : 0) - log1p(exp(-fabs(x))); }

wk_tensor *wk_impl_binary_cross_entropy_with_logits(wk_tensor *self, wk_tensor *target, wk_tensor *weight,
                                                    wk_tensor *pos_weight, int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    bcel b;
    if (bcel_load(self, target, weight, pos_weight, &b) < 0) return NULL;
    pair *p = &b.p;
    double *l = wk__malloc(sizeof(double) * (size_t)(p->n ? p->n : 1));
    wk_tensor *r = NULL;
    if (l) {
        for (int64_t i = 0; i < p->n; i++) {
            double x = p->x[i], t = p->t[i], ls = log_sigmoid_d(x);
            if (b.pw) ls *= (b.pw[i] - 1) * t + 1;
            l[i] = (1 - t) * x - ls;
            if (b.w) l[i] *= b.w[i];
        }
        r = reduce_losses(l, p->nd, p->shape, p->n, reduction, p->dtype);
    }
    free(l);
    bcel_free(&b);
    return r;
}

/* which = 0: d/d self = ((pw t + 1 - t) sigmoid(x) - pw t) or (sigmoid(x) - t); 1: d/d target =
 * log_sigmoid(-x) - pw log_sigmoid(x) or -x; both times g * w (/ n for mean) */
static wk_tensor *bcel_backward(wk_tensor *grad, wk_tensor *self, wk_tensor *target, wk_tensor *weight,
                                wk_tensor *pos_weight, int64_t reduction, int which) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    bcel b;
    if (bcel_load(self, target, weight, pos_weight, &b) < 0) return NULL;
    pair *p = &b.p;
    double scale;
    double *g = load_grad(grad, p, reduction, &scale);
    wk_tensor *out = g ? wk__nn_work(p->nd, p->shape) : NULL;
    if (out) {
        double *o = wk__nn_data(out);
        for (int64_t i = 0; i < p->n; i++) {
            double x = p->x[i], t = p->t[i], v;
            if (which == 0) {
                double s = 1 / (1 + exp(-x));
                v = b.pw ? (b.pw[i] * t + 1 - t) * s - b.pw[i] * t : s - t;
            } else {
                v = b.pw ? log_sigmoid_d(-x) - b.pw[i] * log_sigmoid_d(x) : -x;
            }
            o[i] = v * g[i] * scale * (b.w ? b.w[i] : 1);
        }
    }
    free(g);
    wk_dtype dt = p->dtype;
    bcel_free(&b);
    return wk__nn_finish(out, dt);
}
wk_tensor *wk_impl__nn_bce_with_logits_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                                wk_tensor *weight, wk_tensor *pos_weight, int64_t reduction) {
    return bcel_backward(grad_output, self, target, weight, pos_weight, reduction, 0);
}
wk_tensor *wk_impl__nn_bce_with_logits_target_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                                       wk_tensor *weight, wk_tensor *pos_weight, int64_t reduction) {
    return bcel_backward(grad_output, self, target, weight, pos_weight, reduction, 1);
}

/* ---- nll_loss: class indices ----
 * Layout: self [N, C, S] (S spatial positions; 1 for the 1-D/2-D op), target [N, S]; a 1-D self is N = 1 with no
 * batch dim. weight [C] or NULL. */
typedef struct {
    int64_t N, C, S;
} nll_geom;

static int nll_target_dtype(const wk_tensor *target) {
    if (target->dtype == WK_INT64 || target->dtype == WK_UINT8) return 0;
    wk__error(WK_RUNTIME_ERROR, "expected target dtype to be Long or Byte, but got %s", wk_dtype_scalar_name(target->dtype));
    return -1;
}

static int nll_weight_check(const wk_tensor *self, const wk_tensor *weight, int64_t C) {
    if (weight && !(weight->ndim == 1 && wk__numel(weight) == C)) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, weight->sizes, weight->ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "weight tensor should be defined either for all %lld classes or no classes but got weight tensor of "
                  "shape: %s",
                  (long long)C, b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if (weight && weight->dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(self->dtype),
                  wk_dtype_scalar_name(weight->dtype));
        return -1;
    }
    return 0;
}

/* backward: torch's nll_loss_backward still wants a 1-D input's target 0-d (its forward takes a 1-D target of
 * one: F.cross_entropy(x, torch.tensor([2])).backward() raises 'size mismatch (got input: [4], target: [1])') */
static int nll_check(const wk_tensor *self, const wk_tensor *target, const wk_tensor *weight, bool two_d,
                     bool backward, nll_geom *g) {
    if (!two_d) {
        if (!(self->ndim > 0 && self->ndim <= 2)) {
            wk__error(WK_RUNTIME_ERROR, "input tensor should be 1D or 2D");
            return -1;
        }
        if (target->ndim > 1) {
            wk__error(WK_RUNTIME_ERROR, "0D or 1D target tensor expected, multi-target not supported");
            return -1;
        }
        if (!backward && nll_target_dtype(target) < 0) return -1;
        if (!backward && self->ndim == 1 && target->ndim == 1 && target->sizes[0] != 1) { /* one: no batch */
            wk__error(WK_VALUE_ERROR, "For 1D input, 1D target must have size 1, but got target size: %lld",
                      (long long)target->sizes[0]);
            return -1;
        }
        bool no_batch = self->ndim == 1 && (target->ndim == 0 || !backward);
        if (!(no_batch || self->sizes[0] == target->sizes[0])) {
            wk_strbuf a = {0}, b = {0};
            wk_sb_ints(&a, self->sizes, self->ndim);
            wk_sb_ints(&b, target->sizes, target->ndim);
            wk__error(WK_RUNTIME_ERROR, "size mismatch (got input: %s, target: %s)", a.s ? a.s : "", b.s ? b.s : "");
            wk_sb_free(&a);
            wk_sb_free(&b);
            return -1;
        }
        g->N = self->ndim == 1 ? 1 : self->sizes[0];
        g->C = self->sizes[self->ndim - 1];
        g->S = 1;
    } else {
        if (target->ndim != 3) {
            wk__error(WK_RUNTIME_ERROR,
                      "only batches of spatial targets supported (3D tensors) but got targets of dimension: %d",
                      target->ndim);
            return -1;
        }
        if (self->ndim != 4) {
            wk__error(WK_RUNTIME_ERROR,
                      "only batches of spatial inputs supported (4D tensors), but got input of dimension: %d", self->ndim);
            return -1;
        }
        if (nll_target_dtype(target) < 0) return -1;
        if (weight && !(weight->ndim == 1 && wk__numel(weight) == self->sizes[1])) {
            wk__error(WK_RUNTIME_ERROR, "weight tensor should be defined either for all or no classes");
            return -1;
        }
        if (self->sizes[0] != target->sizes[0] || self->sizes[2] != target->sizes[1] ||
            self->sizes[3] != target->sizes[2]) {
            wk_strbuf a = {0}, b = {0};
            wk_sb_ints(&a, target->sizes, target->ndim);
            wk_sb_ints(&b, self->sizes, self->ndim);
            wk__error(WK_RUNTIME_ERROR, "size mismatch (got input: %s , target: %s", b.s ? b.s : "", a.s ? a.s : "");
            wk_sb_free(&a);
            wk_sb_free(&b);
            return -1;
        }
        g->N = self->sizes[0];
        g->C = self->sizes[1];
        g->S = self->sizes[2] * self->sizes[3];
    }
    if (backward && !two_d && nll_target_dtype(target) < 0) return -1;
    if (nll_weight_check(self, weight, g->C) < 0) return -1;
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for(two_d ? "nll_loss2d_forward_out_frame" : "nll_loss_out_frame", self->dtype);
        return -1;
    }
    return 0;
}

static int nll_forward(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction, int64_t ignore_index,
                       bool two_d, wk_tensor **outs) {
    if (wk__nn_check_reduction(reduction) < 0) return -1;
    nll_geom g;
    if (nll_check(self, target, weight, two_d, false, &g) < 0) return -1;
    double *x = wk__nn_load(self), *w = weight ? wk__nn_load(weight) : NULL; /* x [N, C, S]; w [C] */
    int64_t *t = wk__nn_load_index(target);                                   /* [N, S] */
    double *l = wk__malloc(sizeof(double) * (size_t)(g.N * g.S > 0 ? g.N * g.S : 1)); /* [N, S] losses */
    int rc = -1;
    if (!x || !t || !l || (weight && !w)) goto done;
    double total = 0, sum = 0;
    for (int64_t i = 0; i < g.N; i++)
        for (int64_t s = 0; s < g.S; s++) {
            int64_t c = t[i * g.S + s];
            if (c == ignore_index) {
                l[i * g.S + s] = 0;
                continue;
            }
            if (c < 0 || c >= g.C) {
                wk__error(WK_INDEX_ERROR, "Target %lld is out of bounds.", (long long)c);
                goto done;
            }
            double wc = w ? w[c] : 1;
            l[i * g.S + s] = -wc * x[(i * g.C + c) * g.S + s];
            total += wc;
            sum += l[i * g.S + s];
        }
    wk_tensor *tw = wk__nn_work(0, NULL);
    if (!tw) goto done;
    wk__nn_data(tw)[0] = reduction == WK_RED_NONE ? 0 : total;
    outs[1] = wk__nn_finish(tw, self->dtype);
    if (!outs[1]) goto done;
    wk_tensor *ow;
    if (reduction == WK_RED_NONE) {
        if (two_d) ow = wk__nn_work(3, target->sizes);
        else ow = wk__nn_work(self->ndim == 1 ? 0 : 1, target->sizes);
        if (ow && g.N * g.S > 0) memcpy(wk__nn_data(ow), l, sizeof(double) * (size_t)(g.N * g.S));
        if (ow && !two_d && self->ndim == 1) wk__nn_data(ow)[0] = sum; /* torch: 0 - x * w (+0 where -x * w is -0) */
    } else {
        ow = wk__nn_work(0, NULL);
        if (ow) wk__nn_data(ow)[0] = reduction == WK_RED_MEAN ? sum / total : sum;
    }
    outs[0] = wk__nn_finish(ow, self->dtype);
    if (!outs[0]) {
        wk_release(outs[1]);
        outs[1] = NULL;
        goto done;
    }
    rc = 0;
done:
    free(x);
    free(w);
    free(t);
    free(l);
    return rc;
}

int wk_impl_nll_loss_forward(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                             int64_t ignore_index, wk_tensor **outs) {
    return nll_forward(self, target, weight, reduction, ignore_index, false, outs);
}
int wk_impl_nll_loss2d_forward(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                               int64_t ignore_index, wk_tensor **outs) {
    return nll_forward(self, target, weight, reduction, ignore_index, true, outs);
}

/* grad_input[i, t, s] = -w[t] * g[i, s] (/ total_weight for mean); zero elsewhere and at ignored targets */
static wk_tensor *nll_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target, wk_tensor *weight,
                               int64_t reduction, int64_t ignore_index, wk_tensor *total_weight, bool two_d) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    nll_geom g;
    if (nll_check(self, target, weight, two_d, true, &g) < 0) return NULL;
    double *go = wk__nn_load(grad_output), *w = weight ? wk__nn_load(weight) : NULL;
    int64_t *t = wk__nn_load_index(target);
    double tw = 1;
    wk_tensor *out = NULL;
    if (!go || !t || (weight && !w)) goto done;
    if (reduction != WK_RED_NONE && wk__numel(grad_output) != 1) {
        wk__error(WK_RUNTIME_ERROR, "Expected a single element grad_output tensor, but got: %lld",
                  (long long)wk__numel(grad_output));
        goto done;
    }
    if (reduction == WK_RED_NONE && wk__numel(grad_output) != g.N * g.S) {
        wk__error(WK_RUNTIME_ERROR, "grad_output has the wrong number of elements");
        goto done;
    }
    if (reduction == WK_RED_MEAN) {
        wk_scalar s;
        if (wk_item(total_weight, &s) < 0) goto done;
        tw = wk__scalar_to_double(s);
    }
    out = wk__nn_work(self->ndim, self->sizes);
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t i = 0; i < g.N; i++)
        for (int64_t s = 0; s < g.S; s++) {
            int64_t c = t[i * g.S + s];
            if (c == ignore_index) continue;
            if (c < 0 || c >= g.C) {
                wk__error(WK_INDEX_ERROR, "Target %lld is out of bounds.", (long long)c);
                wk_release(out);
                out = NULL;
                goto done;
            }
            double gv = reduction == WK_RED_NONE ? go[i * g.S + s] : go[0];
            o[(i * g.C + c) * g.S + s] = -(w ? w[c] : 1) * gv / (reduction == WK_RED_MEAN ? tw : 1);
        }
done:
    free(go);
    free(w);
    free(t);
    return wk__nn_finish(out, self->dtype);
}

wk_tensor *wk_impl_nll_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target, wk_tensor *weight,
                                     int64_t reduction, int64_t ignore_index, wk_tensor *total_weight) {
    return nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, false);
}
wk_tensor *wk_impl_nll_loss2d_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target, wk_tensor *weight,
                                       int64_t reduction, int64_t ignore_index, wk_tensor *total_weight) {
    return nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, true);
}

wk_tensor *wk_impl_nll_loss(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                            int64_t ignore_index) {
    wk_tensor *outs[2] = {0};
    if (wk_nll_loss_forward(self, target, weight, reduction, ignore_index, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}
wk_tensor *wk_impl_nll_loss2d(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                              int64_t ignore_index) {
    wk_tensor *outs[2] = {0};
    if (wk_nll_loss2d_forward(self, target, weight, reduction, ignore_index, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}

/* torch's nll_loss_nd: 1-D/2-D -> nll_loss; 4-D -> nll_loss2d; 3-D and 5-D+ are viewed as [N, C, 1, -1]. */
wk_tensor *wk_impl_nll_loss_nd(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                               int64_t ignore_index) {
    if (self->ndim < 1) {
        wk__error(WK_VALUE_ERROR, "Expected 1 or more dimensions (got %d)", self->ndim);
        return NULL;
    }
    if (self->ndim != 1 && (target->ndim == 0 || self->sizes[0] != target->sizes[0])) {
        wk__error(WK_VALUE_ERROR, "Expected input batch_size (%lld) to match target batch_size (%lld).",
                  (long long)self->sizes[0], (long long)(target->ndim ? target->sizes[0] : 1));
        return NULL;
    }
    if (self->ndim <= 2) return wk_nll_loss(self, target, weight, reduction, ignore_index);
    if (self->ndim == 4) return wk_nll_loss2d(self, target, weight, reduction, ignore_index);
    int64_t n = self->sizes[0], c = self->sizes[1];
    int64_t out_size[WK_MAX_DIM];
    int nout = self->ndim - 1;
    out_size[0] = n;
    memcpy(out_size + 1, self->sizes + 2, sizeof(int64_t) * (size_t)(self->ndim - 2));
    if (target->ndim != nout || memcmp(target->sizes + 1, self->sizes + 2, sizeof(int64_t) * (size_t)(nout - 1))) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, out_size, nout);
        wk_sb_ints(&b, target->sizes, target->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expected target size %s, got %s", a.s ? a.s : "", b.s ? b.s : "");
        wk_sb_free(&a);
        wk_sb_free(&b);
        return NULL;
    }
    wk_tensor *xi = wk_contiguous(self), *ti = xi ? wk_contiguous(target) : NULL, *x4 = NULL, *t3 = NULL, *r = NULL;
    if (!ti) goto done;
    int64_t xs[4] = {n, c, 1, -1}, ts[3] = {n, 1, -1};
    if (wk__numel(self) == 0) xs[2] = xs[3] = 0;
    if (wk__numel(target) == 0) ts[1] = ts[2] = 0;
    x4 = wk_view(xi, wk_ints(xs, 4));
    t3 = x4 ? wk_view(ti, wk_ints(ts, 3)) : NULL;
    if (!t3) goto done;
    r = wk_nll_loss2d(x4, t3, weight, reduction, ignore_index);
    if (r && reduction == WK_RED_NONE) {
        wk_tensor *v = wk_view(r, wk_ints(out_size, nout));
        wk_release(r);
        r = v;
    }
done:
    wk_release(xi);
    wk_release(ti);
    wk_release(x4);
    wk_release(t3);
    return r;
}

/* ---- cross entropy: the label-smoothing term ----
 * smooth[i, s] = -sum_c lp[i, c, s] * w[c] (0 where target == ignore_index); reduced: none -> target's shape,
 * sum, mean -> / (sum of w[target] over kept positions, or their count). */
static int smooth_geom(const wk_tensor *lp, nll_geom *g) {
    if (lp->ndim == 1) {
        g->N = 1, g->C = lp->sizes[0], g->S = 1;
    } else {
        g->N = lp->sizes[0], g->C = lp->sizes[1], g->S = wk__prod(lp->sizes + 2, lp->ndim - 2);
    }
    return 0;
}

static int smooth_common(wk_tensor *log_probs, wk_tensor *target, wk_tensor *weight, int64_t ignore_index,
                         nll_geom *g, double **x, double **w, int64_t **t, double *denom) {
    smooth_geom(log_probs, g);
    *x = wk__nn_load(log_probs);
    *w = weight ? wk__nn_load(weight) : NULL;
    *t = wk__nn_load_index(target);
    if (!*x || !*t || (weight && !*w)) return -1;
    if (wk__numel(target) != g->N * g->S) {
        wk__error(WK_RUNTIME_ERROR, "cross_entropy: target has the wrong number of elements");
        return -1;
    }
    double d = 0;
    for (int64_t i = 0; i < g->N * g->S; i++) {
        int64_t c = (*t)[i];
        if (c == ignore_index) continue;
        if (*w && (c < 0 || c >= g->C)) {
            wk__error(WK_INDEX_ERROR, "Target %lld is out of bounds.", (long long)c);
            return -1;
        }
        d += *w ? (*w)[c] : 1;
    }
    *denom = d;
    return 0;
}

wk_tensor *wk_impl__nn_ce_smooth_loss(wk_tensor *log_probs, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                                      int64_t ignore_index) {
    nll_geom g;
    double *x = NULL, *w = NULL, denom = 0;
    int64_t *t = NULL;
    wk_tensor *r = NULL;
    double *l = NULL;
    if (smooth_common(log_probs, target, weight, ignore_index, &g, &x, &w, &t, &denom) < 0) goto done;
    l = wk__malloc(sizeof(double) * (size_t)(g.N * g.S > 0 ? g.N * g.S : 1)); /* [N, S] */
    if (!l) goto done;
    double sum = 0;
    for (int64_t i = 0; i < g.N; i++)
        for (int64_t s = 0; s < g.S; s++) {
            double v = 0;
            if (t[i * g.S + s] != ignore_index)
                for (int64_t c = 0; c < g.C; c++) v -= x[(i * g.C + c) * g.S + s] * (w ? w[c] : 1);
            l[i * g.S + s] = v;
            sum += v;
        }
    if (reduction == WK_RED_NONE) {
        wk_tensor *o = wk__nn_work(target->ndim, target->sizes);
        if (o && g.N * g.S > 0) memcpy(wk__nn_data(o), l, sizeof(double) * (size_t)(g.N * g.S));
        r = wk__nn_finish(o, log_probs->dtype);
    } else {
        wk_tensor *o = wk__nn_work(0, NULL);
        if (o) wk__nn_data(o)[0] = reduction == WK_RED_MEAN ? sum / denom : sum;
        r = wk__nn_finish(o, log_probs->dtype);
    }
done:
    free(x);
    free(w);
    free(t);
    free(l);
    return r;
}

wk_tensor *wk_impl__nn_ce_smooth_loss_backward(wk_tensor *grad, wk_tensor *log_probs, wk_tensor *target,
                                               wk_tensor *weight, int64_t reduction, int64_t ignore_index) {
    nll_geom g;
    double *x = NULL, *w = NULL, denom = 0, *go = NULL;
    int64_t *t = NULL;
    wk_tensor *out = NULL;
    if (smooth_common(log_probs, target, weight, ignore_index, &g, &x, &w, &t, &denom) < 0) goto done;
    go = wk__nn_load(grad);
    if (!go) goto done;
    out = wk__nn_work(log_probs->ndim, log_probs->sizes);
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t i = 0; i < g.N; i++)
        for (int64_t s = 0; s < g.S; s++) {
            if (t[i * g.S + s] == ignore_index) continue;
            double gv = reduction == WK_RED_NONE ? go[i * g.S + s] : go[0] / (reduction == WK_RED_MEAN ? denom : 1);
            for (int64_t c = 0; c < g.C; c++) o[(i * g.C + c) * g.S + s] = -gv * (w ? w[c] : 1);
        }
done:
    free(x);
    free(w);
    free(t);
    free(go);
    return wk__nn_finish(out, log_probs->dtype);
}

/* weight viewed as [1, C, 1, ...] to broadcast over the class dim of an ndim-dimensional input */
static wk_tensor *class_view(wk_tensor *weight, int ndim, int class_dim) {
    if (ndim <= 1) return wk_retain(weight);
    int64_t shape[WK_MAX_DIM];
    for (int i = 0; i < ndim; i++) shape[i] = 1;
    shape[class_dim] = weight->sizes[0];
    return wk_view(weight, wk_ints(shape, ndim));
}

/* cross entropy with class probabilities (target has self's shape) */
static wk_tensor *ce_prob_target(wk_tensor *self, wk_tensor *target_, wk_tensor *weight, int64_t reduction,
                                 double label_smoothing) {
    int class_dim = self->ndim == 1 ? 0 : 1;
    int64_t n_classes = self->sizes[class_dim];
    if (weight && !(weight->ndim == 1 && wk__numel(weight) == n_classes)) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, weight->sizes, weight->ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "cross_entropy: weight tensor should be defined either for all %lld classes or no classes but got "
                  "weight tensor of shape: %s",
                  (long long)n_classes, b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    wk_tensor *input = wk_log_softmax_int(self, class_dim, self->dtype), *target = NULL, *prod = NULL, *wv = NULL;
    wk_tensor *r = NULL;
    if (!input) return NULL;
    if (label_smoothing > 0) {
        if (label_smoothing > 1.0) {
            wk__error(WK_RUNTIME_ERROR, "label_smoothing must be between 0.0 and 1.0. Got: %g", label_smoothing);
            goto done;
        }
        wk_tensor *a = wk_mul_Scalar(target_, wk_float(1 - label_smoothing));
        wk_tensor *b = a ? wk__wrap_scalar(wk_float(label_smoothing / (double)n_classes)) : NULL;
        target = b ? wk_add(a, b, wk_int(1)) : NULL;
        wk_release(a);
        wk_release(b);
    } else {
        target = wk_retain(target_);
    }
    if (!target) goto done;
    prod = wk_mul(input, target);
    if (prod && weight) {
        wv = class_view(weight, input->ndim, class_dim);
        wk_tensor *p2 = wv ? wk_mul(prod, wv) : NULL;
        wk_release(prod);
        prod = p2;
    }
    if (!prod) goto done;
    if (reduction == WK_RED_NONE) {
        int64_t d = class_dim;
        wk_tensor *s = wk_sum_dim(prod, wk_ints(&d, 1), false, WK_DTYPE_NONE);
        r = s ? wk_neg(s) : NULL;
        wk_release(s);
    } else {
        wk_tensor *s = wk_sum(prod, WK_DTYPE_NONE);
        bool empty_mean = reduction == WK_RED_MEAN && wk__numel(input) == 0; /* torch: -(prod).sum().fill_(NAN) */
        wk_tensor *f = s && empty_mean ? wk_fill_Scalar_(s, wk_float(NAN)) : NULL;
        wk_tensor *ns = s && (f || !empty_mean) ? wk_neg(s) : NULL;
        wk_release(f);
        wk_release(s);
        if (ns && reduction == WK_RED_MEAN && !empty_mean) {
            r = wk_div_Scalar(ns, wk_int(wk__numel(input) / n_classes));
            wk_release(ns);
        } else {
            r = ns;
        }
    }
done:
    wk_release(input);
    wk_release(target);
    wk_release(prod);
    wk_release(wv);
    return r;
}

wk_tensor *wk_impl_cross_entropy_loss(wk_tensor *self, wk_tensor *target, wk_tensor *weight, int64_t reduction,
                                      int64_t ignore_index, double label_smoothing) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    if (self->ndim == target->ndim && !memcmp(self->sizes, target->sizes, sizeof(int64_t) * (size_t)self->ndim)) {
        if (!wk_dtype_is_floating(target->dtype)) {
            wk__error(WK_RUNTIME_ERROR, "Expected floating point type for target with class probabilities, got %s",
                      wk_dtype_scalar_name(target->dtype));
            return NULL;
        }
        if (ignore_index >= 0) return WK_FAIL(WK_RUNTIME_ERROR, "ignore_index is not supported for floating point target");
        if (self->ndim == 0) return WK_FAIL(WK_INDEX_ERROR, "Dimension specified as 0 but tensor has no dimensions");
        return ce_prob_target(self, target, weight, reduction, label_smoothing);
    }
    if (self->ndim == 0) {
        wk__error(WK_INDEX_ERROR, "Dimension specified as 1 but tensor has no dimensions");
        return NULL;
    }
    int class_dim = self->ndim == 1 ? 0 : 1;
    if (label_smoothing > 0) {
        if (label_smoothing > 1.0) {
            wk__error(WK_RUNTIME_ERROR, "label_smoothing must be between 0.0 and 1.0. Got: %g", label_smoothing);
            return NULL;
        }
        wk_tensor *input = wk_log_softmax_int(self, class_dim, self->dtype);
        wk_tensor *nll = input ? wk_nll_loss_nd(input, target, weight, reduction, ignore_index) : NULL;
        wk_tensor *sm = nll ? wk__nn_ce_smooth_loss(input, target, weight, reduction, ignore_index) : NULL;
        wk_tensor *a = sm ? wk_mul_Scalar(nll, wk_float(1 - label_smoothing)) : NULL;
        wk_tensor *b = a ? wk_mul_Scalar(sm, wk_float(label_smoothing / (double)input->sizes[class_dim])) : NULL;
        wk_tensor *r = b ? wk_add(a, b, wk_int(1)) : NULL;
        wk_release(input);
        wk_release(nll);
        wk_release(sm);
        wk_release(a);
        wk_release(b);
        return r;
    }
    wk_tensor *input = wk_log_softmax_int(self, class_dim, self->dtype);
    if (!input) return NULL;
    wk_tensor *r = wk_nll_loss_nd(input, target, weight, reduction, ignore_index);
    wk_release(input);
    return r;
}

/* ---- multi_margin_loss: per sample i with target y, sum over d != y of max(0, margin - x[y] + x[d])^p * w[y] / C ----
 * input [N, C] or [C] (or 0-d), target [N] or 0-d/[1]. */
typedef struct {
    int64_t N, C;
} mm_geom;

static int mm_check(const wk_tensor *self, const wk_tensor *target, const wk_tensor *weight, mm_geom *g) {
    int nd = self->ndim;
    if (!((wk__numel(self) > 0 && nd <= 2) || (nd == 2 && self->sizes[0] == 0 && self->sizes[1] > 0))) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, nd);
        wk__error(WK_RUNTIME_ERROR, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    g->N = nd <= 1 ? 1 : self->sizes[0];
    g->C = nd == 0 ? 1 : self->sizes[nd - 1];
    if (!(target->ndim <= 1 && wk__numel(target) == g->N)) {
        wk_strbuf b = {0}, c = {0};
        wk_sb_ints(&b, target->sizes, target->ndim);
        wk_sb_ints(&c, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
                  "(batch size). Expected target size [%lld], but got %s. Input has shape %s.",
                  (long long)g->N, b.s ? b.s : "", c.s ? c.s : "");
        wk_sb_free(&b);
        wk_sb_free(&c);
        return -1;
    }
    if (weight && !(weight->ndim <= 1 && wk__numel(weight) == g->C)) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, weight->sizes, weight->ndim);
        wk__error(WK_RUNTIME_ERROR, "inconsistent weight size, expected %lld but got %s", (long long)g->C, b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for("multi_margin_loss_cpu_kernel", self->dtype);
        return -1;
    }
    if (target->dtype != WK_INT64) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type Long but found %s", wk_dtype_scalar_name(target->dtype));
        return -1;
    }
    return 0;
}

/* grad_output == NULL: forward (losses per sample into out [N]); else grad_input into out [N, C] */
static int mm_run(const wk_tensor *self, const wk_tensor *target, const wk_tensor *weight, double p, double margin,
                  const mm_geom *g, const double *go, int64_t reduction, double *out) {
    double *x = wk__nn_load(self), *w = weight ? wk__nn_load(weight) : NULL;
    int64_t *t = wk__nn_load_index(target);
    int rc = -1;
    if (!x || !t || (weight && !w)) goto done;
    for (int64_t i = 0; i < g->N; i++) {
        int64_t y = t[i];
        if (y < 0 || y >= g->C) {
            wk__error(WK_RUNTIME_ERROR, "target out of range");
            goto done;
        }
        const double *xi = x + i * g->C;
        double sum = 0, gv = 0;
        if (go) gv = (reduction == WK_RED_NONE ? go[i] : go[0]) / (reduction == WK_RED_MEAN ? (double)g->N : 1.0);
        for (int64_t d = 0; d < g->C; d++) {
            if (d == y) continue;
            double z = margin - xi[y] + xi[d];
            if (z <= 0) continue;
            double wy = w ? w[y] : 1;
            if (!go) sum += (p == 1 ? z : z * z) * wy;
            else {
                double h = (p == 1 ? 1 : 2 * z) * wy / (double)g->C * gv;
                out[i * g->C + y] -= h;
                out[i * g->C + d] += h;
            }
        }
        if (!go) out[i] = sum / (double)g->C;
    }
    rc = 0;
done:
    free(x), free(w), free(t);
    return rc;
}

wk_tensor *wk_impl_multi_margin_loss(wk_tensor *self, wk_tensor *target, wk_scalar p, wk_scalar margin,
                                     wk_tensor *weight, int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    double pv = wk__scalar_to_double(p);
    if (pv != 1 && pv != 2) return WK_FAIL(WK_RUNTIME_ERROR, "only p == 1 and p == 2 supported");
    mm_geom g;
    if (mm_check(self, target, weight, &g) < 0) return NULL;
    double *l = wk__calloc((size_t)(g.N ? g.N : 1), sizeof(double));
    if (!l) return NULL;
    wk_tensor *r = NULL;
    if (mm_run(self, target, weight, pv, wk__scalar_to_double(margin), &g, NULL, reduction, l) == 0) {
        int64_t n1[1] = {g.N};
        if (reduction == WK_RED_NONE && target->ndim > 0) r = reduce_losses(l, 1, n1, g.N, WK_RED_NONE, self->dtype);
        else if (reduction == WK_RED_NONE) r = reduce_losses(l, 0, n1, 1, WK_RED_NONE, self->dtype);
        else r = reduce_losses(l, 1, n1, g.N, reduction, self->dtype);
    }
    free(l);
    return r;
}

wk_tensor *wk_impl_multi_margin_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                              wk_scalar p, wk_scalar margin, wk_tensor *weight, int64_t reduction) {
    mm_geom g;
    if (mm_check(self, target, weight, &g) < 0) return NULL;
    wk_tensor *w = wk__nn_work(self->ndim, self->sizes);
    double *go = w ? wk__nn_load(grad_output) : NULL;
    int rc = go ? mm_run(self, target, weight, wk__scalar_to_double(p), wk__scalar_to_double(margin), &g, go, reduction,
                         wk__nn_data(w))
                : -1;
    free(go);
    if (rc < 0) {
        wk_release(w);
        return NULL;
    }
    return wk__nn_finish(w, self->dtype);
}

/* ---- multilabel_margin_loss: per sample, sum over target labels j (up to the first -1) and non-targets d of
 * max(0, 1 - x[j] + x[d]) / C. is_target [like target] marks the labels. */
static int mlm_check(const wk_tensor *self, const wk_tensor *target, mm_geom *g) {
    int nd = self->ndim;
    if (!((nd == 2 && self->sizes[1] != 0) || (nd == 1 && self->sizes[0] != 0) || nd == 0)) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, nd);
        wk__error(WK_RUNTIME_ERROR, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    bool ok;
    if (nd <= 1) {
        g->N = 1;
        g->C = nd == 0 ? 1 : self->sizes[0];
        ok = target->ndim <= 1 && wk__numel(target) == g->C;
    } else {
        g->N = self->sizes[0];
        g->C = self->sizes[1];
        ok = target->ndim == 2 && target->sizes[0] == g->N && target->sizes[1] == g->C;
    }
    if (!ok) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, target->sizes, target->ndim);
        wk_sb_ints(&b, self->sizes, nd);
        wk__error(WK_RUNTIME_ERROR, "inconsistent target size: %s for input of size: %s", a.s ? a.s : "", b.s ? b.s : "");
        wk_sb_free(&a);
        wk_sb_free(&b);
        return -1;
    }
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for("multilabel_margin_loss_forward_out_frame", self->dtype);
        return -1;
    }
    if (target->dtype != WK_INT64) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type Long but found %s", wk_dtype_scalar_name(target->dtype));
        return -1;
    }
    return 0;
}

static int mlm_run(const wk_tensor *self, const wk_tensor *target, const mm_geom *g, const double *go,
                   int64_t reduction, double *out, double *is_t) {
    double *x = wk__nn_load(self);
    int64_t *t = wk__nn_load_index(target);
    int rc = -1;
    if (!x || !t) goto done;
    for (int64_t i = 0; i < g->N; i++) {
        const int64_t *ti = t + i * g->C;
        double *it = is_t + i * g->C, sum = 0;
        const double *xi = x + i * g->C;
        for (int64_t k = 0; k < g->C; k++) it[k] = 0;
        for (int64_t k = 0; k < g->C && ti[k] >= 0; k++) {
            if (ti[k] >= g->C) {
                wk__error(WK_RUNTIME_ERROR, "target out of range");
                goto done;
            }
            it[ti[k]] = 1;
        }
        double gv = 0;
        if (go) gv = (reduction == WK_RED_NONE ? go[i] : go[0]) / (reduction == WK_RED_MEAN ? (double)g->N : 1.0) / (double)g->C;
        for (int64_t k = 0; k < g->C && ti[k] >= 0; k++) {
            int64_t j = ti[k];
            for (int64_t d = 0; d < g->C; d++) {
                if (it[d] != 0) continue;
                double z = 1 - xi[j] + xi[d];
                if (z <= 0) continue;
                if (!go) sum += z;
                else {
                    out[i * g->C + j] -= gv;
                    out[i * g->C + d] += gv;
                }
            }
        }
        if (!go) out[i] = sum / (double)g->C;
    }
    rc = 0;
done:
    free(x), free(t);
    return rc;
}

int wk_impl_multilabel_margin_loss_forward(wk_tensor *self, wk_tensor *target, int64_t reduction, wk_tensor **outs) {
    if (wk__nn_check_reduction(reduction) < 0) return -1;
    mm_geom g;
    if (mlm_check(self, target, &g) < 0) return -1;
    double *l = wk__calloc((size_t)(g.N ? g.N : 1), sizeof(double));
    wk_tensor *it = wk__nn_work(target->ndim, target->sizes);
    int rc = -1;
    if (l && it && mlm_run(self, target, &g, NULL, reduction, l, wk__nn_data(it)) == 0) {
        int64_t n1[1] = {g.N};
        if (reduction == WK_RED_NONE && target->ndim > 1) outs[0] = reduce_losses(l, 1, n1, g.N, WK_RED_NONE, self->dtype);
        else if (reduction == WK_RED_NONE) outs[0] = reduce_losses(l, 0, n1, 1, WK_RED_NONE, self->dtype);
        else outs[0] = reduce_losses(l, 1, n1, g.N, reduction, self->dtype);
        outs[1] = outs[0] ? wk__nn_finish(it, self->dtype) : NULL;
        it = NULL;
        if (outs[0] && outs[1]) rc = 0;
        else {
            wk_release(outs[0]);
            wk_release(outs[1]);
            outs[0] = outs[1] = NULL;
        }
    }
    wk_release(it);
    free(l);
    return rc;
}

wk_tensor *wk_impl_multilabel_margin_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                                   int64_t reduction, wk_tensor *is_target) {
    WK_UNUSED(is_target);
    mm_geom g;
    if (mlm_check(self, target, &g) < 0) return NULL;
    wk_tensor *w = wk__nn_work(self->ndim, self->sizes);
    double *go = w ? wk__nn_load(grad_output) : NULL;
    double *it = go ? wk__calloc((size_t)(g.N * g.C > 0 ? g.N * g.C : 1), sizeof(double)) : NULL;
    int rc = it ? mlm_run(self, target, &g, go, reduction, wk__nn_data(w), it) : -1;
    free(go), free(it);
    if (rc < 0) {
        wk_release(w);
        return NULL;
    }
    return wk__nn_finish(w, self->dtype);
}

wk_tensor *wk_impl_multilabel_margin_loss(wk_tensor *self, wk_tensor *target, int64_t reduction) {
    wk_tensor *outs[2] = {0};
    if (wk_multilabel_margin_loss_forward(self, target, reduction, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}
