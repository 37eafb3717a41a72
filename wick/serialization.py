"""torch.save / torch.load in PyTorch's own file format, and safetensors.

A torch file is a zip archive (entries stored, not compressed, data aligned to 64 bytes):
    <prefix>/data.pkl        the object, pickled (protocol 2); tensors reduce to torch._utils._rebuild_tensor_v2
                             with their storage as a persistent id ('storage', torch.FloatStorage, key, 'cpu', numel)
    <prefix>/data/<key>      one record of raw little-endian bytes per storage (views share their base's record)
    <prefix>/.format_version, .storage_alignment, byteorder, version, .data/serialization_id
wick writes the same layout, so real torch loads what wick saves and wick loads what torch saves. Loading is
restricted to an allowlist by default (weights_only=True, as torch 2.6+): a file cannot name arbitrary callables."""
import io
import json
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

from . import _C
from ._tensor import Tensor

__all__ = ['save', 'load', 'add_safe_globals', 'get_safe_globals', 'clear_safe_globals', 'safe_globals',
           'save_safetensors', 'load_safetensors']

_DTYPE_STORAGE = [('float32', 'FloatStorage'), ('float64', 'DoubleStorage'), ('float16', 'HalfStorage'),
                  ('bfloat16', 'BFloat16Storage'), ('int64', 'LongStorage'), ('int32', 'IntStorage'),
                  ('int16', 'ShortStorage'), ('int8', 'CharStorage'), ('uint8', 'ByteStorage'),
                  ('bool', 'BoolStorage')]
_STORAGE_OF = {getattr(_C, d): s for d, s in _DTYPE_STORAGE}


class _StorageType:
    """A legacy storage class as a checkpoint names it (`torch FloatStorage`): what persistent_load reads of it is
    .dtype, as torch's (a dtype global such as `torch float32` in its place has no .dtype and is refused as torch)."""
    __slots__ = ('__name__', 'dtype')

    def __init__(self, name, dtype):
        self.__name__, self.dtype = name, dtype

    def __repr__(self):
        return "<class 'torch.%s'>" % self.__name__


_DTYPE_OF_STORAGE = {s: _StorageType(s, getattr(_C, d)) for d, s in _DTYPE_STORAGE}
_DTYPE_NAMES = {d: getattr(_C, d) for d, _ in _DTYPE_STORAGE}
_DTYPE_NAMES.update({'float': _C.float32, 'double': _C.float64, 'half': _C.float16, 'long': _C.int64,
                     'int': _C.int32, 'short': _C.int16})


# ------------------------------------------------------------------------------------------------ writing
class _Global:
    """A stand-in for a torch global (`torch FloatStorage`, `torch._utils _rebuild_tensor_v2`): pickled as a
    GLOBAL opcode naming torch's module and name, so that the file reads as torch's own."""
    _cache = {}

    def __new__(cls, module, name):
        key = (module, name)
        if key not in cls._cache:
            obj = super().__new__(cls)
            obj.module, obj.name = module, name
            cls._cache[key] = obj
        return cls._cache[key]

    def __call__(self, *args):   # pickle requires reduce functions to be callable; this one is only a name
        raise TypeError('%s.%s is a name in a torch file, not a function' % (self.module, self.name))


class _StorageRef:
    def __init__(self, key, storage_type, numel, location='cpu'):
        self.key, self.storage_type, self.numel, self.location = key, storage_type, numel, location


class _Pickler(pickle._Pickler):
    def __init__(self, file, records):
        super().__init__(file, protocol=2)
        self.records = records       # storage id -> (key, bytes)
        self.storage_keys = {}

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ('storage', obj.storage_type, obj.key, obj.location, obj.numel)
        return None

    def save_global(self, obj, name=None):
        if isinstance(obj, type) and obj.__module__.split('.')[0] == 'torch':
            # wick's nn classes carry torch's module names (torch.nn.modules.container, ...) so that real torch
            # finds its own classes; pickle's identity check would import real torch and fail
            g = _Global(obj.__module__, obj.__qualname__)
            self.write(pickle.GLOBAL + bytes(g.module, 'utf-8') + b'\n' + bytes(g.name, 'utf-8') + b'\n')
            self.memoize(obj)
            return
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + bytes(obj.module, 'utf-8') + b'\n' + bytes(obj.name, 'utf-8') + b'\n')
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def _storage_ref(self, t):
        sid, nbytes, _ = _C._storage_info(t)
        if sid not in self.storage_keys:
            key = str(len(self.storage_keys))
            self.storage_keys[sid] = key
            self.records[key] = _C._storage_bytes(t)   # a device storage's bytes are copied to the host
        esize = t.element_size()
        return _StorageRef(self.storage_keys[sid], _Global('torch', _STORAGE_OF[t.dtype]), nbytes // esize,
                           _C._device_of(t))   # torch's location tag: 'cpu', 'webgpu:0' (as 'cuda:0')

    def reducer_override(self, obj):
        from .nn.modules.module import Module
        from .nn.parameter import Parameter
        if isinstance(obj, _Global):
            return NotImplemented
        if isinstance(obj, Module) and type(obj).__reduce_ex__ is Module.__reduce_ex__:
            # pickle's own reduction (copyreg.__newobj__ of the class, by torch's name), not wick's plain-pickle one
            return object.__reduce_ex__(obj, 2)
        if isinstance(obj, Tensor):
            _, _, offset = _C._storage_info(obj)
            args = (self._storage_ref(obj), offset, tuple(obj.size()), tuple(obj.stride()),
                    obj.requires_grad if not isinstance(obj, Parameter) else False, OrderedDict())
            rebuilt = (_Global('torch._utils', '_rebuild_tensor_v2'), args)
            if isinstance(obj, Parameter):
                return (_Global('torch._utils', '_rebuild_parameter'),
                        (_Reduced(*rebuilt), obj.requires_grad, OrderedDict()))
            return rebuilt
        if isinstance(obj, _C.Size):
            return (_Global('torch', 'Size'), (tuple(obj),))
        if type(obj).__name__ == 'device' and type(obj).__module__ == 'torch':
            return (_Global('torch', 'device'), (str(obj),))
        return NotImplemented

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _C.dtype):           # torch pickles dtypes as the globals torch.float32, ...
            obj = _Global('torch', str(obj).split('.')[1])
        if isinstance(obj, _Global):
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
            else:
                self.save_global(obj)
            return
        if isinstance(obj, _Reduced):
            self.save_reduce(obj.fn, obj.args)
            return
        super().save(obj, save_persistent_id)


class _Reduced:
    """A reduce tuple nested inside another (a Parameter's data tensor)."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args


def _write_zip(f, prefix, data_pkl, records):
    """Stored entries, each payload aligned to 64 bytes with torch's 'FB' extra-field padding."""
    def add(z, name, payload):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        offset = z.fp.tell()
        header = 30 + len(name.encode('utf-8')) + 4
        pad = (64 - (offset + header) % 64) % 64
        info.extra = b'FB' + struct.pack('<H', pad) + b'Z' * pad
        z.writestr(info, payload)

    with zipfile.ZipFile(f, 'w', zipfile.ZIP_STORED) as z:
        add(z, prefix + '/data.pkl', data_pkl)
        add(z, prefix + '/.format_version', b'1')
        add(z, prefix + '/.storage_alignment', b'64')
        add(z, prefix + '/byteorder', b'little')
        for key, payload in records.items():
            add(z, prefix + '/data/' + key, payload)
        add(z, prefix + '/version', b'3\n')
        add(z, prefix + '/.data/serialization_id', _serialization_id(data_pkl, records))


def _serialization_id(data_pkl, records):
    import hashlib
    h = hashlib.sha1(data_pkl)
    for k, v in records.items():
        h.update(k.encode())
        h.update(v)
    return str(int(h.hexdigest(), 16) % 10 ** 40).zfill(40).encode()


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    if not _use_new_zipfile_serialization:
        raise NotImplementedError('wick: the legacy (pre-1.6, non-zip) torch.save format is not supported')
    if pickle_protocol != 2:
        raise NotImplementedError('wick: torch.save supports pickle protocol 2 (the default)')
    records = {}
    buf = io.BytesIO()
    p = _Pickler(buf, records)
    p.dump(obj)
    if isinstance(f, (str, os.PathLike)):
        prefix = os.path.splitext(os.path.basename(os.fspath(f)))[0] or 'archive'
        with open(f, 'wb') as fh:
            _write_zip(fh, prefix, buf.getvalue(), records)
    else:
        _write_zip(f, 'archive', buf.getvalue(), records)


# ------------------------------------------------------------------------------------------------ reading
def _is_int(v):
    return type(v) is int   # torch's parser: a Python int, not a bool or a float


def _pydesc(v):
    """How torch's argument parser names a value's type in its 'invalid combination' message."""
    if isinstance(v, tuple):
        names = [type(x).__name__ for x in v]
        return 'tuple of (%s%s)' % (', '.join(names), ',' if len(names) == 1 else '')
    if isinstance(v, list):
        return 'list of [%s]' % ', '.join(type(x).__name__ for x in v)
    return type(v).__name__


def _set_args(storage_offset, size, stride):
    """The (storage_offset, size, stride) torch's rebuild passes to Tensor.set_, checked as set_'s parser does:
    an int offset, tuples/lists of ints (stride may be None: contiguous); TypeError with torch's text otherwise."""
    def int_list(v):   # torch's parser looks at the first element to pick the overload, then unpacks the rest
        return isinstance(v, (tuple, list)) and (len(v) == 0 or _is_int(v[0]))
    if not (_is_int(storage_offset) and int_list(size) and (stride is None or int_list(stride))):
        got = ', '.join(['torch.storage.UntypedStorage'] + [type(a).__name__ for a in (storage_offset, size, stride)])
        marks = ', '.join(['!torch.storage.UntypedStorage!'] + ['!%s!' % _pydesc(a) if k else _pydesc(a) for k, a in
                                                                 ((not _is_int(storage_offset), storage_offset),
                                                                  (True, size), (True, stride))])
        over = (" * (%s source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n      didn't "
                "match because some of the arguments have invalid types: (%s)\n")
        raise TypeError('set_() received an invalid combination of arguments - got (%s), but expected one of:\n'
                        ' * ()\n * (torch.Storage source)\n%s * (Tensor source)\n%s'
                        % (got, over % ('torch.Storage', marks), over % ('Tensor', marks)))
    for name, v in (('size', size), ('stride', stride)):
        for i, x in enumerate(v or ()):
            if not _is_int(x):
                raise TypeError('set_(): argument \'%s\' failed to unpack the object at pos %d with error "type must '
                                'be tuple of ints,but got %s"' % (name, i + 1, type(x).__name__))
    if stride is None:   # set_'s default: contiguous
        stride, acc = [], 1
        for n in reversed(size):
            stride.insert(0, acc)
            acc *= max(n, 1)
    return storage_offset, tuple(size), tuple(stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    if not isinstance(requires_grad, bool):
        raise RuntimeError('requires_grad must be a bool')
    t = _C._alias(storage, *_set_args(storage_offset, size, stride))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _C._alias(storage, *_set_args(storage_offset, size, stride))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    for k, v in (state or {}).items():
        setattr(p, k, v)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: a tensor saved with its Python subclass or its Python attributes."""
    ret = func(*args)
    if type(ret) is not new_type or state:
        raise NotImplementedError('wick: loading a tensor saved with a Python subclass (%s) or Python attributes '
                                  'is not supported yet' % getattr(new_type, '__qualname__', new_type))
    return ret


def _unsupported_rebuild(name):
    def f(*args, **kwargs):
        raise NotImplementedError('wick: torch._utils.%s (in this file) is not supported yet' % name)
    f.__name__ = f.__qualname__ = name
    return f


_REBUILD_FUNCTIONS = [_rebuild_tensor, _rebuild_tensor_v2, _rebuild_parameter, _rebuild_parameter_with_state] + [
    _unsupported_rebuild(n) for n in ('_rebuild_qtensor', '_rebuild_tensor_v3', '_rebuild_sparse_tensor',
                                      '_rebuild_meta_tensor_no_storage', '_rebuild_nested_tensor',
                                      '_rebuild_wrapper_subclass', '_rebuild_device_tensor_from_numpy',
                                      '_rebuild_device_tensor_from_cpu_tensor')]


def _codecs_encode(s, encoding='latin1'):
    import codecs
    return codecs.encode(s, encoding)


def _torch_globals():
    """What a full (weights_only=False) load maps torch's names onto; the rest goes through wick.* or pickle."""
    from . import _weights_only_unpickler as W
    table = {tuple(k.rsplit('.', 1)): v for k, v in W._get_allowed_globals().items()}
    table.update({('builtins', 'frozenset'): frozenset, ('builtins', 'slice'): slice, ('builtins', 'range'): range})
    return table


def add_safe_globals(safe_globals):
    from . import _weights_only_unpickler as W
    W._add_safe_globals(safe_globals)


def get_safe_globals():
    from . import _weights_only_unpickler as W
    return W._get_safe_globals()


def clear_safe_globals():
    from . import _weights_only_unpickler as W
    W._clear_safe_globals()


class safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        from . import _weights_only_unpickler as W
        W._add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        from . import _weights_only_unpickler as W
        W._remove_safe_globals(self.safe_globals)


UNSAFE_MESSAGE = (
    'In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` '
    'to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result '
    'in arbitrary code execution. Do it only if you got the file from a trusted source.')
_DOCS = ('\n\nCheck the documentation of torch.load to learn more about types accepted by default with weights_only '
         'https://pytorch.org/docs/stable/generated/torch.load.html.')


def _get_wo_message(message):
    """torch.load's wrapping of a weights-only UnpicklingError (torch/serialization.py, word for word)."""
    import re
    has_unsafe_global = re.search(r"GLOBAL (\S+) was not an allowed global by default.", message) is not None
    has_blocklist = re.search(r"whose module (\S+) is blocked", message) is not None
    has_import = re.search(r"(\S+) must be (\S+) to load", message) is not None
    if has_unsafe_global:
        updated_message = (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message)
    else:
        if has_import:
            return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
        updated_message = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not has_blocklist:
            updated_message += ("Please file an issue with the following so that we can make "
                                "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
        updated_message += "\n\n" + message
    return updated_message + _DOCS


class _Storages:
    """persistent_load for both unpicklers: ('storage', dtype, key, location, numel) -> a flat tensor of the record's
    bytes (byte-swapped when the archive says big-endian), one per key (views share it)."""

    def __init__(self, zf, prefix, byteorder, check_location=True):
        self.zf, self.prefix, self.byteorder, self.check_location = zf, prefix, byteorder, check_location
        self.loaded = {}

    def __call__(self, pid):
        # torch's persistent_load, step for step: its AssertionError / IndexError / ValueError / AttributeError
        if not isinstance(pid, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(pid).__name__}")
        typename = pid[0].decode('ascii') if isinstance(pid[0], bytes) else pid[0]
        if typename != 'storage':
            raise AssertionError(f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'")
        storage_type, key, location, numel = pid[1:]
        dtype = storage_type.dtype
        if not isinstance(dtype, _C.dtype):
            raise RuntimeError('wick: unsupported storage type in the file: %r' % (storage_type,))
        if self.check_location and not isinstance(location, (str, bytes)):   # torch matches it with a regex
            raise TypeError("expected string or bytes-like object, got '%s'" % type(location).__name__)
        if isinstance(location, bytes):
            location = location.decode('ascii')
        nbytes = numel * _elem_size(dtype)
        if type(nbytes) is not int or not 0 <= nbytes < 2 ** 64:   # torch's reader takes a size_t byte count
            raise TypeError('get_storage_from_record(): incompatible function arguments. The following argument types '
                            'are supported:\n    1. (self: torch._C.PyTorchFileReader, arg0: str, arg1: typing.SupportsInt'
                            ' | typing.SupportsIndex, arg2: object) -> torch.Tensor\n\nInvoked with: <wick reader>, '
                            "'data/%s', %r, <class 'torch.storage.UntypedStorage'>" % (key, nbytes))
        key = str(key)
        on_device = self.check_location and location == 'webgpu:0'   # restored there, as torch restores cuda:0
        if self.check_location and location != 'cpu' and not on_device:   # torch's default_restore_location
            if isinstance(location, str) and location.startswith('cuda'):
                raise RuntimeError('Attempting to deserialize object on a CUDA device but torch.cuda.is_available() '
                                   'is False. If you are running on a CPU-only machine, please use torch.load with '
                                   "map_location=torch.device('cpu') to map your storages to the CPU.")
            raise RuntimeError("don't know how to restore data location of torch.storage.UntypedStorage (tagged "
                               'with %s)' % (location,))
        if key not in self.loaded:
            name = '%s/data/%s' % (self.prefix, key)
            try:
                payload = _record(self.zf, name)
            except KeyError:
                raise RuntimeError('PytorchStreamReader failed locating file data/%s: file not found. This is an '
                                   'internal miniz error. If you are seeing this error, there is a high likelihood '
                                   'that your checkpoint file is corrupted. This can happen if the checkpoint was '
                                   'not saved properly, was transferred incorrectly, or the file was modified after '
                                   'saving.' % key) from None
            esz = _elem_size(dtype)
            if len(payload) != nbytes:
                raise RuntimeError('record size (%d bytes) does not match expected size (%d bytes = %d elements * 1 '
                                   'bytes/element) for dtype Byte' % (len(payload), nbytes, nbytes))
            if self.byteorder == 'big' and esz > 1:
                payload = _byteswap(payload, esz)
            self.loaded[key] = _C._tensor_from_bytes(payload, dtype)
            if on_device:
                self.loaded[key] = _C._to_device(self.loaded[key], 'webgpu')
        return self.loaded[key]


def _elem_size(dtype):
    return _C._tensor_from_bytes(b'', dtype).element_size()


def _byteswap(payload, esz):
    """Reverse the bytes of every esz-byte element (a big-endian record read on a little-endian machine)."""
    b = bytearray(payload)
    for k in range(esz):
        b[k::esz] = payload[esz - 1 - k::esz]
    return bytes(b)


class _Unpickler(pickle.Unpickler):
    """weights_only=False: pickle's unpickler, torch's names mapped onto wick's (a full-model pickle runs code)."""

    def __init__(self, file, storages, **kwargs):
        super().__init__(file, **kwargs)
        self.persistent_load = storages
        self.table = _torch_globals()

    def find_class(self, module, name):
        if (module, name) in self.table:
            return self.table[(module, name)]
        if module.startswith('torch'):   # a full-model pickle from torch: map torch.* onto wick.*
            import importlib
            try:
                mod = importlib.import_module('wick' + module[len('torch'):])
                return getattr(mod, name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError('wick has no equivalent of %s.%s needed by this file' % (module, name))
        return super().find_class(module, name)


def _check_map_location(map_location):
    if map_location is None:
        return
    from ._device import device
    if callable(map_location) and not isinstance(map_location, (str, device)):
        return
    locs = map_location.values() if isinstance(map_location, dict) else [map_location]
    for loc in locs:
        if str(device(loc) if not isinstance(loc, device) else loc).split(':')[0] != 'cpu':
            from . import zeros
            zeros(1).to(loc)  # raises the missing-device error


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    import warnings
    from . import _weights_only_unpickler as W
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None   # torch's _default_to_weights_only
    true_values = ['1', 'y', 'yes', 'true']
    force_weights_only_load = os.getenv('TORCH_FORCE_WEIGHTS_ONLY_LOAD', '0').lower() in true_values
    force_no_weights_only_load = os.getenv('TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD', '0').lower() in true_values
    if force_weights_only_load and force_no_weights_only_load:
        raise RuntimeError('Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` '
                           'should be set, but both were set.')
    elif force_weights_only_load:
        weights_only = True
    elif force_no_weights_only_load and weights_only_not_set:
        warnings.warn('Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` '
                      'argument was not explicitly passed to `torch.load`, forcing weights_only=False.', UserWarning,
                      stacklevel=2)
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError('Can not safely load weights when explicit pickle_module is specified')
    if pickle_load_args != {} and weights_only:
        warnings.warn('pickle_load_args only works if `weights_only=False`.', stacklevel=2)
    if 'encoding' not in pickle_load_args:
        pickle_load_args['encoding'] = 'utf-8'
    _check_map_location(map_location)
    opened = isinstance(f, (str, os.PathLike))
    fh = open(f, 'rb') if opened else f
    try:
        if not zipfile.is_zipfile(fh):
            fh.seek(0)
            magic = fh.read(8)
            raise NotImplementedError('wick: this file is not a zip-format torch checkpoint (legacy torch.save '
                                      'format or not a checkpoint at all); first bytes %r' % magic)
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            names = zf.namelist()
            pkl = [n for n in names if n.endswith('/data.pkl') and n.count('/') == 1]
            if not pkl:
                raise RuntimeError('PytorchStreamReader failed locating file data.pkl: file not found')
            prefix = pkl[0].split('/')[0]
            _check_archive(zf, names, prefix)
            byteorder = _byteorder(zf, prefix)
            if prefix + '/.storage_alignment' in names:
                int(_record(zf, prefix + '/.storage_alignment'))   # torch parses it (ValueError on junk)
            data = _record(zf, pkl[0])
            storages = _Storages(zf, prefix, byteorder, check_location=map_location is None)
            if weights_only:
                u = W.Unpickler(io.BytesIO(data), encoding=pickle_load_args['encoding'])
                u.persistent_load = storages
                try:
                    return u.load()
                except pickle.UnpicklingError as e:
                    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
            return _Unpickler(io.BytesIO(data), storages, **pickle_load_args).load()
    finally:
        if opened:
            fh.close()


def _record(zf, name):
    """A record's bytes. An entry the zip marks as a directory (a name ending in '/', or the DOS directory attribute
    0x10 in its external attributes) with data in it is refused: torch's reader (miniz) skips a directory's data and
    hands back an uninitialised buffer of its size, so torch loads other bytes on each read."""
    info = zf.getinfo(name)   # KeyError when absent, as zf.read
    if info.file_size and (info.filename.endswith('/') or info.external_attr & 0x10):
        raise RuntimeError('wick: the zip marks the record %s (%d bytes) as a directory; torch reads uninitialised '
                           'memory for such a record, wick refuses the file' % (name, info.file_size))
    return zf.read(name)


def _check_archive(zf, names, prefix):
    """What torch's C++ reader (caffe2 inline_container.cc) checks before it reads a record."""
    import re
    for n in names:
        if not n.startswith(prefix + '/'):
            raise RuntimeError('[enforce fail at inline_container.cc:340] . file in archive is not in a subdirectory '
                               '%s/: %s' % (prefix, n))
    if prefix + '/.data/serialization_id' in names:
        _record(zf, prefix + '/.data/serialization_id').decode('utf-8')   # torch decodes it (UnicodeDecodeError)
    vname = prefix + '/.data/version' if prefix + '/.data/version' in names else prefix + '/version'
    if vname not in names:
        raise RuntimeError('Expected hasRecord("version") to be true, but got false.  (Could this error '
                           'message be improved?  If so, please report an enhancement request to PyTorch.)')
    text = _record(zf, vname).decode('latin1')
    m = re.match(r'\s*[+-]?\d+', text)
    if not m:
        raise RuntimeError("[enforce fail at inline_container.cc:215] . Couldn't parse the version %s as Long Long."
                           % text)
    v = int(m.group(0))
    if v < 1:
        raise RuntimeError('[enforce fail at inline_container.cc:219] . Attempted to read a PyTorch file with version '
                           '%d, but the minimum supported version for reading is 1. Your PyTorch script module file '
                           'is too old. Please regenerate it with latest version of PyTorch to mitigate this issue.'
                           % v)
    if v > 10:
        raise RuntimeError('[enforce fail at inline_container.cc:230] . Attempted to read a PyTorch file with version '
                           '%d, but the maximum supported version for reading is 10. The version of your PyTorch '
                           'installation may be too old, please upgrade PyTorch to latest version to mitigate this '
                           'issue.' % v)


def _byteorder(zf, prefix):
    """archive/byteorder: 'little' or 'big' (absent in files older than torch 1.13: little), as torch's _load."""
    try:
        order = _record(zf, prefix + '/byteorder')
    except KeyError:
        return 'little'
    if order not in (b'little', b'big'):
        raise ValueError('Unknown endianness type: ' + order.decode())
    return order.decode()


# safetensors: wick/_safetensors.py (Note [Reading safetensors as the reference does])
from ._safetensors import SafetensorError, load_safetensors, save_safetensors  # noqa: E402,F401
