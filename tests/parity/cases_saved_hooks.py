"""torch.autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks (Note [Saved-tensor hooks]):
which tensors are packed and unpacked (a log of calls and shapes, compared with torch's), a pack_hook that changes
the value (the gradient shows it), nesting (the innermost hooks win), unpack per use with retain_graph, the freed
graph's error, custom Functions' save_for_backward, the errors of a failing or wrongly typed hook."""
from .harness import *  # noqa: F401,F403

X = [0.5, -1.0, 2.0]
Y = [1.5, 0.25, -0.75]


def G(T):
    return T.autograd.graph


def xy(T):
    return T.tensor(X, requires_grad=True), T.tensor(Y, requires_grad=True)


def logged(T, fn, pack=None):
    log = []
    x, y = xy(T)

    def p(t):
        log.append(('pack', tuple(t.shape)))
        return t if pack is None else pack(t)

    def u(t):
        log.append(('unpack', tuple(t.shape)))
        return t
    with G(T).saved_tensors_hooks(p, u):
        z = fn(T, x, y)
    n_packed = len(log)
    z.backward()
    return log, n_packed, x.grad, y.grad


case("mul_sin", lambda T: logged(T, lambda T, x, y: (x * y).sin().sum()))
case("exp_div", lambda T: logged(T, lambda T, x, y: (x.exp() / (y + 2)).sum()))
case("matmul", lambda T: logged(T, lambda T, x, y: (x.view(3, 1) @ y.view(1, 3)).tanh().sum()))
case("pack_changes_value", lambda T: logged(T, lambda T, x, y: (x * y).sum(), pack=lambda t: t * 2))
case("no_grad_packs_nothing", lambda T: _no_grad(T))


def _no_grad(T):
    log = []
    x, y = xy(T)
    with G(T).saved_tensors_hooks(lambda t: log.append(1) or t, lambda t: t):
        with T.no_grad():
            z = (x * y).sin()
    return log, z


def nested(T):
    log = []
    x, y = xy(T)
    with G(T).saved_tensors_hooks(lambda t: ('outer', t), lambda p: p[1]):
        with G(T).saved_tensors_hooks(lambda t: ('inner', t), lambda p: (log.append(p[0]), p[1])[1]):
            z = (x * y).sum()
        w = (x * 3).exp().sum()
    (z + w).backward()
    return log, x.grad, y.grad


case("nested_innermost_wins", nested)


def retain(T):
    log = []
    x, y = xy(T)
    with G(T).saved_tensors_hooks(lambda t: t, lambda t: (log.append('u'), t)[1]):
        z = (x * y).sum()
    z.backward(retain_graph=True)
    z.backward()
    return log, x.grad


case("unpack_per_use", retain)
error_case("freed_graph", lambda T: _freed(T))


def _freed(T):
    x, y = xy(T)
    with G(T).saved_tensors_hooks(lambda t: t, lambda t: t):
        z = (x * y).sum()
    z.backward()
    z.backward()


def save_on_cpu(T):
    x, y = xy(T)
    with G(T).save_on_cpu():
        z = (x.exp() * y).sum()
    z.backward()
    return x.grad, y.grad


case("save_on_cpu", save_on_cpu)


def function(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 3

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a
    log = []
    x, _ = xy(T)
    with G(T).saved_tensors_hooks(lambda t: (log.append('p'), t * 10)[1], lambda t: (log.append('u'), t)[1]):
        z = F.apply(x).sum()
    z.backward()
    return log, x.grad


case("custom_function", function)


def _bad_unpack(T):
    x, y = xy(T)
    with G(T).saved_tensors_hooks(lambda t: t, lambda t: 3):
        z = (x * y).sum()
    z.backward()


error_case("unpack_not_tensor", _bad_unpack)
error_case("pack_raises", lambda T: _pack_raises(T))


def _pack_raises(T):
    x, y = xy(T)
    with G(T).saved_tensors_hooks(lambda t: 1 / 0, lambda t: t):
        (x * y).sum()


error_case("disabled", lambda T: _disabled(T))


def _disabled(T):
    with G(T).disable_saved_tensors_hooks("no hooks here"):
        with G(T).saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
