"""In-place ops on views: writes reach the base, the base's history becomes CopySlices and the view's
AsStridedBackward0, gradients through base and views (other views of the same base too), torch's errors for views of
leaves, multi-output views and views made in no_grad mode; in-place metadata ops (t_, transpose_, squeeze_,
unsqueeze_, swapaxes_, swapdims_)."""
from .harness import *  # noqa: F401,F403

A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
B23 = [[0.75, 2.5, -0.5], [-1.0, 4.0, 1.25]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
A1314 = [[[[0.5, -1.25, 2.0, 3.5]], [[1.75, -0.5, 0.125, -3.0]], [[2.25, 4.0, -1.5, 0.75]]]]
V3 = [1.5, -2.0, 0.25]
W3 = [0.5, 3.0, -1.75]


def fn(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def state(*ts):
    """Values, grad_fn names, versions, requires_grad and view-ness of some tensors."""
    return [(t, fn(t), t._version, t.requires_grad, t._is_view(), t.is_leaf) for t in ts]


# --------------------------------------------------------------------------- in-place on a view of a non-leaf
VIEWS = {
    "select": lambda b: b.select(1, 1), "narrow": lambda b: b.narrow(0, 1, 1), "t": lambda b: b.t(),
    "diagonal": lambda b: b.diagonal(), "unsqueeze": lambda b: b.unsqueeze(0), "view": lambda b: b.view(3, 2),
    "narrow_t": lambda b: b.narrow(1, 1, 2).t(), "as_strided": lambda b: b.as_strided((2, 2), (1, 3), 1),
    "permute": lambda b: b.permute(1, 0), "expand_free": lambda b: b.narrow(1, 0, 2).select(0, 1),
}


def _inplace_view(T, x, how, op):
    b = x * 1
    v = VIEWS[how](b)
    getattr(v, op)(2.5 if op != "mul_" else -1.5)
    return b, v


cases("inplace_view_grad", _inplace_view, A23, kind="grad", how=list(VIEWS), op=["add_", "mul_"])
cases("inplace_view_state", lambda T, how: state(*_inplace_view(T, T.tensor(A23, requires_grad=True) * 1, how, "mul_")),
      how=list(VIEWS))
grad_case("inplace_view_tensor_operand", lambda T, x, y: ((b := x * 1).narrow(0, 0, 1).mul_(y), b)[1], A23, [W3])
grad_case("inplace_view_operand_only", lambda T, y: ((b := T.tensor(A23)).select(0, 1).add_(y), b)[1], V3)
grad_case("inplace_view_operand_only_mul", lambda T, y: ((b := T.tensor(A23)).select(1, 2).mul_(y), b)[1], [1.5, -0.5])
grad_case("inplace_view_twice", lambda T, x, y: ((b := x * 2), (v := b.select(0, 0)).mul_(y), v.add_(y), b)[3],
          A23, W3)
grad_case("inplace_view_of_view", lambda T, x: ((b := x * 1), b.narrow(1, 0, 2).select(0, 1).mul_(3), b)[2], A23)
grad_case("inplace_view_returns_view", lambda T, x: (x * 1).narrow(1, 1, 2).mul_(-2), A23)
grad_case("inplace_view_then_base_op", lambda T, x: ((b := x * 1), b.select(0, 0).mul_(2), b * b)[2], A23)
grad_case("inplace_base_then_view_used", lambda T, x: ((b := x * 1), (v := b.select(0, 1)), b.mul_(3), v * 2)[3], A23)
grad_case("inplace_view_other_view_sees_it",
          lambda T, x: ((b := x * 1), (v1 := b.narrow(0, 0, 2)), b.narrow(0, 0, 1).mul_(5), v1 * 1)[3], A23)
grad_case("inplace_view_sibling_unaffected",
          lambda T, x: ((b := x * 1), (v1 := b.select(0, 0)), b.select(0, 1).mul_(5), v1, b)[3:], A23)
grad_case("inplace_view_leaf_base_no_grad", lambda T, y: ((b := T.zeros(2, 3)), b.narrow(1, 1, 2).add_(y), b)[2],
          [[1.5, -0.5], [2.0, 0.25]])
grad_case("inplace_view_int_index_path", lambda T, x: ((b := x * 1), b.unsqueeze(1).select(2, 1).mul_(-1), b)[2], A23)
grad_case("inplace_view_grad2", lambda T, x: ((b := x * x), b.select(0, 1).mul_(x.select(0, 0)), b)[2], A23, order=2)
grad_case("inplace_view_3d", lambda T, x: ((b := x * 1), b.permute(2, 0, 1).select(0, 2).add_(1).mul_(3), b)[2], A234)
case("inplace_view_no_grad_values", lambda T: ((b := T.tensor(A23)), b.t().select(0, 2).mul_(4), b)[2])
case("inplace_view_grad_fns", lambda T: (
    (x := T.tensor(A23, requires_grad=True)), (b := x * 1), (v := b.select(0, 0)), v.mul_(2),
    fn(b), fn(v), [None if f is None else type(f).__name__ for f, _ in b.grad_fn.next_functions],
    [None if f is None else type(f).__name__ for f, _ in v.grad_fn.next_functions])[4:])
def _inplace_view_no_grad_mode(T):
    x = T.tensor(A23, requires_grad=True)
    b = x * 1
    v = b.select(0, 0)
    with T.no_grad():
        v.mul_(2)
    return fn(b), fn(v), b, v


case("inplace_view_no_grad_mode", _inplace_view_no_grad_mode)

# --------------------------------------------------------------------------------------------- errors
error_case("inplace_view_of_leaf", lambda T: T.tensor(A23, requires_grad=True).narrow(0, 0, 1).mul_(2))
error_case("inplace_view_of_leaf_select", lambda T: T.tensor(A23, requires_grad=True).select(1, 0).add_(1))
error_case("inplace_view_of_view_of_leaf", lambda T: T.tensor(A23, requires_grad=True).t().select(0, 1).add_(1))
error_case("inplace_leaf", lambda T: T.tensor(A23, requires_grad=True).add_(1))
MULTI = {"unbind": lambda t: t.unbind(1), "split": lambda t: t.split(1, 2), "split_sizes": lambda t: t.split([1, 3], 2),
         "chunk": lambda t: t.chunk(2, 0), "split_with_sizes": lambda t: t.split_with_sizes([2, 2], -1)}
cases("inplace_multi_output_view", lambda T, f: MULTI[f](T.tensor(A234, requires_grad=True) * 1)[0].mul_(2),
      kind="error", f=list(MULTI))
error_case("inplace_multi_output_view_second", lambda T: (T.tensor(A23, requires_grad=True) * 1).unbind(1)[2].add_(1))
error_case("inplace_multi_output_view_of_view", lambda T: (T.tensor(A23, requires_grad=True) * 1).unbind(0)[1]
           .narrow(0, 0, 2).mul_(2))
error_case("inplace_multi_output_no_grad_base", lambda T: T.tensor(A23).unbind(0)[0].mul_(T.tensor(W3, requires_grad=True)))
case("inplace_multi_output_no_grad_ok", lambda T: ((b := T.tensor(A23)), b.unbind(0)[1].mul_(2), b)[2])
case("inplace_tensor_split_ok", lambda T: ((b := T.tensor(A23, requires_grad=True) * 1), (v := b.tensor_split(2, 1)[0]),
                                           v.mul_(2), fn(b), fn(v), b)[3:])


def _no_grad_view(T, x, base_rg=True):
    b = T.tensor(A23, requires_grad=True) * 1 if base_rg else T.tensor(A23)
    with T.no_grad():
        v = b.narrow(0, 0, 1)
    return b, v


error_case("inplace_no_grad_view", lambda T: _no_grad_view(T, None)[1].mul_(2))
error_case("inplace_no_grad_view_of_plain_base", lambda T: _no_grad_view(T, None, False)[1].mul_(T.tensor(W3, requires_grad=True)))
case("inplace_no_grad_view_plain_ok", lambda T: ((bv := _no_grad_view(T, None, False)), bv[1].mul_(2), bv[0])[2])
def _multi_output_made_in_no_grad(T):
    b = T.tensor(A23, requires_grad=True) * 1
    with T.no_grad():
        u = b.unbind(0)
    return u[0].mul_(2)


def _no_grad_view_state(T):
    b = T.tensor(A23, requires_grad=True) * 1
    with T.no_grad():
        v = b.narrow(0, 0, 1)
        u = b.unbind(0)
    return state(v, u[1])


def _modified_in_no_grad_then_grad_fn(T):
    b = T.tensor(A23, requires_grad=True) * 1
    u = b.unbind(0)
    with T.no_grad():
        u[0].mul_(2)
    return u[0].grad_fn


def _base_modified_then_no_grad_view_used(T):
    b = T.tensor(A23, requires_grad=True) * 1
    with T.no_grad():
        v = b.narrow(0, 0, 1)
    b.mul_(2)
    return v * 2


error_case("inplace_multi_output_made_in_no_grad", _multi_output_made_in_no_grad)
case("no_grad_view_state", _no_grad_view_state)
error_case("multi_output_view_base_modified_in_no_grad", _modified_in_no_grad_then_grad_fn)
error_case("no_grad_view_used_after_base_modified", _base_modified_then_no_grad_view_used)
error_case("inplace_saved_view_modified", lambda T: (
    (x := T.tensor(A23, requires_grad=True)), (a := x * 1), (m := a * a), a.narrow(0, 0, 1).add_(1),
    m.sum().backward()))
error_case("detach_inplace_view", lambda T: (T.tensor(A23, requires_grad=True) * 1).narrow(0, 0, 1).detach_())

# ---------------------------------------------------------------------------------- in-place metadata ops
META = {
    "t_": lambda t: t.t_(), "transpose_": lambda t: t.transpose_(0, 2), "swapaxes_": lambda t: t.swapaxes_(1, 3),
    "swapdims_": lambda t: t.swapdims_(-1, 0), "unsqueeze_": lambda t: t.unsqueeze_(2), "unsqueeze_neg": lambda t: t.unsqueeze_(-1),
    "squeeze_": lambda t: t.squeeze_(), "squeeze_dim": lambda t: t.squeeze_(2), "squeeze_dims": lambda t: t.squeeze_((0, 2)),
    "squeeze_noop": lambda t: t.squeeze_(1),
}


def _meta_input(T, how, x):
    return x.view(3, 4) if how == "t_" else x


def _meta(T, x, how):
    y = _meta_input(T, how, x * 1)
    r = META[how](y)
    return r is y, y, y.shape, y.stride(), fn(y), y._version


cases("meta_inplace_grad", lambda T, x, how: _meta(T, x, how)[1], A1314, kind="grad", how=list(META))
cases("meta_inplace_state", lambda T, how: _meta(T, T.tensor(A1314, requires_grad=True), how), how=list(META))
cases("meta_inplace_no_grad", lambda T, how: (lambda y: (META[how](y) is y, y, y.stride(), y._version))(
    _meta_input(T, how, T.tensor(A1314))), how=list(META))
cases("meta_inplace_leaf_error", lambda T, how: META[how](_meta_input(T, how, T.tensor(A1314, requires_grad=True))),
      kind="error", how=["t_", "transpose_", "unsqueeze_", "squeeze_"])
case("meta_inplace_leaf_no_grad_mode", lambda T: ((x := T.tensor(A23, requires_grad=True)), T.set_grad_enabled(False),
                                                  x.t_(), T.set_grad_enabled(True), x.shape, fn(x), x.requires_grad)[4:])
case("meta_inplace_on_view", lambda T: ((b := T.tensor(A234)), (v := b.narrow(0, 0, 1)), v.squeeze_(0), v.t_(),
                                        v.shape, v.stride(), v._is_view(), v._base is b, v._version)[4:])
grad_case("meta_inplace_on_view_grad", lambda T, x: ((b := x * 1), (v := b.narrow(2, 1, 2)), v.unsqueeze_(0),
                                                     v.transpose_(0, 3), v)[4], A234)
grad_case("meta_inplace_on_view_then_mul", lambda T, x: ((b := x * 1), (v := b.narrow(0, 1, 1)), v.squeeze_(0),
                                                         v.mul_(3), b)[4], A234)
error_case("meta_inplace_view_of_leaf", lambda T: T.tensor(A234, requires_grad=True).narrow(0, 0, 1).unsqueeze_(0))
error_case("meta_inplace_t_3d", lambda T: T.tensor(A234).t_())
error_case("meta_inplace_squeeze_bad_dim", lambda T: T.tensor(A234).squeeze_(3))
error_case("meta_inplace_unsqueeze_bad_dim", lambda T: T.tensor(A234).unsqueeze_(4))
grad_case("meta_inplace_grad2", lambda T, x: (lambda y: y.t_() * y)(x * 1), A23, order=2)

# ------------------------------------------------------------------------------- views made by indexing
IDX_VIEWS = {
    "row": lambda b: b[0], "col": lambda b: b[:, 1], "slice": lambda b: b[:, 1:], "step": lambda b: b[:, ::2],
    "neg": lambda b: b[-1, -2:], "ellipsis": lambda b: b[..., 2], "none": lambda b: b[None, 1],
    "elem": lambda b: b[1, 2],
}
cases("index_view_inplace_grad", lambda T, x, how: ((b := x * 1), IDX_VIEWS[how](b).mul_(-3).add_(1), b)[2], A23,
      kind="grad", how=list(IDX_VIEWS))
cases("index_view_inplace_values", lambda T, how: ((b := T.tensor(A23)), (v := IDX_VIEWS[how](b)), v.mul_(-3),
                                                   b, v._base is b, v._version, fn(v))[3:], how=list(IDX_VIEWS))
grad_case("index_view_inplace_operand", lambda T, x, y: ((b := x * 1), b[1:, :].add_(y), b)[2], A23, [W3])
grad_case("index_view_inplace_sibling", lambda T, x: ((b := x * 1), (r := b[0]), b[:, 0].mul_(10), r * 1)[3], A23)
error_case("index_view_of_leaf_inplace", lambda T: T.tensor(A23, requires_grad=True)[0].add_(1))
