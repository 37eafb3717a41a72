/* nn_pool.c — pooling over 2 or 3 spatial dims: max (with indices, dilation, ceil_mode), average
 * (count_include_pad, divisor_override), adaptive average and adaptive max, with their backward ops; the 1-d
 * forms torch builds on them (a size-1 dim inserted before the last). Input [*, C, *spatial] is seen as planes
 * [P, spatial] with P = prod of the leading dims. Indices are flat positions within a plane, as torch's. */
#include "ops/nn.h"

#include <stdio.h>

#include "cpu/threadpool.h"

typedef struct {
    int nd;                           /* spatial dims: 2 or 3 */
    int64_t P;                        /* planes */
    int64_t in[3], out[3];
    int64_t k[3], s[3], p[3], d[3];
    int64_t isz, osz;                 /* plane sizes */
} pool_geom;

static void geom_sizes(pool_geom *g) {
    g->isz = g->osz = 1;
    for (int j = 0; j < g->nd; j++) {
        g->isz *= g->in[j];
        g->osz *= g->out[j];
    }
}

/* torch's pooling_output_shape */
static int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
    int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
    int64_t q = num / stride;
    if ((num % stride != 0) && ((num < 0) != (stride < 0))) q--; /* floor division */
    int64_t out = q + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad) out--;
    return out;
}

static const char *AX3[3] = {"T", "H", "W"};

/* Expands kernel/stride/padding/dilation with torch's per-op messages; stride [] means kernel_size. */
static int pool_params(const char *op, int nd, wk_intlist kernel, wk_intlist stride, wk_intlist padding,
                       wk_intlist dilation, pool_geom *g, bool has_dilation) {
    const char *nums = nd == 2 ? "two" : "three";
    if (wk__nn_expand_param(kernel, nd, g->k) < 0) {
        wk__error(WK_RUNTIME_ERROR, "%s: kernel_size must either be a single int, or a tuple of %s ints", op, nums);
        return -1;
    }
    if (stride.len <= 0 || !stride.data) {
        memcpy(g->s, g->k, sizeof g->s);
    } else if (wk__nn_expand_param(stride, nd, g->s) < 0) {
        wk__error(WK_RUNTIME_ERROR, "%s: stride must either be omitted, a single int, or a tuple of %s ints", op, nums);
        return -1;
    }
    if (wk__nn_expand_param(padding, nd, g->p) < 0) {
        wk__error(WK_RUNTIME_ERROR, "%s: padding must either be a single int, or a tuple of %s ints", op, nums);
        return -1;
    }
    if (!has_dilation) {
        for (int j = 0; j < nd; j++) g->d[j] = 1;
    } else if (wk__nn_expand_param(dilation, nd, g->d) < 0) {
        wk__error(WK_RUNTIME_ERROR, "%s: dilation must be either a single int, or a tuple of %s ints", op, nums);
        return -1;
    }
    for (int j = 0; j < nd; j++)
        if (g->s[j] == 0) return wk__error(WK_RUNTIME_ERROR, "stride should not be zero"), -1;
    return 0;
}

/* pool2d_shape_check / pool3d_shape_check */
static int pool_shape(const wk_tensor *x, const char *op, pool_geom *g, bool ceil_mode, bool check_dil) {
    int nd = g->nd;
    wk_strbuf m = {0};
    bool kpos = true, spos = true, dpos = true;
    for (int j = 0; j < nd; j++) {
        kpos &= g->k[j] > 0;
        spos &= g->s[j] > 0;
        dpos &= g->d[j] > 0;
    }
    const char **ax = AX3 + (3 - nd);
    if (!kpos) {
        wk_sb_puts(&m, "kernel size should be greater than zero, but got");
        for (int j = 0; j < nd; j++) wk_sb_printf(&m, " k%s: %lld", ax[j], (long long)g->k[j]);
        goto fail;
    }
    if (!spos) {
        wk_sb_puts(&m, "stride should be greater than zero, but got");
        for (int j = 0; j < nd; j++) wk_sb_printf(&m, " d%s: %lld", ax[j], (long long)g->s[j]);
        goto fail;
    }
    if (check_dil && !dpos) {
        wk_sb_puts(&m, "dilation should be greater than zero, but got");
        for (int j = 0; j < nd; j++) wk_sb_printf(&m, " dilation%s: %lld", ax[j], (long long)g->d[j]);
        goto fail;
    }
    int n = x->ndim;
    if (n != nd + 1 && n != nd + 2) {
        wk_sb_printf(&m, "non-empty %dD or %dD (batch mode) tensor expected for input", nd + 1, nd + 2);
        goto fail;
    }
    for (int i = n == nd + 2 ? 1 : 0; i < n; i++)
        if (x->sizes[i] == 0) {
            wk_strbuf s = {0};
            wk_sb_ints(&s, x->sizes, n);
            wk_sb_printf(&m, "Expected %dD or %dD (batch mode) tensor with optional 0 dim batch size for input, but got:%s",
                         nd + 1, nd + 2, s.s ? s.s : "");
            wk_sb_free(&s);
            goto fail;
        }
    for (int j = 0; j < nd; j++)
        if (g->p[j] > ((g->k[j] - 1) * g->d[j] + 1) / 2 || g->p[j] < 0) {
            if (g->p[j] < 0) {
                wk_sb_puts(&m, "pad must be non-negative");
                goto fail;
            }
            wk_sb_printf(&m, "pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld and dilation=%lld",
                         (long long)g->p[j], (long long)g->k[j], (long long)g->d[j]);
            goto fail;
        }
    /* avg_pool3d's meta checks the unpadded input against the kernel before pool3d_shape_check */
    if (nd == 3 && strcmp(op, "avg_pool3d") == 0 &&
        (x->sizes[n - 3] < g->k[0] || x->sizes[n - 2] < g->k[1] || x->sizes[n - 1] < g->k[2])) {
        wk_sb_printf(&m, "input image (T: %lld H: %lld W: %lld) smaller than kernel size (kT: %lld kH: %lld kW: %lld)",
                     (long long)x->sizes[n - 3], (long long)x->sizes[n - 2], (long long)x->sizes[n - 1],
                     (long long)g->k[0], (long long)g->k[1], (long long)g->k[2]);
        goto fail;
    }
    /* then torch's pool2d / pool3d_shape_check: half the kernel itself, whatever the dilation */
    bool half_ok = true;
    for (int j = 0; j < nd; j++) half_ok &= g->p[j] <= g->k[j] / 2;
    if (!half_ok && nd == 2) {
        wk_sb_printf(&m, "pad should be smaller than or equal to half of kernel size, but got padW = %lld, padH = %lld, "
                     "kW = %lld, kH = %lld", (long long)g->p[1], (long long)g->p[0], (long long)g->k[1], (long long)g->k[0]);
        goto fail;
    }
    if (!half_ok && nd == 3) {
        wk_sb_printf(&m, "pad should be smaller than or equal to half of kernel size, but got kT: %lld kW: %lld kH: %lld "
                     "padT: %lld padW: %lld padH: %lld", (long long)g->k[0], (long long)g->k[2], (long long)g->k[1],
                     (long long)g->p[0], (long long)g->p[2], (long long)g->p[1]);
        goto fail;
    }
    g->P = wk__prod(x->sizes, n - nd);
    bool small = false;
    for (int j = 0; j < nd; j++) {
        g->in[j] = x->sizes[n - nd + j];
        g->out[j] = pool_out(g->in[j], g->k[j], g->p[j], g->s[j], g->d[j], ceil_mode);
        if (g->out[j] < 1) small = true;
    }
    if (!small) { /* the output's element count must fit before any product is formed */
        int64_t shape[WK_MAX_DIM];
        memcpy(shape, x->sizes, sizeof(int64_t) * (size_t)n);
        for (int j = 0; j < nd; j++) shape[n - nd + j] = g->out[j];
        if (wk__check_sizes(n, shape) < 0) {
            wk_sb_free(&m);
            return -1;
        }
    }
    if (small) {
        int64_t C = x->sizes[n - nd - 1];
        wk_sb_printf(&m, "Given input size: (%lld", (long long)C);
        for (int j = 0; j < nd; j++) wk_sb_printf(&m, "x%lld", (long long)g->in[j]);
        wk_sb_printf(&m, "). Calculated output size: (%lld", (long long)C);
        for (int j = 0; j < nd; j++) wk_sb_printf(&m, "x%lld", (long long)g->out[j]);
        wk_sb_puts(&m, "). Output size is too small");
        goto fail;
    }
    geom_sizes(g);
    (void)op;
    return 0;
fail:
    wk__error(WK_RUNTIME_ERROR, "%s", m.s ? m.s : "pooling: bad arguments");
    wk_sb_free(&m);
    return -1;
}

static void out_shape(const wk_tensor *x, const pool_geom *g, int64_t *shape) {
    memcpy(shape, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    for (int j = 0; j < g->nd; j++) shape[x->ndim - g->nd + j] = g->out[j];
}

/* unravel a flat position of an nd grid */
static void unravel(int64_t flat, int nd, const int64_t *dims, int64_t *idx) {
    for (int j = nd - 1; j >= 0; j--) {
        idx[j] = flat % dims[j];
        flat /= dims[j];
    }
}

/* ---- max pooling, float32 over 2 spatial dims: the same scan in float on the input's own elements (no float64
 * working copy), planes in parallel; max_pool_fwd below stays the reference for every other case ---- */
typedef struct {
    const pool_geom *g;
    const float *x; /* [P, isz] contiguous */
    float *o;       /* [P, osz] */
    int64_t *oi;    /* [P, osz] flat positions within the plane */
} maxpool_job;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define POOL_K2_AVX2 1
static bool pool_have_avx2(void) {
    static int have = -1;
    if (have < 0) have = __builtin_cpu_supports("avx2") ? 1 : 0;
    return have == 1;
}
/* MaxPool2d(2) on one output row, 8 outputs a step (the last through lane masks): the scalar k2 loop's scan (positions p00, p00 + 1, p00 + IW,
 * p00 + IW + 1 in that order; a larger value or a NaN takes over) lane by lane, so the same values and indices.
 * x0, x1: input rows 2 oh and 2 oh + 1 (2 OW <= IW floats read); o, oi: the output row; base: 2 oh * IW.
 * Returns the outputs done (all). */
__attribute__((target("avx2"))) static int64_t max_pool_k2_row_avx2(const float *x0, const float *x1, float *o,
                                                                     int64_t *oi, int64_t OW, int64_t IW,
                                                                     int64_t base) {
    const __m256i off1 = _mm256_set1_epi32(1), off2 = _mm256_set1_epi32((int)IW),
                  off3 = _mm256_set1_epi32((int)IW + 1), lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int64_t ow = 0;
    for (; ow < OW; ow += 8) {
        /* the last group of a row (short rows: LeNet's are 14 and 5 wide) reads and writes through lane masks */
        int rem = OW - ow < 8 ? (int)(OW - ow) : 8;
        __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(2 * rem), lane);     /* input floats 0..7 of the group */
        __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(2 * rem - 8), lane); /* input floats 8..15 */
        __m256i mo = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem), lane);         /* outputs */
        __m256 a0 = _mm256_maskload_ps(x0 + 2 * ow, m0), a1 = _mm256_maskload_ps(x0 + 2 * ow + 8, m1);
        __m256 b0 = _mm256_maskload_ps(x1 + 2 * ow, m0), b1 = _mm256_maskload_ps(x1 + 2 * ow + 8, m1);
        /* even / odd columns of each row, in output order */
        __m256 v[4] = {_mm256_shuffle_ps(a0, a1, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(a0, a1, _MM_SHUFFLE(3, 1, 3, 1)),
                       _mm256_shuffle_ps(b0, b1, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(b0, b1, _MM_SHUFFLE(3, 1, 3, 1))};
        const __m256i offs[4] = {_mm256_setzero_si256(), off1, off2, off3};
        __m256 mv = _mm256_set1_ps(-INFINITY);
        __m256i bo = _mm256_setzero_si256();
        for (int t = 0; t < 4; t++) {
            __m256 vt = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v[t]), _MM_SHUFFLE(3, 1, 2, 0)));
            __m256 take = _mm256_or_ps(_mm256_cmp_ps(vt, mv, _CMP_GT_OQ), _mm256_cmp_ps(vt, vt, _CMP_UNORD_Q));
            mv = _mm256_blendv_ps(mv, vt, take);
            bo = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(bo), _mm256_castsi256_ps(offs[t]), take));
        }
        _mm256_maskstore_ps(o + ow, mo, mv);
        __m256i idx = _mm256_add_epi32(_mm256_add_epi32(_mm256_set1_epi32((int)(base + 2 * ow)), lane2), bo);
        _mm256_maskstore_epi64((long long *)(oi + ow), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(mo)),
                               _mm256_cvtepi32_epi64(_mm256_castsi256_si128(idx)));
        _mm256_maskstore_epi64((long long *)(oi + ow + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(mo, 1)),
                               _mm256_cvtepi32_epi64(_mm256_extracti128_si256(idx, 1)));
    }
    return OW;
}
#endif

static void max_pool2d_f32_planes(int64_t p0, int64_t p1, int tid, void *ctx) {
    WK_UNUSED(tid);
    const maxpool_job *J = ctx;
    const pool_geom *g = J->g;
    const int64_t IH = g->in[0], IW = g->in[1], OH = g->out[0], OW = g->out[1];
    const bool k2 = g->k[0] == 2 && g->k[1] == 2 && g->s[0] == 2 && g->s[1] == 2 && g->p[0] == 0 && g->p[1] == 0 &&
                    g->d[0] == 1 && g->d[1] == 1 && 2 * OH <= IH && 2 * OW <= IW;
#ifdef POOL_K2_AVX2
    const bool vec = pool_have_avx2() && g->isz < INT32_MAX; /* in-plane positions fit the int32 lanes */
#endif
    for (int64_t pl = p0; pl < p1; pl++) {
        const float *xp = J->x + pl * g->isz;
        float *o = J->o + pl * g->osz;
        int64_t *oi = J->oi + pl * g->osz;
        if (k2) { /* MaxPool2d(2): every window is the 2x2 block at (2 oh, 2 ow), inside the plane */
            for (int64_t oh = 0; oh < OH; oh++) {
                int64_t ow = 0;
#ifdef POOL_K2_AVX2
                if (vec)
                    ow = max_pool_k2_row_avx2(xp + 2 * oh * IW, xp + (2 * oh + 1) * IW, o + oh * OW, oi + oh * OW, OW,
                                              IW, 2 * oh * IW);
#endif
                for (; ow < OW; ow++) {
                    int64_t p00 = 2 * oh * IW + 2 * ow, best = p00;
                    float mv = -INFINITY;
                    const int64_t pos[4] = {p00, p00 + 1, p00 + IW, p00 + IW + 1};
                    for (int t = 0; t < 4; t++) {
                        float v = xp[pos[t]];
                        int64_t take = -(int64_t)((v > mv) | (v != v));
                        uint32_t vb, mb;
                        memcpy(&vb, &v, 4);
                        memcpy(&mb, &mv, 4);
                        mb = (vb & (uint32_t)take) | (mb & ~(uint32_t)take);
                        memcpy(&mv, &mb, 4);
                        best = (pos[t] & take) | (best & ~take);
                    }
                    o[oh * OW + ow] = mv;
                    oi[oh * OW + ow] = best;
                }
            }
            continue;
        }
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t hs = oh * g->s[0] - g->p[0], he = hs + (g->k[0] - 1) * g->d[0] + 1;
            if (he > IH) he = IH;
            if (hs < 0) hs += ((-hs + g->d[0] - 1) / g->d[0]) * g->d[0];
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t ws = ow * g->s[1] - g->p[1], we = ws + (g->k[1] - 1) * g->d[1] + 1;
                if (we > IW) we = IW;
                if (ws < 0) ws += ((-ws + g->d[1] - 1) / g->d[1]) * g->d[1];
                int64_t best = hs * IW + ws;
                float mv = -INFINITY;
                for (int64_t h = hs; h < he; h += g->d[0])
                    for (int64_t w = ws; w < we; w += g->d[1]) {
                        /* a larger value or a NaN (the last NaN wins), as torch; selected through masks, not
                         * branches (random data would mispredict half of them) */
                        float v = xp[h * IW + w];
                        int64_t take = -(int64_t)((v > mv) | (v != v));
                        uint32_t vb, mb;
                        memcpy(&vb, &v, 4);
                        memcpy(&mb, &mv, 4);
                        mb = (vb & (uint32_t)take) | (mb & ~(uint32_t)take);
                        memcpy(&mv, &mb, 4);
                        best = ((h * IW + w) & take) | (best & ~take);
                    }
                o[oh * OW + ow] = mv;
                oi[oh * OW + ow] = best;
            }
        }
    }
}

static int max_pool2d_f32(wk_tensor *self, pool_geom *g, wk_tensor **outs) {
    int64_t shape[WK_MAX_DIM];
    out_shape(self, g, shape);
    wk_tensor *x = wk__contiguous(self), *o = wk__empty(self->ndim, shape, WK_FLOAT32),
              *idx = wk__empty(self->ndim, shape, WK_INT64);
    if (!x || !o || !idx) {
        wk_release(x), wk_release(o), wk_release(idx);
        return -1;
    }
    maxpool_job J = {g, (const float *)wk__data(x), (float *)wk__data(o), (int64_t *)wk__data(idx)};
    int64_t work = g->osz * g->k[0] * g->k[1], grain = work >= 20000 ? 1 : 20000 / (work + 1) + 1;
    wk_parallel_for(0, g->P, grain, max_pool2d_f32_planes, &J);
    wk_release(x);
    outs[0] = o;
    outs[1] = idx;
    return 0;
}

/* ---- max pooling ---- */
static int max_pool_fwd(wk_tensor *self, pool_geom *g, wk_tensor **outs) {
    if (self->dtype == WK_BOOL) {
        wk__not_implemented_for(g->nd == 2 ? "max_pool2d" : "max_pool3d", WK_BOOL);
        return -1;
    }
    if (self->dtype == WK_FLOAT32 && g->nd == 2) return max_pool2d_f32(self, g, outs);
    int64_t shape[WK_MAX_DIM];
    out_shape(self, g, shape);
    wk_tensor *w = wk__nn_work(self->ndim, shape), *idx = wk__empty(self->ndim, shape, WK_INT64);
    double *x = (w && idx) ? wk__nn_load(self) : NULL;
    if (!x) {
        wk_release(w);
        wk_release(idx);
        return -1;
    }
    double *o = wk__nn_data(w);
    int64_t *oi = (int64_t *)wk__data(idx);
    for (int64_t pl = 0; pl < g->P; pl++) {
        const double *xp = x + pl * g->isz;
        for (int64_t op = 0; op < g->osz; op++) {
            int64_t oc[3], st[3], cnt[3];
            unravel(op, g->nd, g->out, oc);
            for (int j = 0; j < g->nd; j++) {
                int64_t start = oc[j] * g->s[j] - g->p[j], end = start + (g->k[j] - 1) * g->d[j] + 1;
                if (end > g->in[j]) end = g->in[j];
                if (start < 0) start += ((-start + g->d[j] - 1) / g->d[j]) * g->d[j]; /* first in-range tap */
                st[j] = start;
                cnt[j] = start < end ? (end - start + g->d[j] - 1) / g->d[j] : 0;
            }
            int64_t total = 1;
            for (int j = 0; j < g->nd; j++) total *= cnt[j];
            int64_t best = 0;
            for (int j = 0; j < g->nd; j++) best = best * g->in[j] + st[j];
            double mv = -INFINITY;
            for (int64_t t = 0; t < total; t++) {
                int64_t kc[3], pos = 0;
                unravel(t, g->nd, cnt, kc);
                for (int j = 0; j < g->nd; j++) pos = pos * g->in[j] + st[j] + kc[j] * g->d[j];
                double v = xp[pos];
                if (v > mv || isnan(v)) {
                    mv = v;
                    best = pos;
                }
            }
            o[pl * g->osz + op] = mv;
            oi[pl * g->osz + op] = best;
        }
    }
    free(x);
    outs[0] = wk__nn_finish(w, self->dtype);
    outs[1] = idx;
    if (!outs[0]) {
        wk_release(idx);
        outs[1] = NULL;
        return -1;
    }
    return 0;
}

/* float32 with int64 indices: the scatter in float, planes in parallel (each plane is one thread's). */
typedef struct {
    const float *g;       /* [P, osz] */
    const int64_t *ix;    /* [P, osz] */
    float *o;             /* [P, isz], zeroed here */
    int64_t isz, osz;
    int64_t bad, bad_pos; /* the first plane with an invalid index (P if none), and that index */
} scatter_job;

static void scatter_f32_planes(int64_t p0, int64_t p1, int tid, void *ctx) {
    WK_UNUSED(tid);
    scatter_job *J = ctx;
    for (int64_t pl = p0; pl < p1; pl++) {
        float *o = J->o + pl * J->isz;
        const float *g = J->g + pl * J->osz;
        const int64_t *ix = J->ix + pl * J->osz;
        memset(o, 0, sizeof(float) * (size_t)J->isz);
        for (int64_t i = 0; i < J->osz; i++) {
            int64_t pos = ix[i];
            if (pos < 0 || pos >= J->isz) {
                __atomic_store_n(&J->bad_pos, pos, __ATOMIC_RELAXED);
                __atomic_store_n(&J->bad, pl, __ATOMIC_RELAXED);
                return;
            }
            o[pos] += g[i];
        }
    }
}

/* grad_input[plane, indices[plane, o]] += grad_output[plane, o] */
static wk_tensor *scatter_indices(wk_tensor *grad_output, wk_tensor *self, wk_tensor *indices, int nd) {
    if (wk__numel(grad_output) != wk__numel(indices))
        return WK_FAIL(WK_RUNTIME_ERROR, "pooling backward: grad_output and indices have different sizes");
    int64_t isz = wk__prod(self->sizes + self->ndim - nd, nd);
    int64_t osz = indices->ndim >= nd ? wk__prod(indices->sizes + indices->ndim - nd, nd) : 1;
    int64_t P = isz ? wk__numel(self) / isz : 0;
    if (grad_output->dtype == WK_FLOAT32 && indices->dtype == WK_INT64) {
        wk_tensor *gc = wk__contiguous(grad_output), *ic = wk__contiguous(indices);
        wk_tensor *o = wk__empty(self->ndim, self->sizes, WK_FLOAT32);
        if (!gc || !ic || !o) {
            wk_release(gc), wk_release(ic), wk_release(o);
            return NULL;
        }
        scatter_job J = {(const float *)wk__data(gc), (const int64_t *)wk__data(ic), (float *)wk__data(o), isz, osz,
                         -1, 0};
        int64_t grain = isz + osz >= 20000 ? 1 : 20000 / (isz + osz + 1) + 1;
        wk_parallel_for(0, P, grain, scatter_f32_planes, &J);
        wk_release(gc);
        wk_release(ic);
        if (J.bad >= 0) {
            wk_release(o);
            return WK_FAIL(WK_RUNTIME_ERROR, "Found an invalid max index: %lld", (long long)J.bad_pos);
        }
        return o;
    }
    wk_tensor *w = wk__nn_work(self->ndim, self->sizes);
    double *g = w ? wk__nn_load(grad_output) : NULL;
    int64_t *ix = g ? wk__nn_load_index(indices) : NULL;
    if (!ix) {
        free(g);
        wk_release(w);
        return NULL;
    }
    double *o = wk__nn_data(w);
    for (int64_t pl = 0; pl < P; pl++)
        for (int64_t i = 0; i < osz; i++) {
            int64_t pos = ix[pl * osz + i];
            if (pos < 0 || pos >= isz) {
                free(g);
                free(ix);
                wk_release(w);
                return WK_FAIL(WK_RUNTIME_ERROR, "Found an invalid max index: %lld", (long long)pos);
            }
            o[pl * isz + pos] += g[pl * osz + i];
        }
    free(g);
    free(ix);
    return wk__nn_finish(w, grad_output->dtype);
}

int wk_impl_max_pool2d_with_indices(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                                    wk_intlist dilation, bool ceil_mode, wk_tensor **outs) {
    pool_geom g = {.nd = 2};
    if (pool_params("max_pool2d", 2, kernel_size, stride, padding, dilation, &g, true) < 0 ||
        pool_shape(self, "max_pool2d", &g, ceil_mode, true) < 0)
        return -1;
    return max_pool_fwd(self, &g, outs);
}
int wk_impl_max_pool3d_with_indices(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                                    wk_intlist dilation, bool ceil_mode, wk_tensor **outs) {
    pool_geom g = {.nd = 3};
    if (pool_params("max_pool3d", 3, kernel_size, stride, padding, dilation, &g, true) < 0 ||
        pool_shape(self, "max_pool3d", &g, ceil_mode, true) < 0)
        return -1;
    return max_pool_fwd(self, &g, outs);
}
wk_tensor *wk_impl_max_pool2d_with_indices_backward(wk_tensor *grad_output, wk_tensor *self, wk_intlist kernel_size,
                                                    wk_intlist stride, wk_intlist padding, wk_intlist dilation,
                                                    bool ceil_mode, wk_tensor *indices) {
    WK_UNUSED(kernel_size), WK_UNUSED(stride), WK_UNUSED(padding), WK_UNUSED(dilation), WK_UNUSED(ceil_mode);
    return scatter_indices(grad_output, self, indices, 2);
}
wk_tensor *wk_impl_max_pool3d_with_indices_backward(wk_tensor *grad_output, wk_tensor *self, wk_intlist kernel_size,
                                                    wk_intlist stride, wk_intlist padding, wk_intlist dilation,
                                                    bool ceil_mode, wk_tensor *indices) {
    WK_UNUSED(kernel_size), WK_UNUSED(stride), WK_UNUSED(padding), WK_UNUSED(dilation), WK_UNUSED(ceil_mode);
    return scatter_indices(grad_output, self, indices, 3);
}
/* the adjoint of the scatter: gather grad[plane, indices[plane, o]] (double backward of max pooling) */
wk_tensor *wk_impl__nn_pool_gather(wk_tensor *grad, wk_tensor *indices, int64_t nd) {
    /* nd pooled dims at the end of both; the leading dims (the planes) the same count in both */
    if (nd < 1 || nd > 3 || grad->ndim < nd || indices->ndim < nd)
        return WK_FAIL(WK_RUNTIME_ERROR, "_nn_pool_gather: expected nd in [1, 3] and grad and indices of at least nd "
                                         "dims, got nd=%lld, %dD grad and %dD indices",
                       (long long)nd, grad->ndim, indices->ndim);
    int64_t isz = wk__prod(grad->sizes + grad->ndim - nd, (int)nd);
    int64_t osz = wk__prod(indices->sizes + indices->ndim - nd, (int)nd);
    int64_t P = wk__prod(indices->sizes, indices->ndim - (int)nd);
    if (P != wk__prod(grad->sizes, grad->ndim - (int)nd))
        return WK_FAIL(WK_RUNTIME_ERROR, "_nn_pool_gather: grad has %lld planes and indices %lld",
                       (long long)wk__prod(grad->sizes, grad->ndim - (int)nd), (long long)P);
    wk_tensor *w = wk__nn_work(indices->ndim, indices->sizes);
    double *g = w ? wk__nn_load(grad) : NULL;
    int64_t *ix = g ? wk__nn_load_index(indices) : NULL;
    if (!ix) {
        free(g);
        wk_release(w);
        return NULL;
    }
    double *o = wk__nn_data(w);
    for (int64_t pl = 0; pl < P; pl++)
        for (int64_t i = 0; i < osz; i++) {
            int64_t pos = ix[pl * osz + i];
            o[pl * osz + i] = (pos >= 0 && pos < isz) ? g[pl * isz + pos] : 0;
        }
    free(g);
    free(ix);
    return wk__nn_finish(w, grad->dtype);
}

wk_tensor *wk_impl_max_pool2d(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                              wk_intlist dilation, bool ceil_mode) {
    wk_tensor *outs[2] = {0};
    if (wk_max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}
wk_tensor *wk_impl_max_pool3d(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                              wk_intlist dilation, bool ceil_mode) {
    wk_tensor *outs[2] = {0};
    if (wk_max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}

/* ---- average pooling ---- */
static wk_tensor *avg_pool(wk_tensor *self, pool_geom *g, bool count_include_pad, wk_optint divisor_override,
                           wk_tensor *grad_output) {
    /* forward when grad_output is NULL; else the backward (grad_input) */
    int64_t shape[WK_MAX_DIM];
    out_shape(self, g, shape);
    if (grad_output && wk__numel(grad_output) != g->P * g->osz)
        return WK_FAIL(WK_RUNTIME_ERROR, "avg_pool backward: grad_output has the wrong number of elements");
    wk_tensor *w = grad_output ? wk__nn_work(self->ndim, self->sizes) : wk__nn_work(self->ndim, shape);
    double *x = w ? wk__nn_load(grad_output ? grad_output : self) : NULL;
    if (!x) {
        wk_release(w);
        return NULL;
    }
    double *o = wk__nn_data(w);
    for (int64_t pl = 0; pl < g->P; pl++)
        for (int64_t op = 0; op < g->osz; op++) {
            int64_t oc[3], st[3], en[3], cnt[3];
            int64_t pool = 1, real = 1;
            unravel(op, g->nd, g->out, oc);
            bool empty = false;
            for (int j = 0; j < g->nd; j++) {
                int64_t start = oc[j] * g->s[j] - g->p[j], end = start + g->k[j];
                if (end > g->in[j] + g->p[j]) end = g->in[j] + g->p[j];
                pool *= end - start;
                if (start < 0) start = 0;
                if (end > g->in[j]) end = g->in[j];
                st[j] = start;
                en[j] = end;
                cnt[j] = end - start;
                if (start >= end) empty = true;
                real *= cnt[j] > 0 ? cnt[j] : 0;
            }
            if (empty) {
                if (!grad_output) o[pl * g->osz + op] = 0;
                continue;
            }
            double div = divisor_override.has ? (double)divisor_override.v : (double)(count_include_pad ? pool : real);
            int64_t total = real;
            if (!grad_output) {
                double acc = 0;
                for (int64_t t = 0; t < total; t++) {
                    int64_t kc[3], pos = 0;
                    unravel(t, g->nd, cnt, kc);
                    for (int j = 0; j < g->nd; j++) pos = pos * g->in[j] + st[j] + kc[j];
                    acc += x[pl * g->isz + pos];
                }
                o[pl * g->osz + op] = acc / div;
            } else {
                double gv = x[pl * g->osz + op] / div;
                for (int64_t t = 0; t < total; t++) {
                    int64_t kc[3], pos = 0;
                    unravel(t, g->nd, cnt, kc);
                    for (int j = 0; j < g->nd; j++) pos = pos * g->in[j] + st[j] + kc[j];
                    o[pl * g->isz + pos] += gv;
                }
            }
            WK_UNUSED(en);
        }
    free(x);
    wk_tensor *r = wk__nn_finish(w, self->dtype);
    return r;
}

static int avg_params(wk_tensor *self, int nd, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                      bool ceil_mode, wk_optint divisor_override, pool_geom *g) {
    const char *op = nd == 2 ? "avg_pool2d" : "avg_pool3d";
    g->nd = nd;
    if (self->ndim < nd + 1) { /* torch reads size(-3) first */
        wk__error(WK_INDEX_ERROR, "Dimension out of range (expected to be in range of [-%d, %d], but got %d)",
                  self->ndim ? self->ndim : 1, self->ndim ? self->ndim - 1 : 0, -(nd + 1));
        return -1;
    }
    int64_t one = 1;
    if (pool_params(op, nd, kernel_size, stride, padding, wk_ints(&one, 1), g, false) < 0) return -1;
    if (divisor_override.has && divisor_override.v == 0) return wk__error(WK_RUNTIME_ERROR, "divisor must be not zero"), -1;
    if (pool_shape(self, op, g, ceil_mode, false) < 0) return -1;
    if (self->dtype == WK_BOOL) {
        wk__not_implemented_for(op, WK_BOOL);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_avg_pool2d(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                              bool ceil_mode, bool count_include_pad, wk_optint divisor_override) {
    pool_geom g;
    if (avg_params(self, 2, kernel_size, stride, padding, ceil_mode, divisor_override, &g) < 0) return NULL;
    return avg_pool(self, &g, count_include_pad, divisor_override, NULL);
}
wk_tensor *wk_impl_avg_pool2d_backward(wk_tensor *grad_output, wk_tensor *self, wk_intlist kernel_size,
                                       wk_intlist stride, wk_intlist padding, bool ceil_mode, bool count_include_pad,
                                       wk_optint divisor_override) {
    pool_geom g;
    if (avg_params(self, 2, kernel_size, stride, padding, ceil_mode, divisor_override, &g) < 0) return NULL;
    return avg_pool(self, &g, count_include_pad, divisor_override, grad_output);
}
wk_tensor *wk_impl_avg_pool3d(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                              bool ceil_mode, bool count_include_pad, wk_optint divisor_override) {
    pool_geom g;
    if (avg_params(self, 3, kernel_size, stride, padding, ceil_mode, divisor_override, &g) < 0) return NULL;
    return avg_pool(self, &g, count_include_pad, divisor_override, NULL);
}
wk_tensor *wk_impl_avg_pool3d_backward(wk_tensor *grad_output, wk_tensor *self, wk_intlist kernel_size,
                                       wk_intlist stride, wk_intlist padding, bool ceil_mode, bool count_include_pad,
                                       wk_optint divisor_override) {
    pool_geom g;
    if (avg_params(self, 3, kernel_size, stride, padding, ceil_mode, divisor_override, &g) < 0) return NULL;
    return avg_pool(self, &g, count_include_pad, divisor_override, grad_output);
}

/* ---- adaptive pooling: window [floor(o * in / out), ceil((o + 1) * in / out)) ---- */
static int adaptive_check(const wk_tensor *self, wk_intlist output_size, int nd, const char *op, pool_geom *g,
                          bool max) {
    if (output_size.len != nd) {
        wk__error(WK_RUNTIME_ERROR, "%s: output_size must be %d", op, nd);
        return -1;
    }
    for (int j = 0; j < nd; j++)
        if (output_size.data[j] < 0) {
            wk_strbuf b = {0};
            for (int i = 0; i < nd; i++) wk_sb_printf(&b, "%s%lld", i ? ", " : "{", (long long)output_size.data[i]);
            wk_sb_puts(&b, "}");
            wk__error(WK_RUNTIME_ERROR, "%s: elements of output_size must be greater than or equal to 0 but received %s",
                      op, b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
    if (self->ndim != nd + 1 && self->ndim != nd + 2) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "%s(): Expected %dD or %dD tensor, but got%s %s", op, nd + 1, nd + 2, max ? ":" : "",
                  b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    for (int i = 1; i < self->ndim; i++)
        if (self->sizes[i] == 0) {
            wk_strbuf b = {0};
            wk_sb_ints(&b, self->sizes, self->ndim);
            wk__error(WK_RUNTIME_ERROR,
                      "%s(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with "
                      "dimension %d being empty",
                      op, b.s ? b.s : "", i);
            wk_sb_free(&b);
            return -1;
        }
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for(op, self->dtype);
        return -1;
    }
    g->nd = nd;
    g->P = wk__prod(self->sizes, self->ndim - nd);
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    for (int j = 0; j < nd; j++) {
        g->in[j] = self->sizes[self->ndim - nd + j];
        g->out[j] = output_size.data[j];
        shape[self->ndim - nd + j] = g->out[j];
    }
    if (wk__check_sizes(self->ndim, shape) < 0) return -1;
    geom_sizes(g);
    return 0;
}

static inline int64_t ad_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
static inline int64_t ad_end(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

/* mode 0: avg forward; 1: avg backward; 2: max forward (indices) */
static int adaptive_run(const pool_geom *g, const double *x, double *o, int64_t *oi, int mode) {
    for (int64_t pl = 0; pl < g->P; pl++)
        for (int64_t op = 0; op < g->osz; op++) {
            int64_t oc[3], st[3], cnt[3], total = 1;
            unravel(op, g->nd, g->out, oc);
            for (int j = 0; j < g->nd; j++) {
                st[j] = ad_start(oc[j], g->in[j], g->out[j]);
                cnt[j] = ad_end(oc[j], g->in[j], g->out[j]) - st[j];
                total *= cnt[j];
            }
            double acc = 0, mv = -INFINITY, gv = mode == 1 ? x[pl * g->osz + op] / (double)total : 0;
            int64_t best = 0;
            for (int j = 0; j < g->nd; j++) best = best * g->in[j] + st[j];
            for (int64_t t = 0; t < total; t++) {
                int64_t kc[3], pos = 0;
                unravel(t, g->nd, cnt, kc);
                for (int j = 0; j < g->nd; j++) pos = pos * g->in[j] + st[j] + kc[j];
                if (mode == 0) acc += x[pl * g->isz + pos];
                else if (mode == 1) o[pl * g->isz + pos] += gv;
                else {
                    double v = x[pl * g->isz + pos];
                    if (v > mv || isnan(v)) {
                        mv = v;
                        best = pos;
                    }
                }
            }
            if (mode == 0) o[pl * g->osz + op] = acc / (double)total;
            else if (mode == 2) {
                o[pl * g->osz + op] = mv;
                oi[pl * g->osz + op] = best;
            }
        }
    return 0;
}

static wk_tensor *adaptive_avg(wk_tensor *self, wk_intlist output_size, int nd) {
    pool_geom g;
    if (adaptive_check(self, output_size, nd, nd == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d", &g, false) < 0)
        return NULL;
    int64_t shape[WK_MAX_DIM];
    out_shape(self, &g, shape);
    wk_tensor *w = wk__nn_work(self->ndim, shape);
    double *x = w ? wk__nn_load(self) : NULL;
    if (!x) {
        wk_release(w);
        return NULL;
    }
    adaptive_run(&g, x, wk__nn_data(w), NULL, 0);
    free(x);
    return wk__nn_finish(w, self->dtype);
}

static wk_tensor *adaptive_avg_backward(wk_tensor *grad_output, wk_tensor *self, int nd) {
    pool_geom g;
    if (grad_output->ndim != self->ndim) return WK_FAIL(WK_RUNTIME_ERROR, "adaptive_avg_pool backward: bad grad_output");
    wk_intlist os = wk_ints(grad_output->sizes + grad_output->ndim - nd, nd);
    if (adaptive_check(self, os, nd, nd == 2 ? "adaptive_avg_pool2d_backward" : "adaptive_avg_pool3d_backward", &g, false) < 0)
        return NULL;
    wk_tensor *w = wk__nn_work(self->ndim, self->sizes);
    double *x = w ? wk__nn_load(grad_output) : NULL;
    if (!x) {
        wk_release(w);
        return NULL;
    }
    adaptive_run(&g, x, wk__nn_data(w), NULL, 1);
    free(x);
    return wk__nn_finish(w, grad_output->dtype);
}

wk_tensor *wk_impl__adaptive_avg_pool2d(wk_tensor *self, wk_intlist output_size) { return adaptive_avg(self, output_size, 2); }
wk_tensor *wk_impl__adaptive_avg_pool3d(wk_tensor *self, wk_intlist output_size) { return adaptive_avg(self, output_size, 3); }
wk_tensor *wk_impl__adaptive_avg_pool2d_backward(wk_tensor *grad_output, wk_tensor *self) {
    return adaptive_avg_backward(grad_output, self, 2);
}
wk_tensor *wk_impl__adaptive_avg_pool3d_backward(wk_tensor *grad_output, wk_tensor *self) {
    return adaptive_avg_backward(grad_output, self, 3);
}

/* adaptive_avg_pool2d: an output of 1x1 is a mean over the last two dims (MeanBackward1, as torch) */
static wk_tensor *adaptive_avg_public(wk_tensor *self, wk_intlist output_size, int nd) {
    const char *op = nd == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d";
    pool_geom g;
    if (adaptive_check(self, output_size, nd, op, &g, false) < 0) return NULL;
    bool ones = true;
    for (int j = 0; j < nd; j++) ones &= output_size.data[j] == 1;
    if (ones) {
        int64_t dims[3] = {-1, -2, -3};
        return wk_mean_dim(self, wk_ints(dims, nd), true, WK_DTYPE_NONE);
    }
    return nd == 2 ? wk__adaptive_avg_pool2d(self, output_size) : wk__adaptive_avg_pool3d(self, output_size);
}
wk_tensor *wk_impl_adaptive_avg_pool2d(wk_tensor *self, wk_intlist output_size) {
    return adaptive_avg_public(self, output_size, 2);
}
wk_tensor *wk_impl_adaptive_avg_pool3d(wk_tensor *self, wk_intlist output_size) {
    return adaptive_avg_public(self, output_size, 3);
}

static int adaptive_max(wk_tensor *self, wk_intlist output_size, int nd, wk_tensor **outs) {
    pool_geom g;
    if (adaptive_check(self, output_size, nd, nd == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d", &g, true) < 0)
        return -1;
    int64_t shape[WK_MAX_DIM];
    out_shape(self, &g, shape);
    wk_tensor *w = wk__nn_work(self->ndim, shape), *idx = wk__empty(self->ndim, shape, WK_INT64);
    double *x = (w && idx) ? wk__nn_load(self) : NULL;
    if (!x) {
        wk_release(w);
        wk_release(idx);
        return -1;
    }
    adaptive_run(&g, x, wk__nn_data(w), (int64_t *)wk__data(idx), 2);
    free(x);
    outs[0] = wk__nn_finish(w, self->dtype);
    outs[1] = idx;
    if (!outs[0]) {
        wk_release(idx);
        outs[1] = NULL;
        return -1;
    }
    return 0;
}
int wk_impl_adaptive_max_pool2d(wk_tensor *self, wk_intlist output_size, wk_tensor **outs) {
    return adaptive_max(self, output_size, 2, outs);
}
int wk_impl_adaptive_max_pool3d(wk_tensor *self, wk_intlist output_size, wk_tensor **outs) {
    return adaptive_max(self, output_size, 3, outs);
}
wk_tensor *wk_impl_adaptive_max_pool2d_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *indices) {
    return scatter_indices(grad_output, self, indices, 2);
}
wk_tensor *wk_impl_adaptive_max_pool3d_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *indices) {
    return scatter_indices(grad_output, self, indices, 3);
}

/* ---- 1-d forms: a size-1 dim inserted before the last, the 2-d op, and the dim removed ---- */
static wk_tensor *add_h(wk_tensor *t) { return wk__nn_unsqueeze(t, -2); }
static wk_tensor *drop_h(wk_tensor *t) {
    if (!t) return NULL;
    wk_tensor *r = wk__nn_squeeze(t, -2);
    wk_release(t);
    return r;
}

static int check_1d(const wk_tensor *self, const char *op) {
    if (self->ndim != 2 && self->ndim != 3) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_RUNTIME_ERROR, "%s: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:%s",
                  op, b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

static int pool1d_lists(wk_intlist kernel_size, wk_intlist stride, wk_intlist padding, wk_intlist dilation,
                        int64_t *k, int64_t *s, int64_t *p, int64_t *d, int64_t *ns) {
    /* 2-d parameters: (1, x) */
    k[0] = 1, k[1] = kernel_size.len ? kernel_size.data[0] : 1;
    s[0] = 1, s[1] = (stride.len > 0 && stride.data) ? stride.data[0] : k[1];
    p[0] = 0, p[1] = padding.len ? padding.data[0] : 0;
    d[0] = 1, d[1] = dilation.len ? dilation.data[0] : 1;
    *ns = 2;
    if (kernel_size.len != 1) return -1;
    return 0;
}

int wk_impl_max_pool1d_with_indices(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                                    wk_intlist dilation, bool ceil_mode, wk_tensor **outs) {
    if (check_1d(self, "max_pool1d") < 0) return -1;
    int64_t k[2], s[2], p[2], d[2], n;
    if (pool1d_lists(kernel_size, stride, padding, dilation, k, s, p, d, &n) < 0)
        return wk__error(WK_RUNTIME_ERROR, "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size %lld",
                         (long long)kernel_size.len), -1;
    if (k[1] <= 0) return wk__error(WK_RUNTIME_ERROR, "max_pool1d() kernel_size must be greater than zero, but got %lld", (long long)k[1]), -1;
    if (s[1] <= 0) return wk__error(WK_RUNTIME_ERROR, "max_pool1d() stride must be greater than zero, but got %lld", (long long)s[1]), -1;
    if (p[1] < 0) return wk__error(WK_RUNTIME_ERROR, "max_pool1d() padding must be non-negative, but got %lld", (long long)p[1]), -1;
    if (p[1] > k[1] / 2)
        return wk__error(WK_RUNTIME_ERROR, "max_pool1d() padding should be at most half of kernel size, but got padding=%lld and kernel_size=%lld",
                         (long long)p[1], (long long)k[1]), -1;
    if (d[1] <= 0) return wk__error(WK_RUNTIME_ERROR, "max_pool1d() dilation must be greater than zero, but got %lld", (long long)d[1]), -1;
    int64_t ow = pool_out(self->sizes[self->ndim - 1], k[1], p[1], s[1], d[1], ceil_mode);
    if (ow < 0) return wk__error(WK_RUNTIME_ERROR, "max_pool1d() Invalid computed output size: %lld", (long long)ow), -1;
    if (ow == 0) return wk__error(WK_RUNTIME_ERROR, "max_pool1d() Invalid computed output size: 0"), -1;
    wk_tensor *x = add_h(self);
    if (!x) return -1;
    wk_tensor *o2[2] = {0};
    int rc = wk_max_pool2d_with_indices(x, wk_ints(k, 2), wk_ints(s, 2), wk_ints(p, 2), wk_ints(d, 2), ceil_mode, o2);
    wk_release(x);
    if (rc < 0) return -1;
    outs[0] = drop_h(o2[0]);
    outs[1] = drop_h(o2[1]);
    if (!outs[0] || !outs[1]) {
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    return 0;
}

wk_tensor *wk_impl_max_pool1d(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                              wk_intlist dilation, bool ceil_mode) {
    wk_tensor *outs[2] = {0};
    if (wk_max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode, outs) < 0) return NULL;
    wk_release(outs[1]);
    return outs[0];
}

wk_tensor *wk_impl_avg_pool1d(wk_tensor *self, wk_intlist kernel_size, wk_intlist stride, wk_intlist padding,
                              bool ceil_mode, bool count_include_pad) {
    if (self->ndim != 2 && self->ndim != 3) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking "
                  "arguments for avg_pool1d)",
                  self->ndim);
        return NULL;
    }
    int64_t k[2], s[2], p[2], d[2], n;
    int64_t one = 1;
    if (pool1d_lists(kernel_size, stride, padding, wk_ints(&one, 1), k, s, p, d, &n) < 0)
        return WK_FAIL(WK_RUNTIME_ERROR, "avg_pool1d() argument 'kernel_size' should contain one int (got %lld)",
                       (long long)kernel_size.len);
    wk_tensor *x = add_h(self);
    if (!x) return NULL;
    wk_tensor *r = wk_avg_pool2d(x, wk_ints(k, 2), wk_ints(s, 2), wk_ints(p, 2), ceil_mode, count_include_pad, wk_none_int());
    wk_release(x);
    return drop_h(r);
}

wk_tensor *wk_impl_adaptive_avg_pool1d(wk_tensor *self, wk_intlist output_size) {
    if (output_size.len != 1) return WK_FAIL(WK_RUNTIME_ERROR, "adaptive_avg_pool1d: output_size must be 1");
    if (self->ndim != 2 && self->ndim != 3) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking "
                  "arguments for adaptive_avg_pool1d)",
                  self->ndim);
        return NULL;
    }
    int64_t os[2] = {1, output_size.data[0]};
    wk_tensor *x = add_h(self);
    if (!x) return NULL;
    wk_tensor *r = wk_adaptive_avg_pool2d(x, wk_ints(os, 2));
    wk_release(x);
    return drop_h(r);
}

int wk_impl_adaptive_max_pool1d(wk_tensor *self, wk_intlist output_size, wk_tensor **outs) {
    if (output_size.len != 1) return wk__error(WK_RUNTIME_ERROR, "adaptive_max_pool1d: output_size must be 1"), -1;
    if (self->ndim != 2 && self->ndim != 3) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking "
                  "arguments for adaptive_max_pool1d)",
                  self->ndim);
        return -1;
    }
    int64_t os[2] = {1, output_size.data[0]};
    wk_tensor *x = add_h(self);
    if (!x) return -1;
    wk_tensor *o2[2] = {0};
    int rc = wk_adaptive_max_pool2d(x, wk_ints(os, 2), o2);
    wk_release(x);
    if (rc < 0) return -1;
    outs[0] = drop_h(o2[0]);
    outs[1] = drop_h(o2[1]);
    if (!outs[0] || !outs[1]) {
        wk_release(outs[0]);
        wk_release(outs[1]);
        return -1;
    }
    return 0;
}
