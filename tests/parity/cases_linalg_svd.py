"""linalg.svd / linalg.svdvals / torch.svd / Tensor.svd (src/ops/linalg_svd.c: QR then one-sided Jacobi in
float64, Note [SVD by one-sided Jacobi]). Singular values (descending, as LAPACK's gesdd) are compared directly.
Singular vectors are not unique (the sign of each pair u_j, v_j; any basis of a repeated or zero singular value's
space; the completion columns of full_matrices), so U and Vh are never compared directly: for matrices with distinct
singular values the cases compare U * U and Vh * Vh on the first k = min(m, n) vectors (each sign cancels), the
reconstruction U_k diag(S) Vh_k (the coupled signs), U^T U and Vh Vh^T (orthonormality, completion included) and,
for full_matrices, the projector U[:, k:] U[:, k:]^T (basis-free). Gradients use gauge-invariant losses (functions
of S, U diag(f(S)) Vh, U * U, U U^T, Vh^T Vh), so torch's and wick's gradients compare directly: torch's
svd_backward, the m > n and m < n terms, full_matrices, second order in float64, and its shortcut when only S is
used (finite at a repeated singular value)."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-4, atol=1e-4)  # float32: sgesdd's rounding in float32 against wick's float64 rounded once
TOL64 = dict(rtol=1e-9, atol=1e-10)
FD = [D.float32, D.float64]


def mat(m, n, k=0, batch=()):
    """Uneven m x n matrices with distinct, well separated singular values."""
    def one(b):
        return [[((i * 7 + j * 3 + 2 + k * 5 + b * 11) % 11 - 5) / 4 + ((1.5 + i) if i == j else 0.)
                 for j in range(n)] for i in range(m)]
    if not batch:
        return one(0)
    return [one(b) for b in range(batch[0])] if len(batch) == 1 else \
        [[one(b * batch[1] + c) for c in range(batch[1])] for b in range(batch[0])]


def inv(T, r):
    """Sign-invariant views of svd's result r = (U, S, Vh), distinct singular values."""
    U, S, Vh = r
    k = S.shape[-1]
    Uk, Vk = U[..., :k], Vh[..., :k, :]
    Uc = U[..., k:]
    return (S, Uk * Uk, Vk * Vk, (Uk * S.unsqueeze(-2)) @ Vk, U.transpose(-2, -1) @ U,
            Vh @ Vh.transpose(-2, -1), Uc @ Uc.transpose(-2, -1), U.shape, Vh.shape)


def inv_rep(T, r):
    """Basis-free views (repeated or zero singular values allowed)."""
    U, S, Vh = r
    k = S.shape[-1]
    Uk, Vk = U[..., :k], Vh[..., :k, :]
    return S, (Uk * S.unsqueeze(-2)) @ Vk, U.transpose(-2, -1) @ U, Vh @ Vh.transpose(-2, -1), U @ U.transpose(-2, -1)


def inv_legacy(T, r):
    U, S, V = r
    return inv(T, (U, S, V.transpose(-2, -1)))


SHAPES = [(1, 1), (3, 3), (5, 5), (4, 3), (3, 4), (6, 2), (2, 6), (1, 4), (4, 1), (8, 7)]
cases("linalg_svd", lambda T, shape, full, dtype: inv(T, T.linalg.svd(T.tensor(mat(*shape), dtype=dtype),
      full_matrices=full)), shape=SHAPES, full=[True, False], dtype=FD, **TOL)
cases("linalg_svdvals", lambda T, shape, dtype: T.linalg.svdvals(T.tensor(mat(*shape, k=1), dtype=dtype)),
      shape=SHAPES, dtype=FD, **TOL)
cases("svd_legacy", lambda T, shape, some, dtype: inv_legacy(T, T.svd(T.tensor(mat(*shape, k=2), dtype=dtype),
      some=some)), shape=[(3, 3), (4, 2), (2, 4)], some=[True, False], dtype=FD, **TOL)
cases("svd_legacy_no_uv", lambda T, shape, some: T.svd(T.tensor(mat(*shape, k=3)), some=some, compute_uv=False),
      shape=[(3, 3), (4, 2), (2, 4)], some=[True, False], **TOL)
case("svd_legacy_positional", lambda T: inv_legacy(T, T.svd(T.tensor(mat(4, 3)), False, True)), **TOL)
case("svd_method", lambda T: inv_legacy(T, T.tensor(mat(3, 5)).svd()), **TOL)
case("svd_method_some_false", lambda T: inv_legacy(T, T.tensor(mat(5, 3)).svd(some=False)), **TOL)
case("svd_method_no_uv", lambda T: T.tensor(mat(5, 3)).svd(compute_uv=False), **TOL)
case("linalg_svd_positional_full", lambda T: inv(T, T.linalg.svd(T.tensor(mat(4, 2)), False)), **TOL)
cases("linalg_svd_batched", lambda T, full: inv(T, T.linalg.svd(T.tensor(mat(4, 3, batch=(2, 3))),
      full_matrices=full)), full=[True, False], **TOL)
case("linalg_svd_batched_wide", lambda T: inv(T, T.linalg.svd(T.tensor(mat(2, 5, 1, batch=(3,)), dtype=T.float64))),
     **TOL64)
case("linalg_svdvals_batched", lambda T: T.linalg.svdvals(T.tensor(mat(3, 4, 2, batch=(2, 2)))), **TOL)
case("linalg_svd_nc", lambda T: inv(T, T.linalg.svd(nc_t(T, mat(3, 5, 1)))), **TOL)
case("linalg_svd_nc_step", lambda T: inv(T, T.linalg.svd(nc_step(T, mat(4, 6, 2)), full_matrices=False)), **TOL)
case("linalg_svd_expanded", lambda T: inv(T, T.linalg.svd(T.tensor(mat(3, 2)).expand(2, 3, 2))), **TOL)
case("linalg_svdvals_float64_exact", lambda T: T.linalg.svdvals(T.tensor(mat(6, 4, 3), dtype=T.float64)), **TOL64)
case("linalg_svd_float64_15x12", lambda T: inv(T, T.linalg.svd(T.tensor(mat(15, 12, 3), dtype=T.float64))),
     rtol=1e-8, atol=1e-9)
case("linalg_svdvals_scaled", lambda T: T.linalg.svdvals(T.tensor(mat(3, 4), dtype=T.float64) * 1e150),
     rtol=1e-9, atol=0)
# repeated and zero singular values: only the basis-free invariants
case("linalg_svd_identity", lambda T: inv_rep(T, T.linalg.svd(T.eye(4))), **TOL)
case("linalg_svd_zero", lambda T: inv_rep(T, T.linalg.svd(T.zeros(3, 2, dtype=T.float64))), **TOL)
case("linalg_svd_zero_wide", lambda T: inv_rep(T, T.linalg.svd(T.zeros(2, 3))), **TOL)
case("linalg_svd_rank1", lambda T: inv_rep(T, T.linalg.svd(T.tensor([[1., 2.], [2., 4.], [3., 6.]],
     dtype=T.float64))), **TOL)
case("linalg_svd_ones", lambda T: inv_rep(T, T.linalg.svd(T.ones(3, 3))), **TOL)
case("linalg_svd_repeated", lambda T: inv_rep(T, T.linalg.svd(T.tensor([[0., 2., 0.], [2., 0., 0.],
     [0., 0., -2.]]), full_matrices=False)), **TOL)
case("linalg_svdvals_diagonal", lambda T: T.linalg.svdvals(T.tensor([[-1., 0., 0.], [0., 3., 0.], [0., 0., 2.]])))
# non-finite input: NaN raises (below), an infinity gives NaN everywhere in that matrix, as torch's gesdd
case("linalg_svd_inf", lambda T: T.linalg.svd(T.tensor([[1., float("inf")], [2., 3.]])))
case("linalg_svd_inf_batched", lambda T: (lambda r: (r[1], r[0][1], r[2][1]))(T.linalg.svd(T.tensor(
     [[[1., 2.], [3., 4.]], [[1., -float("inf")], [2., 3.]]], dtype=T.float64))), **TOL)
case("linalg_svdvals_inf", lambda T: T.linalg.svdvals(T.tensor([[[1., 2.], [3., 4.]], [[float("inf"), 0.],
     [2., 3.]]])), **TOL)
cases("linalg_svd_empty", lambda T, shape, full: T.linalg.svd(T.zeros(*shape), full_matrices=full),
      shape=[(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 3, 2), (2, 3, 0)], full=[True, False])
cases("linalg_svd_empty_dtype", lambda T, dtype: T.linalg.svd(T.zeros(2, 0, dtype=dtype)),
      dtype=[D.float64, D.float16])
case("linalg_svdvals_empty", lambda T: T.linalg.svdvals(T.zeros(3, 0, 2)))
cases("svd_legacy_empty", lambda T, some, uv: T.svd(T.zeros(3, 0), some=some, compute_uv=uv),
      some=[True, False], uv=[True, False])
case("linalg_svd_return_type", lambda T: (lambda r: (type(r).__name__, r.S, r[1], len(r)))(
     T.linalg.svd(T.tensor(mat(3, 2)))), **TOL)
case("svd_return_type", lambda T: (lambda r: (type(r).__name__, r.S, r.V * r.V))(T.svd(T.tensor(mat(3, 2)))),
     **TOL)
case("linalg_svdvals_repr", lambda T: repr(T.linalg.svdvals(T.tensor([[3., 0.], [4., 5.]]))))
case("linalg_svd_repr_positive_1x1", lambda T: repr(T.linalg.svd(T.tensor([[2.5]]))))
case("linalg_svd_out", lambda T: (lambda U, S, Vh: (inv(T, T.linalg.svd(T.tensor(mat(4, 3)), out=(U, S, Vh))),
     inv(T, (U, S, Vh))))(T.empty(0), T.empty(0), T.empty(0)), **TOL)
case("linalg_svd_out_reduced", lambda T: (lambda U, S, Vh: (T.linalg.svd(T.tensor(mat(2, 3)), full_matrices=False,
     out=(U, S, Vh))[1], inv(T, (U, S, Vh))))(T.empty(5), T.empty(0), T.empty(1, 1)), **TOL)
case("linalg_svdvals_out", lambda T: (lambda s: (T.linalg.svdvals(T.tensor(mat(3, 4)), out=s), s))(T.empty(0)),
     **TOL)
case("svd_out", lambda T: (lambda U, S, V: (inv_legacy(T, T.svd(T.tensor(mat(3, 4)), out=(U, S, V))),
     inv_legacy(T, (U, S, V))))(T.empty(0), T.empty(0), T.empty(0)), **TOL)
case("linalg_svd_grad_fn", lambda T: [type(t.grad_fn).__name__ for t in
     T.linalg.svd(T.tensor(mat(3, 3)).requires_grad_())])
case("linalg_svdvals_grad_fn", lambda T: type(T.linalg.svdvals(T.tensor(mat(3, 2)).requires_grad_()).grad_fn).__name__)
case("svd_grad_fn", lambda T: [type(t.grad_fn).__name__ for t in T.svd(T.tensor(mat(3, 2)).requires_grad_())])
case("svd_no_uv_grad", lambda T: [(t.requires_grad, type(t.grad_fn).__name__) for t in
     T.svd(T.tensor(mat(3, 2)).requires_grad_(), compute_uv=False)])
case("linalg_svdvals_no_grad", lambda T: T.linalg.svdvals(T.tensor(mat(3, 3))).requires_grad)


def rec(T, A, full=False, p=1.0):
    """U diag(S^p) Vh: gauge-invariant"""
    U, S, Vh = T.linalg.svd(A, full_matrices=full)
    k = S.shape[-1]
    return (U[..., :k] * (S ** p).unsqueeze(-2)) @ Vh[..., :k, :]


def squares(T, A, full=False):
    U, S, Vh = T.linalg.svd(A, full_matrices=full)
    k = S.shape[-1]
    return U[..., :k] * U[..., :k], Vh[..., :k, :] * Vh[..., :k, :], S


def projectors(T, A):
    U, S, Vh = T.linalg.svd(A, full_matrices=False)
    return U @ (U.transpose(-2, -1) * S.unsqueeze(-1)), (Vh.transpose(-2, -1) * S.exp()) @ Vh


def u_only(T, A):
    U, S, Vh = T.linalg.svd(A, full_matrices=False)
    return U * U


def v_only(T, A):
    U, S, Vh = T.linalg.svd(A, full_matrices=False)
    return Vh * Vh


for _shape in [(3, 3), (5, 3), (3, 5), (1, 3), (4, 1)]:
    _s = "x".join(map(str, _shape))
    grad_case(f"linalg_svdvals_grad[{_s}]", lambda T, A: T.linalg.svdvals(A), inp(mat(*_shape), dtype=D.float64),
              **TOL)
    grad_case(f"linalg_svd_grad_S_only[{_s}]", lambda T, A: T.linalg.svd(A)[1], mat(*_shape, k=1), **TOL)
    grad_case(f"linalg_svd_grad_rec[{_s}]", lambda T, A: rec(T, A, p=2.0), inp(mat(*_shape, k=2), dtype=D.float64),
              **TOL)
    grad_case(f"linalg_svd_grad_squares[{_s}]", lambda T, A: squares(T, A), inp(mat(*_shape, k=3), dtype=D.float64),
              **TOL)
    grad_case(f"linalg_svd_grad_squares_full[{_s}]", lambda T, A: squares(T, A, True),
              inp(mat(*_shape, k=4), dtype=D.float64), **TOL)
    grad_case(f"linalg_svd_grad_projectors[{_s}]", lambda T, A: projectors(T, A),
              inp(mat(*_shape, k=5), dtype=D.float64), **TOL)
    grad_case(f"linalg_svd_grad_u_only[{_s}]", lambda T, A: u_only(T, A), inp(mat(*_shape, k=6), dtype=D.float64),
              **TOL)
    grad_case(f"linalg_svd_grad_v_only[{_s}]", lambda T, A: v_only(T, A), inp(mat(*_shape, k=7), dtype=D.float64),
              **TOL)
grad_case("linalg_svd_grad_float32", lambda T, A: squares(T, A), mat(4, 3, 2), rtol=1e-3, atol=1e-3)
grad_case("linalg_svd_grad_batched", lambda T, A: squares(T, A), inp(mat(3, 4, 1, batch=(2,)), dtype=D.float64),
          **TOL)
grad_case("linalg_svd_grad_nc", lambda T, A: rec(T, A, p=0.5), inp(mat(4, 3, 3), dtype=D.float64, view=vT), **TOL)
grad_case("svd_legacy_grad", lambda T, A: (lambda U, S, V: (U * U, V * V * S))(*T.svd(A)),
          inp(mat(4, 3, 4), dtype=D.float64), **TOL)
grad_case("svd_legacy_grad_no_uv", lambda T, A: T.svd(A, compute_uv=False)[1], inp(mat(3, 4, 5), dtype=D.float64),
          **TOL)
# repeated singular values: only a loss symmetric in them is basis-free (U diag(gS) Vh with equal gS there)
grad_case("linalg_svdvals_grad_repeated", lambda T, A: (lambda S: (S * S).sum() + S.sum())(T.linalg.svdvals(A)),
          inp([[2., 0., 0.], [0., 2., 0.], [0., 0., 5.]], dtype=D.float64), **TOL)
grad_case("linalg_svd_grad_S_only_identity", lambda T, A: T.linalg.svd(A)[1].sum() * 3, inp([[1., 0.], [0., 1.]],
          dtype=D.float64), **TOL)
grad_case("linalg_svdvals_grad2", lambda T, A: T.linalg.svdvals(A), inp(mat(3, 3), dtype=D.float64), order=2,
          **TOL)
grad_case("linalg_svd_grad2_rec", lambda T, A: rec(T, A, p=2.0), inp(mat(4, 3, 1), dtype=D.float64), order=2,
          **TOL)
grad_case("linalg_svd_grad2_squares_wide", lambda T, A: squares(T, A), inp(mat(2, 3, 2), dtype=D.float64), order=2,
          **TOL)

error_case("linalg_svd_1d", lambda T: T.linalg.svd(T.ones(3)))
error_case("linalg_svd_0d", lambda T: T.linalg.svd(T.tensor(1.)))
error_case("linalg_svd_int", lambda T: T.linalg.svd(T.ones(2, 2, dtype=T.int64)))
error_case("linalg_svd_int_empty", lambda T: T.linalg.svd(T.ones(0, 2, dtype=T.int32)))
error_case("linalg_svd_bool", lambda T: T.linalg.svd(T.ones(2, 2, dtype=T.bool)))
error_case("linalg_svd_half", lambda T: T.linalg.svd(T.ones(2, 2, dtype=T.float16)))
error_case("linalg_svd_bfloat16", lambda T: T.linalg.svdvals(T.ones(2, 3, dtype=T.bfloat16)))
error_case("linalg_svd_driver", lambda T: T.linalg.svd(T.ones(2, 2), driver="gesvd"))
error_case("linalg_svdvals_driver", lambda T: T.linalg.svdvals(T.ones(2, 2), driver="gesvdj"))
error_case("linalg_svd_nan", lambda T: T.linalg.svd(T.tensor([[1., float("nan")], [2., 3.]])))
error_case("linalg_svd_nan_batched", lambda T: T.linalg.svd(T.tensor([[[1., 2.], [3., 4.]],
           [[1., 2.], [float("nan"), 3.]]])))
error_case("linalg_svdvals_nan", lambda T: T.linalg.svdvals(T.tensor([[1., float("nan"), 2.]], dtype=T.float64)))
error_case("linalg_svd_nan_and_inf", lambda T: T.linalg.svd(T.tensor([[float("inf"), float("nan")], [2., 3.]])))
error_case("linalg_svd_out_dtype", lambda T: T.linalg.svd(T.ones(2, 2), out=(T.empty(0, dtype=T.float64),
           T.empty(0), T.empty(0))))
error_case("linalg_svd_out_dtype_S", lambda T: T.linalg.svd(T.ones(2, 2), out=(T.empty(0),
           T.empty(0, dtype=T.float64), T.empty(0))))
error_case("linalg_svdvals_out_dtype", lambda T: T.linalg.svdvals(T.ones(2, 2), out=T.empty(0, dtype=T.float64)))
error_case("svd_legacy_1d", lambda T: T.svd(T.ones(3)))
error_case("svd_legacy_int", lambda T: T.svd(T.ones(3, 3, dtype=T.int32)))
error_case("svd_legacy_out_dtype", lambda T: T.svd(T.ones(2, 2), out=(T.empty(0, dtype=T.float64), T.empty(0),
           T.empty(0))))
error_case("svd_method_1d", lambda T: T.ones(3).svd())
