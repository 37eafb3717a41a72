/* vec_avx2.c — the kernels of vec_impl.h compiled for AVX2+FMA (x86 only; chosen at run time by vec.c). */
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define WK_SIMD_AVX2 1
#define WK_VEC_TABLE wk__vec_avx2_ops
#include "cpu/vec_impl.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
typedef int wk__vec_avx2_unused; /* ISO C: no empty translation unit */
#endif
