/* tensor_type.c — the wick.Tensor type: lifetime, properties, number protocol, indexing hooks. */
#include "pyext.h"

PyTypeObject *wk_TensorType;

static void tensor_dealloc(PyObject *o) {
    wk_PyTensor *self = (wk_PyTensor *)o;
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    if (self->weakrefs) PyObject_ClearWeakRefs(o);
    Py_CLEAR(self->dict);
    if (self->t) {
        if (self->t->pyobj == o) self->t->pyobj = NULL;
        wk_release(self->t);
        self->t = NULL;
    }
    tp->tp_free(o);
    Py_DECREF(tp);
}

static int tensor_traverse(PyObject *o, visitproc visit, void *arg) {
    Py_VISIT(((wk_PyTensor *)o)->dict);
    Py_VISIT(Py_TYPE(o));
    return wk_py_tensor_traverse_c(o, visit, arg); /* Note [Tensors in reference cycles] (gc.c) */
}

static int tensor_clear(PyObject *o) {
    Py_CLEAR(((wk_PyTensor *)o)->dict);
    wk_py_tensor_clear_c(o);
    return 0;
}

static PyObject *tensor_repr(PyObject *o) {
    char *s = wk_repr(wk_py_self(o));
    if (!s) return wk_py_raise();
    PyObject *r = PyUnicode_FromString(s);
    wk_free_string(s);
    return r;
}

/* torch.Tensor(*sizes) / torch.Tensor(data): the legacy float constructor. Subclasses (Parameter) use
 * Tensor._make_subclass. */
static PyObject *tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    wk_tensor *t = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "new() received an invalid combination of arguments");
        return NULL;
    }
    if (n == 1 && !PyLong_Check(PyTuple_GET_ITEM(args, 0))) {
        PyObject *a0 = PyTuple_GET_ITEM(args, 0);
        if (WK_PyTensor_Check(a0)) {
            t = wk_detach(wk_py_self(a0));
        } else {
            t = wk_py_tensor_from_data(a0, wk_get_default_dtype(), NULL);
        }
        if (!t) return PyErr_Occurred() ? NULL : wk_py_raise();
    } else {
        int64_t sizes[WK_MAX_DIM];
        if (n > WK_MAX_DIM) return PyErr_Format(PyExc_RuntimeError, "too many dimensions");
        for (Py_ssize_t i = 0; i < n; i++) {
            sizes[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(args, i));
            if (sizes[i] == -1 && PyErr_Occurred()) return NULL;
        }
        if (n == 0) sizes[0] = 0;   /* torch.Tensor() is empty of shape (0,), not 0-d */
        t = wk_zeros(wk_ints(sizes, n ? n : 1), wk_get_default_dtype(), false);
        if (!t) return wk_py_raise();
    }
    wk_PyTensor *o = (wk_PyTensor *)type->tp_alloc(type, 0);
    if (!o) {
        wk_release(t);
        return NULL;
    }
    o->t = t;
    t->pyobj = o;
    return (PyObject *)o;
}

/* Tensor._make_subclass(cls, data, require_grad=False): a new `cls` object sharing data's storage. */
static PyObject *make_subclass(PyObject *unused, PyObject *args, PyObject *kwargs) {
    (void)unused;
    static char *kw[] = {"cls", "data", "require_grad", NULL};
    PyObject *cls, *data, *rgo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O", kw, &cls, &data, &rgo)) return NULL;
    if (rgo && !PyBool_Check(rgo)) {
        bool by_kw = kwargs && PyDict_GetItemString(kwargs, "require_grad") == rgo;
        return PyErr_Format(PyExc_TypeError, "_make_subclass(): argument 'require_grad' %smust be bool, not %s",
                            by_kw ? "" : "(position 3) ", Py_TYPE(rgo)->tp_name);
    }
    int rg = rgo == Py_True;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, wk_TensorType))
        return PyErr_Format(PyExc_TypeError, "cls must be a subclass of Tensor");
    if (!WK_PyTensor_Check(data)) return PyErr_Format(PyExc_TypeError, "data must be a Tensor");
    wk_tensor *t = wk_detach(wk_py_self(data));
    if (!t) return wk_py_raise();
    if (rg && t->version->inference && !wk_is_inference_mode_enabled()) {
        wk_release(t);
        return PyErr_Format(PyExc_RuntimeError,
                            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    }
    if (rg && wk__finish_factory(t, true) == NULL) return wk_py_raise(); /* torch's factory wording; frees t */
    wk_PyTensor *o = (wk_PyTensor *)((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    if (!o) {
        wk_release(t);
        return NULL;
    }
    o->t = t;
    t->pyobj = o;
    return (PyObject *)o;
}

/* ---- number protocol ---- */
static wk_tensor *as_tensor(PyObject *o, wk_tensor **tmp) {
    *tmp = NULL;
    if (WK_PyTensor_Check(o)) return wk_py_self(o);
    if (!wk_py_is_number(o)) return NULL;
    wk_scalar s;
    int rc = wk_py_to_scalar(o, &s, false);
    if (rc != 1) { /* an int beyond uint64 keeps its OverflowError (x + 2**64, as torch); else NotImplemented */
        if (rc == 0 || PyErr_ExceptionMatches(PyExc_TypeError)) PyErr_Clear();
        return NULL;
    }
    *tmp = wk_wrapped_number(s);
    return *tmp;
}

#define BINOP(NAME, CALL)                                                   \
    static PyObject *NAME(PyObject *a, PyObject *b) {                        \
        wk_tensor *ta, *tb, *tmpa, *tmpb;                                    \
        ta = as_tensor(a, &tmpa);                                            \
        tb = as_tensor(b, &tmpb);                                            \
        if (!ta || !tb) {                                                    \
            wk_release(tmpa);                                                \
            wk_release(tmpb);                                                \
            if (PyErr_Occurred()) return NULL;                               \
            Py_RETURN_NOTIMPLEMENTED;                                        \
        }                                                                    \
        wk_tensor *r = CALL;                                                 \
        wk_release(tmpa);                                                    \
        wk_release(tmpb);                                                    \
        return wk_py_wrap(r);                                                \
    }

static wk_tensor *rsub(wk_tensor *a, wk_tensor *b, PyObject *pa) {
    if (!WK_PyTensor_Check(pa)) { /* 2 - x: torch's rsub */
        wk_scalar s;
        wk_item(a, &s);
        return wk_rsub_Scalar(b, s, wk_int(1));
    }
    return wk_sub(a, b, wk_int(1));
}
static wk_tensor *rdiv(wk_tensor *a, wk_tensor *b, PyObject *pa) {
    if (!WK_PyTensor_Check(pa)) { /* 2 / x: torch's __rtruediv__ is x.reciprocal() * 2 */
        wk_tensor *rec = wk_reciprocal(b);
        if (!rec) return NULL;
        wk_tensor *r = wk_mul(rec, a);
        wk_release(rec);
        return r;
    }
    return wk_div(a, b, NULL);
}

/* 2 + x and 2 * x are torch's x.__radd__(2) = add(x, 2): the tensor stays `self` */
BINOP(nb_add, WK_PyTensor_Check(a) ? wk_add(ta, tb, wk_int(1)) : wk_add(tb, ta, wk_int(1)))
BINOP(nb_sub, rsub(ta, tb, a))
BINOP(nb_mul, WK_PyTensor_Check(a) ? wk_mul(ta, tb) : wk_mul(tb, ta))
BINOP(nb_truediv, rdiv(ta, tb, a))

static PyObject *call_method(PyObject *self, const char *name, PyObject *arg) {
    PyObject *m = PyObject_GetAttrString(self, name);
    if (!m) return NULL;
    PyObject *r = arg ? PyObject_CallOneArg(m, arg) : PyObject_CallNoArgs(m);
    Py_DECREF(m);
    return r;
}

/* Operators without a direct C path dispatch to methods (__lt__, __matmul__, ... from the op table or wick/_*_py.py).
 * A slot wrapper does not count as a method: our own slot's wrapper would send Python back here forever. */
static PyObject *call_op(PyObject *self, const char *name, PyObject *other) {
    PyObject *key = PyUnicode_FromString(name);
    if (!key) return NULL;
    PyObject *meth = _PyType_Lookup(Py_TYPE(self), key);
    Py_DECREF(key);
    /* slot wrappers (object's, or our own tp_richcompare's) are not methods: they would come back here */
    if (!meth || Py_IS_TYPE(meth, &PyWrapperDescr_Type)) Py_RETURN_NOTIMPLEMENTED;
    return call_method(self, name, other);
}

/* Operators without a direct C path dispatch to the methods of the same meaning (they live in the op table or
 * in wick/_tensor.py). Reflected forms go to torch's __r*__ names. */
#define FORWARD(NAME, FWD, REF)                                                                   \
    static PyObject *NAME(PyObject *a, PyObject *b) {                                              \
        if (WK_PyTensor_Check(a)) return call_op(a, FWD, b);                                       \
        if (WK_PyTensor_Check(b)) return call_op(b, REF, a);                                       \
        Py_RETURN_NOTIMPLEMENTED;                                                                  \
    }
FORWARD(nb_floordiv, "__floordiv__", "__rfloordiv__")
FORWARD(nb_remainder, "__mod__", "__rmod__")
FORWARD(nb_matmul, "__matmul__", "__rmatmul__")
FORWARD(nb_and, "__and__", "__rand__")
FORWARD(nb_or, "__or__", "__ror__")
FORWARD(nb_xor, "__xor__", "__rxor__")
FORWARD(nb_lshift, "__lshift__", "__rlshift__")
FORWARD(nb_rshift, "__rshift__", "__rrshift__")

static PyObject *nb_power(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    if (WK_PyTensor_Check(a)) return call_op(a, "__pow__", b);
    if (WK_PyTensor_Check(b)) return call_op(b, "__rpow__", a);
    Py_RETURN_NOTIMPLEMENTED;
}

#define INPLACE(NAME, CALL)                                                  \
    static PyObject *NAME(PyObject *a, PyObject *b) {                        \
        wk_tensor *tb, *tmpb;                                                \
        tb = as_tensor(b, &tmpb);                                            \
        if (!tb) {                                                           \
            if (PyErr_Occurred()) return NULL;                               \
            Py_RETURN_NOTIMPLEMENTED;                                        \
        }                                                                    \
        wk_tensor *ta = wk_py_self(a);                                       \
        wk_tensor *r = CALL;                                                 \
        wk_release(tmpb);                                                    \
        if (!r) return wk_py_raise();                                        \
        wk_release(r);                                                       \
        Py_INCREF(a);                                                        \
        return a;                                                            \
    }
INPLACE(nb_iadd, wk_add_(ta, tb, wk_int(1)))
INPLACE(nb_isub, wk_sub_(ta, tb, wk_int(1)))
INPLACE(nb_imul, wk_mul_(ta, tb))
INPLACE(nb_itruediv, wk_div_(ta, tb, NULL))

#define IFORWARD(NAME, M)                                                     \
    static PyObject *NAME(PyObject *a, PyObject *b) { return call_op(a, M, b); }
IFORWARD(nb_ifloordiv, "__ifloordiv__")
IFORWARD(nb_iremainder, "__imod__")
IFORWARD(nb_iand, "__iand__")
IFORWARD(nb_ior, "__ior__")
IFORWARD(nb_ixor, "__ixor__")
IFORWARD(nb_ilshift, "__ilshift__")
IFORWARD(nb_irshift, "__irshift__")
static PyObject *nb_ipower(PyObject *a, PyObject *b, PyObject *m) {
    (void)m;
    return call_op(a, "__ipow__", b);
}

static PyObject *nb_neg(PyObject *a) { return wk_py_wrap(wk_neg(wk_py_self(a))); }
static PyObject *nb_pos(PyObject *a) { return call_method(a, "positive", NULL); }
static PyObject *nb_abs(PyObject *a) { return call_method(a, "abs", NULL); }
static PyObject *nb_invert(PyObject *a) { return call_method(a, "bitwise_not", NULL); }

static int nb_bool(PyObject *a) {
    wk_tensor *t = wk_py_self(a);
    int64_t n = wk_numel(t);
    if (n != 1) {
        if (n == 0)
            PyErr_SetString(PyExc_RuntimeError, "Boolean value of Tensor with no values is ambiguous");
        else
            PyErr_SetString(PyExc_RuntimeError, "Boolean value of Tensor with more than one value is ambiguous");
        return -1;
    }
    wk_scalar s;
    if (wk_item(t, &s) < 0) return wk_py_raise(), -1;
    return s.tag == WK_SCALAR_FLOAT ? s.v.f != 0 : s.v.i != 0;
}

static PyObject *scalar_of(PyObject *a, const char *what, bool integral_only) {
    wk_tensor *t = wk_py_self(a);
    if (wk_numel(t) != 1) {
        if (integral_only)
            PyErr_SetString(PyExc_TypeError, "only integer tensors of a single element can be converted to an index");
        else /* int(t) / float(t): torch 2.13's Tensor.__int__/__float__ text (item() says something else) */
            PyErr_SetString(PyExc_ValueError, "only one element tensors can be converted to Python scalars");
        return NULL;
    }
    (void)what;
    if (integral_only && !wk_dtype_is_integral(wk_tensor_dtype(t), true)) {
        PyErr_SetString(PyExc_TypeError, "only integer tensors of a single element can be converted to an index");
        return NULL;
    }
    wk_scalar s;
    if (wk_item(t, &s) < 0) return wk_py_raise();
    return wk_py_from_scalar(s);
}

static PyObject *nb_int(PyObject *a) {
    PyObject *s = scalar_of(a, "int", false);
    if (!s) return NULL;
    PyObject *r = PyNumber_Long(s);
    Py_DECREF(s);
    return r;
}
static PyObject *nb_float(PyObject *a) {
    PyObject *s = scalar_of(a, "float", false);
    if (!s) return NULL;
    PyObject *r = PyNumber_Float(s);
    Py_DECREF(s);
    return r;
}
static PyObject *nb_index(PyObject *a) {
    PyObject *s = scalar_of(a, "index", true);
    if (!s) return NULL;
    PyObject *r = PyNumber_Index(s);
    Py_DECREF(s);
    return r;
}

static Py_ssize_t sq_length(PyObject *a) {
    wk_tensor *t = wk_py_self(a);
    if (wk_ndim(t) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)wk_sizes(t)[0];
}

static PyObject *richcompare(PyObject *a, PyObject *b, int op) {
    static const char *names[] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
    static const char *refl[] = {"__gt__", "__ge__", "__eq__", "__ne__", "__lt__", "__le__"};
    if (WK_PyTensor_Check(a)) return call_op(a, names[op], b);
    if (WK_PyTensor_Check(b)) return call_op(b, refl[op], a);
    Py_RETURN_NOTIMPLEMENTED;
}

static Py_hash_t tensor_hash(PyObject *o) { return _Py_HashPointer(o); }

static PyMethodDef class_methods[] = {
    {"_make_subclass", (PyCFunction)(void (*)(void))make_subclass, METH_VARARGS | METH_KEYWORDS | METH_STATIC, NULL},
    {NULL, NULL, 0, NULL}};

int wk_py_tensor_type_init(PyObject *m) {
    /* methods: generated op methods + hand-written ones + class methods, in one table */
    int ng = 0, nh = 0, nc = 0;
    while (wk_generated_methods[ng].ml_name) ng++;
    while (wk_py_tensor_methods[nh].ml_name) nh++;
    while (class_methods[nc].ml_name) nc++;
    PyMethodDef *all = PyMem_Calloc((size_t)(ng + nh + nc + 1), sizeof(PyMethodDef));
    if (!all) return -1;
    memcpy(all, wk_py_tensor_methods, sizeof(PyMethodDef) * (size_t)nh);
    memcpy(all + nh, wk_generated_methods, sizeof(PyMethodDef) * (size_t)ng);
    memcpy(all + nh + ng, class_methods, sizeof(PyMethodDef) * (size_t)nc);
    static PyMemberDef members[] = {
        {"__dictoffset__", T_PYSSIZET, offsetof(wk_PyTensor, dict), READONLY, NULL},
        {"__weaklistoffset__", T_PYSSIZET, offsetof(wk_PyTensor, weakrefs), READONLY, NULL},
        {NULL, 0, 0, 0, NULL}};
    PyType_Slot slots[] = {
        {Py_tp_dealloc, tensor_dealloc},
        {Py_tp_traverse, tensor_traverse},
        {Py_tp_clear, tensor_clear},
        {Py_tp_repr, tensor_repr},
        {Py_tp_str, tensor_repr},
        {Py_tp_new, tensor_new},
        {Py_tp_methods, all},
        {Py_tp_getset, wk_py_tensor_getset},
        {Py_tp_members, members},
        {Py_tp_hash, tensor_hash},
        {Py_tp_richcompare, richcompare},
        {Py_nb_add, nb_add},
        {Py_nb_subtract, nb_sub},
        {Py_nb_multiply, nb_mul},
        {Py_nb_true_divide, nb_truediv},
        {Py_nb_floor_divide, nb_floordiv},
        {Py_nb_remainder, nb_remainder},
        {Py_nb_power, nb_power},
        {Py_nb_matrix_multiply, nb_matmul},
        {Py_nb_and, nb_and},
        {Py_nb_or, nb_or},
        {Py_nb_xor, nb_xor},
        {Py_nb_lshift, nb_lshift},
        {Py_nb_rshift, nb_rshift},
        {Py_nb_inplace_add, nb_iadd},
        {Py_nb_inplace_subtract, nb_isub},
        {Py_nb_inplace_multiply, nb_imul},
        {Py_nb_inplace_true_divide, nb_itruediv},
        {Py_nb_inplace_floor_divide, nb_ifloordiv},
        {Py_nb_inplace_remainder, nb_iremainder},
        {Py_nb_inplace_power, nb_ipower},
        {Py_nb_inplace_and, nb_iand},
        {Py_nb_inplace_or, nb_ior},
        {Py_nb_inplace_xor, nb_ixor},
        {Py_nb_inplace_lshift, nb_ilshift},
        {Py_nb_inplace_rshift, nb_irshift},
        /* no nb_inplace_matrix_multiply: torch has no Tensor.__imatmul__ (x @= y rebinds x to x @ y) */
        {Py_nb_negative, nb_neg},
        {Py_nb_positive, nb_pos},
        {Py_nb_absolute, nb_abs},
        {Py_nb_invert, nb_invert},
        {Py_nb_bool, nb_bool},
        {Py_nb_int, nb_int},
        {Py_nb_float, nb_float},
        {Py_nb_index, nb_index},
        {Py_sq_length, sq_length},
        {Py_mp_length, sq_length},
        {Py_mp_subscript, wk_py_index_get},
        {Py_mp_ass_subscript, wk_py_index_set},
        {0, NULL}};
    PyType_Spec spec = {"wick._C.TensorBase", sizeof(wk_PyTensor), 0,
                        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
    wk_TensorType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &spec, NULL);
    if (!wk_TensorType) return -1;
    Py_INCREF(wk_TensorType);
    return PyModule_AddObject(m, "TensorBase", (PyObject *)wk_TensorType);
}
