"""The generated op functions of _C, re-exported as wick.<name>."""
from . import _C

_skip = {'tensor', 'absolute_'}  # torch has Tensor.absolute_ but no torch.absolute_
__all__ = []
for _name in dir(_C):
    if _name.startswith('_') or _name in _skip:
        continue
    _obj = getattr(_C, _name)
    if callable(_obj) and type(_obj).__name__ == 'builtin_function_or_method':
        globals()[_name] = _obj
        __all__.append(_name)
