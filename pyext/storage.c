/* storage.c — raw storage access for serialisation (torch.save/load, safetensors): bytes out, bytes in, and a
 * bounds-checked alias so that a malicious file can never make a tensor reach outside its storage. */
#include "pyext.h"

/* _storage_info(t) -> (storage id, storage bytes, storage offset in elements) */
static PyObject *m_storage_info(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = wk_py_self(o);
    return Py_BuildValue("(KnL)", (unsigned long long)(uintptr_t)t->storage, (Py_ssize_t)t->storage->nbytes,
                         (long long)t->offset);
}

/* _storage_bytes(t) -> bytes: the whole storage t views (torch saves storages, not views) */
static PyObject *m_storage_bytes(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = wk_py_self(o);
    wk_storage *st = t->storage;
    if (st->device->host_access) return PyBytes_FromStringAndSize((const char *)st->data, (Py_ssize_t)st->nbytes);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)st->nbytes); /* Note [Host reads]: a device copy */
    if (b && st->nbytes && st->device->copy_to_host(PyBytes_AS_STRING(b), st->data, st->nbytes) < 0) {
        Py_DECREF(b);
        return wk_py_raise();
    }
    return b;
}

/* _contiguous_bytes(t) -> bytes of t's elements in row-major order */
static PyObject *m_contiguous_bytes(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = wk_py_self(o);
    Py_ssize_t n = (Py_ssize_t)wk_numel(t) * (Py_ssize_t)wk_dtype_size(t->dtype);
    PyObject *b = PyBytes_FromStringAndSize(NULL, n);
    if (!b) return NULL;
    if (n && wk_copy_to_buffer(t, t->dtype, PyBytes_AS_STRING(b)) < 0) {
        Py_DECREF(b);
        return wk_py_raise();
    }
    return b;
}

/* _tensor_from_bytes(buffer, dtype) -> a 1-D tensor holding a copy of the bytes */
static PyObject *m_tensor_from_bytes(PyObject *m, PyObject *args) {
    (void)m;
    Py_buffer view;
    PyObject *dto;
    if (!PyArg_ParseTuple(args, "y*O", &view, &dto)) return NULL;
    wk_dtype dt;
    if (!wk_py_to_dtype(dto, &dt)) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_TypeError, "expected a dtype");
    }
    size_t esz = wk_dtype_size(dt);
    if ((size_t)view.len % esz) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_RuntimeError, "storage of %zd bytes is not a whole number of %s elements", view.len,
                            wk_dtype_name(dt));
    }
    int64_t n = (int64_t)((size_t)view.len / esz);
    wk_tensor *t = wk_from_data(view.buf, dt, 1, &n);
    PyBuffer_Release(&view);
    return wk_py_wrap(t);
}

/* _alias(base, offset, size, stride) -> a view of base's storage, checked as torch's set_ (the loader's rebuild):
 * a negative offset, a numel that overflows, storage bytes that overflow (sizes.c), then a geometry reaching past the
 * storage, which torch would have to grow and cannot ("not resizable"). Nothing outside the storage is reachable. */
static PyObject *m_alias(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *base, *size, *stride;
    long long offset;
    if (!PyArg_ParseTuple(args, "OLOO", &base, &offset, &size, &stride)) return NULL;
    if (!WK_PyTensor_Check(base)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *b = wk_py_self(base);
    PyObject *sz = PySequence_Tuple(size), *st = sz ? PySequence_Tuple(stride) : NULL;
    if (!st) {
        Py_XDECREF(sz);
        return NULL;
    }
    Py_ssize_t nd = PyTuple_GET_SIZE(sz);
    PyObject *res = NULL;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM], need;
    const char *what = "size";
    Py_ssize_t pos = 0;
    if (nd > WK_MAX_DIM) {
        PyErr_Format(PyExc_RuntimeError, "wick supports tensors of at most %d dimensions, got %zd", WK_MAX_DIM, nd);
        goto done;
    }
    /* strides beyond WK_MAX_DIM are not read: their count differs from the sizes' then, refused below */
    Py_ssize_t nst = PyTuple_GET_SIZE(st) < WK_MAX_DIM ? PyTuple_GET_SIZE(st) : WK_MAX_DIM;
    what = "size"; /* torch's parser unpacks all of size, then stride */
    for (Py_ssize_t i = 0; i < nd; i++) {
        pos = i + 1;
        sizes[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(sz, i));
        if (PyErr_Occurred()) goto unpack_error;
    }
    what = "stride";
    for (Py_ssize_t i = 0; i < nst; i++) {
        pos = i + 1;
        strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(st, i));
        if (PyErr_Occurred()) goto unpack_error;
    }
    /* torch's SymInt keeps values below -2**62 for symbolic ones: a size or stride there is refused before the
     * kernel (set_) runs, with its source location first */
    for (Py_ssize_t i = 0; i < nd || i < nst; i++) {
        if ((i < nd && sizes[i] < -(INT64_C(1) << 62)) || (i < nst && strides[i] < -(INT64_C(1) << 62))) {
            PyErr_Format(PyExc_RuntimeError, "%s:%d: SymIntArrayRef expected to contain only concrete integers",
                         __FILE__, __LINE__);
            goto done;
        }
    }
    if (PyTuple_GET_SIZE(st) != nd) {
        PyErr_Format(PyExc_RuntimeError, "unequal size length (%zd) and stride length (%zd)", nd,
                     PyTuple_GET_SIZE(st));
        goto done;
    }
    if (offset < 0) {
        PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld", offset);
        goto done;
    }
    if (wk_numel_checked((int)nd, sizes, NULL) < 0 ||
        wk_storage_nbytes((int)nd, sizes, strides, offset, wk_dtype_size(b->dtype), &need) < 0) {
        wk_py_raise();
        goto done;
    }
    if ((uint64_t)need > b->storage->nbytes) {
        PyErr_SetString(PyExc_RuntimeError, "Trying to resize storage that is not resizable");
        goto done;
    }
    /* c10's set_sizes_and_strides: a negative stride (reachable here only with a zero size) becomes the contiguous
     * one, computed from the dims after it */
    for (Py_ssize_t i = nd - 1; i >= 0; i--)
        if (strides[i] < 0) strides[i] = i == nd - 1 ? 1 : (sizes[i + 1] > 1 ? sizes[i + 1] : 1) * strides[i + 1];
    res = wk_py_wrap(wk_alias(b, (int)nd, sizes, strides, offset));
    goto done;
unpack_error: /* torch's set_ argument parser: a size or stride beyond int64 is a TypeError */
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "set_(): argument '%s' failed to unpack the object at pos %zd with error \"Overflow when "
                     "unpacking long long",
                     what, pos);
    }
done:
    Py_DECREF(sz);
    Py_DECREF(st);
    return res;
}

/* _numpy_interface(t) -> numpy's __array_interface__ for t's memory (Tensor.numpy() shares it, as torch's).
 * torch tensors export no buffer protocol; like torch's tensor_to_numpy, lending the memory makes the storage
 * non-resizable for good, so a later resize_ cannot free what an array still reads. */
static PyObject *m_numpy_interface(PyObject *m, PyObject *o) {
    (void)m;
    if (!WK_PyTensor_Check(o)) return PyErr_Format(PyExc_TypeError, "expected a Tensor");
    wk_tensor *t = wk_py_self(o);
    if (!t->storage->device->host_access) { /* torch's tensor_to_numpy check, with tensor.device().str() */
        char buf[64];
        return PyErr_Format(PyExc_TypeError,
                            "can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                            "memory first.",
                            wk_device_str(wk_tensor_device(t), buf));
    }
    const char *typestr;
    switch (t->dtype) {
    case WK_BOOL: typestr = "|b1"; break;
    case WK_UINT8: typestr = "|u1"; break;
    case WK_INT8: typestr = "|i1"; break;
    case WK_INT16: typestr = "<i2"; break;
    case WK_INT32: typestr = "<i4"; break;
    case WK_INT64: typestr = "<i8"; break;
    case WK_FLOAT16: typestr = "<f2"; break;
    case WK_FLOAT32: typestr = "<f4"; break;
    case WK_FLOAT64: typestr = "<f8"; break;
    default: return PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s", wk_dtype_scalar_name(t->dtype));
    }
    Py_ssize_t esz = (Py_ssize_t)wk_dtype_size(t->dtype);
    PyObject *shape = PyTuple_New(t->ndim), *strides = PyTuple_New(t->ndim);
    if (!shape || !strides) goto fail;
    for (int i = 0; i < t->ndim; i++) {
        PyObject *a = PyLong_FromLongLong(t->sizes[i]), *b = PyLong_FromLongLong(t->strides[i] * esz);
        if (!a || !b) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        PyTuple_SET_ITEM(shape, i, a);
        PyTuple_SET_ITEM(strides, i, b);
    }
    t->storage->resizable = false;
    /* an empty tensor may have no memory at all: numpy wants a non-NULL address, never read for 0 elements */
    static char empty_data[64] __attribute__((aligned(64)));
    void *data = wk_numel(t) ? wk_data_ptr(t) : (void *)empty_data;
    return Py_BuildValue("{s:(N,O),s:N,s:N,s:s,s:i}", "data", PyLong_FromVoidPtr(data), Py_False, "shape", shape,
                         "strides", strides, "typestr", typestr, "version", 3);
fail:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return NULL;
}

PyMethodDef wk_py_storage_functions[] = {
    {"_numpy_interface", m_numpy_interface, METH_O, NULL},
    {"_storage_info", m_storage_info, METH_O, NULL},
    {"_storage_bytes", m_storage_bytes, METH_O, NULL},
    {"_contiguous_bytes", m_contiguous_bytes, METH_O, NULL},
    {"_tensor_from_bytes", m_tensor_from_bytes, METH_VARARGS, NULL},
    {"_alias", m_alias, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
