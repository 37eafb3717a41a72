"""The extra area (ops/extra.def, src/ops/extra.c, wick/_extra_py.py): names from the coverage ledger's gaps --
constants, trivial spellings (torch.detach/detach_/fill/fill_/zero_, ravel, type_as, is_same_size, is_signed,
is_inference, __contains__, __long__, __nonzero__, Tensor.new), broadcast_shapes, unravel_index, h/v/dsplit,
tril/triu_indices, resize_/resize_as_, as_strided_, fill_diagonal_; and the maths group (cross, diff, cdist, ...)."""
from .harness import *  # noqa: F401,F403

A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
A44 = [[1.5, -2.0, 0.25, 3.0], [0.5, -1.25, 2.5, -0.75], [4.0, 1.0, -3.5, 0.125], [-1.5, 2.25, 0.625, -2.75]]


def fn(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def state(*ts):
    """Values, grad_fn names, versions, requires_grad, view-ness, strides and offsets of some tensors."""
    return [(t, fn(t), t._version, t.requires_grad, t._is_view(), t.stride(), t.storage_offset()) for t in ts]


# ------------------------------------------------------------------------------------------------ constants
case("constants", lambda T: [T.pi, T.e, T.inf, -T.inf, T.newaxis, type(T.nan).__name__, T.nan != T.nan])
case("newaxis_index", lambda T: T.tensor(A23)[T.newaxis, :, T.newaxis].shape)

# ------------------------------------------------------------------------------------------- detach, fill, zero
case("detach_fn", lambda T: state(T.detach(T.tensor(A23, requires_grad=True) * 2)))
case("detach_fn_leaf", lambda T: state(T.detach(T.tensor(A23, requires_grad=True))))
case("detach__fn", lambda T: (lambda y: (T.detach_(y) is y, state(y)))(T.tensor(A23, requires_grad=True) * 2))
error_case("detach__fn_view", lambda T: T.detach_((T.tensor(A23, requires_grad=True) * 2)[0]))
error_case("detach_fn_type", lambda T: T.detach(1))
grad_case("fill_fn_scalar", lambda T, x: T.fill(x * 2, 3.5), A23)
grad_case("fill_fn_tensor", lambda T, x, v: T.fill(x * 2, v), A23, 1.75)
case("fill_fn_state", lambda T: state(T.fill(T.tensor(A23, requires_grad=True), 2)))
case("fill_fn_int", lambda T: T.fill(T.tensor([1, 2, 3]), 7))
error_case("fill_fn_tensor_1d", lambda T: T.fill(T.tensor(A23), T.tensor([1.0, 2.0])))
case("fill__fn", lambda T: (lambda y: (T.fill_(y, -2.5) is y, state(y)))(T.tensor(A23)))
case("fill__fn_tensor", lambda T: (lambda y: (T.fill_(y, T.tensor(4)) is y, y))(T.tensor([1, 2, 3])))
grad_case("fill__fn_grad", lambda T, x: T.fill_(x * 1, 2.0) * x, A23)
error_case("fill__fn_leaf", lambda T: T.fill_(T.tensor(A23, requires_grad=True), 2))
case("zero__fn", lambda T: (lambda y: (T.zero_(y) is y, state(y)))(T.tensor(A23)))
grad_case("zero__fn_grad", lambda T, x: (T.zero_(x * 1), x * 3), A23)
error_case("zero__fn_leaf", lambda T: T.zero_(T.tensor(A23, requires_grad=True)))
case("namespace", lambda T: [hasattr(T, n) for n in ("absolute_", "unique_dim", "abs_", "fill", "fill_", "zero_",
                                                        "detach", "detach_", "zero")]
     + [hasattr(T.Tensor, n) for n in ("absolute_", "fill", "zero", "detach_")])

# ------------------------------------------------------------------------------------------------------- ravel
cases("ravel", lambda T, how: state((T.ravel if how == "fn" else T.Tensor.ravel)(T.tensor(A234, requires_grad=True))),
      how=["fn", "method"])
grad_case("ravel_t", lambda T, x: x.ravel(), inp(A23, view=vT))
grad_case("ravel_step", lambda T, x: T.ravel(x), inp(A234, view=vstep))
case("ravel_nc_state", lambda T: state(T.tensor(A23, requires_grad=True).t().ravel()))
case("ravel_0d", lambda T: T.ravel(T.tensor(2.5)))
case("ravel_empty", lambda T: T.zeros(2, 0, 3).ravel().shape)
case("ravel_shares", lambda T: (lambda a: (a.ravel().data_ptr() == a.data_ptr(), a.t().ravel()))(T.tensor(A23)))

# ----------------------------------------------------------------------------------------------------- type_as
cases("type_as", lambda T, dtype: T.tensor(A23).type_as(T.zeros(1, dtype=dtype)), dtype=ALL)
cases("type_as_int", lambda T, dtype: T.tensor([[3, -1], [0, 7]]).type_as(T.zeros(1, dtype=dtype)), dtype=ALL)
grad_case("type_as_grad", lambda T, x: x.type_as(T.zeros(1, dtype=T.float64)), A23)
case("type_as_same", lambda T: (lambda x: (x.type_as(x) is x, state(x.type_as(T.zeros(2)))))(
    T.tensor(A23, requires_grad=True)))
error_case("type_as_bad", lambda T: T.tensor(A23).type_as(1))

# ------------------------------------------------------------------------------------------------- is_same_size
case("is_same_size", lambda T: [T.is_same_size(T.zeros(2, 3), T.ones(2, 3, dtype=T.int64)),
                                 T.zeros(2, 3).is_same_size(T.zeros(3, 2)), T.zeros(2).is_same_size(T.zeros(2, 1)),
                                 T.is_same_size(T.tensor(1.0), T.tensor(2)), T.zeros(0).is_same_size(T.zeros(0))])
error_case("is_same_size_bad", lambda T: T.is_same_size(T.zeros(2), 1))
cases("is_signed", lambda T, dtype: [T.zeros(2, dtype=dtype).is_signed(), T.is_signed(T.zeros(2, dtype=dtype))],
      dtype=ALL)
case("is_inference", lambda T: (lambda y, z: [T.is_inference(y), z.is_inference(), z[1:].is_inference(),
                                              T.zeros(2).is_inference()])(
    T.zeros(2), _inference_zeros(T)))


def _inference_zeros(T):
    with T.inference_mode():
        return T.zeros(3)


case("is_inference_view_of_normal", lambda T: _inference_view(T))


def _inference_view(T):
    x = T.zeros(3)
    with T.inference_mode():
        v = x[1:]
        y = x + 1
    return [v.is_inference(), y.is_inference(), x.is_inference()]


# ------------------------------------------------------------------------------------- __contains__, __long__
case("contains", lambda T: [2 in T.tensor([1, 2]), 3 in T.tensor([1, 2]), 2.0 in T.tensor([[1.5, 2.0]]),
                            T.tensor(2.0) in T.tensor([1, 2]), T.tensor([5, 1]) in T.tensor([1, 2]),
                            True in T.tensor([0, 1]), float("nan") in T.tensor([float("nan")])])
error_case("contains_str", lambda T: "a" in T.tensor([1, 2]))
error_case("contains_list", lambda T: [1] in T.tensor([1, 2]))
case("long_nonzero", lambda T: [T.tensor(2.7).__long__(), T.tensor([-3]).__long__(), T.tensor(0.0).__nonzero__(),
                                T.tensor([2.5]).__nonzero__(), T.tensor(True).__long__()])
error_case("nonzero_many", lambda T: T.tensor([2.7, 1.0]).__nonzero__())
error_case("long_many", lambda T: T.tensor([2.7, 1.0]).__long__())

# ---------------------------------------------------------------------------------------------------- Tensor.new
case("new_empty", lambda T: [T.tensor([1, 2]).new(), T.tensor(A23).new().shape, T.tensor(A23).new().dtype])
case("new_sizes", lambda T: [(t.shape, t.dtype) for t in (T.tensor([1, 2]).new(2, 3), T.tensor(A23).new(T.Size([4])),
                                                           T.tensor(A23, dtype=T.float64).new(0, 2))])
case("new_data", lambda T: [T.tensor([1, 2]).new((1, 2)), T.tensor(A23).new([[1, 2]]),
                            T.tensor([True]).new([0, 3]), T.tensor([1, 2]).new([])])
case("new_tensor", lambda T: (lambda s, o: (state(o), o.data_ptr() == s.new(o).data_ptr()))(T.tensor([1.0]),
                                                                                           T.tensor(A23)))
error_case("new_tensor_dtype", lambda T: T.tensor([1, 2]).new(T.tensor([5.0, 6.0])))

# ------------------------------------------------------------------------------------------- broadcast_shapes
case("broadcast_shapes", lambda T: [T.broadcast_shapes((2, 1), (3,)), T.broadcast_shapes(2, (3, 1)),
                                    T.broadcast_shapes(), T.broadcast_shapes((2,), (3, 1), (1, 1, 1)),
                                    T.broadcast_shapes(T.Size([4, 1]), [1, 5]), T.broadcast_shapes((0,), (1,)),
                                    T.broadcast_shapes((1, 0), (3, 1)), T.broadcast_shapes(None, (2,)),
                                    T.broadcast_shapes(())])
error_case("broadcast_shapes_mismatch", lambda T: T.broadcast_shapes((2,), (3,)))
error_case("broadcast_shapes_mismatch2", lambda T: T.broadcast_shapes((2, 3), (4, 1, 1), (5, 1)))
error_case("broadcast_shapes_negative", lambda T: T.broadcast_shapes((-1,)))
error_case("broadcast_shapes_type", lambda T: T.broadcast_shapes(2.5))

# ---------------------------------------------------------------------------------------------- unravel_index
case("unravel_index", lambda T: [T.unravel_index(T.tensor(4), (3, 2)), T.unravel_index(T.tensor([4, 1]), (3, 2)),
                                  T.unravel_index(T.tensor([[1234], [5678]]), (10, 10, 10, 10)),
                                  T.unravel_index(T.tensor([5, 2], dtype=T.int32), 7),
                                  T.unravel_index(T.tensor([-1, 7]), T.Size([2, 3])),
                                  T.unravel_index(T.tensor([], dtype=T.int64), (2, 2))])
error_case("unravel_index_float", lambda T: T.unravel_index(T.tensor([1.0]), (2, 2)))
error_case("unravel_index_bool", lambda T: T.unravel_index(T.tensor([True]), (2, 2)))
error_case("unravel_index_shape_type", lambda T: T.unravel_index(T.tensor([1]), 2.5))
error_case("unravel_index_shape_elem", lambda T: T.unravel_index(T.tensor([1]), (2, 2.5)))
error_case("unravel_index_negative", lambda T: T.unravel_index(T.tensor([1]), (2, -2)))

# ------------------------------------------------------------------------------------------- hsplit / vsplit / dsplit
SPLITS = {"h": (lambda T: T.hsplit, lambda t: t.hsplit), "v": (lambda T: T.vsplit, lambda t: t.vsplit),
          "d": (lambda T: T.dsplit, lambda t: t.dsplit)}
cases("nsplit_sections", lambda T, which, how: [state(t) for t in (
    SPLITS[which][0](T)(T.tensor(A234, requires_grad=True) * 1, 2 if which != "h" else 3) if how == "fn" else
    SPLITS[which][1](T.tensor(A234, requires_grad=True) * 1)(2 if which != "h" else 3))], which=list(SPLITS),
      how=["fn", "method"])
cases("nsplit_indices", lambda T, which, idx: [state(t) for t in SPLITS[which][0](T)(T.tensor(A234), idx)],
      which=list(SPLITS), idx=[[1], [1, 2], [0, 5], [2, 1], [-1], []])
cases("nsplit_grad", lambda T, x, which: SPLITS[which][0](T)(x, [1]), A234, kind="grad", which=list(SPLITS))
case("hsplit_1d", lambda T: [T.hsplit(T.tensor([1.5, 2.0, 3.0, 4.0, 5.0, 6.0]), 3),
                             T.tensor([1.0, 2.0, 3.0]).hsplit([1])])
case("hsplit_2d", lambda T: T.hsplit(T.tensor(A23), 3))
case("vsplit_nc", lambda T: T.vsplit(nc_t(T, A23), 3))
error_case("hsplit_0d", lambda T: T.hsplit(T.tensor(1.0), 1))
error_case("hsplit_0d_array", lambda T: T.hsplit(T.tensor(1.0), [1]))
error_case("hsplit_indivisible", lambda T: T.hsplit(T.tensor(A234), 2))
error_case("hsplit_zero", lambda T: T.hsplit(T.tensor(A234), 0))
error_case("hsplit_negative", lambda T: T.hsplit(T.tensor(A234), -1))
error_case("hsplit_1d_indivisible", lambda T: T.hsplit(T.zeros(6), 4))
error_case("vsplit_1d", lambda T: T.vsplit(T.zeros(5), 1))
error_case("vsplit_indivisible", lambda T: T.vsplit(T.tensor(A234), 3))
error_case("dsplit_2d", lambda T: T.dsplit(T.zeros(2, 2), 1))
error_case("dsplit_2d_array", lambda T: T.dsplit(T.zeros(2, 2), [1]))
error_case("dsplit_indivisible", lambda T: T.dsplit(T.tensor(A234), 3))
error_case("hsplit_type", lambda T: T.hsplit(T.tensor(A234), 1.5),
           match=r"^hsplit\(\) received an invalid combination of arguments - got \(Tensor, float\), but expected one of:")

# ----------------------------------------------------------------------------------------- tril / triu indices
TRI_ARGS = [(3, 4, 0), (4, 3, 0), (3, 4, 1), (4, 3, -1), (4, 3, 2), (3, 4, -5), (3, 4, 10), (3, 4, -10), (0, 3, 0),
            (3, 0, 0), (1, 1, 0), (5, 5, -2), (2, 6, 3)]
cases("tril_indices", lambda T, args: T.tril_indices(*args), args=TRI_ARGS)
cases("triu_indices", lambda T, args: T.triu_indices(*args), args=TRI_ARGS)
cases("tri_indices_dtype", lambda T, which, dtype: getattr(T, which)(4, 3, 1, dtype=dtype),
      kind=lambda which, dtype: "value" if dtype in (D.int32, D.int64) else "error",
      which=["tril_indices", "triu_indices"], dtype=ALL)
case("tri_indices_kw", lambda T: [T.tril_indices(row=3, col=3, offset=-1), T.triu_indices(3, 3, dtype=None),
                                  T.tril_indices(2, 2, device="cpu")])
error_case("tril_indices_neg_row", lambda T: T.tril_indices(-1, 4))
error_case("triu_indices_neg_col", lambda T: T.triu_indices(3, -2))
error_case("tril_indices_requires_grad", lambda T: T.tril_indices(3, 4, requires_grad=True))
case("tril_indices_requires_grad_false", lambda T: T.tril_indices(3, 4, requires_grad=False))

# ------------------------------------------------------------------------------------------- resize_ / resize_as_
def _resize(T, sizes, base=None):
    a = T.arange(6.0) if base is None else base
    r = a.resize_(*sizes)
    return r is a, a.shape, a.stride(), a._version, a.reshape(-1)[: min(a.numel(), 6)]


cases("resize_", _resize, sizes=[((2, 2),), ((3, 2),), ([3, 2],), (2, 3), (6,), (1,), (0,), (2, 0, 3)])
case("resize_size", lambda T: _resize(T, (T.Size([3, 2]),)))
case("resize_same_keeps_strides", lambda T: (lambda t: (t.resize_(3, 2), t.stride(), t._version))(T.zeros(2, 3).t()))
case("resize_new_strides", lambda T: (lambda t: (t.resize_(2, 3), t.stride()))(T.zeros(2, 3).t()))
case("resize_view_grows_storage", lambda T: _resize_view(T))


def _resize_view(T):
    b = T.arange(6.0)
    c = b[2:]
    c.resize_(10)
    c[6:] = 0.0
    return b.shape, c[:4], c.storage_offset(), c.stride(), c.shape, b._version


case("resize_view_shrink", lambda T: (lambda b: (lambda c: (c.resize_(2, 2), b))(b[1:5]))(T.arange(6.0)))
case("resize_step_same", lambda T: (lambda c: (c.resize_(3), c.stride(), c._is_view()))(T.arange(6.0)[::2]))
case("resize_grow_int", lambda T: (lambda t: (t.resize_(2, 2)[0], t.shape, t.dtype))(T.tensor([7, -3], dtype=T.int16)))
case("resize_no_grad_leaf_other", lambda T: T.zeros(2, requires_grad=False).resize_(3).shape)
error_case("resize_requires_grad", lambda T: T.tensor(A23, requires_grad=True).resize_(3))
error_case("resize_requires_grad_same", lambda T: T.tensor(A23, requires_grad=True).resize_(2, 3))
error_case("resize_nonleaf", lambda T: (T.tensor(A23, requires_grad=True) * 1).resize_(2, 3))
error_case("resize_view_nonleaf", lambda T: (T.tensor(A23, requires_grad=True) * 1)[0].resize_(2))
error_case("resize_neg", lambda T: T.zeros(2).resize_(-1))
error_case("resize_neg2", lambda T: T.zeros(2).resize_(2, -1))
error_case("resize_overflow", lambda T: T.zeros(2).resize_(1 << 40, 1 << 40))
error_case("resize_storage_overflow", lambda T: T.zeros(2).resize_(1 << 62))
error_case("resize_no_grad_still", lambda T: _resize_no_grad(T))


def _resize_no_grad(T):
    a = T.zeros(2, requires_grad=True)
    with T.no_grad():
        a.resize_(3)


case("resize_as_", lambda T: [(lambda a: (a.resize_as_(t) is a, a.shape, a.stride(), a.dtype))(T.arange(6.0))
                              for t in (T.zeros(3, 1), T.zeros(3, 1, dtype=T.int32), T.zeros(0), T.zeros(2, 2, 2))])
case("resize_as__fn", lambda T: (lambda a: (T.resize_as_(a, T.zeros(2, 2)) is a, a))(T.arange(6.0)))
case("resize_as__template_grad", lambda T: T.arange(6.0).resize_as_(T.tensor(A23, requires_grad=True)))
error_case("resize_as__requires_grad", lambda T: T.tensor(A23, requires_grad=True).resize_as_(T.zeros(3)))
error_case("resize_as__bad", lambda T: T.arange(6.0).resize_as_([1, 2]))

# ----------------------------------------------------------------------------------------------------- as_strided_
case("as_strided_", lambda T: (lambda a: (a.as_strided_((2, 2), (1, 2)) is a, state(a)))(T.arange(6.0)))
case("as_strided__fn", lambda T: (lambda a: (T.as_strided_(a, (2, 2), (1, 2), 1) is a, state(a)))(T.arange(6.0)))
case("as_strided__kw", lambda T: state(T.arange(6.0).as_strided_(size=[3], stride=[2], storage_offset=1)))
grad_case("as_strided__grad", lambda T, x: (x * 2).as_strided_((2, 2), (1, 3), 1), A23)
grad_case("as_strided__view_grad", lambda T, x: (x * 2)[1:].as_strided_((2,), (2,), 1), A23)
case("as_strided__state", lambda T: state((T.tensor(A23, requires_grad=True) * 2).as_strided_((2,), (2,), 1),
                                          (T.tensor(A23, requires_grad=True) * 2)[1].as_strided_((2,), (2,), 1)))
grad_case("as_strided__grad_twice_used", lambda T, x: ((y := x * x).as_strided_((3,), (2,), 0), y * x.reshape(-1)[:3])[1],
          A23)
error_case("as_strided__leaf", lambda T: T.tensor(A23, requires_grad=True).as_strided_((2,), (1,)))
error_case("as_strided__oob", lambda T: T.arange(6.0).as_strided_((2, 2), (1, 2), 10))
error_case("as_strided__negative", lambda T: T.arange(6.0).as_strided_((2, 2), (1, -2)))
error_case("as_strided__len", lambda T: T.arange(6.0).as_strided_((2, 2), (1,)))

# ------------------------------------------------------------------------------------------------- fill_diagonal_
FD_SHAPES = [(3, 4), (4, 3), (7, 3), (3, 3, 3), (1, 1, 1, 1), (2, 2), (5, 1), (1, 5), (0, 0)]
cases("fill_diagonal_", lambda T, shape, wrap: (lambda t: (t.fill_diagonal_(-2.5, wrap) is t, t))(T.zeros(*shape)),
      shape=FD_SHAPES, wrap=BOOLS)
cases("fill_diagonal_dtype", lambda T, dtype: T.zeros(3, 4, dtype=dtype).fill_diagonal_(2.5 if dtype in FLOATS else 2),
      dtype=ALL)
case("fill_diagonal_int_float_value", lambda T: T.zeros(3, 4, dtype=T.int32).fill_diagonal_(2.5))
case("fill_diagonal_uint8_neg", lambda T: T.zeros(2, 3, dtype=T.uint8).fill_diagonal_(-1))
_FILL_BAD = {(D.uint8, n, v) for n in (1, 2) for v in (1e6, 300, 1e39)} | {(D.int8, n, v) for n in (1, 2) for v in (
    1e6, 300, -200, 1e39)} | {(D.float32, n, 1e39) for n in (1, 2)} | {(D.float16, 2, 1e6), (D.float16, 2, 1e39)}
cases("fill_overflow", lambda T, dtype, n, v: T.zeros(n, dtype=dtype).fill_(v),
      kind=lambda dtype, n, v: "error" if (dtype, n, v) in _FILL_BAD else "value",
      dtype=[D.float16, D.uint8, D.int8, D.float32], n=[1, 2], v=[1e6, 300, -200, 1e39])
case("fill_tensor_no_overflow_check", lambda T: T.zeros(2, dtype=T.uint8).fill_(T.tensor(300)))
case("fill_diagonal_bool", lambda T: T.zeros(3, 4, dtype=T.bool).fill_diagonal_(True))
case("fill_diagonal_t", lambda T: state(T.zeros(4, 3).t().fill_diagonal_(2)))
case("fill_diagonal_t_wrap", lambda T: T.zeros(3, 7).t().fill_diagonal_(2, wrap=True))
case("fill_diagonal_offset", lambda T: (lambda b: (b[1:].fill_diagonal_(9), b))(T.zeros(4, 3)))
case("fill_diagonal_kw", lambda T: T.zeros(5, 2).fill_diagonal_(fill_value=1.5, wrap=True))
grad_case("fill_diagonal_grad", lambda T, x: (x * 1).fill_diagonal_(7.0) * x, A44)
grad_case("fill_diagonal_wrap_grad", lambda T, x: (x.reshape(6, 2) * 1).fill_diagonal_(3.0, True), A23 + A23)
case("fill_diagonal_state", lambda T: state((T.tensor(A44, requires_grad=True) * 1).fill_diagonal_(7.0)))
error_case("fill_diagonal_1d", lambda T: T.zeros(3).fill_diagonal_(2))
error_case("fill_diagonal_unequal", lambda T: T.zeros(3, 3, 2).fill_diagonal_(2))
error_case("fill_diagonal_leaf", lambda T: T.zeros(3, 3, requires_grad=True).fill_diagonal_(2))
error_case("fill_diagonal_overflow", lambda T: T.zeros(2, 3, dtype=T.uint8).fill_diagonal_(300))

# =============================================================================================== group 2: maths
B23 = [[0.75, 2.5, -0.5], [-1.0, 4.0, 1.25]]
V3 = [1.5, -2.0, 0.25]
W3 = [0.5, 3.0, -1.75]
NUMS = [-2.5, -1.0, 0.0, 0.5, 3.0, 7.25]
INTVALS = [[0, -4, 12, 7, 9], [15, 6, -18, 0, -3]]


def _t(T, data, dtype):
    return T.tensor(data).to(dtype)


# ---------------------------------------------------------------------------------------------------- heaviside
cases("heaviside", lambda T, dtype: T.heaviside(_t(T, [-1.5, 0.0, 2.0, 0.0, -0.0], dtype), _t(T, [0.5, 2.0, 0.0, 1.0, 3.0], dtype)),
      dtype=ALL)
case("heaviside_nan_inf", lambda T: T.heaviside(T.tensor([float("nan"), float("inf"), -float("inf"), 0.0]),
                                                T.tensor([0.5])))
case("heaviside_spellings", lambda T: (lambda x, v: [x.heaviside(v), T.heaviside(x, v, out=T.empty(0)),
                                                     x.clone().heaviside_(v)])(T.tensor(A23), T.tensor([0.5, -1.0, 2.0])))
case("heaviside_broadcast_nc", lambda T: T.heaviside(nc_t(T, [[0.0, 1.0], [-2.0, 0.0], [3.0, 0.0]]), T.tensor([[7.0], [9.0]])))
error_case("heaviside_dtypes", lambda T: T.heaviside(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)))
error_case("heaviside_scalar", lambda T: T.heaviside(T.tensor([1.0]), 2))
error_case("heaviside_backward", lambda T: T.heaviside(T.tensor(V3, requires_grad=True), T.tensor([0.5])).sum().backward())
case("heaviside_grad_fn", lambda T: fn(T.heaviside(T.tensor(V3, requires_grad=True), T.tensor([0.5]))))

# --------------------------------------------------------------------------------------------------- gcd / lcm
cases("gcd_lcm", lambda T, op, dtype: getattr(T, op)(_t(T, INTVALS[0], dtype), _t(T, INTVALS[1], dtype)),
      kind=lambda op, dtype: "value" if dtype in INTS else "error", op=["gcd", "lcm"], dtype=ALL)
case("gcd_lcm_extremes", lambda T: [T.gcd(T.tensor([-9223372036854775808, -9223372036854775808, 5]),
                                          T.tensor([2, 0, -9223372036854775808])),
                                    T.lcm(T.tensor([100, -128, 3], dtype=T.int8), T.tensor([3, 1, -128], dtype=T.int8)),
                                    T.gcd(T.tensor([0]), T.tensor([0])), T.lcm(T.tensor([0, 4]), T.tensor([0, 0]))])
case("gcd_lcm_spellings", lambda T: (lambda a, b: [a.gcd(b), a.lcm(b), a.clone().gcd_(b), a.clone().lcm_(b),
                                                   T.gcd_(a.clone(), b), T.lcm_(a.clone(), b),
                                                   T.gcd(a, b, out=T.empty(0, dtype=T.int64)), T.lcm(a, b[0])])(
    T.tensor([[12, -18], [7, 0]]), T.tensor([[8, 4], [-21, 5]])))
case("gcd_promote", lambda T: [T.gcd(T.tensor([12], dtype=T.int32), T.tensor([18])),
                               T.lcm(T.tensor([4], dtype=T.uint8), T.tensor([6], dtype=T.int8))])
error_case("gcd_float", lambda T: T.gcd(T.tensor([4.0]), T.tensor([2])))

# --------------------------------------------------------------------------------------------------- nextafter
cases("nextafter", lambda T, dtype: T.nextafter(_t(T, [1.0, 0.0, -2.0, 3.0, 0.0, 5.0], dtype),
                                                _t(T, [2.0, -1.0, -3.0, 3.0, 1.0, float("nan")], dtype)),
      kind=lambda dtype: "value" if dtype in FLOATS else "error", dtype=ALL, rtol=0, atol=0)
case("nextafter_diff", lambda T: [(T.nextafter(T.tensor([1.0]), T.tensor([2.0])) - 1).item(),
                                  (T.nextafter(T.tensor([1.0], dtype=T.float64), T.tensor([0.0], dtype=T.float64)) - 1).item(),
                                  T.nextafter(T.tensor([0.0]), T.tensor([1.0])).item(),
                                  T.nextafter(T.tensor([0.0], dtype=T.float16), T.tensor([-1.0], dtype=T.float16)).item(),
                                  T.nextafter(T.tensor([65504.0], dtype=T.float16), T.tensor([float("inf")], dtype=T.float16)).item(),
                                  T.nextafter(T.tensor([1.0], dtype=T.bfloat16), T.tensor([2.0], dtype=T.bfloat16)).item()])
case("nextafter_spellings", lambda T: (lambda a, b: [a.nextafter(b), a.clone().nextafter_(b), T.nextafter(a, b, out=T.empty(2))])(
    T.tensor([1.0, -1.0]), T.tensor([0.0])))
case("nextafter_promote", lambda T: T.nextafter(T.tensor([1.0]), T.tensor([2])).dtype)
grad_case("nextafter_grad", lambda T, x, y: T.nextafter(x, y), V3, W3)

# ---------------------------------------------------------------------------------------------------- ldexp
cases("ldexp", lambda T, dtype: T.ldexp(_t(T, [1.5, -2.0, 0.0, 3.0], dtype), T.tensor([3, -1, 5, 0])), dtype=ALL)
cases("ldexp_other_dtype", lambda T, dtype: T.ldexp(T.tensor([1.5, -2.0]), _t(T, [2, 1], dtype)),
      kind=lambda dtype: "error" if dtype == D.bool else "value", dtype=ALL)
case("ldexp_spellings", lambda T: (lambda a, e: [a.ldexp(e), a.clone().ldexp_(e), T.ldexp_(a.clone(), e),
                                                 T.ldexp(a, e, out=T.empty(2))])(T.tensor([1.5, -2.0]), T.tensor([2, 3])))
case("ldexp_overflow", lambda T: [T.ldexp(T.tensor([1.0, 2.0], dtype=T.float16), T.tensor([100, 2])),
                                  T.ldexp(T.tensor([1.0]), T.tensor([1.5])), T.ldexp(T.tensor([3]), T.tensor([2]))])
grad_case("ldexp_grad", lambda T, x, e: T.ldexp(x, e), V3, W3)
grad_case("ldexp_grad_int_exp", lambda T, x, e: T.ldexp(x, e), V3, raw(lambda T: T.tensor([2, -1, 3])))
grad_case("ldexp_grad2", lambda T, x, e: T.ldexp(x * x, e), V3, [0.5, 1.5, -1.0], order=2)
error_case("ldexp_inplace_int", lambda T: T.tensor([1, 2]).ldexp_(T.tensor([1, 1])))

# ---------------------------------------------------------------------------------------------------- frexp
cases("frexp", lambda T, dtype: T.frexp(_t(T, [0.0, -3.5, 1.0, 1e-3, 1234.5, -0.0], dtype)),
      kind=lambda dtype: "value" if dtype in FLOATS else "error", dtype=ALL)
case("frexp_special", lambda T: T.frexp(T.tensor([float("inf"), -float("inf"), float("nan"), 1e-40, 3e38])))
case("frexp_spellings", lambda T: (lambda x: [x.frexp(), T.frexp(x, out=(T.empty(0), T.empty(0, dtype=T.int32))),
                                              tuple(T.frexp(x)._fields) if hasattr(T.frexp(x), "_fields") else None,
                                              T.frexp(x).mantissa, T.frexp(x).exponent])(T.tensor(A23)))
grad_case("frexp_grad", lambda T, x: T.frexp(x), [[1.5, -2.0, 0.25], [3.0, 0.0, -100.0]])
case("frexp_state", lambda T: (lambda m, e: (fn(m), e.requires_grad, e.grad_fn))(*T.frexp(T.tensor(V3, requires_grad=True))))

# ------------------------------------------------------------------------------------------------------- i0
cases("i0", lambda T, dtype: T.i0(_t(T, [0.0, 1.0, -3.5, 2.0, 10.0, -20.0], dtype)), dtype=ALL, rtol=2e-6)
case("i0_large", lambda T: [T.i0(T.tensor([50.0, 85.0, 89.0, 100.0, float("inf"), float("nan")])),
                            T.i0(T.tensor([50.0, 300.0, 700.0, 720.0], dtype=T.float64))], rtol=1e-5)
case("i0_spellings", lambda T: (lambda x: [x.i0(), x.clone().i0_(), T.i0_(x.clone()), T.i0(x, out=T.empty(0))])(
    T.tensor(A23)))
grad_case("i0_grad", lambda T, x: T.i0(x), [[1.5, -2.0, 0.0], [3.0, 0.5, -12.0]])
grad_case("i0_grad2", lambda T, x: T.i0(x), [[1.5, -2.0, 0.0], [3.0, 0.5, -7.0]], order=2)
grad_case("i0_grad2_f64", lambda T, x: T.i0(x), inp([0.0, 2.5, -30.0], dtype=D.float64), order=2)
error_case("i0_inplace_int", lambda T: T.tensor([1, 2]).i0_())

# ----------------------------------------------------------------------------------------- cross / linalg.cross
cases("cross_dtype", lambda T, dtype: T.linalg.cross(_t(T, [[1, 2, 3], [4, 5, 6]], dtype), _t(T, [[7, -8, 9], [0, 2, -1]], dtype)),
      kind=lambda dtype: "error" if dtype == D.bool else "value", dtype=ALL)
cases("cross_dim", lambda T, dim: T.cross(T.tensor(A234).transpose(0, 1).reshape(3, 2, 4)[:, :, :3].contiguous()
                                           if False else T.tensor([[1.5, 2.0], [-3.0, 0.5], [0.25, 4.0]]),
                                           T.tensor([[0.5, -1.0], [2.0, 3.0], [-1.5, 0.75]]), dim=dim),
      dim=[0, -2])
case("cross_spellings", lambda T: (lambda a, b: [a.cross(b, dim=1), T.cross(a, b, 1), T.linalg.cross(a, b),
                                                 T.linalg.cross(a, b, dim=-1), T.cross(a, b, dim=1, out=T.empty(0)),
                                                 T.linalg.cross(a, b, out=T.empty(2, 3))])(T.tensor(A23), T.tensor(B23)))
case("cross_default_dim", lambda T: [T.cross(T.tensor([[1.5, 2.0, 3.0], [1.0, -1.0, 0.5], [2.0, 2.5, -3.0]]),
                                             T.tensor([[0.5, 1.0, -2.0], [3.0, 0.25, 1.0], [-1.0, 1.5, 2.0]]))])
case("cross_broadcast", lambda T: [T.linalg.cross(T.tensor(A23), T.tensor([B23[0]])), T.cross(T.tensor(A23), T.tensor([V3]), dim=1)])
case("cross_nc", lambda T: T.linalg.cross(nc_t(T, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), nc_t(T, [[0.5, 1.5], [-1.0, 2.0], [3.0, -2.5]])))
case("cross_empty", lambda T: T.linalg.cross(T.zeros(0, 3), T.zeros(0, 3)).shape)
case("cross_half_int_vals", lambda T: T.cross(T.tensor([1, 2, 3], dtype=T.float16), T.tensor([4.0, 5, 6], dtype=T.float16), dim=0))
grad_case("cross_grad", lambda T, a, b: T.linalg.cross(a, b), A23, B23)
grad_case("cross_grad_bcast", lambda T, a, b: T.cross(a, b, dim=1), A23, [V3])
grad_case("cross_grad_dim0", lambda T, a, b: T.cross(a, b, dim=0), inp(A23, view=vT), inp(B23, view=vT))
grad_case("cross_grad2", lambda T, a, b: T.linalg.cross(a * a, b), A23, B23, order=2)
error_case("cross_len", lambda T: T.linalg.cross(T.zeros(2, 2), T.zeros(2, 2)))
error_case("cross_len_dim", lambda T: T.cross(T.zeros(2, 4), T.zeros(2, 4), dim=1))
error_case("cross_ndim", lambda T: T.linalg.cross(T.zeros(2, 3), T.zeros(3)))
error_case("cross_ndim2", lambda T: T.cross(T.zeros(2, 3), T.zeros(3), dim=1))
error_case("cross_dtype_mismatch", lambda T: T.linalg.cross(T.tensor([1, 2, 3]), T.tensor([4.0, 5, 6])))
error_case("cross_no_3", lambda T: T.cross(T.zeros(2, 4), T.zeros(2, 4)))
error_case("cross_dim_range", lambda T: T.cross(T.zeros(2, 3), T.zeros(2, 3), dim=2))
error_case("cross_mismatch_default", lambda T: T.cross(T.zeros(3, 2), T.zeros(2, 3)))
error_case("cross_bool", lambda T: T.linalg.cross(T.tensor([True, False, True]), T.tensor([True, True, False])))

# ---------------------------------------------------------------------------------------------------------- diff
cases("diff_dtype", lambda T, dtype: T.diff(_t(T, [[1, 3, 6, 10], [2, 0, 5, 1]], dtype)), dtype=ALL)
cases("diff_n_dim", lambda T, n, dim: T.diff(T.tensor(A234), n=n, dim=dim), n=[0, 1, 2, 3, 5], dim=dims(3))
case("diff_prepend_append", lambda T: [T.diff(T.tensor([1, 3, 6]), prepend=T.tensor([0.5])),
                                       T.diff(T.tensor([[1, 3, 6]]), dim=0, append=T.tensor([[0, 0, 0]])),
                                       T.diff(T.tensor([1, 3, 6]), prepend=T.tensor([2.0]), n=2),
                                       T.diff(T.tensor([True, False]), n=2, prepend=T.tensor([True])),
                                       T.diff(T.tensor(A23), append=T.tensor(B23), prepend=T.tensor([[1.0], [2.0]])),
                                       T.diff(T.tensor([1, 3, 6]), n=0, prepend=T.tensor([9]))])
case("diff_spellings", lambda T: (lambda x: [x.diff(), x.diff(1, 0), T.diff(x, dim=0, out=T.empty(0))])(T.tensor(A23)))
case("diff_nc", lambda T: T.diff(nc_t(T, A23)))
case("diff_empty", lambda T: [T.diff(T.zeros(0)).shape, T.diff(T.zeros(2, 0), dim=1).shape, T.diff(T.zeros(1)).shape])
case("diff_state", lambda T: [state(T.diff(T.tensor(V3, requires_grad=True))),
                              state(T.diff(T.tensor(V3, requires_grad=True), n=0))])
grad_case("diff_grad", lambda T, x: T.diff(x, n=2, dim=1), A234)
grad_case("diff_grad_prepend", lambda T, x, p: T.diff(x, prepend=p, dim=0), A23, [V3])
grad_case("diff_grad_append_nc", lambda T, x, a: T.diff(x, append=a), inp(A23, view=vT), [[0.5], [1.0], [-2.0]])
error_case("diff_0d", lambda T: T.diff(T.tensor(3.0)))
error_case("diff_neg_n", lambda T: T.diff(T.tensor([1, 3]), n=-1))
error_case("diff_prepend_dims", lambda T: T.diff(T.tensor([[1, 3, 6]]), append=T.tensor([0, 0])))
error_case("diff_prepend_0d", lambda T: T.diff(T.tensor([1, 3, 6]), prepend=T.tensor(2)))
error_case("diff_dim", lambda T: T.diff(T.tensor([1, 3, 6]), dim=1))
error_case("diff_prepend_shape", lambda T: T.diff(T.tensor(A23), prepend=T.zeros(3, 1)))

# ----------------------------------------------------------------------------------------------------------- addr
cases("addr_dtype", lambda T, dtype: T.addr(_t(T, [[1, 0, 2], [3, 1, 0]], dtype), _t(T, [1, 2], dtype), _t(T, [3, 0, 1], dtype)),
      dtype=ALL)
cases("addr_beta_alpha", lambda T, beta, alpha: T.addr(T.tensor(A23), T.tensor([1.5, -2.0]), T.tensor(W3), beta=beta, alpha=alpha),
      beta=[1, 0, 0.5, -2], alpha=[1, 2.5, 0])
case("addr_int_scalars", lambda T: [T.addr(T.ones(2, 3, dtype=T.int64), T.tensor([1, 2]), T.tensor([3, 4, 5]), alpha=2, beta=3),
                                    T.addr(T.ones(2, 3, dtype=T.uint8), T.tensor([1, 2], dtype=T.uint8),
                                           T.tensor([200, 4, 5], dtype=T.uint8), alpha=3),
                                    T.addr(T.ones(2, 3, dtype=T.bool), T.tensor([True, False]), T.tensor([True, True, False]), beta=2),
                                    T.addr(T.zeros(2, 3, dtype=T.bool), T.tensor([True, False]), T.tensor([True, True, False]),
                                           beta=False, alpha=True)])
case("addr_spellings", lambda T: (lambda m, a, b: [m.addr(a, b), T.addr(m, a, b, out=T.empty(0)), m.clone().addr_(a, b, beta=2),
                                                   T.addr(T.tensor(1.5), a, b), T.addr(T.tensor([[1.0], [2.0]]), a, b),
                                                   T.addr(m, a.int(), b), T.addr(m * float("nan"), a, b, beta=0)])(
    T.tensor(A23), T.tensor([1.5, -2.0]), T.tensor(W3)))
case("addr_nc", lambda T: T.addr(nc_t(T, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), nc_step(T, [1.0, 9.0, 2.0, 9.0]),
                                 nc_step(T, [0.5, 9.0, 1.5, 9.0, -2.0, 9.0])))
grad_case("addr_grad", lambda T, m, a, b: T.addr(m, a, b, beta=0.5, alpha=-2.0), A23, [1.5, -2.0], W3)
grad_case("addr_grad_bcast", lambda T, m, a, b: T.addr(m, a, b), [[1.5], [2.0]], [1.5, -2.0], W3)
grad_case("addr_grad2", lambda T, m, a, b: T.addr(m, a * a, b), A23, [1.5, -2.0], W3, order=2)
grad_case("addr__grad", lambda T, m, a, b: (m * 1).addr_(a, b, alpha=3), A23, [1.5, -2.0], W3)
error_case("addr_vec1_2d", lambda T: T.addr(T.ones(2, 3), T.ones(2, 1), T.ones(3)))
error_case("addr_vec2_0d", lambda T: T.addr(T.ones(2, 3), T.ones(2), T.tensor(1.0)))
error_case("addr_shape", lambda T: T.addr(T.ones(2, 3), T.ones(2), T.ones(2)))
error_case("addr__shape", lambda T: T.ones(1, 3).addr_(T.ones(2), T.ones(3)))
error_case("addr_alpha_float_int", lambda T: T.addr(T.ones(2, 3, dtype=T.int64), T.tensor([1, 2]), T.tensor([3, 4, 5]), alpha=2.5))
error_case("addr_beta_float_int", lambda T: T.addr(T.ones(2, 3, dtype=T.int64), T.tensor([1, 2]), T.tensor([3, 4, 5]), beta=2.5))
error_case("addr_beta_bool", lambda T: T.addr(T.ones(2, 3), T.ones(2), T.ones(3), beta=True))

# ----------------------------------------------------------------------------------------------------------- dist
cases("dist_p", lambda T, p: T.dist(T.tensor(A23), T.tensor([0.5, -1.0, 2.0]), p),
      p=[2, 1, 0, float("inf"), -float("inf"), 3.5, -1, 0.5])
cases("dist_dtype", lambda T, dtype: T.dist(_t(T, A23, dtype), _t(T, B23, dtype)),
      kind=lambda dtype: "value" if dtype in FLOATS else "error", dtype=ALL)
case("dist_spellings", lambda T: (lambda a, b: [a.dist(b), a.dist(b, p=1), T.dist(a, b, 3), T.dist(a, b.double()),
                                                T.dist(a[0], b[0]), T.dist(T.zeros(0), T.zeros(0))])(T.tensor(A23), T.tensor(B23)))
cases("dist_grad", lambda T, a, b, p: T.dist(a, b, p), A23, [[0.5, -1.0, 2.0]], kind="grad", p=[2, 1, float("inf"), 3.5])
grad_case("dist_grad_p0_self_only", lambda T, a, b: T.dist(a, b, 0), A23, const([[0.5, -1.0, 2.0]]))
error_case("dist_grad_p0", lambda T: T.dist(T.tensor(A23, requires_grad=True), T.tensor(B23, requires_grad=True), 0).backward())
grad_case("dist_grad2", lambda T, a, b: T.dist(a, b), A23, B23, order=2)
error_case("dist_shape", lambda T: T.dist(T.zeros(2, 2), T.zeros(3)))

# ------------------------------------------------------------------------------------------ searchsorted / bucketize
SEQ = [1.0, 3.0, 5.0, 7.0, 9.0]
VALS = [[3.0, 6.0, 9.0], [0.5, 10.0, 5.0]]
cases("searchsorted", lambda T, right, out_int32: T.searchsorted(T.tensor(SEQ), T.tensor(VALS), right=right, out_int32=out_int32),
      right=BOOLS, out_int32=BOOLS)
cases("searchsorted_side", lambda T, side: T.searchsorted(T.tensor(SEQ), T.tensor(VALS), side=side), side=["left", "right"])
cases("searchsorted_dtype", lambda T, dtype: T.searchsorted(_t(T, [1, 3, 5, 7], dtype), _t(T, [[0, 3, 4], [7, 8, 5]], dtype)),
      kind=lambda dtype: "error" if dtype == D.bool else "value", dtype=ALL)
case("searchsorted_forms", lambda T: [T.searchsorted(T.tensor(SEQ), 5), T.searchsorted(T.tensor(SEQ), 5.5, out_int32=True),
                                      T.searchsorted(T.tensor(SEQ), 5, right=True),
                                      T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([[3], [3]])),
                                      T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([[3, 6, 0], [3, 7, 4]]), side="right"),
                                      T.searchsorted(T.tensor([1, 3, 5]), T.tensor([3.5, 4])),
                                      T.searchsorted(T.tensor([1, 3]), T.tensor(3)),
                                      T.searchsorted(T.tensor([1, 3, 5]), T.tensor([3]).half()),
                                      T.searchsorted(T.tensor([1.0, 3, float("nan")]), T.tensor([float("nan"), 4, 1])),
                                      T.searchsorted(T.tensor([1.0, 3, float("nan")]), T.tensor([float("nan"), 4, 1]), right=True),
                                      T.searchsorted(T.tensor([1, 1, 1, 2]), T.tensor([1]), side="right"),
                                      T.searchsorted(T.tensor([]), T.tensor([1.0])),
                                      T.searchsorted(T.tensor([1.0, 2.0]), T.tensor([]))])
case("searchsorted_sorter", lambda T: [T.searchsorted(T.tensor([5, 1, 3]), T.tensor([3, 4, 0, 6]), sorter=T.tensor([1, 2, 0])),
                                       T.searchsorted(T.tensor([5, 1, 3]), T.tensor([3, 4]), sorter=T.tensor([1, 2, 0]), right=True),
                                       T.searchsorted(T.tensor([[5, 1, 3], [0, 9, 4]]), T.tensor([[3], [5]]),
                                                      sorter=T.tensor([[1, 2, 0], [0, 2, 1]]))])
case("searchsorted_nc", lambda T: T.searchsorted(nc_step(T, [1.0, 0.0, 3.0, 0.0, 5.0, 0.0]), nc_t(T, [[0.5, 4.0], [3.0, 9.0]])))
error_case("searchsorted_side_right", lambda T: T.searchsorted(T.tensor(SEQ), T.tensor(VALS), side="left", right=True))
error_case("searchsorted_side_bad", lambda T: T.searchsorted(T.tensor(SEQ), T.tensor(VALS), side="middle"))
error_case("searchsorted_dims", lambda T: T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([3, 3])))
error_case("searchsorted_dims2", lambda T: T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([[3], [3], [4]])))
error_case("searchsorted_0d", lambda T: T.searchsorted(T.tensor(1), T.tensor([3])))
error_case("searchsorted_scalar_2d", lambda T: T.searchsorted(T.tensor([[1, 3]]), T.tensor(3)))
error_case("searchsorted_sorter_size", lambda T: T.searchsorted(T.tensor([5, 1, 3]), T.tensor([3]), sorter=T.tensor([1, 2])))
error_case("searchsorted_sorter_range", lambda T: T.searchsorted(T.tensor([5, 1, 3]), T.tensor([3]), sorter=T.tensor([1, 2, 5])))
error_case("searchsorted_sorter_dtype", lambda T: T.searchsorted(T.tensor([1, 3]), T.tensor([3]), sorter=T.tensor([0, 1], dtype=T.int32)))
cases("bucketize", lambda T, right, out_int32: T.bucketize(T.tensor(VALS), T.tensor(SEQ), right=right, out_int32=out_int32),
      right=BOOLS, out_int32=BOOLS)
case("bucketize_forms", lambda T: [T.bucketize(5, T.tensor(SEQ)), T.bucketize(5.5, T.tensor(SEQ), right=True),
                                   T.bucketize(T.tensor([1, 6, 9]), T.tensor([2.5, 6.0])), T.bucketize(T.tensor(4), T.tensor(SEQ))])
error_case("bucketize_2d", lambda T: T.bucketize(T.tensor(VALS), T.tensor([[1, 2]])))
error_case("bucketize_bool", lambda T: T.bucketize(T.tensor([True]), T.tensor([False, True])))

# ------------------------------------------------------------------------------------------------------ bincount
case("bincount", lambda T: [T.bincount(T.tensor([0, 1, 1, 3])), T.bincount(T.tensor([0, 1, 1, 3]), minlength=6),
                            T.bincount(T.tensor([4, 1, 1, 3]), minlength=2), T.tensor([2, 0, 2]).bincount(),
                            T.bincount(T.tensor([], dtype=T.int64)), T.bincount(T.tensor([], dtype=T.int64), minlength=3),
                            T.bincount(T.tensor([0, 1, 3], dtype=T.uint8)), T.bincount(T.tensor([2, 1], dtype=T.int8), minlength=1)])
cases("bincount_weights", lambda T, dtype: T.bincount(T.tensor([0, 1, 1, 3]), weights=_t(T, [0.5, 1.25, 2.0, 3.0], dtype)), dtype=ALL)
case("bincount_weights_forms", lambda T: [T.bincount(T.tensor([0, 1, 1, 3]), T.tensor([0.5, 1, 2, 3]), 6),
                                          T.tensor([3, 0]).bincount(weights=T.tensor([1.5, -2.0]), minlength=1),
                                          T.bincount(T.tensor([0, 2]), weights=nc_step(T, [1.5, 0.0, 2.5, 0.0]))])
cases("bincount_dtype", lambda T, dtype: T.bincount(_t(T, [0, 1, 1, 3], dtype)),
      kind=lambda dtype: "value" if dtype in INTS else "error", dtype=ALL)
error_case("bincount_negative", lambda T: T.bincount(T.tensor([0, -1])))
error_case("bincount_2d", lambda T: T.bincount(T.tensor([[0, 1]])))
error_case("bincount_minlength", lambda T: T.bincount(T.tensor([0, 1]), minlength=-1))
error_case("bincount_weights_len", lambda T: T.bincount(T.tensor([0, 1]), weights=T.tensor([1.0])))
error_case("bincount_float_empty", lambda T: T.bincount(T.tensor([])))

# --------------------------------------------------------------------------------------------------------- histc
case("histc", lambda T: [T.histc(T.tensor([1.0, 2, 1]), bins=4, min=0, max=3), T.histc(T.tensor([1.0, 2, 1, 5]), bins=4),
                         T.histc(T.tensor([1.0, 1]), bins=4), T.histc(T.tensor([1.0, 2, 3, 4]).double(), bins=3, min=1, max=4),
                         T.histc(T.tensor([[1.0, 2], [3, 4]]), bins=3), T.histc(T.tensor([1.0, 2]).half(), bins=3),
                         T.histc(T.tensor([]), bins=3), T.tensor(A234).histc(5, -2, 2), T.histc(T.tensor(A23)),
                         T.histc(T.tensor([0.0, 0.1, 0.2, 0.3, 0.7, 1.0]), bins=10, min=0, max=1),
                         T.histc(T.tensor([-5.0, 0.5, 7.0]), bins=2, min=0, max=1),
                         T.histc(T.tensor([1.0, float("nan"), 2.0]), bins=2, min=0, max=3),
                         T.histc(T.tensor(A23), bins=3, out=T.empty(0)), T.histc(nc_t(T, A23), bins=4)])
cases("histc_dtype", lambda T, dtype: T.histc(_t(T, [1, 2, 1, 5, 0], dtype), bins=5),
      kind=lambda dtype: "value" if dtype in FLOATS else "error", dtype=ALL)
error_case("histc_nan_range", lambda T: T.histc(T.tensor([1.0, 2, float("nan")]), bins=4))
error_case("histc_inf_range", lambda T: T.histc(T.tensor([1.0, 2, float("inf")]), bins=3))
error_case("histc_nan_min", lambda T: T.histc(T.tensor([1.0, 2]), bins=3, min=float("nan")))
error_case("histc_bins", lambda T: T.histc(T.tensor([1.0, 2]), bins=0))
error_case("histc_min_max", lambda T: T.histc(T.tensor([1.0, 2]), bins=3, min=3, max=1))
error_case("histc_backward", lambda T: T.histc(T.tensor(V3, requires_grad=True), bins=3).sum().backward())
case("histc_grad_fn", lambda T: state(T.histc(T.tensor(V3, requires_grad=True), bins=3)))

# ---------------------------------------------------------------------------------------------------------- isin
case("isin", lambda T: [T.isin(T.tensor([[1, 2], [3, 4]]), T.tensor([2, 3])),
                        T.isin(T.tensor([[1, 2], [3, 4]]), T.tensor([2, 3]), invert=True),
                        T.isin(T.tensor([[1, 2], [3, 4]]), 2), T.isin(2, T.tensor([2, 3])), T.isin(5, T.tensor([2, 3])),
                        T.isin(T.tensor([1.0, 2, float("nan")]), T.tensor([2, 3, float("nan")])),
                        T.isin(T.tensor([1, 2]), T.tensor([2.0, 3])), T.isin(T.tensor([1, 2]).half(), T.tensor([2.0, 3])),
                        T.isin(T.tensor([1, 2]), T.tensor([2.0, 3]), assume_unique=True),
                        T.isin(T.tensor([]), T.tensor([1.0])), T.isin(T.tensor([1.0]), T.tensor([])),
                        T.isin(T.tensor(3), T.tensor([[3, 4]])), T.isin(nc_t(T, [[1, 2], [3, 4]]), nc_step(T, [4, 0, 1, 0])),
                        T.isin(elements=T.tensor([1, 5]), test_elements=T.tensor([5]))])
cases("isin_dtype", lambda T, dtype: T.isin(_t(T, [0, 1, 2, 3], dtype), _t(T, [3, 1, 1], dtype)),
      kind=lambda dtype: "error" if dtype == D.bool else "value", dtype=ALL)
case("isin_int_float_precision", lambda T: T.isin(T.tensor([2 ** 53 + 1]), T.tensor([2 ** 53])))
error_case("isin_bool", lambda T: T.isin(T.tensor([True]), T.tensor([True])))

# ------------------------------------------------------------------------------------- trapezoid / trapz / cumulative
Y34 = [[1.5, -2.0, 0.25, 4.0], [3.0, 0.5, -1.25, 0.0], [2.0, 2.0, -3.0, 1.0]]
X4 = [0.0, 0.5, 2.0, 2.25]
case("trapezoid", lambda T: [T.trapezoid(T.tensor(Y34)), T.trapezoid(T.tensor(Y34), dim=0), T.trapezoid(T.tensor(Y34), dx=0.5),
                             T.trapezoid(T.tensor(Y34), T.tensor(X4)), T.trapezoid(T.tensor(Y34), T.tensor([1.0, 3.0, 4.5]), dim=0),
                             T.trapezoid(T.tensor(Y34), T.tensor([X4, X4[::-1], [1.0, 2, 3, 4]])),
                             T.trapezoid(T.tensor([1, 2, 4])), T.trapezoid(T.tensor([1, 2, 4]), dx=2),
                             T.trapezoid(T.zeros(2, 0)), T.trapezoid(T.zeros(0, 3), dim=0), T.trapezoid(T.tensor([2.5])),
                             T.trapezoid(nc_t(T, Y34)), T.trapezoid(T.tensor(Y34), T.tensor([[0.0, 1.0, 3.0, 3.5]]))])
case("trapz", lambda T: [T.trapz(T.tensor(Y34)), T.trapz(T.tensor(Y34), dx=2.0), T.trapz(T.tensor(Y34), T.tensor(X4)),
                         T.trapz(T.tensor(Y34), dim=0)])
case("cumulative_trapezoid", lambda T: [T.cumulative_trapezoid(T.tensor(Y34)), T.cumulative_trapezoid(T.tensor(Y34), dx=0.5, dim=0),
                                        T.cumulative_trapezoid(T.tensor(Y34), T.tensor(X4)),
                                        T.cumulative_trapezoid(T.tensor([1, 2, 4])), T.cumulative_trapezoid(T.zeros(2, 0)),
                                        T.cumulative_trapezoid(T.tensor([2.5]))])
grad_case("trapezoid_grad", lambda T, y: T.trapezoid(y), Y34)
grad_case("trapezoid_grad_x", lambda T, y, x: T.trapezoid(y, x), Y34, X4)
grad_case("trapezoid_grad_dx", lambda T, y: T.trapezoid(y, dx=0.5, dim=0), Y34)
grad_case("cumulative_trapezoid_grad", lambda T, y, x: T.cumulative_trapezoid(y, x), Y34, X4)
grad_case("cumulative_trapezoid_grad_dx", lambda T, y: T.cumulative_trapezoid(y, dx=2.0), Y34)
case("trapezoid_state", lambda T: [state(T.trapezoid(T.tensor(Y34, requires_grad=True))),
                                   state(T.trapezoid(T.tensor(Y34, requires_grad=True), T.tensor(X4))),
                                   state(T.cumulative_trapezoid(T.tensor(Y34, requires_grad=True))),
                                   state(T.cumulative_trapezoid(T.tensor(Y34, requires_grad=True), T.tensor(X4)))])
error_case("trapezoid_bool", lambda T: T.trapezoid(T.tensor([True, False])))
error_case("trapezoid_bool_x", lambda T: T.trapezoid(T.tensor([1.0, 2.0]), T.tensor([True, False])))
error_case("trapezoid_dx_bool", lambda T: T.trapezoid(T.tensor([1.0, 2.0]), dx=True))
error_case("trapezoid_x_len", lambda T: T.trapezoid(T.tensor(Y34), T.tensor([1.0, 2.0])))
error_case("trapezoid_dim", lambda T: T.trapezoid(T.tensor(Y34), dim=2))
error_case("cumulative_trapezoid_bool", lambda T: T.cumulative_trapezoid(T.tensor([True, False])))
error_case("cumulative_trapezoid_x_len", lambda T: T.cumulative_trapezoid(T.tensor(Y34), T.tensor([1.0, 2.0])))

# ---------------------------------------------------------------------------------------------------- cov / corrcoef
case("cov", lambda T: [T.cov(T.tensor(Y34)), T.tensor(Y34).cov(correction=0), T.cov(T.tensor(Y34), correction=2),
                       T.cov(T.tensor(Y34), fweights=T.tensor([1, 2, 1, 3])),
                       T.cov(T.tensor(Y34), aweights=T.tensor([0.5, 2.0, 1.0, 0.25])),
                       T.cov(T.tensor(Y34), fweights=T.tensor([1, 2, 1, 3]), aweights=T.tensor([0.5, 2.0, 1.0, 0.25]), correction=2),
                       T.cov(T.tensor(Y34), fweights=T.tensor([1, 2, 1, 3]), correction=0),
                       T.cov(T.tensor([1, 2, 4])), T.cov(T.tensor([1.5, -2.0, 0.25])), T.cov(T.tensor(2.5)),
                       T.cov(T.tensor(Y34, dtype=T.float64)), T.cov(T.tensor([[1, 2, 4], [3, 0, 1]])), T.cov(nc_t(T, Y34))])
case("cov_dof", lambda T: [T.cov(T.tensor([[1.0, 2.0]]), correction=3), T.cov(T.tensor([[1.0, 2.0]]), correction=2)], warns=True)
case("corrcoef", lambda T: [T.corrcoef(T.tensor(Y34)), T.tensor(Y34).corrcoef(), T.corrcoef(T.tensor([1.0, 2, 4])),
                            T.corrcoef(T.tensor([[1, 2, 4], [3, 0, 1]])), T.corrcoef(T.tensor([[1.0, 1.0], [2.0, 3.0]]))])
grad_case("cov_grad", lambda T, x: T.cov(x), Y34)
grad_case("cov_grad_weights", lambda T, x, a: T.cov(x, fweights=T.tensor([1, 2, 1, 3]), aweights=a), Y34, [0.5, 2.0, 1.0, 0.25])
grad_case("corrcoef_grad", lambda T, x: T.corrcoef(x), Y34)
grad_case("cov_grad2", lambda T, x: T.cov(x), Y34, order=2)
error_case("cov_3d", lambda T: T.cov(T.zeros(2, 2, 2)))
error_case("cov_bool", lambda T: T.cov(T.tensor([True, False])))
error_case("cov_fweights_dims", lambda T: T.cov(T.tensor(Y34), fweights=T.ones(2, 2, dtype=T.int64)))
error_case("cov_fweights_float", lambda T: T.cov(T.tensor(Y34), fweights=T.ones(4)))
error_case("cov_fweights_numel", lambda T: T.cov(T.tensor(Y34), fweights=T.ones(3, dtype=T.int64)))
error_case("cov_fweights_negative", lambda T: T.cov(T.tensor(Y34), fweights=T.tensor([1, -2, 1, 3])))
error_case("cov_aweights_int", lambda T: T.cov(T.tensor(Y34), aweights=T.ones(4, dtype=T.int64)))
error_case("cov_aweights_negative", lambda T: T.cov(T.tensor(Y34), aweights=T.tensor([1.0, -2.0, 1.0, 3.0])))
error_case("cov_aweights_numel", lambda T: T.cov(T.tensor(Y34), aweights=T.ones(5)))
error_case("cov_weights_zero", lambda T: T.cov(T.tensor(Y34), fweights=T.zeros(4, dtype=T.int64)))
error_case("corrcoef_3d", lambda T: T.corrcoef(T.zeros(2, 2, 2)))

# ---------------------------------------------------------------------------------- block_diag / cartesian_prod / combinations
case("block_diag", lambda T: [T.block_diag(T.tensor(A23), T.tensor(B23)),
                              T.block_diag(T.tensor(1.0), T.tensor([2.0, 3.0]), T.tensor([[4.0], [5.0]])),
                              T.block_diag(T.tensor([1, 2]), T.tensor([[2.5]])), T.block_diag(),
                              T.block_diag(T.zeros(0, 2), T.ones(1, 0)), T.block_diag(T.tensor([[True]]), T.tensor([[1]])),
                              T.block_diag(nc_t(T, A23)), T.block_diag(T.tensor([[1, 2]], dtype=T.uint8), T.tensor([3], dtype=T.int8))])
grad_case("block_diag_grad", lambda T, a, b, c: T.block_diag(a, b, c), A23, [1.5, -0.5], 2.5)
grad_case("block_diag_grad_nc", lambda T, a, b: T.block_diag(a, b), inp(A23, view=vT), [[0.5]])
case("block_diag_state", lambda T: state(T.block_diag(T.tensor(A23, requires_grad=True), T.tensor([1.0]))))
error_case("block_diag_3d", lambda T: T.block_diag(T.zeros(2, 2, 2)))
error_case("block_diag_3d_second", lambda T: T.block_diag(T.zeros(2), T.zeros(1, 1, 1)))
case("cartesian_prod", lambda T: [T.cartesian_prod(T.tensor([1, 2, 3]), T.tensor([4, 5])),
                                  T.cartesian_prod(T.tensor([1.5, 2.0]), T.tensor([4.0, 5]), T.tensor([0.5, 1.0, 3.0])),
                                  T.cartesian_prod(T.tensor([1, 2, 3])), T.cartesian_prod(T.tensor([]), T.tensor([1.0]))])
case("cartesian_prod_single_is_input", lambda T: (lambda a: T.cartesian_prod(a) is a)(T.tensor([1.0, 2.0])))
grad_case("cartesian_prod_grad", lambda T, a, b: T.cartesian_prod(a, b), [1.5, -2.0, 0.25], [0.5, 3.0])
case("cartesian_prod_state", lambda T: state(T.cartesian_prod(T.tensor(V3, requires_grad=True), T.tensor(W3))))
error_case("cartesian_prod_dtypes", lambda T: T.cartesian_prod(T.tensor([1.5, 2.0]), T.tensor([4, 5])))
error_case("cartesian_prod_2d", lambda T: T.cartesian_prod(T.tensor([1, 2]), T.zeros(2, 2)))
case("combinations", lambda T: [T.combinations(T.tensor([1, 2, 3, 4])), T.combinations(T.tensor([1, 2, 3]), 0),
                                T.combinations(T.tensor([1, 2, 3]), 4), T.combinations(T.tensor([1, 2, 3]), 1),
                                T.combinations(T.tensor([1.5, 2.0, 3.0]), 3, True), T.combinations(T.tensor([1, 2, 3]), with_replacement=True),
                                T.combinations(T.tensor([1, 2, 3, 4]), r=3), T.combinations(T.tensor([]), 2)])
grad_case("combinations_grad", lambda T, a: T.combinations(a, 2, True), [1.5, -2.0, 0.25])
case("combinations_state", lambda T: state(T.combinations(T.tensor(V3, requires_grad=True), 3, True)))
error_case("combinations_2d", lambda T: T.combinations(T.zeros(2, 2)))
error_case("combinations_neg", lambda T: T.combinations(T.tensor([1, 2]), -1))

# ------------------------------------------------------------------------------------------- quantile / nanquantile
Q34 = [[1.5, -2.0, 0.25, 4.0], [3.0, 0.5, -1.25, 0.0], [2.0, 2.0, -3.0, 1.0]]
QNAN = [[1.0, float("nan"), 3.0, 0.5], [float("nan")] * 4, [2.0, -1.0, 0.0, 7.0]]
INTERP = ["linear", "lower", "higher", "midpoint", "nearest"]
cases("quantile", lambda T, interpolation, how: [
    getattr(T, how)(T.tensor(Q34), 0.3, interpolation=interpolation),
    getattr(T, how)(T.tensor(Q34), T.tensor([0.3, 0.5, 1.0, 0.0]), dim=0, interpolation=interpolation),
    getattr(T, how)(T.tensor(Q34), 0.75, dim=1, keepdim=True, interpolation=interpolation),
    getattr(T, how)(T.tensor(Q34), T.tensor([0.125, 0.9]), dim=-1, keepdim=True, interpolation=interpolation),
    getattr(T, how)(T.tensor(QNAN), 0.4, dim=1, interpolation=interpolation),
    getattr(T, how)(T.tensor(QNAN), T.tensor([0.4, 0.6]), interpolation=interpolation),
    getattr(T, how)(T.tensor(Q34, dtype=T.float64), 0.5, keepdim=True, interpolation=interpolation)],
      interpolation=INTERP, how=["quantile", "nanquantile"])
case("quantile_forms", lambda T: [T.tensor(Q34).quantile(0.5), T.tensor(Q34).nanquantile(T.tensor(0.5), dim=0),
                                  T.quantile(T.tensor(2.5), 0.5, dim=0), T.quantile(T.tensor(2.5), 0.5),
                                  T.quantile(T.tensor(Q34), 0.5, dim=0, out=T.empty(0)), T.quantile(nc_t(T, Q34), 0.25, dim=0),
                                  T.quantile(T.tensor([1.0, float("nan"), 3.0]), 0.5), T.quantile(T.tensor([1.0, 2.0]), 1),
                                  T.quantile(T.tensor(Q34), q=0.5, dim=1)])
cases("quantile_grad", lambda T, x, interpolation: T.quantile(x, T.tensor([0.3, 0.8]), dim=1, interpolation=interpolation),
      Q34, kind="grad", interpolation=INTERP)
grad_case("quantile_grad_scalar", lambda T, x: T.quantile(x, 0.4), Q34)
grad_case("nanquantile_grad", lambda T, x: T.nanquantile(x, 0.4, dim=1, keepdim=True), QNAN)
case("quantile_state", lambda T: [state(T.quantile(T.tensor(Q34, requires_grad=True), 0.3)),
                                  state(T.quantile(T.tensor(Q34, requires_grad=True), T.tensor([0.3, 0.5]), dim=0)),
                                  state(T.quantile(T.tensor(Q34, requires_grad=True), 0.3, interpolation="lower"))])
error_case("quantile_q_range", lambda T: T.quantile(T.tensor(Q34), 1.5))
error_case("quantile_q_range_neg", lambda T: T.nanquantile(T.tensor(Q34), -0.25))
error_case("quantile_q_tensor_range", lambda T: T.quantile(T.tensor(Q34), T.tensor([0.5, 2.0])))
error_case("quantile_interp", lambda T: T.quantile(T.tensor(Q34), 0.5, interpolation="foo"))
error_case("quantile_int", lambda T: T.quantile(T.tensor([1, 2]), 0.5))
error_case("quantile_half", lambda T: T.quantile(T.tensor([1.0, 2.0], dtype=T.float16), 0.5))
error_case("quantile_q_dtype", lambda T: T.quantile(T.tensor(Q34), T.tensor([0.5], dtype=T.float64)))
error_case("quantile_empty", lambda T: T.quantile(T.tensor([]), 0.5))
error_case("quantile_q_2d", lambda T: T.quantile(T.tensor(Q34), T.tensor([[0.5]])))
error_case("quantile_dim", lambda T: T.quantile(T.tensor(Q34), 0.5, dim=2))

# --------------------------------------------------------------------------------------------------------- renorm
cases("renorm", lambda T, p, dim, maxnorm: T.renorm(T.tensor(A234), p, dim, maxnorm),
      p=[2, 1, 3.5, float("inf"), 0.5], dim=[0, 1, -1], maxnorm=[1.0, 2.5, 0.0, 100])
cases("renorm_dtype", lambda T, dtype: _t(T, [[1.5, -2.0], [3.0, 4.0]], dtype).renorm(1, 1, 2.0),
      kind=lambda dtype: "value" if dtype in FLOATS else "error", dtype=ALL)
case("renorm_spellings", lambda T: (lambda x: [x.renorm(2, 0, 1.5), x.clone().renorm_(2, 0, 1.5), T.renorm(x, p=2, dim=1, maxnorm=2),
                                               T.renorm(x, 2, 0, 1.5, out=T.empty(0)), T.renorm(nc_t(T, A23), 2, 0, 1.0)])(T.tensor(A23)))
cases("renorm_grad", lambda T, x, p, dim: T.renorm(x, p, dim, 2.0), A234, kind="grad", p=[2, 1, 3.0], dim=[0, 2])
grad_case("renorm_grad_some_below", lambda T, x: x.renorm(2, 0, 2.0), [[1.5, -2.0, 0.25], [0.5, 0.25, -0.75]])
grad_case("renorm_grad2", lambda T, x: x.renorm(2, 0, 2.0), A23, order=2)
grad_case("renorm__grad", lambda T, x: (x * 1).renorm_(2, 1, 1.0), A23)
error_case("renorm_p0", lambda T: T.tensor(A23).renorm(0, 0, 1.0))
error_case("renorm_pneg", lambda T: T.tensor(A23).renorm(-1, 0, 1.0))
error_case("renorm_maxnorm", lambda T: T.tensor(A23).renorm(2, 0, -1.0))
error_case("renorm_1d", lambda T: T.tensor([1.0, 2.0]).renorm(2, 0, 1.0))
error_case("renorm_dim", lambda T: T.tensor(A23).renorm(2, 2, 1.0))

# ---------------------------------------------------------------------------------------------------------- cdist
C1 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
C2 = [[0.75, 2.5, -0.5], [-1.0, 4.0, 1.25], [0.0, 1.0, 2.0]]
BIG = [[float((i * 7) % 11) - 5, float((i * 3) % 5) + 0.5 * (i % 2)] for i in range(30)]
cases("cdist_p", lambda T, p, dtype: T.cdist(T.tensor(C1, dtype=dtype), T.tensor(C2, dtype=dtype), p),
      p=[2.0, 1.0, 0.0, float("inf"), 3.0, 0.5], dtype=FLOAT)
case("cdist_modes", lambda T: [T.cdist(T.tensor(C1), T.tensor(C2), compute_mode="use_mm_for_euclid_dist"),
                               T.cdist(T.tensor(C1), T.tensor(C2), compute_mode="donot_use_mm_for_euclid_dist"),
                               T.cdist(T.tensor(BIG), T.tensor(BIG[:4])), T.cdist(T.tensor(BIG), T.tensor(BIG[:4]), 1),
                               T.cdist(T.tensor(BIG), T.tensor(BIG[:4]), compute_mode="donot_use_mm_for_euclid_dist")],
     rtol=1e-4, atol=1e-4)
case("cdist_batch", lambda T: [T.cdist(T.tensor([C1, C1[::-1]]), T.tensor([C2]), 1), T.cdist(T.tensor([C1, C1[::-1]]), T.tensor(C2)),
                               T.cdist(T.tensor([C1, C1[::-1]]), T.tensor([C2]), compute_mode="use_mm_for_euclid_dist"),
                               T.cdist(T.zeros(0, 3), T.zeros(5, 3)).shape, T.cdist(T.zeros(2, 0), T.zeros(3, 0)),
                               T.cdist(nc_t(T, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), T.tensor([[0.5, 1.5, 2.5]]))], rtol=1e-4, atol=1e-5)
case("cdist_state", lambda T: [state(T.cdist(T.tensor(C1, requires_grad=True), T.tensor(C2))),
                               state(T.cdist(T.tensor(BIG, requires_grad=True), T.tensor(C2)[:, :2])),
                               state(T.cdist(T.tensor(C1, requires_grad=True), T.tensor(C2), compute_mode="use_mm_for_euclid_dist"))],
     rtol=1e-4, atol=1e-4)
cases("cdist_grad", lambda T, x, y, p: T.cdist(x, y, p), [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.5, 2.0, -1.0]],
      [[0.0, 0.0, 1.0], [2.0, 1.0, 0.0]], kind="grad", p=[2.0, 1.0, float("inf"), 3.0, 0.5, 0.0])
grad_case("cdist_grad_mm", lambda T, x, y: T.cdist(x, y), BIG, [[1.0, 2.0], [0.0, -3.0], [2.0, 2.0]], rtol=1e-4, atol=1e-4)
grad_case("cdist_grad_batch", lambda T, x, y: T.cdist(x, y, 1.5), [C1, C1[::-1]], [C2])
grad_case("cdist_grad_batch_mm", lambda T, x, y: T.cdist(x, y, compute_mode="use_mm_for_euclid_dist"), [C1, C1[::-1]], [C2],
          rtol=1e-4, atol=1e-4)
error_case("cdist_1d", lambda T: T.cdist(T.zeros(3), T.zeros(2, 3)))
error_case("cdist_cols", lambda T: T.cdist(T.zeros(2, 3), T.zeros(2, 4)))
error_case("cdist_int", lambda T: T.cdist(T.zeros(2, 3, dtype=T.int64), T.zeros(2, 3, dtype=T.int64)))
error_case("cdist_dtypes", lambda T: T.cdist(T.zeros(2, 3), T.zeros(2, 3, dtype=T.float64)))
error_case("cdist_neg_p", lambda T: T.cdist(T.zeros(2, 3), T.zeros(2, 3), -1))
error_case("cdist_mode", lambda T: T.cdist(T.zeros(2, 3), T.zeros(2, 3), 2, 1))
error_case("cdist_half", lambda T: T.cdist(T.zeros(2, 3, dtype=T.float16), T.zeros(2, 3, dtype=T.float16)))

# ------------------------------------------------------------------------------------ real tensors' complex views
cases("conj_family", lambda T, op, how: (lambda x: (lambda r: (r is x, state(r)))(
    getattr(T, op)(x) if how == "fn" else getattr(x, op)()))(T.tensor(A23, requires_grad=True) * 2),
      op=["conj", "resolve_conj", "resolve_neg", "conj_physical"], how=["fn", "method"])
case("conj_int", lambda T: [T.conj(T.tensor([1, 2])), T.conj_physical(T.tensor([True])), T.tensor(A23).t().conj().stride()])
case("is_conj_neg", lambda T: [T.is_conj(T.tensor(A23)), T.tensor(A23).is_conj(), T.is_neg(T.tensor([1])), T.tensor(A23).is_neg()])

# -------------------------------------------------------------------------------------------- strided factories
case("empty_strided", lambda T: [(t.shape, t.stride(), t.dtype, t.requires_grad) for t in (
    T.empty_strided((2, 3), (1, 2)), T.empty_strided([2, 3], [4, 1], dtype=T.int32), T.empty_strided((), ()),
    T.empty_strided((2, 0), (1, 1)), T.empty_strided((2, 2), (0, 1), requires_grad=True),
    T.tensor(A23, dtype=T.float64).new_empty_strided((2, 2), (1, 2)),
    T.tensor([1, 2]).new_empty_strided((3,), (2,), dtype=T.float16))])
error_case("empty_strided_dims", lambda T: T.empty_strided((2, 3), (1,)))
error_case("empty_strided_neg_size", lambda T: T.empty_strided((2, -3), (1, 1)))
error_case("empty_strided_requires_grad_int", lambda T: T.empty_strided((2,), (1,), dtype=T.int64, requires_grad=True))
