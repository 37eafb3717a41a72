"""torch.autograd: backward, grad and the grad-mode context managers."""
import functools
import threading

from .. import _C
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from . import function  # noqa: F401


def _as_tuple(x, what):
    """A tensor alone, a dict's values (a dict only: other mappings are refused as torch does), or a sequence."""
    if isinstance(x, _C.TensorBase):
        return (x,)
    if type(x) is dict:
        return tuple(x.values())
    from collections.abc import Mapping
    if isinstance(x, Mapping):
        raise TypeError('`inputs` argument to `%s()` must be a dict, not %s. Other Mapping types are not supported.'
                        % (what, type(x).__name__))
    return tuple(x)


def _make_grads(outputs, grads):
    """torch's checks of the given output gradients, in torch's order, before the engine sees the graph: a
    tensor must have its output's shape; None is ones for a one-element floating output that requires grad
    (and stays None for one that does not: the engine then names it); anything else is a TypeError."""
    new = []
    for out, g in zip(outputs, grads):
        if isinstance(g, _C.TensorBase):
            if tuple(out.shape) != tuple(g.shape):
                raise RuntimeError('Mismatch in shape: grad_output[%d] has a shape of %s and output[%d] has a shape '
                                   'of %s.' % (_index(grads, g), g.shape, _index(outputs, out), out.shape))
            new.append(g)
        elif g is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError('grad can be implicitly created only for scalar outputs')
                if not out.dtype.is_floating_point:
                    raise RuntimeError('grad can be implicitly created only for real scalar outputs but got %s'
                                       % out.dtype)
                from .. import ones_like
                new.append(ones_like(out))
            else:
                new.append(None)
        else:
            raise TypeError('gradients can be either Tensors or None, but got ' + type(g).__name__)
    return new


def __getattr__(name):   # torch.autograd.functional / gradcheck / forward_ad load on first use
    import importlib
    if name in ('functional', 'forward_ad'):
        return importlib.import_module('.' + name, __name__)
    if name in ('gradcheck', 'gradgradcheck'):   # the functions, as torch.autograd's own names
        mod = importlib.import_module('.gradcheck', __name__)
        globals()['gradcheck'], globals()['gradgradcheck'] = mod.gradcheck, mod.gradgradcheck
        return globals()[name]
    raise AttributeError("module 'wick.autograd' has no attribute '%s'" % name)


def _index(seq, x):
    """The position torch's message names: the first element that is x (torch's tuple.index compares with
    ==, which for two tensors is elementwise; wick names the identical one)."""
    for i, y in enumerate(seq):
        if y is x:
            return i
    return 0


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    if grad_variables is not None:
        import warnings
        warnings.warn('`grad_variables` is deprecated. Use `grad_tensors` instead.', FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError('`grad_tensors` and `grad_variables` (deprecated) arguments both passed to '
                               '`backward()`. Please only use `grad_tensors`.')
    inputs_tuple = () if inputs is None else _as_tuple(inputs, 'backward')
    if inputs is not None and len(inputs_tuple) == 0:
        raise RuntimeError('`inputs` argument to `backward()` cannot be empty.')
    tensors = (tensors,) if isinstance(tensors, _C.TensorBase) else tuple(tensors)
    grads = (None,) * len(tensors) if grad_tensors is None else (
        (grad_tensors,) if isinstance(grad_tensors, _C.TensorBase) else tuple(grad_tensors))
    grads = _make_grads(tensors, grads)
    if retain_graph is None:
        retain_graph = create_graph
    global _warned_create_graph
    if create_graph and all(isinstance(t, _C.TensorBase) and t.requires_grad for t in tensors) and (
            not _warned_create_graph or _is_warn_always_enabled()):
        _warned_create_graph = True   # torch warns once per process, or every time under set_warn_always(True)
        import warnings
        warnings.warn('Using backward() with create_graph=True will create a reference cycle between the parameter '
                      'and its gradient which can cause a memory leak. We recommend using autograd.grad when creating '
                      'the graph to avoid this. If you have to use this function, make sure to reset the .grad fields '
                      'of your parameters to None after use to break the cycle and avoid the leak.', UserWarning,
                      stacklevel=2)
    _run(tensors, grads, bool(retain_graph), bool(create_graph), list(inputs_tuple) if inputs is not None else None,
         False, True)


_warned_create_graph = False
from .._printing import is_warn_always_enabled as _is_warn_always_enabled  # noqa: E402


def _run(tensors, grads, retain_graph, create_graph, inputs, allow_unused, accumulate):
    from ..func import _vmap
    _vmap.refuse_batched(tensors, grads, inputs or ())   # inside a batching vmap: its loop runs instead
    if len(tensors) != len(grads):
        raise RuntimeError('got %d tensors and %d gradients' % (len(tensors), len(grads)))
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.TensorBase):
            raise TypeError('expected Tensor as element %d in argument 0, but got %s' % (i, type(t).__name__))
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError('element %d of tensors does not require grad and does not have a grad_fn' % i)
    if accumulate and inputs:
        for t in inputs:   # torch's backward retains the gradient of every input (a no-op for a leaf)
            if isinstance(t, _C.TensorBase):
                t.retain_grad()
    # the engine takes each gradient in its output's dtype (torch's validate_outputs casts)
    grads = [g.to(t.dtype) if g is not None and g.dtype != t.dtype else g for t, g in zip(tensors, grads)]
    stack = _checkpoint_valid.__dict__.setdefault('stack', [])
    stack.append(accumulate and not inputs)
    try:
        return _C._run_backward(list(tensors), list(grads), retain_graph, create_graph, inputs, allow_unused,
                                accumulate)
    finally:
        stack.pop()


_checkpoint_valid = threading.local()   # per running backward: False for grad() and backward(inputs=...)


def _is_checkpoint_valid():
    """False inside a backward that autograd.grad or backward(inputs=...) started (reentrant checkpoint refuses
    those, as torch's does)."""
    stack = getattr(_checkpoint_valid, 'stack', None)
    return stack[-1] if stack else True


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if materialize_grads and allow_unused is False:
        raise ValueError('Expected allow_unused to be True or not passed when materialize_grads=True, but got: '
                         'allow_unused=False.')
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = (outputs,) if isinstance(outputs, _C.TensorBase) else tuple(outputs)
    inputs_tuple = _as_tuple(inputs, 'grad')
    if len(inputs_tuple) == 0:
        raise RuntimeError('`inputs` argument to `grad()` cannot be empty.')
    if not only_inputs:
        import warnings
        warnings.warn('only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate '
                      'gradient for other parts of the graph, please use torch.autograd.backward.', FutureWarning,
                      stacklevel=2)
    grads = (None,) * len(outputs) if grad_outputs is None else (
        (grad_outputs,) if isinstance(grad_outputs, _C.TensorBase) else tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        res = _grad_batched(outputs, grads, bool(retain_graph), bool(create_graph), list(inputs_tuple),
                            bool(allow_unused))
    else:
        grads = _make_grads(outputs, grads)
        res = _run(outputs, grads, bool(retain_graph), bool(create_graph), list(inputs_tuple), bool(allow_unused),
                   False)
    if materialize_grads:
        from .. import zeros_like
        res = tuple(zeros_like(i, requires_grad=create_graph) if g is None else g for g, i in zip(res, inputs_tuple))
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), res))
    return res


def _grad_batched(outputs, grads, retain_graph, create_graph, inputs, allow_unused):
    """grad(is_grads_batched=True): the first dim of every grad_output is a batch of vectors; the result stacks one
    vector-Jacobian product per batch entry. torch batches them with vmap; wick runs one backward per entry (the
    same values, batch-size times the work)."""
    from .. import stack
    for out, g in zip(outputs, grads):   # torch's message names grad[0]'s shape less its first dim, as here
        if isinstance(g, _C.TensorBase) and tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError('If `is_grads_batched=True`, we interpret the first dimension of each grad_output as '
                               'the batch dimension. The sizes of the remaining dimensions are expected to match the '
                               'shape of corresponding output, but a mismatch was detected: grad_output[%d] has a '
                               'shape of %s and output[%d] has a shape of %s. If you only want some tensors in '
                               '`grad_output` to be considered batched, consider using vmap.'
                               % (_index(grads, g), g[0].shape[1:], _index(outputs, out), out.shape))
    batch = next((g.shape[0] for g in grads if isinstance(g, _C.TensorBase)), None)
    if batch is None:
        raise NotImplementedError('wick: autograd.grad(is_grads_batched=True) without a tensor in grad_outputs is '
                                  'not supported yet')
    per = []
    for b in range(batch):
        gb = _make_grads(outputs, [g[b] if isinstance(g, _C.TensorBase) else g for g in grads])
        per.append(_run(outputs, gb, True if b < batch - 1 else retain_graph, create_graph, inputs, allow_unused,
                        False))
    return tuple(None if per[0][i] is None else stack([r[i] for r in per]) for i in range(len(inputs)))


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
        self.prev = _C._set_grad_enabled(not self.mode)   # inference_mode(False) turns grad mode back on, as torch

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


from .variable import Variable  # noqa: E402,F401
from . import graph, grad_mode, variable  # noqa: E402,F401
