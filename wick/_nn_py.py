"""The torch-namespace nn composites that torch writes in C++ from other ops (torch.kl_div, torch.cosine_similarity,
torch.pairwise_distance, the margin/embedding losses, torch.rms_norm, torch.bilinear, ...). They are compositions of
wick ops in the same order as torch's, so values, gradients and the grad_fn of the result match."""
import wick as torch
from . import _C
from ._args import tensor_args

_REDUCTIONS = (0, 1, 2)
# The losses' reduction defaults to 0 ('none') here, as torch's Python bindings read native_functions.yaml's
# `int reduction=Mean` (Note [Enum defaults] in tools/gen.py): torch.kl_div(a, b) is elementwise.


def _apply_loss_reduction(loss, reduction):
    if reduction == 1:
        return loss.mean()
    if reduction == 2:
        return loss.sum()
    return loss


def _infer_size(a, b):
    """at::infer_size: the broadcast of two shapes, with its message"""
    nd = max(len(a), len(b))
    out = []
    for i in range(nd):
        da = a[i - nd + len(a)] if i - nd + len(a) >= 0 else 1
        db = b[i - nd + len(b)] if i - nd + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                               f"dimension {i}")
        out.append(db if da == 1 else da)
    return torch.Size(out)


_SCALAR_NAME = {torch.bool: 'Bool', torch.uint8: 'Byte', torch.int8: 'Char', torch.int16: 'Short', torch.int32: 'Int',
                torch.int64: 'Long', torch.float16: 'Half', torch.bfloat16: 'BFloat16', torch.float32: 'Float',
                torch.float64: 'Double'}


def _sizes(t):
    return '[' + ', '.join(str(s) for s in t.shape) + ']'


@tensor_args('input', 'target')
def kl_div(input, target, reduction=0, *, log_target=False):
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        output = torch.exp(target) * (target - input)
    else:
        output = torch.xlogy(target, target) - target * input
    return _apply_loss_reduction(output, reduction)


@tensor_args('x1', 'x2')
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    dt = torch.result_type(x1, x2)
    if not dt.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {_SCALAR_NAME[dt]}")
    shape = _infer_size(x1.shape, x2.shape)
    a = x1.to(dt).expand(shape)
    b = x2.to(dt).expand(shape)
    na = torch.linalg.vector_norm(a, 2, dim, True).clone()
    nb = torch.linalg.vector_norm(b, 2, dim, True).clone()
    with torch.no_grad():
        na.clamp_min_(eps)
        nb.clamp_min_(eps)
    return ((a / na) * (b / nb)).sum(dim)


@tensor_args('x1', 'x2')
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    output_dim = max(x1.dim(), x2.dim())
    return torch.norm(x1 - x2 + eps, p, output_dim - 1, keepdim)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    output = (-target * (input1 - input2) + margin).clamp_min_(0)
    return _apply_loss_reduction(output, reduction)


def hinge_embedding_loss(self, target, margin=1.0, reduction=0):
    zeros = torch.zeros_like(self)
    margin_clamp = (margin - self).clamp_min_(0)
    output_margin = torch.where(target != 1, margin_clamp, zeros)
    output_self = torch.where(target != -1, self, zeros)
    return _apply_loss_reduction(output_margin + output_self, reduction)


@tensor_args('input1', 'input2', 'target')
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1:
        if not (input1.dim() == 2 and input2.dim() == 2):
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                               f"{_sizes(input1)} and {_sizes(input2)}.")
    elif not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{_sizes(input1)} and {_sizes(input2)}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + eps
    mag_square2 = (input2 * input2).sum(targ_dim) + eps
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = torch.zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    output_pos = torch.where(target == 1, pos, zeros)
    output_neg = torch.where(target == -1, neg, zeros)
    return _apply_loss_reduction(output_pos + output_neg, reduction)


@tensor_args('anchor', 'positive', 'negative')
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=0):
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = torch.min(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = torch.clamp_min(margin + dist_pos - dist_neg, 0)
    return _apply_loss_reduction(output, reduction)


@tensor_args('input', 'target')
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    import math
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        stirling = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss += stirling.masked_fill(target <= 1, 0)
    return _apply_loss_reduction(loss, reduction)


def _check_norm_shape(input, normalized_shape, weight, name):
    ns = list(normalized_shape)
    if len(ns) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {ns}")
    if weight is not None and list(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_sizes(weight)} and normalized_shape = {ns}")
    nd = input.dim()
    if nd < len(ns) or list(input.shape[nd - len(ns):]) != ns:
        expect = '[*' + ', '.join(str(s) for s in ns) + ']'
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape {expect}, but got input of "
                           f"size{_sizes(input)}")


@tensor_args('input', 'weight?')
def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    _check_norm_shape(input, normalized_shape, weight, 'rms_norm')
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    opmath = torch.float32 if input.dtype in (torch.float16, torch.bfloat16) else input.dtype
    x = input.to(opmath)
    if eps is None:
        eps = torch.finfo(opmath).eps
    rqrst = torch.rsqrt(torch.pow(x, 2).mean(dims, keepdim=True).add_(eps))
    result = x.mul(rqrst).to(input.dtype)
    if weight is not None:
        result = result.mul(weight).to(result.dtype)
    return result


@tensor_args('input1', 'input2', 'weight', 'bias?')
def bilinear(input1, input2, weight, bias=None):
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.size(i)} and "
                               f"{input2.size(i)}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.size(-1)} but expected "
                           f"{weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.size(-1)} but expected "
                           f"{weight.size(2)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected "
                           f"{weight.size(0)}")
    out_size = list(input1.shape[:-1]) + [weight.size(0)]
    a = input1.reshape(-1, input1.size(-1))
    b = input2.reshape(-1, input2.size(-1))
    output = _C._nn._bilinear_core(a, weight, b).reshape(out_size)
    if bias is not None:
        output = output + bias
    return output


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but `dim`, shaped to broadcast against v (dim=-1: the norm of all of v)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view([v.size(0)] + [1] * (v.dim() - 1))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view([1] * (v.dim() - 1) + [v.size(-1)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """v * (g / ||v||) with the norm over every dim but `dim` (torch's CPU composite; torch names its node
    WeightNormInterfaceBackward0, wick's is the MulBackward0 of this product)."""
    return v * (g / norm_except_dim(v, 2, dim))


def _attach_return_types():
    rt = getattr(torch, 'return_types', None)
    for name, fields in [('_scaled_dot_product_flash_attention_for_cpu', ('output', 'logsumexp'))]:
        t = _C._register_return_type(name, fields)
        if rt is not None:
            setattr(rt, name, t)


_attach_return_types()


def _attach():
    for name in ('_softmax', '_log_softmax', '_softmax_backward_data', '_log_softmax_backward_data', '_prelu_kernel',
                 '_adaptive_avg_pool2d', '_adaptive_avg_pool2d_backward', '_adaptive_avg_pool3d',
                 '_adaptive_avg_pool3d_backward', '_scaled_dot_product_flash_attention_for_cpu', '_safe_softmax',
                 '_embedding_bag'):
        if not hasattr(torch, name) and hasattr(_C, name):
            setattr(torch, name, getattr(_C, name))
    for name in ('kl_div', 'cosine_similarity', 'pairwise_distance', 'margin_ranking_loss', 'hinge_embedding_loss',
                 'cosine_embedding_loss', 'triplet_margin_loss', 'poisson_nll_loss', 'rms_norm', 'bilinear',
                 'norm_except_dim', '_weight_norm'):
        if not hasattr(torch, name):
            setattr(torch, name, globals()[name])


_attach()
