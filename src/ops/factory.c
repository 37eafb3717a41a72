/* factory.c — factories (zeros, ones, full, empty, arange, linspace, logspace, eye, *_like, new_*), Tensor.to,
 * and the dtype queries (result_type, promote_types, can_cast, is_floating_point, ...). */
#include "autograd/autograd.h"
#include "ops/index.h"
#include "cpu/iter.h"
#include "ops_impl.h"

/* The common tail of every factory: requires_grad=True checks the dtype like torch. */
wk_tensor *wk__finish_factory(wk_tensor *t, bool requires_grad) {
    if (t && requires_grad && !wk_dtype_is_floating(t->dtype)) {
        wk_release(t);
        wk__error(WK_RUNTIME_ERROR, "Only Tensors of floating point and complex dtype can require gradients");
        return NULL;
    }
    if (t && requires_grad && wk_requires_grad_(t, true) < 0) {
        wk_release(t);
        return NULL;
    }
    return t;
}

static wk_dtype or_default(wk_dtype d) { return d == WK_DTYPE_NONE ? wk_get_default_dtype() : d; }

static wk_tensor *not_implemented(const char *kernel, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for '%s'", kernel, wk_dtype_scalar_name(dt));
    return NULL;
}

/* Note [Scalar conversion checks]: torch converts a Scalar to an element type with c10::checked_convert
 * (Scalar::to<T>()): wk__check_scalar_fits (index.h) gives its errors. fill_, full, linspace's ends and arange's
 * bounds go through it; filling a one-element half or bfloat16 tensor does not check (torch's fill_ takes another
 * path there). */

/* A filled tensor, checking the fill value as fill_ does. */
static wk_tensor *filled(int ndim, const int64_t *sizes, wk_dtype dt, wk_scalar v, bool requires_grad) {
    if (wk__check_sizes(ndim, sizes) < 0) return NULL; /* the allocation fails before fill_ checks the value */
    bool one = wk__prod(sizes, ndim) == 1;
    if (!(one && (dt == WK_FLOAT16 || dt == WK_BFLOAT16)) && wk__check_scalar_fits(v, dt) < 0) return NULL;
    return wk__finish_factory(wk__full(ndim, sizes, dt, v), requires_grad);
}

static int check_size_list(wk_intlist size) {
    if (size.len > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %lld", WK_MAX_DIM,
                  (long long)size.len);
        return -1;
    }
    return 0;
}

/* ---- zeros / ones / full / empty / scalar_tensor ---- */
wk_tensor *wk_impl_zeros(wk_intlist size, wk_dtype dtype, bool requires_grad) {
    if (check_size_list(size) < 0) return NULL;
    for (int64_t i = 0; i < size.len; i++)
        if (size.data[i] < 0) return WK_FAIL(WK_RUNTIME_ERROR, "zeros: Dimension size must be non-negative.");
    return wk__finish_factory(wk__zeros((int)size.len, size.data, or_default(dtype)), requires_grad);
}

wk_tensor *wk_impl_ones(wk_intlist size, wk_dtype dtype, bool requires_grad) {
    if (check_size_list(size) < 0) return NULL;
    return wk__finish_factory(wk__full((int)size.len, size.data, or_default(dtype), wk_int(1)), requires_grad);
}

wk_tensor *wk_impl_full(wk_intlist size, wk_scalar fill_value, wk_dtype dtype, bool requires_grad) {
    if (check_size_list(size) < 0) return NULL;
    if (dtype == WK_DTYPE_NONE) dtype = wk__scalar_dtype(fill_value);
    return filled((int)size.len, size.data, dtype, fill_value, requires_grad);
}

/* torch leaves empty()'s memory uninitialised; wick zeroes it (no stale data, same shape and dtype) at no cost for
 * big tensors: they are fresh zero pages, touched only when written (Note [Lazy zero pages], cpu/alloc.c). */
wk_tensor *wk_impl_empty(wk_intlist size, wk_dtype dtype, bool requires_grad) {
    if (check_size_list(size) < 0) return NULL;
    return wk__finish_factory(wk__zeros((int)size.len, size.data, or_default(dtype)), requires_grad);
}

wk_tensor *wk_impl_scalar_tensor(wk_scalar s, wk_dtype dtype, bool requires_grad) {
    return filled(0, NULL, or_default(dtype), s, requires_grad);
}

/* ---- arange / range ----
 * Note [arange size]: torch checks the bounds in double first (arange_check_bounds: step nonzero, finite ends, step
 * sign), then converts them to the accumulate type (checked: Note [Scalar conversion checks]). The length is
 * ceil((end - start) / step) in double, except for int64 results, where start, end and step are truncated to int64
 * and the length is (end - start + step - sign(step)) / step in int64 arithmetic, wrapping as torch's does on
 * overflow (so arange(0, 5, 1.5, dtype=int64) has 5 elements but with dtype=int32 it has 4, and a wrapped length is
 * "invalid size"); other dtypes convert them after checking the length. Element i is start + step * i computed in the
 * accumulate type (double for float/double, float for half/bfloat16, int64 for integers) and then converted. */
static int arange_check_bounds(double ds, double de, double dst) {
    if (!(dst > 0 || dst < 0)) return wk__error(WK_RUNTIME_ERROR, "step must be nonzero"), -1;
    if (!isfinite(ds) || !isfinite(de)) return wk__error(WK_RUNTIME_ERROR, "unsupported range: %g -> %g", ds, de), -1;
    if (!((dst > 0 && de >= ds) || (dst < 0 && de <= ds)))
        return wk__error(WK_RUNTIME_ERROR, "upper bound and lower bound inconsistent with step sign"), -1;
    return 0;
}

static wk_dtype arange_acc(wk_dtype dtype) {
    if (!wk_dtype_is_floating(dtype)) return WK_INT64;
    return dtype == WK_FLOAT16 || dtype == WK_BFLOAT16 ? WK_FLOAT32 : WK_FLOAT64;
}

/* Scalar::to<accscalar_t>() of the three bounds (checked) */
static int bounds_fit(wk_scalar start, wk_scalar end, wk_scalar step, wk_dtype acc) {
    return wk__check_scalar_fits(start, acc) < 0 || wk__check_scalar_fits(end, acc) < 0 ||
                   wk__check_scalar_fits(step, acc) < 0
               ? -1
               : 0;
}

/* n elements start + step * i in dtype, computed in its accumulate type. arange's float32 elements follow torch's
 * vectorized kernel (in a single parallel chunk: up to 32768 elements); range's kernel is a plain loop. */
static wk_tensor *arange_fill(int64_t n, wk_scalar start, wk_scalar step, wk_dtype dtype, bool requires_grad,
                              bool vectorized) {
    int64_t vec_end = n / 16 * 16;
    wk_dtype acc = arange_acc(dtype);
    wk_tensor *t = wk__empty(1, &n, dtype);
    if (!t) return NULL;
    char *p = wk__data(t); /* [n] contiguous, dtype */
    size_t esz = wk_dtype_size(dtype);
    int64_t istart = wk__scalar_to_int(start), istep = wk__scalar_to_int(step);
    double ds = wk__scalar_to_double(start), dst = wk__scalar_to_double(step);
    for (int64_t i = 0; i < n; i++, p += esz) {
        if (acc == WK_INT64) {
            wk__store_scalar(p, dtype, wk_int((int64_t)((uint64_t)istart + (uint64_t)istep * (uint64_t)i)));
        } else if (acc == WK_FLOAT32) {
            float v = (float)ds + (float)dst * (float)i;
            wk__store_scalar(p, dtype, wk_float(v));
        } else if (dtype == WK_FLOAT32 && vectorized && i < vec_end) {
            /* torch's kernel: Vectorized<float>::arange(base, step), 8 lanes, two vectors a loop; base a float */
            int64_t c = i & ~(int64_t)7;
            float base = (float)(ds + dst * (double)c);
            wk__store_scalar(p, dtype, wk_float((float)((double)base + (double)(i - c) * dst)));
        } else {
            wk__store_scalar(p, dtype, wk_float(ds + dst * (double)i));
        }
    }
    return wk__finish_factory(t, requires_grad);
}

static wk_tensor *arange_impl(wk_scalar start, wk_scalar end, wk_scalar step, wk_dtype dtype, bool requires_grad) {
    if (dtype == WK_DTYPE_NONE) {
        bool any_float = start.tag == WK_SCALAR_FLOAT || end.tag == WK_SCALAR_FLOAT || step.tag == WK_SCALAR_FLOAT;
        dtype = any_float ? wk_get_default_dtype() : WK_INT64;
    }
    if (dtype == WK_BOOL) return not_implemented("arange_cpu", dtype);
    double ds = wk__scalar_to_double(start), de = wk__scalar_to_double(end), dst = wk__scalar_to_double(step);
    if (arange_check_bounds(ds, de, dst) < 0) return NULL;
    wk_dtype acc = arange_acc(dtype);
    double size_d;
    if (dtype == WK_INT64) {
        if (bounds_fit(start, end, step, acc) < 0)
            return NULL;
        int64_t istart = wk__scalar_to_int(start), iend = wk__scalar_to_int(end), istep = wk__scalar_to_int(step);
        if (istep == 0) return WK_FAIL(WK_VALUE_ERROR, "step must be nonzero");
        int64_t sgn = istep > 0 ? 1 : -1;
        int64_t num = (int64_t)((uint64_t)iend - (uint64_t)istart + (uint64_t)istep - (uint64_t)sgn); /* wraps */
        size_d = num == INT64_MIN && istep == -1 ? -1.0 : (double)(num / istep);
    } else {
        size_d = ceil((de - ds) / dst);
    }
    if (!(size_d >= 0 && size_d <= 9223372036854775807.0))
        return WK_FAIL(WK_RUNTIME_ERROR, "invalid size, possible overflow?");
    /* the kernel's Scalar::to<accscalar_t>() of the bounds (int64's were converted for its length already) */
    if (bounds_fit(start, end, step, acc) < 0)
        return NULL;
    return arange_fill((int64_t)size_d, start, step, dtype, requires_grad, true);
}

/* torch.range (deprecated): end included; the bounds converted to the accumulate type first, then arange's checks;
 * the length is (end - start) / step + 1 in the accumulate type, truncated. dtype: the default dtype unless given. */
wk_tensor *wk_impl_range(wk_scalar start, wk_scalar end, wk_scalar step, wk_dtype dtype, bool requires_grad) {
    wk__warn("torch.range is deprecated and will be removed in a future release because its behavior is inconsistent "
             "with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).");
    dtype = or_default(dtype);
    if (dtype == WK_BOOL) return not_implemented("range_cpu", dtype);
    wk_dtype acc = arange_acc(dtype);
    if (bounds_fit(start, end, step, acc) < 0)
        return NULL;
    if (arange_check_bounds(wk__scalar_to_double(start), wk__scalar_to_double(end), wk__scalar_to_double(step)) < 0)
        return NULL;
    int64_t size;
    if (acc == WK_INT64) {
        int64_t istart = wk__scalar_to_int(start), iend = wk__scalar_to_int(end), istep = wk__scalar_to_int(step);
        /* torch divides by the truncated step: a fractional one is a division by zero there (SIGFPE) */
        if (istep == 0) return WK_FAIL(WK_RUNTIME_ERROR, "step must be nonzero");
        int64_t d = (int64_t)((uint64_t)iend - (uint64_t)istart); /* wraps */
        size = (int64_t)((uint64_t)(d == INT64_MIN && istep == -1 ? d : d / istep) + 1);
    } else {
        double size_d;
        if (acc == WK_FLOAT32) {
            float fs = (float)wk__scalar_to_double(start), fe = (float)wk__scalar_to_double(end);
            size_d = (double)((fe - fs) / (float)wk__scalar_to_double(step) + 1.0f);
        } else {
            size_d = (wk__scalar_to_double(end) - wk__scalar_to_double(start)) / wk__scalar_to_double(step) + 1.0;
        }
        /* static_cast<int64_t> of a double beyond int64 gives INT64_MIN on x86 */
        size = size_d < 9223372036854775808.0 ? (int64_t)size_d : INT64_MIN;
    }
    if (size < 0) /* resize_ refuses it */
        return WK_FAIL(WK_RUNTIME_ERROR, "IntArrayRef contains an int that cannot be represented as a SymInt: %lld",
                       (long long)size);
    return arange_fill(size, start, step, dtype, requires_grad, false);
}

wk_tensor *wk_impl_arange(wk_scalar end, wk_dtype dtype, bool requires_grad) {
    return arange_impl(wk_int(0), end, wk_int(1), dtype, requires_grad);
}

wk_tensor *wk_impl_arange_start(wk_scalar start, wk_scalar end, wk_dtype dtype, bool requires_grad) {
    return arange_impl(start, end, wk_int(1), dtype, requires_grad);
}

wk_tensor *wk_impl_arange_start_step(wk_scalar start, wk_scalar end, wk_scalar step, wk_dtype dtype,
                                     bool requires_grad) {
    return arange_impl(start, end, step, dtype, requires_grad);
}

/* ---- linspace / logspace ----
 * Note [linspace]: start and end are converted to the result type first (checked, Note [Scalar conversion
 * checks]); the step is (end - start) / (steps - 1) in the result type (double for integers); the first half
 * counts up from start and the second half down from end, so both ends are exact. Half and bfloat16 round
 * after every operation, as c10::Half arithmetic does. */
static double round_to(double x, wk_dtype dt) {
    switch (dt) {
    case WK_FLOAT16: return wk__half_to_float(wk__float_to_half((float)x));
    case WK_BFLOAT16: return wk__bf16_to_float(wk__float_to_bf16((float)x));
    case WK_FLOAT32: return (float)x;
    default: return x;
    }
}

/* The Scalar converted to the element type and back (the value torch's kernel starts from). */
static double scalar_as(wk_scalar s, wk_dtype dt) {
    unsigned char e[8];
    wk__store_scalar(e, dt, s);
    return wk__load_double(e, dt);
}

wk_tensor *wk_impl_linspace(wk_scalar start, wk_scalar end, int64_t steps, wk_dtype dtype, bool requires_grad) {
    if (steps < 0) return WK_FAIL(WK_RUNTIME_ERROR, "number of steps must be non-negative");
    dtype = or_default(dtype);
    if (steps == 1) return filled(1, &steps, dtype, start, requires_grad);
    if (steps > 1 && dtype == WK_BOOL) return not_implemented("linspace_cpu", dtype);
    if (steps > 1 && (wk__check_scalar_fits(start, dtype) < 0 || wk__check_scalar_fits(end, dtype) < 0)) return NULL;
    wk_tensor *t = wk__empty(1, &steps, dtype);
    if (!t || steps == 0) return wk__finish_factory(t, requires_grad);
    double s = scalar_as(start, dtype), e = scalar_as(end, dtype);
    bool integral = !wk_dtype_is_floating(dtype);
    double step = integral ? (e - s) / (double)(steps - 1) : round_to(round_to(e - s, dtype) / round_to((double)(steps - 1), dtype), dtype);
    int64_t halfway = steps / 2;
    char *p = wk__data(t); /* [steps] contiguous, dtype */
    size_t esz = wk_dtype_size(dtype);
    for (int64_t i = 0; i < steps; i++, p += esz) {
        double v;
        if (integral) {
            v = i < halfway ? s + step * (double)i : e - step * (double)(steps - i - 1);
            wk__store_scalar(p, dtype, wk_int((int64_t)v));
        } else if (dtype == WK_FLOAT32) { /* torch's kernel is compiled with FMA contraction */
            float fs = (float)s, fe = (float)e, fst = (float)step;
            v = i < halfway ? fmaf(fst, (float)i, fs) : fmaf(-fst, (float)(steps - i - 1), fe);
            wk__store_scalar(p, dtype, wk_float(v));
        } else if (dtype == WK_FLOAT64) {
            v = i < halfway ? fma(step, (double)i, s) : fma(-step, (double)(steps - i - 1), e);
            wk__store_scalar(p, dtype, wk_float(v));
        } else {
            if (i < halfway) v = round_to(s + round_to(step * round_to((double)i, dtype), dtype), dtype);
            else v = round_to(e - round_to(step * round_to((double)(steps - i - 1), dtype), dtype), dtype);
            wk__store_scalar(p, dtype, wk_float(v));
        }
    }
    return wk__finish_factory(t, requires_grad);
}

wk_tensor *wk_impl_logspace(wk_scalar start, wk_scalar end, int64_t steps, double base, wk_dtype dtype,
                            bool requires_grad) {
    if (steps < 0) return WK_FAIL(WK_RUNTIME_ERROR, "number of steps must be non-negative");
    dtype = or_default(dtype);
    if (steps == 1) return filled(1, &steps, dtype, wk_float(pow(base, wk__scalar_to_double(start))), requires_grad);
    if (steps > 1 && dtype == WK_BOOL) return not_implemented("logspace_cpu", dtype);
    if (steps > 1 && (wk__check_scalar_fits(start, dtype) < 0 || wk__check_scalar_fits(end, dtype) < 0)) return NULL;
    wk_tensor *t = wk__empty(1, &steps, dtype);
    if (!t || steps == 0) return wk__finish_factory(t, requires_grad);
    double s = scalar_as(start, dtype), e = scalar_as(end, dtype);
    double step = round_to(e - s, dtype) / (double)(steps - 1); /* (end - start) in the element type, then double */
    int64_t halfway = steps / 2;
    char *p = wk__data(t); /* [steps] contiguous, dtype */
    size_t esz = wk_dtype_size(dtype);
    for (int64_t i = 0; i < steps; i++, p += esz) {
        double x = i < halfway ? s + step * (double)i : e - step * (double)(steps - i - 1);
        double v = pow(base, x);
        wk__store_scalar(p, dtype, wk_float(v)); /* to an integer as torch's x86 build converts (out of range too) */
    }
    return wk__finish_factory(t, requires_grad);
}

/* linspace / logspace of 0-d tensor ends: torch's checks, then the Scalar forms */
static int space_ends(const char *op, wk_tensor *start, wk_tensor *end, wk_scalar *s, wk_scalar *e) {
    if ((start && start->ndim) || (end && end->ndim)) {
        if (start && end)
            wk__error(WK_RUNTIME_ERROR, "%s only supports 0-dimensional start and end tensors, but got start with %d "
                      "dimension(s) and end with %d dimension(s).", op, start->ndim, end->ndim);
        else
            wk__error(WK_RUNTIME_ERROR, "%s only supports 0-dimensional start and end tensors, but got %s with %d "
                      "dimension(s).", op, start ? "start" : "end", start ? start->ndim : end->ndim);
        return -1;
    }
    if (start && wk_item(start, s) < 0) return -1;
    if (end && wk_item(end, e) < 0) return -1;
    return 0;
}

wk_tensor *wk_impl_linspace_Tensor_Tensor(wk_tensor *start, wk_tensor *end, int64_t steps, wk_dtype dtype,
                                          bool requires_grad) {
    wk_scalar s, e;
    if (space_ends("linspace", start, end, &s, &e) < 0) return NULL;
    return wk_impl_linspace(s, e, steps, dtype, requires_grad);
}
wk_tensor *wk_impl_linspace_Scalar_Tensor(wk_scalar start, wk_tensor *end, int64_t steps, wk_dtype dtype,
                                          bool requires_grad) {
    wk_scalar e;
    if (space_ends("linspace", NULL, end, NULL, &e) < 0) return NULL;
    return wk_impl_linspace(start, e, steps, dtype, requires_grad);
}
wk_tensor *wk_impl_linspace_Tensor_Scalar(wk_tensor *start, wk_scalar end, int64_t steps, wk_dtype dtype,
                                          bool requires_grad) {
    wk_scalar s;
    if (space_ends("linspace", start, NULL, &s, NULL) < 0) return NULL;
    return wk_impl_linspace(s, end, steps, dtype, requires_grad);
}
wk_tensor *wk_impl_logspace_Tensor_Tensor(wk_tensor *start, wk_tensor *end, int64_t steps, double base, wk_dtype dtype,
                                          bool requires_grad) {
    wk_scalar s, e;
    if (space_ends("logspace", start, end, &s, &e) < 0) return NULL;
    return wk_impl_logspace(s, e, steps, base, dtype, requires_grad);
}
wk_tensor *wk_impl_logspace_Scalar_Tensor(wk_scalar start, wk_tensor *end, int64_t steps, double base, wk_dtype dtype,
                                          bool requires_grad) {
    wk_scalar e;
    if (space_ends("logspace", NULL, end, NULL, &e) < 0) return NULL;
    return wk_impl_logspace(start, e, steps, base, dtype, requires_grad);
}
wk_tensor *wk_impl_logspace_Tensor_Scalar(wk_tensor *start, wk_scalar end, int64_t steps, double base, wk_dtype dtype,
                                          bool requires_grad) {
    wk_scalar s;
    if (space_ends("logspace", start, NULL, &s, NULL) < 0) return NULL;
    return wk_impl_logspace(s, end, steps, base, dtype, requires_grad);
}

/* ---- eye ---- */
wk_tensor *wk_impl_eye_m(int64_t n, int64_t m, wk_dtype dtype, bool requires_grad) {
    if (n < 0) {
        wk__error(WK_RUNTIME_ERROR, "n must be greater or equal to 0, got %lld", (long long)n);
        return NULL;
    }
    if (m < 0) {
        wk__error(WK_RUNTIME_ERROR, "m must be greater or equal to 0, got %lld", (long long)m);
        return NULL;
    }
    int64_t sizes[2] = {n, m};
    dtype = or_default(dtype);
    wk_tensor *t = wk__zeros(2, sizes, dtype);
    if (!t) return NULL;
    char *p = wk__data(t); /* [n, m] contiguous */
    size_t esz = wk_dtype_size(dtype);
    for (int64_t i = 0; i < n && i < m; i++) wk__store_scalar(p + (size_t)(i * m + i) * esz, dtype, wk_int(1));
    return wk__finish_factory(t, requires_grad);
}

wk_tensor *wk_impl_eye(int64_t n, wk_dtype dtype, bool requires_grad) {
    if (n < 0) {
        wk__error(WK_RUNTIME_ERROR, "n must be greater or equal to 0, got %lld", (long long)n);
        return NULL;
    }
    return wk_impl_eye_m(n, n, dtype, requires_grad);
}

/* ---- *_like: the result follows self's memory order (torch's memory_format=preserve) ---- */
static wk_tensor *like(wk_tensor *self, wk_dtype dtype) {
    wk_tensor *t = wk__empty_like_preserve(self, dtype);
    if (t && t->storage->nbytes) memset(t->storage->data, 0, t->storage->nbytes);
    return t;
}

wk_tensor *wk_impl_zeros_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(like(self, dtype), requires_grad);
}

wk_tensor *wk_impl_empty_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(like(self, dtype), requires_grad);
}

wk_tensor *wk_impl_full_like(wk_tensor *self, wk_scalar fill_value, wk_dtype dtype, bool requires_grad) {
    wk_dtype dt = dtype == WK_DTYPE_NONE ? self->dtype : dtype;
    bool one = wk__numel(self) == 1;
    if (!(one && (dt == WK_FLOAT16 || dt == WK_BFLOAT16)) && wk__check_scalar_fits(fill_value, dt) < 0) return NULL;
    wk_tensor *t = like(self, dt);
    if (t && wk__fill_(t, fill_value) < 0) {
        wk_release(t);
        return NULL;
    }
    return wk__finish_factory(t, requires_grad);
}

wk_tensor *wk_impl_ones_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    return wk_impl_full_like(self, wk_int(1), dtype, requires_grad);
}

/* ---- Tensor.new_*: self's dtype unless given ---- */
static wk_dtype dtype_of(wk_tensor *self, wk_dtype dtype) { return dtype == WK_DTYPE_NONE ? self->dtype : dtype; }

wk_tensor *wk_impl_new_zeros(wk_tensor *self, wk_intlist size, wk_dtype dtype, bool requires_grad) {
    if (check_size_list(size) < 0) return NULL;
    return wk__finish_factory(wk__zeros((int)size.len, size.data, dtype_of(self, dtype)), requires_grad);
}

wk_tensor *wk_impl_new_empty(wk_tensor *self, wk_intlist size, wk_dtype dtype, bool requires_grad) {
    return wk_impl_new_zeros(self, size, dtype, requires_grad);
}

wk_tensor *wk_impl_new_full(wk_tensor *self, wk_intlist size, wk_scalar fill_value, wk_dtype dtype,
                            bool requires_grad) {
    if (check_size_list(size) < 0) return NULL;
    return filled((int)size.len, size.data, dtype_of(self, dtype), fill_value, requires_grad);
}

wk_tensor *wk_impl_new_ones(wk_tensor *self, wk_intlist size, wk_dtype dtype, bool requires_grad) {
    return wk_impl_new_full(self, size, wk_int(1), dtype, requires_grad);
}

/* ---- Tensor.to: returns self when nothing changes (unless copy=True), as torch does ---- */
wk_tensor *wk_impl_to_other(wk_tensor *self, wk_tensor *other, bool non_blocking, bool copy) {
    return wk_to_dtype(self, other->dtype, non_blocking, copy);
}

wk_tensor *wk_impl_to_device(wk_tensor *self, wk_dtype dtype, bool non_blocking, bool copy) {
    return wk_to_dtype(self, dtype == WK_DTYPE_NONE ? self->dtype : dtype, non_blocking, copy);
}

/* ---- dtype queries ---- */
int wk_impl_result_type(wk_tensor *tensor, wk_tensor *other, wk_dtype *result) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, tensor);
    wk__promo_tensor(&p, other);
    *result = wk__promo_result(&p);
    return 0;
}

int wk_impl_result_type_Scalar(wk_tensor *tensor, wk_scalar other, wk_dtype *result) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_tensor(&p, tensor);
    wk__promo_scalar(&p, other);
    *result = wk__promo_result(&p);
    return 0;
}

int wk_impl_result_type_Scalar_Tensor(wk_scalar scalar, wk_tensor *tensor, wk_dtype *result) {
    return wk_impl_result_type_Scalar(tensor, scalar, result);
}

int wk_impl_result_type_Scalar_Scalar(wk_scalar scalar1, wk_scalar scalar2, wk_dtype *result) {
    wk_promo p;
    wk__promo_init(&p);
    wk__promo_scalar(&p, scalar1);
    wk__promo_scalar(&p, scalar2);
    *result = wk__promo_result(&p);
    return 0;
}

int wk_impl_promote_types_op(wk_dtype type1, wk_dtype type2, wk_dtype *result) {
    *result = wk_promote_types(type1, type2);
    return 0;
}

int wk_impl_can_cast_op(wk_dtype from_, wk_dtype to, bool *result) {
    *result = wk_can_cast(from_, to);
    return 0;
}

int wk_impl_is_floating_point(wk_tensor *self, bool *result) {
    *result = wk_dtype_is_floating(self->dtype);
    return 0;
}

int wk_impl_is_complex(wk_tensor *self, bool *result) {
    WK_UNUSED(self);
    *result = false; /* wick has no complex dtypes */
    return 0;
}

int wk_impl_is_signed(wk_tensor *self, bool *result) {
    *result = self->dtype != WK_BOOL && self->dtype != WK_UINT8;
    return 0;
}

int wk_impl_is_nonzero(wk_tensor *self, bool *result) {
    int64_t n = wk__numel(self);
    if (n == 0) {
        wk__error(WK_RUNTIME_ERROR, "Boolean value of Tensor with no values is ambiguous");
        return -1;
    }
    if (n > 1) {
        wk__error(WK_RUNTIME_ERROR, "Boolean value of Tensor with more than one value is ambiguous");
        return -1;
    }
    wk_scalar s = wk__load_scalar(wk__data(self), self->dtype);
    *result = s.tag == WK_SCALAR_FLOAT ? s.v.f != 0 : s.v.i != 0;
    return 0;
}

int wk_impl_numel_op(wk_tensor *self, int64_t *result) {
    *result = wk__numel(self);
    return 0;
}
