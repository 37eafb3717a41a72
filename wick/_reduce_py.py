"""The reduce area's Python layer: torch.return_types named tuples, and the functions torch itself writes in Python
(torch.norm / Tensor.norm, torch.unique / Tensor.unique, torch.unique_consecutive, torch.linalg.vector_norm)."""
import sys
import types

from . import _C
from ._tensor import Tensor

_pkg = sys.modules[__package__]

# ---- torch.return_types: one named tuple type per op that returns (values, indices) and the like
return_types = types.ModuleType('torch.return_types')
for _name, _fields in [
    ('max', ('values', 'indices')), ('min', ('values', 'indices')), ('aminmax', ('min', 'max')),
    ('median', ('values', 'indices')), ('nanmedian', ('values', 'indices')), ('mode', ('values', 'indices')),
    ('kthvalue', ('values', 'indices')), ('sort', ('values', 'indices')), ('topk', ('values', 'indices')),
    ('cummax', ('values', 'indices')), ('cummin', ('values', 'indices')),
]:
    setattr(return_types, _name, _C._register_return_type(_name, _fields))
    setattr(return_types, _name + '_out', _C._register_return_type(_name + '_out', _fields))  # out=(a, b) calls
_pkg.return_types = return_types


# ---- norm (torch/functional.py: norm; Tensor.norm calls it)
def norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None):
    if dim is not None:
        _dim = [dim] if isinstance(dim, int) else dim
    else:
        _dim = None
    if isinstance(p, str):
        if p == 'fro' and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _linalg.vector_norm(input, 2, _dim, keepdim, dtype=dtype, out=out)
        # here torch calls matrix_norm: the nuclear norm, or arguments it will refuse
        if _dim is None:
            _dim = list(range(input.ndim))
        if out is None:
            return _linalg.matrix_norm(input, p, _dim, keepdim, dtype=dtype)
        return _linalg.matrix_norm(input, p, _dim, keepdim, dtype=dtype, out=out)
    _p = 2.0 if p is None else p
    return _linalg.vector_norm(input, _p, _dim, keepdim, dtype=dtype, out=out)


def _tensor_norm(self, p='fro', dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


# ---- unique (torch/functional.py: _unique_impl and the _return_* wrappers)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        output, inverse_indices, counts = _C._unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                                                        return_counts=return_counts)
    else:
        output, inverse_indices, counts = _C._unique2(input, sorted=sorted, return_inverse=return_inverse,
                                                      return_counts=return_counts)
    if return_inverse and return_counts:
        return output, inverse_indices, counts
    if return_inverse:
        return output, inverse_indices
    if return_counts:
        return output, counts
    return output


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, counts = _C.unique_consecutive(input, return_inverse=return_inverse,
                                                            return_counts=return_counts, dim=dim)
    if return_inverse and return_counts:
        return output, inverse_indices, counts
    if return_inverse:
        return output, inverse_indices
    if return_counts:
        return output, counts
    return output


def _tensor_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _tensor_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


# ---- torch.linalg.vector_norm / torch.linalg.norm (vector cases), in the linalg namespace
def _vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        return _C._linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)
    return _C._linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


_linalg = getattr(_pkg, 'linalg', None)
if _linalg is None:
    _linalg = types.ModuleType('wick.linalg')
    _pkg.linalg = _linalg
    sys.modules['wick.linalg'] = _linalg
_linalg.vector_norm = _vector_norm
_linalg.matrix_norm = _C._linalg_matrix_norm
_linalg.norm = _C._linalg_norm

for _f, _n in [(_tensor_norm, 'norm'), (_tensor_unique, 'unique'), (_tensor_unique_consecutive, 'unique_consecutive')]:
    _f.__name__, _f.__qualname__ = _n, 'Tensor.' + _n

_pkg.norm = norm
_pkg.unique = unique
_pkg.unique_consecutive = unique_consecutive
Tensor.norm = _tensor_norm
Tensor.unique = _tensor_unique
Tensor.unique_consecutive = _tensor_unique_consecutive
