"""torch.nn.utils: parametrize (register_parametrization, chains, cached, remove_parametrizations, right_inverse
assignment, errors), parametrizations.orthogonal / weight_norm / spectral_norm, the legacy weight_norm /
spectral_norm hooks, fuse_conv_bn_eval / fuse_linear_bn_eval. Each case builds its modules after the runner's
per-case seed, so both sides start from the same parameters; values, gradients (uneven weights), state_dict keys,
class names, reprs and errors are compared. wick's _weight_norm is a product (its node is MulBackward0 where
torch's is WeightNormInterfaceBackward0): weight-norm cases compare detached weights."""
from .harness import *  # noqa: F401,F403

X4 = [[1.0, 2.0, -1.0, 0.5], [-0.3, 0.8, 1.7, -2.2]]
WOUT = [[1.3, -0.7, 2.1], [0.45, -1.1, 0.6]]
IMG = [[[[((c * 5 + h * 3 + w) % 7 - 3) * 0.41 for w in range(5)] for h in range(4)] for c in range(2)]]


def PZ(T):
    return T.nn.utils.parametrize


def PS(T):
    return T.nn.utils.parametrizations


def make_sym(T):
    class Symmetric(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return Symmetric


def make_scale(T):
    class Scale(T.nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def forward(self, X):
            return X * self.k
    return Scale


def step(T, m, x=X4, w=WOUT):
    """forward on x, backward of a weighted sum; returns output values and every parameter's gradient by name."""
    y = m(T.tensor(x))
    (y * T.tensor(w)).sum().backward()
    return y.detach(), {n: p.grad for n, p in m.named_parameters()}


def sym_linear(T):
    m = T.nn.Linear(3, 3)
    PZ(T).register_parametrization(m, "weight", make_sym(T)())
    return m


def pz_basic(T):
    m = sym_linear(T)
    return (type(m).__name__, list(m.state_dict().keys()), m.weight,
            step(T, m, [[1.0, 2.0, -1.0]], [[1.3, -0.7, 2.1]]), PZ(T).is_parametrized(m),
            PZ(T).is_parametrized(m, "bias"), PZ(T).type_before_parametrizations(m).__name__)


case("pz_register", pz_basic)
print_case("pz_repr", lambda T: sym_linear(T))


def pz_chain(T):
    m = T.nn.Linear(4, 3)
    PZ(T).register_parametrization(m, "weight", make_scale(T)(2.5))
    PZ(T).register_parametrization(m, "weight", make_scale(T)(-0.5))
    return m.weight, len(m.parametrizations.weight), step(T, m), list(m.state_dict().keys())


case("pz_chain", pz_chain)


def pz_cached(T):
    m = sym_linear(T)
    with PZ(T).cached():
        same = m.weight is m.weight
    return same, m.weight is m.weight


case("pz_cached", pz_cached)


def pz_remove(T, leave):
    m = sym_linear(T)
    with T.no_grad():
        m.parametrizations.weight.original.mul_(1.5)
    PZ(T).remove_parametrizations(m, "weight", leave_parametrized=leave)
    return (type(m).__name__, list(m.state_dict().keys()), m.weight, isinstance(m.weight, T.nn.Parameter),
            PZ(T).is_parametrized(m), hasattr(m, "parametrizations"))


cases("pz_remove", pz_remove, leave=BOOLS)


def pz_assign(T):
    m = sym_linear(T)
    m.weight = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    return m.weight, m.parametrizations.weight.original


case("pz_assign_right_inverse", pz_assign)


def pz_buffer(T):
    m = T.nn.BatchNorm1d(3)
    PZ(T).register_parametrization(m, "running_mean", make_scale(T)(3.0))
    m.eval()
    y = m(T.tensor([[1.0, 2.0, -1.0], [0.5, -0.25, 2.0]]))
    return y, m.running_mean, list(m.state_dict().keys())


case("pz_buffer", pz_buffer)


def pz_multi_tensor(T):
    class LowRank(T.nn.Module):
        def forward(self, A, B):
            return A @ B

        def right_inverse(self, W):
            return W[:, :2].clone(), T.eye(2, W.size(1))
    m = T.nn.Linear(4, 3)
    PZ(T).register_parametrization(m, "weight", LowRank())
    return list(m.state_dict().keys()), m.weight, step(T, m)


case("pz_two_originals", pz_multi_tensor)
error_case("pz_remove_two_originals_unparametrized",
           lambda T: PZ(T).remove_parametrizations(pz_multi_tensor_module(T), "weight", leave_parametrized=False))


def pz_multi_tensor_module(T):
    class Split(T.nn.Module):
        def forward(self, A, B):
            return A + B

        def right_inverse(self, W):
            return W * 0.25, W * 0.75
    m = T.nn.Linear(4, 3)
    PZ(T).register_parametrization(m, "weight", Split())
    return m


def pz_shape_change(T):
    class Bad(T.nn.Module):
        def forward(self, X):
            return X[:, :2]
    PZ(T).register_parametrization(T.nn.Linear(4, 3), "weight", Bad())


def pz_dtype_change(T):
    class Bad(T.nn.Module):
        def forward(self, X):
            return X.double()
    PZ(T).register_parametrization(T.nn.Linear(4, 3), "weight", Bad())


def pz_unsafe(T):
    class Crop(T.nn.Module):
        def forward(self, X):
            return X[:, :2]
    m = T.nn.Linear(4, 3)
    PZ(T).register_parametrization(m, "weight", Crop(), unsafe=True)
    return m.weight


error_case("pz_shape_change", pz_shape_change)
error_case("pz_dtype_change", pz_dtype_change)
case("pz_unsafe", pz_unsafe)
error_case("pz_no_such_tensor", lambda T: PZ(T).register_parametrization(T.nn.Linear(2, 2), "nope", make_scale(T)(1.0)))
error_case("pz_remove_missing", lambda T: PZ(T).remove_parametrizations(T.nn.Linear(2, 2), "weight"))


def pz_no_right_inverse(T):
    m = T.nn.Linear(4, 3)
    PZ(T).register_parametrization(m, "weight", make_scale(T)(2.0))
    m.weight = T.zeros(3, 4)


error_case("pz_assign_no_right_inverse", pz_no_right_inverse)


# ------------------------------------------------------------------------------------ parametrizations
def wn(T, dim):
    m = T.nn.Linear(4, 3)
    PS(T).weight_norm(m, dim=dim)
    o = m.parametrizations.weight
    return (list(m.state_dict().keys()), m.weight.detach(), o.original0, o.original1, step(T, m))


cases("ps_weight_norm", wn, dim=[0, 1, -1, None])


def wn_conv(T):
    m = T.nn.Conv2d(2, 3, 3)
    PS(T).weight_norm(m)
    y = m(T.tensor(IMG))
    (y * y).sum().backward()
    return y.detach(), m.parametrizations.weight.original0.grad, m.parametrizations.weight.original1.grad


case("ps_weight_norm_conv", wn_conv)


def wn_load_legacy(T):
    src = T.nn.Linear(4, 3)
    T.nn.utils.weight_norm(src)
    sd = src.state_dict()
    dst = T.nn.Linear(4, 3)
    PS(T).weight_norm(dst)
    dst.load_state_dict(sd)
    return list(sd.keys()), dst.weight.detach(), src.weight.detach()


case("ps_weight_norm_load_legacy_keys", wn_load_legacy, warns=True)


def sn(T, mod, training):
    m = {"linear": lambda: T.nn.Linear(4, 3), "conv": lambda: T.nn.Conv2d(2, 3, 3),
         "convT": lambda: T.nn.ConvTranspose2d(2, 3, 3)}[mod]()
    PS(T).spectral_norm(m)
    m.train(training)
    o = m.parametrizations.weight[0]
    x = T.tensor(X4) if mod == "linear" else T.tensor(IMG)
    y = m(x)
    y2 = m(x)
    (y2 * y2).sum().backward()
    return list(m.state_dict().keys()), o._u, o._v, y.detach(), y2.detach(), m.parametrizations.weight.original.grad


cases("ps_spectral_norm", sn, mod=["linear", "conv", "convT"], training=BOOLS, rtol=1e-4, atol=1e-5)


def sn_args(T):
    m = T.nn.Linear(5, 3)
    PS(T).spectral_norm(m, n_power_iterations=3, eps=1e-6, dim=1)
    return m.weight.detach(), m.parametrizations.weight[0]._u


case("ps_spectral_norm_args", sn_args)
error_case("ps_spectral_norm_bad_dim", lambda T: PS(T).spectral_norm(T.nn.Linear(4, 3), dim=2))
error_case("ps_spectral_norm_bad_iters", lambda T: PS(T).spectral_norm(T.nn.Linear(4, 3), n_power_iterations=0))
error_case("ps_spectral_norm_missing", lambda T: PS(T).spectral_norm(T.nn.Linear(4, 3), name="nope"))


def orth(T, shape, omap):
    m = T.nn.Linear(shape[1], shape[0])
    PS(T).orthogonal(m, orthogonal_map=omap)
    W = m.weight
    n = min(shape)
    gram = W @ W.mT if shape[0] < shape[1] else W.mT @ W
    y = m(T.tensor([[1.0, 2.0, -1.0, 0.5, 0.25][:shape[1]]]))
    (y * T.tensor([[1.3, -0.7, 2.1, 0.45][:shape[0]]])).sum().backward()
    return (W.detach(), (gram - T.eye(n)).abs().max() < 1e-5, y.detach(), m.parametrizations.weight.original.grad,
            list(m.state_dict().keys()))


cases("ps_orthogonal", orth, shape=[(3, 3), (4, 3), (3, 4)], omap=[None, "matrix_exp", "cayley", "householder"],
      rtol=1e-4, atol=1e-5)


def orth_no_triv(T):
    m = T.nn.Linear(3, 4)
    PS(T).orthogonal(m, orthogonal_map="householder", use_trivialization=False)
    y = m(T.tensor([[1.0, 2.0, -1.0]]))
    y.sum().backward()
    return m.weight.detach(), y.detach(), m.parametrizations.weight.original.grad, list(m.state_dict().keys())


case("ps_orthogonal_no_trivialization", orth_no_triv, rtol=1e-4, atol=1e-5)


def orth_assign(T):
    m = T.nn.Linear(3, 3)
    PS(T).orthogonal(m)
    m.weight = T.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    return m.weight.detach(), m.parametrizations.weight.original


case("ps_orthogonal_assign", orth_assign, rtol=1e-4, atol=1e-5)
error_case("ps_orthogonal_vector", lambda T: PS(T).orthogonal(T.nn.Linear(3, 3), name="bias"))
error_case("ps_orthogonal_bad_map", lambda T: PS(T).orthogonal(T.nn.Linear(3, 3), orthogonal_map="qr"))


def orth_assign_no_triv(T):
    m = T.nn.Linear(3, 3)
    PS(T).orthogonal(m, orthogonal_map="cayley", use_trivialization=False)
    m.weight = T.eye(3)


error_case("ps_orthogonal_assign_cayley_no_triv", orth_assign_no_triv)


# ------------------------------------------------------------------------------------ legacy hooks
def legacy_wn(T, dim):
    m = T.nn.Linear(4, 3)
    T.nn.utils.weight_norm(m, dim=dim)
    keys = list(m.state_dict().keys())
    out = step(T, m)
    T.nn.utils.remove_weight_norm(m)
    return keys, out, m.weight, list(m.state_dict().keys())


cases("legacy_weight_norm", legacy_wn, dim=[0, 1, None], warns=True)
error_case("legacy_weight_norm_twice", lambda T: T.nn.utils.weight_norm(T.nn.utils.weight_norm(T.nn.Linear(2, 2))))
error_case("legacy_remove_weight_norm_missing", lambda T: T.nn.utils.remove_weight_norm(T.nn.Linear(2, 2)))


def legacy_sn(T, training):
    m = T.nn.Linear(4, 3)
    T.nn.utils.spectral_norm(m)
    m.train(training)
    keys = list(m.state_dict().keys())
    out = step(T, m)
    u = m.weight_u.clone()
    T.nn.utils.remove_spectral_norm(m)
    return keys, out, u, m.weight, list(m.state_dict().keys())


cases("legacy_spectral_norm", legacy_sn, training=BOOLS)


def legacy_sn_conv_t(T):
    m = T.nn.ConvTranspose2d(2, 3, 3)
    T.nn.utils.spectral_norm(m)
    y = m(T.tensor(IMG))
    return y.detach(), m.weight_u, m.weight_v


case("legacy_spectral_norm_conv_transpose", legacy_sn_conv_t)
error_case("legacy_spectral_norm_twice",
           lambda T: T.nn.utils.spectral_norm(T.nn.utils.spectral_norm(T.nn.Linear(2, 2))))
error_case("legacy_remove_spectral_norm_missing", lambda T: T.nn.utils.remove_spectral_norm(T.nn.Linear(2, 2)))


# ------------------------------------------------------------------------------------ fusion
def trained_bn(T, bn):
    bn.train()
    with T.no_grad():
        for k in range(3):
            shape = (2, bn.num_features) + ((4, 3) if isinstance(bn, T.nn.BatchNorm2d) else ())
            bn(T.randn(*shape) * (k + 1) + k)
        bn.weight.mul_(1.7)
        bn.bias.add_(0.3)
    return bn.eval()


def fuse_conv(T, bias, transpose):
    conv = (T.nn.ConvTranspose2d(2, 3, 3, bias=bias) if transpose else T.nn.Conv2d(2, 3, 3, bias=bias)).eval()
    bn = trained_bn(T, T.nn.BatchNorm2d(3))
    fused = T.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = T.tensor(IMG)
    return fused(x), bn(conv(x)), fused.weight, fused.bias, type(fused).__name__


cases("fuse_conv_bn_eval", fuse_conv, bias=BOOLS, transpose=BOOLS, rtol=1e-5, atol=1e-5)


def fuse_linear(T):
    lin = T.nn.Linear(4, 3).eval()
    bn = trained_bn(T, T.nn.BatchNorm1d(3))
    fused = T.nn.utils.fuse_linear_bn_eval(lin, bn)
    x = T.tensor(X4)
    return fused(x), bn(lin(x)), fused.weight, fused.bias


case("fuse_linear_bn_eval", fuse_linear, rtol=1e-5, atol=1e-5)
error_case("fuse_conv_bn_training", lambda T: T.nn.utils.fuse_conv_bn_eval(T.nn.Conv2d(2, 3, 3), T.nn.BatchNorm2d(3)))
