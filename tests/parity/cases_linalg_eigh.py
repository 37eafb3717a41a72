"""linalg.eigh / linalg.eigvalsh (src/ops/linalg_dense.c: cyclic Jacobi in float64, Note [eigh by Jacobi]).
Eigenvalues (ascending, as LAPACK's syevd) are compared directly. Eigenvectors are not unique (each column's sign,
and any orthonormal basis of a repeated eigenvalue's space), so V is never compared directly: for matrices with
distinct eigenvalues the cases compare V * V (each column's sign cancels), V diag(L) V^T (the reconstruction of
the symmetric matrix read from the UPLO triangle) and V^T V (orthonormality); with repeated eigenvalues only the
basis-free invariants (reconstruction, V^T V, V V^T). Gradients use losses that are sign-invariant (eigenvalues,
V * V, V f(L) V^T), so torch's and wick's gradients compare directly; torch's linalg_eig_backward, second order in
float64, and its shortcut for an undefined eigenvector gradient (finite at a repeated eigenvalue)."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-4, atol=1e-4)  # float32: syevd's rounding in float32 against wick's float64 rounded once
FD = [D.float32, D.float64]


def sym(n, k=0, batch=(), symmetric=True):
    """n x n matrices with distinct, well separated eigenvalues (a spread diagonal); symmetric=False leaves the two
    triangles different, so UPLO decides which is read."""
    def one(b):
        f = [[((i * 7 + j * 3 + 2 + k * 5 + b * 11) % 11 - 5) / 4 for j in range(n)] for i in range(n)]
        return [[(f[i][j] + f[j][i] if symmetric or i >= j else f[i][j] - 3) / 2 + (1.5 * i if i == j else 0.)
                 for j in range(n)] for i in range(n)]
    if not batch:
        return one(0)
    return [one(b) for b in range(batch[0])] if len(batch) == 1 else \
        [[one(b * batch[1] + c) for c in range(batch[1])] for b in range(batch[0])]


def inv(T, r):
    """Sign-invariant views of eigh's result r = (L, V), distinct eigenvalues."""
    L, V = r
    Vt = V.transpose(-2, -1)
    return L, V * V, (V * L.unsqueeze(-2)) @ Vt, Vt @ V


def inv_rep(T, r):
    """Basis-free views of eigh's result (repeated eigenvalues allowed)."""
    L, V = r
    Vt = V.transpose(-2, -1)
    return L, (V * L.unsqueeze(-2)) @ Vt, Vt @ V, V @ Vt


cases("linalg_eigh", lambda T, n, UPLO, dtype: inv(T, T.linalg.eigh(T.tensor(sym(n), dtype=dtype), UPLO=UPLO)),
      n=[1, 2, 3, 5, 8], UPLO=["L", "U"], dtype=FD, **TOL)
cases("linalg_eigh_triangle", lambda T, UPLO, dtype: inv(T, T.linalg.eigh(T.tensor(sym(4, 1, symmetric=False),
      dtype=dtype), UPLO=UPLO)), UPLO=["L", "U", "l", "u"], dtype=FD, **TOL)
cases("linalg_eigvalsh", lambda T, n, UPLO, dtype: T.linalg.eigvalsh(T.tensor(sym(n, 2, symmetric=False),
      dtype=dtype), UPLO=UPLO), n=[1, 3, 6], UPLO=["L", "U"], dtype=FD, **TOL)
case("linalg_eigh_positional_uplo", lambda T: inv(T, T.linalg.eigh(T.tensor(sym(3, 1, symmetric=False)), "U")),
     **TOL)
case("linalg_eigvalsh_positional_uplo", lambda T: T.linalg.eigvalsh(T.tensor(sym(3, 1, symmetric=False)), "U"),
     **TOL)
case("linalg_eigh_batched", lambda T: inv(T, T.linalg.eigh(T.tensor(sym(4, batch=(2, 3))))), **TOL)
case("linalg_eigvalsh_batched", lambda T: T.linalg.eigvalsh(T.tensor(sym(3, 3, batch=(4,), symmetric=False)),
     UPLO="U"), **TOL)
case("linalg_eigh_nc", lambda T: inv(T, T.linalg.eigh(nc_t(T, sym(4, 2, symmetric=False)))), **TOL)
case("linalg_eigh_nc_step", lambda T: T.linalg.eigvalsh(nc_step(T, [r + r for r in sym(3, symmetric=False)])),
     **TOL)
case("linalg_eigh_expanded", lambda T: inv(T, T.linalg.eigh(T.tensor(sym(3)).expand(2, 3, 3))), **TOL)
case("linalg_eigh_diagonal", lambda T: inv(T, T.linalg.eigh(T.tensor([[3., 0., 0.], [0., -1., 0.], [0., 0., 2.]]))),
     **TOL)
case("linalg_eigh_identity", lambda T: inv_rep(T, T.linalg.eigh(T.eye(4))), **TOL)
case("linalg_eigh_zero", lambda T: inv_rep(T, T.linalg.eigh(T.zeros(3, 3, dtype=T.float64))), **TOL)
case("linalg_eigh_repeated", lambda T: inv_rep(T, T.linalg.eigh(T.tensor([[2., 1., 1.], [1., 2., 1.],
     [1., 1., 2.]], dtype=T.float64))), **TOL)
case("linalg_eigh_large_scale", lambda T: T.linalg.eigvalsh(T.tensor(sym(4), dtype=T.float64) * 1e6), rtol=1e-9,
     atol=1e-6)
case("linalg_eigh_nan", lambda T: T.linalg.eigh(T.tensor([[1., 2.], [float("nan"), 3.]])))
case("linalg_eigh_nan_other_triangle", lambda T: T.linalg.eigvalsh(T.tensor([[1., float("nan")], [2., 3.]])),
     **TOL)
case("linalg_eigvalsh_inf", lambda T: T.linalg.eigvalsh(T.tensor([[1., 2.], [float("inf"), 3.]],
     dtype=T.float64)))
cases("linalg_eigh_empty", lambda T, shape, dtype: T.linalg.eigh(T.zeros(*shape, dtype=dtype)),
      shape=[(0, 0), (2, 0, 0), (0, 3, 3)], dtype=[D.float32, D.float64, D.int64, D.float16])
case("linalg_eigvalsh_empty", lambda T: T.linalg.eigvalsh(T.zeros(3, 0, 0)))
case("linalg_eigh_return_type", lambda T: (lambda r: (type(r).__name__, r.eigenvalues, r[0]))(
     T.linalg.eigh(T.tensor(sym(3)))), **TOL)
case("linalg_eigh_repr_1x1", lambda T: repr(T.linalg.eigh(T.tensor([[-2.5]]))))
case("linalg_eigh_out", lambda T: (lambda L, V: (inv(T, T.linalg.eigh(T.tensor(sym(3)), out=(L, V))),
     inv(T, (L, V))))(T.empty(0), T.empty(0)), **TOL)
case("linalg_eigvalsh_out", lambda T: (lambda w: (T.linalg.eigvalsh(T.tensor(sym(3)), out=w), w))(T.empty(0)),
     **TOL)
case("linalg_eigh_grad_fn", lambda T: [type(t.grad_fn).__name__ for t in
     T.linalg.eigh(T.tensor(sym(3)).requires_grad_())])
case("linalg_eigvalsh_grad_fn", lambda T: type(T.linalg.eigvalsh(T.tensor(sym(3)).requires_grad_()).grad_fn).__name__)
case("linalg_eigvalsh_no_grad", lambda T: T.linalg.eigvalsh(T.tensor(sym(3))).requires_grad)


def vsq(T, A, UPLO="L"):
    L, V = T.linalg.eigh(A, UPLO=UPLO)
    return L, V * V


def matfun(T, A):
    L, V = T.linalg.eigh(A)
    return (V * T.exp(L / 4).unsqueeze(-2)) @ V.transpose(-2, -1)


for _n in [2, 3, 5]:
    grad_case(f"linalg_eigvalsh_grad[{_n}]", lambda T, A: T.linalg.eigvalsh(A), sym(_n, symmetric=False), **TOL)
    grad_case(f"linalg_eigh_grad_L_only[{_n}]", lambda T, A: T.linalg.eigh(A)[0], sym(_n, 1), **TOL)
    grad_case(f"linalg_eigh_grad_vsq[{_n}]", lambda T, A: vsq(T, A), sym(_n, 2), **TOL)
    grad_case(f"linalg_eigh_grad_matfun[{_n}]", lambda T, A: matfun(T, A), sym(_n, 3), **TOL)
grad_case("linalg_eigh_grad_upper", lambda T, A: vsq(T, A, "U"), sym(4, 1, symmetric=False), **TOL)
grad_case("linalg_eigvalsh_grad_upper", lambda T, A: T.linalg.eigvalsh(A, UPLO="U"), sym(4, 1, symmetric=False),
          **TOL)
grad_case("linalg_eigh_grad_batched", lambda T, A: vsq(T, A), sym(3, batch=(2,)), **TOL)
grad_case("linalg_eigvalsh_grad_repeated", lambda T, A: T.linalg.eigvalsh(A), inp([[2., 0., 0.], [0., 2., 0.],
          [0., 0., 5.]], dtype=D.float64), **TOL)
grad_case("linalg_eigh_grad_matfun_repeated_L_only", lambda T, A: T.linalg.eigh(A)[0] * 2,
          inp([[1., 0.], [0., 1.]], dtype=D.float64), **TOL)
grad_case("linalg_eigvalsh_grad2", lambda T, A: T.linalg.eigvalsh(A), inp(sym(3), dtype=D.float64), order=2, **TOL)
grad_case("linalg_eigh_grad2_vsq", lambda T, A: vsq(T, A), inp(sym(3, 1), dtype=D.float64), order=2, **TOL)
grad_case("linalg_eigh_grad2_matfun", lambda T, A: matfun(T, A), inp(sym(3, 2), dtype=D.float64), order=2, **TOL)

error_case("linalg_eigh_1d", lambda T: T.linalg.eigh(T.ones(3)))
error_case("linalg_eigh_nonsquare", lambda T: T.linalg.eigh(T.ones(2, 3)))
error_case("linalg_eigh_nonsquare_batched", lambda T: T.linalg.eigh(T.ones(4, 3, 2)))
error_case("linalg_eigh_int", lambda T: T.linalg.eigh(T.ones(2, 2, dtype=T.int64)))
error_case("linalg_eigh_bool", lambda T: T.linalg.eigh(T.ones(2, 2, dtype=T.bool)))
error_case("linalg_eigh_half", lambda T: T.linalg.eigh(T.ones(2, 2, dtype=T.float16)))
error_case("linalg_eigh_bad_uplo", lambda T: T.linalg.eigh(T.ones(2, 2), UPLO="X"))
error_case("linalg_eigh_bad_uplo_long", lambda T: T.linalg.eigh(T.ones(2, 2), UPLO="LU"))
error_case("linalg_eigh_bad_uplo_empty", lambda T: T.linalg.eigh(T.ones(2, 2), UPLO=""))
error_case("linalg_eigh_nonsquare_before_uplo", lambda T: T.linalg.eigh(T.ones(2, 3), UPLO="X"))
error_case("linalg_eigh_uplo_before_dtype", lambda T: T.linalg.eigh(T.ones(2, 2, dtype=T.int64), UPLO="X"))
error_case("linalg_eigh_out_dtype", lambda T: T.linalg.eigh(T.ones(2, 2), out=(T.empty(0, dtype=T.float64),
           T.empty(0))))
error_case("linalg_eigvalsh_1d", lambda T: T.linalg.eigvalsh(T.ones(3)))
error_case("linalg_eigvalsh_nonsquare", lambda T: T.linalg.eigvalsh(T.ones(2, 3)))
error_case("linalg_eigvalsh_int", lambda T: T.linalg.eigvalsh(T.ones(2, 2, dtype=T.int32)))
error_case("linalg_eigvalsh_bad_uplo", lambda T: T.linalg.eigvalsh(T.ones(2, 2), UPLO="X"))
error_case("linalg_eigvalsh_out_dtype", lambda T: T.linalg.eigvalsh(T.ones(2, 2), out=T.empty(0, dtype=T.float64)))
