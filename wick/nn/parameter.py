"""nn.Parameter: a Tensor subclass that modules register as a parameter when assigned as an attribute."""
from collections import OrderedDict

from .. import _C
from .._tensor import Tensor


class Parameter(Tensor):
    __module__ = 'torch.nn.parameter'
    __torch_function__ = _C._disabled_torch_function_impl

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
        """As torch's: the data tensor (pickled by Tensor.__reduce_ex__), requires_grad, no hooks, Python attributes."""
        state = self.__getstate__()
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
        return (_rebuild_parameter_with_state, (self.data, self.requires_grad, OrderedDict(), state))


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    from .._tensor import _set_obj_state
    return _set_obj_state(Parameter(data, requires_grad), state)


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


class UninitializedTensorMixin:
    """What UninitializedParameter / UninitializedBuffer share: no shape until materialize(shape) gives them data
    (an empty placeholder until then) and turns them into cls_to_become."""
    _allowed_methods = [getattr(Tensor, n) for n in (
        '__hash__', 'size', 'copy_', 'is_complex', 'is_floating_point', 'half', 'float', 'double', 'char', 'short',
        'int', 'long', 'cuda', 'cpu', 'to', 'get_device') if hasattr(Tensor, n)]

    def materialize(self, shape, device=None, dtype=None):
        """Give the placeholder real (uninitialised) storage of `shape`; it becomes a Parameter (or a Tensor)."""
        import wick as torch
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = torch.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in cls._allowed_methods or func.__class__.__name__ == "method-wrapper":
            if kwargs is None:
                kwargs = {}
            return super().__torch_function__(func, types, args, kwargs)
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. "
            "This error happens when you are using a `LazyModule` or "
            f"explicitly manipulating `torch.nn.parameter.{cls.__name__}` "
            "objects. When using LazyModules Call `forward` with a dummy batch "
            "to initialize the parameters before calling torch functions")


def is_lazy(param):
    """Whether param is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (lazy modules): materialize(shape) makes it a Parameter."""
    __module__ = 'torch.nn.parameter'
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _C.empty(0, device=device, dtype=dtype)  # (0,): a placeholder until materialize
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy norms' running stats): materialize(shape) makes it a Tensor."""
    __module__ = 'torch.nn.parameter'
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        data = _C.empty(0, device=device, dtype=dtype)  # (0,): a placeholder until materialize
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass
