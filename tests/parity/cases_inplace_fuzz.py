"""Random chains of views and in-place writes on a tensor with history (fixed seeds): each case builds h from two
leaves, writes into 1-4 views of it (view chains of 1-2 steps: slices, transposes, expands, unbind, split, as_strided,
detach, ...), then backpropagates -- the loss, both leaves' gradients, h's grad_fn name, or the error torch raises
(in-place on an expanded or multi-output view, a saved tensor modified, overlapping writes) must agree."""
import random

from .harness import *  # noqa: F401,F403

A = [[0.5, -1.25, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.125]]
B = [[1.5, 0.5, -0.5], [0.25, -1.0, 2.0], [0.75, -0.25, 1.25]]
VIEWS = [lambda t: t[1:], lambda t: t[:, 1], lambda t: t.t(), lambda t: t.view(-1), lambda t: t[::2],
         lambda t: t.narrow(1, 0, 2), lambda t: t.unsqueeze(0), lambda t: t.diagonal(), lambda t: t[0],
         lambda t: t.select(1, 2), lambda t: t.expand(2, 3, 3)[0], lambda t: t.unbind(0)[1], lambda t: t.split(2)[0],
         lambda t: t.chunk(2, 1)[1], lambda t: t.permute(1, 0), lambda t: t.as_strided((2, 2), (1, 3)),
         lambda t: t.view_as(t), lambda t: t.reshape(-1), lambda t: t.movedim(0, -1), lambda t: t.detach()]
OPS = [lambda v, c: v.mul_(c), lambda v, c: v.add_(c * 0.5), lambda v, c: v.sigmoid_(), lambda v, c: v.tanh_(),
       lambda v, c: v.sub_(1.5), lambda v, c: v.div_(c + 3), lambda v, c: v.pow_(2), lambda v, c: v.clamp_(-0.5, 0.7),
       lambda v, c: v.copy_(c * 2), lambda v, c: v.zero_(), lambda v, c: v.relu_(), lambda v, c: v.addcmul_(c, c, value=0.3),
       lambda v, c: v.fill_(0.25), lambda v, c: v.masked_fill_(v > 0.5, 1.0), lambda v, c: v.__setitem__(..., c),
       lambda v, c: v.lerp_(c + 1, 0.25), lambda v, c: v.abs_(), lambda v, c: v.neg_(), lambda v, c: v.sin_(),
       lambda v, c: v.mul_(v), lambda v, c: v.add_(v.detach())]


def _chain(T, seed):
    rnd = random.Random(seed)
    a = T.tensor(A, requires_grad=True)
    b = T.tensor(B, requires_grad=True)
    trace = []
    try:
        h = a * b + 1.0
        keep = []
        for _ in range(rnd.randint(1, 4)):
            v = h
            for _ in range(rnd.randint(1, 2)):
                i = rnd.randrange(len(VIEWS))
                try:
                    v = VIEWS[i](v)
                    trace.append(i)
                except (IndexError, RuntimeError) as e:  # a view this shape cannot take
                    trace.append(type(e).__name__)
            c = b.sum() * 0.1 if rnd.random() < 0.5 else T.tensor(0.3)
            if rnd.random() < 0.3:
                keep.append(v)
            expand_c = not (v.dim() == 0 or rnd.random() < 0.5)
            OPS[rnd.randrange(len(OPS))](v, c.expand_as(v) if expand_c else c)
        loss = (h * h).sum() + sum((k * 1.0).sum() for k in keep)
        loss.backward()
        return trace, loss, a.grad, b.grad, h.grad_fn.name() if h.grad_fn else None
    except RuntimeError as e:
        return trace, str(e)


cases("inplace_view_chain", _chain, seed=list(range(300)), warns=False)
