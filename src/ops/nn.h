/* nn.h — what the nn kernels (src/nn_*.c) share: the elementwise framework, float64 working buffers, argument
 * helpers with torch's messages.
 *
 * Note [nn working precision]: the heavy nn kernels (convolution, pooling, normalisation, softmax, losses) read
 * their inputs into contiguous float64 working buffers, compute there, and round once to the output dtype. That
 * keeps one obviously-correct reference kernel per op for every floating dtype; the CPU-speed work replaces the
 * hot ones with typed, vectorised kernels checked against these. Elementwise activations use the typed loops of
 * src/cpu/loops.h directly (float32 computes in float, as torch does). */
#ifndef WK_NN_H
#define WK_NN_H

#include "autograd/autograd.h"
#include "ops_impl.h"
#include "ops/pointwise.h"

/* A contiguous float64 copy of t's elements in row-major order (numel doubles; malloc'ed, free with free()). */
WK_INTERNAL double *wk__nn_load(const wk_tensor *t);
/* A new contiguous float64 tensor of `sizes`, zero-filled: kernels write into its data and then call
 * wk__nn_finish to round it to the output dtype. */
WK_INTERNAL wk_tensor *wk__nn_work(int ndim, const int64_t *sizes);
static inline double *wk__nn_data(wk_tensor *t) { return (double *)wk__data(t); }
/* Steals `work` (float64) and returns it converted to `dtype` (work itself when dtype is float64). */
WK_INTERNAL wk_tensor *wk__nn_finish(wk_tensor *work, wk_dtype dtype);
/* "expected floating point" guard with the kernel's name: "\"<name>\" not implemented for 'Long'". */
WK_INTERNAL int wk__nn_check_float(const wk_tensor *t, const char *kernel);
/* Reads a int64 index tensor (any integral dtype) as a contiguous int64 copy (malloc'ed). */
WK_INTERNAL int64_t *wk__nn_load_index(const wk_tensor *t);
/* Expands an int[] argument of 1 or n entries to n entries (torch's `expand_param_if_needed`); -1 on a bad
 * length, with "<fn>: <what> must either be a single int, or a tuple of <n> ints" style messages left to callers. */
WK_INTERNAL int wk__nn_expand_param(wk_intlist v, int n, int64_t *out);
/* Reduction enum as torch's at::Reduction: 0 none, 1 mean, 2 sum. Reduces a float64 buffer of n losses. */
/* t.unsqueeze(dim) / t.squeeze(dim) with autograd (new references), as torch's composites use them. */
WK_INTERNAL wk_tensor *wk__nn_unsqueeze(wk_tensor *t, int64_t dim);
WK_INTERNAL wk_tensor *wk__nn_squeeze(wk_tensor *t, int64_t dim);
/* Note [Convolution as one relation] (nn_conv.c): an image side In[] and a columns side Ln[] related by
 * pos = l * s - p + k * d per spatial dim. im2col reads a [C, Isz] block into col [C * Ksz, Lsz]; col2im adds
 * col back into the block (its adjoint). */
typedef struct {
    int nd;                /* spatial dims (1..3) */
    int64_t N, G;          /* batch, groups */
    int64_t Ca, Cb;        /* channels on the columns side (A) and the image side (B) */
    int64_t In[3], Ln[3], Kn[3], s[3], p[3], d[3]; /* image, columns, kernel sizes; stride, padding, dilation */
    int64_t Isz, Lsz, Ksz; /* products */
} wk__nn_rel;
WK_INTERNAL void wk__nn_rel_finish(wk__nn_rel *r);
WK_INTERNAL void wk__nn_im2col(const wk__nn_rel *R, const double *b, int64_t Cbg, double *col);
WK_INTERNAL void wk__nn_col2im(const wk__nn_rel *R, const double *col, int64_t Cbg, double *b);
enum { WK_RED_NONE = 0, WK_RED_MEAN = 1, WK_RED_SUM = 2 };
WK_INTERNAL int wk__nn_check_reduction(int64_t reduction);

#endif
