"""Argument types checked as torch's argument parser checks them, before a Python-level function uses its arguments.

torch writes these functions in C++ behind its parser, so a wrong type is a TypeError naming the function, the
argument and its position ("bilinear(): argument 'input2' (position 2) must be Tensor, not range"). wick writes them
in Python, where the first use of the argument (`input2.dim()`) would raise AttributeError instead. `tensor_args`
declares the Tensor parameters once, in the schema's terms (a trailing '?' for Tensor?), and checks them on entry."""
import functools
import inspect


def tensor_args(*spec, api=None):
    def deco(fn):
        sig = inspect.signature(fn)
        params = list(sig.parameters)
        checks = []
        for s in spec:
            name, optional = s.rstrip('?'), s.endswith('?')
            checks.append((name, params.index(name), optional))
        label = api or fn.__name__

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            from . import Tensor
            for name, i, optional in checks:
                if i < len(args):
                    v, where = args[i], f" (position {i + 1})"
                elif name in kwargs:
                    v, where = kwargs[name], ""  # torch names no position for a keyword argument
                else:
                    continue  # missing: the call itself raises torch's TypeError
                if not isinstance(v, Tensor) and not (optional and v is None):
                    raise TypeError(f"{label}(): argument '{name}'{where} must be Tensor, not {type(v).__name__}")
            return fn(*args, **kwargs)
        return wrapper
    return deco
