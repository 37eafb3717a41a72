/* nn_conv_avx512.c — the direct convolution kernels of nn_conv_kern.h compiled for AVX-512F (x86 only; nn_conv.c
 * picks them at run time). */
#if defined(__x86_64__) && defined(__GNUC__)
#include "core/core.h"
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif
#define WK_SIMD_AVX512 1
#include "cpu/simd.h"
#define WK_DCONV_SUF _avx512
#include "cpu/nn_conv_kern.h"
WK_INTERNAL extern const wk__dconv_kern wk__dconv_avx512;
const wk__dconv_kern wk__dconv_avx512 = {WK_VL, dconv_fwd__avx512, dconv_wgrad__avx512,
                                     dconv_wgrad_cv__avx512, dconv_fwd_cv__avx512};
WK_INTERNAL extern const wk__dconv_wgrad_cl_fn wk__dconv_wgrad_cl_avx512;
const wk__dconv_wgrad_cl_fn wk__dconv_wgrad_cl_avx512 = dconv_wgrad_cl__avx512;
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
typedef int wk__nn_conv_avx512_unused; /* ISO C: no empty translation unit */
#endif
