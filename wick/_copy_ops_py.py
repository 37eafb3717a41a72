"""torch's *_copy ops (alias_copy, view_copy, expand_copy, ...): the view op's values in a fresh contiguous tensor
that aliases nothing ("Performs the same operation as torch.X, but all output tensors are freshly created instead
of aliasing the input"), with out= as torch's. The gradient is the view's, through a clone: torch names the node
XBackward0_copy, wick's is CloneBackward0."""
import sys

from ._tensor import Tensor

_wick = sys.modules[__package__]

_VIEWS = ('alias', 'as_strided', 'detach', 'expand', 'permute', 'select', 'slice', 'split', 'split_with_sizes',
          'squeeze', 't', 'transpose', 'unbind', 'unfold', 'unsqueeze', 'view')


class NotImplemented_(_wick.autograd.Function):
    """torch's detach_copy output requires grad through a node whose backward raises (aten has no derivative)."""
    @staticmethod
    def forward(ctx, t):
        return t.detach().clone(memory_format=_wick.contiguous_format)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::detach_copy is not implemented")


def _fresh(t):
    return t.clone(memory_format=_wick.contiguous_format)


def _copy_op(name):
    def view(self, *args, **kwargs):
        if name == 'alias':
            return self.view_as(self)
        if name == 'slice':
            dim, start, end, step = (list(args) + [0, None, None, 1][len(args):])[:4]
            dim = kwargs.get('dim', dim)
            start, end, step = kwargs.get('start', start), kwargs.get('end', end), kwargs.get('step', step)
            index = [slice(None)] * self.dim()
            index[dim] = slice(start, end, step)
            return self[tuple(index)]
        if name == 'split_with_sizes':
            return self.split(*args, **kwargs)
        return getattr(self, name)(*args, **kwargs)

    def fn(input, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}_copy(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if name == 'detach' and input.requires_grad and _wick.is_grad_enabled():
            r = NotImplemented_.apply(input)
        else:
            r = view(input, *args, **kwargs)
            r = tuple(_fresh(v) for v in r) if isinstance(r, (tuple, list)) else _fresh(r)
        if out is None:
            return r
        with _wick.no_grad():
            if isinstance(r, tuple):
                for o, v in zip(out, r):
                    o.resize_(v.shape).copy_(v)
            else:
                out.resize_(r.shape).copy_(r)
        return out
    fn.__name__ = fn.__qualname__ = name + '_copy'
    fn.__module__ = 'torch'
    return fn


for _n in _VIEWS:
    setattr(_wick, _n + '_copy', _copy_op(_n))
