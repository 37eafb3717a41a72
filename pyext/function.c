/* function.c — torch.autograd.Function: a graph node whose backward is Python.
 *
 * The Python ctx object *is* the grad_fn (as in torch: `type(y.grad_fn).__name__ == 'MyFnBackward'`). The node
 * holds the ctx strongly; the ctx points at the node without owning it, so there is no reference cycle. */
#include "pyext.h"

typedef struct {
    wk_node base;
    PyObject *ctx;           /* strong */
    int64_t nargs;           /* forward's arguments */
    int64_t *tensor_arg;     /* [num_next]: which argument each edge belongs to */
    wk_input_meta *out_meta; /* [num_inputs]: output shapes, to materialise undefined grads as zeros */
} pyfunc_node;

typedef struct {
    PyObject_HEAD wk_node *node;
    PyObject *dict;
} node_obj; /* the layout of _C._FunctionBase (node.c) */

static int pyfunc_apply(wk_node *n_, wk_tensor **gi, wk_tensor **go) {
    pyfunc_node *n = (pyfunc_node *)n_;
    PyObject *grads = PyTuple_New(n_->num_inputs);
    if (!grads) return -1;
    for (uint32_t i = 0; i < n_->num_inputs; i++) {
        wk_tensor *g = gi[i] ? wk_retain(gi[i]) : NULL;
        PyObject *o;
        if (g) o = wk_py_wrap(g);
        else {
            o = Py_None;
            Py_INCREF(o);
        }
        if (!o) {
            Py_DECREF(grads);
            return -1;
        }
        PyTuple_SET_ITEM(grads, i, o);
    }
    PyObject *r = PyObject_CallMethod(n->ctx, "_do_backward", "(O)", grads);
    Py_DECREF(grads);
    if (!r) {
        wk_error_set(WK_RUNTIME_ERROR, "a Python backward raised");
        return -1;
    }
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != n->nargs) {
        PyErr_Format(PyExc_RuntimeError, "function %s returned an incorrect number of gradients (expected %lld, got %zd)",
                     wk_node_name(n_), (long long)n->nargs, PyTuple_Check(r) ? PyTuple_GET_SIZE(r) : (Py_ssize_t)1);
        Py_DECREF(r);
        wk_error_set(WK_RUNTIME_ERROR, "wrong number of gradients");
        return -1;
    }
    /* torch's checks, position by position: a non-tensor argument takes None, a tensor one a tensor or None */
    for (Py_ssize_t i = 0; i < (Py_ssize_t)n->nargs; i++) {
        PyObject *g = PyTuple_GET_ITEM(r, i);
        if (g == Py_None) continue;
        bool tensor_arg = false;
        for (uint32_t k = 0; k < n_->num_next && !tensor_arg; k++) tensor_arg = n->tensor_arg[k] == i;
        if (!tensor_arg)
            PyErr_Format(PyExc_RuntimeError, "function %s returned a gradient different than None at position %zd, but "
                         "the corresponding forward input was not a Variable", wk_node_name(n_), i + 1);
        else if (!WK_PyTensor_Check(g))
            PyErr_Format(PyExc_RuntimeError, "expected Variable or None (got %s)", Py_TYPE(g)->tp_name);
        else
            continue;
        Py_DECREF(r);
        wk_error_set(WK_RUNTIME_ERROR, "bad gradient");
        return -1;
    }
    for (uint32_t k = 0; k < n_->num_next; k++) {
        PyObject *g = PyTuple_GET_ITEM(r, n->tensor_arg[k]);
        if (g != Py_None) go[k] = wk_retain(wk_py_self(g));
    }
    Py_DECREF(r);
    return 0;
}

static void pyfunc_release(wk_node *n_) {
    pyfunc_node *n = (pyfunc_node *)n_;
    if (!n->ctx) return;
    PyObject *type, *value, *tb; /* keep an exception raised by backward: release runs after it */
    PyErr_Fetch(&type, &value, &tb);
    PyObject *r = PyObject_CallMethod(n->ctx, "_release_saved", NULL);
    if (!r) PyErr_Clear();
    Py_XDECREF(r);
    PyErr_Restore(type, value, tb);
}

static void pyfunc_destroy(wk_node *n_) {
    pyfunc_node *n = (pyfunc_node *)n_;
    free(n->tensor_arg);
    if (n->out_meta) {
        for (uint32_t i = 0; i < n_->num_inputs; i++) free(n->out_meta[i].sizes);
        free(n->out_meta);
    }
    if (n->ctx) {
        ((node_obj *)n->ctx)->node = NULL;
        Py_CLEAR(n->ctx);
    }
}

PyObject *wk_py_function_ctx(wk_node *n) {
    return n->vt->apply == pyfunc_apply ? ((pyfunc_node *)n)->ctx : NULL;
}

/* one vtable per Function class name, kept for the process lifetime */
static PyObject *vtables; /* name -> capsule(wk_node_vtable *) */

static const wk_node_vtable *vtable_for(const char *name) {
    if (!vtables && !(vtables = PyDict_New())) return NULL;
    PyObject *cap = PyDict_GetItemString(vtables, name);
    if (cap) return PyCapsule_GetPointer(cap, NULL);
    wk_node_vtable *vt = calloc(1, sizeof *vt);
    char *nm = strdup(name);
    if (!vt || !nm) {
        free(vt);
        free(nm);
        PyErr_NoMemory();
        return NULL;
    }
    vt->name = nm;
    vt->apply = pyfunc_apply;
    vt->release_saved = pyfunc_release;
    vt->destroy = pyfunc_destroy;
    cap = PyCapsule_New(vt, NULL, NULL);
    if (!cap || PyDict_SetItemString(vtables, name, cap) < 0) return NULL;
    Py_DECREF(cap);
    return vt;
}

static int contains_identity(PyObject *seq, PyObject *o) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence");
    if (!fast) return -1;
    int found = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast) && !found; i++)
        found = PySequence_Fast_GET_ITEM(fast, i) == o;
    Py_DECREF(fast);
    return found;
}

/* _function_record(ctx, args, outputs, non_differentiable, dirty) -> outputs (with history)
 * ctx: an instance of the Function's Backward class (a _C._FunctionBase subclass). */
static PyObject *m_function_record(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *ctx, *fargs, *outs, *nondiff, *dirty;
    if (!PyArg_ParseTuple(args, "OO!O!OO", &ctx, &PyTuple_Type, &fargs, &PyTuple_Type, &outs, &nondiff, &dirty))
        return NULL;
    Py_ssize_t na = PyTuple_GET_SIZE(fargs), no = PyTuple_GET_SIZE(outs);
    uint32_t nt = 0;
    for (Py_ssize_t i = 0; i < na; i++) nt += WK_PyTensor_Check(PyTuple_GET_ITEM(fargs, i));
    const wk_node_vtable *vt = vtable_for(Py_TYPE(ctx)->tp_name);
    if (!vt) return NULL;
    pyfunc_node *n = (pyfunc_node *)wk__node_new(vt, sizeof(pyfunc_node), (uint32_t)no, nt);
    if (!n) return wk_py_raise();
    n->nargs = na;
    n->tensor_arg = calloc(nt ? nt : 1, sizeof(int64_t));
    n->out_meta = calloc((size_t)(no ? no : 1), sizeof(wk_input_meta));
    PyObject *result = NULL;
    if (!n->tensor_arg || !n->out_meta) {
        PyErr_NoMemory();
        goto done;
    }
    uint32_t k = 0;
    for (Py_ssize_t i = 0; i < na; i++) {
        PyObject *a = PyTuple_GET_ITEM(fargs, i);
        if (!WK_PyTensor_Check(a)) continue;
        n->tensor_arg[k] = i;
        if (wk__node_set_next(&n->base, k, wk_py_self(a)) < 0) {
            wk_py_raise();
            goto done;
        }
        k++;
    }
    Py_INCREF(ctx);
    n->ctx = ctx;
    ((node_obj *)ctx)->node = &n->base; /* borrowed: the node owns the ctx */
    n->base.pyobj = ctx;
    result = PyTuple_New(no);
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < no; i++) {
        PyObject *o = PyTuple_GET_ITEM(outs, i);
        if (!WK_PyTensor_Check(o)) {
            Py_INCREF(o);
            PyTuple_SET_ITEM(result, i, o);
            continue;
        }
        wk_tensor *t = wk_py_self(o);
        n->out_meta[i].ndim = t->ndim;
        n->out_meta[i].dtype = t->dtype;
        n->out_meta[i].sizes = malloc(sizeof(int64_t) * (size_t)(t->ndim ? t->ndim : 1));
        if (!n->out_meta[i].sizes) {
            PyErr_NoMemory();
            Py_CLEAR(result);
            goto done;
        }
        memcpy(n->out_meta[i].sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        int is_nondiff = contains_identity(nondiff, o);
        int is_dirty = contains_identity(dirty, o);
        int is_input = contains_identity(fargs, o);
        if (is_nondiff < 0 || is_dirty < 0 || is_input < 0) {
            Py_CLEAR(result);
            goto done;
        }
        PyObject *out_obj;
        if (is_nondiff || !wk_dtype_is_floating(t->dtype)) {
            /* not differentiable: no history; one that requires grad comes back detached (an input as a new alias,
             * another output in place unless it is a view), one that does not as is (an unmodified input as a
             * new alias) -- torch's _wrap_outputs */
            wk_tensor *r;
            if (!wk_requires_grad(t)) r = is_input && !is_dirty ? wk_detach(t) : wk_retain(t);
            else if (is_input) r = wk_detach(t);
            else {
                if (!t->is_view && wk_detach_(t) < 0) {
                    wk_py_raise();
                    Py_CLEAR(result);
                    goto done;
                }
                r = wk_retain(t);
            }
            if (r == t) {
                wk_release(r);
                Py_INCREF(o);
                out_obj = o;
            } else
                out_obj = wk_py_wrap(r);
        } else if (is_dirty) { /* modified in place and returned: its history is rebased onto this node */
            if (!t->grad_fn && t->requires_grad) {
                PyErr_SetString(PyExc_RuntimeError, "a leaf Variable that requires grad has been used in an in-place "
                                                    "operation.");
                Py_CLEAR(result);
                goto done;
            }
            if (wk__rebase_history(t, &n->base) < 0) {
                wk_py_raise();
                Py_CLEAR(result);
                goto done;
            }
            Py_INCREF(o);
            out_obj = o;
        } else {
            wk_tensor *r = is_input ? wk_detach(t) : wk_retain(t); /* an input returned as is becomes a new alias */
            if (nt > 0) wk__set_history(r, &n->base, (uint32_t)i);
            out_obj = wk_py_wrap(r);
        }
        if (!out_obj) {
            Py_CLEAR(result);
            goto done;
        }
        PyTuple_SET_ITEM(result, i, out_obj);
    }
done:
    wk_node_release(&n->base);
    return result;
}

/* _saved_alias(t): t without history, sharing storage and version counter (to save an output in a ctx without
 * a cycle). _attach_history(t, ctx, output_nr): a new alias of t whose grad_fn is ctx's node. */
static PyObject *m_saved_alias(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = wk_py_self(o);
    return wk_py_wrap(wk_alias(t, t->ndim, t->sizes, t->strides, t->offset));
}

/* _bump_version(t): a Function's mark_dirty counts as a write to t */
static PyObject *m_bump_version(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_bump_version(wk_py_self(o));
    Py_RETURN_NONE;
}

static PyObject *m_attach_history(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *o, *ctx;
    unsigned int nr;
    if (!PyArg_ParseTuple(args, "OOI", &o, &ctx, &nr)) return NULL;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = wk_py_self(o);
    wk_tensor *a = wk_alias(t, t->ndim, t->sizes, t->strides, t->offset);
    if (!a) return wk_py_raise();
    wk_node *n = ((node_obj *)ctx)->node;
    if (n) wk__set_history(a, n, nr);
    return wk_py_wrap(a);
}

PyMethodDef wk_py_function_functions[] = {
    {"_function_record", m_function_record, METH_VARARGS, NULL},
    {"_bump_version", m_bump_version, METH_O, NULL},
    {"_saved_alias", m_saved_alias, METH_O, NULL},
    {"_attach_history", m_attach_history, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
