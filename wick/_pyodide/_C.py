"""wick._C for Pyodide: the Python face of the wasm core, over the JS API (js/core.mjs, js/pyodide.mjs).

wick/__init__.py selects this module when sys.platform == 'emscripten' (no CPython extension can be built for
Pyodide here). A tensor is a JS Tensor (one reference to a C tensor in the wasm instance) held by a Python object;
every op of the table is a Python function built from the signature data (ops.mjs's BINDINGS) that calls
core.mjs's callOp, so overload resolution and torch's argument errors are the JS door's, shared, not re-written.
A JS error carries torch's exception kind: it is re-raised as that Python exception with the same message.
What the native _C has and this one does not yet raises NotImplementedError naming it.
"""
import builtins as _b
import sys as _sys
import weakref as _weakref

import _wickjs as _J
from pyodide.ffi import JsArray as _JsArray, JsException as _JsException, JsNull as _JsNull, JsProxy as _JsProxy
from pyodide.ffi import create_proxy, jsnull as _null, to_js

_callOp = _J.callOp
_f = _J.f
_Object = None
try:
    import js as _js
    _Object = _js.Object
except ImportError:  # pragma: no cover
    pass

_KINDS = {'RuntimeError': RuntimeError, 'IndexError': IndexError, 'TypeError': TypeError, 'ValueError': ValueError,
          'NotImplementedError': NotImplementedError, 'MemoryError': MemoryError, 'OverflowError': OverflowError,
          'ZeroDivisionError': ZeroDivisionError}


class _LinAlgError(RuntimeError):
    pass


_LinAlgError.__name__ = 'LinAlgError'
_LinAlgError.__qualname__ = 'LinAlgError'
_LinAlgError.__module__ = 'torch._C._linalg'
_KINDS['LinAlgError'] = _LinAlgError


def _raise(e):
    kind = getattr(e, 'kind', None)
    cls = _KINDS.get(kind)
    if cls is None:
        raise e
    raise cls(str(e.message)) from None


def _unsupported(what):
    return NotImplementedError('wick in Pyodide: %s is not supported yet' % what)


# ------------------------------------------------------------------------------------------------ dtypes
class dtype:
    __module__ = 'torch'
    __slots__ = ('_name', 'is_floating_point', 'is_complex', 'is_signed', 'itemsize')

    def __init__(self, *a, **k):
        raise TypeError("cannot create 'torch.dtype' instances")

    def __repr__(self):
        return 'torch.' + self._name

    def __reduce__(self):
        return self._name

    def to_real(self):
        return self


_DT = {}
for _name, _fl, _sg, _sz in [('bool', False, False, 1), ('uint8', False, False, 1), ('int8', False, True, 1),
                             ('int16', False, True, 2), ('int32', False, True, 4), ('int64', False, True, 8),
                             ('float16', True, True, 2), ('bfloat16', True, True, 2), ('float32', True, True, 4),
                             ('float64', True, True, 8)]:
    _d = object.__new__(dtype)
    _d._name, _d.is_floating_point, _d.is_complex, _d.is_signed, _d.itemsize = _name, _fl, False, _sg, _sz
    _DT[_name] = _d
    globals()[_name] = _d
del _name, _fl, _sg, _sz, _d


def _dtype(name):
    return _DT[name]


class Size(tuple):
    __module__ = 'torch'

    def __new__(cls, sizes=()):
        return tuple.__new__(cls, sizes)

    def __repr__(self):
        return 'torch.Size([%s])' % ', '.join(str(s) for s in self)

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


# ------------------------------------------------------------------------------------------------ conversion
def _jsval(v):
    """A Python argument as the JS API takes it (floats wrapped: JS has one number type)."""
    t = type(v)
    if t is _b.int or t is str or t is _b.bool:
        return v
    if isinstance(v, TensorBase):
        return v._t
    if v is None:
        return _null
    if isinstance(v, _b.bool) or isinstance(v, _b.int) or isinstance(v, str):
        return v
    if isinstance(v, _b.float):
        return _f(v)
    if isinstance(v, dtype):
        return v._name
    if isinstance(v, (list, tuple)):
        return to_js([_jsval(x) for x in v])
    if isinstance(v, Generator):
        return v._g
    if hasattr(v, '__index__') and not isinstance(v, _JsProxy):
        return v.__index__()
    if hasattr(v, 'type') and type(v).__name__ == 'device':  # torch.device: the JS API takes 'cpu' (or raises)
        return str(v)
    return v


def _kw(kw):
    o = _Object.new()
    for k, v in kw.items():
        setattr(o, k, _jsval(v))
    return o


_TENSOR_CLS = None
_RETURN_TYPES = {}


# Note [One Python object per C tensor]: as torch's (and the native door's pyobj back-pointer), a C tensor has at
# most one live Python object, so `x.add_(1) is x`, `v._base is x` and `x.grad is x.grad` hold and attributes set on
# a tensor stay. _LIVE maps a C tensor's handle to a weak reference to its Python object; the object holds the C
# tensor's reference, so while it lives the handle cannot be reused. A weakref's callback removes its own entry only.
_LIVE = {}


def _unlive(ref, _live=_LIVE):
    k = ref.key
    if _live.get(k) is ref:
        del _live[k]


class _Ref(_weakref.ref):
    __slots__ = ('key',)


def _register(o, key):
    r = _Ref(o, _unlive)
    r.key = key
    _LIVE[key] = r
    return o


def _wrap(t):
    """A JS Tensor (one C reference, given to this function) -> the C tensor's Python object: the live one (the new
    reference is released), else a new one of the class wick/_tensor.py registered."""
    key = t.handle
    r = _LIVE.get(key)
    if r is not None:
        o = r()
        if o is not None:
            t.dispose()
            return o
    o = TensorBase.__new__(_TENSOR_CLS or TensorBase)
    o._t = t
    return _register(o, key)


def _py(r, name):
    if type(r) is _TENSOR_T:    # the common case, without Pyodide's (slow) isinstance checks on proxy types
        return _wrap(r)
    if r is None or type(r) in (_b.int, _b.float, _b.bool, str):
        return _DT[r] if name in _DTYPE_RETURNS and type(r) is str else r
    if isinstance(r, _JsArray):
        items = tuple(_wrap(x) if _J.isTensor(x) else _py(x, name) for x in r)
        rt = _RETURN_TYPES.get(name)
        if rt is not None and len(rt._fields) == len(items):
            return rt(items)
        return items
    if isinstance(r, _JsProxy):
        if isinstance(r, _JsNull):
            return None
        if _J.isTensor(r):
            return _wrap(r)
        if str(r.typeof) == 'bigint':
            return _b.int(str(r))
        return r
    if name in _DTYPE_RETURNS and isinstance(r, str):
        return _DT[r]
    return r


_DTYPE_RETURNS = {'result_type', 'promote_types'}


_pycall = _J.pycall


def _memory_format(name, args, kw, self):
    """memory_format=, as the native argument parser applies it (pyext/argparse.c apply_memory_format): wick's
    tensors are row-major or keep their input's strides, so preserve_format is that; contiguous_format on an
    out-of-place op of a non-contiguous self (clone, *_like, to) runs the op on a row-major copy of self; any other
    format is refused by name. Returns (args, kw, self) with memory_format=None."""
    kw = dict(kw)
    fmt = kw.pop('memory_format')
    kw['memory_format'] = None
    if fmt is None:
        return args, kw, self
    r = repr(fmt)
    if r == 'torch.contiguous_format':
        me = self if self is not None else (args[0] if args and isinstance(args[0], TensorBase) else
                                            kw.get('input', kw.get('self')))
        copies = isinstance(me, TensorBase) and not name.endswith('_')
        if copies and name == 'to':   # to() aliases self unless it converts or copy=True
            others = _b.list(args[1:] if self is None else args) + _b.list(kw.values())
            copies = _b.bool(kw.get("copy")) or _b.any(
                (isinstance(a, dtype) and a is not me.dtype) or (isinstance(a, TensorBase) and a.dtype is not me.dtype)
                for a in others)
        if copies and not me.is_contiguous():
            c = me.contiguous()
            if self is not None:
                self = c
            elif args and args[0] is me:
                args = (c,) + tuple(args[1:])
            else:
                kw['input' if 'input' in kw else 'self'] = c
    elif r != 'torch.preserve_format':
        raise NotImplementedError("wick: %s(memory_format=%s) is not supported yet (wick's tensors are row-major or "
                                  "keep their input's strides)" % (name, r))
    return args, kw, self


def _call(name, ovl, variant, args, kw, self=None):
    if 'memory_format' in kw:
        orig = self
        args, kw, self = _memory_format(name, args, kw, self)
        if variant == 'inplace' and orig is not None:
            self = orig
    jargs = [_jsval(a) for a in args]
    out = kw.get('out')
    if kw:
        jargs.append(_kw(kw))
    try:
        r = _pycall(name, ovl, self._t if self is not None else _null, variant, *jargs)
    except _JsException as e:
        _raise(e)
    if out is not None:   # out=(a, b): torch.return_types.<name>_out, as the native _C gives
        rt = _RETURN_TYPES.get(name + '_out') if isinstance(out, (tuple, list)) else None
        return rt(out) if rt is not None and len(rt._fields) == len(out) else out
    if variant == 'inplace' and self is not None:
        return self
    return _py(r, name)


def _make(name, group):
    ovl, variant = _J.overloads(group, name)
    if group == 'method':
        def method(self, *args, **kw):
            return _call(name, ovl, variant, args, kw, self)
        method.__name__ = name
        return method

    def function(*args, **kw):
        return _call(name, ovl, variant, args, kw)
    function.__name__ = name
    function.__qualname__ = name
    function._wk_op = True
    return function


# ------------------------------------------------------------------------------------------------ Tensor
def _index_item(i):
    if i is None:
        return _null
    if i is Ellipsis:
        return '...'
    if isinstance(i, slice):
        return _J.slice(*(_null if x is None else x.__index__() if not isinstance(x, TensorBase) else x.item()
                          for x in (i.start, i.stop, i.step)))
    if isinstance(i, (_b.bool, _b.int)):
        return i
    if isinstance(i, TensorBase):
        return i._t
    if isinstance(i, list):
        return to_js([_index_item(x) for x in i])
    if hasattr(i, '__index__'):
        return i.__index__()
    raise IndexError('only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid '
                     'indices (got %s)' % type(i).__name__)


def _index_args(idx):
    if isinstance(idx, tuple):
        items = [_index_item(i) for i in idx]
        return [_J.tuple(to_js(items))] if len(items) == 1 else items
    return [_index_item(idx)]


def _scalar_like(v):
    return isinstance(v, (_b.bool, _b.int, _b.float)) and not isinstance(v, TensorBase)


class _GradFn:
    """A graph node (x.grad_fn) over a JS Node: torch's class name, repr, name(), next_functions, variable. One
    Python object per node while it lives (as the native one), so `a.grad_fn is b.grad_fn` holds."""
    __slots__ = ('_name', '_n', '__weakref__')

    def name(self):
        return ('torch::autograd::' + self._name) if self._n.isCpp else self._name

    def __repr__(self):
        return '<%s object at 0x%012x>' % (self._name, id(self))

    @property
    def next_functions(self):
        return tuple((_node(n), _b.int(nr)) for n, nr in self._n.nextFunctions)

    @property
    def variable(self):
        t = self._n.variable
        if t is None or isinstance(t, _JsNull):
            raise AttributeError("'%s' object has no attribute 'variable'" % self._name)
        return _wrap(t)

    def __del__(self):
        n = getattr(self, '_n', None)
        if n is not None:
            try:
                n.dispose()
            except Exception:  # interpreter shutdown: the bridge may be gone
                pass


_NODES = __import__('weakref').WeakValueDictionary()   # node address -> its live _GradFn


def _node(n):
    """A JS Node (one reference, given to this function) -> the node's Python object."""
    if n is None or isinstance(n, _JsNull):
        return None
    key = _b.int(n.handle)
    o = _NODES.get(key)
    if o is not None:
        n.dispose()
        return o
    name = _b.str(n.name)
    cls = _NODE_CLASSES.get(name)
    if cls is None:   # type(t.grad_fn).__name__ is the node's name, as torch's
        cls = _NODE_CLASSES[name] = type(name, (_GradFn,), {'__slots__': (), '__module__': 'torch.autograd.graph'})
    o = object.__new__(cls)
    o._name, o._n = name, n
    _NODES[key] = o
    return o


_NODE_CLASSES = {}


class TensorBase:
    __module__ = 'torch._C'

    def __init__(self, *args, **kwargs):
        pass

    def __del__(self):
        t = self.__dict__.get('_t')
        if t is not None:
            try:
                t.dispose()   # the C reference now; the proxy itself goes with its last Python reference
            except Exception:  # interpreter shutdown: the bridge may be gone
                pass

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        o = TensorBase.__new__(cls)
        o._t = _try(lambda: _J.wick.detach(data._t))
        _register(o, o._t.handle)
        if require_grad:
            _try(lambda: o._t.requiresGrad_(True))
        return o

    # ---- metadata
    @property
    def shape(self):
        return Size(self._t.shape.to_py())

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return _try(lambda: self._t.size(dim))

    def stride(self, dim=None):
        if dim is None:
            return tuple(self._t.strides().to_py())
        return _try(lambda: self._t.stride(dim))

    @property
    def dtype(self):
        return _DT[self._t.dtype]

    @property
    def ndim(self):
        return self._t.ndim

    def dim(self):
        return self._t.ndim

    ndimension = dim

    def numel(self):
        return self._t.numel()

    nelement = numel

    def element_size(self):
        return self._t.elementSize()

    @property
    def itemsize(self):
        return self._t.elementSize()

    def is_contiguous(self, memory_format=None):
        return self._t.isContiguous()

    def is_floating_point(self):
        return self._t.isFloatingPoint()

    def is_complex(self):
        return False

    @property
    def device(self):
        from .._device import device
        return device('cpu')

    is_cuda = False
    is_sparse = False
    is_quantized = False
    is_meta = False
    is_mps = False

    # ---- data
    def item(self):
        v = _pyscalar(_try(lambda: self._t.item()))
        d = self.dtype
        return _b.float(v) if d.is_floating_point else _b.bool(v) if d is _DT['bool'] else _b.int(v)

    def tolist(self):
        # one bulk copy: the elements as a typed array, viewed from Python as a memoryview (never element by element
        # through the bridge); float16/bfloat16 arrive widened to float32
        d = self.dtype
        flat = _try(lambda: self._t.toTypedArray()).to_py().tolist()
        if d is _DT['bool']:
            flat = [_b.bool(x) for x in flat]
        shape = self.shape
        if not shape:
            return flat[0]
        return _nest(flat, shape)

    def __repr__(self, *, tensor_contents=None):
        return str(_try(lambda: self._t.toString()))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError('Boolean value of Tensor with more than one value is ambiguous')
        return _b.bool(self.item())

    def __float__(self):
        if self.numel() != 1:
            raise TypeError('only one element tensors can be converted to Python scalars')
        return _b.float(self.item())

    def __int__(self):
        if self.numel() != 1:
            raise TypeError('only one element tensors can be converted to Python scalars')
        return _b.int(self.item())

    def __index__(self):
        if self.numel() != 1 or self.dtype.is_floating_point or self.dtype is _DT['bool']:
            raise TypeError('only integer tensors of a single element can be converted to an index')
        return _b.int(self.item())

    def __hash__(self):
        return id(self)

    # ---- indexing
    def __getitem__(self, idx):
        return _wrap(_try(lambda: self._t.get(*_index_args(idx))))

    def __setitem__(self, idx, value):
        v = value._t if isinstance(value, TensorBase) else (_f(value) if isinstance(value, _b.float) else value)
        _try(lambda: self._t.set(v, *_index_args(idx)))

    # ---- autograd
    @property
    def requires_grad(self):
        return self._t.requiresGrad

    @requires_grad.setter
    def requires_grad(self, v):
        _try(lambda: self._t.requiresGrad_(_b.bool(v)))

    def requires_grad_(self, requires_grad=True):
        _try(lambda: self._t.requiresGrad_(_b.bool(requires_grad)))
        return self

    @property
    def is_leaf(self):
        return self._t.isLeaf

    @property
    def grad(self):
        g = self._t.grad   # JS null (a JsNull, not None) where there is none
        return None if g is None or isinstance(g, _JsNull) else _wrap(g)

    @grad.setter
    def grad(self, g):
        _try(lambda: setattr(self._t, 'grad', g._t if g is not None else _null))

    @property
    def grad_fn(self):
        return _node(self._t.gradNode)

    def detach(self):
        return _FUNCTIONS['detach'](self)   # a function of the table (torch's Tensor.detach is hand-written too)

    def detach_(self):
        _FUNCTIONS['detach_'](self)
        return self

    @property
    def data(self):
        return _wrap(_try(lambda: self._t.data))   # no history, a version counter of its own (not detach())

    @data.setter
    def data(self, v):
        if not isinstance(v, TensorBase):
            raise TypeError('Variable data has to be a tensor, but got %s' % type(v).__name__)
        _try(lambda: self._t.setData(v._t))

    @property
    def _version(self):
        if self.is_inference():
            raise RuntimeError('Inference tensors do not track version counter.')
        return _b.int(self._t.version)

    @property
    def _is_inference(self):
        return self.is_inference()

    def _bump_version(self):
        self._t.bumpVersion()

    def storage_offset(self):
        return _b.int(self._t.storageOffset())

    def data_ptr(self):
        return _b.int(self._t.dataPtr())

    def _is_view(self):
        return _b.bool(self._t.isView)

    @property
    def _base(self):
        b = self._t.viewBase   # JS null where it is not a view
        return None if b is None or isinstance(b, _JsNull) else _wrap(b)

    def retain_grad(self):
        _try(lambda: self._t.retainGrad())

    @property
    def retains_grad(self):
        return _b.bool(self._t.retainsGrad)

    def _register_hook(self, hook):
        """hook(grad) runs inside the core's backward (a JS function in the wasm function table calls it)."""
        if not callable(hook):
            raise TypeError('hook must be callable')

        def call(g):
            try:
                r = hook(_wrap(g))
                if r is not None and not isinstance(r, TensorBase):
                    raise TypeError("expected Variable, but hook returned '%s'" % type(r).__name__)
            except BaseException as e:
                # re-raised as itself when the backward returns; not thrown through JS, where the JS error would
                # hold the traceback (and the program's frames) until JS's garbage collector runs
                _hook_exc.append(e)
                return _J.wick.hookFailed
            if r is None:
                return None
            _hook_keep.append(r)   # alive until the core has taken its own reference (the backward returned)
            return r._t
        proxy = create_proxy(call)
        try:
            return _b.int(_J.registerHook(self._t, proxy, _b.str(getattr(hook, '__name__', '<unknown>'))))
        except _JsException as e:
            proxy.destroy()
            _raise(e)

    def _remove_hook(self, id):
        _try(lambda: self._t.removeHook(_b.int(id)))

    def _set_post_accumulate_grad_hooks(self):
        _POST_ACC[_b.int(self._t.handle)] = self
        _J.setPostAccumulateGrad(self._t, _post_acc)

    # ---- operators (as pyext/tensor_type.c: 2 + x is add(x, 2), 2 - x rsub, 2 / x reciprocal(x) * 2)
    def __add__(self, other):
        if not isinstance(other, TensorBase) and not _scalar_like(other):
            return NotImplemented
        return self.add(other)

    __radd__ = __add__

    def __sub__(self, other):
        if not isinstance(other, TensorBase) and not _scalar_like(other):
            return NotImplemented
        return self.sub(other)

    def __rsub__(self, other):
        if not _scalar_like(other):
            return NotImplemented
        return self.rsub(other)

    def __mul__(self, other):
        if not isinstance(other, TensorBase) and not _scalar_like(other):
            return NotImplemented
        return self.mul(other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not isinstance(other, TensorBase) and not _scalar_like(other):
            return NotImplemented
        return self.div(other)

    def __rtruediv__(self, other):
        if not _scalar_like(other):
            return NotImplemented
        return self.reciprocal().mul(other)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __neg__(self):
        return self.neg()

    def __pos__(self):
        return self.positive()

    def __abs__(self):
        return self.abs()


def _try(fn):
    try:
        return fn()
    except _JsException as e:
        _raise(e)


def _nest(flat, shape):
    if len(shape) == 1:
        return flat
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in _b.range(shape[0])]


def _pyscalar(v):
    if isinstance(v, _JsProxy) and str(v.typeof) == 'bigint':
        return _b.int(str(v))
    return v


for _name in _J.names('method'):
    if _name not in TensorBase.__dict__:
        setattr(TensorBase, _name, _make(_name, 'method'))
# NB the table's abs, all, any, max, min, pow, range, round and sum shadow the builtins in this module: use _b.<name>
_FUNCTIONS = {}
for _name in _J.names('function'):
    _FUNCTIONS[_name] = _make(_name, 'function')
    if _name not in globals():
        globals()[_name] = _FUNCTIONS[_name]


class _Namespace:
    def __init__(self, name):
        self.__name__ = name


_nn = _Namespace('torch._C._nn')
for _name in _J.names('nnfunction'):
    setattr(_nn, _name, _make(_name, 'nnfunction'))
_linalg = _Namespace('torch._C._linalg')
for _name in _J.names('linalgfunction'):
    setattr(_linalg, _name, _make(_name, 'linalgfunction'))
del _name


def _warn(message):   # the core's UserWarnings (torch's texts), as Python warnings where the calling code is
    import warnings
    warnings.warn(str(message), UserWarning, stacklevel=4)


_warn_proxy = create_proxy(_warn)
_J.wick.setWarningHandler(_warn_proxy)

_probe = _J.wick.zeros(1)
_TENSOR_T = type(_probe)   # the proxy type of a JS Tensor (Pyodide makes one per set of JS object traits)
_probe.dispose()
del _probe


def _set_tensor_class(cls):
    global _TENSOR_CLS
    _TENSOR_CLS = cls


def _register_return_type(name, fields):
    import collections
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        return 'torch.return_types.%s(\n%s)' % (name, ',\n'.join('%s=%r' % (f, v) for f, v in zip(fields, self)))

    def __new__(cls, sequence):   # built from one sequence, as the native one (a structseq) and torch's
        items = tuple(sequence)
        if len(items) != len(fields):
            raise TypeError('torch.return_types.%s() takes a %d-sequence (%d-sequence given)'
                            % (name, len(fields), len(items)))
        return base.__new__(cls, *items)

    def __reduce__(self):
        return (type(self), (tuple(self),))
    t = type(name, (base,), {'__repr__': __repr__, '__new__': __new__, '__reduce__': __reduce__, '__slots__': (),
                             '__module__': 'torch.return_types', '_wk_fields': tuple(fields)})
    _RETURN_TYPES[name] = t
    return t


# ------------------------------------------------------------------------------------------------ creation
def _tensor_data(v):
    if isinstance(v, TensorBase):
        if v.dim() == 0:
            return _tensor_data(v.item())
        return [_tensor_data(x) for x in v.unbind(0)]
    if isinstance(v, (list, tuple)):
        return to_js([_tensor_data(x) for x in v])
    if isinstance(v, _b.float):
        return _f(v)
    if isinstance(v, (_b.bool, _b.int)):
        return v
    raise TypeError("Could not infer dtype of %s" % type(v).__name__)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, TensorBase):
        r = data.detach().clone()
        if dtype is not None:
            r = r.to(dtype)
    else:
        opts = {}
        if dtype is not None:
            opts['dtype'] = dtype
        r = _wrap(_try(lambda: _J.wick.tensor(_tensor_data(data), _kw(opts))))
    if requires_grad:
        r.requires_grad_(True)
    return r


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, TensorBase):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    return tensor(data, dtype=dtype)


as_tensor._wk_op = True   # wick.as_tensor (wick/_ops.py re-exports what is marked)


def get_default_dtype():
    return _DT[_J.wick.getDefaultDtype()]


def _set_default_dtype(d):
    _try(lambda: _J.wick.setDefaultDtype(d._name))


def is_grad_enabled():
    return _J.wick.isGradEnabled()


def _set_grad_enabled(mode):
    return _J.wick.setGradEnabled(_b.bool(mode))


def is_inference_mode_enabled():
    return _b.bool(_J.wick.isInferenceModeEnabled())


def _set_inference_mode(mode):
    return _b.bool(_J.wick.setInferenceMode(_b.bool(mode)))


def get_num_threads():
    return 1


def set_num_threads(n):
    if n != 1:
        raise _unsupported('set_num_threads(%d) (the wasm core has one thread)' % n)


def _get_printoptions():
    return tuple(_J.getPrintoptions().to_py())


def _set_printoptions(precision, threshold, edgeitems, linewidth, sci):
    _J.setPrintoptions(precision, threshold, edgeitems, linewidth, sci)


_hook_exc = []   # the exception a Python hook raised inside the running backward (re-raised as itself)
_hook_keep = []  # the hooks' results during the running backward
_POST_ACC = __import__('weakref').WeakValueDictionary()   # C handle -> the leaf with post-accumulate-grad hooks


def _post_acc(leaf):
    t = _POST_ACC.get(_b.int(leaf.handle))
    leaf.dispose()
    hooks = getattr(t, '_post_accumulate_grad_hooks', None) if t is not None else None
    try:
        for h in list(hooks.values()) if hooks is not None else ():
            r = h(t)
            if r is not None:
                raise TypeError("expected Variable, but hook returned '%s'" % type(r).__name__)
    except BaseException as e:
        _hook_exc.append(e)
        return _J.wick.hookFailed


_post_acc = create_proxy(_post_acc)


def _run_backward(tensors, grads, retain_graph, create_graph, inputs, allow_unused, accumulate):
    """torch.autograd.backward / grad over the core's engine (core.mjs runBackward -> wk_run_backward)."""
    opts = _Object.new()
    opts.retainGraph, opts.createGraph = _b.bool(retain_graph), _b.bool(create_graph)
    opts.allowUnused, opts.grad = _b.bool(allow_unused), not accumulate
    if inputs is not None:
        opts.inputs = to_js([t._t for t in inputs])
    roots = to_js([t._t for t in tensors])
    gs = to_js([g._t if g is not None else _null for g in grads])
    del _hook_exc[:]
    try:
        r = _J.wick.runBackward(roots, gs, opts)
    except BaseException as e:
        if _hook_exc:
            exc = _hook_exc.pop()
            del _hook_exc[:]
            raise exc.with_traceback(exc.__traceback__) from None
        if isinstance(e, _JsException):
            _raise(e)
        raise
    finally:
        del _hook_keep[:]
    if accumulate or inputs is None:
        return None
    return tuple(None if x is None or isinstance(x, _JsNull) else _wrap(x) for x in r)


class Generator:
    __module__ = 'torch'

    def __init__(self, device='cpu', _handle=None):
        self._g = _handle if _handle is not None else _J.wick.Generator.new()

    def manual_seed(self, seed):
        seed = _b.int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xffff_ffff_ffff_ffff:
            raise RuntimeError('Overflow when unpacking long long')
        self._g.manualSeed(seed % (1 << 64))
        return self

    def initial_seed(self):
        return _b.int(str(self._g.initialSeed()))

    def seed(self):
        return _b.int(str(self._g.seed()))

    def get_state(self):
        return _wrap(self._g.getState())   # uint8 [5056], torch's CPUGeneratorImplState bytes

    def set_state(self, new_state):
        if not isinstance(new_state, TensorBase):
            raise TypeError('expected a torch.ByteTensor, but got %s' % type(new_state).__name__)
        if new_state.dtype is not uint8:
            raise TypeError('RNG state must be a torch.ByteTensor')
        _try(lambda: self._g.setState(new_state._t))
        return self

    def clone_state(self):
        return Generator(_handle=_try(lambda: self._g.cloneState()))

    def get_offset(self):
        raise RuntimeError('CPU Generator does not use offset')

    def set_offset(self, offset):
        raise RuntimeError('CPU Generator does not use offset')

    def graphsafe_get_state(self):
        raise NotImplementedError('graphsafe_get_state is not supported in this Generator')

    def graphsafe_set_state(self, state):
        raise NotImplementedError('graphsafe_set_state is not supported in this Generator')

    def __reduce__(self):   # as the native one: (Generator, ('cpu',), (initial_seed, None, state bytes))
        return (type(self), ('cpu',), (self.initial_seed(), None, _b.bytes(self.get_state().tolist())))

    def __setstate__(self, st):
        seed, offset, state = st
        self.manual_seed(seed)
        if offset is not None:
            raise RuntimeError('CPU Generator does not use offset')
        if isinstance(state, (_b.bytes, _b.bytearray)):
            state = tensor(_b.list(state), dtype=uint8)
        self.set_state(state)

    def __del__(self):
        g = self.__dict__.get('_g')
        if g is not None and not self.__dict__.get('_is_default'):
            try:
                g.dispose()
            except Exception:  # interpreter shutdown: the bridge may be gone
                pass

    @property
    def device(self):
        from .._device import device
        return device('cpu')


default_generator = Generator(_handle=_J.wick.defaultGenerator())
default_generator._is_default = True   # the JS API's one default generator is never disposed


class _FunctionBase:
    """torch.autograd.Function's C base: custom Functions are not supported in Pyodide yet."""

    @classmethod
    def apply(cls, *args, **kwargs):
        raise _unsupported('torch.autograd.Function')


_return_types = _RETURN_TYPES


def _bump_version(t):
    t._bump_version()


# ------------------------------------------------------------------------------------------------ devices
# The wasm core has the CPU device only: wick.webgpu (pyext/webgpu.c natively) is unavailable here, saying why, and
# a tensor is always on 'cpu' (Tensor.device, .cpu(), torch.save's location tag; torch.load of a 'webgpu:0' storage).
_WEBGPU_REASON = 'wick in Pyodide runs on the wasm core, which has the CPU device only'


def _webgpu_open(lib_path):
    return (False, _WEBGPU_REASON, '', '')


def _webgpu_unavailable(*args):
    raise RuntimeError('webgpu is not available: ' + _WEBGPU_REASON)


_webgpu_synchronize = _webgpu_memory = _webgpu_unavailable


def _device_of(t):
    return 'cpu'


def _to_device(t, device):
    s = 'cpu' if device is None else str(device)
    if s == 'cpu':
        return t
    if s.split(':')[0] == 'webgpu':
        _webgpu_unavailable()
    raise _unsupported('device %r (the wasm core has the CPU device only)' % s)


def _missing(name):
    def missing(*args, **kwargs):
        raise _unsupported('torch._C.%s' % name)
    missing.__name__ = name
    return missing


# The rest of the native _C (pyext/: storage, custom Functions' records, numpy, vmap's batching): functions that
# raise NotImplementedError naming themselves. The hooks the package feature-tests with hasattr (_set_vmap_hook,
# _set_saved_tensor_hooks) are left out, so it takes its pure-Python paths.
for _name in ('_alias', '_attach_history', '_contiguous_bytes', '_function_record', '_new_tensor',
              '_numpy_interface', '_saved_alias', '_storage_bytes', '_storage_info', '_tensor_from_bytes',
              '_vmap_dummy', '_vmap_pointwise', 'from_numpy', 'frombuffer'):
    globals()[_name] = _missing(_name)
del _name
_node_types = {}
