/* convert.c — Python <-> wick values: errors, tensor wrapping, scalars, dtypes, nested data. */
#include "pyext.h"

#include <ctype.h>

PyTypeObject *wk_py_tensor_class; /* wick.Tensor, registered by the Python layer */
PyObject *wk_py_linalg_error; /* wick._C._LinAlgError (torch._C._LinAlgError), made by the module's exec */

PyObject *wk_py_raise(void) {
    if (PyErr_Occurred()) { /* a Python error (from a hook or a Function's backward) is already set: it wins */
        wk_error_clear();   /* and wick's own record of the failure must not outlive the call */
        return NULL;
    }
    PyObject *exc;
    switch (wk_error_kind()) {
    case WK_INDEX_ERROR: exc = PyExc_IndexError; break;
    case WK_TYPE_ERROR: exc = PyExc_TypeError; break;
    case WK_VALUE_ERROR: exc = PyExc_ValueError; break;
    case WK_NOT_IMPLEMENTED_ERROR: exc = PyExc_NotImplementedError; break;
    case WK_MEMORY_ERROR: exc = PyExc_MemoryError; break;
    case WK_OVERFLOW_ERROR: exc = PyExc_OverflowError; break;
    case WK_ZERO_DIVISION_ERROR: exc = PyExc_ZeroDivisionError; break;
    case WK_LINALG_ERROR: exc = wk_py_linalg_error ? wk_py_linalg_error : PyExc_RuntimeError; break;
    case WK_OK: exc = PyExc_SystemError; break;
    default: exc = PyExc_RuntimeError; break;
    }
    PyErr_SetString(exc, wk_error_kind() == WK_OK ? "wick: an operation failed without an error message"
                                                  : wk_error_message());
    wk_error_clear();
    return NULL;
}

PyObject *wk_py_flush_warnings(PyObject *res) {
    wk_tensor *self;
    wk_device *target = wk_py_take_pending_device(&self); /* Note [Device argument] */
    if (target) res = wk_py_move_result(res, target, self);
    int n = wk_warning_count();
    if (!n) return res;
    if (!res) { /* the call failed: its warnings are still shown (torch's PyWarningHandler), its exception wins */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        for (int i = 0; i < n; i++)
            if (PyErr_WarnEx(PyExc_UserWarning, wk_warning_message(i), 1) < 0) PyErr_Clear();
        PyErr_Restore(et, ev, tb);
        wk_warnings_clear();
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (PyErr_WarnEx(PyExc_UserWarning, wk_warning_message(i), 1) < 0) {
            Py_CLEAR(res);
            break;
        }
    wk_warnings_clear();
    return res;
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
            /* uint64-range values wrap like torch (e.g. manual_seed); beyond that, Python's own OverflowError
             * ("int too big to convert", "can't convert negative int to unsigned"), as torch's */
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (PyErr_Occurred()) return -1;
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

/* ---- devices ----
 * Note [Devices]: wick's devices are the CPU and, where wgpu-native gives an adapter, 'webgpu' (one device,
 * webgpu:0; wick/webgpu.py). A device argument is parsed as torch parses it (so a typo gets torch's message);
 * 'cpu' (any index) and 'webgpu' / 'webgpu:0' are accepted; 'cuda' fails as in a CPU-only torch build; every other
 * device type fails with a message naming the ones that exist.
 * Note [Device argument]: the op table's C functions take no device (they make CPU tensors); a call whose
 * device= (or Tensor.to's other=) names another device than its result's gets its result moved there after the
 * call: wk_parse_args records the target in the scope, wk_argscope_free hands it to the thread's pending slot and
 * wk_py_flush_warnings (the last step of every generated binding) applies it (wk_py_move_result). Factories build
 * on the host and copy over (one host->device copy). */
static const char *const DEVICE_TYPES[] = {"cpu",  "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl",
                                           "ideep", "hip", "ve",  "fpga", "maia", "xla", "lazy",
                                           "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone", "webgpu", NULL};

/* torch's device-string grammar: ([a-zA-Z_]+)(:([1-9][0-9]*|0))? */
static bool device_string_ok(const char *s, size_t *type_len) {
    size_t n = 0;
    while (s[n] && (isalpha((unsigned char)s[n]) || s[n] == '_')) n++;
    *type_len = n;
    if (n == 0) return false;
    if (!s[n]) return true;
    if (s[n] != ':') return false;
    const char *d = s + n + 1;
    if (!*d) return false;
    if (d[0] == '0') return d[1] == 0;
    for (; *d; d++)
        if (!isdigit((unsigned char)*d)) return false;
    return true;
}

/* The webgpu device, opened through wick.webgpu (which finds the wgpu wheel's library); NULL with a RuntimeError. */
wk_device *wk_py_webgpu_device(void) {
    PyObject *mod = PyImport_ImportModule("wick.webgpu");
    PyObject *r = mod ? PyObject_CallMethod(mod, "is_available", NULL) : NULL;
    Py_XDECREF(mod);
    if (!r) return NULL;
    Py_DECREF(r);
    wk_device *d = wk_webgpu_open(NULL); /* already tried by is_available: its answer */
    if (!d) PyErr_Format(PyExc_RuntimeError, "webgpu is not available: %s", wk_webgpu_reason());
    return d;
}

int wk_py_parse_device(PyObject *o, wk_device **dev) {
    *dev = NULL;
    if (!o || o == Py_None) return 0;
    if (PyLong_Check(o) && !PyBool_Check(o)) {
        long long i = PyLong_AsLongLong(o);
        if (i == -1 && PyErr_Occurred()) return -1;
        PyErr_SetString(PyExc_RuntimeError, i < 0 ? "Device index must not be negative"
                                                  : "Cannot access accelerator device when none is available.");
        return -1;
    }
    PyObject *s;
    if (PyUnicode_Check(o)) {
        Py_INCREF(o);
        s = o;
    } else if (!PyBool_Check(o) && !WK_PyTensor_Check(o) && PyObject_HasAttrString(o, "type") &&
               PyObject_HasAttrString(o, "index") && !strcmp(Py_TYPE(o)->tp_name, "device")) {
        s = PyObject_Str(o); /* a torch.device object (wick/_device.py) */
        if (!s) return -1;
    } else {
        return 1; /* not a device */
    }
    const char *str = PyUnicode_AsUTF8(s);
    int rc = -1;
    size_t tl = 0;
    if (!str) goto done;
    if (!device_string_ok(str, &tl)) {
        PyErr_Format(PyExc_RuntimeError, "Invalid device string: '%s'", str);
        goto done;
    }
    int k = 0;
    while (DEVICE_TYPES[k] && (strlen(DEVICE_TYPES[k]) != tl || strncmp(DEVICE_TYPES[k], str, tl))) k++;
    if (!DEVICE_TYPES[k]) {
        PyErr_Format(PyExc_RuntimeError,
                     "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                     "lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: %s",
                     str);
    } else if (k == 0) {
        *dev = wk_cpu_device();
        rc = 0;
    } else if (k == 1) {
        PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
    } else if (!strcmp(DEVICE_TYPES[k], "webgpu")) {
        if (str[tl] && strcmp(str + tl, ":0")) /* one adapter: webgpu:0 */
            PyErr_Format(PyExc_RuntimeError, "wick has one webgpu device (webgpu:0): '%s' is not available", str);
        else if ((*dev = wk_py_webgpu_device()))
            rc = 0;
    } else {
        PyErr_Format(PyExc_RuntimeError,
                     "wick has only the cpu and webgpu devices: '%s' is not available (use device='cpu', or leave "
                     "device out)",
                     str);
    }
done:
    Py_DECREF(s);
    return rc;
}

int wk_py_check_device(PyObject *o) {
    wk_device *d;
    return wk_py_parse_device(o, &d);
}

/* Note [Device argument]: the target of the call whose scope was freed last, for wk_py_flush_warnings. */
static _Thread_local wk_device *pending_device;
static _Thread_local wk_tensor *pending_self; /* the call's own tensor (Tensor.to's self), or NULL */

void wk_py_set_pending_device(wk_device *d, wk_tensor *self) {
    pending_device = d;
    pending_self = self;
}

wk_device *wk_py_take_pending_device(wk_tensor **self) {
    wk_device *d = pending_device;
    if (self) *self = pending_self;
    pending_device = NULL;
    pending_self = NULL;
    return d;
}

static bool same_place(const wk_device *a, const wk_device *b) {
    return a == b || (wk_device_host_access(a) && wk_device_host_access(b));
}

PyObject *wk_py_move_result(PyObject *res, wk_device *target, wk_tensor *self) {
    if (!res || !target || !WK_PyTensor_Check(res)) return res;
    wk_tensor *t = wk_py_self(res);
    if (same_place(wk_tensor_device(t), target)) return res;
    bool fresh_leaf = t->requires_grad && !t->grad_fn && t != self; /* a factory's requires_grad=True */
    /* a factory's leaf is made on the device (no history); any other tensor moves differentiably (ToCopyBackward0) */
    bool prev = fresh_leaf ? wk_set_grad_enabled(false) : false;
    wk_tensor *m = wk_move_to_device(t, target);
    if (fresh_leaf) wk_set_grad_enabled(prev);
    Py_DECREF(res);
    if (m && fresh_leaf) m = wk__finish_factory(m, true);
    return wk_py_wrap(m);
}

/* ---- numpy (optional: nothing here imports numpy) ----
 * Arrays and numpy scalars are read through the buffer protocol; they are recognised by their numpy base
 * class names, as torch's PyArray_Check / PyArray_CheckScalar recognise them. */
static bool has_base_named(PyObject *o, const char *name) {
    PyObject *mro = Py_TYPE(o)->tp_mro;
    if (!mro || !PyTuple_Check(mro)) return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++)
        if (!strcmp(((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_name, name)) return true;
    return false;
}
bool wk_py_is_ndarray(PyObject *o) { return has_base_named(o, "numpy.ndarray"); }
static bool is_numpy_scalar(PyObject *o) { return has_base_named(o, "numpy.generic"); }

/* Buffer format -> dtype: 1 ok, 0 unsupported type, -1 non-native byte order. */
static int format_dtype(const char *fmt, Py_ssize_t itemsize, wk_dtype *dt) {
    if (!fmt) fmt = "B";
    const uint16_t one = 1;
    bool little = *(const char *)&one == 1;
    if (*fmt == '@' || *fmt == '=') fmt++;
    else if (*fmt == '<' || *fmt == '>' || *fmt == '!') {
        bool want_little = *fmt == '<';
        fmt++;
        if (want_little != little && itemsize > 1) return -1;
    }
    if (!fmt[0] || fmt[1]) return 0;
    switch (fmt[0]) {
    case '?': *dt = WK_BOOL; return 1;
    case 'b': *dt = WK_INT8; return 1;
    case 'B': *dt = WK_UINT8; return 1;
    case 'h': case 'i': case 'l': case 'q':
        switch (itemsize) {
        case 1: *dt = WK_INT8; return 1;
        case 2: *dt = WK_INT16; return 1;
        case 4: *dt = WK_INT32; return 1;
        case 8: *dt = WK_INT64; return 1;
        default: return 0;
        }
    case 'e': *dt = WK_FLOAT16; return 1;
    case 'f': *dt = WK_FLOAT32; return 1;
    case 'd': *dt = WK_FLOAT64; return 1;
    default: return 0;
    }
}

/* "numpy.uint16": the name torch prints for an array's element type. */
static PyObject *numpy_type_name(PyObject *o) {
    PyObject *dt = PyObject_GetAttrString(o, "dtype"), *ty = dt ? PyObject_GetAttrString(dt, "type") : NULL;
    Py_XDECREF(dt);
    if (!ty) {
        PyErr_Clear();
        return PyUnicode_FromString(Py_TYPE(o)->tp_name);
    }
    PyObject *r = PyType_Check(ty) ? PyUnicode_FromString(((PyTypeObject *)ty)->tp_name) : PyObject_Str(ty);
    Py_DECREF(ty);
    return r;
}

static void unsupported_numpy_type(PyObject *o) {
    PyObject *name = numpy_type_name(o);
    if (!name) return;
    PyErr_Format(PyExc_TypeError,
                 "can't convert np.ndarray of type %U. The only supported types are: float64, float32, float16, "
                 "int64, int32, int16, int8, uint8, and bool.",
                 name);
    Py_DECREF(name);
}

/* The dtype of a numpy scalar or array, 0 if it has none wick knows (error set). */
static int numpy_dtype(PyObject *o, wk_dtype *dt) {
    Py_buffer v;
    if (PyObject_GetBuffer(o, &v, PyBUF_FORMAT | PyBUF_STRIDES) < 0) {
        PyErr_Clear();
        unsupported_numpy_type(o);
        return 0;
    }
    int rc = format_dtype(v.format, v.itemsize, dt);
    PyBuffer_Release(&v);
    if (rc == 0) unsupported_numpy_type(o);
    if (rc < 0)
        PyErr_SetString(PyExc_ValueError, "given numpy array has byte order different from the native byte order. "
                                          "Conversion between byte orders is currently not supported.");
    return rc > 0;
}

static void release_buffer(void *ctx) {
    if (!Py_IsInitialized()) return; /* interpreter gone: the memory goes with it */
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release((Py_buffer *)ctx);
    PyMem_Free(ctx);
    PyGILState_Release(g);
}

/* torch.frombuffer(buffer, *, dtype, count=-1, offset=0): a 1-d tensor over a buffer-protocol object's bytes
 * (torch's tensor_frombuffer, its checks and messages in its order). Unlike torch, which drops the buffer export
 * and keeps only a reference to the object, the export is held for the tensor's life, so the owner cannot resize
 * or free the memory under it (a bytearray refuses to grow with BufferError instead of leaving a dangling tensor). */
wk_tensor *wk_py_frombuffer(PyObject *buffer, wk_dtype dt, int64_t count, int64_t offset) {
    if (!PyObject_CheckBuffer(buffer)) {
        PyErr_SetString(PyExc_ValueError, "object does not implement Python buffer protocol.");
        return NULL;
    }
    Py_buffer *v = PyMem_Calloc(1, sizeof *v);
    if (!v) return (wk_tensor *)PyErr_NoMemory();
    if (PyObject_GetBuffer(buffer, v, PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(buffer, v, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            PyMem_Free(v);
            PyErr_SetString(PyExc_RuntimeError, "could not retrieve buffer from object");
            return NULL;
        }
        static bool warned = false; /* torch's TORCH_WARN_ONCE: once per process */
        if (!warned) {
            warned = true;
            if (PyErr_WarnEx(PyExc_UserWarning,
                             "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
                             "This means you can write to the underlying (supposedly non-writable) buffer using the "
                             "tensor. You may want to copy the buffer to protect its data or make it writable before "
                             "converting it to a tensor. This type of warning will be suppressed for the rest of this "
                             "program.",
                             1) < 0)
                goto fail;
        }
    }
    int64_t len = (int64_t)v->len, elsize = (int64_t)wk_dtype_size(dt);
    if (len <= 0 || count == 0) {
        PyErr_Format(PyExc_ValueError, "both buffer length (%lld) and count (%lld) must not be 0", (long long)len,
                     (long long)count);
        goto fail;
    }
    if (offset < 0 || offset >= len) {
        PyErr_Format(PyExc_ValueError,
                     "offset (%lld bytes) must be non-negative and no greater than buffer length (%lld bytes) minus 1",
                     (long long)offset, (long long)len);
        goto fail;
    }
    if (count < 0 && (len - offset) % elsize != 0) {
        PyErr_Format(PyExc_ValueError,
                     "buffer length (%lld bytes) after offset (%lld bytes) must be a multiple of element size (%lld)",
                     (long long)(len - offset), (long long)offset, (long long)elsize);
        goto fail;
    }
    int64_t n = count < 0 ? (len - offset) / elsize : count, nbytes; /* [n] elements after offset */
    if (__builtin_mul_overflow(n, elsize, &nbytes) || nbytes > len - offset) {
        PyErr_Format(PyExc_ValueError,
                     "requested buffer length (%lld * %lld bytes) after offset (%lld bytes) must not be greater than "
                     "actual buffer length (%lld bytes)",
                     (long long)n, (long long)elsize, (long long)offset, (long long)len);
        goto fail;
    }
    int64_t one = 1;
    wk_tensor *t = wk_from_blob((char *)v->buf + offset, dt, 1, &n, &one, (size_t)nbytes, release_buffer, v);
    if (!t) {
        wk_py_raise();
        goto fail;
    }
    return t;
fail:
    PyBuffer_Release(v);
    PyMem_Free(v);
    return NULL;
}

/* torch.from_numpy: a tensor sharing the array's memory (torch's tensor_from_numpy). */
wk_tensor *wk_py_from_numpy(PyObject *arr, bool warn_if_not_writeable) {
    if (!wk_py_is_ndarray(arr)) {
        PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(arr)->tp_name);
        return NULL;
    }
    Py_buffer *v = PyMem_Calloc(1, sizeof *v);
    if (!v) return (wk_tensor *)PyErr_NoMemory();
    if (PyObject_GetBuffer(arr, v, PyBUF_RECORDS) < 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(arr, v, PyBUF_RECORDS_RO) < 0) {
            PyErr_Clear();
            PyMem_Free(v);
            unsupported_numpy_type(arr);
            return NULL;
        }
        if (warn_if_not_writeable) {
            static bool warned = false; /* torch warns once per process */
            if (!warned) {
                warned = true;
                if (PyErr_WarnEx(PyExc_UserWarning,
                                 "The given NumPy array is not writable, and PyTorch does not support non-writable "
                                 "tensors. This means writing to this tensor will result in undefined behavior. You "
                                 "may want to copy the array to protect its data or make it writable before "
                                 "converting it to a tensor. This type of warning will be suppressed for the rest of "
                                 "this program.",
                                 1) < 0)
                    goto fail;
            }
        }
    }
    if (v->ndim > WK_MAX_DIM) {
        PyErr_Format(PyExc_RuntimeError, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, v->ndim);
        goto fail;
    }
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    for (int i = 0; i < v->ndim; i++) {
        sizes[i] = v->shape[i];
        Py_ssize_t st = v->strides ? v->strides[i] : 0;
        if (st % v->itemsize) {
            PyErr_SetString(PyExc_ValueError, "given numpy array strides not a multiple of the element byte size. "
                                              "Copy the numpy array to reallocate the memory.");
            goto fail;
        }
        if (st < 0) {
            PyErr_SetString(PyExc_ValueError,
                            "At least one stride in the given numpy array is negative, and tensors with negative "
                            "strides are not currently supported. (You can probably work around this by making a "
                            "copy of your array  with array.copy().) ");
            goto fail;
        }
        strides[i] = st / v->itemsize;
    }
    if (!v->strides) wk_contiguous_strides(v->ndim, sizes, strides);
    wk_dtype dt;
    int rc = format_dtype(v->format, v->itemsize, &dt);
    if (rc == 0) {
        unsupported_numpy_type(arr);
        goto fail;
    }
    if (rc < 0) {
        PyErr_SetString(PyExc_ValueError, "given numpy array has byte order different from the native byte order. "
                                          "Conversion between byte orders is currently not supported.");
        goto fail;
    }
    int64_t span; /* bytes from the first element to one past the last (v->len counts elements, not the span) */
    if (wk_storage_nbytes(v->ndim, sizes, strides, 0, (size_t)v->itemsize, &span) < 0) {
        wk_py_raise();
        goto fail;
    }
    wk_tensor *t = wk_from_blob(v->buf, dt, v->ndim, sizes, strides, (size_t)span, release_buffer, v);
    if (!t) {
        wk_py_raise();
        goto fail;
    }
    return t;
fail:
    PyBuffer_Release(v);
    PyMem_Free(v);
    return NULL;
}

/* ---- torch.tensor(data) / as_tensor(data) ----
 * Note [tensor() from Python data] (torch's internal_new_from_data):
 *  1. a Tensor is detached and converted with to(dtype) (copied for tensor(), shared for as_tensor());
 *  2. a numpy array is wrapped as from_numpy does, then converted likewise;
 *  3. anything else: the shape comes from following element 0 while the object is a sequence (compute_sizes:
 *     strings are sequences too, tensors are not); the dtype from every leaf (bool, int64, the default float
 *     dtype; tensors and numpy values by their dtype), folded with promote_types (infer_scalar_type); then
 *     every leaf is stored with the target dtype's conversion rule, checking each sequence's length
 *     (recursive_store). */
#define TORCH_MAX_DIMS 128 /* torch's compute_sizes limit ("too many dimensions 'str'") */

static bool is_stringlike(PyObject *o) { return PyUnicode_Check(o) || PyBytes_Check(o); }

static int compute_sizes(PyObject *data, int *ndim, int64_t *sizes) {
    PyObject *seq = data;
    Py_INCREF(seq);
    int n = 0;
    while (!WK_PyTensor_Check(seq) && PySequence_Check(seq)) {
        Py_ssize_t len = PySequence_Length(seq);
        if (len < 0) goto fail;
        if (n >= TORCH_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'", Py_TYPE(seq)->tp_name);
            goto fail;
        }
        if (n < WK_MAX_DIM) sizes[n] = len;
        n++;
        if (len == 0) break;
        PyObject *item = PySequence_GetItem(seq, 0);
        if (!item) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "could not determine the shape of object type '%s'", Py_TYPE(seq)->tp_name);
            goto fail;
        }
        Py_DECREF(seq);
        seq = item;
    }
    Py_DECREF(seq);
    if (n > WK_MAX_DIM) {
        PyErr_Format(PyExc_RuntimeError, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, n);
        return -1;
    }
    *ndim = n;
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}

static int infer_dtype(PyObject *o, wk_dtype *out) {
    if (wk_py_is_ndarray(o) || is_numpy_scalar(o)) return numpy_dtype(o, out) ? 0 : -1;
    if (PyFloat_Check(o)) {
        *out = wk_get_default_dtype();
        return 0;
    }
    if (PyLong_Check(o) && !PyBool_Check(o)) {
        *out = WK_INT64;
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = WK_BOOL;
        return 0;
    }
    if (PyComplex_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "new(): wick has no complex dtypes, so complex data is not supported");
        return -1;
    }
    if (WK_PyTensor_Check(o)) {
        *out = wk_tensor_dtype(wk_py_self(o));
        return 0;
    }
    if (is_stringlike(o)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(o)->tp_name);
        return -1;
    }
    if (PySequence_Check(o)) {
        Py_ssize_t n = PySequence_Length(o);
        if (n < 0) return -1;
        if (n == 0) {
            *out = wk_get_default_dtype();
            return 0;
        }
        wk_dtype acc = WK_DTYPE_NONE;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = PySequence_GetItem(o, i);
            if (!item) return -1;
            if (item == o) {
                Py_DECREF(item);
                PyErr_SetString(PyExc_TypeError, "new(): self-referential lists are incompatible");
                return -1;
            }
            wk_dtype d;
            if (Py_EnterRecursiveCall(" in torch.tensor()")) {
                Py_DECREF(item);
                return -1;
            }
            int rc = infer_dtype(item, &d);
            Py_LeaveRecursiveCall();
            Py_DECREF(item);
            if (rc < 0) return -1;
            acc = acc == WK_DTYPE_NONE ? d : wk_promote_types(acc, d);
        }
        *out = acc;
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError, "Could not infer dtype of %s", Py_TYPE(o)->tp_name);
    return -1;
}

/* c10's overflows<To>(int64): unsigned targets also take negatives that wrap (uint8: -255..255). */
static bool int_overflows(int64_t v, wk_dtype dt) {
    switch (dt) {
    case WK_UINT8: return v > 255 || v < -255;
    case WK_INT8: return v > 127 || v < -128;
    case WK_INT16: return v > 32767 || v < -32768;
    case WK_INT32: return v > 2147483647LL || v < -2147483648LL;
    default: return false;
    }
}
/* ... and overflows<To>(double) for integral targets: nan, infinities and out-of-range values. */
static bool float_overflows_int(double d, wk_dtype dt) {
    switch (dt) {
    case WK_UINT8: return !(d >= 0 && d <= 255);
    case WK_INT8: return !(d >= -128 && d <= 127);
    case WK_INT16: return !(d >= -32768 && d <= 32767);
    case WK_INT32: return !(d >= -2147483648.0 && d <= 2147483647.0);
    case WK_INT64: return !(d >= -9223372036854775808.0 && d <= 9223372036854775807.0);
    default: return false;
    }
}

/* torch's store_scalar: one Python leaf into one element of dtype dt. */
static int store_leaf(PyObject *o, wk_dtype dt, char *p) {
    if (wk_dtype_is_floating(dt)) {
        double d = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        wk_scalar_store(p, dt, wk_float(d));
        return 0;
    }
    if (dt == WK_BOOL) {
        if (PyFloat_Check(o)) {
            *(uint8_t *)p = PyFloat_AS_DOUBLE(o) != 0;
            return 0;
        }
        if (has_base_named(o, "numpy.bool") || has_base_named(o, "numpy.bool_")) { /* numpy bools, as torch */
            int b = PyObject_IsTrue(o);
            if (b < 0) return -1;
            *(uint8_t *)p = (uint8_t)b;
            return 0;
        }
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred()) return -1;
        *(uint8_t *)p = overflow || v != 0;
        return 0;
    }
    if (PyFloat_Check(o)) {
        double d = PyFloat_AS_DOUBLE(o);
        if (float_overflows_int(d, dt)) goto overflow;
        wk_scalar_store(p, dt, wk_float(d));
        return 0;
    }
    long long v;
    if (PyLong_Check(o)) {
        int overflow = 0;
        v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            return -1;
        }
    } else {
        PyObject *i = PyNumber_Index(o);
        if (!i) return -1;
        int overflow = 0;
        v = PyLong_AsLongLongAndOverflow(i, &overflow);
        Py_DECREF(i);
        if (overflow) {
            PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            return -1;
        }
    }
    if (v == -1 && PyErr_Occurred()) return -1;
    if (int_overflows(v, dt)) goto overflow;
    wk_scalar_store(p, dt, wk_int(v));
    return 0;
overflow:
    PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow", wk_dtype_name(dt));
    return -1;
}

/* Element strides are those of a fresh contiguous tensor: a running cursor is enough. */
static int recursive_store(PyObject *o, int dim, int ndim, const int64_t *sizes, wk_dtype dt, char **cursor) {
    if (dim == ndim) {
        if (store_leaf(o, dt, *cursor) < 0) return -1;
        *cursor += wk_dtype_size(dt);
        return 0;
    }
    if (WK_PyTensor_Check(o)) { /* iterate the tensor as Python would (sub-tensors), without autograd */
        wk_tensor *t = wk_py_self(o);
        if (t->ndim == 0) {
            PyErr_SetString(PyExc_TypeError, "iteration over a 0-d tensor");
            return -1;
        }
        if (t->sizes[0] != sizes[dim]) {
            PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %lld)",
                         (long long)sizes[dim], dim, (long long)t->sizes[0]);
            return -1;
        }
        for (int64_t i = 0; i < t->sizes[0]; i++) {
            PyObject *sub = wk_py_wrap(wk_alias(t, t->ndim - 1, t->sizes + 1, t->strides + 1, t->offset + i * t->strides[0]));
            if (!sub) return -1;
            int rc = recursive_store(sub, dim + 1, ndim, sizes, dt, cursor);
            Py_DECREF(sub);
            if (rc < 0) return -1;
        }
        return 0;
    }
    PyObject *seq = PySequence_Fast(o, "not a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != sizes[dim]) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %zd)", (long long)sizes[dim],
                     dim, n);
        return -1;
    }
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++)
        rc = recursive_store(PySequence_Fast_GET_ITEM(seq, i), dim + 1, ndim, sizes, dt, cursor);
    Py_DECREF(seq);
    return rc;
}

/* tensor(): copy=true (always a new tensor, detached); as_tensor(): copy=false (shares when it can). */
wk_tensor *wk_py_tensor_new(PyObject *data, wk_dtype dtype, bool copy) {
    if (is_stringlike(data)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(data)->tp_name);
        return NULL;
    }
    if (WK_PyTensor_Check(data) || wk_py_is_ndarray(data)) {
        wk_tensor *src;
        if (WK_PyTensor_Check(data)) {
            src = copy ? wk_detach(wk_py_self(data)) : wk_retain(wk_py_self(data));
        } else {
            src = wk_py_from_numpy(data, !copy);
            if (!src) return NULL;
        }
        if (!src) return (wk_tensor *)wk_py_raise();
        wk_tensor *r = wk_to_dtype(src, dtype == WK_DTYPE_NONE ? src->dtype : dtype, false, copy);
        wk_release(src);
        if (!r) wk_py_raise();
        return r;
    }
    int ndim = 0;
    int64_t sizes[WK_MAX_DIM];
    if (compute_sizes(data, &ndim, sizes) < 0) return NULL;
    wk_dtype dt = dtype;
    if (dt == WK_DTYPE_NONE && infer_dtype(data, &dt) < 0) return NULL;
    wk_tensor *t = wk_empty(wk_ints(sizes, ndim), dt, false);
    if (!t) return (wk_tensor *)wk_py_raise();
    if (wk_numel(t) != 0) {
        char *cursor = wk_data_ptr(t);
        if (recursive_store(data, 0, ndim, sizes, dt, &cursor) < 0) {
            wk_release(t);
            return NULL;
        }
    }
    return t;
}

wk_tensor *wk_py_tensor_from_data(PyObject *data, wk_dtype dtype, bool *inferred_float) {
    if (inferred_float) *inferred_float = false;
    return wk_py_tensor_new(data, dtype, true);
}
