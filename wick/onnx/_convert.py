"""Converters: for each module or op the exporter knows, the ONNX nodes that compute its output.

A converter gets the graph `g`, the real output `out` of the call (its shape and dtype are known), and the
call's own arguments; it returns the ONNX name of the output (a list of names for several outputs).
MODULES are keyed by nn.Module class, OPS by name: 'Tensor.x' for a method, 'x' for wick.x and
'F.x' for wick.nn.functional.x."""
import math

import numpy as np

from ._trace import reshape_target, onnx_dtype

MODULES = {}
OPS = {}


def op(*names):
    def register(fn):
        for n in names:
            OPS[n] = fn
        return fn
    return register


def module(*classes):
    def register(fn):
        for c in classes:
            MODULES[c] = fn
        return fn
    return register


def _unsupported(what):
    from ._trace import UnsupportedOp
    return UnsupportedOp(f"wick.onnx.export: {what} is not supported yet")


def _tensor(x):
    from .. import Tensor
    return isinstance(x, Tensor)


def _dim(d, ndim):
    return d + ndim if d < 0 else d


def _cast_to(g, x, name, dtype):
    return name if x.dtype == dtype else g.op('Cast', name, to=onnx_dtype(dtype))


def _operand(g, x, out):
    """A binary op's operand as an ONNX name in the output's dtype (numbers become constants)."""
    if _tensor(x):
        return _cast_to(g, x, g.name(x), out.dtype)
    return g.scalar(x, out)


def _reshape(g, x, out):
    return g.op('Reshape', g.name(x), g.ints(reshape_target(tuple(x.shape), tuple(out.shape))))


# ---- elementwise ----
def _binary(onnx_op, swap=False):
    def convert(g, out, a, b, *rest, alpha=1, **kw):
        if rest or kw:
            raise _unsupported(f"{onnx_op} with extra arguments {rest or tuple(kw)}")
        x, y = _operand(g, a, out), _operand(g, b, out)
        if alpha != 1:
            y = g.op('Mul', y, g.scalar(alpha, out))
        return g.op(onnx_op, y, x) if swap else g.op(onnx_op, x, y)
    return convert


for _names, _onnx, _swap in ((('add', 'Tensor.add', 'Tensor.__add__', 'Tensor.__radd__', 'Tensor.__iadd__',
                               'Tensor.add_'), 'Add', False),
                             (('sub', 'Tensor.sub', 'Tensor.__sub__', 'Tensor.__isub__', 'Tensor.sub_'), 'Sub', False),
                             (('Tensor.__rsub__', 'rsub'), 'Sub', True),
                             (('mul', 'Tensor.mul', 'Tensor.__mul__', 'Tensor.__rmul__', 'Tensor.__imul__',
                               'Tensor.mul_'), 'Mul', False),
                             (('div', 'Tensor.div', 'Tensor.__truediv__', 'Tensor.__itruediv__', 'Tensor.div_'),
                              'Div', False),
                             (('Tensor.__rtruediv__',), 'Div', True),
                             (('pow', 'Tensor.pow', 'Tensor.__pow__'), 'Pow', False),
                             (('maximum', 'Tensor.maximum'), 'Max', False),
                             (('minimum', 'Tensor.minimum'), 'Min', False)):
    op(*_names)(_binary(_onnx, _swap))


@op('matmul', 'Tensor.matmul', 'Tensor.__matmul__', 'mm', 'Tensor.mm', 'bmm', 'Tensor.bmm')
def _matmul(g, out, a, b):
    return g.op('MatMul', g.name(a), g.name(b))


def _unary(onnx_op):
    def convert(g, out, x, *rest, **kw):
        if rest or (kw and set(kw) != {'inplace'}):
            raise _unsupported(f"{onnx_op} with extra arguments")
        return g.op(onnx_op, g.name(x))
    return convert


for _onnx, _base in (('Relu', 'relu'), ('Sigmoid', 'sigmoid'), ('Tanh', 'tanh'), ('Exp', 'exp'), ('Log', 'log'),
                     ('Sqrt', 'sqrt'), ('Neg', 'neg'), ('Abs', 'abs'), ('Erf', 'erf'), ('Reciprocal', 'reciprocal'),
                     ('Sin', 'sin'), ('Cos', 'cos')):
    op(_base, 'Tensor.' + _base, 'F.' + _base, 'Tensor.' + _base + '_', _base + '_', 'F.' + _base + '_')(_unary(_onnx))
op('Tensor.__neg__')(_unary('Neg'))
op('Tensor.contiguous', 'Tensor.clone', 'clone', 'Tensor.detach', 'detach', 'F.dropout', 'F.dropout1d',
   'F.dropout2d', 'F.alpha_dropout')(lambda g, out, x, *a, **k: g.op('Identity', g.name(x)))


@op('F.gelu', 'Tensor.gelu', 'gelu')
def _gelu(g, out, x, approximate='none'):
    if g.opset >= 20:
        return g.op('Gelu', g.name(x), approximate=approximate)
    n = g.name(x)
    if approximate != 'tanh':
        return _gelu_named(g, n, out)
    # 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    inner = g.op('Mul', g.op('Add', n, g.op('Mul', g.op('Pow', n, g.scalar(3, out)), g.scalar(0.044715, out))),
                 g.scalar(math.sqrt(2 / math.pi), out))
    return g.op('Mul', g.op('Mul', n, g.scalar(0.5, out)), g.op('Add', g.op('Tanh', inner), g.scalar(1, out)))


@op('F.silu', 'silu')
def _silu(g, out, x, inplace=False):
    n = g.name(x)
    return g.op('Mul', n, g.op('Sigmoid', n))


@op('F.leaky_relu', 'leaky_relu')
def _leaky_relu(g, out, x, negative_slope=0.01, inplace=False):
    return g.op('LeakyRelu', g.name(x), alpha=float(negative_slope))


@op('F.softmax', 'softmax', 'Tensor.softmax')
def _softmax(g, out, x, dim=None, *rest, dtype=None, **kw):
    if dim is None:
        raise _unsupported("softmax without dim")
    return g.op('Softmax', _cast_to(g, x, g.name(x), out.dtype), axis=dim)


@op('F.log_softmax', 'log_softmax', 'Tensor.log_softmax')
def _log_softmax(g, out, x, dim=None, *rest, dtype=None, **kw):
    if dim is None:
        raise _unsupported("log_softmax without dim")
    return g.op('LogSoftmax', _cast_to(g, x, g.name(x), out.dtype), axis=dim)


@op('Tensor.float', 'Tensor.double', 'Tensor.long', 'Tensor.int', 'Tensor.half', 'Tensor.bool', 'Tensor.to',
    'Tensor.type_as')
def _cast(g, out, x, *args, **kwargs):
    return _cast_to(g, x, g.name(x), out.dtype) if x.dtype != out.dtype else g.op('Identity', g.name(x))


# ---- shapes ----
@op('Tensor.view', 'Tensor.reshape', 'reshape', 'flatten', 'Tensor.flatten', 'Tensor.unsqueeze', 'unsqueeze',
    'Tensor.squeeze', 'squeeze', 'Tensor.unflatten', 'unflatten', 'Tensor.view_as', 'Tensor.reshape_as')
def _reshape_like(g, out, x, *args, **kwargs):
    return _reshape(g, x, out)


@op('Tensor.permute', 'permute')
def _permute(g, out, x, *dims):
    dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
    return g.op('Transpose', g.name(x), perm=[_dim(d, x.dim()) for d in dims])


@op('Tensor.transpose', 'transpose', 'Tensor.swapaxes', 'swapaxes')
def _transpose(g, out, x, d0, d1):
    perm = list(range(x.dim()))
    d0, d1 = _dim(d0, x.dim()), _dim(d1, x.dim())
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return g.op('Transpose', g.name(x), perm=perm)


@op('Tensor.t', 't')
def _t(g, out, x):
    return g.op('Transpose', g.name(x), perm=[1, 0]) if x.dim() == 2 else g.op('Identity', g.name(x))


@op('cat', 'concat', 'concatenate')
def _cat(g, out, tensors, dim=0):
    return g.op('Concat', *[_cast_to(g, t, g.name(t), out.dtype) for t in tensors], axis=dim)


@op('stack')
def _stack(g, out, tensors, dim=0):
    d = _dim(dim, out.dim())
    return g.op('Concat', *[g.op('Unsqueeze', g.name(t), g.ints([d])) for t in tensors], axis=d)


def _split_outputs(g, x, sizes, dim):
    d = _dim(dim, x.dim())
    return g.op('Split', g.name(x), g.ints(sizes), axis=d, n_out=len(sizes)) if len(sizes) > 1 else \
        [g.op('Identity', g.name(x))]


@op('Tensor.chunk', 'chunk', 'Tensor.split', 'split', 'Tensor.unbind', 'unbind')
def _split(g, out, x, arg=None, dim=0):
    outs = list(out)
    d = _dim(dim, x.dim())
    names = _split_outputs(g, x, [o.shape[d] if o.dim() == x.dim() else 1 for o in outs], d)
    if outs and outs[0].dim() < x.dim():    # unbind: the split dim goes
        names = [g.op('Squeeze', n, g.ints([d])) for n in names]
    return names


def _index_item(x):
    return x if isinstance(x, tuple) else (x,)


@op('Tensor.__getitem__')
def _getitem(g, out, x, index):
    """Basic indexing: ints, slices with positive steps, None and Ellipsis."""
    items = _index_item(index)
    if any(_tensor(i) or isinstance(i, (list, bool)) for i in items):
        raise _unsupported("indexing with tensors, lists or bools (advanced indexing)")
    if Ellipsis in items:
        k = items.index(Ellipsis)
        fill = x.dim() - sum(1 for i in items if i is not None and i is not Ellipsis)
        items = items[:k] + (slice(None),) * fill + items[k + 1:]
    name, starts, ends, axes, steps, squeeze, dim = g.name(x), [], [], [], [], [], 0
    for i in items:
        if i is None:
            continue
        size = x.shape[dim]
        if isinstance(i, int):
            j = i + size if i < 0 else i
            starts.append(j), ends.append(j + 1), axes.append(dim), steps.append(1)
            squeeze.append(dim)
        else:
            start, stop, step = i.indices(size)
            if step <= 0:
                raise _unsupported("slicing with a step below 1")
            if (start, stop, step) != (0, size, 1):
                starts.append(start), ends.append(stop), axes.append(dim), steps.append(step)
        dim += 1
    if axes:
        name = g.op('Slice', name, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps))
    if squeeze or any(i is None for i in items):
        name = g.op('Reshape', name, g.ints(list(out.shape)))
    return name


# ---- reductions ----
def _reduce(onnx_op):
    def convert(g, out, x, dim=None, keepdim=False, *, dtype=None):
        n = _cast_to(g, x, g.name(x), out.dtype)
        if dim is None:
            dims = list(range(x.dim()))
        else:
            dims = [_dim(d, x.dim()) for d in (dim if isinstance(dim, (list, tuple)) else [dim])]
        if onnx_op == 'ReduceSum' or g.opset >= 18:
            return g.op(onnx_op, n, g.ints(dims), keepdims=int(bool(keepdim)))
        return g.op(onnx_op, n, axes=dims, keepdims=int(bool(keepdim)))
    return convert


op('mean', 'Tensor.mean')(_reduce('ReduceMean'))
op('sum', 'Tensor.sum')(_reduce('ReduceSum'))
op('amax', 'Tensor.amax')(_reduce('ReduceMax'))


# ---- layers as functions ----
@op('F.linear')
def _linear_fn(g, out, x, weight, bias=None):
    return _linear(g, x, weight, bias)


def _linear(g, x, weight, bias):
    return _linear_named(g, g.name(x), x.dim(), weight, bias)


@op('F.layer_norm', 'layer_norm')
def _layer_norm_fn(g, out, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _layer_norm(g, out, x, normalized_shape, weight, bias, eps)


def _layer_norm(g, out, x, normalized_shape, weight, bias, eps):
    if g.opset < 17:
        raise _unsupported(f"layer_norm at opset {g.opset} (LayerNormalization needs opset 17)")
    shape = tuple(normalized_shape)
    scale = g.name(weight) if weight is not None else g.const(np.ones(shape, np.float32), 'ones')
    inputs = [g.name(x), scale] + ([g.name(bias)] if bias is not None else [])
    return g.op('LayerNormalization', *inputs, axis=-len(shape), epsilon=float(eps))


@op('F.embedding')
def _embedding_fn(g, out, input, weight, padding_idx=None, max_norm=None, *rest, **kw):
    if max_norm is not None:
        raise _unsupported("embedding with max_norm")
    return g.op('Gather', g.name(weight), g.name(input), axis=0)


def _pool_args(x, kernel_size, stride, padding, dilation=1):
    n = x.dim() - 2
    rep = (lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * n)
    k = rep(kernel_size)
    s = rep(stride) if stride is not None and stride != [] and stride != () else k
    p = rep(padding)
    return k, s, p + p, rep(dilation)


@op('F.max_pool1d', 'F.max_pool2d', 'F.max_pool3d', 'max_pool1d', 'max_pool2d', 'max_pool3d')
def _max_pool_fn(g, out, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        raise _unsupported("max_pool with return_indices=True")
    k, s, p, d = _pool_args(x, kernel_size, stride, padding, dilation)
    return g.op('MaxPool', g.name(x), kernel_shape=k, strides=s, pads=p, dilations=d, ceil_mode=int(ceil_mode))


@op('F.avg_pool1d', 'F.avg_pool2d', 'F.avg_pool3d', 'avg_pool1d')
def _avg_pool_fn(g, out, x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
    if divisor_override is not None:
        raise _unsupported("avg_pool with divisor_override")
    k, s, p, _ = _pool_args(x, kernel_size, stride, padding)
    return g.op('AveragePool', g.name(x), kernel_shape=k, strides=s, pads=p, ceil_mode=int(ceil_mode),
                count_include_pad=int(count_include_pad))


@op('F.adaptive_avg_pool1d', 'F.adaptive_avg_pool2d', 'F.adaptive_avg_pool3d', 'adaptive_avg_pool1d')
def _adaptive_avg_fn(g, out, x, output_size):
    return _adaptive(g, out, x, 'AveragePool', 'GlobalAveragePool')


@op('F.adaptive_max_pool1d', 'F.adaptive_max_pool2d', 'F.adaptive_max_pool3d')
def _adaptive_max_fn(g, out, x, output_size, return_indices=False):
    if return_indices:
        raise _unsupported("adaptive_max_pool with return_indices=True")
    return _adaptive(g, out, x, 'MaxPool', 'GlobalMaxPool')


def _adaptive(g, out, x, pool, global_pool):
    ins, outs = list(x.shape[2:]), list(out.shape[2:])
    if all(o == 1 for o in outs):
        return g.op(global_pool, g.name(x))
    if any(i % o for i, o in zip(ins, outs)):
        raise _unsupported(f"adaptive pooling from {ins} to {outs} (sizes that do not divide)")
    k = [i // o for i, o in zip(ins, outs)]
    return g.op(pool, g.name(x), kernel_shape=k, strides=k)


@op('F.scaled_dot_product_attention', 'scaled_dot_product_attention')
def _sdpa_fn(g, out, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    if is_causal or enable_gqa:
        raise _unsupported("scaled_dot_product_attention with is_causal or enable_gqa")
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    perm = list(range(k.dim()))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    scores = g.op('Mul', g.op('MatMul', g.name(q), g.op('Transpose', g.name(k), perm=perm)), g.scalar(scale, out))
    scores = _masked(g, scores, attn_mask, out)
    return g.op('MatMul', g.op('Softmax', scores, axis=-1), g.name(v))


def _masked(g, scores, mask, like):
    """scores + mask (a float mask), or -inf where a bool mask is False."""
    if mask is None:
        return scores
    if str(mask.dtype) == 'torch.bool':
        return g.op('Where', g.name(mask), scores, g.scalar(-math.inf, like))
    return g.op('Add', scores, _cast_to(g, mask, g.name(mask), like.dtype))


# ---- modules ----
def _modules():
    from .. import nn
    return nn


def register_modules():
    nn = _modules()

    @module(nn.Linear)
    def _linear_m(g, m, out, x):
        return _linear(g, x, m.weight, m.bias)

    @module(nn.Conv1d, nn.Conv2d, nn.Conv3d)
    def _conv(g, m, out, x):
        if m.padding_mode != 'zeros':
            raise _unsupported(f"{type(m).__name__} with padding_mode={m.padding_mode!r}")
        n = x.dim() - 2
        if m.padding == 'valid':
            pads = [0] * (2 * n)
        elif m.padding == 'same':
            total = [d * (k - 1) for d, k in zip(m.dilation, m.kernel_size)]
            pads = [t // 2 for t in total] + [t - t // 2 for t in total]
        else:
            pads = list(m.padding) * 2
        inputs = [g.name(x), g.name(m.weight)] + ([g.name(m.bias)] if m.bias is not None else [])
        return g.op('Conv', *inputs, kernel_shape=list(m.kernel_size), strides=list(m.stride), pads=pads,
                    dilations=list(m.dilation), group=m.groups)

    @module(nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
    def _batch_norm(g, m, out, x):
        if m.training or m.running_mean is None:
            raise _unsupported(f"{type(m).__name__} that uses batch statistics (training mode or "
                               "track_running_stats=False)")
        c = m.num_features
        scale = g.name(m.weight) if m.weight is not None else g.const(np.ones(c, np.float32), 'ones')
        bias = g.name(m.bias) if m.bias is not None else g.const(np.zeros(c, np.float32), 'zeros')
        return g.op('BatchNormalization', g.name(x), scale, bias, g.name(m.running_mean), g.name(m.running_var),
                    epsilon=float(m.eps))

    @module(nn.LayerNorm)
    def _layer_norm_m(g, m, out, x):
        return _layer_norm(g, out, x, m.normalized_shape, m.weight, m.bias, m.eps)

    @module(nn.Embedding)
    def _embedding_m(g, m, out, x):
        if m.max_norm is not None:
            raise _unsupported("Embedding with max_norm")
        return g.op('Gather', g.name(m.weight), g.name(x), axis=0)

    @module(nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.Identity)
    def _identity(g, m, out, x, *args, **kwargs):
        return g.op('Identity', g.name(x))

    @module(nn.Flatten, nn.Unflatten)
    def _flatten_m(g, m, out, x):
        return _reshape(g, x, out)

    for cls, onnx_op in ((nn.ReLU, 'Relu'), (nn.Sigmoid, 'Sigmoid'), (nn.Tanh, 'Tanh')):
        module(cls)(lambda g, m, out, x, _o=onnx_op: g.op(_o, g.name(x)))

    @module(nn.GELU)
    def _gelu_m(g, m, out, x):
        return _gelu(g, out, x, m.approximate)

    @module(nn.SiLU)
    def _silu_m(g, m, out, x):
        return _silu(g, out, x)

    @module(nn.LeakyReLU)
    def _leaky_m(g, m, out, x):
        return g.op('LeakyRelu', g.name(x), alpha=float(m.negative_slope))

    @module(nn.ELU)
    def _elu_m(g, m, out, x):
        return g.op('Elu', g.name(x), alpha=float(m.alpha))

    @module(nn.ReLU6, nn.Hardtanh)
    def _clip_m(g, m, out, x):
        lo, hi = (0.0, 6.0) if isinstance(m, nn.ReLU6) else (float(m.min_val), float(m.max_val))
        return g.op('Clip', g.name(x), g.scalar(lo, out), g.scalar(hi, out))

    @module(nn.Hardswish)
    def _hardswish_m(g, m, out, x):
        return g.op('HardSwish', g.name(x))

    @module(nn.Hardsigmoid)
    def _hardsigmoid_m(g, m, out, x):
        return g.op('HardSigmoid', g.name(x), alpha=1 / 6, beta=0.5)

    @module(nn.Softmax, nn.LogSoftmax)
    def _softmax_m(g, m, out, x):
        if m.dim is None:
            raise _unsupported(f"{type(m).__name__} without dim")
        return g.op('Softmax' if isinstance(m, nn.Softmax) else 'LogSoftmax', g.name(x), axis=m.dim)

    @module(nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)
    def _max_pool_m(g, m, out, x):
        return _max_pool_fn(g, out, x, m.kernel_size, m.stride, m.padding, m.dilation, m.ceil_mode, m.return_indices)

    @module(nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)
    def _avg_pool_m(g, m, out, x):
        return _avg_pool_fn(g, out, x, m.kernel_size, m.stride, m.padding, m.ceil_mode, m.count_include_pad,
                            getattr(m, 'divisor_override', None))

    @module(nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d)
    def _adaptive_avg_m(g, m, out, x):
        return _adaptive(g, out, x, 'AveragePool', 'GlobalAveragePool')

    @module(nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d)
    def _adaptive_max_m(g, m, out, x):
        if m.return_indices:
            raise _unsupported("AdaptiveMaxPool with return_indices=True")
        return _adaptive(g, out, x, 'MaxPool', 'GlobalMaxPool')

    @module(nn.LSTM, nn.GRU, nn.RNN)
    def _rnn(g, m, out, x, hx=None):
        return _recurrent(g, m, out, x, hx)

    @module(nn.TransformerEncoderLayer)
    def _encoder_layer(g, m, out, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        return _encoder(g, m, out, src, src_mask, src_key_padding_mask)

    @module(nn.MultiheadAttention)
    def _mha(g, m, out, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
             average_attn_weights=True, is_causal=False):
        return _attention(g, m, out[0], g.name(query), g.name(key), g.name(value), query.dim(), key_padding_mask,
                          need_weights, attn_mask, average_attn_weights)


def _gates(w, order, hidden):
    """The rows of a recurrent weight [G * hidden, ...] with torch's gate blocks put in ONNX's order."""
    return np.concatenate([w[i * hidden:(i + 1) * hidden] for i in order], axis=0)


def _recurrent(g, m, out, x, hx):
    """nn.LSTM / GRU / RNN as one ONNX LSTM / GRU / RNN node per layer, both directions in one node."""
    from .. import nn
    kind = 'LSTM' if isinstance(m, nn.LSTM) else 'GRU' if isinstance(m, nn.GRU) else 'RNN'
    if getattr(m, 'proj_size', 0):
        raise _unsupported("LSTM with proj_size")
    if x.dim() != 3:
        raise _unsupported(f"{kind} over unbatched (2-D) input")
    # torch's gate blocks: LSTM i f g o, GRU r z n; ONNX: LSTM i o f c, GRU z r h
    order = {'LSTM': [0, 3, 1, 2], 'GRU': [1, 0, 2], 'RNN': [0]}[kind]
    H, dirs = m.hidden_size, 2 if m.bidirectional else 1
    seq = g.op('Transpose', g.name(x), perm=[1, 0, 2]) if m.batch_first else g.name(x)
    h0 = c0 = None
    if hx is not None:
        h0, c0 = (hx if kind == 'LSTM' else (hx, None))
    y_hs, y_cs = [], []
    for layer in range(m.num_layers):
        Ws, Rs, Bs = [], [], []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w_ih = getattr(m, 'weight_ih' + sfx).detach().numpy()
            w_hh = getattr(m, 'weight_hh' + sfx).detach().numpy()
            Ws.append(_gates(w_ih, order, H))
            Rs.append(_gates(w_hh, order, H))
            if m.bias:
                b = [_gates(getattr(m, n + sfx).detach().numpy(), order, H) for n in ('bias_ih', 'bias_hh')]
            else:
                b = [np.zeros(len(order) * H, w_ih.dtype)] * 2
            Bs.append(np.concatenate(b))
        inputs = [seq, g.const(np.stack(Ws), f'{kind}_W'), g.const(np.stack(Rs), f'{kind}_R'),
                  g.const(np.stack(Bs), f'{kind}_B'), '']
        states = [(h0, 'initial_h')] + ([(c0, 'initial_c')] if kind == 'LSTM' else [])
        for state, _ in states:
            inputs.append(g.op('Slice', g.name(state), g.ints([layer * dirs]), g.ints([(layer + 1) * dirs]),
                               g.ints([0])) if state is not None else '')
        while inputs and inputs[-1] == '':
            inputs.pop()
        attrs = {'hidden_size': H, 'direction': 'bidirectional' if dirs == 2 else 'forward'}
        if kind == 'GRU':
            attrs['linear_before_reset'] = 1
        if kind == 'RNN':
            attrs['activations'] = ['Relu' if m.nonlinearity == 'relu' else 'Tanh'] * dirs
        n_out = 3 if kind == 'LSTM' else 2
        outs = g.op(kind, *inputs, n_out=n_out, **attrs)
        # Y [seq, dirs, batch, H] -> [seq, batch, dirs * H]
        seq = g.op('Reshape', g.op('Transpose', outs[0], perm=[0, 2, 1, 3]), g.ints([0, 0, -1]))
        y_hs.append(outs[1])
        if kind == 'LSTM':
            y_cs.append(outs[2])
    y = g.op('Transpose', seq, perm=[1, 0, 2]) if m.batch_first else seq
    h_n = g.op('Concat', *y_hs, axis=0) if len(y_hs) > 1 else y_hs[0]
    if kind == 'LSTM':
        c_n = g.op('Concat', *y_cs, axis=0) if len(y_cs) > 1 else y_cs[0]
        return [y, h_n, c_n]
    return [y, h_n]


def _attention(g, m, like, query, key, value, ndim, key_padding_mask, need_weights, attn_mask, average):
    """nn.MultiheadAttention (query, key, value: ONNX names of ndim-D values) as projections, per-head scaled
    dot products, softmax and the output projection; `like` is a tensor of the output's dtype."""
    if not m._qkv_same_embed_dim or m.bias_k is not None or m.add_zero_attn:
        raise _unsupported("MultiheadAttention with kdim / vdim, add_bias_kv or add_zero_attn")
    if ndim != 3:
        raise _unsupported("MultiheadAttention over unbatched (2-D) input")
    E, H = m.embed_dim, m.num_heads
    D = E // H
    w = m.in_proj_weight.detach().numpy()
    b = m.in_proj_bias.detach().numpy() if m.in_proj_bias is not None else None

    def project(n, i):
        if not m.batch_first:
            n = g.op('Transpose', n, perm=[1, 0, 2])         # [N, L, E]
        y = g.op('MatMul', n, g.const(np.ascontiguousarray(w[i * E:(i + 1) * E].T), 'in_proj_T'))
        if b is not None:
            y = g.op('Add', y, g.const(b[i * E:(i + 1) * E], 'in_proj_b'))
        return g.op('Transpose', g.op('Reshape', y, g.ints([0, 0, H, D])), perm=[0, 2, 1, 3])   # [N, H, L, D]

    q, k, v = project(query, 0), project(key, 1), project(value, 2)
    scores = g.op('Mul', g.op('MatMul', q, g.op('Transpose', k, perm=[0, 1, 3, 2])), g.scalar(1 / math.sqrt(D), like))
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            raise _unsupported("MultiheadAttention with a 3-D attn_mask")
        scores = _masked_attn(g, scores, attn_mask, like, keep_true=False)
    if key_padding_mask is not None:     # [N, S]: True (or a float added) per key -> [N, 1, 1, S]
        kpm = g.op('Unsqueeze', g.name(key_padding_mask), g.ints([1, 2]))
        scores = _masked_attn(g, scores, key_padding_mask, like, keep_true=False, name=kpm)
    weights = g.op('Softmax', scores, axis=-1)                                              # [N, H, L, S]
    ctx = g.op('Reshape', g.op('Transpose', g.op('MatMul', weights, v), perm=[0, 2, 1, 3]), g.ints([0, 0, E]))
    y = g.op('MatMul', ctx, g.op('Transpose', g.name(m.out_proj.weight), perm=[1, 0]))
    if m.out_proj.bias is not None:
        y = g.op('Add', y, g.name(m.out_proj.bias))
    if not m.batch_first:
        y = g.op('Transpose', y, perm=[1, 0, 2])
    if not need_weights:
        return [y]
    return [y, g.op('ReduceMean', weights, g.ints([1]), keepdims=0) if average and g.opset >= 18 else
            g.op('ReduceMean', weights, axes=[1], keepdims=0) if average else weights]


def _encoder(g, m, out, src, src_mask, key_padding_mask):
    """nn.TransformerEncoderLayer in eval mode: attention and feed-forward blocks, each with its residual and
    layer norm (before the block when norm_first)."""
    from ..nn import functional as F
    act = m.activation
    act = getattr(act, '__wrapped__', act)
    kind = ('relu' if act in (F.relu, getattr(F.relu, '__wrapped__', None)) or type(act).__name__ == 'ReLU' else
            'gelu' if act in (F.gelu, getattr(F.gelu, '__wrapped__', None)) or type(act).__name__ == 'GELU' else None)
    if kind is None:
        raise _unsupported(f"TransformerEncoderLayer with activation {act!r}")
    if kind == 'gelu' and type(act).__name__ == 'GELU' and act.approximate != 'none':
        raise _unsupported("TransformerEncoderLayer with a tanh-approximated GELU")
    def norm(name, ln):
        return g.op('LayerNormalization', name, g.name(ln.weight), *([g.name(ln.bias)] if ln.bias is not None else []),
                    axis=-len(ln.normalized_shape), epsilon=float(ln.eps))

    def attend(name):
        return _attention(g, m.self_attn, out, name, name, name, src.dim(), key_padding_mask, False, src_mask,
                          True)[0]

    def feed_forward(name):
        h = _linear_named(g, name, src.dim(), m.linear1.weight, m.linear1.bias)
        h = g.op('Relu', h) if kind == 'relu' else _gelu_named(g, h, out)
        return _linear_named(g, h, src.dim(), m.linear2.weight, m.linear2.bias)

    if g.opset < 17:
        raise _unsupported(f"layer_norm at opset {g.opset} (LayerNormalization needs opset 17)")
    x = g.name(src)
    if m.norm_first:
        x = g.op('Add', x, attend(norm(x, m.norm1)))
        x = g.op('Add', x, feed_forward(norm(x, m.norm2)))
    else:
        x = norm(g.op('Add', x, attend(x)), m.norm1)
        x = norm(g.op('Add', x, feed_forward(x)), m.norm2)
    return x


def _linear_named(g, name, ndim, weight, bias):
    if ndim == 2 and bias is not None:
        return g.op('Gemm', name, g.name(weight), g.name(bias), transB=1)
    y = g.op('MatMul', name, g.op('Transpose', g.name(weight), perm=[1, 0]))
    return g.op('Add', y, g.name(bias)) if bias is not None else y


def _gelu_named(g, n, like):
    if g.opset >= 20:
        return g.op('Gelu', n)
    erf = g.op('Erf', g.op('Div', n, g.scalar(math.sqrt(2), like)))
    return g.op('Mul', g.op('Mul', n, g.scalar(0.5, like)), g.op('Add', erf, g.scalar(1, like)))


def _masked_attn(g, scores, mask, like, keep_true, name=None):
    """An attention mask as torch's MultiheadAttention reads it: bool True means 'masked out' (-inf), a float
    mask is added."""
    n = name if name is not None else g.name(mask)
    if str(mask.dtype) == 'torch.bool':
        return g.op('Where', n, g.scalar(-math.inf, like), scores)
    return g.op('Add', scores, _cast_to(g, mask, n, like.dtype))
