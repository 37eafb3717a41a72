/* autograd.h — the dynamic tape: nodes (grad_fn), edges, saved tensors, hooks and the engine.
 *
 * Note [Autograd graph]: every differentiable result holds a strong reference to its node (grad_fn). A node holds
 * strong references to the nodes of its inputs (`next`), to the tensors it saved, and nothing else; leaves are
 * reached through AccumulateGrad nodes, which hold the leaf strongly while the leaf holds them weakly
 * (`grad_acc`). Saved outputs are stored without their grad_fn (that would be a cycle) and re-attached when
 * unpacked, so derivatives stay differentiable (Note [Double backward]).
 *
 * Note [Double backward]: derivative formulas are written in the op table in terms of other ops; the generated
 * backward functions call the public, autograd-recording ops. With create_graph=True the engine runs them with
 * grad mode on, so the backward pass records its own graph. */
#ifndef WK_AUTOGRAD_H
#define WK_AUTOGRAD_H

#include "core/core.h"

typedef struct {
    wk_node *fn; /* strong; NULL when the input does not require grad */
    uint32_t input_nr;
} wk_edge;

/* Shape and dtype of a forward input, to validate (and sum/cast) the gradient that flows to it. */
typedef struct {
    int ndim;
    wk_dtype dtype;
    int64_t *sizes;    /* owned */
    wk_device *device; /* where the input lives (NULL: unknown, no check) */
} wk_input_meta;

/* A hook (wk_hook_fn, wk_node_hook_fn: include/wick.h), in its node's or leaf's list. */
struct wk_hook {
    wk_hook *next;
    int id;
    int slot;                     /* which output of the node (pre-hooks), -1 for node post-hooks */
    wk_hook_fn fn;                /* tensor hook / pre-hook */
    wk_node_hook_fn post_fn;      /* node post-hook */
    void (*free_ctx)(void *ctx);
    void *ctx;
    wk_tensor *retain_target;     /* weak: retain_grad() hooks store the gradient here */
};

typedef struct wk_node_vtable {
    const char *name; /* torch's class name: "MulBackward0" */
    /* grads_in[num_inputs] (NULL = undefined) -> grads_out[num_next] (new references or NULL). Return 0 / -1. */
    int (*apply)(wk_node *n, wk_tensor **grads_in, wk_tensor **grads_out);
    void (*release_saved)(wk_node *n); /* drop saved tensors (after backward without retain_graph) */
    /* Optional: return a new reference to saved value `name` for Python's `grad_fn._saved_<name>`, or NULL. */
    int (*get_saved)(wk_node *n, const char *name, void *out, char *kind);
    void (*destroy)(wk_node *n); /* optional: free node-specific fields */
} wk_node_vtable;

struct wk_node {
    int64_t refcount;
    const wk_node_vtable *vt;
    uint64_t seq_nr;
    uint32_t num_inputs;  /* number of forward outputs = gradients this node receives */
    uint32_t num_next;    /* number of forward inputs = next_functions */
    wk_edge *next;        /* [num_next] */
    wk_input_meta *meta;  /* [num_next] shape/dtype of each forward input */
    bool released;        /* saved tensors freed by a backward without retain_graph */
    wk_hook *pre_hooks;   /* tensor hooks on outputs (slot = output_nr), retain_grad hooks */
    wk_hook *post_hooks;  /* grad_fn.register_hook */
    wk_tensor *leaf;      /* AccumulateGrad only: the leaf (strong) */
    void *pyobj;          /* weak back-pointer to the Python grad_fn object */
};

/* A saved tensor (torch's SavedVariable). */
typedef struct {
    wk_tensor *data;   /* strong; for outputs an alias without grad_fn */
    uint32_t version;  /* version at save time */
    bool is_output;    /* saved output of the owning node: re-attach grad_fn on unpack */
    bool defined;
    bool requires_grad;
    uint32_t output_nr;
    wk_node *grad_fn_at_save; /* weak, for the error message only; the owner for outputs */
    void *packed;             /* what the saved-tensor hooks' pack returned (data is then NULL), or NULL */
    const struct wk_saved_hooks *hooks; /* the hooks that packed it */
} wk_saved;

/* ---- grad mode ---- */
WK_INTERNAL bool wk__grad_enabled(void);
WK_INTERNAL bool wk__inference_mode(void);
WK_INTERNAL int wk__check_inference_write(const wk_tensor *t); /* -1: an inference tensor outside inference mode */

/* ---- nodes ---- */
/* Allocates a node of `size` bytes (a struct that starts with wk_node) with num_next edges. */
WK_INTERNAL wk_node *wk__node_new(const wk_node_vtable *vt, size_t size, uint32_t num_inputs, uint32_t num_next);
WK_INTERNAL wk_node *wk__node_retain(wk_node *n);
WK_INTERNAL void wk__node_release(wk_node *n);
/* Sets edge i from forward input t (NULL or not requiring grad: no edge) and records its meta. */
WK_INTERNAL int wk__node_set_next(wk_node *n, uint32_t i, const wk_tensor *t);
/* Does the node need the gradient for input i? */
static inline bool wk__needs_grad(const wk_node *n, uint32_t i) { return i < n->num_next && n->next[i].fn != NULL; }
/* Makes `out` the output_nr-th output of node n (sets grad_fn; out must not be a leaf that requires grad). */
WK_INTERNAL void wk__set_history(wk_tensor *out, wk_node *n, uint32_t output_nr);
/* Does any tensor require grad (in grad mode)? */
WK_INTERNAL bool wk__any_requires_grad(int n, wk_tensor *const *ts);
WK_INTERNAL bool wk__tensor_requires_grad(const wk_tensor *t);
/* The edge a gradient for t flows along: (grad_fn, output_nr) or (AccumulateGrad(t), 0) or none. */
WK_INTERNAL wk_edge wk__gradient_edge(wk_tensor *t);
WK_INTERNAL void wk__autograd_meta_free(wk_tensor *t);

/* ---- saved tensors ---- */
/* Note [Saved-tensor hooks]: wk_saved_hooks and wk_set_saved_tensor_hooks are public (include/wick.h). */
WK_INTERNAL int wk__save(wk_saved *s, const wk_tensor *t, bool is_output, wk_node *owner); /* -1: an inference tensor */
/* An in-place op records its node after writing into `written`; torch saves the inputs before the write. A saved
 * input that shares written's version counter (written itself, or a view of it: `z.mul_(z)`) therefore expects
 * `before`, the version from before the write, and its backward reports the modification as torch's does. */
WK_INTERNAL void wk__saved_rewind(wk_saved *s, const wk_tensor *written, uint32_t before);
/* New reference, or NULL with an error set (freed graph, or modified in place). `t == NULL` saved gives NULL
 * without error: check s->defined. */
WK_INTERNAL wk_tensor *wk__unpack(wk_saved *s, wk_node *owner);
WK_INTERNAL void wk__saved_release(wk_saved *s);
WK_INTERNAL int wk__check_saved(wk_saved *s, wk_node *owner); /* version / freed checks only */

/* ---- in-place checks (Note [In-place correctness]) ---- */
/* How a view was made (torch's CreationMeta): in-place ops on views made by multi-output ops (unbind, split), in
 * no_grad mode or in inference mode are refused when they would be recorded. */
enum { WK_VIEW_DEFAULT = 0, WK_VIEW_MULTI_OUTPUT = 1, WK_VIEW_NO_GRAD = 2, WK_VIEW_INFERENCE = 3 };
/* Errors for in-place on a leaf that requires grad (or a view of one), in grad mode. */
WK_INTERNAL int wk__check_inplace(const wk_tensor *self);
/* The same, knowing whether another input of the in-place op requires grad (then views made by multi-output ops
 * or in no_grad mode are refused too, with torch's messages). */
WK_INTERNAL int wk__check_inplace_rg(const wk_tensor *self, bool other_requires_grad);
/* Note [View grad_fn refresh]: when the base or another view of it was modified in place since a view's grad_fn was
 * set, the view's history is regenerated as AsStridedBackward0 of the base's current history (torch does this
 * lazily in grad_fn()). Returns -1 with torch's error for views that may not be rebased. */
WK_INTERNAL int wk__view_refresh(wk_tensor *t);
/* After an in-place op on `self` recorded by node n (output 0). Handles views of tensors that need grad. */
WK_INTERNAL int wk__rebase_history(wk_tensor *self, wk_node *n);
/* A differentiable view: marks `view` as a view of `base` for in-place bookkeeping. */
WK_INTERNAL void wk__mark_view(wk_tensor *view, const wk_tensor *base);
/* The same for one output of an op that returns several views (unbind, split, ...). */
WK_INTERNAL void wk__mark_view_multi(wk_tensor *view, const wk_tensor *base);

/* ---- forward-mode AD (Note [Forward AD] in forward_ad.c) ---- */
WK_INTERNAL extern uint64_t wk__fw_level; /* the open dual level's stamp; 0: none open */
/* t's tangent at the open level (borrowed), or NULL. */
static inline wk_tensor *wk__fw_get(const wk_tensor *t) {
    return (t && t->fw_grad && t->fw_level == wk__fw_level && wk__fw_level) ? t->fw_grad : NULL;
}
/* t's tangent at level stamp `level` (for code that runs with forward AD suspended) */
static inline wk_tensor *wk__fw_get_at(const wk_tensor *t, uint64_t level) {
    return (t && t->fw_grad && t->fw_level == level && level) ? t->fw_grad : NULL;
}
WK_INTERNAL bool wk__fw_list_any(wk_tensorlist l);
/* Sets r's tangent to t (broadcast to r's shape, cast to r's dtype; none for a non-floating r). 0 / -1. */
WK_INTERNAL int wk__fw_set(wk_tensor *r, wk_tensor *t);
WK_INTERNAL void wk__fw_copy(wk_tensor *dst, const wk_tensor *src); /* dst gets src's tangent (an alias of src) */
WK_INTERNAL void wk__fw_refuse(const char *op); /* torch's NotImplementedError for an op without a jvp formula */

/* ---- engine, hooks, node accessors, detach, version: public (include/wick.h, "autograd") ---- */

#endif
