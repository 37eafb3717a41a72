"""Creation, conversion and Python-scalar semantics found by the differential fuzzer (/tmp/fz-create): torch.Size
arithmetic and construction, torch.range, arange / linspace / logspace argument checks, Python ints beyond
int64, in-place ops whose result type can't be cast back, iinfo / finfo errors."""
import numpy as np

from .harness import *  # noqa: F401,F403


def _typed(v):
    return (repr(v), type(v).__name__)


# ---------------------------------------------------------------------------------- torch.Size
SIZE_EXPRS = {
    "mul": lambda S: S * 2, "rmul": lambda S: 2 * S, "mul_neg": lambda S: S * -1, "mul_bool": lambda S: S * True,
    "mul_dunder": lambda S: S.__mul__(3), "rmul_dunder": lambda S: S.__rmul__(2), "add_tuple": lambda S: S + (3,),
    "radd_tuple": lambda S: (0,) + S, "add_size": lambda S: S + S, "slice": lambda S: S[::-1],
    "numel_wraps": lambda S: (S * 40).numel(), "count": lambda S: S.count(2), "index": lambda S: S.index(2),
    "type_module": lambda S: type(S).__module__, "type_name": lambda S: type(S).__name__,
    "reduce_args": lambda S: S.__reduce__()[1],
}
cases("size_expr", lambda T, e: _typed(SIZE_EXPRS[e](T.Size([2, 3, 4]))), e=list(SIZE_EXPRS))
SIZE_ERRORS = {
    "add_list": lambda S: S + [1], "add_int": lambda S: S + 1, "radd_list": lambda S: [1] + S,
    "mul_float": lambda S: S * 2.0, "mul_size": lambda S: S * S, "index_missing": lambda S: S.index(7),
}
cases("size_error", lambda T, e: SIZE_ERRORS[e](T.Size([2, 3, 4])), e=list(SIZE_ERRORS), kind="error")
SIZE_ITEMS = {"bool": [True, 2], "tensor0d": "t0", "tensor1": "t1", "negative": [-5], "generator": "gen"}
case("size_from_bool", lambda T: [type(v).__name__ for v in T.Size([True, 2])] + [T.Size([True, 2])])
case("size_from_tensor", lambda T: (T.Size([T.tensor(3), T.tensor([2])]),
                                    [type(v).__name__ for v in T.Size([T.tensor(3)])]))
case("size_negative", lambda T: T.Size([-5, 0]))
case("size_generator", lambda T: T.Size(x for x in [1, 2]))
case("size_shape_mul", lambda T: _typed(T.zeros(2, 3).shape * 2))
case("size_mul_tensor", lambda T: _typed(T.Size([1]) * T.tensor(2)))
error_case("size_from_float_tensor", lambda T: T.Size([T.tensor(2.5)]))
error_case("size_from_tensor_2", lambda T: T.Size([T.tensor([1, 2])]))
error_case("size_from_float", lambda T: T.Size([1.0]))
error_case("size_int64_overflow_repr", lambda T: repr(T.Size([2 ** 63])))
case("size_int64_overflow_list", lambda T: list(T.Size([2 ** 63, -2 ** 63])))
error_case("size_int64_overflow_numel", lambda T: T.Size([2 ** 70]).numel())
case("size_numpy_int", lambda T: (repr(T.Size([np.int64(2)])), T.Size([np.int64(2), 3]).numel(), type(T.Size([np.int64(2)])[0]).__name__))
error_case("size_huge_repr", lambda T: str(T.Size([2 ** 70])))
error_case("size_none", lambda T: T.Size(None))


# ---------------------------------------------------------------------------------- in-place ops: checks before the kernel
# torch's TensorIterator checks the broadcast shape and the cast of the result type into self before the kernel runs
# (a dtype the kernel refuses, an integer division by zero).
INPLACE_ERRORS = {
    "iand_float": lambda T: T.tensor([1, 2], dtype=T.int8).__iand__(2.5),
    "ixor_bool_float": lambda T: T.tensor([True, False]).__ixor__(0.0),
    "ilshift_float": lambda T: T.tensor([1, 2], dtype=T.uint8).__ilshift__(-1e10),
    "irshift_float": lambda T: T.tensor([1], dtype=T.int8).__irshift__(1e10),
    "iand_bf16_tensor": lambda T: T.ones(1, 1, 1, dtype=T.int8).__iand__(T.tensor(1.0, dtype=T.bfloat16)),
    "ixor_broadcast": lambda T: T.zeros(2, 0, dtype=T.int16).__ixor__(T.ones(1, 1, 1, dtype=T.float16)),
    "ilshift_broadcast": lambda T: T.zeros(2, 0).__ilshift__(T.zeros(2, 0, dtype=T.int32).t()),
    "irshift_0d": lambda T: T.tensor(1.0).__irshift__(T.ones(3, 1, 2, dtype=T.int32)),
    "ifloordiv_bool_zero": lambda T: T.tensor([True, False]).__ifloordiv__(0),
    "ifloordiv_broadcast_zero": lambda T: T.tensor(3, dtype=T.uint8).__ifloordiv__(T.zeros(2, 2, dtype=T.int32)),
    "remainder_sizes_zero": lambda T: T.ones(2, 3, dtype=T.uint8).remainder_(T.zeros(2, 2, 2, dtype=T.uint8)),
    "fmod_bool_zero": lambda T: T.tensor([True]).fmod_(0),
    "itruediv_bool_int": lambda T: T.tensor([True]).__itruediv__(3),
    "itruediv_bool_short": lambda T: T.tensor([True, False]).__itruediv__(T.tensor([2, 3], dtype=T.int16)),
    "true_divide_int": lambda T: T.tensor([4, 2]).true_divide_(T.tensor([2, 1])),
    "div_floor_bool_zero": lambda T: T.tensor([True]).div_(0, rounding_mode="floor"),
    "ipow_bool_float": lambda T: T.tensor(True).__ipow__(1e308),
    "ipow_int_tensor_float": lambda T: T.tensor([2, 3]).__ipow__(T.tensor([0.5, 1.0])),
    "pow_bool_negative": lambda T: T.tensor([True]).pow_(-129),
    "pow_int_negative_broadcast": lambda T: T.tensor([2, 3]).pow_(-1),
    "copy_empty_into_0d": lambda T: T.zeros((), dtype=T.int16).copy_(T.zeros(2, 0, dtype=T.uint8)),
    "copy_bigger": lambda T: T.zeros(1, dtype=T.int8).copy_(T.ones(3, 1, 2, dtype=T.int32)),
    "copy_sizes": lambda T: T.zeros(2, 3).copy_(T.ones(4)),
    "int8_floordiv_256": lambda T: T.tensor([5], dtype=T.int8) // 256,
    "int8_remainder_256": lambda T: T.tensor([5], dtype=T.int8) % 256,
    "int32_floordiv_int64_min": lambda T: T.zeros(1, 1, 1, dtype=T.int32).__ifloordiv__(-2 ** 63),
    "int8_fmod_256": lambda T: T.tensor([5], dtype=T.int8).fmod(256),
    "int8_div_trunc_256": lambda T: T.tensor([5], dtype=T.int8).div(256, rounding_mode="trunc"),
}
cases("inplace_check_order", lambda T, e: INPLACE_ERRORS[e](T), e=list(INPLACE_ERRORS), kind="error")
INPLACE_VALUES = {
    "ifloordiv_empty_zero": lambda T: T.zeros(2, 0, dtype=T.uint8).__ifloordiv__(T.tensor([False])),
    "imod_empty_false": lambda T: T.zeros(2, 0, dtype=T.int32).t().__imod__(False),
    "floordiv_empty_zero": lambda T: T.zeros(0, dtype=T.int64) // 0,
    "int8_floordiv_minus1": lambda T: T.tensor([-128], dtype=T.int8) // -1,
    "int32_remainder_minus1": lambda T: T.tensor([-2 ** 31], dtype=T.int32) % -1,
    "int64_floordiv_minus1": lambda T: T.tensor([-2 ** 63]) // -1,
    "uint8_floordiv_minus1": lambda T: T.tensor([200], dtype=T.uint8) // -1,
    "copy_broadcast": lambda T: T.zeros(2, 3, dtype=T.int8).copy_(T.tensor([1.5, -2.5, 300.0])),
    "iand_int": lambda T: T.tensor([6, 3], dtype=T.int8).__iand__(T.tensor([True, False])),
    "itruediv_float": lambda T: T.tensor([3.0, 1.0]).__itruediv__(T.tensor([2, 4])),
    "pow_float_negative": lambda T: T.tensor([2.0, 4.0]).pow_(-1),
}
cases("inplace_value", lambda T, e: INPLACE_VALUES[e](T), e=list(INPLACE_VALUES))


# ---------------------------------------------------------------------------------- torch.range / arange
RANGE_ARGS = {
    "ints": ((1, 4), {}), "float_step": ((0, 1, 0.25), {}), "neg_step_i32": ((5, 1, -2), {"dtype": "int32"}),
    "f64": ((-1.5, 2.5), {"dtype": "float64"}), "f16": ((0, 2, 0.3), {"dtype": "float16"}),
    "bf16": ((1, 3, 0.5), {"dtype": "bfloat16"}), "int64_big": ((2 ** 40, 2 ** 40 + 3), {"dtype": "int64"}),
    "tensor_bounds": (("t2.5", 5), {}), "single": ((3, 3), {}), "uint8": ((250, 255), {"dtype": "uint8"}),
}
RANGE_ERRORS = {
    "missing_end": ((5,), {}), "wrong_sign": ((10, 5), {}), "zero_step": ((2.5, 5, 0), {}),
    "nan": ((float("nan"), -3), {}), "inf": ((5, float("inf"), 0.25), {}), "bool": ((1, 0, 1), {"dtype": "bool"}),
    "int8_inf": ((float("inf"), 10, 1), {"dtype": "int8"}), "size_overflow": ((1e20, 3.3, -1), {}),
    "none_end": ((3, None, 0), {}),
}


def _rargs(T, a, kw):
    a = [T.tensor(2.5) if x == "t2.5" else x for x in a]
    return a, {k: getattr(T, v) for k, v in kw.items()}


cases("range", lambda T, e: (lambda a, kw: T.range(*a, **kw))(*_rargs(T, *RANGE_ARGS[e])), e=list(RANGE_ARGS),
      warns=True)
cases("range_error", lambda T, e: (lambda a, kw: T.range(*a, **kw))(*_rargs(T, *RANGE_ERRORS[e])),
      e=list(RANGE_ERRORS), kind="error", warns=True)
error_case("range_huge_int8", lambda T: T.range(10, 2 ** 62, dtype=T.int8), match=r"can't allocate memory")
case("range_out", lambda T: (lambda o: (T.range(0, 3, out=o), o))(T.zeros(4)), warns=True)
ARANGE_ERRORS = {
    "nan_int16": ((float("nan"),), {"dtype": "int16"}), "inf_uint8": ((2.5, float("inf")), {"dtype": "uint8"}),
    "zero_step_before_overflow": ((5, 1e20, 0), {"dtype": "int8"}),
    "sign_before_overflow": ((1e20, 2.5, 5), {"dtype": "int8"}), "size_before_overflow": ((1e20,), {"dtype": "int8"}),
    "nan_start": ((float("nan"), 3, 2.5), {"dtype": "int32"}), "int64_wraps": ((-3, 2 ** 62, 2 ** 62), {}),
    "three_sigs": ((5, None, 1), {}), "none_start": ((None, 2 ** 62), {"dtype": "int64"}),
}
cases("arange_error", lambda T, e: (lambda a, kw: T.arange(*a, **kw))(*_rargs(T, *ARANGE_ERRORS[e])),
      e=list(ARANGE_ERRORS), kind="error")
# float32 elements as torch's vectorized kernel computes them (8 lanes, 16 a loop; the tail in double)
cases("arange_f32_vectorized", lambda T, a: T.arange(*a), a=[(10, -3, -0.3), (10, 3.3, -0.3), (0, 100, 0.1),
                                                            (-5, 7, 0.37), (1, 1000, 1.1), (0, 1, 0.01)], rtol=0, atol=0)
case("arange_start_end_kw", lambda T: T.arange(1, 4, dtype=T.float64))


# ---------------------------------------------------------------------------------- finfo / iinfo arguments
INFO_OK = {
    "finfo_kw": lambda T: T.finfo(type=T.float16), "iinfo_kw": lambda T: T.iinfo(type=T.int16),
    "finfo_float": lambda T: T.finfo(float), "iinfo_int": lambda T: T.iinfo(int), "finfo_default": lambda T: T.finfo(),
}
cases("info_args", lambda T, e: repr(INFO_OK[e](T)), e=list(INFO_OK))
INFO_ERRORS = {
    "iinfo_none": lambda T: T.iinfo(), "iinfo_bad_kw": lambda T: T.iinfo(foo=1), "finfo_bad_kw": lambda T: T.finfo(foo=1),
    "iinfo_twice": lambda T: T.iinfo(T.int8, type=T.int8), "finfo_twice": lambda T: T.finfo(T.float32, type=T.float32),
    "iinfo_three": lambda T: T.iinfo(1, 2, 3), "finfo_two": lambda T: T.finfo(1.5, 2), "finfo_None": lambda T: T.finfo(None),
    "iinfo_None": lambda T: T.iinfo(None), "finfo_int": lambda T: T.finfo(int), "iinfo_float": lambda T: T.iinfo(float),
    "finfo_bool": lambda T: T.finfo(bool), "iinfo_bool": lambda T: T.iinfo(bool),
    "iinfo_tiny": lambda T: T.iinfo(T.int32).tiny, "iinfo_eps": lambda T: T.iinfo(T.int64).eps,
    "iinfo_resolution": lambda T: T.iinfo(T.uint8).resolution, "finfo_foo": lambda T: T.finfo(T.float16).foo,
}
cases("info_error", lambda T, e: INFO_ERRORS[e](T), e=list(INFO_ERRORS), kind="error")


# ---------------------------------------------------------------------------------- memory format preserve: strides kept
# torch's empty_like(preserve) keeps a non-overlapping, dense tensor's strides as they are, odd strides of size-1 and
# empty dims included (x below: shape [1, 3, 2], strides [2, 2, 1]; e: shape [0, 2], strides [1, 1]).
def _odd(T, dtype=None):
    x = T.arange(6.0).reshape(3, 1, 2).transpose(0, 1)
    return x if dtype is None else x.to(dtype)


PRESERVE = {
    "to_bool": lambda T: _odd(T).to(T.bool), "char": lambda T: _odd(T, T.int64).char(),
    "double": lambda T: _odd(T, T.int8).double(), "type_str": lambda T: _odd(T, T.int32).type("torch.LongTensor"),
    "ones_like": lambda T: T.ones_like(_odd(T, T.bool)), "zeros_like_dtype": lambda T: T.zeros_like(_odd(T, T.int64), dtype=T.int16),
    "full_like": lambda T: T.full_like(_odd(T, T.float64), 1e308), "clone": lambda T: _odd(T).clone(),
    "empty_like_empty": lambda T: T.empty_like(T.zeros(2, 0, dtype=T.bfloat16).t()).fill_(0),
    "to_copy": lambda T: _odd(T).to(T.float32, copy=True), "rand_like_shape": lambda T: T.zeros_like(T.zeros(2, 0).t()),
}
cases("preserve_strides", lambda T, e: (lambda r: (r.stride(), r))(PRESERVE[e](T)), e=list(PRESERVE))
FILL_NEG = {
    "full": lambda T: T.full((2, -1), 1e308, dtype=T.float32), "new_full": lambda T: T.zeros(1, dtype=T.int16).new_full((-1,), -float("inf")),
    "new_full_i8": lambda T: T.zeros(1).new_full((-1,), float("inf"), dtype=T.int8),
}
cases("full_negative_size_first", lambda T, e: FILL_NEG[e](T), e=list(FILL_NEG), kind="error")


# ---------------------------------------------------------------------------------- binary ops: broadcast before dtype
BROADCAST_FIRST = {
    "lshift_bool_bf16": lambda T: T.zeros(2, 0, dtype=T.bool) << T.ones(3, 1, 2, dtype=T.bfloat16),
    "or_bf16_bool": lambda T: T.zeros(2, 0, dtype=T.bfloat16).t() | T.zeros(0, dtype=T.bool),
    "and_uint8_float": lambda T: T.ones(2, 3, dtype=T.uint8) & T.zeros(2, 0).t(),
    "xor_float": lambda T: T.ones(2, 3) ^ T.ones(2),
}
cases("binary_broadcast_first", lambda T, e: BROADCAST_FIRST[e](T), e=list(BROADCAST_FIRST), kind="error")


# ---------------------------------------------------------------------------------- Python ints beyond uint64
BIG_INTS = {
    "add": lambda T: T.ones(2) + 2 ** 64, "add_negative": lambda T: T.ones(2) + (-2 ** 63 - 1),
    "mul_huge": lambda T: T.ones(2) * 2 ** 70, "radd": lambda T: 2 ** 64 + T.ones(2), "eq": lambda T: T.ones(2) == 2 ** 64,
    "full": lambda T: T.full((2,), 2 ** 64), "full_negative": lambda T: T.full((2,), -2 ** 63 - 1),
    "add_": lambda T: T.ones(2).add_(2 ** 64), "result_type": lambda T: T.result_type(2 ** 64, 2),
    "fill_": lambda T: T.ones(2).fill_(2 ** 64), "arange": lambda T: T.arange(2 ** 64),
    "clamp": lambda T: T.ones(2).clamp(2 ** 64), "new_full": lambda T: T.ones(2).new_full((1,), 2 ** 64),
    "scalar_tensor": lambda T: T.scalar_tensor(2 ** 64), "pow": lambda T: T.ones(2).pow(2 ** 64),
    "ixor": lambda T: T.ones(2, dtype=T.int32).__ixor__(2 ** 64), "rmod": lambda T: 2 ** 64 % T.ones(2, dtype=T.int32),
}
cases("python_int_beyond_uint64", lambda T, e: BIG_INTS[e](T), e=list(BIG_INTS), kind="error")


# ---------------------------------------------------------------------------------- linspace / logspace values
# float32 / float64 linspace as torch's kernel computes it (start + step * i, end - step * (n - 1 - i), each one fused
# multiply-add); logspace into integer dtypes converts out-of-range powers as torch's x86 build does.
cases("linspace_fma", lambda T, a, dtype: T.linspace(*a, dtype=dtype),
      a=[(-1, 1, 7), (-2.5, 10.5, 7), (3, -2, 7), (1.5, -2, 7), (-1, 1, 18), (0.1, 7.3, 33), (-100, 3, 129), (0, 1, 1000)],
      dtype=[D.float32, D.float64], rtol=0, atol=0)
cases("logspace_int_overflow", lambda T, a, dtype: T.logspace(*a, dtype=dtype),
      a=[(0, 10.5, 7), (3, 10.5, 7), (-2, 100, 3), (10, 4, 5), (-1, 100, 7, 2.0)], dtype=[D.int16, D.int32, D.int8, D.uint8])
SPACE_TENSORS = {
    "lin_tt": lambda T: T.linspace(T.tensor(1.5), T.tensor(3), 4), "lin_st": lambda T: T.linspace(1, T.tensor(3.5), 3),
    "lin_ts_int8": lambda T: T.linspace(T.tensor(1, dtype=T.int8), 300, 3), "log_ts": lambda T: T.logspace(T.tensor(1), 2, 3),
    "log_tt_base": lambda T: T.logspace(T.tensor(0.5), T.tensor(2), 4, base=2), "lin_bool": lambda T: T.linspace(T.tensor(True), 3, 3),
    "lin_out": lambda T: (lambda o: (T.linspace(T.tensor(1.0), T.tensor(2.0), 3, out=o), o))(T.zeros(3)),
}
cases("space_tensor_ends", lambda T, e: SPACE_TENSORS[e](T), e=list(SPACE_TENSORS))
SPACE_ERRORS = {
    "lin_start_1d": lambda T: T.linspace(T.tensor([1.0, 2]), 3, 4), "lin_end_2d": lambda T: T.linspace(1, T.tensor([[3]]), 4),
    "lin_both": lambda T: T.linspace(T.tensor([1.0]), T.tensor([[2.0]]), 3), "log_start_1d": lambda T: T.logspace(T.tensor([2.0]), 3, 4),
    "log_both": lambda T: T.logspace(T.tensor([1.0]), T.tensor(2.0), 3), "lin_float_steps": lambda T: T.linspace(1, 2, 2.5),
    "log_none_steps": lambda T: T.logspace(1, 2, None), "lin_no_steps": lambda T: T.linspace(1, 2),
    "lin_tensor_negative_steps": lambda T: T.linspace(T.tensor(1.0), T.tensor(2.0), -1),
}
cases("space_tensor_ends_error", lambda T, e: SPACE_ERRORS[e](T), e=list(SPACE_ERRORS), kind="error")
# the output memory order of ops whose inputs are cast: taken from the inputs as they were (x: [1, 3, 2] strides [2, 2, 1])
CAST_ORDER = {
    "eq_float": lambda T: 2.5 == _odd(T, T.uint8), "add_float": lambda T: _odd(T, T.int16) + 0.5,
    "mul_bool": lambda T: _odd(T, T.bool) * 1.5, "lt_tensor": lambda T: _odd(T, T.int8) < T.tensor(1.5),
    "pow_scalar_base": lambda T: 0.1 ** _odd(T, T.int64), "pow_scalar_base_int": lambda T: 2 ** _odd(T, T.int64),
    "pow_scalar_one": lambda T: 1 ** _odd(T), "rsub": lambda T: 1.5 - _odd(T, T.int32),
}
cases("cast_input_memory_order", lambda T, e: (lambda r: (r.stride(), r))(CAST_ORDER[e](T)), e=list(CAST_ORDER))
INT_ARGS_BEYOND_INT64 = {
    "zeros": lambda T: T.zeros(2 ** 64), "zeros_varargs": lambda T: T.zeros(2, 2 ** 63), "zeros_tuple": lambda T: T.zeros((2, 2 ** 64)),
    "select": lambda T: T.ones(2).select(0, 2 ** 64), "select_int64_max_plus": lambda T: T.ones(2).select(0, 2 ** 63),
    "view": lambda T: T.ones(3).view(2 ** 63), "eye": lambda T: T.eye(2 ** 63), "reshape": lambda T: T.ones(2).reshape([2 ** 64]),
    "expand": lambda T: T.ones(2).expand(2 ** 64), "new_zeros": lambda T: T.ones(2).new_zeros(2 ** 64),
    "linspace_steps": lambda T: T.linspace(0, 1, 2 ** 63),
}
cases("int_arg_beyond_int64", lambda T, e: INT_ARGS_BEYOND_INT64[e](T), e=list(INT_ARGS_BEYOND_INT64), kind="error")
