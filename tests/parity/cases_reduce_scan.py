"""Scans: cumsum, cumprod, cummax, cummin, logcumsumexp -- dims, dtypes, dtype=, in-place, out=, NaN/inf, ties,
zeros in cumprod's gradient, second derivatives."""
from .harness import *  # noqa: F401,F403

A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
I23 = [[4, -7, 2], [9, 0, -3]]
TIES = [[2.0, 5.0, 5.0, -1.0, 5.0], [3.0, 3.0, 1.0, 3.0, 0.5]]
NANS = [[1.0, float("nan"), 3.0, 0.5], [float("-inf"), 2.0, float("inf"), float("nan")]]
ZEROS = [[1.5, 0.0, -2.0, 3.0], [0.0, 2.0, 0.0, 0.5], [2.0, 0.5, 1.5, 0.0]]

# ---- cumsum / cumprod
cases("cumsum_dims", lambda T, dim: T.tensor(A234).cumsum(dim), dim=dims(3))
cases("cumprod_dims", lambda T, dim: T.tensor(A234).cumprod(dim), dim=dims(3))
cases("cumsum_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).cumsum(0), dtype=ALL)
cases("cumprod_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).cumprod(1), dtype=ALL)
cases("cumsum_dtype_arg", lambda T, dtype: T.tensor(I23).cumsum(1, dtype=dtype), dtype=[D.float32, D.float64, D.int32, D.int16])
cases("cumprod_dtype_arg", lambda T, dtype: T.tensor(A23).cumprod(0, dtype=dtype), dtype=[D.float64, D.float16])
case("cumsum_function_kw", lambda T: T.cumsum(T.tensor(A23), dim=1))
case("cumprod_function", lambda T: T.cumprod(T.tensor(A23), 0))
case("cumsum_out", lambda T: T.cumsum(T.tensor(A23), 1, out=T.zeros(2, 3)))
case("cumprod_out_resize", lambda T: T.cumprod(T.tensor(A23), 1, out=T.zeros(0)))
case("cumsum_inplace", lambda T: T.tensor(A23).cumsum_(1))
case("cumprod_inplace", lambda T: T.tensor(A23).cumprod_(0))
case("cumsum_inplace_int", lambda T: T.tensor(I23, dtype=T.int32).cumsum_(1))
case("cumsum_0d", lambda T: T.tensor(2.5).cumsum(0))
case("cumprod_0d_neg", lambda T: T.tensor(2.5).cumprod(-1))
case("cumsum_empty", lambda T: T.zeros(0, 3).cumsum(0))
case("cumsum_empty_other", lambda T: T.zeros(2, 0).cumsum(0))
case("cumsum_noncontig", lambda T: nc_t(T, A23).cumsum(1))
case("cumsum_step", lambda T: nc_step(T, A234).cumsum(-1))
case("cumprod_expanded", lambda T: nc_expand(T, [[1.5], [-2.0]], (2, 4)).cumprod(1))
case("cumsum_nan_inf", lambda T: T.tensor(NANS).cumsum(1))
case("cumprod_zeros", lambda T: T.tensor(ZEROS).cumprod(1))
case("cumsum_bool", lambda T: T.tensor([[True, False, True], [True, True, False]]).cumsum(1))
case("cumsum_big_f32", lambda T: T.full((100000,), 0.1).cumsum(0)[-1])
case("cumsum_half", lambda T: T.tensor(A23, dtype=T.float16).cumsum(1))
case("cumprod_int_wrap", lambda T: T.tensor([2 ** 40, 2 ** 40, 3]).cumprod(0))
error_case("cumsum_dim_oob", lambda T: T.tensor(A23).cumsum(2))
error_case("cumsum_no_dim", lambda T: T.tensor(A23).cumsum())
error_case("cumprod_0d_oob", lambda T: T.tensor(2.5).cumprod(1))
error_case("cumsum_inplace_float_into_int", lambda T: T.tensor(I23).cumsum_(0, dtype=T.float32),
           skip="wick: cumsum_(dtype=) does not yet refuse a dtype that differs from self (torch: Bad in-place call)")
cases("cumsum_grad_dims", lambda T, x, dim: x.cumsum(dim), A234, kind="grad", dim=dims(3))
cases("cumprod_grad_dims", lambda T, x, dim: x.cumprod(dim), A234, kind="grad", dim=dims(3))
cases("cumprod_grad_zeros", lambda T, x, dim: x.cumprod(dim), ZEROS, kind="grad", dim=dims(2))
grad_case("cumprod_grad_zero_first", lambda T, x: x.cumprod(0), [0.0, 2.0, -1.5, 3.0])
grad_case("cumprod_grad_zero_last", lambda T, x: x.cumprod(0), [1.5, 2.0, -1.5, 0.0])
grad_case("cumprod_grad_two_zeros", lambda T, x: x.cumprod(0), [1.5, 0.0, -1.5, 0.0, 2.0])
grad_case("cumprod_grad_0d", lambda T, x: x.cumprod(0), 2.5)
grad_case("cumprod_grad_len1", lambda T, x: x.cumprod(1), [[2.5], [-1.5]])
grad_case("cumsum_grad_dtype", lambda T, x: x.cumsum(1, dtype=T.float64), A23)
grad_case("cumsum_grad_transposed", lambda T, x: x.cumsum(1), inp(A23, view=vT))
grad_case("cumsum_grad2", lambda T, x: (x * x).cumsum(1), A23, order=2)
grad_case("cumprod_grad2", lambda T, x: x.cumprod(1), A23, order=2)
grad_case("cumsum_inplace_grad", lambda T, x: (x * 1.5).cumsum_(1), A23)

# ---- cummax / cummin
cases("cummax_dims", lambda T, dim: T.tensor(A234).cummax(dim), dim=dims(3))
cases("cummin_dims", lambda T, dim: T.tensor(A234).cummin(dim), dim=dims(3))
cases("cummax_ties", lambda T, dim: T.tensor(TIES).cummax(dim), dim=dims(2))
cases("cummin_ties", lambda T, dim: T.tensor(TIES).cummin(dim), dim=dims(2))
cases("cummax_nan", lambda T, dim: T.tensor(NANS).cummax(dim), dim=dims(2))
cases("cummin_nan", lambda T, dim: T.tensor(NANS).cummin(dim), dim=dims(2))
cases("cummax_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).cummax(1), dtype=ALL)
cases("cummin_dtypes", lambda T, dtype: T.tensor(I23, dtype=dtype).cummin(0), dtype=ALL)
case("cummax_function", lambda T: T.cummax(T.tensor(A23), dim=1))
case("cummax_fields", lambda T: T.tensor(A23).cummin(1).indices)
case("cummax_0d", lambda T: T.tensor(2.5).cummax(0))
case("cummax_empty", lambda T: T.zeros(0, 3).cummax(0))
case("cummax_noncontig", lambda T: nc_t(T, A23).cummax(0))
error_case("cummax_no_dim", lambda T: T.tensor(A23).cummax())
error_case("cummin_dim_oob", lambda T: T.tensor(A23).cummin(-3))
print_case("print_cummax", lambda T: T.tensor(A23).cummax(1))
cases("cummax_grad", lambda T, x, dim: x.cummax(dim), TIES, kind="grad", dim=dims(2))
cases("cummin_grad", lambda T, x, dim: x.cummin(dim), TIES, kind="grad", dim=dims(2))
grad_case("cummax_grad_nan", lambda T, x: x.cummax(1), NANS)
grad_case("cummax_grad2", lambda T, x: (x * x).cummax(0).values, A23, order=2)

# ---- logcumsumexp
cases("logcumsumexp_dims", lambda T, dim: T.tensor(A234).logcumsumexp(dim), dim=dims(3))
cases("logcumsumexp_dtypes", lambda T, dtype: T.tensor(A23, dtype=dtype).logcumsumexp(1), dtype=FLOATS)
cases("logcumsumexp_int", lambda T, dtype: T.tensor(I23, dtype=dtype).logcumsumexp(1), kind="error", dtype=INTS + [D.bool])
case("logcumsumexp_inf", lambda T: T.tensor([[-float("inf"), -float("inf"), 1.0, float("inf"), 2.0]]).logcumsumexp(1))
case("logcumsumexp_nan", lambda T: T.tensor(NANS).logcumsumexp(1))
case("logcumsumexp_big", lambda T: T.tensor([1000.0, 1000.5, 999.0, 1001.0]).logcumsumexp(0))
case("logcumsumexp_function", lambda T: T.logcumsumexp(T.tensor(A23), dim=0))
case("logcumsumexp_out", lambda T: T.logcumsumexp(T.tensor(A23), 1, out=T.zeros(2, 3)))
case("logcumsumexp_0d", lambda T: T.tensor(2.5).logcumsumexp(0))
case("logcumsumexp_empty", lambda T: T.zeros(0, 3).logcumsumexp(0))
cases("logcumsumexp_grad", lambda T, x, dim: x.logcumsumexp(dim), A234, kind="grad", dim=dims(3))
grad_case("logcumsumexp_grad_big", lambda T, x: x.logcumsumexp(0), [1000.0, 1000.5, 999.0, 1001.0])
grad_case("logcumsumexp_grad_neg", lambda T, x: x.logcumsumexp(1), [[-30.0, 2.0, -1.0], [5.0, -40.0, 4.5]])

case("cummax_out", lambda T: T.cummax(T.tensor(TIES), 1, out=(T.zeros(2, 5), T.zeros(2, 5, dtype=T.int64))))
case("cummin_out_resize", lambda T: T.cummin(T.tensor(A23), 0, out=(T.zeros(0), T.zeros(0, dtype=T.int64))))
case("cumsum_axis", lambda T: T.tensor(A23).cumsum(axis=1))
