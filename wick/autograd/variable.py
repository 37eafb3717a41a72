"""torch.autograd.variable: the legacy Variable, today a way to spell a tensor (every Tensor is a Variable)."""
from .. import _C

__all__ = ['Variable']


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.TensorBase)


class Variable(metaclass=VariableMeta):
    """Variable(data, requires_grad=False, volatile=False) -> a new tensor sharing data's storage, detached from
    its history, that requires grad as asked."""
    __module__ = 'torch.autograd.variable'

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            import warnings
            warnings.warn('volatile was removed and now has no effect. Use `with torch.no_grad():` instead.',
                          UserWarning, stacklevel=2)
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError('Variable data has to be a tensor, but got %s' % type(data).__name__)
        from .._tensor import Tensor
        return Tensor._make_subclass(Tensor, data, bool(requires_grad))
