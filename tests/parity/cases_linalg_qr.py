"""linalg.qr (modes reduced / complete / r), torch.qr / Tensor.qr (src/ops/linalg_dense.c: Householder as LAPACK's
geqrf + orgqr, Note [QR as LAPACK's]). LAPACK's dlarfg fixes the signs (R's diagonal is -sign(a_jj) |column|, a
column already zero below the diagonal is left alone), so Q and R are determined and compared directly, not
through invariants. Gradients are torch's linalg_qr_backward (m >= n and the wide m < n formula), second order in
float64, and its two refusals (mode='r', complete with m > n) raised at backward with torch's text."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-5, atol=1e-5)  # MKL's blocked kernels round differently (a few ulps of the largest entry)
FD = [D.float32, D.float64]
MODES = ["reduced", "complete", "r"]


def rect(m, n, k=0, batch=()):
    """Uneven, full-rank m x n matrices (a shifted diagonal keeps them well conditioned)."""
    def one(b):
        return [[((i * 7 + j * 3 + 2 + k * 5 + b * 11) % 11 - 5) / 4 + (2.5 if i == j else 0.) for j in range(n)]
                for i in range(m)]
    if not batch:
        return one(0)
    return [one(b) for b in range(batch[0])] if len(batch) == 1 else \
        [[one(b * batch[1] + c) for c in range(batch[1])] for b in range(batch[0])]


def qr(T, A, **kw):
    return T.linalg.qr(A, **kw)


SHAPES = [(4, 3), (3, 3), (3, 5), (1, 4), (4, 1), (6, 2)]
cases("linalg_qr", lambda T, shape, mode, dtype: qr(T, T.tensor(rect(*shape), dtype=dtype), mode=mode),
      shape=SHAPES, mode=MODES, dtype=FD, **TOL)
cases("linalg_qr_positional_mode", lambda T, mode: T.linalg.qr(T.tensor(rect(4, 3)), mode), mode=MODES, **TOL)
cases("linalg_qr_batched", lambda T, mode: qr(T, T.tensor(rect(4, 3, batch=(2, 3))), mode=mode), mode=MODES, **TOL)
cases("linalg_qr_batched_wide", lambda T, mode: qr(T, T.tensor(rect(2, 4, batch=(3,))), mode=mode), mode=MODES,
      **TOL)
case("linalg_qr_nc", lambda T: qr(T, nc_t(T, rect(3, 5))), **TOL)
case("linalg_qr_nc_step", lambda T: qr(T, nc_step(T, rect(4, 6)), mode="complete"), **TOL)
case("linalg_qr_expanded", lambda T: qr(T, T.tensor(rect(3, 2)).expand(2, 3, 2)), **TOL)
# exact zeros: tau = 0 leaves a column alone (R_jj = 0, not negated; Q's column is e_j with -0. below it)
case("linalg_qr_zero", lambda T: qr(T, T.zeros(3, 2)))
case("linalg_qr_zero_complete", lambda T: qr(T, T.zeros(3, 2), mode="complete"))
case("linalg_qr_zero_column", lambda T: qr(T, T.tensor([[0., 1.], [0., 2.], [0., 3.]])), **TOL)
case("linalg_qr_negative_diag", lambda T: qr(T, T.tensor([[-2., 1.], [0., 3.], [0., -4.]])), **TOL)
case("linalg_qr_repr", lambda T: repr(qr(T, T.tensor([[0., 1.], [0., 2.], [0., 3.]]))))
cases("linalg_qr_empty", lambda T, shape, mode: qr(T, T.zeros(*shape), mode=mode),
      shape=[(0, 3), (3, 0), (0, 0), (2, 0, 4)], mode=MODES)
case("linalg_qr_out", lambda T: (lambda Q, R: (qr(T, T.tensor(rect(4, 3)), out=(Q, R)), Q, R))(T.empty(0), T.empty(0)),
     **TOL)
case("linalg_qr_grad_fn", lambda T: type(qr(T, T.tensor(rect(3, 3)).requires_grad_())[0].grad_fn).__name__)
case("qr_legacy", lambda T: T.qr(T.tensor(rect(4, 3))), **TOL)
case("qr_legacy_some_false", lambda T: T.qr(T.tensor(rect(4, 3)), some=False), **TOL)
case("qr_legacy_positional", lambda T: T.qr(T.tensor(rect(3, 4)), False), **TOL)
case("qr_method", lambda T: T.tensor(rect(4, 3)).qr(), **TOL)
case("qr_method_some_false", lambda T: T.tensor(rect(4, 3)).qr(some=False), **TOL)
case("qr_legacy_grad_fn", lambda T: type(T.qr(T.tensor(rect(3, 3)).requires_grad_())[1].grad_fn).__name__)


def both(T, A, mode="reduced"):
    Q, R = T.linalg.qr(A, mode=mode)
    return Q, R


for _shape in [(4, 3), (3, 3), (3, 5), (2, 4)]:
    grad_case(f"linalg_qr_grad[{_shape[0]}x{_shape[1]}]", lambda T, A: both(T, A), rect(*_shape), **TOL)
    grad_case(f"linalg_qr_grad_Q_only[{_shape[0]}x{_shape[1]}]", lambda T, A: T.linalg.qr(A)[0], rect(*_shape), **TOL)
    grad_case(f"linalg_qr_grad_R_only[{_shape[0]}x{_shape[1]}]", lambda T, A: T.linalg.qr(A)[1], rect(*_shape), **TOL)
grad_case("linalg_qr_grad_complete_square", lambda T, A: both(T, A, "complete"), rect(3, 3), **TOL)
grad_case("linalg_qr_grad_complete_wide", lambda T, A: both(T, A, "complete"), rect(3, 5), **TOL)
grad_case("linalg_qr_grad_batched", lambda T, A: both(T, A), rect(4, 3, batch=(2,)), **TOL)
grad_case("linalg_qr_grad2", lambda T, A: both(T, A), inp(rect(4, 3), dtype=D.float64), order=2, **TOL)
grad_case("linalg_qr_grad2_wide", lambda T, A: both(T, A), inp(rect(2, 3), dtype=D.float64), order=2, **TOL)
grad_case("qr_legacy_grad", lambda T, A: T.qr(A), rect(4, 3), **TOL)
grad_case("qr_method_grad_some_false", lambda T, A: A.qr(some=False), rect(3, 4), **TOL)
error_case("linalg_qr_grad_mode_r",
           lambda T: T.linalg.qr(T.tensor(rect(3, 3)).requires_grad_(), mode="r")[1].sum().backward())
error_case("linalg_qr_grad_complete_tall",
           lambda T: T.linalg.qr(T.tensor(rect(4, 3)).requires_grad_(), mode="complete")[0].sum().backward())
error_case("linalg_qr_1d", lambda T: qr(T, T.ones(3)))
error_case("linalg_qr_int", lambda T: qr(T, T.ones(3, 3, dtype=T.int64)))
error_case("linalg_qr_bad_mode", lambda T: qr(T, T.ones(3, 3), mode="full"))
error_case("linalg_qr_bad_mode_1d_first", lambda T: qr(T, T.ones(3), mode="full"))
error_case("linalg_qr_half", lambda T: qr(T, T.ones(3, 3, dtype=T.float16)))
error_case("linalg_qr_half_empty", lambda T: qr(T, T.ones(0, 3, dtype=T.bfloat16)))
error_case("linalg_qr_out_dtype", lambda T: qr(T, T.ones(3, 3), out=(T.empty(0, dtype=T.float64), T.empty(0))))
error_case("qr_legacy_int", lambda T: T.qr(T.ones(3, 3, dtype=T.int32)))
error_case("qr_legacy_1d", lambda T: T.ones(3).qr())
