"""The LU family (src/ops/linalg_lu.c): linalg.lu_factor / lu_factor_ex / lu / lu_solve, torch.lu / Tensor.lu /
torch._lu_with_info, torch.lu_unpack, torch.lu_solve / Tensor.lu_solve. The factorisation is getrf's partial
pivoting (Note [Rectangular LU as getrf]), so LU, the pivots, P and info are determined and compared directly (the
inputs have no ties in a pivot column); square, wide and tall matrices, batched, non-contiguous, empty, singular,
float32 / float64; gradients are torch's lu_factor_ex_backward / linalg_lu_backward / lu_unpack_backward /
linalg_lu_solve_LU (uneven weights, second order in float64), and torch's error texts."""
import math

from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-5, atol=1e-5)  # MKL's blocked kernels round differently (a few ulps of the largest entry)
FD = [D.float32, D.float64]


def gen(m, n, k=0, batch=(), shift=0.):
    """Uneven m x n matrices with distinct magnitudes in every column (no pivot ties), not diagonally dominant
    (shift: added on the diagonal, for the better conditioned systems the solves use)."""
    def one(b):
        return [[round(math.sin(1.3 * i + 2.1 * j + 0.7 * k + 1.9 * b + 0.4) * 2 + 0.01 * (i + 2 * j), 4)
                 + (shift if i == j else 0.) for j in range(n)] for i in range(m)]
    if not batch:
        return one(0)
    cnt = 1
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


SHAPES = [(3, 3), (5, 5), (1, 1), (2, 4), (4, 2), (3, 5), (6, 3)]
SING = [[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]]   # row 2 = 2 * row 1
ZCOL = [[0., 2., 3.], [0., 4., 6.5], [0., 1., 1.]]  # a zero first column: info 1, nothing swapped there
PIV3 = [3, 3, 3]


def t(T, data, dtype=None):
    return T.tensor(data, dtype=dtype)


# ---- linalg.lu_factor / lu_factor_ex
cases("lu_factor", lambda T, shape, dtype: T.linalg.lu_factor(t(T, gen(*shape), dtype)), shape=SHAPES, dtype=FD,
      **TOL)
cases("lu_factor_ex", lambda T, shape, dtype: T.linalg.lu_factor_ex(t(T, gen(*shape, k=1), dtype)),
      shape=SHAPES, dtype=FD, **TOL)
cases("lu_factor_batched", lambda T, shape: T.linalg.lu_factor(t(T, gen(*shape, batch=(2, 3)))),
      shape=[(3, 3), (2, 4), (4, 2)], **TOL)
case("lu_factor_nc", lambda T: T.linalg.lu_factor(nc_t(T, gen(4, 3, k=2))), **TOL)
case("lu_factor_step", lambda T: T.linalg.lu_factor(nc_step(T, gen(3, 6, k=3))), **TOL)
case("lu_factor_expanded", lambda T: T.linalg.lu_factor(t(T, [gen(3, 3)]).expand(2, 3, 3)), **TOL)
case("lu_factor_pivot_kw", lambda T: T.linalg.lu_factor(t(T, gen(3, 3)), pivot=True), **TOL)
case("lu_factor_ex_singular", lambda T: T.linalg.lu_factor_ex(t(T, SING)))
case("lu_factor_ex_zero_col", lambda T: T.linalg.lu_factor_ex(t(T, ZCOL)))
case("lu_factor_ex_zeros_batched", lambda T: T.linalg.lu_factor_ex(T.zeros(2, 3, 3)))
case("lu_factor_ex_rank1_wide", lambda T: T.linalg.lu_factor_ex(T.ones(2, 4)))
case("lu_factor_empty", lambda T: T.linalg.lu_factor(T.zeros(0, 0)))
case("lu_factor_empty_rows", lambda T: T.linalg.lu_factor(T.zeros(0, 3)))
case("lu_factor_empty_batch", lambda T: T.linalg.lu_factor(T.zeros(0, 2, 2)))
case("lu_factor_empty_int", lambda T: T.linalg.lu_factor(T.zeros(2, 0, dtype=T.int64)))
case("lu_factor_grad_fn", lambda T: T.linalg.lu_factor(T.tensor(gen(3, 3), requires_grad=True)))
case("lu_factor_out", lambda T: (lambda a, p: (T.linalg.lu_factor(t(T, gen(3, 3)), out=(a, p)), a, p))(
    T.empty(0), T.empty(0, dtype=T.int32)), **TOL)
case("lu_factor_ex_out", lambda T: (lambda a, p, i: (T.linalg.lu_factor_ex(t(T, gen(2, 3)), out=(a, p, i)), a, p, i))(
    T.empty(0), T.empty(0, dtype=T.int32), T.empty(0, dtype=T.int32)), **TOL)
error_case("lu_factor_singular", lambda T: T.linalg.lu_factor(t(T, SING)))
error_case("lu_factor_singular_batch", lambda T: T.linalg.lu_factor(t(T, [gen(3, 3), ZCOL])))
error_case("lu_factor_ex_check_errors", lambda T: T.linalg.lu_factor_ex(t(T, SING), check_errors=True))
error_case("lu_factor_1d", lambda T: T.linalg.lu_factor(T.ones(3)))
error_case("lu_factor_0d", lambda T: T.linalg.lu_factor_ex(T.tensor(2.)))
error_case("lu_factor_int", lambda T: T.linalg.lu_factor(T.ones(3, 3, dtype=T.int64)))
error_case("lu_factor_half", lambda T: T.linalg.lu_factor(T.ones(3, 3, dtype=T.float16)))
error_case("lu_factor_no_pivot", lambda T: T.linalg.lu_factor(t(T, gen(3, 3)), pivot=False))
error_case("lu_factor_ex_no_pivot", lambda T: T.linalg.lu_factor_ex(t(T, gen(3, 3)), pivot=False))
error_case("lu_factor_out_dtype", lambda T: T.linalg.lu_factor(t(T, gen(3, 3)),
                                                                out=(T.empty(0, dtype=T.float64),
                                                                     T.empty(0, dtype=T.int32))))

# ---- torch.lu / Tensor.lu / torch._lu_with_info
case("torch_lu", lambda T: T.lu(t(T, gen(4, 4))), warns=False, **TOL)
case("torch_lu_infos", lambda T: T.lu(t(T, gen(3, 5)), get_infos=True), **TOL)
case("torch_lu_pivot_pos", lambda T: T.lu(t(T, gen(3, 3)), True), **TOL)
case("torch_lu_singular_no_raise", lambda T: T.lu(t(T, SING)))
case("torch_lu_out", lambda T: (lambda a, p: (T.lu(t(T, gen(3, 3)), out=(a, p)), a, p))(
    T.empty(0), T.empty(0, dtype=T.int32)), **TOL)
case("tensor_lu", lambda T: t(T, gen(3, 3, k=2)).lu(), **TOL)
case("tensor_lu_infos", lambda T: t(T, SING).lu(get_infos=True))
case("lu_with_info", lambda T: T._lu_with_info(t(T, gen(3, 3))), **TOL)
case("torch_lu_grad_fn", lambda T: T.lu(T.tensor(gen(3, 3), requires_grad=True)))
error_case("torch_lu_no_pivot", lambda T: T.lu(t(T, gen(3, 3)), pivot=False))

# ---- linalg.lu
cases("linalg_lu", lambda T, shape, dtype: T.linalg.lu(t(T, gen(*shape, k=3), dtype)), shape=SHAPES, dtype=FD,
      **TOL)
cases("linalg_lu_batched", lambda T, shape: T.linalg.lu(t(T, gen(*shape, k=4, batch=(3,)))),
      shape=[(3, 3), (2, 4), (4, 2)], **TOL)
case("linalg_lu_nc", lambda T: T.linalg.lu(nc_t(T, gen(3, 4, k=5))), **TOL)
case("linalg_lu_singular", lambda T: T.linalg.lu(t(T, SING)))
case("linalg_lu_zeros", lambda T: T.linalg.lu(T.zeros(2, 3, 3)))
case("linalg_lu_empty", lambda T: T.linalg.lu(T.zeros(0, 3)))
case("linalg_lu_empty_cols", lambda T: T.linalg.lu(T.zeros(3, 0)))
case("linalg_lu_empty_batch", lambda T: T.linalg.lu(T.zeros(0, 2, 2)))
case("linalg_lu_grad_fn", lambda T: T.linalg.lu(T.tensor(gen(3, 3), requires_grad=True)))
case("linalg_lu_out", lambda T: (lambda P, L, U: (T.linalg.lu(t(T, gen(3, 4)), out=(P, L, U)), P, L, U))(
    T.empty(0), T.empty(0), T.empty(0)), **TOL)
error_case("linalg_lu_1d", lambda T: T.linalg.lu(T.ones(3)))
error_case("linalg_lu_int", lambda T: T.linalg.lu(T.ones(3, 3, dtype=T.int32)))
error_case("linalg_lu_no_pivot", lambda T: T.linalg.lu(t(T, gen(3, 3)), pivot=False))

# ---- torch.lu_unpack
cases("lu_unpack", lambda T, shape, dtype: T.lu_unpack(*T.linalg.lu_factor(t(T, gen(*shape, k=6), dtype))),
      shape=SHAPES, dtype=FD, **TOL)
case("lu_unpack_batched", lambda T: T.lu_unpack(*T.linalg.lu_factor(t(T, gen(4, 3, batch=(2, 2))))), **TOL)
case("lu_unpack_no_data", lambda T: T.lu_unpack(*T.linalg.lu_factor(t(T, gen(3, 3))), unpack_data=False))
case("lu_unpack_no_pivots", lambda T: T.lu_unpack(*T.linalg.lu_factor(t(T, gen(3, 3))), unpack_pivots=False),
     **TOL)
case("lu_unpack_nothing", lambda T: T.lu_unpack(t(T, gen(3, 3)), T.tensor(PIV3, dtype=T.int32), False, False))
case("lu_unpack_int", lambda T: T.lu_unpack(T.arange(12).reshape(3, 4), T.tensor([2, 3, 3], dtype=T.int32)))
case("lu_unpack_float64_given", lambda T: T.lu_unpack(t(T, gen(4, 2), T.float64), T.tensor([3, 4], dtype=T.int32)))
case("lu_unpack_nc", lambda T: T.lu_unpack(nc_t(T, gen(3, 3)), T.tensor([2, 3, 3], dtype=T.int32)))
case("lu_unpack_pivots_no_check", lambda T: T.lu_unpack(t(T, gen(3, 3)), T.tensor([9], dtype=T.int64),
                                                          unpack_pivots=False))
case("lu_unpack_grad_fn", lambda T: T.lu_unpack(T.tensor(gen(3, 3), requires_grad=True),
                                                T.tensor(PIV3, dtype=T.int32)))
case("lu_unpack_out", lambda T: (lambda P, L, U: (T.lu_unpack(t(T, gen(3, 3)), T.tensor(PIV3, dtype=T.int32),
                                                              out=(P, L, U)), P, L, U))(
    T.empty(0), T.empty(0), T.empty(0)))
error_case("lu_unpack_pivots_int64", lambda T: T.lu_unpack(t(T, gen(3, 3)), T.tensor(PIV3)))
error_case("lu_unpack_pivots_big", lambda T: T.lu_unpack(t(T, gen(3, 3)), T.tensor([4, 3, 3], dtype=T.int32)))
error_case("lu_unpack_pivots_zero", lambda T: T.lu_unpack(t(T, gen(3, 3)), T.tensor([0, 3, 3], dtype=T.int32)))
error_case("lu_unpack_1d", lambda T: T.lu_unpack(T.ones(3), T.tensor(PIV3, dtype=T.int32)))

# ---- linalg.lu_solve / torch.lu_solve / Tensor.lu_solve


def lus(T, A, B, dtype=None, **kw):
    LU, piv = T.linalg.lu_factor(t(T, A, dtype))
    return T.linalg.lu_solve(LU, piv, t(T, B, dtype), **kw)


cases("lu_solve", lambda T, left, adjoint, dtype: lus(T, gen(4, 4, shift=2.), gen(4, 2, k=1) if left else gen(2, 4, k=1),
                                                      dtype, left=left, adjoint=adjoint),
      left=BOOLS, adjoint=BOOLS, dtype=FD, **TOL)
case("lu_solve_batched", lambda T: lus(T, gen(3, 3, batch=(2,)), gen(3, 2, k=2, batch=(2,))), **TOL)
case("lu_solve_broadcast_B", lambda T: lus(T, gen(3, 3, batch=(2,)), gen(3, 2, k=2, batch=(4, 1))), **TOL)
case("lu_solve_broadcast_LU", lambda T: lus(T, gen(3, 3), gen(3, 2, k=2, batch=(3,)), left=True), **TOL)
case("lu_solve_broadcast_right", lambda T: lus(T, gen(3, 3, batch=(2, 1)), gen(4, 3, k=2, batch=(3,)), left=False),
     **TOL)
case("lu_solve_nc_B", lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(t(T, gen(3, 3))), nc_t(T, gen(2, 3, k=3))),
     **TOL)
case("lu_solve_empty_rhs", lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(t(T, gen(3, 3))), T.zeros(3, 0)))
case("lu_solve_empty", lambda T: T.linalg.lu_solve(T.zeros(0, 0), T.zeros(0, dtype=T.int32), T.zeros(0, 2)))
case("lu_solve_grad_fn", lambda T: T.linalg.lu_solve(T.tensor(gen(3, 3), requires_grad=True),
                                                     T.tensor(PIV3, dtype=T.int32), t(T, gen(3, 1))))
case("lu_solve_out", lambda T: (lambda o: (T.linalg.lu_solve(*T.linalg.lu_factor(t(T, gen(3, 3))), t(T, gen(3, 2)),
                                                             out=o), o))(T.empty(0)), **TOL)
case("torch_lu_solve", lambda T: T.lu_solve(t(T, gen(3, 2, k=1)), *T.linalg.lu_factor(t(T, gen(3, 3)))), **TOL)
case("tensor_lu_solve", lambda T: t(T, gen(3, 2, k=1)).lu_solve(*T.linalg.lu_factor(t(T, gen(3, 3)))), **TOL)
case("torch_lu_solve_out", lambda T: (lambda o: (T.lu_solve(t(T, gen(3, 2, k=1)), *T.linalg.lu_factor(
    t(T, gen(3, 3))), out=o), o))(T.empty(0)), **TOL)
_LU = lambda T: t(T, gen(3, 3))  # noqa: E731
_PV = lambda T: T.tensor(PIV3, dtype=T.int32)  # noqa: E731
error_case("lu_solve_shapes", lambda T: T.linalg.lu_solve(_LU(T), _PV(T), T.ones(2, 2)))
error_case("lu_solve_shapes_right", lambda T: T.linalg.lu_solve(_LU(T), _PV(T), T.ones(3, 2), left=False))
error_case("lu_solve_pivots_int64", lambda T: T.linalg.lu_solve(_LU(T), T.tensor(PIV3), T.ones(3, 2)))
error_case("lu_solve_dtypes", lambda T: T.linalg.lu_solve(_LU(T), _PV(T), T.ones(3, 2, dtype=T.float64)))
error_case("lu_solve_pivot_count", lambda T: T.linalg.lu_solve(_LU(T), _PV(T)[:2], T.ones(3, 2)))
error_case("lu_solve_not_square", lambda T: T.linalg.lu_solve(_LU(T)[:, :2], _PV(T), T.ones(3, 2)))
error_case("lu_solve_B_1d", lambda T: T.linalg.lu_solve(_LU(T), _PV(T), T.ones(3)))
error_case("lu_solve_LU_1d", lambda T: T.linalg.lu_solve(T.ones(3), _PV(T), T.ones(3, 1)))
error_case("lu_solve_int", lambda T: T.linalg.lu_solve(_LU(T).int(), _PV(T), T.ones(3, 2, dtype=T.int32)))
error_case("lu_solve_pivots_batch", lambda T: T.linalg.lu_solve(_LU(T), _PV(T).expand(2, 3), T.ones(3, 2)))
error_case("lu_solve_pivots_big", lambda T: T.linalg.lu_solve(_LU(T), _PV(T) + 1, T.ones(3, 2)))
error_case("lu_solve_pivots_small", lambda T: T.linalg.lu_solve(_LU(T), _PV(T) * 0, T.ones(3, 2)))
error_case("lu_solve_batch_mismatch", lambda T: T.linalg.lu_solve(_LU(T).expand(2, 3, 3), _PV(T).expand(2, 3),
                                                                  T.ones(3, 3, 2)))
error_case("torch_lu_solve_B_1d", lambda T: T.lu_solve(T.ones(3), _LU(T), _PV(T)))

# ---- gradients (uneven weights); square, wide and tall
GSHAPES = [(3, 3), (2, 4), (4, 2)]
for _m, _n in GSHAPES:
    grad_case(f"linalg_lu_grad[{_m}x{_n}]", lambda T, A: T.linalg.lu(A), gen(_m, _n), **TOL)
    grad_case(f"lu_factor_grad[{_m}x{_n}]", lambda T, A: T.linalg.lu_factor(A), gen(_m, _n, k=1), **TOL)
    grad_case(f"lu_factor_ex_grad[{_m}x{_n}]", lambda T, A: T.linalg.lu_factor_ex(A), gen(_m, _n, k=2), **TOL)
    grad_case(f"lu_unpack_grad[{_m}x{_n}]", lambda T, A, m=_m, n=_n: T.lu_unpack(
        A, T.tensor([min(m, 2)] + [min(m, n)] * (min(m, n) - 1), dtype=T.int32)), gen(_m, _n, k=3), **TOL)
    grad_case(f"lu_unpack_L_only_grad[{_m}x{_n}]", lambda T, A, m=_m, n=_n: T.lu_unpack(
        A, T.tensor([1] * min(m, n), dtype=T.int32))[1], gen(_m, _n, k=4), **TOL)
grad_case("linalg_lu_grad_f64_batched", lambda T, A: T.linalg.lu(A), inp(gen(3, 3, batch=(2,)), dtype=D.float64),
          **TOL)
grad_case("torch_lu_grad", lambda T, A: T.lu(A)[0], gen(3, 3, k=5), **TOL)
grad_case("linalg_lu_grad2", lambda T, A: T.linalg.lu(A), inp(gen(3, 3), dtype=D.float64), order=2, **TOL)
grad_case("linalg_lu_grad2_wide", lambda T, A: T.linalg.lu(A)[2], inp(gen(2, 3), dtype=D.float64), order=2, **TOL)
grad_case("lu_factor_grad2_tall", lambda T, A: T.linalg.lu_factor(A), inp(gen(3, 2), dtype=D.float64), order=2,
          **TOL)
for _l in BOOLS:
    for _a in BOOLS:
        grad_case(f"lu_solve_grad[left={_l},adjoint={_a}]",
                  lambda T, A, B, l=_l, a=_a: T.linalg.lu_solve(*T.linalg.lu_factor(A), B, left=l, adjoint=a),
                  gen(3, 3, shift=2.), gen(3, 2, k=1) if _l else gen(2, 3, k=1), **TOL)
        grad_case(f"lu_solve_grad_LU[left={_l},adjoint={_a}]",
                  lambda T, LU, B, l=_l, a=_a: T.linalg.lu_solve(LU, T.tensor([2, 3, 3], dtype=T.int32), B, left=l,
                                                                  adjoint=a),
                  inp(gen(3, 3, k=2), dtype=D.float64), inp(gen(3, 2, k=3) if _l else gen(2, 3, k=3),
                                                             dtype=D.float64), **TOL)
grad_case("lu_solve_grad_broadcast", lambda T, LU, B: T.linalg.lu_solve(LU, T.tensor([[2, 2], [1, 2]], dtype=T.int32),
                                                                         B),
          gen(2, 2, k=1, batch=(2,)), gen(2, 3, k=2, batch=(3, 1)), **TOL)
grad_case("torch_lu_solve_grad", lambda T, B, A: T.lu_solve(B, *T.linalg.lu_factor(A)), gen(3, 2), gen(3, 3, k=1),
          **TOL)
grad_case("lu_solve_grad2", lambda T, A, B: T.linalg.lu_solve(*T.linalg.lu_factor(A), B),
          inp(gen(3, 3), dtype=D.float64), inp(gen(3, 1, k=2), dtype=D.float64), order=2, **TOL)
