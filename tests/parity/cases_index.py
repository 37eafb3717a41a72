"""Indexing: x[...] and x[...] = v -- ints, slices, None, ..., bools, masks, index tensors and lists (advanced
indexing with torch's result shapes), views and their grad_fns, setitem's value conversion and autograd history,
and the errors (out of range, too many indices, bad index types, shape mismatches)."""
import numpy as np

from .harness import *  # noqa: F401,F403

A34 = [[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
V5 = [1.5, -2.0, 0.25, 3.0, -0.75]
I34 = [[4, -7, 2, 9], [0, -3, 5, 1], [8, 6, -2, -9]]


def a34(T, dtype=None):
    return T.tensor(A34, dtype=dtype)


def a234(T):
    return T.tensor(A234)


def v5(T):
    return T.tensor(V5)


def setitem(x, idx, v):
    x[idx] = v
    return x


# ------------------------------------------------------------------------------------------ ints
cases("int_1d", lambda T, i: v5(T)[i], i=[0, 1, 4, -1, -5])
cases("int_2d", lambda T, i: a34(T)[i], i=[0, 2, -1, -3])
cases("int_pair", lambda T, i, j: a34(T)[i, j], i=[0, -1, 2], j=[0, 3, -4])
cases("int_3d_mixed", lambda T, i: a234(T)[i], i=[(1, 2), (0, -1, 3), (-2, 1), (1, 0, 0)])
cases("int_out_of_range", lambda T, i: v5(T)[i], kind="error", i=[5, -6, 100, -100])
cases("int_out_of_range_2nd_dim", lambda T, i: a34(T)[1, i], kind="error", i=[4, -5])
error_case("int_out_of_range_after_none", lambda T: a34(T)[None, 7])
error_case("int_out_of_range_after_ellipsis", lambda T: a234(T)[..., 4])
cases("int_huge", lambda T, i: v5(T)[i], kind="error", i=[2 ** 63 - 1, -2 ** 63, 2 ** 70, -2 ** 80])
error_case("int_huge_in_tuple", lambda T: a34(T)[0, 2 ** 64])
error_case("int_on_0d", lambda T: T.tensor(2.5)[0])
error_case("int_on_0d_1", lambda T: T.tensor(2.5)[1])
error_case("int_on_0d_tuple", lambda T: T.tensor(2.5)[0, ])
error_case("too_many_indices_1d", lambda T: v5(T)[0, 0])
error_case("too_many_indices_2d", lambda T: a34(T)[0, 1, 2])
error_case("too_many_indices_with_slices", lambda T: a34(T)[:, :, :])
error_case("too_many_indices_mask", lambda T: v5(T)[0, T.tensor([True])])
cases("numpy_int", lambda T, i: a34(T)[i], i=[np.int64(1), np.int32(-1), np.int8(2), np.uint8(0)])
case("numpy_int_pair", lambda T: a34(T)[np.int16(1), np.int64(-2)])
case("numpy_0d_array", lambda T: a34(T)[np.array(2)])
cases("int_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype)[1, 2], dtype=ALL)
case("int_index_is_view", lambda T: (a34(T)[1]._is_view(), a34(T)[1, 2]._is_view()))
case("int_index_strides", lambda T: (a34(T)[:, 1].stride(), a34(T)[1].stride(), a234(T)[:, 1].stride()))
case("int_index_storage_offset", lambda T: (a34(T)[2].storage_offset(), a234(T)[1, 2, 3].storage_offset()))

# ---------------------------------------------------------------------------------------- slices
SLICES = [slice(None), slice(1, None), slice(None, 3), slice(1, 4), slice(-3, None), slice(None, -1),
          slice(-100, 100), slice(3, 1), slice(None, None, 2), slice(1, None, 3), slice(-4, -1, 2),
          slice(0, 0), slice(5, 9), slice(2, 2, 7), slice(None, None, 100)]
cases("slice_1d", lambda T, s: v5(T)[s], s=SLICES)
cases("slice_2d_dim0", lambda T, s: a34(T)[s], s=SLICES)
cases("slice_2d_dim1", lambda T, s: a34(T)[:, s], s=SLICES)
cases("slice_3d_mid", lambda T, s: a234(T)[1:, s, ::2], s=SLICES[:8])
cases("slice_step_negative", lambda T, s: v5(T)[s], kind="error", s=[slice(None, None, -1), slice(3, 0, -2)])
error_case("slice_step_negative_2d", lambda T: a34(T)[:, ::-1])
error_case("slice_step_zero", lambda T: v5(T)[::0])
error_case("slice_float_bound", lambda T: v5(T)[1.5:])
case("slice_tensor_bounds", lambda T: v5(T)[T.tensor(1):T.tensor(4)])
case("slice_numpy_bounds", lambda T: a34(T)[np.int64(1):, :np.int32(-1)])
case("slice_huge_bounds", lambda T: (v5(T)[2 ** 70:], v5(T)[-2 ** 70:2], v5(T)[:2 ** 64]))
error_case("slice_0d", lambda T: T.tensor(2.5)[:])
error_case("slice_0d_tuple", lambda T: T.tensor(2.5)[:, ])
case("slice_strides", lambda T: (a34(T)[::2, 1::2].stride(), a34(T)[1:, ::3].storage_offset(), a34(T)[1:, 2:].shape))
case("slice_is_view", lambda T: (v5(T)[1:3]._is_view(), a34(T)[:, 1:]._is_view()))
case("slice_empty_dim", lambda T: T.zeros(0, 3)[1:, 1:])
case("slice_of_slice", lambda T: v5(T)[1:][::2][1:])

# -------------------------------------------------------------------------------- None / Ellipsis
case("none_front", lambda T: a34(T)[None])
case("none_everywhere", lambda T: a34(T)[None, :, None, 1, None])
case("none_tuple", lambda T: a34(T)[None, None])
case("none_after_all", lambda T: a34(T)[:, :, None])
case("none_on_0d", lambda T: T.tensor(2.5)[None, None])
case("ellipsis", lambda T: a234(T)[...])
case("ellipsis_first", lambda T: a234(T)[..., 1])
case("ellipsis_middle", lambda T: a234(T)[1, ..., 2])
case("ellipsis_last", lambda T: a234(T)[0, ...])
case("ellipsis_with_none", lambda T: a234(T)[..., None, 1:])
case("ellipsis_on_0d", lambda T: T.tensor(2.5)[...])
case("ellipsis_twice", lambda T: a34(T)[..., ...])
error_case("ellipsis_twice_then_int", lambda T: a34(T)[..., ..., 0])
case("empty_tuple", lambda T: a34(T)[()])
case("ellipsis_is_alias", lambda T: (a34(T)[...]._is_view(), a34(T)[:, :]._is_view()))

# ------------------------------------------------------------------------------------------ bools
case("bool_true", lambda T: a34(T)[True])
case("bool_false", lambda T: a34(T)[False])
case("bool_true_0d", lambda T: T.tensor(2.5)[True])
case("bool_false_0d", lambda T: T.tensor(2.5)[False])
case("bool_in_tuple", lambda T: a34(T)[1, True, :, None])
case("bool_false_in_tuple", lambda T: a34(T)[:, False])
case("bool_with_index", lambda T: a34(T)[True, [0, 2]])
case("bool_0d_tensor", lambda T: (a34(T)[T.tensor(True)], a34(T)[T.tensor(False)]))
case("bool_0d_tensor_tuple", lambda T: a34(T)[1, T.tensor(True)])

# ---------------------------------------------------------------------------------------- masks
M34 = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
case("mask_full", lambda T: a34(T)[T.tensor(M34)])
case("mask_rows", lambda T: a34(T)[T.tensor([True, False, True])])
case("mask_cols", lambda T: a34(T)[:, T.tensor([False, True, True, False])])
case("mask_all_false", lambda T: a34(T)[T.tensor([False, False, False])])
case("mask_3d_leading", lambda T: a234(T)[T.tensor([[True, False, True], [False, True, True]])])
case("mask_3d_trailing", lambda T: a234(T)[:, T.tensor(M34)])
case("mask_3d_full", lambda T: a234(T)[T.tensor([M34, M34])])
case("mask_then_slice", lambda T: a234(T)[T.tensor([[True, False, True], [False, True, True]]), 1:])
case("mask_then_int", lambda T: a234(T)[T.tensor([True, False]), 1])
case("mask_and_index", lambda T: a234(T)[T.tensor([True, True]), :, T.tensor([3, 0])])
case("mask_list", lambda T: a34(T)[[True, False, True]])
case("mask_numpy", lambda T: a34(T)[np.array([False, True, True])])
case("mask_uint8", lambda T: a34(T)[T.tensor([1, 0, 1], dtype=T.uint8)])
case("mask_empty_tensor", lambda T: T.zeros(0, 3)[T.zeros(0, dtype=T.bool)])
cases("mask_shape_mismatch", lambda T, m: a34(T)[T.tensor(m)], kind="error",
      m=[[True, False], [[True], [False], [True]], [[True, False, True, False]]])
error_case("mask_shape_mismatch_dim1", lambda T: a34(T)[:, T.tensor([True, False])])
error_case("mask_too_many_dims", lambda T: v5(T)[T.tensor([[True] * 5])])
case("mask_selected_is_copy", lambda T: a34(T)[T.tensor([True, False, True])]._is_view())

# ------------------------------------------------------------------------------- index tensors
case("index_1d", lambda T: v5(T)[T.tensor([4, 0, 0, -1, 2])])
case("index_2d_rows", lambda T: a34(T)[T.tensor([2, 0])])
case("index_2d_cols", lambda T: a34(T)[:, T.tensor([3, 1, 1])])
case("index_pair", lambda T: a34(T)[T.tensor([0, 2, 1]), T.tensor([3, 0, -1])])
case("index_pair_broadcast", lambda T: a34(T)[T.tensor([[0], [2]]), T.tensor([3, 0, 1])])
case("index_matrix", lambda T: v5(T)[T.tensor([[0, 1], [4, 3]])])
case("index_0d_tensor", lambda T: a34(T)[T.tensor(1)])
case("index_0d_tensor_pair", lambda T: a34(T)[T.tensor(-1), T.tensor(2)])
case("index_0d_int32", lambda T: a34(T)[T.tensor(2, dtype=T.int32)])
case("index_0d_and_1d", lambda T: a34(T)[T.tensor(1), T.tensor([0, 3])])
case("index_int32", lambda T: a34(T)[T.tensor([2, 0], dtype=T.int32)])
case("index_mixed_int32_int64", lambda T: a34(T)[T.tensor([2, 0], dtype=T.int32), T.tensor([1, 3])])
cases("index_bad_dtype", lambda T, dtype: a34(T)[T.tensor([1, 0], dtype=dtype)], kind="error",
      dtype=[D.float32, D.float64, D.int16, D.int8, D.float16])
error_case("index_bad_dtype_0d", lambda T: a34(T)[T.tensor(1.0)])
cases("index_out_of_range", lambda T, i: a34(T)[T.tensor(i)], kind="error", i=[[0, 3], [-4], [1, 7, -9]])
error_case("index_out_of_range_2nd", lambda T: a34(T)[:, T.tensor([4])])
error_case("index_out_of_range_pair", lambda T: a34(T)[T.tensor([1]), T.tensor([5])])
error_case("index_out_of_range_both", lambda T: a34(T)[T.tensor([0, 9]), T.tensor([6, 1])])
error_case("index_broadcast_mismatch", lambda T: a34(T)[T.tensor([0, 1]), T.tensor([0, 1, 2])])
error_case("index_broadcast_mismatch_3", lambda T: a234(T)[T.tensor([0]), T.tensor([0, 1]), T.tensor([0, 1, 2])])
case("index_empty", lambda T: a34(T)[T.tensor([], dtype=T.int64)])
case("index_empty_list", lambda T: a34(T)[[]])
case("index_empty_dim_no_read", lambda T: T.zeros(0, 3)[:, T.tensor([5])])
error_case("index_into_empty_dim", lambda T: T.zeros(0, 3)[T.tensor([0])])
case("index_result_is_copy", lambda T: a34(T)[T.tensor([0, 1])]._is_view())

# ------------------------------------------------------------------------------------- lists
case("list_ints", lambda T: v5(T)[[3, 1, 3]])
case("list_negative", lambda T: v5(T)[[-1, -5]])
case("list_pair", lambda T: a34(T)[[0, 2], [1, 3]])
case("list_nested_as_tuple", lambda T: a34(T)[[[0, 2], [1, 3]]])
case("list_with_slice", lambda T: a34(T)[[slice(None), 1]])
case("list_with_none", lambda T: a34(T)[[0, None]])
case("list_long_is_index", lambda T: v5(T)[[0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4,
                                             0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3]])
case("list_floats_truncate", lambda T: a34(T)[[0, 1.5]])
case("list_of_tensors", lambda T: a34(T)[[T.tensor(2), T.tensor(0)]])
case("numpy_index_array", lambda T: a34(T)[np.array([2, 0, 1])])
case("numpy_index_array_2d", lambda T: v5(T)[np.array([[1, 2], [3, 4]])])
error_case("list_out_of_range", lambda T: v5(T)[[0, 5]])
error_case("str_index", lambda T: v5(T)["a"])


class Opaque:
    def __repr__(self):
        return "Opaque()"


cases("invalid_index_type", lambda T, i: v5(T)[i], kind="error", i=[1.5, np.float64(1.0), Opaque(), frozenset()])
error_case("invalid_index_in_tuple", lambda T: a34(T)[T.tensor([0, 1]), 1.5])

# ------------------------------------------------------------- advanced: adjacent vs separated
B2345 = [[[[float(i * 60 + j * 20 + k * 5 + m) for m in range(5)] for k in range(4)] for j in range(3)]
         for i in range(2)]


def b(T):
    return T.tensor(B2345)


I2 = [1, 0]
J2 = [[2, 0], [1, 1]]
case("adv_adjacent_front", lambda T: b(T)[I2, [0, 2]].shape)
case("adv_adjacent_middle", lambda T: b(T)[:, [0, 2], [1, 3]])
case("adv_adjacent_back", lambda T: b(T)[..., [0, 3], [4, 0]])
case("adv_separated", lambda T: b(T)[:, [0, 2], :, [1, 3]])
case("adv_separated_front", lambda T: b(T)[I2, :, [3, 1]])
case("adv_separated_by_int", lambda T: b(T)[I2, 1, [3, 1]])
case("adv_int_adjacent", lambda T: b(T)[:, 1, [3, 1]])
case("adv_separated_by_none", lambda T: b(T)[:, [0, 2], None, [1, 3]])
case("adv_none_before", lambda T: b(T)[None, I2, :, [1, 3]])
case("adv_broadcast_2d", lambda T: b(T)[:, J2, [[0], [3]]])
case("adv_broadcast_2d_separated", lambda T: b(T)[[[1, 0], [1, 1]], :, [[0], [3]]])
case("adv_with_slices", lambda T: b(T)[1:, [2, 0], ::2, 1:4])
case("adv_mask_and_index_separated", lambda T: b(T)[T.tensor([True, False]), :, [1, 2]])
case("adv_all_dims", lambda T: b(T)[[1], [2], [3], [4]])
case("adv_ellipsis_between", lambda T: b(T)[[0, 1], ..., [0, 4]])
case("adv_true_and_index", lambda T: a34(T)[True, :, [0, 2]])
error_case("adv_false_and_index", lambda T: a34(T)[False, [0, 2]])
case("adv_false_and_index_broadcastable", lambda T: a34(T)[False, [2]])
case("adv_values", lambda T: b(T)[[1, 0], :, [0, 3], 2:])

# ------------------------------------------------------------------------- dtypes and layouts
cases("adv_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype)[[2, 0], 1:], dtype=ALL)
cases("mask_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype)[T.tensor(M34)], dtype=ALL)
cases("slice_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype)[1:, ::2], dtype=ALL)
case("index_noncontig_t", lambda T: nc_t(T, A34)[[3, 0], 1:])
case("index_noncontig_step", lambda T: nc_step(T, A34)[:, [1, 0]])
case("index_expanded", lambda T: nc_expand(T, [[1.5], [-2.0]], (2, 4))[[1, 0, 1], 2:])
case("mask_noncontig", lambda T: nc_t(T, A34)[T.tensor([True, False, False, True])])
case("int_noncontig", lambda T: nc_t(T, A34)[2, 1:])
case("getitem_empty_tensor", lambda T: (T.zeros(2, 0)[1], T.zeros(2, 0)[:, :], T.zeros(0)[[]]))

# ---------------------------------------------------------------------- dims: 32-dim tensors
case("dims32_int", lambda T: T.zeros([1] * 31 + [2])[(0,) * 31].shape)
case("dims32_slice", lambda T: T.zeros([1] * 31 + [2])[..., 1:].shape)
case("dims32_none", lambda T: T.zeros([1] * 32)[None].shape, skip="wick tensors have at most 32 dims (WK_MAX_DIM); x[None] on a 32-dim tensor raises")
case("dims32_all_ints", lambda T: T.ones([1] * 31 + [2])[(0,) * 31 + (1,)])
case("dims32_mask", lambda T: T.ones([1] * 30 + [2, 2])[T.ones([1] * 30 + [2, 2], dtype=T.bool)])
case("dims32_set", lambda T: setitem(T.zeros([1] * 31 + [3]), (..., [2, 0]), 5.0).sum())
error_case("dims32_too_many", lambda T: T.zeros([1] * 32)[(0,) * 33])
case("dims32_index", lambda T: T.zeros([1] * 31 + [3])[..., [2, 0]].shape)

# ----------------------------------------------------------------------------- views share data
def _view_write(T):
    x = a34(T)
    v = x[1:, 2]
    v.mul_(10)
    return x


def _adv_copy_write(T):
    x = a34(T)
    v = x[[1, 2]]
    v.mul_(10)
    return x


case("view_write_through", _view_write)
case("adv_is_copy", _adv_copy_write)
case("view_version", lambda T: (lambda x: (x[0]._version, setitem(x, 0, 1.)._version))(a34(T)))

# ------------------------------------------------------------------------------------ getitem grads
grad_case("grad_int", lambda T, x: x[1], A34)
grad_case("grad_int_pair", lambda T, x: x[-1, 2], A34)
grad_case("grad_slice", lambda T, x: x[1:, ::2], A34)
grad_case("grad_single_slice", lambda T, x: x[1:], A34)
grad_case("grad_full_slice", lambda T, x: x[:], A34)
grad_case("grad_full_slice_tuple", lambda T, x: x[:, :], A34)
grad_case("grad_none", lambda T, x: x[None, :, None], A34)
grad_case("grad_ellipsis", lambda T, x: x[...], A34)
grad_case("grad_bool_true", lambda T, x: x[True], A34)
grad_case("grad_mask", lambda T, x: x[T.tensor(M34)], A34)
grad_case("grad_mask_rows", lambda T, x: x[T.tensor([True, False, True])], A34)
grad_case("grad_index_dupes", lambda T, x: x[T.tensor([2, 0, 2, 2])], V5)
grad_case("grad_index_pair", lambda T, x: x[[0, 2, 0], [1, 3, 1]], A34)
grad_case("grad_index_separated", lambda T, x: x[[1, 0], :, [3, 0]], A234)
grad_case("grad_index_with_slice", lambda T, x: x[1:, [3, 3, 0]], A34)
grad_case("grad_0d_tensor_index", lambda T, x: x[T.tensor(2)], A34)
grad_case("grad_index_view_input", lambda T, x: x[[1, 0]], inp(A34, view=vT))
grad_case("grad_slice_view_input", lambda T, x: x[1:, :2], inp(A34, view=vstep))
grad_case("grad_chain", lambda T, x: x[1:][:, [0, 2]][0], A34)
grad_case("grad_int_order2", lambda T, x: x[1] * x[2], A34, order=2)
grad_case("grad_slice_order2", lambda T, x: x[1:, 1:] * x[:-1, :-1], A34, order=2)
grad_case("grad_index_order2", lambda T, x: x[[0, 0, 2]] * x[[1, 2, 1]], A34, order=2)
grad_case("grad_mask_order2", lambda T, x: x[T.tensor([True, False, True])] * x[1:], A34, order=2)
grad_case("grad_none_order2", lambda T, x: x[None] * x[:, None], V5, order=2)
case("grad_fn_names", lambda T: [type(f(T.tensor(A34, requires_grad=True)).grad_fn).__name__ for f in (
    lambda x: x[0], lambda x: x[1:], lambda x: x[:], lambda x: x[:, :], lambda x: x[None], lambda x: x[...],
    lambda x: x[True], lambda x: x[[0]], lambda x: x[:, 1], lambda x: x[0, 1:], lambda x: x[:, :2],
    lambda x: x[T.tensor(1)], lambda x: x[1:, [0]], lambda x: x[:, 0:4], lambda x: x[0:3])])
case("no_grad_getitem", lambda T: (lambda x: (x[0].requires_grad, x[[0]].requires_grad))(
    T.tensor(A34, requires_grad=True).detach()))

# ----------------------------------------------------------------------------------- setitem
cases("set_int_scalar", lambda T, v: setitem(a34(T), 1, v), v=[7, -2.5, True, np.float64(1.25), np.int64(3)])
cases("set_scalar_into_dtype", lambda T, dtype, v: setitem(T.zeros(3, dtype=dtype), 0, v), dtype=ALL,
      v=[2, -1, 2.7, True])
_LIMITS = {D.uint8: (-255, 255), D.int8: (-128, 127), D.int16: (-32768, 32767), D.int32: (-2 ** 31, 2 ** 31 - 1),
           D.int64: (-2 ** 63, 2 ** 63 - 1)}


def _overflows(dtype, v):
    """c10's checked_convert as setitem applies it (float16/bfloat16/bool never refuse; uint8 takes -255..255 ints)."""
    if dtype == D.float32:
        return isinstance(v, float) and v == v and abs(v) != float("inf") and abs(v) > 3.4028234663852886e38
    if dtype not in _LIMITS:
        return False
    lo, hi = _LIMITS[dtype]
    if isinstance(v, float):
        lo = 0 if dtype == D.uint8 else lo
        return v != v or not (lo <= v <= hi)
    return not (lo <= v <= hi)


cases("set_scalar_overflow", lambda T, dtype, v: setitem(T.zeros(3, dtype=dtype), 0, v),
      kind=lambda dtype, v: "error" if _overflows(dtype, v) else "value",
      dtype=[D.uint8, D.int8, D.int16, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.bool],
      v=[256, -256, -255, -0.5, 128, -129, 70000, 2 ** 31, 1e10, 1e39, float("nan"), float("inf"), 1e19])
error_case("set_int_too_big", lambda T: setitem(T.zeros(3, dtype=T.int64), 0, 2 ** 64))
cases("set_bad_value_type", lambda T, v: setitem(a34(T), 0, v), kind="error",
      v=["a", None, [1.0, 2.0], np.float32(2.5), (1,)])
error_case("set_complex", lambda T: setitem(a34(T), 0, 2 + 1j))
error_case("set_bad_value_type_int_tensor", lambda T: setitem(T.zeros(3, dtype=T.int32), 0, "x"))
case("set_complex_real", lambda T: setitem(a34(T), 0, 2 + 0j))
case("set_slice_scalar", lambda T: setitem(a34(T), slice(1, None), 9.5))
case("set_step_slice_scalar", lambda T: setitem(v5(T), slice(None, None, 2), 0))
case("set_tuple_scalar", lambda T: setitem(a34(T), (slice(None), 2), -1))
case("set_pair_scalar", lambda T: setitem(a34(T), (2, -1), 100))
case("set_none", lambda T: setitem(a34(T), None, 3.0))
case("set_ellipsis", lambda T: setitem(a34(T), ..., 3.0))
case("set_ellipsis_tensor", lambda T: setitem(a34(T), ..., T.tensor([1.0, 2.0, 3.0, 4.0])))
case("set_true", lambda T: setitem(a34(T), True, 3.0))
case("set_false", lambda T: setitem(a34(T), False, 3.0))
case("set_false_bad_shape", lambda T: setitem(a34(T), False, T.zeros(7)))
case("set_false_tuple_scalar", lambda T: setitem(a34(T), (False,), 3.0))
error_case("set_false_tuple_bad_shape", lambda T: setitem(a34(T), (False,), T.zeros(7)))
case("set_0d_ellipsis", lambda T: setitem(T.tensor(1.5), ..., 2.0))
case("set_0d_none", lambda T: setitem(T.tensor(1.5), None, 2.0))
case("set_0d_true", lambda T: setitem(T.tensor(1.5), True, 2.0))
error_case("set_0d_int", lambda T: setitem(T.tensor(1.5), 0, 2.0))
error_case("set_0d_int_tuple", lambda T: setitem(T.tensor(1.5), (0,), 2.0))
error_case("set_int_out_of_range", lambda T: setitem(a34(T), 3, 2.0))
error_case("set_int_out_of_range_tuple", lambda T: setitem(a34(T), (0, 4), 2.0))
error_case("set_too_many", lambda T: setitem(v5(T), (0, 0), 2.0))
error_case("set_step_negative", lambda T: setitem(v5(T), slice(None, None, -1), 2.0))
error_case("set_delete", lambda T: a34(T).__delitem__(0))
case("set_row_tensor", lambda T: setitem(a34(T), 0, T.tensor([1.0, 2.0, 3.0, 4.0])))
case("set_row_broadcast", lambda T: setitem(a34(T), slice(None, 2), T.tensor([1.0, 2.0, 3.0, 4.0])))
case("set_col_broadcast", lambda T: setitem(a34(T), (slice(None), slice(1, 3)), T.tensor([[1.0], [2.0], [3.0]])))
case("set_leading_ones", lambda T: setitem(a34(T), 0, T.tensor([[[1.0, 2.0, 3.0, 4.0]]])))
case("set_value_cast_int_to_float", lambda T: setitem(a34(T), 1, T.tensor([1, 2, 3, 4])))
case("set_value_cast_float_to_int", lambda T: setitem(T.tensor(I34), 1, T.tensor([1.5, -2.5, 3.9, 4.0])))
case("set_value_cast_to_bool", lambda T: setitem(T.zeros(3, dtype=T.bool), slice(None), T.tensor([0.0, 2.0, -1.0])))
case("set_0d_tensor_value", lambda T: setitem(a34(T), (slice(None), 1), T.tensor(7)))
error_case("set_shape_mismatch", lambda T: setitem(a34(T), 0, T.tensor([1.0, 2.0])))
error_case("set_too_many_value_dims", lambda T: setitem(a34(T), 0, T.tensor([[1.0, 2.0, 3.0, 4.0]] * 2)))
error_case("set_slice_shape_mismatch", lambda T: setitem(a34(T), slice(0, 2), T.zeros(3, 4)))
error_case("set_overlap_slices", lambda T: (lambda x: setitem(x, slice(0, 4), x[1:]))(v5(T)))
case("set_same_tensor", lambda T: (lambda x: setitem(x, ..., x))(v5(T)))
case("set_noncontig_target", lambda T: setitem(nc_t(T, A34), 1, 5.0))
case("set_noncontig_value", lambda T: setitem(T.zeros(4, 3), slice(None), nc_t(T, A34)))
error_case("set_expanded_target", lambda T: setitem(T.zeros(3, 1).expand(3, 4), 0, T.tensor([1., 2., 3., 4.])))
case("set_view_updates_base", lambda T: (lambda x: (setitem(x[1:], 0, 9.0), x)[1])(a34(T)))

# setitem with tensors (advanced: index_put_)
case("set_mask_scalar", lambda T: setitem(a34(T), T.tensor(M34), 0.0))
case("set_mask_rows_tensor", lambda T: setitem(a34(T), T.tensor([True, False, True]), T.tensor([1., 2., 3., 4.])))
case("set_mask_values", lambda T: setitem(a34(T), T.tensor(M34), T.tensor([1., 2., 3., 4., 5., 6.])))
case("set_mask_0d_long_value", lambda T: setitem(a34(T), T.tensor(M34), T.tensor(5)))
case("set_mask_1elem_value", lambda T: setitem(a34(T), T.tensor(M34), T.tensor([5.0])))
error_case("set_mask_values_wrong_count", lambda T: setitem(a34(T), T.tensor(M34), T.tensor([1., 2.])))
error_case("set_mask_shape_mismatch", lambda T: setitem(a34(T), T.tensor([True, False]), 1.0))
error_case("set_mask_uint8_scalar", lambda T: setitem(v5(T), T.tensor([1, 0, 1, 0, 1], dtype=T.uint8), 2.0))
case("set_mask_uint8_values", lambda T: setitem(v5(T), T.tensor([1, 0, 1, 0, 1], dtype=T.uint8), T.tensor([1., 2., 3.])))
case("set_index_scalar", lambda T: setitem(v5(T), T.tensor([0, 3]), -9.0))
case("set_index_values", lambda T: setitem(v5(T), T.tensor([4, 0]), T.tensor([10.0, 20.0])))
case("set_index_dupes_last_wins", lambda T: setitem(v5(T), T.tensor([1, 1]), T.tensor([10.0, 10.0])))
case("set_index_pair", lambda T: setitem(a34(T), ([0, 2], [3, 1]), T.tensor([7.0, 8.0])))
case("set_index_rows_broadcast", lambda T: setitem(a34(T), T.tensor([[0], [2]]), T.tensor([1., 2., 3., 4.])))
error_case("set_nested_list_is_tuple", lambda T: setitem(a34(T), [[0], [2]], T.tensor([1., 2., 3., 4.])))
case("set_index_separated", lambda T: setitem(a234(T), ([1, 0], slice(None), [3, 0]), T.tensor([[1.0, 2.0, 3.0]])))
case("set_index_with_slice", lambda T: setitem(a34(T), (slice(1, None), [0, 3]), T.tensor([[1.0, 2.0], [3.0, 4.0]])))
case("set_list_index", lambda T: setitem(v5(T), [4, 2], 0.5))
case("set_index_int32", lambda T: setitem(v5(T), T.tensor([4, 2], dtype=T.int32), 0.5))
case("set_index_leading_ones_value", lambda T: setitem(v5(T), T.tensor([4, 2]), T.tensor([[[1.0, 2.0]]])))
error_case("set_index_dtype_mismatch", lambda T: setitem(v5(T), T.tensor([0, 1]), T.tensor([1, 2])))
error_case("set_index_dtype_mismatch_0d", lambda T: setitem(v5(T), T.tensor([0, 1]), T.tensor(5)))
error_case("set_index_double_value", lambda T: setitem(v5(T), T.tensor([0, 1]), T.tensor([1.0, 2.0], dtype=T.float64)))
error_case("set_index_shape_mismatch", lambda T: setitem(v5(T), T.tensor([0, 1]), T.tensor([1.0, 2.0, 3.0])))
error_case("set_index_shape_mismatch_2d", lambda T: setitem(a34(T), T.tensor([0, 1]), T.tensor([[1.], [2.], [3.]])))
error_case("set_index_out_of_range", lambda T: setitem(v5(T), T.tensor([0, 5]), 1.0))
error_case("set_index_bad_dtype", lambda T: setitem(v5(T), T.tensor([0.0]), 1.0))
error_case("set_index_overlap", lambda T: (lambda x: setitem(x, T.tensor([0, 1, 2, 3, 4]), x))(v5(T)))
error_case("set_index_overlap_part", lambda T: (lambda x: setitem(x, T.tensor([0, 1]), x[2:4]))(v5(T)))
cases("set_index_dtypes", lambda T, dtype: setitem(T.tensor(I34, dtype=dtype), ([0, 2], [1, 1]), 1), dtype=ALL)
cases("set_mask_dtypes", lambda T, dtype: setitem(T.tensor(I34, dtype=dtype), T.tensor(M34), 0), dtype=ALL)
case("set_index_noncontig", lambda T: setitem(nc_t(T, A34), [1, 3], T.tensor([1.0, 2.0, 3.0])))
case("set_empty_index", lambda T: setitem(v5(T), T.tensor([], dtype=T.int64), 1.0))
case("set_empty_tensor", lambda T: setitem(T.zeros(0, 3), slice(None), 1.0))

# setitem and autograd
error_case("set_leaf_requires_grad_int", lambda T: setitem(T.tensor(V5, requires_grad=True), 0, 1.0))
error_case("set_leaf_requires_grad_index", lambda T: setitem(T.tensor(V5, requires_grad=True), T.tensor([0]), 1.0))
error_case("set_leaf_requires_grad_ellipsis", lambda T: setitem(T.tensor(V5, requires_grad=True), ..., 1.0))
error_case("set_leaf_requires_grad_full_slice", lambda T: setitem(T.tensor(V5, requires_grad=True), slice(None), 1.0))
error_case("set_leaf_requires_grad_true", lambda T: setitem(T.tensor(V5, requires_grad=True), True, 1.0))
error_case("set_leaf_requires_grad_mask", lambda T: setitem(T.tensor(V5, requires_grad=True), T.tensor([True] * 5), 1.0))
case("set_leaf_requires_grad_false", lambda T: setitem(T.tensor(V5, requires_grad=True), False, 1.0))


def _set_no_grad(T):
    x = T.tensor(V5, requires_grad=True)
    with T.no_grad():
        x[0] = 1.0
        x[[1, 2]] = 3.0
    return x


case("set_leaf_no_grad_mode", _set_no_grad)


def _nonleaf_set(idx, v=None):
    def f(T, x):
        y = x * 1
        y[idx(T) if callable(idx) else idx] = v(T) if callable(v) else (2.0 if v is None else v)
        return y
    return f


grad_case("nonleaf_set_int", _nonleaf_set(1), A34)
grad_case("nonleaf_set_slice", _nonleaf_set(slice(1, 3)), V5)
grad_case("nonleaf_set_full_slice", _nonleaf_set(slice(None)), V5)
grad_case("nonleaf_set_ellipsis", _nonleaf_set(...), V5)
grad_case("nonleaf_set_ellipsis_tensor", _nonleaf_set(..., lambda T: T.tensor([1., 2., 3., 4., 5.])), V5)
grad_case("nonleaf_set_true", _nonleaf_set(True), V5)
grad_case("nonleaf_set_none", _nonleaf_set(None), V5)
grad_case("nonleaf_set_pair", _nonleaf_set((2, slice(1, None))), A34)
grad_case("nonleaf_set_index", _nonleaf_set(lambda T: T.tensor([0, 2])), V5)
grad_case("nonleaf_set_mask", _nonleaf_set(lambda T: T.tensor(M34)), A34)
grad_case("nonleaf_set_index_slice", _nonleaf_set((slice(1, None), [0, 3])), A34)
grad_case("nonleaf_set_index_full_slice", _nonleaf_set((slice(None), [0, 3])), A34)


def _set_from(idx, base):
    def f(T, w):
        x = T.tensor(base)
        x[idx(T) if callable(idx) else idx] = w
        return x
    return f


grad_case("set_grad_value_int", _set_from(1, A34), [1.0, 2.0, 3.0, 4.0])
grad_case("set_grad_value_broadcast", _set_from(slice(0, 2), A34), [1.5, -2.0, 0.5, 3.0])
grad_case("set_grad_value_0d", _set_from(0, A34), 2.5)
grad_case("set_grad_value_0d_ellipsis", _set_from(..., V5), 2.5)
grad_case("set_grad_value_same_shape", _set_from(..., V5), [1.0, 2.0, 3.0, 4.0, 5.0])
grad_case("set_grad_value_leading_ones", _set_from(1, A34), [[[1.0, 2.0, 3.0, 4.0]]])
grad_case("set_grad_value_index", _set_from(lambda T: T.tensor([3, 0]), V5), [1.5, -0.5])
grad_case("set_grad_value_index_broadcast", _set_from(lambda T: T.tensor([2, 0]), A34), [1.5, -0.5, 2.0, 1.0])
grad_case("set_grad_value_mask", _set_from(lambda T: T.tensor([True, False, True]), A34), [1.5, -0.5, 2.0, 1.0])
grad_case("set_grad_value_mask_scalar", _set_from(lambda T: T.tensor(M34), A34), 4.0)
grad_case("set_grad_value_index_0d", _set_from(lambda T: T.tensor([0, 2, 4]), V5), 4.0)
grad_case("set_grad_value_index_dupes", _set_from(lambda T: T.tensor([1, 1, 3]), V5), [1.0, 2.0, 3.0])


def _set_both(T, x, w):
    y = x * 2
    y[1:, 0] = w
    return y


def _set_both_index(T, x, w):
    y = x * 2
    y[[2, 0], 1:3] = w
    return y


grad_case("set_grad_both", _set_both, A34, [5.0, 6.0])
grad_case("set_grad_both_index", _set_both_index, A34, [[5.0, 6.0]])
grad_case("set_grad_both_order2", lambda T, x, w: _set_both(T, x * x, w * w), A34, [5.0, 6.0], order=2)


def _set_then_use_view(T, x):
    y = x * 1
    v = y[1]
    y[1, 2] = 0.0
    return v * 3


def _set_on_view(T, x):
    y = x * 1
    v = y[:, 1:]
    v[0] = 7.0
    return y


grad_case("set_then_use_view", _set_then_use_view, A34)
grad_case("set_on_view", _set_on_view, A34)
case("set_grad_fn_names", lambda T: [type(f(T.tensor(V5, requires_grad=True) * 1).grad_fn).__name__ for f in (
    lambda y: setitem(y, 0, 1.0), lambda y: setitem(y, slice(None), 1.0), lambda y: setitem(y, slice(0, 9), 1.0),
    lambda y: setitem(y, slice(1, 9), 1.0), lambda y: setitem(y, ..., 1.0), lambda y: setitem(y, ..., T.ones(5)),
    lambda y: setitem(y, None, 1.0), lambda y: setitem(y, True, 1.0), lambda y: setitem(y, (True,), 1.0),
    lambda y: setitem(y, [0, 1], 1.0), lambda y: setitem(y, T.tensor([True] * 5), 1.0),
    lambda y: setitem(y, (slice(None),), T.ones(5)), lambda y: setitem(y, slice(None), T.ones(1)))])
case("set_grad_fn_on_plain_tensor", lambda T: [type(f(T.zeros(5), T.tensor(2.0, requires_grad=True)).grad_fn).__name__
                                               for f in (lambda x, w: setitem(x, 0, w), lambda x, w: setitem(x, ..., w),
                                                         lambda x, w: setitem(x, [1], w))])
case("set_plain_no_grad", lambda T: setitem(T.zeros(5), 0, T.tensor(2.0)).requires_grad)


def _view_after_base_set(T):
    x = T.tensor(A34, requires_grad=True)
    y = x * 1
    v = y[1]
    before = type(v.grad_fn).__name__
    y[0, 0] = 5.0
    return before, type(v.grad_fn).__name__, type(y.grad_fn).__name__


def _view_gets_history(T):
    w = T.tensor(2.0, requires_grad=True)
    x = T.zeros(4)
    v = x[1:]
    x[2] = w
    return v.requires_grad, type(v.grad_fn).__name__, v


def _grad_through_old_view(T, x):
    y = x * 1
    v = y[:, 1]
    y[T.tensor([0, 2])] = 0.0
    return v * 2


case("view_grad_fn_after_base_set", _view_after_base_set)
case("view_gets_history_from_setitem", _view_gets_history)
grad_case("grad_through_view_after_index_put", _grad_through_old_view, A34)
grad_case("grad_view_value_to_plain_base", lambda T, w: (lambda x: (setitem(x, 2, w), x[1:] * 3)[1])(T.zeros(4)), 2.0)

# -------------------------------------------------------------------------------------- warnings
case("warn_uint8_mask", lambda T: a34(T)[T.tensor([1, 0, 1], dtype=T.uint8)], warns=True)
case("warn_uint8_mask_set", lambda T: setitem(v5(T), T.tensor([1, 0, 1, 0, 1], dtype=T.uint8), T.tensor([1., 2., 3.])),
     warns=True)
error_case("warn_uint8_mask_then_error", lambda T: a34(T)[T.tensor([1, 0], dtype=T.uint8)], warns=True)
case("warn_non_tuple_sequence", lambda T: a34(T)[[0, slice(1, 3)]], warns=True)
case("warn_expanded_setitem", lambda T: setitem(T.zeros(3, 1).expand(3, 2), T.tensor([True, False, True]), 1.0), warns=True)
case("warn_expanded_setitem_index", lambda T: setitem(T.zeros(3, 1).expand(3, 2), T.tensor([0]), 1.0), warns=True)
case("no_warn_plain_indexing", lambda T: (a34(T)[1:, [0, 2]], setitem(a34(T), T.tensor(M34), 0.0)), warns=True)
