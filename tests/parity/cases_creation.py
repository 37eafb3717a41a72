"""Factories: torch.tensor, zeros, ones, full, arange, linspace, eye, *_like -- values, dtypes, shapes."""
from .harness import *  # noqa: F401,F403

# ---------------------------------------------------------------------------------- torch.tensor
# Dtype inference from Python data (semantics README section 8.3).
case("tensor_int_list", lambda T: T.tensor([3, -1, 4]))
case("tensor_float_list", lambda T: T.tensor([1.5, -2.25, 3.0]))
case("tensor_mixed_int_float", lambda T: T.tensor([1, 2.5]))
case("tensor_bool_list", lambda T: T.tensor([True, False, True]))
case("tensor_bool_int_mixed", lambda T: T.tensor([True, 2]))
case("tensor_scalar_int", lambda T: T.tensor(3))
case("tensor_scalar_float", lambda T: T.tensor(-0.75))
case("tensor_scalar_bool", lambda T: T.tensor(True))
case("tensor_nested_2x3", lambda T: T.tensor([[1., 2., 3.], [4., 5., 6.5]]))
case("tensor_nested_2x1x3", lambda T: T.tensor([[[1, 2, 3]], [[4, 5, 6]]]))
case("tensor_empty", lambda T: T.tensor([]))
case("tensor_empty_nested", lambda T: T.tensor([[], []]))
case("tensor_complex", lambda T: T.tensor([1 + 2j, -0.5j]))
case("tensor_special_floats", lambda T: T.tensor([float("nan"), float("inf"), -float("inf"), -0.0]))
case("tensor_big_int64", lambda T: T.tensor([2 ** 62 + 1, -(2 ** 63)]))
case("tensor_requires_grad", lambda T: T.tensor([1., 2.], requires_grad=True))
case("tensor_default_dtype_f64", lambda T: (T.set_default_dtype(T.float64), T.tensor([1.5, 2.0]))[1])
cases("tensor_dtype", lambda T, dtype: T.tensor([[0, 1, 2], [3, 4, 5]], dtype=dtype), dtype=ALL + COMPLEX)
cases("tensor_float_to_dtype", lambda T, dtype: T.tensor([-1.75, 0.5, 2.25, 100.5], dtype=dtype),
      dtype=FLOATS + [D.int32, D.int64, D.bool])

# ------------------------------------------------------------------------------ zeros/ones/full/empty
cases("zeros", lambda T, dtype: T.zeros(2, 3, dtype=dtype), dtype=ALL)
cases("ones", lambda T, dtype: T.ones((3, 1, 2), dtype=dtype), dtype=ALL)
case("zeros_no_dims", lambda T: T.zeros(()))
case("zeros_zero_size", lambda T: T.zeros(0, 4))
case("ones_size_arg", lambda T: T.ones(T.Size([2, 2])))
case("ones_requires_grad", lambda T: T.ones(2, requires_grad=True))
cases("full_fill_value", lambda T, v: T.full((2, 2), v), v=[7, 2.5, True, -3])
cases("full_dtype", lambda T, dtype: T.full((3,), 5, dtype=dtype), dtype=FLOATS + INTS)
case("empty_shape_dtype", lambda T: (lambda e: (e.shape, e.dtype))(T.empty(4, 2, dtype=T.int16)))

# ---------------------------------------------------------------------------------------- *_like
case("zeros_like_int", lambda T: T.zeros_like(T.tensor([[1, 2], [3, 4]])))
case("ones_like_dtype", lambda T: T.ones_like(T.tensor([1.5, 2.5]), dtype=T.float64))
case("full_like", lambda T: T.full_like(T.tensor([1, 2, 3]), 9))
case("full_like_float_into_int", lambda T: T.full_like(T.tensor([1, 2, 3]), 2.7))

# ------------------------------------------------------------------------------------------ arange
case("arange_int", lambda T: T.arange(5))
case("arange_float_end", lambda T: T.arange(3.))
case("arange_start_end_step", lambda T: T.arange(2, 11, 3))
case("arange_negative_step", lambda T: T.arange(5, -4, -2))
case("arange_float_step", lambda T: T.arange(0, 1, 0.1))
case("arange_float_step_inexact_end", lambda T: T.arange(1.0, 2.3, 0.3))
case("arange_empty", lambda T: T.arange(3, 3))
cases("arange_dtype", lambda T, dtype: T.arange(1, 7, 2, dtype=dtype), dtype=FLOATS + INTS)
error_case("arange_bad_step_sign", lambda T: T.arange(1, 0, 1))
error_case("arange_zero_step", lambda T: T.arange(0, 5, 0))

# ---------------------------------------------------------------------------------------- linspace
case("linspace_basic", lambda T: T.linspace(0, 1, 5))
case("linspace_descending", lambda T: T.linspace(3.5, -1.25, 7))
case("linspace_one_step", lambda T: T.linspace(2, 9, 1))
case("linspace_zero_steps", lambda T: T.linspace(2, 9, 0))
case("linspace_many_steps", lambda T: T.linspace(-10, 10, 101))
cases("linspace_dtype", lambda T, dtype: T.linspace(0, 10, 6, dtype=dtype), dtype=FLOAT + [D.int32, D.int64])
error_case("linspace_negative_steps", lambda T: T.linspace(0, 1, -1))

# --------------------------------------------------------------------------------------------- eye
case("eye_square", lambda T: T.eye(3))
case("eye_rect_wide", lambda T: T.eye(2, 4))
case("eye_rect_tall", lambda T: T.eye(4, 2))
case("eye_zero", lambda T: T.eye(0))
cases("eye_dtype", lambda T, dtype: T.eye(2, 3, dtype=dtype), dtype=[D.float64, D.int64, D.bool])
error_case("eye_negative", lambda T: T.eye(-2))

# --------------------------------------------------------------------------------- factory errors
error_case("tensor_ragged", lambda T: T.tensor([[1, 2], [3]]))
error_case("tensor_int_requires_grad", lambda T: T.tensor([1, 2], requires_grad=True))
error_case("zeros_negative_dim", lambda T: T.zeros(2, -3))
error_case("full_bad_shape_type", lambda T: T.full("ab", 1.0))

# ---------------------------------------------------------------------------------------- printing
print_case("print_float_vector", lambda T: T.tensor([1.5, -2.25, 3.0]))
print_case("print_int_matrix", lambda T: T.tensor([[1, -20], [300, 4]]))
print_case("print_arange_f64", lambda T: T.arange(0, 1, 0.25, dtype=T.float64))
print_case("print_eye_bool", lambda T: T.eye(2, dtype=T.bool))
print_case("print_requires_grad", lambda T: T.ones(2, requires_grad=True))
print_case("print_special_floats", lambda T: T.tensor([float("nan"), float("inf"), -0.0, 1e-8]))
print_case("print_empty", lambda T: T.zeros(0, 3))
print_case("print_size", lambda T: T.zeros(2, 3).shape)
print_case("print_dtype", lambda T: T.linspace(0, 1, 3).dtype)

# ------------------------------------------------------------------------------------------ layout
# Strides are API (DESIGN.md: element strides as in torch); values alone do not show them.
case("stride_contiguous", lambda T: (T.zeros(2, 3, 4).stride(), T.zeros(2, 3, 4).is_contiguous()))
case("stride_transposed_view", lambda T: (nc_t(T, [[1., 2., 3.], [4., 5., 6.]]).stride(),
                                          nc_t(T, [[1., 2., 3.], [4., 5., 6.]]).is_contiguous()))
case("stride_expanded_view", lambda T: nc_expand(T, [[1.5], [2.5]], (2, 3)).stride())
case("stride_elementwise_keeps_layout", lambda T: (nc_t(T, [[1., 2., 3.], [4., 5., 6.]]) + 1).stride())
