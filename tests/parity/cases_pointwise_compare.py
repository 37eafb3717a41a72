"""Comparisons (eq ne lt le gt ge and their aliases and operators), logical and bitwise ops (& | ^ ~ << >>),
the is* predicates, isclose / allclose / equal: promotion (uint8 vs out-of-range scalars), nan, -0.0, in-place and
out= forms, refused dtypes and torch's messages."""
from .harness import *  # noqa: F401,F403

NAN, INF = float("nan"), float("inf")
A = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
B = [[1.5, 1.75, 0.25], [0.125, 0.5, 1.5]]
I = [[1, -2, 3], [4, 0, -6]]
J = [[1, 2, -1], [4, 5, -6]]
SPEC = [NAN, INF, -INF, 0.0, -0.0, 1.0]
SPEC2 = [NAN, INF, INF, -0.0, 0.0, NAN]
CMP = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
       "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}
ALIAS = {"not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge"}

# ------------------------------------------------------------------------------ comparisons
for op, f in CMP.items():
    case(f"{op}_operator", lambda T, f=f: f(T.tensor(A), T.tensor(B)))
    case(f"{op}_function", lambda T, op=op: getattr(T, op)(T.tensor(A), T.tensor(B)))
    case(f"{op}_method_scalar", lambda T, op=op: (getattr(T.tensor(A), op)(0.25), getattr(T, op)(T.tensor(I), 3)))
    case(f"{op}_reflected", lambda T, f=f: (f(0.25, T.tensor(A)), f(2, T.tensor(I))))
    case(f"{op}_inplace", lambda T, op=op: (getattr(T.tensor(A), op + "_")(T.tensor(B)), getattr(T.tensor(I), op + "_")(1.5)))
    case(f"{op}_out", lambda T, op=op: (lambda o: (getattr(T, op)(T.tensor(A), T.tensor(B), out=o), o))(T.zeros(2, 3, dtype=T.bool)))
    case(f"{op}_special", lambda T, f=f: f(T.tensor(SPEC), T.tensor(SPEC2)))
    case(f"{op}_broadcast", lambda T, f=f: f(T.tensor(A), T.tensor([[0.25], [3.0]])))
    case(f"{op}_promotion", lambda T, f=f: (f(T.tensor(I), T.tensor(A)), f(T.tensor(I), 2.5), f(T.tensor([True, False]), 0.5),
                                            f(T.tensor(I, dtype=T.int8), T.tensor(J, dtype=T.uint8))))
    cases(f"{op}_dtype", lambda T, dtype, op=op: getattr(T, op)(T.tensor(I[0], dtype=dtype) if dtype != D.uint8 else T.tensor([1, 2, 3], dtype=dtype),
                                                           T.tensor([1, 2, 3], dtype=dtype)), dtype=ALL)
    grad_case(f"{op}_no_grad", lambda T, x, op=op: (getattr(x, op)(0.5), x * 1), A)
for alias, op in ALIAS.items():
    case(f"{alias}_alias", lambda T, alias=alias: (getattr(T, alias)(T.tensor(A), T.tensor(B)), getattr(T.tensor(A), alias)(0.25),
                                                   getattr(T.tensor(A), alias + "_")(T.tensor(B))))
case("uint8_out_of_range_scalar", lambda T: (T.tensor([44], dtype=T.uint8) == 300, T.tensor([1], dtype=T.uint8) < 300,
                                             T.tensor([1], dtype=T.uint8) > -1, T.tensor([1, 2], dtype=T.uint8).eq(300)))
case("half_vs_large_scalar", lambda T: T.tensor([1, 2], dtype=T.float16) < 1e6)
case("int_vs_float_scalar", lambda T: (T.tensor([1, 2]) == 2.5, T.tensor([1, 2]) < 1.5, T.tensor([2, 3]) == 2.0))
case("compare_zero_dim", lambda T: (T.tensor(1.5) < T.tensor([1.0, 2.0]), T.tensor([1, 2]) == T.tensor(2, dtype=T.int8)))
case("compare_empty", lambda T: T.zeros(0, 3) == T.zeros(1, 3))
case("compare_transposed", lambda T: T.tensor(A).t() > T.tensor(B).t())
case("eq_none_is_false", lambda T: (T.tensor([1.0]) == None, T.tensor([1.0]) != None, T.tensor([1.0]) == "a"))  # noqa: E711
case("dunder_not_implemented", lambda T: [r is NotImplemented for r in (T.tensor([1.0]).__eq__("a"), T.tensor([1.0]).__lt__(None),
                                                                          T.tensor([1]).__and__(None), T.tensor([1]).__mod__("x"),
                                                                          T.tensor([1]).__pow__("x"), T.tensor([1]).__rpow__("x"),
                                                                          T.tensor([1]).__floordiv__("x"), T.tensor([1]).__rsub__("x"))])
error_case("lt_none", lambda T: T.tensor([1.0]) < None)
error_case("eq_function_none", lambda T: T.eq(T.tensor([1.0]), None))
error_case("compare_shape", lambda T: T.tensor([1.0, 2.0]) < T.tensor([1.0, 2.0, 3.0]))
error_case("compare_inplace_bool_into_int_broadcast", lambda T: T.tensor([1, 2]).eq_(T.tensor([[1], [2]])))
case("compare_requires_grad_false", lambda T: [getattr(T.tensor(A, requires_grad=True), op)(0.5).requires_grad for op in CMP])

# ------------------------------------------------------------------------------ logical
LOG = ["logical_and", "logical_or", "logical_xor"]
for op in LOG:
    case(f"{op}", lambda T, op=op: getattr(T, op)(T.tensor([True, False, True, False]), T.tensor([True, True, False, False])))
    case(f"{op}_numbers", lambda T, op=op: (getattr(T, op)(T.tensor([1.0, 0.0, NAN, -0.0]), T.tensor([2, 0, 1, 5])),
                                             getattr(T.tensor(I), op)(T.tensor(J))))
    case(f"{op}_inplace", lambda T, op=op: (getattr(T.tensor([1.0, 2.0, 0.0]), op + "_")(T.tensor([0.0, 1.0, 0.0])),
                                             getattr(T.tensor([True, False]), op + "_")(T.tensor([True, True]))))
    case(f"{op}_out", lambda T, op=op: (lambda o: (getattr(T, op)(T.tensor([1.0, 2.0]), T.tensor([0, 1]), out=o), o))(T.zeros(2)))
    cases(f"{op}_dtype", lambda T, dtype, op=op: getattr(T, op)(T.tensor([1, 0, 1], dtype=dtype), T.tensor([1, 1, 0], dtype=dtype)), dtype=ALL)
    case(f"{op}_broadcast", lambda T, op=op: getattr(T, op)(T.tensor([[True], [False]]), T.tensor([True, False, True])))
case("logical_not", lambda T: (T.logical_not(T.tensor([NAN, 0.0, -0.0, 2.0])), T.tensor(I).logical_not(), T.tensor([True, False]).logical_not_(),
                               T.tensor([2.0, 0.0]).logical_not_()))
cases("logical_not_dtype", lambda T, dtype: T.logical_not(T.tensor([1, 0, 2], dtype=dtype)), dtype=ALL)
case("logical_not_out", lambda T: (lambda o: (T.logical_not(T.tensor([1.0, 0.0]), out=o), o))(T.zeros(2, dtype=T.int32)))

# ------------------------------------------------------------------------------ bitwise
BIT = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y}
for name, f in BIT.items():
    fn = "bitwise_" + name
    cases(f"{name}_operator", lambda T, dtype, f=f: f(T.tensor([12, 10, 0, 7], dtype=dtype), T.tensor([10, 6, 5, 7], dtype=dtype)),
          dtype=INTS)
    case(f"{name}_bool", lambda T, f=f: f(T.tensor([True, True, False]), T.tensor([True, False, False])))
    case(f"{name}_scalars", lambda T, f=f: (f(T.tensor(I), 6), f(6, T.tensor(I)), f(T.tensor([True, False]), True), f(T.tensor([True]), 1),
                                            f(T.tensor([1]), True)))
    case(f"{name}_function", lambda T, fn=fn: (getattr(T, fn)(T.tensor(I), T.tensor(J)), getattr(T, fn)(T.tensor(I), 5), getattr(T, fn)(3, T.tensor(J)),
                                                getattr(T.tensor(I), fn)(T.tensor(J)), getattr(T.tensor(I), fn)(-1)))
    case(f"{name}_inplace", lambda T, fn=fn: (getattr(T.tensor(I), fn + "_")(T.tensor(J)), getattr(T.tensor(I), fn + "_")(12)))
    case(f"{name}_augmented", lambda T, name=name: (lambda x: (x, x))(
        (lambda x: (x.__iand__(3) if name == "and" else x.__ior__(3) if name == "or" else x.__ixor__(3)))(T.tensor(I))))
    case(f"{name}_out", lambda T, fn=fn: (lambda o: (getattr(T, fn)(T.tensor(I), T.tensor(J), out=o), o))(T.zeros(2, 3, dtype=T.int64)))
    case(f"{name}_promotion", lambda T, f=f: (f(T.tensor([True]), T.tensor([2])), f(T.tensor([3], dtype=T.uint8), T.tensor([-1], dtype=T.int8))))
    cases(f"{name}_float", lambda T, dtype, f=f: f(T.tensor([1.5], dtype=dtype), T.tensor([1], dtype=dtype)), kind="error", dtype=FLOATS)
    error_case(f"{name}_float_scalar", lambda T, f=f: f(T.tensor([1]), 1.5))
    error_case(f"{name}_str", lambda T, f=f: f(T.tensor([1]), "a"))
case("bitwise_not", lambda T: (T.bitwise_not(T.tensor(I)), ~T.tensor([True, False]), ~T.tensor([0, 5], dtype=T.uint8), T.tensor(I).bitwise_not_(),
                               ~T.tensor([0, -1, 7], dtype=T.int8)))
cases("bitwise_not_dtype", lambda T, dtype: T.bitwise_not(T.tensor([1, 0, 5], dtype=dtype)), dtype=ALL,
      kind=lambda dtype: "error" if dtype in FLOATS else "value")
case("bitwise_not_out", lambda T: (lambda o: (T.bitwise_not(T.tensor(I), out=o), o))(T.zeros(2, 3, dtype=T.int64)))
error_case("invert_float", lambda T: ~T.tensor([1.5]))
error_case("invert_half", lambda T: ~T.tensor([1.5], dtype=T.float16))
SH = [1, 3, 7, 8, 15, 31, 63, 64, 70, -1]
cases("lshift", lambda T, dtype: T.tensor([5, -5, 1, 3, 1, 1, 1, 1, 5, -5], dtype=dtype) << T.tensor(SH, dtype=T.int64),
      dtype=[D.int16, D.int32, D.int64, D.int8])
cases("rshift", lambda T, dtype: T.tensor([5, -5, -128, 3, -1, -7, 100, -100, 5, -5], dtype=dtype) >> T.tensor(SH, dtype=T.int64),
      dtype=[D.int16, D.int32, D.int64, D.int8])
case("shift_uint8", lambda T: (T.tensor([5, 200, 1], dtype=T.uint8) << 7, T.tensor([5, 200, 255], dtype=T.uint8) >> 3,
                               T.tensor([5, 200, 255], dtype=T.uint8) >> T.tensor([9, 1, 8], dtype=T.uint8)))
case("shift_scalars", lambda T: (T.tensor([5]) << 70, T.tensor([5]) >> 70, T.tensor([-5]) >> 70, T.tensor([-5]) << -1, T.tensor([-5]) >> -1,
                                 2 << T.tensor([3]), 64 >> T.tensor([3, 1]), T.tensor([True]) << 1))
case("shift_functions", lambda T: (T.bitwise_left_shift(T.tensor(I), 2), T.bitwise_right_shift(T.tensor(I), T.tensor([1, 2, 0])),
                                   T.bitwise_left_shift(3, T.tensor([1, 2])), T.tensor(I).bitwise_left_shift(1), T.tensor(I).bitwise_right_shift_(1),
                                   T.tensor(I).__ilshift__(2), T.tensor(I).__irshift__(1)))
case("shift_out", lambda T: (lambda o: (T.bitwise_left_shift(T.tensor(I), 1, out=o), o))(T.zeros(2, 3, dtype=T.int64)))
cases("shift_float", lambda T, op: (T.tensor([1.5]) << 1) if op == "l" else (T.tensor([1.5]) >> 1), kind="error", op=["l", "r"])
error_case("shift_bool_bool", lambda T: T.bitwise_left_shift(T.tensor([True]), T.tensor([True])))

# ------------------------------------------------------------------------------ predicates
PRED = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit"]
for op in PRED:
    case(f"{op}", lambda T, op=op: (getattr(T, op)(T.tensor(SPEC + [-NAN, -2.5])), getattr(T.tensor(SPEC), op)()))
    cases(f"{op}_dtype", lambda T, dtype, op=op: getattr(T, op)(T.tensor([1, 0, 2], dtype=dtype)), dtype=ALL)
    case(f"{op}_float64", lambda T, op=op: getattr(T, op)(T.tensor(SPEC, dtype=T.float64)))
    case(f"{op}_half", lambda T, op=op: (getattr(T, op)(T.tensor(SPEC, dtype=T.float16)), getattr(T, op)(T.tensor(SPEC, dtype=T.bfloat16))))
    case(f"{op}_shapes", lambda T, op=op: (getattr(T, op)(T.tensor(2.5)), getattr(T, op)(T.zeros(0, 2)), getattr(T, op)(T.tensor([[1.0, NAN], [INF, -3.0]]).t())))
    grad_case(f"{op}_of_grad_tensor", lambda T, x, op=op: (getattr(x, op)(), x * 2), [1.0, -2.0])
case("signbit_int", lambda T: (T.signbit(T.tensor([-3, 0, 3])), T.signbit(T.tensor([-3, 0, 3], dtype=T.int8))))
cases("pred_out", lambda T, op: (lambda o: (getattr(T, op)(T.tensor(SPEC), out=o), o))(T.zeros(6, dtype=T.bool)),
      op=["isposinf", "isneginf", "signbit"])

# ------------------------------------------------------------------------------ isclose / allclose / equal
X = [1.0, 2.0, NAN, INF, -INF, 1e-9, 100.0, 0.0]
Y = [1.0 + 1e-6, 2.1, NAN, INF, INF, 0.0, 100.001, -0.0]
cases("isclose", lambda T, r, a, equal_nan: T.isclose(T.tensor(X), T.tensor(Y), rtol=r, atol=a, equal_nan=equal_nan),
      r=[1e-5, 0.0, 0.1], a=[1e-8, 0.0, 1e-3], equal_nan=BOOLS)
case("isclose_float64", lambda T: (T.isclose(T.tensor(X, dtype=T.float64), T.tensor(Y, dtype=T.float64)),
                                   T.isclose(T.tensor(X, dtype=T.float64), T.tensor(Y, dtype=T.float64), equal_nan=True)))
case("isclose_method_positional", lambda T: (T.tensor(X).isclose(T.tensor(Y), 0.01, 1e-6, True), T.isclose(T.tensor(X), T.tensor(Y), 0.0, 0.0)))
case("isclose_ints", lambda T: (T.isclose(T.tensor([1, 2, 100]), T.tensor([1, 3, 101])), T.isclose(T.tensor([1, 2]), T.tensor([1, 3]), rtol=0.5),
                                T.isclose(T.tensor([1, 2], dtype=T.int8), T.tensor([1, 3], dtype=T.int8), atol=1)))
case("isclose_bool", lambda T: (T.isclose(T.tensor([True, False]), T.tensor([False, False])), T.isclose(T.tensor([True]), T.tensor([False]), atol=1)))
case("isclose_broadcast_0d", lambda T: (T.isclose(T.tensor([1.0, 2.0]), T.tensor(2.0)), T.isclose(T.tensor([[1.0], [2.0]]), T.tensor([1.0, 2.0]))))
case("isclose_half", lambda T: T.isclose(T.tensor([1.0, 2.0, 3.0], dtype=T.float16), T.tensor([1.0, 2.01, 3.5], dtype=T.float16), rtol=1e-3))
cases("isclose_dtype_mismatch", lambda T, other: T.isclose(T.tensor([1.0, 2.0]), T.tensor([1, 2], dtype=other)), kind="error",
      other=[D.int64, D.float64, D.float16, D.bool])
error_case("isclose_negative_rtol", lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0]), rtol=-1))
error_case("isclose_negative_atol", lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0]), atol=-0.5))
error_case("isclose_scalar_other", lambda T: T.isclose(T.tensor([1.0, 2.0]), 2))
error_case("isclose_shape", lambda T: T.isclose(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])))
case("allclose", lambda T: (T.allclose(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.00001])), T.allclose(T.tensor(X), T.tensor(Y)),
                            T.allclose(T.tensor(X), T.tensor(X)), T.allclose(T.tensor(X), T.tensor(X), equal_nan=True),
                            T.tensor([1.0, 2.0]).allclose(T.tensor([1.1, 2.2]), rtol=0.2), T.allclose(T.zeros(0), T.zeros(0))))
error_case("allclose_dtype", lambda T: T.allclose(T.tensor([1, 2]), T.tensor([1.0, 2.0])))
error_case("allclose_shape", lambda T: T.allclose(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])))
case("equal", lambda T: (T.equal(T.tensor([1, 2]), T.tensor([1.0, 2.0])), T.equal(T.tensor([1, 2]), T.tensor([1, 2, 3])),
                         T.equal(T.tensor([NAN]), T.tensor([NAN])), T.equal(T.tensor([1, 2]), T.tensor([[1, 2]])),
                         T.tensor(A).equal(T.tensor(A)), T.equal(T.tensor(A).t(), T.tensor(A).t()), T.equal(T.zeros(0), T.zeros(0)),
                         T.equal(T.tensor([0.0]), T.tensor([-0.0])), T.equal(T.tensor([True]), T.tensor([1]))))
case("allclose_returns_bool_type", lambda T: (type(T.allclose(T.tensor([1.0]), T.tensor([1.0]))).__name__, type(T.equal(T.tensor([1.0]), T.tensor([1.0]))).__name__))
cases("pred_out_not_bool", lambda T, op: getattr(T, op)(T.tensor([1.0, -INF]), out=T.zeros(2)), kind="error",
      op=["isposinf", "isneginf", "signbit"])
cases("bitwise_not_out_dtype", lambda T, od: T.bitwise_not(T.tensor([1, 2], dtype=T.uint8), out=T.zeros(2, dtype=od)), kind="error",
      od=[D.int8, D.int64, D.float32])
cases("compare_out_any_dtype", lambda T, od: (lambda o: (T.lt(T.tensor([1.0, 3.0]), 2.0, out=o), o))(T.zeros(2, dtype=od)),
      od=[D.float32, D.int64, D.uint8])
# isclose follows torch's tensor-op recipe bit for bit: integers in the default float, float16 / bfloat16 rounded
# at every step (near-boundary data from a fixed seed, the same lists on both sides)
import random as _random  # noqa: E402
_rng = _random.Random(20240611)
_FA = [_rng.uniform(-10, 10) for _ in range(64)]
_FB = [x * (1 + _rng.choice([1e-3, 1e-4, 5e-3, 0.0, -2e-3])) + _rng.choice([0.0, 1e-3, -1e-2]) for x in _FA]
_IA = [_rng.randint(-128, 127) for _ in range(64)]
_IB = [min(127, max(-128, x + _rng.randint(-3, 3))) if _rng.random() < 0.7 else _rng.randint(-128, 127) for x in _IA]
cases("isclose_boundaries_float", lambda T, dtype, r, a: T.isclose(T.tensor(_FA, dtype=dtype), T.tensor(_FB, dtype=dtype), rtol=r, atol=a),
      dtype=FLOATS, r=[1e-3, 0.01], a=[1e-3, 0.0])
cases("isclose_boundaries_int", lambda T, dtype, r, a: T.isclose(T.tensor(_IA, dtype=dtype), T.tensor(_IB, dtype=dtype), rtol=r, atol=a),
      dtype=[D.int8, D.int16, D.int32, D.int64], r=[0.5, 0.01], a=[1.0, 0.0])
case("isclose_uint8_no_wrap", lambda T: T.isclose(T.tensor([0, 255, 3], dtype=T.uint8), T.tensor([255, 0, 5], dtype=T.uint8), atol=2))
