/* vmap.c — the seam torch.func.vmap's batching transform stands on (wick/func/_vmap.py, Note [vmap]).
 *
 * A batched tensor is a Python object of one registered class (wick.func._vmap.BatchedTensor) whose C tensor is a
 * metadata-only alias of its value's first batch entry: sizes, strides, dtype and device are the logical (per-sample)
 * ones, so size() / dim() / dtype read right, but its data is never used. Every op entry point that parses arguments
 * (wk_parse_args: every generated function and method, torch.tensor & co) and Tensor indexing first asks
 * wk_py_vmap_involved() whether one of its arguments is of that class; if so the call goes to the registered Python
 * handler, handler(self_or_None, name, args, kwargs), which applies the op's batching rule to the values and returns
 * the result. Without a registered class nothing is checked beyond one pointer. */
#include "pyext.h"

static PyTypeObject *vmap_type; /* the batched tensor class, or NULL */
static PyObject *vmap_handler;  /* handler(self_or_None, name, args, kwargs) */

static bool is_batched(PyObject *o) { return o && Py_TYPE(o) == vmap_type; }

static bool seq_batched(PyObject *o) {
    if (is_batched(o)) return true;
    if (PyTuple_Check(o) || PyList_Check(o)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++)
            if (is_batched(items[i])) return true;
    }
    return false;
}

bool wk_py_vmap_involved(PyObject *self, PyObject *args, PyObject *kwargs) {
    if (!vmap_type) return false;
    if (is_batched(self)) return true;
    if (args) {
        if (!PyTuple_Check(args)) return seq_batched(args);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
            if (seq_batched(PyTuple_GET_ITEM(args, i))) return true;
    }
    if (kwargs) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(kwargs, &pos, &k, &v))
            if (seq_batched(v)) return true;
    }
    return false;
}

PyObject *wk_py_vmap_call(PyObject *self, const char *name, PyObject *args, PyObject *kwargs) {
    PyObject *n = PyUnicode_FromString(name);
    if (!n) return NULL;
    PyObject *r = PyObject_CallFunctionObjArgs(vmap_handler, self ? self : Py_None, n, args ? args : Py_None,
                                               kwargs ? kwargs : Py_None, NULL);
    Py_DECREF(n);
    return r;
}

/* _C._set_vmap_hook(cls, handler): register the batched tensor class and its handler; (None, None) unregisters. */
static PyObject *m_set_vmap_hook(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *cls, *handler;
    if (!PyArg_ParseTuple(args, "OO", &cls, &handler)) return NULL;
    if (cls == Py_None) {
        Py_CLEAR(vmap_type);
        Py_CLEAR(vmap_handler);
        Py_RETURN_NONE;
    }
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, wk_TensorType))
        return PyErr_Format(PyExc_TypeError, "_set_vmap_hook: cls must be a subclass of Tensor");
    if (!PyCallable_Check(handler)) return PyErr_Format(PyExc_TypeError, "_set_vmap_hook: handler must be callable");
    Py_INCREF(cls);
    Py_INCREF(handler);
    Py_XSETREF(vmap_type, (PyTypeObject *)cls);
    Py_XSETREF(vmap_handler, handler);
    Py_RETURN_NONE;
}

/* _C._vmap_dummy(cls, value): a new `cls` object whose C tensor aliases value[0] (value's sizes and strides without
 * the first dimension; no autograd history): the logical face of a batch whose values sit in value's dim 0. */
static PyObject *m_vmap_dummy(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *cls, *value;
    if (!PyArg_ParseTuple(args, "OO", &cls, &value)) return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, wk_TensorType))
        return PyErr_Format(PyExc_TypeError, "_vmap_dummy: cls must be a subclass of Tensor");
    if (!WK_PyTensor_Check(value)) return PyErr_Format(PyExc_TypeError, "_vmap_dummy: value must be a Tensor");
    wk_tensor *t = wk_py_self(value);
    if (t->ndim < 1) return PyErr_Format(PyExc_RuntimeError, "_vmap_dummy: value must have a batch dimension");
    /* sizes / strides: t's without dim 0; the offset stays t's (entry 0). An empty batch has no entry 0 to alias (the
     * view would reach outside the storage): its face is a fresh zero tensor of the per-sample shape. */
    wk_tensor *a = t->sizes[0] == 0 ? wk_zeros(wk_ints(t->sizes + 1, t->ndim - 1), wk_tensor_dtype(t), false)
                                    : wk_alias(t, t->ndim - 1, t->sizes + 1, t->strides + 1, t->offset);
    if (!a) return wk_py_raise();
    PyTypeObject *type = (PyTypeObject *)cls;
    wk_PyTensor *o = (wk_PyTensor *)type->tp_alloc(type, 0);
    if (!o) {
        wk_release(a);
        return NULL;
    }
    o->t = a;
    a->pyobj = o;
    return (PyObject *)o;
}

/* _C._vmap_pointwise(): the names vmap's pointwise rule serves, as the op table says (tools/gen.py) */
extern const char *const wk_generated_vmap_pointwise[];
static PyObject *m_vmap_pointwise(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    PyObject *s = PyFrozenSet_New(NULL);
    for (int i = 0; s && wk_generated_vmap_pointwise[i]; i++) {
        PyObject *n = PyUnicode_FromString(wk_generated_vmap_pointwise[i]);
        if (!n || PySet_Add(s, n) < 0) Py_CLEAR(s);
        Py_XDECREF(n);
    }
    return s;
}

PyMethodDef wk_py_vmap_functions[] = {
    {"_vmap_pointwise", m_vmap_pointwise, METH_NOARGS, NULL},
    {"_set_vmap_hook", m_set_vmap_hook, METH_VARARGS, NULL},
    {"_vmap_dummy", m_vmap_dummy, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
