"""torch.optim.lr_scheduler: every scheduler's lr (and momentum) trajectory over many epochs, compared exactly
(rtol=0: the values are pure Python float arithmetic), state_dict/load_state_dict, the warnings and the errors."""
from .harness import *  # noqa: F401,F403

EXACT = dict(rtol=0, atol=0)
EPOCHS = 50


def _sched(T):
    return T.optim.lr_scheduler


def _opt(T, name="SGD", lr=0.1, groups=1, **kw):
    ps = [T.tensor([1.0, -2.0], requires_grad=True) for _ in range(groups)]
    if groups == 1:
        params = ps
    else:
        params = [{"params": [p], "lr": lr * (i + 1) / groups} for i, p in enumerate(ps)]
    if name == "SGD":
        kw.setdefault("momentum", 0.9)
    return getattr(T.optim, name)(params, lr=lr, **kw)


def _trajectory(T, make, epochs=EPOCHS, opt=None, metrics=None, name="SGD", groups=1):
    """lr and momentum (or beta1) of every group before the first step and after every scheduler step."""
    o = opt if opt is not None else _opt(T, name, groups=groups)
    s = make(T, o)

    def snap():
        # get_last_lr(), and the momentum (or beta1) of every group; the groups' lr is checked against
        # get_last_lr() at the end (it is the same number)
        row = list(s.get_last_lr())
        for g in o.param_groups:
            if "momentum" in g:
                row.append(g["momentum"])
            if "betas" in g:
                row.append(g["betas"][0])
        return row
    out = [snap()]
    for e in range(epochs):
        o.step()
        if metrics is None:
            s.step()
        else:
            s.step(metrics[e % len(metrics)])
        out.append(snap())
    return out, getattr(s, "last_epoch", None), [g["lr"] for g in o.param_groups]


def _sweep(name, make, kind="value", **axes):
    cases(name, lambda T, **kw: _trajectory(T, lambda T_, o: make(T_, o, **kw)), kind=kind, **axes, **EXACT)


L = _sched

# ---- one-factor schedules ---------------------------------------------------------------------------------------
_sweep("step_lr", lambda T, o, step_size, gamma: L(T).StepLR(o, step_size, gamma), step_size=[1, 3, 7],
       gamma=[0.1, 0.5, 0.93])
_sweep("multistep_lr", lambda T, o, milestones, gamma: L(T).MultiStepLR(o, milestones, gamma),
       milestones=[[5, 10, 30], [3, 3, 20], [40, 2], [0, 1]], gamma=[0.1, 0.7])
_sweep("exponential_lr", lambda T, o, gamma: L(T).ExponentialLR(o, gamma), gamma=[0.5, 0.9, 0.999, 1.01])
_sweep("cosine_annealing_lr", lambda T, o, T_max, eta_min: L(T).CosineAnnealingLR(o, T_max, eta_min),
       T_max=[1, 10, 25, 100], eta_min=[0.0, 1e-3, 0.05])
_sweep("cosine_warm_restarts", lambda T, o, T_0, T_mult, eta_min: L(T).CosineAnnealingWarmRestarts(
    o, T_0, T_mult, eta_min), T_0=[1, 5, 13], T_mult=[1, 2, 3], eta_min=[0.0, 0.01])
_LAMBDAS = {"pow": lambda e: 0.95 ** e, "inverse": lambda e: 1.0 / (e + 1),
            "warmup_step": lambda e: min(1.0, (e + 1) / 10) * 0.5 ** (e // 20)}
_FACTORS = {"const": lambda e: 0.97, "every4": lambda e: 0.9 if e % 4 == 0 else 1.0,
            "growing": lambda e: 1.0 + 1.0 / (e + 3)}
_sweep("lambda_lr", lambda T, o, f: L(T).LambdaLR(o, _LAMBDAS[f]), f=list(_LAMBDAS))
_sweep("multiplicative_lr", lambda T, o, f: L(T).MultiplicativeLR(o, _FACTORS[f]), f=list(_FACTORS))
_sweep("linear_lr", lambda T, o, start_factor, end_factor, total_iters: L(T).LinearLR(
    o, start_factor, end_factor, total_iters), start_factor=[1.0 / 3, 0.05, 1.0], end_factor=[1.0, 0.2],
    total_iters=[5, 17, 1])
# factor=0 is accepted, and divides by zero when the constant phase ends (ZeroDivisionError, as in torch)
_sweep("constant_lr", lambda T, o, factor, total_iters: L(T).ConstantLR(o, factor, total_iters),
       kind=lambda factor, total_iters: "error" if factor == 0 else "value",
       factor=[1.0 / 3, 0.5, 0.0, 1.0], total_iters=[5, 12])
_sweep("polynomial_lr", lambda T, o, total_iters, power: L(T).PolynomialLR(o, total_iters, power),
       total_iters=[5, 30, 59], power=[1.0, 2.0, 0.5])
case("defaults_linear_constant_poly", lambda T: [_trajectory(T, lambda T_, o: L(T_).LinearLR(o), 10),
                                                 _trajectory(T, lambda T_, o: L(T_).ConstantLR(o), 10),
                                                 _trajectory(T, lambda T_, o: L(T_).PolynomialLR(o), 10)], **EXACT)

# ---- cyclic schedules with momentum -------------------------------------------------------------------------------
cases("one_cycle_lr", lambda T, anneal_strategy, three_phase, cycle_momentum, opt: _trajectory(
    T, lambda T_, o: L(T_).OneCycleLR(o, 0.8, total_steps=EPOCHS + 1, anneal_strategy=anneal_strategy,
                                      three_phase=three_phase, cycle_momentum=cycle_momentum), name=opt),
    anneal_strategy=["cos", "linear"], three_phase=BOOLS, cycle_momentum=BOOLS, opt=["SGD", "Adam", "NAdam"],
    **EXACT)
cases("one_cycle_lr_options", lambda T, pct_start, div_factor, final_div_factor: _trajectory(
    T, lambda T_, o: L(T_).OneCycleLR(o, [0.5], epochs=6, steps_per_epoch=10, pct_start=pct_start,
                                      div_factor=div_factor, final_div_factor=final_div_factor, base_momentum=0.7,
                                      max_momentum=0.99)),
    pct_start=[0.3, 0.5, 0.05], div_factor=[25.0, 4.0], final_div_factor=[1e4, 10.0], **EXACT)
case("one_cycle_two_groups", lambda T: _trajectory(T, lambda T_, o: L(T_).OneCycleLR(
    o, [0.4, 0.9], total_steps=EPOCHS, base_momentum=[0.8, 0.7], max_momentum=0.95), epochs=EPOCHS - 1, groups=2),
    **EXACT)
cases("cyclic_lr", lambda T, mode, steps, cycle_momentum, opt: _trajectory(
    T, lambda T_, o: L(T_).CyclicLR(o, 0.01, 0.2, step_size_up=steps[0], step_size_down=steps[1], mode=mode,
                                    gamma=0.97, cycle_momentum=cycle_momentum), name=opt),
    mode=["triangular", "triangular2", "exp_range"], steps=[(5, None), (3, 8)], cycle_momentum=BOOLS,
    opt=["SGD", "Adam"], **EXACT)


def _scale_fn(x):
    return 1.0 / (1.0 + 0.1 * x)


cases("cyclic_lr_scale_fn", lambda T, scale_mode: _trajectory(T, lambda T_, o: L(T_).CyclicLR(
    o, [0.01], [0.1], step_size_up=4, scale_fn=_scale_fn, scale_mode=scale_mode, base_momentum=0.5,
    max_momentum=0.6)), scale_mode=["cycle", "iterations"], **EXACT)
case("cyclic_lr_two_groups", lambda T: _trajectory(T, lambda T_, o: L(T_).CyclicLR(
    o, [0.01, 0.02], [0.1, 0.3], step_size_up=6, cycle_momentum=False), groups=2), **EXACT)

# ---- ReduceLROnPlateau -------------------------------------------------------------------------------------------
_METRICS = [5.0, 4.0, 4.0, 3.9999, 3.99, 4.5, 3.5, 3.5, 3.5, 3.5, 3.5, 2.0, 2.0, 2.1, 2.2, 2.0, 1.9999, 1.5]


def _plateau(T, mode, threshold_mode, cooldown, min_lr, patience=2, eps=1e-8, threshold=1e-4):
    metrics = _METRICS if mode == "min" else [-m for m in _METRICS]
    return _trajectory(T, lambda T_, o: L(T_).ReduceLROnPlateau(
        o, mode=mode, factor=0.5, patience=patience, threshold=threshold, threshold_mode=threshold_mode,
        cooldown=cooldown, min_lr=min_lr, eps=eps), metrics=metrics, epochs=40)


cases("reduce_lr_on_plateau", _plateau, mode=["min", "max"], threshold_mode=["rel", "abs"], cooldown=[0, 2],
      min_lr=[0, 0.01], **EXACT)
cases("reduce_lr_on_plateau_eps", lambda T, eps: _plateau(T, "min", "rel", 0, 0, patience=0, eps=eps),
      eps=[1e-8, 0.02], **EXACT)
cases("reduce_lr_on_plateau_threshold", lambda T, threshold: _plateau(T, "min", "abs", 1, 0, threshold=threshold),
      threshold=[0.0, 0.01, 0.6], **EXACT)
case("reduce_lr_on_plateau_defaults", lambda T: _trajectory(T, lambda T_, o: L(T_).ReduceLROnPlateau(o),
                                                            metrics=[1.0], epochs=40), **EXACT)
case("reduce_lr_on_plateau_min_lrs", lambda T: _trajectory(T, lambda T_, o: L(T_).ReduceLROnPlateau(
    o, patience=0, min_lr=[0.03, 0.001]), metrics=[1.0], epochs=10, groups=2), **EXACT)


def _plateau_tensor_metric(T):
    o = _opt(T)
    s = L(T).ReduceLROnPlateau(o, patience=0)
    for v in [1.0, 2.0, 2.0]:
        s.step(T.tensor(v))
    return s.get_last_lr(), s.best, s.num_bad_epochs


case("reduce_lr_on_plateau_tensor_metric", _plateau_tensor_metric, **EXACT)


def _plateau_new_group(T, with_default):
    o = _opt(T)
    s = L(T).ReduceLROnPlateau(o, patience=0, min_lr=0.0 if with_default else [0.0])
    o.add_param_group({"params": [T.zeros(1, requires_grad=True)], "lr": 0.5})
    for v in [1.0, 2.0, 3.0]:
        s.step(v)
    return s.get_last_lr(), s.min_lrs


case("reduce_lr_on_plateau_new_group", lambda T: _plateau_new_group(T, True), **EXACT)
error_case("reduce_lr_on_plateau_new_group_min_lrs", lambda T: _plateau_new_group(T, False))

# ---- composition ------------------------------------------------------------------------------------------------
case("sequential_lr", lambda T: _trajectory(T, lambda T_, o: L(T_).SequentialLR(
    o, [L(T_).LinearLR(o, 0.1, 1.0, 5), L(T_).CosineAnnealingLR(o, 20)], [5])), **EXACT)
case("sequential_lr_three", lambda T: _trajectory(T, lambda T_, o: L(T_).SequentialLR(
    o, [L(T_).ConstantLR(o, 0.5, 3), L(T_).ExponentialLR(o, 0.9), L(T_).StepLR(o, 4, 0.5)], [4, 15])), **EXACT)
case("sequential_lr_milestone_zero", lambda T: _trajectory(T, lambda T_, o: L(T_).SequentialLR(
    o, [L(T_).ExponentialLR(o, 0.5), L(T_).StepLR(o, 2, 0.8)], [1]), 20), **EXACT)
case("sequential_lr_nested", lambda T: _trajectory(T, lambda T_, o: L(T_).SequentialLR(
    o, [L(T_).SequentialLR(o, [L(T_).LinearLR(o, 0.5, 1.0, 2), L(T_).ExponentialLR(o, 0.9)], [2]),
        L(T_).CosineAnnealingLR(o, 10)], [8]), 30), **EXACT)
case("chained_scheduler", lambda T: _trajectory(T, lambda T_, o: L(T_).ChainedScheduler(
    [L(T_).ConstantLR(o, 0.1, 4), L(T_).ExponentialLR(o, 0.9)])), **EXACT)
case("chained_scheduler_three", lambda T: _trajectory(T, lambda T_, o: L(T_).ChainedScheduler(
    [L(T_).StepLR(o, 5, 0.5), L(T_).LinearLR(o, 0.2, 1.0, 10), L(T_).MultiStepLR(o, [20, 40], 0.3)],
    optimizer=o)), **EXACT)
case("two_schedulers_same_optimizer", lambda T: _trajectory(T, lambda T_, o: (
    lambda a, b: type("Both", (), {"step": lambda self: (a.step(), b.step()), "get_last_lr": lambda self: b.get_last_lr(),
                                   "last_epoch": property(lambda self: b.last_epoch)})())(
    L(T_).StepLR(o, 3, 0.5), L(T_).ExponentialLR(o, 0.95)), 20), **EXACT)


# ---- groups, tensor lr -------------------------------------------------------------------------------------------
cases("two_groups", lambda T, which: _trajectory(T, {
    "step": lambda T_, o: L(T_).StepLR(o, 3, 0.5), "cos": lambda T_, o: L(T_).CosineAnnealingLR(o, 9, 0.001),
    "lambda": lambda T_, o: L(T_).LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1.0 / (1 + e)]),
    "linear": lambda T_, o: L(T_).LinearLR(o, 0.5, 1.0, 6), "poly": lambda T_, o: L(T_).PolynomialLR(o, 12, 1.5),
    "warm": lambda T_, o: L(T_).CosineAnnealingWarmRestarts(o, 4, 2)}[which], 30, groups=2),
    which=["step", "cos", "lambda", "linear", "poly", "warm"], **EXACT)


def _tensor_lr(T, which):
    o = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=T.tensor(0.1))
    s = {"step": lambda: L(T).StepLR(o, 2, 0.5), "exp": lambda: L(T).ExponentialLR(o, 0.9),
         "cos": lambda: L(T).CosineAnnealingLR(o, 5)}[which]()
    out = []
    for _ in range(8):
        o.step()
        s.step()
        out.append((s.get_last_lr()[0], o.param_groups[0]["lr"]))
    return out, o.param_groups[0]["initial_lr"], s.base_lrs


cases("tensor_lr", _tensor_lr, which=["step", "exp", "cos"], **EXACT)


# ---- the Adam/SGD step uses what the scheduler set ----------------------------------------------------------------
def _train_with(T, name, make, steps=25):
    w = T.tensor([0.5, -1.25, 2.0, 0.125], requires_grad=True)
    o = getattr(T.optim, name)([w], lr=0.05)
    s = make(T, o)
    for k in range(steps):
        w.grad = T.tensor([0.3 * (k % 5) - 0.5, 1.0 / (k + 1), -0.75, 2.5 if k % 3 else -1.0])
        o.step()
        s.step()
    return w.detach(), o.state_dict()


def _train_with_scheduler(T, opt, which):
    return _train_with(T, opt, {
        "onecycle": lambda T_, o: L(T_).OneCycleLR(o, 0.3, total_steps=25),
        "cyclic": lambda T_, o: L(T_).CyclicLR(o, 0.001, 0.1, step_size_up=4,
                                               cycle_momentum="betas" in o.defaults or "momentum" in o.defaults),
        "cos": lambda T_, o: L(T_).CosineAnnealingLR(o, 10),
        "step": lambda T_, o: L(T_).StepLR(o, 5, 0.5)}[which])


cases("train_with_scheduler", _train_with_scheduler, opt=["SGD"], which=["onecycle", "cos", "step"], **EXACT)
# Adam/AdamW/RMSprop take a square root, whose last bit in torch depends on the CPU (VML in cases_optim.py)
cases("train_with_scheduler", _train_with_scheduler, opt=["Adam", "AdamW", "RMSprop"], which=["onecycle", "cos", "step"])

# ---- state_dict / load_state_dict ---------------------------------------------------------------------------------
_MAKERS = {
    "StepLR": lambda T, o: L(T).StepLR(o, 3, 0.5),
    "MultiStepLR": lambda T, o: L(T).MultiStepLR(o, [2, 5, 5], 0.5),
    "ExponentialLR": lambda T, o: L(T).ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda T, o: L(T).CosineAnnealingLR(o, 7, 0.01),
    "CosineAnnealingWarmRestarts": lambda T, o: L(T).CosineAnnealingWarmRestarts(o, 3, 2),
    "LambdaLR": lambda T, o: L(T).LambdaLR(o, lambda e: 0.9 ** e),
    "MultiplicativeLR": lambda T, o: L(T).MultiplicativeLR(o, lambda e: 0.95),
    "LinearLR": lambda T, o: L(T).LinearLR(o, 0.25, 1.0, 6),
    "ConstantLR": lambda T, o: L(T).ConstantLR(o, 0.5, 4),
    "OneCycleLR": lambda T, o: L(T).OneCycleLR(o, 0.6, total_steps=30),
    "CyclicLR": lambda T, o: L(T).CyclicLR(o, 0.01, 0.1, step_size_up=3),
    "PolynomialLR": lambda T, o: L(T).PolynomialLR(o, 8, 2.0),
    "SequentialLR": lambda T, o: L(T).SequentialLR(o, [L(T).ConstantLR(o, 0.5, 2), L(T).ExponentialLR(o, 0.8)], [3]),
    "ChainedScheduler": lambda T, o: L(T).ChainedScheduler([L(T).StepLR(o, 2, 0.5), L(T).ExponentialLR(o, 0.9)]),
}


def _state_dict_after(T, which, steps):
    o = _opt(T)
    s = _MAKERS[which](T, o)
    for _ in range(steps):
        o.step()
        s.step()
    return s.state_dict(), o.param_groups[0]


cases("state_dict", _state_dict_after, which=list(_MAKERS), steps=[0, 4], **EXACT)
case("state_dict_plateau", lambda T: (lambda o, s: (s.step(1.0), s.step(2.0), s.state_dict())[2])(
    *(lambda o: (o, L(T).ReduceLROnPlateau(o, "max", patience=1)))(_opt(T))), **EXACT)


def _resume(T, which):
    """Step 7 times, save scheduler and optimizer, rebuild both and load, step 10 more."""
    o = _opt(T)
    s = _MAKERS[which](T, o)
    first = []
    for _ in range(7):
        o.step()
        s.step()
        first.append(s.get_last_lr())
    osd, ssd = o.state_dict(), s.state_dict()
    o2 = _opt(T)
    s2 = _MAKERS[which](T, o2)
    s2.load_state_dict(ssd)
    o2.load_state_dict(osd)
    rest = []
    for _ in range(10):
        o2.step()
        s2.step()
        rest.append((s2.get_last_lr(), o2.param_groups[0]["lr"]))
    return first, rest, getattr(s2, "last_epoch", None)


cases("resume", _resume, which=list(_MAKERS), **EXACT)


def _resume_last_epoch(T):
    # a scheduler built with last_epoch >= 0 continues from the initial_lr stored in the groups
    o = _opt(T)
    s = L(T).StepLR(o, 3, 0.5)
    for _ in range(5):
        o.step()
        s.step()
    s2 = L(T).StepLR(o, 3, 0.5, last_epoch=4)
    out = []
    for _ in range(6):
        o.step()
        s2.step()
        out.append(s2.get_last_lr())
    return out, s2.base_lrs


case("last_epoch_resume", _resume_last_epoch, **EXACT)
case("cosine_last_epoch_resume", lambda T: (lambda o: (
    o.param_groups[0].setdefault("initial_lr", 0.1),
    [L(T).CosineAnnealingLR(o, 10, last_epoch=3).get_last_lr()]))(_opt(T))[1], **EXACT)


class _Scaler:
    """A callable object (not a function): its __dict__ goes into LambdaLR's state_dict."""

    def __init__(self, k):
        self.k = k

    def __call__(self, e):
        return self.k ** e


def _lambda_object_state(T):
    o = _opt(T)
    s = L(T).LambdaLR(o, _Scaler(0.5))
    sd = s.state_dict()
    s2 = L(T).LambdaLR(_opt(T), _Scaler(0.9))
    s2.load_state_dict(sd)
    return sd["lr_lambdas"], s2.lr_lambdas[0].k


case("lambda_object_state", _lambda_object_state)


# ---- attributes ---------------------------------------------------------------------------------------------------
def _attributes(T, which):
    o = _opt(T)
    s = _MAKERS[which](T, o)
    return (getattr(s, "last_epoch", None), s.get_last_lr(), getattr(s, "base_lrs", None), sorted(o.param_groups[0]),
            getattr(s, "_step_count", None), isinstance(s, L(T).LRScheduler))


cases("attributes", _attributes, which=list(_MAKERS), **EXACT)
case("names", lambda T: sorted(n for n in L(T).__all__))
case("class_module", lambda T: [c.__module__.replace("wick", "torch") for c in (L(T).StepLR, L(T).LRScheduler)])


# ---- warnings --------------------------------------------------------------------------------------------------
def _sched_before_opt(T):
    o = _opt(T)
    s = L(T).StepLR(o, 2)
    s.step()
    o.step()
    s.step()
    return s.get_last_lr()


case("warn_scheduler_step_before_optimizer", _sched_before_opt, warns=True)


def _no_warning_in_order(T):
    o = _opt(T)
    s = L(T).ExponentialLR(o, 0.5)
    for _ in range(3):
        o.step()
        s.step()
    return s.get_last_lr()


case("no_warning_in_order", _no_warning_in_order, warns=True)


def _step_overridden(T):
    o = _opt(T)
    s = L(T).StepLR(o, 2)
    o.step = lambda closure=None: None
    o.step()
    s.step()
    return s.get_last_lr()


case("warn_optimizer_step_overridden", _step_overridden, warns=True)


def _get_lr_outside(T):
    o = _opt(T)
    s = L(T).StepLR(o, 1, 0.5)
    return s.get_lr()


case("warn_get_lr_outside_step", _get_lr_outside, warns=True, **EXACT)
cases("warn_get_lr_outside_step_each", lambda T, which: _MAKERS[which](T, _opt(T)).get_lr(),
      which=[w for w in _MAKERS if w not in ("SequentialLR", "ChainedScheduler")], warns=True, **EXACT)


def _epoch_arg(T, which):
    o = _opt(T)
    s = _MAKERS[which](T, o)
    out = []
    for e in [3, 4, 10, 2]:
        o.step()
        s.step(e)
        out.append(s.get_last_lr())
    return out


cases("step_with_epoch", _epoch_arg, which=["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                                            "LinearLR", "ConstantLR", "PolynomialLR", "LambdaLR"],
      warns=True, **EXACT)


def _warm_restart_epochs(T, T_mult):
    o = _opt(T)
    s = L(T).CosineAnnealingWarmRestarts(o, 3, T_mult, 0.001)
    out = []
    for e in [0.5, 1, 2.5, 3, 7, 10.25, 21, 2]:
        o.step()
        s.step(e)
        out.append((s.get_last_lr(), s.T_cur, s.T_i, s.last_epoch))
    return out


cases("warm_restarts_float_epochs", _warm_restart_epochs, T_mult=[1, 2, 3], warns=True, **EXACT)
case("plateau_epoch_arg", lambda T: (lambda o: (lambda s: (s.step(1.0, 5), s.step(1.0), s.last_epoch)[2])(
    L(T).ReduceLROnPlateau(o)))(_opt(T)), warns=True)

# ---- errors ------------------------------------------------------------------------------------------------------
error_case("not_an_optimizer", lambda T: L(T).StepLR(3, 2))
error_case("not_an_optimizer_plateau", lambda T: L(T).ReduceLROnPlateau([1]))
error_case("not_an_optimizer_cyclic", lambda T: L(T).CyclicLR("sgd", 0.1, 1.0))
error_case("not_an_optimizer_onecycle", lambda T: L(T).OneCycleLR(None, 0.1, 10))
error_case("last_epoch_without_initial_lr", lambda T: L(T).StepLR(_opt(T), 3, last_epoch=5))
error_case("lambda_count", lambda T: L(T).LambdaLR(_opt(T), [lambda e: 1.0, lambda e: 2.0]))
error_case("multiplicative_count", lambda T: L(T).MultiplicativeLR(_opt(T, groups=2), [lambda e: 1.0]))
error_case("multiplicative_not_callable", lambda T: L(T).MultiplicativeLR(_opt(T), 0.5))
error_case("constant_factor_big", lambda T: L(T).ConstantLR(_opt(T), factor=1.5))
error_case("constant_factor_negative", lambda T: L(T).ConstantLR(_opt(T), factor=-0.5))
error_case("linear_start_zero", lambda T: L(T).LinearLR(_opt(T), start_factor=0))
error_case("linear_start_big", lambda T: L(T).LinearLR(_opt(T), start_factor=1.5))
error_case("linear_end_big", lambda T: L(T).LinearLR(_opt(T), end_factor=2.0))
error_case("warm_restarts_T0", lambda T: L(T).CosineAnnealingWarmRestarts(_opt(T), 0))
error_case("warm_restarts_T0_float", lambda T: L(T).CosineAnnealingWarmRestarts(_opt(T), 2.5))
error_case("warm_restarts_Tmult", lambda T: L(T).CosineAnnealingWarmRestarts(_opt(T), 5, 0))
error_case("warm_restarts_eta_min", lambda T: L(T).CosineAnnealingWarmRestarts(_opt(T), 5, 1, "0"))
error_case("warm_restarts_negative_epoch", lambda T: L(T).CosineAnnealingWarmRestarts(_opt(T), 5).step(-1))
error_case("plateau_factor", lambda T: L(T).ReduceLROnPlateau(_opt(T), factor=1.0))
error_case("plateau_mode", lambda T: L(T).ReduceLROnPlateau(_opt(T), mode="lowest"))
error_case("plateau_threshold_mode", lambda T: L(T).ReduceLROnPlateau(_opt(T), threshold_mode="relative"))
error_case("plateau_min_lr_count", lambda T: L(T).ReduceLROnPlateau(_opt(T), min_lr=[0.1, 0.2]))
error_case("plateau_metric_not_number", lambda T: L(T).ReduceLROnPlateau(_opt(T)).step("loss"))
error_case("cyclic_mode", lambda T: L(T).CyclicLR(_opt(T), 0.01, 0.1, mode="square"))
error_case("cyclic_no_momentum", lambda T: L(T).CyclicLR(_opt(T, "Adagrad"), 0.01, 0.1))
error_case("cyclic_base_lr_count", lambda T: L(T).CyclicLR(_opt(T), [0.01, 0.02], 0.1))
error_case("cyclic_max_lr_count", lambda T: L(T).CyclicLR(_opt(T), 0.01, (0.1, 0.2, 0.3)))
error_case("one_cycle_no_steps", lambda T: L(T).OneCycleLR(_opt(T), 0.1))
error_case("one_cycle_total_steps_zero", lambda T: L(T).OneCycleLR(_opt(T), 0.1, total_steps=0))
error_case("one_cycle_total_steps_float", lambda T: L(T).OneCycleLR(_opt(T), 0.1, total_steps=10.0))
error_case("one_cycle_epochs", lambda T: L(T).OneCycleLR(_opt(T), 0.1, epochs=0, steps_per_epoch=5))
error_case("one_cycle_steps_per_epoch", lambda T: L(T).OneCycleLR(_opt(T), 0.1, epochs=2, steps_per_epoch=-1))
error_case("one_cycle_pct_start", lambda T: L(T).OneCycleLR(_opt(T), 0.1, total_steps=10, pct_start=1.5))
error_case("one_cycle_pct_start_int", lambda T: L(T).OneCycleLR(_opt(T), 0.1, total_steps=10, pct_start=0))
error_case("one_cycle_anneal", lambda T: L(T).OneCycleLR(_opt(T), 0.1, total_steps=10, anneal_strategy="exp"))
error_case("one_cycle_no_momentum", lambda T: L(T).OneCycleLR(_opt(T, "Adagrad"), 0.1, total_steps=10))
error_case("one_cycle_momentum_count", lambda T: L(T).OneCycleLR(_opt(T), 0.1, total_steps=10,
                                                                 max_momentum=[0.9, 0.8], base_momentum=[0.1]))


def _one_cycle_past_end(T):
    o = _opt(T)
    s = L(T).OneCycleLR(o, 0.1, total_steps=5)
    for _ in range(6):
        o.step()
        s.step()


error_case("one_cycle_past_total_steps", _one_cycle_past_end)
error_case("sequential_empty", lambda T: L(T).SequentialLR(_opt(T), [], []))
error_case("sequential_milestones", lambda T: (lambda o: L(T).SequentialLR(
    o, [L(T).StepLR(o, 2), L(T).ExponentialLR(o, 0.9)], [2, 5]))(_opt(T)))
error_case("sequential_plateau", lambda T: (lambda o: L(T).SequentialLR(
    o, [L(T).StepLR(o, 2), L(T).ReduceLROnPlateau(o)], [2]))(_opt(T)))
error_case("sequential_other_optimizer", lambda T: (lambda o, o2: L(T).SequentialLR(
    o, [L(T).StepLR(o, 2), L(T).ExponentialLR(o2, 0.9)], [2]))(_opt(T), _opt(T, "Adam")))
error_case("sequential_not_scheduler", lambda T: L(T).SequentialLR(_opt(T), [1, 2], [3]))
error_case("chained_empty", lambda T: L(T).ChainedScheduler([]))
error_case("chained_plateau", lambda T: (lambda o: L(T).ChainedScheduler([L(T).ReduceLROnPlateau(o)]))(_opt(T)))
error_case("chained_other_optimizer", lambda T: (lambda o, o2: L(T).ChainedScheduler(
    [L(T).StepLR(o, 2), L(T).ExponentialLR(o2, 0.9)]))(_opt(T), _opt(T)))
error_case("base_get_lr", lambda T: L(T).LRScheduler(_opt(T)))
