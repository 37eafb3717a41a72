"""linalg.solve_triangular (src/ops/linalg_dense.c, substitution without LAPACK): upper / lower, left / right,
unitriangular, batched with broadcasting, B in A's dtype, float32 / float64, gradients (torch's
linalg_solve_triangular_backward: gA kept to A's triangle, its diagonal dropped for unitriangular), second order,
out=, and torch's errors. The solution is unique, so values are compared directly."""
from .harness import *  # noqa: F401,F403
from .cases_linalg_dense import mat

TOL = dict(rtol=1e-5, atol=1e-6)
FD = [D.float32, D.float64]
RHS = [[1.5, -0.5], [0.25, 2.0], [-1.0, 0.75]]


def st(T, A, B, **kw):
    return T.linalg.solve_triangular(A, B, **kw)


cases("solve_triangular", lambda T, upper, left, unit, dtype:
      st(T, T.tensor(mat(3), dtype=dtype), T.tensor(RHS if left else [r for r in zip(*RHS)], dtype=dtype),
         upper=upper, left=left, unitriangular=unit),
      upper=BOOLS, left=BOOLS, unit=BOOLS, dtype=FD, **TOL)
cases("solve_triangular_batched", lambda T, upper, left:
      st(T, T.tensor(mat(3, batch=(2, 1))), T.tensor([RHS, RHS, RHS]) * (T.arange(3.) + 1).reshape(3, 1, 1)
         if left else T.tensor([[list(r) for r in zip(*RHS)]] * 3), upper=upper, left=left),
      upper=BOOLS, left=BOOLS, **TOL)
case("solve_triangular_nc", lambda T: st(T, nc_t(T, mat(4)), nc_t(T, mat(4, k=1)), upper=False), **TOL)
case("solve_triangular_mixed_dtype", lambda T: st(T, T.tensor(mat(3)), T.tensor(RHS, dtype=T.float64), upper=True),
     **TOL)
case("solve_triangular_empty", lambda T: st(T, T.zeros(0, 0), T.zeros(0, 2), upper=True))
case("solve_triangular_empty_rhs", lambda T: st(T, T.tensor(mat(3)), T.zeros(2, 3, 0), upper=True))
case("solve_triangular_singular", lambda T: st(T, T.tensor([[1., 2.], [0., 0.]]), T.ones(2, 1), upper=True))
case("solve_triangular_out", lambda T: (lambda o: (st(T, T.tensor(mat(3)), T.tensor(RHS), upper=True, out=o), o))(
    T.empty(0)), **TOL)
for _u in (True, False):
    for _l in (True, False):
        for _un in (True, False):
            grad_case(f"solve_triangular_grad[upper={_u},left={_l},unit={_un}]",
                      lambda T, A, B, u=_u, l=_l, un=_un: st(T, A, B, upper=u, left=l, unitriangular=un),
                      mat(3), RHS if _l else [list(r) for r in zip(*RHS)], **TOL)
grad_case("solve_triangular_grad2", lambda T, A, B: st(T, A, B, upper=True), inp(mat(3), dtype=D.float64),
          inp(RHS, dtype=D.float64), order=2, **TOL)
grad_case("solve_triangular_grad_batched", lambda T, A, B: st(T, A, B, upper=False), mat(3, batch=(2,)), RHS, **TOL)
error_case("solve_triangular_1d_A", lambda T: st(T, T.ones(3), T.ones(3, 2), upper=True))
error_case("solve_triangular_1d_B", lambda T: st(T, T.ones(3, 3), T.ones(3), upper=True))
error_case("solve_triangular_not_square", lambda T: st(T, T.ones(2, 3), T.ones(2, 2), upper=True))
error_case("solve_triangular_shapes", lambda T: st(T, T.ones(3, 3), T.ones(2, 4), upper=True))
error_case("solve_triangular_shapes_right", lambda T: st(T, T.ones(3, 3), T.ones(3, 2), upper=True, left=False))
error_case("solve_triangular_batch", lambda T: st(T, T.ones(2, 3, 3), T.ones(3, 3, 2), upper=True))
error_case("solve_triangular_int", lambda T: st(T, T.ones(3, 3, dtype=T.int32), T.ones(3, 2, dtype=T.int32),
                                                upper=True))
error_case("solve_triangular_no_upper", lambda T: T.linalg.solve_triangular(T.ones(3, 3), T.ones(3, 2)))
case("solve_triangular_mixed_dtype_f64_A", lambda T: st(T, T.tensor(mat(3), dtype=T.float64), T.tensor(RHS),
                                                         upper=False), **TOL)
