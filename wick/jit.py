"""torch.jit in wick: the names programs reach, run eagerly. wick has no TorchScript compiler, so script / trace
return the function or module itself (it runs exactly as torch's eager code would: same values, same errors);
trace runs it once on the example inputs as torch's tracer does. The decorators (ignore, unused, export,
interface), is_scripting / is_tracing (False), annotate, Final, fork / wait (synchronous) behave as torch's do in
eager mode. What needs TorchScript itself -- save / load of TorchScript archives, .graph / .code, freeze's
optimisations -- raises NotImplementedError naming itself: save a state_dict with torch.save instead."""
import sys
import typing
import warnings

_wick = sys.modules[__package__]

Final = typing.Final


class Error(RuntimeError):
    pass


class TracerWarning(Warning):
    pass


class ScriptWarning(Warning):
    pass


class ScriptModule(_wick.nn.Module):
    """Exists for isinstance checks and subclassing; wick's script() returns the module itself, not one of these."""


class ScriptFunction:
    """Exists for isinstance checks; wick's script() returns the function itself."""


class Attribute(typing.NamedTuple):
    value: typing.Any
    type: typing.Any


def _not_supported(what):
    return NotImplementedError(f"wick: torch.jit.{what} needs TorchScript, which wick does not have (it runs "
                               "eagerly); save weights with torch.save(model.state_dict(), path) instead")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` "
                      "instead", FutureWarning, stacklevel=2)
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    if example_inputs is not None or example_kwarg_inputs is not None:
        args = example_inputs if isinstance(example_inputs, tuple) else (
            () if example_inputs is None else (example_inputs,))
        func(*args, **(example_kwarg_inputs or {}))
    return func


def trace_module(mod, inputs, *args, **kwargs):
    for method, example in inputs.items():
        getattr(mod, method)(*(example if isinstance(example, tuple) else (example,)))
    return mod


def script_if_tracing(fn):
    return fn


def script_method(fn):
    return fn


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    if kwargs.pop("drop_on_export", None):
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type):  # noqa: A001  (torch's name)
    import builtins
    origin = typing.get_origin(target_type)
    if origin is None:
        return builtins.isinstance(obj, target_type)
    if not builtins.isinstance(obj, origin):
        return False
    args = typing.get_args(target_type)
    if origin in (list, tuple) and args:
        if origin is tuple and len(args) != len(obj):
            return False
        elems = args if origin is tuple else [args[0]] * len(obj)
        return all(isinstance(o, t) for o, t in zip(obj, elems))
    if origin is dict and args:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    return True


class Future:
    """torch.jit.fork's future in eager mode: the call has already run."""
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True


def fork(func, *args, **kwargs):
    return Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod.eval()


class optimized_execution:
    def __init__(self, should_optimize):
        self.should_optimize = should_optimize

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def save(m, f, _extra_files=None):
    raise _not_supported('save')


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise _not_supported('load')


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    raise AttributeError(f"module 'torch.jit' has no attribute '{name}' (wick has no TorchScript: see wick/jit.py)")
