"""nn.init (every initialiser, drawing torch's random stream bit for bit after the harness's per-case manual_seed)
and nn.utils (clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters)."""
from .harness import *  # noqa: F401,F403


def I(T):
    return T.nn.init


def _on(T, shape, fn, dtype=None):
    t = T.empty(*shape, dtype=dtype) if dtype is not None else T.empty(*shape)
    r = fn(t)
    return t, r is t


SHAPES = [(3, 5), (16,), (4, 4), (2, 3, 3, 2), (17, 3)]
cases("init_uniform", lambda T, shape: _on(T, shape, lambda t: I(T).uniform_(t, -0.3, 0.7)),
      shape=[s for s in SHAPES if len(s) >= 1])
cases("init_uniform_default", lambda T, dtype: _on(T, (5, 4), lambda t: I(T).uniform_(t), dtype), dtype=FLOAT)
cases("init_normal", lambda T, shape: _on(T, shape, lambda t: I(T).normal_(t, 0.5, 2.0)), shape=SHAPES)
cases("init_normal_dtype", lambda T, dtype: _on(T, (20,), lambda t: I(T).normal_(t), dtype), dtype=FLOAT)
case("init_constant", lambda T: _on(T, (2, 3), lambda t: I(T).constant_(t, 0.625)))
case("init_ones_zeros", lambda T: (_on(T, (2, 3), I(T).ones_), _on(T, (3,), I(T).zeros_)))
cases("init_eye", lambda T, shape: _on(T, shape, I(T).eye_), shape=[(3, 3), (2, 4), (4, 2)])
error_case("init_eye_3d", lambda T: I(T).eye_(T.empty(2, 2, 2)))
cases("init_dirac", lambda T, shape, groups: _on(T, shape, lambda t: I(T).dirac_(t, groups)),
      shape=[(4, 2, 3), (4, 4, 3, 3), (2, 2, 3, 3, 3), (6, 3, 1, 2)], groups=[1, 2])
error_case("init_dirac_2d", lambda T: I(T).dirac_(T.empty(3, 3)))
error_case("init_dirac_groups", lambda T: I(T).dirac_(T.empty(3, 3, 3), 2))
cases("init_xavier_uniform", lambda T, shape, gain: _on(T, shape, lambda t: I(T).xavier_uniform_(t, gain)),
      shape=[(3, 5), (2, 3, 3, 2)], gain=[1.0, 2.5])
cases("init_xavier_normal", lambda T, shape, gain: _on(T, shape, lambda t: I(T).xavier_normal_(t, gain)),
      shape=[(3, 5), (4, 6), (2, 3, 3, 2)], gain=[1.0, 0.5])
cases("init_kaiming_uniform", lambda T, mode, nonlinearity, a: _on(
    T, (6, 3, 2), lambda t: I(T).kaiming_uniform_(t, a, mode, nonlinearity)),
      mode=["fan_in", "fan_out"], nonlinearity=["leaky_relu", "relu", "tanh", "linear"], a=[0, 0.2])
cases("init_kaiming_normal", lambda T, mode, nonlinearity: _on(
    T, (8, 4), lambda t: I(T).kaiming_normal_(t, 0.1, mode, nonlinearity)),
      mode=["fan_in", "fan_out"], nonlinearity=["leaky_relu", "relu", "selu", "sigmoid"])
case("init_kaiming_zero_elements", lambda T: _on(T, (0, 3), I(T).kaiming_uniform_), warns=True)
case("init_kaiming_normal_zero_elements", lambda T: _on(T, (3, 0), I(T).kaiming_normal_), warns=True)
error_case("init_kaiming_bad_mode", lambda T: I(T).kaiming_uniform_(T.empty(3, 3), mode="fan_avg"))
error_case("init_kaiming_bad_nonlinearity", lambda T: I(T).kaiming_normal_(T.empty(3, 3), nonlinearity="swish"))
error_case("init_fan_1d", lambda T: I(T).xavier_uniform_(T.empty(5)))
cases("init_trunc_normal", lambda T, args: _on(T, (40,), lambda t: I(T).trunc_normal_(t, *args)),
      args=[(), (0.0, 1.0, -2.0, 2.0), (0.5, 0.2, 0.0, 1.0), (0.0, 1.0, 1.0, 1.5), (0.0, 2.0, -0.1, 0.1)])
case("init_trunc_normal_warns", lambda T: _on(T, (10,), lambda t: I(T).trunc_normal_(t, 5.0, 1.0, -1.0, 1.0)), warns=True)
cases("init_orthogonal", lambda T, shape, gain: _on(T, shape, lambda t: I(T).orthogonal_(t, gain)),
      shape=[(3, 3), (4, 2), (2, 5), (3, 2, 2)], gain=[1.0, 2.0], atol=1e-5)


def _orth_check(T):
    t = I(T).orthogonal_(T.empty(5, 3))
    return (t.t() @ t)


case("init_orthogonal_is_orthogonal", _orth_check, atol=1e-5)
error_case("init_orthogonal_1d", lambda T: I(T).orthogonal_(T.empty(4)))
case("init_orthogonal_empty", lambda T: _on(T, (0, 3), I(T).orthogonal_))
cases("init_sparse", lambda T, sparsity: _on(T, (6, 4), lambda t: I(T).sparse_(t, sparsity, 0.5)), sparsity=[0.1, 0.5, 0.9])
error_case("init_sparse_3d", lambda T: I(T).sparse_(T.empty(2, 2, 2), 0.5))
cases("init_calculate_gain", lambda T, nl: I(T).calculate_gain(nl),
      nl=["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid",
          "tanh", "relu", "leaky_relu", "selu"])
cases("init_calculate_gain_param", lambda T, param: I(T).calculate_gain("leaky_relu", param), param=[None, 0.2, 1, 0.0])
error_case("init_calculate_gain_bad", lambda T: I(T).calculate_gain("gelu"))
error_case("init_calculate_gain_bad_param", lambda T: I(T).calculate_gain("leaky_relu", True))
cases("init_fan", lambda T, shape: I(T)._calculate_fan_in_and_fan_out(T.empty(*shape)),
      shape=[(3, 5), (2, 3, 4), (4, 3, 2, 2), (5, 1, 3, 3, 3)])
cases("init_deprecated", lambda T, which: (lambda t: (getattr(I(T), which)(t), t))(T.empty(3, 4)), warns=True,
      which=["uniform", "normal", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "eye"])
case("init_deprecated_constant", lambda T: (lambda t: (I(T).constant(t, 2.0), t))(T.empty(2)), warns=True)


def _param_init(T):
    p = T.nn.Parameter(T.empty(3, 4))
    I(T).kaiming_uniform_(p)
    return p, p.requires_grad, p.grad_fn, p.is_leaf


case("init_parameter_stays_leaf", _param_init)
case("init_generator", lambda T: (lambda g: _on(T, (4, 3), lambda t: I(T).uniform_(t, generator=g)))(T.Generator().manual_seed(7)))
case("init_generator_normal", lambda T: (lambda g: _on(T, (20,), lambda t: I(T).normal_(t, 1.0, 0.5, generator=g)))(
    T.Generator().manual_seed(11)))

# default initialisation of whole models: the same draws in the same order as torch
MODELS = {
    "linear": lambda T: T.nn.Linear(3, 2),
    "mlp": lambda T: T.nn.Sequential(T.nn.Linear(784, 16), T.nn.ReLU(), T.nn.Linear(16, 10)),
    "conv2d": lambda T: T.nn.Conv2d(3, 8, 5),
    "conv_transpose2d": lambda T: T.nn.ConvTranspose2d(3, 5, 2),
    "conv1d_groups": lambda T: T.nn.Conv1d(4, 6, 3, groups=2),
    "conv3d": lambda T: T.nn.Conv3d(2, 3, (2, 1, 2)),
    "embedding": lambda T: T.nn.Embedding(10, 3),
    "embedding_small": lambda T: T.nn.Embedding(5, 3, padding_idx=1),
    "bilinear": lambda T: T.nn.Bilinear(3, 4, 2),
    "norms": lambda T: T.nn.Sequential(T.nn.BatchNorm2d(3), T.nn.LayerNorm(4), T.nn.GroupNorm(2, 4), T.nn.Linear(4, 2)),
    "cnn": lambda T: T.nn.Sequential(T.nn.Conv2d(1, 8, 3, padding=1), T.nn.ReLU(), T.nn.MaxPool2d(2),
                                     T.nn.Conv2d(8, 16, 3), T.nn.Flatten(), T.nn.Linear(16 * 4, 10)),
    "prelu": lambda T: T.nn.PReLU(4),
}
for _n, _m in MODELS.items():
    case(f"init_model_{_n}", lambda T, _m=_m: list(_m(T).state_dict().items()))


def _reset(T):
    m = T.nn.Linear(4, 3)
    first = m.weight.clone()
    m.reset_parameters()
    return first, m.weight, m.bias


case("init_reset_parameters", _reset)

# ---------------------------------------------------------------------------------------------- nn.utils
G1 = [[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]]
G2 = [4.0, -2.0]


def _params(T, g1=G1, g2=G2, dtype2=None):
    a = T.nn.Parameter(T.ones(2, 3))
    b = T.nn.Parameter(T.ones(2, dtype=dtype2) if dtype2 else T.ones(2))
    c = T.nn.Parameter(T.ones(3))  # no grad: skipped
    a.grad = T.tensor(g1)
    b.grad = T.tensor(g2, dtype=dtype2) if dtype2 else T.tensor(g2)
    return [a, b, c]


def _clip(T, max_norm, norm_type, foreach):
    ps = _params(T)
    total = T.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type, foreach=foreach)
    return total, [p.grad for p in ps]


cases("clip_grad_norm", _clip, max_norm=[1.0, 100.0], norm_type=[2.0, 1, 3.5, float("inf"), 0.0], foreach=[None, False, True])
case("clip_grad_norm_tensor", lambda T: (lambda ps: (T.nn.utils.clip_grad_norm_(ps[0], 0.5), ps[0].grad))(_params(T)))
case("clip_grad_norm_generator", lambda T: (lambda ps: (T.nn.utils.clip_grad_norm_((p for p in ps), 1.5), [p.grad for p in ps]))(
    _params(T)))
case("clip_grad_norm_empty", lambda T: T.nn.utils.clip_grad_norm_([], 1.0))
case("clip_grad_norm_empty_generator", lambda T: T.nn.utils.clip_grad_norm_((p for p in []), 1.0), warns=True)
case("clip_grad_norm_no_grads", lambda T: T.nn.utils.clip_grad_norm_([T.nn.Parameter(T.ones(2))], 1.0))
case("clip_grad_norm_mixed_dtypes", lambda T: (lambda ps: (T.nn.utils.clip_grad_norm_(ps, 1.0), [p.grad for p in ps]))(
    _params(T, dtype2=T.float64)))
case("clip_grad_norm_nonfinite_ok", lambda T: (lambda ps: (T.nn.utils.clip_grad_norm_(ps, 1.0), [p.grad for p in ps]))(
    _params(T, g2=[float("inf"), 1.0])))
error_case("clip_grad_norm_nonfinite_error", lambda T: T.nn.utils.clip_grad_norm_(_params(T, g2=[float("nan"), 1.0]), 1.0,
                                                                                   error_if_nonfinite=True))


def _model_clip(T):
    m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))
    out = m(T.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]]))
    (out * T.tensor([[1.0, -1.0], [2.0, 0.5]])).sum().backward()
    n = T.nn.utils.clip_grad_norm_(m.parameters(), 0.1)
    return n, [p.grad for p in m.parameters()]


case("clip_grad_norm_model", _model_clip)


def _clip_value(T, clip, foreach):
    ps = _params(T)
    r = T.nn.utils.clip_grad_value_(ps, clip, foreach=foreach)
    return r, [p.grad for p in ps]


cases("clip_grad_value", _clip_value, clip=[0.5, 2, 10.0], foreach=[None, True])
case("clip_grad_value_tensor", lambda T: (lambda ps: (T.nn.utils.clip_grad_value_(ps[0], 1.0), ps[0].grad))(_params(T)))
case("clip_grad_value_nan", lambda T: (lambda ps: (T.nn.utils.clip_grad_value_(ps, 1.0), [p.grad for p in ps]))(
    _params(T, g2=[float("nan"), -5.0])))
case("parameters_to_vector", lambda T: T.nn.utils.parameters_to_vector([T.tensor(G1), T.tensor(G2), T.tensor([[7.0]])]))
grad_case("parameters_to_vector_grad", lambda T, a, b: T.nn.utils.parameters_to_vector([a, b]), G1, G2)


def _v2p(T):
    m = T.nn.Linear(3, 2)
    v = T.arange(8.0) * 0.5 - 1.0
    T.nn.utils.vector_to_parameters(v, m.parameters())
    return m.weight, m.bias, m.weight.requires_grad, m.weight.is_leaf


case("vector_to_parameters", _v2p)
error_case("vector_to_parameters_type", lambda T: T.nn.utils.vector_to_parameters([1.0, 2.0], [T.nn.Parameter(T.ones(2))]))
