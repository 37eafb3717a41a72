"""wick.Tensor: the Python face of _C.TensorBase. Methods that are pure Python in torch live here too."""
from . import _C


class Tensor(_C.TensorBase):
    __module__ = 'torch'

    def __init_subclass__(cls, **kwargs):
        """A subclass with a live __torch_function__ turns on the Python dispatch (Note [Lazy dispatch] in
        overrides.py)."""
        super().__init_subclass__(**kwargs)
        from . import overrides
        if all('__repr__' not in k.__dict__ for k in cls.__mro__[:cls.__mro__.index(Tensor)]):
            cls.__repr__ = _subclass_repr
            if all('__str__' not in k.__dict__ for k in cls.__mro__[:cls.__mro__.index(Tensor)]):
                cls.__str__ = _subclass_repr
        # wick's own subclasses (nn's Uninitialized*, named torch.*) do not turn it on: their __torch_function__ only
        # matters once a program's subclass or mode has
        if overrides._tf_of(cls) is not None and cls.__module__.split('.')[0] not in ('torch', 'wick'):
            overrides._install()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch's default: run func with subclass dispatch off, then make tensor results instances of cls."""
        from . import overrides
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with overrides.DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
            if func in overrides.get_default_nowrap_functions():
                return ret
            return overrides._convert(ret, cls)

    def as_subclass(self, cls):
        """A `cls` object on the same data, still in the autograd graph (torch's node is AliasBackward0; wick's is
        ViewBackward0)."""
        if not (isinstance(cls, type) and issubclass(cls, _C.TensorBase)):
            raise TypeError('as_subclass(): argument \'cls\' must be a subclass of Tensor')
        out = _C.TensorBase.view_as(self, self)
        out.__class__ = cls
        return out

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        return _RemovableHandle(self, self._register_hook(hook))

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after a leaf's .grad was accumulated by backward(); it must return None."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError('post accumulate grad hooks cannot be registered on non-leaf tensors')
        if getattr(self, '_post_accumulate_grad_hooks', None) is None:
            from collections import OrderedDict
            self._post_accumulate_grad_hooks = OrderedDict()
            self._set_post_accumulate_grad_hooks()
        from .nn.modules.module import RemovableHandle
        handle = RemovableHandle(self._post_accumulate_grad_hooks)
        self._post_accumulate_grad_hooks[handle.id] = hook
        return handle

    def __len__(self):
        if self.dim() == 0:
            raise TypeError('len() of a 0-d tensor')
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError('iteration over a 0-d tensor')
        return iter(self.unbind(0))

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        a = np.asarray(self.numpy())      # a tensor that requires grad raises, as torch's
        return a if dtype is None else a.astype(dtype, copy=False)

    def numpy(self, *, force=False):
        import numpy as np
        if force and not self.is_cpu:
            return self.detach().cpu().numpy()
        if not self.is_cpu:  # torch checks the device first
            raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                            "host memory first." % self.device)
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        t = self.detach() if force else self
        # shares memory through numpy's __array_interface__ on a holder that keeps the tensor alive (torch tensors
        # export no buffer protocol; bfloat16 raises torch's TypeError there), never through __array__, which calls
        # numpy(); the storage becomes non-resizable, as torch's
        return np.asarray(_NumpyHolder(t))

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reversed__(self):
        return self.flip(0)

    @property
    def T(self):
        return self.permute(*range(self.dim() - 1, -1, -1))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def __copy__(self):
        """copy.copy: as torch's (through its pickle reduction), a new leaf on the same storage with the same
        requires_grad; a subclass with its own __reduce_ex__ (Parameter) is rebuilt by it."""
        reduce = type(self).__reduce_ex__
        if reduce is not _C.TensorBase.__reduce_ex__ and reduce is not Tensor.__reduce_ex__:
            fn, args = reduce(self, 4)[:2]
            return fn(*args)
        new = self.detach()
        if self.requires_grad:
            new.requires_grad_(True)
        return new

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with _C_no_grad():
            new = self.clone()
        new.requires_grad_(self.requires_grad) if self.is_leaf else None
        if self.grad is not None:
            new.grad = self.grad.clone()
        if type(self) is not Tensor:
            new = type(self)(new, requires_grad=self.requires_grad) if hasattr(type(self), '__new__') else new
        memo[id(self)] = new
        return new


def _subclass_repr(self):
    """torch prints a subclass with its class name in place of 'tensor(' (continuation lines re-indented)."""
    text = _C.TensorBase.__repr__(self)
    if not text.startswith('tensor('):
        return text
    name = type(self).__name__ + '('
    shift = len(name) - len('tensor(')
    lines = text[len('tensor('):].split('\n')
    lines = [lines[0]] + [(' ' * shift + ln) if shift >= 0 else ln[-shift:] for ln in lines[1:]]
    return name + '\n'.join(lines)


class _RemovableHandle:
    def __init__(self, tensor, hid):
        import weakref
        self._tensor = weakref.ref(tensor)
        self.id = hid

    def remove(self):
        t = self._tensor()
        if t is not None:
            t._remove_hook(self.id)


class _C_no_grad:
    def __enter__(self):
        self.prev = _C._set_grad_enabled(False)

    def __exit__(self, *a):
        _C._set_grad_enabled(self.prev)


_C._set_tensor_class(Tensor)


class _NumpyHolder:
    """What Tensor.numpy() hands numpy: the tensor's __array_interface__; numpy keeps it (and so the tensor) as the
    array's base while the array lives."""
    __slots__ = ('tensor', '__array_interface__')

    def __init__(self, t):
        self.tensor = t
        self.__array_interface__ = _C._numpy_interface(t)
from . import overrides as _overrides  # noqa: E402,F401  (torch._C.DisableTorchFunction, _disabled_torch_function_impl)
