"""Random shape ops (fixed seeds): view / reshape / permute / squeeze / unflatten / narrow / split / cat / stack / expand /
gather / unfold / as_strided / view(dtype) ... on small tensors of 0-3 dims (empty and transposed ones too), with
arguments drawn from valid and invalid values -- the results' shapes, strides and values, or torch's errors, must
agree (strides too: roll / flip / rot90 keep an empty or size-1 dim's odd stride as torch's empty_like does)."""
import random

from .harness import *  # noqa: F401,F403


def _ops(T):
    def ri(r): return r.choice([-3, -2, -1, 0, 1, 2, 3, 4])
    return {
     'view': lambda x, r: x.view(*[r.choice([-1, 1, 2, 3, 4, 6, 12, 0]) for _ in range(r.randint(1, 3))]),
     'reshape': lambda x, r: x.reshape(*[r.choice([-1, 1, 2, 3, 4, 6, 12, 0]) for _ in range(r.randint(1, 3))]),
     'permute': lambda x, r: x.permute(*r.sample(range(-x.dim(), x.dim()) if x.dim() else [0], x.dim()) if r.random() < 0.7 else [ri(r) for _ in range(x.dim())]),
     'transpose': lambda x, r: x.transpose(ri(r), ri(r)), 'squeeze': lambda x, r: x.squeeze(ri(r)) if r.random() < 0.7 else x.squeeze(),
     'unsqueeze': lambda x, r: x.unsqueeze(ri(r)), 'flatten': lambda x, r: x.flatten(ri(r), ri(r)),
     'unflatten': lambda x, r: x.unflatten(ri(r), (r.choice([-1, 2, 3]), r.choice([1, 2, -1]))), 'narrow': lambda x, r: x.narrow(ri(r), ri(r), r.choice([0, 1, 2, 5])),
     'select': lambda x, r: x.select(ri(r), ri(r)), 'split': lambda x, r: x.split(r.choice([1, 2, [1, 2], [3, 0], 0]), ri(r)),
     'chunk': lambda x, r: x.chunk(r.choice([1, 2, 3, 0]), ri(r)), 'unbind': lambda x, r: x.unbind(ri(r)),
     'cat': lambda x, r: T.cat([x, x], ri(r)), 'stack': lambda x, r: T.stack([x, x], ri(r)), 'roll': lambda x, r: x.roll(ri(r), ri(r)),
     'flip': lambda x, r: x.flip(ri(r)), 'rot90': lambda x, r: x.rot90(ri(r), [ri(r), ri(r)]), 'tril': lambda x, r: x.tril(ri(r)),
     'diag': lambda x, r: x.diag(ri(r)), 'diagonal': lambda x, r: x.diagonal(ri(r), ri(r), ri(r)), 'movedim': lambda x, r: x.movedim(ri(r), ri(r)),
     'repeat': lambda x, r: x.repeat(*[r.choice([1, 2, 0]) for _ in range(r.randint(0, 4))]), 'tile': lambda x, r: x.tile(tuple(r.choice([1, 2]) for _ in range(r.randint(1, 3)))),
     'expand': lambda x, r: x.expand(*[r.choice([-1, 1, 2, 3, 4]) for _ in range(r.randint(0, 4))]), 'index_select': lambda x, r: x.index_select(ri(r), T.tensor([0, r.choice([1, 2, -1, 5])])),
     'gather': lambda x, r: x.gather(ri(r), T.zeros(x.shape, dtype=T.long)), 'take_along_dim': lambda x, r: x.take_along_dim(T.zeros(x.shape, dtype=T.long), ri(r)),
     'swapaxes': lambda x, r: x.swapaxes(ri(r), ri(r)), 'hsplit': lambda x, r: T.hsplit(x, r.choice([1, 2, 3])), 'vstack': lambda x, r: T.vstack([x, x]),
     'broadcast_to': lambda x, r: x.broadcast_to([r.choice([1, 2, 3, 4]) for _ in range(r.randint(0, 3))]), 'flatten_all': lambda x, r: x.ravel(),
     'repeat_interleave': lambda x, r: x.repeat_interleave(r.choice([1, 2]), dim=ri(r)), 'tensor_split': lambda x, r: x.tensor_split(r.choice([1, 2, 3]), ri(r)),
     'triu_indices_like': lambda x, r: x.triu(ri(r)), 'view_as_dtype': lambda x, r: x.view(r.choice([T.int32, T.float64, T.int16, T.uint8])),
     'unfold': lambda x, r: x.unfold(ri(r), r.choice([1, 2, 3]), r.choice([1, 2])), 'as_strided': lambda x, r: x.as_strided((2, 2), (r.choice([1, 2, 0]), 1), r.choice([0, 1])),
     'contiguous_t': lambda x, r: x.t().contiguous() if x.dim() <= 2 else x.mT, 'squeeze_tuple': lambda x, r: x.squeeze((ri(r), ri(r))),
    }


def _shape_op(T, seed):
    ops = _ops(T)
    r = random.Random(seed)
    shape = r.choice([[], [3], [2, 3], [3, 1, 4], [2, 0, 3], [1], [4, 3], [2, 2, 2]])
    n = 1
    for d in shape:
        n *= d
    name = r.choice(sorted(ops))
    x = T.arange(float(n)).reshape(shape) if n else T.empty(shape)
    if r.random() < 0.3 and len(shape) >= 2:
        x = x.transpose(0, 1)
    try:
        y = ops[name](x, r)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return name, type(e).__name__, str(e).split("\nException raised from")[0]

    def flat(v):
        if isinstance(v, T.Tensor):
            return (list(v.shape), list(v.stride()),
                    v.flatten().tolist() if v.dtype.is_floating_point else str(v.dtype).split(".")[-1])
        if isinstance(v, (list, tuple)):
            return [flat(z) for z in v]
        return v
    return name, flat(y)


cases("shape_op", _shape_op, seed=list(range(600)))
