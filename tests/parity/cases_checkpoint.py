"""torch.utils.checkpoint: checkpoint (use_reentrant True and False) and checkpoint_sequential: outputs, the
gradients of inputs and parameters (dropout inside, so the recomputation must replay the forward's RNG state),
the RNG state after backward, autograd.grad and double backward, keyword arguments, and torch's warnings and
errors. The runner seeds both sides per case, so modules built inside a case start from the same parameters.
wick's use_reentrant=False outputs carry wick's own grad_fn (see wick/utils/checkpoint.py): those cases compare
detached outputs."""
import zlib

from .harness import *  # noqa: F401,F403

X = [[0.5, -1.0, 2.0, 0.3], [1.0, 0.2, -0.4, 0.9], [-0.7, 1.4, 0.05, -1.1]]
W3 = [1.3, -0.7, 2.1]


def mlp(T, p=0.5):
    return T.nn.Sequential(T.nn.Linear(4, 5), T.nn.Dropout(p), T.nn.Tanh(), T.nn.Linear(5, 6), T.nn.ReLU(),
                           T.nn.Dropout(0.3), T.nn.Linear(6, 3))


def crc(T):
    return zlib.crc32(bytes(T.get_rng_state().tolist()))


def ck(T):
    return T.utils.checkpoint


def grads(m):
    return [p.grad for p in m.parameters()]


def run(T, r, preserve=True, x_grad=True):
    m = mlp(T)
    x = T.tensor(X, requires_grad=x_grad)
    y = ck(T).checkpoint(m, x, use_reentrant=r, preserve_rng_state=preserve)
    (y * T.tensor(W3)).sum().backward()
    return y.detach(), x.grad, grads(m), crc(T)


cases("ck_mlp", lambda T, r: run(T, r), r=BOOLS)
cases("ck_mlp_no_preserve", lambda T, r: run(T, r, preserve=False), r=BOOLS)
case("ck_nonreentrant_input_no_grad", lambda T: run(T, False, x_grad=False))


def reentrant_out(T):
    m = mlp(T)
    x = T.tensor(X, requires_grad=True)
    y = ck(T).checkpoint(m, x, use_reentrant=True)
    y.sum().backward()
    return y, x.grad, grads(m)


case("ck_reentrant_grad_fn", reentrant_out)   # y.grad_fn is CheckpointFunctionBackward on both


def no_input_grad(T):
    m = mlp(T)
    y = ck(T).checkpoint(m, T.tensor(X), use_reentrant=True)
    return y, y.requires_grad


case("ck_reentrant_no_input_grad", no_input_grad, warns=True)


def default_reentrant(T):
    m = T.nn.Linear(4, 3)
    x = T.tensor(X, requires_grad=True)
    y = ck(T).checkpoint(m, x)
    y.sum().backward()
    return y, x.grad, m.weight.grad


case("ck_use_reentrant_unset", default_reentrant, warns=True)


def sequential(T, r, segments):
    m = mlp(T)
    x = T.tensor(X, requires_grad=True)
    y = ck(T).checkpoint_sequential(m, segments, x, use_reentrant=r)
    (y * T.tensor(W3)).sum().backward()
    return y.detach(), x.grad, grads(m), crc(T)


cases("ck_sequential", sequential, r=BOOLS, segments=[1, 2, 3, 7])


def sequential_list(T):
    mods = [T.nn.Linear(4, 4), T.nn.Tanh(), T.nn.Linear(4, 2)]
    x = T.tensor(X, requires_grad=True)
    y = ck(T).checkpoint_sequential(mods, 2, x)
    y.sum().backward()
    return y.detach(), x.grad, [p.grad for mm in mods for p in mm.parameters()]


case("ck_sequential_list_unset", sequential_list, warns=True)


def f2(x, y, scale=1.0):
    return (x * y).sin() * scale, (x + y).exp()


def multi(T, r):
    x = T.tensor([0.5, -1.25, 2.0], requires_grad=True)
    y = T.tensor([1.5, 0.25, -0.75], requires_grad=True)
    a, b = ck(T).checkpoint(f2, x, y, use_reentrant=r)
    (a * T.tensor(W3) + b * T.tensor([0.45, -1.1, 0.6])).sum().backward()
    return a.detach(), b.detach(), x.grad, y.grad


cases("ck_two_outputs", multi, r=BOOLS)


def kwargs_nonreentrant(T):
    x = T.tensor([0.5, -1.25, 2.0], requires_grad=True)
    y = T.tensor([1.5, 0.25, -0.75], requires_grad=True)
    a, b = ck(T).checkpoint(f2, x, y, use_reentrant=False, scale=3.5)
    (a * T.tensor(W3)).sum().backward()
    return a.detach(), x.grad, y.grad


case("ck_nonreentrant_kwargs", kwargs_nonreentrant)
error_case("ck_reentrant_kwargs", lambda T: ck(T).checkpoint(f2, T.ones(3), T.ones(3), use_reentrant=True, scale=2.0))
error_case("ck_sequential_kwargs", lambda T: ck(T).checkpoint_sequential([T.nn.Tanh()], 1, T.ones(3),
                                                                         use_reentrant=True, foo=1))
error_case("ck_reentrant_debug", lambda T: ck(T).checkpoint(T.nn.Tanh(), T.ones(3), use_reentrant=True, debug=True))


def autograd_grad(T, r):
    m = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.Tanh())
    x = T.tensor(X, requires_grad=True)
    y = ck(T).checkpoint(m, x, use_reentrant=r)
    return T.autograd.grad((y * T.tensor(W3)).sum(), [x, m[0].weight])


case("ck_nonreentrant_autograd_grad", lambda T: autograd_grad(T, False))
error_case("ck_reentrant_autograd_grad", lambda T: autograd_grad(T, True))


def backward_inputs(T, r):
    m = T.nn.Linear(4, 3)
    x = T.tensor(X, requires_grad=True)
    y = ck(T).checkpoint(m, x, use_reentrant=r)
    y.sum().backward(inputs=[x])
    return x.grad, m.weight.grad


case("ck_nonreentrant_backward_inputs", lambda T: backward_inputs(T, False))
error_case("ck_reentrant_backward_inputs", lambda T: backward_inputs(T, True))


def double_backward(T):
    x = T.tensor([0.5, -1.25, 2.0], requires_grad=True)
    y = ck(T).checkpoint(lambda t: (t.tanh() * t).pow(2), x, use_reentrant=False)
    g, = T.autograd.grad((y * T.tensor(W3)).sum(), x, create_graph=True)
    g2, = T.autograd.grad((g * T.tensor([0.45, -1.1, 0.6])).sum(), x)
    return y.detach(), g.detach(), g2


case("ck_nonreentrant_double_backward", double_backward)


def under_no_grad(T, r):
    m = T.nn.Linear(4, 3)
    with T.no_grad():
        y = ck(T).checkpoint(m, T.tensor(X, requires_grad=True), use_reentrant=r)
    return y, y.requires_grad


cases("ck_no_grad", under_no_grad, r=BOOLS)


def non_tensor_args(T, r):
    x = T.tensor([0.5, -1.25, 2.0], requires_grad=True)
    y = ck(T).checkpoint(lambda t, k, name: t.pow(k).sum() if name == "sum" else t, x, 3, "sum",
                         use_reentrant=r)
    y.backward()
    return y.detach(), x.grad


cases("ck_non_tensor_args", non_tensor_args, r=BOOLS)


def twice(T, r):
    """Two checkpointed blocks in a row sharing one parameter (its gradient accumulates from both)."""
    lin = T.nn.Linear(4, 4)
    x = T.tensor(X, requires_grad=True)
    h = ck(T).checkpoint(lambda t: T.nn.functional.dropout(lin(t).tanh(), 0.4), x, use_reentrant=r)
    y = ck(T).checkpoint(lambda t: lin(t).sigmoid(), h, use_reentrant=r)
    (y * T.tensor([[1.3, -0.7, 2.1, 0.45]])).sum().backward()
    return y.detach(), x.grad, lin.weight.grad, lin.bias.grad, crc(T)


cases("ck_shared_param", twice, r=BOOLS)
