/* node.c — grad_fn objects: one Python class per node name (MulBackward0, AccumulateGrad, ...), so
 * `type(y.grad_fn).__name__` and `y.grad_fn.name()` read as torch's. */
#include "pyext.h"

typedef struct {
    PyObject_HEAD wk_node *node;
    PyObject *dict;
} wk_PyNode;

static PyTypeObject *NodeBase;
static PyObject *node_types; /* name -> type */

static void node_dealloc(PyObject *o) {
    wk_PyNode *self = (wk_PyNode *)o;
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    Py_CLEAR(self->dict);
    if (self->node) {
        if (self->node->pyobj == o) self->node->pyobj = NULL;
        wk_node_release(self->node);
    }
    tp->tp_free(o);
    Py_DECREF(tp);
}
static int node_traverse(PyObject *o, visitproc visit, void *arg) {
    Py_VISIT(((wk_PyNode *)o)->dict);
    Py_VISIT(Py_TYPE(o));
    return 0;
}
static int node_clear(PyObject *o) {
    Py_CLEAR(((wk_PyNode *)o)->dict);
    return 0;
}

static PyObject *n_name(PyObject *self, PyObject *unused) {
    (void)unused;
    const char *nm = wk_node_name(((wk_PyNode *)self)->node);
    if (wk_node_name_is_cpp(nm)) return PyUnicode_FromFormat("torch::autograd::%s", nm);
    return PyUnicode_FromString(nm);
}

static PyObject *g_next_functions(PyObject *self, void *c) {
    (void)c;
    wk_node *n = ((wk_PyNode *)self)->node;
    uint32_t k = wk_node_num_next(n);
    PyObject *tup = PyTuple_New(k);
    for (uint32_t i = 0; tup && i < k; i++) {
        uint32_t nr = 0;
        wk_node *nx = wk_node_next(n, i, &nr);
        PyObject *fn = nx ? wk_py_node_wrap(nx) : (Py_INCREF(Py_None), Py_None);
        PyTuple_SET_ITEM(tup, i, Py_BuildValue("(NI)", fn, nr));
    }
    return tup;
}

static PyObject *g_variable(PyObject *self, void *c) {
    (void)c;
    wk_tensor *t = wk_node_variable(((wk_PyNode *)self)->node);
    if (!t) return PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'variable'", Py_TYPE(self)->tp_name);
    return wk_py_wrap(wk_retain(t));
}

static PyObject *g_metadata(PyObject *self, void *c) {
    (void)c;
    wk_PyNode *n = (wk_PyNode *)self;
    if (!n->dict) n->dict = PyDict_New();
    PyObject *md = PyDict_GetItemString(n->dict, "__metadata");
    if (!md) {
        md = PyDict_New();
        PyDict_SetItemString(n->dict, "__metadata", md);
        Py_DECREF(md);
    }
    Py_INCREF(md);
    return md;
}

/* A node hook's result replaces the gradients it was given (torch's checks: a tuple of the same length, None
 * stays None, each tensor of the same type and size). */
static int replace_grads(void *hook, PyObject *r, wk_tensor **g, int n) {
    PyObject *nm = PyObject_GetAttrString((PyObject *)hook, "__name__");
    if (!nm) {
        PyErr_Clear();
        nm = PyUnicode_FromString("<unknown>");
    }
    int rc = -1;
    if (!PyTuple_Check(r)) {
        PyErr_Format(PyExc_TypeError, "expected tuple, but hook returned '%s'", Py_TYPE(r)->tp_name);
        goto out;
    }
    if (PyTuple_GET_SIZE(r) != n) {
        PyErr_Format(PyExc_RuntimeError, "hook '%S' has returned an incorrect number of values (got %zd, but expected "
                     "%d)", nm, PyTuple_GET_SIZE(r), n);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(r, i);
        if (v == Py_None) continue;
        if (!WK_PyTensor_Check(v)) {
            PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'", Py_TYPE(v)->tp_name);
            goto out;
        }
        if (!g[i]) {
            PyErr_SetString(PyExc_RuntimeError, "can't replace a None gradient with a non-None value");
            goto out;
        }
        wk_tensor *t = wk_py_self(v);
        if (t->dtype != g[i]->dtype) {
            PyErr_Format(PyExc_RuntimeError, "hook '%S' has changed the type of value (was torch.%sTensor got "
                         "torch.%sTensor)", nm, wk_dtype_scalar_name(g[i]->dtype), wk_dtype_scalar_name(t->dtype));
            goto out;
        }
        if (t->ndim != g[i]->ndim || (t->ndim && memcmp(t->sizes, g[i]->sizes, sizeof(int64_t) * (size_t)t->ndim))) {
            PyErr_Format(PyExc_RuntimeError, "hook '%S' has changed the size of value", nm);
            goto out;
        }
    }
    for (int i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(r, i);
        wk_tensor *old = g[i];
        g[i] = v == Py_None ? NULL : wk_retain(wk_py_self(v));
        wk_release(old);
    }
    rc = 0;
out:
    Py_DECREF(nm);
    return rc;
}

/* grad_fn.register_hook(fn(grad_inputs, grad_outputs)) / register_prehook(fn(grad_outputs)) */
static int post_hook(void *ctx, wk_node *node, wk_tensor **gin, int nin, wk_tensor **gout, int nout) {
    (void)node;
    PyObject *a = PyTuple_New(nin), *b = PyTuple_New(nout);
    for (int i = 0; a && i < nin; i++)
        PyTuple_SET_ITEM(a, i, gin[i] ? wk_py_wrap(wk_retain(gin[i])) : (Py_INCREF(Py_None), Py_None));
    for (int i = 0; b && i < nout; i++)
        PyTuple_SET_ITEM(b, i, gout[i] ? wk_py_wrap(wk_retain(gout[i])) : (Py_INCREF(Py_None), Py_None));
    PyObject *r = a && b ? PyObject_CallFunctionObjArgs((PyObject *)ctx, a, b, NULL) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (!r) {
        wk_error_set(WK_RUNTIME_ERROR, "hook raised");
        return -1;
    }
    if (r != Py_None && replace_grads(ctx, r, gin, nin) < 0) {
        Py_DECREF(r);
        wk_error_set(WK_RUNTIME_ERROR, "hook raised");
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

static PyObject *n_register_hook(PyObject *self, PyObject *fn) {
    Py_INCREF(fn);
    if (wk_node_register_hook(((wk_PyNode *)self)->node, post_hook, fn, wk_py_hook_decref) < 0) {
        Py_DECREF(fn);
        return wk_py_raise();
    }
    Py_RETURN_NONE;
}

static PyObject *n_call_unsupported(PyObject *self, PyObject *args) {
    (void)args;
    return PyErr_Format(PyExc_NotImplementedError, "calling %s directly is not supported by wick",
                        Py_TYPE(self)->tp_name);
}

/* grad_fn._sequence_nr(): the node's creation order (AccumulateGrad: UINT64_MAX, as torch's) */
static PyObject *n_sequence_nr(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong((unsigned long long)((wk_PyNode *)self)->node->seq_nr);
}

static PyMethodDef node_methods[] = {
    {"name", n_name, METH_NOARGS, NULL},
    {"_sequence_nr", n_sequence_nr, METH_NOARGS, NULL},
    {"register_hook", n_register_hook, METH_O, NULL},
    {"apply", n_call_unsupported, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
static PyGetSetDef node_getset[] = {
    {"next_functions", g_next_functions, NULL, NULL, NULL},
    {"variable", g_variable, NULL, NULL, NULL},
    {"metadata", g_metadata, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* object's repr: '<MulBackward0 object at 0x...>' (the module 'builtins' is left out, as Python does for its own
 * types), '<torch.autograd.function.MyFnBackward object at 0x...>' for a custom Function's node */
static PyObject *node_repr(PyObject *self) {
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__module__");
    PyObject *qual = mod ? PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__qualname__") : NULL;
    PyObject *r = NULL;
    if (qual) {
        if (PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "builtins"))
            r = PyUnicode_FromFormat("<%S.%S object at %p>", mod, qual, self);
        else
            r = PyUnicode_FromFormat("<%S object at %p>", qual, self);
    }
    Py_XDECREF(mod);
    Py_XDECREF(qual);
    return r;
}

static PyTypeObject *type_for(const char *name) {
    PyObject *t = PyDict_GetItemString(node_types, name);
    if (t) return (PyTypeObject *)t;
    /* torch's node classes are named <Name> with __module__ 'builtins': their repr and their class's read
     * "<MulBackward0 object at 0x...>", "<class 'MulBackward0'>". The spec says "builtins.<Name>" (a name without a
     * module is deprecated), then tp_name, which those reprs print, drops the module */
    size_t len = strlen(name) + 10;
    char *nm = malloc(len); /* lives as long as the type (forever) */
    if (nm) snprintf(nm, len, "builtins.%s", name);
    if (!nm) return (PyTypeObject *)PyErr_NoMemory();
    PyType_Slot slots[] = {{Py_tp_traverse, node_traverse}, {Py_tp_clear, node_clear}, {0, NULL}};
    PyType_Spec spec = {nm, sizeof(wk_PyNode), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, slots};
    PyObject *bases = PyTuple_Pack(1, (PyObject *)NodeBase);
    if (!bases) return NULL;
    t = PyType_FromSpecWithBases(&spec, bases);
    Py_DECREF(bases);
    if (!t) return NULL;
    ((PyTypeObject *)t)->tp_name = nm + strlen("builtins.");
    PyDict_SetItemString(node_types, name, t);
    Py_DECREF(t);
    return (PyTypeObject *)t;
}

PyObject *wk_py_node_wrap(wk_node *n) {
    if (n->pyobj) {
        Py_INCREF((PyObject *)n->pyobj);
        return (PyObject *)n->pyobj;
    }
    PyTypeObject *tp = type_for(wk_node_name(n));
    if (!tp) return NULL;
    wk_PyNode *o = (wk_PyNode *)tp->tp_alloc(tp, 0);
    if (!o) return NULL;
    wk_node_retain(n);
    o->node = n;
    n->pyobj = o;
    return (PyObject *)o;
}

int wk_py_node_init(PyObject *m) {
    static PyMemberDef members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(wk_PyNode, dict), READONLY, NULL},
                                    {NULL, 0, 0, 0, NULL}};
    PyType_Slot slots[] = {{Py_tp_dealloc, node_dealloc}, {Py_tp_traverse, node_traverse}, {Py_tp_clear, node_clear},
                           {Py_tp_methods, node_methods}, {Py_tp_getset, node_getset}, {Py_tp_members, members},
                           {Py_tp_repr, node_repr},       {0, NULL}};
    PyType_Spec spec = {"wick._C._FunctionBase", sizeof(wk_PyNode), 0,
                        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
    NodeBase = (PyTypeObject *)PyType_FromModuleAndSpec(m, &spec, NULL);
    if (!NodeBase) return -1;
    node_types = PyDict_New();
    if (!node_types) return -1;
    Py_INCREF(NodeBase);
    if (PyModule_AddObject(m, "_FunctionBase", (PyObject *)NodeBase) < 0) return -1;
    Py_INCREF(node_types);
    return PyModule_AddObject(m, "_node_types", node_types);
}
