"""nn.Parameter: a Tensor subclass that modules register as a parameter when assigned as an attribute."""
from .. import _C
from .._tensor import Tensor


class Parameter(Tensor):
    __module__ = 'torch.nn.parameter'

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.zeros(0)
        if not isinstance(data, Tensor):
            data.detach()   # torch's AttributeError for a list or a number
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return 'Parameter containing:\n' + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer:
    """nn.Buffer(data, persistent=True): a marker for tensors that a module registers as a buffer on assignment."""
    __module__ = 'torch.nn.parameter'

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.zeros(0)
        t = data.detach()
        t._is_buffer = True
        t.persistent = persistent
        return t


class UninitializedParameter(Parameter):
    def __new__(cls, requires_grad=True, device=None, dtype=None):
        raise NotImplementedError('wick: lazy modules (UninitializedParameter) are not supported yet')
