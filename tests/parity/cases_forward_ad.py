"""torch.autograd.forward_ad (dual levels, make_dual / unpack_dual, their errors) and the op table's jvp formulas
(Note [Forward AD] in src/autograd/forward_ad.c): each case makes a dual input with an uneven tangent, runs one op
and compares the primal and the tangent with torch's; then forward over reverse (jvp of a gradient), reverse over
forward (backward through a tangent), and torch.autograd.functional.jacobian(strategy='forward-mode').
torch.func's jvp / jacfwd / hessian run on the same machinery (cases_func.py)."""
from .harness import *  # noqa: F401,F403

X = [[0.3, -1.2, 0.5], [2.0, 0.7, -0.4]]
XT = [[1.0, 0.5, -2.0], [0.25, -1.0, 3.0]]
W = [[0.1, -0.3, 0.2], [0.5, 0.4, -0.6], [-0.2, 0.9, 0.3], [0.7, -0.1, 0.05]]
BIAS = [0.1, 0.2, 0.3, 0.4]


def FW(T):
    return T.autograd.forward_ad


def f64(T, data, rg=False):
    return T.tensor(data, dtype=T.float64, requires_grad=rg)


def dual_of(fn):
    """(primal, tangent) of fn at a dual input X with tangent XT"""
    def run(T):
        with FW(T).dual_level():
            d = FW(T).make_dual(f64(T, X), f64(T, XT))
            return tuple(FW(T).unpack_dual(fn(T, d)))
    return run


OPS = {
    # elementwise (the backward formula, with the tangent for grad)
    "sin": lambda T, d: d.sin(), "cos": lambda T, d: d.cos(), "exp": lambda T, d: d.exp(),
    "tanh": lambda T, d: d.tanh(), "sigmoid": lambda T, d: d.sigmoid(), "abs": lambda T, d: d.abs(),
    "neg_sub": lambda T, d: 1 - d - d * 0.5, "mul_self": lambda T, d: d * d * 3 + 1,
    "div": lambda T, d: d / (d.abs() + 1), "rdiv": lambda T, d: 2 / (d * d + 1),
    "pow_scalar": lambda T, d: d.abs() ** 1.5, "pow_tensor": lambda T, d: (d.abs() + 0.5) ** d,
    "sqrt": lambda T, d: (d * d + 1).sqrt(), "rsqrt": lambda T, d: (d * d + 1).rsqrt(), "log": lambda T, d: (d * d + 1).log(),
    "log1p": lambda T, d: d.abs().log1p(), "atan": lambda T, d: d.atan(), "erf": lambda T, d: d.erf(),
    "clamp": lambda T, d: d.clamp(-0.5, 0.6), "maximum": lambda T, d: T.maximum(d, d.flip(0)),
    "where": lambda T, d: T.where(d > 0, d, d * d), "relu": lambda T, d: T.relu(d),
    "gelu": lambda T, d: T.nn.functional.gelu(d), "gelu_tanh": lambda T, d: T.nn.functional.gelu(d, approximate="tanh"),
    "silu": lambda T, d: T.nn.functional.silu(d), "softplus": lambda T, d: T.nn.functional.softplus(d, beta=2.0),
    "leaky_relu": lambda T, d: T.nn.functional.leaky_relu(d, 0.1), "elu": lambda T, d: T.nn.functional.elu(d),
    "hardtanh": lambda T, d: T.nn.functional.hardtanh(d, -0.5, 0.5), "mish": lambda T, d: T.nn.functional.mish(d),
    "logsigmoid": lambda T, d: T.nn.functional.logsigmoid(d),
    "broadcast_mul": lambda T, d: d * f64(T, [1.5, -2.0, 0.5]), "broadcast_add_row": lambda T, d: f64(T, [[1.0]] * 2) + d[0],
    # reductions
    "sum": lambda T, d: d.sum(), "sum_dim": lambda T, d: d.sum(1), "sum_keepdim": lambda T, d: d.sum(-2, keepdim=True),
    "mean": lambda T, d: d.mean(), "mean_dim": lambda T, d: d.mean(0, keepdim=True),
    "logsumexp": lambda T, d: d.logsumexp(1), "logsumexp_keepdim": lambda T, d: d.logsumexp(0, keepdim=True),
    "softmax": lambda T, d: d.softmax(1), "softmax_0": lambda T, d: T.softmax(d, 0),
    "log_softmax": lambda T, d: T.log_softmax(d, 1), "log_softmax_0": lambda T, d: d.log_softmax(0),
    # matmul
    "matmul_self": lambda T, d: d @ d.t(), "mm_const": lambda T, d: d.mm(f64(T, W).t()),
    "linear": lambda T, d: T.nn.functional.linear(d, f64(T, W), f64(T, BIAS)),
    "linear_nobias": lambda T, d: T.nn.functional.linear(d, f64(T, W)),
    "bmm": lambda T, d: T.bmm(d[None], d.t()[None]), "mv": lambda T, d: d.mv(f64(T, [0.5, -1.0, 2.0])),
    "dot": lambda T, d: d[0].dot(d[1]), "addmm": lambda T, d: T.addmm(d[0], d, d.t()[:, :1].expand(3, 3), beta=0.5, alpha=2),
    "einsum_like": lambda T, d: T.matmul(d.unsqueeze(0), d.t().unsqueeze(0)),
    # views and shapes
    "view": lambda T, d: d.view(3, 2) * 2, "reshape_t": lambda T, d: d.t().reshape(-1),
    "permute": lambda T, d: d.unsqueeze(0).permute(2, 0, 1), "transpose": lambda T, d: d.transpose(0, 1),
    "index_slice": lambda T, d: d[1, 1:], "index_step": lambda T, d: d[:, ::2], "select": lambda T, d: d[0],
    "cat": lambda T, d: T.cat([d, d * 2], 1), "stack": lambda T, d: T.stack([d, d.exp()]),
    "expand": lambda T, d: d[:1].expand(3, 3), "flatten": lambda T, d: d.flatten(),
    "squeeze": lambda T, d: d[None].squeeze(0), "unsqueeze": lambda T, d: d.unsqueeze(1),
    "narrow": lambda T, d: d.narrow(1, 1, 2), "to_float32": lambda T, d: d.float(), "clone": lambda T, d: d.clone(),
    "contiguous": lambda T, d: d.t().contiguous(), "index_select": lambda T, d: d.index_select(1, T.tensor([2, 0])),
    "gather": lambda T, d: d.gather(1, T.tensor([[2, 0], [1, 1]])),
    "embedding": lambda T, d: T.nn.functional.embedding(T.tensor([1, 0, 1]), d),
    # losses
    "mse_loss": lambda T, d: T.nn.functional.mse_loss(d, f64(T, X).flip(1)),
    "mse_loss_sum": lambda T, d: T.nn.functional.mse_loss(d, f64(T, X).flip(1), reduction="sum"),
    "mse_loss_none": lambda T, d: T.nn.functional.mse_loss(d.flip(0), d, reduction="none"),
    "l1_loss": lambda T, d: T.nn.functional.l1_loss(d, T.zeros(2, 3, dtype=T.float64)),
    "dropout_eval": lambda T, d: T.nn.functional.dropout(d, 0.5, training=False),
}
for _name, _fn in OPS.items():
    case("op_" + _name, dual_of(_fn))


def plain_tangent(T):
    """an output that does not depend on a dual has no tangent"""
    with FW(T).dual_level():
        FW(T).make_dual(f64(T, X), f64(T, XT))
        return FW(T).unpack_dual(f64(T, X) * 2).tangent is None


def after_exit(T):
    with FW(T).dual_level():
        y = FW(T).make_dual(f64(T, X), f64(T, XT)) * 2
    return FW(T).unpack_dual(y).tangent is None, FW(T).unpack_dual(y).primal


def level_numbers(T):
    a = FW(T).enter_dual_level()
    FW(T).exit_dual_level()
    with FW(T).dual_level() as b:
        pass
    return a, b


def dual_identity(T):
    with FW(T).dual_level():
        d = FW(T).make_dual(f64(T, X), f64(T, XT))
        return tuple(FW(T).unpack_dual(d))


def dual_float_tangent(T):
    with FW(T).dual_level():
        d = FW(T).make_dual(f64(T, X), T.tensor(XT))
        return tuple(FW(T).unpack_dual(d * 2))


def two_duals(T):
    with FW(T).dual_level():
        a = FW(T).make_dual(f64(T, X), f64(T, XT))
        b = FW(T).make_dual(f64(T, X).flip(0), f64(T, XT).t().reshape(2, 3))
        return tuple(FW(T).unpack_dual((a * b).sin() + a / (b * b + 1)))


def requires_grad_primal(T):
    """a dual of a tensor that requires grad: the primal keeps its history"""
    x = f64(T, X, True)
    with FW(T).dual_level():
        y = (FW(T).make_dual(x, f64(T, XT)) ** 2).sum()
        p, t = FW(T).unpack_dual(y)
        p.backward()
        return p.detach(), t.detach(), x.grad


def reverse_over_forward(T):
    """backward through a tangent: the tangent's own history"""
    x = f64(T, X, True)
    with FW(T).dual_level():
        d = FW(T).make_dual(x, f64(T, XT))
        y = (d.sin() * d).tanh().sum() + (d.exp() * d[:, :1]).sum()   # (torch's softmax tangents refuse this)
        t = FW(T).unpack_dual(y).tangent
    t.backward()
    return t.detach(), x.grad


def forward_over_reverse(T):
    """a tangent carried through a backward pass (torch.autograd.grad inside a dual level)"""
    with FW(T).dual_level():
        x = FW(T).make_dual(f64(T, X), f64(T, XT)).requires_grad_(False)
        x = x.detach().requires_grad_(True)   # a leaf (no tangent) ...
        d = FW(T).make_dual(x, f64(T, XT))    # ... and its dual
        y = (d.exp() * d.sigmoid()).sum() + T.nn.functional.linear(d, f64(T, W)).tanh().sum()
        g, = T.autograd.grad(y, x, create_graph=True)
        p, t = FW(T).unpack_dual(g)
        return p.detach(), t.detach()   # the primal's grad_fn: torch's is an unnamed alias node


case("plain_has_no_tangent", plain_tangent)
case("tangent_gone_after_exit", after_exit)
case("level_numbers", level_numbers)
case("dual_identity", dual_identity)
case("dual_float32_tangent", dual_float_tangent)
case("two_duals", two_duals)
case("requires_grad_primal", requires_grad_primal)
case("reverse_over_forward", reverse_over_forward)
case("forward_over_reverse", forward_over_reverse)
case("unpack_outside_level", lambda T: FW(T).unpack_dual(f64(T, X)))


def nested(T):
    with FW(T).dual_level():
        with FW(T).dual_level():
            pass


def unsupported(T):
    with FW(T).dual_level():
        d = FW(T).make_dual(f64(T, W), f64(T, W).flip(0))
        T.nn.functional.embedding_bag(T.tensor([0, 2, 1]), d, T.tensor([0, 1]))


def wrong_exit(T):
    FW(T).enter_dual_level()
    try:
        FW(T).exit_dual_level(level=3)
    finally:
        FW(T).exit_dual_level()


error_case("nested_level", nested)
error_case("make_dual_no_level", lambda T: FW(T).make_dual(f64(T, X), f64(T, XT)))
error_case("unsupported_op", unsupported)
error_case("exit_wrong_level", wrong_exit)


def in_level(fn):
    def run(T):
        with FW(T).dual_level():
            return fn(T)
    return run


error_case("make_dual_size", in_level(lambda T: FW(T).make_dual(f64(T, X), f64(T, XT)[:1])))
error_case("make_dual_int_primal", in_level(lambda T: FW(T).make_dual(T.tensor([1, 2]), f64(T, [1.0, 2.0]))))
error_case("make_dual_int_tangent", in_level(lambda T: FW(T).make_dual(f64(T, [1.0, 2.0]), T.tensor([1, 2]))))


def f_one(x):
    return (x ** 3 - x.sin()).sum(1)


def f_two(x, y):
    return (x * y).sin().sum(0), x.exp() * y[0]


case("functional_jacobian_forward", lambda T: T.autograd.functional.jacobian(f_one, f64(T, X), vectorize=True,
                                                                             strategy="forward-mode"))
case("functional_jacobian_forward_tuple", lambda T: T.autograd.functional.jacobian(
    f_two, (f64(T, X), f64(T, X).flip(1)), vectorize=True, strategy="forward-mode"))
case("functional_hessian_forward_outer", lambda T: T.autograd.functional.hessian(
    lambda x: (x ** 3 * x.sin()).sum(), f64(T, X), vectorize=True, outer_jacobian_strategy="forward-mode"))


def custom_fns(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            r = x.exp() * scale
            ctx.r = r
            return r, x * 2

        @staticmethod
        def backward(ctx, g, h):
            return g * ctx.r + h * 2, None

        @staticmethod
        def jvp(ctx, tx, tscale):
            return tx * ctx.r, tx * 2

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Exp, NoJvp


def custom_jvp(T):
    Exp, _ = custom_fns(T)
    x = f64(T, X, True)
    with FW(T).dual_level():
        a, b = Exp.apply(FW(T).make_dual(x, f64(T, XT)), 1.5)
        ua, ub = FW(T).unpack_dual(a), FW(T).unpack_dual(b)
        (a.sum() + b.sum()).backward()
        return ua.primal.detach(), ua.tangent.detach(), ub.tangent, x.grad, a.grad_fn.name()


def custom_no_jvp(T):
    _, NoJvp = custom_fns(T)
    with FW(T).dual_level():
        NoJvp.apply(FW(T).make_dual(f64(T, X), f64(T, XT)))


case("custom_function_jvp", custom_jvp)
error_case("custom_function_no_jvp", custom_no_jvp)
