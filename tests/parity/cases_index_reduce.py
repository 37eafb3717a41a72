"""Tensor.index_reduce / index_reduce_ / torch.index_reduce (issue 24): reduce='prod'|'mean'|'amax'|'amin',
include_self both ways, every dim, repeated and int32 indices, float/half/int dtypes, non-contiguous inputs,
NaN, ties, zeros (prod's gradient), 0-d and empty; IndexReduceBackward0 with uneven weights (and twice for the
reductions whose backward is differentiable); torch's errors in its order. Also searchsorted(out=)."""
from .harness import *  # noqa: F401,F403

REDS = ["prod", "mean", "amax", "amin"]
X = [[1.5, -2.0, 3.0], [4.0, 0.5, -6.0], [7.25, 8.0, -9.5], [0.75, -1.25, 2.0]]  # (4, 3)
S0 = [[2.0, 3.0, -4.0], [5.0, -0.5, 7.0], [1.25, 6.0, -2.5]]  # (3, 3): along dim 0
S1 = [[2.0, -3.0], [0.5, 4.0], [-1.5, 6.0], [3.0, -2.25]]  # (4, 2): along dim 1
I0 = [3, 0, 3]
I1 = [2, 2]


def ir(T, dim, idx, src, red, inc=True, dtype=None, **kw):
    return T.tensor(X, dtype=dtype).index_reduce(dim, T.tensor(idx), T.tensor(src, dtype=dtype), red,
                                                  include_self=inc, **kw)


cases("index_reduce", lambda T, red, inc: ir(T, 0, I0, S0, red, inc), red=REDS, inc=BOOLS)
cases("index_reduce_dim1", lambda T, red, inc, dim: ir(T, dim, I1, S1, red, inc), red=REDS, inc=BOOLS, dim=[1, -1])
cases("index_reduce_f64", lambda T, red, inc: ir(T, 0, I0, S0, red, inc, dtype=T.float64), red=REDS, inc=BOOLS)
cases("index_reduce_half", lambda T, red, inc, dtype: ir(T, 0, I0, S0, red, inc, dtype=dtype), red=REDS, inc=BOOLS,
      dtype=HALF)
XI = [[1, -2, 3], [4, 5, -6], [7, 8, 9], [0, -1, 2]]
SI = [[2, 3, -4], [5, -7, 7], [1, 6, -2]]
cases("index_reduce_int", lambda T, red, inc, dtype: T.tensor(XI, dtype=dtype).index_reduce(
    0, T.tensor(I0), T.tensor(SI, dtype=dtype).abs() if dtype == T.uint8 else T.tensor(SI, dtype=dtype), red,
    include_self=inc), red=REDS, inc=BOOLS, dtype=[D.int64, D.int32, D.int16, D.int8])
cases("index_reduce_uint8", lambda T, red, inc: T.tensor([[1, 2], [3, 4]], dtype=T.uint8).index_reduce(
    0, T.tensor([1, 1, 0]), T.tensor([[5, 9], [2, 7], [4, 3]], dtype=T.uint8), red, include_self=inc),
    red=REDS, inc=BOOLS)
cases("index_reduce_int32_index", lambda T, red: T.tensor(X).index_reduce(0, T.tensor(I0, dtype=T.int32),
                                                                          T.tensor(S0), red), red=REDS)
cases("index_reduce_nan", lambda T, red, inc: T.tensor(X).index_reduce(
    0, T.tensor([1, 1]), T.tensor([[float("nan"), 1.0, 2.0], [3.0, float("nan"), -1.0]]), red, include_self=inc),
    red=REDS, inc=BOOLS)
cases("index_reduce_3d", lambda T, red, dim: (lambda x: x.index_reduce(
    dim, T.tensor([1, 0, 1]), T.arange(1.0, 1.0 + 3 * x.numel() / x.size(dim)).reshape(
        [3 if i == dim % 3 else x.size(i) for i in range(3)]) * 0.5 - 2.0, red))(
    T.arange(24.0).reshape(2, 3, 4) * 0.25 - 2.5), red=REDS, dim=[0, 1, 2, -1])
cases("index_reduce_nc", lambda T, red: nc_t(T, [[1.5, -2.0, 3.0, 4.0], [4.0, 0.5, -6.0, 1.0], [7.0, 8.0, 9.0, 2.0]])
      .index_reduce(0, T.tensor([2, 2, 0]), nc_t(T, [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0], [8.0, 9.0, 1.5]]), red),
      red=REDS)
cases("index_reduce_nc_result_strides", lambda T, red: (lambda r: (r, r.stride(), r.is_contiguous()))(
    T.tensor(X).t().index_reduce(0, T.tensor([1]), T.tensor([[7.0, 8.0, 9.0, 10.0]]), red)), red=REDS)
cases("index_reduce_expanded_src", lambda T, red: T.tensor(X).index_reduce(
    1, T.tensor([0, 2, 0]), T.tensor([[1.5], [2.0], [-3.0], [0.5]]).expand(4, 3), red), red=REDS)
cases("index_reduce_0d", lambda T, red, inc: T.tensor(5.0).index_reduce(0, T.tensor([0]), T.tensor(2.0), red,
                                                                        include_self=inc), red=REDS, inc=BOOLS)
case("index_reduce_0d_dim_neg", lambda T: T.tensor(5.0).index_reduce(-1, T.tensor([0]), T.tensor(3.0), "amax"))
case("index_reduce_empty_index", lambda T: T.tensor(X).index_reduce(0, T.tensor([], dtype=T.long), T.empty(0, 3),
                                                                    "prod"))
case("index_reduce_empty_self", lambda T: T.empty(0, 3).index_reduce(1, T.tensor([0, 2]), T.empty(0, 2), "mean"))
case("index_reduce_ties", lambda T: T.tensor([[1.0, 5.0]]).index_reduce(0, T.tensor([0, 0]),
                                                                      T.tensor([[1.0, 5.0], [1.0, 2.0]]), "amax"))
case("index_reduce_keywords", lambda T: T.index_reduce(T.tensor(X), dim=0, index=T.tensor(I0), source=T.tensor(S0),
                                                       reduce="mean", include_self=False))
case("index_reduce_function", lambda T: T.index_reduce(T.tensor(X), 0, T.tensor(I0), T.tensor(S0), "amin"))
cases("index_reduce_inplace", lambda T, red, inc: (lambda x: (x.index_reduce_(0, T.tensor(I0), T.tensor(S0), red,
                                                                             include_self=inc), x))(T.tensor(X)),
      red=REDS, inc=BOOLS)
case("index_reduce_inplace_returns_self", lambda T: (lambda x: x.index_reduce_(0, T.tensor(I0), T.tensor(S0), "prod")
                                                     is x)(T.tensor(X)))
case("index_reduce_inplace_version", lambda T: (lambda x: (x.index_reduce_(0, T.tensor(I0), T.tensor(S0), "prod"),
                                                           x._version)[1])(T.tensor(X)))
case("index_reduce_inplace_view", lambda T: (lambda b: (b[1:].index_reduce_(0, T.tensor([0, 0]),
                                                                          T.tensor(S0[:2]), "mean"), b)[1])(T.tensor(X)))
cases("index_reduce_out", lambda T, red: (lambda o: (T.index_reduce(T.tensor(X), 0, T.tensor(I0), T.tensor(S0), red,
                                                                   out=o), o))(T.empty(0)), red=REDS)
case("index_reduce_out_resize", lambda T: (lambda o: (T.index_reduce(T.tensor(X), 0, T.tensor(I0), T.tensor(S0),
                                                                     "prod", out=o), o))(T.empty(2, 2)))
case("index_reduce_grad_fn", lambda T: type(T.tensor(X, requires_grad=True).index_reduce(
    0, T.tensor(I0), T.tensor(S0), "prod").grad_fn).__name__)
case("index_reduce_no_grad", lambda T: (lambda r: (r.requires_grad, r.grad_fn))(T.tensor(X).index_reduce(
    0, T.tensor(I0), T.tensor(S0), "prod")))

# gradients: zeros in self and source for prod (one lone zero, two zeros meeting), ties for amax/amin
XZ = [[1.5, 0.0, 3.0], [4.0, 0.5, -6.0], [7.25, 8.0, -9.5], [0.0, -1.25, 2.0]]
SZ = [[2.0, 0.0, -4.0], [5.0, -0.5, 0.0], [1.25, 6.0, -2.5]]
SZ2 = [[2.0, 0.0, -4.0], [0.0, -0.5, 7.0], [1.25, 0.0, -2.5]]
for _red in REDS:
    for _inc in BOOLS:
        _o = 2 if _red in ("prod", "mean") else 1
        grad_case(f"index_reduce_grad[{_red},inc={_inc}]",
                  lambda T, x, s, red=_red, inc=_inc: x.index_reduce(0, T.tensor(I0), s, red, include_self=inc),
                  inp(X, dtype=D.float64), inp(S0, dtype=D.float64), order=_o)
        grad_case(f"index_reduce_grad_dim1[{_red},inc={_inc}]",
                  lambda T, x, s, red=_red, inc=_inc: x.index_reduce(-1, T.tensor(I1), s, red, include_self=inc),
                  X, S1)
        grad_case(f"index_reduce_grad_zeros[{_red},inc={_inc}]",
                  lambda T, x, s, red=_red, inc=_inc: x.index_reduce(0, T.tensor(I0), s, red, include_self=inc),
                  XZ, SZ)
        grad_case(f"index_reduce_grad_two_zeros[{_red},inc={_inc}]",
                  lambda T, x, s, red=_red, inc=_inc: x.index_reduce(0, T.tensor([1, 1, 2]), s, red,
                                                                     include_self=inc), XZ, SZ2)
    grad_case(f"index_reduce_grad_ties[{_red}]", lambda T, x, s, red=_red: x.index_reduce(0, T.tensor([0, 0]), s, red),
              [[1.0, 5.0]], [[1.0, 5.0], [1.0, 2.0]])
    grad_case(f"index_reduce_grad_self_only[{_red}]",
              lambda T, x, red=_red: x.index_reduce(0, T.tensor(I0), T.tensor(S0), red), X)
    grad_case(f"index_reduce_grad_source_only[{_red}]",
              lambda T, s, red=_red: T.tensor(X).index_reduce(0, T.tensor(I0), s, red), S0)
    grad_case(f"index_reduce_grad_inplace[{_red}]",
              lambda T, x, s, red=_red: (x * 1).index_reduce_(0, T.tensor(I0), s, red), X, S0)
    grad_case(f"index_reduce_grad_nc[{_red}]",
              lambda T, x, s, red=_red: x.index_reduce(0, T.tensor([1, 1]), s, red),
              inp([[1.5, -2.0], [4.0, 0.5], [7.0, 8.0]], view=vT), inp([[2.0, 3.0, 4.0], [5.0, -6.0, 7.0]]))
    grad_case(f"index_reduce_grad_0d[{_red}]",
              lambda T, x, s, red=_red: x.index_reduce(0, T.tensor([0]), s, red), 5.0, 2.0)

# errors, in torch's order
error_case("index_reduce_sum", lambda T: ir(T, 0, I0, S0, "sum"))
error_case("index_reduce_bad_reduce", lambda T: ir(T, 0, I0, S0, "max"))
error_case("index_reduce_bad_reduce_before_dim", lambda T: ir(T, 5, I0, S0, "foo"))
error_case("index_reduce_dim_out_of_range", lambda T: ir(T, 2, I0, S0, "prod"))
error_case("index_reduce_index_2d", lambda T: ir(T, 0, [I0], S0, "prod"))
error_case("index_reduce_index_float", lambda T: T.tensor(X).index_reduce(0, T.tensor([0.0, 1.0, 2.0]), T.tensor(S0),
                                                                          "prod"))
error_case("index_reduce_dtype_mismatch", lambda T: T.tensor(X).index_reduce(0, T.tensor(I0),
                                                                             T.tensor(S0, dtype=T.float64), "mean"))
error_case("index_reduce_dim_beyond_source", lambda T: T.tensor(X).index_reduce(1, T.tensor(1), T.tensor([7.0, 8.0,
                                                                                                           9.0, 1.0]),
                                                                                "prod"))
error_case("index_reduce_count_mismatch", lambda T: ir(T, 0, [0, 1], S0, "prod"))
error_case("index_reduce_shape_mismatch", lambda T: T.tensor(X).index_reduce(0, T.tensor(I0), T.ones(3, 2), "amax"))
error_case("index_reduce_source_0d", lambda T: T.tensor(X).index_reduce(0, T.tensor([1]), T.tensor(7.0), "prod"))
error_case("index_reduce_source_0d_count", lambda T: T.tensor(1.0).index_reduce(0, T.tensor([0, 0]), T.tensor(1.0),
                                                                                "amax"))
error_case("index_reduce_self_0d_source_1d", lambda T: T.tensor(1.0).index_reduce(0, T.tensor([0]), T.tensor([1.0]),
                                                                                  "amax"))
cases("index_reduce_oob", lambda T, inc, i: ir(T, 0, [0, i, 1], S0, "amax", inc), inc=BOOLS, i=[4, -1, -5, 100],
      kind="error")
cases("index_reduce_bool", lambda T, inc, i: T.tensor([True, False]).index_reduce(
    0, T.tensor([i]), T.tensor([True]), "amax", include_self=inc), inc=BOOLS, i=[0, 5], kind="error")
error_case("index_reduce_include_self_int", lambda T: ir(T, 0, I0, S0, "prod", 1))
error_case("index_reduce_include_self_positional", lambda T: T.tensor(X).index_reduce(0, T.tensor(I0), T.tensor(S0),
                                                                                      "prod", True))
error_case("index_reduce_method_out", lambda T: ir(T, 0, I0, S0, "prod", out=T.empty(0)))
error_case("index_reduce_leaf_inplace", lambda T: T.tensor(X, requires_grad=True).index_reduce_(
    0, T.tensor(I0), T.tensor(S0), "prod"))
error_case("index_reduce_inplace_overlap", lambda T: (lambda x: x.index_reduce_(0, T.tensor([0, 1]), x[:2], "prod"))(
    T.tensor(X)))
error_case("index_reduce_inplace_expanded", lambda T: T.tensor([[1.0, 2.0]]).expand(3, 2).index_reduce_(
    0, T.tensor([0]), T.tensor([[1.0, 2.0]]), "prod"))
error_case("index_reduce_inplace_dtype", lambda T: T.tensor(XI).index_reduce_(0, T.tensor(I0), T.tensor(S0), "prod"))
case("index_reduce_no_torch_inplace", lambda T: (hasattr(T, "index_reduce"), hasattr(T, "index_reduce_")))

# ---- searchsorted(out=) (issue 24's long tail)
SQ = [1.0, 3.0, 5.0, 7.0]
V = [[2.0, 7.0], [0.0, 9.0]]
cases("searchsorted_out", lambda T, right: (lambda o: (T.searchsorted(T.tensor(SQ), T.tensor(V), right=right, out=o),
                                                       o))(T.empty(0, dtype=T.long)), right=BOOLS)
case("searchsorted_out_int32", lambda T: (lambda o: (T.searchsorted(T.tensor(SQ), T.tensor(V), out_int32=True, out=o),
                                                     o))(T.empty(0, dtype=T.int32)))
case("searchsorted_out_resize", lambda T: (lambda o: (T.searchsorted(T.tensor(SQ), T.tensor(V), out=o), o))(
    T.empty(5, dtype=T.long)))
case("searchsorted_out_scalar", lambda T: (lambda o: (T.searchsorted(T.tensor(SQ), 4.0, out=o), o))(
    T.empty(0, dtype=T.long)))
case("searchsorted_out_side_sorter", lambda T: (lambda o: (T.searchsorted(
    T.tensor([5.0, 1.0, 7.0, 3.0]), T.tensor(V), side="right", sorter=T.tensor([1, 3, 0, 2]), out=o), o))(
    T.empty(0, dtype=T.long)))
case("searchsorted_out_2d", lambda T: (lambda o: (T.searchsorted(T.tensor([[1.0, 4.0], [2.0, 3.0]]),
                                                                 T.tensor([[3.0, 0.0], [2.5, 9.0]]), out=o), o))(
    T.empty(0, dtype=T.long)))
BAD_OUT = {"int32": (D.int32, False), "float32": (D.float32, False), "int64_flag": (D.int64, True),
           "float32_flag": (D.float32, True)}
cases("searchsorted_out_bad_dtype", lambda T, k: T.searchsorted(T.tensor(SQ), T.tensor(V), out_int32=BAD_OUT[k][1],
                                                                out=T.empty(0, dtype=BAD_OUT[k][0].resolve(T))),
      k=list(BAD_OUT), kind="error")
