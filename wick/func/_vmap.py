"""vmap's batching transform (Note [vmap]).

Inside vmap(f) at level L every batched input is a BatchedTensor: a wick Tensor whose own C tensor only carries the
logical (per-sample) metadata (pyext/vmap.c's _vmap_dummy) and whose `_v` holds the values with the batch in dim 0
(`_v` may itself be a BatchedTensor of an outer level, so nested vmaps stack). Every op entry point that sees a
BatchedTensor among its arguments calls `_dispatch(self, name, args, kwargs)` (pyext/vmap.c), which takes the highest
level present, unwraps that level's tensors and runs the op's batching rule on the values:
- pointwise (the op table's unary / pointwise / compare families, and the shape-keeping ops named below): batched
  values get singleton dims after the batch dim up to the highest logical rank, then broadcasting does the rest;
- dim-taking ops (reductions, softmax, cumulative, views and shape ops): dim arguments shift by one; a reduction over
  all dims reduces a flattened per-sample value;
- matmul / mm / bmm / mv / dot / linear / addmm; conv and pooling (the batch folds into N); losses over N;
- everything else: the loop fallback (per batch entry, then stack) with torch's performance warning, still correct.
Results come back as BatchedTensors of level L (batch in dim 0). The rules call ops on the values, so an op on an
outer level's BatchedTensor dispatches again at that level."""
import warnings

import wick as torch
from wick import _C

_levels = []   # one entry per running vmap: [level, batch size, randomness]


class BatchedTensor(torch.Tensor):
    """A tensor inside vmap: logical metadata in its C tensor, the values (batch in dim 0) in `_v`."""
    __module__ = 'torch'
    __torch_function__ = _C._disabled_torch_function_impl   # batching is pyext/vmap.c's dispatch, not __torch_function__

    def __repr__(self):
        inner = repr(self._v).replace('\n', '\n    ')
        return f"BatchedTensor(lvl={self._lvl}, bdim=0, value=\n    {inner}\n)"

    __str__ = __repr__

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling "
                           ".item() on a Tensor, please try to rewrite what you're doing with other operations. If "
                           "error is occurring somewhere inside PyTorch internals, please file a bug report.")

    def __bool__(self):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                           "flow. We don't support that yet, please file an issue at "
                           "https://github.com/pytorch/pytorch/issues .")

    __float__ = __int__ = __index__ = __bool__

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def numpy(self, *, force=False):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def data_ptr(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def detach(self):
        return _wrap(self._v.detach(), self._lvl)

    def requires_grad_(self, requires_grad=True):
        self._v.requires_grad_(requires_grad)
        return self

    @property
    def requires_grad(self):
        return self._v.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._v.requires_grad = value

    @property
    def grad_fn(self):
        return self._v.grad_fn

    @property
    def is_leaf(self):
        return self._v.is_leaf

    # the number protocol: wick.Tensor's C slots call kernels directly, so a batched tensor routes them to ops that
    # dispatch (a subclass's reflected method also wins over a plain tensor's own one)
    def __add__(self, o):
        return torch.add(self, o)

    def __radd__(self, o):
        return torch.add(self, o)

    def __sub__(self, o):
        return torch.sub(self, o)

    def __rsub__(self, o):
        return torch.rsub(self, o)

    def __mul__(self, o):
        return torch.mul(self, o)

    def __rmul__(self, o):
        return torch.mul(self, o)

    def __truediv__(self, o):
        return torch.div(self, o)

    def __rtruediv__(self, o):
        return torch.div(o if isinstance(o, torch.Tensor) else torch.tensor(o), self)

    def __floordiv__(self, o):
        return torch.floor_divide(self, o)

    def __rfloordiv__(self, o):
        return torch.floor_divide(o if isinstance(o, torch.Tensor) else torch.tensor(o), self)

    def __rmod__(self, o):
        return torch.remainder(o, self)

    def __rpow__(self, o):
        return torch.pow(o, self)

    def __matmul__(self, o):
        return torch.matmul(self, o)

    def __rmatmul__(self, o):
        return torch.matmul(o, self)

    def __neg__(self):
        return torch.neg(self)

    def __pos__(self):
        return torch.positive(self)

    def __abs__(self):
        return torch.abs(self)

    def __iadd__(self, o):
        return self.add_(o)

    def __isub__(self, o):
        return self.sub_(o)

    def __imul__(self, o):
        return self.mul_(o)

    def __itruediv__(self, o):
        return self.div_(o)

    def __eq__(self, o):
        return torch.eq(self, o)

    def __ne__(self, o):
        return torch.ne(self, o)

    def __lt__(self, o):
        return torch.lt(self, o)

    def __le__(self, o):
        return torch.le(self, o)

    def __gt__(self, o):
        return torch.gt(self, o)

    def __ge__(self, o):
        return torch.ge(self, o)

    __hash__ = torch.Tensor.__hash__

    def backward(self, *a, **k):
        raise NotImplementedError("wick: Tensor.backward() inside torch.func.vmap is not supported (use "
                                  "torch.func.grad / vjp inside vmap)")


class NeedLoop(Exception):
    """raised inside a batching vmap by what its rules cannot batch (a transform other than grad): vmap reruns as
    its loop"""


def _phys(x, levels):
    """x as a plain tensor batched at every level in `levels` (ascending): dims [B_l1, ..., B_lk, *logical]; levels x
    is not batched at are expanded"""
    if not levels:
        if type(x) is BatchedTensor:
            raise RuntimeError("vmap: a batched tensor escaped its vmap (it was used after the vmap call returned)")
        return x
    top = levels[-1]
    inner = x._v if _is_b(x, top) else x.unsqueeze(0).expand((_batch_size(top),) + tuple(x.shape))
    return _phys(inner, levels[:-1])


def _rebatch(p, levels):
    """the inverse of _phys: p's leading dims become the levels' batches"""
    for lvl in levels:
        p = _wrap(p, lvl)
    return p


def _bottom(x):
    while type(x) is BatchedTensor:
        x = x._v
    return x


def _wrap(value, lvl):
    t = _C._vmap_dummy(BatchedTensor, value)
    t._v = value
    t._lvl = lvl
    return t


def _is_b(x, lvl):
    return type(x) is BatchedTensor and x._lvl == lvl


def _level_of(self, args, kwargs):
    lvl = 0
    for x in _each(self, args, kwargs):
        if type(x) is BatchedTensor and x._lvl > lvl:
            lvl = x._lvl
    return lvl


def _each(self, args, kwargs):
    if self is not None:
        yield self
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, (tuple, list)):
            yield from a
        else:
            yield a


def _batch_size(lvl):
    for e in _levels:
        if e[0] == lvl:
            return e[1]
    raise RuntimeError("vmap: a batched tensor escaped its vmap (it was used after the vmap call returned)")


# ------------------------------------------------------------------------------------------ calling an op
def _resolve(name):
    for mod in (_C, _C._nn, _C._linalg):
        f = getattr(mod, name, None)
        if f is not None:
            return f
    raise NotImplementedError(f"wick: vmap cannot find the op {name}")


def _call(self, name, args, kwargs):
    if self is not None:
        return getattr(type(self), name)(self, *args, **kwargs)
    return _resolve(name)(*args, **kwargs)


def _unwrap(x, lvl):
    if _is_b(x, lvl):
        return x._v
    if isinstance(x, (tuple, list)) and any(_is_b(y, lvl) for y in x):
        return type(x)(y._v if _is_b(y, lvl) else y for y in x)
    return x


def _rewrap(r, lvl):
    if isinstance(r, torch.Tensor):
        return _wrap(r, lvl)
    if isinstance(r, tuple):
        vals = [_rewrap(x, lvl) for x in r]
        return type(r)(vals) if type(r) is not tuple else tuple(vals)
    if isinstance(r, list):
        return [_rewrap(x, lvl) for x in r]
    return r


def _dispatch(self, name, args, kwargs):
    """The entry point pyext/vmap.c calls: the batching rule of `name` at the highest level among the arguments."""
    args = () if args is None else tuple(args)
    kwargs = {} if kwargs is None else dict(kwargs)
    lvl = _level_of(self, args, kwargs)
    B = _batch_size(lvl)
    if name in _RANDOM:
        return _check_random(self, name, args, kwargs, lvl)
    rule = _RULES.get(name)
    if rule is None and name in _POINTWISE:
        rule = _pointwise
    if rule is not None:
        r = rule(self, name, args, kwargs, lvl, B)
        if r is not NotImplemented:
            return r
    return _fallback(self, name, args, kwargs, lvl, B)


_RANDOM = {'dropout', 'dropout_', 'feature_dropout', 'alpha_dropout', 'feature_alpha_dropout', 'bernoulli',
           'bernoulli_', 'rand_like', 'randn_like', 'randint_like', 'normal', 'normal_', 'uniform_', 'multinomial',
           'exponential_', 'geometric_', 'log_normal_', 'cauchy_', 'random_', 'rrelu', 'rrelu_', 'randperm',
           '_fused_dropout', 'native_dropout'}


def _check_random(self, name, args, kwargs, lvl):
    """a random op with a batched argument: torch's error in randomness 'error', else its rule (wick/func/_random.py)"""
    mode = next(e[2] for e in _levels if e[0] == lvl)
    if mode == 'error':
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out of "
                           "vmap")
    from . import _random
    return _random.rule(self, name, args, kwargs, lvl, mode)


# ------------------------------------------------------------------------------------------ fallback
def _fallback(self, name, args, kwargs, lvl, B):
    """Run the op once per batch entry and stack: always right, B calls instead of one."""
    warnings.warn(f"There is a performance drop because we have not yet implemented the batching rule for aten::"
                  f"{name}. Please file us an issue on GitHub so that we can prioritize its implementation.",
                  UserWarning, stacklevel=3)
    inplace = _inplace(name)
    if inplace and self is not None and not _is_b(self, lvl):
        _inplace_error(self, args, kwargs, lvl, B)

    def pick(x, b):
        if _is_b(x, lvl):
            return x._v[b]
        if isinstance(x, (tuple, list)) and any(_is_b(y, lvl) for y in x):
            return type(x)(y._v[b] if _is_b(y, lvl) else y for y in x)
        return x
    outs = []
    for b in range(B):
        s = pick(self, b) if self is not None else None
        outs.append(_call(s, name, tuple(pick(a, b) for a in args), {k: pick(v, b) for k, v in kwargs.items()}))
    if inplace and self is not None:
        return self
    return _stack_results(outs, lvl, name)


def _stack_results(outs, lvl, name):
    o0 = outs[0] if outs else None
    if isinstance(o0, torch.Tensor):
        return _wrap(torch.stack(outs), lvl)
    if isinstance(o0, (tuple, list)) and all(isinstance(x, torch.Tensor) for x in o0):
        vals = [_wrap(torch.stack([o[i] for o in outs]), lvl) for i in range(len(o0))]
        if isinstance(o0, list):
            return vals
        return type(o0)(vals) if type(o0) is not tuple else tuple(vals)
    if o0 is None and all(o is None for o in outs):
        return None
    raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
                       "We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")


def _inplace(name):
    return (name.endswith('_') and not name.endswith('__')) or name in (
        '__iadd__', '__isub__', '__imul__', '__itruediv__', '__ifloordiv__', '__imod__', '__ipow__', '__iand__',
        '__ior__', '__ixor__', '__ilshift__', '__irshift__', '__setitem__')


def _inplace_error(self, args, kwargs, lvl, B):
    shapes = [list(x.shape) for x in _each(None, args, kwargs) if isinstance(x, torch.Tensor)]
    try:
        bshape = list(torch.broadcast_shapes(tuple(self.shape), *[tuple(s) for s in shapes]))
    except RuntimeError:
        bshape = list(self.shape)
    raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {[B] + bshape}")


# ------------------------------------------------------------------------------------------ pointwise
def _pad(v, rank):
    """v (batch in dim 0, logical rank v.dim()-1) with singleton dims after the batch up to logical rank `rank`"""
    k = rank - (v.dim() - 1)
    if k <= 0:
        return v
    return v.reshape((v.shape[0],) + (1,) * k + tuple(v.shape[1:]))


def _pointwise(self, name, args, kwargs, lvl, B):
    inplace = _inplace(name)
    if inplace and self is not None and not _is_b(self, lvl):
        _inplace_error(self, args, kwargs, lvl, B)
    if 'out' in kwargs and kwargs['out'] is not None:
        return NotImplemented
    tensors = [x for x in _each(self, args, kwargs) if isinstance(x, torch.Tensor)]
    rank = max((x.dim() for x in tensors), default=0)   # logical ranks (a BatchedTensor's dim() is logical)

    def fix(x):
        if _is_b(x, lvl):
            return _pad(x._v, rank)
        if isinstance(x, (tuple, list)) and any(_is_b(y, lvl) for y in x):
            return NotImplemented
        return x
    s = fix(self) if self is not None else None
    if inplace and self is not None and self.dim() < rank:
        return NotImplemented   # the op itself raises its shape error in the fallback
    a = [fix(x) for x in args]
    k = {n: fix(x) for n, x in kwargs.items()}
    if any(x is NotImplemented for x in a) or any(x is NotImplemented for x in k.values()):
        return NotImplemented
    r = _call(s, name, tuple(a), k)
    if inplace:
        return self
    return _rewrap(r, lvl)


# names whose rule is the pointwise one beyond the op table's elementwise families: one tensor in, same shape out,
# no dim argument
_SAME_SHAPE = ('clone contiguous detach to type_as float double half bfloat16 int long bool short char byte type '
               'relu relu_ threshold leaky_relu elu celu selu gelu silu mish softplus hardtanh hardswish hardsigmoid '
               'log_sigmoid hardshrink softshrink relu6 sigmoid tanh exp log neg reciprocal zeros_like ones_like '
               'empty_like full_like nan_to_num abs sqrt rsqrt square clamp clamp_min clamp_max where lerp '
               'requires_grad_ masked_fill __and__ __or__ __xor__ __invert__ __radd__ __rsub__ __rmul__ __rtruediv__ '
               '__rpow__ __add__ __sub__ __mul__ __truediv__ __floordiv__ __mod__ __pow__ __neg__ __abs__ __eq__ __ne__ '
               '__lt__ __le__ __gt__ __ge__ __iadd__ __isub__ __imul__ __itruediv__ __matmul__').split()


def _table_pointwise():
    names = set(_SAME_SHAPE) | set(_C._vmap_pointwise())
    names.discard('__matmul__')
    for n in list(names):
        if not n.startswith('_') and not n.endswith('_'):
            names.add(n + '_')
    return names


# ------------------------------------------------------------------------------------------ dims
def _norm(d, rank, name):
    if not isinstance(d, int) or isinstance(d, bool):
        raise TypeError(f"{name}(): dim must be int")
    lo, hi = (-rank, rank - 1) if rank > 0 else (-1, 0)
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return (d + rank if d < 0 else d) if rank > 0 else 0


def _is_dims(x):
    return (isinstance(x, int) and not isinstance(x, bool)) or (
        isinstance(x, (tuple, list)) and all(isinstance(i, int) and not isinstance(i, bool) for i in x))


def _split_self(self, args):
    if self is not None:
        return self, list(args)
    if not args:
        return None, []
    return args[0], list(args[1:])


def _recall(self_was, name, v, rest, kwargs):
    if self_was is not None:
        return _call(v, name, tuple(rest), kwargs)
    return _call(None, name, (v,) + tuple(rest), kwargs)


def _reduce(pos=0, kw='dim', full_dims=True):
    """a reduction / dim op: the dim argument at positional index pos after self (or kw=) shifts by one; no dim at
    all (or dim=None) reduces a flattened per-sample value over dim 1"""
    def rule(self, name, args, kwargs, lvl, B):
        x, rest = _split_self(self, args)
        if not _is_b(x, lvl) or any(_is_b(a, lvl) for a in _each(None, rest, kwargs)):
            return NotImplemented
        v, rank = x._v, x.dim()
        kwargs = dict(kwargs)
        where = None
        if kw in kwargs:
            where = 'kw'
            d = kwargs[kw]
        elif len(rest) > pos and _is_dims(rest[pos]):
            where = 'pos'
            d = rest[pos]
        elif len(rest) > pos and rest[pos] is None:
            where = 'pos'
            d = None
        else:
            d = None
        if d is None or (isinstance(d, (tuple, list)) and len(d) == 0 and full_dims):
            if not full_dims:
                return NotImplemented
            keep = kwargs.get('keepdim', False)
            if where == 'pos' and len(rest) > pos + 1 and isinstance(rest[pos + 1], bool):
                keep = rest[pos + 1]
            v2 = v.reshape(v.shape[0], -1)
            if where == 'pos':
                rest = rest[:pos] + [1] + rest[pos + 1:]
            elif where == 'kw':
                kwargs[kw] = 1
            else:
                if name in ('max', 'min'):
                    name = 'amax' if name == 'max' else 'amin'
                rest = rest[:pos] + [1] + rest[pos:]
            r = _recall(self, name, v2, rest, kwargs)
            if keep:
                shape = (v.shape[0],) + (1,) * rank
                r = _rewrap_tuple(r, lambda t: t.reshape(shape))
            return _rewrap(r, lvl)
        if isinstance(d, (tuple, list)):
            nd = type(d)(_norm(i, rank, name) + 1 for i in d)
        else:
            nd = _norm(d, rank, name) + 1
        if rank == 0:
            v = v.unsqueeze(1)
        if where == 'kw':
            kwargs[kw] = nd
        else:
            rest = rest[:pos] + [nd] + rest[pos + 1:]
        r = _recall(self, name, v, rest, kwargs)
        if rank == 0:
            r = _rewrap_tuple(r, lambda t: t.reshape(t.shape[0]) if t.dim() == 2 else t)
        return _rewrap(r, lvl)
    return rule


def _rewrap_tuple(r, fn):
    if isinstance(r, torch.Tensor):
        return fn(r)
    vals = [fn(t) for t in r]
    return type(r)(vals) if type(r) not in (tuple, list) else type(r)(vals)


def _dims_rule(*positions, fill=None, kw=('dim',)):
    """dims at these positions (after self) shift by one; `fill` gives the defaults of the positional arguments up to
    the last dim, used where the call leaves them out; a dim given by keyword (kw) shifts there"""
    def rule(self, name, args, kwargs, lvl, B):
        x, rest = _split_self(self, args)
        if not _is_b(x, lvl) or any(_is_b(a, lvl) for a in _each(None, rest, kwargs)):
            return NotImplemented
        rank = x.dim()
        rest, kwargs = list(rest), dict(kwargs)

        def shift(d):
            if isinstance(d, (tuple, list)):
                return type(d)(_norm(i, rank, name) + 1 for i in d)
            return _norm(d, rank, name) + 1
        for k in kw:
            if k in kwargs and _is_dims(kwargs[k]):
                kwargs[k] = shift(kwargs[k])
        if fill:
            while len(rest) < len(fill) and not any(k in kwargs for k in kw):
                rest.append(fill[len(rest)])
        for p in positions:
            if p < len(rest):
                if not _is_dims(rest[p]):
                    return NotImplemented
                rest[p] = shift(rest[p])
        return _rewrap(_recall(self, name, x._v, rest, kwargs), lvl)
    return rule


# ------------------------------------------------------------------------------------------ shape ops
def _view(self, name, args, kwargs, lvl, B):
    if not _is_b(self, lvl) or kwargs:
        return NotImplemented
    shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if len(args) == 1 and isinstance(args[0], torch.dtype):
        return _rewrap(self._v.view(args[0]), lvl)
    v = self._v
    if name == 'view':
        try:
            return _wrap(v.view((v.shape[0],) + tuple(shape)), lvl)
        except RuntimeError:
            if v.is_contiguous():
                raise
            return _wrap(v.reshape((v.shape[0],) + tuple(shape)), lvl)
    return _wrap(v.reshape((v.shape[0],) + tuple(shape)), lvl)


def _view_as(self, name, args, kwargs, lvl, B):
    if not _is_b(self, lvl) or _is_b(args[0], lvl):
        return NotImplemented
    return _view(self, name[:-3], (tuple(args[0].shape),), {}, lvl, B)


def _expand(self, name, args, kwargs, lvl, B):
    if not _is_b(self, lvl) or any(_is_b(a, lvl) for a in args):
        return NotImplemented
    if name == 'expand_as':
        shape = tuple(args[0].shape)
    else:
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)
    v = _pad(self._v, len(shape))
    return _wrap(v.expand((v.shape[0],) + shape), lvl)


def _permute(self, name, args, kwargs, lvl, B):
    if not _is_b(self, lvl):
        return NotImplemented
    dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if 'dims' in kwargs:
        dims = kwargs['dims']
    r = self.dim()
    if len(dims) != r:
        return NotImplemented
    return _wrap(self._v.permute((0,) + tuple(_norm(d, r, name) + 1 for d in dims)), lvl)


def _t(self, name, args, kwargs, lvl, B):
    x, rest = _split_self(self, args)
    if not _is_b(x, lvl) or rest:
        return NotImplemented
    r = x.dim()
    if r > 2:
        return NotImplemented
    if r < 2:
        return _wrap(x._v, lvl) if name != 't_' else x
    if name == 't_':
        x._v.transpose_(1, 2)
        return _wrap(x._v, lvl)
    return _wrap(x._v.transpose(1, 2), lvl)


def _T(self, name, args, kwargs, lvl, B):
    r = self.dim()
    return _wrap(self._v.permute((0,) + tuple(range(r, 0, -1))), lvl)


def _mT(self, name, args, kwargs, lvl, B):
    if self.dim() < 2:
        return NotImplemented
    return _wrap(self._v.transpose(-2, -1), lvl)


def _unsqueeze(self, name, args, kwargs, lvl, B):
    x, rest = _split_self(self, args)
    d = kwargs.get('dim', rest[0] if rest else None)
    if not _is_b(x, lvl) or d is None:
        return NotImplemented
    nd = _norm(d, x.dim() + 1, name) + 1
    return _wrap(x._v.unsqueeze(nd), lvl)


def _squeeze(self, name, args, kwargs, lvl, B):
    x, rest = _split_self(self, args)
    if not _is_b(x, lvl):
        return NotImplemented
    d = kwargs.get('dim', rest[0] if rest else None)
    v = x._v
    if d is None:
        dims = tuple(i + 1 for i in range(x.dim()) if x.shape[i] == 1)
        return _wrap(v.squeeze(dims) if dims else v.view(v.shape), lvl)
    if isinstance(d, (tuple, list)):
        return _wrap(v.squeeze(tuple(_norm(i, x.dim(), name) + 1 for i in d)), lvl)
    return _wrap(v.squeeze(_norm(d, x.dim(), name) + 1), lvl)


def _flatten(self, name, args, kwargs, lvl, B):
    x, rest = _split_self(self, args)
    if not _is_b(x, lvl):
        return NotImplemented
    s = kwargs.get('start_dim', rest[0] if len(rest) > 0 else 0)
    e = kwargs.get('end_dim', rest[1] if len(rest) > 1 else -1)
    if not (isinstance(s, int) and isinstance(e, int)):
        return NotImplemented
    r = x.dim()
    if r == 0:
        return _wrap(x._v.reshape(x._v.shape[0], 1), lvl)
    return _wrap(x._v.flatten(_norm(s, r, name) + 1, _norm(e, r, name) + 1), lvl)


def _cat(self, name, args, kwargs, lvl, B):
    """cat / stack: unbatched tensors are expanded over the batch, then the dim shifts by one"""
    if self is not None or not args or not isinstance(args[0], (tuple, list)):
        return NotImplemented
    ts = args[0]
    d = kwargs.get('dim', args[1] if len(args) > 1 else 0)
    if not isinstance(d, int) or any(k not in ('dim',) for k in kwargs):
        return NotImplemented
    rank = max(t.dim() for t in ts) if ts else 0
    vals = []
    for t in ts:
        if _is_b(t, lvl):
            vals.append(t._v)
        else:
            vals.append(t.unsqueeze(0).expand((B,) + tuple(t.shape)))
    if name == 'stack':
        nd = _norm(d, rank + 1, name) + 1
    else:
        nd = _norm(d, rank, name) + 1 if rank > 0 else 1
    return _wrap(_call(None, name, (vals, nd), {}), lvl)


def _getitem(self, name, args, kwargs, lvl, B):
    """basic indexing (ints, slices, None, Ellipsis) of a batched tensor: a slice over the batch in front"""
    if not _is_b(self, lvl):
        return NotImplemented
    idx = args[0]
    items = idx if isinstance(idx, tuple) else (idx,)
    for i in items:
        if not (i is None or i is Ellipsis or isinstance(i, slice) or (isinstance(i, int) and not isinstance(i, bool))):
            return NotImplemented
    if name == '__getitem__':
        return _wrap(self._v[(slice(None),) + items], lvl)
    val = args[1]
    if isinstance(val, torch.Tensor) and _is_b(val, lvl):
        val = _pad(val._v, self[idx].dim())
    self._v[(slice(None),) + items] = val
    return None


# ------------------------------------------------------------------------------------------ matmul family
def _matmul(self, name, args, kwargs, lvl, B):
    a, rest = _split_self(self, args)
    if len(rest) != 1 or kwargs:
        return NotImplemented
    b = rest[0]
    if name == '__rmatmul__':
        a, b = b, a
    ab, bb = _is_b(a, lvl), _is_b(b, lvl)
    ra, rb = a.dim(), b.dim()
    if name in ('mm', 'bmm') and (ra != (2 if name == 'mm' else 3) or rb != ra):
        return NotImplemented   # the op's own error, through the fallback
    if name == 'mv' and (ra != 2 or rb != 1):
        return NotImplemented
    if name == 'dot':
        if ra != 1 or rb != 1:
            return NotImplemented
        return _wrap(torch.mul(a._v if ab else a, b._v if bb else b).sum(-1), lvl) if a.dtype == b.dtype else \
            NotImplemented
    va = a._v if ab else a
    vb = b._v if bb else b
    sq_a, sq_b = ab and ra == 1, bb and rb == 1
    rb_logical = rb
    if sq_a:
        va = va.unsqueeze(-2)      # [B, 1, k]
        ra = 2
    if sq_b:
        vb = vb.unsqueeze(-1)      # [B, k, 1]
        rb = 2
    # batched operands: singleton dims after the batch so matmul's broadcasting of batch dims is per sample
    rank = max(ra, rb)
    if ab:
        va = _pad(va, rank)
    if bb:
        vb = _pad(vb, rank)
    r = torch.matmul(va, vb)
    if sq_b:
        r = r.squeeze(-1)
    if sq_a:
        r = r.squeeze(-1 if rb_logical == 1 else -2)
    return _wrap(r, lvl)


def _shared(t, lvl):
    """t's value when t is batched at lvl only by expansion (every entry the same storage: grad's leaf for an
    unbatched input), else None"""
    if _is_b(t, lvl) and type(t._v) is not BatchedTensor and t._v.dim() >= 1 and t._v.stride(0) == 0:
        return t._v
    return None


class _SharedLinear(torch.autograd.Function):
    """linear(x, w, b) per sample where w (and b) are one tensor expanded over the batch (vmap(grad) of an unbatched
    weight): forward is one linear of every sample's rows; backward gives the expanded leaf its per-sample gradient
    (sample b's outer products), so only the gradient is materialised per sample, never the weight."""

    @staticmethod
    def forward(ctx, x, w, b):
        # x: [B, *, I]; w: [B, O, I] with stride 0 over B; b: None, [O], or [B, O] with stride 0 over B
        ctx.save_for_backward(x, w)
        ctx.bias = None if b is None else b.dim()
        return torch.nn.functional.linear(x, w[0], None if b is None else (b[0] if b.dim() == 2 else b))

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        B, O, I = w.shape
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = torch.matmul(gy, w[0])                                   # [B, *, I]
        gy2 = gy.reshape(B, -1, O)                                        # [B, M, O]
        if ctx.needs_input_grad[1]:
            x2 = x.reshape(B, -1, I)                                      # [B, M, I]
            # one row per sample: the outer product (+ 0.0 makes 0 * -x the +0 that torch's GEMM sum gives)
            gw = (gy2.mT * x2).add_(0.0) if gy2.shape[1] == 1 else torch.bmm(gy2.mT, x2)   # [B, O, I]
        if ctx.bias is not None and ctx.needs_input_grad[2]:
            gb = gy2.sum(1) if ctx.bias == 2 else gy2.sum((0, 1))         # [B, O] or [O]
        return gx, gw, gb


def _linear(self, name, args, kwargs, lvl, B):
    x = kwargs.get('input', args[0] if args else None)
    w = kwargs.get('weight', args[1] if len(args) > 1 else None)
    b = kwargs.get('bias', args[2] if len(args) > 2 else None)
    if _is_b(x, lvl) and not _is_b(w, lvl) and not _is_b(b, lvl):
        return _wrap(_resolve(name)(x._v, w, b), lvl)
    sw = _shared(w, lvl)
    if (sw is not None and sw.dim() == 3 and _is_b(x, lvl) and type(x._v) is not BatchedTensor and x.dim() >= 1
            and (b is None or (not _is_b(b, lvl) and type(b) is not BatchedTensor) or _shared(b, lvl) is not None)):
        sb = b if not _is_b(b, lvl) else b._v
        return _wrap(_SharedLinear.apply(x._v, sw, sb), lvl)
    # a batched weight (model ensembling): x @ w.T + b, each through its rule
    r = torch.matmul(x, w.mT if w.dim() >= 2 else w)
    return r + b if b is not None else r


def _addmm(self, name, args, kwargs, lvl, B):
    inp, rest = _split_self(self, args)
    if len(rest) != 2 or kwargs:
        return NotImplemented
    return inp + torch.matmul(rest[0], rest[1])


# ------------------------------------------------------------------------------------------ nn ops over N
def _fold_n(full_rank):
    """conv / pool: the op's input is (N, C, *spatial) or unbatched (C, *spatial); the vmap batch folds into N"""
    def rule(self, name, args, kwargs, lvl, B):
        if self is not None or not args:
            return NotImplemented
        x, rest = args[0], args[1:]
        if not _is_b(x, lvl) or any(_is_b(a, lvl) for a in _each(None, rest, kwargs)):
            return NotImplemented
        v = x._v
        if x.dim() == full_rank - 1:
            r = _resolve(name)(v, *rest, **kwargs)
            return _rewrap(r, lvl)
        if x.dim() != full_rank:
            return NotImplemented
        n = v.shape[1]
        r = _resolve(name)(v.reshape((v.shape[0] * n,) + tuple(v.shape[2:])), *rest, **kwargs)
        return _rewrap_tuple(r, lambda t: _wrap(t.reshape((v.shape[0], n) + tuple(t.shape[1:])), lvl))
    return rule


def _conv(full_rank):
    """conv1d/2d/3d: a batched input only folds the batch into N; a batched weight (per-sample gradients, model
    ensembling) runs one grouped convolution: the batch's channels side by side, B times the groups"""
    fold = _fold_n(full_rank)
    names = ('input', 'weight', 'bias', 'stride', 'padding', 'dilation', 'groups')

    def rule(self, name, args, kwargs, lvl, B):
        a = dict(zip(names, args))
        a.update(kwargs)
        if self is not None or set(a) - set(names) or 'input' not in a or 'weight' not in a:
            return NotImplemented
        x, w, b = a['input'], a['weight'], a.get('bias')
        if not _is_b(w, lvl) and not _is_b(b, lvl):
            return fold(self, name, args, kwargs, lvl, B)
        if x.dim() not in (full_rank - 1, full_rank) or w.dim() != full_rank:
            return NotImplemented
        g = a.get('groups', 1)
        unb = x.dim() == full_rank - 1
        vx = x._v if _is_b(x, lvl) else x.unsqueeze(0).expand((B,) + tuple(x.shape))   # [B, (N,) C, *sp]
        if unb:
            vx = vx.unsqueeze(1)
        n, c = vx.shape[1], vx.shape[2]
        vx = vx.movedim(0, 1).reshape((n, B * c) + tuple(vx.shape[3:]))                  # [N, B*C, *sp]
        vw = w._v if _is_b(w, lvl) else w.unsqueeze(0).expand((B,) + tuple(w.shape))     # [B, O, C/g, *k]
        o = vw.shape[1]
        vw = vw.reshape((B * o,) + tuple(vw.shape[2:]))                                   # [B*O, C/g, *k]
        vb = None
        if b is not None:
            vb = (b._v if _is_b(b, lvl) else b.unsqueeze(0).expand(B, b.shape[0])).reshape(B * o)   # [B*O]
        r = _resolve(name)(vx, vw, vb, a.get('stride', 1), a.get('padding', 0), a.get('dilation', 1), g * B)
        r = r.reshape((n, B, o) + tuple(r.shape[2:])).movedim(1, 0)                       # [B, N, O, *sp']
        if unb:
            r = r.squeeze(1)
        return _wrap(r, lvl)
    return rule


def _nll_loss(self, name, args, kwargs, lvl, B):
    """nll_loss(input (N, C) or (C,), target (N,) or (), weight, reduction, ignore_index) with no weight: computed per
    sample with reduction 'none' over the folded N, then reduced per sample"""
    if self is not None or len(args) < 2:
        return NotImplemented
    names = ('self', 'target', 'weight', 'reduction', 'ignore_index')
    a = dict(zip(names, args))
    a.update(kwargs)
    a['input'] = a.pop('self')
    if set(a) - set(names) - {'input'} or a.get('weight') is not None or _is_b(a.get('weight'), lvl):
        return NotImplemented
    x, t = a['input'], a['target']
    red = a.get('reduction', 0)   # torch._C._nn's default: 0 (Note [Enum defaults])
    ign = a.get('ignore_index', -100)
    if not isinstance(red, int) or x.dim() not in (1, 2):
        return NotImplemented
    vx = x._v if _is_b(x, lvl) else x.unsqueeze(0).expand((B,) + tuple(x.shape))
    vt = t._v if _is_b(t, lvl) else t.unsqueeze(0).expand((B,) + tuple(t.shape))
    if x.dim() == 1:
        vx = vx.unsqueeze(1)
        vt = vt.unsqueeze(1)
    n = vx.shape[1]
    per = _resolve(name)(vx.reshape(B * n, vx.shape[2]), vt.reshape(B * n), None, 0, ign).reshape(B, n)
    if red == 0:
        return _wrap(per if x.dim() == 2 else per.squeeze(1), lvl)
    if red == 2:
        return _wrap(per.sum(1), lvl)
    cnt = (vt.reshape(B, n) != ign).sum(1).to(per.dtype)
    return _wrap(per.sum(1) / cnt, lvl)


def _cross_entropy(self, name, args, kwargs, lvl, B):
    """cross_entropy_loss with class-index targets, no weight, no label smoothing: log_softmax over the class dim
    then nll_loss, each through its rule"""
    names = ('input', 'target', 'weight', 'reduction', 'ignore_index', 'label_smoothing')
    a = dict(zip(names, args))
    a.update(kwargs)
    x, t = a.get('input'), a.get('target')
    if (self is not None or set(a) - set(names) or a.get('weight') is not None or a.get('label_smoothing', 0.0)
            or x is None or t is None or t.is_floating_point() or x.dim() not in (1, 2)):
        return NotImplemented
    ls = torch.log_softmax(x, 1 if x.dim() == 2 else 0)
    return _resolve('nll_loss_nd')(ls, t, None, a.get('reduction', 0), a.get('ignore_index', -100))


# ------------------------------------------------------------------------------------------ the rule table
_RULES = {
    'view': _view, 'reshape': _view, 'view_as': _view_as, 'reshape_as': _view_as,
    'expand': _expand, 'expand_as': _expand, 'broadcast_to': _expand,
    'permute': _permute, 't': _t, 't_': _t, '_T': _T, 'numpy_T': _T, '_mT': _mT,
    'unsqueeze': _unsqueeze, 'squeeze': _squeeze, 'flatten': _flatten,
    'cat': _cat, 'concat': _cat, 'concatenate': _cat, 'stack': _cat,
    '__getitem__': _getitem, '__setitem__': _getitem,
    'matmul': _matmul, '__matmul__': _matmul, '__rmatmul__': _matmul, 'mm': _matmul, 'bmm': _matmul, 'mv': _matmul,
    'dot': _matmul, 'linear': _linear, 'addmm': _addmm,
    'conv1d': _conv(3), 'conv2d': _conv(4), 'conv3d': _conv(5),
    'max_pool1d': _fold_n(3), 'max_pool2d': _fold_n(4), 'max_pool3d': _fold_n(5),
    'max_pool2d_with_indices': _fold_n(4), 'max_pool3d_with_indices': _fold_n(5), 'max_pool1d_with_indices': _fold_n(3),
    'avg_pool1d': _fold_n(3), 'avg_pool2d': _fold_n(4), 'avg_pool3d': _fold_n(5),
    'adaptive_avg_pool1d': _fold_n(3), 'adaptive_avg_pool2d': _fold_n(4), 'adaptive_avg_pool3d': _fold_n(5),
    'adaptive_max_pool1d': _fold_n(3), 'adaptive_max_pool2d': _fold_n(4), 'adaptive_max_pool3d': _fold_n(5),
    'nll_loss_nd': _nll_loss, 'cross_entropy_loss': _cross_entropy, '_linalg_vector_norm': _reduce(pos=1),
    'transpose': _dims_rule(0, 1, kw=('dim0', 'dim1')), 'transpose_': _dims_rule(0, 1, kw=('dim0', 'dim1')),
    'swapaxes': _dims_rule(0, 1, kw=('axis0', 'axis1')), 'swapdims': _dims_rule(0, 1, kw=('dim0', 'dim1')),
    'movedim': _dims_rule(0, 1, kw=('source', 'destination')), 'moveaxis': _dims_rule(0, 1, kw=('source', 'destination')),
    'softmax': _dims_rule(0), 'log_softmax': _dims_rule(0), '_softmax': _dims_rule(0), '_log_softmax': _dims_rule(0),
    'cumsum': _dims_rule(0), 'cumprod': _dims_rule(0), 'cummax': _dims_rule(0), 'cummin': _dims_rule(0),
    'logcumsumexp': _dims_rule(0), 'glu': _dims_rule(0, fill=(-1,)), 'flip': _dims_rule(0, kw=('dims',)),
    'select': _dims_rule(0), 'narrow': _dims_rule(0), 'unbind': _dims_rule(0, fill=(0,)),
    'unflatten': _dims_rule(0), 'argsort': _dims_rule(0, fill=(-1,)), 'sort': _dims_rule(0, fill=(-1,)),
    'topk': _dims_rule(1, fill=(None, -1)), 'split': _dims_rule(1, fill=(None, 0)),
    'chunk': _dims_rule(1, fill=(None, 0)), 'diagonal': _dims_rule(1, 2, fill=(0, 0, 1), kw=('dim1', 'dim2')),
    'sum': _reduce(), 'mean': _reduce(), 'nansum': _reduce(), 'nanmean': _reduce(), 'prod': _reduce(),
    'amax': _reduce(), 'amin': _reduce(), 'logsumexp': _reduce(full_dims=False), 'all': _reduce(), 'any': _reduce(),
    'max': _reduce(), 'min': _reduce(), 'argmax': _reduce(), 'argmin': _reduce(), 'std': _reduce(), 'var': _reduce(),
    'std_mean': _reduce(), 'var_mean': _reduce(), 'count_nonzero': _reduce(), 'median': _reduce(full_dims=False),
    'linalg_vector_norm': _reduce(pos=1), 'norm': _reduce(pos=1),
}
for _n in ('softmax', 'log_softmax', 'cumsum', 'cumprod'):
    _RULES[_n + '_'] = _RULES[_n] if _n in ('cumsum', 'cumprod') else _RULES[_n]


def _max_rule(base):
    def rule(self, name, args, kwargs, lvl, B):
        x, rest = _split_self(self, args)
        if (rest and isinstance(rest[0], torch.Tensor)) or isinstance(kwargs.get('other'), torch.Tensor):
            return _pointwise(self, name, args, kwargs, lvl, B)   # max(a, b): elementwise
        return base(self, name, args, kwargs, lvl, B)
    return rule


_RULES['max'] = _max_rule(_RULES['max'])
_RULES['min'] = _max_rule(_RULES['min'])
_POINTWISE = set()


def refuse_batched(*trees):
    """what cannot see a batched tensor (autograd's engine, a custom Function) sends a batching vmap back to its loop"""
    if _levels:
        for t in trees:
            for x in (t if isinstance(t, (tuple, list)) else (t,)):
                if type(x) is BatchedTensor:
                    raise NeedLoop()


def install():
    """register the hook with the extension; False where the extension has none (the loop vmap is used then)"""
    global _POINTWISE
    if not hasattr(_C, '_set_vmap_hook'):
        return False
    _POINTWISE = _table_pointwise()
    _C._set_vmap_hook(BatchedTensor, _dispatch)
    return True
