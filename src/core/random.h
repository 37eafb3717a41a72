/* random.h — torch's CPU random-number core: the mt19937 generator (CPUGeneratorImpl) and the
 * sampling kernels of aten/src/ATen/native/cpu/DistributionTemplates.h, bit-identical to torch 2.13 on
 * x86 (AVX2/AVX512 builds: FMA where GCC fuses, the AVX2 float32 normal recipe).
 *
 * Note [Random kernels over buffers]
 * Every kernel fills a raw buffer `out` of `n` elements of one wk_dtype, element 0 first. torch visits
 * a tensor's elements in TensorIterator order, which for a nullary op is memory order; the tensor layer
 * therefore passes its storage span when the tensor is dense, or fills a contiguous scratch buffer and
 * scatters it in memory order otherwise. The one exception is normal_: its vectorised path depends on
 * the *tensor* being contiguous, so the caller says so (see wk__normal_).
 *
 * Each wk__<op>_ function does torch's argument checks for that op (same order, same messages), returns
 * 0 without drawing when n == 0 where torch does, and returns -1 with the error set on failure.
 * `g == NULL` means the default generator, like `generator=None`. The kernels are internal. */
#ifndef WK_RANDOM_H
#define WK_RANDOM_H

#include "core/core.h"

#define WK_MT19937_N 624
#define WK_GENERATOR_DEFAULT_SEED 67280421310721ULL /* c10::detail::default_rng_seed_val */

/* torch's CPUGeneratorImpl: an mt19937 engine plus the two Box–Muller caches. */
struct wk_generator {
    uint32_t mt[WK_MT19937_N];   /* engine state words */
    int left;                    /* draws left before the next twist, 1..624 (1 right after seeding) */
    uint32_t next;               /* index into mt of the next word to temper, 0..624 */
    uint64_t seed;               /* the 64-bit seed (initial_seed); only its low 32 bits seed mt */
    bool has_next_double_normal; /* next_double_normal_sample_ is set */
    double next_double_normal;   /* cached second Box–Muller sample (double path) */
    bool has_next_float_normal;  /* next_float_normal_sample_ is set (kept for the state bytes only) */
    float next_float_normal;
    int64_t refcount;
    void *pyobj; /* weak back-pointer to the Python wrapper, or NULL */
};

/* The public generator API (wk_generator_new, manual_seed, get/set_state, ...) is in include/wick.h. */

/* ---- sampling kernels (internal). out: n elements of dtype, written in order. ---- */

/* uniform_(from, to): floating dtypes. */
WK_INTERNAL int wk__uniform_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double from, double to);
/* normal_(mean, std): floating dtypes. `contiguous` is self.is_contiguous() of the tensor being filled:
 * with n >= 16 and contiguous, torch's vectorised Box–Muller fill runs over the buffer; otherwise each
 * element is a double Box–Muller sample (using and refilling the generator's cache), in buffer order. */
WK_INTERNAL int wk__normal_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double mean, double std,
                            bool contiguous);
/* random_() with no bounds: [0, 2^mantissa] for floating dtypes, [0, max] for integers, bool 0/1. */
WK_INTERNAL int wk__random_(wk_generator *g, wk_dtype dtype, void *out, int64_t n);
/* random_(from, to) (has_to) and random_(from, None) (!has_to; from == INT64_MIN is the full 64-bit
 * range). Python's random_(to) is random_(0, to). */
WK_INTERNAL int wk__random_from_to_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, int64_t from,
                                    bool has_to, int64_t to);
/* randperm(n): out has n elements of dtype (not bool). */
WK_INTERNAL int wk__randperm(wk_generator *g, wk_dtype dtype, void *out, int64_t n);
/* bernoulli_(p: float) and torch.bernoulli(x, p): any dtype. */
WK_INTERNAL int wk__bernoulli_scalar_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double p);
/* bernoulli_(p: Tensor) and torch.bernoulli(p): p holds n values of p_dtype (floating), element i of p
 * belonging to element i of out (the caller expands p to out's shape and lays both out in iteration
 * order). float64 p draws a 53-bit double per element, any other p a 24-bit float. */
WK_INTERNAL int wk__bernoulli_tensor_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, wk_dtype p_dtype,
                                      const void *p);
WK_INTERNAL int wk__exponential_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double lambd);
WK_INTERNAL int wk__geometric_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double p);
WK_INTERNAL int wk__log_normal_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double mean, double std);
WK_INTERNAL int wk__cauchy_(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double median, double sigma);
/* torch.poisson(rates): rates and out both hold n values of dtype (float32/float64), in row-major order. */
WK_INTERNAL int wk__poisson(wk_generator *g, wk_dtype dtype, void *out, const void *rates, int64_t n);
/* torch._standard_gamma(alpha): alpha and out hold n float32/float64 values in row-major order. */
WK_INTERNAL int wk__gamma_draws(wk_generator *g, wk_dtype dtype, void *out, const void *alpha, int64_t n);
/* torch._sample_dirichlet(alpha): alpha and out are [rows, k] row-major; the gammas are drawn in double. */
WK_INTERNAL int wk__dirichlet_draws(wk_generator *g, wk_dtype dtype, void *out, const void *alpha, int64_t rows,
                                     int64_t k);
/* torch.binomial(count, prob): count, prob and out hold n values of dtype, row-major, already broadcast. */
WK_INTERNAL int wk__binomial_draws(wk_generator *g, wk_dtype dtype, void *out, const void *count, const void *prob,
                             int64_t n);

/* torch.multinomial(probs, n_sample, replacement).
 * probs: `ndim` (1 or 2, as the tensor; 0 or more is checked) dims of sizes `sizes` with element strides
 * `strides`, dtype p_dtype. out: int64 [n_dist, n_sample] row-major (n_dist = sizes[0] for 2-D, else 1).
 * Without replacement (or n_sample == 1) q = empty_like(probs).exponential_(1) is drawn in the memory
 * order empty_like gives (the probs layout when it is dense, else row-major), then argmax/topk of p/q. */
WK_INTERNAL int wk__multinomial(wk_generator *g, wk_dtype p_dtype, const void *probs, int ndim,
                                const int64_t *sizes, const int64_t *strides, int64_t n_sample, bool replacement,
                                int64_t *out);

/* Dropout noise (F.dropout / nn.Dropout in training with 0 < p < 1, and per channel for dropout2d/3d):
 * out[i] = bernoulli(1-p) / (1-p) in dtype, i.e. 0 or 1/(1-p) rounded as torch's `noise.div_(1-p)`.
 * The caller returns the input unchanged without drawing when p == 0, !training or numel == 0, returns
 * input * 0 without drawing when p == 1, and otherwise multiplies: result = input * noise.
 * dropout: noise = empty_like(input), so it is drawn in the input's memory order when the input is
 * dense (e.g. transposed) and in row-major order otherwise (e.g. a slice).
 * dropout2d/3d: noise has shape (N, C, 1, 1...), contiguous: one draw per channel in (N, C) row-major
 * order, broadcast over the spatial dims (a 3-D input to dropout2d counts as (N, C, L), as in torch). */
WK_INTERNAL int wk__dropout_noise(wk_generator *g, wk_dtype dtype, void *out, int64_t n, double p);

#endif /* WK_RANDOM_H */
