"""Indexing functions whose keyword handling is Python in torch: torch.nonzero / Tensor.nonzero's as_tuple=
(the work is the C ops nonzero and nonzero_numpy)."""
import sys

from . import _C
from ._tensor import Tensor

_wick = sys.modules[__package__]
_nonzero = _C.nonzero
_nonzero_method = _C.TensorBase.nonzero


def nonzero(input, *, out=None, as_tuple=False):
    """torch.nonzero: the (n, ndim) coordinates of the non-zero elements, or with as_tuple=True one index
    tensor per dim (a 0-d input counts as 1-d)."""
    if as_tuple:
        if out is not None:
            raise TypeError("nonzero(): as_tuple=True does not take an out= argument")
        return _C._nonzero_numpy(input)
    return _nonzero(input, out=out) if out is not None else _nonzero(input)


def _tensor_nonzero(self, *, as_tuple=False):
    return _C._nonzero_numpy(self) if as_tuple else _nonzero_method(self)


_wick.nonzero = nonzero
Tensor.nonzero = _tensor_nonzero
