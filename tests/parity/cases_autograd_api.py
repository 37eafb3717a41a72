"""The autograd API: backward/grad arguments, accumulation, hooks, retain_grad, grad modes, detach, custom
Functions, graph structure (grad_fn names, next_functions) and torch's autograd errors."""
from .harness import *  # noqa: F401,F403

X = [1.5, -2.0, 0.25]
W = [0.5, -1.25, 2.0]


def leaf(T, data=X):
    return T.tensor(data, requires_grad=True)


def names(fn):
    """grad_fn structure as plain data: (name, [(next name or None, input_nr), ...])."""
    if fn is None:
        return None
    return (type(fn).__name__, [(type(n).__name__ if n is not None else None, i) for n, i in fn.next_functions])


def graph(fn, depth=4):
    if fn is None or depth == 0:
        return None
    return [type(fn).__name__, [graph(n, depth - 1) for n, _ in fn.next_functions]]


# ---- backward arguments
def _backward_gradient(T):
    x = leaf(T)
    (x * x).backward(T.tensor(W))
    return x.grad
case("backward_gradient_arg", _backward_gradient)


def _accumulate(T):
    x = leaf(T)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    return x.grad
case("grad_accumulates", _accumulate)


def _retain_graph(T):
    x = leaf(T)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.clone()
    y.backward()
    return first, x.grad
case("retain_graph_twice", _retain_graph)


error_case("backward_twice", lambda T: [(y := (leaf(T) * leaf(T)).sum()).backward(), y.backward()])
error_case("backward_nonscalar", lambda T: (leaf(T) * 2).backward())
error_case("backward_no_grad_fn", lambda T: T.tensor([1.0, 2.0]).sum().backward())
error_case("backward_gradient_shape", lambda T: (leaf(T) * 2).backward(T.ones(2)))
error_case("backward_int_scalar_root", lambda T: T.tensor(3).backward())


def _create_graph(T):
    x = leaf(T)
    y = (x * x * x).sum()
    y.backward(create_graph=True)
    g = x.grad
    return g, g.requires_grad, names(g.grad_fn)
case("backward_create_graph", _create_graph)


def _grad_basic(T):
    x, w = leaf(T), leaf(T, W)
    out = (x * w).exp().sum()
    return T.autograd.grad(out, [x, w])
case("autograd_grad_list", _grad_basic)


def _grad_single(T):
    x = leaf(T)
    return T.autograd.grad((x * x).sum(), x)
case("autograd_grad_single_input", _grad_single)


def _grad_outputs(T):
    x = leaf(T)
    return T.autograd.grad(x * x, x, grad_outputs=T.tensor(W))
case("autograd_grad_outputs", _grad_outputs)


def _grad_no_accumulate(T):
    x = leaf(T)
    T.autograd.grad((x * x).sum(), x)
    return x.grad is None
case("autograd_grad_leaves_grad_none", _grad_no_accumulate)


def _grad_second(T):
    x = leaf(T)
    y = (x.sin() * x).sum()
    g, = T.autograd.grad(y, x, create_graph=True)
    g2, = T.autograd.grad((g * T.tensor(W)).sum(), x)
    return g, g2
case("autograd_grad_second_order", _grad_second)


def _grad_unused(T):
    x, z = leaf(T), leaf(T, W)
    return T.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
case("autograd_grad_allow_unused", _grad_unused)
error_case("autograd_grad_unused_error", lambda T: T.autograd.grad((leaf(T) * 2).sum(), [leaf(T, W)]))


def _grad_materialize(T):
    x, z = leaf(T), leaf(T, W)
    return T.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
case("autograd_grad_materialize", _grad_materialize)


def _grad_nonleaf_input(T):
    x = leaf(T)
    h = x * 2
    return T.autograd.grad((h * h).sum(), h)
case("autograd_grad_nonleaf_input", _grad_nonleaf_input)


def _backward_inputs(T):
    x, w = leaf(T), leaf(T, W)
    (x * w).sum().backward(inputs=[w])
    return x.grad, w.grad
case("backward_inputs_subset", _backward_inputs)


def _backward_inputs_nonleaf(T):
    x = leaf(T)
    h = x * 2
    (h * h).sum().backward(inputs=[h])
    return h.grad, x.grad
case("backward_inputs_nonleaf", _backward_inputs_nonleaf, warns=False)
error_case("backward_inputs_empty", lambda T: (leaf(T) * 2).sum().backward(inputs=[]))


def _autograd_backward_fn(T):
    x = leaf(T)
    T.autograd.backward([(x * x).sum(), (x * 3).sum()])
    return x.grad
case("autograd_backward_function", _autograd_backward_fn)


def _autograd_backward_grads(T):
    x = leaf(T)
    T.autograd.backward([x * x], [T.tensor(W)])
    return x.grad
case("autograd_backward_grad_tensors", _autograd_backward_grads)


# ---- leaves, requires_grad, detach
case("leaf_flags", lambda T: (lambda x: (x.is_leaf, x.requires_grad, (x * 2).is_leaf, (x * 2).requires_grad,
                                          x.grad_fn is None))(leaf(T)))
case("no_requires_grad_flags", lambda T: (lambda x: (x.is_leaf, x.requires_grad, (x * 2).requires_grad))(T.tensor(X)))
case("requires_grad_", lambda T: T.tensor(X).requires_grad_())
case("requires_grad_false", lambda T: leaf(T).requires_grad_(False))
error_case("requires_grad_int", lambda T: T.tensor([1, 2]).requires_grad_())
error_case("requires_grad_nonleaf_off", lambda T: (leaf(T) * 2).requires_grad_(False))
error_case("tensor_requires_grad_int", lambda T: T.tensor([1, 2], requires_grad=True))
case("detach", lambda T: (lambda d: (d, d.requires_grad, d.is_leaf, d.grad_fn is None))((leaf(T) * 2).detach()))


def _detach_shares(T):
    x = T.tensor(X)
    d = x.detach()
    d.add_(1)
    return x
case("detach_shares_storage", _detach_shares)


def _detach_(T):
    y = leaf(T) * 2
    y.detach_()
    return y, y.requires_grad, y.is_leaf
case("detach_inplace", _detach_)


def _set_requires_grad_attr(T):
    x = T.tensor(X)
    x.requires_grad = True
    (x * x).sum().backward()
    return x.grad
case("requires_grad_attribute", _set_requires_grad_attr)


def _grad_assign(T):
    x = leaf(T)
    x.grad = T.tensor(W)
    (x * 2).sum().backward()
    return x.grad
case("grad_assign_then_accumulate", _grad_assign)


def _grad_none_reset(T):
    x = leaf(T)
    (x * 2).sum().backward()
    x.grad = None
    (x * 3).sum().backward()
    return x.grad
case("grad_set_none", _grad_none_reset)
error_case("grad_assign_wrong_shape", lambda T: setattr(leaf(T), 'grad', T.zeros(2)))
error_case("grad_assign_wrong_dtype", lambda T: setattr(leaf(T), 'grad', T.zeros(3, dtype=T.float64)))


def _nonleaf_grad_warns(T):
    y = leaf(T) * 2
    (y * y).sum().backward()
    return y.grad is None
case("nonleaf_grad_is_none_and_warns", _nonleaf_grad_warns, warns=True)


# ---- retain_grad and hooks
def _retain_grad(T):
    x = leaf(T)
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    return h.grad, x.grad, h.retains_grad, x.retains_grad
case("retain_grad", _retain_grad)


def _retain_grad_accumulates(T):
    x = leaf(T)
    h = x.exp()
    h.retain_grad()
    h.sum().backward(retain_graph=True)
    h.sum().backward()
    return h.grad
case("retain_grad_accumulates", _retain_grad_accumulates)


def _hook_scales(T):
    x = leaf(T)
    h = x * 2
    h.register_hook(lambda g: g * 10)
    (h * h).sum().backward()
    return x.grad
case("hook_replaces_grad", _hook_scales)


def _hook_sees(T):
    seen = []
    x = leaf(T)
    h = x.sin()
    h.register_hook(lambda g: seen.append(g.clone()))
    (h * T.tensor(W)).sum().backward()
    return seen[0], x.grad
case("hook_observes_grad", _hook_sees)


def _leaf_hook(T):
    x = leaf(T)
    x.register_hook(lambda g: g + 1)
    (x * 2).sum().backward()
    return x.grad
case("leaf_hook", _leaf_hook)


def _hook_order(T):
    order = []
    x = leaf(T)
    h = x * 2
    h.register_hook(lambda g: order.append('first'))
    h.register_hook(lambda g: order.append('second') or g * 2)
    h.sum().backward()
    return order, x.grad
case("hooks_run_in_order", _hook_order)


def _hook_remove(T):
    x = leaf(T)
    h = x * 2
    handle = h.register_hook(lambda g: g * 0)
    handle.remove()
    h.sum().backward()
    return x.grad
case("hook_remove", _hook_remove)
error_case("hook_on_no_grad_tensor", lambda T: T.tensor(X).register_hook(lambda g: g))


def _hook_retain_order(T):
    x = leaf(T)
    h = x * 2
    h.register_hook(lambda g: g * 3)
    h.retain_grad()
    h.sum().backward()
    return h.grad, x.grad
case("hook_before_retain_grad", _hook_retain_order)


def _grad_fn_hook(T):
    seen = []
    x = leaf(T)
    y = x * T.tensor(W)
    y.grad_fn.register_hook(lambda gi, go: seen.append((len(gi), len(go))))
    y.sum().backward()
    return seen
case("grad_fn_register_hook", _grad_fn_hook)


# ---- grad modes
def _no_grad(T):
    x = leaf(T)
    with T.no_grad():
        y = x * 2
    return y.requires_grad, y.grad_fn is None, T.is_grad_enabled()
case("no_grad_ctx", _no_grad)


def _no_grad_deco(T):
    @T.no_grad()
    def f(x):
        return x * 2, T.is_grad_enabled()
    y, mode = f(leaf(T))
    return y.requires_grad, mode, T.is_grad_enabled()
case("no_grad_decorator", _no_grad_deco)


def _enable_grad(T):
    x = leaf(T)
    with T.no_grad():
        with T.enable_grad():
            y = x * 2
        z = x * 2
    return y.requires_grad, z.requires_grad
case("enable_grad_inside_no_grad", _enable_grad)


def _set_grad_enabled(T):
    x = leaf(T)
    with T.set_grad_enabled(False):
        a = x * 2
    with T.set_grad_enabled(True):
        b = x * 2
    T.set_grad_enabled(False)
    c = x * 2
    T.set_grad_enabled(True)
    return a.requires_grad, b.requires_grad, c.requires_grad, T.is_grad_enabled()
case("set_grad_enabled", _set_grad_enabled)


def _inference_mode(T):
    x = leaf(T)
    with T.inference_mode():
        y = x * 2
        inside = T.is_inference_mode_enabled(), T.is_grad_enabled()
    return y.requires_grad, inside, T.is_inference_mode_enabled()
case("inference_mode_ctx", _inference_mode)


def _inference_mode_deco(T):
    @T.inference_mode()
    def f(x):
        return x * 2
    return f(leaf(T)).requires_grad
case("inference_mode_decorator", _inference_mode_deco)


def _inference_mode_false(T):
    with T.inference_mode(False):
        return (leaf(T) * 2).requires_grad, T.is_inference_mode_enabled()
case("inference_mode_false", _inference_mode_false)


def _inplace_leaf_no_grad(T):
    x = leaf(T)
    with T.no_grad():
        x.mul_(2)
    return x, x.requires_grad, x.is_leaf
case("inplace_on_leaf_under_no_grad", _inplace_leaf_no_grad)


# ---- graph structure
case("grad_fn_add_scalar", lambda T: names((leaf(T) + 2).grad_fn))
case("grad_fn_radd", lambda T: names((2 + leaf(T)).grad_fn))
case("grad_fn_rsub", lambda T: names((2 - leaf(T)).grad_fn))
case("grad_fn_rdiv", lambda T: names((2 / leaf(T)).grad_fn))
case("grad_fn_mul_two_leaves", lambda T: names((leaf(T) * leaf(T, W)).grad_fn))
case("grad_fn_sum", lambda T: names((leaf(T).sum()).grad_fn))
case("grad_fn_sum_dim", lambda T: names((leaf(T).sum(0)).grad_fn))
case("grad_fn_mean", lambda T: names((leaf(T).mean()).grad_fn))
case("grad_fn_chain", lambda T: graph(((leaf(T) * 2).exp() + 1).sum().grad_fn))
case("grad_fn_name_method", lambda T: (leaf(T) * 2).grad_fn.name())
case("accumulate_grad_name", lambda T: (leaf(T) * 2).grad_fn.next_functions[0][0].name())


def _acc_variable(T):
    x = leaf(T)
    return (x * 2).grad_fn.next_functions[0][0].variable is x
case("accumulate_grad_variable", _acc_variable)


def _grad_fn_identity(T):
    y = leaf(T) * 2
    return y.grad_fn is y.grad_fn
case("grad_fn_identity", _grad_fn_identity)


# ---- in-place and versions
error_case("inplace_leaf_requires_grad", lambda T: leaf(T).add_(1))
error_case("inplace_leaf_iadd", lambda T: (lambda x: x.__iadd__(1))(leaf(T)))
error_case("saved_output_modified", lambda T: (lambda b: (b.mul_(2), b.sum().backward()))(leaf(T).sigmoid()))
error_case("saved_input_modified",
           lambda T: (lambda x, w: ((y := w * x), x.add_(1), y.sum().backward()))(T.tensor(X), leaf(T, W)))
error_case("saved_nonleaf_modified",
           lambda T: (lambda h: ((c := h * h), h.add_(1), c.sum().backward()))(leaf(T).exp()))


def _outcome(T, fn):
    """fn's gradient, or the error torch raises for it (either way compared with torch's)."""
    x = leaf(T)
    try:
        return "ok", fn(T, x)
    except RuntimeError as e:
        return "raised", str(e)


def _self_alias_backward(T, x, op, alias):
    # an in-place op whose other operand is the written tensor itself (or a view of it): torch saves that operand
    # before the write, so a backward that needs it reports the modification
    z = x * 1
    other = {"self": z, "view": z[:], "detached": z.detach()}[alias]
    getattr(z, op)(other)
    z.sum().backward()
    return x.grad


cases("inplace_other_aliases_self", lambda T, op, alias: _outcome(
          T, lambda T, x: _self_alias_backward(T, x, op, alias)),
      op=["mul_", "div_", "pow_", "add_", "sub_", "atan2_", "hypot_", "copysign_", "fmod_", "xlogy_"],
      alias=["self", "view", "detached"])
cases("saved_node_name_suffix", lambda T, which: _outcome(T, lambda T, x: {
          "pow_scalar_base": lambda: (lambda y: (y.mul_(2), y.sum().backward()))(2 ** (x * 1)),
          "pow_tensor": lambda: (lambda z: (z.pow_(z), z.sum().backward()))(x * 1),
          "rsub": lambda: (lambda y: (y.mul_(2), y.sum().backward()))(1 - x.exp()),
          "add_alpha": lambda: (lambda h: ((c := h.add(h, alpha=2) * h), h.add_(1), c.sum().backward()))(x.exp()),
      }[which]()), which=["pow_scalar_base", "pow_tensor", "rsub", "add_alpha"])


INPLACE_SELF_OPS = {
    "addcmul_": lambda T, z: z.addcmul_(z, z), "addcdiv_": lambda T, z: z.addcdiv_(z, z + 3),
    "lerp_": lambda T, z: z.lerp_(z * 2, z), "lerp_scalar": lambda T, z: z.lerp_(z, 0.3),
    "index_add_": lambda T, z: z.index_add_(0, T.tensor([0, 1]), z[:2]), "copy_": lambda T, z: z.copy_(z * z),
    "clamp_": lambda T, z: z.clamp_(min=z * 0.5), "masked_fill_": lambda T, z: z.masked_fill_(z > 1, 0.0),
    "addmm_": lambda T, z: z.view(2, 2).addmm_(z.view(2, 2), z.view(2, 2)), "mul_halves": lambda T, z: z[:2].mul_(z[2:]),
    "div_floor": lambda T, z: z.div_(z, rounding_mode="floor"), "logit_": lambda T, z: z.sigmoid_().logit_(),
    "scatter_add_": lambda T, z: z.scatter_add_(0, T.tensor([1, 0]), z[:2]),
    "index_put_": lambda T, z: z.index_put_((T.tensor([0]),), z[1:2], accumulate=True),
    "baddbmm_": lambda T, z: z.view(1, 2, 2).baddbmm_(z.view(1, 2, 2), z.view(1, 2, 2)),
}


def _self_alias_op(T, x, op):
    z = T.cat([x, x[:1] * 2])  # 4 elements with history
    INPLACE_SELF_OPS[op](T, z)
    z.sum().backward()
    return x.grad


cases("inplace_self_alias_ops", lambda T, op: _outcome(T, lambda T, x: _self_alias_op(T, x, op)), op=list(INPLACE_SELF_OPS))


def _version_counts(T):
    x = T.tensor(X)
    v0 = x._version
    x.add_(1)
    x.mul_(2)
    return v0, x._version
case("version_counter", _version_counts)


def _inplace_nonleaf_grad(T):
    x = leaf(T)
    h = x * 2
    h.mul_(2)
    h.add_(1)
    h.sum().backward()
    return x.grad, names(h.grad_fn)
case("inplace_on_nonleaf_records", _inplace_nonleaf_grad)


def _inplace_exp(T):
    x = leaf(T)
    h = x * 1.5
    h.exp_()
    (h * T.tensor(W)).sum().backward()
    return x.grad
case("inplace_exp_uses_result", _inplace_exp)


def _inplace_unused_input(T):
    x = leaf(T)
    y = x * 2
    x2 = T.tensor(W)
    y.add_(x2)   # a constant added in place: gradient still flows to x
    y.sum().backward()
    return x.grad
case("inplace_add_constant", _inplace_unused_input)


# ---- custom Function
def _custom_mul(T):
    class MyMul(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a
    x, w = leaf(T), leaf(T, W)
    y = MyMul.apply(x, w)
    (y * T.tensor([1.3, -0.7, 2.1])).sum().backward()
    return y, type(y.grad_fn).__name__, x.grad, w.grad, names(y.grad_fn)
case("function_mul", _custom_mul)


def _custom_exp_double(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            r = i.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r
    x = leaf(T)
    g, = T.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    g2, = T.autograd.grad((g * T.tensor(W)).sum(), x)
    return g, g2
case("function_saved_output_double_backward", _custom_exp_double)


def _custom_nondiff_args(T):
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
    x = leaf(T)
    Scale.apply(x, 3.5).sum().backward()
    return x.grad
case("function_nontensor_arg", _custom_nondiff_args)


def _custom_needs_input_grad(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g, g
    x = leaf(T)
    F.apply(x, T.tensor(W)).sum().backward()
    return seen, x.grad
case("function_needs_input_grad", _custom_needs_input_grad)


def _custom_freed(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * 2
    y = F.apply(leaf(T)).sum()
    y.backward()
    y.backward()
error_case("function_backward_twice", _custom_freed)


def _custom_no_grad_inputs(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    y = F.apply(T.tensor(X))
    return y, y.requires_grad
case("function_without_grad_inputs", _custom_no_grad_inputs)


def _custom_multi_output(T):
    class Split(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3
    x = leaf(T)
    p, q = Split.apply(x)
    (p * T.tensor(W)).sum().backward()
    return x.grad
case("function_two_outputs_one_used", _custom_multi_output)


def _custom_mark_nondiff(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            idx = a > 0
            ctx.mark_non_differentiable(idx)
            return a * 2, idx

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2
    y, idx = F.apply(leaf(T))
    return y.requires_grad, idx.requires_grad
case("function_mark_non_differentiable", _custom_mark_nondiff)


# ---- anomaly mode flags
def _anomaly(T):
    with T.autograd.set_detect_anomaly(True):
        inside = T.is_anomaly_enabled()
    return inside, T.is_anomaly_enabled()
case("set_detect_anomaly", _anomaly)


def _after_failed_backward(T):
    """A Function whose backward raised must leave nothing behind: the next backward (with a broadcast bias, whose
    gradient is reduced) runs normally; the leaves keep their gradient buffers across a second backward."""
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward failed")
    try:
        F.apply(leaf(T)).sum().backward()
    except ValueError:
        pass
    w = T.tensor([W, X], requires_grad=True)
    b = T.tensor([0.5, -1.0], requires_grad=True)
    x = T.tensor([X])
    (x.mm(w.t()) + b).sum().backward()
    first = (w.grad.clone(), b.grad.clone(), w.grad.stride(), w.grad._is_view())
    (x.mm(w.t()) * 3 + b).sum().backward()
    return first, w.grad, b.grad
case("backward_after_failed_function_backward", _after_failed_backward)


def _relu_grad_graph(T, inplace):
    """relu's derivative is threshold_backward(grad, result, 0), as torch's: a NaN input passes the gradient
    through, and with create_graph the gradient hangs off ThresholdBackwardBackward0 (grad_output, then ReluBackward)."""
    x = T.tensor([float('nan'), 1.5, -1.0, 0.0, 2.0], requires_grad=True)
    y = (x * 1.0).relu_() if inplace else T.relu(x)
    g, = T.autograd.grad((y * T.tensor([1.0, 2.0, 3.0, 4.0, 5.0])).sum(), x, create_graph=True)
    names = (type(g.grad_fn).__name__, [type(n).__name__ if n is not None else None for n, _ in g.grad_fn.next_functions])
    (g * g).sum().backward()
    return g, names, x.grad
case("relu_grad_graph", lambda T: _relu_grad_graph(T, False))
case("relu__grad_graph", lambda T: _relu_grad_graph(T, True))


# detach_ refuses any view autograd tracks (not only one whose base requires grad); an inference tensor's views
# are not tracked (_is_view False, _base None)
def _detach_outcome(T, which):
    def inference_view():
        with T.inference_mode():
            return T.ones(4)[1:]

    def view_made_in_inference(a):
        with T.inference_mode():
            return a[1:]

    x = {"plain": lambda: T.ones(3), "reshape": lambda: T.arange(6.).reshape(2, 3), "slice": lambda: T.ones(4)[1:],
         "detached": lambda: T.ones(3).detach(), "unbind": lambda: T.ones(2, 3).unbind(0)[0],
         "nonleaf": lambda: T.ones(3, requires_grad=True) * 2, "grad_view": lambda: (T.ones(3, requires_grad=True) * 2)[1:],
         "data": lambda: T.ones(3, requires_grad=True).data, "inference_view": inference_view,
         "view_made_in_inference": lambda: view_made_in_inference(T.ones(4))}[which]()
    seen = (x._is_view(), x._base is None)
    try:
        x.detach_()
        return seen, "detached", x.requires_grad
    except RuntimeError as e:
        return seen, str(e)


cases("detach_inplace_views", _detach_outcome, which=["plain", "reshape", "slice", "detached", "unbind", "nonleaf",
                                                       "grad_view", "data", "inference_view", "view_made_in_inference"])


# zero_ / fill_ on an expanded view pass (they check no overlap), but backward's CopySlices copies the view's
# gradient into that expanded geometry, which torch's copy_ refuses
def _expanded_view_backward(T, op, create_graph):
    x = leaf(T)
    h = x * 2
    v = h.expand(3, 3)[0] if op == "plain_view" else h.unsqueeze(0).expand(2, 3)
    try:
        if op == "zero_":
            v.zero_()
        elif op == "fill_":
            v.fill_(0.5)
        (h * h).sum().backward(create_graph=create_graph)
        return x.grad
    except RuntimeError as e:
        return str(e)


cases("expanded_view_inplace_backward", _expanded_view_backward, op=["zero_", "fill_", "plain_view"],
      create_graph=BOOLS)


# ---- found by the API fuzzer: requires_grad's three spellings word the dtype refusal differently; the setter and
# requires_grad_() take a bool only; Parameter of an int tensor or of a list
error_case("requires_grad_setter_int_dtype", lambda T: setattr(T.tensor([1, 2]), 'requires_grad', True))
error_case("requires_grad_setter_nonbool", lambda T: setattr(T.ones(2), 'requires_grad', 1))
error_case("requires_grad_setter_none", lambda T: setattr(T.ones(2), 'requires_grad', None))
error_case("requires_grad_setter_nonleaf_true", lambda T: setattr(T.ones(2, requires_grad=True) * 2, 'requires_grad', True))
error_case("requires_grad_setter_nonleaf_false", lambda T: setattr(T.ones(2, requires_grad=True) * 2, 'requires_grad', False))
case("requires_grad_setter_int_false", lambda T: (lambda t: (setattr(t, 'requires_grad', False), t.requires_grad))(T.tensor([1])))
error_case("requires_grad__int_arg", lambda T: T.ones(2).requires_grad_(1))
error_case("requires_grad__kw_int", lambda T: T.ones(2).requires_grad_(requires_grad=1))
error_case("requires_grad__none", lambda T: T.ones(2).requires_grad_(None))
error_case("requires_grad__two_args", lambda T: T.ones(2).requires_grad_(True, 1))
error_case("requires_grad__bad_kw", lambda T: T.ones(2).requires_grad_(foo=True))
case("requires_grad__kw", lambda T: T.ones(2).requires_grad_(requires_grad=True))
error_case("parameter_int_dtype", lambda T: T.nn.Parameter(T.tensor([1, 2])))
case("parameter_int_dtype_no_grad", lambda T: T.nn.Parameter(T.tensor([1, 2]), requires_grad=False))
error_case("parameter_requires_grad_int", lambda T: T.nn.Parameter(T.ones(2), requires_grad=1))
error_case("parameter_of_list", lambda T: T.nn.Parameter([1.0, 2.0]))
print_case("parameter_str", lambda T: T.nn.Parameter(T.tensor([1.5, -2.0])))


# ---- found by the API fuzzer (/tmp/fz-autograd/fz_autograd.py): torch.autograd.backward / grad check the given
# gradients in Python first (type, shape, implicit ones), then the roots, then retain the inputs; gradients take
# their output's dtype; hooks' results are checked; leaf hooks run under autograd.grad; grad_fn's repr
def _bad_gradient(T, what):
    x = T.tensor([1.5, -0.5], requires_grad=True)
    g = {'float': 2.0, 'list': [1.0, 1.0], 'shape': T.ones(3), 'nonscalar_none': None}[what]
    (x * 2).backward(g)
cases("backward_bad_gradient", _bad_gradient, kind="error", what=['float', 'list', 'shape', 'nonscalar_none'])
error_case("backward_gradient_shape_before_requires_grad", lambda T: T.ones(2).backward(T.ones(3)))
error_case("backward_no_grad_root_nonscalar", lambda T: T.ones(2).backward())
error_case("autograd_grad_second_gradient_shape", lambda T: (lambda x: T.autograd.grad(
    [x * 2, x * 3], [x], [T.ones(2), T.ones(5)][::-1]))(T.tensor([1.5, -0.5], requires_grad=True)))
error_case("autograd_grad_fewer_grad_outputs", lambda T: (lambda x: T.autograd.grad(
    [x * 2, x * 3], [x], [T.ones(2)]))(T.tensor([1.5, -0.5], requires_grad=True)))
case("autograd_grad_more_grad_outputs", lambda T: (lambda x: T.autograd.grad(
    x * 2, [x], [T.ones(2), T.ones(2)]))(T.tensor([1.5, -0.5], requires_grad=True)))
error_case("autograd_grad_materialize_allow_unused_false", lambda T: (lambda x: T.autograd.grad(
    x * 2, [x], T.ones(2), allow_unused=False, materialize_grads=True))(T.tensor([1.5, -0.5], requires_grad=True)))
case("autograd_grad_materialize_create_graph", lambda T: (lambda x, y: T.autograd.grad(
    (x * 2).sum(), [x, y], create_graph=True, materialize_grads=True))(
    T.tensor([1.5, -0.5], requires_grad=True), T.tensor([3.0], requires_grad=True)))
case("autograd_grad_dict_inputs", lambda T: (lambda x, y: T.autograd.grad(
    (x * y).sum(), {'a': x, 'b': y}))(T.tensor([1.5, -0.5], requires_grad=True), T.tensor([3.0], requires_grad=True)))
error_case("autograd_grad_empty_inputs", lambda T: T.autograd.grad(T.ones(1, requires_grad=True) * 2, []))
case("autograd_grad_only_inputs_warns", lambda T: (lambda x: T.autograd.grad((x * 2).sum(), x, only_inputs=False))(
    T.tensor([1.5], requires_grad=True)), warns=True)
case("backward_grad_variables_warns", lambda T: (lambda x: (T.autograd.backward(x * 2, grad_variables=T.ones(1)), x.grad))(
    T.tensor([1.5], requires_grad=True)), warns=True)
error_case("backward_inputs_no_grad", lambda T: (lambda x: (x * 2).sum().backward(inputs=[T.ones(2)]))(
    T.tensor([1.5, 2.0], requires_grad=True)))
error_case("backward_inputs_root_no_grad_first", lambda T: T.ones(1).backward(inputs=[T.ones(2)]))


def _backward_inputs_retains(T):
    x = T.tensor([1.5, 2.0], requires_grad=True)
    y = x * 3
    (y * y).sum().backward(inputs=[y])
    return y.retains_grad, y.grad, x.grad
case("backward_inputs_retains_grad", _backward_inputs_retains)


def _grad_dtype(T, root):
    x = T.tensor([1.5, 2.0], requires_grad=True)
    t = x if root == 'leaf' else x * 2
    t.backward(T.tensor([2, 3]) if root == 'leaf' else T.tensor([2.0, 3.0], dtype=T.float64))
    return x.grad
cases("backward_gradient_other_dtype", _grad_dtype, root=['leaf', 'nonleaf'])


def _hook_result(T, ret, where):
    x = T.tensor([1.5, 2.0], requires_grad=True)
    t = x if where == 'leaf' else x * 2

    def my_hook(g):
        return {'int': 3, 'size': T.ones(3), 'double': g.double(), 'int_tensor': g.int(), 'list': [1.0]}[ret]
    t.register_hook(my_hook)
    (t * 1).sum().backward()
cases("hook_bad_result", _hook_result, kind="error", ret=['int', 'size', 'double', 'int_tensor', 'list'],
      where=['leaf', 'nonleaf'])
error_case("hook_bad_result_lambda", lambda T: (lambda x: (x.register_hook(lambda g: g[:1]), x.sum().backward()))(
    T.tensor([1.5, 2.0], requires_grad=True)))


def _leaf_hook_grad(T, how):
    x = T.tensor([1.5, 2.0], requires_grad=True)
    y = T.tensor([0.5], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    if how == 'grad':
        return T.autograd.grad((x * 3).sum(), x), x.grad
    if how == 'self':
        return T.autograd.grad(x, x, T.ones(2)), x.grad
    if how == 'root_only':   # x is the root, not an input: its hook still runs
        x.register_hook(lambda g: g.sum())
        return T.autograd.grad(x, [y], T.ones(2), allow_unused=True)
    (x * 3).sum().backward(inputs=[y] if how == 'other_input' else None)
    return x.grad, y.grad
cases("leaf_hook_runs", _leaf_hook_grad, kind=lambda how: "error" if how == 'root_only' else "value",
      how=['grad', 'self', 'root_only', 'backward'])


def _create_graph_warns(T):
    T.set_warn_always(True)
    x = T.tensor([1.5, 2.0], requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    return x.grad
case("backward_create_graph_warns", _create_graph_warns, warns=True)
case("grad_fn_repr", lambda T: repr((T.ones(2, requires_grad=True) * 2).grad_fn).split(' object at ')[0])
case("grad_fn_str", lambda T: str(T.ones(2, requires_grad=True).sum().grad_fn).split(' object at ')[0])


def _inference_false(T):
    with T.no_grad():
        with T.inference_mode(False):
            y = T.ones(2, requires_grad=True) * 2
            on = T.is_grad_enabled()
    return on, y.requires_grad, T.is_grad_enabled()
case("inference_mode_false_enables_grad", _inference_false)


def _enable_grad_in_inference(T):
    x = T.ones(2, requires_grad=True)
    with T.inference_mode():
        with T.enable_grad():
            y = x * 2
            on = T.is_grad_enabled()
    return on, y.requires_grad, y.grad_fn is None, y.is_inference()
case("enable_grad_inside_inference_mode", _enable_grad_in_inference)


# ---- found by the API fuzzer (/tmp/fz-autograd/fz_fn.py): custom autograd.Function -- what backward may return,
# when saved tensors are freed, save_for_backward's argument check, mark_dirty / mark_non_differentiable outputs
# and outputs of a Function that records nothing
def _fn_class(T, ret, save=None):
    class Fn(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            if save == 'int':
                ctx.save_for_backward(x, 3)
            else:
                ctx.save_for_backward(x)
            return x * k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return {'count': (g,), 'k_grad': (g * 2, g), 'int': (5, None), 'list': ([g], None),
                    'shape': (T.ones(3), None), 'ok': (g * x, None)}[ret]
    return Fn


def _fn_backward(T, ret):
    x = T.tensor([1.5, -2.0], requires_grad=True)
    _fn_class(T, ret).apply(x, 2.0).sum().backward()
cases("function_bad_backward_result", _fn_backward, kind="error", ret=['count', 'k_grad', 'int', 'list', 'shape'])


def _fn_retry(T, ret):
    # a backward that failed keeps its saved tensors: a second call fails the same way, not with 'second time'
    x = T.tensor([1.5, -2.0], requires_grad=True)
    y = _fn_class(T, ret).apply(x * 1, 2.0).sum()
    for _ in range(2):
        try:
            y.backward()
        except RuntimeError as e:
            last = str(e)
    return last
cases("function_failed_backward_keeps_saved", _fn_retry, ret=['count', 'shape'])
error_case("function_save_non_tensor", lambda T: _fn_class(T, 'ok', save='int').apply(
    T.tensor([1.5, -2.0], requires_grad=True), 2.0))
case("function_save_non_tensor_no_grad", lambda T: _fn_class(T, 'ok', save='int').apply(T.tensor([1.5, -2.0]), 2.0))


def _fn_outputs(T, src, grad, dirty, nondiff):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ctx.needs_input_grad)
            if dirty:
                x.mul_(2)
                ctx.mark_dirty(x)
            if nondiff:
                ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    seen = []
    x = T.tensor([1.0, 2.0], requires_grad=src != 'plain')
    xin = x * 1 if src == 'nonleaf' else x
    with T.set_grad_enabled(grad):
        o = Id.apply(xin)
    return (o is xin, o.requires_grad, o.is_leaf, o.grad_fn is None, xin._version, seen, o)
cases("function_output_flags", _fn_outputs,
      kind=lambda src, grad, dirty, nondiff: "error" if (src, grad, dirty, nondiff) == ('leaf', True, True, False)
      else "value",
      src=['leaf', 'nonleaf', 'plain'], grad=BOOLS, dirty=BOOLS, nondiff=BOOLS)


# ---- inference tensors outside inference mode: no in-place writes (out=, resize_ too), no requires_grad=True, not
# saved for backward, no version counter; a leaf whose requires_grad was turned off after the graph was built
# accumulates nothing
def _inference_tensor(T):
    with T.inference_mode():
        return T.tensor([1.5, -2.0]) * 2


cases("inference_tensor_write", lambda T, op: {
    'add_': lambda x: x.add_(1), 'zero_': lambda x: x.zero_(), 'copy_': lambda x: x.copy_(T.ones(2)),
    'view_mul_': lambda x: x[0].mul_(2), 'out': lambda x: T.add(x, x, out=x), 'no_grad_fill_': lambda x: (
        T.no_grad().__enter__(), x.fill_(2)), 'setitem': lambda x: x.__setitem__(0, 3.0)}[op](_inference_tensor(T)),
      kind="error", op=['add_', 'zero_', 'copy_', 'view_mul_', 'out', 'no_grad_fill_', 'setitem'])
cases("inference_tensor_requires_grad", lambda T, how: {
    'method': lambda x: x.requires_grad_(), 'setter': lambda x: setattr(x, 'requires_grad', True),
    'parameter': lambda x: T.nn.Parameter(x)}[how](_inference_tensor(T)), kind="error",
      how=['method', 'setter', 'parameter'])
case("inference_tensor_requires_grad_false", lambda T: (_inference_tensor(T).requires_grad_(False),
                                                        T.nn.Parameter(_inference_tensor(T), requires_grad=False)))
error_case("inference_tensor_saved", lambda T: _inference_tensor(T) * T.ones(2, requires_grad=True))
case("inference_tensor_not_saved", lambda T: _inference_tensor(T) + T.ones(2, requires_grad=True))
error_case("inference_tensor_saved_by_function", lambda T: (lambda inf: _fn_class(T, 'ok').apply(
    inf, 2.0) if False else type('Sv', (T.autograd.Function,), {
        'forward': staticmethod(lambda ctx, x, y: (ctx.save_for_backward(y), x * 2)[1]),
        'backward': staticmethod(lambda ctx, g: (g, None))}).apply(T.ones(2, requires_grad=True), inf))(
    _inference_tensor(T)))
error_case("inference_tensor_version", lambda T: _inference_tensor(T)._version)
error_case("inference_tensor_view_version", lambda T: _inference_tensor(T)[0]._version)


def _inference_inside(T):
    x = _inference_tensor(T)
    with T.inference_mode():
        x.add_(1)
        x.requires_grad_()
    return x


case("inference_tensor_write_inside", _inference_inside)


def _leaf_turned_off(T, create_graph):
    x = T.tensor([1.5, -2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    y = (x * x).sum()
    x.requires_grad_(False)
    y.backward(create_graph=create_graph)
    return x.grad, seen
cases("leaf_requires_grad_turned_off", _leaf_turned_off, create_graph=BOOLS, warns=True)


def _view_leaf_inplace(T):
    x = T.tensor([1.5]).reshape(())
    x.requires_grad_()
    x.mul_(2)
error_case("view_made_leaf_inplace", _view_leaf_inplace)


# ---- grad_fn.register_hook: a hook's result replaces the node's gradients (torch's checks), after they were
# reduced to their inputs' shapes
def _node_hook(T, ret):
    x = T.tensor([1.5, -0.5], requires_grad=True)
    b = T.tensor([[0.25, 2.0]], requires_grad=True)
    y = x.exp() * 1
    z = x.exp() + b    # AddBackward0's gradient for x is summed to x's shape before the hook sees it
    seen = []

    def my_hook(gi, go):
        seen.append([None if g is None else list(g.shape) for g in gi])
        return {'none': None, 'scale': tuple(None if g is None else g * 3 for g in gi), 'int': 5, 'list': list(gi),
                'long': gi + (None,), 'size': tuple(T.ones(3) for _ in gi), 'double': tuple(g.double() for g in gi),
                'nones': tuple(None for _ in gi)}[ret]
    z.grad_fn.register_hook(my_hook)
    (y.sum() + z.sum()).backward()
    return seen, x.grad, b.grad
cases("node_hook_result", _node_hook, kind=lambda ret: "error" if ret in ('int', 'list', 'long', 'size', 'double')
      else "value", ret=['none', 'scale', 'int', 'list', 'long', 'size', 'double', 'nones'])


def _setup_context(T, call):
    seen = []

    class G(T.autograd.Function):
        @staticmethod
        def forward(x, k=2.0):
            seen.append(('forward', T.is_grad_enabled()))
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append(('setup', len(inputs), inputs[1], output.requires_grad, T.is_grad_enabled()))
            ctx.save_for_backward(inputs[0], output)
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            x, o = ctx.saved_tensors
            return g * ctx.k + o, None
    x = T.tensor([1.5, -2.0], requires_grad=True)
    y = {'kw': lambda: G.apply(x, k=3.0), 'default': lambda: G.apply(x), 'pos': lambda: G.apply(x, 0.5),
         'extra': lambda: G.apply(x, 1.0, 2.0), 'bad_kw': lambda: G.apply(x, j=1.0)}[call]()
    y.sum().backward()
    return seen, y, x.grad
cases("function_setup_context", _setup_context, kind=lambda call: "error" if call in ('extra', 'bad_kw') else "value",
      call=['kw', 'default', 'pos', 'extra', 'bad_kw'])


def _apply_kwargs(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2.0):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, None
    x = T.tensor([1.5, -2.0], requires_grad=True)
    y = F.apply(x, k=3.0)
    y.sum().backward()
    return y, x.grad
case("function_apply_kwargs", _apply_kwargs)
error_case("function_setup_context_not_implemented", lambda T: T.autograd.Function.setup_context(None, (), None))


# ---- Tensor.register_post_accumulate_grad_hook (was missing): runs after backward() accumulated a leaf's .grad
def _post_acc(T, how):
    x = T.tensor([1.5, -2.0], requires_grad=True)
    seen = []
    h = x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.tolist())))
    x.register_post_accumulate_grad_hook(lambda t: seen.append('second'))
    x.register_hook(lambda g: g * 2)
    if how == 'twice':
        (x * 3).sum().backward()
        (x * x).sum().backward()
    elif how == 'removed':
        h.remove()
        (x * 3).sum().backward()
    elif how == 'grad':
        seen.append(T.autograd.grad((x * 3).sum(), x))
    elif how == 'inputs':
        y = T.tensor([1.0], requires_grad=True)
        (x * y).sum().backward(inputs=[y])
        (x * y).sum().backward(inputs=[x])
    return seen, x.grad
cases("post_accumulate_grad_hook", _post_acc, how=['twice', 'removed', 'grad', 'inputs'])
error_case("post_accumulate_grad_hook_nonleaf", lambda T: (T.ones(2, requires_grad=True) * 2)
           .register_post_accumulate_grad_hook(lambda t: None))
error_case("post_accumulate_grad_hook_no_grad", lambda T: T.ones(2).register_post_accumulate_grad_hook(lambda t: None))
error_case("post_accumulate_grad_hook_returns", lambda T: (lambda x: (x.register_post_accumulate_grad_hook(lambda t: 5),
           (x * 2).sum().backward()))(T.tensor([1.5], requires_grad=True)))


# ---- torch.autograd.Variable (legacy spelling of a tensor), autograd.graph.Node, autograd.grad_mode (were missing)
def _variable(T, how):
    x = T.tensor([1.5, -2.0])
    v = {'plain': lambda: T.autograd.Variable(x), 'rg': lambda: T.autograd.Variable(x, requires_grad=True),
         'pos': lambda: T.autograd.Variable(x * 1, True), 'empty': lambda: T.autograd.Variable(),
         'nonleaf': lambda: T.autograd.Variable(T.ones(2, requires_grad=True) * 2)}[how]()
    return v is x, v, v.is_leaf, v.grad_fn is None, isinstance(x, T.autograd.Variable), type(v).__name__
cases("autograd_variable", _variable, how=['plain', 'rg', 'pos', 'empty', 'nonleaf'])
case("autograd_variable_volatile_warns", lambda T: T.autograd.Variable(T.ones(2), volatile=True), warns=True)
error_case("autograd_variable_list", lambda T: T.autograd.Variable([1.0]))
error_case("autograd_variable_int_rg", lambda T: T.autograd.Variable(T.ones(2, dtype=T.int64), requires_grad=True))
case("autograd_variable_isinstance", lambda T: (isinstance(3, T.autograd.Variable), T.autograd.Variable.__module__))
case("autograd_graph_node", lambda T: (isinstance((T.ones(1, requires_grad=True) * 2).grad_fn, T.autograd.graph.Node),
                                       isinstance(1, T.autograd.graph.Node), T.autograd.graph.Node.__module__))
case("autograd_grad_mode_module", lambda T: (T.autograd.grad_mode.no_grad is T.no_grad,
                                             T.autograd.grad_mode.inference_mode is T.inference_mode))
