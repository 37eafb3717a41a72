"""The matrix norms through singular values: linalg.matrix_norm / linalg.norm / torch.norm / Tensor.norm with
ord 2, -2 and 'nuc' (src/ops/reduce.c: matrix_norm_svd, torch's composite: the two dims moved to the end,
linalg_svdvals, then amax / amin / sum over the last dim; keepdim by unsqueeze and the inverse permutation).
Singular values are unique, so values and gradients compare directly (gradients through svd_backward's S-only
term, on matrices with distinct singular values). Also: torch's zeros for ord 2 of matrices with no singular values,
amin's IndexError for ord -2 of them, the low-precision refusal, NaN's LinAlgError and inf's NaN."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-4, atol=1e-4)  # float32: LAPACK's rounding in float32 against wick's float64 rounded once
TOL64 = dict(rtol=1e-9, atol=1e-10)
FD = [D.float32, D.float64]
SORDS = [2, -2, "nuc"]


def mat(m, n, k=0, batch=()):
    """Uneven m x n matrices with distinct, well separated singular values."""
    def one(b):
        return [[((i * 7 + j * 3 + 2 + k * 5 + b * 11) % 11 - 5) / 4 + ((1.5 + i) if i == j else 0.)
                 for j in range(n)] for i in range(m)]
    if not batch:
        return one(0)
    return [one(b) for b in range(batch[0])] if len(batch) == 1 else \
        [[one(b * batch[1] + c) for c in range(batch[1])] for b in range(batch[0])]


A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.25, -0.75], [3.0, 1.5, -2.25, 0.5], [-1.0, 2.75, 1.25, -3.5]]]

# ---- values: every order x shape x dtype x keepdim, then dims, batches and layouts
cases("matrix_norm_svd", lambda T, o, shape, dtype, keepdim: T.linalg.matrix_norm(
      T.tensor(mat(*shape), dtype=dtype), o, keepdim=keepdim),
      o=SORDS, shape=[(3, 4), (4, 3), (3, 3), (1, 5), (5, 1)], dtype=FD, keepdim=[False, True], **TOL)
cases("matrix_norm_svd_dims", lambda T, o, d, keepdim: T.linalg.matrix_norm(T.tensor(A234), o, dim=d,
      keepdim=keepdim), o=SORDS, d=[(0, 1), (2, 0), (-1, -3), (1, 2), (-2, -1), (2, 1)], keepdim=[False, True],
      **TOL)
cases("matrix_norm_svd_batched", lambda T, o: T.linalg.matrix_norm(T.tensor(mat(3, 4, 1, batch=(2, 3))), o),
      o=SORDS, **TOL)
cases("matrix_norm_svd_dtype_arg", lambda T, o: T.linalg.matrix_norm(T.tensor(mat(3, 4, 2)), o, dtype=T.float64),
      o=SORDS, **TOL)
cases("matrix_norm_svd_float64", lambda T, o: T.linalg.matrix_norm(T.tensor(mat(6, 4, 3), dtype=T.float64), o),
      o=SORDS, **TOL64)
cases("matrix_norm_svd_nc", lambda T, o: T.linalg.matrix_norm(nc_t(T, mat(3, 5, 1)), o), o=SORDS, **TOL)
cases("matrix_norm_svd_nc_step", lambda T, o: T.linalg.matrix_norm(nc_step(T, mat(4, 6, 2)), o), o=SORDS, **TOL)
cases("matrix_norm_svd_expanded", lambda T, o: T.linalg.matrix_norm(T.tensor(mat(3, 2)).expand(2, 3, 2), o),
      o=SORDS, **TOL)
cases("matrix_norm_svd_positional", lambda T, o: T.linalg.matrix_norm(T.tensor(A234), o, (0, 2), True), o=SORDS,
      **TOL)
cases("matrix_norm_svd_out", lambda T, o: (lambda out: (T.linalg.matrix_norm(T.tensor(A234), o, out=out), out))(
      T.zeros(2)), o=SORDS, **TOL)
cases("matrix_norm_svd_out_resized", lambda T, o: (lambda out: (T.linalg.matrix_norm(T.tensor(A234), o,
      dim=(0, 2), out=out), out))(T.zeros(0)), o=SORDS, **TOL)
case("matrix_norm_nuc_default_dims_keyword", lambda T: T.linalg.matrix_norm(T.tensor(A234), ord="nuc"), **TOL)
case("matrix_norm_svd_rank_deficient", lambda T: [T.linalg.matrix_norm(T.tensor([[1., 2., 3.], [2., 4., 6.]]), o)
     for o in SORDS], **TOL)
case("matrix_norm_svd_zeros", lambda T: [T.linalg.matrix_norm(T.zeros(3, 2), o) for o in SORDS])
case("matrix_norm_svd_scaled", lambda T: [T.linalg.matrix_norm(T.tensor(mat(3, 4), dtype=T.float64) * 1e150, o)
     for o in SORDS], rtol=1e-9, atol=0)
case("matrix_norm_svd_inf", lambda T: [T.linalg.matrix_norm(T.tensor([[1., float("inf")], [0., 1.]]), o)
     for o in SORDS])
# linalg.norm: a 2-d input or two dims with an order goes to matrix_norm
cases("linalg_norm_svd", lambda T, o: T.linalg.norm(T.tensor(mat(3, 4, 3)), o), o=SORDS, **TOL)
cases("linalg_norm_svd_dims", lambda T, o: T.linalg.norm(T.tensor(A234), o, dim=(2, 0), keepdim=True), o=SORDS,
      **TOL)
cases("linalg_norm_svd_dtype", lambda T, o: T.linalg.norm(T.tensor(mat(4, 3, 1)), o, dtype=T.float64), o=SORDS,
      **TOL)
cases("linalg_norm_svd_out", lambda T, o: (lambda out: (T.linalg.norm(T.tensor(A234), o, dim=(1, 2), out=out), out))(
      T.zeros(2)), o=SORDS, **TOL)
# torch.norm and Tensor.norm: 'nuc' is a matrix norm; a number p is a vector norm (Frobenius for p=2, as torch)
case("torch_norm_nuc", lambda T: T.norm(T.tensor(mat(3, 4)), "nuc"), **TOL)
case("torch_norm_nuc_dims", lambda T: T.norm(T.tensor(A234), "nuc", dim=(1, 2)), **TOL)
case("torch_norm_nuc_dims_keepdim", lambda T: T.norm(T.tensor(A234), "nuc", dim=(2, 0), keepdim=True), **TOL)
case("torch_norm_nuc_dtype", lambda T: T.norm(T.tensor(mat(3, 4)), "nuc", dtype=T.float64), **TOL)
case("torch_norm_nuc_out", lambda T: (lambda out: (T.norm(T.tensor(A234), "nuc", dim=(1, 2), out=out), out))(
     T.zeros(2)), **TOL)
case("torch_norm_p2_dims_is_vector_norm", lambda T: T.norm(T.tensor(mat(3, 4)), 2, dim=(0, 1)), **TOL)
case("tensor_norm_nuc", lambda T: T.tensor(mat(4, 3, 2)).norm("nuc"), **TOL)
case("tensor_norm_nuc_positional", lambda T: T.tensor(A234).norm("nuc", (0, 1), True), **TOL)
error_case("torch_norm_nuc_3d", lambda T: T.norm(T.tensor(A234), "nuc"))
error_case("tensor_norm_nuc_one_dim", lambda T: T.tensor(A234).norm("nuc", 1))

# ---- empty inputs: ord 2 of a matrix with no singular values is zeros (no graph), ord -2 is amin's IndexError
cases("matrix_norm_svd_empty", lambda T, o, shape, keepdim: T.linalg.matrix_norm(T.zeros(*shape), o,
      keepdim=keepdim), o=[2, "nuc"], shape=[(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 2, 3)], keepdim=[False, True])
case("matrix_norm_svd_empty_dims", lambda T: [T.linalg.matrix_norm(T.zeros(2, 0, 3), o, dim=(0, 2), keepdim=True)
     for o in SORDS])
case("matrix_norm_svd_empty_dtype", lambda T: T.linalg.matrix_norm(T.zeros(2, 0, 3), 2, dtype=T.float64))
case("matrix_norm_2_empty_no_graph", lambda T: (lambda r: (r.requires_grad, r.grad_fn is None))(
     T.linalg.matrix_norm(T.zeros(2, 0, 3, requires_grad=True), 2)))
case("matrix_norm_svd_empty_batch_graph", lambda T: [type(T.linalg.matrix_norm(
     T.zeros(0, 2, 3, requires_grad=True), o).grad_fn).__name__ for o in SORDS])
case("matrix_norm_neg2_empty_batch", lambda T: T.linalg.matrix_norm(T.zeros(0, 2, 3), -2))
error_case("matrix_norm_neg2_empty", lambda T: T.linalg.matrix_norm(T.zeros(0, 3), -2))
error_case("matrix_norm_neg2_empty_batched", lambda T: T.linalg.matrix_norm(T.zeros(2, 3, 0), -2, keepdim=True))

# ---- graph and gradients
case("matrix_norm_svd_grad_fn", lambda T: [type(T.linalg.matrix_norm(T.tensor(mat(3, 4), requires_grad=True), o)
     .grad_fn).__name__ for o in SORDS])
case("matrix_norm_svd_grad_fn_keepdim", lambda T: [type(T.linalg.matrix_norm(T.tensor(mat(3, 4), requires_grad=True),
     o, keepdim=True).grad_fn).__name__ for o in SORDS])
case("matrix_norm_svd_no_grad", lambda T: [T.linalg.matrix_norm(T.tensor(mat(3, 4)), o).requires_grad for o in SORDS])
for _o in SORDS:
    for _shape in [(3, 3), (4, 3), (3, 5), (1, 4)]:
        _s = "x".join(map(str, _shape))
        grad_case(f"matrix_norm_svd_grad[o={_o},{_s}]", lambda T, A, o=_o: T.linalg.matrix_norm(A, o),
                  inp(mat(*_shape, k=1), dtype=D.float64), **TOL)
    grad_case(f"matrix_norm_svd_grad_float32[o={_o}]", lambda T, A, o=_o: T.linalg.matrix_norm(A, o), mat(4, 3, 2),
              rtol=1e-3, atol=1e-3)
    grad_case(f"matrix_norm_svd_grad_dims[o={_o}]", lambda T, A, o=_o: T.linalg.matrix_norm(A, o, dim=(2, 0),
              keepdim=True), inp(A234, dtype=D.float64), **TOL)
    grad_case(f"matrix_norm_svd_grad_batched[o={_o}]", lambda T, A, o=_o: T.linalg.matrix_norm(A, o),
              inp(mat(3, 4, 1, batch=(2,)), dtype=D.float64), **TOL)
    grad_case(f"matrix_norm_svd_grad_nc[o={_o}]", lambda T, A, o=_o: T.linalg.matrix_norm(A, o),
              inp(mat(4, 3, 3), dtype=D.float64, view=vT), **TOL)
    grad_case(f"matrix_norm_svd_grad2[o={_o}]", lambda T, A, o=_o: T.linalg.matrix_norm(A, o),
              inp(mat(3, 3, 4), dtype=D.float64), order=2, **TOL)
    grad_case(f"linalg_norm_svd_grad[o={_o}]", lambda T, A, o=_o: T.linalg.norm(A, o, dim=(1, 2)),
              inp(mat(3, 4, 5, batch=(2,)), dtype=D.float64), **TOL)
grad_case("torch_norm_nuc_grad", lambda T, A: T.norm(A, "nuc"), inp(mat(4, 3, 6), dtype=D.float64), **TOL)
grad_case("tensor_norm_nuc_grad_keepdim", lambda T, A: A.norm("nuc", dim=(0, 1), keepdim=True),
          inp(mat(3, 4, 7), dtype=D.float64), **TOL)
# repeated singular values: the nuclear norm's gradient is U Vh (basis-free); amax of a tie splits evenly
grad_case("matrix_norm_nuc_grad_repeated", lambda T, A: T.linalg.matrix_norm(A, "nuc"),
          inp([[2., 0., 0.], [0., 2., 0.], [0., 0., 5.]], dtype=D.float64), **TOL)
grad_case("matrix_norm_2_grad_tie", lambda T, A: T.linalg.matrix_norm(A, 2),
          inp([[3., 0., 0.], [0., 3., 0.], [0., 0., 1.]], dtype=D.float64), **TOL)

# ---- errors, in torch's order of checks
cases("matrix_norm_svd_low_precision", lambda T, o, dtype: T.linalg.matrix_norm(T.ones(2, 3, dtype=dtype), o),
      o=SORDS, dtype=[D.float16, D.bfloat16], kind="error")
cases("matrix_norm_svd_int", lambda T, o: T.linalg.matrix_norm(T.ones(2, 3, dtype=T.int64), o), o=SORDS,
      kind="error")
cases("matrix_norm_svd_1d", lambda T, o: T.linalg.matrix_norm(T.ones(3), o), o=SORDS, kind="error")
cases("matrix_norm_svd_1d_half", lambda T, o: T.linalg.matrix_norm(T.ones(3, dtype=T.float16), o), o=SORDS,
      kind="error")
cases("matrix_norm_svd_same_dims", lambda T, o: T.linalg.matrix_norm(T.ones(2, 3), o, dim=(1, -1)), o=SORDS,
      kind="error")
cases("matrix_norm_svd_dim_range", lambda T, o: T.linalg.matrix_norm(T.ones(2, 3), o, dim=(0, 2)), o=SORDS,
      kind="error")
cases("matrix_norm_svd_dtype_narrow", lambda T, o: T.linalg.matrix_norm(T.ones(2, 3, dtype=T.float64), o,
      dtype=T.float32), o=SORDS, kind="error")
cases("matrix_norm_svd_dtype_int", lambda T, o: T.linalg.matrix_norm(T.ones(2, 3), o, dtype=T.int32), o=SORDS,
      kind="error")
cases("matrix_norm_svd_nan", lambda T, o: T.linalg.matrix_norm(T.tensor([[1., float("nan")], [2., 3.]]), o),
      o=SORDS, kind="error")
error_case("matrix_norm_svd_half_dims_wrong", lambda T: T.linalg.matrix_norm(T.ones(2, 3, dtype=T.float16), 2,
           dim=(0, 0)))
error_case("linalg_norm_svd_3d_no_dim", lambda T: T.linalg.norm(T.tensor(A234), "nuc"))
error_case("linalg_norm_2_3d_no_dim", lambda T: T.linalg.norm(T.tensor(A234), -2))
