/* iter.c — the strided iterator and the cast loops. */
#include "cpu/iter.h"

#include "cpu/threadpool.h"

/* Dimension order, innermost first, as TensorIterator's reorder_dimensions: an insertion sort in which the first
 * operand with a decisive pair of strides decides (a zero stride decides nothing; equal strides put the smaller
 * size inner) and an undecided comparison goes on to the next dim out. Ties keep the last dim innermost. */
static int should_swap(int nops, wk_tensor *const *ops, int d0, int d1) { /* 1: d0 belongs outside d1 */
    for (int k = 0; k < nops; k++) {
        int64_t s0 = ops[k]->strides[d0], s1 = ops[k]->strides[d1];
        if (s0 == 0 || s1 == 0) continue;
        if (s0 < s1) return -1;
        if (s0 > s1) return 1;
        if (ops[k]->sizes[d0] > ops[k]->sizes[d1]) return 1;
    }
    return 0;
}

static void compute_perm(int nops, wk_tensor *const *ops, int nd, int *perm) {
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int c = should_swap(nops, ops, perm[dim0], perm[dim1]);
            if (c > 0) {
                int t = perm[dim0];
                perm[dim0] = perm[dim1];
                perm[dim1] = t;
                dim1 = dim0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

/* dense strides in the dims' order perm (innermost first) */
static wk_tensor *empty_in_order(int ndim, const int64_t *sizes, const int *perm, bool raw, wk_dtype dtype) {
    int64_t strides[WK_MAX_DIM], st = 1;
    for (int i = 0; i < ndim; i++) {
        strides[perm[i]] = st;
        /* torch's wrapping product (compatible_stride): it overflows only for an empty tensor, never read */
        st = (int64_t)((uint64_t)st * (uint64_t)(raw || sizes[perm[i]] > 1 ? sizes[perm[i]] : 1));
    }
    return wk__empty_strided(ndim, sizes, strides, dtype);
}

wk_tensor *wk_iter_alloc_output(int nin, wk_tensor *const *inputs, int ndim, const int64_t *sizes, wk_dtype dtype) {
    return wk_iter_alloc_output_ex(nin, inputs, ndim, sizes, dtype, false);
}

wk_tensor *wk_iter_alloc_output_ex(int nin, wk_tensor *const *inputs, int ndim, const int64_t *sizes, wk_dtype dtype,
                                   bool broadcast) {
    /* TensorIterator's fast setup: inputs that are all contiguous give a contiguous output; inputs that are all
     * non-overlapping and dense with the same strides give those strides (x.t().exp() keeps x.t()'s layout,
     * size-1 dims included). Broadcast inputs (zero strides) never qualify, as torch's differing shapes do not. */
    bool contig = nin > 0 && !broadcast, nod_same = contig;
    for (int k = 0; k < nin; k++) {
        contig = contig && wk__is_contiguous(inputs[k]);
        nod_same = nod_same && inputs[k]->ndim == ndim && wk__non_overlapping_and_dense(inputs[k]) &&
                   !memcmp(inputs[k]->sizes, sizes, sizeof(int64_t) * (size_t)ndim) &&
                   !memcmp(inputs[k]->strides, inputs[0]->strides, sizeof(int64_t) * (size_t)ndim);
    }
    if (contig) return wk__empty(ndim, sizes, dtype);
    if (nod_same) return wk__empty_strided(ndim, sizes, inputs[0]->strides, dtype);
    /* else the dims sorted (reorder_dimensions): in their own order, a contiguous output; otherwise each stride the
     * product of the sizes inside it (compatible_stride), so a size-0 dim gives the dims outside it stride 0 */
    int perm[WK_MAX_DIM];
    compute_perm(nin, inputs, ndim, perm);
    bool natural = true;
    for (int i = 0; i < ndim; i++) natural = natural && perm[i] == ndim - 1 - i;
    if (natural) return wk__empty(ndim, sizes, dtype);
    return empty_in_order(ndim, sizes, perm, true, dtype);
}

wk_tensor *wk__empty_like_preserve(const wk_tensor *t, wk_dtype dtype) {
    if (dtype == WK_DTYPE_NONE) dtype = t->dtype;
    if (wk__non_overlapping_and_dense(t)) return wk__empty_strided(t->ndim, t->sizes, t->strides, dtype);
    int perm[WK_MAX_DIM]; /* infer_dense_strides: the iterator's order, sizes 0 and 1 counted as 1 */
    wk_tensor *in = (wk_tensor *)t;
    compute_perm(1, &in, t->ndim, perm);
    return empty_in_order(t->ndim, t->sizes, perm, false, dtype);
}

int wk_iter_init(wk_iter *it, int nops, wk_tensor *const *ops) {
    it->nops = nops;
    const wk_tensor *o0 = ops[0];
    int nd = o0->ndim;
    it->numel = wk__numel(o0);
    for (int k = 0; k < nops; k++) it->data[k] = wk__data(ops[k]);
    it->ndim = 0;
    if (it->numel == 0) return 0; /* nothing to visit: an empty view's strides may be anything (2**62 * itemsize) */
    int perm[WK_MAX_DIM];
    compute_perm(nops, ops, nd, perm);
    int n = 0;
    for (int i = 0; i < nd; i++) {
        int d = perm[i];
        int64_t sz = o0->sizes[d];
        if (sz == 1) continue; /* size-1 dims carry no iteration */
        if (n > 0) {           /* coalesce with the previous (inner) dim when contiguous for all operands */
            bool ok = true;
            for (int k = 0; k < nops && ok; k++) {
                int64_t a, b;
                ok = !__builtin_mul_overflow(ops[k]->strides[d], (int64_t)wk_dtype_size(ops[k]->dtype), &a) &&
                     !__builtin_mul_overflow(it->strides[n - 1][k], it->shape[n - 1], &b) && a == b;
            }
            if (ok) {
                it->shape[n - 1] *= sz; /* a product of sizes of a non-empty operand: at most numel */
                continue;
            }
        }
        it->shape[n] = sz;
        for (int k = 0; k < nops; k++) /* a non-empty operand's span fits in its storage; checked all the same */
            if (__builtin_mul_overflow(ops[k]->strides[d], (int64_t)wk_dtype_size(ops[k]->dtype), &it->strides[n][k]))
                return wk__error(WK_RUNTIME_ERROR, "iterator: stride %lld overflows in bytes",
                                 (long long)ops[k]->strides[d]), -1;
        n++;
    }
    it->ndim = n;
    return 0;
}

void wk_iter_run(const wk_iter *it, wk_loop_fn fn, void *ctx) {
    if (it->numel == 0) return;
    int nops = it->nops;
    char *ptr[WK_MAX_OPS];
    int64_t inner_strides[WK_MAX_OPS];
    for (int k = 0; k < nops; k++) ptr[k] = it->data[k];
    if (it->ndim == 0) {
        for (int k = 0; k < nops; k++) inner_strides[k] = 0;
        fn(ptr, inner_strides, 1, ctx);
        return;
    }
    for (int k = 0; k < nops; k++) inner_strides[k] = it->strides[0][k];
    int64_t inner = it->shape[0];
    if (it->ndim == 1) {
        fn(ptr, inner_strides, inner, ctx);
        return;
    }
    int64_t idx[WK_MAX_DIM] = {0};
    for (;;) {
        fn(ptr, inner_strides, inner, ctx);
        int d = 1;
        for (; d < it->ndim; d++) { /* odometer increment over the outer dims */
            idx[d]++;
            for (int k = 0; k < nops; k++) ptr[k] += it->strides[d][k];
            if (idx[d] < it->shape[d]) break;
            for (int k = 0; k < nops; k++) ptr[k] -= it->strides[d][k] * it->shape[d];
            idx[d] = 0;
        }
        if (d == it->ndim) break;
    }
}

/* Runs the linear element range [begin, end) of the iteration (inner dimension fastest): partial runs at the ends. */
static void iter_run_range(const wk_iter *it, wk_loop_fn fn, void *ctx, int64_t begin, int64_t end) {
    int nops = it->nops, nd = it->ndim;
    char *ptr[WK_MAX_OPS];
    int64_t inner_strides[WK_MAX_OPS], idx[WK_MAX_DIM] = {0};
    for (int k = 0; k < nops; k++) {
        ptr[k] = it->data[k];
        inner_strides[k] = it->strides[0][k];
    }
    int64_t rem = begin;
    for (int d = 0; d < nd; d++) { /* the multi-index of `begin` */
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
        for (int k = 0; k < nops; k++) ptr[k] += idx[d] * it->strides[d][k];
    }
    int64_t left = end - begin;
    for (;;) {
        int64_t n = it->shape[0] - idx[0] < left ? it->shape[0] - idx[0] : left;
        fn(ptr, inner_strides, n, ctx);
        left -= n;
        if (left <= 0) return;
        for (int k = 0; k < nops; k++) ptr[k] -= idx[0] * it->strides[0][k];
        idx[0] = 0;
        for (int d = 1; d < nd; d++) { /* odometer increment over the outer dims */
            idx[d]++;
            for (int k = 0; k < nops; k++) ptr[k] += it->strides[d][k];
            if (idx[d] < it->shape[d]) break;
            for (int k = 0; k < nops; k++) ptr[k] -= it->strides[d][k] * it->shape[d];
            idx[d] = 0;
        }
    }
}

typedef struct {
    const wk_iter *it;
    wk_loop_fn fn;
    void *ctx;
} par_job;
static void par_chunk(int64_t begin, int64_t end, int tid, void *job_) {
    (void)tid;
    const par_job *job = (const par_job *)job_;
    iter_run_range(job->it, job->fn, job->ctx, begin, end);
}

void wk_iter_run_parallel(const wk_iter *it, wk_loop_fn fn, void *ctx) {
    if (it->numel < WK_GRAIN_SIZE || it->ndim == 0 || wk_get_num_threads() < 2) { /* TensorIterator::for_each */
        wk_iter_run(it, fn, ctx);
        return;
    }
    par_job job = {it, fn, ctx};
    wk_parallel_for(0, it->numel, WK_GRAIN_SIZE, par_chunk, &job);
}

int wk_iter_apply(int nops, wk_tensor *const *ops, wk_loop_fn fn, void *ctx) {
    wk_iter it;
    if (wk_iter_init(&it, nops, ops) < 0) return -1;
    wk_iter_run(&it, fn, ctx);
    return 0;
}

/* ---- casts ----
 * Integral sources go through int64, floating sources through double (exact for every floating dtype), and each
 * destination converts from those with C (x86) semantics, as torch's static_cast does. */
static inline int64_t f2i64(double x) { return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN; }
static inline int32_t f2i32(double x) { return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN; }

#define LD_I_BOOL(p) ((int64_t)(*(const uint8_t *)(p) != 0))
#define LD_I_UINT8(p) ((int64_t) * (const uint8_t *)(p))
#define LD_I_INT8(p) ((int64_t) * (const int8_t *)(p))
#define LD_I_INT16(p) ((int64_t) * (const int16_t *)(p))
#define LD_I_INT32(p) ((int64_t) * (const int32_t *)(p))
#define LD_I_INT64(p) (*(const int64_t *)(p))
#define LD_F_FLOAT16(p) ((double)wk__half_to_float(*(const uint16_t *)(p)))
#define LD_F_BFLOAT16(p) ((double)wk__bf16_to_float(*(const uint16_t *)(p)))
#define LD_F_FLOAT32(p) ((double)*(const float *)(p))
#define LD_F_FLOAT64(p) (*(const double *)(p))

#define ST_I_BOOL(p, v) (*(uint8_t *)(p) = (v) != 0)
#define ST_I_UINT8(p, v) (*(uint8_t *)(p) = (uint8_t)(uint64_t)(v))
#define ST_I_INT8(p, v) (*(int8_t *)(p) = (int8_t)(uint8_t)(uint64_t)(v))
#define ST_I_INT16(p, v) (*(int16_t *)(p) = (int16_t)(uint16_t)(uint64_t)(v))
#define ST_I_INT32(p, v) (*(int32_t *)(p) = (int32_t)(uint32_t)(uint64_t)(v))
#define ST_I_INT64(p, v) (*(int64_t *)(p) = (v))
#define ST_I_FLOAT16(p, v) (*(uint16_t *)(p) = wk__float_to_half((float)(v)))
#define ST_I_BFLOAT16(p, v) (*(uint16_t *)(p) = wk__float_to_bf16((float)(v)))
#define ST_I_FLOAT32(p, v) (*(float *)(p) = (float)(v))
#define ST_I_FLOAT64(p, v) (*(double *)(p) = (double)(v))

#define ST_F_BOOL(p, v) (*(uint8_t *)(p) = (v) != 0)
#define ST_F_UINT8(p, v) (*(uint8_t *)(p) = (uint8_t)(uint32_t)f2i32(v))
#define ST_F_INT8(p, v) (*(int8_t *)(p) = (int8_t)(uint8_t)(uint32_t)f2i32(v))
#define ST_F_INT16(p, v) (*(int16_t *)(p) = (int16_t)(uint16_t)(uint32_t)f2i32(v))
#define ST_F_INT32(p, v) (*(int32_t *)(p) = f2i32(v))
#define ST_F_INT64(p, v) (*(int64_t *)(p) = f2i64(v))
#define ST_F_FLOAT16(p, v) (*(uint16_t *)(p) = wk__float_to_half((float)(v)))
#define ST_F_BFLOAT16(p, v) (*(uint16_t *)(p) = wk__float_to_bf16((float)(v)))
#define ST_F_FLOAT32(p, v) (*(float *)(p) = (float)(v))
#define ST_F_FLOAT64(p, v) (*(double *)(p) = (v))

#define CAST_LOOP(D, S, K)                                                              \
    static void cast_##D##_##S(char **d, const int64_t *s, int64_t n, void *ctx) {      \
        (void)ctx;                                                                      \
        char *o = d[0], *i = d[1];                                                      \
        for (int64_t j = 0; j < n; j++, o += s[0], i += s[1]) ST_##K##_##D(o, LD_##K##_##S(i)); \
    }
#define SRC_LOOPS(D)                                                                    \
    CAST_LOOP(D, BOOL, I) CAST_LOOP(D, UINT8, I) CAST_LOOP(D, INT8, I) CAST_LOOP(D, INT16, I) \
    CAST_LOOP(D, INT32, I) CAST_LOOP(D, INT64, I) CAST_LOOP(D, FLOAT16, F) CAST_LOOP(D, BFLOAT16, F) \
    CAST_LOOP(D, FLOAT32, F) CAST_LOOP(D, FLOAT64, F)
#define WK_X(E, n, s, sz, k) SRC_LOOPS(E)
WK_DTYPES(WK_X)
#undef WK_X

/* Same-dtype copies: memmove for contiguous runs. */
#define COPY_LOOP(SZ, T)                                                                \
    static void copy_##SZ(char **d, const int64_t *s, int64_t n, void *ctx) {           \
        (void)ctx;                                                                      \
        if (s[0] == SZ && s[1] == SZ) {                                                 \
            memmove(d[0], d[1], (size_t)n * SZ);                                        \
            return;                                                                     \
        }                                                                               \
        char *o = d[0], *i = d[1];                                                      \
        for (int64_t j = 0; j < n; j++, o += s[0], i += s[1]) *(T *)o = *(const T *)i; \
    }
COPY_LOOP(1, uint8_t)
COPY_LOOP(2, uint16_t)
COPY_LOOP(4, uint32_t)
COPY_LOOP(8, uint64_t)

static const wk_loop_fn CAST[WK_NUM_DTYPES][WK_NUM_DTYPES] = {
#define ROW(D) {cast_##D##_BOOL, cast_##D##_UINT8, cast_##D##_INT8, cast_##D##_INT16, cast_##D##_INT32, \
                cast_##D##_INT64, cast_##D##_FLOAT16, cast_##D##_BFLOAT16, cast_##D##_FLOAT32, cast_##D##_FLOAT64},
#define WK_X(E, n, s, sz, k) ROW(E)
    WK_DTYPES(WK_X)
#undef WK_X
#undef ROW
};

wk_loop_fn wk_cast_loop(wk_dtype dst, wk_dtype src) {
    if (dst != src) return CAST[dst][src];
    switch (wk_dtype_size(dst)) {
    case 1: return copy_1;
    case 2: return copy_2;
    case 4: return copy_4;
    default: return copy_8;
    }
}
