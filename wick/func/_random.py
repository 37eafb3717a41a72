"""vmap's randomness='different' and 'same' (Note [vmap randomness]), as torch's functorch batching rules draw.

Each running vmap level handles a random op by its mode, innermost level first:
- 'error' raises (wick/func/_vmap.py checks);
- 'different' draws a value per batch entry: a factory (torch.rand(3), torch.normal(0., 1., (3,))) draws once with
  the level's batch size in front (nested 'different' levels: all their sizes, outermost first), a random op on a
  batched tensor (rand_like, dropout, bernoulli, normal_ ...) runs on the physical values (batch in dim 0), and an
  in-place random op on an unbatched tensor raises torch's error;
- 'same' draws one value for all entries: a factory draws plainly, a *_like op draws for one entry, an in-place op
  on a batched tensor draws one entry's worth and writes it into every entry, dropout draws one entry's mask;
  bernoulli / multinomial / poisson of a batched tensor raise torch's error.
Factories and the in-place methods of unbatched tensors are reached through wrappers installed on wick's module
and Tensor while a vmap level with randomness 'different' runs (as autocast swaps entry points): a reference taken
before (from torch import rand) draws plainly."""
import functools

import wick as torch

_FACTORIES = ('rand', 'randn', 'randint', 'normal', 'randperm', 'rand_like', 'randn_like', 'randint_like',
              'bernoulli')
_INPLACE = ('normal_', 'uniform_', 'bernoulli_', 'exponential_', 'geometric_', 'log_normal_', 'cauchy_', 'random_')
_LIKE = ('rand_like', 'randn_like', 'randint_like')
_DROPOUT = ('dropout', 'feature_dropout', '_fused_dropout', 'native_dropout')
_SAME_REFUSED = ('bernoulli', 'multinomial', 'poisson')
_saved = {}      # name -> the original, while installed
_depth = [0]     # running vmap levels with randomness 'different'
_inside = [0]    # > 0 while a rule runs an op on physical values (no level's check applies there)


def _levels():
    from ._vmap import _levels
    return _levels


def _any_batched(args, kwargs):
    from ._vmap import BatchedTensor
    for a in list(args) + list(kwargs.values()):
        if type(a) is BatchedTensor or (isinstance(a, (tuple, list)) and any(type(y) is BatchedTensor for y in a)):
            return True
    return False


def _factory(name, orig):
    @functools.wraps(orig)
    def draw(*args, **kwargs):
        levels = _levels()
        diff = [e for e in levels if e[2] == 'different']
        if not diff or _any_batched(args, kwargs) or any(e[2] == 'error' for e in levels) or (
                name in _LIKE + ('bernoulli',) and not (args and isinstance(args[0], torch.Tensor))):
            return orig(*args, **kwargs)   # a batched argument dispatches; 'error' levels raise on their own
        from ._vmap import _wrap
        sizes = tuple(e[1] for e in diff)
        if name in _LIKE or name == 'bernoulli':   # of an unbatched tensor: drawn as if it were expanded to the batch
            x = args[0]
            value = orig(x.expand(sizes + tuple(x.shape)), *args[1:], **kwargs)
        elif name == 'randperm':   # torch's rule loops: one permutation per entry
            n = 1
            for s in sizes:
                n *= s
            value = torch.stack([orig(*args, **kwargs) for _ in range(n)]).view(sizes + (-1,))
        else:
            args, kwargs, shape = _with_batch(name, args, kwargs, sizes)
            value = orig(*args, **kwargs)
        for e in diff:
            value = _wrap(value, e[0])
        return value
    return draw


def _with_batch(name, args, kwargs, sizes):
    """the factory's arguments with the batch sizes put in front of its size"""
    args = list(args)
    if name == 'randint':   # randint(high, size) / randint(low, high, size)
        pos = 1 if len(args) == 2 else 2
    elif name == 'normal':  # normal(mean, std, size)
        pos = 2
    else:                   # rand(*size) / rand(size)
        if 'size' in kwargs:
            kwargs = dict(kwargs, size=sizes + tuple(kwargs['size']))
            return args, kwargs, None
        if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
            return [sizes + tuple(args[0])], kwargs, None
        return [sizes + tuple(args)], kwargs, None
    if 'size' in kwargs:
        kwargs = dict(kwargs, size=sizes + tuple(kwargs['size']))
    elif len(args) > pos:
        args[pos] = sizes + tuple(args[pos])
    return args, kwargs, None


def _inplace(name, orig):
    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        from ._vmap import BatchedTensor
        if type(self) is not BatchedTensor and not _inside[0] and any(e[2] == 'different' for e in _levels()):
            raise RuntimeError("vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
                               "appear like same randomness. If this is necessary for your usage, please file an "
                               "issue with functorch.")
        return orig(self, *args, **kwargs)
    return method


def enter():
    """a vmap level with randomness 'different' starts: install the wrappers (once for nested levels)"""
    _depth[0] += 1
    if _depth[0] > 1:
        return
    for name in _FACTORIES:
        _saved[name] = getattr(torch, name)
        setattr(torch, name, _factory(name, _saved[name]))
    for name in _INPLACE:
        _saved['Tensor.' + name] = torch.Tensor.__dict__.get(name)
        setattr(torch.Tensor, name, _inplace(name, getattr(torch.Tensor, name)))


def exit():
    _depth[0] -= 1
    if _depth[0] > 0:
        return
    for name in _FACTORIES:
        setattr(torch, name, _saved.pop(name))
    for name in _INPLACE:
        orig = _saved.pop('Tensor.' + name)
        if orig is None:
            delattr(torch.Tensor, name)
        else:
            setattr(torch.Tensor, name, orig)


def rule(self, name, args, kwargs, lvl, mode):
    """a random op with a batched argument at level lvl whose randomness is `mode` ('different' or 'same')"""
    from ._vmap import _is_b, _unwrap, _rewrap, _call
    if mode == 'different':
        s = _unwrap(self, lvl) if self is not None else None
        _inside[0] += 1
        try:
            r = _call(s, name, tuple(_unwrap(a, lvl) for a in args), {k: _unwrap(v, lvl) for k, v in kwargs.items()})
        finally:
            _inside[0] -= 1
        if name.endswith('_') and self is not None:
            return self
        return _rewrap(r, lvl)
    # 'same': one entry's draw for every entry
    if name in _SAME_REFUSED:
        raise RuntimeError("Vmap does not currently support same randomness with a batched tensor input. Please "
                           "file an issue with functorch")
    if name.endswith('_') and _is_b(self, lvl):
        one = torch.empty_like(self._v[0])
        _inside[0] += 1
        try:
            getattr(one, name)(*args, **kwargs)
        finally:
            _inside[0] -= 1
        self._v.copy_(one.expand_as(self._v))
        return self
    if name in _LIKE:
        first = self._v[0] if _is_b(self, lvl) else args[0]._v[0]
        rest = args if self is not None else args[1:]
        return _call(first if self is not None else None, name, rest if self is not None else (first,) + rest, kwargs)
    if name in ('dropout', 'feature_dropout'):
        x = self if self is not None else args[0]
        rest = args if self is not None else args[1:]
        mask = _call(None, name, (torch.ones_like(x._v[0]),) + tuple(rest), kwargs)
        return x * mask
    raise NotImplementedError(f"wick: vmap(randomness='same') over the random op {name} of a batched tensor is not "
                              "supported yet")
