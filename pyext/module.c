/* module.c — wick._C: module init (multi-phase), dtype objects, torch.Size, return types, and the module-level
 * functions that are not ops (tensor(), grad mode, backward entry points). */
#include "pyext.h"


PyTypeObject *wk_DtypeType;
PyTypeObject *wk_SizeType;
PyObject *wk_dtype_objs[WK_NUM_DTYPES];
PyObject *wk_return_types;

/* ---- dtype ---- */
static PyObject *dtype_repr(PyObject *o) { return PyUnicode_FromFormat("torch.%s", wk_dtype_name(((wk_PyDtype *)o)->dt)); }
static PyObject *dtype_is_floating(PyObject *o, void *c) {
    (void)c;
    return PyBool_FromLong(wk_dtype_is_floating(((wk_PyDtype *)o)->dt));
}
static PyObject *dtype_is_signed(PyObject *o, void *c) {
    (void)c;
    wk_dtype d = ((wk_PyDtype *)o)->dt;
    return PyBool_FromLong(d != WK_BOOL && d != WK_UINT8);
}
static PyObject *dtype_false(PyObject *o, void *c) {
    (void)o;
    (void)c;
    Py_RETURN_FALSE;
}
static PyObject *dtype_itemsize(PyObject *o, void *c) {
    (void)c;
    return PyLong_FromSize_t(wk_dtype_size(((wk_PyDtype *)o)->dt));
}
static PyObject *dtype_reduce(PyObject *o, PyObject *unused) {
    (void)unused;
    return PyUnicode_FromString(wk_dtype_name(((wk_PyDtype *)o)->dt));
}
static PyObject *dtype_to_real(PyObject *o, PyObject *unused) {
    (void)unused;
    Py_INCREF(o);
    return o;
}
static PyGetSetDef dtype_getset[] = {{"is_floating_point", dtype_is_floating, NULL, NULL, NULL},
                                     {"is_signed", dtype_is_signed, NULL, NULL, NULL},
                                     {"is_complex", dtype_false, NULL, NULL, NULL},
                                     {"itemsize", dtype_itemsize, NULL, NULL, NULL},
                                     {NULL, NULL, NULL, NULL, NULL}};
static PyMethodDef dtype_methods[] = {{"__reduce__", dtype_reduce, METH_NOARGS, NULL},
                                      {"to_real", dtype_to_real, METH_NOARGS, NULL},
                                      {NULL, NULL, 0, NULL}};

static PyObject *dtype_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    (void)type;
    (void)args;
    (void)kwargs;
    return PyErr_Format(PyExc_TypeError, "cannot create 'torch.dtype' instances");
}

int wk_py_dtype_init(PyObject *m) {
    /* named torch.dtype as torch's (type(x).__module__ == 'torch', and messages say 'torch.dtype') */
    PyType_Slot slots[] = {{Py_tp_repr, dtype_repr},       {Py_tp_getset, dtype_getset}, {Py_tp_methods, dtype_methods},
                           {Py_tp_new, dtype_new},         {0, NULL}};
    PyType_Spec spec = {"torch.dtype", sizeof(wk_PyDtype), 0, Py_TPFLAGS_DEFAULT, slots};
    wk_DtypeType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &spec, NULL);
    if (!wk_DtypeType) return -1;
    /* instances can't be created from Python: clear tp_new after making ours */
    for (int d = 0; d < WK_NUM_DTYPES; d++) {
        wk_PyDtype *o = PyObject_New(wk_PyDtype, wk_DtypeType);
        if (!o) return -1;
        o->dt = (wk_dtype)d;
        wk_dtype_objs[d] = (PyObject *)o;
        Py_INCREF(o);
        if (PyModule_AddObject(m, wk_dtype_name((wk_dtype)d), (PyObject *)o) < 0) return -1;
    }
    Py_INCREF(wk_DtypeType);
    return PyModule_AddObject(m, "dtype", (PyObject *)wk_DtypeType);
}

/* ---- torch.Size: a tuple whose repr is torch.Size([2, 3]) ---- */
/* element i as int64 (torch's THPUtils_unpackLong: a ValueError when it doesn't fit) */
static int size_elem(PyObject *o, Py_ssize_t i, long long *v) {
    PyObject *n = PyNumber_Index(PyTuple_GET_ITEM(o, i));
    if (!n) return -1;
    int overflow = 0;
    *v = PyLong_AsLongLongAndOverflow(n, &overflow);
    Py_DECREF(n);
    if (overflow) PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
    return overflow || (*v == -1 && PyErr_Occurred()) ? -1 : 0;
}
static PyObject *size_repr(PyObject *o) {
    PyObject *lst = PyList_New(PyTuple_GET_SIZE(o));
    if (!lst) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++) {
        long long v;
        PyObject *x = size_elem(o, i, &v) < 0 ? NULL : PyLong_FromLongLong(v);
        if (!x) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, i, x);
    }
    PyObject *r = PyUnicode_FromFormat("torch.Size(%R)", lst);
    Py_DECREF(lst);
    return r;
}
static PyObject *size_numel(PyObject *o, PyObject *unused) {
    (void)unused;
    unsigned long long p = 1; /* wraps on overflow as torch's int64 product does */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++) {
        long long v;
        if (size_elem(o, i, &v) < 0) return NULL;
        p *= (unsigned long long)v;
    }
    return PyLong_FromLongLong((long long)p);
}
/* a tuple result as a torch.Size (steals r) */
static PyObject *size_wrap(PyObject *r) {
    if (!r) return NULL;
    PyObject *args = PyTuple_Pack(1, r);
    Py_DECREF(r);
    if (!args) return NULL;
    r = PyTuple_Type.tp_new(wk_SizeType, args, NULL);
    Py_DECREF(args);
    return r;
}
/* slicing, + and * keep torch.Size, like torch */
static PyObject *size_getitem(PyObject *o, PyObject *key) {
    PyObject *r = PyTuple_Type.tp_as_mapping->mp_subscript(o, key);
    return r && PySlice_Check(key) ? size_wrap(r) : r;
}
static PyObject *size_add(PyObject *a, PyObject *b) {
    if (!PyTuple_Check(a)) Py_RETURN_NOTIMPLEMENTED; /* [1] + size: the list's own error */
    if (!PyTuple_Check(b))
        return PyErr_Format(PyExc_TypeError, "can only concatenate tuple (not %s) to torch.Size", Py_TYPE(b)->tp_name);
    return size_wrap(PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}
static PyObject *size_repeat(PyObject *a, Py_ssize_t n) {
    return size_wrap(PyTuple_Type.tp_as_sequence->sq_repeat(a, n));
}
/* numpy integers stay as they are in a torch.Size (torch's THPUtils_checkLong accepts them) */
static int is_numpy_int(PyObject *x) {
    PyObject *mods = PyImport_GetModuleDict(), *m = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
    if (!m) return 0;
    PyObject *integer = PyObject_GetAttrString(m, "integer");
    if (!integer) {
        PyErr_Clear();
        return 0;
    }
    int r = PyObject_IsInstance(x, integer);
    Py_DECREF(integer);
    if (r < 0) PyErr_Clear();
    return r > 0;
}
/* torch.Size(iterable): ints (not bools) and numpy ints stay; anything else with __index__ (bools, one-element
 * integer tensors) becomes its int */
static PyObject *size_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *r = PyTuple_Type.tp_new(type, args, kwargs);
    if (!r) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(r); i++) {
        PyObject *x = PyTuple_GET_ITEM(r, i);
        if (!(PyLong_Check(x) && !PyBool_Check(x)) && !is_numpy_int(x)) {
            PyObject *n = PyNumber_Index(x);
            if (!n) {
                PyErr_Clear();
                Py_DECREF(r);
                return PyErr_Format(PyExc_TypeError, "torch.Size() takes an iterable of 'int' (item %zd is '%s')", i,
                                    Py_TYPE(x)->tp_name);
            }
            PyTuple_SET_ITEM(r, i, n); /* r is new and ours alone */
            Py_DECREF(x);
        }
    }
    return r;
}
static PyMethodDef size_methods[] = {{"numel", size_numel, METH_NOARGS, NULL},
                                     {NULL, NULL, 0, NULL}};

/* named torch.Size as torch's (messages and type(s).__module__ say torch); pickled by a function of wick
 * (_creation_py.py) */
static int size_init(PyObject *m) {
    PyType_Slot slots[] = {{Py_tp_repr, size_repr},         {Py_tp_str, size_repr},   {Py_tp_methods, size_methods},
                           {Py_tp_new, size_new},           {Py_mp_subscript, size_getitem}, {Py_nb_add, size_add},
                           {Py_sq_repeat, size_repeat},     {0, NULL}};
    PyType_Spec spec = {"torch.Size", 0, 0, Py_TPFLAGS_DEFAULT, slots};
    PyObject *bases = PyTuple_Pack(1, (PyObject *)&PyTuple_Type);
    wk_SizeType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &spec, bases);
    Py_XDECREF(bases);
    if (!wk_SizeType) return -1;
    Py_INCREF(wk_SizeType);
    return PyModule_AddObject(m, "Size", (PyObject *)wk_SizeType);
}

/* ---- torch.return_types: named tuples of ops that return several tensors ---- */
/* torch's repr: "torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))" */
static PyObject *return_type_repr(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject *out = PyUnicode_FromFormat("%s(\n", tp->tp_name);
    Py_ssize_t n = PyTuple_GET_SIZE(self);
    PyObject *fields = PyObject_GetAttrString((PyObject *)tp, "_wk_fields");
    for (Py_ssize_t i = 0; out && fields && i < n; i++) {
        PyObject *r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
        PyObject *part = r ? PyUnicode_FromFormat("%U=%U%s", PyTuple_GET_ITEM(fields, i), r, i + 1 < n ? ",\n" : ")")
                           : NULL;
        Py_XDECREF(r);
        PyUnicode_AppendAndDel(&out, part);
    }
    Py_XDECREF(fields);
    if (!fields) Py_CLEAR(out);
    return out;
}

static PyObject *m_register_return_type(PyObject *m, PyObject *args) {
    (void)m;
    const char *name;
    PyObject *fields;
    if (!PyArg_ParseTuple(args, "sO!", &name, &PyTuple_Type, &fields)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    PyStructSequence_Field *f = PyMem_Calloc((size_t)n + 1, sizeof *f);
    if (!f) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields, i));
        f[i].name = s ? strdup(s) : NULL;
    }
    char *full = malloc(strlen(name) + 32);
    if (!full) return PyErr_NoMemory();
    sprintf(full, "torch.return_types.%s", name);
    PyStructSequence_Desc *desc = PyMem_Calloc(1, sizeof *desc);
    if (!desc) return PyErr_NoMemory();
    desc->name = full;
    desc->fields = f;
    desc->n_in_sequence = (int)n;
    PyTypeObject *t = PyStructSequence_NewType(desc);
    if (!t) return NULL;
    t->tp_repr = return_type_repr;
    PyType_Modified(t);
    if (PyObject_SetAttrString((PyObject *)t, "_wk_fields", fields) < 0) return NULL;
    if (PyDict_SetItemString(wk_return_types, name, (PyObject *)t) < 0) return NULL;
    return (PyObject *)t;
}

/* ---- module functions ---- */
/* torch.tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False), as_tensor(data, *, dtype,
 * device) and Tensor.new_tensor(data, *, dtype, device, requires_grad): Note [tensor() from Python data]. */
static const wk_param TENSOR_PARAMS[] = {{"data", PT_OBJECT, 0, 0, NULL},
                                         {"dtype", PT_OPT_DTYPE, 0, 1, "None"},
                                         {"device", PT_DEVICE, 0, 1, "None"},
                                         {"requires_grad", PT_BOOL, 0, 1, "False"},
                                         {"pin_memory", PT_BOOL, 0, 1, "False"},
                                         {NULL, 0, 0, 0, NULL}};
static const wk_param AS_TENSOR_PARAMS[] = {{"data", PT_OBJECT, 0, 0, NULL},
                                            {"dtype", PT_OPT_DTYPE, 0, 1, "None"},
                                            {"device", PT_DEVICE, 0, 1, "None"},
                                            {NULL, 0, 0, 0, NULL}};
static const wk_param NEW_TENSOR_PARAMS[] = {{"data", PT_OBJECT, 0, 0, NULL},
                                             {"dtype", PT_OPT_DTYPE, 0, 1, "None"},
                                             {"device", PT_DEVICE, 0, 1, "None"},
                                             {"requires_grad", PT_BOOL, 0, 1, "False"},
                                             {NULL, 0, 0, 0, NULL}};

static PyObject *tensor_common(const char *name, const wk_param *params, PyObject *self, PyObject *args,
                               PyObject *kwargs) {
    wk_sig sigs[2] = {{name, params, self != NULL, 0}, {NULL, NULL, 0, 0}};
    wk_pyval a[WK_PY_MAXARGS];
    wk_argscope sc = {0};
    int rc = wk_parse_args(sigs, self, args, kwargs, a, &sc);
    if (rc < 0) return rc == WK_PARSE_HOOKED ? sc.hooked : NULL;
    wk_argscope_free(&sc);
    wk_device *target = wk_py_take_pending_device(NULL); /* Note [Device argument]: built on the host, moved */
    PyObject *data = a[0].obj;
    wk_dtype dt = a[1].dt;
    bool as_tensor = params == AS_TENSOR_PARAMS, rg = !as_tensor && a[3].b;
    if (params == TENSOR_PARAMS && a[4].b) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True requires a CUDA or other accelerator backend; no pinned "
                                            "memory allocator is available on this system.");
        return NULL;
    }
    if (self) { /* new_tensor: the dtype is self's unless given (no inference) */
        if (dt == WK_DTYPE_NONE) dt = wk_tensor_dtype(wk_py_self(self));
    }
    if (!as_tensor && WK_PyTensor_Check(data)) {
        const char *msg = self ? "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                                 "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                                 "tensor.new_tensor(sourceTensor)."
                               : "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                                 "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                                 "torch.tensor(sourceTensor).";
        if (PyErr_WarnEx(PyExc_UserWarning, msg, 1) < 0) return NULL;
    }
    wk_tensor *t = wk_py_tensor_new(data, dt, !as_tensor);
    if (!t) return NULL;
    if (rg && wk__finish_factory(t, true) == NULL) return wk_py_raise();
    return wk_py_move_result(wk_py_wrap(t), target, WK_PyTensor_Check(data) ? wk_py_self(data) : NULL);
}
static PyObject *m_tensor(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return tensor_common("tensor", TENSOR_PARAMS, NULL, args, kwargs);
}
static PyObject *m_as_tensor(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    return tensor_common("as_tensor", AS_TENSOR_PARAMS, NULL, args, kwargs);
}
/* _new_tensor(self, data, ...): the body of Tensor.new_tensor (wick/_creation_py.py) */
static PyObject *m_new_tensor(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n < 1 || !WK_PyTensor_Check(PyTuple_GET_ITEM(args, 0)))
        return PyErr_Format(PyExc_TypeError, "descriptor 'new_tensor' requires a 'torch._C.TensorBase' object");
    PyObject *rest = PyTuple_GetSlice(args, 1, n);
    if (!rest) return NULL;
    PyObject *r = tensor_common("new_tensor", NEW_TENSOR_PARAMS, PyTuple_GET_ITEM(args, 0), rest, kwargs);
    Py_DECREF(rest);
    return r;
}
static PyObject *m_from_numpy(PyObject *m, PyObject *arr) {
    (void)m;
    return wk_py_wrap(wk_py_from_numpy(arr, true));
}

/* torch.frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) */
static const wk_param FROMBUFFER_PARAMS[] = {{"buffer", PT_OBJECT, 0, 0, NULL},
                                             {"dtype", PT_DTYPE, 0, 1, NULL},
                                             {"count", PT_INT, 0, 1, "-1"},
                                             {"offset", PT_INT, 0, 1, "0"},
                                             {"requires_grad", PT_BOOL, 0, 1, "False"},
                                             {NULL, 0, 0, 0, NULL}};
static PyObject *m_frombuffer(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    wk_sig sigs[2] = {{"frombuffer", FROMBUFFER_PARAMS, 0, 0}, {NULL, NULL, 0, 0}};
    wk_pyval a[WK_PY_MAXARGS];
    wk_argscope sc = {0};
    int rc = wk_parse_args(sigs, NULL, args, kwargs, a, &sc);
    if (rc < 0) return rc == WK_PARSE_HOOKED ? sc.hooked : NULL;
    wk_argscope_free(&sc);
    wk_tensor *t = wk_py_frombuffer(a[0].obj, a[1].dt, a[2].i, a[3].i);
    if (!t) return NULL;
    if (a[4].b && wk__finish_factory(t, true) == NULL) return wk_py_raise();
    return wk_py_wrap(t);
}

static PyObject *m_set_tensor_class(PyObject *m, PyObject *cls) {
    (void)m;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, wk_TensorType))
        return PyErr_Format(PyExc_TypeError, "expected a subclass of TensorBase");
    Py_INCREF(cls);
    wk_py_tensor_class = (PyTypeObject *)cls;
    Py_RETURN_NONE;
}

static PyObject *m_get_default_dtype(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return wk_py_from_dtype(wk_get_default_dtype());
}
static PyObject *m_set_default_dtype(PyObject *m, PyObject *d) {
    (void)m;
    if (!PyObject_TypeCheck(d, wk_DtypeType))
        return PyErr_Format(PyExc_TypeError, "invalid dtype object: only floating-point types are supported as the "
                                             "default type");
    if (wk_set_default_dtype(((wk_PyDtype *)d)->dt) < 0) return wk_py_raise();
    Py_RETURN_NONE;
}
static PyObject *m_is_grad_enabled(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return PyBool_FromLong(wk_is_grad_enabled());
}
static PyObject *m_set_grad_enabled(PyObject *m, PyObject *v) {
    (void)m;
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    return PyBool_FromLong(wk_set_grad_enabled(b));
}
static PyObject *m_is_inference_mode_enabled(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return PyBool_FromLong(wk_is_inference_mode_enabled());
}
static PyObject *m_set_inference_mode(PyObject *m, PyObject *v) {
    (void)m;
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    return PyBool_FromLong(wk_set_inference_mode(b));
}

static int tensor_seq(PyObject *seq, wk_tensor ***out, Py_ssize_t *n, bool allow_none) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of tensors");
    if (!fast) return -1;
    *n = PySequence_Fast_GET_SIZE(fast);
    *out = calloc((size_t)(*n ? *n : 1), sizeof **out);
    if (!*out) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(fast, i);
        if (o == Py_None && allow_none) continue;
        if (!WK_PyTensor_Check(o)) {
            PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd, but got %s", i, Py_TYPE(o)->tp_name);
            Py_DECREF(fast);
            free(*out);
            *out = NULL; /* the caller frees what it holds: no double free */
            return -1;
        }
        (*out)[i] = wk_py_self(o);
    }
    Py_DECREF(fast);
    return 0;
}

/* _run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, allow_unused, accumulate) */
static PyObject *m_run_backward(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *ts, *gs, *ins;
    int retain, create, allow_unused, accumulate;
    if (!PyArg_ParseTuple(args, "OOppOpp", &ts, &gs, &retain, &create, &ins, &allow_unused, &accumulate)) return NULL;
    wk_tensor **roots = NULL, **grads = NULL, **inputs = NULL, **outs = NULL;
    Py_ssize_t nr, ng, ni = 0;
    PyObject *result = NULL;
    if (tensor_seq(ts, &roots, &nr, false) < 0) return NULL;
    if (tensor_seq(gs, &grads, &ng, true) < 0) goto done;
    if (ng != nr) {
        PyErr_Format(PyExc_RuntimeError, "grad_tensors has %zd elements but tensors has %zd", ng, nr);
        goto done;
    }
    if (ins != Py_None) {
        if (tensor_seq(ins, &inputs, &ni, false) < 0) goto done;
        outs = calloc((size_t)(ni ? ni : 1), sizeof *outs);
        if (!outs) goto done;
    }
    int rc = wk_run_backward((int)nr, roots, grads, retain, create, (int)ni, inputs, accumulate ? NULL : outs,
                             allow_unused);
    if (rc < 0) {
        wk_py_raise();
        goto done;
    }
    if (!accumulate && inputs) {
        result = PyTuple_New(ni);
        for (Py_ssize_t i = 0; result && i < ni; i++) {
            PyObject *o = outs[i] ? wk_py_wrap(outs[i]) : (Py_INCREF(Py_None), Py_None);
            outs[i] = NULL;
            PyTuple_SET_ITEM(result, i, o);
        }
    } else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    free(roots);
    free(grads);
    free(inputs);
    if (outs)
        for (Py_ssize_t i = 0; i < ni; i++) wk_release(outs[i]);
    free(outs);
    return result;
}

static PyObject *m_set_printoptions(PyObject *m, PyObject *args) {
    (void)m;
    int precision, edgeitems, linewidth, sci;
    double threshold;
    if (!PyArg_ParseTuple(args, "idiii", &precision, &threshold, &edgeitems, &linewidth, &sci)) return NULL;
    wk_set_printoptions(precision, threshold, edgeitems, linewidth, sci);
    Py_RETURN_NONE;
}
static PyObject *m_get_printoptions(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    int precision, edgeitems, linewidth, sci;
    double threshold;
    wk_get_printoptions(&precision, &threshold, &edgeitems, &linewidth, &sci);
    return Py_BuildValue("(idiii)", precision, threshold, edgeitems, linewidth, sci);
}

static PyObject *m_get_num_threads(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return PyLong_FromLong(wk_get_num_threads());
}
static PyObject *m_set_num_threads(PyObject *m, PyObject *v) {
    (void)m;
    long n = PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n > INT32_MAX || wk_set_num_threads((int)n) < 0) return wk_py_raise();
    Py_RETURN_NONE;
}

static PyMethodDef module_functions[] = {
    {"get_num_threads", m_get_num_threads, METH_NOARGS, NULL},
    {"set_num_threads", m_set_num_threads, METH_O, NULL},
    {"_set_printoptions", m_set_printoptions, METH_VARARGS, NULL},
    {"_get_printoptions", m_get_printoptions, METH_NOARGS, NULL},
    {"tensor", (PyCFunction)(void (*)(void))m_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"as_tensor", (PyCFunction)(void (*)(void))m_as_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_new_tensor", (PyCFunction)(void (*)(void))m_new_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"from_numpy", m_from_numpy, METH_O, NULL},
    {"frombuffer", (PyCFunction)(void (*)(void))m_frombuffer, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_set_tensor_class", m_set_tensor_class, METH_O, NULL},
    {"_register_return_type", m_register_return_type, METH_VARARGS, NULL},
    {"get_default_dtype", m_get_default_dtype, METH_NOARGS, NULL},
    {"_set_default_dtype", m_set_default_dtype, METH_O, NULL},
    {"is_grad_enabled", m_is_grad_enabled, METH_NOARGS, NULL},
    {"_set_grad_enabled", m_set_grad_enabled, METH_O, NULL},
    {"is_inference_mode_enabled", m_is_inference_mode_enabled, METH_NOARGS, NULL},
    {"_set_inference_mode", m_set_inference_mode, METH_O, NULL},
    {"_run_backward", m_run_backward, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static int add_functions(PyObject *m, PyMethodDef *defs) {
    for (PyMethodDef *d = defs; d->ml_name; d++) {
        PyObject *f = PyCFunction_NewEx(d, NULL, NULL);
        if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) return -1;
    }
    return 0;
}

static int exec_module(PyObject *m) {
    wk_return_types = PyDict_New();
    if (!wk_return_types) return -1;
    Py_INCREF(wk_return_types);
    if (PyModule_AddObject(m, "_return_types", wk_return_types) < 0) return -1;
    if (wk_py_dtype_init(m) < 0 || size_init(m) < 0 || wk_py_node_init(m) < 0 || wk_py_tensor_type_init(m) < 0 ||
        wk_py_generator_init(m) < 0)
        return -1;
    if (add_functions(m, module_functions) < 0) return -1;
    if (add_functions(m, wk_generated_functions) < 0) return -1;
    if (!wk_py_linalg_error) { /* torch._C._LinAlgError: what linalg raises for singular / not positive-definite input */
        wk_py_linalg_error = PyErr_NewException("wick._C._LinAlgError", PyExc_RuntimeError, NULL);
        if (!wk_py_linalg_error) return -1;
    }
    Py_INCREF(wk_py_linalg_error);
    if (PyModule_AddObject(m, "_LinAlgError", wk_py_linalg_error) < 0) {
        Py_DECREF(wk_py_linalg_error);
        return -1;
    }
    if (add_functions(m, wk_py_function_functions) < 0) return -1;
    if (add_functions(m, wk_py_storage_functions) < 0) return -1;
    if (add_functions(m, wk_py_vmap_functions) < 0) return -1;
    if (add_functions(m, wk_py_saved_hooks_functions) < 0) return -1;
    if (add_functions(m, wk_py_webgpu_functions) < 0) return -1;
    /* torch._C._nn: the ops whose table entry says `python_module: nn` (F.* call them; not in the torch namespace) */
    PyObject *nn = PyModule_New("wick._C._nn");
    if (!nn || add_functions(nn, wk_generated_nn_functions) < 0 || PyModule_AddObject(m, "_nn", nn) < 0) {
        Py_XDECREF(nn);
        return -1;
    }
    /* torch._C._linalg: the ops whose table entry says `python_module: linalg` (torch.linalg.* are these) */
    PyObject *la = PyModule_New("wick._C._linalg");
    if (!la || add_functions(la, wk_generated_linalg_functions) < 0 || PyModule_AddObject(m, "_linalg", la) < 0) {
        Py_XDECREF(la);
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};
static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "wick._C", "wick's C core.", 0, NULL, slots, NULL,
                                       NULL, NULL};

PyMODINIT_FUNC PyInit__C(void);
PyMODINIT_FUNC PyInit__C(void) { return PyModuleDef_Init(&moduledef); }
