"""torch.device (Note [Devices] in pyext/convert.c).

Any device torch knows can be *named* (torch.device('cuda:1') constructs, prints and compares as in torch), and so
can wick's own 'webgpu'; 'cpu' and 'webgpu' (webgpu:0, where wick.webgpu.is_available()) hold tensors: factories,
.to() and .cuda() refuse the others with torch's CPU-build errors."""

_TYPES = ('cpu', 'cuda', 'ipu', 'xpu', 'mkldnn', 'opengl', 'opencl', 'ideep', 'hip', 've', 'fpga', 'maia', 'xla',
          'lazy', 'vulkan', 'mps', 'meta', 'hpu', 'mtia', 'privateuseone')


def _parse(s):
    """torch's device-string grammar ([a-zA-Z_]+)(:([1-9][0-9]*|0))? -> (type, index or None)."""
    n = 0
    while n < len(s) and (s[n].isascii() and s[n].isalpha() or s[n] == '_'):
        n += 1
    typ, rest = s[:n], s[n:]
    ok = n > 0
    idx = None
    if ok and rest:
        digits = rest[1:]
        ok = rest[0] == ':' and digits.isascii() and digits.isdigit() and (digits == '0' or digits[0] != '0')
        idx = int(digits) if ok else None
    if not ok:
        raise RuntimeError("Invalid device string: '%s'" % s)
    if typ not in _TYPES and typ != 'webgpu':  # wick's own device (wick.webgpu); torch's message lists torch's
        raise RuntimeError('Expected one of %s device type at start of device string: %s' % (', '.join(_TYPES), s))
    return typ, idx


_SIGS = ' * (torch.device device)\n * (str type, int index = -1)\n'


def _bad_args(got, mark=True):
    head = 'device() received an invalid combination of arguments - got (%s), but expected one of:\n' % got
    if not mark:
        return TypeError(head + _SIGS)
    return TypeError(head + ' * (torch.device device)\n      didn\'t match because some of the arguments have invalid '
                     'types: (!%s!)\n * (str type, int index = -1)\n' % got)


class device:
    __module__ = 'torch'
    __slots__ = ('_type', '_index')

    def __init__(self, *args, **kwargs):
        typ, index = self._from_args(args, kwargs)
        object.__setattr__(self, '_type', typ)
        object.__setattr__(self, '_index', index)

    @staticmethod
    def _from_args(args, kwargs):
        if not args and not kwargs:
            raise _bad_args('', mark=False)
        if len(args) == 1 and not kwargs and isinstance(args[0], device):
            return args[0].type, args[0].index
        if kwargs.keys() - {'type', 'index', 'device'} or len(args) > 2:
            raise _bad_args(', '.join([type(a).__name__ for a in args] + ['%s=%s' % (k, type(v).__name__)
                                                                          for k, v in kwargs.items()]), mark=False)
        if 'device' in kwargs:
            args = (kwargs['device'],) + args
        elif 'type' in kwargs:
            args = (kwargs['type'],) + args
        if 'index' in kwargs:
            args = args + (kwargs['index'],)
        typ = args[0]
        index = args[1] if len(args) > 1 else None
        if isinstance(typ, device):
            if len(args) > 1:
                raise TypeError("device(): argument 'type' (position 1) must be str, not torch.device")
            return typ.type, typ.index
        if isinstance(typ, int) and not isinstance(typ, bool) and len(args) == 1:
            if typ < 0:
                raise RuntimeError('Device index must not be negative')
            raise RuntimeError('Cannot access accelerator device when none is available.')
        if not isinstance(typ, str):
            raise _bad_args(type(typ).__name__)
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError("device(): argument 'index' (position 2) must be int, not %s" % type(index).__name__)
        t, i = _parse(typ)
        if index is not None:
            if i is not None:
                raise RuntimeError('type (string) must not include an index because index was passed explicitly: '
                                   + typ)
            if index < 0:
                raise RuntimeError('Device index must not be negative')
            i = index
        return t, i

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __setattr__(self, name, value):
        raise AttributeError("attribute '%s' of 'torch.device' objects is not writable" % name)

    def __repr__(self):
        if self._index is None:
            return "device(type='%s')" % self._type
        return "device(type='%s', index=%d)" % (self._type, self._index)

    def __str__(self):
        return self._type if self._index is None else '%s:%d' % (self._type, self._index)

    def __format__(self, spec):
        return format(str(self), spec)

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash((self._type, self._index))

    def __reduce__(self):  # by a function of this module: the class is named torch.device
        return (_rebuild_device, (self._type, self._index))

    # `with torch.device('cpu'):` sets the default device in torch; 'cpu' is already wick's only one.
    def __enter__(self):
        if self._type != 'cpu':
            from . import _C
            _C.zeros(0, device=self)  # raises torch's error for the device
        return self

    def __exit__(self, *exc):
        return False


def _rebuild_device(type, index):
    return device(type) if index is None else device(type, index)


CPU = device('cpu')
