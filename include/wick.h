/* wick.h — PyTorch's shape in C.
 *
 * A short tutorial (tests/c/test_header_tutorial.c compiles and runs exactly this):
 *
 *     #include <wick.h>
 *     #include <stdio.h>
 *
 *     int main(void) {
 *         int64_t shape[] = {2, 3};
 *         float xs[] = {1, 2, 3, 4, 5, 6};
 *         wk_tensor *x = wk_from_data(xs, WK_FLOAT32, 2, shape);   // copies xs
 *         wk_requires_grad_(x, true);
 *         wk_tensor *y = wk_mul(x, x);                            // y = x * x
 *         wk_tensor *s = wk_sum(y, WK_DTYPE_NONE);                // s = y.sum()
 *         if (!s) { printf("%s\n", wk_error_message()); return 1; }
 *         wk_backward(s, NULL, false, false);                     // x.grad = 2 * x
 *         char *text = wk_repr(wk_grad(x));
 *         printf("%s\n", text);       // tensor([[ 2.,  4.,  6.], [ 8., 10., 12.]])
 *         wk_free_string(text);
 *         wk_release(s); wk_release(y); wk_release(x);
 *         return 0;
 *     }
 *
 * Rules of the C API
 * - Every function that returns a wk_tensor* returns a new reference (release it with wk_release),
 *   or NULL on error. Arguments are borrowed. wk_grad/wk_grad_fn and other getters marked "borrowed"
 *   return a pointer owned by the tensor.
 * - Errors never abort or print: the failing call returns NULL (or a negative status) and
 *   wk_error_kind()/wk_error_message() tell the torch exception type and message (thread-local).
 * - Op functions are generated from the op table (ops/<name>.def) into wick_ops.h, one per torch overload:
 *   wk_<op>, wk_<op>_ for in-place, wk_<op>_out for out=. Argument names and order follow torch.
 */
#ifndef WICK_H
#define WICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define WK_API __declspec(dllexport)
#else
#define WK_API __attribute__((visibility("default")))
#endif

/* ---- dtypes: one X-macro table (enum suffix, torch name, ScalarType name, size, kind) ----
 * kind: 'b' bool, 'u' unsigned int, 'i' signed int, 'f' floating. Order = torch's promotion order. */
#define WK_DTYPES(_)                                 \
    _(BOOL, bool, Bool, 1, 'b')                      \
    _(UINT8, uint8, Byte, 1, 'u')                    \
    _(INT8, int8, Char, 1, 'i')                      \
    _(INT16, int16, Short, 2, 'i')                   \
    _(INT32, int32, Int, 4, 'i')                     \
    _(INT64, int64, Long, 8, 'i')                    \
    _(FLOAT16, float16, Half, 2, 'f')                \
    _(BFLOAT16, bfloat16, BFloat16, 2, 'f')          \
    _(FLOAT32, float32, Float, 4, 'f')               \
    _(FLOAT64, float64, Double, 8, 'f')

typedef enum {
    WK_DTYPE_NONE = -1, /* "ScalarType? = None" */
#define WK_X(E, n, s, sz, k) WK_##E,
    WK_DTYPES(WK_X)
#undef WK_X
    WK_NUM_DTYPES
} wk_dtype;

WK_API const char *wk_dtype_name(wk_dtype dt);        /* "float32" */
WK_API const char *wk_dtype_scalar_name(wk_dtype dt); /* "Float" */
WK_API size_t wk_dtype_size(wk_dtype dt);
WK_API bool wk_dtype_is_floating(wk_dtype dt);
WK_API bool wk_dtype_is_integral(wk_dtype dt, bool include_bool);
WK_API wk_dtype wk_promote_types(wk_dtype a, wk_dtype b);
WK_API bool wk_can_cast(wk_dtype from, wk_dtype to);
WK_API wk_dtype wk_get_default_dtype(void);
WK_API int wk_set_default_dtype(wk_dtype dt); /* floating dtypes only */

/* ---- scalars (torch's Scalar: a Python bool, int or float) ---- */
typedef enum { WK_SCALAR_NONE = 0, WK_SCALAR_BOOL, WK_SCALAR_INT, WK_SCALAR_FLOAT } wk_scalar_tag;
typedef struct {
    wk_scalar_tag tag;
    union {
        int64_t i; /* BOOL (0/1) and INT */
        double f;  /* FLOAT */
    } v;
} wk_scalar;

static inline wk_scalar wk_int(int64_t i) { wk_scalar s; s.tag = WK_SCALAR_INT; s.v.i = i; return s; }
static inline wk_scalar wk_float(double f) { wk_scalar s; s.tag = WK_SCALAR_FLOAT; s.v.f = f; return s; }
static inline wk_scalar wk_bool(bool b) { wk_scalar s; s.tag = WK_SCALAR_BOOL; s.v.i = b; return s; }
static inline wk_scalar wk_scalar_none(void) { wk_scalar s; s.tag = WK_SCALAR_NONE; s.v.i = 0; return s; }
WK_API double wk_scalar_to_double(wk_scalar s);
/* One element of `dt` in host memory at p, read as a Scalar / written from one (C cast semantics). */
WK_API wk_scalar wk_scalar_load(const void *p, wk_dtype dt);
WK_API void wk_scalar_store(void *p, wk_dtype dt, wk_scalar s);
WK_API const char *wk_dtype_legacy_type_name(wk_dtype dt); /* "torch.FloatTensor", for messages */

/* ---- optional and list argument types, as the op table spells them ---- */
typedef struct { bool has; int64_t v; } wk_optint;    /* int? */
typedef struct { bool has; double v; } wk_optfloat;   /* float? */
typedef int wk_optbool;                               /* bool?: -1 None, 0, 1 */
typedef struct { const int64_t *data; int64_t len; } wk_intlist; /* int[] ; int[]? None: data NULL, len -1 */
typedef struct wk_tensor wk_tensor;
typedef struct { wk_tensor *const *data; int64_t len; } wk_tensorlist; /* Tensor[] */
typedef struct { const wk_tensor *const *data; int64_t len; } wk_opttensorlist; /* Tensor?[] (entries may be NULL) */
typedef struct wk_generator wk_generator;
typedef struct wk_node wk_node;

static inline wk_optint wk_some(int64_t v) { wk_optint o; o.has = true; o.v = v; return o; }
static inline wk_optint wk_none_int(void) { wk_optint o; o.has = false; o.v = 0; return o; }
static inline wk_optfloat wk_somef(double v) { wk_optfloat o; o.has = true; o.v = v; return o; }
static inline wk_optfloat wk_none_float(void) { wk_optfloat o; o.has = false; o.v = 0; return o; }
static inline wk_intlist wk_ints(const int64_t *d, int64_t n) { wk_intlist l; l.data = d; l.len = n; return l; }
static inline wk_intlist wk_none_ints(void) { wk_intlist l; l.data = NULL; l.len = -1; return l; }

/* ---- errors ---- */
typedef enum {
    WK_OK = 0,
    WK_RUNTIME_ERROR,
    WK_INDEX_ERROR,
    WK_TYPE_ERROR,
    WK_VALUE_ERROR,
    WK_NOT_IMPLEMENTED_ERROR,
    WK_MEMORY_ERROR,
    WK_OVERFLOW_ERROR,
    WK_ZERO_DIVISION_ERROR,
    WK_LINALG_ERROR, /* torch.linalg.LinAlgError (torch._C._LinAlgError), a RuntimeError */
} wk_error_kind;

WK_API wk_error_kind wk_error_kind_get(void);
WK_API const char *wk_error_message(void);
WK_API void wk_error_clear(void);
/* Sets the error, as a failing wick call does: for a front whose callback failed (a hook, a saved-tensor pack, a
 * Python backward), so the operation that called it fails with this kind and message. */
WK_API void wk_error_set(wk_error_kind kind, const char *message);
/* Warnings (torch's TORCH_WARN, a Python UserWarning): operations queue them (thread-local, at most 8); a front
 * takes them after the call (the Python front raises them with warnings.warn). */
WK_API int wk_warning_count(void);
WK_API const char *wk_warning_message(int i); /* borrowed, valid until the next wk_warnings_clear */
WK_API void wk_warnings_clear(void);
#define wk_error_kind() wk_error_kind_get()

/* ---- tensors: lifetime, metadata, data ---- */
WK_API wk_tensor *wk_retain(wk_tensor *t);
WK_API void wk_release(wk_tensor *t);
WK_API int wk_ndim(const wk_tensor *t);
WK_API const int64_t *wk_sizes(const wk_tensor *t);
WK_API const int64_t *wk_strides(const wk_tensor *t);
WK_API int64_t wk_numel(const wk_tensor *t);
WK_API int64_t wk_storage_offset(const wk_tensor *t);
WK_API wk_dtype wk_tensor_dtype(const wk_tensor *t);
WK_API void *wk_data_ptr(const wk_tensor *t); /* address of element 0 */
WK_API bool wk_is_contiguous(const wk_tensor *t);
/* dim in [-ndim, ndim) -> [0, ndim) (a 0-d tensor takes -1 and 0), else IndexError "Dimension out of range". 0 / -1 */
WK_API int wk_wrap_dim(int64_t dim, int ndim, int64_t *out);
/* A new tensor header over t's storage with this geometry (strides NULL: contiguous; offset in elements), sharing t's
 * version counter, without autograd history: what torch's set_(storage, offset, size, stride) and its internal alias
 * views make. RuntimeError (torch's setStorage text) when the geometry reaches outside the storage. */
WK_API wk_tensor *wk_alias(const wk_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset);
/* x.data: same storage and geometry, no history, a version counter of its own (torch's variable_data()). */
WK_API wk_tensor *wk_variable_data(const wk_tensor *t);
/* x.data = src (torch's set_data): t takes src's storage, geometry and dtype; its history and version stay. 0 / -1 */
WK_API int wk_set_data(wk_tensor *t, const wk_tensor *src);
/* Counts a write done outside wick's ops (a custom Function's ctx.mark_dirty): x._version += 1. */
WK_API void wk_bump_version(wk_tensor *t);

/* Size arithmetic, overflow-checked with torch's messages (RuntimeError), for fronts that build geometries. */
WK_API int wk_numel_checked(int ndim, const int64_t *sizes, int64_t *out); /* out may be NULL; 0 / -1 */
/* bytes a storage needs to hold this geometry at `offset` elements (strides NULL: contiguous); 0 / -1 */
WK_API int wk_storage_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset, size_t itemsize,
                             int64_t *out);
WK_API void wk_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides); /* torch's (size-1 dims: 1) */

/* Creation from memory: copies `data` (contiguous, row-major, of `dtype`). */
WK_API wk_tensor *wk_from_data(const void *data, wk_dtype dtype, int ndim, const int64_t *sizes);
/* Wraps external memory without copying; `deleter(ctx)` runs when the storage dies. strides in elements (NULL:
 * contiguous). Every element the sizes/strides reach must lie in the `nbytes` at `data`, else NULL (RuntimeError)
 * and the deleter is not called: the block stays the caller's. The storage is not resizable. */
WK_API wk_tensor *wk_from_blob(void *data, wk_dtype dtype, int ndim, const int64_t *sizes,
                               const int64_t *strides, size_t nbytes, void (*deleter)(void *), void *ctx);
WK_API wk_tensor *wk_scalar_tensor_new(wk_scalar s, wk_dtype dtype); /* 0-d tensor */
/* Copies the tensor's elements, converted to `dtype`, into `out` (numel elements, row-major). */
WK_API int wk_copy_to_buffer(const wk_tensor *t, wk_dtype dtype, void *out);
WK_API int wk_item(const wk_tensor *t, wk_scalar *out); /* one-element tensors */

/* ---- autograd ---- */
WK_API bool wk_requires_grad(const wk_tensor *t);
WK_API int wk_requires_grad_(wk_tensor *t, bool requires_grad);
WK_API wk_tensor *wk_grad(const wk_tensor *t); /* borrowed, may be NULL */
WK_API int wk_set_grad(wk_tensor *t, wk_tensor *grad); /* grad may be NULL */
WK_API bool wk_is_leaf(const wk_tensor *t);
WK_API wk_node *wk_grad_fn(const wk_tensor *t); /* borrowed, may be NULL */
WK_API int wk_backward(wk_tensor *t, wk_tensor *gradient, bool retain_graph, bool create_graph);
WK_API bool wk_is_grad_enabled(void);
WK_API bool wk_set_grad_enabled(bool enabled); /* returns the previous mode */
/* torch.inference_mode(): while on, nothing is recorded and new tensors are inference tensors. */
WK_API bool wk_set_inference_mode(bool enabled); /* returns the previous mode */
WK_API bool wk_is_inference_mode_enabled(void);
WK_API wk_tensor *wk_detach(wk_tensor *t); /* x.detach(): shares storage and version counter, no history */
WK_API int wk_detach_(wk_tensor *t);       /* x.detach_(): 0 / -1 (RuntimeError for a view) */
WK_API uint32_t wk_version_get(const wk_tensor *t); /* x._version: the in-place write counter it shares with views */
/* x._is_view(): t shares storage with a base as a differentiable view (false for an inference tensor's views, which
 * torch does not track). wk_view_base: x._base, borrowed: the root tensor t is a view of, or NULL. */
WK_API bool wk_is_view(const wk_tensor *t);
WK_API wk_tensor *wk_view_base(const wk_tensor *t);
/* The engine (torch.autograd.backward / torch.autograd.grad): runs backward from roots[nroots] with grad_roots
 * (NULL, or entries NULL: implicit ones for one-element roots).
 * - inputs == NULL: every reachable leaf's .grad accumulates (Tensor.backward()).
 * - inputs[ninputs] and grads_out[ninputs]: autograd.grad: the gradients of `inputs` are returned in grads_out (new
 *   references, NULL where unreachable: an error unless allow_unused) and no .grad changes.
 * - inputs without grads_out: backward(inputs=...): only the inputs' .grad accumulate (non-leaves too).
 * 0 / -1. */
WK_API int wk_run_backward(int nroots, wk_tensor *const *roots, wk_tensor *const *grad_roots, bool retain_graph,
                           bool create_graph, int ninputs, wk_tensor *const *inputs, wk_tensor **grads_out,
                           bool allow_unused);

/* Tensor hooks (x.register_hook(fn)): fn(ctx, grad) returns a replacement gradient (a new reference) or NULL for
 * "unchanged"; it signals an error by returning NULL with *err = 1 (and a wick error set). free_ctx(ctx), if not
 * NULL, runs when the hook is removed or its tensor/node dies. Returns the hook's id (> 0), or -1. */
typedef wk_tensor *(*wk_hook_fn)(void *ctx, wk_tensor *grad, int *err);
WK_API int wk_tensor_register_hook(wk_tensor *t, wk_hook_fn fn, void *ctx, void (*free_ctx)(void *));
WK_API int wk_tensor_remove_hook(wk_tensor *t, int id); /* an unknown id is not an error (torch's handle.remove()) */
WK_API int wk_retain_grad(wk_tensor *t);                /* x.retain_grad() */
WK_API bool wk_retains_grad(const wk_tensor *t);
/* Tensor.register_post_accumulate_grad_hook, as a front keeps them: after a leaf whose flag is set has accumulated
 * its .grad, the engine calls `cb(leaf)` (one callback per process; 0 / -1 with an error set). */
WK_API void wk_set_post_accumulate_grad_callback(int (*cb)(wk_tensor *leaf));
WK_API void wk_tensor_set_post_accumulate_grad_flag(wk_tensor *t, bool on);

/* Graph nodes (x.grad_fn): opaque; borrowed from their tensor or from the node that points at them. */
WK_API const char *wk_node_name(const wk_node *n); /* torch's class name: "MulBackward0" */
/* Is this one of torch's hand-written C++ nodes, whose full names carry "torch::autograd::"? */
WK_API bool wk_node_name_is_cpp(const char *name);
WK_API uint32_t wk_node_num_next(const wk_node *n);                              /* len(next_functions) */
WK_API wk_node *wk_node_next(const wk_node *n, uint32_t i, uint32_t *input_nr); /* borrowed, may be NULL */
WK_API wk_tensor *wk_node_variable(const wk_node *n); /* AccumulateGrad's leaf (borrowed), else NULL */
WK_API void wk_node_retain(wk_node *n);
WK_API void wk_node_release(wk_node *n);
/* grad_fn.register_hook(fn): fn(ctx, node, grad_inputs[n_in], n_in, grad_outputs[n_out], n_out) runs after the node;
 * it may replace entries of grad_inputs (release the old, store a new reference). 0 / -1. Returns the id, or -1. */
typedef int (*wk_node_hook_fn)(void *ctx, wk_node *node, wk_tensor **grad_inputs, int n_in, wk_tensor **grad_outputs,
                               int n_out);
WK_API int wk_node_register_hook(wk_node *n, wk_node_hook_fn fn, void *ctx, void (*free_ctx)(void *));

/* Note [Saved-tensor hooks]: torch.autograd.graph.saved_tensors_hooks. While hooks are set (per thread), every tensor
 * a node saves goes through pack (an output as its alias without history) and the node keeps only what pack returned;
 * backward (or grad_fn._saved_*) gets the tensor back from unpack, once per use. drop frees a packed handle. The
 * packed value is opaque to the core (the Python door keeps Python objects there). A packed tensor is not checked for
 * in-place modification (the node no longer holds it). */
typedef struct wk_saved_hooks {
    void *(*pack)(const wk_tensor *t, void *ctx);  /* a handle, or NULL with an error set */
    wk_tensor *(*unpack)(void *packed, void *ctx); /* a new reference, or NULL with an error set */
    void (*drop)(void *packed, void *ctx);
    void *ctx;
} wk_saved_hooks;
/* Sets this thread's hooks (NULL: none; `h` must outlive their use); returns the previous ones. */
WK_API const wk_saved_hooks *wk_set_saved_tensor_hooks(const wk_saved_hooks *h);

/* ---- indexing: Python's x[index] and x[index] = value (src/ops/index.c, Note [Python indexing]) ---- */
typedef enum { WK_IDX_INT, WK_IDX_SLICE, WK_IDX_NONE, WK_IDX_ELLIPSIS, WK_IDX_BOOL, WK_IDX_TENSOR } wk_index_kind;
typedef struct {
    wk_index_kind kind;
    int64_t i;                 /* INT: the index; BOOL: 0 or 1 */
    int64_t start, stop, step; /* SLICE: as Python unpacks a slice (start None -> 0, stop None -> INT64_MAX) */
    const wk_tensor *t;        /* TENSOR: an index tensor (borrowed); lists of ints/bools become tensors first */
} wk_index_item;
/* `tuple`: the index was a tuple (x[i, j], x[i,]) rather than a bare item (x[i]): torch treats a bare int, slice,
 * None, ... or bool slightly differently. */
WK_API wk_tensor *wk_getitem(wk_tensor *self, const wk_index_item *items, int64_t n, bool tuple);
WK_API int wk_setitem(wk_tensor *self, const wk_index_item *items, int64_t n, bool tuple, wk_tensor *value);
WK_API int wk_setitem_scalar(wk_tensor *self, const wk_index_item *items, int64_t n, bool tuple, wk_scalar value);
/* The same, one item at a time (a front converting its index lazily gets torch's error order):
 * st = wk_index_begin(self, wk_index_count(...)); wk_index_step(st, &item)...; wk_index_get_end(st) or
 * wk_index_set_end(st, value) (both consume st; wk_index_abort(st) drops it after a failed step). */
typedef struct wk_index_state wk_index_state;
WK_API int64_t wk_index_count(const wk_index_item *items, int64_t n); /* indexed dims: ints, slices, tensors (masks: ndim) */
WK_API wk_index_state *wk_index_begin(wk_tensor *self, int64_t specified);
WK_API int wk_index_step(wk_index_state *st, const wk_index_item *item);
WK_API wk_tensor *wk_index_get_end(wk_index_state *st);
WK_API int wk_index_set_end(wk_index_state *st, wk_tensor *value);
WK_API void wk_index_abort(wk_index_state *st);
/* x[item] = value for a bare (non-tuple) item; and the value tensor x[...] = <Python scalar> writes. */
WK_API int wk_setitem_single(wk_tensor *self, const wk_index_item *item, wk_tensor *value);
WK_API wk_tensor *wk_setitem_value(const wk_tensor *self, wk_scalar value);

/* ---- random numbers: torch's CPU generator (mt19937), bit for bit ----
 * Ops that sample take a `wk_generator *generator` argument; NULL means the default generator (generator=None). */
#define WK_GENERATOR_STATE_SIZE 5056 /* sizeof(CPUGeneratorImplState) on x86-64: torch.get_rng_state().numel() */
WK_API wk_generator *wk_generator_new(void);                  /* torch.Generator(): seed 67280421310721 */
WK_API wk_generator *wk_generator_retain(wk_generator *g);    /* returns g */
WK_API void wk_generator_release(wk_generator *g);            /* no-op for the default generator */
WK_API wk_generator *wk_default_generator(void);              /* borrowed; seeded from the OS at first use */
WK_API wk_generator *wk_generator_clone(const wk_generator *g); /* Generator.clone_state(): a new reference */
/* Generator.manual_seed(seed): the Python int mod 2^64. Clears both normal caches. Returns g. */
WK_API wk_generator *wk_generator_manual_seed(wk_generator *g, uint64_t seed);
WK_API uint64_t wk_generator_initial_seed(const wk_generator *g);
WK_API uint64_t wk_generator_seed(wk_generator *g); /* reseed from a nondeterministic source; returns it */
/* get_state(): the 5056 bytes torch.get_rng_state() returns (little-endian CPUGeneratorImplState). */
WK_API void wk_generator_get_state(const wk_generator *g, uint8_t out[WK_GENERATOR_STATE_SIZE]);
/* set_state(): RuntimeError with torch's texts for a wrong size or an invalid engine state. 0 / -1. */
WK_API int wk_generator_set_state(wk_generator *g, const uint8_t *state, size_t n);
WK_API uint32_t wk_random32(wk_generator *g); /* one engine output (CPUGeneratorImpl::random) */
WK_API uint64_t wk_random64(wk_generator *g); /* hi = first draw, lo = second */

/* ---- threads ---- */
WK_API int wk_get_num_threads(void);
WK_API int wk_set_num_threads(int n); /* torch.set_num_threads */

/* ---- for fronts without Python's argument parser (the JS API, js/core.mjs) ----
 * A number passed where an op takes a Tensor (torch's "wrapped number": a 0-d int64, float64 or bool tensor that
 * promotes as a Python scalar does, so int32 + 2.5 is float32). */
WK_API wk_tensor *wk_wrapped_number(wk_scalar s);

/* ---- devices (Note [Device table], src/core/device.h; issue 20) ----
 * Every storage lives on a device: the CPU, or 'webgpu' where wgpu-native gives an adapter (loaded at run time, see
 * wk_webgpu_open). A device's memory may not be host-visible: read it through wk_host_tensor (a copy), never through
 * wk_data_ptr. Ops run on their tensors' device (torch's rule: CPU 0-d tensors may join any device). */
typedef struct wk_device wk_device;
WK_API wk_device *wk_cpu_device(void);
WK_API wk_device *wk_tensor_device(const wk_tensor *t);
WK_API bool wk_device_host_access(const wk_device *d); /* host code may read its pointers (the CPU's: yes) */
WK_API const char *wk_device_str(const wk_device *d, char buf[64]); /* torch's printed form: "cpu", "webgpu:0" */
/* t's values on d, contiguous (t itself when already there). Differentiable: when t requires grad (in grad mode) the
 * result's grad_fn is ToCopyBackward0, which moves the gradient back to t's device. */
WK_API wk_tensor *wk_move_to_device(wk_tensor *t, wk_device *d);
/* t readable by the host (new reference): t itself on a host-visible device, else a CPU tensor with t's geometry
 * over a copy of the storage bytes its elements span. No history. */
WK_API wk_tensor *wk_host_tensor(const wk_tensor *t);
/* An uninitialised tensor of this geometry (strides in elements; NULL: contiguous) on device d. */
WK_API wk_tensor *wk_empty_strided_on(wk_device *d, int ndim, const int64_t *sizes, const int64_t *strides,
                                      wk_dtype dtype);
/* The webgpu device, opened once: the library is $WICK_WGPU_LIB when set, else lib_path when not NULL, else
 * "libwgpu_native.so" (later calls return the first answer). NULL when unavailable, with the reason. */
WK_API wk_device *wk_webgpu_open(const char *lib_path);
WK_API const char *wk_webgpu_reason(void);      /* why it is unavailable; "" when open */
WK_API const char *wk_webgpu_device_name(void); /* the adapter's name; "" if none */
WK_API const char *wk_webgpu_backend(void);     /* "Vulkan", "Metal", ...; "" if none */
/* Bytes of whole pool buckets: out[0] handed out, out[1] that plus the idle pool (torch.cuda's memory_allocated /
 * memory_reserved), out[2] GPU buffers ever made for blocks, out[3] blocks handed out now. Zeros before it opens. */
WK_API void wk_webgpu_memory(int64_t out[4]);

/* ---- printing ---- */
WK_API char *wk_repr(const wk_tensor *t); /* torch's repr(); free with wk_free_string */
/* torch.set_printoptions: sci_mode -1 None, 0 False, 1 True; threshold may be INFINITY ("full") */
WK_API void wk_set_printoptions(int precision, double threshold, int edgeitems, int linewidth, int sci_mode);
WK_API void wk_get_printoptions(int *precision, double *threshold, int *edgeitems, int *linewidth, int *sci_mode);
/* set_printoptions(profile=name) alone: "default", "short" or "full" set precision, threshold, edgeitems and linewidth;
 * sci_mode is reset to None. An unknown name is ignored, as torch does, but returns 1 (NULL: like None). */
WK_API int wk_set_printoptions_profile(const char *profile);
WK_API char *wk_str(const wk_tensor *t); /* str(t) (identical to repr for tensors) */
/* repr with a custom prefix (a Tensor subclass prints "MySub(") and/or grad_fn name (a Python autograd.Function's
 * class name). NULL prefix: "tensor("; NULL grad_fn_name: the node's name, if any. */
WK_API char *wk_repr_ex(const wk_tensor *t, const char *prefix, const char *grad_fn_name);
/* torch._tensor_str._tensor_str(t, indent): the body only ("[...]" / "[]" / a scalar), no suffixes. */
WK_API char *wk_repr_body(const wk_tensor *t, int indent);
WK_API void wk_free_string(char *s);

#ifdef __cplusplus
}
#endif

#include "wick_ops.h" /* generated from the op table */

#endif /* WICK_H */
