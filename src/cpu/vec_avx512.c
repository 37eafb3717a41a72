/* vec_avx512.c — the kernels of vec_impl.h compiled for AVX-512F (x86 only; vec.c uses its exp family when the CPU has AVX-512F, as torch its Sleef expf16). */
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif
#define WK_SIMD_AVX512 1
#define WK_VEC_TABLE wk__vec_avx512_ops
#include "cpu/vec_impl.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
typedef int wk__vec_avx512_unused; /* ISO C: no empty translation unit */
#endif
