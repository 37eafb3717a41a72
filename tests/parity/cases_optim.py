"""torch.optim: every optimizer with its options, run for 12 steps on uneven gradients; parameters and state_dict
compared bit for bit (rtol=0, atol=0) in float32 and float64 (Note [Optimiser arithmetic] in src/ops/optim.c), except
where the step takes a square root (VML below)."""
import random

from .harness import *  # noqa: F401,F403

_r = random.Random(20240613)


def _vals(n, lo=-2.0, hi=2.0):
    return [_r.uniform(lo, hi) for _ in range(n)]


def _grad_vals(n):
    # uneven magnitudes: tiny, ordinary and large gradients side by side, both signs
    return [_r.gauss(0.0, 1.0) * _r.choice((1e-3, 0.3, 1.0, 25.0)) for _ in range(n)]


# params: a vector (21 elements: a full 16-lane SIMD vector plus a tail), a 2x3 matrix, a 0-d scalar
P = [_vals(21), [_vals(3), _vals(3)], _r.uniform(-1, 1)]
STEPS = 12
G = [[_grad_vals(21), [_grad_vals(3), _grad_vals(3)], _grad_vals(1)[0]] for _ in range(STEPS)]
EXACT = dict(rtol=0, atol=0)
# Adam, AdamW, NAdam, RAdam, RMSprop, Adagrad and Adadelta take sqrt(state), which torch computes with MKL's VML, and
# VML's last bit depends on the CPU: correctly rounded but for 0.6% of float32 inputs on the Intel machines, 15.6%
# (float64: 1.2%) on AMD EPYC, up to 0.75 ulp off; wick's sqrt is correctly rounded. Over 12 steps (centered RMSprop
# subtracts nearly equal numbers) that moves float32 results up to ~1e-5 relative on AMD, so these cases use the
# dtypes' default tolerance.
VML = dict()


def _mod(T, name):
    """A torch.optim submodule (torch.optim.optimizer, .sgd, ...): reachable by import only."""
    return submodule(T, "optim." + name)


def _params(T, dtype=None, data=P):
    return [T.tensor(p, dtype=dtype, requires_grad=True) for p in data]


def _set_grads(T, ps, k, dtype=None):
    for p, g in zip(ps, G[k % STEPS]):
        p.grad = T.tensor(g, dtype=dtype if dtype is not None else p.dtype)


def _train(T, name, kw, dtype=None, steps=STEPS, groups=None, data=None, grads=None):
    """Runs `steps` optimizer steps; returns the params (detached: their grads are inputs) and the state_dict."""
    ps = _params(T, dtype, data if data is not None else P)
    opt = getattr(T.optim, name)(groups(ps) if groups else ps, **kw)
    for k in range(steps):
        if grads is None:
            _set_grads(T, ps, k)
        else:
            for p, g in zip(ps, grads[k % len(grads)]):
                p.grad = T.tensor(g, dtype=p.dtype)
        opt.step()
    return [p.detach() for p in ps], opt.state_dict()


# ---- SGD ----------------------------------------------------------------------------------------------------
def _sgd_kind(momentum, dampening, nesterov, **_):
    return "error" if nesterov and (momentum <= 0 or dampening != 0) else "value"


cases("sgd", lambda T, momentum, dampening, nesterov, weight_decay, maximize, dtype: _train(
      T, "SGD", dict(lr=0.05, momentum=momentum, dampening=dampening, nesterov=nesterov, weight_decay=weight_decay,
                     maximize=maximize), dtype),
      kind=_sgd_kind, momentum=[0, 0.9], dampening=[0, 0.3], nesterov=BOOLS, weight_decay=[0, 0.05],
      maximize=BOOLS, dtype=FLOAT, **EXACT)
cases("sgd_lr", lambda T, lr: _train(T, "SGD", dict(lr=lr, momentum=0.5)), lr=[1e-3, 0.1, 1.0, 3], **EXACT)
case("sgd_default_lr", lambda T: _train(T, "SGD", {}), **EXACT)
case("sgd_positional", lambda T: repr(T.optim.SGD(_params(T), 0.1, 0.9, 0.1, 0.01)))
case("sgd_foreach", lambda T: _train(T, "SGD", dict(lr=0.1, momentum=0.9, foreach=True)), **EXACT)
# torch's fused CPU SGD kernel rounds the momentum update differently from its for-loop path; wick runs the
# for-loop arithmetic for every flag, so fused=True agrees to the last bit or two only
case("sgd_fused", lambda T: _train(T, "SGD", dict(lr=0.1, momentum=0.9, fused=True)), rtol=1e-6, atol=0)
case("sgd_foreach_false", lambda T: _train(T, "SGD", dict(lr=0.1, momentum=0.9, foreach=False)), **EXACT)


# ---- Adam / AdamW ---------------------------------------------------------------------------------------------
cases("adam", lambda T, amsgrad, weight_decay, maximize, dtype: _train(
      T, "Adam", dict(lr=0.01, amsgrad=amsgrad, weight_decay=weight_decay, maximize=maximize), dtype),
      amsgrad=BOOLS, weight_decay=[0, 0.1], maximize=BOOLS, dtype=FLOAT, **VML)
cases("adam_betas", lambda T, betas, eps: _train(T, "Adam", dict(lr=0.003, betas=betas, eps=eps)),
      betas=[(0.9, 0.999), (0.5, 0.9), (0.0, 0.99), (0.95, 0.0)], eps=[1e-8, 1e-3], **VML)
cases("adam_decoupled", lambda T, amsgrad, dtype: _train(
      T, "Adam", dict(lr=0.01, weight_decay=0.2, decoupled_weight_decay=True, amsgrad=amsgrad), dtype),
      amsgrad=BOOLS, dtype=FLOAT, **VML)
case("adam_default", lambda T: _train(T, "Adam", {}), **VML)
case("adam_fused", lambda T: _train(T, "Adam", dict(lr=0.01, fused=False)), **VML)
case("adam_foreach", lambda T: _train(T, "Adam", dict(lr=0.01, foreach=True)), **VML)
case("adam_long", lambda T: _train(T, "Adam", dict(lr=0.02, amsgrad=True), steps=60), **VML)
cases("adamw", lambda T, amsgrad, weight_decay, maximize, dtype: _train(
      T, "AdamW", dict(lr=0.01, amsgrad=amsgrad, weight_decay=weight_decay, maximize=maximize), dtype),
      amsgrad=BOOLS, weight_decay=[0, 0.01, 0.3], maximize=BOOLS, dtype=FLOAT, **VML)
case("adamw_default", lambda T: _train(T, "AdamW", {}), **VML)
case("adamw_betas", lambda T: _train(T, "AdamW", dict(lr=0.005, betas=(0.8, 0.95), eps=1e-6)), **VML)


# ---- RMSprop ----------------------------------------------------------------------------------------------------
cases("rmsprop", lambda T, centered, momentum, weight_decay, maximize, dtype: _train(
      T, "RMSprop", dict(lr=0.01, centered=centered, momentum=momentum, weight_decay=weight_decay, maximize=maximize),
      dtype),
      centered=BOOLS, momentum=[0, 0.6], weight_decay=[0, 0.1], maximize=BOOLS, dtype=FLOAT, **VML)
cases("rmsprop_alpha", lambda T, alpha, eps: _train(T, "RMSprop", dict(lr=0.003, alpha=alpha, eps=eps, centered=True)),
      alpha=[0.9, 0.5, 0.0], eps=[1e-8, 1e-2], **VML)
case("rmsprop_default", lambda T: _train(T, "RMSprop", {}), **VML)


# ---- Adagrad ----------------------------------------------------------------------------------------------------
cases("adagrad", lambda T, lr_decay, weight_decay, initial_accumulator_value, maximize, dtype: _train(
      T, "Adagrad", dict(lr=0.1, lr_decay=lr_decay, weight_decay=weight_decay,
                         initial_accumulator_value=initial_accumulator_value, maximize=maximize), dtype),
      lr_decay=[0, 0.05], weight_decay=[0, 0.1], initial_accumulator_value=[0, 0.5], maximize=BOOLS, dtype=FLOAT,
      **VML)
case("adagrad_default", lambda T: _train(T, "Adagrad", {}), **VML)
case("adagrad_eps", lambda T: _train(T, "Adagrad", dict(eps=1e-3, lr=0.5)), **VML)
case("adagrad_fused", lambda T: _train(T, "Adagrad", dict(lr=0.1, fused=False)), **VML)


def _adagrad_state_before_step(T):
    # Adagrad builds state for every param in __init__, before any step
    ps = _params(T)
    opt = T.optim.Adagrad(ps, initial_accumulator_value=0.25)
    return opt.state_dict()


case("adagrad_state_at_init", _adagrad_state_before_step, **EXACT)


# ---- Adadelta, Adamax, NAdam, RAdam --------------------------------------------------------------------------------
cases("adadelta", lambda T, rho, weight_decay, maximize, dtype: _train(
      T, "Adadelta", dict(lr=1.0, rho=rho, weight_decay=weight_decay, maximize=maximize), dtype),
      rho=[0.9, 0.5, 1.0], weight_decay=[0, 0.1], maximize=BOOLS, dtype=FLOAT, **VML)
cases("adadelta_lr_eps", lambda T, lr, eps: _train(T, "Adadelta", dict(lr=lr, eps=eps)), lr=[0.1, 2.0],
      eps=[1e-6, 1e-2], **VML)
cases("adamax", lambda T, weight_decay, maximize, betas, dtype: _train(
      T, "Adamax", dict(lr=0.01, betas=betas, weight_decay=weight_decay, maximize=maximize), dtype),
      weight_decay=[0, 0.1], maximize=BOOLS, betas=[(0.9, 0.999), (0.5, 0.8)], dtype=FLOAT, **EXACT)
cases("nadam", lambda T, weight_decay, decoupled_weight_decay, momentum_decay, maximize, dtype: _train(
      T, "NAdam", dict(lr=0.01, weight_decay=weight_decay, decoupled_weight_decay=decoupled_weight_decay,
                       momentum_decay=momentum_decay, maximize=maximize), dtype),
      weight_decay=[0, 0.1], decoupled_weight_decay=BOOLS, momentum_decay=[4e-3, 0.5], maximize=BOOLS, dtype=FLOAT,
      **VML)
cases("radam", lambda T, weight_decay, decoupled_weight_decay, maximize, dtype: _train(
      T, "RAdam", dict(lr=0.01, weight_decay=weight_decay, decoupled_weight_decay=decoupled_weight_decay,
                       maximize=maximize), dtype, steps=15),
      weight_decay=[0, 0.1], decoupled_weight_decay=BOOLS, maximize=BOOLS, dtype=FLOAT, **VML)
cases("radam_betas", lambda T, betas: _train(T, "RAdam", dict(lr=0.01, betas=betas), steps=15),
      betas=[(0.9, 0.999), (0.5, 0.6), (0.9, 0.3)], **VML)
cases("defaults_run", lambda T, opt: _train(T, opt, {}),
      opt=["Adadelta", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "SGD", "Adam", "AdamW"], **VML)


# ---- layouts: non-contiguous, empty, float64 default dtype ----------------------------------------------------------
NC = [_vals(4) for _ in range(3)]


def _noncontig(T, name, kw):
    base = T.tensor(NC)
    p = base.t().requires_grad_()  # a non-contiguous leaf (4x3 view of a 3x4 tensor)
    opt = getattr(T.optim, name)([p], **kw)
    for k in range(6):
        p.grad = T.tensor([[g * (i + 1) for g in G[k][1][0]] for i in range(4)])
        opt.step()
    return p, opt.state_dict(), p.is_contiguous()


cases("noncontig", lambda T, opt: _noncontig(T, opt, {}),
      opt=["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"], **VML)


def _empty_param(T, opt):
    p = T.zeros(0, requires_grad=True)
    q = T.tensor([1.5, -0.5], requires_grad=True)
    o = getattr(T.optim, opt)([p, q], lr=0.1)
    for k in range(3):
        p.grad = T.zeros(0)
        q.grad = T.tensor([0.25 * (k + 1), -1.0])
        o.step()
    return p, q, o.state_dict()


cases("empty_param", _empty_param, opt=["SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"],
      **VML)


def _default_float64(T, opt):
    T.set_default_dtype(T.float64)
    try:
        return _train(T, opt, {}, steps=5)
    finally:
        T.set_default_dtype(T.float32)


cases("default_dtype_float64", _default_float64, opt=["Adam", "NAdam", "Adagrad", "RMSprop"], **VML)


# ---- param groups, grads that are None, zero_grad -------------------------------------------------------------------
def _two_groups(ps):
    return [{"params": ps[:1]}, {"params": ps[1:], "lr": 0.2, "momentum": 0.5}]


case("groups_sgd", lambda T: _train(T, "SGD", dict(lr=0.05), groups=_two_groups), **EXACT)
case("groups_adam", lambda T: _train(T, "Adam", dict(lr=0.01), groups=lambda ps: [
    {"params": ps[:2], "betas": (0.5, 0.6)}, {"params": ps[2:], "lr": 0.1, "amsgrad": True}]), **VML)
case("groups_param_groups", lambda T: [{k: v for k, v in g.items() if k != "params"}
                                       for g in T.optim.SGD(_two_groups(_params(T)), lr=0.05).param_groups])


def _skip_none_grads(T, opt):
    ps = _params(T)
    o = getattr(T.optim, opt)(ps, lr=0.1)
    for k in range(4):
        _set_grads(T, ps, k)
        ps[1].grad = None  # the middle param has no grad: torch skips it (no state is created)
        o.step()
    return ps, o.state_dict(), len(o.state)


cases("none_grad_skipped", _skip_none_grads,
      opt=["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"], **VML)


def _zero_grad(T, set_to_none):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1)
    _set_grads(T, ps, 0)
    opt.zero_grad(set_to_none=set_to_none)
    return [p.grad for p in ps]


cases("zero_grad", _zero_grad, set_to_none=BOOLS)
case("zero_grad_default", lambda T: [p.grad for p in (lambda ps, o: (_set_grads(T, ps, 1), o.zero_grad(), ps)[2])(
    *(lambda ps: (ps, T.optim.Adam(ps)))(_params(T)))])


def _zero_grad_graph_grad(T):
    # a grad with history is detached before it is zeroed
    p = T.tensor([1.0, 2.0], requires_grad=True)
    q = T.tensor([3.0, -1.0], requires_grad=True)
    p.grad = q * 2
    opt = T.optim.SGD([p], lr=0.1)
    opt.zero_grad(set_to_none=False)
    return p.grad, p.grad.requires_grad, p.grad.grad_fn is None


case("zero_grad_detaches", _zero_grad_graph_grad)


def _closure(T, opt):
    w = T.tensor([0.5, -1.5, 2.0], requires_grad=True)
    o = getattr(T.optim, opt)([w], lr=0.05)
    losses = []

    def closure():
        o.zero_grad()
        loss = (w * w * T.tensor([1.0, 2.0, 3.0])).sum()
        loss.backward()
        return loss
    for _ in range(5):
        losses.append(o.step(closure))
    return w, losses


# the loss is computed by wick's own mul/sum (summation order is the reduce kernels' business): tight tolerance
cases("closure", _closure, opt=["SGD", "Adam", "RMSprop", "Adagrad"], rtol=1e-6, atol=0)


# ---- state_dict / load_state_dict -----------------------------------------------------------------------------------
def _resume(T, name, kw):
    """Train 6 steps, save, load into a fresh optimizer over fresh params (copied), train 6 more: the result must
    equal 12 uninterrupted steps."""
    ps = _params(T)
    opt = getattr(T.optim, name)(ps, **kw)
    for k in range(6):
        _set_grads(T, ps, k)
        opt.step()
    sd = opt.state_dict()
    ps2 = [T.tensor(p.detach().tolist(), requires_grad=True) for p in ps]
    opt2 = getattr(T.optim, name)(ps2, **kw)
    opt2.load_state_dict(sd)
    for k in range(6, 12):
        _set_grads(T, ps2, k)
        opt2.step()
    return ps2, opt2.state_dict()


_RESUME = {"SGD": dict(lr=0.1, momentum=0.9), "Adam": dict(lr=0.01, amsgrad=True), "AdamW": dict(lr=0.01),
           "RMSprop": dict(centered=True, momentum=0.2), "Adagrad": dict(lr_decay=0.01), "Adadelta": {},
           "Adamax": {}, "NAdam": {}, "RAdam": {}}
cases("resume", lambda T, opt: _resume(T, opt, _RESUME[opt]), opt=list(_RESUME), **VML)


def _state_dict_layout(T, opt):
    ps = _params(T)
    o = getattr(T.optim, opt)(ps)
    _set_grads(T, ps, 0)
    o.step()
    sd = o.state_dict()
    return (list(sd), {k: list(v) for k, v in sd["state"].items()}, sd["param_groups"],
            [(k, v.dtype, v.shape) for s in sd["state"].values() for k, v in s.items()])


cases("state_dict_layout", _state_dict_layout, opt=list(_RESUME))


def _state_dict_shares(T):
    # state_dict() hands out the state tensors themselves, not copies
    ps = _params(T)
    opt = T.optim.Adam(ps)
    _set_grads(T, ps, 0)
    opt.step()
    sd = opt.state_dict()
    return sd["state"][0]["exp_avg"] is opt.state[ps[0]]["exp_avg"], sd["state"][0]["step"] is opt.state[ps[0]]["step"]


case("state_dict_shares_tensors", _state_dict_shares)


def _load_casts(T):
    # loading float64 state into float32 params casts every tensor but 'step' to the param's dtype
    ps64 = _params(T, T.float64)
    opt = T.optim.Adam(ps64)
    _set_grads(T, ps64, 0)
    opt.step()
    ps = _params(T)
    opt2 = T.optim.Adam(ps)
    opt2.load_state_dict(opt.state_dict())
    st = opt2.state[ps[0]]
    return st["exp_avg"].dtype, st["exp_avg_sq"].dtype, st["step"].dtype, st["exp_avg"]


case("load_casts_to_param_dtype", _load_casts, **EXACT)


def _load_keeps_step(T):
    ps = _params(T)
    opt = T.optim.Adam(ps)
    sd = {"state": {0: {"step": T.tensor(3.0, dtype=T.float64), "exp_avg": T.zeros(21, dtype=T.float64),
                        "exp_avg_sq": T.ones(21, dtype=T.float64)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0], lr=0.5)]}
    opt.load_state_dict(sd)
    st = opt.state[ps[0]]
    return st["step"], st["exp_avg"].dtype, opt.param_groups[0]["lr"], len(opt.state)


case("load_step_not_cast", _load_keeps_step)


def _load_same_dtype_shares(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, momentum=0.9)
    _set_grads(T, ps, 0)
    opt.step()
    sd = opt.state_dict()
    opt2 = T.optim.SGD(_params(T), momentum=0.9)
    opt2.load_state_dict(sd)
    return [v["momentum_buffer"] is sd["state"][k]["momentum_buffer"] for k, v in
            zip(sd["state"], opt2.state.values())]


case("load_same_dtype_shares", _load_same_dtype_shares)


def _load_number_step(T):
    # an old-style checkpoint with a float 'step' becomes a tensor step on load (__setstate__)
    ps = _params(T)
    opt = T.optim.Adam(ps[:1])
    opt.load_state_dict({"state": {0: {"step": 4.0, "exp_avg": T.zeros(21), "exp_avg_sq": T.zeros(21)}},
                         "param_groups": opt.state_dict()["param_groups"]})
    st = opt.state[ps[0]]
    return st["step"], type(st["step"]).__name__


case("load_number_step", _load_number_step)
error_case("load_wrong_group_count", lambda T: T.optim.SGD(_params(T)).load_state_dict(
    {"state": {}, "param_groups": []}))
error_case("load_wrong_group_size", lambda T: T.optim.SGD(_params(T)).load_state_dict(
    {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}))


def _load_replaces_groups(T):
    opt = T.optim.SGD(_params(T), lr=0.1)
    opt2 = T.optim.SGD(_params(T), lr=0.7, momentum=0.3)
    opt.load_state_dict(opt2.state_dict())
    return repr(opt), opt.defaults


case("load_replaces_hyperparams", _load_replaces_groups)


# ---- named parameters --------------------------------------------------------------------------------------------
def _named(T):
    ps = _params(T)
    opt = T.optim.Adam([("w", ps[0]), ("m", ps[1]), ("s", ps[2])], lr=0.01)
    _set_grads(T, ps, 0)
    opt.step()
    return opt.state_dict(), opt.param_groups[0]["param_names"], repr(opt)


case("named_parameters", _named, **EXACT)


def _named_groups(T):
    ps = _params(T)
    opt = T.optim.SGD([{"params": [("a", ps[0])]}, {"params": [("b", ps[1]), ("c", ps[2])], "lr": 0.5}], lr=0.1)
    return opt.state_dict()["param_groups"]


case("named_parameter_groups", _named_groups)
error_case("named_mixed", lambda T: T.optim.SGD([("a", _params(T)[0]), _params(T)[1]]))


def _named_group_mismatch(T):
    ps = _params(T)
    opt = T.optim.SGD([("a", ps[0])])
    opt.add_param_group({"params": [ps[1]]})


error_case("named_group_mismatch", _named_group_mismatch)


def _named_load_keeps_names(T):
    ps = _params(T)
    opt = T.optim.SGD([("a", ps[0]), ("b", ps[1])], momentum=0.5)
    sd = T.optim.SGD(_params(T)[:2], momentum=0.5, lr=0.3).state_dict()
    opt.load_state_dict(sd)
    return opt.param_groups[0]["param_names"], opt.param_groups[0]["lr"]


case("named_load_keeps_names", _named_load_keeps_names)


# ---- add_param_group and construction errors --------------------------------------------------------------------
def _add_group(T):
    ps = _params(T)
    opt = T.optim.SGD(ps[:1], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": ps[1], "lr": 0.01})
    opt.add_param_group({"params": (p for p in ps[2:])})
    for k in range(4):
        _set_grads(T, ps, k)
        opt.step()
    return ps, opt.state_dict(), repr(opt)


case("add_param_group", _add_group, **EXACT)
error_case("add_param_group_duplicate", lambda T: (lambda ps: T.optim.SGD(ps).add_param_group({"params": ps[:1]}))(
    _params(T)))
error_case("add_param_group_not_dict", lambda T: T.optim.SGD(_params(T)).add_param_group([1]))
error_case("add_param_group_set", lambda T: T.optim.SGD(_params(T)[:1]).add_param_group({"params": {1, 2}}))
error_case("empty_params", lambda T: T.optim.SGD([]))
error_case("empty_params_adam", lambda T: T.optim.Adam(iter([]), lr=0.1))
error_case("tensor_params", lambda T: T.optim.SGD(T.tensor([1.0, 2.0], requires_grad=True)))
error_case("non_leaf", lambda T: T.optim.SGD([T.tensor([1.0, 2.0], requires_grad=True) * 2]))
error_case("not_a_tensor_int", lambda T: T.optim.SGD([1, 2]))
error_case("not_a_tensor_str", lambda T: T.optim.Adam([T.zeros(2, requires_grad=True), "w"]))
error_case("not_a_tensor_list", lambda T: T.optim.Adam([[1.0, 2.0]]))
error_case("param_in_two_groups", lambda T: (lambda p: T.optim.SGD([{"params": [p]}, {"params": [p]}]))(
    T.zeros(2, requires_grad=True)))


def _duplicate_warns(T):
    p = T.zeros(2, requires_grad=True)
    opt = T.optim.SGD([p, p], lr=0.1)
    return len(opt.param_groups[0]["params"])


case("duplicate_param_warns", _duplicate_warns, warns=True)


def _retains_grad_ok(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    return len(T.optim.SGD([y]).param_groups[0]["params"])


case("retains_grad_nonleaf_ok", _retains_grad_ok)


def _required_lr(T):
    class Plain(T.optim.Optimizer):
        def __init__(self, params, lr=_mod(T, "optimizer").required):
            super().__init__(params, dict(lr=lr))
    return Plain([T.zeros(2, requires_grad=True)])


error_case("required_lr_missing", _required_lr)
case("required_repr", lambda T: repr(_mod(T, "optimizer").required))


def _required_given(T):
    class Plain(T.optim.Optimizer):
        def __init__(self, params, lr=_mod(T, "optimizer").required):
            super().__init__(params, dict(lr=lr))
    o = Plain([{"params": [T.zeros(2, requires_grad=True)], "lr": 0.3}])
    return o.param_groups[0]["lr"], repr(o)


case("required_lr_given", _required_given)

_BAD = [
    ("sgd_lr", "SGD", dict(lr=-0.1)), ("sgd_momentum", "SGD", dict(momentum=-0.5)),
    ("sgd_wd", "SGD", dict(weight_decay=-1e-4)), ("sgd_nesterov_no_momentum", "SGD", dict(nesterov=True)),
    ("sgd_nesterov_dampening", "SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
    ("sgd_tensor_lr_2elem", "SGD", "tensor_lr"),
    ("adam_lr", "Adam", dict(lr=-1e-3)), ("adam_eps", "Adam", dict(eps=-1e-8)),
    ("adam_beta0", "Adam", dict(betas=(1.0, 0.999))), ("adam_beta1", "Adam", dict(betas=(0.9, -0.1))),
    ("adam_beta0_neg", "Adam", dict(betas=(-0.1, 0.999))), ("adam_wd", "Adam", dict(weight_decay=-0.1)),
    ("adam_betas_mixed", "Adam", dict(betas=(0, 0.999))), ("adam_fused_differentiable", "Adam",
                                                           dict(fused=True, differentiable=True)),
    ("adam_fused_foreach", "Adam", dict(fused=True, foreach=True)),
    ("adamw_beta1", "AdamW", dict(betas=(0.9, 1.0))), ("adamw_lr", "AdamW", dict(lr=-2.0)),
    ("rmsprop_lr", "RMSprop", dict(lr=-1.0)), ("rmsprop_eps", "RMSprop", dict(eps=-1.0)),
    ("rmsprop_momentum", "RMSprop", dict(momentum=-0.1)), ("rmsprop_wd", "RMSprop", dict(weight_decay=-0.1)),
    ("rmsprop_alpha", "RMSprop", dict(alpha=-0.5)),
    ("adagrad_lr", "Adagrad", dict(lr=-0.1)), ("adagrad_lr_decay", "Adagrad", dict(lr_decay=-0.1)),
    ("adagrad_wd", "Adagrad", dict(weight_decay=-0.1)),
    ("adagrad_init_acc", "Adagrad", dict(initial_accumulator_value=-0.1)),
    ("adagrad_eps", "Adagrad", dict(eps=-0.1)), ("adagrad_fused_foreach", "Adagrad", dict(fused=True, foreach=True)),
    ("adadelta_lr", "Adadelta", dict(lr=-1.0)), ("adadelta_rho", "Adadelta", dict(rho=1.5)),
    ("adadelta_rho_neg", "Adadelta", dict(rho=-0.5)), ("adadelta_eps", "Adadelta", dict(eps=-1.0)),
    ("adadelta_wd", "Adadelta", dict(weight_decay=-1.0)),
    ("adamax_lr", "Adamax", dict(lr=-1.0)), ("adamax_eps", "Adamax", dict(eps=-1.0)),
    ("adamax_beta", "Adamax", dict(betas=(0.9, 1.5))), ("adamax_wd", "Adamax", dict(weight_decay=-1.0)),
    ("nadam_lr", "NAdam", dict(lr=-1.0)), ("nadam_eps", "NAdam", dict(eps=-1.0)),
    ("nadam_beta", "NAdam", dict(betas=(2.0, 0.9))), ("nadam_wd", "NAdam", dict(weight_decay=-1.0)),
    ("nadam_momentum_decay", "NAdam", dict(momentum_decay=-1.0)),
    ("radam_lr", "RAdam", dict(lr=-1.0)), ("radam_eps", "RAdam", dict(eps=-1.0)),
    ("radam_beta", "RAdam", dict(betas=(0.9, 1.0))), ("radam_wd", "RAdam", dict(weight_decay=-1.0)),
    ("sgd_fused_differentiable", "SGD", dict(fused=True, differentiable=True)),
]


def _bad(T, name, kw):
    if kw == "tensor_lr":
        kw = dict(lr=T.tensor([0.1, 0.2]))
    return getattr(T.optim, name)(_params(T), **kw)


for _label_, _name_, _kw_ in _BAD:
    error_case("invalid_" + _label_, lambda T, n=_name_, kw=_kw_: _bad(T, n, kw))


def _capturable_step(T, name):
    ps = _params(T)
    opt = getattr(T.optim, name)(ps, capturable=True)
    _set_grads(T, ps, 0)
    opt.step()


for _name_ in ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam"]:
    error_case("capturable_on_cpu_" + _name_, lambda T, n=_name_: _capturable_step(T, n))


def _capturable_no_grads(T):
    # without any grad the step has nothing to check
    opt = T.optim.Adam(_params(T), capturable=True)
    opt.step()
    return len(opt.state)


case("capturable_without_grads", _capturable_no_grads)


# ---- repr, defaults, state -----------------------------------------------------------------------------------------
_REPR = {"SGD": {}, "Adam": {}, "AdamW": {}, "RMSprop": {}, "Adagrad": {}, "Adadelta": {}, "Adamax": {},
         "NAdam": {}, "RAdam": {}}
cases("repr", lambda T, opt: repr(getattr(T.optim, opt)(_params(T))), opt=list(_REPR))
cases("defaults", lambda T, opt: getattr(T.optim, opt)(_params(T)).defaults, opt=list(_REPR))
case("repr_sgd_options", lambda T: repr(T.optim.SGD(_params(T), lr=0.1, momentum=0.9, nesterov=True,
                                                    weight_decay=1e-4, maximize=True)))
case("repr_two_groups", lambda T: repr(T.optim.Adam([{"params": _params(T)[:1]},
                                                     {"params": _params(T)[1:], "lr": 0.5, "betas": (0.1, 0.2)}])))
case("repr_tensor_lr", lambda T: repr(T.optim.SGD(_params(T), lr=T.tensor(0.01))))
case("str_adam", lambda T: str(T.optim.Adam(_params(T), lr=3e-4, weight_decay=0.1, amsgrad=True)))
case("optim_all", lambda T: sorted(n for n in T.optim.__all__ if n not in ("swa_utils",
                                                                          "swap_in_optimizer_params_and_state")))
case("class_names", lambda T: [(c.__name__, c.__module__.replace("wick", "torch"))
                               for c in (T.optim.SGD, T.optim.Adam, T.optim.AdamW, T.optim.Optimizer)])
cases("submodule_not_attribute", lambda T, sub: hasattr(T.optim, sub),
      sub=["sgd", "adam", "optimizer", "lr_scheduler", "rmsprop", "asgd", "rprop", "sparse_adam", "lbfgs"])


def _state_is_defaultdict(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, momentum=0.9)
    before = len(opt.state)
    _set_grads(T, ps, 0)
    opt.step()
    return (type(opt.state).__name__, before, len(opt.state), sorted(opt.state[ps[0]]),
            opt.state[ps[0]]["momentum_buffer"], dict(opt.state[T.zeros(1)]))


case("state_defaultdict", _state_is_defaultdict, **EXACT)


def _sgd_no_momentum_state(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1)
    _set_grads(T, ps, 0)
    opt.step()
    return len(opt.state), opt.state_dict()["state"]


case("sgd_no_momentum_no_state", _sgd_no_momentum_state)


# ---- hooks -----------------------------------------------------------------------------------------------------
def _step_hooks(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1)
    log = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", type(o).__name__, args[1:], kwargs)))
    opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", len(args), kwargs)))
    _set_grads(T, ps, 0)
    opt.step()
    h1.remove()
    opt.step(closure=None)
    return log


case("step_hooks", _step_hooks)


def _pre_hook_rewrites_args(T):
    w = T.tensor([1.0, -2.0], requires_grad=True)
    opt = T.optim.SGD([w], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    opt.register_step_pre_hook(lambda o, args, kwargs: ((args[0],), {"closure": closure}))
    loss = opt.step()
    return loss, w


case("pre_hook_rewrites_args", _pre_hook_rewrites_args, **EXACT)


def _global_hooks(T):
    ps = _params(T)
    opt = T.optim.Adam(ps)
    log = []
    h1 = _mod(T, "optimizer").register_optimizer_step_pre_hook(lambda o, a, k: log.append("global pre"))
    h2 = _mod(T, "optimizer").register_optimizer_step_post_hook(lambda o, a, k: log.append("global post"))
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    try:
        _set_grads(T, ps, 0)
        opt.step()
    finally:
        h1.remove()
        h2.remove()
    opt.step()
    return log


case("global_step_hooks_order", _global_hooks)


def _state_dict_hooks(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1, momentum=0.5)
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: log.append("pre first"), prepend=True)

    def post(o, sd):
        log.append(("post", sorted(sd)))
        sd["extra"] = 1
        return sd
    opt.register_state_dict_post_hook(post)
    sd = opt.state_dict()
    opt.register_load_state_dict_pre_hook(lambda o, s: log.append(("load pre", sorted(s))))
    opt.register_load_state_dict_post_hook(lambda o: log.append("load post"))
    opt.load_state_dict(sd)
    return log, sorted(sd)


case("state_dict_hooks", _state_dict_hooks)


def _load_pre_hook_replaces(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1)

    def pre(o, sd):
        sd = dict(sd)
        sd["param_groups"] = [dict(g, lr=0.75) for g in sd["param_groups"]]
        return sd
    opt.register_load_state_dict_pre_hook(pre)
    opt.load_state_dict(opt.state_dict())
    return opt.param_groups[0]["lr"]


case("load_pre_hook_replaces", _load_pre_hook_replaces)


def _bad_pre_hook(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: 5)
    opt.step()


error_case("pre_hook_bad_return", _bad_pre_hook, match=r"must return None or a tuple of \(new_args, new_kwargs\), "
                                                        r"but got 5\.")


# ---- subclassing ------------------------------------------------------------------------------------------------
def _custom_optimizer(T):
    class SignSGD(T.optim.Optimizer):
        def __init__(self, params, lr=0.01):
            super().__init__(params, dict(lr=lr))

        def step(self, closure=None):
            with T.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.sub_(p.grad.sign() * group["lr"]) if hasattr(p.grad, "sign") else None
                            self.state[p]["n"] = self.state[p].get("n", 0) + 1
            return None
    ps = _params(T)
    opt = SignSGD(ps, lr=0.1)
    log = []
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    _set_grads(T, ps, 0)
    opt.step()
    return opt.state_dict(), log, repr(opt)


case("custom_subclass_hooks", _custom_optimizer)


def _pickle_state(T):
    ps = _params(T)
    opt = T.optim.SGD(ps, lr=0.1)
    st = opt.__getstate__()
    return sorted(st), st["defaults"]


case("getstate", _pickle_state)


def _functional(T):
    ps = _params(T)
    grads = [T.tensor(g) for g in G[0]]
    bufs = [None, None, None]
    with T.no_grad():
        _mod(T, "sgd").sgd(ps, grads, bufs, weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False,
                           maximize=False)
    return [p.detach() for p in ps], bufs


case("functional_sgd", _functional, **EXACT)
error_case("functional_sgd_grad_mode", lambda T: _mod(T, "sgd").sgd(
    _params(T), [T.tensor(g) for g in G[0]], [None] * 3, weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0,
    nesterov=False, maximize=False))


def _functional_adam(T):
    with T.no_grad():
        ps = [T.tensor(p) for p in P]
        grads = [T.tensor(g) for g in G[1]]
        m = [T.zeros_like(p) for p in ps]
        v = [T.zeros_like(p) for p in ps]
        steps = [T.tensor(0.0) for _ in ps]
        for _ in range(3):
            _mod(T, "adam").adam(ps, grads, m, v, [], steps, amsgrad=False, beta1=0.9, beta2=0.99, lr=0.1,
                              weight_decay=0.0, eps=1e-8, maximize=False)
    return ps, m, v, steps


case("functional_adam", _functional_adam, **VML)


# ---- ASGD, Rprop, SparseAdam --------------------------------------------------------------------------------------
cases("asgd", lambda T, t0, weight_decay, maximize, dtype: _train(
      T, "ASGD", dict(lr=0.05, lambd=1e-3, alpha=0.75, t0=t0, weight_decay=weight_decay, maximize=maximize), dtype),
      t0=[1e6, 3, 0.5], weight_decay=[0, 0.1], maximize=BOOLS, dtype=FLOAT, **EXACT)
cases("asgd_lambd_alpha", lambda T, lambd, alpha: _train(T, "ASGD", dict(lr=0.1, lambd=lambd, alpha=alpha, t0=2)),
      lambd=[1e-4, 0.5], alpha=[0.75, 1.5], **EXACT)
case("asgd_default", lambda T: _train(T, "ASGD", {}), **EXACT)
cases("rprop", lambda T, etas, step_sizes, maximize, dtype: _train(
      T, "Rprop", dict(lr=0.01, etas=etas, step_sizes=step_sizes, maximize=maximize), dtype),
      etas=[(0.5, 1.2), (0.1, 3.0)], step_sizes=[(1e-6, 50), (1e-3, 0.02)], maximize=BOOLS, dtype=FLOAT, **EXACT)
case("rprop_default", lambda T: _train(T, "Rprop", {}), **EXACT)


def _rprop_zero_grads(T):
    # zero products keep the step size; sign changes shrink it and skip the update
    p = T.tensor([1.0, -2.0, 0.5, 3.0], requires_grad=True)
    opt = T.optim.Rprop([p], lr=0.1)
    for g in ([0.5, 0.0, -1.0, 2.0], [0.25, 1.0, 1.0, 0.0], [-0.5, 1.0, 0.0, -1.0], [0.0, -3.0, 2.0, 2.0]):
        p.grad = T.tensor(g)
        opt.step()
    return p.detach(), opt.state_dict()


case("rprop_signs", _rprop_zero_grads, **EXACT)
cases("repr_more", lambda T, opt: repr(getattr(T.optim, opt)(_params(T))), opt=["ASGD", "Rprop", "SparseAdam"])
cases("resume_more", lambda T, opt: _resume(T, opt, {"ASGD": dict(t0=4), "Rprop": {}}[opt]), opt=["ASGD", "Rprop"],
      **EXACT)
cases("state_dict_layout_more", _state_dict_layout, opt=["ASGD", "Rprop"])
cases("noncontig_more", lambda T, opt: _noncontig(T, opt, {}), opt=["ASGD", "Rprop"], **EXACT)
error_case("invalid_asgd_lr", lambda T: T.optim.ASGD(_params(T), lr=-1.0))
error_case("invalid_asgd_wd", lambda T: T.optim.ASGD(_params(T), weight_decay=-1.0))
error_case("invalid_rprop_etas", lambda T: T.optim.Rprop(_params(T), etas=(1.5, 1.2)))
error_case("invalid_rprop_etas_plus", lambda T: T.optim.Rprop(_params(T), etas=(0.5, 0.9)))
error_case("invalid_sparse_adam_lr", lambda T: T.optim.SparseAdam(_params(T), lr=0.0))
error_case("invalid_sparse_adam_eps", lambda T: T.optim.SparseAdam(_params(T), eps=0.0))
error_case("invalid_sparse_adam_beta", lambda T: T.optim.SparseAdam(_params(T), betas=(0.9, 1.0)))


def _sparse_adam_dense(T):
    ps = _params(T)
    opt = T.optim.SparseAdam(ps)
    _set_grads(T, ps, 0)
    opt.step()


error_case("sparse_adam_dense_grad", _sparse_adam_dense)
case("sparse_adam_no_grads", lambda T: (lambda o: (o.step(), len(o.state))[1])(T.optim.SparseAdam(_params(T))))
for _name_ in ["ASGD", "Rprop"]:
    error_case("capturable_on_cpu_" + _name_, lambda T, n=_name_: _capturable_step(T, n))


# ---- float16 / bfloat16 --------------------------------------------------------------------------------------------
# computed in float and rounded after every torch op; 70 elements = two full 32-lane vectors plus a tail, where
# torch's add(alpha) rounds differently (Note [Optimiser arithmetic])
P70 = [[_r.uniform(-2, 2) for _ in range(70)], _vals(5)]
G70 = [[[_r.gauss(0.0, 1.0) * _r.choice((1e-2, 0.3, 1.0, 4.0)) for _ in range(70)], _grad_vals(5)] for _ in range(8)]
_HALF_KW = {"SGD": dict(lr=0.05, momentum=0.9, weight_decay=0.01), "SGD_nesterov": dict(lr=0.05, momentum=0.9,
                                                                                        nesterov=True),
            "Adam": dict(lr=0.01, weight_decay=0.1), "AdamW": dict(lr=0.01, amsgrad=True),
            "RMSprop": dict(lr=0.01, weight_decay=0.1), "RMSprop_momentum": dict(lr=0.01, momentum=0.5, centered=True),
            "Adagrad": dict(lr=0.1, weight_decay=0.1), "Adadelta": dict(weight_decay=0.1), "Adamax": dict(lr=0.01),
            "NAdam": dict(lr=0.01, weight_decay=0.1), "RAdam": dict(lr=0.01), "ASGD": dict(lr=0.05, t0=2),
            "Rprop": {}}
cases("half", lambda T, opt, dtype: _train(T, opt.split("_")[0], _HALF_KW[opt], dtype, steps=8, data=P70,
                                           grads=G70),
      opt=list(_HALF_KW), dtype=HALF, **EXACT)
cases("half_small", lambda T, opt, dtype: _train(T, opt.split("_")[0], _HALF_KW[opt], dtype),
      opt=["SGD", "Adam", "RMSprop", "Adadelta", "ASGD"], dtype=HALF, **EXACT)
