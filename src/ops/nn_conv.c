/* nn_conv.c — convolution (1-3 spatial dims, stride, padding, dilation, groups, transposed) and its backward ops,
 * through im2col / col2im and a plain matrix-product loop on float64 working buffers (Note [nn working
 * precision]); conv1d/2d/3d and conv_transpose1d/2d/3d are the composites torch exposes (unbatched input,
 * padding='same'/'valid').
 *
 * Note [Convolution as one relation]: a convolution relates an "image" side (spatial sizes In) and a "columns"
 * side (spatial sizes L) by  pos_j = l_j * stride_j - pad_j + k_j * dilation_j.  A normal convolution reads the
 * image (its input) and writes the columns (its output); a transposed one reads the columns (its input) and writes
 * the image (its output). So three kernels serve both and all their gradients:
 *   cols_from_image(B, W) -> A :  A[n, o, l] = sum_r W[o, r] * im2col(B[n])[r, l]
 *   image_from_cols(A, W) -> B :  B[n] = col2im(sum_o W[o, r] * A[n, o, l])
 *   weight_grad(A, B)     -> W :  W[o, r] = sum_n sum_l A[n, o, l] * im2col(B[n])[r, l]
 * with per-group blocks of channels. Normal: A = output [N, Cout, L], B = input [N, Cin, I], W = [Cout, Cin/g*K].
 * Transposed: A = input [N, Cin, L], B = output [N, Cout, I], W = [Cin, Cout/g*K]. */
#include "ops/nn.h"

#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <stdatomic.h>

#include "cpu/alloc.h"
#include "cpu/gemm.h"
#include "cpu/simd.h"
#include "cpu/threadpool.h"
#include "cpu/vec.h"

typedef wk__nn_rel rel;

static void rel_finish(rel *r) { wk__nn_rel_finish(r); }
void wk__nn_rel_finish(wk__nn_rel *r) {
    r->Isz = r->Lsz = r->Ksz = 1;
    for (int j = 0; j < r->nd; j++) {
        r->Isz *= r->In[j];
        r->Lsz *= r->Ln[j];
        r->Ksz *= r->Kn[j];
    }
}

/* col[r, l] for one image block b [Cbg, Isz]: r = c * Ksz + kk. col is [Cbg * Ksz, Lsz]. */
void wk__nn_im2col(const wk__nn_rel *R, const double *b, int64_t Cbg, double *col) {
    int64_t kk[3] = {0}, l[3] = {0};
    for (int64_t c = 0; c < Cbg; c++)
        for (int64_t k = 0; k < R->Ksz; k++) {
            int64_t rem = k;
            for (int j = R->nd - 1; j >= 0; j--) {
                kk[j] = rem % R->Kn[j];
                rem /= R->Kn[j];
            }
            double *dst = col + (c * R->Ksz + k) * R->Lsz;
            const double *src = b + c * R->Isz;
            for (int64_t li = 0; li < R->Lsz; li++) {
                int64_t lr = li, off = 0;
                bool inside = true;
                for (int j = R->nd - 1; j >= 0; j--) {
                    l[j] = lr % R->Ln[j];
                    lr /= R->Ln[j];
                }
                for (int j = 0; j < R->nd && inside; j++) {
                    int64_t pos = l[j] * R->s[j] - R->p[j] + kk[j] * R->d[j];
                    inside = pos >= 0 && pos < R->In[j];
                    off = off * R->In[j] + pos;
                }
                dst[li] = inside ? src[off] : 0;
            }
        }
}

/* b[c, pos] += col[r, l] (the adjoint of im2col) */
void wk__nn_col2im(const wk__nn_rel *R, const double *col, int64_t Cbg, double *b) {
    int64_t kk[3] = {0}, l[3] = {0};
    for (int64_t c = 0; c < Cbg; c++)
        for (int64_t k = 0; k < R->Ksz; k++) {
            int64_t rem = k;
            for (int j = R->nd - 1; j >= 0; j--) {
                kk[j] = rem % R->Kn[j];
                rem /= R->Kn[j];
            }
            const double *src = col + (c * R->Ksz + k) * R->Lsz;
            double *dst = b + c * R->Isz;
            for (int64_t li = 0; li < R->Lsz; li++) {
                int64_t lr = li, off = 0;
                bool inside = true;
                for (int j = R->nd - 1; j >= 0; j--) {
                    l[j] = lr % R->Ln[j];
                    lr /= R->Ln[j];
                }
                for (int j = 0; j < R->nd && inside; j++) {
                    int64_t pos = l[j] * R->s[j] - R->p[j] + kk[j] * R->d[j];
                    inside = pos >= 0 && pos < R->In[j];
                    off = off * R->In[j] + pos;
                }
                if (inside) dst[off] += src[li];
            }
        }
}

/* A [N, Ca, Lsz] = W [Ca, Cbg*Ksz] x im2col(B [N, Cb, Isz]) per group */
static int cols_from_image(const rel *R, const double *B, const double *W, double *A) {
    int64_t Cag = R->Ca / R->G, Cbg = R->Cb / R->G, Rn = Cbg * R->Ksz;
    double *col = wk__malloc(sizeof(double) * (size_t)(Rn * R->Lsz > 0 ? Rn * R->Lsz : 1)); /* [Rn, Lsz] */
    if (!col) return -1;
    for (int64_t n = 0; n < R->N; n++)
        for (int64_t g = 0; g < R->G; g++) {
            wk__nn_im2col(R, B + (n * R->Cb + g * Cbg) * R->Isz, Cbg, col);
            for (int64_t o = 0; o < Cag; o++) {
                double *out = A + (n * R->Ca + g * Cag + o) * R->Lsz;
                const double *w = W + (g * Cag + o) * Rn;
                for (int64_t r = 0; r < Rn; r++) {
                    double wv = w[r];
                    const double *cr = col + r * R->Lsz;
                    for (int64_t li = 0; li < R->Lsz; li++) out[li] += wv * cr[li];
                }
            }
        }
    free(col);
    return 0;
}

/* B [N, Cb, Isz] += col2im(W^T x A) per group */
static int image_from_cols(const rel *R, const double *A, const double *W, double *B) {
    int64_t Cag = R->Ca / R->G, Cbg = R->Cb / R->G, Rn = Cbg * R->Ksz;
    double *col = wk__malloc(sizeof(double) * (size_t)(Rn * R->Lsz > 0 ? Rn * R->Lsz : 1)); /* [Rn, Lsz] */
    if (!col) return -1;
    for (int64_t n = 0; n < R->N; n++)
        for (int64_t g = 0; g < R->G; g++) {
            memset(col, 0, sizeof(double) * (size_t)(Rn * R->Lsz));
            for (int64_t o = 0; o < Cag; o++) {
                const double *a = A + (n * R->Ca + g * Cag + o) * R->Lsz;
                const double *w = W + (g * Cag + o) * Rn;
                for (int64_t r = 0; r < Rn; r++) {
                    double wv = w[r];
                    double *cr = col + r * R->Lsz;
                    for (int64_t li = 0; li < R->Lsz; li++) cr[li] += wv * a[li];
                }
            }
            wk__nn_col2im(R, col, Cbg, B + (n * R->Cb + g * Cbg) * R->Isz);
        }
    free(col);
    return 0;
}

/* W [Ca, Cbg*Ksz] += sum_n A[n] x im2col(B[n])^T per group */
static int weight_grad(const rel *R, const double *A, const double *B, double *W) {
    int64_t Cag = R->Ca / R->G, Cbg = R->Cb / R->G, Rn = Cbg * R->Ksz;
    double *col = wk__malloc(sizeof(double) * (size_t)(Rn * R->Lsz > 0 ? Rn * R->Lsz : 1)); /* [Rn, Lsz] */
    if (!col) return -1;
    for (int64_t n = 0; n < R->N; n++)
        for (int64_t g = 0; g < R->G; g++) {
            wk__nn_im2col(R, B + (n * R->Cb + g * Cbg) * R->Isz, Cbg, col);
            for (int64_t o = 0; o < Cag; o++) {
                const double *a = A + (n * R->Ca + g * Cag + o) * R->Lsz;
                double *w = W + (g * Cag + o) * Rn;
                for (int64_t r = 0; r < Rn; r++) {
                    const double *cr = col + r * R->Lsz;
                    double acc = 0;
                    for (int64_t li = 0; li < R->Lsz; li++) acc += a[li] * cr[li];
                    w[r] += acc;
                }
            }
        }
    free(col);
    return 0;
}

/* ---- the float32 fast path (Note [Convolution fast path]) ----
 * float32 convolutions compute in float, as torch's do: im2col / col2im on float buffers and the products on
 * the packed GEMM (src/cpu/gemm.h). The float64 kernels above stay as the reference (every other dtype runs
 * them; tests/c/test_conv.c compares the two on odd shapes).
 * Images go in chunks of nb (a fixed count: colc holds about 4M floats), their matrices side by side, so one
 * product per chunk and group has nb*Lsz columns (deep layers have few positions per image; one wide product packs
 * the weight once and fills the GEMM's tiles):
 *   forward (cols_from_image): ac [Cag, nb*Lsz] = W[g] [Cag, Rn] @ colc [Rn, nb*Lsz], scattered to A (+ bias)
 *   image_from_cols:           colc [Rn, nb*Lsz] = W[g]^T [Rn, Cag] @ ac (gathered from A), col2im into B
 *   weight_grad:               W[g] [Cag, Rn] (+)= ac [Cag, nb*Lsz] @ colc^T [nb*Lsz, Rn], over the chunks in order
 * im2col / col2im / the copies run images in parallel (each image written by one thread); the GEMM splits its
 * output across the threads itself. Every output element is the same sum in the same order whatever the thread
 * count, so results do not depend on it. */
typedef struct {
    int64_t in[3], ln[3], kn[3], st[3], pd[3], dl[3]; /* 3-D geometry: 1-D and 2-D get leading size-1 dims */
} geo3;

static void geo_of(const rel *R, geo3 *g) {
    int off = 3 - R->nd;
    for (int j = 0; j < 3; j++) {
        int src = j - off;
        g->in[j] = src < 0 ? 1 : R->In[src];
        g->ln[j] = src < 0 ? 1 : R->Ln[src];
        g->kn[j] = src < 0 ? 1 : R->Kn[src];
        g->st[j] = src < 0 ? 1 : R->s[src];
        g->pd[j] = src < 0 ? 0 : R->p[src];
        g->dl[j] = src < 0 ? 1 : R->d[src];
    }
}

/* The output positions [lo, hi) of the last dim that read inside the image for kernel offset base = k*d - p. */
static void inner_range(int64_t base, int64_t s, int64_t In, int64_t Ln, int64_t *lo, int64_t *hi) {
    int64_t a = base >= 0 ? 0 : (-base + s - 1) / s;  /* first l with l*s + base >= 0 */
    int64_t b = In - base <= 0 ? 0 : (In - base + s - 1) / s; /* first l with l*s + base >= In */
    if (a > Ln) a = Ln;
    if (b > Ln) b = Ln;
    if (b < a) b = a;
    *lo = a, *hi = b;
}

/* col[r, ldcol] rows (r = c*Ksz + kk, Lsz used columns each) from an image block b [C, Isz] (float) */
static void im2col_f32(const geo3 *G, const float *b, int64_t C, float *col, int64_t ldcol) {
    const int64_t Isz = G->in[0] * G->in[1] * G->in[2];
    float *dst = col;
    const int64_t Hp = G->in[1] + 2 * G->pd[1], Wp = G->in[2] + 2 * G->pd[2];
    const bool plane = G->in[0] == 1 && G->kn[0] == 1 && G->ln[0] == 1 && G->pd[0] == 0; /* 2-D (or 1-D) */
    /* every tap inside the padded plane: not so for output_padding's extra rows, which the general loop zero-fills */
    const bool inside = (G->ln[1] - 1) * G->st[1] + (G->kn[1] - 1) * G->dl[1] < Hp &&
                        G->ln[2] - 1 + (G->kn[2] - 1) * G->dl[2] < Wp;
    if (plane && inside && G->st[2] == 1 && Hp * Wp <= 1024) {
        /* 2-D, stride 1 along a row, a plane that fits: each channel zero-padded once into pad, then every tap's
         * rows are plain copies with no bounds logic (the rows of a deep layer's 4x4 or 8x8 planes are a few
         * floats long: the per-row logic below cost more than the copy). The same col buffer, value for value. */
        float pad[1024]; /* [Hp, Wp]: one channel, zero borders (4 KiB of stack: planes up to 32x32 padded) */
        memset(pad, 0, sizeof(float) * (size_t)(Hp * Wp));
        const int64_t Ho = G->ln[1], Wo = G->ln[2];
        for (int64_t c = 0; c < C; c++) {
            for (int64_t h = 0; h < G->in[1]; h++)
                memcpy(pad + (h + G->pd[1]) * Wp + G->pd[2], b + c * Isz + h * G->in[2], sizeof(float) * (size_t)G->in[2]);
            for (int64_t kh = 0; kh < G->kn[1]; kh++)
                for (int64_t kw = 0; kw < G->kn[2]; kw++, dst += ldcol) {
                    const float *s = pad + kh * G->dl[1] * Wp + kw * G->dl[2];
                    float *d = dst;
                    for (int64_t oh = 0; oh < Ho; oh++, d += Wo) {
                        const float *sr = s + oh * G->st[1] * Wp;
                        for (int64_t l = 0; l < Wo; l++) d[l] = sr[l];
                    }
                }
        }
        return;
    }
    for (int64_t c = 0; c < C; c++)
        for (int64_t kd = 0; kd < G->kn[0]; kd++)
            for (int64_t kh = 0; kh < G->kn[1]; kh++)
                for (int64_t kw = 0; kw < G->kn[2]; kw++, dst += ldcol) {
                    int64_t lo, hi, base = kw * G->dl[2] - G->pd[2];
                    inner_range(base, G->st[2], G->in[2], G->ln[2], &lo, &hi);
                    float *drow = dst;
                    for (int64_t od = 0; od < G->ln[0]; od++) {
                        int64_t id = od * G->st[0] - G->pd[0] + kd * G->dl[0];
                        for (int64_t oh = 0; oh < G->ln[1]; oh++, drow += G->ln[2]) {
                            int64_t ih = oh * G->st[1] - G->pd[1] + kh * G->dl[1];
                            if (id < 0 || id >= G->in[0] || ih < 0 || ih >= G->in[1]) {
                                memset(drow, 0, sizeof(float) * (size_t)G->ln[2]);
                                continue;
                            }
                            const float *srow = b + c * Isz + (id * G->in[1] + ih) * G->in[2] + base;
                            for (int64_t l = 0; l < lo; l++) drow[l] = 0;
                            if (G->st[2] == 1) {
                                int64_t l = lo;
                                for (; l + 8 <= hi; l += 8) memcpy(drow + l, srow + l, 32); /* inlined moves */
                                for (; l < hi; l++) drow[l] = srow[l];
                            } else {
                                const int64_t s = G->st[2];
                                for (int64_t l = lo; l < hi; l++) drow[l] = srow[l * s];
                            }
                            for (int64_t l = hi; l < G->ln[2]; l++) drow[l] = 0;
                        }
                    }
                }
}

/* b [C, Isz] += col2im(col rows [C*Ksz] of ldcol, Lsz used) (the adjoint of im2col_f32) */
static void col2im_f32(const geo3 *G, const float *col, int64_t ldcol, int64_t C, float *b) {
    const int64_t Isz = G->in[0] * G->in[1] * G->in[2];
    const float *row = col;
    for (int64_t c = 0; c < C; c++)
        for (int64_t kd = 0; kd < G->kn[0]; kd++)
            for (int64_t kh = 0; kh < G->kn[1]; kh++)
                for (int64_t kw = 0; kw < G->kn[2]; kw++, row += ldcol) {
                    const float *src = row;
                    int64_t lo, hi, base = kw * G->dl[2] - G->pd[2];
                    inner_range(base, G->st[2], G->in[2], G->ln[2], &lo, &hi);
                    for (int64_t od = 0; od < G->ln[0]; od++) {
                        int64_t id = od * G->st[0] - G->pd[0] + kd * G->dl[0];
                        for (int64_t oh = 0; oh < G->ln[1]; oh++, src += G->ln[2]) {
                            int64_t ih = oh * G->st[1] - G->pd[1] + kh * G->dl[1];
                            if (id < 0 || id >= G->in[0] || ih < 0 || ih >= G->in[1]) continue;
                            float *drow = b + c * Isz + (id * G->in[1] + ih) * G->in[2] + base;
                            const int64_t s = G->st[2];
                            if (s == 1)
                                for (int64_t l = lo; l < hi; l++) drow[l] += src[l];
                            else
                                for (int64_t l = lo; l < hi; l++) drow[l * s] += src[l];
                        }
                    }
                }
}

typedef struct {
    const rel *R;
    geo3 G;
    const float *a, *b, *w, *bias; /* A side [N, Ca, Lsz], B side [N, Cb, Isz], W [Ca, Rn], bias [Ca] or NULL */
    float *out;
    int64_t n0, nb, g; /* the chunk: images [n0, n0 + nb), group g */
    float *colc;       /* [Rn, nb*Lsz]: the chunk's col matrices side by side */
    float *ac;         /* [Cag, nb*Lsz]: the chunk's A-side rows side by side */
} conv_chunk;

/* chunk images [i0, i1): colc from the B side (im2col) */
static void chunk_fill_cols(int64_t i0, int64_t i1, int tid, void *ctx) {
    WK_UNUSED(tid);
    conv_chunk *C = ctx;
    const rel *R = C->R;
    int64_t Cbg = R->Cb / R->G, Lsz = R->Lsz, K = C->nb * Lsz;
    for (int64_t i = i0; i < i1; i++)
        im2col_f32(&C->G, C->b + ((C->n0 + i) * R->Cb + C->g * Cbg) * R->Isz, Cbg, C->colc + i * Lsz, K);
}

/* chunk images [i0, i1): ac from the A side (a copy) */
static void chunk_gather_a(int64_t i0, int64_t i1, int tid, void *ctx) {
    WK_UNUSED(tid);
    conv_chunk *C = ctx;
    const rel *R = C->R;
    int64_t Cag = R->Ca / R->G, Lsz = R->Lsz, K = C->nb * Lsz;
    for (int64_t i = i0; i < i1; i++) {
        const float *aa = C->a + ((C->n0 + i) * R->Ca + C->g * Cag) * Lsz;
        for (int64_t o = 0; o < Cag; o++) memcpy(C->ac + o * K + i * Lsz, aa + o * Lsz, sizeof(float) * (size_t)Lsz);
    }
}

static void chunk_fill_both(int64_t i0, int64_t i1, int tid, void *ctx) {
    chunk_fill_cols(i0, i1, tid, ctx);
    chunk_gather_a(i0, i1, tid, ctx);
}

/* chunk images [i0, i1): the A-side output (+ bias) from ac */
static void chunk_scatter_a(int64_t i0, int64_t i1, int tid, void *ctx) {
    WK_UNUSED(tid);
    conv_chunk *C = ctx;
    const rel *R = C->R;
    int64_t Cag = R->Ca / R->G, Lsz = R->Lsz, K = C->nb * Lsz;
    for (int64_t i = i0; i < i1; i++) {
        float *o = C->out + ((C->n0 + i) * R->Ca + C->g * Cag) * Lsz;
        for (int64_t c = 0; c < Cag; c++) {
            const float *src = C->ac + c * K + i * Lsz;
            if (C->bias) {
                const float bv = C->bias[C->g * Cag + c];
                for (int64_t l = 0; l < Lsz; l++) o[c * Lsz + l] = src[l] + bv;
            } else {
                memcpy(o + c * Lsz, src, sizeof(float) * (size_t)Lsz);
            }
        }
    }
}

/* chunk images [i0, i1): the B-side output from colc (col2im) */
static void chunk_col2im(int64_t i0, int64_t i1, int tid, void *ctx) {
    WK_UNUSED(tid);
    conv_chunk *C = ctx;
    const rel *R = C->R;
    int64_t Cbg = R->Cb / R->G, Lsz = R->Lsz, K = C->nb * Lsz;
    for (int64_t i = i0; i < i1; i++) {
        float *bb = C->out + ((C->n0 + i) * R->Cb + C->g * Cbg) * R->Isz;
        memset(bb, 0, sizeof(float) * (size_t)(Cbg * R->Isz));
        col2im_f32(&C->G, C->colc + i * Lsz, K, Cbg, bb);
    }
}

enum { CONV_COLS_FROM_IMAGE, CONV_IMAGE_FROM_COLS, CONV_WEIGHT_GRAD };

/* One image and group at a time on this thread (its own buffers, the GEMM serial inside the pool) */
typedef struct {
    conv_chunk proto;
    int kind;
    int failed;
} per_image_job;

static void per_image_range(int64_t n0, int64_t n1, int tid, void *ctx) {
    WK_UNUSED(tid);
    per_image_job *P = ctx;
    conv_chunk C = P->proto;
    const rel *R = C.R;
    int64_t Cag = R->Ca / R->G, Rn = (R->Cb / R->G) * R->Ksz, Lsz = R->Lsz;
    C.colc = malloc(sizeof(float) * (size_t)(Rn * Lsz));
    C.ac = malloc(sizeof(float) * (size_t)(Cag * Lsz));
    C.nb = 1;
    for (int64_t n = n0; n < n1 && C.colc && C.ac; n++)
        for (int64_t g = 0; g < R->G; g++) {
            C.n0 = n, C.g = g;
            const float *wg = C.w + g * Cag * Rn;
            int rc;
            if (P->kind == CONV_COLS_FROM_IMAGE) {
                chunk_fill_cols(0, 1, 0, &C);
                rc = wk_gemm_f32(Cag, Lsz, Rn, wg, Rn, 1, C.colc, Lsz, 1, 0.0f, C.ac, Lsz, 1);
                chunk_scatter_a(0, 1, 0, &C);
            } else {
                chunk_gather_a(0, 1, 0, &C);
                rc = wk_gemm_f32(Rn, Lsz, Cag, wg, 1, Rn, C.ac, Lsz, 1, 0.0f, C.colc, Lsz, 1);
                chunk_col2im(0, 1, 0, &C);
            }
            if (rc < 0) P->failed = 1;
        }
    if (!C.colc || !C.ac) P->failed = 1;
    free(C.colc);
    free(C.ac);
}

/* ---- Note [Direct convolution] ----
 * 2-D (and 1-D) convolutions skip im2col: the source image is zero-padded into xp (planes Hp x Wp, rows Wp wide)
 * and the destination is computed on the "wide grid" l' = oh * Wp + ow (Hd x Wp positions), where tap r = (source
 * channel c, kernel offset kh, kw) reads xp[off[r] + l'], off[r] = c * Hp * Wp + kh * dh * Wp + kw * dw: the im2col
 * matrix is read in place, one shifted copy of xp per row (nn_conv_kern.h has the SIMD kernels). A stride s splits
 * the padded image into s_h * s_w phases (position (h, w) -> phase (h % s_h, w % s_w) at (h / s_h, w / s_w)), so a
 * tap reads one phase at stride 1: off[r] = c * P + phase(kh * dh, kw * dw) + (kh * dh / s_h) * Wq + kw * dw / s_w,
 * rows Wq = Wp / s_w wide (the forward only: see conv_direct).
 *   forward (cols_from_image): source = the input, padded by p; weights wT[r, o] = W[o, r]
 *   grad_input (image_from_cols at stride 1): source = grad_output padded by q = (K - 1) * d - p, the kernel
 *       flipped: tap (o, k) reads at the offset of K - 1 - k, wT[(o, k), c] = W[o, (c, k)]
 *   grad_weight: W[o, r] = sum_n sum_l' A_wide[n, o, l'] * xp_n[off[r] + l'] with A's garbage columns zero, either
 *       with the positions in the lanes (few channels: partial sums per lane = l' mod vl, in the order n, then l',
 *       the lanes added in order at the end), or with 1-2 vectors of channels in the lanes (A transposed per image; every
 *       sum runs over n, then l', in order).
 * Every destination element is one fixed sequence of fused multiply-adds whatever the thread count: images go to
 * threads whole (forward, grad_input), and the weight gradient splits its output (channels, taps), each thread
 * running over every image. The weights are packed in blocks of 6 channels, tap-major, so a tile of 6 or 12
 * channels streams them contiguously. The wide grid's garbage columns read real image values and are multiplied by zero in the
 * weight gradient, so it takes this path only when the image is finite (0 * inf would leak a NaN). */
#define WK_DCONV_SUF _port
#include "cpu/nn_conv_kern.h"
#if defined(__x86_64__) && defined(__GNUC__)
extern const wk__dconv_kern wk__dconv_avx2, wk__dconv_avx512;
#endif
static const wk__dconv_kern wk__dconv_port = {WK_VL,           dconv_fwd__port, dconv_wgrad__port, dconv_wgrad_cv__port,
                                               dconv_fwd_cv__port};

static const wk__dconv_kern *dconv_pick(void) {
    static const wk__dconv_kern *k;
    if (!k) { /* idempotent: a race writes the same value */
#if defined(__x86_64__) && defined(__GNUC__)
        if (__builtin_cpu_supports("avx512f") && !getenv("WICK_NO_AVX512")) /* WICK_NO_AVX512=1: AVX2's path */
            k = &wk__dconv_avx512;
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            k = &wk__dconv_avx2;
        else
#endif
            k = &wk__dconv_port;
    }
    return k;
}

typedef struct {
    const rel *R;
    const wk__dconv_kern *K;
    int kind;
    int64_t Cs, Hs, Ws, ph, pw; /* source channels (a group's), sizes, padding */
    int64_t Hp, Wp, sh, sw;     /* padded sizes; stride (Note [Direct convolution]: phases) */
    int64_t Hq, Wq, P, xpn;     /* a phase's sizes (Hp / sh, Wp / sw rounded up; Wq is the wide grid's row), a
                                 * channel's stride in xp (sh * sw * Hq * Wq), floats of xp */
    int64_t Cd, Hd, Wd;         /* destination channels (a group's) and sizes */
    const float *src, *w, *bias, *a; /* source [N, G * Cs, Hs * Ws]; W; bias or NULL; grad_output (weight grad) */
    float *out;                 /* destination [N, G * Cd, Hd * Wd], or the weight gradient [Ca, Rn] */
    int64_t *off;               /* [Rn] tap offsets in xp */
    float *wT;                  /* [G, ceil(Cd / 6), Rn, 6] forward weights (wk__dconv's wT per group), or for
                                 * small images [G, ceil(Cd / CB), Rn, CB] (dconv_images_cv) */
    wk__dconv D;                /* the kernel's view (wT of group 0) */
    int64_t wTg;                /* floats of wT per group */
    int64_t ob_n;               /* weight gradient (lanes over positions): 4-channel blocks per group */
    int64_t nrs;                /* weight gradient (channels in the lanes): tap ranges per channel block */
    int nv;                     /* ... and vectors of channels per block */
    int64_t gi, kc;             /* forward on small images: images per job, taps per chunk */
    atomic_llong next;          /* forward: the next image to take */
    atomic_int failed;
} dconv_job;

/* e [n] = r[0], r[2], ...; o [n] = r[1], r[3], ... (a row split into the two column phases of stride 2) */
static void dconv_deint2(const float *restrict r, int64_t n, float *restrict e, float *restrict o) {
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= n; i += 4) {
        const __m128 a = _mm_loadu_ps(r + 2 * i), b = _mm_loadu_ps(r + 2 * i + 4);
        _mm_storeu_ps(e + i, _mm_shuffle_ps(a, b, 0x88)); /* a0 a2 b0 b2 */
        _mm_storeu_ps(o + i, _mm_shuffle_ps(a, b, 0xDD)); /* a1 a3 b1 b3 */
    }
#endif
    for (; i < n; i++) {
        e[i] = r[2 * i];
        o[i] = r[2 * i + 1];
    }
}

/* xp [Cs, sh * sw phases, Hq, Wq] (+ slack) = image block s [Cs, Hs, Ws] zero-padded, padded position (h, w) in
 * phase (h % sh, w % sw) at (h / sh, w / sw): the interior; the border and the slack are zero from the allocation
 * (calloc) and never written */
static void dconv_pad_range(const dconv_job *J, const float *s, float *xp, int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; c++)
        for (int64_t h = 0; h < J->Hs; h++) {
            const int64_t hp = h + J->ph;
            float *d = xp + c * J->P + (hp % J->sh) * J->sw * J->Hq * J->Wq + hp / J->sh * J->Wq;
            const float *r = s + (c * J->Hs + h) * J->Ws;
            if (J->sw == 1) {
                memcpy(d + J->pw, r, sizeof(float) * (size_t)J->Ws);
            } else if (J->sw == 2) { /* r[w] to phase (pw + w) % 2 at (pw + w) / 2: pairs, then an odd last column */
                float *p0 = d + J->pw % 2 * J->Hq * J->Wq + J->pw / 2;           /* where r[0], r[2], ... go */
                float *p1 = d + (1 - J->pw % 2) * J->Hq * J->Wq + (J->pw + 1) / 2; /* where r[1], r[3], ... go */
                dconv_deint2(r, J->Ws / 2, p0, p1);
                if (J->Ws % 2) p0[J->Ws / 2] = r[J->Ws - 1];
            } else { /* phase b: the padded columns wp = pw + w with wp % sw == b, at wp / sw */
                for (int64_t b = 0; b < J->sw; b++) {
                    float *db = d + b * J->Hq * J->Wq;
                    int64_t w = ((b - J->pw) % J->sw + J->sw) % J->sw;
                    for (int64_t q = (J->pw + w) / J->sw; w < J->Ws; w += J->sw, q++) db[q] = r[w];
                }
            }
        }
}

static void dconv_pad(const dconv_job *J, const float *s, float *xp) { dconv_pad_range(J, s, xp, 0, J->Cs); }

/* Scratch buffers from the caching allocator (src/cpu/alloc.c), zeroed or not: a call's per-thread buffers come back
 * warm on the next call (from malloc / calloc, glibc served these sizes by mmap or a trimmed heap, and every call
 * faulted them in again: 4-8% of a weight gradient, huge pages zeroed) */
static void *conv_scratch(size_t bytes, bool zero) {
    void *p = wk__cache_alloc(bytes);
    if (p && zero) memset(p, 0, bytes);
    return p;
}
static void conv_scratch_free(void *p, size_t bytes) {
    if (p) wk__cache_free(p, bytes);
}

/* d [n] = s [n] + *bias, or a copy without a bias (a destination row out of the wide buffer) */
static void dconv_row_out(float *restrict d, const float *restrict s, int64_t n, const float *bias) {
    if (!bias) {
        memcpy(d, s, sizeof(float) * (size_t)n);
        return;
    }
    const float bv = *bias;
    int64_t x = 0;
#if defined(__SSE2__)
    const __m128 b = _mm_set1_ps(bv);
    for (; x + 4 <= n; x += 4) _mm_storeu_ps(d + x, _mm_add_ps(_mm_loadu_ps(s + x), b));
#endif
    for (; x < n; x++) d[x] = s[x] + bv;
}

/* forward / grad_input: whole images, taken one at a time by whichever thread is free */
static void dconv_images(int64_t t0, int64_t t1, int tid, void *ctx) {
    WK_UNUSED(t0), WK_UNUSED(t1), WK_UNUSED(tid);
    dconv_job *J = ctx;
    const rel *R = J->R;
    const size_t bxp = sizeof(float) * (size_t)J->xpn, bdw = sizeof(float) * (size_t)(12 * J->D.ldl);
    float *xp = conv_scratch(bxp, true);  /* the padded source block */
    float *dw = conv_scratch(bdw, false); /* [12, ldl]: a block of the wide destination */
    if (!xp || !dw) atomic_store(&J->failed, 1);
    for (int64_t n; xp && dw && (n = atomic_fetch_add(&J->next, 1)) < R->N;)
        for (int64_t g = 0; g < R->G; g++) {
            wk__dconv D = J->D;
            D.wT = J->wT + g * J->wTg;
            dconv_pad(J, J->src + (n * R->G + g) * J->Cs * J->Hs * J->Ws, xp);
            float *o = J->out + (n * R->G + g) * J->Cd * J->Hd * J->Wd;
            for (int64_t c0 = 0; c0 < J->Cd; c0 += 12) { /* 12 channels at a time, their wide rows in L1/L2 */
                int64_t c1 = J->Cd - c0 < 12 ? J->Cd : c0 + 12;
                J->K->fwd(&D, xp, c0, c1, dw);
                for (int64_t c = c0; c < c1; c++)
                    for (int64_t h = 0; h < J->Hd; h++)
                        dconv_row_out(o + (c * J->Hd + h) * J->Wd, dw + (c - c0) * D.ldl + h * J->Wq, J->Wd,
                                      J->bias ? J->bias + g * J->Cd + c : NULL);
            }
        }
    conv_scratch_free(xp, bxp);
    conv_scratch_free(dw, bdw);
}

/* dconv_pad for the small-image path: stride 1 with rows copied inline (rows of 4-8 floats: a memcpy call each
 * cost more than the copy) */
static void cv_pad(const dconv_job *J, const float *s, float *xp) {
    if (J->sh != 1 || J->sw != 1) {
        dconv_pad(J, s, xp);
        return;
    }
    for (int64_t c = 0; c < J->Cs; c++)
        for (int64_t h = 0; h < J->Hs; h++) {
            float *d = xp + c * J->P + (h + J->ph) * J->Wq + J->pw;
            const float *r = s + (c * J->Hs + h) * J->Ws;
            for (int64_t w = 0; w < J->Ws; w++) d[w] = r[w];
        }
}

/* channels in a block of the small-image kernel (fwd_cv's CB: 4 vectors on AVX-512, else 2) */
static int64_t cv_cb(const wk__dconv_kern *K) { return K->vl >= 16 ? 4 * K->vl : 2 * K->vl; }

/* the small-image kernel's weights, blocks [b0, b1) of (group g, CB channels ob), chunk-major as dconv_images_cv
 * reads them: wT [g][chunk q of kc taps][ob] [taps of q, CB] (zero past Cd). Forward: wT[r, o] = W[o, r]; grad_input:
 * tap r = (A channel a, k), wT[(a, k), c] = W[a, (c, k)], for each a a transposition of the contiguous [CB, K] block */
static void dconv_pack_cv(int64_t b0, int64_t b1, int tid, void *ctx) {
    WK_UNUSED(tid);
    const dconv_job *J = ctx;
    const rel *R = J->R;
    const int64_t CB = cv_cb(J->K), nob = (J->Cd + CB - 1) / CB, Rn = J->D.Rn, K = R->Ksz;
    const int64_t Cag = R->Ca / R->G, Rw = R->Cb / R->G * K; /* W [G * Cag, Rw] */
    for (int64_t b = b0; b < b1; b++) {
        const int64_t g = b / nob, ob = b % nob, o0 = ob * CB, nc = J->Cd - o0 < CB ? J->Cd - o0 : CB;
        for (int64_t q0 = 0; q0 < Rn; q0 += J->kc) { /* the chunk [q0, q1) of taps: its block [q1 - q0, CB] */
            const int64_t q1 = Rn - q0 < J->kc ? Rn : q0 + J->kc;
            float *wc = J->wT + g * J->wTg + (q0 * nob + ob * (q1 - q0)) * CB - q0 * CB; /* row r at wc + r CB */
            if (nc < CB) /* a last partial block: zero weights past Cd */
                for (int64_t r = q0; r < q1; r++) memset(wc + r * CB + nc, 0, sizeof(float) * (size_t)(CB - nc));
            if (J->kind == CONV_IMAGE_FROM_COLS) { /* chunks of whole A channels a */
                for (int64_t a = q0 / K; a < q1 / K; a++) {
                    const float *src = J->w + (g * Cag + a) * Rw + o0 * K; /* [nc, K] */
                    float *d = wc + a * K * CB;                            /* [K, CB] */
                    for (int64_t c = 0; c < nc; c++)
                        for (int64_t k = 0; k < K; k++) d[k * CB + c] = src[c * K + k];
                }
            }
        }
        /* forward: 16 channels at a time, so 16 rows of W stream in order and every line of wT is written whole */
        for (int64_t c0 = 0; c0 < nc && J->kind != CONV_IMAGE_FROM_COLS; c0 += 16) {
            const int64_t c1 = nc - c0 < 16 ? nc : c0 + 16;
            const float *src = J->w + (g * Cag + o0) * Rw;
            for (int64_t q0 = 0; q0 < Rn; q0 += J->kc) {
                const int64_t q1 = Rn - q0 < J->kc ? Rn : q0 + J->kc;
                float *wc = J->wT + g * J->wTg + (q0 * nob + ob * (q1 - q0)) * CB - q0 * CB;
                for (int64_t r = q0; r < q1; r++)
                    for (int64_t c = c0; c < c1; c++) wc[r * CB + c] = src[c * Rw + r];
            }
        }
    }
}

/* forward / grad_input on small images (ResNet l3, l4), the destination channels in the lanes: groups of gi images
 * taken by whichever thread is free, their valid positions only (no wide-grid garbage), every block of CB channels
 * by chunks of kc taps (the chunk's weights and planes stay in L1 while every tile of positions runs over them;
 * the tiles' sums continue from dst, exact); each sum runs over the taps in order, as in dconv_images */
static void dconv_images_cv(int64_t t0, int64_t t1, int tid, void *ctx) {
    WK_UNUSED(t0), WK_UNUSED(t1), WK_UNUSED(tid);
    dconv_job *J = ctx;
    const rel *R = J->R;
    const int64_t CB = cv_cb(J->K), nob = (J->Cd + CB - 1) / CB, Lsz = J->Hd * J->Wd, Rn = J->D.Rn;
    /* from the caching allocator (warm calls fault no pages in) */
    const int64_t ldd = (J->gi * Lsz + 16) * CB; /* floats of dst per block */
    const size_t nxp = sizeof(float) * (size_t)(J->gi * J->xpn), ndst = sizeof(float) * (size_t)(nob * ldd),
                 nbase = sizeof(int64_t) * (size_t)(J->gi * Lsz);
    float *xp = wk__cache_alloc(nxp);     /* gi padded images, xpn floats apart (zero borders: dconv_pad) */
    float *dst = wk__cache_alloc(ndst);   /* [nob][positions + a tile, CB]: the sums of every block */
    int64_t *base = wk__cache_alloc(nbase); /* each position's offset in xp */
    if (!xp || !dst || !base) atomic_store(&J->failed, 1);
    if (xp) memset(xp, 0, nxp);
    for (int64_t k; xp && dst && base && (k = atomic_fetch_add(&J->next, 1)) * J->gi < R->N;) {
        const int64_t n0 = k * J->gi, ni = R->N - n0 < J->gi ? R->N - n0 : J->gi, npos = ni * Lsz;
        for (int64_t i = 0; i < ni; i++)
            for (int64_t h = 0; h < J->Hd; h++)
                for (int64_t w = 0; w < J->Wd; w++) base[(i * J->Hd + h) * J->Wd + w] = i * J->xpn + h * J->Wq + w;
        for (int64_t g = 0; g < R->G; g++) {
            for (int64_t i = 0; i < ni; i++)
                cv_pad(J, J->src + ((n0 + i) * R->G + g) * J->Cs * J->Hs * J->Ws, xp + i * J->xpn);
            /* chunks of taps outer (their planes stay in L1 for every block), the blocks' weights streamed in
             * order (the kernel prefetches the next block's) */
            for (int64_t r0 = 0; r0 < Rn; r0 += J->kc) {
                const int64_t r1 = Rn - r0 < J->kc ? Rn : r0 + J->kc;
                for (int64_t ob = 0; ob < nob; ob++)
                    J->K->fwd_cv(&J->D, J->wT + g * J->wTg + (r0 * nob + ob * (r1 - r0)) * CB - r0 * CB, xp, base, npos,
                                 r0, r1, dst + ob * ldd);
            }
            for (int64_t ob = 0; ob < nob; ob++) {
                const int64_t o1 = (ob + 1) * CB < J->Cd ? (ob + 1) * CB : J->Cd;
                for (int64_t i = 0; i < ni; i++)
                    for (int64_t o = ob * CB; o < o1; o++) {
                        const float bv = J->bias ? J->bias[g * J->Cd + o] : 0.0f;
                        const float *s = dst + ob * ldd + i * Lsz * CB + o - ob * CB;
                        float *d = J->out + (((n0 + i) * R->G + g) * J->Cd + o) * Lsz;
                        if (J->bias)
                            for (int64_t p = 0; p < Lsz; p++) d[p] = s[p * CB] + bv;
                        else
                            for (int64_t p = 0; p < Lsz; p++) d[p] = s[p * CB];
                    }
            }
        }
    }
    if (xp) wk__cache_free(xp, nxp);
    if (dst) wk__cache_free(dst, ndst);
    if (base) wk__cache_free(base, nbase);
}

/* weight gradient: blocks [b0, b1) of 4 output channels (of every group, flattened), all images */
static void dconv_wgrad_blocks(int64_t b0, int64_t b1, int tid, void *ctx) {
    WK_UNUSED(tid);
    dconv_job *J = ctx;
    const rel *R = J->R;
    const int vl = J->K->vl, T = WK_DCONV_WR * WK_DCONV_WC;
    const int64_t Rn = J->D.Rn, rb = (Rn + WK_DCONV_WC - 1) / WK_DCONV_WC, ldl = J->D.ldl, Lsz = J->Hd * J->Wd;
    for (int64_t b = b0; b < b1;) {
        int64_t g = b / J->ob_n, e = (g + 1) * J->ob_n < b1 ? (g + 1) * J->ob_n : b1; /* blocks [b, e) of group g */
        int64_t o0 = (b - g * J->ob_n) * WK_DCONV_WR, o1 = (e - g * J->ob_n) * WK_DCONV_WR;
        if (o1 > J->Cd) o1 = J->Cd;
        int64_t rows = o1 - o0, ntile = (e - b) * rb;
        const size_t bxp = sizeof(float) * (size_t)J->xpn, baw = sizeof(float) * (size_t)(rows * ldl),
                     bacc = sizeof(float) * (size_t)(ntile * T * vl);
        float *xp = conv_scratch(bxp, true);   /* the padded image block */
        float *aw = conv_scratch(baw, true);   /* [rows, ldl]: grad_output, wide */
        float *acc = conv_scratch(bacc, true); /* [tile][WR * WC][vl] partial sums */
        if (!xp || !aw || !acc) atomic_store(&J->failed, 1);
        for (int64_t n = 0; xp && aw && acc && n < R->N; n++) {
            dconv_pad(J, J->src + (n * R->G + g) * J->Cs * J->Hs * J->Ws, xp);
            const float *a = J->a + ((n * R->G + g) * J->Cd + o0) * Lsz;
            for (int64_t c = 0; c < rows; c++)
                for (int64_t h = 0; h < J->Hd; h++)
                    memcpy(aw + c * ldl + h * J->Wq, a + (c * J->Hd + h) * J->Wd, sizeof(float) * (size_t)J->Wd);
            J->K->wgrad(&J->D, aw, rows, xp, acc);
        }
        for (int64_t o = o0; xp && aw && acc && o < o1; o++) /* the lanes, added in order */
            for (int64_t r = 0; r < Rn; r++) {
                const float *s = acc + (((o - o0) / WK_DCONV_WR * rb + r / WK_DCONV_WC) * T +
                                        (o - o0) % WK_DCONV_WR * WK_DCONV_WC + r % WK_DCONV_WC) * vl;
                float v = s[0];
                for (int q = 1; q < vl; q++) v += s[q];
                J->out[(g * J->Cd + o) * Rn + r] = v;
            }
        conv_scratch_free(xp, bxp);
        conv_scratch_free(aw, baw);
        conv_scratch_free(acc, bacc);
        b = e;
    }
}

/* weight gradient, channels in the lanes: jobs [j0, j1) of (group, range of taps: whole source channels), each over
 * all images in order and every block of CB = nv vl destination channels: an image's source channels of the range
 * are padded once (a job per block padded the whole image once per block: 4x for ResNet l1, 6% of its backward),
 * then per block its grad_output rows go transposed into at and the range's sums; cacc [nob, Rn, CB] holds the
 * sums (tap-major), copied into W at the end */
static void dconv_wgrad_cv_jobs(int64_t j0, int64_t j1, int tid, void *ctx) {
    WK_UNUSED(tid);
    dconv_job *J = ctx;
    const rel *R = J->R;
    const int64_t CB = J->nv * J->K->vl, Rn = J->D.Rn, K = Rn / J->Cs, Lsz = J->Hd * J->Wd, nob = (J->Cd + CB - 1) / CB;
    for (int64_t j = j0; j < j1; j++) {
        const int64_t g = j / J->nrs, rs = j % J->nrs;
        const int64_t c0 = J->Cs * rs / J->nrs, c1 = J->Cs * (rs + 1) / J->nrs, r0 = c0 * K, r1 = c1 * K;
        if (r0 >= r1) continue;
        const size_t bxp = sizeof(float) * (size_t)J->xpn, bat = sizeof(float) * (size_t)(J->D.ldl * CB),
                     bacc = sizeof(float) * (size_t)(nob * Rn * CB);
        float *xp = conv_scratch(bxp, true);    /* the padded image block */
        float *at = conv_scratch(bat, true);    /* [ldl, CB]: grad_output, wide, transposed (garbage columns 0) */
        float *cacc = conv_scratch(bacc, true); /* [nob, Rn, CB]: the sums (rows [r0, r1) used) */
        if (!xp || !at || !cacc) atomic_store(&J->failed, 1);
        for (int64_t n = 0; xp && at && cacc && n < R->N; n++) {
            dconv_pad_range(J, J->src + (n * R->G + g) * J->Cs * J->Hs * J->Ws, xp, c0, c1);
            for (int64_t ob = 0; ob < nob; ob++) {
                const int64_t o0 = ob * CB, o1 = o0 + CB < J->Cd ? o0 + CB : J->Cd;
                const float *a = J->a + ((n * R->G + g) * J->Cd + o0) * Lsz;
                for (int64_t o = 0; o < CB; o++) /* lanes past Cd: zero (a full block before wrote them) */
                    for (int64_t h = 0; h < J->Hd; h++)
                        for (int64_t w = 0; w < J->Wd; w++)
                            at[(h * J->Wq + w) * CB + o] = o < o1 - o0 ? a[o * Lsz + h * J->Wd + w] : 0.0f;
                J->K->wgrad_cv(&J->D, at, xp, r0, r1, J->nv, cacc + ob * Rn * CB);
            }
        }
        for (int64_t o = 0; xp && at && cacc && o < J->Cd; o++)
            for (int64_t r = r0; r < r1; r++) J->out[(g * J->Cd + o) * Rn + r] = cacc[(o / CB * Rn + r) * CB + o % CB];
        conv_scratch_free(xp, bxp);
        conv_scratch_free(at, bat);
        conv_scratch_free(cacc, bacc);
    }
}

/* ---- Note [Weight gradient, channels last] ----
 * W[o, (c, k)] = sum_n sum_l A[n, o, l] * xpad_n[c, pos(l) + shift(k)] as one product over the P = N * Hd * Wd valid
 * positions p = (n, oh, ow) of all images: at [nob, P, CB] = A channels-last in blocks of CB = 2 vl destination
 * channels (zero past Cd), xt [N, Hp, Wp, ldx] = the source zero-padded and channels-last (zero past Cs; ldx, the
 * floats per pixel, an odd number of cache lines so that a tile's pixels do not crowd a few L1 sets). Position p reads
 * xt at rowoff[p] = ((n Hp + oh sh) Wp + ow sw) ldx, tap (kh, kw) adds (kh dh Wp + kw dw) ldx: any stride and
 * dilation, and no wide-grid garbage — only im2col's entries enter the sums, its zeros included, so 0 * inf gives
 * NaN exactly where the reference does and no finiteness check is needed. A tile (nn_conv_kern.h) = nr source
 * channels x CB destination channels: per position 2 vector loads of at and nr broadcasts from one pixel of xt.
 * Jobs = (destination blocks, source tiles) of one group, taken by whichever thread is free, each over all positions
 * in order, in chunks of PC (the chunk's at rows, 16 KiB, stay in L1 across the tiles; the job's sums cacc in L2):
 * every sum is the same chain of fused multiply-adds whatever the thread count. */
#if defined(__x86_64__) && defined(__GNUC__)
extern const wk__dconv_wgrad_cl_fn wk__dconv_wgrad_cl_avx2, wk__dconv_wgrad_cl_avx512;
#endif

typedef struct {
    const rel *R;
    wk__dconv_wgrad_cl_fn fn;
    int64_t g, Cs, Hs, Ws, Cd, Hd, Wd; /* the group; source (B side) and destination (A side) channels and sizes */
    int64_t ph, pw, sh, sw, dh, dw, KH, KW, Hp, Wp;
    int64_t Csp, Cdp, CB, nr, PC;     /* padded channel counts, lanes of a tile, its source channels, chunk */
    int64_t ldx;                      /* floats per pixel of xt (>= Csp) */
    int64_t nob, nct, jo, jc, njo, njc; /* destination blocks, source tiles; per job (at most); jobs along each */
    int64_t njobs;
    const float *A, *B; /* A [N, G * Cd, Hd * Wd] (grad_output side), B [N, G * Cs, Hs * Ws] (image side) */
    float *W;           /* [G * Cd, Cs * K] */
    float *xt, *at;     /* [N, Hp, Wp, ldx] (channels past Cs zero); [nob, N * Hd * Wd, CB] (past Cd zero) */
    int64_t *rowoff;    /* [N * Hd * Wd] */
    atomic_llong next;
    atomic_int failed;
} wgcl_job;

/* images [n0, n1): their xt and at blocks and row offsets */
static void wgcl_prep(int64_t n0, int64_t n1, int tid, void *ctx) {
    WK_UNUSED(tid);
    wgcl_job *J = ctx;
    const rel *R = J->R;
    const int64_t Csp = J->ldx, L = J->Hd * J->Wd, HW = J->Hs * J->Ws, CB = J->CB, P = R->N * L;
    for (int64_t n = n0; n < n1; n++) {
        float *xn = J->xt + n * J->Hp * J->Wp * Csp;
        const float *bn = J->B + (n * R->G + J->g) * J->Cs * HW;
        for (int64_t hp = 0; hp < J->Hp; hp++) {
            float *row = xn + hp * J->Wp * Csp;
            const int64_t h = hp - J->ph;
            if (h < 0 || h >= J->Hs) {
                memset(row, 0, sizeof(float) * (size_t)(J->Wp * Csp));
                continue;
            }
            memset(row, 0, sizeof(float) * (size_t)(J->pw * Csp));
            memset(row + (J->pw + J->Ws) * Csp, 0, sizeof(float) * (size_t)((J->Wp - J->pw - J->Ws) * Csp));
            float *d = row + J->pw * Csp;
            for (int64_t c = 0; c < J->Cs; c++) {
                const float *s = bn + c * HW + h * J->Ws;
                for (int64_t w = 0; w < J->Ws; w++) d[w * Csp + c] = s[w];
            }
            for (int64_t w = 0; Csp > J->Cs && w < J->Ws; w++)
                memset(d + w * Csp + J->Cs, 0, sizeof(float) * (size_t)(Csp - J->Cs));
        }
        const float *a = J->A + (n * R->G + J->g) * J->Cd * L;
        for (int64_t ob = 0; ob < J->nob; ob++) { /* block ob: [P, CB] rows n L .. n L + L */
            float *an = J->at + (ob * P + n * L) * CB;
            const int64_t o0 = ob * CB, o1 = o0 + CB < J->Cd ? o0 + CB : J->Cd;
            for (int64_t o = o0; o < o1; o++)
                for (int64_t l = 0; l < L; l++) an[l * CB + o - o0] = a[o * L + l];
            for (int64_t l = 0; o1 - o0 < CB && l < L; l++)
                memset(an + l * CB + o1 - o0, 0, sizeof(float) * (size_t)(CB - (o1 - o0)));
        }
        int64_t *ro = J->rowoff + n * L;
        for (int64_t oh = 0; oh < J->Hd; oh++)
            for (int64_t ow = 0; ow < J->Wd; ow++)
                ro[oh * J->Wd + ow] = ((n * J->Hp + oh * J->sh) * J->Wp + ow * J->sw) * Csp;
    }
}

/* jobs taken one at a time: (blocks [ob0, ob1) of CB destination channels) x (tiles [ct0, ct1) of nr source channels) */
static void wgcl_jobs(int64_t t0, int64_t t1, int tid, void *ctx) {
    WK_UNUSED(t0), WK_UNUSED(t1), WK_UNUSED(tid);
    wgcl_job *J = ctx;
    const rel *R = J->R;
    const int64_t K = J->KH * J->KW, CB = J->CB, nr = J->nr, P = R->N * J->Hd * J->Wd, Rn = J->Cs * K;
    const size_t bc = sizeof(float) * (size_t)(J->jo * CB * J->jc * nr * K), bt = sizeof(int64_t) * (size_t)(J->jc * K);
    float *cacc = conv_scratch(bc, false);   /* [ob][ct][k][nr][CB] sums */
    int64_t *toff = conv_scratch(bt, false); /* [ct][k] tile offsets in xt */
    if (!cacc || !toff) atomic_store(&J->failed, 1);
    for (int64_t j; cacc && toff && (j = atomic_fetch_add(&J->next, 1)) < J->njobs;) {
        const int64_t ob0 = J->nob * (j / J->njc) / J->njo, ob1 = J->nob * (j / J->njc + 1) / J->njo;
        const int64_t ct0 = J->nct * (j % J->njc) / J->njc, ct1 = J->nct * (j % J->njc + 1) / J->njc;
        const int64_t nt = (ct1 - ct0) * K; /* tiles per destination block */
        for (int64_t ct = ct0; ct < ct1; ct++)
            for (int64_t k = 0; k < K; k++)
                toff[(ct - ct0) * K + k] = (k / J->KW * J->dh * J->Wp + k % J->KW * J->dw) * J->ldx + ct * nr;
        memset(cacc, 0, sizeof(float) * (size_t)((ob1 - ob0) * nt * nr * CB));
        for (int64_t p0 = 0; p0 < P; p0 += J->PC) {
            const int64_t np = P - p0 < J->PC ? P - p0 : J->PC;
            for (int64_t ob = ob0; ob < ob1; ob++)
                J->fn(J->at + (ob * P + p0) * CB, CB, J->xt, J->rowoff + p0, np, toff, nt, (int)nr,
                      cacc + (ob - ob0) * nt * nr * CB);
        }
        /* into W by (destination block, source tile): the tile's K blocks of sums [nr, CB] (K nr CB floats) stay in L1
         * while each of its CB rows of W gets nr K contiguous floats (a whole job's sums per row of W streamed them
         * from L2 once per row: ~6% of l4's weight gradient) */
        for (int64_t ob = ob0; ob < ob1; ob++)
            for (int64_t ct = ct0; ct < ct1; ct++) {
                const float *sb = cacc + ((ob - ob0) * (ct1 - ct0) + ct - ct0) * K * nr * CB;
                const int64_t c1 = (ct + 1) * nr < J->Cs ? (ct + 1) * nr : J->Cs, o1 = (ob + 1) * CB < J->Cd ? (ob + 1) * CB : J->Cd;
                for (int64_t o = ob * CB; o < o1; o++)
                    for (int64_t c = ct * nr; c < c1; c++) {
                        const float *sv = sb + (c - ct * nr) * CB + o - ob * CB;
                        float *w = J->W + (J->g * J->Cd + o) * Rn + c * K;
                        for (int64_t k = 0; k < K; k++) w[k] = sv[k * nr * CB];
                    }
            }
    }
    conv_scratch_free(cacc, bc);
    conv_scratch_free(toff, bt);
}

/* The weight gradient by Note [Weight gradient, channels last]; 1 when the shape is not for it */
static int conv_wgrad_cl(const rel *R, const geo3 *G, const float *A, const float *B, float *W) {
    if (G->in[0] != 1 || G->kn[0] != 1 || G->ln[0] != 1) return 1;
    const int vl = dconv_pick()->vl;
    wgcl_job J = {.R = R, .A = A, .B = B, .W = W};
    J.Cs = R->Cb / R->G, J.Cd = R->Ca / R->G;
    J.Hs = G->in[1], J.Ws = G->in[2], J.Hd = G->ln[1], J.Wd = G->ln[2];
    J.ph = G->pd[1], J.pw = G->pd[2], J.sh = G->st[1], J.sw = G->st[2], J.dh = G->dl[1], J.dw = G->dl[2];
    J.KH = G->kn[1], J.KW = G->kn[2];
    const int64_t K = J.KH * J.KW;
    /* where it pays: a vector of destination channels, enough source channels for a tile, taps to amortise */
    if (vl < 4 || J.Cd < vl || J.Cs < 8 || J.Cs * K < 64) return 1;
    /* and images of at most 256 positions (ResNet l2-l4): on bigger ones (l1, l2_down) the channels-last copy of the
     * image measured slower than the paths below */
    if (J.Hs * J.Ws > 256) return 1;
#if defined(__x86_64__) && defined(__GNUC__)
    J.fn = vl >= 16 ? wk__dconv_wgrad_cl_avx512 : vl == 8 ? wk__dconv_wgrad_cl_avx2 : dconv_wgrad_cl__port;
#else
    J.fn = dconv_wgrad_cl__port;
#endif
    J.nr = vl < 16 ? 6 : J.Cs % 12 == 0 || J.Cs >= 192 ? 12 : 8; /* AVX-512: 12 x 2 vectors, unless it pads Cs much */
    J.CB = 2 * vl;
    J.Hp = J.Hs + 2 * J.ph, J.Wp = J.Ws + 2 * J.pw;
    J.nct = (J.Cs + J.nr - 1) / J.nr, J.nob = (J.Cd + J.CB - 1) / J.CB;
    J.Csp = J.nct * J.nr, J.Cdp = J.nob * J.CB;
    /* strides of an odd number of 64-byte lines (+ 16 floats where even): consecutive pixels / rows of at then fall in
     * different L1 sets (a 1 or 2 KiB stride keeps a tile's 128 rows in 4-8 sets of 64: measured 10-15% slower) */
    J.ldx = (J.Csp + 15) / 16 * 16;
    if (J.ldx / 16 % 2 == 0) J.ldx += 16;
    J.PC = 128; /* positions a chunk: at 16 KiB (AVX-512) or 8 (AVX2); 256 measured 5-11% slower */
    const int64_t P = R->N * J.Hd * J.Wd, nxt = R->N * J.Hp * J.Wp * J.ldx;
    if (nxt > (16 << 20) || P * J.Cdp > (16 << 20)) return 1; /* the channels-last copies: at most 64 MiB each */
    /* jobs: blocks of jo destination blocks x jc source tiles, their sums (jo CB x jc nr x K floats) in L2; split
     * until every thread has about two jobs */
    int nt = wk_get_num_threads();
    J.jo = J.nob, J.jc = J.nct;
    for (;;) {
        int64_t njobs = ((J.nob + J.jo - 1) / J.jo) * ((J.nct + J.jc - 1) / J.jc);
        bool big = J.jo * J.CB * J.jc * J.nr * K > (128 << 10);
        if (!big && njobs >= 2 * nt) break;
        if (J.jo == 1 && J.jc == 1) break;
        if (J.jc == 1 || (J.jo > 1 && J.jo * J.CB >= J.jc * J.nr))
            J.jo = (J.jo + 1) / 2;
        else
            J.jc = (J.jc + 1) / 2;
    }
    /* njo x njc ranges of even sizes (22 tiles in 4: 5 6 5 6, not 6 6 6 4); jo, jc: the largest */
    J.njo = (J.nob + J.jo - 1) / J.jo, J.njc = (J.nct + J.jc - 1) / J.jc;
    J.jo = (J.nob + J.njo - 1) / J.njo, J.jc = (J.nct + J.njc - 1) / J.njc;
    J.njobs = J.njo * J.njc;
    const size_t bx = sizeof(float) * (size_t)nxt, ba = sizeof(float) * (size_t)(P * J.Cdp);
    J.xt = conv_scratch(bx, false);
    J.at = conv_scratch(ba, false);
    J.rowoff = conv_scratch(sizeof(int64_t) * (size_t)P, false);
    int rc = J.xt && J.at && J.rowoff ? 0 : -1;
    const int64_t flops = 2 * P * J.Cd * J.Cs * K;
    if (flops < 200000) nt = 1;
    for (int64_t g = 0; g < R->G && rc == 0; g++) {
        J.g = g;
        wk_parallel_for(0, R->N, nt == 1 ? R->N : 1, wgcl_prep, &J);
        atomic_init(&J.next, 0);
        atomic_init(&J.failed, 0);
        wk_parallel_for(0, nt < J.njobs ? nt : J.njobs, 1, wgcl_jobs, &J);
        if (atomic_load(&J.failed)) rc = -1;
    }
    conv_scratch_free(J.xt, bx);
    conv_scratch_free(J.at, ba);
    conv_scratch_free(J.rowoff, sizeof(int64_t) * (size_t)P);
    if (rc < 0) return wk__error(WK_MEMORY_ERROR, "out of memory in convolution"), -1;
    return 0;
}

/* The direct path (Note [Direct convolution]) for one of the three products; 1 when the shape is not for it */
static int conv_direct(int kind, const rel *R, const geo3 *G, const float *A, const float *B, const float *W,
                       const float *bias, float *out) {
    if (G->in[0] != 1 || G->kn[0] != 1 || G->ln[0] != 1) return 1;
    /* strided: the forward only (grad_input is a strided scatter; the weight gradient measured slower than the
     * batched GEMM for ResNet's l2_down, the phase split and A's transposition per image against half the work) */
    if (kind != CONV_COLS_FROM_IMAGE && (G->st[1] != 1 || G->st[2] != 1)) return 1;
    const int64_t KH = G->kn[1], KW = G->kn[2], dh = G->dl[1], dwl = G->dl[2], K = KH * KW;
    const int64_t Cag = R->Ca / R->G, Cbg = R->Cb / R->G;
    dconv_job J = {.R = R, .K = dconv_pick(), .kind = kind, .bias = bias, .out = out};
    if (kind == CONV_IMAGE_FROM_COLS) { /* source: A, padded by (K - 1) * d - p */
        J.Cs = Cag, J.Hs = G->ln[1], J.Ws = G->ln[2], J.ph = (KH - 1) * dh - G->pd[1], J.pw = (KW - 1) * dwl - G->pd[2];
        J.Cd = Cbg, J.src = A;
    } else {
        J.Cs = Cbg, J.Hs = G->in[1], J.Ws = G->in[2], J.ph = G->pd[1], J.pw = G->pd[2];
        J.Cd = Cag, J.src = B, J.a = A;
    }
    if (J.ph < 0 || J.pw < 0) return 1;
    J.sh = G->st[1], J.sw = G->st[2];
    J.Hp = J.Hs + 2 * J.ph, J.Wp = J.Ws + 2 * J.pw;
    J.Hq = (J.Hp + J.sh - 1) / J.sh, J.Wq = (J.Wp + J.sw - 1) / J.sw, J.P = J.sh * J.sw * J.Hq * J.Wq;
    J.Hd = (J.Hp - (KH - 1) * dh - 1) / J.sh + 1, J.Wd = (J.Wp - (KW - 1) * dwl - 1) / J.sw + 1;
    if (kind == CONV_IMAGE_FROM_COLS ? (J.Hd != G->in[1] || J.Wd != G->in[2]) : (J.Hd != G->ln[1] || J.Wd != G->ln[2]))
        return 1; /* output_padding rows: not a plain correlation */
    J.D.Rn = J.Cs * K, J.D.Cd = J.Cd, J.wTg = (J.Cd + 5) / 6 * 6 * J.D.Rn, J.D.Lw = J.Hd * J.Wq;
    J.D.Wd = J.Wd, J.D.Wq = J.Wq;
    J.D.ldl = (J.D.Lw + 63) / 64 * 64 + 64; /* a tile (<= 64 wide) starting below Lw ends inside */
    /* where it pays (measured, bench/NOTES.md): few positions per image (ResNet l4: 4x4) re-read the weights for
     * too few tiles, the batched GEMM is better there; the weight gradient's lane kernel keeps its partial sums
     * [Cd * Rn * vl] per thread across the images: in L2, or amortised over many positions */
    /* small images with many channels: the channels in the lanes, positions of several images per tile (ResNet
     * l4's 4x4 too, since the taps go by chunks and the weights are packed in parallel: 1.5x the batched GEMM's
     * speed, AVX-512, one thread; 8 positions or fewer not measured: the GEMM) */
    const bool cv = kind != CONV_WEIGHT_GRAD && J.Cd >= 4 * J.K->vl && J.Hd * J.Wd <= 64 && J.Hd * J.Wd > 8;
    if (J.D.Lw < 64 && !cv) return 1;
    if (kind == CONV_WEIGHT_GRAD && (J.Cd < J.K->vl || J.D.Rn < 64) && J.Cd * J.D.Rn * J.K->vl > (128 << 10) &&
        J.D.Lw < 512)
        return 1;
    /* the weight gradient with the channels in the lanes skips the wide grid's garbage columns; the other one
     * multiplies them by zero, so its source must be finite */
    const bool wg_cv = kind == CONV_WEIGHT_GRAD && J.Cd >= J.K->vl && J.D.Rn >= 64;
    if (kind == CONV_WEIGHT_GRAD && !wg_cv)
        for (int64_t i = 0; i < R->N * R->Cb * R->Isz; i++)
            if (!isfinite(B[i])) return 1;
    J.xpn = J.Cs * J.P + (KW - 1) * dwl + 128; /* the last tap's reads run up to a tile past the plane */
    const int64_t Rn = J.D.Rn, Rw = Cbg * K; /* taps here; W's row length */
    J.off = malloc(sizeof(int64_t) * (size_t)Rn);
    if (!J.off) return -1;
    for (int64_t c = 0; c < J.Cs; c++)
        for (int64_t k = 0; k < K; k++) {
            int64_t kk = kind == CONV_IMAGE_FROM_COLS ? K - 1 - k : k; /* the flipped kernel */
            int64_t y = kk / KW * dh, x = kk % KW * dwl; /* in the padded image: phase (y % sh, x % sw) */
            J.off[c * K + k] = c * J.P + (y % J.sh * J.sw + x % J.sw) * J.Hq * J.Wq + y / J.sh * J.Wq + x / J.sw;
        }
    J.D.off = J.off;
    int rc = 0;
    const int64_t flops = 2 * R->N * R->G * Rn * J.Cd * J.D.Lw;
    int nt = wk_get_num_threads();
    if (wg_cv) { /* the channels fill the lanes (few taps: the
                                                                      * transposition would not pay) */
        J.src = B, J.a = A;
        J.nv = J.Cd >= 2 * J.K->vl ? 2 : 1;
        J.nrs = R->G >= nt ? 1 : (nt + R->G - 1) / R->G; /* ranges of source channels per group: a job a thread */
        if (J.nrs > J.Cs) J.nrs = J.Cs;
        wk_parallel_for(0, R->G * J.nrs, flops < 200000 ? R->G * J.nrs : 1, dconv_wgrad_cv_jobs, &J);
    } else if (kind == CONV_WEIGHT_GRAD) {
        J.src = B, J.a = A;
        J.ob_n = (J.Cd + WK_DCONV_WR - 1) / WK_DCONV_WR;
        int64_t nb = R->G * J.ob_n;
        wk_parallel_for(0, nb, flops < 200000 ? nb : 1, dconv_wgrad_blocks, &J);
    } else {
        const int64_t CB = cv_cb(J.K), nob = (J.Cd + CB - 1) / CB;
        if (cv) J.wTg = nob * CB * Rn; /* [G, nob, Rn, CB] */
        const size_t nwT = sizeof(float) * (size_t)(R->G * J.wTg);
        J.wT = cv ? wk__cache_alloc(nwT) : calloc((size_t)(R->G * J.wTg), sizeof(float)); /* cv: dconv_pack_cv zeroes */
        if (!J.wT) {
            free(J.off);
            return -1;
        }
        J.w = W;
        /* taps per chunk: whole source channels, their CB-wide weights ~24 KiB (L1 with the planes they read) */
        J.kc = (24576 / (4 * CB)) / K * K;
        if (J.kc < K) J.kc = K;
        if (cv) /* blocks of (group, CB channels) in parallel */
            wk_parallel_for(0, R->G * nob, 1, dconv_pack_cv, &J);
        for (int64_t g = 0; g < R->G && !cv; g++)
            for (int64_t o = 0; o < J.Cd; o++)
                for (int64_t r = 0; r < Rn; r++) {
                    float *d = J.wT + g * J.wTg + (o / 6 * Rn + r) * 6 + o % 6;
                    if (kind == CONV_IMAGE_FROM_COLS) /* tap r = (A channel a, k), read at the flipped offset */
                        *d = W[(g * Cag + r / K) * Rw + o * K + r % K];
                    else
                        *d = W[(g * Cag + o) * Rw + r];
                }
        if (flops < 200000 || R->N < 2) nt = 1;
        if (nt > R->N) nt = (int)R->N;
        atomic_init(&J.next, 0);
        if (cv) {
            /* jobs of gi images: about 256 positions, their padded planes at most ~768 KiB (in L2), a multiple of the thread count of jobs (the sums do not depend on the grouping) */
            int64_t gmax = 256 / (J.Hd * J.Wd), gx = (768 << 8) / J.xpn, gd = (512 << 8) / (J.Hd * J.Wd * nob * CB);
            if (gmax > gx) gmax = gx;
            if (gmax > gd) gmax = gd; /* and the sums of all blocks at most ~512 KiB */
            if (gmax < 1) gmax = 1;
            int64_t nj = (R->N + gmax - 1) / gmax;
            nj = (nj + nt - 1) / nt * nt;
            J.gi = (R->N + nj - 1) / nj;
            if (nt > (R->N + J.gi - 1) / J.gi) nt = (int)((R->N + J.gi - 1) / J.gi);
        }
        wk_parallel_for(0, nt, 1, cv ? dconv_images_cv : dconv_images, &J);
        if (cv)
            wk__cache_free(J.wT, nwT);
        else
            free(J.wT);
    }
    free(J.off);
    if (atomic_load(&J.failed)) rc = -1;
    if (rc < 0) return wk__error(WK_MEMORY_ERROR, "out of memory in convolution"), -1;
    return 0;
}

/* One driver for the three products (Note [Convolution fast path]): chunks of nb images, a fixed number that does
 * not depend on the thread count (colc about 4M floats). */
static int conv_f32(int kind, const rel *R, const float *A, const float *B, const float *W, const float *bias,
                    float *out) {
    conv_chunk C = {.R = R, .a = A, .b = B, .w = W, .bias = bias, .out = out};
    geo_of(R, &C.G);
    int64_t Cag = R->Ca / R->G, Rn = (R->Cb / R->G) * R->Ksz, Lsz = R->Lsz;
    if (kind == CONV_WEIGHT_GRAD && (R->N == 0 || Lsz == 0)) {
        memset(out, 0, sizeof(float) * (size_t)(R->Ca * Rn));
        return 0;
    }
    if (kind == CONV_IMAGE_FROM_COLS && Lsz == 0) { /* nothing reads the image: it is all zeros */
        memset(out, 0, sizeof(float) * (size_t)(R->N * R->Cb * R->Isz));
        return 0;
    }
    if (R->N == 0 || Lsz == 0 || R->Ca == 0 || R->Cb == 0) {
        if (kind == CONV_COLS_FROM_IMAGE) /* sums over nothing: zero, plus the bias */
            for (int64_t i = 0; i < R->N * R->Ca * Lsz; i++) out[i] = bias ? bias[(i / Lsz) % R->Ca] : 0.0f;
        else if (kind == CONV_IMAGE_FROM_COLS)
            memset(out, 0, sizeof(float) * (size_t)(R->N * R->Cb * R->Isz));
        else
            memset(out, 0, sizeof(float) * (size_t)(R->Ca * Rn));
        return 0;
    }
    int drc = kind == CONV_WEIGHT_GRAD ? conv_wgrad_cl(R, &C.G, A, B, out) : 1;
    if (drc <= 0) return drc;
    drc = conv_direct(kind, R, &C.G, A, B, W, bias, out);
    if (drc <= 0) return drc;
    int64_t per = (Rn + Cag) * Lsz, nb;
    if (kind == CONV_WEIGHT_GRAD) {
        nb = (2 << 20) / per; /* K = nb*Lsz deep; colc about 2M floats */
    } else if (Lsz < 256 && Cag >= 64) {
        /* deep layers (few positions, many channels): nb*Lsz about 512 columns, so the weight is packed once per
         * chunk and the GEMM's tiles are full */
        nb = (512 + Lsz - 1) / Lsz;
        if (nb * per > (4 << 20)) nb = (4 << 20) / per;
    } else {
        /* one image per product, images in parallel: the col buffer stays in cache and small products read it
         * in place */
        per_image_job P = {C, kind, 0};
        int64_t grain = 2 * Cag * Rn * Lsz * R->G >= 100000 ? 1 : 100000 / (2 * Cag * Rn * Lsz * R->G + 1) + 1;
        wk_parallel_for(0, R->N, grain, per_image_range, &P);
        if (P.failed) return wk__error(WK_MEMORY_ERROR, "out of memory in convolution"), -1;
        return 0;
    }
    if (nb < 1) nb = 1;
    if (nb > R->N) nb = R->N;
    C.colc = malloc(sizeof(float) * (size_t)(Rn * nb * Lsz));
    C.ac = malloc(sizeof(float) * (size_t)(Cag * nb * Lsz));
    int rc = 0;
    if (!C.colc || !C.ac) rc = -1;
    int64_t grain = 2 * Cag * Rn * Lsz >= 100000 ? 1 : 100000 / (2 * Cag * Rn * Lsz + 1) + 1; /* images per thread */
    for (int64_t g = 0; g < R->G && rc == 0; g++)
        for (int64_t n0 = 0; n0 < R->N && rc == 0; n0 += nb) {
            C.n0 = n0, C.g = g, C.nb = R->N - n0 < nb ? R->N - n0 : nb;
            int64_t K = C.nb * Lsz;
            const float *wg = W + g * Cag * Rn;
            if (kind == CONV_COLS_FROM_IMAGE) { /* ac [Cag, K] = W[g] [Cag, Rn] @ colc [Rn, K] */
                wk_parallel_for(0, C.nb, grain, chunk_fill_cols, &C);
                rc = wk_gemm_f32(Cag, K, Rn, wg, Rn, 1, C.colc, K, 1, 0.0f, C.ac, K, 1);
                if (rc == 0) wk_parallel_for(0, C.nb, grain, chunk_scatter_a, &C);
            } else if (kind == CONV_IMAGE_FROM_COLS) { /* colc [Rn, K] = W[g]^T [Rn, Cag] @ ac [Cag, K] */
                wk_parallel_for(0, C.nb, grain, chunk_gather_a, &C);
                rc = wk_gemm_f32(Rn, K, Cag, wg, 1, Rn, C.ac, K, 1, 0.0f, C.colc, K, 1);
                if (rc == 0) wk_parallel_for(0, C.nb, grain, chunk_col2im, &C);
            } else { /* W[g] [Cag, Rn] (+)= ac [Cag, K] @ colc^T [K, Rn] */
                wk_parallel_for(0, C.nb, grain, chunk_fill_both, &C);
                float beta = n0 == 0 ? 0.0f : 1.0f;
                if (Cag > Rn && Rn < 128) /* a narrow weight row: its wide side as the GEMM's columns (measured) */
                    rc = wk_gemm_f32(Rn, Cag, K, C.colc, K, 1, C.ac, 1, K, beta, out + g * Cag * Rn, 1, Rn);
                else
                    rc = wk_gemm_f32(Cag, Rn, K, C.ac, K, 1, C.colc, 1, K, beta, out + g * Cag * Rn, Rn, 1);
            }
        }
    free(C.colc);
    free(C.ac);
    if (rc < 0) return wk__error(WK_MEMORY_ERROR, "out of memory in convolution"), -1;
    return 0;
}

static int cols_from_image_f32(const rel *R, const float *B, const float *W, const float *bias, float *A) {
    return conv_f32(CONV_COLS_FROM_IMAGE, R, NULL, B, W, bias, A);
}

static int image_from_cols_f32(const rel *R, const float *A, const float *W, float *B) {
    return conv_f32(CONV_IMAGE_FROM_COLS, R, A, NULL, W, NULL, B);
}

static int weight_grad_f32(const rel *R, const float *A, const float *B, float *W) {
    return conv_f32(CONV_WEIGHT_GRAD, R, A, B, NULL, NULL, W);
}

/* ---- argument checks (torch's ConvParams / check_shape_forward wording) ---- */
typedef struct {
    int nd;
    int64_t stride[3], padding[3], dilation[3], output_padding[3];
    bool transposed;
    int64_t groups;
} conv_params;

static int expand_named(wk_intlist v, int nd, const char *name, int64_t *out) {
    if (nd < 1 || nd > 3 || wk__nn_expand_param(v, nd, out) < 0) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, v.data, (int)v.len);
        wk__error(WK_RUNTIME_ERROR,
                  "expected %s to be a single integer value or a list of %d values to match the convolution "
                  "dimensions, but got %s=%s",
                  name, nd, name, b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    return 0;
}

static const char *legacy_name(wk_dtype dt) {
    return dt == WK_BFLOAT16 ? "CPUBFloat16Type" : wk__legacy_type_name(dt);
}

static void sizes_str(wk_strbuf *b, const int64_t *v, int n) { wk_sb_ints(b, v, n); }

static int conv_check(const wk_tensor *input, const wk_tensor *weight, const wk_tensor *bias, wk_intlist stride,
                      wk_intlist padding, wk_intlist dilation, bool transposed, wk_intlist output_padding,
                      int64_t groups, conv_params *P) {
    if (groups <= 0) return wk__error(WK_RUNTIME_ERROR, "non-positive groups is not supported"), -1;
    int nd = weight->ndim - 2;
    P->nd = nd;
    P->transposed = transposed;
    P->groups = groups;
    if (expand_named(stride, nd, "stride", P->stride) < 0 || expand_named(padding, nd, "padding", P->padding) < 0 ||
        expand_named(dilation, nd, "dilation", P->dilation) < 0)
        return -1;
    if (transposed) {
        if (expand_named(output_padding, nd, "output_padding", P->output_padding) < 0) return -1;
    } else {
        for (int j = 0; j < nd; j++) P->output_padding[j] = 0;
    }
    for (int j = 0; j < nd; j++)
        if (P->padding[j] < 0) return wk__error(WK_RUNTIME_ERROR, "negative padding is not supported"), -1;
    for (int j = 0; j < nd; j++)
        if (P->output_padding[j] < 0) return wk__error(WK_RUNTIME_ERROR, "negative output_padding is not supported"), -1;
    for (int j = 0; j < nd; j++)
        if (P->stride[j] <= 0) return wk__error(WK_RUNTIME_ERROR, "non-positive stride is not supported"), -1;
    for (int j = 0; j < nd; j++)
        if (P->dilation[j] < 0) return wk__error(WK_RUNTIME_ERROR, "dilation should be greater than zero"), -1;
    for (int j = 0; j < nd; j++)
        if (P->dilation[j] == 0) return wk__error(WK_RUNTIME_ERROR, "non-positive dilation is not supported"), -1;
    if (bias && bias->dtype != input->dtype) {
        wk__error(WK_RUNTIME_ERROR, "Input type (%s) and bias type (%s) should be the same",
                  wk__cpp_type_name(input->dtype), wk__cpp_type_name(bias->dtype));
        return -1;
    }
    if (input->dtype != weight->dtype) {
        wk_dtype i = input->dtype;
        /* oneDNN's check, where torch picks oneDNN: always for float32, for bf16 / fp16 by the CPU (Note [CPU-dependent
         * paths in torch]); else the native kernel's */
        if (i == WK_FLOAT32 || (i == WK_FLOAT16 && wk__cpu_avx512_fp16()) || (i == WK_BFLOAT16 && wk__cpu_avx512_core()))
            wk__error(WK_RUNTIME_ERROR,
                      "Input type (%s) and weight type (%s) should be the same or input should be a MKLDNN tensor and "
                      "weight is a dense tensor",
                      legacy_name(i), legacy_name(weight->dtype));
        else
            wk__error(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(i),
                      wk_dtype_scalar_name(weight->dtype));
        return -1;
    }
    wk_strbuf ws = {0}, is = {0}, bs = {0};
    sizes_str(&ws, weight->sizes, weight->ndim);
    sizes_str(&is, input->sizes, input->ndim);
    int rc = -1;
    if (weight->ndim != input->ndim) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s "
                  "instead",
                  weight->ndim, weight->ndim, ws.s, input->ndim, is.s);
        goto done;
    }
    if (weight->sizes[0] < groups) {
        wk__error(WK_RUNTIME_ERROR,
                  "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got weight of size %s "
                  "instead",
                  (long long)groups, (long long)groups, ws.s);
        goto done;
    }
    if (weight->sizes[0] % groups) {
        wk__error(WK_RUNTIME_ERROR,
                  "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got weight of size "
                  "[%s] instead",
                  (long long)groups, (long long)groups, ws.s);
        goto done;
    }
    if (bias) sizes_str(&bs, bias->sizes, bias->ndim);
    if (!transposed) {
        if (input->sizes[1] != weight->sizes[1] * groups) {
            wk__error(WK_RUNTIME_ERROR,
                      "Given groups=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld "
                      "channels instead",
                      (long long)groups, ws.s, is.s, (long long)(weight->sizes[1] * groups), (long long)input->sizes[1]);
            goto done;
        }
        if (bias && !(bias->ndim == 1 && bias->sizes[0] == weight->sizes[0])) {
            wk__error(WK_RUNTIME_ERROR,
                      "Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got bias of "
                      "size %s instead",
                      ws.s, (long long)weight->sizes[0], bs.s);
            goto done;
        }
        bool ok = true;
        wk_strbuf a = {0}, k = {0};
        for (int j = 0; j < nd; j++) {
            int64_t in = input->sizes[j + 2] + 2 * P->padding[j], ke = P->dilation[j] * (weight->sizes[j + 2] - 1) + 1;
            wk_sb_printf(&a, "%s%lld", j ? " x " : "", (long long)in);
            wk_sb_printf(&k, "%s%lld", j ? " x " : "", (long long)ke);
            if (in < ke) ok = false;
        }
        if (!ok)
            wk__error(WK_RUNTIME_ERROR,
                      "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't be greater "
                      "than actual input size",
                      a.s, k.s);
        wk_sb_free(&a);
        wk_sb_free(&k);
        if (!ok) goto done;
    } else {
        if (input->sizes[1] != weight->sizes[0]) {
            wk__error(WK_RUNTIME_ERROR,
                      "Given transposed=1, weight of size %s, expected input%s to have %lld channels, but got %lld "
                      "channels instead",
                      ws.s, is.s, (long long)weight->sizes[0], (long long)input->sizes[1]);
            goto done;
        }
        if (bias && !(bias->ndim == 1 && bias->sizes[0] == weight->sizes[1] * groups)) {
            wk__error(WK_RUNTIME_ERROR,
                      "Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %lld elements, "
                      "but got bias of size %s instead",
                      ws.s, (long long)(weight->sizes[1] * groups), bs.s);
            goto done;
        }
        bool ok = true;
        for (int j = 0; j < nd; j++)
            if (!(P->output_padding[j] < P->stride[j] || P->output_padding[j] < P->dilation[j])) ok = false;
        if (!ok) {
            static const char *names2[3] = {"depth", "height", "width"};
            wk_strbuf m = {0};
            int n2 = nd < 2 ? 2 : nd, first = 3 - n2;
            int64_t op[3], st[3], dl[3];
            for (int j = 0; j < n2; j++) { /* 1-d runs as 2-d with a leading size-1 dim */
                int src = j - (n2 - nd);
                op[j] = src < 0 ? 0 : P->output_padding[src];
                st[j] = src < 0 ? 1 : P->stride[src];
                dl[j] = src < 0 ? 1 : P->dilation[src];
            }
            wk_sb_puts(&m, "output padding must be smaller than either stride or dilation, but got");
            for (int j = 0; j < n2; j++) wk_sb_printf(&m, " output_padding_%s: %lld", names2[first + j], (long long)op[j]);
            for (int j = 0; j < n2; j++) wk_sb_printf(&m, " stride_%s: %lld", names2[first + j], (long long)st[j]);
            for (int j = 0; j < n2; j++) wk_sb_printf(&m, " dilation_%s: %lld", names2[first + j], (long long)dl[j]);
            wk__error(WK_RUNTIME_ERROR, "%s", m.s ? m.s : "");
            wk_sb_free(&m);
            goto done;
        }
    }
    if (input->dtype == WK_BOOL) {
        wk__not_implemented_for(nd == 3 ? "slow_conv3d_cpu" : "slow_conv2d_cpu", WK_BOOL);
        goto done;
    }
    rc = 0;
done:
    wk_sb_free(&ws);
    wk_sb_free(&is);
    wk_sb_free(&bs);
    return rc;
}

/* The relation of a conv call: input [N, C, *in], weight, params; out_sizes gets the output's sizes. */
static int conv_rel(const wk_tensor *input, const wk_tensor *weight, const conv_params *P, rel *R,
                    int64_t *out_sizes) {
    memset(R, 0, sizeof *R);
    R->nd = P->nd;
    R->N = input->sizes[0];
    R->G = P->groups;
    out_sizes[0] = input->sizes[0];
    for (int j = 0; j < P->nd; j++) {
        R->Kn[j] = weight->sizes[j + 2];
        R->s[j] = P->stride[j];
        R->p[j] = P->padding[j];
        R->d[j] = P->dilation[j];
    }
    if (!P->transposed) {
        R->Cb = input->sizes[1];
        R->Ca = weight->sizes[0];
        out_sizes[1] = R->Ca;
        for (int j = 0; j < P->nd; j++) {
            R->In[j] = input->sizes[j + 2];
            R->Ln[j] = (R->In[j] + 2 * R->p[j] - R->d[j] * (R->Kn[j] - 1) - 1) / R->s[j] + 1;
            out_sizes[j + 2] = R->Ln[j];
        }
    } else {
        R->Ca = input->sizes[1];
        R->Cb = weight->sizes[1] * P->groups;
        out_sizes[1] = R->Cb;
        for (int j = 0; j < P->nd; j++) {
            R->Ln[j] = input->sizes[j + 2];
            R->In[j] = (R->Ln[j] - 1) * R->s[j] - 2 * R->p[j] + R->d[j] * (R->Kn[j] - 1) + P->output_padding[j] + 1;
            if (R->In[j] <= 0) {
                wk__error(WK_RUNTIME_ERROR, "could not construct a memory descriptor using a format tag");
                return -1;
            }
            out_sizes[j + 2] = R->In[j];
        }
    }
    if (wk__check_sizes(input->ndim, out_sizes) < 0) return -1;
    int64_t cs[2 * 3 + 1]; /* the im2col buffer [Cb/G * prod(K), prod(L)] must fit too */
    int ncs = 0;
    cs[ncs++] = R->Cb / (R->G ? R->G : 1);
    for (int j = 0; j < P->nd; j++) cs[ncs++] = R->Kn[j];
    for (int j = 0; j < P->nd; j++) cs[ncs++] = R->Ln[j];
    if (wk__check_sizes(ncs, cs) < 0) return -1;
    rel_finish(R);
    return 0;
}

/* float32 entry points: contiguous float operands, a float output (Note [Convolution fast path]) */
static wk_tensor *convolution_f32(const rel *R, wk_tensor *input, wk_tensor *weight, wk_tensor *bias, bool transposed,
                                  const int64_t *osz) {
    wk_tensor *x = wk__contiguous(input), *w = wk__contiguous(weight), *b = bias ? wk__contiguous(bias) : NULL;
    wk_tensor *out = wk__empty(input->ndim, osz, WK_FLOAT32);
    int rc = -1;
    if (x && w && (!bias || b) && out) {
        float *o = (float *)wk__data(out);
        const float *bp = b ? (const float *)wk__data(b) : NULL;
        if (!transposed) {
            rc = cols_from_image_f32(R, (const float *)wk__data(x), (const float *)wk__data(w), bp, o);
        } else {
            rc = image_from_cols_f32(R, (const float *)wk__data(x), (const float *)wk__data(w), o);
            if (rc == 0 && bp) {
                int64_t C = osz[1], S = R->Isz;
                for (int64_t n = 0; n < osz[0]; n++)
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t i = 0; i < S; i++) o[(n * C + c) * S + i] += bp[c];
            }
        }
    }
    wk_release(x);
    wk_release(w);
    wk_release(b);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

/* which: 0 grad_input (adjoint in the input), 1 grad_weight. g: grad_output, t: weight (0) or input (1). */
static wk_tensor *conv_backward_f32(const rel *R, wk_tensor *grad_output, wk_tensor *t, bool transposed, int which,
                                    int ndim, const int64_t *sizes) {
    wk_tensor *g = wk__contiguous(grad_output), *tc = wk__contiguous(t), *out = wk__empty(ndim, sizes, WK_FLOAT32);
    int rc = -1;
    if (g && tc && out) {
        const float *gp = (const float *)wk__data(g), *tp = (const float *)wk__data(tc);
        float *o = (float *)wk__data(out);
        if (which == 0)
            rc = transposed ? cols_from_image_f32(R, gp, tp, NULL, o) : image_from_cols_f32(R, gp, tp, o);
        else
            rc = transposed ? weight_grad_f32(R, tp, gp, o) : weight_grad_f32(R, gp, tp, o);
    }
    wk_release(g);
    wk_release(tc);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

wk_tensor *wk_impl_convolution(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                               wk_intlist padding, wk_intlist dilation, bool transposed, wk_intlist output_padding,
                               int64_t groups) {
    conv_params P;
    if (conv_check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, &P) < 0)
        return NULL;
    if (input->sizes[0] != 0 && input->sizes[1] != 0 && wk__numel(input) == 0) {
        /* torch's _select_conv_backend: only a zero batch or channel count goes to its Empty backend; its text shows
         * the input as its backends see it, a 1-d one viewed as 2-d ([N, C, 1, L]) */
        int64_t shown[WK_MAX_DIM + 1];
        int n = 0;
        for (int i = 0; i < input->ndim; i++) {
            if (input->ndim == 3 && i == 2) shown[n++] = 1;
            shown[n++] = input->sizes[i];
        }
        wk_strbuf b = {0};
        wk_sb_ints(&b, shown, n);
        wk__error(WK_RUNTIME_ERROR, "Only zero batch or zero channel inputs are supported, but got input shape: %s",
                  b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    rel R;
    int64_t osz[WK_MAX_DIM];
    if (conv_rel(input, weight, &P, &R, osz) < 0) return NULL;
    if (input->dtype == WK_FLOAT32) return convolution_f32(&R, input, weight, bias, transposed, osz);
    wk_tensor *out = wk__nn_work(input->ndim, osz);
    double *x = wk__nn_load(input), *w = wk__nn_load(weight), *b = bias ? wk__nn_load(bias) : NULL;
    int rc = -1;
    if (!out || !x || !w || (bias && !b)) goto done;
    double *o = wk__nn_data(out);
    rc = transposed ? image_from_cols(&R, x, w, o) : cols_from_image(&R, x, w, o);
    if (rc == 0 && b) {
        int64_t C = osz[1], S = wk__prod(osz + 2, P.nd);
        for (int64_t n = 0; n < osz[0]; n++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t i = 0; i < S; i++) o[(n * C + c) * S + i] += b[c];
    }
done:
    free(x);
    free(w);
    free(b);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return wk__nn_finish(out, input->dtype);
}

/* grad_input: the adjoint of convolution in its input (sizes input_sizes). grad_output [N, Cout, *out]. */
wk_tensor *wk_impl__nn_conv_backward_input(wk_tensor *grad_output, wk_tensor *weight, wk_intlist input_sizes,
                                           wk_intlist stride, wk_intlist padding, wk_intlist dilation, bool transposed,
                                           wk_intlist output_padding, int64_t groups) {
    conv_params P;
    if (input_sizes.len != weight->ndim || input_sizes.len > WK_MAX_DIM)
        return WK_FAIL(WK_RUNTIME_ERROR, "convolution_backward: bad input sizes");
    /* a header with input's sizes, for the checks and the geometry only (never read) */
    wk_tensor meta_, *meta = &meta_;
    memset(meta, 0, sizeof meta_);
    meta->ndim = weight->ndim;
    meta->dtype = weight->dtype;
    int64_t *isz = meta->sizes;
    memcpy(isz, input_sizes.data, sizeof(int64_t) * (size_t)input_sizes.len);
    int rc = conv_check(meta, weight, NULL, stride, padding, dilation, transposed, output_padding, groups, &P);
    rel R;
    int64_t osz[WK_MAX_DIM];
    if (rc == 0) rc = conv_rel(meta, weight, &P, &R, osz);
    if (rc < 0) return NULL;
    if (grad_output->ndim != weight->ndim || memcmp(grad_output->sizes, osz, sizeof(int64_t) * (size_t)weight->ndim))
        return WK_FAIL(WK_RUNTIME_ERROR, "convolution_backward: grad_output has the wrong shape");
    if (grad_output->dtype == WK_FLOAT32 && weight->dtype == WK_FLOAT32)
        return conv_backward_f32(&R, grad_output, weight, transposed, 0, weight->ndim, isz);
    wk_tensor *out = wk__nn_work(weight->ndim, isz);
    double *g = wk__nn_load(grad_output), *w = wk__nn_load(weight);
    rc = -1;
    if (out && g && w) rc = transposed ? cols_from_image(&R, g, w, wk__nn_data(out)) : image_from_cols(&R, g, w, wk__nn_data(out));
    free(g);
    free(w);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return wk__nn_finish(out, grad_output->dtype);
}

wk_tensor *wk_impl__nn_conv_backward_weight(wk_tensor *grad_output, wk_tensor *input, wk_intlist weight_sizes,
                                            wk_intlist stride, wk_intlist padding, wk_intlist dilation, bool transposed,
                                            wk_intlist output_padding, int64_t groups) {
    conv_params P;
    if (weight_sizes.len != input->ndim || weight_sizes.len > WK_MAX_DIM)
        return WK_FAIL(WK_RUNTIME_ERROR, "convolution_backward: bad weight sizes");
    wk_tensor meta_, *meta = &meta_; /* weight's sizes, for the checks and the geometry only */
    memset(meta, 0, sizeof meta_);
    meta->ndim = input->ndim;
    meta->dtype = input->dtype;
    int64_t *wsz = meta->sizes;
    memcpy(wsz, weight_sizes.data, sizeof(int64_t) * (size_t)weight_sizes.len);
    int rc = conv_check(input, meta, NULL, stride, padding, dilation, transposed, output_padding, groups, &P);
    rel R;
    int64_t osz[WK_MAX_DIM];
    if (rc == 0) rc = conv_rel(input, meta, &P, &R, osz);
    if (rc < 0) return NULL;
    if (grad_output->ndim != input->ndim || memcmp(grad_output->sizes, osz, sizeof(int64_t) * (size_t)input->ndim))
        return WK_FAIL(WK_RUNTIME_ERROR, "convolution_backward: grad_output has the wrong shape");
    if (grad_output->dtype == WK_FLOAT32 && input->dtype == WK_FLOAT32)
        return conv_backward_f32(&R, grad_output, input, transposed, 1, input->ndim, wsz);
    wk_tensor *out = wk__nn_work(input->ndim, wsz);
    double *g = wk__nn_load(grad_output), *x = wk__nn_load(input);
    rc = -1;
    if (out && g && x) rc = transposed ? weight_grad(&R, x, g, wk__nn_data(out)) : weight_grad(&R, g, x, wk__nn_data(out));
    free(g);
    free(x);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return wk__nn_finish(out, grad_output->dtype);
}

/* grad_bias = grad_output summed over every dim but 1 */
wk_tensor *wk_impl__nn_conv_backward_bias(wk_tensor *grad_output) {
    int64_t dims[WK_MAX_DIM];
    int n = 0;
    for (int i = 0; i < grad_output->ndim; i++)
        if (i != 1) dims[n++] = i;
    return wk_impl_sum_dim(grad_output, wk_ints(dims, n), false, WK_DTYPE_NONE);
}

/* the adjoint of _nn_conv_backward_bias: grad [C] -> [1, C, 1, ...] expanded to sizes */
wk_tensor *wk_impl__nn_conv_bias_expand(wk_tensor *grad, wk_intlist sizes) {
    int64_t shape[WK_MAX_DIM], zs[WK_MAX_DIM] = {0};
    if (sizes.len < 2 || grad->ndim != 1 || grad->sizes[0] != sizes.data[1])
        return WK_FAIL(WK_RUNTIME_ERROR, "convolution: bad bias gradient shape");
    for (int i = 0; i < sizes.len; i++) shape[i] = sizes.data[i];
    zs[1] = grad->strides[0];
    wk_tensor *v = wk__alias(grad, (int)sizes.len, shape, zs, grad->offset);
    if (!v) return NULL;
    wk_tensor *r = wk__clone(v);
    wk_release(v);
    return r;
}

/* ---- conv1d/2d/3d, conv_transpose1d/2d/3d: unbatched input and padding strings ---- */
static wk_tensor *batchify(wk_tensor *input, int nd, const char *fname, bool *unbatched) {
    if (input->ndim != nd + 1 && input->ndim != nd + 2) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, input->sizes, input->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s",
                  nd + 1, nd + 2, fname, b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    *unbatched = input->ndim == nd + 1;
    if (!*unbatched) return wk_retain(input);
    return wk__nn_unsqueeze(input, 0);
}

static wk_tensor *unbatchify(wk_tensor *out, bool unbatched) {
    if (!out || !unbatched) return out;
    wk_tensor *r = wk__nn_squeeze(out, 0);
    wk_release(out);
    return r;
}

static wk_tensor *conv_nd(int nd, const char *fname, wk_tensor *input, wk_tensor *weight, wk_tensor *bias,
                          wk_intlist stride, wk_intlist padding, wk_intlist dilation, int64_t groups) {
    bool unb;
    wk_tensor *x = batchify(input, nd, fname, &unb);
    if (!x) return NULL;
    int64_t zero[3] = {0, 0, 0};
    wk_tensor *r = wk_convolution(x, weight, bias, stride, padding, dilation, false, wk_ints(zero, nd), groups);
    wk_release(x);
    return unbatchify(r, unb);
}

static wk_tensor *conv_nd_str(int nd, const char *fname, wk_tensor *input, wk_tensor *weight, wk_tensor *bias,
                              wk_intlist stride, const char *padding, wk_intlist dilation, int64_t groups) {
    int64_t pad[3] = {0, 0, 0};
    if (!strcmp(padding, "valid")) return conv_nd(nd, fname, input, weight, bias, stride, wk_ints(pad, nd), dilation, groups);
    if (strcmp(padding, "same")) {
        wk__error(WK_RUNTIME_ERROR, "Invalid padding string: '%s'", padding);
        return NULL;
    }
    int64_t st[3], dl[3];
    if (expand_named(stride, nd, "stride", st) < 0 || expand_named(dilation, nd, "dilation", dl) < 0) return NULL;
    for (int j = 0; j < nd; j++)
        if (st[j] != 1) return WK_FAIL(WK_RUNTIME_ERROR, "padding='same' is not supported for strided convolutions");
    if (weight->ndim != nd + 2) return conv_nd(nd, fname, input, weight, bias, stride, wk_ints(pad, nd), dilation, groups);
    bool unb;
    wk_tensor *x = batchify(input, nd, fname, &unb);
    if (!x) return NULL;
    /* total padding d * (k - 1) per dim: symmetric part as padding, the odd extra on the right via constant_pad_nd */
    int64_t extra[6] = {0};
    bool asym = false;
    for (int j = 0; j < nd; j++) {
        int64_t total = dl[j] * (weight->sizes[j + 2] - 1), left = total / 2;
        pad[j] = left;
        if (total - left != left) {
            asym = true;
            extra[2 * (nd - 1 - j) + 1] = total - 2 * left; /* constant_pad_nd lists the last dim first */
        }
    }
    wk_tensor *xp = NULL, *r = NULL;
    if (asym) {
        /* torch warns here: "Using padding='same' with even kernel lengths and odd dilation may require a
         * zero-padded copy of the input be created" (the Python layer raises the warning) */
        xp = wk_constant_pad_nd(x, wk_ints(extra, 2 * nd), wk_int(0));
    } else {
        xp = wk_retain(x);
    }
    int64_t zero[3] = {0, 0, 0};
    if (xp) r = wk_convolution(xp, weight, bias, stride, wk_ints(pad, nd), dilation, false, wk_ints(zero, nd), groups);
    wk_release(x);
    wk_release(xp);
    return unbatchify(r, unb);
}

wk_tensor *wk_impl_conv1d(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride, wk_intlist padding,
                          wk_intlist dilation, int64_t groups) {
    return conv_nd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups);
}
wk_tensor *wk_impl_conv2d(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride, wk_intlist padding,
                          wk_intlist dilation, int64_t groups) {
    return conv_nd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}
wk_tensor *wk_impl_conv3d(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride, wk_intlist padding,
                          wk_intlist dilation, int64_t groups) {
    return conv_nd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups);
}
wk_tensor *wk_impl_conv1d_padding(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                                  const char *padding, wk_intlist dilation, int64_t groups) {
    return conv_nd_str(1, "conv1d", input, weight, bias, stride, padding, dilation, groups);
}
wk_tensor *wk_impl_conv2d_padding(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                                  const char *padding, wk_intlist dilation, int64_t groups) {
    return conv_nd_str(2, "conv2d", input, weight, bias, stride, padding, dilation, groups);
}
wk_tensor *wk_impl_conv3d_padding(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                                  const char *padding, wk_intlist dilation, int64_t groups) {
    return conv_nd_str(3, "conv3d", input, weight, bias, stride, padding, dilation, groups);
}

static wk_tensor *conv_t_nd(int nd, const char *fname, wk_tensor *input, wk_tensor *weight, wk_tensor *bias,
                            wk_intlist stride, wk_intlist padding, wk_intlist output_padding, int64_t groups,
                            wk_intlist dilation) {
    bool unb;
    wk_tensor *x = batchify(input, nd, fname, &unb);
    if (!x) return NULL;
    wk_tensor *r = wk_convolution(x, weight, bias, stride, padding, dilation, true, output_padding, groups);
    wk_release(x);
    return unbatchify(r, unb);
}
wk_tensor *wk_impl_conv_transpose1d(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                                    wk_intlist padding, wk_intlist output_padding, int64_t groups, wk_intlist dilation) {
    return conv_t_nd(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups, dilation);
}
wk_tensor *wk_impl_conv_transpose2d_input(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                                          wk_intlist padding, wk_intlist output_padding, int64_t groups,
                                          wk_intlist dilation) {
    return conv_t_nd(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups, dilation);
}
wk_tensor *wk_impl_conv_transpose3d_input(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_intlist stride,
                                          wk_intlist padding, wk_intlist output_padding, int64_t groups,
                                          wk_intlist dilation) {
    return conv_t_nd(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups, dilation);
}
