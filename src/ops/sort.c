/* sort.c — sorting and selection along a dim: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode,
 * and unique (_unique2, unique_consecutive, unique_dim).
 *
 * Note [Tie order]: which index a tie reports is part of torch's observable behaviour (topk, mode, unstable sort,
 * median.dim). torch's CPU kernels call libstdc++'s std::sort / std::nth_element / std::partial_sort with their own
 * comparators, and kthvalue uses a Sedgewick quickselect. The algorithms below follow those same steps (introsort
 * with median-of-three pivots and a final insertion sort past 16 elements, introselect, heap select), so ties
 * land where torch puts them. The one known exception: torch's unstable sort of float32/float64/int32/int64 rows
 * longer than 16 elements may use x86-simd-sort on AVX-512 machines, whose tie order is its own.
 * Rows come from the row framework (Note [Row reductions] in reduce.h); each row is copied into a buffer of
 * (key, index) pairs, keys as double for floating dtypes (exact) and int64 for the others. */
#include "ops/reduce.h"

#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/ops_support.h"

typedef struct {
    double v;
    int64_t i;
} kvf; /* floating key, original index */
typedef struct {
    int64_t v;
    int64_t i;
} kvi; /* integral key, original index */

#define ISNAN_(x) ((x) != (x))
/* comparators over pointers a, b (torch's KeyValueCompAsc / KeyValueCompDesc, mode's `<`, median's (value, index)) */
#define F_ASC(a, b) ((!ISNAN_((a)->v) && ISNAN_((b)->v)) || (a)->v < (b)->v)
#define F_DESC(a, b) ((ISNAN_((a)->v) && !ISNAN_((b)->v)) || (a)->v > (b)->v)
#define P_LT(a, b) ((a)->v < (b)->v)
#define P_GT(a, b) ((a)->v > (b)->v)
#define MED_LT(a, b) ((a)->v < (b)->v || ((a)->v == (b)->v && (a)->i < (b)->i))
#define NANMED_LT(a, b) (MED_LT(a, b) || (ISNAN_((b)->v) && !ISNAN_((a)->v)))
#define NANV_LT(a, b) ((a)->v < (b)->v || (ISNAN_((b)->v) && !ISNAN_((a)->v))) /* median() of all: values only */

static int64_t lg2(int64_t n) {
    int64_t k = 0;
    while (n > 1) n >>= 1, k++;
    return k;
}

/* libstdc++'s algorithms, as used by torch (Note [Tie order]). `lo` bounds the "unguarded" loops so that an
 * inconsistent comparator (mode's `<` with NaN) cannot run off the buffer; with a consistent one they never stop
 * there, so the steps are unchanged. */
#define SORT_ALGOS(NM, T, LESS)                                                                          \
    static void NM##_unguarded_linear_insert(T *lo, T *last) {                                           \
        T val = *last, *next = last - 1;                                                                 \
        while (next >= lo && LESS(&val, next)) {                                                         \
            *last = *next;                                                                               \
            last = next;                                                                                 \
            --next;                                                                                      \
        }                                                                                                \
        *last = val;                                                                                     \
    }                                                                                                    \
    static void NM##_insertion_sort(T *first, T *last) {                                                 \
        if (first == last) return;                                                                       \
        for (T *i = first + 1; i < last; ++i) {                                                          \
            if (LESS(i, first)) {                                                                        \
                T val = *i;                                                                              \
                memmove(first + 1, first, (size_t)(i - first) * sizeof(T));                              \
                *first = val;                                                                            \
            } else                                                                                       \
                NM##_unguarded_linear_insert(first, i);                                                  \
        }                                                                                                \
    }                                                                                                    \
    static void NM##_swap(T *a, T *b) {                                                                  \
        T t = *a;                                                                                        \
        *a = *b;                                                                                         \
        *b = t;                                                                                          \
    }                                                                                                    \
    static void NM##_move_median_to_first(T *result, T *a, T *b, T *c) {                                 \
        if (LESS(a, b)) {                                                                                \
            if (LESS(b, c)) NM##_swap(result, b);                                                        \
            else if (LESS(a, c)) NM##_swap(result, c);                                                   \
            else NM##_swap(result, a);                                                                   \
        } else if (LESS(a, c)) NM##_swap(result, a);                                                     \
        else if (LESS(b, c)) NM##_swap(result, c);                                                       \
        else NM##_swap(result, b);                                                                       \
    }                                                                                                    \
    static T *NM##_unguarded_partition(T *first, T *last, T *pivot) {                                   \
        T *lo = first, *hi = last;                                                                       \
        for (;;) {                                                                                       \
            while (first < hi && LESS(first, pivot)) ++first;                                           \
            --last;                                                                                      \
            while (last > lo && LESS(pivot, last)) --last;                                              \
            if (!(first < last)) return first;                                                           \
            NM##_swap(first, last);                                                                      \
            ++first;                                                                                     \
        }                                                                                                \
    }                                                                                                    \
    static T *NM##_partition_pivot(T *first, T *last) {                                                  \
        T *mid = first + (last - first) / 2;                                                             \
        NM##_move_median_to_first(first, first + 1, mid, last - 1);                                      \
        return NM##_unguarded_partition(first + 1, last, first);                                        \
    }                                                                                                    \
    static void NM##_push_heap(T *first, int64_t hole, int64_t top, T val) {                             \
        int64_t parent = (hole - 1) / 2;                                                                 \
        while (hole > top && LESS(first + parent, &val)) {                                               \
            first[hole] = first[parent];                                                                 \
            hole = parent;                                                                               \
            parent = (hole - 1) / 2;                                                                     \
        }                                                                                                \
        first[hole] = val;                                                                               \
    }                                                                                                    \
    static void NM##_adjust_heap(T *first, int64_t hole, int64_t len, T val) {                           \
        int64_t top = hole, child = hole;                                                                \
        while (child < (len - 1) / 2) {                                                                  \
            child = 2 * (child + 1);                                                                     \
            if (LESS(first + child, first + (child - 1))) child--;                                       \
            first[hole] = first[child];                                                                  \
            hole = child;                                                                                \
        }                                                                                                \
        if ((len & 1) == 0 && child == (len - 2) / 2) {                                                  \
            child = 2 * (child + 1);                                                                     \
            first[hole] = first[child - 1];                                                              \
            hole = child - 1;                                                                            \
        }                                                                                                \
        NM##_push_heap(first, hole, top, val);                                                           \
    }                                                                                                    \
    static void NM##_make_heap(T *first, T *last) {                                                      \
        int64_t len = last - first;                                                                      \
        if (len < 2) return;                                                                             \
        for (int64_t parent = (len - 2) / 2;; parent--) {                                                \
            NM##_adjust_heap(first, parent, len, first[parent]);                                         \
            if (parent == 0) return;                                                                     \
        }                                                                                                \
    }                                                                                                    \
    static void NM##_pop_heap(T *first, T *last, T *result) {                                            \
        T val = *result;                                                                                 \
        *result = *first;                                                                                \
        NM##_adjust_heap(first, 0, last - first, val);                                                   \
    }                                                                                                    \
    static void NM##_heap_select(T *first, T *middle, T *last) {                                         \
        NM##_make_heap(first, middle);                                                                   \
        for (T *i = middle; i < last; ++i)                                                               \
            if (LESS(i, first)) NM##_pop_heap(first, middle, i);                                         \
    }                                                                                                    \
    static void NM##_sort_heap(T *first, T *last) {                                                      \
        while (last - first > 1) {                                                                       \
            --last;                                                                                      \
            NM##_pop_heap(first, last, last);                                                            \
        }                                                                                                \
    }                                                                                                    \
    static void NM##_partial_sort(T *first, T *middle, T *last) {                                        \
        NM##_heap_select(first, middle, last);                                                           \
        NM##_sort_heap(first, middle);                                                                   \
    }                                                                                                    \
    static void NM##_introsort_loop(T *first, T *last, int64_t depth) {                                  \
        while (last - first > 16) {                                                                      \
            if (depth == 0) {                                                                            \
                NM##_partial_sort(first, last, last);                                                    \
                return;                                                                                  \
            }                                                                                            \
            --depth;                                                                                     \
            T *cut = NM##_partition_pivot(first, last);                                                  \
            NM##_introsort_loop(cut, last, depth);                                                       \
            last = cut;                                                                                  \
        }                                                                                                \
    }                                                                                                    \
    static void NM##_sort(T *first, T *last) { /* std::sort */                                          \
        if (first == last) return;                                                                       \
        NM##_introsort_loop(first, last, lg2(last - first) * 2);                                         \
        if (last - first > 16) {                                                                         \
            NM##_insertion_sort(first, first + 16);                                                      \
            for (T *i = first + 16; i < last; ++i) NM##_unguarded_linear_insert(first, i);              \
        } else                                                                                           \
            NM##_insertion_sort(first, last);                                                            \
    }                                                                                                    \
    static void NM##_nth_element(T *first, T *nth, T *last) { /* std::nth_element */                    \
        if (first == last || nth == last) return;                                                        \
        int64_t depth = lg2(last - first) * 2;                                                           \
        while (last - first > 3) {                                                                       \
            if (depth == 0) {                                                                            \
                NM##_heap_select(first, nth + 1, last);                                                  \
                NM##_swap(first, nth);                                                                   \
                return;                                                                                  \
            }                                                                                            \
            --depth;                                                                                     \
            T *cut = NM##_partition_pivot(first, last);                                                  \
            if (cut <= nth) first = cut;                                                                 \
            else last = cut;                                                                             \
        }                                                                                                \
        NM##_insertion_sort(first, last);                                                                \
    }                                                                                                    \
    static void NM##_merge_sort(T *a, T *tmp, int64_t n) { /* stable: any stable sort gives this order */ \
        if (n < 2) return;                                                                               \
        if (n <= 16) {                                                                                   \
            NM##_insertion_sort(a, a + n);                                                               \
            return;                                                                                      \
        }                                                                                                \
        int64_t h = n / 2;                                                                               \
        NM##_merge_sort(a, tmp, h);                                                                      \
        NM##_merge_sort(a + h, tmp, n - h);                                                              \
        int64_t i = 0, j = h, k = 0;                                                                     \
        while (i < h && j < n) tmp[k++] = LESS(a + j, a + i) ? a[j++] : a[i++];                         \
        while (i < h) tmp[k++] = a[i++];                                                                 \
        while (j < n) tmp[k++] = a[j++];                                                                 \
        memcpy(a, tmp, (size_t)n * sizeof(T));                                                           \
    }

SORT_ALGOS(fasc, kvf, F_ASC)
SORT_ALGOS(fdesc, kvf, F_DESC)
SORT_ALGOS(iasc, kvi, P_LT)
SORT_ALGOS(idesc, kvi, P_GT)
SORT_ALGOS(flt, kvf, P_LT)
SORT_ALGOS(ilt, kvi, P_LT)
SORT_ALGOS(fmed, kvf, MED_LT)
SORT_ALGOS(imed, kvi, MED_LT)
SORT_ALGOS(fnanmed, kvf, NANMED_LT)
SORT_ALGOS(fnanv, kvf, NANV_LT)

/* ---- element access */
static inline int64_t load_i64(const char *p, wk_dtype dt) {
    switch (dt) {
    case WK_BOOL:
    case WK_UINT8: return *(const uint8_t *)p;
    case WK_INT8: return *(const int8_t *)p;
    case WK_INT16: return *(const int16_t *)p;
    case WK_INT32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}
static inline double load_f64(const char *p, wk_dtype dt) {
    switch (dt) {
    case WK_FLOAT16: return wk__half_to_float(*(const uint16_t *)p);
    case WK_BFLOAT16: return wk__bf16_to_float(*(const uint16_t *)p);
    case WK_FLOAT32: return *(const float *)p;
    default: return *(const double *)p;
    }
}

/* Per-op row parameters and scratch (one buffer of `len` pairs plus one for merging: single-threaded for now;
 * a threaded kernel gives each thread its own). */
enum { OP_SORT, OP_TOPK, OP_KTH, OP_MEDIAN, OP_NANMEDIAN, OP_MODE };
typedef struct {
    int op;
    bool descending, stable, largest, sorted;
    bool all; /* median() / nanmedian() of all elements: torch partitions the values alone, no index tie-break */
    int64_t k;
    wk_dtype dt;
    size_t es;
    bool fl;
    void *buf, *tmp;
} sort_args;

static void load_row(const sort_args *a, const char *p, int64_t rs, int64_t len) {
    if (a->fl) {
        kvf *b = a->buf;
        for (int64_t j = 0; j < len; j++) b[j].v = load_f64(p + j * rs, a->dt), b[j].i = j;
    } else {
        kvi *b = a->buf;
        for (int64_t j = 0; j < len; j++) b[j].v = load_i64(p + j * rs, a->dt), b[j].i = j;
    }
}

static int64_t buf_index(const sort_args *a, int64_t j) {
    return a->fl ? ((const kvf *)a->buf)[j].i : ((const kvi *)a->buf)[j].i;
}

/* Writes the first m entries of the buffer: values (copied from the row by index) and indices. */
static void store_row(const sort_args *a, char *vo, int64_t vrs, char *io, int64_t irs, const char *p, int64_t rs,
                      int64_t m) {
    for (int64_t j = 0; j < m; j++) {
        int64_t ix = buf_index(a, j);
        if (vo) memcpy(vo + j * vrs, p + ix * rs, a->es);
        if (io) *(int64_t *)(io + j * irs) = ix;
    }
}

/* Sedgewick's quickselect (torch's kthvalue): median-of-three pivot, NaN sorted as the largest. */
static bool gt_or_nan(double x, double y) { return (ISNAN_(x) && !ISNAN_(y)) || x > y; }
static void kv_quickselect(sort_args *a, int64_t len, int64_t k) {
    kvf *b = a->buf; /* ints are selected as doubles here only when exact; see kth_select_i */
    int64_t L = 0, R = len - 1;
#define SWAP_(x, y) do { kvf t_ = b[x]; b[x] = b[y]; b[y] = t_; } while (0)
    for (;;) {
        if (R <= L) return;
        if (R == L + 1) {
            if (gt_or_nan(b[L].v, b[R].v)) SWAP_(L, R);
            return;
        }
        int64_t P = (L + R) >> 1;
        SWAP_(P, L + 1);
        if (gt_or_nan(b[L + 1].v, b[R].v)) SWAP_(L + 1, R);
        if (gt_or_nan(b[L].v, b[R].v)) SWAP_(L, R);
        if (gt_or_nan(b[L + 1].v, b[L].v)) SWAP_(L + 1, L);
        int64_t i = L + 1, j = R;
        double piv = b[L].v;
        for (;;) {
            do i++;
            while (i <= R && gt_or_nan(piv, b[i].v));
            do j--;
            while (j >= L && gt_or_nan(b[j].v, piv));
            if (j < i) break;
            SWAP_(i, j);
        }
        SWAP_(L, j);
        if (j <= k) L = i;
        if (j >= k) R = j - 1;
    }
#undef SWAP_
}
static bool gt_i(int64_t x, int64_t y) { return x > y; }
static void kv_quickselect_i(sort_args *a, int64_t len, int64_t k) {
    kvi *b = a->buf;
    int64_t L = 0, R = len - 1;
#define SWAP_(x, y) do { kvi t_ = b[x]; b[x] = b[y]; b[y] = t_; } while (0)
    for (;;) {
        if (R <= L) return;
        if (R == L + 1) {
            if (gt_i(b[L].v, b[R].v)) SWAP_(L, R);
            return;
        }
        int64_t P = (L + R) >> 1;
        SWAP_(P, L + 1);
        if (gt_i(b[L + 1].v, b[R].v)) SWAP_(L + 1, R);
        if (gt_i(b[L].v, b[R].v)) SWAP_(L, R);
        if (gt_i(b[L + 1].v, b[L].v)) SWAP_(L + 1, L);
        int64_t i = L + 1, j = R;
        int64_t piv = b[L].v;
        for (;;) {
            do i++;
            while (i <= R && gt_i(piv, b[i].v));
            do j--;
            while (j >= L && gt_i(b[j].v, piv));
            if (j < i) break;
            SWAP_(i, j);
        }
        SWAP_(L, j);
        if (j <= k) L = i;
        if (j >= k) R = j - 1;
    }
#undef SWAP_
}

/* operands: 0 values out, 1 indices out (rows of m), 2 self (rows of len) */
static void sort_rows(char **d, const int64_t *s, int64_t n, void *ctx_) {
    const wk_rows_ctx *c = ctx_;
    sort_args *a = c->arg;
    int64_t len = c->len;
    for (int64_t r = 0; r < n; r++) {
        char *vo = d[0] + r * s[0], *io = d[1] + r * s[1];
        const char *p = d[2] + r * s[2];
        int64_t m = 1;
        load_row(a, p, c->rs[2], len);
        kvf *bf = a->buf;
        kvi *bi = a->buf;
        switch (a->op) {
        case OP_SORT:
            m = len;
            if (c->rs[2] == 0) break; /* an expanded row: torch leaves the identity permutation */
            if (a->stable) {
                if (a->fl) a->descending ? fdesc_merge_sort(bf, a->tmp, len) : fasc_merge_sort(bf, a->tmp, len);
                else a->descending ? idesc_merge_sort(bi, a->tmp, len) : iasc_merge_sort(bi, a->tmp, len);
            } else {
                if (a->fl) a->descending ? fdesc_sort(bf, bf + len) : fasc_sort(bf, bf + len);
                else a->descending ? idesc_sort(bi, bi + len) : iasc_sort(bi, bi + len);
            }
            break;
        case OP_TOPK: {
            int64_t k = a->k;
            m = k;
            if (k == 0) break;
            if (k * 64 <= len) {
                if (a->fl) a->largest ? fdesc_partial_sort(bf, bf + k, bf + len) : fasc_partial_sort(bf, bf + k, bf + len);
                else a->largest ? idesc_partial_sort(bi, bi + k, bi + len) : iasc_partial_sort(bi, bi + k, bi + len);
            } else {
                if (a->fl) {
                    a->largest ? fdesc_nth_element(bf, bf + k - 1, bf + len) : fasc_nth_element(bf, bf + k - 1, bf + len);
                    if (a->sorted) a->largest ? fdesc_sort(bf, bf + k - 1) : fasc_sort(bf, bf + k - 1);
                } else {
                    a->largest ? idesc_nth_element(bi, bi + k - 1, bi + len) : iasc_nth_element(bi, bi + k - 1, bi + len);
                    if (a->sorted) a->largest ? idesc_sort(bi, bi + k - 1) : iasc_sort(bi, bi + k - 1);
                }
            }
            break;
        }
        case OP_KTH:
            if (a->fl) kv_quickselect(a, len, a->k - 1);
            else kv_quickselect_i(a, len, a->k - 1);
            if (a->fl) bf[0] = bf[a->k - 1];
            else bi[0] = bi[a->k - 1];
            break;
        case OP_MEDIAN:
        case OP_NANMEDIAN: {
            int64_t nan_at = -1, num_nan = 0;
            if (a->fl)
                for (int64_t j = 0; j < len; j++)
                    if (ISNAN_(bf[j].v)) {
                        if (nan_at < 0) nan_at = j;
                        num_nan++;
                    }
            if (a->op == OP_MEDIAN && nan_at >= 0) {
                bf[0] = bf[nan_at];
                break;
            }
            if (a->fl) {
                kvf *nth = bf + (a->op == OP_MEDIAN ? (len - 1) / 2 : (len - num_nan - 1) / 2);
                if (a->op == OP_MEDIAN) a->all ? flt_nth_element(bf, nth, bf + len) : fmed_nth_element(bf, nth, bf + len);
                else a->all ? fnanv_nth_element(bf, nth, bf + len) : fnanmed_nth_element(bf, nth, bf + len);
                bf[0] = *nth;
            } else {
                kvi *nth = bi + (len - 1) / 2;
                a->all ? ilt_nth_element(bi, nth, bi + len) : imed_nth_element(bi, nth, bi + len);
                bi[0] = *nth;
            }
            break;
        }
        case OP_MODE: {
            if (a->fl) flt_sort(bf, bf + len);
            else ilt_sort(bi, bi + len);
            int64_t freq = 0, best = 0, bj = 0;
            for (int64_t j = 0; j < len; j++) {
                freq++;
                bool end = j == len - 1 || (a->fl ? bf[j].v != bf[j + 1].v : bi[j].v != bi[j + 1].v);
                if (end) {
                    if (freq > best) {
                        best = freq;
                        bj = j;
                    }
                    freq = 0;
                }
            }
            if (a->fl) bf[0] = bf[bj];
            else bi[0] = bi[bj];
            break;
        }
        }
        store_row(a, vo, c->rs[0], io, c->rs[1], p, c->rs[2], m);
    }
}

/* Runs sort_rows over self along dim d into new values (same dtype) and indices, of self's shape with `m` at d
 * (keepdim-shaped). */
static int run_rows(wk_tensor *self, int64_t d, int64_t m, sort_args *a, wk_tensor **outs) {
    int nd = self->ndim;
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)nd);
    if (nd) shape[d] = m;
    outs[0] = wk__empty(nd, shape, self->dtype);
    outs[1] = wk__empty(nd, shape, WK_INT64);
    if (!outs[0] || !outs[1]) goto fail;
    int64_t len = nd ? self->sizes[d] : 1;
    a->dt = self->dtype;
    a->es = wk_dtype_size(self->dtype);
    a->fl = wk_dtype_is_floating(self->dtype);
    if (wk__numel(outs[0]) > 0 && len > 0) {
        a->buf = wk__malloc((size_t)len * sizeof(kvf));
        a->tmp = wk__malloc((size_t)len * sizeof(kvf));
        if (!a->buf || !a->tmp) {
            free(a->buf);
            free(a->tmp);
            goto fail;
        }
        wk_rows_ctx c = {.len = len, .arg = a};
        wk_tensor *ops[3] = {outs[0], outs[1], self};
        int rc = wk__rows_apply(3, ops, d, sort_rows, &c);
        free(a->buf);
        free(a->tmp);
        if (rc < 0) goto fail;
    }
    return 0;
fail:
    wk_release(outs[0]);
    wk_release(outs[1]);
    outs[0] = outs[1] = NULL;
    return -1;
}

/* ================================================================================================ sort */

static int sort_impl(wk_tensor *self, bool stable, int64_t dim, bool descending, wk_tensor **outs) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    sort_args a = {.op = OP_SORT, .descending = descending, .stable = stable};
    return run_rows(self, d, self->ndim ? self->sizes[d] : 1, &a, outs);
}

int wk_impl_sort(wk_tensor *self, int64_t dim, bool descending, wk_tensor **outs) {
    return sort_impl(self, false, dim, descending, outs);
}

int wk_impl_sort_stable(wk_tensor *self, wk_optbool stable, int64_t dim, bool descending, wk_tensor **outs) {
    return sort_impl(self, stable == 1, dim, descending, outs);
}

static wk_tensor *argsort_impl(wk_tensor *self, bool stable, int64_t dim, bool descending) {
    wk_tensor *outs[2];
    if (sort_impl(self, stable, dim, descending, outs) < 0) return NULL;
    wk_release(outs[0]);
    return outs[1];
}

wk_tensor *wk_impl_argsort(wk_tensor *self, int64_t dim, bool descending) {
    return argsort_impl(self, false, dim, descending);
}
wk_tensor *wk_impl_argsort_stable(wk_tensor *self, bool stable, int64_t dim, bool descending) {
    return argsort_impl(self, stable, dim, descending);
}

/* ================================================================================================ topk */

int wk_impl_topk(wk_tensor *self, int64_t k, int64_t dim, bool largest, bool sorted, wk_tensor **outs) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    if (k < 0 || k > (self->ndim ? self->sizes[d] : 1)) {
        wk__error(WK_RUNTIME_ERROR, "selected index k out of range");
        return -1;
    }
    if (self->dtype == WK_BOOL) {
        wk__error(WK_RUNTIME_ERROR, "topk does not support bool dtypes on CPU");
        return -1;
    }
    if (self->ndim == 0) { /* torch copies a 0-d input whatever k is (0 or 1) */
        outs[0] = wk__clone(self);
        outs[1] = wk__zeros(0, NULL, WK_INT64);
        if (outs[0] && outs[1]) return 0;
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    sort_args a = {.op = OP_TOPK, .largest = largest, .sorted = sorted, .k = k};
    return run_rows(self, d, k, &a, outs);
}

/* ======================================================================= kthvalue / median / nanmedian / mode */

/* A selection along dim giving one element per row; outputs keepdim or squeezed. */
static int select_dim(wk_tensor *self, int64_t dim, bool keepdim, sort_args *a, const char *name, wk_tensor **outs) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    bool mask[WK_MAX_DIM] = {0};
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, name) < 0) return -1;
    wk_tensor *k[2];
    if (run_rows(self, d, 1, a, k) < 0) return -1;
    outs[0] = wk__reduce_finish(k[0], mask, keepdim);
    outs[1] = wk__reduce_finish(k[1], mask, keepdim);
    if (!outs[0] || !outs[1]) {
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    return 0;
}

int wk_impl_kthvalue(wk_tensor *self, int64_t k, int64_t dim, bool keepdim, wk_tensor **outs) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    bool mask[WK_MAX_DIM] = {0};
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, "kthvalue") < 0) return -1;
    int64_t len = self->ndim ? self->sizes[d] : 1;
    if (k <= 0 || k > len) {
        wk__error(WK_RUNTIME_ERROR, "kthvalue(): selected number k out of range for dimension %lld", (long long)d);
        return -1;
    }
    if (self->ndim == 0) { /* torch copies a 0-d input before looking at its dtype */
        outs[0] = wk__clone(self);
        outs[1] = wk__zeros(0, NULL, WK_INT64);
        if (outs[0] && outs[1]) return 0;
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    if (self->dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"kthvalue_cpu\" not implemented for 'Bool'");
        return -1;
    }
    sort_args a = {.op = OP_KTH, .k = k};
    return select_dim(self, dim, keepdim, &a, "kthvalue", outs);
}

int wk_impl_median_dim(wk_tensor *self, int64_t dim, bool keepdim, wk_tensor **outs) {
    int64_t d;
    bool mask[WK_MAX_DIM] = {0};
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, "median") < 0) return -1; /* before the dtype, as torch */
    if (self->dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"median_out\" not implemented for 'Bool'");
        return -1;
    }
    sort_args a = {.op = OP_MEDIAN};
    return select_dim(self, dim, keepdim, &a, "median", outs);
}

int wk_impl_nanmedian_dim(wk_tensor *self, int64_t dim, bool keepdim, wk_tensor **outs) {
    int64_t d;
    bool mask[WK_MAX_DIM] = {0};
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, "median") < 0) return -1; /* before the dtype, as torch */
    if (self->dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"median_out\" not implemented for 'Bool'");
        return -1;
    }
    sort_args a = {.op = OP_NANMEDIAN};
    return select_dim(self, dim, keepdim, &a, "median", outs); /* torch's message says median() */
}

int wk_impl_mode(wk_tensor *self, int64_t dim, bool keepdim, wk_tensor **outs) {
    sort_args a = {.op = OP_MODE};
    return select_dim(self, dim, keepdim, &a, "mode", outs);
}

/* ---- out=(values, indices) of the selections: torch checks out's dtypes among the op's own argument checks, each
 * op in its own words and order; the results are then written into out (resized when needed). */
static int write_outs(wk_tensor *const *out, wk_tensor **r) {
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) rc = wk__write_out(out[i], r[i]);
    wk_release(r[0]);
    wk_release(r[1]);
    return rc;
}

/* kthvalue: after the dim, emptiness and k checks ("output values must be of same type as input") */
int wk_impl_kthvalue_out(wk_tensor *const *out, wk_tensor *self, int64_t k, int64_t dim, bool keepdim) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    bool mask[WK_MAX_DIM] = {0};
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, "kthvalue") < 0) return -1;
    if (k <= 0 || k > (self->ndim ? self->sizes[d] : 1)) {
        wk__error(WK_RUNTIME_ERROR, "kthvalue(): selected number k out of range for dimension %lld", (long long)d);
        return -1;
    }
    if (out[0]->dtype != self->dtype) return wk__error(WK_RUNTIME_ERROR, "output values must be of same type as input"), -1;
    if (out[1]->dtype != WK_INT64) return wk__error(WK_RUNTIME_ERROR, "output indices must be of scalar type Long"), -1;
    wk_tensor *r[2];
    if (wk_impl_kthvalue(self, k, dim, keepdim, r) < 0) return -1;
    return write_outs(out, r);
}

/* mode: before anything else ("expected scalar type 'Float' but got 'Double' for values output") */
int wk_impl_mode_out(wk_tensor *const *out, wk_tensor *self, int64_t dim, bool keepdim) {
    static const char *what[2] = {"values", "indices"};
    for (int i = 0; i < 2; i++) {
        wk_dtype want = i ? WK_INT64 : self->dtype;
        if (out[i]->dtype != want) {
            wk__error(WK_RUNTIME_ERROR, "expected scalar type '%s' but got '%s' for %s output", wk_dtype_scalar_name(want),
                      wk_dtype_scalar_name(out[i]->dtype), what[i]);
            return -1;
        }
    }
    wk_tensor *r[2];
    if (wk_impl_mode(self, dim, keepdim, r) < 0) return -1;
    return write_outs(out, r);
}

/* The type names of torch's checkScalarType / checkSameType ("torch.FloatTensor", but "CPUBoolType") */
static const char *checked_type_name(wk_dtype dt) {
    return dt == WK_BOOL ? "CPUBoolType" : dt == WK_BFLOAT16 ? "CPUBFloat16Type" : wk__legacy_type_name(dt);
}

/* median / nanmedian along a dim: after the dim and emptiness checks, indices first */
static int median_dim_out(wk_tensor *const *out, wk_tensor *self, int64_t dim, bool keepdim, bool ignore_nan) {
    int64_t d;
    bool mask[WK_MAX_DIM] = {0};
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    if (self->ndim) mask[d] = true;
    if (wk__check_nonempty_dims(self, mask, "median") < 0) return -1;
    if (out[1]->dtype != WK_INT64) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected tensor for argument #1 'indices' to have scalar type Long; but got %s instead (while checking "
                  "arguments for median)", checked_type_name(out[1]->dtype));
        return -1;
    }
    if (out[0]->dtype != self->dtype) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type %s does "
                  "not equal %s (while checking arguments for median)", checked_type_name(out[0]->dtype),
                  checked_type_name(self->dtype));
        return -1;
    }
    wk_tensor *r[2];
    int rc = ignore_nan ? wk_impl_nanmedian_dim(self, dim, keepdim, r) : wk_impl_median_dim(self, dim, keepdim, r);
    if (rc < 0) return -1;
    return write_outs(out, r);
}

int wk_impl_median_dim_out(wk_tensor *const *out, wk_tensor *self, int64_t dim, bool keepdim) {
    return median_dim_out(out, self, dim, keepdim, false);
}
int wk_impl_nanmedian_dim_out(wk_tensor *const *out, wk_tensor *self, int64_t dim, bool keepdim) {
    return median_dim_out(out, self, dim, keepdim, true);
}

/* median() / nanmedian() of all elements: the value only (NaN for an empty input, as torch). */
static wk_tensor *median_all(wk_tensor *self, bool ignore_nan, const char *kname) {
    int64_t n = wk__numel(self);
    if (n == 0) /* NaN in self's dtype, before the dtype is looked at (a bool says True) */
        return wk__full(0, NULL, self->dtype, wk_float(NAN));
    if (self->dtype == WK_BOOL) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "\"%s\" not implemented for 'Bool'", kname);
        return NULL;
    }
    /* torch partitions a clone in memory order: a permuted dense input keeps its layout, others are made contiguous
     * (which of two equal values lands in the middle shows in the sign of a zero) */
    wk_tensor *c = wk__non_overlapping_and_dense(self) ? wk_retain(self) : wk__contiguous(self);
    if (!c) return NULL;
    int64_t one = 1;
    wk_tensor *flat = wk__alias(c, 1, &n, &one, c->offset);
    wk_release(c);
    if (!flat) return NULL;
    wk_tensor *outs[2];
    sort_args a = {.op = ignore_nan ? OP_NANMEDIAN : OP_MEDIAN, .all = true};
    int rc = run_rows(flat, 0, 1, &a, outs);
    wk_release(flat);
    if (rc < 0) return NULL;
    wk_release(outs[1]);
    wk_tensor *r = wk__alias(outs[0], 0, NULL, NULL, outs[0]->offset);
    wk_release(outs[0]);
    return r;
}

wk_tensor *wk_impl_median(wk_tensor *self) { return median_all(self, false, "median_cpu"); }
wk_tensor *wk_impl_nanmedian(wk_tensor *self) { return median_all(self, true, "median_cpu"); }

/* msort = sort(self, 0).values, recorded through sort (its grad_fn is SortBackward0, as in torch) */
wk_tensor *wk_impl_msort(wk_tensor *self) {
    wk_tensor *outs[2];
    if (wk_sort(self, 0, false, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}

/* ================================================================================================ unique */

/* A flat contiguous copy of self (numel elements). */
static wk_tensor *flatten_contig(const wk_tensor *self) {
    wk_tensor *c = wk__contiguous(self);
    if (!c) return NULL;
    int64_t n = wk__numel(c), one = 1;
    wk_tensor *f = wk__alias(c, 1, &n, &one, c->offset);
    wk_release(c);
    return f;
}

static wk_tensor *empty1(int64_t n, wk_dtype dt) { return wk__empty(1, &n, dt); }

/* Keeps the first m elements of a 1-d tensor (a view). */
static wk_tensor *narrow1(wk_tensor *t, int64_t m) {
    wk_tensor *r = wk__alias(t, 1, &m, t->strides, t->offset);
    wk_release(t);
    return r;
}

static bool elem_ne(const char *a, const char *b, wk_dtype dt, bool fl) {
    if (fl) return load_f64(a, dt) != load_f64(b, dt);
    return load_i64(a, dt) != load_i64(b, dt);
}

int wk_impl__unique2(wk_tensor *self, bool sorted, bool return_inverse, bool return_counts, wk_tensor **outs) {
    WK_UNUSED(sorted); /* torch's CPU unique always sorts */
    outs[0] = outs[1] = outs[2] = NULL;
    int64_t n = wk__numel(self);
    wk_tensor *flat = flatten_contig(self);
    if (!flat) return -1;
    wk_tensor *so[2];
    sort_args a = {.op = OP_SORT};
    if (run_rows(flat, 0, n, &a, so) < 0) {
        wk_release(flat);
        return -1;
    }
    wk_release(flat);
    const char *v = wk__data(so[0]);
    const int64_t *perm = (const int64_t *)wk__data(so[1]);
    size_t es = wk_dtype_size(self->dtype);
    bool fl = wk_dtype_is_floating(self->dtype);
    outs[0] = empty1(n, self->dtype);
    outs[1] = return_inverse ? wk__empty(self->ndim, self->sizes, WK_INT64) : empty1(0, WK_INT64);
    outs[2] = empty1(return_counts ? n : 0, WK_INT64);
    if (!outs[0] || !outs[1] || !outs[2]) goto fail;
    char *o = wk__data(outs[0]);
    int64_t *inv = (int64_t *)wk__data(outs[1]), *cnt = (int64_t *)wk__data(outs[2]);
    int64_t u = 0, start = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || elem_ne(v + (size_t)i * es, v + (size_t)(i - 1) * es, self->dtype, fl)) {
            if (u > 0 && return_counts) cnt[u - 1] = i - start;
            memcpy(o + (size_t)u * es, v + (size_t)i * es, es);
            u++;
            start = i;
        }
        if (return_inverse) inv[perm[i]] = u - 1;
    }
    if (u > 0 && return_counts) cnt[u - 1] = n - start;
    outs[0] = narrow1(outs[0], u);
    if (return_counts) outs[2] = narrow1(outs[2], u);
    wk_release(so[0]);
    wk_release(so[1]);
    if (!outs[0] || !outs[2]) goto fail2;
    return 0;
fail:
    wk_release(so[0]);
    wk_release(so[1]);
fail2:
    for (int k = 0; k < 3; k++) wk_release(outs[k]), outs[k] = NULL;
    return -1;
}

/* ---- unique along a dim: slices compared lexicographically (torch sorts slice indices with std::sort) */
typedef struct {
    const char *base; /* [nslices][slice] contiguous */
    int64_t slice;    /* elements per slice */
    wk_dtype dt;
    bool fl;
    size_t es;
} slices;

static int slice_cmp(const slices *S, int64_t a, int64_t b) {
    const char *pa = S->base + (size_t)(a * S->slice) * S->es, *pb = S->base + (size_t)(b * S->slice) * S->es;
    for (int64_t k = 0; k < S->slice; k++) {
        const char *x = pa + (size_t)k * S->es, *y = pb + (size_t)k * S->es;
        if (S->fl) {
            double u = load_f64(x, S->dt), w = load_f64(y, S->dt);
            if (u < w) return -1;
            if (u > w) return 1;
        } else {
            int64_t u = load_i64(x, S->dt), w = load_i64(y, S->dt);
            if (u < w) return -1;
            if (u > w) return 1;
        }
    }
    return 0;
}

static bool slice_equal(const slices *S, int64_t a, int64_t b) { /* at::equal: elementwise ==, so NaN != NaN */
    const char *pa = S->base + (size_t)(a * S->slice) * S->es, *pb = S->base + (size_t)(b * S->slice) * S->es;
    for (int64_t k = 0; k < S->slice; k++)
        if (elem_ne(pa + (size_t)k * S->es, pb + (size_t)k * S->es, S->dt, S->fl)) return false;
    return true;
}

/* std::sort over slice indices with the lexicographic `<` (the same introsort steps as SORT_ALGOS) */
static const slices *g_slices; /* the comparator's data; sorting is single-threaded here */
typedef struct {
    int64_t v;
    int64_t i;
} kvs;
#define SLICE_LT(a, b) (slice_cmp(g_slices, (a)->v, (b)->v) < 0)
SORT_ALGOS(slc, kvs, SLICE_LT)

/* self moved so that dim is first, made contiguous: [size(dim)][rest] */
static wk_tensor *dim_first(const wk_tensor *self, int64_t d) {
    int nd = self->ndim;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    sizes[0] = self->sizes[d];
    strides[0] = self->strides[d];
    for (int i = 0, j = 1; i < nd; i++)
        if (i != d) {
            sizes[j] = self->sizes[i];
            strides[j++] = self->strides[i];
        }
    wk_tensor *v = wk__alias(self, nd, sizes, strides, self->offset);
    if (!v) return NULL;
    wk_tensor *c = wk__clone(v);
    wk_release(v);
    return c;
}

static int unique_dim_impl(wk_tensor *self, int64_t dim, bool consecutive, bool return_inverse, bool return_counts,
                           wk_tensor **outs) {
    outs[0] = outs[1] = outs[2] = NULL;
    int64_t d;
    int nd = self->ndim;
    if (nd == 0) { /* torch wraps the dim without allowing a scalar's 0 / -1 */
        wk__error(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)dim);
        return -1;
    }
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return -1;
    int zero_dims = 0;
    for (int i = 0; i < nd; i++) zero_dims += self->sizes[i] == 0;
    if (self->sizes[d] == 0) {
        if (zero_dims != 1) {
            wk__error(WK_RUNTIME_ERROR, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
            return -1;
        }
        outs[0] = wk__empty(nd, self->sizes, self->dtype);
        outs[1] = empty1(0, WK_INT64);
        outs[2] = empty1(0, WK_INT64);
        if (!outs[0] || !outs[1] || !outs[2]) goto fail;
        return 0;
    }
    if (zero_dims) {
        wk__error(WK_RUNTIME_ERROR, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
        return -1;
    }
    wk_tensor *df = dim_first(self, d);
    if (!df) return -1;
    int64_t ns = self->sizes[d];
    slices S = {wk__data(df), wk__numel(df) / ns, self->dtype, wk_dtype_is_floating(self->dtype),
                wk_dtype_size(self->dtype)};
    kvs *idx = wk__malloc((size_t)ns * sizeof(kvs));
    int64_t *keep = wk__malloc((size_t)ns * sizeof(int64_t));
    outs[1] = empty1(ns, WK_INT64);
    outs[2] = wk__zeros(1, &ns, WK_INT64);
    if (!idx || !keep || !outs[1] || !outs[2]) {
        free(idx);
        free(keep);
        wk_release(df);
        goto fail;
    }
    for (int64_t i = 0; i < ns; i++) idx[i].v = i, idx[i].i = i;
    if (!consecutive) {
        g_slices = &S;
        slc_sort(idx, idx + ns);
        g_slices = NULL;
    }
    int64_t *inv = (int64_t *)wk__data(outs[1]), *cnt = (int64_t *)wk__data(outs[2]);
    int64_t u = 0, prev = 0;
    keep[0] = idx[0].v;
    inv[idx[0].v] = 0;
    for (int64_t i = 1; i < ns; i++) {
        if (!slice_equal(&S, idx[i].v, keep[u])) {
            cnt[u] = i - prev;
            prev = i;
            keep[++u] = idx[i].v;
        }
        inv[idx[i].v] = u;
    }
    cnt[u] = ns - prev;
    u++;
    /* output: the kept slices, dim first, then moved back */
    int64_t osz[WK_MAX_DIM];
    memcpy(osz, df->sizes, sizeof(int64_t) * (size_t)nd);
    osz[0] = u;
    wk_tensor *of = wk__empty(nd, osz, self->dtype);
    if (of) {
        size_t sb = (size_t)S.slice * S.es;
        for (int64_t i = 0; i < u; i++) memcpy(wk__data(of) + (size_t)i * sb, S.base + (size_t)keep[i] * sb, sb);
        int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
        for (int i = 0, j = 1; i < nd; i++) {
            if (i == d) {
                sizes[i] = of->sizes[0];
                strides[i] = of->strides[0];
            } else {
                sizes[i] = of->sizes[j];
                strides[i] = of->strides[j++];
            }
        }
        outs[0] = wk__alias(of, nd, sizes, strides, of->offset);
        wk_release(of);
    }
    free(idx);
    free(keep);
    wk_release(df);
    if (!outs[0]) goto fail;
    outs[2] = narrow1(outs[2], u);
    if (!return_inverse) {
        wk_release(outs[1]);
        outs[1] = empty1(0, WK_INT64);
    }
    if (!return_counts) {
        wk_release(outs[2]);
        outs[2] = empty1(0, WK_INT64);
    }
    if (!outs[1] || !outs[2]) goto fail;
    return 0;
fail:
    for (int k = 0; k < 3; k++) wk_release(outs[k]), outs[k] = NULL;
    return -1;
}

int wk_impl_unique_dim(wk_tensor *self, int64_t dim, bool sorted, bool return_inverse, bool return_counts,
                       wk_tensor **outs) {
    WK_UNUSED(sorted);
    return unique_dim_impl(self, dim, false, return_inverse, return_counts, outs);
}

int wk_impl_unique_consecutive(wk_tensor *self, bool return_inverse, bool return_counts, wk_optint dim,
                               wk_tensor **outs) {
    if (dim.has) return unique_dim_impl(self, dim.v, true, return_inverse, return_counts, outs);
    outs[0] = outs[1] = outs[2] = NULL;
    int64_t n = wk__numel(self);
    wk_tensor *flat = flatten_contig(self);
    if (!flat) return -1;
    size_t es = wk_dtype_size(self->dtype);
    bool fl = wk_dtype_is_floating(self->dtype);
    outs[0] = empty1(n, self->dtype);
    outs[1] = return_inverse ? wk__empty(self->ndim, self->sizes, WK_INT64) : empty1(0, WK_INT64);
    outs[2] = empty1(return_counts ? n : 0, WK_INT64);
    if (!outs[0] || !outs[1] || !outs[2]) {
        wk_release(flat);
        goto fail;
    }
    const char *v = wk__data(flat);
    char *o = wk__data(outs[0]);
    int64_t *inv = (int64_t *)wk__data(outs[1]), *cnt = (int64_t *)wk__data(outs[2]);
    int64_t u = 0, last = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || elem_ne(v + (size_t)i * es, o + (size_t)(u - 1) * es, self->dtype, fl)) {
            if (i > 0 && return_counts) cnt[u - 1] = i - last;
            memcpy(o + (size_t)u * es, v + (size_t)i * es, es);
            u++;
            last = i;
        }
        if (return_inverse) inv[i] = u - 1;
    }
    if (n > 0 && return_counts) cnt[u - 1] = n - last;
    wk_release(flat);
    outs[0] = narrow1(outs[0], u);
    if (return_counts) outs[2] = narrow1(outs[2], u);
    if (!outs[0] || !outs[2]) goto fail;
    return 0;
fail:
    for (int k = 0; k < 3; k++) wk_release(outs[k]), outs[k] = NULL;
    return -1;
}

wk_tensor *wk_impl__not_implemented_grad(wk_tensor *grad, const char *name) {
    WK_UNUSED(grad);
    wk__error(WK_NOT_IMPLEMENTED_ERROR, "the derivative for '%s' is not implemented.", name);
    return NULL;
}
