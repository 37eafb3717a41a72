"""torch.overrides: `__torch_function__` on Tensor subclasses and tensor-likes, and TorchFunctionMode.

Note [Lazy dispatch]: torch checks for overrides in C on every call. wick's C entry points do not; instead, the
first time a Tensor subclass with a live `__torch_function__` is defined (or a TorchFunctionMode is entered),
`_install()` wraps the public callables of the torch.*, nn.functional,
linalg, special and fft namespaces and Tensor's methods and operators in Python functions that look for overloaded
arguments and otherwise call the C function directly. Programs that never subclass pay nothing; after that,
each call pays the scan of its arguments. The func handed to `__torch_function__` is that public wrapper, so
`func is torch.add` / `func is torch.Tensor.add` hold as in torch. Not dispatched (known gaps): properties
(.shape, .grad, .T: torch passes their __get__), references taken before the install (`from torch import add`),
calls made from inside wick's C code, a non-Tensor tensor-like before any subclass or mode, and warnings raised under a wrapper point one frame lower than torch's.
wick's own subclasses (nn.parameter's Uninitialized*, vmap's BatchedTensor, Parameter) never turn the dispatch on.
`_uninstall()` puts the C entry points back (for tests)."""
import functools
import threading

from . import _C

__all__ = ['has_torch_function', 'has_torch_function_unary', 'has_torch_function_variadic', 'handle_torch_function',
           'is_tensor_like', 'TorchFunctionMode', 'get_default_nowrap_functions', 'is_tensor_method_or_property']


class _State(threading.local):
    def __init__(self):
        self.disabled_subclass = 0     # depth of DisableTorchFunctionSubclass (and DisableTorchFunction)
        self.disabled_all = 0          # depth of DisableTorchFunction
        self.modes = []                # the TorchFunctionMode stack (innermost last)


_state = _State()
_installed = False


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """torch._C._disabled_torch_function_impl: a class whose __torch_function__ is this is not overloaded; called
    (through super() from a subclass's handler), it runs func with subclass dispatch off and converts nothing."""
    _state.disabled_subclass += 1
    try:
        return func(*args, **(kwargs or {}))
    finally:
        _state.disabled_subclass -= 1


class DisableTorchFunctionSubclass:
    """torch._C.DisableTorchFunctionSubclass: subclasses' __torch_function__ is skipped inside (modes still run)."""

    def __enter__(self):
        _state.disabled_subclass += 1

    def __exit__(self, *exc):
        _state.disabled_subclass -= 1


class DisableTorchFunction:
    """torch._C.DisableTorchFunction: neither subclasses nor modes are consulted inside."""

    def __enter__(self):
        _state.disabled_subclass += 1
        _state.disabled_all += 1

    def __exit__(self, *exc):
        _state.disabled_subclass -= 1
        _state.disabled_all -= 1


def _tf_of(t):
    tf = getattr(t, '__torch_function__', None)
    if tf is None:
        return None
    return None if getattr(tf, '__func__', tf) is _disabled_torch_function_impl else tf


def _is_overloaded_type(t):
    from ._tensor import Tensor
    return t is not Tensor and _tf_of(t) is not None


def _overloaded_args(relevant_args):
    """Unique overloaded types' first arguments, a subclass before its superclass (torch's order)."""
    types, args = [], []
    for a in relevant_args:
        t = type(a)
        if t in types or not _is_overloaded_type(t):
            continue
        pos = len(args)
        for i, known in enumerate(types):
            if issubclass(t, known):
                pos = i
                break
        types.insert(pos, t)
        args.insert(pos, a)
    return args


def _flat(args, kwargs):
    out = []
    for a in list(args) + list(kwargs.values()):
        out.append(a)
        if isinstance(a, (list, tuple)):
            out.extend(a)
    return out


def has_torch_function(relevant_args):
    if _state.disabled_all:
        return False
    if _state.modes:
        return True
    if _state.disabled_subclass:
        return False
    return any(_is_overloaded_type(type(a)) for a in relevant_args)


def has_torch_function_unary(a):
    return has_torch_function((a,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def is_tensor_like(inp):
    from ._tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, '__torch_function__')


def get_default_nowrap_functions():
    return set()


def is_tensor_method_or_property(func):
    from ._tensor import Tensor
    name = getattr(func, '__name__', None)
    return name is not None and getattr(Tensor, name, None) is func


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    return _dispatch(public_api, relevant_args, args, kwargs)


class _AllNotImplemented(TypeError):
    pass


def _dispatch(public_api, relevant_args, args, kwargs, c_name=None):
    """Call the innermost mode's __torch_function__ (the mode popped while it runs), then each overloaded type's
    in order, until one does not return NotImplemented (torch's protocol)."""
    overloaded = _overloaded_args(relevant_args) if not _state.disabled_subclass else []
    types = tuple(type(a) for a in overloaded)
    if _state.modes and not _state.disabled_all:
        mode = _state.modes.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            _state.modes.append(mode)
        if result is not NotImplemented:
            return result
    for a in overloaded:
        result = type(a).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if c_name is not None:      # torch's message for its C entry points
        from ._tensor import Tensor
        kinds = ''.join('\n  - %s %s' % ('tensor subclass' if isinstance(a, Tensor) else 'class', type(a))
                        for a in overloaded)
        raise _AllNotImplemented("Multiple dispatch failed for '%s'; all __torch_function__ handlers returned "
                                 "NotImplemented:\n%s\n\nFor more information, try re-running with "
                                 "TORCH_LOGS=not_implemented" % (c_name, kinds))
    name = '%s.%s' % (getattr(public_api, '__module__', None), getattr(public_api, '__name__', public_api))
    name = 'torch' + name[4:] if name.startswith('wick') else name
    raise TypeError("no implementation found for '%s' on types that implement __torch_function__: %s"
                    % (name, [type(a) for a in overloaded]))


class TorchFunctionMode:
    """Subclass and define __torch_function__(self, func, types, args=(), kwargs=None); `with Mode():` routes every
    dispatched torch call through it (innermost mode first)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _install()
        _state.modes.append(self)
        return self

    def __exit__(self, *exc):
        _state.modes.remove(self)

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def _get_current_function_mode_stack():
    return list(_state.modes)


# ---- the wrappers --------------------------------------------------------------------------------------------

# an operator reaches __torch_function__ as the method torch's C slot calls (x + 1 -> Tensor.add, as torch)
_OPERATOR_FUNC = {'__add__': 'add', '__radd__': 'add', '__iadd__': 'add_', '__sub__': 'sub', '__isub__': 'sub_',
                  '__mul__': 'mul', '__rmul__': 'mul', '__imul__': 'mul_', '__truediv__': 'div', '__itruediv__': 'div_',
                  '__mod__': 'remainder', '__pow__': 'pow', '__matmul__': 'matmul', '__neg__': 'neg',
                  '__pos__': 'positive', '__abs__': 'abs', '__rand__': 'bitwise_and', '__ror__': 'bitwise_or',
                  '__rxor__': 'bitwise_xor', '__ne__': 'ne', '__lt__': 'lt', '__le__': 'le', '__gt__': 'gt',
                  '__ge__': 'ge'}


_BINARY = {'__%s__' % n for n in ('add radd iadd sub rsub isub mul rmul imul truediv rtruediv itruediv floordiv '
                                   'rfloordiv mod rmod pow rpow matmul rmatmul and or xor rand ror rxor lshift '
                                   'rshift eq ne lt le gt ge').split()}


def _wrap(orig, name, qualname, module, alias=None):
    python_level = type(orig).__name__ == 'function'    # torch's Python functions pass their kwargs dict as is
    c_name = None if python_level else ('torch.Tensor.' + name if qualname.startswith('Tensor.')
                                        else (module + '.' + name))
    binary = name in _BINARY

    @functools.wraps(orig)
    def dispatch(*args, **kwargs):
        st = _state
        if st.disabled_all or not (st.modes or (not st.disabled_subclass and any(
                _is_overloaded_type(type(a)) for a in _flat(args, kwargs)))):
            return orig(*args, **kwargs)
        api = dispatch
        if alias is not None:
            from ._tensor import Tensor
            api = getattr(Tensor, alias)
        try:
            return _dispatch(api, _flat(args, kwargs), args, kwargs if kwargs or python_level else None, c_name)
        except _AllNotImplemented:
            if binary:          # Python then tries the reflected operator, then raises 'unsupported operand'
                return NotImplemented
            raise
    dispatch.__name__, dispatch.__qualname__, dispatch.__module__ = name, qualname, module
    dispatch._wick_orig = orig
    return dispatch


_METHOD_SKIP = {'__new__', '__init__', '__getattribute__', '__getattr__', '__setattr__', '__delattr__', '__class__',
                '__init_subclass__', '__subclasshook__', '__reduce__', '__reduce_ex__', '__torch_function__',
                '__sizeof__', '__dir__', '__hash__', '__format__', '__copy__', '__deepcopy__', '__array__',
                '__array_priority__', '__weakref__', '__dict__', '__doc__', '__module__', '__str__',
                'as_subclass', '_make_subclass', '__iter__', '__getstate__', '__setstate__', '__array_wrap__'}


_MISSING = object()
_wrapper_of = {}  # a Tensor method's raw C / Python function -> its wrapper
_replaced = []   # (owner, name, original) for _uninstall


def _uninstall():
    """Put the C entry points back (tests use it so that later tests in one process run unwrapped)."""
    global _installed
    _wrapper_of.clear()
    while _replaced:
        owner, name, orig = _replaced.pop()
        if orig is _MISSING:
            delattr(owner, name)
        else:
            setattr(owner, name, orig)
    _installed = False


def _install():
    global _installed
    if _installed:
        return
    _installed = True
    import types as _types
    from . import _tensor
    import wick
    Tensor = _tensor.Tensor
    seen = {}
    for name in dir(Tensor):
        if name in _METHOD_SKIP or (name.startswith('_') and not name.startswith('__')):
            continue
        raw = None
        for klass in Tensor.__mro__:
            if name in klass.__dict__:
                raw = klass.__dict__[name]
                break
        if raw is None or isinstance(raw, (property, staticmethod, classmethod, type)) or not callable(raw):
            continue
        if type(raw).__name__ not in ('function', 'method_descriptor', 'wrapper_descriptor'):
            continue
        alias = _OPERATOR_FUNC.get(name)
        if alias is not None and not hasattr(Tensor, alias):
            alias = None
        w = _wrap(raw, name, 'Tensor.' + name, 'torch._C.TensorBase' if klass is not Tensor else 'torch', alias)
        _replaced.append((Tensor, name, Tensor.__dict__.get(name, _MISSING)))
        _wrapper_of[raw] = w
        setattr(Tensor, name, w)
    namespaces = [wick] + [getattr(wick, n) for n in ('linalg', 'special', 'fft') if hasattr(wick, n)]
    import wick.nn.functional
    namespaces.append(wick.nn.functional)
    for ns in namespaces:
        modname = {wick: 'torch'}.get(ns, getattr(ns, '__name__', 'torch'))
        for name in dir(ns):
            if name.startswith('_'):
                continue
            obj = getattr(ns, name)
            if isinstance(obj, (type, _types.ModuleType)) or not callable(obj):
                continue
            if type(obj).__name__ not in ('function', 'builtin_function_or_method'):
                continue
            if getattr(obj, '_wick_orig', None) is not None:
                continue
            if name in ('manual_seed', 'seed', 'initial_seed', 'set_grad_enabled', 'is_grad_enabled',
                        'get_default_dtype', 'set_default_dtype', 'compile', 'no_grad', 'enable_grad'):
                continue
            if id(obj) not in seen:
                seen[id(obj)] = _wrap(obj, name, name, modname)
            _replaced.append((ns, name, obj))
            setattr(ns, name, seen[id(obj)])
    _refresh_allowed_methods(Tensor)


def _refresh_allowed_methods(Tensor):
    """nn.parameter's Uninitialized* allow a list of Tensor methods taken at import: add their wrappers."""
    import sys
    mod = sys.modules.get('wick.nn.parameter')
    mix = getattr(mod, 'UninitializedTensorMixin', None)
    if mix is not None:
        mix._allowed_methods = list(mix._allowed_methods) + [
            _wrapper_of[m] for m in mix._allowed_methods if m in _wrapper_of]


def _convert(ret, cls):
    from ._tensor import Tensor
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, '_fields') else type(ret)(items)
    return ret


_C.DisableTorchFunction = DisableTorchFunction
_C.DisableTorchFunctionSubclass = DisableTorchFunctionSubclass
_C._disabled_torch_function_impl = _disabled_torch_function_impl
