"""Compare two captured trees (see capture.py): the reference (torch, live or golden) and the library.

Every leaf check counts as one comparison (a shape, a dtype, a flag, each tensor element, each scalar,
each string).  Differences are collected with a readable path, e.g. ``result[1].grad[0][2]``.

Tolerance (|lib - ref| <= atol + rtol * |ref|) depends on the dtype of the tensor the number is in:
float64 1e-10/1e-12, float32 1e-5/1e-6, float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5 (complex: per
component, by the component's float type); Python floats use the float32 tolerance (they mostly come
from float32 tensors via item()).  A case's rtol=/atol= replace these for every float it compares.
Integers, bools and strings are exact.  Element types are exact too: 1 is not 1.0 is not True.
NaN equals NaN, an infinity equals only the same infinity; -0.0 equals 0.0 (print cases compare text,
where the sign shows).
"""
import json

TOL = {
    "torch.float64": (1e-10, 1e-12), "torch.complex128": (1e-10, 1e-12),
    "torch.float32": (1e-5, 1e-6), "torch.complex64": (1e-5, 1e-6),
    "torch.float16": (1e-3, 1e-5), "torch.complex32": (1e-3, 1e-5),
    "torch.bfloat16": (1.6e-2, 1e-5),
}
PY_FLOAT_TOL = TOL["torch.float32"]
EXACT = (0.0, 0.0)

_DESC = {"tensor": "a tensor", "tuple": "a tuple", "list": "a list", "dict": "a dict", "none": "None",
         "bool": "a bool", "int": "an int", "float": "a float", "complex": "a complex", "str": "a str",
         "size": "a torch.Size", "dtype": "a dtype", "device": "a device", "ndarray": "a numpy array"}


def _dumps(x):
    return json.dumps(x, allow_nan=False, separators=(",", ":"))


def show(x, limit=120):
    """Short display of a captured value or element."""
    if isinstance(x, dict) and "k" in x:
        k = x["k"]
        if k == "tensor":
            s = f"tensor(shape={x['shape']}, dtype={x['dtype']}, v={_dumps(x['v'])})"
        elif k in ("bool", "int", "float", "complex", "str", "size", "dtype", "device"):
            s = repr(x["v"])
        elif k == "none":
            s = "None"
        else:
            s = _dumps(x)
    elif isinstance(x, str):
        s = x if x in ("NaN", "Infinity", "-Infinity") or x.lstrip("-").isdigit() else repr(x)
    else:
        s = repr(x)
    return s if len(s) <= limit else s[:limit - 3] + "..."


class Diff:
    __slots__ = ("path", "ref", "lib", "why")

    def __init__(self, path, ref, lib, why=""):
        self.path, self.ref, self.lib, self.why = path, ref, lib, why

    def __str__(self):
        why = f" ({self.why})" if self.why else ""
        return f"{self.path}: lib {self.lib} != torch {self.ref}{why}"


class Comparer:
    def __init__(self, rtol=None, atol=None, max_diffs=1000):
        self.rtol, self.atol = rtol, atol
        self.n = 0            # individual comparisons made
        self.diffs = []       # Diff objects (up to max_diffs kept)
        self.ndiff = 0        # all differences found
        self.max_diffs = max_diffs

    # -------------------------------------------------------------------------------- helpers
    def _diff(self, path, ref, lib, why=""):
        self.ndiff += 1
        if len(self.diffs) < self.max_diffs:
            self.diffs.append(Diff(path, ref, lib, why))

    def _tol(self, dtype):
        r, a = TOL.get(dtype, EXACT) if dtype else PY_FLOAT_TOL
        return (self.rtol if self.rtol is not None else r, self.atol if self.atol is not None else a)

    def eq(self, path, ref, lib, count=True):
        """An exact comparison of two plain JSON values (types included).  Structure checks (a container's
        type, fields, length, keys) are made but not counted: a case comparing only empty structure
        compares nothing."""
        self.n += count
        if type(ref) is not type(lib) or ref != lib:
            self._diff(path, show(ref), show(lib))
            return False
        return True

    def number(self, path, ref, lib, tol):
        self.n += 1
        if type(ref) is not type(lib):
            self._diff(path, show(ref), show(lib),
                       f"{type(lib).__name__} vs {type(ref).__name__}" if not (isinstance(ref, str) or isinstance(lib, str)) else "")
            return
        if type(ref) is float:
            rtol, atol = tol
            if not abs(lib - ref) <= atol + rtol * abs(ref):
                self._diff(path, repr(ref), repr(lib), f"|diff| {abs(lib - ref):.3g} > tol {atol + rtol * abs(ref):.3g}")
        elif ref != lib:
            self._diff(path, show(ref), show(lib))

    def elements(self, path, ref, lib, tol):
        if type(ref) is list and type(lib) is list:
            if len(ref) != len(lib):
                self.n += 1
                self._diff(path, f"{len(ref)} elements", f"{len(lib)} elements", "tolist() length")
                return
            for i, (r, l) in enumerate(zip(ref, lib)):
                self.elements(f"{path}[{i}]", r, l, tol)
        elif type(ref) is list or type(lib) is list:
            self.n += 1
            self._diff(path, show(ref), show(lib), "tolist() nesting")
        else:
            self.number(path, ref, lib, tol)

    @staticmethod
    def _count(v):
        return sum(Comparer._count(x) for x in v) if type(v) is list else 1

    def values(self, path, ref, lib, tol):
        # Fast path: identical JSON text means identical values *and* element types.
        if _dumps(ref) == _dumps(lib):
            self.n += self._count(ref)
            return
        self.elements(path, ref, lib, tol)

    # -------------------------------------------------------------------------------- nodes
    def node(self, ref, lib, path="result"):
        kr, kl = ref.get("k"), lib.get("k")
        if kr != kl:
            self.n += 1
            self._diff(path, show(ref), show(lib), f"{_DESC.get(kl, kl)} vs {_DESC.get(kr, kr)}")
            return
        getattr(self, "_" + kr)(ref, lib, path)

    def _none(self, ref, lib, path):
        self.n += 1

    def _bool(self, ref, lib, path):
        self.eq(path, ref["v"], lib["v"])

    _int = _size = _dtype = _device = _bool

    def _str(self, ref, lib, path):
        self.message(path, ref["v"], lib["v"])

    def _float(self, ref, lib, path):
        self.number(path, ref["v"], lib["v"], self._tol(None))

    def _complex(self, ref, lib, path):
        self.elements(path, ref["v"], lib["v"], self._tol(None))

    def _tensor(self, ref, lib, path):
        ok = self.eq(path + ".shape", ref["shape"], lib["shape"])
        ok = self.eq(path + ".dtype", ref["dtype"], lib["dtype"]) and ok
        if ok:
            self.values(path, ref["v"], lib["v"], self._tol(ref["dtype"]))
        self.eq(path + ".requires_grad", ref["requires_grad"], lib["requires_grad"])
        self.eq(path + ".grad_fn", ref["grad_fn"], lib["grad_fn"])
        self.eq(path + ".is_leaf", ref["is_leaf"], lib["is_leaf"])
        self.eq(path + ".device", ref["device"], lib["device"])
        self.eq(path + " class", ref["cls"], lib["cls"])
        if "grad" in ref or "grad" in lib:
            if "grad" in ref and "grad" in lib:
                self.node(ref["grad"], lib["grad"], path + ".grad")
            else:
                self.n += 1
                self._diff(path + ".grad", "present" if "grad" in ref else "absent",
                           "present" if "grad" in lib else "absent", "leaf or retains_grad differs")

    def _ndarray(self, ref, lib, path):
        ok = self.eq(path + ".shape", ref["shape"], lib["shape"])
        ok = self.eq(path + ".dtype", ref["dtype"], lib["dtype"]) and ok
        if ok:
            self.values(path, ref["v"], lib["v"], self._tol("torch." + ref["dtype"]))

    def _seq(self, ref, lib, path):
        self.eq(path + " type", ref["type"], lib["type"], False)
        self.eq(path + " fields", ref["fields"], lib["fields"], False)
        if self.eq(path + " length", len(ref["items"]), len(lib["items"]), False):
            names = ref["fields"] or []
            for i, (r, l) in enumerate(zip(ref["items"], lib["items"])):
                self.node(r, l, f"{path}.{names[i]}" if i < len(names) else f"{path}[{i}]")

    _tuple = _list = _seq

    def _dict(self, ref, lib, path):
        self.eq(path + " type", ref["type"], lib["type"], False)
        rk = [_dumps(k) for k, _ in ref["items"]]
        lk = [_dumps(k) for k, _ in lib["items"]]
        if not self.eq(path + " keys", rk, lk, False):
            return
        for (k, r), (_, l) in zip(ref["items"], lib["items"]):
            key = k.get("v")
            sub = f"{path}.{key}" if isinstance(key, str) and key.isidentifier() else f"{path}[{show(k)}]"
            self.node(r, l, sub)

    # ------------------------------------------------------------------------- exceptions/warnings
    def exception(self, ref, lib, match=None, path="raised"):
        """ref/lib: captured exceptions.  Type: the builtin base must match; where torch raised a builtin
        class itself, the library must raise exactly that builtin (not a subclass)."""
        self.eq(path + " builtin type", ref["builtin"], lib["builtin"])
        if ref["type"] == ref["builtin"]:
            self.eq(path + " type", ref["type"], lib["type"])
        if match is None:
            self.message(path + " message", ref["msg"], lib["msg"])
        else:
            import re
            self.n += 1
            if not re.search(match, lib["msg"]):
                self._diff(path + " message", f"/{match}/ (torch: {show(ref['msg'], 200)})", show(lib["msg"], 200),
                           "regex does not match")

    def message(self, path, ref, lib):
        self.n += 1
        if ref != lib:
            i = next((j for j, (a, b) in enumerate(zip(ref, lib)) if a != b), min(len(ref), len(lib)))
            lo = max(0, i - 30)
            self._diff(path, repr(ref[lo:i + 50]), repr(lib[lo:i + 50]), f"first difference at char {i}")

    def warnings(self, ref, lib, path="warnings"):
        if not self.eq(path + " count", len(ref), len(lib)):
            # still say which message is missing/extra
            self._diff(path, [w["msg"][:80] for w in ref], [w["msg"][:80] for w in lib])
            return
        for i, (r, l) in enumerate(zip(ref, lib)):
            self.eq(f"{path}[{i}] category", r["builtin"], l["builtin"])
            self.message(f"{path}[{i}] message", r["msg"], l["msg"])
