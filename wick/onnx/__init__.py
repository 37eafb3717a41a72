"""torch.onnx: export a model to ONNX by tracing one forward through wick (see _trace.py).

The ModelProto is encoded by wick itself (_proto.py): exporting needs no onnx or protobuf package, and the
file is checked in the tests by onnx's checker and run by ONNX Runtime."""
import os

from . import _convert, _proto
from ._trace import Graph, UnsupportedOp, onnx_dtype

__all__ = ['export', 'is_in_onnx_export', 'UnsupportedOp']  # and trace(), for SummaryWriter.add_graph

_exporting = [False]
_MIN_OPSET, _MAX_OPSET, _DEFAULT_OPSET = 13, 21, 18
_IR_VERSION = {13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9, 20: 9, 21: 10}

# Tensor methods and functions that read metadata or leave the graph (not ops): never refused
_NOT_OPS = frozenset('''size dim ndimension numel nelement __len__ __repr__ __str__ __format__ __hash__ __bool__ item
tolist numpy stride is_contiguous is_floating_point is_complex element_size data_ptr storage_offset requires_grad_
retain_grad register_hook __reduce_ex__ __deepcopy__ __array__ __iter__ __index__ __int__ __float__ get_device
is_nonzero __getstate__ __setstate__ __dir__ __sizeof__ __init_subclass__ __subclasshook__ __class_getitem__
__torch_function__ untyped_storage __dlpack__ __dlpack_device__ type cpu cuda __contains__
__array_wrap__ __reversed__ __delattr__ __setattr__ __getattribute__ __getattr__ __init__ __new__
_is_view _version'''.split())
# ... of which these read a traced tensor's values into Python: the trace keeps them as constants (as torch's
# tracer, which warns too)
_TO_PYTHON = ('item', 'tolist', '__bool__', '__int__', '__float__', '__index__', 'is_nonzero', 'numpy', '__array__')


def is_in_onnx_export():
    return _exporting[0]


def _tensors(value):
    from .. import Tensor
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


class _Tracer:
    """Wraps Module.__call__, wick's and wick.nn.functional's functions and Tensor's methods for one trace."""

    def __init__(self, graph):
        self.g = graph
        self.depth = 0       # > 0 inside a converted call: its inner ops are not recorded
        self.saved = []

    def _any_traced(self, args, kwargs):
        return any(self.g.traced(t) for t in _tensors(args) + _tensors(kwargs))

    def _record(self, label, convert, run, args, kwargs, extra=()):
        if self.depth:
            return run()
        self.depth += 1      # what runs here (the call, its converter, the graph's own reads) is not recorded
        try:
            if not self._any_traced(args, kwargs):
                for t in _tensors(args) + _tensors(kwargs):
                    self.g.check_escaped(t)
                return run()
            if convert is None:
                raise UnsupportedOp(f"wick.onnx.export: the op '{label}' is not supported yet")
            out = run()
            names = convert(self.g, *extra, out, *args, **kwargs)
        finally:
            self.depth -= 1
        outs = _tensors(out)
        names = [names] if isinstance(names, str) else list(names)
        if len(names) != len(outs):
            raise UnsupportedOp(f"wick.onnx.export: '{label}' gave {len(outs)} tensors, the exporter {len(names)}")
        for t, n in zip(outs, names):
            self.g.bind(t, n)
        return out

    def _wrap_function(self, label, fn):
        convert = _convert.OPS.get(label)
        tracer = self

        def traced(*args, **kwargs):
            return tracer._record(label, convert, lambda: fn(*args, **kwargs), args, kwargs)
        traced.__wrapped__ = fn
        return traced

    def _patch(self, owner, name, value):
        had = name in vars(owner)
        self.saved.append((owner, name, vars(owner).get(name), had))
        setattr(owner, name, value)

    def __enter__(self):
        import builtins
        from .. import Tensor, nn
        from ..nn import functional as F
        import wick
        _convert.register_modules()
        tracer, Module = self, nn.Module
        call = Module.__call__

        def module_call(mod, *args, **kwargs):
            convert = _convert.MODULES.get(type(mod))
            if convert is None:
                return call(mod, *args, **kwargs)
            return tracer._record(type(mod).__name__, convert, lambda: call(mod, *args, **kwargs), args, kwargs,
                                  extra=(mod,))
        self._patch(Module, '__call__', module_call)
        for name in _TO_PYTHON:
            self._patch(Tensor, name, _warn_to_python(self, name, getattr(Tensor, name)))
        for name in dir(Tensor):
            if name in _NOT_OPS or name.startswith('_') and not (name.startswith('__') and name.endswith('__')):
                continue
            attr = getattr(Tensor, name, None)
            if not callable(attr) or isinstance(attr, type):
                continue
            label = 'Tensor.' + name
            is_python = hasattr(attr, '__code__')
            if is_python and label not in _convert.OPS:
                continue     # Python methods are traced through: their ops are wrapped
            self._patch(Tensor, name, _method(self, label, attr))
        for mod, prefix in ((wick, ''), (F, 'F.')):
            for name, fn in list(vars(mod).items()):
                if name.startswith('_') or not callable(fn) or isinstance(fn, type) or \
                        type(fn).__name__ == 'module' or getattr(builtins, name, None) is fn:
                    continue
                label = prefix + name
                if hasattr(fn, '__code__') and label not in _convert.OPS:
                    continue
                self._patch(mod, name, self._wrap_function(label, fn))
        _exporting[0] = True
        return self

    def __exit__(self, *exc):
        _exporting[0] = False
        for owner, name, value, had in reversed(self.saved):
            if had:
                setattr(owner, name, value)
            else:
                delattr(owner, name)
        self.saved.clear()


def _warn_to_python(tracer, name, fn):
    def to_python(self, *args, **kwargs):
        if not tracer.depth and tracer.g.traced(self):
            import warnings
            warnings.warn(f"wick.onnx.export: Tensor.{name} of a traced tensor gives a Python value, which the "
                          "exported graph keeps as a constant: the model may not generalise to other inputs",
                          UserWarning, stacklevel=2)
        return fn(self, *args, **kwargs)
    return to_python


def _method(tracer, label, fn):
    convert = _convert.OPS.get(label)

    def traced(self, *args, **kwargs):
        return tracer._record(label, convert, lambda: fn(self, *args, **kwargs), (self,) + args, kwargs)
    return traced


def _shape(t, axes):
    return [axes.get(i, d) if isinstance(axes, dict) else d for i, d in enumerate(t.shape)]


def _dynamic(spec, name):
    """dynamic_axes[name] as {axis: dim name}: a dict as given, a list of axes named '<name>_dynamic_axes_<k>'."""
    axes = spec.get(name)
    if axes is None:
        return {}
    if isinstance(axes, dict):
        return {int(k): str(v) for k, v in axes.items()}
    return {int(a): f"{name}_dynamic_axes_{k + 1}" for k, a in enumerate(axes)}


def trace(model, args=(), kwargs=None, opset=_DEFAULT_OPSET, input_names=None, training=None):
    """One forward of model on args traced into a Graph: (graph, [(input name, example tensor)], outputs).
    The model runs in eval mode (torch's TrainingMode.EVAL) unless training is True, and is restored."""
    from .. import Tensor, nn
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):
        kwargs.update(args[-1])
        args = args[:-1]
    is_module = isinstance(model, nn.Module)
    params = {}
    if is_module:
        params = {id(p): n for n, p in model.named_parameters()}
        params.update({id(b): n for n, b in model.named_buffers()})
    g = Graph(opset, params)

    # the inputs: fresh leaves (floating ones requiring grad, so escaped ops show); the parameters do not
    flat = _tensors(args) + _tensors(kwargs)
    names = list(input_names or [])
    inputs, proxies = [], {}
    for i, t in enumerate(flat):
        name = names[i] if i < len(names) else f"input_{i}" if len(flat) > 1 else "input"
        proxy = t.detach().clone()
        if proxy.is_floating_point():
            proxy.requires_grad_(True)
        proxies[id(t)] = proxy
        g.bind(proxy, name)
        g.used.add(name)
        inputs.append((name, t))

    def swap(v):
        if isinstance(v, Tensor):
            return proxies[id(v)]
        if isinstance(v, (list, tuple)):
            return type(v)(swap(x) for x in v)
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        return v
    targs, tkwargs = swap(args), swap(kwargs)
    was_training = [(m, m.training) for m in model.modules()] if is_module else []
    grads = [(p, p.requires_grad) for p in model.parameters()] if is_module else []
    try:
        if is_module:
            model.train(training is True)
        for p, _ in grads:
            p.requires_grad_(False)
        with _Tracer(g):
            out = model(*targs, **tkwargs)
    finally:
        for p, rg in grads:
            p.requires_grad_(rg)
        for m, t in was_training:
            m.training = t
    results = _tensors(out)
    if not results:
        raise ValueError("wick.onnx.export: the model returned no tensor")
    return g, inputs, results


def export(model, args=(), f=None, *, kwargs=None, export_params=True, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamic_axes=None, keep_initializers_as_inputs=False,
           dynamo=False, training=None, do_constant_folding=True, **unused):
    """Trace model(*args, **kwargs) once and write the ONNX model to f (a path or a binary file); returns None.
    The model runs in eval mode (as torch's TrainingMode.EVAL) and is restored afterwards."""
    opset = _DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not _MIN_OPSET <= opset <= _MAX_OPSET:
        raise ValueError(f"wick.onnx.export: opset_version {opset} is not supported (wick writes opsets "
                         f"{_MIN_OPSET} to {_MAX_OPSET})")
    if not export_params:
        raise NotImplementedError("wick.onnx.export: export_params=False is not supported yet")
    dynamic_axes = dynamic_axes or {}
    g, ins, results = trace(model, args, kwargs, opset, input_names, training=str(training) == 'True' or None)
    inputs = [_proto.value_info(n, onnx_dtype(t.dtype), _shape(t, _dynamic(dynamic_axes, n))) for n, t in ins]
    onames = list(output_names or [])
    outputs = []
    for i, t in enumerate(results):
        name = onames[i] if i < len(onames) else f"output_{i}" if len(results) > 1 else "output"
        g.output(g.name(t), name)
        axes = _dynamic(dynamic_axes, name)
        # in a model with dynamic axes, an output's dims not named dynamic are left unknown
        shape = _shape(t, axes) if not dynamic_axes else [axes.get(d) for d in range(t.dim())]
        outputs.append(_proto.value_info(name, onnx_dtype(t.dtype), shape))
    from .. import __version__
    data = _proto.model(_proto.graph('main_graph', g.nodes, g.initializers, inputs, outputs), opset,
                        _IR_VERSION[opset], __version__)
    if isinstance(f, (str, os.PathLike)):
        with open(f, 'wb') as fh:
            fh.write(data)
    elif f is not None:
        f.write(data)
    if verbose:
        print(f"wick.onnx.export: {len(g.nodes)} nodes ({', '.join(sorted(set(g.ops)))}), "
              f"{len(g.initializers)} initializers, opset {opset}")
    return None
