"""Elementwise arithmetic: + - * / // % ** with torch's type promotion (tensor-tensor, tensor-Python scalar,
0-d tensors, wrapped numbers, uint8 wrap-around), reflected and in-place forms, alpha=, rounding modes, integer
division by zero, pow's three overloads, grad_fn names of every spelling, and gradients."""
from .harness import *  # noqa: F401,F403

NAN, INF = float("nan"), float("inf")
A = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
B = [[-0.5, 1.75, 2.0], [0.125, -3.0, 1.5]]
I = [[-7, 7, -7], [7, 5, -3]]
J = [[2, 2, -2], [-2, 3, 2]]
POS = [[0.5, 1.25, 2.0], [0.3, 3.75, 1.5]]
ROW = [[2.0, -0.5, 1.5]]
COL = [[0.5], [-1.5]]

OPS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "truediv": lambda x, y: x / y, "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y,
    "pow": lambda x, y: x ** y,
}
SCALARS = [2, -3, 2.5, True, -0.5]

# ------------------------------------------------------------------------------ operators and promotion
cases("op_tensor_tensor", lambda T, op, dtype: OPS[op](T.tensor(A, dtype=dtype), T.tensor(B, dtype=dtype)),
      op=list(OPS), dtype=FLOAT)
cases("op_tensor_scalar", lambda T, op, s: OPS[op](T.tensor(A), s), op=list(OPS), s=[2, -3, 2.5, -0.5])
cases("op_scalar_tensor", lambda T, op, s: OPS[op](s, T.tensor(POS)), op=list(OPS), s=[2, -3, 2.5, -0.5])
cases("op_int_int", lambda T, op: OPS[op](T.tensor(I), T.tensor(J)), op=[o for o in OPS if o != "pow"])
cases("op_int_scalar", lambda T, op, s: OPS[op](T.tensor(I), s), op=list(OPS), s=[2, 3, 2.5, True],
      kind=lambda op, s: "error" if (op == "sub" and s is True) else "value")
cases("op_scalar_int", lambda T, op, s: OPS[op](s, T.tensor(J)), op=["add", "sub", "mul", "truediv", "floordiv", "mod"],
      s=[7, -7, 2.5])
cases("op_promote_dtypes", lambda T, op, d1, d2: OPS[op](T.tensor([[5, 3]], dtype=d1), T.tensor([[2], [1]], dtype=d2)),
      op=["add", "mul", "truediv", "floordiv", "mod", "sub"],
      d1=[D.uint8, D.int8, D.int32, D.float16, D.float32],
      d2=[D.int8, D.int64, D.bfloat16, D.float64])
cases("op_zero_dim_promotion", lambda T, op, d: OPS[op](T.tensor([4, 6], dtype=T.int32), T.tensor(2, dtype=d)),
      op=["add", "mul", "truediv", "sub"], d=[D.int64, D.float64, D.float16, D.int8])
cases("op_zero_dim_float_keeps_half", lambda T, op: OPS[op](T.tensor([1.5, 2.5], dtype=T.float16), T.tensor(2.0, dtype=T.float64)),
      op=["add", "mul", "truediv"])
cases("op_bool_scalar", lambda T, op, s: OPS[op](T.tensor([True, False]), s), op=["add", "mul", "truediv"],
      s=[True, 2, 1.5])
case("bool_plus_bool", lambda T: T.tensor([True, False]) + T.tensor([True, True]))
case("bool_times_bool", lambda T: T.tensor([True, False]) * T.tensor([True, True]))
cases("uint8_wraps", lambda T, s: T.tensor([1, 2, 250], dtype=T.uint8) + s, s=[-1, 300, 10])
case("uint8_sub_wraps", lambda T: T.tensor([1, 2], dtype=T.uint8) - T.tensor([3, 1], dtype=T.uint8))
case("int8_mul_wraps", lambda T: T.tensor([100, -100], dtype=T.int8) * T.tensor(3, dtype=T.int8))
case("int8_plus_large_scalar", lambda T: T.tensor([1, 2], dtype=T.int8) + 1000)
case("int_true_division", lambda T: T.tensor([-7, 7]) / T.tensor([2, 2]))
case("int_div_by_zero_is_inf", lambda T: T.tensor([1, 0, -1]) / 0)
case("float_div_by_zero", lambda T: T.tensor([1.0, 0.0, -1.0]) / 0.0)
case("broadcast_row_col", lambda T: T.tensor(ROW) * T.tensor(COL))
case("broadcast_0d", lambda T: T.tensor(A) + T.tensor(2.5))
case("zero_dim_result", lambda T: T.tensor(2.5) * T.tensor(4))
case("empty_broadcast", lambda T: T.zeros(0, 3) + T.tensor(ROW))
case("transposed_operands", lambda T: T.tensor(A).t() * T.tensor(B).t())
case("transposed_result_strides", lambda T: (T.tensor(A).t() + T.tensor(B).t()).stride())
case("expanded_operand", lambda T: T.tensor(COL).expand(2, 3) - T.tensor(A))
error_case("broadcast_mismatch", lambda T: T.tensor([1., 2., 3.]) + T.tensor([1., 2.]))
error_case("add_str", lambda T: T.tensor([1.]) + "a")
error_case("floordiv_str", lambda T: T.tensor([1.]) // "a")
error_case("pow_str", lambda T: T.tensor([1.]) ** "a")
error_case("rpow_str", lambda T: "a" ** T.tensor([1.]))
error_case("mod_none", lambda T: T.tensor([1.]) % None)

# ------------------------------------------------------------------------------ function spellings
cases("add_alpha", lambda T, alpha: T.add(T.tensor(A), T.tensor(B), alpha=alpha), alpha=[2, -0.5, 0])
cases("sub_alpha", lambda T, alpha: T.tensor(A).sub(T.tensor(B), alpha=alpha), alpha=[2, -0.5])
case("subtract_alias", lambda T: T.subtract(T.tensor(A), T.tensor(B), alpha=2))
case("multiply_alias", lambda T: (T.multiply(T.tensor(A), 3), T.tensor(A).multiply(T.tensor(B))))
case("divide_alias", lambda T: (T.divide(T.tensor(A), 3), T.tensor(A).divide(T.tensor(B), rounding_mode="floor")))
case("true_divide", lambda T: (T.true_divide(T.tensor(I), T.tensor(J)), T.tensor(I).true_divide(2)))
case("add_int_alpha", lambda T: T.add(T.tensor(I), T.tensor(J), alpha=3))
error_case("add_int_float_alpha", lambda T: T.add(T.tensor(I), T.tensor(J), alpha=0.5))
error_case("add_bool_alpha_int", lambda T: T.add(T.tensor(I), T.tensor(J), alpha=True))
case("add_bool_alpha_bool", lambda T: T.add(T.tensor([True, False]), T.tensor([True, True]), alpha=True))
cases("div_rounding", lambda T, mode, dtype: T.div(T.tensor(I, dtype=dtype), T.tensor(J, dtype=dtype), rounding_mode=mode),
      mode=[None, "trunc", "floor"], dtype=[D.int64, D.int8, D.float32, D.float64])
cases("div_rounding_scalar", lambda T, mode: T.tensor(A).div(-2, rounding_mode=mode), mode=["trunc", "floor"])
cases("div_rounding_special", lambda T, mode: T.div(T.tensor([-7., 7, 0, 1, -0.0, NAN, INF]), T.tensor([2., -2, 0, 0, 3, 1, 2]), rounding_mode=mode),
      mode=["trunc", "floor"])
error_case("div_bad_rounding", lambda T: T.div(T.tensor(A), 2, rounding_mode="round"))
cases("div_rounding_by_zero_int", lambda T, mode: T.div(T.tensor([1, 2]), 0, rounding_mode=mode), kind="error",
      mode=["trunc", "floor"])
error_case("div_rounding_bool", lambda T: T.div(T.tensor([True]), T.tensor([True]), rounding_mode="floor"))
cases("rsub", lambda T, other: T.rsub(T.tensor(A), other), other=[2, 2.5, "tensor"] and [2, 2.5])
case("rsub_tensor", lambda T: T.rsub(T.tensor(A), T.tensor(B)))
case("rsub_alpha", lambda T: (T.rsub(T.tensor(A), T.tensor(B), alpha=2), T.rsub(T.tensor(A), 3, 2)))
error_case("sub_bool", lambda T: T.tensor([True]) - T.tensor([False]))
error_case("sub_bool_one", lambda T: T.tensor([True]) - T.tensor([1]))
error_case("rsub_bool", lambda T: 1 - T.tensor([True]))

# ------------------------------------------------------------------------------ floor_divide, remainder, fmod
cases("floor_divide", lambda T, dtype: T.floor_divide(T.tensor(I, dtype=dtype), T.tensor(J, dtype=dtype)),
      dtype=[D.int8, D.int16, D.int32, D.int64, D.float16, D.float32, D.float64])
case("floor_divide_uint8", lambda T: T.tensor([5, 200], dtype=T.uint8) // T.tensor([2, 3], dtype=T.uint8))
case("floor_divide_method_scalar", lambda T: (T.tensor(A).floor_divide(0.75), T.floor_divide(T.tensor(I), -2)))
case("floor_divide_special", lambda T: T.tensor([-7., 7, -7, 7, 0, 1., -0.0, 0.0]) // T.tensor([2., 2, -2, -2, 0, 0, 2, -2]))
case("floordiv_min_int", lambda T: (T.tensor([-128], dtype=T.int8) // T.tensor([-1], dtype=T.int8),
                                    T.tensor([-9223372036854775808]) // -1, T.tensor([-9223372036854775808]) % -1))
error_case("floor_divide_bool", lambda T: T.tensor([True]) // T.tensor([True]))
error_case("floordiv_by_zero_int", lambda T: T.tensor([1, 2]) // 0)
error_case("floordiv_by_zero_tensor", lambda T: T.tensor([1, 2]) // T.tensor([1, 0]))
cases("remainder", lambda T, dtype: T.remainder(T.tensor(I, dtype=dtype), T.tensor(J, dtype=dtype)),
      dtype=[D.int8, D.int16, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64])
cases("fmod", lambda T, dtype: T.fmod(T.tensor(I, dtype=dtype), T.tensor(J, dtype=dtype)),
      dtype=[D.int8, D.int16, D.int32, D.int64, D.float16, D.float32, D.float64])
case("remainder_signs", lambda T: T.tensor([-7., 7, -7, 7, 5, -0.0, 0.0, -2.0]) % T.tensor([3., 3, -3, -3, 0, 2, -2, 2]))
case("fmod_signs", lambda T: T.fmod(T.tensor([-7., 7, -7, 7, 5, -0.0, -2.0]), T.tensor([3., 3, -3, -3, 0, 2, 2])))
case("remainder_tiny", lambda T: (T.remainder(T.tensor([1e20, -1e-20]), 3.), T.floor_divide(T.tensor([1e20]), 3)))
case("remainder_scalar_forms", lambda T: (T.remainder(T.tensor(A), 0.75), T.tensor(I).remainder(4),
                                          T.remainder(5, T.tensor(J)), T.remainder(5.5, T.tensor(J))))
case("fmod_scalar_forms", lambda T: (T.fmod(T.tensor(A), 0.75), T.tensor(I).fmod(-4)))
error_case("remainder_by_zero_int", lambda T: T.tensor([1, 2]) % 0)
error_case("fmod_by_zero_int", lambda T: T.fmod(T.tensor([1, 2]), 0))
error_case("remainder_bool", lambda T: T.tensor([True]) % T.tensor([True]))
error_case("fmod_bool", lambda T: T.fmod(T.tensor([True]), T.tensor([True])))
case("mod_int_float_scalar", lambda T: T.tensor([1, 2]) % 1.5)
case("rmod", lambda T: (5 % T.tensor([2, 3]), 5.5 % T.tensor([2, 3]), -5 % T.tensor([2, -3])))
case("rfloordiv", lambda T: (7 // T.tensor([2, -3]), 7.5 // T.tensor([2., -3.])))

# ------------------------------------------------------------------------------ pow
case("pow_int_square", lambda T: T.tensor(I) ** 2)
case("pow_int_float_exp", lambda T: T.tensor([1, 2, 3]) ** 2.5)
error_case("pow_int_negative", lambda T: T.tensor([1, 2, 3]) ** -1)
error_case("pow_int_negative_method", lambda T: T.tensor([1, 2, 3]).pow(-2))
case("pow_int_tensor_negative", lambda T: T.tensor([1, 2, 3, -1, -1, 0, 2]) ** T.tensor([-1, -1, 2, -1, -2, 2, 0]))
case("pow_zero_dim_negative", lambda T: T.tensor([1, 2, 3]) ** T.tensor(-1))
case("pow_bool", lambda T: (T.tensor([True, False]) ** 2, T.tensor([True, False]) ** True,
                            T.tensor([True, False]) ** False, T.tensor([True, False]) ** 2.0))
error_case("pow_bool_bool_tensor", lambda T: T.tensor([True, False]) ** T.tensor([True, False]))
case("rpow", lambda T: (2 ** T.tensor([1, 2, 3]), 2.5 ** T.tensor([1, 2, 3]), 2 ** T.tensor([1., 2., 3.]),
                        True ** T.tensor([1, 2]), 2 ** T.tensor([True, False]), 2 ** T.tensor([1, 2, -1])))
case("rpow_zero_base", lambda T: (0 ** T.tensor([-1, 0, 2]), 0. ** T.tensor([-1, 0, 2]), -1 ** T.tensor([-1, -2, 3])))
case("pow_wraps", lambda T: (T.pow(T.tensor([1, 2], dtype=T.uint8), 9), T.pow(T.tensor([3], dtype=T.int8), T.tensor([5], dtype=T.int8)),
                             T.pow(T.tensor([1, 2]), 63)))
error_case("pow_exp_overflows_int8", lambda T: T.pow(T.tensor([2, 3], dtype=T.int8), 200))
case("pow_special", lambda T: (T.pow(T.tensor([-8., 8.]), 1 / 3), T.pow(T.tensor([0., -0.]), -1), T.pow(T.tensor([NAN, 0.]), 0),
                               T.pow(1, T.tensor([NAN])), T.pow(T.tensor([0., 2.]), 0)))
cases("pow_fast_paths", lambda T, e, dtype: T.tensor([[0.5, 1.25, 2.0], [0.3, 3.75, 1.5]], dtype=dtype) ** e,
      e=[2, 3, 0.5, -0.5, -1, -2, 1.5, 0, 1, -3], dtype=[D.float32, D.float64, D.float16])
case("pow_functions", lambda T: (T.pow(T.tensor(POS), 2), T.pow(T.tensor(POS), T.tensor(A)), T.pow(2, T.tensor(A)),
                                 T.tensor(POS).pow(T.tensor(B)), T.tensor(POS).pow(0.5)))
case("pow_out", lambda T: (lambda o: (T.pow(T.tensor(POS), 2, out=o), o))(T.zeros(2, 3)))
case("pow_scalar_out", lambda T: (lambda o: (T.pow(2, T.tensor(POS), out=o), o))(T.zeros(2, 3)))
error_case("pow_out_int", lambda T: T.pow(T.tensor([2., 3.]), 2, out=T.tensor([1, 2])))
case("pow_int_int_dtype", lambda T: T.pow(T.tensor([2, 3], dtype=T.int16), T.tensor([3, 2], dtype=T.int8)))
case("pow_half_scalar_base", lambda T: (T.pow(2, T.tensor([2., 3.], dtype=T.float16)), T.pow(2.5, T.tensor([2, 3], dtype=T.int8))))
case("float_power", lambda T: (T.float_power(T.tensor([2, 3]), 2), T.float_power(2, T.tensor([2, 3])),
                               T.float_power(T.tensor([2., 3.]), T.tensor([2, 3])), T.tensor(POS).float_power(0.5)))
grad_case("float_power_grad", lambda T, x, y: (T.float_power(x, y), T.float_power(x, 2), T.float_power(2, y)), POS, B)
case("square_is_pow", lambda T: (T.square(T.tensor(I)), T.tensor(A).square()))

# ------------------------------------------------------------------------------ in-place forms
case("iadd", lambda T: (lambda x: (x.__iadd__(T.tensor(B)), x))(T.tensor(A)))
case("iadd_operator_same_object", lambda T: (lambda x, y: (x, x is y))(*(lambda x: (x.add_(1), x))(T.tensor(A))))


def _aug(T, x, op, y):
    z = x
    if op == "+=":
        x += y
    elif op == "-=":
        x -= y
    elif op == "*=":
        x *= y
    elif op == "/=":
        x /= y
    elif op == "//=":
        x //= y
    elif op == "%=":
        x %= y
    elif op == "**=":
        x **= y
    return x, x is z


cases("augmented", lambda T, op, y: _aug(T, T.tensor(POS), op, y), op=["+=", "-=", "*=", "/=", "//=", "%=", "**="],
      y=[2, 0.5, "t"] and [2, 0.5])
cases("augmented_tensor", lambda T, op: _aug(T, T.tensor(POS), op, T.tensor(B)), op=["+=", "-=", "*=", "/=", "//=", "%=", "**="])
cases("augmented_int", lambda T, op: _aug(T, T.tensor(I), op, 2), op=["+=", "-=", "*=", "//=", "%=", "**="])
cases("augmented_int_float_error", lambda T, op: _aug(T, T.tensor(I), op, 1.5), kind="error",
      op=["+=", "-=", "*=", "/=", "//=", "%=", "**="])
error_case("int_iadd_float", lambda T: T.tensor([1, 2]).add_(0.5))
error_case("int_idiv", lambda T: T.tensor([1, 2]).div_(2))
case("int_idiv_floor", lambda T: T.tensor([7, -7]).div_(2, rounding_mode="floor"))
case("float_idiv_int", lambda T: T.tensor([7., -7.]).div_(T.tensor([2, 3])))
case("int8_iadd_int32", lambda T: T.tensor([1, 2], dtype=T.int8).add_(T.tensor([1], dtype=T.int32)))
case("float_iadd_double", lambda T: T.tensor([1., 2.]).add_(T.tensor([0.1, 0.2], dtype=T.float64)))
error_case("inplace_broadcast_self", lambda T: T.tensor([[1.], [2.]]).add_(T.tensor([[1., 2., 3.]])))
cases("inplace_methods", lambda T, m, y: getattr(T.tensor(POS), m)(y),
      m=["add_", "sub_", "mul_", "div_", "pow_", "floor_divide_", "remainder_", "fmod_", "true_divide_"], y=[2, 0.5])
case("add_alpha_inplace", lambda T: T.tensor(A).add_(T.tensor(B), alpha=-2))
case("sub_alpha_inplace", lambda T: T.tensor(A).sub_(T.tensor(B), alpha=0.5))
case("pow_inplace_tensor", lambda T: T.tensor(POS).pow_(T.tensor([2, 3, 1])))
error_case("pow_inplace_int_float", lambda T: T.tensor([2, 3]).pow_(2.5))
case("pow_inplace_int", lambda T: T.tensor([2, 3]).pow_(2))
case("out_variants", lambda T: [(lambda o: (getattr(T, f)(T.tensor(A), T.tensor(B), out=o), o)[1])(T.zeros(2, 3))
                                for f in ["add", "sub", "mul", "div", "remainder", "fmod", "floor_divide", "true_divide", "pow"]])
case("out_int_dtype_cast", lambda T: (lambda o: (T.add(T.tensor([1, 2]), T.tensor([3, 4]), out=o), o))(T.zeros(2)))
error_case("out_float_into_int", lambda T: T.add(T.tensor([1.5]), 1, out=T.tensor([0])))

# ------------------------------------------------------------------------------ autograd: names and grads
NAMES = {
    "x + 2": lambda T, x, y: x + 2, "2 + x": lambda T, x, y: 2 + x, "x - 2": lambda T, x, y: x - 2,
    "2 - x": lambda T, x, y: 2 - x, "x * 2": lambda T, x, y: x * 2, "x / 2": lambda T, x, y: x / 2,
    "2 / x": lambda T, x, y: 2 / x, "x ** 2": lambda T, x, y: x ** 2, "2 ** x": lambda T, x, y: 2 ** x,
    "x ** y": lambda T, x, y: x ** y, "x // 2": lambda T, x, y: x // 2, "x % 2": lambda T, x, y: x % 2,
    "x % y": lambda T, x, y: x % y, "2 % x": lambda T, x, y: 2 % x, "x + y": lambda T, x, y: x + y,
    "rsub": lambda T, x, y: T.rsub(x, y), "rsub s": lambda T, x, y: T.rsub(x, 2), "true_divide": lambda T, x, y: T.true_divide(x, y),
    "div floor": lambda T, x, y: T.div(x, y, rounding_mode="floor"), "div None": lambda T, x, y: T.div(x, y, rounding_mode=None),
    "fmod": lambda T, x, y: T.fmod(x, y), "fmod s": lambda T, x, y: T.fmod(x, 2), "pow 0d": lambda T, x, y: T.pow(x, T.tensor(2.)),
    "floor_divide": lambda T, x, y: T.floor_divide(x, y), "square": lambda T, x, y: x.square(),
}
case("grad_fn_names", lambda T: {k: type(f(T, T.tensor(POS, requires_grad=True), T.tensor(B, requires_grad=True)).grad_fn).__name__
                                 for k, f in NAMES.items()})
case("grad_fn_next_functions", lambda T: [
    [None if n is None else type(n).__name__ for n, _ in f(T, T.tensor(POS, requires_grad=True), T.tensor(B, requires_grad=True)).grad_fn.next_functions]
    for f in [NAMES["x + 2"], NAMES["2 - x"], NAMES["2 / x"], NAMES["x ** 2"], NAMES["x ** y"], NAMES["2 ** x"]]])
cases("grad", lambda T, x, y, op: OPS[op](x, y), POS, B, kind="grad", op=[o for o in OPS if o not in ("floordiv",)])
cases("grad_scalar_right", lambda T, x, op: OPS[op](x, 2.5), POS, kind="grad", op=[o for o in OPS if o != "floordiv"])
cases("grad_scalar_left", lambda T, x, op: OPS[op](2.5, x), POS, kind="grad", op=["add", "sub", "mul", "truediv", "pow"])
cases("grad_broadcast", lambda T, x, y, op: OPS[op](x, y), A, ROW, kind="grad", op=["add", "sub", "mul", "truediv"])
cases("grad_broadcast_col", lambda T, x, y, op: OPS[op](x, y), COL, B, kind="grad", op=["add", "sub", "mul", "truediv"])
cases("grad2", lambda T, x, y, op: OPS[op](x, y), POS, B, kind="grad", order=2, op=["mul", "truediv", "pow"])
grad_case("grad_pow_scalar2", lambda T, x: x ** 3, A, order=2)
grad_case("grad_rpow2", lambda T, x: 2.0 ** x, A, order=2)
grad_case("grad_pow_zero_base", lambda T, x, y: x ** y, [0.0, 0.0, 2.0, 0.0], [2.0, 0.0, 0.5, -1.0])
grad_case("grad_pow_exp_zero", lambda T, x: x ** 0, [0.0, 1.5])
grad_case("grad_rpow_zero_base", lambda T, y: 0.0 ** y, [2.0, 0.0, 0.5])
grad_case("grad_alpha", lambda T, x, y: T.add(x, y, alpha=-1.5), A, B)
grad_case("grad_sub_alpha", lambda T, x, y: T.sub(x, y, alpha=2.5), A, B)
grad_case("grad_rsub", lambda T, x, y: (T.rsub(x, y, alpha=2), T.rsub(x, 3.0)), A, B)
grad_case("grad_div_rounding_zero", lambda T, x, y: T.div(x, y, rounding_mode="trunc"), A, B)
grad_case("grad_remainder_fmod", lambda T, x, y: (T.remainder(x, y), T.fmod(x, y), x % 1.5, T.fmod(x, -1.5)), A, B)
grad_case("grad_const_operand", lambda T, x, y: x * y, A, const(B))
grad_case("grad_inplace_chain", lambda T, x, y: (x * 1).add_(y).mul_(y).pow_(2).sub_(y, alpha=0.5).div_(2.0), POS, B)
grad_case("grad_iadd_operator", lambda T, x, y: _aug(T, x * 1, "+=", y)[0], POS, B)
grad_case("grad_ipow_operator", lambda T, x, y: _aug(T, x * 1, "**=", y)[0], POS, B)
grad_case("grad_float64", lambda T, x, y: (x * y, x / y, x ** y, x - y), inp(POS, dtype=D.float64), inp(B, dtype=D.float64))
grad_case("grad_mixed_dtype", lambda T, x, y: x * y, inp(POS, dtype=D.float64), inp(B))
grad_case("grad_transposed", lambda T, x, y: x * y, inp(A, view=lambda t: t.t()), inp(B, view=lambda t: t.t()))
grad_case("grad_zero_dim", lambda T, x, y: x * y, 2.5, A)
error_case("floor_divide_backward", lambda T: (T.tensor(POS, requires_grad=True) // 2).sum().backward())
error_case("rmod_backward", lambda T: (2 % T.tensor(POS, requires_grad=True)).sum().backward())
case("floor_divide_no_grad_needed", lambda T: (T.tensor(POS, requires_grad=True) // 2).requires_grad)
error_case("inplace_on_leaf", lambda T: T.tensor(POS, requires_grad=True).add_(1))
error_case("iadd_on_leaf", lambda T: _aug(T, T.tensor(POS, requires_grad=True), "+=", 1))
error_case("out_requires_grad", lambda T: T.add(T.tensor(POS, requires_grad=True), 1, out=T.zeros(2, 3)))

# ------------------------------------------------------------------------------ reduced-float scalars
# Note [Reduced-float scalars] in src/ops/pointwise.c: float16 / bfloat16 mul and div read a one-element second operand
# at its own precision; add, sub, remainder, fmod and pow round it to the tensor's dtype first. The results are
# scaled to exact integers so the comparison sees every bit (float16 tolerance would hide a last-bit difference).
HV = [1.0, 3.0, -7.25, 100.5, 0.0625, -33.0, 1000.0, 2.5]
SCALE = {"float16": 4096.0, "bfloat16": 256.0}
RS = {"mul": lambda x, s: x * s, "div": lambda x, s: x / s, "add": lambda x, s: x + s, "sub": lambda x, s: x - s,
      "rmul": lambda x, s: s * x, "mod": lambda x, s: x % s, "fmod": lambda x, s: x.fmod(s), "pow": lambda x, s: x.abs() ** s,
      "trunc": lambda x, s: x.div(s, rounding_mode="trunc"), "floor": lambda x, s: x.div(s, rounding_mode="floor")}
cases("reduced_float_scalar", lambda T, op, s, dtype: (RS[op](T.tensor(HV, dtype=dtype), s).float() * SCALE[str(dtype).split(".")[-1]]).long(),
      op=list(RS), s=[0.3, -2.9, 0.1], dtype=HALF)
cases("reduced_float_0d_tensor", lambda T, op, dtype: (RS[op](T.tensor(HV, dtype=dtype), T.tensor(0.3, dtype=T.float64)).float() * 256).long(),
      op=["mul", "div", "add"], dtype=HALF)
case("float_power_inplace", lambda T: (lambda x: (x.float_power_(2) is x, x, T.tensor(POS, dtype=T.float64).float_power_(T.tensor(B))))(T.tensor(POS, dtype=T.float64)))
cases("float_power_inplace_needs_double", lambda T, dtype: T.tensor([2, 3], dtype=dtype).float_power_(2), kind="error", dtype=[D.int64, D.float32, D.float16])
error_case("float_power_inplace_tensor_needs_double", lambda T: T.tensor([2.0, 3.0]).float_power_(T.tensor([2.0, 1.0])))
grad_case("float_power_inplace_grad", lambda T, x, y: (x * 1).float_power_(y), inp(POS, dtype=D.float64), B)
case("function_inplace_binary", lambda T: (lambda x: (T.clamp_(x, -1, 1) is x, x, T.clamp_min_(T.tensor(A), 0.0), T.clamp_max_(T.tensor(A), T.tensor(B)),
                                                      T.xlogy_(T.tensor(POS), 2.0), T.clip_(T.tensor(A), max=0.5)))(T.tensor(A)))
