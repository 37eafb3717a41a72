/* webgpu.c — wick._C's view of the WebGPU device (src/webgpu/device.h), step 1 of issue 20: open it and name it
 * (wick/webgpu.py), and two test hooks that drive its memory through the device table without letting a device
 * tensor reach Python (host code would read its fake pointers: the Python door to device tensors is the next
 * step). */
#include "pyext.h"

/* _webgpu_open(lib_path or None) -> (available, reason, adapter name, backend) */
static PyObject *m_webgpu_open(PyObject *m, PyObject *arg) {
    (void)m;
    const char *path = NULL;
    if (arg != Py_None && !(path = PyUnicode_AsUTF8(arg))) return NULL;
    wk_device *d;
    Py_BEGIN_ALLOW_THREADS d = wk_webgpu_open(path);
    Py_END_ALLOW_THREADS return Py_BuildValue("(Osss)", d ? Py_True : Py_False, wk_webgpu_reason(),
                                              wk_webgpu_device_name(), wk_webgpu_backend());
}

static wk_device *need_device(void) {
    wk_device *d = wk_webgpu_open(NULL);
    if (!d) PyErr_Format(PyExc_RuntimeError, "webgpu is not available: %s", wk_webgpu_reason());
    return d;
}

/* _webgpu_roundtrip(t, offset=0, hops=1) -> a new CPU tensor: t's bytes (t contiguous, on the CPU) copied into a
 * device buffer at byte `offset`, moved `hops - 1` times device->device (each to a fresh buffer, at offset + hop),
 * zero-filled around, and read back. */
static PyObject *m_webgpu_roundtrip(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *o;
    Py_ssize_t offset = 0, hops = 1;
    if (!PyArg_ParseTuple(args, "O|nn", &o, &offset, &hops)) return NULL;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = ((wk_PyTensor *)o)->t;
    if (!wk_is_contiguous(t) || wk_tensor_device(t) != wk_cpu_device())
        return PyErr_Format(PyExc_ValueError, "expected a contiguous CPU tensor");
    if (offset < 0 || offset > 4096 || hops < 1 || hops > 8)
        return PyErr_Format(PyExc_ValueError, "offset in [0, 4096], hops in [1, 8]");
    wk_device *d = need_device();
    if (!d) return NULL;
    wk_tensor *r = wk_empty_strided_on(wk_cpu_device(), wk_ndim(t), wk_sizes(t), NULL, wk_tensor_dtype(t));
    if (!r) return wk_py_raise();
    size_t n = (size_t)wk_numel(t) * wk_dtype_size(t->dtype);
    const char *src = (const char *)t->storage->data + t->offset * (int64_t)wk_dtype_size(t->dtype);
    char *dst = (char *)r->storage->data + r->offset * (int64_t)wk_dtype_size(r->dtype);
    int rc = 0;
    char *bufs[8] = {0}; /* [hops] device blocks of n + offset + hop + 1 bytes each */
    size_t sizes[8] = {0};
    static const unsigned char zero = 0;
    Py_BEGIN_ALLOW_THREADS for (Py_ssize_t h = 0; h < hops && !rc; h++) {
        sizes[h] = n + (size_t)offset + (size_t)h + 1;
        bufs[h] = d->alloc(sizes[h]);
        if (!bufs[h]) {
            wk__error(WK_RUNTIME_ERROR, "webgpu out of memory: tried to allocate %zu bytes", sizes[h]);
            rc = -1;
            break;
        }
        rc = d->fill(bufs[h], sizes[h], &zero, 1);
        if (!rc && h == 0) rc = d->copy_from_host(bufs[0] + offset, src, n);
        if (!rc && h > 0) rc = d->copy(bufs[h] + offset + h, d, bufs[h - 1] + offset + h - 1, n);
    }
    if (!rc) rc = d->synchronize();
    if (!rc) rc = d->copy_to_host(dst, bufs[hops - 1] + offset + hops - 1, n);
    for (Py_ssize_t h = 0; h < hops; h++)
        if (bufs[h]) d->free(bufs[h], sizes[h]);
    Py_END_ALLOW_THREADS if (rc) {
        wk_release(r);
        return wk_py_raise();
    }
    return wk_py_wrap(r);
}

/* _webgpu_fill(count, element bytes, offset=0) -> bytes: a device buffer filled with count copies of the element
 * at byte `offset`, read back whole (offset zero bytes first). */
static PyObject *m_webgpu_fill(PyObject *m, PyObject *args) {
    (void)m;
    Py_ssize_t count, offset = 0;
    const char *elem;
    Py_ssize_t elem_size;
    if (!PyArg_ParseTuple(args, "ny#|n", &count, &elem, &elem_size, &offset)) return NULL;
    if (count < 0 || count > (1 << 24) || elem_size < 1 || elem_size > 16 || offset < 0 || offset > 4096)
        return PyErr_Format(PyExc_ValueError, "count in [0, 2^24], element of 1..16 bytes, offset in [0, 4096]");
    wk_device *d = need_device();
    if (!d) return NULL;
    size_t total = (size_t)offset + (size_t)count * (size_t)elem_size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (!out || !total) return out;
    static const unsigned char zero = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS char *b = d->alloc(total);
    if (!b) {
        wk__error(WK_RUNTIME_ERROR, "webgpu out of memory: tried to allocate %zu bytes", total);
        rc = -1;
    } else {
        rc = d->fill(b, total, &zero, 1);
        if (!rc) rc = d->fill(b + offset, (size_t)count, elem, (size_t)elem_size);
        if (!rc) rc = d->copy_to_host(PyBytes_AS_STRING(out), b, total);
        d->free(b, total);
    }
    Py_END_ALLOW_THREADS if (rc) {
        Py_DECREF(out);
        return wk_py_raise();
    }
    return out;
}

/* _webgpu_memory() -> (allocated bytes, reserved bytes, buffers made, live blocks); zeros before the device opens */
static PyObject *m_webgpu_memory(PyObject *m, PyObject *unused) {
    (void)m, (void)unused;
    int64_t v[4];
    wk_webgpu_memory(v);
    return Py_BuildValue("(LLLL)", (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
}

/* _webgpu_synchronize(): waits for the device's queued work; raises if it is not available */
static PyObject *m_webgpu_synchronize(PyObject *m, PyObject *unused) {
    (void)m, (void)unused;
    wk_device *d = need_device();
    if (!d) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = d->synchronize();
    Py_END_ALLOW_THREADS if (rc) return wk_py_raise();
    Py_RETURN_NONE;
}

/* _device_of(t) -> t's device as torch prints it: 'cpu' or 'webgpu:0' (Tensor.device, wick/_creation_py.py) */
static PyObject *m_device_of(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_device *d = wk_tensor_device(wk_py_self(o));
    char buf[64];
    return PyUnicode_FromString(wk_device_host_access(d) ? "cpu" : wk_device_str(d, buf)); /* cpu-copy: the CPU */
}

/* _to_device(t, device) -> t's values on device (a new contiguous tensor; t itself when already there): Tensor.cpu()
 * and Tensor.to's move (Note [Device argument], convert.c) */
static PyObject *m_to_device(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *o, *dev;
    if (!PyArg_ParseTuple(args, "OO", &o, &dev)) return NULL;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_device *d;
    int rc = wk_py_parse_device(dev, &d);
    if (rc) return rc < 0 ? NULL : PyErr_Format(PyExc_TypeError, "expected a device");
    Py_INCREF(o);
    return d ? wk_py_move_result(o, d, wk_py_self(o)) : o;
}

PyMethodDef wk_py_webgpu_functions[] = {
    {"_device_of", m_device_of, METH_O, NULL},
    {"_to_device", m_to_device, METH_VARARGS, NULL},
    {"_webgpu_memory", m_webgpu_memory, METH_NOARGS, NULL},
    {"_webgpu_synchronize", m_webgpu_synchronize, METH_NOARGS, NULL},
    {"_webgpu_open", m_webgpu_open, METH_O, NULL},
    {"_webgpu_roundtrip", m_webgpu_roundtrip, METH_VARARGS, NULL},
    {"_webgpu_fill", m_webgpu_fill, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
