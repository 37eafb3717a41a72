/* core.h — wick's internal core: tensor layout, storage, errors, helpers shared by every module.
 * Internal symbols are hidden (see WK_INTERNAL) and use the `wk__` prefix or a module prefix. */
#ifndef WK_CORE_H
#define WK_CORE_H

#include "core/config.h"
#include "core/device.h"
#include "wick.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define WK_INTERNAL __attribute__((visibility("hidden")))
#define WK_MAX_DIM 32 /* like numpy's historical limit; torch tensors past this are rare */
#define WK_UNUSED(x) ((void)(x))

/* ---- errors (error.c) ----
 * Note [Error model]: a failing function sets the thread-local error and returns NULL / -1.
 * Callers propagate by returning NULL / -1 too, without overwriting the message. */
WK_INTERNAL void wk__error(wk_error_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
WK_INTERNAL bool wk__error_set(void);
WK_INTERNAL void wk__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* Note [Warnings] */
#define WK_FAIL(kind, ...) (wk__error((kind), __VA_ARGS__), (void *)0)
#define WK_RUNTIME(...) wk__error(WK_RUNTIME_ERROR, __VA_ARGS__)
#define WK_CHECK(cond, kind, ...)                  \
    do {                                           \
        if (!(cond)) {                             \
            wk__error((kind), __VA_ARGS__);        \
            return NULL;                           \
        }                                          \
    } while (0)
WK_INTERNAL void *wk__malloc(size_t n);  /* sets MemoryError on failure */
WK_INTERNAL void *wk__calloc(size_t n, size_t sz);

/* A growable string buffer for messages and printing. */
typedef struct {
    char *s;
    size_t len, cap;
    bool failed; /* an allocation failed: the text is truncated (callers raise MemoryError) */
} wk_strbuf;
WK_INTERNAL void wk_sb_printf(wk_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
WK_INTERNAL void wk_sb_puts(wk_strbuf *b, const char *s);
WK_INTERNAL void wk_sb_ints(wk_strbuf *b, const int64_t *v, int n); /* "[2, 3]" */
WK_INTERNAL void wk_sb_free(wk_strbuf *b);

/* ---- storage (tensor.c) ---- */
typedef struct wk_storage {
    int64_t refcount;
    void *data;                 /* the device's pointer (Note [Device table]); NULL when nbytes is 0 */
    size_t nbytes;
    wk_device *device;          /* where data lives; never NULL */
    void (*deleter)(void *ctx); /* NULL: data came from device->alloc and goes back through device->free */
    void *deleter_ctx;
    bool resizable; /* false once the data is borrowed (wk_from_blob) or lent out (numpy()): torch's resizable() */
} wk_storage;
WK_INTERNAL void wk__storage_release(wk_storage *s); /* drops one reference; the last frees it */

/* Version counter shared by a tensor and its views (torch's VariableVersion). */
typedef struct wk_version {
    int64_t refcount;
    uint32_t version;
    bool inference; /* the storage was made in inference mode: its tensors and their views are inference tensors */
} wk_version;

typedef struct wk_hook wk_hook; /* autograd.h */

/* ---- the tensor ----
 * sizes/strides are in elements, exactly as torch reports them. `offset` is the storage offset in elements. */
struct wk_tensor {
    int64_t refcount;
    wk_storage *storage;
    int64_t offset;
    int ndim;
    wk_dtype dtype;
    int64_t sizes[WK_MAX_DIM];
    int64_t strides[WK_MAX_DIM];
    wk_version *version;
    bool wrapped_number;    /* a Python scalar passed where a Tensor is expected (0-d; promotes as a scalar) */

    /* autograd meta (autograd.c) */
    bool requires_grad;     /* meaningful for leaves; non-leaves require grad iff grad_fn != NULL */
    bool retains_grad;
    bool is_view;           /* shares storage with view_base as a differentiable view */
    uint8_t view_meta;      /* how the view was made (WK_VIEW_* in autograd.h: torch's CreationMeta) */
    uint32_t view_version;  /* the version counter when the view's grad_fn was last set (Note [View grad_fn refresh]) */
    wk_node *grad_fn;       /* strong; NULL for leaves */
    uint32_t output_nr;     /* which output of grad_fn this is */
    wk_tensor *grad;        /* strong; NULL if none */
    wk_node *grad_acc;      /* weak: the AccumulateGrad node of a leaf, while it lives */
    wk_hook *hooks;         /* tensor hooks (register_hook) */
    bool post_acc_hooks;    /* a leaf with register_post_accumulate_grad_hook hooks (kept by its Python wrapper) */
    wk_tensor *view_base;   /* strong; the tensor this one is a view of (root base), or NULL */
    wk_tensor *fw_grad;     /* strong; the forward-mode tangent, valid while fw_level is the open dual level */
    uint64_t fw_level;      /* Note [Forward AD] in src/autograd/forward_ad.c */

    void *pyobj;            /* weak back-pointer to the Python wrapper (pyext), or NULL */
};

/* Allocation. Every creator returns a new reference with refcount 1, contiguous unless said otherwise. */
WK_INTERNAL wk_tensor *wk__empty(int ndim, const int64_t *sizes, wk_dtype dtype);
WK_INTERNAL wk_tensor *wk__empty_like(const wk_tensor *t, wk_dtype dtype); /* same sizes, contiguous */
WK_INTERNAL wk_tensor *wk__empty_strided(int ndim, const int64_t *sizes, const int64_t *strides, wk_dtype dtype);
WK_INTERNAL wk_tensor *wk__empty_strided_on(wk_device *dev, int ndim, const int64_t *sizes, const int64_t *strides,
                                            wk_dtype dtype); /* the others allocate on wk__default_device() */
WK_INTERNAL wk_tensor *wk__zeros(int ndim, const int64_t *sizes, wk_dtype dtype);
WK_INTERNAL wk_tensor *wk__full(int ndim, const int64_t *sizes, wk_dtype dtype, wk_scalar fill);
/* A new tensor header over t's storage (shares storage and version counter; no autograd meta). */
WK_INTERNAL wk_tensor *wk__alias(const wk_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                                 int64_t offset);
WK_INTERNAL wk_tensor *wk__contiguous(const wk_tensor *t); /* new ref: t itself if contiguous, else a copy */
WK_INTERNAL wk_tensor *wk__to_dtype(const wk_tensor *t, wk_dtype dtype); /* new ref; t itself if same dtype */
WK_INTERNAL wk_tensor *wk__clone(const wk_tensor *t);                    /* contiguous copy, no autograd */
WK_INTERNAL int wk__copy_(wk_tensor *dst, const wk_tensor *src); /* broadcasting, casting copy; no autograd */
WK_INTERNAL int wk__fill_(wk_tensor *dst, wk_scalar v);
WK_INTERNAL bool wk__is_contiguous(const wk_tensor *t);
WK_INTERNAL bool wk__non_overlapping_and_dense(const wk_tensor *t); /* some dim order is contiguous */
WK_INTERNAL int64_t wk__numel(const wk_tensor *t);
WK_INTERNAL int64_t wk__prod(const int64_t *v, int n);
WK_INTERNAL void wk__contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
WK_INTERNAL int wk__contiguous_strides_checked(int ndim, const int64_t *sizes, int64_t *strides); /* torch's text */
WK_INTERNAL int wk__check_sizes(int ndim, const int64_t *sizes); /* negative dims, overflow */
/* Size arithmetic, overflow-checked with torch's messages (sizes.c, Note [Size arithmetic]). */
WK_INTERNAL int wk__numel_checked(int ndim, const int64_t *sizes, int64_t *out); /* out may be NULL */
/* bytes a storage needs for a geometry at `offset` elements: strides NULL means contiguous */
WK_INTERNAL int wk__storage_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                                   size_t itemsize, int64_t *out);
/* the geometry lies inside a storage of storage_nbytes bytes (torch's checkInBoundsForStorage) */
WK_INTERNAL int wk__check_in_storage(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                                     size_t itemsize, size_t storage_nbytes);
static inline char *wk__data(const wk_tensor *t) {
    return (char *)t->storage->data + t->offset * (int64_t)wk_dtype_size(t->dtype);
}
WK_INTERNAL void wk__bump_version(wk_tensor *t);
WK_INTERNAL void wk__noop_deleter(void *ctx);
WK_INTERNAL int wk__resize_(wk_tensor *t, int ndim, const int64_t *sizes); /* out=: new contiguous storage if needed */
int wk__storage_grow(wk_storage *s, size_t nbytes); /* resize_: grow s in place (every sharer sees it), data kept */
WK_INTERNAL wk_tensor *wk__finish_factory(wk_tensor *t, bool requires_grad); /* applies requires_grad=True */

/* Dimension handling with torch's messages. */
WK_INTERNAL int wk__wrap_dim(int64_t dim, int ndim, int64_t *out); /* IndexError "Dimension out of range" */
/* Broadcast two shapes; RuntimeError "The size of tensor a (3) must match ..." */
WK_INTERNAL int wk__broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out);
/* A view of t expanded to `sizes` (stride 0 in broadcast dims). */
WK_INTERNAL wk_tensor *wk__expand_to(const wk_tensor *t, int ndim, const int64_t *sizes);
/* torch's error for target[i] against t's existing size there (target printed as given, -1 and all) */
WK_INTERNAL void wk__expand_mismatch(const wk_tensor *t, int ndim, const int64_t *target, int i);
/* expand to fewer dims than t has: torch's "expand(torch.FloatTensor{[2, 0]}, size=[]): the number of sizes provided
 * (0) must be greater or equal to the number of dimensions in the tensor (2)" */
WK_INTERNAL void wk__expand_too_few(const wk_tensor *t, int ndim, const int64_t *target);

/* ---- scalars and dtypes (dtype.c) ---- */
WK_INTERNAL wk_dtype wk__scalar_dtype(wk_scalar s);           /* bool->BOOL, int->INT64, float->default */
WK_INTERNAL double wk__scalar_to_double(wk_scalar s);
WK_INTERNAL int64_t wk__scalar_to_int(wk_scalar s);
WK_INTERNAL wk_scalar wk__load_scalar(const void *p, wk_dtype dt); /* element -> Scalar */
WK_INTERNAL void wk__store_scalar(void *p, wk_dtype dt, wk_scalar s); /* Scalar -> element (C cast semantics) */
WK_INTERNAL double wk__load_double(const void *p, wk_dtype dt);
/* torch's result_type over tensors and Python scalars (Note [Type promotion] in dtype.c). */
typedef struct {
    wk_dtype dim_result, zero_result, wrapped_result; /* WK_DTYPE_NONE when empty */
} wk_promo;
WK_INTERNAL void wk__promo_init(wk_promo *p);
WK_INTERNAL void wk__promo_tensor(wk_promo *p, const wk_tensor *t);
WK_INTERNAL void wk__promo_scalar(wk_promo *p, wk_scalar s);
/* A wrapped number: a 0-d tensor holding a Python scalar (int64, double or bool), promoting like one. */
WK_INTERNAL wk_tensor *wk__wrap_scalar(wk_scalar s);
WK_INTERNAL wk_dtype wk__promo_result(const wk_promo *p);
/* torch's maybe_multiply test: is the Scalar 1 (alpha/beta that need no multiplication)? */
static inline bool wk__scalar_is_one(wk_scalar s) { return s.tag == WK_SCALAR_FLOAT ? s.v.f == 1.0 : s.v.i == 1; }

/* float16 / bfloat16 conversions (round to nearest even, as c10::Half / c10::BFloat16). */
WK_INTERNAL float wk__half_to_float(uint16_t h);
WK_INTERNAL uint16_t wk__float_to_half(float f);
static inline float wk__bf16_to_float(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t wk__float_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f)) return 0x7fc0;
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* Names for error messages: "torch.FloatTensor", "Float". */
WK_INTERNAL const char *wk__legacy_type_name(wk_dtype dt);
WK_INTERNAL const char *wk__cpp_type_name(wk_dtype dt); /* "float", "long int", "c10::Half" */

#endif /* WK_CORE_H */
