"""Matrix products: mm, bmm, mv, dot, vdot, addmm, addmv, baddbmm, addbmm, matmul/@, outer/ger, inner, kron,
tensordot, einsum, trace -- values, dtypes, grad_fn names, gradients (uneven weights), errors with torch's text."""
from .harness import *  # noqa: F401,F403


def M(*shape, k=0):
    """Deterministic uneven data, exact in every float dtype (multiples of 1/4 in [-2.5, 2.5])."""
    n = 1
    for s in shape:
        n *= s
    flat = [((i * 7 + 3 + k * 5) % 11 - 5) / 4 for i in range(n)]

    def build(dims, off):
        if not dims:
            return flat[off]
        inner = 1
        for s in dims[1:]:
            inner *= s
        return [build(dims[1:], off + i * inner) for i in range(dims[0])]
    return build(list(shape), 0)


def I(*shape, k=0):
    """Deterministic small integers in [-4, 5]."""
    n = 1
    for s in shape:
        n *= s
    flat = [(i * 5 + 2 + k * 3) % 10 - 4 for i in range(n)]

    def build(dims, off):
        if not dims:
            return flat[off]
        inner = 1
        for s in dims[1:]:
            inner *= s
        return [build(dims[1:], off + i * inner) for i in range(dims[0])]
    return build(list(shape), 0)


NUM = FLOATS + [D.int8, D.int16, D.int32, D.int64, D.uint8]  # every dtype the products take (bool is refused)
A23, B34, A32 = M(2, 3), M(3, 4, k=1), M(3, 2, k=2)
V3, W3, V4, V2 = M(3, k=3), M(3, k=4), M(4, k=5), M(2, k=6)


def t(T, data, dtype=None):
    return T.tensor(data, dtype=dtype)


def udata(dtype, *shape, k=0):
    """Data for dtype (resolved or not): small integers for integer dtypes (non-negative for uint8), quarters for
    floats."""
    name = str(dtype).rpartition(".")[2]
    if name not in ("int8", "int16", "int32", "int64", "uint8"):
        return M(*shape, k=k)

    def fix(x):
        return [fix(y) for y in x] if isinstance(x, list) else abs(x)
    d = I(*shape, k=k)
    return fix(d) if name == "uint8" else d


# ------------------------------------------------------------------------------------------------- mm
cases("mm_dtype", lambda T, dtype: T.mm(t(T, udata(dtype, 2, 3), dtype), t(T, udata(dtype, 3, 4, k=1), dtype)),
      dtype=NUM)
case("mm_method", lambda T: t(T, A23).mm(t(T, B34)))
case("mm_square", lambda T: T.mm(t(T, M(3, 3)), t(T, M(3, 3, k=2))))
case("mm_vector_shapes", lambda T: T.mm(t(T, M(1, 4)), t(T, M(4, 1, k=1))))
case("mm_transposed_lhs", lambda T: T.mm(t(T, A32).t(), t(T, B34)))
case("mm_transposed_rhs", lambda T: T.mm(t(T, A23), t(T, M(4, 3)).t()))
case("mm_stepped", lambda T: T.mm(t(T, M(2, 6))[:, ::2], t(T, B34)))
case("mm_expanded", lambda T: T.mm(t(T, [[1.5], [-2.]]).expand(2, 3), t(T, B34)))
case("mm_empty_k", lambda T: T.mm(T.zeros(2, 0), T.zeros(0, 3)))
case("mm_empty_m", lambda T: T.mm(T.zeros(0, 3), t(T, B34)))
case("mm_nan_inf", lambda T: T.mm(t(T, [[float("nan"), 1.], [float("inf"), 0.]]), t(T, [[0., 1.], [1., 0.]])))
case("mm_out", lambda T: (lambda o: (T.mm(t(T, A23), t(T, B34), out=o), o)[1])(T.empty(0)))
case("mm_f64", lambda T: T.mm(t(T, A23, T.float64), t(T, B34, T.float64)))
case("mm_int_overflow_wraps", lambda T: T.mm(T.full((2, 3), 100, dtype=T.int8), T.full((3, 2), 3, dtype=T.int8)))
case("mm_grad_fn", lambda T: T.mm(T.tensor(A23, requires_grad=True), t(T, B34)))
case("mm_grad_fn_rhs_only", lambda T: T.mm(t(T, A23), T.tensor(B34, requires_grad=True)))
grad_case("mm_grad", lambda T, a, b: T.mm(a, b), A23, B34)
grad_case("mm_grad_lhs_only", lambda T, a, b: T.mm(a, b), A23, const(B34))
grad_case("mm_grad_rhs_only", lambda T, a, b: T.mm(a, b), const(A23), B34)
grad_case("mm_grad_transposed", lambda T, a, b: T.mm(a, b), inp(A32, view=vT), B34)
grad_case("mm_grad_f64", lambda T, a, b: a.mm(b), inp(A23, dtype=D.float64), inp(B34, dtype=D.float64))
grad_case("mm_grad2", lambda T, a, b: T.mm(a, b) * T.mm(a, b), A23, B34, order=2)
error_case("mm_shapes", lambda T: T.mm(T.ones(2, 3), T.ones(4, 5)))
error_case("mm_shapes_square", lambda T: T.mm(T.ones(2, 3), T.ones(2, 2, dtype=T.float64)))
error_case("mm_self_1d", lambda T: T.mm(T.ones(3), T.ones(3, 2)))
error_case("mm_mat2_1d", lambda T: T.mm(T.ones(2, 2), T.ones(2)))
error_case("mm_self_3d", lambda T: T.mm(T.ones(2, 2, 2), T.ones(2, 2)))
cases("mm_dtype_mismatch", lambda T, dtype: T.mm(T.ones(2, 2), T.ones(2, 2, dtype=dtype)),
      dtype=[D.float16, D.bfloat16, D.float64, D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool], kind="error")
error_case("mm_long_float", lambda T: T.mm(T.ones(2, 2, dtype=T.int64), T.ones(2, 2)))
error_case("mm_bool", lambda T: T.mm(T.ones(2, 2, dtype=T.bool), T.ones(2, 2, dtype=T.bool)))
error_case("mm_out_requires_grad", lambda T: T.mm(T.ones(2, 3, requires_grad=True), T.ones(3, 2), out=T.empty(2, 2)))

# ------------------------------------------------------------------------------------------------ bmm
B234, B245 = M(2, 3, 4), M(2, 4, 5, k=1)
cases("bmm_dtype", lambda T, dtype: T.bmm(t(T, udata(dtype, 2, 2, 3), dtype), t(T, udata(dtype, 2, 3, 2, k=1), dtype)),
      dtype=NUM)
case("bmm", lambda T: T.bmm(t(T, B234), t(T, B245)))
case("bmm_method", lambda T: t(T, B234).bmm(t(T, B245)))
case("bmm_transposed", lambda T: T.bmm(t(T, M(2, 4, 3)).transpose(1, 2), t(T, B245)))
case("bmm_expanded_batch", lambda T: T.bmm(t(T, [M(3, 4)]).expand(2, 3, 4), t(T, B245)))
case("bmm_empty_batch", lambda T: T.bmm(T.zeros(0, 2, 3), T.zeros(0, 3, 4)))
case("bmm_out", lambda T: T.bmm(t(T, B234), t(T, B245), out=T.empty(0)))
case("bmm_grad_fn", lambda T: T.bmm(T.tensor(B234, requires_grad=True), t(T, B245)))
grad_case("bmm_grad", lambda T, a, b: T.bmm(a, b), B234, B245)
grad_case("bmm_grad_rhs", lambda T, a, b: T.bmm(a, b), const(B234), B245)
grad_case("bmm_grad2", lambda T, a, b: T.bmm(a, b) * T.bmm(a, b), M(2, 2, 3), M(2, 3, 2, k=1), order=2)
error_case("bmm_sizes", lambda T: T.bmm(T.ones(2, 2, 3), T.ones(2, 4, 5)))
error_case("bmm_batch", lambda T: T.bmm(T.ones(2, 2, 3), T.ones(3, 3, 5)))
error_case("bmm_batch1_2d", lambda T: T.bmm(T.ones(2, 3), T.ones(3, 5)))
error_case("bmm_batch2_2d", lambda T: T.bmm(T.ones(2, 2, 3), T.ones(3, 5)))
error_case("bmm_dtype", lambda T: T.bmm(T.ones(2, 2, 3), T.ones(2, 3, 2, dtype=T.float64)))
error_case("bmm_sizes_before_dtype", lambda T: T.bmm(T.ones(2, 2, 3), T.ones(3, 3, 2, dtype=T.float64)))
error_case("bmm_bool", lambda T: T.bmm(T.ones(2, 2, 3, dtype=T.bool), T.ones(2, 3, 2, dtype=T.bool)))

# ------------------------------------------------------------------------------------------ mv / dot
cases("mv_dtype", lambda T, dtype: T.mv(t(T, udata(dtype, 2, 3), dtype), t(T, udata(dtype, 3, k=1), dtype)),
      dtype=NUM)
case("mv", lambda T: T.mv(t(T, A23), t(T, V3)))
case("mv_method", lambda T: t(T, A23).mv(t(T, V3)))
case("mv_transposed", lambda T: T.mv(t(T, A32).t(), t(T, V3)))
case("mv_stepped_vec", lambda T: T.mv(t(T, A23), t(T, M(6))[::2]))
case("mv_empty", lambda T: T.mv(T.zeros(2, 0), T.zeros(0)))
case("mv_out", lambda T: T.mv(t(T, A23), t(T, V3), out=T.empty(0)))
case("mv_grad_fn", lambda T: T.mv(T.tensor(A23, requires_grad=True), t(T, V3)))
grad_case("mv_grad", lambda T, a, v: T.mv(a, v), A23, V3)
grad_case("mv_grad2", lambda T, a, v: T.mv(a, v) * T.mv(a, v), A23, V3, order=2)
error_case("mv_size", lambda T: T.mv(T.ones(2, 3), T.ones(4)))
error_case("mv_vec_2d", lambda T: T.mv(T.ones(2, 3), T.ones(3, 1)))
error_case("mv_mat_1d", lambda T: T.mv(T.ones(3), T.ones(3)))
error_case("mv_mat_3d", lambda T: T.mv(T.ones(2, 3, 1), T.ones(4)))
error_case("mv_dtype", lambda T: T.mv(T.ones(2, 3), T.ones(3, dtype=T.float64)))
error_case("mv_dtype_mat", lambda T: T.mv(T.ones(2, 3, dtype=T.float64), T.ones(3)))
error_case("mv_bool", lambda T: T.mv(T.ones(2, 3, dtype=T.bool), T.ones(3, dtype=T.bool)))

cases("dot_dtype", lambda T, dtype: T.dot(t(T, udata(dtype, 4), dtype), t(T, udata(dtype, 4, k=2), dtype)), dtype=NUM)
case("dot", lambda T: T.dot(t(T, V3), t(T, W3)))
case("dot_method", lambda T: t(T, V3).dot(t(T, W3)))
case("dot_stepped", lambda T: T.dot(t(T, M(6))[::2], t(T, W3)))
case("dot_empty", lambda T: T.dot(T.zeros(0), T.zeros(0)))
case("dot_out", lambda T: T.dot(t(T, V3), t(T, W3), out=T.empty(0)))
case("dot_int", lambda T: T.dot(T.tensor([1, 2, 3]), T.tensor([4, -5, 6])))
case("dot_grad_fn", lambda T: T.dot(T.tensor(V3, requires_grad=True), t(T, W3)))
grad_case("dot_grad", lambda T, a, b: T.dot(a, b), V3, W3)
grad_case("dot_grad_self", lambda T, a: T.dot(a, a), V3)
grad_case("dot_grad2", lambda T, a, b: T.dot(a, b) * T.dot(a, b), V3, W3, order=2)
error_case("dot_sizes", lambda T: T.dot(T.ones(3), T.ones(4)))
error_case("dot_dtype", lambda T: T.dot(T.ones(3), T.ones(3, dtype=T.float64)))
error_case("dot_dtype_before_size", lambda T: T.dot(T.ones(3), T.ones(4, dtype=T.float64)))
error_case("dot_2d", lambda T: T.dot(T.ones(3, 1), T.ones(3)))
error_case("dot_2d_rhs", lambda T: T.dot(T.ones(3), T.ones(3, 1)))
error_case("dot_0d", lambda T: T.dot(T.tensor(1.), T.tensor(2.)))
error_case("dot_bool", lambda T: T.dot(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)))
case("vdot", lambda T: T.vdot(t(T, V3), t(T, W3)))
case("vdot_method", lambda T: t(T, V3).vdot(t(T, W3)))
case("vdot_int", lambda T: T.vdot(T.tensor([1, 2, 3]), T.tensor([4, -5, 6])))
case("vdot_grad_fn", lambda T: T.vdot(T.tensor(V3, requires_grad=True), t(T, W3)))
grad_case("vdot_grad", lambda T, a, b: T.vdot(a, b), V3, W3)
error_case("vdot_sizes", lambda T: T.vdot(T.ones(3), T.ones(4)))
error_case("vdot_dtype", lambda T: T.vdot(T.ones(3), T.ones(3, dtype=T.float64)))
error_case("vdot_2d", lambda T: T.vdot(T.ones(3, 1), T.ones(3)))
error_case("vdot_bool", lambda T: T.vdot(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)))

# ------------------------------------------------------------------------------------------------ addmm
C24 = M(2, 4, k=7)
case("addmm", lambda T: T.addmm(t(T, C24), t(T, A23), t(T, B34)))
case("addmm_method", lambda T: t(T, C24).addmm(t(T, A23), t(T, B34)))
case("addmm_bias_row", lambda T: T.addmm(t(T, M(4, k=2)), t(T, A23), t(T, B34)))
case("addmm_bias_col", lambda T: T.addmm(t(T, M(2, 1, k=2)), t(T, A23), t(T, B34)))
case("addmm_bias_scalar", lambda T: T.addmm(T.tensor(1.5), t(T, A23), t(T, B34)))
cases("addmm_beta_alpha", lambda T, beta, alpha: T.addmm(t(T, C24), t(T, A23), t(T, B34), beta=beta, alpha=alpha),
      beta=[0, 1, 2.5, -1], alpha=[0, 1, 0.5, 3])
case("addmm_beta_zero_ignores_nan", lambda T: T.addmm(T.full((2, 4), float("nan")), t(T, A23), t(T, B34), beta=0))
case("addmm_beta_bool", lambda T: T.addmm(t(T, C24), t(T, A23), t(T, B34), beta=True))
cases("addmm_dtype", lambda T, dtype: T.addmm(t(T, udata(dtype, 2, 2, k=3), dtype), t(T, udata(dtype, 2, 3), dtype),
                                              t(T, udata(dtype, 3, 2, k=1), dtype)), dtype=NUM)
case("addmm_int_float_alpha", lambda T: T.addmm(T.ones(2, 2, dtype=T.int64), T.ones(2, 3, dtype=T.int64),
                                                T.ones(3, 2, dtype=T.int64), alpha=2.7))
case("addmm_int_float_beta", lambda T: T.addmm(T.ones(2, 2, dtype=T.int64), T.ones(2, 3, dtype=T.int64),
                                               T.ones(3, 2, dtype=T.int64), beta=0.5))
case("addmm_uint8_negative_alpha", lambda T: T.addmm(T.ones(2, 2, dtype=T.uint8), T.ones(2, 3, dtype=T.uint8),
                                                     T.ones(3, 2, dtype=T.uint8), alpha=-1))
case("addmm_out", lambda T: T.addmm(t(T, C24), t(T, A23), t(T, B34), out=T.empty(0)))
case("addmm_inplace", lambda T: (lambda c: (c.addmm_(t(T, A23), t(T, B34), beta=0.5), c)[1])(t(T, C24)))
case("addmm_inplace_returns_self", lambda T: (lambda c: c.addmm_(t(T, A23), t(T, B34)) is c)(t(T, C24)))
case("addmm_transposed", lambda T: T.addmm(t(T, C24), t(T, A32).t(), t(T, M(4, 3)).t()))
case("addmm_grad_fn", lambda T: T.addmm(t(T, C24), T.tensor(A23, requires_grad=True), t(T, B34)))
grad_case("addmm_grad", lambda T, c, a, b: T.addmm(c, a, b), C24, A23, B34)
grad_case("addmm_grad_bias_row", lambda T, c, a, b: T.addmm(c, a, b), M(4, k=2), A23, B34)
grad_case("addmm_grad_bias_scalar", lambda T, c, a, b: T.addmm(c, a, b), 1.5, A23, B34)
grad_case("addmm_grad_beta_alpha", lambda T, c, a, b: T.addmm(c, a, b, beta=0.5, alpha=-2), C24, A23, B34)
grad_case("addmm_grad_beta0", lambda T, c, a, b: T.addmm(c, a, b, beta=0), C24, A23, B34)
grad_case("addmm_grad_const_bias", lambda T, c, a, b: T.addmm(c, a, b, alpha=1.5), const(C24), A23, B34)
grad_case("addmm_grad2", lambda T, c, a, b: (lambda y: y * y)(T.addmm(c, a, b, alpha=2)), C24, A23, B34, order=2)
grad_case("addmm_inplace_grad", lambda T, c, a, b: (c * 1).addmm_(a, b, beta=2), C24, A23, B34)
error_case("addmm_self_dtype", lambda T: T.addmm(T.ones(2, 2, dtype=T.float64), T.ones(2, 3), T.ones(3, 2)))
error_case("addmm_mat1_dtype", lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3, dtype=T.float64), T.ones(3, 2)))
error_case("addmm_mat2_dtype", lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(3, 2, dtype=T.float64)))
error_case("addmm_dtype_before_shape", lambda T: T.addmm(T.ones(2, 2, dtype=T.float64), T.ones(2, 3), T.ones(4, 2)))
error_case("addmm_shapes", lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(4, 2)))
error_case("addmm_mat1_1d", lambda T: T.addmm(T.ones(2, 2), T.ones(3), T.ones(3, 2)))
error_case("addmm_mat2_3d", lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(3, 2, 1)))
error_case("addmm_bias_shape", lambda T: T.addmm(T.ones(3, 3), T.ones(2, 3), T.ones(3, 2)))
error_case("addmm_bias_3d", lambda T: T.addmm(T.ones(2, 2, 2), T.ones(2, 3), T.ones(3, 2)))
error_case("addmm_bool", lambda T: T.addmm(*(T.ones(*s, dtype=T.bool) for s in ((2, 2), (2, 3), (3, 2)))))
error_case("addmm_alpha_overflow", lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(3, 2), alpha=1e300))
error_case("addmm_uint8_alpha_overflow", lambda T: T.addmm(*(T.ones(*s, dtype=T.uint8) for s in ((2, 2), (2, 3), (3, 2))),
                                                           alpha=300))
error_case("addmm_inplace_int_self", lambda T: T.ones(2, 2, dtype=T.int64).addmm_(T.ones(2, 3), T.ones(3, 2)))

# ------------------------------------------------------------------------------------------------ addmv
case("addmv", lambda T: T.addmv(t(T, V2), t(T, A23), t(T, V3)))
case("addmv_method", lambda T: t(T, V2).addmv(t(T, A23), t(T, V3)))
case("addmv_bias_1", lambda T: T.addmv(T.tensor([2.5]), t(T, A23), t(T, V3)))
case("addmv_bias_0d", lambda T: T.addmv(T.tensor(2.5), t(T, A23), t(T, V3)))
cases("addmv_beta_alpha", lambda T, beta, alpha: T.addmv(t(T, V2), t(T, A23), t(T, V3), beta=beta, alpha=alpha),
      beta=[0, 1, -2], alpha=[1, 0.5])
case("addmv_int", lambda T: T.addmv(T.tensor([1, 2]), T.tensor([[1, 2, 3], [4, 5, 6]]), T.tensor([1, 0, -1]),
                                    alpha=2))
case("addmv_inplace", lambda T: (lambda c: (c.addmv_(t(T, A23), t(T, V3)), c)[1])(t(T, V2)))
case("addmv_out", lambda T: T.addmv(t(T, V2), t(T, A23), t(T, V3), out=T.empty(0)))
case("addmv_grad_fn", lambda T: T.addmv(t(T, V2), T.tensor(A23, requires_grad=True), t(T, V3)))
grad_case("addmv_grad", lambda T, c, a, v: T.addmv(c, a, v, beta=1.5, alpha=-0.5), V2, A23, V3)
grad_case("addmv_grad_scalar_bias", lambda T, c, a, v: T.addmv(c, a, v), [2.5], A23, V3)
error_case("addmv_self_dtype", lambda T: T.addmv(T.ones(2, dtype=T.float64), T.ones(2, 3), T.ones(3)))
error_case("addmv_mat_dtype", lambda T: T.addmv(T.ones(2), T.ones(2, 3, dtype=T.float64), T.ones(3)))
error_case("addmv_vec_dtype", lambda T: T.addmv(T.ones(2), T.ones(2, 3), T.ones(3, dtype=T.float64)))
error_case("addmv_mat_3d", lambda T: T.addmv(T.ones(2), T.ones(2, 3, 1), T.ones(3)))
error_case("addmv_vec_2d", lambda T: T.addmv(T.ones(2), T.ones(2, 3), T.ones(3, 1)))
error_case("addmv_self_2d", lambda T: T.addmv(T.ones(2, 2), T.ones(2, 3), T.ones(3)))
error_case("addmv_self_size", lambda T: T.addmv(T.ones(3), T.ones(2, 3), T.ones(3)))
error_case("addmv_vec_size", lambda T: T.addmv(T.ones(2), T.ones(2, 3), T.ones(4)))
error_case("addmv_bool", lambda T: T.addmv(T.ones(2, dtype=T.bool), T.ones(2, 3, dtype=T.bool), T.ones(3, dtype=T.bool)))

# ----------------------------------------------------------------------------------- baddbmm / addbmm
C224 = M(2, 2, 4, k=2)
B223, B234b = M(2, 2, 3), M(2, 3, 4, k=1)
case("baddbmm", lambda T: T.baddbmm(t(T, C224), t(T, B223), t(T, B234b)))
case("baddbmm_method", lambda T: t(T, C224).baddbmm(t(T, B223), t(T, B234b)))
case("baddbmm_broadcast_bias", lambda T: T.baddbmm(t(T, M(4, k=3)), t(T, B223), t(T, B234b)))
cases("baddbmm_beta_alpha", lambda T, beta, alpha: T.baddbmm(t(T, C224), t(T, B223), t(T, B234b), beta=beta,
                                                             alpha=alpha), beta=[0, 0.5], alpha=[1, -2])
case("baddbmm_int", lambda T: T.baddbmm(T.ones(2, 2, 2, dtype=T.int32), T.tensor(I(2, 2, 3), dtype=T.int32),
                                        T.tensor(I(2, 3, 2, k=1), dtype=T.int32), alpha=3))
case("baddbmm_inplace", lambda T: (lambda c: (c.baddbmm_(t(T, B223), t(T, B234b)), c)[1])(t(T, C224)))
case("baddbmm_out", lambda T: T.baddbmm(t(T, C224), t(T, B223), t(T, B234b), out=T.empty(0)))
case("baddbmm_empty_k", lambda T: T.baddbmm(t(T, M(2, 2, 2)), T.zeros(2, 2, 0), T.zeros(2, 0, 2), beta=0.5))
case("baddbmm_grad_fn", lambda T: T.baddbmm(t(T, C224), T.tensor(B223, requires_grad=True), t(T, B234b)))
grad_case("baddbmm_grad", lambda T, c, a, b: T.baddbmm(c, a, b, beta=-1, alpha=0.5), C224, B223, B234b)
grad_case("baddbmm_grad_bias_bcast", lambda T, c, a, b: T.baddbmm(c, a, b), M(4, k=3), B223, B234b)
error_case("baddbmm_self_dtype", lambda T: T.baddbmm(T.ones(2, 2, 2, dtype=T.float64), T.ones(2, 2, 3), T.ones(2, 3, 2)))
error_case("baddbmm_batch1_dtype", lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(2, 2, 3, dtype=T.float64), T.ones(2, 3, 2)))
error_case("baddbmm_batch2_dtype", lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(2, 2, 3), T.ones(2, 3, 2, dtype=T.float64)))
error_case("baddbmm_dtype_names", lambda T: T.baddbmm(T.ones(2, 2, 2, dtype=T.int64), T.ones(2, 2, 3, dtype=T.int32),
                                                       T.ones(2, 3, 2, dtype=T.int32)))
error_case("baddbmm_sizes", lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(2, 2, 3), T.ones(3, 3, 2)))
error_case("baddbmm_batch1_2d", lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(2, 2), T.ones(2, 3, 2)))
error_case("baddbmm_batch2_2d", lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(2, 2, 3), T.ones(2, 3)))
error_case("baddbmm_batch2_4d", lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(2, 2, 3), T.ones(2, 3, 2, 1)))
error_case("baddbmm_bias_shape", lambda T: T.baddbmm(T.ones(2, 3, 2), T.ones(2, 2, 3), T.ones(2, 3, 2)))
error_case("baddbmm_bias_before_dtype", lambda T: T.baddbmm(T.ones(5, 5, 5, dtype=T.float64), T.ones(2, 2, 3),
                                                            T.ones(2, 3, 2)))
error_case("baddbmm_bool", lambda T: T.baddbmm(*(T.ones(*s, dtype=T.bool) for s in ((2, 2, 2), (2, 2, 3), (2, 3, 2)))))

case("addbmm", lambda T: T.addbmm(t(T, C24), t(T, B223), t(T, B234b)))
case("addbmm_method", lambda T: t(T, C24).addbmm(t(T, B223), t(T, B234b)))
case("addbmm_broadcast_bias", lambda T: T.addbmm(t(T, M(4, k=3)), t(T, B223), t(T, B234b)))
cases("addbmm_beta_alpha", lambda T, beta, alpha: T.addbmm(t(T, C24), t(T, B223), t(T, B234b), beta=beta,
                                                           alpha=alpha), beta=[0, 2], alpha=[1, 0.25])
case("addbmm_int", lambda T: T.addbmm(T.ones(2, 2, dtype=T.int64), T.tensor(I(3, 2, 3)), T.tensor(I(3, 3, 2, k=1))))
case("addbmm_inplace", lambda T: (lambda c: (c.addbmm_(t(T, B223), t(T, B234b)), c)[1])(t(T, C24)))
case("addbmm_out", lambda T: T.addbmm(t(T, C24), t(T, B223), t(T, B234b), out=T.empty(0)))
case("addbmm_empty_batch", lambda T: T.addbmm(t(T, M(2, 2)), T.zeros(0, 2, 3), T.zeros(0, 3, 2)))
case("addbmm_grad_fn", lambda T: T.addbmm(t(T, C24), T.tensor(B223, requires_grad=True), t(T, B234b)))
grad_case("addbmm_grad", lambda T, c, a, b: T.addbmm(c, a, b, beta=0.5, alpha=2), C24, B223, B234b)
grad_case("addbmm_grad_plain", lambda T, c, a, b: T.addbmm(c, a, b), C24, B223, B234b)
grad_case("addbmm_grad2", lambda T, c, a, b: (lambda y: y * y)(T.addbmm(c, a, b)), C24, B223, B234b, order=2)
error_case("addbmm_self_dtype", lambda T: T.addbmm(T.ones(2, 2, dtype=T.float64), T.ones(2, 2, 3), T.ones(2, 3, 2)))
error_case("addbmm_batch1_dtype", lambda T: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3, dtype=T.float64), T.ones(2, 3, 2)))
error_case("addbmm_batches", lambda T: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3), T.ones(3, 3, 2)))
error_case("addbmm_sizes", lambda T: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3), T.ones(2, 4, 2)))
error_case("addbmm_sizes_before_dtype", lambda T: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3), T.ones(2, 4, 2, dtype=T.float64)))
error_case("addbmm_batch1_4d", lambda T: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3, 1), T.ones(2, 3, 2)))
error_case("addbmm_batch2_2d", lambda T: T.addbmm(T.ones(2, 2), T.ones(2, 2, 3), T.ones(2, 3)))
error_case("addbmm_bias_shape", lambda T: T.addbmm(T.ones(3, 2), T.ones(2, 2, 3), T.ones(2, 3, 2)))
error_case("addbmm_bool", lambda T: T.addbmm(*(T.ones(*s, dtype=T.bool) for s in ((2, 2), (2, 2, 3), (2, 3, 2)))))

# ------------------------------------------------------------------------------------------- matmul / @
MATMUL_SHAPES = {
    "1x1": ((3,), (3,)), "2x1": ((2, 3), (3,)), "1x2": ((3,), (3, 4)), "2x2": ((2, 3), (3, 4)),
    "3x1": ((2, 2, 3), (3,)), "3x2": ((2, 2, 3), (3, 4)), "1x3": ((3,), (2, 3, 4)), "2x3": ((2, 3), (5, 3, 4)),
    "3x3": ((5, 2, 3), (5, 3, 4)), "3x3b1": ((1, 2, 3), (5, 3, 4)), "3x3b2": ((5, 2, 3), (1, 3, 4)),
    "4x3": ((2, 5, 2, 3), (5, 3, 4)), "4x4": ((2, 5, 2, 3), (2, 5, 3, 4)), "4x2": ((2, 5, 2, 3), (3, 4)),
    "4x1": ((2, 5, 2, 3), (3,)), "1x4": ((3,), (2, 5, 3, 4)), "2x4": ((2, 3), (2, 5, 3, 4)),
    "4x4bc": ((2, 1, 2, 3), (1, 5, 3, 4)), "3x4": ((5, 2, 3), (2, 1, 3, 4)),
}
cases("matmul", lambda T, sh: T.matmul(t(T, M(*MATMUL_SHAPES[sh][0])), t(T, M(*MATMUL_SHAPES[sh][1], k=1))),
      sh=list(MATMUL_SHAPES))
cases("matmul_op", lambda T, sh: t(T, M(*MATMUL_SHAPES[sh][0])) @ t(T, M(*MATMUL_SHAPES[sh][1], k=1)),
      sh=["1x1", "2x2", "3x2", "4x4bc"])
cases("matmul_grad_fn", lambda T, sh, which: (lambda a, b: T.matmul(a, b))(
    T.tensor(M(*MATMUL_SHAPES[sh][0]), requires_grad=which in ("a", "ab")),
    T.tensor(M(*MATMUL_SHAPES[sh][1], k=1), requires_grad=which in ("b", "ab"))),
    sh=list(MATMUL_SHAPES), which=["a", "b", "ab"])
for _sh, (_sa, _sb) in MATMUL_SHAPES.items():
    grad_case(f"matmul_grad[{_sh}]", lambda T, a, b: T.matmul(a, b), M(*_sa), M(*_sb, k=1))
    grad_case(f"matmul_grad_lhs_only[{_sh}]", lambda T, a, b: T.matmul(a, b), M(*_sa), const(M(*_sb, k=1)))
    grad_case(f"matmul_grad_rhs_only[{_sh}]", lambda T, a, b: T.matmul(a, b), const(M(*_sa)), M(*_sb, k=1))
grad_case("matmul_grad2", lambda T, a, b: (lambda y: y * y)(T.matmul(a, b)), M(2, 2, 3), M(3, 2, k=1), order=2)
case("matmul_method", lambda T: t(T, A23).matmul(t(T, B34)))
case("matmul_rmatmul", lambda T: t(T, B34).__rmatmul__(t(T, A23)))
def _imatmul(T):
    x = t(T, A23)
    y = x
    x @= t(T, M(3, 3))  # torch has no Tensor.__imatmul__: x is rebound to x @ ..., y keeps the old tensor
    return x, y, x is y


case("matmul_imatmul", _imatmul)
case("matmul_no_imatmul_attr", lambda T: hasattr(T.ones(1), "__imatmul__"))
case("matmul_out", lambda T: T.matmul(t(T, A23), t(T, B34), out=T.empty(0)))
case("matmul_transposed", lambda T: T.matmul(t(T, M(2, 4, 2)).transpose(1, 2), t(T, M(2, 4, 5))))
case("matmul_noncontig_batch_fold", lambda T: T.matmul(t(T, M(3, 2, 4)).transpose(0, 1), t(T, M(4, 2, k=1))))
case("matmul_empty", lambda T: T.matmul(T.zeros(0, 3), t(T, M(3, 2))))
case("matmul_empty_k", lambda T: T.matmul(T.zeros(2, 0), T.zeros(0, 2)))
case("matmul_int", lambda T: T.matmul(T.tensor(I(2, 3)), T.tensor(I(3, 2, k=1))))
case("matmul_int_batched", lambda T: T.matmul(T.tensor(I(2, 2, 3)), T.tensor(I(3,))))
cases("matmul_dtype", lambda T, dtype: T.matmul(t(T, udata(dtype, 2, 2, 3), dtype), t(T, udata(dtype, 3, 2, k=1), dtype)),
      dtype=NUM)
error_case("matmul_0d", lambda T: T.tensor(2.) @ T.tensor(3.))
error_case("matmul_0d_1d", lambda T: T.matmul(T.tensor(2.), T.ones(3)))
error_case("matmul_1d_0d", lambda T: T.matmul(T.ones(3), T.tensor(2.)))
error_case("matmul_2d_shapes", lambda T: T.ones(2, 3) @ T.ones(4, 5))
error_case("matmul_1d_1d_sizes", lambda T: T.ones(3) @ T.ones(4))
error_case("matmul_2d_1d_sizes", lambda T: T.ones(2, 3) @ T.ones(4))
error_case("matmul_1d_2d_sizes", lambda T: T.ones(3) @ T.ones(4, 5))
error_case("matmul_3d_sizes", lambda T: T.ones(2, 2, 3) @ T.ones(2, 4, 5))
error_case("matmul_batch_broadcast", lambda T: T.ones(2, 2, 3) @ T.ones(3, 3, 2))
error_case("matmul_1d_3d_sizes", lambda T: T.ones(3) @ T.ones(2, 4, 2))
error_case("matmul_3d_1d_sizes", lambda T: T.ones(2, 4, 2) @ T.ones(3))
error_case("matmul_dtype", lambda T: T.ones(2, 2) @ T.ones(2, 2, dtype=T.float64))
error_case("matmul_dtype_long", lambda T: T.ones(2, 3, dtype=T.int64) @ T.ones(3, 2))
error_case("matmul_dtype_1d", lambda T: T.matmul(T.ones(3), T.ones(3, dtype=T.float64)))
error_case("matmul_dtype_2d_1d", lambda T: T.matmul(T.ones(2, 3), T.ones(3, dtype=T.float64)))
error_case("matmul_dtype_batched", lambda T: T.matmul(T.ones(3), T.ones(5, 3, 2, dtype=T.float64)))
error_case("matmul_out_requires_grad", lambda T: T.matmul(T.ones(2, 3, requires_grad=True), T.ones(3, 2),
                                                          out=T.empty(2, 2)))
error_case("matmul_bool", lambda T: T.ones(2, 2, dtype=T.bool) @ T.ones(2, 2, dtype=T.bool))

# ---------------------------------------------------------------------------------- outer / inner / kron
case("outer", lambda T: T.outer(t(T, V2), t(T, V3)))
case("outer_method", lambda T: t(T, V2).outer(t(T, V3)))
case("ger", lambda T: T.ger(t(T, V2), t(T, V3)))
case("ger_method", lambda T: t(T, V2).ger(t(T, V3)))
case("outer_promotes", lambda T: T.outer(T.tensor([1, 2]), T.tensor([0.5, 1.5, -1.])))
case("outer_int_uint8", lambda T: T.outer(T.tensor([1, 2], dtype=T.int32), T.tensor([3, 4], dtype=T.uint8)))
case("outer_bool", lambda T: T.outer(T.tensor([True, False]), T.tensor([True, True])))
case("outer_stepped", lambda T: T.outer(t(T, M(4))[::2], t(T, V3)))
case("outer_out", lambda T: T.outer(t(T, V2), t(T, V3), out=T.empty(0)))
case("outer_grad_fn", lambda T: T.outer(T.tensor(V2, requires_grad=True), t(T, V3)))
grad_case("outer_grad", lambda T, a, b: T.outer(a, b), V2, V3)
grad_case("ger_grad", lambda T, a, b: T.ger(a, b), V2, V3)
error_case("outer_2d", lambda T: T.outer(T.ones(2, 2), T.ones(3)))
error_case("outer_vec2_2d", lambda T: T.outer(T.ones(2), T.ones(3, 1)))
error_case("outer_0d", lambda T: T.outer(T.tensor(1.), T.ones(3)))

case("inner_1d", lambda T: T.inner(t(T, V3), t(T, W3)))
case("inner_2d", lambda T: T.inner(t(T, A23), t(T, M(4, 3, k=2))))
case("inner_3d_1d", lambda T: T.inner(t(T, M(2, 2, 3)), t(T, V3)))
case("inner_0d", lambda T: T.inner(T.tensor(2.5), t(T, V3)))
case("inner_method", lambda T: t(T, A23).inner(t(T, A23)))
case("inner_int", lambda T: T.inner(T.tensor(I(2, 3)), T.tensor(I(3,))))
case("inner_out", lambda T: T.inner(t(T, V3), t(T, W3), out=T.empty(0)))
case("inner_grad_fn_1d", lambda T: T.inner(T.tensor(V3, requires_grad=True), t(T, W3)))
case("inner_grad_fn_2d", lambda T: T.inner(T.tensor(A23, requires_grad=True), t(T, M(4, 3))))
case("inner_grad_fn_0d", lambda T: T.inner(T.tensor(2., requires_grad=True), t(T, V3)))
grad_case("inner_grad", lambda T, a, b: T.inner(a, b), A23, M(4, 3, k=2))
grad_case("inner_grad_1d", lambda T, a, b: T.inner(a, b), V3, W3)
error_case("inner_last_dim", lambda T: T.inner(T.ones(2, 3), T.ones(4)))
error_case("inner_dtype", lambda T: T.inner(T.ones(2, 3, dtype=T.int32), T.ones(4, 3, dtype=T.float64)))

case("kron_2d", lambda T: T.kron(t(T, M(2, 2)), t(T, M(2, 3, k=1))))
case("kron_1d", lambda T: T.kron(t(T, V2), t(T, V3)))
case("kron_mixed_dims", lambda T: T.kron(t(T, V2), t(T, M(2, 2, k=1))))
case("kron_3d_1d", lambda T: T.kron(t(T, M(2, 1, 2)), t(T, V3)))
case("kron_0d", lambda T: T.kron(T.tensor(2.), t(T, V3)))
case("kron_method", lambda T: t(T, M(2, 2)).kron(t(T, M(2, 2, k=3))))
case("kron_promotes", lambda T: T.kron(T.tensor([1, 2], dtype=T.int32), T.tensor([0.5, 2.], dtype=T.float64)))
case("kron_stepped", lambda T: T.kron(t(T, M(2, 6))[:, ::2], t(T, M(2, 2, k=1))))
case("kron_out", lambda T: T.kron(t(T, V2), t(T, V3), out=T.empty(0)))
case("kron_grad_fn", lambda T: T.kron(T.tensor(M(2, 2), requires_grad=True), t(T, M(2, 3))))
grad_case("kron_grad", lambda T, a, b: T.kron(a, b), M(2, 2), M(2, 3, k=1))
grad_case("kron_grad_1d_2d", lambda T, a, b: T.kron(a, b), V2, M(2, 2, k=1))

# -------------------------------------------------------------------------------------------- tensordot
case("tensordot_default", lambda T: T.tensordot(t(T, M(2, 3, 4)), t(T, M(3, 4, 2, k=1))))
case("tensordot_int_dims", lambda T: T.tensordot(t(T, A23), t(T, B34), 1))
case("tensordot_dims_kw", lambda T: T.tensordot(t(T, A23), t(T, B34), dims=1))
case("tensordot_dims_lists", lambda T: T.tensordot(t(T, A23), t(T, A32), dims=([1], [0])))
case("tensordot_dims_list_of_lists", lambda T: T.tensordot(t(T, A23), t(T, A32), dims=[[1], [0]]))
case("tensordot_dims_swap", lambda T: T.tensordot(t(T, A23), t(T, A23), dims=([0], [0])))
case("tensordot_full", lambda T: T.tensordot(t(T, A23), t(T, A32), dims=([1, 0], [0, 1])))
case("tensordot_full_dims2", lambda T: T.tensordot(t(T, A23), t(T, M(2, 3, k=2)), dims=2))
case("tensordot_vectors", lambda T: T.tensordot(t(T, V3), t(T, W3), dims=1))
case("tensordot_outer", lambda T: T.tensordot(t(T, V2), t(T, V3), dims=0))
case("tensordot_outer_2d", lambda T: T.tensordot(t(T, A23), t(T, V2), dims=0))
case("tensordot_broadcast_dim", lambda T: T.tensordot(t(T, A23), t(T, M(1, 2)), dims=([1], [0])))
case("tensordot_broadcast_dim_lhs", lambda T: T.tensordot(t(T, M(2, 1)), t(T, A32), dims=([1], [0])))
case("tensordot_negative_dims", lambda T: T.tensordot(t(T, M(2, 3, 4)), t(T, M(4, 3, k=1)), dims=([-1, -2], [0, 1])))
case("tensordot_tensor_dims", lambda T: T.tensordot(t(T, A23), t(T, B34), dims=T.tensor(1)))
case("tensordot_tensor_dims_pairs", lambda T: T.tensordot(t(T, A23), t(T, A32), dims=T.tensor([[1], [0]])))
case("tensordot_int", lambda T: T.tensordot(T.tensor(I(2, 3)), T.tensor(I(3, 2, k=1)), 1))
case("tensordot_out", lambda T: T.tensordot(t(T, A23), t(T, B34), 1, out=T.empty(0)))
cases("tensordot_grad_fn", lambda T, dims: T.tensordot(T.tensor(M(2, 3), requires_grad=True), t(T, M(3, 2)), dims=dims),
      dims=[0, 1, ([1, 0], [0, 1])])
case("tensordot_grad_fn_full2", lambda T: T.tensordot(T.tensor(A23, requires_grad=True), t(T, A23), dims=2))
grad_case("tensordot_grad", lambda T, a, b: T.tensordot(a, b, dims=([0, 2], [1, 0])), M(2, 3, 4), M(4, 2, 3, k=1))
grad_case("tensordot_grad_full", lambda T, a, b: T.tensordot(a, b, dims=2), A23, M(2, 3, k=1))
grad_case("tensordot_grad_bcast", lambda T, a, b: T.tensordot(a, b, dims=([1], [0])), A23, M(1, 2))
error_case("tensordot_sizes", lambda T: T.tensordot(T.ones(2, 3), T.ones(4, 5), dims=1))
error_case("tensordot_sizes_lists", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 5), dims=([0], [0])))
error_case("tensordot_negative", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=-1))
error_case("tensordot_too_many", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=3))
error_case("tensordot_float_dims", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=1.5))
error_case("tensordot_lengths", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=([1, 0], [0])))
error_case("tensordot_dim_range", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=([5], [0])))
error_case("tensordot_dtype", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2, dtype=T.float64), 1))
error_case("tensordot_repeated_dim", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=([1, 1], [0, 0])))
error_case("tensordot_int_pair", lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), dims=(1, 0)))

# ---------------------------------------------------------------------------------------------- einsum
EINSUM = {
    "ij,jk->ik": ((2, 3), (3, 4)), "bij,bjk->bik": ((5, 2, 3), (5, 3, 4)), "ii->i": ((3, 3),), "ii": ((3, 3),),
    "ij->ji": ((2, 3),), "i,i->": ((3,), (3,)), "i,j->ij": ((2,), (3,)),
    "...ij,...jk->...ik": ((5, 2, 3), (5, 3, 4)), "bhqd,bhkd->bhqk": ((2, 3, 4, 5), (2, 3, 6, 5)),
    "ij,jk": ((2, 3), (3, 4)), "ij->": ((2, 3),), "ij->i": ((2, 3),), "ij,ij->ij": ((2, 3), (2, 3)),
    "i,j,k->ijk": ((2,), (3,), (4,)), "ij": ((2, 3),), "ji": ((2, 3),), "ij,ij->": ((2, 3), (2, 3)),
    "ijk->kji": ((2, 3, 4),), "bij->bji": ((2, 3, 4),), "ij,kj->ik": ((2, 3), (4, 3)), "i,ij->j": ((2,), (2, 3)),
    "...i,...i->...": ((2, 3, 4), (2, 3, 4)), "i...->...": ((2, 3, 4),), "ij,j->i": ((2, 3), (3,)),
    "iij->ij": ((3, 3, 2),), "iji->j": ((2, 3, 2),), "bn,anm,bm->ba": ((2, 3), (4, 3, 5), (2, 5)),
    "ij,jk,kl->il": ((2, 3), (3, 4), (4, 2)), "ab,ab,ab->a": ((2, 3), (2, 3), (2, 3)), "i,i,i->": ((3,), (3,), (3,)),
    "ij,1j->i": None,
}
EINSUM = {k: v for k, v in EINSUM.items() if v is not None}
cases("einsum", lambda T, eq: T.einsum(eq, *[t(T, M(*s, k=i)) for i, s in enumerate(EINSUM[eq])]), eq=list(EINSUM))
cases("einsum_grad_fn", lambda T, eq: T.einsum(eq, *[T.tensor(M(*s, k=i), requires_grad=True)
                                                    for i, s in enumerate(EINSUM[eq])]), eq=list(EINSUM))
case("einsum_list", lambda T: T.einsum("ij,jk->ik", [t(T, A23), t(T, B34)]))
case("einsum_tuple", lambda T: T.einsum("ij,jk->ik", (t(T, A23), t(T, B34))))
case("einsum_spaces", lambda T: T.einsum(" i j , j k -> i k ", t(T, A23), t(T, B34)))
case("einsum_uppercase", lambda T: T.einsum("Ij,jK->IK", t(T, A23), t(T, B34)))
case("einsum_sublist", lambda T: T.einsum(t(T, A23), [0, 1], t(T, B34), [1, 2], [0, 2]))
case("einsum_sublist_implicit", lambda T: T.einsum(t(T, A23), [0, 1], t(T, B34), [1, 2]))
case("einsum_sublist_ellipsis", lambda T: T.einsum(t(T, M(5, 2, 3)), [..., 0, 1], t(T, M(5, 3, 4)), [..., 1, 2],
                                                   [..., 0, 2]))
case("einsum_broadcast_ellipsis", lambda T: T.einsum("...ij,...jk->...ik", t(T, M(1, 2, 3)), t(T, M(5, 3, 4))))
case("einsum_broadcast_size1", lambda T: T.einsum("ij,ij->ij", t(T, M(1, 3)), t(T, M(2, 3))))
case("einsum_int", lambda T: T.einsum("ij,jk->ik", T.tensor(I(2, 3)), T.tensor(I(3, 2, k=1))))
case("einsum_int_sum", lambda T: T.einsum("ij->j", T.tensor(I(3, 2), dtype=T.int32)))
case("einsum_transposed_input", lambda T: T.einsum("ij,jk->ik", t(T, A32).t(), t(T, B34)))
case("einsum_path_arg", lambda T: T.einsum("ij,jk,kl->il", t(T, M(2, 3)), t(T, M(3, 4)), t(T, M(4, 2))))
grad_case("einsum_grad_mm", lambda T, a, b: T.einsum("ij,jk->ik", a, b), A23, B34)
grad_case("einsum_grad_batched", lambda T, a, b: T.einsum("bij,bjk->bik", a, b), M(2, 2, 3), M(2, 3, 2, k=1))
grad_case("einsum_grad_diag", lambda T, a: T.einsum("ii->i", a), M(3, 3))
grad_case("einsum_grad_trace", lambda T, a: T.einsum("ii", a), M(3, 3))
grad_case("einsum_grad_attention", lambda T, q, k: T.einsum("bhqd,bhkd->bhqk", q, k), M(1, 2, 3, 4), M(1, 2, 2, 4, k=1))
grad_case("einsum_grad_outer", lambda T, a, b: T.einsum("i,j->ij", a, b), V2, V3)
grad_case("einsum_grad_three", lambda T, a, b, c: T.einsum("ij,jk,kl->il", a, b, c), A23, B34, M(4, 2, k=2))
grad_case("einsum_grad_sum", lambda T, a: T.einsum("ij->", a), A23)
grad_case("einsum_grad2", lambda T, a, b: (lambda y: y * y)(T.einsum("ij,jk->ik", a, b)), A23, B34, order=2)
error_case("einsum_no_operands", lambda T: T.einsum("ij,jk->ik"))
error_case("einsum_fewer_operands", lambda T: T.einsum("ij,jk->ik", T.ones(2, 3)))
error_case("einsum_more_operands", lambda T: T.einsum("ij", T.ones(2, 3), T.ones(3, 4)))
error_case("einsum_output_not_in_input", lambda T: T.einsum("ij->ik", T.ones(2, 3)))
error_case("einsum_output_repeated", lambda T: T.einsum("ij->ii", T.ones(2, 3)))
error_case("einsum_bad_subscript", lambda T: T.einsum("i1->i", T.ones(2, 3)))
error_case("einsum_bad_output_subscript", lambda T: T.einsum("ij->i1", T.ones(2, 3)))
error_case("einsum_too_many_subscripts", lambda T: T.einsum("ijk->i", T.ones(2, 3)))
error_case("einsum_too_few_subscripts", lambda T: T.einsum("i->i", T.ones(2, 3)))
error_case("einsum_ellipsis_too_many", lambda T: T.einsum("...ijk->i", T.ones(2, 3)))
error_case("einsum_repeated_sizes", lambda T: T.einsum("ii->i", T.ones(2, 3)))
error_case("einsum_size_mismatch", lambda T: T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(4, 2)))
error_case("einsum_batch_mismatch", lambda T: T.einsum("bij,bjk->bik", T.ones(2, 3, 4), T.ones(3, 4, 5)))
error_case("einsum_ellipsis_mismatch", lambda T: T.einsum("...ij,...jk->...ik", T.ones(2, 3, 4), T.ones(3, 4, 5)))
error_case("einsum_bad_dots", lambda T: T.einsum("..i,ij->", T.ones(2, 3), T.ones(3, 2)))
error_case("einsum_two_ellipses", lambda T: T.einsum("...i..., ij->", T.ones(2, 3), T.ones(3, 2)))
error_case("einsum_two_output_ellipses", lambda T: T.einsum("ij,jk->...ik.", T.ones(2, 3), T.ones(3, 2)))
error_case("einsum_bad_output_dots", lambda T: T.einsum("ij->..i", T.ones(2, 3)))
error_case("einsum_dtype", lambda T: T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(3, 2, dtype=T.float64)))
error_case("einsum_only_equation", lambda T: T.einsum("ij"))
error_case("einsum_bool_bmm", lambda T: T.einsum("i,i->", T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)))

# ----------------------------------------------------------------------------------------------- trace
case("trace", lambda T: T.trace(t(T, M(3, 3))))
case("trace_rect", lambda T: T.trace(t(T, A23)))
case("trace_tall", lambda T: T.trace(t(T, A32)))
case("trace_method", lambda T: t(T, M(3, 3)).trace())
case("trace_transposed", lambda T: T.trace(t(T, A23).t()))
case("trace_empty", lambda T: T.trace(T.zeros(0, 3)))
cases("trace_dtype", lambda T, dtype: T.trace(t(T, udata(dtype, 3, 3), dtype)), dtype=NUM)
case("trace_grad_fn", lambda T: T.trace(T.tensor(M(3, 3), requires_grad=True)))
grad_case("trace_grad", lambda T, a: T.trace(a), M(3, 3))
grad_case("trace_grad_rect", lambda T, a: T.trace(a), A23)
grad_case("trace_grad2", lambda T, a: T.trace(a) * T.trace(a), M(2, 2), order=2)
error_case("trace_1d", lambda T: T.trace(T.ones(3)))
error_case("trace_3d", lambda T: T.trace(T.ones(2, 3, 4)))
error_case("trace_bool", lambda T: T.trace(T.ones(2, 2, dtype=T.bool)))

# ---------------------------------------------------------------------------------------------- printing
print_case("print_mm", lambda T: T.mm(T.tensor(A23, requires_grad=True), t(T, B34)))
print_case("print_matmul_batched", lambda T: T.matmul(T.tensor(M(2, 2, 3), requires_grad=True), t(T, M(3, 2))))
print_case("print_einsum", lambda T: T.einsum("ij,jk->ik", T.tensor(A23, requires_grad=True), t(T, B34)))

# ------------------------------------------------------------------------------- @ with non-tensors
error_case("matmul_op_list_lhs", lambda T: [[1., 2.]] @ T.ones(2, 2))
error_case("matmul_op_list_rhs", lambda T: T.ones(2, 2) @ [[1., 2.]])
error_case("matmul_op_int", lambda T: T.ones(2, 2) @ 2)
error_case("matmul_op_int_lhs", lambda T: 2 @ T.ones(2, 2))
case("matmul_dunder_none", lambda T: T.ones(2, 2).__matmul__(None) is NotImplemented)

# ------------------------------------------------------------------------------- out= dtype rules
_F64 = lambda T, *s: T.empty(s, dtype=T.float64)  # noqa: E731
OUT_DTYPE = {
    "mm": lambda T: T.mm(T.ones(2, 3), T.ones(3, 2), out=_F64(T, 2, 2)),
    "bmm": lambda T: T.bmm(T.ones(1, 2, 3), T.ones(1, 3, 2), out=_F64(T, 1, 2, 2)),
    "mv": lambda T: T.mv(T.ones(2, 3), T.ones(3), out=_F64(T, 2)),
    "dot": lambda T: T.dot(T.ones(3), T.ones(3), out=_F64(T)),
    "vdot": lambda T: T.vdot(T.ones(3), T.ones(3), out=_F64(T)),
    "addmm": lambda T: T.addmm(T.ones(2, 2), T.ones(2, 3), T.ones(3, 2), out=_F64(T, 2, 2)),
    "addmv": lambda T: T.addmv(T.ones(2), T.ones(2, 3), T.ones(3), out=_F64(T, 2)),
    "baddbmm": lambda T: T.baddbmm(T.ones(1, 2, 2), T.ones(1, 2, 3), T.ones(1, 3, 2), out=_F64(T, 1, 2, 2)),
    "addbmm": lambda T: T.addbmm(T.ones(2, 2), T.ones(1, 2, 3), T.ones(1, 3, 2), out=_F64(T, 2, 2)),
    "matmul": lambda T: T.matmul(T.ones(2, 3), T.ones(3, 2), out=_F64(T, 2, 2)),
    "matmul_batched": lambda T: T.matmul(T.ones(2, 2, 3), T.ones(2, 3, 2), out=_F64(T, 2, 2, 2)),
    "inner": lambda T: T.inner(T.ones(2), T.ones(2), out=_F64(T)),
    "tensordot": lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), 1, out=_F64(T, 2, 2)),
    "mm_long": lambda T: T.mm(T.ones(2, 3), T.ones(3, 2), out=T.empty(2, 2, dtype=T.int64)),
    "outer_long": lambda T: T.outer(T.ones(2), T.ones(3), out=T.empty(2, 3, dtype=T.int64)),
}
cases("out_dtype_refused", lambda T, op: OUT_DTYPE[op](T), op=list(OUT_DTYPE), kind="error")
case("outer_out_casts", lambda T: T.outer(T.ones(2), T.ones(3), out=_F64(T, 2, 3)))
case("kron_out_casts", lambda T: T.kron(T.ones(2), T.ones(3), out=_F64(T, 6)))
case("mm_out_resizes", lambda T: (lambda o: (T.mm(t(T, A23), t(T, B34), out=o), o.shape)[1])(T.empty(5)))

# ---------------------------------------------------------------------------------------------------------------
# torch.linalg.matmul / multi_dot / vecdot / diagonal. multi_dot multiplies in torch's order (3 matrices by the two
# costs, 4 or more by matrix_chain_order), so its rounding is the order's; a 1-D first / last tensor drops its dim.
_CHAINS = {"2": [(2, 3), (3, 4)], "3_left": [(5, 2), (2, 6), (6, 3)], "3_right": [(2, 6), (6, 5), (5, 1)],
           "4": [(3, 7), (7, 2), (2, 8), (8, 4)], "5": [(6, 1), (1, 5), (5, 2), (2, 7), (7, 3)],
           "vec_first": [(4,), (4, 3), (3, 2)], "vec_last": [(2, 4), (4, 3), (3,)], "vec_both": [(4,), (4, 5), (5,)],
           "vec2": [(4,), (4,)]}
cases("multi_dot", lambda T, chain: T.linalg.multi_dot([T.tensor(M(*s, k=i)).requires_grad_() for i, s in enumerate(_CHAINS[chain])]),
      chain=sorted(_CHAINS), rtol=1e-5, atol=1e-5)
cases("multi_dot_grad", lambda T, chain: (ts := [T.tensor(M(*s, k=i), requires_grad=True) for i, s in enumerate(_CHAINS[chain])],
                                          T.linalg.multi_dot(ts).sum().backward(), [t.grad for t in ts])[2],
      chain=["3_left", "4", "vec_both"], rtol=1e-5, atol=1e-5)
_MD_ERR = {"one": lambda T: [T.ones(2, 2)], "none": lambda T: [], "first3d": lambda T: [T.ones(2, 2, 2), T.ones(2, 2)],
           "last3d": lambda T: [T.ones(2, 2), T.ones(2, 2, 2)], "mid1d": lambda T: [T.ones(2, 2), T.ones(2), T.ones(2, 2)],
           "shapes": lambda T: [T.ones(2, 3), T.ones(4, 5)], "dtype": lambda T: [T.ones(2, 3), T.ones(3, 5).double()],
           "dtype_half": lambda T: [T.ones(2, 3), T.ones(3, 5), T.ones(5, 2).half()]}
cases("multi_dot_errors", lambda T, bad: T.linalg.multi_dot(_MD_ERR[bad](T)), bad=sorted(_MD_ERR), kind="error")
case("linalg_matmul", lambda T: (T.linalg.matmul(T.tensor(M(2, 3)), T.tensor(M(3, k=1))), T.linalg.matmul(T.tensor(M(4, 2, 3)), T.tensor(M(3, 2)))))
error_case("linalg_matmul_mismatch", lambda T: T.linalg.matmul(T.tensor(M(2, 3)), T.tensor(M(4))))
case("linalg_diagonal", lambda T: (T.linalg.diagonal(T.tensor(M(2, 3, 4))), T.linalg.diagonal(T.tensor(M(3, 3)), offset=1),
                                   T.linalg.diagonal(T.tensor(M(2, 3, 4)), dim1=0, dim2=2)))
cases("vecdot", lambda T, dtype, dim: T.linalg.vecdot(T.tensor(M(2, 3), dtype=dtype, requires_grad=True), T.tensor(M(3, k=2), dtype=dtype), dim=dim),
      dtype=FLOATS, dim=[-1, 1])
error_case("vecdot_dtypes", lambda T: T.linalg.vecdot(T.ones(2, 3), T.ones(3).double()))
error_case("vecdot_int", lambda T: T.linalg.vecdot(T.ones(2, 3, dtype=T.int64), T.ones(3, dtype=T.int64)))
error_case("vecdot_shapes", lambda T: T.linalg.vecdot(T.ones(2, 3), T.ones(2)))

# a product of depth 1 (more than one row and column) is torch's outer product: 0 * -1 stays -0, printed "-0."
_DEPTH1 = {"mm": lambda T, a, b: T.mm(a, b), "matmul_3d": lambda T, a, b: T.matmul(a.expand(2, 3, 1), b),
           "addmm_beta0": lambda T, a, b: T.addmm(T.ones(3, 4, dtype=a.dtype), a, b, beta=0, alpha=2),
           "addmm_negzero_self": lambda T, a, b: T.addmm(-T.zeros(3, 4, dtype=a.dtype), a, b),
           "addmm_beta1": lambda T, a, b: T.addmm(T.zeros(3, 4, dtype=a.dtype), a, b), "bmm": lambda T, a, b: T.bmm(a[None], b[None]),
           "mv": lambda T, a, b: T.mv(a, b[0, :1]), "row": lambda T, a, b: T.mm(a[:1], b), "linear": lambda T, a, b: T.nn.functional.linear(a, b.t()),
           "tensordot0": lambda T, a, b: T.tensordot(a[:, 0], b[0], 0)}
cases("depth1_signed_zero", lambda T, how, dtype: (r := _DEPTH1[how](T, T.tensor([[0.0], [1.5], [-0.0]], dtype=dtype), T.tensor([[-1.0, 2.0, 0.0, -0.5]], dtype=dtype)),
                                                  T.signbit(r), str(r))[1:],
      how=sorted(_DEPTH1), dtype=[D.float32, D.float64, D.bfloat16])
