"""torch.cuda.amp: deprecated aliases of torch.amp for the CUDA device (never available here)."""
import warnings


def GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
    warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    from ..amp import GradScaler as _GS
    return _GS('cuda', init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def autocast(enabled=True, dtype=None, cache_enabled=True):
    warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    from ..amp import autocast as _ac
    return _ac('cuda', dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
