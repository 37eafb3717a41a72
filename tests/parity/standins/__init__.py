"""Deliberately wrong stand-ins for the library, used by test_harness.py to prove the harness catches
each kind of lie.  Each is real torch seen through a TorchFunctionMode (entered by the runner around the
library side only, via the module's ``__parity_context__``) that breaks exactly one thing:

    faithful      nothing (the control: must pass every case)
    offbyone      cumsum values + 1
    wrongdtype    float32 sum returns float64
    wronggradfn   a MulBackward0 grad_fn reports itself as MulBackward1
    wrongmsg      the "Sizes of tensors must match" message loses its final period
    wrongexctype  IndexError raised as RuntimeError (same text)
    missinggrad   mul detaches its second operand (that input's .grad stays None)
    extragrad     detach() does not detach (an input that should get no .grad gets one)
    zerograd      torch.mul's backward returns zeros (grad_fn name and values unchanged)
    badrepr       repr/str of a tensor say "Tensor(" instead of "tensor("
    drift         float32 sum off by a relative 1e-4 (outside tolerance)
    jitter        float32 sum off by a relative 1e-7 (inside tolerance: must pass)
    intlist       tolist() of a float tensor gives ints where the value is integral
    nowarn        softmax without dim does not warn
    nocapture     tolist() raises (capture fails on the library side)

    python3 -m tests.parity --lib tests.parity.standins:offbyone     # the CLI takes them too
"""
import types

import torch
from torch.overrides import TorchFunctionMode


def name_of(func):
    n = getattr(func, "__name__", "")
    if n in ("__get__", "__set__"):
        n = getattr(getattr(func, "__self__", None), "__name__", "?") + "." + n
    return n


class _Break(TorchFunctionMode):
    def __init__(self, hook):
        super().__init__()
        self.hook = hook

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        return self.hook(func, args, kwargs or {})


def make(modname, hook, doc=""):
    """A module forwarding every attribute to torch, whose library-side runs go through hook(func, args,
    kwargs) -- which must call func(*args, **kwargs) itself."""
    m = types.ModuleType(modname, doc)
    m.__getattr__ = lambda name: getattr(torch, name)
    m.__parity_context__ = lambda: _Break(hook)
    m.__file__ = __file__
    return m


def call(func, args, kwargs):
    return func(*args, **kwargs)


def _is_f32(x):
    return isinstance(x, torch.Tensor) and x.dtype == torch.float32


def _offbyone(func, args, kwargs):
    out = func(*args, **kwargs)
    return out + 1 if name_of(func) == "cumsum" else out


def _wrongdtype(func, args, kwargs):
    out = func(*args, **kwargs)
    return out.to(torch.float64) if name_of(func) == "sum" and _is_f32(out) else out


class MulBackward1:
    pass


def _wronggradfn(func, args, kwargs):
    out = func(*args, **kwargs)
    if name_of(func) == "grad_fn.__get__" and type(out).__name__ == "MulBackward0":
        return MulBackward1()
    return out


def _wrongmsg(func, args, kwargs):
    try:
        return func(*args, **kwargs)
    except RuntimeError as e:
        if str(e).startswith("Sizes of tensors must match") and str(e).endswith("."):
            raise RuntimeError(str(e)[:-1]) from None
        raise


def _wrongexctype(func, args, kwargs):
    try:
        return func(*args, **kwargs)
    except IndexError as e:
        raise RuntimeError(str(e)) from None


def _missinggrad(func, args, kwargs):
    if name_of(func) in ("mul", "__mul__") and len(args) == 2 and isinstance(args[1], torch.Tensor):
        return func(args[0], args[1].detach(), **kwargs)
    return func(*args, **kwargs)


def _extragrad(func, args, kwargs):
    if name_of(func) == "detach" and args[0].requires_grad:
        return _Alias.apply(args[0])
    return func(*args, **kwargs)


class _Alias(torch.autograd.Function):
    """An identity that keeps the graph (what a detach() that forgot to detach looks like)."""
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g


class _ZeroMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return torch.zeros_like(g), torch.zeros_like(g)


_ZeroMul._backward_cls.__name__ = "MulBackward0"  # so only the gradient values are wrong


def _zerograd(func, args, kwargs):
    if func is torch.mul and len(args) == 2 and all(isinstance(a, torch.Tensor) for a in args) \
            and args[0].shape == args[1].shape and args[0].dtype == args[1].dtype and not kwargs:
        return _ZeroMul.apply(*args)
    return func(*args, **kwargs)


def _badrepr(func, args, kwargs):
    out = func(*args, **kwargs)
    if name_of(func) in ("__repr__", "__str__") and isinstance(out, str):
        return out.replace("tensor(", "Tensor(")
    return out


def _scaled_sum(factor):
    def hook(func, args, kwargs):
        out = func(*args, **kwargs)
        if name_of(func) == "sum" and _is_f32(out) and not out.requires_grad:
            return out * factor
        return out
    return hook


def _intlist(func, args, kwargs):
    out = func(*args, **kwargs)
    if name_of(func) == "tolist" and args[0].is_floating_point():
        def ints(v):
            if isinstance(v, list):
                return [ints(x) for x in v]
            return int(v) if v == v and v not in (float("inf"), float("-inf")) and v == int(v) else v
        return ints(out)
    return out


def _nowarn(func, args, kwargs):
    if name_of(func) == "softmax":
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args, **kwargs)
    return func(*args, **kwargs)


def _nocapture(func, args, kwargs):
    if name_of(func) == "tolist":
        raise RuntimeError("tolist is broken in this stand-in")
    return func(*args, **kwargs)


HOOKS = {
    "faithful": call, "offbyone": _offbyone, "wrongdtype": _wrongdtype, "wronggradfn": _wronggradfn,
    "wrongmsg": _wrongmsg, "wrongexctype": _wrongexctype, "missinggrad": _missinggrad,
    "extragrad": _extragrad, "zerograd": _zerograd, "badrepr": _badrepr,
    "drift": _scaled_sum(1 + 1e-4), "jitter": _scaled_sum(1 + 1e-7), "intlist": _intlist,
    "nowarn": _nowarn, "nocapture": _nocapture,
}


def get(name):
    """The stand-in module called name."""
    return make(f"{__name__}.{name}", HOOKS[name])


def __getattr__(name):  # tests.parity.standins:<name> on the runner's command line
    if name in HOOKS:
        return get(name)
    raise AttributeError(name)
