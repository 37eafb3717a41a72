/* saved_hooks.c — torch.autograd.graph.saved_tensors_hooks for the tensors built-in nodes save (Note [Saved-tensor
 * hooks] in src/autograd/autograd.h). Python registers one packer, packer(tensor) -> (unpack_hook, packed), while any
 * saved_tensors_hooks context is open (wick/autograd/graph.py keeps the stack); the core keeps that pair as its
 * opaque handle and gives it back to unpack (unpack_hook(packed) must return a Tensor) or drop. */
#include "pyext.h"

static PyObject *packer; /* the registered packer, or NULL */

static void *py_pack(const wk_tensor *t, void *ctx) {
    (void)ctx;
    PyObject *obj = wk_py_wrap(wk_retain((wk_tensor *)t));
    PyObject *r = obj ? PyObject_CallOneArg(packer, obj) : NULL;
    Py_XDECREF(obj);
    if (r && !(PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2)) {
        Py_DECREF(r);
        r = NULL;
        PyErr_SetString(PyExc_SystemError, "wick: the saved-tensor packer must return (unpack_hook, packed)");
    }
    if (!r) wk_error_set(WK_RUNTIME_ERROR, "saved tensor pack hook failed"); /* the Python exception wins */
    return r;
}

static wk_tensor *py_unpack(void *packed, void *ctx) {
    (void)ctx;
    PyObject *p = packed;
    PyObject *r = PyObject_CallOneArg(PyTuple_GET_ITEM(p, 0), PyTuple_GET_ITEM(p, 1));
    if (r && !WK_PyTensor_Check(r)) {
        PyErr_Format(PyExc_TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                                      "type %s",
                     Py_TYPE(r)->tp_name);
        Py_CLEAR(r);
    }
    if (!r) {
        wk_error_set(WK_RUNTIME_ERROR, "saved tensor unpack hook failed");
        return NULL;
    }
    wk_tensor *t = wk_retain(wk_py_self(r));
    Py_DECREF(r);
    return t;
}

static void py_drop(void *packed, void *ctx) {
    (void)ctx;
    Py_XDECREF((PyObject *)packed);
}

static const wk_saved_hooks py_hooks = {py_pack, py_unpack, py_drop, NULL};

/* _C._set_saved_tensor_hooks(packer or None) */
static PyObject *m_set_saved_tensor_hooks(PyObject *m, PyObject *p) {
    (void)m;
    if (p != Py_None && !PyCallable_Check(p)) return PyErr_Format(PyExc_TypeError, "packer must be callable");
    if (p == Py_None) {
        wk_set_saved_tensor_hooks(NULL);
        Py_CLEAR(packer);
    } else {
        Py_INCREF(p);
        Py_XSETREF(packer, p);
        wk_set_saved_tensor_hooks(&py_hooks);
    }
    Py_RETURN_NONE;
}

PyMethodDef wk_py_saved_hooks_functions[] = {
    {"_set_saved_tensor_hooks", m_set_saved_tensor_hooks, METH_O, NULL},
    {NULL, NULL, 0, NULL}};
