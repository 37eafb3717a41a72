"""Reductions and scans: every dim (negative too), keepdim both ways, dtypes, NaN, ties, views, grads."""
from .harness import *  # noqa: F401,F403

# Distinct, uneven values; non-square shapes.
A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
I23 = [[4, -7, 2], [9, 0, -3]]
TIES = [[2.0, 5.0, 5.0, -1.0], [3.0, 3.0, 1.0, 3.0]]
NANS = [[1.0, float("nan"), 3.0], [float("-inf"), 2.0, float("inf")]]
POS = [[0.5, 1.25, 2.0], [1.5, 0.75, 3.0]]

# ------------------------------------------------------------------------------------ sum / mean
cases("sum_dim", lambda T, dim, keepdim: T.tensor(A234).sum(dim, keepdim=keepdim), dim=dims(3), keepdim=BOOLS)
cases("sum_dims_tuple", lambda T, d: T.tensor(A234).sum(d), d=[(0, 2), (-1, 0), (1, -1)])
cases("sum_all_dtype", lambda T, dtype: T.tensor(I23, dtype=dtype).sum(), dtype=ALL)
cases("sum_dtype_arg", lambda T, dtype: T.tensor(I23).sum(1, dtype=dtype), dtype=[D.float64, D.int32])
cases("mean_dim", lambda T, dim, keepdim: T.tensor(A234).mean(dim=dim, keepdim=keepdim), dim=dims(3), keepdim=BOOLS)
# mean refuses integer dtypes: the one dtype it refuses is an error case, the rest are values.
cases("mean_dtype", lambda T, dtype: T.tensor(I23, dtype=dtype).mean(),
      kind=lambda dtype: "value" if dtype in FLOATS else "error", dtype=FLOATS + INTS + [D.bool])
case("sum_empty", lambda T: T.zeros(0, 3).sum(0))
case("mean_empty_is_nan", lambda T: T.zeros(0).mean())
case("sum_0d", lambda T: T.tensor(2.5).sum())
cases("sum_non_contiguous", lambda T, dim: nc_t(T, A23).sum(dim), dim=dims(2))
case("sum_step_view", lambda T: nc_step(T, A234).sum(-1))
case("sum_expanded", lambda T: nc_expand(T, [[1.5], [-2.0]], (2, 5)).sum(0))
case("sum_torch_vs_method", lambda T: (T.sum(T.tensor(A23), 1), T.tensor(A23).sum(dim=1)))
error_case("sum_dim_out_of_range", lambda T: T.tensor(A23).sum(-3))

# ------------------------------------------------------------------------------ prod / cumsum / cumprod
cases("prod_dim", lambda T, dim, keepdim: T.tensor(A23).prod(dim, keepdim=keepdim), dim=dims(2), keepdim=BOOLS)
cases("prod_int_dtype", lambda T, dtype: T.tensor(I23, dtype=dtype).prod(), dtype=INTS)
cases("cumsum", lambda T, dim: T.tensor(A234).cumsum(dim), dim=dims(3))
cases("cumsum_int_dtype", lambda T, dtype: T.tensor(I23, dtype=dtype).cumsum(1), dtype=INTS + [D.bool])
cases("cumprod", lambda T, dim: T.tensor(A23).cumprod(dim), dim=dims(2))
case("cumsum_noncontig", lambda T: nc_t(T, A23).cumsum(0))
case("cumsum_function_form", lambda T: T.cumsum(T.tensor(A23), dim=-1))

# --------------------------------------------------------------------------- max / min / argmax (ties, NaN)
cases("max_dim", lambda T, dim, keepdim: T.tensor(A234).max(dim, keepdim=keepdim), dim=dims(3), keepdim=BOOLS)
cases("min_dim", lambda T, dim: T.tensor(A234).min(dim=dim), dim=dims(3))
cases("max_ties", lambda T, dim: T.tensor(TIES).max(dim), dim=dims(2))
cases("argmax_ties", lambda T, dim: T.tensor(TIES).argmax(dim), dim=dims(2) + [None])
cases("argmin_ties", lambda T, dim: T.tensor(TIES).argmin(dim), dim=dims(2))
cases("max_nan", lambda T, dim: T.tensor(NANS).max(dim), dim=dims(2))
case("max_all_nan", lambda T: T.tensor(NANS).max())
case("amax_multi_dim", lambda T: T.tensor(A234).amax((0, 2)))
case("max_binary", lambda T: T.max(T.tensor(A23), T.tensor([[0., 0., 1.], [4., -1., 0.]])))
cases("max_int", lambda T, dtype: T.tensor(I23, dtype=dtype).max(1), dtype=[D.int8, D.int32, D.int64])
error_case("max_empty_dim", lambda T: T.zeros(0, 3).max(0))

# ------------------------------------------------------------------------------------ var / std / norm
cases("var_correction", lambda T, dim, c: T.tensor(A234).var(dim, correction=c), dim=dims(3), c=[0, 1, 2])
cases("std_unbiased", lambda T, unbiased: T.tensor(A23).std(unbiased=unbiased), unbiased=BOOLS)
# Two spellings of one computation, for every p (TESTING.md rules 1 and 3).
PS = [1, 2, 3.5, 0, float("inf"), float("-inf")]
cases("norm_method", lambda T, p: T.tensor(A23).norm(p), p=PS)
cases("vector_norm", lambda T, p: T.linalg.vector_norm(T.tensor(A23), p), p=PS)
cases("norm_dim", lambda T, p, dim: T.tensor(A23).norm(p, dim=dim), p=[1, 2, float("inf")], dim=dims(2))
case("logsumexp", lambda T: T.tensor(A234).logsumexp(1))

# -------------------------------------------------------------------------------------- gradients
cases("sum_grad", lambda T, x, dim, keepdim: x.sum(dim, keepdim=keepdim), A234, kind="grad",
      dim=dims(3), keepdim=BOOLS)
cases("mean_grad", lambda T, x, dim: x.mean(dim), A234, kind="grad", dim=dims(3))
cases("prod_grad", lambda T, x, dim: x.prod(dim), A23, kind="grad", dim=dims(2))
grad_case("prod_grad_with_zero", lambda T, x: x.prod(1), [[1.5, 0.0, -2.0], [0.0, 0.0, 3.0]])
cases("cumsum_grad", lambda T, x, dim: x.cumsum(dim), A234, kind="grad", dim=dims(3))
cases("cumprod_grad", lambda T, x, dim: x.cumprod(dim), A23, kind="grad", dim=dims(2))
# Ties: where does the gradient go?
cases("max_dim_grad_ties", lambda T, x, dim: x.max(dim), TIES, kind="grad", dim=dims(2))
grad_case("max_all_grad_ties", lambda T, x: x.max(), TIES)
grad_case("amax_grad_ties", lambda T, x: x.amax(1), TIES)
cases("norm_grad", lambda T, x, p: x.norm(p), A23, kind="grad", p=[1, 2, 3.5, float("inf")])
grad_case("norm_grad_at_zero", lambda T, x: x.norm(), [[0.0, 0.0], [0.0, 0.0]])
cases("var_grad", lambda T, x, c: x.var(1, correction=c), A23, kind="grad", c=[0, 1])
grad_case("logsumexp_grad", lambda T, x: x.logsumexp(-1), A234)
# Non-contiguous inputs: the leaf's grad must land in the leaf's layout.
grad_case("sum_grad_transposed", lambda T, x: x.sum(0), inp(A23, view=vT))
grad_case("cumsum_grad_step", lambda T, x: x.cumsum(-1), inp(A234, view=vstep))
grad_case("sum_grad_expanded", lambda T, x: (x * x).sum(1), inp([[1.5], [-2.0]], view=vexpand(2, 4)))
# Second derivatives.
grad_case("prod_grad2", lambda T, x: x.prod(), [1.5, -2.0, 0.5, 3.0], order=2)
grad_case("logsumexp_grad2", lambda T, x: x.logsumexp(0), [[0.5, -1.0], [2.0, 0.25], [1.0, 1.5]], order=2)
grad_case("sum_grad2_linear", lambda T, x: x.sum(0), A23, order=2)

# ---------------------------------------------------------------------------------------- printing
print_case("print_max_namedtuple", lambda T: T.tensor(A23).max(1))
print_case("print_sum_grad_fn", lambda T: T.tensor(A23, requires_grad=True).sum(0))
