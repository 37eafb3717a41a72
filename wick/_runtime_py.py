"""torch's process-level utilities in the torch namespace: the sym_* helpers (on plain Python numbers: wick has no
symbolic shapes, so each is torch's non-symbolic branch), typename, is_storage, and the deterministic-algorithms
switches (use_deterministic_algorithms, set/get_deterministic_debug_mode, torch.utils.deterministic's
fill_uninitialized_memory).

While deterministic algorithms are on and fill_uninitialized_memory is set (its default), torch fills the memory
its uninitialised factories return -- empty, empty_like, empty_strided, Tensor.new_empty / new_empty_strided, and
the part of a storage that resize_ grows -- with NaN for floating dtypes and the largest value for integer ones
(True for bool). wick does the same by wrapping those factories while the mode is on. wick's CPU kernels are
deterministic already, so no op raises or warns under the mode."""
import builtins
import math
import sys

from ._tensor import Tensor

_wick = sys.modules[__package__]


def _types():
    try:
        import numpy as np
        return (np.integer, np.floating, builtins.int, builtins.float), (np.floating, builtins.float)
    except ModuleNotFoundError:
        return (builtins.int, builtins.float), (builtins.float,)


def sym_int(a):
    return builtins.int(a)


def sym_float(a):
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def _sym_minmax(pick):
    def fn(a, b):
        all_types, float_types = _types()
        if not isinstance(a, all_types):
            raise AssertionError(f"expected {all_types}, got {type(a)}")
        if not isinstance(b, all_types):
            raise AssertionError(f"expected {all_types}, got {type(b)}")
        if isinstance(a, float_types) or isinstance(b, float_types):
            return builtins.float(pick(a, b))
        return pick(a, b)
    return fn


sym_max = _sym_minmax(builtins.max)
sym_min = _sym_minmax(builtins.min)
sym_max.__name__, sym_min.__name__ = 'sym_max', 'sym_min'


def sym_not(a):
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def sym_ite(b, t, f):
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


def typename(obj, /):
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module == 'wick' or module.startswith('wick.'):
        module = 'torch' + module[4:]   # wick's own objects are named as torch's (most carry torch's __module__)
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


def is_storage(obj, /):
    st = sys.modules.get(__package__ + '.storage')   # no storage object exists before wick.storage is loaded
    return st is not None and type(obj) in st._storage_classes


# ---- deterministic algorithms
_state = {'on': False, 'warn_only': False, 'fill': True}
_originals = {}


def _bool_arg(fname, name, pos, v):
    if not isinstance(v, builtins.bool):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{fname}(): argument '{name}'{where} must be bool, not {type(v).__name__}")


def _fill_value(dtype):
    if dtype.is_floating_point:
        return math.nan
    if dtype == _wick.bool:
        return True
    return _wick.iinfo(dtype).max


def _filled(fn):
    def wrapper(*args, **kwargs):
        t = fn(*args, **kwargs)
        if _state['on'] and _state['fill']:
            with _wick.no_grad():
                t.fill_(_fill_value(t.dtype))
        return t
    wrapper.__name__ = wrapper.__qualname__ = fn.__name__
    wrapper.__module__ = getattr(fn, '__module__', None)
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _resize_filled(fn):
    def resize_(self, *sizes, **kwargs):
        before = _wick._C._storage_info(self)[1]
        r = fn(self, *sizes, **kwargs)
        if _state['on'] and _state['fill']:
            # torch fills the bytes the storage grew by (storage elements old..new), not the tensor's new tail
            old, new = before // self.element_size(), _wick._C._storage_info(self)[1] // self.element_size()
            if new > old:
                with _wick.no_grad():
                    _wick.as_strided(self, (new - old,), (1,), old).fill_(_fill_value(self.dtype))
        return r
    resize_.__doc__ = fn.__doc__
    return resize_


_WRAPPED = (('empty', _filled), ('empty_like', _filled), ('empty_strided', _filled))
_WRAPPED_METHODS = (('new_empty', _filled), ('new_empty_strided', _filled), ('resize_', _resize_filled))


def _install(on):
    if on and not _originals:
        for name, wrap in _WRAPPED:
            _originals[('torch', name)] = getattr(_wick, name)
            setattr(_wick, name, wrap(getattr(_wick, name)))
        for name, wrap in _WRAPPED_METHODS:
            _originals[('Tensor', name)] = Tensor.__dict__.get(name, getattr(Tensor, name))
            setattr(Tensor, name, wrap(getattr(Tensor, name)))
    elif not on and _originals:
        for (where, name), f in _originals.items():
            setattr(_wick if where == 'torch' else Tensor, name, f)
        _originals.clear()


def _set_deterministic_algorithms(mode, *, warn_only=False):
    _bool_arg('_set_deterministic_algorithms', 'mode', 1, mode)
    _bool_arg('_set_deterministic_algorithms', 'warn_only', 0, warn_only)
    _state['on'], _state['warn_only'] = mode, mode and warn_only
    _install(mode)


def use_deterministic_algorithms(mode, *, warn_only=False):
    _set_deterministic_algorithms(mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    return _state['on']


def is_deterministic_algorithms_warn_only_enabled():
    return _state['warn_only']


def set_deterministic_debug_mode(debug_mode):
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        named = {'default': 0, 'warn': 1, 'error': 2}
        if debug_mode not in named:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = named[debug_mode]
    if debug_mode == 0:
        _set_deterministic_algorithms(False)
    elif debug_mode == 1:
        _set_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _set_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode():
    if _state['on']:
        return 1 if _state['warn_only'] else 2
    return 0


def _get_fill_uninitialized_memory():
    return _state['fill']


def _set_fill_uninitialized_memory(mode):
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
    _state['fill'] = mode


# ---- build and thread facts
_interop = {'threads': None}


def get_num_interop_threads():
    """wick runs no inter-op pool; the count torch would use by default (the machine's cores) is reported."""
    if _interop['threads'] is None:
        import os
        return len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1)
    return _interop['threads']


def set_num_interop_threads(num):
    if isinstance(num, bool) or not isinstance(num, int):
        raise TypeError(f"set_num_interop_threads(): argument 'num' (position 1) must be int, not {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    if _interop['threads'] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop['threads'] = num


def init_num_threads():
    return None


has_lapack = False    # wick's linear algebra is its own C, not LAPACK
has_mkl = False
has_openmp = False    # wick's thread pool is its own (pthreads)
has_spectral = False  # no torch.fft yet


def is_vulkan_available():
    return False


def get_device(input, /):
    return input.get_device()


def set_flush_denormal(mode):
    """torch sets the CPU's flush-to-zero mode and returns True where it can; wick does not change the FPU mode,
    so it returns False, the documented answer for 'not supported'."""
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def set_anomaly_enabled(enabled, check_nan=True):
    _bool_arg('set_anomaly_enabled', 'enabled', 1, enabled)
    _bool_arg('set_anomaly_enabled', 'check_nan', 2, check_nan)
    from .autograd import _anomaly
    _anomaly[0], _anomaly[1] = enabled, check_nan


for _f in (get_num_interop_threads, set_num_interop_threads, init_num_threads, is_vulkan_available, get_device,
           set_flush_denormal, set_anomaly_enabled):
    _f.__module__ = 'torch'
    setattr(_wick, _f.__name__, _f)
_wick.has_lapack, _wick.has_mkl, _wick.has_openmp, _wick.has_spectral = has_lapack, has_mkl, has_openmp, has_spectral




for _f in (sym_int, sym_float, sym_max, sym_min, sym_not, sym_ite, sym_sum, sym_sqrt, typename, is_storage,
           use_deterministic_algorithms, are_deterministic_algorithms_enabled,
           is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
           get_deterministic_debug_mode):
    _f.__module__ = 'torch'
    _f.__qualname__ = _f.__name__
    setattr(_wick, _f.__name__, _f)


# ---- symbolic-shape classes and helpers: wick's sizes are plain ints (as torch's in eager mode), so no object is
# ever a SymInt / SymFloat / SymBool; the classes exist for isinstance checks.
class SymInt:
    """Symbolic int (torch.fx's shape tracing). wick has no symbolic shapes: no value is ever one."""


class SymFloat:
    """Symbolic float. wick has no symbolic shapes: no value is ever one."""


class SymBool:
    """Symbolic bool. wick has no symbolic shapes: no value is ever one."""


def sym_fresh_size(expr):
    return expr


def sym_constrain_range(size, *, min=None, max=None):
    if isinstance(size, builtins.int):
        lo = -math.inf if min is None else min
        hi = math.inf if max is None else max
        if not lo <= size <= hi:
            raise RuntimeError(f"Invalid value range for {size} between "
                               f"[{-2**63 if min is None else min}, {2**63 - 1 if max is None else max}].")


def sym_constrain_range_for_size(size, *, min=None, max=None):
    if isinstance(size, builtins.int):
        return None


# ---- error classes torch exposes at the top level (wick's allocation failures raise RuntimeError with torch's
# CPU allocator message, as torch's CPU does; these are raised by device allocators)
class OutOfMemoryError(RuntimeError):
    pass


class AcceleratorError(RuntimeError):
    pass


class FatalError(Exception):
    pass


class classproperty:
    """A read-only property of the class (torch.classproperty)."""
    def __init__(self, fget):
        self.fget = fget

    def __get__(self, instance, owner):
        return self.fget(owner)


def is_distributed(input, /):
    return False


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    size, order = list(size), list(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError("Dimension mismatch: physical_layout must be a permutation of the dimensions")
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    t = _wick.empty([size[d] for d in order], dtype=dtype, device=device).permute(inverse)
    return t.requires_grad_(requires_grad)


def native_dropout(input, p, train):
    """torch's native_dropout (CPU): a bool mask from bernoulli_(1 - p), output = input * mask * 1/(1 - p)."""
    if train is None or train:
        p1m = 1.0 - p
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        mask = _wick.empty_like(input, dtype=_wick.bool).bernoulli_(p1m)
        return input.mul(mask).mul_(scale), mask
    return input.clone(), _wick.ones_like(input, dtype=_wick.bool)


def conj_physical_(input):
    return input.conj_physical_() if hasattr(Tensor, 'conj_physical_') else input


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


_DEFAULT_TYPES = {'torch.FloatTensor': 'float32', 'torch.DoubleTensor': 'float64', 'torch.HalfTensor': 'float16',
                  'torch.BFloat16Tensor': 'bfloat16'}
_warned_default_type = []


def set_default_tensor_type(t):
    if not _warned_default_type or _wick.is_warn_always_enabled():
        _warned_default_type.append(1)
        import warnings
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
                      "internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)", UserWarning,
                      stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, '__module__', '').replace('wick', 'torch') + '.' + t.__name__ \
        if isinstance(t, type) else None
    if name not in _DEFAULT_TYPES:
        if isinstance(name, str) and name.startswith('torch.') and name.endswith('Tensor'):
            raise TypeError("only floating-point types are supported as the default type")
        raise TypeError(f"invalid type: '{t}'")
    _wick.set_default_dtype(getattr(_wick, _DEFAULT_TYPES[name]))


def cond(pred, true_fn, false_fn, operands=()):
    """torch.cond run eagerly: the branch pred picks, called on the operands."""
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                           "tensor leaves, but got " + type(operands).__name__ + ".")
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        pred = bool(pred.item())
    return true_fn(*operands) if pred else false_fn(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """torch.while_loop run eagerly: body_fn over the carried values while cond_fn holds."""
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError("carried_inputs must be a tuple or list, got " + type(carried_inputs).__name__)
    carried = tuple(carried_inputs)
    while True:
        c = cond_fn(*carried)
        if isinstance(c, Tensor):
            c = bool(c.item())
        if not c:
            return carried
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)


for _f in (sym_fresh_size, sym_constrain_range, sym_constrain_range_for_size, is_distributed, empty_permuted,
           native_dropout, conj_physical_, addmv_, set_default_tensor_type, cond, while_loop):
    _f.__module__ = 'torch'
    setattr(_wick, _f.__name__, _f)
for _c in (SymInt, SymFloat, SymBool, OutOfMemoryError, AcceleratorError, FatalError, classproperty):
    _c.__module__ = 'torch'
    setattr(_wick, _c.__name__, _c)
