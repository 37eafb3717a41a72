"""torch.amp: autocast (CPU: torch's per-op cast lists, see autocast_mode.py; CUDA: a warning and a no-op, as torch
on a machine without CUDA), custom_fwd / custom_bwd, and GradScaler."""
import functools
import warnings

from . import autocast_mode as _am


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError('Expected `device_type` of type `str`, got: `%s`' % type(device_type))
        import wick as torch
        torch.device(device_type)   # torch's error for a name that is no device type
        if not is_autocast_available(device_type) and device_type != 'cuda':
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device_type, self.enabled = device_type, enabled
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        if device_type == 'cuda' and enabled:
            warnings.warn('CUDA is not available or torch_xla is imported. Disabling autocast.', UserWarning,
                          stacklevel=2)
            self.enabled = False
        elif device_type == 'cpu' and enabled:
            if self.fast_dtype not in (torch.bfloat16, torch.float16):
                warnings.warn('In CPU autocast, but the target dtype is not supported. Disabling autocast.\n'
                              'CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.',
                              stacklevel=2)
                self.enabled = False
        self._prev = []

    def __enter__(self):
        if self.device_type == 'cpu':
            self._prev.append(_am.enter(self.enabled, self.fast_dtype))
        return self

    def __exit__(self, *exc):
        if self.device_type == 'cpu':
            _am.exit(self._prev.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self.enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return wrapper


def is_autocast_available(device_type):
    return device_type == 'cpu'


def is_autocast_enabled(device_type='cuda'):
    """torch.is_autocast_enabled(device_type): with no argument, CUDA's (never enabled here)."""
    return device_type == 'cpu' and _am.is_enabled()


def get_autocast_dtype(device_type):
    import wick as torch
    if device_type == 'cpu':
        return _am.get_dtype()
    return torch.float16


def _cast(value, device_type, dtype):
    import wick as torch
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() and value.dtype != torch.float64 else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


class GradScaler:
    """torch.amp.GradScaler. Disabled (the CUDA device here, or enabled=False) it is a pass-through; enabled on the
    CPU it scales the loss, unscales gradients, skips steps with inf/nan gradients and adapts the scale, as torch."""

    def __init__(self, device='cuda', init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == 'cuda' and enabled:
            warnings.warn('torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.',
                          UserWarning, stacklevel=2)
            self._enabled = False
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval, self._growth_tracker = growth_interval, 0
        self._unscaled = set()
        self._found_inf = False

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * self._scale

    def unscale_(self, optimizer):
        if not self._enabled or id(optimizer) in self._unscaled:
            if self._enabled:
                raise RuntimeError('unscale_() has already been called on this optimizer since the last update().')
            return
        from .. import no_grad, isfinite
        inv = 1.0 / self._scale
        with no_grad():
            for group in optimizer.param_groups:
                for p in group['params']:
                    if p.grad is not None:
                        p.grad.mul_(inv)
                        if not bool(isfinite(p.grad).all()):
                            self._found_inf = True
        self._unscaled.add(id(optimizer))

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        if not self._found_inf:
            return optimizer.step(*args, **kwargs)
        return None

    def update(self, new_scale=None):
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        elif self._found_inf:
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._found_inf = False
        self._unscaled = set()

    def state_dict(self):
        if not self._enabled:
            return {}
        return {'scale': self._scale, 'growth_factor': self._growth_factor, 'backoff_factor': self._backoff_factor,
                'growth_interval': self._growth_interval, '_growth_tracker': self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        self._scale = state_dict['scale']
        self._growth_factor = state_dict['growth_factor']
        self._backoff_factor = state_dict['backoff_factor']
        self._growth_interval = state_dict['growth_interval']
        self._growth_tracker = state_dict['_growth_tracker']
