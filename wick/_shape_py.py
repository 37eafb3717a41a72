"""Tensor methods of the shape area that are Python in torch (attached to wick.Tensor), and the torch-level
functions torch writes in Python (torch.split, torch.atleast_*d, torch.meshgrid, ...)."""
import sys

from . import _C
from ._tensor import Tensor

_wick = sys.modules[__package__]

# torch: _C.TensorBase properties; the checks live in C (numpy_T, matrix_H, mT, mH in ops/shape.def). The getters are
# the C methods themselves, so no Python frame of wick's stands between the user's line and a warning (x.T on 3-d).
Tensor.T = property(Tensor._T)
Tensor.H = property(Tensor._H)
Tensor.mT = property(Tensor._mT)
Tensor.mH = property(Tensor._mH)


def split(tensor, split_size_or_sections, dim=0):
    """torch.split (torch/functional.py): Tensor.split with either an int or a list of sizes."""
    return tensor.split(split_size_or_sections, dim)


_wick.split = split


def _atleast(f, tensors):
    if len(tensors) == 1:
        tensors = tensors[0]
    return f(tensors)


def atleast_1d(*tensors):
    """torch.atleast_1d(*tensors): one tensor gives a tensor, several (or a sequence) a tuple."""
    return _atleast(_C._atleast_1d, tensors)


def atleast_2d(*tensors):
    return _atleast(_C._atleast_2d, tensors)


def atleast_3d(*tensors):
    return _atleast(_C._atleast_3d, tensors)


def broadcast_tensors(*tensors):
    """torch.broadcast_tensors(*tensors)"""
    return _C._broadcast_tensors(tensors)


def meshgrid(*tensors, indexing=None):
    """torch.meshgrid(*tensors, indexing=None); without indexing torch warns and uses 'ij'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    return _C._meshgrid(tensors, indexing=indexing)


for _f in (atleast_1d, atleast_2d, atleast_3d, broadcast_tensors, meshgrid):
    setattr(_wick, _f.__name__, _f)
