"""CPU autocast: torch.autocast('cpu', dtype=bfloat16 / float16): which ops run in the lower dtype (matmuls, linear,
convolutions, prelu, attention), which in float32 (losses, prod, reflect / replicate padding, ...), which promote
(cat / stack), what is left alone (elementwise ops, float64), nesting, enabled=False, the decorator form, the
unsupported-dtype warning, gradients of a mixed-precision step, and torch.amp.custom_fwd / custom_bwd."""
from .harness import *  # noqa: F401,F403

A = [[1.1, 2.3, 0.4], [0.7, -1.9, 2.2]]
Bm = [[0.5, -1.0], [2.0, 0.3], [1.1, -0.4]]
IMG = [[[[((c * 5 + h * 3 + w) % 7 - 3) * 0.41 for w in range(5)] for h in range(4)] for c in range(2)]]
LOWER = [D.bfloat16, D.float16]
BF = dict(rtol=1e-2, atol=1e-2)


def F(T):
    return T.nn.functional


def under(T, dtype, fn):
    with T.autocast("cpu", dtype=dtype):
        return fn()


LP_OPS = {
    "mm": lambda T: T.mm(T.tensor(A), T.tensor(Bm)),
    "method_mm": lambda T: T.tensor(A).mm(T.tensor(Bm)),
    "matmul_op": lambda T: T.tensor(A) @ T.tensor(Bm),
    "matmul": lambda T: T.matmul(T.tensor(A), T.tensor(Bm)),
    "bmm": lambda T: T.bmm(T.tensor([A, A]), T.tensor([Bm, Bm])),
    "addmm": lambda T: T.addmm(T.tensor([0.5, -0.25]), T.tensor(A), T.tensor(Bm)),
    "baddbmm": lambda T: T.baddbmm(T.zeros(2, 2, 2), T.tensor([A, A]), T.tensor([Bm, Bm])),
    "linear": lambda T: F(T).linear(T.tensor(A), T.tensor(Bm).T, T.tensor([0.5, -0.25])),
    "linear_module": lambda T: T.nn.Linear(3, 2)(T.tensor(A)),
    "conv2d": lambda T: F(T).conv2d(T.tensor(IMG), T.ones(3, 2, 2, 2) * 0.3),
    "conv2d_module": lambda T: T.nn.Conv2d(2, 3, 3)(T.tensor(IMG)),
    "conv1d": lambda T: T.nn.Conv1d(3, 2, 2)(T.tensor([A, A]).transpose(1, 2)),
    "conv_transpose2d": lambda T: T.nn.ConvTranspose2d(2, 1, 2)(T.tensor(IMG)),
    "prelu": lambda T: F(T).prelu(T.tensor(A), T.tensor([0.25])),
    "sdpa": lambda T: F(T).scaled_dot_product_attention(T.tensor([A]), T.tensor([A]), T.tensor([A])),
}
for _n, _fn in LP_OPS.items():
    cases(f"lower_{_n}", lambda T, dtype, _fn=_fn: under(T, dtype, lambda: _fn(T)), dtype=LOWER, **BF)

FP32_OPS = {
    "mse_loss": lambda T: F(T).mse_loss(T.tensor(A).bfloat16(), T.zeros(2, 3).bfloat16()),
    "cross_entropy": lambda T: F(T).cross_entropy(T.tensor(A).bfloat16(), T.tensor([0, 2])),
    "nll_loss": lambda T: F(T).nll_loss(T.tensor(A).bfloat16(), T.tensor([1, 2])),
    "l1_loss": lambda T: F(T).l1_loss(T.tensor(A).half(), T.ones(2, 3).half()),
    "bce_logits": lambda T: F(T).binary_cross_entropy_with_logits(T.tensor(A).bfloat16(), T.ones(2, 3)),
    "prod": lambda T: T.tensor(A).bfloat16().prod(),
    "torch_prod": lambda T: T.prod(T.tensor(A).bfloat16(), 1),
    "cdist": lambda T: T.cdist(T.tensor(A).bfloat16(), T.tensor(A).bfloat16()),
    "pad_reflect": lambda T: F(T).pad(T.tensor([A]).bfloat16(), (1, 1), mode="reflect"),
    "pad_constant_untouched": lambda T: F(T).pad(T.tensor(A).bfloat16(), (1, 1)),
}
for _n, _fn in FP32_OPS.items():
    case(f"fp32_{_n}", lambda T, _fn=_fn: under(T, T.bfloat16, lambda: _fn(T)), **BF)

case("promote_cat", lambda T: under(T, T.bfloat16, lambda: T.cat([T.tensor(A), T.tensor(A).bfloat16()])))
case("promote_cat_lower", lambda T: under(T, T.bfloat16, lambda: T.cat([T.tensor(A).bfloat16()] * 2)))
case("promote_stack_double", lambda T: under(T, T.bfloat16, lambda: T.stack([T.tensor(A).double(),
                                                                            T.tensor(A).bfloat16()])))
error_case("promote_stack_half_in_bf16", lambda T: under(T, T.bfloat16, lambda: T.stack([T.tensor(A).half(),
                                                                                         T.tensor(A).bfloat16()])))
case("untouched_add", lambda T: under(T, T.bfloat16, lambda: T.tensor(A) + T.tensor(A).bfloat16()))
case("untouched_relu", lambda T: under(T, T.bfloat16, lambda: T.tensor(A).relu()))
case("untouched_float64_mm", lambda T: under(T, T.bfloat16, lambda: T.tensor(A).double() @ T.tensor(Bm).double()))
case("half_input_bf16_region", lambda T: under(T, T.bfloat16, lambda: T.tensor(A).half() @ T.tensor(Bm)), **BF)


def flags(T):
    out = [T.get_autocast_dtype("cpu"), T.is_autocast_enabled("cpu"), T.is_autocast_enabled()]
    with T.autocast("cpu"):
        out += [T.is_autocast_enabled("cpu"), T.is_autocast_enabled(), T.get_autocast_dtype("cpu")]
        with T.autocast("cpu", enabled=False):
            out += [T.is_autocast_enabled("cpu"), (T.tensor(A) @ T.tensor(Bm)).dtype]
        with T.autocast("cpu", dtype=T.float16):
            out += [T.get_autocast_dtype("cpu"), (T.tensor(A) @ T.tensor(Bm)).dtype]
        out += [(T.tensor(A) @ T.tensor(Bm)).dtype, T.get_autocast_dtype("cpu")]
    out += [T.is_autocast_enabled("cpu"), (T.tensor(A) @ T.tensor(Bm)).dtype]
    return out


case("nesting_and_flags", flags)
case("amp_autocast_spelling", lambda T: _amp_spelling(T), **BF)


def _amp_spelling(T):
    with T.amp.autocast(device_type="cpu"):
        return T.tensor(A) @ T.tensor(Bm)


def decorated(T):
    @T.autocast("cpu")
    def g(x):
        return x @ x.T
    return g(T.tensor(A)), (T.tensor(A) @ T.tensor(A).T).dtype


case("decorator", decorated, **BF)
case("unsupported_dtype_warns", lambda T: under(T, T.float32, lambda: T.tensor(A) @ T.tensor(Bm)), warns=True)
error_case("bad_device_type", lambda T: T.autocast("tpu"))


def train_step(T):
    m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    with T.autocast("cpu", dtype=T.bfloat16):
        y = m(T.tensor(A))
        loss = F(T).cross_entropy(y, T.tensor([1, 0]))
    loss.backward()
    return y, loss, [p.grad for p in m.parameters()], [p.grad.dtype for p in m.parameters()]


case("mixed_precision_step", train_step, **BF)


def custom(T, cast):
    class MyMM(T.autograd.Function):
        @staticmethod
        @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32 if cast else None)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.mm(b)

        @staticmethod
        @T.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g.mm(b.t()), a.t().mm(g)
    a = T.tensor(A, requires_grad=True)
    b = T.tensor(Bm, requires_grad=True)
    with T.autocast("cpu"):
        y = MyMM.apply(a, b)
    y.sum().backward()
    return y.detach(), y.dtype, a.grad, b.grad


cases("custom_fwd_bwd", custom, cast=BOOLS, **BF)
