"""The extra area (ops/extra.def, src/extra.c, wick/_extra_py.py): names from the coverage ledger's gaps --
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
