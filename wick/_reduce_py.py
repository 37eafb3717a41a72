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


# ---- unique (torch/functional.py: _unique_impl, the _return_* wrappers and their boolean dispatch). The wrappers keep
# torch's names and signatures, so a wrong call raises what torch's does ("_return_output() got an unexpected keyword
# argument 'out'"); and torch's dispatch of unique_consecutive reads return_inverse at position 2 and return_counts at
# position 1, so unique_consecutive(x, True) gives (output, counts) with counts empty, as torch.
def _unique_impl(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        return _C._unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)
    return _C._unique2(input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)


def _return_inverse_and_counts(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique_impl(input, sorted, return_inverse, return_counts, dim)


def _return_counts(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, counts


def _return_output(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique_impl(input, sorted, return_inverse, return_counts, dim)[0]


def _return_inverse(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, _ = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, inverse_indices


def _unique_consecutive_impl(input, return_inverse=False, return_counts=False, dim=None):
    return _C.unique_consecutive(input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _consecutive_return_inverse_and_counts(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)


def _consecutive_return_counts(input, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, counts


def _consecutive_return_output(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)[0]


def _consecutive_return_inverse(input, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, _ = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, inverse_indices


def _boolean_dispatch(arg_name, arg_index, if_true, if_false, func_name):
    """torch._jit_internal.boolean_dispatch: the flag from kwargs, else from args[arg_index], else False."""
    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else (args[arg_index] if arg_index < len(args) else False)
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = func_name
    return fn


unique = _boolean_dispatch(
    'return_inverse', 2,
    _boolean_dispatch('return_counts', 3, _return_inverse_and_counts, _return_inverse, 'unique'),
    _boolean_dispatch('return_counts', 3, _return_counts, _return_output, 'unique'), 'unique')
unique_consecutive = _boolean_dispatch(
    'return_inverse', 2,
    _boolean_dispatch('return_counts', 1, _consecutive_return_inverse_and_counts, _consecutive_return_inverse,
                      'unique_consecutive'),
    _boolean_dispatch('return_counts', 1, _consecutive_return_counts, _consecutive_return_output, 'unique_consecutive'),
    'unique_consecutive')


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
