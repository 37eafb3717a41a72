"""Random sorting, selection, searching and counting calls (fixed seeds): sort / argsort / msort / topk / kthvalue /
mode / median / unique / unique_consecutive / searchsorted / bucketize / histc / bincount / cummax / cummin /
argmax / argmin / count_nonzero / isin / isclose / allclose / equal on small tensors of every dtype (ties, NaN,
+-inf and -0.0 among the values; empty, 0-d, transposed, stepped and expanded inputs), with arguments drawn from
valid and invalid values, through the function, the method and out= -- the results (values with the sign of zero,
indices, dtypes, shapes) or torch's errors (type and first line) must agree; and the gradients of the ops that
have them (values weighted unevenly), with their grad_fn names."""
import random

from .harness import *  # noqa: F401,F403

NAN, INF = float("nan"), float("inf")
_FPOOL = [0.0, -0.0, 1.0, -1.0, 2.5, 2.5, -3.0, 0.5, NAN, INF, -INF, 7.0, 1.0, -0.25]
_IPOOL = [0, 1, 1, 2, 3, 5, 7, 9, 2, 0, 4, 100]
_INTS = ["uint8", "int8", "int16", "int32", "int64"]
_FLOATS = ["float16", "bfloat16", "float32", "float64"]
_DTYPES = _FLOATS * 3 + _INTS + ["int64", "bool"]
_SHAPES = [[], [0], [1], [5], [6], [2, 3], [3, 4], [0, 3], [3, 0], [2, 3, 4], [1, 5], [23], [2, 40], [4, 1, 3]]


def _data(r, n, dtype, pool=None):
    if pool is None:
        if dtype == "bool":
            return [r.random() < 0.5 for _ in range(n)]
        pool = _FPOOL if dtype in _FLOATS else ([v - 4 if dtype != "uint8" else v for v in _IPOOL])
        if dtype not in _FLOATS and r.random() < 0.3:  # larger values, still in the dtype's range
            pool = pool + [v * 31 % (256 if dtype == "uint8" else 128) if dtype in ("uint8", "int8") else v * 31
                           for v in pool]
    return [r.choice(pool) for _ in range(n)]


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _tensor(T, r, shape=None, dtype=None, pool=None, layout=None):
    """A tensor of the drawn shape and dtype, possibly a transposed / stepped / expanded view of its data."""
    shape = list(r.choice(_SHAPES) if shape is None else shape)
    dtype = r.choice(_DTYPES) if dtype is None else dtype
    layout = r.choice(["c", "c", "c", "t", "s", "e"]) if layout is None else layout
    dt = getattr(T, dtype)
    if layout == "t" and len(shape) >= 2:
        s2 = shape[:-2] + [shape[-1], shape[-2]]
        return T.tensor(_data(r, _numel(s2), dtype, pool), dtype=dt).reshape(s2).transpose(-2, -1)
    if layout == "s" and len(shape) >= 1:
        s2 = shape[:-1] + [shape[-1] * 2]
        return T.tensor(_data(r, _numel(s2), dtype, pool), dtype=dt).reshape(s2)[..., ::2]
    if layout == "e" and len(shape) >= 1:
        s2 = shape[:-1] + [1]
        return T.tensor(_data(r, _numel(s2), dtype, pool), dtype=dt).reshape(s2).expand(*shape)
    return T.tensor(_data(r, _numel(shape), dtype, pool), dtype=dt).reshape(shape)


def _dim(r, x):
    nd = x.dim()
    return r.choice(list(range(-nd, nd)) * 3 + [nd, -nd - 1] if nd else [0, 0, -1, 1])


def _sorted_seq(T, r, dtype):
    """A tensor sorted along its last dim (1-d or 2-d), NaN last as sort puts it."""
    shape = r.choice([[0], [1], [4], [7], [2, 5], [3, 1], [2, 0]])
    rows = []
    for _ in range(_numel(shape[:-1])):
        row = _data(r, shape[-1], dtype)
        key = (lambda v: (v != v, v)) if dtype in _FLOATS else (lambda v: v)
        rows.append(sorted(row, key=key))
    flat = [v for row in rows for v in row]
    return T.tensor(flat, dtype=getattr(T, dtype)).reshape(shape)


def _outs(T, r, like_dtype, n=2):
    """out= tensors: usually empty ones of the right dtypes, sometimes a wrong dtype or a non-empty wrong shape."""
    c = r.random()
    vd = getattr(T, like_dtype)
    if c < 0.6:
        outs = [T.empty(0, dtype=vd), T.empty(0, dtype=T.int64)]
    elif c < 0.75:
        outs = [T.zeros(2, 2, dtype=vd), T.zeros(2, 2, dtype=T.int64)]
    elif c < 0.85:
        outs = [T.empty(0, dtype=vd), T.empty(0, dtype=T.int32)]
    else:
        outs = [T.empty(0, dtype=r.choice([T.float64, T.int64, T.float32])), T.empty(0, dtype=T.int64)]
    return tuple(outs[:n]) if n == 2 else outs[0]


def _kw(r, **opts):
    """A random subset of keyword arguments, each drawn from its list of values."""
    return {k: r.choice(v) for k, v in opts.items() if r.random() < 0.6}


def _call(T, r, x, name, args, kw, nout=2, out_dtype=None):
    how = r.choice(["f", "m", "m", "o"]) if nout else r.choice(["f", "m"])
    if how == "f":
        return getattr(T, name)(x, *args, **kw)
    if how == "m":
        return getattr(x, name)(*args, **kw)
    out = _outs(T, r, out_dtype or str(x.dtype).split(".")[-1], nout)
    res = getattr(T, name)(x, *args, out=out, **kw)
    return (res, out)


def _op_sort(T, r):
    x = _tensor(T, r)
    kw = _kw(r, descending=[False, True], stable=[True, False, None])
    args = [_dim(r, x)] if r.random() < 0.6 else []
    if r.random() < 0.3:
        kw["dim"] = _dim(r, x)
        args = []
    if "stable" in kw and args:
        kw["dim"] = args.pop()
    return _call(T, r, x, "sort", args, kw)


def _op_argsort(T, r):
    x = _tensor(T, r)
    kw = _kw(r, descending=[False, True], stable=[True, False], dim=[_dim(r, x)])
    return _call(T, r, x, "argsort", [], kw, nout=0)


def _op_msort(T, r):
    x = _tensor(T, r)
    if r.random() < 0.3:
        return T.msort(x, out=_outs(T, r, str(x.dtype).split(".")[-1], 1))
    return _call(T, r, x, "msort", [], {}, nout=0)


def _op_topk(T, r):
    x = _tensor(T, r)
    k = r.choice([0, 1, 1, 2, 3, 4, 5, 30, -1])
    kw = _kw(r, largest=[True, False], sorted=[True, False])
    args = [k] + ([_dim(r, x)] if r.random() < 0.6 else [])
    return _call(T, r, x, "topk", args, kw)


def _op_kthvalue(T, r):
    x = _tensor(T, r)
    k = r.choice([1, 1, 2, 3, 4, 5, 0, -1, 30])
    args = [k] + ([_dim(r, x)] if r.random() < 0.7 else [])
    return _call(T, r, x, "kthvalue", args, _kw(r, keepdim=[True, False]))


def _op_mode(T, r):
    x = _tensor(T, r)
    args = [_dim(r, x)] if r.random() < 0.7 else []
    return _call(T, r, x, "mode", args, _kw(r, keepdim=[True, False]))


def _op_median(T, r):
    x = _tensor(T, r, layout=r.choice(["c", "c", "t", "s"]))  # not expanded: torch's median.dim reads past a 0-stride row
    name = r.choice(["median", "nanmedian"])
    if r.random() < 0.3:
        return _call(T, r, x, name, [], {}, nout=0)
    return _call(T, r, x, name, [_dim(r, x)], _kw(r, keepdim=[True, False]))


def _op_unique(T, r):
    x = _tensor(T, r)
    kw = _kw(r, sorted=[True, False], return_inverse=[True, False], return_counts=[True, False])
    if r.random() < 0.4:
        kw["dim"] = _dim(r, x)
    if r.random() < 0.5:
        kw.pop("sorted", None)
        return T.unique_consecutive(x, **kw) if r.random() < 0.5 else x.unique_consecutive(**kw)
    return T.unique(x, **kw) if r.random() < 0.5 else x.unique(**kw)


def _op_searchsorted(T, r):
    sd = r.choice(_DTYPES)
    seq = _sorted_seq(T, r, sd)
    kw = _kw(r, right=[True, False], side=["left", "right", None, "middle"], out_int32=[True, False])
    vd = sd if r.random() < 0.7 else r.choice(_DTYPES)
    if r.random() < 0.2:
        vals = r.choice([2.5, 1, -1, 0, NAN, True, 100])
    else:
        vshape = r.choice([[], [3], [2, 3], [1], [0], seq.shape[:-1] + (3,), seq.shape[:-1] + (3,)])
        vals = _tensor(T, r, list(vshape), vd)
    if r.random() < 0.2 and seq.dim() == 1:
        perm = list(range(seq.shape[0]))
        r.shuffle(perm)
        inv = [perm.index(i) for i in range(len(perm))]
        seq = seq[T.tensor(perm, dtype=T.int64)] if perm else seq
        kw["sorter"] = T.tensor(inv, dtype=r.choice([T.int64, T.int64, T.int32]))
    if r.random() < 0.2:
        out = T.empty(0, dtype=r.choice([T.int64, T.int32, T.float32]))
        return T.searchsorted(seq, vals, out=out, **kw), out
    return T.searchsorted(seq, vals, **kw)


def _op_bucketize(T, r):
    bd = r.choice(_DTYPES)
    b = _sorted_seq(T, r, bd)
    kw = _kw(r, right=[True, False], out_int32=[True, False])
    if r.random() < 0.2:
        x = r.choice([2.5, 1, -1, 0, NAN, 100])
    else:
        x = _tensor(T, r, dtype=bd if r.random() < 0.7 else r.choice(_DTYPES))
    if r.random() < 0.2:
        out = T.empty(0, dtype=r.choice([T.int64, T.int32, T.float32]))
        return T.bucketize(x, b, out=out, **kw), out
    return T.bucketize(x, b, **kw)


def _op_histc(T, r):
    x = _tensor(T, r, dtype=r.choice(_DTYPES + _FLOATS * 2))
    args = []
    for opts in ([1, 3, 5, 10, 0, -1], [0, -1, 0.5, -3, 1, NAN, -INF], [0, 2, 3, 7.5, 1, INF]):
        if r.random() < 0.6:
            args.append(r.choice(opts))
        else:
            break
    if r.random() < 0.25:
        out = T.empty(0, dtype=r.choice([x.dtype, T.float32, T.int64]))
        return T.histc(x, *args, out=out), out
    return T.histc(x, *args) if r.random() < 0.5 else x.histc(*args)


def _op_bincount(T, r):
    x = _tensor(T, r, shape=r.choice([[0], [1], [5], [6], [23], [2, 3], []]),
                dtype=r.choice(_INTS + ["int64", "int64", "bool", "float32"]),
                pool=r.choice([[0, 1, 2, 3, 5, 9], [0, 0, 1], [2, 4, -1, 3]]))
    kw = {}
    if r.random() < 0.4:
        n = x.shape[0] if x.dim() == 1 and r.random() < 0.85 else 3
        kw["weights"] = _tensor(T, r, shape=[n], dtype=r.choice(_FLOATS + ["int64", "float32", "bool"]), layout="c")
    if r.random() < 0.4:
        kw["minlength"] = r.choice([0, 1, 4, 12, -1])
    return T.bincount(x, **kw) if r.random() < 0.5 else x.bincount(**kw)


def _op_cum(T, r):
    x = _tensor(T, r)
    return _call(T, r, x, r.choice(["cummax", "cummin"]), [_dim(r, x)], {})


def _op_arg(T, r):
    x = _tensor(T, r)
    name = r.choice(["argmax", "argmin"])
    kw = _kw(r, keepdim=[True, False])
    if r.random() < 0.7:
        kw["dim"] = _dim(r, x) if r.random() < 0.9 else None
    if r.random() < 0.2:
        out = T.empty(0, dtype=r.choice([T.int64, T.int64, T.int32]))
        return getattr(T, name)(x, out=out, **kw), out
    return getattr(T, name)(x, **kw) if r.random() < 0.5 else getattr(x, name)(**kw)


def _op_count_nonzero(T, r):
    x = _tensor(T, r)
    c = r.random()
    kw = {}
    if c < 0.4:
        kw["dim"] = _dim(r, x)
    elif c < 0.6:
        kw["dim"] = tuple(_dim(r, x) for _ in range(r.choice([0, 1, 2, 2])))
    elif c < 0.7:
        kw["dim"] = None
    return T.count_nonzero(x, **kw) if r.random() < 0.5 else x.count_nonzero(**kw)


def _op_isin(T, r):
    ed = r.choice(_DTYPES)
    td = ed if r.random() < 0.6 else r.choice(_DTYPES)
    kw = _kw(r, assume_unique=[True, False], invert=[True, False])
    c = r.random()
    e = r.choice([2.5, 1, 0, -1, NAN, True]) if c < 0.15 else _tensor(T, r, dtype=ed)
    t = r.choice([2.5, 1, 0, -1, NAN, True]) if 0.15 <= c < 0.3 else _tensor(T, r, dtype=td)
    if isinstance(e, (int, float)) and isinstance(t, (int, float)):
        t = _tensor(T, r, dtype=td)
    if kw.get("assume_unique") and isinstance(t, T.Tensor):
        t = T.unique(t)
    if r.random() < 0.15:
        out = T.empty(0, dtype=r.choice([T.bool, T.bool, T.int64]))
        return T.isin(e, t, out=out, **kw), out
    return T.isin(e, t, **kw)


def _op_close(T, r):
    x = _tensor(T, r, shape=r.choice([[3], [2, 3], [], [0], [1, 3]]))
    od = str(x.dtype).split(".")[-1] if r.random() < 0.7 else r.choice(_DTYPES)
    y = _tensor(T, r, shape=r.choice([list(x.shape)] * 4 + [[3], [1], [2, 1], [4]]), dtype=od)
    if r.random() < 0.5 and x.shape == y.shape and x.dtype == y.dtype:
        y = x.clone() if r.random() < 0.5 else x + (1e-6 if x.dtype.is_floating_point else 0)
    name = r.choice(["isclose", "allclose", "equal", "isclose"])
    if name == "equal":
        return T.equal(x, y) if r.random() < 0.5 else x.equal(y)
    kw = _kw(r, rtol=[0.0, 1e-5, 0.5, -1.0], atol=[0.0, 1e-8, 1.0, -0.5], equal_nan=[True, False])
    return getattr(T, name)(x, y, **kw) if r.random() < 0.5 else getattr(x, name)(y, **kw)


_OPS = {"sort": _op_sort, "argsort": _op_argsort, "msort": _op_msort, "topk": _op_topk, "kthvalue": _op_kthvalue,
        "mode": _op_mode, "median": _op_median, "unique": _op_unique, "searchsorted": _op_searchsorted,
        "bucketize": _op_bucketize, "histc": _op_histc, "bincount": _op_bincount, "cum": _op_cum, "arg": _op_arg,
        "count_nonzero": _op_count_nonzero, "isin": _op_isin, "close": _op_close}


def _flat(T, v):
    """Values as comparable Python data: floats as their repr (so -0.0 and NaN compare exactly)."""
    if isinstance(v, T.Tensor):
        vals = v.flatten().tolist()
        if v.dtype.is_floating_point:
            vals = [repr(z) for z in vals]
        return (list(v.shape), str(v.dtype).split(".")[-1], vals)
    if isinstance(v, (list, tuple)):
        return [type(v).__name__] + [_flat(T, z) for z in v]
    if isinstance(v, float):
        return repr(v)
    return v


def _sort_op(T, seed):
    r = random.Random(seed)
    name = sorted(_OPS)[seed % len(_OPS)]
    try:
        return name, _flat(T, _OPS[name](T, r))
    except (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError) as e:
        return name, type(e).__name__, str(e).split("\n")[0]


# ---- gradients
def _grad_op(T, seed):
    r = random.Random(seed)
    x0 = _tensor(T, r, shape=r.choice([[5], [6], [2, 3], [3, 4], [2, 3, 4], [23], [1, 5], []]),
                 dtype=r.choice(["float64", "float64", "float32"]), layout="c", pool=r.choice([None, [1.0, 2.0, 0.5, -1.0]]))
    x = x0.detach().requires_grad_(True)
    view = r.choice(["c", "t", "s"])
    xi = x.transpose(0, -1) if view == "t" else (x[..., ::2] if view == "s" and x.dim() else x)
    d = _dim(r, xi) if xi.dim() else 0
    if xi.dim():
        d = d % xi.dim()
    n = xi.shape[d] if xi.dim() else 1
    name = r.choice(["sort", "topk", "kthvalue", "cummax", "cummin", "mode", "median", "nanmedian", "msort", "sort_stable"])
    try:
        if name == "sort":
            y = xi.sort(d, r.choice([True, False]))
        elif name == "sort_stable":
            y = xi.sort(dim=d, descending=r.choice([True, False]), stable=True)
        elif name == "msort":
            y = xi.msort()
        elif name == "topk":
            y = xi.topk(r.randint(0, n), d, r.choice([True, False]), r.choice([True, False]))
        elif name == "kthvalue":
            y = xi.kthvalue(r.randint(1, max(n, 1)), d, r.choice([True, False]))
        elif name in ("cummax", "cummin"):
            y = getattr(xi, name)(d)
        elif name == "mode":
            y = xi.mode(d, r.choice([True, False]))
        else:
            y = getattr(xi, name)(d, r.choice([True, False])) if r.random() < 0.6 else getattr(xi, name)()
        v = y if isinstance(y, T.Tensor) else y[0]
        w = T.tensor(weights(v.numel()), dtype=v.dtype).reshape(v.shape)
        (v * w).sum().backward()
        return name, type(v.grad_fn).__name__, _flat(T, v), _flat(T, x.grad)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return name, type(e).__name__, str(e).split("\n")[0]


def _sort_op2(T, seed):
    """Spellings (positional / keyword, invalid mixes), topk / kthvalue with k by keyword, searchsorted with a sorter
    over N-d sequences (wrong dtype, out of range, wrong shape), unique variants, bincount weights of every kind, argmax /
    argmin / argsort together, sort into non-contiguous out tensors."""
    r = random.Random(seed)
    c = seed % 8
    x = _tensor(T, r)
    try:
        if c == 0:  # sort spellings, incl. invalid combos
            args = [_dim(r, x)] if r.random() < 0.5 else []
            if r.random() < 0.5:
                args.append(r.choice([True, False]))
            kw = _kw(r, stable=[True, False, None], dim=[_dim(r, x)], descending=[True, False])
            res = (T.sort(x, *args, **kw) if r.random() < 0.5 else x.sort(*args, **kw))
        elif c == 1:
            kw = _kw(r, k=[0, 1, 2, 3], dim=[_dim(r, x)], largest=[True, False], sorted=[True, False])
            args = [] if 'k' in kw else [r.choice([0, 1, 2, 5])]
            res = x.topk(*args, **kw) if r.random() < 0.5 else T.topk(x, *args, **kw)
        elif c == 2:
            kw = _kw(r, k=[1, 2, 3], dim=[_dim(r, x)], keepdim=[True, False])
            args = [] if 'k' in kw else [r.choice([1, 2, 5])]
            res = x.kthvalue(*args, **kw) if r.random() < 0.5 else T.kthvalue(x, *args, **kw)
        elif c == 3:  # searchsorted with sorter on N-d seqs
            sd = r.choice(_DTYPES)
            seq = _sorted_seq(T, r, sd)
            n = seq.shape[-1]
            rows = []
            for _ in range(seq.numel() // max(n, 1) if n else 0):
                p = list(range(n))
                r.shuffle(p)
                rows.append(p)
            if n and seq.numel():
                perm = T.tensor(rows, dtype=T.int64).reshape(seq.shape)
                seq = seq.gather(-1, perm)
                inv = perm.argsort(-1)
            else:
                inv = T.zeros(seq.shape, dtype=T.int64)
            c2 = r.random()
            if c2 < 0.15:
                inv = inv.to(T.int32)
            elif c2 < 0.3 and inv.numel():
                inv = inv + r.choice([1, -1, 10])
            elif c2 < 0.4:
                inv = inv.flatten()
            vals = _tensor(T, r, list(seq.shape[:-1]) + [r.choice([0, 1, 3])], r.choice([sd, sd, 'float32', 'int64']))
            res = T.searchsorted(seq, vals, sorter=inv,
                                 **_kw(r, right=[True, False], side=['left', 'right'], out_int32=[True]))
        elif c == 4:  # unique variants
            kw = _kw(r, sorted=[True, False], return_inverse=[True, False], return_counts=[True, False],
                     dim=[_dim(r, x), None])
            res = T.unique(x, **kw)
        elif c == 5:  # bincount edge
            xi = _tensor(T, r, shape=r.choice([[0], [4], [7]]), dtype=r.choice(['int64', 'uint8', 'int8', 'int32']),
                         pool=[0, 1, 3, 3, 7])
            kw = {}
            if r.random() < 0.6:
                kw['weights'] = _tensor(T, r, shape=[xi.shape[0]], dtype=r.choice(_FLOATS + ['int32', 'uint8']),
                                        layout=r.choice(['c', 's', 'e']))
            if r.random() < 0.5:
                kw['minlength'] = r.choice([0, 3, 10])
            res = xi.bincount(**kw)
        elif c == 6:  # argmax/argmin/argsort on bool & ties
            res = (x.argmax(**_kw(r, dim=[_dim(r, x)], keepdim=[True, False])),
                   x.argmin(**_kw(r, dim=[_dim(r, x)], keepdim=[True, False])),
                   x.argsort(**_kw(r, dim=[_dim(r, x)], descending=[True, False], stable=[True, False])))
        else:  # msort / sort out=, with non-contiguous out tensors of the right shape
            if x.dim() >= 1 and x.numel():
                vo = (T.empty(x.shape[::-1], dtype=x.dtype).transpose(0, -1) if x.dim() >= 2
                      else T.empty(x.shape, dtype=x.dtype))
                io = T.empty(x.shape, dtype=T.int64)
                res = (T.sort(x, 0, out=(vo, io)), vo.stride(), vo, io)
            else:
                res = T.sort(x, out=(T.empty(0, dtype=x.dtype), T.empty(0, dtype=T.int64)))
        return c, _flat(T, res)
    except (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError) as e:
        return c, type(e).__name__, str(e).split('\n')[0]


cases("sort_op", _sort_op, seed=list(range(1700)))
cases("sort_op2", _sort_op2, seed=list(range(800)))
cases("sort_grad_op", _grad_op, seed=list(range(300)))

# ---- what the fuzzer found, one case each
A23 = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]
I64 = D.int64


def _e(T, n=0, dtype=None):
    return T.empty(n, dtype=dtype)


# out= dtypes: each op checks them in its own words, among its other checks
error_case("kthvalue_out_values_dtype", lambda T: T.kthvalue(T.tensor(A23), 1, out=(_e(T, 0, T.float64), _e(T, 0, T.int64))))
error_case("kthvalue_out_indices_dtype", lambda T: T.kthvalue(T.tensor(A23), 1, out=(_e(T), _e(T, 0, T.int32))))
error_case("kthvalue_out_k_first", lambda T: T.kthvalue(T.tensor(A23), 5, out=(_e(T, 0, T.float64), _e(T, 0, T.int32))))
error_case("mode_out_values_dtype", lambda T: T.mode(T.tensor([[1, 2, 2]]), out=(_e(T, 0, T.float64), _e(T, 0, T.int64))))
error_case("mode_out_indices_dtype", lambda T: T.mode(T.tensor(A23), out=(_e(T), _e(T, 0, T.int32))))
error_case("mode_out_before_dim", lambda T: T.mode(T.tensor(A23), 5, out=(_e(T, 0, T.float16), _e(T, 0, T.int64))))
error_case("median_out_indices_dtype", lambda T: T.median(T.tensor(A23), 1, out=(_e(T, 0, T.float64), _e(T, 0, T.int32))))
cases("median_out_values_dtype", lambda T, dtype: T.median(T.tensor(A23), 1, out=(_e(T, 0, dtype), _e(T, 0, T.int64))),
      dtype=[D.bool, D.bfloat16, D.float16, D.float64, D.int64], kind="error")
error_case("median_out_self_bool", lambda T: T.median(T.tensor([[True, False]]), 1, out=(_e(T), _e(T, 0, T.int64))))
error_case("nanmedian_out_indices_dtype", lambda T: T.nanmedian(T.tensor(A23), 0, out=(_e(T), _e(T, 0, T.uint8))))
error_case("median_out_empty_dim_first", lambda T: T.median(T.zeros(2, 0), 1, out=(_e(T, 0, T.int32), _e(T, 0, T.int32))))
case("median_out", lambda T: T.median(T.tensor(A23), 1, True, out=(_e(T), _e(T, 0, T.int64))))
cases("cummax_out_dtypes", lambda T, op, vd, idt: getattr(T, op)(T.tensor(A23), 5, out=(_e(T, 0, vd), _e(T, 0, idt))),
      op=["cummax", "cummin"], vd=[D.float32, D.int32], idt=[D.int64, D.int32], kind="error")
case("cummin_out", lambda T: T.cummin(T.tensor(A23), 1, out=(_e(T), _e(T, 0, T.int64))))
cases("cummax_0d_dim", lambda T, op, dim: getattr(T.tensor(2.5), op)(dim), op=["cummax", "cummin"], dim=[1, -2, 3],
      kind="error")
cases("cummax_empty_any_dim", lambda T, op, dim: getattr(T.zeros(0, 3), op)(dim), op=["cummax", "cummin"], dim=[5, -3])
error_case("cummax_nonempty_bad_dim", lambda T: T.zeros(2, 3).cummax(5))
error_case("msort_out_dtype", lambda T: T.msort(T.tensor(A23), out=_e(T, 0, T.float64)))
cases("argmax_out_int32", lambda T, op: getattr(T, op)(T.tensor(A23), 1, out=_e(T, 0, T.int32)), op=["argmax", "argmin"],
      kind="error")
case("argmax_out", lambda T: T.argmax(T.tensor(A23), out=_e(T, 0, T.int64)))

# searchsorted / bucketize / isin take out=
SEQ = [[1.0, 2.0, 2.0, 5.0], [-1.0, 0.0, 3.0, 3.0]]
case("searchsorted_out", lambda T: T.searchsorted(T.tensor(SEQ), T.tensor([[2.0, 6.0], [3.0, -2.0]]), out=_e(T, 0, T.int64)))
case("searchsorted_out_int32", lambda T: T.searchsorted(T.tensor([1.0, 2.0]), T.tensor([1.5]), out_int32=True, right=True,
                                                         out=_e(T, 0, T.int32)))
case("searchsorted_scalar_out", lambda T: T.searchsorted(T.tensor([1.0, 2.0, 3.0]), 2.0, side="right", out=_e(T, 0, T.int64)))
cases("searchsorted_out_dtype", lambda T, dtype, i32: T.searchsorted(T.tensor([1.0, 2.0]), T.tensor([1.5]), out_int32=i32,
                                                                     out=_e(T, 0, dtype)),
      dtype=[D.int32, D.float32, D.int64], i32=BOOLS, kind=lambda dtype, i32: "value" if (dtype == D.int32) == i32 and dtype != D.float32 else "error")
error_case("searchsorted_sorter_range_first", lambda T: T.searchsorted(T.tensor([1.0, 2.0]), T.tensor([[1.0]]),
                                                                       sorter=T.tensor([5, 0])))
case("searchsorted_bool_empty_values", lambda T: T.searchsorted(T.tensor([True]), T.tensor([], dtype=T.bool)))
error_case("searchsorted_bool", lambda T: T.searchsorted(T.tensor([True]), T.tensor([True])))
case("bucketize_out", lambda T: T.bucketize(T.tensor([[0.5, 2.0], [7.0, 2.5]]), T.tensor([1.0, 2.0, 3.0]), right=True,
                                            out=_e(T, 0, T.int64)))
error_case("bucketize_out_dtype", lambda T: T.bucketize(T.tensor([0.5]), T.tensor([1.0, 2.0]), out=_e(T, 0, T.int32)))
error_case("bucketize_out_2d_boundaries_first", lambda T: T.bucketize(T.tensor([0.5]), T.tensor([[1.0, 2.0]]),
                                                                      out=_e(T, 0, T.float32)))
case("isin_out", lambda T: T.isin(T.tensor([1, 2, 3]), T.tensor([2, 5]), out=_e(T, 0, T.bool)))
case("isin_scalar_out", lambda T: T.isin(2.0, T.tensor([1.0, 2.0]), invert=True, out=_e(T, 0, T.bool)))
case("isin_tensor_scalar_out", lambda T: T.isin(T.tensor([1.0, 2.0]), 2.0, out=_e(T, 0, T.bool)))
error_case("isin_out_dtype", lambda T: T.isin(T.tensor([1, 2, 3]), T.tensor([2, 5]), out=_e(T, 0, T.int64)))

# isin: NaN among the test values, bool inputs, torch's two kernels
NAN_T = [2.5, NAN, -1.0, NAN]
cases("isin_nan_test", lambda T, inv, au: T.isin(T.tensor([2.5, 1.0, NAN, -1.0, 0.0]), T.tensor(NAN_T), invert=inv, assume_unique=au),
      inv=BOOLS, au=BOOLS)
cases("isin_nan_test_large", lambda T, inv: T.isin(T.tensor([2.5, 1.0, NAN]), T.tensor(NAN_T * 6), invert=inv), inv=BOOLS)
cases("isin_scalar_nan", lambda T, inv: (T.isin(1, T.tensor(NAN)), T.isin(T.tensor([1.0, NAN]), NAN, invert=inv),
                                         T.isin(2.5, T.tensor([NAN]), assume_unique=True, invert=inv)), inv=BOOLS)
cases("isin_bool", lambda T, which: T.isin(T.tensor([True, False]) if which == 0 else T.tensor([1, 0]),
                                           T.tensor([True]) if which == 1 else T.tensor([1])),
      which=[0, 1], kind="error")
error_case("isin_bool_scalar", lambda T: T.isin(True, T.tensor([1.0, 2.0])))
case("isin_assume_unique_repeated", lambda T: (T.isin(T.tensor([1.0, 1.0, 3.0]), T.tensor([2.0] * 30), assume_unique=True),
                                               T.isin(T.tensor([1.0, 1.0, 3.0]), T.tensor([2.0] * 30), assume_unique=True, invert=True),
                                               T.isin(T.tensor([1.0, 1.0]), T.tensor([2.0] * 3), assume_unique=True)))
case("isin_large_compares_promoted", lambda T: (T.isin(0.1, T.tensor([0.1] * 9)), T.isin(0.1, T.tensor([0.1] * 10))))
error_case("isin_small_noncontig_test", lambda T: T.isin(T.tensor([1.0, 2.0, 3.0, 4.0]), nc_t(T, [[1.0, 2.0], [3.0, 4.0]])))
error_case("isin_small_transposed_other_dtype", lambda T: T.isin(T.tensor([1.0, 2.0, 3.0, 4.0]), nc_t(T, [[1, 2], [3, 4]])))
case("isin_small_stepped_other_dtype", lambda T: T.isin(T.tensor([1.0, 2.0, 3.0, 4.0]), nc_step(T, [[1, 2, 3], [4, 5, 6]])))
error_case("isin_small_stepped", lambda T: T.isin(T.tensor([1.0, 2.0, 3.0, 4.0]), nc_step(T, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])))
case("isin_large_noncontig", lambda T: T.isin(T.tensor([1.0, 2.0]), nc_t(T, [[float(i), float(i + 1)] for i in range(6)])))
case("isin_empty_elements", lambda T: T.isin(T.zeros(0, 2), T.tensor([1.0])))

# unique with a dim of a 0-d tensor, median of all in memory order, empty medians, duplicate dims of a 0-d tensor
cases("unique_0d_dim", lambda T, op, dim: getattr(T, op)(T.tensor(1.5), dim=dim), op=["unique", "unique_consecutive"],
      dim=[0, -1, 1], kind="error")
case("median_all_neg_zero", lambda T: [T.tensor(v).median() for v in ([0.0, -0.0, 1.0, -0.0, 0.0], [-0.0, 0.0, 0.0],
                                                                      [1.0, 0.0, -0.0, 2.0])])
case("nanmedian_all_neg_zero", lambda T: [T.tensor(v).nanmedian() for v in ([0.0, NAN, -0.0, 1.0, -0.0], [-0.0, 0.0, NAN])])
case("median_all_transposed_memory_order", lambda T: nc_t(T, [[0.0, -0.0, 5.0], [-0.0, 0.0, -1.0]]).median())
case("median_empty_dtypes", lambda T: [T.zeros(0, dtype=d).median() for d in (T.bool, T.uint8, T.int64, T.float16)])
case("nanmedian_empty_bool", lambda T: T.zeros(0, 3, dtype=T.bool).nanmedian())
cases("dims_twice_0d", lambda T, op: getattr(T.tensor(1.5), op)((0, -1)), op=["count_nonzero", "sum", "amax"], kind="error")
error_case("count_nonzero_dims_twice", lambda T: T.ones(2, 3).count_nonzero((1, -1)))

# histc: torch's order of checks, the data's range, the edges in the input's dtype
cases("histc_order", lambda T, dtype, bins: T.histc(T.tensor([1, 2], dtype=dtype), bins, -1, 2),
      dtype=[D.uint8, D.int8, D.int64, D.bool, D.float32], bins=[0, 3], kind=lambda dtype, bins: "value" if dtype == D.float32 and bins else "error")
cases("histc_int_range", lambda T, dtype, lo, hi: T.histc(T.tensor([1, 2], dtype=dtype), 3, lo, hi),
      dtype=[D.uint8, D.int8, D.int16], lo=[0.5, 1000, 2], hi=[2.5, 1], kind="error")
cases("histc_out_dtype", lambda T, dtype: T.histc(T.tensor([1.0, 2.0], dtype=dtype), 3, out=_e(T, 0, T.int64)),
      dtype=[D.float32, D.bfloat16, D.bool, D.int16], kind="error")
case("histc_out", lambda T: T.histc(T.tensor([1.0, 2.0, 2.5]), 3, out=_e(T)))
cases("histc_nan_range", lambda T, dtype, data: T.histc(T.tensor(data, dtype=dtype), 3),
      dtype=FLOATS, data=[[1.0, NAN], [NAN], [NAN] * 20], kind="error")
cases("histc_inf_range", lambda T, dtype, v: T.histc(T.tensor([v, v], dtype=dtype)), dtype=FLOATS, v=[INF, -INF], kind="error")
def _try(fn):
    try:
        return fn()
    except RuntimeError as e:
        return ("raised", str(e).split("\n")[0])


cases("histc_equal_range", lambda T, dtype, v: _try(lambda: T.histc(T.tensor([v], dtype=dtype), 4)),
      dtype=FLOATS, v=[5.0, 1e4, 2048.0, 1e10, 16777217.0, 1e30])
cases("histc_reduced_edges", lambda T, dtype, bins, lo, hi: T.histc(T.tensor([0.1, 0.2, 0.3, 1 / 3, 0.7, 1.0, -0.5], dtype=dtype),
                                                                     bins, lo, hi),
      dtype=FLOATS, bins=[2, 10], lo=[-0.5, 0.1, 0.3], hi=[0.3, 0.7])

# keyword arguments in "received an invalid combination of arguments - got (...)": torch lists them in the order of
# a std::unordered_map (tools: pyext/argparse.c, Note [Keyword order in "got (...)"])
error_case("kwargs_order_clamp", lambda T: T.clamp("x", min=1, max=2))
error_case("kwargs_order_clamp_rev", lambda T: T.clamp("x", max=1, min=2))
error_case("kwargs_order_searchsorted", lambda T: T.searchsorted(T.tensor([1.0]), "x", side="left", out_int32=True, right=False,
                                                                 sorter=None))
error_case("kwargs_order_bucketize", lambda T: T.bucketize(1, T.tensor([1.0]), out=T.zeros(1), right=True))
error_case("kwargs_order_many", lambda T: T.clamp(T.tensor(1.0), "x", dtype=None, layout=None, device=None, pin_memory=None,
                                                  requires_grad=None, names=None))

# torch.unique / unique_consecutive are boolean dispatches over torch's _return_* functions (their names in errors;
# unique_consecutive reads return_inverse at position 2); the parser's "takes from N to M positional arguments"
U5 = [1, 1, 2, 2, 3]
case("unique_consecutive_positional", lambda T: (T.unique_consecutive(T.tensor(U5), True),
                                                  T.unique_consecutive(T.tensor(U5), False, True),
                                                  T.unique_consecutive(T.tensor(U5), True, True)))
case("unique_positional", lambda T: (T.unique(T.tensor(U5), True, True), T.unique(T.tensor(U5), True, False, True)))
error_case("unique_unexpected_kw", lambda T: T.unique(T.tensor(U5), out=1))
error_case("unique_inverse_unexpected_kw", lambda T: T.unique(T.tensor(U5), return_inverse=True, foo=1))
error_case("unique_too_many_positional", lambda T: T.unique(T.tensor(U5), True, False, True, None, 5))
error_case("unique_consecutive_too_many_positional", lambda T: T.unique_consecutive(T.tensor(U5), True, True, None, 5))
error_case("unique_consecutive_unexpected_kw", lambda T: T.unique_consecutive(T.tensor(U5), foo=1, return_inverse=True))
error_case("tensor_unique_unexpected_kw", lambda T: T.tensor(U5).unique(foo=1))
error_case("sort_method_stable_positional", lambda T: T.tensor(U5).sort(0, True, stable=True))
error_case("argsort_stable_positional", lambda T: T.argsort(T.tensor(U5), 0, True, stable=True))
error_case("topk_too_many_positional", lambda T: T.topk(T.tensor(U5), 1, 0, True, True, 5))
error_case("sum_too_many_positional", lambda T: T.sum(T.tensor([1.0]), 0, True, None, 5))
error_case("add_too_many_positional", lambda T: T.add(T.tensor([1.0]), T.tensor([1.0]), 1, 2))
case("searchsorted_noncontig_warns", lambda T: T.searchsorted(nc_t(T, [[1.0, 2.0], [3.0, 4.0]]), nc_t(T, [[1.5, 2.0], [0.5, 3.0]]),
                                                               sorter=nc_t(T, [[0, 1], [1, 0]])),
     warns=True, skip="torch warns once per process and wick too: whether the warning shows depends on which case ran first")
error_case("kwargs_only_trailing_comma", lambda T: T.clamp(input="x", min=1))
error_case("kwargs_only_searchsorted", lambda T: T.searchsorted(sorted_sequence=T.tensor([1.0]), input="x", right=True))
case("scalar_self_keyword", lambda T: (T.bucketize(self=1.5, boundaries=T.tensor([1.0, 2.0])),
                                       T.searchsorted(T.tensor([1.0, 2.0]), self=1.5)))
