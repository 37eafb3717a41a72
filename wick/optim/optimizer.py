"""torch.optim.Optimizer: param groups, per-parameter state, hooks, state_dict in torch's layout.

The bookkeeping is plain Python as in torch; the update arithmetic of every optimizer runs in C, one call per
param group (ops/optim.def, src/ops/optim.c).
"""
import copy
import functools
import itertools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable

import wick as _wick
from wick import _C
from wick._tensor import Tensor
from wick.nn.modules.module import RemovableHandle

__all__ = ['Optimizer', 'register_optimizer_step_pre_hook', 'register_optimizer_step_post_hook', 'required']

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """The default of a hyper-parameter that every param group must give (SGD's lr in old torch)."""

    def __repr__(self):
        return '<required parameter>'


required = _RequiredParameter()


def _typename(obj):
    import wick
    return wick.typename(obj)


def _get_scalar_dtype():
    """The dtype of state scalars such as state['step']: float64 under a float64 default dtype, else float32."""
    return _wick.float64 if _wick.get_default_dtype() == _wick.float64 else _wick.float32


def _get_value(x):
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A hyper-parameter given as a one-element tensor becomes 0-d (torch's _to_scalar)."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _hp(x):
    """A hyper-parameter as the C step takes it (a float; a 0-d tensor gives its value)."""
    return float(x.item()) if isinstance(x, Tensor) else x


def _use_grad_for_differentiable(func):
    """step() runs with grad mode set to the optimizer's `differentiable` default (off), as in torch."""
    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = _C._set_grad_enabled(bool(self.defaults['differentiable']))
        try:
            return func(self, *args, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
    return _use_grad


def _zeros_state(p):
    """zeros_like(p, memory_format=torch.preserve_format): a zero state buffer shaped like the parameter."""
    return _wick.zeros_like(p)


def _full_state(p, value):
    t = _wick.zeros_like(p)
    if value != 0:
        t.fill_(value)
    return t


def _cast_like(value, dtype):
    """value.to(dtype=dtype): the tensor itself when the dtype already matches."""
    if value.dtype == dtype:
        return value
    if hasattr(value, 'to'):
        return value.to(dtype=dtype)
    out = _wick.zeros_like(value, dtype=dtype)
    out.copy_(value)
    return out


def register_optimizer_step_pre_hook(hook):
    """Registers hook(optimizer, args, kwargs) -> None | (args, kwargs), run before every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Registers hook(optimizer, args, kwargs), run after every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _hooked_step(step):
    """Wraps a class's step with the global and per-instance step hooks (torch patches it the same way)."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        for hook in itertools.chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f'{step} must return None or a tuple of (new_args, new_kwargs), but got '
                                       f'{result}.')
        out = step(*args, **kwargs)
        self._optimizer_step_code()
        for hook in itertools.chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class for all optimizers.

    params: an iterable of Tensors, of (name, Tensor) pairs, or of dicts (param groups); defaults: the default
    value of every hyper-parameter (used where a param group does not give one)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError('params argument given to the optimizer should be an iterable of Tensors or dicts, '
                            'but got ' + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError('optimizer got an empty parameter list')
        if not isinstance(groups[0], dict):
            groups = [{'params': groups}]
        for group in groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    # ---- pickling (torch keeps only these three) ----
    def __getstate__(self):
        return {'defaults': self.defaults, 'state': self.state, 'param_groups': self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ('_optimizer_step_pre_hooks', '_optimizer_step_post_hooks', '_optimizer_state_dict_pre_hooks',
                     '_optimizer_state_dict_post_hooks', '_optimizer_load_state_dict_pre_hooks',
                     '_optimizer_load_state_dict_post_hooks'):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault('differentiable', False)

    def __repr__(self):
        text = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            text += f'\nParameter Group {i}\n'
            for key in sorted(group):
                if key != 'params':
                    text += f'    {key}: {group[key]}\n'
        return text + ')'

    def _patch_step_function(self):
        self._zero_grad_profile_name = f'Optimizer.zero_grad#{self.__class__.__name__}.zero_grad'
        if not getattr(self.__class__.step, 'hooked', None):
            self.__class__.step = _hooked_step(self.__class__.step)

    def _optimizer_step_code(self):
        """Called after every step (torch's profiler entry point); nothing to do."""

    def _accelerator_graph_capture_health_check(self):
        """No accelerator graphs on a CPU: nothing to check."""

    _cuda_graph_capture_health_check = _accelerator_graph_capture_health_check

    # ---- hooks ----
    def register_step_pre_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    @staticmethod
    def _register(hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state_dict ----
    def state_dict(self):
        """{'state': {param id: {...}}, 'param_groups': [{..., 'params': [ids]}]}; ids number the params in group
        order. State tensors are shared, not copied (as in torch)."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        ids = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != 'params'}
            start = len(ids)
            for i, p in enumerate(group['params']):
                ids.setdefault(id(p), start + i)
            packed['params'] = [ids[id(p)] for p in group['params']]
            groups.append(packed)
        state = {(ids[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result = {'state': state, 'param_groups': groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = capturable = False
        for group in param_groups:
            if param_id in group['params']:
                fused = group.get('fused', False)
                capturable = group.get('capturable', False)
                break
        if key == 'step':
            return _cast_like(value, _wick.float32) if (capturable or fused) else value
        return _cast_like(value, param.dtype) if param.is_floating_point() else value

    def load_state_dict(self, state_dict):
        """Loads a state_dict() of an optimizer with the same param group structure. Tensors are cast to their
        param's dtype (except 'step'), as in torch."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict['param_groups'])
        if len(groups) != len(saved_groups):
            raise ValueError('loaded state dict has a different number of parameter groups')
        if any(len(g['params']) != len(s['params']) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(itertools.chain.from_iterable(s['params'] for s in saved_groups),
                          itertools.chain.from_iterable(g['params'] for g in groups)))

        def cast(param, value, param_id, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, state_dict['param_groups'], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict['state'].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group['params'] = group['params']
            if 'param_names' in group and 'param_names' not in new_group:
                new_group['param_names'] = group['param_names']
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({'state': state, 'param_groups': param_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ---- gradients ----
    def zero_grad(self, set_to_none=True):
        """Sets every parameter's .grad to None (default) or zeroes it in place."""
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Adds a param group (a dict with 'params' and optional hyper-parameters) to param_groups."""
        if not isinstance(param_group, dict):
            raise TypeError(f'param_group must be a dict, but got {type(param_group)}')
        params = param_group['params']
        if isinstance(params, Tensor):
            param_group['params'] = [params]
        elif isinstance(params, set):
            raise TypeError('optimizer parameters need to be organized in ordered collections, but the ordering '
                            'of tensors in sets will change between runs. Please use a list instead.')
        else:
            param_group['params'] = list(params)
        tensors, names = [], []
        for param in param_group['params']:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group['params'] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError('all optimizer params should be with/without names. Some param names are missing')
            param_group['param_names'] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError('optimizer can only optimize Tensors, but one of the params is ' + _typename(param))
            if not self.defaults.get('differentiable', None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError('parameter group didn\'t specify a value of required optimization parameter '
                                 + name)
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn('optimizer contains a parameter group with duplicate parameters; in future, this will '
                          'cause an error; see github.com/pytorch/pytorch/issues/40967 for more information',
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(set(group['params']))
            if ('param_names' in param_group) != ('param_names' in group):
                which = 'with names' if 'param_names' in param_group else 'without names'
                raise ValueError('all optimizer param groups should be with/without names. '
                                 f'cannot add param group {which} to the optimizer')
        if not seen.isdisjoint(set(tensors)):
            raise ValueError('some parameters appear in more than one parameter group')
        self.param_groups.append(param_group)


# ---- shared by the optimizers ----
def _check_impl_flags(opt, fused, foreach, differentiable):
    """torch's checks of fused/foreach/differentiable after the param groups are built. foreach and fused select
    faster kernels in torch; wick runs its one C step for all of them (foreach is bit-identical to the for-loop
    path on the CPU; torch's fused CPU kernels can differ from it in the last bit)."""
    if fused:
        if differentiable:
            raise RuntimeError('`fused` does not support `differentiable`')
        if foreach:
            raise RuntimeError('`fused` and `foreach` cannot be `True` together.')


def _check_step_flags(group, what='params and state_steps', supports_xla=True):
    """What torch's single-tensor step refuses on a CPU: capturable=True, and (in wick) differentiable=True."""
    if group.get('differentiable'):
        raise NotImplementedError('wick: differentiable=True optimizers are not supported (the C update step does '
                                  'not record an autograd graph)')
    if group.get('capturable'):
        devices = ['cuda', 'xpu', 'hpu', 'privateuseone'] + (['xla'] if supports_xla else [])
        raise AssertionError(f'If capturable=True, {what} must be on supported devices: {devices}.')


def _new_step():
    """A fresh state['step']: torch.tensor(0.0, dtype=_get_scalar_dtype())."""
    return _wick.tensor(0.0, dtype=_get_scalar_dtype())


def _tensor_steps(opt, group, keys=('step',)):
    """__setstate__: old checkpoints stored step as a number; torch turns it into a scalar tensor."""
    for p in group['params']:
        p_state = opt.state.get(p, [])
        if len(p_state) != 0:
            for key in keys:
                if key in p_state and not isinstance(p_state[key], Tensor):
                    p_state[key] = _wick.tensor(float(p_state[key]), dtype=_get_scalar_dtype())


def _setstate_groups(opt, defaults, step_keys=('step',)):
    """The body of torch's per-optimizer __setstate__ (after super().__setstate__): param groups from an older
    pickle get the options they lack (`defaults`, (key, value) pairs in torch's order), and numeric steps become
    tensors."""
    for group in opt.param_groups:
        for key, value in defaults:
            group.setdefault(key, value)
        _tensor_steps(opt, group, step_keys)


def _check_inplace(params):
    """The functional forms update params in place: like torch's in-place ops, refuse a leaf that requires grad
    while grad mode is on (step() runs them under no_grad)."""
    if _wick.is_grad_enabled():
        for p in params:
            if p.requires_grad and p.is_leaf:
                raise RuntimeError('a leaf Variable that requires grad is being used in an in-place operation.')


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError('Tensor lr must be 1-element')
    if not 0.0 <= _hp(lr):
        raise ValueError(f'Invalid learning rate: {lr}')


def _check_eps(eps):
    if not 0.0 <= eps:
        raise ValueError(f'Invalid epsilon value: {eps}')


def _check_betas(betas):
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f'Invalid beta parameter at index 0: {betas[0]}')
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f'Invalid beta parameter at index 1: {betas[1]}')


def _check_weight_decay(weight_decay):
    if not 0.0 <= weight_decay:
        raise ValueError(f'Invalid weight_decay value: {weight_decay}')


def _closure_loss(closure):
    """loss = closure() under enable_grad, as every torch step does."""
    if closure is None:
        return None
    with _wick.enable_grad():
        return closure()
