"""torch.optim.LBFGS: closure-driven iterations with and without the strong-Wolfe line search, history_size,
stopping rules, state, errors.  LBFGS is tensor-op Python as in torch: its values round as the sum/dot kernels
round (summation order is the reduce/linalg kernels' business), so float64 runs are compared with float64's
default tolerance and float32 runs with a looser one; the discrete decisions (iterations, evaluations) exactly."""
from .harness import *  # noqa: F401,F403

TOL = dict(rtol=1e-10, atol=1e-12)


def _rosenbrock(T, w):
    return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2


def _quartic(T, w):
    c = T.tensor([0.5, -1.5, 2.0, 0.25], dtype=w.dtype)
    a = T.tensor([1.0, 3.0, 0.5, 2.0], dtype=w.dtype)
    return ((w - c) ** 2 * a).sum() + (w ** 4).sum() * 0.5


_START = {"rosenbrock": [-1.2, 1.0], "quartic": [0.7, -0.3, 1.1, -2.0]}
_LOSS = {"rosenbrock": _rosenbrock, "quartic": _quartic}


def _run(T, problem, dtype=None, steps=3, **kw):
    w = T.tensor(_START[problem], dtype=dtype, requires_grad=True)
    opt = T.optim.LBFGS([w], **kw)
    evals = []

    def closure():
        opt.zero_grad()
        loss = _LOSS[problem](T, w)
        loss.backward()
        evals.append(loss.item())
        return loss
    losses = [opt.step(closure).item() for _ in range(steps)]
    st = opt.state[w]
    return w.detach(), losses, evals, st["func_evals"], st["n_iter"]


cases("lbfgs", lambda T, problem, line_search_fn, history_size: _run(
    T, problem, T.float64, lr=1, line_search_fn=line_search_fn, history_size=history_size),
    problem=["rosenbrock", "quartic"], line_search_fn=[None, "strong_wolfe"], history_size=[100, 3, 1], **TOL)
cases("lbfgs_lr_max_iter", lambda T, lr, max_iter: _run(T, "quartic", T.float64, steps=2, lr=lr, max_iter=max_iter),
      lr=[1, 0.5, 0.1], max_iter=[1, 5, 20], **TOL)
cases("lbfgs_max_eval", lambda T, max_eval, line_search_fn: _run(
    T, "rosenbrock", T.float64, steps=2, max_eval=max_eval, line_search_fn=line_search_fn),
    max_eval=[2, 7, 40], line_search_fn=[None, "strong_wolfe"], **TOL)
cases("lbfgs_tolerances", lambda T, tolerance_grad, tolerance_change: _run(
    T, "quartic", T.float64, steps=2, tolerance_grad=tolerance_grad, tolerance_change=tolerance_change),
    tolerance_grad=[1e-7, 1e-2, 100.0], tolerance_change=[1e-9, 1e-3], **TOL)
# float32: a well-conditioned problem and few iterations (Rosenbrock in float32 amplifies last-bit differences of
# the loss's sum into different line-search decisions)
cases("lbfgs_float32", lambda T, line_search_fn: _run(T, "quartic", line_search_fn=line_search_fn, steps=1,
                                                      max_iter=6),
      line_search_fn=[None, "strong_wolfe"], rtol=1e-5, atol=1e-6)


def _two_params(T, line_search_fn):
    w = T.tensor([0.7, -0.3], dtype=T.float64, requires_grad=True)
    b = T.tensor(0.25, dtype=T.float64, requires_grad=True)
    unused = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)  # never gets a grad: zeros in the flat grad
    opt = T.optim.LBFGS([w, unused, b], line_search_fn=line_search_fn, history_size=4)

    def closure():
        opt.zero_grad()
        loss = ((w * T.tensor([2.0, -1.0], dtype=T.float64) + b - 1.5) ** 2).sum() + (b - w[0]) ** 4
        loss.backward()
        return loss
    losses = [opt.step(closure).item() for _ in range(3)]
    return w.detach(), b.detach(), unused.detach(), unused.grad, losses


cases("lbfgs_several_params", _two_params, line_search_fn=[None, "strong_wolfe"], **TOL)


def _state(T):
    w = T.tensor(_START["quartic"], dtype=T.float64, requires_grad=True)
    opt = T.optim.LBFGS([w], history_size=2, max_iter=6)

    def closure():
        opt.zero_grad()
        loss = _quartic(T, w)
        loss.backward()
        return loss
    opt.step(closure)
    st = opt.state[w]
    return (sorted(st), st["d"], st["t"], st["old_dirs"], st["old_stps"], st["ro"], st["H_diag"],
            st["prev_flat_grad"], st["prev_loss"], st["func_evals"], st["n_iter"], len(st["al"]))


case("lbfgs_state", _state, **TOL)


def _state_dict(T):
    w = T.tensor(_START["rosenbrock"], dtype=T.float64, requires_grad=True)
    opt = T.optim.LBFGS([w], max_iter=3)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(T, w)
        loss.backward()
        return loss
    opt.step(closure)
    sd = opt.state_dict()
    return sd["param_groups"], sorted(sd["state"][0]), repr(opt)


case("lbfgs_state_dict", _state_dict, **TOL)


def _resume(T):
    def make(start):
        w = T.tensor(start, dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([w], max_iter=4, history_size=3)

        def closure():
            opt.zero_grad()
            loss = _quartic(T, w)
            loss.backward()
            return loss
        return w, opt, closure
    w, opt, closure = make(_START["quartic"])
    opt.step(closure)
    sd = opt.state_dict()
    w2, opt2, closure2 = make(w.detach().tolist())
    opt2.load_state_dict(sd)
    opt2.step(closure2)
    opt.step(closure)
    return w.detach(), w2.detach()


case("lbfgs_resume", _resume, **TOL)


def _converged(T):
    # a zero gradient at the start: step returns at once after one evaluation
    w = T.tensor([0.5, -1.5, 2.0, 0.25], dtype=T.float64, requires_grad=True)
    opt = T.optim.LBFGS([w])

    def closure():
        opt.zero_grad()
        loss = ((w - T.tensor([0.5, -1.5, 2.0, 0.25], dtype=T.float64)) ** 2).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    return loss, w.detach(), dict(opt.state[w])


case("lbfgs_already_optimal", _converged, **TOL)
case("lbfgs_repr", lambda T: repr(T.optim.LBFGS([T.zeros(2, requires_grad=True)])))
case("lbfgs_repr_options", lambda T: repr(T.optim.LBFGS([T.zeros(2, requires_grad=True)], lr=0.5, max_iter=7,
                                                        history_size=3, line_search_fn="strong_wolfe")))
case("lbfgs_defaults", lambda T: T.optim.LBFGS([T.zeros(2, requires_grad=True)], max_iter=8).defaults)
error_case("lbfgs_groups", lambda T: T.optim.LBFGS([{"params": [T.zeros(2, requires_grad=True)]},
                                                    {"params": [T.zeros(3, requires_grad=True)]}]))
error_case("lbfgs_lr", lambda T: T.optim.LBFGS([T.zeros(2, requires_grad=True)], lr=-1))
error_case("lbfgs_no_closure", lambda T: T.optim.LBFGS([T.zeros(2, requires_grad=True)]).step())


def _bad_line_search(T):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    opt = T.optim.LBFGS([w], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    opt.step(closure)


error_case("lbfgs_unknown_line_search", _bad_line_search)


def _add_group(T):
    opt = T.optim.LBFGS([T.zeros(2, requires_grad=True)])
    opt.add_param_group({"params": [T.zeros(1, requires_grad=True)]})
    opt.step(lambda: T.tensor(0.0))


error_case("lbfgs_step_after_add_group", _add_group)
