"""numpy interop: torch.from_numpy / Tensor.numpy() share memory, torch.tensor(array) copies and keeps the
dtype, torch.as_tensor(array) shares; numpy values inside lists; errors.  numpy is optional for wick: without
it these cases are not registered (wick itself imports without numpy)."""
from .harness import *  # noqa: F401,F403

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is optional
    np = None

if np is not None:
    NP_DTYPES = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
    WIDER = "wick has no uint16/uint32/uint64/complex dtypes, so these numpy arrays are refused"

    def arr(dt="float64", shape=(2, 3)):
        n = 1
        for s in shape:
            n *= s
        return (np.arange(n) % 5 - 1).astype(dt).reshape(shape)

    # ------------------------------------------------------------------------------------ from_numpy
    cases("from_numpy_dtype", lambda T, dt: T.from_numpy(arr(dt)), dt=NP_DTYPES)
    case("from_numpy_shares", lambda T: (lambda a: (lambda t: (a.__setitem__((0, 0), 7.5), t)[1])(T.from_numpy(a)))(
        arr()))
    case("from_numpy_shares_back", lambda T: (lambda a: (T.from_numpy(a).add_(1), a)[1])(arr("float32")))
    case("from_numpy_transposed", lambda T: (lambda t: (t, t.stride(), t.is_contiguous()))(T.from_numpy(arr().T)))
    case("from_numpy_sliced", lambda T: (lambda t: (t, t.stride()))(T.from_numpy(arr(shape=(4, 6))[::2, 1::2])))
    case("from_numpy_0d", lambda T: T.from_numpy(np.array(2.5)))
    case("from_numpy_empty", lambda T: T.from_numpy(np.zeros((2, 0, 3))))
    case("from_numpy_requires_grad", lambda T: T.from_numpy(arr()).requires_grad_())
    case("from_numpy_keeps_array_alive", lambda T: (lambda t: t + 0)(T.from_numpy(arr("int32"))))
    case("from_numpy_readonly_warns", lambda T: (lambda a: (a.setflags(write=False), T.from_numpy(a))[1])(arr()),
         warns=True, skip="torch warns once per process and wick too: whether the warning shows depends on "
                          "which case ran first")
    cases("from_numpy_wide_types", lambda T, dt: T.from_numpy(arr(dt)), dt=["uint16", "uint32", "complex64"],
          skip=WIDER)
    error_case("from_numpy_list", lambda T: T.from_numpy([1, 2]))
    error_case("from_numpy_scalar", lambda T: T.from_numpy(np.float32(2)))
    error_case("from_numpy_negative_strides", lambda T: T.from_numpy(arr()[:, ::-1]))
    error_case("from_numpy_byteorder", lambda T: T.from_numpy(np.array([1, 2], dtype=">i4")))
    error_case("from_numpy_str", lambda T: T.from_numpy(np.array(["a"])), match="^can't convert np.ndarray of type "
               "numpy.str_. The only supported types are")
    error_case("from_numpy_object", lambda T: T.from_numpy(np.array([None, 1])), match="^can't convert np.ndarray "
               "of type numpy.object_. The only supported types are")

    # ------------------------------------------------------------------------------- tensor / as_tensor
    cases("tensor_from_numpy_dtype", lambda T, dt: T.tensor(arr(dt)), dt=NP_DTYPES)
    case("tensor_from_numpy_copies", lambda T: (lambda a: (lambda t: (a.__setitem__((0, 0), 7.5), t)[1])(T.tensor(a)))(
        arr()))
    case("tensor_from_numpy_dtype_arg", lambda T: T.tensor(arr("int64"), dtype=T.float32))
    case("tensor_from_numpy_requires_grad", lambda T: T.tensor(arr(), requires_grad=True))
    case("tensor_from_numpy_transposed", lambda T: T.tensor(arr().T))
    case("tensor_from_numpy_0d", lambda T: T.tensor(np.array(5)))
    case("tensor_from_numpy_noncontig_cols", lambda T: T.tensor(arr(shape=(2, 4))[:, ::2]))
    error_case("tensor_from_numpy_negative_strides", lambda T: T.tensor(arr()[::-1]))
    error_case("tensor_from_numpy_byteorder", lambda T: T.tensor(np.array([1, 2], dtype=">i4")))
    error_case("tensor_from_numpy_str", lambda T: T.tensor(np.array(["a"])), match="^can't convert np.ndarray of "
               "type numpy.str_. The only supported types are")
    case("as_tensor_numpy_shares", lambda T: (lambda a: (lambda t: (a.__setitem__((0, 0), 7.5), t)[1])(
        T.as_tensor(a)))(arr()))
    case("as_tensor_numpy_dtype_copies", lambda T: (lambda a: (lambda t: (a.__setitem__((0, 0), 7.5), t)[1])(
        T.as_tensor(a, dtype=T.float32)))(arr()))
    case("as_tensor_numpy_same_dtype_shares", lambda T: (lambda a: (lambda t: (a.__setitem__((0, 0), 7.5), t)[1])(
        T.as_tensor(a, dtype=T.float64)))(arr()))
    cases("as_tensor_numpy_dtype", lambda T, dt: T.as_tensor(arr(dt)), dt=NP_DTYPES)

    # ------------------------------------------------------------------------------ numpy values in lists
    case("tensor_list_of_arrays", lambda T: T.tensor([np.array([1, 2]), np.array([3, 4])]))
    case("tensor_list_of_int16_arrays", lambda T: T.tensor([np.array([1, 2], dtype=np.int16),
                                                            np.array([3, 4], dtype=np.int16)]))
    case("tensor_list_of_arrays_mixed", lambda T: T.tensor([[1, 2], np.array([3, 4])]))
    case("tensor_np_float32_scalars", lambda T: T.tensor([np.float32(1.5), 2]))
    case("tensor_np_float64_scalars", lambda T: T.tensor([np.float64(1.5)]))
    case("tensor_np_int32_scalar", lambda T: T.tensor(np.int32(1)))
    case("tensor_np_float64_scalar", lambda T: T.tensor(np.float64(1)))
    case("tensor_np_bool_scalar", lambda T: T.tensor(np.bool_(True)))
    case("tensor_np_bool_list", lambda T: T.tensor([np.bool_(True), np.bool_(False)]))
    case("tensor_np_bool_to_bool", lambda T: T.tensor([np.bool_(True), np.int8(0)], dtype=T.bool))
    error_case("tensor_np_float32_to_bool", lambda T: T.tensor([np.float32(0.5)], dtype=T.bool))
    case("tensor_np_int_promotion", lambda T: T.tensor([np.int8(1), np.uint8(1)]))
    case("tensor_np_f16_and_int", lambda T: T.tensor([np.float16(1), 2]))
    case("tensor_np_float64_to_int", lambda T: T.tensor([np.float64(2.5)], dtype=T.int32))
    error_case("tensor_np_0d_in_list", lambda T: T.tensor([np.array(1.5), 2]))
    error_case("tensor_np_float32_to_int", lambda T: T.tensor([np.float32(2.5)], dtype=T.int64))
    error_case("tensor_np_int_overflow", lambda T: T.tensor([np.int64(300)], dtype=T.uint8))
    error_case("tensor_np_bool_with_int", lambda T: T.tensor([np.bool_(1), 2]))

    # ------------------------------------------------------------------------------------- Tensor.numpy
    cases("numpy_dtype", lambda T, dtype: T.tensor([[1, 0, 2], [3, 1, 0]], dtype=dtype).numpy(),
          dtype=[D.float64, D.float32, D.float16, D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool])
    case("numpy_shares", lambda T: (lambda t: (lambda a: (t.add_(1), a)[1])(t.numpy()))(T.tensor([1., 2.])))
    case("numpy_shares_back", lambda T: (lambda t: (t.numpy().__setitem__(0, 9.), t)[1])(T.tensor([1., 2.])))
    case("numpy_transposed_strides", lambda T: T.zeros(2, 3).t().numpy().strides)
    case("numpy_sliced_strides", lambda T: T.zeros(2, 3)[:, ::2].numpy().strides)
    case("numpy_expanded_strides", lambda T: T.zeros(3).expand(2, 3).numpy().strides)
    case("numpy_0d", lambda T: T.tensor(2.5).numpy())
    case("numpy_force", lambda T: T.tensor([1., 2.], requires_grad=True).numpy(force=True))
    case("numpy_detach", lambda T: T.tensor([1., 2.], requires_grad=True).detach().numpy())
    case("numpy_asarray", lambda T: np.asarray(T.tensor([[1.5, 2.]])))
    case("numpy_array_copy", lambda T: np.array(T.tensor([1, 2], dtype=T.int32)))
    case("numpy_roundtrip", lambda T: T.from_numpy(T.tensor([[1.5, -2.]]).numpy()))
    error_case("numpy_requires_grad", lambda T: T.tensor([1., 2.], requires_grad=True).numpy())
    error_case("numpy_bfloat16", lambda T: T.zeros(2, dtype=T.bfloat16).numpy())
    error_case("ndarray_matmul_tensor", lambda T: np.ones((2, 2), dtype=np.float32) @ T.ones(2, 2))
    error_case("ndarray_add_tensor", lambda T: np.ones((2, 2), dtype=np.float32) + T.ones(2, 2))
    case("np_scalar_mul_tensor", lambda T: np.float64(2.5) * T.ones(2))
