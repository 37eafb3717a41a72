"""Turn what a case returned (or raised, or warned) into a plain JSON tree, identically for every library.

The tree is what is compared, and what golden files store.  Node kinds (key "k"):

    {"k":"tensor", "cls":"Tensor", "shape":[2,3], "dtype":"torch.float32", "device":"cpu",
     "requires_grad":false, "is_leaf":true, "grad_fn":null | "MulBackward0", "v":<tolist()>,
     "grad": <node>}                 # "grad" only on leaves and tensors that retain grad
    {"k":"tuple"|"list", "type":"tuple" | "torch.return_types.max", "fields":[...]|null, "items":[...]}
    {"k":"dict", "type":"dict", "items":[[<key node>, <value node>], ...]}   # insertion order kept
    {"k":"size", "v":[2,3]}   {"k":"dtype", "v":"torch.int64"}   {"k":"device", "v":"cpu"}
    {"k":"none"}  {"k":"bool","v":true}  {"k":"int","v":3}  {"k":"float","v":2.5}
    {"k":"complex","v":[re,im]}  {"k":"str","v":"..."}
    {"k":"ndarray", "dtype":"float32", "shape":[2], "v":[...]}

Numbers inside "v": floats are exact (JSON via repr round-trips); NaN and infinities are the strings
"NaN", "Infinity", "-Infinity" (what JavaScript's Number() parses); integers beyond +-2**53 are decimal
strings (exact in JavaScript too); complex elements are [re, im] pairs; bools are JSON booleans.

An exception becomes {"type": "<module.qualname>", "builtin": "<first builtin class in its MRO>",
"msg": normalise(str(e))}; a warning {"type", "builtin", "msg"} the same way.

Anything that cannot be captured raises CaptureError -- never a silent None.
"""
import math
import re
import types

BIG = 2 ** 53


class CaptureError(Exception):
    pass


# ---------------------------------------------------------------------------- message normalisation
# Rule (applied to torch's and the library's text alike, exceptions and warnings):
#  1. "\nException raised from <fn> at <file>:<line> (most recent call first):..." -- the C++ backtrace
#     torch appends when TORCH_SHOW_CPP_STACKTRACES=1 -- is cut off, with everything after it.
#  2. A trailing " (Triggered internally at <path>:<line>.)" -- the suffix of warnings raised by C++
#     TORCH_WARN -- is removed.
#  3. Any remaining C++ source location "<path/>file.<c|cc|cpp|cxx|h|hpp|cu|cuh>:<line>", quoted or not
#     (e.g. "[enforce fail at alloc_cpu.cpp:127]", 'INTERNAL ASSERT FAILED at "../x.cpp":12'), becomes
#     "<src>".
# Nothing else is touched: no whitespace trimming, no case folding.
_BACKTRACE = "\nException raised from "
_TRIGGERED = re.compile(r" \(Triggered internally at [^()\n]*:\d+\.\)\Z")
_SRCLOC = re.compile(r'"?(?:[\w.\-]*[\\/])*[\w.\-]+\.(?:cpp|cxx|cc|c|hpp|h|cuh|cu)"?:\d+')


def normalise_message(msg):
    i = msg.find(_BACKTRACE)
    if i >= 0:
        msg = msg[:i]
    msg = _TRIGGERED.sub("", msg)
    return _SRCLOC.sub("<src>", msg)


def _builtin_base(cls):
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c.__name__
    return "object"


def _typename(cls, lib_root=None):
    mod = cls.__module__ or ""
    if lib_root and (mod == lib_root or mod.startswith(lib_root + ".")):
        mod = "torch" + mod[len(lib_root):]
    return cls.__qualname__ if mod == "builtins" else f"{mod}.{cls.__qualname__}"


def capture_exception(e, lib_root=None):
    return {"type": _typename(type(e), lib_root), "builtin": _builtin_base(type(e)),
            "msg": normalise_message(str(e))}


def capture_warnings(records, lib_root=None):
    return [{"type": _typename(w.category, lib_root), "builtin": _builtin_base(w.category),
             "msg": normalise_message(str(w.message))} for w in records]


# ----------------------------------------------------------------------------------------- numbers
def enc_float(x):
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def enc_int(x):
    return x if -BIG <= x <= BIG else str(x)


def dec_float(x):
    """Inverse of enc_float (for display)."""
    return float(x) if isinstance(x, str) else x


def _elems(v):
    t = type(v)
    if t is list:
        return [_elems(e) for e in v]
    if t is float:
        return enc_float(v)
    if t is bool:
        return v
    if t is int:
        return enc_int(v)
    if t is complex:
        return [enc_float(v.real), enc_float(v.imag)]
    raise CaptureError(f"tolist() gave an element of type {t.__module__}.{t.__qualname__}")


def _exact(v, typ, what):
    if type(v) is not typ:
        raise CaptureError(f"{what} is {type(v).__name__} {v!r}, expected {typ.__name__}")
    return v


# ------------------------------------------------------------------------------------------ values
class Capturer:
    """Captures values produced with module T (torch, wick, a stand-in)."""

    def __init__(self, T):
        self.T = T
        self.root = T.__name__.split(".")[0]
        g = lambda n: getattr(T, n, None)  # noqa: E731
        self.Tensor, self.Size, self.dtype, self.device = g("Tensor"), g("Size"), g("dtype"), g("device")
        if not isinstance(self.Tensor, type):
            raise CaptureError(f"module {T.__name__} has no Tensor class")

    def _is(self, v, cls):
        return isinstance(cls, type) and isinstance(v, cls)

    def __call__(self, v, depth=0):
        if depth > 64:
            raise CaptureError("structure nested deeper than 64 levels")
        t = type(v)
        if v is None:
            return {"k": "none"}
        if t is bool:
            return {"k": "bool", "v": v}
        if t is int:
            return {"k": "int", "v": enc_int(v)}
        if t is float:
            return {"k": "float", "v": enc_float(v)}
        if t is complex:
            return {"k": "complex", "v": [enc_float(v.real), enc_float(v.imag)]}
        if t is str:
            return {"k": "str", "v": v}
        if self._is(v, self.Tensor):
            return self.tensor(v, depth)
        if self._is(v, self.Size):
            return {"k": "size", "v": [_exact(s, int, "Size element") for s in v]}
        if self._is(v, self.dtype):
            return {"k": "dtype", "v": str(v)}
        if self._is(v, self.device):
            return {"k": "device", "v": str(v)}
        if isinstance(v, (tuple, list)):
            fields = getattr(t, "_fields", None) or getattr(t, "__match_args__", None)
            kind = "list" if isinstance(v, list) else "tuple"
            return {"k": kind, "type": _typename(t, self.root), "fields": list(fields) if fields else None,
                    "items": [self(x, depth + 1) for x in v]}
        if isinstance(v, dict):
            return {"k": "dict", "type": _typename(t, self.root),
                    "items": [[self(k, depth + 1), self(x, depth + 1)] for k, x in v.items()]}
        if t.__module__ == "numpy" and t.__name__ == "ndarray":
            return {"k": "ndarray", "dtype": str(v.dtype), "shape": list(v.shape), "v": _elems(v.tolist())}
        if isinstance(v, types.ModuleType):
            raise CaptureError(f"a module ({v.__name__}) is not a value to compare")
        raise CaptureError(
            f"cannot capture a {t.__module__}.{t.__qualname__} with library {self.T.__name__}"
            + (" -- a real torch object on the library side: did the case use torch instead of T?"
               if t.__module__.split(".")[0] == "torch" and self.root != "torch" else
               " (return tensors, tuples, scalars; use print_case for reprs)"))

    def tensor(self, t, depth):
        shape = t.shape
        node = {"k": "tensor", "cls": type(t).__name__,
                "shape": [_exact(s, int, "shape element") for s in shape],
                "dtype": str(t.dtype), "device": str(t.device),
                "requires_grad": _exact(t.requires_grad, bool, "requires_grad"),
                "is_leaf": _exact(t.is_leaf, bool, "is_leaf")}
        gf = t.grad_fn
        node["grad_fn"] = None if gf is None else type(gf).__name__
        node["v"] = _elems(t.tolist())
        if node["is_leaf"] or getattr(t, "retains_grad", False) is True:
            node["grad"] = self(t.grad, depth + 1)
        return node
