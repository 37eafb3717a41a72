"""nn.Module: the base class of every layer — registration of parameters, buffers and submodules by attribute
assignment, traversal, train/eval, state_dict/load_state_dict, hooks and torch's printout."""
import functools
import itertools
from collections import OrderedDict, namedtuple

from ... import _C
from ..._tensor import Tensor
from ..parameter import Parameter

__all__ = ['Module', 'register_module_forward_pre_hook', 'register_module_forward_hook',
           'register_module_full_backward_pre_hook', 'register_module_backward_hook',
           'register_module_full_backward_hook']

def _wick_path(cls):
    """(module, qualname) where wick defines cls, for a wick class named torch.*; None for any other class."""
    import importlib
    mod = cls.__module__
    if mod.split('.')[0] != 'torch':
        return None
    for where in ('wick' + mod[len('torch'):], 'wick.nn'):
        try:
            obj = importlib.import_module(where)
            for part in cls.__qualname__.split('.'):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            continue
        if obj is cls:
            return (where, cls.__qualname__)
    return None


def _new_module(where, qualname):
    import importlib
    cls = importlib.import_module(where)
    for part in qualname.split('.'):
        cls = getattr(cls, part)
    return cls.__new__(cls)


_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = [None]


class _WrappedHook:
    """A hook called with its module first when one is given (held weakly): module backward hooks as node hooks,
    load_state_dict pre-hooks registered through the public API."""

    def __init__(self, hook, module=None):
        import weakref
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError('You are trying to call the hook of a dead Module!')
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


class _IncompatibleKeys(namedtuple('IncompatibleKeys', ['missing_keys', 'unexpected_keys'])):
    __module__ = 'torch.nn.modules.module'

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return super().__repr__()

    __str__ = __repr__


_IncompatibleKeys.__name__ = '_IncompatibleKeys'
_IncompatibleKeys.__qualname__ = '_IncompatibleKeys'


class RemovableHandle:
    """The handle a register_*_hook call returns: `.remove()` unregisters the hook."""
    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        import weakref
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = weakref.ref(extra_dict) if extra_dict is not None else None

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]
        if self.extra_dict_ref is not None:
            e = self.extra_dict_ref()
            if e is not None and self.id in e:
                del e[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def register_module_forward_pre_hook(hook):
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    if _global_is_full_backward_hook[0] is True:
        raise RuntimeError('Cannot use both regular backward hooks and full backward hooks as a global Module hook. '
                           'Please use only one of them.')
    _global_is_full_backward_hook[0] = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    if _global_is_full_backward_hook[0] is False:
        raise RuntimeError('Cannot use both regular backward hooks and full backward hooks as a global Module hook. '
                           'Please use only one of them.')
    _global_is_full_backward_hook[0] = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def _addindent(s, num_spaces):
    lines = s.split('\n')
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + '\n' + '\n'.join(num_spaces * ' ' + line for line in lines)


def _forward_unimplemented(self, *input):
    raise NotImplementedError('Module [%s] is missing the required "forward" function' % type(self).__name__)


class Module:
    __module__ = 'torch.nn.modules.module'
    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError('%s.__init__() got an unexpected keyword argument %r'
                            % (type(self).__name__, next(iter(kwargs))) if kwargs else
                            '%s.__init__() takes 1 positional argument but %d were given'
                            % (type(self).__name__, len(args) + 1))
        d = self.__dict__
        d['training'] = True
        d['_parameters'] = OrderedDict()
        d['_buffers'] = OrderedDict()
        d['_non_persistent_buffers_set'] = set()
        d['_backward_pre_hooks'] = OrderedDict()
        d['_backward_hooks'] = OrderedDict()
        d['_is_full_backward_hook'] = None
        d['_forward_hooks'] = OrderedDict()
        d['_forward_hooks_with_kwargs'] = OrderedDict()
        d['_forward_hooks_always_called'] = OrderedDict()
        d['_forward_pre_hooks'] = OrderedDict()
        d['_forward_pre_hooks_with_kwargs'] = OrderedDict()
        d['_state_dict_hooks'] = OrderedDict()
        d['_state_dict_pre_hooks'] = OrderedDict()
        d['_load_state_dict_pre_hooks'] = OrderedDict()
        d['_load_state_dict_post_hooks'] = OrderedDict()
        d['_modules'] = OrderedDict()

    forward = _forward_unimplemented

    # ---- registration
    def register_buffer(self, name, tensor, persistent=True):
        if '_buffers' not in self.__dict__:
            raise AttributeError('cannot assign buffer before Module.__init__() call')
        if not isinstance(name, str):
            raise TypeError('buffer name should be a string. Got %s' % _typename(name))
        if '.' in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == '':
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '%s' already exists" % name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None required)"
                            % (_typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if '_parameters' not in self.__dict__:
            raise AttributeError('cannot assign parameter before Module.__init__() call')
        if not isinstance(name, str):
            raise TypeError('parameter name should be a string. Got %s' % _typename(name))
        if '.' in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == '':
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '%s' already exists" % name)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)"
                            % (_typename(param), name))
        elif param.grad_fn is not None:
            raise ValueError("Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be created "
                             "explicitly. To express '%s' as a function of another Tensor, compute the value in the "
                             "forward() method." % (name, name))
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError('%s is not a Module subclass' % _typename(module))
        elif not isinstance(name, str):
            raise TypeError('module name should be a string. Got %s' % _typename(name))
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '%s' already exists" % name)
        elif '.' in name:
            raise KeyError('module name can\'t contain ".", got: %s' % name)
        elif name == '':
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        self.add_module(name, module)

    def get_submodule(self, target):
        if target == '':
            return self
        mod = self
        for item in target.split('.'):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + ' has no attribute `' + item + '`')
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError('`' + item + '` is not an nn.Module')
        return mod

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition('.')
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + ' has no attribute `' + param_name + '`')
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError('`' + param_name + '` is not an nn.Parameter')
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition('.')
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + ' has no attribute `' + buffer_name + '`')
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError('`' + buffer_name + '` is not a buffer')
        return buffer

    # ---- attribute protocol
    def __getattr__(self, name):
        d = self.__dict__
        if '_parameters' in d and name in d['_parameters']:
            return d['_parameters'][name]
        if '_buffers' in d and name in d['_buffers']:
            return d['_buffers'][name]
        if '_modules' in d and name in d['_modules']:
            return d['_modules'][name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get('_parameters')
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError('cannot assign parameters before Module.__init__() call')
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)"
                                % (_typename(value), name))
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get('_modules')
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError('cannot assign module before Module.__init__() call')
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError("cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)"
                                    % (_typename(value), name))
                modules[name] = value
            else:
                buffers = self.__dict__.get('_buffers')
                is_buffer = isinstance(value, Tensor) and getattr(value, '_is_buffer', False)   # an nn.Buffer
                if is_buffer or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError("cannot assign '%s' as buffer '%s' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)" % (_typename(value), name))
                    if is_buffer:
                        persistent = getattr(value, 'persistent', True)
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__)
        keys |= set(self._parameters) | set(self._modules) | set(self._buffers)
        return sorted(k for k in keys if not k[0].isdigit())

    def __reduce_ex__(self, proto):
        """pickle / copy: wick's layers carry torch's module paths (torch.nn.modules.linear.Linear), which pickle
        would look up in real torch; they are pickled by wick's own path instead (only wick reads such a pickle).
        A program's Module subclass keeps pickle's default."""
        path = _wick_path(type(self))
        if path is None:
            return object.__reduce_ex__(self, proto)
        return (_new_module, path, self.__getstate__())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for k in ('_forward_pre_hooks', '_forward_hooks', '_forward_hooks_with_kwargs', '_forward_hooks_always_called',
                  '_forward_pre_hooks_with_kwargs', '_state_dict_hooks', '_state_dict_pre_hooks',
                  '_load_state_dict_pre_hooks', '_load_state_dict_post_hooks', '_backward_hooks',
                  '_backward_pre_hooks'):
            if k not in self.__dict__:
                self.__dict__[k] = OrderedDict()
        self.__dict__.setdefault('_non_persistent_buffers_set', set())
        self.__dict__.setdefault('_is_full_backward_hook', None)

    # ---- traversal
    def _named_members(self, get_members_fn, prefix='', recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ('.' if module_prefix else '') + k, v)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix='', recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix='', recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix='', remove_duplicate=True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ('.' if prefix else '') + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- modes, grads, application
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError('training mode is expected to be boolean')
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with _NoGrad():
                param_applied = fn(param)
            if param_applied is param:
                continue
            # wick keeps the Parameter object and swaps its data, as torch does on CPU
            param.data = param_applied
            if param.grad is not None:
                with _NoGrad():
                    param.grad = fn(param.grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        dtype = kwargs.pop('dtype', None)
        device = kwargs.pop('device', None)
        kwargs.pop('non_blocking', None)
        kwargs.pop('memory_format', None)
        if kwargs:
            raise TypeError("to() received an invalid combination of arguments - got unexpected keyword arguments %s"
                            % ', '.join(kwargs))
        for a in args:
            if isinstance(a, _C.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, bool):
                pass
            else:
                device = a
        if device is not None:
            from ..._device import device as _device_cls
            d = _device_cls(device) if not isinstance(device, _device_cls) else device
            if d.type != 'cpu':
                _C.zeros(1).to(d)  # raises torch's error for the missing device
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError('nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=%r'
                            % dtype)
        if dtype is None and device is None:
            return self

        def convert(t):  # torch's: t.to(device, dtype if t is floating else None)
            dt = dtype if dtype is not None and t.is_floating_point() else None
            if device is None:
                return t.to(dt) if dt is not None else t
            return t.to(device, dt) if dt is not None else t.to(device)
        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self.to('cuda')

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def share_memory(self):
        return self

    # ---- hooks and calling
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = RemovableHandle(self._forward_hooks, extra_dict=self._forward_hooks_with_kwargs)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        if self._is_full_backward_hook is False:
            raise RuntimeError('Cannot use both regular backward hooks and full backward hooks on a single Module. '
                               'Please use only one of them.')
        self.__dict__['_is_full_backward_hook'] = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        if self._is_full_backward_hook is True:
            raise RuntimeError('Cannot use both regular backward hooks and full backward hooks on a single Module. '
                               'Please use only one of them.')
        self.__dict__['_is_full_backward_hook'] = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_is_full_backward_hook[0] is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook[0] is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return list(_global_backward_pre_hooks.values()) + list(self._backward_pre_hooks.values())

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        import warnings
        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warnings.warn('Using non-full backward hooks on a Module that does not return a single Tensor or a '
                              'tuple of Tensors is deprecated and will be removed in future versions. This hook will '
                              'be missing some of the grad_output. Please use register_full_backward_hook to get the '
                              'documented behavior.', FutureWarning, stacklevel=2)
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warnings.warn('Using non-full backward hooks on a Module that does not take as input a single Tensor '
                              'or a tuple of Tensors is deprecated and will be removed in future versions. This hook '
                              'will be missing some of the grad_input. Please use register_full_backward_hook to get '
                              'the documented behavior.', FutureWarning, stacklevel=2)
                return
        else:
            inputs = (inputs,)
        out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_fns) == 0 or (len(out_fns) == 1 and grad_fn not in out_fns):
            warnings.warn('Using a non-full backward hook when outputs are nested in python data structure is '
                          'deprecated and will be removed in future versions. This hook will be missing some '
                          'grad_output.', FutureWarning, stacklevel=2)
        elif len(out_fns) > 1:
            warnings.warn('Using a non-full backward hook when outputs are generated by different autograd Nodes is '
                          'deprecated and will be removed in future versions. This hook will be missing some '
                          'grad_output. Please use register_full_backward_hook to get the documented behavior.',
                          FutureWarning, stacklevel=2)
        else:
            in_fns = {i.grad_fn for i in inputs if i.grad_fn is not None}
            if in_fns != {nx[0] for nx in grad_fn.next_functions}:
                warnings.warn('Using a non-full backward hook when the forward contains multiple autograd Nodes is '
                              'deprecated and will be removed in future versions. This hook will be missing some '
                              'grad_input. Please use register_full_backward_hook to get the documented behavior.',
                              FutureWarning, stacklevel=2)

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks or self._forward_pre_hooks
                or _global_backward_pre_hooks or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        result = None
        called_always = set()
        try:
            full_bw, non_full_bw, bw_pre = [], [], []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                bw_pre = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_bw, non_full_bw = self._get_backward_hooks()
            for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError('forward pre-hook must return None or a tuple of (new_args, '
                                               'new_kwargs), but got %s.' % (res,))
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            if full_bw or bw_pre:
                from ...utils.hooks import BackwardHook
                bw_hook = BackwardHook(self, full_bw, bw_pre)
                args = bw_hook.setup_input_hook(args)
            result = forward_call(*args, **kwargs)
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw_hook:
                if not isinstance(result, (Tensor, tuple)):
                    import warnings
                    warnings.warn('For backward hooks to be called, module output should be a Tensor or a tuple of '
                                  'Tensors but received %s' % type(result), stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if non_full_bw:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_bw:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            import warnings
            for hook_id, hook in _global_forward_hooks.items():
                if hook_id in _global_forward_hooks_always_called and hook_id not in called_always:
                    try:
                        res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:
                        warnings.warn('global module forward hook with ``always_call=True`` raised an exception that '
                                      'was silenced as another error was raised in forward: %s' % e, stacklevel=2)
            for hook_id, hook in self._forward_hooks.items():
                if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:
                        warnings.warn('module forward hook with ``always_call=True`` raised an exception that was '
                                      'silenced as another error was raised in forward: %s' % e, stacklevel=2)
            raise

    __call__ = _call_impl

    # ---- state dict
    def register_state_dict_pre_hook(self, hook):
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook):
        if getattr(hook, '_from_public_api', False):
            raise RuntimeError('Cannot register the same function as the state dict post hook that was previously '
                               'registered via register_state_dict_post_hook')
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def set_submodule(self, target, module, strict=False):
        if target == '':
            raise ValueError('Cannot set the submodule without a target name!')
        atoms = target.split('.')
        if not isinstance(module, Module):
            raise ValueError('`module` is not an nn.Module, found %s' % type(module))
        parent = self if len(atoms) == 1 else self.get_submodule('.'.join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + ' has no attribute `' + atoms[-1] + '`')
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError('`' + atoms[-1] + '` is not an nn.Module')
        setattr(parent, atoms[-1], module)

    def register_load_state_dict_post_hook(self, hook):
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra_state = type(self).get_extra_state
        if getattr(type(self), 'get_extra_state', Module.get_extra_state) is not Module.get_extra_state:
            destination[prefix + '_extra_state'] = self.get_extra_state()

    def get_extra_state(self):
        raise RuntimeError('Reached a code path in Module.get_extra_state() that should never be called.')

    def set_extra_state(self, state):
        raise RuntimeError('Reached a code path in Module.set_extra_state() that should never be called.')

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        if args:
            import warnings
            warnings.warn('Positional args are being deprecated, use kwargs instead. Refer to '
                          'https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict'
                          ' for details.', FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == '':
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, '_metadata'):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + '.', keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, '_from_public_api', False):
                if hook_result is not None:
                    destination = hook_result
            elif hook_result is not None:
                raise RuntimeError('state_dict post-hook must return None')
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        assign = local_metadata.get('assign_to_params_buffers', False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append('While copying the parameter named "%s", expected torch.Tensor or Tensor-like '
                                      'object from checkpoint but received %s' % (key, type(input_param)))
                    continue
                if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                    input_param = input_param[0]
                if input_param.shape != param.shape:
                    error_msgs.append('size mismatch for %s: copying a param with shape %s from checkpoint, the shape '
                                      'in current model is %s.' % (key, input_param.shape, param.shape))
                    continue
                try:
                    with _NoGrad():
                        if assign:
                            # assign=True: the module takes the checkpoint's tensor itself (a Parameter keeps the
                            # model's requires_grad)
                            if isinstance(param, Parameter):
                                if not isinstance(input_param, Parameter):
                                    input_param = Parameter(input_param, requires_grad=param.requires_grad)
                                else:
                                    input_param.requires_grad_(param.requires_grad)
                            setattr(self, name, input_param)
                        else:
                            param.copy_(input_param)
                except Exception as ex:
                    error_msgs.append('While copying the parameter named "%s", whose dimensions in the model are %s '
                                      'and whose dimensions in the checkpoint are %s, an exception occurred : %s.'
                                      % (key, param.size(), input_param.size(), ex.args))
            elif strict:
                missing_keys.append(key)
        extra_state_key = prefix + '_extra_state'
        if getattr(type(self), 'set_extra_state', Module.set_extra_state) is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split('.', 1)
                    # a dotted key must name a child module, a plain one a parameter or persistent buffer
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        from collections.abc import Mapping
        if not isinstance(state_dict, Mapping):
            raise TypeError('Expected state_dict to be dict-like, got %s.' % type(state_dict))
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, '_metadata', None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=''):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:   # as torch, this marks the state_dict's own metadata entry
                local_metadata['assign_to_params_buffers'] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + '.'
                    child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError('Hooks registered with ``register_load_state_dict_post_hook`` are not expected '
                                         'to return new values, if incompatible_keys need to be modified, it should be '
                                         'done inplace.')

        load(self, state_dict)
        del load
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, 'Unexpected key(s) in state_dict: %s. ' % ', '.join(
                    '"%s"' % k for k in unexpected_keys))
            if missing_keys:
                error_msgs.insert(0, 'Missing key(s) in state_dict: %s. ' % ', '.join('"%s"' % k for k in missing_keys))
        if error_msgs:
            raise RuntimeError('Error(s) in loading state_dict for %s:\n\t%s'
                               % (self.__class__.__name__, '\n\t'.join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        return ''

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split('\n')
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append('(' + key + '): ' + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + '('
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += '\n  ' + '\n  '.join(lines) + '\n'
        main_str += ')'
        return main_str

    def compile(self, *args, **kwargs):
        pass

    def _replicate_for_data_parallel(self):
        raise NotImplementedError('wick: data parallel replication is not supported')


class _NoGrad:
    def __enter__(self):
        self.prev = _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


def _typename(obj):
    import wick
    return wick.typename(obj)
