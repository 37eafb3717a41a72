"""torch.linalg's names of ops/linalg_lu.def, linalg_solvers.def, linalg_matrix_exp.def and linalg_lstsq.def:
linalg.lu_factor / lu_factor_ex / lu / lu_solve, linalg.matrix_exp, linalg.lstsq, their return types; torch.lu /
Tensor.lu, which torch writes in Python (torch/functional.py's _lu_impl, torch/_tensor.py's Tensor.lu) over
torch._lu_with_info; linalg.eig / eigvals refusing clearly (their results are complex and wick has no complex
dtypes yet)."""
import sys

from . import _C
from ._tensor import Tensor

_wick = sys.modules[__package__]

for _name, _fields in [('linalg_lu_factor_ex', ('LU', 'pivots', 'info')), ('linalg_lu_factor', ('LU', 'pivots')),
                       ('linalg_lu', ('P', 'L', 'U')), ('lu_unpack', ('P', 'L', 'U')),
                       ('_lu_with_info', ('LU', 'pivots', 'info')),
                       ('triangular_solve', ('solution', 'cloned_coefficient')),
                       ('linalg_lstsq', ('solution', 'residuals', 'rank', 'singular_values'))]:
    setattr(_wick.return_types, _name, _C._register_return_type(_name, _fields))
    setattr(_wick.return_types, _name + '_out', _C._register_return_type(_name + '_out', _fields))

_wick.linalg.lu_factor = _C._linalg.linalg_lu_factor
_wick.linalg.lu_factor_ex = _C._linalg.linalg_lu_factor_ex
_wick.linalg.lu = _C._linalg.linalg_lu
_wick.linalg.lu_solve = _C._linalg.linalg_lu_solve
_wick._lu_with_info = _C._lu_with_info
_wick.linalg.matrix_exp = _C._linalg.linalg_matrix_exp
_wick.linalg.lstsq = _C._linalg.linalg_lstsq


def _complex_result(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"torch.linalg.{name}: not supported yet: its result is complex and wick has no "
                                  "complex dtypes yet (for symmetric input, torch.linalg.eigh / eigvalsh work)")
    refuse.__name__ = refuse.__qualname__ = name
    refuse.__module__ = 'wick.linalg'
    return refuse


_wick.linalg.eig = _complex_result('eig')
_wick.linalg.eigvals = _complex_result('eigvals')


def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: the LU factorisation and pivots (and infos with get_infos=True) of A, through torch._lu_with_info"""
    result = _C._lu_with_info(A, pivot=pivot, check_errors=(not get_infos))
    if not get_infos:
        result = result[0], result[1]
    if out is None:
        return result
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for o, r in zip(out, result):
        o.resize_as_(r).copy_(r)
    return out


def _tensor_lu(self, pivot=True, get_infos=False):
    """Tensor.lu: see torch.lu"""
    LU, pivots, infos = _C._lu_with_info(self, pivot=pivot, check_errors=(not get_infos))
    if get_infos:
        return LU, pivots, infos
    return LU, pivots


_tensor_lu.__name__ = _tensor_lu.__qualname__ = 'lu'
_wick.lu = lu
Tensor.lu = _tensor_lu
