"""Binary and ternary elementwise maths: atan2, hypot, lerp, maximum / minimum / fmax / fmin (nan, ties, -0.0),
copysign, logaddexp(2), xlogy, addcmul / addcdiv, clamp / clip (scalar and tensor bounds, min > max, nan,
overflowing bounds), where (scalar forms, condition dtype), with every spelling and gradients."""
from .harness import *  # noqa: F401,F403

NAN, INF = float("nan"), float("inf")
A = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
B = [[-0.5, 1.75, 2.0], [0.125, -3.0, 1.5]]
C = [[0.3, -0.7, 1.1], [2.2, 0.9, -0.4]]
POS = [[0.5, 1.25, 2.0], [0.3, 3.75, 1.5]]
ROW = [[2.0, -0.5, 1.5]]
I = [[1, -2, 3], [4, 0, -6]]
J = [[2, 2, -1], [-3, 5, 1]]
SPEC_A = [NAN, 1.0, NAN, 0.0, -0.0, INF, -INF, 2.0]
SPEC_B = [1.0, NAN, NAN, -0.0, 0.0, INF, INF, 2.0]

BIN = {"atan2": (A, B), "hypot": (A, B), "maximum": (A, B), "minimum": (A, B), "fmax": (A, B), "fmin": (A, B),
       "copysign": (A, B), "logaddexp": (A, B), "logaddexp2": (A, B), "xlogy": (POS, POS)}
INPLACE = {"atan2", "hypot", "copysign", "xlogy"}

# ------------------------------------------------------------------------------ every spelling
for op, (a, b) in BIN.items():
    case(f"{op}_function", lambda T, op=op, a=a, b=b: getattr(T, op)(T.tensor(a), T.tensor(b)))
    case(f"{op}_method", lambda T, op=op, a=a, b=b: getattr(T.tensor(a), op)(T.tensor(b)))
    case(f"{op}_float64", lambda T, op=op, a=a, b=b: getattr(T, op)(T.tensor(a, dtype=T.float64), T.tensor(b, dtype=T.float64)))
    case(f"{op}_out", lambda T, op=op, a=a, b=b: (lambda o: (getattr(T, op)(T.tensor(a), T.tensor(b), out=o), o))(T.zeros(2, 3)))
    case(f"{op}_broadcast", lambda T, op=op, a=a: getattr(T, op)(T.tensor(a), T.tensor(ROW)))
    case(f"{op}_transposed", lambda T, op=op, a=a, b=b: getattr(T, op)(T.tensor(a).t(), T.tensor(b).t()))
    case(f"{op}_special", lambda T, op=op: getattr(T, op)(T.tensor(SPEC_A), T.tensor(SPEC_B)))
    cases(f"{op}_dtype", lambda T, dtype, op=op: getattr(T, op)(T.tensor([[1, 2, 0]], dtype=dtype), T.tensor([[2, 1, 1]], dtype=dtype)),
          kind=lambda dtype, op=op: "error" if (op in ("hypot", "logaddexp", "logaddexp2") and dtype not in FLOATS) else "value",
          dtype=ALL)
    if op in INPLACE:
        case(f"{op}_inplace", lambda T, op=op, a=a, b=b: getattr(T.tensor(a), op + "_")(T.tensor(b)))
    grad_case(f"{op}_grad", lambda T, x, y, op=op: getattr(T, op)(x, y), a, b)
    # other broadcast along rows and in float64: its gradient takes other's shape and dtype
    grad_case(f"{op}_grad_broadcast_f64", lambda T, x, y, op=op: getattr(T, op)(x, y), a,
              inp([b[0]], dtype=D.float64))
case("arctan2_alias", lambda T: (T.arctan2(T.tensor(A), T.tensor(B)), T.tensor(A).arctan2(T.tensor(B)), T.tensor(A).arctan2_(T.tensor(B))))
case("atan2_int_promotes", lambda T: T.atan2(T.tensor([1, 2]), T.tensor([3, 4])))
case("atan2_signed_zeros", lambda T: T.atan2(T.tensor([0.0, -0.0, 0.0, -0.0]), T.tensor([1.0, 1.0, -1.0, -1.0])))
error_case("atan2_scalar", lambda T: T.atan2(T.tensor([1.0, 2.0]), 2))
error_case("hypot_scalar", lambda T: T.hypot(T.tensor([3.0, 4.0]), 4))
case("hypot_mixed", lambda T: T.hypot(T.tensor([3.0, 4.0]), T.tensor([4.0], dtype=T.float64)))
error_case("maximum_scalar", lambda T: T.maximum(T.tensor([1, 2]), 2))
case("maximum_zero_dim_promotes", lambda T: T.maximum(T.tensor([1, 2]), T.tensor(2.5)))
case("maximum_nan", lambda T: (T.maximum(T.tensor([1.0, NAN, 2.0]), T.tensor([NAN, 1.0, 3.0])),
                               T.minimum(T.tensor([1.0, NAN, 2.0]), T.tensor([NAN, 1.0, 3.0]))))
case("fmax_nan", lambda T: (T.fmax(T.tensor([1.0, NAN, 2.0, NAN]), T.tensor([NAN, 1.0, 3.0, NAN])),
                            T.fmin(T.tensor([1.0, NAN, 2.0, NAN]), T.tensor([NAN, 1.0, 3.0, NAN]))))
case("maximum_signed_zero_ties", lambda T: [f(T.tensor([0.0, -0.0]), T.tensor([-0.0, 0.0])) for f in (T.maximum, T.minimum, T.fmax, T.fmin)])
case("maximum_bool", lambda T: (T.maximum(T.tensor([True, False]), T.tensor([False, False])), T.minimum(T.tensor([True, False]), T.tensor([True, True]))))
case("maximum_int_mixed", lambda T: T.maximum(T.tensor(I, dtype=T.int8), T.tensor(J, dtype=T.int32)))
grad_case("maximum_grad_ties", lambda T, x, y: T.maximum(x, y), [1.0, 2.0, -3.0, 0.5], [1.0, -2.0, -3.0, 0.75])
grad_case("minimum_grad_ties", lambda T, x, y: T.minimum(x, y), [1.0, 2.0, -3.0, 0.5], [1.0, -2.0, -3.0, 0.75])
grad_case("maximum_grad_nan", lambda T, x, y: T.maximum(x, y), [NAN, 2.0, 1.0], [1.0, NAN, 1.0])
grad_case("fmax_grad_nan", lambda T, x, y: (T.fmax(x, y), T.fmin(x, y)), [NAN, 2.0, 1.0, 3.0], [1.0, NAN, 1.0, -1.0])
grad_case("maximum_grad_broadcast", lambda T, x, y: T.maximum(x, y), A, ROW)
case("copysign_scalar", lambda T: (T.copysign(T.tensor([1, 2]), -1), T.copysign(T.tensor([1.0, 2.0, 3.0]), -0.0),
                                   T.tensor(A).copysign(2.0), T.tensor(A).copysign_(-1)))
case("copysign_zero_and_nan_sign", lambda T: T.copysign(T.tensor([1.0, 2.0, 3.0, -0.0]), T.tensor([-0.0, 0.0, NAN, 1.0])))
grad_case("copysign_grad_scalar", lambda T, x: T.copysign(x, -2.0), [1.5, -2.0, 0.0, -0.0])
grad_case("copysign_grad_zero", lambda T, x, y: T.copysign(x, y), [0.0, 1.5, -2.0], [-1.0, -1.0, 1.0])
case("logaddexp_extremes", lambda T: (T.logaddexp(T.tensor([1000.0, -1000.0, -INF]), T.tensor([1000.0, -1000.0, 3.0])),
                                      T.logaddexp2(T.tensor([1000.0, -1000.0, -INF]), T.tensor([1000.0, -1000.0, 3.0]))))
case("xlogy_zero_nan_inf", lambda T: T.xlogy(T.tensor([0.0, 0.0, 1.0, NAN, 2.0, 0.0]), T.tensor([0.0, NAN, 0.0, 1.0, -1.0, INF])))
case("xlogy_scalars", lambda T: (T.xlogy(2, T.tensor([1.0, 3.0])), T.xlogy(T.tensor([1.0, 3.0]), 2), T.xlogy(T.tensor([1, 3]), T.tensor([2, 4])),
                                 T.tensor([1.0, 0.0]).xlogy(0.5), T.tensor([1.0, 0.0]).xlogy_(3.0)))
case("special_xlogy_out", lambda T: (lambda o: (T.xlogy(2, T.tensor([1.0, 3.0]), out=o), o))(T.zeros(2)))
grad_case("xlogy_grad_zero_self", lambda T, x, y: T.xlogy(x, y), [0.0, 0.0, 1.5, 0.0], [0.0, -1.0, 2.0, 3.0])
grad_case("xlogy_grad_scalar_self", lambda T, y: T.xlogy(2.5, y), [0.5, 1.5, 3.0])
grad_case("xlogy_grad_scalar_other", lambda T, x: (T.xlogy(x, 2.5), T.xlogy(x, 0.0), T.xlogy(x, -1.0)), [0.0, 1.5, -2.0])
case("binary_grad_fn_names", lambda T: [type(f(T.tensor(POS, requires_grad=True))).__name__ if False else
                                         type(f(T.tensor(POS, requires_grad=True)).grad_fn).__name__ for f in [
    lambda x: T.xlogy(x, x), lambda x: T.xlogy(2, x), lambda x: T.xlogy(x, 2), lambda x: T.copysign(x, x),
    lambda x: T.copysign(x, -1), lambda x: T.atan2(x, x), lambda x: T.hypot(x, x), lambda x: T.maximum(x, x),
    lambda x: T.fmin(x, x), lambda x: T.logaddexp(x, x), lambda x: T.logaddexp2(x, x)]])
cases("binary_grad2", lambda T, x, y, op: getattr(T, op)(x, y), POS, C, kind="grad", order=2,
      op=["atan2", "hypot", "logaddexp", "xlogy", "copysign", "maximum"])

# ------------------------------------------------------------------------------ lerp
cases("lerp_scalar", lambda T, w: T.lerp(T.tensor(A), T.tensor(B), w), w=[0.0, 0.3, 0.5, 0.75, 1.0, 2.0, -0.5, 1])
cases("lerp_scalar_dtype", lambda T, dtype: T.lerp(T.tensor(A, dtype=dtype), T.tensor(B, dtype=dtype), 0.3), dtype=FLOATS)
case("lerp_tensor_weight", lambda T: T.lerp(T.tensor(A), T.tensor(B), T.tensor(C)))
case("lerp_tensor_weight_broadcast", lambda T: T.lerp(T.tensor(A), T.tensor(ROW), T.tensor([[0.25], [0.8]])))
case("lerp_zero_dim_weight_other_dtype", lambda T: T.lerp(T.tensor([1.0, 2.0]), T.tensor([-1.0, 2.0]), T.tensor(0.5, dtype=T.float64)))
case("lerp_method", lambda T: (T.tensor(A).lerp(T.tensor(B), 0.25), T.tensor(A).lerp(T.tensor(B), T.tensor(C))))
case("lerp_inplace", lambda T: (T.tensor(A).lerp_(T.tensor(B), 0.25), T.tensor(A).lerp_(T.tensor(B), T.tensor(C))))
case("lerp_out", lambda T: (lambda o: (T.lerp(T.tensor(A), T.tensor(B), 0.6, out=o), o))(T.zeros(2, 3)))
case("lerp_special", lambda T: T.lerp(T.tensor([NAN, 1.0, INF, 0.0]), T.tensor([1.0, NAN, 1.0, INF]), 0.5))
error_case("lerp_int", lambda T: T.lerp(T.tensor([1, 2]), T.tensor([1, 2]), 0.5))
error_case("lerp_int_tensor_weight", lambda T: T.lerp(T.tensor([1, 2]), T.tensor([1, 2]), T.tensor([1, 2])))
cases("lerp_end_dtype_mismatch", lambda T, dtype: T.lerp(T.tensor([1.0, 2.0]), T.tensor([1, 2], dtype=dtype), 0.5), kind="error",
      dtype=[D.float64, D.float16, D.bfloat16, D.int16, D.uint8, D.int32, D.int8, D.int64, D.bool])
error_case("lerp_weight_dtype_mismatch", lambda T: T.lerp(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0]), T.tensor([0.5, 0.5], dtype=T.float64)))
error_case("lerp_weight_long", lambda T: T.lerp(T.tensor([1.0, 2.0]), T.tensor([-1.0, 2.0]), T.tensor([1, 0])))
error_case("lerp_scalar_end", lambda T: T.lerp(T.tensor([1.0, 2.0]), 3.0, 0.5))
error_case("lerp_shape", lambda T: T.lerp(T.tensor([1.0, 2.0]), T.tensor([-1.0, 2.0]), T.tensor([0.5, 1.5, 2.0])))
grad_case("lerp_grad_scalar", lambda T, x, y: (T.lerp(x, y, 0.3), T.lerp(x, y, 0.8)), A, B)
grad_case("lerp_grad_tensor", lambda T, x, y, w: T.lerp(x, y, w), A, B, C)
grad_case("lerp_grad_broadcast", lambda T, x, y, w: T.lerp(x, y, w), A, ROW, [[0.25], [0.8]])
grad_case("lerp_grad2", lambda T, x, y, w: T.lerp(x, y, w) * x, A, B, C, order=2)

# ------------------------------------------------------------------------------ addcmul / addcdiv
cases("addcmul", lambda T, v: T.addcmul(T.tensor(A), T.tensor(B), T.tensor(C), value=v), v=[1, 0.5, -2, True])
cases("addcdiv", lambda T, v: T.addcdiv(T.tensor(A), T.tensor(B), T.tensor(C), value=v), v=[1, 0.5, -2])
case("addcmul_int", lambda T: (T.addcmul(T.tensor(I), T.tensor(J), T.tensor(I), value=2), T.addcmul(T.tensor(I), T.tensor(J), T.tensor(I), value=2.5)))
case("addcmul_promotes", lambda T: (T.addcmul(T.tensor(A), T.tensor(B), T.tensor(C, dtype=T.float64)), T.addcmul(T.tensor(A), T.tensor(I), T.tensor(J))))
case("addcmul_broadcast", lambda T: T.addcmul(T.tensor(ROW), T.tensor([[1.0], [2.0]]), T.tensor(C)))
case("addcmul_methods", lambda T: (T.tensor(A).addcmul(T.tensor(B), T.tensor(C), value=0.5), T.tensor(A).addcmul_(T.tensor(B), T.tensor(C)),
                                   T.tensor(A).addcdiv(T.tensor(B), T.tensor(C), value=0.5), T.tensor(A).addcdiv_(T.tensor(B), T.tensor(C))))
case("addcmul_out", lambda T: (lambda o: (T.addcmul(T.tensor(A), T.tensor(B), T.tensor(C), out=o), T.addcdiv(T.tensor(A), T.tensor(B), T.tensor(C), out=o), o))(T.zeros(2, 3)))
case("addcdiv_float_int_self", lambda T: T.addcdiv(T.tensor(I), T.tensor(B), T.tensor(C)))
error_case("addcdiv_int", lambda T: T.addcdiv(T.tensor(I), T.tensor(J), T.tensor(J)))
error_case("addcdiv_int_operands", lambda T: T.addcdiv(T.tensor(A), T.tensor([[3, 4, 5], [1, 2, 3]]), T.tensor(J)))
error_case("addcmul_bool", lambda T: T.addcmul(T.tensor([True]), T.tensor([True]), T.tensor([True]), value=True))
error_case("addcmul_scalar_operand", lambda T: T.addcmul(T.tensor(I), T.tensor(J), 2))
grad_case("addcmul_grad", lambda T, x, y, z: T.addcmul(x, y, z, value=-1.5), A, B, C)
grad_case("addcdiv_grad", lambda T, x, y, z: T.addcdiv(x, y, z, value=0.75), A, B, C)
grad_case("addcmul_grad_broadcast", lambda T, x, y, z: T.addcmul(x, y, z), ROW, [[1.0], [2.0]], C)
grad_case("addcdiv_grad2", lambda T, x, y, z: T.addcdiv(x, y, z), A, B, C, order=2)

# ------------------------------------------------------------------------------ clamp / clip
CL = [1.0, NAN, -2.0, 5.0, 0.5, -0.0, INF, -INF]
cases("clamp_scalar", lambda T, lo, hi: T.clamp(T.tensor(CL), lo, hi), lo=[None, 0, -1.5, NAN], hi=[None, 3, 0.25, NAN],
      kind=lambda lo, hi: "error" if lo is None and hi is None else "value")
case("clamp_min_greater_than_max", lambda T: (T.clamp(T.tensor(CL), 3, 0), T.clamp(T.tensor(CL), T.tensor(3.0), T.tensor(0.0))))
case("clamp_kwargs", lambda T: (T.tensor(CL).clamp(min=0.5), T.tensor(CL).clamp(max=0.5), T.clamp(T.tensor(CL), min=-1, max=1)))
case("clip_alias", lambda T: (T.clip(T.tensor(CL), -1, 1), T.tensor(CL).clip(max=0.0), T.tensor(CL).clip_(0, 2)))
case("clamp_tensor_bounds", lambda T: T.clamp(T.tensor([1.0, NAN, -2.0, 5.0]), T.tensor([0.0, 0.0, NAN, 0.0]), T.tensor([3.0, 3.0, 3.0, NAN])))
case("clamp_tensor_one_bound", lambda T: (T.clamp(T.tensor(A), T.tensor(B)), T.clamp(T.tensor(A), max=T.tensor(ROW)), T.clamp(T.tensor(A), None, T.tensor(B))))
case("clamp_tensor_broadcast", lambda T: T.clamp(T.tensor(A), T.tensor([[-1.0], [0.0]]), T.tensor(ROW)))
cases("clamp_dtype", lambda T, dtype: T.clamp(T.tensor(I, dtype=dtype), 0, 2), dtype=[D.int8, D.int16, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64])
case("clamp_uint8", lambda T: (T.clamp(T.tensor([1, 2, 200], dtype=T.uint8), 3, 100), T.clamp(T.tensor([1, 2], dtype=T.uint8), -1),
                               T.clamp(T.tensor([1], dtype=T.uint8), min=-1, max=3), T.clamp_max(T.tensor([1], dtype=T.uint8), -1)))
case("clamp_promotes", lambda T: (T.clamp(T.tensor([1, 2, 3]), 0.5), T.clamp(T.tensor([1, 2, 3]), 0, 2), T.clamp(T.tensor([1, 2, 3]), T.tensor(0.5)),
                                  T.clamp(T.tensor([1, 2, 3]), T.tensor([1]), T.tensor([2.5])), T.clamp(T.tensor([1, 2, 3]), max=1e30)))
case("clamp_bool_promotes", lambda T: T.clamp(T.tensor([True, False]), 0, 1))
error_case("clamp_bool", lambda T: T.clamp(T.tensor([True, False]), False, True))
error_case("clamp_bool_tensor", lambda T: T.clamp(T.tensor([True, False]), T.tensor(False), T.tensor(True)))
error_case("clamp_none", lambda T: T.clamp(T.tensor([1.0, 2.0])))
error_case("clamp_tensor_none", lambda T: T.tensor([1.0, 2.0]).clamp(None, None))
cases("clamp_overflowing_bound", lambda T, dtype, v: T.clamp(T.tensor([1, 2], dtype=dtype), max=v), kind="error",
      dtype=[D.uint8, D.int8, D.int16], v=[300000])
error_case("clamp_overflow_int32", lambda T: T.clamp(T.tensor([1], dtype=T.int32), max=2 ** 40))
error_case("clamp_overflow_float32", lambda T: T.clamp(T.tensor([1.0]), max=1e300))
error_case("clamp_overflow_half", lambda T: T.clamp(T.tensor([1.0], dtype=T.float16), min=-70000))
error_case("clamp_overflow_bf16", lambda T: T.clamp(T.tensor([1.0], dtype=T.bfloat16), max=1e300))
error_case("clamp_min_overflow_uint8", lambda T: T.clamp_min(T.tensor([1], dtype=T.uint8), 300))
case("clamp_inf_bound_half", lambda T: (T.clamp(T.tensor([1.0], dtype=T.float16), min=INF), T.clamp(T.tensor([1.0], dtype=T.float16), min=NAN),
                                        T.clamp(T.tensor([1.0, 2.0, 3.0], dtype=T.float16), T.tensor(1e10))))
error_case("clamp_mixed_kinds", lambda T: T.tensor([1.0, 2.0]).clamp(1, max=T.tensor([2.0, 3.0])),
           match=r"^clamp\(\) received an invalid combination of arguments - got \(int, max=Tensor\), but expected one of:\n \* \(Tensor min = None, Tensor max = None\)\n")
error_case("clamp_inplace_shape", lambda T: T.tensor([1.0, 2.0]).clamp_(T.tensor([2.0, 3.0, 4.0])))
error_case("clamp_inplace_int_tensor_float", lambda T: T.tensor([1, 2]).clamp_(T.tensor(0.5)))
case("clamp_inplace", lambda T: (T.tensor(A).clamp_(-1, 1), T.tensor(A).clamp_(T.tensor(B), T.tensor(C)), T.tensor(A).clamp_min_(0.0),
                                 T.tensor(A).clamp_max_(T.tensor(B))))
case("clamp_out", lambda T: (lambda o: (T.clamp(T.tensor(A), -1, 1, out=o), T.clamp_min(T.tensor(A), T.tensor(B), out=o), o))(T.zeros(2, 3)))
case("clamp_min_max_fns", lambda T: (T.clamp_min(T.tensor(CL), 0.5), T.clamp_max(T.tensor(CL), 0.5), T.clamp_min(T.tensor(A), T.tensor(B)),
                                     T.clamp_max(T.tensor(A), T.tensor(B)), T.clamp_min(T.tensor([1.0, NAN]), NAN), T.clamp_max(T.tensor([1.0, NAN]), 0.0)))
case("clamp_min_int_promotes", lambda T: (T.tensor([1, 2]).clamp_min(0.5), T.tensor([1, 2]).clamp_max(T.tensor(0.5))))
case("clamp_zero_dim_and_empty", lambda T: (T.clamp(T.tensor(2.5), 0, 1), T.clamp(T.zeros(0, 2), 0, 1)))
case("clamp_transposed", lambda T: T.clamp(T.tensor(A).t(), -1, 1))
KINK = [-1.5, 0.0, 0.5, 2.0, 1.0, -1.0]
grad_case("clamp_grad_scalar", lambda T, x: (T.clamp(x, -1.0, 1.0), x.clamp(min=0.5), x.clamp(max=0.0)), KINK)
grad_case("clamp_grad_min_gt_max", lambda T, x: T.clamp(x, 1.0, -1.0), KINK)
grad_case("clamp_grad_tensor", lambda T, x, lo, hi: T.clamp(x, lo, hi), KINK, [-1.0, 0.5, 0.0, 3.0, 1.0, -2.0], [1.0, 0.0, 1.0, 2.5, 2.0, -1.5])
grad_case("clamp_grad_tensor_min_only", lambda T, x, lo: T.clamp(x, lo), KINK, [-1.0, 0.5, 0.0, 3.0, 1.0, -2.0])
grad_case("clamp_grad_tensor_max_only", lambda T, x, hi: T.clamp(x, max=hi), KINK, [1.0, 0.0, 1.0, 2.5, 2.0, -1.5])
grad_case("clamp_grad_tensor_const_bounds", lambda T, x, lo, hi: T.clamp(x, lo, hi), KINK, const([-1.0] * 6), [1.0, 0.0, 1.0, 2.5, 2.0, -1.5])
grad_case("clamp_min_max_grad", lambda T, x, y: (T.clamp_min(x, y), T.clamp_max(x, y), T.clamp_min(x, 0.5), T.clamp_max(x, 0.5)), KINK, [0.0, 0.0, 0.5, 1.0, 1.0, 0.0])
grad_case("clamp_grad_nan", lambda T, x: T.clamp(x, -1.0, 1.0), [NAN, 0.5, 2.0])
grad_case("clamp_grad2", lambda T, x: T.clamp(x, -1.0, 1.0) * x, KINK, order=2)
case("clamp_grad_fn_names", lambda T: [type(f(T.tensor(A, requires_grad=True)).grad_fn).__name__ for f in [
    lambda x: x.clamp(0, 1), lambda x: x.clamp(min=0.5), lambda x: x.clamp(T.tensor(0.0), T.tensor(1.0)),
    lambda x: x.clip(max=T.tensor(1.0)), lambda x: x.clamp_min(0.5), lambda x: x.clamp_max(0.5),
    lambda x: x.clamp_min(T.tensor(0.5)), lambda x: x.clamp_max(T.tensor(0.5)), lambda x: (x * 1).clamp_(0, 1)]])

# ------------------------------------------------------------------------------ where
M = [[True, False, True], [False, False, True]]
case("where_tensors", lambda T: T.where(T.tensor(M), T.tensor(A), T.tensor(B)))
case("where_method", lambda T: (T.tensor(A).where(T.tensor(M), T.tensor(B)), T.tensor(A).where(T.tensor(M), 0.0)))
case("where_scalars", lambda T: (T.where(T.tensor(M), T.tensor(A), 2.5), T.where(T.tensor(M), -1.0, T.tensor(A)), T.where(T.tensor(M), 1, 2.5),
                                 T.where(T.tensor(M), 1, 2), T.where(T.tensor(M), True, False)))
case("where_promotes", lambda T: (T.where(T.tensor(M), T.tensor(I), T.tensor(A)), T.where(T.tensor(M), T.tensor(I), 2.5),
                                  T.where(T.tensor(M), T.tensor(I, dtype=T.int8), T.tensor(J, dtype=T.int16)),
                                  T.where(T.tensor([True, False]), T.tensor([1, 2], dtype=T.float16), T.tensor(3.0, dtype=T.float64))))
cases("where_dtypes", lambda T, dtype: T.where(T.tensor(M), T.tensor(I, dtype=dtype), T.tensor(J, dtype=dtype)),
      dtype=[D.int8, D.int16, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64])
case("where_bool_values", lambda T: T.where(T.tensor(M), T.tensor(M), T.tensor([[False, True, False], [True, True, False]])))
case("where_uint8_scalar_wraps", lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2], dtype=T.uint8), -1))
error_case("where_scalar_overflows", lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2], dtype=T.int8), 200))
case("where_half_scalar_inf", lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2], dtype=T.float16), 1e6))
case("where_broadcast", lambda T: (T.where(T.tensor([[True], [False]]), T.tensor([1, 2]), 0), T.where(T.tensor(M), T.tensor(ROW), T.tensor([[0.5], [1.0]]))))
case("where_zero_dim_cond", lambda T: T.where(T.tensor(True), T.tensor([1, 2]), T.tensor([3, 4])))
case("where_nan_selected", lambda T: T.where(T.tensor([True, False]), T.tensor([NAN, 1.0]), T.tensor([2.0, NAN])))
case("where_transposed", lambda T: T.where(T.tensor(M).t(), T.tensor(A).t(), T.tensor(B).t()))
case("where_out", lambda T: (lambda o: (T.where(T.tensor(M), T.tensor(A), T.tensor(B), out=o), o))(T.zeros(2, 3)))
cases("where_cond_not_bool", lambda T, dtype: T.where(T.tensor([1, 0], dtype=dtype), T.tensor([1, 2]), T.tensor([3, 4])), kind="error",
      dtype=[D.int64, D.int8, D.float32, D.float16])
case("where_cond_uint8", lambda T: T.where(T.tensor([1, 0, 7], dtype=T.uint8), T.tensor([1, 2, 3]), T.tensor([3, 4, 5])))
error_case("where_shape", lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2]), T.tensor([3, 4, 5])))
error_case("where_python_bool_cond", lambda T: T.where(True, T.tensor([1, 2]), T.tensor([3, 4])),
           match=r"^where\(\) received an invalid combination of arguments - got \(bool, Tensor, Tensor\), but expected one of:\n \* \(Tensor condition\)\n \* \(Tensor condition, Tensor input, Tensor other, \*, Tensor out = None\)\n")
grad_case("where_grad", lambda T, x, y: T.where(T.tensor(M), x, y), A, B)
grad_case("where_grad_scalar", lambda T, x: (T.where(T.tensor(M), x, 0.0), T.where(T.tensor(M), 2.0, x)), A)
grad_case("where_grad_broadcast", lambda T, x, y: T.where(T.tensor(M), x, y), ROW, [[0.5], [1.0]])
grad_case("where_grad_nan_not_multiplied", lambda T, x: T.where(x > 0, x.sqrt(), T.zeros_like(x)), [4.0, -1.0, 0.25, -9.0])
grad_case("where_grad2", lambda T, x, y: T.where(T.tensor(M), x * y, y * y), A, B, order=2)
case("where_grad_fn", lambda T: [[None if n is None else type(n).__name__ for n, _ in g.grad_fn.next_functions] + [type(g.grad_fn).__name__]
                                 for g in [T.where(T.tensor(M), T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)),
                                           T.where(T.tensor(M), T.tensor(A, requires_grad=True), 2.0)]])
# torch.where(condition): nonzero as a tuple of index tensors
case("where_one_arg", lambda T: (T.where(T.tensor([True, False, True])), T.where(T.tensor([[1, 0], [0, 3]])), T.where(T.tensor(M))))
case("where_one_arg_0d", lambda T: (T.where(T.tensor(True)), T.where(T.tensor(False)), T.where(T.tensor(2.5))))
case("where_one_arg_empty", lambda T: (T.where(T.zeros(0, 2)), T.where(T.zeros(2, 3)), T.where(T.tensor([[NAN, 0.0]]))))
case("where_one_arg_transposed", lambda T: T.where(T.tensor(M).t()))
cases("where_out_dtype", lambda T, od: T.where(T.tensor([True, False]), T.tensor([1, 2]), T.tensor([3, 4]), out=T.zeros(2, dtype=od)), kind="error",
      od=[D.float32, D.int32])
cases("float_power_out_dtype", lambda T, od: T.float_power(T.tensor([1.0, 2.0]), 2, out=T.zeros(2, dtype=od)), kind="error",
      od=[D.float32, D.int64])
case("float_power_out", lambda T: (lambda o: (T.float_power(T.tensor([1.5, 2.0]), T.tensor([2.0, 0.5]), out=o), T.float_power(2, T.tensor([1, 3]), out=o), o))(T.zeros(2, dtype=T.float64)))
case("clamp_bool_one_bound", lambda T: (T.clamp_min(T.tensor([True, False]), T.tensor([False, True])), T.clamp(T.tensor([True, False]), min=T.tensor(True)),
                                        T.clamp_max(T.tensor([True, False]), T.tensor(False)), T.clamp_min(T.tensor([True, False]), 1)))
cases("clamp_bool_scalar_one_bound", lambda T, which: T.clamp(T.tensor([True, False]), **{which: True}), kind="error", which=["min", "max"])
cases("clamp_min_max_bool_scalar", lambda T, f: getattr(T, f)(T.tensor([True, False]), True), kind="error", f=["clamp_min", "clamp_max"])
CLAMP_INPLACE = {"clamp_": lambda T, x: x.clamp_(0.5), "clamp_min_": lambda T, x: x.clamp_min_(0.5),
                 "clamp_max_": lambda T, x: x.clamp_max_(0.5), "clip_": lambda T, x: x.clip_(max=0.5),
                 "torch_clamp_": lambda T, x: T.clamp_(x, 0, 1.5), "clamp_tensor": lambda T, x: x.clamp_(T.tensor(0.5)),
                 "clamp_min_tensor": lambda T, x: x.clamp_min_(T.tensor(0.5))}
cases("clamp_inplace_int_float_bound", lambda T, f: CLAMP_INPLACE[f](T, T.tensor([1, 2])), kind="error", f=list(CLAMP_INPLACE))
case("clamp_inplace_int_int_bound", lambda T: (T.tensor([1, 5]).clamp_(0, 3), T.tensor([1, 5], dtype=T.uint8).clamp_min_(2)))

# ------------------------------------------------------------------------------ add / sub with alpha, bit for bit
# torch rounds b * alpha + a once (alpha in float for float32; in the type itself for float16 / bfloat16, whose
# contiguous loop then fuses in float 32 elements at a time and rounds twice in the rest): 520 uneven values
# (16 x 32 + 8), compared exactly
ALPHA_A = [((i * 7919) % 2003 - 1001) / 37.0 for i in range(520)]
ALPHA_B = [((i * 104729) % 1999 - 999) / 13.0 for i in range(520)]
ALPHA_LAYOUTS = {
    "contig": lambda T, d, dt: T.tensor(d, dtype=dt),
    "step": lambda T, d, dt: T.tensor([v for x in d for v in (x, -x)], dtype=dt)[::2],
    "t": lambda T, d, dt: T.tensor(d, dtype=dt).reshape(20, 26).t(),
    "scalar": lambda T, d, dt: T.tensor(d[:1], dtype=dt).expand(len(d)),
}


def _alpha_op(T, op, alpha, dtype, la, lb):
    a = ALPHA_LAYOUTS[la](T, ALPHA_A, dtype)
    b = ALPHA_LAYOUTS[lb](T, ALPHA_B, dtype)
    if la == "t" or lb == "t":  # both [26, 20]
        a = a if la == "t" else a.reshape(26, 20)
        b = b if lb == "t" else b.reshape(26, 20)
    if lb == "scalar":  # 512: torch's float32 / float64 tail after a broadcast scalar is its compiler's (bits vary)
        a, b = a[:512], b[:512]
    if op == "add_":
        return a.clone().add_(b, alpha=alpha)
    if op == "out":
        return T.add(a, b, alpha=alpha, out=T.empty(0, dtype=dtype))
    return getattr(T, op)(a, b, alpha=alpha)


cases("alpha_bits", _alpha_op, op=["add", "sub", "add_"], alpha=[0.1, 3], dtype=FLOATS, la=["contig", "step"],
      lb=["contig", "scalar"], rtol=0, atol=0)
cases("alpha_bits_layouts", _alpha_op, op=["add", "out"], alpha=[0.37], dtype=FLOATS,
      la=["contig", "step", "t"], lb=["step", "t"], rtol=0, atol=0)
# float16 / bfloat16 runs: a 40010-element add is split between threads (two runs of 20005, each with a tail), and
# rows sliced out of a wider tensor are runs of 50 each: the elements around the run ends are compared
ALPHA_BIG = [((i * 7919) % 2003 - 1001) / 37.0 for i in range(40010)]
cases("alpha_bits_runs", lambda T, dtype, shape: (lambda a: (lambda r: (r[19960:20040], r[-40:]) if shape == "flat"
                                                                       else (r[:3], r[-3:]))(
          T.add(a, a.flip(0), alpha=0.37)))(
          T.tensor(ALPHA_BIG, dtype=dtype) if shape == "flat" else T.tensor(ALPHA_BIG[:40000], dtype=dtype).reshape(625, 64)[:, :50]),
      dtype=[D.float16, D.bfloat16, D.float32], shape=["flat", "rows"], rtol=0, atol=0)
# alpha must convert to the result's type without overflow (torch's alpha.to<scalar_t>()); bool takes alpha != 0.
# Each point gives the sum or the error's text, whichever torch gives.
def _add_alpha_outcome(T, dtype, alpha):
    try:
        return T.add(T.tensor([1, 2], dtype=dtype), T.tensor([1, 0], dtype=dtype), alpha=alpha)
    except RuntimeError as e:
        return str(e)


cases("alpha_range", _add_alpha_outcome, dtype=[D.int8, D.uint8, D.int16, D.float16, D.bfloat16, D.float32, D.bool],
      alpha=[1000, -300, 70000, -1, -200, 256, 65519, 65520, 1e40, 3])

# xlogy in float16 / bfloat16 rounds log(y) to the type before the product (torch's scalar kernel)
XLOGY_X = [1.5, -2.25, 3.0, 0.7, 1e-3, 5.5, 0.0, 2.0, -0.375, 9.0]
XLOGY_Y = [3.0, 0.3, 7.5, 2.2, 11.0, 0.9, 0.0, NAN, 1.25, 0.05]
cases("xlogy_reduced_bits", lambda T, dtype: T.xlogy(T.tensor(XLOGY_X, dtype=dtype), T.tensor(XLOGY_Y, dtype=dtype)),
      dtype=[D.float16, D.bfloat16], rtol=0, atol=0)


# out= dtype rules: clamp with scalar bounds and heaviside want out's dtype exact; clamp with tensor bounds casts
def _out_rule(T, which, out_dtype):
    x = T.tensor([1.5, -2.25, 3.0], dtype=T.float64)
    out = T.empty(0, dtype=out_dtype)
    try:
        return {"clamp_scalar": lambda: T.clamp(x, min=2, out=out), "clamp_max": lambda: T.clamp(x, max=2, out=out),
                "clamp_min_fn": lambda: T.clamp_min(x, 2, out=out),
                "clamp_tensor": lambda: T.clamp(x, min=T.tensor(2.), out=out),
                "clamp_int": lambda: T.clamp(T.tensor([1, 2, 3]), min=2, out=out),
                "heaviside": lambda: T.heaviside(x, x, out=out)}[which]()
    except RuntimeError as e:
        return str(e)


cases("out_dtype_rules", _out_rule, which=["clamp_scalar", "clamp_max", "clamp_min_fn", "clamp_tensor", "clamp_int",
                                           "heaviside"], out_dtype=[D.float64, D.float16, D.int64])

# Note [Checks before the kernel]: torch builds the TensorIterator (broadcast, an in-place output's shape, the cast of
# the result into the output) before its dtype dispatch refuses the dtype; each call here has two faults at once.
_ORDER_OPS = {"bitwise_and": lambda T, a, b, **k: T.bitwise_and(a, b, **k), "bitwise_left_shift": lambda T, a, b, **k: T.bitwise_left_shift(a, b, **k),
              "gcd": lambda T, a, b, **k: T.gcd(a, b, **k), "hypot": lambda T, a, b, **k: T.hypot(a, b, **k),
              "nextafter": lambda T, a, b, **k: T.nextafter(a, b, **k), "bitwise_xor": lambda T, a, b, **k: T.bitwise_xor(a, b, **k)}
_BAD = {"bitwise_and": "float32", "bitwise_left_shift": "float64", "gcd": "float32", "hypot": "int64", "nextafter": "int32",
        "bitwise_xor": "bfloat16"}


def _order_case(T, op, fault):
    dt = getattr(T, _BAD[op])
    a, b = T.ones(3, dtype=dt), T.ones(3, dtype=dt)
    if fault == "broadcast":
        return _ORDER_OPS[op](T, a, T.ones(2, dtype=dt))
    if fault == "inplace_shape":
        return getattr(a, op + "_")(T.ones(2, 3, dtype=dt))
    if fault == "inplace_cast":
        return getattr(T.ones(3, dtype=T.bool), op + "_")(b)
    return _ORDER_OPS[op](T, a, b, out=T.empty(0, dtype=T.bool))  # out_cast


cases("error_order_before_dtype", _order_case, op=sorted(_ORDER_OPS), fault=["broadcast", "inplace_shape", "inplace_cast", "out_cast"],
      kind="error")
