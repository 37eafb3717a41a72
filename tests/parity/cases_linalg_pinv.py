"""linalg.pinv / torch.pinverse / Tensor.pinverse / linalg.matrix_rank / linalg.cond (src/ops/linalg_pinv.c: torch's
composites over svd, eigh, inv_ex and matrix_norm; Note [Tolerances of pinv and matrix_rank]). The pseudo-inverse,
the rank and the condition number are unique, so values and gradients compare directly (pinv's gradient is torch's
pinv_backward, LinalgPinvBackward0; cond's goes through svdvals or inv and matrix_norm). Every overload: float and
Tensor atol / rtol, positional rcond / tol (float and Tensor), hermitian; torch's tolerance defaults, empty and
singular inputs, and the errors in torch's order of checks."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-4, atol=1e-4)  # float32: LAPACK's rounding in float32 against wick's float64 rounded once
FD = [D.float32, D.float64]


def mat(m, n, k=0, batch=()):
    """Uneven m x n matrices with distinct, well separated singular values."""
    def one(b):
        return [[((i * 7 + j * 3 + 2 + k * 5 + b * 11) % 11 - 5) / 4 + ((1.5 + i) if i == j else 0.)
                 for j in range(n)] for i in range(m)]
    if not batch:
        return one(0)
    return [one(b) for b in range(batch[0])]


def sym(n, k=0):
    """A symmetric indefinite n x n matrix with distinct eigenvalues."""
    a = mat(n, n, k)
    return [[(a[i][j] + a[j][i]) / 2 + (i - 1.5 if i == j else 0.) for j in range(n)] for i in range(n)]


RANK1 = [[1., 2., 3.], [2., 4., 6.]]
DIAG_SING = [[1., 0., 0.], [0., 0., 0.], [0., 0., 2.]]
# singular values 4, 1, 1e-3: the tolerances below choose how many count
GRADED = [[4., 0., 0.], [0., 1., 0.], [0., 0., 1e-3]]
SHAPES = [(3, 4), (4, 3), (3, 3), (1, 4), (4, 1)]

# ================================================================================================ linalg.pinv
cases("pinv", lambda T, shape, dtype: T.linalg.pinv(T.tensor(mat(*shape), dtype=dtype)), shape=SHAPES, dtype=FD,
      **TOL)
cases("pinv_rank_deficient", lambda T, dtype: T.linalg.pinv(T.tensor(RANK1, dtype=dtype)), dtype=FD, **TOL)
case("pinv_diag_singular", lambda T: T.linalg.pinv(T.tensor(DIAG_SING)))
case("pinv_zeros", lambda T: T.linalg.pinv(T.zeros(2, 3)))
cases("pinv_atol_float", lambda T, a: T.linalg.pinv(T.tensor(GRADED), atol=a), a=[0.0, 1e-4, 0.5, 2.0, 5.0],
      **TOL)
cases("pinv_rtol_float", lambda T, r: T.linalg.pinv(T.tensor(GRADED), rtol=r), r=[0.0, 1e-4, 0.1, 0.3, 2.0],
      **TOL)
case("pinv_atol_rtol_float", lambda T: T.linalg.pinv(T.tensor(GRADED), atol=0.5, rtol=0.1), **TOL)
case("pinv_atol_zero_keeps_default_rtol", lambda T: T.linalg.pinv(T.tensor([[1., 0.], [0., 1e-9]], dtype=T.float64),
     atol=0.0), **TOL)
case("pinv_atol_tensor", lambda T: T.linalg.pinv(T.tensor(GRADED), atol=T.tensor(0.5)), **TOL)
case("pinv_rtol_tensor", lambda T: T.linalg.pinv(T.tensor(GRADED), rtol=T.tensor(0.1)), **TOL)
case("pinv_atol_tensor_batched", lambda T: T.linalg.pinv(T.tensor([GRADED, GRADED]), atol=T.tensor([0.5, 2.0])),
     **TOL)
case("pinv_atol_tensor_broadcast", lambda T: T.linalg.pinv(T.tensor(GRADED), atol=T.tensor([1e-4, 0.5, 2.0])), **TOL)
case("pinv_atol_tensor_int", lambda T: T.linalg.pinv(T.tensor(GRADED), atol=T.tensor([0, 2])), **TOL)
case("pinv_atol_tensor_zero_default_rtol", lambda T: T.linalg.pinv(T.tensor([[[1., 0.], [0., 1e-9]]] * 2,
     dtype=T.float64), atol=T.tensor([0., 1e-12], dtype=T.float64)), **TOL)
cases("pinv_rcond_positional", lambda T, rcond: T.linalg.pinv(T.tensor(GRADED), rcond), rcond=[1e-15, 1e-2, 0.3],
      **TOL)
case("pinv_rcond_tensor", lambda T: T.linalg.pinv(T.tensor(GRADED), T.tensor(0.3)), **TOL)
case("pinv_rcond_tensor_batched", lambda T: T.linalg.pinv(T.tensor([GRADED, GRADED]), T.tensor([0.3, 1e-5])), **TOL)
cases("pinv_hermitian", lambda T, dtype: T.linalg.pinv(T.tensor(sym(4), dtype=dtype), hermitian=True), dtype=FD,
      **TOL)
case("pinv_hermitian_positional", lambda T: T.linalg.pinv(T.tensor(sym(3, 1)), 1e-15, True), **TOL)
case("pinv_hermitian_tol", lambda T: T.linalg.pinv(T.tensor([[4., 0., 0.], [0., -1., 0.], [0., 0., 1e-3]]),
     atol=0.5, hermitian=True), **TOL)
case("pinv_hermitian_uses_lower", lambda T: T.linalg.pinv(T.tensor([[2., 5.], [1., 3.]]), hermitian=True), **TOL)
case("pinv_hermitian_singular", lambda T: T.linalg.pinv(T.tensor([[1., 1.], [1., 1.]]), hermitian=True), **TOL)
case("pinv_batched", lambda T: T.linalg.pinv(T.tensor(mat(3, 4, 1, batch=(3,)))), **TOL)
case("pinv_nc", lambda T: T.linalg.pinv(nc_t(T, mat(3, 5, 1))), **TOL)
case("pinv_nc_step", lambda T: T.linalg.pinv(nc_step(T, mat(4, 6, 2))), **TOL)
case("pinv_expanded", lambda T: T.linalg.pinv(T.tensor(mat(3, 2)).expand(2, 3, 2)), **TOL)
cases("pinv_empty", lambda T, shape: T.linalg.pinv(T.zeros(*shape)), shape=[(0, 3), (3, 0), (0, 0), (2, 0, 3),
      (0, 2, 3)])
case("pinv_empty_hermitian", lambda T: T.linalg.pinv(T.zeros(2, 0, 0), hermitian=True))
case("pinv_out", lambda T: (lambda out: (T.linalg.pinv(T.tensor(mat(3, 4)), out=out), out))(T.zeros(4, 3)), **TOL)
case("pinv_out_resized", lambda T: (lambda out: (T.linalg.pinv(T.tensor(mat(3, 4)), atol=0.5, out=out), out))(
     T.zeros(0)), **TOL)
case("pinv_float64_exact", lambda T: T.linalg.pinv(T.tensor(mat(6, 4, 3), dtype=T.float64)), rtol=1e-9, atol=1e-10)
case("pinverse", lambda T: T.pinverse(T.tensor(mat(3, 4, 2))), **TOL)
case("pinverse_rcond", lambda T: T.pinverse(T.tensor(GRADED), 0.3), **TOL)
case("pinverse_rcond_keyword", lambda T: T.pinverse(T.tensor(GRADED), rcond=1e-2), **TOL)
case("tensor_pinverse", lambda T: T.tensor(mat(4, 2, 1)).pinverse(), **TOL)
case("tensor_pinverse_rcond", lambda T: T.tensor(GRADED).pinverse(rcond=0.3), **TOL)
case("pinv_grad_fn", lambda T: [type(f(T.tensor(mat(3, 4), requires_grad=True)).grad_fn).__name__ for f in
     (T.linalg.pinv, lambda A: T.linalg.pinv(A, atol=0.1), lambda A: T.linalg.pinv(A, 0.1), T.pinverse,
      lambda A: A.pinverse(), lambda A: T.linalg.pinv(A, T.tensor(0.1)))])
case("pinv_hermitian_grad_fn", lambda T: type(T.linalg.pinv(T.tensor(sym(3), requires_grad=True), hermitian=True)
     .grad_fn).__name__)
case("pinv_no_grad", lambda T: T.linalg.pinv(T.tensor(mat(3, 4))).requires_grad)

for _shape in [(3, 3), (3, 5), (5, 3), (1, 4), (4, 1)]:
    _s = "x".join(map(str, _shape))
    grad_case(f"pinv_grad[{_s}]", lambda T, A: T.linalg.pinv(A), inp(mat(*_shape, k=1), dtype=D.float64), **TOL)
grad_case("pinv_grad_float32", lambda T, A: T.linalg.pinv(A), mat(4, 3, 2), rtol=1e-3, atol=1e-3)
grad_case("pinv_grad_batched", lambda T, A: T.linalg.pinv(A), inp(mat(3, 4, 3, batch=(2,)), dtype=D.float64), **TOL)
grad_case("pinv_grad_nc", lambda T, A: T.linalg.pinv(A), inp(mat(4, 3, 4), dtype=D.float64, view=vT), **TOL)
grad_case("pinv_grad_hermitian", lambda T, A: T.linalg.pinv(A, hermitian=True), inp(sym(3, 2), dtype=D.float64),
          **TOL)
grad_case("pinv_grad_atol", lambda T, A: T.linalg.pinv(A, atol=0.5), inp(GRADED, dtype=D.float64), **TOL)
grad_case("pinverse_grad", lambda T, A: T.pinverse(A), inp(mat(2, 4, 5), dtype=D.float64), **TOL)
grad_case("pinv_grad2", lambda T, A: T.linalg.pinv(A), inp(mat(3, 4, 6), dtype=D.float64), order=2, **TOL)
grad_case("pinv_grad2_tall", lambda T, A: T.linalg.pinv(A), inp(mat(4, 2, 7), dtype=D.float64), order=2, **TOL)

error_case("pinv_1d", lambda T: T.linalg.pinv(T.ones(3)))
error_case("pinv_0d", lambda T: T.linalg.pinv(T.tensor(1.)))
error_case("pinv_int", lambda T: T.linalg.pinv(T.ones(2, 2, dtype=T.int64)))
error_case("pinv_half", lambda T: T.linalg.pinv(T.ones(2, 2, dtype=T.float16)))
error_case("pinv_int_rtol_float", lambda T: T.linalg.pinv(T.ones(2, 2, dtype=T.int64), rtol=0.1))
error_case("pinv_int_atol_float", lambda T: T.linalg.pinv(T.ones(2, 2, dtype=T.int64), atol=0.1))
error_case("pinv_int_atol_tensor", lambda T: T.linalg.pinv(T.ones(2, 2, dtype=T.int64), atol=T.tensor(0.1)))
error_case("pinv_1d_atol_float", lambda T: T.linalg.pinv(T.ones(3), atol=0.1))
error_case("pinv_0d_atol_float", lambda T: T.linalg.pinv(T.tensor(1.), atol=0.1))
error_case("pinv_1d_rcond", lambda T: T.linalg.pinv(T.ones(3), 0.1))
error_case("pinv_hermitian_not_square", lambda T: T.linalg.pinv(T.ones(2, 3), hermitian=True))
error_case("pinv_atol_broadcast", lambda T: T.linalg.pinv(T.ones(2, 3, 3), atol=T.ones(3)))
error_case("pinv_nan", lambda T: T.linalg.pinv(T.tensor([[1., float("nan")], [2., 3.]])))
error_case("pinverse_int", lambda T: T.pinverse(T.ones(2, 2, dtype=T.int32)))

# ========================================================================================== linalg.matrix_rank
cases("matrix_rank", lambda T, shape, dtype: T.linalg.matrix_rank(T.tensor(mat(*shape), dtype=dtype)), shape=SHAPES,
      dtype=FD)
cases("matrix_rank_deficient", lambda T, dtype: T.linalg.matrix_rank(T.tensor(RANK1, dtype=dtype)), dtype=FD)
case("matrix_rank_zeros", lambda T: T.linalg.matrix_rank(T.zeros(3, 2)))
case("matrix_rank_diag_singular", lambda T: T.linalg.matrix_rank(T.tensor(DIAG_SING)))
case("matrix_rank_batched", lambda T: T.linalg.matrix_rank(T.tensor([GRADED, DIAG_SING, [[0.] * 3] * 3])))
cases("matrix_rank_atol_float", lambda T, a: T.linalg.matrix_rank(T.tensor(GRADED), atol=a),
      a=[0.0, 1e-4, 0.5, 2.0, 5.0])
cases("matrix_rank_rtol_float", lambda T, r: T.linalg.matrix_rank(T.tensor(GRADED), rtol=r),
      r=[0.0, 1e-4, 0.1, 0.3, 2.0])
case("matrix_rank_atol_rtol", lambda T: T.linalg.matrix_rank(T.tensor(GRADED), atol=0.5, rtol=0.1))
case("matrix_rank_default_rtol", lambda T: [T.linalg.matrix_rank(T.tensor([[1., 0.], [0., e]], dtype=T.float64))
     for e in (1e-10, 1e-15, 1e-17)])
case("matrix_rank_default_rtol_float32", lambda T: [T.linalg.matrix_rank(T.tensor([[1., 0.], [0., e]]))
     for e in (1e-5, 1e-8)])
case("matrix_rank_atol_tensor", lambda T: T.linalg.matrix_rank(T.tensor([GRADED] * 3),
     atol=T.tensor([1e-4, 0.5, 2.0])))
case("matrix_rank_rtol_tensor", lambda T: T.linalg.matrix_rank(T.tensor(GRADED), rtol=T.tensor([[0.1], [0.5]])))
cases("matrix_rank_tol_positional", lambda T, tol: T.linalg.matrix_rank(T.tensor(GRADED), tol), tol=[1e-4, 0.5, 2.0])
case("matrix_rank_tol_keyword", lambda T: T.linalg.matrix_rank(T.tensor(GRADED), tol=0.5))
case("matrix_rank_tol_tensor", lambda T: T.linalg.matrix_rank(T.tensor([GRADED, GRADED]), T.tensor([0.5, 2.0])))
case("matrix_rank_hermitian", lambda T: [T.linalg.matrix_rank(T.tensor(m), hermitian=True) for m in
     (sym(4), [[1., 1.], [1., 1.]], [[4., 0., 0.], [0., -1., 0.], [0., 0., 0.]])])
case("matrix_rank_hermitian_tol", lambda T: T.linalg.matrix_rank(T.tensor([[4., 0., 0.], [0., -1., 0.],
     [0., 0., 1e-3]]), atol=0.5, hermitian=True))
case("matrix_rank_hermitian_positional", lambda T: T.linalg.matrix_rank(T.tensor(sym(3)), 2.5, True))
cases("matrix_rank_empty", lambda T, shape: T.linalg.matrix_rank(T.zeros(*shape)), shape=[(0, 3), (3, 0), (0, 0),
      (2, 0, 3), (0, 2, 3)])
case("matrix_rank_nc", lambda T: T.linalg.matrix_rank(nc_t(T, RANK1)))
case("matrix_rank_out", lambda T: (lambda out: (T.linalg.matrix_rank(T.tensor([GRADED, DIAG_SING]), out=out), out))(
     T.zeros(2, dtype=T.int64)))
case("matrix_rank_requires_grad", lambda T: (lambda r: (r.requires_grad, r.grad_fn is None))(
     T.linalg.matrix_rank(T.tensor(mat(3, 4), requires_grad=True))))
error_case("matrix_rank_1d", lambda T: T.linalg.matrix_rank(T.ones(3)))
error_case("matrix_rank_1d_atol", lambda T: T.linalg.matrix_rank(T.ones(3), atol=0.1))
error_case("matrix_rank_1d_tol", lambda T: T.linalg.matrix_rank(T.ones(3), 0.1))
error_case("matrix_rank_int", lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.int64)))
error_case("matrix_rank_half", lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.float16)))
error_case("matrix_rank_int_rtol", lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.int64), rtol=0.1))
error_case("matrix_rank_int_tol", lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.int64), 0.1))
error_case("matrix_rank_int_atol_tensor", lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.int64),
           atol=T.tensor(0.1)))
error_case("matrix_rank_hermitian_not_square", lambda T: T.linalg.matrix_rank(T.ones(2, 3), hermitian=True))
error_case("matrix_rank_nan", lambda T: T.linalg.matrix_rank(T.tensor([[1., float("nan")], [2., 3.]])))

# ================================================================================================ linalg.cond
CORDS = [None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"]
cases("cond", lambda T, p, dtype: T.linalg.cond(T.tensor(mat(3, 3, 1), dtype=dtype), p), p=CORDS, dtype=FD, **TOL)
cases("cond_4x4", lambda T, p: T.linalg.cond(T.tensor(mat(4, 4, 2), dtype=T.float64), p), p=CORDS, rtol=1e-9,
      atol=1e-10)
cases("cond_float_ord", lambda T, p: T.linalg.cond(T.tensor(mat(3, 3, 3)), p), p=[2.0, -2.0, 1.0, -1.0], **TOL)
cases("cond_not_square_svd", lambda T, p, shape: T.linalg.cond(T.tensor(mat(*shape)), p), p=[None, 2, -2],
      shape=[(3, 4), (4, 3), (1, 3)], **TOL)
cases("cond_batched", lambda T, p: T.linalg.cond(T.tensor(mat(3, 3, 1, batch=(3,))), p), p=CORDS, **TOL)
case("cond_default_keyword", lambda T: T.linalg.cond(T.tensor(mat(3, 3)), p=None), **TOL)
cases("cond_singular", lambda T, p: T.linalg.cond(T.tensor(DIAG_SING), p), p=CORDS)
cases("cond_singular_lu", lambda T, p: T.linalg.cond(T.tensor([[1., 2.], [2., 4.]]), p),
      p=[1, -1, float("inf"), float("-inf"), "fro"])
cases("cond_zeros", lambda T, p: T.linalg.cond(T.zeros(3, 3), p), p=CORDS)
cases("cond_batched_one_singular", lambda T, p: T.linalg.cond(T.tensor([mat(3, 3), DIAG_SING]), p),
      p=[1, float("inf"), "fro"], **TOL)
cases("cond_empty", lambda T, p, shape: T.linalg.cond(T.zeros(*shape), p), p=CORDS,
      shape=[(0, 0), (2, 0, 0), (0, 3, 3)])
case("cond_empty_not_square", lambda T: T.linalg.cond(T.zeros(2, 3, 0)))
case("cond_empty_not_square_ord1", lambda T: T.linalg.cond(T.zeros(2, 3, 0), 1))
case("cond_nc", lambda T: [T.linalg.cond(nc_t(T, mat(3, 3, 2)), p) for p in CORDS], **TOL)
cases("cond_out", lambda T, p: (lambda out: (T.linalg.cond(T.tensor(mat(3, 3, 1, batch=(2,))), p, out=out), out))(
      T.zeros(2)), p=[None, 1, "nuc"], **TOL)
case("cond_grad_fn", lambda T: [type(T.linalg.cond(T.tensor(mat(3, 3), requires_grad=True), p).grad_fn).__name__
     for p in CORDS])
for _p in [None, 2, -2, "nuc"]:
    grad_case(f"cond_grad[p={_p}]", lambda T, A, p=_p: T.linalg.cond(A, p), inp(mat(3, 3, 4), dtype=D.float64),
              **TOL)
# torch's cond through the inverse fills inv_ex's output in place (masked_fill_), which its backward saved: backward
# raises the modified-saved-tensor error
cases("cond_grad_inverse_raises", lambda T, p: T.linalg.cond(T.tensor(mat(3, 3, 4), dtype=T.float64,
      requires_grad=True), p).backward(), p=[1, -1, float("inf"), float("-inf"), "fro"], kind="error")
grad_case("cond_grad_batched", lambda T, A: T.linalg.cond(A), inp(mat(3, 3, 5, batch=(2,)), dtype=D.float64),
          **TOL)
grad_case("cond_grad_not_square", lambda T, A: T.linalg.cond(A, -2), inp(mat(3, 5, 6), dtype=D.float64), **TOL)
grad_case("cond_grad2", lambda T, A: T.linalg.cond(A, "nuc"), inp(mat(3, 3, 7), dtype=D.float64), order=2, **TOL)
grad_case("cond_grad2_svd", lambda T, A: T.linalg.cond(A), inp(mat(3, 3, 8), dtype=D.float64), order=2, **TOL)
error_case("cond_1d", lambda T: T.linalg.cond(T.ones(3)))
error_case("cond_0d", lambda T: T.linalg.cond(T.tensor(2.)))
cases("cond_1d_str", lambda T, p: T.linalg.cond(T.ones(3), p), p=["fro", "nuc", "abc"], kind="error")
cases("cond_not_square", lambda T, p: T.linalg.cond(T.ones(3, 4), p),
      p=[1, -1, 1.0, -1.0, float("inf"), float("-inf"), "fro", "nuc", "abc"], kind="error")
cases("cond_bad_ord", lambda T, p: T.linalg.cond(T.ones(3, 3), p), p=[3, 0, 2.5, 1e20, -0.5, "abc", "inf"],
      kind="error")
error_case("cond_bad_ord_1d", lambda T: T.linalg.cond(T.ones(3), 3))
error_case("cond_int", lambda T: T.linalg.cond(T.ones(2, 2, dtype=T.int64)))
error_case("cond_int_ord1", lambda T: T.linalg.cond(T.ones(2, 2, dtype=T.int64), 1))
error_case("cond_half", lambda T: T.linalg.cond(T.ones(2, 2, dtype=T.float16)))
error_case("cond_nan", lambda T: T.linalg.cond(T.tensor([[1., float("nan")], [2., 3.]])))
