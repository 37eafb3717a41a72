"""Golden files: torch's answers pinned per case file, for fronts that have no torch beside them.

Format (tests/parity/golden/<casefile>.json), one case per line so diffs stay readable:

    {"format": "wick-parity-golden/1",
     "torch": "2.13.0+cpu",                       # torch.__version__ that produced it
     "file": "cases_creation",
     "cases": {
      "<case name>": {"kind": "value"|"grad"|"error"|"print", "fp": "<sha1>", "outcome": OUTCOME},
      ...
     }}

    OUTCOME = {"ok": <tree>, "warnings": [W...]}          # the case returned
            | {"raised": E, "warnings": [W...]}           # the case raised (error cases)
    E, W    = {"type": "torch._C._LinAlgError", "builtin": "RuntimeError", "msg": "<normalised text>"}

<tree> is described in capture.py (floats exact, NaN/Infinity/-Infinity and big ints as strings).
"fp" fingerprints the case as written (kind, options, the source text of its function, the plain data
and helper functions it refers to): a case edited after pinning is reported as stale even where torch is
absent.  Regenerate with ``python3 -m tests.parity.pin``; check with ``python3 -m tests.parity --check-golden``.
"""
import hashlib
import inspect
import json
import os
import types

from .harness import Dtype, inp, raw

FORMAT = "wick-parity-golden/1"
GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


def path_for(file):
    return os.path.join(GOLDEN_DIR, file + ".json")


def load(file):
    p = path_for(file)
    if not os.path.exists(p):
        return None
    with open(p, encoding="utf-8") as f:
        g = json.load(f)
    if g.get("format") != FORMAT:
        raise ValueError(f"{p}: format {g.get('format')!r}, expected {FORMAT!r}")
    return g


def write(file, torch_version, entries):
    """entries: list of (name, kind, fp, outcome) in case order."""
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    d = lambda x: json.dumps(x, allow_nan=False, ensure_ascii=False, separators=(",", ":"))  # noqa: E731
    lines = [f'{{"format": {d(FORMAT)},', f' "torch": {d(torch_version)},', f' "file": {d(file)},', ' "cases": {']
    body = [f'  {d(name)}: {d({"kind": kind, "fp": fp, "outcome": outcome})}' for name, kind, fp, outcome in entries]
    lines.append(",\n".join(body))
    lines.append(" }}\n")
    tmp = path_for(file) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path_for(file))


# ------------------------------------------------------------------------------------ fingerprints
_PLAIN = (str, int, float, bool, type(None), complex)


def _plain(v, depth=0):
    if depth > 8:
        return False
    if isinstance(v, _PLAIN):
        return True
    if isinstance(v, (list, tuple)):
        return all(_plain(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return all(_plain(k, depth + 1) and _plain(x, depth + 1) for k, x in v.items())
    return False


def _codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _describe(obj, out, seen):
    """Append a stable description of obj (function source, referenced data) to out."""
    if isinstance(obj, Dtype) or _plain(obj):
        out.append(repr(obj))
        return
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, (inp, raw)):
        out.append(type(obj).__name__)
        for k in ("data", "dtype", "requires_grad", "name"):
            if hasattr(obj, k):
                out.append(repr(getattr(obj, k)))
        _describe(getattr(obj, "view", None) or getattr(obj, "fn", None), out, seen)
    elif isinstance(obj, types.FunctionType):
        out.append(_source(obj))
        for d in obj.__defaults__ or ():
            _describe(d, out, seen)
        for d in (obj.__kwdefaults__ or {}).values():
            _describe(d, out, seen)
        for cell in obj.__closure__ or ():
            try:
                _describe(cell.cell_contents, out, seen)
            except ValueError:
                pass
        g = obj.__globals__
        for code in _codes(obj.__code__):
            for n in code.co_names:
                v = g.get(n)
                if v is None:
                    continue
                if _plain(v):
                    out.append(f"{n}={v!r}")
                elif isinstance(v, types.FunctionType) and v.__module__ == obj.__module__:
                    _describe(v, out, seen)
    elif obj is not None:
        out.append(type(obj).__qualname__)


_SOURCES = {}


def _source(fn):
    code = fn.__code__
    if code not in _SOURCES:
        try:
            _SOURCES[code] = inspect.getsource(fn)
        except (OSError, TypeError):
            _SOURCES[code] = code.co_code.hex()
    return _SOURCES[code]


def fingerprint(case):
    out = [case.kind, repr(case.order), repr(case.rtol), repr(case.atol), repr(case.match), repr(case.warns),
           repr(sorted((k, repr(v)) for k, v in case.params.items()))]
    if case.cpu_dependent is not None:  # (absent from older fingerprints)
        out.append("cpu_dependent")
    seen = set()
    _describe(case.fn, out, seen)
    for x in case.inputs:
        _describe(x, out, seen)
    return hashlib.sha1("\x00".join(out).encode("utf-8", "surrogatepass")).hexdigest()
