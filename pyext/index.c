/* index.c — Tensor.__getitem__ / __setitem__: converts Python indices into the C core's index items
 * (wk_index_item, Note [Python indexing] in src/ops/index.c) and calls wk_getitem / wk_setitem. Only the Python-specific
 * part lives here: which Python objects mean what (as torch's python_variable_indexing.cpp decides). */
#include "pyext.h"

/* The pending wick error as a Python exception, after the warnings the call queued: torch issues a call's warnings
 * even when the call then fails (a warning turned into an error wins). */
static int raise_with_warnings(void) {
    int n = wk_warning_count();
    for (int i = 0; i < n; i++) {
        if (PyErr_WarnEx(PyExc_UserWarning, wk_warning_message(i), 1) < 0) {
            wk_warnings_clear();
            wk_error_clear();
            return -1;
        }
    }
    wk_warnings_clear();
    wk_py_raise();
    return -1;
}

/* A getitem result (or its failure) as Python sees it, warnings included. */
static PyObject *finish_get(wk_tensor *r) {
    if (!r) return raise_with_warnings(), NULL;
    return wk_py_flush_warnings(wk_py_wrap(r));
}

/* numpy integer scalars count as ints (torch's THPUtils_checkLong); numpy is only consulted if already imported. */
static int is_numpy_int(PyObject *o) {
    static PyObject *np_integer = NULL;
    if (!np_integer) {
        PyObject *mods = PyImport_GetModuleDict();
        PyObject *np = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
        if (!np) return 0;
        np_integer = PyObject_GetAttrString(np, "integer");
        if (!np_integer) {
            PyErr_Clear();
            return 0;
        }
    }
    int r = PyObject_IsInstance(o, np_integer);
    if (r < 0) PyErr_Clear();
    return r > 0;
}

/* numpy.ndarray exactly (an array index is one tensor index, never a tuple of indices). */
static int is_numpy_array(PyObject *o) {
    static PyObject *np_ndarray = NULL;
    if (!np_ndarray) {
        PyObject *mods = PyImport_GetModuleDict();
        PyObject *np = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
        if (!np) return 0;
        np_ndarray = PyObject_GetAttrString(np, "ndarray");
        if (!np_ndarray) {
            PyErr_Clear();
            return 0;
        }
    }
    return (PyObject *)Py_TYPE(o) == np_ndarray;
}

static int check_long(PyObject *o) { return (PyLong_Check(o) && !PyBool_Check(o)) || is_numpy_int(o); }

static int unpack_long(PyObject *o, int64_t *v) {
    PyObject *i = PyLong_Check(o) ? (Py_INCREF(o), o) : PyNumber_Index(o);
    if (!i) return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (overflow) {
        PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
        return -1;
    }
    if (x == -1 && PyErr_Occurred()) return -1;
    *v = x;
    return 0;
}

static int unpack_slice(PyObject *o, wk_index_item *it) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(o, &start, &stop, &step) < 0) return -1;
    it->kind = WK_IDX_SLICE;
    it->start = start;
    it->stop = stop;
    it->step = step;
    return 0;
}

/* torch's indexing_tensor_from_data: a list of bools (or uint8) keeps its dtype, anything else becomes int64. */
static wk_tensor *sequence_to_tensor(PyObject *seq) {
    wk_tensor *t = wk_py_tensor_from_data(seq, WK_DTYPE_NONE, NULL);
    if (!t) return NULL;
    wk_dtype d = wk_tensor_dtype(t);
    if (d == WK_BOOL || d == WK_UINT8 || d == WK_INT64) return t;
    wk_release(t);
    return wk_py_tensor_from_data(seq, WK_INT64, NULL);
}

/* One element of an index tuple. */
static int convert_item(PyObject *o, wk_index_item *it, wk_tensor **made) {
    memset(it, 0, sizeof *it);
    *made = NULL;
    if (check_long(o)) {
        it->kind = WK_IDX_INT;
        return unpack_long(o, &it->i);
    }
    if (PySlice_Check(o)) return unpack_slice(o, it);
    if (o == Py_Ellipsis) {
        it->kind = WK_IDX_ELLIPSIS;
        return 0;
    }
    if (o == Py_None) {
        it->kind = WK_IDX_NONE;
        return 0;
    }
    if (PyBool_Check(o)) {
        it->kind = WK_IDX_BOOL;
        it->i = o == Py_True;
        return 0;
    }
    if (WK_PyTensor_Check(o)) {
        it->kind = WK_IDX_TENSOR;
        it->t = wk_py_self(o);
        return 0;
    }
    if (PySequence_Check(o)) {
        wk_tensor *t = sequence_to_tensor(o);
        if (!t) return -1;
        *made = t;
        it->kind = WK_IDX_TENSOR;
        it->t = t;
        return 0;
    }
    PyObject *idx = PyNumber_Index(o);
    if (!idx) {
        PyErr_Clear();
        PyErr_Format(PyExc_IndexError,
                     "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     "indices (got %s)",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    it->kind = WK_IDX_INT;
    int rc = unpack_long(idx, &it->i);
    Py_DECREF(idx);
    return rc;
}

/* A bare index (x[i], x[a:b], x[None], x[...], x[True]) is one item with tuple = false. Returns 1 if handled. */
static int bare_item(PyObject *index, wk_index_item *it) {
    memset(it, 0, sizeof *it);
    if (index == Py_None) {
        it->kind = WK_IDX_NONE;
        return 1;
    }
    if (index == Py_Ellipsis) {
        it->kind = WK_IDX_ELLIPSIS;
        return 1;
    }
    if (check_long(index)) {
        it->kind = WK_IDX_INT;
        return unpack_long(index, &it->i) < 0 ? -1 : 1;
    }
    if (PySlice_Check(index)) return unpack_slice(index, it) < 0 ? -1 : 1;
    if (PyBool_Check(index)) {
        it->kind = WK_IDX_BOOL;
        it->i = index == Py_True;
        return 1;
    }
    return 0;
}

/* torch's treatSequenceAsTuple (NumPy's heuristic for short non-tuple sequences). */
static int treat_sequence_as_tuple(PyObject *index) {
    if (PyTuple_Check(index)) return 1;
    if (WK_PyTensor_Check(index) || is_numpy_array(index)) return 0;
    if (!PySequence_Check(index)) return 0;
    Py_ssize_t n = PySequence_Size(index);
    if (n < 0) {
        PyErr_Clear();
        return 0;
    }
    if (n >= 32) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_GetItem(index, i);
        if (!o) {
            PyErr_Clear();
            return 0;
        }
        int yes = WK_PyTensor_Check(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_Ellipsis || o == Py_None;
        Py_DECREF(o);
        if (yes) return 1;
    }
    return 0;
}

/* The index as a tuple (new reference), warning like torch for a list used as a tuple. */
static PyObject *wrap_tuple(PyObject *index) {
    if (PyTuple_Check(index)) {
        Py_INCREF(index);
        return index;
    }
    if (treat_sequence_as_tuple(index)) {
        if (PyErr_WarnEx(PyExc_UserWarning,
                         "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                         "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                         "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result",
                         1) < 0)
            return NULL;
        return PySequence_Tuple(index);
    }
    return PyTuple_Pack(1, index);
}

/* torch's count_specified_dimensions over the index tuple as written (before any item is converted). */
static int64_t count_specified(PyObject *tup) {
    int64_t count = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tup); i++) {
        PyObject *o = PyTuple_GET_ITEM(tup, i);
        if (WK_PyTensor_Check(o)) {
            wk_tensor *t = wk_py_self(o);
            wk_dtype d = wk_tensor_dtype(t);
            count += d == WK_BOOL || d == WK_UINT8 ? wk_ndim(t) : 1;
        } else if (o != Py_None && o != Py_Ellipsis && o != Py_True && o != Py_False) {
            count++;
        }
    }
    return count;
}

/* The tuple path (applySlicing): begin, then convert and apply one item at a time, so errors come in torch's order.
 * Returns the state ready for get_end / set_end, or NULL with a Python error set. */
static wk_index_state *apply_index(wk_tensor *self, PyObject *index) {
    PyObject *tup = wrap_tuple(index);
    if (!tup) return NULL;
    wk_index_state *st = wk_index_begin(self, count_specified(tup));
    if (!st) {
        Py_DECREF(tup);
        wk_py_raise();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tup); i++) {
        wk_index_item it;
        wk_tensor *made;
        if (convert_item(PyTuple_GET_ITEM(tup, i), &it, &made) < 0) {
            wk_index_abort(st);
            Py_DECREF(tup);
            return NULL;
        }
        int rc = wk_index_step(st, &it); /* the state keeps what it needs of `made` */
        wk_release(made);
        if (rc < 0) {
            wk_index_abort(st);
            Py_DECREF(tup);
            raise_with_warnings();
            return NULL;
        }
    }
    Py_DECREF(tup);
    return st;
}

PyObject *wk_py_index_get(PyObject *self, PyObject *index) {
    if (wk_py_vmap_involved(self, index, NULL)) { /* a batched tensor (vmap) indexed or indexing: its rule */
        PyObject *a = PyTuple_Pack(1, index);
        PyObject *r = a ? wk_py_vmap_call(self, "__getitem__", a, NULL) : NULL;
        Py_XDECREF(a);
        return r;
    }
    wk_tensor *t = wk_py_self(self);
    wk_index_item one;
    int b = bare_item(index, &one);
    if (b < 0) return NULL;
    if (b == 1) return finish_get(wk_getitem(t, &one, 1, false));
    wk_index_state *st = apply_index(t, index);
    return st ? finish_get(wk_index_get_end(st)) : NULL;
}

/* c10's checked_convert names, for a complex value with an imaginary part */
static const char *ctype_of(wk_dtype d) {
    switch (d) {
    case WK_BOOL: return "bool";
    case WK_UINT8: return "uint8_t";
    case WK_INT8: return "int8_t";
    case WK_INT16: return "int16_t";
    case WK_INT32: return "int";
    case WK_INT64: return "int64_t";
    case WK_FLOAT16: return "c10::Half";
    case WK_BFLOAT16: return "c10::BFloat16";
    case WK_FLOAT32: return "float";
    default: return "double";
    }
}

int wk_py_index_set(PyObject *self, PyObject *index, PyObject *value) {
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    if (wk_py_vmap_involved(self, index, NULL) || wk_py_vmap_involved(NULL, value, NULL)) {
        PyObject *a = PyTuple_Pack(2, index, value);
        PyObject *r = a ? wk_py_vmap_call(self, "__setitem__", a, NULL) : NULL;
        Py_XDECREF(a);
        if (!r) return -1;
        Py_DECREF(r);
        return 0;
    }
    wk_tensor *t = wk_py_self(self);
    /* valueToTensor: tensors as they are; Python ints, bools and floats become a 0-d tensor of self's dtype */
    wk_tensor *vt = NULL;
    wk_scalar vs;
    if (WK_PyTensor_Check(value)) {
        vt = wk_py_self(value);
    } else if (check_long(value) || PyBool_Check(value)) {
        int64_t v;
        if (PyBool_Check(value)) v = value == Py_True;
        else if (unpack_long(value, &v) < 0) return -1;
        vs = wk_int(v);
    } else if (PyFloat_Check(value)) {
        vs = wk_float(PyFloat_AS_DOUBLE(value));
    } else if (PyComplex_Check(value)) {
        Py_complex c = PyComplex_AsCComplex(value);
        if (c.imag != 0) {
            PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                         ctype_of(wk_tensor_dtype(t)));
            return -1;
        }
        vs = wk_float(c.real);
    } else {
        PyErr_Format(PyExc_TypeError, "can't assign a %s to a %s", Py_TYPE(value)->tp_name,
                     wk_dtype_legacy_type_name(wk_tensor_dtype(t)));
        return -1;
    }
    wk_tensor *v = vt ? wk_retain(vt) : wk_setitem_value(t, vs);
    if (!v) {
        wk_py_raise();
        return -1;
    }
    int rc = -1;
    wk_index_item one;
    int b = bare_item(index, &one);
    if (b == 1) {
        rc = wk_setitem_single(t, &one, v);
        if (rc < 0) raise_with_warnings();
    } else if (b == 0) {
        wk_index_state *st = apply_index(t, index);
        if (st) {
            rc = wk_index_set_end(st, v);
            if (rc < 0) raise_with_warnings();
        }
    }
    wk_release(v);
    if (rc == 0 && wk_warning_count()) { /* the write succeeded: issue its warnings */
        Py_INCREF(Py_None);
        PyObject *ok = wk_py_flush_warnings(Py_None);
        if (!ok) rc = -1;
        Py_XDECREF(ok);
    }
    return rc;
}
