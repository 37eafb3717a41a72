"""torch.optim.Adafactor (issue 24): parameters and state_dict after several steps on uneven gradients, for a
0-d, a 1-d (not factored: a full variance), a non-square 2-d and a 3-d parameter (factored: row_var / col_var
over the last two dimensions), sweeping lr (float and tensor), beta2_decay, eps, d, weight_decay, maximize and
foreach; param groups, closures, state_dict round trips, the functional form and torch's errors. Norms and rsqrt
are reduced in a CPU-dependent order in torch, so values use the dtype's default tolerance."""
import random

from .harness import *  # noqa: F401,F403

_r = random.Random(20261203)


def _vals(*shape):
    if not shape:
        return _r.uniform(-1.5, 1.5)
    return [_vals(*shape[1:]) for _ in range(shape[0])]


def _gvals(*shape):  # uneven magnitudes, both signs
    if not shape:
        return _r.gauss(0.0, 1.0) * _r.choice((1e-3, 0.3, 1.0, 25.0))
    return [_gvals(*shape[1:]) for _ in range(shape[0])]


SHAPES = [(), (7,), (3, 4), (2, 3, 5)]
P = [_vals(*s) for s in SHAPES]
STEPS = 6
G = [[_gvals(*s) for s in SHAPES] for _ in range(STEPS)]


def _train(T, kw=None, dtype=None, steps=STEPS, which=None, groups=None, lr_tensor=False):
    which = range(len(P)) if which is None else which
    ps = [T.tensor(P[i], dtype=dtype, requires_grad=True) for i in which]
    kw = dict(kw or {})
    if lr_tensor:
        kw["lr"] = T.tensor(kw.get("lr", 1e-2))
    opt = T.optim.Adafactor(groups(ps) if groups else ps, **kw)
    for k in range(steps):
        for p, i in zip(ps, which):
            p.grad = T.tensor(G[k % STEPS][i], dtype=p.dtype)
        opt.step()
    return [p.detach() for p in ps], opt.state_dict()


OPTS = {
    "default": {}, "lr": dict(lr=0.3), "lr_small": dict(lr=1e-4), "beta2_decay": dict(beta2_decay=-0.5),
    "beta2_decay_0": dict(beta2_decay=0.0), "eps1": dict(eps=(1e-3, 1e-3)), "eps2": dict(eps=(None, 0.5)),
    "eps2_0": dict(eps=(None, 0.0)), "d": dict(d=2.5), "weight_decay": dict(weight_decay=0.1),
    "maximize": dict(maximize=True), "foreach": dict(foreach=True),
    "foreach_maximize_wd": dict(foreach=True, maximize=True, weight_decay=0.05, lr=0.2),
    "all": dict(lr=0.05, beta2_decay=-0.6, eps=(1e-20, 2e-3), d=1.5, weight_decay=0.02, maximize=True),
}
cases("adafactor", lambda T, o, dtype: _train(T, OPTS[o], dtype), o=list(OPTS), dtype=[D.float32, D.float64])
cases("adafactor_one_param", lambda T, i: _train(T, dict(lr=0.1), which=[i]), i=range(len(SHAPES)))
case("adafactor_lr_tensor", lambda T: _train(T, dict(lr=0.2), lr_tensor=True))
case("adafactor_one_step", lambda T: _train(T, steps=1))
case("adafactor_mixed_dtypes", lambda T: (lambda ps: (lambda opt: (
    [setattr(p, "grad", T.tensor(G[0][i], dtype=p.dtype)) for i, p in enumerate(ps)], opt.step(), ps,
    opt.state_dict())[2:])(T.optim.Adafactor(ps, lr=0.1)))(
    [T.tensor(P[i], dtype=(T.float64 if i % 2 else T.float32), requires_grad=True) for i in range(len(P))]))
case("adafactor_groups", lambda T: _train(T, dict(lr=0.1), groups=lambda ps: [
    {"params": ps[:2]}, {"params": ps[2:], "lr": 0.02, "weight_decay": 0.3, "eps": (1e-6, 1e-2)}]))
case("adafactor_no_grad_param", lambda T: (lambda ps: (lambda opt: (
    setattr(ps[1], "grad", T.tensor(G[0][2])), opt.step(), ps, opt.state_dict())[2:])(T.optim.Adafactor(ps)))(
    [T.tensor(P[i], requires_grad=True) for i in (1, 2)]))
case("adafactor_zero_grad_param", lambda T: (lambda p: (lambda opt: (
    setattr(p, "grad", T.zeros(3, 4)), opt.step(), p, opt.state_dict())[2:])(T.optim.Adafactor([p])))(
    T.tensor(P[2], requires_grad=True)))
case("adafactor_zero_param", lambda T: (lambda p: (lambda opt: (
    setattr(p, "grad", T.tensor(G[0][2])), opt.step(), p)[2])(T.optim.Adafactor([p])))(T.zeros(3, 4, requires_grad=True)))


X42 = _vals(4, 2)


def _closure_run(T):
    w = T.tensor(P[2], requires_grad=True)
    x = T.tensor(X42)
    opt = T.optim.Adafactor([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w @ x).square().sum()
        loss.backward()
        return loss
    losses = [opt.step(closure) for _ in range(4)]
    return losses, w.detach(), opt.state_dict()


case("adafactor_closure", _closure_run)


def _resume(T):
    ps, sd = _train(T, dict(lr=0.1), steps=3)
    qs = [T.tensor(p.tolist(), requires_grad=True) for p in ps]
    opt = T.optim.Adafactor(qs, lr=0.5)
    opt.load_state_dict(sd)
    for k in range(3, STEPS):
        for p, g in zip(qs, G[k]):
            p.grad = T.tensor(g)
        opt.step()
    return [q.detach() for q in qs], opt.state_dict()


case("adafactor_load_state_dict", _resume)
case("adafactor_state_keys", lambda T: (lambda sd: [sorted(s) for s in sd["state"].values()])(_train(T, steps=1)[1]))
case("adafactor_defaults", lambda T: sorted(T.optim.Adafactor([T.ones(2, requires_grad=True)]).defaults.items(),
                                            key=lambda kv: kv[0]))
print_case("adafactor_repr", lambda T: T.optim.Adafactor([T.ones(2, requires_grad=True)], lr=0.5, weight_decay=0.1))
case("adafactor_keyword_only", lambda T: _train(T, dict(lr=0.1, beta2_decay=-0.7, eps=(None, 1e-3), d=1.2,
                                                        weight_decay=0.01), steps=2))
case("adafactor_positional", lambda T: (lambda p: T.optim.Adafactor([p], 0.1, -0.7, (None, 1e-3), 1.2, 0.01).defaults)(
    T.ones(2, requires_grad=True)))
case("adafactor_in_all", lambda T: "Adafactor" in T.optim.__all__)


def _functional(T, foreach):
    ps = [T.tensor(P[i], requires_grad=True) for i in (1, 2)]
    gs = [T.tensor(G[0][i]) for i in (1, 2)]
    variances = [T.zeros(7), None]
    rows, cols = [None, T.zeros(3, 1)], [None, T.zeros(1, 4)]
    steps = [T.tensor(0.0), T.tensor(0.0)]
    with T.no_grad():
        submodule(T, "optim._adafactor").adafactor(
            ps, gs, rows, cols, variances, steps, foreach=foreach, d=1.0, lr=0.1, beta2_decay=-0.8,
            weight_decay=0.0, eps1=None, eps2=1e-3, maximize=False)
    return [p.detach() for p in ps], variances, rows, cols, steps


cases("adafactor_functional", lambda T, foreach: _functional(T, foreach), foreach=[False, True])


def _one(T):
    return [T.ones(2, requires_grad=True)]


ERRS = {"lr": dict(lr=-0.1), "beta2_decay": dict(beta2_decay=0.1), "eps1": dict(eps=(-1e-3, 1e-3)),
        "eps2": dict(eps=(None, -1e-3)), "d": dict(d=0.5), "weight_decay": dict(weight_decay=-0.1),
        "unknown": dict(betas=(0.9, 0.99)), "amsgrad": dict(amsgrad=True)}
cases("adafactor_bad", lambda T, e: T.optim.Adafactor(_one(T), **ERRS[e]), e=list(ERRS), kind="error")
error_case("adafactor_lr_tensor_2", lambda T: T.optim.Adafactor(_one(T), lr=T.tensor([0.1, 0.2])))
error_case("adafactor_empty", lambda T: T.optim.Adafactor([]))
error_case("adafactor_foreach_positional", lambda T: T.optim.Adafactor(_one(T), 0.1, -0.8, (None, 1e-3), 1.0, 0.0,
                                                                       True))
error_case("adafactor_functional_steps", lambda T: submodule(T, "optim._adafactor").adafactor(
    [T.ones(2)], [T.ones(2)], [None], [None], [T.zeros(2)], [0.0], d=1.0, lr=0.1, beta2_decay=-0.8, weight_decay=0.0,
    eps1=None, eps2=1e-3, maximize=False))
error_case("adafactor_step_leaf_grad_mode", lambda T: (lambda p: (setattr(p, "grad", T.ones(2)),
                                                                  submodule(T, "optim._adafactor").adafactor(
    [p], [p.grad], [None], [None], [T.zeros(2)], [T.tensor(0.0)], d=1.0, lr=0.1, beta2_decay=-0.8, weight_decay=0.0,
    eps1=None, eps2=1e-3, maximize=False)))(T.ones(2, requires_grad=True)))
