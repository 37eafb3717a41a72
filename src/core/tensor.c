/* tensor.c — storage, tensor headers, allocation, copies, shapes and the small public getters. */
#include "autograd/autograd.h"
#include "core/host.h"
#include "cpu/iter.h"

#include <stdio.h>

/* ---- storage ---- */
/* nbytes64 of storage on dev; zeroed: every byte 0 (through the device's alloc_zeroed where it has one, so fresh
 * big CPU blocks are lazy zero pages, Note [Lazy zero pages] in cpu/alloc.c) */
static wk_storage *storage_new(wk_device *dev, int64_t nbytes64, bool zeroed) {
    /* On a 32-bit target (wasm32) a byte count beyond SIZE_MAX is out of memory, never a wrapped small block. */
#if SIZE_MAX < INT64_MAX
    if (nbytes64 < 0 || (uint64_t)nbytes64 > SIZE_MAX) {
#else
    if (nbytes64 < 0) {
#endif
        wk__error(WK_RUNTIME_ERROR,
                  "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you "
                  "tried to allocate %lld bytes. Error code 12 (Cannot allocate memory)",
                  (long long)nbytes64);
        return NULL;
    }
    size_t nbytes = (size_t)nbytes64;
    wk_storage *s = wk__malloc(sizeof *s);
    if (!s) return NULL;
    /* 64-byte aligned, from the device (the CPU's: the caching allocator, src/cpu/alloc.c) */
    s->data = !nbytes ? NULL : zeroed && dev->alloc_zeroed ? dev->alloc_zeroed(nbytes) : dev->alloc(nbytes);
    if (nbytes && !s->data) {
        free(s);
        if (dev == &wk__cpu_device)
            wk__error(WK_RUNTIME_ERROR,
                      "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you "
                      "tried to allocate %zu bytes. Error code 12 (Cannot allocate memory)",
                      nbytes);
        else
            wk__error(WK_RUNTIME_ERROR, "%s out of memory: tried to allocate %zu bytes", dev->name, nbytes);
        return NULL;
    }
    static const unsigned char zero = 0;
    if (nbytes && zeroed && !dev->alloc_zeroed && dev->fill(s->data, nbytes, &zero, 1) < 0) {
        dev->free(s->data, nbytes);
        free(s);
        return NULL;
    }
    s->refcount = 1;
    s->nbytes = nbytes;
    s->device = dev;
    s->deleter = NULL;
    s->deleter_ctx = NULL;
    s->resizable = true;
    return s;
}

void wk__storage_release(wk_storage *s) {
    if (!s || --s->refcount > 0) return;
    if (s->deleter) s->deleter(s->deleter_ctx);
    else if (s->data) s->device->free(s->data, s->nbytes);
    free(s);
}

static wk_version *version_new(void) {
    wk_version *v = wk__malloc(sizeof *v);
    if (v) {
        v->refcount = 1;
        v->version = 0;
        v->inference = wk__inference_mode();
    }
    return v;
}

static void version_release(wk_version *v) {
    if (v && --v->refcount == 0) free(v);
}

void wk__bump_version(wk_tensor *t) { t->version->version++; }

/* ---- shapes ---- */
int64_t wk__prod(const int64_t *v, int n) {
    /* sizes whose product overflows exist only with a zero among them (torch's empty(2**62, 2, 0)): the zero decides
     * before any multiplication; the rest were checked at creation, so the unsigned product is exact */
    for (int i = 0; i < n; i++)
        if (v[i] == 0) return 0;
    uint64_t p = 1;
    for (int i = 0; i < n; i++) p *= (uint64_t)v[i];
    return (int64_t)p;
}
int64_t wk__numel(const wk_tensor *t) { return wk__prod(t->sizes, t->ndim); }

void wk__contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    int64_t st = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = st;
        st = (int64_t)((uint64_t)st * (uint64_t)(sizes[i] > 1 ? sizes[i] : 1)); /* torch's wrapping product */
    }
}

bool wk__is_contiguous(const wk_tensor *t) {
    int64_t st = 1;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] == 0) return true; /* empty tensors are contiguous whatever their strides */
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] != 1 && t->strides[i] != st) return false;
        st *= t->sizes[i];
    }
    return true;
}

/* TensorImpl::is_non_overlapping_and_dense: some permutation of the dims is contiguous. */
bool wk__non_overlapping_and_dense(const wk_tensor *t) {
    int nd = t->ndim;
    if (nd == 0) return true;
    if (nd == 1) return t->sizes[0] < 2 || t->strides[0] == 1;
    int perm[WK_MAX_DIM]; /* dims, size-1 dims last, the others by stride ascending */
    for (int i = 0; i < nd; i++) perm[i] = i;
    for (int i = 1; i < nd; i++) {
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            bool b_first = t->sizes[a] < 2 ? t->sizes[b] >= 2 : (t->sizes[b] >= 2 && t->strides[b] < t->strides[a]);
            if (!b_first) break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    }
    int64_t want = 1;
    for (int i = 0; i < nd; i++) {
        int d = perm[i];
        if (t->sizes[d] < 2) return true;
        if (t->strides[d] != want) return false;
        /* past INT64_MAX (an empty tensor's huge sizes): no later dim of size >= 2 can have that stride */
        if (__builtin_mul_overflow(want, t->sizes[d], &want)) return i + 1 == nd || t->sizes[perm[i + 1]] < 2;
    }
    return true;
}

/* torch's message when numel * itemsize does not fit in int64 */
static int size_overflow(int ndim, const int64_t *sizes) {
    wk_strbuf b = {0};
    wk_sb_ints(&b, sizes, ndim);
    wk__error(WK_RUNTIME_ERROR, "Storage size calculation overflowed with sizes=%s", b.s ? b.s : "");
    wk_sb_free(&b);
    return -1;
}

int wk__check_sizes(int ndim, const int64_t *sizes) {
    if (ndim > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, ndim);
        return -1;
    }
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            wk_strbuf b = {0};
            wk_sb_ints(&b, sizes, ndim);
            wk__error(WK_RUNTIME_ERROR, "Trying to create tensor with negative dimension %lld: %s", (long long)sizes[i],
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
    }
    /* c10's safe_multiplies_u64: an unsigned product with a sticky overflow flag, so a zero size after a product
     * past INT64_MAX but within 2**64 is an empty tensor (torch.empty(2**62, 2, 0)), as torch's */
    uint64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) overflow |= __builtin_mul_overflow(n, (uint64_t)sizes[i], &n);
    if (overflow || n > (uint64_t)INT64_MAX) return size_overflow(ndim, sizes);
    return 0;
}

/* TensorImpl::empty_tensor_restride(Contiguous): the strides of a new tensor, their products overflow-checked (an
 * empty tensor can have sizes whose strides do not fit: torch.empty(0, 2**62, 3)). */
int wk__contiguous_strides_checked(int ndim, const int64_t *sizes, int64_t *strides) {
    int64_t st = 1;
    bool overflow = false;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = st;
        if (i > 0) overflow |= __builtin_mul_overflow(st, sizes[i] > 1 ? sizes[i] : 1, &st);
    }
    if (overflow) {
        wk__error(WK_RUNTIME_ERROR, "Stride calculation overflowed");
        return -1;
    }
    return 0;
}

int wk__wrap_dim(int64_t dim, int ndim, int64_t *out) {
    int64_t n = ndim > 0 ? ndim : 1; /* 0-d tensors accept dim 0 and -1 */
    if (dim < -n || dim >= n) {
        wk__error(WK_INDEX_ERROR, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                  (long long)-n, (long long)(n - 1), (long long)dim);
        return -1;
    }
    *out = dim < 0 ? dim + n : dim;
    return 0;
}

int wk__broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            wk__error(WK_RUNTIME_ERROR,
                      "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                      (long long)sa, (long long)sb, i);
            return -1;
        }
        out[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return 0;
}

/* ---- headers ---- */
static wk_tensor *header_new(wk_storage *st, wk_version *ver, int ndim, const int64_t *sizes, const int64_t *strides,
                             int64_t offset, wk_dtype dtype) {
    if (wk__numel_checked(ndim, sizes, NULL) < 0) return NULL; /* no tensor whose numel wraps (sizes.c) */
    /* malloc + memset, not calloc: glibc's calloc skips the per-thread cache, and a header is made per op */
    wk_tensor *t = wk__malloc(sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->refcount = 1;
    t->storage = st;
    st->refcount++;
    t->version = ver;
    ver->refcount++;
    t->ndim = ndim;
    t->dtype = dtype;
    t->offset = offset;
    if (ndim) {
        memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
        memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    return t;
}

wk_tensor *wk__empty_strided(int ndim, const int64_t *sizes, const int64_t *strides, wk_dtype dtype) {
    return wk__empty_strided_on(wk__default_device(), ndim, sizes, strides, dtype);
}

static wk_tensor *new_tensor(wk_device *dev, int ndim, const int64_t *sizes, const int64_t *strides, wk_dtype dtype,
                             bool zeroed) {
    if (wk__check_sizes(ndim, sizes) < 0) return NULL;
    int64_t nbytes;
    if (wk__storage_nbytes(ndim, sizes, strides, 0, wk_dtype_size(dtype), &nbytes) < 0) return NULL;
    wk_storage *st = storage_new(dev, nbytes, zeroed);
    if (!st) return NULL;
    wk_version *ver = version_new();
    wk_tensor *t = ver ? header_new(st, ver, ndim, sizes, strides, 0, dtype) : NULL;
    wk__storage_release(st);
    version_release(ver);
    return t;
}

wk_tensor *wk__empty_strided_on(wk_device *dev, int ndim, const int64_t *sizes, const int64_t *strides,
                                wk_dtype dtype) {
    return new_tensor(dev, ndim, sizes, strides, dtype, false);
}

wk_tensor *wk__empty(int ndim, const int64_t *sizes, wk_dtype dtype) {
    int64_t strides[WK_MAX_DIM], nbytes;
    if (wk__check_sizes(ndim, sizes) < 0) return NULL;
    if (wk__storage_nbytes(ndim, sizes, NULL, 0, wk_dtype_size(dtype), &nbytes) < 0) return NULL; /* torch's text */
    if (wk__contiguous_strides_checked(ndim, sizes, strides) < 0) return NULL;
    return wk__empty_strided(ndim, sizes, strides, dtype);
}

wk_tensor *wk__empty_like(const wk_tensor *t, wk_dtype dtype) {
    return wk__empty(t->ndim, t->sizes, dtype == WK_DTYPE_NONE ? t->dtype : dtype);
}

/* zeroed at allocation: a fresh big CPU block is lazy zero pages, never written here (Note [Lazy zero pages]) */
wk_tensor *wk__zeros(int ndim, const int64_t *sizes, wk_dtype dtype) {
    int64_t strides[WK_MAX_DIM], nbytes;
    if (wk__check_sizes(ndim, sizes) < 0) return NULL;
    if (wk__storage_nbytes(ndim, sizes, NULL, 0, wk_dtype_size(dtype), &nbytes) < 0) return NULL; /* torch's text */
    if (wk__contiguous_strides_checked(ndim, sizes, strides) < 0) return NULL;
    return new_tensor(wk__default_device(), ndim, sizes, strides, dtype, true);
}

wk_tensor *wk__full(int ndim, const int64_t *sizes, wk_dtype dtype, wk_scalar fill) {
    wk_tensor *t = wk__empty(ndim, sizes, dtype);
    if (t && wk__fill_(t, fill) < 0) {
        wk_release(t);
        return NULL;
    }
    return t;
}

wk_tensor *wk__alias(const wk_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset) {
    return header_new(t->storage, t->version, ndim, sizes, strides, offset, t->dtype);
}

wk_tensor *wk__expand_to(const wk_tensor *t, int ndim, const int64_t *sizes) {
    int64_t strides[WK_MAX_DIM];
    if (ndim < t->ndim) return wk__expand_too_few(t, ndim, sizes), NULL;
    int off = ndim - t->ndim;
    for (int i = ndim - 1; i >= 0; i--) { /* from the last dim, as torch (its error names the last mismatch) */
        int j = i - off;
        if (j < 0) /* a new dim of size 1 gets a contiguous stride, as torch's (a 0-d tensor's all 0) */
            strides[i] = sizes[i] != 1 || t->ndim == 0 ? 0 : i + 1 < ndim ? sizes[i + 1] * strides[i + 1] : 1;
        else if (t->sizes[j] == sizes[i]) strides[i] = t->strides[j];
        else if (t->sizes[j] == 1) strides[i] = 0;
        else return wk__expand_mismatch(t, ndim, sizes, i), NULL;
    }
    return wk__alias(t, ndim, sizes, strides, t->offset);
}

void wk__expand_too_few(const wk_tensor *t, int ndim, const int64_t *target) {
    wk_strbuf b = {0}, a = {0};
    wk_sb_ints(&b, target, ndim);
    for (int i = 0; i < t->ndim; i++) wk_sb_printf(&a, i ? ", %lld" : "%lld", (long long)t->sizes[i]);
    wk__error(WK_RUNTIME_ERROR,
              "expand(%s{[%s]}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of "
              "dimensions in the tensor (%d)",
              wk__legacy_type_name(t->dtype), a.s ? a.s : "", b.s ? b.s : "", ndim, t->ndim);
    wk_sb_free(&a);
    wk_sb_free(&b);
}

void wk__expand_mismatch(const wk_tensor *t, int ndim, const int64_t *target, int i) {
    wk_strbuf a = {0}, b = {0};
    wk_sb_ints(&a, target, ndim);
    wk_sb_ints(&b, t->sizes, t->ndim);
    wk__error(WK_RUNTIME_ERROR,
              "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton "
              "dimension %d.  Target sizes: %s.  Tensor sizes: %s",
              (long long)target[i], (long long)t->sizes[i - (ndim - t->ndim)], i, a.s, b.s);
    wk_sb_free(&a);
    wk_sb_free(&b);
}

/* ---- host reads of device memory (Note [Host reads], core/host.h) ---- */
/* The storage elements t's elements span: [*lo, *hi], t non-empty; -1 with an error if outside the storage. */
static int span(const wk_tensor *t, int64_t *lo, int64_t *hi) {
    int64_t a = t->offset, b = t->offset;
    bool bad = false;
    for (int d = 0; d < t->ndim && !bad; d++) {
        int64_t s;
        if (__builtin_mul_overflow(t->strides[d], t->sizes[d] - 1, &s)) bad = true;
        else if (s < 0 ? __builtin_add_overflow(a, s, &a) : __builtin_add_overflow(b, s, &b)) bad = true;
    }
    size_t es = wk_dtype_size(t->dtype);
    if (bad || a < 0 || (uint64_t)b >= t->storage->nbytes / es) {
        wk__error(WK_RUNTIME_ERROR, "a %s tensor's elements lie outside its storage of %zu bytes",
                  t->storage->device->name, t->storage->nbytes);
        return -1;
    }
    *lo = a, *hi = b;
    return 0;
}

wk_tensor *wk__host_tensor(const wk_tensor *t) {
    wk_device *d = t->storage->device;
    if (d->host_access) return wk_retain((wk_tensor *)t);
    if (wk__numel(t) == 0) return wk__empty_strided_on(&wk__cpu_device, t->ndim, t->sizes, t->strides, t->dtype);
    int64_t lo, hi, one = 1;
    if (span(t, &lo, &hi) < 0) return NULL;
    int64_t n = hi - lo + 1;
    size_t es = wk_dtype_size(t->dtype);
    wk_tensor *buf = wk__empty_strided_on(&wk__cpu_device, 1, &n, &one, t->dtype); /* [n]: the span's elements */
    if (!buf) return NULL;
    if (d->copy_to_host(buf->storage->data, (const char *)t->storage->data + lo * (int64_t)es, (size_t)n * es) < 0) {
        wk_release(buf);
        return NULL;
    }
    wk_tensor *r = wk__alias(buf, t->ndim, t->sizes, t->strides, t->offset - lo);
    wk_release(buf);
    return r;
}

wk_tensor *wk__to_device(const wk_tensor *t, wk_device *d) {
    int64_t strides[WK_MAX_DIM];
    wk__contiguous_strides(t->ndim, t->sizes, strides);
    wk_tensor *r = wk__empty_strided_on(d, t->ndim, t->sizes, strides, t->dtype);
    if (r && wk__copy_(r, t) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

wk_tensor *wk__empty_like_here(const wk_tensor *t, wk_dtype dtype) {
    wk_tensor *c = wk__empty_like_preserve((wk_tensor *)t, dtype);
    if (c && t->storage->device != c->storage->device && !t->storage->device->host_access) {
        wk_tensor *h = c; /* the strides it chose, on t's device */
        c = wk__empty_strided_on(t->storage->device, h->ndim, h->sizes, h->strides, h->dtype);
        wk_release(h);
    }
    return c;
}

/* ---- the public device API (include/wick.h, "devices") ---- */
wk_device *wk_cpu_device(void) { return &wk__cpu_device; }
wk_device *wk_tensor_device(const wk_tensor *t) { return t ? t->storage->device : NULL; }
bool wk_device_host_access(const wk_device *d) { return d && d->host_access; }
const char *wk_device_str(const wk_device *d, char buf[64]) { return wk__device_str(d, buf); }
wk_tensor *wk_host_tensor(const wk_tensor *t) {
    if (!t) return WK_FAIL(WK_RUNTIME_ERROR, "host_tensor: t is NULL");
    return wk__host_tensor(t);
}
wk_tensor *wk_empty_strided_on(wk_device *d, int ndim, const int64_t *sizes, const int64_t *strides, wk_dtype dtype) {
    if (!d) return WK_FAIL(WK_RUNTIME_ERROR, "empty_strided_on: no device");
    if (ndim < 0 || ndim > WK_MAX_DIM || (ndim && !sizes))
        return WK_FAIL(WK_RUNTIME_ERROR, "empty_strided_on: %d dimensions (at most %d, with sizes)", ndim, WK_MAX_DIM);
    int64_t cs[WK_MAX_DIM]; /* [ndim]: contiguous strides when none are given */
    if (!strides) wk__contiguous_strides(ndim, sizes, cs);
    return wk__empty_strided_on(d, ndim, sizes, strides ? strides : cs, dtype);
}

const char *wk__device_str(const wk_device *d, char buf[64]) {
    if (d->host_access) return d->name;
    snprintf(buf, 64, "%s:0", d->name);
    return buf;
}

/* copy_ where dst or src is on a device without host access: src is read to the host; dst's span is read (unless
 * dst covers it densely), written on the host and written back whole, so bytes between dst's elements survive. */
static int copy_across(wk_tensor *dst, const wk_tensor *src) {
    wk_tensor *h = wk__host_tensor(src);
    if (!h) return -1;
    int rc = -1;
    wk_device *dd = dst->storage->device;
    if (dd->host_access) {
        rc = wk__copy_(dst, h);
    } else if (wk__numel(dst) == 0) {
        wk_tensor *e = wk__empty_strided_on(&wk__cpu_device, dst->ndim, dst->sizes, dst->strides, dst->dtype);
        rc = e ? wk__copy_(e, h) : -1; /* the broadcast check */
        wk_release(e);
    } else {
        int64_t lo, hi, one = 1;
        wk_tensor *hd = NULL;
        if (span(dst, &lo, &hi) == 0) {
            if (wk__is_contiguous(dst)) { /* dense: every byte of the span is written, nothing to read first */
                int64_t n = hi - lo + 1;
                wk_tensor *buf = wk__empty_strided_on(&wk__cpu_device, 1, &n, &one, dst->dtype); /* [n] */
                hd = buf ? wk__alias(buf, dst->ndim, dst->sizes, dst->strides, dst->offset - lo) : NULL;
                wk_release(buf);
            } else {
                hd = wk__host_tensor(dst);
            }
        }
        if (hd && wk__copy_(hd, h) == 0) {
            size_t es = wk_dtype_size(dst->dtype);
            rc = dd->copy_from_host((char *)dst->storage->data + lo * (int64_t)es, hd->storage->data,
                                    (size_t)(hi - lo + 1) * es);
        }
        wk_release(hd);
    }
    wk_release(h);
    return rc;
}

/* ---- copies ---- */
int wk__copy_(wk_tensor *dst, const wk_tensor *src) {
    if (dst->storage == src->storage && dst->offset == src->offset && dst->dtype == src->dtype &&
        dst->ndim == src->ndim && !memcmp(dst->sizes, src->sizes, sizeof(int64_t) * (size_t)dst->ndim) &&
        !memcmp(dst->strides, src->strides, sizeof(int64_t) * (size_t)dst->ndim))
        return 0; /* x.copy_(x) */
    if (!dst->storage->device->host_access || !src->storage->device->host_access) {
        wk_device *dd = dst->storage->device;
        int rc = dd->copy_tensor ? dd->copy_tensor(dst, src) : 1;
        return rc <= 0 ? rc : copy_across(dst, src);
    }
    wk_tensor *s = wk__expand_to(src, dst->ndim, dst->sizes);
    if (!s) return -1;
    wk_tensor *ops[2] = {dst, s};
    int rc = wk_iter_apply(2, ops, wk_cast_loop(dst->dtype, src->dtype), NULL);
    wk_release(s);
    return rc;
}

wk_tensor *wk__clone(const wk_tensor *t) {
    int64_t strides[WK_MAX_DIM]; /* [ndim]: contiguous, on t's device when the host cannot reach it */
    wk__contiguous_strides(t->ndim, t->sizes, strides);
    wk_tensor *c = t->storage->device->host_access ? wk__empty(t->ndim, t->sizes, t->dtype)
                                                   : wk__empty_strided_on(t->storage->device, t->ndim, t->sizes,
                                                                          strides, t->dtype);
    if (c && wk__copy_(c, t) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

wk_tensor *wk__contiguous(const wk_tensor *t) {
    if (wk__is_contiguous(t)) return wk_retain((wk_tensor *)t);
    return wk__clone(t);
}

wk_tensor *wk__to_dtype(const wk_tensor *t, wk_dtype dtype) {
    if (t->dtype == dtype) return wk_retain((wk_tensor *)t);
    /* torch's .to(): empty_like(preserve) keeps t's strides (odd ones of size-1 dims too), so that the memory order
     * an op's output takes from its cast inputs is the one torch's TensorIterator takes from the originals */
    wk_tensor *c = wk__empty_like_here(t, dtype);
    if (c && wk__copy_(c, t) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

int wk__fill_(wk_tensor *dst, wk_scalar v) {
    unsigned char elem[8];
    wk__store_scalar(elem, dst->dtype, v);
    wk_tensor *src = wk_from_data(elem, dst->dtype, 0, NULL);
    if (!src) return -1;
    int rc = wk__copy_(dst, src);
    wk_release(src);
    return rc;
}

/* ---- public API ---- */
wk_tensor *wk_retain(wk_tensor *t) {
    if (t) t->refcount++;
    return t;
}

void wk_release(wk_tensor *t) {
    if (!t || --t->refcount > 0) return;
    wk__autograd_meta_free(t);
    wk__storage_release(t->storage);
    version_release(t->version);
    free(t);
}

int wk_ndim(const wk_tensor *t) { return t->ndim; }
const int64_t *wk_sizes(const wk_tensor *t) { return t->sizes; }
const int64_t *wk_strides(const wk_tensor *t) { return t->strides; }
int64_t wk_numel(const wk_tensor *t) { return wk__numel(t); }
int64_t wk_storage_offset(const wk_tensor *t) { return t->offset; }
wk_dtype wk_tensor_dtype(const wk_tensor *t) { return t->dtype; }
void *wk_data_ptr(const wk_tensor *t) { return wk__data(t); }
bool wk_is_contiguous(const wk_tensor *t) { return wk__is_contiguous(t); }

wk_tensor *wk_from_data(const void *data, wk_dtype dtype, int ndim, const int64_t *sizes) {
    if (dtype < 0 || dtype >= WK_NUM_DTYPES) return WK_FAIL(WK_TYPE_ERROR, "invalid dtype");
    wk_tensor *t = wk__empty(ndim, sizes, dtype);
    wk_storage *s = t ? t->storage : NULL;
    if (s && s->nbytes && s->device->copy_from_host(s->data, data, s->nbytes) < 0) {
        wk_release(t);
        return NULL;
    }
    return t;
}

wk_tensor *wk_from_blob(void *data, wk_dtype dtype, int ndim, const int64_t *sizes, const int64_t *strides,
                        size_t nbytes, void (*deleter)(void *), void *ctx) {
    if (dtype < 0 || dtype >= WK_NUM_DTYPES) return WK_FAIL(WK_TYPE_ERROR, "invalid dtype");
    if (ndim < 0 || (ndim > 0 && !sizes)) return WK_FAIL(WK_VALUE_ERROR, "wk_from_blob: invalid ndim or sizes");
    if (wk__check_sizes(ndim, sizes) < 0) return NULL;
    if (!data && wk__prod(sizes, ndim) > 0) return WK_FAIL(WK_VALUE_ERROR, "wk_from_blob: data is NULL");
    int64_t cstrides[WK_MAX_DIM];
    if (!strides) {
        wk__contiguous_strides(ndim, sizes, cstrides);
        strides = cstrides;
    }
    /* every element the geometry reaches lies inside the caller's nbytes (the caller keeps its block on failure) */
    if (wk__check_in_storage(ndim, sizes, strides, 0, wk_dtype_size(dtype), nbytes) < 0) return NULL;
    wk_storage *st = wk__malloc(sizeof *st);
    if (!st) return NULL;
    st->refcount = 1;
    st->data = data;
    st->nbytes = nbytes;
    st->device = &wk__cpu_device;
    /* no deleter: the block is the caller's malloc'ed memory, freed with free() as before (never cached) */
    st->deleter = deleter ? deleter : free;
    st->deleter_ctx = deleter ? ctx : data;
    st->resizable = false;
    wk_version *ver = version_new();
    wk_tensor *t = ver ? header_new(st, ver, ndim, sizes, strides, 0, dtype) : NULL;
    wk__storage_release(st);
    version_release(ver);
    return t;
}

wk_tensor *wk_scalar_tensor_new(wk_scalar s, wk_dtype dtype) {
    if (dtype == WK_DTYPE_NONE) dtype = wk__scalar_dtype(s);
    return wk__full(0, NULL, dtype, s);
}

wk_tensor *wk__wrap_scalar(wk_scalar s) {
    wk_dtype dt = s.tag == WK_SCALAR_FLOAT ? WK_FLOAT64 : s.tag == WK_SCALAR_BOOL ? WK_BOOL : WK_INT64;
    wk_tensor *t = wk__full(0, NULL, dt, s);
    if (t) t->wrapped_number = true;
    return t;
}

wk_tensor *wk_wrapped_number(wk_scalar s) { return wk__wrap_scalar(s); }

int wk_copy_to_buffer(const wk_tensor *t, wk_dtype dtype, void *out) {
    wk_tensor *dst = wk_from_blob(out, dtype, t->ndim, t->sizes, NULL, (size_t)wk__numel(t) * wk_dtype_size(dtype),
                                  wk__noop_deleter, NULL);
    if (!dst) return -1;
    int rc = wk__copy_(dst, t);
    wk_release(dst);
    return rc;
}

void wk__noop_deleter(void *ctx) { WK_UNUSED(ctx); }

int wk_item(const wk_tensor *t, wk_scalar *out) {
    int64_t n = wk__numel(t);
    if (n != 1) {
        wk__error(WK_RUNTIME_ERROR, "a Tensor with %lld elements cannot be converted to Scalar", (long long)n);
        return -1;
    }
    wk_tensor *h = wk__host_tensor(t); /* Note [Host reads] */
    if (!h) return -1;
    *out = wk__load_scalar(wk__data(h), h->dtype);
    wk_release(h);
    return 0;
}

int wk__storage_grow(wk_storage *s, size_t nbytes) {
    if (nbytes <= s->nbytes) return 0;
    if (!s->resizable) {
        wk__error(WK_RUNTIME_ERROR, "Trying to resize storage that is not resizable");
        return -1;
    }
    wk_device *dev = s->device;
    wk_storage *n = storage_new(dev, (int64_t)nbytes, true); /* zeroed: the bytes past the old end read 0 */
    if (!n) return -1;
    if (s->nbytes && dev->copy(n->data, dev, s->data, s->nbytes) < 0) {
        wk__storage_release(n);
        return -1;
    }
    if (s->data) dev->free(s->data, s->nbytes);
    s->data = n->data; /* the new buffer moves into s; n's header goes */
    s->nbytes = nbytes;
    free(n);
    return 0;
}

int wk__resize_(wk_tensor *t, int ndim, const int64_t *sizes) {
    int64_t need; /* torch's resize_: numel first, then the contiguous bytes from the offset */
    if (ndim > WK_MAX_DIM) return wk__check_sizes(ndim, sizes);
    for (int i = 0; i < ndim; i++)
        if (sizes[i] < 0) return wk__check_sizes(ndim, sizes); /* torch's negative-dimension error */
    if (wk__numel_checked(ndim, sizes, NULL) < 0 ||
        wk__storage_nbytes(ndim, sizes, NULL, t->offset, wk_dtype_size(t->dtype), &need) < 0)
        return -1;
    if ((size_t)need > t->storage->nbytes) {
        if (!t->storage->resizable) {
            wk__error(WK_RUNTIME_ERROR, "Trying to resize storage that is not resizable");
            return -1;
        }
        wk_device *dev = t->storage->device;
        wk_storage *s = storage_new(dev, need, false);
        if (!s) return -1;
        if (t->storage->nbytes && dev->copy(s->data, dev, t->storage->data, t->storage->nbytes) < 0) {
            wk__storage_release(s);
            return -1;
        }
        wk__storage_release(t->storage);
        t->storage = s;
    }
    t->ndim = ndim;
    memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
    wk__contiguous_strides(ndim, sizes, t->strides);
    return 0;
}

/* ---- public geometry helpers (include/wick.h) ---- */
int wk_wrap_dim(int64_t dim, int ndim, int64_t *out) { return wk__wrap_dim(dim, ndim, out); }
int wk_numel_checked(int ndim, const int64_t *sizes, int64_t *out) { return wk__numel_checked(ndim, sizes, out); }
int wk_storage_nbytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset, size_t itemsize,
                      int64_t *out) {
    return wk__storage_nbytes(ndim, sizes, strides, offset, itemsize, out);
}
void wk_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    wk__contiguous_strides(ndim, sizes, strides);
}
void wk_bump_version(wk_tensor *t) { wk__bump_version(t); }

wk_tensor *wk_alias(const wk_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset) {
    if (ndim < 0 || ndim > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, ndim);
        return NULL;
    }
    if (wk__check_sizes(ndim, sizes) < 0) return NULL;
    int64_t st[WK_MAX_DIM]; /* [ndim] the strides, contiguous when none are given */
    if (strides) memcpy(st, strides, sizeof(int64_t) * (size_t)ndim);
    else wk__contiguous_strides(ndim, sizes, st);
    for (int i = 0; i < ndim; i++)
        if (st[i] < 0) {
            wk__error(WK_RUNTIME_ERROR, "alias: negative strides are not supported, got stride %lld at dim %d",
                      (long long)st[i], i);
            return NULL;
        }
    if (wk__check_in_storage(ndim, sizes, st, offset, wk_dtype_size(t->dtype), t->storage->nbytes) < 0) return NULL;
    return wk__alias(t, ndim, sizes, st, offset);
}
