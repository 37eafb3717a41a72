/* tensor_methods.c — Tensor methods and properties that are not ops: metadata, conversion, autograd entry points. */
#include "pyext.h"

#define SELF wk_py_self(self)

static PyObject *dim_arg(PyObject *self, PyObject *args, PyObject *kwargs, bool stride) {
    static char *kw[] = {"dim", NULL};
    PyObject *d = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", kw, &d)) return NULL;
    wk_tensor *t = SELF;
    const int64_t *v = stride ? wk_strides(t) : wk_sizes(t);
    if (d == Py_None) {
        if (stride) {
            PyObject *tup = PyTuple_New(wk_ndim(t));
            for (int i = 0; tup && i < wk_ndim(t); i++) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(v[i]));
            return tup;
        }
        return wk_py_size(v, wk_ndim(t));
    }
    long long dim = PyLong_AsLongLong(d);
    if (dim == -1 && PyErr_Occurred()) return NULL;
    int64_t w;
    if (wk_wrap_dim(dim, wk_ndim(t), &w) < 0) return wk_py_raise();
    if (wk_ndim(t) == 0) return PyLong_FromLong(stride ? 1 : 1);
    return PyLong_FromLongLong(v[w]);
}
static PyObject *m_size(PyObject *self, PyObject *args, PyObject *kw) { return dim_arg(self, args, kw, false); }
static PyObject *m_stride(PyObject *self, PyObject *args, PyObject *kw) { return dim_arg(self, args, kw, true); }
static PyObject *m_dim(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLong(wk_ndim(SELF));
}
static PyObject *m_numel(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(wk_numel(SELF));
}
static PyObject *m_element_size(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromSize_t(wk_dtype_size(wk_tensor_dtype(SELF)));
}
static PyObject *m_storage_offset(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(wk_storage_offset(SELF));
}
static PyObject *m_data_ptr(PyObject *self, PyObject *unused) {
    (void)unused;
    if (wk_numel(SELF) == 0) return PyLong_FromLong(0); /* torch: an empty tensor's data_ptr() is 0 */
    return PyLong_FromVoidPtr(wk_data_ptr(SELF));
}
static PyObject *m_is_contiguous(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)args;
    (void)kwargs;
    return PyBool_FromLong(wk_is_contiguous(SELF));
}
static PyObject *m_is_floating_point(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(wk_dtype_is_floating(wk_tensor_dtype(SELF)));
}
static PyObject *m_is_view(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(wk_is_view(SELF));
}

static PyObject *tolist_rec(const wk_tensor *t, const char *p, int d) {
    if (d == t->ndim) return wk_py_from_scalar(wk_scalar_load(p, t->dtype));
    PyObject *l = PyList_New((Py_ssize_t)t->sizes[d]);
    if (!l) return NULL;
    size_t esz = wk_dtype_size(t->dtype);
    bool empty_below = false; /* nothing is read below d: its strides may be any size (empty(2**62, 2, 0)) */
    for (int k = d + 1; k < t->ndim; k++) empty_below |= t->sizes[k] == 0;
    for (int64_t i = 0; i < t->sizes[d]; i++) {
        PyObject *x = tolist_rec(t, empty_below ? p : p + i * t->strides[d] * (int64_t)esz, d + 1);
        if (!x) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, x);
    }
    return l;
}
static PyObject *m_tolist(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_tensor *t = wk_host_tensor(SELF); /* Note [Host reads] (src/core/host.h) */
    if (!t) return wk_py_raise();
    PyObject *r = tolist_rec(t, wk_data_ptr(t), 0);
    wk_release(t);
    return r;
}
static PyObject *m_item(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_scalar s;
    if (wk_item(SELF, &s) < 0) return wk_py_raise();
    return wk_py_from_scalar(s);
}

static PyObject *m_detach(PyObject *self, PyObject *unused) {
    (void)unused;
    return wk_py_wrap(wk_detach(SELF));
}
static PyObject *m_detach_(PyObject *self, PyObject *unused) {
    (void)unused;
    if (wk_detach_(SELF) < 0) return wk_py_raise();
    Py_INCREF(self);
    return self;
}
/* requires_grad_(requires_grad=True): a bool and nothing else, with torch's argument-parser messages. */
static PyObject *m_requires_grad_(PyObject *self, PyObject *args, PyObject *kwargs) {
    Py_ssize_t np = args ? PyTuple_GET_SIZE(args) : 0;
    PyObject *v = np ? PyTuple_GET_ITEM(args, 0) : NULL, *key, *val;
    Py_ssize_t pos = 0;
    if (np > 1)
        return PyErr_Format(PyExc_TypeError, "requires_grad_() takes from 0 to 1 positional arguments but %zd were "
                            "given", np);
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &val)) {
        if (!PyUnicode_Check(key) || PyUnicode_CompareWithASCIIString(key, "requires_grad"))
            return PyErr_Format(PyExc_TypeError, "requires_grad_() got an unexpected keyword argument '%S'", key);
        if (v) return PyErr_Format(PyExc_TypeError, "requires_grad_() got multiple values for argument 'requires_grad'");
        v = val;
    }
    if (v && !PyBool_Check(v))
        return PyErr_Format(PyExc_TypeError, "requires_grad_(): argument 'requires_grad' %smust be bool, not %s",
                            np ? "(position 1) " : "", Py_TYPE(v)->tp_name);
    if ((!v || v == Py_True) && SELF->version->inference && !wk_is_inference_mode_enabled())
        return PyErr_Format(PyExc_RuntimeError,
                            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    if (wk_requires_grad_(SELF, !v || v == Py_True) < 0) return wk_py_raise();
    Py_INCREF(self);
    return self;
}
static PyObject *m_retain_grad(PyObject *self, PyObject *unused) {
    (void)unused;
    if (wk_retain_grad(SELF) < 0) return wk_py_raise();
    Py_RETURN_NONE;
}

/* ---- hooks: Python callables as C hooks ---- */
static wk_tensor *py_hook(void *ctx, wk_tensor *grad, int *err) {
    PyObject *g = wk_py_wrap(wk_retain(grad));
    if (!g) {
        *err = 1;
        return NULL;
    }
    PyObject *r = PyObject_CallOneArg((PyObject *)ctx, g);
    Py_DECREF(g);
    if (!r) {
        *err = 1;
        wk_error_set(WK_RUNTIME_ERROR, "hook raised");
        return NULL;
    }
    if (r == Py_None) {
        Py_DECREF(r);
        return NULL;
    }
    if (!WK_PyTensor_Check(r)) {
        PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'", Py_TYPE(r)->tp_name);
        Py_DECREF(r);
        *err = 1;
        return NULL;
    }
    /* torch's check of a hook's result: the same type, then the same size */
    wk_tensor *out = wk_py_self(r);
    wk_dtype a = wk_tensor_dtype(grad), b = wk_tensor_dtype(out);
    bool resized = grad->ndim != out->ndim ||
                   (grad->ndim && memcmp(grad->sizes, out->sizes, sizeof(int64_t) * (size_t)grad->ndim));
    if (a != b || resized) {
        PyObject *nm = PyObject_GetAttrString((PyObject *)ctx, "__name__");
        if (!nm) {
            PyErr_Clear();
            nm = PyUnicode_FromString("<unknown>");
        }
        if (a != b)
            PyErr_Format(PyExc_RuntimeError, "hook '%S' has changed the type of value (was torch.%sTensor got "
                         "torch.%sTensor)", nm, wk_dtype_scalar_name(a), wk_dtype_scalar_name(b));
        else
            PyErr_Format(PyExc_RuntimeError, "hook '%S' has changed the size of value", nm);
        Py_XDECREF(nm);
        Py_DECREF(r);
        *err = 1;
        return NULL;
    }
    wk_retain(out);
    Py_DECREF(r);
    return out;
}

static PyObject *m_register_hook_c(PyObject *self, PyObject *fn) {
    if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "hook must be callable");
    Py_INCREF(fn);
    int id = wk_tensor_register_hook(SELF, py_hook, fn, wk_py_hook_decref);
    if (id < 0) {
        Py_DECREF(fn);
        return wk_py_raise();
    }
    return PyLong_FromLong(id);
}
/* register_post_accumulate_grad_hook: the hooks live in the wrapper's _post_accumulate_grad_hooks dict; the engine
 * calls back here after the leaf's .grad was accumulated */
static int py_post_acc(wk_tensor *leaf) {
    PyObject *self = (PyObject *)leaf->pyobj;
    if (!self) return 0;
    Py_INCREF(self);
    int rc = 0;
    PyObject *hooks = PyObject_GetAttrString(self, "_post_accumulate_grad_hooks");
    PyObject *vals = hooks && hooks != Py_None ? PyObject_CallMethod(hooks, "values", NULL) : NULL;
    PyObject *fast = vals ? PySequence_Fast(vals, "hooks") : NULL;
    if (!hooks) PyErr_Clear();
    else if (!fast && hooks != Py_None) rc = -1;
    for (Py_ssize_t i = 0; fast && rc == 0 && i < PySequence_Fast_GET_SIZE(fast); i++) {
        PyObject *r = PyObject_CallOneArg(PySequence_Fast_GET_ITEM(fast, i), self);
        if (!r) rc = -1;
        else if (r != Py_None) {
            PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'", Py_TYPE(r)->tp_name);
            rc = -1;
        }
        Py_XDECREF(r);
    }
    Py_XDECREF(fast);
    Py_XDECREF(vals);
    Py_XDECREF(hooks);
    Py_DECREF(self);
    if (rc < 0) wk_error_set(WK_RUNTIME_ERROR, "hook raised");
    return rc;
}
static PyObject *m_set_post_acc(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_set_post_accumulate_grad_callback(py_post_acc);
    wk_tensor_set_post_accumulate_grad_flag(SELF, true);
    Py_RETURN_NONE;
}
static PyObject *m_remove_hook_c(PyObject *self, PyObject *id) {
    long i = PyLong_AsLong(id);
    if (i == -1 && PyErr_Occurred()) return NULL;
    wk_tensor_remove_hook(SELF, (int)i);
    Py_RETURN_NONE;
}

PyMethodDef wk_py_tensor_methods[] = {
    {"size", (PyCFunction)(void (*)(void))m_size, METH_VARARGS | METH_KEYWORDS, NULL},
    {"stride", (PyCFunction)(void (*)(void))m_stride, METH_VARARGS | METH_KEYWORDS, NULL},
    {"dim", m_dim, METH_NOARGS, NULL},
    {"ndimension", m_dim, METH_NOARGS, NULL},
    {"numel", m_numel, METH_NOARGS, NULL},
    {"nelement", m_numel, METH_NOARGS, NULL},
    {"element_size", m_element_size, METH_NOARGS, NULL},
    {"storage_offset", m_storage_offset, METH_NOARGS, NULL},
    {"data_ptr", m_data_ptr, METH_NOARGS, NULL},
    {"is_contiguous", (PyCFunction)(void (*)(void))m_is_contiguous, METH_VARARGS | METH_KEYWORDS, NULL},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, NULL},
    {"_is_view", m_is_view, METH_NOARGS, NULL},
    {"tolist", m_tolist, METH_NOARGS, NULL},
    {"item", m_item, METH_NOARGS, NULL},
    {"detach", m_detach, METH_NOARGS, NULL},
    {"detach_", m_detach_, METH_NOARGS, NULL},
    {"requires_grad_", (PyCFunction)(void (*)(void))m_requires_grad_, METH_VARARGS | METH_KEYWORDS, NULL},
    {"retain_grad", m_retain_grad, METH_NOARGS, NULL},
    {"_register_hook", m_register_hook_c, METH_O, NULL},
    {"_set_post_accumulate_grad_hooks", m_set_post_acc, METH_NOARGS, NULL},
    {"_remove_hook", m_remove_hook_c, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

/* ---- properties ---- */
static PyObject *g_shape(PyObject *self, void *c) {
    (void)c;
    return wk_py_size(wk_sizes(SELF), wk_ndim(SELF));
}
static PyObject *g_dtype(PyObject *self, void *c) {
    (void)c;
    return wk_py_from_dtype(wk_tensor_dtype(SELF));
}
static PyObject *g_ndim(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(wk_ndim(SELF));
}
static PyObject *g_requires_grad(PyObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(wk_requires_grad(SELF));
}
static int s_requires_grad(PyObject *self, PyObject *v, void *c) {
    (void)c;
    /* torch's setter: a RuntimeError for a non-bool, the leaf check for either value, then the dtype (its own
     * wording, unlike requires_grad_'s) */
    if (!v || !PyBool_Check(v)) {
        PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool");
        return -1;
    }
    if (wk_grad_fn(SELF) && v == Py_True) {
        PyErr_SetString(PyExc_RuntimeError, "you can only change requires_grad flags of leaf variables.");
        return -1;
    }
    if (v == Py_True && SELF->version->inference && !wk_is_inference_mode_enabled()) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
        return -1;
    }
    if (v == Py_True && !wk_dtype_is_floating(wk_tensor_dtype(SELF))) {
        PyErr_SetString(PyExc_RuntimeError, "only Tensors of floating point and complex dtype can require gradients");
        return -1;
    }
    if (wk_requires_grad_(SELF, v == Py_True) < 0) return wk_py_raise(), -1;
    return 0;
}
static PyObject *g_grad(PyObject *self, void *c) {
    (void)c;
    if (!wk_is_leaf(SELF) && !wk_retains_grad(SELF) &&
        PyErr_WarnEx(PyExc_UserWarning,
                     "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                     "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                     "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                     "Tensor by mistake, make sure you access the leaf Tensor instead. See "
                     "github.com/pytorch/pytorch/pull/30531 for more information.",
                     1) < 0)
        return NULL;
    wk_tensor *g = wk_grad(SELF);
    if (!g) Py_RETURN_NONE;
    return wk_py_wrap(wk_retain(g));
}
static int s_grad(PyObject *self, PyObject *v, void *c) {
    (void)c;
    if (v && v != Py_None && !WK_PyTensor_Check(v)) {
        PyErr_Format(PyExc_TypeError, "assigned grad expected to be a Tensor or None but got grad of type %s",
                     Py_TYPE(v)->tp_name);
        return -1;
    }
    if (wk_set_grad(SELF, v && v != Py_None ? wk_py_self(v) : NULL) < 0) return wk_py_raise(), -1;
    return 0;
}
static PyObject *g_is_leaf(PyObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(wk_is_leaf(SELF));
}
static PyObject *g_grad_fn(PyObject *self, void *c) {
    (void)c;
    if (wk__view_refresh(SELF) < 0) return wk_py_raise(); /* Note [View grad_fn refresh] */
    wk_node *n = wk_grad_fn(SELF);
    if (!n) Py_RETURN_NONE;
    return wk_py_node_wrap(n);
}
static PyObject *g_data(PyObject *self, void *c) {
    (void)c;
    return wk_py_wrap(wk_variable_data(SELF)); /* same storage, no history, its own version counter */
}
static int s_data(PyObject *self, PyObject *v, void *c) {
    (void)c;
    if (!v || !WK_PyTensor_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "Variable data has to be a tensor, but got something else");
        return -1;
    }
    if (wk_set_data(SELF, wk_py_self(v)) < 0) { /* torch's set_data: SELF takes v's storage, geometry, dtype */
        wk_py_raise();
        return -1;
    }
    return 0;
}
static PyObject *g_version(PyObject *self, void *c) {
    (void)c;
    if (SELF->version->inference)
        return PyErr_Format(PyExc_RuntimeError, "Inference tensors do not track version counter.");
    return PyLong_FromUnsignedLong(wk_version_get(SELF));
}
static PyObject *g_base(PyObject *self, void *c) {
    (void)c;
    wk_tensor *base = wk_view_base(SELF);
    if (!base) Py_RETURN_NONE;
    return wk_py_wrap(wk_retain(base));
}
static PyObject *g_false(PyObject *self, void *c) {
    (void)self;
    (void)c;
    Py_RETURN_FALSE;
}
static PyObject *g_retains_grad(PyObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(wk_retains_grad(SELF));
}
static PyObject *g_output_nr(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong((long)SELF->output_nr);
}
static PyObject *g_is_inference(PyObject *self, void *c) {
    (void)c;
    bool r = false;
    if (wk_is_inference(SELF, &r) < 0) return wk_py_raise();
    return PyBool_FromLong(r);
}

PyGetSetDef wk_py_tensor_getset[] = {
    {"shape", g_shape, NULL, NULL, NULL},
    {"dtype", g_dtype, NULL, NULL, NULL},
    {"ndim", g_ndim, NULL, NULL, NULL},
    {"requires_grad", g_requires_grad, s_requires_grad, NULL, NULL},
    {"grad", g_grad, s_grad, NULL, NULL},
    {"is_leaf", g_is_leaf, NULL, NULL, NULL},
    {"grad_fn", g_grad_fn, NULL, NULL, NULL},
    {"data", g_data, s_data, NULL, NULL},
    {"_version", g_version, NULL, NULL, NULL},
    {"_base", g_base, NULL, NULL, NULL},
    {"is_cuda", g_false, NULL, NULL, NULL},
    {"is_sparse", g_false, NULL, NULL, NULL},
    {"is_quantized", g_false, NULL, NULL, NULL},
    {"is_meta", g_false, NULL, NULL, NULL},
    {"is_mps", g_false, NULL, NULL, NULL},
    {"is_complex_", g_false, NULL, NULL, NULL},
    {"retains_grad", g_retains_grad, NULL, NULL, NULL},
    {"output_nr", g_output_nr, NULL, NULL, NULL},
    {"_is_inference", g_is_inference, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

