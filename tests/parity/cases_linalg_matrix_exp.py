"""linalg.matrix_exp / torch.matrix_exp / Tensor.matrix_exp (src/ops/linalg_matrix_exp.c, Note [matrix_exp as
torch's]): the 1-norm picks the Taylor degree (1, 2, 4, 8, 12, 18 + scaling and squaring) as torch's kernel does, so
the scales below put matrices in every degree's interval for float32 and for float64 (their bounds differ); batched
with mixed degrees, non-contiguous, n = 0 and 1, gradients (torch's linalg_matrix_exp_differential, second order
in float64), torch's errors. The exponential is unique, so values are compared directly."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-5, atol=1e-6)
FD = [D.float32, D.float64]
# 1-norm of BASE is 1: scale s gives norm s. Bounds: float32 1.2e-7 / 6.0e-4 / 0.051 / 0.58 / 1.46 / 3.01,
# float64 2.2e-16 / 2.6e-8 / 3.4e-4 / 0.050 / 0.30 / 1.09
SCALES = [1e-17, 1e-9, 1e-7, 1e-5, 2e-4, 0.01, 0.04, 0.2, 0.5, 0.9, 1.3, 2.5, 6.0, 40.0]
BASE = [[0.25, -0.125, 0.3125], [0.4375, 0.5, -0.1875], [-0.3125, 0.375, 0.5]]


def scaled(s, k=0):
    """BASE (rows rotated by k) times s: uneven, non-symmetric, 1-norm exactly s."""
    rows = BASE[k % 3:] + BASE[:k % 3]
    return [[v * s for v in r] for r in rows]


cases("matrix_exp", lambda T, s, dtype: T.linalg.matrix_exp(T.tensor(scaled(s), dtype=dtype)), s=SCALES, dtype=FD,
      **TOL)
cases("matrix_exp_sizes", lambda T, n, dtype: T.linalg.matrix_exp(
    T.tensor([[((i * 5 + j * 3) % 7 - 3) / 4 for j in range(n)] for i in range(n)], dtype=dtype)),
    n=[2, 4, 6], dtype=FD, **TOL)
case("matrix_exp_batched_mixed", lambda T: T.linalg.matrix_exp(T.tensor([scaled(s, k) for k, s in
                                                                         enumerate([1e-9, 0.03, 0.4, 1.2, 9.0])])),
     **TOL)
case("matrix_exp_batched_2d", lambda T: T.linalg.matrix_exp(T.tensor([[scaled(0.3), scaled(3.0, 1)],
                                                                     [scaled(0.01, 2), scaled(30.0)]],
                                                                    dtype=T.float64)), **TOL)
case("matrix_exp_nc", lambda T: T.linalg.matrix_exp(nc_t(T, scaled(0.7, 1))), **TOL)
case("matrix_exp_zeros", lambda T: T.linalg.matrix_exp(T.zeros(3, 3)))
case("matrix_exp_1x1", lambda T: T.linalg.matrix_exp(T.tensor([[[0.5]], [[-2.0]]])), **TOL)
case("matrix_exp_0x0", lambda T: T.linalg.matrix_exp(T.zeros(2, 0, 0)))
case("matrix_exp_empty_batch", lambda T: T.linalg.matrix_exp(T.zeros(0, 3, 3)))
case("torch_matrix_exp", lambda T: T.matrix_exp(T.tensor(scaled(1.7, 2))), **TOL)
case("tensor_matrix_exp", lambda T: T.tensor(scaled(0.05, 1)).matrix_exp(), **TOL)
case("matrix_exp_nilpotent", lambda T: T.linalg.matrix_exp(T.tensor([[0., 1., 2.], [0., 0., 3.], [0., 0., 0.]])),
     **TOL)
case("matrix_exp_rotation", lambda T: T.linalg.matrix_exp(T.tensor([[0., -1.5], [1.5, 0.]], dtype=T.float64)), **TOL)
case("matrix_exp_grad_fn", lambda T: T.linalg.matrix_exp(T.tensor(scaled(0.5), requires_grad=True)))
case("torch_matrix_exp_grad_fn", lambda T: T.matrix_exp(T.tensor(scaled(0.5), requires_grad=True)))
error_case("matrix_exp_1d", lambda T: T.linalg.matrix_exp(T.ones(3)))
error_case("matrix_exp_not_square", lambda T: T.linalg.matrix_exp(T.ones(2, 3)))
error_case("torch_matrix_exp_not_square", lambda T: T.matrix_exp(T.ones(2, 3)))
error_case("matrix_exp_int", lambda T: T.linalg.matrix_exp(T.ones(2, 2, dtype=T.int64)))
error_case("matrix_exp_out", lambda T: T.linalg.matrix_exp(T.ones(2, 2), out=T.empty(0)))
for _s in [1e-5, 0.03, 0.3, 1.0, 2.5, 12.0]:
    grad_case(f"matrix_exp_grad[s={_s}]", lambda T, A: T.linalg.matrix_exp(A), inp(scaled(_s, 1), dtype=D.float64),
              **TOL)
grad_case("matrix_exp_grad_f32", lambda T, A: T.linalg.matrix_exp(A), scaled(0.8, 2), **TOL)
grad_case("matrix_exp_grad_batched", lambda T, A: A.matrix_exp(), inp([scaled(0.02), scaled(4.0, 1)],
                                                                       dtype=D.float64), **TOL)
grad_case("matrix_exp_grad_1x1", lambda T, A: T.matrix_exp(A), [[0.7]], **TOL)
grad_case("matrix_exp_grad2", lambda T, A: T.linalg.matrix_exp(A), inp(scaled(0.6), dtype=D.float64), order=2, **TOL)
