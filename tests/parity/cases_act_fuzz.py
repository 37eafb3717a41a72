"""Piecewise functions at their breakpoints (a differential fuzzer's fixed seeds): every activation of
nn.functional / torch / Tensor with drawn parameters (alpha, lambda, min / max, threshold / value, slopes, beta,
rrelu's bounds in eval, clamp's bounds as numbers and as tensors), evaluated on inputs that hold each breakpoint
exactly, its float neighbours, zeros of both signs, infinities, NaN and random values, in float32 / float64 /
bfloat16 / float16, through the function, the Tensor method, the in-place form and the module.  Compared: the
value, the first derivative (weighted), and the second derivative where the function has one -- or torch's error
(a negative softshrink lambda, celu's alpha 0, min > max ...)."""
import math
import random

from .harness import *  # noqa: F401,F403


# ---- the outside suite's findings, by name (the fuzzer below sweeps them) ----
_F = "nn.functional"
BENDS = [-3.0, 3.0, 0.0, -2.5, 2.75, -4.0, 4.5]
grad_case("hardswish_bends", lambda T, x: T.nn.functional.hardswish(x), BENDS, order=2)
grad_case("hardswish_bends_f64", lambda T, x: T.nn.functional.hardswish(x), inp(BENDS, dtype=D.float64), order=2)
grad_case("hardswish_module_bends", lambda T, x: T.nn.Hardswish()(x), [-3.0, 3.0])
grad_case("hardsigmoid_f64", lambda T, x: T.nn.functional.hardsigmoid(x), inp(BENDS, dtype=D.float64))
grad_case("elu_at_zero", lambda T, x: T.nn.functional.elu(x, 0.5), inp([0.0, -0.0, -1.25, 0.75], dtype=D.float64), order=2)
grad_case("celu_at_zero", lambda T, x: T.nn.functional.celu(x, 0.3), inp([0.0, -0.0, -1.25, 0.75], dtype=D.float64), order=2)
grad_case("selu_at_zero", lambda T, x: T.nn.functional.selu(x), inp([0.0, -0.0, -1.25, 0.75], dtype=D.float64), order=2)
grad_case("elu_inplace_result", lambda T, x: T.nn.functional.elu(x * 1.0, 0.5, inplace=True), [0.0, -0.5, -1.25, 0.75],
          order=2)
grad_case("elu_inplace_bf16", lambda T, x: T.nn.functional.elu(x * 1.0, 0.5, inplace=True),
          inp([-0.5, -2.0, 0.0, 1.5, -0.0625], dtype=D.bfloat16))
grad_case("selu_inplace_f16", lambda T, x: T.nn.functional.selu(x * 1.0, inplace=True),
          inp([-6.0, -2.0, 0.0, 1.5, -0.0625], dtype=D.float16))
grad_case("leaky_relu_inplace_result", lambda T, x: T.nn.functional.leaky_relu(x * 1.0, 0.2, inplace=True),
          [0.0, -0.5, 1.25], order=2)
grad_case("softplus_at_threshold", lambda T, x: T.nn.functional.softplus(x, 2.0, 1.0),
          inp([0.5, 0.25, 1.0, -0.5], dtype=D.float64), order=2)
grad_case("prelu_order2", lambda T, x, w: T.nn.functional.prelu(x, w), [[-1.0, 0.0, 2.0], [0.5, -0.25, 0.0]],
          [0.25, -0.5, 1.5], order=2)
grad_case("prelu_module_order2", lambda T, x: T.nn.PReLU(1, 0.3)(x), [-1.0, 0.0, 2.0, -0.5], order=2)


def _inplace_backward(T, f, data):
    x = T.tensor(data, requires_grad=True)
    y = f(x * 1.0)
    y.sum().backward()
    return x.grad


error_case("leaky_relu_inplace_negative_slope",
           lambda T: _inplace_backward(T, lambda y: T.nn.functional.leaky_relu(y, -0.5, inplace=True), [1.0, -1.0]))
error_case("elu_inplace_negative_alpha",
           lambda T: _inplace_backward(T, lambda y: T.nn.functional.elu(y, -1.0, inplace=True), [1.0, -1.0]))
error_case("celu_inplace_negative_alpha",
           lambda T: _inplace_backward(T, lambda y: T.nn.functional.celu(y, -1.0, inplace=True), [1.0, -1.0]))
error_case("rrelu_inplace_negative_bounds",
           lambda T: _inplace_backward(T, lambda y: T.nn.functional.rrelu(y, -0.3, -0.1, False, True), [1.0, -1.0]))
error_case("celu_alpha_zero", lambda T: T.nn.functional.celu(T.tensor([1.0, -1.0]), 0.0))
case("elu_inplace_zero_alpha", lambda T: _inplace_backward(T, lambda y: T.nn.functional.elu(y, 0.0, inplace=True),
                                                            [1.0, -1.0, 0.0]))


def _p(r, choices):
    return r.choice(choices)


# name -> (draw params, breakpoints of the params, call(T, x, params, form)); form is one of
# "f" (the function), "m" (Tensor method / torch.X), "i" (in-place on a non-leaf copy), "mod" (nn module)
def _acts():
    F = lambda T: T.nn.functional  # noqa: E731

    def act(fname, mod=None, method=None, inplace=False):
        def call(T, x, kw, form):
            if form == "mod" and mod:
                return getattr(T.nn, mod)(**kw)(x)
            if form == "m" and method:  # "x.NAME" a Tensor method, "torch.NAME" a torch function
                where, _, m = method.partition(".")
                return getattr(x, m)(*kw.values()) if where == "x" else getattr(T, m)(x, *kw.values())
            if form == "i" and inplace:
                return getattr(F(T), fname)(x * 1.0, **kw, inplace=True)
            return getattr(F(T), fname)(x, **kw)
        return call

    A = {}
    A["hardswish"] = (lambda r: {}, lambda kw: [-3.0, 3.0, 0.0], act("hardswish", "Hardswish", None, True))
    A["hardsigmoid"] = (lambda r: {}, lambda kw: [-3.0, 3.0], act("hardsigmoid", "Hardsigmoid", None, True))
    A["relu6"] = (lambda r: {}, lambda kw: [0.0, 6.0], act("relu6", "ReLU6", None, True))
    A["relu"] = (lambda r: {}, lambda kw: [0.0], act("relu", "ReLU", "x.relu", True))
    A["hardtanh"] = (lambda r: dict(min_val=_p(r, [-1.0, -2.5, 0.0, 0.5, -0.25]), max_val=_p(r, [1.0, 2.0, 0.0, 0.5, 3.25])),
                     lambda kw: [kw["min_val"], kw["max_val"]], act("hardtanh", "Hardtanh", None, True))
    A["elu"] = (lambda r: dict(alpha=_p(r, [1.0, 0.5, 2.0, 0.0, -1.0])), lambda kw: [0.0], act("elu", "ELU", None, True))
    A["celu"] = (lambda r: dict(alpha=_p(r, [1.0, 0.3, 2.0, 0.0, -1.5])), lambda kw: [0.0], act("celu", "CELU", "torch.celu", True))
    A["selu"] = (lambda r: {}, lambda kw: [0.0], act("selu", "SELU", "torch.selu", True))
    A["softshrink"] = (lambda r: dict(lambd=_p(r, [0.5, 0.0, 1.25, 2.0, -0.5])), lambda kw: [kw["lambd"], -kw["lambd"]],
                       act("softshrink", "Softshrink", None))
    A["hardshrink"] = (lambda r: dict(lambd=_p(r, [0.5, 0.0, 1.25, 2.0, -0.5])), lambda kw: [kw["lambd"], -kw["lambd"]],
                       act("hardshrink", "Hardshrink", "x.hardshrink"))
    A["threshold"] = (lambda r: dict(threshold=_p(r, [1.0, 0.0, -0.5, 2.25]), value=_p(r, [2.0, 0.0, -1.0, 0.5])),
                      lambda kw: [kw["threshold"]], act("threshold", "Threshold", "torch.threshold", True))
    A["leaky_relu"] = (lambda r: dict(negative_slope=_p(r, [0.01, 0.2, 0.0, -0.5, 1.5])), lambda kw: [0.0],
                       act("leaky_relu", "LeakyReLU", None, True))
    A["rrelu"] = (lambda r: dict(lower=_p(r, [1 / 8, 0.1, 0.0, 0.5]), upper=_p(r, [1 / 3, 0.3, 0.5, 0.75])),
                  lambda kw: [0.0], None)
    A["softplus"] = (lambda r: dict(beta=_p(r, [1.0, 2.0, 0.5, -1.0]), threshold=_p(r, [20.0, 1.0, 0.5, 0.0])),
                     lambda kw: [kw["threshold"] / kw["beta"], 0.0], act("softplus", "Softplus", None))
    A["prelu"] = (lambda r: dict(w=_p(r, [0.25, -0.5, 0.0, 1.5])), lambda kw: [0.0], None)
    A["gelu"] = (lambda r: dict(approximate=_p(r, ["none", "tanh"])), lambda kw: [0.0], act("gelu", "GELU", None))
    A["silu"] = (lambda r: {}, lambda kw: [0.0], act("silu", "SiLU", None, True))
    A["mish"] = (lambda r: {}, lambda kw: [0.0], act("mish", "Mish", None, True))
    A["logsigmoid"] = (lambda r: {}, lambda kw: [0.0], act("logsigmoid", "LogSigmoid", None))
    A["tanhshrink"] = (lambda r: {}, lambda kw: [0.0], act("tanhshrink", "Tanhshrink", None))
    A["softsign"] = (lambda r: {}, lambda kw: [0.0], act("softsign", "Softsign", None))
    A["clamp"] = (lambda r: dict(min=_p(r, [-1.0, 0.0, 0.5, None, 2.0]), max=_p(r, [1.0, 0.0, 0.5, None, -1.0])),
                  lambda kw: [v for v in (kw["min"], kw["max"]) if v is not None], None)
    A["clamp_t"] = (lambda r: dict(min=_p(r, [-1.0, 0.0, 0.5, None]), max=_p(r, [1.0, 0.0, 0.5, None, -1.0])),
                    lambda kw: [v for v in (kw["min"], kw["max"]) if v is not None], None)
    A["clamp_min"] = (lambda r: dict(min=_p(r, [-1.0, 0.0, 0.5])), lambda kw: [kw["min"]], None)
    A["clamp_max"] = (lambda r: dict(max=_p(r, [-1.0, 0.0, 0.5])), lambda kw: [kw["max"]], None)
    A["abs"] = (lambda r: {}, lambda kw: [0.0], None)
    A["sign"] = (lambda r: {}, lambda kw: [0.0], None)
    A["sgn"] = (lambda r: {}, lambda kw: [0.0], None)
    A["maximum"] = (lambda r: {}, lambda kw: [0.0, 0.5], None)
    A["minimum"] = (lambda r: {}, lambda kw: [0.0, 0.5], None)
    A["fmax"] = (lambda r: {}, lambda kw: [0.0, 0.5], None)
    A["fmin"] = (lambda r: {}, lambda kw: [0.0, 0.5], None)
    A["max_elem"] = (lambda r: {}, lambda kw: [0.5], None)
    return A


ACTS = _acts()
NAMES = sorted(ACTS)


def _inputs(r, bps, dtype, specials=True):
    """Breakpoints exactly, their neighbours, signed zeros and random values, then infinities / NaN at the end.

    Note [NaN in torch's piecewise backward kernels]: torch's CPU kernels have a vector loop over the first
    n - n % (2 * lanes) elements and a scalar loop over the rest, and for NaN (and gelu's infinities on AVX-512)
    the two disagree (hardtanh_backward: 0 vs grad; hardswish_backward: NaN vs grad) -- which one an element gets
    depends on its position, the length, the dtype and the CPU.  wick follows the scalar loop (what torch gives
    any tensor of under 8 elements).  The special values therefore go last, with n % 8 >= their count, which
    is inside the scalar tail for every lane count torch uses (4 ... 32)."""
    vals = []
    for b in bps:
        b = float(b)
        vals += [b, -b]
        eps = 2.0 ** -20 if dtype != "float64" else 2.0 ** -45
        vals += [b + eps * max(1.0, abs(b)), b - eps * max(1.0, abs(b))]
    vals += [0.0, -0.0] + [r.uniform(-4, 4) for _ in range(r.randint(1, 12))] + [r.uniform(-8, 8)]
    r.shuffle(vals)
    tail = []
    if specials and r.random() < 0.4:
        tail += [math.inf, -math.inf]
    if specials and r.random() < 0.3:
        tail += [math.nan]
    r.shuffle(tail)
    while len(tail) and (len(vals) + len(tail)) % 8 < len(tail):
        vals.append(r.uniform(-4, 4))
    return vals + tail


def _apply(T, name, x, kw, form):
    F = T.nn.functional
    if name == "rrelu":
        if form == "mod":
            return T.nn.RReLU(kw["lower"], kw["upper"]).eval()(x)
        if form == "i":
            return F.rrelu_(x * 1.0, kw["lower"], kw["upper"], training=False)
        return F.rrelu(x, kw["lower"], kw["upper"], training=False)
    if name == "prelu":
        w = T.tensor([kw["w"]], dtype=x.dtype, requires_grad=True)
        return (T.nn.PReLU(1, kw["w"]).to(x.dtype)(x) if form == "mod" else F.prelu(x, w)), w
    if name in ("clamp", "clamp_t", "clamp_min", "clamp_max"):
        args = {k: v for k, v in kw.items()}
        if name == "clamp_t":
            args = {k: (None if v is None else T.full_like(x.detach(), v)) for k, v in kw.items()}
            if form == "mod":
                return T.clamp(x, **args)
        op = "clamp" if name == "clamp_t" else name
        if form == "m":
            return getattr(x, op)(**args)
        if form == "i":
            return getattr(x * 1.0, op + "_")(**args)
        if form == "mod":
            return T.clip(x, **args) if name == "clamp" else getattr(T, op)(x, **args)
        return getattr(T, op)(x, **args)
    if name in ("abs", "sign", "sgn"):
        if form == "i":
            return getattr(x * 1.0, name + "_")()
        return getattr(x, name)() if form == "m" else getattr(T, name)(x)
    if name in ("maximum", "minimum", "fmax", "fmin"):
        other = x.detach().flip(0).clone().requires_grad_(x.requires_grad)
        other = T.where(T.arange(x.numel()) % 3 == 0, x.detach(), other.detach()).requires_grad_(x.requires_grad)
        return getattr(T, name)(x, other), other
    if name == "max_elem":  # every value twice: the extremum is a tie
        y = T.cat([x, x.flip(0)])
        return {"f": y.max, "m": y.min, "i": y.amax, "mod": y.amin}[form]()
    call = ACTS[name][2]
    return call(T, x, kw, form)


def _draw(T, seed):
    r = random.Random(seed)
    name = NAMES[seed % len(NAMES)]
    draw, bps, _ = ACTS[name]
    kw = draw(r)
    dtype = r.choice(["float32", "float32", "float64", "float64", "bfloat16", "float16"])
    form = r.choice(["f", "f", "m", "i", "mod"])
    vals = _inputs(r, bps(kw), dtype, specials=name != "gelu")  # gelu(+-inf): Note [CPU-dependent paths in torch]
    out = {"act": name, "kw": sorted((k, v) for k, v in kw.items()), "dtype": dtype, "form": form}
    try:
        x = T.tensor(vals, dtype=getattr(T, dtype), requires_grad=True)
        res = _apply(T, name, x, kw, form)
        extra = []
        if isinstance(res, tuple):
            res, *extra = res
        out["y"] = res
        leaves = [x] + [e for e in extra if e.requires_grad]
        if not res.requires_grad:
            out["grad"] = "no grad"
            return out
        w = T.tensor([1.3, -0.7, 2.1, 0.45, -1.6, 0.8, 1.1, -2.2, 0.6, 1.7, -0.3, 0.9, 1.45, -1.05, 0.35,
                      2.4, -0.55, 1.25, 0.15, -1.9][:res.numel()] or [1.3], dtype=res.dtype).reshape(res.shape)
        g = T.autograd.grad((res * w).sum(), leaves, create_graph=True, allow_unused=True)
        out["grad"] = [gi.detach().clone() if gi is not None else None for gi in g]  # clone: torch's zero tensors
        g0 = g[0]
        if g0 is not None and g0.requires_grad and dtype in ("float32", "float64"):
            w2 = T.tensor([0.7, -1.2, 0.35, 1.9, -0.45, 1.15, -2.05, 0.25, 1.6, -0.85, 0.55, -1.35, 2.2, 0.95,
                           -0.15, 1.05, -1.75, 0.65, 1.4, -0.6][:g0.numel()], dtype=g0.dtype).reshape(g0.shape)
            g2 = T.autograd.grad((g0 * w2).sum(), leaves, allow_unused=True)
            out["grad2"] = [gi.clone() if gi is not None else None for gi in g2]
        elif g0 is not None:
            out["grad2"] = "no graph" if not g0.requires_grad else "half"
        return out
    except (RuntimeError, ValueError, TypeError, ZeroDivisionError) as e:
        out["error"] = (type(e).__name__, str(e).split("\nException raised from")[0])
        return out


cases("act_breakpoints", _draw, seed=list(range(1200)))
