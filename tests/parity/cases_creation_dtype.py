"""dtypes and devices: dtype tokens and aliases, dtype attributes, Tensor.to / .float() & co / .type(),
default dtype, result_type / promote_types / can_cast, is_* queries, finfo / iinfo, torch.device, .cpu()/.cuda(),
.tolist() / .item()."""
from .harness import *  # noqa: F401,F403

NO_COMPLEX = "wick has no complex dtypes (torch.cfloat/complex64 are absent by design)"
X = [[1.5, -2.25, 0.0], [3.75, -0.5, 100.25]]
DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64", "bool",
               "float", "double", "half", "long", "int", "short"]

# ----------------------------------------------------------------------------------------- dtype tokens
cases("dtype_token", lambda T, nm: getattr(T, nm), nm=DTYPE_NAMES)
cases("dtype_token_repr", lambda T, nm: repr(getattr(T, nm)), nm=DTYPE_NAMES)
cases("dtype_token_str", lambda T, nm: str(getattr(T, nm)), nm=DTYPE_NAMES)
case("dtype_aliases_identical", lambda T: (T.float is T.float32, T.double is T.float64, T.half is T.float16,
                                           T.long is T.int64, T.int is T.int32, T.short is T.int16))
case("dtype_alias_equal", lambda T: (T.float == T.float32, T.float32 != T.float64, T.float == T.double))
case("dtype_hashable", lambda T: {T.float32: 1, T.int64: 2}[T.float])
case("dtype_type_name", lambda T: type(T.float32).__name__)
cases("dtype_is_floating_point", lambda T, dtype: dtype.is_floating_point, dtype=ALL)
cases("dtype_is_signed", lambda T, dtype: dtype.is_signed, dtype=ALL)
cases("dtype_itemsize", lambda T, dtype: dtype.itemsize, dtype=ALL)
cases("dtype_is_complex", lambda T, dtype: dtype.is_complex, dtype=ALL)
case("dtype_cfloat", lambda T: T.cfloat, skip=NO_COMPLEX)
error_case("dtype_no_instances", lambda T: T.dtype())
error_case("dtype_not_orderable", lambda T: T.float32 < T.float64)

# ------------------------------------------------------------------------------------- default dtype
case("default_dtype", lambda T: T.get_default_dtype())
cases("set_default_dtype", lambda T, dtype: (T.set_default_dtype(dtype), T.get_default_dtype(), T.tensor([1.5]).dtype,
                                             T.tensor([1]).dtype, T.zeros(1).dtype, T.arange(2.).dtype)[1:],
      dtype=FLOATS)
case("default_dtype_f64_promotion", lambda T: (T.set_default_dtype(T.float64),
                                               (T.tensor([1, 2]) * 1.5).dtype, T.result_type(T.tensor([1]), 1.0))[1:])
case("default_dtype_f64_int_tensor_true_div", lambda T: (T.set_default_dtype(T.float64), T.tensor([3]) / 2)[1])
error_case("set_default_dtype_int", lambda T: T.set_default_dtype(T.int32))
error_case("set_default_dtype_bool", lambda T: T.set_default_dtype(T.bool))
error_case("set_default_dtype_str", lambda T: T.set_default_dtype("a"))
error_case("set_default_dtype_python_float", lambda T: T.set_default_dtype(float))
error_case("set_default_dtype_missing", lambda T: T.set_default_dtype())

# ------------------------------------------------------------------------------------- promotion queries
cases("promote_types", lambda T, a, b: T.promote_types(a, b), a=ALL, b=[D.uint8, D.int8, D.int64, D.float16,
                                                                       D.bfloat16, D.float32, D.bool])
case("promote_types_python_types", lambda T: T.promote_types(int, float))
error_case("promote_types_int_arg", lambda T: T.promote_types(T.int8, 1))
cases("can_cast", lambda T, a, b: T.can_cast(a, b), a=ALL, b=[D.bool, D.uint8, D.int32, D.float16, D.float64])
case("can_cast_kwargs", lambda T: T.can_cast(from_=T.int32, to=T.bool))
error_case("can_cast_int_arg", lambda T: T.can_cast(T.int32, 1))
RT = {
    "int_tensor_float": lambda T: T.result_type(T.tensor([1, 2]), 1.0),
    "int_tensor_0d_f64": lambda T: T.result_type(T.tensor([1, 2]), T.tensor(1.0, dtype=T.float64)),
    "f16_tensor_0d_f64": lambda T: T.result_type(T.tensor([1.], dtype=T.float16), T.tensor(1.0, dtype=T.float64)),
    "int_float": lambda T: T.result_type(1, 1.0),
    "bool_int": lambda T: T.result_type(True, 1),
    "float_int8": lambda T: T.result_type(1.0, T.tensor([1], dtype=T.int8)),
    "kwargs": lambda T: T.result_type(tensor=T.tensor([1]), other=2),
    "scalar_kwargs": lambda T: T.result_type(scalar1=2, scalar2=2.),
    "uint8_int": lambda T: T.result_type(T.tensor([1], dtype=T.uint8), -1),
    "uint8_int8": lambda T: T.result_type(T.tensor([1], dtype=T.uint8), T.tensor([1], dtype=T.int8)),
    "bool_bool": lambda T: T.result_type(T.tensor([True]), False),
    "i32_0d_i64": lambda T: T.result_type(T.tensor([1], dtype=T.int32), T.tensor(1)),
    "0d_0d": lambda T: T.result_type(T.tensor(1, dtype=T.int16), T.tensor(1, dtype=T.int32)),
    "bf16_f16": lambda T: T.result_type(T.tensor([1.], dtype=T.bfloat16), T.tensor([1.], dtype=T.float16)),
    "float_0d_int": lambda T: T.result_type(2.5, T.tensor(1)),
}
cases("result_type", lambda T, which: RT[which](T), which=list(RT))
error_case("result_type_list", lambda T: T.result_type([1], 2), match="^result_type\\(\\) received an invalid")

# --------------------------------------------------------------------------------------------- is_* queries
cases("is_floating_point_fn", lambda T, dtype: T.is_floating_point(T.zeros(2, dtype=dtype)), dtype=ALL)
cases("is_floating_point_method", lambda T, dtype: T.zeros(2, dtype=dtype).is_floating_point(), dtype=ALL)
cases("is_complex", lambda T, dtype: (T.is_complex(T.zeros(1, dtype=dtype)), T.zeros(1, dtype=dtype).is_complex()),
      dtype=ALL)
cases("is_signed", lambda T, dtype: T.zeros(1, dtype=dtype).is_signed(), dtype=ALL)
error_case("is_floating_point_number", lambda T: T.is_floating_point(1.0))
case("is_tensor", lambda T: (T.is_tensor(T.tensor([1.])), T.is_tensor([1]), T.is_tensor(1.0), T.is_tensor(None)))
cases("is_nonzero", lambda T, v: T.is_nonzero(T.tensor(v)), v=[[1.], [0], 0.0, -0.0, float("nan"), [[True]], [False], 3])
case("is_nonzero_method", lambda T: T.tensor([2.5]).is_nonzero())
error_case("is_nonzero_many", lambda T: T.is_nonzero(T.tensor([1, 2])))
error_case("is_nonzero_empty", lambda T: T.is_nonzero(T.tensor([])))
case("numel_fn", lambda T: (T.numel(T.zeros(2, 3)), T.numel(T.tensor(1.)), T.numel(T.zeros(0, 4))))
error_case("numel_list", lambda T: T.numel([1]))

# ----------------------------------------------------------------------------------------- finfo / iinfo
cases("finfo", lambda T, dtype: (lambda f: (f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution,
                                            f.dtype))(T.finfo(dtype)), dtype=FLOATS)
cases("finfo_repr", lambda T, dtype: (repr(T.finfo(dtype)), str(T.finfo(dtype))), dtype=FLOATS)
case("finfo_default", lambda T: repr(T.finfo()))
case("finfo_default_f64", lambda T: (T.set_default_dtype(T.float64), repr(T.finfo()))[1])
case("finfo_python_float", lambda T: T.finfo(float).dtype)
case("finfo_eq", lambda T: (T.finfo(T.float32) == T.finfo(T.float), T.finfo(T.float32) == T.finfo(T.float64)))
error_case("finfo_int", lambda T: T.finfo(T.int32))
error_case("finfo_str", lambda T: T.finfo("float32"))
cases("iinfo", lambda T, dtype: (lambda f: (f.bits, f.max, f.min, f.dtype))(T.iinfo(dtype)), dtype=INTS)
cases("iinfo_repr", lambda T, dtype: repr(T.iinfo(dtype)), dtype=INTS)
error_case("iinfo_float", lambda T: T.iinfo(T.float32))
error_case("iinfo_bool", lambda T: T.iinfo(T.bool))
case("iinfo_clamp_use", lambda T: T.tensor([300.]).clamp(max=T.iinfo(T.int8).max) if hasattr(T.Tensor, "clamp")
     else T.iinfo(T.int8).max)

# ---------------------------------------------------------------------------------------------- Tensor.to
case("to_dtype", lambda T: T.tensor(X).to(T.float64))
case("to_dtype_kw", lambda T: T.tensor(X).to(dtype=T.int32))
cases("to_dtype_all", lambda T, dtype: T.tensor(X).to(dtype), dtype=ALL)
cases("to_from_int", lambda T, dtype: T.tensor([[-3, 0, 7], [255, 128, -128]]).to(dtype), dtype=ALL)
case("to_same_is_self", lambda T: (lambda x: x.to(T.float32) is x)(T.tensor(X)))
case("to_copy_is_new", lambda T: (lambda x: (x.to(T.float32, copy=True) is x, x.to(T.float32, copy=True)))(T.tensor(X)))
case("to_copy_kw_only", lambda T: (lambda x: x.to(dtype=T.float32, copy=True) is x)(T.tensor(X)))
case("to_other_tensor", lambda T: T.tensor(X).to(T.zeros(1, dtype=T.int64)))
case("to_other_same", lambda T: (lambda x: x.to(T.zeros(1)) is x)(T.tensor(X)))
case("to_cpu_str", lambda T: (lambda x: x.to("cpu") is x)(T.tensor(X)))
case("to_cpu_device", lambda T: (lambda x: x.to(T.device("cpu")) is x)(T.tensor(X)))
case("to_cpu_index", lambda T: T.tensor(X).to("cpu:0"))
case("to_device_dtype", lambda T: T.tensor(X).to("cpu", T.float64))
case("to_device_dtype_kw", lambda T: T.tensor(X).to("cpu", dtype=T.float64))
case("to_kwargs", lambda T: T.tensor(X).to(device="cpu", dtype=T.float16))
case("to_none", lambda T: (lambda x: x.to(None) is x)(T.tensor(X)))
case("to_no_args", lambda T: (lambda x: x.to() is x)(T.tensor(X)))
case("to_non_blocking", lambda T: T.tensor(X).to(T.float64, non_blocking=True))
case("to_noncontig", lambda T: T.tensor(X).t().to(T.float64))
case("to_keeps_layout", lambda T: T.tensor(X).t().to(T.float64).stride())
case("to_grad_fn", lambda T: T.tensor(X, requires_grad=True).to(T.float64))
case("to_copy_grad_fn", lambda T: T.tensor(X, requires_grad=True).to(T.float32, copy=True))
case("to_int_drops_grad", lambda T: T.tensor(X, requires_grad=True).to(T.int32))
grad_case("to_grad", lambda T, x: x.to(T.float64), X)
grad_case("to_grad_f16", lambda T, x: x.to(T.float16), X, atol=1e-2)
grad_case("to_copy_grad", lambda T, x: x.to(T.float32, copy=True), X)
grad_case("to_other_grad", lambda T, x: x.to(T.zeros(1, dtype=T.float64)), X)
error_case("to_cuda", lambda T: T.tensor(X).to("cuda"))
error_case("to_cuda_index", lambda T: T.tensor(X).to("cuda:0"))
error_case("to_cuda_device", lambda T: T.tensor(X).to(T.device("cuda")))
error_case("to_bad_device", lambda T: T.tensor(X).to("foo"))
error_case("to_int_device", lambda T: T.tensor(X).to(0))
error_case("to_two_dtypes", lambda T: T.tensor(X).to(T.float64, T.float32),
           match="^to\\(\\) received an invalid combination")

# --------------------------------------------------------------------------------- .float() & co, .type()
CASTS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"]
cases("cast_method", lambda T, m: getattr(T.tensor(X), m)(), m=CASTS)
cases("cast_method_from_int", lambda T, m: getattr(T.tensor([[-3, 0, 7], [255, 128, -129]]), m)(), m=CASTS)
case("cast_float_is_self", lambda T: (lambda x: x.float() is x)(T.tensor(X)))
case("cast_double_is_new", lambda T: (lambda x: x.double() is x)(T.tensor(X)))
case("cast_grad_fn", lambda T: T.tensor(X, requires_grad=True).double())
case("cast_float_grad_fn_none", lambda T: T.tensor(X, requires_grad=True).float().grad_fn is None)
grad_case("cast_double_grad", lambda T, x: x.double() * 2, X)
grad_case("cast_half_grad", lambda T, x: x.half(), X, atol=1e-2)
case("cast_int_no_grad", lambda T: T.tensor(X, requires_grad=True).int().requires_grad)
cases("type_name", lambda T, dtype: T.zeros(1, dtype=dtype).type(), dtype=ALL)
case("type_dtype", lambda T: T.tensor(X).type(T.int32))
case("type_dtype_kw", lambda T: T.tensor(X).type(dtype=T.int64))
case("type_same_is_self", lambda T: (lambda x: x.type(T.float32) is x)(T.tensor(X)))
case("type_str", lambda T: T.tensor(X).type("torch.DoubleTensor"))
cases("type_str_all", lambda T, tn: T.tensor(X).type(tn).dtype,
      tn=["torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.BFloat16Tensor", "torch.LongTensor",
            "torch.IntTensor", "torch.ShortTensor", "torch.CharTensor", "torch.ByteTensor", "torch.BoolTensor"])
error_case("type_bad_str", lambda T: T.tensor(X).type("torch.Foo"))
error_case("type_dtype_name_str", lambda T: T.tensor(X).type("float64"))
error_case("type_int", lambda T: T.tensor(X).type(1))

# --------------------------------------------------------------------------------------------- devices
case("device_cpu", lambda T: T.device("cpu"))
case("device_cpu_repr", lambda T: (repr(T.device("cpu")), str(T.device("cpu"))))
case("device_cuda_constructs", lambda T: (repr(T.device("cuda")), str(T.device("cuda"))))
case("device_cuda_index", lambda T: (repr(T.device("cuda:1")), str(T.device("cuda", 1)), T.device("cuda:1").index))
case("device_kwargs", lambda T: (repr(T.device(type="cuda", index=2)), repr(T.device(type="cpu"))))
case("device_cpu_index", lambda T: (repr(T.device("cpu", 0)), T.device("cpu").index, T.device("cpu").type))
case("device_copy", lambda T: repr(T.device(T.device("cuda:1"))))
case("device_other_types", lambda T: [repr(T.device(s)) for s in ("mps", "meta", "xpu", "hip", "privateuseone")])
case("device_eq", lambda T: (T.device("cpu") == T.device("cpu"), T.device("cpu") == "cpu", T.device("cpu") != "cpu",
                             T.device("cuda:0") == T.device("cuda"), T.device("cpu") == 1))
case("device_hash", lambda T: {T.device("cpu"): 1}[T.device("cpu")])
case("device_format", lambda T: (f"{T.device('cpu')}", f"{T.device('cuda', 3)}", "%s" % T.device("cpu")))
case("device_class", lambda T: (type(T.device("cpu")).__name__, type(T.device("cpu")).__module__))
case("device_pickle", lambda T: (lambda pickle: repr(pickle.loads(pickle.dumps(T.device("cuda:1")))))(
    __import__("pickle")))
case("device_with_cpu", lambda T: (lambda d: (d.__enter__(), T.zeros(1).device, d.__exit__(None, None, None))[1])(
    T.device("cpu")))
error_case("device_int", lambda T: T.device(0))
error_case("device_negative_int", lambda T: T.device(-1))
error_case("device_typo", lambda T: T.device("gpu"))
error_case("device_upper", lambda T: T.device("CPU"))
error_case("device_bad_index", lambda T: T.device("cpu:x"))
error_case("device_leading_zero", lambda T: T.device("cpu:01"))
error_case("device_negative_index", lambda T: T.device("cuda:-1"))
error_case("device_space", lambda T: T.device(" cpu"))
error_case("device_two_colons", lambda T: T.device("cuda:0:1"))
error_case("device_index_twice", lambda T: T.device("cuda:1", 2))
error_case("device_negative_index_arg", lambda T: T.device("cuda", -1))
error_case("device_str_index", lambda T: T.device("cpu", "a"))
error_case("device_readonly", lambda T: setattr(T.device("cpu"), "type", "cuda"))
case("tensor_device", lambda T: T.tensor(X).device)
case("tensor_device_repr", lambda T: (repr(T.tensor(X).device), str(T.zeros(1).device)))
case("tensor_device_eq", lambda T: (T.zeros(1).device == T.device("cpu"), T.zeros(1).device == "cpu"))
case("factory_device_obj", lambda T: T.zeros(2, device=T.device("cpu")).device)
case("tensor_is_cuda", lambda T: (T.zeros(1).is_cuda, T.zeros(1).is_cpu))
case("tensor_get_device", lambda T: T.zeros(1).get_device())
case("tensor_cpu_is_self", lambda T: (lambda x: x.cpu() is x)(T.tensor(X)))
case("cuda_is_available", lambda T: (T.cuda.is_available(), T.cuda.device_count()))
case("cuda_or_cpu_idiom", lambda T: T.zeros(2, device="cuda" if T.cuda.is_available() else "cpu"))
error_case("tensor_cuda", lambda T: T.tensor(X).cuda())
error_case("tensor_cuda_index", lambda T: T.tensor(X).cuda(0))
error_case("tensor_cuda_str", lambda T: T.tensor(X).cuda("cuda:1"))
error_case("tensor_cuda_cpu", lambda T: T.tensor(X).cuda("cpu"))
case("dtype_pickle", lambda T: (lambda pickle, copy: (repr(pickle.loads(pickle.dumps(T.float16))),
                                                     pickle.loads(pickle.dumps(T.int8)) is T.int8,
                                                     copy.deepcopy(T.bool) is T.bool))(
    __import__("pickle"), __import__("copy")))
error_case("factory_cuda", lambda T: T.zeros(2, device="cuda"))
error_case("factory_cuda_obj", lambda T: T.ones(2, device=T.device("cuda")))
error_case("factory_cuda_index", lambda T: T.arange(2, device="cuda:0"))
error_case("factory_int_device", lambda T: T.zeros(2, device=0))
error_case("like_cuda", lambda T: T.zeros_like(T.zeros(2), device="cuda"))
error_case("tensor_cuda_kw", lambda T: T.tensor([1.], device="cuda"))

# --------------------------------------------------------------------------------------- tolist / item
cases("tolist", lambda T, dtype: T.tensor([[1, 0], [3, 1]], dtype=dtype).tolist(), dtype=ALL)
case("tolist_float_values", lambda T: T.tensor([0.1, 1 / 3, float("inf"), -0.0]).tolist())
case("tolist_f16", lambda T: T.tensor([0.1, 1 / 3], dtype=T.float16).tolist())
case("tolist_0d", lambda T: T.tensor(2.5).tolist())
case("tolist_empty", lambda T: (T.zeros(2, 0).tolist(), T.zeros(0).tolist(), len(T.zeros(2, 0).tolist())))
case("tolist_noncontig", lambda T: T.tensor(X).t().tolist())
case("tolist_types", lambda T: [type(v).__name__ for v in T.tensor([1, 2]).tolist() + T.tensor([1.]).tolist()
                                + T.tensor([True]).tolist()])
cases("item", lambda T, dtype: T.tensor([7], dtype=dtype).item(), dtype=ALL)
case("item_type", lambda T: (type(T.tensor(2).item()).__name__, type(T.tensor(2.).item()).__name__,
                             type(T.tensor(True).item()).__name__))
case("item_2d_one_elem", lambda T: T.tensor([[2.5]]).item())
case("item_requires_grad", lambda T: T.tensor(2.5, requires_grad=True).item())
error_case("item_many", lambda T: T.tensor([1, 2]).item())
error_case("item_empty", lambda T: T.tensor([]).item())

# ------------------------------------------------------------------------------- legacy tensor types
LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
          "CharTensor", "ByteTensor", "BoolTensor"]
cases("legacy_from_data", lambda T, lt: getattr(T, lt)([1, 0, 2]), lt=LEGACY)
cases("legacy_sizes", lambda T, lt: (lambda x: (x.shape, x.dtype))(getattr(T, lt)(2, 3)), lt=LEGACY)
cases("legacy_repr", lambda T, lt: repr(getattr(T, lt)), lt=LEGACY)
cases("legacy_isinstance", lambda T, lt: [isinstance(T.zeros(1, dtype=d), getattr(T, lt))
                                          for d in (T.float32, T.int64, T.bool, T.float16)], lt=LEGACY)
case("legacy_dtype_attr", lambda T: (T.FloatTensor.dtype, T.LongTensor.dtype))
case("legacy_nested", lambda T: T.FloatTensor([[1, 2], [3, 4]]))
case("legacy_tuple_is_data", lambda T: T.FloatTensor((2, 3)))
case("legacy_size_object", lambda T: T.FloatTensor(T.Size([2, 2])).shape)
case("legacy_truncates", lambda T: T.LongTensor([1.7, -2.5]))
case("legacy_empty", lambda T: T.FloatTensor())
case("legacy_same_dtype_tensor", lambda T: T.FloatTensor(T.tensor([1., 2.])))
case("legacy_type_conversion", lambda T: (T.zeros(2).type(T.LongTensor), T.zeros(2).type(T.FloatTensor)))
case("legacy_not_subclass", lambda T: issubclass(T.FloatTensor, T.Tensor))
error_case("legacy_negative_size", lambda T: T.FloatTensor(-1))
case("default_device", lambda T: (T.get_default_device(), T.set_default_device("cpu"), T.set_default_device(None)))
case("tensor_itemsize_nbytes", lambda T: (T.zeros(2, 3).itemsize, T.zeros(2, 3).nbytes,
                                          T.zeros(2, 3, dtype=T.float16).t().nbytes, T.zeros(3).expand(2, 3).nbytes,
                                          T.zeros(1, dtype=T.bool).itemsize))
case("dtype_to_real", lambda T: (T.float32.to_real(), T.int8.to_real()))
error_case("dtype_int_to_complex", lambda T: T.int32.to_complex())
case("dtype_float_to_complex", lambda T: T.float32.to_complex(), skip=NO_COMPLEX)

# ------------------------------------------------------------------------- layout / memory_format tokens
TOKENS = ["strided", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d", "sparse_coo"]
cases("token_repr", lambda T, tok: (repr(getattr(T, tok)), str(getattr(T, tok)), type(getattr(T, tok)).__name__),
      tok=TOKENS)
case("tensor_layout", lambda T: repr(T.zeros(2).layout))
case("factory_layout_strided", lambda T: T.zeros(2, layout=T.strided))
case("like_memory_format", lambda T: T.zeros_like(T.ones(2, 3).t(), memory_format=T.preserve_format))
case("contiguous_memory_format", lambda T: T.ones(2, 3).t().contiguous(memory_format=T.contiguous_format))
case("token_pickle", lambda T: (lambda pickle: repr(pickle.loads(pickle.dumps(T.channels_last))))(__import__("pickle")))
error_case("layout_no_instances", lambda T: T.layout())
error_case("memory_format_no_instances", lambda T: T.memory_format())
error_case("factory_layout_str", lambda T: T.zeros(2, layout="strided"))
error_case("like_memory_format_str", lambda T: T.zeros_like(T.ones(2), memory_format="x"))
case("factory_sparse_layout", lambda T: T.zeros(2, layout=T.sparse_coo).shape,
     skip="wick has only strided tensors: a sparse layout is refused with a RuntimeError")
