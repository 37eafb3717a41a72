"""Case-writing API of the wick parity suite.

A case is a small function written in torch syntax that takes the module under test as ``T``; the runner
calls it once with real ``torch`` and once with ``wick`` and compares what came back.  Case files
(``tests/parity/cases_*.py``) do ``from .harness import *`` and call the registration functions below at
import time.  Nothing here imports torch: the same files run on fronts without torch (golden mode).

    case(name, fn)                    value case:   fn(T) -> value (tensors, tuples, scalars, ...)
    grad_case(name, fn, *inputs)      gradient case: fn(T, *tensors) -> tensor(s); inputs from lists
    error_case(name, fn, match=None)  fn(T) must raise in torch; type and message compared
    print_case(name, fn)              repr() and str() of fn(T) compared character for character
    cases(name, fn, *inputs, kind=..., **axes)   the cartesian product of axes (dtype, dim, ...)

Options common to all: ``rtol=``/``atol=`` (override the dtype tolerance for every float compared),
``warns=True`` (also compare the warnings raised: category and message), ``skip="reason"`` (the case
still runs under torch -- so it stays valid and pinned -- but not under the library; the reason is
printed and counted), ``cpu_dependent="reason"`` (torch's answer depends on the CPU it runs on, so the
case is compared against live torch only, never against a golden pinned on another machine; see
``cpu_vendor()``).  See README.md.
"""
import itertools
import sys
import zlib

__all__ = [
    "case", "grad_case", "error_case", "print_case", "cases",
    "inp", "const", "raw", "D", "Dtype",
    "FLOAT", "HALF", "FLOATS", "INTS", "UINTS", "COMPLEX", "ALL", "BOOLS", "REDUCTIONS", "dims",
    "vT", "vstep", "vexpand", "nc_t", "nc_step", "nc_expand", "weights",
    "CaseDefinitionError", "submodule", "cpu_vendor",
]

# Which side is running right now: "ref" (torch / golden) or "lib".  Set by the runner; helpers use it
# to check their own promises (a "non-contiguous" helper really gives a non-contiguous tensor in torch).
SIDE = "ref"

KINDS = ("value", "grad", "error", "print")
_OPTIONS = ("rtol", "atol", "warns", "skip", "match", "order", "kind", "cpu_dependent")


class CaseDefinitionError(Exception):
    """A case that is wrong as written (raised while defining or driving it, never a library verdict)."""


# ---------------------------------------------------------------------------------------------- dtypes
class Dtype(str):
    """The name of a dtype, resolved to ``getattr(T, name)`` on each side before a swept case runs."""

    def resolve(self, T):
        return getattr(T, str(self))


class _DtypeNames:
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return Dtype(name)


D = _DtypeNames()
FLOAT = [D.float32, D.float64]
HALF = [D.float16, D.bfloat16]
FLOATS = HALF + FLOAT
UINTS = [D.uint8]
INTS = [D.uint8, D.int8, D.int16, D.int32, D.int64]
COMPLEX = [D.complex64, D.complex128]
ALL = FLOATS + INTS + [D.bool]
BOOLS = (False, True)
REDUCTIONS = ("none", "mean", "sum")


def dims(ndim):
    """Every valid dim of an ndim-dimensional tensor, negative ones included: dims(2) == [-2, -1, 0, 1]."""
    return list(range(-ndim, ndim)) if ndim else [0, -1]


def _resolve(T, v):
    return v.resolve(T) if isinstance(v, Dtype) else v


# ------------------------------------------------------------------------------------------ weights
# Backward is driven from sum(out * W) with W a fixed, distinct, uneven, non-zero weight per element
# (TESTING.md rule 4): never ones (every upstream gradient 1), never arange (the first weight is 0).
# Element k gets BASE[k % 16] * (1 + (k // 16) / 8).
_W_BASE = (1.3, -0.7, 2.1, 0.45, -1.9, 0.8, 3.2, -0.35, 1.05, -2.6, 0.6, -1.15, 2.75, -0.25, 1.7, -0.9)


def weights(n, offset=0):
    """The first n backprop weights starting at position offset (Python floats)."""
    return [_W_BASE[k % 16] * (1 + (k // 16) / 8) for k in range(offset, offset + n)]


def _weight_tensor(T, out, offset):
    shape = tuple(out.shape)
    n = 1
    for s in shape:
        n *= s
    return T.tensor(weights(n, offset), dtype=out.dtype).reshape(shape), n


# ------------------------------------------------------------------------------ non-contiguous views
# View functions for grad_case inputs (the leaf is built from the data, the function gets the view, and
# the leaf's .grad is what is compared), and nc_* builders for value cases.  Both sides build the view
# the same way; on the torch side the builders assert the result really is non-contiguous.
def vT(t):
    """Swap the last two dims (a transposed view)."""
    return t.transpose(-2, -1)


def vstep(t):
    """Every second element of the last dim (a step-sliced view)."""
    return t[..., ::2]


def vexpand(*shape):
    """A view expanding size-1 dims to shape (broadcast view with stride 0)."""
    return lambda t: t.expand(*shape)


def _noncontig(x, how):
    if SIDE == "ref" and x.numel() > 1 and x.is_contiguous():
        raise CaseDefinitionError(f"{how} view is contiguous in torch: give data that makes it a real view")
    return x


def nc_t(T, data, dtype=None):
    """T.tensor(data) with its last two dims swapped: a non-contiguous view."""
    return _noncontig(vT(T.tensor(data, dtype=_resolve(T, dtype))), "nc_t")


def nc_step(T, data, dtype=None):
    """T.tensor(data)[..., ::2]: a non-contiguous step-sliced view."""
    return _noncontig(vstep(T.tensor(data, dtype=_resolve(T, dtype))), "nc_step")


def nc_expand(T, data, shape, dtype=None):
    """T.tensor(data).expand(shape): a view with zero strides (data needs size-1 dims)."""
    return _noncontig(T.tensor(data, dtype=_resolve(T, dtype)).expand(*shape), "nc_expand")


# ------------------------------------------------------------------------------ grad_case inputs
class inp:
    """A leaf input of a grad_case: ``T.tensor(data, dtype=dtype, requires_grad=requires_grad)``.

    ``view`` (a function of the leaf, e.g. vT, vstep, vexpand(3, 4)) makes the case function receive a
    view while the leaf's ``.grad`` is compared.  Bare lists given to grad_case mean ``inp(list)``."""

    def __init__(self, data, dtype=None, requires_grad=True, view=None, name=None):
        self.data, self.dtype, self.requires_grad, self.view, self.name = data, dtype, requires_grad, view, name

    def build(self, T):
        leaf = T.tensor(self.data, dtype=_resolve(T, self.dtype), requires_grad=self.requires_grad)
        return leaf, (self.view(leaf) if self.view is not None else leaf)

    def __repr__(self):
        return f"inp({self.data!r}, dtype={self.dtype!r}, requires_grad={self.requires_grad}, view={_fname(self.view)})"


def const(data, dtype=None, view=None, name=None):
    """An input that does not require grad; its .grad is still compared (it must stay None)."""
    return inp(data, dtype=dtype, requires_grad=False, view=view, name=name)


class raw:
    """An input built by fn(T) (e.g. an index tensor), passed through and not tracked."""

    def __init__(self, fn, name=None):
        self.fn, self.name = fn, name

    def build(self, T):
        return None, self.fn(T)

    def __repr__(self):
        return f"raw({_fname(self.fn)})"


def _fname(f):
    return None if f is None else getattr(f, "__qualname__", repr(f))


def _as_input(x):
    if isinstance(x, (inp, raw)):
        return x
    if isinstance(x, (list, tuple, int, float, bool, complex)):
        return inp(x)
    raise CaseDefinitionError(f"grad_case input must be a list, inp(...), const(...) or raw(...), got {type(x).__name__}")


# ------------------------------------------------------------------------------------------ Case
class Case:
    __slots__ = ("file", "name", "kind", "fn", "inputs", "params", "order", "rtol", "atol", "warns",
                 "skip", "match", "cpu_dependent", "src_file", "src_line")

    def __init__(self, file, name, kind, fn, inputs=(), params=None, order=1, rtol=None, atol=None,
                 warns=False, skip=None, match=None, cpu_dependent=None, src=(None, None)):
        self.file, self.name, self.kind, self.fn = file, name, kind, fn
        self.inputs, self.params, self.order = tuple(inputs), dict(params or {}), order
        self.rtol, self.atol, self.warns, self.skip, self.match = rtol, atol, warns, skip, match
        self.cpu_dependent = cpu_dependent
        self.src_file, self.src_line = src

    @property
    def id(self):
        return f"{self.file}::{self.name}"

    @property
    def seed(self):
        """The manual seed set before this case runs on either side (fixed per case)."""
        return zlib.crc32(self.id.encode()) & 0x7FFFFFFF

    def __repr__(self):
        return f"<Case {self.id} ({self.kind})>"

    # The object to capture, computed with module T.  Exceptions propagate to the runner.
    def execute(self, T):
        params = {k: _resolve(T, v) for k, v in self.params.items()}
        if self.kind == "grad":
            return self._grad(T, params)
        val = self.fn(T, **params)
        if self.kind == "print":
            return {"repr": repr(val), "str": str(val)}
        return val

    def _grad(self, T, params):
        names, leaves, args = [], [], []
        for i, spec in enumerate(self.inputs):
            leaf, arg = spec.build(T)
            args.append(arg)
            if leaf is not None:
                names.append(spec.name or f"x{i}")
                leaves.append(leaf)
        out = self.fn(T, *args, **params)
        outs = [o for o in _tensors_in(out, T) if o.requires_grad]
        if not outs:
            raise CaseDefinitionError("grad_case: no output requires grad (nothing to backprop)")
        loss, k = _weighted_sum(T, outs, 0)
        result = {"out": out}
        if self.order == 1:
            loss.backward()
            result["grads"] = {n: leaf.grad for n, leaf in zip(names, leaves)}
            return result
        # order 2: first grads with create_graph=True, then the grad of a weighted sum of those.
        wrt = [(n, leaf) for n, leaf in zip(names, leaves) if leaf.requires_grad]
        g1 = T.autograd.grad(loss, [leaf for _, leaf in wrt], create_graph=True, allow_unused=True)
        result["grads"] = {n: g for (n, _), g in zip(wrt, g1)}
        flowing = [g for g in g1 if g is not None and g.requires_grad]
        if flowing:
            loss2, _ = _weighted_sum(T, flowing, k)
            g2 = T.autograd.grad(loss2, [leaf for _, leaf in wrt], allow_unused=True)
            result["grads2"] = {n: g for (n, _), g in zip(wrt, g2)}
        else:
            result["grads2"] = {n: None for n, _ in wrt}
        # autograd.grad must not accumulate into .grad: every leaf's .grad stays None.
        result["leaf_grads"] = {n: leaf.grad for n, leaf in zip(names, leaves)}
        return result


def _weighted_sum(T, outs, offset):
    loss = None
    for o in outs:
        w, n = _weight_tensor(T, o, offset)
        offset += n
        term = (o * w).sum()
        loss = term if loss is None else loss + term
    return loss, offset


def _tensors_in(v, T):
    if isinstance(v, T.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in _tensors_in(x, T)]
    return []


# ------------------------------------------------------------------------------------- registration
# Cases register into the bucket of the module that defines them (one bucket per case file), or into
# the innermost collecting() block (used by the self-tests).
_BY_MODULE = {}
_COLLECTING = []


class collecting:
    """``with collecting("name") as cs: case(...)`` gathers cases into the list cs (for self-tests)."""

    def __init__(self, file="adhoc"):
        self.file, self.cases = file, []

    def __enter__(self):
        _COLLECTING.append(self)
        return self.cases

    def __exit__(self, *exc):
        _COLLECTING.remove(self)


def _caller():
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__") == __name__:
        f = f.f_back
    if f is None:
        return "?", (None, None)
    return f.f_globals.get("__name__", "?"), (f.f_code.co_filename, f.f_lineno)


def _register(name, kind, fn, inputs=(), params=None, **opts):
    modname, src = _caller()
    if _COLLECTING:
        bucket, file = _COLLECTING[-1].cases, _COLLECTING[-1].file
    else:
        bucket, file = _BY_MODULE.setdefault(modname, []), modname.rpartition(".")[2]
    if not isinstance(name, str) or not name or any(c in name for c in "\n:"):
        raise CaseDefinitionError(f"bad case name {name!r} (non-empty, no ':' or newline)")
    if kind not in KINDS:
        raise CaseDefinitionError(f"{name}: kind must be one of {KINDS}, got {kind!r}")
    if not callable(fn):
        raise CaseDefinitionError(f"{name}: fn must be callable")
    skip = opts.get("skip")
    if skip is not None and (not isinstance(skip, str) or len(skip.strip()) < 10):
        raise CaseDefinitionError(f"{name}: a skip needs a written reason about wick (>= 10 chars), got {skip!r}")
    cd = opts.get("cpu_dependent")
    if cd is not None and (not isinstance(cd, str) or len(cd.strip()) < 10):
        raise CaseDefinitionError(f"{name}: cpu_dependent needs a written reason (>= 10 chars), got {cd!r}")
    if opts.get("match") is not None and kind != "error":
        raise CaseDefinitionError(f"{name}: match= is only for error cases")
    if opts.get("order", 1) not in (1, 2) or (opts.get("order", 1) == 2 and kind != "grad"):
        raise CaseDefinitionError(f"{name}: order must be 1 or 2, and only for grad cases")
    c = Case(file, name, kind, fn, inputs, params, src=src, **opts)
    bucket.append(c)
    return c


def case(name, fn, *, rtol=None, atol=None, warns=False, skip=None, cpu_dependent=None):
    """A value case: fn(T) returns what is compared."""
    return _register(name, "value", fn, rtol=rtol, atol=atol, warns=warns, skip=skip, cpu_dependent=cpu_dependent)


def grad_case(name, fn, *inputs, order=1, rtol=None, atol=None, warns=False, skip=None):
    """A gradient case: inputs (lists, inp(), const(), raw()) become tensors; fn(T, *tensors) runs; the
    differentiable outputs are folded with fixed uneven weights and backpropagated.  Compared: the output,
    every tracked input's .grad (None is not zeros), and with order=2 the second derivatives too."""
    if not inputs:
        raise CaseDefinitionError(f"{name}: grad_case needs at least one input")
    return _register(name, "grad", fn, [_as_input(x) for x in inputs], order=order, rtol=rtol, atol=atol,
                     warns=warns, skip=skip)


def error_case(name, fn, *, match=None, warns=False, skip=None, cpu_dependent=None):
    """fn(T) must raise under torch.  Compared: the exception's builtin type, and its message exactly
    (after the documented source-location normalisation), or -- with match= -- by re.search on both sides
    (the regex is checked against torch's message too, so it cannot go stale silently)."""
    return _register(name, "error", fn, match=match, warns=warns, skip=skip, cpu_dependent=cpu_dependent)


def print_case(name, fn, *, warns=False, skip=None):
    """repr(fn(T)) and str(fn(T)) are compared character for character."""
    return _register(name, "print", fn, warns=warns, skip=skip)


def _label(v):
    if isinstance(v, Dtype):
        return str(v)
    if isinstance(v, str):
        return v
    if callable(v):
        return getattr(v, "__name__", "fn")
    return repr(v)


def cases(name, fn, *inputs, kind="value", rtol=None, atol=None, warns=False, skip=None, match=None,
          order=1, **axes):
    """Register one case per point of the cartesian product of axes: fn(T, *inputs, **point).

    Case names are ``name[k1=v1,k2=v2]``.  Dtype values (D.float32, FLOATS, ...) are resolved to
    T.float32 on each side.  ``kind`` and ``skip`` may be functions of the point (keyword arguments)
    returning the kind / a reason or None, e.g. to expect an error for the one dtype an op refuses."""
    if not axes:
        raise CaseDefinitionError(f"{name}: cases() needs at least one axis (use case() otherwise)")
    keys = list(axes)
    made = []
    for values in itertools.product(*(list(axes[k]) for k in keys)):
        point = dict(zip(keys, values))
        k = kind(**point) if callable(kind) else kind
        s = skip(**point) if callable(skip) else skip
        full = f"{name}[{','.join(f'{a}={_label(v)}' for a, v in point.items())}]"
        ins = [_as_input(x) for x in inputs] if k == "grad" else list(inputs)
        if k != "grad" and ins:
            raise CaseDefinitionError(f"{name}: positional inputs are only for kind='grad'")
        made.append(_register(full, k, fn, ins, point, order=order if k == "grad" else 1,
                              rtol=rtol, atol=atol, warns=warns, skip=s,
                              match=match if k == "error" else None))
    return made


def cpu_vendor():
    """The CPU's vendor string ("GenuineIntel", "AuthenticAMD", ...; "" where /proc/cpuinfo does not say): for a
    case whose torch answer comes from a vendor-specific MKL path that wick follows on one vendor only."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def submodule(T, dotted):
    """`import torch.<dotted>` for the module under test: T.__name__ + "." + dotted.  A stand-in
    (tests/parity/standins) is real torch seen through a proxy module, so its submodules are torch's."""
    import importlib
    base = "torch" if T.__name__.startswith("tests.parity.standins") else T.__name__
    return importlib.import_module(base + "." + dotted)
