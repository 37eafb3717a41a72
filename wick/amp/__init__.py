"""torch.amp: autocast and GradScaler.

CPU autocast (bfloat16 matmuls/convolutions) is not implemented yet: entering an enabled CPU autocast region
raises NotImplementedError rather than computing in a different precision than torch would. Disabled regions
(and CUDA autocast on a machine without CUDA, which torch turns into a warning and a no-op) work."""
import warnings


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError('Expected `device_type` of type `str`, got: `%s`' % type(device_type))
        self.device_type, self.dtype, self.enabled = device_type, dtype, enabled
        if device_type == 'cuda' and enabled:
            warnings.warn('CUDA is not available or torch_xla is imported. Disabling autocast.', UserWarning,
                          stacklevel=2)
            self.enabled = False

    def __enter__(self):
        if self.enabled and self.device_type == 'cpu':
            raise NotImplementedError('wick: torch.autocast on the CPU (bfloat16 mixed precision) is not supported '
                                      'yet; use enabled=False or run in float32')
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.dtype, self.enabled):
                return fn(*args, **kwargs)
        return wrapper


def is_autocast_available(device_type):
    return device_type == 'cpu'


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
