/* index.c — indexing: Python's x[...] / x[...] = v (wk_getitem / wk_setitem and the streaming wk_index_* API),
 * advanced indexing (index, index_put), and the ops of the family: gather, scatter, scatter_add, scatter_reduce,
 * index_select/add/copy/fill, masked_fill/select/scatter, take, put, take_along_dim, nonzero, argwhere, where(cond).
 *
 * Note [Indexing kernels]: indexing only moves elements, so the copy loops are picked by element size (1, 2, 4, 8
 * bytes), never by dtype; only accumulating writes (index_put accumulate, scatter_add, index_add, ...) have typed
 * loops. Every kernel goes through the strided iterator: the tensor that is read or written at data-dependent places
 * is "restrided" to the iteration shape with stride 0 in the indexed dims, and the loop adds the index (already
 * bounds-checked and multiplied by the stride) to its pointer — ATen's restride_src trick. */
#include "ops/index.h"

#include <float.h>

#include "autograd/autograd.h"
#include "cpu/iter.h"
#include "ops_impl.h"

/* ================================================================================================
 * small helpers
 * ================================================================================================ */

/* "[2, 3]" into a static-per-call buffer pair: messages use at most two shapes at once. */
static const char *shape_str(wk_strbuf *b, const int64_t *sizes, int n) {
    b->len = 0;
    if (b->s) b->s[0] = 0;
    wk_sb_ints(b, sizes, n);
    return b->s ? b->s : "[]";
}

static bool is_mask_dtype(wk_dtype d) { return d == WK_BOOL || d == WK_UINT8; }

static int64_t numel_of(int n, const int64_t *s) { return wk__prod(s, n); }

static int check_ndim(int n) {
    if (n > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %d", WK_MAX_DIM, n);
        return -1;
    }
    return 0;
}

/* ---- checked scalar conversion (index.h) ---- */
static const char *ctype_name(wk_dtype dt) {
    switch (dt) {
    case WK_UINT8: return "uint8_t";
    case WK_INT8: return "int8_t";
    case WK_INT16: return "int16_t";
    case WK_INT32: return "int";
    case WK_INT64: return "int64_t";
    case WK_FLOAT32: return "float";
    case WK_FLOAT64: return "double";
    case WK_FLOAT16: return "c10::Half";
    case WK_BFLOAT16: return "c10::BFloat16";
    default: return "bool";
    }
}

int wk__check_scalar_fits(wk_scalar s, wk_dtype dt) {
    double lo = 0, hi = 0;
    switch (dt) {
    case WK_UINT8: lo = 0, hi = 255; break;
    case WK_INT8: lo = -128, hi = 127; break;
    case WK_INT16: lo = -32768, hi = 32767; break;
    case WK_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
    case WK_INT64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
    case WK_FLOAT32: lo = -FLT_MAX, hi = FLT_MAX; break;
    case WK_FLOAT16: lo = -65504.0, hi = 65504.0; break;
    case WK_BFLOAT16: lo = -3.3895313892515355e38, hi = 3.3895313892515355e38; break;
    default: return 0; /* bool, float64: never refused */
    }
    bool bad = false, floating = wk_dtype_is_floating(dt);
    if (s.tag == WK_SCALAR_FLOAT) {
        double f = s.v.f;
        if (floating) bad = !isinf(f) && !isnan(f) && (f < lo || f > hi);
        else bad = isnan(f) || f < lo || f > hi;
    } else if (s.tag == WK_SCALAR_INT && dt != WK_FLOAT32 && dt != WK_BFLOAT16 && dt != WK_INT64) {
        int64_t v = s.v.i;
        if (dt == WK_UINT8) bad = v > 255 || v < -255; /* negative values wrap (two's complement) */
        else bad = v < (int64_t)lo || v > (int64_t)hi;
    }
    if (bad) {
        wk__error(WK_RUNTIME_ERROR, "value cannot be converted to type %s without overflow", ctype_name(dt));
        return -1;
    }
    return 0;
}

wk_tensor *wk__scalar_tensor_checked(wk_scalar s, wk_dtype dt) {
    if (wk__check_scalar_fits(s, dt) < 0) return NULL;
    return wk__full(0, NULL, dt, s);
}

/* ---- memory overlap (index.h), as ATen's MemOverlap.cpp ---- */
typedef enum { OVERLAP_NO, OVERLAP_FULL, OVERLAP_PARTIAL, OVERLAP_TOO_HARD } overlap;

static overlap overlap_status(const wk_tensor *a, const wk_tensor *b) {
    if (a == b) return OVERLAP_FULL;
    if (wk__numel(a) == 0 || wk__numel(b) == 0) return OVERLAP_NO;
    if (!wk__non_overlapping_and_dense(a) || !wk__non_overlapping_and_dense(b)) return OVERLAP_TOO_HARD;
    if (a->storage != b->storage) return OVERLAP_NO;
    char *as = wk__data(a), *bs = wk__data(b);
    char *ae = as + wk__numel(a) * (int64_t)wk_dtype_size(a->dtype), *be = bs + wk__numel(b) * (int64_t)wk_dtype_size(b->dtype);
    if (as == bs && ae == be) { /* the same span: the same elements only when laid out alike */
        if (a->ndim != b->ndim) return OVERLAP_PARTIAL;
        for (int d = 0; d < a->ndim; d++)
            if (a->strides[d] != b->strides[d]) return OVERLAP_PARTIAL;
        return OVERLAP_FULL;
    }
    if (as < be && bs < ae) return OVERLAP_PARTIAL;
    return OVERLAP_NO;
}

static int overlap_error(void) {
    wk__error(WK_RUNTIME_ERROR, "unsupported operation: some elements of the input tensor and the written-to tensor "
                                "refer to a single memory location. Please clone() the tensor before performing the "
                                "operation.");
    return -1;
}

/* has_internal_overlap(t) == Yes: some element is reachable twice through a stride-0 dim */
static bool internal_overlap(const wk_tensor *t) {
    if (wk__non_overlapping_and_dense(t)) return false;
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->sizes[i] > 1) return true;
    return false;
}

static void warn_expanded(const char *op, const char *example) {
    wk__warn("Use of %s on expanded tensors is deprecated. Please clone() the tensor before performing this operation. "
             "This also applies to advanced indexing e.g. %s", op, example);
}

int wk__assert_no_internal_overlap(const wk_tensor *t) {
    if (wk__non_overlapping_and_dense(t)) return 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->strides[i] == 0 && t->sizes[i] > 1) {
            wk__error(WK_RUNTIME_ERROR, "unsupported operation: more than one element of the written-to tensor refers "
                                        "to a single memory location. Please clone() the tensor before performing the "
                                        "operation.");
            return -1;
        }
    }
    return 0;
}

int wk__assert_no_partial_overlap(const wk_tensor *out, const wk_tensor *in) {
    return overlap_status(out, in) == OVERLAP_PARTIAL ? overlap_error() : 0;
}

int wk__assert_no_overlap(const wk_tensor *out, const wk_tensor *in) {
    overlap o = overlap_status(out, in);
    return o == OVERLAP_PARTIAL || o == OVERLAP_FULL ? overlap_error() : 0;
}

/* ---- element loops by size (Note [Indexing kernels]) ---- */

/* operands: [out, src (restrided), off (int64, byte offsets into src)]: out = *(src + off) */
#define GATHER_LOOP(SZ, T)                                                                           \
    static void gather_loop_##SZ(char **d, const int64_t *s, int64_t n, void *ctx) {                \
        (void)ctx;                                                                                   \
        char *o = d[0], *src = d[1], *off = d[2];                                                    \
        for (int64_t i = 0; i < n; i++, o += s[0], src += s[1], off += s[2])                         \
            memcpy(o, src + *(const int64_t *)off, SZ);                                              \
    }
GATHER_LOOP(1, uint8_t)
GATHER_LOOP(2, uint16_t)
GATHER_LOOP(4, uint32_t)
GATHER_LOOP(8, uint64_t)
static wk_loop_fn gather_loop(size_t esz) {
    return esz == 1 ? gather_loop_1 : esz == 2 ? gather_loop_2 : esz == 4 ? gather_loop_4 : gather_loop_8;
}

/* operands: [dst (restrided), src, off]: *(dst + off) = src */
#define SCATTER_LOOP(SZ)                                                                             \
    static void scatter_loop_##SZ(char **d, const int64_t *s, int64_t n, void *ctx) {               \
        (void)ctx;                                                                                   \
        char *dst = d[0], *src = d[1], *off = d[2];                                                  \
        for (int64_t i = 0; i < n; i++, dst += s[0], src += s[1], off += s[2])                       \
            memcpy(dst + *(const int64_t *)off, src, SZ);                                            \
    }
SCATTER_LOOP(1)
SCATTER_LOOP(2)
SCATTER_LOOP(4)
SCATTER_LOOP(8)
static wk_loop_fn scatter_loop(size_t esz) {
    return esz == 1 ? scatter_loop_1 : esz == 2 ? scatter_loop_2 : esz == 4 ? scatter_loop_4 : scatter_loop_8;
}

/* Typed reductions into *(dst + off): [dst (restrided), src, off]. REDUCE(acc, v) updates acc (a compute-type
 * lvalue). Half and bfloat16 compute in float and round on every store, as torch's CPU loops do. */
#define SCATTER_RED_LOOP_(NAME, T, CT, LD, ST, REDUCE)                                               \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx) {                            \
        (void)ctx;                                                                                   \
        char *dst = d[0], *src = d[1], *off = d[2];                                                  \
        for (int64_t i = 0; i < n; i++, dst += s[0], src += s[1], off += s[2]) {                     \
            T *p = (T *)(dst + *(const int64_t *)off);                                               \
            CT acc = LD(*p), v = LD(*(const T *)src);                                                \
            REDUCE(acc, v);                                                                          \
            *p = ST(acc);                                                                            \
        }                                                                                            \
    }
#define LD_SAME(x) (x)
#define ST_SAME(x) (x)
#define LD_H(x) wk__half_to_float(x)
#define ST_H(x) wk__float_to_half(x)
#define LD_BF(x) wk__bf16_to_float(x)
#define ST_BF(x) wk__float_to_bf16(x)
#define LD_U(x) ((int64_t)(x))
#define ST_B(x) ((uint8_t)((x) != 0))
#define SCATTER_RED_ALL(NAME, REDUCE, BOOLREDUCE)                                                    \
    SCATTER_RED_LOOP_(NAME##_f32, float, float, LD_SAME, ST_SAME, REDUCE)                            \
    SCATTER_RED_LOOP_(NAME##_f64, double, double, LD_SAME, ST_SAME, REDUCE)                          \
    SCATTER_RED_LOOP_(NAME##_f16, uint16_t, float, LD_H, ST_H, REDUCE)                               \
    SCATTER_RED_LOOP_(NAME##_bf16, uint16_t, float, LD_BF, ST_BF, REDUCE)                            \
    SCATTER_RED_LOOP_(NAME##_u8, uint8_t, int64_t, LD_U, (uint8_t)(uint64_t), REDUCE)                \
    SCATTER_RED_LOOP_(NAME##_i8, int8_t, int64_t, LD_U, (int8_t)(uint8_t)(uint64_t), REDUCE)         \
    SCATTER_RED_LOOP_(NAME##_i16, int16_t, int64_t, LD_U, (int16_t)(uint16_t)(uint64_t), REDUCE)     \
    SCATTER_RED_LOOP_(NAME##_i32, int32_t, int64_t, LD_U, (int32_t)(uint32_t)(uint64_t), REDUCE)     \
    SCATTER_RED_LOOP_(NAME##_i64, int64_t, int64_t, LD_U, (int64_t)(uint64_t), REDUCE)               \
    SCATTER_RED_LOOP_(NAME##_b, uint8_t, int64_t, LD_U, ST_B, BOOLREDUCE)                            \
    static const wk_loop_fn NAME[WK_NUM_DTYPES] = {                                                  \
        [WK_FLOAT32] = NAME##_f32, [WK_FLOAT64] = NAME##_f64, [WK_FLOAT16] = NAME##_f16,             \
        [WK_BFLOAT16] = NAME##_bf16, [WK_UINT8] = NAME##_u8, [WK_INT8] = NAME##_i8,                  \
        [WK_INT16] = NAME##_i16, [WK_INT32] = NAME##_i32, [WK_INT64] = NAME##_i64, [WK_BOOL] = NAME##_b};

/* integer sums wrap like torch (through uint64, no signed-overflow UB) */
#define RED_ADD(a, v) ((a) = _Generic((a), int64_t: (int64_t)((uint64_t)(a) + (uint64_t)(v)), default: (a) + (v)))
#define RED_OR(a, v) ((a) = (a) || (v))
#define RED_MUL(a, v) ((a) = _Generic((a), int64_t: (int64_t)((uint64_t)(a) * (uint64_t)(v)), default: (a) * (v)))
#define RED_AND(a, v) ((a) = (a) && (v))
/* amax/amin propagate NaN, as torch's scatter_reduce does */
#define RED_MAX(a, v) ((a) = ((v) != (v) || (v) > (a)) ? (v) : (a))
#define RED_MIN(a, v) ((a) = ((v) != (v) || (v) < (a)) ? (v) : (a))
SCATTER_RED_ALL(red_add, RED_ADD, RED_OR)

/* Runs loop over equal-shaped operands (the iterator needs its operands already at the iteration shape). */
static int run3(wk_tensor *a, wk_tensor *b, wk_tensor *c, wk_loop_fn fn, void *ctx) {
    wk_tensor *ops[3] = {a, b, c};
    return wk_iter_apply(3, ops, fn, ctx);
}

/* An alias of t with the given geometry (no autograd, shares the version counter). */
static wk_tensor *restride(const wk_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset) {
    return wk__alias(t, ndim, sizes, strides, offset);
}

/* ================================================================================================
 * the alias view of x[...] (select, slice and unsqueeze are the shape area's ops)
 * ================================================================================================ */

/* torch's slice: start/end clamp into [0, size], negative ones count from the end; step >= 1. */
static void slice_bounds(int64_t size, int64_t *start, int64_t *end) {
    int64_t s = *start, e = *end;
    if (s < 0) s += size;
    if (e < 0) e += size;
    if (s < 0) s = 0;
    else if (s >= size) s = size;
    if (e < s) e = s;
    else if (e >= size) e = size;
    *start = s;
    *end = e;
}

wk_tensor *wk_impl_ix_alias(wk_tensor *self) { return wk__alias(self, self->ndim, self->sizes, self->strides, self->offset); }

/* ================================================================================================
 * fill_ with a 0-d tensor (x[...] = <0-d tensor>)
 * ================================================================================================ */

wk_tensor *wk_impl_ix_fill_tensor(wk_tensor *self, wk_tensor *value) {
    if (value->ndim != 0) {
        wk__error(WK_RUNTIME_ERROR, "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.",
                  value->ndim);
        return NULL;
    }
    if (wk__assert_no_internal_overlap(self) < 0) return NULL;
    wk_tensor *r = wk__empty(self->ndim, self->sizes, self->dtype);
    if (r && wk__copy_(r, value) < 0) {
        wk_release(r);
        r = NULL;
    }
    return r;
}

/* ================================================================================================
 * nonzero
 * ================================================================================================ */

/* (n, ndim) int64 coordinates of the non-zero elements in row-major order (NaN counts as non-zero). */
wk_tensor *wk_impl_nonzero(wk_tensor *self) {
    wk_tensor *b = wk__to_dtype(self, WK_BOOL); /* element != 0, in self's geometry */
    if (!b) return NULL;
    wk_tensor *bc = wk__contiguous(b); /* [numel] uint8 0/1, row-major */
    wk_release(b);
    if (!bc) return NULL;
    const uint8_t *m = (const uint8_t *)wk__data(bc);
    int64_t numel = wk__numel(bc), count = 0;
    for (int64_t i = 0; i < numel; i++) count += m[i] != 0;
    int nd = self->ndim;
    int64_t sizes[2] = {count, nd};
    wk_tensor *r = wk__empty(2, sizes, WK_INT64);
    if (!r) {
        wk_release(bc);
        return NULL;
    }
    int64_t *out = (int64_t *)wk__data(r); /* [count][nd] */
    int64_t coord[WK_MAX_DIM] = {0};
    for (int64_t i = 0; i < numel; i++) {
        if (m[i]) {
            if (nd) memcpy(out, coord, sizeof(int64_t) * (size_t)nd); /* 0-d: rows of no columns */
            out += nd;
        }
        for (int d = nd - 1; d >= 0; d--) { /* odometer over self's shape */
            if (++coord[d] < self->sizes[d]) break;
            coord[d] = 0;
        }
    }
    wk_release(bc);
    return r;
}

/* ================================================================================================
 * advanced indexing: index / index_put (Note [Advanced indexing])
 * ================================================================================================
 * Note [Advanced indexing]: as ATen's make_info/AdvancedIndex. The index list has one entry per leading dim of
 * self (NULL = not indexed); bool/uint8 masks stand for as many dims as they have and become the columns of their
 * nonzero(); the index tensors broadcast together; if the indexed dims are not adjacent they move to the front.
 * The result is src.shape[:before] + broadcast shape + src.shape[before + nidx:]. */
typedef struct {
    wk_tensor *src;                 /* self, dims permuted so the indexed ones are adjacent (an alias) */
    int before, nidx, after;        /* src dims [before, before + nidx) are indexed */
    int64_t idx_size[WK_MAX_DIM];   /* [nidx] src sizes of the indexed dims */
    int64_t idx_stride[WK_MAX_DIM]; /* [nidx] their strides, in elements */
    wk_tensor *idx[WK_MAX_DIM];     /* [nidx] int64 / int32 index tensors, expanded to bshape */
    int bndim;
    int64_t bshape[WK_MAX_DIM];     /* broadcast shape of the index tensors */
    int rndim;
    int64_t rshape[WK_MAX_DIM];     /* the indexing result's shape */
} adv_info;

static void adv_free(adv_info *a) {
    wk_release(a->src);
    for (int j = 0; j < a->nidx; j++) wk_release(a->idx[j]);
    memset(a, 0, sizeof *a);
}

static int too_many_indices(int ndim, int64_t got) {
    wk__error(WK_INDEX_ERROR, "too many indices for tensor of dimension %d (got %lld)", ndim, (long long)got);
    return -1;
}

static int check_index_types(wk_opttensorlist indices) {
    for (int64_t i = 0; i < indices.len; i++) {
        const wk_tensor *t = indices.data[i];
        if (t && t->dtype != WK_INT64 && t->dtype != WK_INT32 && !is_mask_dtype(t->dtype)) {
            wk__error(WK_INDEX_ERROR, "tensors used as indices must be long, int, byte or bool tensors");
            return -1;
        }
    }
    return 0;
}

static int invalid_mask(const wk_tensor *self, int64_t src_idx, const wk_tensor *mask, int64_t mask_idx) {
    wk_strbuf a = {0}, b = {0};
    wk__error(WK_INDEX_ERROR,
              "The shape of the mask %s at index %lld does not match the shape of the indexed tensor %s at index %lld",
              shape_str(&a, mask->sizes, mask->ndim), (long long)mask_idx, shape_str(&b, self->sizes, self->ndim),
              (long long)src_idx);
    wk_sb_free(&a);
    wk_sb_free(&b);
    return -1;
}

/* self.size(d) with torch's error when d is past the last dim. */
static int size_at(const wk_tensor *self, int64_t d, int64_t *out) {
    int64_t w;
    if (wk__wrap_dim(d, self->ndim, &w) < 0) return -1;
    *out = self->ndim ? self->sizes[w] : 1;
    return 0;
}

static int adv_build(adv_info *a, const wk_tensor *self, wk_opttensorlist indices) {
    memset(a, 0, sizeof *a);
    if (indices.len > self->ndim) return too_many_indices(self->ndim, indices.len);
    if (check_index_types(indices) < 0) return -1;
    /* expandTensors: masks become their nonzero() columns */
    wk_tensor *ex[WK_MAX_DIM] = {0}; /* [nex] owned; NULL = not indexed */
    int nex = 0, rc = -1;
    for (int64_t i = 0; i < indices.len; i++) {
        const wk_tensor *t = indices.data[i];
        if (!t) {
            if (nex >= WK_MAX_DIM) goto too_many;
            ex[nex++] = NULL;
            continue;
        }
        if (!is_mask_dtype(t->dtype)) {
            if (nex >= WK_MAX_DIM) goto too_many;
            ex[nex++] = wk_retain((wk_tensor *)t);
            continue;
        }
        if (t->dtype == WK_UINT8)
            wk__warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
        for (int j = 0; j < t->ndim; j++) {
            int64_t s;
            if (size_at(self, nex + j, &s) < 0) goto done;
            if (t->sizes[j] != s) {
                invalid_mask(self, nex + j, t, j);
                goto done;
            }
        }
        if (nex + t->ndim > WK_MAX_DIM) goto too_many;
        wk_tensor *nz = wk_impl_nonzero((wk_tensor *)t); /* [count, k] */
        if (!nz) goto done;
        for (int j = 0; j < t->ndim; j++) {
            int64_t sz = nz->sizes[0], st = nz->strides[0];
            ex[nex++] = wk__alias(nz, 1, &sz, &st, nz->offset + j * nz->strides[1]);
            if (!ex[nex - 1]) {
                wk_release(nz);
                goto done;
            }
        }
        wk_release(nz);
    }
    if (nex > self->ndim) goto too_many;
    /* broadcast the defined indices */
    int bn = 0, ndef = 0;
    int64_t bs[WK_MAX_DIM];
    for (int i = 0; i < nex; i++) {
        if (!ex[i]) continue;
        if (ndef == 0) {
            bn = ex[i]->ndim;
            memcpy(bs, ex[i]->sizes, sizeof(int64_t) * (size_t)bn);
        } else {
            int n2;
            int64_t s2[WK_MAX_DIM];
            if (wk__broadcast_shapes(bn, bs, ex[i]->ndim, ex[i]->sizes, &n2, s2) < 0) {
                wk_strbuf b = {0}, one = {0};
                bool first = true;
                for (int k = 0; k < nex; k++) {
                    if (!ex[k]) continue;
                    wk_sb_printf(&b, "%s%s", first ? "" : ", ", shape_str(&one, ex[k]->sizes, ex[k]->ndim));
                    first = false;
                }
                wk__error(WK_INDEX_ERROR, "shape mismatch: indexing tensors could not be broadcast together with shapes %s",
                          b.s ? b.s : "");
                wk_sb_free(&b);
                wk_sb_free(&one);
                goto done;
            }
            bn = n2;
            memcpy(bs, s2, sizeof(int64_t) * (size_t)bn);
        }
        ndef++;
    }
    if (ndef == 0) { /* only None entries and 0-d masks (which expand to no index at all): the result is self's
                      * shape; torch's kernel cannot run on that (see no_index_error), but its checks do */
        a->src = wk__alias(self, self->ndim, self->sizes, self->strides, self->offset);
        if (!a->src) goto done;
        a->before = self->ndim;
        a->rndim = self->ndim;
        memcpy(a->rshape, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
        rc = 0;
        goto done;
    }
    while (nex < self->ndim) ex[nex++] = NULL;
    /* adjacent indexed dims stay in place; otherwise they move to the front (transposeToFront) */
    int first = -1, last = -1;
    for (int i = 0; i < nex; i++)
        if (ex[i]) {
            if (first < 0) first = i;
            last = i;
        }
    bool contiguous = last - first + 1 == ndef;
    int perm[WK_MAX_DIM], np = 0;
    if (contiguous) {
        for (int i = 0; i < nex; i++) perm[np++] = i;
    } else {
        for (int i = 0; i < nex; i++)
            if (ex[i]) perm[np++] = i;
        for (int i = 0; i < nex; i++)
            if (!ex[i]) perm[np++] = i;
    }
    int64_t psz[WK_MAX_DIM], pst[WK_MAX_DIM];
    for (int i = 0; i < nex; i++) {
        psz[i] = self->sizes[perm[i]];
        pst[i] = self->strides[perm[i]];
    }
    a->src = wk__alias(self, self->ndim, psz, pst, self->offset);
    if (!a->src) goto done;
    a->before = contiguous ? first : 0;
    a->nidx = ndef;
    a->after = self->ndim - a->before - ndef;
    a->bndim = bn;
    memcpy(a->bshape, bs, sizeof(int64_t) * (size_t)bn);
    bool has_zero = false, b_zero = false;
    for (int j = 0; j < ndef; j++) {
        int d = a->before + j;
        a->idx_size[j] = psz[d];
        a->idx_stride[j] = pst[d];
        has_zero |= psz[d] == 0;
        a->idx[j] = wk__expand_to(ex[perm[d]], bn, bs);
        if (!a->idx[j]) goto done;
    }
    for (int k = 0; k < bn; k++) b_zero |= bs[k] == 0;
    if (has_zero && !b_zero) {
        wk__error(WK_INDEX_ERROR, "index is out of bounds for dimension with size 0");
        goto done;
    }
    a->rndim = a->before + bn + a->after;
    if (check_ndim(a->rndim) < 0) goto done;
    int r = 0;
    for (int i = 0; i < a->before; i++) a->rshape[r++] = psz[i];
    for (int k = 0; k < bn; k++) a->rshape[r++] = bs[k];
    for (int i = a->before + ndef; i < self->ndim; i++) a->rshape[r++] = psz[i];
    rc = 0;
    goto done;
too_many:
    too_many_indices(self->ndim, indices.len);
done:
    for (int i = 0; i < nex; i++) wk_release(ex[i]);
    if (rc < 0) adv_free(a);
    return rc;
}

/* Byte offsets (int64, bshape) of every indexed position: sum_j wrap(idx_j) * stride_j * esz, bounds-checked.
 * Reports the first bad index in row-major order (ties: the first index tensor), as torch's serial loop does. */
typedef struct {
    int64_t size, stride_bytes;
    bool is32;
    bool wrap;                  /* negative indices count from the end (else they are out of range) */
    int64_t pos;                /* running element position (the offset tensor is iterated in row-major order) */
    int64_t bad_pos, bad_value; /* first out-of-range element, -1 if none */
} offs_ctx;

static void offs_loop(char **d, const int64_t *s, int64_t n, void *ctx_) {
    offs_ctx *c = ctx_;
    char *o = d[0], *ip = d[1];
    for (int64_t i = 0; i < n; i++, o += s[0], ip += s[1]) {
        int64_t v = c->is32 ? (int64_t) * (const int32_t *)ip : *(const int64_t *)ip;
        if (v < (c->wrap ? -c->size : 0) || v >= c->size) {
            if (c->bad_pos < 0) {
                c->bad_pos = c->pos + i;
                c->bad_value = v;
            }
            continue;
        }
        if (v < 0) v += c->size;
        *(int64_t *)o += v * c->stride_bytes;
    }
    c->pos += n;
}

/* An index of only None entries and 0-d masks reaches torch's kernel with no index tensor (an internal assert). */
static int no_index_error(void) {
    wk__error(WK_RUNTIME_ERROR, "index(): a 0-dimensional boolean mask (or only None) as the whole index is not "
                                "supported (torch's kernel fails its ntensor >= 3 internal assert)");
    return -1;
}

static wk_tensor *adv_offsets(const adv_info *a) {
    wk_tensor *off = wk__zeros(a->bndim, a->bshape, WK_INT64);
    if (!off) return NULL;
    int64_t esz = (int64_t)wk_dtype_size(a->src->dtype);
    int64_t best_pos = -1, best_val = 0;
    int best_j = 0;
    for (int j = 0; j < a->nidx; j++) {
        offs_ctx c = {a->idx_size[j], a->idx_stride[j] * esz, a->idx[j]->dtype == WK_INT32, true, 0, -1, 0};
        wk_tensor *ops[2] = {off, a->idx[j]};
        if (wk_iter_apply(2, ops, offs_loop, &c) < 0) {
            wk_release(off);
            return NULL;
        }
        if (c.bad_pos >= 0 && (best_pos < 0 || c.bad_pos < best_pos)) {
            best_pos = c.bad_pos;
            best_val = c.bad_value;
            best_j = j;
        }
    }
    if (best_pos >= 0) {
        wk__error(WK_INDEX_ERROR, "index %lld is out of bounds for dimension %d with size %lld", (long long)best_val,
                  best_j, (long long)a->idx_size[best_j]);
        wk_release(off);
        return NULL;
    }
    return off;
}

/* Geometry of the iteration over the result shape: src (stride 0 in the broadcast dims) and the offsets
 * (stride 0 in the before/after dims). */
static void adv_iter_geometry(const adv_info *a, const wk_tensor *off, int64_t *src_strides, int64_t *off_strides) {
    int r = 0;
    for (int i = 0; i < a->before; i++, r++) {
        src_strides[r] = a->src->strides[i];
        off_strides[r] = 0;
    }
    for (int k = 0; k < a->bndim; k++, r++) {
        src_strides[r] = 0;
        off_strides[r] = off->strides[k];
    }
    for (int i = a->before + a->nidx; i < a->src->ndim; i++, r++) {
        src_strides[r] = a->src->strides[i];
        off_strides[r] = 0;
    }
}

wk_tensor *wk_impl_index(wk_tensor *self, wk_opttensorlist indices) {
    adv_info a;
    if (adv_build(&a, self, indices) < 0) return NULL;
    wk_tensor *out = wk__empty(a.rndim, a.rshape, self->dtype), *off = NULL, *src_r = NULL, *off_r = NULL;
    if (!out || wk__numel(out) == 0) goto done; /* nothing is read: no bounds errors either, as torch */
    if (a.nidx == 0) {
        no_index_error();
        goto fail;
    }
    off = adv_offsets(&a);
    if (!off) goto fail;
    int64_t ss[WK_MAX_DIM], os[WK_MAX_DIM];
    adv_iter_geometry(&a, off, ss, os);
    src_r = restride(a.src, a.rndim, a.rshape, ss, a.src->offset);
    off_r = restride(off, a.rndim, a.rshape, os, off->offset);
    if (!src_r || !off_r || run3(out, src_r, off_r, gather_loop(wk_dtype_size(self->dtype)), NULL) < 0) goto fail;
    goto done;
fail:
    wk_release(out);
    out = NULL;
done:
    wk_release(off);
    wk_release(src_r);
    wk_release(off_r);
    adv_free(&a);
    return out;
}

/* canDispatchToMaskedFill: a single mask index (None entries before it allowed) and a one-element value. Returns 1
 * with *mask set to the mask viewed with trailing size-1 dims, 0 if not applicable, -1 on error. */
static int masked_fill_dispatch(const wk_tensor *self, wk_opttensorlist indices, const wk_tensor *values,
                                wk_tensor **mask) {
    *mask = NULL;
    if (wk__numel(values) != 1) return 0;
    int64_t num_ind = 0;
    const wk_tensor *m = NULL;
    for (int64_t i = 0; i < indices.len; i++) {
        const wk_tensor *t = indices.data[i];
        if (!t) {
            if (!m) num_ind++;
            continue;
        }
        if (!is_mask_dtype(t->dtype) || m) return 0;
        m = t;
        for (int j = 0; j < t->ndim; j++) {
            int64_t s;
            if (size_at(self, num_ind + j, &s) < 0) return -1;
            if (t->sizes[j] != s) return invalid_mask(self, num_ind + j, t, j);
        }
        num_ind += t->ndim;
    }
    if (!m) return 0;
    int nd = m->ndim + (int)(self->ndim - num_ind > 0 ? self->ndim - num_ind : 0);
    if (check_ndim(nd) < 0) return -1;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    for (int i = 0; i < nd; i++) {
        sizes[i] = i < m->ndim ? m->sizes[i] : 1;
        strides[i] = i < m->ndim ? m->strides[i] : 1;
    }
    *mask = wk__alias(m, nd, sizes, strides, m->offset);
    return *mask ? 1 : -1;
}

static bool expandable_to(int n, const int64_t *s, int nt, const int64_t *t) {
    if (n > nt) return false;
    for (int i = 0; i < n; i++) {
        int64_t a = s[n - 1 - i], b = t[nt - 1 - i];
        if (a != b && a != 1) return false;
    }
    return true;
}

static int masked_fill_into(wk_tensor *dst, const wk_tensor *mask, wk_scalar value);

/* index_put_ into dst (the clone for index_put, self for index_put_). `inplace`: torch's overlap checks of
 * index_put_ (the value and the indices must not share memory with self). */
static int index_put_into(wk_tensor *dst, wk_opttensorlist indices, wk_tensor *values, bool accumulate, bool inplace) {
    if (indices.len > dst->ndim) return too_many_indices(dst->ndim, indices.len);
    if (inplace && internal_overlap(dst)) warn_expanded("index_put_", "tensor[indices] = tensor");
    if (!accumulate) {
        wk_tensor *mask;
        int rc = masked_fill_dispatch(dst, indices, values, &mask);
        if (rc < 0) return -1;
        if (rc == 1) {
            wk_scalar v;
            rc = wk_item(values, &v) < 0 ? -1 : masked_fill_into(dst, mask, v);
            wk_release(mask);
            return rc;
        }
    }
    if (inplace) {
        if (wk__assert_no_overlap(dst, values) < 0) return -1;
        for (int64_t i = 0; i < indices.len; i++)
            if (indices.data[i] && wk__assert_no_overlap(dst, indices.data[i]) < 0) return -1;
    }
    adv_info a;
    if (adv_build(&a, dst, indices) < 0) return -1;
    int rc = -1;
    wk_tensor *off = NULL, *dst_r = NULL, *off_r = NULL, *val_e = NULL;
    if (!expandable_to(values->ndim, values->sizes, a.rndim, a.rshape)) {
        wk_strbuf b1 = {0}, b2 = {0};
        wk__error(WK_RUNTIME_ERROR, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
                  shape_str(&b1, values->sizes, values->ndim), shape_str(&b2, a.rshape, a.rndim));
        wk_sb_free(&b1);
        wk_sb_free(&b2);
        goto done;
    }
    if (values->dtype != dst->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Index put requires the source and destination dtypes match, got %s for the "
                                    "destination and %s for the source.",
                  wk_dtype_scalar_name(dst->dtype), wk_dtype_scalar_name(values->dtype));
        goto done;
    }
    if (numel_of(a.rndim, a.rshape) == 0) {
        rc = 0;
        goto done;
    }
    if (a.nidx == 0) {
        no_index_error();
        goto done;
    }
    off = adv_offsets(&a);
    if (!off) goto done;
    int64_t ds[WK_MAX_DIM], os[WK_MAX_DIM];
    adv_iter_geometry(&a, off, ds, os);
    dst_r = restride(a.src, a.rndim, a.rshape, ds, a.src->offset);
    off_r = restride(off, a.rndim, a.rshape, os, off->offset);
    val_e = wk__expand_to(values, a.rndim, a.rshape);
    if (!dst_r || !off_r || !val_e) goto done;
    wk_loop_fn fn = accumulate ? red_add[dst->dtype] : scatter_loop(wk_dtype_size(dst->dtype));
    rc = run3(dst_r, val_e, off_r, fn, NULL);
done:
    wk_release(off);
    wk_release(dst_r);
    wk_release(off_r);
    wk_release(val_e);
    adv_free(&a);
    return rc;
}

wk_tensor *wk_impl_index_put(wk_tensor *self, wk_opttensorlist indices, wk_tensor *values, bool accumulate) {
    if (indices.len > self->ndim) return too_many_indices(self->ndim, indices.len), NULL;
    wk_tensor *out = wk__clone(self);
    if (out && index_put_into(out, indices, values, accumulate, false) < 0) {
        wk_release(out);
        out = NULL;
    }
    return out;
}

int wk_impl_index_put_inplace(wk_tensor *self, wk_opttensorlist indices, wk_tensor *values, bool accumulate) {
    return index_put_into(self, indices, values, accumulate, true);
}

/* ================================================================================================
 * masked_fill
 * ================================================================================================ */

/* caffe2 TypeMeta names, which torch prints in some mask-dtype errors */
static const char *typemeta_name(wk_dtype dt) {
    switch (dt) {
    case WK_BOOL: return "bool";
    case WK_UINT8: return "unsigned char";
    case WK_INT8: return "signed char";
    case WK_INT16: return "short int";
    case WK_INT32: return "int";
    case WK_INT64: return "long int";
    case WK_FLOAT16: return "c10::Half";
    case WK_BFLOAT16: return "c10::BFloat16";
    case WK_FLOAT32: return "float";
    default: return "double";
    }
}

typedef struct {
    unsigned char elem[8]; /* the fill value, stored in the destination dtype */
} fill_ctx;

/* operands: [dst, mask (bool)]: dst = value where mask */
#define MASKED_FILL_LOOP(SZ)                                                                         \
    static void masked_fill_loop_##SZ(char **d, const int64_t *s, int64_t n, void *ctx) {           \
        const fill_ctx *c = ctx;                                                                     \
        char *o = d[0], *m = d[1];                                                                   \
        for (int64_t i = 0; i < n; i++, o += s[0], m += s[1])                                        \
            if (*(const uint8_t *)m) memcpy(o, c->elem, SZ);                                         \
    }
MASKED_FILL_LOOP(1)
MASKED_FILL_LOOP(2)
MASKED_FILL_LOOP(4)
MASKED_FILL_LOOP(8)
static wk_loop_fn masked_fill_loop(size_t esz) {
    return esz == 1 ? masked_fill_loop_1 : esz == 2 ? masked_fill_loop_2 : esz == 4 ? masked_fill_loop_4 : masked_fill_loop_8;
}

static int check_bool_mask(const char *op, const wk_tensor *mask) {
    if (mask->dtype != WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "%s only supports boolean masks, but got mask with dtype %s", op,
                  typemeta_name(mask->dtype));
        return -1;
    }
    return 0;
}

/* Writes value into dst where mask (bool, broadcastable to dst) is true: masked_fill_'s checks and kernel. */
static int masked_fill_into(wk_tensor *dst, const wk_tensor *mask, wk_scalar value) {
    if (check_bool_mask("masked_fill_", mask) < 0) return -1;
    if (internal_overlap(dst)) warn_expanded("masked_fill_", "tensor[mask] = scalar");
    if (wk__assert_no_partial_overlap(dst, mask) < 0) return -1;
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(dst->ndim, dst->sizes, mask->ndim, mask->sizes, &nd, shape) < 0) return -1;
    if (nd != dst->ndim || memcmp(shape, dst->sizes, sizeof(int64_t) * (size_t)nd)) {
        wk_strbuf a = {0}, b = {0};
        wk__error(WK_RUNTIME_ERROR, "output with shape %s doesn't match the broadcast shape %s",
                  shape_str(&a, dst->sizes, dst->ndim), shape_str(&b, shape, nd));
        wk_sb_free(&a);
        wk_sb_free(&b);
        return -1;
    }
    if (wk__check_scalar_fits(value, dst->dtype) < 0) return -1;
    fill_ctx c;
    wk__store_scalar(c.elem, dst->dtype, value);
    wk_tensor *me = wk__expand_to(mask, dst->ndim, dst->sizes);
    if (!me) return -1;
    wk_tensor *ops[2] = {dst, me};
    int rc = wk_iter_apply(2, ops, masked_fill_loop(wk_dtype_size(dst->dtype)), &c);
    wk_release(me);
    return rc;
}

/* masked_fill (out of place): self and mask broadcast together, then masked_fill_ on the copy. */
static wk_tensor *masked_fill_impl(wk_tensor *self, const wk_tensor *mask, wk_scalar value) {
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(mask->ndim, mask->sizes, self->ndim, self->sizes, &nd, shape) < 0) return NULL;
    wk_tensor *r = wk__empty(nd, shape, self->dtype);
    if (!r || wk__copy_(r, self) < 0 || masked_fill_into(r, mask, value) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

wk_tensor *wk_impl_masked_fill_Scalar(wk_tensor *self, wk_tensor *mask, wk_scalar value) {
    return masked_fill_impl(self, mask, value);
}

int wk_impl_masked_fill_inplace_Scalar(wk_tensor *self, wk_tensor *mask, wk_scalar value) {
    return masked_fill_into(self, mask, value);
}

int wk_impl_masked_fill_inplace_Tensor(wk_tensor *self, wk_tensor *mask, wk_tensor *value) {
    if (value->ndim != 0) {
        wk__error(WK_RUNTIME_ERROR, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                                    "dimension(s).", value->ndim);
        return -1;
    }
    wk_scalar v;
    if (wk_item(value, &v) < 0) return -1;
    return masked_fill_into(self, mask, v);
}

wk_tensor *wk_impl_masked_fill_Tensor(wk_tensor *self, wk_tensor *mask, wk_tensor *value) {
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(mask->ndim, mask->sizes, self->ndim, self->sizes, &nd, shape) < 0) return NULL;
    if (value->ndim != 0) {
        wk__error(WK_RUNTIME_ERROR, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                                    "dimension(s).", value->ndim);
        return NULL;
    }
    wk_scalar v;
    if (wk_item(value, &v) < 0) return NULL;
    return masked_fill_impl(self, mask, v);
}

/* ================================================================================================
 * Python's x[index] and x[index] = value (as torch's python_variable_indexing.cpp and TensorIndexing.h)
 * ================================================================================================
 * Note [Python indexing]: the front turns the Python index into items (ints, slices, None, ..., bools, tensors;
 * sequences already converted to tensors). Basic items make views one dim at a time (select, slice, unsqueeze);
 * tensors are collected into an index list for one advanced `index` / `index_put_` at the end. A bare index
 * (`tuple` false: x[i], x[a:b], x[None], x[...], x[True]) takes torch's single-index shortcuts. */

/* A growable list of index tensors (owned; NULL = dim not indexed). */
typedef struct {
    wk_tensor **v;
    int64_t n, cap;
} idx_list;

static int idx_push(idx_list *l, wk_tensor *t) {
    if (l->n == l->cap) {
        int64_t cap = l->cap ? l->cap * 2 : 8;
        wk_tensor **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            wk_release(t);
            wk__error(WK_MEMORY_ERROR, "out of memory");
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = t;
    return 0;
}

static void idx_free(idx_list *l) {
    for (int64_t i = 0; i < l->n; i++) wk_release(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* recordTensorIndex: the first tensor lands at position dim; masks advance dim by their ndim. */
static int record_tensor(idx_list *l, const wk_tensor *t, int64_t *dim) {
    if (l->n == 0)
        for (int64_t i = 0; i < *dim; i++)
            if (idx_push(l, NULL) < 0) return -1;
    if (idx_push(l, wk_retain((wk_tensor *)t)) < 0) return -1;
    *dim += is_mask_dtype(t->dtype) ? t->ndim : 1;
    return 0;
}

static int push_nulls(idx_list *l, int64_t k) {
    if (l->n == 0) return 0;
    for (int64_t i = 0; i < k; i++)
        if (idx_push(l, NULL) < 0) return -1;
    return 0;
}

/* boolToIndexingTensor: True indexes the new size-1 dim as [0], False as []. */
static wk_tensor *bool_index(bool v) {
    int64_t n = v ? 1 : 0;
    return wk__zeros(1, &n, WK_INT64);
}

static wk_tensor *apply_select(wk_tensor *t, int64_t dim, int64_t index, int64_t real_dim) {
    if (index == 0 && dim == 0 && t->ndim == 0)
        return WK_FAIL(WK_INDEX_ERROR, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                       "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    int64_t size = dim < t->ndim ? t->sizes[dim] : 0; /* past the last dim torch reads a size of 0 */
    if (!(size > -1 - index && size > index)) {
        wk__error(WK_INDEX_ERROR, "index %lld is out of bounds for dimension %lld with size %lld", (long long)index,
                  (long long)real_dim, (long long)size);
        return NULL;
    }
    return wk_select(t, dim, index < 0 ? index + size : index);
}

static wk_tensor *apply_slice(wk_tensor *t, int64_t dim, int64_t start, int64_t stop, int64_t step, bool disable_opt) {
    if (step <= 0) return WK_FAIL(WK_VALUE_ERROR, "step must be greater than zero");
    if (t->ndim > 0) {
        int64_t length = dim < t->ndim ? t->sizes[dim] : 0;
        if (!disable_opt && start == 0 && length <= stop && step == 1) return wk_retain(t);
    }
    if (t->ndim == 0) return WK_FAIL(WK_INDEX_ERROR, "slice() cannot be applied to a 0-dim tensor.");
    int64_t d;
    if (wk__wrap_dim(dim, t->ndim, &d) < 0) return NULL;
    slice_bounds(t->sizes[d], &start, &stop);
    return wk_slice(t, d, wk_some(start), wk_some(stop), step);
}

static bool is_int_scalar_tensor(const wk_tensor *t) {
    return t->ndim == 0 && wk_dtype_is_integral(t->dtype, true);
}

/* Note [Indexing state]: applySlicing as a stream, so that a front converts and applies one item at a time and the
 * errors come in torch's order (the too-many-indices count first, then each item's conversion and its view).
 *     st = wk_index_begin(self, specified); wk_index_step(st, &item)...; wk_index_get_end(st) / wk_index_set_end(st, v)
 * `specified` is torch's count of indexed dims over the index as the user wrote it (ints, slices and other objects 1,
 * masks their ndim, None / ... / bools 0); wk_index_count() computes it from items. */
struct wk_index_state {
    wk_tensor *self;   /* strong: the indexed tensor */
    wk_tensor *result; /* strong: self after the items so far */
    idx_list out;      /* the index tensors collected so far */
    int64_t dim;       /* the dim of result the next item applies to */
    int64_t specified; /* indexed dims of the whole index */
    int64_t i;         /* items applied so far (torch's real_dim) */
};

int64_t wk_index_count(const wk_index_item *items, int64_t n) {
    int64_t specified = 0;
    for (int64_t i = 0; i < n; i++) {
        const wk_index_item *it = &items[i];
        if (it->kind == WK_IDX_TENSOR) specified += it->t && is_mask_dtype(it->t->dtype) ? it->t->ndim : 1;
        else if (it->kind == WK_IDX_INT || it->kind == WK_IDX_SLICE) specified++;
    }
    return specified;
}

void wk_index_abort(wk_index_state *st) {
    if (!st) return;
    wk_release(st->self);
    wk_release(st->result);
    idx_free(&st->out);
    free(st);
}

wk_index_state *wk_index_begin(wk_tensor *self, int64_t specified) {
    if (!self) return WK_FAIL(WK_TYPE_ERROR, "indexing: self must be a Tensor, not None");
    if (specified > self->ndim) {
        wk__error(WK_INDEX_ERROR, "too many indices for tensor of dimension %d", self->ndim);
        return NULL;
    }
    wk_index_state *st = wk__calloc(1, sizeof *st);
    if (!st) return NULL;
    st->self = wk_retain(self);
    st->result = wk_retain(self);
    st->specified = specified;
    return st;
}

/* handleDimInMultiDimIndexing for one item. On error the state stays valid (abort it). */
int wk_index_step(wk_index_state *st, const wk_index_item *it) {
    if (!st || !it) {
        wk__error(WK_TYPE_ERROR, "indexing: no index state or item");
        return -1;
    }
    wk_tensor *result = st->result, *next = NULL;
    idx_list *out = &st->out;
    int64_t i = st->i;
    switch (it->kind) {
    case WK_IDX_INT:
        next = apply_select(result, st->dim, it->i, i);
        break;
    case WK_IDX_SLICE:
        next = apply_slice(result, st->dim, it->start, it->stop, it->step, false);
        if (next) st->dim++;
        if (next && push_nulls(out, 1) < 0) goto fail_next;
        break;
    case WK_IDX_ELLIPSIS: {
        int64_t k = st->self->ndim - st->specified;
        st->dim += k;
        if (push_nulls(out, k) < 0) return -1;
        next = wk_retain(result);
        break;
    }
    case WK_IDX_NONE:
        next = wk_unsqueeze(result, st->dim);
        if (next) st->dim++;
        if (next && push_nulls(out, 1) < 0) goto fail_next;
        break;
    case WK_IDX_BOOL: {
        next = wk_unsqueeze(result, st->dim);
        wk_tensor *b = next ? bool_index(it->i != 0) : NULL;
        if (next && (!b || record_tensor(out, b, &st->dim) < 0)) {
            wk_release(b);
            goto fail_next;
        }
        wk_release(b);
        break;
    }
    case WK_IDX_TENSOR: {
        const wk_tensor *t = it->t;
        if (!t) {
            wk__error(WK_TYPE_ERROR, "indexing: a tensor index item holds no tensor");
            return -1;
        }
        if (is_int_scalar_tensor(t) && !is_mask_dtype(t->dtype)) {
            wk_scalar v = wk__load_scalar(wk__data(t), t->dtype);
            next = apply_select(result, st->dim, v.v.i, i);
        } else if (is_int_scalar_tensor(t)) { /* 0-d bool / uint8: like a Python bool */
            next = wk_unsqueeze(result, st->dim);
            wk_tensor *b = next ? bool_index(wk__load_scalar(wk__data(t), t->dtype).v.i != 0) : NULL;
            if (next && (!b || record_tensor(out, b, &st->dim) < 0)) {
                wk_release(b);
                goto fail_next;
            }
            wk_release(b);
        } else {
            if (record_tensor(out, t, &st->dim) < 0) return -1;
            next = wk_retain(result);
        }
        break;
    }
    default:
        wk__error(WK_TYPE_ERROR, "indexing: invalid index item kind %d", (int)it->kind);
        return -1;
    }
    if (!next) return -1;
    wk_release(st->result);
    st->result = next;
    st->i++;
    return 0;
fail_next:
    wk_release(next);
    return -1;
}

static wk_opttensorlist as_list(const idx_list *l) {
    int64_t n = l->n;
    while (n > 0 && !l->v[n - 1]) n--; /* trailing None entries are dropped */
    wk_opttensorlist r = {(const wk_tensor *const *)l->v, n};
    return r;
}

wk_tensor *wk_index_get_end(wk_index_state *st) {
    if (!st) return WK_FAIL(WK_TYPE_ERROR, "indexing: no index state");
    wk_tensor *r;
    if (st->out.n == 0) r = st->result == st->self ? wk_ix_alias(st->self) : wk_retain(st->result);
    else r = wk_index(st->result, as_list(&st->out));
    wk_index_abort(st);
    return r;
}

/* A bare index's shortcuts (get_item with one index). Returns 1 with *r set if handled. */
static int getitem_single(wk_tensor *self, const wk_index_item *it, wk_tensor **r) {
    switch (it->kind) {
    case WK_IDX_INT: *r = apply_select(self, 0, it->i, 0); return 1;
    case WK_IDX_SLICE: *r = apply_slice(self, 0, it->start, it->stop, it->step, true); return 1;
    case WK_IDX_NONE: *r = wk_unsqueeze(self, 0); return 1;
    case WK_IDX_ELLIPSIS: *r = wk_ix_alias(self); return 1;
    case WK_IDX_BOOL: {
        wk_tensor *u = wk_unsqueeze(self, 0), *b = u ? bool_index(it->i != 0) : NULL;
        *r = NULL;
        if (b) {
            const wk_tensor *l[1] = {b};
            wk_opttensorlist ol = {l, 1};
            *r = wk_index(u, ol);
        }
        wk_release(b);
        wk_release(u);
        return 1;
    }
    default: return 0;
    }
}

wk_tensor *wk_getitem(wk_tensor *self, const wk_index_item *items, int64_t n, bool tuple) {
    if (!self) return WK_FAIL(WK_TYPE_ERROR, "indexing: self must be a Tensor, not None");
    if (n < 0 || (n > 0 && !items)) return WK_FAIL(WK_TYPE_ERROR, "indexing: invalid index list");
    wk_tensor *r = NULL;
    if (!tuple && n == 1 && getitem_single(self, &items[0], &r)) return r;
    wk_index_state *st = wk_index_begin(self, wk_index_count(items, n));
    for (int64_t i = 0; st && i < n; i++) {
        if (wk_index_step(st, &items[i]) < 0) {
            wk_index_abort(st);
            return NULL;
        }
    }
    return st ? wk_index_get_end(st) : NULL;
}

/* copy_to: dst.copy_(src) when the shapes agree, dst.fill_(src) for a 0-d src, else src without its leading
 * size-1 dims, expanded to dst ("setitem"), copied. */
static int copy_to(wk_tensor *dst, wk_tensor *src) {
    wk_tensor *r = NULL;
    /* the overlap checks are copy_'s and fill_'s own, after autograd's (Note [Write overlap]): torch checks the
     * expanded value, so `a[:] = a[0]` passes (an expanded input is too hard to judge) */
    if (dst->ndim == src->ndim && !memcmp(dst->sizes, src->sizes, sizeof(int64_t) * (size_t)dst->ndim)) {
        r = wk_copy_(dst, src, false);
    } else if (src->ndim == 0) {
        r = wk_ix_fill_tensor_(dst, src);
    } else {
        int k = 0;
        while (k < src->ndim && src->sizes[k] == 1) k++;
        wk_tensor *v = k ? wk_view(src, wk_ints(src->sizes + k, src->ndim - k)) : wk_retain(src), *e = NULL;
        if (!v) return -1;
        if (v->ndim > dst->ndim) {
            wk_strbuf a = {0}, b = {0};
            wk__error(WK_RUNTIME_ERROR, "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater "
                                        "or equal to the number of dimensions in the tensor (%d)",
                      wk__legacy_type_name(v->dtype), shape_str(&a, v->sizes, v->ndim), shape_str(&b, dst->sizes, dst->ndim),
                      dst->ndim, v->ndim);
            wk_sb_free(&a);
            wk_sb_free(&b);
        } else {
            e = wk_expand(v, wk_ints(dst->sizes, dst->ndim), false);
            if (e) r = wk_copy_(dst, e, false);
        }
        wk_release(e);
        wk_release(v);
    }
    if (!r) return -1;
    wk_release(r);
    return 0;
}

/* The advanced half of setitem: the value without its leading size-1 dims, index_put_ into the sliced tensor. */
static int setitem_advanced(wk_tensor *sliced, idx_list *l, wk_tensor *value) {
    int k = 0; /* slicePrefix1sSize */
    while (k < value->ndim && value->sizes[k] == 1) k++;
    wk_tensor *v = k ? wk_view(value, wk_ints(value->sizes + k, value->ndim - k)) : wk_retain(value), *r = NULL;
    if (!v) return -1;
    r = wk_index_put_(sliced, as_list(l), v, false); /* its overlap checks are index_put_'s own */
    wk_release(v);
    if (!r) return -1;
    wk_release(r);
    return 0;
}

int wk_index_set_end(wk_index_state *st, wk_tensor *value) {
    if (!st || !value) {
        wk_index_abort(st);
        wk__error(WK_TYPE_ERROR, "indexing: no index state or value");
        return -1;
    }
    int rc = st->out.n == 0 ? copy_to(st->result, value) : setitem_advanced(st->result, &st->out, value);
    wk_index_abort(st);
    return rc;
}

/* A bare index's shortcuts (set_item with one index). Returns 1 if handled (*rc set). */
static int setitem_single(wk_tensor *self, const wk_index_item *it, wk_tensor *value, int *rc) {
    wk_tensor *dst = NULL;
    switch (it->kind) {
    case WK_IDX_BOOL:
        if (!it->i) { /* x[False] = v does nothing */
            *rc = 0;
            return 1;
        }
        /* fallthrough */
    case WK_IDX_NONE: dst = wk_unsqueeze(self, 0); break;
    case WK_IDX_ELLIPSIS: dst = wk_retain(self); break;
    case WK_IDX_INT: dst = apply_select(self, 0, it->i, 0); break;
    case WK_IDX_SLICE: dst = apply_slice(self, 0, it->start, it->stop, it->step, false); break;
    default: return 0;
    }
    *rc = dst ? copy_to(dst, value) : -1;
    wk_release(dst);
    return 1;
}

int wk_setitem(wk_tensor *self, const wk_index_item *items, int64_t n, bool tuple, wk_tensor *value) {
    if (!self || !value) {
        wk__error(WK_TYPE_ERROR, "indexing: self and value must be Tensors");
        return -1;
    }
    if (n < 0 || (n > 0 && !items)) {
        wk__error(WK_TYPE_ERROR, "indexing: invalid index list");
        return -1;
    }
    int rc;
    if (!tuple && n == 1 && setitem_single(self, &items[0], value, &rc)) return rc;
    wk_index_state *st = wk_index_begin(self, wk_index_count(items, n));
    for (int64_t i = 0; st && i < n; i++) {
        if (wk_index_step(st, &items[i]) < 0) {
            wk_index_abort(st);
            return -1;
        }
    }
    return st ? wk_index_set_end(st, value) : -1;
}

int wk_setitem_single(wk_tensor *self, const wk_index_item *item, wk_tensor *value) {
    int rc;
    if (!self || !item || !value) {
        wk__error(WK_TYPE_ERROR, "indexing: self, item and value must be given");
        return -1;
    }
    if (setitem_single(self, item, value, &rc)) return rc;
    return wk_setitem(self, item, 1, true, value);
}

/* torch's valueToTensor for a Python scalar: a 0-d tensor of self's dtype, checked like c10's checked_convert except
 * that Half and BFloat16 take any value (overflow gives inf), as scalarToTensor does. */
wk_tensor *wk_setitem_value(const wk_tensor *self, wk_scalar value) {
    if (!self) return WK_FAIL(WK_TYPE_ERROR, "indexing: self must be a Tensor, not None");
    if (self->dtype == WK_FLOAT16 || self->dtype == WK_BFLOAT16) return wk__full(0, NULL, self->dtype, value);
    return wk__scalar_tensor_checked(value, self->dtype);
}

int wk_setitem_scalar(wk_tensor *self, const wk_index_item *items, int64_t n, bool tuple, wk_scalar value) {
    wk_tensor *v = wk_setitem_value(self, value);
    if (!v) return -1;
    int rc = wk_setitem(self, items, n, tuple, v);
    wk_release(v);
    return rc;
}

/* ================================================================================================
 * masked_select, masked_scatter
 * ================================================================================================ */

/* Copies the elements of `src` (any geometry) where `mask` (bool, same shape) is true into `out` (contiguous,
 * row-major order), or with `scatter` the other way: the next element of `out` into each masked place of `src`.
 * The mask and the tensor are made contiguous first; one pass, no per-element calls. */
typedef struct {
    char *flat;          /* the contiguous side */
    int64_t pos, limit;  /* elements of `flat` used / available */
    size_t esz;
    bool scatter, overrun;
} mask_ctx;

static void mask_loop(char **d, const int64_t *s, int64_t n, void *ctx_) {
    mask_ctx *c = ctx_;
    char *t = d[0], *m = d[1];
    for (int64_t i = 0; i < n; i++, t += s[0], m += s[1]) {
        if (!*(const uint8_t *)m) continue;
        if (c->pos >= c->limit) {
            c->overrun = true;
            return;
        }
        if (c->scatter) memcpy(t, c->flat + c->pos * (int64_t)c->esz, c->esz);
        else memcpy(c->flat + c->pos * (int64_t)c->esz, t, c->esz);
        c->pos++;
    }
}

static int64_t count_true(const wk_tensor *mask) {
    wk_tensor *mc = wk__contiguous(mask);
    if (!mc) return -1;
    const uint8_t *m = (const uint8_t *)wk__data(mc);
    int64_t n = wk__numel(mc), k = 0;
    for (int64_t i = 0; i < n; i++) k += m[i] != 0;
    wk_release(mc);
    return k;
}

wk_tensor *wk_impl_masked_select(wk_tensor *self, wk_tensor *mask) {
    if (mask->dtype != WK_BOOL) return WK_FAIL(WK_RUNTIME_ERROR, "masked_select: expected BoolTensor for mask");
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(mask->ndim, mask->sizes, self->ndim, self->sizes, &nd, shape) < 0) return NULL;
    wk_tensor *se = wk__expand_to(self, nd, shape), *me = wk__expand_to(mask, nd, shape), *sc = NULL, *mc = NULL;
    wk_tensor *r = NULL;
    if (!se || !me) goto done;
    /* row-major order of the broadcast shape: iterate contiguous copies so the iterator keeps that order */
    sc = wk__contiguous(se);
    mc = wk__contiguous(me);
    int64_t k = mc ? count_true(mc) : -1;
    if (!sc || k < 0) goto done;
    r = wk__empty(1, &k, self->dtype);
    if (!r) goto done;
    mask_ctx c = {wk__data(r), 0, k, wk_dtype_size(self->dtype), false, false};
    wk_tensor *ops[2] = {sc, mc};
    if (wk_iter_apply(2, ops, mask_loop, &c) < 0) {
        wk_release(r);
        r = NULL;
    }
done:
    wk_release(se);
    wk_release(me);
    wk_release(sc);
    wk_release(mc);
    return r;
}

/* operands [dst, mask (bool), off (int64 byte offsets into the source)]: dst = source[off] where mask. The offsets
 * number the masked places in dst's row-major order, so the iteration order does not matter. */
typedef struct {
    const char *src;
    size_t esz;
} mscatter_ctx;
static void mscatter_loop(char **d, const int64_t *s, int64_t n, void *ctx_) {
    const mscatter_ctx *c = ctx_;
    char *o = d[0], *m = d[1], *off = d[2];
    for (int64_t i = 0; i < n; i++, o += s[0], m += s[1], off += s[2])
        if (*(const uint8_t *)m) memcpy(o, c->src + *(const int64_t *)off, c->esz);
}

/* masked_scatter_ into dst; out of place, dst is the broadcast copy of self (mask already broadcast to it). */
static int masked_scatter_into(wk_tensor *dst, const wk_tensor *mask, const wk_tensor *source, bool inplace) {
    if (inplace && wk__assert_no_internal_overlap(dst) < 0) return -1;
    if (dst->dtype != source->dtype) {
        wk__error(WK_RUNTIME_ERROR, "masked_scatter: expected self and source to have same dtypes but got%s and %s",
                  wk_dtype_scalar_name(dst->dtype), wk_dtype_scalar_name(source->dtype));
        return -1;
    }
    if (mask->dtype != WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "masked_scatter_ only supports boolean masks, but got mask with dtype %s",
                  wk_dtype_scalar_name(mask->dtype));
        return -1;
    }
    if (mask->ndim > dst->ndim) { /* expand_inplace(self, mask) */
        wk_strbuf a = {0}, b = {0};
        wk__error(WK_RUNTIME_ERROR, "expand(CPUBoolType{%s}, size=%s): the number of sizes provided (%d) must be greater "
                                    "or equal to the number of dimensions in the tensor (%d)",
                  shape_str(&a, mask->sizes, mask->ndim), shape_str(&b, dst->sizes, dst->ndim), dst->ndim, mask->ndim);
        wk_sb_free(&a);
        wk_sb_free(&b);
        return -1;
    }
    wk_tensor *me = wk__expand_to(mask, dst->ndim, dst->sizes), *mc = NULL, *off = NULL, *src = NULL;
    int rc = -1;
    if (!me) return -1;
    if (wk__numel(dst) == 0) {
        rc = 0;
        goto done;
    }
    mc = wk__contiguous(me); /* [dst's shape] bool, row-major */
    off = wk__empty(dst->ndim, dst->sizes, WK_INT64);
    src = wk__contiguous(source);
    if (!mc || !off || !src) goto done;
    const uint8_t *m = (const uint8_t *)wk__data(mc);
    int64_t *o = (int64_t *)wk__data(off), n = wk__numel(mc), k = 0, esz = (int64_t)wk_dtype_size(dst->dtype);
    for (int64_t i = 0; i < n; i++) o[i] = m[i] ? (k++) * esz : 0;
    if (k > wk__numel(src)) {
        wk__error(WK_RUNTIME_ERROR, "Number of elements of source < number of ones in mask");
        goto done;
    }
    mscatter_ctx c = {wk__data(src), (size_t)esz};
    rc = run3(dst, mc, off, mscatter_loop, &c);
done:
    wk_release(me);
    wk_release(mc);
    wk_release(off);
    wk_release(src);
    return rc;
}

wk_tensor *wk_impl_masked_scatter(wk_tensor *self, wk_tensor *mask, wk_tensor *source) {
    int nd;
    int64_t shape[WK_MAX_DIM];
    if (wk__broadcast_shapes(mask->ndim, mask->sizes, self->ndim, self->sizes, &nd, shape) < 0) return NULL;
    wk_tensor *r = wk__empty(nd, shape, self->dtype);
    if (!r || wk__copy_(r, self) < 0 || masked_scatter_into(r, mask, source, false) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

int wk_impl_masked_scatter_inplace(wk_tensor *self, wk_tensor *mask, wk_tensor *source) {
    return masked_scatter_into(self, mask, source, true);
}

/* grad.masked_select(mask), zero-padded to prod(sizes) elements, viewed as sizes. */
wk_tensor *wk_impl_masked_scatter_backward(wk_tensor *grad_output, wk_tensor *mask, wk_intlist sizes) {
    if (sizes.len < 0 || check_ndim((int)sizes.len) < 0) return NULL;
    if (wk__check_sizes((int)sizes.len, sizes.data) < 0) return NULL;
    wk_tensor *sel = wk_impl_masked_select(grad_output, mask);
    if (!sel) return NULL;
    int64_t total = wk__prod(sizes.data, (int)sizes.len), k = sel->sizes[0];
    wk_tensor *r = wk__zeros((int)sizes.len, sizes.data, grad_output->dtype);
    if (r && k > 0) {
        int64_t n = k < total ? k : total, st = 1;
        wk_tensor *flat = wk__alias(r, 1, &n, &st, r->offset), *part = wk__alias(sel, 1, &n, sel->strides, sel->offset);
        if (!flat || !part || wk__copy_(flat, part) < 0) {
            wk_release(r);
            r = NULL;
        }
        wk_release(flat);
        wk_release(part);
    }
    wk_release(sel);
    return r;
}

/* ================================================================================================
 * nonzero_numpy, where(cond), argwhere
 * ================================================================================================ */

/* nonzero(self).unbind(1), a 0-d self counting as 1-d (torch's nonzero_numpy). */
wk_tensorvec wk_impl_nonzero_numpy(wk_tensor *self) {
    wk_tensorvec v = {NULL, 0};
    wk_tensor *s1 = self->ndim ? wk_retain(self) : wk_impl_ix_alias(self);
    if (!s1) return v;
    if (s1->ndim == 0) { /* view the 0-d tensor as [1] */
        int64_t one = 1, st = 1;
        wk_tensor *a = wk__alias(s1, 1, &one, &st, s1->offset);
        wk_release(s1);
        s1 = a;
        if (!s1) return v;
    }
    wk_tensor *nz = wk_impl_nonzero(s1); /* [n, ndim] */
    int nd = s1->ndim;
    wk_release(s1);
    if (!nz) return v;
    v.data = wk__calloc((size_t)nd, sizeof(wk_tensor *));
    if (!v.data) {
        wk_release(nz);
        return v;
    }
    v.len = nd;
    for (int j = 0; j < nd; j++) {
        int64_t n = nz->sizes[0], st = nz->strides[0];
        v.data[j] = wk__alias(nz, 1, &n, &st, nz->offset + j * nz->strides[1]);
        if (!v.data[j]) {
            wk_tensorvec_free(v);
            wk_release(nz);
            return (wk_tensorvec){NULL, 0};
        }
    }
    wk_release(nz);
    return v;
}

wk_tensorvec wk_impl_where(wk_tensor *condition) { return wk_impl_nonzero_numpy(condition); }

/* nonzero() cut or padded to `size` rows (padding rows hold fill_value). */
wk_tensor *wk_impl_nonzero_static(wk_tensor *self, int64_t size, int64_t fill_value) {
    if (size < 0) return WK_FAIL(WK_RUNTIME_ERROR, "nonzero_static: 'size' must be an non-negative integer");
    wk_tensor *nz = wk_impl_nonzero(self); /* [n, ndim] contiguous */
    if (!nz) return NULL;
    int64_t sizes[2] = {size, self->ndim};
    wk_tensor *r = wk__full(2, sizes, WK_INT64, wk_int(fill_value));
    int64_t rows = nz->sizes[0] < size ? nz->sizes[0] : size;
    if (r && rows * self->ndim > 0)
        memcpy(wk__data(r), wk__data(nz), sizeof(int64_t) * (size_t)(rows * self->ndim));
    wk_release(nz);
    return r;
}

wk_tensor *wk_impl_argwhere(wk_tensor *self) { return wk_impl_nonzero(self); }

/* ================================================================================================
 * gather / scatter / index_* / take / put: shared pieces
 * ================================================================================================ */

/* torch's ensure_nonempty_*: a 0-d tensor counts as 1-d of size 1 in the gather/scatter family. */
static wk_tensor *nonempty_view(const wk_tensor *t) {
    if (t->ndim) return wk__alias(t, t->ndim, t->sizes, t->strides, t->offset);
    int64_t one = 1, st = 1;
    return wk__alias(t, 1, &one, &st, t->offset);
}
static int nonempty_dim(const wk_tensor *t) { return t->ndim ? t->ndim : 1; }
static int64_t nonempty_size(const wk_tensor *t, int d) { return t->ndim ? t->sizes[d] : 1; }

/* Byte offsets (int64, index's shape, contiguous) of the index values along one dim of extent `size`.
 * Returns NULL with *bad = 1 and *bad_value set for the first out-of-range value (no error set: the caller
 * words it), or NULL with *bad = 0 on other errors. */
static wk_tensor *dim_offsets(const wk_tensor *index, int64_t size, int64_t stride_bytes, bool wrap, int *bad,
                              int64_t *bad_value) {
    *bad = 0;
    wk_tensor *off = wk__zeros(index->ndim, index->sizes, WK_INT64);
    if (!off) return NULL;
    offs_ctx c = {size, stride_bytes, index->dtype == WK_INT32, wrap, 0, -1, 0};
    wk_tensor *ops[2] = {off, (wk_tensor *)index};
    if (wk_iter_apply(2, ops, offs_loop, &c) < 0) {
        wk_release(off);
        return NULL;
    }
    if (c.bad_pos >= 0) {
        *bad = 1;
        *bad_value = c.bad_value;
        wk_release(off);
        return NULL;
    }
    return off;
}

/* t viewed with `sizes` and t's own strides except stride 0 along dim (the restrided self of gather/scatter). */
static wk_tensor *restride_dim0(const wk_tensor *t, int ndim, const int64_t *sizes, int64_t dim) {
    int64_t st[WK_MAX_DIM];
    for (int i = 0; i < ndim; i++) st[i] = i == dim ? 0 : t->strides[i];
    return restride(t, ndim, sizes, st, t->offset);
}

/* off (contiguous, `k` elements) spread over the iteration shape: its stride along dim, 0 elsewhere. */
static wk_tensor *spread_along(const wk_tensor *off, int ndim, const int64_t *sizes, int64_t dim) {
    int64_t st[WK_MAX_DIM];
    for (int i = 0; i < ndim; i++) st[i] = i == dim ? 1 : 0;
    return restride(off, ndim, sizes, st, off->offset);
}

static bool is_index_dtype(wk_dtype d) { return d == WK_INT64 || d == WK_INT32; }

static int oob_error(wk_error_kind kind, const char *prefix, int64_t v, int64_t dim, int64_t size) {
    wk__error(kind, "%sindex %lld is out of bounds for dimension %lld with size %lld", prefix, (long long)v,
              (long long)dim, (long long)size);
    return -1;
}

/* ================================================================================================
 * gather
 * ================================================================================================ */

wk_tensor *wk_impl_gather(wk_tensor *self, int64_t dim, wk_tensor *index, bool sparse_grad) {
    WK_UNUSED(sparse_grad);
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    int64_t inum = wk__numel(index);
    if (inum != 0 && !is_index_dtype(index->dtype))
        return WK_FAIL(WK_RUNTIME_ERROR, "gather(): Expected dtype int32/int64 for index");
    wk_tensor *out = wk__empty(index->ndim, index->sizes, self->dtype);
    if (!out || inum == 0) return out;
    if (nonempty_dim(self) != nonempty_dim(index)) {
        wk_release(out);
        return WK_FAIL(WK_RUNTIME_ERROR, "Index tensor must have the same number of dimensions as input tensor");
    }
    for (int i = 0; i < nonempty_dim(self); i++) {
        if (i != d && nonempty_size(index, i) > nonempty_size(self, i)) {
            wk_strbuf a = {0}, b = {0};
            wk__error(WK_RUNTIME_ERROR, "Size does not match at dimension %d expected index %s to be no larger than "
                                        "self %s apart from dimension %lld",
                      i, shape_str(&a, index->sizes, index->ndim), shape_str(&b, self->sizes, self->ndim), (long long)d);
            wk_sb_free(&a);
            wk_sb_free(&b);
            wk_release(out);
            return NULL;
        }
    }
    wk_tensor *s1 = nonempty_view(self), *i1 = nonempty_view(index), *o1 = nonempty_view(out), *off = NULL, *sr = NULL;
    int bad = 0;
    int64_t badv = 0;
    if (!s1 || !i1 || !o1) goto fail;
    off = dim_offsets(i1, s1->sizes[d], s1->strides[d] * (int64_t)wk_dtype_size(self->dtype), false, &bad, &badv);
    if (!off) {
        if (bad) oob_error(WK_RUNTIME_ERROR, "", badv, d, s1->sizes[d]);
        goto fail;
    }
    sr = restride_dim0(s1, i1->ndim, i1->sizes, d);
    if (!sr || run3(o1, sr, off, gather_loop(wk_dtype_size(self->dtype)), NULL) < 0) goto fail;
    goto done;
fail:
    wk_release(out);
    out = NULL;
done:
    wk_release(s1);
    wk_release(i1);
    wk_release(o1);
    wk_release(off);
    wk_release(sr);
    return out;
}

/* ================================================================================================
 * scatter, scatter_add, scatter_reduce
 * ================================================================================================ */

typedef enum { RED_NONE, RED_SUM, RED_PROD, RED_MEAN, RED_AMAX, RED_AMIN } red_kind;

/* scatter's reduce= ("add", "multiply") or scatter_reduce's ("sum", "prod", "mean", "amax", "amin"). */
static int parse_reduce(const char *r, bool new_options, red_kind *k) {
    if (!r) r = "";
    if (!new_options) {
        if (!strcmp(r, "add")) *k = RED_SUM;
        else if (!strcmp(r, "multiply")) *k = RED_PROD;
        else {
            wk__error(WK_RUNTIME_ERROR, "reduce argument must be either add or multiply.");
            return -1;
        }
        return 0;
    }
    if (!strcmp(r, "sum")) *k = RED_SUM;
    else if (!strcmp(r, "prod")) *k = RED_PROD;
    else if (!strcmp(r, "mean")) *k = RED_MEAN;
    else if (!strcmp(r, "amax") || !strcmp(r, "max")) *k = RED_AMAX; /* torch also takes max/min */
    else if (!strcmp(r, "amin") || !strcmp(r, "min")) *k = RED_AMIN;
    else {
        wk__error(WK_RUNTIME_ERROR, "reduce argument must be either sum, prod, mean, amax or amin, got %s", r);
        return -1;
    }
    return 0;
}

/* scatter_gather_dtype_check + scatter_shape_check (src may be NULL for the value overloads). */
static int scatter_checks(const wk_tensor *self, int64_t d, const wk_tensor *index, const wk_tensor *src) {
    if (wk__numel(index) != 0 && !is_index_dtype(index->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "scatter(): Expected dtype int32/int64 for index");
        return -1;
    }
    if (src && src->dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR, "scatter(): Expected self.dtype to be equal to src.dtype");
        return -1;
    }
    if (wk__numel(index) == 0) return 0;
    if (nonempty_dim(self) != nonempty_dim(index)) {
        wk__error(WK_RUNTIME_ERROR, "Index tensor must have the same number of dimensions as self tensor");
        return -1;
    }
    int nd = nonempty_dim(self);
    bool wrong = false;
    for (int i = 0; i < nd && !wrong; i++)
        if (i != d && nonempty_size(index, i) > nonempty_size(self, i)) wrong = true;
    if (!wrong && src)
        for (int i = 0; i < nd && !wrong; i++) {
            int64_t w;
            if (src->ndim && wk__wrap_dim(i, src->ndim, &w) < 0) return -1; /* torch reads src.size(i) here */
            if (nonempty_size(index, i) > nonempty_size(src, i)) wrong = true;
        }
    wk_strbuf a = {0}, b = {0}, c = {0};
    if (src) {
        if (nonempty_dim(src) != nonempty_dim(index)) {
            wk__error(WK_RUNTIME_ERROR, "Index tensor must have the same number of dimensions as src tensor");
            return -1;
        }
        if (wrong)
            wk__error(WK_RUNTIME_ERROR, "Expected index %s to be no larger than self %s apart from dimension %lld and to "
                                        "be no larger size than src %s",
                      shape_str(&a, index->sizes, index->ndim), shape_str(&b, self->sizes, self->ndim), (long long)d,
                      shape_str(&c, src->sizes, src->ndim));
    } else if (wrong) {
        wk__error(WK_RUNTIME_ERROR, "Expected index %s to be no larger than self %s apart from dimension %lld",
                  shape_str(&a, index->sizes, index->ndim), shape_str(&b, self->sizes, self->ndim), (long long)d);
    }
    wk_sb_free(&a);
    wk_sb_free(&b);
    wk_sb_free(&c);
    return wrong ? -1 : 0;
}

/* Identity of a reduction in dtype dt (what include_self=False starts from). */
static wk_scalar reduce_identity(red_kind k, wk_dtype dt) {
    switch (k) {
    case RED_PROD: return wk_int(1);
    case RED_AMAX:
        if (wk_dtype_is_floating(dt)) return wk_float(-INFINITY);
        switch (dt) {
        case WK_BOOL: return wk_bool(false);
        case WK_UINT8: return wk_int(0);
        case WK_INT8: return wk_int(INT8_MIN);
        case WK_INT16: return wk_int(INT16_MIN);
        case WK_INT32: return wk_int(INT32_MIN);
        default: return wk_int(INT64_MIN);
        }
    case RED_AMIN:
        if (wk_dtype_is_floating(dt)) return wk_float(INFINITY);
        switch (dt) {
        case WK_BOOL: return wk_bool(true);
        case WK_UINT8: return wk_int(UINT8_MAX);
        case WK_INT8: return wk_int(INT8_MAX);
        case WK_INT16: return wk_int(INT16_MAX);
        case WK_INT32: return wk_int(INT32_MAX);
        default: return wk_int(INT64_MAX);
        }
    default: return wk_int(0);
    }
}

SCATTER_RED_ALL(red_mul, RED_MUL, RED_AND)
SCATTER_RED_ALL(red_max, RED_MAX, RED_OR)
SCATTER_RED_ALL(red_min, RED_MIN, RED_AND)

static wk_loop_fn reduce_loop(red_kind k, wk_dtype dt) {
    switch (k) {
    case RED_SUM: case RED_MEAN: return red_add[dt];
    case RED_PROD: return red_mul[dt];
    case RED_AMAX: return red_max[dt];
    case RED_AMIN: return red_min[dt];
    default: return scatter_loop(wk_dtype_size(dt));
    }
}

/* operands [out (any strides), count (int64)]: out /= count; true division for floats, floor division for integers
 * (the element loads/stores go through the scalar helpers: a per-element switch, but only for scatter_reduce mean) */
static void divide_loop(char **d, const int64_t *s, int64_t n, void *ctx) {
    wk_dtype dt = *(const wk_dtype *)ctx;
    char *o = d[0], *cp = d[1];
    for (int64_t i = 0; i < n; i++, o += s[0], cp += s[1]) {
        int64_t c = *(const int64_t *)cp;
        wk_scalar v = wk__load_scalar(o, dt);
        if (wk_dtype_is_floating(dt)) {
            if (dt == WK_FLOAT64) *(double *)o /= (double)c;
            else wk__store_scalar(o, dt, wk_float((double)(float)((float)v.v.f / (float)c)));
        } else {
            int64_t a = v.v.i, q = a / c;
            if ((a % c != 0) && ((a < 0) != (c < 0))) q--; /* floor */
            wk__store_scalar(o, dt, wk_int(q));
        }
    }
}

/* The scatter family, writing into dst (a clone of self, or self for the in-place forms). src NULL: the value
 * overloads (value checked against the dtype). `inplace`: torch's overlap checks of the written tensor. */
static int scatter_into(wk_tensor *dst, int64_t dim, wk_tensor *index, wk_tensor *src, wk_scalar value, red_kind red,
                        bool include_self, bool inplace) {
    int64_t d;
    if (wk__wrap_dim(dim, dst->ndim, &d) < 0) return -1;
    if (scatter_checks(dst, d, index, src) < 0) return -1;
    if (inplace && (wk__assert_no_internal_overlap(dst) < 0 || wk__assert_no_overlap(dst, index) < 0 ||
                    (src && wk__assert_no_overlap(dst, src) < 0)))
        return -1;
    if (red == RED_MEAN && dst->dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
        return -1;
    }
    if (wk__numel(index) == 0) return 0;
    int rc = -1;
    wk_tensor *val = NULL, *o1 = NULL, *i1 = NULL, *s1 = NULL, *off = NULL, *dstr = NULL, *sr = NULL;
    if (!src) {
        val = wk__scalar_tensor_checked(value, dst->dtype);
        if (!val) goto done;
    }
    o1 = nonempty_view(dst);
    i1 = nonempty_view(index);
    s1 = src ? nonempty_view(src) : NULL;
    if (!o1 || !i1 || (src && !s1)) goto done;
    size_t esz = wk_dtype_size(dst->dtype);
    int bad = 0;
    int64_t badv = 0;
    off = dim_offsets(i1, o1->sizes[d], o1->strides[d] * (int64_t)esz, false, &bad, &badv);
    if (!off) {
        if (bad) oob_error(WK_RUNTIME_ERROR, "", badv, d, o1->sizes[d]);
        goto done;
    }
    dstr = restride_dim0(o1, i1->ndim, i1->sizes, d);
    sr = src ? restride(s1, i1->ndim, i1->sizes, s1->strides, s1->offset) : wk__expand_to(val, i1->ndim, i1->sizes);
    if (!dstr || !sr) goto done;
    if (red != RED_NONE && !include_self) { /* the scattered-to places start from the reduction's identity */
        wk_tensor *id = wk__full(0, NULL, dst->dtype, reduce_identity(red, dst->dtype));
        wk_tensor *ide = id ? wk__expand_to(id, i1->ndim, i1->sizes) : NULL;
        int r2 = ide ? run3(dstr, ide, off, scatter_loop(esz), NULL) : -1;
        wk_release(ide);
        wk_release(id);
        if (r2 < 0) goto done;
    }
    if (run3(dstr, sr, off, reduce_loop(red, dst->dtype), NULL) < 0) goto done;
    if (red == RED_MEAN) { /* divide by how many values met at each place (plus the place's own when included) */
        wk_tensor *count = wk__full(o1->ndim, o1->sizes, WK_INT64, wk_int(include_self ? 1 : 0)); /* [dst's shape] */
        wk_tensor *one = wk__full(0, NULL, WK_INT64, wk_int(1));
        wk_tensor *onee = one ? wk__expand_to(one, i1->ndim, i1->sizes) : NULL;
        int64_t ibad = 0;
        wk_tensor *coff = count ? dim_offsets(i1, count->sizes[d], count->strides[d] * 8, false, &bad, &ibad) : NULL;
        wk_tensor *cdst = count ? restride_dim0(count, i1->ndim, i1->sizes, d) : NULL;
        int r2 = -1;
        if (count && onee && coff && cdst && run3(cdst, onee, coff, red_add[WK_INT64], NULL) == 0) {
            int64_t *cv = (int64_t *)wk__data(count), n = wk__numel(count);
            for (int64_t i = 0; i < n; i++)
                if (cv[i] == 0) cv[i] = 1;
            wk_dtype dt = dst->dtype;
            wk_tensor *ops[2] = {o1, count};
            r2 = wk_iter_apply(2, ops, divide_loop, &dt);
        }
        wk_release(cdst);
        wk_release(coff);
        wk_release(onee);
        wk_release(one);
        wk_release(count);
        if (r2 < 0) goto done;
    }
    rc = 0;
done:
    wk_release(val);
    wk_release(o1);
    wk_release(i1);
    wk_release(s1);
    wk_release(off);
    wk_release(dstr);
    wk_release(sr);
    return rc;
}

/* Out of place: the checks on self, then scatter into a clone. */
static wk_tensor *scatter_impl(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src, wk_scalar value,
                               red_kind red, bool include_self) {
    wk_tensor *out = wk__clone(self);
    if (out && scatter_into(out, dim, index, src, value, red, include_self, false) < 0) {
        wk_release(out);
        out = NULL;
    }
    return out;
}

wk_tensor *wk_impl_scatter_src(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src) {
    return scatter_impl(self, dim, index, src, wk_int(0), RED_NONE, true);
}

wk_tensor *wk_impl_scatter_value(wk_tensor *self, int64_t dim, wk_tensor *index, wk_scalar value) {
    return scatter_impl(self, dim, index, NULL, value, RED_NONE, true);
}

/* torch validates reduce= after the dtype and shape checks. Returns the reduction or -1. */
static int reduce_checked(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src, const char *reduce,
                          bool new_options, red_kind *k) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    if (scatter_checks(self, d, index, src) < 0) return -1;
    return parse_reduce(reduce, new_options, k);
}

static void warn_scatter_reduce(void) {
    wk__warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
             "PyTorch release. Use torch.scatter_reduce instead for more reduction options.");
}

static wk_tensor *scatter_reduce_checked(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src, wk_scalar value,
                                         const char *reduce, bool new_options, bool include_self) {
    red_kind k;
    if (reduce_checked(self, dim, index, src, reduce, new_options, &k) < 0) return NULL;
    return scatter_impl(self, dim, index, src, value, k, include_self);
}

int wk_impl_scatter_src_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src) {
    return scatter_into(self, dim, index, src, wk_int(0), RED_NONE, true, true);
}

int wk_impl_scatter_value_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_scalar value) {
    return scatter_into(self, dim, index, NULL, value, RED_NONE, true, true);
}

int wk_impl_scatter_src_reduce_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src, const char *reduce) {
    red_kind k;
    if (reduce_checked(self, dim, index, src, reduce, false, &k) < 0) return -1;
    warn_scatter_reduce();
    return scatter_into(self, dim, index, src, wk_int(0), k, true, true);
}

int wk_impl_scatter_value_reduce_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_scalar value,
                                         const char *reduce) {
    red_kind k;
    if (reduce_checked(self, dim, index, NULL, reduce, false, &k) < 0) return -1;
    return scatter_into(self, dim, index, NULL, value, k, true, true);
}

int wk_impl_scatter_add_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src) {
    return scatter_into(self, dim, index, src, wk_int(0), RED_SUM, true, true);
}

wk_tensor *wk_impl_scatter_src_reduce(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src, const char *reduce) {
    red_kind k;
    if (reduce_checked(self, dim, index, src, reduce, false, &k) < 0) return NULL;
    warn_scatter_reduce();
    return scatter_impl(self, dim, index, src, wk_int(0), k, true);
}

wk_tensor *wk_impl_scatter_value_reduce(wk_tensor *self, int64_t dim, wk_tensor *index, wk_scalar value,
                                        const char *reduce) {
    return scatter_reduce_checked(self, dim, index, NULL, value, reduce, false, true);
}

wk_tensor *wk_impl_scatter_add(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src) {
    return scatter_impl(self, dim, index, src, wk_int(0), RED_SUM, true);
}

wk_tensor *wk_impl_ix_sparse_grad_unsupported(wk_tensor *grad) {
    WK_UNUSED(grad);
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "gather(sparse_grad=True): the gradient would be a sparse tensor, and wick has "
                                        "no sparse layout; use sparse_grad=False for a dense gradient");
    return NULL;
}

wk_tensor *wk_impl_ix_not_implemented(wk_tensor *grad, const char *name) {
    WK_UNUSED(grad);
    wk__error(WK_RUNTIME_ERROR, "derivative for aten::%s is not implemented", name ? name : "?");
    return NULL;
}

/* ================================================================================================
 * index_select, index_add, index_copy, index_fill (one index vector along a dim)
 * ================================================================================================ */

/* The iteration geometry of the index_* ops: the written/read tensor t (0-d as [1]) with dim's extent replaced by
 * the number of indices k, t restrided with stride 0 along dim, and the offsets spread along dim. */
typedef struct {
    wk_tensor *t1;   /* t, 0-d as [1] */
    wk_tensor *tr;   /* t1 restrided to the iteration shape */
    wk_tensor *offr; /* byte offsets along dim, spread over the iteration shape */
    int ndim;
    int64_t shape[WK_MAX_DIM];
} dim_iter;

static void dim_iter_free(dim_iter *g) {
    wk_release(g->t1);
    wk_release(g->tr);
    wk_release(g->offr);
    memset(g, 0, sizeof *g);
}

/* Returns 0, or -1 with *bad set (first bad index in *badv) or an error. */
static int dim_iter_init(dim_iter *g, const wk_tensor *t, int64_t d, const wk_tensor *index, bool wrap, int *bad,
                         int64_t *badv) {
    memset(g, 0, sizeof *g);
    *bad = 0;
    g->t1 = nonempty_view(t);
    wk_tensor *i1 = nonempty_view(index), *flat = NULL, *off = NULL;
    if (!g->t1 || !i1) goto fail;
    int64_t k = wk__numel(i1), one = 1;
    flat = wk__contiguous(i1); /* [k] */
    if (!flat) goto fail;
    wk_tensor *fv = wk__alias(flat, 1, &k, &one, flat->offset);
    wk_release(flat);
    flat = fv;
    if (!flat) goto fail;
    off = dim_offsets(flat, g->t1->sizes[d], g->t1->strides[d] * (int64_t)wk_dtype_size(t->dtype), wrap, bad, badv);
    if (!off) goto fail;
    g->ndim = g->t1->ndim;
    memcpy(g->shape, g->t1->sizes, sizeof(int64_t) * (size_t)g->ndim);
    g->shape[d] = k;
    g->tr = restride_dim0(g->t1, g->ndim, g->shape, d);
    g->offr = spread_along(off, g->ndim, g->shape, d);
    if (!g->tr || !g->offr) goto fail;
    wk_release(i1);
    wk_release(flat);
    wk_release(off);
    return 0;
fail:
    wk_release(i1);
    wk_release(flat);
    wk_release(off);
    dim_iter_free(g);
    return -1;
}

wk_tensor *wk_impl_index_select(wk_tensor *self, int64_t dim, wk_tensor *index) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    if (index->ndim > 1) return WK_FAIL(WK_INDEX_ERROR, "index_select(): Index is supposed to be a vector");
    int64_t k = wk__numel(index);
    if (self->ndim == 0 && k != 1)
        return WK_FAIL(WK_RUNTIME_ERROR, "index_select(): Index to scalar can have only 1 value, got %lld value(s)",
                       (long long)k);
    if (!is_index_dtype(index->dtype))
        return WK_FAIL(WK_RUNTIME_ERROR, "index_select(): Expected dtype int32 or int64 for index");
    int64_t sizes[WK_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    if (self->ndim) sizes[d] = k;
    wk_tensor *out = wk__empty(self->ndim, sizes, self->dtype), *o1 = NULL;
    if (!out || k == 0) return out;
    /* torch's paths differ in their bounds messages: >1-d along dim 1 (and >1-d empty self) use caffe2's
     * "INDICES element is out of DATA bounds", other >1-d dims and <=1-d "index out of range in self" */
    bool caffe2_msg = self->ndim > 1 && (d == 1 || wk__numel(self) == 0);
    if (self->ndim > 1 && wk__numel(self) == 0 && self->sizes[d] == 0) {
        wk_release(out);
        return WK_FAIL(WK_RUNTIME_ERROR, "index_select(): self indexing axis dim should be positive");
    }
    dim_iter g;
    int bad;
    int64_t badv;
    if (dim_iter_init(&g, self, d, index, false, &bad, &badv) < 0) {
        if (bad && caffe2_msg)
            wk__error(WK_RUNTIME_ERROR, "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld", (long long)badv,
                      (long long)nonempty_size(self, (int)d));
        else if (bad)
            wk__error(WK_INDEX_ERROR, "index out of range in self");
        wk_release(out);
        return NULL;
    }
    o1 = wk__numel(out) ? nonempty_view(out) : NULL;
    if (wk__numel(out) && (!o1 || run3(o1, g.tr, g.offr, gather_loop(wk_dtype_size(self->dtype)), NULL) < 0)) {
        wk_release(out);
        out = NULL;
    }
    wk_release(o1);
    dim_iter_free(&g);
    return out;
}

/* torch's index_copy_ / index_fill_ restride self with as_strided, whose storage check can fail on an empty self:
 * "setStorage: sizes [2, 1], strides [1, 0], ... are out of bounds for storage of size 0". */
static int restride_storage_check(const wk_tensor *t, int64_t d, int64_t k) {
    wk_tensor *t1 = nonempty_view(t);
    if (!t1) return -1;
    int n = t1->ndim;
    int64_t sz[WK_MAX_DIM], st[WK_MAX_DIM];
    memcpy(sz, t1->sizes, sizeof(int64_t) * (size_t)n);
    memcpy(st, t1->strides, sizeof(int64_t) * (size_t)n);
    sz[d] = k;
    st[d] = 0;
    int64_t esz = (int64_t)wk_dtype_size(t->dtype), need = 0;
    bool empty = false;
    for (int i = 0; i < n; i++) empty |= sz[i] == 0;
    if (!empty) {
        need = 1;
        for (int i = 0; i < n; i++) need += (sz[i] - 1) * st[i];
        need = (need + t1->offset) * esz;
    }
    int rc = 0;
    if (need > (int64_t)t1->storage->nbytes) {
        wk_strbuf a = {0}, b = {0};
        wk__error(WK_RUNTIME_ERROR, "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %lld requiring a "
                                    "storage size of %lld are out of bounds for storage of size %lld",
                  shape_str(&a, sz, n), shape_str(&b, st, n), (long long)t1->offset, (long long)esz, (long long)need,
                  (long long)t1->storage->nbytes);
        wk_sb_free(&a);
        wk_sb_free(&b);
        rc = -1;
    }
    wk_release(t1);
    return rc;
}

/* dst[off] += alpha * src, typed; half/bfloat16 round the product and the sum like torch's scalar_t arithmetic. */
typedef struct {
    double af;  /* alpha for floating dtypes (already rounded to the dtype) */
    int64_t ai; /* alpha for integral dtypes */
} alpha_ctx;
#define ADD_ALPHA_LOOP_(NAME, T, CT, LD, ST, A)                                                       \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx) {                             \
        const alpha_ctx *c = ctx;                                                                    \
        char *dst = d[0], *src = d[1], *off = d[2];                                                  \
        for (int64_t i = 0; i < n; i++, dst += s[0], src += s[1], off += s[2]) {                     \
            T *p = (T *)(dst + *(const int64_t *)off);                                               \
            CT prod = LD(ST((CT)(LD(*(const T *)src) * (CT)(A))));                                   \
            *p = ST((CT)(LD(*p) + prod));                                                            \
        }                                                                                            \
    }
ADD_ALPHA_LOOP_(add_alpha_f32, float, float, LD_SAME, ST_SAME, c->af)
ADD_ALPHA_LOOP_(add_alpha_f64, double, double, LD_SAME, ST_SAME, c->af)
ADD_ALPHA_LOOP_(add_alpha_f16, uint16_t, float, LD_H, ST_H, c->af)
ADD_ALPHA_LOOP_(add_alpha_bf16, uint16_t, float, LD_BF, ST_BF, c->af)
/* integers: wrap through uint64 (no signed overflow) */
#define ADD_ALPHA_INT_(NAME, T)                                                                      \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx) {                             \
        const alpha_ctx *c = ctx;                                                                    \
        char *dst = d[0], *src = d[1], *off = d[2];                                                  \
        for (int64_t i = 0; i < n; i++, dst += s[0], src += s[1], off += s[2]) {                     \
            T *p = (T *)(dst + *(const int64_t *)off);                                               \
            uint64_t prod = (uint64_t)(int64_t) * (const T *)src * (uint64_t)c->ai;                  \
            *p = (T)((uint64_t)(int64_t)*p + prod);                                                  \
        }                                                                                            \
    }
ADD_ALPHA_INT_(add_alpha_u8, uint8_t)
ADD_ALPHA_INT_(add_alpha_i8, int8_t)
ADD_ALPHA_INT_(add_alpha_i16, int16_t)
ADD_ALPHA_INT_(add_alpha_i32, int32_t)
ADD_ALPHA_INT_(add_alpha_i64, int64_t)
static void add_alpha_b(char **d, const int64_t *s, int64_t n, void *ctx) {
    const alpha_ctx *c = ctx;
    char *dst = d[0], *src = d[1], *off = d[2];
    for (int64_t i = 0; i < n; i++, dst += s[0], src += s[1], off += s[2]) {
        uint8_t *p = (uint8_t *)(dst + *(const int64_t *)off);
        *p = *p || (*(const uint8_t *)src && c->ai);
    }
}
static const wk_loop_fn ADD_ALPHA[WK_NUM_DTYPES] = {
    [WK_FLOAT32] = add_alpha_f32, [WK_FLOAT64] = add_alpha_f64, [WK_FLOAT16] = add_alpha_f16,
    [WK_BFLOAT16] = add_alpha_bf16, [WK_UINT8] = add_alpha_u8, [WK_INT8] = add_alpha_i8, [WK_INT16] = add_alpha_i16,
    [WK_INT32] = add_alpha_i32, [WK_INT64] = add_alpha_i64, [WK_BOOL] = add_alpha_b};

/* index_func_meta_impl: the checks shared by index_add (and torch's index_reduce). */
static int index_func_checks(const char *func, const wk_tensor *self, int64_t d, const wk_tensor *index,
                             const wk_tensor *source) {
    wk_strbuf a = {0}, b = {0};
    int rc = -1;
    if (index->ndim > 1) {
        wk__error(WK_INDEX_ERROR, "%s_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s",
                  func, index->ndim, wk_dtype_scalar_name(index->dtype), shape_str(&a, index->sizes, index->ndim));
        goto done;
    }
    if (!is_index_dtype(index->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "%s_(): Expected dtype int32/int64 for index but got: %s", func,
                  wk_dtype_scalar_name(index->dtype));
        goto done;
    }
    if (self->dtype != source->dtype) {
        wk__error(WK_RUNTIME_ERROR, "%s_(): self (%s) and source (%s) must have the same scalar type", func,
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(source->dtype));
        goto done;
    }
    if (d >= (source->ndim > 1 ? source->ndim : 1)) {
        wk__error(WK_RUNTIME_ERROR, "%s_(): Indexing dim %lld is out of bounds of the source tensor with dim %d", func,
                  (long long)d, source->ndim);
        goto done;
    }
    int64_t k = wk__numel(index), sd;
    if (source->ndim == 0 && k != 1) { /* torch's message reads source.size(dim) */
        wk__error(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)d);
        goto done;
    }
    if (source->ndim == 0) sd = 1;
    else if (size_at(source, d, &sd) < 0) goto done;
    if (k != sd) {
        wk__error(WK_RUNTIME_ERROR, "%s_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for dim: %lld",
                  func, (long long)k, (long long)sd, (long long)d);
        goto done;
    }
    bool same = true;
    if (source->ndim != 0 && self->ndim != 0) {
        same = source->ndim == self->ndim;
        for (int i = 0; same && i < self->ndim; i++) same = i == d || self->sizes[i] == source->sizes[i];
    } else { /* a 0-d side: torch compares the full shapes */
        same = self->ndim == source->ndim &&
               !memcmp(self->sizes, source->sizes, sizeof(int64_t) * (size_t)self->ndim);
    }
    if (!same) {
        wk__error(WK_RUNTIME_ERROR, "source tensor shape must match self tensor shape, excluding the specified dimension. "
                                    "Got self.shape = %s source.shape = %s",
                  shape_str(&a, self->sizes, self->ndim), shape_str(&b, source->sizes, source->ndim));
        goto done;
    }
    rc = 0;
done:
    wk_sb_free(&a);
    wk_sb_free(&b);
    return rc;
}

/* The index_* ops write into dst: a clone of self (out of place) or self itself (in place, with torch's overlap
 * checks of the written tensor). They return 0 or -1. */
static int index_add_into(wk_tensor *dst, int64_t dim, wk_tensor *index, wk_tensor *source, wk_scalar alpha,
                          bool inplace) {
    int64_t d;
    if (wk__wrap_dim(dim, dst->ndim, &d) < 0) return -1;
    if (index_func_checks("index_add", dst, d, index, source) < 0) return -1;
    if (inplace && (wk__assert_no_internal_overlap(dst) < 0 || wk__assert_no_overlap(dst, index) < 0 ||
                    wk__assert_no_overlap(dst, source) < 0))
        return -1;
    /* >1-d: nothing is visited (or checked) when self is empty; <=1-d: every index is checked */
    if (wk__numel(index) == 0 || (dst->ndim > 1 && wk__numel(dst) == 0)) return 0;
    dim_iter g;
    int bad;
    int64_t badv;
    if (dim_iter_init(&g, dst, d, index, false, &bad, &badv) < 0) {
        if (bad && dst->ndim > 1) oob_error(WK_RUNTIME_ERROR, "", badv, d, nonempty_size(dst, (int)d));
        else if (bad) wk__error(WK_INDEX_ERROR, "index out of range in self");
        return -1;
    }
    alpha_ctx c;
    unsigned char tmp[8];
    wk__store_scalar(tmp, dst->dtype, alpha); /* alpha as the dtype's scalar_t */
    wk_scalar a = wk__load_scalar(tmp, dst->dtype);
    c.af = wk__scalar_to_double(a);
    c.ai = wk__scalar_to_int(a);
    wk_tensor *s1 = nonempty_view(source);
    wk_tensor *se = s1 ? wk__expand_to(s1, g.ndim, g.shape) : NULL;
    int rc = se ? run3(g.tr, se, g.offr, ADD_ALPHA[dst->dtype], &c) : -1;
    wk_release(se);
    wk_release(s1);
    dim_iter_free(&g);
    return rc;
}

static int index_copy_into(wk_tensor *dst, int64_t dim, wk_tensor *index, wk_tensor *source, bool inplace) {
    int64_t d;
    if (wk__wrap_dim(dim, dst->ndim, &d) < 0) return -1;
    if (index->ndim >= 2) {
        wk__error(WK_INDEX_ERROR, "index_copy_(): Index should have dimension 1 or 0 (got %d)", index->ndim);
        return -1;
    }
    int64_t k = wk__numel(index);
    if (source->ndim == 0 && k != 1) {
        wk__error(WK_INDEX_ERROR, "index_copy_(): When source is scalar, index should have one element (got %lld)",
                  (long long)k);
        return -1;
    }
    if (source->ndim != dst->ndim && source->ndim != 0 && dst->ndim != 0) {
        wk__error(WK_INDEX_ERROR, "index_copy_(): When source and destination are not scalars, their dimensionality "
                                  "must match. Source dimensionality (%d), destination dimensionality (%d)",
                  source->ndim, dst->ndim);
        return -1;
    }
    if (index->dtype != WK_INT64) {
        wk__error(WK_RUNTIME_ERROR, "index_copy_(): Expected a long tensor for index, but got %s",
                  wk_dtype_scalar_name(index->dtype));
        return -1;
    }
    if (dst->dtype != source->dtype) {
        wk__error(WK_RUNTIME_ERROR, "index_copy_(): self and source expected to have the same dtype, but got (self) "
                                    "%s and (source) %s",
                  wk_dtype_scalar_name(dst->dtype), wk_dtype_scalar_name(source->dtype));
        return -1;
    }
    /* the slice shapes (sizes without dim) must agree; torch prints them space-separated */
    bool same = true;
    wk_strbuf a = {0}, b = {0};
    int ns = 0, nt = 0;
    for (int i = 0; i < dst->ndim; i++)
        if (i != d) wk_sb_printf(&a, "%s%lld", ns++ ? " " : "", (long long)dst->sizes[i]);
    for (int i = 0; i < source->ndim; i++)
        if (i != d) wk_sb_printf(&b, "%s%lld", nt++ ? " " : "", (long long)source->sizes[i]);
    same = ns == nt;
    for (int i = 0, j = 0; same && i < dst->ndim; i++) {
        if (i == d) continue;
        while (j == d) j++;
        same = dst->sizes[i] == source->sizes[j];
        j++;
    }
    if (!same) {
        wk__error(WK_RUNTIME_ERROR, "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                                    "slice shape: %s at dimension %lld and source slice shape: %s at dimension 0.",
                  a.s ? a.s : "", (long long)d, b.s ? b.s : "");
    }
    wk_sb_free(&a);
    wk_sb_free(&b);
    if (!same) return -1;
    if (source->ndim != 0 && k != source->sizes[d]) {
        wk__error(WK_INDEX_ERROR, "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
                  (long long)k, (long long)source->sizes[d]);
        return -1;
    }
    if (inplace && (wk__assert_no_internal_overlap(dst) < 0 || wk__assert_no_overlap(dst, index) < 0 ||
                    wk__assert_no_overlap(dst, source) < 0))
        return -1;
    if (k == 0) return 0;
    if (restride_storage_check(dst, d, k) < 0) return -1;
    dim_iter g;
    int bad;
    int64_t badv;
    if (dim_iter_init(&g, dst, d, index, false, &bad, &badv) < 0) {
        if (bad) oob_error(WK_INDEX_ERROR, "index_copy_(): ", badv, d, nonempty_size(dst, (int)d));
        return -1;
    }
    wk_tensor *s1 = nonempty_view(source);
    wk_tensor *se = s1 ? wk__expand_to(s1, g.ndim, g.shape) : NULL;
    int rc = se ? run3(g.tr, se, g.offr, scatter_loop(wk_dtype_size(dst->dtype)), NULL) : -1;
    wk_release(se);
    wk_release(s1);
    dim_iter_free(&g);
    return rc;
}

static int index_fill_into(wk_tensor *dst, int64_t dim, wk_tensor *index, wk_scalar value, bool inplace) {
    if (index->dtype != WK_INT64) {
        wk__error(WK_INDEX_ERROR, "index_fill_(): Expected dtype int64 for index.");
        return -1;
    }
    if (inplace && wk__assert_no_overlap(dst, index) < 0) return -1;
    if (inplace && internal_overlap(dst)) warn_expanded("index_fill_", "tensor[mask] = scalar");
    int64_t d;
    if (wk__wrap_dim(dim, dst->ndim ? dst->ndim : 1, &d) < 0) return -1;
    if (index->ndim > 1) {
        wk__error(WK_RUNTIME_ERROR, "Index has to be a vector/scalar");
        return -1;
    }
    if (wk__check_scalar_fits(value, dst->dtype) < 0) return -1;
    if (wk__numel(index) == 0) return 0;
    if (restride_storage_check(dst, d, wk__numel(index)) < 0) return -1;
    if (wk__numel(dst) == 0) return 0;
    dim_iter g;
    int bad;
    int64_t badv;
    if (dim_iter_init(&g, dst, d, index, true, &bad, &badv) < 0) {
        if (bad) oob_error(WK_INDEX_ERROR, "", badv, d, nonempty_size(dst, (int)d));
        return -1;
    }
    wk_tensor *v = wk__full(0, NULL, dst->dtype, value);
    wk_tensor *ve = v ? wk__expand_to(v, g.ndim, g.shape) : NULL;
    int rc = ve ? run3(g.tr, ve, g.offr, scatter_loop(wk_dtype_size(dst->dtype)), NULL) : -1;
    wk_release(ve);
    wk_release(v);
    dim_iter_free(&g);
    return rc;
}

static int value_tensor_scalar(const char *op, const wk_tensor *value, wk_scalar *v) {
    if (value->ndim != 0) {
        wk__error(WK_RUNTIME_ERROR, "%s only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                  op, value->ndim);
        return -1;
    }
    return wk_item(value, v);
}

/* out of place: the same on a clone of self */
#define ON_CLONE(CALL)                                                                                 \
    do {                                                                                               \
        wk_tensor *out = wk__clone(self);                                                              \
        if (out && (CALL) < 0) {                                                                       \
            wk_release(out);                                                                           \
            out = NULL;                                                                                \
        }                                                                                              \
        return out;                                                                                    \
    } while (0)

wk_tensor *wk_impl_index_add(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source, wk_scalar alpha) {
    ON_CLONE(index_add_into(out, dim, index, source, alpha, false));
}
int wk_impl_index_add_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source, wk_scalar alpha) {
    return index_add_into(self, dim, index, source, alpha, true);
}

wk_tensor *wk_impl_index_copy(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source) {
    ON_CLONE(index_copy_into(out, dim, index, source, false));
}
int wk_impl_index_copy_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source) {
    return index_copy_into(self, dim, index, source, true);
}

wk_tensor *wk_impl_index_fill_int_Scalar(wk_tensor *self, int64_t dim, wk_tensor *index, wk_scalar value) {
    ON_CLONE(index_fill_into(out, dim, index, value, false));
}
int wk_impl_index_fill_inplace_int_Scalar(wk_tensor *self, int64_t dim, wk_tensor *index, wk_scalar value) {
    return index_fill_into(self, dim, index, value, true);
}

wk_tensor *wk_impl_index_fill_int_Tensor(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *value) {
    wk_scalar v;
    if (value_tensor_scalar("index_fill_", value, &v) < 0) return NULL;
    ON_CLONE(index_fill_into(out, dim, index, v, false));
}
int wk_impl_index_fill_inplace_int_Tensor(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *value) {
    wk_scalar v;
    if (value_tensor_scalar("index_fill_", value, &v) < 0) return -1;
    return index_fill_into(self, dim, index, v, true);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sorted distinct values of an int64 index (torch's _unique for index_fill's backward). */
wk_tensor *wk_impl_ix_unique_index(wk_tensor *index) {
    wk_tensor *c = wk__to_dtype(index, WK_INT64), *cc = c ? wk__contiguous(c) : NULL;
    wk_release(c);
    if (!cc) return NULL;
    int64_t n = wk__numel(cc);
    int64_t *v = wk__malloc(sizeof(int64_t) * (size_t)(n ? n : 1)); /* [n] sorted copy */
    if (!v) {
        wk_release(cc);
        return NULL;
    }
    if (n) memcpy(v, wk__data(cc), sizeof(int64_t) * (size_t)n);
    wk_release(cc);
    qsort(v, (size_t)n, sizeof(int64_t), cmp_i64);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
    wk_tensor *r = wk_from_data(v, WK_INT64, 1, &k);
    free(v);
    return r;
}

/* ================================================================================================
 * take, put, take_along_dim
 * ================================================================================================ */

/* Flat offsets (bytes into the contiguous `flat`) of index values, wrapping negatives; IndexError like torch. */
static wk_tensor *flat_offsets(const wk_tensor *index, int64_t numel, size_t esz) {
    int bad;
    int64_t badv;
    wk_tensor *off = dim_offsets(index, numel, (int64_t)esz, true, &bad, &badv);
    if (!off && bad)
        wk__error(WK_INDEX_ERROR, "out of range: tried to access index %lld on a tensor of %lld elements.",
                  (long long)badv, (long long)numel);
    return off;
}

wk_tensor *wk_impl_take(wk_tensor *self, wk_tensor *index) {
    if (index->dtype != WK_INT64)
        return WK_FAIL(WK_RUNTIME_ERROR, "take(): Expected a long tensor for index, but got %s",
                       wk_dtype_scalar_name(index->dtype));
    int64_t n = wk__numel(self);
    if (n == 0 && wk__numel(index) != 0) return WK_FAIL(WK_INDEX_ERROR, "take(): tried to take from an empty tensor");
    wk_tensor *out = wk__empty(index->ndim, index->sizes, self->dtype);
    if (!out || wk__numel(out) == 0) return out;
    size_t esz = wk_dtype_size(self->dtype);
    wk_tensor *flat = wk__contiguous(self), *off = NULL, *fr = NULL;
    if (!flat) goto fail;
    off = flat_offsets(index, n, esz);
    if (!off) goto fail;
    int64_t zeros[WK_MAX_DIM] = {0};
    fr = restride(flat, index->ndim, index->sizes, zeros, flat->offset);
    if (!fr || run3(out, fr, off, gather_loop(esz), NULL) < 0) goto fail;
    goto done;
fail:
    wk_release(out);
    out = NULL;
done:
    wk_release(flat);
    wk_release(off);
    wk_release(fr);
    return out;
}

wk_tensor *wk_impl_put(wk_tensor *self, wk_tensor *index, wk_tensor *source, bool accumulate) {
    if (index->dtype != WK_INT64)
        return WK_FAIL(WK_RUNTIME_ERROR, "put_(): Expected a long tensor for index, but got %s",
                       wk_dtype_scalar_name(index->dtype));
    if (self->dtype != source->dtype)
        return WK_FAIL(WK_RUNTIME_ERROR, "put_(): self and source expected to have the same dtype, but got self.dtype = "
                                         "%s and source.dtype = %s",
                       wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(source->dtype));
    int64_t k = wk__numel(index), n = wk__numel(self);
    if (wk__numel(source) != k)
        return WK_FAIL(WK_INDEX_ERROR, "put_(): Expected source and index to have the same number of elements, but got "
                                       "source.numel() = %lld, index.numel() = %lld",
                       (long long)wk__numel(source), (long long)k);
    if (n == 0 && k != 0) return WK_FAIL(WK_INDEX_ERROR, "put_(): Tried to put elements into an empty tensor");
    wk_tensor *out = wk__clone(self); /* contiguous: flat offsets address it directly */
    if (!out || k == 0) return out;
    size_t esz = wk_dtype_size(self->dtype);
    int64_t one = 1;
    wk_tensor *ic = wk__contiguous(index), *sc = wk__contiguous(source), *iv = NULL, *sv = NULL, *off = NULL, *dr = NULL;
    if (!ic || !sc) goto fail;
    iv = wk__alias(ic, 1, &k, &one, ic->offset); /* both flattened: index.reshape(source.sizes()) */
    sv = wk__alias(sc, 1, &k, &one, sc->offset);
    if (!iv || !sv) goto fail;
    off = flat_offsets(iv, n, esz);
    if (!off) goto fail;
    int64_t zero = 0;
    dr = restride(out, 1, &k, &zero, out->offset);
    if (!dr || run3(dr, sv, off, accumulate ? red_add[self->dtype] : scatter_loop(esz), NULL) < 0) goto fail;
    goto done;
fail:
    wk_release(out);
    out = NULL;
done:
    wk_release(ic);
    wk_release(sc);
    wk_release(iv);
    wk_release(sv);
    wk_release(off);
    wk_release(dr);
    return out;
}

/* torch's take_along_dim: composite over broadcast + gather (so its grad_fn is GatherBackward0). */
wk_tensor *wk_impl_take_along_dim(wk_tensor *self, wk_tensor *indices, wk_optint dim) {
    if (!dim.has) {
        int64_t m1 = -1;
        wk_tensor *sv = wk_view(self, wk_ints(&m1, 1)), *iv = sv ? wk_view(indices, wk_ints(&m1, 1)) : NULL;
        wk_tensor *r = iv ? wk_gather(sv, 0, iv, false) : NULL;
        wk_release(sv);
        wk_release(iv);
        return r;
    }
    if (self->ndim != indices->ndim)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.take_along_dim(): input and indices should have the same number of "
                                         "dimensions, but got %d dimensions for input, and %d dimensions for indices",
                       self->ndim, indices->ndim);
    if (indices->dtype != WK_INT64)
        return WK_FAIL(WK_RUNTIME_ERROR, "torch.take_along_dim(): dtype of indices should be Long but got %s",
                       wk_dtype_scalar_name(indices->dtype));
    int64_t d;
    if (wk__wrap_dim(dim.v, self->ndim, &d) < 0) return NULL;
    if (self->ndim == 0) /* torch reads indices.size(dim) of the 0-d indices */
        return WK_FAIL(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)d);
    int nd = self->ndim, n1, n2;
    int64_t s[WK_MAX_DIM], b1[WK_MAX_DIM], b2[WK_MAX_DIM];
    memcpy(s, self->sizes, sizeof(int64_t) * (size_t)nd);
    if (nd) s[d] = indices->sizes[d];
    if (wk__broadcast_shapes(nd, s, nd, indices->sizes, &n1, b1) < 0) return NULL;
    memcpy(s, indices->sizes, sizeof(int64_t) * (size_t)nd);
    if (nd) s[d] = self->sizes[d];
    if (wk__broadcast_shapes(nd, s, nd, self->sizes, &n2, b2) < 0) return NULL;
    /* torch 2.13 takes the indices modulo the size along dim (Python's sign rule; a size of 0 divides by zero) */
    int64_t size = nd ? self->sizes[d] : 1, n = wk__numel(indices);
    if (size == 0 && n > 0) return WK_FAIL(WK_RUNTIME_ERROR, "ZeroDivisionError");
    wk_tensor *ic = wk__contiguous(indices), *iw = ic ? wk__clone(ic) : NULL; /* iw: [indices' shape] wrapped */
    wk_release(ic);
    if (!iw) return NULL;
    int64_t *iv = (int64_t *)wk__data(iw);
    for (int64_t j = 0; j < n; j++) {
        int64_t m = iv[j] % size;
        iv[j] = m < 0 ? m + size : m;
    }
    wk_tensor *ib = wk_expand(iw, wk_ints(b1, n1), false), *sb = ib ? wk_expand(self, wk_ints(b2, n2), false) : NULL;
    wk_tensor *r = sb ? wk_gather(sb, d, ib, false) : NULL;
    wk_release(iw);
    wk_release(ib);
    wk_release(sb);
    return r;
}

/* ================================================================================================
 * scatter_reduce (the two-argument overload with include_self) and its backward
 * ================================================================================================ */

wk_tensor *wk_impl_scatter_reduce_two(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src,
                                      const char *reduce, bool include_self) {
    return scatter_reduce_checked(self, dim, index, src, wk_int(0), reduce, true, include_self);
}

int wk_impl_scatter_reduce_two_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *src,
                                       const char *reduce, bool include_self) {
    red_kind k;
    if (reduce_checked(self, dim, index, src, reduce, true, &k) < 0) return -1;
    return scatter_into(self, dim, index, src, wk_int(0), k, include_self, true);
}

/* torch's scatter_reduce_backward, composed of the public (recorded) ops, so that create_graph gives second
 * derivatives. Returns grad_self (self's shape) or grad_src (index's shape). The tensors T[] below are the pool of
 * intermediates, released at the end. */
static wk_tensor *scatter_reduce_grad(wk_tensor *grad, wk_tensor *self, int64_t dim, wk_tensor *index,
                                      wk_tensor *src, const char *reduce, bool include_self, wk_tensor *result,
                                      bool for_self, wk_tensor *fill_index);

wk_tensor *wk_impl_ix_scatter_reduce_grad(wk_tensor *grad, wk_tensor *self, int64_t dim, wk_tensor *index,
                                          wk_tensor *src, const char *reduce, bool include_self, wk_tensor *result,
                                          bool for_self) {
    return scatter_reduce_grad(grad, self, dim, index, src, reduce, include_self, result, for_self, NULL);
}

/* index_reduce's backward: scatter_reduce's over the spread index, except that the places self did not take part
 * in are zeroed with index_fill over the 1-d index, as torch's index_reduce_backward (IndexFillBackward0) */
wk_tensor *wk_impl_ix_index_reduce_grad(wk_tensor *grad, wk_tensor *self, int64_t dim, wk_tensor *index,
                                        wk_tensor *source, const char *reduce, bool include_self, wk_tensor *result,
                                        bool for_self) {
    wk_tensor *spread = wk_impl_ix_index_reduce_index(self, dim, index, source);
    wk_tensor *g = spread ? scatter_reduce_grad(grad, self, dim, spread, source, reduce, include_self, result,
                                                for_self, index) : NULL;
    wk_release(spread);
    return g;
}

/* fill_index: NULL (scatter_reduce: zero the excluded places through the scatter index) or index_reduce's 1-d index */
static wk_tensor *scatter_reduce_grad(wk_tensor *grad, wk_tensor *self, int64_t dim, wk_tensor *index,
                                      wk_tensor *src, const char *reduce, bool include_self, wk_tensor *result,
                                      bool for_self, wk_tensor *fill_index) {
    red_kind k;
    if (parse_reduce(reduce, true, &k) < 0) return NULL;
    wk_tensor *T[24] = {0}; /* intermediates */
    int n = 0;
#define OK(x)                 \
    do {                      \
        wk_tensor *t_ = (x);  \
        if (!t_) goto fail;   \
        T[n++] = t_;          \
    } while (0)
    wk_tensor *gs = NULL; /* the answer (a new reference) */
    switch (k) {
    case RED_SUM:
        gs = for_self ? wk_retain(grad) : wk_gather(grad, dim, index, false);
        break;
    case RED_MEAN: {
        OK(include_self ? wk_ones_like(grad, WK_DTYPE_NONE, false) : wk_zeros_like(grad, WK_DTYPE_NONE, false));
        wk_tensor *N0 = T[n - 1];
        OK(wk_ones_like(src, WK_DTYPE_NONE, false));
        OK(wk_scatter_add(N0, dim, index, T[n - 1]));
        wk_tensor *N1 = T[n - 1];
        OK(wk_eq_Scalar(N1, wk_int(0)));
        OK(wk_masked_fill_Scalar(N1, T[n - 1], wk_int(1)));
        wk_tensor *N = T[n - 1]; /* [self's shape] how many values met at each place */
        if (for_self) {
            gs = wk_div(grad, N, NULL);
        } else {
            OK(wk_gather(grad, dim, index, false));
            wk_tensor *g = T[n - 1];
            OK(wk_gather(N, dim, index, false));
            gs = wk_div(g, T[n - 1], NULL);
        }
        break;
    }
    case RED_AMAX:
    case RED_AMIN: { /* the gradient is shared evenly among the values equal to the result */
        OK(wk_gather(result, dim, index, false));
        wk_tensor *value = T[n - 1];
        OK(wk_eq(self, result));
        wk_tensor *self_is = T[n - 1];
        OK(wk_eq(src, value));
        wk_tensor *src_is = T[n - 1];
        OK(wk__to_dtype(self_is, self->dtype));
        wk_tensor *self_is_f = T[n - 1];
        OK(wk__to_dtype(src_is, self->dtype));
        OK(wk_scatter_add(self_is_f, dim, index, T[n - 1]));
        OK(wk_div(grad, T[n - 1], NULL));
        wk_tensor *gd = T[n - 1];
        if (for_self) {
            gs = wk_mul(self_is, gd);
        } else {
            OK(wk_gather(gd, dim, index, false));
            gs = wk_mul(src_is, T[n - 1]);
        }
        break;
    }
    case RED_PROD:
        if (for_self) { /* grad * (self with zeros as 1).scatter_reduce(prod) / (self with zeros as 1) */
            OK(wk_eq_Scalar(self, wk_int(0)));
            OK(wk_masked_fill_Scalar(self, T[n - 1], wk_int(1)));
            wk_tensor *ms = T[n - 1];
            OK(wk_scatter_reduce_two(ms, dim, index, src, "prod", include_self));
            OK(wk_mul(grad, T[n - 1]));
            gs = wk_div(T[n - 1], ms, NULL);
        } else { /* a lone zero among the values meeting at a place gets the product of the others */
            OK(wk_eq_Scalar(src, wk_int(0)));
            wk_tensor *src_zero = T[n - 1];
            OK(wk_zeros_like(self, WK_DTYPE_NONE, false));
            wk_tensor *z = T[n - 1];
            OK(wk__to_dtype(src_zero, self->dtype));
            OK(wk_scatter_add(z, dim, index, T[n - 1]));
            OK(wk_gather(T[n - 1], dim, index, false));
            OK(wk_eq_Scalar(T[n - 1], wk_int(1)));
            OK(wk_logical_and(src_zero, T[n - 1]));
            wk_tensor *single = T[n - 1];
            OK(wk_masked_fill_Scalar(src, single, wk_int(1)));
            OK(wk_scatter_reduce_two(self, dim, index, T[n - 1], "prod", include_self));
            OK(wk_mul(grad, T[n - 1]));
            OK(wk_gather(T[n - 1], dim, index, false));
            wk_tensor *a = T[n - 1];
            OK(wk_mul(grad, result));
            OK(wk_gather(T[n - 1], dim, index, false));
            wk_tensor *b = T[n - 1];
            OK(wk_masked_fill_Scalar(src, src_zero, wk_int(1)));
            OK(wk_div(b, T[n - 1], NULL));
            gs = wk_where_self(single, a, T[n - 1]);
        }
        break;
    default: break;
    }
    if (gs && for_self && !include_self) {
        wk_tensor *z = fill_index ? wk_index_fill_int_Scalar(gs, dim, fill_index, wk_int(0))
                                  : wk_scatter_value(gs, dim, index, wk_int(0));
        wk_release(gs);
        gs = z;
    }
#undef OK
    for (int i = 0; i < n; i++) wk_release(T[i]);
    return gs;
fail:
    for (int i = 0; i < n; i++) wk_release(T[i]);
    return NULL;
}

/* ================================================================================================
 * index_reduce (torch's index_reduce meta + index_reduce_cpu_): scatter_reduce with the 1-d index spread along
 * dim over source's shape, after torch's own checks in torch's order
 * ================================================================================================ */

/* [source's shape] int64: index[j] at every place whose coordinate along dim is j (a stride-0 view of a copy) */
static wk_tensor *index_reduce_spread(int64_t d, const wk_tensor *index, const wk_tensor *source) {
    int64_t k = wk__numel(index);
    wk_tensor *ic = wk__contiguous(index), *i64 = NULL;
    if (!ic) return NULL;
    i64 = wk__empty(1, &k, WK_INT64); /* [k] */
    if (!i64) goto done;
    int64_t *v = (int64_t *)wk__data(i64);
    for (int64_t j = 0; j < k; j++)
        v[j] = ic->dtype == WK_INT32 ? ((const int32_t *)wk__data(ic))[j] : ((const int64_t *)wk__data(ic))[j];
    if (source->ndim == 0) {
        wk_tensor *r = wk__alias(i64, 0, NULL, NULL, i64->offset);
        wk_release(i64);
        i64 = r;
    } else {
        int64_t st[WK_MAX_DIM] = {0};
        st[d] = 1;
        wk_tensor *r = wk__alias(i64, source->ndim, source->sizes, st, i64->offset);
        wk_release(i64);
        i64 = r;
    }
done:
    wk_release(ic);
    return i64;
}

static int index_reduce_into(wk_tensor *dst, const wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source,
                             const char *reduce, bool include_self, bool inplace) {
    red_kind k;
    const char *r = reduce ? reduce : "";
    if (!strcmp(r, "prod")) k = RED_PROD;
    else if (!strcmp(r, "mean")) k = RED_MEAN;
    else if (!strcmp(r, "amax")) k = RED_AMAX;
    else if (!strcmp(r, "amin")) k = RED_AMIN;
    else {
        wk__error(WK_RUNTIME_ERROR, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", r);
        return -1;
    }
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim ? self->ndim : 1, &d) < 0) return -1;
    int64_t numel = wk__numel(index);
    wk_strbuf a = {0}, b = {0};
    int rc = -1;
    wk_tensor *spread = NULL;
    if (index->ndim > 1) {
        wk__error(WK_INDEX_ERROR, "index_reduce_(): Index is supposed to be a vector, but got dim: %d with type: %s and "
                                  "size: %s", index->ndim, wk_dtype_scalar_name(index->dtype),
                  shape_str(&a, index->sizes, index->ndim));
        goto done;
    }
    if (!is_index_dtype(index->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "index_reduce_(): Expected dtype int32/int64 for index but got: %s",
                  wk_dtype_scalar_name(index->dtype));
        goto done;
    }
    if (self->dtype != source->dtype) {
        wk__error(WK_RUNTIME_ERROR, "index_reduce_(): self (%s) and source (%s) must have the same scalar type",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(source->dtype));
        goto done;
    }
    if (!(d == 0 || d < source->ndim)) {
        wk__error(WK_RUNTIME_ERROR, "index_reduce_(): Indexing dim %lld is out of bounds of the source tensor with dim %d",
                  (long long)d, source->ndim);
        goto done;
    }
    if (numel != (source->ndim == 0 ? 1 : source->sizes[d])) {
        if (source->ndim == 0) /* torch reads source.size(dim) for its message */
            wk__error(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)d);
        else
            wk__error(WK_RUNTIME_ERROR, "index_reduce_(): Number of indices (%lld) should be equal to source.size(dim): "
                                        "(%lld), for dim: %lld", (long long)numel, (long long)source->sizes[d],
                      (long long)d);
        goto done;
    }
    bool same = self->ndim == source->ndim;
    for (int i = 0; same && i < self->ndim; i++)
        if (i != d && self->sizes[i] != source->sizes[i]) same = false;
    if (!same) {
        wk__error(WK_RUNTIME_ERROR, "source tensor shape must match self tensor shape, excluding the specified "
                                    "dimension. Got self.shape = %s source.shape = %s",
                  shape_str(&a, self->sizes, self->ndim), shape_str(&b, source->sizes, source->ndim));
        goto done;
    }
    if (inplace && (wk__assert_no_internal_overlap(dst) < 0 || wk__assert_no_overlap(dst, index) < 0 ||
                    wk__assert_no_overlap(dst, source) < 0))
        goto done;
    static bool warned = false; /* TORCH_WARN_ONCE */
    if (!warned) wk__warn("index_reduce() is in beta and the API may change at any time.");
    warned = true;
    if (self->dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for 'Bool'",
                  include_self ? "index_func_" : "index_reduce_func_exclude_input_init");
        goto done;
    }
    int64_t size = self->ndim ? self->sizes[d] : 1;
    wk_tensor *ic = wk__contiguous(index);
    if (!ic) goto done;
    for (int pass = include_self ? 1 : 0; pass < 2; pass++) /* 0: index_fill_'s bounds (include_self=False), 1: the loop's */
        for (int64_t j = 0; j < numel; j++) {
            int64_t v = ic->dtype == WK_INT32 ? ((const int32_t *)wk__data(ic))[j] : ((const int64_t *)wk__data(ic))[j];
            if (pass == 0 && (v < -size || v >= size)) {
                wk_release(ic);
                oob_error(WK_INDEX_ERROR, "", v, d, size);
                goto done;
            }
            if (pass == 1 && (v < 0 || v >= size)) {
                wk_release(ic);
                wk__error(WK_INDEX_ERROR, "index out of range in self");
                goto done;
            }
        }
    wk_release(ic);
    if (numel == 0) {
        rc = 0;
        goto done;
    }
    spread = index_reduce_spread(d, index, source);
    if (!spread) goto done;
    rc = scatter_into(dst, d, spread, source, wk_int(0), k, include_self, false);
done:
    wk_release(spread);
    wk_sb_free(&a);
    wk_sb_free(&b);
    return rc;
}

wk_tensor *wk_impl_index_reduce(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source, const char *reduce,
                                bool include_self) {
    wk_tensor *out = wk__clone(self); /* contiguous, as torch's result */
    if (out && index_reduce_into(out, self, dim, index, source, reduce, include_self, false) < 0) {
        wk_release(out);
        out = NULL;
    }
    return out;
}

int wk_impl_index_reduce_inplace(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source, const char *reduce,
                                 bool include_self) {
    return index_reduce_into(self, self, dim, index, source, reduce, include_self, true);
}

/* index_reduce's backward is scatter_reduce's (torch's index_reduce_backward is the same formulas with
 * index_select / index_add for gather / scatter_add): the index spread over source's shape */
wk_tensor *wk_impl_ix_index_reduce_index(wk_tensor *self, int64_t dim, wk_tensor *index, wk_tensor *source) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim ? self->ndim : 1, &d) < 0) return NULL;
    return index_reduce_spread(d, index, source);
}
