"""Memory safety (issue 16): sizes whose numel, byte count or reach overflows or leaves the storage raise torch's
errors, from factories, out=, resize_, as_strided, views and checkpoints crafted byte for byte (craft.py)."""
import io

import numpy as np

from .harness import *
from .craft import ckpt, f32, tensor_ref

BIG = 2 ** 62
WRAP_STRIDES = (100000, 2 ** 62 - 1, 2 ** 62 - 1)   # issue 16, reproducer 1: (size - 1) * stride sums wrap int64
S4 = {'0': f32(1.5, -2.0, 0.25, 3.0)}


def _load(T, **geometry):
    return T.load(io.BytesIO(ckpt({'x': tensor_ref(**geometry)}, S4)))


# ---- checkpoints (reproducer 1): the loader's rebuild is torch's set_ -------------------------------------------
case("load_ok", lambda T: _load(T))
case("load_view", lambda T: _load(T, offset=1, size=(2,), stride=(2,)))
case("load_empty_far", lambda T: _load(T, offset=1000, size=(0, 3), stride=(3, 1)))
case("load_zero_stride", lambda T: _load(T, offset=3, size=(3, 2), stride=(0, 0)))
error_case("load_wrapping_strides", lambda T: _load(T, size=(2, 2, 2), stride=WRAP_STRIDES))
error_case("load_wrapping_strides_read", lambda T: _load(T, size=(2, 2, 2), stride=WRAP_STRIDES)['x'][1, 0, 0])
error_case("load_size_int64_max", lambda T: _load(T, size=(2 ** 63 - 1,), stride=(1,))['x'].sum())
error_case("load_size_int64_max_2d", lambda T: _load(T, size=(2, 2 ** 63 - 1), stride=(1, 1)))
error_case("load_past_storage", lambda T: _load(T, size=(5,), stride=(1,)))
error_case("load_offset_past_storage", lambda T: _load(T, offset=3, size=(2,), stride=(1,)))
error_case("load_stride_past_storage", lambda T: _load(T, size=(2, 2), stride=(3, 1)))
error_case("load_negative_offset", lambda T: _load(T, offset=-1, size=(2,), stride=(1,)))
error_case("load_negative_stride", lambda T: _load(T, offset=3, size=(2,), stride=(-1,)))
error_case("load_negative_size", lambda T: _load(T, size=(-2,), stride=(1,)))
error_case("load_numel_overflow", lambda T: _load(T, size=(2 ** 32, 2 ** 32), stride=(0, 0)))
error_case("load_offset_overflow", lambda T: _load(T, offset=2 ** 62, size=(2,), stride=(1,)))

# ---- out= (reproducer 2): resizing the out tensor checks the bytes before the sampler writes --------------------
error_case("rand_out_huge", lambda T: T.rand((BIG,), out=T.zeros(2)))
error_case("randn_out_huge", lambda T: T.randn((BIG,), out=T.zeros(2)))
error_case("randint_out_huge", lambda T: T.randint(0, 5, (BIG,), out=T.zeros(2, dtype=T.int64)))
error_case("normal_out_huge", lambda T: T.normal(0., 1., (BIG,), out=T.zeros(2)))
error_case("randperm_out_huge", lambda T: T.randperm(BIG, out=T.zeros(2, dtype=T.int64)))
error_case("zeros_out_huge", lambda T: T.zeros((BIG,), out=T.zeros(2)))
error_case("rand_out_numel_overflow", lambda T: T.rand((2 ** 32, 2 ** 32), out=T.zeros(2)))


# ---- resize_, factories, as_strided, views (reproducer 5) --------------------------------------------------------
error_case("resize_huge_bytes", lambda T: T.zeros(2).resize_(BIG))
error_case("resize_numel_overflow", lambda T: T.zeros(2).resize_(2 ** 31, 2 ** 31, 4))
error_case("resize_offset_overflow", lambda T: T.zeros(4)[1:].resize_(2 ** 61 - 1, 1))
error_case("empty_huge_bytes", lambda T: T.empty(BIG))
error_case("empty_numel_overflow", lambda T: T.empty(2 ** 31, 2 ** 31, 4))
error_case("empty_int64_max", lambda T: T.empty(2 ** 63 - 1, 2))
error_case("empty_strided_huge", lambda T: T.empty_strided((BIG,), (4,)))
error_case("empty_strided_wrapping", lambda T: T.empty_strided((2, 2, 2), WRAP_STRIDES))
error_case("clone_expanded_huge", lambda T: T.ones(1).expand(BIG).clone())
error_case("as_strided_wrapping", lambda T: T.ones(4).as_strided((2, 2, 2), WRAP_STRIDES))
error_case("as_strided_numel_overflow", lambda T: T.ones(1).as_strided((2 ** 32, 2 ** 32), (0, 0)))
error_case("as_strided_reshape", lambda T: T.ones(1).as_strided((2 ** 32, 2 ** 32), (0, 0)).reshape(-1))
error_case("as_strided_past_storage", lambda T: T.ones(4).as_strided((2, 2), (3, 1)))
error_case("as_strided_offset_past", lambda T: T.ones(4).as_strided((2,), (1,), 3))
case("as_strided_zero_stride_fits", lambda T: T.tensor([1.5, -2.0]).as_strided((3, 2 ** 20), (0, 0), 1).sum())
error_case("expand_numel_overflow", lambda T: T.zeros(1, 1).expand(2 ** 32, 2 ** 32))
error_case("expand_numel_overflow_sum", lambda T: T.zeros(1, 1).expand(2 ** 32, 2 ** 32).sum())
error_case("view_numel_overflow", lambda T: T.zeros(0).view(2 ** 32, 2 ** 32, 0))
error_case("view_huge", lambda T: T.zeros(4).view(BIG, 0))
error_case("reshape_numel_overflow", lambda T: T.zeros(0).reshape(2 ** 32, 2 ** 32, 0))


# ---- borrowed memory (reproducer 3): numpy() lends the storage for good; tensors export no buffer -------------
def _lent(T, n=4):
    t = T.tensor([1.5, -2.0, 0.25, 3.0])
    a = t.numpy()
    t.resize_(n)
    return t, a


error_case("numpy_then_resize_grow", lambda T: _lent(T, 10 ** 6))
case("numpy_then_resize_shrink", lambda T: _lent(T, 2))
error_case("numpy_dropped_then_resize", lambda T: (lambda t: (t.numpy(), t.resize_(100)))(T.zeros(3)))
error_case("numpy_view_then_resize_base", lambda T: (lambda t: (t[1:].numpy(), t.resize_(100)))(T.zeros(3)))
error_case("numpy_then_out_resize", lambda T: (lambda t: (t.numpy(), T.rand((50,), out=t)))(T.zeros(3)))
error_case("asarray_then_resize", lambda T: (lambda t: (np.asarray(t), t.resize_(100)))(T.zeros(3)))
error_case("from_numpy_resize", lambda T: T.from_numpy(np.zeros(3, dtype=np.float32)).resize_(100))
case("resize_without_numpy", lambda T: T.tensor([1.5, -2.0]).resize_(3)[:2])
error_case("memoryview_tensor", lambda T: memoryview(T.zeros(3)))
error_case("bytes_like_tensor", lambda T: bytearray().extend(T.zeros(3, dtype=T.uint8)) or b''.join([T.zeros(2)]))
case("numpy_shares_memory", lambda T: (lambda t, a: (a.__setitem__(1, 7.5), t)[1])(*(lambda t: (t, t.numpy()))(
    T.tensor([1.5, -2.0, 0.25]))))
cases("numpy_dtypes", lambda T, dtype: T.tensor([[1, 0, 3], [4, 5, 0]], dtype=dtype).numpy(),
      dtype=[D.bool, D.uint8, D.int8, D.int16, D.int32, D.int64, D.float16, D.float32, D.float64])
case("numpy_noncontiguous", lambda T: T.tensor([[1.5, -2.0, 0.25], [3.0, 4.5, -6.0]]).t()[::2].numpy())
case("numpy_offset_view", lambda T: T.tensor([1.5, -2.0, 0.25, 3.0])[1:3].numpy())
case("numpy_expanded", lambda T: T.tensor([[1.5], [-2.0]]).expand(2, 3).numpy())
case("numpy_empty", lambda T: T.zeros(0, 3).numpy())
case("numpy_0d", lambda T: T.tensor(2.5).numpy())
case("asarray_tensor", lambda T: np.asarray(T.tensor([1.5, -2.0])))
case("asarray_dtype", lambda T: np.asarray(T.tensor([1.5, -2.0]), dtype=np.float64))
error_case("numpy_requires_grad", lambda T: T.tensor([1.5], requires_grad=True).numpy())
error_case("asarray_requires_grad", lambda T: np.asarray(T.tensor([1.5], requires_grad=True)))
error_case("numpy_bfloat16", lambda T: T.zeros(2, dtype=T.bfloat16).numpy())
case("load_empty_negative_stride", lambda T: _load(T, size=(0, 3), stride=(3, -1))['x'].stride())
case("load_empty_negative_strides", lambda T: _load(T, size=(2, 0, 3), stride=(-7, -2, -1))['x'].stride())
error_case("load_stride_beyond_int64", lambda T: _load(T, size=(2,), stride=(2 ** 64,)))
error_case("load_size_beyond_int64", lambda T: _load(T, size=(2, 2 ** 65), stride=(1, 1)))
error_case("load_requires_grad_not_bool", lambda T: _load(T, requires_grad=2))
