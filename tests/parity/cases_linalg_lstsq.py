"""linalg.lstsq (src/ops/linalg_lstsq.c, Note [lstsq through the SVD]): every driver (gels, gelsy default, gelsd,
gelss) with torch's per-driver outputs (rank, singular_values, residuals only for m > n, full rank and not gelsy),
tall / square / wide, rank-deficient (the minimum-norm solution; rank from rcond), the vector right-hand side,
batches with broadcasting, float32 / float64, gradients (torch's linalg_lstsq_backward through pinv), torch's errors.
The least-squares solution is unique for full-rank tall input and the minimum-norm one otherwise, so values are
compared directly."""
from .harness import *  # noqa: F401,F403
from .cases_linalg_lu import gen

TOL = dict(rtol=1e-4, atol=1e-5)  # LAPACK's QR / SVD round differently from wick's Jacobi SVD
FD = [D.float32, D.float64]
DRIVERS = [None, "gels", "gelsy", "gelsd", "gelss"]
FULL_DRIVERS = ["gelsy", "gelsd", "gelss"]  # gels assumes full rank (its rank-deficient answer is LAPACK's noise)
RDEF = [[1., 2., 3.], [2., 4., 6.], [1., 0., 1.], [0., 1., 1.]]  # rank 2


def ls(T, A, B, dtype=None, **kw):
    return T.linalg.lstsq(T.tensor(A, dtype=dtype), T.tensor(B, dtype=dtype), **kw)


cases("lstsq_tall", lambda T, driver, dtype: ls(T, gen(5, 3, shift=2.), gen(5, 2, k=1), dtype, driver=driver),
      driver=DRIVERS, dtype=FD, **TOL)
cases("lstsq_square", lambda T, driver: ls(T, gen(3, 3, shift=2.), gen(3, 2, k=2), driver=driver), driver=DRIVERS,
      **TOL)
cases("lstsq_wide", lambda T, driver: ls(T, gen(2, 4, shift=2.), gen(2, 3, k=3), driver=driver),
      driver=FULL_DRIVERS, **TOL)
cases("lstsq_rank_deficient", lambda T, driver, dtype: ls(T, RDEF, gen(4, 2, k=4), dtype, driver=driver),
      driver=FULL_DRIVERS, dtype=FD, **TOL)
cases("lstsq_rcond", lambda T, driver: ls(T, gen(4, 3, shift=0.5), gen(4, 1, k=5), driver=driver, rcond=0.3),
      driver=["gelsd", "gelss"], **TOL)
cases("lstsq_vector", lambda T, driver: T.linalg.lstsq(T.tensor(gen(4, 2, shift=2.)), T.tensor([1., -2., 0.5, 3.]),
                                                       driver=driver), driver=DRIVERS, **TOL)
cases("lstsq_batched", lambda T, driver: ls(T, gen(4, 2, shift=2., batch=(2,)), gen(4, 3, k=6, batch=(2,)),
                                            driver=driver), driver=DRIVERS, **TOL)
case("lstsq_broadcast_A", lambda T: ls(T, gen(4, 2, shift=2., batch=(1,)), gen(4, 3, k=6, batch=(2,)), driver="gelsd"),
     **TOL)
case("lstsq_broadcast_B", lambda T: ls(T, gen(4, 2, shift=2., batch=(3, 1)), gen(4, 1, k=7, batch=(1, 2)),
                                       driver="gelsd"), **TOL)
error_case("lstsq_vector_batch_mismatch", lambda T: ls(T, gen(4, 2, shift=2., batch=(3, 1)), gen(4, 1, k=7, batch=(2,))))
error_case("lstsq_2d_A_3d_B", lambda T: ls(T, gen(4, 2, shift=2.), gen(4, 3, k=6, batch=(2,))))
case("lstsq_batch_vector", lambda T: T.linalg.lstsq(T.tensor(gen(4, 2, shift=2., batch=(2,))),
                                                    T.tensor(gen(2, 4, k=8)), driver="gelss"), **TOL)
case("lstsq_batched_one_deficient", lambda T: ls(T, [RDEF, gen(4, 3, shift=2.)], gen(4, 2, batch=(2,)),
                                                 driver="gelsd"), **TOL)
case("lstsq_nc", lambda T: T.linalg.lstsq(nc_t(T, gen(3, 5, shift=2.)), T.tensor(gen(5, 2))), **TOL)
case("lstsq_zeros", lambda T: ls(T, [[0., 0.], [0., 0.], [0., 0.]], gen(3, 2), driver="gelsd"))
case("lstsq_empty_rows", lambda T: T.linalg.lstsq(T.zeros(0, 2), T.zeros(0, 3), driver="gelsd"))
case("lstsq_empty_cols", lambda T: T.linalg.lstsq(T.zeros(3, 0), T.ones(3, 2), driver="gelsd"))
case("lstsq_grad_fn", lambda T: T.linalg.lstsq(T.tensor(gen(4, 2, shift=2.), requires_grad=True), T.tensor(gen(4, 1))))
case("lstsq_out", lambda T: (lambda s, r, k, v: (T.linalg.lstsq(T.tensor(gen(4, 2, shift=2.)), T.tensor(gen(4, 1)),
                                                               driver="gelsd", out=(s, r, k, v)), s, r, k, v))(
    T.empty(0), T.empty(0), T.empty(0, dtype=T.int64), T.empty(0)), **TOL)
error_case("lstsq_shapes", lambda T: T.linalg.lstsq(T.ones(4, 2), T.ones(3, 2)))
error_case("lstsq_shapes_vector", lambda T: T.linalg.lstsq(T.ones(4, 2), T.ones(3)))
error_case("lstsq_1d", lambda T: T.linalg.lstsq(T.ones(3), T.ones(3)))
error_case("lstsq_driver", lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 1), driver="gesvd"))
error_case("lstsq_dtypes", lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 1, dtype=T.float64)))
error_case("lstsq_int", lambda T: T.linalg.lstsq(T.ones(3, 2, dtype=T.int32), T.ones(3, 1, dtype=T.int32)))
error_case("lstsq_dims", lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(2, 3, 2)))
error_case("lstsq_batch", lambda T: T.linalg.lstsq(T.ones(2, 4, 2), T.ones(3, 4, 2)))
for _d in ["gelsy", "gelsd", "gels"]:
    grad_case(f"lstsq_grad[{_d}]", lambda T, A, B, d=_d: T.linalg.lstsq(A, B, driver=d).solution,
              gen(5, 3, shift=2.), gen(5, 2, k=1), **TOL)
grad_case("lstsq_grad_wide", lambda T, A, B: T.linalg.lstsq(A, B)[0], gen(2, 4, shift=2.), gen(2, 2, k=3), **TOL)
grad_case("lstsq_grad_vector", lambda T, A, B: T.linalg.lstsq(A, B).solution, gen(4, 2, shift=2.), [1., -2., .5, 3.],
          **TOL)
grad_case("lstsq_grad_batched_f64", lambda T, A, B: T.linalg.lstsq(A, B).solution,
          inp(gen(4, 2, shift=2., batch=(2,)), dtype=D.float64), inp(gen(4, 1, k=2, batch=(2,)), dtype=D.float64),
          **TOL)
grad_case("lstsq_grad_broadcast", lambda T, A, B: T.linalg.lstsq(A, B).solution, gen(4, 2, shift=2., batch=(1,)),
          gen(4, 1, k=2, batch=(3,)), **TOL)
grad_case("lstsq_grad2", lambda T, A, B: T.linalg.lstsq(A, B).solution, inp(gen(4, 2, shift=2.), dtype=D.float64),
          inp(gen(4, 1, k=1), dtype=D.float64), order=2, **TOL)
