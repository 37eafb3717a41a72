/* linalg_dense.h — the Householder QR kernels of linalg_dense.c (Note [QR as LAPACK's]), shared with linalg_svd.c */
#ifndef WK_OPS_LINALG_DENSE_H
#define WK_OPS_LINALG_DENSE_H
#include "core/core.h"

/* a [m, n] row-major := R on and above the diagonal, the reflectors v_j below it; tau [min(m, n)] */
WK_INTERNAL void wk__geqr2(double *a, int64_t m, int64_t n, double *tau);
/* q [m, qn] := the first qn columns (min(m, n) <= qn <= m) of Q = H_0 ... H_{k-1}, from wk__geqr2's a and tau */
WK_INTERNAL void wk__org2r(const double *a, int64_t m, int64_t n, const double *tau, double *q, int64_t qn);
#endif
