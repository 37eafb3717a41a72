/* index.c — Tensor.__getitem__ / __setitem__: converts Python indices into the C core's index items. */
#include "pyext.h"

PyObject *wk_py_index_get(PyObject *self, PyObject *index) {
    (void)self;
    (void)index;
    return PyErr_Format(PyExc_NotImplementedError, "wick: tensor indexing is not supported yet");
}

int wk_py_index_set(PyObject *self, PyObject *index, PyObject *value) {
    (void)self;
    (void)index;
    (void)value;
    PyErr_Format(PyExc_NotImplementedError, "wick: tensor index assignment is not supported yet");
    return -1;
}
