/* nn_attention.c — scaled dot-product attention: torch's CPU flash kernel (_scaled_dot_product_flash_attention_for_cpu,
 * exact softmax with a log-sum-exp per query row) and its backward, and _safe_softmax (a softmax whose fully masked
 * rows give 0, used by the math path in wick/nn/functional.py).
 * Shapes: query [B..., L, E], key [B..., S, E], value [B..., S, Ev]; output [B..., L, Ev], logsumexp [B..., L].
 * attn_mask broadcasts to [B..., L, S]: bool (False masks out) or float (added); is_causal keeps j <= i. */
#include "ops/nn.h"

typedef struct {
    int nd;
    int64_t B, L, S, E, Ev;
    double scale;
} sdpa_geom;

static int sdpa_check(const wk_tensor *q, const wk_tensor *k, const wk_tensor *v, const wk_tensor *mask, bool is_causal,
                      wk_optfloat scale, sdpa_geom *g) {
    WK_UNUSED(mask), WK_UNUSED(is_causal); /* with both, the flash kernel applies both (torch does not refuse) */
    if (q->dtype != k->dtype || q->dtype != v->dtype) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected query, key, and value to have the same dtype, but got query.dtype: %s key.dtype: %s and "
                  "value.dtype: %s instead.",
                  wk__cpp_type_name(q->dtype), wk__cpp_type_name(k->dtype), wk__cpp_type_name(v->dtype));
        return -1;
    }
    if (q->ndim < 2 || k->ndim != q->ndim || v->ndim != q->ndim)
        return wk__error(WK_RUNTIME_ERROR, "scaled_dot_product_attention: query, key and value must have the same rank"), -1;
    int nd = q->ndim;
    g->nd = nd;
    g->L = q->sizes[nd - 2], g->E = q->sizes[nd - 1], g->S = k->sizes[nd - 2], g->Ev = v->sizes[nd - 1];
    if (k->sizes[nd - 1] != g->E || v->sizes[nd - 2] != g->S || memcmp(q->sizes, k->sizes, sizeof(int64_t) * (size_t)(nd - 2)) ||
        memcmp(q->sizes, v->sizes, sizeof(int64_t) * (size_t)(nd - 2)))
        return wk__error(WK_RUNTIME_ERROR, "scaled_dot_product_attention: inconsistent query, key and value shapes"), -1;
    if (!wk_dtype_is_floating(q->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type Float but found %s", wk_dtype_scalar_name(q->dtype));
        return -1;
    }
    g->B = wk__prod(q->sizes, nd - 2);
    g->scale = scale.has ? scale.v : 1.0 / sqrt((double)g->E);
    return 0;
}

/* the additive mask [B, L, S] as doubles (0 or -inf for bool masks, the values for float masks), or NULL */
static double *load_mask(const wk_tensor *mask, const sdpa_geom *g, const wk_tensor *q) {
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, q->sizes, sizeof(int64_t) * (size_t)(g->nd - 2));
    shape[g->nd - 2] = g->L;
    shape[g->nd - 1] = g->S;
    wk_tensor *e = wk__expand_to(mask, g->nd, shape);
    if (!e) return NULL;
    double *m = wk__nn_load(e);
    wk_release(e);
    if (m && mask->dtype == WK_BOOL)
        for (int64_t i = 0; i < g->B * g->L * g->S; i++) m[i] = m[i] != 0 ? 0 : -INFINITY;
    return m;
}

/* probabilities P [B, L, S] (rows of -inf scores give 0) and lse [B, L] */
static int sdpa_probs(const sdpa_geom *g, const double *q, const double *k, const double *m, bool is_causal, double *P,
                      double *lse) {
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t i = 0; i < g->L; i++) {
            double *row = P + (b * g->L + i) * g->S, mx = -INFINITY;
            const double *qi = q + (b * g->L + i) * g->E;
            for (int64_t j = 0; j < g->S; j++) {
                const double *kj = k + (b * g->S + j) * g->E;
                double s = 0;
                for (int64_t e = 0; e < g->E; e++) s += qi[e] * kj[e];
                s *= g->scale;
                if (m) s += m[(b * g->L + i) * g->S + j];
                if (is_causal && j > i) s = -INFINITY;
                row[j] = s;
                if (s > mx) mx = s;
            }
            if (isinf(mx) && mx < 0) {
                for (int64_t j = 0; j < g->S; j++) row[j] = 0;
                lse[b * g->L + i] = -INFINITY;
                continue;
            }
            double sum = 0;
            for (int64_t j = 0; j < g->S; j++) sum += exp(row[j] - mx);
            double l = mx + log(sum);
            lse[b * g->L + i] = l;
            for (int64_t j = 0; j < g->S; j++) row[j] = exp(row[j] - l);
        }
    return 0;
}

int wk_impl__scaled_dot_product_flash_attention_for_cpu(wk_tensor *query, wk_tensor *key, wk_tensor *value,
                                                        double dropout_p, bool is_causal, wk_tensor *attn_mask,
                                                        wk_optfloat scale, wk_tensor **outs) {
    sdpa_geom g;
    if (sdpa_check(query, key, value, attn_mask, is_causal, scale, &g) < 0) return -1;
    if (dropout_p > 0)
        return wk__error(WK_NOT_IMPLEMENTED_ERROR, "wick: the flash attention kernel does not draw dropout masks (use the math path)"), -1;
    double *q = wk__nn_load(query), *k = wk__nn_load(key), *v = wk__nn_load(value);
    double *m = attn_mask ? load_mask(attn_mask, &g, query) : NULL;
    double *P = wk__malloc(sizeof(double) * (size_t)(g.B * g.L * g.S > 0 ? g.B * g.L * g.S : 1)); /* [B, L, S] */
    int64_t os[WK_MAX_DIM];
    memcpy(os, query->sizes, sizeof(int64_t) * (size_t)g.nd);
    os[g.nd - 1] = g.Ev;
    wk_tensor *out = wk__nn_work(g.nd, os), *lt = wk__nn_work(g.nd - 1, query->sizes);
    int rc = -1;
    if (!q || !k || !v || !P || !out || !lt || (attn_mask && !m)) goto done;
    double *lse = wk__nn_data(lt), *o = wk__nn_data(out);
    sdpa_probs(&g, q, k, m, is_causal, P, lse);
    for (int64_t b = 0; b < g.B; b++)
        for (int64_t i = 0; i < g.L; i++) {
            const double *row = P + (b * g.L + i) * g.S;
            double *oi = o + (b * g.L + i) * g.Ev;
            for (int64_t j = 0; j < g.S; j++) {
                const double *vj = v + (b * g.S + j) * g.Ev;
                for (int64_t e = 0; e < g.Ev; e++) oi[e] += row[j] * vj[e];
            }
        }
    outs[0] = wk__nn_finish(out, query->dtype);
    outs[1] = wk__nn_finish(lt, query->dtype == WK_FLOAT64 ? WK_FLOAT64 : WK_FLOAT32);
    out = lt = NULL;
    if (outs[0] && outs[1]) rc = 0;
    else {
        wk_release(outs[0]), wk_release(outs[1]);
        outs[0] = outs[1] = NULL;
    }
done:
    wk_release(out), wk_release(lt);
    free(q), free(k), free(v), free(m), free(P);
    return rc;
}

/* which: 0 grad_query, 1 grad_key, 2 grad_value. dS = P * (dP - rowsum(P * dP)), dP = dO v^T */
wk_tensor *wk_impl__nn_sdpa_backward(wk_tensor *grad_out, wk_tensor *query, wk_tensor *key, wk_tensor *value,
                                     bool is_causal, wk_tensor *attn_mask, wk_optfloat scale, int64_t which) {
    sdpa_geom g;
    if (sdpa_check(query, key, value, attn_mask, is_causal, scale, &g) < 0) return NULL;
    double *q = wk__nn_load(query), *k = wk__nn_load(key), *v = wk__nn_load(value), *dO = wk__nn_load(grad_out);
    double *m = attn_mask ? load_mask(attn_mask, &g, query) : NULL;
    int64_t n = g.B * g.L * g.S > 0 ? g.B * g.L * g.S : 1;
    double *P = wk__malloc(sizeof(double) * (size_t)n), *dS = wk__malloc(sizeof(double) * (size_t)n); /* [B, L, S] */
    double *lse = wk__malloc(sizeof(double) * (size_t)(g.B * g.L > 0 ? g.B * g.L : 1));              /* [B, L] */
    const wk_tensor *like = which == 0 ? query : which == 1 ? key : value;
    wk_tensor *out = wk__nn_work(like->ndim, like->sizes);
    if (!q || !k || !v || !dO || !P || !dS || !lse || !out || (attn_mask && !m)) {
        wk_release(out);
        out = NULL;
        goto done;
    }
    sdpa_probs(&g, q, k, m, is_causal, P, lse);
    double *o = wk__nn_data(out);
    for (int64_t b = 0; b < g.B; b++)
        for (int64_t i = 0; i < g.L; i++) {
            const double *row = P + (b * g.L + i) * g.S, *doi = dO + (b * g.L + i) * g.Ev;
            double *ds = dS + (b * g.L + i) * g.S, dot = 0;
            for (int64_t j = 0; j < g.S; j++) {
                const double *vj = v + (b * g.S + j) * g.Ev;
                double dp = 0;
                for (int64_t e = 0; e < g.Ev; e++) dp += doi[e] * vj[e];
                ds[j] = dp;
                dot += row[j] * dp;
            }
            for (int64_t j = 0; j < g.S; j++) ds[j] = row[j] * (ds[j] - dot);
            for (int64_t j = 0; j < g.S; j++) {
                if (which == 0) {
                    const double *kj = k + (b * g.S + j) * g.E;
                    for (int64_t e = 0; e < g.E; e++) o[(b * g.L + i) * g.E + e] += g.scale * ds[j] * kj[e];
                } else if (which == 1) {
                    const double *qi = q + (b * g.L + i) * g.E;
                    for (int64_t e = 0; e < g.E; e++) o[(b * g.S + j) * g.E + e] += g.scale * ds[j] * qi[e];
                } else {
                    for (int64_t e = 0; e < g.Ev; e++) o[(b * g.S + j) * g.Ev + e] += row[j] * doi[e];
                }
            }
        }
done:
    free(q), free(k), free(v), free(dO), free(m), free(P), free(dS), free(lse);
    return wk__nn_finish(out, like->dtype);
}

/* softmax over dim whose rows of all -inf give 0 instead of nan */
wk_tensor *wk_impl__safe_softmax(wk_tensor *self, int64_t dim, wk_dtype dtype) {
    wk_tensor *x = dtype != WK_DTYPE_NONE ? wk__to_dtype(self, dtype) : wk_retain(self);
    if (!x) return NULL;
    wk_tensor *r = wk_impl__softmax(x, dim, false);
    if (r) {
        int64_t d;
        if (wk__wrap_dim(dim, x->ndim, &d) < 0) {
            wk_release(r);
            wk_release(x);
            return NULL;
        }
        int64_t outer = x->ndim ? wk__prod(x->sizes, (int)d) : 1, nn = x->ndim ? x->sizes[d] : 1;
        int64_t inner = x->ndim ? wk__prod(x->sizes + d + 1, x->ndim - (int)d - 1) : 1;
        double *xv = wk__nn_load(x);
        wk_tensor *w = xv ? wk__nn_work(r->ndim, r->sizes) : NULL;
        double *rv = w ? wk__nn_load(r) : NULL;
        if (rv) {
            for (int64_t a = 0; a < outer; a++)
                for (int64_t c = 0; c < inner; c++) {
                    bool all = true;
                    for (int64_t j = 0; j < nn && all; j++) {
                        double v = xv[(a * nn + j) * inner + c];
                        all = isinf(v) && v < 0;
                    }
                    if (all)
                        for (int64_t j = 0; j < nn; j++) rv[(a * nn + j) * inner + c] = 0;
                }
            if (wk__numel(r) > 0) memcpy(wk__nn_data(w), rv, sizeof(double) * (size_t)wk__numel(r));
            wk_tensor *fin = wk__nn_finish(w, r->dtype);
            wk_release(r);
            r = fin;
        } else {
            wk_release(w);
            wk_release(r);
            r = NULL;
        }
        free(xv);
        free(rv);
    }
    wk_release(x);
    return r;
}
