"""torch's legacy solvers (src/ops/linalg_solvers.c): torch.triangular_solve / Tensor.triangular_solve (solution and
cloned_coefficient, upper / transpose / unitriangular, batch broadcasting), torch.cholesky_solve, torch.cholesky_inverse
and the deprecated torch.cholesky -- values (the solutions are unique, compared directly), grad_fn names, gradients
(torch's triangular_solve_backward, cholesky_solve_backward, cholesky_inverse_backward, cholesky_backward; uneven
weights, second order in float64), torch's checks and texts (linearSolveCheckInputs, LinAlgError)."""
from .harness import *  # noqa: F401,F403
from .cases_linalg_dense import mat, spd

TOL = dict(rtol=1e-5, atol=1e-5)
FD = [D.float32, D.float64]
RHS = [[1.5, -0.5], [0.25, 2.0], [-1.0, 0.75]]


def tri(T, lower=True, k=0, dtype=None, batch=()):
    """mat's well-conditioned data kept to one triangle (a Cholesky-like factor with a positive diagonal)."""
    A = T.tensor(mat(3, k=k, batch=batch), dtype=dtype)
    return A.tril() if lower else A.triu()


# ---- triangular_solve
cases("triangular_solve", lambda T, upper, transpose, unit, dtype:
      T.triangular_solve(T.tensor(RHS, dtype=dtype), T.tensor(mat(3), dtype=dtype), upper=upper, transpose=transpose,
                         unitriangular=unit),
      upper=BOOLS, transpose=BOOLS, unit=BOOLS, dtype=FD, **TOL)
case("triangular_solve_positional", lambda T: T.triangular_solve(T.tensor(RHS), T.tensor(mat(3)), False, True), **TOL)
case("triangular_solve_method", lambda T: T.tensor(RHS).triangular_solve(T.tensor(mat(3, k=1))), **TOL)
case("triangular_solve_batched", lambda T: T.triangular_solve(T.tensor([RHS, RHS]) * 2, T.tensor(mat(3, batch=(2,)))),
     **TOL)
case("triangular_solve_broadcast", lambda T: T.triangular_solve(T.tensor([RHS] * 3), T.tensor(mat(3, batch=(2, 1)))),
     **TOL)
case("triangular_solve_nc", lambda T: T.triangular_solve(nc_t(T, [r[::-1] for r in mat(3, k=2)[:2]]),
                                                         nc_t(T, mat(3, k=3)), upper=False), **TOL)
case("triangular_solve_empty_rhs", lambda T: T.triangular_solve(T.zeros(3, 0), T.tensor(mat(3))))
case("triangular_solve_grad_fn", lambda T: T.triangular_solve(T.tensor(RHS), T.tensor(mat(3), requires_grad=True)))
case("triangular_solve_out", lambda T: (lambda s, c: (T.triangular_solve(T.tensor(RHS), T.tensor(mat(3)),
                                                                         out=(s, c)), s, c))(T.empty(0), T.empty(0)),
     **TOL)
error_case("triangular_solve_b_1d", lambda T: T.triangular_solve(T.ones(3), T.ones(3, 3)))
error_case("triangular_solve_A_1d", lambda T: T.triangular_solve(T.ones(3, 2), T.ones(3)))
error_case("triangular_solve_not_square", lambda T: T.triangular_solve(T.ones(3, 2), T.ones(3, 2)))
error_case("triangular_solve_sizes", lambda T: T.triangular_solve(T.ones(2, 2), T.ones(3, 3)))
error_case("triangular_solve_dtypes", lambda T: T.triangular_solve(T.ones(3, 2, dtype=T.float64), T.ones(3, 3)))
error_case("triangular_solve_int", lambda T: T.triangular_solve(T.ones(3, 2, dtype=T.int32),
                                                                T.ones(3, 3, dtype=T.int32)))
error_case("triangular_solve_batch", lambda T: T.triangular_solve(T.ones(2, 3, 2), T.ones(3, 3, 3)))
for _u in BOOLS:
    for _t in BOOLS:
        for _un in BOOLS:
            grad_case(f"triangular_solve_grad[upper={_u},transpose={_t},unit={_un}]",
                      lambda T, B, A, u=_u, tr=_t, un=_un: T.triangular_solve(B, A, upper=u, transpose=tr,
                                                                              unitriangular=un),
                      RHS, mat(3), **TOL)
grad_case("triangular_solve_grad_solution_only", lambda T, B, A: T.triangular_solve(B, A).solution, RHS, mat(3, k=1),
          **TOL)
grad_case("triangular_solve_grad_batched", lambda T, B, A: T.triangular_solve(B, A, upper=False),
          [RHS, RHS], mat(3, batch=(2,)), **TOL)
grad_case("triangular_solve_grad_broadcast", lambda T, B, A: T.triangular_solve(B, A)[0], [RHS] * 3,
          mat(3, batch=(1,)), **TOL)
grad_case("triangular_solve_grad2", lambda T, B, A: T.triangular_solve(B, A, transpose=True),
          inp(RHS, dtype=D.float64), inp(mat(3), dtype=D.float64), order=2, **TOL)

# ---- cholesky_solve
cases("cholesky_solve", lambda T, upper, dtype: T.cholesky_solve(T.tensor(RHS, dtype=dtype),
                                                                 tri(T, not upper, dtype=dtype), upper=upper),
      upper=BOOLS, dtype=FD, **TOL)
case("cholesky_solve_full_factor", lambda T: T.cholesky_solve(T.tensor(RHS), T.tensor(mat(3, k=1))), **TOL)
case("cholesky_solve_from_cholesky", lambda T: T.cholesky_solve(T.tensor(RHS),
                                                                 T.linalg.cholesky(T.tensor(spd(3)))), **TOL)
case("cholesky_solve_method", lambda T: T.tensor(RHS).cholesky_solve(tri(T, k=2)), **TOL)
case("cholesky_solve_broadcast", lambda T: T.cholesky_solve(T.tensor([[RHS]] * 2), tri(T, batch=(3,))), **TOL)
case("cholesky_solve_empty", lambda T: T.cholesky_solve(T.zeros(3, 0), T.ones(3, 3)))
case("cholesky_solve_grad_fn", lambda T: T.cholesky_solve(T.tensor(RHS, requires_grad=True), tri(T)))
case("cholesky_solve_out", lambda T: (lambda o: (T.cholesky_solve(T.tensor(RHS), tri(T), out=o), o))(T.empty(0)),
     **TOL)
error_case("cholesky_solve_b_1d", lambda T: T.cholesky_solve(T.ones(3), T.ones(3, 3)))
error_case("cholesky_solve_u_1d", lambda T: T.cholesky_solve(T.ones(3, 2), T.ones(3)))
error_case("cholesky_solve_not_square", lambda T: T.cholesky_solve(T.ones(3, 2), T.ones(3, 2)))
error_case("cholesky_solve_sizes", lambda T: T.cholesky_solve(T.ones(2, 2), T.ones(3, 3)))
error_case("cholesky_solve_dtypes", lambda T: T.cholesky_solve(T.ones(3, 2, dtype=T.float64), T.ones(3, 3)))
error_case("cholesky_solve_int", lambda T: T.cholesky_solve(T.ones(3, 2, dtype=T.int32), T.ones(3, 3, dtype=T.int32)))
for _u in BOOLS:
    grad_case(f"cholesky_solve_grad[upper={_u}]",
              lambda T, B, L, u=_u: T.cholesky_solve(B, L.tril() if not u else L.triu(), upper=u), RHS, mat(3, k=1),
              **TOL)
grad_case("cholesky_solve_grad_full_factor", lambda T, B, L: T.cholesky_solve(B, L), RHS, mat(3, k=2), **TOL)
grad_case("cholesky_solve_grad_batched", lambda T, B, L: T.cholesky_solve(B, L.tril()), [RHS, RHS], mat(3, batch=(2,)),
          **TOL)
grad_case("cholesky_solve_grad2", lambda T, B, L: T.cholesky_solve(B, L.tril()), inp(RHS, dtype=D.float64),
          inp(mat(3), dtype=D.float64), order=2, **TOL)

# ---- cholesky_inverse
cases("cholesky_inverse", lambda T, upper, dtype: T.cholesky_inverse(tri(T, not upper, dtype=dtype), upper=upper),
      upper=BOOLS, dtype=FD, **TOL)
case("cholesky_inverse_full", lambda T: T.cholesky_inverse(T.tensor(mat(3, k=1))), **TOL)
case("cholesky_inverse_full_upper", lambda T: T.cholesky_inverse(T.tensor(mat(3, k=1)), True), **TOL)
case("cholesky_inverse_method", lambda T: tri(T, k=2).cholesky_inverse(), **TOL)
case("cholesky_inverse_batched", lambda T: T.cholesky_inverse(tri(T, batch=(2,))), **TOL)
case("cholesky_inverse_of_cholesky", lambda T: T.cholesky_inverse(T.linalg.cholesky(T.tensor(spd(4)))), **TOL)
case("cholesky_inverse_empty", lambda T: T.cholesky_inverse(T.zeros(0, 0)))
case("cholesky_inverse_grad_fn", lambda T: T.cholesky_inverse(T.tensor(mat(3), requires_grad=True)))
case("cholesky_inverse_out", lambda T: (lambda o: (T.cholesky_inverse(tri(T), out=o), o))(T.empty(0)), **TOL)
error_case("cholesky_inverse_1d", lambda T: T.cholesky_inverse(T.ones(3)))
error_case("cholesky_inverse_not_square", lambda T: T.cholesky_inverse(T.ones(3, 2)))
error_case("cholesky_inverse_int", lambda T: T.cholesky_inverse(T.ones(3, 3, dtype=T.int32)))
error_case("cholesky_inverse_singular", lambda T: T.cholesky_inverse(T.zeros(3, 3)))
error_case("cholesky_inverse_singular_batch", lambda T: T.cholesky_inverse(T.stack([tri(T), tri(T) * 0])))
for _u in BOOLS:
    grad_case(f"cholesky_inverse_grad[upper={_u}]", lambda T, L, u=_u: T.cholesky_inverse(L, upper=u), mat(3, k=3),
              **TOL)
grad_case("cholesky_inverse_grad_batched", lambda T, L: T.cholesky_inverse(L.tril()), mat(3, batch=(2,)), **TOL)
grad_case("cholesky_inverse_grad2", lambda T, L: T.cholesky_inverse(L), inp(mat(3), dtype=D.float64), order=2, **TOL)

# ---- torch.cholesky (deprecated)
cases("cholesky", lambda T, upper, dtype: T.cholesky(T.tensor(spd(4), dtype=dtype), upper=upper), upper=BOOLS,
      dtype=FD, **TOL)
case("cholesky_method", lambda T: T.tensor(spd(3, k=1)).cholesky(), **TOL)
case("cholesky_batched", lambda T: T.cholesky(T.tensor(spd(3, batch=(2,))), True), **TOL)
case("cholesky_empty", lambda T: T.cholesky(T.zeros(0, 0)))
case("cholesky_grad_fn", lambda T: T.cholesky(T.tensor(spd(3), requires_grad=True)))
case("cholesky_out", lambda T: (lambda o: (T.cholesky(T.tensor(spd(3)), out=o), o))(T.empty(0)), **TOL)
error_case("cholesky_not_pd", lambda T: T.cholesky(-T.tensor(spd(3))))
error_case("cholesky_not_pd_batch", lambda T: T.cholesky(T.ones(2, 3, 3)))
error_case("cholesky_1d", lambda T: T.cholesky(T.ones(3)))
error_case("cholesky_not_square", lambda T: T.cholesky(T.ones(3, 2)))
error_case("cholesky_int", lambda T: T.cholesky(T.ones(3, 3, dtype=T.int32)))
for _u in BOOLS:
    grad_case(f"cholesky_grad[upper={_u}]", lambda T, A, u=_u: T.cholesky(A, upper=u), spd(3), **TOL)
grad_case("cholesky_grad2", lambda T, A: T.cholesky(A), inp(spd(3), dtype=D.float64), order=2, **TOL)
