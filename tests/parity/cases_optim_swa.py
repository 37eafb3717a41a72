"""torch.optim.swa_utils: AveragedModel (running mean, EMA via avg_fn / multi_avg_fn, use_buffers), SWALR, update_bn."""

from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-6, atol=1e-7)
W1 = [[0.2, -0.3, 0.1], [0.4, 0.05, -0.25]]
B1 = [0.01, -0.02]
STEPS_W = [[[0.5 * k - 0.3, -0.1 * k, 0.2], [0.05, 0.3 - 0.1 * k, -0.2]] for k in range(6)]


def _swa(T):
    return submodule(T, "optim.swa_utils")


def _model(T):
    m = T.nn.Linear(3, 2)
    with T.no_grad():
        m.weight.copy_(T.tensor(W1))
        m.bias.copy_(T.tensor(B1))
    return m


def _average(T, mode):
    S = _swa(T)
    model = _model(T)
    kw = {"mean": {}, "ema_fn": dict(avg_fn=S.get_ema_avg_fn(0.9)),
          "ema_multi": dict(multi_avg_fn=S.get_ema_multi_avg_fn(0.75)),
          "swa_fn": dict(avg_fn=S.get_swa_avg_fn()), "swa_multi": dict(multi_avg_fn=S.get_swa_multi_avg_fn())}[mode]
    avg = S.AveragedModel(model, **kw)
    out = []
    for k, w in enumerate(STEPS_W):
        with T.no_grad():
            model.weight.copy_(T.tensor(w))
            model.bias.add_(0.1 * (k + 1))
        avg.update_parameters(model)
        out.append((avg.module.weight.detach().clone(), avg.module.bias.detach().clone(), avg.n_averaged.clone()))
    return out, avg(T.tensor([[1.0, -2.0, 0.5]])).detach()


cases("averaged_model", _average, mode=["mean", "ema_fn", "ema_multi", "swa_fn", "swa_multi"], **TOL)


def _averaged_model_structure(T):
    S = _swa(T)
    avg = S.AveragedModel(_model(T))
    return ([n for n, _ in avg.named_parameters()], [n for n, _ in avg.named_buffers()], repr(avg),
            list(avg.state_dict()), avg.n_averaged)


case("averaged_model_structure", _averaged_model_structure)
error_case("averaged_model_two_fns", lambda T: _swa(T).AveragedModel(
    _model(T), avg_fn=_swa(T).get_swa_avg_fn(), multi_avg_fn=_swa(T).get_swa_multi_avg_fn()))
error_case("ema_decay_invalid", lambda T: _swa(T).get_ema_avg_fn(1.5))
error_case("ema_multi_decay_invalid", lambda T: _swa(T).get_ema_multi_avg_fn(-0.1))


def _with_buffers(T, use_buffers):
    S = _swa(T)
    model = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2))
    with T.no_grad():
        model[0].weight.copy_(T.tensor(W1))
        model[0].bias.copy_(T.tensor(B1))
    avg = S.AveragedModel(model, use_buffers=use_buffers)
    x = T.tensor([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1], [2.0, 0.1, 0.4], [-0.5, -0.6, 1.2]])
    for k in range(3):
        model.train()
        model(x * (k + 1))
        avg.update_parameters(model)
    return avg.state_dict()


cases("averaged_model_buffers", _with_buffers, use_buffers=BOOLS, **TOL)


def _update_bn(T):
    S = _swa(T)
    model = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2, momentum=0.3))
    with T.no_grad():
        model[0].weight.copy_(T.tensor(W1))
        model[0].bias.copy_(T.tensor(B1))
    model.eval()
    loader = [(T.tensor([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]]), 0), (T.tensor([[2.0, 0.1, 0.4], [-0.5, -0.6, 1.2]]), 1)]
    S.update_bn(loader, model)
    bn = model[1]
    return bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, model.training


case("update_bn", _update_bn, **TOL)
case("update_bn_no_bn", lambda T: (_swa(T).update_bn([T.ones(2, 3)], _model(T)), "returned")[1])


def _swalr(T, anneal_strategy, anneal_epochs, opt_name):
    S = _swa(T)
    opt = getattr(T.optim, opt_name)([T.zeros(2, requires_grad=True)], lr=0.1)
    sched = S.SWALR(opt, swa_lr=0.02, anneal_epochs=anneal_epochs, anneal_strategy=anneal_strategy)
    out = [sched.get_last_lr()]
    for _ in range(15):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
    return out, sched.state_dict()


cases("swalr", _swalr, anneal_strategy=["cos", "linear"], anneal_epochs=[0, 1, 5, 10], opt_name=["SGD", "Adam"],
      rtol=0, atol=0)


def _swalr_after_cosine(T):
    # the usual recipe: a cosine schedule, then SWALR from epoch 10 while averaging
    S = _swa(T)
    opt = T.optim.SGD([T.zeros(2, requires_grad=True)], lr=0.5)
    cos = T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)
    swa = S.SWALR(opt, swa_lr=[0.05], anneal_epochs=3)
    out = []
    for epoch in range(16):
        opt.step()
        (swa if epoch >= 10 else cos).step()
        out.append(opt.param_groups[0]["lr"])
    return out


case("swalr_after_cosine", _swalr_after_cosine, warns=True, rtol=0, atol=0)
error_case("swalr_strategy", lambda T: _swa(T).SWALR(T.optim.SGD([T.zeros(1, requires_grad=True)]), 0.1,
                                                     anneal_strategy="exp"))
error_case("swalr_epochs", lambda T: _swa(T).SWALR(T.optim.SGD([T.zeros(1, requires_grad=True)]), 0.1,
                                                   anneal_epochs=-1))
error_case("swalr_lr_count", lambda T: _swa(T).SWALR(T.optim.SGD([T.zeros(1, requires_grad=True)]), [0.1, 0.2]))
case("swa_utils_all", lambda T: sorted(_swa(T).__all__))
