"""The indexing ops: gather, scatter (src, value, reduce=), scatter_add, scatter_reduce, index_select, index_add,
index_copy, index_fill, index_put, masked_fill, masked_select, masked_scatter, take, put, take_along_dim, nonzero,
argwhere, where(cond) -- every spelling, dtypes, dims, 0-d and empty inputs, views, gradients and torch's errors."""
from .harness import *  # noqa: F401,F403

A34 = [[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
I34 = [[4, -7, 2, 9], [0, -3, 5, 1], [8, 6, -2, -9]]
V5 = [1.5, -2.0, 0.25, 3.0, -0.75]
M34 = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]


def a34(T, dtype=None):
    return T.tensor(A34, dtype=dtype)


def L(T, data, dtype=None):
    return T.tensor(data, dtype=T.int64 if dtype is None else dtype)


# ------------------------------------------------------------------------------------------ gather
GI = {0: [[2, 0, 1, 2], [0, 0, 2, 1]], 1: [[3, 0], [1, 1], [0, 2]], -1: [[3, 0, 0], [2, 1, 3], [0, 3, 1]],
      -2: [[1, 2, 0, 0]]}
cases("gather_dims", lambda T, dim: a34(T).gather(dim, L(T, GI[dim])), dim=[0, 1, -1, -2])
cases("gather_fn", lambda T, dim: T.gather(a34(T), dim, L(T, GI[dim])), dim=[0, 1])
cases("gather_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).gather(1, L(T, GI[1])), dtype=ALL)
case("gather_int32_index", lambda T: a34(T).gather(1, L(T, GI[1], T.int32)))
case("gather_3d", lambda T: T.tensor(A234).gather(2, L(T, [[[3, 0], [1, 1]], [[0, 2], [2, 3]]])))
case("gather_3d_dim1", lambda T: T.tensor(A234).gather(1, L(T, [[[2, 0, 1, 1]], [[0, 0, 2, 1]]])))
case("gather_smaller_index", lambda T: a34(T).gather(0, L(T, [[2]])))
case("gather_wider_along_dim", lambda T: a34(T).gather(1, L(T, [[0, 1, 2, 3, 0, 3]])))
case("gather_0d", lambda T: T.tensor(2.5).gather(0, L(T, 0)))
case("gather_0d_index_1d", lambda T: T.tensor(2.5).gather(0, L(T, [0, 0])))
case("gather_empty_index", lambda T: a34(T).gather(1, T.zeros(3, 0, dtype=T.int64)))
case("gather_empty_self", lambda T: T.zeros(0, 3).gather(1, T.zeros(0, 2, dtype=T.int64)))
case("gather_empty_float_index", lambda T: a34(T).gather(1, T.zeros(0, 2)))
case("gather_noncontig", lambda T: nc_t(T, A34).gather(0, L(T, [[3, 0, 1], [2, 2, 0]])))
case("gather_noncontig_index", lambda T: a34(T).gather(1, nc_t(T, [[3, 0, 1], [2, 2, 0]])))
case("gather_out", lambda T: (lambda o: (T.gather(a34(T), 1, L(T, GI[1]), out=o), o))(T.zeros(3, 2)))
case("gather_sparse_grad_flag", lambda T: a34(T).gather(1, L(T, GI[1]), sparse_grad=False))
error_case("gather_oob", lambda T: a34(T).gather(1, L(T, [[0, 4]])))
error_case("gather_negative", lambda T: a34(T).gather(1, L(T, [[0, -1]])))
error_case("gather_float_index", lambda T: a34(T).gather(1, T.tensor([[0.0, 1.0]])))
error_case("gather_bool_index", lambda T: a34(T).gather(1, T.tensor([[True]])))
error_case("gather_ndim_mismatch", lambda T: a34(T).gather(1, L(T, [0, 1])))
error_case("gather_size_mismatch", lambda T: a34(T).gather(1, L(T, [[0]] * 4)))
error_case("gather_dim_range", lambda T: a34(T).gather(2, L(T, GI[1])))
grad_case("gather_grad", lambda T, x: x.gather(1, L(T, [[3, 0, 3], [1, 1, 1], [0, 2, 2]])), A34)
grad_case("gather_grad_dim0", lambda T, x: x.gather(0, L(T, [[2, 0, 1, 2], [2, 2, 2, 0]])), A34)
grad_case("gather_grad_noncontig", lambda T, x: x.gather(0, L(T, [[3, 0, 1]])), inp(A34, view=vT))
grad_case("gather_grad_order2", lambda T, x: x.gather(1, L(T, [[3, 0], [1, 1], [0, 2]])) *
          x.gather(1, L(T, [[2, 0], [1, 3], [0, 0]])), A34, order=2)
case("gather_grad_fn", lambda T: type(T.tensor(A34, requires_grad=True).gather(0, L(T, [[1]])).grad_fn).__name__)

# ------------------------------------------------------------------------------------------ scatter
SI = L  # index builder
SRC34 = [[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0], [90.0, 100.0, 110.0, 120.0]]
cases("scatter_src_dims", lambda T, dim: T.zeros(3, 4).scatter(dim, SI(T, {0: [[2, 0, 1, 0]], 1: [[3, 0], [1, 2], [0, 2]],
                                                                           -1: [[1], [3], [0]]}[dim]), T.tensor(SRC34)),
      dim=[0, 1, -1])
case("scatter_value", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[3, 0], [1, 2], [0, 2]]), 7.5))
case("scatter_value_int", lambda T: T.zeros(3, 4, dtype=T.int64).scatter(1, SI(T, [[3, 0], [1, 2], [0, 2]]), 2.7))
case("scatter_value_bool", lambda T: T.zeros(3, 4, dtype=T.bool).scatter(0, SI(T, [[1, 0, 2, 1]]), True))
cases("scatter_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).scatter(1, SI(T, [[3], [0], [2]]),
                                                                           T.tensor(I34, dtype=dtype)), dtype=ALL)
case("scatter_fn", lambda T: T.scatter(a34(T), 0, SI(T, [[2, 0, 1, 0]]), T.tensor(SRC34)))
case("scatter_inplace", lambda T: (lambda x: (x.scatter_(1, SI(T, [[0], [3], [1]]), T.tensor(SRC34)), x)[1])(a34(T)))
case("scatter_inplace_value", lambda T: (lambda x: (x.scatter_(1, SI(T, [[0], [3], [1]]), -1.0), x)[1])(a34(T)))
case("scatter_out", lambda T: (lambda o: (T.scatter(a34(T), 1, SI(T, [[0], [3], [1]]), -1.0, out=o), o))(T.zeros(3, 4)))
case("scatter_1d_dupes_last_wins", lambda T: T.zeros(3).scatter(0, SI(T, [0, 1, 2, 0]), T.tensor([1.0, 2.0, 3.0, 4.0])))
case("scatter_int32_index", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[1], [2], [3]], T.int32), T.tensor(SRC34)))
case("scatter_0d", lambda T: T.zeros(3).scatter(0, SI(T, 0), T.tensor(7.0)))
case("scatter_0d_self", lambda T: T.tensor(1.0).scatter(0, SI(T, 0), T.tensor(7.0)))
case("scatter_empty_index", lambda T: a34(T).scatter(1, T.zeros(0, dtype=T.int64), 1.0))
case("scatter_empty_index_2d", lambda T: a34(T).scatter(1, T.zeros(0, 5, dtype=T.int64), 1.0))
case("scatter_empty_float_index", lambda T: T.zeros(3).scatter(0, T.zeros(0), T.tensor([1.0])))
case("scatter_noncontig_self", lambda T: nc_t(T, A34).scatter(1, SI(T, [[0], [2], [1], [0]]), -9.0))
case("scatter_noncontig_src", lambda T: T.zeros(4, 3).scatter(0, SI(T, [[3, 0, 1]]), nc_t(T, SRC34)))
case("scatter_smaller_than_src", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[1, 0]]), T.tensor(SRC34)))
case("scatter_reduce_add", lambda T: a34(T).scatter(1, SI(T, [[0, 0], [3, 1], [2, 2]]), T.tensor(SRC34), reduce="add"))
case("scatter_reduce_multiply", lambda T: a34(T).scatter(1, SI(T, [[0, 0], [3, 1], [2, 2]]), T.tensor(SRC34),
                                                         reduce="multiply"))
case("scatter_value_reduce_add", lambda T: a34(T).scatter(1, SI(T, [[0, 0], [3, 1], [2, 2]]), 2.0, reduce="add"))
case("scatter_value_reduce_multiply", lambda T: a34(T).scatter(0, SI(T, [[1, 1, 0, 2]]), -2.0, reduce="multiply"))
case("scatter_reduce_kw_inplace", lambda T: (lambda x: (x.scatter_(0, SI(T, [[1, 1, 0, 2]]), 3.0, reduce="add"), x)[1])(
    a34(T)))
error_case("scatter_bad_reduce", lambda T: a34(T).scatter(1, SI(T, [[0]]), 1.0, reduce="mean"))
error_case("scatter_oob", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[0, 9]]), T.tensor(SRC34)))
error_case("scatter_negative", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[-1]]), 1.0))
error_case("scatter_dtype_mismatch", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[0]]), T.tensor(SRC34, dtype=T.float64)))
error_case("scatter_float_index", lambda T: T.zeros(3).scatter(0, T.tensor([0.0]), T.tensor([1.0])))
error_case("scatter_index_larger_than_src", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[0, 1], [2, 0]]), T.ones(1, 1)))
error_case("scatter_index_larger_than_self", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[0, 1, 2, 3, 0]]), T.tensor(SRC34)))
error_case("scatter_ndim_self", lambda T: T.zeros(3).scatter(0, SI(T, [[0]]), T.tensor([1.0])))
error_case("scatter_ndim_src", lambda T: T.zeros(3, 4).scatter(1, SI(T, [[0]]), T.tensor(3.0)))
error_case("scatter_value_overflow", lambda T: T.zeros(3, dtype=T.int8).scatter(0, SI(T, [0]), 300))
error_case("scatter_no_value", lambda T: T.zeros(3).scatter(0, SI(T, [0])))
grad_case("scatter_grad", lambda T, x, s: x.scatter(1, SI(T, [[3, 0], [1, 2], [0, 2]]), s), A34,
          [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def _scatter_src_bigger_backward(T):
    s = T.tensor(SRC34, requires_grad=True)
    T.zeros(3, 4).scatter(1, SI(T, [[3, 0], [1, 2], [0, 2]]), s).sum().backward()


error_case("scatter_grad_src_bigger_than_index", _scatter_src_bigger_backward)
grad_case("scatter_grad_value", lambda T, x: x.scatter(0, SI(T, [[1, 0, 2, 1]]), 5.0), A34)
grad_case("scatter_grad_src_only", lambda T, s: T.zeros(3, 4).scatter(1, SI(T, [[3, 0], [1, 2], [0, 2]]), s),
          [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
grad_case("scatter_grad_order2", lambda T, x, s: x.scatter(1, SI(T, [[3], [1], [0]]), s * s) * x, A34,
          [[1.0], [3.0], [5.0]], order=2)
case("scatter_reduce_grad_fn", lambda T: type(T.tensor(A34, requires_grad=True).scatter(
    0, SI(T, [[1]]), 2.0, reduce="add").grad_fn).__name__)


def _scatter_reduce_backward(T):
    x = T.tensor(A34, requires_grad=True)
    x.scatter(0, SI(T, [[1]]), 2.0, reduce="add").sum().backward()


error_case("scatter_reduce_no_derivative", _scatter_reduce_backward)

# ------------------------------------------------------------------------------------- scatter_add
case("scatter_add", lambda T: a34(T).scatter_add(1, SI(T, [[0, 0, 3], [1, 1, 1], [2, 0, 2]]), T.tensor(SRC34)))
case("scatter_add_fn", lambda T: T.scatter_add(a34(T), 0, SI(T, [[2, 2, 0, 0], [2, 0, 1, 0]]), T.tensor(SRC34)))
case("scatter_add_inplace", lambda T: (lambda x: (x.scatter_add_(0, SI(T, [[2, 2, 0, 0]]), T.tensor(SRC34)), x)[1])(
    a34(T)))
case("scatter_add_out", lambda T: (lambda o: (T.scatter_add(a34(T), 0, SI(T, [[2, 2, 0, 0]]), T.tensor(SRC34), out=o), o))(
    T.zeros(3, 4)))
cases("scatter_add_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).scatter_add(
    1, SI(T, [[0, 0], [3, 3], [1, 0]]), T.tensor(I34, dtype=dtype)), dtype=ALL)
case("scatter_add_1d_dupes", lambda T: T.zeros(4).scatter_add(0, SI(T, [1, 1, 3, 1]), T.tensor([0.5, 0.25, 2.0, 4.0])))
error_case("scatter_add_dtype_mismatch", lambda T: T.zeros(3).scatter_add(0, SI(T, [0]), SI(T, [1])))
grad_case("scatter_add_grad", lambda T, x, s: x.scatter_add(1, SI(T, [[3, 3], [1, 0], [0, 0]]), s), A34,
          [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
grad_case("scatter_add_grad_order2", lambda T, x, s: x.scatter_add(0, SI(T, [[1, 1, 0, 2]]), s * s) * x, A34,
          [[1.0, -2.0, 0.5, 3.0]], order=2)

# --------------------------------------------------------------------------------- scatter_reduce
REDS = ["sum", "prod", "mean", "amax", "amin"]
RI = [[0, 0, 3], [1, 3, 1], [2, 0, 0]]
RS = [[1.5, -2.0, 4.0], [0.5, 3.0, -1.0], [2.5, -0.5, 6.0]]
cases("scatter_reduce", lambda T, reduce, include_self: a34(T).scatter_reduce(1, SI(T, RI), T.tensor(RS), reduce,
                                                                              include_self=include_self),
      reduce=REDS, include_self=BOOLS)
cases("scatter_reduce_int", lambda T, reduce, include_self: T.tensor(I34).scatter_reduce(
    1, SI(T, RI), T.tensor([[3, -5, 7], [2, 9, -4], [6, 1, -8]]), reduce, include_self=include_self),
      reduce=REDS, include_self=BOOLS)
cases("scatter_reduce_dtypes", lambda T, dtype, reduce: T.tensor(I34, dtype=dtype).scatter_reduce(
    0, SI(T, [[2, 0, 0, 1]]), T.tensor([[1, 2, 3, 4]], dtype=dtype), reduce),
      kind=lambda dtype, reduce: "error" if (dtype == D.bool and reduce == "mean") else "value",
      dtype=ALL, reduce=REDS)
cases("scatter_reduce_aliases", lambda T, reduce: a34(T).scatter_reduce(1, SI(T, RI), T.tensor(RS), reduce),
      reduce=["max", "min"])
cases("scatter_reduce_bad", lambda T, reduce: a34(T).scatter_reduce(1, SI(T, RI), T.tensor(RS), reduce), kind="error",
      reduce=["add", "multiply", "foo", ""])
case("scatter_reduce_nan", lambda T: T.zeros(3).scatter_reduce(0, SI(T, [0, 0, 1]), T.tensor([float("nan"), 1.0, 2.0]),
                                                               "amax"))
case("scatter_reduce_fn", lambda T: T.scatter_reduce(a34(T), 0, SI(T, [[2, 2, 0, 0]]), T.tensor([[1., 2., 3., 4.]]), "sum"))
case("scatter_reduce_inplace", lambda T: (lambda x: (x.scatter_reduce_(0, SI(T, [[2, 2, 0, 0]]), T.tensor(
    [[1., 2., 3., 4.]]), "prod", include_self=False), x)[1])(a34(T)))
case("scatter_reduce_mean_int_floor", lambda T: T.tensor([-7, 5, 0]).scatter_reduce(0, SI(T, [0, 1]), T.tensor([2, 2]),
                                                                                    "mean"))
cases("scatter_reduce_grad", lambda T, x, s, reduce, include_self: x.scatter_reduce(1, SI(T, RI), s, reduce,
                                                                                    include_self=include_self),
      A34, RS, kind="grad", reduce=REDS, include_self=BOOLS)
cases("scatter_reduce_grad_ties", lambda T, x, s, reduce: x.scatter_reduce(0, SI(T, [0, 0, 1]), s, reduce),
      [3.0, 1.0], [3.0, 3.0, 0.5], kind="grad", reduce=["amax", "amin"])
cases("scatter_reduce_grad_zeros", lambda T, x, s, include_self: x.scatter_reduce(0, SI(T, [0, 0, 1, 1, 2]), s, "prod",
                                                                                  include_self=include_self),
      [2.0, 0.0, 3.0], [0.0, 4.0, 0.0, 0.0, 5.0], kind="grad", include_self=BOOLS)

# ---------------------------------------------------------------------------------- index_select
cases("index_select_dims", lambda T, dim: a34(T).index_select(dim, L(T, [2, 0, 2])), dim=[0, 1, -1, -2])
cases("index_select_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).index_select(1, L(T, [3, 1])), dtype=ALL)
case("index_select_fn", lambda T: T.index_select(T.tensor(A234), 2, L(T, [3, 3, 0])))
case("index_select_out", lambda T: (lambda o: (T.index_select(a34(T), 0, L(T, [1]), out=o), o))(T.zeros(1, 4)))
case("index_select_int32", lambda T: a34(T).index_select(0, L(T, [2, 1], T.int32)))
case("index_select_0d_index", lambda T: a34(T).index_select(0, L(T, 1)))
case("index_select_0d_self", lambda T: (T.tensor(2.5).index_select(0, L(T, [0])), T.tensor(2.5).index_select(0, L(T, 0))))
case("index_select_empty", lambda T: a34(T).index_select(1, T.zeros(0, dtype=T.int64)))
case("index_select_noncontig", lambda T: nc_t(T, A34).index_select(1, L(T, [2, 0])))
case("index_select_3d_mid", lambda T: T.tensor(A234).index_select(1, L(T, [2, 0, 1, 2])))
error_case("index_select_oob", lambda T: a34(T).index_select(0, L(T, [3])))
error_case("index_select_negative", lambda T: a34(T).index_select(0, L(T, [-1])))
error_case("index_select_2d_index", lambda T: a34(T).index_select(0, L(T, [[0]])))
error_case("index_select_float_index", lambda T: a34(T).index_select(0, T.tensor([1.0])))
error_case("index_select_bool_index", lambda T: a34(T).index_select(0, T.tensor([True])))
error_case("index_select_dim", lambda T: a34(T).index_select(2, L(T, [0])))
grad_case("index_select_grad", lambda T, x: x.index_select(1, L(T, [3, 0, 3, 3])), A34)
grad_case("index_select_grad_order2", lambda T, x: x.index_select(0, L(T, [2, 0, 2])) * x.index_select(
    0, L(T, [1, 1, 0])), A34, order=2)

# ------------------------------------------------------------------------------------ index_add
ONES24 = [[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 2.5, -3.0]]
cases("index_add_alpha", lambda T, alpha: a34(T).index_add(0, L(T, [2, 0]), T.tensor(ONES24), alpha=alpha),
      alpha=[1, 2, -0.5, 2.5])
case("index_add_dupes", lambda T: a34(T).index_add(0, L(T, [1, 1]), T.tensor(ONES24)))
case("index_add_dim1", lambda T: a34(T).index_add(1, L(T, [3, 0]), T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
case("index_add_fn", lambda T: T.index_add(a34(T), -2, L(T, [0, 2]), T.tensor(ONES24)))
case("index_add_inplace", lambda T: (lambda x: (x.index_add_(0, L(T, [2, 0]), T.tensor(ONES24), alpha=3), x)[1])(a34(T)))
case("index_add_out", lambda T: (lambda o: (T.index_add(a34(T), 0, L(T, [2, 0]), T.tensor(ONES24), out=o), o))(
    T.zeros(3, 4)))
cases("index_add_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).index_add(
    0, L(T, [2, 2]), T.tensor([[1, 0, 1, 1], [1, 1, 0, 1]], dtype=dtype), alpha=2), dtype=ALL)
case("index_add_int_alpha_float", lambda T: T.tensor(I34).index_add(1, L(T, [0]), T.tensor([[1], [1], [1]]), alpha=2.5))
case("index_add_half_rounding", lambda T: T.ones(3, dtype=T.float16).index_add(0, L(T, [0, 0]), T.ones(2, dtype=T.float16),
                                                                              alpha=0.1))
case("index_add_0d", lambda T: T.tensor(5.0).index_add(0, L(T, [0]), T.tensor(2.0)))
case("index_add_int32", lambda T: a34(T).index_add(0, L(T, [1], T.int32), T.tensor([ONES24[0]])))
case("index_add_empty_index", lambda T: a34(T).index_add(0, T.zeros(0, dtype=T.int64), T.zeros(0, 4)))
error_case("index_add_oob", lambda T: a34(T).index_add(0, L(T, [0, 3]), T.tensor(ONES24)))
error_case("index_add_negative", lambda T: a34(T).index_add(0, L(T, [-1]), T.tensor([ONES24[0]])))
error_case("index_add_shape", lambda T: a34(T).index_add(0, L(T, [0, 1]), T.ones(2, 3)))
error_case("index_add_count", lambda T: a34(T).index_add(0, L(T, [0, 1]), T.ones(3, 4)))
error_case("index_add_dtype", lambda T: a34(T).index_add(0, L(T, [0]), T.ones(1, 4, dtype=T.float64)))
error_case("index_add_2d_index", lambda T: a34(T).index_add(0, L(T, [[0]]), T.ones(1, 4)))
error_case("index_add_float_index", lambda T: a34(T).index_add(0, T.tensor([0.0]), T.ones(1, 4)))
grad_case("index_add_grad", lambda T, x, s: x.index_add(0, L(T, [2, 0]), s), A34, ONES24)
grad_case("index_add_grad_alpha", lambda T, x, s: x.index_add(1, L(T, [1, 1]), s, alpha=-2.5), A34,
          [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
error_case("index_add_0d_source_1d_self", lambda T: T.tensor(V5).index_add(0, L(T, [1]), T.tensor(2.0)))
grad_case("index_add_grad_0d", lambda T, x, s: x.index_add(0, L(T, [0]), s, alpha=2), 1.5, 2.0)
grad_case("index_add_grad_order2", lambda T, x, s: x.index_add(0, L(T, [2, 0]), s * s) * x, A34, ONES24, order=2)

# ------------------------------------------------------------------------------------ index_copy
case("index_copy", lambda T: a34(T).index_copy(0, L(T, [2, 0]), T.tensor(ONES24)))
case("index_copy_dim1", lambda T: a34(T).index_copy(1, L(T, [3, 1]), T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
case("index_copy_fn", lambda T: T.index_copy(a34(T), 0, L(T, [1]), T.tensor([ONES24[1]])))
case("index_copy_inplace", lambda T: (lambda x: (x.index_copy_(0, L(T, [1]), T.tensor([ONES24[1]])), x)[1])(a34(T)))
case("index_copy_out", lambda T: (lambda o: (T.index_copy(a34(T), 0, L(T, [1]), T.tensor([ONES24[1]]), out=o), o))(
    T.zeros(3, 4)))
cases("index_copy_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).index_copy(
    1, L(T, [0, 2]), T.tensor([[1, 0], [0, 1], [1, 1]], dtype=dtype)), dtype=ALL)
case("index_copy_0d_source", lambda T: T.zeros(3).index_copy(0, L(T, [1]), T.tensor(2.0)))
case("index_copy_0d_index", lambda T: T.zeros(3, 2).index_copy(0, L(T, 2), T.ones(1, 2)))
error_case("index_copy_oob", lambda T: a34(T).index_copy(0, L(T, [5]), T.ones(1, 4)))
error_case("index_copy_negative", lambda T: a34(T).index_copy(0, L(T, [-1]), T.ones(1, 4)))
error_case("index_copy_slice_shape", lambda T: a34(T).index_copy(0, L(T, [0]), T.ones(1, 3)))
error_case("index_copy_slice_shape_3d", lambda T: T.zeros(2, 3, 4).index_copy(1, L(T, [0]), T.ones(2, 1, 5)))
error_case("index_copy_ndim", lambda T: T.zeros(2, 3, 4).index_copy(1, L(T, [0]), T.ones(2, 5)))
error_case("index_copy_scalar_source", lambda T: T.zeros(2, 3).index_copy(1, L(T, [0, 1]), T.tensor(1.0)))
error_case("index_copy_count", lambda T: a34(T).index_copy(0, L(T, [0, 1]), T.ones(1, 4)))
error_case("index_copy_dtype", lambda T: a34(T).index_copy(0, L(T, [0]), T.ones(1, 4, dtype=T.float64)))
error_case("index_copy_int32_index", lambda T: a34(T).index_copy(0, L(T, [0], T.int32), T.ones(1, 4)))
error_case("index_copy_2d_index", lambda T: a34(T).index_copy(0, L(T, [[0]]), T.ones(1, 4)))
grad_case("index_copy_grad", lambda T, x, s: x.index_copy(0, L(T, [2, 0]), s), A34, ONES24)
grad_case("index_copy_grad_order2", lambda T, x, s: x.index_copy(1, L(T, [3]), s * s) * x, A34,
          [[1.0], [2.0], [3.0]], order=2)

# ------------------------------------------------------------------------------------ index_fill
cases("index_fill", lambda T, dim: a34(T).index_fill(dim, L(T, [0, 2]), -1.0), dim=[0, 1, -1])
case("index_fill_negative_index", lambda T: a34(T).index_fill(1, L(T, [-1, -4]), 9))
case("index_fill_tensor_value", lambda T: a34(T).index_fill(1, L(T, [0, 2]), T.tensor(-1.0)))
case("index_fill_tensor_value_other_dtype", lambda T: a34(T).index_fill(1, L(T, [1]), T.tensor(7)))
case("index_fill_fn", lambda T: T.index_fill(a34(T), 0, L(T, [1]), 0.0))
case("index_fill_inplace", lambda T: (lambda x: (x.index_fill_(0, L(T, [1]), 2.5), x)[1])(a34(T)))
case("index_fill_inplace_tensor", lambda T: (lambda x: (x.index_fill_(1, L(T, [1, 3]), T.tensor(2.5)), x)[1])(a34(T)))
cases("index_fill_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).index_fill(1, L(T, [2]), 1), dtype=ALL)
case("index_fill_0d_index", lambda T: a34(T).index_fill(1, L(T, 0), -1))
case("index_fill_0d_self", lambda T: T.tensor(2.0).index_fill(0, L(T, [0]), 5))
case("index_fill_int_float_value", lambda T: T.tensor(I34).index_fill(1, L(T, [0]), 2.7))
case("index_fill_noncontig", lambda T: nc_t(T, A34).index_fill(0, L(T, [3, 0]), 0.0))
error_case("index_fill_oob", lambda T: a34(T).index_fill(1, L(T, [0, 4]), -1))
error_case("index_fill_oob_negative", lambda T: a34(T).index_fill(1, L(T, [-5]), -1))
error_case("index_fill_int32", lambda T: a34(T).index_fill(1, L(T, [0], T.int32), 5))
error_case("index_fill_2d_index", lambda T: a34(T).index_fill(1, L(T, [[0, 2]]), -1))
error_case("index_fill_1d_value", lambda T: a34(T).index_fill(1, L(T, [0]), T.tensor([-1.0])))
error_case("index_fill_overflow", lambda T: T.tensor(I34, dtype=T.int8).index_fill(1, L(T, [0]), 1000))
grad_case("index_fill_grad", lambda T, x: x.index_fill(1, L(T, [0, 2, 2]), 3.0), A34)
grad_case("index_fill_grad_tensor", lambda T, x, v: x.index_fill(1, L(T, [3, 0, 3]), v), A34, 1.5)
grad_case("index_fill_grad_value_only", lambda T, v: T.tensor(A34).index_fill(0, L(T, [2, 0]), v), -0.5)
case("index_fill_grad_fns", lambda T: [type(f.grad_fn).__name__ for f in (
    T.tensor(A34, requires_grad=True).index_fill(0, L(T, [1]), 1.0),
    T.tensor(A34).index_fill(0, L(T, [1]), T.tensor(1.0, requires_grad=True)))])

# ------------------------------------------------------------------------------------- index_put
case("index_put_fn", lambda T: T.index_put(a34(T), (L(T, [0, 2]), L(T, [1, 3])), T.tensor([10.0, 20.0])))
case("index_put_method", lambda T: a34(T).index_put((L(T, [1]),), T.tensor(5.0)))
case("index_put_inplace", lambda T: (lambda x: (x.index_put_((L(T, [0, 2]),), T.tensor([1.0, 2.0, 3.0, 4.0])), x)[1])(
    a34(T)))
case("index_put_accumulate", lambda T: a34(T).index_put((L(T, [0, 0, 2]), L(T, [1, 1, 1])), T.tensor([1.0, 2.0, 4.0]),
                                                        accumulate=True))
case("index_put_accumulate_inplace", lambda T: (lambda x: (x.index_put_((L(T, [1, 1]),), T.tensor(0.5), True), x)[1])(
    a34(T)))
case("index_put_mask", lambda T: a34(T).index_put((T.tensor(M34),), T.tensor(0.0)))
case("index_put_mask_accumulate", lambda T: a34(T).index_put((T.tensor(M34),), T.tensor(1.0), accumulate=True))
case("index_put_list_indices", lambda T: a34(T).index_put([L(T, [2])], T.tensor(-1.0)))
cases("index_put_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).index_put(
    (L(T, [1, 1]), L(T, [0, 2])), T.tensor([1, 1], dtype=dtype), accumulate=True), dtype=ALL)
error_case("index_put_dtype", lambda T: a34(T).index_put((L(T, [0]),), T.tensor([1, 2, 3, 4])))
error_case("index_put_shape", lambda T: a34(T).index_put((L(T, [0]),), T.tensor([1.0, 2.0])))
error_case("index_put_too_many", lambda T: T.zeros(3).index_put_((L(T, [0]), L(T, [0])), T.tensor([1.0])))
error_case("index_put_mask_too_big", lambda T: T.zeros(3).index_put_((T.zeros(2, 3, dtype=T.bool),), T.tensor(1.0)))
grad_case("index_put_grad", lambda T, x, v: x.index_put((L(T, [2, 0]),), v), A34, [1.0, 2.0, 3.0, 4.0])
grad_case("index_put_grad_accumulate", lambda T, x, v: x.index_put((L(T, [2, 2]), L(T, [0, 0])), v, accumulate=True),
          A34, [1.0, 2.0])
grad_case("index_put_grad_mask", lambda T, x, v: x.index_put((T.tensor(M34),), v), A34, 3.0)
grad_case("index_put_grad_order2", lambda T, x, v: x.index_put((L(T, [2, 0]),), v * v) * x, A34, [1.0, 2.0, 3.0, 4.0],
          order=2)

# ------------------------------------------------------------------------------------ masked_fill
cases("masked_fill_values", lambda T, v: a34(T).masked_fill(T.tensor(M34), v), v=[9, -2.5, True, float("nan"),
                                                                                  float("inf")])
case("masked_fill_row_mask", lambda T: a34(T).masked_fill(T.tensor([True, False, True, False]), 0.0))
case("masked_fill_broadcast_self", lambda T: T.zeros(4).masked_fill(T.tensor(M34), 1.0))
case("masked_fill_tensor_value", lambda T: a34(T).masked_fill(T.tensor(M34), T.tensor(2)))
case("masked_fill_tensor_value_double", lambda T: a34(T).masked_fill(T.tensor(M34), T.tensor(2.5, dtype=T.float64)))
case("masked_fill_fn", lambda T: T.masked_fill(a34(T), T.tensor(M34), -1.0))
case("masked_fill_inplace", lambda T: (lambda x: (x.masked_fill_(T.tensor(M34), 0.5), x)[1])(a34(T)))
case("masked_fill_inplace_tensor", lambda T: (lambda x: (x.masked_fill_(T.tensor(M34), T.tensor(0.5)), x)[1])(a34(T)))
cases("masked_fill_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).masked_fill(T.tensor(M34), 1), dtype=ALL)
case("masked_fill_int_float_value", lambda T: T.tensor(I34).masked_fill(T.tensor(M34), 2.5))
case("masked_fill_bool_self", lambda T: T.tensor(M34).masked_fill(T.tensor(M34), 2.5))
case("masked_fill_0d", lambda T: T.tensor(5.0).masked_fill(T.tensor(True), 1))
case("masked_fill_empty", lambda T: T.zeros(0, 3).masked_fill(T.zeros(0, 3, dtype=T.bool), 1.0))
case("masked_fill_noncontig", lambda T: nc_t(T, A34).masked_fill(nc_t(T, M34), 0.0))
cases("masked_fill_mask_dtype", lambda T, dtype: a34(T).masked_fill(T.tensor(I34, dtype=dtype), 1), kind="error",
      dtype=INTS + FLOATS)
cases("masked_fill_overflow", lambda T, dtype, v: T.zeros(3, dtype=dtype).masked_fill(T.tensor([True, False, True]), v),
      kind="error", dtype=[D.int8, D.uint8, D.float16, D.bfloat16, D.float32, D.int32],
      v=[1e39])
case("masked_fill_half_limits", lambda T: (T.zeros(2, dtype=T.float16).masked_fill(T.tensor([True, False]), 65504.0),
                                           T.zeros(2, dtype=T.bfloat16).masked_fill(T.tensor([True, False]), 1e38)))
error_case("masked_fill_half_overflow", lambda T: T.zeros(2, dtype=T.float16).masked_fill(T.tensor([True, False]), 70000))
error_case("masked_fill_broadcast", lambda T: a34(T).masked_fill(T.tensor([True, False]), 1))
error_case("masked_fill_inplace_broadcast", lambda T: T.zeros(4).masked_fill_(T.tensor(M34), 1))
error_case("masked_fill_value_dims", lambda T: a34(T).masked_fill(T.tensor(M34), T.tensor([1.0])))
grad_case("masked_fill_grad", lambda T, x: x.masked_fill(T.tensor(M34), 2.0), A34)
grad_case("masked_fill_grad_value", lambda T, x, v: x.masked_fill(T.tensor(M34), v), A34, 1.5)
grad_case("masked_fill_grad_broadcast_self", lambda T, x: x.masked_fill(T.tensor(M34), 2.0), [1.0, 2.0, 3.0, 4.0])
grad_case("masked_fill_grad_order2", lambda T, x, v: x.masked_fill(T.tensor(M34), v * v) * x, A34, 1.5, order=2)

# ---------------------------------------------------------------------------------- masked_select
case("masked_select", lambda T: a34(T).masked_select(T.tensor(M34)))
case("masked_select_fn", lambda T: T.masked_select(a34(T), T.tensor([False, True, True, False])))
case("masked_select_out", lambda T: (lambda o: (T.masked_select(a34(T), T.tensor(M34), out=o), o))(T.zeros(2)))
case("masked_select_broadcast_self", lambda T: T.tensor([1.0, 2.0, 3.0, 4.0]).masked_select(T.tensor(M34)))
case("masked_select_0d", lambda T: (T.tensor(5.0).masked_select(T.tensor(True)), a34(T).masked_select(T.tensor(False))))
case("masked_select_noncontig", lambda T: nc_t(T, A34).masked_select(nc_t(T, M34)))
cases("masked_select_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).masked_select(T.tensor(M34)), dtype=ALL)
error_case("masked_select_uint8", lambda T: a34(T).masked_select(T.tensor(M34, dtype=T.uint8)))
error_case("masked_select_broadcast", lambda T: a34(T).masked_select(T.tensor([True, False])))
grad_case("masked_select_grad", lambda T, x: x.masked_select(T.tensor(M34)), A34)
grad_case("masked_select_grad_broadcast", lambda T, x: x.masked_select(T.tensor(M34)), [1.0, 2.0, 3.0, 4.0])
grad_case("masked_select_grad_order2", lambda T, x: x.masked_select(T.tensor(M34)) * x.masked_select(
    T.tensor(M34)), A34, order=2)

# --------------------------------------------------------------------------------- masked_scatter
S12 = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0, 110.0, 120.0]
case("masked_scatter", lambda T: a34(T).masked_scatter(T.tensor(M34), T.tensor(S12)))
case("masked_scatter_2d_source", lambda T: a34(T).masked_scatter(T.tensor(M34), T.tensor(SRC34)))
case("masked_scatter_row_mask", lambda T: a34(T).masked_scatter(T.tensor([True, False, False, True]), T.tensor(S12)))
case("masked_scatter_broadcast_self", lambda T: T.zeros(4).masked_scatter(T.tensor(M34), T.tensor(S12)))
case("masked_scatter_fn", lambda T: T.masked_scatter(a34(T), T.tensor(M34), T.tensor(S12)))
case("masked_scatter_inplace", lambda T: (lambda x: (x.masked_scatter_(T.tensor(M34), T.tensor(S12)), x)[1])(a34(T)))
cases("masked_scatter_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).masked_scatter(
    T.tensor(M34), T.tensor(I34, dtype=dtype)), dtype=ALL)
error_case("masked_scatter_too_few", lambda T: a34(T).masked_scatter(T.tensor(M34), T.tensor([1.0, 2.0])))
error_case("masked_scatter_dtype", lambda T: a34(T).masked_scatter(T.tensor(M34), T.tensor(I34)))
error_case("masked_scatter_uint8", lambda T: a34(T).masked_scatter(T.tensor(M34, dtype=T.uint8), T.tensor(S12)))
case("masked_scatter_inplace_view", lambda T: (lambda x: (x[:, 1:].masked_scatter_(T.tensor(M34)[:, 1:], T.tensor(S12)), x)[1])(a34(T)))
error_case("masked_scatter_inplace_mask_bigger", lambda T: T.zeros(4).masked_scatter_(T.tensor(M34), T.tensor(S12)))
grad_case("masked_scatter_inplace_grad", lambda T, x, s: (x * 1).masked_scatter_(T.tensor(M34), s), A34, S12)
grad_case("masked_scatter_grad", lambda T, x, s: x.masked_scatter(T.tensor(M34), s), A34, S12)
grad_case("masked_scatter_grad_2d", lambda T, x, s: x.masked_scatter(T.tensor(M34), s), A34, SRC34)
grad_case("masked_scatter_grad_order2", lambda T, x, s: x.masked_scatter(T.tensor(M34), s * s) * x, A34, S12, order=2)

# ---------------------------------------------------------------------------------------- take / put
case("take", lambda T: a34(T).take(L(T, [[0, 11], [5, -1]])))
case("take_fn", lambda T: T.take(a34(T), L(T, [3, 3, -12])))
case("take_out", lambda T: (lambda o: (T.take(a34(T), L(T, [1, 2]), out=o), o))(T.zeros(2)))
case("take_noncontig", lambda T: nc_t(T, A34).take(L(T, [1, 4, 11])))
case("take_0d", lambda T: (T.tensor(2.5).take(L(T, 0)), a34(T).take(L(T, 7))))
case("take_empty", lambda T: T.zeros(0).take(T.zeros(0, dtype=T.int64)))
cases("take_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).take(L(T, [5, 0])), dtype=ALL)
error_case("take_oob", lambda T: a34(T).take(L(T, [12])))
error_case("take_oob_negative", lambda T: a34(T).take(L(T, [-13])))
error_case("take_int32", lambda T: a34(T).take(L(T, [1], T.int32)))
error_case("take_from_empty", lambda T: T.zeros(0).take(L(T, [0])))
grad_case("take_grad", lambda T, x: x.take(L(T, [[0, 11], [5, 5]])), A34)
grad_case("take_grad_order2", lambda T, x: x.take(L(T, [1, 2, 1])) * x.take(L(T, [3, 3, 0])), A34, order=2)
case("put", lambda T: a34(T).put(L(T, [0, 5]), T.tensor([-1.0, -2.0])))
case("put_accumulate", lambda T: a34(T).put(L(T, [0, 0, -1]), T.tensor([-1.0, -2.0, 4.0]), accumulate=True))
case("put_fn", lambda T: T.put(a34(T), L(T, [[0], [1]]), T.tensor([-1.0, 4.0])))
case("put_inplace", lambda T: (lambda x: (x.put_(L(T, [11, 0]), T.tensor([7.0, 8.0])), x)[1])(a34(T)))
case("put_inplace_accumulate", lambda T: (lambda x: (x.put_(L(T, [2, 2]), T.tensor([7.0, 8.0]), accumulate=True), x)[1])(
    a34(T)))
case("put_noncontig", lambda T: nc_t(T, A34).put(L(T, [1, 4]), T.tensor([0.0, 0.0])))
case("put_empty", lambda T: a34(T).put(T.zeros(0, dtype=T.int64), T.zeros(0)))
cases("put_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).put(L(T, [5, 0]), T.tensor([1, 0], dtype=dtype)),
      dtype=ALL)
error_case("put_oob", lambda T: a34(T).put_(L(T, [12]), T.tensor([-1.0])))
error_case("put_count", lambda T: a34(T).put_(L(T, [0, 1]), T.tensor([-1.0])))
error_case("put_dtype", lambda T: a34(T).put_(L(T, [0]), L(T, [-1])))
error_case("put_int32", lambda T: a34(T).put_(L(T, [0], T.int32), T.tensor([1.0])))
error_case("put_into_empty", lambda T: T.zeros(0).put_(L(T, [0]), T.tensor([1.0])))
grad_case("put_grad", lambda T, x, s: x.put(L(T, [1, 10]), s), A34, [1.0, 2.0])
grad_case("put_grad_accumulate", lambda T, x, s: x.put(L(T, [[1, 1], [10, 0]]), s, accumulate=True), A34,
          [[1.0, 2.0], [3.0, 4.0]])
case("take_put_grad_fns", lambda T: (type(T.tensor(A34, requires_grad=True).take(L(T, [1])).grad_fn).__name__,
                                     type(T.tensor(A34, requires_grad=True).put(L(T, [1]), T.tensor([1.0])).grad_fn).__name__))

# ------------------------------------------------------------------------------------ take_along_dim
cases("take_along_dim", lambda T, dim: T.take_along_dim(a34(T), L(T, {0: [[2, 0, 1, 1]], 1: [[0], [3], [1]],
                                                                       -1: [[0, 3], [3, 3], [1, 0]]}[dim]), dim),
      dim=[0, 1, -1])
case("take_along_dim_flat", lambda T: T.take_along_dim(a34(T), L(T, [5, 0, 11])))
error_case("take_along_dim_flat_negative", lambda T: T.take_along_dim(a34(T), L(T, [-1])))
case("take_along_dim_method", lambda T: a34(T).take_along_dim(L(T, [[1], [0], [3]]), dim=1))
case("take_along_dim_broadcast", lambda T: T.take_along_dim(a34(T), L(T, [[2]]), 0))
case("take_along_dim_broadcast_self", lambda T: T.take_along_dim(T.tensor([[1.0, 2.0, 3.0]]), L(T, [[0], [2]]), 1))
case("take_along_dim_out", lambda T: (lambda o: (T.take_along_dim(a34(T), L(T, [[2]]), 0, out=o), o))(T.zeros(1, 4)))
error_case("take_along_dim_ndim", lambda T: T.take_along_dim(a34(T), L(T, [0, 1]), 0))
error_case("take_along_dim_dtype", lambda T: T.take_along_dim(a34(T), T.tensor([[0.0]]), 0))
error_case("take_along_dim_broadcast_error", lambda T: T.take_along_dim(a34(T), L(T, [[0, 1]]), 0))
error_case("take_along_dim_flat_oob", lambda T: T.take_along_dim(a34(T), L(T, [12])))
error_case("take_along_dim_flat_noncontig", lambda T: T.take_along_dim(nc_t(T, A34), L(T, [1])))
grad_case("take_along_dim_grad", lambda T, x: T.take_along_dim(x, L(T, [[0, 3], [3, 3], [1, 0]]), 1), A34)
grad_case("take_along_dim_grad_flat", lambda T, x: T.take_along_dim(x, L(T, [5, 5, 0])), A34)

# ------------------------------------------------------------------------------- nonzero / argwhere / where
NZ = [[0.0, 1.5, 0.0, -2.0], [float("nan"), 0.0, -0.0, 3.0], [0.0, 0.0, 0.0, 0.0]]
case("nonzero", lambda T: T.tensor(NZ).nonzero())
case("nonzero_fn", lambda T: T.nonzero(T.tensor(NZ)))
case("nonzero_as_tuple", lambda T: T.tensor(NZ).nonzero(as_tuple=True))
case("nonzero_fn_as_tuple", lambda T: T.nonzero(T.tensor(NZ), as_tuple=True))
case("nonzero_as_tuple_false", lambda T: T.nonzero(T.tensor(NZ), as_tuple=False))
case("nonzero_out", lambda T: (lambda o: (T.nonzero(T.tensor(NZ), out=o), o))(T.zeros(0, dtype=T.int64)))
cases("nonzero_dtypes", lambda T, dtype: T.tensor(I34, dtype=dtype).nonzero(), dtype=ALL)
case("nonzero_0d", lambda T: (T.tensor(5.0).nonzero(), T.tensor(0.0).nonzero()))
case("nonzero_0d_as_tuple", lambda T: (T.tensor(5.0).nonzero(as_tuple=True), T.tensor(0.0).nonzero(as_tuple=True)))
case("nonzero_empty", lambda T: (T.zeros(0, 3).nonzero(), T.zeros(0, 3).nonzero(as_tuple=True)))
case("nonzero_3d", lambda T: T.tensor(A234).nonzero()[5:9])
case("nonzero_noncontig", lambda T: nc_t(T, NZ).nonzero())
case("nonzero_bool", lambda T: T.tensor(M34).nonzero())
case("argwhere", lambda T: (T.argwhere(T.tensor(NZ)), T.tensor(M34).argwhere(), T.argwhere(T.tensor(5.0))))
case("where_cond", lambda T: T.where(T.tensor(NZ)))
case("where_cond_bool", lambda T: T.where(T.tensor(M34)))
case("where_cond_0d", lambda T: T.where(T.tensor(3)))
case("nonzero_no_grad", lambda T: T.tensor(NZ, requires_grad=True).nonzero().requires_grad)

# ---------------------------------------------------------------------------------------- extras
case("index_put_function_inplace", lambda T: (lambda x: (T.index_put_(x, (L(T, [1]),), T.tensor(2.0)) is x, x))(a34(T)))
cases("nonzero_static", lambda T, size: T.nonzero_static(T.tensor(NZ), size=size), size=[0, 3, 5, 9])
case("nonzero_static_fill", lambda T: T.tensor(NZ).nonzero_static(size=6, fill_value=7))
case("nonzero_static_0d", lambda T: T.nonzero_static(T.tensor(3.0), size=2))
case("nonzero_static_out", lambda T: (lambda o: (T.nonzero_static(T.tensor(NZ), size=2, out=o), o))(
    T.zeros(0, dtype=T.int64)))
error_case("nonzero_static_negative", lambda T: T.nonzero_static(T.tensor(NZ), size=-1))

# ------------------------------------------------------------------- edge paths found by fuzzing


def outcome(f):
    """The result, or the builtin exception type and message: for grids where some points raise in torch."""
    try:
        return f()
    except (IndexError, RuntimeError, ValueError, TypeError) as e:
        return ("raised", type(e).__name__, str(e))


cases("index_select_edges", lambda T, s, d, i: outcome(lambda: T.zeros(s).index_select(d, L(T, i))),
      s=[(3, 4), (1, 3, 0), (0, 3), (2, 0), (0,)], d=[0, 1], i=[[0], [3], [-1], [2], []])
case("index_select_edges_ok", lambda T: (T.zeros(2, 0).index_select(0, L(T, [1, 0])), T.zeros(0, 3).index_select(1, L(T, [2])),
                                         T.zeros(3, 4).index_select(0, L(T, []))))
error_case("index_select_scalar_many", lambda T: T.tensor(1.0).index_select(0, L(T, [0, 0])))
error_case("index_select_scalar_none", lambda T: T.tensor(1.0).index_select(0, T.tensor([], dtype=T.bool)))
cases("index_add_edges", lambda T, s, d, i, ss: T.zeros(s).index_add(d, L(T, i), T.ones(ss)), kind="error",
      s=[(), (3,), (0, 1, 0)], d=[0], i=[[3], [0, 1]], ss=[()])
case("index_add_empty_2d", lambda T: (T.zeros(2, 0).index_add(0, L(T, [5]), T.ones(1, 0)),
                                      T.zeros(2, 0).index_add(1, L(T, [5]), T.ones(2, 1))))
error_case("index_add_empty_1d_checked", lambda T: T.zeros(0).index_add(0, L(T, [0]), T.ones(1)))
error_case("index_add_source_dim", lambda T: T.zeros(0, 1, 0).index_add(2, L(T, [0]), T.tensor(1.0)))
error_case("index_copy_empty_restride", lambda T: T.zeros(2, 0).index_copy(1, L(T, [5]), T.ones(2, 1)))
error_case("index_fill_empty_restride", lambda T: T.zeros(1, 1, 0).index_fill(-1, L(T, [0]), 1.5))
case("index_fill_0d_wraps", lambda T: (T.tensor(1.0).index_fill(0, L(T, [-1]), 2.0), T.zeros(1, 1, 0).index_fill(-1, L(T, []), 1.5)))
cases("take_along_dim_wraps", lambda T, v: T.take_along_dim(a34(T), L(T, [[v], [v], [v]]), 1),
      v=[-1, -4, -5, 4, 7, 2 ** 40, -2 ** 40])
error_case("take_along_dim_zero_size", lambda T: T.take_along_dim(T.zeros(2, 0), L(T, [[0], [0]]), 1))
grad_case("take_along_dim_grad_wraps", lambda T, x: T.take_along_dim(x, L(T, [[5], [-1], [4]]), 1), A34)
error_case("scatter_src_fewer_dims", lambda T: T.zeros(3, 3, 1).scatter_add(2, L(T, [[[0]]]), T.ones(2)))
error_case("index_put_0d_mask_shape", lambda T: T.zeros(3).index_put((T.tensor(False),), T.zeros(2, 1)))
case("index_put_0d_mask_empty", lambda T: T.zeros(3, 0, 1).index_put((T.tensor(False),), T.zeros(0, 1)))

# ------------------------------------------------------------------- in-place forms write into self directly
X23 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
error_case("inplace_overlap_index_add", lambda T: (lambda a: a.index_add_(0, L(T, [0]), a[1:]))(T.tensor(X23)))
error_case("inplace_overlap_index_copy", lambda T: (lambda a: a.index_copy_(0, L(T, [0]), a[1:]))(T.tensor(X23)))
error_case("inplace_overlap_scatter", lambda T: (lambda a: a.scatter_(1, L(T, [[0]]), a))(T.tensor(X23)))
error_case("inplace_overlap_scatter_add", lambda T: (lambda a: a.scatter_add_(1, L(T, [[0]]), a[1:]))(T.tensor(X23)))
error_case("inplace_overlap_index_put", lambda T: (lambda a: a.index_put_((L(T, [0]),), a[1]))(T.tensor(X23)))
error_case("inplace_overlap_scatter_index", lambda T: (lambda a: a.scatter_(0, a, 5))(L(T, [0, 1, 2])))
case("inplace_no_overlap_out_of_place", lambda T: (lambda a: (a.index_add(0, L(T, [0]), a[1:]), a.scatter(0, L(T, [[1, 0, 1]]), a)))(
    T.tensor(X23)))
case("inplace_index_add_on_t", lambda T: (lambda a: (a.t().index_add_(0, L(T, [2, 0]), T.ones(2, 2)), a))(T.tensor(X23)))
case("inplace_scatter_on_step", lambda T: (lambda a: (a[:, ::2].scatter_(1, L(T, [[1], [0]]), -1.0), a))(T.tensor(X23)))
case("inplace_index_put_on_t", lambda T: (lambda a: (a.t().index_put_((L(T, [2]),), T.tensor([7.0, 8.0])), a))(T.tensor(X23)))
case("inplace_masked_fill_on_t", lambda T: (lambda a: (a.t().masked_fill_(T.tensor([[True, False], [False, False], [True, True]]), 0.5), a))(
    T.tensor(X23)))
case("inplace_index_fill_on_t", lambda T: (lambda a: (a.t().index_fill_(1, L(T, [1]), 0.0), a))(T.tensor(X23)))
case("inplace_index_copy_on_t", lambda T: (lambda a: (a.t().index_copy_(0, L(T, [1]), T.tensor([[9.0, 8.0]])), a))(T.tensor(X23)))
case("inplace_scatter_reduce_on_t", lambda T: (lambda a: (a.t().scatter_reduce_(0, L(T, [[2, 2]]), T.tensor([[9.0, 8.0]]), "mean"),
                                                          a))(T.tensor(X23)))
case("inplace_expanded_index_fill", lambda T: T.zeros(3, 1).expand(3, 2).index_fill_(0, L(T, [0]), 1))
case("inplace_expanded_masked_fill", lambda T: T.zeros(3, 1).expand(3, 2).masked_fill_(T.tensor([True, False]), 1))
case("inplace_expanded_index_put", lambda T: T.zeros(3, 1).expand(3, 2).index_put_((L(T, [0]),), T.tensor(1.0)))
error_case("inplace_expanded_index_add", lambda T: T.zeros(3, 1).expand(3, 2).index_add_(0, L(T, [0]), T.ones(1, 2)))
error_case("inplace_expanded_scatter", lambda T: T.zeros(3, 1).expand(3, 2).scatter_(0, L(T, [[0]]), 1.0))
case("inplace_versions", lambda T: (lambda a: (a._version, a.index_add_(0, L(T, [0]), T.ones(1, 3))._version,
                                               a.masked_fill_(T.tensor([True, False, True]), 0)._version))(T.tensor(X23)))


def _inplace_on_view_grad(op):
    def f(T, x):
        y = x * 1
        v = y.t()
        op(T, v)
        return y
    return f


grad_case("inplace_view_grad_index_add", _inplace_on_view_grad(lambda T, v: v.index_add_(0, L(T, [2, 0]), T.ones(2, 2))), X23)
grad_case("inplace_view_grad_index_put", _inplace_on_view_grad(lambda T, v: v.index_put_((L(T, [1]),), T.tensor(0.5))), X23)
grad_case("inplace_view_grad_masked_fill", _inplace_on_view_grad(
    lambda T, v: v.masked_fill_(T.tensor([[True, False], [False, True], [False, False]]), 0.0)), X23)
grad_case("inplace_view_grad_scatter", _inplace_on_view_grad(lambda T, v: v.scatter_(1, L(T, [[1], [0], [1]]), 2.0)), X23)
grad_case("inplace_grad_scatter_src", lambda T, x, s: (x * 1).scatter_(1, L(T, [[2], [0]]), s), X23, [[1.5], [-2.5]])
grad_case("inplace_grad_index_copy", lambda T, x, s: (x * 1).index_copy_(1, L(T, [2]), s), X23, [[1.5], [-2.5]])
grad_case("inplace_grad_index_fill_tensor", lambda T, x, v: (x * 1).index_fill_(1, L(T, [2, 0]), v), X23, 1.25)
error_case("inplace_leaf_index_add", lambda T: T.tensor(X23, requires_grad=True).index_add_(0, L(T, [0]), T.ones(1, 3)))
error_case("take_along_dim_0d", lambda T: T.take_along_dim(T.tensor(1.0), L(T, 0), 0))

# -------------------------------------------------------------------------------------- warnings
case("warn_scatter_reduce_src", lambda T: T.zeros(3).scatter(0, L(T, [0]), T.ones(1), reduce="add"), warns=True)
case("no_warn_scatter_reduce_value", lambda T: T.zeros(3).scatter(0, L(T, [0]), 1.0, reduce="add"), warns=True)
case("warn_scatter_reduce_src_inplace", lambda T: T.zeros(3).scatter_(0, L(T, [0]), T.ones(1), reduce="multiply"),
     warns=True)
case("warn_expanded_index_put", lambda T: T.zeros(3, 1).expand(3, 2).index_put_((L(T, [0]),), T.tensor(1.0)), warns=True)
case("warn_expanded_masked_fill", lambda T: T.zeros(3, 1).expand(3, 2).masked_fill_(T.tensor([True, False]), 1.0),
     warns=True)
case("warn_expanded_index_fill", lambda T: T.zeros(3, 1).expand(3, 2).index_fill_(0, L(T, [0]), 1.0), warns=True)
case("no_warn_expanded_out_of_place", lambda T: T.zeros(3, 1).expand(3, 2).index_put((L(T, [0]),), T.tensor(1.0)),
     warns=True)
case("warn_uint8_index_put", lambda T: T.zeros(3).index_put((T.tensor([1, 0, 1], dtype=T.uint8),), T.tensor([1.0, 2.0])),
     warns=True)
cases("scatter_reduce_grad_order2", lambda T, x, s, reduce, include_self: x.scatter_reduce(
    1, SI(T, RI), s * s, reduce, include_self=include_self) * x, A34, RS, kind="grad", order=2, reduce=REDS,
      include_self=BOOLS)
case("scatter_reduce_amax_grad_fn", lambda T: type(T.tensor(A34, requires_grad=True).scatter_reduce(
    1, SI(T, RI), T.tensor(RS), "amax").grad_fn).__name__)
