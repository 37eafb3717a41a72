"""Views on shared storage: geometry (shape, stride, storage_offset, data_ptr) equal to torch's, _is_view/_base,
writes through views, grad_fn names, gradients (uneven weights), second derivatives, and torch's errors."""
from .harness import *  # noqa: F401,F403

A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
A1314 = [[[[0.5, -1.25, 2.0, 3.5]], [[1.75, -0.5, 0.125, -3.0]], [[2.25, 4.0, -1.5, 0.75]]]]  # (1, 3, 1, 4)
I23 = [[4, -7, 2], [9, 0, -3]]
A33 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25], [0.75, 2.5, -0.5]]
V3 = [1.5, -2.0, 0.25]


def G(t):
    """What a view is: shape, strides, storage offset, view-ness and contiguity (as plain Python values)."""
    return (tuple(t.shape), t.stride(), t.storage_offset(), t._is_view(), t.is_contiguous())


def V(base, t):
    """A view of base: its values, its geometry, its byte offset into base's storage, and whether _base is base."""
    return (t, G(t), t.data_ptr() - base.data_ptr() if t.numel() else t.data_ptr(), t._base is base)


def sq(t):
    return t * t


def x234(T, dtype=None):
    return T.tensor(A234, dtype=dtype)


# ----------------------------------------------------------------------------------------------- permute
cases("permute", lambda T, p: V(x := x234(T), x.permute(*p)),
      p=[(2, 0, 1), (0, 1, 2), (1, 2, 0), (-1, 0, 1), (2, -2, -3)])
case("permute_list_arg", lambda T: x234(T).permute([2, 0, 1]))
case("permute_kw", lambda T: x234(T).permute(dims=(1, 0, 2)))
case("torch_permute", lambda T: T.permute(x234(T), (2, 1, 0)))
cases("permute_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).permute(1, 0), dtype=ALL)
case("permute_0d", lambda T: V(x := T.tensor(2.5), x.permute([])))
error_case("permute_no_args", lambda T: T.tensor(2.5).permute())
case("permute_empty", lambda T: G(T.zeros(0, 3, 2).permute(2, 0, 1)))
case("permute_noncontig", lambda T: V(x := nc_t(T, A23), x.permute(1, 0)))
error_case("permute_wrong_len", lambda T: x234(T).permute(0, 1))
error_case("permute_dup", lambda T: x234(T).permute(0, 0, 1))
error_case("permute_out_of_range", lambda T: x234(T).permute(0, 1, 5))
error_case("permute_0d_one_dim", lambda T: T.tensor(1.5).permute(0))
cases("permute_grad", lambda T, x, p: x.permute(*p), A234, kind="grad", p=[(2, 0, 1), (1, 2, 0), (0, 2, 1)])
grad_case("permute_grad2", lambda T, x: x.permute(1, 0) * x.permute(1, 0), A23, order=2)

# ---------------------------------------------------------------------------------------- transpose & co
cases("transpose", lambda T, d0, d1: V(x := x234(T), x.transpose(d0, d1)), d0=dims(3), d1=[0, -1, 1])
case("transpose_same_dim", lambda T: V(x := x234(T), x.transpose(1, 1)))
case("transpose_0d", lambda T: V(x := T.tensor(1.5), x.transpose(0, -1)))
case("transpose_kw", lambda T: T.transpose(x234(T), dim0=0, dim1=2))
case("swapaxes", lambda T: (T.swapaxes(x234(T), 0, 2), x234(T).swapaxes(axis0=1, axis1=2)))
case("swapdims", lambda T: (T.swapdims(x234(T), 0, 2), x234(T).swapdims(dim0=-1, dim1=0)))
case("t_2d", lambda T: V(x := T.tensor(A23), x.t()))
case("t_1d", lambda T: V(x := T.tensor([1.5, 2.0]), x.t()))
case("t_0d", lambda T: V(x := T.tensor(1.5), T.t(x)))
case("T_2d", lambda T: V(x := T.tensor(A23), x.T))
case("mT", lambda T: V(x := x234(T), x.mT))
case("H_2d", lambda T: V(x := T.tensor(A23), x.H))
case("mH", lambda T: V(x := x234(T), x.mH))
case("adjoint", lambda T: (V(x := x234(T), x.adjoint()), T.adjoint(T.tensor(A23))))
cases("transpose_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).transpose(0, 1), dtype=ALL)
error_case("transpose_out_of_range", lambda T: x234(T).transpose(0, 3))
error_case("t_3d", lambda T: x234(T).t())
error_case("adjoint_1d", lambda T: T.tensor([1.0, 2.0]).adjoint())
error_case("mT_1d", lambda T: T.tensor([1.0, 2.0]).mT)
error_case("H_3d", lambda T: x234(T).H)
error_case("mH_1d", lambda T: T.tensor([1.0, 2.0]).mH)
cases("transpose_grad", lambda T, x, d0, d1: x.transpose(d0, d1), A234, kind="grad", d0=[0, -1], d1=[1, 2])
grad_case("t_grad", lambda T, x: x.t(), A23)
grad_case("T_grad", lambda T, x: x.T, A23)
grad_case("mT_grad", lambda T, x: x.mT, A234)
grad_case("swapaxes_grad", lambda T, x: x.swapaxes(0, 2), A234)
grad_case("t_grad2", lambda T, x: x.t() * x.t(), A23, order=2)
grad_case("transpose_grad2", lambda T, x: (sq(x.transpose(0, 2))), A234, order=2)

# ---------------------------------------------------------------------------------------------- movedim
cases("movedim", lambda T, sd: V(x := x234(T), x.movedim(*sd)),
      sd=[(0, 2), (-1, 0), (1, 1), ((0, 1), (2, 0)), ((2, 0), (0, 1)), ((0, 1, 2), (2, 1, 0)), ((), ())])
case("moveaxis", lambda T: (T.moveaxis(x234(T), 0, -1), x234(T).moveaxis((0, 2), (1, 0))))
case("movedim_kw", lambda T: T.movedim(x234(T), source=1, destination=0))
case("movedim_0d", lambda T: T.tensor(2.0).movedim(0, 0))
error_case("movedim_len_mismatch", lambda T: x234(T).movedim((0, 1), (1,)))
error_case("movedim_repeat_src", lambda T: x234(T).movedim((0, 0), (1, 2)))
error_case("movedim_repeat_dst", lambda T: x234(T).movedim((0, 1), (2, 2)))
error_case("movedim_out_of_range", lambda T: x234(T).movedim(3, 0))
grad_case("movedim_grad", lambda T, x: x.movedim((0, 2), (2, 1)), A234)

# ---------------------------------------------------------------------------------------- unsqueeze / squeeze
cases("unsqueeze", lambda T, d: V(x := x234(T), x.unsqueeze(d)), d=list(range(-4, 4)))
case("unsqueeze_0d", lambda T: (V(x := T.tensor(1.5), x.unsqueeze(0)), T.tensor(1.5).unsqueeze(-1)))
case("unsqueeze_noncontig", lambda T: [G(nc_t(T, A23).unsqueeze(d)) for d in range(-3, 3)])
case("unsqueeze_step", lambda T: [G(T.tensor(A234)[..., ::2].unsqueeze(d)) for d in range(-4, 4)])
STEP_VIEWS = {
    "transpose": lambda t: t.transpose(0, 2), "permute": lambda t: t.permute(2, 0, 1), "squeeze": lambda t: t.squeeze(),
    "unsqueeze": lambda t: t.unsqueeze(2), "select": lambda t: t.select(2, 1), "narrow": lambda t: t.narrow(1, 1, 1),
    "diagonal": lambda t: t.diagonal(0, 0, 1), "flatten": lambda t: t.flatten(1), "unflatten": lambda t: t.unflatten(0, (1, 2)),
    "unbind": lambda t: t.unbind(1)[0], "split": lambda t: t.split(1, 2)[1], "movedim": lambda t: t.movedim(0, 2),
    "expand": lambda t: t.expand(3, 2, 2, 2), "view": lambda t: t.view(2, 2, 2), "reshape": lambda t: t.reshape(t.shape[0], -1),
    "as_strided": lambda t: t.as_strided((2, 2), (1, 4)), "mT": lambda t: t.mT, "reshape_alias": lambda t: t.reshape(-1, 2),
}
COPIES = ("flatten", "reshape", "reshape_alias")
cases("views_of_step_slice", lambda T, f: V(x := T.tensor(A234), STEP_VIEWS[f](x[:, ::2, 1::2])),
      f=[f for f in STEP_VIEWS if f not in COPIES])
cases("copies_of_step_slice", lambda T, f: (r := STEP_VIEWS[f](T.tensor(A234)[:, ::2, 1::2]), G(r)), f=COPIES)
case("unsqueeze_fn", lambda T: T.unsqueeze(T.tensor(A23), dim=1))
case("unsqueeze_empty", lambda T: G(T.zeros(0, 3).unsqueeze(1)))
cases("unsqueeze_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).unsqueeze(1), dtype=ALL)
error_case("unsqueeze_out_of_range", lambda T: x234(T).unsqueeze(4))
error_case("unsqueeze_out_of_range_neg", lambda T: x234(T).unsqueeze(-5))
error_case("unsqueeze_0d_out_of_range", lambda T: T.tensor(1.5).unsqueeze(1))
case("squeeze_all", lambda T: V(x := T.tensor(A1314), x.squeeze()))
cases("squeeze_dim", lambda T, d: V(x := T.tensor(A1314), x.squeeze(d)), d=dims(4))
cases("squeeze_dims", lambda T, d: V(x := T.tensor(A1314), x.squeeze(d)),
      d=[(0, 2), (-1, 0), (1,), (), [0, 1, 2, 3], (2, -4)])
case("squeeze_fn", lambda T: (T.squeeze(T.tensor(A1314)), T.squeeze(T.tensor(A1314), 2),
                              T.squeeze(T.tensor(A1314), dim=(0, 2))))
case("squeeze_0d", lambda T: (G(T.tensor(1.5).squeeze()), G(T.tensor(1.5).squeeze(0)), G(T.tensor(1.5).squeeze(-1)),
                              G(T.tensor(1.5).squeeze((0,)))))
case("squeeze_no_size1", lambda T: V(x := x234(T), x.squeeze()))
case("squeeze_empty", lambda T: (G(T.zeros(0, 1, 3).squeeze()), G(T.zeros(1, 0).squeeze(0))))
case("squeeze_expanded", lambda T: G(nc_expand(T, [[[1.5]], [[-2.0]]], (2, 1, 3)).squeeze()))
cases("squeeze_dtypes", lambda T, dtype: T.tensor([[I23]], dtype=dtype).squeeze(), dtype=ALL)
error_case("squeeze_out_of_range", lambda T: x234(T).squeeze(3))
error_case("squeeze_dims_repeat", lambda T: x234(T).squeeze((0, 0)))
error_case("squeeze_dims_repeat_neg", lambda T: x234(T).squeeze((0, -3)))
error_case("squeeze_0d_out_of_range", lambda T: T.tensor(1.5).squeeze(1))
cases("unsqueeze_grad", lambda T, x, d: x.unsqueeze(d), A23, kind="grad", d=[0, 1, 2, -1])
grad_case("squeeze_grad", lambda T, x: x.squeeze(), A1314)
cases("squeeze_dim_grad", lambda T, x, d: x.squeeze(d), A1314, kind="grad", d=[0, 1, 2, -1])
cases("squeeze_dims_grad", lambda T, x, d: x.squeeze(d), A1314, kind="grad", d=[(0, 2), (1, 3), (-2,)])
grad_case("squeeze_grad_0d", lambda T, x: x.squeeze(), 2.5)
grad_case("squeeze_grad2", lambda T, x: sq(x.squeeze()), A1314, order=2)
grad_case("squeeze_dim_grad2", lambda T, x: sq(x.squeeze(2)), A1314, order=2)
grad_case("unsqueeze_grad2", lambda T, x: sq(x.unsqueeze(1)), A23, order=2)

# ---------------------------------------------------------------------------------------- view / reshape
cases("view", lambda T, s: V(x := x234(T), x.view(*s)), s=[(6, 4), (-1,), (4, -1), (2, 2, 3, 2), (24,), (1, 24, 1)])
case("view_tuple_arg", lambda T: x234(T).view((3, 8)))
case("view_size_arg", lambda T: x234(T).view(T.Size([4, 6])))
case("view_0d", lambda T: (G(T.tensor(1.5).view(1)), G(T.tensor(1.5).view(-1)), G(T.tensor(1.5).view([])),
                           G(T.tensor([1.5]).view(()))))
case("view_empty", lambda T: (G(T.zeros(0, 3).view(3, 0)), G(T.zeros(0, 3).view(-1, 3, 2))))
case("view_transposed_compatible", lambda T: V(x := nc_t(T, [A23]), x.view(3, 2)))
case("view_as", lambda T: V(x := x234(T), x.view_as(T.zeros(6, 4))))
cases("view_dtype", lambda T, dtype: (x234(T).view(dtype), G(x234(T).view(dtype))),
      dtype=[D.int32, D.float32, D.int16, D.uint8, D.float64, D.int64, D.bfloat16])
case("view_dtype_int", lambda T: T.tensor(I23, dtype=T.int16).view(T.int8))
case("view_dtype_not_view", lambda T: (x := x234(T)).view(T.int32)._is_view())
grad_case("view_dtype_no_grad", lambda T, x: (x * 1, x.view(T.float32).requires_grad), A23)
error_case("view_incompatible", lambda T: nc_t(T, A23).view(6))
error_case("view_bad_shape", lambda T: x234(T).view(5, -1))
error_case("view_two_infer", lambda T: x234(T).view(-1, -1))
error_case("view_negative", lambda T: x234(T).view(-2, 12))
error_case("view_zero_infer", lambda T: x234(T).view(0, -1))
error_case("view_dtype_0d", lambda T: T.tensor(1.5).view(T.int64))
error_case("view_dtype_last_dim", lambda T: x234(T).narrow(2, 1, 3).view(T.int64))
error_case("view_dtype_offset", lambda T: x234(T).narrow(2, 1, 2).view(T.int64))
error_case("view_dtype_stride", lambda T: nc_t(T, A23).view(T.int16))
error_case("view_dtype_stride_div", lambda T: T.zeros(3, 3).narrow(1, 0, 2).view(T.int64))
cases("reshape", lambda T, s: V(x := x234(T), x.reshape(*s)), s=[(6, 4), (-1,), (4, -1), (2, 12)])
case("reshape_copies", lambda T: (G(r := nc_t(T, A23).reshape(6)), r))
case("reshape_as", lambda T: x234(T).reshape_as(T.zeros(4, 6)))
case("reshape_fn", lambda T: T.reshape(x234(T), (3, -1)))
grad_case("view_grad", lambda T, x: x.view(3, 8), A234)
grad_case("view_as_grad", lambda T, x: x.view_as(T.zeros(4, 6)), A234)
grad_case("reshape_copy_grad", lambda T, x: x.t().reshape(6), A23)
grad_case("reshape_view_grad2", lambda T, x: sq(x.reshape(6)), A23, order=2)
grad_case("view_grad2", lambda T, x: x.view(-1) * x.view(-1), A23, order=2)

# ---------------------------------------------------------------------------------------- flatten / unflatten
cases("flatten", lambda T, s, e: V(x := x234(T), x.flatten(s, e)), s=[0, 1, -2], e=[-1, 2])
case("flatten_default", lambda T: (T.flatten(x234(T)), G(x234(T).flatten())))
case("flatten_kw", lambda T: x234(T).flatten(start_dim=1))
case("flatten_same_dim_is_self", lambda T: ((x := x234(T)).flatten(1, 1) is x, x.flatten(-1, 2) is x))
case("flatten_0d", lambda T: (G(T.tensor(1.5).flatten()), G(T.tensor(1.5).flatten(0, 0)), G(T.tensor(1.5).flatten(-1, 0))))
case("flatten_noncontig", lambda T: (G(r := nc_t(T, A23).flatten()), r))
case("flatten_empty", lambda T: G(T.zeros(2, 0, 3).flatten(1)))
error_case("flatten_start_after_end", lambda T: x234(T).flatten(2, 1))
error_case("flatten_out_of_range", lambda T: T.tensor(1.5).flatten(1))
cases("unflatten", lambda T, d, s: V(x := x234(T), x.unflatten(d, s)), d=[1, -2], s=[(3, 1), (-1, 3), (1, 3, 1)])
case("unflatten_fn", lambda T: T.unflatten(x234(T), -1, (2, 2)))
case("unflatten_kw", lambda T: x234(T).unflatten(dim=2, sizes=(2, -1)))
error_case("unflatten_bad_product", lambda T: x234(T).unflatten(1, (2, 2)))
error_case("unflatten_empty_sizes", lambda T: x234(T).unflatten(1, ()))
error_case("unflatten_two_infer", lambda T: x234(T).unflatten(1, (-1, -1)))
error_case("unflatten_zero_infer", lambda T: x234(T).unflatten(1, (0, -1)))
error_case("unflatten_out_of_range", lambda T: x234(T).unflatten(3, (1, 3)))
error_case("unflatten_0d", lambda T: T.tensor(1.5).unflatten(0, (1,)))
cases("flatten_grad", lambda T, x, s: x.flatten(s), A234, kind="grad", s=[0, 1, 2])
grad_case("flatten_noncontig_grad", lambda T, x: x.flatten(), inp(A23, view=vT))
grad_case("unflatten_grad", lambda T, x: x.unflatten(2, (2, 2)), A234)

# ---------------------------------------------------------------------------------------- expand family
cases("expand", lambda T, s: V(x := T.tensor([[1.5], [-2.0]]), x.expand(*s)),
      s=[(2, 3), (4, 2, 3), (-1, 5), (2, 1), (3, -1, -1)])
case("expand_as", lambda T: V(x := T.tensor([1.5, -2.0, 0.25]), x.expand_as(T.zeros(2, 3))))
case("broadcast_to", lambda T: (V(x := T.tensor([1.5, -2.0, 0.25]), T.broadcast_to(x, (2, 3))),
                                T.tensor([[1.0], [2.0]]).broadcast_to((2, 2))))
case("expand_0d", lambda T: G(T.tensor(1.5).expand(2, 3)))
error_case("expand_too_few", lambda T: x234(T).expand(2, 3))
error_case("expand_mismatch", lambda T: x234(T).expand(2, 3, 5))
error_case("expand_leading_minus1", lambda T: x234(T).expand(-1, 2, 3, 4))
error_case("broadcast_to_mismatch", lambda T: T.broadcast_to(T.tensor([1.0, 2.0]), (3,)))
grad_case("expand_grad", lambda T, x: x.expand(3, 2, 4), [[1.5], [-2.0]])
grad_case("expand_as_grad", lambda T, x: x.expand_as(T.zeros(2, 3)), [1.5, -2.0, 0.25])
grad_case("broadcast_to_grad", lambda T, x: x.broadcast_to((2, 2, 3)), [1.5, -2.0, 0.25])

# ---------------------------------------------------------------------------------------- select / narrow
cases("select", lambda T, d, i: V(x := x234(T), x.select(d, i)), d=dims(3), i=[0, 1, -1])
case("select_fn", lambda T: T.select(x234(T), 2, 3))
case("select_kw", lambda T: x234(T).select(dim=1, index=2))
case("select_noncontig", lambda T: V(x := nc_t(T, A23), x.select(1, 1)))
case("select_1d_gives_0d", lambda T: V(x := T.tensor([1.5, 2.5, -1.0]), x.select(0, 2)))
error_case("select_out_of_range", lambda T: x234(T).select(0, 5))
error_case("select_out_of_range_neg", lambda T: x234(T).select(0, -3))
error_case("select_0d", lambda T: T.tensor(1.5).select(0, 0))
error_case("select_bad_dim", lambda T: x234(T).select(3, 0))
cases("narrow", lambda T, d, s, n: V(x := x234(T), x.narrow(d, s, n)),
      d=[0, 1, -1], s=[0, 1, -2], n=[0, 1])
case("narrow_fn", lambda T: T.narrow(x234(T), 2, 1, 3))
case("narrow_kw", lambda T: x234(T).narrow(dim=1, start=1, length=2))
case("narrow_start_at_end", lambda T: G(x234(T).narrow(2, 4, 0)))
case("narrow_of_narrow", lambda T: V(x := x234(T), x.narrow(2, 1, 3).narrow(1, 1, 2).narrow(2, 1, 1)))
error_case("narrow_too_long", lambda T: x234(T).narrow(0, 0, 3))
error_case("narrow_start_out_of_range", lambda T: x234(T).narrow(0, 3, 0))
error_case("narrow_start_neg_out_of_range", lambda T: x234(T).narrow(0, -3, 1))
error_case("narrow_negative_length", lambda T: x234(T).narrow(0, 1, -1))
error_case("narrow_0d", lambda T: T.tensor(1.5).narrow(0, 0, 1))
cases("select_grad", lambda T, x, d, i: x.select(d, i), A234, kind="grad", d=[0, 1, -1], i=[0, -1])
cases("narrow_grad", lambda T, x, d: x.narrow(d, 1, 1), A234, kind="grad", d=[0, 1, 2])
grad_case("select_grad2", lambda T, x: sq(x.select(1, 2)), A234, order=2)
grad_case("narrow_grad2", lambda T, x: sq(x.narrow(1, 1, 2)), A234, order=2)
grad_case("select_twice_same_grad_accumulates", lambda T, x: (x.select(0, 1), x.select(0, 1) * 2), A23)

# ---------------------------------------------------------------------------------------- diagonal
cases("diagonal", lambda T, o: V(x := T.tensor(A33), x.diagonal(o)), o=[0, 1, 2, -1, -2, 3, -5])
cases("diagonal_dims", lambda T, o, d: V(x := x234(T), x.diagonal(o, *d)),
      o=[0, 1, -1], d=[(0, 1), (0, 2), (-1, 1), (2, 0), (1, -3)])
case("diagonal_fn", lambda T: T.diagonal(x234(T), offset=1, dim1=2, dim2=0))
case("diagonal_nonsquare", lambda T: (T.tensor(A23).diagonal(), T.tensor(A23).diagonal(1), T.tensor(A23).diagonal(-1)))
error_case("diagonal_same_dims", lambda T: x234(T).diagonal(0, 0, 0))
error_case("diagonal_same_dims_neg", lambda T: x234(T).diagonal(0, 1, -2))
error_case("diagonal_0d", lambda T: T.tensor(1.5).diagonal())
cases("diagonal_grad", lambda T, x, o: x.diagonal(o), A33, kind="grad", o=[0, 1, -1, 4])
grad_case("diagonal_dims_grad", lambda T, x: x.diagonal(1, 2, 0), A234)
grad_case("diagonal_grad2", lambda T, x: sq(x.diagonal()), A33, order=2)

# ---------------------------------------------------------------------------------------- as_strided
case("as_strided", lambda T: V(x := x234(T), x.as_strided((3, 2), (1, 4))))
case("as_strided_offset", lambda T: V(x := x234(T), x.as_strided((2, 2), (5, 1), 3)))
case("as_strided_overlap", lambda T: V(x := x234(T), T.as_strided(x, (3, 3), (1, 1))))
case("as_strided_of_view_keeps_offset", lambda T: V(x := x234(T), x.narrow(0, 1, 1).as_strided((2,), (2,))))
case("as_strided_zero_stride", lambda T: V(x := x234(T), x.as_strided((2, 3), (0, 1))))
error_case("as_strided_negative_stride", lambda T: x234(T).as_strided((2,), (-1,)))
error_case("as_strided_out_of_bounds", lambda T: x234(T).as_strided((30,), (1,)))
error_case("as_strided_offset_out_of_bounds", lambda T: x234(T).as_strided((2,), (1,), 30))
error_case("as_strided_len_mismatch", lambda T: x234(T).as_strided((2,), (1, 2)))
error_case("as_strided_negative_offset", lambda T: x234(T).as_strided((2,), (1,), -1))
error_case("as_strided_negative_size", lambda T: x234(T).as_strided((2, -1), (1, 1)))
grad_case("as_strided_grad", lambda T, x: x.as_strided((3, 2), (1, 4)), A234)
grad_case("as_strided_overlap_grad", lambda T, x: x.as_strided((3, 3), (1, 1)), A234)
grad_case("as_strided_offset_grad", lambda T, x: x.as_strided((2, 2), (5, 1), 3), A234)
grad_case("as_strided_grad2", lambda T, x: x.as_strided((3, 3), (1, 1)) ** 2, A234, order=2,
          skip="wick: second derivatives through as_strided raise (derivative for aten::as_strided_backward is not implemented)")
cases("step_view_grad", lambda T, x, f: STEP_VIEWS[f](x), inp(A234, view=vstep), kind="grad",
      f=["transpose", "squeeze", "select", "flatten", "unbind", "split", "reshape", "diagonal", "mT", "reshape_alias"])
def _reshape_grad_fns(T):
    x = T.tensor(A23, requires_grad=True)
    rs = [x.t().reshape(3, 2), x.t().reshape(6), x.reshape(3, 2), x.t().flatten(), x.t().flatten(0, 0),
          x[:, ::2].reshape(4), x[:, ::2].reshape(2, 2, 1), x.unsqueeze(0).transpose(0, 2).reshape(3, 2)]
    return [(type(r.grad_fn).__name__, r._is_view(), r.stride()) for r in rs]


case("reshape_alias_grad_fn", _reshape_grad_fns)
grad_case("as_strided_of_transposed_grad", lambda T, x: x.as_strided((2, 2), (1, 3)), inp(A23, view=vT))

# ---------------------------------------------------------------------------------------- unbind / split / chunk
cases("unbind", lambda T, d: [V(x, t) for x in [x234(T)] for t in x.unbind(d)], d=dims(3))
case("unbind_fn", lambda T: T.unbind(x234(T), dim=1))
case("unbind_returns_tuple", lambda T: type(T.tensor(A23).unbind()).__name__)
case("unbind_empty_dim", lambda T: (len(T.zeros(0, 3).unbind(0)), T.zeros(0, 3).unbind(1)))
error_case("unbind_0d", lambda T: T.tensor(1.5).unbind(0))
error_case("unbind_out_of_range", lambda T: x234(T).unbind(3))
cases("split_int", lambda T, s, d: [V(x, t) for x in [x234(T)] for t in x.split(s, d)], s=[1, 2, 3, 5], d=[1, -1])
cases("split_list", lambda T, s: [V(x, t) for x in [x234(T)] for t in x.split(s, 2)], s=[[1, 3], [4], [2, 0, 2]])
case("split_fn", lambda T: (T.split(x234(T), 2, 2), T.split(x234(T), [1, 2], dim=1),
                            T.split(x234(T), split_size_or_sections=3, dim=-1)))
case("split_kw", lambda T: (x234(T).split(split_size=2, dim=1), x234(T).split([2, 2], dim=-1)))
case("split_with_sizes", lambda T: (x234(T).split_with_sizes([1, 2], 1), T.split_with_sizes(x234(T), [3, 1], dim=2)))
case("split_empty", lambda T: T.zeros(0, 3).split(0))
error_case("split_negative", lambda T: x234(T).split(-1))
error_case("split_zero", lambda T: x234(T).split(0))
error_case("split_sizes_sum", lambda T: x234(T).split([1, 1], 1))
error_case("split_sizes_negative", lambda T: x234(T).split([1, -1, 3], 1))
error_case("split_0d", lambda T: T.tensor(1.5).split(1))
cases("chunk", lambda T, c, d: [V(x, t) for x in [x234(T)] for t in x.chunk(c, d)], c=[1, 2, 3, 4], d=[1, 2])
case("chunk_fn", lambda T: T.chunk(x234(T), chunks=3, dim=-1))
case("chunk_uneven", lambda T: (T.tensor([1.0, 2, 3, 4, 5]).chunk(3), T.tensor([1.0, 2, 3, 4, 5, 6]).chunk(4),
                                T.tensor([1.0, 2, 3, 4, 5]).chunk(2)))
case("chunk_empty", lambda T: (T.zeros(0, 2).chunk(3), T.zeros(0, 2).chunk(1)))
error_case("chunk_zero", lambda T: x234(T).chunk(0))
error_case("chunk_negative", lambda T: x234(T).chunk(-1))
error_case("chunk_0d", lambda T: T.tensor(1.5).chunk(1))
cases("tensor_split_sections", lambda T, n, d: [V(x, t) for x in [x234(T)] for t in x.tensor_split(n, d)],
      n=[1, 2, 3, 5], d=[1, 2])
cases("tensor_split_indices", lambda T, i: [V(x, t) for x in [x234(T)] for t in x.tensor_split(i, 2)],
      i=[[1], [1, 3], [3, 1], [0, 10], [-1], []])
case("tensor_split_fn", lambda T: (T.tensor_split(x234(T), 2, dim=1), T.tensor_split(x234(T), [1, 2], dim=-1),
                                   T.tensor_split(x234(T), indices=[2], dim=2),
                                   T.tensor_split(x234(T), sections=2, dim=0)))
case("tensor_split_tensor_arg", lambda T: (T.tensor_split(x234(T), T.tensor(2), dim=2),
                                           T.tensor_split(x234(T), T.tensor([1, 3]), dim=2)))
error_case("tensor_split_zero_sections", lambda T: x234(T).tensor_split(0))
error_case("tensor_split_0d", lambda T: T.tensor(1.5).tensor_split(1))
error_case("tensor_split_float_tensor", lambda T: x234(T).tensor_split(T.tensor([1.0])))
error_case("tensor_split_2d_tensor", lambda T: x234(T).tensor_split(T.tensor([[1]])))
cases("unbind_grad", lambda T, x, d: x.unbind(d), A234, kind="grad", d=[0, 1, -1])
grad_case("unbind_partial_grad", lambda T, x: x.unbind(1)[1], A234)
grad_case("unbind_partial_grad2", lambda T, x: sq(x.unbind(1)[2]), A234, order=2)
cases("split_grad", lambda T, x, s: x.split(s, 2), A234, kind="grad", s=[1, 3, [1, 3], [2, 0, 2]])
grad_case("split_partial_grad", lambda T, x: x.split(2, 2)[0], A234)
grad_case("split_grad2", lambda T, x: [sq(t) for t in x.split(1, 1)], A234, order=2)
cases("chunk_grad", lambda T, x, c: x.chunk(c, 1), A234, kind="grad", c=[2, 3])
grad_case("chunk_partial_grad", lambda T, x: x.chunk(2, 2)[1] * 3, A234)
grad_case("tensor_split_grad", lambda T, x: x.tensor_split(3, 2), A234)
grad_case("tensor_split_partial_grad", lambda T, x: x.tensor_split([1, 3], 2)[1], A234)

# ---------------------------------------------------------------------------------------- iteration
case("iter_2d", lambda T: [t for t in T.tensor(A23)])
case("iter_views", lambda T: [V(x, t) for x in [T.tensor(A23)] for t in x])
case("iter_1d_gives_0d", lambda T: [G(t) for t in T.tensor([1.5, -2.0])])
case("iter_list", lambda T: list(T.tensor(I23)))
case("iter_empty", lambda T: len(list(T.zeros(0, 3))))
error_case("iter_0d", lambda T: list(T.tensor(1.5)))
grad_case("iter_grad", lambda T, x: [t * (i + 1) for i, t in enumerate(x)], A23)

# ---------------------------------------------------------------------------------------- contiguous / detach
case("contiguous_is_self", lambda T: ((x := x234(T)).contiguous() is x))
case("contiguous_copies", lambda T: ((c := (x := nc_t(T, A23)).contiguous()), G(c), c._base is None,
                                      c.data_ptr() != x.data_ptr(), x.is_contiguous()))
case("is_contiguous", lambda T: (x234(T).is_contiguous(), x234(T).permute(2, 0, 1).is_contiguous(),
                                 x234(T).narrow(2, 1, 2).is_contiguous(), x234(T).narrow(0, 1, 1).is_contiguous(),
                                 T.zeros(3, 1).expand(3, 4).is_contiguous(), T.zeros(0, 3).t().is_contiguous(),
                                 T.zeros(1, 3).t().is_contiguous()))
grad_case("contiguous_grad", lambda T, x: x.t().contiguous(), A23)
grad_case("contiguous_noop_grad", lambda T, x: (x * 1).contiguous(), A23)
case("detach_shares_storage", lambda T: ((x := x234(T)).detach().data_ptr() == x.data_ptr(), G(x.detach()),
                                         x.detach()._base is None))
grad_case("detach_view_no_grad", lambda T, x: (x * 2, x.narrow(0, 0, 1).detach().requires_grad), A23)

# ---------------------------------------------------------------------------------------- writes through views
def _write(T, make):
    b = x234(T)
    v = make(b)
    v.mul_(-2)
    v.add_(1)
    return b, v, b._version, v._version


cases("write_through_view", lambda T, how: _write(T, {
    "select": lambda b: b.select(1, 2), "narrow": lambda b: b.narrow(2, 1, 2), "permute": lambda b: b.permute(2, 0, 1),
    "transpose": lambda b: b.transpose(0, 2), "diagonal": lambda b: b.diagonal(0, 1, 2),
    "view": lambda b: b.view(6, 4), "unsqueeze": lambda b: b.unsqueeze(1), "unbind": lambda b: b.unbind(2)[3],
    "split": lambda b: b.split(2, 2)[1], "as_strided": lambda b: b.as_strided((2, 2), (5, 1), 3),
    "chained": lambda b: b.narrow(2, 1, 3).select(0, 1).t()}[how]),
    how=["select", "narrow", "permute", "transpose", "diagonal", "view", "unsqueeze", "unbind", "split",
         "as_strided", "chained"])
case("write_base_seen_by_view", lambda T: ((b := x234(T)), v := b.select(0, 1), b.mul_(2), v)[3])
case("view_of_view_base_is_root", lambda T: ((b := x234(T)).narrow(0, 1, 1).select(1, 2).t()._base is b))
case("version_shared", lambda T: ((b := x234(T)), v := b.select(0, 1), v.add_(1), b._version, v._version)[3:])

# ---------------------------------------------------------------------------------------------------------------
# select_scatter / slice_scatter / diagonal_scatter
cases("select_scatter", lambda T, d, i: T.select_scatter(x234(T), T.zeros(*[s for k, s in enumerate((2, 3, 4)) if k != d % 3]) - 1, d, i),
      d=[0, 1, -1], i=[0, -1])
case("select_scatter_method", lambda T: T.tensor(A23).select_scatter(T.tensor([9.0, 8.0]), 1, 2))
case("select_scatter_dtypes", lambda T: (T.select_scatter(T.zeros(2, 3), T.tensor([1, 2, 3]), 0, 1),
                                         T.select_scatter(T.zeros(2, 3, dtype=T.int64), T.tensor([1.5, 2.5, 3.5]), 0, 0)))
case("select_scatter_layout", lambda T: (r := T.select_scatter(T.zeros(3, 3).t(), T.ones(3), 0, 0), r.stride()))
cases("slice_scatter", lambda T, a: T.slice_scatter(x234(T), T.zeros(*a[0]) - 1, *a[1:]),
      a=[((1, 3, 4), 0, 0, 1), ((2, 3, 2), 2, None, None, 2), ((2, 2, 4), 1, 1), ((2, 3, 1), -1, -1), ((2, 3, 4),)])
case("slice_scatter_kw", lambda T: T.tensor(A23).slice_scatter(T.ones(2, 2), dim=1, start=1))
cases("diagonal_scatter", lambda T, o: T.diagonal_scatter(T.tensor(A33), T.zeros(3 - abs(o)) - 1, o), o=[0, 1, -2])
case("diagonal_scatter_dims", lambda T: T.diagonal_scatter(x234(T), T.zeros(3, 2), 0, 0, 2))
error_case("select_scatter_bad_size", lambda T: T.select_scatter(T.zeros(3, 3), T.ones(2), 0, 0))
error_case("select_scatter_bad_index", lambda T: T.select_scatter(T.zeros(3, 3), T.ones(3), 0, 3))
error_case("slice_scatter_bad_size", lambda T: T.slice_scatter(T.zeros(3, 3), T.ones(2, 3), 0, 0, 1))
error_case("diagonal_scatter_bad_size", lambda T: T.diagonal_scatter(T.zeros(3, 3), T.ones(2)))
grad_case("select_scatter_grad", lambda T, x, s: T.select_scatter(x, s, 1, 1), A23, [1.5, -0.5])
grad_case("slice_scatter_grad", lambda T, x, s: T.slice_scatter(x, s, 1, 0, 3, 2), A23, [[1.5, -0.5], [2.0, 0.25]])
grad_case("diagonal_scatter_grad", lambda T, x, s: T.diagonal_scatter(x, s, -1), A33, [1.5, -0.5])
grad_case("select_scatter_grad2", lambda T, x, s: (r := T.select_scatter(x, s, 0, 0)) * r, A23, V3, order=2)

# ---------------------------------------------------------------------------------------------------------------
# unfold (a view of windows)
cases("unfold", lambda T, a: V(x := x234(T), x.unfold(*a)), a=[(2, 2, 1), (2, 2, 2), (-1, 4, 3), (2, 0, 1), (1, 3, 1),
                                                              (0, 1, 2), (1, 2, 5)])
case("unfold_0d", lambda T: G(T.tensor(1.5).unfold(0, 1, 1)))
case("unfold_noncontig", lambda T: V(x := x234(T), x.permute(2, 0, 1).unfold(0, 2, 1)))
case("unfold_kw", lambda T: T.tensor([1.0, 2, 3, 4, 5]).unfold(dimension=0, size=2, step=2))
error_case("unfold_too_big", lambda T: x234(T).unfold(2, 5, 1))
error_case("unfold_negative_size", lambda T: x234(T).unfold(2, -1, 1))
error_case("unfold_zero_step", lambda T: x234(T).unfold(2, 2, 0))
error_case("unfold_bad_dim", lambda T: x234(T).unfold(3, 2, 1))
error_case("unfold_0d_too_big", lambda T: T.tensor(1.5).unfold(0, 2, 1))
cases("unfold_grad", lambda T, x, a: x.unfold(*a), A234, kind="grad", a=[(2, 2, 1), (2, 3, 1), (1, 2, 1), (0, 1, 1), (2, 1, 3)])
grad_case("unfold_grad_noncontig", lambda T, x: x.unfold(0, 2, 1), inp(A23, view=vT))
grad_case("unfold_grad_0d", lambda T, x: x.unfold(0, 1, 1), 2.5)
grad_case("unfold_grad2", lambda T, x: (u := x.unfold(1, 2, 1)) * u, A23, order=2)
grad_case("unfold_inplace_grad", lambda T, x: ((b := x * 1), b.unfold(1, 2, 2).mul_(3), b)[2], A234)

# ---------------------------------------------------------------------------------------------------------------
# printed form of views (grad_fn names in the repr)
print_case("print_permute", lambda T: T.tensor(A23, requires_grad=True).permute(1, 0))
print_case("print_unbind", lambda T: (T.tensor(A23, requires_grad=True) * 1).unbind(1)[2])
print_case("print_squeeze_meta", lambda T: (y := T.tensor(A1314, requires_grad=True) * 1).squeeze_())
print_case("print_copyslices", lambda T: ((b := T.tensor(A23, requires_grad=True) * 1), b.select(0, 1).mul_(2), b)[2])
print_case("print_view_int", lambda T: T.tensor(I23).t())

# ---------------------------------------------------------------------------------------------------------------
# huge arguments: torch's errors, never a crash
error_case("view_huge", lambda T: x234(T).view(2 ** 62, 2 ** 62))
error_case("reshape_huge_zero", lambda T: T.zeros(0).view(2 ** 62, 2 ** 62, 0))
error_case("expand_huge", lambda T: x234(T).expand(2 ** 62, 2, 3, 4))
error_case("as_strided_huge", lambda T: x234(T).as_strided((2 ** 62, 2 ** 62), (1, 1)))
error_case("repeat_interleave_huge", lambda T: x234(T).repeat_interleave(2 ** 62))
error_case("select_huge", lambda T: x234(T).select(0, -2 ** 63))
error_case("narrow_huge", lambda T: x234(T).narrow(1, 2 ** 62, 2 ** 62))
case("diagonal_huge_offset", lambda T: (x234(T).diagonal(2 ** 63 - 1).shape, x234(T).diagonal(-2 ** 63).shape))
case("roll_huge", lambda T: (T.tensor(V3).roll(2 ** 63 - 1), T.tensor(A23).rot90(2 ** 63 - 1)))
case("tril_huge", lambda T: (T.tensor(A23).tril(-2 ** 63), T.tensor(A23).triu(2 ** 63 - 1), T.tensor(A23).tril(2 ** 63 - 1)))
case("split_huge", lambda T: (len(x234(T).split(2 ** 63 - 1)), len(x234(T).chunk(2 ** 62))))

# ---------------------------------------------------------------------------------------------------------------
# deprecation warnings of .T / .mT / .H / .mH / adjoint()
case("T_3d_warns", lambda T: x234(T).T.shape, warns=True)
case("T_1d_warns", lambda T: T.tensor(V3).T, warns=True)
case("T_2d_no_warning", lambda T: T.tensor(A23).T, warns=True)
cases("transpose_props_0d_warn", lambda T, p: (r := (x := T.tensor(1.5)).__getattribute__(p), r is x, G(r)), warns=True,
      p=["T", "mT", "H", "mH"])
case("adjoint_0d_warns", lambda T: ((x := T.tensor(1.5)).adjoint() is x), warns=True)
case("meshgrid_no_indexing_warns", lambda T: T.meshgrid(T.tensor(V3), T.tensor([1.0, 2.0])), warns=True)

# ---------------------------------------------------------------------------------------------------------------
# layouts of results with empty or size-1 dims: clone / *_like / flip / rot90 keep a dense input's own strides (torch's
# empty_like); roll of an empty tensor is a clone (no dim is looked at); an elementwise op beside a scalar sorts the
# dims, and a size-0 dim gives the dims outside it stride 0 (TensorIterator)
_ODD = {"empty_t": lambda T: T.empty(2, 0, 3).transpose(0, 1), "unsq": lambda T: T.arange(12.).reshape(3, 4).unsqueeze(0),
        "size1_t": lambda T: T.arange(3.).reshape(1, 3).t(), "empty_perm": lambda T: T.empty(1, 2, 0).permute(2, 0, 1),
        "empty_col": lambda T: T.empty(0, 3).t()}
_LAYOUT_OPS = {"clone": lambda T, x: x.clone(), "empty_like": lambda T, x: T.empty_like(x), "zeros_like": lambda T, x: T.zeros_like(x),
               "flip": lambda T, x: x.flip(0), "rot90": lambda T, x: x.rot90(1, [0, 1]), "roll": lambda T, x: x.roll(1, 0),
               "mul_scalar": lambda T, x: x * 2, "exp": lambda T, x: x.exp(), "add_self": lambda T, x: x + x}
cases("layout_odd_strides", lambda T, src, op: (r := _LAYOUT_OPS[op](T, _ODD[src](T)), r.shape, r.stride())[1:],
      src=sorted(_ODD), op=sorted(_LAYOUT_OPS))
case("roll_empty_skips_dims", lambda T: (T.empty(0, 3).roll(1, 5).stride(), T.empty(0, 3).roll([1, 2], [7, -9]).shape))

# narrow_copy (a copy, NarrowCopyBackward0), unsafe_split / unsafe_split_with_sizes / unsafe_chunk (not views:
# UnsafeSplitBackward0, UnsafeSplitWithSizesBackward0), Tensor.real of a real tensor (itself) and .imag (an error).
# torch's narrow_copy backward ignores a negative start (zeros or a size error), so negative starts are not compared.
def _split_like(T, how):
    x = T.arange(6.0).reshape(2, 3).requires_grad_()
    r = {"narrow_copy": lambda: x.narrow_copy(1, 1, 2), "narrow_copy_fn": lambda: T.narrow_copy(x, 0, 1, 1),
         "unsafe_split": lambda: x.unsafe_split(2, 1), "unsafe_split_fn": lambda: T.unsafe_split(x, 1),
         "unsafe_split_with_sizes": lambda: x.unsafe_split_with_sizes([1, 2], 1), "unsafe_chunk": lambda: x.unsafe_chunk(2, 1),
         "unsafe_chunk_fn": lambda: T.unsafe_chunk(x, 3, 1), "unsafe_chunk_empty": lambda: T.empty(0, 2).unsafe_chunk(3)}[how]()
    outs = list(r) if isinstance(r, (tuple, list)) else [r]
    meta = [(o.grad_fn.name() if o.grad_fn else None, o._is_view(), o.is_contiguous()) for o in outs]
    if outs[0].requires_grad:
        sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
    return outs, meta, x.grad


cases("split_like_copies", _split_like, how=["narrow_copy", "narrow_copy_fn", "unsafe_split", "unsafe_split_fn", "unsafe_split_with_sizes",
                                              "unsafe_chunk", "unsafe_chunk_fn", "unsafe_chunk_empty"])
error_case("narrow_copy_negative_length", lambda T: T.arange(6.0).reshape(2, 3).narrow_copy(1, 0, -1))
error_case("narrow_copy_past_end", lambda T: T.arange(6.0).reshape(2, 3).narrow_copy(1, 2, 2))
error_case("unsafe_chunk_zero", lambda T: T.arange(6.0).unsafe_chunk(0))
error_case("unsafe_split_with_sizes_bad", lambda T: T.arange(6.0).reshape(2, 3).unsafe_split_with_sizes([1, 1], 1))
case("real_is_self", lambda T: ((x := T.arange(3.0)).real is x, T.real(x) is x, T.real(x)))
error_case("imag_real_tensor", lambda T: T.arange(3.0).imag)
error_case("imag_fn_real_tensor", lambda T: T.imag(T.arange(3.0)))
case("is_pinned_cpu", lambda T: T.arange(3.0).is_pinned())
error_case("pin_memory_no_accelerator", lambda T: T.arange(3.0).pin_memory())
