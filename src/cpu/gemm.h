/* gemm.h — float32 matrix products: C[M,N] = beta*C + A[M,K] @ B[K,N], element strides (row, col) for each. */
#ifndef WK_GEMM_H
#define WK_GEMM_H

#include "core/core.h"

/* The fast path: packed, blocked, SIMD micro-kernel, threaded. Returns 0, or -1 (out of memory). */
WK_INTERNAL int wk_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa,
                            const float *B, int64_t rsb, int64_t csb, float beta, float *C, int64_t rsc, int64_t csc);
/* The naive reference, kept beside it for tests. */
WK_INTERNAL void wk_gemm_f32_ref(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa,
                                 const float *B, int64_t rsb, int64_t csb, float beta, float *C, int64_t rsc,
                                 int64_t csc);

#endif
