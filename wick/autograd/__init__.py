"""torch.autograd: backward, grad and the grad-mode context managers."""
import functools

from .. import _C
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from . import function  # noqa: F401


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_list(inputs)
        if len(inputs) == 0:
            raise RuntimeError('`inputs` argument to `backward()` cannot be empty.')
    _C._run_backward(tensors, grads, bool(retain_graph), bool(create_graph), inputs, False, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    outputs = _as_list(outputs)
    single = not isinstance(inputs, (list, tuple))
    inputs = _as_list(inputs)
    grads = _as_list(grad_outputs) or [None] * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    res = _C._run_backward(outputs, grads, bool(retain_graph), bool(create_graph), inputs, bool(allow_unused), False)
    if materialize_grads:
        from .. import zeros_like
        res = tuple(zeros_like(i) if g is None else g for g, i in zip(res, inputs))
    return res


class _DecoratorContextManager:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)
        return wrapper

    _args = ()


class no_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    def __init__(self, mode):
        self._args = (mode,)
        self.mode = mode
        self.prev = _C._set_grad_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class inference_mode(_DecoratorContextManager):
    def __init__(self, mode=True):
        self._args = (mode,)
        self.mode = mode

    def __call__(self, fn):
        if not callable(fn) or isinstance(fn, bool):
            return inference_mode(fn)
        return super().__call__(fn)

    def __enter__(self):
        self.prev_inf = _C._set_inference_mode(self.mode)
        self.prev = _C._set_grad_enabled(not self.mode) if self.mode else _C.is_grad_enabled()

    def __exit__(self, *exc):
        _C._set_inference_mode(self.prev_inf)
        _C._set_grad_enabled(self.prev)


_anomaly = [False, True]


class set_detect_anomaly:
    """Anomaly detection: wick records the mode (and check_nan) but does not yet add forward traces to errors."""

    def __init__(self, mode, check_nan=True):
        self.prev = list(_anomaly)
        _anomaly[0], _anomaly[1] = bool(mode), bool(check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _anomaly[:] = self.prev


class detect_anomaly(set_detect_anomaly):
    def __init__(self, check_nan=True):
        import warnings
        warnings.warn('Anomaly Detection has been enabled. This mode will increase the runtime and should only be '
                      'enabled for debugging.', UserWarning, stacklevel=2)
        super().__init__(True, check_nan)


def is_anomaly_enabled():
    return _anomaly[0]


def is_anomaly_check_nan_enabled():
    return _anomaly[1]
