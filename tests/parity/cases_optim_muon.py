"""torch.optim.Muon (issue 24): parameters and state_dict after several steps for square, tall, wide and 1-row
2-d parameters (Newton-Schulz runs on the transpose when rows > columns), sweeping lr (float and tensor),
weight_decay, momentum, nesterov, ns_coefficients, ns_steps, eps and adjust_lr_fn; param groups, closures,
state_dict round trips, the functional form and torch's errors. The orthogonalisation runs in bfloat16 (as
torch's does), so values use the dtype's default tolerance."""
import random

from .harness import *  # noqa: F401,F403

_r = random.Random(20261204)


def _vals(*shape):
    if not shape:
        return _r.uniform(-1.5, 1.5)
    return [_vals(*shape[1:]) for _ in range(shape[0])]


def _gvals(*shape):  # uneven magnitudes, both signs
    if not shape:
        return _r.gauss(0.0, 1.0) * _r.choice((1e-3, 0.3, 1.0, 25.0))
    return [_gvals(*shape[1:]) for _ in range(shape[0])]


SHAPES = [(3, 4), (5, 2), (4, 4), (1, 6)]
P = [_vals(*s) for s in SHAPES]
STEPS = 5
G = [[_gvals(*s) for s in SHAPES] for _ in range(STEPS)]


def _train(T, kw=None, dtype=None, steps=STEPS, which=None, groups=None, lr_tensor=False):
    which = range(len(P)) if which is None else which
    ps = [T.tensor(P[i], dtype=dtype, requires_grad=True) for i in which]
    kw = dict(kw or {})
    if lr_tensor:
        kw["lr"] = T.tensor(kw.get("lr", 1e-3))
    opt = T.optim.Muon(groups(ps) if groups else ps, **kw)
    for k in range(steps):
        for p, i in zip(ps, which):
            p.grad = T.tensor(G[k % STEPS][i], dtype=p.dtype)
        opt.step()
    return [p.detach() for p in ps], opt.state_dict()


OPTS = {
    "default": {}, "lr": dict(lr=0.05), "weight_decay_0": dict(weight_decay=0.0), "weight_decay": dict(weight_decay=0.5),
    "momentum_0": dict(momentum=0.0), "momentum": dict(momentum=0.5), "nesterov_off": dict(nesterov=False),
    "ns_steps_1": dict(ns_steps=1), "ns_steps_0": dict(ns_steps=0), "ns_steps_8": dict(ns_steps=8),
    "coefficients": dict(ns_coefficients=(2.0, -1.5, 0.5)), "eps": dict(eps=10.0),
    "original": dict(adjust_lr_fn="original", lr=0.02), "match_rms_adamw": dict(adjust_lr_fn="match_rms_adamw", lr=0.02),
    "all": dict(lr=0.03, weight_decay=0.2, momentum=0.8, nesterov=False, ns_steps=3, adjust_lr_fn="match_rms_adamw"),
}
cases("muon", lambda T, o, dtype: _train(T, OPTS[o], dtype), o=list(OPTS), dtype=[D.float32, D.float64])
cases("muon_one_param", lambda T, i: _train(T, dict(lr=0.1), which=[i]), i=range(len(SHAPES)))
case("muon_lr_tensor", lambda T: _train(T, dict(lr=0.02), lr_tensor=True))
case("muon_one_step", lambda T: _train(T, steps=1))
case("muon_bfloat16_params", lambda T: _train(T, dict(lr=0.05), dtype=T.bfloat16, steps=2))
case("muon_groups", lambda T: _train(T, dict(lr=0.01), groups=lambda ps: [
    {"params": ps[:2]}, {"params": ps[2:], "lr": 0.05, "weight_decay": 0.0, "nesterov": False}]))
case("muon_no_grad_param", lambda T: (lambda ps: (lambda opt: (
    setattr(ps[1], "grad", T.tensor(G[0][1])), opt.step(), ps, opt.state_dict())[2:])(T.optim.Muon(ps)))(
    [T.tensor(P[i], requires_grad=True) for i in (0, 1)]))
case("muon_zero_grad", lambda T: (lambda p: (lambda opt: (
    setattr(p, "grad", T.zeros(3, 4)), opt.step(), p, opt.state_dict())[2:])(T.optim.Muon([p])))(
    T.tensor(P[0], requires_grad=True)))

X42 = _vals(4, 2)


def _closure_run(T):
    w = T.tensor(P[0], requires_grad=True)
    x = T.tensor(X42)
    opt = T.optim.Muon([w], lr=0.05)

    def closure():
        opt.zero_grad()
        loss = (w @ x).square().sum()
        loss.backward()
        return loss
    losses = [opt.step(closure) for _ in range(4)]
    return losses, w.detach(), opt.state_dict()


case("muon_closure", _closure_run)


def _resume(T):
    ps, sd = _train(T, dict(lr=0.05), steps=2)
    qs = [T.tensor(p.tolist(), requires_grad=True) for p in ps]
    opt = T.optim.Muon(qs, lr=0.5)
    opt.load_state_dict(sd)
    for k in range(2, STEPS):
        for p, g in zip(qs, G[k]):
            p.grad = T.tensor(g)
        opt.step()
    return [q.detach() for q in qs], opt.state_dict()


case("muon_load_state_dict", _resume)
case("muon_defaults", lambda T: sorted(T.optim.Muon([T.ones(2, 2, requires_grad=True)]).defaults.items(),
                                       key=lambda kv: kv[0]))
print_case("muon_repr", lambda T: T.optim.Muon([T.ones(2, 3, requires_grad=True)], lr=0.5, weight_decay=0.0))
case("muon_positional", lambda T: T.optim.Muon([T.ones(2, 2, requires_grad=True)], 0.1, 0.2, 0.3, False,
                                               (1.0, 2.0, 3.0), 1e-3, 4, "original").defaults)
case("muon_in_all", lambda T: "Muon" in T.optim.__all__)
ZP = {s: _vals(*s) for s in [(3, 5), (6, 2), (4, 4)]}
cases("muon_zeropower", lambda T, s: submodule(T, "optim._muon")._zeropower_via_newtonschulz(
    T.tensor(ZP[s]), (3.4445, -4.775, 2.0315), 5, 1e-7), s=list(ZP))
cases("muon_adjust_lr", lambda T, how, s: submodule(T, "optim._muon")._adjust_lr(0.1, how, T.Size(s)),
      how=[None, "original", "match_rms_adamw"], s=[(3, 5), (6, 2)])


def _functional(T, nesterov):
    ps = [T.tensor(P[i], requires_grad=True) for i in (0, 1)]
    gs = [T.tensor(G[0][i]) for i in (0, 1)]
    bufs = [T.zeros(3, 4), T.ones(5, 2)]
    with T.no_grad():
        submodule(T, "optim._muon").muon(ps, gs, bufs, lr=0.1, weight_decay=0.1, momentum=0.9, nesterov=nesterov,
                                         ns_coefficients=(3.4445, -4.775, 2.0315), ns_steps=5, eps=1e-7,
                                         adjust_lr_fn=None, has_complex=False)
    return [p.detach() for p in ps], bufs


cases("muon_functional", lambda T, nesterov: _functional(T, nesterov), nesterov=[False, True])


def _one(T):
    return [T.ones(2, 2, requires_grad=True)]


ERRS = {"lr": dict(lr=-0.1), "momentum": dict(momentum=-0.5), "weight_decay": dict(weight_decay=-0.1),
        "adjust": dict(adjust_lr_fn="bogus"), "unknown": dict(betas=(0.9, 0.99))}
cases("muon_bad", lambda T, e: T.optim.Muon(_one(T), **ERRS[e]), e=list(ERRS), kind="error")
error_case("muon_lr_tensor_2", lambda T: T.optim.Muon(_one(T), lr=T.tensor([0.1, 0.2])))
error_case("muon_empty", lambda T: T.optim.Muon([]))
error_case("muon_1d_param", lambda T: T.optim.Muon([T.ones(3, requires_grad=True)]))
error_case("muon_3d_param", lambda T: T.optim.Muon([T.ones(2, 3, 4, requires_grad=True)]))
error_case("muon_ns_steps_100", lambda T: _train(T, dict(ns_steps=100), steps=1))
error_case("muon_coefficients_2", lambda T: _train(T, dict(ns_coefficients=(1.0, 2.0)), steps=1))
error_case("muon_functional_foreach", lambda T: submodule(T, "optim._muon").muon(
    [T.ones(2, 2)], [T.ones(2, 2)], [T.zeros(2, 2)], foreach=True, lr=0.1, weight_decay=0.1, momentum=0.9,
    nesterov=True, ns_coefficients=(3.4445, -4.775, 2.0315), ns_steps=5, eps=1e-7, adjust_lr_fn=None,
    has_complex=False))
error_case("muon_functional_1d_grad", lambda T: submodule(T, "optim._muon").muon(
    [T.ones(2)], [T.ones(2)], [T.zeros(2)], lr=0.1, weight_decay=0.1, momentum=0.9,
    nesterov=True, ns_coefficients=(3.4445, -4.775, 2.0315), ns_steps=5, eps=1e-7, adjust_lr_fn=None,
    has_complex=False))
