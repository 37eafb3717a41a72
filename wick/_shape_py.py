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


def _unsafe_chunk(self, chunks, dim=0):
    """torch.unsafe_chunk / Tensor.unsafe_chunk: chunk's sizes, through unsafe_split (UnsafeSplitBackward0)"""
    if self.dim() == 0:
        raise RuntimeError('chunk expects at least a 1-dimensional tensor')
    if chunks <= 0:
        raise RuntimeError(f'chunk expects `chunks` to be greater than 0, got: {chunks}')
    size = self.size(dim)
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        return self.unsafe_split_with_sizes([0] * chunks, dim)
    return self.unsafe_split(split_size, dim)


def unsafe_chunk(input, chunks, dim=0):
    return _unsafe_chunk(input, chunks, dim)


_unsafe_chunk.__name__ = _unsafe_chunk.__qualname__ = 'unsafe_chunk'
Tensor.unsafe_chunk = _unsafe_chunk
_wick.unsafe_chunk = unsafe_chunk


def _real(self):
    """Tensor.real / torch.real: a real tensor itself (wick has no complex dtypes)"""
    return self


def _imag(self):
    raise RuntimeError('imag is not implemented for tensors with non-complex dtypes.')


Tensor.real = property(_real)
Tensor.imag = property(_imag)
_wick.real = _real
_wick.imag = _imag


def _is_pinned(self, device=None):
    """Tensor.is_pinned: False (no accelerator, no pinned memory)"""
    return False


def _pin_memory(self, device=None):
    raise RuntimeError('Cannot access accelerator device when none is available.')


Tensor.is_pinned = _is_pinned
Tensor.pin_memory = _pin_memory


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
