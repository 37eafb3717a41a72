"""Random indexing expressions (fixed seed): x[index] and x[index] = value on small tensors of 0-4 dims with ints
(huge ones too), slices (zero and negative steps, huge bounds), None, ..., bools, index tensors of several dtypes,
masks, lists and invalid objects -- values, shapes and error messages (in torch's order) must all agree."""
import random

from .harness import *  # noqa: F401,F403

_R = random.Random(20240611)


def _shape():
    nd = _R.choice([0, 1, 1, 2, 2, 3, 4])
    return [_R.choice([0, 1, 2, 3, 4]) for _ in range(nd)]


def _item(shape):
    r = _R.random()
    if r < 0.2:
        return _R.choice([0, 1, 2, 3, -1, -2, -4, 5, 2 ** 63 - 1, -2 ** 63, 2 ** 40])
    if r < 0.35:
        vals = [None, 0, 1, -1, 2, -3, 7, 2 ** 62]
        return slice(_R.choice(vals), _R.choice(vals), _R.choice([None, 1, 1, 2, 3, -1, 0]))
    if r < 0.42:
        return None
    if r < 0.47:
        return Ellipsis
    if r < 0.52:
        return _R.choice([True, False])
    if r < 0.65:
        n = _R.choice([0, 1, 2, 3])
        return ("T", [_R.choice([0, 1, 2, -1, -2, 3, 4, 5]) for _ in range(n)],
                _R.choice(["int64", "int64", "int32", "float32", "int16", "uint8"]))
    if r < 0.75:
        ln = _R.choice(shape) if shape else _R.choice([0, 1, 2])
        data = [_R.random() < 0.5 for _ in range(ln)]
        if _R.random() < 0.3 and len(shape) >= 2:
            data = [[_R.random() < 0.5 for _ in range(shape[1])] for _ in range(shape[0])]
        return ("T", data, "bool")
    if r < 0.82:
        return [_R.choice([0, 1, -1, 2, 3]) for _ in range(_R.choice([0, 1, 2]))]
    if r < 0.86:
        return ("T", _R.choice([0, 1, -1, 3]), _R.choice(["int64", "bool", "uint8", "float32"]))
    if r < 0.9:
        return [[0, 1], [1, 0]]
    return _R.choice([1.5, "x", (), []])


def _build(T, it):
    if isinstance(it, tuple) and len(it) == 3 and it[0] == "T":
        return T.tensor(it[1], dtype=getattr(T, it[2]))
    return it


def _make(shape, idx, val, mode):
    """The case returns the result, or (for an index torch refuses) the exception's builtin type and message, so
    one case covers both outcomes: the kind is whatever torch does with this random index."""
    def f(T):
        n = 1
        for s in shape:
            n *= s
        x = T.tensor([float(i) - 3.5 for i in range(n)]).reshape(shape)
        try:
            index = tuple(_build(T, i) for i in idx) if isinstance(idx, tuple) else _build(T, idx)
            if mode == "get":
                return x[index]
            x[index] = _build(T, val)
            return x
        except (IndexError, ValueError, TypeError, RuntimeError) as e:
            return ("raised", type(e).__name__, str(e).split("\n")[0])
    return f


_VALS = [2.5, -1, True, ("T", [1.0], "float32"), ("T", 7.0, "float32"), ("T", [1.0, 2.0], "float32"),
         ("T", [1, 2], "int64")]
for _k in range(400):
    _s = _shape()
    _n = _R.choice([1, 1, 2, 3, 4])
    _items = [_item(_s) for _ in range(_n)]
    _idx = _items[0] if (_n == 1 and _R.random() < 0.5) else tuple(_items)
    _mode = _R.choice(["get", "get", "set"])
    _val = _R.choice(_VALS)
    case(f"fuzz_{_mode}_{_k:03d}", _make(_s, _idx, _val, _mode))
