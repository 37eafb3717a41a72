"""torch.autograd.Function: custom operations with a Python backward.

`MyFn.apply(*args)` runs `MyFn.forward(ctx, *args)` with grad mode off, then records a graph node whose
backward calls `MyFn.backward(ctx, *grads)`. The ctx is the grad_fn object itself (its class is
`MyFnBackward`), as in torch."""
from .. import _C
from . import graph as _graph

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they have "
          "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
          "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
          "you need to access saved tensors after calling backward.")


class _Packed:
    """a custom Function's saved tensor as a saved_tensors_hooks pack_hook returned it"""
    __slots__ = ('unpack_hook', 'packed')

    def __init__(self, unpack_hook, packed):
        self.unpack_hook, self.packed = unpack_hook, packed

    def unpack(self):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, _C.TensorBase):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        return t


class FunctionCtx:
    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(_C._FunctionBase, FunctionCtx):
    """The grad_fn of a custom Function: holds the saved state and runs the Python backward."""

    def _do_backward(self, grads):
        if getattr(self, 'materialize_grads', True):
            from .. import zeros
            grads = tuple(zeros(*shape, dtype=dt) if g is None else g
                          for g, (shape, dt) in zip(grads, self._output_meta))
        fn = self._forward_cls
        if getattr(fn.backward, '_once_differentiable', False) or not _C.is_grad_enabled():
            res = fn.backward(self, *grads)
        else:
            res = fn.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self._input_is_tensor)
        if len(res) > n and all(r is None for r in res[n:]):
            res = res[:n]
        if len(res) != n:
            raise RuntimeError('function %s returned an incorrect number of gradients (expected %d, got %d)'
                               % (type(self).__name__, n, len(res)))
        return res

    def _release_saved(self):
        self._saved_freed = True
        self._saved = None

    @property
    def saved_tensors(self):
        if getattr(self, '_saved_freed', False):
            raise RuntimeError(_FREED)
        out = []
        for entry in getattr(self, '_saved', ()):
            if entry is None:
                out.append(None)
                continue
            t, version, output_nr = entry
            if isinstance(t, _Packed):
                t = t.unpack()
                out.append(_C._attach_history(_C._saved_alias(t), self, output_nr) if output_nr >= 0 else t)
                continue
            if t._version != version:
                raise RuntimeError(
                    'one of the variables needed for gradient computation has been modified by an inplace '
                    'operation: [%s [%s]], which is output %d of %s, is at version %d; expected version %d instead. '
                    'Hint: enable anomaly detection to find the operation that failed to compute its gradient, '
                    'with torch.autograd.set_detect_anomaly(True, check_nan=False).'
                    % (t.type(), ', '.join(str(s) for s in t.shape), max(output_nr, 0),
                       type(self).__name__[:-len('Backward')], t._version, version))
            out.append(_C._attach_history(t, self, output_nr) if output_nr >= 0 else t)
        return tuple(out)

    saved_variables = saved_tensors

    @property
    def needs_input_grad(self):
        return self._needs_input_grad


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + 'Backward', (BackwardCFunction,), {'_forward_cls': cls})
        backward_cls.__module__ = 'torch.autograd.function'
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class for custom autograd operations: define static `forward(ctx, ...)` and `backward(ctx, ...)`."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError('Legacy autograd function with non-static forward method is deprecated. Please use new-style '
                           'autograd function with static forward method. (Example: '
                           'https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)')

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError('You must implement the forward function for custom autograd.Function.')

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError('You must implement either the backward or vjp method for your custom '
                                  'autograd.Function to use it with backward mode AD.')

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError('setup_context is not implemented.')

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..func import _vmap
        _vmap.refuse_batched(args, tuple(kwargs.values()))   # inside a batching vmap: its loop runs instead
        # a Function that overrides setup_context has forward(*args) without ctx; its arguments are bound to
        # forward's signature first (defaults filled in), and setup_context(ctx, inputs, output) follows forward
        split = cls.setup_context is not Function.setup_context
        if split:
            import inspect
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        tangents = _tangents(args)
        fargs = args
        if tangents is not None:   # forward-mode AD: forward sees the primals, jvp gives the outputs' tangents
            fargs = tuple(_C._fw_primal(a, 0) if t is not None else a for a, t in zip(args, tangents))
        grad_on = _C.is_grad_enabled() and not _C.is_inference_mode_enabled()
        # as torch: needs_input_grad follows requires_grad even when grad mode is off (nothing is recorded then)
        ctx._needs_input_grad = tuple(isinstance(a, _C.TensorBase) and a.requires_grad for a in args)
        ctx._input_is_tensor = tuple(isinstance(a, _C.TensorBase) for a in args)
        prev = _C._set_grad_enabled(False)
        try:
            if split:
                outputs = cls.forward(*fargs, **kwargs)
                cls.setup_context(ctx, fargs, outputs)
            else:
                outputs = cls.forward(ctx, *fargs, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        record = grad_on and any(ctx._needs_input_grad)
        if record:
            for i, t in enumerate(getattr(ctx, 'to_save', None) or ()):
                if t is not None and not isinstance(t, _C.TensorBase):
                    raise TypeError('save_for_backward can only save variables, but argument %d is of type %s'
                                    % (i, type(t).__name__))
            for t in getattr(ctx, 'to_save', None) or ():
                if t is not None and t.is_inference():
                    raise RuntimeError(
                        'Inference tensors cannot be saved for backward. Please do not use Tensors created in '
                        'inference mode in computation tracked by autograd. To work around this, you can make a clone '
                        'to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of '
                        '`torch.inference_mode()`.')
        dirty = getattr(ctx, 'dirty_tensors', ())
        for t in dirty:   # torch counts mark_dirty as a write
            if isinstance(t, _C.TensorBase):
                _C._bump_version(t)
        if not record:
            res = _unrecorded_outputs(outputs, args, dirty)
            if tangents is not None:
                _set_tangents(cls, ctx, args, tangents, (res,) if single else res)
            return res
        ctx._output_meta = tuple((tuple(o.shape), o.dtype) if isinstance(o, _C.TensorBase) else ((), None)
                                 for o in outs)
        outs = _C._function_record(ctx, tuple(args), tuple(outs), getattr(ctx, 'non_differentiable', ()),
                                   getattr(ctx, 'dirty_tensors', ()))
        saved = []
        for t in getattr(ctx, 'to_save', ()):
            if t is None:
                saved.append(None)
                continue
            nr = next((i for i, o in enumerate(outputs if not single else (outputs,)) if o is t), -1)
            if nr >= 0:   # a saved output: keep it without history (no cycle), re-attached when unpacked
                entry = (_C._saved_alias(outs[nr]), outs[nr]._version, nr)
            else:
                entry = (t, t._version, -1)
            hooks = _graph._active()
            if hooks is not None:   # saved_tensors_hooks: keep what pack_hook returns (Note [Saved-tensor hooks])
                entry = (_Packed(hooks[1], _graph.call_pack(hooks[0], entry[0])), None, entry[2])
            saved.append(entry)
        ctx._saved = tuple(saved)
        ctx.to_save = None
        if tangents is not None:   # after the record, as torch's (what jvp reads of ctx has the outputs' history)
            _set_tangents(cls, ctx, args, tangents, outs)
        return outs[0] if single else outs


def _tangents(args):
    """the tangents of a Function's tensor arguments at the open dual level (None each where none), or None"""
    from . import forward_ad
    if forward_ad._current_level < 0:
        return None
    ts = [_C._fw_tangent(a, 0) if isinstance(a, _C.TensorBase) and _C._has_fw_grad(a, 0) else None for a in args]
    return ts if any(t is not None for t in ts) else None


def _set_tangents(cls, ctx, args, tangents, outs):
    """the outputs' tangents from cls.jvp(ctx, *the inputs' tangents), as torch's custom Function jvp"""
    if cls.jvp is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")
    gi = [t if t is not None else (_C.zeros_like(a) if isinstance(a, _C.TensorBase) else None)
          for a, t in zip(args, tangents)]
    go = cls.jvp(ctx, *gi)
    go = go if isinstance(go, tuple) else (go,)
    if len(go) != len(outs):
        raise RuntimeError(f"jvp function returned an incorrect number of forward gradients (expected {len(outs)}, "
                           f"got {len(go)})")
    for o, g in zip(outs, go):
        if isinstance(o, _C.TensorBase) and isinstance(g, _C.TensorBase) and (o.is_floating_point() or o.is_complex()):
            _C._set_fw_grad(o, g, 0)


def _unrecorded_outputs(outputs, args, dirty):
    """The outputs of a Function that records no graph, as torch hands them back: an input returned unchanged
    comes back as a new alias (a view when it needs no grad, else detached), any other output that requires grad
    is detached."""
    def fix(o):
        if not isinstance(o, _C.TensorBase):
            return o
        is_input = any(o is a for a in args)
        is_dirty = any(o is d for d in dirty)
        if not o.requires_grad:
            if is_input and not is_dirty:
                prev = _C._set_grad_enabled(False)
                try:
                    return o.view_as(o)
                finally:
                    _C._set_grad_enabled(prev)
            return o
        if is_input:
            return o.detach()
        if o._base is None:
            o.detach_()
        return o
    if isinstance(outputs, tuple):
        return tuple(fix(o) for o in outputs)
    return fix(outputs)


def once_differentiable(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _C._set_grad_enabled(False)
        try:
            return fn(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
    wrapper._once_differentiable = True
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
