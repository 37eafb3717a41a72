"""Joins and rearrangements that copy: cat/concat/concatenate, stack and the hstack family, flip, roll, rot90,
repeat, tile, repeat_interleave, tril/triu, diag family, broadcast_tensors, atleast_Nd, meshgrid.
Values, dtype promotion, non-contiguous and empty inputs, gradients, out=, and torch's error messages."""
from .harness import *  # noqa: F401,F403

A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
B23 = [[0.75, 2.5, -0.5], [-1.0, 4.0, 1.25]]
A13 = [[-3.5, 0.125, 2.25]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
I23 = [[4, -7, 2], [9, 0, -3]]
V3 = [1.5, -2.0, 0.25]
W3 = [0.5, 3.0, -1.75]


def x234(T, dtype=None):
    return T.tensor(A234, dtype=dtype)


# ------------------------------------------------------------------------------------------------ cat
cases("cat", lambda T, d: T.cat([T.tensor(A23), T.tensor(B23)], d), d=dims(2))
cases("cat_3", lambda T, d: T.cat((x234(T), x234(T) * 2, x234(T).narrow(d, 0, 1)), dim=d), d=dims(3))
case("cat_uneven", lambda T: T.cat([T.tensor(A23), T.tensor(A13)]))
case("concat", lambda T: T.concat([T.tensor(A23), T.tensor(B23)], dim=1))
case("concatenate", lambda T: T.concatenate((T.tensor(A23), T.tensor(A13)), 0))
case("cat_single", lambda T: (r := T.cat([T.tensor(A23)]), r._is_view()))
case("cat_contiguous_out", lambda T: (r := T.cat([T.tensor(A23).t(), T.tensor(B23).t()], 1), r.stride()))
case("cat_noncontig", lambda T: T.cat([nc_t(T, A23), nc_t(T, B23)], 0))
case("cat_expanded", lambda T: T.cat([nc_expand(T, [[1.5], [-2.0]], (2, 3)), T.tensor(B23)], 1))
cases("cat_dtypes", lambda T, dtype: T.cat([T.tensor(I23, dtype=dtype), T.tensor(I23, dtype=dtype)], 1), dtype=ALL)
cases("cat_promotion", lambda T, a, b: T.cat([T.tensor(I23, dtype=a), T.tensor(I23, dtype=b)]),
      a=[D.int8, D.bool, D.int64, D.float16], b=[D.uint8, D.float32, D.int32, D.bfloat16])
case("cat_legacy_empty_skipped", lambda T: (T.cat([T.zeros(0), T.tensor(A23)], 1), T.cat([T.tensor(A23), T.zeros(0)])))
case("cat_legacy_empty_promotes", lambda T: T.cat([T.zeros(0, dtype=T.float64), T.tensor(I23, dtype=T.int32)]))
case("cat_all_legacy_empty", lambda T: (T.cat([T.zeros(0), T.zeros(0)], 0), T.cat([T.zeros(0)], 5),
                                         T.cat([T.zeros(0), T.zeros(0, dtype=T.int64)], -1)))
case("cat_empty_rows", lambda T: (T.cat([T.zeros(0, 3), T.tensor(A23)]), T.cat([T.zeros(2, 0), T.tensor(A23)], 1)))
case("cat_out", lambda T: (o := T.zeros(1), T.cat([T.tensor(A23), T.tensor(B23)], 1, out=o), o)[::2])
case("cat_out_dtype", lambda T: (o := T.zeros(2, 6, dtype=T.float64), T.cat([T.tensor(A23), T.tensor(B23)], 1, out=o))[1])
error_case("cat_empty_list", lambda T: T.cat([]))
error_case("cat_0d", lambda T: T.cat([T.tensor(1.5), T.tensor(2.5)]))
error_case("cat_0d_second", lambda T: T.cat([T.tensor(A23), T.tensor(2.5)]))
error_case("cat_ndim_mismatch", lambda T: T.cat([x234(T), T.tensor(A23)]))
error_case("cat_size_mismatch", lambda T: T.cat([T.tensor(A23), T.zeros(2, 4)]))
error_case("cat_size_mismatch_dim1", lambda T: T.cat([T.tensor(A23), T.zeros(3, 3), T.tensor(A13)], 1))
error_case("cat_size_mismatch_message", lambda T: T.cat([x234(T), T.zeros(2, 4, 4)]))
error_case("cat_dim_out_of_range", lambda T: T.cat([x234(T), x234(T)], 3))
error_case("cat_dim_out_of_range_neg", lambda T: T.cat([x234(T), x234(T)], -4))
error_case("cat_not_a_list", lambda T: T.cat(T.tensor(A23)))
error_case("cat_out_requires_grad", lambda T: T.cat([T.tensor(A23, requires_grad=True)], out=T.zeros(2, 3)))
cases("cat_grad", lambda T, x, y, d: T.cat([x, y, x], d), A23, B23, kind="grad", d=dims(2))
grad_case("cat_grad_one_const", lambda T, x, y: T.cat([x, y], 1), A23, const(B23))
grad_case("cat_grad_uneven", lambda T, x, y: T.cat([x, y]), A23, A13)
grad_case("cat_grad_legacy_empty", lambda T, x, e: T.cat([x, e]), A23, inp([]))
grad_case("cat_grad_promoted", lambda T, x, y: T.cat([x, y]), inp(A23, dtype=D.float64), A13)
grad_case("cat_grad2", lambda T, x, y: (c := T.cat([x, y], 1)) * c, A23, B23, order=2)
grad_case("cat_grad_noncontig", lambda T, x, y: T.cat([x, y], 0), inp(A23, view=vT), inp(B23, view=vT))

# ---------------------------------------------------------------------------------------------- stack
cases("stack", lambda T, d: T.stack([T.tensor(A23), T.tensor(B23)], d), d=dims(3))
cases("stack_3d", lambda T, d: T.stack((x234(T), x234(T) * -1), dim=d), d=dims(4))
case("stack_0d", lambda T: (T.stack([T.tensor(1.5), T.tensor(-2.0)]), T.stack([T.tensor(1.5)], -1)))
case("stack_empty", lambda T: (T.stack([T.zeros(0, 3), T.zeros(0, 3)], 1).shape, T.stack([T.zeros(0)]).shape))
case("stack_noncontig", lambda T: T.stack([nc_t(T, A23), nc_t(T, B23)], 1))
cases("stack_dtypes", lambda T, dtype: T.stack([T.tensor(I23, dtype=dtype)] * 3, 2), dtype=ALL)
case("stack_promotion", lambda T: (T.stack([T.zeros(2), T.ones(2, dtype=T.int64)]),
                                   T.stack([T.tensor([True, False]), T.tensor([3, 4], dtype=T.uint8)])))
case("stack_out", lambda T: (o := T.zeros(0), T.stack([T.tensor(V3), T.tensor(W3)], 1, out=o), o)[::2])
error_case("stack_empty_list", lambda T: T.stack([]))
error_case("stack_size_mismatch", lambda T: T.stack([x234(T), T.tensor(A23)]))
error_case("stack_size_mismatch_third", lambda T: T.stack([T.tensor(V3), T.tensor(W3), T.tensor([1.0, 2.0])]))
error_case("stack_dim_out_of_range", lambda T: T.stack([x234(T), x234(T)], 4))
error_case("stack_dim_out_of_range_neg", lambda T: T.stack([x234(T), x234(T)], -5))
error_case("stack_0d_dim", lambda T: T.stack([T.tensor(1.5), T.tensor(2.5)], 1))
cases("stack_grad", lambda T, x, y, d: T.stack([x, y], d), A23, B23, kind="grad", d=dims(3))
grad_case("stack_grad_same_input", lambda T, x: T.stack([x, x * 2, x], 1), V3)
grad_case("stack_grad_promoted", lambda T, x, y: T.stack([x, y]), inp(V3, dtype=D.float64), W3)
grad_case("stack_grad2", lambda T, x, y: (s := T.stack([x, y])) * s, V3, W3, order=2)

# -------------------------------------------------------------------------------- hstack family, atleast
def L0(T):
    return [T.tensor(1.5), T.tensor(-2.0)]


def L1(T):
    return [T.tensor(V3), T.tensor(W3)]


def L2(T):
    return [T.tensor(A23), T.tensor(B23)]


LISTS = {"0d": L0, "1d": L1, "2d": L2}
cases("hstack", lambda T, mk: T.hstack(LISTS[mk](T)), mk=list(LISTS))
cases("vstack", lambda T, mk: T.vstack(LISTS[mk](T)), mk=list(LISTS))
cases("dstack", lambda T, mk: T.dstack(LISTS[mk](T)), mk=list(LISTS))
cases("column_stack", lambda T, mk: T.column_stack(LISTS[mk](T)), mk=list(LISTS))
case("row_stack", lambda T: T.row_stack((T.tensor(V3), T.tensor(W3))))
case("hstack_3d", lambda T: T.hstack([x234(T), x234(T)]))
case("vstack_mixed", lambda T: T.vstack([T.tensor(V3), T.tensor(A23)]))
case("dstack_mixed", lambda T: T.dstack([T.tensor(A23), x234(T).narrow(2, 0, 2)]))
case("column_stack_mixed", lambda T: T.column_stack([T.tensor([1.0, 2.0]), T.tensor(A23).t().narrow(0, 0, 2)]))
case("hstack_promotion", lambda T: T.hstack([T.tensor([1, 2]), T.tensor([0.5])]))
case("hstack_out", lambda T: (o := T.zeros(1), T.hstack(L1(T), out=o), o)[::2])
case("vstack_out", lambda T: (o := T.zeros(1), T.vstack(L1(T), out=o), o)[::2])
cases("stack_family_empty", lambda T, f: getattr(T, f)([]), kind="error", f=["hstack", "vstack", "dstack", "column_stack"])
error_case("column_stack_mismatch", lambda T: T.column_stack([T.tensor(1.5), T.tensor([1.0, 2.0, 3.0, 4.0])]))
error_case("vstack_mismatch", lambda T: T.vstack([T.tensor(V3), T.tensor([1.0, 2.0])]))
grad_case("hstack_grad", lambda T, x, y: T.hstack([x, y]), A23, B23)
grad_case("vstack_grad", lambda T, x, y: T.vstack([x, y]), V3, A23)
grad_case("dstack_grad", lambda T, x, y: T.dstack([x, y]), V3, W3)
grad_case("column_stack_grad", lambda T, x, y: T.column_stack([x, y]), [1.5, -0.5], A23)
grad_case("column_stack_grad_0d", lambda T, x, y: T.column_stack([x, y]), 2.5, 1.5)

cases("atleast", lambda T, f, v: (r := getattr(T, f)(T.tensor(v)), r.shape, r._is_view()),
      f=["atleast_1d", "atleast_2d", "atleast_3d"], v=[1.5, V3, A23, A234])
case("atleast_is_self", lambda T: ((x := x234(T)), T.atleast_1d(x) is x, T.atleast_2d(x) is x, T.atleast_3d(x) is x)[1:])
case("atleast_many", lambda T: (T.atleast_1d(T.tensor(1.5), T.tensor(V3)), T.atleast_2d([T.tensor(1.5), T.tensor(V3)]),
                                T.atleast_3d((T.tensor(A23),))))
case("atleast_none", lambda T: (len(T.atleast_1d()), len(T.atleast_2d([])), type(T.atleast_3d()).__name__))
cases("atleast_grad", lambda T, x, f: getattr(T, f)(x), V3, kind="grad", f=["atleast_1d", "atleast_2d", "atleast_3d"])
cases("atleast_grad_0d", lambda T, x, f: getattr(T, f)(x), 1.5, kind="grad", f=["atleast_1d", "atleast_2d", "atleast_3d"])

# -------------------------------------------------------------------------------- broadcast / meshgrid
case("broadcast_tensors", lambda T: T.broadcast_tensors(T.tensor(V3), T.tensor([[1.0], [2.0]]), T.tensor(0.5)))
case("broadcast_tensors_views", lambda T: [(t.shape, t.stride(), t._is_view()) for t in
                                           T.broadcast_tensors(T.tensor(V3), T.tensor([[1.0], [2.0]]))])
case("broadcast_tensors_same_is_self", lambda T: ((x := T.tensor(A23)), T.broadcast_tensors(x, T.tensor(B23))[0] is x)[1])
case("broadcast_tensors_single_and_none", lambda T: (T.broadcast_tensors(T.tensor(V3)), T.broadcast_tensors()))
case("broadcast_tensors_dtypes", lambda T: T.broadcast_tensors(T.tensor([1, 2]), T.tensor([[True], [False]])))
error_case("broadcast_tensors_mismatch", lambda T: T.broadcast_tensors(x234(T), T.zeros(2, 1, 5)))
grad_case("broadcast_tensors_grad", lambda T, x, y: T.broadcast_tensors(x, y), V3, [[1.0], [2.0]])
cases("meshgrid", lambda T, ix: T.meshgrid(T.tensor(V3), T.tensor([1.0, 2.0]), indexing=ix), ix=["ij", "xy"])
cases("meshgrid_three", lambda T, ix: T.meshgrid(T.tensor(V3), T.tensor([1.0, 2.0]), T.tensor(4.0), indexing=ix),
      ix=["ij", "xy"])
case("meshgrid_list", lambda T: T.meshgrid([T.tensor([1, 2]), T.tensor([3, 4, 5])], indexing="xy"))
case("meshgrid_single", lambda T: T.meshgrid(T.tensor(V3), indexing="xy"))
case("meshgrid_default_ij", lambda T: T.meshgrid(T.tensor(V3), T.tensor([1.0, 2.0])))
case("meshgrid_views", lambda T: [(t.stride(), t._is_view()) for t in T.meshgrid(T.tensor(V3), T.tensor([1.0, 2.0]),
                                                                              indexing="xy")])
error_case("meshgrid_bad_indexing", lambda T: T.meshgrid(T.tensor(V3), indexing="xx"))
error_case("meshgrid_empty", lambda T: T.meshgrid(indexing="ij"))
error_case("meshgrid_dtypes", lambda T: T.meshgrid(T.tensor(V3), T.tensor([1, 2]), indexing="ij"))
error_case("meshgrid_2d", lambda T: T.meshgrid(T.tensor(A23), indexing="ij"),
           match=r"^torch\.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ")
cases("meshgrid_grad", lambda T, x, y, ix: T.meshgrid(x, y, indexing=ix), V3, [1.0, 2.0], kind="grad", ix=["ij", "xy"])

# ------------------------------------------------------------------------------------------- flip
cases("flip", lambda T, d: T.flip(x234(T), d), d=[(0,), (1,), (-1,), (0, 2), (2, 1, 0), ()])
case("flip_method_varargs", lambda T: (x234(T).flip(0, 2), x234(T).flip(dims=[1])))
case("flip_0d", lambda T: T.tensor(1.5).flip(0))
case("flip_empty", lambda T: T.zeros(0, 3).flip(0).shape)
case("flip_layout", lambda T: [(r := x234(T).permute(*p).flip(1), r.stride()) for p in [(2, 0, 1), (1, 0, 2)]])
case("flip_noncontig", lambda T: nc_t(T, A23).flip(0))
case("flip_expanded", lambda T: nc_expand(T, [[1.5], [-2.0]], (2, 3)).flip(0, 1))
cases("flip_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).flip(1), dtype=ALL)
case("fliplr_flipud", lambda T: (T.fliplr(T.tensor(A23)), T.flipud(T.tensor(A23)), x234(T).fliplr(), T.tensor(V3).flipud()))
error_case("flip_dup", lambda T: x234(T).flip(0, 0))
error_case("flip_dup_neg", lambda T: x234(T).flip(0, -3))
error_case("flip_out_of_range", lambda T: x234(T).flip(3))
error_case("fliplr_1d", lambda T: T.fliplr(T.tensor(V3)))
error_case("flipud_0d", lambda T: T.flipud(T.tensor(1.5)))
cases("flip_grad", lambda T, x, d: x.flip(d), A234, kind="grad", d=[(0,), (2,), (0, 1, 2)])
grad_case("fliplr_grad", lambda T, x: T.fliplr(x), A23)
grad_case("flip_grad2", lambda T, x: (f := x.flip(1)) * f, A23, order=2)

# ------------------------------------------------------------------------------------------- roll
cases("roll_flat", lambda T, s: x234(T).roll(s), s=[0, 1, -1, 5, 25, -30])
cases("roll_dim", lambda T, s, d: x234(T).roll(s, d), s=[1, -2, 7], d=dims(3))
cases("roll_multi", lambda T, s, d: T.roll(x234(T), s, d), s=[(1, 2), (-1, 5)], d=[(0, 2), (2, -1)])
case("roll_kw", lambda T: x234(T).roll(shifts=(1, 1), dims=(1, 2)))
case("roll_layout", lambda T: ((r := x234(T).permute(2, 0, 1).roll(1, 0)), r.stride()))
case("roll_0d", lambda T: T.tensor(1.5).roll(1))
case("roll_empty", lambda T: (T.zeros(0, 3).roll(1, 0).shape, T.zeros(0, 3).roll(2).shape, T.zeros(2, 0).roll(1, 0).shape))
case("roll_noncontig", lambda T: (nc_t(T, A23).roll(1), nc_t(T, A23).roll(1, 1)))
cases("roll_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).roll(1, 1), dtype=ALL)
error_case("roll_misaligned", lambda T: x234(T).roll((1, 2), (0,)))
error_case("roll_no_shifts", lambda T: x234(T).roll(()))
error_case("roll_out_of_range", lambda T: x234(T).roll(1, 5))
error_case("roll_0d_dim", lambda T: T.tensor(1.5).roll(1, 0))
cases("roll_grad", lambda T, x, sd: x.roll(*sd), A234, kind="grad", sd=[(1, 1), ((1, -2), (2, 0)), (-3, -1)])
grad_case("roll_flat_grad", lambda T, x: x.roll(4), A234)
grad_case("roll_grad2", lambda T, x: (r := x.roll(1, 1)) * r, A23, order=2)

# ------------------------------------------------------------------------------------------- rot90
cases("rot90", lambda T, k: (r := T.rot90(x234(T), k, (1, 2)), r.stride()), k=[0, 1, 2, 3, 4, -1, -2, 5])
cases("rot90_dims", lambda T, d: T.rot90(x234(T), 1, d), d=[(0, 1), (1, 0), (2, 0), (-1, -2), (0, -1)])
case("rot90_method_default", lambda T: (T.tensor(A23).rot90(), T.tensor(A23).rot90(k=2)))
case("rot90_noncontig", lambda T: (r := T.rot90(nc_t(T, A23)), r.stride()))
cases("rot90_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).rot90(), dtype=ALL)
error_case("rot90_same_dims", lambda T: T.rot90(x234(T), 1, (0, 0)))
error_case("rot90_same_dims_wrapped", lambda T: T.rot90(x234(T), 1, (0, -3)))
error_case("rot90_dim_out_of_range", lambda T: T.rot90(x234(T), 1, (0, 3)))
error_case("rot90_one_dim", lambda T: T.rot90(x234(T), 1, (0,)))
error_case("rot90_1d", lambda T: T.rot90(T.tensor(V3)))
cases("rot90_grad", lambda T, x, k: T.rot90(x, k, (0, 2)), A234, kind="grad", k=[0, 1, 2, 3])
grad_case("rot90_grad2", lambda T, x: (r := x.rot90()) * r, A23, order=2)

# ------------------------------------------------------------------------------------------- repeat / tile
cases("repeat", lambda T, r: (o := x234(T).repeat(*r), o.stride()), r=[(1, 1, 1), (2, 1, 3), (2, 1, 1, 2), (1, 0, 1)])
case("repeat_tuple", lambda T: T.tensor(V3).repeat((2, 2)))
case("repeat_0d", lambda T: (T.tensor(1.5).repeat(2, 3), T.tensor(1.5).repeat([])))
case("repeat_noncontig", lambda T: (o := nc_t(T, A23).repeat(2, 1), o.stride()))
case("repeat_expanded", lambda T: nc_expand(T, [[1.5], [-2.0]], (2, 3)).repeat(1, 2))
case("repeat_empty", lambda T: T.zeros(0, 2).repeat(3, 2).shape)
cases("repeat_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).repeat(2, 2), dtype=ALL)
error_case("repeat_too_few", lambda T: x234(T).repeat(2))
error_case("repeat_negative", lambda T: x234(T).repeat(2, -1, 1))
error_case("repeat_no_args", lambda T: T.tensor(1.5).repeat())
cases("tile", lambda T, r: T.tile(x234(T), r), r=[(2,), (2, 1), (1, 2, 1, 2), ()])
case("tile_method", lambda T: (T.tensor(V3).tile(2, 2), T.tensor(A23).tile((3,))))
error_case("tile_negative", lambda T: x234(T).tile(-1))
cases("repeat_grad", lambda T, x, r: x.repeat(*r), A23, kind="grad", r=[(2, 1), (1, 3), (2, 2, 1), (3, 1, 2), (1, 0)])
grad_case("repeat_grad2", lambda T, x: (r := x.repeat(2, 2)) * r, A23, order=2)
grad_case("tile_grad", lambda T, x: x.tile(2), A23)

# -------------------------------------------------------------------------------------- repeat_interleave
cases("repeat_interleave_int", lambda T, r, d: x234(T).repeat_interleave(r, d), r=[0, 1, 2], d=[None, 0, 1, -1])
case("repeat_interleave_fn", lambda T: (T.repeat_interleave(T.tensor(A23), 2), T.repeat_interleave(T.tensor(A23), 3, dim=0)))
case("repeat_interleave_0d", lambda T: T.tensor(1.5).repeat_interleave(3))
error_case("repeat_interleave_0d_dim0", lambda T: T.tensor(1.5).repeat_interleave(2, 0))
case("repeat_interleave_output_size", lambda T: T.tensor(A23).repeat_interleave(2, 1, output_size=6))
case("repeat_interleave_counts", lambda T: (T.repeat_interleave(T.tensor([1, 0, 3])),
                                            T.repeat_interleave(T.tensor([2, 1], dtype=T.int32)),
                                            T.repeat_interleave(T.tensor([], dtype=T.int64))))
cases("repeat_interleave_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).repeat_interleave(2, 1), dtype=ALL)
error_case("repeat_interleave_negative", lambda T: x234(T).repeat_interleave(-1))
error_case("repeat_interleave_bad_dim", lambda T: x234(T).repeat_interleave(2, 3))
error_case("repeat_interleave_bad_output_size", lambda T: x234(T).repeat_interleave(2, 1, output_size=5))
error_case("repeat_interleave_counts_float", lambda T: T.repeat_interleave(T.tensor([1.0, 2.0])))
error_case("repeat_interleave_counts_negative", lambda T: T.repeat_interleave(T.tensor([1, -2])))
error_case("repeat_interleave_counts_2d", lambda T: T.repeat_interleave(T.tensor([[1, 2]])))
cases("repeat_interleave_grad", lambda T, x, d: x.repeat_interleave(3, d), A23, kind="grad", d=[None, 0, 1])
cases("repeat_interleave_tensor", lambda T, rd: x234(T).repeat_interleave(T.tensor(rd[0]), rd[1]),
      rd=[(2, 0), (2, -2), ([3], 0), ([3], -2), ([1, 0], 0), ([1, 0, 2, 1], -1), ([0, 0, 0], 1)])
error_case("repeat_interleave_tensor_size_mismatch_neg", lambda T: x234(T).repeat_interleave(T.tensor([1, 0]), -2))
cases("repeat_interleave_tensor_flat", lambda T, r: T.repeat_interleave(T.tensor(A23), T.tensor(r)),
      r=[2, [1], [1, 0, 2, 1, 3, 1]])
case("repeat_interleave_tensor_int32", lambda T: T.tensor(A23).repeat_interleave(T.tensor([2, 1], dtype=T.int32), dim=0))
case("repeat_interleave_tensor_output_size", lambda T: T.repeat_interleave(T.tensor(A23), T.tensor([1, 2]), dim=0,
                                                                           output_size=3))
error_case("repeat_interleave_tensor_bad_output_size", lambda T: T.repeat_interleave(T.tensor(A23), T.tensor([1, 2]),
                                                                                     dim=0, output_size=4))
error_case("repeat_interleave_tensor_size_mismatch", lambda T: x234(T).repeat_interleave(T.tensor([1, 2, 3]), 0))
error_case("repeat_interleave_tensor_2d", lambda T: x234(T).repeat_interleave(T.tensor([[1, 2]]), 0))
error_case("repeat_interleave_tensor_negative", lambda T: x234(T).repeat_interleave(T.tensor([1, -2]), 0))
error_case("repeat_interleave_tensor_float", lambda T: x234(T).repeat_interleave(T.tensor([1.0, 2.0]), 0))
cases("repeat_interleave_tensor_grad", lambda T, x, d: x.repeat_interleave(T.tensor([2, 1]), d), A23, kind="grad",
      d=[0, -2])
grad_case("repeat_interleave_tensor_grad_flat", lambda T, x: x.repeat_interleave(T.tensor(2)), A23)

# ------------------------------------------------------------------------------------------- tril / triu
cases("tril", lambda T, k: T.tril(x234(T), k), k=[0, 1, -1, 3, -4, 10])
cases("triu", lambda T, k: x234(T).triu(k), k=[0, 1, -1, 3, -4, 10])
case("tril_kw", lambda T: (T.tensor(A23).tril(diagonal=1), T.triu(T.tensor(A23), diagonal=-1)))
case("tril_layout", lambda T: ((r := x234(T).permute(2, 0, 1).tril()), r.stride()))
case("tril_noncontig", lambda T: (nc_t(T, A23).tril(), nc_t(T, A23).triu()))
case("tril_empty", lambda T: (T.zeros(0, 3).tril().shape, T.zeros(2, 0, 3).triu().shape))
cases("tril_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).tril(), dtype=ALL)
cases("triu_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).triu(1), dtype=ALL)
case("tril_inplace", lambda T: ((x := T.tensor(A23)), x.tril_(), x._version)[::2])
case("triu_inplace_view", lambda T: ((b := x234(T)), b.narrow(2, 1, 3).triu_(), b)[2])
case("tril_out", lambda T: (o := T.zeros(1), T.tril(T.tensor(A23), out=o), o)[::2])
case("triu_out", lambda T: (o := T.zeros(2, 3), T.triu(T.tensor(A23), 1, out=o), o)[1:])
error_case("triu_out_dtype", lambda T: T.triu(T.tensor(A23), 1, out=T.zeros(2, 3, dtype=T.float64)),
           skip="wick's generated out= accepts any dtype the result can be cast to; torch's tril/triu want it exact")
error_case("tril_1d", lambda T: T.tensor(V3).tril())
error_case("triu_0d", lambda T: T.tensor(1.5).triu())
cases("tril_grad", lambda T, x, k: x.tril(k), A234, kind="grad", k=[0, 1, -1])
cases("triu_grad", lambda T, x, k: x.triu(k), A234, kind="grad", k=[0, 2, -1])
grad_case("tril_grad2", lambda T, x: (r := x.tril()) * r, A23, order=2)
grad_case("triu_inplace_grad", lambda T, x: (x * 2).triu_(), A23)

# ------------------------------------------------------------------------------------------- diag family
cases("diag_1d", lambda T, k: T.diag(T.tensor(V3), k), k=[0, 1, -2])
cases("diag_2d", lambda T, k: T.diag(T.tensor(A23), k), k=[0, 1, -1, 2, -3, 5])
case("diag_method", lambda T: (T.tensor(V3).diag(), T.tensor(A23).diag(diagonal=1)))
case("diag_out", lambda T: (o := T.zeros(1), T.diag(T.tensor(V3), out=o), o)[::2])
case("diag_noncontig", lambda T: (T.diag(nc_t(T, A23)), T.diag(nc_t(T, A23), 1)))
cases("diag_dtypes", lambda T, dtype: (T.diag(T.tensor(I23, dtype=dtype)), T.diag(T.tensor(I23[0], dtype=dtype))), dtype=ALL)
error_case("diag_3d", lambda T: T.diag(x234(T)))
error_case("diag_0d", lambda T: T.diag(T.tensor(1.5)))
cases("diag_embed", lambda T, o, d: T.diag_embed(T.tensor(A23), o, *d), o=[0, 1, -1], d=[(-2, -1), (0, 2), (2, 0), (0, 1)])
case("diag_embed_method", lambda T: (T.tensor(V3).diag_embed(), x234(T).diag_embed(offset=1, dim1=0, dim2=-3).shape))
error_case("diag_embed_same_dims", lambda T: T.tensor(A23).diag_embed(0, 1, -2))
error_case("diag_embed_0d", lambda T: T.diag_embed(T.tensor(1.5)))
case("diagonal_copy", lambda T: (T.diagonal_copy(x234(T), 1, 1, 2), T.diagonal_copy(T.tensor(A23)),
                                 T.diagonal_copy(x234(T), dim1=0, dim2=2)._is_view()))
cases("diagflat", lambda T, v, k: T.diagflat(T.tensor(v), k), v=[1.5, V3, A23], k=[0, 1, -1])
case("diagflat_method", lambda T: T.tensor(A23).diagflat(offset=2))
cases("diag_grad", lambda T, x, k: T.diag(x, k), A23, kind="grad", k=[0, 1, -1])
cases("diag_1d_grad", lambda T, x, k: T.diag(x, k), V3, kind="grad", k=[0, 2, -1])
grad_case("diag_embed_grad", lambda T, x: T.diag_embed(x, 1, 0, 2), A23)
grad_case("diagonal_copy_grad", lambda T, x: T.diagonal_copy(x, -1, 2, 1), A234)
grad_case("diagflat_grad", lambda T, x: T.diagflat(x, -1), A23)
grad_case("diag_embed_grad2", lambda T, x: (d := T.diag_embed(x)) * d, V3, order=2)

# ------------------------------------------------------------------ bigger, permuted inputs (iterator coalescing)
def big(T, dtype=None):
    return T.arange(2 * 3 * 5 * 7, dtype=dtype or T.float32).reshape(2, 3, 5, 7)


PERMS = [(0, 1, 2, 3), (3, 1, 0, 2), (2, 3, 1, 0)]
cases("big_cat", lambda T, p, d: T.cat([big(T).permute(*p), -big(T).permute(*p)], d), p=PERMS, d=[0, 2, -1])
cases("big_stack", lambda T, p: T.stack([big(T).permute(*p), big(T).permute(*p) * 2], 2), p=PERMS)
cases("big_flip", lambda T, p: big(T).permute(*p).flip(0, 3), p=PERMS)
cases("big_roll", lambda T, p: big(T).permute(*p).roll((3, -4), (1, 3)), p=PERMS)
cases("big_repeat", lambda T, p: big(T).permute(*p).narrow(3, 1, 1).repeat(1, 2, 1, 3, 2), p=PERMS)
cases("big_tril", lambda T, p: big(T).permute(*p).tril(-1), p=PERMS)
cases("big_rot90", lambda T, k: T.rot90(big(T), k, (1, 3)), k=[1, 2, 3])
cases("big_cat_int", lambda T, dtype: T.cat([big(T, dtype).transpose(1, 3), big(T, dtype).transpose(1, 3)], 3),
      dtype=[D.int64, D.int16, D.uint8, D.float16, D.bfloat16])
