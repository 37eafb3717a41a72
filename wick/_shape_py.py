"""Tensor methods of the shape area that are Python in torch (attached to wick.Tensor), and the torch-level
functions torch writes in Python (torch.split, torch.atleast_*d, torch.meshgrid, ...)."""
import sys

from . import _C
from ._tensor import Tensor

_wick = sys.modules[__package__]

# torch: _C.TensorBase properties; the checks live in C (numpy_T, matrix_H, mT, mH in ops/shape.def).
Tensor.T = property(lambda self: self._T())
Tensor.H = property(lambda self: self._H())
Tensor.mT = property(lambda self: self._mT())
Tensor.mH = property(lambda self: self._mH())


def split(tensor, split_size_or_sections, dim=0):
    """torch.split (torch/functional.py): Tensor.split with either an int or a list of sizes."""
    return tensor.split(split_size_or_sections, dim)


_wick.split = split
