"""Tracing one forward through wick into an ONNX graph.

While a model runs once on the example inputs, the tracer stands between the model and wick: nn.Module
calls, the functions of wick / wick.nn.functional and the methods of Tensor are wrapped. A call whose
arguments hold a traced tensor is run as usual and then handed to its converter (_convert.py), which adds
the ONNX nodes computing the same output from the traced names; ops inside a converted call are not
recorded again. Tensors that no traced op produced (parameters, buffers, constants built in forward) become
initializers.

What cannot be exported is refused, never guessed: a wick built-in op without a converter that receives a
traced tensor raises NotImplementedError naming it; and since the inputs are traced with requires_grad (the
parameters without), a tensor that reaches a converter with a grad_fn but no traced name came from the
inputs through an op that escaped the tracer, which raises naming its grad_fn."""
import numpy as np

from . import _proto

_DTYPES = {'torch.float32': _proto.FLOAT, 'torch.float64': _proto.DOUBLE, 'torch.float16': _proto.FLOAT16,
           'torch.bfloat16': _proto.BFLOAT16, 'torch.int64': _proto.INT64, 'torch.int32': _proto.INT32,
           'torch.int16': _proto.INT16, 'torch.int8': _proto.INT8, 'torch.uint8': _proto.UINT8,
           'torch.bool': _proto.BOOL}
_NP = {_proto.FLOAT: np.float32, _proto.DOUBLE: np.float64, _proto.FLOAT16: np.float16, _proto.INT64: np.int64,
       _proto.INT32: np.int32, _proto.INT16: np.int16, _proto.INT8: np.int8, _proto.UINT8: np.uint8,
       _proto.BOOL: np.bool_}


def onnx_dtype(dtype):
    code = _DTYPES.get(str(dtype))
    if code is None or code == _proto.BFLOAT16:
        raise NotImplementedError(f"wick.onnx.export: tensors of dtype {dtype} are not supported yet")
    return code


class UnsupportedOp(NotImplementedError):
    pass


class Graph:
    """The ONNX graph being built: nodes, initializers, and the ONNX name of every traced tensor."""

    def __init__(self, opset, param_names):
        self.opset = opset
        self.nodes, self.initializers = [], []
        self.names = {}          # id(tensor) -> ONNX value name
        self.keep = []           # the traced tensors, alive while their ids are keys of names
        self.param_names = param_names   # id(parameter or buffer) -> its qualified name
        self.init_names = {}     # id(constant tensor) -> initializer name
        self.used = set()
        self.counts = {}
        self.ops = []            # the ONNX op types emitted, in order (for messages and tests)
        self.records = []        # (op type, input names, output names) of every node, in order

    def fresh(self, base):
        n = self.counts.get(base, 0)
        self.counts[base] = n + 1
        name = base if n == 0 and base not in self.used else f"{base}_{n}"
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name

    # ---- values ----
    def bind(self, t, name):
        self.names[id(t)] = name
        self.keep.append(t)

    def traced(self, t):
        return id(t) in self.names

    def check_escaped(self, t):
        """Refuse a tensor computed from the inputs by an op that escaped the tracer (it has a grad_fn but no
        traced name), naming its grad_fn."""
        if id(t) not in self.names and t.grad_fn is not None and id(t) not in self.param_names:
            raise UnsupportedOp(f"wick.onnx.export: the op behind {type(t.grad_fn).__name__} is not supported yet "
                                "(a tensor computed from the inputs by an op the exporter does not trace)")

    def name(self, t):
        """The ONNX name of a tensor: traced, else an initializer (a parameter under its own name)."""
        from .. import Tensor
        if not isinstance(t, Tensor):
            raise TypeError(f"wick.onnx.export: expected a tensor, got {type(t).__name__}")
        if id(t) in self.names:
            return self.names[id(t)]
        if id(t) in self.init_names:
            return self.init_names[id(t)]
        self.check_escaped(t)
        name = self.const(t.detach().numpy(), self.param_names.get(id(t), 'const'))
        self.init_names[id(t)] = name
        self.keep.append(t)
        return name

    def const(self, array, base='const'):
        array = np.ascontiguousarray(array)
        code = {np.dtype(v): k for k, v in _NP.items()}.get(array.dtype)
        if code is None:
            raise NotImplementedError(f"wick.onnx.export: constants of numpy dtype {array.dtype} are not supported")
        name = self.fresh(base)
        self.initializers.append(_proto.tensor(name, array.shape, code, array.astype(array.dtype.newbyteorder('<'))
                                               .tobytes()))
        return name

    def ints(self, values):
        return self.const(np.array(list(values), dtype=np.int64), 'ints')

    def scalar(self, value, like):
        """A 0-d constant of the dtype of tensor `like`."""
        return self.const(np.array(value, dtype=_NP[onnx_dtype(like.dtype)]), 'scalar')

    def op(self, op_type, *inputs, n_out=1, **attrs):
        outs = [self.fresh(op_type.lower()) for _ in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(_proto.node(op_type, list(inputs), outs, self.fresh(op_type), attrs))
        self.ops.append(op_type)
        self.records.append((op_type, list(inputs), outs))
        return outs[0] if n_out == 1 else outs

    def output(self, src, name):
        """The graph output `name`: an Identity of the value src."""
        self.used.add(name)
        self.nodes.append(_proto.node('Identity', [src], [name], self.fresh('Identity'), {}))
        self.records.append(('Identity', [src], [name]))


def reshape_target(in_shape, out_shape):
    """Reshape's shape input for in_shape -> out_shape that keeps dynamic dims dynamic: the leading dims equal
    to the input's are copied (0) and the first dim after them is inferred (-1)."""
    k = 0
    while k < min(len(in_shape), len(out_shape)) and in_shape[k] == out_shape[k] and out_shape[k] != 0:
        k += 1
    target = [0] * k + list(out_shape[k:])
    if k < len(target) and target[k] != 0:
        target[k] = -1
    return target
