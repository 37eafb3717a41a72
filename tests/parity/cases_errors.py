"""The common learner errors (pytorch-semantics README section 9), each triggered with fixed data.

Expected type and text always come from torch at run time (live or pinned), never from this file: the
table's 1.13 wording differs from 2.13 in places (#6, #6b, #10, #14 ...), and the harness does not care
-- whatever torch 2.13 says is what wick must say.  Numbers refer to the table's rows.
"""
from .harness import *  # noqa: F401,F403

A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]          # 2x3
B45 = [[0.5, 1.0, -1.5, 2.0, 0.25], [1.25, -0.75, 3.0, 0.0, 1.0],
       [-2.0, 0.5, 1.5, -1.0, 2.5], [0.75, 2.25, -0.5, 1.75, -3.0]]   # 4x5
V3 = [1.5, -2.0, 0.25]
V4 = [0.5, 1.0, -1.5, 2.0]


def t(T, data, **kw):
    return T.tensor(data, **kw)


# 1: matmul shapes
error_case("e01_matmul_2d_shapes", lambda T: t(T, A23) @ t(T, B45))
error_case("e01_mm_shapes", lambda T: T.mm(t(T, A23), t(T, B45)))
error_case("e01_linear_in_features", lambda T: T.nn.Linear(3, 2)(t(T, B45)))
error_case("e01b_matmul_1d_1d", lambda T: t(T, V3) @ t(T, V4))
error_case("e01c_matmul_2d_1d", lambda T: t(T, A23) @ t(T, V4))
error_case("e01d_matmul_batched",
           lambda T: T.tensor([A23, A23]) @ T.tensor([B45, B45]))
# 2: broadcasting / expand
error_case("e02_add_broadcast", lambda T: t(T, V3) + t(T, V4))
error_case("e02_mul_broadcast_2d", lambda T: t(T, A23) * t(T, [[1., 2.], [3., 4.], [5., 6.]]))
error_case("e02b_expand", lambda T: t(T, V3).expand(4, 5))
# 3: backward without a scalar / without a graph
error_case("e03_backward_non_scalar", lambda T: (t(T, V3, requires_grad=True) * 2).backward())
error_case("e03b_backward_no_grad", lambda T: t(T, V3).sum().backward())


# 4: in-place on a leaf that requires grad
def _iadd(T):
    w = t(T, V3, requires_grad=True)
    w += 1
    return w


def _setitem(T):
    w = t(T, V3, requires_grad=True)
    w[0] = 1.
    return w


error_case("e04_leaf_iadd", _iadd)
error_case("e04_leaf_add_", lambda T: t(T, V3, requires_grad=True).add_(1))
error_case("e04b_leaf_setitem", _setitem)
error_case("e04b_leaf_view_mul_", lambda T: t(T, V3, requires_grad=True)[0].mul_(2))


# 5: saved tensor modified in place
def _sigmoid_modified(T):
    a = t(T, V3, requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    b.sum().backward()


def _input_modified(T):
    w = t(T, V3, requires_grad=True)
    x = t(T, [4., 5., 6.])
    y = w * x
    x.add_(1)
    y.sum().backward()


error_case("e05_saved_output_modified", _sigmoid_modified)
error_case("e05b_saved_input_modified", _input_modified)
# 6: dtype mismatches
error_case("e06_matmul_float_double", lambda T: t(T, [[1., 2.], [3., 4.]]) @ t(T, [[1., 2.], [3., 4.]], dtype=T.float64))
error_case("e06_mm_float_double", lambda T: T.mm(t(T, [[1., 2.], [3., 4.]]), t(T, [[1., 2.], [3., 4.]], dtype=T.float64)))
error_case("e06_matmul_float_long", lambda T: t(T, [[1., 2.], [3., 4.]]) @ t(T, [[1, 2], [3, 4]]))
error_case("e06b_linear_double", lambda T: T.nn.Linear(2, 2)(t(T, [[1., 2.]], dtype=T.float64)))
error_case("e06b_linear_long", lambda T: T.nn.Linear(2, 2)(t(T, [[1, 2]])))
error_case("e06c_conv2d_double", lambda T: T.nn.Conv2d(1, 1, 1)(t(T, [[[[1., 2.], [3., 4.]]]], dtype=T.float64)))
# 6d raised "Found dtype Long but expected Float" in 1.13; torch 2.13 promotes and backpropagates.
grad_case("e06d_mse_long_target_backward_ok_in_2_13",
          lambda T, x: T.nn.functional.mse_loss(x, t(T, [1, 2, 3])), V3)
# 7: indices
error_case("e07_index_out_of_range", lambda T: t(T, V3)[5])
error_case("e07_index_out_of_range_dim1", lambda T: t(T, A23)[0, 7])
error_case("e07_index_tensor_out_of_range", lambda T: t(T, V3)[t(T, [5])])
error_case("e07b_too_many_indices", lambda T: t(T, V3)[0, 0])
error_case("e07c_embedding_index", lambda T: T.nn.Embedding(3, 2)(t(T, [5])))
error_case("e07d_cross_entropy_target", lambda T: T.nn.functional.cross_entropy(t(T, A23), t(T, [0, 3])))
error_case("e07e_sum_dim", lambda T: t(T, A23).sum(dim=2))
error_case("e07e_unsqueeze_dim", lambda T: t(T, V3).unsqueeze(3))
# 8: view / reshape
error_case("e08_view_non_contiguous", lambda T: t(T, A23).t().view(6))
error_case("e08b_view_bad_shape", lambda T: t(T, A23).view(4))
error_case("e08b_reshape_bad_shape", lambda T: t(T, A23).reshape(4, 2))


# 9: backward twice
def _twice(T):
    x = t(T, V3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


error_case("e09_backward_twice", _twice)
# 10, 11, 12
error_case("e10_item_multi_element", lambda T: t(T, [1.5, 2.5]).item())
error_case("e11_numpy_requires_grad", lambda T: t(T, [1.5, 2.5], requires_grad=True).numpy())
error_case("e12_int_add_float_inplace", lambda T: t(T, [1, 2]).add_(0.5))
# 13, 14: losses
error_case("e13_cross_entropy_batch", lambda T: T.nn.functional.cross_entropy(t(T, B45)[:, :3], t(T, [0, 1, 2])))
error_case("e14_cross_entropy_float_target", lambda T: T.nn.functional.cross_entropy(t(T, A23), t(T, [0., 1.])))
error_case("e14_nll_int32_target", lambda T: T.nn.functional.nll_loss(t(T, A23), t(T, [0, 1], dtype=T.int32)))
# 15, 16: cat / stack
error_case("e15_cat_sizes", lambda T: T.cat([t(T, A23), t(T, B45)[:2, :4]]))
error_case("e16_stack_sizes", lambda T: T.stack([t(T, [1., 2.]), t(T, V3)]))
# 17, 18: conv input
error_case("e17_conv2d_channels", lambda T: T.nn.Conv2d(3, 4, 3)(T.ones(1, 1, 8, 8)))
error_case("e18_conv2d_2d_input", lambda T: T.nn.Conv2d(3, 4, 3)(T.ones(8, 8)))
# 19-21
error_case("e19_bool_multi_element", lambda T: bool(t(T, V3)))
error_case("e20_int_requires_grad", lambda T: t(T, [1, 2], requires_grad=True))
error_case("e21_ragged_list", lambda T: t(T, [[1, 2], [3]]))
# 22-24
error_case("e22_batchnorm_one_value", lambda T: T.nn.BatchNorm1d(3)(t(T, [V3])))
error_case("e23_sgd_empty", lambda T: T.optim.SGD([], lr=0.1))
error_case("e23_sgd_non_leaf", lambda T: T.optim.SGD([t(T, V3, requires_grad=True) * 2], lr=0.1))
error_case("e24_requires_grad_non_leaf", lambda T: (t(T, V3, requires_grad=True) * 2).requires_grad_(False))
# 25-27
error_case("e25_load_state_dict_shape",
           lambda T: T.nn.Linear(3, 2).load_state_dict({"weight": T.zeros(2, 4), "bias": T.zeros(2)}))
error_case("e26_matmul_0d", lambda T: t(T, 2.) @ t(T, 3.))
error_case("e27_randn_negative", lambda T: T.randn(-1))
error_case("e27_zeros_negative", lambda T: T.zeros(-1))

# Warnings only, or nothing (section 9, second list): the value is compared and so is the warning.
case("w01_mse_broadcast_warns",
     lambda T: T.nn.functional.mse_loss(t(T, [[1.], [2.], [3.5]]), t(T, V4)), warns=True)
case("w02_softmax_implicit_dim", lambda T: T.nn.functional.softmax(t(T, A23)), warns=True)
case("w03_mse_long_target_forward", lambda T: T.nn.functional.mse_loss(t(T, V3), t(T, [1, 2, 3])), warns=True)


def _no_grad_leaf_inplace(T):
    w = t(T, V3, requires_grad=True)
    with T.no_grad():
        w.add_(1)
    return w


case("w04_no_grad_leaf_inplace_allowed", _no_grad_leaf_inplace, warns=True)
case("w05_nonleaf_grad_access_warns", lambda T: ((t(T, V3, requires_grad=True) * 2).grad,), warns=True)

# Messages that carry C++ source locations: normalised on both sides ("[enforce fail at <src>]"), and
# matched by regex where the rest of the text (a byte count) is allocator detail.
error_case("alloc_too_large", lambda T: T.empty(2 ** 62, dtype=T.uint8), match=r"can't allocate memory")
