"""Dense linear algebra: linalg.inv / inv_ex, inverse, linalg.det / det, linalg.slogdet / slogdet / logdet,
linalg.solve / solve_ex, linalg.cholesky / cholesky_ex, linalg.matrix_power / matrix_power -- values (LU with
LAPACK's pivots, so signs and singular detection are torch's), grad_fn names, gradients (uneven weights), errors
(LinAlgError for singular / not positive-definite input) with torch's text. Values agree with MKL to rounding."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-5, atol=1e-6)  # MKL's blocked kernels round differently (a few ulps)
FD = [D.float32, D.float64]


def mat(n, k=0, batch=(), shift=3.0):
    """Well-conditioned uneven n x n matrices: quarters in [-1.25, 1.25] plus shift on the diagonal."""
    def one(b):
        return [[((i * 7 + j * 3 + 2 + k * 5 + b * 11) % 11 - 5) / 4 + (shift if i == j else 0.) for j in range(n)]
                for i in range(n)]
    if not batch:
        return one(0)
    out, cnt = [], 1
    for s in batch:
        cnt *= s
    flat = [one(b) for b in range(cnt)]

    def build(dims, off):
        if not dims:
            return flat[off]
        inner = 1
        for s in dims[1:]:
            inner *= s
        return [build(dims[1:], off + i * inner) for i in range(dims[0])]
    return build(list(batch), 0)


def pivoting(n, k=0):
    """No diagonal dominance: LU has to swap rows (det's sign comes from the pivots)."""
    return [[((i * 5 + j * 7 + 1 + k * 3) % 9 - 4) / 2 + (0.25 if i == (j + 1) % n else 0.) for j in range(n)]
            for i in range(n)]


def spd(n, k=0, batch=()):
    """Symmetric positive-definite: A A^T + n I of mat's data."""
    def one(a):
        return [[sum(a[i][p] * a[j][p] for p in range(n)) + (n if i == j else 0.) for j in range(n)] for i in range(n)]
    m = mat(n, k, batch, shift=0.)

    def walk(x, d):
        return one(x) if d == len(batch) else [walk(y, d + 1) for y in x]
    return walk(m, 0)


def V(n, k=0):
    return [((i * 3 + 1 + k * 7) % 7 - 3) / 2 for i in range(n)]


def t(T, data, dtype=None):
    return T.tensor(data, dtype=dtype)


SING = [[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]]   # row 2 = 2 * row 1: exactly singular in any pivot order
ZROW = [[1., 2., 3.], [0., 0., 0.], [1., 0., 1.]]

# ---- inv
cases("inv", lambda T, dtype, n: T.linalg.inv(t(T, mat(n), dtype)), dtype=FD, n=[1, 2, 3, 5, 8], **TOL)
cases("inv_batched", lambda T, dtype: T.linalg.inv(t(T, mat(4, batch=(2, 3)), dtype)), dtype=FD, **TOL)
cases("inv_pivoting", lambda T, dtype: T.linalg.inv(t(T, pivoting(5), dtype)), dtype=FD, **TOL)
case("inv_ex", lambda T: T.linalg.inv_ex(t(T, mat(3))), **TOL)
case("inv_ex_batched_info", lambda T: T.linalg.inv_ex(t(T, mat(2, batch=(3,)))).info)
case("inv_ex_singular_info", lambda T: T.linalg.inv_ex(t(T, [ZROW, mat(3)])).info)
case("inverse", lambda T: T.inverse(t(T, mat(4))), **TOL)
case("inverse_method", lambda T: t(T, mat(4, k=1)).inverse(), **TOL)
case("inv_transposed", lambda T: T.linalg.inv(t(T, mat(4, k=2)).mT), **TOL)
case("inv_empty_batch", lambda T: T.linalg.inv(T.zeros(2, 0, 0)))
case("inv_grad_fn", lambda T: T.linalg.inv(T.tensor(mat(3), requires_grad=True)))
case("inv_ex_grad_fn", lambda T: T.linalg.inv_ex(T.tensor(mat(3), requires_grad=True)))
grad_case("inv_grad", lambda T, a: T.linalg.inv(a), mat(3), **TOL)
grad_case("inv_grad_batched_f64", lambda T, a: T.inverse(a), inp(mat(3, batch=(2,)), dtype=D.float64))
grad_case("inv_grad_transposed", lambda T, a: a.inverse(), inp(mat(4, k=1), view=vT), **TOL)
error_case("inv_singular", lambda T: T.linalg.inv(t(T, SING)))
error_case("inv_singular_zero_row", lambda T: T.linalg.inv(t(T, ZROW)))
error_case("inv_singular_batch", lambda T: T.linalg.inv(t(T, [mat(3), ZROW])))
error_case("inv_ex_check_errors", lambda T: T.linalg.inv_ex(t(T, ZROW), check_errors=True))
error_case("inv_singular_type", lambda T: T.linalg.inv(t(T, ZROW)), match=r"singular")
case("inv_linalg_error_class", lambda T: (lambda e: (issubclass(e, RuntimeError), e.__name__))(T.linalg.LinAlgError))
error_case("inv_not_square", lambda T: T.linalg.inv(T.ones(2, 3)))
error_case("inv_1d", lambda T: T.linalg.inv(T.ones(3)))
error_case("inv_0d", lambda T: T.inverse(T.tensor(2.)))
cases("inv_bad_dtype", lambda T, dtype: T.linalg.inv(T.ones(3, 3, dtype=dtype)), kind="error",
      dtype=[D.int64, D.int32, D.bool, D.float16, D.bfloat16])

# ---- det
cases("det", lambda T, dtype, n: T.linalg.det(t(T, mat(n), dtype)), dtype=FD, n=[1, 2, 3, 5, 8], **TOL)
cases("det_pivoting", lambda T, dtype, n: T.linalg.det(t(T, pivoting(n), dtype)), dtype=FD, n=[2, 3, 4, 6], **TOL)
case("det_batched", lambda T: T.linalg.det(t(T, mat(3, batch=(2, 2)))), **TOL)
case("det_torch", lambda T: T.det(t(T, pivoting(4))), **TOL)
case("det_method", lambda T: t(T, pivoting(5, k=1)).det(), **TOL)
case("det_singular", lambda T: T.linalg.det(t(T, [SING, ZROW])))
case("det_empty", lambda T: T.linalg.det(T.zeros(3, 0, 0)))
case("det_empty_half", lambda T: T.linalg.det(T.zeros(2, 0, 0, dtype=T.float16)))
case("det_grad_fn", lambda T: T.det(T.tensor(mat(3), requires_grad=True)))
grad_case("det_grad", lambda T, a: T.linalg.det(a), pivoting(4), **TOL)
grad_case("det_grad_batched_f64", lambda T, a: a.det(), inp(mat(3, batch=(3,)), dtype=D.float64))
grad_case("det_grad_singular", lambda T, a: T.linalg.det(a), inp([ZROW, mat(3)], dtype=D.float64), **TOL)
grad_case("det_grad_singular_2x2", lambda T, a: a.det(), [[1., 2.], [0., 0.]])
error_case("det_not_square", lambda T: T.linalg.det(T.ones(2, 3)))
error_case("det_1d", lambda T: T.det(T.ones(3)))
cases("det_bad_dtype", lambda T, dtype: T.linalg.det(T.ones(3, 3, dtype=dtype)), kind="error",
      dtype=[D.int64, D.bool, D.float16, D.bfloat16])

# ---- slogdet / logdet
cases("slogdet", lambda T, dtype, n: T.linalg.slogdet(t(T, pivoting(n), dtype)), dtype=FD, n=[1, 2, 3, 5], **TOL)
case("slogdet_torch", lambda T: T.slogdet(t(T, mat(4, batch=(2,)))), **TOL)
case("slogdet_method", lambda T: t(T, pivoting(4)).slogdet(), **TOL)
case("slogdet_singular", lambda T: T.linalg.slogdet(t(T, ZROW)))
case("slogdet_grad_fn", lambda T: T.linalg.slogdet(T.tensor(mat(3), requires_grad=True)))
grad_case("slogdet_grad", lambda T, a: T.linalg.slogdet(a), pivoting(4), **TOL)
grad_case("slogdet_grad_logabsdet_only", lambda T, a: T.slogdet(a)[1], inp(mat(3, batch=(2,)), dtype=D.float64))
case("logdet", lambda T: T.logdet(t(T, [mat(3), pivoting(3)])), **TOL)
case("logdet_method", lambda T: t(T, mat(4, k=1), T.float64).logdet(), **TOL)
case("logdet_singular", lambda T: T.logdet(t(T, ZROW)))
case("logdet_grad_fn", lambda T: T.logdet(T.tensor(mat(3), requires_grad=True)))
grad_case("logdet_grad", lambda T, a: T.logdet(a), mat(3), **TOL)
error_case("slogdet_not_square", lambda T: T.linalg.slogdet(T.ones(2, 3)))
error_case("logdet_not_square", lambda T: T.logdet(T.ones(2, 3)))
cases("slogdet_bad_dtype", lambda T, dtype: T.linalg.slogdet(T.ones(3, 3, dtype=dtype)), kind="error",
      dtype=[D.int64, D.float16])
cases("logdet_bad_dtype", lambda T, dtype: T.logdet(T.ones(3, 3, dtype=dtype)), kind="error",
      dtype=[D.int64, D.bfloat16])

# ---- solve
cases("solve_vector", lambda T, dtype: T.linalg.solve(t(T, pivoting(4), dtype), t(T, V(4), dtype)), dtype=FD, **TOL)
cases("solve_matrix", lambda T, dtype: T.linalg.solve(t(T, mat(3), dtype), t(T, mat(3, k=2, shift=0)[:2], dtype).mT),
      dtype=FD, **TOL)
case("solve_batched_vector", lambda T: T.linalg.solve(t(T, mat(3, batch=(2,))), t(T, [V(3), V(3, k=1)])), **TOL)
case("solve_broadcast_A", lambda T: T.linalg.solve(t(T, mat(3)), t(T, mat(3, batch=(2,), shift=0))), **TOL)
case("solve_broadcast_both", lambda T: T.linalg.solve(t(T, mat(3, batch=(2, 1))), t(T, mat(3, batch=(4,), shift=0))[..., :1]),
     **TOL)
case("solve_left_false", lambda T: T.linalg.solve(t(T, mat(3)), t(T, [V(3), V(3, k=2)]), left=False), **TOL)
case("solve_ex", lambda T: T.linalg.solve_ex(t(T, mat(3)), t(T, V(3))), **TOL)
case("solve_ex_info_batch", lambda T: T.linalg.solve_ex(t(T, mat(2, batch=(2, 1))), t(T, mat(2, batch=(3,)))).info)
case("solve_empty", lambda T: T.linalg.solve(T.zeros(0, 0), T.zeros(0)))
case("solve_grad_fn", lambda T: T.linalg.solve(T.tensor(mat(3), requires_grad=True), t(T, V(3))))
grad_case("solve_grad_vector", lambda T, a, b: T.linalg.solve(a, b), pivoting(3), V(3), **TOL)
grad_case("solve_grad_matrix_f64", lambda T, a, b: T.linalg.solve(a, b), inp(mat(3), dtype=D.float64),
          inp(mat(3, k=1, shift=0), dtype=D.float64))
grad_case("solve_grad_broadcast", lambda T, a, b: T.linalg.solve(a, b), mat(3), mat(3, batch=(2,), shift=0), **TOL)
grad_case("solve_grad_left_false", lambda T, a, b: T.linalg.solve(a, b, left=False), mat(3),
          [V(3), V(3, k=1)], **TOL)
grad_case("solve_grad_B_only", lambda T, a, b: T.linalg.solve(a, b), const(mat(3)), V(3), **TOL)
error_case("solve_singular", lambda T: T.linalg.solve(t(T, ZROW), t(T, V(3))))
error_case("solve_singular_batch", lambda T: T.linalg.solve(t(T, [mat(3), ZROW]), t(T, V(3))))
error_case("solve_ex_check_errors", lambda T: T.linalg.solve_ex(t(T, ZROW), t(T, V(3)), check_errors=True))
error_case("solve_shapes", lambda T: T.linalg.solve(T.eye(3), T.ones(4)))
error_case("solve_shapes_matrix", lambda T: T.linalg.solve(T.eye(3), T.ones(4, 2)))
error_case("solve_shapes_left_false", lambda T: T.linalg.solve(T.eye(3), T.ones(3, 2), left=False))
error_case("solve_vector_left_false", lambda T: T.linalg.solve(T.eye(3), T.ones(3), left=False))
error_case("solve_batch_broadcast", lambda T: T.linalg.solve(T.ones(2, 3, 3), T.ones(5, 3, 1)))
error_case("solve_dtype_mismatch", lambda T: T.linalg.solve(T.eye(3), T.ones(3, dtype=T.float64)))
error_case("solve_int", lambda T: T.linalg.solve(T.eye(3, dtype=T.int64), T.ones(3, dtype=T.int64)))
error_case("solve_half", lambda T: T.linalg.solve(T.eye(3, dtype=T.float16), T.ones(3, dtype=T.float16)))
error_case("solve_B_0d", lambda T: T.linalg.solve(T.eye(3), T.tensor(1.)))
error_case("solve_A_1d", lambda T: T.linalg.solve(T.ones(3), T.ones(3)))
error_case("solve_not_square", lambda T: T.linalg.solve(T.ones(2, 3), T.ones(3)))

# ---- cholesky
cases("cholesky", lambda T, dtype, n, upper: T.linalg.cholesky(t(T, spd(n), dtype), upper=upper), dtype=FD,
      n=[1, 2, 4, 7], upper=BOOLS, **TOL)
case("cholesky_batched", lambda T: T.linalg.cholesky(t(T, spd(3, batch=(2, 2)))), **TOL)
case("cholesky_ex", lambda T: T.linalg.cholesky_ex(t(T, spd(3))), **TOL)
case("cholesky_ex_info", lambda T: T.linalg.cholesky_ex(t(T, [spd(3), [[1., 0, 0], [0, -1, 0], [0, 0, 1]]])).info)
case("cholesky_grad_fn", lambda T: T.linalg.cholesky(T.tensor(spd(3), requires_grad=True)))
grad_case("cholesky_grad", lambda T, a: T.linalg.cholesky(a), spd(3), **TOL)
grad_case("cholesky_grad_upper_f64", lambda T, a: T.linalg.cholesky(a, upper=True), inp(spd(4), dtype=D.float64))
grad_case("cholesky_grad_batched", lambda T, a: T.linalg.cholesky_ex(a).L, spd(3, batch=(2,)), **TOL)
error_case("cholesky_not_pd", lambda T: T.linalg.cholesky(-T.eye(3)))
error_case("cholesky_not_pd_order2", lambda T: T.linalg.cholesky(T.ones(3, 3)))
error_case("cholesky_not_pd_batch", lambda T: T.linalg.cholesky(T.ones(2, 3, 3)))
error_case("cholesky_ex_check_errors", lambda T: T.linalg.cholesky_ex(T.ones(3, 3), check_errors=True))
error_case("cholesky_not_square", lambda T: T.linalg.cholesky(T.ones(2, 3)))
cases("cholesky_bad_dtype", lambda T, dtype: T.linalg.cholesky(T.ones(3, 3, dtype=dtype)), kind="error",
      dtype=[D.int64, D.bool, D.float16])

# ---- matrix_power (torch's order of products: bitwise)
cases("matrix_power", lambda T, n: T.linalg.matrix_power(t(T, mat(3, shift=0.)), n), n=list(range(0, 12)) + [13, 16, 31])
cases("matrix_power_batched", lambda T, n: t(T, mat(3, batch=(2,), shift=0.)).matrix_power(n), n=[2, 5, 7])
cases("matrix_power_negative", lambda T, n: T.matrix_power(t(T, mat(3, k=1)), n), n=[-1, -2, -3, -6], **TOL)
case("matrix_power_int", lambda T: T.linalg.matrix_power(T.tensor([[1, 2], [3, -1]]), 6))
cases("matrix_power_grad_fn", lambda T, n: T.linalg.matrix_power(T.tensor(mat(3), requires_grad=True), n),
      n=[0, 1, 2, 3, 5, -1, -2])
grad_case("matrix_power_grad", lambda T, a: T.linalg.matrix_power(a, 5), mat(3, shift=0.), **TOL)
grad_case("matrix_power_grad_neg", lambda T, a: T.linalg.matrix_power(a, -2), mat(3), **TOL)
error_case("matrix_power_not_square", lambda T: T.linalg.matrix_power(T.ones(2, 3), 2))
error_case("matrix_power_1d", lambda T: T.linalg.matrix_power(T.ones(3), 2))
error_case("matrix_power_singular_negative", lambda T: T.linalg.matrix_power(T.ones(3, 3), -1))
error_case("matrix_power_int_negative", lambda T: T.linalg.matrix_power(T.ones(3, 3, dtype=T.int64), -1))

# ---- argument parsing (torch._C._linalg's names)
error_case("inv_arg_not_tensor", lambda T: T.linalg.inv(1))
error_case("solve_arg_not_tensor", lambda T: T.linalg.solve(T.eye(2), 1))
error_case("det_too_many_args", lambda T: T.linalg.det(T.eye(2), 3))
error_case("cholesky_upper_positional", lambda T: T.linalg.cholesky(T.eye(2), True))
error_case("matrix_power_float_n", lambda T: T.linalg.matrix_power(T.eye(2), 2.0))
case("solve_ex_fields", lambda T: T.linalg.solve_ex(T.eye(2), T.ones(2), check_errors=True).result)
case("slogdet_fields", lambda T: (T.slogdet(T.eye(2)).logabsdet, type(T.linalg.slogdet(T.eye(2))).__name__))
case("cholesky_ex_fields", lambda T: type(T.linalg.cholesky_ex(T.eye(2))).__name__)

# ---- out= (torch's exact-dtype rule)
case("inv_out", lambda T: (lambda o: (T.linalg.inv(t(T, mat(3)), out=o), o)[1])(T.empty(0)), **TOL)
case("inverse_out", lambda T: T.inverse(t(T, mat(3, batch=(2,))), out=T.empty(2, 3, 3)), **TOL)
case("det_out", lambda T: (lambda o: (T.linalg.det(t(T, pivoting(3)), out=o), o)[1])(T.empty(0)), **TOL)
case("solve_out", lambda T: T.linalg.solve(t(T, mat(3)), t(T, V(3)), out=T.empty(0)), **TOL)
case("cholesky_out", lambda T: T.linalg.cholesky(t(T, spd(3)), upper=True, out=T.empty(0)), **TOL)
error_case("inv_out_dtype", lambda T: T.linalg.inv(t(T, mat(3)), out=T.empty(0, dtype=T.float64)))
error_case("det_out_dtype", lambda T: T.linalg.det(t(T, mat(3)), out=T.empty(0, dtype=T.int64)))
error_case("solve_out_dtype", lambda T: T.linalg.solve(t(T, mat(3)), t(T, V(3)), out=T.empty(0, dtype=T.float64)))
error_case("cholesky_out_dtype", lambda T: T.linalg.cholesky(t(T, spd(3)), out=T.empty(0, dtype=T.float64)))

# ---- second derivatives (the formulas are composed of ops)
grad_case("inv_grad2", lambda T, a: T.linalg.inv(a), inp(mat(3), dtype=D.float64), order=2)
grad_case("det_grad2", lambda T, a: T.linalg.det(a), inp(pivoting(3), dtype=D.float64), order=2)
grad_case("slogdet_grad2", lambda T, a: T.linalg.slogdet(a)[1], inp(mat(3), dtype=D.float64), order=2)
grad_case("solve_grad2", lambda T, a, b: T.linalg.solve(a, b), inp(mat(3), dtype=D.float64), inp(V(3), dtype=D.float64),
          order=2)
grad_case("cholesky_grad2", lambda T, a: T.linalg.cholesky(a), inp(spd(3), dtype=D.float64), order=2)
grad_case("matrix_power_grad2", lambda T, a: T.linalg.matrix_power(a, -3), inp(mat(3), dtype=D.float64), order=2)

# ---- Note [LU of A^T]: det factors A^T for a contiguous A, solve / inv factor A; MKL's updates are fused (fma)
NEAR = [[2., 3., 1.], [4., 6., 2.], [1., 0., 5.]]  # singular; A^T's LU rounds its last pivot to -1.5e-16, A's to 0
# (Intel MKL's rounding; on AMD, MKL's LU rounds both pivots to 0, which wick does not follow)
_MKL_LU = dict(cpu_dependent="MKL's LU rounds a near-zero pivot differently on Intel and AMD CPUs",
               skip=None if cpu_vendor() == "GenuineIntel" else "wick's LU rounds as Intel MKL's does, not as on AMD")
case("det_near_singular_contiguous", lambda T: T.linalg.det(t(T, NEAR, T.float64)), rtol=0, atol=0, **_MKL_LU)
case("det_near_singular_transposed", lambda T: T.linalg.det(t(T, NEAR, T.float64).mT), rtol=0, atol=0, **_MKL_LU)
case("det_near_singular_noncontiguous", lambda T: T.linalg.det(t(T, NEAR, T.float64).mT.contiguous().mT), rtol=0,
     atol=0)
case("slogdet_near_singular", lambda T: T.linalg.slogdet(t(T, NEAR, T.float64)), rtol=1e-12, **_MKL_LU)
case("solve_ex_near_singular_info", lambda T: T.linalg.solve_ex(t(T, NEAR, T.float64), T.ones(3, dtype=T.float64)).info)
