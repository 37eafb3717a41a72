/* convert.c — Python <-> wick values: errors, tensor wrapping, scalars, dtypes, nested data. */
#include "pyext.h"

PyTypeObject *wk_py_tensor_class; /* wick.Tensor, registered by the Python layer */

PyObject *wk_py_raise(void) {
    if (PyErr_Occurred()) return NULL; /* a Python error (from a hook) is already set */
    PyObject *exc;
    switch (wk_error_kind()) {
    case WK_INDEX_ERROR: exc = PyExc_IndexError; break;
    case WK_TYPE_ERROR: exc = PyExc_TypeError; break;
    case WK_VALUE_ERROR: exc = PyExc_ValueError; break;
    case WK_NOT_IMPLEMENTED_ERROR: exc = PyExc_NotImplementedError; break;
    case WK_MEMORY_ERROR: exc = PyExc_MemoryError; break;
    case WK_OVERFLOW_ERROR: exc = PyExc_OverflowError; break;
    case WK_ZERO_DIVISION_ERROR: exc = PyExc_ZeroDivisionError; break;
    case WK_OK: exc = PyExc_SystemError; break;
    default: exc = PyExc_RuntimeError; break;
    }
    PyErr_SetString(exc, wk_error_kind() == WK_OK ? "wick: an operation failed without an error message"
                                                  : wk_error_message());
    wk_error_clear();
    return NULL;
}

PyObject *wk_py_wrap(wk_tensor *t) {
    if (!t) return wk_py_raise();
    if (t->pyobj) {
        PyObject *o = (PyObject *)t->pyobj;
        Py_INCREF(o);
        wk_release(t);
        return o;
    }
    PyTypeObject *cls = wk_py_tensor_class ? wk_py_tensor_class : wk_TensorType;
    wk_PyTensor *o = (wk_PyTensor *)cls->tp_alloc(cls, 0);
    if (!o) {
        wk_release(t);
        return NULL;
    }
    o->t = t;
    t->pyobj = o;
    return (PyObject *)o;
}

PyObject *wk_py_wrap_inplace(PyObject *self, wk_tensor *t) {
    wk_release(t);
    Py_INCREF(self);
    return self;
}

PyObject *wk_py_wrap_tuple(wk_tensor **ts, int n) {
    PyObject *tup = PyTuple_New(n);
    if (!tup) {
        for (int i = 0; i < n; i++) wk_release(ts[i]);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *o = wk_py_wrap(ts[i]);
        if (!o) {
            for (int j = i + 1; j < n; j++) wk_release(ts[j]);
            Py_DECREF(tup);
            return NULL;
        }
        PyTuple_SET_ITEM(tup, i, o);
    }
    return tup;
}

PyObject *wk_py_wrap_vec(wk_tensorvec v) {
    if (!v.data) return wk_py_raise();
    PyObject *r = wk_py_wrap_tuple(v.data, (int)v.len);
    free(v.data);
    return r;
}

PyObject *wk_py_wrap_named(const char *name, wk_tensor **ts, int n) {
    PyObject *type = PyDict_GetItemString(wk_return_types, name);
    if (!type) {
        PyObject *tup = wk_py_wrap_tuple(ts, n);
        return tup;
    }
    PyObject *r = PyStructSequence_New((PyTypeObject *)type);
    if (!r) {
        for (int i = 0; i < n; i++) wk_release(ts[i]);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *o = wk_py_wrap(ts[i]);
        if (!o) {
            for (int j = i + 1; j < n; j++) wk_release(ts[j]);
            Py_DECREF(r);
            return NULL;
        }
        PyStructSequence_SET_ITEM(r, i, o);
    }
    return r;
}

PyObject *wk_py_from_scalar(wk_scalar s) {
    switch (s.tag) {
    case WK_SCALAR_BOOL: return PyBool_FromLong((long)s.v.i);
    case WK_SCALAR_INT: return PyLong_FromLongLong(s.v.i);
    case WK_SCALAR_FLOAT: return PyFloat_FromDouble(s.v.f);
    default: Py_RETURN_NONE;
    }
}
PyObject *wk_py_from_bool(bool b) { return PyBool_FromLong(b); }
PyObject *wk_py_from_int(int64_t i) { return PyLong_FromLongLong(i); }
PyObject *wk_py_from_float(double f) { return PyFloat_FromDouble(f); }
PyObject *wk_py_from_dtype(wk_dtype d) {
    if (d < 0 || d >= WK_NUM_DTYPES) Py_RETURN_NONE;
    Py_INCREF(wk_dtype_objs[d]);
    return wk_dtype_objs[d];
}

PyObject *wk_py_size(const int64_t *v, int n) {
    PyObject *tup = PyTuple_New(n);
    if (!tup) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_DECREF(tup);
            return NULL;
        }
        PyTuple_SET_ITEM(tup, i, x);
    }
    PyObject *args = PyTuple_Pack(1, tup);
    Py_DECREF(tup);
    if (!args) return NULL;
    PyObject *r = PyTuple_Type.tp_new(wk_SizeType, args, NULL);
    Py_DECREF(args);
    return r;
}

bool wk_py_is_number(PyObject *o) {
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o)) return true;
    /* numpy scalars: have __index__ or __float__ and a dtype, but are not sequences or tensors */
    if (WK_PyTensor_Check(o) || PySequence_Check(o)) return false;
    return PyObject_HasAttrString(o, "dtype") && (PyIndex_Check(o) || PyNumber_Check(o));
}

int wk_py_to_scalar(PyObject *o, wk_scalar *s, bool allow_tensor) {
    if (PyBool_Check(o)) {
        *s = wk_bool(o == Py_True);
        return 1;
    }
    if (PyLong_Check(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            /* uint64-range values wrap like torch (e.g. manual_seed); beyond that, overflow */
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (PyErr_Occurred()) {
                PyErr_Clear();
                PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
                return -1;
            }
            v = (long long)u;
        }
        *s = wk_int(v);
        return 1;
    }
    if (PyFloat_Check(o)) {
        *s = wk_float(PyFloat_AS_DOUBLE(o));
        return 1;
    }
    if (WK_PyTensor_Check(o)) {
        if (!allow_tensor) return 0;
        wk_tensor *t = wk_py_self(o);
        if (wk_numel(t) != 1 || wk_ndim(t) != 0) return 0;
        if (wk_item(t, s) < 0) {
            wk_py_raise();
            return -1;
        }
        return 1;
    }
    if (PyObject_HasAttrString(o, "dtype") && !PySequence_Check(o)) { /* numpy scalar */
        PyObject *kind = NULL, *dt = PyObject_GetAttrString(o, "dtype");
        if (dt) kind = PyObject_GetAttrString(dt, "kind");
        Py_XDECREF(dt);
        if (!kind) {
            PyErr_Clear();
            return 0;
        }
        const char *k = PyUnicode_AsUTF8(kind);
        char c = k ? k[0] : 0;
        Py_DECREF(kind);
        if (c == 'b') {
            int t = PyObject_IsTrue(o);
            if (t < 0) return -1;
            *s = wk_bool(t);
            return 1;
        }
        if (c == 'i' || c == 'u') {
            long long v = PyLong_AsLongLong(o);
            if (v == -1 && PyErr_Occurred()) return -1;
            *s = wk_int(v);
            return 1;
        }
        if (c == 'f') {
            double v = PyFloat_AsDouble(o);
            if (v == -1 && PyErr_Occurred()) return -1;
            *s = wk_float(v);
            return 1;
        }
    }
    return 0;
}

int wk_py_to_dtype(PyObject *o, wk_dtype *dt) {
    if (PyObject_TypeCheck(o, wk_DtypeType)) {
        *dt = ((wk_PyDtype *)o)->dt;
        return 1;
    }
    if (o == (PyObject *)&PyFloat_Type) {
        *dt = WK_FLOAT64;
        return 1;
    }
    if (o == (PyObject *)&PyLong_Type) {
        *dt = WK_INT64;
        return 1;
    }
    if (o == (PyObject *)&PyBool_Type) {
        *dt = WK_BOOL;
        return 1;
    }
    return 0;
}

int wk_py_check_device(PyObject *o) {
    if (!o || o == Py_None) return 0;
    PyObject *s = PyLong_Check(o) ? PyUnicode_FromFormat("cuda:%S", o) : PyObject_Str(o);
    if (!s) return -1;
    const char *str = PyUnicode_AsUTF8(s);
    int rc = 0;
    if (!str) rc = -1;
    else if (strcmp(str, "cpu") && strncmp(str, "cpu:", 4)) {
        if (!strncmp(str, "cuda", 4))
            PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
        else
            PyErr_Format(PyExc_RuntimeError,
                         "wick has only the CPU device: '%s' is not available (the devices that exist: 'cpu')", str);
        rc = -1;
    }
    Py_DECREF(s);
    return rc;
}

/* ---- torch.tensor(data): nested sequences -> tensor ----
 * Note [tensor() dtype inference]: bool < int < float over all leaves (torch's infer_scalar_type); a tensor or
 * numpy array leaf contributes its dtype; the default float dtype for Python floats. */
typedef struct {
    int ndim;
    int64_t sizes[WK_MAX_DIM];
    int kind; /* 0 bool, 1 int, 2 float; from Python scalars */
    wk_dtype tensor_dtype; /* promoted dtype of tensor leaves, or NONE */
    bool any_scalar;
} shape_info;

static const char *type_name(PyObject *o) { return Py_TYPE(o)->tp_name; }

static bool is_seq(PyObject *o) {
    return (PyList_Check(o) || PyTuple_Check(o) || (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) &&
                                                   !WK_PyTensor_Check(o) && !PyObject_HasAttrString(o, "__array_interface__"))) &&
           !PyDict_Check(o);
}

static PyObject *as_array_tensor(PyObject *o) {
    /* numpy arrays and anything with __array_interface__ go through torch-like from_numpy semantics (copied) */
    PyObject *wick = PyImport_ImportModule("wick");
    if (!wick) return NULL;
    PyObject *fn = PyObject_GetAttrString(wick, "_tensor_from_array");
    Py_DECREF(wick);
    if (!fn) return NULL;
    PyObject *r = PyObject_CallOneArg(fn, o);
    Py_DECREF(fn);
    return r;
}

static int infer(PyObject *o, int depth, shape_info *si) {
    if (depth > WK_MAX_DIM) {
        PyErr_SetString(PyExc_ValueError, "too many dimensions");
        return -1;
    }
    if (WK_PyTensor_Check(o) || PyObject_HasAttrString(o, "__array_interface__")) {
        PyObject *to = NULL;
        if (!WK_PyTensor_Check(o)) {
            to = as_array_tensor(o);
            if (!to) return -1;
            o = to;
        }
        wk_tensor *t = wk_py_self(o);
        if (depth == 0 || si->ndim == depth) {
            if (depth == 0) si->ndim = 0;
            /* shape of the leaf becomes part of the total shape */
            for (int i = 0; i < wk_ndim(t); i++) si->sizes[depth + i] = wk_sizes(t)[i];
            si->ndim = depth + wk_ndim(t);
        }
        si->tensor_dtype = wk_promote_types(si->tensor_dtype, wk_tensor_dtype(t));
        Py_XDECREF(to);
        return 0;
    }
    if (is_seq(o)) {
        Py_ssize_t n = PySequence_Size(o);
        if (n < 0) return -1;
        if (si->ndim <= depth) {
            si->ndim = depth + 1;
            si->sizes[depth] = n;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PySequence_GetItem(o, i);
            if (!item) return -1;
            int rc = infer(item, depth + 1, si);
            Py_DECREF(item);
            if (rc < 0) return -1;
            if (i == 0 && n > 0 && si->ndim == depth + 1 && !is_seq(item)) { /* scalar leaves at this depth */
            }
        }
        return 0;
    }
    wk_scalar s;
    int rc = wk_py_to_scalar(o, &s, false);
    if (rc < 0) return -1;
    if (rc == 0) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", type_name(o));
        return -1;
    }
    if (si->ndim < depth) si->ndim = depth;
    si->any_scalar = true;
    int k = s.tag == WK_SCALAR_BOOL ? 0 : s.tag == WK_SCALAR_INT ? 1 : 2;
    if (k > si->kind) si->kind = k;
    return 0;
}

/* Fills `out` (contiguous, dtype dt) from nested data, checking the shape. */
static int fill(PyObject *o, int depth, const shape_info *si, wk_dtype dt, char **cursor) {
    size_t esz = wk_dtype_size(dt);
    if (depth == si->ndim) {
        if (WK_PyTensor_Check(o)) {
            wk_tensor *t = wk_py_self(o);
            if (wk_numel(t) != 1) goto shape_err;
            wk_scalar s;
            if (wk_item(t, &s) < 0) {
                wk_py_raise();
                return -1;
            }
            wk__store_scalar(*cursor, dt, s);
            *cursor += esz;
            return 0;
        }
        if (is_seq(o)) goto shape_err;
        wk_scalar s;
        int rc = wk_py_to_scalar(o, &s, false);
        if (rc <= 0) {
            if (rc == 0) PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", type_name(o));
            return -1;
        }
        wk__store_scalar(*cursor, dt, s);
        *cursor += esz;
        return 0;
    }
    if (WK_PyTensor_Check(o) || PyObject_HasAttrString(o, "__array_interface__")) {
        PyObject *to = WK_PyTensor_Check(o) ? (Py_INCREF(o), o) : as_array_tensor(o);
        if (!to) return -1;
        wk_tensor *t = wk_py_self(to);
        int nd = wk_ndim(t);
        if (depth + nd != si->ndim || memcmp(wk_sizes(t), si->sizes + depth, sizeof(int64_t) * (size_t)nd)) {
            Py_DECREF(to);
            goto shape_err;
        }
        int rc = wk_copy_to_buffer(t, dt, *cursor);
        *cursor += (size_t)wk_numel(t) * esz;
        Py_DECREF(to);
        if (rc < 0) {
            wk_py_raise();
            return -1;
        }
        return 0;
    }
    if (!is_seq(o)) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %s)",
                     (long long)si->sizes[depth], depth, "a scalar");
        return -1;
    }
    Py_ssize_t n = PySequence_Size(o);
    if (n < 0) return -1;
    if (n != si->sizes[depth]) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %zd)",
                     (long long)si->sizes[depth], depth, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(o, i);
        if (!item) return -1;
        int rc = fill(item, depth + 1, si, dt, cursor);
        Py_DECREF(item);
        if (rc < 0) return -1;
    }
    return 0;
shape_err:
    PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %s)",
                 depth < si->ndim ? (long long)si->sizes[depth] : 0LL, depth, "a different shape");
    return -1;
}

wk_tensor *wk_py_tensor_from_data(PyObject *data, wk_dtype dtype, bool *inferred_float) {
    shape_info si;
    memset(&si, 0, sizeof si);
    si.tensor_dtype = WK_DTYPE_NONE;
    si.ndim = 0;
    if (infer(data, 0, &si) < 0) return NULL;
    wk_dtype dt = dtype;
    if (dt == WK_DTYPE_NONE) {
        wk_dtype sd = WK_DTYPE_NONE;
        if (si.any_scalar || si.tensor_dtype == WK_DTYPE_NONE)
            sd = si.kind == 2 ? wk_get_default_dtype() : si.kind == 1 ? WK_INT64 : (si.any_scalar ? WK_BOOL : wk_get_default_dtype());
        dt = si.tensor_dtype == WK_DTYPE_NONE ? sd : wk_promote_types(si.tensor_dtype, sd);
        if (inferred_float) *inferred_float = si.kind == 2;
    }
    wk_tensor *t = wk__empty(si.ndim, si.sizes, dt);
    if (!t) {
        wk_py_raise();
        return NULL;
    }
    char *cursor = wk__data(t);
    if (fill(data, 0, &si, dt, &cursor) < 0) {
        wk_release(t);
        return NULL;
    }
    return t;
}
