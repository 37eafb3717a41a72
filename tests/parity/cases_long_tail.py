"""The long tail of torch names real code reaches (issue 24): mvlgamma (torch's composite over lgamma, its
MvlgammaBackward0, in-place and out= with torch's cast messages) and as_strided_scatter (a copy of self with src
written through an as_strided view; AsStridedScatterBackward0)."""
from .harness import *  # noqa: F401,F403

X = [[2.5, 3.0, 4.25], [1.75, 6.0, 10.5]]
FD = [D.float32, D.float64, D.float16, D.bfloat16]

# ---- mvlgamma
cases("mvlgamma", lambda T, p, dtype: T.mvlgamma(T.tensor(X, dtype=dtype), p), p=[1, 2, 3, 4], dtype=FD)
cases("mvlgamma_int", lambda T, dtype: T.mvlgamma(T.tensor([[3, 4], [5, 9]], dtype=dtype), 2),
      dtype=[D.int64, D.int32, D.uint8])


def in_default_f64(T, fn):
    T.set_default_dtype(T.float64)
    try:
        return fn()
    finally:
        T.set_default_dtype(T.float32)


case("mvlgamma_int_default_dtype_f64", lambda T: in_default_f64(T, lambda: T.mvlgamma(T.tensor([3, 4]), 3)))
case("mvlgamma_method", lambda T: T.tensor(X).mvlgamma(3))
case("mvlgamma_keyword", lambda T: T.mvlgamma(T.tensor(X), p=2))
case("mvlgamma_below_domain", lambda T: T.mvlgamma(T.tensor([0.5, 0.25, 1.0, -1.5]), 3))
case("mvlgamma_0d", lambda T: T.mvlgamma(T.tensor(3.5), 2))
case("mvlgamma_empty", lambda T: T.mvlgamma(T.empty(0, 3), 2))
case("mvlgamma_nc", lambda T: T.mvlgamma(nc_t(T, X), 2))
case("mvlgamma_inplace", lambda T: (lambda x: (x.mvlgamma_(2), x))(T.tensor(X)))
case("mvlgamma_inplace_f64", lambda T: (lambda x: (x.mvlgamma_(3), x))(T.tensor(X, dtype=T.float64)))
case("mvlgamma_out", lambda T: (lambda o: (T.mvlgamma(T.tensor(X), 2, out=o), o))(T.empty(0)))
# computed in float32, then written to float64 out: compared at float32's tolerance (wick's float32 lgamma is
# correctly rounded, glibc's lgammaf that torch calls is an ulp away at some points, e.g. 1.25)
case("mvlgamma_out_f64", lambda T: (lambda o: (T.mvlgamma(T.tensor(X), 2, out=o), o))(T.empty(2, 3, dtype=T.float64)),
     rtol=1.3e-6, atol=1e-5)
case("mvlgamma_out_int_input", lambda T: (lambda o: (T.mvlgamma(T.tensor([3, 4]), 2, out=o), o))(T.empty(2)))
error_case("mvlgamma_bool", lambda T: T.mvlgamma(T.tensor([True, False]), 2))
error_case("mvlgamma_bool_p0", lambda T: T.mvlgamma(T.tensor([True]), 0))
error_case("mvlgamma_p0", lambda T: T.mvlgamma(T.tensor([3.0]), 0))
error_case("mvlgamma_p_negative", lambda T: T.mvlgamma(T.tensor([3.0]), -2))
error_case("mvlgamma_p_float", lambda T: T.mvlgamma(T.tensor([3.0]), 2.5))
error_case("mvlgamma_no_p", lambda T: T.mvlgamma(T.tensor([3.0])))
error_case("mvlgamma_not_tensor", lambda T: T.mvlgamma([3.0], 2))
error_case("mvlgamma_inplace_int", lambda T: T.tensor([3, 4]).mvlgamma_(2))
error_case("mvlgamma_inplace_bool", lambda T: T.tensor([True]).mvlgamma_(1))
error_case("mvlgamma_inplace_p0", lambda T: T.tensor([3]).mvlgamma_(0))
error_case("mvlgamma_out_long", lambda T: T.mvlgamma(T.tensor([3.0]), 2, out=T.empty(1, dtype=T.long)))
error_case("mvlgamma_out_long_int_input", lambda T: T.mvlgamma(T.tensor([3]), 2, out=T.empty(1, dtype=T.long)))
case("mvlgamma_grad_fn", lambda T: type(T.mvlgamma(T.tensor(X, requires_grad=True), 2).grad_fn).__name__)
for _p in (1, 2, 3):
    grad_case(f"mvlgamma_grad[p={_p}]", lambda T, x, p=_p: T.mvlgamma(x, p), inp(X, dtype=D.float64), order=2)
grad_case("mvlgamma_grad_f32", lambda T, x: T.mvlgamma(x, 4), X)
grad_case("mvlgamma_grad_inplace", lambda T, x: (x * 1).mvlgamma_(2), inp(X, dtype=D.float64), order=2)
grad_case("mvlgamma_grad_nc", lambda T, x: T.mvlgamma(x, 2), inp(X, dtype=D.float64, view=vT))

# ---- as_strided_scatter
Z = [[0.0] * 4 for _ in range(3)]
S = [[1.0, 2.0], [3.0, 4.0]]
case("as_strided_scatter", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.tensor(S), (2, 2), (1, 2)))
cases("as_strided_scatter_offset", lambda T, off: T.as_strided_scatter(T.zeros(3, 4), T.tensor(S), (2, 2), (4, 1), off),
      off=[0, 1, 5, 6])
case("as_strided_scatter_keyword", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.tensor(S), size=(2, 2),
                                                                   stride=(1, 3), storage_offset=2))
case("as_strided_scatter_method", lambda T: T.zeros(3, 4).as_strided_scatter(T.tensor(S), (2, 2), (1, 2)))
case("as_strided_scatter_flat", lambda T: T.as_strided_scatter(T.zeros(6), T.tensor([7.0, 8.0, 9.0]), (3,), (2,), 1))
case("as_strided_scatter_transposed", lambda T: (lambda r: (r, r.stride()))(
    T.as_strided_scatter(T.zeros(3, 4).t(), T.tensor(S), (2, 2), (1, 2), 1)))
case("as_strided_scatter_nc_src", lambda T: T.as_strided_scatter(T.zeros(3, 4), nc_t(T, S), (2, 2), (1, 2)))
case("as_strided_scatter_src_dtype", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.tensor(S, dtype=T.float64),
                                                                    (2, 2), (1, 2)))
case("as_strided_scatter_int", lambda T: T.as_strided_scatter(T.zeros(3, 4, dtype=T.int64), T.tensor([[5, 6]]),
                                                              (1, 2), (4, 1), 3))
case("as_strided_scatter_overlap", lambda T: T.as_strided_scatter(T.zeros(4), T.tensor([[1.0, 2.0], [3.0, 4.0]]),
                                                                  (2, 2), (1, 1)))
case("as_strided_scatter_empty", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.empty(0, 2), (0, 2), (1, 2)))
case("as_strided_scatter_self_unchanged", lambda T: (lambda z: (T.as_strided_scatter(z, T.tensor(S), (2, 2), (1, 2)), z))(
    T.zeros(3, 4)))
error_case("as_strided_scatter_size_mismatch", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.ones(2, 3), (2, 2), (1, 2)))
error_case("as_strided_scatter_out_of_bounds", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.ones(2, 2), (2, 2), (1, 20)))
error_case("as_strided_scatter_negative_stride", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.ones(2, 2), (2, 2), (-1, 2)))
error_case("as_strided_scatter_rank_mismatch", lambda T: T.as_strided_scatter(T.zeros(3, 4), T.ones(2, 2), (2, 2), (1,)))
error_case("as_strided_scatter_grad_noncontiguous",
           lambda T: T.as_strided_scatter(T.zeros(4, 3, requires_grad=True).t(), T.ones(2), (2,), (1,)))
case("as_strided_scatter_grad_fn", lambda T: type(T.as_strided_scatter(T.zeros(3, 4, requires_grad=True),
                                                                       T.tensor(S), (2, 2), (1, 2)).grad_fn).__name__)
grad_case("as_strided_scatter_grad", lambda T, a, b: T.as_strided_scatter(a, b, (2, 2), (1, 2), 1), Z, S, order=2)
grad_case("as_strided_scatter_grad_src_only", lambda T, a, b: T.as_strided_scatter(a, b, (2, 2), (4, 1), 5),
          const(Z), S)
grad_case("as_strided_scatter_grad_self_only", lambda T, a, b: T.as_strided_scatter(a, b, (3,), (5,)), Z,
          const([1.0, 2.0, 3.0]))
grad_case("as_strided_scatter_grad_nc_grad", lambda T, a, b: T.as_strided_scatter(a, b, (2, 2), (1, 2)).t(), Z, S)

# ---- frombuffer (shares the buffer's bytes; torch's checks in its order)
B8 = bytes(range(1, 9))


def fb(T, data=B8, **kw):
    return T.frombuffer(bytearray(data), **kw)


cases("frombuffer", lambda T, dtype: fb(T, dtype=dtype),
      dtype=[D.uint8, D.int8, D.int16, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64])
case("frombuffer_bool", lambda T: fb(T, bytes([0, 1, 1, 0]), dtype=T.bool))
case("frombuffer_count_offset", lambda T: fb(T, dtype=T.int16, count=2, offset=2))
case("frombuffer_offset_only", lambda T: fb(T, dtype=T.int16, offset=2))
case("frombuffer_offset_odd", lambda T: fb(T, dtype=T.uint8, offset=7))
case("frombuffer_count_negative", lambda T: fb(T, dtype=T.int32, count=-2))
case("frombuffer_count_partial_unaligned", lambda T: fb(T, bytes(range(1, 8)), dtype=T.int16, count=3))
case("frombuffer_float_bits", lambda T: T.frombuffer(bytearray(b"\x00\x00\x80\x3f\x00\x00\x00\xc0"), dtype=T.float32))
case("frombuffer_bytes_readonly", lambda T: T.frombuffer(b"abcd", dtype=T.uint8))
case("frombuffer_memoryview", lambda T: T.frombuffer(memoryview(bytearray(B8))[2:6], dtype=T.uint8))
case("frombuffer_shares_memory", lambda T: (lambda b: (lambda x: (x.fill_(9), list(b)))(
    T.frombuffer(b, dtype=T.uint8, count=3, offset=1)))(bytearray(B8)))
case("frombuffer_sees_writes", lambda T: (lambda b: (lambda x: (b.__setitem__(0, 77), x))(
    T.frombuffer(b, dtype=T.uint8)))(bytearray(B8)))
case("frombuffer_requires_grad", lambda T: (lambda x: (x.requires_grad, x.is_leaf, x.grad_fn))(
    fb(T, dtype=T.float32, requires_grad=True)))
case("frombuffer_meta", lambda T: (lambda x: (x.shape, x.stride(), x.storage_offset(), x.is_contiguous()))(
    fb(T, dtype=T.int16, offset=2)))
error_case("frombuffer_int_requires_grad", lambda T: fb(T, dtype=T.int32, requires_grad=True))
error_case("frombuffer_count_too_big", lambda T: fb(T, dtype=T.int32, count=3))
error_case("frombuffer_count_offset_too_big", lambda T: fb(T, dtype=T.int16, count=4, offset=1))
cases("frombuffer_bad_offset", lambda T, off: fb(T, dtype=T.int32, offset=off), off=[8, 9, -1], kind="error")
error_case("frombuffer_empty", lambda T: T.frombuffer(bytearray(), dtype=T.int32))
error_case("frombuffer_count_zero", lambda T: fb(T, dtype=T.int32, count=0))
error_case("frombuffer_not_multiple", lambda T: fb(T, bytes(7), dtype=T.int32))
error_case("frombuffer_not_multiple_offset", lambda T: fb(T, dtype=T.float64, offset=1))
error_case("frombuffer_no_dtype", lambda T: fb(T))
error_case("frombuffer_dtype_positional", lambda T: T.frombuffer(bytearray(B8), T.uint8))
error_case("frombuffer_dtype_str", lambda T: fb(T, dtype="uint8"))
error_case("frombuffer_count_float", lambda T: fb(T, dtype=T.uint8, count=1.5))
error_case("frombuffer_list", lambda T: T.frombuffer([1, 2], dtype=T.uint8))
error_case("frombuffer_strided_view", lambda T: T.frombuffer(memoryview(bytearray(B8))[::2], dtype=T.uint8))
