/* ops_support.c — support for the generated dispatch code (see ops_support.h). */
#include "core/host.h"
#include "ops/ops_support.h"
#include "ops/index.h"
#include "ops/pointwise.h"

static int pool_grow(wk_pool *p) {
    int cap = p->cap ? p->cap * 2 : 16;
    wk_tensor **items = realloc(p->items, (size_t)cap * sizeof *items);
    if (!items) return -1;
    p->items = items;
    p->cap = cap;
    return 0;
}

wk_tensor *wk__pool_keep(wk_pool *p, wk_tensor *t) {
    if (!t) return NULL;
    if (p->n == p->cap && pool_grow(p) < 0) {
        p->failed = true;
        wk_release(t);
        wk__error(WK_MEMORY_ERROR, "out of memory");
        return NULL;
    }
    p->items[p->n++] = t;
    return t;
}

wk_tensor *wk__pool_add(wk_pool *p, wk_tensor *t) {
    if (!t) {
        p->failed = true;
        return NULL;
    }
    return wk__pool_keep(p, t);
}

wk_tensor **wk__pool_array(wk_pool *p, int64_t n) {
    void **arrays = realloc(p->arrays, (size_t)(p->narrays + 1) * sizeof *arrays);
    if (!arrays) return NULL;
    p->arrays = arrays;
    wk_tensor **a = wk__calloc((size_t)(n ? n : 1), sizeof *a);
    if (a) p->arrays[p->narrays++] = a;
    return a;
}

int wk__pool_end(wk_pool *p, int rc) {
    for (int i = 0; i < p->n; i++) wk_release(p->items[i]);
    for (int i = 0; i < p->narrays; i++) free(p->arrays[i]);
    free(p->items);
    free(p->arrays);
    if (p->failed && rc == 0) rc = -1;
    return rc;
}

void wk__null_arg(const char *op, const char *arg) {
    if (!wk__error_set()) wk__error(WK_TYPE_ERROR, "%s(): argument '%s' must be Tensor, not None", op, arg);
}

int wk__check_list(const char *op, const char *arg, const void *data, int64_t len, bool optional, bool tensors) {
    /* None, as wick.h spells it; also taken for a non-optional list (js/core.mjs passes it for an omitted int[]) */
    if (len == -1 && !data) return 0;
    (void)optional;
    if (len < 0 || (len > 0 && !data)) {
        wk__error(WK_VALUE_ERROR, "%s(): argument '%s' is not a valid list (length %lld, data %s)", op, arg,
                  (long long)len, data ? "set" : "NULL");
        return -1;
    }
    if (tensors)   /* Tensor[]: every entry is a tensor */
        for (int64_t i = 0; i < len; i++)
            if (!((wk_tensor *const *)data)[i]) {
                wk__error(WK_TYPE_ERROR, "%s(): argument '%s' must be tuple of Tensors, not None at index %lld", op,
                          arg, (long long)i);
                return -1;
            }
    return 0;
}

void wk__not_differentiable(const char *op, const char *arg) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "the derivative for '%s' is not implemented (op %s).", arg, op);
}

bool wk__list_requires_grad(wk_tensorlist l) {
    for (int64_t i = 0; i < l.len; i++)
        if (wk__tensor_requires_grad(l.data[i])) return true;
    return false;
}

int wk__copy_intlist(wk_intlist l, int64_t **data, int64_t *len) {
    *len = l.len;
    *data = NULL;
    if (l.len <= 0 || !l.data) return 0;
    *data = wk__malloc(sizeof(int64_t) * (size_t)l.len);
    if (!*data) return -1;
    memcpy(*data, l.data, sizeof(int64_t) * (size_t)l.len);
    return 0;
}

int wk__copy_floatlist(wk_floatlist l, double **data, int64_t *len) {
    *len = l.len;
    *data = NULL;
    if (l.len <= 0 || !l.data) return 0;
    *data = wk__malloc(sizeof(double) * (size_t)l.len);
    if (!*data) return -1;
    memcpy(*data, l.data, sizeof(double) * (size_t)l.len);
    return 0;
}

char *wk__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *r = wk__malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

int wk__save_meta(wk_tensor *const *ts, int64_t n, wk_input_meta **meta, int64_t *nmeta) {
    *nmeta = n;
    *meta = wk__calloc((size_t)(n ? n : 1), sizeof **meta);
    if (!*meta) return -1;
    for (int64_t i = 0; i < n; i++) {
        wk_input_meta *m = &(*meta)[i];
        m->ndim = ts[i]->ndim;
        m->dtype = ts[i]->dtype;
        m->device = ts[i]->storage->device;
        m->sizes = wk__malloc(sizeof(int64_t) * (size_t)(m->ndim ? m->ndim : 1));
        if (!m->sizes) return -1;
        memcpy(m->sizes, ts[i]->sizes, sizeof(int64_t) * (size_t)m->ndim);
    }
    return 0;
}

void wk__free_meta(wk_input_meta *meta, int64_t n) {
    if (!meta) return;
    for (int64_t i = 0; i < n; i++) free(meta[i].sizes);
    free(meta);
}

int wk__materialize_grads(wk_pool *p, wk_tensor **gi, const wk_input_meta *meta, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (gi[i]) continue;
        wk_dtype dt = wk_dtype_is_floating(meta[i].dtype) ? meta[i].dtype : wk_get_default_dtype();
        wk_tensor *z = wk__zeros(meta[i].ndim, meta[i].sizes, dt);
        if (z && meta[i].device && !meta[i].device->host_access) { /* zeros on the output's device */
            wk_tensor *h = z;
            z = wk__to_device(h, meta[i].device);
            wk_release(h);
        }
        if (!wk__pool_add(p, z)) return -1;
        gi[i] = wk_retain(z); /* gi owns its entries: the engine releases them */
    }
    return 0;
}

int wk__save_list_sizes(wk_tensorlist l, int64_t **out, int64_t *n) {
    *n = l.len;
    *out = wk__calloc((size_t)(l.len ? l.len : 1) * (WK_MAX_DIM + 1), sizeof(int64_t));
    if (!*out) return -1;
    for (int64_t i = 0; i < l.len; i++) {
        int64_t *row = *out + i * (WK_MAX_DIM + 1);
        row[0] = l.data[i]->ndim;
        memcpy(row + 1, l.data[i]->sizes, sizeof(int64_t) * (size_t)l.data[i]->ndim);
    }
    return 0;
}

int wk__save_list_dtypes(wk_tensorlist l, wk_dtype **out, int64_t *n) {
    *n = l.len;
    *out = wk__calloc((size_t)(l.len ? l.len : 1), sizeof(wk_dtype));
    if (!*out) return -1;
    for (int64_t i = 0; i < l.len; i++) (*out)[i] = l.data[i]->dtype;
    return 0;
}

static bool same_shape(const wk_tensor *a, const wk_tensor *b) {
    return a->ndim == b->ndim && !memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim);
}

static WK_TLS wk_tensor *tl_dest; /* Note [Writing into the destination] (borrowed) */
void wk__set_dest(wk_tensor *t) { tl_dest = t; }
wk_tensor *wk__take_dest(void) {
    wk_tensor *t = tl_dest;
    tl_dest = NULL;
    return t;
}

static WK_TLS wk_write_target tl_target; /* Note [Checks before the kernel] (borrowed) */
void wk__set_write_target(wk_tensor *t, bool inplace) { tl_target = (wk_write_target){t, inplace}; }
wk_write_target wk__take_write_target(void) {
    wk_write_target w = tl_target;
    tl_target = (wk_write_target){0};
    return w;
}

static int shape_mismatch(const int64_t *out, int out_nd, const int64_t *shape, int nd) {
    wk_strbuf a = {0}, b = {0};
    wk_sb_ints(&a, out, out_nd);
    wk_sb_ints(&b, shape, nd);
    wk__error(WK_RUNTIME_ERROR, "output with shape %s doesn't match the broadcast shape %s", a.s, b.s);
    wk_sb_free(&a);
    wk_sb_free(&b);
    return -1;
}

static int cast_error(wk_dtype from, wk_dtype to) {
    wk__error(WK_RUNTIME_ERROR, "result type %s can't be cast to the desired output type %s", wk_dtype_scalar_name(from),
              wk_dtype_scalar_name(to));
    return -1;
}

int wk__check_write_target(wk_write_target w, int nd, const int64_t *shape, wk_dtype result) {
    if (!w.t) return 0;
    if (w.inplace && (w.t->ndim != nd || memcmp(w.t->sizes, shape, sizeof(int64_t) * (size_t)nd)))
        return shape_mismatch(w.t->sizes, w.t->ndim, shape, nd);
    return wk_can_cast(result, w.t->dtype) ? 0 : cast_error(result, w.t->dtype);
}

int wk__check_write_overlap(const wk_tensor *dst, int n, const wk_tensor *const *inputs) {
    if (wk__assert_no_internal_overlap(dst) < 0) return -1;
    for (int i = 0; i < n; i++)
        if (inputs[i] && wk__assert_no_partial_overlap(dst, inputs[i]) < 0) return -1;
    return 0;
}

int wk__write_inplace(wk_tensor *self, const wk_tensor *r, const char *op) {
    WK_UNUSED(op);
    if (!same_shape(self, r)) return shape_mismatch(self->sizes, self->ndim, r->sizes, r->ndim);
    if (!wk_can_cast(r->dtype, self->dtype)) return cast_error(r->dtype, self->dtype);
    if (r != self && wk__copy_(self, r) < 0) return -1;
    wk__bump_version(self);
    return 0;
}

static int inplace_cast_check(wk_dtype r, wk_dtype self) {
    if (wk_can_cast(r, self)) return 0;
    wk__error(WK_RUNTIME_ERROR, "result type %s can't be cast to the desired output type %s", wk_dtype_scalar_name(r),
              wk_dtype_scalar_name(self));
    return -1;
}

int wk__fits_in_place(const wk_tensor *self, int nd, const int64_t *sizes) {
    int n = 0;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(self->ndim, self->sizes, nd, sizes, &n, shape) < 0) return -1;
    if (n == self->ndim && !memcmp(shape, self->sizes, sizeof(int64_t) * (size_t)n)) return 0;
    return shape_mismatch(self->sizes, self->ndim, shape, n);
}

static int inplace_shape_check(wk_tensor *self, wk_tensor *other) {
    return wk__fits_in_place(self, other->ndim, other->sizes);
}

int wk__binary_inplace_check(wk_tensor *self, wk_tensor *other) {
    if (inplace_shape_check(self, other) < 0) return -1;
    return inplace_cast_check(wk__result_type2(self, other), self->dtype);
}

int wk__div_inplace_check(wk_tensor *self, wk_tensor *other, const char *rounding_mode) {
    if (inplace_shape_check(self, other) < 0) return -1;
    wk_dtype dt = wk__result_type2(self, other); /* true division computes integers in the default dtype */
    if (!rounding_mode && wk_dtype_is_integral(dt, true)) dt = wk_get_default_dtype();
    return inplace_cast_check(dt, self->dtype);
}

int wk__pow_inplace_check_scalar(wk_tensor *self, wk_scalar exponent) {
    /* pow's own check of a negative integer exponent comes before TensorIterator's */
    if (wk_dtype_is_integral(self->dtype, true) && exponent.tag == WK_SCALAR_INT && exponent.v.i < 0) {
        wk__error(WK_RUNTIME_ERROR, "Integers to negative integer powers are not allowed.");
        return -1;
    }
    return wk__binary_inplace_check_scalar(self, exponent);
}

int wk__binary_inplace_check_scalar(wk_tensor *self, wk_scalar other) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, self);
    wk__promo_scalar(&p, other);
    return inplace_cast_check(wk__promo_result(&p), self->dtype);
}

int wk__write_out(wk_tensor *out, const wk_tensor *r) {
    if (wk__check_inference_write(out) < 0) return -1;
    if (!wk_can_cast(r->dtype, out->dtype)) return cast_error(r->dtype, out->dtype);
    if (!same_shape(out, r)) {
        if (wk__numel(out) != 0) { /* torch's resize_output */
            wk_strbuf a = {0}, b = {0};
            wk_sb_ints(&a, out->sizes, out->ndim);
            wk_sb_ints(&b, r->sizes, r->ndim);
            wk__warn("An output with one or more elements was resized since it had shape %s, which does not match the "
                     "required output shape %s. This behavior is deprecated, and in a future PyTorch release outputs will "
                     "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing "
                     "it, inplace, to zero elements with t.resize_(0).",
                     a.s ? a.s : "[]", b.s ? b.s : "[]");
            wk_sb_free(&a);
            wk_sb_free(&b);
        }
        if (wk__resize_(out, r->ndim, r->sizes) < 0) return -1;
    }
    if (r != out && wk__copy_(out, r) < 0) return -1;
    wk__bump_version(out);
    return 0;
}

int wk__check_out_dtypes(wk_tensor *const *out, wk_tensor *const *r, int n) {
    for (int i = 0; i < n; i++)
        if (out[i]->dtype != r[i]->dtype) {
            wk__error(WK_RUNTIME_ERROR, "Expected out tensor to have dtype %s, but got %s instead",
                      wk__cpp_type_name(r[i]->dtype), wk__cpp_type_name(out[i]->dtype));
            return -1;
        }
    return 0;
}

void wk_tensorvec_free(wk_tensorvec v) {
    if (!v.data) return;
    for (int64_t i = 0; i < v.len; i++) wk_release(v.data[i]);
    free(v.data);
}

/* Note [Device table]: the errors of wk__kernel */
wk_kernel_fn wk__kernel_slow(const wk_devpick *p, int id, const char *op) {
    if (p->other) { /* torch's TensorIterator text: "..., cuda:0 and cpu!" */
        char a[64], b[64];
        wk__error(WK_RUNTIME_ERROR,
                  "Expected all tensors to be on the same device, but found at least two devices, %s and %s!",
                  wk__device_str(p->dev, a), wk__device_str(p->other, b));
        return NULL;
    }
    wk_device *d = p->dev ? p->dev : &wk__cpu_device;
    wk_kernel_fn k = d->kernels ? d->kernels[id] : NULL;
    if (!k) wk__error(WK_NOT_IMPLEMENTED_ERROR, "The operator '%s' is not currently implemented for the %s device.", op,
                      d->name);
    return k;
}
