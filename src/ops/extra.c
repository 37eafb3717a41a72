/* extra.c — ops from the coverage ledger's gaps that belong to no other area (ops/extra.def): tensor queries, the
 * numpy-style split aliases, triangle indices, in-place resizing and restriding, fill_diagonal_, and the maths a
 * tutorial reaches for. Composites call the public ops, so the grad_fn they record is the one torch records. */
#include <float.h>

#include "autograd/autograd.h"
#include "cpu/iter.h"
#include "ops_impl.h"
#include "ops/ops_support.h"
#include "ops/pointwise.h"
#include "ops/reduce.h"

#define VEC_FAIL ((wk_tensorvec){NULL, 0})

/* ---- trivial spellings ------------------------------------------------------------------------------------------ */
wk_tensor *wk_impl_detach_fn(wk_tensor *self) { return wk_detach(self); }

wk_tensor *wk_impl_detach_fn_(wk_tensor *self) {
    if (wk_detach_(self) < 0) return NULL;
    return wk_retain(self);
}

/* torch: self.contiguous().view(-1) */
wk_tensor *wk_impl_ravel(wk_tensor *self) {
    wk_tensor *c = wk_contiguous(self);
    if (!c) return NULL;
    int64_t m1 = -1;
    wk_tensor *r = wk_view(c, wk_ints(&m1, 1));
    wk_release(c);
    return r;
}

/* torch: self.to(other.options()) */
wk_tensor *wk_impl_type_as(wk_tensor *self, wk_tensor *other) { return wk_to_other(self, other, false, false); }

int wk_impl_is_same_size(wk_tensor *self, wk_tensor *other, bool *result) {
    *result = self->ndim == other->ndim && !memcmp(self->sizes, other->sizes, sizeof(int64_t) * (size_t)self->ndim);
    return 0;
}

int wk_impl_is_inference(wk_tensor *self, bool *result) {
    *result = self->version->inference;
    return 0;
}

/* ---- hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-D) / 0 / 2 ------------------------------------- */
static int split_dims_check(const char *name, const wk_tensor *self, int need) {
    if (self->ndim < need) {
        wk__error(WK_RUNTIME_ERROR, "torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                                    "dimensions!", name, need, self->ndim);
        return -1;
    }
    return 0;
}

static wk_tensorvec split_int(const char *name, wk_tensor *self, int need, int64_t dim, int64_t sections) {
    if (split_dims_check(name, self, need) < 0) return VEC_FAIL;
    if (sections == 0 || self->sizes[dim] % sections != 0) {
        wk__error(WK_RUNTIME_ERROR, "torch.%s attempted to split along dimension %lld, but the size of the dimension "
                                    "%lld is not divisible by the split_size %lld!", name, (long long)dim,
                  (long long)self->sizes[dim], (long long)sections);
        return VEC_FAIL;
    }
    return wk_tensor_split_sections(self, sections, dim);
}

static wk_tensorvec split_array(const char *name, wk_tensor *self, int need, int64_t dim, wk_intlist indices) {
    if (split_dims_check(name, self, need) < 0) return VEC_FAIL;
    return wk_tensor_split_indices(self, indices, dim);
}

wk_tensorvec wk_impl_hsplit_int(wk_tensor *self, int64_t sections) {
    return split_int("hsplit", self, 1, self->ndim == 1 ? 0 : 1, sections);
}
wk_tensorvec wk_impl_hsplit_array(wk_tensor *self, wk_intlist indices) {
    return split_array("hsplit", self, 1, self->ndim == 1 ? 0 : 1, indices);
}
wk_tensorvec wk_impl_vsplit_int(wk_tensor *self, int64_t sections) { return split_int("vsplit", self, 2, 0, sections); }
wk_tensorvec wk_impl_vsplit_array(wk_tensor *self, wk_intlist indices) {
    return split_array("vsplit", self, 2, 0, indices);
}
wk_tensorvec wk_impl_dsplit_int(wk_tensor *self, int64_t sections) { return split_int("dsplit", self, 3, 2, sections); }
wk_tensorvec wk_impl_dsplit_array(wk_tensor *self, wk_intlist indices) {
    return split_array("dsplit", self, 3, 2, indices);
}

/* ---- tril_indices / triu_indices ---------------------------------------------------------------------------------
 * Row r of the lower triangle (c <= r + offset) holds clamp(r + offset + 1, 0, col) columns. The count is summed in
 * closed form (rows may be huge while the triangle is empty), in 128 bits. */
static __int128 tril_count(int64_t row, int64_t col, int64_t offset) {
    __int128 a = (__int128)offset + 1, total = 0;
    __int128 lo = a < 0 ? -a : 0;                   /* first row with a column */
    __int128 full = (__int128)col - a;              /* first row with every column */
    if (full < 0) full = 0;
    __int128 end = row;
    __int128 mid_end = full < end ? full : end;     /* rows [lo, mid_end) grow linearly */
    if (lo < mid_end) total += (mid_end - lo) * (lo + a + mid_end - 1 + a) / 2;
    if (full < end) total += (end - full) * (__int128)col;
    return total;
}

static wk_tensor *tri_indices(const char *name, int64_t row, int64_t col, int64_t offset, wk_dtype dtype, bool upper) {
    if (row < 0) return WK_FAIL(WK_RUNTIME_ERROR, "row must be non-negative, got%lld", (long long)row);
    if (col < 0) return WK_FAIL(WK_RUNTIME_ERROR, "col must be non-negative, got%lld", (long long)col);
    if (dtype == WK_DTYPE_NONE) dtype = WK_INT64;
    if (dtype != WK_INT64 && dtype != WK_INT32) {
        wk__not_implemented_for(name, dtype);
        return NULL;
    }
    /* upper (c >= r + offset) is everything but the lower triangle of offset - 1 */
    __int128 n = upper ? (__int128)row * col - tril_count(row, col, offset - 1) : tril_count(row, col, offset);
    if (n > INT64_MAX / 2) return WK_FAIL(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
    int64_t sizes[2] = {2, (int64_t)n};
    wk_tensor *t = wk__empty(2, sizes, dtype);
    if (!t) return NULL;
    char *p = wk__data(t); /* [2, n]: row indices, then column indices */
    int64_t k = 0;
    for (int64_t r = 0; r < row && k < n; r++) {
        int64_t c0, c1; /* columns [c0, c1) of row r */
        if (upper) {
            c0 = r + offset < 0 ? 0 : r + offset;
            c1 = col;
        } else {
            c0 = 0;
            c1 = r + offset + 1 > col ? col : r + offset + 1;
        }
        for (int64_t c = c0; c < c1; c++, k++) {
            if (dtype == WK_INT64) {
                ((int64_t *)p)[k] = r;
                ((int64_t *)p)[n + k] = c;
            } else {
                ((int32_t *)p)[k] = (int32_t)r;
                ((int32_t *)p)[n + k] = (int32_t)c;
            }
        }
    }
    return t;
}

wk_tensor *wk_impl_tril_indices(int64_t row, int64_t col, int64_t offset, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(tri_indices("tril_indices", row, col, offset, dtype, false), requires_grad);
}
wk_tensor *wk_impl_triu_indices(int64_t row, int64_t col, int64_t offset, wk_dtype dtype, bool requires_grad) {
    return wk__finish_factory(tri_indices("triu_indices", row, col, offset, dtype, true), requires_grad);
}

/* ---- resize_ / resize_as_ ----------------------------------------------------------------------------------------
 * torch's resize_impl_cpu_: the same sizes keep the strides; otherwise the strides become contiguous and the storage
 * grows (in place, so views sharing it see the new bytes) to hold offset + numel elements. It never shrinks. */
static int resize_to(wk_tensor *self, int n, const int64_t *sizes) {
    if (wk__check_inference_write(self) < 0) return -1;
    if (wk__tensor_requires_grad(self)) {
        wk__error(WK_RUNTIME_ERROR, "cannot resize variables that require grad");
        return -1;
    }
    if (n > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, n);
        return -1;
    }
    int64_t numel;
    if (wk__numel_checked(n, sizes, &numel) < 0) return -1;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) { /* torch lets [0, -1] through; wick keeps sizes non-negative */
            wk_strbuf b = {0};
            wk_sb_ints(&b, sizes, n);
            wk__error(WK_RUNTIME_ERROR, "Trying to create tensor with negative dimension %lld: %s", (long long)sizes[i],
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
    }
    if (n == self->ndim && !memcmp(sizes, self->sizes, sizeof(int64_t) * (size_t)n)) return 0; /* strides kept */
    int64_t bytes;
    if (numel && wk__storage_nbytes(n, sizes, NULL, self->offset, wk_dtype_size(self->dtype), &bytes) < 0) return -1;
    if (numel && wk__storage_grow(self->storage, (size_t)bytes) < 0) return -1;
    self->ndim = n;
    if (n) memcpy(self->sizes, sizes, sizeof(int64_t) * (size_t)n);
    wk__contiguous_strides(n, sizes, self->strides);
    wk__bump_version(self);
    return 0;
}

wk_tensor *wk_impl_resize_(wk_tensor *self, wk_intlist size) {
    if (size.len > WK_MAX_DIM)
        return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %lld", WK_MAX_DIM,
                       (long long)size.len);
    if (resize_to(self, (int)size.len, size.data) < 0) return NULL;
    return wk_retain(self);
}

wk_tensor *wk_impl_resize_as_(wk_tensor *self, wk_tensor *the_template) {
    if (resize_to(self, the_template->ndim, the_template->sizes) < 0) return NULL;
    return wk_retain(self);
}

/* ---- as_strided_: the view computed out of place (recording AsStridedBackward1), its geometry and history moved
 * into self (Note [In-place metadata ops] in shape.c) ---------------------------------------------------------------- */
wk_tensor *wk_impl_as_strided_(wk_tensor *self, wk_intlist size, wk_intlist stride, wk_optint storage_offset) {
    if (wk__check_inplace(self) < 0) return NULL;
    wk_tensor *r = wk__as_strided_meta(self, size, stride, storage_offset);
    if (!r) return NULL;
    self->ndim = r->ndim;
    memcpy(self->sizes, r->sizes, sizeof self->sizes);
    memcpy(self->strides, r->strides, sizeof self->strides);
    self->offset = r->offset;
    wk__bump_version(self);
    if (r->grad_fn) wk__set_history(self, r->grad_fn, r->output_nr); /* after the bump: a view stays fresh */
    wk_release(r);
    return wk_retain(self);
}

/* ---- fill_diagonal_: torch's composite: fill_ on an as_strided view of the diagonal (and of its wrapped
 * continuation for tall matrices), so the history is a CopySlices as in torch ------------------------------------ */
static int fill_strided(wk_tensor *self, int64_t size, int64_t stride, int64_t offset, wk_scalar v) {
    wk_tensor *d = wk_as_strided(self, wk_ints(&size, 1), wk_ints(&stride, 1), wk_some(offset));
    if (!d) return -1;
    wk_tensor *r = wk_fill_Scalar_(d, v);
    wk_release(d);
    if (!r) return -1;
    wk_release(r);
    return 0;
}

wk_tensor *wk_impl_fill_diagonal_(wk_tensor *self, wk_scalar fill_value, bool wrap) {
    int nd = self->ndim;
    if (nd < 2) return WK_FAIL(WK_RUNTIME_ERROR, "dimensions must larger than 1");
    int64_t height = self->sizes[0], width = self->sizes[1];
    if (nd > 2)
        for (int i = 1; i < nd; i++)
            if (self->sizes[i] != height) return WK_FAIL(WK_RUNTIME_ERROR, "all dimensions of input must be of equal length");
    int64_t size = height < width ? height : width, stride = 0;
    for (int i = 0; i < nd; i++) stride += self->strides[i];
    if (fill_strided(self, size, stride, self->offset, fill_value) < 0) return NULL;
    if (wrap && nd == 2 && height > width + 1) {
        int64_t step = width + 1;
        int64_t wrap_size = (wk__numel(self) + step - 1) / step - size;
        if (fill_strided(self, wrap_size, stride, self->offset + self->strides[0] * (width + 1), fill_value) < 0)
            return NULL;
    }
    return wk_retain(self);
}

/* ---- elementwise maths ------------------------------------------------------------------------------------------ */
static wk_tensor *same_dtype_binary(const char *name, wk_tensor *self, wk_tensor *other, const wk_loop_fn *table) {
    wk_dtype dt = wk__result_type2(self, other);
    return wk__binary_op(name, self, other, dt, dt, table, NULL);
}

/* heaviside: values where self == 0, else (self > 0); NaN gives 0 */
WK_BINARY_FLOAT(heaviside_k, void, a == 0 ? b : (a > 0))
WK_BINARY_INT(heaviside_k, void, a == 0 ? b : (a > 0))
WK_BINARY_BOOL(heaviside_k, void, a == 0 ? b : (a > 0))
static const wk_loop_fn HEAVISIDE[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(heaviside_k), WK_TABLE_INT(heaviside_k),
                                                    WK_TABLE_BOOL(heaviside_k)};
#define HEAVISIDE_DTYPES "heaviside is not yet implemented for tensors with different dtypes."
int wk__heaviside_out_check(const wk_tensor *out, const wk_tensor *result) { /* out= too must have the inputs' dtype */
    return out->dtype == result->dtype ? 0 : (wk__error(WK_RUNTIME_ERROR, HEAVISIDE_DTYPES), -1);
}
wk_tensor *wk_impl_heaviside(wk_tensor *self, wk_tensor *values) {
    if (self->dtype != values->dtype) return WK_FAIL(WK_RUNTIME_ERROR, HEAVISIDE_DTYPES);
    return same_dtype_binary("heaviside", self, values, HEAVISIDE);
}

/* gcd / lcm in the storage type T, as torch's calc_gcd (so int8 -128 stays -128 and signs come out as torch's);
 * x % -1 is 0 (no INT_MIN / -1 trap), magnitudes wrap */
#define ABS_S(T, a) ((a) < 0 ? (T)(0 - (uint64_t)(a)) : (a))
#define ABS_U(T, a) (a)
#define GCD_LCM(SUF, T, ABS)                                                                                         \
    static inline T abs_##SUF(T a) { return ABS(T, a); }                                \
    static inline T gcd_##SUF(T a, T b) {                                                                      \
        a = abs_##SUF(a);                                                                                      \
        b = abs_##SUF(b);                                                                                      \
        while (a != 0) {                                                                                       \
            T c = a;                                                                                           \
            a = a == (T)-1 ? 0 : (T)(b % a);                                                                   \
            b = c;                                                                                             \
        }                                                                                                      \
        return b;                                                                                              \
    }                                                                                                          \
    static inline T lcm_##SUF(T a, T b) {                                                                      \
        T g = gcd_##SUF(a, b);                                                                                 \
        if (g == 0) return 0;                                                                                  \
        int64_t q = g == (T)-1 ? (int64_t)(0 - (uint64_t)(int64_t)a) : (int64_t)a / (int64_t)g;                \
        return abs_##SUF((T)(uint64_t)((uint64_t)q * (uint64_t)(int64_t)b));                                  \
    }
GCD_LCM(u8, uint8_t, ABS_U)
GCD_LCM(i8, int8_t, ABS_S)
GCD_LCM(i16, int16_t, ABS_S)
GCD_LCM(i32, int32_t, ABS_S)
GCD_LCM(i64, int64_t, ABS_S)
#define GL_LOOPS(OP)                                                                                           \
    WK_BINARY_LOOP_(OP##_k_UINT8, uint8_t, uint8_t, uint8_t, WK_LD_ID, WK_ST_ID, void, OP##_u8(a, b))        \
    WK_BINARY_LOOP_(OP##_k_INT8, int8_t, int8_t, int8_t, WK_LD_ID, WK_ST_ID, void, OP##_i8(a, b))            \
    WK_BINARY_LOOP_(OP##_k_INT16, int16_t, int16_t, int16_t, WK_LD_ID, WK_ST_ID, void, OP##_i16(a, b))       \
    WK_BINARY_LOOP_(OP##_k_INT32, int32_t, int32_t, int32_t, WK_LD_ID, WK_ST_ID, void, OP##_i32(a, b))       \
    WK_BINARY_LOOP_(OP##_k_INT64, int64_t, int64_t, int64_t, WK_LD_ID, WK_ST_ID, void, OP##_i64(a, b))
GL_LOOPS(gcd)
GL_LOOPS(lcm)
static const wk_loop_fn GCD[WK_NUM_DTYPES] = {WK_TABLE_INT(gcd_k)};
static const wk_loop_fn LCM[WK_NUM_DTYPES] = {WK_TABLE_INT(lcm_k)};
wk_tensor *wk_impl_gcd(wk_tensor *self, wk_tensor *other) { return same_dtype_binary("gcd_cpu", self, other, GCD); }
wk_tensor *wk_impl_lcm(wk_tensor *self, wk_tensor *other) { return same_dtype_binary("lcm_cpu", self, other, LCM); }

/* nextafter: libm for float/double; half and bfloat16 step their own bit patterns (c10::nextafter) */
static inline uint16_t next16(uint16_t a, uint16_t b, float fa, float fb, uint16_t nan_bits) {
    if (isnan(fa) || isnan(fb)) return nan_bits;
    if (fa == fb) return b;
    if (fa == 0) return (uint16_t)((b & 0x8000) | 1);
    return (fa < fb) == (fa > 0) ? (uint16_t)(a + 1) : (uint16_t)(a - 1);
}
#define WK_LD_RAW(p) (p)
WK_BINARY_LOOP_(nextafter_k_FLOAT32, float, float, float, WK_LD_ID, WK_ST_ID, void, nextafterf(a, b))
WK_BINARY_LOOP_(nextafter_k_FLOAT64, double, double, double, WK_LD_ID, WK_ST_ID, void, nextafter(a, b))
WK_BINARY_LOOP_(nextafter_k_FLOAT16, uint16_t, uint16_t, uint16_t, WK_LD_RAW, WK_ST_ID, void,
                next16(a, b, wk__half_to_float(a), wk__half_to_float(b), 0x7E00))
WK_BINARY_LOOP_(nextafter_k_BFLOAT16, uint16_t, uint16_t, uint16_t, WK_LD_RAW, WK_ST_ID, void,
                next16(a, b, wk__bf16_to_float(a), wk__bf16_to_float(b), 0x7FC0))
static const wk_loop_fn NEXTAFTER[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(nextafter_k)};
wk_tensor *wk_impl_nextafter(wk_tensor *self, wk_tensor *other) {
    return same_dtype_binary("nextafter_cpu", self, other, NEXTAFTER);
}

/* ldexp: self * 2^other in the promoted float dtype */
WK_BINARY_FLOAT(ldexp_k, void, a * exp2(b))
static const wk_loop_fn LDEXP[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(ldexp_k)};
wk_tensor *wk_impl_ldexp(wk_tensor *self, wk_tensor *other) {
    if (other->dtype == WK_BOOL) {
        wk__not_implemented_for("ldexp_cpu_exp", WK_BOOL);
        return NULL;
    }
    wk_dtype dt = wk__float_op_dtype(wk__result_type2(self, other));
    return wk__binary_op("ldexp", self, other, dt, dt, LDEXP, NULL);
}

int wk_impl__ldexp_inplace_check(wk_tensor *self, bool *result) {
    *result = true;
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "ldexp can't be cast to the desired output type %s", wk_dtype_scalar_name(self->dtype));
        return -1;
    }
    return 0;
}

/* frexp: mantissa (self's dtype) and exponent (int32), explicit strided loop over a contiguous copy */
int wk_impl_frexp(wk_tensor *self, wk_tensor **outs) {
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "torch.frexp() only supports floating-point dtypes");
        return -1;
    }
    wk_tensor *x = wk__contiguous(self);
    wk_tensor *m = x ? wk__empty(self->ndim, self->sizes, self->dtype) : NULL;
    wk_tensor *e = m ? wk__empty(self->ndim, self->sizes, WK_INT32) : NULL;
    if (!e) {
        wk_release(x);
        wk_release(m);
        return -1;
    }
    int64_t n = wk__numel(self);
    const char *px = wk__data(x); /* [n] input */
    char *pm = wk__data(m);       /* [n] mantissa */
    int32_t *pe = (int32_t *)wk__data(e); /* [n] exponent */
    size_t esz = wk_dtype_size(self->dtype);
    for (int64_t i = 0; i < n; i++) {
        double v = wk__load_double(px + (size_t)i * esz, self->dtype);
        int ex = 0;
        double mant = isfinite(v) ? frexp(v, &ex) : v;
        pe[i] = isfinite(v) ? ex : 0;
        wk__store_scalar(pm + (size_t)i * esz, self->dtype, wk_float(mant));
    }
    wk_release(x);
    outs[0] = m;
    outs[1] = e;
    return 0;
}

/* i0 / i1: their power series (positive terms: no cancellation), summed in double */
static double calc_i0(double x) {
    if (isnan(x)) return x;
    double q = x * x / 4, t = 1, s = 1;
    for (int k = 1; k < 2000; k++) {
        t *= q / ((double)k * k);
        s += t;
        if (t <= s * 1e-17 && k > x / 2) break;
        if (isinf(s)) break;
    }
    return s;
}
static double calc_i1(double x) {
    if (isnan(x)) return x;
    double q = x * x / 4, t = x / 2, s = t;
    for (int k = 1; k < 2000; k++) {
        t *= q / ((double)k * (k + 1));
        s += t;
        if (fabs(t) <= fabs(s) * 1e-17 && k > fabs(x) / 2) break;
        if (isinf(s)) break;
    }
    return s;
}
/* torch's Cephes form exp(|x|) * chbevl(...) / sqrt(|x|) overflows once exp does in the compute type */
#define EXP_OVERFLOWS(x) (sizeof(x) == sizeof(float) ? isinf(expf((float)fabs(x))) : isinf(exp(fabs((double)(x)))))
WK_UNARY_FLOAT(i0_k, void, isinf(x) ? NAN : EXP_OVERFLOWS(x) ? INFINITY : calc_i0(x))
WK_UNARY_FLOAT(i1_k, void, isinf(x) ? NAN : EXP_OVERFLOWS(x) ? copysign(INFINITY, x) : calc_i1(x))
static const wk_loop_fn I0[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(i0_k)};
static const wk_loop_fn I1[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(i1_k)};
wk_tensor *wk_impl_i0(wk_tensor *self) {
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__unary_op("i0", self, dt, dt, I0, NULL);
}
wk_tensor *wk_impl__i1(wk_tensor *self) {
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__unary_op("i1", self, dt, dt, I1, NULL);
}
/* d i1 / dx = i0(x) - i1(x) / x, and 1/2 at 0 */
WK_BINARY_FLOAT(i1_grad_k, void, a == 0 ? 0.5 : calc_i0(a) - b / a)
static const wk_loop_fn I1_GRAD[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(i1_grad_k)};
wk_tensor *wk_impl__i1_grad(wk_tensor *self, wk_tensor *result) {
    wk_dtype dt = wk__float_op_dtype(self->dtype);
    return wk__binary_op("i1", self, result, dt, dt, I1_GRAD, NULL);
}

/* ---- linalg.cross / cross ----------------------------------------------------------------------------------------
 * Both inputs are broadcast to one shape and made contiguous; with `outer` the product of the sizes before dim and
 * `inner` after it, element k (0..2) of a vector sits at o * 3 * inner + k * inner + i. */
#define CROSS_LOOP(T, CT)                                                                                    \
    do {                                                                                                     \
        const T *x = (const T *)wk__data(a), *y = (const T *)wk__data(b);                                    \
        T *z = (T *)wk__data(r);                                                                             \
        for (int64_t o = 0; o < outer; o++)                                                                  \
            for (int64_t i = 0; i < inner; i++) {                                                            \
                int64_t p0 = o * 3 * inner + i, p1 = p0 + inner, p2 = p1 + inner;                            \
                CT x0 = (CT)x[p0], x1 = (CT)x[p1], x2 = (CT)x[p2], y0 = (CT)y[p0], y1 = (CT)y[p1], y2 = (CT)y[p2]; \
                z[p0] = (T)(x1 * y2 - x2 * y1);                                                              \
                z[p1] = (T)(x2 * y0 - x0 * y2);                                                              \
                z[p2] = (T)(x0 * y1 - x1 * y0);                                                              \
            }                                                                                                \
    } while (0)

wk_tensor *wk_impl_linalg_cross(wk_tensor *self, wk_tensor *other, int64_t dim) {
    if (self->ndim != other->ndim)
        return WK_FAIL(WK_RUNTIME_ERROR, "linalg.cross: inputs must have the same number of dimensions.");
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    if (self->sizes[d] != 3 || other->sizes[d] != 3)
        return WK_FAIL(WK_RUNTIME_ERROR, "linalg.cross: inputs dimension %lld must have length 3. Got %lld and %lld",
                       (long long)dim, (long long)self->sizes[d], (long long)other->sizes[d]);
    if (self->dtype != other->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(self->dtype),
                       wk_dtype_scalar_name(other->dtype));
    if (self->dtype == WK_BOOL) {
        wk__not_implemented_for("cross", WK_BOOL);
        return NULL;
    }
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(self->ndim, self->sizes, other->ndim, other->sizes, &nd, shape) < 0) return NULL;
    wk_tensor *ea = wk__expand_to(self, nd, shape), *eb = ea ? wk__expand_to(other, nd, shape) : NULL;
    wk_tensor *a = eb ? wk__contiguous(ea) : NULL, *b = a ? wk__contiguous(eb) : NULL;
    wk_tensor *r = b ? wk__empty(nd, shape, self->dtype) : NULL;
    wk_release(ea);
    wk_release(eb);
    if (r) {
        int64_t outer = wk__prod(shape, (int)d), inner = wk__prod(shape + d + 1, nd - (int)d - 1);
        switch (self->dtype) {
        case WK_FLOAT32: CROSS_LOOP(float, float); break;
        case WK_FLOAT64: CROSS_LOOP(double, double); break;
        case WK_UINT8: CROSS_LOOP(uint8_t, uint64_t); break;
        case WK_INT8: CROSS_LOOP(int8_t, uint64_t); break;
        case WK_INT16: CROSS_LOOP(int16_t, uint64_t); break;
        case WK_INT32: CROSS_LOOP(int32_t, uint64_t); break;
        case WK_INT64: CROSS_LOOP(int64_t, uint64_t); break;
        default: { /* half, bfloat16: each product rounded to the storage type, as torch's scalar_t arithmetic */
            size_t es = wk_dtype_size(self->dtype);
            const char *x = wk__data(a), *y = wk__data(b);
            char *z = wk__data(r);
            wk_dtype dt = self->dtype;
#define LD(p, k) wk__load_double((p) + (size_t)(k) * es, dt)
#define RND(v) wk__load_double((wk__store_scalar(tmp, dt, wk_float(v)), tmp), dt)
            uint16_t tmp[1];
            for (int64_t o = 0; o < outer; o++)
                for (int64_t i = 0; i < inner; i++) {
                    int64_t p[3] = {o * 3 * inner + i, o * 3 * inner + i + inner, o * 3 * inner + i + 2 * inner};
                    for (int k = 0; k < 3; k++) {
                        int64_t u = p[(k + 1) % 3], v = p[(k + 2) % 3];
                        double val = RND(RND(LD(x, u) * LD(y, v)) - RND(LD(x, v) * LD(y, u)));
                        wk__store_scalar(z + (size_t)p[k] * es, dt, wk_float(val));
                    }
                }
#undef LD
#undef RND
        }
        }
    }
    wk_release(a);
    wk_release(b);
    return r;
}

/* torch.cross: dim None takes the first dim of size 3 (with torch's deprecation warning) */
wk_tensor *wk_impl_cross(wk_tensor *self, wk_tensor *other, wk_optint dim) {
    int64_t d = 0;
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (dim.has) d = dim.v;
    else {
        if (!warned) wk__warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
                 "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
                 "linalg.cross in a future release.");
        warned = true;
        for (d = 0; d < self->ndim && self->sizes[d] != 3; d++) {}
        if (d == self->ndim) return WK_FAIL(WK_RUNTIME_ERROR, "no dimension of size 3 in input");
    }
    return wk_linalg_cross(self, other, d);
}

/* ---- diff: n rounds of narrow(1, len-1) - narrow(0, len-1) (logical_xor for bool), after cat(prepend, self,
 * append); composed of recorded ops, so the history is torch's (SubBackward0 over SliceBackward0) -------------- */
wk_tensor *wk_impl_diff(wk_tensor *self, int64_t n, int64_t dim, wk_tensor *prepend, wk_tensor *append) {
    if (self->ndim < 1) return WK_FAIL(WK_RUNTIME_ERROR, "diff expects input to be at least one-dimensional");
    if (n < 0) return WK_FAIL(WK_RUNTIME_ERROR, "order must be non-negative but got %lld", (long long)n);
    if ((prepend && prepend->ndim != self->ndim) || (append && append->ndim != self->ndim))
        return WK_FAIL(WK_RUNTIME_ERROR, "diff expects prepend or append to be the same dimension as input");
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    const wk_tensor *pa[2] = {prepend, append};
    for (int k = 0; k < 2; k++)
        for (int i = 0; pa[k] && i < self->ndim; i++)
            if (i != d && pa[k]->sizes[i] != self->sizes[i])
                return WK_FAIL(WK_RUNTIME_ERROR, "diff expects the shape of tensor to prepend or append to match that of "
                                                 "input except along the differencing dimension; input.size(%d) = %lld, "
                                                 "but got tensor.size(%d) = %lld", i, (long long)self->sizes[i], i,
                               (long long)pa[k]->sizes[i]);
    if (n == 0) { /* torch: zeros_like(self).copy_(self) */
        wk_tensor *z = wk_zeros_like(self, WK_DTYPE_NONE, false);
        wk_tensor *r = z ? wk_copy_(z, self, false) : NULL;
        wk_release(r);
        if (!r) {
            wk_release(z);
            return NULL;
        }
        return z;
    }
    wk_tensor *cur;
    if (prepend || append) {
        wk_tensor *parts[3];
        int k = 0;
        if (prepend) parts[k++] = prepend;
        parts[k++] = self;
        if (append) parts[k++] = append;
        wk_tensorlist l = {parts, k};
        cur = wk_cat(l, d);
        if (!cur) return NULL;
    } else cur = wk_retain(self);
    int64_t len = cur->sizes[d];
    if (n > len) n = len;
    for (int64_t i = 0; i < n; i++, len--) {
        wk_tensor *hi = wk_narrow(cur, d, 1, len - 1), *lo = hi ? wk_narrow(cur, d, 0, len - 1) : NULL;
        wk_tensor *next = NULL;
        if (lo) next = cur->dtype == WK_BOOL ? wk_logical_xor(hi, lo) : wk_sub(hi, lo, wk_int(1));
        wk_release(hi);
        wk_release(lo);
        wk_release(cur);
        if (!next) return NULL;
        cur = next;
    }
    return cur;
}

/* ---- addr: beta * self + alpha * outer(vec1, vec2), one ternary pass over self (expanded to [n, m]), vec1 as
 * [n, 1] and vec2 as [1, m]. beta == 0 ignores self (NaN included), as torch. ------------------------------------ */
static int scalar_arg_check(const char *what, wk_dtype dt, wk_scalar s) {
    if (s.tag == WK_SCALAR_FLOAT && !wk_dtype_is_floating(dt)) {
        wk__error(WK_RUNTIME_ERROR, "For integral input tensors, argument %s must not be a floating point number.", what);
        return -1;
    }
    if (s.tag == WK_SCALAR_BOOL && dt != WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "Boolean %s only supported for Boolean results.", what);
        return -1;
    }
    return 0;
}
/* ctx: f / i = beta, f2 / i2 = alpha */
WK_TERNARY_FLOAT(addr_k, wk_scalar_ctx, C->f == 0 ? C->f2 * (b * c) : C->f * a + C->f2 * (b * c))
WK_TERNARY_INT(addr_k, wk_scalar_ctx, (int64_t)((C->i == 0 ? 0 : (uint64_t)C->i * (uint64_t)a) +
                                                 (uint64_t)C->i2 * ((uint64_t)b * (uint64_t)c)))
WK_TERNARY_LOOP_(addr_k_BOOL, uint8_t, int64_t, WK_LD_I, WK_ST_B, wk_scalar_ctx, (C->i && a) || (C->i2 && b && c))
static const wk_loop_fn ADDR[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(addr_k), WK_TABLE_INT(addr_k), WK_TABLE_BOOL(addr_k)};

static int addr_vec_check(const wk_tensor *v, const char *name) {
    if (v->ndim != 1) {
        wk__error(WK_RUNTIME_ERROR, "addr: Expected 1-D argument %s, but got %d-D", name, v->ndim);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_addr(wk_tensor *self, wk_tensor *vec1, wk_tensor *vec2, wk_scalar beta, wk_scalar alpha) {
    if (addr_vec_check(vec1, "vec1") < 0 || addr_vec_check(vec2, "vec2") < 0) return NULL;
    wk_dtype dt = wk__result_type3(self, vec1, vec2);
    if (scalar_arg_check("beta", dt, beta) < 0 || scalar_arg_check("alpha", dt, alpha) < 0) return NULL;
    int64_t nm[2] = {vec1->sizes[0], vec2->sizes[0]};
    wk_tensor *s = wk__expand_to(self, 2, nm);
    if (!s) return NULL;
    int64_t st1[2] = {vec1->strides[0], 0}, st2[2] = {0, vec2->strides[0]};
    wk_tensor *a = wk__alias(vec1, 2, nm, st1, vec1->offset), *b = a ? wk__alias(vec2, 2, nm, st2, vec2->offset) : NULL;
    wk_scalar_ctx c = {.f = wk__scalar_to_double(beta), .i = wk__scalar_to_int(beta), .f2 = wk__scalar_to_double(alpha),
                       .i2 = wk__scalar_to_int(alpha)};
    wk_tensor *r = b ? wk__ternary_op("addr", s, a, b, dt, dt, ADDR, &c) : NULL;
    wk_release(s);
    wk_release(a);
    wk_release(b);
    return r;
}

int wk_impl__addr_inplace_check(wk_tensor *self, wk_tensor *vec1, wk_tensor *vec2, bool *result) {
    *result = true;
    if (addr_vec_check(vec1, "vec1") < 0 || addr_vec_check(vec2, "vec2") < 0) return -1;
    if (self->ndim != 2 || self->sizes[0] != vec1->sizes[0] || self->sizes[1] != vec2->sizes[0]) {
        wk_strbuf b = {0};
        wk_sb_puts(&b, "size mismatch, input: ");
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk_sb_puts(&b, ", v1: ");
        wk_sb_ints(&b, vec1->sizes, 1);
        wk_sb_puts(&b, ", v2: ");
        wk_sb_ints(&b, vec2->sizes, 1);
        wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : "size mismatch");
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

/* ---- dist: the p-norm of self - other (torch: at::norm(self - other, p)) ---------------------------------------- */
wk_tensor *wk_impl_dist(wk_tensor *self, wk_tensor *other, wk_scalar p) {
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *d = wk_sub(self, other, wk_int(1)), *r = NULL;
    if (d && !wk_dtype_is_floating(d->dtype))
        wk__error(WK_RUNTIME_ERROR, "norm(): input dtype should be either floating point or complex. Got %s instead.",
                  wk_dtype_scalar_name(d->dtype));
    else if (d) r = wk_linalg_vector_norm(d, p, wk_none_ints(), false, WK_DTYPE_NONE);
    wk_set_grad_enabled(prev);
    wk_release(d);
    return r;
}

/* ---- searching: values as keys (float dtypes as double, integral as int64: both exact), contiguous ------------- */
typedef struct {
    wk_tensor *t;      /* the contiguous key tensor (FLOAT64 or INT64) */
    const double *f;   /* [numel] when floating */
    const int64_t *i;  /* [numel] when integral */
    bool fl;           /* floating keys (f / i may both be NULL when empty) */
} keys;

static int keys_of(const wk_tensor *t, wk_dtype common, keys *k) {
    wk_dtype kd = wk_dtype_is_floating(common) ? WK_FLOAT64 : WK_INT64;
    wk_tensor *c = wk__to_dtype(t, common); /* round to the common dtype first (as torch's comparison dtype) */
    wk_tensor *d = c ? wk__to_dtype(c, kd) : NULL;
    wk_release(c);
    k->t = d ? wk__contiguous(d) : NULL;
    wk_release(d);
    if (!k->t) return -1;
    k->fl = kd == WK_FLOAT64;
    k->f = kd == WK_FLOAT64 ? (const double *)wk__data(k->t) : NULL;
    k->i = kd == WK_INT64 ? (const int64_t *)wk__data(k->t) : NULL;
    return 0;
}

/* first position in bd[0..n) (through sorter when given) whose value is >= v (right: > v); torch's !(mid >= v) */
#define BOUND(KEYS, V)                                                                                       \
    do {                                                                                                     \
        int64_t lo = 0, hi = n;                                                                              \
        while (lo < hi) {                                                                                    \
            int64_t mid = lo + ((hi - lo) >> 1);                                                             \
            int64_t at = srt ? srt[mid] : mid;                                                               \
            bool go = right ? !((KEYS)[at] > (V)) : !((KEYS)[at] >= (V));                     \
            if (go) lo = mid + 1;                                                                            \
            else hi = mid;                                                                                   \
        }                                                                                                    \
        pos = lo;                                                                                            \
    } while (0)

/* torch's searchsorted_pre_check, in its order; `out` (NULL without out=) must be int32 / int64 as out_int32 says */
static int search_check(wk_tensor *bd, wk_tensor *self, bool out_int32, bool right, const char *side,
                        wk_tensor *sorter, const wk_tensor *out) {
    if (side && strcmp(side, "left") && strcmp(side, "right"))
        return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", side), -1;
    if (side && right && !strcmp(side, "left"))
        return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): side and right can't be set to opposites, got side of "
                                         "left while right was True"), -1;
    if (sorter && (sorter->ndim != bd->ndim || memcmp(sorter->sizes, bd->sizes, sizeof(int64_t) * (size_t)bd->ndim))) {
        wk_strbuf b = {0};
        wk_sb_puts(&b, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ");
        wk_sb_ints(&b, bd->sizes, bd->ndim);
        wk_sb_puts(&b, "and got sorter tensor ");
        wk_sb_ints(&b, sorter->sizes, sorter->ndim);
        wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if (sorter && sorter->dtype != WK_INT64)
        return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s",
                       wk_dtype_scalar_name(sorter->dtype)), -1;
    if (sorter && wk__numel(sorter) > 0) {
        keys ks = {0};
        if (keys_of(sorter, WK_INT64, &ks) < 0) return -1;
        int64_t last = sorter->sizes[sorter->ndim - 1], bad = 0;
        for (int64_t k = 0; k < wk__numel(sorter); k++) bad |= ks.i[k] < 0 || ks.i[k] >= last;
        wk_release(ks.t);
        if (bad) return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): sorter index out of range"), -1;
    }
    if (self->ndim == 0 && bd->ndim != 1)
        return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                                         "dimension is 1, but we got boundaries tensor dim(%d) and input value's dim(0) "
                                         "numel(1)", bd->ndim), -1;
    if (bd->ndim == 0)
        return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): boundaries tensor should have positive dimension, but got "
                                         "0 dimension"), -1;
    if (bd->ndim != 1 && (bd->ndim != self->ndim ||
                          memcmp(bd->sizes, self->sizes, sizeof(int64_t) * (size_t)(bd->ndim - 1)))) {
        wk_strbuf b = {0};
        wk_sb_puts(&b, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                       "boundaries tensor and input value tensor must match, but we got boundaries tensor ");
        wk_sb_ints(&b, bd->sizes, bd->ndim);
        wk_sb_puts(&b, " and input value tensor ");
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if (out && out->dtype != (out_int32 ? WK_INT32 : WK_INT64))
        return wk__error(WK_RUNTIME_ERROR, "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
                                         "or Long(int64) depending on whether out_int32 flag is True, but we got output "
                                         "tensor's dtype %s and out_int32 flag is %s", wk_dtype_scalar_name(out->dtype),
                       out_int32 ? "True" : "False"), -1;
    return 0;
}

static wk_tensor *search(wk_tensor *bd, wk_tensor *self, bool out_int32, bool right, const char *side,
                         wk_tensor *sorter, const wk_tensor *out_arg) {
    if (search_check(bd, self, out_int32, right, side, sorter, out_arg) < 0) return NULL;
    if (side) right = !strcmp(side, "right");
    wk_tensor *r = wk__empty(self->ndim, self->sizes, out_int32 ? WK_INT32 : WK_INT64);
    int64_t nv = wk__numel(self);
    if (!r || nv == 0) return r; /* before the kernel's dtype dispatch, as torch */
    /* torch copies non-contiguous inputs, saying so once per program (searchsorted_maybe_trim_input_tensors) */
    static bool warned[3]; /* TORCH_WARN_ONCE: input value, boundary, sorter */
    const wk_tensor *nc[3] = {self, bd, sorter};
    static const char *what[3] = {"input value", "boundary", "sorter"};
    bool trim = !wk__is_contiguous(self) || !wk__is_contiguous(bd) || bd->dtype != self->dtype ||
                (sorter && !wk__is_contiguous(sorter));
    for (int i = 0; i < 3 && trim; i++)
        if (nc[i] && !wk__is_contiguous(nc[i]) && !warned[i]) {
            warned[i] = true;
            wk__warn("torch.searchsorted(): %s tensor is non-contiguous, this will lower the performance due to extra data "
                     "copy when converting non-contiguous tensor to contiguous, please use contiguous %s tensor if "
                     "possible. This message will only appear once per program.", what[i], what[i]);
        }
    wk_dtype common = wk__result_type2(bd, self);
    if (common == WK_BOOL) {
        wk_release(r);
        wk__not_implemented_for("searchsorted_out_cpu", WK_BOOL);
        return NULL;
    }
    keys kb = {0}, kv = {0}, ks = {0};
    if (keys_of(bd, common, &kb) < 0 || keys_of(self, common, &kv) < 0 || (sorter && keys_of(sorter, WK_INT64, &ks) < 0)) {
        wk_release(r);
        r = NULL;
        goto done;
    }
    int64_t n = bd->sizes[bd->ndim - 1];                       /* boundaries per row */
    int64_t m = self->ndim ? self->sizes[self->ndim - 1] : 1; /* values per row */
    const int64_t *sall = sorter ? ks.i : NULL;               /* [rows, n] sorter */
    char *out = wk__data(r);
    for (int64_t k = 0; k < nv; k++) {
        int64_t base = bd->ndim == 1 ? 0 : (k / m) * n, pos; /* the row of boundaries value k searches */
        const int64_t *srt = sall ? sall + base : NULL;
        if (kb.fl) BOUND(kb.f + base, kv.f[k]);
        else BOUND(kb.i + base, kv.i[k]);
        if (out_int32) ((int32_t *)out)[k] = (int32_t)pos;
        else ((int64_t *)out)[k] = pos;
    }
done:
    wk_release(kb.t);
    wk_release(kv.t);
    wk_release(ks.t);
    return r;
}

/* out= of the searches: the result checked against out inside the op's own checks, then written into it */
static wk_tensor *write_result(wk_tensor *out, wk_tensor *r) {
    if (!r) return NULL;
    int rc = wk__write_out(out, r);
    wk_release(r);
    return rc < 0 ? NULL : wk_retain(out);
}

wk_tensor *wk_impl_searchsorted(wk_tensor *sorted_sequence, wk_tensor *self, bool out_int32, bool right,
                                const char *side, wk_tensor *sorter) {
    return search(sorted_sequence, self, out_int32, right, side, sorter, NULL);
}
wk_tensor *wk_impl_searchsorted_out(wk_tensor *out, wk_tensor *sorted_sequence, wk_tensor *self, bool out_int32,
                                    bool right, const char *side, wk_tensor *sorter) {
    return write_result(out, search(sorted_sequence, self, out_int32, right, side, sorter, out));
}
static wk_tensor *searchsorted_scalar(wk_tensor *sorted_sequence, wk_scalar self, bool out_int32, bool right,
                                      const char *side, wk_tensor *sorter, const wk_tensor *out) {
    wk_tensor *v = wk_scalar_tensor_new(self, wk__scalar_dtype(self));
    if (!v) return NULL;
    wk_tensor *r = search(sorted_sequence, v, out_int32, right, side, sorter, out);
    wk_release(v);
    return r;
}
wk_tensor *wk_impl_searchsorted_Scalar(wk_tensor *sorted_sequence, wk_scalar self, bool out_int32, bool right,
                                       const char *side, wk_tensor *sorter) {
    return searchsorted_scalar(sorted_sequence, self, out_int32, right, side, sorter, NULL);
}
wk_tensor *wk_impl_searchsorted_Scalar_out(wk_tensor *out, wk_tensor *sorted_sequence, wk_scalar self, bool out_int32,
                                           bool right, const char *side, wk_tensor *sorter) {
    return write_result(out, searchsorted_scalar(sorted_sequence, self, out_int32, right, side, sorter, out));
}
static wk_tensor *bucketize_impl(wk_tensor *self, wk_tensor *boundaries, bool out_int32, bool right, const wk_tensor *out) {
    if (boundaries->ndim != 1)
        return WK_FAIL(WK_RUNTIME_ERROR, "boundaries tensor must be 1 dimension, but got dim(%d)", boundaries->ndim);
    return search(boundaries, self, out_int32, right, NULL, NULL, out);
}
wk_tensor *wk_impl_bucketize(wk_tensor *self, wk_tensor *boundaries, bool out_int32, bool right) {
    return bucketize_impl(self, boundaries, out_int32, right, NULL);
}
wk_tensor *wk_impl_bucketize_out(wk_tensor *out, wk_tensor *self, wk_tensor *boundaries, bool out_int32, bool right) {
    return write_result(out, bucketize_impl(self, boundaries, out_int32, right, out));
}
wk_tensor *wk_impl_bucketize_Scalar(wk_scalar self, wk_tensor *boundaries, bool out_int32, bool right) {
    wk_tensor *v = wk_scalar_tensor_new(self, wk__scalar_dtype(self));
    if (!v) return NULL;
    wk_tensor *r = wk_impl_bucketize(v, boundaries, out_int32, right);
    wk_release(v);
    return r;
}

/* ---- bincount: counts (int64) or summed weights (float32 weights: float32, others: float64) ------------------- */
wk_tensor *wk_impl_bincount(wk_tensor *self, wk_tensor *weights, int64_t minlength) {
    if (!wk_dtype_is_integral(self->dtype, false)) {
        wk__not_implemented_for("bincount_cpu", self->dtype);
        return NULL;
    }
    if (minlength < 0) return WK_FAIL(WK_RUNTIME_ERROR, "minlength should be >= 0");
    if (self->ndim == 1 && self->sizes[0] == 0) return wk__zeros(1, &minlength, WK_INT64);
    keys kx = {0};
    if (self->ndim != 1 || keys_of(self, self->dtype, &kx) < 0) {
        if (self->ndim != 1) wk__error(WK_RUNTIME_ERROR, "bincount only supports 1-d non-negative integral inputs.");
        return NULL;
    }
    int64_t n = self->sizes[0], nbins = minlength;
    const int64_t *x = kx.i; /* [n] the values */
    for (int64_t k = 0; k < n; k++) {
        if (x[k] < 0) {
            wk_release(kx.t);
            return WK_FAIL(WK_RUNTIME_ERROR, "bincount only supports 1-d non-negative integral inputs.");
        }
        if (x[k] + 1 > nbins) nbins = x[k] + 1;
    }
    if (weights && (weights->ndim != 1 || weights->sizes[0] != n)) {
        wk_release(kx.t);
        return WK_FAIL(WK_RUNTIME_ERROR, "weights should be 1-d and have the same length as input");
    }
    wk_tensor *r = NULL;
    if (!weights) {
        r = wk__zeros(1, &nbins, WK_INT64);
        if (r)
            for (int64_t k = 0; k < n; k++) ((int64_t *)wk__data(r))[x[k]]++;
    } else {
        wk_dtype od = weights->dtype == WK_FLOAT32 ? WK_FLOAT32 : WK_FLOAT64;
        keys kw = {0};
        double *acc = wk__calloc((size_t)nbins, sizeof(double)); /* [nbins] sums, in the output's precision */
        if (acc && keys_of(weights, WK_FLOAT64, &kw) == 0) {
            for (int64_t k = 0; k < n; k++) {
                acc[x[k]] += kw.f[k];
                if (od == WK_FLOAT32) acc[x[k]] = (float)acc[x[k]];
            }
            r = wk__empty(1, &nbins, od);
            if (r)
                for (int64_t b = 0; b < nbins; b++) wk__store_scalar((char *)wk__data(r) + (size_t)b * wk_dtype_size(od), od,
                                                                     wk_float(acc[b]));
        }
        free(acc);
        wk_release(kw.t);
    }
    wk_release(kx.t);
    return r;
}

/* ---- histc: `bins` equal bins over [min, max] (the data's range when both are equal), the last one closed; values
 * outside and NaN are not counted; the position (x - min) * bins / (max - min) is computed in the input's type.
 * torch's order (histogram_histc_out): out's dtype, bins, the range (checked in double), the range converted to the
 * input's dtype for linspace (a bool has no linspace; an integral type overflows), then the kernel (floating only). */
static const char *int_type_name(wk_dtype dt) {
    switch (dt) {
    case WK_UINT8: return "uint8_t";
    case WK_INT8: return "int8_t";
    case WK_INT16: return "int16_t";
    case WK_INT32: return "int32_t";
    default: return "int64_t";
    }
}
static bool int_overflows(double v, wk_dtype dt) {
    switch (dt) {
    case WK_UINT8: return v < 0 || v > 255;
    case WK_INT8: return v < -128 || v > 127;
    case WK_INT16: return v < -32768 || v > 32767;
    case WK_INT32: return v < -2147483648.0 || v > 2147483647.0;
    default: return v < -9223372036854775808.0 || v >= 9223372036854775808.0;
    }
}

static float round_half(float f) { return wk__half_to_float(wk__float_to_half(f)); }
static float round_bf16(float f) { return wk__bf16_to_float(wk__float_to_bf16(f)); }
static float same_float(float f) { return f; }

static wk_tensor *histc_impl(wk_tensor *self, int64_t bins, wk_scalar min, wk_scalar max, const wk_tensor *out) {
    if (out && out->dtype != self->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.histogram: input tensor and hist tensor should have the same dtype, but "
                                         "got input %s and hist %s", wk__cpp_type_name(self->dtype),
                       wk__cpp_type_name(out->dtype));
    if (bins <= 0)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.histogram(): bins must be > 0, but got %lld for dimension 0", (long long)bins);
    keys kx = {0};
    if (keys_of(self, WK_FLOAT64, &kx) < 0) return NULL;
    int64_t n = wk__numel(self);
    const double *x = kx.f; /* [n] values */
    double lo = wk__scalar_to_double(min), hi = wk__scalar_to_double(max);
    if (lo == hi && n > 0) { /* aminmax */
        bool nan = false;
        lo = INFINITY, hi = -INFINITY;
        for (int64_t k = 0; k < n; k++) {
            if (isnan(x[k])) nan = true;
            lo = x[k] < lo ? x[k] : lo;
            hi = x[k] > hi ? x[k] : hi;
        }
        /* torch's aminmax returns a NaN that prints as -nan, but for one element or bfloat16 */
        if (nan) lo = hi = (n == 1 || self->dtype == WK_BFLOAT16) ? NAN : -NAN;
    }
    if (lo == hi) { /* torch's bins_edges_correction: float and double widen by at least one step of their own */
        if (self->dtype == WK_FLOAT32) {
            lo = fmin((double)nextafterf((float)lo, -FLT_MAX), lo - 1);
            hi = fmax((double)nextafterf((float)hi, FLT_MAX), hi + 1);
        } else if (self->dtype == WK_FLOAT64) {
            lo = fmin(nextafter(lo, -DBL_MAX), lo - 1);
            hi = fmax(nextafter(hi, DBL_MAX), hi + 1);
        } else {
            lo -= 1;
            hi += 1;
        }
    }
    wk_tensor *r = NULL;
    if (!(isfinite(lo) && isfinite(hi)))
        wk__error(WK_RUNTIME_ERROR, "torch.histc: range of [%g, %g] is not finite", lo, hi);
    else if (lo >= hi)
        wk__error(WK_RUNTIME_ERROR, "torch.histc: max must be larger than min");
    else if (self->dtype == WK_BOOL)
        wk__not_implemented_for("linspace_cpu", self->dtype);
    else if (!wk_dtype_is_floating(self->dtype)) {
        if (int_overflows(lo, self->dtype) || int_overflows(hi, self->dtype))
            wk__error(WK_RUNTIME_ERROR, "value cannot be converted to type %s without overflow", int_type_name(self->dtype));
        else
            wk__not_implemented_for("histogram_cpu", self->dtype);
    } else if ((r = wk__zeros(1, &bins, self->dtype))) {
        double *cnt = wk__calloc((size_t)bins, sizeof(double)); /* [bins] */
        if (!cnt) {
            wk_release(r);
            r = NULL;
        } else {
            /* the outer edges as torch's linspace stores them: in the input's dtype (a reduced float may round both
             * to one value; torch's 0 / 0 position then counts in the first bin) */
            bool dbl = self->dtype == WK_FLOAT64;
            float lof = (float)lo, hif = (float)hi;
            /* c10::Half / BFloat16 arithmetic rounds each result to its type */
            float (*rd)(float) = self->dtype == WK_FLOAT16 ? round_half : self->dtype == WK_BFLOAT16 ? round_bf16 : same_float;
            lof = rd(lof), hif = rd(hif);
            if (!dbl) lo = lof, hi = hif;
            for (int64_t k = 0; k < n; k++) {
                double v = x[k];
                if (!(v >= lo && v <= hi)) continue;
                double q = dbl ? (v - lo) * (double)bins / (hi - lo)
                               : rd(rd(rd((float)v - lof) * rd((float)bins)) / rd(hif - lof));
                int64_t pos = isnan(q) ? 0 : (int64_t)q;
                if (pos >= bins) pos = bins - 1;
                if (pos < 0) pos = 0;
                cnt[pos] += 1;
            }
            for (int64_t b = 0; b < bins; b++)
                wk__store_scalar((char *)wk__data(r) + (size_t)b * wk_dtype_size(self->dtype), self->dtype,
                                 wk_float(cnt[b]));
            free(cnt);
        }
    }
    wk_release(kx.t);
    return r;
}

wk_tensor *wk_impl_histc(wk_tensor *self, int64_t bins, wk_scalar min, wk_scalar max) {
    return histc_impl(self, bins, min, max, NULL);
}
wk_tensor *wk_impl_histc_out(wk_tensor *out, wk_tensor *self, int64_t bins, wk_scalar min, wk_scalar max) {
    return write_result(out, histc_impl(self, bins, min, max, out));
}

/* ---- isin: torch's two kernels (isin_Tensor_Tensor_out). A test set smaller than 10 * numel(elements)^0.145 is
 * scanned for each element, the values compared in the ops' result type; torch views the test values flat for that
 * (to(dtype).view(-1)), so a test tensor that cannot be viewed flat raises as view does, unless the conversion copied
 * it into a contiguous one (another dtype, and not dense: `to` keeps a dense tensor's strides). A larger set goes through
 * torch's stable sort of the elements and test values together, in promote_types of the two dtypes (a wrapped Python
 * number counts as a plain tensor there: isin(0.1, float32 tensor of 10 values) compares in double); an element's
 * answer is whether the next value in that order equals it: membership, except that with assume_unique an element
 * repeated later in `elements` is reported present (undefined input to torch, so its answer). NaN is never present.
 * Here: test values sorted once, each element binary-searched. */
static int cmp_f64(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}
typedef struct {
    double v;
    int64_t i;
} isin_fpair; /* an element's value and position */
typedef struct {
    int64_t v;
    int64_t i;
} isin_ipair;
static int cmp_fpair(const void *a, const void *b) {
    const isin_fpair *x = a, *y = b;
    return x->v != y->v ? (x->v > y->v) - (x->v < y->v) : (x->i > y->i) - (x->i < y->i);
}
static int cmp_ipair(const void *a, const void *b) {
    const isin_ipair *x = a, *y = b;
    return x->v != y->v ? (x->v > y->v) - (x->v < y->v) : (x->i > y->i) - (x->i < y->i);
}

static wk_tensor *isin_impl(wk_tensor *elements, wk_tensor *test_elements, bool assume_unique, bool invert,
                            const wk_tensor *out_arg) {
    if (elements->dtype == WK_BOOL || test_elements->dtype == WK_BOOL)
        return WK_FAIL(WK_RUNTIME_ERROR, "Unsupported input type encountered for isin(): Bool");
    if (out_arg && out_arg->dtype != WK_BOOL)
        return WK_FAIL(WK_RUNTIME_ERROR, "Expected out tensor to have dtype bool, but got %s instead",
                       wk__cpp_type_name(out_arg->dtype));
    int64_t ne = wk__numel(elements), nt = wk__numel(test_elements);
    wk_tensor *r = wk__empty(elements->ndim, elements->sizes, WK_BOOL);
    if (!r || ne == 0) return r;
    bool scan = nt < (int64_t)(10.0f * pow((double)ne, 0.145));
    wk_dtype common = scan ? wk__result_type2(elements, test_elements)
                           : wk_promote_types(elements->dtype, test_elements->dtype);
    if (scan && (test_elements->dtype == common || wk__non_overlapping_and_dense(test_elements))) {
        int64_t flat = -1;
        wk_tensor *v = wk_impl_view(test_elements, (wk_intlist){&flat, 1});
        if (!v) {
            wk_release(r);
            return NULL;
        }
        wk_release(v);
    }
    keys ke = {0}, kt = {0};
    void *tv = NULL, *pairs = NULL; /* [nt] the test values but NaN, sorted; [ne] (value, position) of the elements */
    if (keys_of(elements, common, &ke) < 0 || keys_of(test_elements, common, &kt) < 0 ||
        !(tv = wk__malloc((size_t)(nt ? nt : 1) * 8)) || !(pairs = wk__malloc((size_t)ne * sizeof(isin_fpair)))) {
        wk_release(r);
        r = NULL;
        goto done;
    }
    int64_t m = 0, np = 0;
    for (int64_t k = 0; k < nt; k++)
        if (!kt.fl) ((int64_t *)tv)[m++] = kt.i[k];
        else if (!isnan(kt.f[k])) ((double *)tv)[m++] = kt.f[k];
    qsort(tv, (size_t)m, 8, kt.fl ? cmp_f64 : cmp_i64);
    uint8_t *out = (uint8_t *)wk__data(r); /* [ne] */
    for (int64_t k = 0; k < ne; k++) {
        bool nan = ke.fl && isnan(ke.f[k]);
        out[k] = m > 0 && !nan && bsearch(ke.fl ? (const void *)&ke.f[k] : (const void *)&ke.i[k], tv, (size_t)m, 8,
                                          ke.fl ? cmp_f64 : cmp_i64) != NULL;
        if (nan) continue;
        if (ke.fl) ((isin_fpair *)pairs)[np++] = (isin_fpair){ke.f[k], k};
        else ((isin_ipair *)pairs)[np++] = (isin_ipair){ke.i[k], k};
    }
    if (!scan && assume_unique) { /* an element followed by an equal one in the sort */
        qsort(pairs, (size_t)np, sizeof(isin_fpair), ke.fl ? cmp_fpair : cmp_ipair);
        for (int64_t j = 0; j + 1 < np; j++)
            if (ke.fl ? ((isin_fpair *)pairs)[j].v == ((isin_fpair *)pairs)[j + 1].v
                      : ((isin_ipair *)pairs)[j].v == ((isin_ipair *)pairs)[j + 1].v)
                out[ke.fl ? ((isin_fpair *)pairs)[j].i : ((isin_ipair *)pairs)[j].i] = 1;
    }
    if (invert)
        for (int64_t k = 0; k < ne; k++) out[k] = !out[k];
done:
    free(tv);
    free(pairs);
    wk_release(ke.t);
    wk_release(kt.t);
    return r;
}

wk_tensor *wk_impl_isin(wk_tensor *elements, wk_tensor *test_elements, bool assume_unique, bool invert) {
    return isin_impl(elements, test_elements, assume_unique, invert, NULL);
}
wk_tensor *wk_impl_isin_out(wk_tensor *out, wk_tensor *elements, wk_tensor *test_elements, bool assume_unique,
                            bool invert) {
    return write_result(out, isin_impl(elements, test_elements, assume_unique, invert, out));
}
/* a Python number is wrapped (torch's isin(Tensor, Scalar) is eq / ne, the same answers as the scan) */
static wk_tensor *isin_wrapped(wk_tensor *elements, wk_scalar *element, wk_tensor *test_elements, wk_scalar *test_element,
                               bool assume_unique, bool invert, const wk_tensor *out) {
    wk_tensor *w = wk__wrap_scalar(element ? *element : *test_element);
    if (!w) return NULL;
    wk_tensor *r = element ? isin_impl(w, test_elements, assume_unique, invert, out)
                           : isin_impl(elements, w, assume_unique, invert, out);
    wk_release(w);
    return r;
}
wk_tensor *wk_impl_isin_Tensor_Scalar(wk_tensor *elements, wk_scalar test_element, bool assume_unique, bool invert) {
    return isin_wrapped(elements, NULL, NULL, &test_element, assume_unique, invert, NULL);
}
wk_tensor *wk_impl_isin_Tensor_Scalar_out(wk_tensor *out, wk_tensor *elements, wk_scalar test_element, bool assume_unique,
                                          bool invert) {
    return write_result(out, isin_wrapped(elements, NULL, NULL, &test_element, assume_unique, invert, out));
}
wk_tensor *wk_impl_isin_Scalar_Tensor(wk_scalar element, wk_tensor *test_elements, bool assume_unique, bool invert) {
    return isin_wrapped(NULL, &element, test_elements, NULL, assume_unique, invert, NULL);
}
wk_tensor *wk_impl_isin_Scalar_Tensor_out(wk_tensor *out, wk_scalar element, wk_tensor *test_elements, bool assume_unique,
                                          bool invert) {
    return write_result(out, isin_wrapped(NULL, &element, test_elements, NULL, assume_unique, invert, out));
}

wk_tensor *wk_impl__undefined_tensor_error(wk_tensor *grad) {
    (void)grad;
    return WK_FAIL(WK_RUNTIME_ERROR, "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument "
                                     "#0 'self'");
}

/* ---- composites: a pool of temporaries released together (the result is retained out of it) ------------------- */
typedef struct {
    wk_tensor *t[48];
    int n;
} pool;
static wk_tensor *keep(pool *p, wk_tensor *t) {
    if (t && p->n < 48) p->t[p->n++] = t;
    else if (t) { /* never reached: pools are sized for their op */
        wk_release(t);
        return WK_FAIL(WK_RUNTIME_ERROR, "internal: pool full");
    }
    return t;
}
static wk_tensor *pool_done(pool *p, wk_tensor *result) {
    if (result) wk_retain(result);
    for (int i = 0; i < p->n; i++) wk_release(p->t[i]);
    return result;
}
#define K(e) keep(&P, (e))
#define TRY(v, e)                                   \
    do {                                            \
        if (!((v) = K(e))) return pool_done(&P, NULL); \
    } while (0)

static wk_tensor *slice_(wk_tensor *t, int64_t dim, int64_t start, bool to_last) {
    return wk_slice(t, dim, wk_some(start), to_last ? wk_none_int() : wk_some(-1), 1);
}

/* x viewed for y's dims (torch's trapezoid): 1-D x along dim, fewer dims padded with leading ones */
static wk_tensor *trap_x_view(const char *name, wk_tensor *y, wk_tensor *x, int64_t dim) {
    int64_t sizes[WK_MAX_DIM];
    if (x->ndim == 1) {
        if (x->sizes[0] != y->sizes[dim])
            return WK_FAIL(WK_RUNTIME_ERROR, "%s: There must be one `x` value for each sample point", name);
        for (int i = 0; i < y->ndim; i++) sizes[i] = i == dim ? x->sizes[0] : 1;
        return wk_view(x, wk_ints(sizes, y->ndim));
    }
    if (x->ndim < y->ndim) {
        int pad = y->ndim - x->ndim;
        for (int i = 0; i < y->ndim; i++) sizes[i] = i < pad ? 1 : x->sizes[i - pad];
        return wk_view(x, wk_ints(sizes, y->ndim));
    }
    return wk_retain(x);
}

static wk_tensor *trapezoid_x(const char *name, wk_tensor *y, wk_tensor *x, int64_t dim, bool cumulative) {
    pool P = {0};
    int64_t d;
    if (wk__wrap_dim(dim, y->ndim, &d) < 0) return NULL;
    if (!cumulative && y->sizes[d] == 0) { /* zeros of y's shape without dim */
        int64_t sizes[WK_MAX_DIM];
        int n = 0;
        for (int i = 0; i < y->ndim; i++)
            if (i != d) sizes[n++] = y->sizes[i];
        return wk_zeros(wk_ints(sizes, n), y->dtype, false);
    }
    if (y->dtype == WK_BOOL || x->dtype == WK_BOOL)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: received a bool input for `x` or `y`, but bool is not supported", name);
    wk_tensor *xv, *xl, *xr, *dx, *l, *r, *s, *m, *red;
    TRY(xv, trap_x_view(name, y, x, d));
    TRY(xl, slice_(xv, d, 0, false));
    TRY(xr, slice_(xv, d, 1, true));
    TRY(dx, wk_sub(xr, xl, wk_int(1)));
    TRY(l, slice_(y, d, 0, false));
    TRY(r, slice_(y, d, 1, true));
    TRY(s, wk_add(l, r, wk_int(1)));
    TRY(m, wk_mul(s, dx));
    TRY(red, cumulative ? wk_cumsum(m, d, WK_DTYPE_NONE) : wk_sum_dim(m, wk_ints(&d, 1), false, WK_DTYPE_NONE));
    return pool_done(&P, K(wk_div_Scalar(red, wk_float(2.0))));
}

static int dx_check(const char *name, wk_tensor *y, wk_scalar dx) {
    if (y->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "%s: received a bool input for `y`, but bool is not supported", name);
        return -1;
    }
    if (dx.tag == WK_SCALAR_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "%s: Currently, we only support dx as a real number.", name);
        return -1;
    }
    return 0;
}

/* (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx */
static wk_tensor *trapezoid_dx(wk_tensor *y, double dx, int64_t dim) {
    pool P = {0};
    wk_tensor *s, *a, *b, *e, *h, *t;
    if (y->ndim == 0) return WK_FAIL(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)dim);
    TRY(s, wk_sum_dim(y, wk_ints(&dim, 1), false, WK_DTYPE_NONE));
    TRY(a, wk_select(y, dim, 0));
    TRY(b, wk_select(y, dim, -1));
    TRY(e, wk_add(a, b, wk_int(1)));
    TRY(h, wk_mul_Scalar(e, wk_float(0.5)));
    TRY(t, wk_sub(s, h, wk_int(1)));
    return pool_done(&P, K(wk_mul_Scalar(t, wk_float(dx))));
}

static wk_tensor *trapezoid_dx_checked(wk_tensor *y, wk_scalar dx, int64_t dim) {
    int64_t d;
    if (wk__wrap_dim(dim, y->ndim, &d) < 0) return NULL;
    if (y->sizes[d] == 0) {
        int64_t sizes[WK_MAX_DIM];
        int n = 0;
        for (int i = 0; i < y->ndim; i++)
            if (i != d) sizes[n++] = y->sizes[i];
        return wk_zeros(wk_ints(sizes, n), y->dtype, false);
    }
    if (dx_check("trapezoid", y, dx) < 0) return NULL;
    return trapezoid_dx(y, wk__scalar_to_double(dx), dim);
}

wk_tensor *wk_impl_trapezoid_x(wk_tensor *y, wk_tensor *x, int64_t dim) { return trapezoid_x("trapezoid", y, x, dim, false); }
wk_tensor *wk_impl_trapezoid_dx(wk_tensor *y, wk_scalar dx, int64_t dim) { return trapezoid_dx_checked(y, dx, dim); }
wk_tensor *wk_impl_trapz_x(wk_tensor *y, wk_tensor *x, int64_t dim) { return trapezoid_x("trapezoid", y, x, dim, false); }
wk_tensor *wk_impl_trapz_dx(wk_tensor *y, double dx, int64_t dim) { return trapezoid_dx_checked(y, wk_float(dx), dim); }
wk_tensor *wk_impl_cumulative_trapezoid_x(wk_tensor *y, wk_tensor *x, int64_t dim) {
    return trapezoid_x("cumulative_trapezoid", y, x, dim, true);
}
/* (dx / 2 * (left + right)).cumsum(dim) */
wk_tensor *wk_impl_cumulative_trapezoid_dx(wk_tensor *y, wk_scalar dx, int64_t dim) {
    pool P = {0};
    if (dx_check("cumulative_trapezoid", y, dx) < 0) return NULL;
    int64_t d;
    if (wk__wrap_dim(dim, y->ndim, &d) < 0) return NULL;
    wk_tensor *l, *r, *s, *m;
    TRY(l, slice_(y, d, 0, false));
    TRY(r, slice_(y, d, 1, true));
    TRY(s, wk_add(l, r, wk_int(1)));
    TRY(m, wk_mul_Scalar(s, wk_float(wk__scalar_to_double(dx) / 2.)));
    return pool_done(&P, K(wk_cumsum(m, d, WK_DTYPE_NONE)));
}

/* ---- cov / corrcoef (torch's Correlation.cpp, step by step) ---------------------------------------------------- */
static bool scalar_true(wk_tensor *t) {
    wk_scalar s;
    return t && wk_item(t, &s) == 0 && wk__scalar_to_double(s) != 0;
}

wk_tensor *wk_impl_cov(wk_tensor *self, int64_t correction, wk_tensor *fweights, wk_tensor *aweights) {
    pool P = {0};
    if (self->ndim > 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "cov(): expected input to have two or fewer dimensions but got an input with %d "
                                         "dimensions", self->ndim);
    if (self->dtype == WK_BOOL) return WK_FAIL(WK_RUNTIME_ERROR, "cov(): bool dtype is not supported for input");
    int64_t v2[2] = {1, -1};
    wk_tensor *in;
    TRY(in, self->ndim < 2 ? wk_view(self, wk_ints(v2, 2)) : wk_retain(self));
    int64_t nobs = in->sizes[1];
    wk_tensor *w = NULL;
    bool prev = wk_set_grad_enabled(false); /* the checks' reductions record nothing */
    if (fweights) {
        w = fweights;
        if (w->ndim > 1) {
            wk_set_grad_enabled(prev);
            wk__error(WK_RUNTIME_ERROR, "cov(): expected fweights to have one or fewer dimensions but got fweights with %d "
                                        "dimensions", w->ndim);
            return pool_done(&P, NULL);
        }
        if (!wk_dtype_is_integral(w->dtype, false)) {
            wk_set_grad_enabled(prev);
            wk__error(WK_RUNTIME_ERROR, "cov(): expected fweights to have integral dtype but got fweights with %s dtype",
                      wk_dtype_scalar_name(w->dtype));
            return pool_done(&P, NULL);
        }
        if (wk__numel(w) != nobs) {
            wk_set_grad_enabled(prev);
            wk__error(WK_RUNTIME_ERROR, "cov(): expected fweights to have the same numel as there are observations in the "
                                        "input but got %lld != %lld", (long long)wk__numel(w), (long long)nobs);
            return pool_done(&P, NULL);
        }
        wk_tensor *mn = nobs ? K(wk_min(w)) : NULL, *z = mn ? K(wk__wrap_scalar(wk_int(0))) : NULL;
        if (nobs && (!z || !scalar_true(K(wk_ge(mn, z))))) {
            wk_set_grad_enabled(prev);
            if (z) wk__error(WK_RUNTIME_ERROR, "cov(): fweights cannot be negative");
            return pool_done(&P, NULL);
        }
    }
    if (aweights) {
        wk_tensor *aw = aweights;
        const char *bad = NULL;
        if (aw->ndim > 1) bad = "dims";
        else if (!wk_dtype_is_floating(aw->dtype)) bad = "dtype";
        else if (wk__numel(aw) != nobs) bad = "numel";
        if (bad) {
            wk_set_grad_enabled(prev);
            if (!strcmp(bad, "dims"))
                wk__error(WK_RUNTIME_ERROR, "cov(): expected aweights to have one or fewer dimensions but got aweights with "
                                            "%d dimensions", aw->ndim);
            else if (!strcmp(bad, "dtype"))
                wk__error(WK_RUNTIME_ERROR, "cov(): expected aweights to have floating point dtype but got aweights with %s "
                                            "dtype", wk_dtype_scalar_name(aw->dtype));
            else
                wk__error(WK_RUNTIME_ERROR, "cov(): expected aweights to have the same numel as there are observations in "
                                            "the input but got %lld != %lld", (long long)wk__numel(aw), (long long)nobs);
            return pool_done(&P, NULL);
        }
        wk_tensor *mn = nobs ? K(wk_min(aw)) : NULL, *z = mn ? K(wk__wrap_scalar(wk_int(0))) : NULL;
        if (nobs && (!z || !scalar_true(K(wk_ge(mn, z))))) {
            wk_set_grad_enabled(prev);
            if (z) wk__error(WK_RUNTIME_ERROR, "cov(): aweights cannot be negative");
            return pool_done(&P, NULL);
        }
    }
    wk_set_grad_enabled(prev);
    if (aweights) {
        if (w) TRY(w, wk_mul(w, aweights));
        else w = aweights;
    }
    wk_tensor *w_sum;
    TRY(w_sum, w ? wk_sum(w, WK_DTYPE_NONE) : wk_scalar_tensor(wk_int(nobs), WK_INT64, false));
    if (w) {
        prev = wk_set_grad_enabled(false);
        wk_tensor *z = K(wk__wrap_scalar(wk_int(0)));
        bool ok = z && scalar_true(K(wk_ne(w_sum, z)));
        wk_set_grad_enabled(prev);
        if (!ok) {
            if (z && !wk__error_set()) wk__error(WK_RUNTIME_ERROR, "cov(): weights sum to zero, can't be normalized");
            return pool_done(&P, NULL);
        }
    }
    wk_tensor *iw, *sm, *avg;
    int64_t one = 1;
    TRY(iw, w ? wk_mul(in, w) : wk_retain(in));
    TRY(sm, wk_sum_dim(iw, wk_ints(&one, 1), false, WK_DTYPE_NONE));
    TRY(avg, wk_div(sm, w_sum, NULL));
    wk_tensor *nf = NULL;
    if (!w) TRY(nf, wk_scalar_tensor(wk_int(nobs - correction), WK_INT64, false));
    else if (correction == 0) nf = w_sum;
    else if (!aweights) TRY(nf, wk_sub(w_sum, K(wk__wrap_scalar(wk_int(correction))), wk_int(1)));
    else if (!fweights && nobs == 1 && correction == 1) TRY(nf, wk_scalar_tensor(wk_int(0), WK_INT64, false));
    else {
        wk_tensor *wa, *was, *cw, *q;
        TRY(wa, wk_mul(w, aweights));
        TRY(was, wk_sum(wa, WK_DTYPE_NONE));
        TRY(cw, wk_mul_Scalar(was, wk_int(correction)));
        TRY(q, wk_div(cw, w_sum, NULL));
        TRY(nf, wk_sub(w_sum, q, wk_int(1)));
    }
    {
        prev = wk_set_grad_enabled(false);
        wk_tensor *z = K(wk__wrap_scalar(wk_int(0)));
        bool le = z && scalar_true(K(wk_le(nf, z)));
        wk_set_grad_enabled(prev);
        if (le) {
            wk__warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.");
            wk_tensor *zr = wk_zero_(nf); /* with correction 0, nf is w_sum itself (torch zeroes it too) */
            if (!zr) return pool_done(&P, NULL);
            wk_release(zr);
        }
    }
    wk_tensor *cen;
    if (nobs == 1 && (fweights != NULL) != (aweights != NULL)) {
        wk_tensor *zr = wk_zero_(in); /* torch zeroes the input (a view of self) in this corner case */
        if (!zr) return pool_done(&P, NULL);
        wk_release(zr);
        TRY(cen, wk_dtype_is_integral(in->dtype, true) ? wk_to_dtype(in, WK_FLOAT32, false, false) : wk_retain(in));
    } else {
        wk_tensor *au;
        TRY(au, wk_unsqueeze(avg, 1));
        TRY(cen, wk_sub(in, au, wk_int(1)));
    }
    wk_tensor *cw, *ct, *c, *q;
    TRY(cw, w ? wk_mul(cen, w) : wk_retain(cen));
    TRY(ct, wk_t(cw));
    TRY(c, wk_mm(cen, ct));
    TRY(q, wk_true_divide(c, nf));
    return pool_done(&P, K(wk_squeeze(q)));
}

wk_tensor *wk_impl_corrcoef(wk_tensor *self) {
    pool P = {0};
    if (self->ndim > 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "corrcoef(): expected input to have two or fewer dimensions but got an input with "
                                         "%d dimensions", self->ndim);
    wk_tensor *c;
    TRY(c, wk_cov(self, 1, NULL, NULL));
    if (c->ndim == 0) return pool_done(&P, K(wk_div(c, c, NULL)));
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    wk_tensor *d, *sd, *v1, *c1, *v2, *c2;
    TRY(d, wk_diagonal(c, 0, 0, 1));
    TRY(sd, wk_sqrt(d));
    TRY(v1, wk_view(sd, wk_ints(col, 2)));
    TRY(c1, wk_div(c, v1, NULL));
    TRY(v2, wk_view(sd, wk_ints(row, 2)));
    TRY(c2, wk_div(c1, v2, NULL));
    return pool_done(&P, K(wk_clamp(c2, wk_int(-1), wk_int(1))));
}

/* ---- cartesian_prod / combinations (torch's Itertools.cpp) -------------------------------------------------------- */
static int check_1d(const wk_tensor *t) {
    if (t->ndim != 1) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, t->sizes, t->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expect a 1D vector, but got shape %s", b.s ? b.s : "[]");
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_cartesian_prod(wk_tensorlist tensors) {
    for (int64_t i = 0; i < tensors.len; i++)
        if (check_1d(tensors.data[i]) < 0) return NULL;
    if (tensors.len == 1) return wk_retain(tensors.data[0]);
    wk_tensorvec g = wk_meshgrid(tensors, "ij");
    if (!g.data) return NULL;
    wk_tensor *r = NULL;
    bool ok = true;
    for (int64_t i = 0; i < g.len && ok; i++) {
        wk_tensor *f = wk_flatten(g.data[i], 0, -1);
        ok = f != NULL;
        wk_release(g.data[i]);
        g.data[i] = f;
    }
    if (ok) r = wk_stack((wk_tensorlist){g.data, g.len}, 1);
    wk_tensorvec_free(g);
    return r;
}

wk_tensor *wk_impl_combinations(wk_tensor *self, int64_t r, bool with_replacement) {
    if (check_1d(self) < 0) return NULL;
    if (r < 0) return WK_FAIL(WK_RUNTIME_ERROR, "Expect a non-negative number, but got %lld", (long long)r);
    int64_t zero = 0;
    if (r == 0) return wk__empty(1, &zero, self->dtype);
    if (r > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    int64_t n = self->sizes[0];
    wk_tensor *selves[WK_MAX_DIM];
    for (int64_t i = 0; i < r; i++) selves[i] = self;
    wk_tensorvec g = wk_meshgrid((wk_tensorlist){selves, r}, "ij");
    if (!g.data) return NULL;
    /* the mask i < j < k ... (<= with replacement) over the r-dim grid, built directly */
    int64_t sizes[WK_MAX_DIM], idx[WK_MAX_DIM] = {0};
    for (int64_t i = 0; i < r; i++) sizes[i] = n;
    wk_tensor *mask = wk__empty((int)r, sizes, WK_BOOL), *res = NULL;
    if (mask) {
        uint8_t *m = (uint8_t *)wk__data(mask); /* [n]*r, row-major */
        int64_t total = wk__numel(mask);
        for (int64_t k = 0; k < total; k++) {
            bool ok = true;
            for (int64_t i = 0; i + 1 < r; i++) ok &= with_replacement ? idx[i] <= idx[i + 1] : idx[i] < idx[i + 1];
            m[k] = ok;
            for (int64_t i = r - 1; i >= 0 && ++idx[i] == n; i--) idx[i] = 0;
        }
        bool ok = true;
        for (int64_t i = 0; i < g.len && ok; i++) {
            wk_tensor *s = wk_masked_select(g.data[i], mask);
            ok = s != NULL;
            wk_release(g.data[i]);
            g.data[i] = s;
        }
        if (ok) res = wk_stack((wk_tensorlist){g.data, g.len}, 1);
    }
    wk_release(mask);
    wk_tensorvec_free(g);
    return res;
}

/* ---- block_diag: each input (0-d as [1, 1], 1-d as [1, n]) on the diagonal of a zero matrix of the promoted dtype */
static void block_shape(const wk_tensor *t, int64_t *rows, int64_t *cols) {
    *rows = t->ndim == 2 ? t->sizes[0] : 1;
    *cols = t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
}

wk_tensor *wk_impl_block_diag(wk_tensorlist tensors) {
    wk_promo p;
    wk__promo_init(&p);
    int64_t R = 0, Cn = 0;
    for (int64_t i = 0; i < tensors.len; i++) {
        const wk_tensor *t = tensors.data[i];
        if (t->ndim > 2)
            return WK_FAIL(WK_RUNTIME_ERROR, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %lld has "
                                             "%d dimensions", (long long)i, t->ndim);
        wk__promo_tensor(&p, t);
        int64_t r, c;
        block_shape(t, &r, &c);
        R += r;
        Cn += c;
    }
    wk_dtype dt = tensors.len ? wk__promo_result(&p) : wk_get_default_dtype();
    if (!tensors.len) R = 1; /* torch: an empty list gives a [1, 0] tensor */
    int64_t sizes[2] = {R, Cn};
    wk_tensor *out = wk__zeros(2, sizes, dt);
    if (!out) return NULL;
    int64_t r0 = 0, c0 = 0;
    for (int64_t i = 0; i < tensors.len; i++) {
        int64_t r, c;
        block_shape(tensors.data[i], &r, &c);
        int64_t st[2] = {out->strides[0], out->strides[1]}, bs[2] = {r, c};
        wk_tensor *blk = wk__alias(out, 2, bs, st, r0 * out->strides[0] + c0);
        wk_tensor *src = blk ? wk__alias(tensors.data[i], 2, bs,
                                         (int64_t[2]){tensors.data[i]->ndim == 2 ? tensors.data[i]->strides[0] : 0,
                                                      tensors.data[i]->ndim >= 1 ? tensors.data[i]->strides[tensors.data[i]->ndim - 1] : 0},
                                         tensors.data[i]->offset) : NULL;
        int rc = src ? wk__copy_(blk, src) : -1;
        wk_release(blk);
        wk_release(src);
        if (rc < 0) {
            wk_release(out);
            return NULL;
        }
        r0 += r;
        c0 += c;
    }
    return out;
}

wk_tensorvec wk_impl_block_diag_backward(wk_tensor *grad, wk_intlist sizes) {
    const int64_t row = WK_MAX_DIM + 1;
    int64_t n = sizes.len / row;
    wk_tensorvec v = {wk__calloc((size_t)(n ? n : 1), sizeof(wk_tensor *)), n};
    if (!v.data) return (wk_tensorvec){NULL, 0};
    int64_t r0 = 0, c0 = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *s = sizes.data + i * row; /* s[0] = ndim, s[1..] = sizes */
        int64_t r = s[0] == 2 ? s[1] : 1, c = s[0] == 2 ? s[2] : s[0] == 1 ? s[1] : 1;
        wk_tensor *a = wk_narrow(grad, 0, r0, r), *b = a ? wk_narrow(a, 1, c0, c) : NULL;
        wk_release(a);
        v.data[i] = b ? wk_reshape(b, wk_ints(s + 1, s[0])) : NULL;
        wk_release(b);
        if (!v.data[i]) {
            wk_tensorvec_free(v);
            return (wk_tensorvec){NULL, 0};
        }
        r0 += r;
        c0 += c;
    }
    return v;
}

/* ---- quantile / nanquantile (torch's quantile_compute: sort, ranks, gather, lerp_, then in-place reshaping, so the
 * history is torch's: SqueezeBackward4 over LerpBackward1 over GatherBackward0 over SortBackward0) -------------- */
enum { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST };

static wk_tensor *quantile_impl(wk_tensor *self, wk_tensor *q, wk_optint dim, bool keepdim, const char *interpolation,
                                bool ignore_nan) {
    static const char *modes[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    int mode = -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(interpolation, modes[i])) mode = i;
    if (mode < 0)
        return WK_FAIL(WK_RUNTIME_ERROR, "quantile() interpolation must be one of linear, lower, higher, midpoint or "
                                         "nearest, but got %s", interpolation);
    if (wk__numel(self) == 0) return WK_FAIL(WK_RUNTIME_ERROR, "quantile() input tensor must be non-empty");
    if (q->ndim > 1) return WK_FAIL(WK_RUNTIME_ERROR, "quantile() q must be a scalar or 1D tensor");
    if (self->dtype != WK_FLOAT32 && self->dtype != WK_FLOAT64)
        return WK_FAIL(WK_RUNTIME_ERROR, "quantile() input tensor must be either float or double dtype");
    if (self->dtype != q->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "quantile() q tensor must be same dtype as the input tensor");
    int64_t wd;
    if (wk__wrap_dim(dim.has ? dim.v : 0, self->ndim, &wd) < 0) return NULL;
    /* out_shape: [q.numel()] (also for a 0-d q, as the computation treats it) + the reduced shape */
    int64_t out_shape[WK_MAX_DIM + 1];
    int on = 0;
    out_shape[on++] = wk__numel(q);
    if (dim.has && self->ndim > 0) {
        for (int i = 0; i < self->ndim; i++) {
            if (i == wd && !keepdim) continue;
            out_shape[on++] = i == wd ? 1 : self->sizes[i];
        }
    } else if (keepdim)
        for (int i = 0; i < self->ndim; i++) out_shape[on++] = 1;
    pool P = {0};
    {
        bool prev = wk_set_grad_enabled(false);
        wk_tensor *ge = K(wk_ge_Scalar(q, wk_int(0))), *le = ge ? K(wk_le_Scalar(q, wk_int(1))) : NULL;
        wk_tensor *both = le ? K(wk_logical_and(ge, le)) : NULL, *all = both ? K(wk_all(both)) : NULL;
        bool ok = all && scalar_true(all);
        wk_set_grad_enabled(prev);
        if (!ok) {
            if (all) wk__error(WK_RUNTIME_ERROR, "quantile() q values must be in the range [0, 1]");
            return pool_done(&P, NULL);
        }
    }
    wk_tensor *src, *sorted, *outs[2] = {0};
    if (!dim.has) TRY(src, wk_flatten(self, 0, -1));
    else {
        wk_tensor *u;
        TRY(u, wk_unsqueeze(self, -1));
        TRY(src, wk_transpose(u, wd, -1));
    }
    if (wk_sort(src, -1, false, outs) < 0) return pool_done(&P, NULL);
    K(outs[1]);
    TRY(sorted, outs[0]);
    int64_t in_shape[WK_MAX_DIM + 1];
    for (int i = 0; i + 1 < on; i++) in_shape[i] = out_shape[i + 1];
    in_shape[on - 1] = sorted->sizes[sorted->ndim - 1];
    TRY(sorted, wk_view(sorted, wk_ints(in_shape, on)));
    int64_t len = sorted->sizes[sorted->ndim - 1];
    if (len > (1 << 24)) return pool_done(&P, WK_FAIL(WK_RUNTIME_ERROR, "quantile() input tensor is too large"));
    wk_tensor *ranks, *nan;
    TRY(nan, wk_isnan(sorted));
    if (ignore_nan) {
        wk_tensor *nn, *cnt, *cm1, *neg, *r;
        TRY(nn, wk_logical_not(nan));
        int64_t m1 = -1;
        TRY(cnt, wk_sum_dim(nn, wk_ints(&m1, 1), true, WK_DTYPE_NONE));
        TRY(cm1, wk_sub(cnt, K(wk__wrap_scalar(wk_int(1))), wk_int(1)));
        TRY(ranks, wk_mul(q, cm1));
        TRY(neg, wk_lt_Scalar(ranks, wk_int(0)));
        TRY(r, wk_masked_fill_Scalar_(ranks, neg, wk_int(0)));
    } else {
        wk_tensor *ql, *an;
        TRY(ql, wk_mul_Scalar(q, wk_int(len - 1)));
        TRY(an, wk_any_dim(nan, -1, true));
        wk_tensor *pair[2] = {ql, an};
        wk_tensorvec tl = wk_broadcast_tensors((wk_tensorlist){pair, 2});
        if (!tl.data) return pool_done(&P, NULL);
        K(wk_retain(tl.data[0]));
        K(wk_retain(tl.data[1]));
        ranks = wk_masked_fill_Scalar(tl.data[0], tl.data[1], wk_int(len - 1));
        wk_tensorvec_free(tl);
        TRY(ranks, ranks);
    }
    wk_tensor *adj = NULL;
    if (mode == Q_LOWER) adj = wk_floor_(ranks);
    else if (mode == Q_HIGHER) adj = wk_ceil_(ranks);
    else if (mode == Q_NEAREST) adj = wk_round_(ranks);
    if (mode == Q_LOWER || mode == Q_HIGHER || mode == Q_NEAREST) TRY(adj, adj);
    wk_tensor *rb, *vb;
    TRY(rb, wk_to_dtype(ranks, WK_INT64, false, false));
    TRY(vb, wk_gather(sorted, -1, rb, false));
    if (mode == Q_LINEAR || mode == Q_MIDPOINT) {
        wk_tensor *w, *ra, *ra64, *va, *l;
        if (mode == Q_MIDPOINT) TRY(w, wk_full_like(ranks, wk_float(0.5), WK_DTYPE_NONE, false));
        else TRY(w, wk_sub(ranks, rb, wk_int(1)));
        TRY(ra, wk_ceil_(ranks));
        TRY(ra64, wk_to_dtype(ra, WK_INT64, false, false));
        TRY(va, wk_gather(sorted, -1, ra64, false));
        TRY(l, wk_lerp_Tensor_(vb, va, w));
    }
    wk_tensor *t1;
    if (q->ndim == 0) TRY(t1, wk_squeeze__dim(vb, -1));
    else {
        wk_tensor *t2, *t3;
        TRY(t2, wk_unsqueeze_(vb, 0));
        TRY(t3, wk_transpose_(vb, 0, -1));
        TRY(t1, wk_squeeze__dim(vb, -1));
    }
    return pool_done(&P, vb);
}

static wk_tensor *quantile_scalar(wk_tensor *self, double q, wk_optint dim, bool keepdim, const char *interpolation,
                                  bool ignore_nan) {
    if (!(q >= 0 && q <= 1)) return WK_FAIL(WK_RUNTIME_ERROR, "quantile() q must be in the range [0, 1] but got %g", q);
    wk_tensor *qt = wk_scalar_tensor(wk_float(q), self->dtype, false);
    if (!qt) return NULL;
    wk_tensor *r = quantile_impl(self, qt, dim, keepdim, interpolation, ignore_nan);
    wk_release(qt);
    return r;
}

wk_tensor *wk_impl_quantile(wk_tensor *self, wk_tensor *q, wk_optint dim, bool keepdim, const char *interpolation) {
    return quantile_impl(self, q, dim, keepdim, interpolation, false);
}
wk_tensor *wk_impl_quantile_scalar(wk_tensor *self, double q, wk_optint dim, bool keepdim, const char *interpolation) {
    return quantile_scalar(self, q, dim, keepdim, interpolation, false);
}
wk_tensor *wk_impl_nanquantile(wk_tensor *self, wk_tensor *q, wk_optint dim, bool keepdim, const char *interpolation) {
    return quantile_impl(self, q, dim, keepdim, interpolation, true);
}
wk_tensor *wk_impl_nanquantile_scalar(wk_tensor *self, double q, wk_optint dim, bool keepdim, const char *interpolation) {
    return quantile_scalar(self, q, dim, keepdim, interpolation, true);
}

/* ---- renorm: each slice along dim whose p-norm exceeds maxnorm is scaled by maxnorm / (norm + 1e-7); the norm is
 * accumulated in float for half / bfloat16 and the factor computed in self's type, as torch's renorm_scale_factor */
static int renorm_check(wk_tensor *self, wk_scalar p, int64_t dim, wk_scalar maxnorm, int64_t *reduce, int *nr) {
    if (wk__scalar_to_double(p) <= 0) {
        wk__error(WK_RUNTIME_ERROR, "renorm: non-positive-norm not supported");
        return -1;
    }
    if (wk__scalar_to_double(maxnorm) < 0) {
        wk__error(WK_RUNTIME_ERROR, "renorm: expected maxnorm to be >= 0 but got %g", wk__scalar_to_double(maxnorm));
        return -1;
    }
    if (self->ndim <= 1) {
        wk__error(WK_RUNTIME_ERROR, "renorm: input needs at least 2 dimensions, got %d dimensions", self->ndim);
        return -1;
    }
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    *nr = 0;
    for (int i = 0; i < self->ndim; i++)
        if (i != d) reduce[(*nr)++] = i;
    return 0;
}

static wk_dtype acc_dtype(wk_dtype dt) { return dt == WK_FLOAT16 || dt == WK_BFLOAT16 ? WK_FLOAT32 : dt; }

wk_tensor *wk_impl_renorm(wk_tensor *self, wk_scalar p, int64_t dim, wk_scalar maxnorm) {
    int64_t reduce[WK_MAX_DIM];
    int nr;
    if (renorm_check(self, p, dim, maxnorm, reduce, &nr) < 0) return NULL;
    wk_dtype dt = self->dtype;
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *norm = wk_linalg_vector_norm(self, p, wk_ints(reduce, nr), true,
                                            wk_dtype_is_floating(dt) && acc_dtype(dt) != dt ? acc_dtype(dt) : WK_DTYPE_NONE);
    wk_tensor *nc = norm ? wk__to_dtype(norm, dt) : NULL; /* the factor lives in self's type */
    wk_tensor *f = nc ? wk__clone(nc) : NULL, *r = NULL;
    if (f) {
        int64_t n = wk__numel(f);
        size_t es = wk_dtype_size(dt);
        char *pf = wk__data(f); /* [numel(norm)] norms, overwritten by factors */
        double mx = wk__scalar_to_double(maxnorm);
        for (int64_t k = 0; k < n; k++) {
            char *e = pf + (size_t)k * es;
            double v = wk__load_double(e, dt), out;
            if (dt == WK_FLOAT64) out = v > mx ? mx / (v + 1e-7) : 1.0;
            else if (dt == WK_FLOAT32) out = (float)v > (float)mx ? (float)mx / ((float)v + (float)1e-7) : 1.0f;
            else { /* half arithmetic: each step rounded to the storage type */
                uint16_t t[1];
                wk__store_scalar(t, dt, wk_float(1e-7));
                double eps = wk__load_double(t, dt);
                wk__store_scalar(t, dt, wk_float(mx));
                double mh = wk__load_double(t, dt);
                wk__store_scalar(t, dt, wk_float(v + eps));
                double den = wk__load_double(t, dt);
                out = v > mh ? mh / den : 1.0;
            }
            wk__store_scalar(e, dt, wk_float(out));
        }
        r = wk_mul(self, f);
    }
    wk_set_grad_enabled(prev);
    wk_release(norm);
    wk_release(nc);
    wk_release(f);
    return r;
}

/* torch's renorm_backward: where(norm > maxnorm, factor * grad - factor * invnorm * norm_backward(...), grad) */
wk_tensor *wk_impl_renorm_backward(wk_tensor *grad, wk_tensor *self, wk_scalar p, int64_t dim, wk_scalar maxnorm) {
    pool P = {0};
    int64_t reduce[WK_MAX_DIM];
    int nr;
    if (renorm_check(self, p, dim, maxnorm, reduce, &nr) < 0) return NULL;
    wk_dtype acc = acc_dtype(self->dtype);
    wk_tensor *norm, *sg, *go, *nb, *ne, *inv, *fac, *a, *b, *c, *d, *gt;
    TRY(norm, wk_linalg_vector_norm(self, p, wk_ints(reduce, nr), true, acc != self->dtype ? acc : WK_DTYPE_NONE));
    TRY(sg, wk_mul(self, grad));
    TRY(go, wk_sum_dim(sg, wk_ints(reduce, nr), true, acc != sg->dtype ? acc : WK_DTYPE_NONE));
    TRY(nb, wk_linalg_vector_norm_backward(go, self, p, norm, wk_ints(reduce, nr), true));
    TRY(ne, wk_add_Scalar(norm, wk_float(1e-7), wk_int(1)));
    TRY(inv, wk_reciprocal(ne));
    TRY(fac, wk_mul_Scalar(inv, maxnorm));
    TRY(a, wk_mul(fac, grad));
    TRY(b, wk_mul(fac, inv));
    TRY(c, wk_mul(b, nb));
    TRY(d, wk_sub(a, c, wk_int(1)));
    TRY(gt, wk_gt_Scalar(norm, maxnorm));
    return pool_done(&P, K(wk_where_self(gt, d, grad)));
}

/* ---- cdist ------------------------------------------------------------------------------------------------------ */
/* batch shape of x1 [..., P, M] and x2 [..., R, M] broadcast; x1 / x2 expanded and made contiguous as [B, P|R, M] */
static int cdist_expand(wk_tensor *x1, wk_tensor *x2, int *nb, int64_t *bshape, wk_tensor **e1, wk_tensor **e2) {
    if (wk__broadcast_shapes(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, nb, bshape) < 0) return -1;
    int64_t s1[WK_MAX_DIM], s2[WK_MAX_DIM];
    memcpy(s1, bshape, sizeof(int64_t) * (size_t)*nb);
    memcpy(s2, bshape, sizeof(int64_t) * (size_t)*nb);
    s1[*nb] = x1->sizes[x1->ndim - 2], s1[*nb + 1] = x1->sizes[x1->ndim - 1];
    s2[*nb] = x2->sizes[x2->ndim - 2], s2[*nb + 1] = x2->sizes[x2->ndim - 1];
    wk_tensor *a = wk__expand_to(x1, *nb + 2, s1), *b = a ? wk__expand_to(x2, *nb + 2, s2) : NULL;
    *e1 = b ? wk__contiguous(a) : NULL;
    *e2 = *e1 ? wk__contiguous(b) : NULL;
    wk_release(a);
    wk_release(b);
    if (!*e2) {
        wk_release(*e1);
        return -1;
    }
    return 0;
}

static int cdist_checks(wk_tensor *x1, wk_tensor *x2, double p, wk_optint mode) {
    if (x1->ndim < 2) return wk__error(WK_RUNTIME_ERROR, "cdist only supports at least 2D tensors, X1 got: %dD", x1->ndim), -1;
    if (x2->ndim < 2) return wk__error(WK_RUNTIME_ERROR, "cdist only supports at least 2D tensors, X2 got: %dD", x2->ndim), -1;
    if (x1->sizes[x1->ndim - 1] != x2->sizes[x2->ndim - 1])
        return wk__error(WK_RUNTIME_ERROR, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                         (long long)x1->sizes[x1->ndim - 1], (long long)x2->sizes[x2->ndim - 1]), -1;
    if (!wk_dtype_is_floating(x1->dtype))
        return wk__error(WK_RUNTIME_ERROR, "cdist only supports floating-point dtypes, X1 got: %s",
                         wk_dtype_scalar_name(x1->dtype)), -1;
    if (!wk_dtype_is_floating(x2->dtype))
        return wk__error(WK_RUNTIME_ERROR, "cdist only supports floating-point dtypes, X2 got: %s",
                         wk_dtype_scalar_name(x2->dtype)), -1;
    if (!(p >= 0)) return wk__error(WK_RUNTIME_ERROR, "cdist only supports non-negative p values"), -1;
    if (mode.has && (mode.v < 0 || mode.v > 2))
        return wk__error(WK_RUNTIME_ERROR, "possible modes: 0, 1, 2, but was: %lld", (long long)mode.v), -1;
    return 0;
}

/* the direct path: every pair of rows, accumulated in double */
wk_tensor *wk_impl__cdist_forward(wk_tensor *x1, wk_tensor *x2, double p, wk_optint compute_mode) {
    if (cdist_checks(x1, x2, p, compute_mode) < 0) return NULL;
    if (x1->dtype != x2->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(x1->dtype),
                       wk_dtype_scalar_name(x2->dtype));
    if (x1->dtype == WK_FLOAT16 || x1->dtype == WK_BFLOAT16) {
        wk__not_implemented_for("cdist", x1->dtype);
        return NULL;
    }
    int nb;
    int64_t shape[WK_MAX_DIM];
    wk_tensor *a, *b;
    if (cdist_expand(x1, x2, &nb, shape, &a, &b) < 0) return NULL;
    int64_t P = a->sizes[nb], R = b->sizes[nb], M = a->sizes[nb + 1], B = wk__prod(shape, nb);
    shape[nb] = P, shape[nb + 1] = R;
    wk_tensor *out = wk__empty(nb + 2, shape, x1->dtype);
    if (out) {
        bool f64 = x1->dtype == WK_FLOAT64;
        const char *pa = wk__data(a), *pb = wk__data(b); /* [B, P, M], [B, R, M] */
        char *po = wk__data(out);                         /* [B, P, R] */
        for (int64_t k = 0; k < B; k++)
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = 0; j < R; j++) {
                    double acc = 0;
                    for (int64_t m = 0; m < M; m++) {
                        int64_t ia = (k * P + i) * M + m, ib = (k * R + j) * M + m;
                        double d = f64 ? ((const double *)pa)[ia] - ((const double *)pb)[ib]
                                       : (double)(((const float *)pa)[ia] - ((const float *)pb)[ib]);
                        d = fabs(d);
                        if (p == 0) acc += d != 0;
                        else if (p == 1) acc += d;
                        else if (p == 2) acc += d * d;
                        else if (isinf(p)) acc = d > acc ? d : acc;
                        else acc += pow(d, p);
                    }
                    double r = p == 2 ? sqrt(acc) : (p == 0 || p == 1 || isinf(p)) ? acc : pow(acc, 1.0 / p);
                    int64_t io = (k * P + i) * R + j;
                    if (f64) ((double *)po)[io] = r;
                    else ((float *)po)[io] = (float)r;
                }
    }
    wk_release(a);
    wk_release(b);
    return out;
}

/* d cdist / d x1 for grad [B..., P, R], x1 [..., P, M], x2 [..., R, M], cdist [B..., P, R]: x1 expanded to the batch */
wk_tensor *wk_impl__cdist_backward(wk_tensor *grad, wk_tensor *x1, wk_tensor *x2, double p, wk_tensor *cdist) {
    int nb;
    int64_t shape[WK_MAX_DIM], d;
    wk_tensor *a, *b;
    /* ranks and sizes first (the loops below index every one of them): torch's IndexError for a missing dim */
    for (int i = 0; i < 2; i++) {
        const wk_tensor *x = i ? x2 : x1;
        if (x->ndim == 0) return WK_FAIL(WK_INDEX_ERROR, "Dimension specified as -1 but tensor has no dimensions");
        if (wk__wrap_dim(-2, x->ndim, &d) < 0) return NULL;
    }
    if (x1->sizes[x1->ndim - 1] != x2->sizes[x2->ndim - 1])
        return WK_FAIL(WK_RUNTIME_ERROR, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                       (long long)x1->sizes[x1->ndim - 1], (long long)x2->sizes[x2->ndim - 1]);
    if (cdist_expand(x1, x2, &nb, shape, &a, &b) < 0) return NULL;
    int64_t want; /* B * P * R (it may overflow where M is 0) */
    bool over = __builtin_mul_overflow(wk__prod(shape, nb), a->sizes[nb], &want) ||
                __builtin_mul_overflow(want, b->sizes[nb], &want);
    if (over || wk__numel(grad) != want || wk__numel(cdist) != want) {
        wk__error(WK_RUNTIME_ERROR, "_cdist_backward: expected grad and cdist of %lld elements, got %lld and %lld",
                  (long long)want, (long long)wk__numel(grad), (long long)wk__numel(cdist));
        wk_release(a);
        wk_release(b);
        return NULL;
    }
    wk_tensor *g = wk__to_dtype(grad, WK_FLOAT64), *gc = g ? wk__contiguous(g) : NULL;
    wk_tensor *c = gc ? wk__to_dtype(cdist, WK_FLOAT64) : NULL, *cc = c ? wk__contiguous(c) : NULL;
    wk_tensor *a64 = cc ? wk__to_dtype(a, WK_FLOAT64) : NULL, *b64 = a64 ? wk__to_dtype(b, WK_FLOAT64) : NULL;
    wk_tensor *r64 = b64 ? wk__zeros(a->ndim, a->sizes, WK_FLOAT64) : NULL, *res = NULL;
    if (r64) {
        int64_t P = a->sizes[nb], R = b->sizes[nb], M = a->sizes[nb + 1], B = wk__prod(shape, nb);
        const double *G = (const double *)wk__data(gc), *D = (const double *)wk__data(cc); /* [B, P, R] each */
        const double *X = (const double *)wk__data(a64), *Y = (const double *)wk__data(b64); /* [B, P, M], [B, R, M] */
        double *O = (double *)wk__data(r64); /* [B, P, M] */
        for (int64_t k = 0; k < B; k++)
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = 0; j < R; j++) {
                    double gd = G[(k * P + i) * R + j], dist = D[(k * P + i) * R + j];
                    for (int64_t m = 0; m < M; m++) {
                        double diff = X[(k * P + i) * M + m] - Y[(k * R + j) * M + m], v;
                        double s = (diff > 0) - (diff < 0);
                        if (p == 0) v = 0;
                        else if (p == 1) v = gd * s;
                        else if (p < 2) v = (dist == 0 || (diff == 0 && p < 1)) ? 0 : s * pow(fabs(diff), p - 1) * gd / pow(dist, p - 1);
                        else if (p == 2) v = dist == 0 ? 0 : gd * diff / dist;
                        else if (isinf(p)) v = gd * s * (fabs(diff) == dist);
                        else v = dist == 0 ? 0 : diff * pow(fabs(diff), p - 2) * gd / pow(dist, p - 1);
                        O[(k * P + i) * M + m] += v;
                    }
                }
        res = wk__to_dtype(r64, x1->dtype);
    }
    wk_release(a);
    wk_release(b);
    wk_release(g);
    wk_release(gc);
    wk_release(c);
    wk_release(cc);
    wk_release(a64);
    wk_release(b64);
    wk_release(r64);
    return res;
}

/* torch's _euclidean_dist: [-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T, clamped at 0, square-rooted */
wk_tensor *wk_impl__euclidean_dist(wk_tensor *x1, wk_tensor *x2) {
    pool P = {0};
    bool prev = wk_set_grad_enabled(false);
    int64_t m1 = -1;
    wk_tensor *s1, *n1, *p1, *s2, *n2, *p2, *a1, *c1, *c2, *ct, *r, *cm, *sq;
#define EU(v, e)                                  \
    if (!((v) = K(e))) {                          \
        wk_set_grad_enabled(prev);                \
        return pool_done(&P, NULL);               \
    }
    EU(s1, wk_pow_Tensor_Scalar(x1, wk_int(2)));
    EU(n1, wk_sum_dim(s1, wk_ints(&m1, 1), true, WK_DTYPE_NONE));
    EU(p1, wk_ones_like(n1, WK_DTYPE_NONE, false));
    EU(s2, wk_pow_Tensor_Scalar(x2, wk_int(2)));
    EU(n2, wk_sum_dim(s2, wk_ints(&m1, 1), true, WK_DTYPE_NONE));
    EU(p2, wk_ones_like(n2, WK_DTYPE_NONE, false));
    EU(a1, wk_mul_Scalar(x1, wk_int(-2)));
    wk_tensor *l1[3] = {a1, n1, p1}, *l2[3] = {x2, p2, n2};
    EU(c1, wk_cat((wk_tensorlist){l1, 3}, -1));
    EU(c2, wk_cat((wk_tensorlist){l2, 3}, -1));
    EU(ct, wk_mT(c2));
    EU(r, wk_matmul(c1, ct));
    EU(cm, wk_clamp_min(r, wk_int(0))); /* out of place: torch's kernels leave the version counter at 0 */
    EU(sq, wk_sqrt(cm));
#undef EU
    wk_set_grad_enabled(prev);
    return pool_done(&P, sq);
}

/* torch's _euclidean_dist_backward: ratio = grad / res (0 where res == 0);
 * x1: x1 * ratio.sum(-1, true) - ratio @ x2;  x2: x2 * ratio.sum(-2).unsqueeze(-1) - ratio^T @ x1 */
wk_tensor *wk_impl__euclidean_dist_backward(wk_tensor *grad, wk_tensor *x1, wk_tensor *x2, wk_tensor *res, bool first) {
    pool P = {0};
    wk_tensor *ratio, *z, *mf, *s, *a, *b;
    TRY(ratio, wk_div(grad, res, NULL));
    TRY(z, wk_eq_Scalar(res, wk_int(0)));
    TRY(mf, wk_masked_fill_Scalar_(ratio, z, wk_int(0)));
    if (first) {
        int64_t m1 = -1;
        TRY(s, wk_sum_dim(ratio, wk_ints(&m1, 1), true, WK_DTYPE_NONE));
        TRY(a, wk_mul(x1, s));
        TRY(b, wk_matmul(ratio, x2));
    } else {
        int64_t m2 = -2;
        wk_tensor *s0, *rt;
        TRY(s0, wk_sum_dim(ratio, wk_ints(&m2, 1), false, WK_DTYPE_NONE));
        TRY(s, wk_unsqueeze(s0, -1));
        TRY(a, wk_mul(x2, s));
        TRY(rt, wk_mT(ratio));
        TRY(b, wk_matmul(rt, x1));
    }
    return pool_done(&P, K(wk_sub(a, b, wk_int(1))));
}

wk_tensor *wk_impl_cdist(wk_tensor *x1, wk_tensor *x2, double p, wk_optint compute_mode) {
    if (x1->ndim < 2 || x2->ndim < 2 || x1->sizes[x1->ndim - 1] != x2->sizes[x2->ndim - 1])
        return cdist_checks(x1, x2, p, compute_mode) < 0 ? NULL : NULL;
    int64_t r1 = x1->sizes[x1->ndim - 2], r2 = x2->sizes[x2->ndim - 2];
    int64_t mode = compute_mode.has ? compute_mode.v : 0;
    if (wk__numel(x1) == 0 || wk__numel(x2) == 0 || !(p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))))
        return wk__cdist_forward(x1, x2, p, compute_mode);
    if (cdist_checks(x1, x2, p, compute_mode) < 0) return NULL;
    /* the matrix-product path on the batch-expanded inputs, viewed as the output shape */
    pool P = {0};
    int nb;
    int64_t bshape[WK_MAX_DIM], s1[3], s2[3], out[WK_MAX_DIM];
    if (wk__broadcast_shapes(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, &nb, bshape) < 0) return NULL;
    int64_t B = wk__prod(bshape, nb), c = x1->sizes[x1->ndim - 1];
    wk_tensor *a = x1, *b = x2, *d;
    if (B != 1 || x1->ndim != x2->ndim) {
        int64_t e1[WK_MAX_DIM], e2[WK_MAX_DIM];
        memcpy(e1, bshape, sizeof(int64_t) * (size_t)nb);
        memcpy(e2, bshape, sizeof(int64_t) * (size_t)nb);
        e1[nb] = r1, e1[nb + 1] = c, e2[nb] = r2, e2[nb + 1] = c;
        s1[0] = B, s1[1] = r1, s1[2] = c, s2[0] = B, s2[1] = r2, s2[2] = c;
        wk_tensor *ea, *eb;
        TRY(ea, wk_expand(x1, wk_ints(e1, nb + 2), false));
        TRY(a, wk_reshape(ea, wk_ints(s1, 3)));
        TRY(eb, wk_expand(x2, wk_ints(e2, nb + 2), false));
        TRY(b, wk_reshape(eb, wk_ints(s2, 3)));
    }
    TRY(d, wk__euclidean_dist(a, b));
    memcpy(out, bshape, sizeof(int64_t) * (size_t)nb);
    out[nb] = r1, out[nb + 1] = r2;
    return pool_done(&P, K(wk_view(d, wk_ints(out, nb + 2))));
}

/* ---- real tensors' complex views: self itself ---------------------------------------------------------------- */
wk_tensor *wk_impl_conj_real(wk_tensor *self) { return wk_retain(self); }
wk_tensor *wk_impl_resolve_conj_real(wk_tensor *self) { return wk_retain(self); }
wk_tensor *wk_impl_resolve_neg_real(wk_tensor *self) { return wk_retain(self); }
wk_tensor *wk_impl_conj_physical_real(wk_tensor *self) { return wk_retain(self); }
int wk_impl_is_conj(wk_tensor *self, bool *result) {
    (void)self;
    *result = false;
    return 0;
}
int wk_impl_is_neg(wk_tensor *self, bool *result) {
    (void)self;
    *result = false;
    return 0;
}

/* ---- empty_strided / new_empty_strided: zero-filled (torch leaves the memory uninitialised) --------------------- */
wk_tensor *wk_impl_empty_strided(wk_intlist size, wk_intlist stride, wk_dtype dtype, bool requires_grad) {
    if (size.len != stride.len)
        return WK_FAIL(WK_RUNTIME_ERROR, "dimensionality of sizes (%lld) must match dimensionality of strides (%lld)",
                       (long long)size.len, (long long)stride.len);
    if (size.len > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    for (int64_t i = 0; i < stride.len; i++)
        if (stride.data[i] < 0) {
            wk_strbuf b = {0};
            wk_sb_ints(&b, stride.data, (int)stride.len);
            wk__error(WK_RUNTIME_ERROR, "as_strided: Negative strides are not supported at the moment, got strides: %s",
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return NULL;
        }
    wk_tensor *t = wk__empty_strided((int)size.len, size.data, stride.data,
                                     dtype == WK_DTYPE_NONE ? wk_get_default_dtype() : dtype);
    if (t && t->storage->nbytes) memset(t->storage->data, 0, t->storage->nbytes);
    return wk__finish_factory(t, requires_grad);
}
wk_tensor *wk_impl_new_empty_strided(wk_tensor *self, wk_intlist size, wk_intlist stride, wk_dtype dtype, bool requires_grad) {
    return wk_impl_empty_strided(size, stride, dtype == WK_DTYPE_NONE ? self->dtype : dtype, requires_grad);
}

/* ---- mvlgamma: torch's composite (UnaryOps.cpp), step by step in its order and dtypes -------------------------- */
#define MP_(x) wk_cpool_add(&mp, (mp.failed ? NULL : (x))) /* P_ over a pool named mp (extra.c has a global pool) */
static int mvlgamma_check(const wk_tensor *self, int64_t p) {
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "The input tensor may not be a boolean tensor.");
        return -1;
    }
    if (p < 1) {
        wk__error(WK_RUNTIME_ERROR, "p has to be greater than or equal to 1");
        return -1;
    }
    return 0;
}

static wk_dtype mvlgamma_dtype(const wk_tensor *self) {
    return wk_dtype_is_integral(self->dtype, true) ? wk_get_default_dtype() : self->dtype;
}

/* arange((1 - p) / 2, 1/2, 1/2) + self[..., None]: [*self.shape, p] (recorded ops) */
static wk_tensor *mvlgamma_args(wk_tensor *self, int64_t p, wk_dtype dt) {
    wk_cpool mp = {0};
    wk_tensor *a = MP_(wk_arange_start_step(wk_float((double)-p * 0.5 + 0.5), wk_float(0.5), wk_float(0.5), dt, false));
    wk_tensor *r = MP_(wk_add(a, MP_(wk_unsqueeze(self, -1)), wk_int(1)));
    return wk_cpool_end(&mp, r);
}

wk_tensor *wk_impl_mvlgamma(wk_tensor *self, int64_t p) {
    if (mvlgamma_check(self, p) < 0) return NULL;
    bool prev = wk_set_grad_enabled(false);
    wk_cpool mp = {0};
    int64_t last = -1;
    wk_tensor *args = MP_(mvlgamma_args(self, p, mvlgamma_dtype(self)));
    wk_tensor *s = MP_(wk_sum_dim(MP_(wk_lgamma(args)), wk_ints(&last, 1), false, WK_DTYPE_NONE));
    const double p2_sub_p = (double)p * (double)(p - 1); /* exact below 2^26; in double, no int64 overflow */
    wk_tensor *r = MP_(wk_add_Scalar(s, wk_float(p2_sub_p * log(3.14159265358979323846) * 0.25), wk_int(1)));
    r = wk_cpool_end(&mp, r);
    wk_set_grad_enabled(prev);
    return r;
}

/* torch's mvlgamma_out: the result's dtype must cast to out's; its message names self's dtype first */
static int mvlgamma_cast_check(const wk_tensor *self, wk_dtype result, wk_dtype dest) {
    if (wk_can_cast(result, dest)) return 0;
    wk__error(WK_RUNTIME_ERROR, "mvlgamma: result type %s can't be cast to the desired output type %s",
              wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(result));
    return -1;
}

wk_tensor *wk_impl_mvlgamma_out(wk_tensor *out, wk_tensor *self, int64_t p) {
    wk_tensor *r = wk_impl_mvlgamma(self, p);
    if (!r) return NULL;
    int rc = mvlgamma_cast_check(self, r->dtype, out->dtype);
    if (rc == 0) rc = wk__write_out(out, r);
    wk_release(r);
    return rc < 0 ? NULL : wk_retain(out);
}

int wk_impl__mvlgamma_inplace_check(wk_tensor *self, int64_t p, bool *result) {
    *result = true;
    if (mvlgamma_check(self, p) < 0) return -1;
    return mvlgamma_cast_check(self, mvlgamma_dtype(self), self->dtype);
}

/* torch's mvlgamma_backward (FunctionsManual.cpp): grad * digamma(arange(-p/2 + 1/2, 1/2, 1/2) + self[..., None]).sum(-1) */
wk_tensor *wk_impl_mvlgamma_backward(wk_tensor *grad, wk_tensor *self, int64_t p) {
    wk_cpool mp = {0};
    int64_t last = -1;
    wk_tensor *args = MP_(mvlgamma_args(self, p, self->dtype));
    wk_tensor *s = MP_(wk_sum_dim(MP_(wk_digamma(args)), wk_ints(&last, 1), false, WK_DTYPE_NONE));
    return wk_cpool_end(&mp, MP_(wk_mul(grad, s)));
}
