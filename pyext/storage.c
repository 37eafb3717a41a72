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
    return PyBytes_FromStringAndSize((const char *)t->storage->data, (Py_ssize_t)t->storage->nbytes);
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

/* _alias(base, offset, size, stride) -> a view of base's storage; every element must lie inside it */
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
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    if (nd > WK_MAX_DIM || PyTuple_GET_SIZE(st) != nd) {
        PyErr_SetString(PyExc_RuntimeError, "invalid tensor geometry in the file");
        goto done;
    }
    int64_t capacity = (int64_t)(b->storage->nbytes / wk_dtype_size(b->dtype)), last = offset;
    bool empty = false;
    for (Py_ssize_t i = 0; i < nd; i++) {
        sizes[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(sz, i));
        strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(st, i));
        if (PyErr_Occurred()) goto done;
        if (sizes[i] < 0 || strides[i] < 0 || (sizes[i] > 1 && strides[i] > INT64_MAX / sizes[i])) {
            PyErr_SetString(PyExc_RuntimeError, "invalid tensor geometry in the file");
            goto done;
        }
        if (sizes[i] == 0) empty = true;
        else last += (sizes[i] - 1) * strides[i];
    }
    if (offset < 0 || (!empty && last >= capacity)) {
        PyErr_Format(PyExc_RuntimeError, "tensor geometry (offset %lld) reaches outside its storage of %lld elements",
                     offset, (long long)capacity);
        goto done;
    }
    res = wk_py_wrap(wk__alias(b, (int)nd, sizes, strides, offset));
done:
    Py_DECREF(sz);
    Py_DECREF(st);
    return res;
}

PyMethodDef wk_py_storage_functions[] = {
    {"_storage_info", m_storage_info, METH_O, NULL},
    {"_storage_bytes", m_storage_bytes, METH_O, NULL},
    {"_contiguous_bytes", m_contiguous_bytes, METH_O, NULL},
    {"_tensor_from_bytes", m_tensor_from_bytes, METH_VARARGS, NULL},
    {"_alias", m_alias, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
