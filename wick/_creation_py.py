"""Creation, dtypes and devices: the parts that are Python in torch (attached to wick.Tensor / exported as wick.*).

The semantics live in C (factories, tensor(), conversions, type promotion); this file only wires names:
Tensor.float()/double()/... are Tensor.to(dtype), Tensor.type(), .cpu()/.cuda(), .device, torch.finfo/iinfo,
torch.is_tensor and the names of dtypes wick does not have."""
import sys
import warnings

from . import _C
from ._device import device
from ._tensor import Tensor

__all__ = ['is_tensor', 'asarray', 'finfo', 'iinfo', 'get_default_device', 'set_default_device', 'layout', 'memory_format',
           'strided', 'sparse_coo', 'sparse_csr', 'contiguous_format', 'preserve_format', 'channels_last',
           'channels_last_3d', 'legacy_contiguous_format']


def is_tensor(obj):
    return isinstance(obj, Tensor)


# ---- pickling dtypes: the type is named torch.dtype (as torch's), so they pickle by a function of this module ----
def _rebuild_dtype(name):
    return getattr(_C, name)


_C.dtype.__reduce__ = lambda self: (_rebuild_dtype, (repr(self)[6:],))


# torch.Size is named torch.Size too: pickled by a function of this module (torch.save writes torch.Size itself)
def _rebuild_size(sizes):
    return _C.Size(sizes)


_C.Size.__reduce__ = lambda self: (_rebuild_size, (tuple(self),))


def _to_complex(self):
    if self.is_floating_point:
        raise RuntimeError('wick has no complex dtypes: %r has no complex counterpart in wick' % self)
    raise RuntimeError('Unknown Complex ScalarType for %s' % _SCALAR_NAMES[repr(self)[6:]])


_SCALAR_NAMES = {'bool': 'Bool', 'uint8': 'Byte', 'int8': 'Char', 'int16': 'Short', 'int32': 'Int', 'int64': 'Long'}
_C.dtype.to_complex = _to_complex


# ---- torch.layout / torch.memory_format tokens (wick has strided tensors only; memory formats are accepted) ----
class _Token:
    __slots__ = ('_name',)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.%s' instances" % cls.__name__)

    def __repr__(self):
        return 'torch.' + self._name

    __str__ = __repr__

    def __reduce__(self):
        return (_rebuild_token, (type(self).__name__, self._name))


class layout(_Token):
    __module__ = 'torch'
    __slots__ = ()


class memory_format(_Token):
    __module__ = 'torch'
    __slots__ = ()


def _token(cls, name):
    o = object.__new__(cls)
    object.__setattr__(o, '_name', name)
    return o


def _rebuild_token(kind, name):
    return globals()[name]


strided, sparse_coo, sparse_csr = (_token(layout, n) for n in ('strided', 'sparse_coo', 'sparse_csr'))
contiguous_format, preserve_format, channels_last, channels_last_3d = (
    _token(memory_format, n) for n in ('contiguous_format', 'preserve_format', 'channels_last', 'channels_last_3d'))
legacy_contiguous_format = contiguous_format  # torch's alias (the same object)
Tensor.layout = property(lambda self: strided)


# ---- Tensor.float() & co: Tensor.to(dtype), which returns self when the dtype already matches ----
def _caster(dt, name):
    def cast(self, memory_format=None):
        return self.to(dt)
    cast.__name__ = cast.__qualname__ = name
    return cast


for _name, _dt in [('float', _C.float32), ('double', _C.float64), ('half', _C.float16), ('bfloat16', _C.bfloat16),
                   ('long', _C.int64), ('int', _C.int32), ('short', _C.int16), ('char', _C.int8),
                   ('byte', _C.uint8), ('bool', _C.bool)]:
    setattr(Tensor, _name, _caster(_dt, _name))

# Tensor.type(): the legacy type name; Tensor.type(dtype or 'torch.XTensor'): a conversion.
_LEGACY = {}
for _dt in (_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float16, _C.bfloat16, _C.float32, _C.float64):
    _LEGACY[_dt] = 'torch.%sTensor' % {'bool': 'Bool', 'uint8': 'Byte', 'int8': 'Char', 'int16': 'Short',
                                      'int32': 'Int', 'int64': 'Long', 'float16': 'Half', 'bfloat16': 'BFloat16',
                                      'float32': 'Float', 'float64': 'Double'}[repr(_dt)[6:]]
_BY_LEGACY = {v: k for k, v in _LEGACY.items()}


def _type(self, dtype=None, non_blocking=False, **kwargs):
    if dtype is None:
        return _LEGACY[self.dtype]
    if isinstance(dtype, str):
        if dtype.startswith('torch.cuda.'):
            raise AssertionError('Torch not compiled with CUDA enabled')
        if dtype not in _BY_LEGACY:
            raise ValueError("invalid type: '%s'" % dtype)
        dtype = _BY_LEGACY[dtype]
    if isinstance(dtype, _LegacyTensorType):
        dtype = dtype.dtype
    if not isinstance(dtype, _C.dtype):
        raise TypeError('dtype must be a type, str, or dtype object')
    return self.to(dtype, non_blocking)


Tensor.type = _type
Tensor.itemsize = property(lambda self: self.element_size())
Tensor.nbytes = property(lambda self: self.numel() * self.element_size())


# ---- legacy tensor types: torch.FloatTensor([1, 2]), torch.LongTensor(2, 3), isinstance(x, torch.FloatTensor) ----
class _LegacyTensorType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __repr__(cls):
        return "<class 'torch.%s'>" % cls.__name__

    def __call__(cls, *args, device=None):
        if device is not None:
            _C.zeros(0, device=device)  # torch's device errors
        if not args:
            return _C.tensor([], dtype=cls.dtype)
        a0 = args[0]
        if len(args) == 1 and isinstance(a0, Tensor):
            if a0.dtype != cls.dtype:
                raise TypeError('expected %s (got %s)' % (_LEGACY[cls.dtype], _LEGACY[a0.dtype]))
            return a0.detach()
        if isinstance(a0, _C.Size) or all(isinstance(x, int) and not isinstance(x, bool) for x in args):
            return _C.empty(*args, dtype=cls.dtype)  # uninitialised in torch; wick's empty() is zeroed
        if len(args) > 1:
            raise TypeError('new() received an invalid combination of arguments')
        return _C.tensor(a0, dtype=cls.dtype)


for _dt, _legacy in list(_LEGACY.items()):
    _name = _legacy[len('torch.'):]
    globals()[_name] = _LegacyTensorType(_name, (), {'dtype': _dt, '__module__': 'torch'})
    __all__.append(_name)


def get_default_device():
    return device('cpu')


def set_default_device(dev):
    if dev is not None:
        _C.zeros(0, device=dev)  # torch's errors for devices wick does not have


# ---- devices ----
def _cpu(self, memory_format=None):
    return _C._to_device(self, 'cpu')


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError('Cannot access accelerator device when none is available.')
    if device is not None and str(device).startswith('cpu'):
        raise RuntimeError('Invalid device, must be cuda device')
    raise AssertionError('Torch not compiled with CUDA enabled')


def _get_device(self):
    return -1 if self.is_cpu else 0


Tensor.cpu = _cpu
Tensor.cuda = _cuda
Tensor.get_device = _get_device
def _device_of(self):
    d = _C._device_of(self)
    return device('cpu') if d == 'cpu' else device(*d.split(':')[:1], int(d.split(':')[1]))


Tensor.device = property(_device_of)
Tensor.is_cpu = property(lambda self: _C._device_of(self) == 'cpu')


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return _C._new_tensor(self, data, dtype=dtype, device=device, requires_grad=requires_grad)


Tensor.new_tensor = _new_tensor


# ---- torch.asarray: share obj's memory where it can (torch's tensor_new.cpp asarray, its cases in its order) ----
_asarray_rg_warned = [False]


def _asarray_check(name, v, ok, want):
    if v is not None and not ok(v):
        raise TypeError("asarray(): argument '%s' must be %s, not %s" % (name, want, type(v).__name__))


def asarray(*args, **kwargs):
    """torch.asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None)"""
    if len(args) > 1:
        raise TypeError('asarray() takes 1 positional argument but %d were given' % len(args))
    bad = set(kwargs) - {'obj', 'dtype', 'device', 'copy', 'requires_grad'}
    if bad:
        raise TypeError('asarray() got an unexpected keyword argument \'%s\'' % sorted(bad)[0])
    if args and 'obj' in kwargs:
        raise TypeError("asarray() got multiple values for argument 'obj'")
    if not args and 'obj' not in kwargs:
        raise TypeError('asarray() missing 1 required positional arguments: "obj"')
    obj = args[0] if args else kwargs['obj']
    dtype, dev, copy, requires_grad = (kwargs.get(k) for k in ('dtype', 'device', 'copy', 'requires_grad'))
    _asarray_check('dtype', dtype, lambda v: isinstance(v, _C.dtype), 'torch.dtype')
    _asarray_check('copy', copy, lambda v: isinstance(v, bool), 'bool')
    _asarray_check('requires_grad', requires_grad, lambda v: isinstance(v, bool), 'bool')
    _asarray_check('device', dev, lambda v: isinstance(v, (str, int, device)) and not isinstance(v, bool),
                   'torch.device')
    if dev is not None:
        dev = device(dev)
    force_copy, force_alias = copy is True, copy is False
    t = None
    np = sys.modules.get('numpy')
    if isinstance(obj, Tensor):
        t = obj
    elif np is not None and isinstance(obj, (np.ndarray, np.generic)):
        if not isinstance(obj, np.ndarray):  # a NumPy scalar: never aliased, a 0-d copy
            if force_alias:
                raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
            t = _C.from_numpy(np.asarray(obj)).clone()
            force_copy = False
        else:
            t = _C.from_numpy(obj)
    elif type(obj).__name__ == 'PyCapsule':
        raise NotImplementedError('torch.asarray: DLPack capsules are not supported yet in wick')
    else:
        try:
            memoryview(obj).release()
            is_buffer = True
        except TypeError:
            is_buffer = False
        if is_buffer:
            t = _C.frombuffer(obj, dtype=dtype if dtype is not None else _C.get_default_dtype())
    if t is None:  # a scalar or a sequence: always a new tensor
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = _C.tensor(obj, dtype=dtype, device=dev)
        if requires_grad:
            _asarray_set_requires_grad(t)
        return t
    rg = t.requires_grad if requires_grad is None else requires_grad
    if requires_grad is None and t.requires_grad and not _asarray_rg_warned[0]:
        _asarray_rg_warned[0] = True  # torch warns once per process
        warnings.warn('torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of '
                      'False. Pass requires_grad=False explicitly to get the old behavior and silence this warning.',
                      UserWarning, stacklevel=2)
    wrong_device = dev is not None and dev != t.device
    wrong_dtype = dtype is not None and dtype != t.dtype
    if force_copy or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            t = t.to(device=dev if dev is not None else t.device, dtype=dtype if dtype is not None else t.dtype,
                     copy=force_copy)
        else:
            t = t.clone()
    else:
        if wrong_device:
            raise ValueError("can't alias tensor from device '%s' to '%s'." % (t.device, dev))
        if wrong_dtype:
            raise ValueError("can't alias tensor with dtype '%s' into dtype '%s'." % (_SCALAR_TYPE[repr(t.dtype)[6:]],
                                                                                      _SCALAR_TYPE[repr(dtype)[6:]]))
    if not rg and t.requires_grad:
        if t.is_leaf:
            t.requires_grad_(False)
        else:
            t = t.detach()
    elif rg and not t.requires_grad:
        _asarray_set_requires_grad(t)
    return t


def _asarray_set_requires_grad(t):  # torch's set_requires_grad, whose message differs from requires_grad_()'s
    if not t.is_floating_point():
        raise RuntimeError('Only Tensors of floating point and complex dtype can require gradients')
    t.requires_grad_(True)


_SCALAR_TYPE = dict(_SCALAR_NAMES, float16='Half', bfloat16='BFloat16', float32='Float', float64='Double')


# ---- finfo / iinfo: machine limits, printed as torch prints them ----
class finfo:
    __module__ = 'torch'
    # dtype: (bits, eps, max, tiny, resolution)
    _F = {'float32': (32, 2.0 ** -23, (2 - 2.0 ** -23) * 2.0 ** 127, 2.0 ** -126, 1e-06),
          'float64': (64, 2.0 ** -52, 1.7976931348623157e+308, 2.0 ** -1022, 1e-15),
          'float16': (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 0.001),
          'bfloat16': (16, 2.0 ** -7, (2 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126, 0.01)}

    def __init__(self, *args, **kwargs):
        if 'type' in kwargs and not args and len(kwargs) == 1:
            args = (kwargs.pop('type'),)
        if kwargs.keys() - {'type'} and not args:
            raise TypeError('finfo() missing 1 required positional arguments: "type"')
        if len(args) > 1 or kwargs:
            got = ', '.join([_got_name(a) for a in args] + ['%s=%s' % (k, _got_name(v)) for k, v in kwargs.items()])
            raise TypeError('finfo() received an invalid combination of arguments - got (%s), but expected one of:\n'
                            ' * (torch.dtype type)\n * ()\n' % got)
        type = args[0] if args else _C.get_default_dtype()
        type = _PY_DTYPES.get(type, type) if builtin_type(type) is builtin_type else type
        if not isinstance(type, _C.dtype):
            raise TypeError("finfo(): argument 'type' (position 1) must be torch.dtype, not %s"
                            % builtin_type(type).__name__)
        name = repr(type)[6:]
        if name not in self._F:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        self.bits, self.eps, self.max, self.tiny, self.resolution = self._F[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __getattr__(self, name):  # the message names torch's C type
        raise AttributeError("'torch.finfo' object has no attribute %r" % name)

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return ('finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)'
                % (self.resolution, self.min, self.max, self.eps, self.smallest_normal, self.tiny, self.dtype))

    __str__ = __repr__


builtin_type = type


_PY_DTYPES = {float: _C.float64, int: _C.int64, bool: _C.bool}  # torch.finfo(float), torch.iinfo(int)


def _got_name(v):  # a type as torch's argument parser names it in 'got (...)'
    return 'torch.dtype' if isinstance(v, _C.dtype) else builtin_type(v).__name__


class iinfo:
    __module__ = 'torch'
    _I = {'uint8': (8, 0, 255), 'int8': (8, -128, 127), 'int16': (16, -32768, 32767),
          'int32': (32, -2 ** 31, 2 ** 31 - 1), 'int64': (64, -2 ** 63, 2 ** 63 - 1)}

    def __init__(self, *args, **kwargs):
        if 'type' in kwargs:
            if args:
                raise TypeError("iinfo() got multiple values for argument 'type'")
            args = (kwargs.pop('type'),)
        if not args:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        if len(args) > 1:
            raise TypeError('iinfo() takes 1 positional argument but %d were given' % len(args))
        type = args[0]
        type = _PY_DTYPES.get(type, type) if builtin_type(type) is builtin_type else type
        if not isinstance(type, _C.dtype):
            raise TypeError("iinfo(): argument 'type' (position 1) must be torch.dtype, not %s"
                            % builtin_type(type).__name__)
        name = repr(type)[6:]
        if name == 'bool':
            raise TypeError('torch.bool is not supported by torch.iinfo')
        if name not in self._I:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        self.bits, self.min, self.max = self._I[name]
        self.dtype = name

    def __getattr__(self, name):  # the message names torch's C type
        raise AttributeError("'torch.iinfo' object has no attribute %r" % name)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return 'iinfo(min=%g, max=%g, dtype=%s)' % (self.min, self.max, self.dtype)

    __str__ = __repr__


# ---- names of dtypes wick does not have: a clear AttributeError instead of a bare one ----
_MISSING_DTYPES = {
    'cfloat': 'complex64', 'cdouble': 'complex128', 'chalf': 'complex32', 'complex64': 'complex64',
    'complex128': 'complex128', 'complex32': 'complex32', 'uint16': 'uint16', 'uint32': 'uint32', 'uint64': 'uint64',
    'float8_e4m3fn': 'float8_e4m3fn', 'float8_e5m2': 'float8_e5m2', 'float8_e4m3fnuz': 'float8_e4m3fnuz',
    'float8_e5m2fnuz': 'float8_e5m2fnuz', 'qint8': 'qint8', 'quint8': 'quint8', 'qint32': 'qint32',
}


def _missing_attr(name):
    if name in _MISSING_DTYPES:
        return AttributeError(
            "module 'wick' has no attribute '%s': wick has no %s dtype (its dtypes are bool, uint8, int8, int16, "
            "int32, int64, float16, bfloat16, float32 and float64)" % (name, _MISSING_DTYPES[name]))
    return AttributeError("module 'wick' has no attribute '%s'" % name)


# ---- matrix products that are Python in torch (torch/functional.py, torch/_tensor.py) ----
def tensordot(a, b, dims=2, out=None):
    if not isinstance(dims, (tuple, list, Tensor, int)) or isinstance(dims, bool):
        raise RuntimeError('tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] '
                           'containing two lists, but got dims=%s' % (dims,))
    dims_a, dims_b = [], []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            assert dims.size()[0] == 2
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            d = int(dims.item())
            if d < 0:
                raise RuntimeError('tensordot expects dims >= 0, but got dims=%s' % (dims,))
            dims_a, dims_b = list(range(-d, 0)), list(range(d))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError('tensordot expects dims >= 0, but got dims=%s' % dims)
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError('tensordot expects dims < ndim_a or ndim_b, but got dims=%s' % dims)
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    if out is None:
        return _C.tensordot(a, b, dims_a, dims_b)
    return _C.tensordot(a, b, dims_a, dims_b, out=out)


def einsum(*args):
    if len(args) < 2:
        raise ValueError('einsum(): must specify the equation string and at least one operand, or at least one '
                         'operand and its subscripts list')
    if isinstance(args[0], Tensor):
        # sublist format: einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])
        def letter(n):
            if n == Ellipsis:
                return '...'
            if 0 <= n < 26:
                return chr(ord('A') + n)
            if 26 <= n < 52:
                return chr(ord('a') + n - 26)
            raise ValueError('einsum(): subscript in subscript list is not within the valid range [0, 52)')

        def parse(sub):
            return ''.join(letter(s) for s in sub)
        equation = ','.join(parse(s) for s in args[1::2])
        if len(args) % 2 == 1:
            equation += '->' + parse(args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _C.einsum(equation, list(operands))


def _matmul(self, other):  # a non-tensor operand: NotImplemented, so Python raises its TypeError (as torch)
    return _C.matmul(self, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul(self, other):
    return _C.matmul(other, self) if isinstance(other, Tensor) else NotImplemented


# x @= y: torch has no Tensor.__imatmul__, so Python rebinds x to x @ y
Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = _rmatmul
Tensor.__array_priority__ = 1000  # numpy defers to Tensor's reflected operators (ndarray @ tensor), as in torch
__all__ += ['tensordot', 'einsum']
