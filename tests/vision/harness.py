"""The vision parity harness: each case is fn(T, V) run with T, V = torch, torchvision (pinned into golden.json
by `python -m tests.vision.pin` under a Python that has torchvision, e.g. /work/venv-vision) and with
T, V = wick, wick.vision (tests/test_vision.py). Results are captured as plain JSON: tensors with dtype, shape
and exact values; exceptions by type and message."""
import hashlib
import inspect
import math
import zlib

CASES = {}


def case(name=None, rtol=None, atol=None, needs=()):
    """Register fn(T, V) under its name; rtol / atol override the dtype tolerance; needs: modules the case
    imports (PIL), skipped where absent."""
    def register(fn):
        key = name or fn.__name__.lstrip('_')
        if key in CASES:
            raise ValueError(f"duplicate vision case {key}")
        CASES[key] = dict(fn=fn, rtol=rtol, atol=atol, needs=tuple(needs))
        return fn
    return register


def fingerprint(key):
    c = CASES[key]
    src = inspect.getsource(c['fn'])
    return hashlib.sha256((src + repr((c['rtol'], c['atol']))).encode()).hexdigest()[:16]


def _float(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def capture(value):
    """JSON of a case's result."""
    import numpy as np
    tname = type(value).__name__
    if tname == 'Tensor' or hasattr(value, 'detach') and hasattr(value, 'dtype') and hasattr(value, 'shape'):
        t = value.detach()
        dtype = str(t.dtype).replace('torch.', '')
        vals = t.reshape(-1).tolist()
        if t.is_floating_point():
            vals = [_float(float(v)) for v in vals]
        return {'tensor': dtype, 'shape': list(t.shape), 'values': vals}
    if isinstance(value, np.ndarray):
        return {'ndarray': str(value.dtype), 'shape': list(value.shape),
                'values': [_float(float(v)) if value.dtype.kind == 'f' else v.item() for v in value.reshape(-1)]}
    if isinstance(value, (list, tuple)):
        return {'list' if isinstance(value, list) else 'tuple': [capture(v) for v in value]}
    if isinstance(value, dict):
        return {'dict': [[str(k), capture(v)] for k, v in value.items()]}
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return {'value': value}
    if isinstance(value, float):
        return {'float': _float(value)}
    if isinstance(value, np.generic):
        return capture(value.item())
    if isinstance(value, bytes):
        return {'bytes': value.hex()}
    raise TypeError(f"vision case returned an uncapturable {type(value).__name__}")


def run(key, T, V):
    """The captured outcome of one case: {'ok': value} or {'error': [type, message]}."""
    c = CASES[key]
    T.manual_seed(zlib.crc32(key.encode()))
    try:
        return {'ok': capture(c['fn'](T, V))}
    except Exception as e:     # noqa: BLE001  (the exception is the outcome)
        return {'error': [type(e).__name__, ' '.join(str(e).split())]}


def compare(got, want, rtol, atol, path='result'):
    """The first difference between two captures, or None."""
    if type(got) is not type(want):
        return f"{path}: {got!r:.200} != {want!r:.200}"
    if isinstance(want, dict):
        if set(got) != set(want):
            return f"{path}: keys {sorted(got)} != {sorted(want)}"
        kind = 'tensor' if 'tensor' in want else 'ndarray' if 'ndarray' in want else None
        if kind:
            if got[kind] != want[kind] or got['shape'] != want['shape']:
                return f"{path}: {got[kind]}{got['shape']} != {want[kind]}{want['shape']}"
            tol = {'float64': (1e-10, 1e-12), 'float32': (1e-5, 1e-6), 'float16': (1e-3, 1e-5)}.get(want[kind])
            return _values(got['values'], want['values'], tol, rtol, atol, path)
        for k in want:
            d = compare(got[k], want[k], rtol, atol, f"{path}.{k}" if k not in ('list', 'tuple', 'ok') else path)
            if d:
                return d
        return None
    if isinstance(want, list):
        if len(got) != len(want):
            return f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            d = compare(g, w, rtol, atol, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(want, float) and isinstance(got, float):
        return _values([got], [want], (1e-5, 1e-6), rtol, atol, path)
    return None if got == want else f"{path}: {got!r:.200} != {want!r:.200}"


def _values(got, want, tol, rtol, atol, path):
    r, a = tol or (0, 0)
    r, a = (rtol if rtol is not None else r), (atol if atol is not None else a)
    bad = 0
    first = None
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, str) or isinstance(g, str) or not tol:
            ok = g == w
        else:
            ok = abs(g - w) <= a + r * abs(w)
        if not ok:
            bad += 1
            if first is None:
                first = f"{path}[{i}]: {g!r} != {w!r}"
    return None if not bad else first + (f" [+{bad - 1} more differences]" if bad > 1 else "")
