/* dtype.c — the dtype table, type promotion, casting rules, scalars and reduced-precision floats. */
#include "core/core.h"

typedef struct {
    const char *name, *scalar_name, *legacy;
    size_t size;
    char kind;
} dtype_info;

static const dtype_info DTYPES[WK_NUM_DTYPES] = {
#define WK_X(E, n, s, sz, k) {#n, #s, "torch." #s "Tensor", sz, k},
    WK_DTYPES(WK_X)
#undef WK_X
};

static bool valid(wk_dtype dt) { return dt >= 0 && dt < WK_NUM_DTYPES; }
const char *wk_dtype_name(wk_dtype dt) { return valid(dt) ? DTYPES[dt].name : "?"; }
const char *wk_dtype_scalar_name(wk_dtype dt) { return valid(dt) ? DTYPES[dt].scalar_name : "?"; }
const char *wk__legacy_type_name(wk_dtype dt) { return valid(dt) ? DTYPES[dt].legacy : "?"; }
/* The C++ type name torch's messages use (caffe2::TypeMeta): "float", "double", "long int", "c10::Half", ... */
const char *wk__cpp_type_name(wk_dtype dt) {
    static const char *names[WK_NUM_DTYPES] = {"bool",     "unsigned char", "signed char", "short int",     "int",
                                               "long int", "c10::Half",     "c10::BFloat16", "float",       "double"};
    return valid(dt) ? names[dt] : "?";
}
size_t wk_dtype_size(wk_dtype dt) { return valid(dt) ? DTYPES[dt].size : 0; }
bool wk_dtype_is_floating(wk_dtype dt) { return valid(dt) && DTYPES[dt].kind == 'f'; }
bool wk_dtype_is_integral(wk_dtype dt, bool include_bool) {
    return valid(dt) && (DTYPES[dt].kind == 'i' || DTYPES[dt].kind == 'u' || (include_bool && DTYPES[dt].kind == 'b'));
}

/* Note [Type promotion]: torch's promoteTypes table (c10/core/ScalarType.h), rows and columns in enum order
 * b1 u8 i8 i16 i32 i64 f16 bf16 f32 f64. u8 with i8 is i16; f16 with bf16 is f32. */
#define b1 WK_BOOL
#define u1 WK_UINT8
#define i1 WK_INT8
#define i2 WK_INT16
#define i4 WK_INT32
#define i8 WK_INT64
#define f2 WK_FLOAT16
#define bf WK_BFLOAT16
#define f4 WK_FLOAT32
#define f8 WK_FLOAT64
static const wk_dtype PROMOTE[WK_NUM_DTYPES][WK_NUM_DTYPES] = {
    /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
    /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
    /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
    /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
    /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
    /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
};
#undef b1
#undef u1
#undef i1
#undef i2
#undef i4
#undef i8
#undef f2
#undef bf
#undef f4
#undef f8

wk_dtype wk_promote_types(wk_dtype a, wk_dtype b) {
    if (!valid(a)) return b;
    if (!valid(b)) return a;
    return PROMOTE[a][b];
}

/* torch's canCast: no floating -> integral, no non-bool -> bool. */
bool wk_can_cast(wk_dtype from, wk_dtype to) {
    if (wk_dtype_is_floating(from) && !wk_dtype_is_floating(to)) return false;
    if (from != WK_BOOL && to == WK_BOOL) return false;
    return true;
}

static wk_dtype default_dtype = WK_FLOAT32;
wk_dtype wk_get_default_dtype(void) { return default_dtype; }
int wk_set_default_dtype(wk_dtype dt) {
    if (dt != WK_FLOAT32 && dt != WK_FLOAT64 && dt != WK_FLOAT16 && dt != WK_BFLOAT16) {
        wk__error(WK_TYPE_ERROR, "only floating-point types are supported as the default type");
        return -1;
    }
    default_dtype = dt;
    return 0;
}

/* ---- result_type (Note [Type promotion], part 2) ----
 * Operands fall into three priority classes (tensors with dim >= 1, 0-d tensors, Python scalars); each class is
 * folded with promote_types, then the classes are combined so that a lower class only changes the category. */
void wk__promo_init(wk_promo *p) { p->dim_result = p->zero_result = p->wrapped_result = WK_DTYPE_NONE; }
void wk__promo_tensor(wk_promo *p, const wk_tensor *t) {
    if (t->wrapped_number) {
        wk_dtype d = wk_dtype_is_floating(t->dtype) ? default_dtype : t->dtype;
        p->wrapped_result = wk_promote_types(p->wrapped_result, d);
        return;
    }
    wk_dtype *slot = t->ndim > 0 ? &p->dim_result : &p->zero_result;
    *slot = wk_promote_types(*slot, t->dtype);
}
wk_dtype wk__scalar_dtype(wk_scalar s) {
    switch (s.tag) {
    case WK_SCALAR_BOOL: return WK_BOOL;
    case WK_SCALAR_INT: return WK_INT64;
    case WK_SCALAR_FLOAT: return default_dtype;
    default: return WK_DTYPE_NONE;
    }
}
void wk__promo_scalar(wk_promo *p, wk_scalar s) { p->wrapped_result = wk_promote_types(p->wrapped_result, wk__scalar_dtype(s)); }

static wk_dtype combine(wk_dtype higher, wk_dtype lower) {
    if (!valid(higher)) return lower;
    if (!valid(lower)) return higher;
    if (wk_dtype_is_floating(higher)) return higher;
    if (higher == WK_BOOL || wk_dtype_is_floating(lower)) return wk_promote_types(higher, lower);
    return higher;
}
wk_dtype wk__promo_result(const wk_promo *p) { return combine(p->dim_result, combine(p->zero_result, p->wrapped_result)); }

/* ---- reduced-precision floats ---- */
float wk__half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, u;
    if (exp == 0x1f) u = sign | 0x7f800000 | (man << 13);
    else if (exp) u = sign | ((exp + 112) << 23) | (man << 13);
    else if (!man) u = sign;
    else { /* subnormal: normalise */
        exp = 113;
        while (!(man & 0x400)) { man <<= 1; exp--; }
        u = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t wk__float_to_half(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
    if (a > 0x7f800000) return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff)); /* nan, keep quiet */
    if (a >= 0x477ff000) return (uint16_t)(sign | 0x7c00);                     /* overflow -> inf (round to nearest) */
    if (a < 0x38800000) {                                                      /* result subnormal or zero */
        if (a < 0x33000000) return (uint16_t)sign;                             /* < half of smallest subnormal */
        uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e; /* value = m * 2^(e-150); in half-subnormal units of 2^-24: m >> (126 - e) */
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = a - 0x38000000; /* rebias exponent 127 -> 15 */
    uint32_t h = r >> 13, rem = r & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

/* ---- scalars <-> elements ----
 * Float to integer conversion follows what torch's static_cast compiles to on x86: out-of-range and nan give
 * the "integer indefinite" value, narrower types take the low bits of the 32-bit conversion. */
static int64_t f_to_i64(double x) {
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)x;
}
static int32_t f_to_i32(double x) {
    if (!(x > -2147483649.0 && x < 2147483648.0)) return INT32_MIN;
    return (int32_t)x;
}

void wk__store_scalar(void *p, wk_dtype dt, wk_scalar s) {
    bool is_f = s.tag == WK_SCALAR_FLOAT;
    double d = is_f ? s.v.f : (double)s.v.i;
    int64_t i = is_f ? f_to_i64(s.v.f) : s.v.i;
    int32_t i32 = is_f ? f_to_i32(s.v.f) : (int32_t)(uint32_t)(uint64_t)s.v.i;
    switch (dt) {
    case WK_BOOL: *(uint8_t *)p = is_f ? (d != 0) : (i != 0); break;
    case WK_UINT8: *(uint8_t *)p = (uint8_t)(uint32_t)i32; break;
    case WK_INT8: *(int8_t *)p = (int8_t)(uint8_t)(uint32_t)i32; break;
    case WK_INT16: *(int16_t *)p = (int16_t)(uint16_t)(uint32_t)i32; break;
    case WK_INT32: *(int32_t *)p = i32; break;
    case WK_INT64: *(int64_t *)p = i; break;
    case WK_FLOAT16: *(uint16_t *)p = wk__float_to_half((float)d); break;
    case WK_BFLOAT16: *(uint16_t *)p = wk__float_to_bf16((float)d); break;
    case WK_FLOAT32: *(float *)p = (float)d; break;
    case WK_FLOAT64: *(double *)p = d; break;
    default: break;
    }
}

wk_scalar wk__load_scalar(const void *p, wk_dtype dt) {
    switch (dt) {
    case WK_BOOL: return wk_bool(*(const uint8_t *)p != 0);
    case WK_UINT8: return wk_int(*(const uint8_t *)p);
    case WK_INT8: return wk_int(*(const int8_t *)p);
    case WK_INT16: return wk_int(*(const int16_t *)p);
    case WK_INT32: return wk_int(*(const int32_t *)p);
    case WK_INT64: return wk_int(*(const int64_t *)p);
    case WK_FLOAT16: return wk_float(wk__half_to_float(*(const uint16_t *)p));
    case WK_BFLOAT16: return wk_float(wk__bf16_to_float(*(const uint16_t *)p));
    case WK_FLOAT32: return wk_float(*(const float *)p);
    case WK_FLOAT64: return wk_float(*(const double *)p);
    default: return wk_scalar_none();
    }
}

double wk__load_double(const void *p, wk_dtype dt) { return wk__scalar_to_double(wk__load_scalar(p, dt)); }
double wk__scalar_to_double(wk_scalar s) { return s.tag == WK_SCALAR_FLOAT ? s.v.f : (double)s.v.i; }
int64_t wk__scalar_to_int(wk_scalar s) { return s.tag == WK_SCALAR_FLOAT ? f_to_i64(s.v.f) : s.v.i; }

/* public (include/wick.h, "scalars") */
double wk_scalar_to_double(wk_scalar s) { return wk__scalar_to_double(s); }
wk_scalar wk_scalar_load(const void *p, wk_dtype dt) { return wk__load_scalar(p, dt); }
void wk_scalar_store(void *p, wk_dtype dt, wk_scalar s) { wk__store_scalar(p, dt, s); }
const char *wk_dtype_legacy_type_name(wk_dtype dt) { return wk__legacy_type_name(dt); }
