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
