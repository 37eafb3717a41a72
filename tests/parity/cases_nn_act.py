"""nn activations and softmax: F.*, torch.*, Tensor.* and module spellings; dtypes (and the ones refused);
in-place forms; gradients (first and second order); module printouts; torch's errors and warnings."""
from .harness import *  # noqa: F401,F403

X = [[-2.5, -1.0, -0.25, 0.0], [0.3, 1.0, 2.75, -0.6]]                 # 2x4, uneven, a zero
X3 = [[[-1.5, 0.5, 2.0], [0.25, -0.75, 1.25]], [[3.0, -2.0, 0.1], [-0.4, 0.9, -1.1]]]  # 2x2x3
XS = [-4.0, -3.0, -2.9, -0.5, 0.0, 0.5, 2.9, 3.0, 4.5]                   # hardswish/hardsigmoid edges
XN = [float("nan"), -1.5, float("inf"), float("-inf"), 0.75]             # nan/inf selected, not multiplied


def F(T):
    return T.nn.functional


# name -> (functional call, module, extra spellings)
ACTS = {
    "relu": (lambda T, x: F(T).relu(x), lambda T: T.nn.ReLU()),
    "relu6": (lambda T, x: F(T).relu6(x), lambda T: T.nn.ReLU6()),
    "leaky_relu": (lambda T, x: F(T).leaky_relu(x, 0.2), lambda T: T.nn.LeakyReLU(0.2)),
    "leaky_relu_default": (lambda T, x: F(T).leaky_relu(x), lambda T: T.nn.LeakyReLU()),
    "elu": (lambda T, x: F(T).elu(x, 0.7), lambda T: T.nn.ELU(0.7)),
    "selu": (lambda T, x: F(T).selu(x), lambda T: T.nn.SELU()),
    "celu": (lambda T, x: F(T).celu(x, 1.5), lambda T: T.nn.CELU(1.5)),
    "gelu": (lambda T, x: F(T).gelu(x), lambda T: T.nn.GELU()),
    "gelu_tanh": (lambda T, x: F(T).gelu(x, approximate="tanh"), lambda T: T.nn.GELU("tanh")),
    "silu": (lambda T, x: F(T).silu(x), lambda T: T.nn.SiLU()),
    "mish": (lambda T, x: F(T).mish(x), lambda T: T.nn.Mish()),
    "sigmoid": (lambda T, x: F(T).sigmoid(x), lambda T: T.nn.Sigmoid()),
    "tanh": (lambda T, x: F(T).tanh(x), lambda T: T.nn.Tanh()),
    "softplus": (lambda T, x: F(T).softplus(x), lambda T: T.nn.Softplus()),
    "softplus_beta": (lambda T, x: F(T).softplus(x, 2.0, 1.5), lambda T: T.nn.Softplus(2.0, 1.5)),
    "hardtanh": (lambda T, x: F(T).hardtanh(x, -0.5, 1.5), lambda T: T.nn.Hardtanh(-0.5, 1.5)),
    "hardswish": (lambda T, x: F(T).hardswish(x), lambda T: T.nn.Hardswish()),
    "hardsigmoid": (lambda T, x: F(T).hardsigmoid(x), lambda T: T.nn.Hardsigmoid()),
    "softsign": (lambda T, x: F(T).softsign(x), lambda T: T.nn.Softsign()),
    "tanhshrink": (lambda T, x: F(T).tanhshrink(x), lambda T: T.nn.Tanhshrink()),
    "threshold": (lambda T, x: F(T).threshold(x, 0.3, -2.0), lambda T: T.nn.Threshold(0.3, -2.0)),
    "logsigmoid": (lambda T, x: F(T).logsigmoid(x), lambda T: T.nn.LogSigmoid()),
    "hardshrink": (lambda T, x: F(T).hardshrink(x, 0.6), lambda T: T.nn.Hardshrink(0.6)),
    "softshrink": (lambda T, x: F(T).softshrink(x, 0.6), lambda T: T.nn.Softshrink(0.6)),
}
# second derivatives: the ones whose backward is itself differentiable in wick (the rest raise, as documented)
ORDER2 = {"relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "gelu_tanh", "silu", "mish", "sigmoid",
          "tanh", "softplus", "hardtanh", "hardswish", "softsign", "tanhshrink", "threshold",
          "logsigmoid", "hardshrink", "softshrink"}

for _n, (_f, _m) in ACTS.items():
    grad_case(f"act_grad_{_n}", _f, X)
    if _n in ORDER2:
        grad_case(f"act_grad2_{_n}", _f, [[-1.7, -0.2, 0.45], [1.3, 2.2, -3.1]], order=2)
    case(f"act_module_{_n}", lambda T, _m=_m: _m(T)(T.tensor(X3)))
    case(f"act_edges_{_n}", lambda T, _f=_f: _f(T, T.tensor(XS)))
    case(f"act_nan_{_n}", lambda T, _f=_f: _f(T, T.tensor(XN)),
         cpu_dependent="gelu(inf): NaN from oneDNN's AVX-512 kernel, inf elsewhere" if _n == "gelu" else None)
    case(f"act_noncontig_{_n}", lambda T, _f=_f: _f(T, nc_t(T, X)))
    case(f"act_0d_{_n}", lambda T, _f=_f: _f(T, T.tensor(-0.7)))
    case(f"act_empty_{_n}", lambda T, _f=_f: _f(T, T.zeros(0, 3)))
    cases(f"act_dtype_{_n}", lambda T, dtype, _f=_f: _f(T, T.tensor(X, dtype=dtype)), dtype=FLOATS)

def _hs2(T):
    x = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (g,) = T.autograd.grad((F(T).hardsigmoid(x) * T.tensor([1.5, -0.5, 2.0])).sum(), [x], create_graph=True)
    return T.autograd.grad(g.sum(), [x])


error_case("act_grad2_hardsigmoid_direct", _hs2)

# integer and bool inputs: which activations accept them (checked against torch by the harness) and the refusals
INT_OK = {"relu", "relu6", "hardtanh", "threshold", "sigmoid", "softsign", "tanhshrink"}
BOOL_OK = {"sigmoid"}
for _n in ("relu", "relu6", "hardtanh", "threshold", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
           "softplus", "hardswish", "hardsigmoid", "logsigmoid", "hardshrink", "softshrink", "softsign",
           "tanhshrink", "sigmoid"):
    _f = ACTS[_n][0]
    case_or_error = case if _n in INT_OK else error_case
    case_or_error(f"act_int64_{_n}", lambda T, _f=_f: _f(T, T.tensor([[-2, 0, 3], [4, -1, 7]])))
    case_or_error = case if _n in BOOL_OK else error_case
    case_or_error(f"act_bool_{_n}", lambda T, _f=_f: _f(T, T.tensor([True, False, True])))

# in-place spellings
INPLACE = {
    "relu_inplace": lambda T, x: F(T).relu(x, inplace=True),
    "relu_": lambda T, x: F(T).relu_(x),
    "relu6_inplace": lambda T, x: F(T).relu6(x, inplace=True),
    "leaky_relu_inplace": lambda T, x: F(T).leaky_relu(x, 0.1, inplace=True),
    "leaky_relu_": lambda T, x: F(T).leaky_relu_(x, 0.1),
    "elu_inplace": lambda T, x: F(T).elu(x, 1.0, inplace=True),
    "elu_": lambda T, x: F(T).elu_(x),
    "selu_inplace": lambda T, x: F(T).selu(x, inplace=True),
    "torch_selu_": lambda T, x: T.selu_(x),
    "celu_inplace": lambda T, x: F(T).celu(x, 1.0, inplace=True),
    "torch_celu_": lambda T, x: T.celu_(x, 2.0),
    "hardtanh_inplace": lambda T, x: F(T).hardtanh(x, inplace=True),
    "hardtanh_": lambda T, x: F(T).hardtanh_(x, -0.3, 0.4),
    "threshold_inplace": lambda T, x: F(T).threshold(x, 0.1, 9.0, inplace=True),
    "torch_threshold_": lambda T, x: T.threshold_(x, 0.1, 9.0),
    "silu_inplace": lambda T, x: F(T).silu(x, inplace=True),
    "mish_inplace": lambda T, x: F(T).mish(x, inplace=True),
    "hardswish_inplace": lambda T, x: F(T).hardswish(x, inplace=True),
    "hardsigmoid_inplace": lambda T, x: F(T).hardsigmoid(x, inplace=True),
    "module_relu_inplace": lambda T, x: T.nn.ReLU(inplace=True)(x),
    "module_elu_inplace": lambda T, x: T.nn.ELU(inplace=True)(x),
}
for _n, _f in INPLACE.items():
    def _val(T, _f=_f):
        x = T.tensor(X)
        y = _f(T, x)
        return x, y is x, x._version
    case(f"act_inplace_{_n}", _val)
    grad_case(f"act_inplace_grad_{_n}", lambda T, x, _f=_f: _f(T, x * 1.5), X)
    error_case(f"act_inplace_leaf_{_n}", lambda T, _f=_f: _f(T, T.tensor(X, requires_grad=True)))

# the torch-namespace and Tensor-method spellings
case("torch_threshold", lambda T: T.threshold(T.tensor(X), 0.0, 5.5))
case("torch_threshold_int", lambda T: T.threshold(T.tensor([[-2, 0, 3], [4, -1, 7]]), 1, 10))
case("torch_celu", lambda T: T.celu(T.tensor(X), 0.5))
case("torch_selu", lambda T: T.selu(T.tensor(X)))
case("torch_hardshrink", lambda T: T.hardshrink(T.tensor(X), 0.4))
case("tensor_hardshrink", lambda T: T.tensor(X).hardshrink(0.4))
case("tensor_hardshrink_default", lambda T: T.tensor(X).hardshrink())
case("torch_prelu", lambda T: T.prelu(T.tensor(X), T.tensor([0.3])))
case("tensor_prelu", lambda T: T.tensor(X3).prelu(T.tensor([0.3, -0.2])))
case("nn_gelu_kw", lambda T: T._C._nn.gelu(T.tensor(X), approximate="tanh"))
case("nn_elu_scales", lambda T: T._C._nn.elu(T.tensor(X), 1.3, 0.7, 2.0))
case("nn_softplus", lambda T: T._C._nn.softplus(T.tensor(X), 3, 2))

# prelu: the module (weight per channel), broadcasting and gradients to the weight
grad_case("prelu_grad_scalar_w", lambda T, x, w: F(T).prelu(x, w), X, [0.25])
grad_case("prelu_grad_channel_w", lambda T, x, w: F(T).prelu(x, w), X3, [0.25, -0.6])
grad_case("prelu_grad_4d", lambda T, x, w: F(T).prelu(x, w), [[[[1.0, -2.0]], [[-0.5, 0.25]], [[3.0, -1.5]]]],
          [0.1, 0.2, 0.3])
case("prelu_module", lambda T: T.nn.PReLU()(T.tensor(X)))
case("prelu_module_channels", lambda T: T.nn.PReLU(2, 0.1)(T.tensor(X3)))
case("prelu_module_params", lambda T: [(n, p) for n, p in T.nn.PReLU(3, -0.5).named_parameters()])
error_case("prelu_mismatch", lambda T: F(T).prelu(T.tensor(X3), T.tensor([0.1, 0.2, 0.3])))
error_case("prelu_weight_2d", lambda T: F(T).prelu(T.tensor(X), T.tensor([[0.1, 0.2]])))
error_case("prelu_dtype", lambda T: F(T).prelu(T.tensor(X), T.tensor([0.1], dtype=T.float64)))
error_case("prelu_int", lambda T: F(T).prelu(T.tensor([1, -2]), T.tensor([1])))
error_case("prelu_0d", lambda T: F(T).prelu(T.tensor(1.0), T.tensor([0.1, 0.2])))

# glu
grad_case("glu_grad_last", lambda T, x: F(T).glu(x), X)
grad_case("glu_grad_dim0", lambda T, x: F(T).glu(x, 0), X)
grad_case("glu_grad_dim1_3d", lambda T, x: F(T).glu(x, 1), X3)
case("glu_module", lambda T: T.nn.GLU(-1)(T.tensor(X)))
error_case("glu_odd", lambda T: F(T).glu(T.tensor(X3)))
error_case("glu_scalar", lambda T: F(T).glu(T.tensor(1.0)))
error_case("glu_int", lambda T: F(T).glu(T.tensor([1, 2])))

# errors with torch's messages
error_case("hardtanh_min_gt_max", lambda T: F(T).hardtanh(T.tensor(X), 2.0, 1.0))
error_case("hardtanh_module_bad", lambda T: T.nn.Hardtanh(1.0, 1.0))
error_case("softshrink_negative", lambda T: F(T).softshrink(T.tensor(X), -1.0))
error_case("gelu_bad_approx", lambda T: F(T).gelu(T.tensor(X), approximate="fast"))
error_case("elu_int", lambda T: F(T).elu(T.tensor([1, 2])))
error_case("threshold_bool", lambda T: T.threshold(T.tensor([True]), 0, 1))

# softmax family: dims, dtype=, the implicit-dim warning, half and integer errors
cases("softmax_dim", lambda T, dim: F(T).softmax(T.tensor(X3), dim), dim=dims(3))
cases("log_softmax_dim", lambda T, dim: F(T).log_softmax(T.tensor(X3), dim), dim=dims(3))
cases("softmin_dim", lambda T, dim: F(T).softmin(T.tensor(X3), dim), dim=dims(3))
cases("softmax_grad", lambda T, x, dim: F(T).softmax(x, dim), X3, kind="grad", dim=dims(3))
cases("log_softmax_grad", lambda T, x, dim: F(T).log_softmax(x, dim), X3, kind="grad", dim=dims(3))
cases("softmin_grad", lambda T, x, dim: F(T).softmin(x, dim), X, kind="grad", dim=dims(2))
grad_case("softmax_grad2", lambda T, x: F(T).softmax(x, 1), X, order=2)
grad_case("log_softmax_grad2", lambda T, x: F(T).log_softmax(x, 0), X, order=2)
cases("softmax_dtype_arg", lambda T, dtype: F(T).softmax(T.tensor(X), 1, dtype=dtype), dtype=FLOAT)
cases("log_softmax_dtype_arg", lambda T, dtype: F(T).log_softmax(T.tensor(X), 0, dtype=dtype), dtype=FLOAT)
grad_case("softmax_dtype_grad", lambda T, x: F(T).softmax(x, 1, dtype=T.float64), X)
cases("softmax_dtypes", lambda T, dtype: T.softmax(T.tensor(X, dtype=dtype), -1), dtype=FLOATS)
cases("log_softmax_dtypes", lambda T, dtype: T.log_softmax(T.tensor(X, dtype=dtype), 0), dtype=FLOATS)
cases("softmax_int", lambda T, dim: T.softmax(T.tensor([[1, 2], [3, 4]]), dim), kind="error", dim=[0, 1])
cases("log_softmax_int", lambda T, dim: T.log_softmax(T.tensor([[1, 2], [3, 4]]), dim), kind="error", dim=[0, 1])
case("softmax_int_dtype_arg", lambda T: T.softmax(T.tensor([[1, 2], [3, 4]]), 1, dtype=T.float64))
case("softmax_method", lambda T: T.tensor(X).softmax(0))
case("softmax_method_dtype", lambda T: T.tensor(X).softmax(-1, T.float64))
case("log_softmax_method", lambda T: T.tensor(X).log_softmax(1))
case("softmax_torch_private", lambda T: T._softmax(T.tensor(X), 1, False))
case("log_softmax_torch_private", lambda T: T._log_softmax(T.tensor(X), 0, False))
error_case("softmax_half_to_float", lambda T: T._softmax(T.tensor(X), 1, True))
case("softmax_backward_data", lambda T: T._softmax_backward_data(T.tensor(X), T.tensor(X).softmax(1), 1, T.float32))
case("softmax_0d", lambda T: F(T).softmax(T.tensor(2.5), 0))
case("softmax_empty", lambda T: F(T).softmax(T.zeros(0, 3), 1))
case("softmax_nan", lambda T: F(T).softmax(T.tensor([[1.0, float("nan"), 2.0], [0.5, 1.0, 2.0]]), 1))
case("softmax_inf", lambda T: F(T).softmax(T.tensor([[1.0, float("inf"), 2.0], [float("-inf"), 1.0, 2.0]]), 1))
case("log_softmax_all_neg_inf", lambda T: F(T).log_softmax(T.tensor([[float("-inf"), float("-inf")], [0.0, 1.0]]), 1))
case("softmax_large", lambda T: F(T).softmax(T.tensor([[1000.0, 1001.0, 999.0]]), 1))
case("log_softmax_large", lambda T: F(T).log_softmax(T.tensor([[1000.0, -1001.0, 999.0]]), 1))
case("softmax_noncontig", lambda T: F(T).softmax(nc_t(T, X), 0))
cases("softmax_no_dim", lambda T, which, shape: getattr(F(T), which)(T.ones(*shape)), warns=True,
      which=["softmax", "log_softmax", "softmin"], shape=[(3,), (2, 3), (2, 2, 3), (1, 2, 2, 2)])
error_case("softmax_bad_dim", lambda T: F(T).softmax(T.tensor(X), 2))
case("softmax_module", lambda T: T.nn.Softmax(dim=1)(T.tensor(X)))
case("log_softmax_module", lambda T: T.nn.LogSoftmax(0)(T.tensor(X)))
case("softmin_module", lambda T: T.nn.Softmin(1)(T.tensor(X)))
case("softmax2d_module", lambda T: T.nn.Softmax2d()(T.tensor(X3)))
error_case("softmax2d_bad", lambda T: T.nn.Softmax2d()(T.tensor(X)))
case("softmax_module_no_dim", lambda T: T.nn.Softmax()(T.tensor(X)), warns=True)

# module printouts
REPRS = [
    lambda T: T.nn.Threshold(0.1, 20.0), lambda T: T.nn.Threshold(0.1, 20.0, True), lambda T: T.nn.ReLU(),
    lambda T: T.nn.ReLU(True), lambda T: T.nn.RReLU(), lambda T: T.nn.Hardtanh(), lambda T: T.nn.Hardtanh(-2, 2, True),
    lambda T: T.nn.ReLU6(), lambda T: T.nn.ReLU6(True), lambda T: T.nn.Sigmoid(), lambda T: T.nn.Hardsigmoid(True),
    lambda T: T.nn.Tanh(), lambda T: T.nn.SiLU(), lambda T: T.nn.SiLU(True), lambda T: T.nn.Mish(True),
    lambda T: T.nn.Hardswish(True), lambda T: T.nn.ELU(), lambda T: T.nn.ELU(0.5, True), lambda T: T.nn.CELU(2.0),
    lambda T: T.nn.SELU(True), lambda T: T.nn.GLU(), lambda T: T.nn.GELU(), lambda T: T.nn.GELU("tanh"),
    lambda T: T.nn.Hardshrink(), lambda T: T.nn.LeakyReLU(), lambda T: T.nn.LeakyReLU(0.2, True),
    lambda T: T.nn.LogSigmoid(), lambda T: T.nn.Softplus(), lambda T: T.nn.Softplus(2, 10), lambda T: T.nn.Softshrink(),
    lambda T: T.nn.PReLU(), lambda T: T.nn.PReLU(3, 0.1), lambda T: T.nn.Softsign(), lambda T: T.nn.Tanhshrink(),
    lambda T: T.nn.Softmin(), lambda T: T.nn.Softmax(dim=-1), lambda T: T.nn.Softmax2d(), lambda T: T.nn.LogSoftmax(1),
]
for _i, _r in enumerate(REPRS):
    case(f"act_repr_{_i}", lambda T, _r=_r: repr(_r(T)))
case("act_sequential_repr", lambda T: repr(T.nn.Sequential(T.nn.ReLU(), T.nn.GELU("tanh"), T.nn.Softmax(1))))
