/* gc.c — what a Python tensor holds through its C tensor, told to Python's cycle collector.
 *
 * Note [Tensors in reference cycles]: a wrapper owns one reference to its wk_tensor; the tensor owns its Python
 * hooks (register_hook callables) and its grad_fn, and a Function's grad_fn owns its ctx. A hook that closes over its
 * tensor, or a ctx that keeps the Function's output, is then a cycle the collector cannot see. As torch's
 * THPVariable_subclass_traverse does, the wrapper reports those objects only while nothing outside Python can reach
 * them: the tensor's one reference is the wrapper's, and the grad_fn's one reference is the tensor's. Anything else
 * also holding them (a graph, a saved tensor) keeps them alive anyway, so the cycle is not garbage. */
#include "pyext.h"

void wk_py_hook_decref(void *ctx) { Py_XDECREF((PyObject *)ctx); }

static int visit_hooks(wk_hook *h, visitproc visit, void *arg) {
    for (; h; h = h->next)
        if (h->free_ctx == wk_py_hook_decref) Py_VISIT((PyObject *)h->ctx);
    return 0;
}

/* Unlinks the Python hooks of *pp, then drops them (a hook's release may run Python that reaches the list). */
static void clear_hooks(wk_hook **pp) {
    wk_hook *dead = NULL;
    while (*pp) {
        wk_hook *h = *pp;
        if (h->free_ctx == wk_py_hook_decref && !h->retain_target) {
            *pp = h->next;
            h->next = dead;
            dead = h;
        } else
            pp = &h->next;
    }
    while (dead) {
        wk_hook *h = dead;
        dead = h->next;
        Py_XDECREF((PyObject *)h->ctx);
        free(h);
    }
}

static wk_tensor *owned_only_by(PyObject *o) {
    wk_tensor *t = ((wk_PyTensor *)o)->t;
    return t && t->refcount == 1 && t->pyobj == o ? t : NULL;
}

int wk_py_tensor_traverse_c(PyObject *o, visitproc visit, void *arg) {
    wk_tensor *t = owned_only_by(o);
    if (!t) return 0;
    int r = visit_hooks(t->hooks, visit, arg);
    if (r) return r;
    wk_node *fn = t->grad_fn;
    if (fn && fn->refcount == 1) {
        if ((r = visit_hooks(fn->pre_hooks, visit, arg)) || (r = visit_hooks(fn->post_hooks, visit, arg))) return r;
        PyObject *ctx = wk_py_function_ctx(fn);
        Py_VISIT(ctx);
    }
    return 0;
}

void wk_py_tensor_clear_c(PyObject *o) {
    wk_tensor *t = owned_only_by(o);
    if (!t) return;
    clear_hooks(&t->hooks);
    if (t->grad_fn && t->grad_fn->refcount == 1) {
        clear_hooks(&t->grad_fn->pre_hooks);
        clear_hooks(&t->grad_fn->post_hooks);
    }
}
