"""Unary elementwise maths: every op as torch.f / Tensor.f / Tensor.f_ / out=, every dtype (ints and bools give
the default float dtype for float ops; abs / neg / sign / floor keep the dtype; refused dtypes raise torch's error),
nan / inf / -0.0, 0-d, empty and non-contiguous inputs, and gradients with uneven weights."""
from .harness import *  # noqa: F401,F403

NAN, INF = float("nan"), float("inf")
GEN = [[0.5, -1.25, 2.0], [-0.3, 0.75, 1.5]]           # anywhere on the real line
POS = [[0.5, 1.25, 2.0], [0.3, 3.75, 1.5]]             # log / sqrt / lgamma domain
UNIT = [[0.5, -0.25, 0.9], [-0.3, 0.75, 0.1]]          # asin / atanh / erfinv domain
GE1 = [[1.5, 2.25, 3.0], [1.3, 4.75, 1.05]]            # acosh domain
PROB = [[0.2, 0.5, 0.9], [0.3, 0.75, 0.1]]             # logit domain
SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0]       # nan / inf / signed zeros
INTDATA = [[1, 2, 0], [3, 1, 2]]                       # fits every dtype, bool included

# op -> (data, has in-place, has out=)
FLOAT_OPS = {
    "exp": GEN, "exp2": GEN, "expm1": GEN, "log": POS, "log2": POS, "log10": POS, "log1p": POS, "sqrt": POS,
    "rsqrt": POS, "sin": GEN, "cos": GEN, "tan": GEN, "asin": UNIT, "acos": UNIT, "atan": GEN, "sinh": GEN,
    "cosh": GEN, "tanh": GEN, "asinh": GEN, "acosh": GE1, "atanh": UNIT, "sigmoid": GEN, "erf": GEN,
    "erfc": GEN, "erfinv": UNIT, "reciprocal": GEN, "lgamma": POS, "digamma": POS, "logit": PROB, "sinc": GEN,
    "deg2rad": GEN, "rad2deg": GEN,
}
KEEP_OPS = {"neg": GEN, "abs": GEN, "sign": GEN, "sgn": GEN, "floor": GEN, "ceil": GEN, "round": GEN,
            "trunc": GEN, "frac": GEN, "square": GEN, "relu": GEN, "nan_to_num": GEN}
ALIASES = {"arcsin": ("asin", UNIT), "arccos": ("acos", UNIT), "arctan": ("atan", GEN), "arcsinh": ("asinh", GEN),
           "arccosh": ("acosh", GE1), "arctanh": ("atanh", UNIT), "negative": ("neg", GEN), "absolute": ("abs", GEN),
           "fix": ("trunc", GEN)}
ALL_OPS = {**FLOAT_OPS, **KEEP_OPS}
NO_OUT = {"relu"}

# ------------------------------------------------------------------------------------ every spelling
for op, data in ALL_OPS.items():
    case(f"{op}_function", lambda T, op=op, data=data: getattr(T, op)(T.tensor(data)))
    case(f"{op}_method", lambda T, op=op, data=data: getattr(T.tensor(data), op)())
    case(f"{op}_inplace", lambda T, op=op, data=data: getattr(T.tensor(data), op + "_")())
    case(f"{op}_float64", lambda T, op=op, data=data: getattr(T, op)(T.tensor(data, dtype=T.float64)))
    if op not in NO_OUT:
        case(f"{op}_out", lambda T, op=op, data=data: (lambda o: (getattr(T, op)(T.tensor(data), out=o), o))(T.zeros(2, 3)))
    if op != "sgn":  # torch's sgn gradient is an unallocated zero tensor (its .grad cannot be read)
        grad_case(f"{op}_grad", lambda T, x, op=op: getattr(T, op)(x), data)
for alias, (op, data) in ALIASES.items():
    case(f"{alias}_alias", lambda T, alias=alias, data=data: (getattr(T, alias)(T.tensor(data)), getattr(T.tensor(data), alias)()))
    grad_case(f"{alias}_alias_grad", lambda T, x, alias=alias: getattr(x, alias)(), data)

# ------------------------------------------------------------------------------------ dtypes
def _dtype_kind_float(dtype):
    return "value"


for op in FLOAT_OPS:
    cases(f"{op}_dtype", lambda T, dtype, op=op: getattr(T, op)(T.tensor(INTDATA, dtype=dtype)), dtype=ALL)
# ops that keep the dtype, and the dtypes they refuse (bool for most, integers for frac)
REFUSES = {"neg": [D.bool], "abs": [D.bool], "floor": [D.bool], "ceil": [D.bool], "round": [D.bool],
           "trunc": [D.bool], "frac": INTS + [D.bool], "relu": [D.bool], "sign": [], "sgn": [], "square": [],
           "nan_to_num": []}
for op, refused in REFUSES.items():
    cases(f"{op}_dtype", lambda T, dtype, op=op: getattr(T, op)(T.tensor(INTDATA, dtype=dtype)),
          kind=lambda dtype, refused=refused: "error" if dtype in refused else "value", dtype=ALL)
# an int tensor cannot hold a float op's result in place
cases("float_op_inplace_on_int", lambda T, op: getattr(T.tensor(INTDATA), op + "_")(), kind="error",
      op=["exp", "sqrt", "sin", "sigmoid", "reciprocal", "erfinv", "digamma"])
cases("float_op_out_int", lambda T, op: getattr(T, op)(T.tensor(GEN), out=T.tensor(INTDATA)), kind="error",
      op=["exp", "log", "tanh"])
case("exp_int_out_float64", lambda T: (lambda o: (T.exp(T.tensor(INTDATA), out=o), o))(T.zeros(2, 3, dtype=T.float64)))
case("abs_int_wraps_min", lambda T: T.tensor([-128, -5, 7], dtype=T.int8).abs())
case("neg_uint8_wraps", lambda T: -T.tensor([0, 1, 200], dtype=T.uint8))
case("square_bool_is_int64", lambda T: T.square(T.tensor([True, False])))
case("sign_bool", lambda T: T.sign(T.tensor([True, False])))
cases("sign_ints", lambda T, dtype: T.tensor([-3, 0, 5], dtype=dtype).sign(), dtype=[D.int8, D.int16, D.int32, D.int64])

# ------------------------------------------------------------------------------------ special values
for op in list(FLOAT_OPS) + ["neg", "abs", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "square", "relu"]:
    case(f"{op}_special", lambda T, op=op: getattr(T, op)(T.tensor(SPECIAL)))
cases("special_float64", lambda T, op: getattr(T, op)(T.tensor(SPECIAL, dtype=T.float64)),
      op=["exp", "log", "sqrt", "erfinv", "digamma", "lgamma", "sigmoid", "logit", "sinc"])
cases("float16", lambda T, op, dtype: getattr(T, op)(T.tensor(POS, dtype=dtype)),
      op=["exp", "log", "sqrt", "sin", "tanh", "sigmoid", "erf", "lgamma", "digamma", "reciprocal", "rsqrt"],
      dtype=HALF)
case("round_half_even", lambda T: T.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 3.5, 0.49999997, -1.5]).round())
case("round_half_even_float64", lambda T: T.tensor([0.5, 1.5, 2.5, -0.5, -2.5], dtype=T.float64).round())
cases("round_decimals", lambda T, d: T.tensor([1.25, 1.35, -2.675, 12345.5, 0.125, -0.0]).round(decimals=d),
      d=[0, 1, 2, 3, -1, -2])
cases("round_decimals_float64", lambda T, d: T.tensor([1.25, 1.35, -2.675, 12345.5, 0.125], dtype=T.float64).round(decimals=d),
      d=[1, 2, -2])
case("round_decimals_function", lambda T: T.round(T.tensor([1234.5, 1250., 1350.]), decimals=-2))
case("round_decimals_inplace", lambda T: T.tensor([1.26, -3.14159]).round_(decimals=1))
error_case("round_decimals_int", lambda T: T.tensor([1234, 1250]).round(decimals=-2))
grad_case("round_decimals_grad", lambda T, x: x.round(decimals=1), GEN)
case("digamma_poles", lambda T: T.tensor([-3., -2.5, -1., 0., -0., 1e-8, -0.999, -1.001, -10.5]).digamma())
case("digamma_poles_float64", lambda T: T.tensor([-3., -2.5, -1., 0., -0., 1e-8, -0.999, -10.5], dtype=T.float64).digamma())
case("digamma_large", lambda T: T.tensor([9.5, 10., 10.5, 100., 1e6, 1e20]).digamma())
case("lgamma_poles", lambda T: T.tensor([-3., -2.5, -1., 0., -0., 1e-8, 0.5, 100.]).lgamma())
case("erfinv_edges", lambda T: T.tensor([-1., -0.999, -0.7, -0.5, 0., 0.69, 0.71, 0.999, 1., 1.5]).erfinv())
case("erfinv_edges_float64", lambda T: T.tensor([-1., -0.999, -0.7, -0.5, 0., 0.69, 0.71, 0.999, 1.], dtype=T.float64).erfinv())
case("sigmoid_extremes", lambda T: T.tensor([-100., -20., 0., 20., 100.]).sigmoid())
case("sinc_near_zero", lambda T: T.tensor([0., 1e-20, -1e-10, 0.5, 1., 2.5]).sinc())
case("nan_to_num_default", lambda T: T.nan_to_num(T.tensor([NAN, INF, -INF, 1.5])))
cases("nan_to_num_special_dtype", lambda T, dtype: T.nan_to_num(T.tensor([NAN, INF, -INF, 1.5], dtype=dtype)), dtype=FLOATS)
case("nan_to_num_args", lambda T: T.tensor([NAN, INF, -INF, 1.5]).nan_to_num(nan=2.0, posinf=3.0, neginf=-7.0))
case("nan_to_num_kw_some", lambda T: T.tensor([NAN, INF, -INF]).nan_to_num(posinf=1e3))
case("nan_to_num_int_passthrough", lambda T: T.nan_to_num(T.tensor([1, 2]), nan=2.0))
case("nan_to_num_inplace_nan_arg", lambda T: T.tensor([NAN, INF, 2.0]).nan_to_num_(1.0))
grad_case("nan_to_num_grad_masks_nonfinite", lambda T, x: x.nan_to_num(), [NAN, INF, -INF, 1.5, -2.0])
case("relu_nan_and_zero", lambda T: T.relu(T.tensor([-1.0, NAN, 0.0, -0.0, 2.0])))
case("relu_int", lambda T: T.relu(T.tensor([-1, 2, 0])))
case("frac_signs", lambda T: T.tensor([-2.5, 2.5, -0.0, 0.0, 7.75, -7.75]).frac())
case("trunc_neg_zero", lambda T: T.tensor([-0.5, 0.5, -2.5]).trunc())
case("ceil_neg_zero", lambda T: T.tensor([-0.5, 0.5, -2.5]).ceil())

# ------------------------------------------------------------------------------------ logit, polygamma, positive
cases("logit_eps", lambda T, eps: T.tensor([0., 0.5, 1., 2., -1., 0.05]).logit(eps), eps=[None, 0.1, 0.6, 0.0])
case("logit_eps_kw", lambda T: T.logit(T.tensor([0., 0.5, 1.]), eps=0.25))
cases("logit_grad_eps", lambda T, x, eps: x.logit(eps), [0.05, 0.3, 0.5, 0.97], kind="grad", eps=[None, 0.1])
grad_case("logit_grad_outside_is_nan", lambda T, x: x.logit(), [1.5, -0.5, 0.5])
grad_case("logit_grad_outside_eps_is_zero", lambda T, x: x.logit(eps=0.2), [0.1, 0.95, 0.5])
cases("polygamma", lambda T, n: T.polygamma(n, T.tensor(POS)), n=[0, 1, 2, 3, 4])
cases("polygamma_method", lambda T, n: T.tensor(POS).polygamma(n), n=[0, 1, 2, 3])
cases("polygamma_float64", lambda T, n: T.polygamma(n, T.tensor(POS, dtype=T.float64)), n=[0, 1, 2, 5])
cases("polygamma_negative_x", lambda T, n: T.polygamma(n, T.tensor([-0.5, -1.5, -2.25, -1.0, 0.0])), n=[1, 2, 3])
case("polygamma_inplace", lambda T: T.tensor(POS).polygamma_(2))
case("polygamma_int_input", lambda T: T.polygamma(1, T.tensor([1, 2, 3])))
case("polygamma_out", lambda T: (lambda o: (T.polygamma(2, T.tensor(POS), out=o), o))(T.zeros(2, 3)))
error_case("polygamma_negative_n", lambda T: T.polygamma(-1, T.tensor([1.])))
error_case("polygamma_float_n", lambda T: T.tensor([1.]).polygamma(1.5))
cases("polygamma_grad", lambda T, x, n: T.polygamma(n, x), POS, kind="grad", n=[0, 1, 2])
case("positive", lambda T: T.positive(T.tensor(GEN)))
case("positive_is_self", lambda T: (lambda x: T.positive(x) is x)(T.tensor(GEN)))
case("positive_op", lambda T: +T.tensor([1, -2]))
error_case("positive_bool", lambda T: T.positive(T.tensor([True])))
error_case("unary_plus_bool", lambda T: +T.tensor([True]))
grad_case("positive_grad", lambda T, x: T.positive(x) * 2, GEN)
case("abs_operator", lambda T: abs(T.tensor([-1.5, 2.0, -0.0])))
case("neg_operator", lambda T: -T.tensor([-1.5, 2.0, 0.0]))
error_case("neg_bool", lambda T: -T.tensor([True, False]))

# ------------------------------------------------------------------------------------ shapes and layouts
cases("zero_dim", lambda T, op: getattr(T, op)(T.tensor(0.75)), op=["exp", "sqrt", "abs", "sigmoid", "floor", "erfinv", "neg"])
cases("empty", lambda T, op: getattr(T, op)(T.zeros(0, 3)), op=["exp", "log", "abs", "sign", "round", "relu"])
cases("transposed", lambda T, op: getattr(T, op)(T.tensor(POS).t()), op=["exp", "log", "sqrt", "abs", "tanh", "floor"])
cases("expanded", lambda T, op: getattr(T, op)(T.tensor([[0.5], [1.5]]).expand(2, 3)), op=["exp", "sin", "neg"])
case("transposed_keeps_strides", lambda T: T.tensor(POS).t().exp().stride())
case("inplace_on_transposed", lambda T: (lambda x: (x.t().exp_(), x))(T.tensor(POS)))
case("out_resized", lambda T: (lambda o: (T.exp(T.tensor(GEN), out=o), o.shape))(T.zeros(0)))
case("inplace_returns_self", lambda T: (lambda x: x.sqrt_() is x)(T.tensor(POS)))

# ------------------------------------------------------------------------------------ gradients
cases("grad_float64", lambda T, x, op: getattr(x, op)(), inp(POS, dtype=D.float64), kind="grad",
      op=["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "erfinv", "lgamma",
          "digamma", "atan", "asinh", "expm1", "log1p", "log2", "log10", "exp2"])
cases("grad2", lambda T, x, op: getattr(x, op)(), POS, kind="grad", order=2,
      op=["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "erf", "lgamma", "reciprocal", "square", "atan",
          "rsqrt", "log1p", "sinh"])
grad_case("abs_grad_kinks", lambda T, x: x.abs(), [-1.5, 0.0, 0.5, -0.0, 2.0])
grad_case("relu_grad_kinks", lambda T, x: x.relu(), [-1.5, 0.0, 0.5, -0.0, 2.0])
grad_case("sqrt_grad_at_zero", lambda T, x: x.sqrt(), [0.0, 1.0])
grad_case("inplace_grad", lambda T, x: (x * 1).exp_(), GEN)
grad_case("inplace_chain_grad", lambda T, x: (x * 2).sin_().tanh_(), GEN)
grad_case("grad_transposed_leaf", lambda T, x: x.exp(), inp(POS, view=lambda t: t.t()))
grad_case("grad_broadcast_leaf", lambda T, x: x.sigmoid(), inp([[0.5], [-1.5]], view=vexpand(2, 3)))
case("grad_fn_names", lambda T: [type(getattr(T.tensor(POS, requires_grad=True), op)().grad_fn).__name__
                                 for op in ALL_OPS])
case("float_op_result_requires_grad", lambda T: [getattr(T.tensor(POS, requires_grad=True), op)().requires_grad
                                                 for op in ["sign", "floor", "round", "exp"]])
error_case("inplace_on_leaf", lambda T: T.tensor(POS, requires_grad=True).exp_())
error_case("out_with_grad", lambda T: T.exp(T.tensor(POS, requires_grad=True), out=T.zeros(2, 3)))
error_case("saved_modified", lambda T: (lambda y: (y.mul_(2), y.sum().backward()))(T.tensor(POS, requires_grad=True).exp()))

# torch.<op>_(x): the function spelling of the in-place form returns x itself
FN_INPLACE = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "deg2rad", "erf", "erfc",
              "exp", "exp2", "expm1", "floor", "frac", "log", "log10", "log1p", "log2", "logit", "nan_to_num", "neg",
              "rad2deg", "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sin", "sinc", "sinh", "sqrt", "square",
              "tan", "tanh", "trunc", "arccos", "arcsin", "arctan", "arcsinh", "arctanh", "arccosh", "negative", "fix"]
DOMAIN = {**FLOAT_OPS, **KEEP_OPS, **{a: d for a, (_, d) in ALIASES.items()}}
for op in FN_INPLACE:
    case(f"{op}_function_inplace", lambda T, op=op: (lambda x: (getattr(T, op + "_")(x) is x, x))(T.tensor(DOMAIN[op])))
error_case("function_inplace_int", lambda T: T.exp_(T.tensor([1, 2])))
error_case("function_inplace_modifies_saved", lambda T: T.sigmoid_(T.exp_(T.tensor(GEN, requires_grad=True) * 1)).sum().backward())
grad_case("function_inplace_grad", lambda T, x: T.sigmoid_(T.sin_(x * 1)), GEN)

# out= dtype rules: ops that keep self's dtype need an out of exactly that dtype; float ops cast into any float out
SAME_DTYPE = ["neg", "abs", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac"]
cases("out_dtype_must_match", lambda T, op, pair: getattr(T, op)(T.tensor([1, 2], dtype=pair[0]), out=T.zeros(2, dtype=pair[1])),
      kind="error", op=SAME_DTYPE, pair=[(D.int64, D.float32), (D.float32, D.float64), (D.float64, D.float32), (D.int32, D.int64)])
cases("out_dtype_same_ok", lambda T, op: (lambda o: (getattr(T, op)(T.tensor([1.5, -2.5]), out=o), o))(T.zeros(2)), op=SAME_DTYPE)
cases("out_float_op_casts", lambda T, op, od: (lambda o: (getattr(T, op)(T.tensor([1, 2]), out=o), o))(T.zeros(2, dtype=od)),
      op=["exp", "sigmoid", "sqrt", "reciprocal", "square"], od=[D.float64, D.float16])
error_case("round_decimals_out_dtype", lambda T: T.round(T.tensor([1.25]), decimals=1, out=T.zeros(1, dtype=T.float64)))
error_case("nan_to_num_out_dtype", lambda T: T.nan_to_num(T.tensor([1, 2], dtype=T.int8), out=T.zeros(2, dtype=T.int32)))
error_case("frac_out_dtype_before_dtype_check", lambda T: T.frac(T.tensor([1, 2]), out=T.zeros(2)))
error_case("neg_bool_out", lambda T: T.neg(T.tensor([True]), out=T.zeros(1, dtype=T.int64)))

# angle of real tensors: pi below zero (pi rounded to the type), NaN stays, ints and bool give float32
cases("angle", lambda T, dtype: T.angle(T.tensor([-1.5, 2.0, 0.0, 3.0], dtype=dtype)), dtype=FLOATS)
cases("angle_int", lambda T, dtype: T.tensor([-2, 0, 5], dtype=dtype).angle(), dtype=[D.int64, D.int8, D.int16])
case("angle_unsigned", lambda T: (T.tensor([0, 7, 255], dtype=T.uint8).angle(), T.tensor([True, False]).angle()))
case("angle_specials", lambda T: T.angle(T.tensor([-0.0, NAN, -INF, INF, -1e-30])))
case("angle_out", lambda T: (lambda o: (T.angle(T.tensor([-1.0, 2.0]), out=o), o))(T.empty(0)))
grad_case("angle_grad", lambda T, x: T.angle(x), [-1.5, 2.0, 0.25])
error_case("angle_no_inplace", lambda T: T.tensor([1.0]).angle_())
