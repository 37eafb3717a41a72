"""torch.nn.functional: the functional forms of the layers, losses and utilities.

Each function checks and normalises its Python arguments exactly as torch's functional.py does (warnings, legacy
size_average/reduce flags, ValueErrors) and then calls one op of the table (wick._C / wick._C._nn), where the
semantics and the kernels live."""
import math
import warnings

from .. import _C
from .._args import tensor_args
from .._C import _nn as _nnC
from . import _reduction as _Reduction
from .modules.utils import _list_with_default, _pair, _single, _triple

import wick as _torch

Tensor = _torch.Tensor

# ---------------------------------------------------------------------------------------------- convolution
conv1d = _C.conv1d
conv2d = _C.conv2d
conv3d = _C.conv3d
conv_transpose1d = _C.conv_transpose1d
conv_transpose2d = _C.conv_transpose2d
conv_transpose3d = _C.conv_transpose3d


@tensor_args('input', 'weight', 'bias')
def conv_tbc(input, weight, bias, pad=0):
    raise NotImplementedError("wick: conv_tbc is not supported")


# ---------------------------------------------------------------------------------------------- linear
linear = _nnC.linear


bilinear = _torch.bilinear  # torch's F.bilinear is torch.bilinear itself


# ---------------------------------------------------------------------------------------------- pooling
_boolean_dispatched = {}  # torch._jit_internal.boolean_dispatched: dispatcher -> its two functions and flag


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """torch._jit_internal.boolean_dispatch: call if_true or if_false by a boolean argument, taken from kwargs,
    else from args[arg_index], else default; the dispatcher carries the one docstring of the pair."""
    def fn(*args, **kwargs):
        dispatch_flag = default
        if arg_name in kwargs:
            dispatch_flag = kwargs[arg_name]
        elif arg_index < len(args):
            dispatch_flag = args[arg_index]
        if dispatch_flag:
            return if_true(*args, **kwargs)
        return if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        if_true.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        if_false.__doc__ = if_true.__doc__
    elif if_false.__doc__ is not None and if_true.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = if_false.__doc__
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    _boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index, "default": default,
                              "arg_name": arg_name}
    return fn


def _boolean_dispatch(arg_name, arg_index, default, if_true, if_false, func_name):
    return boolean_dispatch(arg_name, arg_index, default, if_true, if_false, 'torch.nn.functional', func_name)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if stride is None:
        stride = []
    return _torch.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if stride is None:
        stride = []
    return _torch.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if stride is None:
        stride = []
    return _nnC.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if stride is None:
        stride = []
    return _torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if stride is None:
        stride = []
    return _nnC.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if stride is None:
        stride = []
    return _torch.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool1d = _boolean_dispatch('return_indices', 6, False, max_pool1d_with_indices, _max_pool1d, 'max_pool1d')
max_pool2d = _boolean_dispatch('return_indices', 6, False, max_pool2d_with_indices, _max_pool2d, 'max_pool2d')
max_pool3d = _boolean_dispatch('return_indices', 6, False, max_pool3d_with_indices, _max_pool3d, 'max_pool3d')

avg_pool1d = _C.avg_pool1d
avg_pool2d = _nnC.avg_pool2d
avg_pool3d = _nnC.avg_pool3d


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _torch.adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool1d(input, output_size, return_indices=False):
    return _torch.adaptive_max_pool1d(input, output_size)[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    output_size = _list_with_default(output_size, input.size())
    return _nnC.adaptive_max_pool2d(input, output_size)


def _adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    output_size = _list_with_default(output_size, input.size())
    return _nnC.adaptive_max_pool3d(input, output_size)


def _adaptive_max_pool3d(input, output_size, return_indices=False):
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


adaptive_max_pool1d = _boolean_dispatch('return_indices', 2, False, adaptive_max_pool1d_with_indices,
                                        _adaptive_max_pool1d, 'adaptive_max_pool1d')
adaptive_max_pool2d = _boolean_dispatch('return_indices', 2, False, adaptive_max_pool2d_with_indices,
                                        _adaptive_max_pool2d, 'adaptive_max_pool2d')
adaptive_max_pool3d = _boolean_dispatch('return_indices', 2, False, adaptive_max_pool3d_with_indices,
                                        _adaptive_max_pool3d, 'adaptive_max_pool3d')


def _fractional_pool(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    """torch's Python half of F.fractional_max_pool{2,3}d: the output size from the ratio, the samples drawn with
    torch.rand in the input's dtype (one draw for the whole batch, as torch's)."""
    from ._fractional_pool import fractional_max_pool
    name = f'fractional_max_pool{nd}d'
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2:
            if len(output_ratio) > 2:
                raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
            ratio = _pair(output_ratio)
        else:
            ratio = _triple(output_ratio)
        output_size = [int(input.size(d - nd) * ratio[d]) for d in range(nd)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        _random_samples = _torch.rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    return fractional_max_pool(nd, input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def _fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                           _random_samples=None):
    return _fractional_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def _fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                           _random_samples=None):
    return _fractional_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)[0]


fractional_max_pool2d = _boolean_dispatch('return_indices', 4, False, fractional_max_pool2d_with_indices,
                                          _fractional_max_pool2d, 'fractional_max_pool2d')
fractional_max_pool3d = _boolean_dispatch('return_indices', 4, False, fractional_max_pool3d_with_indices,
                                          _fractional_max_pool3d, 'fractional_max_pool3d')

adaptive_avg_pool1d = _C.adaptive_avg_pool1d


def adaptive_avg_pool2d(input, output_size):
    return _nnC.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    return _nnC.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    if isinstance(norm_type, (int, float)):
        if norm_type == float('inf'):
            return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float('inf'):
            return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_torch.sign(out) * relu(_torch.abs(out))).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kw, kh = _pair(kernel_size)
    if isinstance(norm_type, (int, float)):
        if norm_type == float('inf'):
            return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float('inf'):
            return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_torch.sign(out) * relu(_torch.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kd, kw, kh = _triple(kernel_size)
    if isinstance(norm_type, (int, float)):
        if norm_type == float('inf'):
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float('inf'):
            return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_torch.sign(out) * relu(_torch.abs(out))).mul(kd * kw * kh).pow(1.0 / norm_type)


# ---------------------------------------------------------------------------------------------- dropout
# The mask streams are the RNG area's (wick/nn/_dropout.py); until it lands these raise a clear error when they
# would need random numbers.
try:
    from ._dropout import dropout, alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout  # noqa: F401
except ImportError:  # pragma: no cover - depends on the RNG area
    def _no_rng(name):
        def fn(input, p=0.5, training=True, inplace=False):
            if p < 0.0 or p > 1.0:
                raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
            if not training or p == 0.0:
                return input
            raise NotImplementedError(f"wick: {name} needs the random generator, which is not built yet")

        fn.__name__ = name
        return fn

    dropout = _no_rng('dropout')
    alpha_dropout = _no_rng('alpha_dropout')
    dropout1d = _no_rng('dropout1d')
    dropout2d = _no_rng('dropout2d')
    dropout3d = _no_rng('dropout3d')
    feature_alpha_dropout = _no_rng('feature_alpha_dropout')


# ---------------------------------------------------------------------------------------------- activations
def threshold(input, threshold, value, inplace=False):
    if inplace:
        return _torch.threshold_(input, threshold, value)
    return _torch.threshold(input, threshold, value)


threshold_ = _torch.threshold_


def relu(input, inplace=False):
    if inplace:
        return input.relu_()
    return _torch.relu(input)


@tensor_args('input')
def relu_(input):
    return input.relu_()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _nnC.hardtanh_(input, min_val, max_val)
    return _nnC.hardtanh(input, min_val, max_val)


hardtanh_ = _nnC.hardtanh_


def relu6(input, inplace=False):
    if inplace:
        return _nnC.hardtanh_(input, 0.0, 6.0)
    return _nnC.hardtanh(input, 0.0, 6.0)


def elu(input, alpha=1.0, inplace=False):
    if inplace:
        return _nnC.elu_(input, alpha)
    return _nnC.elu(input, alpha)


elu_ = _nnC.elu_


def selu(input, inplace=False):
    if inplace:
        return _torch.selu_(input)
    return _torch.selu(input)


selu_ = _torch.selu_


def celu(input, alpha=1.0, inplace=False):
    if inplace:
        return _torch.celu_(input, alpha)
    return _torch.celu(input, alpha)


celu_ = _torch.celu_


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _nnC.leaky_relu_(input, negative_slope)
    return _nnC.leaky_relu(input, negative_slope)


leaky_relu_ = _nnC.leaky_relu_
prelu = _torch.prelu


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return (_torch.rrelu_ if inplace else _torch.rrelu)(input, lower, upper, training)


rrelu_ = _torch.rrelu_


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _nnC.glu(input, dim)


gelu = _nnC.gelu
logsigmoid = _nnC.log_sigmoid
hardshrink = _torch.hardshrink


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


softplus = _nnC.softplus
softshrink = _nnC.softshrink


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def hardsigmoid(input, inplace=False):
    if inplace:
        return _nnC.hardsigmoid_(input)
    return _nnC.hardsigmoid(input)


def silu(input, inplace=False):
    if inplace:
        return _nnC.silu_(input)
    return _nnC.silu(input)


def mish(input, inplace=False):
    if inplace:
        return _nnC.mish_(input)
    return _nnC.mish(input)


def hardswish(input, inplace=False):
    if inplace:
        return _nnC.hardswish_(input)
    return _nnC.hardswish(input)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim('softmax', input.dim(), _stacklevel)
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim('softmin', input.dim(), _stacklevel)
    if dtype is None:
        return (-input).softmax(dim)
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim('log_softmax', input.dim(), _stacklevel)
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    raise NotImplementedError("wick: gumbel_softmax is not supported yet")


# ---------------------------------------------------------------------------------------------- normalisation
def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size):
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _torch.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _torch.layer_norm(input, normalized_shape, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _torch.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _torch.group_norm(input, num_groups, weight, bias, eps, False)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _torch.div(input, denom, out=out)


# ---------------------------------------------------------------------------------------------- embedding
def _no_grad_embedding_renorm_(weight, input, max_norm, norm_type):
    with _torch.no_grad():
        _torch.embedding_renorm_(weight, input, max_norm, norm_type)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return _torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean',
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if weight.dtype == _torch.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                      "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             f"length sequences. However, found offsets of type {str(type(offsets))}")
        offsets = _torch.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == 'sum':
        mode_enum = 0
    elif mode == 'mean':
        mode_enum = 1
    elif mode == 'max':
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != 'sum':
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
                                  f"for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = weight.size(0) + padding_idx
    ret, _, _, _ = _torch.embedding_bag(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                                        per_sample_weights, include_last_offset, padding_idx)
    return ret


one_hot = _nnC.one_hot


# ---------------------------------------------------------------------------------------------- losses
def _warn_size(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _reduce_weighted(loss, weight, reduction, mean_by_weight):
    if reduction == 'none':
        return loss
    if reduction == 'sum':
        return _torch.sum(loss)
    if reduction == 'mean':
        return _torch.sum(loss) / _torch.sum(weight) if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    ei, et = _torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _reduce_weighted(_torch.pow(ei - et, 2) * weight, weight, reduction, True)
    return _nnC.mse_loss(ei, et, _Reduction.get_enum(reduction))


def _l1(input, target, reduction):
    loss = (input - target).abs()
    if reduction == 0:
        return loss
    return loss.mean() if reduction == 1 else loss.sum()


def l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    ei, et = _torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _reduce_weighted(_torch.abs(ei - et) * weight, weight, reduction, True)
    return _l1(ei, et, _Reduction.get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    ei, et = _torch.broadcast_tensors(input, target)
    if beta == 0.0:
        return _l1(ei, et, _Reduction.get_enum(reduction))
    return _nnC.smooth_l1_loss(ei, et, _Reduction.get_enum(reduction), beta)


def huber_loss(input, target, reduction='mean', delta=1.0, weight=None):
    _warn_size(input, target)
    ei, et = _torch.broadcast_tensors(input, target)
    if weight is None:
        return _nnC.huber_loss(ei, et, _Reduction.get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = _nnC.huber_loss(ei, et, _Reduction.get_enum('none'), delta) * weight
    return _reduce_weighted(loss, weight, reduction, False)


def _enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean',
                  label_smoothing=0.0):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _nnC.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index,
                                   label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _nnC.nll_loss_nd(input, target, weight, _Reduction.get_enum(reduction), ignore_index)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction='mean'):
    reduction_enum = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_torch.broadcast_shapes(target.size(), weight.size()))
    return _nnC.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction='mean',
                                     pos_weight=None):
    reduction_enum = _enum(size_average, reduce, reduction)
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False):
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == 'mean':
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        reduction_enum = _Reduction.get_enum('sum' if reduction == 'batchmean' else reduction)
    reduced = _torch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == 'batchmean' and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction='mean'):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    if reduction != 'none' and reduction != 'mean' and reduction != 'sum':
        raise ValueError(reduction + " is not a valid value for reduction")
    return _torch.poisson_nll_loss(input, target, log_input, full, eps, _Reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean'):
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _torch.ones_like(input)
    elif _torch.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = _torch.unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != 'none' and reduction != 'mean' and reduction != 'sum':
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    return loss


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'):
    return _torch.cosine_embedding_loss(input1, input2, target, margin, _enum(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'):
    reduction_enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _torch.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction='mean'):
    return _torch.hinge_embedding_loss(input, target, margin, _enum(size_average, reduce, reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    return _nnC.multilabel_margin_loss(input, target, _enum(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    return _nnC.soft_margin_loss(input, target, _enum(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction='mean'):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == 'none':
        return loss
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction='mean'):
    reduction_enum = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nnC.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction='mean'):
    reduction_enum = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _torch.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction='mean'):
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = _torch.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _torch.minimum(dist_neg, distance_function(positive, negative))
    loss = _torch.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == 'sum':
        return _torch.sum(loss)
    if reduction == 'mean':
        return _torch.mean(loss)
    return loss


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', zero_infinity=False):
    raise NotImplementedError("wick: ctc_loss (nn.CTCLoss) is not supported yet")


# ---------------------------------------------------------------------------------------------- distances
cosine_similarity = _torch.cosine_similarity  # torch's F functions are these torch ones themselves
pairwise_distance = _torch.pairwise_distance


def pdist(input, p=2):
    return _torch.pdist(input, p)


# ---------------------------------------------------------------------------------------------- shape utilities
def pad(input, pad, mode='constant', value=None):
    return _nnC.pad(input, pad, mode, value)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _nnC.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _nnC.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


pixel_shuffle = _C.pixel_shuffle
pixel_unshuffle = _C.pixel_unshuffle


channel_shuffle = _C.channel_shuffle
native_channel_shuffle = _C.native_channel_shuffle


# ---------------------------------------------------------------------------------------------- max unpooling
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    default_size = []
    for d in range(len(kernel_size)):
        default_size.append((input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d])
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError("output_size should be a sequence containing "
                             f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has a length of "
                             f"'{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {min_size} and '
                                 f'{max_size})')
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, "
                             f"but got output_size[{d}]={ret[d]}")
    return ret


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel_size = _single(kernel_size)
    _stride = _single(stride) if stride is not None else kernel_size
    padding = _single(padding)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    output_size = output_size + [1] if isinstance(output_size, list) else output_size + (1,)
    return _nnC.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel_size = _pair(kernel_size)
    _stride = _pair(stride) if stride is not None else kernel_size
    padding = _pair(padding)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return _nnC.max_unpool2d(input, indices, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel_size = _triple(kernel_size)
    _stride = _triple(stride) if stride is not None else kernel_size
    padding = _triple(padding)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return _nnC.max_unpool3d(input, indices, output_size, _stride, padding)


# ---------------------------------------------------------------------------------------------- spatial transformers
_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                          "Please specify align_corners=True if the old behavior is desired. "
                          "See the documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """F.grid_sample: torch's argument checks and warning, then torch.grid_sampler."""
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    mode_enum = 0 if mode == "bilinear" else (1 if mode == "nearest" else 2)
    padding_mode_enum = 0 if padding_mode == "zeros" else (1 if padding_mode == "border" else 2)
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    return _torch.grid_sampler(input, grid, mode_enum, padding_mode_enum, align_corners)


def affine_grid(theta, size, align_corners=None):
    """F.affine_grid: torch's argument checks and warnings, then torch.affine_grid_generator."""
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _torch.affine_grid_generator(theta, size, align_corners)


# ---------------------------------------------------------------------------------------------- interpolation
def _is_integer(x):
    return isinstance(x, int) and not isinstance(x, bool) or (isinstance(x, _torch.Tensor) and not x.is_floating_point())


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None,
                antialias=False):
    if mode in ('nearest', 'area', 'nearest-exact'):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                                 f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please "
                                 "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                                 "...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                                f"but got size with types {[type(x) for x in size]}")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == 'area' and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(math.floor(float(input.size(i + 2) * scale_factors[i]))) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ('bilinear', 'bicubic', 'lanczos') and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias:
        raise NotImplementedError("wick: interpolate(antialias=True) is not supported yet")
    nd = input.dim()
    if nd == 3 and mode == 'nearest':
        return _nnC.upsample_nearest1d(input, output_size, scale_factors)
    if nd == 4 and mode == 'nearest':
        return _nnC.upsample_nearest2d(input, output_size, scale_factors)
    if nd == 5 and mode == 'nearest':
        return _nnC.upsample_nearest3d(input, output_size, scale_factors)
    if nd == 3 and mode == 'nearest-exact':
        return _nnC._upsample_nearest_exact1d(input, output_size, scale_factors)
    if nd == 4 and mode == 'nearest-exact':
        return _nnC._upsample_nearest_exact2d(input, output_size, scale_factors)
    if nd == 5 and mode == 'nearest-exact':
        return _nnC._upsample_nearest_exact3d(input, output_size, scale_factors)
    if nd == 3 and mode == 'area':
        return adaptive_avg_pool1d(input, output_size)
    if nd == 4 and mode == 'area':
        return adaptive_avg_pool2d(input, output_size)
    if nd == 5 and mode == 'area':
        return adaptive_avg_pool3d(input, output_size)
    if nd == 3 and mode == 'linear':
        return _nnC.upsample_linear1d(input, output_size, align_corners, scale_factors)
    if nd == 4 and mode == 'bilinear':
        return _nnC.upsample_bilinear2d(input, output_size, align_corners, scale_factors)
    if nd == 5 and mode == 'trilinear':
        return _nnC.upsample_trilinear3d(input, output_size, align_corners, scale_factors)
    if nd == 4 and mode == 'bicubic':
        return _nnC.upsample_bicubic2d(input, output_size, align_corners, scale_factors)
    if nd == 4 and mode == 'lanczos':
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        raise ValueError("Lanczos mode requires antialias=True")
    if nd == 3 and mode == 'bilinear':
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if nd == 3 and mode == 'trilinear':
        raise NotImplementedError("Got 3D input, but trilinear mode needs 5D input")
    if nd == 4 and mode == 'linear':
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if nd == 4 and mode == 'trilinear':
        raise NotImplementedError("Got 4D input, but trilinear mode needs 5D input")
    if nd == 5 and mode == 'linear':
        raise NotImplementedError("Got 5D input, but linear mode needs 3D input")
    if nd == 5 and mode == 'bilinear':
        raise NotImplementedError("Got 5D input, but bilinear mode needs 4D input")
    raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported"
                              f" (got {nd}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos "
                              f"| area | nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode='nearest')


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)


# ---------------------------------------------------------------------------------------------- attention
def _sdpa_flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa=False):
    """torch's CPU backend choice: the flash kernel for dense 4-d inputs with one head size and no dropout."""
    if dropout_p > 0.0:
        return False
    if not (query.dim() == 4 and key.dim() == 4 and value.dim() == 4):
        return False
    if query.dtype not in (_torch.float32, _torch.float64, _torch.bfloat16, _torch.float16):
        return False
    if not (query.size(0) == key.size(0) == value.size(0)):
        return False
    if not (query.size(1) == key.size(1) == value.size(1)):
        if not (enable_gqa and key.size(1) == value.size(1) and key.size(1) > 0 and query.size(1) % key.size(1) == 0):
            return False
    if not (query.size(3) == key.size(3) == value.size(3)):
        return False
    if any(t.size(d) == 0 for t in (query, key, value) for d in range(4)):
        return False
    if any(t.stride(-1) != 1 for t in (query, key, value)):
        return False
    if attn_mask is not None:
        # torch's check_attn_mask_shape: a mask that requires grad, or does not fit [B|1, H|1, L|1, S|1], goes to math
        if attn_mask.requires_grad or attn_mask.dim() not in (2, 4):
            return False
        fits = [(attn_mask.size(-2), query.size(2)), (attn_mask.size(-1), key.size(2))]
        if attn_mask.dim() == 4:
            fits += [(attn_mask.size(0), query.size(0)), (attn_mask.size(1), query.size(1))]
        if any(m != t and m != 1 for m, t in fits):
            return False
    return True


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    orig = query.dtype
    if orig in (_torch.float16, _torch.bfloat16):
        query, key, value = query.float(), key.float(), value.float()
        if attn_mask is not None and attn_mask.is_floating_point():
            attn_mask = attn_mask.float()
    negative = scale is not None and scale < 0.0
    base = (1.0 / math.sqrt(query.size(-1))) if scale is None else abs(scale)
    factor = math.sqrt(base)
    q = query * (-factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        L, S = query.size(-2), key.size(-2)
        attn_mask = _torch.ones(L, S, dtype=_torch.bool).tril()
    if attn_mask is not None and attn_mask.dtype == _torch.bool:
        attn_mask = _torch.zeros(attn_mask.shape, dtype=q.dtype).masked_fill(attn_mask.logical_not(), float('-inf'))
    if enable_gqa and key.dim() >= 3 and query.size(-3) != key.size(-3):
        rep = query.size(-3) // key.size(-3)
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    attn = _torch.matmul(q, key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = _torch._safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    out = _torch.matmul(attn, value)
    return out.to(orig) if out.dtype != orig else out


@tensor_args('query', 'key', 'value', 'attn_mask?')
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    names = {_torch.float32: 'float', _torch.float64: 'double', _torch.float16: 'c10::Half',
             _torch.bfloat16: 'c10::BFloat16', _torch.int64: 'long int', _torch.int32: 'int'}
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{names.get(query.dtype, query.dtype)} key.dtype: {names.get(key.dtype, key.dtype)} and "
                           f"value.dtype: {names.get(value.dtype, value.dtype)} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_torch.bool, _torch.float32, query.dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                           f"{names.get(attn_mask.dtype, attn_mask.dtype)} and  query.dtype: "
                           f"{names.get(query.dtype, query.dtype)} instead.")
    if _sdpa_flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa):
        if enable_gqa and query.size(1) != key.size(1):
            rep = query.size(1) // key.size(1)
            key, value = key.repeat_interleave(rep, 1), value.repeat_interleave(rep, 1)
        return _torch._scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal,
                                                                   attn_mask=attn_mask, scale=scale)[0]
    return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


# ---------------------------------------------------------------------------------------- multi-head attention
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's rank checks of MultiheadAttention's inputs; True for batched (3-d) query, False for unbatched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                want = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != want:
                    raise AssertionError(f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes an additive float mask of target_type (-inf where True); float masks pass through."""
    if mask is None:
        return None
    is_float = _torch.is_floating_point(mask)
    if mask.dtype != _torch.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    if not is_float:
        mask = _torch.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, _torch.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v [..., E] projected by the packed weight w [3E, E] (bias b [3E]); self- and encoder-decoder
    attention project once and split, as torch does (same ops, same autograd graph)."""
    E = q.size(-1)
    if k is v:
        if q is k:
            # proj [..., 3E] -> [3, ..., E] (the packed q/k/v chunks first)
            proj = linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        # kv_proj [..., 2E] -> [2, ..., E]
        kv_proj = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Separate projections: w_q [Eq, Eq], w_k [Eq, Ek], w_v [Eq, Ev], biases [Eq]."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for w, want, what in ((w_q, (Eq, Eq), "query"), (w_k, (Eq, Ek), "key"), (w_v, (Eq, Ev), "value")):
        if w.shape != want:
            raise AssertionError(f"expecting {what} weights shape of {want}, but got {w.shape}")
    for b, what in ((b_q, "query"), (b_k, "key"), (b_v, "value")):
        if b is not None and b.shape != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _check_key_padding_mask(key_padding_mask, src_len, bsz):
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Sequence-first multi-head attention (query [L, N, E] or [L, E]; key/value [S, N, E*] or [S, E*]) -> (output
    [L, N, E], weights [N, L, S] / [N, H, L, S] or None), composed of linear/bmm/softmax/dropout or SDPA as torch."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # run as a batch of one at dim 1, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]

    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                           "`generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None     # SDPA applies the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False    # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # in-projection: q [L, N, E], k/v [S, N, E]
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for w, name in ((q_proj_weight, "q"), (k_proj_weight, "k"), (v_proj_weight, "v")):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    # attn_mask -> [1 or N*H, L, S]
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            want = (tgt_len, src_len)
            if attn_mask.shape != want:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {want}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if attn_mask.shape != want:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {want}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # learned key/value biases appended along the sequence: k/v [S+1, N, E]
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads into the batch: q [N*H, L, hd], k/v [N*H, S, hd]
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zeros_shape = (bsz * num_heads, 1, head_dim)
        k = _torch.cat([k, _torch.zeros(zeros_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = _torch.cat([v, _torch.zeros(zeros_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    # key_padding_mask [N, S] merged into attn_mask [N*H, L or 1, S]
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[2]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _torch.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)          # [N*H, L, S]
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _torch.bmm(weights, v)                # [N*H, L, hd]
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights

    # SDPA on [N, H, L, hd]; attn_mask [1, 1, L, S] or [N, H, L or 1, S]
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _native_multi_head_attention(query, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                                 mask=None, need_weights=True, average_attn_weights=True, mask_type=None):
    """What torch's inference fast path (torch._native_multi_head_attention, self-attention on batch-first query
    [B, L, E]) computes, as a composite: the mask (mask_type 1: [B, S]; 2: [B, H, L, S]) removes the positions
    where it is non-zero (no causal hint), rows that are masked everywhere give nan, and the output is contiguous."""
    if query.numel() == 0:
        return _torch.empty_like(query), None     # torch returns no weights for an empty batch or sequence
    B, L, E = query.shape
    head_dim = embed_dim // num_heads
    # qkv [B, L, 3E] -> q/k/v [B, H, L, hd]
    qkv = linear(query, qkv_weight, qkv_bias).view(B, L, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = _torch.matmul(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))   # [B, H, L, S]
    if mask is not None:
        # the fused kernel reads the mask as boolean: every non-zero entry (-inf, but also -1.5 or 0.5 in a float
        # mask a user gave the encoder layer) removes the position
        masked = mask.view(B, 1, 1, L) if mask_type == 1 else mask
        scores = scores.masked_fill(masked != 0, float('-inf'))
    weights = softmax(scores, dim=-1)
    out = _torch.matmul(weights, v).transpose(1, 2).reshape(B, L, embed_dim)         # [B, L, E]
    out = linear(out, proj_weight, proj_bias)
    if not need_weights:
        return out, None
    return out, (weights.mean(dim=1) if average_attn_weights else weights)


# ---------------------------------------------------------------------------------------------- torch's extras
from ..overrides import (  # noqa: E402,F401  (torch.nn.functional re-exports these from torch.overrides)
    handle_torch_function, has_torch_function, has_torch_function_unary, has_torch_function_variadic,
)

GRID_SAMPLE_INTERPOLATION_MODES = {'bilinear': 0, 'nearest': 1, 'bicubic': 2}
GRID_SAMPLE_PADDING_MODES = {'zeros': 0, 'border': 1, 'reflection': 2}


class BroadcastingListCls:
    """torch._jit_internal's BroadcastingList annotations: subscriptable, meaning nothing at run time."""
    def __getitem__(self, types):
        return


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = BroadcastingListCls()


def assert_int_or_pair(arg, arg_name, message):
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction='mean',
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...): torch's reference path (options=None)
    with its shape checks; linear_weight may carry K extra output dimensions (C, d_1, ..., d_K, in_features)."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None:
        raise NotImplementedError("wick: linear_cross_entropy's chunked path (options=LinearCrossEntropyOptions) is "
                                  "not supported yet; options=None computes the same loss")
    if out_features:
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)

# torch's docstring templates (torch/_torch_docs.py), kept as data for code that formats docs with them;
# the texts describe wick.
reproducibility_notes = {
    'forward_reproducibility_note': "This operation is deterministic in wick: the same inputs give the same output.",
    'backward_reproducibility_note': "The backward of this operation is deterministic in wick.",
    'cudnn_reproducibility_note': "wick has no cuDNN; its own CPU kernels are deterministic.",
}
sparse_support_notes = {
    'sparse_beta_warning': "wick has no sparse layouts yet: sparse inputs are not supported.",
}
tf32_notes = {
    'tf32_note': "wick computes float32 matrix products in float32 (no TensorFloat-32).",
}
