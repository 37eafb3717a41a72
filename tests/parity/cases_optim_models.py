"""Training small models with every optimizer: nn.Parameter models and an nn.Linear MLP, losses from autograd,
schedulers, param groups per layer, checkpoints.  The forward/backward arithmetic (matmul, sums) rounds as the
linalg/reduce kernels round, so parameters and losses are compared with a tight tolerance; the optimizer steps
themselves are checked bit for bit in cases_optim.py."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=2e-5, atol=1e-6)

X = [[0.5, -1.2, 2.0], [1.5, 0.3, -0.7], [-0.8, 0.9, 0.1], [2.2, -0.4, 1.3], [0.05, 1.7, -1.1]]
Y = [[1.0, -0.5], [0.2, 0.8], [-1.3, 0.4], [0.9, 1.5], [-0.2, -0.9]]
LABELS = [1, 0, 2, 2, 1]
W0 = [[0.3, -0.2], [0.15, 0.4], [-0.35, 0.25]]
B0 = [0.05, -0.1]
W1 = [[0.2, -0.3, 0.1], [0.4, 0.05, -0.25], [-0.15, 0.35, 0.3], [0.1, -0.2, 0.45]]
B1 = [0.01, -0.02, 0.03, 0.0]
W2 = [[0.3, -0.1, 0.2, -0.4], [0.05, 0.25, -0.3, 0.15], [-0.2, 0.1, 0.35, 0.05]]
B2 = [0.0, 0.1, -0.05]

_KW = {"SGD": dict(lr=0.1, momentum=0.9), "Adam": dict(lr=0.05), "AdamW": dict(lr=0.05, weight_decay=0.1),
       "RMSprop": dict(lr=0.01, momentum=0.5), "Adagrad": dict(lr=0.2), "Adadelta": dict(lr=1.0),
       "Adamax": dict(lr=0.05), "NAdam": dict(lr=0.05), "RAdam": dict(lr=0.05)}


def _linear_regression(T, opt, steps=10):
    name = opt
    nn = T.nn
    w = nn.Parameter(T.tensor(W0))
    b = nn.Parameter(T.tensor(B0))
    x, y = T.tensor(X), T.tensor(Y)
    o = getattr(T.optim, name)([w, b], **_KW[name])
    losses = []
    for _ in range(steps):
        o.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        o.step()
        losses.append(loss.item())
    return losses, w.detach(), b.detach()


cases("parameter_regression", _linear_regression, opt=list(_KW), **TOL)


def _mlp(T):
    nn = T.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 3))
    with T.no_grad():
        model[0].weight.copy_(T.tensor(W1))
        model[0].bias.copy_(T.tensor(B1))
        model[2].weight.copy_(T.tensor(W2))
        model[2].bias.copy_(T.tensor(B2))
    return model


def _train_mlp(T, name, steps=8, scheduler=None, groups=False):
    model = _mlp(T)
    x, labels = T.tensor(X), T.tensor(LABELS)
    if groups:  # no weight decay on biases, a smaller lr for the first layer
        params = [{"params": [model[0].weight], "lr": _KW[name]["lr"] / 2},
                  {"params": [model[2].weight]},
                  {"params": [model[0].bias, model[2].bias], "weight_decay": 0.0}]
    else:
        params = model.parameters()
    opt = getattr(T.optim, name)(params, **_KW[name])
    sched = scheduler(T, opt) if scheduler else None
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
    return losses, model.state_dict()


cases("mlp_cross_entropy", lambda T, opt: _train_mlp(T, opt), opt=list(_KW), **TOL)
cases("mlp_param_groups", lambda T, opt: _train_mlp(T, opt, groups=True), opt=["SGD", "Adam", "AdamW", "RMSprop"],
      **TOL)
cases("mlp_with_scheduler", lambda T, opt, which: _train_mlp(T, opt, steps=12, scheduler={
    "step": lambda T_, o: T_.optim.lr_scheduler.StepLR(o, 3, 0.5),
    "onecycle": lambda T_, o: T_.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=12),
    "cosine": lambda T_, o: T_.optim.lr_scheduler.CosineAnnealingLR(o, 12)}[which]),
    opt=["SGD", "Adam"], which=["step", "onecycle", "cosine"], **TOL)


def _plateau(T):
    model = _mlp(T)
    x, labels = T.tensor(X), T.tensor(LABELS)
    opt = T.optim.SGD(model.parameters(), lr=0.5)
    sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    out = []
    for _ in range(10):
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        sched.step(loss.item())
        out.append((loss.item(), sched.get_last_lr()[0]))
    return out


case("mlp_reduce_on_plateau", _plateau, **TOL)


def _mlp_lbfgs(T, line_search_fn):
    model = _mlp(T)
    x, labels = T.tensor(X), T.tensor(LABELS)
    opt = T.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        return loss
    losses = [opt.step(closure).item() for _ in range(2)]
    return losses, model.state_dict()


cases("mlp_lbfgs", _mlp_lbfgs, line_search_fn=[None, "strong_wolfe"], rtol=1e-4, atol=1e-5)


def _checkpoint(T, opt):
    name = opt
    """Train 4 steps, checkpoint model+optimizer state dicts, restore into fresh objects, train 4 more."""
    model = _mlp(T)
    x, labels = T.tensor(X), T.tensor(LABELS)
    o = getattr(T.optim, name)(model.parameters(), **_KW[name])

    def train(m, o, n):
        for _ in range(n):
            o.zero_grad()
            loss = T.nn.functional.cross_entropy(m(x), labels)
            loss.backward()
            o.step()
    train(model, o, 4)
    msd, osd = model.state_dict(), o.state_dict()
    model2 = _mlp(T)
    model2.load_state_dict(msd)
    opt2 = getattr(T.optim, name)(model2.parameters(), **_KW[name])
    opt2.load_state_dict(osd)
    train(model2, opt2, 4)
    train(model, o, 4)
    return model.state_dict(), model2.state_dict()


cases("mlp_checkpoint", _checkpoint, opt=["SGD", "Adam", "RMSprop", "Adagrad"], **TOL)


def _named(T):
    model = _mlp(T)
    opt = T.optim.AdamW(model.named_parameters(), lr=0.01)
    x, labels = T.tensor(X), T.tensor(LABELS)
    loss = T.nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    opt.step()
    return opt.param_groups[0]["param_names"], opt.state_dict()["param_groups"], repr(opt)


case("mlp_named_parameters", _named, **TOL)


def _zero_grad_paths(T):
    model = _mlp(T)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x, labels = T.tensor(X), T.tensor(LABELS)
    T.nn.functional.cross_entropy(model(x), labels).backward()
    opt.zero_grad(set_to_none=False)
    zeroed = [p.grad for p in model.parameters()]
    opt.zero_grad()
    return zeroed, [p.grad for p in model.parameters()]


case("mlp_zero_grad", _zero_grad_paths)


def _frozen_layer(T):
    # a param that requires no grad never gets one, so the optimizer skips it
    model = _mlp(T)
    model[0].weight.requires_grad_(False)
    opt = T.optim.Adam(model.parameters(), lr=0.05)
    x, labels = T.tensor(X), T.tensor(LABELS)
    for _ in range(3):
        opt.zero_grad()
        T.nn.functional.cross_entropy(model(x), labels).backward()
        opt.step()
    return model.state_dict(), len(opt.state)


case("mlp_frozen_layer", _frozen_layer, **TOL)
