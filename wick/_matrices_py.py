"""torch.vander and torch.chain_matmul, as torch's composites (aten/src/ATen/native/LinearAlgebra.cpp).

vander fills ones, copies x into the columns from 1 on and replaces them by their cumulative product (so an
integer or bool x gives int64, as cumprod promotes), then flips unless increasing. torch's backward through it
raises a version-counter error (its cumprod reads a slice it then overwrites); wick's records the same in-place
writes on the same view, so the same error. chain_matmul is linalg.multi_dot behind torch's once-per-process
deprecation warning (one per overload, as torch's TORCH_WARN_ONCE sites are)."""
import sys
import warnings

from ._tensor import Tensor

_wick = sys.modules[__package__]


def vander(x, N=None, increasing=False):
    if not isinstance(x, Tensor):
        raise TypeError(f"vander(): argument 'x' (position 1) must be Tensor, not {type(x).__name__}")
    if N is not None and (isinstance(N, bool) or not isinstance(N, int)):
        raise TypeError(f"vander(): argument 'N' must be int, not {type(N).__name__}")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.size(0)
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dtype = _wick.promote_types(x.dtype, _wick.int64)
    result = _wick.empty((x.size(0), n), dtype=dtype, device=x.device)
    if n > 0:
        result.fill_(1)
        if n > 1:
            rest = result[:, 1:]
            rest.copy_(x.unsqueeze(1))
            rest.copy_(_wick.cumprod(rest, dim=1))
    if not increasing:
        return _wick.flip(result, [1])
    return result


_warned = set()
_WARN = ("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
         "instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally "
         "at /__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:{}.)")


def chain_matmul(*matrices, out=None):
    site = 1102 if out is None else 1120
    if site not in _warned or _wick.is_warn_always_enabled():
        _warned.add(site)
        warnings.warn(_WARN.format(site), UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    for m in matrices:
        if not isinstance(m, Tensor):
            raise TypeError(f"chain_matmul(): argument 'matrices' must be tuple of Tensors, not {type(m).__name__}")
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    r = matrices[0].clone(memory_format=_wick.contiguous_format) if len(matrices) == 1 else \
        _wick.linalg.multi_dot(list(matrices))
    if out is not None:
        with _wick.no_grad():
            out.resize_(r.shape).copy_(r)
        return out
    return r


for _f in (vander, chain_matmul):
    _f.__module__ = 'torch'
    setattr(_wick, _f.__name__, _f)
