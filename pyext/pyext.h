/* pyext.h — the CPython front: wick._C. Thin: it converts Python values to the C API's and back; every semantic
 * (checks, messages, promotion, printing) lives in the C core so every front answers the same. */
#ifndef WK_PYEXT_H
#define WK_PYEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "autograd/autograd.h"
#include "core/core.h"
#include "wick.h"

/* ---- objects ---- */
typedef struct {
    PyObject_HEAD wk_tensor *t;
    PyObject *dict;
    PyObject *weakrefs;
} wk_PyTensor;

typedef struct {
    PyObject_HEAD wk_dtype dt;
} wk_PyDtype;

typedef struct {
    PyObject_HEAD wk_generator *g; /* strong */
} wk_PyGenerator;

extern PyTypeObject *wk_TensorType;    /* wick._C.TensorBase */
extern PyObject *wk_py_linalg_error; /* wick._C._LinAlgError */
extern PyTypeObject *wk_py_tensor_class; /* wick.Tensor (a Python subclass), what ops return */
extern PyTypeObject *wk_DtypeType;
extern PyTypeObject *wk_SizeType;
extern PyObject *wk_dtype_objs[WK_NUM_DTYPES];
extern PyObject *wk_return_types; /* dict: name -> structseq type */

extern PyTypeObject *wk_GeneratorType; /* wick._C.Generator (generator.c) */

#define WK_PyTensor_Check(o) PyObject_TypeCheck((o), wk_TensorType)
#define WK_PyGenerator_Check(o) PyObject_TypeCheck((o), wk_GeneratorType)
static inline wk_tensor *wk_py_self(PyObject *o) { return ((wk_PyTensor *)o)->t; }

/* ---- conversions (convert.c) ---- */
PyObject *wk_py_raise(void);
/* Raises the warnings the last call queued (Note [Warnings]); steals res: NULL if a warning became an error. */
PyObject *wk_py_flush_warnings(PyObject *res);                    /* the pending wick error as a Python exception; returns NULL */
PyObject *wk_py_wrap(wk_tensor *t);             /* steals t; NULL -> raise */
PyObject *wk_py_wrap_inplace(PyObject *self, wk_tensor *t); /* in-place methods return self */
PyObject *wk_py_wrap_vec(wk_tensorvec v);       /* tuple of tensors */
PyObject *wk_py_wrap_tuple(wk_tensor **ts, int n);
PyObject *wk_py_wrap_named(const char *name, wk_tensor **ts, int n);
PyObject *wk_py_from_scalar(wk_scalar s);
PyObject *wk_py_from_bool(bool b);
PyObject *wk_py_from_int(int64_t i);
PyObject *wk_py_from_float(double f);
PyObject *wk_py_from_dtype(wk_dtype d);
PyObject *wk_py_size(const int64_t *v, int n); /* torch.Size */
int wk_py_to_scalar(PyObject *o, wk_scalar *s, bool allow_tensor); /* 1 ok, 0 not a scalar (no error) */
int wk_py_to_dtype(PyObject *o, wk_dtype *dt);                      /* 1 ok, 0 not a dtype */
bool wk_py_is_number(PyObject *o);
wk_tensor *wk_py_tensor_from_data(PyObject *data, wk_dtype dtype, bool *inferred_float);
int wk_py_check_device(PyObject *o); /* 0 ok (a device or None), 1 not a device (no error), -1 error raised */
/* Note [Devices] (convert.c): as wk_py_check_device, *dev the device named (NULL for None) */
int wk_py_parse_device(PyObject *o, wk_device **dev);
wk_device *wk_py_webgpu_device(void); /* the webgpu device, opened through wick.webgpu; NULL with an error */
/* Note [Device argument]: a result moved to the call's target device; self: the call's own tensor or NULL */
PyObject *wk_py_move_result(PyObject *res, wk_device *target, wk_tensor *self);
void wk_py_set_pending_device(wk_device *d, wk_tensor *self);
wk_device *wk_py_take_pending_device(wk_tensor **self);
wk_tensor *wk_py_tensor_new(PyObject *data, wk_dtype dtype, bool copy); /* tensor() (copy) / as_tensor() */
wk_tensor *wk_py_from_numpy(PyObject *arr, bool warn_if_not_writeable);  /* shares the array's memory */
wk_tensor *wk_py_frombuffer(PyObject *buffer, wk_dtype dt, int64_t count, int64_t offset); /* shares its bytes */
bool wk_py_is_ndarray(PyObject *o);

/* ---- the argument parser (argparse.c), driven by the signatures gen.py emits ---- */
typedef enum {
    PT_TENSOR, PT_OPT_TENSOR, PT_TENSORLIST, PT_OPT_TENSORLIST, PT_SCALAR, PT_OPT_SCALAR, PT_INT, PT_OPT_INT,
    PT_INTLIST, PT_OPT_INTLIST, PT_FLOAT, PT_OPT_FLOAT, PT_BOOL, PT_OPT_BOOL, PT_STR, PT_OPT_STR, PT_DTYPE,
    PT_OPT_DTYPE, PT_GENERATOR, PT_DEVICE, PT_LAYOUT, PT_MEMFMT, PT_FLOATLIST, PT_OPT_FLOATLIST, PT_OBJECT,
} wk_ptype;

typedef struct {
    const char *name;
    wk_ptype type;
    int size;   /* int[N]: a single int is repeated N times */
    int kwonly;
    const char *dflt; /* schema default text, NULL = required */
} wk_param;

typedef struct {
    const char *name;
    const wk_param *params; /* NULL-terminated */
    int method;
    int wrap_numbers;
} wk_sig;

#define WK_PY_MAXARGS 24

typedef struct {
    wk_tensor *t;
    wk_tensorlist tl;
    wk_opttensorlist otl;
    wk_scalar s;
    int64_t i;
    wk_optint oi;
    wk_intlist il;
    double f;
    wk_optfloat of;
    bool b;
    wk_optbool ob;
    const char *str;
    wk_dtype dt;
    wk_generator *gen;
    wk_floatlist fl;
    PyObject *obj;
} wk_pyval;

/* Temporaries made while parsing (wrapped numbers, int arrays, tensor arrays), freed after the call. */
typedef struct {
    void *ptrs[WK_PY_MAXARGS * 2];
    wk_tensor *tensors[WK_PY_MAXARGS * 2];
    int nptrs, ntensors;
    wk_tensor *self;   /* a method's self as the call should see it (memory_format=), or NULL: the Python self */
    const char *fname; /* the function being parsed, for messages raised while converting */
    PyObject *hooked;  /* the vmap handler's result when wk_parse_args returned WK_PARSE_HOOKED (NULL: it raised) */
    wk_device *device; /* Note [Device argument]: the device the result goes to, or NULL */
    wk_tensor *device_self; /* the call's own tensor (a method's self), for the move's autograd check */
} wk_argscope;

/* wk_parse_args's result when a batched tensor (vmap) is among the arguments: the call went to the vmap handler and
 * sc->hooked holds what it returned (Note [vmap], pyext/vmap.c). */
#define WK_PARSE_HOOKED (-2)
bool wk_py_vmap_involved(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *wk_py_vmap_call(PyObject *self, const char *name, PyObject *args, PyObject *kwargs);
extern PyMethodDef wk_py_vmap_functions[]; /* _set_vmap_hook, _vmap_dummy (vmap.c) */
extern PyMethodDef wk_py_saved_hooks_functions[]; /* _set_saved_tensor_hooks (saved_hooks.c) */
extern PyMethodDef wk_py_webgpu_functions[];      /* _webgpu_open and test hooks (webgpu.c) */

int wk_parse_args(wk_sig *sigs, PyObject *self, PyObject *args, PyObject *kwargs, wk_pyval *out, wk_argscope *sc);
void wk_argscope_free(wk_argscope *sc);

extern PyMethodDef wk_generated_functions[];
extern PyMethodDef wk_generated_methods[];
extern PyMethodDef wk_generated_nn_functions[]; /* torch._C._nn */
extern PyMethodDef wk_generated_linalg_functions[]; /* torch._C._linalg */

/* ---- pieces of the module ---- */
int wk_py_tensor_type_init(PyObject *m);
int wk_py_dtype_init(PyObject *m);
int wk_py_node_init(PyObject *m);
int wk_py_generator_init(PyObject *m);              /* Generator, default_generator (generator.c) */
PyObject *wk_py_generator_wrap(wk_generator *g);   /* the Python object of g (new reference) */
/* gc.c: Note [Tensors in reference cycles]. Python hooks are released by wk_py_hook_decref (that is how the collector
 * knows their ctx is a Python object). */
void wk_py_hook_decref(void *ctx);
int wk_py_tensor_traverse_c(PyObject *o, visitproc visit, void *arg);
void wk_py_tensor_clear_c(PyObject *o);
PyObject *wk_py_function_ctx(wk_node *n); /* function.c: a Function node's ctx (borrowed), else NULL */
PyObject *wk_py_node_wrap(wk_node *n); /* grad_fn objects (borrowed node) */
extern PyMethodDef wk_py_function_functions[];
extern PyMethodDef wk_py_storage_functions[]; /* raw storage access for serialisation (storage.c) */ /* torch.autograd.Function support (function.c) */
extern PyMethodDef wk_py_tensor_methods[];
extern PyGetSetDef wk_py_tensor_getset[];
PyObject *wk_py_index_get(PyObject *self, PyObject *index);
int wk_py_index_set(PyObject *self, PyObject *index, PyObject *value);

#endif
