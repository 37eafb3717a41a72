"""torch.storage: UntypedStorage (the bytes under a tensor), TypedStorage (the legacy typed view, with torch's
deprecation warning) and the legacy classes FloatStorage, LongStorage, ...

A storage object holds a 1-D tensor over its whole buffer -- uint8 for UntypedStorage, the element type for
TypedStorage -- made with _C._alias, so it shares memory with every tensor of that storage: writes through one
are seen by the other, data_ptr() is the buffer's address. Tensor.untyped_storage() returns the same Python object
for the same storage while that object is alive, as torch does. What needs a storage wick cannot produce yet --
resize_ of a storage, shared memory, pinned memory, files -- raises NotImplementedError naming itself."""
import sys
import warnings
import weakref

_wick = sys.modules[__package__]

_live = weakref.WeakValueDictionary()   # storage id -> the UntypedStorage object over it


def _not_supported(what):
    return NotImplementedError(f"wick: {what} is not supported yet")


def _whole(t, dtype):
    """A 1-D tensor of dtype over all of t's storage (from byte 0)."""
    sid, nbytes, _ = _wick._C._storage_info(t)
    n = nbytes // t.element_size()
    base = _wick._C._alias(t, 0, (n,), (1,))
    return base if dtype == t.dtype else base.view(dtype)


def _fmt(storage, info):
    data = " " + "\n ".join(str(storage[i]) for i in range(storage.size()))
    return data + "\n" + info


class _StorageBase:
    is_sparse = False
    is_sparse_csr = False

    def __len__(self):
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def _index(self, idx, typed):
        """torch's storage indexing: negative from the end; out of range is an IndexError naming the index (the
        untyped storage names it after adding the size)."""
        n = self.size()
        i = idx + n if idx < 0 else idx
        if not 0 <= i < n:
            raise IndexError(f"index {idx if typed or idx >= 0 else i} out of range for storage of size {n}")
        return i

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)._wrap(self._data[idx])
        return self._data[self._index(idx, False)].item()

    def __setitem__(self, idx, value):
        if isinstance(self, UntypedStorage) and isinstance(idx, int) and not -self.size() <= idx < self.size():
            raise RuntimeError("out of bounds")
        with _wick.no_grad():
            self._data[idx] = value

    def tolist(self):
        return self._data.tolist()

    def data_ptr(self):
        return self._data.data_ptr()

    @property
    def device(self):
        return self._data.device

    @property
    def is_cuda(self):
        return False

    def is_shared(self):
        return False

    def is_pinned(self, device='cuda'):
        return False

    def cpu(self):
        return self

    def fill_(self, value):
        with _wick.no_grad():
            self._data.fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        with _wick.no_grad():
            self._data.copy_(source._data.view(self._data.dtype) if source._data.dtype != self._data.dtype and
                             source.nbytes() == self.nbytes() else source._data)
        return self

    def share_memory_(self):
        raise _not_supported("Storage.share_memory_ (storages in shared memory)")

    def pin_memory(self, device='cuda'):
        raise _not_supported("Storage.pin_memory")

    def resize_(self, size):
        raise _not_supported("Storage.resize_")

    @classmethod
    def from_file(cls, filename, shared=False, size=0):
        raise _not_supported("Storage.from_file")

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        raise _not_supported("pickling a storage by itself (pickle or torch.save the tensor)")


class UntypedStorage(_StorageBase):
    """The bytes of a tensor's buffer."""

    def __init__(self, *args, device=None):
        if len(args) == 1 and isinstance(args[0], _wick.Tensor) and getattr(args[0], '_storage_base', False):
            self._data = args[0]
            return
        if not args:
            data = _wick.empty(0, dtype=_wick.uint8, device=device)
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            data = _wick.zeros(args[0], dtype=_wick.uint8, device=device)
        elif len(args) == 1:
            data = _wick.tensor(list(args[0]), dtype=_wick.uint8, device=device)
        else:
            raise TypeError("UntypedStorage(): expected at most one positional argument (a size or a sequence)")
        self._data = data

    @classmethod
    def _wrap(cls, data):
        s = cls.__new__(cls)
        s._data = data
        return s

    @classmethod
    def _of(cls, t):
        sid = _wick._C._storage_info(t)[0]
        s = _live.get(sid)
        if s is None:
            s = cls._wrap(_whole(t, _wick.uint8))
            _live[sid] = s
        return s

    def nbytes(self):
        return self._data.numel()

    def size(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def dtype(self):
        return _wick.uint8

    def untyped(self):
        return self

    def clone(self):
        return UntypedStorage._wrap(self._data.clone())

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return 'torch.storage.UntypedStorage'
        raise _not_supported("UntypedStorage.type(dtype)")

    def _to(self, dtype):
        return TypedStorage(wrap=self._data.to(dtype))

    def double(self): return self._to(_wick.float64)  # noqa: E704
    def float(self): return self._to(_wick.float32)  # noqa: E704
    def half(self): return self._to(_wick.float16)  # noqa: E704
    def bfloat16(self): return self._to(_wick.bfloat16)  # noqa: E704
    def long(self): return self._to(_wick.int64)  # noqa: E704
    def int(self): return self._to(_wick.int32)  # noqa: E704
    def short(self): return self._to(_wick.int16)  # noqa: E704
    def char(self): return self._to(_wick.int8)  # noqa: E704
    def byte(self): return self._to(_wick.uint8)  # noqa: E704
    def bool(self): return self._to(_wick.bool)  # noqa: E704

    def __repr__(self):
        return _fmt(self, f"[torch.storage.UntypedStorage(device={self.device}) of size {self.size()}]")

    __str__ = __repr__


_removal_warned = []


def _warn_typed_storage_removal(stacklevel=2):
    if not _removal_warned:
        _removal_warned.append(True)
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=stacklevel + 1)


class TypedStorage:
    """The legacy typed view of a storage: elements of one dtype."""
    is_sparse = False
    _dtype = None   # the legacy subclasses fix their dtype

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, wrap=None, _internal=False):
        if not _internal and wrap is None:
            _warn_typed_storage_removal()
        dtype = self._dtype or dtype or _wick.get_default_dtype()
        if wrap is not None:                      # wick's own: a 1-D tensor over the storage
            self._data = wrap
            return
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage.__init__ received an invalid combination of arguments.\nNo "
                                   "positional arguments should be given when using 'wrap_storage'")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError("TypedStorage.__init__ received an invalid combination of arguments.\nArgument "
                                f"'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}")
            self._data = wrap_storage._data.view(dtype)
            return
        if not args:
            self._data = _wick.empty(0, dtype=dtype, device=device)
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            self._data = _wick.zeros(args[0], dtype=dtype, device=device)
        elif len(args) == 1:
            self._data = _wick.tensor(list(args[0]), dtype=dtype, device=device)
        else:
            raise TypeError("TypedStorage(): expected at most one positional argument (a size or a sequence)")

    @classmethod
    def _wrap(cls, data):
        s = cls.__new__(cls)
        s._data = data
        return s

    __len__ = _StorageBase.__len__
    __iter__ = _StorageBase.__iter__
    __setitem__ = _StorageBase.__setitem__

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._data[self._index(idx, True)].item()

    _index = _StorageBase._index

    tolist = _StorageBase.tolist
    data_ptr = _StorageBase.data_ptr
    device = _StorageBase.device
    is_cuda = _StorageBase.is_cuda
    is_shared = _StorageBase.is_shared
    is_pinned = _StorageBase.is_pinned
    cpu = _StorageBase.cpu
    fill_ = _StorageBase.fill_
    share_memory_ = _StorageBase.share_memory_
    pin_memory = _StorageBase.pin_memory
    resize_ = _StorageBase.resize_
    __reduce__ = _StorageBase.__reduce__

    @property
    def dtype(self):
        return self._data.dtype

    def size(self):
        return self._data.numel()

    def nbytes(self):
        return self._data.numel() * self._data.element_size()

    def element_size(self):
        return self._data.element_size()

    def untyped(self):
        return UntypedStorage._wrap(self._data.view(_wick.uint8) if self._data.dtype != _wick.uint8 else self._data)

    @property
    def _untyped_storage(self):
        return self.untyped()

    def clone(self):
        return type(self)._wrap(self._data.clone())

    def copy_(self, source, non_blocking=None):
        with _wick.no_grad():
            self._data.copy_(source._data)
        return self

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return 'torch.' + _LEGACY_NAMES[self._data.dtype]
        raise _not_supported("TypedStorage.type(dtype)")

    def _to(self, dtype):
        return TypedStorage(wrap=self._data.to(dtype))

    double, float, half, bfloat16 = UntypedStorage.double, UntypedStorage.float, UntypedStorage.half, \
        UntypedStorage.bfloat16
    long, int, short, char, byte, bool = UntypedStorage.long, UntypedStorage.int, UntypedStorage.short, \
        UntypedStorage.char, UntypedStorage.byte, UntypedStorage.bool

    def __repr__(self):
        return _fmt(self, f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                          f"{self.size()}]")

    __str__ = __repr__

    def __deepcopy__(self, memo):
        return self.clone()


_LEGACY = (('FloatStorage', 'float32'), ('DoubleStorage', 'float64'), ('HalfStorage', 'float16'),
           ('BFloat16Storage', 'bfloat16'), ('LongStorage', 'int64'), ('IntStorage', 'int32'),
           ('ShortStorage', 'int16'), ('CharStorage', 'int8'), ('ByteStorage', 'uint8'), ('BoolStorage', 'bool'))
_LEGACY_NAMES = {}
_LEGACY_CLASSES = {}
for _name, _dt in _LEGACY:
    _cls = type(_name, (TypedStorage,), {'_dtype': getattr(_wick, _dt), '__module__': 'torch'})
    globals()[_name] = _cls
    _LEGACY_NAMES[getattr(_wick, _dt)] = _name
    _LEGACY_CLASSES[getattr(_wick, _dt)] = _cls
UntypedStorage.__module__ = TypedStorage.__module__ = 'torch.storage'
_storage_classes = (UntypedStorage, TypedStorage) + tuple(_LEGACY_CLASSES.values())


def untyped_storage_of(t):
    return UntypedStorage._of(t)


def storage_of(t):
    _warn_typed_storage_removal(3)
    return TypedStorage(wrap=_whole(t, t.dtype), _internal=True)


def storage_type_of(t):
    _warn_typed_storage_removal(3)
    return _LEGACY_CLASSES[t.dtype]
