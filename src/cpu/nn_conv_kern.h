/* nn_conv_kern.h — the direct convolution kernels (Note [Direct convolution], nn_conv.c), written once on
 * src/cpu/simd.h's vector type and compiled per instruction set: nn_conv_avx2.c, nn_conv_avx512.c, and the
 * portable / wasm instance in nn_conv.c. The including file defines WK_DCONV_SUF (the name suffix) after
 * including cpu/simd.h.
 *
 * The source image is zero-padded into xp (channel planes, rows Wp wide), and the destination is computed on a
 * "wide grid" of Hd x Wp positions, l' = oh * Wp + ow: every tap r (a source channel and a kernel offset) then
 * reads xp at the constant offset off[r] from l' — the im2col matrix row r is xp shifted by off[r], read in place.
 * Columns ow >= Wd of the wide grid are garbage: the forward drops them, the weight gradient multiplies them by
 * zero (so the caller checks that the source is finite). */
#ifndef WK_DCONV_DESC
#define WK_DCONV_DESC
#include <stdint.h>
typedef struct {
    int64_t Rn;         /* taps: source channels x kernel positions */
    const int64_t *off; /* [Rn] offset of each tap in xp */
    int64_t Cd;         /* destination channels */
    const float *wT;    /* forward: [ceil(Cd / 6), Rn, 6] weights, blocks of 6 channels (zero past Cd), tap-major */
    int64_t Lw;         /* wide grid positions (Hd * Wq) */
    int64_t Wd, Wq;     /* a row's valid positions and the wide grid's row length (Wd <= Wq) */
    int64_t ldl;        /* row length of the wide buffers: >= Lw + 64 (tiles are at most 64 positions) */
} wk__dconv;
enum { WK_DCONV_WR = 4, WK_DCONV_WC = 3 }; /* weight-gradient tile: output channels x taps */
typedef struct {
    int vl; /* float lanes of the vector accumulators (the weight gradient's partial sums) */
    /* dw [o1 - o0, ldl] (wide grid) = sum_r wT[r, o] * xp[off[r] + l'] for channels o in [o0, o1), one image */
    void (*fwd)(const wk__dconv *D, const float *xp, int64_t o0, int64_t o1, float *dw);
    /* acc [tile][WR * WC][vl] += aw [rows, ldl] x the taps of xp, tiles = the 4-row blocks of aw (nob) x the
     * 3-tap blocks of [0, Rn); aw rows past `rows` and taps past Rn are clamped (computed, never read) */
    void (*wgrad)(const wk__dconv *D, const float *aw, int64_t rows, const float *xp, float *acc);
    /* the weight gradient with CB = nv * vl channels (nv 1 or 2) in the lanes: cacc [Rn, CB] (+)= sum_l' at [l', CB]
     * times xp[off[r] + l'], for the taps [r0, r1); at's garbage positions are zero */
    void (*wgrad_cv)(const wk__dconv *D, const float *at, const float *xp, int64_t r0, int64_t r1, int nv,
                     float *cacc);
    /* forward with CB = (vl >= 16 ? 4 : 2) vl destination channels in the lanes, for any positions: dst [npos
     * (rounded up to a tile), CB] (+)= sum_{r in [r0, r1)} wc [r, CB] * xp[base[p] + off[r]] (small images: no wide-grid garbage, several
     * images); r0 > 0 continues the sums held in dst (exact: the same chain of fused multiply-adds) */
    void (*fwd_cv)(const wk__dconv *D, const float *wc, const float *xp, const int64_t *base, int64_t npos,
                   int64_t r0, int64_t r1, float *dst);
} wk__dconv_kern;
#endif

#ifdef WK_DCONV_SUF
#define WK_DCONV_CAT2(a, b) a##b
#define WK_DCONV_CAT(a, b) WK_DCONV_CAT2(a, b)
#define WK_DCONV_FN(name) WK_DCONV_CAT(name, WK_DCONV_SUF)

/* MR destination channels (o0..) x NV vectors of positions: the wide-grid tile at l0 */
static inline __attribute__((always_inline)) void WK_DCONV_FN(dconv_tile_)(const wk__dconv *D, const float *xp,
                                                                           float *dw, int64_t o0, int rows,
                                                                           int64_t l0, const int MR, const int NV) {
    const int64_t Rn = D->Rn, ldl = D->ldl;
    const int64_t *off = D->off;
    wk_vf acc[12][4];
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[i][v] = vf_zero();
    /* rows i < 6 from o0's block (MR <= 6 - o0 % 6), rows 6..11 from the next (MR = 12: o0 % 6 == 0) */
    const float *w = D->wT + o0 / 6 * Rn * 6 + o0 % 6, *w2 = w + Rn * 6;
    for (int64_t r = 0; r < Rn; r++, w += 6, w2 += 6) {
        const float *x = xp + off[r] + l0;
        wk_vf xv[4];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) xv[v] = vf_loadu(x + v * WK_VL);
#pragma GCC unroll 12
        for (int i = 0; i < MR; i++) {
            wk_vf wv = vf_set1(i < 6 ? w[i] : w2[i - 6]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) acc[i][v] = vf_fma(wv, xv[v], acc[i][v]);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++)
        if (i < rows)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) vf_storeu(dw + (o0 + i) * ldl + l0 + v * WK_VL, acc[i][v]);
}

/* every wide-grid tile; with NV = 2, a last tile of at most one vector of positions takes one vector (the strided
 * forward's wide grid, 16 x 17 = 8.5 tiles of 32 for ResNet l2_down). Rows a whole number of tiles wide go row by
 * row and skip the garbage columns (ResNet l2, 16 of 18 under AVX2: 11% of the work) */
static inline __attribute__((always_inline)) void WK_DCONV_FN(dconv_rows_)(const wk__dconv *D, const float *xp,
                                                                           float *dw, int64_t o0, int rows,
                                                                           const int MR, const int NV) {
    if (D->Wd % (NV * WK_VL) == 0 && D->Wq > D->Wd) {
        for (int64_t h0 = 0; h0 < D->Lw; h0 += D->Wq)
            for (int64_t l0 = h0; l0 < h0 + D->Wd; l0 += NV * WK_VL)
                WK_DCONV_FN(dconv_tile_)(D, xp, dw, o0, rows, l0, MR, NV);
        return;
    }
    for (int64_t l0 = 0; l0 < D->Lw; l0 += NV * WK_VL)
        if (NV == 2 && D->Lw - l0 <= WK_VL)
            WK_DCONV_FN(dconv_tile_)(D, xp, dw, o0, rows, l0, MR, 1);
        else
            WK_DCONV_FN(dconv_tile_)(D, xp, dw, o0, rows, l0, MR, NV);
}

static void WK_DCONV_FN(dconv_fwd_)(const wk__dconv *D, const float *xp, int64_t o0, int64_t o1, float *dw) {
    dw -= o0 * D->ldl;
    for (; WK_VL >= 16 && o1 - o0 >= 10; o0 += 12) /* AVX-512: 12 x 2 vectors (24 of the 32 registers) */
        WK_DCONV_FN(dconv_rows_)(D, xp, dw, o0, o1 - o0 < 12 ? (int)(o1 - o0) : 12, 12, 2);
    for (; o1 - o0 >= 4; o0 += 6) /* 6-channel blocks (a last one of 4..5 computes zero weights) */
        WK_DCONV_FN(dconv_rows_)(D, xp, dw, o0, o1 - o0 < 6 ? (int)(o1 - o0) : 6, 6, 2);
    for (; o1 - o0 >= 2; o0 += 3)
        WK_DCONV_FN(dconv_rows_)(D, xp, dw, o0, o1 - o0 < 3 ? (int)(o1 - o0) : 3, 3, 3);
    for (; o0 < o1; o0++) WK_DCONV_FN(dconv_rows_)(D, xp, dw, o0, 1, 1, 4);
}

static void WK_DCONV_FN(dconv_wgrad_)(const wk__dconv *D, const float *aw, int64_t rows, const float *xp,
                                      float *acc) {
    const int64_t Rn = D->Rn, ldl = D->ldl, Lw = D->Lw;
    const int64_t *off = D->off;
    for (int64_t o0 = 0; o0 < rows; o0 += WK_DCONV_WR)
        for (int64_t r0 = 0; r0 < Rn; r0 += WK_DCONV_WC, acc += WK_DCONV_WR * WK_DCONV_WC * WK_VL) {
            const float *a[WK_DCONV_WR], *x[WK_DCONV_WC];
            for (int i = 0; i < WK_DCONV_WR; i++) a[i] = aw + (o0 + i < rows ? o0 + i : rows - 1) * ldl;
            for (int j = 0; j < WK_DCONV_WC; j++) x[j] = xp + off[r0 + j < Rn ? r0 + j : Rn - 1];
            wk_vf s[WK_DCONV_WR][WK_DCONV_WC];
#pragma GCC unroll 4
            for (int i = 0; i < WK_DCONV_WR; i++)
#pragma GCC unroll 3
                for (int j = 0; j < WK_DCONV_WC; j++) s[i][j] = vf_loadu(acc + (i * WK_DCONV_WC + j) * WK_VL);
            for (int64_t l = 0; l < Lw; l += WK_VL) {
                wk_vf xv[WK_DCONV_WC];
#pragma GCC unroll 3
                for (int j = 0; j < WK_DCONV_WC; j++) xv[j] = vf_loadu(x[j] + l);
#pragma GCC unroll 4
                for (int i = 0; i < WK_DCONV_WR; i++) {
                    wk_vf av = vf_loadu(a[i] + l);
#pragma GCC unroll 3
                    for (int j = 0; j < WK_DCONV_WC; j++) s[i][j] = vf_fma(av, xv[j], s[i][j]);
                }
            }
#pragma GCC unroll 4
            for (int i = 0; i < WK_DCONV_WR; i++)
#pragma GCC unroll 3
                for (int j = 0; j < WK_DCONV_WC; j++) vf_storeu(acc + (i * WK_DCONV_WC + j) * WK_VL, s[i][j]);
        }
}

/* taps [r, r + NR) of [r0, r1) by positions in chunks of 256 (at's chunk stays in L1 across the taps), NV vectors of
 * channels (CB = NV * vl); every sum runs over the valid l' in order (the wide grid's garbage columns are skipped, so
 * only im2col's entries enter the sums, padding zeros included: 0 * inf is NaN where the reference has it, and the
 * source needs no finiteness check), the accumulators reloaded from cacc between chunks (exact). A last partial
 * tile clamps its taps: the repeated tap computes the same value and stores it again. */
static inline __attribute__((always_inline)) void WK_DCONV_FN(dconv_wgrad_cv_body_)(const wk__dconv *D,
                                                                                    const float *at, const float *xp,
                                                                                    int64_t r0, int64_t r1,
                                                                                    float *cacc, const int NV) {
    enum { NR = WK_VL >= 16 ? 12 : 6 };
    const int64_t Lw = D->Lw, CB = NV * WK_VL;
    for (int64_t l0 = 0; l0 < Lw; l0 += 256) {
        const int64_t l1 = Lw - l0 < 256 ? Lw : l0 + 256;
        for (int64_t r = r0; r < r1; r += NR) {
            const float *x[NR];
            float *c[NR];
            wk_vf acc[NR][2];
#pragma GCC unroll 12
            for (int j = 0; j < NR; j++) {
                int64_t rj = r + j < r1 ? r + j : r1 - 1;
                x[j] = xp + D->off[rj];
                c[j] = cacc + rj * CB;
#pragma GCC unroll 2
                for (int v = 0; v < NV; v++) acc[j][v] = vf_loadu(c[j] + v * WK_VL);
            }
            for (int64_t h0 = l0 / D->Wq * D->Wq; h0 < l1; h0 += D->Wq) { /* the valid part of each row */
                const int64_t s1 = h0 + D->Wd < l1 ? h0 + D->Wd : l1;
                const float *a = at + (h0 > l0 ? h0 : l0) * CB;
                for (int64_t l = h0 > l0 ? h0 : l0; l < s1; l++, a += CB) {
                    wk_vf av[2];
#pragma GCC unroll 2
                    for (int v = 0; v < NV; v++) av[v] = vf_loadu(a + v * WK_VL);
#pragma GCC unroll 12
                    for (int j = 0; j < NR; j++) {
                        const wk_vf xv = vf_set1(x[j][l]);
#pragma GCC unroll 2
                        for (int v = 0; v < NV; v++) acc[j][v] = vf_fma(av[v], xv, acc[j][v]);
                    }
                }
            }
#pragma GCC unroll 12
            for (int j = 0; j < NR; j++)
#pragma GCC unroll 2
                for (int v = 0; v < NV; v++) vf_storeu(c[j] + v * WK_VL, acc[j][v]);
        }
    }
}

static void WK_DCONV_FN(dconv_wgrad_cv_)(const wk__dconv *D, const float *at, const float *xp, int64_t r0, int64_t r1,
                                         int nv, float *cacc) {
    if (nv == 2)
        WK_DCONV_FN(dconv_wgrad_cv_body_)(D, at, xp, r0, r1, cacc, 2);
    else
        WK_DCONV_FN(dconv_wgrad_cv_body_)(D, at, xp, r0, r1, cacc, 1);
}

/* one tile: positions [p0, p0 + NP) (those past npos repeat the last one) x NV vectors of channels, taps [r0, r1) */
static inline __attribute__((always_inline)) void WK_DCONV_FN(dconv_fwd_cv_tile_)(const int64_t *off, const float *wc,
                                                                                  const float *xp, const int64_t *base,
                                                                                  int64_t p0, int64_t npos, int64_t r0,
                                                                                  int64_t r1, float *dst, const int NP) {
    enum { NV = WK_VL >= 16 ? 4 : 2, CB = NV * WK_VL };
    const float *x[6];
    wk_vf acc[6][NV];
#pragma GCC unroll 6
    for (int j = 0; j < NP; j++) {
        x[j] = xp + base[p0 + j < npos ? p0 + j : npos - 1];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[j][v] = r0 == 0 ? vf_zero() : vf_loadu(dst + (p0 + j) * CB + v * WK_VL);
    }
    const float *w = wc + r0 * CB;
#pragma GCC unroll 2
    for (int64_t r = r0; r < r1; r++, w += CB) {
        wk_vf wv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) wv[v] = vf_loadu(w + v * WK_VL);
        const int64_t o = off[r];
#pragma GCC unroll 6
        for (int j = 0; j < NP; j++) {
            const wk_vf xv = vf_set1(x[j][o]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) acc[j][v] = vf_fma(wv[v], xv, acc[j][v]);
        }
    }
#pragma GCC unroll 6
    for (int j = 0; j < NP; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) vf_storeu(dst + (p0 + j) * CB + v * WK_VL, acc[j][v]);
}

/* taps [r0, r1) for every tile of 6 positions x NV vectors of channels (CB = NV vl; AVX-512: 6 x 4, AVX2 and
 * narrower: 6 x 2 — per tap NV weight loads and 6 broadcasts feed 6 NV fused multiply-adds), the last 1-5
 * positions by tiles of 2 (8 accumulators still cover the latency on AVX-512: a 6-tile would waste up to 3% of
 * l4's 128 positions a job); the caller keeps wc's rows [r0, r1) and the xp planes they read in L1 (a chunk of
 * source channels) and runs the chunks in order */
static void WK_DCONV_FN(dconv_fwd_cv_)(const wk__dconv *D, const float *wc, const float *xp, const int64_t *base,
                                      int64_t npos, int64_t r0, int64_t r1, float *dst) {
    enum { NV = WK_VL >= 16 ? 4 : 2, CB = NV * WK_VL };
    const int64_t *off = D->off;
    /* the next chunk's weights (the next rows of wc, or the next block's first: contiguous) are fetched a part per
     * tile, so they are in cache when it starts (weights streamed from memory cost ~9% otherwise) */
    const char *pf = (const char *)(wc + r1 * CB);
    const int64_t nt = npos / 6, pfl = (r1 - r0) * CB * 4 / 64; /* full tiles; lines to fetch */
    int64_t p0 = 0;
    for (int64_t t = 0; t < nt; p0 += 6, t++) {
        for (int64_t l = t * pfl / nt; l < (t + 1) * pfl / nt; l++) __builtin_prefetch(pf + l * 64, 0, 2);
        WK_DCONV_FN(dconv_fwd_cv_tile_)(off, wc, xp, base, p0, npos, r0, r1, dst, 6);
    }
    for (; p0 < npos; p0 += 2) WK_DCONV_FN(dconv_fwd_cv_tile_)(off, wc, xp, base, p0, npos, r0, r1, dst, 2);
}

#endif

/* The weight gradient on channels-last operands (Note [Weight gradient, channels last], nn_conv.c): for each tile t,
 * cacc [t][nr][2 vl] (+)= sum_{p < np} xt[toff[t] + rowoff[p] + j] * at[p * lda + (0 .. 2 vl)], j < nr; nr is
 * 6, 8 or 12 (12 only where vl >= 16: 24 accumulators) */
#ifndef WK_DCONV_CL_DESC
#define WK_DCONV_CL_DESC
typedef void (*wk__dconv_wgrad_cl_fn)(const float *at, int64_t lda, const float *xt, const int64_t *rowoff,
                                      int64_t np, const int64_t *toff, int64_t ntile, int nr, float *cacc);
#endif

#ifdef WK_DCONV_SUF
/* NR source channels (broadcast from one xt row per position) x 2 vectors of destination channels (at's row); the
 * accumulators loaded from and stored back to cacc around the positions, so chunks of positions continue exactly */
static inline __attribute__((always_inline)) void WK_DCONV_FN(dconv_wgrad_cl_body_)(const float *at, int64_t lda,
                                                                                    const float *xt,
                                                                                    const int64_t *rowoff, int64_t np,
                                                                                    const int64_t *toff, int64_t ntile,
                                                                                    float *cacc, const int NR) {
    enum { CB = 2 * WK_VL };
    for (int64_t t = 0; t < ntile; t++, cacc += NR * CB) {
        wk_vf acc[12][2];
#pragma GCC unroll 12
        for (int j = 0; j < NR; j++) {
            acc[j][0] = vf_loadu(cacc + j * CB);
            acc[j][1] = vf_loadu(cacc + j * CB + WK_VL);
        }
        const float *x = xt + toff[t], *a = at;
        for (int64_t p = 0; p < np; p++, a += lda) {
            const float *xr = x + rowoff[p];
            const wk_vf a0 = vf_loadu(a), a1 = vf_loadu(a + WK_VL);
#pragma GCC unroll 12
            for (int j = 0; j < NR; j++) {
                const wk_vf xv = vf_set1(xr[j]);
                acc[j][0] = vf_fma(a0, xv, acc[j][0]);
                acc[j][1] = vf_fma(a1, xv, acc[j][1]);
            }
        }
#pragma GCC unroll 12
        for (int j = 0; j < NR; j++) {
            vf_storeu(cacc + j * CB, acc[j][0]);
            vf_storeu(cacc + j * CB + WK_VL, acc[j][1]);
        }
    }
}

static void WK_DCONV_FN(dconv_wgrad_cl_)(const float *at, int64_t lda, const float *xt, const int64_t *rowoff,
                                         int64_t np, const int64_t *toff, int64_t ntile, int nr, float *cacc) {
    if (WK_VL >= 16 && nr == 12)
        WK_DCONV_FN(dconv_wgrad_cl_body_)(at, lda, xt, rowoff, np, toff, ntile, cacc, 12);
    else if (nr == 8)
        WK_DCONV_FN(dconv_wgrad_cl_body_)(at, lda, xt, rowoff, np, toff, ntile, cacc, 8);
    else
        WK_DCONV_FN(dconv_wgrad_cl_body_)(at, lda, xt, rowoff, np, toff, ntile, cacc, 6);
}
#endif
