/* generator.c — torch.Generator (wick._C.Generator) over the C generator of src/core/random.c, and
 * torch.default_generator. The argument parser (argparse.c, PT_GENERATOR) checks this type directly.
 * Texts follow torch 2.13's python_generator.cpp; semantics (seeding, state bytes, their checks) are in C. */
#include "pyext.h"
#include "core/random.h" /* struct wk_generator: its pyobj back-pointer */

PyTypeObject *wk_GeneratorType;

static void generator_dealloc(PyObject *o) {
    wk_PyGenerator *self = (wk_PyGenerator *)o;
    PyTypeObject *tp = Py_TYPE(o);
    if (self->g) {
        if (self->g->pyobj == o) self->g->pyobj = NULL;
        wk_generator_release(self->g);
        self->g = NULL;
    }
    tp->tp_free(o);
    Py_DECREF(tp);
}

/* The Python object of g: its existing wrapper, or a new one (a new reference either way). */
PyObject *wk_py_generator_wrap(wk_generator *g) {
    if (g->pyobj) {
        Py_INCREF((PyObject *)g->pyobj);
        return (PyObject *)g->pyobj;
    }
    wk_PyGenerator *o = (wk_PyGenerator *)wk_GeneratorType->tp_alloc(wk_GeneratorType, 0);
    if (!o) return NULL;
    o->g = wk_generator_retain(g);
    g->pyobj = o;
    return (PyObject *)o;
}

/* torch.Generator(device='cpu'): a new generator seeded with 67280421310721. */
static PyObject *generator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kw[] = {"device", NULL};
    PyObject *device = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", kw, &device)) return NULL;
    if (device != Py_None) {
        int rc = wk_py_check_device(device);
        if (rc < 0) return NULL;
        if (rc > 0)
            return PyErr_Format(PyExc_TypeError, "Generator(): argument 'device' must be torch.device, not %s",
                                Py_TYPE(device)->tp_name);
    }
    wk_generator *g = wk_generator_new();
    if (!g) return wk_py_raise();
    wk_PyGenerator *o = (wk_PyGenerator *)type->tp_alloc(type, 0);
    if (!o) {
        wk_generator_release(g);
        return NULL;
    }
    o->g = g;
    g->pyobj = o;
    return (PyObject *)o;
}

static wk_generator *gen_of(PyObject *self) { return ((wk_PyGenerator *)self)->g; }

/* Is o a numpy integer scalar? (torch's THPUtils_checkLong accepts them; unpacking them then fails.) */
static bool is_numpy_int(PyObject *o) {
    PyObject *mods = PyImport_GetModuleDict();
    PyObject *numpy = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
    if (!numpy) return false;
    PyObject *integer = PyObject_GetAttrString(numpy, "integer");
    if (!integer) {
        PyErr_Clear();
        return false;
    }
    int r = PyObject_IsInstance(o, integer);
    Py_DECREF(integer);
    if (r < 0) PyErr_Clear();
    return r == 1;
}

/* Generator.manual_seed(seed): an int in [-2^63, 2^64); negative seeds wrap modulo 2^64. Returns self. */
static PyObject *generator_manual_seed(PyObject *self, PyObject *seed) {
    bool is_int = PyLong_Check(seed) && !PyBool_Check(seed);
    if (!is_int && !is_numpy_int(seed))
        return PyErr_Format(PyExc_RuntimeError, "manual_seed expected a long, but got %s", Py_TYPE(seed)->tp_name);
    if (!is_int) return PyErr_Format(PyExc_TypeError, "an integer is required");
    uint64_t s;
    unsigned long long u = PyLong_AsUnsignedLongLong(seed);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
        PyErr_Clear();
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(seed, &overflow);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (overflow) return PyErr_Format(PyExc_ValueError, "Overflow when unpacking long long");
        s = (uint64_t)v;
    } else {
        s = (uint64_t)u;
    }
    wk_generator_manual_seed(gen_of(self), s);
    Py_INCREF(self);
    return self;
}

static PyObject *generator_seed(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(wk_generator_seed(gen_of(self)));
}

static PyObject *generator_initial_seed(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(wk_generator_initial_seed(gen_of(self)));
}

/* get_state(): a new uint8 tensor of 5056 bytes, torch's CPUGeneratorImplState layout. */
static PyObject *generator_get_state(PyObject *self, PyObject *unused) {
    (void)unused;
    uint8_t buf[WK_GENERATOR_STATE_SIZE]; /* the state bytes */
    wk_generator_get_state(gen_of(self), buf);
    int64_t n = WK_GENERATOR_STATE_SIZE;
    return wk_py_wrap(wk_from_data(buf, WK_UINT8, 1, &n));
}

/* set_state(new_state): new_state must be a uint8 tensor of 5056 bytes holding a valid engine state. */
static PyObject *generator_set_state(PyObject *self, PyObject *state) {
    if (!WK_PyTensor_Check(state))
        return PyErr_Format(PyExc_TypeError, "expected a torch.ByteTensor, but got %s", Py_TYPE(state)->tp_name);
    wk_tensor *t = wk_py_self(state);
    if (t->dtype != WK_UINT8) return PyErr_Format(PyExc_TypeError, "RNG state must be a torch.ByteTensor");
    int64_t n = wk_numel(t);
    uint8_t *buf = malloc((size_t)(n ? n : 1)); /* [n] the bytes, row-major */
    if (!buf) return PyErr_NoMemory();
    int rc = wk_copy_to_buffer(t, WK_UINT8, buf);
    if (rc == 0) rc = wk_generator_set_state(gen_of(self), buf, (size_t)n);
    free(buf);
    if (rc < 0) return wk_py_raise();
    Py_INCREF(self);
    return self;
}

static PyObject *generator_clone_state(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_generator *c = wk_generator_clone(gen_of(self));
    if (!c) return wk_py_raise();
    PyObject *o = wk_py_generator_wrap(c);
    wk_generator_release(c);
    return o;
}

static PyObject *generator_offset(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyErr_Format(PyExc_RuntimeError, "CPU Generator does not use offset");
}

static PyObject *generator_graphsafe_get_state(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyErr_Format(PyExc_NotImplementedError, "graphsafe_get_state is not supported in this Generator");
}

static PyObject *generator_graphsafe_set_state(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyErr_Format(PyExc_NotImplementedError, "graphsafe_set_state is not supported in this Generator");
}

/* The device property: torch.device('cpu'), built by the Python package. */
static PyObject *cpu_device(void) {
    PyObject *mod = PyImport_ImportModule("wick._device");
    if (!mod) return NULL;
    PyObject *r = PyObject_CallMethod(mod, "device", "s", "cpu");
    Py_DECREF(mod);
    return r;
}

static PyObject *generator_device(PyObject *self, void *closure) {
    (void)self;
    (void)closure;
    return cpu_device();
}

/* pickling and copy.deepcopy: (Generator, ('cpu',), (initial_seed, None, state bytes)). torch passes a
 * torch.device and a ByteTensor; a string and bytes keep the pickle free of wick's classes. */
static PyObject *generator_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    uint8_t buf[WK_GENERATOR_STATE_SIZE]; /* the state bytes */
    wk_generator_get_state(gen_of(self), buf);
    PyObject *state = PyBytes_FromStringAndSize((const char *)buf, WK_GENERATOR_STATE_SIZE);
    if (!state) return NULL;
    return Py_BuildValue("(O(s)(KON))", (PyObject *)Py_TYPE(self), "cpu",
                         (unsigned long long)wk_generator_initial_seed(gen_of(self)), Py_None, state);
}

static PyObject *generator_setstate(PyObject *self, PyObject *st) {
    PyObject *seed, *offset, *state;
    if (!PyArg_ParseTuple(st, "OOO:__setstate__", &seed, &offset, &state)) return NULL;
    PyObject *r = generator_manual_seed(self, seed);
    if (!r) return NULL;
    Py_DECREF(r);
    if (offset != Py_None) return generator_offset(self, NULL);
    if (PyBytes_Check(state)) {
        if (wk_generator_set_state(gen_of(self), (const uint8_t *)PyBytes_AS_STRING(state),
                                   (size_t)PyBytes_GET_SIZE(state)) < 0)
            return wk_py_raise();
        Py_RETURN_NONE;
    }
    return generator_set_state(self, state);
}

static PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O, NULL},
    {"seed", generator_seed, METH_NOARGS, NULL},
    {"initial_seed", generator_initial_seed, METH_NOARGS, NULL},
    {"get_state", generator_get_state, METH_NOARGS, NULL},
    {"set_state", generator_set_state, METH_O, NULL},
    {"clone_state", generator_clone_state, METH_NOARGS, NULL},
    {"get_offset", generator_offset, METH_NOARGS, NULL},
    {"set_offset", generator_offset, METH_O, NULL},
    {"graphsafe_get_state", generator_graphsafe_get_state, METH_NOARGS, NULL},
    {"graphsafe_set_state", generator_graphsafe_set_state, METH_O, NULL},
    {"__reduce__", generator_reduce, METH_NOARGS, NULL},
    {"__setstate__", generator_setstate, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef generator_getset[] = {{"device", generator_device, NULL, NULL, NULL},
                                         {NULL, NULL, NULL, NULL, NULL}};

/* Adds Generator and default_generator to the module. */
int wk_py_generator_init(PyObject *m) {
    PyType_Slot slots[] = {{Py_tp_new, generator_new},         {Py_tp_dealloc, generator_dealloc},
                           {Py_tp_methods, generator_methods}, {Py_tp_getset, generator_getset},
                           {0, NULL}};
    PyType_Spec spec = {"wick._C.Generator", sizeof(wk_PyGenerator), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                        slots};
    wk_GeneratorType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &spec, NULL);
    if (!wk_GeneratorType) return -1;
    Py_INCREF(wk_GeneratorType);
    if (PyModule_AddObject(m, "Generator", (PyObject *)wk_GeneratorType) < 0) return -1;
    PyObject *dg = wk_py_generator_wrap(wk_default_generator());
    if (!dg) return -1;
    Py_INCREF(dg); /* the default generator's wrapper lives as long as the process */
    return PyModule_AddObject(m, "default_generator", dg);
}
