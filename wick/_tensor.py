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
        if cls.__basicsize__ != Tensor.__basicsize__:   # __slots__: a __class__ assignment cannot change the layout
            if self.requires_grad:
                raise NotImplementedError('wick: Tensor.as_subclass to a subclass with __slots__ (%s) of a tensor '
                                          'that requires grad is not supported yet' % cls.__qualname__)
            return Tensor._make_subclass(cls, self)     # same data; nothing to keep in a graph
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
        if reduce is not Tensor.__reduce_ex__:
            fn, args = reduce(self, 4)[:2]
            return fn(*args)
        new = self.detach()
        if self.requires_grad:
            new.requires_grad_(True)
        if type(self) is not Tensor:
            new = _set_obj_state(new.as_subclass(type(self)), self.__getstate__())
        return new

    def __deepcopy__(self, memo):
        """copy.deepcopy as torch's: leaves only; views copied together keep sharing one (copied) storage, with
        their offsets and strides; requires_grad, grad (deep-copied) and Python attributes kept."""
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        import copy
        if type(self) is not Tensor:
            from . import overrides
            with overrides.DisableTorchFunctionSubclass():
                probe = self.new_empty([])
            if type(probe) is not type(self):   # torch's check, which a subclass without its own new_empty fails
                raise RuntimeError("The default implementation of __deepcopy__() for non-wrapper subclasses only "
                                   "works for subclass types that implement new_empty() and for which that function "
                                   "returns another instance of the same subclass. You should either properly "
                                   "implement new_empty() for your subclass or override __deepcopy__() if it is "
                                   "intended behavior for new_empty() to return an instance of a different type.")
        sid, _, offset = _C._storage_info(self)
        storages = memo.setdefault('torch', {})     # torch's storage memo: one copy per storage
        key = ('wick storage', sid, self.dtype)
        if key not in storages:
            storages[key] = _storage_copy(self)
        with _C_no_grad():
            new = _C._alias(storages[key], offset, tuple(self.shape), tuple(self.stride()))
        if self.requires_grad:
            new.requires_grad_(True)
        if self.grad is not None:
            new.grad = self.grad.__deepcopy__(memo)
        if type(self) is not Tensor:
            new = new.as_subclass(type(self))
            state = self.__getstate__()
            if state:
                _set_obj_state(new, copy.deepcopy(state, memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        """pickle as torch's: the whole storage's bytes with offset, sizes and strides (so a view brings its base's
        storage; storages are not shared between tensors of one pickle, as torch's), requires_grad (a non-leaf
        comes back a leaf), no grad, no hooks; a subclass or Python attributes through _rebuild_from_type_v2.
        wick's pickles name wick's functions: torch cannot read them, nor wick torch's (torch.save / torch.load
        write and read the format both share)."""
        args = _reduce_args(self)
        state = self.__getstate__()
        if type(self) is Tensor and not state:
            return (_rebuild_tensor_bytes, args)
        return (_rebuild_from_type_v2, (_rebuild_tensor_bytes, type(self), args, state))

    def __setstate__(self, state):
        if not self.is_leaf:
            raise RuntimeError("__setstate__ can be only called on leaf Tensors")
        _set_obj_state(self, state)


def _storage_copy(t):
    """A flat tensor holding a copy of the whole storage t views (shape: storage bytes / item size), on t's device."""
    flat = _C._tensor_from_bytes(_C._storage_bytes(t), t.dtype)
    device = _C._device_of(t)
    return flat if device == 'cpu' else _C._to_device(flat, device.split(':')[0])


def _reduce_args(t):
    """(storage bytes, dtype, device, storage offset, sizes, strides, requires_grad) of t; a storage that is not a
    whole number of t's items (a dtype view) is sent as t's contiguous bytes instead."""
    _, nbytes, offset = _C._storage_info(t)
    device = _C._device_of(t)
    if nbytes % t.element_size() == 0:
        return (_C._storage_bytes(t), t.dtype, device, offset, tuple(t.shape), tuple(t.stride()), t.requires_grad)
    c = t.detach().contiguous()
    return (_C._contiguous_bytes(c), t.dtype, device, 0, tuple(c.shape), tuple(c.stride()), t.requires_grad)


def _rebuild_tensor_bytes(data, dtype, device, offset, size, stride, requires_grad):
    flat = _C._tensor_from_bytes(data, dtype)
    if device != 'cpu':
        flat = _C._to_device(flat, device.split(':')[0])
    t = _C._alias(flat, offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: the subclass, then its state by its own __setstate__ or by setattr."""
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret.as_subclass(new_type)
    if getattr(ret.__class__, '__setstate__', Tensor.__setstate__) is not Tensor.__setstate__:
        ret.__setstate__(state)
    else:
        ret = _set_obj_state(ret, state)
    return ret


def _set_obj_state(obj, state):
    """torch._utils._set_obj_state: a (dict, slots) pair or a dict."""
    if isinstance(state, tuple):
        if not len(state) == 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots_state or {}).items():
        setattr(obj, k, v)
    return obj


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
