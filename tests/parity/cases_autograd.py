"""Autograd: elementwise and matmul gradients, broadcasting, None vs zero gradients, every spelling of an
op, every loss reduction, kinks (relu/abs at 0), second derivatives, grad_fn names."""
from .harness import *  # noqa: F401,F403

X23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
Y23 = [[-0.5, 1.75, 2.0], [0.125, -3.0, 1.5]]
M34 = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 3.0], [-2.0, 1.25, 0.0, -0.75]]
KINKS = [-1.5, 0.0, 0.5, -0.0, 2.0]        # relu / abs / clamp at their kinks

# ------------------------------------------------------------------------------ elementwise, binary
grad_case("add", lambda T, x, y: x + y, X23, Y23)
grad_case("sub_alpha", lambda T, x, y: T.sub(x, y, alpha=2.5), X23, Y23)
grad_case("mul", lambda T, x, y: x * y, X23, Y23)
grad_case("div", lambda T, x, y: x / y, X23, Y23)
grad_case("pow_tensor_tensor", lambda T, x, y: x.abs() ** y, X23, Y23)
grad_case("pow_scalar", lambda T, x: x ** 3, X23)
grad_case("rpow_scalar", lambda T, x: 2.0 ** x, X23)
grad_case("mul_broadcast_row", lambda T, x, y: x * y, X23, [[2.0, -0.5, 1.5]])
grad_case("mul_broadcast_col", lambda T, x, y: x * y, X23, [[0.5], [-1.5]])
grad_case("add_broadcast_0d", lambda T, x, y: x + y, X23, 2.5)
grad_case("mul_const_operand", lambda T, x, y: x * y, X23, const(Y23))       # y.grad must stay None
grad_case("mul_by_zero_is_zero_grad", lambda T, x: x * 0, X23)               # zeros, not None
grad_case("detach_gives_none", lambda T, x, y: x.detach() * y, X23, Y23)      # x.grad None
grad_case("where_mask", lambda T, x, y: T.where(x > 0, x, y), X23, Y23)
grad_case("where_nan_not_multiplied",
          lambda T, x: T.where(x > 0, x.sqrt(), T.zeros_like(x)), [4.0, -1.0, 0.25, -9.0])
grad_case("maximum_ties", lambda T, x, y: T.maximum(x, y), [1.0, 2.0, -3.0], [1.0, -2.0, -3.0])

# -------------------------------------------------------------------------------- unary, with kinks
UNARY = ["exp", "log1p", "sin", "cos", "tanh", "sigmoid", "neg", "abs", "relu", "square", "atan"]
cases("unary_method", lambda T, x, op: getattr(x, op)(), [[0.5, 1.25, -0.75], [2.0, -1.5, 0.125]],
      kind="grad", op=UNARY)
cases("unary_function", lambda T, x, op: getattr(T, op)(x), [[0.5, 1.25, -0.75], [2.0, -1.5, 0.125]],
      kind="grad", op=UNARY)
grad_case("sqrt_log_positive", lambda T, x: (x.sqrt(), x.log(), x.rsqrt(), x.reciprocal()), [0.25, 1.5, 4.0])
grad_case("sqrt_at_zero", lambda T, x: x.sqrt(), [0.0, 1.0])
grad_case("relu_kinks", lambda T, x: x.relu(), KINKS)
grad_case("abs_kinks", lambda T, x: x.abs(), KINKS)
grad_case("clamp_boundaries", lambda T, x: x.clamp(-1.5, 0.5), KINKS)
grad_case("sign_zero_grad", lambda T, x: x.sign(), KINKS)
# Every spelling of relu (TESTING.md rule 1).
grad_case("relu_F", lambda T, x: T.nn.functional.relu(x), KINKS)
grad_case("relu_torch", lambda T, x: T.relu(x), KINKS)
grad_case("relu_module", lambda T, x: T.nn.ReLU()(x), KINKS)
grad_case("softmax_F", lambda T, x: T.nn.functional.softmax(x, dim=1), X23)
grad_case("softmax_method", lambda T, x: x.softmax(1), X23)
grad_case("softmax_module", lambda T, x: T.nn.Softmax(dim=-1)(x), X23)
cases("log_softmax", lambda T, x, dim: x.log_softmax(dim), M34, kind="grad", dim=dims(2))

# ---------------------------------------------------------------------------------------- matmul
grad_case("matmul_2d", lambda T, a, b: a @ b, X23, M34)
grad_case("mm", lambda T, a, b: T.mm(a, b), X23, M34)
grad_case("matmul_2d_1d", lambda T, a, b: a @ b, M34, [0.5, -1.5, 2.0, 0.25])
grad_case("matmul_1d_2d", lambda T, a, b: a @ b, [1.5, -0.5, 2.0], M34)
grad_case("matmul_transposed_input", lambda T, a, b: a @ b, inp(Y23, view=vT), X23)
grad_case("matmul_batched_broadcast", lambda T, a, b: a @ b, [X23, Y23], M34)
grad_case("linear_F", lambda T, x, w, b: T.nn.functional.linear(x, w, b), X23, [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [0.1, -0.2])

# ------------------------------------------------------------------------------ losses: every reduction
PRED = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
TGT = [[1.0, 0.0, 1.5], [-0.5, 0.75, -1.0]]
PROB = [[0.2, 0.7, 0.9], [0.4, 0.05, 0.6]]
BIN = [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
cases("mse_loss", lambda T, x, y, reduction: T.nn.functional.mse_loss(x, y, reduction=reduction),
      PRED, TGT, kind="grad", reduction=REDUCTIONS)
cases("l1_loss", lambda T, x, y, reduction: T.nn.functional.l1_loss(x, y, reduction=reduction),
      PRED, TGT, kind="grad", reduction=REDUCTIONS)
cases("smooth_l1_loss", lambda T, x, y, reduction, beta: T.nn.functional.smooth_l1_loss(x, y, reduction=reduction, beta=beta),
      PRED, TGT, kind="grad", reduction=REDUCTIONS, beta=[1.0, 0.5])
cases("bce", lambda T, p, y, reduction: T.nn.functional.binary_cross_entropy(p, y, reduction=reduction),
      PROB, const(BIN), kind="grad", reduction=REDUCTIONS)
cases("bce_with_logits", lambda T, x, y, reduction: T.nn.functional.binary_cross_entropy_with_logits(x, y, reduction=reduction),
      PRED, const(BIN), kind="grad", reduction=REDUCTIONS)
cases("cross_entropy", lambda T, x, y, reduction: T.nn.functional.cross_entropy(x, y, reduction=reduction),
      M34, raw(lambda T: T.tensor([3, 0, 1])), kind="grad", reduction=REDUCTIONS)
cases("cross_entropy_label_smoothing",
      lambda T, x, y, ls: T.nn.functional.cross_entropy(x, y, label_smoothing=ls),
      M34, raw(lambda T: T.tensor([3, 0, 1])), kind="grad", ls=[0.0, 0.1])
cases("nll_loss_ignore_index",
      lambda T, x, y, reduction: T.nn.functional.nll_loss(x, y, reduction=reduction, ignore_index=1),
      M34, raw(lambda T: T.tensor([3, 1, 0])), kind="grad", reduction=REDUCTIONS)
cases("mse_loss_module", lambda T, x, y, reduction: T.nn.MSELoss(reduction=reduction)(x, y),
      PRED, TGT, kind="grad", reduction=REDUCTIONS)

# ------------------------------------------------------------------------------ second derivatives
grad_case("tanh_grad2", lambda T, x: x.tanh(), [0.5, -1.25, 2.0], order=2)
grad_case("sigmoid_grad2", lambda T, x: x.sigmoid(), [0.5, -1.25, 2.0], order=2)
grad_case("mul_grad2", lambda T, x, y: x * y * x, [0.5, -1.25, 2.0], [1.5, 0.25, -0.75], order=2)
grad_case("exp_grad2_f64", lambda T, x: x.exp(), inp([0.5, -1.25, 2.0], dtype=D.float64), order=2)
grad_case("matmul_grad2", lambda T, a, b: (a @ b) ** 2, X23, M34, order=2)
grad_case("softmax_grad2", lambda T, x: x.softmax(-1), X23, order=2)

# ---------------------------------------------------------------------------------- graph metadata
case("grad_fn_names", lambda T: (lambda x: (x * 2, x + 1, x.sum(), x.t(), x[0], x.view(6), x.exp().sum(1)))(
    T.tensor(X23, requires_grad=True)))
case("requires_grad_flow", lambda T: [(t.requires_grad, t.is_leaf) for t in (
    T.tensor(X23, requires_grad=True) * T.tensor(Y23), T.tensor(X23) * 2,
    T.tensor(X23, requires_grad=True).detach())])


def _no_grad_block(T):
    x = T.tensor(X23, requires_grad=True)
    with T.no_grad():
        y = x * 2
    return y


case("no_grad_result", _no_grad_block)


def _accumulate(T):
    x = T.tensor([1.5, -2.0], requires_grad=True)
    (x * T.tensor([2.0, 3.0])).sum().backward()
    (x * x).sum().backward()
    return x


case("grad_accumulates", _accumulate)


def _retain(T):
    x = T.tensor([1.5, -2.0, 0.5], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * T.tensor([0.5, -1.0, 2.0])).sum().backward()
    return x, y


case("retain_grad", _retain)
print_case("print_grad_fn_repr", lambda T: T.tensor(X23, requires_grad=True) * 2)


# node objects print as torch's: "<MulBackward0 object at 0x...>", their class "<class 'MulBackward0'>" (module builtins)
def _node_reprs(T):
    import re
    y = T.ones(2, requires_grad=True) * 2
    z = T.nn.functional.linear(T.ones(2, 3, requires_grad=True), T.ones(3))
    s = [repr(y.grad_fn), repr(type(y.grad_fn)), type(y.grad_fn).__module__, type(y.grad_fn).__name__, repr(z.grad_fn),
         repr(y.sum().grad_fn.next_functions), str(type(z.grad_fn))]
    return [re.sub(r"0x[0-9a-f]+", "ADDR", v) for v in s]


case("node_reprs", _node_reprs)
