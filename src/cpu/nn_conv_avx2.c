/* nn_conv_avx2.c — the direct convolution kernels of nn_conv_kern.h compiled for AVX2+FMA (x86 only; nn_conv.c
 * picks them at run time). */
#if defined(__x86_64__) && defined(__GNUC__)
#include "core/core.h"
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define WK_SIMD_AVX2 1
#include "cpu/simd.h"
#define WK_DCONV_SUF _avx2
#include "cpu/nn_conv_kern.h"
WK_INTERNAL extern const wk__dconv_kern wk__dconv_avx2;
const wk__dconv_kern wk__dconv_avx2 = {WK_VL, dconv_fwd__avx2, dconv_wgrad__avx2,
                                     dconv_wgrad_cv__avx2, dconv_fwd_cv__avx2};
WK_INTERNAL extern const wk__dconv_wgrad_cl_fn wk__dconv_wgrad_cl_avx2;
const wk__dconv_wgrad_cl_fn wk__dconv_wgrad_cl_avx2 = dconv_wgrad_cl__avx2;
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
typedef int wk__nn_conv_avx2_unused; /* ISO C: no empty translation unit */
#endif
