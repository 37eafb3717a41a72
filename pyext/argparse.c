/* argparse.c — torch's Python argument parser, driven by the signatures the op table generates.
 *
 * Each Python name has a list of signatures (overloads). A call is matched against each in order, first strictly
 * (a Scalar parameter takes only Python numbers), then leniently (a one-element tensor is accepted as a Scalar);
 * the first match wins. Values are converted into wk_pyval slots; temporaries go into an argscope. */
#include "pyext.h"

void wk_argscope_free(wk_argscope *sc) {
    if (sc->device) { /* Note [Device argument]: for wk_py_flush_warnings, the binding's next step */
        wk_py_set_pending_device(sc->device, sc->device_self);
        sc->device = NULL;
        sc->device_self = NULL;
    }
    for (int i = 0; i < sc->nptrs; i++) free(sc->ptrs[i]);
    for (int i = 0; i < sc->ntensors; i++) wk_release(sc->tensors[i]);
    sc->nptrs = sc->ntensors = 0;
    sc->self = NULL;
}

static void *scope_alloc(wk_argscope *sc, size_t n) {
    if (sc->nptrs >= (int)(sizeof sc->ptrs / sizeof sc->ptrs[0])) return NULL;
    void *p = calloc(1, n ? n : 1);
    if (p) sc->ptrs[sc->nptrs++] = p;
    return p;
}

static wk_tensor *scope_tensor(wk_argscope *sc, wk_tensor *t) {
    if (!t) return NULL;
    if (sc->ntensors >= (int)(sizeof sc->tensors / sizeof sc->tensors[0])) {
        wk_release(t);
        return NULL;
    }
    sc->tensors[sc->ntensors++] = t;
    return t;
}

static const char *ptype_name(wk_ptype t) {
    switch (t) {
    case PT_TENSOR: case PT_OPT_TENSOR: return "Tensor";
    case PT_TENSORLIST: case PT_OPT_TENSORLIST: return "tuple of Tensors";
    case PT_SCALAR: case PT_OPT_SCALAR: return "Number";
    case PT_INT: case PT_OPT_INT: return "int";
    case PT_INTLIST: case PT_OPT_INTLIST: return "tuple of ints";
    case PT_FLOAT: case PT_OPT_FLOAT: return "float";
    case PT_BOOL: case PT_OPT_BOOL: return "bool";
    case PT_STR: case PT_OPT_STR: return "str";
    case PT_DTYPE: case PT_OPT_DTYPE: return "torch.dtype";
    case PT_GENERATOR: return "torch.Generator";
    case PT_DEVICE: return "torch.device";
    case PT_LAYOUT: return "torch.layout";
    case PT_MEMFMT: return "torch.memory_format";
    case PT_FLOATLIST: case PT_OPT_FLOATLIST: return "tuple of floats";
    default: return "object";
    }
}

static bool optional(wk_ptype t) {
    switch (t) {
    case PT_OPT_TENSOR: case PT_OPT_SCALAR: case PT_OPT_INT: case PT_OPT_INTLIST: case PT_OPT_FLOAT: case PT_OPT_BOOL:
    case PT_OPT_STR: case PT_OPT_DTYPE: case PT_GENERATOR: case PT_DEVICE: case PT_LAYOUT: case PT_MEMFMT:
    case PT_OPT_TENSORLIST: case PT_OPT_FLOATLIST: case PT_OBJECT:
        return true;
    default: return false;
    }
}

static int to_int(PyObject *o, int64_t *v) {
    if (PyBool_Check(o)) return 0;
    if (PyLong_Check(o)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) { /* torch's THPUtils_unpackLong */
            PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            return -1;
        }
        *v = x;
        return 1;
    }
    if (WK_PyTensor_Check(o)) {
        wk_tensor *t = wk_py_self(o);
        if (wk_ndim(t) != 0 || !wk_dtype_is_integral(wk_tensor_dtype(t), false)) return 0;
        wk_scalar s;
        if (wk_item(t, &s) < 0) return wk_py_raise(), -1;
        *v = s.v.i;
        return 1;
    }
    if (PyIndex_Check(o) && !PyFloat_Check(o)) {
        PyObject *i = PyNumber_Index(o);
        if (!i) {
            PyErr_Clear();
            return 0;
        }
        long long x = PyLong_AsLongLong(i);
        Py_DECREF(i);
        if (x == -1 && PyErr_Occurred()) return -1;
        *v = x;
        return 1;
    }
    return 0;
}

/* An int list argument, as torch's parser takes it: a tuple or list of ints (checked on its first element: a
 * bad later element is a hard "failed to unpack" error, reported as -2 with *bad_pos its 1-based position; -3 for an
 * int beyond int64 anywhere), or a
 * single int where the schema gives a size (int[2] kernel_size: the int is repeated). */
static int to_intlist(PyObject *o, int size, wk_intlist *out, wk_argscope *sc, Py_ssize_t *bad_pos) {
    int64_t v;
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        if (size <= 0) return 0;
        int rc = to_int(o, &v);
        if (rc <= 0) return rc;
        int64_t *d = scope_alloc(sc, sizeof(int64_t) * (size_t)size);
        if (!d) return -1;
        for (int i = 0; i < size; i++) d[i] = v;
        *out = wk_ints(d, size);
        return 1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    int64_t *d = scope_alloc(sc, sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!d) return -1;
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; i++) {
        int rc = to_int(items[i], &d[i]);
        if (rc < 0 && PyErr_ExceptionMatches(PyExc_ValueError)) { /* an int beyond int64: "failed to unpack" */
            PyErr_Clear();
            *bad_pos = i + 1;
            return -3;
        }
        if (rc < 0) return -1;
        if (rc == 0) {
            *bad_pos = i + 1;
            return i == 0 ? 0 : -2;
        }
    }
    *out = wk_ints(d, n);
    return 1;
}

/* Does o look like an int to the varargs rule (x.view(2, 3), torch.zeros(2, 3))? */
static bool int_like(PyObject *o) {
    if (PyBool_Check(o) || PyFloat_Check(o) || PyTuple_Check(o) || PyList_Check(o)) return false;
    if (WK_PyTensor_Check(o)) return wk_ndim(wk_py_self(o)) == 0 && wk_dtype_is_integral(wk_tensor_dtype(wk_py_self(o)), false);
    return PyLong_Check(o) || PyIndex_Check(o);
}

static int to_floatlist(PyObject *o, int size, wk_floatlist *out, wk_argscope *sc) {
    if (PyFloat_Check(o) || PyLong_Check(o)) {
        int n = size > 0 ? size : 1;
        double *d = scope_alloc(sc, sizeof(double) * (size_t)n), x = PyFloat_AsDouble(o);
        if (!d) return -1;
        for (int i = 0; i < n; i++) d[i] = x;
        out->data = d;
        out->len = n;
        return 1;
    }
    if (!PyTuple_Check(o) && !PyList_Check(o)) return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    double *d = scope_alloc(sc, sizeof(double) * (size_t)(n ? n : 1));
    if (!d) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_Fast_ITEMS(o)[i];
        if (!PyFloat_Check(it) && !PyLong_Check(it)) return 0;
        d[i] = PyFloat_AsDouble(it);
    }
    out->data = d;
    out->len = n;
    return 1;
}

/* Converts one argument. Returns 1 ok, 0 type mismatch (no error set), -1 error. */
static int set_default(const wk_param *p, wk_pyval *v, wk_argscope *sc);
static int convert(const wk_param *p, PyObject *o, wk_pyval *v, int wrap_numbers, bool lenient, wk_argscope *sc) {
    /* an int list that defaults to [] takes None for the default, as torch's parser (avg_pool2d(x, 2, None)) */
    if (o == Py_None && p->type == PT_INTLIST && p->dflt && !strcmp(p->dflt, "[]"))
        return set_default(p, v, sc) < 0 ? -1 : 1;
    if (o == Py_None && optional(p->type)) {
        switch (p->type) {
        case PT_OPT_TENSOR: v->t = NULL; break;
        case PT_OPT_SCALAR: v->s = wk_scalar_none(); break;
        case PT_OPT_INT: v->oi = wk_none_int(); break;
        case PT_OPT_INTLIST: v->il = wk_none_ints(); break;
        case PT_OPT_FLOAT: v->of = wk_none_float(); break;
        case PT_OPT_BOOL: v->ob = -1; break;
        case PT_OPT_STR: v->str = NULL; break;
        case PT_OPT_DTYPE: v->dt = WK_DTYPE_NONE; break;
        case PT_GENERATOR: v->gen = NULL; break;
        case PT_OPT_TENSORLIST: v->otl.data = NULL; v->otl.len = -1; break;
        case PT_OPT_FLOATLIST: v->fl.data = NULL; v->fl.len = -1; break;
        default: break;
        }
        v->obj = o;
        return 1;
    }
    v->obj = o;
    switch (p->type) {
    case PT_TENSOR:
    case PT_OPT_TENSOR:
        if (WK_PyTensor_Check(o)) {
            v->t = wk_py_self(o);
            return 1;
        }
        if (wrap_numbers && wk_py_is_number(o)) {
            wk_scalar s;
            int rc = wk_py_to_scalar(o, &s, false);
            if (rc <= 0) return rc;
            v->t = scope_tensor(sc, wk_wrapped_number(s));
            return v->t ? 1 : -1;
        }
        return 0;
    case PT_SCALAR:
    case PT_OPT_SCALAR: {
        int rc = wk_py_to_scalar(o, &v->s, lenient);
        return rc;
    }
    case PT_INT:
    case PT_OPT_INT: {
        int64_t x;
        int rc = to_int(o, &x);
        if (rc == 1) {
            v->i = x;
            v->oi = wk_some(x);
        }
        return rc;
    }
    case PT_INTLIST:
    case PT_OPT_INTLIST:
        if (PyObject_TypeCheck(o, wk_SizeType) || PyTuple_Check(o) || PyList_Check(o) || PyLong_Check(o) ||
            (WK_PyTensor_Check(o) && p->size > 0) || PyIndex_Check(o)) {
            Py_ssize_t bad = 0;
            int rc = to_intlist(o, p->size, &v->il, sc, &bad);
            if (rc == -3) { /* torch's message goes on with its C++ backtrace, then a closing quote */
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' failed to unpack the object at pos %zd with error "
                             "\"Overflow when unpacking long long", sc->fname ? sc->fname : "?", p->name, bad);
                return -1;
            }
            if (rc == -2) {
                PyObject *item = PySequence_Fast_ITEMS(o)[bad - 1];
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' failed to unpack the object at pos %zd with error "
                             "\"type must be tuple of ints,but got %s\"", sc->fname ? sc->fname : "?", p->name, bad,
                             Py_TYPE(item)->tp_name);
                return -1;
            }
            return rc;
        }
        return 0;
    case PT_FLOAT:
    case PT_OPT_FLOAT:
        if (PyFloat_Check(o) || (PyLong_Check(o) && !PyBool_Check(o))) {
            v->f = PyFloat_AsDouble(o);
            if (v->f == -1 && PyErr_Occurred()) return -1;
            v->of = wk_somef(v->f);
            return 1;
        }
        if (lenient || (!WK_PyTensor_Check(o) && PyNumber_Check(o) && !PyBool_Check(o))) {
            wk_scalar s;
            int rc = wk_py_to_scalar(o, &s, true);
            if (rc <= 0 || s.tag == WK_SCALAR_BOOL) return rc < 0 ? -1 : 0;
            v->f = wk_scalar_to_double(s);
            v->of = wk_somef(v->f);
            return 1;
        }
        return 0;
    case PT_BOOL:
    case PT_OPT_BOOL:
        if (PyBool_Check(o)) {
            v->b = o == Py_True;
            v->ob = v->b;
            return 1;
        }
        return 0; /* torch refuses ints (and numpy bools) for bool parameters */
    case PT_STR:
    case PT_OPT_STR:
        if (!PyUnicode_Check(o)) return 0;
        v->str = PyUnicode_AsUTF8(o);
        return v->str ? 1 : -1;
    case PT_DTYPE:
    case PT_OPT_DTYPE:
        return wk_py_to_dtype(o, &v->dt);
    case PT_GENERATOR: /* torch.Generator objects (generator.c) */
        if (!WK_PyGenerator_Check(o)) return 0;
        v->gen = ((wk_PyGenerator *)o)->g;
        return 1;
    case PT_DEVICE: {
        int rc = wk_py_check_device(o);
        v->obj = rc == 0 ? o : NULL; /* read again by device_target */
        return rc < 0 ? -1 : rc == 0;
    }
    case PT_LAYOUT: { /* a torch.layout (wick/_creation_py.py); wick has strided tensors only */
        if (strcmp(Py_TYPE(o)->tp_name, "layout")) return 0;
        PyObject *r = PyObject_Repr(o);
        const char *rs = r ? PyUnicode_AsUTF8(r) : NULL;
        int ok = rs && !strcmp(rs, "torch.strided");
        if (rs && !ok)
            PyErr_Format(PyExc_RuntimeError, "wick has only strided tensors: layout=%s is not supported", rs);
        Py_XDECREF(r);
        return ok ? 1 : -1;
    }
    case PT_MEMFMT: /* a torch.memory_format (wick/_creation_py.py); applied by apply_memory_format */
        v->obj = o;
        return !strcmp(Py_TYPE(o)->tp_name, "memory_format");
    case PT_OBJECT:
        return 1;
    case PT_TENSORLIST:
    case PT_OPT_TENSORLIST: {
        if (!PyTuple_Check(o) && !PyList_Check(o)) return 0;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        wk_tensor **arr = scope_alloc(sc, sizeof(wk_tensor *) * (size_t)(n ? n : 1));
        if (!arr) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *it = PySequence_Fast_ITEMS(o)[i];
            if (it == Py_None && p->type == PT_OPT_TENSORLIST) {
                arr[i] = NULL;
                continue;
            }
            if (!WK_PyTensor_Check(it)) return 0;
            arr[i] = wk_py_self(it);
        }
        v->tl.data = arr;
        v->tl.len = n;
        v->otl.data = (const wk_tensor *const *)arr;
        v->otl.len = n;
        return 1;
    }
    case PT_FLOATLIST:
    case PT_OPT_FLOATLIST:
        return to_floatlist(o, p->size, &v->fl, sc);
    }
    return 0;
}

/* Parses a schema default ("1", "None", "False", "[]", "1e-05", "contiguous_format", "'mean'", "-100"). */
static int set_default(const wk_param *p, wk_pyval *v, wk_argscope *sc) {
    const char *d = p->dflt;
    v->obj = NULL;
    if (!strcmp(d, "None")) return convert(p, Py_None, v, 0, false, sc) == 1 ? 0 : -1;
    switch (p->type) {
    case PT_SCALAR:
    case PT_OPT_SCALAR:
        if (strpbrk(d, ".e")) v->s = wk_float(strtod(d, NULL));
        else if (!strcmp(d, "True") || !strcmp(d, "False")) v->s = wk_bool(d[0] == 'T');
        else v->s = wk_int(strtoll(d, NULL, 10));
        return 0;
    case PT_INT:
    case PT_OPT_INT:
        v->i = strtoll(d, NULL, 10);
        v->oi = wk_some(v->i);
        return 0;
    case PT_FLOAT:
    case PT_OPT_FLOAT:
        v->f = strtod(d, NULL);
        v->of = wk_somef(v->f);
        return 0;
    case PT_BOOL:
    case PT_OPT_BOOL:
        v->b = !strcmp(d, "True");
        v->ob = v->b;
        return 0;
    case PT_STR:
    case PT_OPT_STR: {
        size_t n = strlen(d);
        char *s = scope_alloc(sc, n + 1);
        if (!s) return -1;
        if (n >= 2 && (d[0] == '\'' || d[0] == '"')) {
            memcpy(s, d + 1, n - 2);
            s[n - 2] = 0;
        } else memcpy(s, d, n + 1);
        v->str = s;
        return 0;
    }
    case PT_INTLIST:
    case PT_OPT_INTLIST: {
        int64_t *arr = scope_alloc(sc, sizeof(int64_t) * WK_MAX_DIM);
        if (!arr) return -1;
        int n = 0;
        if (d[0] == '[') {
            const char *q = d + 1;
            while (*q && *q != ']' && n < WK_MAX_DIM) {
                char *end;
                long long x = strtoll(q, &end, 10);
                if (end == q) break;
                arr[n++] = x;
                q = end;
                while (*q == ',' || *q == ' ') q++;
            }
        } else {
            long long x = strtoll(d, NULL, 10);
            int k = p->size > 0 ? p->size : 1;
            for (int i = 0; i < k; i++) arr[n++] = x;
        }
        v->il = wk_ints(arr, n);
        return 0;
    }
    case PT_DTYPE:
    case PT_OPT_DTYPE:
        v->dt = WK_DTYPE_NONE;
        return 0;
    case PT_FLOATLIST:
    case PT_OPT_FLOATLIST:
        v->fl.data = NULL;
        v->fl.len = -1;
        return 0;
    default:
        return 0; /* MemoryFormat contiguous_format, Layout strided, ... */
    }
}

static int count_params(const wk_param *ps) {
    int n = 0;
    while (ps[n].name) n++;
    return n;
}

/* torch's numpy-compatible keyword aliases (python_arg_parser.cpp): dim=axis, keepdim=keepdims, input=x/a/x1,
 * other=x2. */
static const char *np_alias(const char *name, int k) {
    static const char *const tab[][4] = {{"dim", "axis", NULL}, {"keepdim", "keepdims", NULL},
                                         {"input", "x", "a", "x1"}, {"other", "x2", NULL}};
    for (size_t t = 0; t < sizeof tab / sizeof tab[0]; t++)
        if (!strcmp(name, tab[t][0])) return k < 3 ? tab[t][k + 1] : NULL;
    return NULL;
}

static PyObject *kw_lookup(PyObject *kwargs, const char *name) {
    PyObject *o = PyDict_GetItemString(kwargs, name);
    for (int k = 0; !o && np_alias(name, k); k++) o = PyDict_GetItemString(kwargs, np_alias(name, k));
    return o;
}

static bool kw_matches(const char *param, const char *kw) {
    if (!strcmp(param, kw)) return true;
    for (int k = 0; np_alias(param, k); k++)
        if (!strcmp(np_alias(param, k), kw)) return true;
    return false;
}

/* One attempt at matching sig. Returns 1 matched, 0 no match (why in *bad_*), -1 error. */
static int try_sig(const wk_sig *sig, PyObject *args, PyObject *kwargs, wk_pyval *out, wk_argscope *sc, bool lenient,
                   int *bad_param, PyObject **bad_obj, const char **bad_kw) {
    const wk_param *ps = sig->params;
    int np = count_params(ps);
    Py_ssize_t nargs = args ? PyTuple_GET_SIZE(args) : 0;
    int max_pos = 0;
    while (max_pos < np && !ps[max_pos].kwonly) max_pos++;
    PyObject *varargs = NULL;
    /* torch: a lone int-list parameter takes varargs when the first argument is an int: x.view(2, 3),
     * torch.zeros(2, 3) (but torch.zeros((2,), (3,)) has too many arguments) */
    if (max_pos == 1 && (ps[0].type == PT_INTLIST || ps[0].type == PT_OPT_INTLIST) && nargs >= 1 &&
        int_like(PyTuple_GET_ITEM(args, 0)) && (nargs > 1 || ps[0].size <= 0))
        varargs = args;
    if (!varargs && nargs > max_pos) {
        *bad_param = -2;
        return 0;
    }
    Py_ssize_t nkw_used = 0;
    for (int i = 0; i < np; i++) {
        PyObject *o = NULL;
        if (varargs && i == 0) o = varargs;
        else if (!varargs && i < nargs) o = PyTuple_GET_ITEM(args, i);
        if (kwargs) {
            /* a numpy alias (axis=) only stands for a parameter not already given by position */
            PyObject *k = o ? PyDict_GetItemString(kwargs, ps[i].name) : kw_lookup(kwargs, ps[i].name);
            if (k) {
                if (o) {
                    *bad_param = i;
                    *bad_kw = ps[i].name;
                    return 0;
                }
                o = k;
                nkw_used++;
            }
        }
        if (!o) {
            if (!ps[i].dflt) {
                *bad_param = -3 - i; /* missing */
                return 0;
            }
            if (set_default(&ps[i], &out[i], sc) < 0) return -1;
            continue;
        }
        int rc = convert(&ps[i], o, &out[i], sig->wrap_numbers, lenient, sc);
        if (rc < 0) return -1;
        if (rc == 0) {
            *bad_param = i;
            *bad_obj = o;
            return 0;
        }
    }
    if (kwargs && nkw_used != PyDict_GET_SIZE(kwargs)) {
        Py_ssize_t pos = 0;
        PyObject *key, *val;
        while (PyDict_Next(kwargs, &pos, &key, &val)) {
            const char *k = PyUnicode_AsUTF8(key);
            bool found = false;
            for (int i = 0; i < np && k; i++) found |= i >= nargs || varargs ? kw_matches(ps[i].name, k) : !strcmp(ps[i].name, k);
            if (!found) {
                *bad_param = -1;
                *bad_kw = k;
                return 0;
            }
        }
    }
    return 1;
}

static void describe_sig(PyObject *lst, const wk_sig *sig) {
    PyObject *s = PyUnicode_FromString("(");
    bool star = false;
    for (int i = 0; sig->params[i].name; i++) {
        const wk_param *p = &sig->params[i];
        if (p->kwonly && !star) {
            PyUnicode_AppendAndDel(&s, PyUnicode_FromString(i ? ", *" : "*, "));
            star = true;
        }
        /* torch's Python signatures show pin_memory's default as False */
        const char *dflt = p->dflt && !strcmp(p->name, "pin_memory") && !strcmp(p->dflt, "None") ? "False" : p->dflt;
        PyUnicode_AppendAndDel(&s, PyUnicode_FromFormat("%s%s %s%s%s", i ? ", " : "", ptype_name(p->type), p->name,
                                                        dflt ? " = " : "", dflt ? dflt : ""));
    }
    PyUnicode_AppendAndDel(&s, PyUnicode_FromString(")"));
    if (s) {
        PyList_Append(lst, s);
        Py_DECREF(s);
    }
}

/* Note [Keyword order in "got (...)"]: torch copies the keyword arguments into a std::unordered_map<std::string, ...>
 * before listing them, so they come in libstdc++'s iteration order: each key hashed by std::_Hash_bytes (seed
 * 0xc70f6907), a new key put first in the list unless its bucket already has keys (then just before them), and the
 * list rebuilt that way whenever the bucket count grows (13 buckets for up to 13 keys, then 29, 59, ...). Replayed
 * here insert by insert: `torch.clamp(x, "a", min=1, max=2)` reports `max=int, min=int`. */
static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }
static uint64_t std_hash_bytes(const char *p, size_t len) {
    const uint64_t mul = ((uint64_t)0xc6a4a793u << 32) + 0x5bd1e995u;
    uint64_t h = 0xc70f6907u ^ (len * mul), d;
    size_t k = 0;
    for (; k + 8 <= len; k += 8) {
        memcpy(&d, p + k, 8); /* little-endian, as on the machines torch runs on */
        h = (h ^ (shift_mix(d * mul) * mul)) * mul;
    }
    if (len & 7) {
        d = 0;
        for (size_t j = len; j-- > k;) d = (d << 8) + (unsigned char)p[j];
        h = (h ^ d) * mul;
    }
    return shift_mix(shift_mix(h) * mul);
}
static size_t std_next_bkt(size_t n) { /* _Prime_rehash_policy::_M_next_bkt for the sizes a call can have */
    static const unsigned char fast[] = {2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13};
    static const size_t primes[] = {17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109,
                                    113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257};
    if (n < sizeof fast) return fast[n];
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
        if (primes[i] >= n) return primes[i];
    return n | 1;
}
/* list[0..len) holds key indices in iteration order; puts key k where an insert into nb buckets puts it */
static void umap_place(int *list, int len, int k, const uint64_t *h, size_t nb) {
    int at = 0;
    for (int j = 0; j < len; j++)
        if (h[list[j]] % nb == h[k] % nb) {
            at = j;
            break;
        }
    memmove(list + at + 1, list + at, sizeof(int) * (size_t)(len - at));
    list[at] = k;
}
static void umap_order(const uint64_t *h, int n, int *list) {
    size_t nb = 1, resize = 0;
    int tmp[256];
    for (int k = 0; k < n; k++) {
        if ((size_t)k + 1 > resize) {
            size_t min_bkts = (size_t)k + 1 > (resize ? 0 : 11) ? (size_t)k + 1 : 11;
            if (min_bkts >= nb) {
                nb = std_next_bkt(min_bkts + 1 > nb * 2 ? min_bkts + 1 : nb * 2);
                resize = nb;
                for (int j = 0; j < k; j++) umap_place(tmp, j, list[j], h, nb);
                memcpy(list, tmp, sizeof(int) * (size_t)k);
            } else
                resize = nb;
        }
        umap_place(list, k, k, h, nb);
    }
}

static PyObject *got_types(PyObject *args, PyObject *kwargs) {
    PyObject *parts = PyList_New(0);
    Py_ssize_t n = args ? PyTuple_GET_SIZE(args) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyUnicode_FromString(Py_TYPE(PyTuple_GET_ITEM(args, i))->tp_name);
        PyList_Append(parts, t);
        Py_XDECREF(t);
    }
    Py_ssize_t nk = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    if (nk > 0 && nk <= 256) {
        PyObject *keys[256], *vals[256], *k, *v;
        uint64_t h[256];
        int list[256];
        Py_ssize_t pos = 0, i = 0;
        while (PyDict_Next(kwargs, &pos, &k, &v)) {
            Py_ssize_t len = 0;
            const char *s = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &len) : NULL;
            if (!s) PyErr_Clear();
            keys[i] = k, vals[i] = v, h[i++] = s ? std_hash_bytes(s, (size_t)len) : 0;
        }
        umap_order(h, (int)nk, list);
        for (Py_ssize_t j = 0; j < nk; j++) {
            PyObject *t = PyUnicode_FromFormat("%S=%s", keys[list[j]], Py_TYPE(vals[list[j]])->tp_name);
            PyList_Append(parts, t);
            Py_XDECREF(t);
        }
    } else if (nk > 0) { /* more keywords than any signature has: dict order */
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(kwargs, &pos, &k, &v)) {
            PyObject *t = PyUnicode_FromFormat("%S=%s", k, Py_TYPE(v)->tp_name);
            PyList_Append(parts, t);
            Py_XDECREF(t);
        }
    }
    if (n == 0 && nk > 0) { /* torch's _argDesc trims the last ", " only after positional arguments: "(min=int, )" */
        PyObject *e = PyUnicode_FromString("");
        PyList_Append(parts, e);
        Py_XDECREF(e);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *r = PyUnicode_Join(sep, parts);
    Py_DECREF(sep);
    Py_DECREF(parts);
    return r;
}

/* Does sig's arity admit this call (torch's "plausible" signatures)? */
static bool plausible(const wk_sig *sig, PyObject *args, PyObject *kwargs) {
    Py_ssize_t n = (args ? PyTuple_GET_SIZE(args) : 0) + (kwargs ? PyDict_GET_SIZE(kwargs) : 0);
    int np = count_params(sig->params), nreq = 0;
    for (int i = 0; i < np; i++) nreq += sig->params[i].dflt == NULL;
    return n >= nreq && n <= np;
}

/* The specific message for a call that does not fit sig (torch raises it when only one signature is plausible). */
static int sig_error(const wk_sig *sig, PyObject *args, PyObject *kwargs, int bad_param, PyObject *bad_obj,
                     const char *bad_kw) {
    const char *name = sig->name;
    const wk_param *ps = sig->params;
    if (bad_param >= 0 && bad_obj) {
        const wk_param *p = &ps[bad_param];
        /* torch names the position only for arguments given positionally */
        bool by_kw = kwargs && PyDict_GetItemString(kwargs, p->name) == bad_obj;
        if (!by_kw && (p->type == PT_INTLIST || p->type == PT_OPT_INTLIST) &&
            (PyTuple_Check(bad_obj) || PyList_Check(bad_obj)) && PySequence_Fast_GET_SIZE(bad_obj) > 0) {
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be %s, but found element of type %s "
                         "at pos 0", name, p->name, bad_param + 1, ptype_name(p->type),
                         Py_TYPE(PySequence_Fast_ITEMS(bad_obj)[0])->tp_name);
            return -1;
        }
        if (by_kw)
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %s", name, p->name,
                         ptype_name(p->type), Py_TYPE(bad_obj)->tp_name);
        else
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be %s, not %s", name, p->name,
                         bad_param + 1, ptype_name(p->type), Py_TYPE(bad_obj)->tp_name);
        return -1;
    }
    if (bad_param >= 0 && bad_kw) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name, bad_kw);
        return -1;
    }
    if (bad_param == -1 && bad_kw) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", name, bad_kw);
        return -1;
    }
    if (bad_param <= -3) {
        PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional arguments: \"%s\"", name,
                     ps[-3 - bad_param].name);
        return -1;
    }
    if (bad_param == -2) { /* torch's extra_args: min_args counts every parameter without a default, keyword-only too */
        int max_pos = 0, min_args = 0;
        while (ps[max_pos].name && !ps[max_pos].kwonly) max_pos++;
        for (int i = 0; ps[i].name; i++) min_args += ps[i].dflt == NULL;
        Py_ssize_t nargs = args ? PyTuple_GET_SIZE(args) : 0;
        if (min_args != max_pos)
            PyErr_Format(PyExc_TypeError, "%s() takes from %d to %d positional arguments but %zd were given", name,
                         min_args, max_pos, nargs);
        else
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given", name, max_pos,
                         max_pos == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return -1;
    }
    return 0;
}

/* memory_format=: wick's tensors are row-major or keep their input's strides. preserve_format is that;
 * contiguous_format on an out-of-place op of a non-contiguous self (clone, *_like, to) is that op on a row-major
 * copy of self, so the result (and the draw order of rand_like & co.) is row-major as torch's; channels_last is
 * refused by name rather than quietly ignored. */
static int apply_memory_format(const wk_sig *sig, PyObject *pyself, wk_pyval *out, wk_argscope *sc) {
    const wk_param *ps = sig->params;
    int fmt = -1;
    for (int i = 0; ps[i].name; i++)
        if (ps[i].type == PT_MEMFMT && out[i].obj && out[i].obj != Py_None) fmt = i;
    if (fmt < 0) return 0; /* the common case: one pass over the parameter types, no string compares */
    int self = ps[0].type == PT_TENSOR && (!strcmp(ps[0].name, "self") || !strcmp(ps[0].name, "input")) ? 0 : -1;
    wk_tensor *me = sig->method && pyself ? wk_py_self(pyself) : self >= 0 ? out[self].t : NULL;
    PyObject *r = PyObject_Repr(out[fmt].obj);
    const char *rs = r ? PyUnicode_AsUTF8(r) : NULL;
    int rc = 0;
    if (!rs) {
        rc = -1;
    } else if (!strcmp(rs, "torch.contiguous_format")) {
        size_t n = strlen(sig->name);
        bool copies = me && n && sig->name[n - 1] != '_';
        if (copies && !strcmp(sig->name, "to")) { /* to() aliases self unless it converts or copy=True */
            copies = false;
            for (int i = 0; ps[i].name; i++) {
                if (!strcmp(ps[i].name, "copy") && ps[i].type == PT_BOOL) copies |= out[i].b;
                if (!strcmp(ps[i].name, "dtype") && (ps[i].type == PT_DTYPE || ps[i].type == PT_OPT_DTYPE))
                    copies |= out[i].dt != WK_DTYPE_NONE && out[i].dt != wk_tensor_dtype(me);
                if (!strcmp(ps[i].name, "tensor") && ps[i].type == PT_TENSOR)
                    copies |= wk_tensor_dtype(out[i].t) != wk_tensor_dtype(me);
            }
        }
        if (copies && !wk_is_contiguous(me)) {
            me = scope_tensor(sc, wk_contiguous(me));
            if (!me) {
                wk_py_raise();
                rc = -1;
            } else if (sig->method) {
                sc->self = me;
            } else {
                out[self].t = me;
            }
        }
    } else if (strcmp(rs, "torch.preserve_format")) {
        PyErr_Format(PyExc_NotImplementedError, "wick: %s(memory_format=%s) is not supported yet (wick's tensors "
                     "are row-major or keep their input's strides)", sig->name, rs);
        rc = -1;
    }
    Py_XDECREF(r);
    return rc;
}

/* Note [Device argument]: the device a matched call's result goes to: its device= (Tensor.to's other='s device). */
static int device_target(const wk_sig *sig, PyObject *pyself, wk_pyval *out, wk_argscope *sc) {
    const wk_param *ps = sig->params;
    wk_device *d = NULL;
    for (int i = 0; ps[i].name; i++) {
        if (ps[i].type == PT_DEVICE && out[i].obj && out[i].obj != Py_None &&
            wk_py_parse_device(out[i].obj, &d) < 0)
            return -1;
        if (ps[i].type == PT_TENSOR && !strcmp(ps[i].name, "tensor") && !strcmp(sig->name, "to") && out[i].t) {
            d = out[i].t->storage->device; /* to(other) reads other's dtype and device only: the device becomes the
                                              target, the dtype comes from a CPU 0-d stand-in, so self and other
                                              on two devices do not meet in one op */
            wk_tensor *me = sig->method && pyself ? wk_py_self(pyself) : NULL;
            if (me && me->storage->device != d && !(d->host_access && me->storage->device->host_access)) {
                wk_tensor *e = scope_tensor(sc, wk_empty_strided_on(wk_cpu_device(), 0, NULL, NULL, out[i].t->dtype));
                if (!e) return wk_py_raise(), -1;
                out[i].t = e;
            }
        }
    }
    sc->device = d;
    sc->device_self = sig->method && pyself ? wk_py_self(pyself) : NULL;
    return 0;
}

int wk_parse_args(wk_sig *sigs, PyObject *self, PyObject *args, PyObject *kwargs, wk_pyval *out, wk_argscope *sc) {
    wk_py_take_pending_device(NULL); /* a target no binding took (an error path) is dropped */
    int nsig = 0;
    while (sigs[nsig].name) nsig++;
    sc->fname = sigs[0].name;
    if (wk_py_vmap_involved(self, args, kwargs)) {
        sc->hooked = wk_py_vmap_call(self, sigs[0].name, args, kwargs);
        return WK_PARSE_HOOKED;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < nsig; s++) {
            wk_argscope_free(sc);
            int bp = 0;
            PyObject *bo = NULL;
            const char *bk = NULL;
            int rc = try_sig(&sigs[s], args, kwargs, out, sc, pass == 1, &bp, &bo, &bk);
            if (rc < 0) {
                wk_argscope_free(sc);
                return -1;
            }
            if (rc == 1) {
                if (apply_memory_format(&sigs[s], self, out, sc) == 0 && device_target(&sigs[s], self, out, sc) == 0)
                    return s;
                wk_argscope_free(sc);
                return -1;
            }
        }
    }
    wk_argscope_free(sc);
    /* one signature, or only one whose arity fits: its specific message (as torch's print_error) */
    int only = -1, nplaus = 0;
    for (int s = 0; s < nsig; s++)
        if (nsig == 1 || plausible(&sigs[s], args, kwargs)) {
            only = s;
            nplaus++;
        }
    if (nplaus == 1) {
        int bp = 0;
        PyObject *bo = NULL;
        const char *bk = NULL;
        int rc = try_sig(&sigs[only], args, kwargs, out, sc, true, &bp, &bo, &bk);
        wk_argscope_free(sc);
        if (rc < 0) return -1;
        if (sig_error(&sigs[only], args, kwargs, bp, bo, bk) < 0) return -1;
    }
    const char *name = sigs[0].name;
    PyObject *lst = PyList_New(0), *got = got_types(args, kwargs);
    for (int s = 0; s < nsig; s++) describe_sig(lst, &sigs[s]);
    PyObject *sep = PyUnicode_FromString("\n * ");
    PyObject *joined = PyUnicode_Join(sep, lst);
    PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of arguments - got (%U), but expected one of:\n * %U\n",
                 name, got, joined);
    Py_XDECREF(sep);
    Py_XDECREF(joined);
    Py_XDECREF(lst);
    Py_XDECREF(got);
    return -1;
}
