/* autograd.c — grad mode, nodes, saved tensors, hooks, in-place bookkeeping and the backward engine. */
#include "autograd/autograd.h"
#include "core/host.h"
#include "ops/index.h"

#include <stdio.h>

/* ---- grad mode ---- */
static WK_TLS bool grad_disabled = false; /* stored negated so zero-initialised TLS means "enabled" */
static WK_TLS bool inference_mode = false;
/* whether ops record history: grad mode on and not in inference mode (torch's enable_grad() inside
 * inference_mode() reports grad mode on but records nothing) */
bool wk__grad_enabled(void) { return !grad_disabled && !inference_mode; }
bool wk_is_grad_enabled(void) { return !grad_disabled; }
bool wk_set_grad_enabled(bool enabled) {
    bool prev = !grad_disabled;
    grad_disabled = !enabled;
    return prev;
}
bool wk__inference_mode(void) { return inference_mode; }
bool wk_is_inference_mode_enabled(void) { return inference_mode; }
bool wk_set_inference_mode(bool enabled) {
    bool prev = inference_mode;
    inference_mode = enabled;
    return prev;
}

static uint64_t next_seq_nr = 0;

/* ---- nodes ----
 * Releasing a node can release saved tensors, whose grad_fns release further nodes: on a long graph (an RNN
 * over thousands of steps) recursion would overflow the C stack. Releases are therefore queued and drained by
 * the outermost call. */
static WK_TLS wk_node **pending = NULL;
static WK_TLS size_t npending = 0, cap_pending = 0;
static WK_TLS bool draining = false;

static void node_destroy(wk_node *n) {
    if (n->vt->release_saved) n->vt->release_saved(n);
    if (n->vt->destroy) n->vt->destroy(n);
    for (uint32_t i = 0; i < n->num_next; i++) {
        if (n->next[i].fn) wk__node_release(n->next[i].fn);
        free(n->meta[i].sizes);
    }
    free(n->next);
    free(n->meta);
    for (int pass = 0; pass < 2; pass++) {
        wk_hook *h = pass ? n->post_hooks : n->pre_hooks;
        while (h) {
            wk_hook *nx = h->next;
            if (h->retain_target) h->retain_target->retains_grad = false;
            if (h->free_ctx) h->free_ctx(h->ctx);
            free(h);
            h = nx;
        }
    }
    if (n->leaf) {
        if (n->leaf->grad_acc == n) n->leaf->grad_acc = NULL;
        wk_release(n->leaf);
    }
    free(n);
}

void wk__node_release(wk_node *n) {
    if (!n || --n->refcount > 0) return;
    if (npending == cap_pending) {
        size_t cap = cap_pending ? cap_pending * 2 : 64;
        wk_node **p = realloc(pending, cap * sizeof *p);
        if (!p) { /* cannot queue: destroy now (recursion only in this out-of-memory corner) */
            node_destroy(n);
            return;
        }
        pending = p;
        cap_pending = cap;
    }
    pending[npending++] = n;
    if (draining) return;
    draining = true;
    while (npending) node_destroy(pending[--npending]);
    draining = false;
}

wk_node *wk__node_retain(wk_node *n) {
    if (n) n->refcount++;
    return n;
}
void wk_node_retain(wk_node *n) { wk__node_retain(n); }
void wk_node_release(wk_node *n) { wk__node_release(n); }

wk_node *wk__node_new(const wk_node_vtable *vt, size_t size, uint32_t num_inputs, uint32_t num_next) {
    wk_node *n = wk__calloc(1, size);
    if (!n) return NULL;
    n->refcount = 1;
    n->vt = vt;
    n->seq_nr = next_seq_nr++;
    n->num_inputs = num_inputs;
    n->num_next = num_next;
    if (num_next) {
        n->next = wk__calloc(num_next, sizeof *n->next);
        n->meta = wk__calloc(num_next, sizeof *n->meta);
        if (!n->next || !n->meta) {
            free(n->next);
            free(n->meta);
            free(n);
            return NULL;
        }
    }
    return n;
}

static wk_tensor *accumulate_grad_leaf(wk_tensor *leaf, wk_tensor *grad, int64_t expected_refs);

static wk_tensor *run_tensor_hooks(wk_hook *h, int slot, wk_tensor *grad);
/* The engine hands the incoming gradient over (torch moves it into AccumulateGrad), so the leaf can keep the buffer
 * instead of copying it; with post hooks the engine keeps its reference for them, as torch keeps a copy. */
/* called after a leaf with post_acc_hooks set has accumulated its .grad (a front sets it): 0 or -1 */
static int (*post_accumulate_grad_cb)(wk_tensor *leaf) = NULL;

static int accumulate_apply(wk_node *n, wk_tensor **gi, wk_tensor **go) {
    WK_UNUSED(go);
    if (!gi[0]) return 0;
    if (!n->leaf->requires_grad) { /* requires_grad_(False) after the graph was built: torch accumulates nothing,
                                    * though the leaf's hooks still run */
        wk_tensor *h = run_tensor_hooks(n->leaf->hooks, -1, gi[0]);
        if (!h) return -1;
        wk_release(h);
        return 0;
    }
    wk_tensor *g = gi[0];
    if (n->post_hooks) wk_retain(g);
    else gi[0] = NULL;
    if (!accumulate_grad_leaf(n->leaf, g, n->post_hooks ? 2 : 1)) return -1;
    if (n->leaf->post_acc_hooks && post_accumulate_grad_cb) return post_accumulate_grad_cb(n->leaf);
    return 0;
}

void wk_set_post_accumulate_grad_callback(int (*cb)(wk_tensor *leaf)) { post_accumulate_grad_cb = cb; }
void wk_tensor_set_post_accumulate_grad_flag(wk_tensor *t, bool on) { t->post_acc_hooks = on; }
static const wk_node_vtable ACCUMULATE_GRAD = {"AccumulateGrad", accumulate_apply, NULL, NULL, NULL};

static wk_node *grad_accumulator(wk_tensor *leaf) {
    if (leaf->grad_acc) return wk__node_retain(leaf->grad_acc);
    wk_node *n = wk__node_new(&ACCUMULATE_GRAD, sizeof(wk_node), 1, 0);
    if (!n) return NULL;
    n->seq_nr = UINT64_MAX; /* run as soon as ready, as torch does */
    n->leaf = wk_retain(leaf);
    leaf->grad_acc = n;
    return n;
}

static int view_refresh(wk_tensor *t, bool report);

bool wk__tensor_requires_grad(const wk_tensor *t) {
    if (!t) return false;
    if (t->is_view) view_refresh((wk_tensor *)t, false);
    return t->requires_grad || t->grad_fn;
}

bool wk__any_requires_grad(int n, wk_tensor *const *ts) {
    if (grad_disabled) return false;
    for (int i = 0; i < n; i++)
        if (wk__tensor_requires_grad(ts[i])) return true;
    return false;
}

wk_edge wk__gradient_edge(wk_tensor *t) {
    wk_edge e = {NULL, 0};
    if (!t) return e;
    if (t->is_view) view_refresh(t, false);
    if (t->grad_fn) {
        e.fn = wk__node_retain(t->grad_fn);
        e.input_nr = t->output_nr;
    } else if (t->requires_grad) {
        e.fn = grad_accumulator(t);
    }
    return e;
}

int wk__node_set_next(wk_node *n, uint32_t i, const wk_tensor *t) {
    if (!t) return 0;
    if (t->is_view && view_refresh((wk_tensor *)t, true) < 0) return -1;
    wk_input_meta *m = &n->meta[i];
    m->ndim = t->ndim;
    m->dtype = t->dtype;
    m->device = t->storage->device;
    m->sizes = wk__malloc(sizeof(int64_t) * (size_t)(t->ndim ? t->ndim : 1));
    if (!m->sizes) return -1;
    memcpy(m->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    if (wk__tensor_requires_grad(t)) n->next[i] = wk__gradient_edge((wk_tensor *)t);
    return 0;
}

void wk__set_history(wk_tensor *out, wk_node *n, uint32_t output_nr) {
    if (!wk_dtype_is_floating(out->dtype)) return; /* integer and bool results never require grad (torch) */
    wk_node *old = out->grad_fn;
    out->grad_fn = wk__node_retain(n);
    out->output_nr = output_nr;
    out->requires_grad = false; /* non-leaf: requires grad through grad_fn */
    if (out->is_view) out->view_version = out->version->version; /* Note [View grad_fn refresh] */
    wk__node_release(old);
}

void wk__autograd_meta_free(wk_tensor *t) {
    if (t->grad_acc && t->grad_acc->leaf == t) t->grad_acc = NULL; /* cannot happen: the node holds t */
    if (t->retains_grad && t->grad_fn) { /* drop the retain_grad hook that points back at t */
        wk_hook **pp = &t->grad_fn->pre_hooks;
        while (*pp) {
            if ((*pp)->retain_target == t) {
                wk_hook *h = *pp;
                *pp = h->next;
                free(h);
            } else pp = &(*pp)->next;
        }
    }
    wk_hook *h = t->hooks;
    while (h) {
        wk_hook *nx = h->next;
        if (h->free_ctx) h->free_ctx(h->ctx);
        free(h);
        h = nx;
    }
    wk__node_release(t->grad_fn);
    wk_release(t->grad);
    wk_release(t->view_base);
    wk_release(t->fw_grad);
}

/* ---- saved tensors ---- */
void wk__saved_rewind(wk_saved *s, const wk_tensor *written, uint32_t before) {
    if (s->defined && s->data && !s->is_output && s->data->version == written->version) s->version = before;
}

static WK_TLS const wk_saved_hooks *saved_hooks; /* Note [Saved-tensor hooks] */

const wk_saved_hooks *wk_set_saved_tensor_hooks(const wk_saved_hooks *h) {
    const wk_saved_hooks *old = saved_hooks;
    saved_hooks = h;
    return old;
}

int wk__save(wk_saved *s, const wk_tensor *t, bool is_output, wk_node *owner) {
    memset(s, 0, sizeof *s);
    if (!t) return 0;
    if (t->version->inference) {
        wk__error(WK_RUNTIME_ERROR,
                  "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
                  "in computation tracked by autograd. To work around this, you can make a clone to get a normal "
                  "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.");
        return -1;
    }
    s->defined = true;
    s->version = t->version->version;
    s->is_output = is_output;
    s->requires_grad = is_output || wk__tensor_requires_grad(t); /* outputs get their history right after */
    s->output_nr = t->output_nr;
    s->grad_fn_at_save = is_output ? owner : t->grad_fn;
    if (is_output) { /* alias without history: the owner would otherwise reference itself */
        s->data = wk__alias(t, t->ndim, t->sizes, t->strides, t->offset);
        if (s->data) s->data->is_view = t->is_view;
        if (s->data) wk__fw_copy(s->data, t); /* forward-over-reverse: the saved output keeps its tangent */
    } else {
        s->data = wk_retain((wk_tensor *)t);
    }
    if (!s->data) return -1;
    const wk_saved_hooks *h = saved_hooks;
    if (h) { /* the node keeps only what pack returns */
        saved_hooks = NULL; /* ops run by the hook itself are not packed */
        void *packed = h->pack(s->data, h->ctx);
        saved_hooks = h;
        wk_release(s->data);
        s->data = NULL;
        if (!packed) {
            s->defined = false;
            return -1;
        }
        s->packed = packed;
        s->hooks = h;
    }
    return 0;
}

/* torch's Node::forward_op_name: "MulBackward0" -> "Mul", "PowBackward1" -> "Pow1"; a name whose "Backward" is not
 * followed by digits only stays as it is. */
static void strip_backward(const char *name, char *out, size_t n) {
    if (wk_node_name_is_cpp(name)) {
        snprintf(out, n, "torch::autograd::%s", name);
        return;
    }
    snprintf(out, n, "%s", name);
    char *p = NULL;
    for (char *q = strstr(out, "Backward"); q; q = strstr(q + 1, "Backward")) p = q; /* the last one */
    if (!p) return;
    const char *suffix = p + 8;
    if (suffix[strspn(suffix, "0123456789")]) return;
    if (!strcmp(suffix, "0")) suffix = "";
    memmove(p, suffix, strlen(suffix) + 1);
}

int wk__check_saved(wk_saved *s, wk_node *owner) {
    if (!s->defined || s->packed) return 0;
    if (!s->data) {
        wk__error(WK_RUNTIME_ERROR,
                  "Trying to backward through the graph a second time (or directly access saved tensors after they "
                  "have already been freed). Saved intermediate values of the graph are freed when you call "
                  ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                  "graph a second time or if you need to access saved tensors after calling backward.");
        return -1;
    }
    uint32_t cur = s->data->version->version;
    if (cur != s->version) {
        wk_strbuf b = {0};
        wk_sb_printf(&b, "[%s [", wk__legacy_type_name(s->data->dtype));
        for (int i = 0; i < s->data->ndim; i++) wk_sb_printf(&b, i ? ", %lld" : "%lld", (long long)s->data->sizes[i]);
        wk_sb_puts(&b, "]]");
        const wk_node *fn = s->is_output ? owner : s->data->grad_fn;
        char clause[160] = "";
        if (fn) {
            char nm[96];
            strip_backward(fn->vt->name, nm, sizeof nm);
            snprintf(clause, sizeof clause, ", which is output %u of %s,", s->output_nr, nm);
        }
        wk__error(WK_RUNTIME_ERROR,
                  "one of the variables needed for gradient computation has been modified by an inplace operation: "
                  "%s%s is at version %u; expected version %u instead. Hint: enable anomaly detection to find the "
                  "operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
                  "check_nan=False).",
                  b.s ? b.s : "", clause, cur, s->version);
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

wk_tensor *wk__unpack(wk_saved *s, wk_node *owner) {
    if (!s->defined) return NULL;
    if (wk__check_saved(s, owner) < 0) return NULL;
    if (s->packed) {
        wk_tensor *u = s->hooks->unpack(s->packed, s->hooks->ctx);
        if (!u || !s->is_output) return u;
        wk_tensor *t = wk__alias(u, u->ndim, u->sizes, u->strides, u->offset);
        wk_release(u);
        if (t && s->requires_grad && owner) wk__set_history(t, owner, s->output_nr);
        return t;
    }
    if (!s->is_output) return wk_retain(s->data);
    wk_tensor *t = wk__alias(s->data, s->data->ndim, s->data->sizes, s->data->strides, s->data->offset);
    if (t) wk__fw_copy(t, s->data);
    if (t && s->requires_grad && owner) wk__set_history(t, owner, s->output_nr);
    return t;
}

void wk__saved_release(wk_saved *s) {
    if (s->packed) {
        s->hooks->drop(s->packed, s->hooks->ctx);
        s->packed = NULL;
    }
    wk_release(s->data);
    s->data = NULL; /* s->defined stays: a later unpack reports the freed graph */
}

/* ---- in-place bookkeeping ---- */

/* torch's handle_view_on_rebase: the error for rebasing a view that was made by a multi-output op, in no_grad mode or
 * in inference mode. `indirect`: the base or another view was modified, not this one. */
static int view_rebase_error(const wk_tensor *t, bool indirect) {
    uint8_t cm = t->view_meta;
    if (cm == WK_VIEW_DEFAULT) return 0;
    const char *modified = indirect ? "its base or another view of its base has been" : "is being";
    char name[96] = "";
    if (t->grad_fn) strip_backward(t->grad_fn->vt->name, name, sizeof name);
    wk_strbuf b = {0};
    if (cm == WK_VIEW_INFERENCE || cm == WK_VIEW_NO_GRAD || !t->grad_fn) {
        if (t->grad_fn)
            wk_sb_printf(&b, "Output %u of %s is a view of a view which was created in", t->output_nr, name);
        else
            wk_sb_puts(&b, "A view was created in");
        if (cm == WK_VIEW_INFERENCE)
            wk_sb_printf(&b, " inference mode and %s modified inplace in normal mode.", modified);
        else
            wk_sb_printf(&b, " no_grad mode and %s modified inplace with grad mode enabled.", modified);
    } else {
        wk_sb_printf(&b, "Output %u of %s is a view and %s modified inplace.", t->output_nr, name, modified);
    }
    if (cm == WK_VIEW_MULTI_OUTPUT)
        wk_sb_puts(&b, " This view is the output of a function that returns multiple views. Such functions do not "
                       "allow the output views to be modified inplace. You should replace the inplace operation by an "
                       "out-of-place one.");
    else if (cm == WK_VIEW_NO_GRAD)
        wk_sb_puts(&b, " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                       "code by moving both the view and the inplace either both inside the no_grad block (if you "
                       "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).");
    else if (cm == WK_VIEW_INFERENCE)
        wk_sb_puts(&b, " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                       "code by moving both the view and the inplace either both inside the inference_mode block (if "
                       "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                       "tracked).");
    wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : "");
    wk_sb_free(&b);
    return -1;
}

/* Any write into an inference tensor (in-place op, out=, resize_) outside inference mode, in every grad mode. */
int wk__check_inference_write(const wk_tensor *t) {
    if (!t->version->inference || inference_mode) return 0;
    wk__error(WK_RUNTIME_ERROR, "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
                                "a clone to get a normal tensor before doing inplace update.See "
                                "https://github.com/pytorch/rfcs/pull/17 for more details.");
    return -1;
}

int wk__check_inplace_rg(const wk_tensor *self, bool other_requires_grad) {
    if (wk__check_inference_write(self) < 0) return -1;
    if (grad_disabled) return 0;
    bool base_rg = self->is_view && self->view_base && wk__tensor_requires_grad(self->view_base);
    if (!other_requires_grad && !wk__tensor_requires_grad(self) && !base_rg) return 0;
    if (self->is_view && self->view_base) {
        if (view_rebase_error(self, false) < 0) return -1;
        /* torch: the view requires grad and its base is a leaf (a view made a leaf by requires_grad_() counts) */
        if (wk__tensor_requires_grad(self) && !self->view_base->grad_fn) {
            wk__error(WK_RUNTIME_ERROR,
                      "a view of a leaf Variable that requires grad is being used in an in-place operation.");
            return -1;
        }
    }
    if (self->requires_grad && !self->grad_fn && !self->is_view) {
        wk__error(WK_RUNTIME_ERROR, "a leaf Variable that requires grad is being used in an in-place operation.");
        return -1;
    }
    return 0;
}

int wk__check_inplace(const wk_tensor *self) { return wk__check_inplace_rg(self, false); }

static void mark_view(wk_tensor *view, const wk_tensor *base, uint8_t meta) {
    const wk_tensor *root = base->is_view && base->view_base ? base->view_base : base;
    if (inference_mode) meta = WK_VIEW_INFERENCE;
    else if (grad_disabled) meta = WK_VIEW_NO_GRAD;
    if (base->is_view && base->view_base && (meta == WK_VIEW_DEFAULT || base->view_meta == WK_VIEW_INFERENCE))
        meta = base->view_meta; /* torch's propagate_creation_meta */
    view->is_view = true;
    view->view_meta = meta;
    view->view_version = view->version->version;
    wk_tensor *old = view->view_base;
    view->view_base = wk_retain((wk_tensor *)root);
    wk_release(old);
    /* torch: a view made in no_grad mode of a base that requires grad requires grad itself (with no grad_fn) */
    if (meta == WK_VIEW_NO_GRAD && !view->grad_fn && wk__tensor_requires_grad(root)) view->requires_grad = true;
}

void wk__mark_view(wk_tensor *view, const wk_tensor *base) { mark_view(view, base, WK_VIEW_DEFAULT); }
void wk__mark_view_multi(wk_tensor *view, const wk_tensor *base) { mark_view(view, base, WK_VIEW_MULTI_OUTPUT); }

/* CopySlices (Note [In-place on views]): after an in-place op on a view, the base's history becomes
 * CopySlices(base's old history, the op's node); the view's history becomes AsStridedBackward0 of the base.
 * Backward: g_base = g.clone(); the view's region of g_base is replaced by the op's gradient for its self. */
typedef struct {
    wk_node base;
    wk_node *fn; /* the in-place op's node (strong) */
    int ndim;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM], offset; /* the view's geometry relative to the base */
    int base_ndim;
    int64_t base_sizes[WK_MAX_DIM], base_strides[WK_MAX_DIM], base_offset;
    wk_dtype dtype;
} copy_slices;

/* create_graph: the same computation through recorded ops (g.copy_(grad); g.as_strided(view) gets the op's gradient
 * copied in), so the gradient it returns is differentiable again (Note [Double backward]). */
static int copy_slices_apply_graph(copy_slices *n, wk_tensor *grad, wk_tensor **go) {
    wk_tensor *g = wk__empty_strided(n->base_ndim, n->base_sizes, n->base_strides, grad->dtype);
    wk_tensor *slice = NULL, *sc = NULL, *r = NULL, **fgo = NULL;
    uint32_t nf = n->fn->num_next;
    int rc = -1;
    if (!g || !(r = wk_copy_(g, grad, false))) goto done;
    wk_release(r);
    r = NULL;
    slice = wk_as_strided(g, wk_ints(n->sizes, n->ndim), wk_ints(n->strides, n->ndim), wk_some(n->offset - n->base_offset));
    sc = slice ? wk_clone(slice) : NULL;
    fgo = wk__calloc(nf ? nf : 1, sizeof *fgo);
    wk_tensor *fgi[1] = {sc};
    if (!sc || !fgo || n->fn->vt->apply(n->fn, fgi, fgo) < 0) goto done;
    r = fgo[0] ? wk_copy_(slice, fgo[0], false) : wk_zero_(slice);
    if (!r) goto done;
    go[0] = wk_retain(g);
    for (uint32_t i = 1; i < nf; i++) {
        go[i] = fgo[i];
        fgo[i] = NULL;
    }
    rc = 0;
done:
    if (fgo)
        for (uint32_t i = 0; i < nf; i++) wk_release(fgo[i]);
    free(fgo);
    wk_release(r);
    wk_release(sc);
    wk_release(slice);
    wk_release(g);
    return rc;
}

static int copy_slices_apply(wk_node *n_, wk_tensor **gi, wk_tensor **go) {
    copy_slices *n = (copy_slices *)n_;
    if (!gi[0]) return 0;
    if (!grad_disabled) return copy_slices_apply_graph(n, gi[0], go);
    /* g_base: a contiguous-with-base-geometry clone of the incoming gradient */
    wk_tensor *g = wk__empty_strided(n->base_ndim, n->base_sizes, n->base_strides, gi[0]->dtype);
    if (!g || wk__copy_(g, gi[0]) < 0) goto fail;
    wk_tensor *slice = wk__alias(g, n->ndim, n->sizes, n->strides, n->offset - n->base_offset);
    if (!slice) goto fail;
    wk_tensor *slice_grad = wk__clone(slice);
    uint32_t nf = n->fn->num_next;
    wk_tensor **fgo = wk__calloc(nf ? nf : 1, sizeof *fgo);
    wk_tensor *fgi[1] = {slice_grad};
    int rc = slice_grad && fgo ? n->fn->vt->apply(n->fn, fgi, fgo) : -1;
    if (rc == 0) {
        /* edge 0 of fn is the view's old history: its gradient goes back into the base's region */
        /* copy_'s check, as the graph path's wk_copy_ (torch: an expanded view's gradient raises here) */
        if (fgo[0]) rc = wk__assert_no_internal_overlap(slice) < 0 ? -1 : wk__copy_(slice, fgo[0]);
        else rc = wk__fill_(slice, wk_int(0));
        go[0] = wk_retain(g);
        for (uint32_t i = 1; i < nf; i++) {
            go[i] = fgo[i];
            fgo[i] = NULL;
        }
    }
    if (fgo)
        for (uint32_t i = 0; i < nf; i++) wk_release(fgo[i]);
    free(fgo);
    wk_release(slice_grad);
    wk_release(slice);
    wk_release(g);
    return rc;
fail:
    wk_release(g);
    return -1;
}
static void copy_slices_release(wk_node *n_) {
    copy_slices *n = (copy_slices *)n_;
    if (n->fn && n->fn->vt->release_saved) n->fn->vt->release_saved(n->fn);
}
static void copy_slices_destroy(wk_node *n_) { wk__node_release(((copy_slices *)n_)->fn); }
static const wk_node_vtable COPY_SLICES = {"CopySlices", copy_slices_apply, copy_slices_release, NULL,
                                           copy_slices_destroy};

typedef struct {
    wk_node base;
    int ndim;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM], offset;
    int base_ndim;
    int64_t base_sizes[WK_MAX_DIM], base_strides[WK_MAX_DIM], base_offset;
} as_strided_view;

static int as_strided_view_apply(wk_node *n_, wk_tensor **gi, wk_tensor **go) {
    as_strided_view *n = (as_strided_view *)n_;
    if (!gi[0]) return 0;
    wk_tensor *g = wk__empty_strided(n->base_ndim, n->base_sizes, n->base_strides, gi[0]->dtype);
    if (!g || wk__fill_(g, wk_int(0)) < 0) goto fail;
    if (!grad_disabled) { /* create_graph: zeros.as_strided(view).copy_(grad), recorded */
        wk_tensor *v = wk_as_strided(g, wk_ints(n->sizes, n->ndim), wk_ints(n->strides, n->ndim),
                                     wk_some(n->offset - n->base_offset));
        wk_tensor *r = v ? wk_copy_(v, gi[0], false) : NULL;
        wk_release(v);
        if (!r) goto fail;
        wk_release(r);
        go[0] = g;
        return 0;
    }
    wk_tensor *slice = wk__alias(g, n->ndim, n->sizes, n->strides, n->offset - n->base_offset);
    if (!slice || wk__copy_(slice, gi[0]) < 0) {
        wk_release(slice);
        goto fail;
    }
    wk_release(slice);
    go[0] = g;
    return 0;
fail:
    wk_release(g);
    return -1;
}
static const wk_node_vtable AS_STRIDED_VIEW = {"AsStridedBackward0", as_strided_view_apply, NULL, NULL, NULL};

static int view_refresh(wk_tensor *t, bool report) {
    if (!t->is_view || !t->view_base || t->view_version == t->version->version) return 0;
    wk_tensor *base = t->view_base;
    if (!t->grad_fn && !base->requires_grad && !base->grad_fn) return 0; /* nothing flows: keep no history */
    if (t->view_meta != WK_VIEW_DEFAULT) return report ? view_rebase_error(t, true) : 0;
    as_strided_view *av = (as_strided_view *)wk__node_new(&AS_STRIDED_VIEW, sizeof(as_strided_view), 1, 1);
    if (!av) return report ? -1 : 0;
    av->ndim = t->ndim;
    memcpy(av->sizes, t->sizes, sizeof t->sizes);
    memcpy(av->strides, t->strides, sizeof t->strides);
    av->offset = t->offset;
    av->base_ndim = base->ndim;
    memcpy(av->base_sizes, base->sizes, sizeof base->sizes);
    memcpy(av->base_strides, base->strides, sizeof base->strides);
    av->base_offset = base->offset;
    if (wk__node_set_next(&av->base, 0, base) < 0) {
        wk__node_release(&av->base);
        return report ? -1 : 0;
    }
    wk__set_history(t, &av->base, 0); /* also records the version: the view is fresh again */
    wk__node_release(&av->base);
    return 0;
}

int wk__view_refresh(wk_tensor *t) { return view_refresh(t, true); }

int wk__rebase_history(wk_tensor *self, wk_node *fn) {
    wk_tensor *base = self->is_view ? self->view_base : NULL;
    if (!base) {
        wk__set_history(self, fn, 0);
        return 0;
    }
    /* base's new history: CopySlices(base's old history, fn) */
    copy_slices *cs = (copy_slices *)wk__node_new(&COPY_SLICES, sizeof(copy_slices), 1, fn->num_next);
    if (!cs) return -1;
    cs->fn = wk__node_retain(fn);
    cs->ndim = self->ndim;
    memcpy(cs->sizes, self->sizes, sizeof self->sizes);
    memcpy(cs->strides, self->strides, sizeof self->strides);
    cs->offset = self->offset;
    cs->base_ndim = base->ndim;
    memcpy(cs->base_sizes, base->sizes, sizeof base->sizes);
    memcpy(cs->base_strides, base->strides, sizeof base->strides);
    cs->base_offset = base->offset;
    cs->dtype = base->dtype;
    if (wk__node_set_next(&cs->base, 0, base) < 0) goto fail;
    for (uint32_t i = 1; i < fn->num_next; i++) { /* the op's other inputs keep their edges */
        cs->base.next[i] = fn->next[i];
        if (cs->base.next[i].fn) wk__node_retain(cs->base.next[i].fn);
        wk_input_meta *m = &fn->meta[i];
        cs->base.meta[i].ndim = m->ndim;
        cs->base.meta[i].dtype = m->dtype;
        cs->base.meta[i].device = m->device;
        cs->base.meta[i].sizes = wk__malloc(sizeof(int64_t) * (size_t)(m->ndim ? m->ndim : 1));
        if (!cs->base.meta[i].sizes) goto fail;
        memcpy(cs->base.meta[i].sizes, m->sizes, sizeof(int64_t) * (size_t)m->ndim);
    }
    wk__set_history(base, &cs->base, 0);
    wk__node_release(&cs->base);
    /* the view's new history: a strided view of the base's new history */
    as_strided_view *av = (as_strided_view *)wk__node_new(&AS_STRIDED_VIEW, sizeof(as_strided_view), 1, 1);
    if (!av) return -1;
    av->ndim = self->ndim;
    memcpy(av->sizes, self->sizes, sizeof self->sizes);
    memcpy(av->strides, self->strides, sizeof self->strides);
    av->offset = self->offset;
    av->base_ndim = base->ndim;
    memcpy(av->base_sizes, base->sizes, sizeof base->sizes);
    memcpy(av->base_strides, base->strides, sizeof base->strides);
    av->base_offset = base->offset;
    if (wk__node_set_next(&av->base, 0, base) < 0) {
        wk__node_release(&av->base);
        return -1;
    }
    wk__set_history(self, &av->base, 0);
    wk__node_release(&av->base);
    return 0;
fail:
    wk__node_release(&cs->base);
    return -1;
}

/* ---- leaf accumulation ---- */
static wk_tensor *run_tensor_hooks(wk_hook *h, int slot, wk_tensor *grad) {
    /* returns a new reference to the (possibly replaced) gradient */
    wk_retain(grad);
    for (; h; h = h->next) {
        if (slot >= 0 && h->slot != slot) continue;
        if (h->retain_target) {
            wk_tensor *t = h->retain_target, *old = t->grad;
            if (!old) {
                t->grad = wk__clone(grad);
            } else {
                t->grad = wk_add(old, grad, wk_int(1));
                wk_release(old);
            }
            continue;
        }
        if (!h->fn) continue;
        int err = 0;
        wk_tensor *r = h->fn(h->ctx, grad, &err);
        if (err) {
            wk_release(grad);
            return NULL;
        }
        if (r) {
            wk_release(grad);
            grad = r;
        }
    }
    return grad;
}

static WK_TLS bool create_graph_mode = false;

/* CopyBackwards: with create_graph, a leaf's first .grad is a copy of the incoming gradient that keeps its history
 * (torch copies it into a fresh buffer: `x.grad.grad_fn` reads CopyBackwards, next_functions (None, <source>)). */
static int copy_backwards_apply(wk_node *n, wk_tensor **gi, wk_tensor **go) {
    WK_UNUSED(n);
    go[1] = wk_retain(gi[0]);
    return 0;
}
static const wk_node_vtable COPY_BACKWARDS = {"CopyBackwards", copy_backwards_apply, NULL, NULL, NULL};

static wk_tensor *copy_with_history(wk_tensor *g) {
    wk_tensor *r = wk__clone(g);
    if (!r || !g->grad_fn) return r;
    wk_node *n = wk__node_new(&COPY_BACKWARDS, sizeof(wk_node), 1, 2);
    if (!n || wk__node_set_next(n, 0, r) < 0 || wk__node_set_next(n, 1, g) < 0) {
        wk__node_release(n);
        wk_release(r);
        return NULL;
    }
    wk__set_history(r, n, 0);
    wk__node_release(n);
    return r;
}

/* Consumes the reference `grad`; expected_refs: the references to it that are not user-visible. */
static wk_tensor *accumulate_grad_leaf(wk_tensor *leaf, wk_tensor *grad, int64_t expected_refs) {
    wk_tensor *g = run_tensor_hooks(leaf->hooks, -1, grad);
    wk_release(grad);
    if (!g) return NULL;
    wk_tensor *old = leaf->grad;
    if (!old) {
        if (create_graph_mode) { /* keeps its graph for higher-order derivatives */
            leaf->grad = copy_with_history(g);
            wk_release(g);
            return leaf->grad;
        }
        /* steal the buffer when nobody else can see it, else copy (torch's AccumulateGrad). A view whose base only
         * it holds (mm's mat2 gradient comes back as t() of a fresh product) is kept as a detached alias, as torch's
         * new_grad.detach(). */
        bool sole = g->refcount <= expected_refs && !g->grad_fn && wk__is_contiguous(g);
        if (sole && !g->is_view) leaf->grad = g;
        else if (sole && g->view_base && g->view_base->refcount == 1 && !g->view_base->grad_fn &&
                 g->storage->refcount == 2) {
            leaf->grad = wk__alias(g, g->ndim, g->sizes, g->strides, g->offset);
            wk_release(g);
            if (!leaf->grad) return NULL;
        } else {
            leaf->grad = wk__clone(g);
            wk_release(g);
            if (!leaf->grad) return NULL;
        }
        return leaf->grad;
    }
    wk_tensor *r;
    if (create_graph_mode || wk__tensor_requires_grad(old)) {
        r = wk_add(old, g, wk_int(1));
        if (r) {
            leaf->grad = r;
            wk_release(old);
        }
    } else {
        bool prev = wk_set_grad_enabled(false);
        r = wk_add_(old, g, wk_int(1));
        wk_set_grad_enabled(prev);
        wk_release(r);
    }
    wk_release(g);
    return r ? leaf->grad : NULL;
}

/* ---- the engine ---- */
typedef struct {
    wk_node *node;     /* borrowed (the graph holds it) */
    int deps;          /* incoming edges not yet processed */
    bool needed;       /* autograd.grad / backward(inputs=): an edge leads on to an input's node */
    bool target;       /* the node whose incoming gradient is an input's gradient (captured, not run) */
    bool visited;
    bool queued;
    int pending;       /* the needed-set walk's count of incoming edges not yet ordered */
    wk_tensor **buf;   /* [num_inputs] accumulated incoming gradients */
} slot_t;

typedef struct {
    slot_t *slots;
    size_t cap, count; /* open addressing, cap a power of two */
} node_map;

static size_t hash_ptr(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p; /* 64-bit mixing also on 32-bit targets (wasm32) */
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static slot_t *map_get(node_map *m, wk_node *n, bool insert) {
    if (insert && (m->count + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        slot_t *s = wk__calloc(cap, sizeof *s);
        if (!s) return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->slots[i].node) continue;
            size_t j = hash_ptr(m->slots[i].node) & (cap - 1);
            while (s[j].node) j = (j + 1) & (cap - 1);
            s[j] = m->slots[i];
        }
        free(m->slots);
        m->slots = s;
        m->cap = cap;
    }
    if (!m->cap) return NULL;
    size_t j = hash_ptr(n) & (m->cap - 1);
    while (m->slots[j].node) {
        if (m->slots[j].node == n) return &m->slots[j];
        j = (j + 1) & (m->cap - 1);
    }
    if (!insert) return NULL;
    m->slots[j].node = n;
    m->count++;
    return &m->slots[j];
}

/* max-heap of ready nodes by seq_nr */
typedef struct {
    wk_node **a;
    size_t n, cap;
} heap_t;
static int heap_push(heap_t *h, wk_node *x) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 32;
        wk_node **a = realloc(h->a, cap * sizeof *a);
        if (!a) return -1;
        h->a = a;
        h->cap = cap;
    }
    size_t i = h->n++;
    h->a[i] = x;
    while (i && h->a[(i - 1) / 2]->seq_nr < h->a[i]->seq_nr) {
        wk_node *t = h->a[i];
        h->a[i] = h->a[(i - 1) / 2];
        h->a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}
static wk_node *heap_pop(heap_t *h) {
    wk_node *top = h->a[0];
    h->a[0] = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->a[l]->seq_nr > h->a[m]->seq_nr) m = l;
        if (r < h->n && h->a[r]->seq_nr > h->a[m]->seq_nr) m = r;
        if (m == i) break;
        wk_node *t = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = t;
        i = m;
    }
    return top;
}

/* Validates a gradient against the input it flows to: sums broadcast dims, casts dtype (torch's
 * validate_outputs). Returns a new reference or NULL on error; consumes g. */
static wk_tensor *validate_grad(wk_node *fn, uint32_t i, wk_tensor *g) {
    const wk_input_meta *m = &fn->meta[i];
    bool same = g->ndim == m->ndim && !memcmp(g->sizes, m->sizes, sizeof(int64_t) * (size_t)m->ndim);
    if (!same) {
        wk_tensor *r = wk_sum_to_size(g, wk_ints(m->sizes, m->ndim));
        if (!r) {
            wk_strbuf a = {0}, b = {0};
            wk_sb_ints(&a, g->sizes, g->ndim);
            wk_sb_ints(&b, m->sizes, m->ndim);
            wk__error(WK_RUNTIME_ERROR,
                      "Function %s returned an invalid gradient at index %u - got %s but expected shape compatible "
                      "with %s",
                      fn->vt->name, i, a.s, b.s);
            wk_sb_free(&a);
            wk_sb_free(&b);
            wk_release(g); /* after the message: it reads g's sizes */
            return NULL;
        }
        wk_release(g);
        g = r;
    }
    if (g->dtype != m->dtype && m->dtype != WK_DTYPE_NONE) {
        wk_tensor *r = wk_to_dtype(g, m->dtype, false, false);
        wk_release(g);
        g = r;
        if (!g) return NULL;
    }
    if (m->device && g->storage->device != m->device && !(g->storage->device->host_access && m->device->host_access)) {
        if (g->ndim != 0) { /* torch's validate_outputs: a 0-d gradient moves (a CPU scalar beside a device tensor) */
            char a[64], b[64];
            wk__error(WK_RUNTIME_ERROR, "invalid gradient at index %u - expected device %s but got %s", i,
                      wk__device_str(m->device, a), wk__device_str(g->storage->device, b));
            wk_release(g);
            return NULL;
        }
        wk_tensor *r = wk_move_to_device(g, m->device);
        wk_release(g);
        g = r;
    }
    return g;
}

static int add_to_buffer(slot_t *s, uint32_t nr, wk_tensor *g) {
    /* consumes g */
    if (!s->buf) {
        s->buf = wk__calloc(s->node->num_inputs ? s->node->num_inputs : 1, sizeof *s->buf);
        if (!s->buf) {
            wk_release(g);
            return -1;
        }
    }
    if (!s->buf[nr]) {
        s->buf[nr] = g;
        return 0;
    }
    wk_tensor *sum = wk_add(s->buf[nr], g, wk_int(1));
    wk_release(g);
    if (!sum) return -1;
    wk_release(s->buf[nr]);
    s->buf[nr] = sum;
    return 0;
}

typedef struct {
    wk_node *fn;
    uint32_t nr;
} target_t;

int wk_run_backward(int nroots, wk_tensor *const *roots, wk_tensor *const *grad_roots, bool retain_graph,
                    bool create_graph, int ninputs, wk_tensor *const *inputs, wk_tensor **grads_out,
                    bool allow_unused) {
    int rc = -1;
    node_map map = {0};
    heap_t ready = {0};
    wk_node **stack = NULL;
    slot_t **order = NULL;
    target_t *targets = NULL;
    wk_edge *root_edges = wk__calloc((size_t)(nroots ? nroots : 1), sizeof *root_edges);
    wk_tensor **root_grads = wk__calloc((size_t)(nroots ? nroots : 1), sizeof *root_grads);
    if (!root_edges || !root_grads) goto done;

    for (int i = 0; i < nroots; i++) {
        wk_tensor *r = roots[i];
        if (!wk__tensor_requires_grad(r)) {
            wk__error(WK_RUNTIME_ERROR, "element %d of tensors does not require grad and does not have a grad_fn", i);
            goto done;
        }
        wk_tensor *g = grad_roots ? grad_roots[i] : NULL;
        if (!g) {
            if (wk__numel(r) != 1) {
                wk__error(WK_RUNTIME_ERROR, "grad can be implicitly created only for scalar outputs");
                goto done;
            }
            if (!wk_dtype_is_floating(r->dtype)) {
                wk__error(WK_RUNTIME_ERROR, "grad can be implicitly created only for real scalar outputs but got %s",
                          wk_dtype_name(r->dtype));
                goto done;
            }
            root_grads[i] = wk__full(r->ndim, r->sizes, r->dtype, wk_int(1));
        } else {
            if (g->ndim != r->ndim || memcmp(g->sizes, r->sizes, sizeof(int64_t) * (size_t)r->ndim)) {
                wk_strbuf a = {0}, b = {0};
                wk_sb_ints(&a, g->sizes, g->ndim);
                wk_sb_ints(&b, r->sizes, r->ndim);
                wk__error(WK_RUNTIME_ERROR,
                          "Mismatch in shape: grad_output[%d] has a shape of torch.Size(%s) and output[%d] has a "
                          "shape of torch.Size(%s).",
                          i, a.s, i, b.s);
                wk_sb_free(&a);
                wk_sb_free(&b);
                goto done;
            }
            root_grads[i] = wk_retain(g);
        }
        if (!root_grads[i]) goto done;
        root_edges[i] = wk__gradient_edge(r);
        if (!root_edges[i].fn) goto done;
    }

    /* autograd.grad targets */
    if (inputs) {
        targets = wk__calloc((size_t)(ninputs ? ninputs : 1), sizeof *targets);
        if (!targets) goto done;
        for (int j = 0; j < ninputs; j++) {
            wk_tensor *x = inputs[j];
            if (grads_out) grads_out[j] = NULL;
            if (!wk__tensor_requires_grad(x)) {
                wk__error(WK_RUNTIME_ERROR, "One of the differentiated Tensors does not require grad");
                goto done;
            }
            if (x->grad_fn) {
                targets[j].fn = x->grad_fn;
                targets[j].nr = x->output_nr;
            } else {
                targets[j].fn = x->grad_acc; /* NULL if the leaf was never used */
                targets[j].nr = 0;
            }
        }
    }

    /* discover the graph: count dependencies */
    size_t sp = 0, scap = 64;
    stack = wk__malloc(scap * sizeof *stack);
    if (!stack) goto done;
    for (int i = 0; i < nroots; i++) {
        slot_t *s = map_get(&map, root_edges[i].fn, true);
        if (!s) goto done;
        if (!s->visited) {
            s->visited = true;
            if (sp == scap) {
                wk_node **ns = realloc(stack, scap * 2 * sizeof *ns);
                if (!ns) goto done;
                stack = ns;
                scap *= 2;
            }
            stack[sp++] = root_edges[i].fn;
        }
    }
    while (sp) {
        wk_node *n = stack[--sp];
        for (uint32_t k = 0; k < n->num_next; k++) {
            wk_node *nx = n->next[k].fn;
            if (!nx) continue;
            slot_t *s = map_get(&map, nx, true);
            if (!s) goto done;
            s->deps++;
            if (!s->visited) {
                s->visited = true;
                if (sp == scap) {
                    wk_node **ns = realloc(stack, scap * 2 * sizeof *ns);
                    if (!ns) goto done;
                    stack = ns;
                    scap *= 2;
                }
                stack[sp++] = nx;
            }
        }
    }
    if (inputs) {
        /* needed = an edge leads on to a target. One pass in reverse topological order (Kahn's order from the roots,
         * read backwards: every node after all the nodes it feeds), so linear in the graph's size. A target itself
         * runs only when it leads on to another target (as torch: autograd.grad(z, [y]) leaves y's grad_fn and its
         * saved tensors alone) */
        for (int j = 0; j < ninputs; j++) {
            slot_t *s = targets[j].fn ? map_get(&map, targets[j].fn, false) : NULL;
            if (s) s->target = true;
        }
        order = wk__malloc((map.count ? map.count : 1) * sizeof *order);
        if (!order) goto done;
        size_t head = 0, tail = 0;
        for (size_t i = 0; i < map.cap; i++) map.slots[i].pending = map.slots[i].deps;
        for (int i = 0; i < nroots; i++) {
            slot_t *s = map_get(&map, root_edges[i].fn, false);
            if (s->pending == 0 && !s->queued) {
                s->queued = true; /* reset below: the engine's own queueing starts afresh */
                order[tail++] = s;
            }
        }
        while (head < tail) {
            slot_t *s = order[head++];
            for (uint32_t k = 0; k < s->node->num_next; k++) {
                slot_t *t = s->node->next[k].fn ? map_get(&map, s->node->next[k].fn, false) : NULL;
                if (t && --t->pending == 0) order[tail++] = t;
            }
        }
        for (size_t i = tail; i-- > 0;) {
            slot_t *s = order[i];
            s->queued = false;
            for (uint32_t k = 0; k < s->node->num_next && !s->needed; k++) {
                slot_t *t = s->node->next[k].fn ? map_get(&map, s->node->next[k].fn, false) : NULL;
                if (t && (t->needed || t->target)) s->needed = true;
            }
        }
    }

    /* seed the roots */
    for (int i = 0; i < nroots; i++) {
        slot_t *s = map_get(&map, root_edges[i].fn, false);
        if (add_to_buffer(s, root_edges[i].input_nr, root_grads[i]) < 0) {
            root_grads[i] = NULL;
            goto done;
        }
        root_grads[i] = NULL;
    }
    for (int i = 0; i < nroots; i++) {
        slot_t *s = map_get(&map, root_edges[i].fn, false);
        if (s->deps == 0 && !s->queued) {
            s->queued = true;
            if (heap_push(&ready, s->node) < 0) goto done;
        }
    }

    bool prev_grad = wk_set_grad_enabled(create_graph);
    bool prev_cg = create_graph_mode;
    create_graph_mode = create_graph;
    int err = 0;
    while (ready.n && !err) {
        wk_node *n = heap_pop(&ready);
        slot_t *s = map_get(&map, n, false);
        uint32_t nin = n->num_inputs;
        wk_tensor **gi = s->buf;
        if (!gi) {
            gi = s->buf = wk__calloc(nin ? nin : 1, sizeof *gi);
            if (!gi) {
                err = 1;
                break;
            }
        }
        /* tensor pre-hooks (register_hook on non-leaves, retain_grad) */
        for (uint32_t k = 0; k < nin && n->pre_hooks; k++) {
            if (!gi[k]) continue;
            wk_tensor *g = run_tensor_hooks(n->pre_hooks, (int)k, gi[k]);
            if (!g) {
                err = 1;
                break;
            }
            wk_release(gi[k]);
            gi[k] = g;
        }
        if (err) break;
        if (inputs && n->vt == &ACCUMULATE_GRAD && n->leaf && gi[0] && !(s->target && !grads_out)) {
            /* a leaf's AccumulateGrad that will not accumulate (autograd.grad, or backward with other inputs) still
             * runs the leaf's hooks before its gradient is captured, as torch runs every reached node's tensor
             * pre-hooks */
            wk_tensor *g = run_tensor_hooks(n->leaf->hooks, -1, gi[0]);
            if (!g) {
                err = 1;
                break;
            }
            wk_release(gi[0]);
            gi[0] = g;
        }
        if (inputs) {
            for (int j = 0; s->target && j < ninputs && !err; j++) { /* O(inputs) only at targets */
                if (targets[j].fn != n || !gi[targets[j].nr]) continue;
                if (grads_out) { /* autograd.grad: capture */
                    if (!grads_out[j]) grads_out[j] = wk_retain(gi[targets[j].nr]);
                } else if (inputs[j]->grad_fn && !inputs[j]->retains_grad) { /* backward(inputs=[non-leaf]) */
                    wk_tensor *x = inputs[j], *old = x->grad;
                    x->grad = old ? wk_add(old, gi[targets[j].nr], wk_int(1)) : wk__clone(gi[targets[j].nr]);
                    if (!x->grad) err = 1;
                    wk_release(old);
                }
            }
            if (err) break;
            /* only what leads to the inputs runs; AccumulateGrad only for backward(inputs=[leaf]) */
            if (!s->needed && !(s->target && !grads_out && n->vt == &ACCUMULATE_GRAD)) goto finish_node;
        }
        {
            uint32_t nout = n->num_next;
            wk_tensor **go = wk__calloc(nout ? nout : 1, sizeof *go);
            if (!go) {
                err = 1;
                break;
            }
            bool any = false;
            for (uint32_t k = 0; k < nin; k++) any |= gi[k] != NULL;
            if (any && n->vt->apply(n, gi, go) < 0) err = 1;
            /* torch's order: the node's results are checked (summed to their input's shape, cast to its dtype), then
             * its post hooks see them (and may replace them) */
            for (uint32_t k = 0; k < nout && !err; k++) {
                if (!go[k] || !n->next[k].fn) continue;
                go[k] = validate_grad(n, k, go[k]);
                if (!go[k]) err = 1;
            }
            for (wk_hook *h = n->post_hooks; h && !err; h = h->next)
                if (h->post_fn && h->post_fn(h->ctx, n, go, (int)nout, gi, (int)nin) < 0) err = 1;
            for (uint32_t k = 0; k < nout; k++) {
                wk_node *nx = n->next[k].fn;
                wk_tensor *g = go[k];
                go[k] = NULL;
                if (!nx) {
                    wk_release(g);
                    continue;
                }
                slot_t *t = map_get(&map, nx, false);
                if (g && !err) {
                    if (add_to_buffer(t, n->next[k].input_nr, g) < 0) err = 1;
                } else wk_release(g);
                if (--t->deps == 0 && !err && heap_push(&ready, nx) < 0) err = 1;
            }
            free(go);
            /* after its gradients were checked; a node that failed keeps its saved tensors, as torch's */
            if (!err && !retain_graph && n->vt->release_saved) {
                n->vt->release_saved(n);
                n->released = true;
            }
        }
    finish_node:
        for (uint32_t k = 0; k < nin; k++) wk_release(gi[k]);
        free(gi);
        s->buf = NULL;
    }
    wk_set_grad_enabled(prev_grad);
    create_graph_mode = prev_cg;
    if (err) goto done;

    if (inputs && grads_out && !allow_unused) {
        for (int j = 0; j < ninputs; j++)
            if (!grads_out[j]) {
                wk__error(WK_RUNTIME_ERROR,
                          "The differentiated Tensor at index %d appears to not have been used in the graph. Set "
                          "allow_unused=True if this is the desired behavior.",
                          j);
                goto done;
            }
    }
    rc = 0;
done:
    for (size_t i = 0; i < map.cap; i++) {
        slot_t *s = &map.slots[i];
        if (s->node && s->buf) {
            for (uint32_t k = 0; k < s->node->num_inputs; k++) wk_release(s->buf[k]);
            free(s->buf);
        }
    }
    free(map.slots);
    free(ready.a);
    free(stack);
    free(order);
    free(targets);
    if (root_edges)
        for (int i = 0; i < nroots; i++) wk__node_release(root_edges[i].fn);
    if (root_grads)
        for (int i = 0; i < nroots; i++) wk_release(root_grads[i]);
    free(root_edges);
    free(root_grads);
    if (rc < 0 && inputs && grads_out)
        for (int j = 0; j < ninputs; j++) {
            wk_release(grads_out[j]);
            grads_out[j] = NULL;
        }
    return rc;
}

int wk_backward(wk_tensor *t, wk_tensor *gradient, bool retain_graph, bool create_graph) {
    wk_tensor *roots[1] = {t}, *grads[1] = {gradient};
    return wk_run_backward(1, roots, grads, retain_graph || create_graph, create_graph, 0, NULL, NULL, false);
}

/* ---- tensor-level autograd API ---- */
bool wk_requires_grad(const wk_tensor *t) { return wk__tensor_requires_grad(t); }
bool wk_is_leaf(const wk_tensor *t) {
    if (t->is_view) view_refresh((wk_tensor *)t, false);
    return t->grad_fn == NULL;
}
wk_node *wk_grad_fn(const wk_tensor *t) {
    if (t->is_view) view_refresh((wk_tensor *)t, false);
    return t->grad_fn;
}
wk_tensor *wk_grad(const wk_tensor *t) { return t->grad; }
uint32_t wk_version_get(const wk_tensor *t) { return t->version->version; }
/* an inference tensor's views are not tracked (torch: _is_view() False, _base None) */
bool wk_is_view(const wk_tensor *t) { return t->is_view && !t->version->inference; }
wk_tensor *wk_view_base(const wk_tensor *t) { return wk_is_view(t) ? t->view_base : NULL; }

int wk_requires_grad_(wk_tensor *t, bool requires_grad) {
    if (t->grad_fn) {
        if (requires_grad) return 0;
        wk__error(WK_RUNTIME_ERROR,
                  "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                  "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
        return -1;
    }
    if (requires_grad && !wk_dtype_is_floating(t->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "only Tensors of floating point dtype can require gradients");
        return -1;
    }
    t->requires_grad = requires_grad;
    return 0;
}

int wk_set_grad(wk_tensor *t, wk_tensor *grad) {
    if (grad) {
        if (grad->ndim != t->ndim || memcmp(grad->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim)) {
            wk_strbuf a = {0}, b = {0};
            wk_sb_ints(&a, grad->sizes, grad->ndim);
            wk_sb_ints(&b, t->sizes, t->ndim);
            wk__error(WK_RUNTIME_ERROR,
                      "attempting to assign a gradient of size '%s' to a tensor of size '%s'. Please ensure that the "
                      "gradient and the tensor are the same size",
                      a.s, b.s);
            wk_sb_free(&a);
            wk_sb_free(&b);
            return -1;
        }
        if (grad->dtype != t->dtype) {
            wk__error(WK_RUNTIME_ERROR,
                      "attempting to assign a gradient with dtype '%s' to a tensor with grad_dtype '%s'. The gradient "
                      "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                      "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                      "caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that "
                      "assume they match.",
                      wk__cpp_type_name(grad->dtype), wk_dtype_scalar_name(t->dtype));
            return -1;
        }
    }
    wk_tensor *old = t->grad;
    t->grad = wk_retain(grad);
    wk_release(old);
    return 0;
}

wk_tensor *wk_detach(wk_tensor *t) {
    wk_tensor *d = wk__alias(t, t->ndim, t->sizes, t->strides, t->offset);
    return d;
}

int wk_detach_(wk_tensor *t) {
    if (t->is_view && t->view_base && !t->version->inference) { /* any view autograd tracks (an inference tensor's
                                                                   * are not), whether or not its base requires grad */
        wk__error(WK_RUNTIME_ERROR, "Can't detach views in-place. Use detach() instead. If you are using "
                                    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                                    "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                                    "called on these gradients. To fix this error, please refer to the "
                                    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
        return -1;
    }
    wk__node_release(t->grad_fn);
    t->grad_fn = NULL;
    t->requires_grad = false;
    return 0;
}

static int next_hook_id = 1;

int wk_tensor_register_hook(wk_tensor *t, wk_hook_fn fn, void *ctx, void (*free_ctx)(void *)) {
    if (!wk__tensor_requires_grad(t)) {
        wk__error(WK_RUNTIME_ERROR, "cannot register a hook on a tensor that doesn't require gradient");
        return -1;
    }
    wk_hook *h = wk__calloc(1, sizeof *h);
    if (!h) return -1;
    h->id = next_hook_id++;
    h->fn = fn;
    h->ctx = ctx;
    h->free_ctx = free_ctx;
    wk_hook **pp;
    if (t->grad_fn) {
        h->slot = (int)t->output_nr;
        pp = &t->grad_fn->pre_hooks;
    } else {
        h->slot = -1;
        pp = &t->hooks;
    }
    while (*pp) pp = &(*pp)->next; /* hooks run in registration order */
    *pp = h;
    return h->id;
}

int wk_tensor_remove_hook(wk_tensor *t, int id) {
    wk_hook **lists[2] = {&t->hooks, t->grad_fn ? &t->grad_fn->pre_hooks : NULL};
    for (int l = 0; l < 2; l++) {
        if (!lists[l]) continue;
        for (wk_hook **pp = lists[l]; *pp; pp = &(*pp)->next) {
            if ((*pp)->id == id) {
                wk_hook *h = *pp;
                *pp = h->next;
                if (h->free_ctx) h->free_ctx(h->ctx);
                free(h);
                return 0;
            }
        }
    }
    return 0;
}

int wk_retain_grad(wk_tensor *t) {
    if (!wk__tensor_requires_grad(t)) {
        wk__error(WK_RUNTIME_ERROR, "can't retain_grad on Tensor that has requires_grad=False");
        return -1;
    }
    if (!t->grad_fn || t->retains_grad) return 0; /* leaves always keep .grad */
    wk_hook *h = wk__calloc(1, sizeof *h);
    if (!h) return -1;
    h->id = next_hook_id++;
    h->slot = (int)t->output_nr;
    h->retain_target = t;
    /* retain_grad's hook runs before user hooks registered later, after those registered earlier */
    wk_hook **pp = &t->grad_fn->pre_hooks;
    while (*pp) pp = &(*pp)->next;
    *pp = h;
    t->retains_grad = true;
    return 0;
}
bool wk_retains_grad(const wk_tensor *t) { return t->retains_grad; }

const char *wk_node_name(const wk_node *n) { return n->vt->name; }
bool wk_node_name_is_cpp(const char *name) {
    static const char *const cpp[] = {"AccumulateGrad", "CopyBackwards", "CopySlices", "NotImplemented", "GraphRoot"};
    for (size_t i = 0; i < sizeof cpp / sizeof cpp[0]; i++)
        if (!strcmp(name, cpp[i])) return true;
    return false;
}
uint32_t wk_node_num_next(const wk_node *n) { return n->num_next; }
wk_node *wk_node_next(const wk_node *n, uint32_t i, uint32_t *input_nr) {
    if (i >= n->num_next) return NULL;
    if (input_nr) *input_nr = n->next[i].input_nr;
    return n->next[i].fn;
}
wk_tensor *wk_node_variable(const wk_node *n) { return n->leaf; }

int wk_node_register_hook(wk_node *n, wk_node_hook_fn fn, void *ctx, void (*free_ctx)(void *)) {
    wk_hook *h = wk__calloc(1, sizeof *h);
    if (!h) return -1;
    h->id = next_hook_id++;
    h->slot = -1;
    h->post_fn = fn;
    h->ctx = ctx;
    h->free_ctx = free_ctx;
    wk_hook **pp = &n->post_hooks;
    while (*pp) pp = &(*pp)->next;
    *pp = h;
    return h->id;
}

/* x.data (torch's variable_data): same storage and geometry, no history, a version counter of its own (an inference
 * tensor's .data is one too) */
wk_tensor *wk_variable_data(const wk_tensor *t) {
    wk_tensor *d = wk__alias(t, t->ndim, t->sizes, t->strides, t->offset);
    if (!d) return NULL;
    wk_version *v = wk__malloc(sizeof *v);
    if (!v) {
        wk_release(d);
        return NULL;
    }
    v->refcount = 1;
    v->version = 0;
    v->inference = t->version->inference;
    if (--d->version->refcount == 0) free(d->version);
    d->version = v;
    return d;
}

/* x.data = src (torch's set_data): t now shares src's storage and geometry (its dtype may change) */
int wk_set_data(wk_tensor *t, const wk_tensor *src) {
    if (t == src) return 0;
    src->storage->refcount++;
    wk_storage *old = t->storage;
    t->storage = src->storage;
    wk__storage_release(old);
    t->offset = src->offset;
    t->ndim = src->ndim;
    t->dtype = src->dtype;
    memcpy(t->sizes, src->sizes, sizeof t->sizes);
    memcpy(t->strides, src->strides, sizeof t->strides);
    return 0;
}
