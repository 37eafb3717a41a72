/* reduce.c — the reduction framework (reduce.h) and the reductions: sum, nansum, mean, nanmean, prod, amax, amin,
 * aminmax, all, any, count_nonzero, max/min/argmax/argmin, var, std, var_mean, std_mean, logsumexp,
 * linalg_vector_norm; and the backward helpers they share with the sorting and scan ops. */
#include "ops/reduce.h"

#include "autograd/autograd.h"
#include "cpu/threadpool.h"
#include "cpu/vec.h"
#include "ops_impl.h"
#include "ops/pointwise.h"

/* ================================================================================================ framework */

int wk__reduce_mask(const wk_tensor *self, wk_intlist dim, bool *mask) {
    int nd = self->ndim;
    for (int i = 0; i < nd; i++) mask[i] = false;
    if (!dim.data || dim.len <= 0) {
        for (int i = 0; i < nd; i++) mask[i] = true;
        return nd;
    }
    int count = 0;
    bool seen0 = false; /* a 0-d tensor's dim 0 (or -1), which may appear once too */
    for (int64_t k = 0; k < dim.len; k++) {
        int64_t d;
        if (wk__wrap_dim(dim.data[k], nd, &d) < 0) return -1;
        if (nd == 0) {
            if (seen0) {
                wk__error(WK_RUNTIME_ERROR, "dim 0 appears multiple times in the list of dims");
                return -1;
            }
            seen0 = true;
            continue;
        }
        if (mask[d]) {
            wk__error(WK_RUNTIME_ERROR, "dim %lld appears multiple times in the list of dims", (long long)d);
            return -1;
        }
        mask[d] = true;
        count++;
    }
    return count;
}

int wk__check_diff_dtype(const wk_tensor *self, wk_dtype out_dtype) {
    if (!wk_dtype_is_floating(out_dtype) && wk__grad_enabled() && wk__tensor_requires_grad(self)) {
        wk__error(WK_RUNTIME_ERROR, "Autograd not support dtype: %s", wk_dtype_scalar_name(out_dtype));
        return -1;
    }
    return 0;
}

int wk__reduce_dim(const wk_tensor *self, int64_t dim, int64_t *out) { return wk__wrap_dim(dim, self->ndim, out); }

int wk__reduce_shape(const wk_tensor *self, const bool *mask, bool keepdim, int64_t *out) {
    int n = 0;
    for (int i = 0; i < self->ndim; i++) {
        if (!mask[i]) out[n++] = self->sizes[i];
        else if (keepdim) out[n++] = 1;
    }
    return n;
}

wk_tensor *wk__reduce_view(const wk_tensor *acc, const wk_tensor *self) {
    int64_t strides[WK_MAX_DIM];
    for (int i = 0; i < self->ndim; i++) strides[i] = acc->sizes[i] == 1 ? 0 : acc->strides[i];
    return wk__alias(acc, self->ndim, self->sizes, strides, acc->offset);
}

wk_tensor *wk__squeeze_mask(const wk_tensor *t, const bool *mask) {
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (!mask[i]) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return wk__alias(t, n, sizes, strides, t->offset);
}

wk_tensor *wk__reduce_finish(wk_tensor *k, const bool *mask, bool keepdim) {
    if (!k || keepdim) return k;
    wk_tensor *r = wk__squeeze_mask(k, mask);
    wk_release(k);
    return r;
}

int64_t wk__reduce_count(const wk_tensor *self, const bool *mask) {
    int64_t n = 1;
    for (int i = 0; i < self->ndim; i++)
        if (mask[i]) n *= self->sizes[i];
    return n;
}

int wk__check_nonempty_dims(const wk_tensor *self, const bool *mask, const char *name) {
    for (int i = 0; i < self->ndim; i++)
        if (mask[i] && self->sizes[i] == 0) {
            wk__error(WK_INDEX_ERROR, "%s(): Expected reduction dim %d to have non-zero size.", name, i);
            return -1;
        }
    return 0;
}

wk_tensor *wk__reduce_acc(const wk_tensor *self, const bool *mask, wk_dtype acc_dtype, wk_scalar init,
                          wk_loop_fn loop, void *ctx) {
    int64_t shape[WK_MAX_DIM];
    int nd = wk__reduce_shape(self, mask, true, shape);
    wk_tensor *acc = wk__full(nd, shape, acc_dtype, init);
    if (!acc) return NULL;
    wk_tensor *view = wk__reduce_view(acc, self);
    if (!view) {
        wk_release(acc);
        return NULL;
    }
    wk_tensor *ops[2] = {view, (wk_tensor *)self};
    int rc = wk_iter_apply(2, ops, loop, ctx);
    wk_release(view);
    if (rc < 0) {
        wk_release(acc);
        return NULL;
    }
    return acc;
}

int wk__rows_apply(int nops, wk_tensor *const *ops, int64_t dim, wk_loop_fn fn, wk_rows_ctx *ctx) {
    wk_tensor *al[WK_MAX_OPS] = {0};
    int rc = -1;
    for (int k = 0; k < nops; k++) {
        const wk_tensor *t = ops[k];
        int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
        int nd = t->ndim ? t->ndim : 1;
        if (t->ndim == 0) {
            sizes[0] = 1;
            strides[0] = 1;
        } else {
            memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)nd);
            memcpy(strides, t->strides, sizeof(int64_t) * (size_t)nd);
        }
        ctx->rs[k] = strides[dim] * (int64_t)wk_dtype_size(t->dtype);
        sizes[dim] = 1;
        al[k] = wk__alias(t, nd, sizes, strides, t->offset);
        if (!al[k]) goto done;
    }
    rc = wk_iter_apply(nops, al, fn, ctx);
done:
    for (int k = 0; k < nops; k++) wk_release(al[k]);
    return rc;
}

/* Accumulating loop: operand 0 is the accumulator (ACC_T; stride 0 inside a reduced run), operand 1 the input.
 * UPDATE is a statement over `acc` and `x` (the loaded input, as ACC_T); C is the op's double parameter. */
#define ACC_LOOP(NAME, ST_T, ACC_T, LD, UPDATE)                                               \
    static void NAME(char **d, const int64_t *s, int64_t n, void *ctx_) {                    \
        const double C = ctx_ ? *(const double *)ctx_ : 0;                                    \
        (void)C;                                                                              \
        const char *p = d[1];                                                                 \
        if (s[0] == 0) {                                                                      \
            ACC_T acc = *(ACC_T *)d[0];                                                       \
            for (int64_t i = 0; i < n; i++, p += s[1]) {                                      \
                ACC_T x = (ACC_T)LD(*(const ST_T *)p);                                        \
                UPDATE;                                                                       \
            }                                                                                 \
            *(ACC_T *)d[0] = acc;                                                             \
            return;                                                                           \
        }                                                                                     \
        char *o = d[0];                                                                       \
        for (int64_t i = 0; i < n; i++, o += s[0], p += s[1]) {                               \
            ACC_T acc = *(ACC_T *)o;                                                          \
            ACC_T x = (ACC_T)LD(*(const ST_T *)p);                                            \
            UPDATE;                                                                           \
            *(ACC_T *)o = acc;                                                                \
        }                                                                                     \
    }
/* One accumulating op over every dtype: UF for floating inputs (double acc), UI for integral/bool (int64 acc). */
#define ACC_OP(OP, UF, UI)                                                                                   \
    ACC_LOOP(OP##_BOOL, uint8_t, int64_t, WK_LD_I, UI)                                                       \
    ACC_LOOP(OP##_UINT8, uint8_t, int64_t, WK_LD_I, UI)                                                      \
    ACC_LOOP(OP##_INT8, int8_t, int64_t, WK_LD_I, UI)                                                        \
    ACC_LOOP(OP##_INT16, int16_t, int64_t, WK_LD_I, UI)                                                      \
    ACC_LOOP(OP##_INT32, int32_t, int64_t, WK_LD_I, UI)                                                      \
    ACC_LOOP(OP##_INT64, int64_t, int64_t, WK_LD_I, UI)                                                      \
    ACC_LOOP(OP##_FLOAT16, uint16_t, double, WK_LDD_F16, UF)                                                 \
    ACC_LOOP(OP##_BFLOAT16, uint16_t, double, WK_LDD_BF16, UF)                                               \
    ACC_LOOP(OP##_FLOAT32, float, double, WK_LD_ID, UF)                                                      \
    ACC_LOOP(OP##_FLOAT64, double, double, WK_LD_ID, UF)                                                     \
    static const wk_loop_fn OP[WK_NUM_DTYPES] = {                                                            \
        [WK_BOOL] = OP##_BOOL,       [WK_UINT8] = OP##_UINT8,       [WK_INT8] = OP##_INT8,                   \
        [WK_INT16] = OP##_INT16,     [WK_INT32] = OP##_INT32,       [WK_INT64] = OP##_INT64,                 \
        [WK_FLOAT16] = OP##_FLOAT16, [WK_BFLOAT16] = OP##_BFLOAT16, [WK_FLOAT32] = OP##_FLOAT32,             \
        [WK_FLOAT64] = OP##_FLOAT64};

#define WRAP_ADD(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define WRAP_MUL(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))

ACC_OP(SUM, acc += x, acc = WRAP_ADD(acc, x))
ACC_OP(NANSUM, if (!WK_ISNAN(x)) acc += x, acc = WRAP_ADD(acc, x))
ACC_OP(NOTNAN, acc += !WK_ISNAN(x), ((void)x, acc += 1))
ACC_OP(PROD, acc *= x, acc = WRAP_MUL(acc, x))
ACC_OP(AMAX, if (x > acc || WK_ISNAN(x)) acc = x, if (x > acc) acc = x)
ACC_OP(AMIN, if (x < acc || WK_ISNAN(x)) acc = x, if (x < acc) acc = x)
ACC_OP(ALL, acc = acc && x != 0, acc = acc && x != 0)
ACC_OP(ANY, acc = acc || x != 0, acc = acc || x != 0)
ACC_OP(NONZERO, acc += x != 0, acc += x != 0)
/* vector norms (floating inputs only; C = ord) */
ACC_OP(NORM_P, acc += pow(fabs(x), C), (void)x)
ACC_OP(NORM_1, acc += fabs(x), (void)x)
ACC_OP(NORM_2, acc += x * x, (void)x)
ACC_OP(NORM_0, acc += x != 0, (void)x)
ACC_OP(NORM_INF, double a = fabs(x); if (a > acc || WK_ISNAN(a)) acc = a, (void)x)
ACC_OP(NORM_NINF, double a = fabs(x); if (a < acc || WK_ISNAN(a)) acc = a, (void)x)

static wk_dtype acc_dtype_of(wk_dtype dt) { return wk_dtype_is_floating(dt) ? WK_FLOAT64 : WK_INT64; }

/* The accumulator for `table` over self's masked dims, keepdim-shaped. */
static wk_tensor *reduce_table(const wk_tensor *self, const bool *mask, const wk_loop_fn *table, wk_scalar init,
                               double param) {
    return wk__reduce_acc(self, mask, acc_dtype_of(self->dtype), init, table[self->dtype], &param);
}

/* An int[1]? dim argument as a mask; `none_is_all` false makes an empty list reduce nothing (all.dims). */
static int dims_mask(const wk_tensor *self, wk_intlist dim, bool *mask) { return wk__reduce_mask(self, dim, mask); }

/* ================================================================================================ sum / mean */

static wk_dtype sum_dtype(const wk_tensor *self, wk_dtype dtype) {
    if (dtype != WK_DTYPE_NONE) return dtype;
    return wk_dtype_is_integral(self->dtype, true) ? WK_INT64 : self->dtype;
}

/* ---- float32 sums in torch's order: Note [Cascade sum] (src/cpu/vec.c) ----
 * TensorIterator lays a reduction out with the reduced dims innermost, coalesced, and the kernel then sums a
 * contiguous row (vectorized_inner_sum) or a block of contiguous columns (vectorized_outer_sum) in its cascade
 * order. The dense layouts below are reproduced exactly, including how the parallel reduction splits them:
 *   FULL  n elements in memory order: one cascade per thread chunk of at::parallel_for(0, n, 32768), then the
 *         per-thread partials (get_num_threads() of them, unused ones 0) summed by the same kernel;
 *   ROWS  A contiguous rows of B: one cascade each (thread-count independent);
 *   SLABS A slabs of B reduced rows x C contiguous columns: column cascades; when torch splits the columns across
 *         threads (A < threads <= C) each thread's range, rounded to 32 columns, starts its own column blocks;
 *   ROWSUMS A reduced x C kept x B reduced contiguous (a conv bias gradient or a batch norm, sum over dims 0, 2, 3):
 *         TensorIterator puts both reduced dims innermost, so output c is 0 + the cascades of its A rows of B, added
 *         one after another in order of a (vectorized_inner_sum storing into an output of stride 0); the threads
 *         split the kept dim (parallel_dim_reduction), which leaves every sum's order alone.
 * Any other layout returns NULL without an error and takes the generic (double-accumulating) path. */
enum { SUM_FULL, SUM_ROWS, SUM_SLABS, SUM_ROWSUMS };
typedef struct {
    int kind;
    int64_t A, B, C; /* FULL: B = numel; ROWS: A rows of B; SLABS: A x [B, C]; ROWSUMS: [A, C, B] */
    const float *x;
    float *out;  /* FULL: 1; ROWS: A; SLABS: A * C; ROWSUMS: C */
    int lanes;   /* torch's Vectorized<float>::size() */
    int64_t chunk; /* FULL: elements per thread chunk; SLABS with split columns: columns per thread (before rounding) */
    int64_t nt;  /* tasks */
    float part[64]; /* FULL: per-thread partials */
} sum_job;

/* rowsums: whether the caller takes SUM_ROWSUMS (the sums do; amax and logsumexp leave it to the generic path) */
static int sum_layout(const wk_tensor *t, const bool *mask, bool rowsums, sum_job *j) {
    int64_t sz[WK_MAX_DIM], st[WK_MAX_DIM];
    int dimi[WK_MAX_DIM];
    bool red[WK_MAX_DIM];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] > 1) {
            sz[n] = t->sizes[i];
            st[n] = t->strides[i];
            red[n] = mask[i];
            dimi[n++] = i;
        }
    if (n == 0) return -1;
    for (int a = 1; a < n; a++) /* insertion sort by stride, innermost first */
        for (int b = a; b > 0 && st[b] < st[b - 1]; b--) {
            int64_t t1 = sz[b], t2 = st[b];
            sz[b] = sz[b - 1], st[b] = st[b - 1], sz[b - 1] = t1, st[b - 1] = t2;
            bool r = red[b];
            red[b] = red[b - 1], red[b - 1] = r;
            int di = dimi[b];
            dimi[b] = dimi[b - 1], dimi[b - 1] = di;
        }
    int64_t expect = 1;
    for (int a = 0; a < n; a++) { /* dense, and the kept dims in their logical order (as the output's) */
        if (st[a] != expect) return -1;
        expect *= sz[a];
    }
    int last_kept = -1;
    for (int a = 0; a < n; a++)
        if (!red[a]) {
            if (last_kept >= 0 && dimi[a] > dimi[last_kept]) return -1;
            last_kept = a;
        }
    int64_t gs[WK_MAX_DIM]; /* coalesced groups, innermost first */
    bool gr[WK_MAX_DIM];
    int g = 0;
    for (int a = 0; a < n; a++) {
        if (g > 0 && gr[g - 1] == red[a]) {
            gs[g - 1] *= sz[a];
            continue;
        }
        gs[g] = sz[a];
        gr[g++] = red[a];
    }
    if (g == 1 && gr[0]) {
        j->kind = SUM_FULL, j->A = 1, j->B = gs[0], j->C = 1;
    } else if (g == 2 && gr[0]) {
        j->kind = SUM_ROWS, j->A = gs[1], j->B = gs[0], j->C = 1;
    } else if (g == 2 && !gr[0]) {
        j->kind = SUM_SLABS, j->A = 1, j->B = gs[1], j->C = gs[0];
    } else if (g == 3 && !gr[0] && gr[1]) {
        j->kind = SUM_SLABS, j->A = gs[2], j->B = gs[1], j->C = gs[0];
    } else if (g == 3 && gr[0] && rowsums) {
        j->kind = SUM_ROWSUMS, j->A = gs[2], j->B = gs[0], j->C = gs[1];
    } else {
        return -1;
    }
    return 0;
}

static void sum_task(int64_t b, int64_t e, int tid, void *job_) {
    (void)tid;
    sum_job *j = (sum_job *)job_;
    const wk_vec_ops *v = wk__vec();
    for (int64_t t = b; t < e; t++) {
        if (j->kind == SUM_FULL) { /* thread chunk t */
            int64_t c0 = t * j->chunk, c1 = c0 + j->chunk < j->B ? c0 + j->chunk : j->B;
            j->part[t] = 0.0f + v->sum_inner(j->x + c0, c1 - c0, j->lanes);
        } else if (j->kind == SUM_ROWS) { /* row t */
            j->out[t] = 0.0f + v->sum_inner(j->x + t * j->B, j->B, j->lanes);
        } else if (j->kind == SUM_ROWSUMS) { /* output t: its A rows in order */
            float acc = 0.0f;
            for (int64_t a = 0; a < j->A; a++) acc += v->sum_inner(j->x + (a * j->C + t) * j->B, j->B, j->lanes);
            j->out[t] = acc;
        } else if (j->chunk == 0) { /* slab t, every column */
            v->sum_outer(j->x + t * j->B * j->C, j->B, j->C, j->C, j->out + t * j->C, j->lanes);
            for (int64_t c = 0; c < j->C; c++) j->out[t * j->C + c] += 0.0f;
        } else { /* torch's column range of thread t, in every slab */
            int64_t c0 = t * j->chunk, c1 = c0 + j->chunk < j->C ? c0 + j->chunk : j->C;
            c0 -= c0 % 32;
            if (c1 != j->C) c1 -= c1 % 32;
            if (c0 >= c1) continue;
            for (int64_t a = 0; a < j->A; a++) {
                float *o = j->out + a * j->C + c0;
                v->sum_outer(j->x + a * j->B * j->C + c0, j->B, c1 - c0, j->C, o, j->lanes);
                for (int64_t c = 0; c < c1 - c0; c++) o[c] += 0.0f;
            }
        }
    }
}

/* The float32 fast reductions' common start: j set up for self's layout and a fresh keepdim float32 output, or
 * NULL (no error) when the layout is not one of Note [Cascade sum]'s (or self is empty / one element) */
static wk_tensor *f32_reduce_begin(const wk_tensor *self, const bool *mask, bool rowsums, sum_job *j) {
    memset(j, 0, sizeof *j);
    if (self->dtype != WK_FLOAT32 || wk__numel(self) <= 1 || sum_layout(self, mask, rowsums, j) < 0) return NULL;
    int64_t shape[WK_MAX_DIM];
    int nd = wk__reduce_shape(self, mask, true, shape);
    wk_tensor *out = wk__empty(nd, shape, WK_FLOAT32);
    if (!out) return NULL;
    j->x = (const float *)wk__data(self);
    j->out = (float *)wk__data(out);
    return out;
}

/* self's float32 sum over the masked dims as a keepdim tensor, in torch's order; NULL (no error) when the layout is
 * not one of Note [Cascade sum]'s (or self is empty / one element) */
static wk_tensor *sum_f32_torch(const wk_tensor *self, const bool *mask) {
    sum_job j;
    wk_tensor *out = f32_reduce_begin(self, mask, true, &j);
    if (!out) return NULL;
    j.lanes = wk__vec_sum_lanes();
    int T = wk_get_num_threads();
    int64_t numel = wk__numel(self);
    if (T > 64) T = 64;
    bool par = numel >= WK_GRAIN_SIZE && T > 1; /* torch's parallel_reduce runs serially below GRAIN_SIZE */
    if (j.kind == SUM_FULL) {
        int64_t nt = par ? (numel + WK_GRAIN_SIZE - 1) / WK_GRAIN_SIZE : 1;
        if (nt > T) nt = T;
        j.chunk = (numel + nt - 1) / nt;
        j.nt = (numel + j.chunk - 1) / j.chunk;
        wk_parallel_for(0, j.nt, 1, sum_task, &j);
        if (!par) {
            j.out[0] = j.part[0];
        } else {
            for (int64_t t = j.nt; t < T; t++) j.part[t] = 0; /* torch's buffer has one slot per thread */
            j.out[0] = 0.0f + wk__vec()->sum_inner(j.part, T, j.lanes);
        }
    } else if (j.kind == SUM_ROWS) {
        wk_parallel_for(0, j.A, WK_GRAIN_SIZE / j.B + 1, sum_task, &j);
    } else if (j.kind == SUM_ROWSUMS) {
        wk_parallel_for(0, j.C, WK_GRAIN_SIZE / (j.A * j.B) + 1, sum_task, &j);
    } else {
        /* find_split_dim: the outer-most kept dim with size >= T, else the largest; columns get torch's ranges */
        bool split_cols = par && !(j.A >= T) && (j.C >= T || j.C > j.A);
        if (split_cols) {
            int64_t nt = j.C < T ? j.C : T;
            j.chunk = (j.C + nt - 1) / nt;
            wk_parallel_for(0, (j.C + j.chunk - 1) / j.chunk, 1, sum_task, &j);
        } else {
            wk_parallel_for(0, j.A, 1, sum_task, &j);
        }
    }
    return out;
}

typedef struct {
    sum_job *j;
} amax_cols_job;
static void amax_cols_task(int64_t b, int64_t e, int tid, void *job_) { /* 64-column blocks [b, e) of one slab */
    (void)tid;
    const sum_job *j = ((const amax_cols_job *)job_)->j;
    const wk_vec_ops *v = wk__vec();
    int64_t c0 = b * 64, c1 = e * 64 < j->C ? e * 64 : j->C;
    for (int64_t i = 0; i < j->B; i++) v->max_rows(j->x + i * j->C + c0, j->out + c0, c1 - c0);
}

/* ---- float32 amax over the same dense layouts (exact in any order; NaN propagates) ---- */
static void amax_task(int64_t b, int64_t e, int tid, void *job_) {
    (void)tid;
    sum_job *j = (sum_job *)job_;
    const wk_vec_ops *v = wk__vec();
    for (int64_t t = b; t < e; t++) {
        if (j->kind == SUM_FULL) {
            int64_t c0 = t * j->chunk, c1 = c0 + j->chunk < j->B ? c0 + j->chunk : j->B;
            j->part[t] = v->max(j->x + c0, c1 - c0);
        } else if (j->kind == SUM_ROWS) {
            j->out[t] = v->max(j->x + t * j->B, j->B);
        } else { /* slab t */
            float *o = j->out + t * j->C;
            for (int64_t c = 0; c < j->C; c++) o[c] = -INFINITY;
            for (int64_t i = 0; i < j->B; i++) v->max_rows(j->x + (t * j->B + i) * j->C, o, j->C);
        }
    }
}

/* keepdim float32 amax of self over the masked dims, or NULL (no error) for layouts sum_layout() does not take */
static wk_tensor *amax_f32_fast(const wk_tensor *self, const bool *mask) {
    sum_job j;
    wk_tensor *out = f32_reduce_begin(self, mask, false, &j);
    if (!out) return NULL;
    if (j.kind == SUM_FULL) {
        int T = wk_get_num_threads();
        j.nt = (j.B + WK_GRAIN_SIZE - 1) / WK_GRAIN_SIZE;
        if (j.nt > T) j.nt = T;
        if (j.nt > 64) j.nt = 64;
        j.chunk = (j.B + j.nt - 1) / j.nt;
        j.nt = (j.B + j.chunk - 1) / j.chunk;
        wk_parallel_for(0, j.nt, 1, amax_task, &j);
        j.out[0] = wk__vec()->max(j.part, j.nt);
    } else if (j.kind == SUM_ROWS) {
        wk_parallel_for(0, j.A, WK_GRAIN_SIZE / j.B + 1, amax_task, &j);
    } else if (j.A > 1) {
        wk_parallel_for(0, j.A, WK_GRAIN_SIZE / (j.B * j.C) + 1, amax_task, &j);
    } else { /* one slab: split its columns (any split gives the same values) */
        float *o = j.out;
        for (int64_t c = 0; c < j.C; c++) o[c] = -INFINITY;
        amax_cols_job cj = {&j};
        wk_parallel_for(0, (j.C + 63) / 64, WK_GRAIN_SIZE / (64 * j.B) + 1, amax_cols_task, &cj);
    }
    return out;
}

/* ---- float32 logsumexp as torch's composite: m = amax (infinite m -> 0), sum(exp(x - m)) in torch's order (the
 * temporary has self's layout, as TensorIterator gives it), log, + m. exp(x - m) is one fused, threaded pass. */
typedef struct {
    sum_job *j;
    const float *m; /* keepdim maxes: 1 / A / A*C */
    float *e;       /* the temporary, self's layout (NULL for fused rows) */
    float *out;     /* fused rows: [A] the sums of exp, torch's order */
} lse_job;
/* Rows of at most LSE_ROW elements: each row's exp(x - m) goes to a stack buffer and is summed there, by the same
 * sum_inner as sum_f32_torch's SUM_ROWS over the temporary (so the same bits), without the 16 MB round trip. */
#define LSE_ROW 8192
static void lse_task(int64_t b, int64_t e, int tid, void *job_) {
    (void)tid;
    const lse_job *l = (const lse_job *)job_;
    const sum_job *j = l->j;
    const wk_vec_ops *v = wk__vec();
    for (int64_t t = b; t < e; t++) {
        if (j->kind == SUM_FULL) { /* chunk t of 65536 */
            int64_t c0 = t * 65536, c1 = c0 + 65536 < j->B ? c0 + 65536 : j->B;
            v->exp_sub_sum(j->x + c0, l->e + c0, c1 - c0, l->m[0], 1);
        } else if (j->kind == SUM_ROWS && !l->e) {
            float row[LSE_ROW]; /* [B] exp(x - m) of row t */
            v->exp_sub_sum(j->x + t * j->B, row, j->B, l->m[t], 1);
            l->out[t] = 0.0f + v->sum_inner(row, j->B, j->lanes);
        } else if (j->kind == SUM_ROWS) {
            v->exp_sub_sum(j->x + t * j->B, l->e + t * j->B, j->B, l->m[t], 1);
        } else { /* row t of all A * B rows */
            int64_t a = t / j->B;
            float scratch[512];
            for (int64_t c0 = 0; c0 < j->C; c0 += 512) {
                int64_t w = j->C - c0 < 512 ? j->C - c0 : 512;
                v->exp_sub_acc(j->x + t * j->C + c0, l->m + a * j->C + c0, l->e + t * j->C + c0, scratch, w);
            }
        }
    }
}

static wk_tensor *lse_f32_fast(const wk_tensor *self, const bool *mask) {
    sum_job j;
    memset(&j, 0, sizeof j);
    if (self->dtype != WK_FLOAT32 || wk__numel(self) <= 1 || sum_layout(self, mask, false, &j) < 0) return NULL;
    wk_tensor *m = amax_f32_fast(self, mask);
    if (!m) return NULL;
    bool fused = j.kind == SUM_ROWS && j.B <= LSE_ROW;
    int64_t shape[WK_MAX_DIM];
    int nd = wk__reduce_shape(self, mask, true, shape);
    wk_tensor *et = fused ? wk__empty(nd, shape, WK_FLOAT32) /* the sums themselves */
                          : wk__empty_strided(self->ndim, self->sizes, self->strides, WK_FLOAT32);
    if (!et) {
        wk_release(m);
        return NULL;
    }
    float *mp = (float *)wk__data(m);
    int64_t nm = wk__numel(m);
    for (int64_t i = 0; i < nm; i++)
        if (isinf(mp[i])) mp[i] = 0;
    j.x = (const float *)wk__data(self);
    j.lanes = wk__vec_sum_lanes();
    lse_job l = {&j, mp, fused ? NULL : (float *)wk__data(et), fused ? (float *)wk__data(et) : NULL};
    int64_t ntask = j.kind == SUM_FULL ? (j.B + 65535) / 65536 : j.kind == SUM_ROWS ? j.A : j.A * j.B;
    int64_t per = j.kind == SUM_FULL ? 65536 : j.kind == SUM_ROWS ? j.B : j.C;
    wk_parallel_for(0, ntask, WK_GRAIN_SIZE / per + 1, lse_task, &l);
    wk_tensor *s = fused ? wk_retain(et) : sum_f32_torch(et, mask);
    wk_release(et);
    if (s) {
        float *sp = (float *)wk__data(s);
        for (int64_t i = 0; i < nm; i++) sp[i] = logf(sp[i]) + mp[i];
    }
    wk_release(m);
    return s;
}

/* Sums self (cast to `dtype` first when given, as torch does) over the masked dims into a keepdim tensor. */
static wk_tensor *sum_keepdim(const wk_tensor *self, const bool *mask, const wk_loop_fn *table, wk_dtype out_dtype,
                              wk_dtype dtype_arg) {
    wk_tensor *src = (wk_tensor *)self, *cast = NULL;
    if (dtype_arg != WK_DTYPE_NONE && dtype_arg != self->dtype) {
        cast = wk__to_dtype(self, dtype_arg);
        if (!cast) return NULL;
        src = cast;
    }
    if (table == SUM && out_dtype == WK_FLOAT32) {
        wk_tensor *fast = sum_f32_torch(src, mask);
        if (fast || wk__error_set()) {
            wk_release(cast);
            return fast;
        }
    }
    wk_tensor *acc = reduce_table(src, mask, table, wk_int(0), 0);
    wk_release(cast);
    if (!acc) return NULL;
    wk_tensor *out = wk__to_dtype(acc, out_dtype);
    wk_release(acc);
    return out;
}

wk_tensor *wk_impl_sum_dim(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    bool mask[WK_MAX_DIM];
    if (dims_mask(self, dim, mask) < 0 || wk__check_diff_dtype(self, sum_dtype(self, dtype)) < 0) return NULL;
    return wk__reduce_finish(sum_keepdim(self, mask, SUM, sum_dtype(self, dtype), dtype), mask, keepdim);
}

wk_tensor *wk_impl_sum(wk_tensor *self, wk_dtype dtype) { return wk_impl_sum_dim(self, wk_none_ints(), false, dtype); }

wk_tensor *wk_impl_nansum(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    bool mask[WK_MAX_DIM];
    if (dims_mask(self, dim, mask) < 0 || wk__check_diff_dtype(self, sum_dtype(self, dtype)) < 0) return NULL;
    return wk__reduce_finish(sum_keepdim(self, mask, NANSUM, sum_dtype(self, dtype), dtype), mask, keepdim);
}

static int mean_check(const wk_tensor *self, wk_dtype dtype, const char *name) {
    wk_dtype d = dtype != WK_DTYPE_NONE ? dtype : self->dtype;
    if (!wk_dtype_is_floating(d)) {
        wk__error(WK_RUNTIME_ERROR,
                  "%s(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. "
                  "Got: %s",
                  name, dtype != WK_DTYPE_NONE ? "Optional" : "Input", wk_dtype_scalar_name(d));
        return -1;
    }
    return 0;
}

/* acc (double, keepdim) /= count in place */
static void scale_acc(wk_tensor *acc, double count) {
    double *p = (double *)wk__data(acc);
    int64_t n = wk__numel(acc);
    for (int64_t i = 0; i < n; i++) p[i] = p[i] / count;
}

wk_tensor *wk_impl_mean_dim(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    if (mean_check(self, dtype, "mean") < 0) return NULL;
    bool mask[WK_MAX_DIM];
    if (dims_mask(self, dim, mask) < 0) return NULL;
    wk_dtype out = dtype != WK_DTYPE_NONE ? dtype : self->dtype;
    if (out == WK_FLOAT32 && self->dtype == WK_FLOAT32) { /* torch: sum in float32 (its order), then div_ by the count */
        wk_tensor *f = sum_f32_torch(self, mask);
        if (f) {
            float cnt = (float)wk__reduce_count(self, mask), *p = (float *)wk__data(f);
            for (int64_t i = 0, n = wk__numel(f); i < n; i++) p[i] = p[i] / cnt;
            return wk__reduce_finish(f, mask, keepdim);
        }
        if (wk__error_set()) return NULL;
    }
    wk_tensor *s = sum_keepdim(self, mask, SUM, WK_FLOAT64, dtype);
    if (!s) return NULL;
    scale_acc(s, (double)wk__reduce_count(self, mask)); /* divide in double, round once to the output dtype */
    wk_tensor *k = wk__to_dtype(s, out);
    wk_release(s);
    return wk__reduce_finish(k, mask, keepdim);
}

wk_tensor *wk_impl_mean(wk_tensor *self, wk_dtype dtype) { return wk_impl_mean_dim(self, wk_none_ints(), false, dtype); }

/* nanmean = nansum / (number of non-nan elements): composite, as in torch (its grad_fn is DivBackward0). */
wk_tensor *wk_impl_nanmean(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "nanmean(): expected input to have floating point or complex dtype but got %s",
                  wk_dtype_scalar_name(self->dtype));
        return NULL;
    }
    if (dtype != WK_DTYPE_NONE && mean_check(self, dtype, "nanmean") < 0) return NULL; /* torch refuses dtype=int */
    bool mask[WK_MAX_DIM];
    if (dims_mask(self, dim, mask) < 0) return NULL;
    wk_tensor *cnt = wk__reduce_finish(sum_keepdim(self, mask, NOTNAN, WK_INT64, WK_DTYPE_NONE), mask, keepdim);
    if (!cnt) return NULL;
    wk_tensor *s = wk_nansum(self, dim, keepdim, dtype);
    wk_tensor *r = s ? wk_div(s, cnt, NULL) : NULL;
    wk_release(s);
    wk_release(cnt);
    return r;
}

/* ================================================================================================ prod */

wk_tensor *wk_impl_prod_dim_int(wk_tensor *self, int64_t dim, bool keepdim, wk_dtype dtype) {
    int64_t d;
    if (wk__reduce_dim(self, dim, &d) < 0 || wk__check_diff_dtype(self, sum_dtype(self, dtype)) < 0) return NULL;
    bool mask[WK_MAX_DIM] = {0};
    if (self->ndim) mask[d] = true;
    wk_tensor *src = (wk_tensor *)self, *cast = NULL;
    if (dtype != WK_DTYPE_NONE && dtype != self->dtype) {
        if (!(cast = wk__to_dtype(self, dtype))) return NULL;
        src = cast;
    }
    wk_tensor *acc = reduce_table(src, mask, PROD, wk_int(1), 0);
    wk_release(cast);
    if (!acc) return NULL;
    wk_tensor *k = wk__to_dtype(acc, sum_dtype(self, dtype));
    wk_release(acc);
    return wk__reduce_finish(k, mask, keepdim);
}

wk_tensor *wk_impl_prod(wk_tensor *self, wk_dtype dtype) {
    bool mask[WK_MAX_DIM];
    wk__reduce_mask(self, wk_none_ints(), mask);
    if (wk__check_diff_dtype(self, sum_dtype(self, dtype)) < 0) return NULL;
    wk_tensor *src = (wk_tensor *)self, *cast = NULL;
    if (dtype != WK_DTYPE_NONE && dtype != self->dtype) {
        if (!(cast = wk__to_dtype(self, dtype))) return NULL;
        src = cast;
    }
    wk_tensor *acc = reduce_table(src, mask, PROD, wk_int(1), 0);
    wk_release(cast);
    if (!acc) return NULL;
    wk_tensor *k = wk__to_dtype(acc, sum_dtype(self, dtype));
    wk_release(acc);
    return wk__reduce_finish(k, mask, false);
}

/* ================================================================================================ amax / amin */

static wk_tensor *amax_amin(wk_tensor *self, wk_intlist dim, bool keepdim, bool is_max, const char *name) {
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    if (wk__numel(self) == 0) {
        if (!dim.data || dim.len <= 0 || self->ndim == 0) {
            wk__error(WK_RUNTIME_ERROR,
                      "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                      "with the 'dim' argument.",
                      name);
            return NULL;
        }
        for (int64_t k = 0; k < dim.len; k++) { /* torch reports the dim as given (-1 stays -1) */
            int64_t d;
            wk__wrap_dim(dim.data[k], self->ndim, &d);
            if (self->sizes[d] == 0) {
                wk__error(WK_INDEX_ERROR, "%s(): Expected reduction dim %lld to have non-zero size.", name,
                          (long long)dim.data[k]);
                return NULL;
            }
        }
    }
    if (is_max && self->dtype == WK_FLOAT32) {
        wk_tensor *f = amax_f32_fast(self, mask);
        if (f) return wk__reduce_finish(f, mask, keepdim);
        if (wk__error_set()) return NULL;
    }
    bool fl = wk_dtype_is_floating(self->dtype);
    wk_scalar init = fl ? wk_float(is_max ? -INFINITY : INFINITY) : wk_int(is_max ? INT64_MIN : INT64_MAX);
    wk_tensor *acc = reduce_table(self, mask, is_max ? AMAX : AMIN, init, 0);
    if (!acc) return NULL;
    wk_tensor *k = wk__to_dtype(acc, self->dtype);
    wk_release(acc);
    return wk__reduce_finish(k, mask, keepdim);
}

wk_tensor *wk_impl_amax(wk_tensor *self, wk_intlist dim, bool keepdim) { return amax_amin(self, dim, keepdim, true, "amax"); }
wk_tensor *wk_impl_amin(wk_tensor *self, wk_intlist dim, bool keepdim) { return amax_amin(self, dim, keepdim, false, "amin"); }

/* max() / min(): full reductions (the value only; ties get the gradient evenly, see _amax_backward). */
wk_tensor *wk_impl_max(wk_tensor *self) { return amax_amin(self, wk_none_ints(), false, true, "max"); }
wk_tensor *wk_impl_min(wk_tensor *self) { return amax_amin(self, wk_none_ints(), false, false, "min"); }

wk_tensor *wk_impl_max_other(wk_tensor *self, wk_tensor *other) { return wk_maximum(self, other); }
wk_tensor *wk_impl_min_other(wk_tensor *self, wk_tensor *other) { return wk_minimum(self, other); }

int wk_impl_aminmax(wk_tensor *self, wk_optint dim, bool keepdim, wk_tensor **outs) {
    int64_t d = 0;
    bool mask[WK_MAX_DIM] = {0};
    if (dim.has) {
        if (wk__reduce_dim(self, dim.v, &d) < 0) return -1;
        if (self->ndim) mask[d] = true;
        if (self->ndim && self->sizes[d] == 0) {
            wk__error(WK_INDEX_ERROR, "aminmax: Expected reduction dim %lld to have non-zero size.", (long long)d);
            return -1;
        }
    } else {
        wk__reduce_mask(self, wk_none_ints(), mask);
        if (wk__numel(self) == 0) {
            wk__error(WK_RUNTIME_ERROR,
                      "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
            return -1;
        }
    }
    int64_t one = d;
    wk_intlist dl = dim.has ? wk_ints(&one, 1) : wk_none_ints();
    outs[0] = amax_amin(self, dl, keepdim, false, "aminmax");
    outs[1] = outs[0] ? amax_amin(self, dl, keepdim, true, "aminmax") : NULL;
    if (!outs[1]) {
        wk_release(outs[0]);
        outs[0] = NULL;
        return -1;
    }
    return 0;
}

/* ================================================================================================ all / any */

static wk_tensor *all_any(wk_tensor *self, const bool *mask, bool keepdim, bool is_all) {
    wk_tensor *acc = reduce_table(self, mask, is_all ? ALL : ANY, wk_int(is_all), 0);
    if (!acc) return NULL;
    wk_tensor *k = wk__to_dtype(acc, self->dtype == WK_UINT8 ? WK_UINT8 : WK_BOOL);
    wk_release(acc);
    return wk__reduce_finish(k, mask, keepdim);
}

static wk_tensor *all_any_dims(wk_tensor *self, wk_intlist dim, bool keepdim, bool is_all) {
    bool mask[WK_MAX_DIM] = {0};
    if (dim.data && dim.len == 0) { /* all(dim=()) reduces nothing */
        wk_tensor *k = all_any(self, mask, true, is_all);
        return k;
    }
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    return all_any(self, mask, keepdim, is_all);
}

wk_tensor *wk_impl_all(wk_tensor *self) { return all_any_dims(self, wk_none_ints(), false, true); }
wk_tensor *wk_impl_any(wk_tensor *self) { return all_any_dims(self, wk_none_ints(), false, false); }
wk_tensor *wk_impl_all_dim(wk_tensor *self, int64_t dim, bool keepdim) {
    return all_any_dims(self, wk_ints(&dim, 1), keepdim, true);
}
wk_tensor *wk_impl_any_dim(wk_tensor *self, int64_t dim, bool keepdim) {
    return all_any_dims(self, wk_ints(&dim, 1), keepdim, false);
}
wk_tensor *wk_impl_all_dims(wk_tensor *self, wk_intlist dim, bool keepdim) { return all_any_dims(self, dim, keepdim, true); }
wk_tensor *wk_impl_any_dims(wk_tensor *self, wk_intlist dim, bool keepdim) { return all_any_dims(self, dim, keepdim, false); }

wk_tensor *wk_impl_count_nonzero_dim_IntList(wk_tensor *self, wk_intlist dim) {
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    return wk__reduce_finish(sum_keepdim(self, mask, NONZERO, WK_INT64, WK_DTYPE_NONE), mask, false);
}

wk_tensor *wk_impl_count_nonzero(wk_tensor *self, wk_optint dim) {
    return wk_impl_count_nonzero_dim_IntList(self, dim.has ? wk_ints(&dim.v, 1) : wk_none_ints());
}

/* ======================================================================== max.dim / min.dim / argmax / argmin
 * Note [Row reductions]. Operands: 0 values (may alias 1 for argmax), 1 indices (int64), 2 self. The first NaN
 * wins (torch propagates NaN and reports its index); among equal values the first index wins. */
#define ARGEXT_ROW(E, ST_T, CT, LD, ST)                                                     \
    static void argext_##E(char **d, const int64_t *s, int64_t n, void *ctx_) {             \
        const wk_rows_ctx *c = ctx_;                                                        \
        const bool is_max = *(const bool *)c->arg;                                          \
        for (int64_t i = 0; i < n; i++) {                                                   \
            const char *p = d[2] + i * s[2];                                                \
            CT best = LD(*(const ST_T *)p);                                                 \
            int64_t bi = 0;                                                                 \
            if (!WK_ISNAN(best))                                                            \
                for (int64_t j = 1; j < c->len; j++) {                                      \
                    CT v = LD(*(const ST_T *)(p + j * c->rs[2]));                           \
                    if (WK_ISNAN(v)) {                                                      \
                        bi = j;                                                             \
                        break;                                                              \
                    }                                                                       \
                    if (is_max ? v > best : v < best) {                                     \
                        best = v;                                                           \
                        bi = j;                                                             \
                    }                                                                       \
                }                                                                           \
            *(ST_T *)(d[0] + i * s[0]) = *(const ST_T *)(p + bi * c->rs[2]);                \
            *(int64_t *)(d[1] + i * s[1]) = bi;                                             \
        }                                                                                   \
    }
WK_REDUCE_ALL_DTYPES(ARGEXT_ROW)
#define ARGEXT_TAB(E, ...) [WK_##E] = argext_##E,
static const wk_loop_fn ARGEXT[WK_NUM_DTYPES] = {WK_REDUCE_ALL_DTYPES(ARGEXT_TAB)};

/* float32 max.dim over sum_layout()'s dense layouts, threaded: the same answers as argext (first NaN, else the
 * first maximal element; the value is that element, so -0/+0 ties keep their sign). vi: [A] rows or [A, C]. */
typedef struct {
    sum_job *j;
    float *val;
    int64_t *idx;
} amaxi_job;
static void amaxi_task(int64_t b, int64_t e, int tid, void *job_) {
    (void)tid;
    const amaxi_job *q = (const amaxi_job *)job_;
    const sum_job *j = q->j;
    const wk_vec_ops *v = wk__vec();
    for (int64_t t = b; t < e; t++) {
        if (j->kind == SUM_ROWS) { /* row t */
            const float *x = j->x + t * j->B;
            float m = v->max(x, j->B);
            int64_t i = 0;
            if (m != m)
                while (x[i] == x[i]) i++;
            else
                while (x[i] != m) i++;
            q->val[t] = x[i];
            q->idx[t] = i;
        } else { /* 64-column block t of every slab */
            int64_t c0 = (t % ((j->C + 63) / 64)) * 64, a = t / ((j->C + 63) / 64);
            int64_t w = j->C - c0 < 64 ? j->C - c0 : 64;
            const float *x = j->x + a * j->B * j->C + c0;
            float best[64];
            int64_t *bi = q->idx + a * j->C + c0;
            for (int64_t c = 0; c < w; c++) {
                best[c] = x[c];
                bi[c] = 0;
            }
            for (int64_t i = 1; i < j->B; i++) {
                const float *r = x + i * j->C;
                for (int64_t c = 0; c < w; c++)
                    if ((r[c] > best[c] || r[c] != r[c]) && best[c] == best[c]) {
                        best[c] = r[c];
                        bi[c] = i;
                    }
            }
            for (int64_t c = 0; c < w; c++) q->val[a * j->C + c0 + c] = best[c];
        }
    }
}
static int argext_f32_fast(const wk_tensor *self, int64_t d, wk_tensor *vals, wk_tensor *idx) {
    bool mask[WK_MAX_DIM] = {0};
    sum_job j;
    memset(&j, 0, sizeof j);
    if (self->ndim == 0) return 0;
    mask[d] = true;
    if (sum_layout(self, mask, false, &j) < 0 || j.kind == SUM_FULL) return 0;
    j.x = (const float *)wk__data(self);
    amaxi_job q = {&j, (float *)wk__data(vals), (int64_t *)wk__data(idx)};
    if (j.kind == SUM_ROWS) wk_parallel_for(0, j.A, WK_GRAIN_SIZE / j.B + 1, amaxi_task, &q);
    else wk_parallel_for(0, j.A * ((j.C + 63) / 64), WK_GRAIN_SIZE / (64 * j.B) + 1, amaxi_task, &q);
    return 1;
}

/* values and indices of the max/min of self along dim (self ndim >= 0), keepdim-shaped (size 1 at dim) */
static int argext_keepdim(const wk_tensor *self, int64_t d, bool is_max, wk_tensor **vals, wk_tensor **idx) {
    int64_t shape[WK_MAX_DIM];
    int nd = self->ndim;
    memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)nd);
    if (nd) shape[d] = 1;
    *vals = wk__empty(nd, shape, self->dtype);
    *idx = wk__empty(nd, shape, WK_INT64);
    if (!*vals || !*idx) goto fail;
    if (is_max && self->dtype == WK_FLOAT32 && wk__numel(self) > 1 && argext_f32_fast(self, d, *vals, *idx)) return 0;
    wk_rows_ctx c = {.len = nd ? self->sizes[d] : 1, .arg = &is_max};
    wk_tensor *ops[3] = {*vals, *idx, (wk_tensor *)self};
    if (wk__rows_apply(3, ops, d, ARGEXT[self->dtype], &c) < 0) goto fail;
    return 0;
fail:
    wk_release(*vals);
    wk_release(*idx);
    *vals = *idx = NULL;
    return -1;
}

static int max_min_dim(wk_tensor *self, int64_t dim, bool keepdim, bool is_max, wk_tensor **outs) {
    const char *name = is_max ? "max" : "min";
    int64_t d;
    if (wk__reduce_dim(self, dim, &d) < 0) return -1;
    bool mask[WK_MAX_DIM] = {0};
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, name) < 0) return -1;
    wk_tensor *v, *i;
    if (argext_keepdim(self, d, is_max, &v, &i) < 0) return -1;
    outs[0] = wk__reduce_finish(v, mask, keepdim);
    outs[1] = wk__reduce_finish(i, mask, keepdim);
    if (!outs[0] || !outs[1]) {
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    return 0;
}

int wk_impl_max_dim(wk_tensor *self, int64_t dim, bool keepdim, wk_tensor **outs) {
    return max_min_dim(self, dim, keepdim, true, outs);
}
int wk_impl_min_dim(wk_tensor *self, int64_t dim, bool keepdim, wk_tensor **outs) {
    return max_min_dim(self, dim, keepdim, false, outs);
}

static wk_tensor *argmax_argmin(wk_tensor *self, wk_optint dim, bool keepdim, bool is_max) {
    const char *name = is_max ? "argmax" : "argmin";
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "%s(): does not support bool input", name);
        return NULL;
    }
    wk_tensor *v = NULL, *i = NULL;
    if (!dim.has) { /* the index into the flattened (row-major) tensor */
        if (wk__numel(self) == 0) {
            wk__error(WK_INDEX_ERROR, "%s(): Expected reduction dim to be specified for input.numel() == 0.", name);
            return NULL;
        }
        wk_tensor *c = wk__contiguous(self);
        if (!c) return NULL;
        int64_t n = wk__numel(c), one = 1;
        wk_tensor *flat = wk__alias(c, 1, &n, &one, c->offset);
        wk_release(c);
        if (!flat) return NULL;
        int rc = argext_keepdim(flat, 0, is_max, &v, &i);
        wk_release(flat);
        wk_release(v);
        if (rc < 0) return NULL;
        int64_t shape[WK_MAX_DIM], strides[WK_MAX_DIM];
        int nd = keepdim ? self->ndim : 0;
        for (int k = 0; k < nd; k++) shape[k] = 1, strides[k] = 1;
        wk_tensor *r = wk__alias(i, nd, shape, strides, i->offset);
        wk_release(i);
        return r;
    }
    int64_t d;
    if (wk__reduce_dim(self, dim.v, &d) < 0) return NULL;
    bool mask[WK_MAX_DIM] = {0};
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, name) < 0) return NULL;
    if (argext_keepdim(self, d, is_max, &v, &i) < 0) return NULL;
    wk_release(v);
    return wk__reduce_finish(i, mask, keepdim);
}

wk_tensor *wk_impl_argmax(wk_tensor *self, wk_optint dim, bool keepdim) { return argmax_argmin(self, dim, keepdim, true); }
wk_tensor *wk_impl_argmin(wk_tensor *self, wk_optint dim, bool keepdim) { return argmax_argmin(self, dim, keepdim, false); }

/* ================================================================================================ var / std
 * Two passes in double: the mean, then the sum of squared deviations from it (stable for large offsets). */
static void var_pass2(char **d, const int64_t *s, int64_t n, void *ctx) {
    wk_dtype dt = *(const wk_dtype *)ctx;
    char *o = d[0];
    const char *m = d[1], *p = d[2];
    for (int64_t i = 0; i < n; i++, o += s[0], m += s[1], p += s[2]) {
        double x = wk__load_double(p, dt), dev = x - *(const double *)m;
        *(double *)o += dev * dev;
    }
}

static int var_check(const wk_tensor *self, const char *name) {
    if (!wk_dtype_is_floating(self->dtype)) {
        if (name) wk__error(WK_RUNTIME_ERROR, "%s only support floating point and complex dtypes", name);
        else wk__error(WK_RUNTIME_ERROR, "std and var only support floating point and complex dtypes");
        return -1;
    }
    return 0;
}

static double correction_of(wk_scalar correction) {
    return correction.tag == WK_SCALAR_NONE ? 1.0 : wk__scalar_to_double(correction);
}

/* keepdim-shaped double tensors: *var_out = sum((x - mean)^2) / max(0, N - correction), *mean_out = mean */
static int var_keepdim(const wk_tensor *self, const bool *mask, double correction, wk_tensor **var_out,
                       wk_tensor **mean_out) {
    int64_t count = wk__reduce_count(self, mask);
    wk_tensor *mean = sum_keepdim(self, mask, SUM, WK_FLOAT64, WK_DTYPE_NONE);
    if (!mean) return -1;
    scale_acc(mean, (double)count);
    int64_t shape[WK_MAX_DIM];
    int nd = wk__reduce_shape(self, mask, true, shape);
    wk_tensor *acc = wk__zeros(nd, shape, WK_FLOAT64);
    wk_tensor *av = acc ? wk__reduce_view(acc, self) : NULL;
    wk_tensor *mv = av ? wk__reduce_view(mean, self) : NULL;
    if (!mv) {
        wk_release(av);
        wk_release(acc);
        wk_release(mean);
        return -1;
    }
    wk_tensor *ops[3] = {av, mv, (wk_tensor *)self};
    wk_dtype dt = self->dtype;
    int rc = wk_iter_apply(3, ops, var_pass2, &dt);
    wk_release(av);
    wk_release(mv);
    if (rc < 0) {
        wk_release(acc);
        wk_release(mean);
        return -1;
    }
    double dof = (double)count - correction;
    scale_acc(acc, dof > 0 ? dof : 0);
    *var_out = acc;
    *mean_out = mean;
    return 0;
}

static void sqrt_acc(wk_tensor *acc) {
    double *p = (double *)wk__data(acc);
    int64_t n = wk__numel(acc);
    for (int64_t i = 0; i < n; i++) p[i] = sqrt(p[i]);
}

/* var / std / var_mean / std_mean share this: outs[0] = var or std, outs[1] = mean (or NULL if not wanted) */
static int var_std(wk_tensor *self, wk_intlist dim, double correction, bool keepdim, bool take_sqrt, wk_tensor **outs,
                   bool want_mean) {
    if (var_check(self, want_mean ? (take_sqrt ? "std_mean" : "var_mean") : NULL) < 0) return -1;
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return -1;
    int64_t out_numel = 1;
    for (int i = 0; i < self->ndim; i++)
        if (!mask[i]) out_numel *= self->sizes[i];
    int64_t factor = out_numel == 0 ? 0 : wk__numel(self) / out_numel;
    if ((double)factor - correction <= 0)
        wk__warn("%s(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input "
                 "numel divided by output numel).",
                 want_mean ? (take_sqrt ? "std_mean" : "var_mean") : (take_sqrt ? "std" : "var"));
    wk_tensor *v, *m;
    if (var_keepdim(self, mask, correction, &v, &m) < 0) return -1;
    if (take_sqrt) sqrt_acc(v);
    outs[0] = wk__reduce_finish(wk__to_dtype(v, self->dtype), mask, keepdim);
    outs[1] = want_mean ? wk__reduce_finish(wk__to_dtype(m, self->dtype), mask, keepdim) : NULL;
    wk_release(v);
    wk_release(m);
    if (!outs[0] || (want_mean && !outs[1])) {
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    return 0;
}

static wk_tensor *var_std1(wk_tensor *self, wk_intlist dim, double correction, bool keepdim, bool take_sqrt) {
    wk_tensor *outs[2] = {0};
    if (var_std(self, dim, correction, keepdim, take_sqrt, outs, false) < 0) return NULL;
    return outs[0];
}

wk_tensor *wk_impl_var(wk_tensor *self, bool unbiased) { return var_std1(self, wk_none_ints(), unbiased, false, false); }
wk_tensor *wk_impl_var_dim(wk_tensor *self, wk_intlist dim, bool unbiased, bool keepdim) {
    return var_std1(self, dim, unbiased, keepdim, false);
}
wk_tensor *wk_impl_var_correction(wk_tensor *self, wk_intlist dim, wk_scalar correction, bool keepdim) {
    return var_std1(self, dim, correction_of(correction), keepdim, false);
}
wk_tensor *wk_impl_std(wk_tensor *self, bool unbiased) { return var_std1(self, wk_none_ints(), unbiased, false, true); }
wk_tensor *wk_impl_std_dim(wk_tensor *self, wk_intlist dim, bool unbiased, bool keepdim) {
    return var_std1(self, dim, unbiased, keepdim, true);
}
wk_tensor *wk_impl_std_correction(wk_tensor *self, wk_intlist dim, wk_scalar correction, bool keepdim) {
    return var_std1(self, dim, correction_of(correction), keepdim, true);
}
int wk_impl_var_mean(wk_tensor *self, bool unbiased, wk_tensor **outs) {
    return var_std(self, wk_none_ints(), unbiased, false, false, outs, true);
}
int wk_impl_var_mean_dim(wk_tensor *self, wk_intlist dim, bool unbiased, bool keepdim, wk_tensor **outs) {
    return var_std(self, dim, unbiased, keepdim, false, outs, true);
}
int wk_impl_var_mean_correction(wk_tensor *self, wk_intlist dim, wk_scalar correction, bool keepdim, wk_tensor **outs) {
    return var_std(self, dim, correction_of(correction), keepdim, false, outs, true);
}
int wk_impl_std_mean(wk_tensor *self, bool unbiased, wk_tensor **outs) {
    return var_std(self, wk_none_ints(), unbiased, false, true, outs, true);
}
int wk_impl_std_mean_dim(wk_tensor *self, wk_intlist dim, bool unbiased, bool keepdim, wk_tensor **outs) {
    return var_std(self, dim, unbiased, keepdim, true, outs, true);
}
int wk_impl_std_mean_correction(wk_tensor *self, wk_intlist dim, wk_scalar correction, bool keepdim, wk_tensor **outs) {
    return var_std(self, dim, correction_of(correction), keepdim, true, outs, true);
}

/* ================================================================================================ logsumexp
 * As torch: m = amax (an infinite m is replaced by 0), result = log(sum(exp(x - m))) + m. */
static void lse_pass2(char **d, const int64_t *s, int64_t n, void *ctx) {
    wk_dtype dt = *(const wk_dtype *)ctx;
    char *o = d[0];
    const char *m = d[1], *p = d[2];
    for (int64_t i = 0; i < n; i++, o += s[0], m += s[1], p += s[2])
        *(double *)o += exp(wk__load_double(p, dt) - *(const double *)m);
}

wk_tensor *wk_impl_logsumexp(wk_tensor *self, wk_intlist dim, bool keepdim) {
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    wk_dtype out_dt = wk_dtype_is_floating(self->dtype) ? self->dtype : wk_get_default_dtype();
    if (self->dtype == WK_FLOAT32) {
        wk_tensor *f = lse_f32_fast(self, mask);
        if (f) return wk__reduce_finish(f, mask, keepdim);
        if (wk__error_set()) return NULL;
    }
    wk_tensor *m = reduce_table(self, mask, AMAX, wk_dtype_is_floating(self->dtype) ? wk_float(-INFINITY) : wk_int(INT64_MIN), 0);
    if (!m) return NULL;
    if (m->dtype != WK_FLOAT64) {
        wk_tensor *md = wk__to_dtype(m, WK_FLOAT64);
        wk_release(m);
        if (!(m = md)) return NULL;
    }
    double *mp = (double *)wk__data(m);
    int64_t nm = wk__numel(m);
    for (int64_t i = 0; i < nm; i++)
        if (isinf(mp[i])) mp[i] = 0;
    int64_t shape[WK_MAX_DIM];
    int nd = wk__reduce_shape(self, mask, true, shape);
    wk_tensor *acc = wk__zeros(nd, shape, WK_FLOAT64);
    wk_tensor *av = acc ? wk__reduce_view(acc, self) : NULL;
    wk_tensor *mv = av ? wk__reduce_view(m, self) : NULL;
    if (!mv) {
        wk_release(av);
        wk_release(acc);
        wk_release(m);
        return NULL;
    }
    wk_tensor *ops[3] = {av, mv, self};
    wk_dtype dt = self->dtype;
    if (wk_iter_apply(3, ops, lse_pass2, &dt) < 0) {
        wk_release(av);
        wk_release(mv);
        wk_release(acc);
        wk_release(m);
        return NULL;
    }
    double *ap = (double *)wk__data(acc);
    for (int64_t i = 0; i < nm; i++) ap[i] = log(ap[i]) + mp[i];
    wk_release(av);
    wk_release(mv);
    wk_release(m);
    wk_tensor *k = wk__to_dtype(acc, out_dt);
    wk_release(acc);
    return wk__reduce_finish(k, mask, keepdim);
}

/* ================================================================================================ norms */

wk_tensor *wk_impl_linalg_vector_norm(wk_tensor *self, wk_scalar ord, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                  wk_dtype_scalar_name(self->dtype));
        return NULL;
    }
    if (dtype != WK_DTYPE_NONE) {
        if (!wk_dtype_is_floating(dtype)) {
            wk__error(WK_RUNTIME_ERROR, "linalg.vector_norm: dtype should be floating point or complex, but got %s",
                      wk_dtype_scalar_name(dtype));
            return NULL;
        }
        if (wk_promote_types(self->dtype, dtype) != dtype) {
            wk__error(WK_RUNTIME_ERROR,
                      "linalg.vector_norm: the dtype of the input (%s) should be convertible without narrowing to the "
                      "specified dtype (%s)",
                      wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(dtype));
            return NULL;
        }
    }
    double p = wk__scalar_to_double(ord);
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    if (p < 0 || isinf(p)) { /* no identity: an empty reduced dim is an error */
        if (wk__numel(self) == 0 && (!dim.data || dim.len <= 0)) {
            wk__error(WK_RUNTIME_ERROR,
                      "linalg.vector_norm cannot compute the %g norm on an empty tensor because the operation does not "
                      "have an identity",
                      p); /* C++'s default stream format of the double: -1, -2.5, -inf */
            return NULL;
        }
        for (int64_t k = 0; dim.data && k < dim.len; k++) { /* the dim as given (-1 stays -1) */
            int64_t d;
            wk__wrap_dim(dim.data[k], self->ndim, &d);
            if (self->ndim && self->sizes[d] == 0) {
                wk__error(WK_RUNTIME_ERROR,
                          "linalg.vector_norm cannot compute the %g norm on the dimension %lldbecause this dimension "
                          "is empty and the operation does not have an identity",
                          p, (long long)dim.data[k]);
                return NULL;
            }
        }
    }
    wk_dtype out_dt = dtype != WK_DTYPE_NONE ? dtype : self->dtype;
    const wk_loop_fn *table;
    double init = 0;
    if (p == 2) table = NORM_2;
    else if (p == 1) table = NORM_1;
    else if (p == 0) table = NORM_0;
    else if (p == INFINITY) table = NORM_INF;
    else if (p == -INFINITY) table = NORM_NINF, init = INFINITY;
    else table = NORM_P;
    wk_tensor *acc = reduce_table(self, mask, table, wk_float(init), p);
    if (!acc) return NULL;
    double *a = (double *)wk__data(acc);
    int64_t n = wk__numel(acc);
    if (p == 2)
        for (int64_t i = 0; i < n; i++) a[i] = sqrt(a[i]);
    else if (table == NORM_P)
        for (int64_t i = 0; i < n; i++) a[i] = pow(a[i], 1.0 / p);
    wk_tensor *k = wk__to_dtype(acc, out_dt);
    wk_release(acc);
    return wk__reduce_finish(k, mask, keepdim);
}

/* ================================================================================================ backward helpers
 * Gradients of reductions put the reduced dims back (unsqueeze) and expand to the input's sizes. */
static int grad_mask(wk_intlist sizes, wk_intlist dim, bool *mask) {
    int nd = (int)sizes.len;
    for (int i = 0; i < nd; i++) mask[i] = false;
    if (!dim.data || dim.len <= 0) {
        for (int i = 0; i < nd; i++) mask[i] = true;
        return 0;
    }
    for (int64_t k = 0; k < dim.len; k++) {
        int64_t d;
        if (wk__wrap_dim(dim.data[k], nd, &d) < 0) return -1;
        if (nd) mask[d] = true;
    }
    return 0;
}

/* grad (reduced, maybe without keepdim) reshaped to keepdim form: recorded, so it stays differentiable */
static wk_tensor *restore_dims(wk_tensor *grad, wk_intlist sizes, const bool *mask, bool keepdim) {
    if (keepdim) return wk_retain(grad);
    int nd = (int)sizes.len;
    int64_t shape[WK_MAX_DIM];
    int j = 0;
    for (int i = 0; i < nd; i++) shape[i] = mask[i] ? 1 : grad->sizes[j++];
    if (grad->ndim == 0) return wk_expand(grad, wk_ints(shape, nd), false); /* a 0-d grad: every dim was reduced */
    return wk_reshape(grad, wk_ints(shape, nd));
}

static wk_tensor *unreduce_mask(wk_tensor *grad, wk_intlist sizes, const bool *mask, bool keepdim) {
    wk_tensor *g = restore_dims(grad, sizes, mask, keepdim);
    if (!g) return NULL;
    wk_tensor *r = wk_expand(g, sizes, false);
    wk_release(g);
    return r;
}

static wk_tensor *unreduce(wk_tensor *grad, wk_intlist sizes, wk_intlist dim, bool keepdim) {
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    return unreduce_mask(grad, sizes, mask, keepdim);
}

static int64_t count_of(wk_intlist sizes, const bool *mask) {
    int64_t n = 1;
    for (int64_t i = 0; i < sizes.len; i++)
        if (mask[i]) n *= sizes.data[i];
    return n;
}

wk_tensor *wk_impl_sum_backward(wk_tensor *grad, wk_intlist sizes, wk_intlist dim, bool keepdim) {
    return unreduce(grad, sizes, dim, keepdim);
}

wk_tensor *wk_impl_mean_backward(wk_tensor *grad, wk_intlist sizes, wk_intlist dim, bool keepdim) {
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    wk_tensor *e = unreduce_mask(grad, sizes, mask, keepdim);
    if (!e) return NULL;
    wk_tensor *r = wk_div_Scalar(e, wk_int(count_of(sizes, mask)));
    wk_release(e);
    return r;
}

wk_tensor *wk_impl_sum_to_size(wk_tensor *self, wk_intlist size) {
    /* sum over leading dims and over dims where size is 1 but self's is not */
    int nd = self->ndim, ns = (int)size.len;
    if (ns > nd) goto bad;
    bool mask[WK_MAX_DIM] = {0};
    int lead = nd - ns;
    for (int i = 0; i < nd; i++) {
        if (i < lead) mask[i] = true;
        else if (size.data[i - lead] == 1 && self->sizes[i] != 1) mask[i] = true;
        else if (size.data[i - lead] != self->sizes[i]) goto bad;
    }
    wk_tensor *k = sum_keepdim(self, mask, SUM, self->dtype, WK_DTYPE_NONE);
    if (!k) return NULL;
    wk_tensor *r = wk__alias(k, ns, size.data, k->strides + lead, k->offset);
    wk_release(k);
    return r;
bad:;
    wk_strbuf a = {0}, b = {0};
    wk_sb_ints(&a, size.data, ns);
    wk_sb_ints(&b, self->sizes, nd);
    wk__error(WK_RUNTIME_ERROR, "size {%s} is not expandable to size {%s}.", a.s, b.s);
    wk_sb_free(&a);
    wk_sb_free(&b);
    return NULL;
}

/* nansum: the gradient skips NaN inputs: where(isnan(self), 0, grad) */
static void nan_zero_loop(char **d, const int64_t *s, int64_t n, void *ctx) {
    const wk_dtype *dt = ctx; /* [0] grad/out dtype, [1] self dtype */
    for (int64_t i = 0; i < n; i++) {
        double x = wk__load_double(d[2] + i * s[2], dt[1]);
        double g = wk__load_double(d[1] + i * s[1], dt[0]);
        wk__store_scalar(d[0] + i * s[0], dt[0], wk_float(WK_ISNAN(x) ? 0.0 : g));
    }
}

wk_tensor *wk_impl__nan_zero(wk_tensor *grad, wk_tensor *self) {
    wk_tensor *g = wk__expand_to(grad, self->ndim, self->sizes);
    if (!g) return NULL;
    wk_tensor *out = wk__empty(self->ndim, self->sizes, grad->dtype);
    if (out) {
        wk_dtype dt[2] = {grad->dtype, self->dtype};
        wk_tensor *ops[3] = {out, g, self};
        if (wk_iter_apply(3, ops, nan_zero_loop, dt) < 0) {
            wk_release(out);
            out = NULL;
        }
    }
    wk_release(g);
    return out;
}

wk_tensor *wk_impl_nansum_backward(wk_tensor *grad, wk_tensor *self, wk_intlist dim, bool keepdim) {
    wk_intlist sizes = wk_ints(self->sizes, self->ndim);
    wk_tensor *e = unreduce(grad, sizes, dim, keepdim);
    if (!e) return NULL;
    wk_tensor *r = wk__nan_zero(e, self);
    wk_release(e);
    return r;
}

/* ---- value-selecting reductions (max.dim, median.dim, mode, kthvalue, sort, topk, cummax): scatter the gradient
 * back to the selected indices along dim; its adjoint gathers. Indices are int64, keepdim-shaped or not. */
typedef struct {
    wk_dtype dt;
} sel_ctx;

/* operands: 0 out (row of length c->len along dim), 1 indices, 2 values (rows of length c->arg-provided k) */
static void scatter_add_rows(char **d, const int64_t *s, int64_t n, void *ctx_) {
    const wk_rows_ctx *c = ctx_;
    const int64_t *kp = c->arg;
    wk_dtype dt = (wk_dtype)kp[1];
    for (int64_t i = 0; i < n; i++) {
        char *o = d[0] + i * s[0];
        const char *ip = d[1] + i * s[1], *vp = d[2] + i * s[2];
        for (int64_t j = 0; j < kp[0]; j++) {
            int64_t ix = *(const int64_t *)(ip + j * c->rs[1]);
            if (ix < 0 || ix >= c->len) continue; /* validated by the forward op */
            char *dst = o + ix * c->rs[0];
            double v = wk__load_double(vp + j * c->rs[2], dt) + wk__load_double(dst, dt);
            wk__store_scalar(dst, dt, wk_float(v));
        }
    }
}

/* operands: 0 out (rows of k), 1 indices (rows of k), 2 self (rows of c->len) */
static void gather_rows(char **d, const int64_t *s, int64_t n, void *ctx_) {
    const wk_rows_ctx *c = ctx_;
    const int64_t *kp = c->arg;
    size_t es = (size_t)kp[1];
    for (int64_t i = 0; i < n; i++) {
        char *o = d[0] + i * s[0];
        const char *ip = d[1] + i * s[1], *sp = d[2] + i * s[2];
        for (int64_t j = 0; j < kp[0]; j++) {
            int64_t ix = *(const int64_t *)(ip + j * c->rs[1]);
            if (ix < 0 || ix >= c->len) ix = 0;
            memcpy(o + j * c->rs[0], sp + ix * c->rs[2], es);
        }
    }
}

/* t (reduced along dim, keepdim or not) as keepdim-shaped alias */
static wk_tensor *keepdim_alias(const wk_tensor *t, int nd, int64_t d, bool keepdim) {
    if (keepdim || nd == 0) return wk_retain((wk_tensor *)t);
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    int j = 0;
    for (int i = 0; i < nd; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = 1;
        } else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j];
            j++;
        }
    }
    return wk__alias(t, nd, sizes, strides, t->offset);
}

wk_tensor *wk_impl_value_selecting_reduction_backward(wk_tensor *grad, int64_t dim, wk_tensor *indices,
                                                      wk_intlist sizes, bool keepdim) {
    int nd = (int)sizes.len;
    int64_t d;
    if (wk__wrap_dim(dim, nd, &d) < 0) return NULL;
    wk_tensor *out = wk__zeros(nd, sizes.data, grad->dtype);
    wk_tensor *g = out ? keepdim_alias(grad, nd, d, keepdim) : NULL;
    wk_tensor *ix = g ? keepdim_alias(indices, nd, d, keepdim) : NULL;
    if (!ix) goto fail;
    int64_t k = nd ? ix->sizes[d] : 1;
    int64_t kp[2] = {k, grad->dtype};
    wk_rows_ctx c = {.len = nd ? sizes.data[d] : 1, .arg = kp};
    wk_tensor *ops[3] = {out, ix, g};
    if (wk__numel(g) > 0 && wk__rows_apply(3, ops, d, scatter_add_rows, &c) < 0) goto fail;
    wk_release(g);
    wk_release(ix);
    return out;
fail:
    wk_release(g);
    wk_release(ix);
    wk_release(out);
    return NULL;
}

wk_tensor *wk_impl_gather_with_keepdimed_indices(wk_tensor *self, int64_t dim, wk_tensor *indices, bool keepdim) {
    int nd = self->ndim;
    int64_t d;
    if (wk__wrap_dim(dim, nd, &d) < 0) return NULL;
    wk_tensor *ix = keepdim_alias(indices, nd, d, keepdim);
    if (!ix) return NULL;
    wk_tensor *out = wk__empty(nd, ix->sizes, self->dtype);
    if (out) {
        int64_t kp[2] = {nd ? ix->sizes[d] : 1, (int64_t)wk_dtype_size(self->dtype)};
        wk_rows_ctx c = {.len = nd ? self->sizes[d] : 1, .arg = kp};
        wk_tensor *ops[3] = {out, ix, self};
        if (wk__numel(out) > 0) wk__rows_apply(3, ops, d, gather_rows, &c);
    }
    wk_release(ix);
    if (!out || keepdim || nd == 0) return out;
    bool mask[WK_MAX_DIM] = {0};
    mask[d] = true;
    return wk__reduce_finish(out, mask, false);
}

/* ---- max()/min()/median()/amax/amin: the gradient is shared evenly among the inputs equal to the result.
 * evenly (full max/min/median): mask = result is nan ? isnan(self) : self == result, out = mask ? g / count : 0.
 * !evenly (amax/amin): mask = self == result, out = (g / count) * mask (so a count of 0 gives nan, as torch). */
typedef struct {
    bool evenly;
} amax_ctx;

/* operands: 0 out (grad dtype), 1 grad view, 2 count view, 3 result view, 4 self */
typedef struct {
    wk_dtype gdt, sdt;
    bool evenly;
} amax_bw_ctx;
static void amax_bw_loop(char **d, const int64_t *s, int64_t n, void *ctx) {
    const amax_bw_ctx *c = ctx;
    for (int64_t i = 0; i < n; i++) {
        double x = wk__load_double(d[4] + i * s[4], c->sdt), r = *(const double *)(d[3] + i * s[3]);
        double g = wk__load_double(d[1] + i * s[1], c->gdt), cnt = *(const double *)(d[2] + i * s[2]);
        bool m = x == r || (c->evenly && WK_ISNAN(r) && WK_ISNAN(x));
        double v = c->evenly ? (m ? g / cnt : 0.0) : (g / cnt) * (double)m;
        wk__store_scalar(d[0] + i * s[0], c->gdt, wk_float(v));
    }
}

static void amax_count_loop2(char **d, const int64_t *s, int64_t n, void *ctx) {
    const amax_bw_ctx *c = ctx;
    for (int64_t i = 0; i < n; i++) {
        double x = wk__load_double(d[2] + i * s[2], c->sdt), r = *(const double *)(d[1] + i * s[1]);
        *(double *)(d[0] + i * s[0]) += (x == r || (c->evenly && WK_ISNAN(r) && WK_ISNAN(x)));
    }
}

/* t reduced over mask (keepdim or not) seen in keepdim shape `shape` */
static wk_tensor *keepdim_alias_mask(const wk_tensor *t, int nd, const bool *mask, bool keepdim, const int64_t *shape) {
    if (keepdim) return wk_retain((wk_tensor *)t);
    int64_t strides[WK_MAX_DIM];
    int j = 0;
    for (int i = 0; i < nd; i++) strides[i] = mask[i] ? 1 : t->strides[j++];
    return wk__alias(t, nd, shape, strides, t->offset);
}

wk_tensor *wk_impl__amax_backward(wk_tensor *grad, wk_tensor *self, wk_tensor *result, wk_intlist dim, bool keepdim,
                                  bool evenly) {
    wk_intlist sizes = wk_ints(self->sizes, self->ndim);
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    int nd = self->ndim;
    int64_t shape[WK_MAX_DIM];
    wk__reduce_shape(self, mask, true, shape);
    wk_tensor *res_d = wk__to_dtype(result, WK_FLOAT64);
    wk_tensor *res_k = res_d ? keepdim_alias_mask(res_d, nd, mask, keepdim, shape) : NULL;
    wk_tensor *cnt = res_k ? wk__zeros(nd, shape, WK_FLOAT64) : NULL;
    wk_tensor *cv = cnt ? wk__reduce_view(cnt, self) : NULL;
    wk_tensor *rv = cv ? wk__reduce_view(res_k, self) : NULL;
    wk_tensor *g_k = rv ? keepdim_alias_mask(grad, nd, mask, keepdim, shape) : NULL;
    wk_tensor *gv = g_k ? wk__reduce_view(g_k, self) : NULL;
    wk_tensor *out = gv ? wk__empty(nd, self->sizes, grad->dtype) : NULL;
    if (out) {
        amax_bw_ctx c = {grad->dtype, self->dtype, evenly};
        wk_tensor *o1[3] = {cv, rv, self};
        wk_tensor *o2[5] = {out, gv, cv, rv, self};
        if (wk_iter_apply(3, o1, amax_count_loop2, &c) < 0 || wk_iter_apply(5, o2, amax_bw_loop, &c) < 0) {
            wk_release(out);
            out = NULL;
        }
    }
    wk_release(res_d);
    wk_release(res_k);
    wk_release(cnt);
    wk_release(cv);
    wk_release(rv);
    wk_release(g_k);
    wk_release(gv);
    return out;
}

/* The adjoint of _amax_backward in its (linear) grad argument: sum over the reduced dims of gg * W, where W is the
 * gradient _amax_backward gives for an upstream gradient of ones. Recorded, so it is differentiable again. */
wk_tensor *wk_impl__amax_backward_adjoint(wk_tensor *gg, wk_tensor *self, wk_tensor *result, wk_intlist dim,
                                          bool keepdim, bool evenly) {
    wk_tensor *ones = wk__full(result->ndim, result->sizes, gg->dtype, wk_int(1));
    wk_tensor *w = ones ? wk_impl__amax_backward(ones, self, result, dim, keepdim, evenly) : NULL;
    wk_tensor *m = w ? wk_mul(gg, w) : NULL;
    wk_tensor *r = m ? wk_sum_dim(m, dim, keepdim, WK_DTYPE_NONE) : NULL;
    wk_release(ones);
    wk_release(w);
    wk_release(m);
    return r;
}

/* ---- prod: grad * (result / self) when self has no zero (differentiable again); otherwise the product of the
 * other elements of each slice, computed directly (torch's prod_safe_zeros_backward gives the same values). */
static bool any_zero(const wk_tensor *t) {
    wk_tensor *c = wk__contiguous(t);
    if (!c) return false;
    int64_t n = wk__numel(c);
    const char *p = wk__data(c);
    size_t es = wk_dtype_size(c->dtype);
    bool z = false;
    for (int64_t i = 0; i < n && !z; i++) z = wk__load_double(p + (size_t)i * es, c->dtype) == 0;
    wk_release(c);
    return z;
}


/* torch's prod_safe_zeros_backward: grad * (exclusive cumprod from the left * exclusive cumprod from the right),
 * along dim of inp (recorded ops, so differentiable again). */
static wk_tensor *prod_safe_zeros_backward(wk_tensor *grad, wk_tensor *inp, int64_t dim) {
    int64_t n = inp->sizes[dim], ones_size[WK_MAX_DIM];
    if (n == 1) return wk_retain(grad); /* torch: the gradient of a one-element slice is grad itself */
    wk_cpool pool = {0};
    memcpy(ones_size, inp->sizes, sizeof(int64_t) * (size_t)inp->ndim);
    ones_size[dim] = 1;
    wk_tensor *ones = P_(wk__full(inp->ndim, ones_size, grad->dtype, wk_int(1)));
    wk_tensor *head = P_(wk_narrow(inp, dim, 0, n - 1));
    wk_tensor *l1[2] = {ones, head};
    wk_tensor *en = P_(wk_cumprod(P_(wk_cat((wk_tensorlist){l1, 2}, dim)), dim, WK_DTYPE_NONE));
    wk_tensor *tail = P_(wk_flip(P_(wk_narrow(inp, dim, 1, n - 1)), wk_ints(&dim, 1)));
    wk_tensor *l2[2] = {ones, tail};
    wk_tensor *er = P_(wk_flip(P_(wk_cumprod(P_(wk_cat((wk_tensorlist){l2, 2}, dim)), dim, WK_DTYPE_NONE)),
                             wk_ints(&dim, 1)));
    wk_tensor *out = P_(wk_mul(grad, P_(wk_mul(en, er))));
    return wk_cpool_end(&pool, out);
}

wk_tensor *wk_impl_prod_backward(wk_tensor *grad, wk_tensor *self, wk_tensor *result, wk_intlist dim, bool keepdim) {
    if (self->ndim == 0) return wk_retain(grad);
    wk_intlist sizes = wk_ints(self->sizes, self->ndim);
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    wk_tensor *g = restore_dims(grad, sizes, mask, keepdim);
    if (!g) return NULL;
    wk_tensor *out = NULL;
    if (!any_zero(self)) { /* grad * (result / self) */
        wk_tensor *r = restore_dims(result, sizes, mask, keepdim);
        wk_tensor *q = r ? wk_div(r, self, NULL) : NULL;
        out = q ? wk_mul(g, q) : NULL;
        wk_release(r);
        wk_release(q);
    } else if (!dim.data || dim.len <= 0) { /* all elements: flatten, one slice */
        wk_cpool pool = {0};
        int64_t m1 = -1;
        wk_tensor *x = P_(wk__to_copy(self, grad->dtype));
        wk_tensor *flat = P_(wk_reshape(x, wk_ints(&m1, 1)));
        wk_tensor *r = P_(prod_safe_zeros_backward(grad, flat, 0));
        out = wk_cpool_end(&pool, P_(wk_reshape(r, sizes)));
    } else {
        int64_t d;
        if (wk__wrap_dim(dim.data[0], self->ndim, &d) < 0) {
            wk_release(g);
            return NULL;
        }
        wk_tensor *x = wk__to_copy(self, grad->dtype);
        out = x ? prod_safe_zeros_backward(g, x, d) : NULL;
        wk_release(x);
    }
    wk_release(g);
    return out;
}

/* ---- _masked_div(a, b, scale) = b == 0 ? 0 : a / (scale * b): the std and 2-norm gradients' safe division */
typedef struct {
    double scale;
} mdiv_ctx;
WK_BINARY_FLOAT(mdiv_k, mdiv_ctx, b == 0 ? 0 : a / (C->scale * b))
static const wk_loop_fn MDIV[WK_NUM_DTYPES] = {WK_TABLE_FLOAT(mdiv_k)};

wk_tensor *wk_impl__masked_div(wk_tensor *a, wk_tensor *b, double scale) {
    wk_dtype dt = wk__result_type2(a, b);
    if (!wk_dtype_is_floating(dt)) dt = wk_get_default_dtype();
    mdiv_ctx c = {scale};
    return wk__binary_op("_masked_div", a, b, dt, dt, MDIV, &c);
}

/* ---- var / std: (2 / dof) * grad * (self - mean) */
wk_tensor *wk_impl_var_backward(wk_tensor *grad, wk_tensor *self, wk_intlist dim, wk_scalar correction, bool keepdim) {
    wk_intlist sizes = wk_ints(self->sizes, self->ndim);
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    double dof = (double)count_of(sizes, mask) - correction_of(correction);
    if (dof < 0) dof = 0;
    wk_tensor *g = restore_dims(grad, sizes, mask, keepdim);
    wk_tensor *g2 = g ? wk_mul_Scalar(g, wk_float(2.0 / dof)) : NULL;
    wk_tensor *m = g2 ? wk_mean_dim(self, dim, true, WK_DTYPE_NONE) : NULL;
    wk_tensor *dev = m ? wk_sub(self, m, wk_int(1)) : NULL;
    wk_tensor *out = dev ? wk_mul(g2, dev) : NULL;
    wk_release(g);
    wk_release(g2);
    wk_release(m);
    wk_release(dev);
    return out;
}

wk_tensor *wk_impl_std_backward(wk_tensor *result, wk_tensor *grad, wk_tensor *self, wk_intlist dim,
                                wk_scalar correction, bool keepdim) {
    wk_tensor *g = wk__masked_div(grad, result, 2.0);
    wk_tensor *out = g ? wk_var_backward(g, self, dim, correction, keepdim) : NULL;
    wk_release(g);
    return out;
}

/* ---- logsumexp: grad * exp(self - result) */
wk_tensor *wk_impl_logsumexp_backward(wk_tensor *grad, wk_tensor *self, wk_tensor *result, wk_intlist dim,
                                      bool keepdim) {
    wk_intlist sizes = wk_ints(self->sizes, self->ndim);
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    wk_tensor *g = restore_dims(grad, sizes, mask, keepdim);
    wk_tensor *r = g ? restore_dims(result, sizes, mask, keepdim) : NULL;
    wk_tensor *dx = r ? wk_sub(self, r, wk_int(1)) : NULL;
    wk_tensor *e = dx ? wk_exp(dx) : NULL;
    wk_tensor *out = e ? wk_mul(g, e) : NULL;
    wk_release(g);
    wk_release(r);
    wk_release(dx);
    wk_release(e);
    return out;
}

/* ---- vector norm: torch's norm_backward, composed of recorded ops (so differentiable again). ord 0 has no
 * gradient at all (undefined_if in the op table). */
wk_tensor *wk_impl_linalg_vector_norm_backward(wk_tensor *grad, wk_tensor *self, wk_scalar ord, wk_tensor *result,
                                               wk_intlist dim, bool keepdim) {
    double p = wk__scalar_to_double(ord);
    wk_intlist sizes = wk_ints(self->sizes, self->ndim);
    bool mask[WK_MAX_DIM];
    if (grad_mask(sizes, dim, mask) < 0) return NULL;
    wk_cpool pool = {0};
    wk_tensor *g = P_(restore_dims(grad, sizes, mask, keepdim));
    wk_tensor *nr = P_(restore_dims(result, sizes, mask, keepdim));
    wk_tensor *out = NULL;
    if (p == 0) {
        out = P_(wk_mul_Scalar(self, wk_int(0)));
    } else if (p == 1) {
        out = P_(wk_mul(P_(wk_sgn(self)), g));
    } else if (p == 2) {
        wk_tensor *q = P_(wk_masked_fill_Scalar(P_(wk_div(self, nr, NULL)), P_(wk_eq_Scalar(nr, wk_int(0))), wk_int(0)));
        out = P_(wk_mul(g, q));
    } else if (isinf(p)) {
        wk_tensor *sa = P_(wk_abs(self));
        wk_tensor *m = P_(wk_logical_or(P_(wk_eq(sa, nr)), P_(wk_isnan(sa))));
        wk_tensor *cnt = P_(wk_sum_dim(m, dim, true, WK_DTYPE_NONE));
        out = P_(wk_mul(P_(wk_sgn(self)), P_(wk_mul(P_(wk_div(g, cnt, NULL)), m))));
    } else if (p < 1) {
        wk_tensor *pw = P_(wk_pow_Tensor_Scalar(P_(wk_abs(self)), wk_float(p - 1)));
        wk_tensor *ss = P_(wk_mul(P_(wk_sgn(self)), P_(wk_masked_fill_Scalar(pw, P_(wk_eq_Scalar(self, wk_int(0))), wk_int(0)))));
        out = P_(wk_mul(P_(wk_mul(ss, g)), P_(wk_pow_Tensor_Scalar(nr, wk_float(1 - p)))));
    } else {
        wk_tensor *ss = p < 2 ? P_(wk_mul(P_(wk_sgn(self)), P_(wk_pow_Tensor_Scalar(P_(wk_abs(self)), wk_float(p - 1)))))
                              : P_(wk_mul(self, P_(wk_pow_Tensor_Scalar(P_(wk_abs(self)), wk_float(p - 2)))));
        wk_tensor *sv = P_(wk_div(g, P_(wk_pow_Tensor_Scalar(nr, wk_float(p - 1))), NULL));
        sv = P_(wk_masked_fill_Scalar(sv, P_(wk_eq_Scalar(nr, wk_int(0))), wk_int(0)));
        out = P_(wk_mul(ss, sv));
    }
    return wk_cpool_end(&pool, out);
}

/* ================================================================================================ matrix norms */

/* "[0, 1, 2]" */
static void sb_list(wk_strbuf *b, wk_intlist l) { wk_sb_ints(b, l.data, (int)l.len); }

/* C++'s `<<` of an IntArrayRef inside torch's messages: "0 1 2" */
static void sb_list_spaced(wk_strbuf *b, wk_intlist l) {
    for (int64_t i = 0; i < l.len; i++) wk_sb_printf(b, "%s%lld", i ? " " : "", (long long)l.data[i]);
}

static int norm_dtype_check(const wk_tensor *self, wk_dtype dtype, const char *name) {
    if (dtype == WK_DTYPE_NONE) return 0;
    if (!wk_dtype_is_floating(dtype)) {
        wk__error(WK_RUNTIME_ERROR, "%s: dtype should be floating point or complex, but got %s", name,
                  wk_dtype_scalar_name(dtype));
        return -1;
    }
    if (wk_promote_types(self->dtype, dtype) != dtype) {
        wk__error(WK_RUNTIME_ERROR,
                  "%s: the dtype of the input (%s) should be convertible without narrowing to the specified dtype (%s)",
                  name, wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(dtype));
        return -1;
    }
    return 0;
}

/* torch's _linalg_matrix_norm_checks: a floating matrix (batch), a 2-tuple of distinct dims, a widening dtype */
static int matrix_norm_checks(const wk_tensor *A, wk_intlist dim, wk_dtype dtype, int64_t *d) {
    if (A->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
        return -1;
    }
    if (!wk_dtype_is_floating(A->dtype)) {
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got %s",
                  wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    if (dim.len != 2) {
        wk_strbuf b = {0};
        sb_list_spaced(&b, dim);
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: dim must be a 2-tuple. Got %s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if (wk__wrap_dim(dim.data[0], A->ndim, &d[0]) < 0 || wk__wrap_dim(dim.data[1], A->ndim, &d[1]) < 0) return -1;
    if (d[0] == d[1]) {
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: dims must be different. Got (%lld, %lld)", (long long)d[0],
                  (long long)d[1]);
        return -1;
    }
    return norm_dtype_check(A, dtype, "linalg.matrix_norm");
}

/* torch's checkFloatingOrComplex(allow_low_precision_dtypes=false): the orders that need singular values (2, -2,
 * 'nuc') refuse float16 and bfloat16 */
static int matrix_norm_low_precision_check(const wk_tensor *A) {
    if (A->dtype == WK_FLOAT16 || A->dtype == WK_BFLOAT16) {
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: Low precision dtypes not supported. Got %s",
                  wk_dtype_scalar_name(A->dtype));
        return -1;
    }
    return 0;
}

/* The norms through singular values, as torch's linalg_matrix_norm composes them: move the two dims to the end
 * (create_dim_backshift_permutation), S = linalg_svdvals, then amax (ord 2), amin (ord -2) or sum (ord 'nuc') over
 * S's last dim; with keepdim, unsqueeze(-1) and the inverse permutation. kind: 2, -2, or 0 for 'nuc'.
 * As torch: ord 2 of matrices with no singular values (min(m, n) == 0) is zeros (no graph), ord -2 of them is amin's
 * IndexError; so the gradient is svd_backward's through amax / amin / sum. */
static wk_tensor *matrix_norm_svd(wk_tensor *A, const int64_t *d, int kind, bool keepdim, wk_dtype dtype) {
    int nd = A->ndim;
    int64_t perm[WK_MAX_DIM], inv[WK_MAX_DIM]; /* [nd] */
    int j = 0;
    for (int i = 0; i < nd; i++)
        if (i != d[0] && i != d[1]) perm[j++] = i;
    perm[j++] = d[0];
    perm[j++] = d[1];
    for (int i = 0; i < nd; i++) inv[perm[i]] = i;
    if (kind == 2 && (A->sizes[d[0]] == 0 || A->sizes[d[1]] == 0)) {
        int64_t shape[WK_MAX_DIM]; /* [nd - 2 or nd] the result's sizes */
        int r = 0;
        for (int i = 0; i < nd; i++) {
            bool reduced = i == d[0] || i == d[1];
            if (!reduced || keepdim) shape[r++] = reduced ? 1 : A->sizes[i];
        }
        return wk_new_zeros(A, wk_ints(shape, r), dtype == WK_DTYPE_NONE ? A->dtype : dtype, false);
    }
    wk_cpool pool = {0};
    wk_tensor *A_ = dtype == WK_DTYPE_NONE ? A : P_(wk_to_dtype(A, dtype, false, false));
    wk_tensor *S = P_(wk_linalg_svdvals(P_(wk_permute(A_, wk_ints(perm, nd))), NULL)); /* [batch..., k] */
    static const int64_t last = -1;
    wk_intlist dl = wk_ints(&last, 1);
    wk_tensor *r = kind == 2    ? P_(wk_amax(S, dl, keepdim))
                   : kind == -2 ? P_(wk_amin(S, dl, keepdim))
                                : P_(wk_sum_dim(S, dl, keepdim, WK_DTYPE_NONE));
    if (keepdim) r = P_(wk_permute(P_(wk_unsqueeze(r, -1)), wk_ints(inv, nd)));
    return wk_cpool_end(&pool, r);
}

wk_tensor *wk_impl_linalg_matrix_norm(wk_tensor *self, wk_scalar ord, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    double p = wk__scalar_to_double(ord), ap = fabs(p);
    if (ap != 2 && ap != 1 && ap != INFINITY) {
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: Order %g not supported.", p);
        return NULL;
    }
    int64_t d[2];
    if (self->ndim >= 2 && wk_dtype_is_floating(self->dtype) && ap == 2 && matrix_norm_low_precision_check(self) < 0)
        return NULL;
    if (matrix_norm_checks(self, dim, dtype, d) < 0) return NULL;
    if (ap == 2) return matrix_norm_svd(self, d, p > 0 ? 2 : -2, keepdim, dtype);
    if (ap == INFINITY) { /* the infinity norm is the 1-norm of the transpose */
        int64_t t = d[0];
        d[0] = d[1];
        d[1] = t;
    }
    if (!keepdim && d[0] < d[1]) d[1]--;
    wk_tensor *v = wk_linalg_vector_norm(self, wk_int(1), wk_ints(&d[0], 1), keepdim, dtype);
    if (!v) return NULL;
    wk_tensor *r = p > 0 ? wk_amax(v, wk_ints(&d[1], 1), keepdim) : wk_amin(v, wk_ints(&d[1], 1), keepdim);
    wk_release(v);
    return r;
}

wk_tensor *wk_impl_linalg_matrix_norm_str_ord(wk_tensor *self, const char *ord, wk_intlist dim, bool keepdim,
                                              wk_dtype dtype) {
    bool fro = !strcmp(ord, "fro"), nuc = !strcmp(ord, "nuc");
    if (!fro && !nuc) {
        wk__error(WK_RUNTIME_ERROR, "linalg.matrix_norm: Order %s not supported.", ord);
        return NULL;
    }
    int64_t d[2];
    if (self->ndim >= 2 && wk_dtype_is_floating(self->dtype) && nuc && matrix_norm_low_precision_check(self) < 0)
        return NULL;
    if (matrix_norm_checks(self, dim, dtype, d) < 0) return NULL;
    if (nuc) return matrix_norm_svd(self, d, 0, keepdim, dtype);
    return wk_linalg_vector_norm(self, wk_int(2), dim, keepdim, dtype);
}

static int linalg_norm_dim_check(wk_intlist dim) {
    if (dim.data && dim.len != 1 && dim.len != 2) {
        wk_strbuf b = {0};
        sb_list(&b, dim);
        wk__error(WK_RUNTIME_ERROR, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got %s",
                  b.s ? b.s : "[]");
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

static int linalg_norm_ndim_check(const wk_tensor *self) {
    if (self->ndim != 1 && self->ndim != 2) {
        wk__error(WK_RUNTIME_ERROR,
                  "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got %dD.", self->ndim);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_linalg_norm(wk_tensor *self, wk_scalar ord, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    bool has_ord = ord.tag != WK_SCALAR_NONE, has_dim = dim.data != NULL;
    if (has_dim ? linalg_norm_dim_check(dim) < 0 : (has_ord && linalg_norm_ndim_check(self) < 0)) return NULL;
    static const int64_t d01[2] = {0, 1};
    if (has_ord && ((has_dim && dim.len == 2) || (!has_dim && self->ndim == 2)))
        return wk_linalg_matrix_norm(self, ord, has_dim ? dim : wk_ints(d01, 2), keepdim, dtype);
    return wk_linalg_vector_norm(self, has_ord ? ord : wk_float(2.0), dim, keepdim, dtype);
}

wk_tensor *wk_impl_linalg_norm_ord_str(wk_tensor *self, const char *ord, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    if (dim.data ? linalg_norm_dim_check(dim) < 0 : linalg_norm_ndim_check(self) < 0) return NULL;
    static const int64_t d01[2] = {0, 1};
    return wk_linalg_matrix_norm_str_ord(self, ord, dim.data ? dim : wk_ints(d01, 2), keepdim, dtype);
}
