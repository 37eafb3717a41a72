"""The generated op functions of _C, re-exported as wick.<name>."""
from . import _C

_skip = {'tensor', 'absolute_'}  # torch has Tensor.absolute_ but no torch.absolute_
__all__ = []
for _name in dir(_C):
    if _name.startswith('_') or _name in _skip:
        continue
    _obj = getattr(_C, _name)
    # the native _C's builtins, or the Pyodide _C's op functions (wick/_pyodide/_C.py marks them _wk_op)
    if callable(_obj) and (type(_obj).__name__ == 'builtin_function_or_method' or getattr(_obj, '_wk_op', False)):
        globals()[_name] = _obj
        __all__.append(_name)
